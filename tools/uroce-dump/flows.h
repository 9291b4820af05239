/* SPDX-License-Identifier: MIT */
/* uroce-dump --flows: per-flow (per destination QP) analysis of a capture. Every dissected
 * frame goes through flows_add(); flows_print() then reports packets, opcodes, reconstructed
 * messages, PSN behaviour (retransmissions, gaps, NAKs, RNR NAKs), congestion marks and
 * request-to-response latency. Memory stays bounded on any capture; the heuristics, the
 * limits and the JSON key names are documented in docs/flows.md. */
#ifndef UROCE_DUMP_FLOWS_H
#define UROCE_DUMP_FLOWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect.h"

struct flows;

/* A new, empty analysis; NULL when out of memory. Reads UROCE_DUMP_MESSAGES (how many
 * messages to list per flow). */
struct flows *flows_new(void);
/* Accounts one dissected frame (any frame: non-InfiniBand ones are only counted). Frames
 * must come in capture order. The frame's bytes are not kept. */
void flows_add(struct flows *f, const struct dump_pkt *d);
/* Writes the report as text or as one JSON document. Returns 0, or UROCE_EIO when writing
 * failed. */
int flows_print(struct flows *f, FILE *out, bool json);
void flows_free(struct flows *f);

/* The time series (docs/flows.md "Time series"): each flow's packets, bytes, CE marks, CNPs,
 * retransmitted requests and the highest new request PSN reached, per step_ns of capture
 * time. Before the first flows_add; UROCE_EINVAL for a step of 0 or after it. */
int flows_series_enable(struct flows *f, uint64_t step_ns);

/* What one block of the series is: its flow, and what the flow carried. */
struct flows_series_block {
	uint32_t flow_id;
	bool requests; /* new requests with PSNs: a rate and a PSN to plot */
	bool cnp;      /* CNPs */
	bool ce;       /* packets marked CE */
	uint64_t bytes;
};

/* Writes the series as CSV: a header, then one block per flow that had packets, each step
 * from the flow's first to its last (steps without packets too), blocks separated by two
 * blank lines and opened by a comment line naming the flow (gnuplot's data sets). *blocks
 * gets the blocks in that order (malloc'ed; the caller frees it). Returns how many were
 * written, or UROCE_ENOMEM, UROCE_EIO. */
int flows_series_csv(struct flows *f, FILE *out, struct flows_series_block **blocks);

#endif

/* SPDX-License-Identifier: MIT */
/* uroce-dump --flows: per-flow (per destination QP) analysis of a capture. Every dissected
 * frame goes through flows_add(); flows_print() then reports packets, opcodes, reconstructed
 * messages, PSN behaviour (retransmissions, gaps, NAKs, RNR NAKs), congestion marks and
 * request-to-response latency. Memory stays bounded on any capture; the heuristics, the
 * limits and the JSON key names are documented in docs/flows.md. */
#ifndef UROCE_DUMP_FLOWS_H
#define UROCE_DUMP_FLOWS_H

#include <stdbool.h>
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

#endif

/* SPDX-License-Identifier: MIT */
/* uroce-dump's per-packet output modes: one line per packet (the default), every field (-V),
 * JSON Lines (-T json) and chosen fields as tshark prints them (-T fields). */
#ifndef UROCE_DUMP_OUTPUT_H
#define UROCE_DUMP_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dissect.h"
#include "fields.h"
#include "outbuf.h"

/* The two modes meant for large captures add their text to an outbuf, which the caller
 * flushes when it must (after each packet of a live capture, before other output). */

/* One line: number, time since the first frame, addresses, transport, opcode, QP, PSN, the
 * extended headers that matter, payload length and CRC verdicts. t0_ns: the first frame's time. */
void print_line(struct outbuf *ob, const struct dump_pkt *d, uint64_t t0_ns);
/* Every present field, grouped by header: "Group", then "    label: value (meaning)". */
void print_verbose(FILE *out, const struct dump_pkt *d);
/* One JSON object on one line, keyed by field name. */
void print_json(FILE *out, const struct dump_pkt *d);

/* -T fields: the chosen fields and tshark's -E options. */
enum fields_occ {
	FIELDS_OCC_ALL = 0, /* every occurrence, joined by the aggregator (tshark's default) */
	FIELDS_OCC_FIRST = -1,
	FIELDS_OCC_LAST = -2,
	/* > 0: that occurrence, counted from 1 */
};

struct fields_out {
	const struct dump_field **fields;
	size_t count;
	bool header;
	char separator;  /* '\t' */
	char aggregator; /* ',' */
	char quote;      /* 0, '"' or '\'' */
	int occurrence;  /* enum fields_occ or N */
};

void fields_out_init(struct fields_out *fo);
/* Adds a field by name (-e): -1 when no such field exists. */
int fields_out_add(struct fields_out *fo, const char *name);
/* Applies one -E option ("header=y", "separator=/t", "occurrence=f", "aggregator=;",
 * "quote=d"): -1 with a message in err when it is not valid. */
int fields_out_option(struct fields_out *fo, const char *opt, char *err, size_t errlen);
void fields_out_header(FILE *out, const struct fields_out *fo);
void fields_out_packet(struct outbuf *ob, const struct fields_out *fo, const struct dump_pkt *d);
void fields_out_free(struct fields_out *fo);

#endif

/* SPDX-License-Identifier: MIT */
/* Where uroce-dump's frames come from: a pcap or pcapng file (libpcap), a raw ERF file (walked
 * record by record, since libpcap cannot read one), standard input holding any of these, or a
 * live interface. Every frame comes out as a struct dump_frame whose `link` says where the
 * wire dissector starts; frames it cannot start on carry a note instead. */
#ifndef UROCE_DUMP_INPUT_H
#define UROCE_DUMP_INPUT_H

#include <stddef.h>

#include "dissect.h"

struct dump_input;

/* Opens a capture file ("-": standard input) and, if filter is not NULL, applies the BPF
 * filter to its records. Returns NULL with a message in err when the file cannot be read, is
 * not a pcap, pcapng or ERF file, uses an unsupported link type, or the filter is invalid. */
struct dump_input *dump_input_open_file(const char *path, const char *filter, char *err,
					size_t errlen);
/* Starts a live capture on iface (promiscuous, whole packets, delivered as they arrive). */
struct dump_input *dump_input_open_live(const char *iface, const char *filter, char *err,
					size_t errlen);
/* The next frame: 1 with *f filled (f->data stays valid until the next call), 0 at the end or
 * after dump_input_break(), -1 with a message in err when reading failed (a file cut short
 * in the middle of a record, an I/O error). Frame numbers count from 1. */
int dump_input_next(struct dump_input *in, struct dump_frame *f, char *err, size_t errlen);
/* Makes dump_input_next() return 0 soon; safe to call from a signal handler. */
void dump_input_break(struct dump_input *in);
/* Packets the kernel dropped during a live capture (0 for files). */
unsigned long dump_input_dropped(struct dump_input *in);
void dump_input_close(struct dump_input *in);

#endif

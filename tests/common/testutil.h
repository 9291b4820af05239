/* SPDX-License-Identifier: MIT */
/* Helpers shared by the cmocka tests: where ../shared is, and walking a capture's frames. */
#ifndef UROCE_TESTUTIL_H
#define UROCE_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "wire/packet.h"

#define TEST_SKIP_CODE 77

/* The captures folder (../shared/testdata/captures), or NULL when it is absent. */
const char *test_captures_dir(void);

/* Calls fn for every frame of a pcap/pcapng capture or a raw ERF file (Ethernet, or ERF
 * type 21 InfiniBand records); returns the number of frames, or -1 when the file cannot be read. */
typedef void (*test_frame_fn)(void *ctx, size_t number, enum uroce_link link,
			      const uint8_t *data, size_t len);
long test_each_frame(const char *path, test_frame_fn fn, void *ctx);

/* Deterministic pseudo-random numbers for round-trip tests (xorshift64*). */
uint64_t test_rand(void);

#endif

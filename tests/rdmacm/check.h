/* SPDX-License-Identifier: MIT */
/* What the rdma_cm test programs of tests/rdmacm (rdmacm_api.c, rsocket_api.c,
 * rsocket_dgram.c) share: one "ok NAME" or "FAIL NAME: why" line per check, the failures
 * counted for the exit status, an IPv4 socket address from text, and the data pattern the
 * rsocket programs send and check byte by byte. */
#ifndef UROCE_TESTS_RDMACM_CHECK_H
#define UROCE_TESTS_RDMACM_CHECK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static int fails;

#define CHECK(name, cond, ...)                                  \
	do {                                                    \
		if (cond) {                                     \
			printf("ok %s\n", name);                \
		} else {                                        \
			printf("FAIL %s: ", name);              \
			printf(__VA_ARGS__);                    \
			printf("\n");                           \
			fails++;                                \
		}                                               \
	} while (0)

static inline struct sockaddr_in sin4(const char *ip, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* Byte i of the data sent with seed (each transfer its own): also right after 251 bytes of
 * a 256-byte cycle, so that a shift by a multiple of 256 shows. */
static inline uint8_t pattern(size_t i, unsigned seed)
{
	return (uint8_t)(i * 7 + i / 251 + seed);
}

static inline size_t mismatches(const uint8_t *b, size_t n, unsigned seed)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += b[i] != pattern(i, seed);
	return bad;
}

#endif

/* SPDX-License-Identifier: MIT */
/* What the rdma_cm test programs of tests/rdmacm (rdmacm_api.c, rsocket_api.c) share: one
 * "ok NAME" or "FAIL NAME: why" line per check, the failures counted for the exit status, and
 * an IPv4 socket address from text. */
#ifndef UROCE_TESTS_RDMACM_CHECK_H
#define UROCE_TESTS_RDMACM_CHECK_H

#include <arpa/inet.h>
#include <netinet/in.h>
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

#endif

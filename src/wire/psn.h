/* SPDX-License-Identifier: MIT */
/* 24-bit packet sequence numbers (IBA 9.7.1): all PSN arithmetic goes through these helpers
 * (style.md habit 6). Comparisons are modulo 2^24 in a window of half the space, the rule
 * IBA uses to tell "ahead" from "behind" (9.7.5.1.2: duplicates lie in the previous 2^23). */
#ifndef UROCE_WIRE_PSN_H
#define UROCE_WIRE_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define UROCE_PSN_MASK 0xFFFFFFu

static inline uint32_t uroce_psn_add(uint32_t psn, uint32_t n) { return (psn + n) & UROCE_PSN_MASK; }

/* a - b as a signed distance in [-2^23, 2^23). */
static inline int32_t uroce_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & UROCE_PSN_MASK;
	return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

static inline bool uroce_psn_lt(uint32_t a, uint32_t b) { return uroce_psn_diff(a, b) < 0; }
static inline bool uroce_psn_le(uint32_t a, uint32_t b) { return uroce_psn_diff(a, b) <= 0; }

#endif

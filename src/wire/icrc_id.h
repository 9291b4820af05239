/* SPDX-License-Identifier: MIT */
/* The IPv4 Identification's share of the RoCEv2 ICRC (docs/udp.md, "The IPv4
 * Identification"). The ICRC covers the ID, and CRC-32 is affine over GF(2): for a datagram
 * of a given length, changing the ID by x (XOR) changes the ICRC by L(x), linear in the 16
 * bits of x and independent of every other byte. A sender that knows which ID the kernel will
 * write (GSO segment k carries ID k) corrects the ICRC by L; a receiver that does not see the
 * ID (a UDP socket) solves L(x) = difference for the one ID that makes the ICRC verify.
 *
 * Pure: the caches are the caller's, zero-initialised; nothing is allocated. */
#ifndef UROCE_WIRE_ICRC_ID_H
#define UROCE_WIRE_ICRC_ID_H

#include <stddef.h>
#include <stdint.h>

#define UROCE_ICRC_ID_CACHE 16 /* bases kept by a struct uroce_icrc_id_cache (a power of 2) */

/* L(1 << b) for b = 0..15, for a 16-bit field with `after` bytes between it and the ICRC
 * (0: none computed yet). */
struct uroce_icrc_id_terms {
	uint32_t after;
	uint32_t v[16];
};

/* The change of the ICRC when a 16-bit field of the ICRC's input, followed by `after` bytes
 * up to the ICRC, changes by x (XOR): the same for every field at that distance, so the
 * IPv4 ID's terms and a UDP port's are one computation. The terms are computed into t when
 * `after` is not the distance they were computed for. */
uint32_t uroce_icrc_u16_change(struct uroce_icrc_id_terms *t, uint32_t after, uint16_t x);

/* The change of the ICRC of an IPv4 RoCEv2 datagram of len bytes (IP header to ICRC, a
 * 20-byte IPv4 header) when its ID changes by x (XOR): L(x). The terms are computed into t
 * when len is not the length they were computed for. A datagram too short to hold an ICRC
 * after the ID has none to change: 0. */
uint32_t uroce_icrc_id_change(struct uroce_icrc_id_terms *t, uint32_t len, uint16_t x);

/* The 16 terms of one length as an XOR basis in echelon form: vec[k] has its highest set bit
 * at k (or is 0), and combo[k] says which ID bits add up to it. */
struct uroce_icrc_id_basis {
	uint32_t len;
	uint32_t vec[32];
	uint16_t combo[32];
};

/* Bases for the most recent datagram lengths, looked up by a hash of the length. */
struct uroce_icrc_id_cache {
	struct uroce_icrc_id_basis b[UROCE_ICRC_ID_CACHE];
};

enum uroce_icrc_id_result {
	UROCE_ICRC_ID_OK,        /* the ICRC verifies with the ID in the header */
	UROCE_ICRC_ID_SOLVED,    /* exactly one other ID makes it verify: *id */
	UROCE_ICRC_ID_NONE,      /* no ID makes it verify: the packet is corrupted */
	UROCE_ICRC_ID_UNCHECKED, /* not a whole IPv4 (20-byte header) + UDP datagram with room
				  * for a BTH and an ICRC, total length equal to len */
};

/* The ID that makes the ICRC of the datagram p[0..len) verify. *id (may be NULL) gets the
 * header's ID (OK, NONE), the solved one (SOLVED), or is left alone (UNCHECKED); p is not
 * changed. cache: NULL, or bases kept between calls. At most one ID can verify: CRC-32
 * detects every error burst of up to 32 bits, so the 16 terms are independent. Because a
 * random corruption is explained by some ID with probability 2^-16, what a caller accepts
 * decides the strength left (docs/udp.md). */
enum uroce_icrc_id_result uroce_icrc_id_solve(const uint8_t *p, size_t len,
					      struct uroce_icrc_id_cache *cache, uint16_t *id);

#endif

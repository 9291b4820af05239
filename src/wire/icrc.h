/* SPDX-License-Identifier: MIT */
/* The invariant CRC of RoCEv2, RoCE v1 and native InfiniBand (facts.md section 1; IBA Vol. 1
 * 7.8.1, Annex A17 CA17-22): CRC-32 (IEEE, the zlib function) over the packet from the first
 * network header up to the ICRC, with the variant fields replaced by ones, stored on the wire
 * least-significant byte first. Used by both the dissector and the sending path. */
#ifndef UROCE_WIRE_ICRC_H
#define UROCE_WIRE_ICRC_H

#include <stddef.h>
#include <stdint.h>

enum uroce_icrc_kind {
	UROCE_ICRC_ROCEV2_IPV4, /* p: IPv4 header (IHL from the packet); hdr_len = IP + UDP */
	UROCE_ICRC_ROCEV2_IPV6, /* p: IPv6 header; hdr_len = IPv6 (+ extension headers) + UDP */
	UROCE_ICRC_ROCEV1,      /* p: GRH; hdr_len = 40 */
	UROCE_ICRC_IB_LOCAL,    /* p: LRH with LNH 2; hdr_len = 8 */
	UROCE_ICRC_IB_GLOBAL,   /* p: LRH with LNH 3; hdr_len = 48 (LRH + GRH) */
};

/* Computes the ICRC of the packet at p: the BTH starts at p + hdr_len, and len counts the
 * bytes up to (not including) the ICRC. Returns 0 and the CRC value in *crc, or UROCE_EINVAL
 * when the lengths cannot describe such a packet (too short, or headers before the BTH longer
 * than the masking buffer: IPv6 extension headers beyond 68 bytes). */
int uroce_icrc(enum uroce_icrc_kind kind, const uint8_t *p, size_t hdr_len, size_t len,
	       uint32_t *crc);

#endif

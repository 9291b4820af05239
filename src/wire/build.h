/* SPDX-License-Identifier: MIT */
/* Building whole RoCEv2 packets: optional Ethernet header, IPv4 or IPv6, UDP to port 4791,
 * BTH, the extended headers of the opcode, payload, pad and ICRC. The sending path and the
 * test and benchmark generators share it. */
#ifndef UROCE_WIRE_BUILD_H
#define UROCE_WIRE_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "eth.h"
#include "ib.h"

/* QPs send from UDP source ports at or above this one (0xC000 | a hash of the QP number):
 * uroce's other sockets on an address bind below it, so that none takes a QP's port. */
#define UROCE_QP_SPORT_MIN 0xC000u

/* The network part of a RoCEv2 packet. */
struct uroce_rocev2_net {
	bool ipv6;
	uint8_t src[16];    /* IPv4 addresses use the first 4 bytes */
	uint8_t dst[16];
	uint8_t tclass;     /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	uint8_t hop_limit;  /* TTL */
	uint32_t flowlabel; /* IPv6 only */
	uint16_t ip_id;     /* IPv4 Identification (facts.md section 2: 0 from a DF socket) */
	uint16_t sport;     /* UDP source port (UROCE_QP_SPORT_MIN | hash of the QP: ECMP entropy) */
};

/* Writes the packet into out[0..cap) and returns its length, or UROCE_ENOSPACE,
 * UROCE_EINVAL (ext->present differs from the opcode's headers, or an invalid opcode) or
 * UROCE_EBADLEN (too long for the length fields). eth may be NULL for a packet that starts
 * at the IP header (as a UDP socket sends it). The pad count, all length fields, the IPv4
 * header checksum and the ICRC are computed; the UDP checksum is 0 (allowed by Annex A17). */
ssize_t uroce_rocev2_build(uint8_t *out, size_t cap, const struct uroce_eth *eth,
			   const struct uroce_rocev2_net *net, const struct uroce_bth *bth,
			   const struct uroce_ext *ext, const uint8_t *payload, size_t payload_len);

#endif

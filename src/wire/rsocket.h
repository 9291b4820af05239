/* SPDX-License-Identifier: MIT */
/* The two headers of rdma-core's datagram rsockets (librdmacm/rsocket.c, v44.0: struct
 * ds_header and struct ds_udp_header; docs/rdmacm.md "Datagram rsockets"):
 *  - ds_header, before each datagram over a UD QP: version (4 or 6), length (8 or 24), the
 *    sender's UDP port, then its IPv4 address, or the IPv6 flow info and address;
 *  - ds_udp_header, before a datagram over UDP, which tells its receiver the sender's QP:
 *    tag 0x55555555, version, op, length (16 or 28), a reserved byte, the QPN (24 bits of a
 *    32-bit field), the sender's IPv4 or IPv6 address.
 * Every multi-byte field is in network order; the port and flow info are kept here as the
 * socket address carries them (network order), so they are copied, never swapped. */
#ifndef UROCE_WIRE_RSOCKET_H
#define UROCE_WIRE_RSOCKET_H

#include <stddef.h>
#include <stdint.h>

enum {
	UROCE_DS_HDR4_LEN = 8,
	UROCE_DS_HDR6_LEN = 24,
	UROCE_DS_UDP_HDR4_LEN = 16,
	UROCE_DS_UDP_HDR6_LEN = 28,
	UROCE_DS_UDP_TAG = 0x55555555,
};

/* A sender as the headers name it. */
struct uroce_ds_addr {
	uint8_t version;   /* 4 or 6 */
	uint8_t port[2];   /* as sin_port / sin6_port hold it */
	uint8_t flow[4];   /* IPv6: as sin6_flowinfo holds it */
	uint8_t ip[16];    /* IPv4: the first 4 */
};

/* The ds_header of a (its length), or 0 for a version other than 4 and 6. */
size_t uroce_ds_hdr_build(uint8_t *out, const struct uroce_ds_addr *a);
/* A ds_header at b: its length, or 0 when it is neither version's or longer than len. */
size_t uroce_ds_hdr_parse(const uint8_t *b, size_t len, struct uroce_ds_addr *a);

/* A ds_udp_header: op, the sender's QPN (24 bits) and address (version and ip). */
size_t uroce_ds_udp_hdr_build(uint8_t *out, uint8_t op, uint32_t qpn,
			      const struct uroce_ds_addr *a);
/* Its length, or 0 when the tag, the version's length or the size is wrong; version is the
 * IP version the datagram came over (rdma-core's udp_svc_valid_udp_hdr). */
size_t uroce_ds_udp_hdr_parse(const uint8_t *b, size_t len, uint8_t version, uint8_t *op,
			      uint32_t *qpn, struct uroce_ds_addr *a);

#endif

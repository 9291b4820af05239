/* SPDX-License-Identifier: MIT */
/* What rdma-core's rsockets put on the wire besides their data (librdmacm/rsocket.c,
 * v44.0; docs/rdmacm.md "rsocket"): a stream socket's connect private data (struct
 * rs_conn_data), and the two headers of datagram sockets (struct ds_header and struct
 * ds_udp_header):
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

/* struct rs_conn_data (40 bytes, the REQ's and the REP's private data): version 1, flags,
 * credits (be16), 3 reserved bytes, target_iomap_size (rs_value_to_scale's 8-bit form),
 * then two struct rs_sge {be64 addr; be32 key; be32 length}: the sender's target SGL and
 * the first half of its data buffer. RS_CONN_FLAG_NET: the sender is big-endian (the SGEs
 * it writes later are in its own order); RS_CONN_FLAG_IOMAP: its iomap slots follow its
 * target SGL. */
enum {
	UROCE_RS_CONN_DATA_LEN = 40,
	UROCE_RS_CONN_VERSION = 1,
	UROCE_RS_CONN_FLAG_NET = 1 << 0,
	UROCE_RS_CONN_FLAG_IOMAP = 1 << 1,
};

struct uroce_rs_sge {
	uint64_t addr;
	uint32_t key, length;
};

struct uroce_rs_conn_data {
	uint8_t version, flags;
	uint16_t credits;
	uint8_t target_iomap_size;
	struct uroce_rs_sge target_sgl, data_buf;
};

/* The 40 bytes of c, the reserved ones 0. */
void uroce_rs_conn_data_build(uint8_t *out, const struct uroce_rs_conn_data *c);
/* 0, or -1 when len is short of 40 (the version is the caller's to judge). */
int uroce_rs_conn_data_parse(const uint8_t *b, size_t len, struct uroce_rs_conn_data *c);

/* A sender as the datagram headers name it. */
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

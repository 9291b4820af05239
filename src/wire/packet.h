/* SPDX-License-Identifier: MIT */
/* Whole-frame dissection: from link-layer bytes to every header of a RoCEv2, RoCE v1 or
 * native InfiniBand packet, with offsets kept so that ICRC/VCRC can be checked and payloads
 * read in place. Pure: no allocation, pointers refer into the caller's frame. */
#ifndef UROCE_WIRE_PACKET_H
#define UROCE_WIRE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eth.h"
#include "ib.h"
#include "ip.h"

/* What the frame starts with. */
enum uroce_link {
	UROCE_LINK_ETHERNET, /* Ethernet II (pcap DLT_EN10MB) */
	UROCE_LINK_IB,       /* an InfiniBand packet starting at the LRH (ERF type 21 payload) */
	UROCE_LINK_IP,       /* a raw IPv4/IPv6 packet */
};

enum uroce_encap {
	UROCE_ENCAP_NONE,     /* not InfiniBand transport (ARP, plain IP, ...) */
	UROCE_ENCAP_ROCEV2,   /* UDP port 4791 over IPv4/IPv6 */
	UROCE_ENCAP_ROCEV1,   /* EtherType 0x8915, GRH first */
	UROCE_ENCAP_IB,       /* native InfiniBand, LRH first */
};

/* Layers found, as bits of uroce_pkt.layers. */
enum uroce_layer {
	UROCE_L_ETH = 1u << 0,
	UROCE_L_VLAN = 1u << 1,
	UROCE_L_IPV4 = 1u << 2,
	UROCE_L_IPV6 = 1u << 3,
	UROCE_L_UDP = 1u << 4,
	UROCE_L_LRH = 1u << 5,
	UROCE_L_GRH = 1u << 6,
	UROCE_L_BTH = 1u << 7,
	UROCE_L_EXT = 1u << 8,     /* all extended headers of the opcode decoded */
	UROCE_L_ICRC = 1u << 9,
	UROCE_L_VCRC = 1u << 10,
	UROCE_L_RAW = 1u << 11,    /* LNH 0/1: raw IPv6/IPv4 (or RWH) after the LRH */
};

enum uroce_crc_status {
	UROCE_CRC_ABSENT = 0, /* no such CRC in this packet, or it could not be located */
	UROCE_CRC_OK,
	UROCE_CRC_BAD,
	UROCE_CRC_UNCHECKED,  /* present but not computable (e.g. an IPv4 header with options) */
};

struct uroce_pkt {
	enum uroce_encap encap;
	uint32_t layers;       /* enum uroce_layer set */
	int err;               /* 0, or the negative UROCE_E* code where dissection stopped */
	uint32_t err_layer;    /* the enum uroce_layer bit whose decode failed; UROCE_L_EXT
				* with UROCE_L_EXT in layers: the headers are whole and BTH
				* PadCnt is larger than the bytes after them (UROCE_EBADLEN) */

	struct uroce_eth eth;
	struct uroce_ipv4 ip4;
	struct uroce_ipv6 ip6;
	struct uroce_udp udp;
	struct uroce_lrh lrh;
	struct uroce_grh grh;
	struct uroce_bth bth;
	struct uroce_ext ext;
	const struct uroce_opcode_info *op; /* NULL until the BTH is decoded */

	const uint8_t *frame;
	size_t frame_len;      /* bytes captured */
	size_t l3_off;         /* IP header (RoCEv2/IP), GRH (RoCE v1) */
	size_t ib_off;         /* first IB byte: LRH (native), GRH (RoCE v1), BTH (RoCEv2) */
	size_t bth_off;
	size_t payload_off;    /* after the extended headers */
	size_t payload_len;    /* payload bytes, pad excluded */
	size_t icrc_off;       /* valid when layers has UROCE_L_ICRC */
	size_t vcrc_off;       /* valid when layers has UROCE_L_VCRC */
	size_t raw_off;        /* LNH 0/1: the bytes after the LRH */
	uint16_t raw_ethertype; /* LNH 0: the RWH EtherType */
	uint32_t icrc;         /* as computed from the wire: little-endian (CRC value) */
	uint16_t vcrc;
};

/* Dissects one frame. Always fills what it could; returns 0 when the frame was dissected to
 * its end (including non-IB frames, with encap NONE) or the negative UROCE_E* code that also
 * lands in pkt->err. Never reads outside frame[0..len). */
int uroce_pkt_dissect(struct uroce_pkt *pkt, enum uroce_link link, const uint8_t *frame,
		      size_t len);

/* Recomputes the ICRC (facts.md section 1) and compares with the stored one. */
enum uroce_crc_status uroce_pkt_icrc_check(const struct uroce_pkt *pkt, uint32_t *computed);
/* Recomputes the VCRC of a native IB packet. */
enum uroce_crc_status uroce_pkt_vcrc_check(const struct uroce_pkt *pkt, uint16_t *computed);

const char *uroce_encap_name(enum uroce_encap encap);
const char *uroce_crc_status_name(enum uroce_crc_status st);

#endif

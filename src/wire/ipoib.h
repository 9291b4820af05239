/* SPDX-License-Identifier: MIT */
/* IP over InfiniBand (RFC 4391): the 4-byte encapsulation header (EtherType, 16 reserved bits)
 * that starts the payload of a UD SEND (after the DETH) or, in IPoIB connected mode (RFC 4755),
 * of an RC SEND (after the BTH); and IB ARP (RFC 4391 section 4), whose hardware addresses
 * are the 20-byte IPoIB link addresses: flags (8 bits), QPN (24 bits), port GID (16 bytes).
 * Decoders follow the wire contract: `ssize_t decode(out, p, len)` returns the bytes consumed
 * or a negative UROCE_E* code and never reads past p + len; encoders return the bytes written
 * or UROCE_ENOSPACE. */
#ifndef UROCE_WIRE_IPOIB_H
#define UROCE_WIRE_IPOIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UROCE_IPOIB_HDR_LEN 4
#define UROCE_IPOIB_HWADDR_LEN 20
#define UROCE_IPOIB_ARP_HTYPE 32      /* ARP hardware type "InfiniBand" (RFC 4391 section 4) */
#define UROCE_IPOIB_ARP_FIXED_LEN 8   /* htype, ptype, hlen, plen, op */
#define UROCE_IPOIB_ARP_MAX_PLEN 16
/* The Q_Key OpenSM gives the IPoIB broadcast group by default (seen in ib-native-erf.pcap). */
#define UROCE_IPOIB_QKEY_DEFAULT 0x00000B1Bu

/* EtherTypes carried over IPoIB. */
#define UROCE_ETHERTYPE_IPV4 0x0800
#define UROCE_ETHERTYPE_ARP 0x0806
#define UROCE_ETHERTYPE_RARP 0x8035
#define UROCE_ETHERTYPE_IPV6 0x86DD

/* The flags byte of an IPoIB link address: bit 7 says the node accepts connected mode
 * (RFC 4755 section 3; Linux IPOIB_FLAGS_RC). */
#define UROCE_IPOIB_HW_FLAG_RC 0x80

/* ARP operations (RFC 826, RFC 903 for RARP). */
#define UROCE_ARP_OP_MAP(X)        \
	X(REQUEST, 1, "request")   \
	X(REPLY, 2, "reply")       \
	X(RREQUEST, 3, "reverse request") \
	X(RREPLY, 4, "reverse reply")

struct uroce_ipoib_hwaddr {
	uint8_t flags;
	uint32_t qpn;       /* 24 bits */
	uint8_t gid[16];
};

struct uroce_ipoib_arp {
	uint16_t htype;     /* 32 */
	uint16_t ptype;     /* 0x0800 for IPv4 */
	uint8_t hlen;       /* 20 */
	uint8_t plen;       /* 4 for IPv4; at most UROCE_IPOIB_ARP_MAX_PLEN */
	uint16_t op;
	struct uroce_ipoib_hwaddr sha;
	uint8_t spa[UROCE_IPOIB_ARP_MAX_PLEN];
	struct uroce_ipoib_hwaddr tha;
	uint8_t tpa[UROCE_IPOIB_ARP_MAX_PLEN];
};

struct uroce_ipoib {
	uint16_t ethertype;
	uint16_t rsv;
	bool has_arp;       /* ethertype ARP/RARP and a well-formed IB ARP followed */
	struct uroce_ipoib_arp arp;
	size_t payload_off; /* where the encapsulated packet starts: always UROCE_IPOIB_HDR_LEN */
	size_t payload_len; /* its length, as far as the input went */
};

ssize_t uroce_ipoib_hwaddr_decode(struct uroce_ipoib_hwaddr *out, const uint8_t *p, size_t len);
ssize_t uroce_ipoib_hwaddr_encode(const struct uroce_ipoib_hwaddr *in, uint8_t *p, size_t len);

/* IB ARP: UROCE_ETRUNC when cut short, UROCE_EFORMAT when hlen is not 20 or plen is larger
 * than UROCE_IPOIB_ARP_MAX_PLEN. Returns 8 + 2 x (20 + plen). */
ssize_t uroce_ipoib_arp_decode(struct uroce_ipoib_arp *out, const uint8_t *p, size_t len);
ssize_t uroce_ipoib_arp_encode(const struct uroce_ipoib_arp *in, uint8_t *p, size_t len);

/* Decodes the IPoIB header of an IB payload (p: the bytes after DETH or BTH, len: up to the
 * pad/ICRC) and, for ARP/RARP, the IB ARP that follows. Returns the bytes consumed (4, or 4 +
 * the ARP length), UROCE_ETRUNC when the header or the ARP is cut short, or the ARP's
 * UROCE_EFORMAT. Other EtherTypes are left to their own decoders at payload_off. */
ssize_t uroce_ipoib_decode(struct uroce_ipoib *out, const uint8_t *p, size_t len);
/* The 4-byte header (and the ARP when has_arp). */
ssize_t uroce_ipoib_encode(const struct uroce_ipoib *in, uint8_t *p, size_t len);

/* Whether a payload looks like IPoIB: a reserved field of zero and an EtherType IPoIB carries
 * (IPv4, ARP, RARP, IPv6). Wireshark's heuristic is the same test with any EtherType it has a
 * dissector for (packet-infiniband.c, dissect_eth_over_ib). */
bool uroce_ipoib_probe(const uint8_t *p, size_t len);

const char *uroce_arp_op_name(uint16_t op);

#endif

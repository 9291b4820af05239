/* SPDX-License-Identifier: MIT */
/* IPv4 (options flagged), IPv6 (extension headers flagged) and UDP. */
#ifndef UROCE_WIRE_IP_H
#define UROCE_WIRE_IP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UROCE_IPV4_HLEN 20
#define UROCE_IPV6_HLEN 40
#define UROCE_UDP_HLEN 8
#define UROCE_IPPROTO_UDP 17

struct uroce_ipv4 {
	uint8_t version; /* 4 */
	uint8_t ihl;     /* 32-bit words */
	uint8_t tos;     /* DSCP << 2 | ECN */
	uint16_t total_len;
	uint16_t id;
	uint8_t flags;   /* 3 bits: reserved, DF, MF */
	uint16_t frag_off; /* 13 bits, in 8-byte units */
	uint8_t ttl;
	uint8_t proto;
	uint16_t csum;
	uint8_t src[4];
	uint8_t dst[4];
	bool has_options; /* ihl > 5: flagged, since rxe and most RoCE peers assume 20 bytes */
};

struct uroce_ipv6 {
	uint8_t version; /* 6 */
	uint8_t tclass;
	uint32_t flowlabel; /* 20 bits */
	uint16_t payload_len;
	uint8_t nxthdr;     /* the first next-header value */
	uint8_t hoplimit;
	uint8_t src[16];
	uint8_t dst[16];
	bool has_ext;       /* extension headers were skipped to reach the upper layer */
	uint8_t upper_proto; /* the protocol after any extension headers */
	uint32_t ext_len;   /* bytes of extension headers (may exceed what Payload Length allows) */
};

struct uroce_udp {
	uint16_t sport;
	uint16_t dport;
	uint16_t len;
	uint16_t csum;
};

/* IPv4 and IPv6 decoders return the header length (IPv6: including extension headers). */
ssize_t uroce_ipv4_decode(struct uroce_ipv4 *out, const uint8_t *p, size_t len);
/* Encodes a 20-byte header (options are not written); the checksum field is written as given. */
ssize_t uroce_ipv4_encode(const struct uroce_ipv4 *in, uint8_t *p, size_t len);
/* The IPv4 header checksum of hdr[0..hlen) (with its checksum field counted as is). */
uint16_t uroce_ipv4_checksum(const uint8_t *hdr, size_t hlen);
ssize_t uroce_ipv6_decode(struct uroce_ipv6 *out, const uint8_t *p, size_t len);
/* Encodes the fixed 40-byte header only. */
ssize_t uroce_ipv6_encode(const struct uroce_ipv6 *in, uint8_t *p, size_t len);
ssize_t uroce_udp_decode(struct uroce_udp *out, const uint8_t *p, size_t len);
ssize_t uroce_udp_encode(const struct uroce_udp *in, uint8_t *p, size_t len);

/* An IP datagram carrying UDP, the form in which RoCEv2 packets cross the io boundary
 * (io.h): its IP and UDP headers, parsed and checked once for every backend. */
struct uroce_udp_datagram {
	bool ipv6;
	uint8_t src[16], dst[16]; /* IPv4: the first 4 bytes, the rest zero */
	uint8_t tclass;           /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	uint8_t ttl;              /* TTL / hop limit */
	uint16_t id;              /* IPv4 Identification; 0 over IPv6 */
	bool csum_ok;             /* the IPv4 header checksum verifies; true over IPv6 */
	uint16_t sport, dport;
	size_t hlen;              /* IP and UDP headers: where the UDP payload starts */
	size_t len;               /* the datagram's length by its IP header */
};
/* Parses p[0..len) as an IPv4 datagram with a 20-byte header that is not a fragment, or an
 * IPv6 one without extension headers, carrying UDP, whose IP length fits in len (bytes
 * past it, an Ethernet frame's padding, are not the datagram's) and whose UDP length is the
 * rest. Returns 0, or UROCE_EINVAL for anything else. */
int uroce_udp_datagram_decode(struct uroce_udp_datagram *d, const uint8_t *p, size_t len);

#endif

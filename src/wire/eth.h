/* SPDX-License-Identifier: MIT */
/* Ethernet II with up to two VLAN tags (802.1Q 0x8100, 802.1ad 0x88A8). */
#ifndef UROCE_WIRE_ETH_H
#define UROCE_WIRE_ETH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UROCE_ETH_HLEN 14
#define UROCE_ETHERTYPE_IPV4 0x0800
#define UROCE_ETHERTYPE_ARP 0x0806
#define UROCE_ETHERTYPE_IPV6 0x86DD
#define UROCE_ETHERTYPE_VLAN 0x8100
#define UROCE_ETHERTYPE_QINQ 0x88A8
#define UROCE_ETH_MAX_VLANS 2

struct uroce_vlan {
	uint16_t tpid; /* 0x8100 or 0x88A8 */
	uint8_t pcp;   /* 3 bits */
	uint8_t dei;   /* 1 bit */
	uint16_t vid;  /* 12 bits */
};

struct uroce_eth {
	uint8_t dst[6];
	uint8_t src[6];
	uint8_t n_vlans;
	struct uroce_vlan vlan[UROCE_ETH_MAX_VLANS];
	uint16_t ethertype; /* after the tags */
};

/* Returns the header length including the tags. A third stacked tag is UROCE_EBADLEN. */
ssize_t uroce_eth_decode(struct uroce_eth *out, const uint8_t *p, size_t len);
ssize_t uroce_eth_encode(const struct uroce_eth *in, uint8_t *p, size_t len);

/* The Ethernet address frames to an IP multicast group go to: 01:00:5e and the low 23 bits
 * of an IPv4 group (RFC 1112 6.4), 33:33 and the last 32 bits of an IPv6 group (RFC 2464 7).
 * ip holds 4 or 16 bytes; the caller checked that it is a group (224.0.0.0/4, ff00::/8). */
void uroce_eth_multicast_mac(const uint8_t *ip, bool ipv6, uint8_t mac[6]);

#endif

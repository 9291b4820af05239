/* SPDX-License-Identifier: MIT */
/* The host's IP addresses as a RoCEv2 GID table (design.md "Addressing"), read from the
 * kernel's routing netlink through libnl-route's caches. Only this file and netif.c talk to
 * the host's interface configuration; the engine sees plain addresses and an MTU code. */
#ifndef UROCE_VERBS_NETIF_H
#define UROCE_VERBS_NETIF_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "io/io.h"

/* One usable address and the interface it lives on. */
struct uroce_netif_addr {
	struct uroce_io_addr addr; /* IPv4 in the first 4 bytes, or IPv6 */
	uint32_t ifindex;
	uint32_t mtu;              /* the interface MTU (IP packet size), not the RoCE one */
	uint8_t mac[6];            /* zero for lo and for links without a 6-byte address */
	char ifname[16];           /* IFNAMSIZ, NUL-terminated */
};

/* Fills out[0..max) with the host's usable addresses in GID-table order and stores their
 * count in *n. Addresses beyond max are dropped: the order puts the likeliest choices first.
 *
 * Usable: the interface is administratively up; for IPv6, the address is not link-local
 * (fe80::/10, which would need a scope id the GID cannot carry) and not tentative (DAD still
 * running), DAD-failed or deprecated (preferred lifetime over).
 *
 * Order: IPv4 before IPv6 (perftest and the pingpong examples pick IPv4-mapped GIDs, and
 * GID index 0 should work for them); within a family the loopback interface first, with
 * 127.0.0.1 or ::1 at its head, then the other interfaces by ifindex, and on one interface
 * the kernel's order (primary before secondary addresses). On a usual host index 0 is
 * therefore 127.0.0.1 on lo.
 *
 * only: NULL for all addresses, else one textual IPv4 or IPv6 address (the UROCE_IP
 * variable); then out[0] is that address alone (*n is 1, or 0 when max is 0). An IPv4-mapped
 * IPv6 text (::ffff:a.b.c.d, the way GIDs print) means the IPv4 address. An address inside
 * 127.0.0.0/8 is accepted even when no interface carries it, on the loopback interface: the
 * kernel's local route for 127.0.0.0/8 delivers all of it to lo, and that is how two
 * processes on one host get distinct addresses (127.0.0.2, 127.0.0.3, ...) without setup.
 *
 * Returns 0, UROCE_EINVAL (only is not an address, or n is NULL, or out is NULL with max > 0),
 * UROCE_ENOENT (the host has no usable address only), UROCE_ENOMEM, or UROCE_EIO (netlink
 * failed). */
/* A RoCEv2 GID is an IPv6 address; an IPv4 address appears IPv4-mapped, ::ffff:a.b.c.d
 * (RFC 4291 2.5.5.2). These convert between the 16 bytes and struct uroce_io_addr. */
void uroce_netif_addr_from_gid(const uint8_t gid[16], struct uroce_io_addr *a);
void uroce_netif_addr_to_gid(const struct uroce_io_addr *a, uint8_t gid[16]);

int uroce_netif_scan(const char *only, struct uroce_netif_addr *out, size_t max, size_t *n);

/* The Ethernet address packets to dst go to through interface ifindex (the AF_XDP backend's
 * resolver, xdp.h): the kernel's route to dst gives the next hop (dst itself, or a gateway),
 * and its neighbour table that hop's address. Returns 0 with mac filled; UROCE_EAGAIN when
 * the table has no valid entry for the hop, after asking the kernel to resolve it (an empty
 * UDP datagram to dst's discard port, 9, which makes the kernel send ARP or neighbour
 * solicitation); UROCE_ENOENT when the route to dst leaves through another interface or
 * there is none; UROCE_ENOMEM or UROCE_EIO when netlink fails. Blocks for a netlink round
 * trip or two: for cache misses only. */
int uroce_netif_neighbour(uint32_t ifindex, const struct uroce_io_addr *dst, uint8_t mac[6]);

/* The Ethernet address and VLAN that packets from interface ifindex to dst are sent with,
 * as rdma-core's ibv_resolve_eth_l2_from_gid finds them (libibverbs/neigh.c): for an
 * address of the host itself, the interface's own Ethernet address (all zeros for lo);
 * for a multicast or IPv6 link-local dst, the address IP derives from it; otherwise the
 * neighbour-table entry of the next hop, when the route to dst leaves through ifindex.
 * *vid: the interface's VLAN id when it is a VLAN interface, else 0xFFFF. Returns 0;
 * UROCE_EAGAIN when the neighbour table has no valid entry yet (the kernel was asked to
 * resolve it, as uroce_netif_neighbour does); UROCE_ENOENT when ifindex is gone or dst is
 * reached through another interface or not at all; UROCE_ENOMEM or UROCE_EIO when netlink
 * fails. Blocks for a netlink round trip or two. */
int uroce_netif_l2(uint32_t ifindex, const struct uroce_io_addr *dst, uint8_t mac[6],
		   uint16_t *vid);

/* The RoCE active MTU for an interface MTU, by Linux rxe's rule: what is left after an 80-byte
 * header allowance, rounded down to an IB MTU and kept within 256..4096. An interface MTU of
 * 1500 gives 1024, 4176 and more give 4096. */
enum uroce_mtu uroce_netif_active_mtu(uint32_t ifmtu);

#endif

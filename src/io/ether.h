/* SPDX-License-Identifier: MIT */
/* What the raw Ethernet backends (AF_XDP: xdp.h, AF_PACKET: packet.h) share: the interface's
 * link facts, the next hops' Ethernet addresses with the packets that wait for them, the
 * multicast memberships, the datagram a received frame carries, and the multicast loop-back.
 * Both send the engine's IP datagrams behind an Ethernet header of their own and take the
 * frames to UDP port 4791 past the kernel's IP stack, so both need what the kernel would do
 * for a socket: find the next hop's address, join groups, hand a sender its own group
 * datagrams back.
 *
 * Not thread-safe: the backend's one thread uses these. */
#ifndef UROCE_IO_ETHER_H
#define UROCE_IO_ETHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "impair.h"
#include "io.h"

#define UROCE_ETHER_HLEN 14

/* Finds the Ethernet address that packets to dst go to (its own, or its gateway's): 0 with
 * mac filled; UROCE_EAGAIN when the kernel has no neighbour entry yet (the resolver then asks
 * the kernel to resolve it: packets wait, up to UROCE_ETHER_NEIGH_HOLD per next hop, and it is
 * asked again every millisecond, for up to 3 s); UROCE_ENOENT when no route leads there
 * through the interface. */
typedef int (*uroce_ether_resolve_fn)(void *arg, const struct uroce_io_addr *dst, uint8_t mac[6]);

/* An Ethernet interface as a backend needs it. */
struct uroce_ether_link {
	int ifindex;
	uint8_t mac[6];
	uint32_t mtu;
	uint32_t rx_queues; /* receive queues (ethtool channels), 1 when the driver does not say */
};

/* Fills *l for the interface: 0, or UROCE_ENOENT (no such interface), UROCE_EINVAL (not
 * Ethernet: lo and tunnels have no Ethernet header to write), UROCE_EPERM, UROCE_EIO; errno
 * tells the system call's error. */
int uroce_ether_link_info(const char *ifname, struct uroce_ether_link *l);

/* A negative errno as a UROCE_E* code (libbpf and libxdp return those); errno keeps it. */
int uroce_ether_sys_err(int neg);

/* ---- next hops ---- */

#define UROCE_ETHER_NEIGH_SLOTS 16
#define UROCE_ETHER_NEIGH_HOLD 16
#define UROCE_ETHER_NEIGH_REFRESH_NS 10000000000ull /* 10 s */

/* Counters the cache keeps in its backend's counter set. */
struct uroce_ether_neigh_counters {
	uint64_t *no_neighbour; /* dropped: no address in 3 s, or too many waited */
	uint64_t *held;         /* waited for their next hop's address */
	uint64_t *no_route;     /* dropped: no route through the interface */
	uint64_t *resolves;     /* lookups made */
};

struct uroce_ether_neigh {
	struct uroce_io_addr dst;
	uint8_t mac[6];
	bool used, known;
	int err;        /* the last lookup's result */
	uint64_t until; /* look up again from then on */
	/* Copies of the datagrams waiting for the address, in the order they were sent, in
	 * hold (UROCE_ETHER_NEIGH_HOLD slots of max_len bytes, allocated at the first). */
	uint8_t *hold;
	uint32_t held_len[UROCE_ETHER_NEIGH_HOLD];
	uint32_t nheld;
	uint64_t held_since;
};

struct uroce_ether_neighs {
	struct uroce_ether_neigh e[UROCE_ETHER_NEIGH_SLOTS];
	uroce_ether_resolve_fn resolve;
	void *resolve_arg;
	uint32_t max_len; /* the longest datagram a slot holds */
	struct uroce_ether_neigh_counters c;
};

/* What to do with a datagram to dst (uroce_ether_neigh_route). */
enum uroce_ether_route {
	UROCE_ETHER_SEND,    /* mac is the next hop's address: send it now */
	UROCE_ETHER_HELD,    /* kept until the address is known (or counted lost) */
	UROCE_ETHER_DROPPED, /* counted lost: no route, or no room to wait */
};

/* Routes the datagram d[0..len) (len <= max_len) to dst at time now: its next hop's
 * address when known and nothing waits before it, else held or dropped. */
enum uroce_ether_route uroce_ether_neigh_route(struct uroce_ether_neighs *n,
					       const struct uroce_io_addr *dst, const uint8_t *d,
					       uint32_t len, uint64_t now, uint8_t mac[6]);

/* Sends one held datagram to mac: returns false when the backend has no room now (it stays
 * held, and so do those after it). */
typedef bool (*uroce_ether_emit_fn)(void *arg, const uint8_t mac[6], const uint8_t *d,
				    uint32_t len);

/* Sends (through emit) or drops the held datagrams whose next hop is due for another look. */
void uroce_ether_neigh_release(struct uroce_ether_neighs *n, uint64_t now,
			       uroce_ether_emit_fn emit, void *arg);

/* When held datagrams are next to be looked at (CLOCK_MONOTONIC ns), or UINT64_MAX. */
uint64_t uroce_ether_neigh_next_due(const struct uroce_ether_neighs *n);

/* Frees the holding room; held datagrams are lost. */
void uroce_ether_neigh_free(struct uroce_ether_neighs *n);

/* ---- multicast ---- */

/* Groups joined: for each, a UDP socket that holds the membership on the interface, so that
 * the kernel sends the IGMP or MLD report (switches that snoop them forward the group's
 * traffic there) and accepts the group's Ethernet address in the NIC's filter. The sockets
 * read nothing: they have no port, and the backend takes the frames before the kernel's
 * stack. */
struct uroce_ether_groups {
	struct uroce_io_addr *addr;
	int *fd;
	uint32_t n;
};

/* The io op join's contract (io.h) on the interface ifindex. */
int uroce_ether_join(struct uroce_ether_groups *g, int ifindex, const struct uroce_io_addr *group,
		     bool join);
bool uroce_ether_joined(const struct uroce_ether_groups *g, const struct uroce_io_addr *dst);
void uroce_ether_groups_free(struct uroce_ether_groups *g);

/* A datagram to a group the backend joined comes back to it through the hold queue, due now,
 * as the kernel's IP_MULTICAST_LOOP hands a socket's own group datagrams back: the frame
 * itself leaves past the kernel's stack, which never loops it. Counts looped or hold_full. */
void uroce_ether_loop_back(struct uroce_impair_hold *hold, const struct uroce_io_pkt *p,
			   uint64_t now, uint64_t *looped, uint64_t *hold_full);

/* ---- frames ---- */

/* Writes the Ethernet header of a frame carrying an IP datagram of the family dst is. */
void uroce_ether_header(uint8_t *f, const uint8_t dst_mac[6], const uint8_t src_mac[6],
			bool ipv6);

/* The datagram send() was given, parsed (uroce_udp_datagram_decode) with its destination;
 * UROCE_EINVAL when it is not one. */
int uroce_ether_datagram(const struct uroce_io_pkt *pkt, struct uroce_io_addr *dst);

/* Turns a received Ethernet frame f[0..flen) into a packet in p (p->data and p->cap given):
 * the IP datagram without the Ethernet header and padding, cut at cap (flagged TRUNC), with
 * src, dst and tos from its header. false when the frame is not Ethernet + IPv4 (20-byte
 * header, checksum good, not a fragment) or IPv6 (no extension header) + UDP to 4791 with
 * consistent lengths. The frame came from the network: every length is checked. */
bool uroce_ether_frame_decode(const uint8_t *f, size_t flen, struct uroce_io_pkt *p);

#endif

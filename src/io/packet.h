/* SPDX-License-Identifier: MIT */
/* The AF_PACKET backend: RoCEv2 frames to and from one Ethernet interface through a packet
 * socket, behind the io ops table (io.h), for hosts where AF_XDP cannot be used (no XDP in the
 * driver or the kernel, no CAP_BPF, or another XDP program on the interface). A classic BPF
 * filter on the socket lets only IPv4/IPv6 UDP to port 4791 into a memory-mapped receive ring
 * (TPACKET_V2: a frame is the user's as soon as it arrives, where TPACKET_V3 hands over
 * whole blocks, after a timeout of a millisecond or more when traffic is light); sends are
 * batched, many frames per sendmmsg(), the Ethernet header in front of the engine's datagram
 * without a copy. As with AF_XDP the IP and UDP headers on the wire are the engine's own
 * bytes, IPv4 Identification included.
 *
 * The kernel's stack sees the received frames too (a packet socket takes a copy): so that it
 * does not answer them with ICMP port unreachable, the backend holds UDP port 4791 on the
 * interface with a socket that reads nothing, when the port is free.
 *
 * Needs CAP_NET_RAW (the UDP backend needs nothing). Not thread-safe: one thread (the
 * device's progress thread) uses a handle. */
#ifndef UROCE_IO_PACKET_H
#define UROCE_IO_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ether.h"
#include "impair.h"
#include "io.h"

#define UROCE_PACKET_FRAMES 1024 /* default receive ring frames */
#define UROCE_PACKET_MAX_MTU 9000

struct uroce_packet_cfg {
	const char *ifname;      /* the interface: up, Ethernet, MTU <= UROCE_PACKET_MAX_MTU */
	uint32_t frames;         /* receive ring frames, a power of two in 64..2^16; 0: default */
	uroce_ether_resolve_fn resolve; /* next hops (ether.h) */
	void *resolve_arg;
	/* NULL: none. Applied to every received packet (UROCE_IMPAIR), as the UDP backend does;
	 * salt 0. hold_pkts: places in the hold queue; 0: 1024, at most 2^20. */
	const struct uroce_impair_cfg *impair;
	uint32_t hold_pkts;
};

/* Counters of a handle; every packet given to send() ends in exactly one of sent,
 * send_dropped, send_too_big, send_no_neighbour, send_no_route (or was refused), those that
 * waited for their next hop's address (neigh_held) when the wait ends. */
#define UROCE_PACKET_COUNTERS(X)                                                              \
	X(sent, "frames the kernel took")                                                     \
	X(send_dropped, "dropped: the kernel refused the frame (a full device queue: ENOBUFS)") \
	X(send_too_big, "dropped: longer than the interface MTU")                              \
	X(send_no_neighbour, "dropped: the next hop's Ethernet address was not found in 3 s, or more than 16 packets waited for it") \
	X(neigh_held, "packets that waited for their next hop's address (then sent or dropped)") \
	X(send_no_route, "dropped: no route to the destination through the interface")         \
	X(send_calls, "sendmmsg() calls")                                                     \
	X(resolves, "neighbour lookups made (cache misses and refreshes)")                    \
	X(received, "frames read from the receive ring")                                      \
	X(ring_drops, "frames the kernel dropped because the receive ring was full")           \
	X(delivered, "packets handed to the caller")                                          \
	X(truncated, "packets longer than the caller's buffer: cut and flagged TRUNC")          \
	X(bad_frames, "dropped: not Ethernet + IPv4 (20-byte header, checksum good) or IPv6 + UDP, lengths consistent, or another VLAN's") \
	X(looped, "datagrams sent to a group the handle joined, handed back to it (multicast loopback)") \
	UROCE_IMPAIR_COUNTERS(X)

enum uroce_packet_counter {
#define UROCE_PACKET_COUNTER_ENUM(name, desc) UROCE_PACKET_C_##name,
	UROCE_PACKET_COUNTERS(UROCE_PACKET_COUNTER_ENUM)
#undef UROCE_PACKET_COUNTER_ENUM
	UROCE_PACKET_NCOUNTERS
};

union uroce_packet_counters {
	struct {
#define UROCE_PACKET_COUNTER_FIELD(name, desc) uint64_t name;
		UROCE_PACKET_COUNTERS(UROCE_PACKET_COUNTER_FIELD)
#undef UROCE_PACKET_COUNTER_FIELD
	};
	uint64_t v[UROCE_PACKET_NCOUNTERS];
};

const char *uroce_packet_counter_name(enum uroce_packet_counter c);
const char *uroce_packet_counter_desc(enum uroce_packet_counter c);

/* Opens the backend: a packet socket with its filter and receive ring, bound to the
 * interface. Returns 0 and the handle in *out, or UROCE_EINVAL (bad configuration, an
 * interface that is not Ethernet or has too large an MTU), UROCE_ENOENT (no such interface),
 * UROCE_EPERM (no CAP_NET_RAW), UROCE_ENOMEM or UROCE_EIO; errno then tells the system call's
 * error.
 *
 * The handle's ops:
 * - send: takes whole IPv4 (20-byte header) or IPv6 + UDP datagrams, as the other backends
 *   do, and sends them behind an Ethernet header to the next hop's address (ether.h). Every
 *   datagram is taken, and counted as sent or under the reason it was dropped; packets whose
 *   next hop is being resolved wait, and next_deadline says when to look again. pkt->prio is
 *   not used (a packet socket's priority is the socket's).
 * - recv: nonblocking; held packets that are due (impairments), then frames from the ring,
 *   impaired when asked; ts_ns is the time of the call; a packet longer than cap is cut and
 *   flagged TRUNC.
 * - fd: the packet socket, readable while the ring has frames.
 * - join: the membership (ether.h); the group's datagrams reach the ring as any others.
 * - close: frees the socket and the ring. */
int uroce_packet_open(const struct uroce_packet_cfg *cfg, struct uroce_io **out);

/* The handle's counters (live), or NULL when io is not an AF_PACKET backend. */
const union uroce_packet_counters *uroce_packet_counters(const struct uroce_io *io);

#endif

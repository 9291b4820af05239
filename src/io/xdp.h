/* SPDX-License-Identifier: MIT */
/* The AF_XDP backend: RoCEv2 frames to and from one queue of one Ethernet interface through an
 * AF_XDP socket, behind the io ops table (io.h). An XDP program on the interface
 * (xdp_filter.c) hands it the UDP packets to the RoCEv2 port and leaves everything else (ARP,
 * neighbour discovery, the application's own TCP) to the kernel. The backend prepends and
 * strips the Ethernet header; the IP and UDP headers are the engine's own bytes on the wire,
 * so nothing needs rebuilding and no IPv4 Identification needs solving.
 *
 * Why: a kernel UDP socket costs a system call and the kernel's whole IP path per datagram,
 * on both sides; here a receiver reads a ring in shared memory and a sender makes one system
 * call per batch (docs/udp.md "AF_XDP"). The price: CAP_NET_ADMIN and CAP_BPF (or root), one
 * process per interface queue, frames of at most UROCE_XDP_MAX_FRAME bytes.
 *
 * Not thread-safe: one thread (the device's progress thread) uses a handle. */
#ifndef UROCE_IO_XDP_H
#define UROCE_IO_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ether.h"
#include "impair.h"
#include "io.h"

#define UROCE_XDP_FRAMES 4096 /* default UMEM frames: half for receiving, half for sending */
/* A UMEM frame is a 4 KiB page; the kernel puts a received frame XDP_PACKET_HEADROOM (256)
 * bytes in, so an Ethernet frame of up to 3840 bytes fits: interface MTUs up to 3826, which
 * is an IB MTU of 2048 at most. */
#define UROCE_XDP_FRAME_SIZE 4096
#define UROCE_XDP_MAX_FRAME (UROCE_XDP_FRAME_SIZE - 256)

struct uroce_xdp_cfg {
	const char *ifname;      /* the interface: up, Ethernet, MTU <= UROCE_XDP_MAX_FRAME - 14 */
	uint32_t queue;          /* its receive queue to bind: 0 on a single-queue interface */
	uint32_t frames;         /* UMEM frames, a power of two in 64..2^16; 0: UROCE_XDP_FRAMES */
	uroce_ether_resolve_fn resolve; /* next hops (ether.h) */
	void *resolve_arg;
	/* NULL: none. Applied to every received packet (UROCE_IMPAIR), as the UDP backend does;
	 * salt 0. hold_pkts: places in the hold queue (delayed and duplicated packets); 0: 1024,
	 * at most 2^20. */
	const struct uroce_impair_cfg *impair;
	uint32_t hold_pkts;
};

/* Counters of a handle; every packet given to send() ends in exactly one of sent,
 * send_full, send_too_big, send_no_neighbour, send_no_route (or was refused), those that
 * waited for their next hop's address (neigh_held) when the wait ends. */
#define UROCE_XDP_COUNTERS(X)                                                                 \
	X(sent, "frames put on the transmit ring")                                            \
	X(send_full, "dropped: no free transmit frame (the kernel is behind)")                \
	X(send_too_big, "dropped: longer than a frame or than the interface MTU")              \
	X(send_no_neighbour, "dropped: the next hop's Ethernet address was not found in 3 s, or more than 16 packets waited for it") \
	X(neigh_held, "packets that waited for their next hop's address (then sent or dropped)") \
	X(send_no_route, "dropped: no route to the destination through the interface")         \
	X(kicks, "system calls that told the kernel to send")                                 \
	X(kick_errors, "of kicks: failed with something else than EAGAIN/EBUSY/ENOBUFS")        \
	X(resolves, "neighbour lookups made (cache misses and refreshes)")                    \
	X(received, "frames read from the receive ring")                                      \
	X(delivered, "packets handed to the caller")                                          \
	X(truncated, "packets longer than the caller's buffer: cut and flagged TRUNC")          \
	X(bad_frames, "dropped: not Ethernet + IPv4 (20-byte header, checksum good) or IPv6 + UDP, lengths consistent") \
	X(looped, "datagrams sent to a group the handle joined, handed back to it (multicast loopback)") \
	UROCE_IMPAIR_COUNTERS(X)

enum uroce_xdp_counter {
#define UROCE_XDP_COUNTER_ENUM(name, desc) UROCE_XDP_C_##name,
	UROCE_XDP_COUNTERS(UROCE_XDP_COUNTER_ENUM)
#undef UROCE_XDP_COUNTER_ENUM
	UROCE_XDP_NCOUNTERS
};

union uroce_xdp_counters {
	struct {
#define UROCE_XDP_COUNTER_FIELD(name, desc) uint64_t name;
		UROCE_XDP_COUNTERS(UROCE_XDP_COUNTER_FIELD)
#undef UROCE_XDP_COUNTER_FIELD
	};
	uint64_t v[UROCE_XDP_NCOUNTERS];
};

const char *uroce_xdp_counter_name(enum uroce_xdp_counter c);
const char *uroce_xdp_counter_desc(enum uroce_xdp_counter c);

/* Opens the backend: loads and attaches the XDP program (through a bpf_link, so it goes away
 * with the process), creates the UMEM and an AF_XDP socket bound to the queue. Returns 0 and
 * the handle in *out, or UROCE_EINVAL (bad configuration, an interface without an Ethernet
 * address or with too large an MTU), UROCE_ENOENT (no such interface), UROCE_EPERM (no
 * CAP_NET_ADMIN/CAP_BPF), UROCE_EBUSY (another XDP program or socket holds the interface or
 * queue), UROCE_ENOMEM or UROCE_EIO; errno then tells the system call's error.
 *
 * The handle's ops:
 * - send: takes whole IPv4 (20-byte header) or IPv6 + UDP datagrams, as udp.h's does, and
 *   sends them as they are behind an Ethernet header to the next hop's address (resolve(),
 *   cached; refreshed every UROCE_ETHER_NEIGH_REFRESH_NS). Every datagram is taken, and counted
 *   as sent or under the reason it was dropped, as a network would lose it; packets whose
 *   next hop is being resolved wait, and next_deadline says when to look again.
 * - recv: nonblocking; fills up to n descriptors: held packets that are due (impairments),
 *   then frames from the receive ring, impaired when asked; ts_ns is the time of the call; a
 *   packet longer than cap is cut and flagged TRUNC.
 * - fd: the AF_XDP socket, readable while the receive ring has frames.
 * - close: detaches the program, frees the socket and the UMEM. */
int uroce_xdp_open(const struct uroce_xdp_cfg *cfg, struct uroce_io **out);

/* How many receive queues the interface has (1 when its driver does not say), or 0 when io is
 * not an AF_XDP backend. With more than one, the NIC spreads flows over them and only those
 * it steers to the bound queue reach the handle. */
uint32_t uroce_xdp_rx_queues(const struct uroce_io *io);

/* The handle's counters (live), or NULL when io is not an AF_XDP backend. */
const union uroce_xdp_counters *uroce_xdp_counters(const struct uroce_io *io);

#endif

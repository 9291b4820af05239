/* SPDX-License-Identifier: MIT */
/* Packet I/O behind one ops table (design.md "io backends share one small ops table"): the
 * UDP socket, AF_PACKET and simulated-fabric backends all look like this to the engine, so the
 * same engine code runs on sockets and in simulation. A backend embeds struct uroce_io as its
 * first member and reaches its own state from the pointer the ops receive. */
#ifndef UROCE_IO_IO_H
#define UROCE_IO_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* An IP address: IPv4 uses the first 4 bytes (the layout of struct uroce_rocev2_net). */
struct uroce_io_addr {
	bool ipv6;
	uint8_t ip[16];
};

static inline bool uroce_io_addr_equal(const struct uroce_io_addr *a,
				       const struct uroce_io_addr *b)
{
	return a->ipv6 == b->ipv6 && !memcmp(a->ip, b->ip, a->ipv6 ? 16 : 4);
}

/* An IP multicast group address: IPv4 224.0.0.0/4 (RFC 5771) or IPv6 ff00::/8 (RFC 4291
 * 2.7). RoCEv2 multicast is IP multicast: a multicast GID is one of these, IPv4-mapped or not
 * (docs/engine.md "Multicast"). */
static inline bool uroce_io_addr_is_multicast(const struct uroce_io_addr *a)
{
	return a->ipv6 ? a->ip[0] == 0xFF : (a->ip[0] & 0xF0) == 0xE0;
}

/* pkt->flags */
enum uroce_io_pkt_flag {
	UROCE_IO_PKT_TRUNC = 1u << 0, /* received: the datagram was longer than cap and was cut */
	/* received: the backend found the ICRC of these bytes good (the UDP backend does, for
	 * IPv4, when it recovers the Identification), so the engine need not compute it again */
	UROCE_IO_PKT_ICRC_OK = 1u << 1,
};

/* One packet: the bytes of an IP datagram carrying RoCEv2 (IPv4 or IPv6 header, UDP header,
 * BTH .. ICRC), which is what a socket backend reconstructs, because the ICRC covers the IP
 * and UDP headers. No link-layer header.
 *
 * Sending reads only data and len: the destination is the IP header's destination address and
 * the TOS/traffic class (ECN included) is the header's too, so the two cannot disagree.
 * Receiving fills every field; data points into a buffer of cap bytes owned by the caller. */
struct uroce_io_pkt {
	uint8_t *data;
	uint32_t len;        /* bytes of the datagram in data */
	uint32_t cap;        /* receive: size of the buffer at data */
	uint32_t flags;      /* enum uroce_io_pkt_flag set */
	uint64_t ts_ns;      /* receive time in the backend's clock (virtual time for sim) */
	uint8_t tos;         /* IPv4 TOS / IPv6 traffic class as received: DSCP << 2 | ECN */
	uint8_t prio;        /* send: the 802.1p priority, 0-7 (Linux's SO_PRIORITY, which a
			      * VLAN device maps to the tag's PCP by its egress-qos-map); 0:
			      * the socket's. Backends without one ignore it. */
	struct uroce_io_addr src, dst;
};

struct uroce_io;

/* Every backend implements send, recv, fd, close and join; next_deadline is optional.
 * Errors are negative UROCE_E* codes. */
struct uroce_io_ops {
	const char *name;
	/* Takes pkts[0..n) for transmission (the backend copies the bytes); returns how many
	 * were taken, stopping at the first it refuses, or the error of pkts[0]. A packet the
	 * network would lose (no route, a full queue) counts as taken, as with a socket. */
	int (*send)(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n);
	/* Fills up to n descriptors with received packets; returns how many (0: none now). */
	int (*recv)(struct uroce_io *io, struct uroce_io_pkt *pkts, size_t n);
	/* A descriptor to poll for input, or -1 when the backend has none (sim: the caller
	 * drives virtual time and knows when packets are due). */
	int (*fd)(struct uroce_io *io);
	/* Releases what the backend holds; io is not used afterwards. */
	void (*close)(struct uroce_io *io);
	/* When the backend next has work of its own to do in recv or send (a held packet due;
	 * CLOCK_MONOTONIC ns, maybe in the past), or UINT64_MAX: a caller that sleeps on fd()
	 * wakes by then too. NULL: never. */
	uint64_t (*next_deadline)(const struct uroce_io *io);
	/* Joins (join true) or leaves (false) the IP multicast group `group`, a multicast
	 * address (uroce_io_addr_is_multicast): while joined, datagrams sent to the group
	 * arrive through recv with dst the group, beside those to the backend's own
	 * addresses. The membership is the host's (IGMP or MLD, through the interface of the
	 * backend's first address of the group's family, where the backend has one). Sending
	 * to a group needs no membership. Returns 0, UROCE_EINVAL (not a multicast address, or
	 * the backend has no address of its family), UROCE_EBUSY (join: already joined),
	 * UROCE_ENOENT (leave: not joined), or the backend's own errors (udp.h, xdp.h, sim.h). */
	int (*join)(struct uroce_io *io, const struct uroce_io_addr *group, bool join);
};

struct uroce_io {
	const struct uroce_io_ops *ops;
};

static inline int uroce_io_send(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n)
{
	return io->ops->send(io, pkts, n);
}
static inline int uroce_io_recv(struct uroce_io *io, struct uroce_io_pkt *pkts, size_t n)
{
	return io->ops->recv(io, pkts, n);
}
static inline int uroce_io_fd(struct uroce_io *io) { return io->ops->fd(io); }
static inline void uroce_io_close(struct uroce_io *io) { io->ops->close(io); }
static inline int uroce_io_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join)
{
	return io->ops->join(io, group, join);
}
static inline uint64_t uroce_io_next_deadline(const struct uroce_io *io)
{
	return io->ops->next_deadline ? io->ops->next_deadline(io) : UINT64_MAX;
}

#endif

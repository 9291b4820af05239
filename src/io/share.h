/* SPDX-License-Identifier: MIT */
/* One address, many processes: the processes of one user share each address's UDP port 4791
 * (docs/multiprocess.md). Each process holds a slot (1..254), the top byte of every QP number
 * it hands out and of every comm ID its CM makes. The receive sockets of an address form a
 * SO_REUSEPORT group whose classic BPF program steers each datagram to the socket of the slot
 * in its BTH destination QP (QP1's MADs: by Service ID or comm ID). The kernel knows sockets
 * by their index in the group, which changes when a member leaves: the members learn the
 * indices with probe datagrams (a "round"), and a datagram that reaches the wrong member
 * anyway is forwarded once to its owner over a local socket, so nothing is lost while the
 * steering catches up.
 *
 * What is shared lives in the runtime directory (the caller's, docs/stat.md): slot-N.lock
 * (held with flock by the slot's owner: a dead process's slot is free again) and one page per
 * group (address, port and network namespace). */
#ifndef UROCE_IO_SHARE_H
#define UROCE_IO_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "io.h"

#define UROCE_SHARE_SLOT_FIRST 1u  /* slot 0: QP numbers 0..65535, QP1's */
#define UROCE_SHARE_SLOT_LAST 254u /* slot 255 holds the multicast QPN 0xFFFFFF */
#define UROCE_SHARE_MAX_LISTEN 256 /* Service IDs listened on, per address */
#define UROCE_SHARE_MAX_DATAGRAM 9216 /* the largest UDP payload forwarded whole (MTU 9000) */

/* Counters of the sharing, per process (all its groups). */
#define UROCE_SHARE_COUNTERS(X)                                                                \
	X(share_forwarded, "datagrams steered to this process that belonged to another: forwarded") \
	X(share_forward_failed, "of those: not forwarded (the owner's forwarding socket refused)") \
	X(share_no_owner, "datagrams for a slot no live process holds: dropped")                 \
	X(share_received_forwarded, "datagrams another process forwarded to this one")          \
	X(share_rounds, "rounds of probes this process ran to learn the group's order")        \
	X(share_probes, "probes this process answered")                                        \
	X(share_unanswered, "members a round of this process's heard nothing from in time")

struct uroce_share_counters {
#define UROCE_SHARE_COUNTER_FIELD(name, desc) uint64_t name;
	UROCE_SHARE_COUNTERS(UROCE_SHARE_COUNTER_FIELD)
#undef UROCE_SHARE_COUNTER_FIELD
};

struct uroce_share;
struct uroce_share_group;

/* Takes a free slot in dir (a directory of this user only). Returns 0, UROCE_EBUSY (every
 * slot taken), UROCE_EINVAL (dir too long) or UROCE_EIO (errno says why). */
int uroce_share_open(const char *dir, struct uroce_share **out);
/* Gives the slot up; the groups must have been left. */
void uroce_share_close(struct uroce_share *s);
unsigned uroce_share_slot(const struct uroce_share *s);
const struct uroce_share_counters *uroce_share_counters(const struct uroce_share *s);

/* What came with a datagram besides its UDP payload. */
struct uroce_share_meta {
	struct uroce_io_addr src, dst;
	uint16_t sport;
	uint8_t tos, ttl;
};

/* Binds fd (an unbound UDP socket of addr's family) to sa, which is addr:port, in the
 * address's group, and learns where the group's members are: returns 0 and the group, which
 * owns fd from then on, or a negative UROCE_E* with errno set (UROCE_EBUSY: the port is bound
 * by a socket outside the group, another user's or another program's), fd still the
 * caller's. */
int uroce_share_join(struct uroce_share *s, int fd, const struct sockaddr *sa, socklen_t salen,
		     const struct uroce_io_addr *addr, uint16_t port, struct uroce_share_group **out);
/* Leaves the group: the steering is rewritten for the group without the socket, which is
 * closed. */
void uroce_share_leave(struct uroce_share_group *g);

enum uroce_share_rx {
	UROCE_SHARE_RX_MINE,      /* this process's: handle it */
	UROCE_SHARE_RX_TAKEN,     /* a probe, forwarded or dropped: nothing more to do */
};
/* Looks at a datagram the group's socket received (its UDP payload and the rest). */
enum uroce_share_rx uroce_share_rx(struct uroce_share_group *g, const uint8_t *payload,
				   size_t len, const struct uroce_share_meta *meta);

/* The group's forwarding socket (nonblocking; readable when another member forwarded a
 * datagram here). */
int uroce_share_fwd_fd(const struct uroce_share_group *g);
/* Reads one forwarded datagram: its UDP payload into buf (at most cap bytes; a longer one
 * is cut), what came with it into meta. Returns its whole length, 0 when none waits. */
size_t uroce_share_fwd_recv(struct uroce_share_group *g, uint8_t *buf, size_t cap,
			    struct uroce_share_meta *meta);

/* Threads: the group's receive side (uroce_share_rx, uroce_share_fwd_recv, uroce_share_poll)
 * is one thread's, the progress thread's; uroce_share_cm and uroce_share_listen may be called
 * by any other thread meanwhile (the group takes turns with a mutex that the progress thread
 * only tries). */
/* Runs the group's pending work (a round to start or finish) at time now (CLOCK_MONOTONIC
 * ns); the next time it needs to run, or UINT64_MAX. */
uint64_t uroce_share_poll(struct uroce_share_group *g, uint64_t now);

/* This process's CM attaches to (attach true) or leaves QP1 of the group's address: MADs
 * that name no listener or connection of another member come here. */
void uroce_share_cm(struct uroce_share_group *g, bool attach);
/* This process listens (on true) or stops listening on Service ID sid at the group's
 * address: REQs and SIDR REQs for it come here. UROCE_EBUSY: another live member listens on
 * it; UROCE_ENOMEM: the table is full. */
int uroce_share_listen(struct uroce_share_group *g, uint64_t sid, bool on);

#endif

/* SPDX-License-Identifier: MIT */
/* The UDP socket backend: RoCEv2 over ordinary Linux UDP sockets on port 4791, behind the io
 * ops table (io.h). The engine hands it whole IP datagrams it built (IPv4/IPv6 header, UDP
 * header, BTH .. ICRC); the backend sends their UDP payload from a socket bound to the
 * datagram's source address and UDP source port, with its TOS and TTL. On receive it rebuilds
 * the IP and UDP headers the kernel strips, so that the engine can verify the ICRC, which
 * covers them. docs/udp.md describes what goes on the wire and the limits.
 *
 * Not thread-safe: one thread (the device's progress thread) uses a handle. */
#ifndef UROCE_IO_UDP_H
#define UROCE_IO_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "impair.h"
#include "io.h"
#include "share.h"

#define UROCE_UDP_PORT 4791             /* the RoCEv2 port (Annex A17 CA17-20) */
#define UROCE_UDP_SEND_SOCKETS 256      /* default max_send_sockets */
#define UROCE_UDP_HOLD_PKTS 1024        /* default hold_pkts */
#define UROCE_UDP_MAX_ADDRS 64          /* most local addresses one handle binds */

struct uroce_udp_cfg {
	/* Local addresses: one receive socket is bound to each <addr>:port. IPv4 addresses as
	 * IPv4 (ipv6 false), not IPv4-mapped: IPv6 sockets are IPv6-only. Link-local IPv6
	 * addresses are not supported (they need a scope). A wildcard address (0.0.0.0 or ::)
	 * receives for every local address. */
	const struct uroce_io_addr *addrs;
	size_t naddrs;
	/* NULL, or where a failed open writes the index in addrs of the address whose receive
	 * socket could not be opened (left alone when the failure came before any), so that
	 * the caller can name it: with UROCE_EBUSY, that <addr>:port is taken. */
	size_t *failed_addr;
	/* The port of the receive sockets and the destination port of every datagram sent; 0
	 * means 4791. Tests use another one. The packets the engine sees always say 4791: the
	 * rebuilt UDP header carries 4791 whatever the socket port (the ICRC covers it). */
	uint16_t port;
	/* NULL: none. Applied to every received packet after its headers are rebuilt
	 * (UROCE_IMPAIR; the caller parses the variable). Seeded with salt 0. */
	const struct uroce_impair_cfg *impair;
	/* The send sockets cache, one per (source address, UDP source port): 0 means
	 * UROCE_UDP_SEND_SOCKETS, at most 2^20. The least recently used one is closed when it
	 * is full. Each is a descriptor: mind RLIMIT_NOFILE. */
	uint32_t max_send_sockets;
	/* Places in the hold queue (delayed and duplicated packets); 0: UROCE_UDP_HOLD_PKTS, at
	 * most 2^20. Each place is UROCE_IMPAIR_HOLD_SLOT bytes, allocated at open (untouched
	 * pages cost no memory). */
	uint32_t hold_pkts;
	/* Never solve a received IPv4 packet's Identification (docs/udp.md): every ICRC keeps
	 * its full 32 bits (solved IDs checked against each peer's sequence keep about 25 of
	 * them), but packets from senders that do not send ID 0 (Linux rxe) then fail the ICRC
	 * check. */
	bool no_ip_id_solve;
	/* Never send with UDP_SEGMENT (GSO). By default consecutive equal-sized datagrams to
	 * one destination go out as one GSO send (docs/udp.md "GSO"). */
	bool no_gso;
	/* NULL: each address's port is this handle's alone (bound without SO_REUSEPORT).
	 * Else the process's slot among the user's processes that share the addresses
	 * (share.h, docs/multiprocess.md): each receive socket joins its address's group,
	 * datagrams of other members are forwarded to them, and forwarded ones come in. The
	 * share must outlive the handle. */
	struct uroce_share *share;
};

/* Counters of a handle; one list gives the fields and their names. Every packet given to
 * send() ends in exactly one of sent, send_full, send_too_big, send_socket_errors,
 * send_errors (or was refused). */
#define UROCE_UDP_COUNTERS(X)                                                                 \
	X(sent, "datagrams the kernel accepted")                                              \
	X(sent_gso, "of sent: datagrams sent as segments of a GSO (UDP_SEGMENT) call")         \
	X(sent_ip_id_nonzero, "IPv4 packets taken whose header said ID != 0 (the wire says 0, or k for GSO segment k)") \
	X(send_full, "dropped: socket buffer or device queue full (EAGAIN, ENOBUFS)")         \
	X(send_too_big, "dropped: longer than the path MTU, DF set (EMSGSIZE)")                \
	X(send_socket_errors, "dropped: no socket could be bound to the source address and port") \
	X(send_errors, "dropped: any other send error (no route, ...)")                       \
	X(gso_refused, "GSO calls the kernel refused (GSO then off; their datagrams in send_errors)") \
	X(send_sockets, "send sockets opened")                                                \
	X(send_port_moved, "of those: bound to another port of the QPs' range, another socket held the QP's") \
	X(send_prio_unset, "datagrams sent without the 802.1p priority asked for: the kernel takes no SO_PRIORITY control message") \
	X(send_evictions, "send sockets closed to make room in the cache")                    \
	X(received, "datagrams read from the receive sockets")                                \
	X(recv_errors, "receive calls that failed with something else than EAGAIN")           \
	X(recv_overflows, "datagrams the kernel dropped at a full receive buffer (SO_RXQ_OVFL)") \
	X(delivered, "packets handed to the caller")                                          \
	X(truncated, "datagrams longer than the caller's buffer: cut and flagged TRUNC")      \
	X(runts, "dropped: UDP payload shorter than BTH + ICRC (16 bytes)")                   \
	X(ip_id_solved, "IPv4 packets delivered with a solved Identification, accepted: the next four") \
	X(ip_id_in_window, "of ip_id_solved: the ID was in the window of its peer's sequence") \
	X(ip_id_resynced, "of ip_id_solved: the ID continued a rejected one (a jump): a new sequence") \
	X(ip_id_first, "of ip_id_solved: unchecked, the first from its peer (new, forgotten, or silent 65 s)") \
	X(ip_id_fallback, "of ip_id_solved: unchecked, from a peer in fallback (its IDs fit no sequence)") \
	X(ip_id_rejected, "IPv4 packets whose solved ID fits no sequence of its peer (delivered with ID 0)") \
	X(ip_id_unsolved, "IPv4 packets no Identification makes verify (delivered with ID 0)") \
	X(ip_id_fallbacks, "times a peer went into fallback: its solved IDs taken unchecked") \
	X(ip_id_peer_evictions, "peers the ID tracker forgot to make room (UROCE_IPID_PEERS places)") \
	UROCE_SHARE_COUNTERS(X)                                                                \
	UROCE_IMPAIR_COUNTERS(X)

enum uroce_udp_counter {
#define UROCE_UDP_COUNTER_ENUM(name, desc) UROCE_UDP_C_##name,
	UROCE_UDP_COUNTERS(UROCE_UDP_COUNTER_ENUM)
#undef UROCE_UDP_COUNTER_ENUM
	UROCE_UDP_NCOUNTERS
};

union uroce_udp_counters {
	struct {
#define UROCE_UDP_COUNTER_FIELD(name, desc) uint64_t name;
		UROCE_UDP_COUNTERS(UROCE_UDP_COUNTER_FIELD)
#undef UROCE_UDP_COUNTER_FIELD
	};
	uint64_t v[UROCE_UDP_NCOUNTERS]; /* indexed by enum uroce_udp_counter */
};

/* "send_full", or NULL past the end. */
const char *uroce_udp_counter_name(enum uroce_udp_counter c);
/* Its one-line description, or NULL past the end. */
const char *uroce_udp_counter_desc(enum uroce_udp_counter c);

/* Opens the backend: binds one receive socket per address. Returns 0 and the handle in *out,
 * or UROCE_EINVAL (no address or more than UROCE_UDP_MAX_ADDRS, a size over 2^20, an address
 * that is not local or has no IPv6 support, an impairment out of range), UROCE_EBUSY (an
 * <addr>:port is already bound), UROCE_ENOMEM (memory or descriptors exhausted) or UROCE_EIO
 * (another system call failure). When a system call failed, errno tells which error it was,
 * and cfg->failed_addr which address it was for.
 *
 * The handle's ops:
 * - send: takes whole IPv4/IPv6 + UDP datagrams (a 20-byte IPv4 header, no IPv6 extension
 *   headers, lengths consistent). Refuses (UROCE_EINVAL, or the count taken before it) a
 *   datagram that is not one; every other packet is taken, and counted as sent or under the
 *   error that lost it (a full socket buffer loses a packet, as the network would). Runs of
 *   equal-sized datagrams go out as GSO sends: over IPv4 the k-th datagram of a run carries
 *   IPv4 ID k on the wire and an ICRC computed for it (the caller's buffer is not changed).
 * - recv: fills up to n descriptors, nonblocking: released held packets first, then datagrams
 *   read from the sockets, each with rebuilt headers (docs/udp.md), ts_ns = uroce_udp_now()
 *   at the call. A packet longer than its descriptor's cap is cut and flagged
 *   UROCE_IO_PKT_TRUNC (then its headers still give the whole length). recv may move a
 *   packet into an earlier descriptor's buffer: give every descriptor the same cap.
 * - fd: an epoll descriptor, readable while a receive socket has datagrams waiting or a held
 *   packet is due (a timerfd in the set), so polling it is enough; level-triggered.
 * - close: closes every socket and frees the handle. */
int uroce_udp_open(const struct uroce_udp_cfg *cfg, struct uroce_io **out);

/* CLOCK_MONOTONIC in nanoseconds: the clock of ts_ns and of the deadlines. */
uint64_t uroce_udp_now(void);
/* When the earliest held packet is due (CLOCK_MONOTONIC ns; it may be in the past when recv
 * ran out of descriptors), or UINT64_MAX when none is held or io is not a UDP backend. Like
 * every call on a handle, not to be made concurrently with recv. */
uint64_t uroce_udp_next_deadline(const struct uroce_io *io);
/* The handle's counters (live, updated by every call), or NULL when io is not a UDP backend. */
const union uroce_udp_counters *uroce_udp_counters(const struct uroce_io *io);

/* A shared handle's CM attaches to (true) or leaves QP1 of every address (share.h,
 * uroce_share_cm); nothing when the handle is not shared or not a UDP backend. These two may
 * be called from any thread while another uses the handle (the one exception to "not
 * thread-safe" above). */
void uroce_udp_share_cm(struct uroce_io *io, bool attach);
/* A shared handle listens (on true) or stops listening on Service ID sid at every address
 * (uroce_share_listen): 0, UROCE_EBUSY (another process listens on it at one of them; none
 * changed) or UROCE_ENOMEM. 0 when the handle is not shared. */
int uroce_udp_share_listen(struct uroce_io *io, uint64_t sid, bool on);

#endif

/* SPDX-License-Identifier: MIT */
/* The simulated fabric: endpoints in one process joined by one-way links with latency,
 * bandwidth, a tail-drop queue, ECN CE marking and seeded impairments, on virtual time
 * (uint64_t nanoseconds; no clock, no thread, no sleep). One seed gives one packet trace.
 * Each endpoint is also an io backend (uroce_sim_io()), so the engine runs on it unchanged.
 * All memory is allocated at setup; docs/sim.md describes the model. */
#ifndef UROCE_IO_SIM_H
#define UROCE_IO_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "impair.h"
#include "io.h"

#define UROCE_SIM_NEVER UINT64_MAX     /* uroce_sim_next_event_time() with nothing pending */
#define UROCE_SIM_POOL_PKTS 4096       /* default packet buffers */
#define UROCE_SIM_MAX_PKT 9000         /* default largest datagram: a jumbo IP MTU */
#define UROCE_SIM_RING 1024            /* default receive ring of an endpoint, in packets */
#define UROCE_SIM_CLASSES 8            /* traffic classes (802.1p priorities) of a link */

struct uroce_sim;

/* Sizes fixed at creation; zero fields take the defaults above. */
struct uroce_sim_cfg {
	uint32_t pool_pkts; /* packet buffers shared by every queue, flight and ring */
	uint32_t max_pkt;   /* bytes of each buffer: the largest datagram that can be sent */
};

/* One direction of a link. Zero fields mean "none": no latency, infinite bandwidth (no
 * serialisation and so no queue), no queue limit, no marking, no impairment.
 * A packet's traffic class is its DSCP / 8 (its IP precedence, a switch's default
 * DSCP-to-priority map; CNPs, DSCP 48, are class 6): each class has its own queue, served in
 * strict priority, highest first; the queue limits hold for all classes together, the marking
 * thresholds and PFC for each class's own bytes. */
struct uroce_sim_link_cfg {
	uint64_t latency_ns;    /* propagation delay, at most UROCE_IMPAIR_MAX_DELAY_NS */
	uint64_t bandwidth_bps; /* serialisation rate of the datagram bytes, bit/s */
	uint64_t queue_bytes;   /* tail drop when the queue would exceed this many bytes */
	uint32_t queue_pkts;    /* ... or this many packets (the one on the wire included) */
	uint64_t ce_threshold;  /* mark ECT packets CE when the queue holds more bytes than this
				 * as they arrive */
	/* RED-style marking instead (ce_kmax set): an ECT packet that arrives to a queue (of
	 * its class) of q bytes is marked CE with probability 0 below ce_kmin, ce_pmax x (q - ce_kmin) /
	 * (ce_kmax - ce_kmin) up to ce_kmax, 1 above (the DCQCN paper's switch marking). */
	uint64_t ce_kmin, ce_kmax;
	double ce_pmax;
	/* PFC (802.1Qbb) on a link into a switch (uroce_sim_set_switch), per traffic class:
	 * when a class's bytes that came over the link and wait in the switch's queues reach
	 * pfc_xoff, the switch pauses that class of this link's transmitter (a PAUSE of
	 * pfc_quanta quanta of 512 bit times at the link's rate, 0: 0xFFFF), repeats the PAUSE
	 * every pfc_refresh_ns (0: half its time) while the class is over pfc_xon, and resumes
	 * it at pfc_xon or below (a PAUSE of 0). Each frame takes the link's latency to come
	 * back. pfc_classes: the lossless classes, a bit each (0: all). 0 pfc_xoff: no PFC;
	 * else pfc_xon < pfc_xoff and a bandwidth. */
	uint64_t pfc_xoff, pfc_xon;
	uint8_t pfc_classes;
	uint16_t pfc_quanta;
	uint64_t pfc_refresh_ns;
	struct uroce_impair_cfg impair; /* applied as each packet leaves the queue */
};

/* Counters of a link (everything that happens to its packets) and of an endpoint (sent,
 * delivered and the drops that are its own: no route, full ring, closed). One list gives the
 * fields and their names. */
#define UROCE_SIM_COUNTERS(X)                                                      \
	X(sent, "packets offered: to a link, or sent by an endpoint")              \
	X(delivered, "packets placed in a receive ring, or taken by a switch")    \
	X(delivered_bytes, "bytes of the packets delivered")                       \
	X(drop_loss, "lost to random (Bernoulli) loss")                             \
	X(drop_burst, "lost to burst (Gilbert-Elliott) loss")                       \
	X(drop_queue, "tail-dropped at a full link queue")                          \
	X(drop_pool, "dropped because every packet buffer was in use")              \
	X(drop_ring, "dropped at a full receive ring")                              \
	X(drop_noroute, "sent to an address (or a group no member of) no link reaches") \
	X(drop_closed, "arrived at a closed endpoint")                              \
	X(duplicated, "extra copies made by duplication")                           \
	X(reordered, "packets held back by the reorder delay")                      \
	X(corrupted, "packets with flipped bits")                                   \
	X(ce_marked, "ECT packets marked CE (0b11) above the queue threshold")      \
	X(queue_peak_bytes, "a link's largest queue, in bytes (a gauge, not a count)") \
	X(pfc_pauses, "PFC PAUSEs that stopped a class of the link's transmitter")   \
	X(pfc_paused_ns, "time classes of the link's transmitter were paused, ns (ended pauses, summed)") \
	X(pfc_peak_bytes, "the most bytes of one class of the link's traffic in its switch at once: XOFF and the headroom used") \
	X(pfc_frames, "PFC frames the switch sent back over the link: PAUSEs, their refreshes, resumes")

enum uroce_sim_counter {
#define UROCE_SIM_COUNTER_ENUM(name, desc) UROCE_SIM_C_##name,
	UROCE_SIM_COUNTERS(UROCE_SIM_COUNTER_ENUM)
#undef UROCE_SIM_COUNTER_ENUM
	UROCE_SIM_NCOUNTERS
};

union uroce_sim_counters {
	struct {
#define UROCE_SIM_COUNTER_FIELD(name, desc) uint64_t name;
		UROCE_SIM_COUNTERS(UROCE_SIM_COUNTER_FIELD)
#undef UROCE_SIM_COUNTER_FIELD
	};
	uint64_t v[UROCE_SIM_NCOUNTERS]; /* indexed by enum uroce_sim_counter */
};

/* "drop_loss", or NULL past the end. */
const char *uroce_sim_counter_name(enum uroce_sim_counter c);

/* A fabric seeded with seed; cfg may be NULL. Returns NULL when out of memory or when
 * max_pkt is below 64 or above 65535. */
struct uroce_sim *uroce_sim_new(uint64_t seed, const struct uroce_sim_cfg *cfg);
/* Closes the trace and frees everything, the endpoints' io handles included. */
void uroce_sim_free(struct uroce_sim *sim);

/* Adds an endpoint with an address and a receive ring of ring_pkts packets (0: the
 * default); returns its index (0, 1, ...), UROCE_EINVAL (the address is taken, or 65536
 * endpoints exist) or UROCE_ENOMEM. */
int uroce_sim_add_endpoint(struct uroce_sim *sim, const struct uroce_io_addr *addr,
			   uint32_t ring_pkts);
/* Adds the link from -> to; returns its index (0, 1, ...), UROCE_EINVAL (unknown endpoint,
 * a link from -> to already exists, a latency over 10 s, an impairment out of range) or
 * UROCE_ENOMEM. Links are seeded from the fabric's seed and their index. */
int uroce_sim_connect(struct uroce_sim *sim, int from, int to,
		      const struct uroce_sim_link_cfg *cfg);

/* Adds a route at endpoint ep: its unicast datagrams to dst (NULL: to an address that no
 * link of ep and no route for it leads to, a default route) take `link`, one of ep's; a link
 * straight to the address comes first. Several routes for one destination (or several default
 * routes) are an ECMP group: each flow takes one member, chosen by a hash of its IP addresses,
 * protocol and UDP ports (the RoCEv2 source port is the entropy, Annex A17.9.4) seeded per
 * endpoint, so that one flow keeps one path and its packets their order. Returns 0,
 * UROCE_EINVAL (unknown endpoint, a link that does not leave it, a multicast dst) or
 * UROCE_ENOMEM (part of the setup). */
int uroce_sim_add_route(struct uroce_sim *sim, int ep, const struct uroce_io_addr *dst, int link);
/* Makes endpoint ep a switch: what arrives over a link to it is sent on at once, routed as
 * uroce_sim_send routes (its links are its output ports, each with its queue, bandwidth,
 * marking), and counted against the link it came in on until it leaves the output queue
 * (PFC, pfc_xoff). It no longer fills its ring. UROCE_EINVAL for an unknown endpoint. */
int uroce_sim_set_switch(struct uroce_sim *sim, int ep);
/* Sends the datagram pkt->data[0..pkt->len) from endpoint ep at the current time, over the
 * link to its IP destination address; to a multicast address, a copy over every link from ep
 * to an endpoint that joined the group (uroce_sim_join; ep itself only through a link from
 * ep to ep, the model of a host's multicast loopback). No link and no route
 * (uroce_sim_add_route), or no member reached: drop_noroute. Returns 0 (also when the fabric drops it: see the counters) or UROCE_EINVAL
 * (unknown or closed endpoint, not an IPv4/IPv6 datagram) or UROCE_ENOSPACE (longer than
 * max_pkt). */
int uroce_sim_send(struct uroce_sim *sim, int ep, const struct uroce_io_pkt *pkt);
/* Takes up to n delivered packets of endpoint ep, oldest first, copying each into
 * pkts[i].data (pkts[i].cap bytes; longer ones are cut and flagged UROCE_IO_PKT_TRUNC).
 * ts_ns is the delivery time; tos, src and dst come from the IP header (zero when
 * corrupt_any broke it). Returns the count, or UROCE_EINVAL for an unknown endpoint. */
int uroce_sim_recv(struct uroce_sim *sim, int ep, struct uroce_io_pkt *pkts, size_t n);
/* Endpoint ep joins (join true) or leaves the multicast group `group`, of the family of its
 * address: datagrams sent to the group then reach it (uroce_sim_send). The io backend's join
 * op. Returns 0, UROCE_EINVAL (unknown endpoint, not a multicast address, another family),
 * UROCE_EBUSY (already joined), UROCE_ENOENT (leaving a group not joined) or UROCE_ENOMEM
 * (joining allocates: part of the setup). */
int uroce_sim_join(struct uroce_sim *sim, int ep, const struct uroce_io_addr *group, bool join);
/* The endpoint as an io backend (fd -1; close stops its deliveries: later arrivals count as
 * drop_closed). Owned by the fabric; NULL for an unknown endpoint. */
struct uroce_io *uroce_sim_io(struct uroce_sim *sim, int ep);

/* The current virtual time (ns, starting at 0). */
uint64_t uroce_sim_now(const struct uroce_sim *sim);
/* When the next event is due, or UROCE_SIM_NEVER. */
uint64_t uroce_sim_next_event_time(const struct uroce_sim *sim);
/* Handles every event due at or before t in (time, creation order), then sets the time to
 * t when t is later. Returns the number of events handled. */
size_t uroce_sim_run_until(struct uroce_sim *sim, uint64_t t);

/* NULL for an unknown index. */
const union uroce_sim_counters *uroce_sim_link_counters(const struct uroce_sim *sim, int link);
/* The bytes in a link's queue now (the packet on the wire included); 0 for an unknown
 * index. */
uint64_t uroce_sim_link_queue_bytes(const struct uroce_sim *sim, int link);
const union uroce_sim_counters *uroce_sim_endpoint_counters(const struct uroce_sim *sim, int ep);

/* Where a trace records packets. */
enum uroce_sim_trace_point {
	UROCE_SIM_TRACE_SEND = 1u << 0,    /* as sent, before the link (lost ones included) */
	UROCE_SIM_TRACE_DELIVER = 1u << 1, /* as placed in the receive ring (after CE marking
					    * and corruption) */
};

/* Writes the chosen points (an enum uroce_sim_trace_point set) to a pcap file at path
 * (Ethernet, nanosecond timestamps = virtual time; docs/sim.md gives the synthetic MACs).
 * A NULL path stops tracing and closes the file. Returns 0, UROCE_EINVAL (no points, or a
 * trace is already open), or UROCE_EIO (the file cannot be created; when closing: a write
 * failed). */
int uroce_sim_trace_pcap(struct uroce_sim *sim, const char *path, unsigned points);

#endif

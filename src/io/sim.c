/* SPDX-License-Identifier: MIT */
#include "sim.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/eth.h"
#include "wire/ip.h"

#define NIL UINT_MAX
#define MAX_ENDPOINTS 65536 /* the synthetic MACs hold a 16-bit index */
#define MIN_PKT 64

/* A packet buffer of the pool. It is in exactly one place: the free list, a link's queue,
 * the event heap (in flight) or a receive ring. */
struct sim_pkt {
	uint32_t next;    /* free list and link queue */
	uint32_t len;
	uint32_t link;    /* the link carrying it */
	uint32_t ingress; /* in a switch: the link it came in on (its PFC count), else NIL */
	uint8_t cls;      /* its traffic class on the link: DSCP / 8 */
	uint64_t ts;      /* delivery time, once in a ring */
};

enum sim_event_kind {
	EV_TX_DONE, /* index: a link whose head packet has been serialised */
	EV_DELIVER, /* index: a packet reaching its link's far end */
	EV_PFC,     /* index: a link whose oldest PAUSE or resume reaches its transmitter */
	EV_PFC_REFRESH, /* index: link x 8 + class: the switch repeats the class's PAUSE */
	EV_PAUSE_END,   /* index: link x 8 + class: when the class's pause may have run out */
};

#define NCLS UROCE_SIM_CLASSES
enum { PFC_PENDING = 32 }; /* PAUSE and resume frames of one link in flight at once */

/* The packets of one traffic class waiting at a link, oldest first. */
struct sim_class_queue {
	uint32_t head, tail, n;
	uint64_t bytes; /* theirs, and the class's packet on the wire if there is one */
};

struct sim_event {
	uint64_t time;
	uint64_t seq; /* creation order: breaks ties so that equal times stay deterministic */
	enum sim_event_kind kind;
	uint32_t index;
};

struct sim_link {
	uint32_t from, to;
	uint32_t next_out; /* the next link leaving `from`, NIL at the end */
	struct uroce_sim_link_cfg cfg;
	struct uroce_impair im;
	struct sim_class_queue q[NCLS]; /* waiting, by class */
	uint32_t wire;       /* the packet being serialised, NIL */
	uint64_t q_bytes;    /* every class's, the packet on the wire included */
	uint32_t q_pkts;
	/* When the transmitter is free: tx_ns + tx_rem / bandwidth ns. The fraction is kept so
	 * that back-to-back packets accumulate no rounding. */
	uint64_t tx_ns, tx_rem;
	uint64_t red_rng;    /* RED marking's draws (splitmix64), seeded like the impairments */
	bool busy;           /* a packet is being serialised (a TX_DONE is due) */
	/* PFC (cfg.pfc_xoff), per class: the bytes that came over this link into its far end, a
	 * switch, and have not left it; the classes the switch last asked to pause, and those
	 * with a refresh due; the frames in flight back to the transmitter (a ring); at the
	 * transmitter, the classes paused, until when, since when, and those with an
	 * EV_PAUSE_END due. Class sets are bit masks. */
	uint64_t pfc_bytes[NCLS];
	uint8_t xoff_sent, refresh_due, paused, expiry_due;
	uint64_t paused_until[NCLS], paused_since[NCLS];
	struct {
		uint64_t due;
		uint16_t quanta; /* 0: resume */
		uint8_t cls;
	} pfc_q[PFC_PENDING];
	uint32_t pfc_head, pfc_n;
	union uroce_sim_counters c;
};

/* A route: unicast datagrams to dst (to anywhere else, when `any`) take the link. */
struct sim_route {
	struct uroce_io_addr dst;
	bool any;
	uint32_t link;
};

struct sim_ep {
	struct uroce_io io; /* first: the io ops get a pointer to it */
	struct uroce_sim *sim;
	int index;
	struct uroce_io_addr addr;
	uint32_t first_out; /* links leaving it */
	struct sim_route *routes; /* uroce_sim_add_route, in the order added */
	uint32_t nroutes;
	uint64_t ecmp_seed; /* its ECMP hash's seed: each switch picks paths of its own */
	bool forwards;      /* a switch: what arrives is sent on at once (uroce_sim_set_switch) */
	bool closed;
	struct uroce_io_addr *groups; /* the multicast groups it joined (uroce_sim_join) */
	uint32_t ngroups;
	uint32_t *ring;
	uint32_t ring_size, ring_head, ring_count;
	union uroce_sim_counters c;
};

struct uroce_sim {
	uint64_t seed;
	uint64_t now;
	uint64_t seq;
	struct sim_pkt *pkts;
	uint8_t *bufs;
	uint32_t npkts, max_pkt, free_head;
	/* A binary min-heap on (time, seq). It never needs to grow while running: each packet
	 * has at most one DELIVER event, each link at most one TX_DONE and one PFC, and each of
	 * its classes at most one PFC_REFRESH and one PAUSE_END. */
	struct sim_event *heap;
	size_t nheap, heap_cap;
	struct sim_link *links;
	uint32_t nlinks;
	struct sim_ep **eps;
	uint32_t neps;
	FILE *trace;
	unsigned trace_points;
	bool trace_err;
};

const char *uroce_sim_counter_name(enum uroce_sim_counter c)
{
	static const char *const names[] = {
#define UROCE_SIM_COUNTER_NAME(name, desc) #name,
		UROCE_SIM_COUNTERS(UROCE_SIM_COUNTER_NAME)
#undef UROCE_SIM_COUNTER_NAME
	};
	return (unsigned)c < UROCE_SIM_NCOUNTERS ? names[c] : NULL;
}

/* ---- IP header access: one table for the two versions ---- */

static const struct ip_layout {
	size_t src, dst, alen;
} ip_layout[2] = {
	{12, 16, 4}, /* IPv4 */
	{8, 24, 16}, /* IPv6 */
};

static bool ip_is_v6(const uint8_t *p) { return p[0] >> 4 == 6; }

/* True when p[0..len) starts with a whole IPv4 or IPv6 header. */
static bool ip_valid(const uint8_t *p, size_t len)
{
	struct uroce_ipv4 ip4;
	struct uroce_ipv6 ip6;

	if (!len)
		return false;
	if (ip_is_v6(p))
		return uroce_ipv6_decode(&ip6, p, len) >= 0;
	return uroce_ipv4_decode(&ip4, p, len) >= 0;
}

/* The source or destination address of an IP header. */
static void ip_addr(const uint8_t *p, bool dst, struct uroce_io_addr *a)
{
	const struct ip_layout *l = &ip_layout[ip_is_v6(p)];
	size_t off = dst ? l->dst : l->src;

	memset(a, 0, sizeof(*a));
	a->ipv6 = ip_is_v6(p);
	memcpy(a->ip, p + off, l->alen);
}

/* IPv4 TOS or IPv6 traffic class (which straddles bytes 0 and 1). */
static uint8_t ip_tclass(const uint8_t *p)
{
	return ip_is_v6(p) ? (uint8_t)(p[0] << 4 | p[1] >> 4) : p[1];
}

/* Marks an ECN-capable packet CE (RFC 3168: ECT(0) 0b10 and ECT(1) 0b01 become 0b11);
 * returns whether it changed. The IPv4 header checksum is recomputed; the ICRC needs no
 * change, since it masks the TOS / traffic class (facts.md section 1). */
static bool ip_mark_ce(uint8_t *p)
{
	uint8_t ecn = ip_tclass(p) & 3;

	if (ecn == 0 || ecn == 3)
		return false;
	if (ip_is_v6(p)) {
		p[1] |= 0x30;
	} else {
		size_t hlen = (size_t)(p[0] & 0x0F) * 4;
		p[1] |= 3;
		put_be16(p + 10, 0);
		put_be16(p + 10, uroce_ipv4_checksum(p, hlen));
	}
	return true;
}

/* ---- the packet pool ---- */

static uint8_t *pkt_data(struct uroce_sim *sim, uint32_t i)
{
	return sim->bufs + (size_t)i * sim->max_pkt;
}

static uint32_t pkt_alloc(struct uroce_sim *sim)
{
	uint32_t i = sim->free_head;

	if (i != NIL)
		sim->free_head = sim->pkts[i].next;
	return i;
}

static void pkt_free(struct uroce_sim *sim, uint32_t i)
{
	sim->pkts[i].next = sim->free_head;
	sim->free_head = i;
}

/* ---- the event heap ---- */

static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void ev_swap(struct sim_event *a, struct sim_event *b)
{
	struct sim_event t = *a;
	*a = *b;
	*b = t;
}

static void ev_push(struct uroce_sim *sim, uint64_t time, enum sim_event_kind kind,
		    uint32_t index)
{
	struct sim_event *h = sim->heap;
	size_t i = sim->nheap++;

	h[i] = (struct sim_event){.time = time, .seq = sim->seq++, .kind = kind, .index = index};
	for (; i && ev_before(&h[i], &h[(i - 1) / 2]); i = (i - 1) / 2)
		ev_swap(&h[i], &h[(i - 1) / 2]);
}

static struct sim_event ev_pop(struct uroce_sim *sim)
{
	struct sim_event *h = sim->heap, top = h[0];
	size_t n = --sim->nheap, i = 0;

	h[0] = h[n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && ev_before(&h[l], &h[m]))
			m = l;
		if (r < n && ev_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			break;
		ev_swap(&h[i], &h[m]);
		i = m;
	}
	return top;
}

/* ---- trace ---- */

/* A synthetic MAC: 02 (locally administered) : 00 : 00 : point : endpoint index (16 bits),
 * point 0 for a packet as sent and 1 as delivered. */
static void trace_mac(uint8_t *mac, uint32_t ep, enum uroce_sim_trace_point point)
{
	mac[0] = 0x02;
	mac[1] = mac[2] = 0;
	mac[3] = point == UROCE_SIM_TRACE_DELIVER;
	put_be16(mac + 4, (uint16_t)ep);
}

static void trace_packet(struct uroce_sim *sim, enum uroce_sim_trace_point point,
			 const struct sim_link *l, const uint8_t *p, uint32_t len)
{
	uint8_t h[16 + UROCE_ETH_HLEN];

	if (!sim->trace || !(sim->trace_points & point))
		return;
	/* pcap record header (little-endian, seconds and nanoseconds), then Ethernet II. */
	put_le32(h, (uint32_t)(sim->now / 1000000000u));
	put_le32(h + 4, (uint32_t)(sim->now % 1000000000u));
	put_le32(h + 8, len + UROCE_ETH_HLEN);
	put_le32(h + 12, len + UROCE_ETH_HLEN);
	trace_mac(h + 16, l->to, point);
	trace_mac(h + 22, l->from, point);
	put_be16(h + 28, ip_is_v6(p) ? UROCE_ETHERTYPE_IPV6 : UROCE_ETHERTYPE_IPV4);
	if (fwrite(h, sizeof(h), 1, sim->trace) != 1 || fwrite(p, len, 1, sim->trace) != 1)
		sim->trace_err = true;
}

int uroce_sim_trace_pcap(struct uroce_sim *sim, const char *path, unsigned points)
{
	uint8_t h[24];

	if (!path) {
		int err = sim->trace_err ? UROCE_EIO : 0;
		if (sim->trace && fclose(sim->trace) != 0)
			err = UROCE_EIO;
		sim->trace = NULL;
		sim->trace_err = false;
		return err;
	}
	if (sim->trace || !(points & (UROCE_SIM_TRACE_SEND | UROCE_SIM_TRACE_DELIVER)))
		return UROCE_EINVAL;
	sim->trace = fopen(path, "wb");
	if (!sim->trace)
		return UROCE_EIO;
	/* The pcap file header, written little-endian whatever the host so that one seed
	 * gives the same bytes everywhere: nanosecond magic, version 2.4, zone 0, sigfigs 0,
	 * snap length, LINKTYPE_ETHERNET. */
	put_le32(h, 0xA1B23C4D);
	put_le16(h + 4, 2);
	put_le16(h + 6, 4);
	put_le32(h + 8, 0);
	put_le32(h + 12, 0);
	put_le32(h + 16, 262144);
	put_le32(h + 20, 1);
	sim->trace_points = points;
	sim->trace_err = fwrite(h, sizeof(h), 1, sim->trace) != 1;
	return 0;
}

/* ---- links ---- */

/* The impairments as the packet leaves the queue at time t, then its flight. */
static void link_transmit(struct uroce_sim *sim, struct sim_link *l, uint32_t pi, uint64_t t)
{
	struct uroce_impair_verdict v;
	uint8_t *p = pkt_data(sim, pi);

	uroce_impair_apply(&l->im, p, sim->pkts[pi].len, &v);
	if (v.drop != UROCE_IMPAIR_KEEP) {
		if (v.drop == UROCE_IMPAIR_LOST)
			l->c.drop_loss++;
		else
			l->c.drop_burst++;
		pkt_free(sim, pi);
		return;
	}
	l->c.corrupted += v.corrupt_bits != 0;
	l->c.reordered += v.reordered;
	uint64_t at = t + l->cfg.latency_ns + v.delay_ns;
	ev_push(sim, at, EV_DELIVER, pi);
	if (v.dup) {
		uint32_t ci = pkt_alloc(sim);
		if (ci == NIL)
			return; /* no buffer for the copy: it was never made */
		sim->pkts[ci] = sim->pkts[pi];
		memcpy(pkt_data(sim, ci), p, sim->pkts[pi].len);
		l->c.duplicated++;
		ev_push(sim, at, EV_DELIVER, ci); /* a later seq: right after the original */
	}
}

/* The class the transmitter serves next: the highest with a packet waiting and no pause
 * (strict priority), or -1. */
static int link_pick(const struct sim_link *l)
{
	for (int c = NCLS - 1; c >= 0; c--)
		if (l->q[c].n && !(l->paused >> c & 1))
			return c;
	return -1;
}

/* Starts serialising the next packet of class c at tx_ns + tx_rem (the exact time the
 * transmitter is free) and schedules the end. */
static void link_start(struct uroce_sim *sim, struct sim_link *l, uint32_t link, int c)
{
	uint64_t bw = l->cfg.bandwidth_bps;
	uint32_t pi = l->q[c].head;
	uint64_t bits_ns = (uint64_t)sim->pkts[pi].len * 8 * 1000000000u;

	l->q[c].head = sim->pkts[pi].next;
	l->q[c].n--;
	l->wire = pi;
	l->tx_ns += bits_ns / bw;
	l->tx_rem += bits_ns % bw;
	if (l->tx_rem >= bw) {
		l->tx_rem -= bw;
		l->tx_ns++;
	}
	/* Events fall on whole nanoseconds: the end of serialisation rounded up. */
	ev_push(sim, l->tx_ns + (l->tx_rem != 0), EV_TX_DONE, link);
	l->busy = true;
}

/* Starts the transmitter if it is idle and a class may send: from now, or from when the last
 * packet ended if that is later. */
static void link_kick(struct uroce_sim *sim, struct sim_link *l, uint32_t link)
{
	int c = link_pick(l);

	if (l->busy || c < 0)
		return;
	if (sim->now > l->tx_ns) { /* idle since before now: the transmitter starts now */
		l->tx_ns = sim->now;
		l->tx_rem = 0;
	}
	link_start(sim, l, link, c);
}

/* ---- PFC (802.1Qbb, per traffic class): docs/sim.md ---- */

/* How long a PAUSE of `quanta` holds the link's transmitter: quanta of 512 bit times at its
 * rate, rounded up to a nanosecond. */
static uint64_t pause_ns(const struct sim_link *l, uint16_t quanta)
{
	uint64_t bits_ns = (uint64_t)quanta * 512 * 1000000000u;
	return (bits_ns + l->cfg.bandwidth_bps - 1) / l->cfg.bandwidth_bps;
}

static uint16_t pfc_quanta(const struct sim_link *l)
{
	return l->cfg.pfc_quanta ? l->cfg.pfc_quanta : 0xFFFF;
}

/* The switch at link's far end sends a PAUSE of `quanta` for class c (0: a resume) back over
 * it: it reaches the transmitter one latency later, after the frames already on their way.
 * A link with PFC_PENDING frames in flight replaces the last one with this one (the newer
 * decision stands, from the older frame's arrival; a pause that loses its resume runs out). */
static void pfc_send(struct uroce_sim *sim, uint32_t link, int c, uint16_t quanta)
{
	struct sim_link *l = &sim->links[link];
	uint32_t at = (l->pfc_head + (l->pfc_n == PFC_PENDING ? PFC_PENDING - 1 : l->pfc_n)) %
		      PFC_PENDING;

	l->c.pfc_frames++;
	l->pfc_q[at].quanta = quanta;
	l->pfc_q[at].cls = (uint8_t)c;
	if (l->pfc_n == PFC_PENDING)
		return;
	l->pfc_q[at].due = sim->now + l->cfg.latency_ns;
	if (!l->pfc_n++)
		ev_push(sim, l->pfc_q[at].due, EV_PFC, link);
}

/* The switch's refresh of class c's PAUSE, while it holds: every pfc_refresh_ns, by default
 * half the PAUSE's time, so that the pause never runs out while the class is over XON. */
static void refresh_arm(struct uroce_sim *sim, uint32_t link, int c)
{
	struct sim_link *l = &sim->links[link];
	uint64_t every = l->cfg.pfc_refresh_ns;

	if (l->refresh_due >> c & 1)
		return;
	if (!every)
		every = pause_ns(l, pfc_quanta(l)) / 2 + 1;
	l->refresh_due |= (uint8_t)(1u << c);
	ev_push(sim, sim->now + every, EV_PFC_REFRESH, link * NCLS + (uint32_t)c);
}

static void on_pfc_refresh(struct uroce_sim *sim, uint32_t index)
{
	uint32_t link = index / NCLS;
	int c = (int)(index % NCLS);
	struct sim_link *l = &sim->links[link];

	l->refresh_due &= (uint8_t)~(1u << c);
	if (l->xoff_sent >> c & 1) {
		pfc_send(sim, link, c, pfc_quanta(l));
		refresh_arm(sim, link, c);
	}
}

/* len bytes of class c that came over `link` entered (add) or left its far end's queues. */
static void pfc_account(struct uroce_sim *sim, uint32_t link, int c, uint32_t len, bool add)
{
	struct sim_link *l = &sim->links[link];
	uint8_t bit = (uint8_t)(1u << c);

	if (!l->cfg.pfc_xoff || (l->cfg.pfc_classes && !(l->cfg.pfc_classes & bit)))
		return;
	if (add) {
		l->pfc_bytes[c] += len;
		if (l->pfc_bytes[c] > l->c.pfc_peak_bytes)
			l->c.pfc_peak_bytes = l->pfc_bytes[c];
		if (!(l->xoff_sent & bit) && l->pfc_bytes[c] >= l->cfg.pfc_xoff) {
			l->xoff_sent |= bit;
			pfc_send(sim, link, c, pfc_quanta(l));
			refresh_arm(sim, link, c);
		}
		return;
	}
	l->pfc_bytes[c] -= len;
	if ((l->xoff_sent & bit) && l->pfc_bytes[c] <= l->cfg.pfc_xon) {
		l->xoff_sent &= (uint8_t)~bit;
		pfc_send(sim, link, c, 0);
	}
}

/* Class c of the link's transmitter sends again. */
static void pause_end(struct uroce_sim *sim, struct sim_link *l, uint32_t link, int c)
{
	l->paused &= (uint8_t)~(1u << c);
	l->c.pfc_paused_ns += sim->now - l->paused_since[c];
	link_kick(sim, l, link);
}

/* The oldest PAUSE or resume in flight reaches the link's transmitter. A paused class keeps
 * its packets; the one on the wire finishes. */
static void on_pfc(struct uroce_sim *sim, uint32_t link)
{
	struct sim_link *l = &sim->links[link];
	uint16_t quanta = l->pfc_q[l->pfc_head].quanta;
	int c = l->pfc_q[l->pfc_head].cls;
	uint8_t bit = (uint8_t)(1u << c);

	l->pfc_head = (l->pfc_head + 1) % PFC_PENDING;
	if (--l->pfc_n)
		ev_push(sim, l->pfc_q[l->pfc_head].due, EV_PFC, link);
	if (!quanta) {
		if (l->paused & bit)
			pause_end(sim, l, link, c);
		return;
	}
	if (!(l->paused & bit)) {
		l->paused |= bit;
		l->paused_since[c] = sim->now;
		l->c.pfc_pauses++;
	}
	l->paused_until[c] = sim->now + pause_ns(l, quanta);
	if (!(l->expiry_due & bit)) {
		l->expiry_due |= bit;
		ev_push(sim, l->paused_until[c], EV_PAUSE_END, link * NCLS + (uint32_t)c);
	}
}

/* A pause may have run out: it has, unless a later PAUSE moved its end. */
static void on_pause_end(struct uroce_sim *sim, uint32_t index)
{
	uint32_t link = index / NCLS;
	int c = (int)(index % NCLS);
	struct sim_link *l = &sim->links[link];

	l->expiry_due &= (uint8_t)~(1u << c);
	if (!(l->paused >> c & 1))
		return;
	if (l->paused_until[c] <= sim->now) {
		pause_end(sim, l, link, c);
		return;
	}
	l->expiry_due |= (uint8_t)(1u << c);
	ev_push(sim, l->paused_until[c], EV_PAUSE_END, index);
}

/* Whether a packet of class c arriving now is to be marked CE (if ECN-capable), by its class's
 * queue: the step threshold, or RED's probability (sim.h). */
static bool ce_due(struct sim_link *l, int c)
{
	const struct uroce_sim_link_cfg *cfg = &l->cfg;
	uint64_t q = l->q[c].bytes;

	if (!cfg->ce_kmax)
		return cfg->ce_threshold && q > cfg->ce_threshold;
	if (q <= cfg->ce_kmin)
		return false;
	if (q > cfg->ce_kmax)
		return true;
	double p = cfg->ce_pmax * (double)(q - cfg->ce_kmin) / (double)(cfg->ce_kmax - cfg->ce_kmin);
	return (double)(uroce_splitmix64(&l->red_rng) >> 11) < p * 9007199254740992.0;
}

static void link_enqueue(struct uroce_sim *sim, uint32_t link, uint32_t pi)
{
	struct sim_link *l = &sim->links[link];
	uint32_t len = sim->pkts[pi].len;
	int c = sim->pkts[pi].cls;
	struct sim_class_queue *q = &l->q[c];

	if (!l->cfg.bandwidth_bps) { /* infinitely fast: no serialisation, no queue */
		link_transmit(sim, l, pi, sim->now);
		return;
	}
	if ((l->cfg.queue_pkts && l->q_pkts + 1 > l->cfg.queue_pkts) ||
	    (l->cfg.queue_bytes && l->q_bytes + len > l->cfg.queue_bytes)) {
		l->c.drop_queue++;
		pkt_free(sim, pi);
		return;
	}
	if (ce_due(l, c))
		l->c.ce_marked += ip_mark_ce(pkt_data(sim, pi));
	if (sim->pkts[pi].ingress != NIL)
		pfc_account(sim, sim->pkts[pi].ingress, c, len, true);
	sim->pkts[pi].next = NIL;
	if (q->n++)
		sim->pkts[q->tail].next = pi;
	else
		q->head = pi;
	q->tail = pi;
	q->bytes += len;
	l->q_pkts++;
	l->q_bytes += len;
	if (l->q_bytes > l->c.queue_peak_bytes)
		l->c.queue_peak_bytes = l->q_bytes;
	link_kick(sim, l, link);
}

static void on_tx_done(struct uroce_sim *sim, uint32_t link)
{
	struct sim_link *l = &sim->links[link];
	uint32_t pi = l->wire;
	int c = sim->pkts[pi].cls, next;

	l->wire = NIL;
	l->q_pkts--;
	l->q_bytes -= sim->pkts[pi].len;
	l->q[c].bytes -= sim->pkts[pi].len;
	l->busy = false;
	if (sim->pkts[pi].ingress != NIL) { /* it leaves the switch */
		pfc_account(sim, sim->pkts[pi].ingress, c, sim->pkts[pi].len, false);
		sim->pkts[pi].ingress = NIL;
	}
	link_transmit(sim, l, pi, sim->now);
	if ((next = link_pick(l)) >= 0)
		link_start(sim, l, link, next); /* back to back, from the exact end of the last */
}

static void ep_route(struct uroce_sim *sim, struct sim_ep *ep, const uint8_t *data, uint32_t len,
		     uint32_t ingress);

static void on_deliver(struct uroce_sim *sim, uint32_t pi)
{
	struct sim_link *l = &sim->links[sim->pkts[pi].link];
	struct sim_ep *ep = sim->eps[l->to];

	if (ep->forwards) { /* a switch sends it on at once, counted against its ingress */
		l->c.delivered++;
		l->c.delivered_bytes += sim->pkts[pi].len;
		trace_packet(sim, UROCE_SIM_TRACE_DELIVER, l, pkt_data(sim, pi), sim->pkts[pi].len);
		ep_route(sim, ep, pkt_data(sim, pi), sim->pkts[pi].len, sim->pkts[pi].link);
		pkt_free(sim, pi);
		return;
	}
	if (ep->closed) {
		l->c.drop_closed++;
		ep->c.drop_closed++;
		pkt_free(sim, pi);
		return;
	}
	if (ep->ring_count == ep->ring_size) {
		l->c.drop_ring++;
		ep->c.drop_ring++;
		pkt_free(sim, pi);
		return;
	}
	sim->pkts[pi].ts = sim->now;
	ep->ring[(ep->ring_head + ep->ring_count++) % ep->ring_size] = pi;
	l->c.delivered++;
	ep->c.delivered++;
	l->c.delivered_bytes += sim->pkts[pi].len;
	ep->c.delivered_bytes += sim->pkts[pi].len;
	trace_packet(sim, UROCE_SIM_TRACE_DELIVER, l, pkt_data(sim, pi), sim->pkts[pi].len);
}

/* One table of event handlers. */
static void (*const ev_handlers[])(struct uroce_sim *, uint32_t) = {
	[EV_TX_DONE] = on_tx_done,
	[EV_DELIVER] = on_deliver,
	[EV_PFC] = on_pfc,
	[EV_PFC_REFRESH] = on_pfc_refresh,
	[EV_PAUSE_END] = on_pause_end,
};

/* ---- public API ---- */

struct uroce_sim *uroce_sim_new(uint64_t seed, const struct uroce_sim_cfg *cfg)
{
	struct uroce_sim *sim = calloc(1, sizeof(*sim));
	uint32_t npkts = cfg && cfg->pool_pkts ? cfg->pool_pkts : UROCE_SIM_POOL_PKTS;
	uint32_t max_pkt = cfg && cfg->max_pkt ? cfg->max_pkt : UROCE_SIM_MAX_PKT;

	if (!sim || max_pkt < MIN_PKT || max_pkt > 0xFFFF || npkts == NIL) {
		free(sim);
		return NULL;
	}
	sim->seed = seed;
	sim->npkts = npkts;
	sim->max_pkt = max_pkt;
	sim->pkts = calloc(npkts, sizeof(*sim->pkts));
	/* Not zeroed: untouched buffers cost no memory until a packet lands in them. */
	sim->bufs = malloc((size_t)npkts * max_pkt);
	sim->heap_cap = npkts;
	sim->heap = calloc(sim->heap_cap, sizeof(*sim->heap));
	if (!sim->pkts || !sim->bufs || !sim->heap) {
		uroce_sim_free(sim);
		return NULL;
	}
	for (uint32_t i = 0; i < npkts; i++)
		sim->pkts[i].next = i + 1 < npkts ? i + 1 : NIL;
	sim->free_head = 0;
	return sim;
}

void uroce_sim_free(struct uroce_sim *sim)
{
	if (!sim)
		return;
	uroce_sim_trace_pcap(sim, NULL, 0);
	for (uint32_t i = 0; i < sim->neps; i++) {
		free(sim->eps[i]->ring);
		free(sim->eps[i]->groups);
		free(sim->eps[i]->routes);
		free(sim->eps[i]);
	}
	free(sim->eps);
	free(sim->links);
	free(sim->heap);
	free(sim->bufs);
	free(sim->pkts);
	free(sim);
}

static struct sim_ep *ep_get(const struct uroce_sim *sim, int ep)
{
	return ep >= 0 && (uint32_t)ep < sim->neps ? sim->eps[ep] : NULL;
}

static int sim_io_send(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n)
{
	struct sim_ep *ep = (struct sim_ep *)io;
	int sent = 0;

	for (; (size_t)sent < n && sent < INT_MAX; sent++) {
		int err = uroce_sim_send(ep->sim, ep->index, &pkts[sent]);
		if (err < 0)
			return sent ? sent : err;
	}
	return sent;
}

static int sim_io_recv(struct uroce_io *io, struct uroce_io_pkt *pkts, size_t n)
{
	struct sim_ep *ep = (struct sim_ep *)io;
	return uroce_sim_recv(ep->sim, ep->index, pkts, n);
}

static int sim_io_fd(struct uroce_io *io)
{
	(void)io;
	return -1;
}

static void sim_io_close(struct uroce_io *io)
{
	struct sim_ep *ep = (struct sim_ep *)io;

	for (; ep->ring_count; ep->ring_count--, ep->ring_head = (ep->ring_head + 1) % ep->ring_size)
		pkt_free(ep->sim, ep->ring[ep->ring_head]);
	ep->closed = true;
}

static int sim_io_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join)
{
	struct sim_ep *ep = (struct sim_ep *)io;
	return uroce_sim_join(ep->sim, ep->index, group, join);
}

static const struct uroce_io_ops sim_io_ops = {
	.name = "sim",
	.send = sim_io_send,
	.recv = sim_io_recv,
	.fd = sim_io_fd,
	.close = sim_io_close,
	.join = sim_io_join,
};

int uroce_sim_add_endpoint(struct uroce_sim *sim, const struct uroce_io_addr *addr,
			   uint32_t ring_pkts)
{
	struct sim_ep *ep, **eps;

	if (sim->neps == MAX_ENDPOINTS)
		return UROCE_EINVAL;
	for (uint32_t i = 0; i < sim->neps; i++)
		if (uroce_io_addr_equal(&sim->eps[i]->addr, addr))
			return UROCE_EINVAL;
	eps = realloc(sim->eps, (sim->neps + 1) * sizeof(*eps));
	if (!eps)
		return UROCE_ENOMEM;
	sim->eps = eps;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return UROCE_ENOMEM;
	ep->ring_size = ring_pkts ? ring_pkts : UROCE_SIM_RING;
	ep->ring = calloc(ep->ring_size, sizeof(*ep->ring));
	if (!ep->ring) {
		free(ep);
		return UROCE_ENOMEM;
	}
	ep->io.ops = &sim_io_ops;
	ep->sim = sim;
	ep->index = (int)sim->neps;
	ep->addr = *addr;
	ep->first_out = NIL;
	uint64_t x = sim->seed ^ (uint64_t)sim->neps << 32;
	ep->ecmp_seed = uroce_splitmix64(&x);
	sim->eps[sim->neps++] = ep;
	return ep->index;
}

int uroce_sim_connect(struct uroce_sim *sim, int from, int to,
		      const struct uroce_sim_link_cfg *cfg)
{
	struct sim_ep *src = ep_get(sim, from);
	struct sim_link *links, *l;
	struct sim_event *heap;
	struct uroce_impair im;
	uint64_t x = sim->seed;

	if (!src || !ep_get(sim, to) || cfg->latency_ns > UROCE_IMPAIR_MAX_DELAY_NS ||
	    sim->nlinks >= UINT32_MAX / NCLS ||
	    (cfg->ce_kmax && (cfg->ce_kmin >= cfg->ce_kmax || !(cfg->ce_pmax >= 0 && cfg->ce_pmax <= 1))) ||
	    (cfg->pfc_xoff && (cfg->pfc_xon >= cfg->pfc_xoff || !cfg->bandwidth_bps)))
		return UROCE_EINVAL;
	for (uint32_t i = src->first_out; i != NIL; i = sim->links[i].next_out)
		if (sim->links[i].to == (uint32_t)to)
			return UROCE_EINVAL;
	/* Each link's streams come from the fabric seed and the link index, so that traffic on
	 * one link never shifts the draws of another. */
	if (uroce_impair_init(&im, &cfg->impair, uroce_splitmix64(&x) + sim->nlinks) < 0)
		return UROCE_EINVAL;
	links = realloc(sim->links, (sim->nlinks + 1) * sizeof(*links));
	if (!links)
		return UROCE_ENOMEM;
	sim->links = links;
	/* its TX_DONE and its PFC frame's arrival, and per class a refresh and a pause's end:
	 * one of each pending at most */
	heap = realloc(sim->heap, (sim->heap_cap + 2 + 2 * NCLS) * sizeof(*heap));
	if (!heap)
		return UROCE_ENOMEM;
	sim->heap = heap;
	sim->heap_cap += 2 + 2 * NCLS;

	l = &sim->links[sim->nlinks];
	memset(l, 0, sizeof(*l));
	l->from = (uint32_t)from;
	l->to = (uint32_t)to;
	l->cfg = *cfg;
	l->im = im;
	l->red_rng = uroce_splitmix64(&x) ^ sim->nlinks; /* x moved on past the impairments' */
	l->wire = NIL;
	l->next_out = src->first_out;
	src->first_out = sim->nlinks;
	return (int)sim->nlinks++;
}

/* The index of group in ep's memberships, or ep->ngroups. */
static uint32_t ep_group(const struct sim_ep *ep, const struct uroce_io_addr *group)
{
	uint32_t i = 0;

	while (i < ep->ngroups && !uroce_io_addr_equal(&ep->groups[i], group))
		i++;
	return i;
}

int uroce_sim_join(struct uroce_sim *sim, int epi, const struct uroce_io_addr *group, bool join)
{
	struct sim_ep *ep = ep_get(sim, epi);
	struct uroce_io_addr *groups;
	uint32_t i;

	if (!ep || !uroce_io_addr_is_multicast(group) || group->ipv6 != ep->addr.ipv6)
		return UROCE_EINVAL;
	i = ep_group(ep, group);
	if (!join) {
		if (i == ep->ngroups)
			return UROCE_ENOENT;
		ep->groups[i] = ep->groups[--ep->ngroups];
		return 0;
	}
	if (i < ep->ngroups)
		return UROCE_EBUSY;
	groups = realloc(ep->groups, (ep->ngroups + 1) * sizeof(*groups));
	if (!groups)
		return UROCE_ENOMEM;
	ep->groups = groups;
	memset(&groups[ep->ngroups], 0, sizeof(*groups));
	groups[ep->ngroups].ipv6 = group->ipv6;
	memcpy(groups[ep->ngroups].ip, group->ip, group->ipv6 ? 16 : 4);
	ep->ngroups++;
	return 0;
}

/* Puts a copy of the datagram on a link (trace, a buffer, the queue); ingress is the link it
 * came in on when a switch forwards it, else NIL. */
static void link_offer(struct uroce_sim *sim, uint32_t link, const uint8_t *data, uint32_t len,
		       uint32_t ingress)
{
	struct sim_link *l = &sim->links[link];
	uint32_t pi;

	l->c.sent++;
	trace_packet(sim, UROCE_SIM_TRACE_SEND, l, data, len);
	pi = pkt_alloc(sim);
	if (pi == NIL) {
		l->c.drop_pool++;
		return;
	}
	memcpy(pkt_data(sim, pi), data, len);
	sim->pkts[pi].len = len;
	sim->pkts[pi].link = link;
	sim->pkts[pi].ingress = ingress;
	sim->pkts[pi].cls = (uint8_t)(ip_tclass(data) >> 5); /* DSCP / 8 */
	link_enqueue(sim, link, pi);
}

/* The ECMP hash of a datagram's flow: its IP addresses, protocol and, for UDP, its ports (the
 * RoCEv2 source port is the flow's entropy, Annex A17.9.4), seeded per endpoint. FNV-1a over
 * the bytes, then splitmix64's finaliser so that every bit counts in the modulo. */
static uint64_t flow_hash(const uint8_t *p, uint32_t len, uint64_t seed)
{
	const struct ip_layout *l = &ip_layout[ip_is_v6(p)];
	size_t hlen = ip_is_v6(p) ? UROCE_IPV6_HLEN : (size_t)(p[0] & 0x0F) * 4;
	uint8_t proto = ip_is_v6(p) ? p[6] : p[9];
	uint64_t h = 0xcbf29ce484222325u ^ proto;
	size_t end = l->src + 2 * l->alen; /* source and destination are adjacent */

	for (size_t i = l->src; i < end && i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	if (proto == 17 && len >= hlen + 4)
		for (size_t i = hlen; i < hlen + 4; i++)
			h = (h ^ p[i]) * 0x100000001b3u;
	h ^= seed;
	return uroce_splitmix64(&h);
}

/* The link a unicast datagram to dst takes by ep's routes: those for dst, else the default
 * ones; several make an ECMP group, one member per flow. NIL: no route. */
static uint32_t route_pick(const struct sim_ep *ep, const struct uroce_io_addr *dst,
			   const uint8_t *data, uint32_t len)
{
	uint32_t n = 0, k;
	bool any = false;

	for (uint32_t i = 0; i < ep->nroutes; i++)
		n += !ep->routes[i].any && uroce_io_addr_equal(&ep->routes[i].dst, dst);
	if (!n) {
		any = true;
		for (uint32_t i = 0; i < ep->nroutes; i++)
			n += ep->routes[i].any;
	}
	if (!n)
		return NIL;
	k = n == 1 ? 0 : (uint32_t)(flow_hash(data, len, ep->ecmp_seed) % n);
	for (uint32_t i = 0;; i++) {
		const struct sim_route *r = &ep->routes[i];
		if ((any ? r->any : !r->any && uroce_io_addr_equal(&r->dst, dst)) && !k--)
			return r->link;
	}
}

/* Sends the datagram data[0..len) on from endpoint ep, by its destination address (what
 * uroce_sim_send promises); ingress as for link_offer. */
static void ep_route(struct uroce_sim *sim, struct sim_ep *ep, const uint8_t *data, uint32_t len,
		     uint32_t ingress)
{
	struct uroce_io_addr dst;
	bool group;
	uint32_t copies = 0;

	ep->c.sent++;
	ip_addr(data, true, &dst);
	/* A unicast datagram takes the link to its address, else its route; a multicast one, a
	 * copy on every link to an endpoint that joined the group (as a switch replicates it
	 * toward the group's members), each link with its own queue and impairments. */
	group = uroce_io_addr_is_multicast(&dst);
	for (uint32_t i = ep->first_out; i != NIL; i = sim->links[i].next_out) {
		const struct sim_ep *to = sim->eps[sim->links[i].to];
		if (group ? ep_group(to, &dst) < to->ngroups : uroce_io_addr_equal(&to->addr, &dst)) {
			link_offer(sim, i, data, len, ingress);
			copies++;
			if (!group)
				break;
		}
	}
	if (!copies && !group) {
		uint32_t link = route_pick(ep, &dst, data, len);
		if (link != NIL) {
			link_offer(sim, link, data, len, ingress);
			copies++;
		}
	}
	if (!copies)
		ep->c.drop_noroute++;
}

int uroce_sim_send(struct uroce_sim *sim, int epi, const struct uroce_io_pkt *pkt)
{
	struct sim_ep *ep = ep_get(sim, epi);

	if (!ep || ep->closed || !ip_valid(pkt->data, pkt->len))
		return UROCE_EINVAL;
	if (pkt->len > sim->max_pkt)
		return UROCE_ENOSPACE;
	ep_route(sim, ep, pkt->data, (uint32_t)pkt->len, NIL);
	return 0;
}

int uroce_sim_set_switch(struct uroce_sim *sim, int epi)
{
	struct sim_ep *ep = ep_get(sim, epi);

	if (!ep)
		return UROCE_EINVAL;
	ep->forwards = true;
	return 0;
}

int uroce_sim_add_route(struct uroce_sim *sim, int epi, const struct uroce_io_addr *dst, int link)
{
	struct sim_ep *ep = ep_get(sim, epi);
	struct sim_route *routes;

	if (!ep || link < 0 || (uint32_t)link >= sim->nlinks ||
	    sim->links[link].from != (uint32_t)epi || (dst && uroce_io_addr_is_multicast(dst)))
		return UROCE_EINVAL;
	routes = realloc(ep->routes, (ep->nroutes + 1) * sizeof(*routes));
	if (!routes)
		return UROCE_ENOMEM;
	ep->routes = routes;
	memset(&routes[ep->nroutes], 0, sizeof(*routes));
	if (dst) {
		routes[ep->nroutes].dst.ipv6 = dst->ipv6;
		memcpy(routes[ep->nroutes].dst.ip, dst->ip, dst->ipv6 ? 16 : 4);
	}
	routes[ep->nroutes].any = !dst;
	routes[ep->nroutes].link = (uint32_t)link;
	ep->nroutes++;
	return 0;
}

int uroce_sim_recv(struct uroce_sim *sim, int epi, struct uroce_io_pkt *pkts, size_t n)
{
	struct sim_ep *ep = ep_get(sim, epi);
	int got = 0;

	if (!ep)
		return UROCE_EINVAL;
	for (; ep->ring_count && (size_t)got < n && got < INT_MAX; got++) {
		struct uroce_io_pkt *out = &pkts[got];
		uint32_t pi = ep->ring[ep->ring_head];
		const uint8_t *p = pkt_data(sim, pi);
		uint32_t len = sim->pkts[pi].len;

		ep->ring_head = (ep->ring_head + 1) % ep->ring_size;
		ep->ring_count--;
		out->flags = len > out->cap ? UROCE_IO_PKT_TRUNC : 0;
		out->len = len > out->cap ? out->cap : len;
		memcpy(out->data, p, out->len);
		out->ts_ns = sim->pkts[pi].ts;
		if (ip_valid(p, len)) {
			out->tos = ip_tclass(p);
			ip_addr(p, false, &out->src);
			ip_addr(p, true, &out->dst);
		} else { /* corrupt_any hit the IP header: no metadata to trust */
			out->tos = 0;
			memset(&out->src, 0, sizeof(out->src));
			memset(&out->dst, 0, sizeof(out->dst));
		}
		pkt_free(sim, pi);
	}
	return got;
}

struct uroce_io *uroce_sim_io(struct uroce_sim *sim, int epi)
{
	struct sim_ep *ep = ep_get(sim, epi);
	return ep ? &ep->io : NULL;
}

uint64_t uroce_sim_now(const struct uroce_sim *sim) { return sim->now; }

uint64_t uroce_sim_next_event_time(const struct uroce_sim *sim)
{
	return sim->nheap ? sim->heap[0].time : UROCE_SIM_NEVER;
}

size_t uroce_sim_run_until(struct uroce_sim *sim, uint64_t t)
{
	size_t n = 0;

	for (; sim->nheap && sim->heap[0].time <= t; n++) {
		struct sim_event ev = ev_pop(sim);
		sim->now = ev.time;
		ev_handlers[ev.kind](sim, ev.index);
	}
	if (t > sim->now)
		sim->now = t;
	return n;
}

uint64_t uroce_sim_link_queue_bytes(const struct uroce_sim *sim, int link)
{
	return link >= 0 && (uint32_t)link < sim->nlinks ? sim->links[link].q_bytes : 0;
}

const union uroce_sim_counters *uroce_sim_link_counters(const struct uroce_sim *sim, int link)
{
	return link >= 0 && (uint32_t)link < sim->nlinks ? &sim->links[link].c : NULL;
}

const union uroce_sim_counters *uroce_sim_endpoint_counters(const struct uroce_sim *sim, int ep)
{
	const struct sim_ep *e = ep_get(sim, ep);
	return e ? &e->c : NULL;
}

/* SPDX-License-Identifier: MIT */
/* CMs on a virtual network of MADs for the CM tests: up to four nodes, each a CM with an
 * address and a CA GUID; every MAD a CM hands out goes through the project's seeded
 * impairments (io/impair.h: loss, duplication, reordering, delay) and a hold queue to the
 * node with its destination address, after a fixed latency; the loop advances virtual time
 * to the earliest of the next delivery and every CM's deadline. Nodes answer events by a
 * policy (accept a REQ, send the RTU, answer a DREQ...) or leave them to the test, and
 * every event is kept. Header-only (static inline), so that each test stays one file; no
 * clock is ever read. */
#ifndef UROCE_TEST_CM_HARNESS_H
#define UROCE_TEST_CM_HARNESS_H

#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "common/error.h"
#include "io/impair.h"
#include "wire/bytes.h"

#define H_NODES 4
#define H_EVENTS 512
#define H_LATENCY_NS 10000ull          /* one way */
#define H_SEC 1000000000ull
#define H_SID 0x0000000001064853ull    /* RDMA_PS_TCP, port 18515 (perftest's) */
#define H_GUID(i) (0x505400FFFE181000ull + (uint64_t)(i) + 1)
#define H_QPN(i) (0x11u + 0x100u * (uint32_t)(i))
#define H_PSN(i) (0x123456u + (uint32_t)(i))

struct h_node;
/* Called for every event a node takes, before the policy answers it; returning true
 * means the test handled it (the policy does nothing). */
typedef bool (*h_event_fn)(void *ctx, struct h_node *n, const struct uroce_cm_event *ev);

struct h_node {
	struct uroce_cm *cm;
	struct uroce_io_addr addr;
	uint64_t guid;
	bool down;                   /* sends and receives nothing (a peer that disappeared) */
	/* Policy: what the node does with events nobody else handles. */
	bool accept;                 /* REQ_RECEIVED: send the REP */
	bool rtu;                    /* REP_RECEIVED: send the RTU */
	bool drep;                   /* DREQ_RECEIVED: send the DREP */
	bool sidr_accept;            /* SIDR_REQ_RECEIVED: SIDR_REP success */
	bool destroy_idle;           /* destroy an ID when it returns to IDLE for good */
	struct uroce_cm_event ev[H_EVENTS];
	uint64_t at[H_EVENTS];       /* virtual time of each event */
	int nev;
	uint32_t sent[0x20];         /* MADs sent, by attribute ID */
	uint32_t qpns;               /* QPNs handed out: H_QPN(i), H_QPN(i) + 1, ... */
	uint32_t rcvd;
};

struct h_net {
	struct h_node node[H_NODES];
	int n;
	uint64_t now;
	struct uroce_impair im;
	bool impaired;
	struct uroce_impair_hold hold;
	h_event_fn on_event;
	void *ctx;
	uint64_t delivered, lost;
};

static inline struct uroce_io_addr h_addr(int i, bool ipv6)
{
	struct uroce_io_addr a = {.ipv6 = ipv6};
	if (ipv6) {
		a.ip[0] = 0xFD;
		a.ip[15] = (uint8_t)(i + 1);
	} else {
		a.ip[0] = 10;
		a.ip[3] = (uint8_t)(i + 1);
	}
	return a;
}

/* n nodes with IPv4 (or IPv6) addresses; impair NULL: a perfect network. */
static inline void h_init(struct h_net *net, int n, bool ipv6, const struct uroce_impair_cfg *impair)
{
	memset(net, 0, sizeof(*net));
	net->n = n;
	for (int i = 0; i < n; i++) {
		struct h_node *nd = &net->node[i];
		struct uroce_cm_cfg cfg = {
			.ca_guid = H_GUID(i),
			.seed = 0xC0FFEE00u + (uint64_t)i,
			.tid_high = 2,
			.ack_delay = 15,
			.id_prefix = (uint8_t)(i + 1), /* as the slots of a shared address */
		};
		assert_int_equal(uroce_cm_new(&cfg, &nd->cm), 0);
		nd->addr = h_addr(i, ipv6);
		nd->guid = cfg.ca_guid;
		nd->accept = nd->rtu = nd->drep = nd->sidr_accept = true;
	}
	if (impair) {
		assert_int_equal(uroce_impair_init(&net->im, impair, 0), 0);
		net->impaired = true;
	}
	assert_int_equal(uroce_impair_hold_init(&net->hold, 1024), 0);
}

static inline void h_fini(struct h_net *net)
{
	for (int i = 0; i < net->n; i++)
		uroce_cm_free(net->node[i].cm);
	uroce_impair_hold_free(&net->hold);
}

static inline int h_node_of(const struct h_net *net, const struct uroce_io_addr *a)
{
	for (int i = 0; i < net->n; i++)
		if (uroce_io_addr_equal(&net->node[i].addr, a))
			return i;
	return -1;
}

/* A path from node a to node b, as rdma_cm builds it between them. */
static inline struct uroce_cm_path_rec h_path(const struct h_net *net, int a, int b)
{
	struct uroce_cm_path_rec p = {
		.local = net->node[a].addr,
		.remote = net->node[b].addr,
		.flow_label = 0xBFDFF,
		.hop_limit = 64,
		.mtu = 3,
		.packet_life_time = 18,
		.pkey = 0xFFFF,
	};
	return p;
}

/* A new QP number of node i (each connection has its own QP). */
static inline uint32_t h_new_qpn(struct h_net *net, int i) { return H_QPN(i) + net->node[i].qpns++; }

/* The REQ rdma_cm sends (cma_connect_ib), from node a to node b, with a new QP of a. */
static inline struct uroce_cm_req_param h_req(struct h_net *net, int a, int b)
{
	struct uroce_cm_req_param p = {
		.path = h_path(net, a, b),
		.service_id = H_SID,
		.qpn = h_new_qpn(net, a),
		.transport = UROCE_CM_TRANSPORT_RC,
		.starting_psn = H_PSN(a),
		.responder_resources = 4,
		.initiator_depth = 2,
		.remote_cm_response_timeout = 20,
		.local_cm_response_timeout = 20,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.max_cm_retries = 15,
	};
	return p;
}

static inline struct uroce_cm_rep_param h_rep(int b)
{
	struct uroce_cm_rep_param p = {
		.qpn = H_QPN(b),
		.starting_psn = H_PSN(b),
		.responder_resources = 2,
		.initiator_depth = 4,
		.rnr_retry_count = 7,
	};
	return p;
}

static inline struct uroce_cm_id *h_listen(struct h_net *net, int i, uint64_t sid)
{
	struct uroce_cm_id *id;
	assert_int_equal(uroce_cm_create_id(net->node[i].cm, NULL, &id), 0);
	assert_int_equal(uroce_cm_listen(id, sid, 0), 0);
	return id;
}

static inline struct uroce_cm_id *h_connect(struct h_net *net, int a, int b)
{
	struct uroce_cm_id *id;
	struct uroce_cm_req_param p = h_req(net, a, b);
	assert_int_equal(uroce_cm_create_id(net->node[a].cm, NULL, &id), 0);
	assert_int_equal(uroce_cm_send_req(id, &p, net->now), 0);
	return id;
}

/* The node's policy answer to an event it took. */
static inline void h_policy(struct h_net *net, struct h_node *nd, const struct uroce_cm_event *ev)
{
	int me = (int)(nd - net->node);

	switch (ev->type) {
	case UROCE_CM_EV_REQ_RECEIVED:
		if (nd->accept) {
			struct uroce_cm_rep_param p = h_rep(me);
			p.qpn = h_new_qpn(net, me);
			assert_int_equal(uroce_cm_send_rep(ev->id, &p, net->now), 0);
		}
		break;
	case UROCE_CM_EV_REP_RECEIVED:
		if (nd->rtu)
			assert_int_equal(uroce_cm_send_rtu(ev->id, NULL, 0), 0);
		break;
	case UROCE_CM_EV_DREQ_RECEIVED:
		if (nd->drep)
			assert_int_equal(uroce_cm_send_drep(ev->id, NULL, 0, net->now), 0);
		break;
	case UROCE_CM_EV_SIDR_REQ_RECEIVED:
		if (nd->sidr_accept) {
			struct uroce_cm_sidr_rep_param p = {
				.status = UROCE_CM_SIDR_SUCCESS, .qpn = H_QPN(me), .qkey = 0x01234567};
			assert_int_equal(uroce_cm_send_sidr_rep(ev->id, &p), 0);
		}
		break;
	default:
		break;
	}
	if (nd->destroy_idle && uroce_cm_id_state(ev->id) == UROCE_CM_IDLE &&
	    ev->type != UROCE_CM_EV_SIDR_REQ_RECEIVED)
		uroce_cm_destroy_id(ev->id, net->now);
}

/* Takes every MAD the nodes have to send into the network, and every event into the
 * nodes' lists (with the policy's answers, which may send more). */
static inline void h_pump(struct h_net *net)
{
	bool more = true;

	while (more) {
		more = false;
		for (int i = 0; i < net->n; i++) {
			struct h_node *nd = &net->node[i];
			struct uroce_cm_event ev;
			while (uroce_cm_get_event(nd->cm, &ev)) {
				more = true;
				assert_true(nd->nev < H_EVENTS);
				nd->at[nd->nev] = net->now;
				nd->ev[nd->nev++] = ev;
				if (!net->on_event || !net->on_event(net->ctx, nd, &ev))
					h_policy(net, nd, &ev);
			}
			struct uroce_cm_mad m;
			while (uroce_cm_next_mad(nd->cm, &m)) {
				more = true;
				uint16_t attr = get_be16(m.data + 16);
				if (attr < 0x20)
					nd->sent[attr]++;
				assert_true(uroce_io_addr_equal(&m.local, &nd->addr));
				assert_int_equal(m.peer.ipv6, m.local.ipv6);
				if (nd->down)
					continue;
				struct uroce_impair_verdict v = {0};
				if (net->impaired)
					uroce_impair_apply(&net->im, m.data, sizeof(m.data), &v);
				if (v.drop) {
					net->lost++;
					continue;
				}
				struct uroce_io_pkt p = {.data = m.data, .len = sizeof(m.data),
							 .src = m.local, .dst = m.peer};
				uint64_t due = net->now + H_LATENCY_NS + v.delay_ns;
				assert_true(uroce_impair_hold_push(&net->hold, &p, due));
				if (v.dup)
					assert_true(uroce_impair_hold_push(&net->hold, &p, due));
			}
		}
	}
}

/* Delivers what is due now. */
static inline void h_deliver(struct h_net *net)
{
	uint8_t buf[UROCE_MAD_LEN];
	struct uroce_io_pkt p;
	uint64_t trunc = 0;

	for (;;) {
		p = (struct uroce_io_pkt){.data = buf, .cap = sizeof(buf)};
		if (!uroce_impair_hold_release(&net->hold, &p, 1, net->now, &trunc))
			break;
		int to = h_node_of(net, &p.dst);
		if (to < 0 || net->node[to].down)
			continue;
		struct uroce_cm_mad m = {.peer = p.src, .local = p.dst};
		memcpy(m.data, buf, sizeof(buf));
		net->node[to].rcvd++;
		net->delivered++;
		uroce_cm_recv(net->node[to].cm, &m, net->now);
		h_pump(net);
	}
}

/* The earliest thing to happen: a delivery or a CM deadline of a node that is up. */
static inline uint64_t h_next(const struct h_net *net)
{
	uint64_t t = uroce_impair_hold_next_due(&net->hold);
	for (int i = 0; i < net->n; i++) {
		uint64_t d = uroce_cm_next_deadline(net->node[i].cm);
		if (!net->node[i].down && d < t)
			t = d;
	}
	return t;
}

typedef bool (*h_until_fn)(struct h_net *net, void *arg);

/* Runs until done(net, arg) or virtual time passes `limit`; true when done. */
static inline bool h_run(struct h_net *net, uint64_t limit, h_until_fn done, void *arg)
{
	h_pump(net);
	for (;;) {
		if (done && done(net, arg))
			return true;
		uint64_t t = h_next(net);
		if (t == UINT64_MAX || t > limit) {
			if (net->now < limit && t > limit)
				net->now = limit;
			return done ? done(net, arg) : true;
		}
		if (t > net->now)
			net->now = t;
		for (int i = 0; i < net->n; i++)
			if (!net->node[i].down)
				uroce_cm_on_timer(net->node[i].cm, net->now);
		h_pump(net);
		h_deliver(net);
	}
}

/* Runs until nothing more happens (or `limit`). */
static inline void h_settle(struct h_net *net, uint64_t limit) { h_run(net, limit, NULL, NULL); }

/* The node's events of a type, and the last one. */
static inline int h_count(const struct h_node *nd, enum uroce_cm_event_type t)
{
	int c = 0;
	for (int i = 0; i < nd->nev; i++)
		c += nd->ev[i].type == t;
	return c;
}

static inline const struct uroce_cm_event *h_last(const struct h_node *nd,
						  enum uroce_cm_event_type t)
{
	for (int i = nd->nev - 1; i >= 0; i--)
		if (nd->ev[i].type == t)
			return &nd->ev[i];
	return NULL;
}

/* The ID a node's REQ_RECEIVED reported last, or NULL. */
static inline struct uroce_cm_id *h_accepted(const struct h_node *nd)
{
	const struct uroce_cm_event *ev = h_last(nd, UROCE_CM_EV_REQ_RECEIVED);
	return ev ? ev->id : NULL;
}

static inline uint64_t h_counter(const struct h_node *nd, enum uroce_cm_counter c)
{
	return uroce_cm_counters(nd->cm)->v[c];
}

/* Manual driving, for tests that look at single MADs: the next MAD node i sends (events
 * stay queued); a MAD some node sent, handed to node i as it arrives there (source and
 * destination swapped); a MAD the test made, with peer and local as received; node i's next
 * event. */
static inline bool h_take(struct h_net *net, int i, struct uroce_cm_mad *m)
{
	return uroce_cm_next_mad(net->node[i].cm, m) == 1;
}

static inline void h_inject(struct h_net *net, int i, const struct uroce_cm_mad *m)
{
	net->node[i].rcvd++;
	uroce_cm_recv(net->node[i].cm, m, net->now);
}

static inline void h_give(struct h_net *net, int i, const struct uroce_cm_mad *sent)
{
	struct uroce_cm_mad m = *sent;
	m.peer = sent->local;
	m.local = sent->peer;
	h_inject(net, i, &m);
}

static inline bool h_event(struct h_net *net, int i, struct uroce_cm_event *ev)
{
	return uroce_cm_get_event(net->node[i].cm, ev) == 1;
}

/* The attribute of a MAD's bytes, and a MAD's TID. */
static inline uint16_t h_attr(const struct uroce_cm_mad *m) { return get_be16(m->data + 16); }
static inline uint64_t h_tid(const struct uroce_cm_mad *m) { return get_be64(m->data + 8); }

/* Decodes a MAD the CM sent (it must be a CM message). */
static inline struct uroce_cm_msg h_decode(const struct uroce_cm_mad *m)
{
	struct uroce_cm_msg msg;
	assert_int_equal(uroce_cm_decode(&msg, h_attr(m), m->data + UROCE_MAD_HDR_LEN,
					 UROCE_CM_DATA_LEN), UROCE_CM_DATA_LEN);
	return msg;
}

/* Every received MAD counted once: handled or dropped for a named reason. */
static inline void h_check_accounting(const struct h_node *nd)
{
	const union uroce_cm_counters *c = uroce_cm_counters(nd->cm);
	uint64_t drops = 0;
	for (int i = 0; i < UROCE_CM_NCOUNTERS; i++)
		if (!strncmp(uroce_cm_counter_name((enum uroce_cm_counter)i), "drop_", 5))
			drops += c->v[i];
	assert_int_equal(c->rx_mads, c->rx_handled + drops);
	assert_int_equal(c->rx_mads, nd->rcvd);
}

#endif

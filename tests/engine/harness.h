/* SPDX-License-Identifier: MIT */
/* Engines on the simulated fabric for the engine tests: nodes (a device, a PD, a CQ and an
 * endpoint each), a loop that drives virtual time (the docs/sim.md loop: the earliest of
 * the fabric's next event and every engine's deadline), QPs brought to RTS in pairs, and
 * registered buffers. Header-only (static inline) so that every test program stays one
 * file. Only virtual time: nothing here reads a clock. */
#ifndef UROCE_TEST_ENGINE_HARNESS_H
#define UROCE_TEST_ENGINE_HARNESS_H

#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "engine/engine.h"
#include "io/sim.h"
#include "wire/packet.h"

#define H_MAX_NODES 17
#define H_BATCH 32
#define H_CQ_DEPTH 4096

/* Called for every packet a node sends, before the fabric sees it. */
typedef void (*h_tap_fn)(void *ctx, int node, const uint8_t *data, size_t len, uint64_t now);

struct h_node {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_io *io;
	struct uroce_io_addr addr;
};

struct h_net {
	struct uroce_sim *sim;
	struct h_node node[H_MAX_NODES];
	int n;
	struct uroce_io_pkt pkts[H_BATCH];
	uint8_t *buf; /* H_BATCH buffers of UROCE_MAX_DATAGRAM bytes */
	h_tap_fn tap;
	void *tap_ctx;
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

/* n engines, fully meshed: the link from node i to node j uses `up` when i < j and `down`
 * when i > j (NULL: 1 us latency, no impairment), so a test can impair one direction; node
 * i's congestion control is cc[i] (cc NULL: none). */
static inline struct h_net *h_net_new_cc(uint64_t seed, int n, bool ipv6,
					 const struct uroce_sim_link_cfg *up,
					 const struct uroce_sim_link_cfg *down,
					 const struct uroce_cc_cfg *cc)
{
	struct uroce_sim_cfg scfg = {.pool_pkts = 8192, .max_pkt = UROCE_MAX_DATAGRAM};
	struct uroce_sim_link_cfg ideal = {.latency_ns = 1000};
	struct h_net *net = calloc(1, sizeof(*net));

	assert_non_null(net);
	net->n = n;
	net->sim = uroce_sim_new(seed, &scfg);
	assert_non_null(net->sim);
	net->buf = malloc((size_t)H_BATCH * UROCE_MAX_DATAGRAM);
	assert_non_null(net->buf);
	for (int i = 0; i < n; i++) {
		struct h_node *nd = &net->node[i];
		struct uroce_dev_cfg dcfg = {.ngids = 1};
		if (cc)
			dcfg.cc = cc[i];
		nd->addr = h_addr(i, ipv6);
		dcfg.gid[0] = nd->addr;
		assert_int_equal(uroce_sim_add_endpoint(net->sim, &nd->addr, 4096), i);
		nd->io = uroce_sim_io(net->sim, i);
		assert_int_equal(uroce_dev_new(&dcfg, &nd->dev), 0);
		assert_int_equal(uroce_pd_alloc(nd->dev, &nd->pd), 0);
		assert_int_equal(uroce_cq_create(nd->dev, H_CQ_DEPTH, &nd->cq), 0);
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			const struct uroce_sim_link_cfg *cfg = i < j ? up : down;
			if (i != j)
				assert_true(uroce_sim_connect(net->sim, i, j, cfg ? cfg : &ideal) >= 0);
		}
	return net;
}

static inline struct h_net *h_net_new_dir(uint64_t seed, int n, bool ipv6,
					  const struct uroce_sim_link_cfg *up,
					  const struct uroce_sim_link_cfg *down)
{
	return h_net_new_cc(seed, n, ipv6, up, down, NULL);
}

/* The same with one link configuration in both directions. */
static inline struct h_net *h_net_new(uint64_t seed, int n, bool ipv6,
				      const struct uroce_sim_link_cfg *cfg)
{
	return h_net_new_dir(seed, n, ipv6, cfg, cfg);
}

static inline void h_net_free(struct h_net *net)
{
	for (int i = 0; i < net->n; i++)
		uroce_dev_free(net->node[i].dev);
	uroce_sim_free(net->sim);
	free(net->buf);
	free(net);
}

/* Points the first n packets of the batch at their buffers, for a receive or a write. */
static inline void h_batch_reset(struct h_net *net, int n)
{
	for (int k = 0; k < n; k++) {
		net->pkts[k].data = net->buf + (size_t)k * UROCE_MAX_DATAGRAM;
		net->pkts[k].cap = UROCE_MAX_DATAGRAM;
	}
}

/* Hands node i's engine every datagram the fabric has delivered to it by now. */
static inline void h_recv_all(struct h_net *net, int i, uint64_t now)
{
	struct h_node *nd = &net->node[i];
	int got;

	do {
		h_batch_reset(net, H_BATCH);
		got = uroce_io_recv(nd->io, net->pkts, H_BATCH);
		for (int k = 0; k < got; k++)
			uroce_dev_recv(nd->dev, &net->pkts[k], now);
	} while (got == H_BATCH);
}

/* Receives everything due, runs the timers and sends everything the engine has. */
static inline void h_pump(struct h_net *net, int i, uint64_t now)
{
	struct h_node *nd = &net->node[i];

	h_recv_all(net, i, now);
	uroce_dev_on_timer(nd->dev, now);
	for (;;) {
		struct uroce_txbatch tx = {.pkts = net->pkts, .max = H_BATCH};
		h_batch_reset(net, H_BATCH);
		size_t n = uroce_dev_write(nd->dev, &tx, now);
		if (!n)
			break;
		if (net->tap)
			for (size_t k = 0; k < n; k++)
				net->tap(net->tap_ctx, i, net->pkts[k].data, net->pkts[k].len, now);
		assert_int_equal(uroce_io_send(nd->io, net->pkts, n), (int)n);
	}
	uroce_dev_publish(nd->dev); /* everything written is on the fabric */
}

/* Runs until nothing is pending or virtual time would pass `until`; returns the time. */
static inline uint64_t h_run(struct h_net *net, uint64_t until)
{
	for (;;) {
		uint64_t now = uroce_sim_now(net->sim), t;
		for (int i = 0; i < net->n; i++)
			h_pump(net, i, now);
		t = uroce_sim_next_event_time(net->sim);
		for (int i = 0; i < net->n; i++) {
			uint64_t d = uroce_dev_next_deadline(net->node[i].dev);
			if (d < t)
				t = d;
		}
		if (t == UROCE_SIM_NEVER || t > until)
			return now;
		uroce_sim_run_until(net->sim, t);
	}
}

/* ---- QPs ---- */

struct h_qp_opts {
	enum uroce_qp_type type;
	enum uroce_mtu mtu;         /* 0: 1024 */
	uint32_t psn[2];            /* initial send PSN of each side */
	uint8_t timeout;            /* 0 here means 10 (4 ms); H_NO_TIMEOUT disables */
	uint8_t retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic;      /* 0: 16 */
	uint8_t max_dest_rd_atomic; /* 0: 16; H_NO_RD_ATOMIC: none */
	unsigned access;            /* 0: remote write, read and atomic */
	uint32_t max_send_wr, max_recv_wr; /* 0: 256 */
	struct uroce_srq *srq[2];
	bool sq_sig_all;
};

#define H_NO_TIMEOUT 0xFF
#define H_NO_RD_ATOMIC 0xFF

static inline struct uroce_qp *h_qp_create(struct h_net *net, int i, const struct h_qp_opts *o,
					   struct uroce_srq *srq)
{
	struct h_node *nd = &net->node[i];
	struct uroce_qp_init_attr init = {
		.send_cq = nd->cq, .recv_cq = nd->cq, .srq = srq, .qp_type = o->type,
		.sq_sig_all = o->sq_sig_all,
		.cap = {.max_send_wr = o->max_send_wr ? o->max_send_wr : 256,
			.max_recv_wr = o->max_recv_wr ? o->max_recv_wr : 256,
			.max_send_sge = 4, .max_recv_sge = 4, .max_inline_data = 256},
	};
	struct uroce_qp *qp;
	assert_int_equal(uroce_qp_create(nd->pd, &init, &qp), 0);
	return qp;
}

/* Takes qp (on node i) from RESET to RTS, connected to the QP `peer_qpn` on node j (for UD
 * both are ignored). */
static inline void h_qp_rts(struct h_net *net, struct uroce_qp *qp, int i, int j,
			    uint32_t peer_qpn, const struct h_qp_opts *o, uint32_t sq_psn,
			    uint32_t rq_psn)
{
	struct uroce_qp_attr a = {0};
	unsigned conn = o->type != UROCE_QPT_UD;
	(void)i;

	a.qp_state = UROCE_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = o->access ? o->access
				      : UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_READ |
						UROCE_ACCESS_REMOTE_ATOMIC;
	assert_int_equal(uroce_qp_modify(qp, &a,
					 UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX | UROCE_QPA_PORT |
						 (conn ? UROCE_QPA_ACCESS_FLAGS : UROCE_QPA_QKEY)),
			 0);
	a.qp_state = UROCE_QPS_RTR;
	a.path_mtu = o->mtu ? o->mtu : UROCE_MTU_1024;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = o->max_dest_rd_atomic == H_NO_RD_ATOMIC ? 0
			       : o->max_dest_rd_atomic ? o->max_dest_rd_atomic
							: UROCE_MAX_RD_ATOMIC;
	a.min_rnr_timer = o->min_rnr_timer;
	a.ah_attr.dgid = net->node[j].addr;
	a.ah_attr.port_num = 1;
	a.ah_attr.hop_limit = 64;
	unsigned rtr = UROCE_QPA_STATE;
	if (o->type == UROCE_QPT_RC)
		rtr |= UROCE_QPA_AV | UROCE_QPA_PATH_MTU | UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN |
		       UROCE_QPA_MAX_DEST_RD_ATOMIC | UROCE_QPA_MIN_RNR_TIMER;
	else if (o->type == UROCE_QPT_UC)
		rtr |= UROCE_QPA_AV | UROCE_QPA_PATH_MTU | UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN;
	assert_int_equal(uroce_qp_modify(qp, &a, rtr), 0);
	a.qp_state = UROCE_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = o->timeout == H_NO_TIMEOUT ? 0 : o->timeout ? o->timeout : 10;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->max_rd_atomic ? o->max_rd_atomic : UROCE_MAX_RD_ATOMIC;
	unsigned rts = UROCE_QPA_STATE | UROCE_QPA_SQ_PSN;
	if (o->type == UROCE_QPT_RC)
		rts |= UROCE_QPA_TIMEOUT | UROCE_QPA_RETRY_CNT | UROCE_QPA_RNR_RETRY |
		       UROCE_QPA_MAX_QP_RD_ATOMIC;
	assert_int_equal(uroce_qp_modify(qp, &a, rts), 0);
	assert_int_equal(uroce_qp_state(qp), UROCE_QPS_RTS);
}

/* A connected pair: qp[0] on node a, qp[1] on node b. */
static inline void h_qp_pair(struct h_net *net, int a, int b, const struct h_qp_opts *o,
			     struct uroce_qp *qp[2])
{
	qp[0] = h_qp_create(net, a, o, o->srq[0]);
	qp[1] = h_qp_create(net, b, o, o->srq[1]);
	h_qp_rts(net, qp[0], a, b, uroce_qp_num(qp[1]), o, o->psn[0], o->psn[1]);
	h_qp_rts(net, qp[1], b, a, uroce_qp_num(qp[0]), o, o->psn[1], o->psn[0]);
}

/* ---- memory ---- */

struct h_buf {
	uint8_t *p;
	size_t len;
	struct uroce_mr *mr;
};

#define H_ALL_ACCESS (UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE | \
		      UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC)

/* len bytes (8-byte aligned, filled with a pattern from seed) registered at iova = host
 * address. */
static inline struct h_buf h_buf_new(struct h_net *net, int i, size_t len, unsigned access,
				     uint32_t seed)
{
	struct h_buf b = {.len = len};
	b.p = aligned_alloc(64, (len + 63) / 64 * 64 + 64);
	assert_non_null(b.p);
	for (size_t k = 0; k < len; k++)
		b.p[k] = (uint8_t)(seed * 131 + k * 7 + (k >> 8) * 3);
	assert_int_equal(uroce_mr_reg(net->node[i].pd, b.p, len, (uint64_t)(uintptr_t)b.p, access,
				      &b.mr),
			 0);
	return b;
}

static inline void h_buf_free(struct h_buf *b)
{
	uroce_mr_dereg(b->mr);
	free(b->p);
}

static inline uint64_t h_va(const struct h_buf *b, size_t off)
{
	return (uint64_t)(uintptr_t)b->p + off;
}

static inline struct uroce_sge h_sge(const struct h_buf *b, size_t off, uint32_t len)
{
	return (struct uroce_sge){.addr = h_va(b, off), .length = len, .lkey = uroce_mr_lkey(b->mr)};
}

/* Posts one send WR with one SGE (or none when len is 0). */
static inline void h_post_send(struct uroce_qp *qp, enum uroce_wr_opcode op, uint64_t wr_id,
			       const struct h_buf *b, size_t off, uint32_t len, uint64_t raddr,
			       uint32_t rkey, unsigned flags)
{
	struct uroce_sge sge = b ? h_sge(b, off, len) : (struct uroce_sge){0};
	struct uroce_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = b ? 1 : 0,
				   .opcode = op, .send_flags = flags | UROCE_SEND_SIGNALED,
				   .imm_data = (uint32_t)wr_id * 0x01010101u};
	const struct uroce_send_wr *bad;
	if (op == UROCE_WR_ATOMIC_CMP_AND_SWP || op == UROCE_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	assert_int_equal(uroce_post_send(qp, &wr, &bad), 0);
}

static inline void h_post_recv(struct uroce_qp *qp, uint64_t wr_id, const struct h_buf *b,
			       size_t off, uint32_t len)
{
	struct uroce_sge sge = h_sge(b, off, len);
	struct uroce_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1};
	const struct uroce_recv_wr *bad;
	assert_int_equal(uroce_post_recv(qp, &wr, &bad), 0);
}

/* Takes exactly one completion from the node's CQ. */
static inline struct uroce_wc h_poll1(struct h_net *net, int i)
{
	struct uroce_wc wc;
	int n = uroce_cq_poll(net->node[i].cq, &wc, 1);
	if (n != 1)
		fail_msg("node %d: expected a completion, poll returned %d", i, n);
	return wc;
}

static inline void h_expect_empty(struct h_net *net, int i)
{
	struct uroce_wc wc;
	int n = uroce_cq_poll(net->node[i].cq, &wc, 1);
	if (n)
		fail_msg("node %d: unexpected completion wr_id %" PRIu64 " status %s", i, wc.wr_id,
			 uroce_wc_status_name(wc.status));
}

static inline void h_expect_wc(const struct uroce_wc *wc, uint64_t wr_id,
			       enum uroce_wc_status status, enum uroce_wc_opcode op)
{
	if (wc->wr_id != wr_id || wc->status != status || wc->opcode != op)
		fail_msg("completion wr_id %" PRIu64 " status %s opcode %d, expected wr_id %" PRIu64
			 " status %s opcode %d",
			 wc->wr_id, uroce_wc_status_name(wc->status), wc->opcode, wr_id,
			 uroce_wc_status_name(status), op);
}

static inline uint64_t h_counter(const struct uroce_dev *dev, enum uroce_counter c)
{
	return uroce_dev_counters(dev)->v[c];
}

/* Prints the nonzero counters of a device (under cmocka's message stream). */
static inline void h_print_counters(const char *what, const struct uroce_dev *dev)
{
	for (enum uroce_counter c = 0; c < UROCE_NCOUNTERS; c++)
		if (uroce_dev_counters(dev)->v[c])
			print_message("%s %-24s %" PRIu64 "\n", what, uroce_counter_name(c),
				      uroce_dev_counters(dev)->v[c]);
}

/* ---- a tap that keeps a summary of every packet sent ---- */

struct h_rec {
	int node;
	uint64_t now;
	uint8_t opcode;
	bool ackreq, se;
	uint8_t padcnt;
	uint32_t psn, destqp;
	uint32_t payload_len;
	struct uroce_ext ext;
	bool icrc_ok;
	uint16_t sport;
};

struct h_log {
	struct h_rec *rec;
	size_t n, cap;
};

static inline void h_log_tap(void *ctx, int node, const uint8_t *data, size_t len, uint64_t now)
{
	struct h_log *log = ctx;
	struct uroce_pkt pkt;
	assert_int_equal(uroce_pkt_dissect(&pkt, UROCE_LINK_IP, data, len), 0);
	assert_int_equal(pkt.encap, UROCE_ENCAP_ROCEV2);
	if (log->n == log->cap) {
		log->cap = log->cap ? log->cap * 2 : 1024;
		log->rec = realloc(log->rec, log->cap * sizeof(*log->rec));
		assert_non_null(log->rec);
	}
	log->rec[log->n++] = (struct h_rec){
		.node = node, .now = now, .opcode = pkt.bth.opcode, .ackreq = pkt.bth.ackreq,
		.se = pkt.bth.se, .padcnt = pkt.bth.padcnt, .psn = pkt.bth.psn,
		.destqp = pkt.bth.destqp, .payload_len = (uint32_t)pkt.payload_len, .ext = pkt.ext,
		.icrc_ok = uroce_pkt_icrc_check(&pkt, NULL) == UROCE_CRC_OK, .sport = pkt.udp.sport};
}

static inline void h_log_start(struct h_net *net, struct h_log *log)
{
	log->n = 0;
	net->tap = h_log_tap;
	net->tap_ctx = log;
}

static inline void h_log_free(struct h_net *net, struct h_log *log)
{
	net->tap = NULL;
	free(log->rec);
	log->rec = NULL;
	log->n = log->cap = 0;
}

#endif

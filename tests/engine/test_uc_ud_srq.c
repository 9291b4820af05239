/* SPDX-License-Identifier: MIT */
/* UC (IBA 9.8: no acknowledgements; a lost packet discards its whole message, and the
 * receive WQE is used again), UD (one packet per message, the Q_Key check and its
 * controlled-key rule of 10.2.4, the 40-byte network-header area of Annex A17.4.5.2, the
 * MTU limit, the SQE state) and shared receive queues (10.2.9, with the limit event). */
#include "inject.h"

#include "engine/priv.h"

/* UC SEND, WRITE and WRITE with immediate of several packets: completed when sent, nothing
 * comes back, AckReq never set. */
static void test_IBA9_8_uc_basic(void **state)
{
	struct h_net *net = h_net_new(1, 2, false, NULL);
	struct h_qp_opts o = {.type = UROCE_QPT_UC, .mtu = UROCE_MTU_512};
	struct uroce_qp *qp[2];
	struct h_log log = {0};
	(void)state;

	h_qp_pair(net, 0, 1, &o, qp);
	h_log_start(net, &log);
	struct h_buf a = h_buf_new(net, 0, 8192, H_ALL_ACCESS, 1);
	struct h_buf b = h_buf_new(net, 1, 8192, H_ALL_ACCESS, 2);
	struct h_buf r = h_buf_new(net, 1, 8192, H_ALL_ACCESS, 3);
	h_post_recv(qp[1], 1, &r, 0, 4096);
	h_post_recv(qp[1], 2, &r, 4096, 16);
	h_post_send(qp[0], UROCE_WR_SEND_WITH_IMM, 10, &a, 0, 2000, 0, 0, 0);
	h_post_send(qp[0], UROCE_WR_RDMA_WRITE, 11, &a, 100, 1500, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_post_send(qp[0], UROCE_WR_RDMA_WRITE_WITH_IMM, 12, &a, 200, 1100, h_va(&b, 3000),
		    uroce_mr_rkey(b.mr), 0);
	h_run(net, UINT64_MAX);
	for (uint64_t id = 10; id <= 12; id++) {
		struct uroce_wc wc = h_poll1(net, 0);
		h_expect_wc(&wc, id, UROCE_WC_SUCCESS, id == 10 ? UROCE_WC_SEND : UROCE_WC_RDMA_WRITE);
	}
	struct uroce_wc wc = h_poll1(net, 1);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 2000);
	assert_int_equal(wc.imm_data, 0x0A0A0A0Au);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc.byte_len, 1100);
	assert_memory_equal(r.p, a.p, 2000);
	assert_memory_equal(b.p, a.p + 100, 1500);
	assert_memory_equal(b.p + 3000, a.p + 200, 1100);
	for (size_t i = 0; i < log.n; i++) {
		assert_int_equal(log.rec[i].node, 0);
		assert_false(log.rec[i].ackreq);
		assert_int_equal(log.rec[i].opcode & 0xE0, UROCE_TP_UC);
	}
	assert_int_equal(log.n, 4 + 3 + 3);
	h_log_free(net, &log);
	h_buf_free(&a);
	h_buf_free(&b);
	h_buf_free(&r);
	h_net_free(net);
}

/* IBA 9.8.3: over a lossy link, a UC message that lost a packet is discarded whole; every
 * message that completes is intact, and a WQE whose message was cut is used for the next. */
static void test_IBA9_8_uc_gap_discards_message(void **state)
{
	struct uroce_sim_link_cfg link = {.latency_ns = 1000, .impair = {.loss = 0.05, .seed = 4}};
	struct h_net *net = h_net_new(4, 2, false, &link);
	struct h_qp_opts o = {.type = UROCE_QPT_UC, .mtu = UROCE_MTU_256};
	struct uroce_qp *qp[2];
	const int n = 100;
	const uint32_t len = 1000; /* 4 packets */
	(void)state;

	h_qp_pair(net, 0, 1, &o, qp);
	struct h_buf a = h_buf_new(net, 0, (size_t)n * len, H_ALL_ACCESS, 1);
	struct h_buf r = h_buf_new(net, 1, (size_t)n * len, H_ALL_ACCESS, 2);
	for (int m = 0; m < n; m++) {
		a.p[(size_t)m * len] = (uint8_t)m; /* the message's number in its first byte */
		h_post_recv(qp[1], (uint64_t)m, &r, (size_t)m * len, len);
	}
	for (int m = 0; m < n; m++)
		h_post_send(qp[0], UROCE_WR_SEND, (uint64_t)m, &a, (size_t)m * len, len, 0, 0, 0);
	h_run(net, UINT64_MAX);
	for (int m = 0; m < n; m++) {
		struct uroce_wc wc = h_poll1(net, 0);
		h_expect_wc(&wc, (uint64_t)m, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	}
	int got = 0, last = -1;
	struct uroce_wc wc;
	while (uroce_cq_poll(net->node[1].cq, &wc, 1) == 1) {
		assert_int_equal(wc.status, UROCE_WC_SUCCESS);
		assert_int_equal(wc.wr_id, (uint64_t)got); /* WQEs in order, none skipped */
		assert_int_equal(wc.byte_len, len);
		const uint8_t *p = r.p + (size_t)got * len;
		int m = p[0];
		assert_true(m > last);
		assert_memory_equal(p, a.p + (size_t)m * len, len);
		last = m;
		got++;
	}
	assert_true(got > n / 2 && got < n);
	assert_true(h_counter(net->node[1].dev, UROCE_CNT_drop_uc_gap) > 0);
	h_buf_free(&a);
	h_buf_free(&r);
	h_net_free(net);
}

static void ud_send(struct uroce_qp *qp, struct uroce_ah *ah, uint64_t id, const struct h_buf *b,
		    uint32_t len, uint32_t qpn, uint32_t qkey, bool imm)
{
	struct uroce_sge sge = h_sge(b, 0, len);
	struct uroce_send_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = len ? 1 : 0,
				   .opcode = imm ? UROCE_WR_SEND_WITH_IMM : UROCE_WR_SEND,
				   .send_flags = UROCE_SEND_SIGNALED, .imm_data = 0xABCD,
				   .wr.ud = {.ah = ah, .remote_qpn = qpn, .remote_qkey = qkey}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(qp, &wr, &bad), 0);
}

/* An AH on node 0 for node 1. */
static struct uroce_ah *ud_ah(struct h_net *net, uint8_t hop_limit)
{
	struct uroce_ah_attr aa = {.dgid = net->node[1].addr, .port_num = 1, .hop_limit = hop_limit};
	struct uroce_ah *ah;

	assert_int_equal(uroce_ah_create(net->node[0].pd, &aa, &ah), 0);
	return ah;
}

/* Two nodes with a UD QP each (Q_Key 0x11111111), a source buffer a on node 0, a receive
 * buffer r on node 1, an AH from 0 to 1, and a log of every packet sent. */
struct ud_pair {
	struct h_net *net;
	struct uroce_qp *qp[2];
	struct h_buf a, r;
	struct uroce_ah *ah;
	struct h_log log;
};

static void ud_pair_new(struct ud_pair *u, uint64_t seed, bool ipv6, size_t alen, size_t rlen,
			uint8_t hop_limit)
{
	struct h_qp_opts o = {.type = UROCE_QPT_UD};

	memset(u, 0, sizeof(*u));
	u->net = h_net_new(seed, 2, ipv6, NULL);
	h_qp_pair(u->net, 0, 1, &o, u->qp);
	h_log_start(u->net, &u->log);
	u->a = h_buf_new(u->net, 0, alen, H_ALL_ACCESS, 1);
	u->r = h_buf_new(u->net, 1, rlen, H_ALL_ACCESS, 2);
	u->ah = ud_ah(u->net, hop_limit);
}

static void ud_pair_free(struct ud_pair *u)
{
	uroce_ah_destroy(u->ah);
	h_log_free(u->net, &u->log);
	h_buf_free(&u->a);
	h_buf_free(&u->r);
	h_net_free(u->net);
}

/* UD: the receive buffer starts with the 40-byte network-header area, the IPv4 header in
 * its last 20 bytes (Annex A17.4.5.2) or the whole IPv6 header; byte_len counts it; the
 * completion has GRH, the source QP, the immediate data and which of the two headers it is
 * (A17.4.5.1). */
static void test_A17_4_5_2_ud_grh_area(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct ud_pair u;
		ud_pair_new(&u, 2, v6, 4096, 8192, 9);
		struct h_net *net = u.net;
		struct uroce_qp **qp = u.qp;
		struct h_buf *a = &u.a, *r = &u.r;
		struct uroce_ah *ah = u.ah;
		memset(r->p, 0xEE, 8192);
		h_post_recv(qp[1], 1, r, 0, 4096 + 40);
		h_post_recv(qp[1], 2, r, 5000, 100);
		ud_send(qp[0], ah, 7, a, 4096, uroce_qp_num(qp[1]), 0x11111111, true);
		ud_send(qp[0], ah, 8, a, 0, uroce_qp_num(qp[1]), 0x11111111, false);
		h_run(net, UINT64_MAX);
		struct uroce_wc wc = h_poll1(net, 0);
		h_expect_wc(&wc, 7, UROCE_WC_SUCCESS, UROCE_WC_SEND);
		wc = h_poll1(net, 0);
		h_expect_wc(&wc, 8, UROCE_WC_SUCCESS, UROCE_WC_SEND);
		wc = h_poll1(net, 1);
		h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
		assert_int_equal(wc.byte_len, 40 + 4096);
		assert_int_equal(wc.wc_flags, UROCE_WC_F_GRH | UROCE_WC_F_WITH_IMM);
		assert_int_equal(wc.imm_data, 0xABCD);
		assert_int_equal(wc.src_qp, uroce_qp_num(qp[0]));
		assert_int_equal(wc.ipv6, v6);
		if (v6) {
			assert_int_equal(r->p[0] >> 4, 6);
			assert_int_equal(r->p[7], 9); /* hop limit */
			assert_memory_equal(r->p + 8, net->node[0].addr.ip, 16);
			assert_memory_equal(r->p + 24, net->node[1].addr.ip, 16);
		} else {
			static const uint8_t zero[20];
			assert_memory_equal(r->p, zero, 20);
			assert_int_equal(r->p[20], 0x45);
			assert_int_equal(r->p[28], 9); /* TTL */
			assert_memory_equal(r->p + 32, net->node[0].addr.ip, 4);
			assert_memory_equal(r->p + 36, net->node[1].addr.ip, 4);
		}
		assert_memory_equal(r->p + 40, a->p, 4096);
		assert_int_equal(r->p[40 + 4096], 0xEE);
		wc = h_poll1(net, 1);
		h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RECV);
		assert_int_equal(wc.byte_len, 40);
		ud_pair_free(&u);
	}
}

/* IBA 10.2.4: the DETH Q_Key must equal the receiving QP's (else a silent drop); a WR Q_Key
 * with the high bit set means "the QP's own" (an unprivileged consumer cannot send a
 * controlled key). No receive WQE: a silent drop too (UD has no RNR). */
static void test_IBA10_2_4_ud_qkey(void **state)
{
	struct ud_pair u;
	(void)state;

	ud_pair_new(&u, 2, false, 64, 1024, 0);
	struct h_net *net = u.net;
	struct uroce_qp **qp = u.qp;
	struct h_buf *a = &u.a, *r = &u.r;
	struct uroce_ah *ah = u.ah;
	struct h_log *log = &u.log;
	h_post_recv(qp[1], 1, r, 0, 512);
	ud_send(qp[0], ah, 1, a, 8, uroce_qp_num(qp[1]), 0x22222222, false); /* wrong key */
	ud_send(qp[0], ah, 2, a, 8, uroce_qp_num(qp[1]), 0x80000000, false); /* the QP's own */
	ud_send(qp[0], ah, 3, a, 8, uroce_qp_num(qp[1]), 0x11111111, false); /* no WQE left */
	h_run(net, UINT64_MAX);
	for (uint64_t id = 1; id <= 3; id++) {
		struct uroce_wc wc = h_poll1(net, 0);
		h_expect_wc(&wc, id, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	}
	assert_int_equal(log->rec[1].ext.deth.qkey, 0x11111111);
	assert_int_equal(log->rec[1].ext.deth.srcqp, uroce_qp_num(qp[0]));
	struct uroce_wc wc = h_poll1(net, 1);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	h_expect_empty(net, 1);
	assert_int_equal(h_counter(net->node[1].dev, UROCE_CNT_drop_bad_qkey), 1);
	assert_int_equal(h_counter(net->node[1].dev, UROCE_CNT_drop_no_recv_wqe), 1);
	ud_pair_free(&u);
}

/* UD messages are one packet. One longer than the port's MTU: C10-93.1.1 of the base
 * specification, as Linux rxe quotes it (rxe_req.c; the text itself is not at hand): "the
 * CI shall not emit any packets for this message. Further, the CI shall not generate an
 * error due to this condition." So it completes successfully with nothing on the wire,
 * counted under ud_send_too_long, and the QP goes on in RTS; a message of exactly the MTU
 * is sent. Inline data is no exception: at a port MTU of 256, 300 inline bytes (a post
 * accepts up to the QP's max_inline_data, whatever the MTU) send nothing either. */
static void test_C10_93_1_1_ud_longer_than_mtu_sends_nothing(void **state)
{
	struct ud_pair u;
	(void)state;

	ud_pair_new(&u, 2, false, 8192, 8192, 0);
	struct uroce_qp **qp = u.qp;
	h_post_recv(qp[1], 5, &u.r, 0, 40 + 4096);
	ud_send(qp[0], u.ah, 1, &u.a, 4097, uroce_qp_num(qp[1]), 0x11111111, false);
	ud_send(qp[0], u.ah, 2, &u.a, 4096, uroce_qp_num(qp[1]), 0x11111111, false);
	h_run(u.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(u.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(u.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(u.net, 1);
	h_expect_wc(&wc, 5, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 40 + 4096);
	h_expect_empty(u.net, 1);
	assert_int_equal(u.log.n, 1);
	assert_int_equal(u.log.rec[0].payload_len, 4096);
	assert_int_equal(uroce_qp_state(qp[0]), UROCE_QPS_RTS);
	assert_int_equal(h_counter(u.net->node[0].dev, UROCE_CNT_ud_send_too_long), 1);
	assert_int_equal(uroce_qp_counters(qp[0])->ud_send_too_long, 1);
	assert_int_equal(h_counter(u.net->node[0].dev, UROCE_CNT_sent_pkts), 1);
	ud_pair_free(&u);

	/* Inline, at a port MTU of 256. */
	struct inj_opts o = {.type = UROCE_QPT_UD, .mtu = UROCE_MTU_256};
	struct inj *t = inj_new(&o);
	struct uroce_qp_init_attr init = {.send_cq = t->cq, .recv_cq = t->cq, .qp_type = UROCE_QPT_UD,
					  .cap = {.max_send_wr = 4, .max_recv_wr = 1, .max_send_sge = 1,
						  .max_recv_sge = 1, .max_inline_data = 512}};
	struct uroce_qp *q;
	assert_int_equal(uroce_qp_create(t->pd, &init, &q), 0);
	struct h_net net = {0};
	struct h_qp_opts ho = {.type = UROCE_QPT_UD};
	h_qp_rts(&net, q, 1, 0, 0, &ho, 0, 0);
	struct uroce_ah_attr aa = {.dgid = t->peer, .port_num = 1, .hop_limit = 64};
	struct uroce_ah *ah;
	assert_int_equal(uroce_ah_create(t->pd, &aa, &ah), 0);
	static uint8_t bytes[300];
	for (uint32_t k = 0; k < 2; k++) {
		uint32_t len = k ? 256 : 300;
		struct uroce_sge sge = {.addr = (uintptr_t)bytes, .length = len};
		struct uroce_send_wr wr = {.wr_id = 10 + k, .sg_list = &sge, .num_sge = 1,
					   .opcode = UROCE_WR_SEND,
					   .send_flags = UROCE_SEND_SIGNALED | UROCE_SEND_INLINE,
					   .wr.ud = {.ah = ah, .remote_qpn = INJ_PEER_QPN,
						     .remote_qkey = INJ_QKEY}};
		const struct uroce_send_wr *bad;
		assert_int_equal(uroce_post_send(q, &wr, &bad), 0);
		assert_int_equal(inj_out(t), k);
		if (k)
			assert_int_equal(t->o[0].payload_len, 256);
		assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
		h_expect_wc(&wc, 10 + k, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	}
	assert_int_equal(uroce_qp_counters(q)->ud_send_too_long, 1);
	uroce_ah_destroy(ah);
	inj_free(t);
}

/* A send error on a UD QP (here a bad L_Key: LOC_PROT_ERR) puts it in SQE (IBA 10.3.1),
 * whose queue flushes and from which SQE -> RTS recovers; a receive buffer too small for
 * 40 + length completes with LOC_LEN_ERR and leaves the receiving QP in RTS. */
static void test_IBA10_3_1_ud_send_error_and_sqe(void **state)
{
	struct ud_pair u;
	(void)state;

	ud_pair_new(&u, 2, false, 8192, 8192, 0);
	struct h_net *net = u.net;
	struct uroce_qp **qp = u.qp;
	struct h_buf *a = &u.a, *r = &u.r;
	struct uroce_ah *ah = u.ah;
	struct uroce_sge sge = h_sge(a, 0, 8);
	sge.lkey ^= 0x80; /* another key of the same slot: stale */
	struct uroce_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_SEND, .send_flags = UROCE_SEND_SIGNALED,
				   .wr.ud = {.ah = ah, .remote_qpn = uroce_qp_num(qp[1]),
					     .remote_qkey = 0x11111111}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(qp[0], &wr, &bad), 0);
	ud_send(qp[0], ah, 2, a, 8, uroce_qp_num(qp[1]), 0x11111111, false);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_LOC_PROT_ERR, UROCE_WC_SEND);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_SEND);
	assert_int_equal(uroce_qp_state(qp[0]), UROCE_QPS_SQE);
	assert_int_equal(u.log.n, 0);
	struct uroce_qp_attr at = {.qp_state = UROCE_QPS_RTS};
	assert_int_equal(uroce_qp_modify(qp[0], &at, UROCE_QPA_STATE), 0);
	h_post_recv(qp[1], 5, r, 0, 50);
	ud_send(qp[0], ah, 3, a, 100, uroce_qp_num(qp[1]), 0x11111111, false);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 3, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 5, UROCE_WC_LOC_LEN_ERR, UROCE_WC_RECV);
	assert_int_equal(uroce_qp_state(qp[1]), UROCE_QPS_RTS);
	ud_pair_free(&u);
}

/* IBA 10.2.9: two RC QPs share one SRQ; their receives take WQEs from it in arrival order;
 * the armed limit raises SRQ_LIMIT_REACHED once when fewer WQEs remain, then disarms; a QP
 * on an SRQ that enters ERR raises QP_LAST_WQE_REACHED and leaves the SRQ's WQEs alone. */
static void test_IBA10_2_9_srq(void **state)
{
	struct h_net *net = h_net_new(3, 2, false, NULL);
	struct uroce_srq *srq;
	struct uroce_srq_attr sa = {.max_wr = 8, .max_sge = 1, .srq_limit = 3};
	struct uroce_async_event ev;
	(void)state;

	assert_int_equal(uroce_srq_create(net->node[1].pd, &sa, &srq), 0);
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .srq = {NULL, srq}};
	struct uroce_qp *qa[2], *qb[2];
	h_qp_pair(net, 0, 1, &o, qa);
	h_qp_pair(net, 0, 1, &o, qb);
	struct h_buf a = h_buf_new(net, 0, 4096, H_ALL_ACCESS, 1);
	struct h_buf r = h_buf_new(net, 1, 8 * 256, H_ALL_ACCESS, 2);
	for (int i = 0; i < 6; i++) {
		struct uroce_sge sge = h_sge(&r, (size_t)i * 256, 256);
		struct uroce_recv_wr wr = {.wr_id = 100 + (uint64_t)i, .sg_list = &sge, .num_sge = 1};
		const struct uroce_recv_wr *bad;
		assert_int_equal(uroce_post_srq_recv(srq, &wr, &bad), 0);
	}
	/* Alternate senders; three WQEs used: 6 -> 3 left, not yet below the limit. */
	h_post_send(qa[0], UROCE_WR_SEND, 1, &a, 0, 10, 0, 0, 0);
	h_run(net, UINT64_MAX);
	h_post_send(qb[0], UROCE_WR_SEND, 2, &a, 10, 20, 0, 0, 0);
	h_run(net, UINT64_MAX);
	h_post_send(qa[0], UROCE_WR_SEND, 3, &a, 30, 30, 0, 0, 0);
	h_run(net, UINT64_MAX);
	assert_int_equal(uroce_dev_get_async_event(net->node[1].dev, &ev), 0);
	h_post_send(qb[0], UROCE_WR_SEND, 4, &a, 60, 40, 0, 0, 0);
	h_run(net, UINT64_MAX);
	assert_int_equal(uroce_dev_get_async_event(net->node[1].dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_SRQ_LIMIT_REACHED);
	assert_ptr_equal(ev.element.srq, srq);
	struct uroce_srq_attr q;
	uroce_srq_query(srq, &q);
	assert_int_equal(q.srq_limit, 0); /* disarmed */
	const uint32_t qpn[4] = {uroce_qp_num(qa[1]), uroce_qp_num(qb[1]), uroce_qp_num(qa[1]),
				 uroce_qp_num(qb[1])};
	const uint32_t lens[4] = {10, 20, 30, 40};
	for (int i = 0; i < 4; i++) {
		struct uroce_wc wc = h_poll1(net, 1);
		h_expect_wc(&wc, 100 + (uint64_t)i, UROCE_WC_SUCCESS, UROCE_WC_RECV);
		assert_int_equal(wc.qp_num, qpn[i]);
		assert_int_equal(wc.byte_len, lens[i]);
	}
	assert_memory_equal(r.p + 3 * 256, a.p + 60, 40);
	/* Re-arm: below 3 already (2 left)? The event waits for the next WQE taken. */
	sa.srq_limit = 2;
	assert_int_equal(uroce_srq_modify(srq, &sa, UROCE_SRQ_LIMIT), 0);
	assert_int_equal(uroce_srq_modify(srq, &sa, UROCE_SRQ_MAX_WR), UROCE_EINVAL);
	h_post_send(qa[0], UROCE_WR_SEND, 5, &a, 0, 1, 0, 0, 0);
	h_run(net, UINT64_MAX);
	assert_int_equal(uroce_dev_get_async_event(net->node[1].dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_SRQ_LIMIT_REACHED);
	/* qb[1] to ERR: QP_LAST_WQE_REACHED, and the SRQ keeps its last WQE for qa[1]. */
	struct uroce_qp_attr at = {.qp_state = UROCE_QPS_ERR};
	assert_int_equal(uroce_qp_modify(qb[1], &at, UROCE_QPA_STATE), 0);
	assert_int_equal(uroce_dev_get_async_event(net->node[1].dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, qb[1]);
	h_post_send(qa[0], UROCE_WR_SEND, 6, &a, 0, 1, 0, 0, 0);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 1);
	h_expect_wc(&wc, 104, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 105, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(uroce_srq_destroy(srq), UROCE_EBUSY);
	h_buf_free(&a);
	h_buf_free(&r);
	h_net_free(net);
}

/* UC and UD messages of 0, 1, MTU-1, MTU and MTU+1 bytes and 3 x MTU + 3 (UC), at the
 * smallest and the largest MTU: UC SEND, SEND_WITH_IMM, WRITE and WRITE_WITH_IMM segmented
 * into FIRST/MIDDLE/LAST of exactly the MTU (RETH on the first packet only, ImmDt on the
 * last, never AckReq), every byte delivered; UD SEND up to the port MTU into the buffer
 * after the 40-byte header area (UD MTU+1 is test_C10_93_1_1_ud_longer_than_mtu_sends_nothing). */
static void test_IBA9_8_uc_ud_message_sizes(void **state)
{
	static const enum uroce_mtu mtus[] = {UROCE_MTU_256, UROCE_MTU_4096};
	static const enum uroce_wr_opcode ops[] = {UROCE_WR_SEND, UROCE_WR_SEND_WITH_IMM,
						   UROCE_WR_RDMA_WRITE, UROCE_WR_RDMA_WRITE_WITH_IMM};
	(void)state;

	for (size_t m = 0; m < 2; m++) {
		struct h_net *net = h_net_new(11, 2, false, NULL);
		struct h_qp_opts o = {.type = UROCE_QPT_UC, .mtu = mtus[m]};
		uint32_t mtu = 128u << mtus[m];
		const uint32_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 3};
		struct uroce_qp *qp[2], *ud[2];
		struct h_log log = {0};
		h_qp_pair(net, 0, 1, &o, qp);
		struct h_buf a = h_buf_new(net, 0, 4 * 4096, H_ALL_ACCESS, 1);
		struct h_buf b = h_buf_new(net, 1, 4 * 4096 + 40, H_ALL_ACCESS, 2);
		h_log_start(net, &log);
		for (size_t op = 0; op < 4; op++)
			for (size_t k = 0; k < 6; k++) {
				uint64_t id = op * 16 + k;
				bool write = ops[op] == UROCE_WR_RDMA_WRITE ||
					     ops[op] == UROCE_WR_RDMA_WRITE_WITH_IMM;
				memset(b.p, 0xEE, b.len);
				log.n = 0;
				if (ops[op] != UROCE_WR_RDMA_WRITE)
					h_post_recv(qp[1], id, &b, 0, 4 * 4096);
				h_post_send(qp[0], ops[op], id, &a, k, sizes[k], h_va(&b, 0),
					    uroce_mr_rkey(b.mr), 0);
				h_run(net, UINT64_MAX);
				struct uroce_wc wc = h_poll1(net, 0);
				h_expect_wc(&wc, id, UROCE_WC_SUCCESS,
					    write ? UROCE_WC_RDMA_WRITE : UROCE_WC_SEND);
				if (ops[op] != UROCE_WR_RDMA_WRITE) {
					wc = h_poll1(net, 1);
					h_expect_wc(&wc, id, UROCE_WC_SUCCESS,
						    write ? UROCE_WC_RECV_RDMA_WITH_IMM : UROCE_WC_RECV);
					assert_int_equal(wc.byte_len, sizes[k]); /* WRITE: its length, as rxe */
				}
				h_expect_empty(net, 1);
				assert_memory_equal(b.p, a.p + k, sizes[k]);
				assert_int_equal(b.p[sizes[k]], 0xEE);
				uint32_t npkts = sizes[k] ? (sizes[k] + mtu - 1) / mtu : 1;
				assert_int_equal(log.n, npkts);
				for (size_t i = 0; i < log.n; i++) {
					const struct h_rec *r = &log.rec[i];
					bool last = i + 1 == log.n;
					assert_false(r->ackreq);
					assert_int_equal(r->payload_len, last ? sizes[k] - i * mtu : mtu);
					assert_int_equal(!!(r->ext.present & UROCE_EH_RETH), write && i == 0);
					assert_int_equal(!!(r->ext.present & UROCE_EH_IMMDT),
							 last && (ops[op] == UROCE_WR_SEND_WITH_IMM ||
								  ops[op] == UROCE_WR_RDMA_WRITE_WITH_IMM));
				}
			}
		/* UD at the port MTU (4096): 0, 1, MTU-1, MTU. */
		struct h_qp_opts u = {.type = UROCE_QPT_UD};
		h_qp_pair(net, 0, 1, &u, ud);
		struct uroce_ah *ah = ud_ah(net, 0);
		const uint32_t ud_sizes[] = {0, 1, 4095, 4096};
		for (size_t k = 0; k < 4; k++) {
			memset(b.p, 0xEE, b.len);
			h_post_recv(ud[1], 100 + k, &b, 0, 40 + 4096);
			ud_send(ud[0], ah, 100 + k, &a, ud_sizes[k], uroce_qp_num(ud[1]), 0x11111111, false);
			h_run(net, UINT64_MAX);
			struct uroce_wc wc = h_poll1(net, 0);
			h_expect_wc(&wc, 100 + k, UROCE_WC_SUCCESS, UROCE_WC_SEND);
			wc = h_poll1(net, 1);
			h_expect_wc(&wc, 100 + k, UROCE_WC_SUCCESS, UROCE_WC_RECV);
			assert_int_equal(wc.byte_len, 40 + ud_sizes[k]);
			assert_memory_equal(b.p + 40, a.p, ud_sizes[k]);
			if (ud_sizes[k] < 4096)
				assert_int_equal(b.p[40 + ud_sizes[k]], 0xEE);
		}
		uroce_ah_destroy(ah);
		h_log_free(net, &log);
		h_buf_free(&a);
		h_buf_free(&b);
		h_net_free(net);
	}
}

/* IBA 10.8 on UC: LOCAL_INV invalidates an MR of the QP's PD registered for it and
 * completes; a UC WRITE the peer then sends to the dead R_Key is discarded silently (UC has
 * no NAK, 9.8.3) and leaves the region untouched. */
static void test_IBA10_8_uc_local_invalidate(void **state)
{
	struct h_net *net = h_net_new(12, 2, false, NULL);
	struct h_qp_opts o = {.type = UROCE_QPT_UC};
	struct uroce_qp *qp[2];
	(void)state;

	h_qp_pair(net, 0, 1, &o, qp);
	struct h_buf a = h_buf_new(net, 0, 256, H_ALL_ACCESS, 1);
	struct h_buf t = h_buf_new(net, 1, 256, H_ALL_ACCESS | UROCE_ACCESS_INVALIDATE, 2);
	struct h_buf copy = h_buf_new(net, 1, 256, H_ALL_ACCESS, 2);
	struct uroce_send_wr inv = {.wr_id = 9, .opcode = UROCE_WR_LOCAL_INV,
				    .send_flags = UROCE_SEND_SIGNALED,
				    .invalidate_rkey = uroce_mr_rkey(t.mr)};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(qp[1], &inv, &bad), 0);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 1);
	h_expect_wc(&wc, 9, UROCE_WC_SUCCESS, UROCE_WC_LOCAL_INV);
	assert_false(uroce_mr_valid(t.mr));
	h_post_send(qp[0], UROCE_WR_RDMA_WRITE, 1, &a, 0, 100, h_va(&t, 0), uroce_mr_rkey(t.mr), 0);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE); /* sent is done, for UC */
	assert_memory_equal(t.p, copy.p, 256);
	assert_int_equal(uroce_qp_counters(qp[1])->v[UROCE_CNT_drop_uc_invalid], 1);
	assert_int_equal(uroce_qp_state(qp[1]), UROCE_QPS_RTS);
	h_buf_free(&a);
	h_buf_free(&t);
	h_buf_free(&copy);
	h_net_free(net);
}

/* IBA 9.7.5.2.8 with an SRQ: an RC QP whose SRQ is empty answers a SEND with RNR NAKs (no
 * sequence NAK, nothing lost) until a WQE is posted to the SRQ, then the resend lands; with
 * rnr_retry spent first, the requester completes with RNR_RETRY_EXC_ERR. */
static void test_IBA9_7_5_2_8_rnr_with_srq(void **state)
{
	struct h_net *net = h_net_new(13, 2, false, NULL);
	struct uroce_srq *srq;
	struct uroce_srq_attr sa = {.max_wr = 8, .max_sge = 1};
	(void)state;

	assert_int_equal(uroce_srq_create(net->node[1].pd, &sa, &srq), 0);
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .srq = {NULL, srq}, .rnr_retry = 7,
			      .min_rnr_timer = 1};
	struct h_qp_opts lim = o;
	lim.rnr_retry = 2;
	struct uroce_qp *qp[2], *qq[2];
	h_qp_pair(net, 0, 1, &o, qp);
	h_qp_pair(net, 0, 1, &lim, qq);
	struct h_buf a = h_buf_new(net, 0, 1024, H_ALL_ACCESS, 1);
	struct h_buf r = h_buf_new(net, 1, 1024, H_ALL_ACCESS, 2);

	h_post_send(qp[0], UROCE_WR_SEND, 1, &a, 0, 700, 0, 0, 0);
	h_run(net, 5000000); /* 5 ms: RNR NAK after RNR NAK, 10 us apart */
	h_expect_empty(net, 0);
	h_expect_empty(net, 1);
	uint64_t naks = uroce_qp_counters(qp[1])->v[UROCE_CNT_send_rnr_err];
	assert_true(naks > 10);
	assert_int_equal(uroce_qp_counters(qp[0])->v[UROCE_CNT_rcvd_rnr_err], naks);
	assert_int_equal(uroce_qp_counters(qp[1])->v[UROCE_CNT_naks_sent], 0);
	struct uroce_sge sge = h_sge(&r, 0, 1024);
	struct uroce_recv_wr rw = {.wr_id = 50, .sg_list = &sge, .num_sge = 1};
	const struct uroce_recv_wr *bad;
	assert_int_equal(uroce_post_srq_recv(srq, &rw, &bad), 0);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 50, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.qp_num, uroce_qp_num(qp[1]));
	assert_memory_equal(r.p, a.p, 700);

	/* rnr_retry 2: the first send and two resends are refused, then the error. */
	h_post_send(qq[0], UROCE_WR_SEND, 2, &a, 0, 10, 0, 0, 0);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_RNR_RETRY_EXC_ERR, UROCE_WC_SEND);
	assert_int_equal(uroce_qp_counters(qq[1])->v[UROCE_CNT_send_rnr_err], 3);
	assert_int_equal(uroce_qp_state(qq[0]), UROCE_QPS_ERR);
	h_buf_free(&a);
	h_buf_free(&r);
	h_net_free(net);
}

/* Counters per QP (rxe keeps them per device; the engine keeps both): traffic on one QP
 * moves its counters and the device's by the same amounts, and nothing on a second QP of
 * the same device. */
static void test_counters_per_qp_and_device(void **state)
{
	struct h_net *net = h_net_new(14, 2, false, NULL);
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct uroce_qp *busy[2], *idle[2];
	(void)state;

	h_qp_pair(net, 0, 1, &o, busy);
	h_qp_pair(net, 0, 1, &o, idle);
	struct h_buf a = h_buf_new(net, 0, 8192, H_ALL_ACCESS, 1);
	struct h_buf b = h_buf_new(net, 1, 8192, H_ALL_ACCESS, 2);
	union uroce_counters dev0 = *uroce_dev_counters(net->node[0].dev);
	union uroce_counters dev1 = *uroce_dev_counters(net->node[1].dev);
	h_post_recv(busy[1], 1, &b, 0, 8192);
	h_post_send(busy[0], UROCE_WR_SEND, 1, &a, 0, 3000, 0, 0, 0);
	h_post_send(busy[0], UROCE_WR_RDMA_WRITE, 2, &a, 0, 2048, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_post_send(busy[0], UROCE_WR_RDMA_READ, 3, &a, 0, 2048, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_run(net, UINT64_MAX);
	for (int i = 0; i < 3; i++)
		assert_int_equal(h_poll1(net, 0).status, UROCE_WC_SUCCESS);
	const union uroce_counters *q0 = uroce_qp_counters(busy[0]), *q1 = uroce_qp_counters(busy[1]);
	assert_int_equal(q0->v[UROCE_CNT_sent_pkts], 3 + 2 + 1);  /* MTU 1024 */
	assert_int_equal(q0->v[UROCE_CNT_rdma_sends], 2 + 1);
	assert_int_equal(q1->v[UROCE_CNT_rcvd_pkts], 3 + 2 + 1);
	assert_int_equal(q1->v[UROCE_CNT_rdma_recvs], 2 + 1);
	assert_int_equal(q1->v[UROCE_CNT_sent_pkts], q0->v[UROCE_CNT_rcvd_pkts]);
	for (enum uroce_counter c = 0; c < UROCE_NCOUNTERS; c++) {
		assert_int_equal(uroce_qp_counters(idle[0])->v[c], 0);
		assert_int_equal(uroce_qp_counters(idle[1])->v[c], 0);
		assert_int_equal(uroce_dev_counters(net->node[0].dev)->v[c] - dev0.v[c], q0->v[c]);
		assert_int_equal(uroce_dev_counters(net->node[1].dev)->v[c] - dev1.v[c], q1->v[c]);
	}
	h_buf_free(&a);
	h_buf_free(&b);
	h_net_free(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_8_uc_basic),
		cmocka_unit_test(test_IBA9_8_uc_gap_discards_message),
		cmocka_unit_test(test_A17_4_5_2_ud_grh_area),
		cmocka_unit_test(test_IBA10_2_4_ud_qkey),
		cmocka_unit_test(test_C10_93_1_1_ud_longer_than_mtu_sends_nothing),
		cmocka_unit_test(test_IBA10_3_1_ud_send_error_and_sqe),
		cmocka_unit_test(test_IBA10_2_9_srq),
		cmocka_unit_test(test_IBA9_8_uc_ud_message_sizes),
		cmocka_unit_test(test_IBA10_8_uc_local_invalidate),
		cmocka_unit_test(test_IBA9_7_5_2_8_rnr_with_srq),
		cmocka_unit_test(test_counters_per_qp_and_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* ATOMIC WRITE (IBA 1.5 9.4.5, RC opcode 0x1D: a RETH for 8 bytes and the 8 bytes), end to
 * end on the simulated fabric and packet by packet against one device: the request on the
 * wire and its answer (a READ RESPONSE ONLY without payload, as Linux rxe sends), the 8 bytes
 * stored and nothing around them, the completion opcode, the post-time checks, the
 * responder's checks (alignment, the MR's and the QP's remote write right, the R_Key and its
 * range, lengths, responder resources), a duplicate answered again but not executed again,
 * the requester resending after a lost answer, and the order against a following READ. */
#include "inject.h"

#include "engine/priv.h"
#include "wire/psn.h"

#define GUARD 32 /* bytes checked untouched on each side of the target */

struct pair {
	struct h_net *net;
	struct uroce_qp *qp[2];
	struct h_log log;
	struct h_buf src, dst; /* on node 0 and node 1 */
};

static void pair_new(struct pair *p, const struct h_qp_opts *o, unsigned dst_access)
{
	memset(p, 0, sizeof(*p));
	p->net = h_net_new(11, 2, false, NULL);
	h_qp_pair(p->net, 0, 1, o, p->qp);
	h_log_start(p->net, &p->log);
	p->src = h_buf_new(p->net, 0, 256, H_ALL_ACCESS, 1);
	p->dst = h_buf_new(p->net, 1, 256, dst_access, 2);
}

static void pair_free(struct pair *p)
{
	h_buf_free(&p->src);
	h_buf_free(&p->dst);
	h_log_free(p->net, &p->log);
	h_net_free(p->net);
}

/* Posts an ATOMIC WRITE of the 8 bytes at src + off to the remote address. */
static int post_aw(struct uroce_qp *qp, uint64_t wr_id, const struct h_buf *src, size_t off,
		   uint32_t len, uint64_t raddr, uint32_t rkey, unsigned flags)
{
	struct uroce_sge sge = h_sge(src, off, len);
	struct uroce_send_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_ATOMIC_WRITE,
				   .send_flags = flags | UROCE_SEND_SIGNALED,
				   .wr.rdma = {.remote_addr = raddr, .rkey = rkey}};
	const struct uroce_send_wr *bad;
	return uroce_post_send(qp, &wr, &bad);
}

/* A copy of dst's bytes, to check that a failed request changed nothing. */
static void snapshot(const struct h_buf *b, uint8_t out[256]) { memcpy(out, b->p, 256); }

/* A request the responder refuses: the requester's completion has status st, the NAK has
 * code nak, and the target is unchanged. */
static void expect_refused(struct pair *p, const uint8_t before[256], enum uroce_wc_status st,
			   uint8_t nak)
{
	h_run(p->net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p->net, 0);
	h_expect_wc(&wc, 1, st, UROCE_WC_ATOMIC_WRITE);
	assert_memory_equal(p->dst.p, before, 256);
	bool seen = false;
	for (size_t i = 0; i < p->log.n; i++) {
		const struct h_rec *r = &p->log.rec[i];
		if (r->node == 1 && r->opcode == UROCE_OP_RC_ACKNOWLEDGE &&
		    r->ext.aeth.syndrome == uroce_aeth_syndrome(UROCE_AETH_NAK, nak))
			seen = true;
	}
	assert_true(seen);
	assert_int_equal(uroce_qp_state(p->qp[0]), UROCE_QPS_ERR);
}

/* IBA 1.5 9.4.5: the 8 bytes land at the address as they were in the requester's memory,
 * nothing around them changes, the request is one packet with a RETH for 8 bytes and the
 * answer a READ RESPONSE ONLY of no payload at the same PSN; the completion is ATOMIC_WRITE.
 * From an SGE and inline, the inline one with max_inline_data 0. */
static void test_IBA9_4_5_atomic_write(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .psn = {0xFFFFFF, 5}};
	struct pair p;
	uint8_t want[256];
	(void)state;

	pair_new(&p, &o, H_ALL_ACCESS);
	snapshot(&p.dst, want);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 40, 8, h_va(&p.dst, 64),
				 uroce_mr_rkey(p.dst.mr), 0),
			 0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_ATOMIC_WRITE);
	h_expect_empty(p.net, 1); /* the responder consumes no receive WQE */
	memcpy(want + 64, p.src.p + 40, 8);
	assert_memory_equal(p.dst.p, want, 256);
	assert_int_equal(p.log.n, 2);
	const struct h_rec *rq = &p.log.rec[0], *rs = &p.log.rec[1];
	assert_int_equal(rq->node, 0);
	assert_int_equal(rq->opcode, UROCE_OP_RC_ATOMIC_WRITE);
	assert_int_equal(rq->psn, 0xFFFFFF);
	assert_true(rq->ackreq);
	assert_int_equal(rq->payload_len, 8);
	assert_int_equal(rq->padcnt, 0);
	assert_true(rq->ext.present & UROCE_EH_RETH);
	assert_int_equal(rq->ext.reth.va, h_va(&p.dst, 64));
	assert_int_equal(rq->ext.reth.rkey, uroce_mr_rkey(p.dst.mr));
	assert_int_equal(rq->ext.reth.dmalen, 8);
	assert_int_equal(rs->node, 1);
	assert_int_equal(rs->opcode, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
	assert_int_equal(rs->psn, 0xFFFFFF);
	assert_int_equal(rs->payload_len, 0);
	assert_int_equal(uroce_aeth_type(rs->ext.aeth.syndrome), UROCE_AETH_ACK);
	assert_int_equal(rs->ext.aeth.msn, 1);
	assert_int_equal(uroce_qp_counters(p.qp[0])->v[UROCE_CNT_rdma_sends], 1);
	assert_int_equal(uroce_qp_counters(p.qp[1])->v[UROCE_CNT_rdma_recvs], 1);

	/* Inline, from a QP whose max_inline_data is 0 (the value sits in the WQE), copied at
	 * post time; then a second one over the first: the last value stays. */
	uint8_t v1[8] = {0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8};
	uint8_t v2[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct uroce_sge sge = {.addr = (uintptr_t)v1, .length = 8};
	struct uroce_send_wr wr = {.wr_id = 2, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_ATOMIC_WRITE,
				   .send_flags = UROCE_SEND_INLINE | UROCE_SEND_SIGNALED,
				   .wr.rdma = {.remote_addr = h_va(&p.dst, 128),
					       .rkey = uroce_mr_rkey(p.dst.mr)}};
	const struct uroce_send_wr *bad;
	struct h_net *net = p.net;
	struct uroce_qp_init_attr init = {.send_cq = net->node[0].cq, .recv_cq = net->node[0].cq,
					  .qp_type = UROCE_QPT_RC,
					  .cap = {.max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1}};
	struct uroce_qp *noinl, *peer = h_qp_create(net, 1, &o, NULL);
	assert_int_equal(uroce_qp_create(net->node[0].pd, &init, &noinl), 0);
	h_qp_rts(net, noinl, 0, 1, uroce_qp_num(peer), &o, 0, 0);
	h_qp_rts(net, peer, 1, 0, uroce_qp_num(noinl), &o, 0, 0);
	assert_int_equal(uroce_post_send(noinl, &wr, &bad), 0);
	memset(v1, 0, sizeof(v1)); /* copied at post time */
	wr.wr_id = 3;
	sge.addr = (uintptr_t)v2;
	assert_int_equal(uroce_post_send(noinl, &wr, &bad), 0);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_ATOMIC_WRITE);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 3, UROCE_WC_SUCCESS, UROCE_WC_ATOMIC_WRITE);
	memcpy(want + 128, v2, 8);
	assert_memory_equal(p.dst.p, want, 256);
	pair_free(&p);
}

/* The checks of post_send: exactly 8 bytes (fewer, more, none: EINVAL, as Linux rxe answers
 * an atomic of another length), RC only (a UC or UD QP refuses it). */
static void test_post_checks(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct pair p;
	(void)state;

	pair_new(&p, &o, H_ALL_ACCESS);
	uint64_t ra = h_va(&p.dst, 0);
	uint32_t rk = uroce_mr_rkey(p.dst.mr);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 7, ra, rk, 0), UROCE_EINVAL);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 9, ra, rk, 0), UROCE_EINVAL);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 16, ra, rk, UROCE_SEND_INLINE),
			 UROCE_EINVAL);
	struct uroce_send_wr none = {.wr_id = 1, .opcode = UROCE_WR_ATOMIC_WRITE,
				     .wr.rdma = {.remote_addr = ra, .rkey = rk}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(p.qp[0], &none, &bad), UROCE_EINVAL);
	assert_ptr_equal(bad, &none);
	/* Two SGEs of 4 bytes are 8 bytes: accepted, gathered. */
	struct uroce_sge two[2] = {h_sge(&p.src, 100, 4), h_sge(&p.src, 200, 4)};
	struct uroce_send_wr wr = {.wr_id = 5, .sg_list = two, .num_sge = 2,
				   .opcode = UROCE_WR_ATOMIC_WRITE, .send_flags = UROCE_SEND_SIGNALED,
				   .wr.rdma = {.remote_addr = h_va(&p.dst, 8), .rkey = rk}};
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 5, UROCE_WC_SUCCESS, UROCE_WC_ATOMIC_WRITE);
	assert_memory_equal(p.dst.p + 8, p.src.p + 100, 4);
	assert_memory_equal(p.dst.p + 12, p.src.p + 200, 4);
	pair_free(&p);

	struct h_qp_opts uc = {.type = UROCE_QPT_UC};
	pair_new(&p, &uc, H_ALL_ACCESS);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 8, h_va(&p.dst, 0),
				 uroce_mr_rkey(p.dst.mr), 0),
			 UROCE_EINVAL);
	pair_free(&p);
}

/* A misaligned remote address is an invalid request (IBA 9.4.5: an atomic's address is
 * naturally aligned; rxe_resp.c RESPST_ERR_MISALIGNED_ATOMIC: NAK invalid request). */
static void test_misaligned(void **state)
{
	static const size_t offs[] = {1, 4, 7};
	(void)state;

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC};
		struct pair p;
		uint8_t before[256];
		pair_new(&p, &o, H_ALL_ACCESS);
		snapshot(&p.dst, before);
		assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 8, h_va(&p.dst, 64 + offs[i]),
					 uroce_mr_rkey(p.dst.mr), 0),
				 0);
		expect_refused(&p, before, UROCE_WC_REM_INV_REQ_ERR, UROCE_NAK_INVALID_REQ);
		pair_free(&p);
	}
}

/* The remote write right: an MR without REMOTE_WRITE (even with REMOTE_ATOMIC, the right of
 * the other atomics) and a QP without it are remote access errors (rxe_resp.c check_rkey
 * asks the MR for IB_ACCESS_REMOTE_WRITE). */
static void test_access_rights(void **state)
{
	struct pair p;
	uint8_t before[256];
	(void)state;

	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	pair_new(&p, &o,
		 UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC);
	snapshot(&p.dst, before);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 8, h_va(&p.dst, 64),
				 uroce_mr_rkey(p.dst.mr), 0),
			 0);
	expect_refused(&p, before, UROCE_WC_REM_ACCESS_ERR, UROCE_NAK_REMOTE_ACCESS);
	pair_free(&p);

	struct h_qp_opts noqp = {.type = UROCE_QPT_RC,
				 .access = UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC};
	pair_new(&p, &noqp, H_ALL_ACCESS);
	snapshot(&p.dst, before);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 8, h_va(&p.dst, 64),
				 uroce_mr_rkey(p.dst.mr), 0),
			 0);
	expect_refused(&p, before, UROCE_WC_REM_ACCESS_ERR, UROCE_NAK_REMOTE_ACCESS);
	pair_free(&p);
}

/* An R_Key of no MR, and the last 8 bytes reaching past the MR's end: remote access errors. */
static void test_rkey_errors(void **state)
{
	struct pair p;
	uint8_t before[256];
	(void)state;

	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	pair_new(&p, &o, H_ALL_ACCESS);
	snapshot(&p.dst, before);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 8, h_va(&p.dst, 64),
				 uroce_mr_rkey(p.dst.mr) ^ 0x100, 0),
			 0);
	expect_refused(&p, before, UROCE_WC_REM_ACCESS_ERR, UROCE_NAK_REMOTE_ACCESS);
	pair_free(&p);

	pair_new(&p, &o, H_ALL_ACCESS);
	snapshot(&p.dst, before);
	assert_int_equal(post_aw(p.qp[0], 1, &p.src, 0, 8, h_va(&p.dst, 256),
				 uroce_mr_rkey(p.dst.mr), 0),
			 0);
	expect_refused(&p, before, UROCE_WC_REM_ACCESS_ERR, UROCE_NAK_REMOTE_ACCESS);
	pair_free(&p);
}

/* ---- packet by packet ---- */

static struct inj *rc_new(uint32_t epsn, uint8_t max_dest)
{
	struct inj_opts o = {.mtu = UROCE_MTU_1024, .epsn = epsn, .max_rd_atomic = 4,
			     .retry_cnt = 7, .rnr_retry = 7,
			     .max_dest_rd_atomic = max_dest ? max_dest : H_NO_RD_ATOMIC};
	return inj_new(&o);
}

static void send_aw(struct inj *t, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t dmalen,
		    const uint8_t *val, size_t len)
{
	struct inj_hdr h = {.opcode = UROCE_OP_RC_ATOMIC_WRITE, .psn = psn, .ackreq = true,
			    .payload = val, .len = len};
	h.ext.reth = (struct uroce_reth){.va = va, .rkey = rkey, .dmalen = dmalen};
	inj_send(t, &h);
}

static void expect_empty_read_resp(const struct inj *t, uint32_t psn, uint32_t msn)
{
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
	assert_int_equal(t->o[0].bth.psn, psn);
	assert_int_equal(t->o[0].payload_len, 0);
	assert_int_equal(t->o[0].bth.padcnt, 0);
	assert_int_equal(uroce_aeth_type(t->o[0].ext.aeth.syndrome), UROCE_AETH_ACK);
	assert_int_equal(t->o[0].ext.aeth.msn, msn);
}

/* The answer was lost and the requester sends the request again: the responder answers it
 * again from its resource without storing again, so that a value written locally since
 * stays (IBA 9.7.5.1.3; rxe_resp.c duplicate_request -> atomic_write_reply, res->replay). */
static void test_duplicate_not_executed_twice(void **state)
{
	uint8_t a[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
	(void)state;

	struct inj *t = rc_new(0x300, 4);
	struct h_buf m = inj_buf(t, 64, 3);
	send_aw(t, 0x300, h_va(&m, 16), uroce_mr_rkey(m.mr), 8, a, 8);
	assert_int_equal(inj_out(t), 1);
	expect_empty_read_resp(t, 0x300, 1);
	assert_memory_equal(m.p + 16, a, 8);
	memset(m.p + 16, 0xEE, 8); /* the application writes there after the operation */
	for (int i = 0; i < 3; i++) {
		send_aw(t, 0x300, h_va(&m, 16), uroce_mr_rkey(m.mr), 8, a, 8);
		assert_int_equal(inj_out(t), 1);
		expect_empty_read_resp(t, 0x300, 1);
	}
	for (int k = 0; k < 8; k++)
		assert_int_equal(m.p[16 + k], 0xEE);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_duplicate_request), 3);
	/* The next PSN is a new request: executed. */
	send_aw(t, 0x301, h_va(&m, 16), uroce_mr_rkey(m.mr), 8, a, 8);
	assert_int_equal(inj_out(t), 1);
	expect_empty_read_resp(t, 0x301, 2);
	assert_memory_equal(m.p + 16, a, 8);
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0); /* no receive completion */
	h_buf_free(&m);
	inj_free(t);
}

/* Lengths (a RETH for other than 8 bytes, a payload of other than 8 bytes) and a QP without
 * responder resources: invalid requests (rxe: check_rkey "pktlen != resid", RESPST_ERR_LENGTH;
 * check_resource with max_dest_rd_atomic 0). Nothing is stored. */
static void test_lengths_and_resources(void **state)
{
	uint8_t v[16] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
	const struct {
		uint32_t dmalen;
		size_t len;
		uint8_t max_dest;
	} cases[] = {{16, 8, 4}, {4, 8, 4}, {8, 4, 4}, {8, 16, 4}, {8, 0, 4}, {8, 8, 0}};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct inj *t = rc_new(10, cases[i].max_dest);
		struct h_buf m = inj_buf(t, 64, 4);
		uint8_t before[64];
		memcpy(before, m.p, 64);
		send_aw(t, 10, h_va(&m, 8), uroce_mr_rkey(m.mr), cases[i].dmalen, v, cases[i].len);
		assert_int_equal(inj_out(t), 1);
		inj_expect_ack(&t->o[0], uroce_aeth_syndrome(UROCE_AETH_NAK, UROCE_NAK_INVALID_REQ),
			       10);
		assert_memory_equal(m.p, before, 64);
		assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
		h_buf_free(&m);
		inj_free(t);
	}
}

/* The requester's side of a lost answer: a plain ACK of its PSN does not complete it (it
 * tells that its answer was lost, as for a READ) and the request goes out again; with no
 * answer the retransmission timer sends it again, at the same PSN with the same 8 bytes
 * (posted inline on a QP without inline room); the answer completes it. An ATOMIC
 * ACKNOWLEDGE is a bad response. */
static void test_requester_resends_after_lost_answer(void **state)
{
	uint8_t v[8] = {0xC0, 0xFF, 0xEE, 0, 1, 2, 3, 4};
	const uint8_t sent[8] = {0xC0, 0xFF, 0xEE, 0, 1, 2, 3, 4};
	(void)state;

	struct inj_opts o = {.mtu = UROCE_MTU_1024, .epsn = 0, .max_rd_atomic = 4,
			     .retry_cnt = 7, .rnr_retry = 7, .timeout = 8};
	struct inj *t = inj_new(&o);
	struct uroce_sge sge = {.addr = (uintptr_t)v, .length = 8};
	struct uroce_send_wr wr = {.wr_id = 9, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_ATOMIC_WRITE,
				   .send_flags = UROCE_SEND_INLINE | UROCE_SEND_SIGNALED,
				   .wr.rdma = {.remote_addr = 0x1000, .rkey = 0x4242}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(t->qp, &wr, &bad), 0);
	memset(v, 0, sizeof(v)); /* inline: copied at post time */
	assert_int_equal(inj_out(t), 1);
	const struct uroce_pkt *r = &t->o[0];
	assert_int_equal(r->bth.opcode, UROCE_OP_RC_ATOMIC_WRITE);
	assert_int_equal(r->bth.psn, INJ_SQ_PSN);
	assert_int_equal(r->ext.reth.va, 0x1000);
	assert_int_equal(r->ext.reth.rkey, 0x4242);
	assert_int_equal(r->ext.reth.dmalen, 8);
	assert_int_equal(r->payload_len, 8);
	assert_memory_equal(r->frame + r->payload_off, sent, 8);

	/* A plain ACK of its PSN says its answer was lost (an implied NAK, as for a READ):
	 * nothing completes, the request goes out again. */
	struct inj_hdr h = {.opcode = UROCE_OP_RC_ACKNOWLEDGE, .psn = INJ_SQ_PSN};
	h.ext.aeth.syndrome = uroce_aeth_syndrome(UROCE_AETH_ACK, UROCE_AETH_CREDIT_INVALID);
	h.ext.aeth.msn = 1;
	inj_send(t, &h);
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_ATOMIC_WRITE);
	assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_retransmitted_pkts), 1);

	/* No answer again: the timer sends the same request once more. */
	t->now = uroce_dev_next_deadline(t->dev);
	assert_true(t->now != UROCE_NEVER);
	uroce_dev_on_timer(t->dev, t->now);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_ATOMIC_WRITE);
	assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN);
	assert_memory_equal(t->o[0].frame + t->o[0].payload_off, sent, 8);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_retransmitted_pkts), 2);

	/* The answer, a READ RESPONSE ONLY without payload. */
	h.opcode = UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
	inj_send(t, &h);
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 9, UROCE_WC_SUCCESS, UROCE_WC_ATOMIC_WRITE);
	assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_RTS);

	/* An ATOMIC ACKNOWLEDGE does not answer one: a bad response, the QP in error. */
	wr.wr_id = 10;
	assert_int_equal(uroce_post_send(t->qp, &wr, &bad), 0);
	assert_int_equal(inj_out(t), 1);
	h.opcode = UROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
	h.psn = INJ_SQ_PSN + 1;
	inj_send(t, &h);
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 10, UROCE_WC_BAD_RESP_ERR, UROCE_WC_ATOMIC_WRITE);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_bad_response), 1);
	inj_free(t);
}

/* Responses in PSN order: a READ of the target posted right after the ATOMIC WRITE (no fence)
 * returns the new value, and a WRITE just before it is overwritten by it; the completions
 * come in order. Many times over, so that the requests are in flight together. */
static void test_order_with_following_read(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .max_rd_atomic = 4, .max_dest_rd_atomic = 4};
	struct pair p;
	(void)state;

	pair_new(&p, &o, H_ALL_ACCESS);
	struct h_buf rd = h_buf_new(p.net, 0, 16 * 64, H_ALL_ACCESS, 9);
	uint32_t rk = uroce_mr_rkey(p.dst.mr);
	for (uint32_t i = 0; i < 16; i++) {
		/* Slot i: a WRITE of 8 other bytes, the ATOMIC WRITE of src[8i..], a READ of 16
		 * bytes around it. */
		uint64_t slot = h_va(&p.dst, 16 * (size_t)i);
		h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, 100 + i, &p.src, 128 + 8 * (size_t)i, 8,
			    slot, rk, 0);
		assert_int_equal(post_aw(p.qp[0], 200 + i, &p.src, 8 * (size_t)i, 8, slot, rk, 0), 0);
		h_post_send(p.qp[0], UROCE_WR_RDMA_READ, 300 + i, &rd, 64 * (size_t)i, 16, slot, rk,
			    0);
	}
	h_run(p.net, UINT64_MAX);
	for (uint32_t i = 0; i < 16; i++) {
		struct uroce_wc wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, 100 + i, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
		wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, 200 + i, UROCE_WC_SUCCESS, UROCE_WC_ATOMIC_WRITE);
		wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, 300 + i, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
		assert_memory_equal(rd.p + 64 * i, p.src.p + 8 * i, 8);
		assert_memory_equal(p.dst.p + 16 * i, p.src.p + 8 * i, 8);
	}
	h_expect_empty(p.net, 0);
	h_buf_free(&rd);
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_4_5_atomic_write),
		cmocka_unit_test(test_post_checks),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_access_rights),
		cmocka_unit_test(test_rkey_errors),
		cmocka_unit_test(test_duplicate_not_executed_twice),
		cmocka_unit_test(test_lengths_and_resources),
		cmocka_unit_test(test_requester_resends_after_lost_answer),
		cmocka_unit_test(test_order_with_following_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

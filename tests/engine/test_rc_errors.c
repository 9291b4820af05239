/* SPDX-License-Identifier: MIT */
/* RC errors, on the simulated fabric: RNR NAKs and their timer, RNR and retry exhaustion,
 * remote access errors (bad R_Key, out of range, missing access right, a VA + length that
 * wraps past 2^64, another PD) with no byte written outside the MR, invalid requests,
 * remote operational errors, local protection errors, and the flush that follows every one
 * of them (IBA 9.7.5.2, 9.9, 10.3.1). */
#include "harness.h"

#include "engine/priv.h"
#include "engine/wr.h"
#include "wire/psn.h"

struct env {
	struct h_net *net;
	struct uroce_qp *qp[2];
	struct h_log log;
};

static void env_new(struct env *e, const struct h_qp_opts *o, const struct uroce_sim_link_cfg *fwd)
{
	memset(e, 0, sizeof(*e));
	/* fwd replaces the 0 -> 1 link; 1 -> 0 stays clean. */
	e->net = h_net_new_dir(3, 2, false, fwd, NULL);
	h_qp_pair(e->net, 0, 1, o, e->qp);
	h_log_start(e->net, &e->log);
}

static void env_free(struct env *e)
{
	h_log_free(e->net, &e->log);
	h_net_free(e->net);
}

static size_t count_op(const struct h_log *log, int node, uint8_t op)
{
	size_t n = 0;
	for (size_t i = 0; i < log->n; i++)
		n += log->rec[i].node == node && log->rec[i].opcode == op;
	return n;
}

static bool next_event(struct h_net *net, int i, enum uroce_event_type type, struct uroce_qp *qp)
{
	struct uroce_async_event ev;
	while (uroce_dev_get_async_event(net->node[i].dev, &ev))
		if (ev.type == type && ev.element.qp == qp)
			return true;
	return false;
}

/* IBA 9.7.5.2.8: no receive WQE -> RNR NAK carrying the responder's min_rnr_timer; the
 * requester waits at least that long (Table 45) before resending, forever with
 * rnr_retry 7; the packets behind the NAKed one are dropped silently (no PSN sequence NAK
 * follows an RNR NAK); the message completes once a receive is posted. */
static void test_IBA9_7_5_2_8_rnr_wait_and_resend(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_256, .min_rnr_timer = 3,
			      .rnr_retry = 7, .retry_cnt = 7};
	struct env e;
	(void)state;

	env_new(&e, &o, NULL);
	struct h_buf a = h_buf_new(e.net, 0, 2000, H_ALL_ACCESS, 1);
	struct h_buf b = h_buf_new(e.net, 1, 2000, H_ALL_ACCESS, 2);
	h_post_send(e.qp[0], UROCE_WR_SEND, 1, &a, 0, 1000, 0, 0, 0); /* 4 packets */
	h_post_send(e.qp[0], UROCE_WR_SEND, 2, &a, 1000, 10, 0, 0, 0);
	/* 1 ms without a receive WQE: about 1 ms / (30 us + RTT) RNR rounds. */
	h_run(e.net, 1000000);
	size_t rnr = 0;
	uint64_t last_nak = 0;
	for (size_t i = 0; i < e.log.n; i++) {
		const struct h_rec *r = &e.log.rec[i];
		if (r->node == 1) {
			assert_int_equal(r->opcode, UROCE_OP_RC_ACKNOWLEDGE);
			/* RNR NAK: type 01, timer 3 (30 us); at the SEND's first PSN. */
			assert_int_equal(r->ext.aeth.syndrome, 0x20 | 3);
			assert_int_equal(r->psn, o.psn[0]);
			last_nak = r->now;
			rnr++;
		} else if (r->psn == o.psn[0] && last_nak) {
			/* The resend waits for the timer: sent >= 30 us after the NAK left (and
			 * 1 us of flight). */
			assert_true(r->now >= last_nak + 1000 + 30000);
		}
	}
	assert_true(rnr > 10);
	assert_int_equal(h_counter(e.net->node[1].dev, UROCE_CNT_send_rnr_err), rnr);
	assert_int_equal(h_counter(e.net->node[0].dev, UROCE_CNT_rcvd_rnr_err), rnr);
	assert_int_equal(h_counter(e.net->node[1].dev, UROCE_CNT_out_of_seq_request), 0);
	assert_true(h_counter(e.net->node[1].dev, UROCE_CNT_drop_out_of_seq) > 0);
	h_expect_empty(e.net, 0);
	/* Now the receives: both messages complete, in order. */
	h_post_recv(e.qp[1], 10, &b, 0, 1000);
	h_post_recv(e.qp[1], 11, &b, 1000, 1000);
	h_run(e.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(e.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(e.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(e.net, 1);
	h_expect_wc(&wc, 10, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	wc = h_poll1(e.net, 1);
	h_expect_wc(&wc, 11, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 10);
	assert_memory_equal(b.p, a.p, 1010);
	h_buf_free(&a);
	h_buf_free(&b);
	env_free(&e);
}

/* IBA 9.7.5.2.8: rnr_retry 0..6 resends at most that many times; then RNR_RETRY_EXC_ERR,
 * the QP goes to ERR and the rest flushes (9.9.2). A WRITE with immediate needs a receive
 * WQE too and is NAKed the same way. */
static void test_IBA9_7_5_2_8_rnr_retry_exhausted(void **state)
{
	(void)state;
	for (int kind = 0; kind < 2; kind++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC, .min_rnr_timer = 1, .rnr_retry = 2,
				      .retry_cnt = 7};
		struct env e;
		env_new(&e, &o, NULL);
		struct h_buf a = h_buf_new(e.net, 0, 64, H_ALL_ACCESS, 1);
		struct h_buf b = h_buf_new(e.net, 1, 64, H_ALL_ACCESS, 2);
		struct h_buf r = h_buf_new(e.net, 0, 64, H_ALL_ACCESS, 3);
		h_post_recv(e.qp[0], 50, &r, 0, 64);
		if (kind == 0)
			h_post_send(e.qp[0], UROCE_WR_SEND, 1, &a, 0, 8, 0, 0, 0);
		else
			h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE_WITH_IMM, 1, &a, 0, 8, h_va(&b, 0),
				    uroce_mr_rkey(b.mr), 0);
		h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 2, &a, 0, 8, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
		h_run(e.net, UINT64_MAX);
		struct uroce_wc wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 1, UROCE_WC_RNR_RETRY_EXC_ERR,
			    kind ? UROCE_WC_RDMA_WRITE : UROCE_WC_SEND);
		/* The rest flushes, the requester's posted receive too. */
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 2, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_RDMA_WRITE);
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 50, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_RECV);
		h_expect_empty(e.net, 0);
		assert_int_equal(uroce_qp_state(e.qp[0]), UROCE_QPS_ERR);
		/* The first send and two resends, each NAKed. */
		assert_int_equal(h_counter(e.net->node[1].dev, UROCE_CNT_send_rnr_err), 3);
		assert_int_equal(h_counter(e.net->node[0].dev, UROCE_CNT_retry_rnr_exceeded_err), 1);
		/* Work posted in ERR completes with a flush error when the engine takes it in. */
		h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 3, &a, 0, 8, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
		uroce_dev_take_posted(e.net->node[0].dev);
		uroce_dev_publish(e.net->node[0].dev);
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 3, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_RDMA_WRITE);
		/* The responder is unharmed. */
		assert_int_equal(uroce_qp_state(e.qp[1]), UROCE_QPS_RTS);
		h_buf_free(&a);
		h_buf_free(&b);
		h_buf_free(&r);
		env_free(&e);
	}
}

/* IBA 9.7.6.1.3: with no response at all, the request is sent 1 + retry_cnt times, one
 * local ACK timeout (4.096 us x 2^timeout) apart, then RETRY_EXC_ERR. timeout 0 disables
 * the timer: nothing is resent and no deadline is ever set. */
static void test_IBA9_7_6_1_3_retry_exhausted(void **state)
{
	struct uroce_sim_link_cfg dead = {.latency_ns = 1000, .impair = {.loss = 1.0}};
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .timeout = 4, .retry_cnt = 3};
	struct env e;
	(void)state;

	env_new(&e, &o, &dead);
	struct h_buf a = h_buf_new(e.net, 0, 4096, H_ALL_ACCESS, 1);
	struct h_buf b = h_buf_new(e.net, 1, 4096, H_ALL_ACCESS, 2);
	h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 1, &a, 0, 3000, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_post_send(e.qp[0], UROCE_WR_RDMA_READ, 2, &a, 0, 100, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	uint64_t end = h_run(e.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(e.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_RETRY_EXC_ERR, UROCE_WC_RDMA_WRITE);
	wc = h_poll1(e.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_RDMA_READ);
	assert_int_equal(uroce_qp_state(e.qp[0]), UROCE_QPS_ERR);
	/* 4 sends of each packet, at 0, T, 2T, 3T; the error at 4T. */
	const uint64_t t = 4096ull << 4;
	size_t first = 0;
	for (size_t i = 0; i < e.log.n; i++) {
		if (e.log.rec[i].psn != o.psn[0])
			continue;
		assert_int_equal(e.log.rec[i].now, first * t);
		first++;
	}
	assert_int_equal(first, 4);
	assert_int_equal(end, 4 * t);
	assert_int_equal(h_counter(e.net->node[0].dev, UROCE_CNT_retry_exceeded_err), 1);
	assert_int_equal(h_counter(e.net->node[0].dev, UROCE_CNT_completer_retry_err), 3);
	assert_int_equal(uroce_dev_next_deadline(e.net->node[0].dev), UROCE_NEVER);
	h_buf_free(&a);
	h_buf_free(&b);
	env_free(&e);

	o.timeout = H_NO_TIMEOUT;
	env_new(&e, &o, &dead);
	a = h_buf_new(e.net, 0, 64, H_ALL_ACCESS, 1);
	h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 1, &a, 0, 8, 0x1000, 0x101, 0);
	h_run(e.net, UINT64_MAX);
	assert_int_equal(e.log.n, 1);
	assert_int_equal(uroce_dev_next_deadline(e.net->node[0].dev), UROCE_NEVER);
	h_expect_empty(e.net, 0);
	h_buf_free(&a);
	env_free(&e);
}

/* A remote access that must fail: which request, and how it is made wrong. */
enum bad_kind {
	BAD_RKEY,       /* an R_Key that names nothing */
	BAD_RANGE,      /* past the end of the MR */
	BAD_BEFORE,     /* before its start */
	BAD_WRAP,       /* VA + length wraps past 2^64 (the rxe bug) */
	BAD_MR_ACCESS,  /* the MR lacks the remote right */
	BAD_QP_ACCESS,  /* the responder QP lacks the remote right */
	BAD_PD,         /* an MR of another PD */
	BAD_KINDS
};

static const char *const bad_names[] = {"rkey", "range", "before", "wrap", "mr-access",
					"qp-access", "pd"};

/* IBA 9.7.5.2.4 / 9.9.3.1: a remote access error NAK (code 2); the requester completes
 * with REM_ACCESS_ERR and goes to ERR (the next request flushes); the responder goes to ERR
 * and raises QP_ACCESS_ERR; not one byte of the responder's memory changed. */
static void test_IBA9_7_5_2_4_remote_access_errors(void **state)
{
	static const enum uroce_wr_opcode ops[] = {UROCE_WR_RDMA_WRITE, UROCE_WR_RDMA_READ,
						   UROCE_WR_ATOMIC_FETCH_AND_ADD,
						   UROCE_WR_RDMA_WRITE_WITH_IMM};
	(void)state;

	for (unsigned oi = 0; oi < sizeof(ops) / sizeof(ops[0]); oi++) {
		for (int k = 0; k < BAD_KINDS; k++) {
			enum uroce_wr_opcode op = ops[oi];
			/* An atomic is 8 aligned bytes: it cannot wrap without being misaligned,
			 * which is an invalid request (tested below). */
			if (op == UROCE_WR_ATOMIC_FETCH_AND_ADD && k == BAD_WRAP)
				continue;
			struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_256};
			unsigned need = op == UROCE_WR_RDMA_READ ? UROCE_ACCESS_REMOTE_READ
					: op == UROCE_WR_ATOMIC_FETCH_AND_ADD ? UROCE_ACCESS_REMOTE_ATOMIC
									     : UROCE_ACCESS_REMOTE_WRITE;
			if (k == BAD_QP_ACCESS)
				o.access = (UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_READ |
					    UROCE_ACCESS_REMOTE_ATOMIC) & ~need;
			struct env e;
			env_new(&e, &o, NULL);
			struct h_buf a = h_buf_new(e.net, 0, 8192, H_ALL_ACCESS, 1);
			struct h_buf r = h_buf_new(e.net, 1, 64, H_ALL_ACCESS, 9);
			/* The target: 4096 host bytes, mapped at the top of the 64-bit space for
			 * the wrap case. */
			uint8_t *host = aligned_alloc(64, 4096);
			for (int i = 0; i < 4096; i++)
				host[i] = (uint8_t)(i * 13);
			uint8_t before[4096];
			memcpy(before, host, sizeof(before));
			uint64_t iova = k == BAD_WRAP ? UINT64_MAX - 4095 : 0x100000;
			unsigned access = k == BAD_MR_ACCESS ? H_ALL_ACCESS & ~need : H_ALL_ACCESS;
			struct uroce_pd *pd = e.net->node[1].pd, *other;
			assert_int_equal(uroce_pd_alloc(e.net->node[1].dev, &other), 0);
			struct uroce_mr *mr;
			assert_int_equal(uroce_mr_reg(k == BAD_PD ? other : pd, host, 4096, iova, access, &mr), 0);
			uint32_t rkey = k == BAD_RKEY ? uroce_mr_rkey(mr) + 0x1000 : uroce_mr_rkey(mr);
			uint32_t len = op == UROCE_WR_ATOMIC_FETCH_AND_ADD ? 8 : 600; /* 3 packets */
			uint64_t va = iova + 1000;
			if (k == BAD_RANGE)
				va = iova + 4096 - len + 8;
			if (k == BAD_BEFORE)
				va = iova - 8;
			if (k == BAD_WRAP)
				va = UINT64_MAX - 15; /* va + 600 wraps to 584 */
			if (op == UROCE_WR_RDMA_WRITE_WITH_IMM)
				h_post_recv(e.qp[1], 70, &r, 0, 64);
			h_post_send(e.qp[0], op, 1, &a, 0, len, va, rkey, 0);
			h_post_send(e.qp[0], UROCE_WR_SEND, 2, &a, 0, 8, 0, 0, 0);
			h_run(e.net, UINT64_MAX);
			print_message("%s %s\n", uroce_wr_opcode_name(op), bad_names[k]);
			struct uroce_wc wc = h_poll1(e.net, 0);
			h_expect_wc(&wc, 1, UROCE_WC_REM_ACCESS_ERR, wr_info(op)->wc);
			wc = h_poll1(e.net, 0);
			h_expect_wc(&wc, 2, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_SEND);
			assert_int_equal(uroce_qp_state(e.qp[0]), UROCE_QPS_ERR);
			assert_int_equal(uroce_qp_state(e.qp[1]), UROCE_QPS_ERR);
			/* The NAK: code 2 at the request's first PSN. */
			bool nak = false;
			for (size_t i = 0; i < e.log.n; i++)
				if (e.log.rec[i].node == 1 &&
				    e.log.rec[i].opcode == UROCE_OP_RC_ACKNOWLEDGE) {
					assert_int_equal(e.log.rec[i].ext.aeth.syndrome, 0x62);
					assert_int_equal(e.log.rec[i].psn, o.psn[0]);
					nak = true;
				}
			assert_true(nak);
			assert_true(next_event(e.net, 1, UROCE_EVENT_QP_ACCESS_ERR, e.qp[1]));
			assert_memory_equal(host, before, sizeof(before));
			if (op == UROCE_WR_RDMA_WRITE_WITH_IMM) {
				/* Its receive WQE was never consumed: flushed by the ERR. */
				wc = h_poll1(e.net, 1);
				h_expect_wc(&wc, 70, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_RECV);
			}
			h_expect_empty(e.net, 1);
			uroce_mr_dereg(mr);
			free(host);
			h_buf_free(&a);
			h_buf_free(&r);
			env_free(&e);
		}
	}
}

/* IBA 9.7.5.2.4 invalid request (code 1): a misaligned atomic, a SEND longer than the
 * receive buffer (the responder's WQE completes with LOC_LEN_ERR), a READ to a QP that
 * takes none (max_dest_rd_atomic 0). Remote operational error (code 3): a receive WQE whose
 * L_Key is bad (the responder's WQE completes with LOC_PROT_ERR). */
static void test_IBA9_7_5_2_4_invalid_request_and_remote_op(void **state)
{
	(void)state;
	for (int c = 0; c < 4; c++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC};
		struct env e;
		env_new(&e, &o, NULL);
		struct h_buf a = h_buf_new(e.net, 0, 4096, H_ALL_ACCESS, 1);
		struct h_buf b = h_buf_new(e.net, 1, 4096, H_ALL_ACCESS, 2);
		uint8_t before[4096];
		memcpy(before, b.p, sizeof(before));
		enum uroce_wc_status want = UROCE_WC_REM_INV_REQ_ERR;
		enum uroce_wc_opcode wop = UROCE_WC_SEND;
		uint8_t syn = 0x61;
		enum uroce_event_type ev = UROCE_EVENT_QP_REQ_ERR;
		switch (c) {
		case 0:
			h_post_send(e.qp[0], UROCE_WR_ATOMIC_CMP_AND_SWP, 1, &a, 0, 8, h_va(&b, 4),
				    uroce_mr_rkey(b.mr), 0);
			wop = UROCE_WC_COMP_SWAP;
			break;
		case 1:
			h_post_recv(e.qp[1], 80, &b, 0, 100);
			h_post_send(e.qp[0], UROCE_WR_SEND, 1, &a, 0, 2000, 0, 0, 0);
			break;
		case 2: {
			struct uroce_qp_attr qa = {.max_dest_rd_atomic = 0};
			/* SQD -> SQD may change it once drained. */
			qa.qp_state = UROCE_QPS_SQD;
			assert_int_equal(uroce_qp_modify(e.qp[1], &qa, UROCE_QPA_STATE), 0);
			assert_int_equal(uroce_qp_modify(e.qp[1], &qa, UROCE_QPA_MAX_DEST_RD_ATOMIC), 0);
			qa.qp_state = UROCE_QPS_RTS;
			assert_int_equal(uroce_qp_modify(e.qp[1], &qa, UROCE_QPA_STATE), 0);
			h_post_send(e.qp[0], UROCE_WR_RDMA_READ, 1, &a, 0, 100, h_va(&b, 0),
				    uroce_mr_rkey(b.mr), 0);
			wop = UROCE_WC_RDMA_READ;
			break;
		}
		case 3: {
			struct uroce_sge sge = {.addr = h_va(&b, 0), .length = 100, .lkey = 0x4242};
			struct uroce_recv_wr rwr = {.wr_id = 81, .sg_list = &sge, .num_sge = 1};
			const struct uroce_recv_wr *bad;
			assert_int_equal(uroce_post_recv(e.qp[1], &rwr, &bad), 0);
			h_post_send(e.qp[0], UROCE_WR_SEND, 1, &a, 0, 50, 0, 0, 0);
			want = UROCE_WC_REM_OP_ERR;
			syn = 0x63;
			ev = UROCE_EVENT_QP_FATAL;
			break;
		}
		}
		h_run(e.net, UINT64_MAX);
		struct uroce_wc wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 1, want, wop);
		assert_int_equal(count_op(&e.log, 1, UROCE_OP_RC_ACKNOWLEDGE), 1);
		for (size_t i = 0; i < e.log.n; i++)
			if (e.log.rec[i].node == 1)
				assert_int_equal(e.log.rec[i].ext.aeth.syndrome, syn);
		assert_true(next_event(e.net, 1, ev, e.qp[1]));
		if (c == 1) {
			wc = h_poll1(e.net, 1);
			h_expect_wc(&wc, 80, UROCE_WC_LOC_LEN_ERR, UROCE_WC_RECV);
			/* Nothing past the receive buffer was written. */
			assert_memory_equal(b.p + 100, before + 100, sizeof(before) - 100);
		}
		if (c == 3) {
			wc = h_poll1(e.net, 1);
			h_expect_wc(&wc, 81, UROCE_WC_LOC_PROT_ERR, UROCE_WC_RECV);
		}
		if (c == 0)
			assert_memory_equal(b.p, before, sizeof(before));
		h_expect_empty(e.net, 1);
		assert_int_equal(uroce_qp_state(e.qp[1]), UROCE_QPS_ERR);
		h_buf_free(&a);
		h_buf_free(&b);
		env_free(&e);
	}
}

/* A zero-length RDMA request carries no usable R_Key: it is not checked, and succeeds. */
static void test_zero_length_rdma_skips_rkey(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct env e;
	(void)state;

	env_new(&e, &o, NULL);
	h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 1, NULL, 0, 0, 0xDEAD0000, 0x77, 0);
	h_post_send(e.qp[0], UROCE_WR_RDMA_READ, 2, NULL, 0, 0, 0xDEAD0000, 0x77, 0);
	h_run(e.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(e.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	wc = h_poll1(e.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	env_free(&e);
}

/* Local errors are found when the requester starts the WQE: an L_Key that names nothing, a
 * READ into memory without local write: LOC_PROT_ERR, no packet sent, the QP to ERR with
 * the rest flushed in order, unsignaled ones included (IBA 10.8.3.1: failures always
 * complete). */
static void test_IBA10_8_local_protection_and_flush(void **state)
{
	(void)state;
	for (int c = 0; c < 2; c++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC};
		struct env e;
		env_new(&e, &o, NULL);
		struct h_buf a = h_buf_new(e.net, 0, 4096,
					   c ? UROCE_ACCESS_REMOTE_READ : H_ALL_ACCESS, 1);
		struct h_buf b = h_buf_new(e.net, 1, 4096, H_ALL_ACCESS, 2);
		h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 1, NULL, 0, 0, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
		if (c == 0) {
			struct uroce_sge sge = {.addr = h_va(&a, 0), .length = 16, .lkey = 0x31337};
			struct uroce_send_wr wr = {.wr_id = 2, .sg_list = &sge, .num_sge = 1,
						   .opcode = UROCE_WR_SEND};
			const struct uroce_send_wr *bad;
			assert_int_equal(uroce_post_send(e.qp[0], &wr, &bad), 0);
		} else {
			h_post_send(e.qp[0], UROCE_WR_RDMA_READ, 2, &a, 0, 16, h_va(&b, 0),
				    uroce_mr_rkey(b.mr), 0);
		}
		/* Behind it: an unsignaled one and a signaled one. */
		struct uroce_send_wr u = {.wr_id = 3, .opcode = UROCE_WR_SEND};
		const struct uroce_send_wr *bad;
		assert_int_equal(uroce_post_send(e.qp[0], &u, &bad), 0);
		h_post_send(e.qp[0], UROCE_WR_SEND, 4, NULL, 0, 0, 0, 0, 0);
		h_run(e.net, UINT64_MAX);
		struct uroce_wc wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 2, UROCE_WC_LOC_PROT_ERR, c ? UROCE_WC_RDMA_READ : UROCE_WC_SEND);
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 3, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_SEND);
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 4, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_SEND);
		h_expect_empty(e.net, 0);
		assert_int_equal(uroce_qp_state(e.qp[0]), UROCE_QPS_ERR);
		/* Only the WRITE went out. */
		assert_int_equal(count_op(&e.log, 0, UROCE_OP_RC_RDMA_WRITE_ONLY), 1);
		assert_int_equal(count_op(&e.log, 0, UROCE_OP_RC_SEND_ONLY) +
					 count_op(&e.log, 0, UROCE_OP_RC_RDMA_READ_REQUEST),
				 0);
		/* ERR -> RESET -> ... -> RTS makes the QP usable again. */
		struct uroce_qp_attr qa = {.qp_state = UROCE_QPS_RESET};
		assert_int_equal(uroce_qp_modify(e.qp[0], &qa, UROCE_QPA_STATE), 0);
		h_qp_rts(e.net, e.qp[0], 0, 1, uroce_qp_num(e.qp[1]), &o,
			 e.qp[1]->resp.epsn, e.qp[1]->req.psn);
		h_post_send(e.qp[0], UROCE_WR_RDMA_WRITE, 5, NULL, 0, 0, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
		h_run(e.net, UINT64_MAX);
		wc = h_poll1(e.net, 0);
		h_expect_wc(&wc, 5, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
		h_buf_free(&a);
		h_buf_free(&b);
		env_free(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_7_5_2_8_rnr_wait_and_resend),
		cmocka_unit_test(test_IBA9_7_5_2_8_rnr_retry_exhausted),
		cmocka_unit_test(test_IBA9_7_6_1_3_retry_exhausted),
		cmocka_unit_test(test_IBA9_7_5_2_4_remote_access_errors),
		cmocka_unit_test(test_IBA9_7_5_2_4_invalid_request_and_remote_op),
		cmocka_unit_test(test_zero_length_rdma_skips_rkey),
		cmocka_unit_test(test_IBA10_8_local_protection_and_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* The RC requester's retries packet by packet (inject.h): the local ACK timer, go-back-N,
 * implied NAKs, RNR limits, ghost acknowledgements and unexpected opcodes, after the cases
 * of the public roce-sim test plan, each named after the IBA clause it checks. */
#include "inject.h"

#include "wire/psn.h"

/* IBA 9.7.6.1.3: the local ACK timer runs from a request sent to its acknowledgement. A
 * requester that cannot send its retry at once (here, its own QP's READ responses hold the
 * line, and they go first) spends no retry while it waits: the timer starts with the resend.
 * Found by the soak: 16 outstanding 4 MiB READs at 10 Gbit/s kept a QP off the line for 50
 * ms, and its 0.5 ms timer used up retry_cnt without a packet leaving. */
static void test_IBA9_7_6_1_3_timer_runs_from_the_resend(void **state)
{
	struct inj_opts o = {.timeout = 4, .retry_cnt = 2, .epsn = 0x100};
	struct inj *t = inj_new(&o);
	const uint64_t rto = 4096ull << 4, step = 2000; /* one packet per 2 us */
	(void)state;

	struct h_buf b = inj_buf(t, 64 * 1024, 5);
	h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 1, &b, 0, 8, 0x1000, 0x101, 0);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN);
	assert_int_equal(uroce_dev_next_deadline(t->dev), rto);
	/* The peer READs 64 KiB: 256 responses at MTU 256, 512 us at this line's pace. */
	struct inj_hdr rd = {.opcode = UROCE_OP_RC_RDMA_READ_REQUEST, .psn = 0x100, .ackreq = true,
			     .ext.reth = {.va = h_va(&b, 0), .rkey = uroce_mr_rkey(b.mr),
					  .dmalen = 64 * 1024}};
	inj_send(t, &rd);
	uint64_t resent_at = 0;
	int responses = 0;
	for (t->now = 0; t->now < 100 * rto && !resent_at; t->now += step) {
		uroce_dev_on_timer(t->dev, t->now);
		if (!inj_out_n(t, 1))
			continue;
		if (t->o[0].bth.opcode == UROCE_OP_RC_RDMA_WRITE_ONLY)
			resent_at = t->now;
		else
			responses++;
	}
	/* One retry when the timer first expired; no other until the resend had left. */
	assert_int_equal(responses, 256);
	assert_true(resent_at > rto * 3);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_completer_retry_err), 1);
	assert_int_equal(uroce_dev_next_deadline(t->dev), resent_at + rto);
	/* Acknowledged: the WRITE completes successfully. */
	t->now = resent_at + 1000;
	struct inj_hdr ack = {.opcode = UROCE_OP_RC_ACKNOWLEDGE, .psn = INJ_SQ_PSN,
			      .ext.aeth = {.syndrome = 0x1F, .msn = 1}};
	inj_send(t, &ack);
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	assert_int_equal(uroce_dev_next_deadline(t->dev), UROCE_NEVER);
	h_buf_free(&b);
	inj_free(t);
}

#define ACK 0x1F /* AETH: ACK, no credit information */
#define NAK_SEQ 0x60
#define RNR(timer) (0x20 | (timer))

static void inj_aeth(struct inj *t, uint8_t opcode, uint32_t psn, uint8_t syndrome)
{
	struct inj_hdr h = {.opcode = opcode, .psn = psn, .ext.aeth = {.syndrome = syndrome}};
	inj_send(t, &h);
}

static void expect_wc(struct inj *t, uint64_t wr_id, enum uroce_wc_status st,
		      enum uroce_wc_opcode op)
{
	struct uroce_wc wc;
	if (uroce_cq_poll(t->cq, &wc, 1) != 1)
		fail_msg("no completion for wr %" PRIu64, wr_id);
	h_expect_wc(&wc, wr_id, st, op);
}

static void expect_no_wc(struct inj *t)
{
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
}

/* roce-sim plan, RNR limits (IBA 9.7.5.2.8): after an RNR NAK the request is sent again when
 * the timer it carries has run (Table 45: code 1 is 10 us), rnr_retry times; the next RNR
 * NAK completes it with RNR_RETRY_EXC_ERR and the rest flushes. rnr_retry 7 never gives up. */
static void test_IBA9_7_5_2_8_rnr_retry_limit(void **state)
{
	(void)state;
	for (uint8_t limit = 0; limit <= 7; limit += 7) {
		struct inj_opts o = {.rnr_retry = limit == 7 ? 7 : 2, .retry_cnt = 7};
		struct inj *t = inj_new(&o);
		struct h_buf b = inj_buf(t, 4096, 1);
		int naks = limit == 7 ? 20 : 3;
		h_post_send(t->qp, UROCE_WR_SEND, 1, &b, 0, 8, 0, 0, 0);
		h_post_send(t->qp, UROCE_WR_SEND, 2, &b, 0, 8, 0, 0, 0);
		assert_int_equal(inj_out(t), 2);
		for (int k = 0; k < naks; k++) {
			inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, RNR(1));
			if (limit != 7 && k == 2)
				break;
			/* Nothing until the RNR timer has run; then both, from the NAKed PSN. */
			assert_int_equal(inj_out(t), 0);
			assert_int_equal(uroce_dev_next_deadline(t->dev), t->now + 10000);
			t->now += 10000;
			uroce_dev_on_timer(t->dev, t->now);
			assert_int_equal(inj_out(t), 2);
			assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN);
			assert_int_equal(t->o[1].bth.psn, INJ_SQ_PSN + 1);
		}
		if (limit == 7) {
			expect_no_wc(t);
			inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 1, ACK);
			expect_wc(t, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
			expect_wc(t, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
		} else {
			expect_wc(t, 1, UROCE_WC_RNR_RETRY_EXC_ERR, UROCE_WC_SEND);
			expect_wc(t, 2, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_SEND);
			assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
			assert_int_equal(inj_qp_counter(t, UROCE_CNT_retry_rnr_exceeded_err), 1);
		}
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_rcvd_rnr_err), (uint64_t)naks);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* roce-sim plan, implied NAK (IBA 9.7): an acknowledgement of a SEND that follows a
 * READ whose response never came means the response was lost: the READ is asked for again
 * (and what follows it, go-back-N), not completed; its late response then completes both. */
static void test_IBA9_7_implied_nak(void **state)
{
	struct inj_opts o = {.retry_cnt = 7};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 4096, 1);
	uint8_t resp[100];
	(void)state;

	memset(resp, 0x3C, sizeof(resp));
	h_post_send(t->qp, UROCE_WR_RDMA_READ, 1, &b, 0, 100, 0x1000, 0x101, 0);
	h_post_send(t->qp, UROCE_WR_SEND, 2, &b, 200, 8, 0, 0, 0);
	assert_int_equal(inj_out(t), 2);
	inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 1, ACK);
	expect_no_wc(t);
	assert_int_equal(inj_out(t), 2);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_RDMA_READ_REQUEST);
	assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN);
	assert_int_equal(t->o[1].bth.psn, INJ_SQ_PSN + 1);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_completer_retry_err), 1);
	struct inj_hdr r = {.opcode = UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, .psn = INJ_SQ_PSN,
			    .ext.aeth = {.syndrome = ACK}, .payload = resp, .len = sizeof(resp)};
	inj_send(t, &r);
	inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 1, ACK);
	expect_wc(t, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	expect_wc(t, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	assert_memory_equal(b.p, resp, sizeof(resp));
	h_buf_free(&b);
	inj_free(t);
}

/* roce-sim plan, ACK timeout (IBA 9.7.6.1.3): with no acknowledgement for a local ACK
 * timeout, everything from the oldest unacknowledged PSN is sent again; an ACK that covers
 * part of the window completes that part and restarts the timer for the rest. */
static void test_IBA9_7_6_1_3_ack_timeout_go_back_n(void **state)
{
	struct inj_opts o = {.timeout = 6, .retry_cnt = 7};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 4096, 1);
	const uint64_t rto = 4096ull << 6;
	(void)state;

	for (uint64_t id = 1; id <= 3; id++)
		h_post_send(t->qp, UROCE_WR_RDMA_WRITE, id, &b, 0, 16, 0x1000, 0x101, 0);
	assert_int_equal(inj_out(t), 3);
	t->now = 10000;
	inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, ACK);
	expect_wc(t, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	assert_int_equal(uroce_dev_next_deadline(t->dev), 10000 + rto);
	t->now = 10000 + rto - 1;
	uroce_dev_on_timer(t->dev, t->now);
	assert_int_equal(inj_out(t), 0);
	t->now++;
	uroce_dev_on_timer(t->dev, t->now);
	assert_int_equal(inj_out(t), 2);
	assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN + 1);
	assert_int_equal(t->o[1].bth.psn, INJ_SQ_PSN + 2);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_retransmitted_pkts), 2);
	assert_int_equal(uroce_dev_next_deadline(t->dev), t->now + rto);
	expect_no_wc(t);
	inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 2, ACK);
	expect_wc(t, 2, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	expect_wc(t, 3, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	assert_int_equal(uroce_dev_next_deadline(t->dev), UROCE_NEVER);
	h_buf_free(&b);
	inj_free(t);
}

/* roce-sim plan, ghost ACK (IBA 9.7): an acknowledgement for a PSN never sent, or
 * older than every outstanding one, is ignored while work is in flight: no completion, the
 * timer left as it was, no resend; the real ACK then completes the work. */
static void test_IBA9_7_ghost_ack_ignored(void **state)
{
	struct inj_opts o = {.retry_cnt = 7};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 4096, 1);
	(void)state;

	h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 1, &b, 0, 600, 0x1000, 0x101, 0); /* 3 packets */
	assert_int_equal(inj_out(t), 3);
	uint64_t deadline = uroce_dev_next_deadline(t->dev);
	static const struct {
		uint8_t opcode, syndrome;
		uint32_t psn;
	} ghosts[] = {
		{UROCE_OP_RC_ACKNOWLEDGE, ACK, INJ_SQ_PSN + 3},       /* one past the last sent */
		{UROCE_OP_RC_ACKNOWLEDGE, ACK, INJ_SQ_PSN + 0x1000},  /* far ahead */
		{UROCE_OP_RC_ACKNOWLEDGE, ACK, INJ_SQ_PSN - 2},       /* before everything */
		{UROCE_OP_RC_ACKNOWLEDGE, NAK_SEQ, INJ_SQ_PSN + 7},   /* a NAK for nothing sent */
		{UROCE_OP_RC_ACKNOWLEDGE, RNR(1), INJ_SQ_PSN - 1},    /* an RNR NAK from the past */
		{UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, ACK, INJ_SQ_PSN + 9},
	};
	t->now = 5000;
	for (size_t i = 0; i < sizeof(ghosts) / sizeof(ghosts[0]); i++)
		inj_aeth(t, ghosts[i].opcode, ghosts[i].psn, ghosts[i].syndrome);
	expect_no_wc(t);
	assert_int_equal(inj_out(t), 0);
	assert_int_equal(uroce_dev_next_deadline(t->dev), deadline);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_ghost_response), 6);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_completer_retry_err), 0);
	inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 2, ACK);
	expect_wc(t, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	h_buf_free(&b);
	inj_free(t);
}

/* roce-sim plan, unexpected opcode (IBA 9.9.2, "bad response"): a response whose opcode
 * does not fit the request it answers (a READ response to a SEND; a READ response MIDDLE
 * where the FIRST is due; an atomic acknowledgement to a READ) completes that request with
 * BAD_RESP_ERR, the QP goes to ERR, the rest flushes. */
static void test_IBA9_9_2_unexpected_response_opcode(void **state)
{
	static const struct {
		enum uroce_wr_opcode op;
		uint8_t resp;
		enum uroce_wc_opcode wc;
	} cases[] = {
		{UROCE_WR_SEND, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, UROCE_WC_SEND},
		{UROCE_WR_RDMA_READ, UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, UROCE_WC_RDMA_READ},
		{UROCE_WR_RDMA_READ, UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, UROCE_WC_RDMA_READ},
	};
	uint8_t data[256] = {0};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct inj_opts o = {.retry_cnt = 7};
		struct inj *t = inj_new(&o);
		struct h_buf b = inj_buf(t, 4096, 1);
		h_post_send(t->qp, cases[i].op, 1, &b, 0, 600, 0x1000, 0x101, 0);
		h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 2, &b, 0, 8, 0x1000, 0x101, 0);
		assert_true(inj_out(t) > 0);
		const struct uroce_opcode_info *info = uroce_opcode_info(cases[i].resp);
		struct inj_hdr r = {.opcode = cases[i].resp, .psn = INJ_SQ_PSN,
				    .ext.aeth = {.syndrome = ACK}, .payload = data,
				    .len = info->flags & UROCE_OPF_PAYLOAD ? 256 : 0};
		inj_send(t, &r);
		expect_wc(t, 1, UROCE_WC_BAD_RESP_ERR, cases[i].wc);
		expect_wc(t, 2, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_RDMA_WRITE);
		assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_bad_response), 1);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* roce-sim plan, partial retry (IBA 9.7, go-back-N; facts.md section 7): a PSN sequence NAK in the
 * middle of a multi-packet message acknowledges the packets before it; the message is sent
 * again from the NAKed PSN only, with MIDDLE and LAST opcodes (no RETH: only the first
 * packet carries it), each packet where it was the first time. */
static void test_IBA9_7_partial_retry_mid_message(void **state)
{
	static const struct {
		enum uroce_wr_opcode op;
		uint8_t middle, last;
	} cases[] = {
		{UROCE_WR_SEND, UROCE_OP_RC_SEND_MIDDLE, UROCE_OP_RC_SEND_LAST},
		{UROCE_WR_RDMA_WRITE, UROCE_OP_RC_RDMA_WRITE_MIDDLE, UROCE_OP_RC_RDMA_WRITE_LAST},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct inj_opts o = {.retry_cnt = 7};
		struct inj *t = inj_new(&o);
		struct h_buf b = inj_buf(t, 4096, 7);
		h_post_send(t->qp, cases[i].op, 1, &b, 0, 1000, 0x1000, 0x101, 0); /* 4 packets */
		assert_int_equal(inj_out(t), 4);
		inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 2, NAK_SEQ);
		assert_int_equal(inj_out(t), 2);
		assert_int_equal(t->o[0].bth.opcode, cases[i].middle);
		assert_int_equal(t->o[0].bth.psn, INJ_SQ_PSN + 2);
		assert_false(t->o[0].ext.present & UROCE_EH_RETH);
		assert_memory_equal(t->o[0].frame + t->o[0].payload_off, b.p + 512, 256);
		assert_int_equal(t->o[1].bth.opcode, cases[i].last);
		assert_int_equal(t->o[1].payload_len, 1000 - 768);
		assert_memory_equal(t->o[1].frame + t->o[1].payload_off, b.p + 768, 1000 - 768);
		assert_true(t->o[1].bth.ackreq);
		expect_no_wc(t);
		inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 3, ACK);
		expect_wc(t, 1, UROCE_WC_SUCCESS,
			  cases[i].op == UROCE_WR_SEND ? UROCE_WC_SEND : UROCE_WC_RDMA_WRITE);
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_rcvd_seq_err), 1);
		h_buf_free(&b);
		inj_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_7_6_1_3_timer_runs_from_the_resend),
		cmocka_unit_test(test_IBA9_7_5_2_8_rnr_retry_limit),
		cmocka_unit_test(test_IBA9_7_implied_nak),
		cmocka_unit_test(test_IBA9_7_6_1_3_ack_timeout_go_back_n),
		cmocka_unit_test(test_IBA9_7_ghost_ack_ignored),
		cmocka_unit_test(test_IBA9_9_2_unexpected_response_opcode),
		cmocka_unit_test(test_IBA9_7_partial_retry_mid_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

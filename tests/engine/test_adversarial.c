/* SPDX-License-Identifier: MIT */
/* Adversarial cases the engine fuzzer reaches (fuzz/fuzz_engine.c), pinned down packet by
 * packet (inject.h) with their exact outcome: what is sent, what completes, which counter
 * moves, and that nothing is written outside what the request may touch. Three of them were
 * bugs the fuzzer found (the retry that met a failed WQE, the inline copy of an empty SGE,
 * the completions of a QP being destroyed). */
#include "inject.h"

#include "engine/priv.h"
#include "wire/psn.h"

#define ACK 0x1F            /* AETH: ACK, no credit information */
#define NAK_SEQ 0x60        /* NAK, PSN sequence error */
#define NAK_INV 0x61        /* NAK, invalid request */
#define RNR(timer) (0x20 | (timer))

static void inj_aeth(struct inj *t, uint8_t opcode, uint32_t psn, uint8_t syndrome)
{
	struct inj_hdr h = {.opcode = opcode, .psn = psn, .ext.aeth = {.syndrome = syndrome}};
	inj_send(t, &h);
}

static void inj_req(struct inj *t, uint8_t opcode, uint32_t psn, const struct uroce_ext *ext,
		    const uint8_t *payload, size_t len, bool ackreq)
{
	struct inj_hdr h = {.opcode = opcode, .psn = psn, .ackreq = ackreq, .payload = payload,
			    .len = len};
	if (ext)
		h.ext = *ext;
	inj_send(t, &h);
}

static void expect_wc(struct inj *t, uint64_t wr_id, enum uroce_wc_status st,
		      enum uroce_wc_opcode op)
{
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, wr_id, st, op);
}

static void expect_no_wc(struct inj *t)
{
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
}

/* IBA 9.7.6.1.3 go-back-N and 9.7.5.2.8 RNR: a retry resends from the oldest WQE. A WQE
 * that failed a local check when it started (here a READ whose buffer no key covers) sent
 * nothing; the retry must pass it again, not send it as if it had PSNs. Found by the
 * fuzzer: the requester sent a READ built from a WQE that had never started and moved its
 * PSN backwards. Either retry resends exactly the SEND before it; the READ then completes
 * with LOC_PROT_ERR, in order, and the QP goes to ERR. */
static void test_IBA9_7_retry_passes_a_failed_wqe_again(void **state)
{
	static const uint8_t naks[2] = {NAK_SEQ, RNR(1)};
	(void)state;

	for (int k = 0; k < 2; k++) {
		struct inj_opts o = {.retry_cnt = 7, .rnr_retry = 7};
		struct inj *t = inj_new(&o);
		struct h_buf b = inj_buf(t, 4096, 1);
		h_post_send(t->qp, UROCE_WR_SEND, 1, &b, 0, 600, 0, 0, 0); /* 3 packets */
		struct uroce_sge sge = h_sge(&b, 0, 8);
		sge.lkey ^= 0x80; /* the key of another registration */
		struct uroce_send_wr rd = {.wr_id = 2, .sg_list = &sge, .num_sge = 1,
					   .opcode = UROCE_WR_RDMA_READ,
					   .send_flags = UROCE_SEND_SIGNALED,
					   .wr.rdma = {.remote_addr = 0x1000, .rkey = 0x101}};
		const struct uroce_send_wr *bad;
		assert_int_equal(uroce_post_send(t->qp, &rd, &bad), 0);
		h_post_send(t->qp, UROCE_WR_SEND, 3, &b, 0, 8, 0, 0, 0);
		/* The SEND goes out; nothing after the failed READ starts. */
		for (int round = 0; round < 2; round++) {
			assert_int_equal(inj_out(t), 3);
			for (int i = 0; i < 3; i++) {
				static const uint8_t ops[3] = {UROCE_OP_RC_SEND_FIRST,
							       UROCE_OP_RC_SEND_MIDDLE,
							       UROCE_OP_RC_SEND_LAST};
				assert_int_equal(t->o[i].bth.opcode, ops[i]);
				assert_int_equal(t->o[i].bth.psn, INJ_SQ_PSN + (uint32_t)i);
			}
			assert_int_equal(t->qp->req.psn, INJ_SQ_PSN + 3);
			assert_int_equal(t->qp->req.psn_max, INJ_SQ_PSN + 3);
			expect_no_wc(t);
			if (round)
				break;
			t->now += 1000;
			inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, naks[k]);
			if (naks[k] != NAK_SEQ) {
				assert_int_equal(inj_out(t), 0); /* the RNR wait first */
				t->now += 1000000;
				uroce_dev_on_timer(t->dev, t->now);
			}
		}
		assert_int_equal(inj_out(t), 0);
		inj_aeth(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN + 2, ACK);
		expect_wc(t, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
		expect_wc(t, 2, UROCE_WC_LOC_PROT_ERR, UROCE_WC_RDMA_READ);
		expect_wc(t, 3, UROCE_WC_WR_FLUSH_ERR, UROCE_WC_SEND);
		assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
		assert_int_equal(inj_out(t), 0);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* ibv_post_send with IBV_SEND_INLINE: an SGE of length 0 may have no address, and a QP
 * created without inline room has no buffer. The post copies nothing from either (it
 * called memcpy with NULL, undefined even for 0 bytes: the sanitizer build stops there). */
static void test_IBA10_8_inline_empty_sge(void **state)
{
	struct inj_opts o = {0};
	struct inj *t = inj_new(&o);
	struct uroce_sge sge = {.addr = 0, .length = 0, .lkey = 0};
	struct uroce_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_SEND,
				   .send_flags = UROCE_SEND_SIGNALED | UROCE_SEND_INLINE};
	const struct uroce_send_wr *bad;
	(void)state;

	assert_int_equal(uroce_post_send(t->qp, &wr, &bad), 0);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_SEND_ONLY);
	assert_int_equal(t->o[0].payload_len, 0);
	inj_free(t);
}

/* IBA 9.7.5.1.3 / 9.7.5.2.4: a requester with more READs (or atomics) outstanding than the
 * responder's max_dest_rd_atomic (2 here) while none has been answered: the one beyond
 * finds no resource and is an invalid request. The two accepted are still answered, then
 * the NAK at the third's PSN; a request arriving after the error is dropped (drop_qp_error)
 * and the QP ends in ERR. The third atomic is not executed. */
static void test_IBA9_7_5_2_4_rd_atomic_flood(void **state)
{
	(void)state;

	for (int atomic = 0; atomic < 2; atomic++) {
		struct inj_opts o = {.epsn = 0x10, .max_dest_rd_atomic = 2, .max_rd_atomic = 4};
		struct inj *t = inj_new(&o);
		struct h_buf b = inj_buf(t, 256, 3);
		memset(b.p, 0, 64);
		for (uint32_t i = 0; i < 3; i++) {
			struct uroce_ext e = {0};
			if (atomic)
				e.atomiceth = (struct uroce_atomiceth){.va = h_va(&b, 8 * i),
								       .rkey = uroce_mr_rkey(b.mr), .swap = 1};
			else
				e.reth = (struct uroce_reth){.va = h_va(&b, 0), .rkey = uroce_mr_rkey(b.mr),
							     .dmalen = 100};
			inj_req(t, atomic ? UROCE_OP_RC_FETCH_ADD : UROCE_OP_RC_RDMA_READ_REQUEST,
				0x10 + i, &e, NULL, 0, true);
		}
		uint8_t data[8] = {0};
		inj_req(t, UROCE_OP_RC_SEND_ONLY, 0x13, NULL, data, 8, true);
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_qp_error), 1);
		assert_int_equal(inj_out(t), 3);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(t->o[i].bth.opcode, atomic ? UROCE_OP_RC_ATOMIC_ACKNOWLEDGE
								    : UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
			assert_int_equal(t->o[i].bth.psn, 0x10 + (uint32_t)i);
		}
		inj_expect_ack(&t->o[2], NAK_INV, 0x12);
		assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
		if (atomic) {
			uint64_t v[3];
			memcpy(v, b.p, sizeof(v));
			assert_int_equal(v[0], 1);
			assert_int_equal(v[1], 1);
			assert_int_equal(v[2], 0);
		}
		h_buf_free(&b);
		inj_free(t);
	}
}

/* IBA 9.8: UC WRITEs that fail validation (a key of another registration, a region without
 * remote write, a range past the region's end, packets that do not add up to the RETH
 * length) are dropped in silence and write nothing; a packet of a message already
 * discarded is a gap; the next message is taken whole. */
static void test_IBA9_8_uc_invalid_writes_write_nothing(void **state)
{
	struct inj_opts o = {.type = UROCE_QPT_UC};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 1024, 5);
	struct h_net n = {0};
	uint8_t before[1024], ro_before[256], pay[256];
	(void)state;

	n.node[0].pd = t->pd;
	struct h_buf ro = h_buf_new(&n, 0, 256, UROCE_ACCESS_REMOTE_READ, 6);
	memcpy(before, b.p, sizeof(before));
	memcpy(ro_before, ro.p, sizeof(ro_before));
	memset(pay, 0xAB, sizeof(pay));
	uint32_t key = uroce_mr_rkey(b.mr);
	struct uroce_ext e = {.reth = {.va = h_va(&b, 0), .rkey = key ^ 0x80, .dmalen = 64}};
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_ONLY, 0, &e, pay, 64, false);
	e.reth = (struct uroce_reth){.va = h_va(&ro, 0), .rkey = uroce_mr_rkey(ro.mr), .dmalen = 64};
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_ONLY, 1, &e, pay, 64, false);
	e.reth = (struct uroce_reth){.va = h_va(&b, 1000), .rkey = key, .dmalen = 64};
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_ONLY, 2, &e, pay, 64, false);
	/* FIRST lands; a LAST that ends short of the RETH length is dropped with its message. */
	e.reth = (struct uroce_reth){.va = h_va(&b, 0), .rkey = key, .dmalen = 600};
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_FIRST, 3, &e, pay, 256, false);
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_LAST, 4, NULL, pay, 100, false);
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_MIDDLE, 5, NULL, pay, 256, false);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_uc_invalid), 4);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_uc_gap), 1);
	assert_memory_equal(b.p, pay, 256);
	assert_memory_equal(b.p + 256, before + 256, 1024 - 256);
	assert_memory_equal(ro.p, ro_before, sizeof(ro_before));
	e.reth = (struct uroce_reth){.va = h_va(&b, 512), .rkey = key, .dmalen = 32};
	inj_req(t, UROCE_OP_UC_RDMA_WRITE_ONLY, 9, &e, pay, 32, false);
	assert_memory_equal(b.p + 512, pay, 32);
	assert_memory_equal(b.p + 544, before + 544, 1024 - 544);
	assert_int_equal(inj_out(t), 0); /* UC never answers */
	expect_no_wc(t);
	assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_RTS);
	h_buf_free(&ro);
	h_buf_free(&b);
	inj_free(t);
}

/* IBA 9.8 / A17.4.5.2: a UD datagram longer than the port MTU (256 here), which no
 * requester sends, is dropped without taking a receive WQE; with no WQE left a datagram is
 * dropped too (UD has no RNR). */
static void test_IBA9_8_ud_too_long_keeps_the_wqe(void **state)
{
	struct inj_opts o = {.type = UROCE_QPT_UD};
	struct inj *t = inj_new(&o);
	struct h_buf r = inj_buf(t, 1024, 1);
	uint8_t pay[300];
	(void)state;

	memset(pay, 0x5A, sizeof(pay));
	h_post_recv(t->qp, 1, &r, 0, 1024);
	struct inj_hdr h = {.opcode = UROCE_OP_UD_SEND_ONLY, .payload = pay, .len = 300,
			    .ext.deth = {.qkey = INJ_QKEY, .srcqp = INJ_PEER_QPN}};
	inj_send(t, &h);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_too_long), 1);
	expect_no_wc(t);
	h.len = 256;
	inj_send(t, &h);
	expect_wc(t, 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_memory_equal(r.p + 40, pay, 256);
	h.len = 10;
	inj_send(t, &h);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_no_recv_wqe), 1);
	expect_no_wc(t);
	h_buf_free(&r);
	inj_free(t);
}

/* IBA 9.7.5.2.8: the last packet of a WRITE with immediate finds no receive WQE: RNR NAK at
 * its PSN before any byte of it lands (the packets before it have landed: they are not
 * sent again). Resent once a receive is posted, it completes the message. */
static void test_IBA9_7_5_2_8_write_imm_rnr_lands_nothing(void **state)
{
	struct inj_opts o = {.epsn = 0x40, .min_rnr_timer = 1, .max_dest_rd_atomic = 4};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 1024, 2);
	uint8_t pay[3][256];
	(void)state;

	memset(b.p, 0, 1024);
	for (int i = 0; i < 3; i++)
		memset(pay[i], 0xA1 + i, 256);
	struct uroce_ext e = {.reth = {.va = h_va(&b, 0), .rkey = uroce_mr_rkey(b.mr), .dmalen = 600},
			      .immdt = 0x77};
	inj_req(t, UROCE_OP_RC_RDMA_WRITE_FIRST, 0x40, &e, pay[0], 256, false);
	inj_req(t, UROCE_OP_RC_RDMA_WRITE_MIDDLE, 0x41, NULL, pay[1], 256, false);
	inj_req(t, UROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x42, &e, pay[2], 88, true);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], RNR(1), 0x42);
	assert_memory_equal(b.p, pay[0], 256);
	assert_memory_equal(b.p + 256, pay[1], 256);
	for (int i = 512; i < 1024; i++)
		assert_int_equal(b.p[i], 0);
	expect_no_wc(t);
	struct h_buf r = inj_buf(t, 64, 3);
	h_post_recv(t->qp, 7, &r, 0, 64);
	inj_req(t, UROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x42, &e, pay[2], 88, true);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], ACK, 0x42);
	assert_memory_equal(b.p + 512, pay[2], 88);
	for (int i = 600; i < 1024; i++)
		assert_int_equal(b.p[i], 0);
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 7, UROCE_WC_SUCCESS, UROCE_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc.byte_len, 600);
	assert_int_equal(wc.imm_data, 0x77);
	h_buf_free(&r);
	h_buf_free(&b);
	inj_free(t);
}

/* IBA 11.6.3: events nobody reads: the ring keeps the 64 oldest, the rest are counted
 * async_lost; a port state set again raises nothing. */
static void test_IBA11_6_3_events_lost_when_unread(void **state)
{
	struct inj_opts o = {0};
	struct inj *t = inj_new(&o);
	struct uroce_async_event ev;
	(void)state;

	for (int k = 0; k < 70; k++)
		uroce_dev_set_port_active(t->dev, k & 1);
	uroce_dev_set_port_active(t->dev, true);
	const union uroce_counters *c = uroce_dev_counters(t->dev);
	assert_int_equal(c->link_downed, 35);
	assert_int_equal(c->async_lost, 6);
	for (int k = 0; k < 64; k++) {
		assert_int_equal(uroce_dev_get_async_event(t->dev, &ev), 1);
		assert_int_equal(ev.type, k & 1 ? UROCE_EVENT_PORT_ACTIVE : UROCE_EVENT_PORT_ERR);
		assert_int_equal(ev.element.port_num, 1);
	}
	assert_int_equal(uroce_dev_get_async_event(t->dev, &ev), 0);
	inj_free(t);
}

/* uroce_qp_destroy frees a QP without completions (engine.h), also when work posted to it in
 * ERR has not been taken in by the engine yet: flushed then, it would complete naming a QP
 * already freed. Found by the fuzzer (a QP recreated while its posts waited). */
static void test_destroy_completes_nothing(void **state)
{
	struct inj_opts o = {0};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 64, 1);
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_ERR};
	(void)state;

	assert_int_equal(uroce_qp_modify(t->qp, &a, UROCE_QPA_STATE), 0);
	h_post_send(t->qp, UROCE_WR_SEND, 1, &b, 0, 8, 0, 0, 0);
	h_post_recv(t->qp, 2, &b, 0, 8);
	assert_int_equal(uroce_qp_destroy(t->qp), 0);
	assert_int_equal(uroce_cq_count(t->cq), 0);
	expect_no_wc(t);
	h_buf_free(&b);
	inj_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_7_retry_passes_a_failed_wqe_again),
		cmocka_unit_test(test_IBA10_8_inline_empty_sge),
		cmocka_unit_test(test_IBA9_7_5_2_4_rd_atomic_flood),
		cmocka_unit_test(test_IBA9_8_uc_invalid_writes_write_nothing),
		cmocka_unit_test(test_IBA9_8_ud_too_long_keeps_the_wqe),
		cmocka_unit_test(test_IBA9_7_5_2_8_write_imm_rnr_lands_nothing),
		cmocka_unit_test(test_IBA11_6_3_events_lost_when_unread),
		cmocka_unit_test(test_destroy_completes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

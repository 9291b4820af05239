/* SPDX-License-Identifier: MIT */
/* The responder and the receive path, packet by packet: requests built by hand (with
 * uroce_rocev2_build) are fed to one device and its answers read back. PSN checks (one NAK
 * per gap, then silence), duplicates (SEND/WRITE re-acknowledged, READ replayed from the
 * PSN asked for, atomics replayed without re-execution), opcode sequence and length rules,
 * the write address of packet n of a message across the PSN wrap, responder resources,
 * header validation with one drop counter per reason, ghost responses, COMM_EST. */
#include "inject.h"

#include "engine/priv.h"
#include "wire/psn.h"

/* A device with one RC QP in RTS (inject.h), its peer the fake QP INJ_PEER_QPN at 10.0.0.1;
 * it expects PSN epsn, sends from PSN INJ_SQ_PSN and takes max_dest READs and atomics. */
static struct inj *rc_new(enum uroce_mtu mtu, uint32_t epsn, uint8_t max_dest)
{
	struct inj_opts o = {.mtu = mtu, .epsn = epsn, .min_rnr_timer = 1, .max_rd_atomic = 4,
			     .retry_cnt = 7, .rnr_retry = 7,
			     .max_dest_rd_atomic = max_dest ? max_dest : H_NO_RD_ATOMIC};
	return inj_new(&o);
}

/* Builds and delivers one packet: opcode, PSN, extended headers and payload as given, the
 * other header fields from h (NULL: the defaults). */
static void inj_pkt(struct inj *t, uint8_t opcode, uint32_t psn, const struct uroce_ext *ext,
		    const uint8_t *payload, size_t len, const struct inj_hdr *h)
{
	struct inj_hdr x = h ? *h : (struct inj_hdr){0};

	x.opcode = opcode;
	x.psn = psn;
	x.ext = ext ? *ext : (struct uroce_ext){0};
	x.payload = payload;
	x.len = len;
	inj_send(t, &x);
}

static void post_recvs(struct inj *t, const struct h_buf *b, int n, uint32_t each)
{
	for (int i = 0; i < n; i++)
		h_post_recv(t->qp, 100 + (uint64_t)i, b, (size_t)i * each, each);
}

/* IBA 9.7.5.1.2: a PSN ahead of the expected one gets one PSN sequence NAK carrying the
 * expected PSN; later packets of the same gap are dropped in silence; the expected PSN
 * ends the gap, and a new gap gets a new NAK. */
static void test_IBA9_7_5_1_2_one_nak_per_gap(void **state)
{
	struct inj *t;
	uint8_t data[64] = {1, 2, 3};
	struct inj_hdr ar = {.ackreq = true};
	(void)state;

	t = rc_new(UROCE_MTU_256, 0x1000, 4);
	struct h_buf b = inj_buf(t, 16 * 64, 1);
	post_recvs(t, &b, 16, 64);
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 0x1002, NULL, data, 10, &ar);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x60, 0x1000);
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 0x1003, NULL, data, 10, &ar);
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 0x1004, NULL, data, 10, &ar);
	assert_int_equal(inj_out(t), 0);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_out_of_seq_request), 1);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_out_of_seq), 2);
	/* The gap filled: 0x1000, 0x1001 accepted; two sends coalesce into one ACK. */
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 0x1000, NULL, data, 10, &ar);
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 0x1001, NULL, data, 10, &ar);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x1F, 0x1001);
	assert_int_equal(t->o[0].ext.aeth.msn, 2);
	/* A new gap, a new NAK. */
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 0x1009, NULL, data, 10, &ar);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x60, 0x1002);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_out_of_seq_request), 2);
	struct uroce_wc wc[4];
	assert_int_equal(uroce_cq_poll(t->cq, wc, 4), 2);
	h_buf_free(&b);
	inj_free(t);
}

/* IBA 9.7.5.1.2 duplicates of SEND and WRITE: not executed again, acknowledged with the
 * PSN of the last SEND/WRITE accepted; AckReq or not. */
static void test_IBA9_7_5_1_2_duplicate_send_write(void **state)
{
	struct inj *t;
	uint8_t data[256];
	(void)state;

	for (int i = 0; i < 256; i++)
		data[i] = (uint8_t)i;
	t = rc_new(UROCE_MTU_256, 10, 4);
	struct h_buf b = inj_buf(t, 4096, 1);
	post_recvs(t, &b, 4, 512);
	struct uroce_ext e = {.reth = {.va = h_va(&b, 3000), .rkey = uroce_mr_rkey(b.mr), .dmalen = 4}};
	inj_pkt(t, UROCE_OP_RC_SEND_FIRST, 10, NULL, data, 256, NULL);
	inj_pkt(t, UROCE_OP_RC_SEND_LAST, 11, NULL, data, 20, NULL);
	inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_ONLY, 12, &e, data, 4, NULL);
	assert_int_equal(inj_out(t), 0); /* no AckReq: nothing yet */
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_ack_deferred), 3);
	struct uroce_wc wc[4];
	assert_int_equal(uroce_cq_poll(t->cq, wc, 4), 1);
	assert_int_equal(wc[0].byte_len, 276);
	b.p[3000] = 0xEE;
	inj_pkt(t, UROCE_OP_RC_SEND_LAST, 11, NULL, data, 20, NULL);
	inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_ONLY, 12, &e, data, 4, NULL);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x1F, 12);
	assert_int_equal(t->o[0].ext.aeth.msn, 2);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_duplicate_request), 2);
	assert_int_equal(uroce_cq_poll(t->cq, wc, 4), 0); /* no second receive completion */
	assert_int_equal(b.p[3000], 0xEE);                /* and no second write */
	h_buf_free(&b);
	inj_free(t);
}

/* IBA 9.7.5.1.3: a duplicate READ is answered from its responder resource, from the PSN it
 * carries: a resend that starts mid-message gets MIDDLE/LAST with the data of that offset;
 * a READ request past the resources the QP allows is an invalid request. */
static void test_IBA9_7_5_1_3_duplicate_read_mid_message(void **state)
{
	struct inj *t;
	(void)state;

	t = rc_new(UROCE_MTU_256, 0xFFFFFE, 1);
	struct h_buf src = inj_buf(t, 2048, 7);
	struct uroce_ext e = {.reth = {.va = h_va(&src, 100), .rkey = uroce_mr_rkey(src.mr),
				       .dmalen = 1000}};
	struct inj_hdr ar = {.ackreq = true};
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_REQUEST, 0xFFFFFE, &e, NULL, 0, &ar);
	assert_int_equal(inj_out(t), 4); /* 1000 bytes: 256 x 3 + 232 */
	static const uint8_t ops[4] = {0x0D, 0x0E, 0x0E, 0x0F};
	for (int k = 0; k < 4; k++) {
		assert_int_equal(t->o[k].bth.opcode, ops[k]);
		assert_int_equal(t->o[k].bth.psn, (0xFFFFFE + k) & 0xFFFFFF);
		assert_int_equal(t->o[k].payload_len, k < 3 ? 256 : 232);
		assert_memory_equal(t->o[k].frame + t->o[k].payload_off, src.p + 100 + k * 256,
				    t->o[k].payload_len);
	}
	assert_int_equal(t->qp->resp.epsn, 2); /* the READ used 4 PSNs, across the wrap */
	/* The requester asks again from PSN 0 (packet 2): MIDDLE then LAST. */
	e.reth.va += 512;
	e.reth.dmalen -= 512;
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_REQUEST, 0, &e, NULL, 0, &ar);
	assert_int_equal(inj_out(t), 2);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE);
	assert_int_equal(t->o[0].bth.psn, 0);
	assert_memory_equal(t->o[0].frame + t->o[0].payload_off, src.p + 100 + 512, 256);
	assert_int_equal(t->o[1].bth.opcode, UROCE_OP_RC_RDMA_READ_RESPONSE_LAST);
	assert_int_equal(t->o[1].bth.psn, 1);
	assert_int_equal(t->o[1].ext.aeth.msn, 1);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_duplicate_request), 1);
	/* A duplicate older than every resource is dropped. */
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_REQUEST, 0xFFFFF0, &e, NULL, 0, &ar);
	assert_int_equal(inj_out(t), 0);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_dup_no_resource), 1);
	/* max_dest_rd_atomic 1: a second READ while the first is still being answered. */
	e.reth.dmalen = 100;
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_REQUEST, 2, &e, NULL, 0, &ar);
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_REQUEST, 3, &e, NULL, 0, &ar);
	assert_int_equal(inj_out(t), 2);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
	inj_expect_ack(&t->o[1], 0x61, 3);
	assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
	h_buf_free(&src);
	inj_free(t);
}

/* IBA 9.7.5.1.3: a duplicate atomic gets the saved original value and is not executed
 * again. */
static void test_IBA9_7_5_1_3_duplicate_atomic_not_reexecuted(void **state)
{
	struct inj *t;
	(void)state;

	t = rc_new(UROCE_MTU_1024, 7, 4);
	struct h_buf m = inj_buf(t, 64, 0);
	uint64_t v = 40;
	memcpy(m.p + 16, &v, 8);
	struct uroce_ext e = {.atomiceth = {.va = h_va(&m, 16), .rkey = uroce_mr_rkey(m.mr), .swap = 2}};
	inj_pkt(t, UROCE_OP_RC_FETCH_ADD, 7, &e, NULL, 0, NULL);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
	assert_int_equal(t->o[0].ext.atomicacketh.orig, 40);
	for (int i = 0; i < 3; i++) {
		inj_pkt(t, UROCE_OP_RC_FETCH_ADD, 7, &e, NULL, 0, NULL);
		assert_int_equal(inj_out(t), 1);
		assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
		assert_int_equal(t->o[0].bth.psn, 7);
		assert_int_equal(t->o[0].ext.atomicacketh.orig, 40);
	}
	memcpy(&v, m.p + 16, 8);
	assert_int_equal(v, 42);
	/* Compare and swap, then its duplicate. */
	e.atomiceth.cmp = 42;
	e.atomiceth.swap = 1000;
	inj_pkt(t, UROCE_OP_RC_CMP_SWAP, 8, &e, NULL, 0, NULL);
	inj_pkt(t, UROCE_OP_RC_CMP_SWAP, 8, &e, NULL, 0, NULL);
	assert_int_equal(inj_out(t), 1); /* one pending resource: one answer */
	assert_int_equal(t->o[0].ext.atomicacketh.orig, 42);
	memcpy(&v, m.p + 16, 8);
	assert_int_equal(v, 1000);
	h_buf_free(&m);
	inj_free(t);
}

/* IBA 9.7.5 (facts.md section 3): FIRST and MIDDLE carry exactly the MTU, LAST 1..MTU,
 * ONLY 0..MTU, and a message continues with its own kind: violations are invalid requests,
 * NAK code 1, and the QP goes to ERR. */
static void test_IBA9_7_5_opcode_sequence_and_lengths(void **state)
{
	uint8_t data[600] = {0};
	(void)state;

	for (int c = 0; c < 7; c++) {
		struct inj *t;
		t = rc_new(UROCE_MTU_256, 50, 4);
		struct h_buf b = inj_buf(t, 4096, 1);
		post_recvs(t, &b, 2, 2048);
		struct uroce_ext e = {.reth = {.va = h_va(&b, 0), .rkey = uroce_mr_rkey(b.mr),
					       .dmalen = 600}};
		uint32_t bad = 50;
		switch (c) {
		case 0: /* FIRST short of the MTU */
			inj_pkt(t, UROCE_OP_RC_SEND_FIRST, 50, NULL, data, 200, NULL);
			break;
		case 1: /* MIDDLE longer than the MTU */
			inj_pkt(t, UROCE_OP_RC_SEND_FIRST, 50, NULL, data, 256, NULL);
			inj_pkt(t, UROCE_OP_RC_SEND_MIDDLE, 51, NULL, data, 260, NULL);
			bad = 51;
			break;
		case 2: /* an empty LAST */
			inj_pkt(t, UROCE_OP_RC_SEND_FIRST, 50, NULL, data, 256, NULL);
			inj_pkt(t, UROCE_OP_RC_SEND_LAST, 51, NULL, data, 0, NULL);
			bad = 51;
			break;
		case 3: /* ONLY longer than the MTU */
			inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 50, NULL, data, 260, NULL);
			break;
		case 4: /* MIDDLE with no message started */
			inj_pkt(t, UROCE_OP_RC_SEND_MIDDLE, 50, NULL, data, 256, NULL);
			break;
		case 5: /* a WRITE MIDDLE inside a SEND */
			inj_pkt(t, UROCE_OP_RC_SEND_FIRST, 50, NULL, data, 256, NULL);
			inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_MIDDLE, 51, NULL, data, 256, NULL);
			bad = 51;
			break;
		case 6: /* WRITE packets adding up to more than the RETH length */
			inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_FIRST, 50, &e, data, 256, NULL);
			inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_MIDDLE, 51, NULL, data, 256, NULL);
			inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_MIDDLE, 52, NULL, data, 256, NULL);
			bad = 52;
			break;
		}
		assert_int_equal(inj_out(t), 1);
		inj_expect_ack(&t->o[0], 0x61, bad);
		assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* IBA 9.7.5 with IBA 9.2's PadCnt: FIRST and MIDDLE packets carry exactly the MTU, whole
 * 4-byte words, so they are never padded; one that is (253 bytes and 3 pad, a well-formed
 * packet as far as the pad rules go) carries less than the MTU, a length error like any
 * other: RC answers NAK invalid request and nothing lands, UC discards the message, a READ
 * response fails the READ (BAD_RESP_ERR). The pad rules proper are test_recv_checks'. */
static void test_IBA9_7_5_padded_first_or_middle_is_a_length_error(void **state)
{
	static const uint8_t data[256] = {1};
	(void)state;

	for (int c = 0; c < 2; c++) {
		struct inj *t = rc_new(UROCE_MTU_256, 50, 4);
		struct h_buf b = inj_buf(t, 1024, 1);
		memset(b.p, 0, 1024);
		post_recvs(t, &b, 1, 1024);
		struct uroce_ext e = {.reth = {.va = h_va(&b, 0), .rkey = uroce_mr_rkey(b.mr),
					       .dmalen = 600}};
		uint32_t bad = 50;
		if (c == 0) {
			inj_pkt(t, UROCE_OP_RC_SEND_FIRST, 50, NULL, data, 253, NULL);
		} else {
			inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_FIRST, 50, &e, data, 256, NULL);
			inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_MIDDLE, 51, NULL, data, 255, NULL);
			bad = 51;
		}
		assert_int_equal(t->pkt[inj_bth_off(t) + 1] >> 4 & 3, c ? 1 : 3);
		assert_int_equal(inj_out(t), 1);
		inj_expect_ack(&t->o[0], 0x61, bad);
		assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_ERR);
		for (size_t i = c ? 256 : 0; i < 1024; i++)
			assert_int_equal(b.p[i], 0);
		assert_int_equal(h_counter(t->dev, UROCE_CNT_drop_bad_pad), 0);
		h_buf_free(&b);
		inj_free(t);
	}

	/* UC: the padded FIRST discards its message; the receive WQE serves the next one. */
	struct inj_opts uo = {.type = UROCE_QPT_UC, .mtu = UROCE_MTU_256, .epsn = 50};
	struct inj *t = inj_new(&uo);
	struct h_buf b = inj_buf(t, 1024, 1);
	post_recvs(t, &b, 1, 1024);
	inj_pkt(t, UROCE_OP_UC_SEND_FIRST, 50, NULL, data, 253, NULL);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_uc_invalid), 1);
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
	inj_pkt(t, UROCE_OP_UC_SEND_ONLY, 51, NULL, data, 12, NULL);
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 100, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 12);
	h_buf_free(&b);
	inj_free(t);

	/* A READ of 600 bytes answered with a padded FIRST: BAD_RESP_ERR, nothing written. */
	t = rc_new(UROCE_MTU_256, 50, 4);
	b = inj_buf(t, 1024, 1);
	memset(b.p, 0, 1024);
	h_post_send(t->qp, UROCE_WR_RDMA_READ, 7, &b, 0, 600, 0x1000, 0x101, 0);
	assert_int_equal(inj_out(t), 1);
	struct uroce_ext ack = {.aeth = {.syndrome = 0x1F}};
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_RESPONSE_FIRST, INJ_SQ_PSN, &ack, data, 254, NULL);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_bad_response), 1);
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 7, UROCE_WC_BAD_RESP_ERR, UROCE_WC_RDMA_READ);
	for (size_t i = 0; i < 1024; i++)
		assert_int_equal(b.p[i], 0);
	h_buf_free(&b);
	inj_free(t);
}

/* facts.md section 7: packet n of a message lands at RETH VA + n x MTU, n counted from the
 * message's first PSN, here across the PSN wrap; each byte once, nothing around it. */
static void test_receiver_write_address(void **state)
{
	struct inj *t;
	uint8_t data[3][256];
	(void)state;

	for (int k = 0; k < 3; k++)
		memset(data[k], 0xA0 + k, 256);
	t = rc_new(UROCE_MTU_256, 0xFFFFFE, 4);
	struct h_buf b = inj_buf(t, 1024, 0);
	memset(b.p, 0, 1024);
	struct uroce_ext e = {.reth = {.va = h_va(&b, 100), .rkey = uroce_mr_rkey(b.mr), .dmalen = 700}};
	struct inj_hdr ar = {.ackreq = true};
	inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_FIRST, 0xFFFFFE, &e, data[0], 256, NULL);
	inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_MIDDLE, 0xFFFFFF, NULL, data[1], 256, NULL);
	inj_pkt(t, UROCE_OP_RC_RDMA_WRITE_LAST, 0, NULL, data[2], 188, &ar);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x1F, 0);
	for (int i = 0; i < 1024; i++) {
		uint8_t want = i < 100 || i >= 800 ? 0 : (uint8_t)(0xA0 + (i - 100) / 256);
		assert_int_equal(b.p[i], want);
	}
	h_buf_free(&b);
	inj_free(t);
}

/* IBA 9.6 / Annex A17: packets that fail header validation are dropped, each under its
 * own counter, and nothing is sent or executed. */
static void test_IBA9_6_header_validation_drops(void **state)
{
	struct inj *t;
	uint8_t data[16] = {0};
	struct uroce_io_addr stranger = h_addr(5, false);
	(void)state;

	t = rc_new(UROCE_MTU_256, 1, 4);
	struct h_buf b = inj_buf(t, 256, 1);
	post_recvs(t, &b, 1, 256);
	struct {
		enum uroce_counter c;
		struct inj_hdr h;
		bool corrupt; /* flip a payload bit after the ICRC */
		bool trunc;   /* the backend saw a datagram longer than its buffer */
	} cases[] = {
		{.c = UROCE_CNT_drop_bad_icrc, .h = {.opcode = UROCE_OP_RC_SEND_ONLY}, .corrupt = true},
		{.c = UROCE_CNT_drop_trunc, .h = {.opcode = UROCE_OP_RC_SEND_ONLY}, .trunc = true},
		{.c = UROCE_CNT_drop_bad_tver, .h = {.opcode = UROCE_OP_RC_SEND_ONLY, .tver = 1}},
		{.c = UROCE_CNT_drop_bad_pkey, .h = {.opcode = UROCE_OP_RC_SEND_ONLY, .pkey = 0x1234}},
		{.c = UROCE_CNT_drop_unknown_qp, .h = {.opcode = UROCE_OP_RC_SEND_ONLY, .destqp = 0x4321}},
		{.c = UROCE_CNT_drop_wrong_src, .h = {.opcode = UROCE_OP_RC_SEND_ONLY, .src = &stranger}},
		{.c = UROCE_CNT_drop_not_local, .h = {.opcode = UROCE_OP_RC_SEND_ONLY, .dst = &stranger}},
		{.c = UROCE_CNT_drop_wrong_transport, .h = {.opcode = UROCE_OP_UC_SEND_ONLY}},
		{.c = UROCE_CNT_rp_cnp_ignored, .h = {.opcode = UROCE_OP_CNP_CNP}}, /* no congestion control */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t before = h_counter(t->dev, cases[i].c);
		struct inj_hdr h = cases[i].h;
		bool cnp = h.opcode == UROCE_OP_CNP_CNP;

		h.psn = 1;
		h.payload = cnp ? NULL : data;
		h.len = cnp ? 0 : 16;
		inj_build(t, &h);
		if (cases[i].corrupt)
			t->pkt[t->len - 6] ^= 0x10;
		inj_deliver_flags(t, cases[i].trunc ? UROCE_IO_PKT_TRUNC : 0);
		assert_int_equal(h_counter(t->dev, cases[i].c), before + 1);
		assert_int_equal(inj_out(t), 0);
	}
	/* A backend that checked the ICRC itself says so (UROCE_IO_PKT_ICRC_OK: the UDP backend's
	 * ID solver computes it), and the engine does not compute it again: the same damage
	 * now gets as far as the QP lookup. */
	uint64_t bad_icrc = h_counter(t->dev, UROCE_CNT_drop_bad_icrc);
	uint64_t unknown_qp = h_counter(t->dev, UROCE_CNT_drop_unknown_qp);
	struct inj_hdr vouched = {.opcode = UROCE_OP_RC_SEND_ONLY, .destqp = 0x4321, .psn = 1,
				  .payload = data, .len = 16};
	inj_build(t, &vouched);
	t->pkt[t->len - 6] ^= 0x10;
	inj_deliver_flags(t, UROCE_IO_PKT_ICRC_OK);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_drop_bad_icrc), bad_icrc);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_drop_unknown_qp), unknown_qp + 1);
	/* A limited-membership default P_Key (0x7FFF) is accepted. */
	struct inj_hdr lim = {.pkey = 0x7FFF, .ackreq = true};
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 1, NULL, data, 16, &lim);
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x1F, 1);
	/* Garbage and a datagram that is not RoCEv2. */
	uint8_t junk[40] = {0x45, 0, 0, 40};
	struct uroce_io_pkt io = {.data = junk, .len = sizeof(junk)};
	uroce_dev_recv(t->dev, &io, 0);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_drop_malformed), 1);
	/* A QP in INIT takes nothing. */
	struct uroce_qp *q2;
	struct uroce_qp_init_attr init = {.send_cq = t->cq, .recv_cq = t->cq, .qp_type = UROCE_QPT_RC,
					  .cap = {.max_recv_wr = 1}};
	assert_int_equal(uroce_qp_create(t->pd, &init, &q2), 0);
	struct inj_hdr to2 = {.destqp = uroce_qp_num(q2)};
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 1, NULL, data, 16, &to2);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_drop_qp_state), 1);
	/* Drops found once the QP is known count on it too. */
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_wrong_src), 1);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_bad_icrc), 0); /* found before the QP */
	h_buf_free(&b);
	inj_free(t);
}

/* Responses for PSNs never sent, or already acknowledged, change nothing (IBA 9.7). */
static void test_ghost_responses(void **state)
{
	struct inj *t;
	(void)state;

	t = rc_new(UROCE_MTU_256, 1, 4);
	struct uroce_ext e = {.aeth = {.syndrome = 0x1F, .msn = 1}};
	inj_pkt(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, &e, NULL, 0, NULL);
	inj_pkt(t, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, INJ_SQ_PSN, &e, NULL, 0, NULL);
	e.aeth.syndrome = 0x61;
	inj_pkt(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, &e, NULL, 0, NULL);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_ghost_response), 3);
	assert_int_equal(uroce_qp_state(t->qp), UROCE_QPS_RTS);
	/* Send one WRITE; an ACK for it completes it, a second is a harmless repeat. */
	struct h_buf b = inj_buf(t, 64, 1);
	h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 1, &b, 0, 8, 0x1000, 0x101, 0);
	assert_int_equal(inj_out(t), 1);
	e.aeth.syndrome = 0x1F;
	inj_pkt(t, UROCE_OP_RC_ACKNOWLEDGE, 0x501, &e, NULL, 0, NULL); /* beyond: a ghost */
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_ghost_response), 4);
	inj_pkt(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, &e, NULL, 0, NULL);
	inj_pkt(t, UROCE_OP_RC_ACKNOWLEDGE, INJ_SQ_PSN, &e, NULL, 0, NULL);
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
	assert_int_equal(uroce_dev_next_deadline(t->dev), UROCE_NEVER); /* timer stopped */
	h_buf_free(&b);
	inj_free(t);
}

/* IBA 11.6.3.1: the first packet a QP receives in RTR raises COMM_EST, once. */
static void test_IBA11_6_3_comm_est(void **state)
{
	struct inj *t;
	struct uroce_async_event ev;
	uint8_t data[4] = {0};
	(void)state;

	t = rc_new(UROCE_MTU_256, 1, 4);
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_RESET};
	assert_int_equal(uroce_qp_modify(t->qp, &a, UROCE_QPA_STATE), 0);
	struct uroce_qp_attr q;
	a = (struct uroce_qp_attr){.qp_state = UROCE_QPS_INIT, .port_num = 1};
	assert_int_equal(uroce_qp_modify(t->qp, &a, UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX |
						      UROCE_QPA_PORT | UROCE_QPA_ACCESS_FLAGS),
			 0);
	a.qp_state = UROCE_QPS_RTR;
	a.path_mtu = UROCE_MTU_256;
	a.dest_qp_num = INJ_PEER_QPN;
	a.rq_psn = 1;
	a.ah_attr.dgid = t->peer;
	a.ah_attr.port_num = 1;
	assert_int_equal(uroce_qp_modify(t->qp, &a, UROCE_QPA_STATE | UROCE_QPA_AV | UROCE_QPA_PATH_MTU |
						      UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN |
						      UROCE_QPA_MAX_DEST_RD_ATOMIC |
						      UROCE_QPA_MIN_RNR_TIMER),
			 0);
	uroce_qp_query(t->qp, &q, NULL);
	assert_int_equal(q.qp_state, UROCE_QPS_RTR);
	struct h_buf b = inj_buf(t, 64, 1);
	post_recvs(t, &b, 2, 16);
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 1, NULL, data, 4, NULL);
	inj_pkt(t, UROCE_OP_RC_SEND_ONLY, 2, NULL, data, 4, NULL);
	assert_int_equal(uroce_dev_get_async_event(t->dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_COMM_EST);
	assert_ptr_equal(ev.element.qp, t->qp);
	assert_int_equal(uroce_dev_get_async_event(t->dev, &ev), 0);
	h_buf_free(&b);
	inj_free(t);
}

/* Arbitrary packets with a valid ICRC (so that they reach the transport logic): every
 * opcode, PSNs around the expected one, keys and addresses in and out of the MR, lengths
 * around the MTU, as requests and as responses to outstanding work. The engine never
 * crashes (the ASan build watches), writes nothing outside its MR, and sends only valid
 * packets. QPs that end up in ERR are brought back to RTS. */
static void test_random_packets_are_harmless(void **state)
{
	struct inj *t;
	uint8_t data[300];
	(void)state;

	t = rc_new(UROCE_MTU_256, 100, 4);
	/* The MR sits in the middle of a larger allocation whose edges must stay intact. */
	uint8_t *mem = malloc(3 * 4096);
	memset(mem, 0x5C, 3 * 4096);
	struct uroce_mr *mr;
	assert_int_equal(uroce_mr_reg(t->pd, mem + 4096, 4096, 0x7000, H_ALL_ACCESS, &mr), 0);
	struct h_buf loc = inj_buf(t, 4096, 3);
	for (int i = 0; i < (int)sizeof(data); i++)
		data[i] = (uint8_t)i;
	for (int iter = 0; iter < 20000; iter++) {
		if (uroce_qp_state(t->qp) != UROCE_QPS_RTS || iter % 500 == 0) {
			h_buf_free(&loc);
			inj_free(t); /* and its MRs */
			free(mem);
			t = rc_new(UROCE_MTU_256, 100, (uint8_t)(test_rand() % 5));
			mem = malloc(3 * 4096);
			memset(mem, 0x5C, 3 * 4096);
			assert_int_equal(uroce_mr_reg(t->pd, mem + 4096, 4096, 0x7000, H_ALL_ACCESS, &mr), 0);
			loc = inj_buf(t, 4096, 3);
		}
		uint64_t r = test_rand();
		if (r % 16 == 0) {
			/* Keep the requester busy so that responses have something to match. */
			static const enum uroce_wr_opcode ops[] = {UROCE_WR_SEND, UROCE_WR_RDMA_WRITE,
								   UROCE_WR_RDMA_READ,
								   UROCE_WR_ATOMIC_FETCH_AND_ADD};
			enum uroce_wr_opcode op = ops[(r >> 8) % 4];
			uint32_t len = op == UROCE_WR_ATOMIC_FETCH_AND_ADD ? 8 : (uint32_t)(r >> 16) % 900;
			struct uroce_sge sge = h_sge(&loc, 0, len);
			struct uroce_send_wr wr = {.wr_id = (uint64_t)iter, .sg_list = &sge, .num_sge = 1,
						   .opcode = op,
						   .wr.rdma = {.remote_addr = 0x1000, .rkey = 0x101}};
			const struct uroce_send_wr *bad;
			uroce_post_send(t->qp, &wr, &bad);
		}
		if (r % 7 == 0) {
			struct uroce_sge sge = h_sge(&loc, 0, 600);
			struct uroce_recv_wr rwr = {.wr_id = (uint64_t)iter, .sg_list = &sge, .num_sge = 1};
			const struct uroce_recv_wr *rbad;
			uroce_post_recv(t->qp, &rwr, &rbad); /* may be full */
		}
		uint8_t opcode = (uint8_t)(r >> 8);
		if (opcode & 0x80 || !uroce_opcode_valid(opcode))
			opcode &= 0x1F; /* mostly RC: the QP's own transport */
		if (!uroce_opcode_valid(opcode))
			continue;
		struct uroce_ext e = {0};
		uint64_t r2 = test_rand();
		e.reth.va = r2 % 3 ? 0x7000 + (r2 >> 8) % 4200 : r2;
		e.reth.rkey = r2 % 5 ? uroce_mr_rkey(mr) : (uint32_t)(r2 >> 32);
		e.reth.dmalen = (uint32_t)(r2 >> 20) % 1200;
		e.atomiceth.va = e.reth.va & (r2 % 4 ? ~7ull : ~0ull);
		e.atomiceth.rkey = e.reth.rkey;
		e.atomiceth.swap = r2;
		e.aeth.syndrome = (uint8_t)(r2 >> 40);
		e.aeth.msn = (uint32_t)(r2 >> 48);
		e.ieth = r2 % 2 ? uroce_mr_rkey(mr) : 0;
		uint32_t psn = r % 3 ? uroce_psn_add(t->qp->resp.epsn, (uint32_t)(r >> 24) % 8 - 4)
				     : uroce_psn_add(t->qp->req.una, (uint32_t)(r >> 24) % 8 - 2);
		size_t len = uroce_opcode_info(opcode)->flags & UROCE_OPF_PAYLOAD ? (r >> 40) % 270 : 0;
		struct inj_hdr po = {.ackreq = r & 1};
		inj_pkt(t, opcode, psn, &e, data, len, &po);
		if (r % 3 == 0) {
			uroce_dev_on_timer(t->dev, t->now += 1000000);
			inj_out(t); /* asserts that every packet sent is valid */
		}
		struct uroce_wc wc[16];
		while (uroce_cq_poll(t->cq, wc, 16) > 0)
			;
		for (int i = 0; i < 4096; i++)
			if (mem[i] != 0x5C || mem[2 * 4096 + i] != 0x5C)
				fail_msg("iteration %d: byte outside the MR written", iter);
	}
	uroce_mr_dereg(mr);
	free(mem);
	h_buf_free(&loc);
	inj_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_7_5_1_2_one_nak_per_gap),
		cmocka_unit_test(test_IBA9_7_5_1_2_duplicate_send_write),
		cmocka_unit_test(test_IBA9_7_5_1_3_duplicate_read_mid_message),
		cmocka_unit_test(test_IBA9_7_5_1_3_duplicate_atomic_not_reexecuted),
		cmocka_unit_test(test_IBA9_7_5_opcode_sequence_and_lengths),
		cmocka_unit_test(test_IBA9_7_5_padded_first_or_middle_is_a_length_error),
		cmocka_unit_test(test_receiver_write_address),
		cmocka_unit_test(test_IBA9_6_header_validation_drops),
		cmocka_unit_test(test_ghost_responses),
		cmocka_unit_test(test_IBA11_6_3_comm_est),
		cmocka_unit_test(test_random_packets_are_harmless),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

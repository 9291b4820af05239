/* SPDX-License-Identifier: MIT */
/* RC on a clean simulated fabric: every opcode and WR type, message sizes 0, 1, MTU - 1, MTU,
 * MTU + 1 and several MB at every path MTU, segmentation checked on the wire (FIRST / MIDDLE /
 * LAST / ONLY, RETH only first, ImmDt and IETH only last, pad, AckReq), PSN wrap, SGE lists,
 * inline data, unsignaled requests, chains, fences, max_rd_atomic, local invalidate, ACK
 * coalescing and IPv6. Every byte is checked, and so are the bytes around it. */
#include "harness.h"

#include "engine/priv.h"
#include "wire/psn.h"

#define GUARD 64 /* bytes checked untouched on each side of a target */

struct pair {
	struct h_net *net;
	struct uroce_qp *qp[2];
	struct h_log log;
};

static void pair_new(struct pair *p, const struct h_qp_opts *o, bool ipv6)
{
	memset(p, 0, sizeof(*p));
	p->net = h_net_new(7, 2, ipv6, NULL);
	h_qp_pair(p->net, 0, 1, o, p->qp);
	h_log_start(p->net, &p->log);
}

static void pair_free(struct pair *p)
{
	h_log_free(p->net, &p->log);
	h_net_free(p->net);
}

static const uint8_t tp_rc = UROCE_TP_RC;

/* The low five opcode bits. */
static uint8_t op5(const struct h_rec *r) { return r->opcode & 0x1F; }

/* Checks the request packets node 0 sent for one message of len bytes, starting at PSN psn:
 * segmentation into MTU-sized packets with the right opcodes and headers (IBA 9.2 Table
 * 36; facts.md section 3 for the length and AckReq rules). */
static void check_segments(const struct h_log *log, uint32_t psn, uint64_t len, uint32_t mtu,
			   const uint8_t ops[4], bool reth, bool imm, bool inv)
{
	uint64_t npkts = len ? (len + mtu - 1) / mtu : 1, k = 0;

	for (size_t i = 0; i < log->n; i++) {
		const struct h_rec *r = &log->rec[i];
		if (r->node != 0)
			continue;
		assert_true(r->icrc_ok);
		assert_int_equal(r->psn, uroce_psn_add(psn, (uint32_t)k));
		bool first = k == 0, last = k + 1 == npkts;
		uint8_t want = npkts == 1 ? ops[3] : first ? ops[0] : last ? ops[2] : ops[1];
		assert_int_equal(r->opcode, tp_rc | want);
		uint32_t plen = (uint32_t)(last ? len - k * mtu : mtu);
		assert_int_equal(r->payload_len, plen);
		assert_int_equal(r->padcnt, (0u - plen) & 3);
		assert_int_equal(!!(r->ext.present & UROCE_EH_RETH), reth && first);
		if (reth && first)
			assert_int_equal(r->ext.reth.dmalen, len);
		assert_int_equal(!!(r->ext.present & UROCE_EH_IMMDT), imm && last);
		assert_int_equal(!!(r->ext.present & UROCE_EH_IETH), inv && last);
		/* AckReq on the last packet and at least every 64 packets. */
		if (last)
			assert_true(r->ackreq);
		if ((k + 1) % 64 == 0)
			assert_true(r->ackreq);
		k++;
	}
	assert_int_equal(k, npkts);
}

static const uint32_t mtus[] = {256, 512, 1024, 2048, 4096};

static uint64_t sizes_for(uint32_t mtu, uint64_t out[8])
{
	uint64_t n = 0;
	out[n++] = 0;
	out[n++] = 1;
	out[n++] = mtu - 1;
	out[n++] = mtu;
	out[n++] = mtu + 1;
	out[n++] = 3 * (uint64_t)mtu + 3;
	out[n++] = 100 * (uint64_t)mtu;
	return n;
}

/* IBA 9.4.1 / 9.7.5: SEND of every size at every MTU lands in the receive buffer and
 * completes on both sides. */
static void test_IBA9_4_1_send_sizes(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 5; m++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = (enum uroce_mtu)(m + 1),
				      .psn = {100, 5000}};
		struct pair p;
		uint64_t sizes[8], ns = sizes_for(mtus[m], sizes);
		pair_new(&p, &o, false);
		for (uint64_t s = 0; s < ns; s++) {
			uint32_t len = (uint32_t)sizes[s];
			struct h_buf src = h_buf_new(p.net, 0, len + 1, H_ALL_ACCESS, (uint32_t)s + 1);
			struct h_buf dst = h_buf_new(p.net, 1, len + 2 * GUARD, H_ALL_ACCESS, 99);
			uint8_t *before = malloc(dst.len);
			memcpy(before, dst.p, dst.len);
			uint32_t psn = p.qp[0]->req.psn;
			p.log.n = 0;
			h_post_recv(p.qp[1], 500 + s, &dst, GUARD, len + GUARD);
			h_post_send(p.qp[0], UROCE_WR_SEND, s, &src, 0, len, 0, 0, 0);
			h_run(p.net, UINT64_MAX);
			struct uroce_wc wc = h_poll1(p.net, 0);
			h_expect_wc(&wc, s, UROCE_WC_SUCCESS, UROCE_WC_SEND);
			wc = h_poll1(p.net, 1);
			h_expect_wc(&wc, 500 + s, UROCE_WC_SUCCESS, UROCE_WC_RECV);
			assert_int_equal(wc.byte_len, len);
			assert_int_equal(wc.wc_flags, 0);
			assert_int_equal(wc.qp_num, uroce_qp_num(p.qp[1]));
			assert_memory_equal(dst.p + GUARD, src.p, len);
			assert_memory_equal(dst.p, before, GUARD);
			assert_memory_equal(dst.p + GUARD + len, before + GUARD + len, GUARD);
			static const uint8_t send_ops[4] = {0x00, 0x01, 0x02, 0x04};
			check_segments(&p.log, psn, len, mtus[m], send_ops, false, false, false);
			h_expect_empty(p.net, 0);
			h_expect_empty(p.net, 1);
			free(before);
			h_buf_free(&src);
			h_buf_free(&dst);
		}
		assert_int_equal(h_counter(p.net->node[0].dev, UROCE_CNT_retransmitted_pkts), 0);
		assert_int_equal(h_counter(p.net->node[1].dev, UROCE_CNT_duplicate_request), 0);
		pair_free(&p);
	}
}

/* RDMA WRITE of every size at every MTU: the bytes land at VA + offset and nothing around
 * them changes; no receive WQE is used (IBA 9.4.2). */
static void test_IBA9_4_2_write_sizes(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 5; m++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = (enum uroce_mtu)(m + 1)};
		struct pair p;
		uint64_t sizes[8], ns = sizes_for(mtus[m], sizes);
		pair_new(&p, &o, false);
		for (uint64_t s = 0; s < ns; s++) {
			uint32_t len = (uint32_t)sizes[s];
			struct h_buf src = h_buf_new(p.net, 0, len + 1, H_ALL_ACCESS, (uint32_t)s + 7);
			struct h_buf dst = h_buf_new(p.net, 1, len + 2 * GUARD, H_ALL_ACCESS, 98);
			uint8_t *before = malloc(dst.len);
			memcpy(before, dst.p, dst.len);
			uint32_t psn = p.qp[0]->req.psn;
			p.log.n = 0;
			h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, s, &src, 0, len, h_va(&dst, GUARD),
				    uroce_mr_rkey(dst.mr), 0);
			h_run(p.net, UINT64_MAX);
			struct uroce_wc wc = h_poll1(p.net, 0);
			h_expect_wc(&wc, s, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
			h_expect_empty(p.net, 1);
			assert_memory_equal(dst.p + GUARD, src.p, len);
			assert_memory_equal(dst.p, before, GUARD);
			assert_memory_equal(dst.p + GUARD + len, before + GUARD + len, GUARD);
			static const uint8_t write_ops[4] = {0x06, 0x07, 0x08, 0x0A};
			check_segments(&p.log, psn, len, mtus[m], write_ops, true, false, false);
			free(before);
			h_buf_free(&src);
			h_buf_free(&dst);
		}
		pair_free(&p);
	}
}

/* RDMA READ of every size at every MTU: one request using one PSN per response packet;
 * responses FIRST/MIDDLE/LAST/ONLY with AETH on FIRST, LAST and ONLY (IBA 9.4.3, 9.7.1). */
static void test_IBA9_4_3_read_sizes(void **state)
{
	(void)state;
	for (unsigned m = 0; m < 5; m++) {
		struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = (enum uroce_mtu)(m + 1),
				      .psn = {0x10, 0x20}};
		struct pair p;
		uint64_t sizes[8], ns = sizes_for(mtus[m], sizes);
		pair_new(&p, &o, false);
		for (uint64_t s = 0; s < ns; s++) {
			uint32_t len = (uint32_t)sizes[s];
			struct h_buf src = h_buf_new(p.net, 1, len + 1, H_ALL_ACCESS, (uint32_t)s + 3);
			struct h_buf dst = h_buf_new(p.net, 0, len + 2 * GUARD, H_ALL_ACCESS, 97);
			uint8_t *before = malloc(dst.len);
			memcpy(before, dst.p, dst.len);
			uint32_t psn = p.qp[0]->req.psn;
			uint32_t npkts = len ? (len + mtus[m] - 1) / mtus[m] : 1;
			p.log.n = 0;
			h_post_send(p.qp[0], UROCE_WR_RDMA_READ, s, &dst, GUARD, len, h_va(&src, 0),
				    uroce_mr_rkey(src.mr), 0);
			h_run(p.net, UINT64_MAX);
			struct uroce_wc wc = h_poll1(p.net, 0);
			h_expect_wc(&wc, s, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
			assert_int_equal(wc.byte_len, len);
			assert_memory_equal(dst.p + GUARD, src.p, len);
			assert_memory_equal(dst.p, before, GUARD);
			assert_memory_equal(dst.p + GUARD + len, before + GUARD + len, GUARD);
			/* The wire: one request, npkts responses with consecutive PSNs. */
			uint32_t k = 0, reqs = 0;
			for (size_t i = 0; i < p.log.n; i++) {
				const struct h_rec *r = &p.log.rec[i];
				if (r->node == 0) {
					assert_int_equal(r->opcode, UROCE_OP_RC_RDMA_READ_REQUEST);
					assert_int_equal(r->psn, psn);
					assert_int_equal(r->ext.reth.dmalen, len);
					reqs++;
					continue;
				}
				assert_int_equal(r->psn, uroce_psn_add(psn, k));
				uint8_t want = npkts == 1 ? 0x10 : k == 0 ? 0x0D : k + 1 == npkts ? 0x0F : 0x0E;
				assert_int_equal(op5(r), want);
				assert_int_equal(!!(r->ext.present & UROCE_EH_AETH), want != 0x0E);
				assert_int_equal(r->payload_len,
						 k + 1 == npkts ? len - k * mtus[m] : mtus[m]);
				k++;
			}
			assert_int_equal(reqs, 1);
			assert_int_equal(k, npkts);
			free(before);
			h_buf_free(&src);
			h_buf_free(&dst);
		}
		pair_free(&p);
	}
}

/* Immediate data and invalidation: SEND_WITH_IMM, RDMA_WRITE_WITH_IMM (which consumes a
 * receive WQE and reports the write's length), SEND_WITH_INV (IBA 9.4.1.1, 9.4.2, 10.6). */
static void test_IBA9_4_imm_and_inv(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_256};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf src = h_buf_new(p.net, 0, 1000, H_ALL_ACCESS, 1);
	struct h_buf dst = h_buf_new(p.net, 1, 1000, H_ALL_ACCESS, 2);
	struct h_buf rbuf = h_buf_new(p.net, 1, 1000, H_ALL_ACCESS, 3);
	struct h_buf inv = h_buf_new(p.net, 1, 64, H_ALL_ACCESS | UROCE_ACCESS_INVALIDATE, 4);
	static const uint8_t imm_ops[4] = {0x00, 0x01, 0x03, 0x05};
	static const uint8_t wimm_ops[4] = {0x06, 0x07, 0x09, 0x0B};
	static const uint8_t inv_ops[4] = {0x00, 0x01, 0x16, 0x17};
	uint32_t psn;

	/* SEND_WITH_IMM, three packets. */
	psn = p.qp[0]->req.psn;
	p.log.n = 0;
	h_post_recv(p.qp[1], 10, &rbuf, 0, 1000);
	h_post_send(p.qp[0], UROCE_WR_SEND_WITH_IMM, 1, &src, 0, 600, 0, 0, UROCE_SEND_SOLICITED);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(p.net, 1);
	h_expect_wc(&wc, 10, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 600);
	assert_int_equal(wc.wc_flags, UROCE_WC_F_WITH_IMM);
	assert_int_equal(wc.imm_data, 0x01010101u);
	assert_memory_equal(rbuf.p, src.p, 600);
	check_segments(&p.log, psn, 600, 256, imm_ops, false, true, false);
	assert_true(p.log.rec[2].se); /* SOLICITED: SE on the last packet only */
	assert_false(p.log.rec[0].se);

	/* RDMA_WRITE_WITH_IMM, one and three packets. */
	for (uint32_t len = 200; len <= 700; len += 500) {
		psn = p.qp[0]->req.psn;
		p.log.n = 0;
		h_post_recv(p.qp[1], 20 + len, &rbuf, 0, 8);
		h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE_WITH_IMM, 2, &src, 100, len, h_va(&dst, 50),
			    uroce_mr_rkey(dst.mr), 0);
		h_run(p.net, UINT64_MAX);
		wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
		wc = h_poll1(p.net, 1);
		h_expect_wc(&wc, 20 + len, UROCE_WC_SUCCESS, UROCE_WC_RECV_RDMA_WITH_IMM);
		assert_int_equal(wc.byte_len, len);
		assert_int_equal(wc.wc_flags, UROCE_WC_F_WITH_IMM);
		assert_int_equal(wc.imm_data, 0x02020202u);
		assert_memory_equal(dst.p + 50, src.p + 100, len);
		check_segments(&p.log, psn, len, 256, wimm_ops, true, true, false);
	}

	/* SEND_WITH_INV: the responder invalidates the R_Key it names. */
	psn = p.qp[0]->req.psn;
	p.log.n = 0;
	h_post_recv(p.qp[1], 30, &rbuf, 0, 1000);
	struct uroce_sge sge = h_sge(&src, 0, 300);
	struct uroce_send_wr wr = {.wr_id = 3, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_SEND_WITH_INV, .send_flags = UROCE_SEND_SIGNALED,
				   .invalidate_rkey = uroce_mr_rkey(inv.mr)};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 3, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(p.net, 1);
	h_expect_wc(&wc, 30, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.wc_flags, UROCE_WC_F_WITH_INV);
	assert_int_equal(wc.invalidated_rkey, uroce_mr_rkey(inv.mr));
	assert_false(uroce_mr_valid(inv.mr));
	assert_true(p.log.rec[1].ext.ieth == uroce_mr_rkey(inv.mr));
	check_segments(&p.log, psn, 300, 256, inv_ops, false, false, true);

	h_buf_free(&src);
	h_buf_free(&dst);
	h_buf_free(&rbuf);
	h_buf_free(&inv);
	pair_free(&p);
}

/* Atomics (IBA 9.4.5): compare-and-swap that matches and that does not, fetch-and-add; the
 * original value comes back into the requester's 8-byte buffer. */
static void test_IBA9_4_5_atomics(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf target = h_buf_new(p.net, 1, 64, H_ALL_ACCESS, 5);
	struct h_buf res = h_buf_new(p.net, 0, 64, H_ALL_ACCESS, 6);
	uint64_t v = 1000;
	memcpy(target.p + 8, &v, 8);

	struct uroce_sge sge = h_sge(&res, 0, 8);
	struct uroce_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_ATOMIC_CMP_AND_SWP,
				   .send_flags = UROCE_SEND_SIGNALED,
				   .wr.atomic = {.remote_addr = h_va(&target, 8), .compare_add = 1000,
						 .swap = 77, .rkey = uroce_mr_rkey(target.mr)}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_COMP_SWAP);
	memcpy(&v, res.p, 8);
	assert_int_equal(v, 1000);
	memcpy(&v, target.p + 8, 8);
	assert_int_equal(v, 77);
	assert_int_equal(p.log.rec[0].opcode, UROCE_OP_RC_CMP_SWAP);
	assert_int_equal(p.log.rec[0].ext.atomiceth.cmp, 1000);
	assert_int_equal(p.log.rec[0].ext.atomiceth.swap, 77);
	assert_int_equal(p.log.rec[1].opcode, UROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
	assert_int_equal(p.log.rec[1].ext.atomicacketh.orig, 1000);

	/* No match: memory unchanged, the original still returned. */
	wr.wr_id = 2;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 99;
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_COMP_SWAP);
	memcpy(&v, res.p, 8);
	assert_int_equal(v, 77);
	memcpy(&v, target.p + 8, 8);
	assert_int_equal(v, 77);

	/* Fetch and add, ten times in one burst. */
	for (int i = 0; i < 10; i++) {
		wr.wr_id = 10 + (uint64_t)i;
		wr.opcode = UROCE_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.compare_add = 3;
		assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	}
	h_run(p.net, UINT64_MAX);
	for (int i = 0; i < 10; i++) {
		wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, 10 + (uint64_t)i, UROCE_WC_SUCCESS, UROCE_WC_FETCH_ADD);
	}
	memcpy(&v, target.p + 8, 8);
	assert_int_equal(v, 77 + 30);
	memcpy(&v, res.p, 8);
	assert_int_equal(v, 77 + 27); /* the last one's original */
	h_buf_free(&target);
	h_buf_free(&res);
	pair_free(&p);
}

/* Several megabytes each way in both directions at once, with READ, WRITE and SEND mixed;
 * every byte checked. */
static void test_large_messages(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_4096};
	struct pair p;
	const uint32_t len = 3 * 1024 * 1024 + 123;
	(void)state;

	pair_new(&p, &o, false);
	h_log_free(p.net, &p.log);
	struct h_buf a = h_buf_new(p.net, 0, len, H_ALL_ACCESS, 11);
	struct h_buf b = h_buf_new(p.net, 1, len, H_ALL_ACCESS, 12);
	struct h_buf ra = h_buf_new(p.net, 0, len, H_ALL_ACCESS, 13);
	struct h_buf rb = h_buf_new(p.net, 1, len, H_ALL_ACCESS, 14);
	struct h_buf wa = h_buf_new(p.net, 0, len, H_ALL_ACCESS, 15);

	h_post_recv(p.qp[1], 1, &rb, 0, len);
	h_post_send(p.qp[0], UROCE_WR_SEND, 2, &a, 0, len, 0, 0, 0);
	h_post_send(p.qp[0], UROCE_WR_RDMA_READ, 3, &ra, 0, len, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_post_send(p.qp[1], UROCE_WR_RDMA_WRITE, 4, &b, 0, len, h_va(&wa, 0), uroce_mr_rkey(wa.mr),
		    0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc[4];
	assert_int_equal(uroce_cq_poll(p.net->node[0].cq, wc, 4), 2);
	h_expect_wc(&wc[0], 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	h_expect_wc(&wc[1], 3, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	assert_int_equal(uroce_cq_poll(p.net->node[1].cq, wc, 4), 2);
	/* Node 1's CQ holds its WRITE's and its receive's completions, in either order. */
	for (int i = 0; i < 2; i++) {
		if (wc[i].wr_id == 1)
			h_expect_wc(&wc[i], 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
		else
			h_expect_wc(&wc[i], 4, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	}
	assert_memory_equal(rb.p, a.p, len);
	assert_memory_equal(ra.p, b.p, len);
	assert_memory_equal(wa.p, b.p, len);
	assert_int_equal(h_counter(p.net->node[0].dev, UROCE_CNT_retransmitted_pkts), 0);
	h_buf_free(&a);
	h_buf_free(&b);
	h_buf_free(&ra);
	h_buf_free(&rb);
	h_buf_free(&wa);
	pair_free(&p);
}

/* IBA 9.7.1: PSNs are 24 bits and wrap; messages straddling 0xFFFFFF -> 0 work both ways,
 * READ responses included. */
static void test_IBA9_7_1_psn_wrap(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_256,
			      .psn = {0xFFFFF0, 0xFFFFFA}};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf a = h_buf_new(p.net, 0, 20000, H_ALL_ACCESS, 21);
	struct h_buf b = h_buf_new(p.net, 1, 20000, H_ALL_ACCESS, 22);
	struct h_buf c = h_buf_new(p.net, 0, 20000, H_ALL_ACCESS, 23);
	h_post_recv(p.qp[1], 1, &b, 0, 20000);
	h_post_send(p.qp[0], UROCE_WR_SEND, 2, &a, 0, 10000, 0, 0, 0); /* 40 packets */
	h_post_send(p.qp[0], UROCE_WR_RDMA_READ, 3, &c, 0, 8000, h_va(&b, 10000),
		    uroce_mr_rkey(b.mr), 0);
	h_post_send(p.qp[1], UROCE_WR_RDMA_WRITE, 4, &b, 10000, 9000, h_va(&c, 10000),
		    uroce_mr_rkey(c.mr), 0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 3, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	assert_memory_equal(b.p, a.p, 10000);
	assert_memory_equal(c.p, b.p + 10000, 8000);
	assert_memory_equal(c.p + 10000, b.p + 10000, 9000);
	/* The PSNs went through the wrap. */
	bool saw_top = false, saw_zero = false;
	for (size_t i = 0; i < p.log.n; i++) {
		saw_top |= p.log.rec[i].node == 0 && p.log.rec[i].psn == 0xFFFFFF;
		saw_zero |= p.log.rec[i].node == 0 && p.log.rec[i].psn == 0;
	}
	assert_true(saw_top && saw_zero);
	assert_int_equal(p.qp[0]->req.psn, (0xFFFFF0 + 40 + 32) & 0xFFFFFF);
	assert_int_equal(h_counter(p.net->node[0].dev, UROCE_CNT_retransmitted_pkts), 0);
	h_buf_free(&a);
	h_buf_free(&b);
	h_buf_free(&c);
	pair_free(&p);
}

/* Several SGEs on both sides, inline data, unsignaled requests (IBA 10.8.3.1: no completion
 * unless signaled or failed), sq_sig_all, and a chain of requests in one post. */
static void test_IBA10_8_sge_inline_signaling(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_512};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf a = h_buf_new(p.net, 0, 4000, H_ALL_ACCESS, 31);
	struct h_buf b = h_buf_new(p.net, 1, 4000, H_ALL_ACCESS, 32);
	uint8_t expect[4000];

	/* Four SGEs gathered into one SEND, scattered over three receive SGEs. */
	struct uroce_sge s[4] = {h_sge(&a, 0, 100), h_sge(&a, 1000, 700), h_sge(&a, 3000, 1),
				 h_sge(&a, 200, 600)};
	struct uroce_sge r[3] = {h_sge(&b, 0, 10), h_sge(&b, 2000, 1000), h_sge(&b, 100, 500)};
	struct uroce_recv_wr rwr = {.wr_id = 1, .sg_list = r, .num_sge = 3};
	const struct uroce_recv_wr *rbad;
	assert_int_equal(uroce_post_recv(p.qp[1], &rwr, &rbad), 0);
	struct uroce_send_wr wr = {.wr_id = 2, .sg_list = s, .num_sge = 4, .opcode = UROCE_WR_SEND,
				   .send_flags = UROCE_SEND_SIGNALED};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 1);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.byte_len, 1401);
	size_t n = 0;
	for (int i = 0; i < 4; i++) {
		memcpy(expect + n, a.p + (s[i].addr - h_va(&a, 0)), s[i].length);
		n += s[i].length;
	}
	assert_memory_equal(b.p, expect, 10);
	assert_memory_equal(b.p + 2000, expect + 10, 1000);
	assert_memory_equal(b.p + 100, expect + 1010, 391);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);

	/* Inline: the source is read at post time, from host memory, without an L_Key. */
	uint8_t tmp[200];
	memset(tmp, 0x5A, sizeof(tmp));
	struct uroce_sge is = {.addr = (uintptr_t)tmp, .length = sizeof(tmp), .lkey = 0xDEAD};
	wr = (struct uroce_send_wr){.wr_id = 3, .sg_list = &is, .num_sge = 1,
				    .opcode = UROCE_WR_RDMA_WRITE,
				    .send_flags = UROCE_SEND_INLINE | UROCE_SEND_SIGNALED,
				    .wr.rdma = {.remote_addr = h_va(&b, 3500), .rkey = uroce_mr_rkey(b.mr)}};
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	memset(tmp, 0, sizeof(tmp));
	h_run(p.net, UINT64_MAX);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 3, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	for (int i = 0; i < 200; i++)
		assert_int_equal(b.p[3500 + i], 0x5A);

	/* A chain of five WRITEs, only the last signaled: one completion. */
	struct uroce_sge cs[5];
	struct uroce_send_wr chain[5];
	for (int i = 0; i < 5; i++) {
		cs[i] = h_sge(&a, (size_t)i * 100, 100);
		chain[i] = (struct uroce_send_wr){.wr_id = 100 + (uint64_t)i, .sg_list = &cs[i],
						  .num_sge = 1, .opcode = UROCE_WR_RDMA_WRITE,
						  .next = i < 4 ? &chain[i + 1] : NULL,
						  .send_flags = i == 4 ? UROCE_SEND_SIGNALED : 0,
						  .wr.rdma = {.remote_addr = h_va(&b, (size_t)i * 100),
							      .rkey = uroce_mr_rkey(b.mr)}};
	}
	assert_int_equal(uroce_post_send(p.qp[0], chain, &bad), 0);
	h_run(p.net, UINT64_MAX);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 104, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	h_expect_empty(p.net, 0);
	assert_memory_equal(b.p, a.p, 500);
	h_buf_free(&a);
	h_buf_free(&b);
	pair_free(&p);

	/* sq_sig_all: every request completes. */
	o.sq_sig_all = true;
	pair_new(&p, &o, false);
	a = h_buf_new(p.net, 0, 64, H_ALL_ACCESS, 1);
	b = h_buf_new(p.net, 1, 64, H_ALL_ACCESS, 2);
	for (int i = 0; i < 3; i++) {
		struct uroce_sge sg = h_sge(&a, 0, 8);
		wr = (struct uroce_send_wr){.wr_id = (uint64_t)i, .sg_list = &sg, .num_sge = 1,
					    .opcode = UROCE_WR_RDMA_WRITE,
					    .wr.rdma = {.remote_addr = h_va(&b, 0),
							.rkey = uroce_mr_rkey(b.mr)}};
		assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	}
	h_run(p.net, UINT64_MAX);
	for (int i = 0; i < 3; i++) {
		wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, (uint64_t)i, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	}
	h_buf_free(&a);
	h_buf_free(&b);
	pair_free(&p);
}

/* Index of the first record of node 0 with opcode op, from `from`. */
static size_t find_op(const struct h_log *log, size_t from, uint8_t op)
{
	for (size_t i = from; i < log->n; i++)
		if (log->rec[i].node == 0 && log->rec[i].opcode == op)
			return i;
	fail_msg("opcode 0x%02x not sent", op);
	return 0;
}

/* IBA 10.8.3.3 fence: a fenced request starts only after every earlier READ and atomic
 * has completed; max_rd_atomic bounds the READs outstanding (11.2.4.2). */
static void test_IBA10_8_3_fence_and_max_rd_atomic(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_1024, .max_rd_atomic = 2};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf a = h_buf_new(p.net, 0, 64 * 1024, H_ALL_ACCESS, 41);
	struct h_buf b = h_buf_new(p.net, 1, 64 * 1024, H_ALL_ACCESS, 42);

	/* READ (8 response packets), then a fenced WRITE: the WRITE leaves after the READ's
	 * last response arrived. */
	h_post_send(p.qp[0], UROCE_WR_RDMA_READ, 1, &a, 0, 8192, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, 2, &a, 0, 10, h_va(&b, 9000), uroce_mr_rkey(b.mr),
		    UROCE_SEND_FENCE);
	h_run(p.net, UINT64_MAX);
	size_t w = find_op(&p.log, 0, UROCE_OP_RC_RDMA_WRITE_ONLY);
	size_t last_resp = 0;
	for (size_t i = 0; i < p.log.n; i++)
		if (p.log.rec[i].opcode == UROCE_OP_RC_RDMA_READ_RESPONSE_LAST)
			last_resp = i;
	assert_true(last_resp && last_resp < w);
	assert_true(p.log.rec[w].now > p.log.rec[last_resp].now); /* after it arrived */
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);

	/* Six READs with max_rd_atomic 2: never more than two requests unanswered. */
	p.log.n = 0;
	for (int i = 0; i < 6; i++)
		h_post_send(p.qp[0], UROCE_WR_RDMA_READ, 10 + (uint64_t)i, &a, (size_t)i * 4096, 4096,
			    h_va(&b, (size_t)i * 4096), uroce_mr_rkey(b.mr), 0);
	h_run(p.net, UINT64_MAX);
	int outstanding = 0, most = 0;
	for (size_t i = 0; i < p.log.n; i++) {
		if (p.log.rec[i].opcode == UROCE_OP_RC_RDMA_READ_REQUEST)
			outstanding++;
		if (p.log.rec[i].opcode == UROCE_OP_RC_RDMA_READ_RESPONSE_LAST)
			outstanding--;
		most = outstanding > most ? outstanding : most;
	}
	assert_int_equal(most, 2);
	for (int i = 0; i < 6; i++) {
		wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, 10 + (uint64_t)i, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	}
	assert_memory_equal(a.p, b.p, 6 * 4096);
	h_buf_free(&a);
	h_buf_free(&b);
	pair_free(&p);
}

/* LOCAL_INV (IBA 10.8): runs after the requests before it, invalidates an MR of the QP's
 * PD that allows it, and fails with LOC_PROT_ERR otherwise (then the QP goes to ERR). */
static void test_local_invalidate(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf a = h_buf_new(p.net, 0, 4096, H_ALL_ACCESS | UROCE_ACCESS_INVALIDATE, 51);
	struct h_buf b = h_buf_new(p.net, 1, 4096, H_ALL_ACCESS, 52);
	h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, 1, &a, 0, 4096, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	struct uroce_send_wr wr = {.wr_id = 2, .opcode = UROCE_WR_LOCAL_INV,
				   .send_flags = UROCE_SEND_SIGNALED,
				   .invalidate_rkey = uroce_mr_lkey(a.mr)};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_LOCAL_INV);
	assert_false(uroce_mr_valid(a.mr));
	assert_memory_equal(b.p, a.p, 4096);
	/* An MR that does not allow invalidation. */
	struct h_buf c = h_buf_new(p.net, 0, 64, H_ALL_ACCESS, 53);
	wr.wr_id = 3;
	wr.invalidate_rkey = uroce_mr_rkey(c.mr);
	assert_int_equal(uroce_post_send(p.qp[0], &wr, &bad), 0);
	h_run(p.net, UINT64_MAX);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 3, UROCE_WC_LOC_PROT_ERR, UROCE_WC_LOCAL_INV);
	assert_int_equal(uroce_qp_state(p.qp[0]), UROCE_QPS_ERR);
	assert_true(uroce_mr_valid(c.mr));
	h_buf_free(&a);
	h_buf_free(&b);
	h_buf_free(&c);
	pair_free(&p);
}

/* ACK coalescing (IBA 9.7.5.2.1): requests that arrive together get one ACK for the last;
 * MSN counts completed messages. */
static void test_IBA9_7_5_ack_coalescing(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_buf a = h_buf_new(p.net, 0, 4096, H_ALL_ACCESS, 61);
	struct h_buf b = h_buf_new(p.net, 1, 4096, H_ALL_ACCESS, 62);
	for (int i = 0; i < 20; i++)
		h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, (uint64_t)i, &a, 0, 100, h_va(&b, 0),
			    uroce_mr_rkey(b.mr), 0);
	h_run(p.net, UINT64_MAX);
	for (int i = 0; i < 20; i++) {
		struct uroce_wc wc = h_poll1(p.net, 0);
		h_expect_wc(&wc, (uint64_t)i, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	}
	/* The twenty arrived in one batch on an ideal link: one ACK, for the last, MSN 20. */
	unsigned acks = 0;
	for (size_t i = 0; i < p.log.n; i++) {
		const struct h_rec *r = &p.log.rec[i];
		if (r->opcode != UROCE_OP_RC_ACKNOWLEDGE)
			continue;
		acks++;
		assert_int_equal(r->ext.aeth.syndrome, 0x1F);
		assert_int_equal(r->psn, uroce_psn_add(o.psn[0], 19));
		assert_int_equal(r->ext.aeth.msn, 20);
	}
	assert_int_equal(acks, 1);
	assert_int_equal(h_counter(p.net->node[1].dev, UROCE_CNT_acks_sent), 1);
	h_buf_free(&a);
	h_buf_free(&b);
	pair_free(&p);
}

/* uroce_dev_write_requests: a node that owes an ACK and has a request of its own writes
 * the request alone, and uroce_dev_write the ACK after it; both sides then complete. */
static void test_requests_ahead_of_responses(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct pair p;
	(void)state;

	pair_new(&p, &o, false);
	struct h_net *net = p.net;
	struct h_buf a = h_buf_new(net, 0, 4096, H_ALL_ACCESS, 63);
	struct h_buf b = h_buf_new(net, 1, 4096, H_ALL_ACCESS, 64);
	h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, 1, &a, 0, 64, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_pump(net, 0, uroce_sim_now(net->sim));
	uroce_sim_run_until(net->sim, uroce_sim_next_event_time(net->sim));
	uint64_t now = uroce_sim_now(net->sim);
	h_recv_all(net, 1, now); /* node 1 now owes node 0 an ACK */
	h_post_send(p.qp[1], UROCE_WR_RDMA_WRITE, 2, &b, 0, 64, h_va(&a, 0), uroce_mr_rkey(a.mr), 0);

	struct uroce_txbatch tx = {.pkts = net->pkts, .max = H_BATCH};
	h_batch_reset(net, H_BATCH);
	assert_int_equal(uroce_dev_write_requests(net->node[1].dev, &tx, now), 1);
	assert_int_equal(uroce_dev_write_requests(net->node[1].dev, &tx, now), 0);
	assert_int_equal(uroce_dev_write(net->node[1].dev, &tx, now), 1);
	assert_int_equal(tx.n, 2);
	struct uroce_pkt v;
	assert_int_equal(uroce_pkt_dissect(&v, UROCE_LINK_IP, tx.pkts[0].data, tx.pkts[0].len), 0);
	assert_int_equal(v.bth.opcode, UROCE_OP_RC_RDMA_WRITE_ONLY);
	assert_int_equal(uroce_pkt_dissect(&v, UROCE_LINK_IP, tx.pkts[1].data, tx.pkts[1].len), 0);
	assert_int_equal(v.bth.opcode, UROCE_OP_RC_ACKNOWLEDGE);
	assert_int_equal(uroce_io_send(net->node[1].io, tx.pkts, tx.n), 2);

	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	assert_memory_equal(a.p, b.p, 64);
	h_buf_free(&a);
	h_buf_free(&b);
	pair_free(&p);
}

/* The same over IPv6, and the UDP source port fixed per QP with the 0xC000 prefix. */
static void test_ipv6_and_ports(void **state)
{
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_2048};
	struct pair p;
	(void)state;

	pair_new(&p, &o, true);
	struct h_buf a = h_buf_new(p.net, 0, 10000, H_ALL_ACCESS, 71);
	struct h_buf b = h_buf_new(p.net, 1, 10000, H_ALL_ACCESS, 72);
	struct h_buf c = h_buf_new(p.net, 0, 10000, H_ALL_ACCESS, 73);
	h_post_send(p.qp[0], UROCE_WR_RDMA_WRITE, 1, &a, 0, 10000, h_va(&b, 0), uroce_mr_rkey(b.mr), 0);
	h_post_send(p.qp[0], UROCE_WR_RDMA_READ, 2, &c, 0, 5000, h_va(&b, 5000), uroce_mr_rkey(b.mr),
		    0);
	h_run(p.net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	wc = h_poll1(p.net, 0);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	assert_memory_equal(b.p, a.p, 10000);
	assert_memory_equal(c.p, a.p + 5000, 5000); /* the READ came after the WRITE */
	uint16_t port[2] = {0, 0};
	for (size_t i = 0; i < p.log.n; i++) {
		const struct h_rec *r = &p.log.rec[i];
		assert_true(r->icrc_ok);
		assert_int_equal(r->sport & 0xC000, 0xC000);
		if (!port[r->node])
			port[r->node] = r->sport;
		assert_int_equal(r->sport, port[r->node]);
	}
	h_buf_free(&a);
	h_buf_free(&b);
	h_buf_free(&c);
	pair_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_4_1_send_sizes),
		cmocka_unit_test(test_IBA9_4_2_write_sizes),
		cmocka_unit_test(test_IBA9_4_3_read_sizes),
		cmocka_unit_test(test_IBA9_4_imm_and_inv),
		cmocka_unit_test(test_IBA9_4_5_atomics),
		cmocka_unit_test(test_large_messages),
		cmocka_unit_test(test_IBA9_7_1_psn_wrap),
		cmocka_unit_test(test_IBA10_8_sge_inline_signaling),
		cmocka_unit_test(test_IBA10_8_3_fence_and_max_rd_atomic),
		cmocka_unit_test(test_local_invalidate),
		cmocka_unit_test(test_IBA9_7_5_ack_coalescing),
		cmocka_unit_test(test_requests_ahead_of_responses),
		cmocka_unit_test(test_ipv6_and_ports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* RC under loss, reordering, duplication and corruption at 0.1 %, 1 % and 10 % (the
 * simulator's seeded impairments, both directions): every byte arrives, completions come in
 * order and successful, atomics execute exactly once although their requests are resent
 * and duplicated, and a READ interrupted by lost responses resumes from the right offset.
 * All in virtual time. */
#include "harness.h"

#include "engine/priv.h"
#include "wire/psn.h"

#define NMSG 48

static struct uroce_sim_link_cfg lossy(double p, uint64_t seed)
{
	struct uroce_sim_link_cfg cfg = {
		.latency_ns = 2000,
		.bandwidth_bps = 25000000000ull,
		.impair = {.loss = p, .dup = p, .reorder = p, .corrupt = p, .seed = seed,
			   .reorder_delay_ns = 5000},
	};
	return cfg;
}

/* A mixed workload in both directions: SEND, WRITE (with and without immediate), READ and
 * FETCH_ADD, sizes from 0 to 40 KB, every one signaled. Returns after checking everything. */
static void run_mixed(double p, uint64_t seed)
{
	struct uroce_sim_link_cfg link = lossy(p, seed);
	struct h_net *net = h_net_new(seed, 2, false, &link);
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_1024, .psn = {0xFFFF00, 77},
			      .timeout = 6, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 4};
	struct uroce_qp *qp[2];
	const size_t sz = 64 * 1024;

	h_qp_pair(net, 0, 1, &o, qp);
	struct h_buf src[2], dst[2], rd[2], rcv[2], ctr[2], res[2];
	for (int i = 0; i < 2; i++) {
		src[i] = h_buf_new(net, i, sz, H_ALL_ACCESS, 100 + (uint32_t)i);
		dst[i] = h_buf_new(net, i, sz * NMSG / 8, H_ALL_ACCESS, 0);
		rd[i] = h_buf_new(net, i, sz * NMSG / 8, H_ALL_ACCESS, 0);
		rcv[i] = h_buf_new(net, i, sz * NMSG / 8, H_ALL_ACCESS, 0);
		ctr[i] = h_buf_new(net, i, 8, H_ALL_ACCESS, 0);
		res[i] = h_buf_new(net, i, 8 * NMSG, H_ALL_ACCESS, 0);
		memset(ctr[i].p, 0, 8);
	}
	/* Message m of side i: kind m % 6, length varying; region m / 8 of the targets. */
	uint32_t len[NMSG];
	for (int m = 0; m < NMSG; m++)
		len[m] = (uint32_t)((m * 7919u) % 40960u) * (m % 5 != 0);
	for (int i = 0; i < 2; i++) {
		int j = 1 - i;
		for (int m = 0; m < NMSG; m++) {
			size_t region = (size_t)(m / 8) * sz + (size_t)(m % 8) * 8192;
			uint32_t l = len[m] % 8192;
			switch (m % 6) {
			case 0:
				h_post_recv(qp[j], (uint64_t)m, &rcv[j], region, 8192);
				h_post_send(qp[i], UROCE_WR_SEND, (uint64_t)m, &src[i], (size_t)m * 100, l,
					    0, 0, 0);
				break;
			case 1:
			case 2:
				h_post_send(qp[i], UROCE_WR_RDMA_WRITE, (uint64_t)m, &src[i],
					    (size_t)m * 100, l, h_va(&dst[j], region),
					    uroce_mr_rkey(dst[j].mr), 0);
				break;
			case 3:
				h_post_recv(qp[j], (uint64_t)m, &rcv[j], region, 8);
				h_post_send(qp[i], UROCE_WR_RDMA_WRITE_WITH_IMM, (uint64_t)m, &src[i],
					    (size_t)m * 100, l, h_va(&dst[j], region),
					    uroce_mr_rkey(dst[j].mr), 0);
				break;
			case 4:
				h_post_send(qp[i], UROCE_WR_RDMA_READ, (uint64_t)m, &rd[i], region, l,
					    h_va(&src[j], (size_t)m * 100), uroce_mr_rkey(src[j].mr), 0);
				break;
			case 5: {
				struct uroce_sge sge = h_sge(&res[i], (size_t)m * 8, 8);
				struct uroce_send_wr wr = {
					.wr_id = (uint64_t)m, .sg_list = &sge, .num_sge = 1,
					.opcode = UROCE_WR_ATOMIC_FETCH_AND_ADD,
					.send_flags = UROCE_SEND_SIGNALED,
					.wr.atomic = {.remote_addr = h_va(&ctr[j], 0), .compare_add = 1,
						      .rkey = uroce_mr_rkey(ctr[j].mr)}};
				const struct uroce_send_wr *bad;
				assert_int_equal(uroce_post_send(qp[i], &wr, &bad), 0);
				break;
			}
			}
		}
	}
	uint64_t end = h_run(net, 60ull * 1000000000ull);
	/* Completions: the send queue's in posting order, all successful; the receive
	 * queue's in order too. Both share one CQ per node. */
	for (int i = 0; i < 2; i++) {
		int j = 1 - i;
		uint64_t next_send = 0, next_recv = 0;
		struct uroce_wc wc;
		int got = 0;
		while (uroce_cq_poll(net->node[i].cq, &wc, 1) == 1) {
			if (wc.status != UROCE_WC_SUCCESS)
				fail_msg("p=%g seed %" PRIu64 " node %d: wr %" PRIu64 " %s", p, seed, i,
					 wc.wr_id, uroce_wc_status_name(wc.status));
			if (wc.opcode & UROCE_WC_RECV) {
				while (next_recv % 6 != 0 && next_recv % 6 != 3)
					next_recv++;
				assert_int_equal(wc.wr_id, next_recv);
				next_recv++;
			} else {
				assert_int_equal(wc.wr_id, next_send);
				next_send++;
			}
			got++;
		}
		if (next_send != NMSG)
			fail_msg("p=%g seed %" PRIu64 " node %d: %" PRIu64 " of %d sends completed "
				 "by t=%" PRIu64, p, seed, i, next_send, NMSG, end);
		assert_int_equal(got, NMSG + NMSG / 3);
		/* Every byte, at both ends. */
		for (int m = 0; m < NMSG; m++) {
			size_t region = (size_t)(m / 8) * sz + (size_t)(m % 8) * 8192;
			uint32_t l = len[m] % 8192;
			const uint8_t *want = src[i].p + (size_t)m * 100;
			switch (m % 6) {
			case 0:
				assert_memory_equal(rcv[j].p + region, want, l);
				break;
			case 1:
			case 2:
			case 3:
				assert_memory_equal(dst[j].p + region, want, l);
				break;
			case 4:
				assert_memory_equal(rd[i].p + region, src[j].p + (size_t)m * 100, l);
				break;
			}
		}
		/* The counter on j was incremented exactly once per atomic of i, in order:
		 * the k-th atomic saw k. */
		uint64_t v;
		memcpy(&v, ctr[j].p, 8);
		assert_int_equal(v, NMSG / 6);
		for (int m = 5, k = 0; m < NMSG; m += 6, k++) {
			memcpy(&v, res[i].p + (size_t)m * 8, 8);
			assert_int_equal(v, k);
		}
	}
	if (seed == 1) {
		char what[64];
		snprintf(what, sizeof(what), "p=%g node0", p);
		h_print_counters(what, net->node[0].dev);
	}
	/* Every packet the fabric broke was caught by its ICRC (or earlier, when the
	 * corruption hit a length or the opcode); with losses at 1 % and more, something was
	 * sent again (a lost ACK alone may need nothing). */
	uint64_t broken = 0, dups = 0, bad_icrc = 0, re = 0;
	for (int i = 0; i < 2; i++) {
		const union uroce_sim_counters *c = uroce_sim_link_counters(net->sim, i);
		broken += c->corrupted;
		dups += c->duplicated;
		bad_icrc += h_counter(net->node[i].dev, UROCE_CNT_drop_bad_icrc) +
			    h_counter(net->node[i].dev, UROCE_CNT_drop_malformed);
		re += h_counter(net->node[i].dev, UROCE_CNT_retransmitted_pkts);
	}
	/* A corrupted packet may also have been duplicated. */
	assert_true(bad_icrc >= broken && bad_icrc <= broken + dups);
	if (p >= 0.01)
		assert_true(re > 0);
	for (int i = 0; i < 2; i++) {
		h_buf_free(&src[i]);
		h_buf_free(&dst[i]);
		h_buf_free(&rd[i]);
		h_buf_free(&rcv[i]);
		h_buf_free(&ctr[i]);
		h_buf_free(&res[i]);
	}
	h_net_free(net);
}

/* Seeds per rate: 3, or UROCE_TEST_SEEDS for a longer soak. */
static uint64_t nseeds(void)
{
	const char *s = getenv("UROCE_TEST_SEEDS");
	return s ? strtoull(s, NULL, 10) : 3;
}

static void test_IBA9_7_loss_0_1_percent(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= nseeds(); seed++)
		run_mixed(0.001, seed);
}

static void test_IBA9_7_loss_1_percent(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= nseeds(); seed++)
		run_mixed(0.01, seed);
}

static void test_IBA9_7_loss_10_percent(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= nseeds(); seed++)
		run_mixed(0.10, seed);
}

/* IBA 9.7.5.1.3: an atomic is executed at most once. 300 fetch-and-adds and a chain of
 * compare-and-swaps through a link that loses and duplicates 10 % each way: the counter
 * ends at exactly 300 and every original value is the one the sequence predicts. */
static void test_IBA9_7_5_1_3_atomics_exactly_once(void **state)
{
	struct uroce_sim_link_cfg link = lossy(0.1, 5);
	struct h_net *net = h_net_new(5, 2, false, &link);
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .timeout = 5, .retry_cnt = 7, .max_rd_atomic = 8,
			      .max_send_wr = 512};
	struct uroce_qp *qp[2];
	const int n = 300;
	(void)state;

	h_qp_pair(net, 0, 1, &o, qp);
	struct h_buf ctr = h_buf_new(net, 1, 16, H_ALL_ACCESS, 0);
	struct h_buf res = h_buf_new(net, 0, 8 * (size_t)n, H_ALL_ACCESS, 0);
	memset(ctr.p, 0, 16);
	for (int k = 0; k < n; k++) {
		struct uroce_sge sge = h_sge(&res, (size_t)k * 8, 8);
		bool cas = k % 3 == 2;
		/* The compare-and-swaps walk ctr[1] through 0, 1, 2, ... */
		struct uroce_send_wr wr = {
			.wr_id = (uint64_t)k, .sg_list = &sge, .num_sge = 1,
			.opcode = cas ? UROCE_WR_ATOMIC_CMP_AND_SWP : UROCE_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = UROCE_SEND_SIGNALED,
			.wr.atomic = {.remote_addr = h_va(&ctr, cas ? 8 : 0),
				      .compare_add = cas ? (uint64_t)(k / 3) : 1,
				      .swap = (uint64_t)(k / 3) + 1, .rkey = uroce_mr_rkey(ctr.mr)}};
		const struct uroce_send_wr *bad;
		assert_int_equal(uroce_post_send(qp[0], &wr, &bad), 0);
	}
	h_run(net, 60ull * 1000000000ull);
	for (int k = 0; k < n; k++) {
		struct uroce_wc wc = h_poll1(net, 0);
		h_expect_wc(&wc, (uint64_t)k, UROCE_WC_SUCCESS,
			    k % 3 == 2 ? UROCE_WC_COMP_SWAP : UROCE_WC_FETCH_ADD);
	}
	uint64_t add = 0, swp = 0, v;
	memcpy(&add, ctr.p, 8);
	memcpy(&swp, ctr.p + 8, 8);
	assert_int_equal(add, n - n / 3);
	assert_int_equal(swp, n / 3);
	for (int k = 0, adds = 0; k < n; k++) {
		memcpy(&v, res.p + (size_t)k * 8, 8);
		if (k % 3 == 2)
			assert_int_equal(v, k / 3);
		else
			assert_int_equal(v, adds++);
	}
	/* The fabric did duplicate and the requester did resend. */
	assert_true(h_counter(net->node[1].dev, UROCE_CNT_duplicate_request) > 0);
	assert_true(h_counter(net->node[0].dev, UROCE_CNT_retransmitted_pkts) > 0);
	h_print_counters("atomics node1", net->node[1].dev);
	h_buf_free(&ctr);
	h_buf_free(&res);
	h_net_free(net);
}

/* IBA 9.7: READ resumed mid-message: when READ responses are lost, the requester asks
 * again for the rest only (a READ request at the first missing PSN, for VA + k x MTU and
 * the remaining length), and the responder answers it from its resource starting with
 * MIDDLE or LAST (facts.md section 3). */
static void test_IBA9_7_read_resumes_mid_message(void **state)
{
	struct uroce_sim_link_cfg clean = {.latency_ns = 2000};
	struct uroce_sim_link_cfg back = lossy(0.02, 9);
	struct h_net *net;
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_1024, .timeout = 6,
			      .retry_cnt = 7, .psn = {0xFFFFA0, 3}};
	struct uroce_qp *qp[2];
	struct h_log log = {0};
	const uint32_t len = 1024 * 1024;
	(void)state;

	back.impair.dup = back.impair.reorder = back.impair.corrupt = 0;
	/* Responses (node 1 -> 0) are lost, requests are not. */
	net = h_net_new_dir(9, 2, false, &clean, &back);
	h_qp_pair(net, 0, 1, &o, qp);
	struct h_buf src = h_buf_new(net, 1, len, H_ALL_ACCESS, 1);
	struct h_buf dst = h_buf_new(net, 0, len, H_ALL_ACCESS, 2);
	h_log_start(net, &log);
	h_post_send(qp[0], UROCE_WR_RDMA_READ, 1, &dst, 0, len, h_va(&src, 0), uroce_mr_rkey(src.mr), 0);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RDMA_READ);
	assert_memory_equal(dst.p, src.p, len);

	/* Every READ request after the first asks for the rest from its PSN; the first
	 * response to it is MIDDLE or LAST, never FIRST. */
	unsigned resumed = 0;
	for (size_t i = 0; i < log.n; i++) {
		const struct h_rec *r = &log.rec[i];
		if (r->node != 0 || r->opcode != UROCE_OP_RC_RDMA_READ_REQUEST)
			continue;
		uint32_t k = (uint32_t)uroce_psn_diff(r->psn, o.psn[0]);
		assert_int_equal(r->ext.reth.va, h_va(&src, (size_t)k * 1024));
		assert_int_equal(r->ext.reth.dmalen, len - k * 1024);
		if (!k)
			continue;
		resumed++;
		for (size_t j = i + 1; j < log.n; j++) {
			if (log.rec[j].node == 1 && log.rec[j].psn == r->psn) {
				assert_true(log.rec[j].opcode == UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE ||
					    log.rec[j].opcode == UROCE_OP_RC_RDMA_READ_RESPONSE_LAST);
				break;
			}
		}
	}
	assert_true(resumed > 0);
	h_print_counters("read node0", net->node[0].dev);
	h_log_free(net, &log);
	h_buf_free(&src);
	h_buf_free(&dst);
	h_net_free(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA9_7_loss_0_1_percent),
		cmocka_unit_test(test_IBA9_7_loss_1_percent),
		cmocka_unit_test(test_IBA9_7_loss_10_percent),
		cmocka_unit_test(test_IBA9_7_5_1_3_atomics_exactly_once),
		cmocka_unit_test(test_IBA9_7_read_resumes_mid_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

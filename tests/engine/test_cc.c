/* SPDX-License-Identifier: MIT */
/* Congestion control in the engine (engine/cc.h, dcqcn.c), by clause of RoCEv2 Annex A17.9:
 *  - the notification point (CA17-44): a packet marked CE (ECN 11) makes its QP send a CNP to
 *    the packet's sender: opcode 0x81, BECN set, PSN 0, the marked packet's P_Key, 16 zero
 *    reserved bytes, a good ICRC, DSCP 48 with ECT(0) as a ConnectX sends it; at most one per
 *    QP per min_time_between_cnps; ECT without CE, or np_off, send none;
 *  - ECN on send (CA17-5, 14): ECT(0) (or ECT(1)) on every packet of a QP under an algorithm,
 *    Not-ECT without one;
 *  - the reaction point (CA17-45, 46): DCQCN's cut on a CNP, its timer and byte counter
 *    increases, alpha's decay, the rate never below R_min nor above the line rate, and the
 *    pacer: request packets leave no faster than the rate (virtual time only);
 *  - a CNP for a QP without an algorithm is counted and ignored; one from a stranger to a
 *    connected QP dropped. */
#include "inject.h"

#include "engine/cc.h"
#include "scenario.h"

#define LINE 25000000000ull

static const struct uroce_cc_cfg dcqcn = {.algo = UROCE_CC_DCQCN};

static uint8_t ecn_of(const struct uroce_pkt *p)
{
	return (uint8_t)((p->layers & UROCE_L_IPV6 ? p->ip6.tclass : p->ip4.tos) & 3);
}

static uint8_t dscp_of(const struct uroce_pkt *p)
{
	return (uint8_t)((p->layers & UROCE_L_IPV6 ? p->ip6.tclass : p->ip4.tos) >> 2);
}

/* An RC SEND Only at the expected PSN, with the IP traffic class given. */
static void send_marked(struct inj *t, uint32_t psn, uint8_t tclass, uint16_t pkey)
{
	static const uint8_t data[16];
	inj_send(t, &(struct inj_hdr){.opcode = UROCE_OP_RC_SEND_ONLY, .psn = psn, .ackreq = true,
				      .tclass = tclass, .pkey = pkey, .payload = data,
				      .len = sizeof(data)});
}

/* The CNP among the device's answers, or NULL. */
static const struct uroce_pkt *cnp_out(struct inj *t)
{
	const struct uroce_pkt *cnp = NULL;
	inj_out(t);
	for (int i = 0; i < t->nout; i++)
		if (t->o[i].bth.opcode == UROCE_OP_CNP_CNP) {
			assert_null(cnp); /* one at most */
			cnp = &t->o[i];
		}
	return cnp;
}

static void test_np_cnp(void **state)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct inj *t = inj_new(&(struct inj_opts){.ipv6 = v6});
		struct h_buf b = inj_buf(t, 256, 1);
		(void)state;
		for (int i = 0; i < 8; i++)
			h_post_recv(t->qp, (uint64_t)i, &b, 0, 256);
		t->now = 1000000;
		send_marked(t, 0, 0x03, 0x7FFF); /* CE, DSCP 0, limited membership */
		const struct uroce_pkt *c = cnp_out(t);
		assert_non_null(c);
		assert_int_equal(c->bth.destqp, INJ_PEER_QPN); /* the marked packet's sender */
		assert_true(c->bth.becn);
		assert_false(c->bth.fecn);
		assert_int_equal(c->bth.psn, 0);
		assert_false(c->bth.se);
		assert_false(c->bth.m);
		assert_int_equal(c->bth.pkey, 0x7FFF);
		assert_true(c->ext.present & UROCE_EH_CNPRSV);
		for (int k = 0; k < UROCE_CNP_RSV_LEN; k++)
			assert_int_equal(c->ext.cnp_rsv[k], 0);
		assert_int_equal(c->payload_len, 0);
		assert_int_equal(dscp_of(c), 48);
		assert_int_equal(ecn_of(c), 2);
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_np_ecn_marked_roce_packets), 1);
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_np_cnp_sent), 1);

		/* Within min_time_between_cnps (50 us): marked, no CNP; after it, one again. */
		t->now += 49999;
		send_marked(t, 1, 0x03, 0);
		assert_null(cnp_out(t));
		t->now += 1;
		send_marked(t, 2, 0x03, 0);
		assert_non_null(cnp_out(t));
		/* ECT(0), ECT(1): not congestion */
		t->now += 1000000;
		send_marked(t, 3, 0x02, 0);
		send_marked(t, 4, 0x01, 0);
		assert_null(cnp_out(t));
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_np_ecn_marked_roce_packets), 3);
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_np_cnp_sent), 2);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* A CNP asks for the 802.1p priority cnp_802p_prio (none by default); the ACK beside it, for
 * none: the backend gives it to the kernel (docs/udp.md "Sending"). */
static void test_cnp_priority(void **state)
{
	(void)state;
	for (uint8_t prio = 0; prio <= 7; prio += 5) {
		struct inj *t = inj_new(&(struct inj_opts){.cc = {.cnp_prio = prio}});
		struct h_buf b = inj_buf(t, 256, 1);
		h_post_recv(t->qp, 0, &b, 0, 256);
		t->now = 1000000;
		send_marked(t, 0, 0x03, 0xFFFF);
		const struct uroce_pkt *c = cnp_out(t);
		assert_non_null(c);
		assert_int_equal(t->nout, 2); /* the CNP and the ACK */
		for (int i = 0; i < t->nout; i++)
			assert_int_equal(t->oprio[i], &t->o[i] == c ? prio : 0);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* A UD QP answers the datagram's source QP (its DETH); np_off sends nothing. */
static void test_np_ud_and_off(void **state)
{
	for (int off = 0; off < 2; off++) {
		struct inj *t = inj_new(&(struct inj_opts){.type = UROCE_QPT_UD, .cc.np_off = off});
		struct h_buf b = inj_buf(t, 512, 1);
		static const uint8_t data[16];
		(void)state;
		h_post_recv(t->qp, 1, &b, 0, 512);
		struct inj_hdr h = {.opcode = UROCE_OP_UD_SEND_ONLY, .tclass = 0x03, .payload = data,
				    .len = sizeof(data)};
		h.ext.deth.qkey = INJ_QKEY;
		h.ext.deth.srcqp = INJ_PEER_QPN;
		inj_send(t, &h);
		const struct uroce_pkt *c = cnp_out(t);
		if (off) {
			assert_null(c);
		} else {
			assert_non_null(c);
			assert_int_equal(c->bth.destqp, INJ_PEER_QPN);
		}
		assert_int_equal(inj_qp_counter(t, UROCE_CNT_np_ecn_marked_roce_packets), 1);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* ECT on every packet under an algorithm (ECT(1) when asked), none without. */
static void test_ecn_on_send(void **state)
{
	const struct {
		struct uroce_cc_cfg cc;
		uint8_t ecn;
	} cases[] = {{{0}, 0}, {dcqcn, 2}, {{.algo = UROCE_CC_DCQCN, .ecn = 1}, 1}};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct inj *t = inj_new(&(struct inj_opts){.cc = cases[i].cc});
		struct h_buf b = inj_buf(t, 256, 1);
		h_post_recv(t->qp, 1, &b, 0, 256);
		h_post_send(t->qp, UROCE_WR_SEND, 1, &b, 0, 64, 0, 0, 0);
		assert_int_equal(inj_out(t), 1);
		assert_int_equal(ecn_of(&t->o[0]), cases[i].ecn);
		send_marked(t, 0, 0, 0); /* the ACK too */
		assert_int_equal(inj_out(t), 1);
		assert_int_equal(ecn_of(&t->o[0]), cases[i].ecn);
		h_buf_free(&b);
		inj_free(t);
	}
}

static void deliver_cnp(struct inj *t, const struct uroce_io_addr *src)
{
	inj_send(t, &(struct inj_hdr){.opcode = UROCE_OP_CNP_CNP, .src = src});
}

/* DCQCN's reaction point, against the formulas (dcqcn.c) with the default parameters. */
static void test_rp_dcqcn(void **state)
{
	struct inj *t = inj_new(&(struct inj_opts){.cc = dcqcn});
	(void)state;

	assert_true(uroce_qp_cc_rate(t->qp) == LINE);
	assert_true(uroce_dev_next_deadline(t->dev) == UROCE_NEVER); /* at line rate: no timer */
	t->now = 1000000;
	/* alpha starts at 1: the first cut halves (alpha stays 1: (1-g) 1 + g) */
	deliver_cnp(t, NULL);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_rp_cnp_handled), 1);
	assert_true(uroce_qp_cc_rate(t->qp) == LINE / 2);
	deliver_cnp(t, NULL);
	assert_true(uroce_qp_cc_rate(t->qp) == LINE / 4);
	const struct dcqcn *d = &t->qp->cc.alg.dcqcn;
	assert_true(d->target == LINE / 2);
	/* Timer T (55 us): fast recovery, R_C = (R_T + R_C) / 2; alpha's timer (55 us after
	 * the last CNP) decays alpha by g = 1/256 at the same time. */
	t->now += 55000;
	uroce_dev_on_timer(t->dev, t->now);
	assert_true(uroce_qp_cc_rate(t->qp) == (LINE / 2 + LINE / 4) / 2);
	assert_int_equal(d->alpha, (1u << 20) - ((1u << 20) >> 8));
	assert_int_equal(d->t_stage, 1);
	/* Three more timer events in fast recovery (stages 2 to 4, below F = 5); the one that
	 * brings the stage to F is additive increase (R_T += R_AI), as HPCC's model of the
	 * firmware counts (the stage goes up, then is compared). */
	for (int i = 0; i < 3; i++) {
		t->now += 55000;
		uroce_dev_on_timer(t->dev, t->now);
	}
	uint64_t rt = d->target, rc = uroce_qp_cc_rate(t->qp);
	assert_true(rt == LINE / 2);
	t->now += 55000;
	uroce_dev_on_timer(t->dev, t->now);
	assert_true(d->target == rt + 40000000);
	assert_true(uroce_qp_cc_rate(t->qp) == (rt + 40000000 + rc) / 2);
	/* Bytes: the byte counter's stage reaches F too (B = 10 MB): hyper increase, R_T +=
	 * R_HAI (min stage - F + 1) once both stages are at F or above. */
	rt = d->target;
	rc = uroce_qp_cc_rate(t->qp);
	t->qp->cc.alg.dcqcn.b_stage = 4;
	t->qp->cc.alg.dcqcn.bytes = 10000000 - 100;
	cc_sent(t->qp, 100, t->now); /* the byte counter's 5th event */
	uint32_t lo = d->t_stage < 5 ? d->t_stage : 5;
	assert_true(d->target == rt + 400000000ull * (lo - 5 + 1));
	assert_true(uroce_qp_cc_rate(t->qp) == (d->target + rc) / 2);
	/* Never below R_min: many CNPs */
	for (int i = 0; i < 64; i++)
		deliver_cnp(t, NULL);
	assert_true(uroce_qp_cc_rate(t->qp) == 1000000);
	/* Back to the line rate in time (hyper increase), and then the timers stop: an
	 * uncongested QP costs no timer. */
	for (int i = 0; i < 100000 && uroce_dev_next_deadline(t->dev) != UROCE_NEVER; i++) {
		t->now = uroce_dev_next_deadline(t->dev);
		uroce_dev_on_timer(t->dev, t->now);
		assert_true(uroce_qp_cc_rate(t->qp) <= LINE);
	}
	assert_true(uroce_qp_cc_rate(t->qp) == LINE);
	assert_true(uroce_dev_next_deadline(t->dev) == UROCE_NEVER);
	inj_free(t);
}

/* The pacer: under a cut rate, request packets leave one per (bytes x 8 / rate) of virtual
 * time, the deadline says when the next may; at line rate they leave back to back. */
static void test_pacer(void **state)
{
	struct inj *t = inj_new(&(struct inj_opts){.cc = dcqcn, .mtu = UROCE_MTU_1024});
	struct h_buf b = inj_buf(t, 8192, 1);
	(void)state;

	h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 1, &b, 0, 4096, 0x1000, 0x101, 0);
	assert_int_equal(inj_out(t), 4); /* line rate: unpaced */
	for (int i = 0; i < 3; i++)
		deliver_cnp(t, NULL); /* 25 G / 8 */
	uint64_t rate = uroce_qp_cc_rate(t->qp);
	assert_true(rate == LINE / 8);
	h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 2, &b, 0, 4096, 0x1000, 0x101, 0);
	uint64_t start = t->now;
	for (int k = 0; k < 4; k++) {
		assert_int_equal(inj_out(t), 1);
		uint32_t len = t->o[0].ip4.total_len;
		uint64_t gap = (uint64_t)len * 8000000000ull / rate;
		assert_int_equal(inj_out(t), 0); /* not before its time */
		if (k < 3) {
			/* the pace timer, or the CC timers if earlier: the next send is due at
			 * the packet's time */
			assert_true(cc_next_send(t->qp) == t->now + gap);
			t->now += gap - 1;
			uroce_dev_on_timer(t->dev, t->now);
			assert_int_equal(inj_out(t), 0);
			t->now += 1;
			uroce_dev_on_timer(t->dev, t->now);
		}
	}
	assert_true(t->now > start);
	h_buf_free(&b);
	inj_free(t);
}

/* The application's rate limit (ibv_modify_qp_rate_limit) through the same pacer: without
 * congestion control, and under DCQCN, where the lower of the two rates holds; 0 removes
 * it. */
static void test_rate_limit(void **state)
{
	for (int cc = 0; cc < 2; cc++) {
		struct inj *t = inj_new(&(struct inj_opts){.cc = cc ? dcqcn : (struct uroce_cc_cfg){0},
							   .mtu = UROCE_MTU_1024});
		struct h_buf b = inj_buf(t, 8192, 1);
		(void)state;

		assert_int_equal(uroce_qp_set_rate_limit(t->qp, 1000000000), 0);
		if (cc)
			deliver_cnp(t, NULL); /* 12.5 Gb/s: the limit is lower */
		h_post_send(t->qp, UROCE_WR_RDMA_WRITE, 1, &b, 0, 3072, 0x1000, 0x101, 0);
		assert_int_equal(inj_out(t), 1);
		uint64_t gap = (uint64_t)t->o[0].ip4.total_len * 8;  /* ns at 1 Gb/s */
		assert_true(cc_next_send(t->qp) == t->now + gap);
		assert_true(uroce_dev_next_deadline(t->dev) <= t->now + gap);
		assert_int_equal(inj_out(t), 0);
		t->now += gap;
		uroce_dev_on_timer(t->dev, t->now);
		assert_int_equal(inj_out(t), 1);
		/* removed: the rest leaves at once */
		assert_int_equal(uroce_qp_set_rate_limit(t->qp, 0), 0);
		if (!cc)
			assert_int_equal(inj_out(t), 1);
		h_buf_free(&b);
		inj_free(t);
	}
}

/* A CNP for a QP without an algorithm is counted and ignored; a stranger's to a connected
 * QP dropped; to an unknown QP, dropped as such. */
static void test_cnp_checks(void **state)
{
	struct inj *t = inj_new(&(struct inj_opts){0});
	struct inj *c = inj_new(&(struct inj_opts){.cc = dcqcn});
	struct uroce_io_addr stranger = h_addr(7, false);
	(void)state;

	deliver_cnp(t, NULL);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_rp_cnp_ignored), 1);
	assert_true(uroce_qp_cc_rate(t->qp) == UINT64_MAX);
	deliver_cnp(c, &stranger);
	assert_int_equal(inj_qp_counter(c, UROCE_CNT_drop_wrong_src), 1);
	assert_true(uroce_qp_cc_rate(c->qp) == LINE);
	uint64_t unknown = h_counter(c->dev, UROCE_CNT_drop_unknown_qp);
	inj_send(c, &(struct inj_hdr){.opcode = UROCE_OP_CNP_CNP, .destqp = 0x4321});
	assert_int_equal(h_counter(c->dev, UROCE_CNT_drop_unknown_qp), unknown + 1);
	inj_free(t);
	inj_free(c);
}

/* The loop closed on the simulated fabric: node 0 writes 8 MB to node 1 through a 10 Gb/s
 * link whose queue (150 KB) marks ECN-capable packets CE above 40 KB and drops past its
 * end. Without congestion control the sender's window overflows the queue, and go-back-N
 * resends; under DCQCN the receiver's CNPs cut the sender's rate, far fewer packets are
 * dropped and resent. Both runs deliver every byte. Returns the link's drops. */
static uint64_t bottleneck(enum uroce_cc_algo algo, uint64_t *resent, uint64_t *cnps)
{
	struct uroce_sim_link_cfg fwd = {.latency_ns = 2000, .bandwidth_bps = 10000000000ull,
					 .queue_bytes = 150000, .ce_threshold = 40000};
	struct uroce_sim_link_cfg back = {.latency_ns = 2000, .bandwidth_bps = 10000000000ull};
	struct uroce_cc_cfg cc[2] = {{.algo = algo}, {.algo = algo}};
	struct h_net *net = h_net_new_cc(7, 2, false, &fwd, &back, cc);
	struct h_qp_opts o = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_4096, .timeout = 8,
			      .retry_cnt = 7, .rnr_retry = 7};
	struct uroce_qp *qp[2];
	enum { MSGS = 128, LEN = 65536 };

	h_qp_pair(net, 0, 1, &o, qp);
	struct h_buf src = h_buf_new(net, 0, LEN, H_ALL_ACCESS, 3);
	struct h_buf dst = h_buf_new(net, 1, (size_t)MSGS * LEN, H_ALL_ACCESS, 0);
	for (int m = 0; m < MSGS; m++)
		h_post_send(qp[0], UROCE_WR_RDMA_WRITE, (uint64_t)m, &src, 0, LEN,
			    h_va(&dst, (size_t)m * LEN), uroce_mr_rkey(dst.mr), 0);
	h_run(net, 10000000000ull);
	struct uroce_wc wc[MSGS];
	assert_int_equal(uroce_cq_poll(net->node[0].cq, wc, MSGS), MSGS);
	for (int m = 0; m < MSGS; m++)
		h_expect_wc(&wc[m], (uint64_t)m, UROCE_WC_SUCCESS, UROCE_WC_RDMA_WRITE);
	for (int m = 0; m < MSGS; m++)
		assert_memory_equal(dst.p + (size_t)m * LEN, src.p, LEN);
	const union uroce_sim_counters *l = uroce_sim_link_counters(net->sim, 0);
	uint64_t drops = l->drop_queue;
	*resent = uroce_qp_counters(qp[0])->retransmitted_pkts;
	*cnps = uroce_qp_counters(qp[1])->np_cnp_sent;
	if (algo == UROCE_CC_DCQCN) {
		assert_true(l->ce_marked > 0);
		assert_int_equal(uroce_qp_counters(qp[0])->rp_cnp_handled, *cnps);
	} else {
		assert_int_equal(l->ce_marked, 0); /* nothing was ECN-capable */
	}
	printf("  %s: %" PRIu64 " dropped at the queue, %" PRIu64 " resent, %" PRIu64
	       " CE marks, %" PRIu64 " CNPs\n",
	       uroce_cc_algo_name(algo), drops, *resent, l->ce_marked, *cnps);
	h_buf_free(&src);
	h_buf_free(&dst);
	h_net_free(net);
	return drops;
}

static void test_bottleneck(void **state)
{
	uint64_t resent_none, resent_dcqcn, cnps_none, cnps_dcqcn;
	(void)state;

	uint64_t drops_none = bottleneck(UROCE_CC_NONE, &resent_none, &cnps_none);
	uint64_t drops_dcqcn = bottleneck(UROCE_CC_DCQCN, &resent_dcqcn, &cnps_dcqcn);
	assert_true(drops_none > 0 && resent_none > 0);
	assert_int_equal(cnps_none, 0);
	assert_true(cnps_dcqcn > 0);
	assert_true(drops_dcqcn * 4 <= drops_none);
	assert_true(resent_dcqcn * 4 <= resent_none);
}

/* N:1 incast (2 to 16 senders) through a switch whose 10 Gb/s port to the receiver marks CE
 * with RED (tools/uroce-sim/scenario.c, its defaults: Kmin 20 KB, Kmax 100 KB, Pmax 50 %, a
 * 16 MB queue that holds every window, 60 ms): over the second half, under DCQCN, the senders
 * share the bottleneck fairly (Jain >= 0.99), fill it (>= 95 %) and keep its queue near the
 * marking range (at most twice Kmax, a quarter of the queue without congestion control, which
 * holds every sender's window). Nothing is lost, no completion fails. */
static void test_incast(void **state)
{
	(void)state;
	for (uint32_t n = 2; n <= 16; n *= 2) {
		struct scenario s;
		struct scenario_result d, none;
		scenario_defaults(&s);
		s.senders = n;
		assert_int_equal(scenario_run(&s, NULL, false, &d), 0);
		s.cc.algo = UROCE_CC_NONE;
		assert_int_equal(scenario_run(&s, NULL, false, &none), 0);
		printf("  %u:1 dcqcn: Jain %.4f, utilisation %.3f, queue peak %" PRIu64
		       " B, %" PRIu64 " CNPs; none: queue peak %" PRIu64 " B\n",
		       n, d.jain, d.utilisation, d.queue_peak, d.cnps, none.queue_peak);
		assert_true(d.jain >= 0.99);
		assert_true(d.utilisation >= 0.95);
		assert_true(d.queue_peak <= 200000);
		assert_true(d.queue_peak * 4 <= none.queue_peak);
		assert_true(d.completions > 0 && none.completions > 0);
		assert_true(!d.errors && !none.errors && !d.drops && !none.drops);
	}
}

/* Parameters out of range are refused. */
static void test_cfg_checked(void **state)
{
	const struct uroce_cc_cfg bad[] = {
		{.algo = UROCE_CC_COUNT}, {.ecn = 3}, {.cnp_dscp = 64}, {.cnp_prio = 8}, {.g_shift = 17},
		{.line_rate = 1000, .min_rate = 2000},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct uroce_dev_cfg cfg = {.ngids = 1, .gid = {h_addr(0, false)}, .cc = bad[i]};
		struct uroce_dev *dev;
		assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	}
}

/* UROCE_CC's syntax: the algorithm, key=value items with units; errors named. */
static void test_parse(void **state)
{
	struct uroce_cc_cfg c;
	char msg[256];
	(void)state;

	assert_int_equal(uroce_cc_parse(" dcqcn , line_rate=10g,min_rate=5M, time_reset=55us,"
					"byte_reset=10m,alpha_period=1ms,np_off=1,cnp_dscp=26,,g_shift=4,cnp_802p_prio=6,"
					"min_time_between_cnps=4000",
					&c, msg, sizeof(msg)),
			 0);
	assert_int_equal(c.algo, UROCE_CC_DCQCN);
	assert_true(c.line_rate == 10000000000ull && c.min_rate == 5000000);
	assert_true(c.time_reset_ns == 55000 && c.alpha_period_ns == 1000000);
	assert_true(c.byte_reset == 10000000 && c.np_off && c.cnp_dscp == 26 && c.g_shift == 4);
	assert_int_equal(c.cnp_prio, 6);
	assert_true(c.min_time_between_cnps_ns == 4000);
	assert_int_equal(uroce_cc_parse("none", &c, msg, sizeof(msg)), 0);
	assert_int_equal(c.algo, UROCE_CC_NONE);
	static const char *const bad[] = {"timely", "line_rate=10x", "time_reset=5g",
					  "cnp_dscp=64", "cnp_802p_prio=8", "wat=1", "line_rate=", "g_shift=-1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.algo = UROCE_CC_DCQCN;
		assert_int_equal(uroce_cc_parse(bad[i], &c, msg, sizeof(msg)), UROCE_EINVAL);
		assert_int_equal(c.algo, UROCE_CC_DCQCN); /* untouched */
		assert_non_null(strstr(msg, bad[i]));   /* the item named */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_np_cnp),       cmocka_unit_test(test_np_ud_and_off),
		cmocka_unit_test(test_ecn_on_send),  cmocka_unit_test(test_rp_dcqcn),
		cmocka_unit_test(test_pacer),        cmocka_unit_test(test_cnp_checks),
		cmocka_unit_test(test_cfg_checked),  cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bottleneck),   cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_incast),       cmocka_unit_test(test_cnp_priority),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

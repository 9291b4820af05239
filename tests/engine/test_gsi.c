/* SPDX-License-Identifier: MIT */
/* QP1, the General Services Interface (IBA 13.5.1), on the simulated fabric: a UD QP with
 * the QP number 1, one per port, whose Q_Key is the well-known 0x80010000 (13.5.1.1). A MAD
 * sent to QP1 with that key is received with the 40-byte network-header area and the
 * sender's QP number; any other key is dropped and counted (drop_gsi_qkey), also a
 * controlled key that an unprivileged UD QP asks for (10.2.4); QP1 answers from QP1; QP0
 * stays closed (Annex A17 CA17-33). rxe behaves the same: QPN 1 maps to the port's GSI QP
 * and check_keys expects GSI_QKEY for it (drivers/infiniband/sw/rxe/rxe_recv.c). */
#include "harness.h"

#include "wire/mad.h"

#define UD_KEY 0x11111111u

static struct uroce_qp *qp_new(struct h_net *net, int i, enum uroce_qp_type type)
{
	struct h_qp_opts o = {.type = type};
	return h_qp_create(net, i, &o, NULL);
}

/* RESET -> INIT -> RTR -> RTS for a datagram QP with the given Q_Key. */
static int to_rts(struct uroce_qp *qp, uint32_t qkey)
{
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_INIT, .port_num = 1, .qkey = qkey};
	int err = uroce_qp_modify(qp, &a,
				  UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX | UROCE_QPA_PORT |
					  UROCE_QPA_QKEY);
	if (err)
		return err;
	a.qp_state = UROCE_QPS_RTR;
	assert_int_equal(uroce_qp_modify(qp, &a, UROCE_QPA_STATE), 0);
	a.qp_state = UROCE_QPS_RTS;
	a.sq_psn = 0x123;
	assert_int_equal(uroce_qp_modify(qp, &a, UROCE_QPA_STATE | UROCE_QPA_SQ_PSN), 0);
	return 0;
}

static struct uroce_ah *ah_to(struct h_net *net, int from, int to)
{
	struct uroce_ah *ah;
	struct uroce_ah_attr aa = {.dgid = net->node[to].addr, .port_num = 1, .hop_limit = 64};
	assert_int_equal(uroce_ah_create(net->node[from].pd, &aa, &ah), 0);
	return ah;
}

/* A 256-byte MAD of the CM class (13.4.4) with tid in its header. */
static void mad_fill(uint8_t *p, uint64_t tid, bool response)
{
	struct uroce_mad_hdr h = {.base_version = UROCE_MAD_BASE_VERSION,
				  .mgmt_class = UROCE_MAD_CLASS_CM, .class_version = 2,
				  .r = response, .method = UROCE_MAD_METHOD_SEND, .tid = tid,
				  .attr_id = 0x0010};
	memset(p, 0, UROCE_MAD_LEN);
	assert_int_equal(uroce_mad_hdr_encode(&h, p, UROCE_MAD_LEN), UROCE_MAD_HDR_LEN);
	for (int i = UROCE_MAD_HDR_LEN; i < UROCE_MAD_LEN; i++)
		p[i] = (uint8_t)(tid + (uint64_t)i);
}

static void send_mad(struct uroce_qp *qp, struct uroce_ah *ah, uint64_t id, const struct h_buf *b,
		     uint32_t qpn, uint32_t qkey)
{
	struct uroce_sge sge = h_sge(b, 0, UROCE_MAD_LEN);
	struct uroce_send_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_SEND, .send_flags = UROCE_SEND_SIGNALED,
				   .wr.ud = {.ah = ah, .remote_qpn = qpn, .remote_qkey = qkey}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(qp, &wr, &bad), 0);
}

/* The receive of a MAD: 40 + 256 bytes, GRH, the sender's QP, P_Key index 0, the IPv4
 * header (from node `from`) in the second half of the header area, the MAD intact. */
static void expect_mad(struct h_net *net, int from, const struct uroce_wc *wc, uint64_t wr_id,
		       uint32_t src_qp, const uint8_t *rbuf, const uint8_t *sent)
{
	static const uint8_t zero[20];
	h_expect_wc(wc, wr_id, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc->byte_len, UROCE_UD_GRH_LEN + UROCE_MAD_LEN);
	assert_int_equal(wc->wc_flags, UROCE_WC_F_GRH);
	assert_int_equal(wc->src_qp, src_qp);
	assert_int_equal(wc->pkey_index, 0);
	assert_memory_equal(rbuf, zero, 20);
	assert_int_equal(rbuf[20], 0x45);
	assert_memory_equal(rbuf + 32, net->node[from].addr.ip, 4); /* IPv4 source */
	assert_memory_equal(rbuf + UROCE_UD_GRH_LEN, sent, UROCE_MAD_LEN);
}

/* Annex A17.5.8: QP1, the GSI QP, is the one special QP of a RoCEv2 port; one per port
 * (IBA 13.5.1); its Q_Key is 0x80010000 and no other; other QPs keep their numbers from 16
 * on. */
static void test_A17_5_8_gsi_qp_is_qp1(void **state)
{
	struct h_net *net = h_net_new(1, 1, false, NULL);
	struct uroce_qp *gsi = qp_new(net, 0, UROCE_QPT_GSI), *ud = qp_new(net, 0, UROCE_QPT_UD);
	struct uroce_qp *other;
	struct uroce_qp_attr a;
	struct uroce_qp_init_attr init;
	struct uroce_qp_init_attr ia = {.send_cq = net->node[0].cq, .recv_cq = net->node[0].cq,
					.qp_type = UROCE_QPT_GSI, .cap = {1, 1, 1, 1, 0}};
	(void)state;

	assert_int_equal(uroce_qp_num(gsi), 1);
	assert_int_equal(uroce_qp_num(ud), 16);
	assert_int_equal(uroce_qp_create(net->node[0].pd, &ia, &other), UROCE_EBUSY);
	uroce_qp_query(gsi, &a, &init);
	assert_int_equal(init.qp_type, UROCE_QPT_GSI);
	assert_int_equal(a.qkey, UROCE_GSI_QKEY);
	/* Another Q_Key is refused and changes nothing. */
	assert_int_equal(to_rts(gsi, UD_KEY), UROCE_EINVAL);
	assert_int_equal(uroce_qp_state(gsi), UROCE_QPS_RESET);
	assert_int_equal(to_rts(gsi, UROCE_GSI_QKEY), 0);
	a = (struct uroce_qp_attr){.qkey = 0x80020000};
	assert_int_equal(uroce_qp_modify(gsi, &a, UROCE_QPA_QKEY), UROCE_EINVAL);
	uroce_qp_query(gsi, &a, NULL);
	assert_int_equal(a.qkey, UROCE_GSI_QKEY);
	/* Once destroyed, the port can have a GSI QP again. */
	assert_int_equal(uroce_qp_destroy(gsi), 0);
	assert_int_equal(uroce_qp_create(net->node[0].pd, &ia, &other), 0);
	assert_int_equal(uroce_qp_num(other), 1);
	h_net_free(net);
}

/* IBA 13.5.1.1: a MAD sent by a UD QP to QP1 with the GSI Q_Key (a UD QP may hold that
 * controlled key when a privileged consumer set it) is received by the GSI QP with the
 * network-header area and the sender's QP number; on the wire, DETH carries 0x80010000 and
 * the sender's QP, BTH the default P_Key. QP1 answers the sender from QP1. */
static void test_IBA13_5_1_1_mad_to_qp1_and_reply(void **state)
{
	struct h_net *net = h_net_new(5, 2, false, NULL);
	struct uroce_qp *ud = qp_new(net, 0, UROCE_QPT_UD), *gsi = qp_new(net, 1, UROCE_QPT_GSI);
	struct h_buf req = h_buf_new(net, 0, UROCE_MAD_LEN, H_ALL_ACCESS, 1);
	struct h_buf r0 = h_buf_new(net, 0, 4096, H_ALL_ACCESS, 2);
	struct h_buf rep = h_buf_new(net, 1, UROCE_MAD_LEN, H_ALL_ACCESS, 3);
	struct h_buf r1 = h_buf_new(net, 1, 4096, H_ALL_ACCESS, 4);
	struct uroce_ah *ah01 = ah_to(net, 0, 1), *ah10 = ah_to(net, 1, 0);
	struct h_log log = {0};
	struct uroce_wc wc;
	struct uroce_mad_hdr h;
	(void)state;

	assert_int_equal(to_rts(ud, UROCE_GSI_QKEY), 0);
	assert_int_equal(to_rts(gsi, UROCE_GSI_QKEY), 0);
	h_post_recv(gsi, 1, &r1, 0, 1024);
	h_post_recv(ud, 2, &r0, 0, 1024);
	mad_fill(req.p, 0x1111, false);
	h_log_start(net, &log);
	send_mad(ud, ah01, 10, &req, 1, UROCE_GSI_QKEY);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 10, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 1);
	expect_mad(net, 0, &wc, 1, uroce_qp_num(ud), r1.p, req.p);
	assert_int_equal(wc.qp_num, 1);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.rec[0].opcode, UROCE_OP_UD_SEND_ONLY);
	assert_int_equal(log.rec[0].destqp, 1);
	assert_int_equal(log.rec[0].ext.deth.qkey, UROCE_GSI_QKEY);
	assert_int_equal(log.rec[0].ext.deth.srcqp, uroce_qp_num(ud));

	/* The reply: from QP1, to the QP the request came from, with the QP's own key. */
	assert_true(uroce_mad_hdr_decode(&h, r1.p + UROCE_UD_GRH_LEN, UROCE_MAD_LEN) > 0);
	mad_fill(rep.p, h.tid, true);
	send_mad(gsi, ah10, 20, &rep, wc.src_qp, 0x80000000u);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 20, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 0);
	expect_mad(net, 1, &wc, 2, 1, r0.p, rep.p);
	assert_true(uroce_mad_hdr_decode(&h, r0.p + UROCE_UD_GRH_LEN, UROCE_MAD_LEN) > 0);
	assert_true(h.r);
	assert_int_equal(h.tid, 0x1111);
	assert_int_equal(log.rec[1].ext.deth.srcqp, 1);
	assert_int_equal(log.rec[1].ext.deth.qkey, UROCE_GSI_QKEY);
	assert_int_equal(h_counter(net->node[1].dev, UROCE_CNT_drop_gsi_qkey), 0);
	h_log_free(net, &log);
	uroce_ah_destroy(ah01);
	uroce_ah_destroy(ah10);
	h_buf_free(&req);
	h_buf_free(&r0);
	h_buf_free(&rep);
	h_buf_free(&r1);
	h_net_free(net);
}

/* QP1 to QP1: both ports' GSI QPs exchange MADs with the WR Q_Key 0x80010000 (a controlled
 * key: the QP's own is sent, which for the GSI is that key). */
static void test_IBA13_5_1_gsi_to_gsi(void **state)
{
	struct h_net *net = h_net_new(6, 2, true, NULL);
	struct uroce_qp *g0 = qp_new(net, 0, UROCE_QPT_GSI), *g1 = qp_new(net, 1, UROCE_QPT_GSI);
	struct h_buf m0 = h_buf_new(net, 0, UROCE_MAD_LEN, H_ALL_ACCESS, 1);
	struct h_buf r1 = h_buf_new(net, 1, 1024, H_ALL_ACCESS, 2);
	struct uroce_ah *ah = ah_to(net, 0, 1);
	(void)state;

	assert_int_equal(to_rts(g0, UROCE_GSI_QKEY), 0);
	assert_int_equal(to_rts(g1, UROCE_GSI_QKEY), 0);
	h_post_recv(g1, 1, &r1, 0, 1024);
	mad_fill(m0.p, 42, false);
	send_mad(g0, ah, 5, &m0, 1, UROCE_GSI_QKEY);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 0);
	h_expect_wc(&wc, 5, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_int_equal(wc.src_qp, 1);
	assert_int_equal(wc.byte_len, UROCE_UD_GRH_LEN + UROCE_MAD_LEN);
	assert_int_equal(r1.p[0] >> 4, 6); /* the IPv6 header fills the area */
	assert_memory_equal(r1.p + UROCE_UD_GRH_LEN, m0.p, UROCE_MAD_LEN);
	uroce_ah_destroy(ah);
	h_buf_free(&m0);
	h_buf_free(&r1);
	h_net_free(net);
}

/* IBA 13.5.1.1 and 10.2.4: every datagram to QP1 without 0x80010000 is dropped and counted
 * (drop_gsi_qkey), the GSI QP's receive WQE untouched: another key, and the controlled key
 * asked for by a UD QP that does not hold it (the QP's own key goes out instead). */
static void test_IBA13_5_1_1_qp1_wrong_qkey_dropped(void **state)
{
	struct h_net *net = h_net_new(7, 2, false, NULL);
	struct uroce_qp *ud = qp_new(net, 0, UROCE_QPT_UD), *gsi = qp_new(net, 1, UROCE_QPT_GSI);
	struct h_buf m = h_buf_new(net, 0, UROCE_MAD_LEN, H_ALL_ACCESS, 1);
	struct h_buf r1 = h_buf_new(net, 1, 1024, H_ALL_ACCESS, 2);
	struct uroce_ah *ah = ah_to(net, 0, 1);
	struct h_log log = {0};
	(void)state;

	assert_int_equal(to_rts(ud, UD_KEY), 0);
	assert_int_equal(to_rts(gsi, UROCE_GSI_QKEY), 0);
	h_post_recv(gsi, 1, &r1, 0, 1024);
	mad_fill(m.p, 7, false);
	h_log_start(net, &log);
	send_mad(ud, ah, 1, &m, 1, 0x00010000u);    /* the GSI key without the controlled bit */
	send_mad(ud, ah, 2, &m, 1, UROCE_GSI_QKEY); /* controlled: the UD QP's own goes out */
	send_mad(ud, ah, 3, &m, 1, UD_KEY);
	h_run(net, UINT64_MAX);
	for (uint64_t id = 1; id <= 3; id++) {
		struct uroce_wc wc = h_poll1(net, 0);
		h_expect_wc(&wc, id, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	}
	assert_int_equal(log.n, 3);
	assert_int_equal(log.rec[1].ext.deth.qkey, UD_KEY);
	h_expect_empty(net, 1);
	assert_int_equal(h_counter(net->node[1].dev, UROCE_CNT_drop_gsi_qkey), 3);
	assert_int_equal(h_counter(net->node[1].dev, UROCE_CNT_rcvd_pkts), 0);
	/* The WQE is still there for a MAD with the right key. */
	struct uroce_qp *priv = qp_new(net, 0, UROCE_QPT_UD);
	assert_int_equal(to_rts(priv, UROCE_GSI_QKEY), 0);
	send_mad(priv, ah, 4, &m, 1, UROCE_GSI_QKEY);
	h_run(net, UINT64_MAX);
	struct uroce_wc wc = h_poll1(net, 0);
	h_expect_wc(&wc, 4, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 1);
	expect_mad(net, 0, &wc, 1, uroce_qp_num(priv), r1.p, m.p);
	h_log_free(net, &log);
	uroce_ah_destroy(ah);
	h_buf_free(&m);
	h_buf_free(&r1);
	h_net_free(net);
}

/* Annex A17 CA17-33: with a GSI QP present, QP0 is still closed: a datagram to QP0, whatever
 * its key, is dropped (drop_qp0) and reaches no QP. */
static void test_CA17_33_qp0_dropped_beside_gsi(void **state)
{
	struct h_net *net = h_net_new(8, 2, false, NULL);
	struct uroce_qp *ud = qp_new(net, 0, UROCE_QPT_UD), *gsi = qp_new(net, 1, UROCE_QPT_GSI);
	struct h_buf m = h_buf_new(net, 0, UROCE_MAD_LEN, H_ALL_ACCESS, 1);
	struct h_buf r1 = h_buf_new(net, 1, 1024, H_ALL_ACCESS, 2);
	struct uroce_ah *ah = ah_to(net, 0, 1);
	(void)state;

	assert_int_equal(to_rts(ud, UROCE_GSI_QKEY), 0);
	assert_int_equal(to_rts(gsi, UROCE_GSI_QKEY), 0);
	h_post_recv(gsi, 1, &r1, 0, 1024);
	mad_fill(m.p, 9, false);
	send_mad(ud, ah, 1, &m, 0, UROCE_GSI_QKEY);
	send_mad(ud, ah, 2, &m, 0, 0);
	h_run(net, UINT64_MAX);
	h_expect_empty(net, 1);
	assert_int_equal(h_counter(net->node[1].dev, UROCE_CNT_drop_qp0), 2);
	assert_int_equal(uroce_qp_counters(gsi)->v[UROCE_CNT_rcvd_pkts], 0);
	uroce_ah_destroy(ah);
	h_buf_free(&m);
	h_buf_free(&r1);
	h_net_free(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_A17_5_8_gsi_qp_is_qp1),
		cmocka_unit_test(test_IBA13_5_1_1_mad_to_qp1_and_reply),
		cmocka_unit_test(test_IBA13_5_1_gsi_to_gsi),
		cmocka_unit_test(test_IBA13_5_1_1_qp1_wrong_qkey_dropped),
		cmocka_unit_test(test_CA17_33_qp0_dropped_beside_gsi),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

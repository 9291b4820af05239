/* SPDX-License-Identifier: MIT */
/* Service ID Resolution (IBA 12.11, section numbers not verified): the datagram service's
 * question "which QPN and Q_Key serve this Service ID", as rdma_cm's UDP port space asks it
 * (a SIDR_REQ with the rdma_cm header in its private data, answered with the Q_Key
 * 0x01234567). As Linux's cm.c: no connection and no timewait; the asking ID resends until
 * the SIDR_REP or its retries are spent. */
#include "harness.h"

#include "cm/rdmacm.h"

#define SID_UDP 0x0000000001111C06ull /* RDMA_PS_UDP, port 7174 (udaddy's) */
#define T_SIDR (4096ull * 1000000)    /* cma: 1 << (CMA_CM_RESPONSE_TIMEOUT - 8) ms */

static struct uroce_cm_id *sidr_ask(struct h_net *net, int a, int b, const void *pdata,
				    uint8_t len)
{
	struct uroce_cm_id *id;
	struct uroce_cm_sidr_req_param p = {
		.path = h_path(net, a, b),
		.service_id = SID_UDP,
		.timeout_ns = T_SIDR,
		.max_cm_retries = UROCE_RDMA_MAX_CM_RETRIES,
		.private_data = pdata,
		.private_data_len = len,
	};
	assert_int_equal(uroce_cm_create_id(net->node[a].cm, NULL, &id), 0);
	assert_int_equal(uroce_cm_send_sidr_req(id, &p, net->now), 0);
	return id;
}

/* A SIDR_REQ with the rdma_cm header; the SIDR_REP with the QPN, the Q_Key and the Service
 * ID; both IDs IDLE after, the TID echoed. */
static void test_IBA12_11_resolve(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	uint8_t pdata[UROCE_CM_SIDR_REQ_PRIVATE_LEN];
	(void)state;
	h_init(&net, 2, true, NULL);
	struct uroce_cm_id *l = h_listen(&net, 1, SID_UDP);
	ssize_t len = uroce_rdma_hdr_encode(pdata, sizeof(pdata), &net.node[0].addr, 40000,
					    &net.node[1].addr, "hello", 5);
	assert_int_equal(len, UROCE_RDMA_HDR_LEN + 5);
	struct uroce_cm_id *a = sidr_ask(&net, 0, 1, pdata, (uint8_t)len);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_SIDR_REQ_SENT);
	assert_true(h_take(&net, 0, &m));
	uint64_t tid = h_tid(&m);
	struct uroce_cm_msg q = h_decode(&m);
	assert_int_equal(q.attr, UROCE_CM_ATTR_SIDR_REQ);
	assert_int_equal(tid, 2ull << 32 | q.sidr_req.request_id);
	assert_int_equal(q.sidr_req.request_id >> 24, 1); /* node 0's prefix: its answer's steering */
	assert_int_equal(q.sidr_req.service_id, SID_UDP);
	assert_int_equal(q.sidr_req.pkey, 0xFFFF);
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_SIDR_REQ_RECEIVED);
	assert_ptr_equal(ev.listen_id, l);
	assert_int_equal(uroce_cm_id_state(ev.id), UROCE_CM_SIDR_REQ_RCVD);
	/* The rdma_cm header, as the listener reads it. */
	struct uroce_io_addr src, dst;
	uint16_t sport;
	assert_int_equal(uroce_rdma_hdr_decode(ev.msg.sidr_req.private_data,
					       UROCE_CM_SIDR_REQ_PRIVATE_LEN, &src, &sport, &dst), 0);
	assert_true(uroce_io_addr_equal(&src, &net.node[0].addr));
	assert_true(uroce_io_addr_equal(&dst, &net.node[1].addr));
	assert_int_equal(sport, 40000);
	assert_memory_equal(ev.msg.sidr_req.private_data + UROCE_RDMA_HDR_LEN, "hello", 5);
	/* A query says nothing: no connection. */
	struct uroce_cm_conn c;
	assert_int_equal(uroce_cm_id_query(ev.id, &c), UROCE_EINVAL);

	static const uint8_t info[4] = {9, 8, 7, 6};
	struct uroce_cm_sidr_rep_param rp = {.status = UROCE_CM_SIDR_SUCCESS, .qpn = 0xABCDEF,
					     .qkey = UROCE_RDMA_UDP_QKEY, .info = info,
					     .info_len = 4, .private_data = "pd", .private_data_len = 2};
	assert_int_equal(uroce_cm_send_sidr_rep(ev.id, &rp), 0);
	assert_int_equal(uroce_cm_id_state(ev.id), UROCE_CM_IDLE);
	assert_int_equal(uroce_cm_send_sidr_rep(ev.id, &rp), UROCE_EINVAL);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_tid(&m), tid);
	h_give(&net, 0, &m);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_SIDR_REP_RECEIVED);
	assert_ptr_equal(ev.id, a);
	const struct uroce_cm_sidr_rep *r = &ev.msg.sidr_rep;
	assert_int_equal(r->status, UROCE_CM_SIDR_SUCCESS);
	assert_int_equal(r->qpn, 0xABCDEF);
	assert_int_equal(r->qkey, UROCE_RDMA_UDP_QKEY);
	assert_int_equal(r->service_id, SID_UDP);
	assert_int_equal(r->request_id, q.sidr_req.request_id);
	assert_int_equal(r->add_info_len, 4);
	assert_memory_equal(r->add_info, info, 4);
	assert_memory_equal(r->private_data, "pd", 2);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
	/* The ID asks again. */
	struct uroce_cm_sidr_req_param p = {.path = h_path(&net, 0, 1), .service_id = SID_UDP,
					    .timeout_ns = T_SIDR};
	assert_int_equal(uroce_cm_send_sidr_req(a, &p, 0), 0);
	h_check_accounting(&net.node[0]);
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* No listener: SIDR_REP "Service ID not supported" (Linux's cm_sidr_req_handler). */
static void test_IBA12_11_no_listener(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = sidr_ask(&net, 0, 1, NULL, 0);
	h_settle(&net, H_SEC);
	const struct uroce_cm_event *ev = h_last(&net.node[0], UROCE_CM_EV_SIDR_REP_RECEIVED);
	assert_non_null(ev);
	assert_int_equal(ev->msg.sidr_rep.status, UROCE_CM_SIDR_UNSUPPORTED);
	assert_int_equal(ev->msg.sidr_rep.service_id, SID_UDP);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_sidr_unsupported_sent), 1);
	assert_int_equal(net.node[1].nev, 0);
	h_fini(&net);
}

/* Nobody answers: 1 + max_cm_retries SIDR_REQs, timeout_ns apart, then SIDR_REQ_ERROR. */
static void test_IBA12_11_timeout(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	net.node[1].down = true;
	struct uroce_cm_id *a = sidr_ask(&net, 0, 1, NULL, 0);
	h_settle(&net, 100 * T_SIDR);
	assert_int_equal(net.node[0].nev, 1);
	assert_int_equal(net.node[0].ev[0].type, UROCE_CM_EV_SIDR_REQ_ERROR);
	assert_int_equal(net.node[0].at[0], 16 * T_SIDR);
	assert_int_equal(net.node[0].sent[UROCE_CM_ATTR_SIDR_REQ], 16);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	h_fini(&net);
}

/* A SIDR_REQ again while its owner decides: counted, no second event. Once answered, a
 * resent one is a new request (Linux keeps no answered requests either). */
static void test_IBA12_11_duplicates(void **state)
{
	struct h_net net;
	struct uroce_cm_mad req, m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, SID_UDP);
	sidr_ask(&net, 0, 1, NULL, 0);
	assert_true(h_take(&net, 0, &req));
	h_give(&net, 1, &req);
	h_give(&net, 1, &req);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_event none;
	assert_false(h_event(&net, 1, &none));
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_dup_sidr_req), 1);
	/* The same request ID from another address is another request. */
	struct uroce_cm_mad other = req;
	other.local = h_addr(2, false);
	h_give(&net, 1, &other);
	struct uroce_cm_event ev2;
	assert_true(h_event(&net, 1, &ev2));
	assert_ptr_not_equal(ev2.id, ev.id);
	struct uroce_cm_sidr_rep_param rp = {.status = UROCE_CM_SIDR_NO_QP};
	assert_int_equal(uroce_cm_send_sidr_rep(ev.id, &rp), 0);
	assert_true(h_take(&net, 1, &m));
	h_give(&net, 1, &req);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_SIDR_REQ_RECEIVED);
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* Destroy: an unanswered request is rejected (SIDR_REP "rejected"), an asking ID stops
 * asking, silently. */
static void test_IBA12_11_destroy(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, SID_UDP);
	struct uroce_cm_id *a = sidr_ask(&net, 0, 1, NULL, 0);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	uroce_cm_destroy_id(ev.id, 0);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_decode(&m).sidr_rep.status, UROCE_CM_SIDR_REJECT);
	uroce_cm_destroy_id(a, 0);
	assert_false(h_take(&net, 0, &m));
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
	h_give(&net, 0, &m); /* the REJECT for a destroyed ID: dropped */
	assert_false(h_event(&net, 0, &ev));
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_drop_unknown_id), 1);
	h_fini(&net);
}

static void test_IBA12_11_parameter_errors(void **state)
{
	struct h_net net;
	struct uroce_cm_id *a;
	static const uint8_t big[256];
	(void)state;
	h_init(&net, 2, false, NULL);
	assert_int_equal(uroce_cm_create_id(net.node[0].cm, NULL, &a), 0);
	struct uroce_cm_sidr_req_param p = {.path = h_path(&net, 0, 1), .service_id = SID_UDP,
					    .timeout_ns = T_SIDR};
	struct uroce_cm_sidr_req_param bad = p;
	bad.timeout_ns = 0;
	assert_int_equal(uroce_cm_send_sidr_req(a, &bad, 0), UROCE_EINVAL);
	bad = p;
	bad.max_cm_retries = 16;
	assert_int_equal(uroce_cm_send_sidr_req(a, &bad, 0), UROCE_EINVAL);
	bad = p;
	bad.private_data = big;
	bad.private_data_len = UROCE_CM_SIDR_REQ_PRIVATE_LEN + 1;
	assert_int_equal(uroce_cm_send_sidr_req(a, &bad, 0), UROCE_EINVAL);
	bad = p;
	bad.path.remote = h_addr(1, true);
	assert_int_equal(uroce_cm_send_sidr_req(a, &bad, 0), UROCE_EINVAL);
	struct uroce_cm_sidr_rep_param rp = {0};
	assert_int_equal(uroce_cm_send_sidr_rep(a, &rp), UROCE_EINVAL); /* IDLE */
	assert_int_equal(uroce_cm_send_sidr_req(a, &p, 0), 0);
	assert_int_equal(uroce_cm_send_sidr_req(a, &p, 0), UROCE_EINVAL); /* not IDLE */

	/* The answering side's limits. */
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	h_listen(&net, 1, SID_UDP);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	rp.qpn = 0x1000000;
	assert_int_equal(uroce_cm_send_sidr_rep(ev.id, &rp), UROCE_EINVAL);
	rp.qpn = 1;
	rp.info = big;
	rp.info_len = UROCE_CM_SIDR_REP_INFO_LEN + 1;
	assert_int_equal(uroce_cm_send_sidr_rep(ev.id, &rp), UROCE_EINVAL);
	rp.info_len = 0;
	rp.private_data = big;
	rp.private_data_len = UROCE_CM_SIDR_REP_PRIVATE_LEN + 1;
	assert_int_equal(uroce_cm_send_sidr_rep(ev.id, &rp), UROCE_EINVAL);
	assert_int_equal(uroce_cm_id_state(ev.id), UROCE_CM_SIDR_REQ_RCVD);
	h_fini(&net);
}

/* A lossy, duplicating network: the asking side ends with exactly one answer or one
 * SIDR_REQ_ERROR, and the answer is right. */
static void test_IBA12_11_loss(void **state)
{
	int answered = 0;
	(void)state;
	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct uroce_impair_cfg cfg = {.loss = 0.4, .dup = 0.3, .reorder = 0.3, .seed = seed};
		struct h_net net;
		h_init(&net, 2, false, &cfg);
		h_listen(&net, 1, SID_UDP);
		struct uroce_cm_id *a = sidr_ask(&net, 0, 1, NULL, 0);
		h_settle(&net, 100 * T_SIDR);
		const struct h_node *na = &net.node[0];
		int ok = h_count(na, UROCE_CM_EV_SIDR_REP_RECEIVED);
		assert_int_equal(ok + h_count(na, UROCE_CM_EV_SIDR_REQ_ERROR), 1);
		if (ok) {
			const struct uroce_cm_event *ev = h_last(na, UROCE_CM_EV_SIDR_REP_RECEIVED);
			assert_int_equal(ev->msg.sidr_rep.qpn, H_QPN(1));
			assert_int_equal(ev->msg.sidr_rep.qkey, UROCE_RDMA_UDP_QKEY);
		}
		answered += ok;
		assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
		assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
		h_check_accounting(&net.node[0]);
		h_check_accounting(&net.node[1]);
		h_fini(&net);
	}
	assert_int_equal(answered, 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA12_11_resolve),
		cmocka_unit_test(test_IBA12_11_no_listener),
		cmocka_unit_test(test_IBA12_11_timeout),
		cmocka_unit_test(test_IBA12_11_duplicates),
		cmocka_unit_test(test_IBA12_11_destroy),
		cmocka_unit_test(test_IBA12_11_parameter_errors),
		cmocka_unit_test(test_IBA12_11_loss),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

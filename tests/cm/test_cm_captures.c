/* SPDX-License-Identifier: MIT */
/* The CM's messages against Linux's (../shared/testdata/captures): the rdma_cm exchanges of
 * rxe-rdmacm-send.pcap (ib_send_bw -R: two connections, one closed by each side) and
 * rxe-cm-write-read.pcap are played again between two CMs set up as the two kernels were
 * (their CA GUIDs, TID agent number 2, ACK delay 15), with the REQ built as the librdmacm
 * layer will build it (cm/rdmacm.h: the path of cma_resolve_iboe_route, the rdma_cm header,
 * cma_connect_ib's parameters) and the captured QPNs, PSNs, ports and resources. Every
 * REQ, REP, RTU, DREQ and DREP must equal the captured one byte for byte but for what must
 * differ: the comm IDs and the low half of the TID (Linux puts its comm ID there,
 * byte-swapped). The IP addresses, traffic class and hop limit of each MAD match the
 * capture's IP header too. Skipped (77) without ../shared. */
#include "harness.h"

#include "cm/rdmacm.h"
#include "wire/packet.h"

#define MAX_MADS 16

struct cap_mad {
	unsigned frame;
	struct uroce_io_addr src, dst;
	uint8_t tos, ttl;
	uint8_t mad[UROCE_MAD_LEN];
};

struct capture {
	struct cap_mad m[MAX_MADS];
	int n;
};

static void on_frame(void *ctx, size_t number, enum uroce_link link, const uint8_t *data,
		     size_t len)
{
	struct capture *c = ctx;
	struct uroce_pkt p;

	if (uroce_pkt_dissect(&p, link, data, len) || !(p.layers & UROCE_L_BTH) ||
	    p.bth.destqp != UROCE_QP1 || !(p.layers & UROCE_L_IPV4) || p.payload_len < UROCE_MAD_LEN)
		return;
	assert_true(c->n < MAX_MADS);
	struct cap_mad *m = &c->m[c->n++];
	m->frame = (unsigned)number;
	m->src = (struct uroce_io_addr){.ipv6 = false};
	m->dst = (struct uroce_io_addr){.ipv6 = false};
	memcpy(m->src.ip, p.ip4.src, 4);
	memcpy(m->dst.ip, p.ip4.dst, 4);
	m->tos = p.ip4.tos;
	m->ttl = p.ip4.ttl;
	memcpy(m->mad, data + p.payload_off, UROCE_MAD_LEN);
}

static const struct cap_mad *frame(const struct capture *c, unsigned number)
{
	for (int i = 0; i < c->n; i++)
		if (c->m[i].frame == number)
			return &c->m[i];
	fail_msg("frame %u is not a MAD", number);
	return NULL;
}

static struct uroce_cm_msg decode(const uint8_t *mad)
{
	struct uroce_cm_msg m;
	assert_int_equal(uroce_cm_decode(&m, get_be16(mad + 16), mad + UROCE_MAD_HDR_LEN,
					 UROCE_CM_DATA_LEN), UROCE_CM_DATA_LEN);
	return m;
}

/* ours must equal theirs except in [a, b) ranges: the TID's low half (12..16) always, and
 * the comm IDs (MAD data byte 0..4 and 4..8: MAD bytes 24..32, nids of them). The routing
 * of the MAD is the captured packet's. */
static void compare(const struct uroce_cm_mad *ours, const struct cap_mad *theirs, int nids)
{
	uint8_t a[UROCE_MAD_LEN], b[UROCE_MAD_LEN];

	memcpy(a, ours->data, sizeof(a));
	memcpy(b, theirs->mad, sizeof(b));
	memset(a + 12, 0, 4);
	memset(b + 12, 0, 4);
	memset(a + 24, 0, 4 * (size_t)nids);
	memset(b + 24, 0, 4 * (size_t)nids);
	for (size_t i = 0; i < sizeof(a); i++)
		if (a[i] != b[i])
			fail_msg("frame %u: MAD byte %zu is 0x%02x, Linux wrote 0x%02x", theirs->frame, i,
				 a[i], b[i]);
	assert_true(uroce_io_addr_equal(&ours->local, &theirs->src));
	assert_true(uroce_io_addr_equal(&ours->peer, &theirs->dst));
	assert_int_equal(ours->traffic_class, theirs->tos);
	assert_int_equal(ours->hop_limit, theirs->ttl);
}

/* Hands what one CM sent to the other, as it arrives. */
static void pass(struct uroce_cm *to, const struct uroce_cm_mad *sent)
{
	struct uroce_cm_mad m = *sent;
	m.peer = sent->local;
	m.local = sent->peer;
	uroce_cm_recv(to, &m, 0);
}

struct exchange {
	const char *file;
	unsigned req, rep, rtu, dreq, drep;
	bool passive_closes;
};

static void play(const struct capture *c, const struct exchange *x)
{
	const struct cap_mad *creq = frame(c, x->req), *crep = frame(c, x->rep);
	struct uroce_cm_msg q = decode(creq->mad), r = decode(crep->mad);
	struct uroce_cm *ca, *cb;
	struct uroce_cm_id *a, *l, *b;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	uint64_t tid_high = get_be64(creq->mad + 8) >> 32;

	struct uroce_cm_cfg cfg_a = {.ca_guid = q.req.local_ca_guid, .seed = 1,
				     .tid_high = (uint32_t)tid_high, .ack_delay = 15};
	struct uroce_cm_cfg cfg_b = {.ca_guid = r.rep.local_ca_guid, .seed = 2,
				     .tid_high = (uint32_t)tid_high, .ack_delay = 15};
	assert_int_equal(uroce_cm_new(&cfg_a, &ca), 0);
	assert_int_equal(uroce_cm_new(&cfg_b, &cb), 0);
	assert_int_equal(uroce_cm_create_id(cb, NULL, &l), 0);
	assert_int_equal(uroce_cm_listen(l, q.req.service_id, 0), 0);

	/* The active side: rdma_resolve_route, then rdma_connect. */
	struct uroce_io_addr src, dst;
	uint16_t sport;
	assert_int_equal(uroce_rdma_hdr_decode(q.req.private_data, UROCE_CM_REQ_PRIVATE_LEN, &src,
					       &sport, &dst), 0);
	assert_true(uroce_io_addr_equal(&src, &creq->src));
	assert_true(uroce_io_addr_equal(&dst, &creq->dst));
	struct uroce_cm_req_param p = {
		.service_id = uroce_rdma_service_id(UROCE_RDMA_PS_TCP,
						    uroce_rdma_sid_port(q.req.service_id)),
		.qpn = q.req.local_qpn,
		.transport = UROCE_CM_TRANSPORT_RC,
		.starting_psn = q.req.starting_psn,
		.responder_resources = q.req.responder_resources,
		.initiator_depth = q.req.initiator_depth,
		.remote_cm_response_timeout = UROCE_RDMA_CM_RESPONSE_TIMEOUT,
		.local_cm_response_timeout = UROCE_RDMA_CM_RESPONSE_TIMEOUT,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.max_cm_retries = UROCE_RDMA_MAX_CM_RETRIES,
	};
	/* A 1500-byte netdev: a 1024-byte path MTU (iboe_get_mtu: IBA code 3); TTL 64; no ToS. */
	uroce_rdma_iboe_path(&p.path, &creq->src, sport, &creq->dst,
			     uroce_rdma_sid_port(p.service_id), 0, 64, 3, 0, 0);
	uint8_t pdata[UROCE_CM_REQ_PRIVATE_LEN];
	ssize_t len = uroce_rdma_hdr_encode(pdata, sizeof(pdata), &creq->src, sport, &creq->dst,
					    NULL, 0);
	assert_int_equal(len, UROCE_RDMA_HDR_LEN);
	p.private_data = pdata;
	p.private_data_len = (uint8_t)len;
	assert_int_equal(uroce_cm_create_id(ca, NULL, &a), 0);
	assert_int_equal(uroce_cm_send_req(a, &p, 0), 0);
	assert_true(uroce_cm_next_mad(ca, &m));
	compare(&m, creq, 1);
	uint64_t tid = get_be64(m.data + 8);
	assert_int_equal(tid >> 32, tid_high);

	/* The passive side: rdma_accept with the captured REP's values and data. */
	pass(cb, &m);
	assert_true(uroce_cm_get_event(cb, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REQ_RECEIVED);
	b = ev.id;
	struct uroce_cm_rep_param rp = {
		.qpn = r.rep.local_qpn,
		.starting_psn = r.rep.starting_psn,
		.responder_resources = r.rep.responder_resources,
		.initiator_depth = r.rep.initiator_depth,
		.flow_control = r.rep.e2e_flow_control,
		.rnr_retry_count = r.rep.rnr_retry_count,
		.srq = r.rep.srq,
		.private_data = r.rep.private_data,
		.private_data_len = UROCE_CM_REP_PRIVATE_LEN,
	};
	assert_int_equal(uroce_cm_send_rep(b, &rp, 0), 0);
	assert_true(uroce_cm_next_mad(cb, &m));
	compare(&m, crep, 2);
	assert_int_equal(get_be64(m.data + 8), tid);
	struct uroce_cm_conn conn_a;
	assert_int_equal(uroce_cm_id_query(a, &conn_a), 0);
	assert_int_equal(decode(m.data).rep.remote_comm_id, conn_a.local_comm_id);

	pass(ca, &m);
	assert_true(uroce_cm_get_event(ca, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REP_RECEIVED);
	assert_int_equal(uroce_cm_send_rtu(a, NULL, 0), 0);
	assert_true(uroce_cm_next_mad(ca, &m));
	compare(&m, frame(c, x->rtu), 2);
	pass(cb, &m);
	assert_true(uroce_cm_get_event(cb, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_RTU_RECEIVED);

	/* rdma_disconnect on one side, the DREP from the other. */
	struct uroce_cm_id *closer = x->passive_closes ? b : a, *other = x->passive_closes ? a : b;
	struct uroce_cm *cc = x->passive_closes ? cb : ca, *co = x->passive_closes ? ca : cb;
	assert_int_equal(uroce_cm_send_dreq(closer, NULL, 0, 0), 0);
	assert_true(uroce_cm_next_mad(cc, &m));
	compare(&m, frame(c, x->dreq), 2);
	uint64_t dtid = get_be64(m.data + 8);
	pass(co, &m);
	assert_true(uroce_cm_get_event(co, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_DREQ_RECEIVED);
	assert_int_equal(uroce_cm_send_drep(other, NULL, 0, 0), 0);
	assert_true(uroce_cm_next_mad(co, &m));
	compare(&m, frame(c, x->drep), 2);
	assert_int_equal(get_be64(m.data + 8), dtid);
	uroce_cm_free(ca);
	uroce_cm_free(cb);
}

static void test_linux_rdma_cm_exchanges(void **state)
{
	static const struct exchange xs[] = {
		{"rxe-rdmacm-send.pcap", 1, 2, 3, 94, 95, true},
		{"rxe-rdmacm-send.pcap", 24, 25, 26, 92, 93, false},
		{"rxe-cm-write-read.pcap", 1, 2, 3, 11, 12, false},
	};
	char path[4096];
	(void)state;
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		static struct capture c;
		memset(&c, 0, sizeof(c));
		snprintf(path, sizeof(path), "%s/%s", test_captures_dir(), xs[i].file);
		assert_true(test_each_frame(path, on_frame, &c) > 0);
		play(&c, &xs[i]);
	}
}

/* The flow labels Linux put in the captured REQs are cma_get_roce_udp_flow_label's. */
static void test_rdma_cm_flow_label(void **state)
{
	(void)state;
	assert_int_equal(uroce_rdma_flow_label(0xE4D4, 18515, false, 0), 0xBFDFF);
	assert_int_equal(uroce_rdma_flow_label(0x93D7, 0x1D2F, false, 0), 0x20438);
	/* An IPv6 source's own flow label wins; an IPv4 one has none. */
	assert_int_equal(uroce_rdma_flow_label(0xE4D4, 18515, true, 0x12345), 0x12345);
	assert_int_equal(uroce_rdma_flow_label(0xE4D4, 18515, false, 0x12345), 0xBFDFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_rdma_cm_exchanges),
		cmocka_unit_test(test_rdma_cm_flow_label),
	};

	if (!test_captures_dir()) {
		fprintf(stderr, "captures folder absent: skipped\n");
		return TEST_SKIP_CODE;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

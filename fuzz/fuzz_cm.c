/* SPDX-License-Identifier: MIT */
/* Input: a script of steps run against three live CMs, nodes 0, 1 and 2, each with an IPv4
 * and an IPv6 address and two listeners (an rdma_cm TCP port in slot 0, a UDP port in slot
 * 1), on a network of MADs the script controls (fuzz_cm.h lists the steps): API calls on up
 * to 12 IDs per node with fuzzed parameters (connect, accept, RTU, REJ with any reason, MRA
 * with any service timeout, DREQ, DREP, COMM_EST, SIDR both ways, destroy in any state,
 * listen on any Service ID, query), events taken and answered as rdma_cm would or left to
 * pile up, MADs in flight delivered, lost, duplicated, swapped or changed, MADs made from the
 * input (any attribute, any header, the comm IDs of a live ID or none) from a peer or a
 * stranger, time passing, nodes going silent. Node 1 has room for few IDs, node 2 for few
 * MADs waiting to be sent.
 *
 * Then a clean finish: every node up, everything delivered and answered, time run until no
 * timer is left; every ID destroyed, and again until nothing is left. Each input starts from
 * fresh CMs, so an input replays alone. Invariants beyond the sanitizers: every MAD a CM
 * sends has the CM header (version 1, class 0x07, class version 2, Send, status 0), is a
 * message of the connected or datagram service (never LAP, APR, ClassPortInfo), never a REJ
 * with reason 13 or 19 (Annex A17 CA17-35), goes from the node's own address to one of the
 * same IP version, and a REQ's LIDs are what Linux writes (CA17-34); every received MAD is
 * counted as handled or under one drop counter; calls fail only with their documented codes,
 * a REJ with reason 13 or 19 always fails; events name IDs the script holds (a REQ's or
 * SIDR_REQ's a new one, through a live listener), never one it destroyed, and carry the
 * message their type says; after the timers ran nothing is overdue; at the end no timer, MAD
 * or event is left. */
#include "fuzz_cm.h"

#include <string.h>

#include "common/error.h"
#include "fuzz_check.h"
#include "wire/bytes.h"

#define FLIGHT 128
#define SETTLE_ROUNDS 64
#define FINISH_ROUNDS 20000
#define MAX_STEPS 1024

struct fnode {
	struct uroce_cm *cm;
	struct uroce_io_addr a4, a6;
	bool down;
	struct uroce_cm_id *slot[FC_SLOTS];
	bool listener[FC_SLOTS];
	int events[UROCE_CM_NEVENTS];
	uint32_t qpns;
};

static struct fnode g_n[FC_NODES];
static struct uroce_cm_mad g_fl[FLIGHT]; /* in flight, as sent: peer is the destination */
static int g_nfl;
static uint64_t g_now;
static bool g_live;

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

/* ---- set-up ---- */

static void node_listen(int i, int s, uint64_t sid)
{
	struct fnode *n = &g_n[i];
	FUZZ_CHECK(uroce_cm_create_id(n->cm, NULL, &n->slot[s]) == 0);
	FUZZ_CHECK(uroce_cm_listen(n->slot[s], sid, 0) == 0);
	n->listener[s] = true;
}

static void fresh(void)
{
	if (g_live)
		fc_finish();
	memset(g_n, 0, sizeof(g_n));
	g_nfl = 0;
	g_now = 0;
	for (int i = 0; i < FC_NODES; i++) {
		struct fnode *n = &g_n[i];
		/* Node 1 runs out of IDs soon (two listeners and ten more), node 2 of room for
		 * MADs to send: the paths that drop for want of resources get their turn. */
		struct uroce_cm_cfg cfg = {.ca_guid = 0x505400FFFE181001ull + (uint64_t)i,
					   .seed = (uint64_t)i + 1, .tid_high = 2, .ack_delay = 15,
					   .max_ids = i == 1 ? 12 : 64, .max_queued = i == 2 ? 6 : 256};
		FUZZ_CHECK(uroce_cm_new(&cfg, &n->cm) == 0);
		n->a4 = (struct uroce_io_addr){.ipv6 = false, .ip = {10, 0, 0, (uint8_t)(i + 1)}};
		n->a6 = (struct uroce_io_addr){.ipv6 = true, .ip = {0xFD, [15] = (uint8_t)(i + 1)}};
		node_listen(i, 0, FC_SID_TCP);
		node_listen(i, 1, FC_SID_UDP);
	}
	g_live = true;
}

static bool own_addr(int i, const struct uroce_io_addr *a)
{
	return uroce_io_addr_equal(a, &g_n[i].a4) || uroce_io_addr_equal(a, &g_n[i].a6);
}

static int node_of(const struct uroce_io_addr *a)
{
	for (int i = 0; i < FC_NODES; i++)
		if (own_addr(i, a))
			return i;
	return -1;
}

static void check_counts(int i)
{
	const union uroce_cm_counters *c = uroce_cm_counters(g_n[i].cm);
	uint64_t drops = 0;
	for (int k = 0; k < UROCE_CM_NCOUNTERS; k++)
		if (!strncmp(uroce_cm_counter_name((enum uroce_cm_counter)k), "drop_", 5))
			drops += c->v[k];
	FUZZ_CHECK(c->rx_mads == c->rx_handled + drops);
}

/* ---- MADs out ---- */

static void check_out(int i, const struct uroce_cm_mad *m)
{
	struct uroce_mad_hdr h;
	struct uroce_cm_msg msg;

	FUZZ_CHECK(uroce_mad_hdr_decode(&h, m->data, sizeof(m->data)) == UROCE_MAD_HDR_LEN);
	FUZZ_CHECK(h.base_version == 1 && h.mgmt_class == UROCE_MAD_CLASS_CM &&
		   h.class_version == 2 && !h.r && h.method == UROCE_MAD_METHOD_SEND &&
		   h.status == 0 && h.class_specific == 0 && h.attr_mod == 0);
	FUZZ_CHECK(h.attr_id >= UROCE_CM_ATTR_REQ && h.attr_id <= UROCE_CM_ATTR_SIDR_REP);
	FUZZ_CHECK(uroce_cm_decode(&msg, h.attr_id, m->data + UROCE_MAD_HDR_LEN,
				   UROCE_CM_DATA_LEN) == UROCE_CM_DATA_LEN);
	if (h.attr_id == UROCE_CM_ATTR_REJ)
		FUZZ_CHECK(msg.rej.reason != UROCE_CM_REJ_INVALID_LID &&
			   msg.rej.reason != UROCE_CM_REJ_INVALID_ALT_LID);
	if (h.attr_id == UROCE_CM_ATTR_REQ) {
		const struct uroce_cm_path *p = &msg.req.primary;
		bool local = p->hop_limit <= 1;
		FUZZ_CHECK(p->local_lid == (local ? 0 : 0xFFFF) && p->remote_lid == p->local_lid &&
			   p->subnet_local == local && msg.req.alternate.local_lid == 0);
		FUZZ_CHECK(msg.req.transport_type <= UROCE_CM_TRANSPORT_UC);
	}
	FUZZ_CHECK(own_addr(i, &m->local));
	FUZZ_CHECK(m->peer.ipv6 == m->local.ipv6);
	FUZZ_CHECK(m->flow_label <= 0xFFFFF);
}

/* Every MAD the CMs have goes into flight (a silent node's are lost). */
static void pump(void)
{
	struct uroce_cm_mad m;

	for (int i = 0; i < FC_NODES; i++) {
		while (uroce_cm_next_mad(g_n[i].cm, &m)) {
			check_out(i, &m);
			if (!g_n[i].down && g_nfl < FLIGHT)
				g_fl[g_nfl++] = m;
		}
	}
}

static void give(const struct uroce_cm_mad *sent)
{
	int to = node_of(&sent->peer);
	if (to < 0 || g_n[to].down)
		return;
	struct uroce_cm_mad m = *sent;
	m.peer = sent->local;
	m.local = sent->peer;
	uroce_cm_recv(g_n[to].cm, &m, g_now);
	check_counts(to);
}

static void take_flight(struct uroce_cm_mad *m)
{
	*m = g_fl[0];
	memmove(g_fl, g_fl + 1, (size_t)(--g_nfl) * sizeof(g_fl[0]));
}

/* ---- IDs and events ---- */

static int slot_of(int i, const struct uroce_cm_id *id)
{
	for (int s = 0; s < FC_SLOTS; s++)
		if (g_n[i].slot[s] == id)
			return s;
	return -1;
}

static void destroy_slot(int i, int s)
{
	struct fnode *n = &g_n[i];
	if (!n->slot[s])
		return;
	uroce_cm_destroy_id(n->slot[s], g_now);
	n->slot[s] = NULL;
	n->listener[s] = false;
}

static bool ok_or(int rc, int also) { return rc == 0 || rc == UROCE_EINVAL || rc == also; }

/* The message each event carries (0: none). */
static uint16_t event_attr(enum uroce_cm_event_type t)
{
	switch (t) {
	case UROCE_CM_EV_REQ_RECEIVED: return UROCE_CM_ATTR_REQ;
	case UROCE_CM_EV_REP_RECEIVED: return UROCE_CM_ATTR_REP;
	case UROCE_CM_EV_RTU_RECEIVED: return UROCE_CM_ATTR_RTU;
	case UROCE_CM_EV_DREQ_RECEIVED: return UROCE_CM_ATTR_DREQ;
	case UROCE_CM_EV_DREP_RECEIVED: return UROCE_CM_ATTR_DREP;
	case UROCE_CM_EV_MRA_RECEIVED: return UROCE_CM_ATTR_MRA;
	case UROCE_CM_EV_REJ_RECEIVED: return UROCE_CM_ATTR_REJ;
	case UROCE_CM_EV_SIDR_REQ_RECEIVED: return UROCE_CM_ATTR_SIDR_REQ;
	case UROCE_CM_EV_SIDR_REP_RECEIVED: return UROCE_CM_ATTR_SIDR_REP;
	default: return 0;
	}
}

/* What Linux's rdma_cm does with each event (cma.c's handlers): accept requests, answer a
 * REP with the RTU and a DREQ with the DREP, and let go of IDs that are done. */
static void answer(int i, const struct uroce_cm_event *ev)
{
	struct fnode *n = &g_n[i];
	int s = slot_of(i, ev->id);

	switch (ev->type) {
	case UROCE_CM_EV_REQ_RECEIVED: {
		struct uroce_cm_rep_param p = {.qpn = 0x1000 * (uint32_t)(i + 1) + n->qpns++,
					       .starting_psn = 0x42, .responder_resources = 1,
					       .initiator_depth = 1, .rnr_retry_count = 7};
		FUZZ_CHECK(ok_or(uroce_cm_send_mra(ev->id, UROCE_CM_MRA_FLAG_DELAY | 24, NULL, 0), 0));
		FUZZ_CHECK(ok_or(uroce_cm_send_rep(ev->id, &p, g_now), 0));
		break;
	}
	case UROCE_CM_EV_REP_RECEIVED:
		FUZZ_CHECK(ok_or(uroce_cm_send_rtu(ev->id, NULL, 0), 0));
		break;
	case UROCE_CM_EV_DREQ_RECEIVED:
		FUZZ_CHECK(ok_or(uroce_cm_send_drep(ev->id, NULL, 0, g_now), 0));
		break;
	case UROCE_CM_EV_SIDR_REQ_RECEIVED: {
		struct uroce_cm_sidr_rep_param p = {.status = UROCE_CM_SIDR_SUCCESS, .qpn = 77,
						    .qkey = 0x01234567};
		FUZZ_CHECK(ok_or(uroce_cm_send_sidr_rep(ev->id, &p), 0));
		break;
	}
	case UROCE_CM_EV_TIMEWAIT_EXIT:
	case UROCE_CM_EV_REQ_ERROR:
	case UROCE_CM_EV_REP_ERROR:
	case UROCE_CM_EV_SIDR_REQ_ERROR:
	case UROCE_CM_EV_SIDR_REP_RECEIVED:
		if (s >= 0 && uroce_cm_id_state(ev->id) == UROCE_CM_IDLE)
			destroy_slot(i, s);
		break;
	default:
		break;
	}
}

static void take_events(int i, bool answering)
{
	struct fnode *n = &g_n[i];
	struct uroce_cm_event ev;

	while (uroce_cm_get_event(n->cm, &ev)) {
		FUZZ_CHECK((unsigned)ev.type < UROCE_CM_NEVENTS);
		FUZZ_CHECK(ev.type != UROCE_CM_EV_LAP_ERROR && ev.type != UROCE_CM_EV_LAP_RECEIVED &&
			   ev.type != UROCE_CM_EV_APR_RECEIVED);
		FUZZ_CHECK(ev.msg.attr == event_attr(ev.type));
		FUZZ_CHECK(own_addr(i, &ev.local));
		FUZZ_CHECK((unsigned)uroce_cm_id_state(ev.id) < UROCE_CM_NSTATES);
		n->events[ev.type]++;
		if (ev.type == UROCE_CM_EV_REQ_RECEIVED || ev.type == UROCE_CM_EV_SIDR_REQ_RECEIVED) {
			int l = slot_of(i, ev.listen_id);
			FUZZ_CHECK(l >= 0 && n->listener[l]);
			FUZZ_CHECK(slot_of(i, ev.id) < 0);
			int s = slot_of(i, NULL);
			if (s < 0) {
				uroce_cm_destroy_id(ev.id, g_now);
				continue;
			}
			n->slot[s] = ev.id;
		} else {
			FUZZ_CHECK(ev.listen_id == NULL);
			FUZZ_CHECK(slot_of(i, ev.id) >= 0);
		}
		if (answering)
			answer(i, &ev);
	}
}

/* ---- calls ---- */

static struct uroce_cm_path_rec path(int from, int to, bool v6)
{
	struct uroce_cm_path_rec p = {
		.local = v6 ? g_n[from].a6 : g_n[from].a4,
		.remote = v6 ? g_n[to].a6 : g_n[to].a4,
		.flow_label = 0x12345, .hop_limit = 64, .mtu = 3, .packet_life_time = 10,
		.pkey = 0xFFFF,
	};
	return p;
}

static void call(int i, struct rd *r, uint8_t flags)
{
	static const uint8_t pdata[UROCE_CM_MRA_PRIVATE_LEN + 8];
	struct fnode *n = &g_n[i];
	uint8_t what = u8(r) % FC_NCALLS, s = u8(r) % FC_SLOTS, arg = u8(r), peer = u8(r) % FC_NODES;
	struct uroce_cm_id *id = n->slot[s];
	struct uroce_cm_conn conn;
	int rc;

	if (!id && (what == FC_CONNECT || what == FC_SIDR_REQ || what == FC_LISTEN)) {
		rc = uroce_cm_create_id(n->cm, NULL, &n->slot[s]);
		FUZZ_CHECK(rc == 0 || rc == UROCE_ENOMEM);
		if (rc)
			return;
		id = n->slot[s];
	}
	if (!id)
		return;
	switch ((enum fc_call)what) {
	case FC_CONNECT: {
		uint8_t t = (uint8_t)(4 + 2 * (arg >> 5));
		struct uroce_cm_req_param p = {
			.path = path(i, peer, arg & 1), .service_id = FC_SID_TCP,
			.qpn = 0x1000 * (uint32_t)(i + 1) + n->qpns++, .transport = flags >> 7,
			.starting_psn = arg * 0x10101u, .responder_resources = arg & 3,
			.initiator_depth = arg & 3, .remote_cm_response_timeout = t,
			.local_cm_response_timeout = t, .retry_count = 7, .rnr_retry_count = 7,
			.max_cm_retries = (arg >> 1) & 15, .private_data = pdata,
			.private_data_len = (uint8_t)(arg % (UROCE_CM_REQ_PRIVATE_LEN + 2)),
		};
		rc = uroce_cm_send_req(id, &p, g_now);
		FUZZ_CHECK(ok_or(rc, 0));
		break;
	}
	case FC_ACCEPT: {
		struct uroce_cm_rep_param p = {.qpn = 0x1000 * (uint32_t)(i + 1) + n->qpns++,
					       .starting_psn = arg, .responder_resources = arg & 3,
					       .initiator_depth = arg & 3, .rnr_retry_count = arg & 7,
					       .private_data = pdata, .private_data_len = arg};
		FUZZ_CHECK(ok_or(uroce_cm_send_rep(id, &p, g_now), 0));
		break;
	}
	case FC_RTU:
		FUZZ_CHECK(ok_or(uroce_cm_send_rtu(id, pdata, arg), 0));
		break;
	case FC_REJ:
		rc = uroce_cm_send_rej(id, arg, pdata, (uint8_t)(flags >> 6 ? arg % 80 : 0), pdata,
				       (uint8_t)(flags & 0x40 ? arg : 0), g_now);
		FUZZ_CHECK(ok_or(rc, 0));
		if (arg == UROCE_CM_REJ_INVALID_LID || arg == UROCE_CM_REJ_INVALID_ALT_LID)
			FUZZ_CHECK(rc == UROCE_EINVAL);
		break;
	case FC_MRA:
		FUZZ_CHECK(ok_or(uroce_cm_send_mra(id, arg, pdata,
						   (uint8_t)(flags & 0x40 ? 100 + arg / 2 : 0)), 0));
		break;
	case FC_DREQ:
		FUZZ_CHECK(ok_or(uroce_cm_send_dreq(id, pdata, arg, g_now), 0));
		break;
	case FC_DREP:
		FUZZ_CHECK(ok_or(uroce_cm_send_drep(id, pdata, arg, g_now), 0));
		break;
	case FC_ESTABLISH:
		FUZZ_CHECK(ok_or(uroce_cm_establish(id), 0));
		break;
	case FC_SIDR_REQ: {
		struct uroce_cm_sidr_req_param p = {
			.path = path(i, peer, flags & 0x40), .service_id = FC_SID_UDP,
			.timeout_ns = 4096ull << (arg >> 4), .max_cm_retries = arg & 15,
			.private_data = pdata, .private_data_len = arg};
		FUZZ_CHECK(ok_or(uroce_cm_send_sidr_req(id, &p, g_now), 0));
		break;
	}
	case FC_SIDR_REP: {
		struct uroce_cm_sidr_rep_param p = {.status = arg, .qpn = arg, .qkey = 0x01234567,
						    .info = pdata, .info_len = arg % 80,
						    .private_data = pdata,
						    .private_data_len = (uint8_t)(arg % 140)};
		FUZZ_CHECK(ok_or(uroce_cm_send_sidr_rep(id, &p), 0));
		break;
	}
	case FC_DESTROY:
		destroy_slot(i, s);
		break;
	case FC_LISTEN: {
		uint64_t sid = arg == 0 ? FC_SID_TCP : arg == 1 ? FC_SID_UDP : arg;
		rc = uroce_cm_listen(id, arg == 2 ? FC_SID_TCP & ~0xFFFFull : sid,
				     arg == 2 ? 0xFFFFFFFFFFFF0000ull : 0);
		FUZZ_CHECK(ok_or(rc, UROCE_EBUSY));
		if (!rc)
			n->listener[s] = true;
		break;
	}
	case FC_QUERY:
		rc = uroce_cm_id_query(id, &conn);
		FUZZ_CHECK(ok_or(rc, 0));
		if (!rc)
			FUZZ_CHECK(conn.ack_timeout <= UROCE_CM_MAX_TIMEOUT &&
				   conn.remote_qpn <= 0xFFFFFF && conn.sq_psn <= 0xFFFFFF);
		break;
	case FC_NCALLS:
		break;
	}
	FUZZ_CHECK(what == FC_DESTROY || uroce_cm_state_name(uroce_cm_id_state(id)));
}

/* ---- made MADs ---- */

static const uint16_t inject_attrs[] = {
	UROCE_CM_ATTR_REQ, UROCE_CM_ATTR_MRA, UROCE_CM_ATTR_REJ, UROCE_CM_ATTR_REP,
	UROCE_CM_ATTR_RTU, UROCE_CM_ATTR_DREQ, UROCE_CM_ATTR_DREP, UROCE_CM_ATTR_SIDR_REQ,
	UROCE_CM_ATTR_SIDR_REP, UROCE_CM_ATTR_LAP, UROCE_CM_ATTR_APR,
	UROCE_CM_ATTR_CLASS_PORT_INFO, 0x001B, 0xFFFF,
};

static void inject(int i, struct rd *r, uint8_t flags)
{
	uint8_t sel = u8(r), len = u8(r);
	uint16_t attr = inject_attrs[(sel & 0x7F) % (sizeof(inject_attrs) / sizeof(inject_attrs[0]))];
	struct uroce_cm_mad m = {0};
	size_t at = flags & 0x80 ? 0 : UROCE_MAD_HDR_LEN;

	if (!(flags & 0x80)) {
		struct uroce_mad_hdr h = {.base_version = 1, .mgmt_class = UROCE_MAD_CLASS_CM,
					  .class_version = 2, .method = UROCE_MAD_METHOD_SEND,
					  .tid = 0x77, .attr_id = attr};
		uroce_mad_hdr_encode(&h, m.data, sizeof(m.data));
	}
	for (size_t k = 0; k < len && at + k < UROCE_MAD_LEN; k++)
		m.data[at + k] = u8(r);
	/* The comm IDs of one of the node's IDs, as its peer would write them. */
	struct uroce_cm_conn c;
	struct uroce_cm_id *id = g_n[i].slot[m.data[24 + 8] % FC_SLOTS];
	if ((flags & 0x40) && id && !uroce_cm_id_query(id, &c)) {
		bool sidr = attr == UROCE_CM_ATTR_SIDR_REP;
		put_be32(m.data + 24, sidr ? c.local_comm_id : c.remote_comm_id);
		if (!sidr)
			put_be32(m.data + 28, c.local_comm_id);
		if (attr == UROCE_CM_ATTR_DREQ)
			put_be24(m.data + 32, c.local_qpn);
	}
	int from = (i + 1) % FC_NODES;
	bool v6 = sel & 0x80;
	m.local = v6 ? g_n[i].a6 : g_n[i].a4;
	m.peer = v6 ? g_n[from].a6 : g_n[from].a4;
	if (flags & 0x40 && len & 1) /* a stranger */
		m.peer.ip[1] = 9;
	if (g_n[i].down)
		return;
	uroce_cm_recv(g_n[i].cm, &m, g_now);
	check_counts(i);
}

/* ---- time and settling ---- */

static void timers(void)
{
	for (int i = 0; i < FC_NODES; i++) {
		uroce_cm_on_timer(g_n[i].cm, g_now);
		FUZZ_CHECK(uroce_cm_next_deadline(g_n[i].cm) > g_now);
	}
}

static bool settle(void)
{
	bool moved = false;

	for (int round = 0; round < SETTLE_ROUNDS; round++) {
		struct uroce_cm_mad m;
		int before = g_nfl;
		pump();
		while (g_nfl) {
			take_flight(&m);
			give(&m);
			moved = true;
		}
		for (int i = 0; i < FC_NODES; i++)
			take_events(i, true);
		pump();
		if (!g_nfl && !before)
			break;
	}
	return moved;
}

static void step(struct rd *r)
{
	uint8_t op = u8(r), flags = op & 0xC0;
	int i = ((op >> 4) & 3) % FC_NODES;
	struct uroce_cm_mad m;

	switch ((enum fc_op)((op & 0x0F) % FC_NOPS)) {
	case FC_API:
		call(i, r, flags);
		break;
	case FC_EVENTS:
		take_events(i, flags & 0x40);
		break;
	case FC_DELIVER:
		for (int k = u8(r); k > 0 && g_nfl; k--) {
			take_flight(&m);
			give(&m);
		}
		break;
	case FC_DROP:
		if (g_nfl)
			take_flight(&m);
		break;
	case FC_DUP:
		if (g_nfl)
			give(&g_fl[0]);
		break;
	case FC_SWAP:
		if (g_nfl >= 2) {
			m = g_fl[0];
			g_fl[0] = g_fl[1];
			g_fl[1] = m;
		}
		break;
	case FC_MUTATE: {
		uint8_t edits = u8(r) % 16;
		if (!g_nfl)
			break;
		take_flight(&m);
		for (int k = 0; k < edits; k++) {
			uint8_t off = u8(r);
			m.data[off] ^= u8(r);
		}
		give(&m);
		break;
	}
	case FC_INJECT:
		inject(i, r, flags);
		break;
	case FC_TIME:
		g_now += 4096ull << (u8(r) % 32);
		timers();
		break;
	case FC_SETTLE:
		settle();
		break;
	case FC_DOWN:
		g_n[i].down = !g_n[i].down;
		break;
	case FC_NOPS:
		break;
	}
	pump();
}

/* Runs time until no timer is left, answering everything. */
static void run_out(void)
{
	for (int round = 0; round < FINISH_ROUNDS; round++) {
		settle();
		uint64_t next = UROCE_CM_NEVER;
		for (int i = 0; i < FC_NODES; i++) {
			uint64_t d = uroce_cm_next_deadline(g_n[i].cm);
			if (d < next)
				next = d;
		}
		if (next == UROCE_CM_NEVER)
			return;
		FUZZ_CHECK(next > g_now);
		g_now = next;
		timers();
	}
	FUZZ_CHECK(!"the CMs never went quiet");
}

void fc_finish(void)
{
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;

	if (!g_live)
		return;
	for (int i = 0; i < FC_NODES; i++)
		g_n[i].down = false;
	run_out();
	for (int i = 0; i < FC_NODES; i++)
		for (int s = 0; s < FC_SLOTS; s++)
			destroy_slot(i, s);
	run_out();
	for (int i = 0; i < FC_NODES; i++) {
		FUZZ_CHECK(uroce_cm_next_deadline(g_n[i].cm) == UROCE_CM_NEVER);
		FUZZ_CHECK(!uroce_cm_next_mad(g_n[i].cm, &m));
		FUZZ_CHECK(!uroce_cm_get_event(g_n[i].cm, &ev));
		check_counts(i);
		uroce_cm_free(g_n[i].cm);
	}
	g_live = false;
}

void fc_run(const uint8_t *data, size_t size)
{
	struct rd r = {data, size};

	fresh();
	for (int k = 0; r.n && k < MAX_STEPS; k++)
		step(&r);
}

struct uroce_cm *fc_cm(int node) { return g_n[node].cm; }
struct uroce_cm_id *fc_slot(int node, int slot) { return g_n[node].slot[slot]; }
int fc_events(int node, enum uroce_cm_event_type t) { return g_n[node].events[t]; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fc_run(data, size);
	fc_finish();
	return 0;
}

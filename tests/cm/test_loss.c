/* SPDX-License-Identifier: MIT */
/* The CM on a bad network (IBA 12.9's timeouts, retries and duplicate rules, section numbers
 * not verified; docs/cm.md): MADs lost, duplicated, reordered and delayed from a seed.
 * Whatever happens, a connection is established or fails with the right event in bounded
 * virtual time, every event comes exactly once, both sides agree, and a disconnection ends
 * in timewait on both sides. Also: connects crossing each other, three nodes connecting to
 * each other at once, and peers that disappear mid-handshake. */
#include "harness.h"

#define T_REQ (2 * uroce_cm_time_ns(18) + uroce_cm_time_ns(20))
#define SEEDS 60
#define MAX_CONNS 6

struct mesh {
	struct uroce_cm_id *active[MAX_CONNS];
	int from[MAX_CONNS], to[MAX_CONNS];
	int n;
};

/* The passive ID of a connection: the REQ_RECEIVED at its target whose REQ came from the
 * active ID's comm ID. */
static struct uroce_cm_id *passive_of(const struct h_net *net, const struct mesh *m, int c)
{
	struct uroce_cm_conn ca;
	const struct h_node *nb = &net->node[m->to[c]];

	assert_int_equal(uroce_cm_id_query(m->active[c], &ca), 0);
	for (int i = 0; i < nb->nev; i++)
		if (nb->ev[i].type == UROCE_CM_EV_REQ_RECEIVED &&
		    nb->ev[i].msg.req.local_comm_id == ca.local_comm_id)
			return nb->ev[i].id;
	return NULL;
}

static bool all_established(struct h_net *net, void *arg)
{
	const struct mesh *m = arg;
	for (int c = 0; c < m->n; c++) {
		struct uroce_cm_id *b = passive_of(net, m, c);
		if (uroce_cm_id_state(m->active[c]) != UROCE_CM_ESTABLISHED || !b ||
		    uroce_cm_id_state(b) != UROCE_CM_ESTABLISHED)
			return false;
	}
	return true;
}

static bool all_idle(struct h_net *net, void *arg)
{
	const struct mesh *m = arg;
	for (int c = 0; c < m->n; c++) {
		struct uroce_cm_id *b = passive_of(net, m, c);
		if (uroce_cm_id_state(m->active[c]) != UROCE_CM_IDLE ||
		    uroce_cm_id_state(b) != UROCE_CM_IDLE)
			return false;
	}
	return true;
}

/* How many of a node's events of type t name id. */
static int events_of(const struct h_node *nd, const struct uroce_cm_id *id,
		     enum uroce_cm_event_type t)
{
	int k = 0;
	for (int i = 0; i < nd->nev; i++)
		k += nd->ev[i].id == id && nd->ev[i].type == t;
	return k;
}

struct mesh_stats {
	uint64_t lost, retries, dups;
};

/* Every ordered pair of `nodes` nodes connects at once (so each pair also connects both
 * ways, crossing), over a network with cfg; all are established, each event once; then
 * each connection is closed from one side or the other, and both sides pass timewait. */
static struct mesh_stats run_mesh(int nodes, const struct uroce_impair_cfg *cfg, bool ipv6)
{
	struct h_net net;
	struct mesh m = {0};
	struct mesh_stats st = {0};

	h_init(&net, nodes, ipv6, cfg);
	for (int i = 0; i < nodes; i++)
		h_listen(&net, i, H_SID);
	for (int a = 0; a < nodes; a++)
		for (int b = 0; b < nodes; b++)
			if (a != b) {
				m.from[m.n] = a;
				m.to[m.n] = b;
				m.active[m.n++] = h_connect(&net, a, b);
			}
	/* Bounded: the REQ's 16 tries, then a few resends of REP and RTU. */
	assert_true(h_run(&net, 20 * T_REQ, all_established, &m));
	for (int c = 0; c < m.n; c++) {
		struct uroce_cm_id *a = m.active[c], *b = passive_of(&net, &m, c);
		struct uroce_cm_conn ca, cb;
		const struct h_node *na = &net.node[m.from[c]], *nb = &net.node[m.to[c]];
		assert_int_equal(uroce_cm_id_query(a, &ca), 0);
		assert_int_equal(uroce_cm_id_query(b, &cb), 0);
		assert_int_equal(ca.remote_comm_id, cb.local_comm_id);
		assert_int_equal(cb.remote_comm_id, ca.local_comm_id);
		assert_int_equal(ca.remote_qpn, cb.local_qpn);
		assert_int_equal(cb.remote_qpn, ca.local_qpn);
		assert_int_equal(ca.sq_psn, cb.rq_psn);
		assert_int_equal(cb.sq_psn, ca.rq_psn);
		/* Exactly once, whatever was duplicated or resent. */
		assert_int_equal(events_of(na, a, UROCE_CM_EV_REP_RECEIVED), 1);
		assert_int_equal(events_of(nb, b, UROCE_CM_EV_REQ_RECEIVED), 1);
		assert_int_equal(events_of(nb, b, UROCE_CM_EV_RTU_RECEIVED), 1);
	}
	for (int i = 0; i < nodes; i++) {
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_REQ_RECEIVED), nodes - 1);
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_REQ_ERROR), 0);
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_REP_ERROR), 0);
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_REJ_RECEIVED), 0);
	}

	/* Even connections close from the active side, odd ones from the passive side. */
	for (int c = 0; c < m.n; c++) {
		struct uroce_cm_id *closer = c % 2 ? passive_of(&net, &m, c) : m.active[c];
		assert_int_equal(uroce_cm_send_dreq(closer, NULL, 0, net.now), 0);
	}
	assert_true(h_run(&net, net.now + 20 * T_REQ, all_idle, &m));
	for (int c = 0; c < m.n; c++) {
		struct uroce_cm_id *a = m.active[c], *b = passive_of(&net, &m, c);
		const struct h_node *na = &net.node[m.from[c]], *nb = &net.node[m.to[c]];
		struct uroce_cm_id *closer = c % 2 ? b : a, *other = c % 2 ? a : b;
		const struct h_node *nc = c % 2 ? nb : na, *no = c % 2 ? na : nb;
		assert_int_equal(events_of(no, other, UROCE_CM_EV_DREQ_RECEIVED), 1);
		/* The closer hears the DREP, or, if every DREP was lost, gives up: the peer has
		 * gone through timewait either way. */
		assert_int_equal(events_of(nc, closer, UROCE_CM_EV_DREP_RECEIVED) +
				 events_of(nc, closer, UROCE_CM_EV_DREQ_ERROR), 1);
		assert_int_equal(events_of(na, a, UROCE_CM_EV_TIMEWAIT_EXIT), 1);
		assert_int_equal(events_of(nb, b, UROCE_CM_EV_TIMEWAIT_EXIT), 1);
	}
	h_settle(&net, net.now + 40 * T_REQ);
	st.lost = net.lost;
	for (int i = 0; i < nodes; i++) {
		assert_int_equal(uroce_cm_next_deadline(net.node[i].cm), UROCE_CM_NEVER);
		h_check_accounting(&net.node[i]);
		st.retries += h_counter(&net.node[i], UROCE_CM_CNT_tx_retries);
		for (int c = UROCE_CM_CNT_dup_req; c <= UROCE_CM_CNT_dup_sidr_req; c++)
			st.dups += h_counter(&net.node[i], (enum uroce_cm_counter)c);
	}
	h_fini(&net);
	return st;
}

static void test_IBA12_9_clean_network(void **state)
{
	(void)state;
	run_mesh(2, NULL, false);
	run_mesh(3, NULL, true);
}

/* 20 % loss, 10 % duplicates, 20 % reordered by 5 ms, 1 ms of jitter, per seed; the
 * impairments did act (MADs lost, messages resent, duplicates seen). */
static void test_IBA12_9_loss_dup_reorder(void **state)
{
	uint64_t lost = 0, retries = 0, dups = 0;
	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct uroce_impair_cfg cfg = {.loss = 0.2, .dup = 0.1, .reorder = 0.2,
					       .reorder_delay_ns = 5000000, .jitter_ns = 1000000,
					       .seed = seed};
		struct mesh_stats st = run_mesh(seed % 2 ? 2 : 3, &cfg, seed % 3 == 0);
		lost += st.lost;
		retries += st.retries;
		dups += st.dups;
	}
	fprintf(stderr, "%" PRIu64 " MADs lost, %" PRIu64 " resends, %" PRIu64 " duplicates\n",
		lost, retries, dups);
	assert_true(lost > 100);
	assert_true(retries > 100);
	assert_true(dups > 100);
}

/* 70 % of all MADs lost, a fifth duplicated: a connection now often fails, but cleanly.
 * Each side ends in IDLE or ESTABLISHED after exactly one outcome event (the active side
 * REP_RECEIVED or REQ_ERROR, the passive side RTU_RECEIVED or REP_ERROR), within the bound
 * the retries give, and nothing is left pending. The one disagreement a three-way handshake
 * allows happens too: every RTU lost, the active side established and the passive one gave
 * up (IBA and Linux alike; the QPs' own retries end such a connection). */
static void test_IBA12_9_heavy_loss(void **state)
{
	int established = 0, failed = 0, half = 0;
	(void)state;
	for (uint64_t seed = 100; seed < 140; seed++) {
		struct uroce_impair_cfg cfg = {.loss = 0.7, .dup = 0.2, .seed = seed};
		struct h_net net;
		h_init(&net, 2, false, &cfg);
		h_listen(&net, 1, H_SID);
		struct uroce_cm_id *a = h_connect(&net, 0, 1);
		h_settle(&net, 40 * T_REQ);
		struct h_node *na = &net.node[0], *nb = &net.node[1];
		struct uroce_cm_id *b = h_accepted(nb);
		int ok_a = h_count(na, UROCE_CM_EV_REP_RECEIVED);
		assert_int_equal(ok_a + h_count(na, UROCE_CM_EV_REQ_ERROR), 1);
		assert_int_equal(uroce_cm_id_state(a), ok_a ? UROCE_CM_ESTABLISHED : UROCE_CM_IDLE);
		if (b) {
			int ok_b = h_count(nb, UROCE_CM_EV_RTU_RECEIVED);
			assert_int_equal(h_count(nb, UROCE_CM_EV_REQ_RECEIVED), 1);
			assert_int_equal(ok_b + h_count(nb, UROCE_CM_EV_REP_ERROR), 1);
			assert_int_equal(uroce_cm_id_state(b),
					 ok_b ? UROCE_CM_ESTABLISHED : UROCE_CM_IDLE);
			/* Established on the passive side means the active side has its REP. */
			assert_true(!ok_b || ok_a);
			established += ok_a && ok_b;
			half += ok_a && !ok_b;
		}
		failed += !ok_a;
		for (int i = 0; i < 2; i++) {
			assert_int_equal(uroce_cm_next_deadline(net.node[i].cm), UROCE_CM_NEVER);
			h_check_accounting(&net.node[i]);
		}
		h_fini(&net);
	}
	fprintf(stderr, "heavy loss: %d of 40 established, %d REQs failed, %d RTUs all lost\n",
		established, failed, half);
	/* Each outcome happened: the checks above saw each. */
	assert_int_equal(established + failed + half, 40);
	assert_true(established >= 5);
	assert_true(half >= 1);
}

/* Both sides connect to each other with nobody listening: each REQ gets a REJ "invalid
 * service ID", each side exactly one REJ_RECEIVED, even when REJs are lost (the REQ is
 * resent and rejected again). */
static void test_IBA12_9_crossed_connects_without_listeners(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct uroce_impair_cfg cfg = {.loss = 0.3, .dup = 0.2, .seed = seed};
		struct h_net net;
		h_init(&net, 2, false, &cfg);
		struct uroce_cm_id *a = h_connect(&net, 0, 1), *b = h_connect(&net, 1, 0);
		h_settle(&net, 20 * T_REQ);
		for (int i = 0; i < 2; i++) {
			struct uroce_cm_id *id = i ? b : a;
			assert_int_equal(net.node[i].nev, 1);
			assert_int_equal(net.node[i].ev[0].type, UROCE_CM_EV_REJ_RECEIVED);
			assert_int_equal(net.node[i].ev[0].msg.rej.reason,
					 UROCE_CM_REJ_INVALID_SERVICE_ID);
			assert_int_equal(uroce_cm_id_state(id), UROCE_CM_IDLE);
			h_check_accounting(&net.node[i]);
		}
		h_fini(&net);
	}
}

static bool vanish_on_req(void *ctx, struct h_node *n, const struct uroce_cm_event *ev)
{
	(void)ctx;
	if (ev->type != UROCE_CM_EV_REQ_RECEIVED)
		return false;
	n->down = true; /* gone before answering */
	return true;
}

/* The passive peer disappears after taking the REQ: however the network behaves, the active
 * side's REQ_ERROR comes exactly after 16 tries (no REP, no MRA ever moves the timer). */
static void test_IBA12_9_peer_vanishes_mid_handshake(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct uroce_impair_cfg cfg = {.loss = 0.3, .dup = 0.3, .reorder = 0.3, .seed = seed};
		struct h_net net;
		h_init(&net, 2, false, &cfg);
		net.on_event = vanish_on_req;
		h_listen(&net, 1, H_SID);
		struct uroce_cm_id *a = h_connect(&net, 0, 1);
		h_settle(&net, 40 * T_REQ);
		assert_int_equal(net.node[0].nev, 1);
		assert_int_equal(net.node[0].ev[0].type, UROCE_CM_EV_REQ_ERROR);
		assert_int_equal(net.node[0].at[0], 16 * T_REQ);
		assert_int_equal(net.node[0].sent[UROCE_CM_ATTR_REQ], 16);
		assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
		h_fini(&net);
	}
}

static bool vanish_on_rep(void *ctx, struct h_node *n, const struct uroce_cm_event *ev)
{
	(void)ctx;
	if (ev->type == UROCE_CM_EV_REP_RECEIVED)
		n->down = true; /* gone before its RTU */
	return ev->type == UROCE_CM_EV_REP_RECEIVED;
}

/* The active peer disappears after the REP: the passive side ends with REP_ERROR after the
 * REQ's 1 + Max CM Retries tries of its REP. */
static void test_IBA12_9_active_vanishes_after_rep(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct uroce_impair_cfg cfg = {.loss = 0.3, .dup = 0.3, .seed = seed};
		struct h_net net;
		h_init(&net, 2, false, &cfg);
		net.on_event = vanish_on_rep;
		h_listen(&net, 1, H_SID);
		h_connect(&net, 0, 1);
		h_settle(&net, 60 * T_REQ);
		struct h_node *nb = &net.node[1];
		struct uroce_cm_id *b = h_accepted(nb);
		if (!b) { /* every REQ lost: the active side gave up (it was never taken down) */
			assert_int_equal(h_count(&net.node[0], UROCE_CM_EV_REQ_ERROR), 1);
			h_fini(&net);
			continue;
		}
		if (net.node[0].down) {
			assert_int_equal(h_count(nb, UROCE_CM_EV_REP_ERROR), 1);
			/* 15 resends by the timer; duplicated REQs got theirs at once on top. */
			assert_int_equal(h_counter(nb, UROCE_CM_CNT_tx_retries), 15);
			assert_true(nb->sent[UROCE_CM_ATTR_REP] >= 16);
		} else {
			/* No REP ever reached node 0: its REQ timed out, and node 1's REP too. */
			assert_int_equal(h_count(&net.node[0], UROCE_CM_EV_REQ_ERROR), 1);
			assert_int_equal(h_count(nb, UROCE_CM_EV_REP_ERROR), 1);
		}
		assert_int_equal(uroce_cm_id_state(b), UROCE_CM_IDLE);
		h_fini(&net);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA12_9_clean_network),
		cmocka_unit_test(test_IBA12_9_loss_dup_reorder),
		cmocka_unit_test(test_IBA12_9_heavy_loss),
		cmocka_unit_test(test_IBA12_9_crossed_connects_without_listeners),
		cmocka_unit_test(test_IBA12_9_peer_vanishes_mid_handshake),
		cmocka_unit_test(test_IBA12_9_active_vanishes_after_rep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

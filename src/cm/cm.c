/* SPDX-License-Identifier: MIT */
/* The CM and its IDs: creation, the lookup tables, listeners, events, timers, the state
 * changes every message shares (timewait, back to idle) and what destroying an ID sends. */
#include "priv.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define DEFAULT_MAX_IDS 65536
#define DEFAULT_MAX_QUEUED 4096

/* ---- Names and units ---- */

static const char *const counter_names[] = {
#define UROCE_CM_COUNTER_NAME(name, desc) #name,
	UROCE_CM_COUNTERS(UROCE_CM_COUNTER_NAME)
#undef UROCE_CM_COUNTER_NAME
};

static const char *const counter_descs[] = {
#define UROCE_CM_COUNTER_DESC(name, desc) desc,
	UROCE_CM_COUNTERS(UROCE_CM_COUNTER_DESC)
#undef UROCE_CM_COUNTER_DESC
};

const char *uroce_cm_counter_name(enum uroce_cm_counter c)
{
	return (unsigned)c < UROCE_CM_NCOUNTERS ? counter_names[c] : NULL;
}

const char *uroce_cm_counter_desc(enum uroce_cm_counter c)
{
	return (unsigned)c < UROCE_CM_NCOUNTERS ? counter_descs[c] : NULL;
}

const char *uroce_cm_state_name(enum uroce_cm_state s)
{
	static const char *const names[] = {
#define UROCE_CM_STATE_NAME(name, v) [v] = #name,
		UROCE_CM_STATES(UROCE_CM_STATE_NAME)
#undef UROCE_CM_STATE_NAME
	};
	return (unsigned)s < UROCE_CM_NSTATES ? names[s] : NULL;
}

const char *uroce_cm_event_name(enum uroce_cm_event_type e)
{
	static const char *const names[] = {
#define UROCE_CM_EVENT_NAME(name, v) [v] = #name,
		UROCE_CM_EVENTS(UROCE_CM_EVENT_NAME)
#undef UROCE_CM_EVENT_NAME
	};
	return (unsigned)e < UROCE_CM_NEVENTS ? names[e] : NULL;
}

/* IBA's time unit (13.4.6.2 ClassPortInfo RespTimeValue, 12.6.5 the CM timeouts, 9.7.6.1.3
 * the local ACK timeout; section numbers not verified): 4.096 us x 2^t. Linux's cm.c
 * approximates it in milliseconds (1 << (t - 8)); the CM keeps the exact value. */
uint64_t uroce_cm_time_ns(uint8_t t)
{
	return 4096ull << (t > UROCE_CM_MAX_TIMEOUT ? UROCE_CM_MAX_TIMEOUT : t);
}

/* 2^result ~ 2^ack_delay + 2 x 2^packet_life_time: the larger of ack_delay and
 * packet_life_time + 1, one more when the other is within one step of it (the rounding
 * Linux's cm_ack_timeout documents). */
uint8_t uroce_cm_ack_timeout(uint8_t ca_ack_delay, uint8_t packet_life_time)
{
	int delay = ca_ack_delay, twice = packet_life_time + 1, t;

	if (twice >= delay)
		t = twice + (delay >= twice - 1);
	else
		t = delay + (twice >= delay - 1);
	return (uint8_t)(t > UROCE_CM_MAX_TIMEOUT ? UROCE_CM_MAX_TIMEOUT : t);
}

void uroce_cm_gid_from_addr(uint8_t gid[16], const struct uroce_io_addr *addr)
{
	if (addr->ipv6) {
		memcpy(gid, addr->ip, 16);
		return;
	}
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xFF;
	memcpy(gid + 12, addr->ip, 4);
}

void uroce_cm_addr_from_gid(struct uroce_io_addr *addr, const uint8_t gid[16])
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

	memset(addr, 0, sizeof(*addr));
	addr->ipv6 = memcmp(gid, mapped, sizeof(mapped)) != 0;
	if (addr->ipv6)
		memcpy(addr->ip, gid, 16);
	else
		memcpy(addr->ip, gid + 12, 4);
}

/* ---- The CM ---- */

int uroce_cm_new(const struct uroce_cm_cfg *cfg, struct uroce_cm **out)
{
	if (cfg->ack_delay > UROCE_CM_MAX_TIMEOUT)
		return UROCE_EINVAL;
	struct uroce_cm *cm = calloc(1, sizeof(*cm));
	if (!cm)
		return UROCE_ENOMEM;
	cm->cfg = *cfg;
	if (!cm->cfg.max_ids)
		cm->cfg.max_ids = DEFAULT_MAX_IDS;
	if (cm->cfg.id_prefix && cm->cfg.max_ids > 1u << 24)
		cm->cfg.max_ids = 1u << 24; /* the IDs a prefix leaves */
	if (!cm->cfg.max_queued)
		cm->cfg.max_queued = DEFAULT_MAX_QUEUED;
	/* splitmix64 of the seed: the comm ID operand (Linux draws its random_id_operand with
	 * get_random_bytes at module load). */
	uint64_t x = cfg->seed + 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	cm->id_operand = (uint32_t)(x ^ (x >> 31));
	*out = cm;
	return 0;
}

static struct uroce_cm_id *id_of(struct table_node *n, size_t member)
{
	return n ? (struct uroce_cm_id *)((char *)n - member) : NULL;
}

static void id_free(struct uroce_cm_id *id)
{
	struct uroce_cm *cm = id->cm;

	cm_disarm(id);
	table_remove(&cm->by_local, &id->n_local);
	table_remove(&cm->by_remote, &id->n_remote);
	table_remove(&cm->by_qpn, &id->n_qpn);
	table_remove(&cm->by_sidr, &id->n_sidr);
	if (id->lprev)
		id->lprev->lnext = id->lnext;
	else if (cm->listeners == id)
		cm->listeners = id->lnext;
	if (id->lnext)
		id->lnext->lprev = id->lprev;
	cm->nids--;
	free(id);
}

void uroce_cm_free(struct uroce_cm *cm)
{
	if (!cm)
		return;
	/* Every ID is in by_local; freeing one unlinks it from the head of its bucket. */
	for (uint32_t b = 0; b < cm->by_local.nbuckets; b++)
		while (cm->by_local.bucket[b])
			id_free(id_of(cm->by_local.bucket[b], offsetof(struct uroce_cm_id, n_local)));
	table_free(&cm->by_local);
	table_free(&cm->by_remote);
	table_free(&cm->by_qpn);
	table_free(&cm->by_sidr);
	timer_heap_free(&cm->timers);
	free(cm->txq);
	free(cm->evq);
	free(cm);
}

const union uroce_cm_counters *uroce_cm_counters(const struct uroce_cm *cm) { return &cm->cnt; }

/* ---- IDs ---- */

int cm_id_alloc(struct uroce_cm *cm, struct uroce_cm_id **out)
{
	if (cm->nids >= cm->cfg.max_ids)
		return UROCE_ENOMEM;
	struct uroce_cm_id *id = calloc(1, sizeof(*id));
	if (!id)
		return UROCE_ENOMEM;
	id->cm = cm;
	id->state = UROCE_CM_IDLE;
	timer_init(&id->timer);
	/* A counter XOR the operand, as Linux's cm_alloc_id_priv: unique while alive, never 0
	 * (a REJ of a REQ carries local comm ID 0), unpredictable across restarts. */
	uint32_t v;
	do {
		v = cm->id_counter++ ^ cm->id_operand;
		if (cm->cfg.id_prefix)
			v = (uint32_t)cm->cfg.id_prefix << 24 | (v & 0xFFFFFF);
	} while (v == 0 || table_find(&cm->by_local, 0, v));
	if (table_insert(&cm->by_local, &id->n_local, 0, v)) {
		free(id);
		return UROCE_ENOMEM;
	}
	id->local_id = v;
	id->conn.local_comm_id = v;
	cm->nids++;
	*out = id;
	return 0;
}

int uroce_cm_create_id(struct uroce_cm *cm, void *context, struct uroce_cm_id **out)
{
	int err = cm_id_alloc(cm, out);
	if (!err)
		(*out)->context = context;
	return err;
}

void *uroce_cm_id_context(const struct uroce_cm_id *id) { return id->context; }
void uroce_cm_id_set_context(struct uroce_cm_id *id, void *context) { id->context = context; }
enum uroce_cm_state uroce_cm_id_state(const struct uroce_cm_id *id) { return id->state; }

int uroce_cm_id_query(const struct uroce_cm_id *id, struct uroce_cm_conn *out)
{
	if (!id->conn_valid)
		return UROCE_EINVAL;
	*out = id->conn;
	out->remote_comm_id = id->remote_id;
	out->peer = id->route.peer;
	return 0;
}

struct uroce_cm_id *cm_find_id(struct uroce_cm *cm, uint32_t local_id, uint32_t remote_id)
{
	struct uroce_cm_id *id = id_of(table_find(&cm->by_local, 0, local_id),
				       offsetof(struct uroce_cm_id, n_local));
	return id && id->remote_id == remote_id ? id : NULL;
}

struct uroce_cm_id *cm_find_remote(struct uroce_cm *cm, uint64_t guid, uint32_t remote_id)
{
	return id_of(table_find(&cm->by_remote, guid, remote_id),
		     offsetof(struct uroce_cm_id, n_remote));
}

struct uroce_cm_id *cm_find_qpn(struct uroce_cm *cm, uint64_t guid, uint32_t qpn)
{
	return id_of(table_find(&cm->by_qpn, guid, qpn), offsetof(struct uroce_cm_id, n_qpn));
}

bool cm_link_remote(struct uroce_cm_id *id)
{
	struct uroce_cm *cm = id->cm;
	struct uroce_cm_id *other = cm_find_remote(cm, id->remote_guid, id->remote_id);

	if (other && other != id)
		return false;
	return table_insert(&cm->by_remote, &id->n_remote, id->remote_guid, id->remote_id) == 0;
}

bool cm_link_qpn(struct uroce_cm_id *id)
{
	struct uroce_cm *cm = id->cm;
	struct uroce_cm_id *other = cm_find_qpn(cm, id->remote_guid, id->conn.remote_qpn);

	if (other && other != id)
		return false;
	return table_insert(&cm->by_qpn, &id->n_qpn, id->remote_guid, id->conn.remote_qpn) == 0;
}

void cm_unlink_remote(struct uroce_cm_id *id)
{
	table_remove(&id->cm->by_remote, &id->n_remote);
	table_remove(&id->cm->by_qpn, &id->n_qpn);
}

bool cm_from_peer(struct uroce_cm_id *id, const struct uroce_cm_mad *mad)
{
	if (uroce_io_addr_equal(&id->route.peer, &mad->peer))
		return true;
	id->cm->cnt.drop_wrong_peer++;
	return false;
}

/* ---- Listeners ---- */

int uroce_cm_listen(struct uroce_cm_id *id, uint64_t service_id, uint64_t mask)
{
	struct uroce_cm *cm = id->cm;

	if (id->state != UROCE_CM_IDLE)
		return UROCE_EINVAL;
	if (!mask)
		mask = UINT64_MAX;
	service_id &= mask;
	/* Two listeners overlap when a Service ID exists that both take: when they agree on the
	 * bits both masks have (Linux's cm_insert_listen refuses the same pairs, -EBUSY). */
	for (struct uroce_cm_id *l = cm->listeners; l; l = l->lnext)
		if ((l->service_mask & service_id) == (mask & l->service_id))
			return UROCE_EBUSY;
	id->service_id = service_id;
	id->service_mask = mask;
	id->state = UROCE_CM_LISTEN;
	id->lprev = NULL;
	id->lnext = cm->listeners;
	if (cm->listeners)
		cm->listeners->lprev = id;
	cm->listeners = id;
	return 0;
}

/* The listener that takes a Service ID. Listeners never overlap (uroce_cm_listen), so at
 * most one does; a linear walk, as a port has a handful of listeners, one per rdma_cm port in
 * use. */
struct uroce_cm_id *cm_find_listener(struct uroce_cm *cm, uint64_t service_id)
{
	for (struct uroce_cm_id *l = cm->listeners; l; l = l->lnext)
		if ((service_id & l->service_mask) == l->service_id)
			return l;
	return NULL;
}

static void unlisten(struct uroce_cm_id *id)
{
	struct uroce_cm *cm = id->cm;

	if (id->lprev)
		id->lprev->lnext = id->lnext;
	else
		cm->listeners = id->lnext;
	if (id->lnext)
		id->lnext->lprev = id->lprev;
	id->lnext = id->lprev = NULL;
	id->state = UROCE_CM_IDLE;
}

/* ---- Events ---- */

void cm_event(struct uroce_cm *cm, enum uroce_cm_event_type type, struct uroce_cm_id *id,
	      struct uroce_cm_id *listen_id, const struct uroce_cm_msg *msg,
	      const struct uroce_cm_mad *mad)
{
	if (id->user_gone)
		return;
	if (cm->ev_n == cm->ev_cap) {
		uint32_t cap = cm->ev_cap ? 2 * cm->ev_cap : 16;
		struct uroce_cm_event *q = malloc((size_t)cap * sizeof(*q));
		if (!q) {
			cm->cnt.events_lost++;
			return;
		}
		for (uint32_t i = 0; i < cm->ev_n; i++)
			q[i] = cm->evq[(cm->ev_head + i) % cm->ev_cap];
		free(cm->evq);
		cm->evq = q;
		cm->ev_cap = cap;
		cm->ev_head = 0;
	}
	struct uroce_cm_event *ev = &cm->evq[(cm->ev_head + cm->ev_n++) % cm->ev_cap];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->id = id;
	ev->listen_id = listen_id;
	if (msg)
		ev->msg = *msg;
	ev->peer = mad ? mad->peer : id->route.peer;
	ev->local = mad ? mad->local : id->route.local;
	id->nevents++;
	if (listen_id)
		listen_id->nevents++;
}

static void id_release(struct uroce_cm_id *id)
{
	if (id->user_gone && !id->nevents && id->state == UROCE_CM_IDLE)
		id_free(id);
}

int uroce_cm_get_event(struct uroce_cm *cm, struct uroce_cm_event *out)
{
	while (cm->ev_n) {
		struct uroce_cm_event *ev = &cm->evq[cm->ev_head];
		cm->ev_head = (cm->ev_head + 1) % cm->ev_cap;
		cm->ev_n--;
		struct uroce_cm_id *id = ev->id, *l = ev->listen_id;
		bool gone = id->user_gone;
		if (!gone)
			*out = *ev;
		id->nevents--;
		id_release(id);
		if (l) {
			l->nevents--;
			id_release(l);
		}
		if (!gone)
			return 1;
	}
	return 0;
}

/* ---- Timers ---- */

void cm_arm(struct uroce_cm_id *id, uint64_t now, uint64_t ns)
{
	uint64_t due = now + ns < now ? UROCE_CM_NEVER - 1 : now + ns;

	/* No memory to grow the heap: the ID keeps no timer, as if every resend were lost, and
	 * waits for its peer or its owner. */
	(void)timer_arm(&id->cm->timers, &id->timer, due);
}

void cm_disarm(struct uroce_cm_id *id) { timer_cancel(&id->cm->timers, &id->timer); }

uint64_t uroce_cm_next_deadline(const struct uroce_cm *cm)
{
	const struct timer *t = timer_first(&cm->timers);
	return t ? t->due : UROCE_CM_NEVER;
}

void cm_enter_timewait(struct uroce_cm_id *id, uint64_t now)
{
	struct uroce_cm *cm = id->cm;

	/* Linux's cm_enter_timewait drops the connection from both remote tables; this CM keeps
	 * the remote comm ID until timewait ends, so that a late REQ of the connection is
	 * rejected as stale (docs/cm.md "Deviations"), and drops the remote QPN, which the peer
	 * may reuse at once. */
	table_remove(&cm->by_qpn, &id->n_qpn);
	id->state = UROCE_CM_TIMEWAIT;
	id->out_attr = 0;
	id->retries_left = 0;
	cm->cnt.timewait_entered++;
	/* Linux: cm_convert_to_ms(av.timeout), the QP's local ACK timeout. */
	cm_arm(id, now, uroce_cm_time_ns(id->conn.ack_timeout));
}

void cm_reset_to_idle(struct uroce_cm_id *id)
{
	cm_disarm(id);
	cm_unlink_remote(id);
	id->state = UROCE_CM_IDLE;
	id->out_attr = 0;
}

/* What the timer of each state does when the retries are spent (or, in TIMEWAIT, at once):
 * the event, and whether the ID then enters timewait or returns to IDLE (Linux's
 * cm_process_send_error and cm_timewait_handler). What destroying an ID in each state sends
 * first (Linux's cm_destroy_id). */
enum destroy_action {
	D_NOTHING,        /* IDLE; DREQ_SENT and TIMEWAIT run to their end */
	D_UNLISTEN,
	D_REJ_TIMEOUT,    /* REJ "timeout", ARI = the CA GUID */
	D_REJ_CONSUMER,   /* REJ "consumer defined" */
	D_DREQ,
	D_DREP,
	D_SIDR_CANCEL,
	D_SIDR_REJECT,
};

static const struct state_row {
	bool timed;
	enum uroce_cm_event_type expiry;
	bool expiry_timewait;
	enum destroy_action destroy;
} states[UROCE_CM_NSTATES] = {
	[UROCE_CM_IDLE] = {.destroy = D_NOTHING},
	[UROCE_CM_LISTEN] = {.destroy = D_UNLISTEN},
	[UROCE_CM_REQ_SENT] = {true, UROCE_CM_EV_REQ_ERROR, false, D_REJ_TIMEOUT},
	[UROCE_CM_REQ_RCVD] = {.destroy = D_REJ_CONSUMER},
	[UROCE_CM_MRA_REQ_SENT] = {.destroy = D_REJ_CONSUMER},
	[UROCE_CM_MRA_REQ_RCVD] = {true, UROCE_CM_EV_REQ_ERROR, false, D_REJ_TIMEOUT},
	[UROCE_CM_REP_SENT] = {true, UROCE_CM_EV_REP_ERROR, false, D_REJ_CONSUMER},
	[UROCE_CM_REP_RCVD] = {.destroy = D_REJ_CONSUMER},
	[UROCE_CM_MRA_REP_SENT] = {.destroy = D_REJ_CONSUMER},
	[UROCE_CM_MRA_REP_RCVD] = {true, UROCE_CM_EV_REP_ERROR, false, D_REJ_CONSUMER},
	[UROCE_CM_ESTABLISHED] = {.destroy = D_DREQ},
	[UROCE_CM_DREQ_SENT] = {true, UROCE_CM_EV_DREQ_ERROR, true, D_NOTHING},
	[UROCE_CM_DREQ_RCVD] = {.destroy = D_DREP},
	[UROCE_CM_TIMEWAIT] = {true, UROCE_CM_EV_TIMEWAIT_EXIT, false, D_NOTHING},
	[UROCE_CM_SIDR_REQ_SENT] = {true, UROCE_CM_EV_SIDR_REQ_ERROR, false, D_SIDR_CANCEL},
	[UROCE_CM_SIDR_REQ_RCVD] = {.destroy = D_SIDR_REJECT},
};

static void expire(struct uroce_cm_id *id, uint64_t now)
{
	struct uroce_cm *cm = id->cm;
	const struct state_row *row = &states[id->state];

	assert(row->timed);
	if (id->state != UROCE_CM_TIMEWAIT && id->retries_left && id->out_attr) {
		/* The MAD layer's retry (Linux mad.c timeout_sends): the same bytes again, and
		 * the same wait. */
		id->retries_left--;
		cm->cnt.tx_retries++;
		cm_send_raw(cm, id->out, &id->route);
		cm_arm(id, now, id->timeout_ns);
		return;
	}
	if (id->state == UROCE_CM_TIMEWAIT) {
		table_remove(&cm->by_remote, &id->n_remote);
		id->state = UROCE_CM_IDLE;
	} else {
		cm->cnt.tx_timeouts++;
		if (row->expiry_timewait)
			cm_enter_timewait(id, now);
		else
			cm_reset_to_idle(id);
	}
	cm_event(cm, row->expiry, id, NULL, NULL, NULL);
	cm_settle(id, now);
}

void uroce_cm_on_timer(struct uroce_cm *cm, uint64_t now)
{
	struct timer *t;

	while ((t = timer_first(&cm->timers)) && t->due <= now) {
		struct uroce_cm_id *id =
			(struct uroce_cm_id *)((char *)t - offsetof(struct uroce_cm_id, timer));
		timer_cancel(&cm->timers, t);
		expire(id, now);
	}
}

/* ---- Destroy ---- */

void cm_settle(struct uroce_cm_id *id, uint64_t now)
{
	if (!id->user_gone)
		return;
	switch (states[id->state].destroy) {
	case D_NOTHING:
		break;
	case D_UNLISTEN:
		unlisten(id);
		break;
	case D_REJ_TIMEOUT: {
		/* Linux's cm_destroy_id: the ARI is the CA GUID, by which the peer finds its side
		 * of a connection whose remote comm ID it never learnt. */
		uint8_t guid[8];
		for (int i = 0; i < 8; i++)
			guid[i] = (uint8_t)(id->cm->cfg.ca_guid >> (56 - 8 * i));
		uroce_cm_send_rej(id, UROCE_CM_REJ_TIMEOUT, guid, sizeof(guid), NULL, 0, now);
		break;
	}
	case D_REJ_CONSUMER:
		uroce_cm_send_rej(id, UROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0, now);
		break;
	case D_DREQ:
		uroce_cm_send_dreq(id, NULL, 0, now);
		break;
	case D_DREP:
		uroce_cm_send_drep(id, NULL, 0, now);
		break;
	case D_SIDR_CANCEL:
		cm_disarm(id);
		id->state = UROCE_CM_IDLE;
		break;
	case D_SIDR_REJECT: {
		struct uroce_cm_sidr_rep_param p = {.status = UROCE_CM_SIDR_REJECT};
		uroce_cm_send_sidr_rep(id, &p);
		break;
	}
	}
	id_release(id);
}

void uroce_cm_destroy_id(struct uroce_cm_id *id, uint64_t now)
{
	struct uroce_cm *cm = id->cm;

	/* A listener's queued REQ_RECEIVED events would hand out IDs nobody listens for any
	 * more: they are rejected now, as Linux's rdma_cm rejects a request whose listener is
	 * going away. */
	if (id->state == UROCE_CM_LISTEN && id->nevents) {
		for (uint32_t i = 0; i < cm->ev_n; i++) {
			struct uroce_cm_event *ev = &cm->evq[(cm->ev_head + i) % cm->ev_cap];
			if (ev->listen_id == id && !ev->id->user_gone) {
				ev->id->user_gone = true;
				cm_settle(ev->id, now);
			}
		}
	}
	id->user_gone = true;
	cm_settle(id, now);
}

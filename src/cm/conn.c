/* SPDX-License-Identifier: MIT */
/* The connected service (IBA 12.6-12.9): the calls that send REQ, REP, RTU, REJ, MRA, DREQ
 * and DREP, and the handlers of those messages. Which state takes which message, what a
 * duplicate gets and which REJ answers what follow Linux's drivers/infiniband/core/cm.c
 * (the handler of each message is named after its cm.c twin); docs/cm.md has the state
 * machine and the places where this CM differs on purpose. */
#include "priv.h"

#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"

static bool fits24(uint32_t v) { return v <= 0xFFFFFF; }

static bool pdata_ok(const void *p, uint8_t len, size_t max) { return len <= max && (!len || p); }

static bool in(enum uroce_cm_state s, uint32_t set) { return (set >> s) & 1; }

/* The TID of an exchange this side starts (Linux's cm_form_tid: the agent's number, then the
 * comm ID). */
static uint64_t own_tid(const struct uroce_cm_id *id)
{
	return (uint64_t)id->cm->cfg.tid_high << 32 | id->local_id;
}

static void route_of_path(struct cm_route *r, const struct uroce_cm_path_rec *p)
{
	r->peer = p->remote;
	r->local = p->local;
	r->traffic_class = p->traffic_class;
	r->hop_limit = p->hop_limit;
	r->flow_label = p->flow_label;
}

static bool path_ok(const struct uroce_cm_path_rec *p)
{
	return p->local.ipv6 == p->remote.ipv6 && p->flow_label <= 0xFFFFF && p->sl <= 15 &&
	       p->rate <= 63 && p->mtu >= 1 && p->mtu <= 5 &&
	       p->packet_life_time <= UROCE_CM_MAX_TIMEOUT;
}

/* A REQ's primary path from a path record (Linux's cm_format_req). Annex A17 CA17-34 makes
 * the four LID fields reserved between RoCEv2 ports; Linux writes the permissive LID 0xFFFF
 * for a routed path (hop limit above 1) and the path's LIDs, 0 on RoCE, with Subnet Local
 * for a local one; so does this CM, so that its REQ matches the kernel's byte for byte. */
static void wire_path(struct uroce_cm_path *w, const struct uroce_cm_path_rec *p,
		      uint8_t ack_timeout)
{
	bool local = p->hop_limit <= 1;

	memset(w, 0, sizeof(*w));
	w->local_lid = w->remote_lid = local ? 0 : 0xFFFF;
	uroce_cm_gid_from_addr(w->local_gid, &p->local);
	uroce_cm_gid_from_addr(w->remote_gid, &p->remote);
	w->flow_label = p->flow_label;
	w->packet_rate = p->rate;
	w->traffic_class = p->traffic_class;
	w->hop_limit = p->hop_limit;
	w->sl = p->sl;
	w->subnet_local = local;
	w->local_ack_timeout = ack_timeout;
}

/* A REJ of an ID (Linux's cm_format_rej): what it rejects and whether it names this side's
 * comm ID follow the state. */
static void format_rej(const struct uroce_cm_id *id, struct uroce_cm_msg *m, uint16_t reason,
		       const void *ari, uint8_t ari_len, const void *pdata, uint8_t len)
{
	struct uroce_cm_rej *j = &m->rej;

	memset(m, 0, sizeof(*m));
	m->attr = UROCE_CM_ATTR_REJ;
	j->remote_comm_id = id->remote_id;
	j->local_comm_id = id->local_id;
	switch (id->state) {
	case UROCE_CM_REQ_RCVD:
		j->local_comm_id = 0;
		j->msg_rejected = UROCE_CM_MSG_REQ;
		break;
	case UROCE_CM_MRA_REQ_SENT:
		j->msg_rejected = UROCE_CM_MSG_REQ;
		break;
	case UROCE_CM_REP_RCVD:
	case UROCE_CM_MRA_REP_SENT:
		j->msg_rejected = UROCE_CM_MSG_REP;
		break;
	default:
		j->msg_rejected = UROCE_CM_MSG_OTHER;
		break;
	}
	j->reason = reason;
	if (ari_len) {
		j->reject_info_len = ari_len;
		memcpy(j->ari, ari, ari_len);
	}
	if (len)
		memcpy(j->private_data, pdata, len);
}

/* A REJ without an ID, straight back to where a MAD came from (Linux's cm_issue_rej). */
static void issue_rej(struct uroce_cm *cm, const struct uroce_cm_mad *mad, uint64_t tid,
		      uint32_t local_id, uint32_t remote_id, uint16_t reason, uint8_t kind)
{
	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_REJ};
	struct cm_route back;

	m.rej.local_comm_id = local_id;
	m.rej.remote_comm_id = remote_id;
	m.rej.msg_rejected = kind;
	m.rej.reason = reason;
	cm_route_back(&back, mad);
	cm_send_msg(cm, &m, tid, &back, NULL);
}

/* ---- Calls ---- */

int uroce_cm_send_req(struct uroce_cm_id *id, const struct uroce_cm_req_param *p, uint64_t now)
{
	struct uroce_cm *cm = id->cm;
	const struct uroce_cm_path_rec *path = &p->path;

	if (id->state != UROCE_CM_IDLE ||
	    (p->transport != UROCE_CM_TRANSPORT_RC && p->transport != UROCE_CM_TRANSPORT_UC) ||
	    !fits24(p->qpn) || !fits24(p->starting_psn) ||
	    p->remote_cm_response_timeout > UROCE_CM_MAX_TIMEOUT ||
	    p->local_cm_response_timeout > UROCE_CM_MAX_TIMEOUT || p->retry_count > 7 ||
	    p->rnr_retry_count > 7 || p->max_cm_retries > UROCE_CM_MAX_CM_RETRIES ||
	    !path_ok(path) || !pdata_ok(p->private_data, p->private_data_len,
					UROCE_CM_REQ_PRIVATE_LEN))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_REQ};
	struct uroce_cm_req *q = &m.req;
	q->local_comm_id = id->local_id;
	q->service_id = p->service_id;
	q->local_ca_guid = cm->cfg.ca_guid;
	q->local_qpn = p->qpn;
	q->responder_resources = p->responder_resources;
	q->initiator_depth = p->initiator_depth;
	q->remote_cm_resp_timeout = p->remote_cm_response_timeout;
	q->transport_type = p->transport;
	q->e2e_flow_control = p->flow_control;
	q->starting_psn = p->starting_psn;
	q->local_cm_resp_timeout = p->local_cm_response_timeout;
	q->retry_count = p->retry_count;
	q->pkey = path->pkey;
	q->path_mtu = path->mtu;
	q->rnr_retry_count = p->rnr_retry_count;
	q->max_cm_retries = p->max_cm_retries;
	q->srq = p->srq;
	wire_path(&q->primary, path, uroce_cm_ack_timeout(cm->cfg.ack_delay, path->packet_life_time));
	if (p->private_data_len)
		memcpy(q->private_data, p->private_data, p->private_data_len);

	struct uroce_cm_conn *c = &id->conn;
	memset(c, 0, sizeof(*c));
	c->local_comm_id = id->local_id;
	c->service_id = p->service_id;
	c->transport = p->transport;
	c->local_qpn = p->qpn;
	c->rq_psn = p->starting_psn;
	c->path_mtu = path->mtu;
	c->responder_resources = p->responder_resources;
	c->initiator_depth = p->initiator_depth;
	c->retry_count = p->retry_count;
	c->rnr_retry_count = p->rnr_retry_count;
	c->flow_control = p->flow_control;
	c->path = *path;
	/* Linux's cm_init_av_by_path: the QP's timeout is the packet life time + 1 until the
	 * REP's Target ACK Delay refines it. */
	c->ack_timeout = (uint8_t)(path->packet_life_time < UROCE_CM_MAX_TIMEOUT
					   ? path->packet_life_time + 1 : UROCE_CM_MAX_TIMEOUT);
	id->conn_valid = true;
	id->service_id = p->service_id;
	id->service_mask = UINT64_MAX;
	id->remote_id = 0;
	id->remote_guid = 0;
	id->tid = own_tid(id);
	route_of_path(&id->route, path);
	/* Linux's ib_send_cm_req: 2 x packet life time + the peer's response time. */
	id->timeout_ns = 2 * uroce_cm_time_ns(path->packet_life_time) +
			 uroce_cm_time_ns(p->remote_cm_response_timeout);
	id->max_cm_retries = p->max_cm_retries;
	id->retries_left = p->max_cm_retries;
	id->state = UROCE_CM_REQ_SENT;
	id->out_attr = UROCE_CM_ATTR_REQ;
	id->reply_attr = 0;
	cm_send_msg(cm, &m, id->tid, &id->route, id->out);
	cm_arm(id, now, id->timeout_ns);
	return 0;
}

int uroce_cm_send_rep(struct uroce_cm_id *id, const struct uroce_cm_rep_param *p, uint64_t now)
{
	struct uroce_cm *cm = id->cm;

	if (!in(id->state, ST(REQ_RCVD) | ST(MRA_REQ_SENT)) || !fits24(p->qpn) ||
	    !fits24(p->starting_psn) || p->rnr_retry_count > 7 ||
	    !pdata_ok(p->private_data, p->private_data_len, UROCE_CM_REP_PRIVATE_LEN))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_REP};
	struct uroce_cm_rep *r = &m.rep;
	r->local_comm_id = id->local_id;
	r->remote_comm_id = id->remote_id;
	r->local_qpn = p->qpn;
	r->starting_psn = p->starting_psn;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->target_ack_delay = cm->cfg.ack_delay;
	r->e2e_flow_control = p->flow_control;
	r->rnr_retry_count = p->rnr_retry_count;
	r->srq = p->srq;
	r->local_ca_guid = cm->cfg.ca_guid;
	if (p->private_data_len)
		memcpy(r->private_data, p->private_data, p->private_data_len);

	id->conn.local_qpn = p->qpn;
	id->conn.rq_psn = p->starting_psn;
	id->conn.responder_resources = p->responder_resources;
	id->conn.initiator_depth = p->initiator_depth;
	id->state = UROCE_CM_REP_SENT;
	id->out_attr = UROCE_CM_ATTR_REP;
	id->retries_left = id->max_cm_retries;
	cm_send_msg(cm, &m, id->tid, &id->route, id->out);
	cm_arm(id, now, id->timeout_ns);
	return 0;
}

int uroce_cm_send_rtu(struct uroce_cm_id *id, const void *private_data, uint8_t len)
{
	if (!in(id->state, ST(REP_RCVD) | ST(MRA_REP_SENT)) ||
	    !pdata_ok(private_data, len, UROCE_CM_RTU_PRIVATE_LEN))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_RTU};
	m.rtu.local_comm_id = id->local_id;
	m.rtu.remote_comm_id = id->remote_id;
	if (len)
		memcpy(m.rtu.private_data, private_data, len);
	id->state = UROCE_CM_ESTABLISHED;
	id->reply_attr = UROCE_CM_ATTR_RTU;
	cm_send_msg(id->cm, &m, id->tid, &id->route, id->reply);
	return 0;
}

int uroce_cm_send_rej(struct uroce_cm_id *id, uint16_t reason, const void *ari, uint8_t ari_len,
		      const void *private_data, uint8_t len, uint64_t now)
{
	const uint32_t to_idle = ST(REQ_SENT) | ST(MRA_REQ_RCVD) | ST(REQ_RCVD) |
				 ST(MRA_REQ_SENT) | ST(REP_RCVD) | ST(MRA_REP_SENT);
	const uint32_t to_timewait = ST(REP_SENT) | ST(MRA_REP_RCVD);
	struct uroce_cm_msg m;

	/* Annex A17 CA17-35: between RoCEv2 ports a REJ never says "Primary Remote Port LID
	 * rejected" (13) or "Alternate Remote Port LID rejected" (19). */
	if (reason == UROCE_CM_REJ_INVALID_LID || reason == UROCE_CM_REJ_INVALID_ALT_LID ||
	    !in(id->state, to_idle | to_timewait) || !pdata_ok(ari, ari_len, UROCE_CM_REJ_ARI_LEN) ||
	    !pdata_ok(private_data, len, UROCE_CM_REJ_PRIVATE_LEN))
		return UROCE_EINVAL;
	format_rej(id, &m, reason, ari, ari_len, private_data, len);
	cm_send_msg(id->cm, &m, id->tid, &id->route, NULL);
	if (in(id->state, to_timewait)) {
		cm_disarm(id);
		cm_enter_timewait(id, now);
	} else {
		cm_reset_to_idle(id);
	}
	return 0;
}

int uroce_cm_send_mra(struct uroce_cm_id *id, uint8_t service_timeout, const void *private_data,
		      uint8_t len)
{
	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_MRA};
	enum uroce_cm_state next;

	if (id->state == UROCE_CM_REQ_RCVD) {
		next = UROCE_CM_MRA_REQ_SENT;
		m.mra.msg_mraed = UROCE_CM_MSG_REQ;
	} else if (id->state == UROCE_CM_REP_RCVD) {
		next = UROCE_CM_MRA_REP_SENT;
		m.mra.msg_mraed = UROCE_CM_MSG_REP;
	} else {
		return UROCE_EINVAL;
	}
	if (!pdata_ok(private_data, len, UROCE_CM_MRA_PRIVATE_LEN))
		return UROCE_EINVAL;
	m.mra.local_comm_id = id->local_id;
	m.mra.remote_comm_id = id->remote_id;
	m.mra.service_timeout = service_timeout & UROCE_CM_MAX_TIMEOUT;
	if (len)
		memcpy(m.mra.private_data, private_data, len);
	id->state = next;
	id->service_timeout = m.mra.service_timeout;
	id->reply_attr = UROCE_CM_ATTR_MRA;
	if (service_timeout & UROCE_CM_MRA_FLAG_DELAY)
		cm_format_msg(&m, id->tid, id->reply);
	else
		cm_send_msg(id->cm, &m, id->tid, &id->route, id->reply);
	return 0;
}

int uroce_cm_send_dreq(struct uroce_cm_id *id, const void *private_data, uint8_t len,
		       uint64_t now)
{
	if (id->state != UROCE_CM_ESTABLISHED ||
	    !pdata_ok(private_data, len, UROCE_CM_DREQ_PRIVATE_LEN))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_DREQ};
	m.dreq.local_comm_id = id->local_id;
	m.dreq.remote_comm_id = id->remote_id;
	m.dreq.remote_qpn_eecn = id->conn.remote_qpn;
	if (len)
		memcpy(m.dreq.private_data, private_data, len);
	id->tid = own_tid(id);
	id->state = UROCE_CM_DREQ_SENT;
	id->out_attr = UROCE_CM_ATTR_DREQ;
	id->retries_left = id->max_cm_retries;
	cm_send_msg(id->cm, &m, id->tid, &id->route, id->out);
	cm_arm(id, now, id->timeout_ns);
	return 0;
}

int uroce_cm_send_drep(struct uroce_cm_id *id, const void *private_data, uint8_t len,
		       uint64_t now)
{
	if (id->state != UROCE_CM_DREQ_RCVD ||
	    !pdata_ok(private_data, len, UROCE_CM_DREP_PRIVATE_LEN))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_DREP};
	m.drep.local_comm_id = id->local_id;
	m.drep.remote_comm_id = id->remote_id;
	if (len)
		memcpy(m.drep.private_data, private_data, len);
	cm_enter_timewait(id, now);
	id->reply_attr = UROCE_CM_ATTR_DREP;
	cm_send_msg(id->cm, &m, id->tid, &id->route, id->reply);
	return 0;
}

int uroce_cm_establish(struct uroce_cm_id *id)
{
	if (!in(id->state, ST(REP_SENT) | ST(MRA_REP_RCVD)))
		return UROCE_EINVAL;
	cm_disarm(id);
	id->state = UROCE_CM_ESTABLISHED;
	id->out_attr = 0;
	cm_event(id->cm, UROCE_CM_EV_USER_ESTABLISHED, id, NULL, NULL, NULL);
	return 0;
}

/* ---- Received ---- */

/* A REQ of a connection already known (Linux's cm_dup_req_handler). */
static void dup_req(struct uroce_cm_id *id, const struct uroce_cm_mad *mad)
{
	struct uroce_cm *cm = id->cm;
	struct uroce_cm_msg m;

	if (!cm_from_peer(id, mad))
		return;
	cm->cnt.dup_req++;
	cm->cnt.rx_handled++;
	switch (id->state) {
	case UROCE_CM_MRA_REQ_SENT:
		if (id->reply_attr == UROCE_CM_ATTR_MRA)
			cm_send_raw(cm, id->reply, &id->route);
		break;
	case UROCE_CM_REP_SENT:
	case UROCE_CM_MRA_REP_RCVD:
		/* Linux leaves the REP to its retry timer; answering at once saves the peer a
		 * whole REP timeout when the first REP was lost (docs/cm.md "Deviations"). */
		if (id->out_attr == UROCE_CM_ATTR_REP)
			cm_send_raw(cm, id->out, &id->route);
		break;
	case UROCE_CM_TIMEWAIT:
		format_rej(id, &m, UROCE_CM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		cm_send_msg(cm, &m, id->tid, &id->route, NULL);
		cm->cnt.rej_stale_sent++;
		break;
	default: /* REQ_RCVD: the owner has not answered yet; later states: a late copy */
		break;
	}
}

void conn_recv_req(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	const struct uroce_cm_req *q = &m->req;
	struct uroce_cm_id *id, *listener;

	id = cm_find_remote(cm, q->local_ca_guid, q->local_comm_id);
	if (id) {
		dup_req(id, mad);
		return;
	}
	/* Stale connection (Linux's cm_match_req): the peer's QP is still part of a connection
	 * here, so the peer lost it (a restart). The REQ is rejected, and the old connection
	 * is told to go with a DREQ. */
	id = cm_find_qpn(cm, q->local_ca_guid, q->local_qpn);
	if (id) {
		issue_rej(cm, mad, tid, 0, q->local_comm_id, UROCE_CM_REJ_STALE_CONN,
			  UROCE_CM_MSG_REQ);
		cm->cnt.rej_stale_sent++;
		cm->cnt.rx_handled++;
		if (id->state == UROCE_CM_ESTABLISHED)
			uroce_cm_send_dreq(id, NULL, 0, now);
		return;
	}
	listener = cm_find_listener(cm, q->service_id);
	if (!listener) {
		issue_rej(cm, mad, tid, 0, q->local_comm_id, UROCE_CM_REJ_INVALID_SERVICE_ID,
			  UROCE_CM_MSG_REQ);
		cm->cnt.rej_no_listener_sent++;
		cm->cnt.rx_handled++;
		return;
	}
	/* RD needs EE contexts and XRC (the extended type) an XRC domain: neither exists in
	 * uroce, so the REQ is refused here rather than handed to an owner that cannot take
	 * it (Linux accepts XRC). */
	if (q->transport_type != UROCE_CM_TRANSPORT_RC && q->transport_type != UROCE_CM_TRANSPORT_UC) {
		issue_rej(cm, mad, tid, 0, q->local_comm_id, UROCE_CM_REJ_INVALID_TRANSPORT_TYPE,
			  UROCE_CM_MSG_REQ);
		cm->cnt.rej_transport_sent++;
		cm->cnt.rx_handled++;
		return;
	}
	if (cm_id_alloc(cm, &id)) {
		cm->cnt.drop_no_resources++;
		return;
	}

	/* Linux's cm_req_handler and cm_format_paths_from_req: the connection as the REQ
	 * describes it, seen from this side. Annex A17 CA17-34: the LIDs are not looked at. */
	struct uroce_cm_conn *c = &id->conn;
	const struct uroce_cm_path *w = &q->primary;
	c->service_id = q->service_id;
	c->remote_ca_guid = q->local_ca_guid;
	c->transport = q->transport_type;
	c->remote_qpn = q->local_qpn;
	c->sq_psn = q->starting_psn;
	c->path_mtu = q->path_mtu;
	c->responder_resources = q->initiator_depth;
	c->initiator_depth = q->responder_resources;
	c->retry_count = q->retry_count;
	c->rnr_retry_count = q->rnr_retry_count;
	c->srq = q->srq;
	c->flow_control = q->e2e_flow_control;
	uroce_cm_addr_from_gid(&c->path.local, w->remote_gid);
	uroce_cm_addr_from_gid(&c->path.remote, w->local_gid);
	c->path.flow_label = w->flow_label;
	c->path.traffic_class = w->traffic_class;
	c->path.hop_limit = w->hop_limit;
	c->path.sl = w->sl;
	c->path.rate = w->packet_rate;
	c->path.mtu = q->path_mtu;
	c->path.packet_life_time = (uint8_t)(w->local_ack_timeout - (w->local_ack_timeout > 0));
	c->path.pkey = q->pkey;
	c->ack_timeout = (uint8_t)(c->path.packet_life_time + 1);
	id->conn_valid = true;
	id->service_id = q->service_id;
	id->service_mask = UINT64_MAX;
	id->remote_id = q->local_comm_id;
	id->remote_guid = q->local_ca_guid;
	id->tid = tid;
	/* Answers go back where the REQ came from, with the path's traffic class and flow
	 * label (Linux builds the response's address from the received MAD, then the path). */
	cm_route_back(&id->route, mad);
	id->route.traffic_class = w->traffic_class;
	id->route.flow_label = w->flow_label;
	if (w->hop_limit > 1)
		id->route.hop_limit = w->hop_limit;
	id->timeout_ns = uroce_cm_time_ns(q->local_cm_resp_timeout);
	id->max_cm_retries = q->max_cm_retries;
	id->state = UROCE_CM_REQ_RCVD;
	if (!cm_link_remote(id) || !cm_link_qpn(id)) {
		id->user_gone = true; /* no memory for the tables: gone without a word */
		cm_reset_to_idle(id);
		cm_settle(id, now);
		cm->cnt.drop_no_resources++;
		return;
	}
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_REQ_RECEIVED, id, listener, m, mad);
}

/* A REP for a REQ already answered (Linux's cm_dup_rep_handler): the RTU or MRA again. */
static void dup_rep(struct uroce_cm *cm, const struct uroce_cm_rep *r,
		    const struct uroce_cm_mad *mad)
{
	struct uroce_cm_id *id = cm_find_id(cm, r->remote_comm_id, r->local_comm_id);

	if (!id) {
		cm->cnt.drop_unknown_id++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	cm->cnt.dup_rep++;
	cm->cnt.rx_handled++;
	if ((id->state == UROCE_CM_ESTABLISHED && id->reply_attr == UROCE_CM_ATTR_RTU) ||
	    (id->state == UROCE_CM_MRA_REP_SENT && id->reply_attr == UROCE_CM_ATTR_MRA))
		cm_send_raw(cm, id->reply, &id->route);
}

void conn_recv_rep(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	const struct uroce_cm_rep *r = &m->rep;
	struct uroce_cm_id *id = cm_find_id(cm, r->remote_comm_id, 0), *old;

	(void)tid;
	if (!id) {
		dup_rep(cm, r, mad);
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	if (!in(id->state, ST(REQ_SENT) | ST(MRA_REQ_RCVD))) {
		cm->cnt.drop_state++;
		return;
	}
	id->remote_id = r->local_comm_id;
	id->remote_guid = r->local_ca_guid;
	id->conn.remote_qpn = r->local_qpn;
	if (!cm_link_remote(id)) {
		id->remote_id = 0;
		cm->cnt.drop_remote_id_in_use++;
		return;
	}
	if (!cm_link_qpn(id)) {
		/* Stale connection, as for a REQ: REJ the REP, DREQ the old connection; this ID
		 * keeps waiting (its REQ's retries bring the peer's REJ). */
		old = cm_find_qpn(cm, r->local_ca_guid, r->local_qpn);
		cm_unlink_remote(id);
		id->remote_id = 0;
		issue_rej(cm, mad, tid, r->remote_comm_id, r->local_comm_id,
			  UROCE_CM_REJ_STALE_CONN, UROCE_CM_MSG_REP);
		cm->cnt.rej_stale_sent++;
		cm->cnt.rx_handled++;
		if (old && old->state == UROCE_CM_ESTABLISHED)
			uroce_cm_send_dreq(old, NULL, 0, now);
		return;
	}
	struct uroce_cm_conn *c = &id->conn;
	c->remote_ca_guid = r->local_ca_guid;
	c->sq_psn = r->starting_psn;
	c->initiator_depth = r->responder_resources;
	c->responder_resources = r->initiator_depth;
	c->rnr_retry_count = r->rnr_retry_count;
	c->srq = r->srq;
	/* Linux's cm_rep_handler: the QP's timeout from the peer's ACK delay and the path's
	 * life time (ack_timeout - 1). */
	c->ack_timeout = uroce_cm_ack_timeout(r->target_ack_delay, (uint8_t)(c->ack_timeout - 1));
	cm_disarm(id);
	id->out_attr = 0;
	id->state = UROCE_CM_REP_RCVD;
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_REP_RECEIVED, id, NULL, m, mad);
	cm_settle(id, now);
}

void conn_recv_rtu(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	struct uroce_cm_id *id = cm_find_id(cm, m->rtu.remote_comm_id, m->rtu.local_comm_id);

	(void)tid;
	(void)now;
	if (!id) {
		cm->cnt.drop_unknown_id++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	cm->cnt.rx_handled++;
	if (!in(id->state, ST(REP_SENT) | ST(MRA_REP_RCVD))) {
		cm->cnt.dup_rtu++;
		return;
	}
	cm_disarm(id);
	id->out_attr = 0;
	id->state = UROCE_CM_ESTABLISHED;
	cm_event(cm, UROCE_CM_EV_RTU_RECEIVED, id, NULL, m, mad);
}

/* The ID a REJ is for (Linux's cm_acquire_rejected_id). A REJ "timeout" comes from a peer
 * that gave up before it learnt this side's comm ID: it names itself, and its CA GUID in the
 * ARI. A REJ of a REQ comes before the rejecter's comm ID is known here. */
static struct uroce_cm_id *rejected_id(struct uroce_cm *cm, const struct uroce_cm_rej *j)
{
	if (j->reason == UROCE_CM_REJ_TIMEOUT)
		return cm_find_remote(cm, get_be64(j->ari), j->local_comm_id);
	if (j->msg_rejected == UROCE_CM_MSG_REQ)
		return cm_find_id(cm, j->remote_comm_id, 0);
	return cm_find_id(cm, j->remote_comm_id, j->local_comm_id);
}

void conn_recv_rej(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	struct uroce_cm_id *id = rejected_id(cm, &m->rej);
	bool stale = m->rej.reason == UROCE_CM_REJ_STALE_CONN;

	(void)tid;
	if (!id) {
		cm->cnt.drop_unknown_id++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	switch (id->state) {
	case UROCE_CM_REQ_SENT:
	case UROCE_CM_MRA_REQ_RCVD:
	case UROCE_CM_REP_SENT:
	case UROCE_CM_MRA_REP_RCVD:
	case UROCE_CM_REQ_RCVD:
	case UROCE_CM_MRA_REQ_SENT:
		cm_disarm(id);
		if (stale)
			cm_enter_timewait(id, now);
		else
			cm_reset_to_idle(id);
		break;
	case UROCE_CM_DREQ_SENT:
	case UROCE_CM_REP_RCVD:
	case UROCE_CM_MRA_REP_SENT:
	case UROCE_CM_ESTABLISHED:
		cm_disarm(id);
		cm_enter_timewait(id, now);
		break;
	default:
		cm->cnt.drop_state++;
		return;
	}
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_REJ_RECEIVED, id, NULL, m, mad);
	cm_settle(id, now);
}

void conn_recv_mra(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	const struct uroce_cm_mra *a = &m->mra;
	struct uroce_cm_id *id;
	enum uroce_cm_state next;

	(void)tid;
	if (a->msg_mraed == UROCE_CM_MSG_REQ)
		id = cm_find_id(cm, a->remote_comm_id, 0);
	else if (a->msg_mraed == UROCE_CM_MSG_REP || a->msg_mraed == UROCE_CM_MSG_OTHER)
		id = cm_find_id(cm, a->remote_comm_id, a->local_comm_id);
	else
		id = NULL;
	if (!id) {
		cm->cnt.drop_unknown_id++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	if (id->state == UROCE_CM_REQ_SENT && a->msg_mraed == UROCE_CM_MSG_REQ) {
		next = UROCE_CM_MRA_REQ_RCVD;
	} else if (id->state == UROCE_CM_REP_SENT && a->msg_mraed == UROCE_CM_MSG_REP) {
		next = UROCE_CM_MRA_REP_RCVD;
	} else if (in(id->state, ST(MRA_REQ_RCVD) | ST(MRA_REP_RCVD))) {
		/* Linux counts it and keeps the wait the first MRA set. */
		cm->cnt.dup_mra++;
		cm->cnt.rx_handled++;
		return;
	} else {
		cm->cnt.drop_state++; /* an MRA of a LAP among them: no alternate paths here */
		return;
	}
	/* Linux's cm_mra_handler: the peer's service time and the path's life time, after
	 * which the message is sent again (with the retries it had left). */
	id->timeout_ns = uroce_cm_time_ns(a->service_timeout) +
			 uroce_cm_time_ns(id->conn.ack_timeout);
	cm_arm(id, now, id->timeout_ns);
	id->state = next;
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_MRA_RECEIVED, id, NULL, m, mad);
}

/* A DREP without an ID, for a DREQ naming none (Linux's cm_issue_drep): the peer's
 * disconnection ends even when this side forgot the connection. */
static void issue_drep(struct uroce_cm *cm, const struct uroce_cm_dreq *d, uint64_t tid,
		       const struct uroce_cm_mad *mad)
{
	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_DREP};
	struct cm_route back;

	m.drep.local_comm_id = d->remote_comm_id;
	m.drep.remote_comm_id = d->local_comm_id;
	cm_route_back(&back, mad);
	cm_send_msg(cm, &m, tid, &back, NULL);
}

void conn_recv_dreq(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		    const struct uroce_cm_mad *mad, uint64_t now)
{
	const struct uroce_cm_dreq *d = &m->dreq;
	struct uroce_cm_id *id = cm_find_id(cm, d->remote_comm_id, d->local_comm_id);
	struct uroce_cm_msg drep = {.attr = UROCE_CM_ATTR_DREP};

	if (!id) {
		issue_drep(cm, d, tid, mad);
		cm->cnt.drep_unknown_sent++;
		cm->cnt.rx_handled++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	if (d->remote_qpn_eecn != id->conn.local_qpn) {
		cm->cnt.drop_dreq_qpn++;
		return;
	}
	switch (id->state) {
	case UROCE_CM_REP_SENT:
	case UROCE_CM_MRA_REP_RCVD:
	case UROCE_CM_DREQ_SENT:
		cm_disarm(id);
		id->out_attr = 0;
		break;
	case UROCE_CM_ESTABLISHED:
		break;
	case UROCE_CM_TIMEWAIT:
		cm->cnt.dup_dreq++;
		cm->cnt.rx_handled++;
		/* The DREP again; a retransmitted DREQ has the TID of the first. A DREQ this side
		 * never answered (both sides disconnected at once) gets one now. */
		if (id->reply_attr == UROCE_CM_ATTR_DREP) {
			cm_send_raw(cm, id->reply, &id->route);
		} else {
			drep.drep.local_comm_id = id->local_id;
			drep.drep.remote_comm_id = id->remote_id;
			cm_send_msg(cm, &drep, tid, &id->route, NULL);
		}
		return;
	case UROCE_CM_DREQ_RCVD:
		cm->cnt.dup_dreq++;
		cm->cnt.rx_handled++;
		return;
	case UROCE_CM_IDLE:
		/* Timewait is over (it is shorter than a DREQ's resend interval, so a DREQ
		 * resent for a lost DREP finds this): the connection is forgotten, and a DREP
		 * ends the peer's side of it, as for a connection never known. Linux answers
		 * only once the ID is destroyed (docs/cm.md "Deviations"). */
		issue_drep(cm, d, tid, mad);
		cm->cnt.drep_unknown_sent++;
		cm->cnt.rx_handled++;
		return;
	default:
		cm->cnt.drop_state++;
		return;
	}
	id->state = UROCE_CM_DREQ_RCVD;
	id->tid = tid;
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_DREQ_RECEIVED, id, NULL, m, mad);
	cm_settle(id, now);
}

void conn_recv_drep(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		    const struct uroce_cm_mad *mad, uint64_t now)
{
	struct uroce_cm_id *id = cm_find_id(cm, m->drep.remote_comm_id, m->drep.local_comm_id);

	(void)tid;
	if (!id) {
		cm->cnt.drop_unknown_id++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	if (!in(id->state, ST(DREQ_SENT) | ST(DREQ_RCVD))) {
		cm->cnt.drop_state++;
		return;
	}
	cm_disarm(id);
	cm_enter_timewait(id, now);
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_DREP_RECEIVED, id, NULL, m, mad);
	cm_settle(id, now);
}

/* SPDX-License-Identifier: MIT */
/* CM events into rdma_cm events, as Linux's cma.c maps them (cma_ib_handler,
 * cma_ib_req_handler, cma_sidr_rep_handler). Runs with the port lock held, in the port's
 * thread (or in an application thread that called into the CM): no verbs here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

/* How a CM event becomes an rdma_cm event: its type, and where the status comes from. */
enum status_of { ST_ZERO, ST_TIMEDOUT, ST_REJ_REASON, ST_SIDR };

static const struct {
	int type; /* RDMA_CM_EVENT_*, -1: none */
	enum status_of status;
} cm_map[UROCE_CM_NEVENTS] = {
	[UROCE_CM_EV_REQ_ERROR] = {RDMA_CM_EVENT_UNREACHABLE, ST_TIMEDOUT},
	[UROCE_CM_EV_REQ_RECEIVED] = {RDMA_CM_EVENT_CONNECT_REQUEST, ST_ZERO},
	[UROCE_CM_EV_REP_ERROR] = {RDMA_CM_EVENT_UNREACHABLE, ST_TIMEDOUT},
	[UROCE_CM_EV_REP_RECEIVED] = {RDMA_CM_EVENT_CONNECT_RESPONSE, ST_ZERO},
	[UROCE_CM_EV_RTU_RECEIVED] = {RDMA_CM_EVENT_ESTABLISHED, ST_ZERO},
	[UROCE_CM_EV_USER_ESTABLISHED] = {RDMA_CM_EVENT_ESTABLISHED, ST_ZERO},
	[UROCE_CM_EV_DREQ_ERROR] = {RDMA_CM_EVENT_DISCONNECTED, ST_ZERO},
	[UROCE_CM_EV_DREQ_RECEIVED] = {RDMA_CM_EVENT_DISCONNECTED, ST_ZERO},
	[UROCE_CM_EV_DREP_RECEIVED] = {RDMA_CM_EVENT_DISCONNECTED, ST_ZERO},
	[UROCE_CM_EV_TIMEWAIT_EXIT] = {RDMA_CM_EVENT_TIMEWAIT_EXIT, ST_ZERO},
	[UROCE_CM_EV_MRA_RECEIVED] = {-1, ST_ZERO}, /* the CM waits longer: nothing to say */
	[UROCE_CM_EV_REJ_RECEIVED] = {RDMA_CM_EVENT_REJECTED, ST_REJ_REASON},
	[UROCE_CM_EV_LAP_ERROR] = {-1, ST_ZERO},
	[UROCE_CM_EV_LAP_RECEIVED] = {-1, ST_ZERO},
	[UROCE_CM_EV_APR_RECEIVED] = {-1, ST_ZERO},
	[UROCE_CM_EV_SIDR_REQ_ERROR] = {RDMA_CM_EVENT_UNREACHABLE, ST_TIMEDOUT},
	[UROCE_CM_EV_SIDR_REQ_RECEIVED] = {RDMA_CM_EVENT_CONNECT_REQUEST, ST_ZERO},
	[UROCE_CM_EV_SIDR_REP_RECEIVED] = {RDMA_CM_EVENT_ESTABLISHED, ST_SIDR},
};

int cma_event_type(const struct uroce_cm_event *ev, enum cma_state st, int *status)
{
	int type;

	if ((unsigned)ev->type >= UROCE_CM_NEVENTS)
		return -1;
	type = cm_map[ev->type].type;
	*status = 0;
	switch (cm_map[ev->type].status) {
	case ST_ZERO:
		break;
	case ST_TIMEDOUT:
		*status = -ETIMEDOUT;
		break;
	case ST_REJ_REASON:
		*status = ev->msg.rej.reason;
		break;
	case ST_SIDR:
		/* cma_sidr_rep_handler: a status other than success is UNREACHABLE with it;
		 * a Q_Key other than the port space's is refused. */
		if (ev->msg.sidr_rep.status) {
			type = RDMA_CM_EVENT_UNREACHABLE;
			*status = ev->msg.sidr_rep.status;
		} else if (ev->msg.sidr_rep.qkey != RDMA_UDP_QKEY) {
			type = RDMA_CM_EVENT_UNREACHABLE;
			*status = -EINVAL;
		}
		break;
	}
	/* One DISCONNECTED per connection: cma_ib_handler reports the first of DREQ received,
	 * DREP received and DREQ timeout, in RDMA_CM_CONNECT only. */
	if (type == RDMA_CM_EVENT_DISCONNECTED && st != CMA_CONNECT && st != CMA_ESTABLISHED)
		return -1;
	return type;
}

void cma_fill_ah(const struct cma_id *c, const struct uroce_cm_path_rec *p, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	uroce_cm_gid_from_addr(ah->grh.dgid.raw, &p->remote);
	ah->grh.sgid_index = (uint8_t)c->sgid_index;
	ah->grh.hop_limit = p->hop_limit;
	ah->grh.traffic_class = p->traffic_class;
	ah->grh.flow_label = p->flow_label;
	ah->sl = p->sl;
	ah->port_num = 1;
}

static void set_pdata(struct cma_event *e, const void *data, size_t len, bool ud)
{
	if (len > sizeof(e->pdata))
		len = sizeof(e->pdata);
	memcpy(e->pdata, data, len);
	if (ud) {
		e->ev.param.ud.private_data = e->pdata;
		e->ev.param.ud.private_data_len = (uint8_t)len;
	} else {
		e->ev.param.conn.private_data = e->pdata;
		e->ev.param.conn.private_data_len = (uint8_t)len;
	}
}

/* A REQ or SIDR_REQ through a listener: a new id, handed up with CONNECT_REQUEST
 * (cma_ib_req_handler); it is rejected when the request cannot be taken. */
static void handle_req(struct cma_dev *dev, const struct uroce_cm_event *ev, uint64_t now)
{
	struct cma_id *l = ev->listen_id ? uroce_cm_id_context(ev->listen_id) : NULL;
	bool ud = ev->type == UROCE_CM_EV_SIDR_REQ_RECEIVED;
	const uint8_t *pd = ud ? ev->msg.sidr_req.private_data : ev->msg.req.private_data;
	size_t pdlen = ud ? UROCE_CM_SIDR_REQ_PRIVATE_LEN : UROCE_CM_REQ_PRIVATE_LEN;
	struct uroce_io_addr src, dst;
	struct uroce_cm_conn conn;
	struct cma_event *e;
	struct cma_id *c;
	uint16_t sport, lport;
	int gidx = -1;

	if (!l || l->state != CMA_LISTEN || uroce_rdma_hdr_decode(pd, pdlen, &src, &sport, &dst))
		goto reject;
	for (int g = 0; g < dev->ngids; g++)
		if (uroce_io_addr_equal(&dev->gid[g].addr, &ev->local))
			gidx = g;
	lport = uroce_rdma_sid_port(ud ? ev->msg.sidr_req.service_id : ev->msg.req.service_id);
	if (gidx < 0)
		goto reject;
	c = cma_id_alloc(l->sync ? NULL : l->id.channel, l->id.context, l->id.ps, l->id.qp_type);
	if (!c)
		goto reject;
	e = cma_event_new(l, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (!e) {
		cma_id_free(c);
		goto reject;
	}
	cma_id_set_dev(c, dev, gidx);
	cma_sa_from_addr(&c->id.route.addr.src_storage, &ev->local, lport);
	cma_sa_from_addr(&c->id.route.addr.dst_storage, &ev->peer, sport);
	uroce_cm_gid_from_addr(c->id.route.addr.addr.ibaddr.dgid.raw, &ev->peer);
	c->state = CMA_CONNECT;
	c->parent = l;
	c->cm_id = ev->id;
	c->tos = l->tos;
	uroce_cm_id_set_context(ev->id, c);
	e->ev.id = &c->id;
	e->ev.listen_id = &l->id;
	if (ud) {
		uroce_rdma_iboe_path(&c->path, &ev->local, lport, &ev->peer, sport, 0,
				     UROCE_CM_DEFAULT_HOP_LIMIT, dev->mtu, 0, 0);
		set_pdata(e, pd + UROCE_RDMA_HDR_LEN, pdlen - UROCE_RDMA_HDR_LEN, true);
	} else {
		const struct uroce_cm_req *r = &ev->msg.req;

		if (!uroce_cm_id_query(ev->id, &conn))
			c->path = conn.path;
		/* The peer's view, turned round (cma_format_req_event). */
		c->initiator_depth = r->responder_resources;
		c->responder_resources = r->initiator_depth;
		e->ev.param.conn.initiator_depth = r->responder_resources;
		e->ev.param.conn.responder_resources = r->initiator_depth;
		e->ev.param.conn.flow_control = r->e2e_flow_control;
		e->ev.param.conn.retry_count = r->retry_count;
		e->ev.param.conn.rnr_retry_count = r->rnr_retry_count;
		e->ev.param.conn.srq = r->srq;
		e->ev.param.conn.qp_num = r->local_qpn;
		set_pdata(e, pd + UROCE_RDMA_HDR_LEN, pdlen - UROCE_RDMA_HDR_LEN, false);
	}
	cma_id_fill_path_rec(c);
	cma_enqueue(e);
	/* While the application decides, a repeated REQ gets an MRA (cma_ib_req_handler). */
	if (!ud)
		uroce_cm_send_mra(ev->id, UROCE_RDMA_MRA_SETTING, NULL, 0);
	return;
reject:
	uroce_cm_destroy_id(ev->id, now);
}

void cma_handle_cm_event(struct cma_dev *dev, const struct uroce_cm_event *ev, uint64_t now)
{
	struct cma_event *e;
	struct cma_id *c;
	int type, status;

	if (ev->type == UROCE_CM_EV_REQ_RECEIVED || ev->type == UROCE_CM_EV_SIDR_REQ_RECEIVED) {
		handle_req(dev, ev, now);
		return;
	}
	c = uroce_cm_id_context(ev->id);
	if (!c)
		return;
	type = cma_event_type(ev, c->state, &status);
	if (type < 0)
		return;
	e = cma_event_new(c, type, status);
	if (!e)
		return; /* the CM goes on; the application misses this event, as on ENOMEM */
	switch (ev->type) {
	case UROCE_CM_EV_REP_RECEIVED: {
		const struct uroce_cm_rep *r = &ev->msg.rep;

		/* The application (or this library in rdma_get_cm_event) answers with the RTU;
		 * meanwhile a repeated REP gets an MRA (cma_ib_handler). */
		uroce_cm_send_mra(ev->id, UROCE_RDMA_MRA_SETTING, NULL, 0);
		e->ev.param.conn.initiator_depth = r->responder_resources;
		e->ev.param.conn.responder_resources = r->initiator_depth;
		e->ev.param.conn.flow_control = r->e2e_flow_control;
		e->ev.param.conn.rnr_retry_count = r->rnr_retry_count;
		e->ev.param.conn.srq = r->srq;
		e->ev.param.conn.qp_num = r->local_qpn;
		set_pdata(e, r->private_data, sizeof(r->private_data), false);
		e->post = CMA_POST_CONN_RESP;
		break;
	}
	case UROCE_CM_EV_REJ_RECEIVED:
		set_pdata(e, ev->msg.rej.private_data, sizeof(ev->msg.rej.private_data), false);
		e->post = CMA_POST_REJECTED;
		break;
	case UROCE_CM_EV_RTU_RECEIVED:
	case UROCE_CM_EV_USER_ESTABLISHED:
		if (ev->type == UROCE_CM_EV_RTU_RECEIVED)
			set_pdata(e, ev->msg.rtu.private_data, sizeof(ev->msg.rtu.private_data),
				  false);
		c->state = CMA_ESTABLISHED;
		break;
	case UROCE_CM_EV_DREQ_RECEIVED:
		set_pdata(e, ev->msg.dreq.private_data, sizeof(ev->msg.dreq.private_data), false);
		c->state = CMA_DISCONNECT;
		break;
	case UROCE_CM_EV_DREP_RECEIVED:
		set_pdata(e, ev->msg.drep.private_data, sizeof(ev->msg.drep.private_data), false);
		c->state = CMA_DISCONNECT;
		break;
	case UROCE_CM_EV_DREQ_ERROR:
		c->state = CMA_DISCONNECT;
		break;
	case UROCE_CM_EV_SIDR_REP_RECEIVED: {
		const struct uroce_cm_sidr_rep *r = &ev->msg.sidr_rep;

		cma_fill_ah(c, &c->path, &e->ev.param.ud.ah_attr);
		e->ev.param.ud.qp_num = r->qpn;
		e->ev.param.ud.qkey = r->qkey;
		set_pdata(e, r->private_data, sizeof(r->private_data), true);
		if (type == RDMA_CM_EVENT_ESTABLISHED)
			c->state = CMA_ESTABLISHED;
		break;
	}
	default:
		break;
	}
	cma_enqueue(e);
}

/* SPDX-License-Identifier: MIT */
/* Service ID Resolution (IBA 12.11): a datagram service asks which QPN and Q_Key serve a
 * Service ID (rdma_cm's UDP port space resolves its UD peers this way). No connection, no
 * timewait: the asking ID waits for one SIDR_REP, resending its SIDR_REQ meanwhile; the
 * answering ID lives until its owner answers. As Linux's cm.c (ib_send_cm_sidr_req,
 * cm_sidr_req_handler, ib_send_cm_sidr_rep, cm_sidr_rep_handler). */
#include "priv.h"

#include <string.h>

#include "common/error.h"

uint64_t sidr_addr_key(const struct uroce_io_addr *a)
{
	uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a */

	h = (h ^ a->ipv6) * 0x100000001B3ull;
	for (size_t i = 0; i < (a->ipv6 ? 16u : 4u); i++)
		h = (h ^ a->ip[i]) * 0x100000001B3ull;
	return h;
}

int uroce_cm_send_sidr_req(struct uroce_cm_id *id, const struct uroce_cm_sidr_req_param *p,
			   uint64_t now)
{
	if (id->state != UROCE_CM_IDLE || p->path.local.ipv6 != p->path.remote.ipv6 ||
	    !p->timeout_ns || p->max_cm_retries > UROCE_CM_MAX_CM_RETRIES ||
	    p->private_data_len > UROCE_CM_SIDR_REQ_PRIVATE_LEN ||
	    (p->private_data_len && !p->private_data))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_SIDR_REQ};
	m.sidr_req.request_id = id->local_id;
	m.sidr_req.pkey = p->path.pkey;
	m.sidr_req.service_id = p->service_id;
	if (p->private_data_len)
		memcpy(m.sidr_req.private_data, p->private_data, p->private_data_len);

	id->tid = (uint64_t)id->cm->cfg.tid_high << 32 | id->local_id;
	id->service_id = p->service_id;
	id->service_mask = UINT64_MAX;
	id->remote_id = 0;
	id->route.peer = p->path.remote;
	id->route.local = p->path.local;
	id->route.traffic_class = p->path.traffic_class;
	id->route.hop_limit = p->path.hop_limit;
	id->route.flow_label = p->path.flow_label;
	id->timeout_ns = p->timeout_ns;
	id->max_cm_retries = p->max_cm_retries;
	id->retries_left = p->max_cm_retries;
	id->state = UROCE_CM_SIDR_REQ_SENT;
	id->out_attr = UROCE_CM_ATTR_SIDR_REQ;
	cm_send_msg(id->cm, &m, id->tid, &id->route, id->out);
	cm_arm(id, now, id->timeout_ns);
	return 0;
}

int uroce_cm_send_sidr_rep(struct uroce_cm_id *id, const struct uroce_cm_sidr_rep_param *p)
{
	if (id->state != UROCE_CM_SIDR_REQ_RCVD || p->qpn > 0xFFFFFF ||
	    p->info_len > UROCE_CM_SIDR_REP_INFO_LEN || (p->info_len && !p->info) ||
	    p->private_data_len > UROCE_CM_SIDR_REP_PRIVATE_LEN ||
	    (p->private_data_len && !p->private_data))
		return UROCE_EINVAL;

	struct uroce_cm_msg m = {.attr = UROCE_CM_ATTR_SIDR_REP};
	struct uroce_cm_sidr_rep *r = &m.sidr_rep;
	r->request_id = id->remote_id;
	r->status = p->status;
	r->add_info_len = p->info_len;
	r->qpn = p->qpn;
	r->service_id = id->service_id;
	r->qkey = p->qkey;
	if (p->info_len)
		memcpy(r->add_info, p->info, p->info_len);
	if (p->private_data_len)
		memcpy(r->private_data, p->private_data, p->private_data_len);
	cm_send_msg(id->cm, &m, id->tid, &id->route, NULL);
	table_remove(&id->cm->by_sidr, &id->n_sidr);
	id->state = UROCE_CM_IDLE;
	return 0;
}

/* The ID answering this request from this peer, if any (Linux's cm_insert_remote_sidr). */
static struct uroce_cm_id *find_sidr(struct uroce_cm *cm, uint32_t request_id,
				     const struct uroce_io_addr *peer)
{
	for (struct table_node *n = table_find(&cm->by_sidr, sidr_addr_key(peer), request_id); n;
	     n = table_next(n)) {
		struct uroce_cm_id *id =
			(struct uroce_cm_id *)((char *)n - offsetof(struct uroce_cm_id, n_sidr));
		if (uroce_io_addr_equal(&id->route.peer, peer))
			return id;
	}
	return NULL;
}

void sidr_recv_req(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	const struct uroce_cm_sidr_req *q = &m->sidr_req;
	struct uroce_cm_id *id, *listener;

	(void)now;
	if (find_sidr(cm, q->request_id, &mad->peer)) {
		/* Its owner has not answered yet; once it has, a resent request is a new one
		 * (as in Linux, which keeps no answered requests). */
		cm->cnt.dup_sidr_req++;
		cm->cnt.rx_handled++;
		return;
	}
	listener = cm_find_listener(cm, q->service_id);
	if (!listener) {
		struct uroce_cm_msg rep = {.attr = UROCE_CM_ATTR_SIDR_REP};
		struct cm_route back;
		rep.sidr_rep.request_id = q->request_id;
		rep.sidr_rep.status = UROCE_CM_SIDR_UNSUPPORTED;
		rep.sidr_rep.service_id = q->service_id;
		cm_route_back(&back, mad);
		cm_send_msg(cm, &rep, tid, &back, NULL);
		cm->cnt.sidr_unsupported_sent++;
		cm->cnt.rx_handled++;
		return;
	}
	if (cm_id_alloc(cm, &id)) {
		cm->cnt.drop_no_resources++;
		return;
	}
	id->remote_id = q->request_id;
	id->service_id = q->service_id;
	id->service_mask = UINT64_MAX;
	id->tid = tid;
	cm_route_back(&id->route, mad);
	id->state = UROCE_CM_SIDR_REQ_RCVD;
	if (table_insert(&cm->by_sidr, &id->n_sidr, sidr_addr_key(&mad->peer), q->request_id)) {
		id->user_gone = true;
		id->state = UROCE_CM_IDLE;
		cm_settle(id, now);
		cm->cnt.drop_no_resources++;
		return;
	}
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_SIDR_REQ_RECEIVED, id, listener, m, mad);
}

void sidr_recv_rep(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now)
{
	struct uroce_cm_id *id = cm_find_id(cm, m->sidr_rep.request_id, 0);

	(void)tid;
	if (!id) {
		cm->cnt.drop_unknown_id++;
		return;
	}
	if (!cm_from_peer(id, mad))
		return;
	if (id->state != UROCE_CM_SIDR_REQ_SENT) {
		cm->cnt.drop_state++;
		return;
	}
	cm_disarm(id);
	id->out_attr = 0;
	id->state = UROCE_CM_IDLE;
	cm->cnt.rx_handled++;
	cm_event(cm, UROCE_CM_EV_SIDR_REP_RECEIVED, id, NULL, m, mad);
	cm_settle(id, now);
}

/* SPDX-License-Identifier: MIT */
/* QPs, SRQs and endpoints of ids: rdma_create_qp(_ex), rdma_create_srq(_ex), rdma_create_ep,
 * rdma_get_request, as rdma-core's librdmacm/cma.c behaves (CQs made for the id when the
 * caller gives none; a new QP taken to INIT, a UD one to RTS; an endpoint without a channel
 * of its own makes every call wait for its event). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static void destroy_cqs(struct rdma_cm_id *id)
{
	if (id->recv_cq) {
		ibv_destroy_cq(id->recv_cq);
		if (id->send_cq && id->send_cq != id->recv_cq)
			ibv_destroy_cq(id->send_cq);
	} else if (id->send_cq) {
		ibv_destroy_cq(id->send_cq);
	}
	id->recv_cq = id->send_cq = NULL;
	if (id->recv_cq_channel) {
		ibv_destroy_comp_channel(id->recv_cq_channel);
		if (id->send_cq_channel && id->send_cq_channel != id->recv_cq_channel)
			ibv_destroy_comp_channel(id->send_cq_channel);
	} else if (id->send_cq_channel) {
		ibv_destroy_comp_channel(id->send_cq_channel);
	}
	id->recv_cq_channel = id->send_cq_channel = NULL;
}

/* One CQ (and its completion channel) per direction the caller left without one. */
static int create_cqs(struct rdma_cm_id *id, uint32_t send_size, uint32_t recv_size)
{
	if (recv_size) {
		id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->recv_cq_channel)
			goto err;
		id->recv_cq = ibv_create_cq(id->verbs, (int)recv_size, id, id->recv_cq_channel, 0);
		if (!id->recv_cq)
			goto err;
	}
	if (send_size) {
		id->send_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->send_cq_channel)
			goto err;
		id->send_cq = ibv_create_cq(id->verbs, (int)send_size, id, id->send_cq_channel, 0);
		if (!id->send_cq)
			goto err;
	}
	return 0;
err:
	destroy_cqs(id);
	return -1;
}

/* A new QP to INIT (RC, UC) or through to RTS (UD: ucma_init_ud_qp). */
static int init_qp(struct cma_id *c, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT};
	int mask;

	if (cma_init_qp_attr(c, &a, &mask))
		return -1;
	if (ibv_modify_qp(qp, &a, mask))
		return cma_ret(errno ? errno : EINVAL);
	if (c->id.qp_type != IBV_QPT_UD)
		return 0;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct cma_id *c = cma_id_of(id);
	struct ibv_qp *qp;

	if (id->qp || !id->verbs || !attr)
		return cma_ret(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
		attr->pd = id->pd;
	} else if (attr->pd->context != id->verbs) {
		return cma_ret(EINVAL);
	}
	if ((id->recv_cq && attr->recv_cq && id->recv_cq != attr->recv_cq) ||
	    (id->send_cq && attr->send_cq && id->send_cq != attr->send_cq))
		return cma_ret(EINVAL);
	if (create_cqs(id, attr->send_cq || id->send_cq ? 0 : attr->cap.max_send_wr,
		       attr->recv_cq || id->recv_cq ? 0 : attr->cap.max_recv_wr))
		return -1;
	if (!attr->send_cq)
		attr->send_cq = id->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = id->recv_cq;
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp)
		goto err;
	if (init_qp(c, qp)) {
		int err = errno;

		ibv_destroy_qp(qp);
		errno = err;
		goto err;
	}
	id->pd = qp->pd;
	id->qp = qp;
	return 0;
err:
	destroy_cqs(id);
	return -1;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	struct ibv_qp_init_attr_ex ex;
	int ret;

	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, init, sizeof(*init));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd ? pd : id->pd;
	ret = rdma_create_qp_ex(id, &ex);
	memcpy(init, &ex, sizeof(*init));
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	/* rdma-core's passes a NULL QP on to ibv_destroy_qp, which dereferences it: qperf
	 * 0.4.11's -cm1 server calls this on its listener, which has no QP (a qperf bug, fixed
	 * upstream by 83bc16e), and dies of SIGSEGV before its connection is closed. */
	if (id->qp)
		ibv_destroy_qp(id->qp);
	id->qp = NULL;
	destroy_cqs(id);
}

int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;

	if (!id->verbs || !attr)
		return cma_ret(EINVAL);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)) {
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_TYPE;
		attr->srq_type = IBV_SRQT_BASIC;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	if (attr->srq_type != IBV_SRQT_BASIC)
		return cma_ret(EOPNOTSUPP); /* XRC: uroce's verbs have none */
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq)
		return -1;
	id->pd = attr->pd;
	id->srq = srq;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex;
	int ret;

	memset(&ex, 0, sizeof(ex));
	ex.srq_context = attr->srq_context;
	ex.attr = attr->attr;
	ex.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ex.srq_type = IBV_SRQT_BASIC;
	ex.pd = pd ? pd : id->pd;
	ret = rdma_create_srq_ex(id, &ex);
	attr->attr = ex.attr;
	return ret;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm_id;
	struct cma_id *c;

	if (!id || !res)
		return cma_ret(EINVAL);
	if (cma_init())
		return -1;
	if (!cma_ps_ok((enum rdma_port_space)res->ai_port_space))
		return cma_ret(EINVAL);
	c = cma_id_alloc(NULL, NULL, (enum rdma_port_space)res->ai_port_space,
			 (enum ibv_qp_type)res->ai_qp_type);
	if (!c)
		return cma_ret(ENOMEM);
	cm_id = &c->id;
	if (res->ai_flags & RAI_PASSIVE) {
		/* ucma_passive_ep: bound now; QPs are made by rdma_get_request. */
		if (res->ai_src_addr && rdma_bind_addr(cm_id, res->ai_src_addr))
			goto err;
		if (pd)
			cm_id->pd = pd;
		if (qp_init_attr) {
			c->qp_init_attr = malloc(sizeof(*qp_init_attr));
			if (!c->qp_init_attr) {
				errno = ENOMEM;
				goto err;
			}
			*c->qp_init_attr = *qp_init_attr;
			c->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		}
		*id = cm_id;
		return 0;
	}
	if (rdma_resolve_addr(cm_id, res->ai_src_addr, res->ai_dst_addr, 2000) ||
	    rdma_resolve_route(cm_id, 2000))
		goto err;
	if (qp_init_attr) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (rdma_create_qp(cm_id, pd, qp_init_attr))
			goto err;
	}
	if (res->ai_connect_len) {
		c->connect = malloc(res->ai_connect_len);
		if (!c->connect) {
			errno = ENOMEM;
			goto err;
		}
		memcpy(c->connect, res->ai_connect, res->ai_connect_len);
		c->connect_len = res->ai_connect_len;
	}
	*id = cm_id;
	return 0;
err: {
	int err = errno;

	rdma_destroy_ep(cm_id);
	return cma_ret(err ? err : EINVAL);
}
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct cma_id *l = cma_id_of(listen);
	struct rdma_cm_event *ev;
	int err;

	if (!l->sync)
		return cma_ret(EINVAL);
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		err = ECONNREFUSED;
	else if (ev->status)
		err = ev->status < 0 ? -ev->status : ev->status;
	else if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		err = EINVAL;
	else
		err = 0;
	if (!err && l->qp_init_attr) {
		struct ibv_qp_init_attr attr = *l->qp_init_attr;

		if (rdma_create_qp(ev->id, listen->pd, &attr))
			err = errno;
	}
	if (err) {
		listen->event = ev;
		return cma_ret(err);
	}
	*id = ev->id;
	(*id)->event = ev;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Connections: rdma_connect, rdma_accept, rdma_reject, rdma_disconnect, rdma_establish,
 * rdma_notify and the QP attributes (rdma_init_qp_attr). The CM calls are Linux's cma.c
 * (cma_connect_ib, cma_accept_ib, cma_resolve_ib_udp, cma_send_sidr_rep); the QP changes
 * are made here, in the application's thread, with ibv_modify_qp, as rdma-core's
 * librdmacm/cma.c makes them (ucma_modify_qp_rtr, _rts, _err, ucma_process_conn_resp). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "priv.h"

/* The CM's view of the connection (port lock taken here: the caller holds none). */
static int query(struct cma_id *c, struct uroce_cm_conn *conn)
{
	int e;

	if (!c->cm_id)
		return UROCE_EINVAL;
	cma_dev_lock(c->dev);
	e = uroce_cm_id_query(c->cm_id, conn);
	cma_dev_unlock(c->dev);
	return e;
}

static bool is_ud(const struct cma_id *c)
{
	return c->id.qp_type == IBV_QPT_UD;
}

int cma_init_qp_attr(struct cma_id *c, struct ibv_qp_attr *a, int *mask)
{
	enum ibv_qp_state st = a->qp_state;
	struct uroce_cm_conn conn;
	bool known;

	if (!c->dev)
		return cma_ret(EINVAL);
	known = !is_ud(c) && !query(c, &conn);
	memset(a, 0, sizeof(*a));
	a->qp_state = st;
	switch (st) {
	case IBV_QPS_INIT:
		/* cma_ib_init_qp_attr; ib_cm_init_qp_attr once the CM knows the connection. */
		a->pkey_index = 0;
		a->port_num = 1;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (is_ud(c)) {
			a->qkey = RDMA_UDP_QKEY;
			*mask |= IBV_QP_QKEY;
		} else {
			if (known)
				a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					(conn.responder_resources ? IBV_ACCESS_REMOTE_READ |
					 IBV_ACCESS_REMOTE_ATOMIC : 0);
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		if (is_ud(c)) {
			*mask = IBV_QP_STATE;
			return 0;
		}
		if (!known)
			return cma_ret(EINVAL);
		cma_fill_ah(c, &conn.path, &a->ah_attr);
		a->path_mtu = (enum ibv_mtu)conn.path_mtu;
		a->dest_qp_num = conn.remote_qpn;
		a->rq_psn = c->seq_num; /* rdma_init_qp_attr: the id's own sequence number */
		*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (c->id.qp_type == IBV_QPT_RC) {
			a->max_dest_rd_atomic = conn.responder_resources;
			a->min_rnr_timer = 0; /* cm_init_qp_rtr_attr */
			*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		return 0;
	case IBV_QPS_RTS:
		if (is_ud(c)) {
			a->sq_psn = 0;
			*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
			return 0;
		}
		if (!known)
			return cma_ret(EINVAL);
		a->sq_psn = conn.sq_psn;
		*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (c->id.qp_type == IBV_QPT_RC) {
			a->timeout = c->ack_timeout ? c->ack_timeout : conn.ack_timeout;
			a->retry_cnt = conn.retry_count;
			a->rnr_retry = conn.rnr_retry_count;
			a->max_rd_atomic = conn.initiator_depth;
			*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				 IBV_QP_MAX_QP_RD_ATOMIC;
		}
		return 0;
	default:
		return cma_ret(EINVAL);
	}
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	if (!id || !qp_attr || !qp_attr_mask)
		return cma_ret(EINVAL);
	return cma_init_qp_attr(cma_id_of(id), qp_attr, qp_attr_mask);
}

static int modify(struct cma_id *c, enum ibv_qp_state st, uint8_t override)
{
	struct ibv_qp_attr a = {.qp_state = st};
	int mask, err;

	if (cma_init_qp_attr(c, &a, &mask))
		return -1;
	if (st == IBV_QPS_RTR && override != RDMA_MAX_RESP_RES)
		a.max_dest_rd_atomic = override;
	if (st == IBV_QPS_RTS && override != RDMA_MAX_INIT_DEPTH)
		a.max_rd_atomic = override;
	err = ibv_modify_qp(c->id.qp, &a, mask);
	return cma_ret(err);
}

/* ucma_modify_qp_rtr: INIT again with the connection's access rights, then RTR. */
static int modify_rtr(struct cma_id *c, uint8_t resp_res)
{
	if (!c->id.qp)
		return 0;
	if (modify(c, IBV_QPS_INIT, 0))
		return -1;
	return modify(c, IBV_QPS_RTR, resp_res);
}

static int modify_rts(struct cma_id *c, uint8_t init_depth)
{
	return c->id.qp ? modify(c, IBV_QPS_RTS, init_depth) : 0;
}

int cma_modify_qp_err(struct cma_id *c)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

	if (!c->id.qp)
		return 0;
	return cma_ret(ibv_modify_qp(c->id.qp, &a, IBV_QP_STATE));
}

static int send_rtu(struct cma_id *c)
{
	int e;

	cma_dev_lock(c->dev);
	e = uroce_cm_send_rtu(c->cm_id, NULL, 0);
	if (!e)
		c->state = CMA_ESTABLISHED;
	cma_dev_unlock(c->dev);
	return cma_ret(cma_errno(e));
}

int cma_process_conn_resp(struct cma_id *c)
{
	if (modify_rtr(c, RDMA_MAX_RESP_RES) || modify_rts(c, RDMA_MAX_INIT_DEPTH) || send_rtu(c)) {
		int err = errno;

		cma_modify_qp_err(c);
		return cma_ret(err);
	}
	return 0;
}

int rdma_establish(struct rdma_cm_id *id)
{
	struct cma_id *c = cma_id_of(id);

	if (id->qp || !c->cm_id)
		return cma_ret(EINVAL);
	return send_rtu(c);
}

/* ucma_valid_param: only RDMA_PS_TCP is checked; there, an id without a QP needs the
 * parameters (its QPN), and the resources asked for must be the device's to give. */
static int valid_param(const struct cma_id *c, const struct rdma_conn_param *p)
{
	if (c->id.ps != RDMA_PS_TCP)
		return 0;
	if (!p)
		return c->id.qp ? 0 : cma_ret(EINVAL);
	if (p->responder_resources != RDMA_MAX_RESP_RES &&
	    p->responder_resources > c->dev->max_resp_res)
		return cma_ret(EINVAL);
	if (p->initiator_depth != RDMA_MAX_INIT_DEPTH && p->initiator_depth > c->dev->max_init_depth)
		return cma_ret(EINVAL);
	return 0;
}

static uint8_t min7(uint8_t v)
{
	return v > 7 ? 7 : v;
}

/* The private data after the IP CM header: rdma_create_ep's, then the call's. */
static ssize_t req_pdata(struct cma_id *c, const struct rdma_conn_param *p, uint8_t *out,
			 size_t cap)
{
	uint8_t user[UROCE_CM_SIDR_REQ_PRIVATE_LEN];
	size_t ulen = c->connect_len;
	struct uroce_io_addr src, dst;
	uint16_t sport, dport;

	if (ulen > sizeof(user))
		return -EINVAL;
	if (ulen)
		memcpy(user, c->connect, ulen);
	if (p && p->private_data && p->private_data_len) {
		if (ulen + p->private_data_len > sizeof(user))
			return -EINVAL;
		memcpy(user + ulen, p->private_data, p->private_data_len);
		ulen += p->private_data_len;
	}
	cma_addr_from_sa(&src, &sport, &c->id.route.addr.src_addr);
	cma_addr_from_sa(&dst, &dport, &c->id.route.addr.dst_addr);
	src = c->path.local;
	return uroce_rdma_hdr_encode(out, cap, &src, sport, &dst, user, ulen);
}

static int connect_ud(struct cma_id *c, const struct rdma_conn_param *p)
{
	uint8_t pd[UROCE_CM_SIDR_REQ_PRIVATE_LEN];
	struct uroce_cm_sidr_req_param r = {0};
	ssize_t len = req_pdata(c, p, pd, sizeof(pd));
	int e;

	if (len < 0)
		return cma_ret(EINVAL);
	r.path = c->path;
	r.service_id = uroce_rdma_service_id((uint16_t)c->id.ps, ntohs(rdma_get_dst_port(&c->id)));
	/* cma_resolve_ib_udp: 1 << (CMA_CM_RESPONSE_TIMEOUT - 8) ms, CMA_MAX_CM_RETRIES. */
	r.timeout_ns = (1ull << (UROCE_RDMA_CM_RESPONSE_TIMEOUT - 8)) * 1000000ull;
	r.max_cm_retries = UROCE_RDMA_MAX_CM_RETRIES;
	r.private_data = pd;
	r.private_data_len = (uint8_t)len;
	cma_dev_lock(c->dev);
	e = uroce_cm_create_id(c->dev->cm, c, &c->cm_id);
	if (!e) {
		e = uroce_cm_send_sidr_req(c->cm_id, &r, cma_dev_now(c->dev));
		if (e) {
			uroce_cm_destroy_id(c->cm_id, cma_dev_now(c->dev));
			c->cm_id = NULL;
		}
	}
	if (!e)
		c->state = CMA_CONNECT;
	cma_dev_unlock(c->dev);
	return cma_ret(cma_errno(e));
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct cma_id *c = cma_id_of(id);
	uint8_t pd[UROCE_CM_REQ_PRIVATE_LEN];
	struct uroce_cm_req_param r = {0};
	ssize_t len;
	int e;

	if (c->state != CMA_ROUTE_RESOLVED)
		return cma_ret(EINVAL);
	if (valid_param(c, p))
		return -1;
	c->initiator_depth = p && p->initiator_depth != RDMA_MAX_INIT_DEPTH ? p->initiator_depth
									      : c->dev->max_init_depth;
	c->responder_resources = p && p->responder_resources != RDMA_MAX_RESP_RES
					 ? p->responder_resources
					 : c->dev->max_resp_res;
	if (is_ud(c)) {
		if (connect_ud(c, p))
			return -1;
		goto done;
	}
	len = req_pdata(c, p, pd, sizeof(pd));
	if (len < 0)
		return cma_ret(EINVAL);
	r.path = c->path;
	r.service_id = uroce_rdma_service_id((uint16_t)id->ps, ntohs(rdma_get_dst_port(id)));
	r.qpn = id->qp ? id->qp->qp_num : p ? p->qp_num : 0;
	r.srq = id->qp ? id->qp->srq != NULL : p ? p->srq : 0;
	r.transport = id->qp_type == IBV_QPT_UC ? UROCE_CM_TRANSPORT_UC : UROCE_CM_TRANSPORT_RC;
	r.starting_psn = c->seq_num;
	r.responder_resources = c->responder_resources;
	r.initiator_depth = c->initiator_depth;
	r.remote_cm_response_timeout = UROCE_RDMA_CM_RESPONSE_TIMEOUT;
	r.local_cm_response_timeout = UROCE_RDMA_CM_RESPONSE_TIMEOUT;
	r.flow_control = p ? p->flow_control : 0;
	r.retry_count = p ? min7(p->retry_count) : 7;
	r.rnr_retry_count = p ? min7(p->rnr_retry_count) : 7;
	r.max_cm_retries = UROCE_RDMA_MAX_CM_RETRIES;
	r.private_data = pd;
	r.private_data_len = (uint8_t)len;
	cma_dev_lock(c->dev);
	e = uroce_cm_create_id(c->dev->cm, c, &c->cm_id);
	if (!e) {
		e = uroce_cm_send_req(c->cm_id, &r, cma_dev_now(c->dev));
		if (e) {
			uroce_cm_destroy_id(c->cm_id, cma_dev_now(c->dev));
			c->cm_id = NULL;
		}
	}
	if (!e)
		c->state = CMA_CONNECT;
	cma_dev_unlock(c->dev);
	if (e)
		return cma_ret(cma_errno(e));
done:
	free(c->connect);
	c->connect = NULL;
	c->connect_len = 0;
	return cma_sync_wait(c);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct cma_id *c = cma_id_of(id);
	int e;

	if (c->state != CMA_CONNECT || !c->cm_id || (!id->qp && !p))
		return cma_ret(EINVAL);
	if (valid_param(c, p))
		return -1;
	/* librdmacm's rdma_accept: the request's values, capped by the device's, unless the
	 * application asks for others. */
	if (!p || p->initiator_depth == RDMA_MAX_INIT_DEPTH) {
		if (c->initiator_depth > c->dev->max_init_depth)
			c->initiator_depth = c->dev->max_init_depth;
	} else {
		c->initiator_depth = p->initiator_depth;
	}
	if (!p || p->responder_resources == RDMA_MAX_RESP_RES) {
		if (c->responder_resources > c->dev->max_resp_res)
			c->responder_resources = c->dev->max_resp_res;
	} else {
		c->responder_resources = p->responder_resources;
	}
	if (is_ud(c)) {
		struct uroce_cm_sidr_rep_param r = {
			.status = UROCE_CM_SIDR_SUCCESS,
			.qpn = id->qp ? id->qp->qp_num : p->qp_num,
			.qkey = RDMA_UDP_QKEY,
			.private_data = p ? p->private_data : NULL,
			.private_data_len = p && p->private_data ? p->private_data_len : 0,
		};

		cma_dev_lock(c->dev);
		e = uroce_cm_send_sidr_rep(c->cm_id, &r);
		cma_dev_unlock(c->dev);
		return cma_ret(cma_errno(e));
	}
	if (modify_rtr(c, c->responder_resources) || modify_rts(c, c->initiator_depth))
		return -1;
	{
		struct uroce_cm_rep_param r = {
			.qpn = id->qp ? id->qp->qp_num : p->qp_num,
			.starting_psn = c->seq_num,
			.responder_resources = c->responder_resources,
			.initiator_depth = c->initiator_depth,
			.flow_control = p ? p->flow_control : 0,
			.rnr_retry_count = p ? min7(p->rnr_retry_count) : 7,
			.srq = id->qp ? id->qp->srq != NULL : p->srq,
			.private_data = p ? p->private_data : NULL,
			.private_data_len = p && p->private_data ? p->private_data_len : 0,
		};

		cma_dev_lock(c->dev);
		e = uroce_cm_send_rep(c->cm_id, &r, cma_dev_now(c->dev));
		cma_dev_unlock(c->dev);
	}
	if (e) {
		cma_modify_qp_err(c);
		return cma_ret(cma_errno(e));
	}
	return cma_sync_wait(c);
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct cma_id *c = cma_id_of(id);
	int e;

	if (!c->cm_id)
		return cma_ret(EINVAL);
	if (!private_data)
		private_data_len = 0;
	cma_dev_lock(c->dev);
	if (is_ud(c)) {
		struct uroce_cm_sidr_rep_param r = {
			.status = UROCE_CM_SIDR_REJECT,
			.private_data = private_data,
			.private_data_len = private_data_len,
		};

		e = uroce_cm_send_sidr_rep(c->cm_id, &r);
	} else {
		e = uroce_cm_send_rej(c->cm_id, UROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0, private_data,
				      private_data_len, cma_dev_now(c->dev));
	}
	cma_dev_unlock(c->dev);
	return cma_ret(cma_errno(e));
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct cma_id *c = cma_id_of(id);
	enum uroce_cm_state st;

	if (!id->verbs || !c->cm_id || is_ud(c))
		return cma_ret(EINVAL);
	if (cma_modify_qp_err(c)) /* ucma_shutdown */
		return -1;
	/* Linux's rdma_disconnect: a DREQ, or the DREP of a DREQ received; nothing in other
	 * states (a connection not yet up, or already down). */
	cma_dev_lock(c->dev);
	st = uroce_cm_id_state(c->cm_id);
	if (st == UROCE_CM_ESTABLISHED)
		uroce_cm_send_dreq(c->cm_id, NULL, 0, cma_dev_now(c->dev));
	else if (st == UROCE_CM_DREQ_RCVD)
		uroce_cm_send_drep(c->cm_id, NULL, 0, cma_dev_now(c->dev));
	cma_dev_unlock(c->dev);
	return cma_sync_wait(c);
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct cma_id *c = cma_id_of(id);
	int e;

	if (!c->cm_id || event != IBV_EVENT_COMM_EST)
		return cma_ret(EINVAL);
	/* ib_cm_notify: EISCONN when the connection is already up. */
	cma_dev_lock(c->dev);
	e = uroce_cm_id_state(c->cm_id) == UROCE_CM_ESTABLISHED ? EISCONN
								: cma_errno(uroce_cm_establish(c->cm_id));
	cma_dev_unlock(c->dev);
	return cma_ret(e);
}

/* ECE (enhanced connection establishment): uroce's verbs have none (ibv_set_ece and
 * ibv_query_ece answer EOPNOTSUPP), so neither does its rdma_cm: rdma_set_local_ece(3)'s
 * answer for a device without it. */
int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return cma_ret(EOPNOTSUPP);
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return cma_ret(EOPNOTSUPP);
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	(void)id;
	(void)private_data;
	(void)private_data_len;
	return cma_ret(EOPNOTSUPP);
}

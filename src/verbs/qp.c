/* SPDX-License-Identifier: MIT */
/* Queue pairs and shared receive queues: create, modify, query, destroy and the posting
 * calls. The engine's structures mirror libibverbs' (engine.h), so most of this is copying
 * fields; the enum values are equal by construction (checked below). */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "priv.h"

static_assert(sizeof(struct ibv_sge) == sizeof(struct uroce_sge) &&
		      offsetof(struct ibv_sge, length) == offsetof(struct uroce_sge, length) &&
		      offsetof(struct ibv_sge, lkey) == offsetof(struct uroce_sge, lkey),
	      "an ibv_sge list is passed to the engine as it is");
static_assert(IBV_QPT_RC == (int)UROCE_QPT_RC && IBV_QPT_UD == (int)UROCE_QPT_UD &&
		      IBV_WR_SEND_WITH_INV == (int)UROCE_WR_SEND_WITH_INV &&
		      IBV_WR_ATOMIC_WRITE == (int)UROCE_WR_ATOMIC_WRITE &&
		      IBV_WC_ATOMIC_WRITE == (int)UROCE_WC_ATOMIC_WRITE &&
		      IBV_SEND_INLINE == (int)UROCE_SEND_INLINE &&
		      IBV_WC_RECV_RDMA_WITH_IMM == (int)UROCE_WC_RECV_RDMA_WITH_IMM &&
		      IBV_QP_DEST_QPN == (int)UROCE_QPA_DEST_QPN &&
		      IBV_EVENT_QP_LAST_WQE_REACHED == (int)UROCE_EVENT_QP_LAST_WQE_REACHED,
	      "engine enums carry the libibverbs values");

/* The modify-QP attributes the engine knows; alternate paths, path migration and capability
 * changes are refused. IBV_QP_RATE_LIMIT is the verbs layer's (uv_set_rate_limit). */
#define UV_QP_MASK_KNOWN                                                                       \
	(IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS |  \
	 IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU |         \
	 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN |                \
	 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |                      \
	 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN | IBV_QP_RATE_LIMIT)

/* Whether the calling thread may set a controlled Q_Key. Linux's uverbs modify_qp allows it
 * with CAP_NET_RAW (capable(), now rdma_uattrs_has_raw_cap(): the capability in the user
 * namespace of the device's network namespace) or when the rdma netlink setting
 * privileged_qkey is on (rdma_nl_get_privileged_qkey()); uroce has no such setting and asks
 * the effective set of the calling thread, as capable() does: capget(2) with pid 0 reads
 * that thread's set (/proc/self/status would give the main thread's). */
static bool caller_has_net_raw(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[CAP_TO_INDEX(CAP_NET_RAW)].effective & CAP_TO_MASK(CAP_NET_RAW);
}

/* ---- Shared receive queues ---- */

struct ibv_srq *ibv_create_srq(struct ibv_pd *ibpd, struct ibv_srq_init_attr *init)
{
	struct uv_port *port = port_of(ibpd->context);
	struct uroce_srq_attr a = {init->attr.max_wr, init->attr.max_sge, init->attr.srq_limit,
				   uv_pd_mem(ibpd)};
	struct uv_srq *srq = calloc(1, sizeof(*srq));
	int err;

	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&port->lock);
	err = uroce_srq_create(((struct uv_pd *)ibpd)->eng, &a, &srq->eng);
	if (!err) {
		uroce_srq_set_user(srq->eng, &srq->ibv);
		uv_pd_use(ibpd, true);
	}
	pthread_mutex_unlock(&port->lock);
	if (err) {
		free(srq);
		errno = uv_errno(err);
		return NULL;
	}
	srq->ibv.context = ibpd->context;
	srq->ibv.srq_context = init->srq_context;
	srq->ibv.pd = ibpd;
	pthread_mutex_init(&srq->ibv.mutex, NULL);
	pthread_cond_init(&srq->ibv.cond, NULL);
	pthread_mutex_init(&srq->post_lock, NULL);
	return &srq->ibv;
}

int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct uv_port *port = port_of(ibsrq->context);
	struct uroce_srq_attr a = {attr->max_wr, attr->max_sge, attr->srq_limit, NULL};
	unsigned m = 0;
	int err;

	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return uv_fail(EINVAL);
	m |= mask & IBV_SRQ_MAX_WR ? UROCE_SRQ_MAX_WR : 0;
	m |= mask & IBV_SRQ_LIMIT ? UROCE_SRQ_LIMIT : 0;
	pthread_mutex_lock(&port->lock);
	err = uroce_srq_modify(((struct uv_srq *)ibsrq)->eng, &a, m);
	pthread_mutex_unlock(&port->lock);
	return uv_fail(uv_errno(err));
}

int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct uv_port *port = port_of(ibsrq->context);
	struct uroce_srq_attr a;

	pthread_mutex_lock(&port->lock);
	uroce_srq_query(((struct uv_srq *)ibsrq)->eng, &a);
	pthread_mutex_unlock(&port->lock);
	attr->max_wr = a.max_wr;
	attr->max_sge = a.max_sge;
	attr->srq_limit = a.srq_limit;
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct uv_port *port = port_of(ibsrq->context);
	int err;

	pthread_mutex_lock(&port->lock);
	err = uroce_srq_destroy(((struct uv_srq *)ibsrq)->eng);
	if (!err)
		uv_pd_use(ibsrq->pd, false);
	pthread_mutex_unlock(&port->lock);
	if (err)
		return uv_fail(uv_errno(err));
	/* ibv_get_async_event(3): a destroy waits for the acknowledgement of every event handed
	 * out about the object; those still queued are dropped (async.c). */
	uv_async_wait_acked(&ibsrq->mutex, &ibsrq->cond, &ibsrq->events_completed,
			    uv_async_forget(ibsrq->context, ibsrq,
					    &((struct uv_srq *)ibsrq)->async_reported));
	pthread_mutex_destroy(&ibsrq->mutex);
	pthread_cond_destroy(&ibsrq->cond);
	pthread_mutex_destroy(&((struct uv_srq *)ibsrq)->post_lock);
	free(ibsrq);
	return 0;
}

/* ---- Queue pairs ---- */

/* The ibv_qp_init_attr_ex fields of comp_mask; later bits are unknown to rdma-core 44. */
#define UV_QP_INIT_ATTR_ALL                                                                    \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_CREATE_FLAGS |        \
	 IBV_QP_INIT_ATTR_MAX_TSO_HEADER | IBV_QP_INIT_ATTR_IND_TABLE |                      \
	 IBV_QP_INIT_ATTR_RX_HASH | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* 0 when a QP can be made as asked. A field named in comp_mask is a request only when it
 * asks for something: create_flags and max_tso_header of 0 ask for nothing and are
 * accepted (rdma-core's tests name CREATE_FLAGS with 0 for every QP). What uroce does not
 * have gives EOPNOTSUPP: XRC, RSS (indirection tables, receive hashing), TSO, the create
 * flags (raw-packet and multicast options), QP types other than RC, UC and UD. */
static int init_attr_check(const struct ibv_qp_init_attr_ex *in)
{
	uint32_t mask = in->comp_mask;

	if (mask & ~(uint32_t)UV_QP_INIT_ATTR_ALL || !(mask & IBV_QP_INIT_ATTR_PD) || !in->pd)
		return EINVAL;
	if (mask & (IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_IND_TABLE |
		    IBV_QP_INIT_ATTR_RX_HASH) ||
	    (mask & IBV_QP_INIT_ATTR_CREATE_FLAGS && in->create_flags) ||
	    (mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER && in->max_tso_header))
		return EOPNOTSUPP;
	if (in->qp_type != IBV_QPT_RC && in->qp_type != IBV_QPT_UC && in->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if (!in->send_cq || !in->recv_cq)
		return EINVAL;
	return 0;
}

struct ibv_qp *uv_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *in)
{
	struct uv_port *port = port_of(ctx);
	struct uroce_qp_init_attr a;
	struct uroce_qp_attr now;
	struct uv_qp *qp;
	int err;

	if ((err = init_attr_check(in))) {
		errno = err;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.send_cq = to_uv_cq(in->send_cq)->eng;
	a.recv_cq = to_uv_cq(in->recv_cq)->eng;
	a.srq = in->srq ? ((struct uv_srq *)in->srq)->eng : NULL;
	a.cap.max_send_wr = in->cap.max_send_wr;
	a.cap.max_recv_wr = in->cap.max_recv_wr;
	a.cap.max_send_sge = in->cap.max_send_sge;
	a.cap.max_recv_sge = in->cap.max_recv_sge;
	a.cap.max_inline_data = in->cap.max_inline_data;
	a.qp_type = (enum uroce_qp_type)in->qp_type;
	a.sq_sig_all = in->sq_sig_all;
	a.mem = uv_pd_mem(in->pd);

	if (!(qp = calloc(1, sizeof(*qp)))) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&port->lock);
	err = uv_port_start(port);
	if (!err) {
		err = uv_errno(uroce_qp_create(((struct uv_pd *)in->pd)->eng, &a, &qp->eng));
		if (!err) {
			uroce_qp_set_user(qp->eng, &qp->ex.qp_base);
			uroce_qp_query(qp->eng, &now, &a);
			uv_pd_use(in->pd, true);
		}
	}
	pthread_mutex_unlock(&port->lock);
	if (!err && (in->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		err = uv_qp_ex_init(qp, in->send_ops_flags, &a.cap);
	if (err) {
		if (qp->eng) {
			pthread_mutex_lock(&port->lock);
			uroce_qp_destroy(qp->eng);
			uv_pd_use(in->pd, false);
			pthread_mutex_unlock(&port->lock);
		}
		free(qp);
		errno = err;
		return NULL;
	}
	/* ibv_create_qp(3): the capabilities are updated to what the QP really has. */
	in->cap.max_send_wr = a.cap.max_send_wr;
	in->cap.max_recv_wr = a.cap.max_recv_wr;
	in->cap.max_send_sge = a.cap.max_send_sge;
	in->cap.max_recv_sge = a.cap.max_recv_sge;
	in->cap.max_inline_data = a.cap.max_inline_data;
	qp->max_inline = a.cap.max_inline_data;

	struct ibv_qp *q = &qp->ex.qp_base;
	q->context = ctx;
	q->qp_context = in->qp_context;
	q->pd = in->pd;
	q->send_cq = in->send_cq;
	q->recv_cq = in->recv_cq;
	q->srq = in->srq;
	q->qp_num = uroce_qp_num(qp->eng);
	q->handle = q->qp_num;
	q->state = IBV_QPS_RESET;
	q->qp_type = in->qp_type;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	pthread_mutex_init(&qp->send_lock, NULL);
	pthread_mutex_init(&qp->recv_lock, NULL);
	return q;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, init, sizeof(*init)); /* the _ex structure begins with the same fields */
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = uv_create_qp_ex(pd->context, &ex);
	if (qp)
		init->cap = ex.cap;
	return qp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct uv_qp *q = to_uv_qp(qp);

	return q->cap ? &q->ex : NULL;
}

/* ibv_modify_qp_rate_limit(3): the QP's requests paced to rate_limit kbit/s (0: no limit),
 * by the pacer congestion control uses (docs/congestion.md). The pacer allows no burst, so
 * max_burst_sz and typical_pkt_sz change nothing. */
int uv_modify_qp_rate_limit(struct ibv_qp *ibqp, struct ibv_qp_rate_limit_attr *attr)
{
	struct uv_qp *qp = to_uv_qp(ibqp);
	struct uv_port *port = port_of(ibqp->context);
	int err;

	if (!attr || attr->comp_mask)
		return EINVAL;
	pthread_mutex_lock(&port->lock);
	err = uroce_qp_set_rate_limit(qp->eng, (uint64_t)attr->rate_limit * 1000);
	uv_port_unlock_kick(port);
	return uv_errno(err);
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *in, int mask)
{
	struct uv_qp *qp = to_uv_qp(ibqp);
	struct uv_port *port = port_of(ibqp->context);
	struct uroce_qp_attr a;
	int err;

	if ((unsigned)mask & ~(unsigned)UV_QP_MASK_KNOWN)
		return uv_fail(EINVAL);
	if ((mask & IBV_QP_AV) && !in->ah_attr.is_global)
		return uv_fail(EINVAL); /* RoCE: the address is the GID */
	if ((mask & IBV_QP_QKEY) && (in->qkey & UROCE_QKEY_CONTROLLED) && !caller_has_net_raw())
		return uv_fail(EPERM); /* as uverbs modify_qp: -EPERM, whatever the QP type */
	memset(&a, 0, sizeof(a));
	a.qp_state = (enum uroce_qp_state)in->qp_state;
	a.cur_qp_state = (enum uroce_qp_state)in->cur_qp_state;
	a.path_mtu = (enum uroce_mtu)in->path_mtu;
	a.qkey = in->qkey;
	a.rq_psn = in->rq_psn;
	a.sq_psn = in->sq_psn;
	a.dest_qp_num = in->dest_qp_num;
	a.qp_access_flags = in->qp_access_flags;
	if (mask & IBV_QP_AV)
		uv_ah_attr_to_engine(&in->ah_attr, &a.ah_attr);
	a.pkey_index = in->pkey_index;
	a.en_sqd_async_notify = in->en_sqd_async_notify;
	a.max_rd_atomic = in->max_rd_atomic;
	a.max_dest_rd_atomic = in->max_dest_rd_atomic;
	a.min_rnr_timer = in->min_rnr_timer;
	a.port_num = in->port_num;
	a.timeout = in->timeout;
	a.retry_cnt = in->retry_cnt;
	a.rnr_retry = in->rnr_retry;

	/* RESET also takes the QP's completions out of its CQs (uroce_cq_drop_qp), as the
	 * providers of RDMA NICs do: the QP starts again with nothing of its past. */
	bool reset = (mask & IBV_QP_STATE) && in->qp_state == IBV_QPS_RESET;

	if (reset)
		uv_qp_cqs_lock(ibqp, true);
	uv_port_flush(port);
	pthread_mutex_lock(&port->lock);
	err = uroce_qp_modify(qp->eng, &a, (unsigned)mask & ~(unsigned)IBV_QP_RATE_LIMIT);
	if (!err && (mask & IBV_QP_RATE_LIMIT))
		err = uroce_qp_set_rate_limit(qp->eng, (uint64_t)in->rate_limit * 1000);
	if (!err) {
		ibqp->state = (enum ibv_qp_state)uroce_qp_state(qp->eng);
		if (reset)
			uv_qp_cqs_drop(ibqp);
	}
	uv_port_unlock_kick(port); /* a move to ERR flushes: completions to deliver */
	if (reset)
		uv_qp_cqs_lock(ibqp, false);
	return uv_fail(uv_errno(err));
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *out, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct uv_qp *qp = to_uv_qp(ibqp);
	struct uv_port *port = port_of(ibqp->context);
	struct uroce_qp_init_attr ia;
	struct uroce_qp_attr a;

	(void)mask; /* everything is cheap to report */
	pthread_mutex_lock(&port->lock);
	uroce_qp_query(qp->eng, &a, &ia);
	pthread_mutex_unlock(&port->lock);

	memset(out, 0, sizeof(*out));
	out->qp_state = (enum ibv_qp_state)a.qp_state;
	out->cur_qp_state = (enum ibv_qp_state)a.qp_state;
	out->path_mtu = (enum ibv_mtu)a.path_mtu;
	out->qkey = a.qkey;
	out->rq_psn = a.rq_psn;
	out->sq_psn = a.sq_psn;
	out->dest_qp_num = a.dest_qp_num;
	out->qp_access_flags = a.qp_access_flags;
	out->cap.max_send_wr = a.cap.max_send_wr;
	out->cap.max_recv_wr = a.cap.max_recv_wr;
	out->cap.max_send_sge = a.cap.max_send_sge;
	out->cap.max_recv_sge = a.cap.max_recv_sge;
	out->cap.max_inline_data = a.cap.max_inline_data;
	uv_ah_attr_from_engine(&a.ah_attr, &out->ah_attr);
	out->pkey_index = a.pkey_index;
	out->en_sqd_async_notify = a.en_sqd_async_notify;
	out->sq_draining = a.sq_draining;
	out->max_rd_atomic = a.max_rd_atomic;
	out->max_dest_rd_atomic = a.max_dest_rd_atomic;
	out->min_rnr_timer = a.min_rnr_timer;
	out->port_num = a.port_num ? a.port_num : 1;
	out->timeout = a.timeout;
	out->retry_cnt = a.retry_cnt;
	out->rnr_retry = a.rnr_retry;
	if (init) {
		memset(init, 0, sizeof(*init));
		init->qp_context = ibqp->qp_context;
		init->send_cq = ibqp->send_cq;
		init->recv_cq = ibqp->recv_cq;
		init->srq = ibqp->srq;
		init->cap = out->cap;
		init->qp_type = ibqp->qp_type;
		init->sq_sig_all = ia.sq_sig_all;
	}
	return 0;
}

/* ibv_query_qp_data_in_order(3): 1 only when the bytes of each message are written to memory
 * in order, so that a reader may poll the last byte instead of the completion. The
 * responder copies each packet's payload with memcpy, which gives no order within the copy
 * (glibc's x86 memcpy stores the head of a large copy after its tail), so uroce cannot
 * promise it for any operation: 0. */
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp, (void)op, (void)flags;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct uv_qp *qp = to_uv_qp(ibqp);
	struct uv_port *port = port_of(ibqp->context);
	int err;

	/* Its completions go with it (uroce_cq_drop_qp), as with the providers of RDMA NICs: a
	 * later QP may get its number. */
	uv_qp_cqs_lock(ibqp, true);
	uv_port_flush(port);
	pthread_mutex_lock(&port->lock);
	uv_qp_cqs_drop(ibqp);
	err = uroce_qp_destroy(qp->eng);
	if (!err)
		uv_pd_use(ibqp->pd, false);
	pthread_mutex_unlock(&port->lock);
	uv_qp_cqs_lock(ibqp, false);
	if (err)
		return uv_fail(uv_errno(err));
	uv_port_posted(port); /* its staged completions wait for nothing now: a round publishes */
	/* ibv_get_async_event(3): a destroy waits for the acknowledgement of every event handed
	 * out about the object; those still queued are dropped (async.c). */
	uv_async_wait_acked(&ibqp->mutex, &ibqp->cond, &ibqp->events_completed,
			    uv_async_forget(ibqp->context, ibqp, &qp->async_reported));
	uv_qp_ex_free(qp);
	pthread_mutex_destroy(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	pthread_mutex_destroy(&qp->send_lock);
	pthread_mutex_destroy(&qp->recv_lock);
	free(qp);
	return 0;
}

/* ---- Posting ---- */

static void send_wr_to_engine(const struct ibv_send_wr *in, struct uroce_send_wr *out)
{
	memset(out, 0, sizeof(*out));
	out->wr_id = in->wr_id;
	out->sg_list = (struct uroce_sge *)in->sg_list;
	out->num_sge = in->num_sge;
	out->opcode = (enum uroce_wr_opcode)in->opcode;
	out->send_flags = in->send_flags;
	if (in->opcode == IBV_WR_SEND_WITH_INV || in->opcode == IBV_WR_LOCAL_INV)
		out->invalidate_rkey = in->invalidate_rkey;
	else
		out->imm_data = ntohl(in->imm_data);
	switch (in->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		out->wr.atomic.remote_addr = in->wr.atomic.remote_addr;
		out->wr.atomic.compare_add = in->wr.atomic.compare_add;
		out->wr.atomic.swap = in->wr.atomic.swap;
		out->wr.atomic.rkey = in->wr.atomic.rkey;
		break;
	default:
		out->wr.rdma.remote_addr = in->wr.rdma.remote_addr;
		out->wr.rdma.rkey = in->wr.rdma.rkey;
		break;
	}
}

/* Posting takes the queue's own lock, not the port's: the engine's queues are
 * single-producer single-consumer rings that the engine reads without a lock (engine.h), so
 * an application posts while the progress thread runs a round, and only posters of the
 * same queue wait for each other (ibv_post_send(3) may be called from several threads). */
int uv_send_chain(struct uv_qp *qp, const struct uroce_send_wr *wr)
{
	const struct uroce_send_wr *bad;
	int err;

	pthread_mutex_lock(&qp->send_lock);
	err = uroce_post_send(qp->eng, wr, &bad);
	pthread_mutex_unlock(&qp->send_lock);
	uv_port_posted(port_of(qp->ex.qp_base.context));
	return uv_fail(uv_errno(err));
}

int uv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct uv_qp *qp = to_uv_qp(ibqp);
	const struct uroce_send_wr *bad;
	struct uroce_send_wr e;
	int err = 0;

	pthread_mutex_lock(&qp->send_lock);
	for (; wr; wr = wr->next) {
		send_wr_to_engine(wr, &e);
		if (ibqp->qp_type == IBV_QPT_UD) {
			e.wr.ud.ah = wr->wr.ud.ah ? ((struct uv_ah *)wr->wr.ud.ah)->eng : NULL;
			e.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			e.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		}
		if ((err = uroce_post_send(qp->eng, &e, &bad))) {
			*bad_wr = wr;
			break;
		}
	}
	pthread_mutex_unlock(&qp->send_lock);
	uv_port_posted(port_of(ibqp->context));
	return uv_fail(uv_errno(err));
}

static int post_recv_chain(struct uv_port *port, pthread_mutex_t *lock, struct uroce_qp *qp,
			   struct uroce_srq *srq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	const struct uroce_recv_wr *bad;
	struct uroce_recv_wr e;
	int err = 0;

	pthread_mutex_lock(lock);
	for (; wr; wr = wr->next) {
		e.wr_id = wr->wr_id;
		e.next = NULL;
		e.sg_list = (struct uroce_sge *)wr->sg_list;
		e.num_sge = wr->num_sge;
		err = qp ? uroce_post_recv(qp, &e, &bad) : uroce_post_srq_recv(srq, &e, &bad);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	pthread_mutex_unlock(lock);
	/* In ERR the next round flushes them. */
	uv_port_posted(port);
	return uv_fail(uv_errno(err));
}

int uv_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct uv_qp *qp = to_uv_qp(ibqp);

	return post_recv_chain(port_of(ibqp->context), &qp->recv_lock, qp->eng, NULL, wr,
			       bad_wr);
}

int uv_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct uv_srq *srq = (struct uv_srq *)ibsrq;

	return post_recv_chain(port_of(ibsrq->context), &srq->post_lock, NULL, srq->eng, wr,
			       bad_wr);
}

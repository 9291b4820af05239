/* SPDX-License-Identifier: MIT */
/* The IBVERBS_1.0 ABI: the versions of 33 functions that programs linked against libibverbs
 * 1.0 (2006) bind to, e.g. ibv_create_qp@IBVERBS_1.0 beside the default ibv_create_qp@@1.1.
 *
 * In 1.0 every object a program saw was a structure of its own, shorter than today's and
 * laid out differently (rdma-core 44 keeps them in libibverbs/compat-1_0.c; the layouts
 * below are that ABI). rdma-core serves 1.0 programs by wrapping: each 1.0 object is a small
 * structure that points at the real object, and the 1.0 context's ops table holds the five
 * entry points old programs call inline (poll_cq, req_notify_cq, post_send, post_recv,
 * post_srq_recv), which translate and call the real ones. uroce does the same, so an old
 * program works rather than failing: the wrapping is small and every 1.0 call maps onto a
 * current one.
 *
 * The real objects point back at their wrappers through their user context fields
 * (cq_context, qp_context, srq_context), as rdma-core's do: ibv_get_cq_event and the
 * asynchronous events hand the program its own 1.0 objects, and the program's own context
 * values stay in the wrappers. A completion channel, which 1.0 creates from the 1.0 context
 * through the one ibv_create_comp_channel, is moved to the real context when a 1.0 CQ is
 * created on it.
 *
 * Differences from rdma-core's wrappers, where those would misbehave: a QP without an SRQ
 * can be queried; a failed allocation sets errno; a chain of work requests is translated
 * and posted one request at a time (rdma-core copies the whole chain onto the stack), with
 * the same result and the same bad_wr. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

#undef ibv_reg_mr
#undef ibv_query_port

/* ---- The 1.0 structures ---- */

struct ibv_context_1_0;
struct ibv_cq_1_0;
struct ibv_qp_1_0;
struct ibv_srq_1_0;
struct ibv_ah_1_0;

struct ibv_device_1_0 {
	void *obsolete_sysfs_dev;
	void *obsolete_sysfs_ibdev;
	struct ibv_device *real_device; /* 1.0's driver pointer */
	struct _ibv_device_ops _ops;
};

struct ibv_pd_1_0 {
	struct ibv_context_1_0 *context;
	uint32_t handle;
	struct ibv_pd *real_pd;
};

struct ibv_mr_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	struct ibv_mr *real_mr;
};

struct ibv_srq_1_0 {
	struct ibv_context_1_0 *context;
	void *srq_context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	struct ibv_srq *real_srq;
};

struct ibv_qp_init_attr_1_0 {
	void *qp_context;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;
};

struct ibv_send_wr_1_0 {
	struct ibv_send_wr_1_0 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
	enum ibv_wr_opcode opcode;
	int send_flags;
	__be32 imm_data;
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct ibv_ah_1_0 *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
};

struct ibv_recv_wr_1_0 {
	struct ibv_recv_wr_1_0 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
};

struct ibv_qp_1_0 {
	struct ibv_context_1_0 *context;
	void *qp_context;
	struct ibv_pd_1_0 *pd;
	struct ibv_cq_1_0 *send_cq;
	struct ibv_cq_1_0 *recv_cq;
	struct ibv_srq_1_0 *srq;
	uint32_t handle;
	uint32_t qp_num;
	enum ibv_qp_state state;
	enum ibv_qp_type qp_type;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	struct ibv_qp *real_qp;
};

struct ibv_cq_1_0 {
	struct ibv_context_1_0 *context;
	void *cq_context;
	uint32_t handle;
	int cqe;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;
	struct ibv_cq *real_cq;
};

struct ibv_ah_1_0 {
	struct ibv_context_1_0 *context;
	struct ibv_pd_1_0 *pd;
	uint32_t handle;
	struct ibv_ah *real_ah;
};

/* 1.0's ops table: 27 entry points. Old programs' inline calls go through the five named
 * here; the others were called by libibverbs itself, and stay NULL. */
struct ibv_context_ops_1_0 {
	void *unused_0[7]; /* query_device .. create_cq */
	int (*poll_cq)(struct ibv_cq_1_0 *cq, int num_entries, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq_1_0 *cq, int solicited_only);
	void *unused_9[7]; /* cq_event .. destroy_srq */
	int (*post_srq_recv)(struct ibv_srq_1_0 *srq, struct ibv_recv_wr_1_0 *wr,
			     struct ibv_recv_wr_1_0 **bad_wr);
	void *unused_17[4]; /* create_qp .. destroy_qp */
	int (*post_send)(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			 struct ibv_send_wr_1_0 **bad_wr);
	int (*post_recv)(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			 struct ibv_recv_wr_1_0 **bad_wr);
	void *unused_23[4]; /* create_ah .. detach_mcast */
};
static_assert(sizeof(struct ibv_context_ops_1_0) == 27 * sizeof(void *) &&
		      offsetof(struct ibv_context_ops_1_0, poll_cq) == 7 * sizeof(void *) &&
		      offsetof(struct ibv_context_ops_1_0, post_srq_recv) == 16 * sizeof(void *) &&
		      offsetof(struct ibv_context_ops_1_0, post_send) == 21 * sizeof(void *),
	      "the 1.0 ops table has its 27 slots");

struct ibv_context_1_0 {
	struct ibv_device_1_0 *device;
	struct ibv_context_ops_1_0 ops;
	int cmd_fd;
	int async_fd;
	int num_comp_vectors;
	struct ibv_context *real_context; /* 1.0's abi_compat pointer */
};

/* Each 1.0 function is defined under a local name and exported as name@IBVERBS_1.0; the
 * default name@@IBVERBS_1.1 is the current function (libibverbs.map). */
#define V1_0(local, name) __asm__(".symver " #local ", " #name "@IBVERBS_1.0")

static void *alloc_or_errno(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		errno = ENOMEM;
	return p;
}

/* ---- Devices and contexts ---- */

/* One block: the real list, then the NULL-terminated array of 1.0 pointers the program
 * gets, then the 1.0 device structures they point at. */
struct list_1_0 {
	struct ibv_device **real;
	struct ibv_device_1_0 *devs[];
};

struct ibv_device_1_0 **uv_get_device_list_1_0(int *num);
struct ibv_device_1_0 **uv_get_device_list_1_0(int *num)
{
	struct ibv_device **real;
	struct list_1_0 *l;
	struct ibv_device_1_0 *devs;
	int n;

	if (!(real = ibv_get_device_list(&n)))
		return NULL;
	l = alloc_or_errno(sizeof(*l) + (size_t)(n + 1) * sizeof(l->devs[0]) +
			   (size_t)n * sizeof(*devs));
	if (!l) {
		ibv_free_device_list(real);
		return NULL;
	}
	l->real = real;
	devs = (struct ibv_device_1_0 *)&l->devs[n + 1];
	for (int i = 0; i < n; i++) {
		devs[i].real_device = real[i];
		l->devs[i] = &devs[i];
	}
	if (num)
		*num = n;
	return l->devs;
}
V1_0(uv_get_device_list_1_0, ibv_get_device_list);

void uv_free_device_list_1_0(struct ibv_device_1_0 **list);
void uv_free_device_list_1_0(struct ibv_device_1_0 **list)
{
	struct list_1_0 *l = (struct list_1_0 *)((char *)list - offsetof(struct list_1_0, devs));

	ibv_free_device_list(l->real);
	free(l);
}
V1_0(uv_free_device_list_1_0, ibv_free_device_list);

const char *uv_get_device_name_1_0(struct ibv_device_1_0 *device);
const char *uv_get_device_name_1_0(struct ibv_device_1_0 *device)
{
	return ibv_get_device_name(device->real_device);
}
V1_0(uv_get_device_name_1_0, ibv_get_device_name);

__be64 uv_get_device_guid_1_0(struct ibv_device_1_0 *device);
__be64 uv_get_device_guid_1_0(struct ibv_device_1_0 *device)
{
	return ibv_get_device_guid(device->real_device);
}
V1_0(uv_get_device_guid_1_0, ibv_get_device_guid);

/* The inline entry points of 1.0 programs. */
static int poll_cq_1_0(struct ibv_cq_1_0 *cq, int num_entries, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq->real_cq, num_entries, wc);
}

static int req_notify_cq_1_0(struct ibv_cq_1_0 *cq, int solicited_only)
{
	return ibv_req_notify_cq(cq->real_cq, solicited_only);
}

static int post_send_1_0(struct ibv_qp_1_0 *qp, struct ibv_send_wr_1_0 *wr,
			 struct ibv_send_wr_1_0 **bad_wr)
{
	for (; wr; wr = wr->next) {
		struct ibv_send_wr w, *bad;
		int err;

		memset(&w, 0, sizeof(w));
		w.wr_id = wr->wr_id;
		w.sg_list = wr->sg_list;
		w.num_sge = wr->num_sge;
		w.opcode = wr->opcode;
		w.send_flags = (unsigned int)wr->send_flags;
		w.imm_data = wr->imm_data;
		if (qp->qp_type == IBV_QPT_UD) {
			w.wr.ud.ah = wr->wr.ud.ah ? wr->wr.ud.ah->real_ah : NULL;
			w.wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
			w.wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		} else if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			   wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			w.wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
			w.wr.atomic.compare_add = wr->wr.atomic.compare_add;
			w.wr.atomic.swap = wr->wr.atomic.swap;
			w.wr.atomic.rkey = wr->wr.atomic.rkey;
		} else {
			w.wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
			w.wr.rdma.rkey = wr->wr.rdma.rkey;
		}
		if ((err = ibv_post_send(qp->real_qp, &w, &bad))) {
			*bad_wr = wr;
			return err;
		}
	}
	return 0;
}

/* One receive request of a 1.0 chain, posted through post (ibv_post_recv or
 * ibv_post_srq_recv on the real object). */
static void recv_wr_from_1_0(const struct ibv_recv_wr_1_0 *in, struct ibv_recv_wr *out)
{
	memset(out, 0, sizeof(*out));
	out->wr_id = in->wr_id;
	out->sg_list = in->sg_list;
	out->num_sge = in->num_sge;
}

static int post_recv_1_0(struct ibv_qp_1_0 *qp, struct ibv_recv_wr_1_0 *wr,
			 struct ibv_recv_wr_1_0 **bad_wr)
{
	for (; wr; wr = wr->next) {
		struct ibv_recv_wr w, *bad;
		int err;

		recv_wr_from_1_0(wr, &w);
		if ((err = ibv_post_recv(qp->real_qp, &w, &bad))) {
			*bad_wr = wr;
			return err;
		}
	}
	return 0;
}

static int post_srq_recv_1_0(struct ibv_srq_1_0 *srq, struct ibv_recv_wr_1_0 *wr,
			     struct ibv_recv_wr_1_0 **bad_wr)
{
	for (; wr; wr = wr->next) {
		struct ibv_recv_wr w, *bad;
		int err;

		recv_wr_from_1_0(wr, &w);
		if ((err = ibv_post_srq_recv(srq->real_srq, &w, &bad))) {
			*bad_wr = wr;
			return err;
		}
	}
	return 0;
}

struct ibv_context_1_0 *uv_open_device_1_0(struct ibv_device_1_0 *device);
struct ibv_context_1_0 *uv_open_device_1_0(struct ibv_device_1_0 *device)
{
	struct ibv_context_1_0 *ctx = alloc_or_errno(sizeof(*ctx));

	if (!ctx)
		return NULL;
	if (!(ctx->real_context = ibv_open_device(device->real_device))) {
		free(ctx);
		return NULL;
	}
	ctx->device = device;
	ctx->cmd_fd = ctx->real_context->cmd_fd;
	ctx->async_fd = ctx->real_context->async_fd;
	ctx->num_comp_vectors = ctx->real_context->num_comp_vectors;
	ctx->ops.poll_cq = poll_cq_1_0;
	ctx->ops.req_notify_cq = req_notify_cq_1_0;
	ctx->ops.post_send = post_send_1_0;
	ctx->ops.post_recv = post_recv_1_0;
	ctx->ops.post_srq_recv = post_srq_recv_1_0;
	return ctx;
}
V1_0(uv_open_device_1_0, ibv_open_device);

int uv_close_device_1_0(struct ibv_context_1_0 *ctx);
int uv_close_device_1_0(struct ibv_context_1_0 *ctx)
{
	int err = ibv_close_device(ctx->real_context);

	if (!err)
		free(ctx);
	return err;
}
V1_0(uv_close_device_1_0, ibv_close_device);

/* ---- Asynchronous events: the program sees its 1.0 objects ---- */

int uv_get_async_event_1_0(struct ibv_context_1_0 *ctx, struct ibv_async_event *event);
int uv_get_async_event_1_0(struct ibv_context_1_0 *ctx, struct ibv_async_event *event)
{
	int err = ibv_get_async_event(ctx->real_context, event);

	if (err)
		return err;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = event->element.cq->cq_context;
		break;
	case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST: case IBV_EVENT_SQ_DRAINED: case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR: case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = event->element.qp->qp_context;
		break;
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = event->element.srq->srq_context;
		break;
	default:
		break;
	}
	return 0;
}
V1_0(uv_get_async_event_1_0, ibv_get_async_event);

void uv_ack_async_event_1_0(struct ibv_async_event *event);
void uv_ack_async_event_1_0(struct ibv_async_event *event)
{
	struct ibv_async_event real = *event;

	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		real.element.cq = ((struct ibv_cq_1_0 *)(void *)event->element.cq)->real_cq;
		break;
	case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST: case IBV_EVENT_SQ_DRAINED: case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR: case IBV_EVENT_QP_LAST_WQE_REACHED:
		real.element.qp = ((struct ibv_qp_1_0 *)(void *)event->element.qp)->real_qp;
		break;
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED:
		real.element.srq = ((struct ibv_srq_1_0 *)(void *)event->element.srq)->real_srq;
		break;
	default:
		break;
	}
	ibv_ack_async_event(&real);
}
V1_0(uv_ack_async_event_1_0, ibv_ack_async_event);

/* ---- Queries ---- */

int uv_query_device_1_0(struct ibv_context_1_0 *ctx, struct ibv_device_attr *attr);
int uv_query_device_1_0(struct ibv_context_1_0 *ctx, struct ibv_device_attr *attr)
{
	return ibv_query_device(ctx->real_context, attr);
}
V1_0(uv_query_device_1_0, ibv_query_device);

/* 1.0's port attributes end where the compat structure of ibv_query_port@@1.1 ends. */
int uv_query_port_1_0(struct ibv_context_1_0 *ctx, uint8_t port,
		      struct _compat_ibv_port_attr *attr);
int uv_query_port_1_0(struct ibv_context_1_0 *ctx, uint8_t port,
		      struct _compat_ibv_port_attr *attr)
{
	return ibv_query_port(ctx->real_context, port, attr);
}
V1_0(uv_query_port_1_0, ibv_query_port);

int uv_query_gid_1_0(struct ibv_context_1_0 *ctx, uint8_t port, int index, union ibv_gid *gid);
int uv_query_gid_1_0(struct ibv_context_1_0 *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	return ibv_query_gid(ctx->real_context, port, index, gid);
}
V1_0(uv_query_gid_1_0, ibv_query_gid);

int uv_query_pkey_1_0(struct ibv_context_1_0 *ctx, uint8_t port, int index, __be16 *pkey);
int uv_query_pkey_1_0(struct ibv_context_1_0 *ctx, uint8_t port, int index, __be16 *pkey)
{
	return ibv_query_pkey(ctx->real_context, port, index, pkey);
}
V1_0(uv_query_pkey_1_0, ibv_query_pkey);

/* ---- PDs, MRs, AHs ---- */

struct ibv_pd_1_0 *uv_alloc_pd_1_0(struct ibv_context_1_0 *ctx);
struct ibv_pd_1_0 *uv_alloc_pd_1_0(struct ibv_context_1_0 *ctx)
{
	struct ibv_pd_1_0 *pd = alloc_or_errno(sizeof(*pd));

	if (!pd)
		return NULL;
	if (!(pd->real_pd = ibv_alloc_pd(ctx->real_context))) {
		free(pd);
		return NULL;
	}
	pd->context = ctx;
	pd->handle = pd->real_pd->handle;
	return pd;
}
V1_0(uv_alloc_pd_1_0, ibv_alloc_pd);

int uv_dealloc_pd_1_0(struct ibv_pd_1_0 *pd);
int uv_dealloc_pd_1_0(struct ibv_pd_1_0 *pd)
{
	int err = ibv_dealloc_pd(pd->real_pd);

	if (!err)
		free(pd);
	return err;
}
V1_0(uv_dealloc_pd_1_0, ibv_dealloc_pd);

struct ibv_mr_1_0 *uv_reg_mr_1_0(struct ibv_pd_1_0 *pd, void *addr, size_t length, int access);
struct ibv_mr_1_0 *uv_reg_mr_1_0(struct ibv_pd_1_0 *pd, void *addr, size_t length, int access)
{
	struct ibv_mr_1_0 *mr = alloc_or_errno(sizeof(*mr));

	if (!mr)
		return NULL;
	if (!(mr->real_mr = ibv_reg_mr(pd->real_pd, addr, length, access))) {
		free(mr);
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->handle = mr->real_mr->handle;
	mr->lkey = mr->real_mr->lkey;
	mr->rkey = mr->real_mr->rkey;
	return mr;
}
V1_0(uv_reg_mr_1_0, ibv_reg_mr);

int uv_dereg_mr_1_0(struct ibv_mr_1_0 *mr);
int uv_dereg_mr_1_0(struct ibv_mr_1_0 *mr)
{
	int err = ibv_dereg_mr(mr->real_mr);

	if (!err)
		free(mr);
	return err;
}
V1_0(uv_dereg_mr_1_0, ibv_dereg_mr);

struct ibv_ah_1_0 *uv_create_ah_1_0(struct ibv_pd_1_0 *pd, struct ibv_ah_attr *attr);
struct ibv_ah_1_0 *uv_create_ah_1_0(struct ibv_pd_1_0 *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah_1_0 *ah = alloc_or_errno(sizeof(*ah));

	if (!ah)
		return NULL;
	if (!(ah->real_ah = ibv_create_ah(pd->real_pd, attr))) {
		free(ah);
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	ah->handle = ah->real_ah->handle;
	return ah;
}
V1_0(uv_create_ah_1_0, ibv_create_ah);

int uv_destroy_ah_1_0(struct ibv_ah_1_0 *ah);
int uv_destroy_ah_1_0(struct ibv_ah_1_0 *ah)
{
	int err = ibv_destroy_ah(ah->real_ah);

	if (!err)
		free(ah);
	return err;
}
V1_0(uv_destroy_ah_1_0, ibv_destroy_ah);

/* ---- CQs ---- */

struct ibv_cq_1_0 *uv_create_cq_1_0(struct ibv_context_1_0 *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_1_0 *uv_create_cq_1_0(struct ibv_context_1_0 *ctx, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq_1_0 *cq = alloc_or_errno(sizeof(*cq));

	if (!cq)
		return NULL;
	/* A 1.0 program made the channel with its 1.0 context. */
	if (channel && channel->context == (struct ibv_context *)(void *)ctx)
		channel->context = ctx->real_context;
	/* The real CQ's context value is the wrapper (ibv_get_cq_event_1_0), whose own holds
	 * the program's. */
	cq->real_cq = ibv_create_cq(ctx->real_context, cqe, cq, channel, comp_vector);
	if (!cq->real_cq) {
		free(cq);
		return NULL;
	}
	cq->context = ctx;
	cq->cq_context = cq_context;
	cq->handle = cq->real_cq->handle;
	cq->cqe = cq->real_cq->cqe;
	return cq;
}
V1_0(uv_create_cq_1_0, ibv_create_cq);

int uv_resize_cq_1_0(struct ibv_cq_1_0 *cq, int cqe);
int uv_resize_cq_1_0(struct ibv_cq_1_0 *cq, int cqe)
{
	return ibv_resize_cq(cq->real_cq, cqe);
}
V1_0(uv_resize_cq_1_0, ibv_resize_cq);

int uv_destroy_cq_1_0(struct ibv_cq_1_0 *cq);
int uv_destroy_cq_1_0(struct ibv_cq_1_0 *cq)
{
	int err = ibv_destroy_cq(cq->real_cq);

	if (!err)
		free(cq);
	return err;
}
V1_0(uv_destroy_cq_1_0, ibv_destroy_cq);

int uv_get_cq_event_1_0(struct ibv_comp_channel *channel, struct ibv_cq_1_0 **cq,
			void **cq_context);
int uv_get_cq_event_1_0(struct ibv_comp_channel *channel, struct ibv_cq_1_0 **cq,
			void **cq_context)
{
	struct ibv_cq *real;
	void *wrapper;
	int err = ibv_get_cq_event(channel, &real, &wrapper);

	if (err)
		return err;
	*cq = wrapper;
	*cq_context = (*cq)->cq_context;
	return 0;
}
V1_0(uv_get_cq_event_1_0, ibv_get_cq_event);

void uv_ack_cq_events_1_0(struct ibv_cq_1_0 *cq, unsigned int nevents);
void uv_ack_cq_events_1_0(struct ibv_cq_1_0 *cq, unsigned int nevents)
{
	ibv_ack_cq_events(cq->real_cq, nevents);
}
V1_0(uv_ack_cq_events_1_0, ibv_ack_cq_events);

/* ---- SRQs ---- */

struct ibv_srq_1_0 *uv_create_srq_1_0(struct ibv_pd_1_0 *pd, struct ibv_srq_init_attr *attr);
struct ibv_srq_1_0 *uv_create_srq_1_0(struct ibv_pd_1_0 *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_1_0 *srq = alloc_or_errno(sizeof(*srq));
	struct ibv_srq_init_attr a = *attr;

	if (!srq)
		return NULL;
	a.srq_context = srq;
	if (!(srq->real_srq = ibv_create_srq(pd->real_pd, &a))) {
		free(srq);
		return NULL;
	}
	attr->attr = a.attr;
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	srq->handle = srq->real_srq->handle;
	return srq;
}
V1_0(uv_create_srq_1_0, ibv_create_srq);

int uv_modify_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr, int mask);
int uv_modify_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr, int mask)
{
	return ibv_modify_srq(srq->real_srq, attr, mask);
}
V1_0(uv_modify_srq_1_0, ibv_modify_srq);

int uv_query_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr);
int uv_query_srq_1_0(struct ibv_srq_1_0 *srq, struct ibv_srq_attr *attr)
{
	return ibv_query_srq(srq->real_srq, attr);
}
V1_0(uv_query_srq_1_0, ibv_query_srq);

int uv_destroy_srq_1_0(struct ibv_srq_1_0 *srq);
int uv_destroy_srq_1_0(struct ibv_srq_1_0 *srq)
{
	int err = ibv_destroy_srq(srq->real_srq);

	if (!err)
		free(srq);
	return err;
}
V1_0(uv_destroy_srq_1_0, ibv_destroy_srq);

/* ---- QPs ---- */

struct ibv_qp_1_0 *uv_create_qp_1_0(struct ibv_pd_1_0 *pd, struct ibv_qp_init_attr_1_0 *attr);
struct ibv_qp_1_0 *uv_create_qp_1_0(struct ibv_pd_1_0 *pd, struct ibv_qp_init_attr_1_0 *attr)
{
	struct ibv_qp_1_0 *qp = alloc_or_errno(sizeof(*qp));
	struct ibv_qp_init_attr a;

	if (!qp)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.qp_context = qp; /* as the CQ's: the program's value stays in the wrapper */
	a.send_cq = attr->send_cq ? attr->send_cq->real_cq : NULL;
	a.recv_cq = attr->recv_cq ? attr->recv_cq->real_cq : NULL;
	a.srq = attr->srq ? attr->srq->real_srq : NULL;
	a.cap = attr->cap;
	a.qp_type = attr->qp_type;
	a.sq_sig_all = attr->sq_sig_all;
	if (!(qp->real_qp = ibv_create_qp(pd->real_pd, &a))) {
		free(qp);
		return NULL;
	}
	attr->cap = a.cap;
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->handle = qp->real_qp->handle;
	qp->qp_num = qp->real_qp->qp_num;
	qp->state = qp->real_qp->state;
	qp->qp_type = attr->qp_type;
	return qp;
}
V1_0(uv_create_qp_1_0, ibv_create_qp);

int uv_query_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int mask,
		    struct ibv_qp_init_attr_1_0 *init);
int uv_query_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int mask,
		    struct ibv_qp_init_attr_1_0 *init)
{
	struct ibv_qp_init_attr real;
	int err = ibv_query_qp(qp->real_qp, attr, mask, &real);

	if (err)
		return err;
	init->qp_context = qp->qp_context;
	init->send_cq = qp->send_cq;
	init->recv_cq = qp->recv_cq;
	init->srq = qp->srq;
	init->cap = real.cap;
	init->qp_type = real.qp_type;
	init->sq_sig_all = real.sq_sig_all;
	return 0;
}
V1_0(uv_query_qp_1_0, ibv_query_qp);

int uv_modify_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int mask);
int uv_modify_qp_1_0(struct ibv_qp_1_0 *qp, struct ibv_qp_attr *attr, int mask)
{
	int err = ibv_modify_qp(qp->real_qp, attr, mask);

	if (!err)
		qp->state = qp->real_qp->state;
	return err;
}
V1_0(uv_modify_qp_1_0, ibv_modify_qp);

int uv_destroy_qp_1_0(struct ibv_qp_1_0 *qp);
int uv_destroy_qp_1_0(struct ibv_qp_1_0 *qp)
{
	int err = ibv_destroy_qp(qp->real_qp);

	if (!err)
		free(qp);
	return err;
}
V1_0(uv_destroy_qp_1_0, ibv_destroy_qp);

int uv_attach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid);
int uv_attach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid)
{
	return ibv_attach_mcast(qp->real_qp, gid, lid);
}
V1_0(uv_attach_mcast_1_0, ibv_attach_mcast);

int uv_detach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid);
int uv_detach_mcast_1_0(struct ibv_qp_1_0 *qp, union ibv_gid *gid, uint16_t lid)
{
	return ibv_detach_mcast(qp->real_qp, gid, lid);
}
V1_0(uv_detach_mcast_1_0, ibv_detach_mcast);

/* SPDX-License-Identifier: MIT */
#include "rq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

int rq_init(struct rq *rq, uint32_t max_wr, uint32_t max_sge, const struct uroce_mem *mem,
	    enum uroce_mem_use use)
{
	memset(rq, 0, sizeof(*rq));
	if (max_wr > UROCE_MAX_WR || max_sge > UROCE_MAX_SGE)
		return UROCE_EINVAL;
	if (!max_sge)
		max_sge = 1;
	rq->size = pow2_at_least(max_wr ? max_wr : 1);
	rq->max_wr = max_wr;
	rq->max_sge = max_sge;
	/* One block: the WQEs, then their SGEs (struct rwqe's size keeps them aligned). */
	size_t wqe_bytes = (size_t)rq->size * sizeof(*rq->wqe);
	uint8_t *block = queue_mem_alloc(mem, wqe_bytes + (size_t)rq->size * max_sge *
							      sizeof(*rq->sge),
					 use, &rq->mem_custom);
	if (!block)
		return UROCE_ENOMEM;
	rq->wqe = (struct rwqe *)block;
	rq->sge = (struct uroce_sge *)(block + wqe_bytes);
	for (uint32_t i = 0; i < rq->size; i++)
		rq->wqe[i].sge = &rq->sge[(size_t)i * max_sge];
	return 0;
}

void rq_fini(struct rq *rq, const struct uroce_dev *dev, const struct uroce_mem *mem,
	     enum uroce_mem_use use)
{
	queue_mem_free(dev, mem, rq->wqe, use, rq->mem_custom);
	rq->wqe = NULL;
	rq->sge = NULL;
}

int rq_post(struct rq *rq, const struct uroce_recv_wr *wr, const struct uroce_recv_wr **bad_wr)
{
	/* Relaxed: the poster's own index. Acquire on tail: the engine has read the slots it
	 * gave back (its release) before they are written again. */
	const uint32_t first = atomic_load_explicit(&rq->head, memory_order_relaxed);
	uint32_t head = first;
	int err = 0;

	for (; wr; wr = wr->next) {
		uint32_t used = head - atomic_load_explicit(&rq->tail, memory_order_acquire);

		assert(used <= rq->max_wr);
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			err = UROCE_EINVAL;
		} else if (used == rq->max_wr) {
			err = UROCE_EFULL;
		}
		if (err) {
			*bad_wr = wr;
			break;
		}
		struct rwqe *w = &rq->wqe[head & (rq->size - 1)];
		w->wr_id = wr->wr_id;
		w->nsge = (uint32_t)wr->num_sge;
		w->len = 0;
		for (uint32_t i = 0; i < w->nsge; i++) {
			w->sge[i] = wr->sg_list[i];
			w->len += wr->sg_list[i].length;
		}
		head++;
	}
	/* Once for the chain. Release would publish the slots; seq_cst also makes this store
	 * half of the handshake with a move to ERR (uroce_post_recv, and flush_rq in qp.c). An
	 * SRQ's posters need only the release, and pay the same single store. */
	if (head != first)
		atomic_store_explicit(&rq->head, head, memory_order_seq_cst);
	return err;
}

bool rq_take(struct rq *rq, struct rwqe *out)
{
	uint32_t tail = atomic_load_explicit(&rq->tail, memory_order_relaxed);
	uint32_t head = atomic_load_explicit(&rq->head, memory_order_acquire);

	assert(head - tail <= rq->max_wr);
	if (head == tail)
		return false;
	const struct rwqe *w = &rq->wqe[tail & (rq->size - 1)];
	out->wr_id = w->wr_id;
	out->nsge = w->nsge;
	out->len = w->len;
	memcpy(out->sge, w->sge, w->nsge * sizeof(*w->sge));
	atomic_store_explicit(&rq->tail, tail + 1, memory_order_release);
	return true;
}

bool qp_take_rwqe(struct uroce_qp *qp, struct rwqe *out)
{
	struct uroce_srq *srq = qp->srq;

	if (!srq)
		return rq_take(&qp->rq, out);
	if (!rq_take(&srq->rq, out))
		return false;
	/* IBA 10.2.9.5: when an armed SRQ falls below its limit, the event fires once and the
	 * limit disarms until the consumer sets it again. */
	if (srq->limit && rq_count(&srq->rq) < srq->limit) {
		srq->limit = 0;
		dev_event(qp->dev, UROCE_EVENT_SRQ_LIMIT_REACHED, srq);
	}
	return true;
}

/* ---- shared receive queues ---- */

int uroce_srq_create(struct uroce_pd *pd, const struct uroce_srq_attr *attr,
		     struct uroce_srq **out)
{
	struct uroce_srq *srq;
	int err;

	if (!attr->max_wr || attr->srq_limit > attr->max_wr)
		return UROCE_EINVAL;
	if (!(srq = calloc(1, sizeof(*srq))))
		return UROCE_ENOMEM;
	if (attr->mem)
		srq->mem = *attr->mem;
	if ((err = rq_init(&srq->rq, attr->max_wr, attr->max_sge, &srq->mem, UROCE_MEM_SRQ)) < 0) {
		free(srq);
		return err;
	}
	srq->pd = pd;
	srq->limit = attr->srq_limit;
	pd->refs++;
	dev_obj_add(pd->dev, &srq->obj, OBJ_SRQ);
	*out = srq;
	return 0;
}

void srq_release(struct uroce_srq *srq)
{
	srq->pd->refs--;
	dev_obj_del(&srq->obj);
	rq_fini(&srq->rq, srq->pd->dev, &srq->mem, UROCE_MEM_SRQ);
	free(srq);
}

int uroce_srq_destroy(struct uroce_srq *srq)
{
	if (srq->refs)
		return UROCE_EBUSY;
	dev_forget_events(srq->pd->dev, srq);
	srq_release(srq);
	return 0;
}

int uroce_srq_modify(struct uroce_srq *srq, const struct uroce_srq_attr *attr, unsigned mask)
{
	if (mask != UROCE_SRQ_LIMIT || attr->srq_limit > srq->rq.max_wr)
		return UROCE_EINVAL;
	srq->limit = attr->srq_limit;
	return 0;
}

void uroce_srq_set_user(struct uroce_srq *srq, void *user) { srq->user = user; }
void *uroce_srq_user(const struct uroce_srq *srq) { return srq->user; }

void uroce_srq_query(const struct uroce_srq *srq, struct uroce_srq_attr *attr)
{
	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
}

int uroce_post_srq_recv(struct uroce_srq *srq, const struct uroce_recv_wr *wr,
			const struct uroce_recv_wr **bad_wr)
{
	return rq_post(&srq->rq, wr, bad_wr);
}

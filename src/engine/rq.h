/* SPDX-License-Identifier: MIT */
/* Receive queues: the ring of receive WQEs that a QP owns or shares through an SRQ
 * (IBA 10.2.9 shared receive queues, with the limit event of 10.2.9.5). */
#ifndef UROCE_ENGINE_RQ_H
#define UROCE_ENGINE_RQ_H

#include <stdbool.h>
#include <stdint.h>

#include "priv.h"

/* UROCE_EINVAL (max_wr above UROCE_MAX_WR, max_sge above UROCE_MAX_SGE), UROCE_ENOMEM.
 * max_wr 0 makes a queue that accepts nothing (a send-only QP). The ring is one block from
 * mem (queue_mem_alloc), for use. */
int rq_init(struct rq *rq, uint32_t max_wr, uint32_t max_sge, const struct uroce_mem *mem,
	    enum uroce_mem_use use);
/* Gives the ring back to where rq_init took it from. */
void rq_fini(struct rq *rq, const struct uroce_dev *dev, const struct uroce_mem *mem,
	     enum uroce_mem_use use);
/* Posts a chain; see uroce_post_recv for the codes. The poster's side of the ring: may run
 * on another thread than the engine, one poster at a time. */
int rq_post(struct rq *rq, const struct uroce_recv_wr *wr, const struct uroce_recv_wr **bad_wr);
/* WQEs posted and not taken, as the engine sees them: head with acquire (rq_post's
 * store), tail its own. */
static inline uint32_t rq_count(const struct rq *rq)
{
	return atomic_load_explicit(&rq->head, memory_order_acquire) -
	       atomic_load_explicit(&rq->tail, memory_order_relaxed);
}
/* Empties the queue without completions, at RESET, when nobody posts (qp_reset). */
static inline void rq_clear(struct rq *rq)
{
	atomic_store_explicit(&rq->tail, atomic_load_explicit(&rq->head, memory_order_relaxed),
			      memory_order_relaxed);
}
/* Moves the oldest WQE into *out (out->sge must have max_sge entries); false when empty. */
bool rq_take(struct rq *rq, struct rwqe *out);
/* Takes the next receive WQE of a QP, from its SRQ or its own queue. */
bool qp_take_rwqe(struct uroce_qp *qp, struct rwqe *out);
/* Frees the SRQ whatever uses it. */
void srq_release(struct uroce_srq *srq);

#endif

/* SPDX-License-Identifier: MIT */
#include "cq.h"

#include <assert.h>
#include <stdlib.h>

#include "common/error.h"
#include "qp.h"

int uroce_cq_create(struct uroce_dev *dev, uint32_t depth, struct uroce_cq **out)
{
	struct uroce_cq *cq;

	if (!depth || depth > UROCE_MAX_CQE)
		return UROCE_EINVAL;
	if (!(cq = calloc(1, sizeof(*cq))))
		return UROCE_ENOMEM;
	cq->size = pow2_at_least(depth);
	cq->ring = calloc(cq->size, sizeof(*cq->ring));
	cq->due = calloc(cq->size, sizeof(*cq->due));
	if (!cq->ring || !cq->due) {
		free(cq->ring);
		free(cq->due);
		free(cq);
		return UROCE_ENOMEM;
	}
	cq->dev = dev;
	cq->depth = depth;
	dev_obj_add(dev, &cq->obj, OBJ_CQ);
	*out = cq;
	return 0;
}

void cq_release(struct uroce_cq *cq)
{
	struct uroce_cq **pp = &cq->dev->publishing;

	while (*pp && *pp != cq)
		pp = &(*pp)->publish_next;
	if (*pp)
		*pp = cq->publish_next;
	dev_obj_del(&cq->obj);
	free(cq->ring);
	free(cq->due);
	free(cq);
}

int uroce_cq_destroy(struct uroce_cq *cq)
{
	if (cq->refs)
		return UROCE_EBUSY;
	dev_forget_events(cq->dev, cq);
	cq_release(cq);
	return 0;
}

int uroce_cq_resize(struct uroce_cq *cq, uint32_t depth)
{
	uint32_t head = atomic_load_explicit(&cq->head, memory_order_relaxed);
	uint32_t size, old_mask = cq->size - 1, mask;
	struct uroce_wc *ring;
	uint32_t *due;

	if (!depth || depth > UROCE_MAX_CQE || depth < cq->staged - head)
		return UROCE_EINVAL;
	size = pow2_at_least(depth);
	mask = size - 1;
	ring = calloc(size, sizeof(*ring));
	due = calloc(size, sizeof(*due));
	if (!ring || !due) {
		free(ring);
		free(due);
		return UROCE_ENOMEM;
	}
	/* Each entry keeps its free-running index: head, tail and staged stay as they are. */
	for (uint32_t i = head; i != cq->staged; i++) {
		ring[i & mask] = cq->ring[i & old_mask];
		due[i & mask] = cq->due[i & old_mask];
	}
	free(cq->ring);
	free(cq->due);
	cq->ring = ring;
	cq->due = due;
	cq->size = size;
	cq->depth = depth;
	return 0;
}

void cq_push(struct uroce_cq *cq, const struct uroce_wc *wc)
{
	uint32_t slot = cq->staged & (cq->size - 1);
	/* Acquire: the consumer has read the slots it gave back before they are written. */
	uint32_t used = cq->staged - atomic_load_explicit(&cq->head, memory_order_acquire);

	assert(used <= cq->depth);
	if (used == cq->depth) {
		/* IBA 11.6.3: a CQ overrun is an affiliated asynchronous error of the CQ. The
		 * completion cannot be stored anywhere: it is lost, and the CQ stays in error.
		 * The flag carries no data: relaxed. */
		if (!atomic_load_explicit(&cq->overrun, memory_order_relaxed))
			dev_event(cq->dev, UROCE_EVENT_CQ_ERR, cq);
		atomic_store_explicit(&cq->overrun, true, memory_order_relaxed);
		return;
	}
	cq->ring[slot] = *wc;
	/* The responses the QP owes up to now, and the one this completion's own packet may
	 * still ask for: it takes the next number. */
	cq->due[slot] = wc->qp ? wc->qp->owed + 1 : 0;
	cq->staged++;
	if (!cq->publishing) {
		cq->publishing = true;
		cq->publish_next = cq->dev->publishing;
		cq->dev->publishing = cq;
	}
}

/* Whether qp still has to send a response numbered due or lower (uroce_qp.owed): nothing is
 * owed by a QP that sends no responses now (not RC, not in a state that answers, the port
 * down), since none will ever be sent. */
static bool owes_up_to(const struct uroce_qp *qp, uint32_t due)
{
	const struct resp_state *rs = &qp->resp;

	if (qp->type != UROCE_QPT_RC || !qp_can_receive(qp) || !qp->dev->port_active)
		return false;
	if (rs->ack_pending && (int32_t)(rs->ack_owed_at - due) <= 0)
		return true;
	for (uint32_t i = 0; i < rs->nres; i++)
		if (rs->res[i].pending && (int32_t)(rs->res[i].owed_at - due) <= 0)
			return true;
	return false;
}

bool cq_publish(struct uroce_cq *cq)
{
	uint32_t tail = atomic_load_explicit(&cq->tail, memory_order_relaxed); /* the engine's */

	assert(cq->staged - tail <= cq->depth);
	while (tail != cq->staged) {
		const struct uroce_wc *wc = &cq->ring[tail & (cq->size - 1)];
		if (wc->qp && owes_up_to(wc->qp, cq->due[tail & (cq->size - 1)]))
			break;
		tail++;
	}
	/* Release: the entries are written before the consumer can see the new tail. */
	atomic_store_explicit(&cq->tail, tail, memory_order_release);
	return tail == cq->staged;
}

void cq_forget_qp(struct uroce_cq *cq, const struct uroce_qp *qp)
{
	/* Only the staged completions, which no consumer sees yet. */
	for (uint32_t i = atomic_load_explicit(&cq->tail, memory_order_relaxed); i != cq->staged; i++)
		if (cq->ring[i & (cq->size - 1)].qp == qp)
			cq->ring[i & (cq->size - 1)].qp = NULL;
}

void uroce_cq_drop_qp(struct uroce_cq *cq, const struct uroce_qp *qp)
{
	uint32_t head = atomic_load_explicit(&cq->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&cq->tail, memory_order_relaxed);
	uint32_t mask = cq->size - 1, dropped = 0, dropped_staged = 0;

	/* Newest first, each kept entry moving up by the number dropped after it: the order
	 * stays, and head, tail and staged only move forward (the producer's full test and
	 * the notification count rely on that). */
	for (uint32_t n = cq->staged - head; n--;) {
		uint32_t i = head + n;
		const struct uroce_wc *wc = &cq->ring[i & mask];

		if (wc->qp == qp && !(qp->srq && wc->opcode & UROCE_WC_RECV)) {
			dropped++;
			dropped_staged += n >= tail - head;
		} else if (dropped) {
			cq->ring[(i + dropped) & mask] = *wc;
			cq->due[(i + dropped) & mask] = cq->due[i & mask];
		}
	}
	/* Release, as a poll's: the slots were read before the producer may reuse them. */
	atomic_store_explicit(&cq->head, head + dropped, memory_order_release);
	atomic_store_explicit(&cq->tail, tail + dropped_staged, memory_order_release);
}

int uroce_cq_poll(struct uroce_cq *cq, struct uroce_wc *wc, int n)
{
	uint32_t head = atomic_load_explicit(&cq->head, memory_order_relaxed); /* ours */
	uint32_t tail = atomic_load_explicit(&cq->tail, memory_order_acquire);  /* cq_publish */
	int i;

	assert(tail - head <= cq->depth);
	for (i = 0; i < n && head != tail; i++, head++)
		wc[i] = cq->ring[head & (cq->size - 1)];
	/* Release: the slots are read before the producer may reuse them. Nothing taken,
	 * nothing written: a poll with n = 0 only asks about an overrun. */
	if (i)
		atomic_store_explicit(&cq->head, head, memory_order_release);
	return !i && atomic_load_explicit(&cq->overrun, memory_order_relaxed) ? UROCE_EIO : i;
}

/* Counts only: whoever reads entries goes through uroce_cq_poll, whose acquire pairs with
 * cq_publish. Relaxed. */
uint32_t uroce_cq_pushed(const struct uroce_cq *cq)
{
	return atomic_load_explicit(&cq->tail, memory_order_relaxed);
}

uint32_t uroce_cq_count(const struct uroce_cq *cq)
{
	return atomic_load_explicit(&cq->tail, memory_order_relaxed) -
	       atomic_load_explicit(&cq->head, memory_order_relaxed);
}

void uroce_cq_set_user(struct uroce_cq *cq, void *user) { cq->user = user; }
void *uroce_cq_user(const struct uroce_cq *cq) { return cq->user; }

const char *uroce_wc_status_name(enum uroce_wc_status s)
{
	static const char *const names[] = {
#define UROCE_WC_NAME(name, v) [v] = #name,
		UROCE_WC_STATUSES(UROCE_WC_NAME)
#undef UROCE_WC_NAME
	};
	return (unsigned)s < UROCE_WC_STATUS_COUNT ? names[s] : NULL;
}

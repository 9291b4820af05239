/* SPDX-License-Identifier: MIT */
#include "cq.h"

#include <stdlib.h>

#include "common/error.h"

int uroce_cq_create(struct uroce_dev *dev, uint32_t depth, struct uroce_cq **out)
{
	struct uroce_cq *cq;

	if (!depth || depth > UROCE_MAX_CQE)
		return UROCE_EINVAL;
	if (!(cq = calloc(1, sizeof(*cq))) || !(cq->ring = calloc(depth, sizeof(*cq->ring)))) {
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
	dev_obj_del(&cq->obj);
	free(cq->ring);
	free(cq);
}

int uroce_cq_destroy(struct uroce_cq *cq)
{
	if (cq->refs)
		return UROCE_EBUSY;
	cq_release(cq);
	return 0;
}

void cq_push(struct uroce_cq *cq, const struct uroce_wc *wc)
{
	if (cq->count == cq->depth) {
		/* IBA 11.6.3: a CQ overrun is an affiliated asynchronous error of the CQ. The
		 * completion cannot be stored anywhere: it is lost, and the CQ stays in error. */
		if (!cq->overrun)
			dev_event(cq->dev, UROCE_EVENT_CQ_ERR, cq);
		cq->overrun = true;
		return;
	}
	cq->ring[(cq->head + cq->count++) % cq->depth] = *wc;
}

int uroce_cq_poll(struct uroce_cq *cq, struct uroce_wc *wc, int n)
{
	int i;

	for (i = 0; i < n && cq->count; i++) {
		wc[i] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->depth;
		cq->count--;
	}
	return !i && cq->overrun ? UROCE_EIO : i;
}

const char *uroce_wc_status_name(enum uroce_wc_status s)
{
	static const char *const names[] = {
#define UROCE_WC_NAME(name, v) [v] = #name,
		UROCE_WC_STATUSES(UROCE_WC_NAME)
#undef UROCE_WC_NAME
	};
	return (unsigned)s < UROCE_WC_STATUS_COUNT ? names[s] : NULL;
}

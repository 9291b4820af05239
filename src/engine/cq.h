/* SPDX-License-Identifier: MIT */
/* Completion queues: a ring per CQ; a completion that finds it full is lost and the CQ
 * reports the overrun (IBA 11.4.2.1 / 11.6.3). */
#ifndef UROCE_ENGINE_CQ_H
#define UROCE_ENGINE_CQ_H

#include "priv.h"

/* Appends a completion (the CQ_ERR event on the first overrun). */
void cq_push(struct uroce_cq *cq, const struct uroce_wc *wc);
/* Frees the CQ whatever uses it. */
void cq_release(struct uroce_cq *cq);

#endif

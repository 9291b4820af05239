/* SPDX-License-Identifier: MIT */
/* Completion queues: a ring per CQ; a completion that finds it full is lost and the CQ
 * reports the overrun (IBA 11.4.2.1 / 11.6.3). */
#ifndef UROCE_ENGINE_CQ_H
#define UROCE_ENGINE_CQ_H

#include "priv.h"

/* Appends a completion (the CQ_ERR event on the first overrun), staged: uroce_cq_poll sees
 * it once cq_publish has found that its QP owes nothing from before it. */
void cq_push(struct uroce_cq *cq, const struct uroce_wc *wc);
/* Makes visible the staged completions, oldest first, up to the first whose QP still owes a
 * response it waits for; true when none is left staged. Only when everything written so far
 * has been handed to the network (uroce_dev_publish). */
bool cq_publish(struct uroce_cq *cq);
/* A QP is going away: its staged completions wait for nothing any more. */
void cq_forget_qp(struct uroce_cq *cq, const struct uroce_qp *qp);
/* Frees the CQ whatever uses it. */
void cq_release(struct uroce_cq *cq);

#endif

/* SPDX-License-Identifier: MIT */
/* Queue pairs: creation, the state machine of IBA 10.3.1 with the per-transition attribute
 * rules of 11.2.4.2 (Modify QP), posting, and the moves to the error states. */
#ifndef UROCE_ENGINE_QP_H
#define UROCE_ENGINE_QP_H

#include <stdbool.h>

#include "priv.h"

/* Moves the QP to ERR (IBA 10.3.1): every outstanding send and receive WQE completes with
 * WR_FLUSH_ERR, in order; a QP on an SRQ raises QP_LAST_WQE_REACHED (11.6.3.1). */
void qp_to_error(struct uroce_qp *qp);
/* A requester-side error after its error completion: RC goes to ERR; UC and UD go to SQE
 * (10.3.1: the send queue flushes, receives go on). */
void qp_send_error(struct uroce_qp *qp);
/* Raises SQ_DRAINED once an SQD QP has no message in flight (11.6.3.1). */
void qp_check_drained(struct uroce_qp *qp);
/* True when the QP's responder accepts packets (RTR, RTS, SQD, SQE: 10.3.1). */
bool qp_can_receive(const struct uroce_qp *qp);

#endif

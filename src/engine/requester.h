/* SPDX-License-Identifier: MIT */
/* The requester (IBA 9.7 for RC, 9.8 for UC and UD): turns send WQEs into
 * request packets: segmentation into path-MTU packets, PSN assignment, AckReq, the RC window
 * and max_rd_atomic, fences, go-back-N resends from wherever the completer rewound it. */
#ifndef UROCE_ENGINE_REQUESTER_H
#define UROCE_ENGINE_REQUESTER_H

#include <stdbool.h>
#include <stdint.h>

#include "priv.h"

/* Sends the QP's next request packet into tx (which has room), or executes a local WQE.
 * False when the requester has nothing it may do now: empty queue, window or max_rd_atomic
 * full, a fence, an RNR wait, SQD, or a failed WQE waiting for the completer. */
bool req_emit(struct uroce_qp *qp, struct uroce_txbatch *tx, uint64_t now);

#endif

/* SPDX-License-Identifier: MIT */
/* The responder (IBA 9.7.5 for RC, 9.8 for UC and UD): checks the PSN and the request,
 * places data straight into registered memory or receive WQEs, executes READ, atomic and
 * ATOMIC WRITE requests into responder resources, and produces ACKs, NAKs, RNR NAKs, READ
 * responses (an ATOMIC WRITE's is empty) and atomic acknowledgements, replaying rather than
 * re-executing duplicates. */
#ifndef UROCE_ENGINE_RESPONDER_H
#define UROCE_ENGINE_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>

#include "priv.h"
#include "wire/packet.h"

/* A request packet for the QP (already matched to it by recv.c). */
void resp_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now);
/* Sends the QP's next response into tx (which has room): READ response and atomic
 * acknowledgement packets in PSN order, then the pending ACK or NAK. False when none. */
bool resp_emit(struct uroce_qp *qp, struct uroce_txbatch *tx, uint64_t now);

#endif

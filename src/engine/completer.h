/* SPDX-License-Identifier: MIT */
/* The completer (IBA 9.7, the requester side of responses; 9.9 requester errors): matches
 * ACKs, NAKs, READ responses and atomic acknowledgements with the send queue, completes WQEs
 * in order, and drives retries: go-back-N on a PSN sequence NAK, an implied NAK or a local
 * ACK timeout, RNR waits, and the retry_cnt / rnr_retry limits. */
#ifndef UROCE_ENGINE_COMPLETER_H
#define UROCE_ENGINE_COMPLETER_H

#include <stdint.h>

#include "priv.h"
#include "wire/packet.h"

/* Completes the WQE at the send queue's tail with status (a completion when it failed or
 * is signaled). */
void comp_wqe(struct uroce_qp *qp, enum uroce_wc_status status);
/* Completes the WQEs at the tail that need no acknowledgement: local operations, failed
 * WQEs (then the QP leaves RTS), and sent UC/UD messages. */
void comp_advance(struct uroce_qp *qp);
/* A response packet (ACK, NAK, READ response, ATOMIC ACKNOWLEDGE) for an RC QP. */
void comp_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now);
/* The local ACK timer fired. */
void comp_timeout(struct uroce_qp *qp, uint64_t now);

#endif

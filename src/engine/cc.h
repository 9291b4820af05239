/* SPDX-License-Identifier: MIT */
/* Congestion control (docs/congestion.md; RoCEv2 Annex A17.9): the notification point (a
 * CE-marked packet makes its QP send a CNP, at most one per QP per min_time_between_cnps),
 * the reaction point's pacer (a QP's requester sends no faster than its rate) and the
 * algorithms that set that rate, one table of operations each (the ngtcp2 model: on_cnp,
 * on_sent, timers), so that DCQCN is one file (dcqcn.c) and another algorithm another. */
#ifndef UROCE_ENGINE_CC_H
#define UROCE_ENGINE_CC_H

#include "priv.h"
#include "wire/packet.h"

struct cc_ops {
	/* The QP's rate control starts over (its creation, a reset): qp->cc.rate set. */
	void (*start)(struct uroce_qp *qp, uint64_t now);
	/* A CNP for the QP arrived (the reaction point). */
	void (*on_cnp)(struct uroce_qp *qp, uint64_t now);
	/* The requester sent a packet of `bytes` (the IP datagram). */
	void (*on_sent)(struct uroce_qp *qp, uint32_t bytes, uint64_t now);
	/* One of the algorithm's timers fired: QP_TIMER_CC0 + i. */
	void (*on_timer)(struct uroce_qp *qp, unsigned i, uint64_t now);
};

extern const struct cc_ops dcqcn_ops;

/* The operations of an algorithm (NULL: none). */
const struct cc_ops *cc_algo(enum uroce_cc_algo algo);
/* The device's parameters with their defaults filled in (uroce_dev_new); EINVAL-worthy
 * values refused: false. */
bool cc_cfg_resolve(struct uroce_cc_cfg *cfg);
/* A new or reset QP: its algorithm's state (none for QP1). */
void cc_qp_start(struct uroce_qp *qp, uint64_t now);
/* The IP traffic class of the QP's packets: the address vector's DSCP, and ECT under an
 * algorithm (CA17-5, CA17-14: not ECN-capable without one). */
uint8_t cc_tclass(const struct uroce_qp *qp, uint8_t av_tclass);
/* The rate the pacer holds the requester to, in bit/s; UINT64_MAX: unpaced. */
uint64_t cc_pace_rate(const struct uroce_qp *qp);
/* When the pacer lets the next request packet leave (0: at once). */
uint64_t cc_next_send(const struct uroce_qp *qp);
/* The pacing rate changed (the algorithm's or the limit): a QP waiting for its pace timer
 * waits for the new time. */
void cc_rate_changed(struct uroce_qp *qp, uint64_t now);
/* The pacer: whether the requester may send now; if not, its pace timer runs until then. */
bool cc_may_send(struct uroce_qp *qp, uint64_t now);
/* A request packet of `bytes` left: the pacer's next time and the algorithm's counters. */
void cc_sent(struct uroce_qp *qp, uint32_t bytes, uint64_t now);
/* A packet for the QP arrived marked CE (the notification point). */
void cc_np_marked(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now);
/* The QP's CNP, if one is due and tx has room: true when it wrote one. */
bool cc_np_emit(struct uroce_qp *qp, struct uroce_txbatch *tx, uint64_t now);
/* A CNP arrived for the QP (the reaction point). */
void cc_cnp_rcvd(struct uroce_qp *qp, uint64_t now);
/* Timer handlers (qp.c's table). */
void cc_pace_end(struct uroce_qp *qp, uint64_t now);
void cc_timer0(struct uroce_qp *qp, uint64_t now);
void cc_timer1(struct uroce_qp *qp, uint64_t now);

#endif

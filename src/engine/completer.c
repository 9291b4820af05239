/* SPDX-License-Identifier: MIT */
#include "completer.h"

#include <assert.h>
#include <string.h>

#include "cq.h"
#include "mr.h"
#include "qp.h"
#include "wr.h"

void comp_wqe(struct uroce_qp *qp, enum uroce_wc_status status)
{
	struct sq *sq = &qp->sq;
	const uint32_t tail = sq_tail(sq);
	struct swqe *w = sq_at(sq, tail);
	const struct wr_info *wi = wr_info(w->wr.opcode);

	assert(tail != sq_head(sq)); /* a WQE to complete */
	assert(wi);                  /* its opcode was checked when it was posted */

	/* IBA 10.8.3.1: an unsignaled WQE completes silently unless it failed. */
	if (status != UROCE_WC_SUCCESS || qp->sq_sig_all || w->wr.send_flags & UROCE_SEND_SIGNALED) {
		struct uroce_wc wc = {.wr_id = w->wr.wr_id, .status = status, .opcode = wi->wc,
				      .byte_len = (uint32_t)w->len, .qp = qp, .qp_num = qp->qpn};
		cq_push(qp->scq, &wc);
	}
	/* rd_atomic counts the READ/atomic WQEs the requester has passed and that have not
	 * completed. */
	if (sq->cur == tail) {
		sq->cur++;
	} else if (wi->flags & WRF_RD_ATOMIC) {
		assert(qp->req.rd_atomic > 0);
		qp->req.rd_atomic--;
	}
	atomic_store_explicit(&sq->tail, tail + 1, memory_order_release); /* see sq_tail */
	sched_add(qp);
}

/* Completes the oldest WQE with an error status and takes the QP out of RTS. */
static void fail_tail(struct uroce_qp *qp, enum uroce_wc_status status)
{
	if (sq_tail(&qp->sq) == sq_head(&qp->sq))
		return;
	comp_wqe(qp, status);
	qp_send_error(qp);
}

void comp_advance(struct uroce_qp *qp)
{
	struct sq *sq = &qp->sq;

	assert(sq->cur - sq_tail(sq) <= sq_head(sq) - sq_tail(sq));
	while (sq_tail(sq) != sq->cur) {
		struct swqe *w = sq_at(sq, sq_tail(sq));
		if (w->state == SWQE_FAILED) {
			fail_tail(qp, w->status);
			return;
		}
		if (w->state != SWQE_DONE && qp->type == UROCE_QPT_RC)
			break;
		comp_wqe(qp, UROCE_WC_SUCCESS);
	}
	qp_check_drained(qp);
}

/* una moved forward: the retry counters start again (IBA 9.7.6.1.3: they count retries
 * without progress) and the local ACK timer restarts for what is still outstanding. */
static void progress(struct uroce_qp *qp, uint32_t una, uint64_t now)
{
	struct req_state *rq = &qp->req;

	rq->una = una;
	rq->retry_left = qp->attr.retry_cnt;
	rq->rnr_left = qp->attr.rnr_retry;
	rq->seq_retry = false;
	if (una != rq->psn_max && qp->attr.timeout)
		qp_timer_arm(qp, QP_TIMER_RTO, now + rto_ns(qp->attr.timeout));
	else
		qp_timer_stop(qp, QP_TIMER_RTO);
	/* Packets the responder has acknowledged are not sent again. */
	if (uroce_psn_lt(rq->psn, una))
		rq->psn = una;
	assert(req_psns_ok(rq)); /* una comes from a PSN below psn_max (comp_rx) */
	sched_add(qp);
}

/* Everything before psn is acknowledged (an ACK of psn - 1, or a NAK or response at psn
 * implies it: IBA 9.7). Completes the SEND/WRITE WQEs it covers and moves una.
 * Returns a READ/atomic WQE that ends before psn with responses missing: they were lost and
 * must be asked for again (an implied NAK), or NULL. */
static struct swqe *ack_before(struct uroce_qp *qp, uint32_t psn, uint64_t now)
{
	struct sq *sq = &qp->sq;
	uint32_t una = qp->req.una;
	struct swqe *lost = NULL;

	while (sq_tail(sq) != sq_head(sq)) {
		struct swqe *w = sq_at(sq, sq_tail(sq));
		if (w->state == SWQE_DONE) {
			comp_wqe(qp, UROCE_WC_SUCCESS);
			continue;
		}
		if (w->state != SWQE_ACTIVE)
			break;
		uint32_t end = uroce_psn_add(w->first_psn, w->npkts);
		if (wr_info(w->wr.opcode)->flags & WRF_RD_ATOMIC) {
			una = uroce_psn_add(w->first_psn, w->resp_pkts);
			if (uroce_psn_le(end, psn))
				lost = w;
			break;
		}
		if (uroce_psn_lt(psn, end)) {
			if (uroce_psn_lt(una, psn))
				una = psn;
			break;
		}
		comp_wqe(qp, UROCE_WC_SUCCESS);
		una = end;
	}
	if (uroce_psn_lt(qp->req.una, una))
		progress(qp, una, now);
	return lost;
}

/* Go back N (IBA 9.7.6.1.3): resend from the oldest unacknowledged PSN, or fail the oldest
 * WQE with RETRY_EXC_ERR once retry_cnt retries made no progress. retry_cnt 7 is seven
 * retries, as the specification says (rxe treats it as infinite). */
static void retry(struct uroce_qp *qp)
{
	struct req_state *rq = &qp->req;

	if (!rq->retry_left) {
		eng_count(qp->dev, qp, UROCE_CNT_retry_exceeded_err);
		fail_tail(qp, UROCE_WC_RETRY_EXC_ERR);
		return;
	}
	rq->retry_left--;
	rq->seq_retry = true;
	eng_count(qp->dev, qp, UROCE_CNT_completer_retry_err);
	qp->sq.cur = sq_tail(&qp->sq);
	rq->psn = rq->una;
	rq->rd_atomic = 0;
	rq->noack_pkts = 0;
	/* The timer measures from the resend (IBA 9.7.6.1.3: from a request sent to its
	 * response), so the requester arms it when the first packet goes out: the QP may have
	 * to wait for the line (its own READ responses go first), and a timer that ran
	 * meanwhile would spend retry_cnt without anything having been sent. */
	qp_timer_stop(qp, QP_TIMER_RTO);
	sched_add(qp);
}

/* A retry for a detected gap: a PSN sequence NAK, an implied NAK (an acknowledgement past a
 * READ/atomic whose responses are missing) or a READ response past the expected PSN. Once a
 * retry has started, only the timer starts another until something makes progress: the
 * packets still in flight behind the gap, a copy of the NAK, or a duplicate ACK answering a
 * reordered resent request all describe the gap being repaired, and must not spend
 * retry_cnt again. */
static void gap_retry(struct uroce_qp *qp)
{
	if (!qp->req.seq_retry)
		retry(qp);
}

void comp_timeout(struct uroce_qp *qp, uint64_t now)
{
	(void)now;
	if (qp->req.una == qp->req.psn_max || qp_state(qp) == UROCE_QPS_ERR)
		return;
	retry(qp);
}

/* A response that contradicts its request (IBA 9.9.2: "bad response"). */
static void bad_response(struct uroce_qp *qp)
{
	eng_count(qp->dev, qp, UROCE_CNT_drop_bad_response);
	fail_tail(qp, UROCE_WC_BAD_RESP_ERR);
}

/* The WC status for each NAK code (IBA 9.7.5.2.4 Table 44; facts.md section 3). */
static const enum uroce_wc_status nak_status[] = {
	[UROCE_NAK_INVALID_REQ] = UROCE_WC_REM_INV_REQ_ERR,
	[UROCE_NAK_REMOTE_ACCESS] = UROCE_WC_REM_ACCESS_ERR,
	[UROCE_NAK_REMOTE_OP] = UROCE_WC_REM_OP_ERR,
	[UROCE_NAK_INVALID_RD_REQ] = UROCE_WC_REM_INV_RD_REQ_ERR,
};

static void on_rnr_nak(struct uroce_qp *qp, uint32_t psn, uint8_t timer, uint64_t now)
{
	struct req_state *rq = &qp->req;

	eng_count(qp->dev, qp, UROCE_CNT_rcvd_rnr_err);
	/* A copy of the NAK that started the current wait changes nothing. */
	if (qp_timer_armed(qp, QP_TIMER_RNR) && rq->psn == psn)
		return;
	/* IBA 9.7.5.2.8: rnr_retry 7 retries for ever. */
	if (qp->attr.rnr_retry != 7) {
		if (!rq->rnr_left) {
			eng_count(qp->dev, qp, UROCE_CNT_retry_rnr_exceeded_err);
			fail_tail(qp, UROCE_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		rq->rnr_left--;
	}
	qp->sq.cur = sq_tail(&qp->sq);
	rq->psn = rq->una;
	rq->rd_atomic = 0;
	rq->noack_pkts = 0;
	qp_timer_stop(qp, QP_TIMER_RTO);
	qp_timer_arm(qp, QP_TIMER_RNR, now + (uint64_t)uroce_rnr_timer_us(timer) * 1000);
}

static void on_ack(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	uint8_t syn = pkt->ext.aeth.syndrome;
	uint32_t psn = pkt->bth.psn;
	uint8_t code = uroce_aeth_value(syn);

	switch (uroce_aeth_type(syn)) {
	case UROCE_AETH_ACK:
		if (ack_before(qp, uroce_psn_add(psn, 1), now))
			gap_retry(qp);
		return;
	case UROCE_AETH_RNR_NAK:
		if (ack_before(qp, psn, now))
			gap_retry(qp);
		else
			on_rnr_nak(qp, psn, code, now);
		return;
	case UROCE_AETH_NAK:
		if (ack_before(qp, psn, now)) {
			gap_retry(qp);
			return;
		}
		if (code == UROCE_NAK_PSN_SEQ_ERR) {
			eng_count(qp->dev, qp, UROCE_CNT_rcvd_seq_err);
			gap_retry(qp);
			return;
		}
		if (code < sizeof(nak_status) / sizeof(nak_status[0]) && nak_status[code]) {
			/* IBA 9.9.2: the WQE in error completes with the NAK's status and the QP
			 * goes to the error state; the rest flush. */
			fail_tail(qp, nak_status[code]);
			return;
		}
		break;
	case UROCE_AETH_RESERVED:
		break;
	}
	eng_count(qp->dev, qp, UROCE_CNT_drop_bad_response);
}

/* Position of a response opcode in its message. */
static enum pkt_pos op_pos(uint8_t flags)
{
	if ((flags & UROCE_OPF_ONLY) == UROCE_OPF_ONLY)
		return POS_ONLY;
	return flags & UROCE_OPF_FIRST ? POS_FIRST : flags & UROCE_OPF_LAST ? POS_LAST : POS_MIDDLE;
}

/* The tail WQE, when it is an active WQE of opcode class `flag` that contains psn. */
static struct swqe *tail_for(struct uroce_qp *qp, uint32_t psn, uint16_t flag)
{
	struct sq *sq = &qp->sq;
	struct swqe *w;

	if (sq_tail(sq) == sq_head(sq))
		return NULL;
	w = sq_at(sq, sq_tail(sq));
	if (w->state != SWQE_ACTIVE || !(wr_info(w->wr.opcode)->flags & flag) ||
	    (uint32_t)uroce_psn_diff(psn, w->first_psn) >= w->npkts)
		return NULL;
	return w;
}

static void on_read_resp(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	uint32_t psn = pkt->bth.psn;
	struct swqe *w;

	if (ack_before(qp, psn, now)) {
		gap_retry(qp);
		return;
	}
	if (!(w = tail_for(qp, psn, WRF_READ_RESP))) {
		bad_response(qp);
		return;
	}
	uint32_t expected = uroce_psn_add(w->first_psn, w->resp_pkts);
	if (psn != expected) {
		/* Earlier: a copy, already placed. Later: responses were lost (an implied
		 * NAK, IBA 9.7); ask again from the first missing one. */
		if (uroce_psn_lt(psn, expected))
			eng_count(qp->dev, qp, UROCE_CNT_drop_ghost_response);
		else
			gap_retry(qp);
		return;
	}
	uint32_t k = w->resp_pkts;
	assert(k < w->npkts); /* psn == expected lies inside the WQE (tail_for) */
	uint64_t off = (uint64_t)k * qp->mtu;
	uint64_t want = w->len - off < qp->mtu ? w->len - off : qp->mtu;
	/* An ATOMIC WRITE's SGEs were its data: its answer is a READ RESPONSE ONLY without any
	 * (IBA 1.5; rxe_resp.c send_read_response_ack). */
	if (!(wr_info(w->wr.opcode)->flags & WRF_DEST_WRITE))
		want = 0;
	/* The opcode must sit where packet k of the response sits: FIRST/ONLY at the start,
	 * MIDDLE/LAST after it (a response resent from mid-message starts with MIDDLE), and
	 * every packet but the last carries exactly one MTU (IBA 9.7). */
	if (op_pos(pkt->op->flags) != pkt_pos(k, w->npkts) || pkt->payload_len != want ||
	    (pkt->ext.present & UROCE_EH_AETH &&
	     uroce_aeth_type(pkt->ext.aeth.syndrome) != UROCE_AETH_ACK)) {
		bad_response(qp);
		return;
	}
	if (sgl_write(qp->dev, qp->pd, w->wr.sg_list, (uint32_t)w->wr.num_sge, off,
		      pkt->frame + pkt->payload_off, (uint32_t)want, UROCE_ACCESS_LOCAL_WRITE)) {
		fail_tail(qp, UROCE_WC_LOC_PROT_ERR);
		return;
	}
	w->resp_pkts++;
	progress(qp, uroce_psn_add(psn, 1), now);
	if (w->resp_pkts == w->npkts)
		comp_wqe(qp, UROCE_WC_SUCCESS);
}

static void on_atomic_ack(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	uint32_t psn = pkt->bth.psn;
	uint8_t orig[8];
	struct swqe *w;

	if (ack_before(qp, psn, now)) {
		gap_retry(qp);
		return;
	}
	if (!(w = tail_for(qp, psn, WRF_ATOMIC)) ||
	    uroce_aeth_type(pkt->ext.aeth.syndrome) != UROCE_AETH_ACK) {
		bad_response(qp);
		return;
	}
	/* The original value, in host order, into the WQE's 8-byte buffer (IBA 9.4.5). */
	uint64_t v = pkt->ext.atomicacketh.orig;
	memcpy(orig, &v, sizeof(orig));
	if (sgl_write(qp->dev, qp->pd, w->wr.sg_list, (uint32_t)w->wr.num_sge, 0, orig,
		      sizeof(orig), UROCE_ACCESS_LOCAL_WRITE)) {
		fail_tail(qp, UROCE_WC_LOC_PROT_ERR);
		return;
	}
	w->resp_pkts = 1;
	progress(qp, uroce_psn_add(psn, 1), now);
	comp_wqe(qp, UROCE_WC_SUCCESS);
}

typedef void (*resp_handler)(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now);

static const resp_handler handlers[] = {
	[UROCE_OPK_ACK] = on_ack,
	[UROCE_OPK_READ_RESP] = on_read_resp,
	[UROCE_OPK_ATOMIC_ACK] = on_atomic_ack,
};

void comp_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	struct req_state *rq = &qp->req;
	uint32_t psn = pkt->bth.psn;
	/* A plain ACK may repeat the last one (una - 1); everything else concerns a PSN that
	 * is outstanding: in [una, psn_max). */
	bool plain_ack = pkt->op->kind == UROCE_OPK_ACK &&
			 uroce_aeth_type(pkt->ext.aeth.syndrome) == UROCE_AETH_ACK;
	uint32_t lo = plain_ack ? uroce_psn_add(rq->una, UROCE_PSN_MASK) : rq->una;

	enum uroce_qp_state state = qp_state(qp);

	if (state != UROCE_QPS_RTS && state != UROCE_QPS_SQD) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_qp_state);
		return;
	}
	if (uroce_psn_lt(psn, lo) || !uroce_psn_lt(psn, rq->psn_max)) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_ghost_response);
		return;
	}
	/* recv.c sends only response opcodes here: a kind without a handler is a table bug. */
	assert(pkt->op->kind < sizeof(handlers) / sizeof(handlers[0]) && handlers[pkt->op->kind]);
	handlers[pkt->op->kind](qp, pkt, now);
	if (qp_state(qp) != UROCE_QPS_ERR)
		comp_advance(qp);
}

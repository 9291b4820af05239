/* SPDX-License-Identifier: MIT */
#include "requester.h"

#include <assert.h>

#include "cc.h"
#include "completer.h"
#include "mr.h"
#include "wr.h"
#include "xmit.h"

/* BTH transport bits of a QP type (IBA 9.2 Table 36); GSI is UD. */
static uint8_t qp_transport(enum uroce_qp_type t)
{
	return t == UROCE_QPT_RC ? UROCE_TP_RC : t == UROCE_QPT_UC ? UROCE_TP_UC : UROCE_TP_UD;
}

enum start {
	START_OK,   /* PSNs assigned: send its packets */
	START_WAIT, /* may not start yet */
	START_DONE, /* handled without a packet (failed, or a local operation) */
};

/* Passes the WQE without sending it: the completer completes it in order. */
static void pass_local(struct uroce_qp *qp, struct swqe *w, enum swqe_state state,
		       enum uroce_wc_status status)
{
	w->state = state;
	w->status = status;
	if (wr_info(w->wr.opcode)->flags & WRF_RD_ATOMIC)
		qp->req.rd_atomic++;
	qp->sq.cur++;
	comp_advance(qp);
}

/* Starts a WQE: the checks that belong to execution time, then its PSNs. */
static enum start wqe_start(struct uroce_qp *qp, struct swqe *w)
{
	const struct wr_info *wi = wr_info(w->wr.opcode);
	struct req_state *rq = &qp->req;
	uint64_t npkts;

	/* IBA 10.8.3.3: a fenced WQE waits until every earlier READ and atomic has completed. */
	if (w->wr.send_flags & UROCE_SEND_FENCE && rq->rd_atomic)
		return START_WAIT;
	if (wi->flags & WRF_RD_ATOMIC) {
		/* With max_rd_atomic 0 the QP may never issue one (11.2.4.2). */
		if (!qp->attr.max_rd_atomic) {
			pass_local(qp, w, SWQE_FAILED, UROCE_WC_LOC_QP_OP_ERR);
			return START_DONE;
		}
		if (rq->rd_atomic >= qp->attr.max_rd_atomic)
			return START_WAIT;
	}
	if (wi->flags & WRF_LOCAL) {
		/* A local invalidate runs once every earlier WQE has completed, so that a resend
		 * never reads a region it has invalidated. */
		if (qp->sq.cur != sq_tail(&qp->sq))
			return START_WAIT;
		if (mr_invalidate(qp->dev, qp->pd, w->wr.invalidate_rkey))
			pass_local(qp, w, SWQE_FAILED, UROCE_WC_LOC_PROT_ERR);
		else
			pass_local(qp, w, SWQE_DONE, UROCE_WC_SUCCESS);
		return START_DONE;
	}
	if (sgl_check(qp->dev, qp->pd, w->wr.sg_list, (uint32_t)w->wr.num_sge,
		      wi->flags & WRF_DEST_WRITE ? UROCE_ACCESS_LOCAL_WRITE : 0)) {
		pass_local(qp, w, SWQE_FAILED, UROCE_WC_LOC_PROT_ERR);
		return START_DONE;
	}
	npkts = wi->flags & WRF_ATOMIC ? 1 : (w->len + qp->mtu - 1) / qp->mtu;
	if (!npkts)
		npkts = 1; /* a zero-length message is one packet */
	/* UD: one message is one packet (IBA 9.8). For one longer than the port's MTU the base
	 * specification has C10-93.1.1, as Linux rxe's rxe_req.c quotes it: "If the total sum
	 * of all the buffer lengths specified for a UD message exceeds the MTU of the port as
	 * returned by QueryHCA, the CI shall not emit any packets for this message. Further,
	 * the CI shall not generate an error due to this condition." So no packet and a
	 * successful completion, as rxe does; the counter makes it visible. A UD QP's MTU is
	 * the port's (qp.c). */
	if (type_is_datagram(qp->type) && w->len > qp->mtu) {
		eng_count(qp->dev, qp, UROCE_CNT_ud_send_too_long);
		pass_local(qp, w, SWQE_DONE, UROCE_WC_SUCCESS);
		return START_DONE;
	}
	if (npkts > MAX_MSG_PKTS) {
		pass_local(qp, w, SWQE_FAILED, UROCE_WC_LOC_LEN_ERR);
		return START_DONE;
	}
	w->npkts = (uint32_t)npkts;
	w->first_psn = rq->psn;
	w->resp_pkts = 0;
	w->state = SWQE_ACTIVE;
	return START_OK;
}

/* The payload of [off, off + len) of a WQE: in place when one SGE (or the inline copy)
 * holds it, else gathered into the device's scratch buffer. NULL when an SGE went bad. */
static const uint8_t *wqe_payload(struct uroce_qp *qp, struct swqe *w, uint64_t off,
				  uint32_t len)
{
	const uint8_t *p;

	if (!len)
		return NULL;
	if (w->wr.send_flags & UROCE_SEND_INLINE)
		return swqe_inline(w) + off;
	p = sgl_ptr(qp->dev, qp->pd, w->wr.sg_list, (uint32_t)w->wr.num_sge, off, len);
	if (p)
		return p;
	if (sgl_read(qp->dev, qp->pd, w->wr.sg_list, (uint32_t)w->wr.num_sge, off,
		     qp->dev->scratch, len))
		return NULL;
	return qp->dev->scratch;
}

/* Fills the packet for PSN first + k of a READ, atomic or ATOMIC WRITE WQE. A READ resent
 * from PSN first + k asks only for the bytes from k x MTU on (IBA 9.7: the responder answers
 * it from that offset). False when an ATOMIC WRITE's 8 bytes cannot be read. */
static bool build_rd_atomic(struct uroce_qp *qp, struct swqe *w, uint32_t k, struct xmit_pkt *p)
{
	const struct wr_info *wi = wr_info(w->wr.opcode);

	p->opcode = qp_transport(qp->type) | wi->op[POS_ONLY];
	p->ackreq = true;
	if (wi->flags & WRF_CARRIES_DATA) {
		/* ATOMIC WRITE: a RETH for 8 bytes, then the 8 bytes as they are in memory (IBA
		 * 1.5 9.4.5; rxe_req.c finish_packet copies them unchanged). One packet, k is 0. */
		p->ext.reth.va = w->wr.wr.rdma.remote_addr;
		p->ext.reth.rkey = w->wr.wr.rdma.rkey;
		p->ext.reth.dmalen = (uint32_t)w->len;
		p->len = (uint32_t)w->len;
		p->payload = wqe_payload(qp, w, 0, p->len);
		eng_count(qp->dev, qp, UROCE_CNT_rdma_sends);
		return p->payload != NULL;
	}
	if (wi->flags & WRF_ATOMIC) {
		/* AtomicETH: Swap (or Add) Data, then Compare Data (IBA 9.3.4). */
		p->ext.atomiceth.va = w->wr.wr.atomic.remote_addr;
		p->ext.atomiceth.rkey = w->wr.wr.atomic.rkey;
		if (w->wr.opcode == UROCE_WR_ATOMIC_CMP_AND_SWP) {
			p->ext.atomiceth.swap = w->wr.wr.atomic.swap;
			p->ext.atomiceth.cmp = w->wr.wr.atomic.compare_add;
		} else {
			p->ext.atomiceth.swap = w->wr.wr.atomic.compare_add;
		}
	} else {
		uint64_t off = (uint64_t)k * qp->mtu;
		p->ext.reth.va = w->wr.wr.rdma.remote_addr + off;
		p->ext.reth.rkey = w->wr.wr.rdma.rkey;
		p->ext.reth.dmalen = (uint32_t)(w->len - off);
		eng_count(qp->dev, qp, UROCE_CNT_rdma_sends);
	}
	return true;
}

/* Fills packet k of a SEND or WRITE WQE. False when its payload cannot be read. */
static bool build_data(struct uroce_qp *qp, struct swqe *w, uint32_t k, struct xmit_pkt *p)
{
	const struct wr_info *wi = wr_info(w->wr.opcode);
	struct req_state *rq = &qp->req;
	enum pkt_pos pos = pkt_pos(k, w->npkts);
	uint64_t off = (uint64_t)k * qp->mtu;
	bool first = pos == POS_FIRST || pos == POS_ONLY;
	bool last = pos == POS_LAST || pos == POS_ONLY;

	p->opcode = qp_transport(qp->type) | wi->op[pos];
	p->len = (uint32_t)(w->len - off < qp->mtu ? w->len - off : qp->mtu);
	p->payload = wqe_payload(qp, w, off, p->len);
	if (p->len && !p->payload)
		return false;
	/* RETH only on the first packet of a WRITE; ImmDt and IETH only on the last
	 * (IBA 9.2 Table 36, the headers of each opcode). */
	if (first && wi->flags & WRF_REMOTE) {
		p->ext.reth.va = w->wr.wr.rdma.remote_addr;
		p->ext.reth.rkey = w->wr.wr.rdma.rkey;
		p->ext.reth.dmalen = (uint32_t)w->len;
		eng_count(qp->dev, qp, UROCE_CNT_rdma_sends);
	} else if (wi->flags & WRF_REMOTE) {
		eng_count(qp->dev, qp, UROCE_CNT_rdma_sends);
	}
	if (last) {
		p->ext.immdt = w->wr.imm_data;
		p->ext.ieth = w->wr.invalidate_rkey;
		p->se = w->wr.send_flags & UROCE_SEND_SOLICITED;
	}
	if (type_is_datagram(qp->type)) {
		/* IBA 10.2.4: a Q_Key with the high bit set in the WR means "use the QP's own",
		 * so that an unprivileged consumer cannot send a controlled Q_Key. */
		uint32_t qkey = w->wr.wr.ud.remote_qkey;
		p->ext.deth.qkey = qkey & UROCE_QKEY_CONTROLLED ? qp->attr.qkey : qkey;
		p->ext.deth.srcqp = qp->qpn;
	}
	/* AckReq on the last packet of each message and periodically within long ones, so that
	 * the responder's coalesced ACKs keep the window moving (facts.md section 3). UC and
	 * UD have no acknowledgements. */
	if (qp->type == UROCE_QPT_RC) {
		p->ackreq = last || ++rq->noack_pkts >= qp->dev->cfg.ack_req_interval;
		if (p->ackreq)
			rq->noack_pkts = 0;
	}
	return true;
}

bool req_emit(struct uroce_qp *qp, struct uroce_txbatch *tx, uint64_t now)
{
	struct req_state *rq = &qp->req;
	struct sq *sq = &qp->sq;
	enum uroce_qp_state state = qp_state(qp);
	struct swqe *w;
	uint32_t next;

	if ((state != UROCE_QPS_RTS && state != UROCE_QPS_SQD) || sq->cur == sq_head(sq) ||
	    qp_timer_armed(qp, QP_TIMER_RNR))
		return false;
	/* The WQEs between tail and cur have been started, and cur is behind head. */
	assert(sq->cur - sq_tail(sq) < sq_head(sq) - sq_tail(sq));
	/* After a local error nothing more is started: the QP leaves RTS once the failed WQE
	 * completes. */
	if (sq->cur != sq_tail(sq) && sq_at(sq, sq->cur - 1)->state == SWQE_FAILED)
		return false;
	w = sq_at(sq, sq->cur);
	/* A retry (go-back-N or RNR) starts again from the oldest WQE and can come upon one
	 * that was passed without packets the first time (a local error, a LOCAL_INV): it is
	 * passed again, and completes in order as then. Sent as if active, it would go out
	 * built from PSNs it never had. */
	if (w->state == SWQE_FAILED || w->state == SWQE_DONE) {
		pass_local(qp, w, w->state, w->status);
		return true;
	}
	if (w->state == SWQE_POSTED) {
		/* SQD: messages in progress finish, no new one starts (IBA 10.3.1). */
		if (state == UROCE_QPS_SQD)
			return false;
		switch (wqe_start(qp, w)) {
		case START_WAIT:
			return false;
		case START_DONE:
			return true;
		case START_OK:
			break;
		}
	}
	/* cur is a WQE being sent: a posted one was started just above, and one passed without
	 * packets (done, failed) is never sent; a retry that comes back to it passes it again. */
	assert(w->state == SWQE_ACTIVE);
	assert(req_psns_ok(rq));
	/* RC window: at most max_unacked_pkts PSNs outstanding. */
	if (qp->type == UROCE_QPT_RC &&
	    (uint32_t)uroce_psn_diff(rq->psn, rq->una) >= qp->dev->cfg.max_unacked_pkts)
		return false;
	/* The reaction point's pacer: not before the QP's rate allows (its timer calls it back). */
	if (!cc_may_send(qp, now))
		return false;

	uint32_t k = (uint32_t)uroce_psn_diff(rq->psn, w->first_psn);
	assert(k < w->npkts); /* rq->psn is one of the WQE's */
	struct xmit_pkt p = {
		.av = type_is_datagram(qp->type) ? &w->av : &qp->attr.ah_attr,
		.destqp = type_is_datagram(qp->type) ? w->wr.wr.ud.remote_qpn : qp->attr.dest_qp_num,
		.psn = rq->psn,
	};
	bool rd_atomic = wr_info(w->wr.opcode)->flags & WRF_RD_ATOMIC;
	if (!(rd_atomic ? build_rd_atomic(qp, w, k, &p) : build_data(qp, w, k, &p))) {
		/* An SGE went bad after the WQE started (its MR was deregistered). */
		pass_local(qp, w, SWQE_FAILED, UROCE_WC_LOC_PROT_ERR);
		return true;
	}
	if (rd_atomic) {
		next = uroce_psn_add(w->first_psn, w->npkts);
		rq->rd_atomic++;
		sq->cur++;
	} else {
		next = uroce_psn_add(rq->psn, 1);
		if (k + 1 == w->npkts)
			sq->cur++;
	}
	if (uroce_psn_lt(rq->psn, rq->psn_max))
		eng_count(qp->dev, qp, UROCE_CNT_retransmitted_pkts);
	xmit(qp, tx, &p, now);
	rq->psn = next;
	if (uroce_psn_lt(rq->psn_max, next))
		rq->psn_max = next;
	if (qp->type == UROCE_QPT_RC) {
		if (!qp_timer_armed(qp, QP_TIMER_RTO) && qp->attr.timeout)
			qp_timer_arm(qp, QP_TIMER_RTO, now + rto_ns(qp->attr.timeout));
	} else {
		/* UC and UD: a message is complete once sent (IBA 9.8). */
		rq->una = rq->psn_max;
		comp_advance(qp);
	}
	assert(req_psns_ok(rq));
	return true;
}

/* SPDX-License-Identifier: MIT */
#include "responder.h"

#include <assert.h>
#include <string.h>

#include "cq.h"
#include "mr.h"
#include "qp.h"
#include "rq.h"
#include "wr.h"
#include "xmit.h"

/* rxe always sends syndrome 0x1F: an ACK without credit information (facts.md section 3). */
#define ACK_SYNDROME ((uint8_t)(UROCE_AETH_ACK << 5 | UROCE_AETH_CREDIT_INVALID))

/* BTH operations of RC READ responses by position (IBA 9.2 Table 36: 0x0D..0x10). */
static const uint8_t read_resp_op[] = {
	[POS_FIRST] = UROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
	[POS_MIDDLE] = UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
	[POS_LAST] = UROCE_OP_RC_RDMA_READ_RESPONSE_LAST,
	[POS_ONLY] = UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
};

/* The affiliated asynchronous event of each responder NAK (IBA 11.6.3.1: "invalid request
 * local work queue error", "local access violation work queue error", "local work queue
 * catastrophic error"). */
static const enum uroce_event_type nak_event[] = {
	[UROCE_NAK_INVALID_REQ] = UROCE_EVENT_QP_REQ_ERR,
	[UROCE_NAK_REMOTE_ACCESS] = UROCE_EVENT_QP_ACCESS_ERR,
	[UROCE_NAK_REMOTE_OP] = UROCE_EVENT_QP_FATAL,
};

static bool qp_allows(const struct uroce_qp *qp, unsigned access)
{
	return (qp->attr.qp_access_flags & access) == access;
}

static const uint8_t *payload(const struct uroce_pkt *pkt) { return pkt->frame + pkt->payload_off; }

/* Schedules an ACK or NAK. Coalescing (IBA 9.7.5: one acknowledgement covers every
 * earlier request): the pending one is replaced by a later PSN, or at the same PSN by a
 * NAK, which also acknowledges everything before it. */
static void ack_schedule(struct uroce_qp *qp, uint8_t syndrome, uint32_t psn)
{
	struct resp_state *rs = &qp->resp;

	if (rs->ack_pending) {
		int32_t d = uroce_psn_diff(psn, rs->ack_psn);
		if (d < 0 || (d == 0 && uroce_aeth_type(syndrome) == UROCE_AETH_ACK))
			return;
	} else {
		rs->ack_owed_at = ++qp->owed;
	}
	rs->ack_pending = true;
	rs->ack_syndrome = syndrome;
	rs->ack_psn = psn;
	rs->ack_msn = rs->msn;
	sched_add(qp);
}

/* A receive completion for the WQE the message holds. */
static void recv_wc(struct uroce_qp *qp, struct uroce_wc *wc, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;

	wc->wr_id = rs->wqe.wr_id;
	wc->qp = qp;
	wc->qp_num = qp->qpn;
	if (pkt && pkt->ext.present & UROCE_EH_IMMDT) {
		wc->wc_flags |= UROCE_WC_F_WITH_IMM;
		wc->imm_data = pkt->ext.immdt;
	}
	cq_push(qp->rcq, wc);
	rs->have_wqe = false;
}

/* A class A or C responder error (IBA 9.9.3.1): the NAK at the request's PSN, an error
 * completion for a receive WQE the message had taken, the affiliated event, and the QP
 * goes to ERR as soon as the NAK is out. The NAK wins over any pending ACK. */
static void resp_fail(struct uroce_qp *qp, uint32_t psn, uint8_t code, enum uroce_wc_status st)
{
	struct resp_state *rs = &qp->resp;

	assert(code < sizeof(nak_event) / sizeof(nak_event[0])); /* the engine's own codes */
	rs->error = true;
	if (!rs->ack_pending)
		rs->ack_owed_at = ++qp->owed;
	rs->ack_pending = true;
	rs->ack_syndrome = uroce_aeth_syndrome(UROCE_AETH_NAK, code);
	rs->ack_psn = psn;
	rs->ack_msn = rs->msn;
	sched_add(qp);
	if (rs->have_wqe) {
		struct uroce_wc wc = {.status = st, .opcode = UROCE_WC_RECV};
		recv_wc(qp, &wc, NULL);
	}
	dev_event(qp->dev, nak_event[code], qp);
}

/* IBA 9.7.5.2.8: no receive WQE for a SEND (or a WRITE with immediate). The packets after
 * it are dropped silently until the requester resends this one. */
static void rnr(struct uroce_qp *qp, uint32_t psn)
{
	eng_count(qp->dev, qp, UROCE_CNT_send_rnr_err);
	qp->resp.nak_sent = true;
	ack_schedule(qp, uroce_aeth_syndrome(UROCE_AETH_RNR_NAK, qp->attr.min_rnr_timer), psn);
}

/* Length rules (IBA 9.7.5 / facts.md section 3): FIRST and MIDDLE carry exactly the
 * path MTU, LAST 1..MTU, ONLY 0..MTU; requests without payload carry none. */
static bool length_ok(const struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	uint8_t flags = pkt->op->flags;
	size_t len = pkt->payload_len;

	if (!(flags & UROCE_OPF_PAYLOAD))
		return !len;
	if ((flags & UROCE_OPF_ONLY) == UROCE_OPF_ONLY)
		return len <= qp->mtu;
	if (flags & UROCE_OPF_LAST)
		return len >= 1 && len <= qp->mtu;
	return len == qp->mtu;
}

/* Offset of this packet's payload in its message: (PSN - first PSN) x MTU, counted from
 * the message's first PSN (facts.md section 7). */
static uint64_t msg_offset(const struct uroce_qp *qp, uint32_t psn)
{
	return (uint64_t)(uint32_t)uroce_psn_diff(psn, qp->resp.msg_psn) * qp->mtu;
}

/* ---- RC ---- */

/* A SEND or WRITE packet was executed: the PSN moves on and the ACK is scheduled when
 * asked for (IBA 9.7.5.2.1: coalesced otherwise). */
static void rc_accepted(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;

	rs->epsn = uroce_psn_add(pkt->bth.psn, 1);
	rs->last_ack_psn = pkt->bth.psn;
	if (pkt->bth.ackreq)
		ack_schedule(qp, ACK_SYNDROME, pkt->bth.psn);
	else
		eng_count(qp->dev, qp, UROCE_CNT_ack_deferred);
}

static void rc_send(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint32_t psn = pkt->bth.psn, len = (uint32_t)pkt->payload_len;
	uint8_t flags = pkt->op->flags;

	if (flags & UROCE_OPF_FIRST) {
		if (!qp_take_rwqe(qp, &rs->wqe)) {
			rnr(qp, psn);
			return;
		}
		rs->have_wqe = true;
		rs->msg_psn = psn;
		/* A receive WQE whose buffers are not usable is malformed: class A (9.9.3.1). */
		if (sgl_check(qp->dev, qp->pd, rs->wqe.sge, rs->wqe.nsge, UROCE_ACCESS_LOCAL_WRITE)) {
			resp_fail(qp, psn, UROCE_NAK_REMOTE_OP, UROCE_WC_LOC_PROT_ERR);
			return;
		}
		rs->msg = MSG_SEND;
	}
	uint64_t off = msg_offset(qp, psn);
	if (off + len > rs->wqe.len) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_LOC_LEN_ERR);
		return;
	}
	if (sgl_write(qp->dev, qp->pd, rs->wqe.sge, rs->wqe.nsge, off, payload(pkt), len,
		      UROCE_ACCESS_LOCAL_WRITE)) {
		resp_fail(qp, psn, UROCE_NAK_REMOTE_OP, UROCE_WC_LOC_PROT_ERR);
		return;
	}
	if (flags & UROCE_OPF_LAST) {
		struct uroce_wc wc = {.opcode = UROCE_WC_RECV, .byte_len = (uint32_t)(off + len)};
		if (pkt->ext.present & UROCE_EH_IETH) {
			/* SEND with Invalidate: the R_Key must name an MR of this PD that may be
			 * invalidated (IBA 10.6). */
			if (mr_invalidate(qp->dev, qp->pd, pkt->ext.ieth)) {
				resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
				return;
			}
			wc.wc_flags = UROCE_WC_F_WITH_INV;
			wc.invalidated_rkey = pkt->ext.ieth;
		}
		recv_wc(qp, &wc, pkt);
		rs->msg = MSG_NONE;
		rs->msn = uroce_psn_add(rs->msn, 1);
	}
	rc_accepted(qp, pkt);
}

static void rc_write(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint32_t psn = pkt->bth.psn, len = (uint32_t)pkt->payload_len;
	uint8_t flags = pkt->op->flags;
	/* The message's RETH: this packet's on a FIRST/ONLY, else the one kept. Nothing is
	 * kept before the RNR decision, so that a NAKed packet leaves no trace. */
	uint64_t va = rs->va;
	uint32_t rkey = rs->rkey, dma_len = rs->dma_len, msg_psn = rs->msg_psn;

	if (flags & UROCE_OPF_FIRST) {
		const struct uroce_reth *reth = &pkt->ext.reth;
		/* IBA 9.7.5: R_Key, PD, access and range, unless the length is zero (a
		 * zero-length RDMA request carries no usable R_Key). */
		if (!qp_allows(qp, UROCE_ACCESS_REMOTE_WRITE) ||
		    (reth->dmalen && !mr_access(qp->dev, qp->pd, reth->rkey, reth->va, reth->dmalen,
						UROCE_ACCESS_REMOTE_WRITE))) {
			resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
			return;
		}
		va = reth->va;
		rkey = reth->rkey;
		dma_len = reth->dmalen;
		msg_psn = psn;
	}
	uint64_t off = (uint64_t)(uint32_t)uroce_psn_diff(psn, msg_psn) * qp->mtu;
	/* The packets must add up to the RETH length exactly. */
	if (off + len > dma_len || (flags & UROCE_OPF_LAST && off + len != dma_len)) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	/* A WRITE with immediate consumes a receive WQE at its last packet: RNR before any
	 * byte of that packet lands, so that the resend finds nothing half done. */
	if (flags & UROCE_OPF_LAST && pkt->ext.present & UROCE_EH_IMMDT && !rs->have_wqe) {
		if (!qp_take_rwqe(qp, &rs->wqe)) {
			rnr(qp, psn);
			return;
		}
		rs->have_wqe = true;
	}
	rs->msg = MSG_WRITE;
	rs->va = va;
	rs->rkey = rkey;
	rs->dma_len = dma_len;
	rs->msg_psn = msg_psn;
	if (len) {
		/* Checked per packet: the region may have gone since the first one. */
		uint8_t *dst = mr_access(qp->dev, qp->pd, rkey, va + off, len,
					 UROCE_ACCESS_REMOTE_WRITE);
		if (!dst) {
			resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
			return;
		}
		dma_write(dst, payload(pkt), len);
	}
	eng_count(qp->dev, qp, UROCE_CNT_rdma_recvs);
	if (flags & UROCE_OPF_LAST) {
		if (rs->have_wqe) {
			struct uroce_wc wc = {.opcode = UROCE_WC_RECV_RDMA_WITH_IMM, .byte_len = dma_len};
			recv_wc(qp, &wc, pkt);
		}
		rs->msg = MSG_NONE;
		rs->msn = uroce_psn_add(rs->msn, 1);
	}
	rc_accepted(qp, pkt);
}

/* A responder resource for a READ, atomic or ATOMIC WRITE request at psn (IBA 9.7.5.1.3). */
static struct resp_res *res_alloc(struct uroce_qp *qp, uint32_t psn)
{
	struct resp_state *rs = &qp->resp;
	struct resp_res *res;

	/* With max_dest_rd_atomic 0 the QP accepts none; a requester that has more
	 * outstanding than it allows finds the next resource still answering its original
	 * request: both are invalid requests. A resource busy only replaying answers to
	 * duplicates is taken over: a requester within its limit that sends a new request has
	 * received everything of the oldest one, so the replay is of no use to it (rxe recycles
	 * the oldest resource the same way, rxe_resp.c). Found by perftest under loss. */
	assert(rs->nres <= UROCE_MAX_RD_ATOMIC && (!rs->nres || rs->res_next < rs->nres));
	res = rs->nres ? &rs->res[rs->res_next] : NULL;
	if (!res || (res->pending && !res->replay)) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return NULL;
	}
	rs->res_next = (rs->res_next + 1) % rs->nres;
	rs->msn = uroce_psn_add(rs->msn, 1);
	memset(res, 0, sizeof(*res));
	res->owed_at = ++qp->owed;
	res->pending = true;
	res->first_psn = res->cur_psn = psn;
	res->msn = rs->msn;
	sched_add(qp);
	return res;
}

static void rc_read(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_reth *reth = &pkt->ext.reth;
	uint32_t psn = pkt->bth.psn;
	uint32_t npkts = reth->dmalen ? (uint32_t)(((uint64_t)reth->dmalen + qp->mtu - 1) / qp->mtu) : 1;
	struct resp_res *res;

	if (!qp_allows(qp, UROCE_ACCESS_REMOTE_READ) ||
	    (reth->dmalen && !mr_access(qp->dev, qp->pd, reth->rkey, reth->va, reth->dmalen,
					UROCE_ACCESS_REMOTE_READ))) {
		resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
		return;
	}
	if (npkts > MAX_MSG_PKTS) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	if (!(res = res_alloc(qp, psn)))
		return;
	res->kind = RES_READ;
	res->last_psn = uroce_psn_add(psn, npkts - 1);
	res->va = reth->va;
	res->rkey = reth->rkey;
	res->len = reth->dmalen;
	/* A READ uses one PSN per response packet (IBA 9.7.1). */
	qp->resp.epsn = uroce_psn_add(psn, npkts);
	eng_count(qp->dev, qp, UROCE_CNT_rdma_recvs);
}

static void rc_atomic(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_atomiceth *ae = &pkt->ext.atomiceth;
	uint32_t psn = pkt->bth.psn;
	struct resp_res *res;
	uint64_t orig, val;
	uint8_t *p;

	if (!qp_allows(qp, UROCE_ACCESS_REMOTE_ATOMIC)) {
		resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
		return;
	}
	/* IBA 9.4.5: the address of an atomic is naturally aligned (8 bytes). */
	if (ae->va & 7) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	if (!(p = mr_access(qp->dev, qp->pd, ae->rkey, ae->va, 8, UROCE_ACCESS_REMOTE_ATOMIC))) {
		resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
		return;
	}
	if (!(res = res_alloc(qp, psn)))
		return;
	/* Executed once, here; a duplicate is answered from the resource (9.7.5.1.3). The
	 * value is in host order in memory; the MR's alignment is the consumer's, so memcpy. */
	memcpy(&orig, p, sizeof(orig));
	if (pkt->bth.opcode == UROCE_OP_RC_CMP_SWAP)
		val = orig == ae->cmp ? ae->swap : orig;
	else
		val = orig + ae->swap;
	dma_write(p, &val, sizeof(val));
	res->kind = RES_ATOMIC;
	res->last_psn = psn;
	res->orig = orig;
	qp->resp.epsn = uroce_psn_add(psn, 1);
}

/* ATOMIC WRITE (IBA 1.5 9.4.5): 8 bytes stored at an aligned address at once, after every
 * earlier request. Checked as Linux rxe does (rxe_resp.c): the QP's and the MR's remote write
 * right (a remote access NAK here, as for an RDMA WRITE; rxe NAKs a QP without the right as an
 * invalid request), a RETH length and a payload of exactly 8 bytes (rxe: check_rkey, "pktlen
 * != resid", invalid request), an aligned address (rxe: RESPST_ERR_MISALIGNED_ATOMIC, invalid
 * request). It takes a responder resource, so that a duplicate is answered again rather than
 * executed again (rxe: duplicate_request -> atomic_write_reply with res->replay). */
static void rc_atomic_write(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	const struct uroce_reth *reth = &pkt->ext.reth;
	uint32_t psn = pkt->bth.psn;
	struct resp_res *res;
	uint64_t val;
	uint8_t *p;

	if (!qp_allows(qp, UROCE_ACCESS_REMOTE_WRITE)) {
		resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
		return;
	}
	if (reth->dmalen != UROCE_ATOMIC_WRITE_LEN || pkt->payload_len != UROCE_ATOMIC_WRITE_LEN ||
	    reth->va & 7) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	if (!(p = mr_access(qp->dev, qp->pd, reth->rkey, reth->va, UROCE_ATOMIC_WRITE_LEN,
			    UROCE_ACCESS_REMOTE_WRITE))) {
		resp_fail(qp, psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
		return;
	}
	/* The host address too: an MR registered at an address unaligned to its iova would
	 * make a single-copy store impossible (rxe checks both). */
	if ((uintptr_t)p & 7) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	if (!(res = res_alloc(qp, psn)))
		return;
	/* The bytes as they came (rxe copies them unchanged), in one store (dma_store64). */
	memcpy(&val, payload(pkt), sizeof(val));
	dma_store64((uint64_t *)(void *)p, val);
	res->kind = RES_ATOMIC_WRITE;
	res->last_psn = psn;
	qp->resp.epsn = uroce_psn_add(psn, 1);
	eng_count(qp->dev, qp, UROCE_CNT_rdma_recvs);
}

typedef void (*req_handler)(struct uroce_qp *qp, const struct uroce_pkt *pkt);

static const req_handler rc_handlers[] = {
	[UROCE_OPK_SEND] = rc_send,
	[UROCE_OPK_WRITE] = rc_write,
	[UROCE_OPK_READ_REQ] = rc_read,
	[UROCE_OPK_ATOMIC] = rc_atomic,
	[UROCE_OPK_ATOMIC_WRITE] = rc_atomic_write,
};

/* The kind of the message in progress. */
static const uint8_t msg_kind[] = {
	[MSG_NONE] = UROCE_OPK_NONE,
	[MSG_SEND] = UROCE_OPK_SEND,
	[MSG_WRITE] = UROCE_OPK_WRITE,
};

static struct resp_res *res_find(struct resp_state *rs, uint32_t psn, enum res_kind kind)
{
	for (uint32_t i = 0; i < rs->nres; i++) {
		struct resp_res *r = &rs->res[i];
		if (r->kind == kind && uroce_psn_le(r->first_psn, psn) && uroce_psn_le(psn, r->last_psn))
			return r;
	}
	return NULL;
}

/* IBA 9.7.5.1.2 duplicates: SEND and WRITE are acknowledged again with the last PSN
 * acknowledged for one of them (an ACK covering a READ would tell the requester its
 * response was lost); READ is answered again from its resource, from the PSN asked for,
 * so that a resend starting mid-message gets MIDDLE/LAST; an atomic gets its saved result
 * and an ATOMIC WRITE its empty READ response, and neither is executed twice. */
static void rc_duplicate(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	struct resp_res *res;

	eng_count(qp->dev, qp, UROCE_CNT_duplicate_request);
	switch (pkt->op->kind) {
	case UROCE_OPK_SEND:
	case UROCE_OPK_WRITE:
		ack_schedule(qp, ACK_SYNDROME, rs->last_ack_psn);
		return;
	case UROCE_OPK_READ_REQ:
		res = res_find(rs, pkt->bth.psn, RES_READ);
		break;
	case UROCE_OPK_ATOMIC:
		res = res_find(rs, pkt->bth.psn, RES_ATOMIC);
		break;
	case UROCE_OPK_ATOMIC_WRITE:
		res = res_find(rs, pkt->bth.psn, RES_ATOMIC_WRITE);
		break;
	default:
		res = NULL;
		break;
	}
	if (!res) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_dup_no_resource);
		return;
	}
	if (!res->pending)
		res->owed_at = ++qp->owed;
	res->cur_psn = pkt->bth.psn;
	res->pending = true;
	res->replay = true;
	sched_add(qp);
}

static void rc_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint32_t psn = pkt->bth.psn;
	uint8_t flags = pkt->op->flags, kind = pkt->op->kind;
	int32_t d = uroce_psn_diff(psn, rs->epsn);

	if (rs->error) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_qp_error);
		return;
	}
	if (d < 0) {
		rc_duplicate(qp, pkt);
		return;
	}
	if (d > 0) {
		/* IBA 9.7.5.1.2: one PSN sequence NAK per gap, carrying the expected PSN; then
		 * silence until the expected PSN arrives. */
		if (rs->nak_sent) {
			eng_count(qp->dev, qp, UROCE_CNT_drop_out_of_seq);
			return;
		}
		eng_count(qp->dev, qp, UROCE_CNT_out_of_seq_request);
		rs->nak_sent = true;
		ack_schedule(qp, uroce_aeth_syndrome(UROCE_AETH_NAK, UROCE_NAK_PSN_SEQ_ERR), rs->epsn);
		return;
	}
	rs->nak_sent = false;
	/* Opcode sequence (IBA 9.7.5): a message in progress continues with MIDDLE or
	 * LAST of its own kind; otherwise a FIRST or ONLY starts one. Then the lengths. */
	bool seq_ok = rs->msg != MSG_NONE ? !(flags & UROCE_OPF_FIRST) && kind == msg_kind[rs->msg]
					  : flags & UROCE_OPF_FIRST;
	if (!seq_ok || !length_ok(qp, pkt) || kind >= sizeof(rc_handlers) / sizeof(rc_handlers[0]) ||
	    !rc_handlers[kind]) {
		resp_fail(qp, psn, UROCE_NAK_INVALID_REQ, UROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	rc_handlers[kind](qp, pkt);
}

/* ---- UC (IBA 9.8): no acknowledgements; a gap or an invalid packet discards the rest of
 * its message, silently. ---- */

/* A receive-side error that leaves the QP unusable (the WQE's buffers): the WQE completes
 * with status and the QP goes to ERR. */
static void uc_fail(struct uroce_qp *qp, enum uroce_wc_status st)
{
	struct uroce_wc wc = {.status = st, .opcode = UROCE_WC_RECV};

	recv_wc(qp, &wc, NULL);
	qp_to_error(qp);
}

static void uc_send(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint32_t len = (uint32_t)pkt->payload_len;

	if (pkt->op->flags & UROCE_OPF_FIRST) {
		/* A WQE left by a discarded message is used again (IBA 9.8). */
		if (!rs->have_wqe && !qp_take_rwqe(qp, &rs->wqe)) {
			eng_count(qp->dev, qp, UROCE_CNT_drop_no_recv_wqe);
			return;
		}
		rs->have_wqe = true;
		if (sgl_check(qp->dev, qp->pd, rs->wqe.sge, rs->wqe.nsge, UROCE_ACCESS_LOCAL_WRITE)) {
			uc_fail(qp, UROCE_WC_LOC_PROT_ERR);
			return;
		}
		rs->msg = MSG_SEND;
		rs->msg_psn = pkt->bth.psn;
	}
	uint64_t off = msg_offset(qp, pkt->bth.psn);
	if (off + len > rs->wqe.len) {
		uc_fail(qp, UROCE_WC_LOC_LEN_ERR);
		return;
	}
	if (sgl_write(qp->dev, qp->pd, rs->wqe.sge, rs->wqe.nsge, off, payload(pkt), len,
		      UROCE_ACCESS_LOCAL_WRITE)) {
		uc_fail(qp, UROCE_WC_LOC_PROT_ERR);
		return;
	}
	if (pkt->op->flags & UROCE_OPF_LAST) {
		struct uroce_wc wc = {.opcode = UROCE_WC_RECV, .byte_len = (uint32_t)(off + len)};
		recv_wc(qp, &wc, pkt);
		rs->msg = MSG_NONE;
	}
}

static void uc_write(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint32_t len = (uint32_t)pkt->payload_len;
	uint8_t flags = pkt->op->flags;

	if (flags & UROCE_OPF_FIRST) {
		const struct uroce_reth *reth = &pkt->ext.reth;
		if (!qp_allows(qp, UROCE_ACCESS_REMOTE_WRITE) ||
		    (reth->dmalen && !mr_access(qp->dev, qp->pd, reth->rkey, reth->va, reth->dmalen,
						UROCE_ACCESS_REMOTE_WRITE))) {
			eng_count(qp->dev, qp, UROCE_CNT_drop_uc_invalid);
			return;
		}
		rs->msg = MSG_WRITE;
		rs->msg_psn = pkt->bth.psn;
		rs->va = reth->va;
		rs->rkey = reth->rkey;
		rs->dma_len = reth->dmalen;
	}
	uint64_t off = msg_offset(qp, pkt->bth.psn);
	uint8_t *dst = len ? mr_access(qp->dev, qp->pd, rs->rkey, rs->va + off, len,
				       UROCE_ACCESS_REMOTE_WRITE)
			   : NULL;
	if (off + len > rs->dma_len || (flags & UROCE_OPF_LAST && off + len != rs->dma_len) ||
	    (len && !dst)) {
		rs->msg = MSG_NONE;
		eng_count(qp->dev, qp, UROCE_CNT_drop_uc_invalid);
		return;
	}
	if (flags & UROCE_OPF_LAST && pkt->ext.present & UROCE_EH_IMMDT && !rs->have_wqe) {
		if (!qp_take_rwqe(qp, &rs->wqe)) {
			rs->msg = MSG_NONE;
			eng_count(qp->dev, qp, UROCE_CNT_drop_no_recv_wqe);
			return;
		}
		rs->have_wqe = true;
	}
	if (len)
		dma_write(dst, payload(pkt), len);
	eng_count(qp->dev, qp, UROCE_CNT_rdma_recvs);
	if (flags & UROCE_OPF_LAST) {
		if (pkt->ext.present & UROCE_EH_IMMDT) {
			struct uroce_wc wc = {.opcode = UROCE_WC_RECV_RDMA_WITH_IMM,
					      .byte_len = rs->dma_len};
			recv_wc(qp, &wc, pkt);
		}
		rs->msg = MSG_NONE;
	}
}

static void uc_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint8_t flags = pkt->op->flags, kind = pkt->op->kind;

	/* IBA 9.8: a PSN gap ends the message in progress; the next one starts with a
	 * FIRST or ONLY at whatever PSN it has. A FIRST in the middle of a message, or a packet
	 * of another kind, also ends it. */
	if (rs->msg != MSG_NONE &&
	    (pkt->bth.psn != rs->epsn || flags & UROCE_OPF_FIRST || kind != msg_kind[rs->msg]))
		rs->msg = MSG_NONE;
	rs->epsn = uroce_psn_add(pkt->bth.psn, 1);
	if (rs->msg == MSG_NONE && !(flags & UROCE_OPF_FIRST)) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_uc_gap);
		return;
	}
	if (!length_ok(qp, pkt)) {
		rs->msg = MSG_NONE;
		eng_count(qp->dev, qp, UROCE_CNT_drop_uc_invalid);
		return;
	}
	if (kind == UROCE_OPK_SEND)
		uc_send(qp, pkt);
	else
		uc_write(qp, pkt);
}

/* ---- UD (IBA 9.8 and Annex A17.4.5.2) ---- */

static void ud_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt)
{
	struct resp_state *rs = &qp->resp;
	uint32_t len = (uint32_t)pkt->payload_len;
	uint8_t grh[UROCE_UD_GRH_LEN] = {0};

	/* IBA 10.2.4: the DETH Q_Key must equal the QP's. */
	if (pkt->ext.deth.qkey != qp->attr.qkey) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_bad_qkey);
		return;
	}
	if (len > qp->mtu) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_too_long);
		return;
	}
	if (!qp_take_rwqe(qp, &rs->wqe)) {
		eng_count(qp->dev, qp, UROCE_CNT_drop_no_recv_wqe);
		return;
	}
	rs->have_wqe = true;
	/* The first 40 bytes of the buffer receive the network header: the IPv6 header, or
	 * 20 unused bytes and the IPv4 header (Annex A17.4.5.2; facts.md section 5). */
	if (pkt->layers & UROCE_L_IPV6)
		memcpy(grh, pkt->frame + pkt->l3_off, UROCE_UD_GRH_LEN);
	else
		memcpy(grh + 20, pkt->frame + pkt->l3_off, 20);
	struct uroce_wc wc = {.opcode = UROCE_WC_RECV, .byte_len = UROCE_UD_GRH_LEN + len,
			      .src_qp = pkt->ext.deth.srcqp, .wc_flags = UROCE_WC_F_GRH,
			      .ipv6 = pkt->layers & UROCE_L_IPV6};
	if (UROCE_UD_GRH_LEN + (uint64_t)len > rs->wqe.len) {
		wc.status = UROCE_WC_LOC_LEN_ERR;
		recv_wc(qp, &wc, pkt);
		return;
	}
	if (sgl_write(qp->dev, qp->pd, rs->wqe.sge, rs->wqe.nsge, 0, grh, sizeof(grh),
		      UROCE_ACCESS_LOCAL_WRITE) ||
	    sgl_write(qp->dev, qp->pd, rs->wqe.sge, rs->wqe.nsge, UROCE_UD_GRH_LEN, payload(pkt),
		      len, UROCE_ACCESS_LOCAL_WRITE)) {
		uc_fail(qp, UROCE_WC_LOC_PROT_ERR);
		return;
	}
	recv_wc(qp, &wc, pkt);
}

void resp_rx(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	(void)now;
	switch (qp->type) {
	case UROCE_QPT_RC:
		rc_rx(qp, pkt);
		break;
	case UROCE_QPT_UC:
		uc_rx(qp, pkt);
		break;
	case UROCE_QPT_UD:
	case UROCE_QPT_GSI:
		ud_rx(qp, pkt);
		break;
	}
}

/* ---- responses ---- */

/* The pending resource with the oldest PSN to answer (responses go in PSN order). */
static struct resp_res *res_next_pending(struct resp_state *rs)
{
	struct resp_res *best = NULL;

	for (uint32_t i = 0; i < rs->nres; i++) {
		struct resp_res *r = &rs->res[i];
		if (r->pending && (!best || uroce_psn_lt(r->cur_psn, best->cur_psn)))
			best = r;
	}
	return best;
}

static void emit_res(struct uroce_qp *qp, struct uroce_txbatch *tx, struct resp_res *res,
		     uint64_t now)
{
	struct xmit_pkt p = {.av = &qp->attr.ah_attr, .destqp = qp->attr.dest_qp_num,
			     .psn = res->cur_psn};
	struct resp_state *rs = &qp->resp;

	/* A response acknowledges every request before it (IBA 9.7.5.1), so the first one to a
	 * new READ or atomic takes the place of an ACK still pending for an earlier PSN, which
	 * would only follow it as a stale duplicate. Kept, it would wait behind a requester
	 * that streams READs, and the completions it covers with it (the ACK rule). */
	if (!res->replay && res->cur_psn == res->first_psn && rs->ack_pending &&
	    uroce_aeth_type(rs->ack_syndrome) == UROCE_AETH_ACK &&
	    uroce_psn_lt(rs->ack_psn, res->first_psn))
		rs->ack_pending = false;
	p.ext.aeth.syndrome = ACK_SYNDROME;
	p.ext.aeth.msn = res->msn;
	if (res->kind == RES_ATOMIC) {
		p.opcode = UROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
		p.ext.atomicacketh.orig = res->orig;
		res->pending = false;
		eng_count(qp->dev, qp, UROCE_CNT_acks_sent);
		xmit(qp, tx, &p, now);
		return;
	}
	if (res->kind == RES_ATOMIC_WRITE) {
		/* A READ RESPONSE ONLY without payload (IBA 1.5; rxe_resp.c acknowledge ->
		 * send_read_response_ack), so that the requester orders it as a READ. */
		p.opcode = UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY;
		res->pending = false;
		xmit(qp, tx, &p, now);
		return;
	}
	/* A pending READ answers from cur_psn, inside its request (rc_duplicate takes a resource
	 * only for a PSN inside it: res_find). */
	assert(uroce_psn_le(res->first_psn, res->cur_psn) &&
	       uroce_psn_le(res->cur_psn, res->last_psn));
	uint32_t k = (uint32_t)uroce_psn_diff(res->cur_psn, res->first_psn);
	uint32_t npkts = (uint32_t)uroce_psn_diff(res->last_psn, res->first_psn) + 1;
	uint64_t off = (uint64_t)k * qp->mtu;
	p.opcode = read_resp_op[pkt_pos(k, npkts)];
	p.len = (uint32_t)(res->len - off < qp->mtu ? res->len - off : qp->mtu);
	if (p.len) {
		/* Read at send time, so checked again: the region may have gone since the
		 * request was accepted. */
		p.payload = mr_access(qp->dev, qp->pd, res->rkey, res->va + off, p.len,
				      UROCE_ACCESS_REMOTE_READ);
		if (!p.payload) {
			res->pending = false;
			resp_fail(qp, res->first_psn, UROCE_NAK_REMOTE_ACCESS, UROCE_WC_REM_ACCESS_ERR);
			return;
		}
	}
	res->cur_psn = uroce_psn_add(res->cur_psn, 1);
	if (k + 1 == npkts)
		res->pending = false;
	xmit(qp, tx, &p, now);
}

bool resp_emit(struct uroce_qp *qp, struct uroce_txbatch *tx, uint64_t now)
{
	struct resp_state *rs = &qp->resp;
	struct resp_res *res;

	if (qp->type != UROCE_QPT_RC || !qp_can_receive(qp))
		return false;
	if ((res = res_next_pending(rs))) {
		emit_res(qp, tx, res, now);
		return true;
	}
	if (!rs->ack_pending)
		return false;
	struct xmit_pkt p = {.av = &qp->attr.ah_attr, .opcode = UROCE_OP_RC_ACKNOWLEDGE,
			     .destqp = qp->attr.dest_qp_num, .psn = rs->ack_psn};
	p.ext.aeth.syndrome = rs->ack_syndrome;
	p.ext.aeth.msn = rs->ack_msn;
	switch (uroce_aeth_type(rs->ack_syndrome)) {
	case UROCE_AETH_ACK:
		eng_count(qp->dev, qp, UROCE_CNT_acks_sent);
		break;
	case UROCE_AETH_NAK:
		eng_count(qp->dev, qp, UROCE_CNT_naks_sent);
		break;
	default: /* RNR NAKs are counted as send_rnr_err when decided */
		break;
	}
	rs->ack_pending = false;
	xmit(qp, tx, &p, now);
	if (rs->error)
		qp_to_error(qp);
	return true;
}

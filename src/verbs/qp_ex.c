/* SPDX-License-Identifier: MIT */
/* The extended send interface, ibv_wr_*(3): between ibv_wr_start and ibv_wr_complete each
 * builder begins a request (with the QP's wr_id and wr_flags of the moment) and the setters
 * fill in its data and address; ibv_wr_complete posts the batch as one chain. perftest uses
 * this interface unless told --use_old_post_send.
 *
 * Inline data is copied when it is set, as a NIC's WQE would hold it, so the caller may reuse
 * its buffer before ibv_wr_complete. An error found while building is returned by
 * ibv_wr_complete and nothing of the batch is posted; one the engine finds while posting (a
 * full send queue) stops the chain there, as ibv_post_send does. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static struct uv_qp *qpx(struct ibv_qp_ex *ex) { return (struct uv_qp *)ex; }

/* Begins the next request of the batch. */
static struct uroce_send_wr *begin(struct ibv_qp_ex *ex, enum uroce_wr_opcode op)
{
	struct uv_qp *qp = qpx(ex);
	struct uroce_send_wr *wr;

	if (qp->nwr == qp->cap) {
		qp->wr_err = ENOMEM; /* more requests than the send queue holds */
		return NULL;
	}
	wr = &qp->wr[qp->nwr];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ex->wr_id;
	wr->send_flags = ex->wr_flags;
	wr->opcode = op;
	wr->sg_list = &qp->sge[(size_t)qp->nwr * UROCE_MAX_SGE];
	if (qp->nwr)
		qp->wr[qp->nwr - 1].next = wr;
	qp->nwr++;
	return wr;
}

/* The request the setters apply to. */
static struct uroce_send_wr *current(struct ibv_qp_ex *ex)
{
	struct uv_qp *qp = qpx(ex);

	if (!qp->nwr) {
		qp->wr_err = EINVAL; /* a setter before any builder */
		return NULL;
	}
	return &qp->wr[qp->nwr - 1];
}

static void wr_send(struct ibv_qp_ex *ex) { begin(ex, UROCE_WR_SEND); }

static void wr_send_imm(struct ibv_qp_ex *ex, __be32 imm)
{
	struct uroce_send_wr *wr = begin(ex, UROCE_WR_SEND_WITH_IMM);
	if (wr)
		wr->imm_data = ntohl(imm);
}

static void wr_send_inv(struct ibv_qp_ex *ex, uint32_t rkey)
{
	struct uroce_send_wr *wr = begin(ex, UROCE_WR_SEND_WITH_INV);
	if (wr)
		wr->invalidate_rkey = rkey;
}

static void wr_rdma(struct ibv_qp_ex *ex, enum uroce_wr_opcode op, uint32_t rkey,
		    uint64_t addr, uint32_t imm)
{
	struct uroce_send_wr *wr = begin(ex, op);
	if (wr) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = addr;
		wr->imm_data = imm;
	}
}

static void wr_rdma_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	wr_rdma(ex, UROCE_WR_RDMA_WRITE, rkey, addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr, __be32 imm)
{
	wr_rdma(ex, UROCE_WR_RDMA_WRITE_WITH_IMM, rkey, addr, ntohl(imm));
}

static void wr_rdma_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	wr_rdma(ex, UROCE_WR_RDMA_READ, rkey, addr, 0);
}

static void wr_atomic(struct ibv_qp_ex *ex, enum uroce_wr_opcode op, uint32_t rkey,
		      uint64_t addr, uint64_t compare_add, uint64_t swap)
{
	struct uroce_send_wr *wr = begin(ex, op);
	if (wr) {
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.remote_addr = addr;
		wr->wr.atomic.compare_add = compare_add;
		wr->wr.atomic.swap = swap;
	}
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
			      uint64_t compare, uint64_t swap)
{
	wr_atomic(ex, UROCE_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
				uint64_t add)
{
	wr_atomic(ex, UROCE_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

/* The value is copied now, as inline data is: the engine takes it as the request's 8 inline
 * bytes, which an ATOMIC WRITE may have whatever max_inline_data (uroce_post_send). */
static void wr_atomic_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
			    const void *atomic_wr)
{
	struct uv_qp *qp = qpx(ex);
	struct uroce_send_wr *wr = begin(ex, UROCE_WR_ATOMIC_WRITE);

	if (!wr)
		return;
	uint8_t *buf = qp->atomic_wr[wr - qp->wr];
	memcpy(buf, atomic_wr, sizeof(qp->atomic_wr[0]));
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = addr;
	wr->sg_list[0].addr = (uintptr_t)buf;
	wr->sg_list[0].length = sizeof(qp->atomic_wr[0]);
	wr->sg_list[0].lkey = 0;
	wr->num_sge = 1;
	wr->send_flags |= UROCE_SEND_INLINE;
}

static void wr_local_inv(struct ibv_qp_ex *ex, uint32_t rkey)
{
	struct uroce_send_wr *wr = begin(ex, UROCE_WR_LOCAL_INV);
	if (wr)
		wr->invalidate_rkey = rkey;
}

static void wr_set_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct uroce_send_wr *wr = current(ex);
	if (wr) {
		wr->wr.ud.ah = ((struct uv_ah *)ah)->eng;
		wr->wr.ud.remote_qpn = qpn;
		wr->wr.ud.remote_qkey = qkey;
	}
}

static void wr_set_sge_list(struct ibv_qp_ex *ex, size_t n, const struct ibv_sge *sge)
{
	struct uroce_send_wr *wr = current(ex);

	if (!wr)
		return;
	if (n > UROCE_MAX_SGE) {
		qpx(ex)->wr_err = EINVAL;
		return;
	}
	memcpy(wr->sg_list, sge, n * sizeof(*sge));
	wr->num_sge = (int)n;
}

static void wr_set_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = {addr, length, lkey};
	wr_set_sge_list(ex, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *ex, size_t n,
				    const struct ibv_data_buf *buf)
{
	struct uv_qp *qp = qpx(ex);
	struct uroce_send_wr *wr = current(ex);
	uint8_t *dst;
	size_t i, len = 0;

	if (!wr)
		return;
	for (i = 0; i < n; i++)
		len += buf[i].length;
	if (len > qp->max_inline) {
		qp->wr_err = EINVAL;
		return;
	}
	dst = qp->inline_buf + (size_t)(wr - qp->wr) * qp->max_inline;
	for (i = 0, len = 0; i < n; i++) {
		memcpy(dst + len, buf[i].addr, buf[i].length);
		len += buf[i].length;
	}
	wr->sg_list[0].addr = (uintptr_t)dst;
	wr->sg_list[0].length = (uint32_t)len;
	wr->sg_list[0].lkey = 0;
	wr->num_sge = 1;
	wr->send_flags |= UROCE_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	struct ibv_data_buf buf = {addr, length};
	wr_set_inline_data_list(ex, 1, &buf);
}

static void wr_start(struct ibv_qp_ex *ex)
{
	qpx(ex)->nwr = 0;
	qpx(ex)->wr_err = 0;
}

static int wr_complete(struct ibv_qp_ex *ex)
{
	struct uv_qp *qp = qpx(ex);
	int err = qp->wr_err;

	if (!err && qp->nwr)
		err = uv_send_chain(qp, qp->wr);
	qp->nwr = 0;
	qp->wr_err = 0;
	return uv_fail(err);
}

static void wr_abort(struct ibv_qp_ex *ex) { wr_start(ex); }

/* The operations a QP may be created with (IBV_QP_EX_WITH_*): the ones above. */
#define UV_SEND_OPS                                                                            \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND | \
	 IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |                              \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |              \
	 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_ATOMIC_WRITE)

int uv_qp_ex_init(struct uv_qp *qp, uint64_t ops, const struct uroce_qp_cap *cap)
{
	struct ibv_qp_ex *ex = &qp->ex;

	if (ops & ~(uint64_t)UV_SEND_OPS)
		return EOPNOTSUPP;
	qp->cap = cap->max_send_wr;
	qp->max_inline = cap->max_inline_data;
	qp->wr = calloc(qp->cap, sizeof(*qp->wr));
	qp->sge = calloc((size_t)qp->cap * UROCE_MAX_SGE, sizeof(*qp->sge));
	qp->inline_buf = malloc((size_t)qp->cap * (qp->max_inline ? qp->max_inline : 1));
	qp->atomic_wr = malloc((size_t)qp->cap * sizeof(*qp->atomic_wr));
	if (!qp->wr || !qp->sge || !qp->inline_buf || !qp->atomic_wr) {
		uv_qp_ex_free(qp);
		return ENOMEM;
	}
	ex->wr_send = wr_send;
	ex->wr_send_imm = wr_send_imm;
	ex->wr_send_inv = wr_send_inv;
	ex->wr_rdma_write = wr_rdma_write;
	ex->wr_rdma_write_imm = wr_rdma_write_imm;
	ex->wr_rdma_read = wr_rdma_read;
	ex->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	ex->wr_atomic_fetch_add = wr_atomic_fetch_add;
	ex->wr_atomic_write = wr_atomic_write;
	ex->wr_local_inv = wr_local_inv;
	ex->wr_set_ud_addr = wr_set_ud_addr;
	ex->wr_set_sge = wr_set_sge;
	ex->wr_set_sge_list = wr_set_sge_list;
	ex->wr_set_inline_data = wr_set_inline_data;
	ex->wr_set_inline_data_list = wr_set_inline_data_list;
	ex->wr_start = wr_start;
	ex->wr_complete = wr_complete;
	ex->wr_abort = wr_abort;
	return 0;
}

void uv_qp_ex_free(struct uv_qp *qp)
{
	free(qp->wr);
	free(qp->sge);
	free(qp->inline_buf);
	free(qp->atomic_wr);
	qp->wr = NULL, qp->sge = NULL, qp->inline_buf = NULL, qp->atomic_wr = NULL;
	qp->cap = 0;
}

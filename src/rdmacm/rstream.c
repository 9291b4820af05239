/* SPDX-License-Identifier: MIT */
/* Stream rsockets (SOCK_STREAM; the API is rsocket.c's): a byte stream over an RC QP set up
 * with this library's own rdma_* calls, speaking rdma-core 44's rsocket protocol
 * (librdmacm/rsocket.c, v44.0; the facts used are cited where they are used, and listed in
 * docs/rdmacm.md "rsocket").
 *
 * The protocol in short: each side owns a receive buffer (rbuf) that the peer fills with
 * RDMA WRITE WITH IMMEDIATE, the immediate carrying the operation and the length. The
 * receiver hands out its rbuf half by half: the first half in the connect private data, the
 * next ones by an RDMA WRITE of an SGE into the sender's "target SGL" (2 entries), with an
 * RS_OP_SGL immediate that also returns message credits. One message consumes one credit
 * (one receive WR at the peer).
 *
 * The iomap calls (riomap, riowrite): a socket asks for RDMA_IOMAPSIZE slots before it
 * connects; they follow its target SGL in the same registered memory, and the peer learns
 * of them from RS_CONN_FLAG_IOMAP and target_iomap_size in the connect private data. riomap
 * with PROT_WRITE registers a buffer and writes its struct rs_iomap {u64 offset; struct
 * rs_sge} into a free slot of the peer's (RS_OP_IOMAP_SGL immediate); riowrite then writes
 * straight into the peer's buffer with plain RDMA WRITEs (no immediate, no message at the
 * peer: the application watches its memory). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "rsocket.h"
#include "wire/rsocket.h"

/* rdma-core 44 rsocket.c: RS_MAX_TRANSFER, RS_QP_CTRL_SIZE (send WRs kept for control
 * messages) and RS_SGL_SIZE (entries of the target SGL). */
enum {
	RS_MAX_TRANSFER = 65536,
	RS_QP_CTRL_SIZE = 4,
	RS_SGL_SIZE = 2,
};

/* The immediate: op (rsocket.h) in the top 3 bits, data (length, credits, control code) in
 * the other 29 (rs_msg_set). The control codes in their enum order. */
enum { RS_CTRL_DISCONNECT = 0, RS_CTRL_KEEPALIVE = 1, RS_CTRL_SHUTDOWN = 2 };
#define RS_MSG(op, data) ((uint32_t)(op) << 29 | (uint32_t)(data))
#define RS_MSG_OP(m) ((m) >> 29)
#define RS_MSG_DATA(m) ((m) & 0x1FFFFFFFu)

/* The connect private data is struct rs_conn_data (wire/rsocket.h). The SGEs the peer
 * writes later with RS_OP_SGL (and the iomaps with RS_OP_IOMAP_SGL) are in its own byte
 * order, big-endian when its RS_CONN_FLAG_NET says so. */
enum {
	RS_CONN_DATA_LEN = UROCE_RS_CONN_DATA_LEN,
	RS_SGE_LEN = 16,
	RS_IOMAP_LEN = 24, /* struct rs_iomap: u64 offset, then a struct rs_sge */
	RS_OLAP_START_SIZE = 2048, /* riowrite's first transfer, doubled up to RS_MAX_TRANSFER */
};

struct rs_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

struct rs_iomap {
	uint64_t offset;
	struct rs_sge sge;
};

/* A buffer of ours mapped by riomap: slot >= 0 is the peer's iomap slot it was written to
 * (PROT_WRITE), -1 a local mapping (PROT_NONE). */
struct rs_map {
	struct ibv_mr *mr;
	uint64_t offset;
	int slot;
	bool pending; /* not yet written to the peer's slot */
};

/* state bits */
enum {
	ST_READABLE = 1 << 0,
	ST_WRITABLE = 1 << 1,
	ST_CONNECTED = 1 << 2, /* the RC connection is up (until a DISCONNECT or an error) */
	ST_LISTENING = 1 << 3,
	ST_WAS_CONNECTED = 1 << 4,
};

struct rs {
	struct rsock k; /* first; k.fd is the event channel's fd, as rdma-core's */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	unsigned state;
	int err; /* SO_ERROR */
	int opt_reuse, opt_keepalive, opt_nodelay, opt_keepidle;
	uint32_t sbuf_size, rbuf_size;
	uint16_t sq_size, rq_size, sq_inline;

	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	bool cq_armed;
	uint8_t *sbuf; /* sbuf_size bytes, then RS_QP_CTRL_SIZE SGEs for RS_OP_SGL */
	struct ibv_mr *smr;
	uint8_t *rbuf;
	struct ibv_mr *rmr;
	struct rs_sge *target_sgl; /* written by the peer; target_iomap follows it */
	struct ibv_mr *tmr;
	bool swap_sgl;

	/* iomaps: ours in the peer's slots, the peer's in ours */
	uint16_t target_iomap_size; /* our slots (RDMA_IOMAPSIZE) */
	struct rs_iomap *target_iomap;
	struct rs_sge remote_iomap; /* the peer's slots: address, key, count */
	struct rs_map *maps;
	int nmaps;
	struct rs_iomap *iomap_out; /* one staging entry per peer slot, registered as omr */
	struct ibv_mr *omr;

	/* sending */
	uint16_t sseq_no, sseq_comp; /* messages sent; the peer allows up to sseq_comp */
	int sqe_avail;
	uint32_t sbuf_avail, sbuf_off;
	int target_sge;
	unsigned ctrl_seqno, ctrl_max_seqno;

	/* receiving */
	uint16_t rseq_no, rseq_comp;
	uint32_t rbuf_avail, rbuf_free_off, rbuf_off;
	struct rs_sge remote_sgl;
	int remote_sge;
	uint32_t *rmsg; /* lengths of received messages, a ring of rq_size + 1 */
	int rmsg_head, rmsg_tail;
};

static const struct rsock_ops stream_ops;

static struct rs *rs_of(struct rsock *k)
{
	return (struct rs *)k;
}

static struct rs *rs_alloc(int domain, const struct rs *parent)
{
	struct rs *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->ch = rdma_create_event_channel();
	if (!rs->ch) {
		free(rs);
		return NULL;
	}
	rs->k.ops = &stream_ops;
	rs->k.fd = rs->ch->fd;
	rs->k.domain = domain;
	if (parent) {
		/* an accepted socket inherits the listener's sizes, as rdma-core's */
		rs->sbuf_size = parent->sbuf_size;
		rs->rbuf_size = parent->rbuf_size;
		rs->sq_size = parent->sq_size;
		rs->rq_size = parent->rq_size;
		rs->sq_inline = parent->sq_inline;
		rs->target_iomap_size = parent->target_iomap_size;
		rs->opt_keepalive = parent->opt_keepalive;
		rs->opt_nodelay = parent->opt_nodelay;
	} else {
		rs->sbuf_size = RS_DEF_BUF;
		rs->rbuf_size = RS_DEF_BUF;
		rs->sq_size = RS_DEF_SQSIZE;
		rs->rq_size = RS_DEF_RQSIZE;
		rs->sq_inline = RS_DEF_INLINE;
	}
	if (rsock_insert(&rs->k)) {
		rdma_destroy_event_channel(rs->ch);
		free(rs);
		return NULL;
	}
	return rs;
}

static void rs_free(struct rs *rs)
{
	if (rs->id && rs->id->qp)
		rdma_destroy_qp(rs->id);
	if (rs->cq) {
		if (rs->cq_armed) {
			/* an event may be pending on the channel; take it before the CQ goes */
			struct pollfd p = { .fd = rs->cc->fd, .events = POLLIN };
			struct ibv_cq *cq;
			void *ctx;

			if (poll(&p, 1, 0) == 1 && !ibv_get_cq_event(rs->cc, &cq, &ctx))
				ibv_ack_cq_events(cq, 1);
		}
		ibv_destroy_cq(rs->cq);
	}
	if (rs->cc)
		ibv_destroy_comp_channel(rs->cc);
	if (rs->smr)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr)
		ibv_dereg_mr(rs->rmr);
	if (rs->tmr)
		ibv_dereg_mr(rs->tmr);
	for (int i = 0; i < rs->nmaps; i++)
		ibv_dereg_mr(rs->maps[i].mr);
	free(rs->maps);
	if (rs->omr)
		ibv_dereg_mr(rs->omr);
	free(rs->iomap_out);
	free(rs->sbuf);
	free(rs->rbuf);
	free(rs->target_sgl);
	free(rs->rmsg);
	if (rs->id)
		rdma_destroy_id(rs->id);
	rsock_remove(&rs->k);
	rdma_destroy_event_channel(rs->ch);
	free(rs);
}

/* ---- the connection's resources ---- */

static uint16_t clamp_qp(uint32_t want, uint32_t buf_size)
{
	/* rdma-core's rs_set_qp_size: at least RS_QP_MIN_SIZE, at most one WR per RS_SNDLOWAT
	 * bytes of the buffer */
	uint32_t n = want;

	if (n > RS_QP_MAX_SIZE)
		n = RS_QP_MAX_SIZE;
	if (n > buf_size / RS_SNDLOWAT)
		n = buf_size / RS_SNDLOWAT;
	if (n < RS_QP_MIN_SIZE)
		n = RS_QP_MIN_SIZE;
	return (uint16_t)n;
}

static int rs_post_recv(struct rs *rs)
{
	/* data arrive by RDMA WRITE: the receive WR only takes the immediate */
	struct ibv_recv_wr wr = { .wr_id = 0, .sg_list = NULL, .num_sge = 0 }, *bad;
	int ret = ibv_post_recv(rs->id->qp, &wr, &bad);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static int rs_create_ep(struct rs *rs)
{
	struct ibv_context *verbs = rs->id->verbs;
	struct ibv_qp_init_attr qa;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	size_t tlen;

	if (rs->sbuf_size < RS_SNDLOWAT * 2)
		rs->sbuf_size = RS_SNDLOWAT * 2;
	if (rs->rbuf_size < RS_SNDLOWAT * 2)
		rs->rbuf_size = RS_SNDLOWAT * 2;
	rs->sq_size = clamp_qp(rs->sq_size, rs->sbuf_size);
	rs->rq_size = clamp_qp(rs->rq_size, rs->rbuf_size);
	if (rs->sbuf_size < (uint32_t)rs->sq_size * RS_SNDLOWAT)
		rs->sbuf_size = (uint32_t)rs->sq_size * RS_SNDLOWAT;
	if (rs->rbuf_size < (uint32_t)rs->rq_size * RS_SNDLOWAT)
		rs->rbuf_size = (uint32_t)rs->rq_size * RS_SNDLOWAT;

	rs->cc = ibv_create_comp_channel(verbs);
	if (!rs->cc)
		return -1;
	rs->cq = ibv_create_cq(verbs, rs->sq_size + rs->rq_size, rs, rs->cc, 0);
	if (!rs->cq)
		return -1;

	memset(&qa, 0, sizeof(qa));
	qa.qp_context = rs;
	qa.send_cq = rs->cq;
	qa.recv_cq = rs->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = rs->sq_size;
	qa.cap.max_recv_wr = rs->rq_size;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(rs->id, rs->id->pd, &qa))
		return -1;

	rs->sbuf = calloc(1, rs->sbuf_size + RS_QP_CTRL_SIZE * RS_SGE_LEN);
	rs->rbuf = calloc(1, rs->rbuf_size);
	tlen = RS_SGL_SIZE * sizeof(struct rs_sge) + rs->target_iomap_size * sizeof(struct rs_iomap);
	rs->target_sgl = calloc(1, tlen);
	rs->rmsg = calloc((size_t)rs->rq_size + 1, sizeof(*rs->rmsg));
	if (!rs->sbuf || !rs->rbuf || !rs->target_sgl || !rs->rmsg) {
		errno = ENOMEM;
		return -1;
	}
	rs->smr = ibv_reg_mr(rs->id->pd, rs->sbuf, rs->sbuf_size + RS_QP_CTRL_SIZE * RS_SGE_LEN,
			     IBV_ACCESS_LOCAL_WRITE);
	rs->rmr = ibv_reg_mr(rs->id->pd, rs->rbuf, rs->rbuf_size, acc);
	rs->tmr = ibv_reg_mr(rs->id->pd, rs->target_sgl, tlen, acc);
	if (rs->target_iomap_size)
		rs->target_iomap = (struct rs_iomap *)(rs->target_sgl + RS_SGL_SIZE);
	if (!rs->smr || !rs->rmr || !rs->tmr)
		return -1;

	/* rdma-core's rs_init_bufs: the first rbuf half is handed out in the private data */
	rs->sbuf_avail = rs->sbuf_size;
	rs->ctrl_max_seqno = RS_QP_CTRL_SIZE;
	rs->sqe_avail = rs->sq_size - RS_QP_CTRL_SIZE;
	rs->rbuf_free_off = rs->rbuf_size >> 1;
	rs->rbuf_avail = rs->rbuf_size >> 1;
	rs->rseq_comp = rs->rq_size >> 1;
	for (unsigned i = 0; i < rs->rq_size; i++)
		if (rs_post_recv(rs))
			return -1;
	return 0;
}

/* rdma-core's rs_value_to_scale / rs_scale_to_value with 8 bits: counts up to 128 as they
 * are, larger ones as (value >> 8) with the top bit set, i.e. in steps of 256. */
static int value_to_scale(int v)
{
	return v <= 128 ? v : 128 | (v >> 8);
}

static int scale_to_value(int v)
{
	return v <= 128 ? v : (v & ~128) << 8;
}

static void rs_format_conn_data(const struct rs *rs, uint8_t *p)
{
	/* rdma-core's rs_format_conn_data: RS_CONN_FLAG_IOMAP always, the slots may be 0 */
	struct uroce_rs_conn_data c = {
		.version = UROCE_RS_CONN_VERSION,
		.flags = UROCE_RS_CONN_FLAG_IOMAP |
			 (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? UROCE_RS_CONN_FLAG_NET : 0),
		.credits = rs->rq_size,
		.target_iomap_size = (uint8_t)value_to_scale(rs->target_iomap_size),
		.target_sgl = { (uintptr_t)rs->target_sgl, rs->tmr->rkey, RS_SGL_SIZE },
		.data_buf = { (uintptr_t)rs->rbuf, rs->rmr->rkey, rs->rbuf_size >> 1 },
	};

	uroce_rs_conn_data_build(p, &c);
}

static int rs_save_conn_data(struct rs *rs, const void *data, uint8_t len)
{
	bool net = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	struct uroce_rs_conn_data c;

	if (!data || uroce_rs_conn_data_parse(data, len, &c) ||
	    c.version != UROCE_RS_CONN_VERSION || !c.target_sgl.length) {
		errno = EPROTO;
		return -1;
	}
	rs->sseq_comp = c.credits;
	rs->remote_sgl.addr = c.target_sgl.addr;
	rs->remote_sgl.key = c.target_sgl.key;
	rs->remote_sgl.length = c.target_sgl.length;
	rs->remote_sge = 1;
	rs->swap_sgl = net != !!(c.flags & UROCE_RS_CONN_FLAG_NET);
	rs->target_sgl[0].addr = c.data_buf.addr;
	rs->target_sgl[0].key = c.data_buf.key;
	rs->target_sgl[0].length = c.data_buf.length;
	if (c.flags & UROCE_RS_CONN_FLAG_IOMAP) {
		/* rdma-core's rs_save_conn_data: the slots follow the peer's target SGL */
		rs->remote_iomap.addr = rs->remote_sgl.addr + RS_SGE_LEN * (uint64_t)rs->remote_sgl.length;
		rs->remote_iomap.length = (uint32_t)scale_to_value(c.target_iomap_size);
		rs->remote_iomap.key = rs->remote_sgl.key;
	}
	return 0;
}

/* ---- sending and receiving messages ---- */

static int rs_post_write(struct rs *rs, uint32_t msg, uint64_t laddr, uint32_t len,
			 uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = msg;
	wr.sg_list = len ? &sge : NULL;
	wr.num_sge = len ? 1 : 0;
	/* riowrite's RS_OP_WRITE is a plain RDMA WRITE: nothing for the peer to receive */
	if (RS_MSG_OP(msg) == RS_OP_WRITE) {
		wr.opcode = IBV_WR_RDMA_WRITE;
	} else {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htobe32(msg);
	}
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(rs->id->qp, &wr, &bad);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static bool rs_ctrl_avail(const struct rs *rs)
{
	return rs->ctrl_seqno != rs->ctrl_max_seqno;
}

/* rdma-core's rs_give_credits / rs_send_credits: when half the credits or half the rbuf
 * were consumed, tell the sender: RS_OP_SGL with the new credit limit in the immediate and,
 * when a free rbuf half exists, its SGE written into the sender's next target SGL entry. */
static void rs_update_credits(struct rs *rs)
{
	uint32_t half = rs->rbuf_size >> 1;
	uint32_t msg;

	if (!(rs->state & ST_CONNECTED) || !rs_ctrl_avail(rs))
		return;
	if (rs->rbuf_avail < half && (int16_t)(rs->rseq_no - rs->rseq_comp) < 0)
		return;

	rs->ctrl_seqno++;
	rs->rseq_comp = (uint16_t)(rs->rseq_no + (rs->rq_size >> 1));
	msg = RS_MSG(RS_OP_SGL, (uint16_t)(rs->rseq_no + rs->rq_size));
	if (rs->rbuf_avail >= half) {
		uint8_t *e = rs->sbuf + rs->sbuf_size +
			     RS_SGE_LEN * (rs->ctrl_seqno & (RS_QP_CTRL_SIZE - 1));
		struct rs_sge sge = { .addr = (uintptr_t)(rs->rbuf + rs->rbuf_free_off),
				      .key = rs->rmr->rkey,
				      .length = half };

		if (rs->swap_sgl) {
			sge.addr = __builtin_bswap64(sge.addr);
			sge.key = __builtin_bswap32(sge.key);
			sge.length = __builtin_bswap32(sge.length);
		}
		memcpy(e, &sge, sizeof(sge));
		if (rs_post_write(rs, msg, (uintptr_t)e, RS_SGE_LEN, rs->smr->lkey,
				  rs->remote_sgl.addr + (uint64_t)rs->remote_sge * RS_SGE_LEN,
				  rs->remote_sgl.key))
			return;
		rs->rbuf_avail -= half;
		rs->rbuf_free_off += half;
		if (rs->rbuf_free_off >= rs->rbuf_size)
			rs->rbuf_free_off = 0;
		if (++rs->remote_sge == (int)rs->remote_sgl.length)
			rs->remote_sge = 0;
	} else {
		rs_post_write(rs, msg, 0, 0, 0, 0, 0);
	}
}

static void rs_lost(struct rs *rs, int err)
{
	if (rs->state & ST_CONNECTED) {
		rs->state &= ~(ST_CONNECTED | ST_READABLE | ST_WRITABLE);
		if (!rs->err)
			rs->err = err;
	}
}

static void rs_on_recv(struct rs *rs, uint32_t msg)
{
	switch (RS_MSG_OP(msg)) {
	case RS_OP_SGL:
		rs->sseq_comp = (uint16_t)RS_MSG_DATA(msg);
		break;
	case RS_OP_CTRL:
		if (RS_MSG_DATA(msg) == RS_CTRL_DISCONNECT) {
			rs->state &= ~(ST_CONNECTED | ST_READABLE | ST_WRITABLE);
		} else if (RS_MSG_DATA(msg) == RS_CTRL_SHUTDOWN) {
			if (rs->state & ST_WRITABLE)
				rs->state &= ~ST_READABLE;
			else
				rs->state &= ~(ST_CONNECTED | ST_READABLE);
		}
		break;
	case RS_OP_DATA: {
		uint32_t len = RS_MSG_DATA(msg);

		/* a length beyond what the rbuf can hold is the peer's bug: drop the connection
		 * rather than read outside the buffer */
		if (len > (rs->rbuf_size >> 1)) {
			rs_lost(rs, EPROTO);
			break;
		}
		rs->rmsg[rs->rmsg_tail] = len;
		if (++rs->rmsg_tail == rs->rq_size + 1)
			rs->rmsg_tail = 0;
		break;
	}
	default: /* RS_OP_IOMAP_SGL: the peer wrote one of our iomap slots, nothing to do */
		break;
	}
}

static void rs_on_send(struct rs *rs, uint32_t msg)
{
	switch (RS_MSG_OP(msg)) {
	case RS_OP_DATA:
	case RS_OP_WRITE:
		rs->sqe_avail++;
		rs->sbuf_avail += RS_MSG_DATA(msg);
		break;
	case RS_OP_IOMAP_SGL: /* from iomap_out, not the sbuf */
		rs->sqe_avail++;
		break;
	case RS_OP_CTRL:
		if (RS_MSG_DATA(msg) == RS_CTRL_DISCONNECT)
			rs->state &= ~(ST_CONNECTED | ST_READABLE | ST_WRITABLE);
		rs->ctrl_max_seqno++;
		break;
	default: /* RS_OP_SGL */
		rs->ctrl_max_seqno++;
		break;
	}
}

/* Take every completion; false when the CQ failed. */
static bool rs_poll_cq(struct rs *rs)
{
	struct ibv_wc wc[16];
	int n;

	if (!rs->cq)
		return true;
	while ((n = ibv_poll_cq(rs->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			bool recv = wc[i].opcode & IBV_WC_RECV;

			if (wc[i].status != IBV_WC_SUCCESS) {
				rs_lost(rs, ECONNRESET);
				continue;
			}
			if (recv) {
				rs_on_recv(rs, be32toh(wc[i].imm_data));
				if ((rs->state & ST_CONNECTED) && rs_post_recv(rs))
					rs_lost(rs, errno);
			} else {
				rs_on_send(rs, (uint32_t)wc[i].wr_id);
			}
		}
	}
	if (n < 0) {
		rs_lost(rs, EIO);
		return false;
	}
	rs_update_credits(rs);
	return true;
}

/* Sleep until the CQ has news; the CQ is armed first and polled once more, so that no
 * completion slips between the last poll and the arming. */
static void rs_arm(struct rs *rs)
{
	if (rs->cq && !rs->cq_armed && !ibv_req_notify_cq(rs->cq, 0))
		rs->cq_armed = true;
}

static void rs_take_cq_event(struct rs *rs)
{
	struct ibv_cq *cq;
	void *ctx;

	if (!ibv_get_cq_event(rs->cc, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		rs->cq_armed = false;
	}
}

typedef bool (*rs_cond)(const struct rs *);

/* Process completions until cond holds; EAGAIN instead of waiting when nonblocking. */
static int rs_process(struct rs *rs, bool nonblock, rs_cond cond)
{
	for (;;) {
		if (!rs_poll_cq(rs))
			return -1;
		if (cond(rs))
			return 0;
		if (nonblock) {
			errno = EAGAIN;
			return -1;
		}
		if (!rs->cq_armed) {
			rs_arm(rs);
			continue;
		}
		rs_take_cq_event(rs);
	}
}

static bool can_send(const struct rs *rs)
{
	uint32_t tlen = __atomic_load_n(&rs->target_sgl[rs->target_sge].length, __ATOMIC_ACQUIRE);

	/* rdma-core's rs_can_send */
	return rs->sqe_avail > 0 && rs->sbuf_avail >= RS_SNDLOWAT &&
	       rs->sseq_no != rs->sseq_comp && tlen != 0;
}

static bool conn_can_send(const struct rs *rs)
{
	return can_send(rs) || !(rs->state & ST_WRITABLE);
}

static bool have_rdata(const struct rs *rs)
{
	return rs->rmsg_head != rs->rmsg_tail;
}

static bool conn_have_rdata(const struct rs *rs)
{
	return have_rdata(rs) || !(rs->state & ST_READABLE);
}

static bool conn_can_send_ctrl(const struct rs *rs)
{
	return rs_ctrl_avail(rs) || !(rs->state & ST_CONNECTED);
}

static bool all_sends_done(const struct rs *rs)
{
	return (int)(rs->ctrl_max_seqno - rs->ctrl_seqno) + rs->sqe_avail == rs->sq_size ||
	       !(rs->state & ST_CONNECTED);
}

/* ---- the connection manager's side ---- */

/* Wait for the next event of the socket's channel; its private data copied to pd. */
static int rs_wait_event(struct rs *rs, enum rdma_cm_event_type want, uint8_t *pd,
			 uint8_t *pd_len)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	int status;

	if (rdma_get_cm_event(rs->ch, &ev))
		return -1;
	type = ev->event;
	status = ev->status;
	if (pd && type == want) {
		uint8_t n = ev->param.conn.private_data_len;

		if (n > RS_CONN_DATA_LEN)
			n = RS_CONN_DATA_LEN;
		if (ev->param.conn.private_data)
			memcpy(pd, ev->param.conn.private_data, n);
		else
			n = 0;
		*pd_len = n;
	}
	rdma_ack_cm_event(ev);
	if (type == want)
		return 0;
	switch (type) {
	case RDMA_CM_EVENT_REJECTED:
		errno = ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		errno = status < 0 ? -status : EHOSTUNREACH;
		break;
	default:
		errno = ECONNREFUSED;
		break;
	}
	return -1;
}

static void rs_connected(struct rs *rs)
{
	rs->state = ST_CONNECTED | ST_READABLE | ST_WRITABLE | ST_WAS_CONNECTED;
}

struct rsock *rstream_new(int domain)
{
	struct rs *rs = rs_alloc(domain, NULL);

	if (!rs)
		return NULL;
	if (rdma_create_id(rs->ch, &rs->id, rs, RDMA_PS_TCP)) {
		int e = errno;

		rs_free(rs);
		errno = e;
		return NULL;
	}
	return &rs->k;
}

static int st_bind(struct rsock *k, const struct sockaddr *a, socklen_t l)
{
	struct rs *rs = rs_of(k);
	struct sockaddr_storage ss;

	if (!a || l > sizeof(ss)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&ss, a, l);
	return rdma_bind_addr(rs->id, (struct sockaddr *)&ss);
}

static int st_listen(struct rsock *k, int backlog)
{
	struct rs *rs = rs_of(k);

	if (rdma_listen(rs->id, backlog))
		return -1;
	rs->state = ST_LISTENING;
	return 0;
}

static bool fd_readable(int fd, int timeout)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout) == 1;
}

static int st_getpeername(struct rsock *k, struct sockaddr *a, socklen_t *l);

/* The connect and accept parameters both ends use (rdma-core's rs_do_connect and
 * rs_accept): the socket's connect data in pd, one READ each way, retry and RNR retry 7. */
static void rs_conn_param(const struct rs *rs, struct rdma_conn_param *param,
			  uint8_t pd[RS_CONN_DATA_LEN])
{
	rs_format_conn_data(rs, pd);
	memset(param, 0, sizeof(*param));
	param->private_data = pd;
	param->private_data_len = RS_CONN_DATA_LEN;
	param->responder_resources = 1;
	param->initiator_depth = 1;
	param->retry_count = 7;
	param->rnr_retry_count = 7;
}

static int st_accept(struct rsock *k, struct sockaddr *a, socklen_t *l)
{
	struct rs *ls = rs_of(k), *rs;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct rdma_conn_param param;
	uint8_t creq[RS_CONN_DATA_LEN], cresp[RS_CONN_DATA_LEN], n;

	if (!(ls->state & ST_LISTENING)) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		if ((ls->k.fd_flags & O_NONBLOCK) && !fd_readable(ls->k.fd, 0)) {
			errno = EAGAIN;
			return -1;
		}
		if (rdma_get_cm_event(ls->ch, &ev))
			return -1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		rdma_ack_cm_event(ev);
	}
	id = ev->id;
	n = ev->param.conn.private_data_len;
	if (n > RS_CONN_DATA_LEN)
		n = RS_CONN_DATA_LEN;
	memset(creq, 0, sizeof(creq));
	if (ev->param.conn.private_data)
		memcpy(creq, ev->param.conn.private_data, n);
	rdma_ack_cm_event(ev);

	rs = rs_alloc(ls->k.domain, ls);
	if (!rs) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return -1;
	}
	rs->id = id;
	id->context = rs;
	if (rdma_migrate_id(id, rs->ch) || rs_create_ep(rs) || rs_save_conn_data(rs, creq, n))
		goto fail;
	rs_conn_param(rs, &param, cresp);
	if (rdma_accept(id, &param) || rs_wait_event(rs, RDMA_CM_EVENT_ESTABLISHED, NULL, NULL))
		goto fail;
	rs_connected(rs);
	rs->k.fd_flags = 0;
	if (a && l)
		st_getpeername(&rs->k, a, l);
	return rs->k.fd;
fail: {
	int e = errno;

	rdma_reject(id, NULL, 0);
	rs_free(rs);
	errno = e;
	return -1;
}
}

static int st_connect(struct rsock *k, const struct sockaddr *a, socklen_t l)
{
	struct rs *rs = rs_of(k);
	struct rdma_conn_param param;
	uint8_t creq[RS_CONN_DATA_LEN], cresp[RS_CONN_DATA_LEN], n = 0;
	struct sockaddr_storage ss;

	if (!a || l > sizeof(ss)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&ss, a, l);
	if (rs->state & ST_WAS_CONNECTED) {
		errno = EISCONN;
		return -1;
	}
	/* The connection is set up synchronously, also for a nonblocking socket (a connect
	 * that completes at once): rstream's -T n then finds it writable. */
	if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)&ss, 2000) ||
	    rs_wait_event(rs, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL) ||
	    rdma_resolve_route(rs->id, 2000) ||
	    rs_wait_event(rs, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL) || rs_create_ep(rs))
		goto fail;
	/* rdma-core's rs_do_connect: flow control too */
	rs_conn_param(rs, &param, creq);
	param.flow_control = 1;
	if (rdma_connect(rs->id, &param) ||
	    rs_wait_event(rs, RDMA_CM_EVENT_ESTABLISHED, cresp, &n))
		goto fail;
	if (rs_save_conn_data(rs, cresp, n)) {
		rdma_disconnect(rs->id);
		goto fail;
	}
	rs_connected(rs);
	return 0;
fail:
	rs->err = errno;
	return -1;
}

/* ---- data ---- */

static bool nonblocking(const struct rs *rs, int flags)
{
	return rsock_nonblocking(&rs->k, flags);
}

static int rs_send_iomaps(struct rs *rs, bool nonblock);

/* The message's RS_MSG_DATA(msg) bytes from p, copied into the send buffer at sbuf_off and
 * written from there to raddr (rsend's data, riowrite's): -1 when the post failed, which
 * ends the connection. The caller has checked that they fit before the ring's end. */
static int rs_write_sbuf(struct rs *rs, uint32_t msg, const uint8_t *p, uint64_t raddr,
			 uint32_t rkey)
{
	uint32_t x = RS_MSG_DATA(msg);

	memcpy(rs->sbuf + rs->sbuf_off, p, x);
	rs->sqe_avail--;
	rs->sbuf_avail -= x;
	if (rs_post_write(rs, msg, (uintptr_t)(rs->sbuf + rs->sbuf_off), x, rs->smr->lkey, raddr,
			  rkey)) {
		rs_lost(rs, errno);
		return -1;
	}
	rs->sbuf_off += x;
	if (rs->sbuf_off == rs->sbuf_size)
		rs->sbuf_off = 0;
	return 0;
}

/* rsend of n bytes: how many were taken, or -1 when none could be. */
static ssize_t rs_send_buf(struct rs *rs, const void *b, size_t n, int f)
{
	const uint8_t *p = b;
	size_t left = n;

	/* rdma-core's rsend: the mappings made since go first */
	if (rs_send_iomaps(rs, nonblocking(rs, f)))
		return -1;
	while (left) {
		struct rs_sge *t;
		uint32_t x;
		uint64_t raddr;

		if (!can_send(rs) && rs_process(rs, nonblocking(rs, f), conn_can_send))
			break;
		if (!(rs->state & ST_WRITABLE)) {
			errno = EPIPE;
			break;
		}
		t = &rs->target_sgl[rs->target_sge];
		x = left > RS_MAX_TRANSFER ? RS_MAX_TRANSFER : (uint32_t)left;
		if (x > rs->sbuf_avail)
			x = rs->sbuf_avail;
		if (x > rs->sbuf_size - rs->sbuf_off)
			x = rs->sbuf_size - rs->sbuf_off;
		if (x > __atomic_load_n(&t->length, __ATOMIC_ACQUIRE))
			x = t->length;
		/* rdma-core's rs_write_data: move the target SGE before posting, the peer may
		 * rewrite it as soon as it is used up */
		raddr = t->addr;
		t->addr += x;
		t->length -= x;
		if (!t->length && ++rs->target_sge == RS_SGL_SIZE)
			rs->target_sge = 0;
		rs->sseq_no++;
		if (rs_write_sbuf(rs, RS_MSG(RS_OP_DATA, x), p, raddr, t->key))
			break;
		p += x;
		left -= x;
	}
	if (left == n)
		return -1;
	return (ssize_t)(n - left);
}

/* rrecv into n bytes: how many were read (0 at the peer's end), or -1. */
static ssize_t rs_recv_buf(struct rs *rs, void *b, size_t n, int f)
{
	uint8_t *p = b;
	size_t left = n;

	if (!have_rdata(rs) && rs_process(rs, nonblocking(rs, f), conn_have_rdata))
		return -1;
	while (left && have_rdata(rs)) {
		uint32_t *m = &rs->rmsg[rs->rmsg_head];
		uint32_t x = *m < left ? *m : (uint32_t)left;
		uint32_t end = rs->rbuf_size - rs->rbuf_off;

		if (x > end) {
			memcpy(p, rs->rbuf + rs->rbuf_off, end);
			memcpy(p + end, rs->rbuf, x - end);
			rs->rbuf_off = x - end;
		} else {
			memcpy(p, rs->rbuf + rs->rbuf_off, x);
			rs->rbuf_off += x;
			if (rs->rbuf_off == rs->rbuf_size)
				rs->rbuf_off = 0;
		}
		rs->rbuf_avail += x;
		p += x;
		left -= x;
		*m -= x;
		if (!*m) {
			rs->rseq_no++;
			if (++rs->rmsg_head == rs->rq_size + 1)
				rs->rmsg_head = 0;
		}
	}
	rs_update_credits(rs);
	return (ssize_t)(n - left);
}

/* The vector calls: one transfer per element, stopping at the first short one. */
static ssize_t st_send(struct rsock *k, const struct iovec *v, int cnt, int f,
		       const struct sockaddr *to, socklen_t tolen)
{
	struct rs *rs = rs_of(k);
	ssize_t total = 0;

	if (to || tolen) {
		errno = EISCONN; /* rdma-core's rsendto on a stream socket */
		return -1;
	}
	if (!(rs->state & ST_WAS_CONNECTED)) {
		errno = ENOTCONN;
		return -1;
	}
	for (int i = 0; i < cnt; i++) {
		ssize_t r;

		if (!v[i].iov_len)
			continue;
		r = rs_send_buf(rs, v[i].iov_base, v[i].iov_len, f);
		if (r < 0)
			return total ? total : -1;
		total += r;
		if ((size_t)r < v[i].iov_len)
			break;
	}
	return total;
}

static ssize_t st_recv(struct rsock *k, const struct iovec *v, int cnt, int f,
		       struct sockaddr *from, socklen_t *fromlen)
{
	struct rs *rs = rs_of(k);
	ssize_t total = 0;

	if (!(rs->state & ST_WAS_CONNECTED)) {
		errno = ENOTCONN;
		return -1;
	}
	if (f & MSG_PEEK) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (from && fromlen)
		st_getpeername(k, from, fromlen);
	for (int i = 0; i < cnt; i++) {
		ssize_t r;

		if (!v[i].iov_len)
			continue;
		r = rs_recv_buf(rs, v[i].iov_base, v[i].iov_len, total ? f | MSG_DONTWAIT : f);
		if (r < 0)
			return total ? total : -1;
		total += r;
		if ((size_t)r < v[i].iov_len)
			break;
	}
	return total;
}

/* ---- shutdown and close ---- */

static int st_shutdown(struct rsock *k, int how)
{
	struct rs *rs = rs_of(k);
	int ctrl;

	if (!(rs->state & ST_CONNECTED))
		return 0;
	/* rdma-core's rshutdown: which control message for which direction */
	if (how == SHUT_RDWR) {
		ctrl = RS_CTRL_DISCONNECT;
		rs->state &= ~(ST_READABLE | ST_WRITABLE);
	} else if (how == SHUT_WR) {
		rs->state &= ~ST_WRITABLE;
		ctrl = (rs->state & ST_READABLE) ? RS_CTRL_SHUTDOWN : RS_CTRL_DISCONNECT;
	} else {
		rs->state &= ~ST_READABLE;
		if (rs->state & ST_WRITABLE)
			return 0;
		ctrl = RS_CTRL_DISCONNECT;
	}
	if (!rs_ctrl_avail(rs) && rs_process(rs, false, conn_can_send_ctrl))
		return -1;
	if ((rs->state & ST_CONNECTED) && rs_ctrl_avail(rs)) {
		rs->ctrl_seqno++;
		if (rs_post_write(rs, RS_MSG(RS_OP_CTRL, ctrl), 0, 0, 0, 0, 0))
			rs_lost(rs, errno);
	}
	if (rs->state & ST_CONNECTED)
		rs_process(rs, false, all_sends_done);
	return 0;
}

static void st_close(struct rsock *k)
{
	struct rs *rs = rs_of(k);

	if (rs->state & ST_CONNECTED)
		st_shutdown(k, SHUT_RDWR);
	if (rs->state & ST_WAS_CONNECTED)
		rdma_disconnect(rs->id);
	rs_free(rs);
}

/* ---- poll and select ---- */

static short st_revents(struct rsock *k, short events)
{
	struct rs *rs = rs_of(k);
	short r = 0;

	if (rs->state & ST_LISTENING)
		return fd_readable(rs->k.fd, 0) ? (events & POLLIN) : 0;
	if (!(rs->state & ST_WAS_CONNECTED))
		return 0;
	rs_poll_cq(rs);
	if (conn_have_rdata(rs))
		r |= events & POLLIN;
	if (conn_can_send(rs))
		r |= events & POLLOUT;
	/* rdma-core reports POLLHUP as soon as the peer's DISCONNECT is in, even with data
	 * still to read; rstream's do_poll then fails on a transfer whose last bytes came with
	 * the DISCONNECT. Here the hang-up waits until those bytes are read, as TCP's POLLHUP
	 * never hides data that arrived before the FIN. */
	if (!(rs->state & ST_CONNECTED) && !have_rdata(rs))
		r |= rs->err ? POLLERR : POLLHUP;
	return r;
}

/* A listener sleeps on its event channel, a connection on its CQ's channel. */
static int st_arm(struct rsock *k)
{
	struct rs *rs = rs_of(k);

	if ((rs->state & ST_LISTENING) || !rs->cc)
		return rs->k.fd;
	rs_arm(rs);
	return rs->cc->fd;
}

static void st_woken(struct rsock *k)
{
	struct rs *rs = rs_of(k);

	if (!(rs->state & ST_LISTENING) && rs->cc)
		rs_take_cq_event(rs);
}

/* ---- names and options ---- */

static int st_getpeername(struct rsock *k, struct sockaddr *a, socklen_t *l)
{
	struct rs *rs = rs_of(k);

	if (!(rs->state & ST_WAS_CONNECTED)) {
		errno = ENOTCONN;
		return -1;
	}
	return rsock_copy_addr(rdma_get_peer_addr(rs->id), a, l);
}

static int st_getsockname(struct rsock *k, struct sockaddr *a, socklen_t *l)
{
	return rsock_copy_addr(rdma_get_local_addr(rs_of(k)->id), a, l);
}

/* The options as ints: where each lives. */
static int *int_opt(struct rs *rs, int level, int name)
{
	if (level == SOL_SOCKET && name == SO_REUSEADDR)
		return &rs->opt_reuse;
	if (level == SOL_SOCKET && name == SO_KEEPALIVE)
		return &rs->opt_keepalive;
	if (level == IPPROTO_TCP && name == TCP_NODELAY)
		return &rs->opt_nodelay;
	if (level == IPPROTO_TCP && name == TCP_KEEPIDLE)
		return &rs->opt_keepidle;
	return NULL;
}

static int st_setsockopt(struct rsock *k, int level, int name, const void *v, socklen_t l)
{
	struct rs *rs = rs_of(k);
	uint32_t val;
	int *o;

	if (level == SOL_RDMA && name == RDMA_SQSIZE && l >= sizeof(uint32_t)) {
		memcpy(&val, v, sizeof(val));
		if (!rs->cq)
			rs->sq_size = (uint16_t)(val > RS_QP_MAX_SIZE ? RS_QP_MAX_SIZE : val);
		return 0;
	}
	if (level == SOL_RDMA && name == RDMA_RQSIZE && l >= sizeof(uint32_t)) {
		memcpy(&val, v, sizeof(val));
		if (!rs->cq)
			rs->rq_size = (uint16_t)(val > RS_QP_MAX_SIZE ? RS_QP_MAX_SIZE : val);
		return 0;
	}
	if (level == SOL_RDMA && name == RDMA_INLINE && l >= sizeof(uint32_t)) {
		/* recorded: data always go from the registered sbuf, inline or not is the
		 * sender's business only */
		memcpy(&val, v, sizeof(val));
		rs->sq_inline = (uint16_t)(val > 0xFFFF ? 0xFFFF : val);
		return 0;
	}
	if (level == SOL_RDMA && name == RDMA_IOMAPSIZE) {
		/* slots for the peer's riomap: rounded as the connect private data will carry
		 * them (rdma-core's rsetsockopt), taken into account when the socket connects */
		int n;

		memcpy(&n, v, sizeof(n));
		if (n < 0 || n > 0xFFFF) {
			errno = EINVAL;
			return -1;
		}
		if (!rs->cq)
			rs->target_iomap_size = (uint16_t)scale_to_value(value_to_scale(n) & 0xFF);
		return 0;
	}
	memcpy(&val, v, sizeof(val));
	if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF)) {
		/* rdma-core's rsetsockopt: the buffer is twice the value, before it exists */
		if (name == SO_SNDBUF && !rs->sbuf)
			rs->sbuf_size = val << 1;
		if (name == SO_RCVBUF && !rs->rbuf)
			rs->rbuf_size = val << 1;
		return 0;
	}
	o = int_opt(rs, level, name);
	if (!o) {
		errno = ENOPROTOOPT;
		return -1;
	}
	*o = (int)val;
	if (level == SOL_SOCKET && name == SO_REUSEADDR)
		return rdma_set_option(rs->id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &rs->opt_reuse,
				       sizeof(rs->opt_reuse));
	return 0;
}

static int st_getsockopt(struct rsock *k, int level, int name, int *val)
{
	struct rs *rs = rs_of(k);
	int *o;

	if (level == SOL_SOCKET && name == SO_ERROR) {
		*val = rs->err;
		rs->err = 0;
	} else if (level == SOL_SOCKET && name == SO_SNDBUF) {
		*val = (int)rs->sbuf_size;
	} else if (level == SOL_SOCKET && name == SO_RCVBUF) {
		*val = (int)rs->rbuf_size;
	} else if (level == SOL_RDMA && name == RDMA_SQSIZE) {
		*val = rs->sq_size;
	} else if (level == SOL_RDMA && name == RDMA_RQSIZE) {
		*val = rs->rq_size;
	} else if (level == SOL_RDMA && name == RDMA_INLINE) {
		*val = rs->sq_inline;
	} else if (level == SOL_RDMA && name == RDMA_IOMAPSIZE) {
		*val = rs->target_iomap_size;
	} else {
		o = int_opt(rs, level, name);
		if (!o) {
			errno = ENOPROTOOPT;
			return -1;
		}
		*val = *o;
	}
	return 0;
}

/* ---- iomaps ---- */

/* Write every pending mapping into its slot of the peer's (rdma-core's rs_send_iomaps): an
 * RDMA WRITE WITH IMMEDIATE RS_OP_IOMAP_SGL, which takes a message credit like data. */
static int rs_send_iomaps(struct rs *rs, bool nonblock)
{
	for (int i = 0; i < rs->nmaps; i++) {
		struct rs_map *m = &rs->maps[i];
		struct rs_iomap *o;

		if (!m->pending)
			continue;
		if (!can_send(rs) && rs_process(rs, nonblock, conn_can_send))
			return -1;
		if (!(rs->state & ST_WRITABLE)) {
			errno = ECONNRESET;
			return -1;
		}
		o = &rs->iomap_out[m->slot];
		o->offset = m->offset;
		o->sge.addr = (uintptr_t)m->mr->addr;
		o->sge.length = (uint32_t)m->mr->length;
		o->sge.key = m->mr->rkey;
		if (rs->swap_sgl) {
			o->offset = __builtin_bswap64(o->offset);
			o->sge.addr = __builtin_bswap64(o->sge.addr);
			o->sge.length = __builtin_bswap32(o->sge.length);
			o->sge.key = __builtin_bswap32(o->sge.key);
		}
		rs->sseq_no++;
		rs->sqe_avail--;
		if (rs_post_write(rs, RS_MSG(RS_OP_IOMAP_SGL, (uint32_t)m->slot), (uintptr_t)o,
				  RS_IOMAP_LEN, rs->omr->lkey,
				  rs->remote_iomap.addr + (uint64_t)m->slot * RS_IOMAP_LEN,
				  rs->remote_iomap.key)) {
			rs_lost(rs, errno);
			return -1;
		}
		m->pending = false;
	}
	return 0;
}

static bool slot_used(const struct rs *rs, int slot)
{
	for (int i = 0; i < rs->nmaps; i++)
		if (rs->maps[i].slot == slot)
			return true;
	return false;
}

/* riomap (rdma-core's semantics): PROT_WRITE maps the buffer into a free slot of the
 * peer's, written before the next rsend or riowrite; PROT_NONE only registers it. An offset
 * of -1 maps it at its own address. Overlapping offsets are not checked, as in rdma-core. */
static off_t st_iomap(struct rsock *k, void *b, size_t n, int prot, int f, off_t off)
{
	struct rs *rs = rs_of(k);
	struct rs_map *maps, m = { .slot = -1 };
	int acc = IBV_ACCESS_LOCAL_WRITE;

	(void)f;
	if (!rs->id || !rs->id->pd || (prot & ~PROT_WRITE)) {
		errno = EINVAL;
		return -1;
	}
	if (prot & PROT_WRITE) {
		for (m.slot = 0; m.slot < (int)rs->remote_iomap.length && slot_used(rs, m.slot); m.slot++)
			;
		if (m.slot == (int)rs->remote_iomap.length) {
			errno = ENOMEM; /* the peer has no free slot: rdma-core says ENOMEM too */
			return -1;
		}
		if (!rs->iomap_out) {
			rs->iomap_out = calloc(rs->remote_iomap.length, sizeof(*rs->iomap_out));
			if (!rs->iomap_out) {
				errno = ENOMEM;
				return -1;
			}
			rs->omr = ibv_reg_mr(rs->id->pd, rs->iomap_out,
					     rs->remote_iomap.length * sizeof(*rs->iomap_out), 0);
			if (!rs->omr) {
				free(rs->iomap_out);
				rs->iomap_out = NULL;
				return -1;
			}
		}
		acc |= IBV_ACCESS_REMOTE_WRITE;
		m.pending = true;
	}
	maps = realloc(rs->maps, (size_t)(rs->nmaps + 1) * sizeof(*maps));
	if (!maps) {
		errno = ENOMEM;
		return -1;
	}
	rs->maps = maps;
	m.mr = ibv_reg_mr(rs->id->pd, b, n, acc);
	if (!m.mr)
		return -1;
	m.offset = off == -1 ? (uint64_t)(uintptr_t)b : (uint64_t)off;
	rs->maps[rs->nmaps++] = m;
	return (off_t)m.offset;
}

/* The peer is not told (as in rdma-core): its slot keeps pointing at a region that is no
 * longer registered, so that its next riowrite there fails its connection. */
static int st_iounmap(struct rsock *k, void *b, size_t n)
{
	struct rs *rs = rs_of(k);

	for (int i = 0; i < rs->nmaps; i++) {
		if (rs->maps[i].mr->addr == b && rs->maps[i].mr->length == n) {
			ibv_dereg_mr(rs->maps[i].mr);
			rs->maps[i] = rs->maps[--rs->nmaps];
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

/* The peer's mapping that holds offset, as the peer last wrote it. */
static const struct rs_iomap *find_iomap(const struct rs *rs, uint64_t off, struct rs_iomap *copy)
{
	for (unsigned i = 0; i < rs->target_iomap_size; i++) {
		memcpy(copy, &rs->target_iomap[i], sizeof(*copy));
		if (copy->sge.length && off >= copy->offset && off - copy->offset < copy->sge.length)
			return copy;
	}
	return NULL;
}

/* riowrite (rdma-core's): up to n bytes into the peer's mapping at offset off, through the
 * sbuf like rsend, in transfers that start at 2 KiB and double up to RS_MAX_TRANSFER. Stops
 * at the end of a mapping or where no mapping is; returns the bytes written, or -1 when
 * none could be. */
static size_t st_iowrite(struct rsock *k, const void *b, size_t n, off_t off, int f)
{
	struct rs *rs = rs_of(k);
	const uint8_t *p = b;
	uint64_t o = (uint64_t)off;
	uint32_t olen = RS_OLAP_START_SIZE;
	size_t left = n;
	struct rs_iomap iom;
	bool err = false;

	if (!(rs->state & ST_WAS_CONNECTED)) {
		errno = ENOTCONN;
		return (size_t)-1;
	}
	if (rs_send_iomaps(rs, nonblocking(rs, f)))
		return (size_t)-1;
	while (left) {
		uint32_t x;

		if (!find_iomap(rs, o, &iom))
			break;
		if (!can_send(rs) && rs_process(rs, nonblocking(rs, f), conn_can_send)) {
			err = true;
			break;
		}
		if (!(rs->state & ST_WRITABLE)) {
			errno = ECONNRESET;
			err = true;
			break;
		}
		x = left > olen ? olen : (uint32_t)left;
		if (olen < RS_MAX_TRANSFER)
			olen <<= 1;
		if (x > rs->sbuf_avail)
			x = rs->sbuf_avail;
		if (x > rs->sbuf_size - rs->sbuf_off)
			x = rs->sbuf_size - rs->sbuf_off;
		if (x > iom.sge.length - (o - iom.offset)) /* find_iomap: o - offset < length */
			x = (uint32_t)(iom.sge.length - (o - iom.offset));
		if (rs_write_sbuf(rs, RS_MSG(RS_OP_WRITE, x), p, iom.sge.addr + (o - iom.offset),
				  iom.sge.key)) {
			err = true;
			break;
		}
		p += x;
		o += x;
		left -= x;
	}
	if (err && left == n)
		return (size_t)-1;
	return n - left;
}

static const struct rsock_ops stream_ops = {
	.bind = st_bind,
	.listen = st_listen,
	.accept = st_accept,
	.connect = st_connect,
	.send = st_send,
	.recv = st_recv,
	.shutdown = st_shutdown,
	.close = st_close,
	.getpeername = st_getpeername,
	.getsockname = st_getsockname,
	.setsockopt = st_setsockopt,
	.getsockopt = st_getsockopt,
	.revents = st_revents,
	.arm = st_arm,
	.woken = st_woken,
	.iomap = st_iomap,
	.iounmap = st_iounmap,
	.iowrite = st_iowrite,
};

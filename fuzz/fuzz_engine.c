/* SPDX-License-Identifier: MIT */
/* Input: a script of steps run against two live engines, A (10.0.0.1) and B (10.0.0.2),
 * each with an RC, a UC and a UD QP connected to the other's, a second RC QP whose receives
 * come from a shared receive queue (armed limit), and the GSI QP (QP1); receives posted
 * (some with two SGEs), and SEND (some gathered from two SGEs), WRITE, READ, atomics,
 * SEND_WITH_INV and LOCAL_INV (of a third region registered for invalidation, which a post
 * step can register again under a new key) outstanding from the start, so that the
 * responder, the completer, the SRQ and the UC/UD/GSI receive paths all hold state to get
 * wrong. Each step is an op byte (low
 * three bits: the op; bit 3: which engine; bits 4-5: flags) and its operands:
 *
 *   0 inject   u16 length, bytes: bit 5 clear, a whole datagram from the IP header on; set,
 *              only the transport part (BTH to payload), behind IPv4/UDP headers the harness
 *              writes as the peer would. Bit 4: the harness makes lengths, IPv4 checksum and
 *              ICRC right (so the packet gets past the ICRC check); clear, they stay raw.
 *   1 mutate   u8 edits, then (u16 offset, u8 xor) per edit, u8 bytes to cut: the next
 *              packet the other engine sent, changed and delivered; bit 4 fixes it up after.
 *   2 deliver  u8 count: the next packets in flight, in order
 *   3 drop     the next packet in flight
 *   4 dup      the next packet in flight, delivered and kept
 *   5 time     u8 k: virtual time moves 2^k us (k mod 24) and the timers run
 *   6 post     u8 what, u8 size: one more work request or receive
 *   7 swap     the next two packets in flight change places
 *
 * Then a clean finish: everything in flight is delivered and time moves on until both
 * engines are quiet (bounded). Each input starts from a fresh pair, so an input replays
 * alone. Invariants beyond the sanitizers: no byte outside a registered region changes
 * (guard bytes around every MR); every packet an engine sends is a whole RoCEv2 packet with
 * a good ICRC, from it to its peer; completions come in posting order per queue, with valid
 * statuses and opcodes; each RC requester keeps una <= psn <= psn_max and its send queue
 * tail <= cur <= head; after the timers ran nothing is overdue; every received datagram is
 * counted (rcvd_pkts or a drop_* counter).
 *
 * Built with -DFUZZ_ENGINE_CORPUS it is the seed generator instead: it runs a clean
 * exchange and writes, in this format, scripts and packets the engines produced (docs/fuzzing.md). */
#include "fuzz_check.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/priv.h"
#include "wire/bytes.h"
#include "wire/icrc.h"
#include "wire/ip.h"
#include "wire/psn.h"

enum { QP_RC, QP_UC, QP_UD, QP_SRQ, QP_GSI, NQP };

#define GUARD 64                  /* bytes checked on each side of every MR */
#define DATA_LEN 8192             /* the region remote requests reach */
#define LOCAL_LEN 65536           /* SGEs: receive buffers, send data, READ and atomic results */
#define INV_LEN 4096              /* the region LOCAL_INV and SEND_WITH_INV invalidate */
#define DATA_IOVA 0x100000ull
#define LOCAL_IOVA 0x200000ull
#define INV_IOVA 0x300000ull
#define SRQ_LIMIT 2
#define RECV_SLOT 1536            /* each QP has 4 receive slots */
#define SEND_AREA (NQP * 4 * RECV_SLOT)
#define READ_AREA (SEND_AREA + 2048)
#define ATOMIC_AREA (READ_AREA + 4096)
#define OUTBOX 64                 /* packets in flight from one engine */
#define MAX_STEPS 512
#define FINISH_ROUNDS 64
#define QKEY 0x11111111u
#define GSI_QKEY 0x80010000u
#define FILL 0x5C
#define GUARD_FILL 0xE7

enum op { OP_INJECT, OP_MUTATE, OP_DELIVER, OP_DROP, OP_DUP, OP_TIME, OP_POST, OP_SWAP };
#define F_NODE 0x08
#define F_FIX 0x10
#define F_FRAMED 0x20

struct region {
	uint8_t *mem;            /* GUARD + len + GUARD bytes */
	size_t len;
	struct uroce_mr *mr;
};

struct node {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp[NQP];
	struct uroce_srq *srq;    /* QP_SRQ's receives */
	struct uroce_ah *ah;
	struct region data, local, inv;
	struct uroce_io_addr addr;
	uint64_t send_id[NQP], recv_id[NQP];   /* the next wr_id to post (increasing) */
	uint64_t send_done[NQP], recv_done[NQP]; /* one past the last wr_id completed */
	uint64_t recv_calls;
	bool posted; /* a send was posted since the last flush_out */
	/* in flight to the other engine */
	uint8_t box[OUTBOX][UROCE_MAX_DATAGRAM];
	uint32_t box_len[OUTBOX];
	uint32_t head, count;
};

static struct node g_node[2];
static uint64_t g_now;
static uint8_t g_pkt[UROCE_MAX_DATAGRAM + 64];

/* ---- setup ---- */

#define ALL_ACCESS (UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE | \
		    UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC)

static void region_new(struct node *n, struct region *r, size_t len, uint64_t iova,
		       unsigned access)
{
	r->len = len;
	r->mem = malloc(len + 2 * GUARD);
	FUZZ_CHECK(r->mem);
	memset(r->mem, GUARD_FILL, GUARD);
	memset(r->mem + GUARD, FILL, len);
	memset(r->mem + GUARD + len, GUARD_FILL, GUARD);
	FUZZ_CHECK(uroce_mr_reg(n->pd, r->mem + GUARD, len, iova, access, &r->mr) == 0);
}

/* The invalidatable region once more, under a new key (the old one reaches nothing). */
static void inv_reregister(struct node *n)
{
	FUZZ_CHECK(uroce_mr_dereg(n->inv.mr) == 0);
	FUZZ_CHECK(uroce_mr_reg(n->pd, n->inv.mem + GUARD, INV_LEN, INV_IOVA,
				ALL_ACCESS | UROCE_ACCESS_INVALIDATE, &n->inv.mr) == 0);
}

static void guards_check(const struct region *r)
{
	for (size_t i = 0; i < GUARD; i++)
		FUZZ_CHECK(r->mem[i] == GUARD_FILL && r->mem[GUARD + r->len + i] == GUARD_FILL);
}

/* RESET -> RTS with the attributes each type requires (IBA 11.2.4.2). */
static void qp_rts(struct uroce_qp *qp, enum uroce_qp_type type, const struct node *peer,
		   uint32_t peer_qpn, uint32_t sq_psn, uint32_t rq_psn)
{
	bool conn = type == UROCE_QPT_RC || type == UROCE_QPT_UC;
	struct uroce_qp_attr a = {
		.qp_state = UROCE_QPS_INIT, .port_num = 1,
		.qkey = type == UROCE_QPT_GSI ? GSI_QKEY : QKEY,
		.qp_access_flags = UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_READ |
				   UROCE_ACCESS_REMOTE_ATOMIC,
		.path_mtu = UROCE_MTU_256, .dest_qp_num = peer_qpn, .rq_psn = rq_psn,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 1, .sq_psn = sq_psn, .timeout = 10,
		.retry_cnt = 3, .rnr_retry = 3, .max_rd_atomic = 4,
		.ah_attr = {.dgid = peer->addr, .port_num = 1, .hop_limit = 64},
	};
	unsigned rtr = UROCE_QPA_STATE, rts = UROCE_QPA_STATE | UROCE_QPA_SQ_PSN;

	FUZZ_CHECK(uroce_qp_modify(qp, &a, UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX | UROCE_QPA_PORT |
						   (conn ? UROCE_QPA_ACCESS_FLAGS : UROCE_QPA_QKEY)) == 0);
	if (conn)
		rtr |= UROCE_QPA_AV | UROCE_QPA_PATH_MTU | UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN;
	if (type == UROCE_QPT_RC) {
		rtr |= UROCE_QPA_MAX_DEST_RD_ATOMIC | UROCE_QPA_MIN_RNR_TIMER;
		rts |= UROCE_QPA_TIMEOUT | UROCE_QPA_RETRY_CNT | UROCE_QPA_RNR_RETRY |
		       UROCE_QPA_MAX_QP_RD_ATOMIC;
	}
	a.qp_state = UROCE_QPS_RTR;
	FUZZ_CHECK(uroce_qp_modify(qp, &a, rtr) == 0);
	a.qp_state = UROCE_QPS_RTS;
	FUZZ_CHECK(uroce_qp_modify(qp, &a, rts) == 0);
}

static const enum uroce_qp_type qp_type[NQP] = {UROCE_QPT_RC, UROCE_QPT_UC, UROCE_QPT_UD,
						UROCE_QPT_RC, UROCE_QPT_GSI};
/* The send PSNs: A's RC crosses the 24-bit wrap early. */
static const uint32_t sq_psn[2] = {0xFFFFF8, 0x200};

static void node_new(int i)
{
	struct node *n = &g_node[i];
	struct uroce_dev_cfg cfg = {.ngids = 1, .port_mtu = UROCE_MTU_1024, .max_qp = 4,
				    .max_mr = 4};
	struct uroce_srq_attr srq = {.max_wr = 32, .max_sge = 2, .srq_limit = SRQ_LIMIT};

	memset(n, 0, offsetof(struct node, box));
	n->head = n->count = 0;
	n->addr = (struct uroce_io_addr){.ip = {10, 0, 0, (uint8_t)(i + 1)}};
	cfg.gid[0] = n->addr;
	FUZZ_CHECK(uroce_dev_new(&cfg, &n->dev) == 0);
	FUZZ_CHECK(uroce_pd_alloc(n->dev, &n->pd) == 0);
	FUZZ_CHECK(uroce_cq_create(n->dev, 512, &n->cq) == 0);
	region_new(n, &n->data, DATA_LEN, DATA_IOVA, ALL_ACCESS);
	region_new(n, &n->local, LOCAL_LEN, LOCAL_IOVA, ALL_ACCESS);
	region_new(n, &n->inv, INV_LEN, INV_IOVA, ALL_ACCESS | UROCE_ACCESS_INVALIDATE);
	FUZZ_CHECK(uroce_srq_create(n->pd, &srq, &n->srq) == 0);
	for (int q = 0; q < NQP; q++) {
		struct uroce_qp_init_attr init = {
			.send_cq = n->cq, .recv_cq = n->cq, .qp_type = qp_type[q],
			.srq = q == QP_SRQ ? n->srq : NULL,
			.cap = {.max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 2,
				.max_recv_sge = 2, .max_inline_data = 64}};
		FUZZ_CHECK(uroce_qp_create(n->pd, &init, &n->qp[q]) == 0);
	}
}

static void connect_nodes(void)
{
	for (int i = 0; i < 2; i++) {
		struct node *n = &g_node[i], *p = &g_node[1 - i];
		for (int q = 0; q < NQP; q++)
			qp_rts(n->qp[q], qp_type[q], p, uroce_qp_num(p->qp[q]), sq_psn[i], sq_psn[1 - i]);
		struct uroce_ah_attr ah = {.dgid = p->addr, .port_num = 1, .hop_limit = 64};
		FUZZ_CHECK(uroce_ah_create(n->pd, &ah, &n->ah) == 0);
	}
}

static void node_free(struct node *n)
{
	uroce_dev_free(n->dev);
	free(n->data.mem);
	free(n->local.mem);
	free(n->inv.mem);
}

/* ---- posting ---- */

/* A receive of one slot; every other one scattered over two SGEs (the slot's halves, the
 * second first, so that the scatter order shows). QP_SRQ's go to the SRQ. */
static void post_recv(struct node *n, int q)
{
	uint64_t slot = LOCAL_IOVA + (uint64_t)(q * 4 + (int)(n->recv_id[q] % 4)) * RECV_SLOT;
	uint32_t lkey = uroce_mr_lkey(n->local.mr);
	struct uroce_sge sge[2] = {{.addr = slot, .length = RECV_SLOT, .lkey = lkey}};
	struct uroce_recv_wr wr = {.wr_id = n->recv_id[q], .sg_list = sge, .num_sge = 1};
	const struct uroce_recv_wr *bad;
	int err;

	if (n->recv_id[q] & 1) {
		sge[0] = (struct uroce_sge){.addr = slot + RECV_SLOT / 2, .length = RECV_SLOT / 2,
					    .lkey = lkey};
		sge[1] = (struct uroce_sge){.addr = slot, .length = RECV_SLOT / 2, .lkey = lkey};
		wr.num_sge = 2;
	}
	err = q == QP_SRQ ? uroce_post_srq_recv(n->srq, &wr, &bad)
			  : uroce_post_recv(n->qp[q], &wr, &bad);
	if (err == 0)
		n->recv_id[q]++;
}

/* One send work request; invalid combinations (a READ on UD) are refused by post_send.
 * `inv`: the remote address, and the key SEND_WITH_INV names, are the peer's invalidatable
 * region's, LOCAL_INV's the node's own. A length of more than 64 bytes that is odd is
 * gathered from two SGEs. */
static void post_send(struct node *n, int q, enum uroce_wr_opcode op, uint32_t len, uint64_t off,
		      bool inv)
{
	bool atomic = op == UROCE_WR_ATOMIC_CMP_AND_SWP || op == UROCE_WR_ATOMIC_FETCH_AND_ADD;
	uint64_t local = op == UROCE_WR_RDMA_READ ? READ_AREA : atomic ? ATOMIC_AREA + off % 64 : SEND_AREA;
	uint32_t lkey = uroce_mr_lkey(n->local.mr);
	struct uroce_sge sge[2] = {{.addr = LOCAL_IOVA + local, .length = atomic ? 8 : len,
				    .lkey = lkey}};
	struct uroce_send_wr wr = {.wr_id = n->send_id[q], .sg_list = sge, .num_sge = 1,
				   .opcode = op, .send_flags = UROCE_SEND_SIGNALED,
				   .imm_data = 0x1234};
	const struct uroce_send_wr *bad;
	const struct node *peer = &g_node[n == g_node];
	uint32_t rkey = uroce_mr_rkey(inv ? peer->inv.mr : peer->data.mr);

	if (!atomic && len > 64 && len & 1) {
		sge[0].length = len / 2;
		sge[1] = (struct uroce_sge){.addr = LOCAL_IOVA + local + 2048, .length = len - len / 2,
					    .lkey = lkey};
		wr.num_sge = 2;
	}
	if (op == UROCE_WR_SEND_WITH_INV)
		wr.invalidate_rkey = rkey;
	else if (op == UROCE_WR_LOCAL_INV)
		wr.invalidate_rkey = uroce_mr_rkey(n->inv.mr);
	if (atomic) {
		wr.wr.atomic.remote_addr = DATA_IOVA + (off & ~7ull) % DATA_LEN;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 2;
	} else if (qp_type[q] == UROCE_QPT_UD || qp_type[q] == UROCE_QPT_GSI) {
		wr.wr.ud.ah = n->ah;
		wr.wr.ud.remote_qpn = uroce_qp_num(peer->qp[q]);
		wr.wr.ud.remote_qkey = qp_type[q] == UROCE_QPT_GSI ? GSI_QKEY : QKEY;
	} else {
		wr.wr.rdma.remote_addr = (inv ? INV_IOVA + off % INV_LEN : DATA_IOVA + off);
		wr.wr.rdma.rkey = rkey;
	}
	if (uroce_post_send(n->qp[q], &wr, &bad) == 0)
		n->send_id[q]++;
}

/* What both engines have going when the script starts. */
static void initial_work(void)
{
	for (int i = 0; i < 2; i++)
		for (int q = 0; q < NQP; q++)
			for (int k = 0; k < 4; k++)
				post_recv(&g_node[i], q);
	struct node *a = &g_node[0], *b = &g_node[1];
	post_send(a, QP_RC, UROCE_WR_SEND, 700, 0, false);
	post_send(a, QP_RC, UROCE_WR_RDMA_WRITE, 1000, 0, false);
	post_send(a, QP_RC, UROCE_WR_RDMA_READ, 1500, 2048, false);
	post_send(a, QP_RC, UROCE_WR_ATOMIC_FETCH_AND_ADD, 8, 4096, false);
	post_send(a, QP_RC, UROCE_WR_ATOMIC_CMP_AND_SWP, 8, 4104, false);
	post_send(a, QP_RC, UROCE_WR_SEND_WITH_IMM, 0, 0, false);
	post_send(b, QP_RC, UROCE_WR_SEND, 300, 0, false);
	post_send(b, QP_RC, UROCE_WR_RDMA_READ, 600, 1000, false);
	post_send(b, QP_RC, UROCE_WR_RDMA_WRITE_WITH_IMM, 100, 5000, false);
	post_send(a, QP_UC, UROCE_WR_SEND, 500, 0, false);
	post_send(a, QP_UC, UROCE_WR_RDMA_WRITE_WITH_IMM, 300, 6000, false);
	post_send(b, QP_UC, UROCE_WR_SEND, 10, 0, false);
	post_send(a, QP_UD, UROCE_WR_SEND, 100, 0, false);
	post_send(b, QP_UD, UROCE_WR_SEND_WITH_IMM, 0, 0, false);
	post_send(a, QP_SRQ, UROCE_WR_SEND, 301, 0, false);
	post_send(a, QP_SRQ, UROCE_WR_RDMA_WRITE, 200, 64, true);
	post_send(a, QP_SRQ, UROCE_WR_SEND_WITH_INV, 40, 0, true);
	post_send(b, QP_SRQ, UROCE_WR_SEND_WITH_IMM, 777, 0, false);
	post_send(b, QP_SRQ, UROCE_WR_LOCAL_INV, 0, 0, true);
	post_send(a, QP_GSI, UROCE_WR_SEND, 256, 0, false);
	post_send(b, QP_GSI, UROCE_WR_SEND, 256, 0, false);
}

/* ---- packets in flight ---- */

static const uint8_t *box_peek(const struct node *n, uint32_t k, uint32_t *len)
{
	uint32_t slot = (n->head + k) % OUTBOX;
	*len = n->box_len[slot];
	return n->box[slot];
}

static void box_pop(struct node *n)
{
	n->head = (n->head + 1) % OUTBOX;
	n->count--;
}

/* Every packet an engine writes is a whole RoCEv2 packet, good ICRC, from it to its peer. */
static void check_sent(const struct node *n, const uint8_t *p, uint32_t len)
{
	struct uroce_pkt pkt;

	FUZZ_CHECK(fuzz_dissect(&pkt, UROCE_LINK_IP, p, len) == 0);
	FUZZ_CHECK(pkt.encap == UROCE_ENCAP_ROCEV2 && (pkt.layers & UROCE_L_IPV4));
	FUZZ_CHECK(uroce_pkt_icrc_check(&pkt, NULL) == UROCE_CRC_OK);
	FUZZ_CHECK(!memcmp(pkt.ip4.src, n->addr.ip, 4));
	FUZZ_CHECK(!memcmp(pkt.ip4.dst, g_node[n == g_node].addr.ip, 4));
}

/* Takes what the engine has to send, while there is room in flight; after a post, requests
 * first, as the verbs layer does (src/verbs/progress.c, write_and_send). */
static void flush_out(struct node *n)
{
	bool requests = n->posted;

	n->posted = false;
	while (n->count < OUTBOX) {
		struct uroce_io_pkt io;
		uint32_t slot = (n->head + n->count) % OUTBOX;
		struct uroce_txbatch tx = {.pkts = &io, .max = 1};
		io.data = n->box[slot];
		io.cap = UROCE_MAX_DATAGRAM;
		if (requests && !uroce_dev_write_requests(n->dev, &tx, g_now))
			requests = false;
		if (!requests && !uroce_dev_write(n->dev, &tx, g_now))
			break;
		check_sent(n, io.data, io.len);
		n->box_len[slot] = io.len;
		n->count++;
	}
	uroce_dev_publish(n->dev); /* in the outbox is on the line */
}

/* Hands over a heap copy of exactly len bytes, so that ASan sees a read past its end. */
static void deliver(struct node *to, const uint8_t *p, size_t len)
{
	struct uroce_io_pkt io = {.data = malloc(len ? len : 1), .len = (uint32_t)len,
				  .cap = (uint32_t)len, .ts_ns = g_now};

	FUZZ_CHECK(io.data);
	memcpy(io.data, p, len);
	to->recv_calls++;
	uroce_dev_recv(to->dev, &io, g_now);
	free(io.data);
}

/* Makes an IPv4 datagram right again after an edit: lengths, header checksum, ICRC. */
static void fixup(uint8_t *p, size_t len)
{
	uint32_t crc;

	if (len < 20 + 8 + 12 + 4 || p[0] != 0x45)
		return;
	put_be16(p + 2, (uint16_t)len);
	put_be16(p + 10, 0);
	put_be16(p + 10, uroce_ipv4_checksum(p, 20));
	put_be16(p + 24, (uint16_t)(len - 20));
	if (uroce_icrc(UROCE_ICRC_ROCEV2_IPV4, p, 28, len - 4, &crc) == 0)
		put_le32(p + len - 4, crc);
}

/* The IPv4 and UDP headers the peer of `to` would write in front of a transport part. */
static size_t frame(struct node *to, const uint8_t *tp, size_t tlen)
{
	const struct node *from = &g_node[to == g_node];
	size_t len = 20 + 8 + tlen + 4;

	memset(g_pkt, 0, 28);
	g_pkt[0] = 0x45;
	put_be16(g_pkt + 6, 0x4000); /* DF */
	g_pkt[8] = 64;
	g_pkt[9] = UROCE_IPPROTO_UDP;
	memcpy(g_pkt + 12, from->addr.ip, 4);
	memcpy(g_pkt + 16, to->addr.ip, 4);
	put_be16(g_pkt + 20, 0xC000);
	put_be16(g_pkt + 22, UROCE_ROCEV2_UDP_PORT);
	memcpy(g_pkt + 28, tp, tlen);
	memset(g_pkt + 28 + tlen, 0, 4);
	fixup(g_pkt, len);
	return len;
}

/* ---- invariants ---- */

/* The completion opcodes of the work this script posts. */
static bool wc_opcode_known(enum uroce_wc_opcode op)
{
	switch (op) {
	case UROCE_WC_SEND:
	case UROCE_WC_RDMA_WRITE:
	case UROCE_WC_RDMA_READ:
	case UROCE_WC_COMP_SWAP:
	case UROCE_WC_FETCH_ADD:
	case UROCE_WC_LOCAL_INV:
	case UROCE_WC_RECV:
	case UROCE_WC_RECV_RDMA_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/* The device keeps its earliest timer between calls (dev.c): it must be what a scan of
 * every QP finds, or a timer would fire late. */
static void check_deadline(struct uroce_dev *dev)
{
	uint64_t t = UROCE_NEVER;

	for (uint32_t i = 0; i < dev->cfg.max_qp; i++) {
		const struct uroce_qp *qp = dev->qps[i];
		if (qp && qp->req.rto_deadline < t)
			t = qp->req.rto_deadline;
		if (qp && qp->req.rnr_deadline < t)
			t = qp->req.rnr_deadline;
	}
	FUZZ_CHECK(uroce_dev_next_deadline(dev) == t);
}

static void check_node(struct node *n)
{
	struct uroce_wc wc[16];
	int got;

	check_deadline(n->dev);

	struct uroce_async_event ev;

	guards_check(&n->data);
	guards_check(&n->local);
	guards_check(&n->inv);
	/* Events name objects of this node and a type the engine has. */
	while (uroce_dev_get_async_event(n->dev, &ev)) {
		FUZZ_CHECK(uroce_event_name(ev.type));
		if (ev.type == UROCE_EVENT_SRQ_LIMIT_REACHED)
			FUZZ_CHECK(ev.element.srq == n->srq);
	}
	while ((got = uroce_cq_poll(n->cq, wc, 16)) > 0) {
		for (int i = 0; i < got; i++) {
			int q = 0;
			while (q < NQP && wc[i].qp != n->qp[q])
				q++;
			FUZZ_CHECK(q < NQP && wc[i].qp_num == uroce_qp_num(n->qp[q]));
			FUZZ_CHECK((unsigned)wc[i].status < UROCE_WC_STATUS_COUNT);
			uint64_t *done = wc[i].opcode & UROCE_WC_RECV ? &n->recv_done[q] : &n->send_done[q];
			uint64_t posted = wc[i].opcode & UROCE_WC_RECV ? n->recv_id[q] : n->send_id[q];
			/* In posting order: ids only grow, and each was posted. */
			FUZZ_CHECK(wc[i].wr_id >= *done && wc[i].wr_id < posted);
			*done = wc[i].wr_id + 1;
			FUZZ_CHECK(wc_opcode_known(wc[i].opcode));
		}
	}
	FUZZ_CHECK(got == 0); /* never an overrun */
	for (int q = 0; q < NQP; q++) {
		const struct uroce_qp *qp = n->qp[q];
		const struct req_state *rq = &qp->req;
		FUZZ_CHECK((unsigned)qp->state < UROCE_QPS_COUNT);
		FUZZ_CHECK(qp->sq.cur - qp->sq.tail <= qp->sq.head - qp->sq.tail);
		FUZZ_CHECK(qp->sq.head - qp->sq.tail <= qp->cap.max_send_wr);
		if (qp->type == UROCE_QPT_RC)
			FUZZ_CHECK(uroce_psn_le(rq->una, rq->psn) && uroce_psn_le(rq->psn, rq->psn_max));
	}
	/* Every datagram handed over is counted: it reached a QP or was dropped for a reason. */
	const union uroce_counters *c = uroce_dev_counters(n->dev);
	uint64_t seen = c->rcvd_pkts;
	for (enum uroce_counter k = 0; k < UROCE_NCOUNTERS; k++)
		if (!strncmp(uroce_counter_name(k), "drop_", 5))
			seen += c->v[k];
	FUZZ_CHECK(seen >= n->recv_calls);
}

static void run_timers(void)
{
	for (int i = 0; i < 2; i++) {
		uroce_dev_on_timer(g_node[i].dev, g_now);
		FUZZ_CHECK(uroce_dev_next_deadline(g_node[i].dev) > g_now);
	}
}

/* ---- the script ---- */

struct reader {
	const uint8_t *p;
	size_t n;
};

static uint8_t rd_u8(struct reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint16_t rd_u16(struct reader *r)
{
	uint16_t hi = rd_u8(r);
	return (uint16_t)(hi << 8 | rd_u8(r));
}

static void op_inject(struct reader *r, uint8_t op, struct node *to)
{
	size_t take = rd_u16(r) % (UROCE_MAX_DATAGRAM + 1), len;

	if (take > r->n)
		take = r->n;
	if (op & F_FRAMED) {
		len = frame(to, r->p, take > UROCE_MAX_DATAGRAM - 32 ? UROCE_MAX_DATAGRAM - 32 : take);
		if (!(op & F_FIX))
			g_pkt[len - 1] ^= 0x01; /* a wrong ICRC */
	} else {
		memcpy(g_pkt, r->p, take);
		len = take;
		if (op & F_FIX)
			fixup(g_pkt, len);
	}
	r->p += take;
	r->n -= take;
	deliver(to, g_pkt, len);
}

static void op_mutate(struct reader *r, uint8_t op, struct node *to)
{
	struct node *from = &g_node[to == g_node];
	uint8_t edits = rd_u8(r) % 8, x[8];
	uint16_t off[8];
	uint32_t len;

	for (int e = 0; e < edits; e++) {
		off[e] = rd_u16(r);
		x[e] = rd_u8(r);
	}
	uint8_t cut = rd_u8(r);
	if (!from->count)
		return;
	memcpy(g_pkt, box_peek(from, 0, &len), UROCE_MAX_DATAGRAM);
	box_pop(from);
	for (int e = 0; e < edits; e++)
		g_pkt[off[e] % len] ^= x[e];
	if (cut < len)
		len -= cut;
	if (op & F_FIX)
		fixup(g_pkt, len);
	deliver(to, g_pkt, len);
}

/* what: bit 7 a receive (QP what % NQP), else bit 6 on a size of 0 registers the
 * invalidatable region again, else a send of opcode (what / NQP) % 9 whose bit 6 aims it at
 * the invalidatable region; size: length / 8, an odd size adds one byte (two SGEs). */
static void op_post(struct reader *r, struct node *n)
{
	static const enum uroce_wr_opcode ops[] = {
		UROCE_WR_SEND, UROCE_WR_SEND_WITH_IMM, UROCE_WR_RDMA_WRITE,
		UROCE_WR_RDMA_WRITE_WITH_IMM, UROCE_WR_RDMA_READ, UROCE_WR_ATOMIC_CMP_AND_SWP,
		UROCE_WR_ATOMIC_FETCH_AND_ADD, UROCE_WR_SEND_WITH_INV, UROCE_WR_LOCAL_INV,
	};
	uint8_t what = rd_u8(r), size = rd_u8(r);
	int q = what % NQP;

	if (what & 0x80)
		post_recv(n, q);
	else if (what & 0x40 && !size)
		inv_reregister(n);
	else {
		post_send(n, q, ops[(what & 0x3F) / NQP % 9], (uint32_t)size * 8 + (size & 1),
			  (uint64_t)size * 24 % 4096, what & 0x40);
		n->posted = true;
	}
}

static void step(struct reader *r)
{
	uint8_t op = rd_u8(r);
	struct node *n = &g_node[!!(op & F_NODE)];
	uint32_t len;

	switch ((enum op)(op & 7)) {
	case OP_INJECT:
		op_inject(r, op, n);
		break;
	case OP_MUTATE:
		op_mutate(r, op, n);
		break;
	case OP_DELIVER:
		for (uint8_t k = rd_u8(r) % 16 + 1; k && n->count; k--) {
			const uint8_t *p = box_peek(n, 0, &len);
			memcpy(g_pkt, p, len);
			box_pop(n);
			deliver(&g_node[n == g_node], g_pkt, len);
		}
		break;
	case OP_DROP:
		if (n->count)
			box_pop(n);
		break;
	case OP_DUP:
		if (n->count) {
			memcpy(g_pkt, box_peek(n, 0, &len), UROCE_MAX_DATAGRAM);
			deliver(&g_node[n == g_node], g_pkt, len);
		}
		break;
	case OP_TIME:
		g_now += 1000ull << (rd_u8(r) % 24);
		run_timers();
		break;
	case OP_POST:
		op_post(r, n);
		break;
	case OP_SWAP:
		if (n->count >= 2) {
			uint32_t a = n->head, b = (n->head + 1) % OUTBOX, t = n->box_len[a];
			memcpy(g_pkt, n->box[a], UROCE_MAX_DATAGRAM);
			memcpy(n->box[a], n->box[b], UROCE_MAX_DATAGRAM);
			memcpy(n->box[b], g_pkt, UROCE_MAX_DATAGRAM);
			n->box_len[a] = n->box_len[b];
			n->box_len[b] = t;
		}
		break;
	}
}

/* Delivers everything in flight, then lets time pass, until nothing is left (bounded:
 * rnr_retry and an endless exchange the fuzzer made could go on). */
static void finish(void)
{
	uint32_t len;

	for (int round = 0; round < FINISH_ROUNDS; round++) {
		bool moved = false;
		for (int i = 0; i < 2; i++) {
			struct node *n = &g_node[i];
			while (n->count) {
				memcpy(g_pkt, box_peek(n, 0, &len), UROCE_MAX_DATAGRAM);
				box_pop(n);
				deliver(&g_node[1 - i], g_pkt, len);
				moved = true;
			}
		}
		for (int i = 0; i < 2; i++)
			flush_out(&g_node[i]);
		if (moved || g_node[0].count || g_node[1].count)
			continue;
		uint64_t t = uroce_dev_next_deadline(g_node[0].dev), t1 = uroce_dev_next_deadline(g_node[1].dev);
		if (t1 < t)
			t = t1;
		if (t == UROCE_NEVER)
			break;
		g_now = t;
		run_timers();
		for (int i = 0; i < 2; i++)
			flush_out(&g_node[i]);
	}
}

static void pair_new(void)
{
	g_now = 0;
	node_new(0);
	node_new(1);
	connect_nodes();
	initial_work();
	for (int i = 0; i < 2; i++)
		flush_out(&g_node[i]);
}

static void pair_free(void)
{
	node_free(&g_node[0]);
	node_free(&g_node[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = {data, size};

	pair_new();
	for (int s = 0; s < MAX_STEPS && r.n; s++) {
		step(&r);
		for (int i = 0; i < 2; i++) {
			flush_out(&g_node[i]);
			check_node(&g_node[i]);
		}
	}
	finish();
	for (int i = 0; i < 2; i++)
		check_node(&g_node[i]);
	pair_free();
	return 0;
}

#ifdef FUZZ_ENGINE_CORPUS
/* The seed generator: `fuzz_engine_corpus DIR`. Two scripts (a clean exchange of the
 * initial work; one with a loss, a duplicate, a swap, a mutation, posts and timers), and the
 * first packet of each BTH opcode that exchange carried, as an inject step (whole datagram,
 * and transport part behind the harness's headers), so that the fuzzer starts from packets
 * the engines accept. */
#include <stdio.h>

static void write_seed(const char *dir, const char *name, const uint8_t *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	FUZZ_CHECK(f && fwrite(p, 1, len, f) == len && fclose(f) == 0);
}

int main(int argc, char **argv)
{
	static uint8_t seed[UROCE_MAX_DATAGRAM + 8];
	static const uint8_t script[] = {
		OP_DELIVER, 15, OP_DELIVER | F_NODE, 15, OP_DELIVER, 15, OP_DELIVER | F_NODE, 15,
		OP_TIME, 12, OP_DELIVER, 15, OP_DELIVER | F_NODE, 15,
	};
	static const uint8_t lossy[] = {
		OP_DROP, OP_DELIVER, 3, OP_DUP | F_NODE, OP_SWAP, OP_DELIVER, 15, OP_TIME, 13,
		OP_MUTATE | F_NODE | F_FIX, 1, 0, 40, 0x80, 0, OP_DELIVER | F_NODE, 15,
		OP_POST, 0, 20, OP_POST | F_NODE, 0x80, 0, OP_TIME, 14,
	};
	bool seen[256] = {false};
	char name[64];
	int k = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	write_seed(argv[1], "script-clean", script, sizeof(script));
	write_seed(argv[1], "script-lossy", lossy, sizeof(lossy));
	pair_new();
	for (int round = 0; round < 8; round++) {
		for (int i = 0; i < 2; i++) {
			struct node *n = &g_node[i];
			while (n->count) {
				uint32_t len;
				const uint8_t *p = box_peek(n, 0, &len);
				/* To the engine that received it: the F_NODE bit names B. */
				uint8_t to = i == 0 ? F_NODE : 0, opcode = p[28];
				if (seen[opcode]) {
					memcpy(g_pkt, p, len);
					box_pop(n);
					deliver(&g_node[1 - i], g_pkt, len);
					continue;
				}
				seen[opcode] = true;
				seed[0] = OP_INJECT | to;
				put_be16(seed + 1, (uint16_t)len);
				memcpy(seed + 3, p, len);
				snprintf(name, sizeof(name), "%s-raw", uroce_opcode_info(opcode)->name);
				write_seed(argv[1], name, seed, len + 3);
				seed[0] = OP_INJECT | to | F_FRAMED | F_FIX;
				put_be16(seed + 1, (uint16_t)(len - 32));
				memcpy(seed + 3, p + 28, len - 32);
				snprintf(name, sizeof(name), "%s-framed", uroce_opcode_info(opcode)->name);
				k++;
				write_seed(argv[1], name, seed, len - 32 + 3);
				memcpy(g_pkt, p, len);
				box_pop(n);
				deliver(&g_node[1 - i], g_pkt, len);
			}
		}
		for (int i = 0; i < 2; i++)
			flush_out(&g_node[i]);
	}
	pair_free();
	printf("%d opcodes, %d seeds written to %s\n", k, 2 * k + 2, argv[1]);
	return 0;
}
#endif

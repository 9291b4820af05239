/* SPDX-License-Identifier: MIT */
/* Input: a script of steps run against two live engines, A and B, each with an IPv4 and an
 * IPv6 address and six QPs connected to the same index on the other (fuzz_engine.h): RC, UC,
 * UD, an RC QP over IPv6 whose receives come from a shared receive queue with an armed limit,
 * the GSI QP (QP1), and an RC QP with its own 8-entry CQ that accepts one READ or atomic at a
 * time but issues two. Four regions each: data (remote access), local (SGEs), one registered
 * for invalidation, one the peer may only read. Receives are posted and SEND, WRITE, READ,
 * atomics, SEND_WITH_INV and LOCAL_INV outstanding from the start, so that the responder, the
 * completer, the SRQ and the UC/UD/GSI receive paths all hold state to get wrong. A and B
 * differ: A has a 1024-byte port MTU, a 16-packet window, AckReq every 4 packets and DCQCN
 * with short timers (its packets ECN-capable, its requests paced after a CNP), B the
 * defaults (4096, 128, 64, no congestion control). Each step is an op byte (low four bits the op, modulo 12; bit 4
 * the engine; bits 5-7 flags) and its operands:
 *
 *   0 inject   u16 length, [u8 io flags], bytes. Bit 6 clear: a whole datagram from the IP
 *              header on; bit 5 makes its lengths, checksum and ICRC right; bit 7, an io
 *              flags byte (TRUNC, ICRC_OK, as a backend sets them) follows the length. Bit 6
 *              set: the transport part only (BTH to payload) behind IPv4 (bit 7: IPv6) and
 *              UDP headers the harness writes as the peer would, with a right ICRC (bit 5)
 *              or a wrong one. A transport part to QPN 0xFFFFFF goes to the family's
 *              multicast group, which each engine's UD QP is attached to (fuzz_engine_group).
 *   1 mutate   u8 edits, then (u16 offset, u8 xor) per edit, u8 bytes to cut: the next
 *              packet the other engine sent, changed and delivered; bit 5 fixes it up after.
 *   2 deliver  u8 count: the next packets in flight, in order; bit 7 marks them CE (ECN
 *              11), as a congested switch would, so that CNPs flow (A runs DCQCN)
 *   3 drop     the next packet in flight
 *   4 dup      the next packet in flight, delivered and kept
 *   5 time     u8 k: virtual time moves 2^k us (k mod 24) and the timers run
 *   6 post     u8 what, u8 size, u8 flags: a work request or a receive (op_post)
 *   7 swap     the next two packets in flight change places
 *   8 modify   u8 qp, u8 state, u8 mode, 3 mask bytes, 6 value bytes: uroce_qp_modify with
 *              the attributes the QP was set up with, some replaced (op_modify)
 *   9 control  u8 what, u8 argument: SRQ limit, port state, events or CQ left unread, a
 *              region registered again with other rights, the transmit buffer size, a QP
 *              destroyed and created again, a QP pair reset and connected again (op_control)
 *  10 object   u8 kind, 3 bytes: an object created with those parameters and destroyed
 *              (QP, CQ, SRQ, MR, AH, PD, device), the documented errors checked (op_object)
 *  11 settle   everything in flight delivered until nothing moves; bit 5: time too, until
 *              both engines are quiet
 *
 * Then a clean finish: everything in flight is delivered and time moves on until both
 * engines are quiet (bounded). Each input starts from a fresh pair, so an input replays
 * alone. Invariants beyond the sanitizers: no byte outside a registered region changes
 * (guard bytes around every MR), the read-only region never changes; every packet an engine
 * sends is a whole RoCEv2 packet with a good ICRC, from one of its addresses to the peer's
 * of the same family; completions come in posting order per queue, for work that was
 * posted, with valid statuses and opcodes, and only a CQ left unread (or QP_RD's small one)
 * overruns; events name the node's own objects; each RC requester keeps una <= psn <=
 * psn_max and its send queue tail <= cur <= head; queries agree with the state; after the
 * timers ran nothing is overdue; a region without the invalidate right stays valid; every
 * received datagram is counted (rcvd_pkts or a drop_* counter), a QP's counters never exceed
 * the device's; modify and the object calls fail only with their documented errors and
 * change nothing when they do. */
#include "fuzz_engine.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "engine/priv.h"
#include "fuzz_check.h"
#include "wire/bytes.h"
#include "wire/icrc.h"
#include "wire/ip.h"
#include "wire/mad.h"
#include "wire/psn.h"

#define GUARD 64                  /* bytes checked on each side of every MR */
#define LOCAL_IOVA 0x200000ull
#define SRQ_WR 32
#define SRQ_LIMIT 2
#define CQ_DEPTH 512
#define CQ_SMALL 8
#define RECV_SLOT 1536            /* each QP has 4 receive slots */
#define SEND_AREA (NQP * 4 * RECV_SLOT)
#define READ_AREA (SEND_AREA + 2048)
#define ATOMIC_AREA (READ_AREA + 4096)
#define MAX_STEPS 512
#define FINISH_ROUNDS 64
#define QKEY 0x11111111u
#define FILL 0x5C
#define GUARD_FILL 0xE7

#define ALL_ACCESS (UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE | \
		    UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC)
#define LW UROCE_ACCESS_LOCAL_WRITE
#define RR UROCE_ACCESS_REMOTE_READ
#define INV UROCE_ACCESS_INVALIDATE

struct node g_node[2];
uint64_t g_now;
const struct uroce_io_addr fuzz_engine_group[2] = {
	{.ip = {239, 0, 0, 1}},
	{.ipv6 = true, .ip = {0xFF, 0x0E, [15] = 1}},
};
static uint8_t g_pkt[UROCE_MAX_DATAGRAM + 64];

/* ---- setup ---- */

static const struct region_conf {
	size_t len;
	uint64_t iova;
	unsigned access;
} region_conf[NREGION] = {
	[R_DATA] = {8192, 0x100000, ALL_ACCESS},
	[R_LOCAL] = {65536, LOCAL_IOVA, ALL_ACCESS},
	[R_INV] = {4096, 0x300000, ALL_ACCESS | INV},
	/* Remote read only, no local write: nothing may ever change it. */
	[R_RO] = {4096, 0x400000, RR},
};

/* The rights a region gets when registered again (control C_REREG): the read-only region
 * stays unwritable, the invalidatable one may lose the right to be invalidated. */
static const unsigned rereg_access[NREGION][4] = {
	[R_DATA] = {ALL_ACCESS, LW | RR, LW, RR},
	[R_LOCAL] = {ALL_ACCESS, LW | RR, LW, RR},
	[R_INV] = {ALL_ACCESS | INV, LW | INV, ALL_ACCESS, RR | INV},
	[R_RO] = {RR, 0, RR, 0},
};

/* What the read-only region holds, and every guard byte (compared whole: a loop of byte
 * comparisons would cost more than the rest of a step under the fuzzer's tracing). */
static uint8_t g_ro_fill[4096], g_guard_fill[GUARD];
static bool g_is_drop[UROCE_NCOUNTERS]; /* the drop_* counters */

static const struct qp_conf {
	enum uroce_qp_type type;
	bool srq, v6, small_cq, sig_all;
	enum uroce_mtu mtu;
	uint8_t max_rd_atomic, max_dest_rd_atomic, timeout, retry_cnt, rnr_retry, min_rnr_timer;
} qp_conf[NQP] = {
	[QP_RC] = {.type = UROCE_QPT_RC, .mtu = UROCE_MTU_256, .max_rd_atomic = 4, .max_dest_rd_atomic = 4,
		   .timeout = 10, .retry_cnt = 3, .rnr_retry = 3, .min_rnr_timer = 1},
	[QP_UC] = {.type = UROCE_QPT_UC, .mtu = UROCE_MTU_256},
	[QP_UD] = {.type = UROCE_QPT_UD},
	[QP_SRQ] = {.type = UROCE_QPT_RC, .srq = true, .v6 = true, .mtu = UROCE_MTU_256,
		    .max_rd_atomic = 4, .max_dest_rd_atomic = 4, .timeout = 10, .retry_cnt = 3,
		    .rnr_retry = 3, .min_rnr_timer = 1},
	[QP_GSI] = {.type = UROCE_QPT_GSI},
	/* No retransmission timer (timeout 0), RNR retries for ever (7), the longest RNR wait
	 * (timer 0: 655 ms); it asks two READs or atomics of a peer that takes one. */
	[QP_RD] = {.type = UROCE_QPT_RC, .small_cq = true, .sig_all = true, .mtu = UROCE_MTU_1024,
		   .max_rd_atomic = 2, .max_dest_rd_atomic = 1, .timeout = 0, .retry_cnt = 0,
		   .rnr_retry = 7, .min_rnr_timer = 0},
};

/* The send PSNs: A's cross the 24-bit wrap early. */
static const uint32_t sq_psn0[2] = {0xFFFFF8, 0x200};

static struct node *peer_of(const struct node *n) { return &g_node[n == g_node]; }
static struct uroce_cq *qp_cq(const struct node *n, int q)
{
	return qp_conf[q].small_cq ? n->cq_small : n->cq;
}

static void region_reg(struct node *n, int r, unsigned access)
{
	struct region *g = &n->reg[r];

	g->access = access;
	FUZZ_CHECK(uroce_mr_reg(n->pd, g->mem + GUARD, g->len, g->iova, access, &g->mr) == 0);
}

static void region_new(struct node *n, int r)
{
	struct region *g = &n->reg[r];

	g->len = region_conf[r].len;
	g->iova = region_conf[r].iova;
	g->mem = malloc(g->len + 2 * GUARD);
	FUZZ_CHECK(g->mem);
	memset(g->mem, GUARD_FILL, GUARD);
	if (r == R_RO)
		memcpy(g->mem + GUARD, g_ro_fill, g->len);
	else
		memset(g->mem + GUARD, FILL, g->len);
	memset(g->mem + GUARD + g->len, GUARD_FILL, GUARD);
	region_reg(n, r, region_conf[r].access);
}

/* The region once more, under a new key and with other rights (the old key reaches
 * nothing). */
static void region_rereg(struct node *n, int r, int variant)
{
	FUZZ_CHECK(uroce_mr_dereg(n->reg[r].mr) == 0);
	region_reg(n, r, rereg_access[r][variant]);
}

/* The key of the region's previous registration of its slot. */
static uint32_t stale_key(uint32_t key) { return (key & ~0xFFu) | ((key - 1) & 0xFF); }

static void qp_attr_fill(const struct node *n, int q, struct uroce_qp_attr *a, uint32_t sq_psn,
			 uint32_t rq_psn, bool v6)
{
	const struct qp_conf *c = &qp_conf[q];
	const struct node *p = peer_of(n);

	*a = (struct uroce_qp_attr){
		.port_num = 1,
		.qkey = c->type == UROCE_QPT_GSI ? UROCE_GSI_QKEY : QKEY,
		.qp_access_flags = UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_READ |
				   UROCE_ACCESS_REMOTE_ATOMIC,
		.path_mtu = c->mtu, .dest_qp_num = uroce_qp_num(p->qp[q]), .rq_psn = rq_psn,
		.sq_psn = sq_psn, .max_dest_rd_atomic = c->max_dest_rd_atomic,
		.min_rnr_timer = c->min_rnr_timer, .timeout = c->timeout, .retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry, .max_rd_atomic = c->max_rd_atomic,
		.ah_attr = {.dgid = p->gid[v6], .sgid_index = v6, .port_num = 1, .hop_limit = 64},
	};
}

/* The attributes a move requires (IBA 11.2.4.2), as the verbs layer passes them; a move
 * that requires none takes the state alone. */
static unsigned std_mask(enum uroce_qp_type type, enum uroce_qp_state cur,
			 enum uroce_qp_state next)
{
	bool conn = type == UROCE_QPT_RC || type == UROCE_QPT_UC, rc = type == UROCE_QPT_RC;

	if (next == UROCE_QPS_INIT)
		return UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX | UROCE_QPA_PORT |
		       (conn ? UROCE_QPA_ACCESS_FLAGS : UROCE_QPA_QKEY);
	if (next == UROCE_QPS_RTR)
		return UROCE_QPA_STATE |
		       (conn ? UROCE_QPA_AV | UROCE_QPA_PATH_MTU | UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN : 0) |
		       (rc ? UROCE_QPA_MAX_DEST_RD_ATOMIC | UROCE_QPA_MIN_RNR_TIMER : 0);
	if (next == UROCE_QPS_RTS && cur == UROCE_QPS_RTR)
		return UROCE_QPA_STATE | UROCE_QPA_SQ_PSN |
		       (rc ? UROCE_QPA_TIMEOUT | UROCE_QPA_RETRY_CNT | UROCE_QPA_RNR_RETRY |
				     UROCE_QPA_MAX_QP_RD_ATOMIC : 0);
	return UROCE_QPA_STATE;
}

/* RESET -> INIT -> RTR -> RTS toward the peer's QP of the same index. */
static void qp_bring_up(struct node *n, int q, uint32_t sq_psn, uint32_t rq_psn)
{
	static const enum uroce_qp_state path[] = {UROCE_QPS_INIT, UROCE_QPS_RTR, UROCE_QPS_RTS};
	struct uroce_qp *qp = n->qp[q];
	struct uroce_qp_attr a;

	qp_attr_fill(n, q, &a, sq_psn, rq_psn, qp_conf[q].v6);
	for (size_t i = 0; i < sizeof(path) / sizeof(path[0]); i++) {
		a.qp_state = path[i];
		FUZZ_CHECK(uroce_qp_modify(qp, &a, std_mask(qp->type, qp->state, path[i])) == 0);
	}
}

static void qp_new(struct node *n, int q)
{
	const struct qp_conf *c = &qp_conf[q];
	struct uroce_qp_init_attr init = {
		.send_cq = qp_cq(n, q), .recv_cq = qp_cq(n, q), .qp_type = c->type,
		.srq = c->srq ? n->srq : NULL, .sq_sig_all = c->sig_all,
		.cap = {.max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 2, .max_recv_sge = 2,
			.max_inline_data = 64}};

	FUZZ_CHECK(uroce_qp_create(n->pd, &init, &n->qp[q]) == 0);
	uroce_qp_set_user(n->qp[q], n);
}

static void node_new(int i)
{
	struct node *n = &g_node[i];
	/* A: small limits; B: every default. */
	struct uroce_dev_cfg cfg = {.ngids = 2};
	struct uroce_srq_attr srq = {.max_wr = SRQ_WR, .max_sge = 2, .srq_limit = SRQ_LIMIT};

	if (!g_guard_fill[0]) {
		memset(g_guard_fill, GUARD_FILL, GUARD);
		for (size_t k = 0; k < sizeof(g_ro_fill); k++)
			g_ro_fill[k] = (uint8_t)(k * 7 + 3);
		for (enum uroce_counter k = 0; k < UROCE_NCOUNTERS; k++)
			g_is_drop[k] = !strncmp(uroce_counter_name(k), "drop_", 5);
	}
	if (i == 0) {
		cfg.port_mtu = UROCE_MTU_1024;
		cfg.max_qp = 8;
		cfg.max_mr = 6;
		cfg.max_unacked_pkts = 16;
		cfg.ack_req_interval = 4;
		/* DCQCN, its timers short, so that CNPs (for the CE marks a script sets), the
		 * pacer and the rate's recovery all happen within a script */
		cfg.cc = (struct uroce_cc_cfg){.algo = UROCE_CC_DCQCN, .line_rate = 100000000,
					       .min_rate = 1000000, .time_reset_ns = 5000,
					       .alpha_period_ns = 5000, .byte_reset = 20000,
					       .min_time_between_cnps_ns = 2000};
	}
	memset(n, 0, offsetof(struct node, box));
	n->head = n->count = 0;
	n->gid[0] = (struct uroce_io_addr){.ip = {10, 0, 0, (uint8_t)(i + 1)}};
	n->gid[1] = (struct uroce_io_addr){.ipv6 = true, .ip = {0xFD, [15] = (uint8_t)(i + 1)}};
	cfg.gid[0] = n->gid[0];
	cfg.gid[1] = n->gid[1];
	n->port_up = true;
	n->tx_cap = UROCE_MAX_DATAGRAM;
	FUZZ_CHECK(uroce_dev_new(&cfg, &n->dev) == 0);
	FUZZ_CHECK(uroce_pd_alloc(n->dev, &n->pd) == 0);
	FUZZ_CHECK(uroce_cq_create(n->dev, CQ_DEPTH, &n->cq) == 0);
	FUZZ_CHECK(uroce_cq_create(n->dev, CQ_SMALL, &n->cq_small) == 0);
	uroce_cq_set_user(n->cq, n);
	uroce_cq_set_user(n->cq_small, n);
	for (int r = 0; r < NREGION; r++)
		region_new(n, r);
	FUZZ_CHECK(uroce_srq_create(n->pd, &srq, &n->srq) == 0);
	uroce_srq_set_user(n->srq, n);
	for (int q = 0; q < NQP; q++)
		qp_new(n, q);
}

/* The UD QP joins the group of each family (IPv4 239.0.0.1, IPv6 ff0e::1), the first and so
 * the one that joins on the network: each attach is the group's first on the device. */
static void ud_attach(struct node *n)
{
	for (int v6 = 0; v6 < 2; v6++)
		FUZZ_CHECK(uroce_mcast_attach(n->qp[QP_UD], &fuzz_engine_group[v6]) == 1);
}

static void connect_nodes(void)
{
	for (int i = 0; i < 2; i++) {
		struct node *n = &g_node[i];
		for (int q = 0; q < NQP; q++)
			qp_bring_up(n, q, sq_psn0[i], sq_psn0[1 - i]);
		ud_attach(n);
		for (int v6 = 0; v6 < 2; v6++) {
			struct uroce_ah_attr ah = {.dgid = g_node[1 - i].gid[v6], .sgid_index = (uint8_t)v6,
						   .port_num = 1, .hop_limit = 64};
			FUZZ_CHECK(uroce_ah_create(n->pd, &ah, &n->ah[v6]) == 0);
		}
	}
}

static void node_free(struct node *n)
{
	uroce_dev_free(n->dev);
	for (int r = 0; r < NREGION; r++)
		free(n->reg[r].mem);
}

/* ---- posting ---- */

/* A receive of one slot (or of its first size x 8 bytes); every other one scattered over two
 * SGEs (the halves, the second first, so that the scatter order shows). QP_SRQ's go to the
 * SRQ. Flags: P_BAD_LOCAL, P_X (three SGEs, one more than the queue takes). */
static void post_recv(struct node *n, int q, uint8_t size, uint8_t flags)
{
	uint64_t slot = LOCAL_IOVA + (uint64_t)(q * 4 + (int)(n->recv_id[q] % 4)) * RECV_SLOT;
	uint32_t len = size && size * 8u < RECV_SLOT ? size * 8u : RECV_SLOT;
	uint32_t lkey = uroce_mr_lkey(n->reg[flags & P_BAD_LOCAL ? R_RO : R_LOCAL].mr);
	struct uroce_sge sge[3] = {{.addr = slot, .length = len, .lkey = lkey}};
	struct uroce_recv_wr wr = {.wr_id = n->recv_id[q], .sg_list = sge, .num_sge = 1};
	const struct uroce_recv_wr *bad;
	int err;

	if (n->recv_id[q] & 1) {
		sge[0] = (struct uroce_sge){.addr = slot + len / 2, .length = len - len / 2, .lkey = lkey};
		sge[1] = (struct uroce_sge){.addr = slot, .length = len / 2, .lkey = lkey};
		wr.num_sge = 2;
	}
	if (flags & P_X) {
		sge[2] = sge[0];
		wr.num_sge = 3;
	}
	err = qp_conf[q].srq ? uroce_post_srq_recv(n->srq, &wr, &bad)
			     : uroce_post_recv(n->qp[q], &wr, &bad);
	FUZZ_CHECK(err == 0 || err == UROCE_EINVAL || err == UROCE_EFULL);
	FUZZ_CHECK(err != 0 || !(flags & P_X));
	if (err == 0)
		n->recv_id[q]++;
}

/* One send work request of len bytes (atomics and ATOMIC WRITE: 8) at offset off of the remote region the
 * flags name (P_TARGET), gathered from two SGEs when longer than 64 bytes and odd. Invalid
 * combinations (a READ on UD, inline data over 64 bytes, an unknown opcode, three SGEs) are
 * refused by post_send. SEND_WITH_INV names the peer's region, LOCAL_INV the node's own. */
static void post_send(struct node *n, int q, enum uroce_wr_opcode op, uint32_t len, uint64_t off,
		      uint8_t flags)
{
	bool atomic = op == UROCE_WR_ATOMIC_CMP_AND_SWP || op == UROCE_WR_ATOMIC_FETCH_AND_ADD;
	bool len8 = atomic || op == UROCE_WR_ATOMIC_WRITE;
	bool datagram = type_is_datagram(qp_conf[q].type), inl = flags & P_INLINE;
	uint64_t local = op == UROCE_WR_RDMA_READ ? READ_AREA
			 : atomic			 ? ATOMIC_AREA + off % 64
							 : SEND_AREA;
	const struct region *lr = &n->reg[R_LOCAL];
	uint32_t lkey = uroce_mr_lkey(n->reg[flags & P_BAD_LOCAL ? R_RO : R_LOCAL].mr);
	/* Inline data is read from host addresses at post time. */
	uint64_t base = inl ? (uint64_t)(uintptr_t)(lr->mem + GUARD) : LOCAL_IOVA;
	struct uroce_sge sge[3] = {{.addr = base + local, .length = len8 ? 8 : len, .lkey = lkey}};
	struct uroce_send_wr wr = {
		.wr_id = n->send_id[q], .sg_list = sge, .num_sge = 1, .opcode = op,
		.send_flags = (flags & P_UNSIGNALED ? 0u : UROCE_SEND_SIGNALED) |
			      (flags & P_FENCE ? UROCE_SEND_FENCE : 0u) |
			      (flags & P_SOLICITED ? UROCE_SEND_SOLICITED : 0u) |
			      (inl ? UROCE_SEND_INLINE : 0u),
		.imm_data = 0x1234};
	const struct uroce_send_wr *bad;
	const struct node *peer = peer_of(n);
	static const int target_region[4] = {[T_DATA] = R_DATA, [T_INV] = R_INV, [T_RO] = R_RO,
					     [T_STALE] = R_DATA};
	int t = flags & P_TARGET;
	const struct region *rr = &peer->reg[target_region[t]];
	uint32_t rkey = t == T_STALE ? stale_key(uroce_mr_rkey(rr->mr)) : uroce_mr_rkey(rr->mr);
	uint64_t raddr = rr->iova + off % rr->len;
	int err;

	if (!len8 && len > 64 && len & 1) {
		sge[0].length = len / 2;
		sge[1] = (struct uroce_sge){.addr = base + local + 2048, .length = len - len / 2,
					    .lkey = lkey};
		wr.num_sge = 2;
	}
	if (!datagram && flags & P_X) {
		sge[2] = sge[0];
		wr.num_sge = 3;
	}
	if (op == UROCE_WR_SEND_WITH_INV)
		wr.invalidate_rkey = rkey;
	else if (op == UROCE_WR_LOCAL_INV)
		wr.invalidate_rkey = uroce_mr_rkey(n->reg[target_region[t]].mr);
	if (atomic) {
		/* Solicited means nothing to an atomic: here it makes the address unaligned. */
		wr.wr.atomic.remote_addr = (raddr & ~7ull) + (flags & P_SOLICITED ? 4 : 0);
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 2;
	} else if (datagram) {
		wr.wr.ud.ah = n->ah[!!(flags & P_X)];
		wr.wr.ud.remote_qpn = uroce_qp_num(peer->qp[q]);
		/* A fence means nothing to a datagram: here it asks for the QP's own Q_Key. */
		wr.wr.ud.remote_qkey = flags & P_FENCE ? UROCE_QKEY_CONTROLLED
				       : qp_conf[q].type == UROCE_QPT_GSI ? UROCE_GSI_QKEY
									  : QKEY;
	} else {
		/* An ATOMIC WRITE's address aligned, as an atomic's; solicited: unaligned. */
		wr.wr.rdma.remote_addr = op == UROCE_WR_ATOMIC_WRITE
						 ? (raddr & ~7ull) + (flags & P_SOLICITED ? 4 : 0)
						 : raddr;
		wr.wr.rdma.rkey = rkey;
	}
	err = uroce_post_send(n->qp[q], &wr, &bad);
	FUZZ_CHECK(err == 0 || err == UROCE_EINVAL || err == UROCE_EFULL);
	FUZZ_CHECK(err != 0 || uroce_wr_opcode_name(op));
	if (err == 0) {
		n->send_id[q]++;
		n->posted = true;
	}
}

/* What both engines have going when the script starts. */
static void initial_work(void)
{
	struct node *a = &g_node[0], *b = &g_node[1];

	for (int i = 0; i < 2; i++)
		for (int q = 0; q < NQP; q++)
			for (int k = 0; k < 4; k++)
				post_recv(&g_node[i], q, 0, 0);
	post_send(a, QP_RC, UROCE_WR_SEND, 700, 0, 0);
	post_send(a, QP_RC, UROCE_WR_RDMA_WRITE, 1000, 0, 0);
	post_send(a, QP_RC, UROCE_WR_RDMA_READ, 1500, 2048, 0);
	post_send(a, QP_RC, UROCE_WR_ATOMIC_FETCH_AND_ADD, 8, 4096, 0);
	post_send(a, QP_RC, UROCE_WR_ATOMIC_CMP_AND_SWP, 8, 4104, 0);
	post_send(a, QP_RC, UROCE_WR_SEND_WITH_IMM, 0, 0, 0);
	post_send(b, QP_RC, UROCE_WR_SEND, 300, 0, 0);
	post_send(b, QP_RC, UROCE_WR_RDMA_READ, 600, 1000, 0);
	post_send(b, QP_RC, UROCE_WR_RDMA_WRITE_WITH_IMM, 100, 5000, 0);
	post_send(a, QP_UC, UROCE_WR_SEND, 500, 0, 0);
	post_send(a, QP_UC, UROCE_WR_RDMA_WRITE_WITH_IMM, 300, 6000, 0);
	post_send(b, QP_UC, UROCE_WR_SEND, 10, 0, 0);
	post_send(a, QP_UD, UROCE_WR_SEND, 100, 0, 0);
	post_send(a, QP_UD, UROCE_WR_SEND, 40, 0, P_X);
	post_send(b, QP_UD, UROCE_WR_SEND_WITH_IMM, 0, 0, 0);
	post_send(a, QP_SRQ, UROCE_WR_SEND, 301, 0, 0);
	post_send(a, QP_SRQ, UROCE_WR_RDMA_WRITE, 200, 64, T_INV);
	post_send(a, QP_SRQ, UROCE_WR_SEND_WITH_INV, 40, 0, T_INV);
	post_send(b, QP_SRQ, UROCE_WR_SEND_WITH_IMM, 777, 0, 0);
	post_send(b, QP_SRQ, UROCE_WR_LOCAL_INV, 0, 0, T_INV);
	post_send(a, QP_GSI, UROCE_WR_SEND, 256, 0, 0);
	post_send(b, QP_GSI, UROCE_WR_SEND, 256, 0, 0);
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

/* Every packet an engine writes is a whole RoCEv2 packet, good ICRC, from one of its
 * addresses to the peer's address of the same family. */
static void check_sent(const struct node *n, const uint8_t *p, uint32_t len)
{
	struct uroce_pkt pkt;

	FUZZ_CHECK(fuzz_dissect(&pkt, UROCE_LINK_IP, p, len) == 0);
	FUZZ_CHECK(pkt.encap == UROCE_ENCAP_ROCEV2);
	FUZZ_CHECK(uroce_pkt_icrc_check(&pkt, NULL) == UROCE_CRC_OK);
	bool v6 = pkt.layers & UROCE_L_IPV6;
	FUZZ_CHECK(!memcmp(v6 ? pkt.ip6.src : pkt.ip4.src, n->gid[v6].ip, v6 ? 16 : 4));
	FUZZ_CHECK(!memcmp(v6 ? pkt.ip6.dst : pkt.ip4.dst, peer_of(n)->gid[v6].ip, v6 ? 16 : 4));
}

/* Takes what the engine has to send, while there is room in flight; after a post, requests
 * first, as the verbs layer does (src/verbs/port.c, write_and_send). The one place that
 * writes: whatever the caller must do once a batch is out belongs at its end. */
static void flush_out(struct node *n)
{
	bool requests = n->posted;

	n->posted = false;
	while (n->count < OUTBOX) {
		struct uroce_io_pkt io;
		uint32_t slot = (n->head + n->count) % OUTBOX;
		struct uroce_txbatch tx = {.pkts = &io, .max = 1};
		io.data = n->box[slot];
		io.cap = n->tx_cap;
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
static void deliver_flags(struct node *to, const uint8_t *p, size_t len, uint32_t flags)
{
	struct uroce_io_pkt io = {.data = malloc(len ? len : 1), .len = (uint32_t)len,
				  .cap = (uint32_t)len, .ts_ns = g_now, .flags = flags};

	FUZZ_CHECK(io.data);
	memcpy(io.data, p, len);
	to->recv_calls++;
	uroce_dev_recv(to->dev, &io, g_now);
	free(io.data);
}

static void deliver(struct node *to, const uint8_t *p, size_t len)
{
	deliver_flags(to, p, len, 0);
}

/* Makes a datagram right again after an edit: lengths, the IPv4 header checksum, the ICRC
 * (not for an IPv6 packet with extension headers, whose ICRC uroce does not compute). */
static void fixup(uint8_t *p, size_t len)
{
	uint32_t crc;

	if (len >= 40 + 8 + 12 + 4 && p[0] >> 4 == 6) {
		put_be16(p + 4, (uint16_t)(len - 40));
		if (p[6] != UROCE_IPPROTO_UDP)
			return;
		put_be16(p + 44, (uint16_t)(len - 40));
		if (uroce_icrc(UROCE_ICRC_ROCEV2_IPV6, p, 48, len - 4, &crc) == 0)
			put_le32(p + len - 4, crc);
		return;
	}
	size_t ihl = (size_t)(p[0] & 15) * 4;
	if (len < 20 || p[0] >> 4 != 4 || ihl < 20 || len < ihl + 8 + 12 + 4)
		return;
	put_be16(p + 2, (uint16_t)len);
	put_be16(p + 10, 0);
	put_be16(p + 10, uroce_ipv4_checksum(p, ihl));
	put_be16(p + ihl + 4, (uint16_t)(len - ihl));
	if (uroce_icrc(UROCE_ICRC_ROCEV2_IPV4, p, ihl + 8, len - 4, &crc) == 0)
		put_le32(p + len - 4, crc);
}

/* The IP and UDP headers the peer of `to` would write in front of a transport part. */
static size_t frame(struct node *to, const uint8_t *tp, size_t tlen, bool v6)
{
	const struct node *from = peer_of(to);
	size_t ip = v6 ? 40 : 20, len = ip + 8 + tlen + 4;
	const uint8_t *dst = tlen >= 8 && (get_be32(tp + 4) & 0xFFFFFF) == MCAST_QPN
				     ? fuzz_engine_group[v6].ip
				     : to->gid[v6].ip;

	memset(g_pkt, 0, ip + 8);
	if (v6) {
		g_pkt[0] = 0x60;
		g_pkt[6] = UROCE_IPPROTO_UDP;
		g_pkt[7] = 64;
		memcpy(g_pkt + 8, from->gid[1].ip, 16);
		memcpy(g_pkt + 24, dst, 16);
	} else {
		g_pkt[0] = 0x45;
		put_be16(g_pkt + 6, 0x4000); /* DF */
		g_pkt[8] = 64;
		g_pkt[9] = UROCE_IPPROTO_UDP;
		memcpy(g_pkt + 12, from->gid[0].ip, 4);
		memcpy(g_pkt + 16, dst, 4);
	}
	put_be16(g_pkt + ip, 0xC000);
	put_be16(g_pkt + ip + 2, UROCE_ROCEV2_UDP_PORT);
	memcpy(g_pkt + ip + 8, tp, tlen);
	memset(g_pkt + ip + 8 + tlen, 0, 4);
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
	case UROCE_WC_ATOMIC_WRITE:
	case UROCE_WC_RECV:
	case UROCE_WC_RECV_RDMA_WITH_IMM:
		return true;
	default:
		return false;
	}
}

/* The device's next deadline is the earliest of its QPs' timers (the node's; objects the
 * script creates are gone by now), or a timer would fire late. */
static void check_deadline(struct node *n)
{
	uint64_t t = UROCE_NEVER;

	for (int q = 0; q < NQP; q++)
		for (unsigned k = 0; k < QP_TIMERS; k++)
			if (qp_timer_due(n->qp[q], (enum qp_timer)k) < t)
				t = qp_timer_due(n->qp[q], (enum qp_timer)k);
	FUZZ_CHECK(uroce_dev_next_deadline(n->dev) == t);
}

static int qp_index(const struct node *n, const struct uroce_qp *qp)
{
	int q = 0;

	while (q < NQP && n->qp[q] != qp)
		q++;
	return q;
}

/* Events name objects of this node and a type the engine has: QP_LAST_WQE_REACHED only a QP
 * on an SRQ, CQ_ERR only a CQ that then reports its overrun. */
static void take_events(struct node *n)
{
	struct uroce_async_event ev;

	while (uroce_dev_get_async_event(n->dev, &ev)) {
		FUZZ_CHECK(uroce_event_name(ev.type));
		switch (ev.type) {
		case UROCE_EVENT_SRQ_LIMIT_REACHED:
			FUZZ_CHECK(ev.element.srq == n->srq);
			break;
		case UROCE_EVENT_CQ_ERR:
			FUZZ_CHECK(ev.element.cq == n->cq_small || (ev.element.cq == n->cq && n->cq_held));
			FUZZ_CHECK(uroce_cq_poll(ev.element.cq, NULL, 0) == UROCE_EIO);
			break;
		case UROCE_EVENT_PORT_ACTIVE:
		case UROCE_EVENT_PORT_ERR:
			FUZZ_CHECK(ev.element.port_num == 1);
			break;
		case UROCE_EVENT_QP_LAST_WQE_REACHED:
			FUZZ_CHECK(ev.element.qp == n->qp[QP_SRQ]);
			break;
		default:
			FUZZ_CHECK(qp_index(n, ev.element.qp) < NQP);
			break;
		}
	}
}

/* Completions: for this node's QPs, from the CQ each was given, in posting order per queue,
 * for posted work, with a known status and opcode. Only QP_RD's small CQ, or one the script
 * left unread, may overrun. */
static void poll_cqs(struct node *n)
{
	struct uroce_cq *cqs[2] = {n->cq, n->cq_small};
	struct uroce_wc wc[16];

	for (int c = 0; c < 2; c++) {
		uint32_t waiting = uroce_cq_count(cqs[c]), polled = 0;
		int got;
		FUZZ_CHECK(uroce_cq_user(cqs[c]) == n);
		while ((got = uroce_cq_poll(cqs[c], wc, 16)) > 0) {
			for (int i = 0; i < got; i++) {
				/* Staged when its QP was destroyed (the recreate step): no QP to
				 * check it against (cq_forget_qp). */
				if (!wc[i].qp)
					continue;
				int q = qp_index(n, wc[i].qp);
				FUZZ_CHECK(q < NQP && wc[i].qp_num == uroce_qp_num(n->qp[q]));
				FUZZ_CHECK(qp_cq(n, q) == cqs[c]);
				FUZZ_CHECK(uroce_wc_status_name(wc[i].status));
				bool recv = wc[i].opcode & UROCE_WC_RECV;
				uint64_t *done = recv ? &n->recv_done[q] : &n->send_done[q];
				uint64_t posted = recv ? n->recv_id[q] : n->send_id[q];
				/* In posting order: ids only grow, and each was posted. */
				FUZZ_CHECK(wc[i].wr_id >= *done && wc[i].wr_id < posted);
				*done = wc[i].wr_id + 1;
				FUZZ_CHECK(wc_opcode_known(wc[i].opcode));
			}
			polled += (uint32_t)got;
		}
		FUZZ_CHECK(polled == waiting);
		FUZZ_CHECK(got == 0 || (got == UROCE_EIO && (c == 1 || n->cq_held)));
	}
}

static void check_qps(struct node *n)
{
	for (int q = 0; q < NQP; q++) {
		struct uroce_qp *qp = n->qp[q];
		const struct req_state *rq = &qp->req;
		struct uroce_qp_attr a;
		struct uroce_qp_init_attr init;
		uroce_qp_query(qp, &a, &init);
		FUZZ_CHECK(a.qp_state == uroce_qp_state(qp) && a.cur_qp_state == a.qp_state);
		FUZZ_CHECK(uroce_qp_state_name(a.qp_state));
		FUZZ_CHECK(!a.sq_draining || a.qp_state == UROCE_QPS_SQD);
		FUZZ_CHECK(init.qp_type == qp_conf[q].type && init.send_cq == qp_cq(n, q) &&
			   init.srq == (qp_conf[q].srq ? n->srq : NULL));
		FUZZ_CHECK(uroce_qp_user(qp) == n);
		FUZZ_CHECK(qp->sq.cur - qp->sq.tail <= qp->sq.head - qp->sq.tail);
		FUZZ_CHECK(qp->sq.head - qp->sq.tail <= qp->cap.max_send_wr);
		if (qp->type == UROCE_QPT_RC)
			FUZZ_CHECK(uroce_psn_le(rq->una, rq->psn) && uroce_psn_le(rq->psn, rq->psn_max));
	}
}

/* The counters, at the end (they only grow): each named and described, a QP's never above
 * the device's. */
static void check_counters(const struct node *n)
{
	const union uroce_counters *dc = uroce_dev_counters(n->dev);

	for (enum uroce_counter k = 0; k < UROCE_NCOUNTERS; k++) {
		FUZZ_CHECK(uroce_counter_name(k) && uroce_counter_desc(k));
		for (int q = 0; q < NQP; q++)
			FUZZ_CHECK(uroce_qp_counters(n->qp[q])->v[k] <= dc->v[k]);
	}
}

static void check_node(struct node *n)
{
	struct uroce_dev_attr da;
	struct uroce_srq_attr sa;

	check_deadline(n);
	for (int r = 0; r < NREGION; r++) {
		const struct region *g = &n->reg[r];
		FUZZ_CHECK(!memcmp(g->mem, g_guard_fill, GUARD) &&
			   !memcmp(g->mem + GUARD + g->len, g_guard_fill, GUARD));
		/* Only LOCAL_INV and SEND_WITH_INV invalidate, and only a region that allows it. */
		FUZZ_CHECK(uroce_mr_valid(g->mr) || g->access & INV);
	}
	FUZZ_CHECK(!memcmp(n->reg[R_RO].mem + GUARD, g_ro_fill, n->reg[R_RO].len));
	if (!n->hold_events)
		take_events(n);
	if (!n->hold_cq)
		poll_cqs(n);
	check_qps(n);
	uroce_srq_query(n->srq, &sa);
	FUZZ_CHECK(sa.max_wr == SRQ_WR && sa.max_sge == 2 && sa.srq_limit <= SRQ_WR);
	FUZZ_CHECK(uroce_srq_user(n->srq) == n);
	uroce_dev_query(n->dev, &da);
	FUZZ_CHECK(da.port_active == n->port_up && da.max_qp == n->dev->cfg.max_qp);
	/* Every datagram handed over is counted: it reached a QP or was dropped for a reason. */
	const union uroce_counters *c = uroce_dev_counters(n->dev);
	uint64_t seen = c->rcvd_pkts;
	for (enum uroce_counter k = 0; k < UROCE_NCOUNTERS; k++)
		if (g_is_drop[k])
			seen += c->v[k];
	FUZZ_CHECK(seen >= n->recv_calls);
}

/* Before a QP goes away: whatever names it is taken, read or not. */
static void drain(struct node *n)
{
	take_events(n);
	poll_cqs(n);
}

static void run_timers(void)
{
	for (int i = 0; i < 2; i++) {
		uroce_dev_on_timer(g_node[i].dev, g_now);
		FUZZ_CHECK(uroce_dev_next_deadline(g_node[i].dev) > g_now);
	}
}

/* ---- the script ---- */

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
	uint32_t flags = 0;

	if (op & F_X && !(op & F_FRAMED))
		flags = rd_u8(r) & (UROCE_IO_PKT_TRUNC | UROCE_IO_PKT_ICRC_OK);
	if (take > r->n)
		take = r->n;
	if (op & F_FRAMED) {
		len = frame(to, r->p, take > UROCE_MAX_DATAGRAM - 52 ? UROCE_MAX_DATAGRAM - 52 : take,
			    op & F_X);
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
	deliver_flags(to, g_pkt, len, flags);
}

static void op_mutate(struct reader *r, uint8_t op, struct node *to)
{
	struct node *from = peer_of(to);
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

/* what: bit 7 a receive on QP (what & 0x7F) % NQP of size x 8 bytes (0: a whole slot);
 * else a send on that QP of opcode (what & 0x7F) / NQP, from the list below (two values are
 * not opcodes), of size x 8 bytes (+1 when odd) at offset size x 24. flags: P_*. */
static void op_post(struct reader *r, struct node *n)
{
	static const enum uroce_wr_opcode ops[] = {
		UROCE_WR_SEND, UROCE_WR_SEND_WITH_IMM, UROCE_WR_RDMA_WRITE,
		UROCE_WR_RDMA_WRITE_WITH_IMM, UROCE_WR_RDMA_READ, UROCE_WR_ATOMIC_CMP_AND_SWP,
		UROCE_WR_ATOMIC_FETCH_AND_ADD, UROCE_WR_SEND_WITH_INV, UROCE_WR_LOCAL_INV,
		(enum uroce_wr_opcode)8, UROCE_WR_OPCODE_MAX, UROCE_WR_ATOMIC_WRITE,
	};
	uint8_t what = rd_u8(r), size = rd_u8(r), flags = rd_u8(r);
	int q = (what & 0x7F) % NQP;

	if (what & 0x80)
		post_recv(n, q, size, flags);
	else
		post_send(n, q, ops[(what & 0x7F) / NQP % (sizeof(ops) / sizeof(ops[0]))],
			  (uint32_t)size * 8 + (size & 1), (uint64_t)size * 24 % 4096, flags);
}

/* mode bit 0: the mask starts from what the move requires (std_mask), else empty; the three
 * mask bytes then toggle attributes (bit i: the i-th of UROCE_QP_ATTRS). state: bits 0-2
 * the next state (7 is none), bits 3-5 cur_qp_state, bit 6 en_sqd_async_notify. The values
 * are the QP's own, the PSNs those that resume the conversation, unless the mode replaces
 * them: bit 1 timeout, retry counts, RNR timer; bit 2 max_rd_atomic and max_dest_rd_atomic
 * from a menu (0..129); bit 3 access flags (bit 4: an unknown one); bit 4 the path MTU code
 * (0..7); bit 5 the address vector (the other family, a GID index, flow label, port or P_Key
 * index out of range); bit 6 another Q_Key; bit 7 the PSNs (the RQ PSN possibly over 24
 * bits). The call may fail only with EINVAL or EBUSY, and then changes nothing. */
static void op_modify(struct reader *r, struct node *n)
{
	static const unsigned attr_bits[] = {
#define ATTR_BIT(name, bit, str) UROCE_QPA_##name,
		UROCE_QP_ATTRS(ATTR_BIT)
#undef ATTR_BIT
	};
	static const uint8_t rd_menu[8] = {0, 1, 2, 4, 16, 128, 129, 3};
	const int nattr = (int)(sizeof(attr_bits) / sizeof(attr_bits[0]));
	int q = rd_u8(r) % NQP;
	uint8_t st = rd_u8(r), mode = rd_u8(r), m[3], v[6];
	struct uroce_qp *qp = n->qp[q];
	const struct uroce_qp *pq = peer_of(n)->qp[q];
	struct uroce_qp_attr a;

	for (int i = 0; i < 3; i++)
		m[i] = rd_u8(r);
	for (int i = 0; i < 6; i++)
		v[i] = rd_u8(r);
	enum uroce_qp_state cur = uroce_qp_state(qp), next = (enum uroce_qp_state)(st & 7);
	unsigned mask = mode & 1 ? std_mask(qp->type, cur, next) : 0;
	for (int i = 0; i < nattr; i++)
		if (m[i / 8] >> (i % 8) & 1)
			mask ^= attr_bits[i];
	qp_attr_fill(n, q, &a, pq->resp.epsn, pq->req.una, qp_conf[q].v6 ^ (mode & 0x20 && v[5] & 1));
	a.qp_state = next;
	a.cur_qp_state = (enum uroce_qp_state)(st >> 3 & 7);
	a.en_sqd_async_notify = st & 0x40;
	if (mode & 0x02) {
		a.timeout = v[0] % 40;
		a.retry_cnt = v[1] % 9;
		a.rnr_retry = v[1] / 9 % 9;
		a.min_rnr_timer = v[2] % 40;
	}
	if (mode & 0x04) {
		a.max_rd_atomic = rd_menu[v[3] & 7];
		a.max_dest_rd_atomic = rd_menu[v[3] >> 3 & 7];
	}
	if (mode & 0x08)
		a.qp_access_flags = v[4] & 0x1F;
	if (mode & 0x10)
		a.path_mtu = (enum uroce_mtu)(v[4] >> 5);
	if (mode & 0x20) {
		if (v[5] & 2)
			a.ah_attr.sgid_index = 2;
		if (v[5] & 4)
			a.ah_attr.flow_label = 0x100000;
		if (v[5] & 8)
			a.port_num = 2;
		if (v[5] & 16)
			a.pkey_index = 1;
	}
	if (mode & 0x40)
		a.qkey = v[5] & 32 ? UROCE_QKEY_CONTROLLED | 0x10000 : 0x22222222;
	if (mode & 0x80) {
		a.rq_psn = (uint32_t)v[0] << 16 | (uint32_t)v[1] << 8 | v[2] | (v[5] & 64 ? 1u << 24 : 0);
		a.sq_psn = (uint32_t)v[3] << 16 | (uint32_t)v[4] << 8 | v[5];
	}
	for (int i = 0; i < nattr; i++)
		FUZZ_CHECK(uroce_qp_attr_name(attr_bits[i]));
	int err = uroce_qp_modify(qp, &a, mask);
	FUZZ_CHECK(err == 0 || err == UROCE_EINVAL || err == UROCE_EBUSY);
	FUZZ_CHECK(uroce_qp_state(qp) == (err || !(mask & UROCE_QPA_STATE) ? cur : next));
}

/* A QP destroyed, with whatever it had in flight, and created again under a new number;
 * connected to the peer's QP, which still sends to the old number. */
static void qp_recreate(struct node *n, int q)
{
	const struct uroce_qp *pq = peer_of(n)->qp[q];

	drain(n);
	if (q == QP_UD) { /* attached: detached first (the last QP of the groups) */
		FUZZ_CHECK(uroce_qp_destroy(n->qp[q]) == UROCE_EBUSY);
		for (int v6 = 0; v6 < 2; v6++)
			FUZZ_CHECK(uroce_mcast_detach(n->qp[q], &fuzz_engine_group[v6]) == 1);
	}
	FUZZ_CHECK(uroce_qp_destroy(n->qp[q]) == 0);
	qp_new(n, q);
	qp_bring_up(n, q, pq->resp.epsn, pq->req.una);
	if (q == QP_UD)
		ud_attach(n);
	if (!qp_conf[q].srq)
		for (int k = 0; k < 4; k++)
			post_recv(n, q, 0, 0);
}

/* Both QPs of a pair reset and connected again at new PSNs, their receives posted again;
 * packets of the old conversation may still be in flight. */
static void pair_reconnect(int q, uint8_t arg)
{
	struct uroce_qp_attr reset = {.qp_state = UROCE_QPS_RESET};
	uint32_t psn[2] = {(uint32_t)arg * 0x10101u, ((uint32_t)arg * 0x10101u + 0x800000) & UROCE_PSN_MASK};

	for (int i = 0; i < 2; i++) {
		drain(&g_node[i]);
		FUZZ_CHECK(uroce_qp_modify(g_node[i].qp[q], &reset, UROCE_QPA_STATE) == 0);
	}
	for (int i = 0; i < 2; i++) {
		qp_bring_up(&g_node[i], q, psn[i], psn[1 - i]);
		if (!qp_conf[q].srq)
			for (int k = 0; k < 4; k++)
				post_recv(&g_node[i], q, 0, 0);
	}
}

static void op_control(struct reader *r, struct node *n)
{
	uint8_t what = rd_u8(r) % NCONTROL, arg = rd_u8(r);

	switch ((enum control)what) {
	case C_SRQ_LIMIT: {
		struct uroce_srq_attr a = {.srq_limit = arg % 40u};
		unsigned mask = arg & 0x80 ? UROCE_SRQ_MAX_WR | UROCE_SRQ_LIMIT : UROCE_SRQ_LIMIT;
		bool ok = mask == UROCE_SRQ_LIMIT && a.srq_limit <= SRQ_WR;
		FUZZ_CHECK(uroce_srq_modify(n->srq, &a, mask) == (ok ? 0 : UROCE_EINVAL));
		break;
	}
	case C_PORT:
		n->port_up = arg & 1;
		uroce_dev_set_port_active(n->dev, n->port_up);
		break;
	case C_HOLD_EVENTS:
		n->hold_events = arg & 1;
		break;
	case C_HOLD_CQ:
		n->hold_cq = arg & 1;
		n->cq_held |= n->hold_cq;
		break;
	case C_REREG:
		region_rereg(n, arg % NREGION, arg / NREGION % 4);
		break;
	case C_TX_CAP:
		n->tx_cap = arg ? 40 + arg * 4u : UROCE_MAX_DATAGRAM;
		break;
	case C_RECREATE:
		qp_recreate(n, arg % NQP);
		break;
	case C_RECONNECT:
		pair_reconnect(arg % NQP, arg);
		break;
	case NCONTROL:
		break;
	}
}

/* Objects created from fuzzed parameters and destroyed at once: each call fails exactly
 * when its documentation says (engine.h), and an object in use refuses to go. */
static void op_object(struct reader *r, struct node *n)
{
	uint8_t kind = rd_u8(r) % 7, a = rd_u8(r), b = rd_u8(r), c = rd_u8(r);
	const struct node *peer = peer_of(n);
	int err;

	switch (kind) {
	case 0: { /* a QP: CQs of another device, an SRQ of another PD, capabilities too large */
		static const int types[8] = {UROCE_QPT_RC, UROCE_QPT_UC, UROCE_QPT_UD, UROCE_QPT_GSI,
					     0, 5, UROCE_QPT_RC, UROCE_QPT_UD};
		struct uroce_qp_init_attr init = {
			.send_cq = a & 8 ? peer->cq : n->cq, .recv_cq = a & 16 ? NULL : n->cq_small,
			.srq = a & 32 ? n->srq : a & 64 ? peer->srq : NULL,
			.qp_type = (enum uroce_qp_type)types[a & 7], .sq_sig_all = a & 128,
			.cap = {.max_send_wr = c & 1 ? UROCE_MAX_WR + 1 : b, .max_recv_wr = b,
				.max_send_sge = b & 0x80 ? UROCE_MAX_SGE + 1 : c >> 2 & 31u,
				.max_recv_sge = c & 2 ? UROCE_MAX_SGE + 1 : c >> 4 & 7u,
				.max_inline_data = c & 0x80 ? UROCE_MAX_INLINE + 1 : b}};
		struct uroce_qp *qp;
		err = uroce_qp_create(n->pd, &init, &qp);
		FUZZ_CHECK(err == 0 || err == UROCE_EINVAL || err == UROCE_EBUSY || err == UROCE_ENOMEM);
		if (err)
			break;
		FUZZ_CHECK(uroce_qp_state(qp) == UROCE_QPS_RESET);
		FUZZ_CHECK((uroce_qp_num(qp) == 1) == (init.qp_type == UROCE_QPT_GSI));
		struct uroce_sge sge = {.addr = LOCAL_IOVA, .length = 8,
					.lkey = uroce_mr_lkey(n->reg[R_LOCAL].mr)};
		struct uroce_recv_wr rwr = {.sg_list = &sge, .num_sge = 1};
		struct uroce_send_wr swr = {.sg_list = &sge, .num_sge = 1, .opcode = UROCE_WR_SEND};
		const struct uroce_recv_wr *rbad;
		const struct uroce_send_wr *sbad;
		/* Nothing is posted in RESET. */
		FUZZ_CHECK(uroce_post_recv(qp, &rwr, &rbad) == UROCE_EINVAL && rbad == &rwr);
		FUZZ_CHECK(uroce_post_send(qp, &swr, &sbad) == UROCE_EINVAL && sbad == &swr);
		FUZZ_CHECK(uroce_qp_destroy(qp) == 0);
		break;
	}
	case 1: { /* a CQ of depth 0..65 025 or one over the limit */
		uint32_t depth = a == 255 ? UROCE_MAX_CQE + 1 : (uint32_t)a * (b | 1);
		struct uroce_cq *cq;
		err = uroce_cq_create(n->dev, depth, &cq);
		FUZZ_CHECK(err == (depth && depth <= UROCE_MAX_CQE ? 0 : UROCE_EINVAL));
		if (!err) {
			FUZZ_CHECK(uroce_cq_count(cq) == 0 && uroce_cq_pushed(cq) == 0);
			FUZZ_CHECK(uroce_cq_destroy(cq) == 0);
		}
		FUZZ_CHECK(uroce_cq_destroy(n->cq) == UROCE_EBUSY);
		break;
	}
	case 2: { /* an SRQ */
		struct uroce_srq_attr sa = {.max_wr = a == 255 ? UROCE_MAX_WR + 1 : a,
					    .max_sge = b % 40u, .srq_limit = c}, q;
		bool ok = sa.max_wr && sa.max_wr <= UROCE_MAX_WR && sa.max_sge <= UROCE_MAX_SGE &&
			  sa.srq_limit <= sa.max_wr;
		struct uroce_srq *srq;
		err = uroce_srq_create(n->pd, &sa, &srq);
		FUZZ_CHECK(err == (ok ? 0 : UROCE_EINVAL));
		if (!err) {
			uroce_srq_query(srq, &q);
			FUZZ_CHECK(q.max_wr == sa.max_wr && q.srq_limit == sa.srq_limit &&
				   q.max_sge == (sa.max_sge ? sa.max_sge : 1));
			FUZZ_CHECK(uroce_srq_destroy(srq) == 0);
		}
		FUZZ_CHECK(uroce_srq_destroy(n->srq) == UROCE_EBUSY);
		break;
	}
	case 3: { /* an MR over part of the local region, or a range that wraps */
		unsigned access = (a & 0x0Fu) | (a & 0x10 ? INV : 0) | (a & 0x20 ? 1u << 8 : 0);
		uint64_t len = (uint64_t)b * 16, iova = c & 1 ? UINT64_MAX - 100 : 0x500000;
		uint8_t *addr = c & 2 ? NULL : n->reg[R_LOCAL].mem + GUARD;
		bool ok = !(access & 1u << 8) &&
			  !(access & (UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_ATOMIC) && !(access & LW)) &&
			  !(len && (!addr || iova > UINT64_MAX - (len - 1)));
		struct uroce_mr *mr;
		err = uroce_mr_reg(n->pd, addr, len, iova, access, &mr);
		FUZZ_CHECK(ok ? err == 0 || err == UROCE_ENOMEM : err == UROCE_EINVAL);
		if (!err) {
			FUZZ_CHECK(uroce_mr_lkey(mr) == uroce_mr_rkey(mr) && uroce_mr_valid(mr));
			FUZZ_CHECK(uroce_mr_dereg(mr) == 0);
		}
		break;
	}
	case 4: { /* an address handle */
		struct uroce_ah_attr aa = {.dgid = peer->gid[a & 1], .sgid_index = b % 4,
					   .port_num = c & 1 ? 2 : 1,
					   .flow_label = c & 2 ? 0x100000 : 0x12345,
					   .traffic_class = c, .hop_limit = b};
		bool ok = aa.sgid_index < 2 && aa.port_num == 1 && aa.flow_label <= 0xFFFFF &&
			  aa.dgid.ipv6 == (aa.sgid_index == 1);
		struct uroce_ah *ah;
		err = uroce_ah_create(n->pd, &aa, &ah);
		FUZZ_CHECK(err == (ok ? 0 : UROCE_EINVAL));
		if (!err)
			FUZZ_CHECK(uroce_ah_destroy(ah) == 0);
		break;
	}
	case 5: { /* a PD: in use while something holds it */
		struct uroce_pd *pd;
		struct uroce_ah *ah;
		struct uroce_ah_attr aa = {.dgid = peer->gid[0], .port_num = 1};
		FUZZ_CHECK(uroce_pd_alloc(n->dev, &pd) == 0);
		FUZZ_CHECK(uroce_ah_create(pd, &aa, &ah) == 0);
		FUZZ_CHECK(uroce_pd_dealloc(pd) == UROCE_EBUSY);
		FUZZ_CHECK(uroce_ah_destroy(ah) == 0);
		FUZZ_CHECK(uroce_pd_dealloc(pd) == 0);
		FUZZ_CHECK(uroce_pd_dealloc(n->pd) == UROCE_EBUSY);
		break;
	}
	case 6: { /* a device: no GID or too many, a zero address, MTU codes, table sizes */
		struct uroce_dev_cfg cfg = {.ngids = a % 18u, .port_mtu = (enum uroce_mtu)(c % 7),
					    .max_qp = c & 8 ? MAX_QPN : 2, .max_mr = c & 16 ? 1u << 24 : 2,
					    .first_qpn = c & 32 ? 5 : c & 64 ? 0x1000000 : 0};
		struct uroce_dev *dev;
		struct uroce_dev_attr da;
		for (uint32_t i = 0; i < UROCE_MAX_GIDS; i++)
			cfg.gid[i] = (struct uroce_io_addr){.ip = {10, 0, 1, (uint8_t)(i + 1)}};
		if (b & 0x10)
			cfg.gid[b % 16] = (struct uroce_io_addr){.ipv6 = b & 0x20};
		bool ok = cfg.ngids && cfg.ngids <= UROCE_MAX_GIDS && !(b & 0x10 && b % 16u < cfg.ngids) &&
			  cfg.port_mtu <= UROCE_MTU_4096 && !(c & (8 | 16)) && !(c & (32 | 64));
		err = uroce_dev_new(&cfg, &dev);
		FUZZ_CHECK(err == (ok ? 0 : UROCE_EINVAL));
		if (!err) {
			uroce_dev_query(dev, &da);
			FUZZ_CHECK(da.port_mtu == (cfg.port_mtu ? cfg.port_mtu : UROCE_MTU_4096) &&
				   da.max_qp == 2 && da.max_mr == 2 && da.port_active);
			uroce_dev_free(dev);
		}
		break;
	}
	}
}

/* Delivers everything in flight, both ways, until nothing moves (bounded). */
static void deliver_all(void)
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
		if (!moved)
			return;
	}
}

/* Delivers everything in flight, then lets time pass, until nothing is left (bounded:
 * rnr_retry 7 and an endless exchange the fuzzer made could go on). */
static void settle_with_time(void)
{
	for (int round = 0; round < FINISH_ROUNDS; round++) {
		deliver_all();
		if (g_node[0].count || g_node[1].count)
			continue;
		uint64_t t = uroce_dev_next_deadline(g_node[0].dev);
		uint64_t t1 = uroce_dev_next_deadline(g_node[1].dev);
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

static void step(struct reader *r)
{
	uint8_t op = rd_u8(r);
	struct node *n = &g_node[!!(op & F_NODE)];
	uint32_t len;

	switch ((enum op)((op & 15) % NOPS)) {
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
			if (op & F_X && len >= 20) {
				g_pkt[1] |= g_pkt[0] >> 4 == 6 ? 0x30 : 0x03;
				fixup(g_pkt, len);
			}
			deliver(peer_of(n), g_pkt, len);
		}
		break;
	case OP_DROP:
		if (n->count)
			box_pop(n);
		break;
	case OP_DUP:
		if (n->count) {
			memcpy(g_pkt, box_peek(n, 0, &len), UROCE_MAX_DATAGRAM);
			deliver(peer_of(n), g_pkt, len);
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
	case OP_MODIFY:
		op_modify(r, n);
		break;
	case OP_CONTROL:
		op_control(r, n);
		break;
	case OP_OBJECT:
		op_object(r, n);
		break;
	case OP_SETTLE:
		if (op & F_FIX)
			settle_with_time();
		else
			deliver_all();
		break;
	case NOPS:
		break;
	}
}

void fuzz_engine_step(struct reader *r)
{
	step(r);
	for (int i = 0; i < 2; i++) {
		flush_out(&g_node[i]);
		check_node(&g_node[i]);
	}
}

void fuzz_engine_finish(void)
{
	settle_with_time();
	for (int i = 0; i < 2; i++) {
		g_node[i].hold_events = g_node[i].hold_cq = false;
		check_node(&g_node[i]);
		check_counters(&g_node[i]);
	}
}

void fuzz_engine_pair_new(void)
{
	g_now = 0;
	node_new(0);
	node_new(1);
	connect_nodes();
	initial_work();
	for (int i = 0; i < 2; i++)
		flush_out(&g_node[i]);
}

void fuzz_engine_pair_free(void)
{
	node_free(&g_node[0]);
	node_free(&g_node[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = {data, size};

	fuzz_engine_pair_new();
	for (int s = 0; s < MAX_STEPS && r.n; s++)
		fuzz_engine_step(&r);
	fuzz_engine_finish();
	fuzz_engine_pair_free();
	return 0;
}

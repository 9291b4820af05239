/* SPDX-License-Identifier: MIT */
/* The engine fuzz target's seed generator: `fuzz_engine_seeds DIR` writes fuzz/corpus/engine
 * (fuzz/make-corpus.sh runs it). Each seed is a script recorded while it runs, step by step,
 * on the target's own pair of engines (fuzz_engine_step), so that it can name the QP numbers,
 * keys and PSNs the engines really have at that point; after each one the generator checks
 * that the seed did what its name says (a counter moved, a QP changed state, memory kept its
 * value), then replays the file through LLVMFuzzerTestOneInput. A seed that stops reaching
 * its case after a change to the engine or the harness fails here, not silently.
 *
 * Seeds: two plain scripts (a clean exchange; loss, duplicates, reordering, a mutation,
 * posts, timers); the first packet of each opcode the engines exchange, as an inject step,
 * whole and behind the harness's headers; then one script per adversarial case
 * (docs/fuzzing.md lists them). */
#include "fuzz_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "engine/priv.h"
#include "engine/rq.h"
#include "fuzz_check.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/mad.h"
#include "wire/psn.h"

#define A 0
#define B 1
#define QKEY 0x11111111u
#define ACK_SYN 0x1F
#define DATA_IOVA 0x100000ull
#define RO_IOVA 0x400000ull

/* Indexes of UROCE_QP_ATTRS (the modify step's mask toggles). */
enum {
	AT_STATE, AT_CUR_STATE, AT_EN_SQD, AT_ACCESS, AT_PKEY, AT_PORT, AT_QKEY, AT_AV, AT_MTU,
	AT_TIMEOUT, AT_RETRY, AT_RNR_RETRY, AT_RQ_PSN, AT_MAX_RD, AT_MIN_RNR, AT_SQ_PSN,
	AT_MAX_DEST, AT_DEST_QPN
};

static const char *g_dir;
static uint8_t g_script[1 << 16];
static size_t g_len;
static int g_seeds;

/* ---- recording ---- */

static void begin(void)
{
	g_len = 0;
	fuzz_engine_pair_new();
}

/* Runs one step and appends it to the script; the step must take exactly these bytes. */
static void run(const uint8_t *b, size_t n)
{
	struct reader r = {b, n};

	FUZZ_CHECK(g_len + n <= sizeof(g_script));
	memcpy(g_script + g_len, b, n);
	g_len += n;
	fuzz_engine_step(&r);
	FUZZ_CHECK(r.n == 0);
}

#define STEP(...)                                      \
	do {                                           \
		const uint8_t step_[] = {__VA_ARGS__}; \
		run(step_, sizeof(step_));             \
	} while (0)

static void write_file(const char *name, const uint8_t *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	f = fopen(path, "wb");
	FUZZ_CHECK(f && fwrite(p, 1, len, f) == len && fclose(f) == 0);
	g_seeds++;
}

/* Writes the script and replays it whole, the clean finish included. */
static void end(const char *name)
{
	fuzz_engine_pair_free();
	write_file(name, g_script, g_len);
	FUZZ_CHECK(LLVMFuzzerTestOneInput(g_script, g_len) == 0);
}

/* ---- what the engines hold ---- */

static uint8_t node_flag(int i) { return i ? F_NODE : 0; }
static struct uroce_qp *qp(int i, int q) { return g_node[i].qp[q]; }
static uint32_t qpn(int i, int q) { return uroce_qp_num(qp(i, q)); }
static uint32_t epsn(int i, int q) { return qp(i, q)->resp.epsn; }
static uint64_t dcnt(int i, enum uroce_counter c) { return uroce_dev_counters(g_node[i].dev)->v[c]; }
static uint32_t rkey(int i, int r) { return uroce_mr_rkey(g_node[i].reg[r].mr); }
static enum uroce_qp_state state(int i, int q) { return uroce_qp_state(qp(i, q)); }
/* The newest completion a CQ received (read back from its ring after the harness polled). */
static const struct uroce_wc *last_wc(const struct uroce_cq *cq)
{
	uint32_t tail = atomic_load(&cq->tail);
	return &cq->ring[(tail - 1) & (cq->size - 1)];
}

/* ---- steps ---- */

static void settle(void) { STEP(OP_SETTLE | F_FIX); }
static void settle_no_time(void) { STEP(OP_SETTLE); }
static void control(int i, enum control what, uint8_t arg) { STEP(OP_CONTROL | node_flag(i), what, arg); }
static void post(int i, uint8_t what, uint8_t size, uint8_t flags)
{
	STEP(OP_POST | node_flag(i), what, size, flags);
}
/* A send of op_index (op_post's list) on QP q, of size x 8 (+1 when odd) bytes. */
static void post_send(int i, int q, int op_index, uint8_t size, uint8_t flags)
{
	post(i, (uint8_t)(op_index * NQP + q), size, flags);
}
static void post_recv(int i, int q, uint8_t size, uint8_t flags)
{
	post(i, (uint8_t)(0x80 | q), size, flags);
}
enum { W_SEND, W_SEND_IMM, W_WRITE, W_WRITE_IMM, W_READ, W_CMP_SWAP, W_FETCH_ADD, W_SEND_INV,
       W_LOCAL_INV, W_BAD8, W_BAD_MAX, W_ATOMIC_WRITE };

/* modify: toggles is a set of 1 << AT_*; v the six value bytes. */
static void modify(int i, int q, uint8_t st, uint8_t mode, uint32_t toggles, const uint8_t v[6])
{
	STEP(OP_MODIFY | node_flag(i), (uint8_t)q, st, mode, (uint8_t)toggles,
	     (uint8_t)(toggles >> 8), (uint8_t)(toggles >> 16), v[0], v[1], v[2], v[3], v[4], v[5]);
}
static const uint8_t v0[6];

static void object(int i, uint8_t kind, uint8_t a, uint8_t b, uint8_t c)
{
	STEP(OP_OBJECT | node_flag(i), kind, a, b, c);
}

struct tp {
	uint8_t opcode;
	uint32_t destqp, psn;
	bool ackreq;
	uint16_t pkey;
	uint8_t tver;
	struct uroce_ext ext;
	const uint8_t *payload;
	size_t len;
};

/* The whole datagram of a transport part, from the peer of `to` (IPv4 or IPv6). */
static size_t build(uint8_t *out, size_t cap, int to, bool v6, const struct tp *t)
{
	struct uroce_rocev2_net net = {.ipv6 = v6, .hop_limit = 64, .sport = 0xC000};
	struct uroce_bth bth = {.opcode = t->opcode, .pkey = t->pkey ? t->pkey : 0xFFFF,
				.destqp = t->destqp, .ackreq = t->ackreq, .psn = t->psn & UROCE_PSN_MASK,
				.tver = t->tver};
	struct uroce_ext e = t->ext;

	memcpy(net.src, g_node[1 - to].gid[v6].ip, 16);
	memcpy(net.dst, g_node[to].gid[v6].ip, 16);
	e.present = uroce_opcode_info(t->opcode)->headers;
	ssize_t n = uroce_rocev2_build(out, cap, NULL, &net, &bth, &e, t->payload, t->len);
	FUZZ_CHECK(n > 0);
	return (size_t)n;
}

/* An inject step of the transport part behind the harness's headers; flags F_FIX (a right
 * ICRC) and F_X (IPv6). */
static void inject(int to, uint8_t flags, const struct tp *t)
{
	static uint8_t pkt[UROCE_MAX_DATAGRAM + 64], step[UROCE_MAX_DATAGRAM + 64];
	size_t n = build(pkt, sizeof(pkt), to, false, t), tlen = n - 20 - 8 - 4;

	step[0] = (uint8_t)(OP_INJECT | F_FRAMED | flags | node_flag(to));
	put_be16(step + 1, (uint16_t)tlen);
	memcpy(step + 3, pkt + 28, tlen);
	run(step, tlen + 3);
}

/* An inject step of a whole datagram, as given; io flags when io_flags >= 0. */
static void inject_raw(int to, uint8_t flags, int io_flags, const uint8_t *p, size_t len)
{
	static uint8_t step[UROCE_MAX_DATAGRAM + 64];
	size_t k = 3;

	step[0] = (uint8_t)(OP_INJECT | flags | (io_flags >= 0 ? F_X : 0) | node_flag(to));
	put_be16(step + 1, (uint16_t)len);
	if (io_flags >= 0)
		step[k++] = (uint8_t)io_flags;
	memcpy(step + k, p, len);
	run(step, len + k);
}

static const uint8_t zeros[4096];

/* A READ request for len bytes of B's data region (or another R_Key). */
static struct tp read_req(uint32_t destqp, uint32_t psn, uint32_t key, uint64_t off, uint32_t len)
{
	struct tp t = {.opcode = UROCE_OP_RC_RDMA_READ_REQUEST, .destqp = destqp, .psn = psn,
		       .ackreq = true};
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA + off, .rkey = key, .dmalen = len};
	return t;
}

static struct tp fetch_add(uint32_t destqp, uint32_t psn, uint32_t key, uint64_t va, uint64_t add)
{
	struct tp t = {.opcode = UROCE_OP_RC_FETCH_ADD, .destqp = destqp, .psn = psn, .ackreq = true};
	t.ext.atomiceth = (struct uroce_atomiceth){.va = va, .rkey = key, .swap = add};
	return t;
}

static struct tp ud_send(int to, int q, uint32_t qkey, size_t len)
{
	struct tp t = {.opcode = UROCE_OP_UD_SEND_ONLY, .destqp = qpn(to, q), .payload = zeros,
		       .len = len};
	t.ext.deth = (struct uroce_deth){.qkey = qkey, .srcqp = qpn(1 - to, q)};
	return t;
}

static struct tp rc_op(uint8_t opcode, uint32_t destqp, uint32_t psn, size_t len)
{
	return (struct tp){.opcode = opcode, .destqp = destqp, .psn = psn, .ackreq = true,
			   .payload = zeros, .len = len};
}

/* ---- the plain scripts and the opcode seeds ---- */

static void seed_scripts(void)
{
	begin();
	STEP(OP_DELIVER, 15);
	STEP(OP_DELIVER | F_NODE, 15);
	STEP(OP_DELIVER, 15);
	STEP(OP_DELIVER | F_NODE, 15);
	STEP(OP_TIME, 12);
	STEP(OP_DELIVER, 15);
	STEP(OP_DELIVER | F_NODE, 15);
	end("script-clean");

	begin();
	STEP(OP_DROP);
	STEP(OP_DELIVER, 3);
	STEP(OP_DUP | F_NODE);
	STEP(OP_SWAP);
	STEP(OP_DELIVER, 15);
	STEP(OP_TIME, 13);
	STEP(OP_MUTATE | F_NODE | F_FIX, 1, 0, 40, 0x80, 0);
	STEP(OP_DELIVER | F_NODE, 15);
	post_send(A, QP_RC, W_SEND, 20, 0);
	post_recv(B, QP_RC, 0, 0);
	STEP(OP_TIME, 14);
	end("script-lossy");
}

/* The first packet of each opcode of the initial exchange, as an inject step (whole, and
 * behind the harness's headers), so that the fuzzer starts from packets the engines accept. */
static void seed_opcodes(void)
{
	static uint8_t seed[UROCE_MAX_DATAGRAM + 8];
	bool seen[256] = {false};
	char name[64];

	begin();
	for (int round = 0; round < 8; round++) {
		for (int i = 0; i < 2; i++) {
			while (g_node[i].count) {
				const struct node *n = &g_node[i];
				const uint8_t *p = n->box[n->head];
				uint32_t len = n->box_len[n->head];
				bool v6 = p[0] >> 4 == 6;
				size_t ip = v6 ? 40 : 20;
				uint8_t to = node_flag(1 - i), opcode = p[ip + 8];
				if (!seen[opcode]) {
					seen[opcode] = true;
					seed[0] = OP_INJECT | to;
					put_be16(seed + 1, (uint16_t)len);
					memcpy(seed + 3, p, len);
					snprintf(name, sizeof(name), "%s-raw", uroce_opcode_info(opcode)->name);
					write_file(name, seed, len + 3);
					seed[0] = (uint8_t)(OP_INJECT | to | F_FRAMED | F_FIX | (v6 ? F_X : 0));
					put_be16(seed + 1, (uint16_t)(len - ip - 12));
					memcpy(seed + 3, p + ip + 8, len - ip - 12);
					snprintf(name, sizeof(name), "%s-framed", uroce_opcode_info(opcode)->name);
					write_file(name, seed, len - ip - 12 + 3);
				}
				STEP(OP_DELIVER | node_flag(i), 0);
			}
		}
	}
	fuzz_engine_pair_free();
}

/* ---- UD ---- */

static void seed_ud(void)
{
	uint64_t c;

	/* A Q_Key that is not the QP's. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_drop_bad_qkey);
	struct tp t = ud_send(B, QP_UD, 0x22222222, 16);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_bad_qkey) == c + 1);
	end("ud-wrong-qkey");

	/* Longer than A's port MTU (1024), which a real requester never sends. */
	begin();
	settle();
	c = dcnt(A, UROCE_CNT_drop_too_long);
	t = ud_send(A, QP_UD, QKEY, 1100);
	inject(A, F_FIX, &t);
	t = ud_send(A, QP_GSI, UROCE_GSI_QKEY, 1025);
	t.destqp = 1;
	inject(A, F_FIX, &t);
	FUZZ_CHECK(dcnt(A, UROCE_CNT_drop_too_long) == c + 2);
	end("ud-too-long");

	/* More datagrams than receive WQEs: UD has no RNR, the rest are dropped. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_drop_no_recv_wqe);
	t = ud_send(B, QP_UD, QKEY, 64);
	for (int k = 0; k < 8 && dcnt(B, UROCE_CNT_drop_no_recv_wqe) == c; k++)
		inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_no_recv_wqe) == c + 1);
	end("ud-no-recv-wqe");

	/* Over IPv6: the receive buffer's 40-byte network-header area holds the IPv6 header. */
	begin();
	settle();
	c = uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts;
	t = ud_send(B, QP_UD, QKEY, 200);
	inject(B, F_FIX | F_X, &t);
	FUZZ_CHECK(uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts == c + 1);
	const struct uroce_wc *wc = last_wc(g_node[B].cq);
	FUZZ_CHECK(wc->status == UROCE_WC_SUCCESS && wc->byte_len == 240 && wc->wc_flags & UROCE_WC_F_GRH);
	end("ud-grh-ipv6");

	/* A receive too small for the header area and the payload: LOC_LEN_ERR, the QP lives
	 * on; one whose key does not cover it: the QP goes to ERR. */
	begin();
	settle();
	t = ud_send(B, QP_UD, QKEY, 100);
	while (rq_count(&qp(B, QP_UD)->rq))
		inject(B, F_FIX, &t);
	post_recv(B, QP_UD, 8, 0);
	inject(B, F_FIX, &t);
	wc = last_wc(g_node[B].cq);
	FUZZ_CHECK(wc->status == UROCE_WC_LOC_LEN_ERR && state(B, QP_UD) == UROCE_QPS_RTS);
	post_recv(B, QP_UD, 0, P_BAD_LOCAL);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(state(B, QP_UD) == UROCE_QPS_ERR);
	end("ud-small-and-bad-buffer");
}

/* ---- multicast ---- */

/* Both UD QPs are attached to the group of each family (the harness): a SEND to QPN
 * 0xFFFFFF reaches the group, over IPv4 and IPv6; another Q_Key is dropped by the QP; the
 * multicast QPN to a GID and a group with a QP's number are dropped (drop_mcast_qpn); the UD
 * QP destroyed and created again (it is detached first, then attached again). */
static void seed_mcast(void)
{
	static uint8_t pkt[UROCE_MAX_DATAGRAM];
	uint64_t c, d;

	begin();
	settle();
	c = uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts;
	struct tp t = ud_send(B, QP_UD, QKEY, 64);
	t.destqp = 0xFFFFFF;
	inject(B, F_FIX, &t);
	inject(B, F_FIX | F_X, &t);
	FUZZ_CHECK(uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts == c + 2);
	FUZZ_CHECK(last_wc(g_node[B].cq)->byte_len == 40 + 64);
	c = dcnt(B, UROCE_CNT_drop_bad_qkey);
	t.ext.deth.qkey = 0x22222222;
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_bad_qkey) == c + 1);
	end("mcast-to-the-group");

	begin();
	settle();
	d = dcnt(B, UROCE_CNT_drop_mcast_qpn);
	t = ud_send(B, QP_UD, QKEY, 16);
	t.destqp = 0xFFFFFF; /* to B's own address */
	size_t n = build(pkt, sizeof(pkt), B, false, &t);
	inject_raw(B, 0, -1, pkt, n);
	t = ud_send(B, QP_UD, QKEY, 16); /* to the group, with the UD QP's number */
	n = build(pkt, sizeof(pkt), B, false, &t);
	memcpy(pkt + 16, fuzz_engine_group[0].ip, 4);
	inject_raw(B, F_FIX, -1, pkt, n);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_mcast_qpn) == d + 2);
	control(B, C_RECREATE, QP_UD);
	c = uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts;
	t.destqp = 0xFFFFFF;
	inject(B, F_FIX, &t);
	FUZZ_CHECK(uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts == c + 1);
	end("mcast-qpn-rules-and-recreate");
}

/* ---- UC ---- */

static void seed_uc(void)
{
	uint64_t c;
	uint32_t p;
	struct tp t;

	/* A PSN gap inside a message: its LAST is dropped, the next message is taken. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_drop_uc_gap);
	p = epsn(B, QP_UC);
	t = rc_op(UROCE_OP_UC_SEND_FIRST, qpn(B, QP_UC), p, 256);
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_UC_SEND_LAST, qpn(B, QP_UC), p + 2, 10);
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_UC_SEND_MIDDLE, qpn(B, QP_UC), p + 3, 256);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_uc_gap) == c + 2);
	t = rc_op(UROCE_OP_UC_SEND_ONLY, qpn(B, QP_UC), p + 9, 20);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(last_wc(g_node[B].cq)->byte_len == 20);
	end("uc-gap");

	/* WRITEs that fail validation: a stale R_Key, a region the QP may only read, a range
	 * past the end, packets that do not add up to the RETH length. Dropped, nothing
	 * written. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_drop_uc_invalid);
	p = epsn(B, QP_UC);
	t = rc_op(UROCE_OP_UC_RDMA_WRITE_ONLY, qpn(B, QP_UC), p, 64);
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA, .rkey = rkey(B, R_DATA) - 1, .dmalen = 64};
	inject(B, F_FIX, &t);
	t.psn = ++p;
	t.ext.reth = (struct uroce_reth){.va = RO_IOVA, .rkey = rkey(B, R_RO), .dmalen = 64};
	inject(B, F_FIX, &t);
	t.psn = ++p;
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA + 8192 - 32, .rkey = rkey(B, R_DATA), .dmalen = 64};
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_UC_RDMA_WRITE_FIRST, qpn(B, QP_UC), ++p, 256);
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA, .rkey = rkey(B, R_DATA), .dmalen = 600};
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_UC_RDMA_WRITE_LAST, qpn(B, QP_UC), ++p, 300);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_uc_invalid) == c + 4);
	end("uc-invalid-write");

	/* SEND and WRITE with immediate with no receive WQE left: dropped. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_drop_no_recv_wqe);
	p = epsn(B, QP_UC);
	while (rq_count(&qp(B, QP_UC)->rq)) {
		t = rc_op(UROCE_OP_UC_SEND_ONLY, qpn(B, QP_UC), p++, 8);
		inject(B, F_FIX, &t);
	}
	t = rc_op(UROCE_OP_UC_SEND_ONLY, qpn(B, QP_UC), p++, 8);
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, qpn(B, QP_UC), p++, 8);
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA, .rkey = rkey(B, R_DATA), .dmalen = 8};
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_no_recv_wqe) == c + 2);
	end("uc-no-recv-wqe");

	/* The receive buffers fail: a WQE whose key does not cover it, and a region registered
	 * again between the FIRST and the LAST packet of a message. Either puts the QP in ERR. */
	begin();
	settle();
	p = epsn(B, QP_UC);
	while (rq_count(&qp(B, QP_UC)->rq)) {
		t = rc_op(UROCE_OP_UC_SEND_ONLY, qpn(B, QP_UC), p++, 8);
		inject(B, F_FIX, &t);
	}
	post_recv(B, QP_UC, 0, 0);
	t = rc_op(UROCE_OP_UC_SEND_FIRST, qpn(B, QP_UC), p++, 256);
	inject(B, F_FIX, &t);
	control(B, C_REREG, R_LOCAL);
	t = rc_op(UROCE_OP_UC_SEND_LAST, qpn(B, QP_UC), p++, 8);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(state(B, QP_UC) == UROCE_QPS_ERR &&
		   last_wc(g_node[B].cq)->status == UROCE_WC_LOC_PROT_ERR);
	control(B, C_RECONNECT, QP_UC);
	p = epsn(B, QP_UC);
	while (rq_count(&qp(B, QP_UC)->rq)) {
		t = rc_op(UROCE_OP_UC_SEND_ONLY, qpn(B, QP_UC), p++, 8);
		inject(B, F_FIX, &t);
	}
	post_recv(B, QP_UC, 0, P_BAD_LOCAL);
	t = rc_op(UROCE_OP_UC_SEND_FIRST, qpn(B, QP_UC), p++, 256);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(state(B, QP_UC) == UROCE_QPS_ERR);
	end("uc-bad-buffers");
}

/* ---- SRQ ---- */

static void seed_srq(void)
{
	struct uroce_srq_attr sa;
	uint64_t c;

	/* The SRQ runs empty: the limit event fires once (the limit disarms), then RNR NAKs;
	 * armed again, it fires again once receives are posted and taken. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_send_rnr_err);
	uint32_t p = epsn(B, QP_SRQ);
	while (dcnt(B, UROCE_CNT_send_rnr_err) == c) {
		struct tp t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_SRQ), p, 32);
		inject(B, F_FIX | F_X, &t);
		if (epsn(B, QP_SRQ) != p)
			p = epsn(B, QP_SRQ);
	}
	uroce_srq_query(g_node[B].srq, &sa);
	FUZZ_CHECK(sa.srq_limit == 0 && rq_count(&g_node[B].srq->rq) == 0);
	control(B, C_SRQ_LIMIT, 3);
	for (int k = 0; k < 4; k++)
		post_recv(B, QP_SRQ, 0, 0);
	/* The NAKed PSN again, then the next: 4 -> 2 WQEs, below the limit. */
	for (int k = 0; k < 2; k++) {
		struct tp t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_SRQ), p + (uint32_t)k, 32);
		inject(B, F_FIX | F_X, &t);
	}
	uroce_srq_query(g_node[B].srq, &sa);
	FUZZ_CHECK(sa.srq_limit == 0 && rq_count(&g_node[B].srq->rq) == 2);
	control(B, C_SRQ_LIMIT, 0x80 | 2); /* max_wr cannot change */
	control(B, C_SRQ_LIMIT, 33);       /* above max_wr */
	end("srq-empty-and-limit");

	/* A QP on an SRQ that fails: QP_LAST_WQE_REACHED, the SRQ keeps its WQEs. */
	begin();
	settle();
	uint32_t left = rq_count(&g_node[B].srq->rq);
	modify(B, QP_SRQ, UROCE_QPS_ERR, 1, 0, v0);
	FUZZ_CHECK(rq_count(&g_node[B].srq->rq) == left && state(B, QP_SRQ) == UROCE_QPS_ERR);
	end("srq-qp-error");
}

/* ---- IPv6 and header checks ---- */

static void seed_headers(void)
{
	static uint8_t pkt[UROCE_MAX_DATAGRAM + 64];
	uint64_t c;
	size_t n;
	struct tp t;

	/* Connected QPs take packets only from their peer's address: IPv6 to a QP connected
	 * over IPv4, IPv4 to one connected over IPv6. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_drop_wrong_src);
	t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_RC), epsn(B, QP_RC), 8);
	inject(B, F_FIX | F_X, &t);
	t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_SRQ), epsn(B, QP_SRQ), 8);
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_UC_SEND_ONLY, qpn(B, QP_UC), epsn(B, QP_UC), 8);
	inject(B, F_FIX | F_X, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_wrong_src) == c + 3);
	end("ipv6-wrong-source");

	/* An IPv6 extension header and IPv4 options: the ICRC is not computed, dropped. */
	begin();
	c = dcnt(B, UROCE_CNT_drop_icrc_unchecked);
	t = ud_send(B, QP_UD, QKEY, 16);
	n = build(pkt, sizeof(pkt), B, true, &t);
	memmove(pkt + 48, pkt + 40, n - 40);
	memset(pkt + 40, 0, 8);
	pkt[40] = pkt[6]; /* Hop-by-Hop: next header UDP, 8 bytes of padding */
	pkt[6] = 0;
	inject_raw(B, F_FIX, -1, pkt, n + 8);
	n = build(pkt, sizeof(pkt), B, false, &t);
	memmove(pkt + 24, pkt + 20, n - 20);
	memset(pkt + 20, 1, 4); /* four NOP options */
	pkt[0] = 0x46;
	inject_raw(B, F_FIX, -1, pkt, n + 4);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_icrc_unchecked) == c + 2);
	end("ip-options-and-extensions");

	/* One packet per header check, each dropped under its own counter (recv.c). */
	begin();
	settle();
	static const enum uroce_counter drops[] = {
		UROCE_CNT_rp_cnp_ignored, UROCE_CNT_drop_qp0, UROCE_CNT_drop_gsi_qkey,
		UROCE_CNT_drop_bad_pkey, UROCE_CNT_drop_bad_tver, UROCE_CNT_drop_unknown_qp,
		UROCE_CNT_drop_wrong_transport, UROCE_CNT_drop_bad_icrc, UROCE_CNT_drop_trunc,
		UROCE_CNT_drop_udp_port, UROCE_CNT_drop_ip_header, UROCE_CNT_drop_not_local,
		UROCE_CNT_drop_malformed,
	};
	uint64_t before[sizeof(drops) / sizeof(drops[0])];
	for (size_t k = 0; k < sizeof(drops) / sizeof(drops[0]); k++)
		before[k] = dcnt(B, drops[k]);
	t = (struct tp){.opcode = UROCE_OP_CNP_CNP, .destqp = qpn(B, QP_RC)};
	inject(B, F_FIX, &t);
	t = ud_send(B, QP_UD, QKEY, 8);
	t.destqp = 0;
	inject(B, F_FIX, &t);
	t.destqp = 1;
	inject(B, F_FIX, &t); /* QP1 without the GSI Q_Key */
	t = ud_send(B, QP_UD, QKEY, 8);
	t.pkey = 0x1234;
	inject(B, F_FIX, &t);
	t.pkey = 0;
	t.tver = 1;
	inject(B, F_FIX, &t);
	t.tver = 0;
	t.destqp = 0x777;
	inject(B, F_FIX, &t);
	t.destqp = qpn(B, QP_RC);
	inject(B, F_FIX, &t);
	t = ud_send(B, QP_UD, QKEY, 8);
	inject(B, 0, &t); /* a wrong ICRC */
	n = build(pkt, sizeof(pkt), B, false, &t);
	inject_raw(B, 0, UROCE_IO_PKT_TRUNC, pkt, n);
	put_be16(pkt + 22, 4792);
	inject_raw(B, F_FIX, -1, pkt, n);
	put_be16(pkt + 22, UROCE_ROCEV2_UDP_PORT);
	put_be16(pkt + 6, 0x2000); /* more fragments */
	inject_raw(B, F_FIX, -1, pkt, n);
	put_be16(pkt + 6, 0x4000);
	pkt[19] = 99; /* another destination */
	inject_raw(B, F_FIX, -1, pkt, n);
	inject_raw(B, 0, -1, pkt, 30);
	for (size_t k = 0; k < sizeof(drops) / sizeof(drops[0]); k++)
		FUZZ_CHECK(dcnt(B, drops[k]) > before[k]);
	/* A backend that checked the ICRC itself: a wrong stored value is not looked at. */
	n = build(pkt, sizeof(pkt), B, false, &t);
	pkt[n - 1] ^= 1;
	c = uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts;
	inject_raw(B, 0, UROCE_IO_PKT_ICRC_OK, pkt, n);
	FUZZ_CHECK(uroce_qp_counters(qp(B, QP_UD))->rcvd_pkts == c + 1);
	end("header-drops");
}

/* ---- ghost responses ---- */

static void seed_ghosts(void)
{
	uint64_t c;
	struct tp t;

	/* ACKs, NAKs, READ responses and atomic acknowledgements for PSNs never sent: dropped,
	 * nothing completes. */
	begin();
	settle();
	post_send(A, QP_RC, W_WRITE, 100, 0); /* outstanding, not delivered */
	c = dcnt(A, UROCE_CNT_drop_ghost_response);
	uint32_t psn = qp(A, QP_RC)->req.psn;
	t = (struct tp){.opcode = UROCE_OP_RC_ACKNOWLEDGE, .destqp = qpn(A, QP_RC), .psn = psn + 100};
	t.ext.aeth.syndrome = ACK_SYN;
	inject(A, F_FIX, &t);
	t.psn = psn + 5;
	t.ext.aeth.syndrome = uroce_aeth_syndrome(UROCE_AETH_NAK, UROCE_NAK_PSN_SEQ_ERR);
	inject(A, F_FIX, &t);
	t.psn = psn - 40;
	t.ext.aeth.syndrome = uroce_aeth_syndrome(UROCE_AETH_RNR_NAK, 3);
	inject(A, F_FIX, &t);
	t = rc_op(UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, qpn(A, QP_RC), psn + 7, 64);
	t.ext.aeth.syndrome = ACK_SYN;
	inject(A, F_FIX, &t);
	t = (struct tp){.opcode = UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, .destqp = qpn(A, QP_RC), .psn = psn + 9};
	t.ext.aeth.syndrome = ACK_SYN;
	inject(A, F_FIX, &t);
	FUZZ_CHECK(dcnt(A, UROCE_CNT_drop_ghost_response) == c + 5);
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_RTS);
	end("ghost-responses");

	/* A READ response (and an atomic acknowledgement) at the PSN of a SEND: a bad
	 * response, the SEND fails with BAD_RESP_ERR and the QP goes to ERR. */
	begin();
	settle();
	c = dcnt(A, UROCE_CNT_drop_bad_response);
	psn = qp(A, QP_RD)->req.psn;
	post_send(A, QP_RD, W_SEND, 8, 0);
	t = rc_op(UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, qpn(A, QP_RD), psn, 64);
	t.ext.aeth.syndrome = ACK_SYN;
	inject(A, F_FIX, &t);
	FUZZ_CHECK(dcnt(A, UROCE_CNT_drop_bad_response) == c + 1);
	FUZZ_CHECK(state(A, QP_RD) == UROCE_QPS_ERR);
	control(A, C_RECONNECT, QP_RD);
	psn = qp(A, QP_RD)->req.psn;
	post_send(A, QP_RD, W_READ, 8, 0);
	t = (struct tp){.opcode = UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, .destqp = qpn(A, QP_RD), .psn = psn};
	t.ext.aeth.syndrome = ACK_SYN;
	inject(A, F_FIX, &t);
	FUZZ_CHECK(dcnt(A, UROCE_CNT_drop_bad_response) == c + 2);
	end("ghost-bad-response");
}

/* ---- READ and atomic floods, duplicates ---- */

static void seed_floods(void)
{
	struct tp t;
	uint64_t c;

	/* A requester allowed two READs toward a responder that takes one: the second is an
	 * invalid request, NAKed; both QPs end in ERR. B's port is down meanwhile, so that the
	 * first READ is still being answered when the second arrives. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_naks_sent);
	control(B, C_PORT, 0);
	post_send(A, QP_RD, W_READ, 100, 0);
	post_send(A, QP_RD, W_READ, 100, 0);
	STEP(OP_DELIVER, 15);
	control(B, C_PORT, 1);
	settle();
	FUZZ_CHECK(dcnt(B, UROCE_CNT_naks_sent) == c + 1);
	FUZZ_CHECK(state(A, QP_RD) == UROCE_QPS_ERR && state(B, QP_RD) == UROCE_QPS_ERR);
	end("read-flood-requester");

	/* Injected: one READ more than max_dest_rd_atomic (4) while none is answered, then the
	 * same with atomics. */
	for (int atomic = 0; atomic < 2; atomic++) {
		begin();
		settle();
		control(B, C_PORT, 0);
		uint32_t p = epsn(B, QP_RC);
		for (int k = 0; k < 5; k++) {
			t = atomic ? fetch_add(qpn(B, QP_RC), p, rkey(B, R_DATA), DATA_IOVA + 8 * (unsigned)k, 1)
				   : read_req(qpn(B, QP_RC), p, rkey(B, R_DATA), 0, 64);
			inject(B, F_FIX, &t);
			p = epsn(B, QP_RC);
		}
		FUZZ_CHECK(qp(B, QP_RC)->resp.error);
		control(B, C_PORT, 1);
		settle();
		FUZZ_CHECK(state(B, QP_RC) == UROCE_QPS_ERR);
		end(atomic ? "atomic-flood" : "read-flood");
	}

	/* A duplicate atomic is answered from its resource and not executed again; one older
	 * than every resource (and a duplicate FLUSH, which has none) is dropped. */
	begin();
	settle();
	uint32_t p = epsn(B, QP_RC);
	uint64_t before, after;
	memcpy(&before, g_node[B].reg[R_DATA].mem + 64 + 256, 8);
	t = fetch_add(qpn(B, QP_RC), p, rkey(B, R_DATA), DATA_IOVA + 256, 5);
	inject(B, F_FIX, &t);
	inject(B, F_FIX, &t);
	inject(B, F_FIX, &t);
	memcpy(&after, g_node[B].reg[R_DATA].mem + 64 + 256, 8);
	FUZZ_CHECK(after == before + 5 && uroce_qp_counters(qp(B, QP_RC))->duplicate_request == 2);
	c = dcnt(B, UROCE_CNT_drop_dup_no_resource);
	t.psn = p - 100;
	inject(B, F_FIX, &t);
	t = rc_op(UROCE_OP_RC_FLUSH, qpn(B, QP_RC), p - 1, 0);
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA, .rkey = rkey(B, R_DATA), .dmalen = 8};
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_dup_no_resource) == c + 2);
	end("duplicate-atomic");

	/* Atomics the responder refuses: an unaligned address (invalid request), the region
	 * the peer may only read (remote access); nothing in that region changes. */
	begin();
	settle();
	t = fetch_add(qpn(B, QP_RC), epsn(B, QP_RC), rkey(B, R_DATA), DATA_IOVA + 4, 1);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(qp(B, QP_RC)->resp.error);
	post_send(A, QP_SRQ, W_FETCH_ADD, 1, T_RO);
	post_send(A, QP_SRQ, W_WRITE, 4, T_RO);
	settle();
	FUZZ_CHECK(state(A, QP_SRQ) == UROCE_QPS_ERR);
	end("atomic-refused");
}

/* ---- ATOMIC WRITE (IBA 1.5) ---- */

static struct tp atomic_write(uint32_t destqp, uint32_t psn, uint32_t key, uint64_t va,
			      const uint8_t v[8])
{
	struct tp t = {.opcode = UROCE_OP_RC_ATOMIC_WRITE, .destqp = destqp, .psn = psn,
		       .ackreq = true, .payload = v, .len = 8};
	t.ext.reth = (struct uroce_reth){.va = va, .rkey = key, .dmalen = 8};
	return t;
}

static void seed_atomic_write(void)
{
	static const uint8_t v1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, v2[8] = {9, 9, 9, 9, 9, 9, 9, 9};
	struct tp t;

	/* Posted by A, stored in B's data region, answered by an empty READ RESPONSE ONLY. */
	begin();
	settle();
	uint64_t c = dcnt(B, UROCE_CNT_rdma_recvs);
	post_send(A, QP_RC, W_ATOMIC_WRITE, 1, 0);
	settle();
	const struct uroce_wc *wc = last_wc(g_node[A].cq);
	FUZZ_CHECK(wc->status == UROCE_WC_SUCCESS && wc->opcode == UROCE_WC_ATOMIC_WRITE);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_rdma_recvs) == c + 1 && state(A, QP_RC) == UROCE_QPS_RTS);
	end("atomic-write");

	/* Injected, then twice again at the same PSN with other bytes: stored once, the
	 * duplicates answered from the responder resource. */
	begin();
	settle();
	uint32_t p = epsn(B, QP_RC);
	uint8_t *m = g_node[B].reg[R_DATA].mem + 64 + 512;
	t = atomic_write(qpn(B, QP_RC), p, rkey(B, R_DATA), DATA_IOVA + 512, v1);
	inject(B, F_FIX, &t);
	t.payload = v2;
	inject(B, F_FIX, &t);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(!memcmp(m, v1, 8) && uroce_qp_counters(qp(B, QP_RC))->duplicate_request == 2);
	settle();
	end("atomic-write-duplicate");

	/* Refused: a misaligned address (invalid request), lengths other than 8 (invalid
	 * request), the region the peer may only read (remote access); nothing changes. */
	for (int k = 0; k < 3; k++) {
		begin();
		settle();
		t = atomic_write(qpn(B, QP_RC), epsn(B, QP_RC), rkey(B, R_DATA),
				 DATA_IOVA + (k == 0 ? 516 : 512), v2);
		if (k == 1)
			t.ext.reth.dmalen = 16;
		if (k == 2)
			t.len = 4;
		uint8_t before[8];
		memcpy(before, g_node[B].reg[R_DATA].mem + 64 + 512, 8);
		inject(B, F_FIX, &t);
		FUZZ_CHECK(qp(B, QP_RC)->resp.error);
		FUZZ_CHECK(!memcmp(before, g_node[B].reg[R_DATA].mem + 64 + 512, 8));
		post_send(A, QP_SRQ, W_ATOMIC_WRITE, 1, T_RO);
		post_send(A, QP_UC, W_ATOMIC_WRITE, 1, 0); /* refused at post: RC only */
		settle();
		FUZZ_CHECK(state(A, QP_SRQ) == UROCE_QPS_ERR);
		end(k == 0 ? "atomic-write-misaligned" : k == 1 ? "atomic-write-dmalen"
								: "atomic-write-short");
	}
}

/* ---- RNR ---- */

static void seed_rnr(void)
{
	uint64_t c;

	/* SENDs beyond the posted receives: RNR NAKs, resends after the RNR timer, and after
	 * rnr_retry (3) more the SEND fails; a receive posted in time lets a later one through. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_send_rnr_err);
	for (int k = 0; k < 4; k++)
		post_send(A, QP_RC, W_SEND, 10, 0);
	settle();
	FUZZ_CHECK(dcnt(B, UROCE_CNT_send_rnr_err) > c && dcnt(A, UROCE_CNT_retry_rnr_exceeded_err) == 1);
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_ERR);
	end("rnr-retry-exhausted");

	/* A WRITE with immediate and no receive WQE: RNR NAK before a byte of it lands. */
	begin();
	settle();
	uint32_t p = epsn(B, QP_RC);
	struct tp t;
	while (rq_count(&qp(B, QP_RC)->rq)) {
		t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_RC), p++, 8);
		inject(B, F_FIX, &t);
	}
	c = dcnt(B, UROCE_CNT_send_rnr_err);
	t = rc_op(UROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, qpn(B, QP_RC), p, 64);
	t.ext.reth = (struct uroce_reth){.va = DATA_IOVA + 7000, .rkey = rkey(B, R_DATA), .dmalen = 64};
	inject(B, F_FIX, &t);
	FUZZ_CHECK(dcnt(B, UROCE_CNT_send_rnr_err) == c + 1);
	FUZZ_CHECK(g_node[B].reg[R_DATA].mem[64 + 7000] == 0x5C);
	post_recv(B, QP_RC, 0, 0);
	inject(B, F_FIX, &t);
	FUZZ_CHECK(g_node[B].reg[R_DATA].mem[64 + 7000] == 0);
	end("rnr-write-with-imm");
}

/* ---- regions that change under outstanding work ---- */

static void seed_regions(void)
{
	uint64_t c;

	/* B registers its data region again between accepting a READ and answering it: the
	 * response cannot be read, remote access NAK. */
	begin();
	settle();
	c = dcnt(B, UROCE_CNT_naks_sent);
	control(B, C_PORT, 0);
	post_send(A, QP_RC, W_READ, 75, 0);
	STEP(OP_DELIVER, 0);
	control(B, C_REREG, R_DATA);
	control(B, C_PORT, 1);
	settle();
	FUZZ_CHECK(dcnt(B, UROCE_CNT_naks_sent) == c + 1 && state(A, QP_RC) == UROCE_QPS_ERR);
	end("read-region-gone");

	/* A registers its local region again while a READ, an atomic, a long SEND are under
	 * way: the response cannot be placed, the data cannot be gathered; LOC_PROT_ERR. */
	for (int k = 0; k < 3; k++) {
		begin();
		settle();
		if (k < 2) {
			post_send(A, QP_RC, k ? W_FETCH_ADD : W_READ, 40, 0);
			STEP(OP_DELIVER, 0);
		} else {
			/* Five 4-packet SENDs (two SGEs each) with A's 16-packet window: the
			 * fifth starts, its packets wait for the window. B has receives for all. */
			for (int r = 0; r < 3; r++)
				post_recv(B, QP_RC, 0, 0);
			for (int s = 0; s < 5; s++)
				post_send(A, QP_RC, W_SEND, 127, 0);
			FUZZ_CHECK(sq_at(&qp(A, QP_RC)->sq, qp(A, QP_RC)->sq.cur)->state == SWQE_ACTIVE);
		}
		control(A, C_REREG, R_LOCAL);
		settle();
		FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_ERR);
		end(k == 0 ? "local-region-gone-read" : k == 1 ? "local-region-gone-atomic"
							   : "local-region-gone-send");
	}

	/* Receive WQEs that fail at the responder: a key that does not cover the buffer
	 * (remote operational error), a region registered again mid-message. */
	for (int k = 0; k < 2; k++) {
		begin();
		settle();
		uint32_t p = epsn(B, QP_RC);
		struct tp t;
		while (rq_count(&qp(B, QP_RC)->rq)) {
			t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_RC), p++, 8);
			inject(B, F_FIX, &t);
		}
		post_recv(B, QP_RC, 0, k ? 0 : P_BAD_LOCAL);
		t = rc_op(UROCE_OP_RC_SEND_FIRST, qpn(B, QP_RC), p++, 256);
		inject(B, F_FIX, &t);
		if (k) {
			control(B, C_REREG, R_LOCAL);
			t = rc_op(UROCE_OP_RC_SEND_LAST, qpn(B, QP_RC), p++, 8);
			inject(B, F_FIX, &t);
		}
		FUZZ_CHECK(qp(B, QP_RC)->resp.error);
		end(k ? "recv-region-gone" : "recv-bad-key");
	}
}

/* ---- QP states ---- */

static void seed_states(void)
{
	uint8_t v[6] = {0};

	/* SQD: the message under way finishes and only then SQ_DRAINED; attributes change only
	 * once drained (EBUSY before); work posted meanwhile waits for RTS. max_rd_atomic 0
	 * then makes a READ a local QP operation error. */
	begin();
	settle();
	post_recv(B, QP_RC, 0, 0);
	post_recv(B, QP_RC, 0, 0);
	post_send(A, QP_RC, W_SEND, 100, 0);
	modify(A, QP_RC, UROCE_QPS_SQD | 0x40, 1, 1u << AT_EN_SQD, v0);
	modify(A, QP_RC, UROCE_QPS_SQD, 4, 1u << AT_MAX_RD, v);
	FUZZ_CHECK(qp(A, QP_RC)->attr.max_rd_atomic == 4 && !qp(A, QP_RC)->sq_drained_sent);
	post_send(A, QP_RC, W_SEND, 10, 0);
	settle();
	FUZZ_CHECK(qp(A, QP_RC)->sq_drained_sent && qp(A, QP_RC)->sq.cur != qp(A, QP_RC)->sq.head);
	modify(A, QP_RC, UROCE_QPS_SQD, 4, 1u << AT_MAX_RD, v);
	FUZZ_CHECK(qp(A, QP_RC)->attr.max_rd_atomic == 0);
	modify(A, QP_RC, UROCE_QPS_RTS, 1, 0, v0);
	post_send(A, QP_RC, W_READ, 8, 0);
	settle();
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_ERR);
	end("sqd-drain-and-attributes");

	/* A pair reset and connected again at new PSNs while packets of the old conversation
	 * are in flight; a QP destroyed and created again under a new number, which the peer
	 * still sends to. */
	begin();
	post_send(A, QP_RC, W_WRITE, 50, 0);
	post_send(B, QP_RC, W_SEND, 3, 0);
	control(A, C_RECONNECT, QP_RC);
	post_send(A, QP_RC, W_SEND, 7, 0);
	settle();
	uint64_t c = dcnt(B, UROCE_CNT_drop_unknown_qp);
	control(B, C_RECREATE, QP_UC);
	control(B, C_RECREATE, QP_GSI);
	post_send(A, QP_UC, W_SEND, 4, 0);
	post_send(A, QP_GSI, W_SEND, 32, 0);
	settle();
	FUZZ_CHECK(dcnt(B, UROCE_CNT_drop_unknown_qp) == c + 1);
	end("reconnect-and-recreate");

	/* A QP brought back only to RTR: the first packet raises COMM_EST; an acknowledgement
	 * is not taken (the requester is not running). */
	begin();
	settle();
	modify(A, QP_RC, UROCE_QPS_RESET, 1, 0, v0);
	modify(A, QP_RC, UROCE_QPS_INIT, 1, 0, v0);
	modify(A, QP_RC, UROCE_QPS_RTR, 1, 0, v0);
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_RTR);
	c = dcnt(A, UROCE_CNT_drop_qp_state);
	struct tp t = {.opcode = UROCE_OP_RC_ACKNOWLEDGE, .destqp = qpn(A, QP_RC),
		       .psn = qp(A, QP_RC)->req.psn};
	t.ext.aeth.syndrome = ACK_SYN;
	inject(A, F_FIX, &t);
	FUZZ_CHECK(dcnt(A, UROCE_CNT_drop_qp_state) == c + 1 && qp(A, QP_RC)->comm_est);
	post_recv(A, QP_RC, 0, 0);
	post_send(B, QP_RC, W_SEND, 1, 0);
	settle();
	end("rtr-only");

	/* The modify call's checks: each attribute out of range, a move the table does not
	 * have, an attribute the move does not take, the current state wrong. Nothing
	 * changes. */
	begin();
	settle();
	modify(A, QP_RC, UROCE_QPS_SQD, 1, 0, v0);
	modify(A, QP_GSI, UROCE_QPS_SQD, 1, 0, v0);
	static const struct {
		int q;
		uint8_t st, mode;
		uint32_t toggles;
		uint8_t v[6];
	} bad[] = {
		{QP_RC, UROCE_QPS_SQD, 0x02, 1u << AT_TIMEOUT, {35, 0, 0, 0, 0, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x02, 1u << AT_MIN_RNR, {0, 0, 35, 0, 0, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x02, 1u << AT_RETRY, {0, 8, 0, 0, 0, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x02, 1u << AT_RNR_RETRY, {0, 72, 0, 0, 0, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x04, 1u << AT_MAX_RD, {0, 0, 0, 6, 0, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x04, 1u << AT_MAX_DEST, {0, 0, 0, 6 << 3, 0, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x08, 1u << AT_ACCESS, {0, 0, 0, 0, 0x10, 0}},
		{QP_RC, UROCE_QPS_SQD, 0x20, 1u << AT_AV, {0, 0, 0, 0, 0, 2}},
		{QP_RC, UROCE_QPS_SQD, 0x20, 1u << AT_AV, {0, 0, 0, 0, 0, 4}},
		{QP_RC, UROCE_QPS_SQD, 0x20, 1u << AT_PKEY, {0, 0, 0, 0, 0, 16}},
		{QP_RC, UROCE_QPS_SQD, 0x20, 1u << AT_PORT, {0, 0, 0, 0, 0, 8}},
		{QP_RC, UROCE_QPS_SQD, 0, 1u << AT_DEST_QPN, {0}},
		{QP_RC, UROCE_QPS_RTS | UROCE_QPS_RTR << 3, 0, 1u << AT_CUR_STATE, {0}},
		{QP_RC, UROCE_QPS_INIT, 0, 0, {0}},
		{QP_RC, 7, 0, 0, {0}},
		{QP_GSI, UROCE_QPS_SQD, 0x40, 1u << AT_QKEY, {0}}, /* QP1's Q_Key is fixed */
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		modify(A, bad[k].q, bad[k].st, bad[k].mode, 1u << AT_STATE | bad[k].toggles, bad[k].v);
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_SQD && state(A, QP_GSI) == UROCE_QPS_SQD);
	modify(A, QP_RC, UROCE_QPS_RESET, 1, 0, v0);
	modify(A, QP_RC, UROCE_QPS_INIT, 1, 0, v0);
	v[4] = 6 << 5; /* path MTU code 6 */
	modify(A, QP_RC, UROCE_QPS_RTR, 0x11, 0, v);
	v[0] = v[1] = v[2] = 0xFF;
	v[5] = 64; /* an RQ PSN over 24 bits */
	modify(A, QP_RC, UROCE_QPS_RTR, 0x81, 0, v);
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_INIT);
	end("modify-refused");
}

/* ---- posting ---- */

static void seed_posts(void)
{
	/* Work requests post_send refuses (an unknown opcode, a READ on UD, inline data too
	 * long, three SGEs, an atomic not of 8 bytes is not expressible here) and ones that
	 * fail when they start (a key that does not cover the SGE, LOCAL_INV of a region that
	 * may not be invalidated); inline, fenced, unsignaled and solicited ones that work;
	 * UD with the QP's own Q_Key and over IPv6. */
	begin();
	settle();
	uint64_t id = g_node[A].send_id[QP_RC];
	post_send(A, QP_RC, W_BAD8, 1, 0);
	post_send(A, QP_RC, W_BAD_MAX, 1, 0);
	post_send(A, QP_UD, W_READ, 1, 0);
	post_send(A, QP_RC, W_SEND, 16, P_INLINE);
	post_send(A, QP_RC, W_SEND, 4, P_INLINE | P_SOLICITED);
	post_send(A, QP_RC, W_SEND, 4, P_X);
	FUZZ_CHECK(g_node[A].send_id[QP_RC] == id + 1);
	post_recv(B, QP_RC, 0, 0);
	post_recv(B, QP_RC, 0, P_X);
	post_send(A, QP_RC, W_READ, 20, 0);
	post_send(A, QP_RC, W_SEND, 3, P_FENCE | P_UNSIGNALED);
	post_send(A, QP_UD, W_SEND, 5, P_FENCE | P_X);
	post_send(A, QP_GSI, W_SEND, 5, P_FENCE);
	settle();
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_RTS);
	post_send(A, QP_UC, W_LOCAL_INV, 0, T_DATA);
	settle();
	FUZZ_CHECK(state(A, QP_UC) == UROCE_QPS_SQE);
	modify(A, QP_UC, UROCE_QPS_RTS, 1, 0, v0);
	post_send(A, QP_UC, W_SEND, 3, P_BAD_LOCAL);
	post_send(A, QP_RC, W_READ, 3, P_BAD_LOCAL);
	settle();
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_ERR && state(A, QP_UC) == UROCE_QPS_SQE);
	end("post-variants");

	/* Packets too big for the transmit buffers the caller hands over: counted send_err,
	 * lost, resent once the buffers are whole again. */
	begin();
	settle();
	control(A, C_TX_CAP, 5);
	post_send(A, QP_RC, W_WRITE, 100, 0);
	FUZZ_CHECK(dcnt(A, UROCE_CNT_send_err) > 0);
	control(A, C_TX_CAP, 0);
	settle();
	FUZZ_CHECK(state(A, QP_RC) == UROCE_QPS_RTS);
	end("tx-buffer-too-small");
}

/* ---- requests the responder refuses ---- */

static void seed_refusals(void)
{
	static const char *const names[] = {
		"refused-send-too-long", "refused-send-inv-key", "refused-write-ro",
		"refused-write-length", "refused-read-stale-key", "refused-atomic-qp-access",
	};
	uint8_t v[6] = {0};

	/* Each NAKed (invalid request or remote access) and fatal to the responder's QP; no
	 * byte of the refused request lands. */
	for (int k = 0; k < 6; k++) {
		begin();
		settle();
		uint32_t p = epsn(B, QP_RC);
		struct tp t;
		switch (k) {
		case 0: /* longer than the receive buffer */
			while (rq_count(&qp(B, QP_RC)->rq)) {
				t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_RC), p++, 8);
				inject(B, F_FIX, &t);
			}
			post_recv(B, QP_RC, 1, 0);
			t = rc_op(UROCE_OP_RC_SEND_ONLY, qpn(B, QP_RC), p, 64);
			break;
		case 1: /* SEND with Invalidate of a region that may not be invalidated */
			t = rc_op(UROCE_OP_RC_SEND_ONLY_WITH_INVALIDATE, qpn(B, QP_RC), p, 8);
			t.ext.ieth = rkey(B, R_DATA);
			break;
		case 2: /* WRITE into the region the peer may only read */
			t = rc_op(UROCE_OP_RC_RDMA_WRITE_ONLY, qpn(B, QP_RC), p, 8);
			t.ext.reth = (struct uroce_reth){.va = RO_IOVA, .rkey = rkey(B, R_RO), .dmalen = 8};
			break;
		case 3: /* more payload than the RETH length */
			t = rc_op(UROCE_OP_RC_RDMA_WRITE_FIRST, qpn(B, QP_RC), p, 256);
			t.ext.reth = (struct uroce_reth){.va = DATA_IOVA, .rkey = rkey(B, R_DATA), .dmalen = 100};
			break;
		case 4: /* READ under the key of the region's previous registration */
			control(B, C_REREG, R_DATA);
			t = read_req(qpn(B, QP_RC), p, rkey(B, R_DATA) - 1, 0, 8);
			break;
		default: /* an atomic after the QP lost remote atomic access */
			v[4] = UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_READ;
			modify(B, QP_RC, UROCE_QPS_RTS, 0x08, 1u << AT_ACCESS, v);
			t = fetch_add(qpn(B, QP_RC), p, rkey(B, R_DATA), DATA_IOVA, 1);
			break;
		}
		inject(B, F_FIX, &t);
		FUZZ_CHECK(qp(B, QP_RC)->resp.error);
		FUZZ_CHECK(g_node[B].reg[R_RO].mem[64] == 3);
		end(names[k]);
	}
}

/* ---- posting into queues that are full or in error ---- */

static void seed_queues(void)
{
	/* Work posted to a QP in ERR, and to a UD QP in SQE (after a send whose buffer no key
	 * covers), completes flushed; queues take 32 WQEs and refuse the 33rd. */
	begin();
	settle();
	modify(A, QP_UC, UROCE_QPS_ERR, 1, 0, v0);
	post_send(A, QP_UC, W_SEND, 1, 0);
	post_recv(A, QP_UC, 0, 0);
	FUZZ_CHECK(last_wc(g_node[A].cq)->status == UROCE_WC_WR_FLUSH_ERR);
	post_send(A, QP_UD, W_SEND, 1, P_BAD_LOCAL);
	FUZZ_CHECK(state(A, QP_UD) == UROCE_QPS_SQE &&
		   last_wc(g_node[A].cq)->status == UROCE_WC_LOC_PROT_ERR);
	post_send(A, QP_UD, W_SEND, 1, 0);
	FUZZ_CHECK(last_wc(g_node[A].cq)->status == UROCE_WC_WR_FLUSH_ERR);
	for (int k = 0; k < 33; k++)
		post_recv(B, QP_UC, 0, 0);
	FUZZ_CHECK(rq_count(&qp(B, QP_UC)->rq) == 32);
	control(A, C_PORT, 0);
	uint64_t id = g_node[A].send_id[QP_RD];
	for (int k = 0; k < 33; k++)
		post_send(A, QP_RD, W_WRITE, 1, 0);
	FUZZ_CHECK(g_node[A].send_id[QP_RD] == id + 32);
	control(A, C_PORT, 1);
	settle();
	end("queues-full-and-in-error");
}

/* ---- completions and events left unread ---- */

static void seed_unread(void)
{
	/* QP_RD's 8-entry CQ overruns: CQ_ERR once, polls then fail. */
	begin();
	settle();
	for (int k = 0; k < 10; k++)
		post_send(A, QP_RD, W_WRITE, 1, 0);
	settle_no_time();
	FUZZ_CHECK(atomic_load(&g_node[A].cq_small->overrun));
	end("cq-overrun");

	/* The main CQ left unread while a QP's queues are flushed, then read again. */
	begin();
	control(A, C_HOLD_CQ, 1);
	modify(A, QP_RC, UROCE_QPS_ERR, 1, 0, v0);
	modify(A, QP_UC, UROCE_QPS_ERR, 1, 0, v0);
	control(A, C_HOLD_CQ, 0);
	end("cq-held");

	/* Events left unread: more than the ring holds are counted lost. */
	begin();
	control(A, C_HOLD_EVENTS, 1);
	for (int k = 0; k < 70; k++)
		control(A, C_PORT, (uint8_t)(k & 1));
	FUZZ_CHECK(dcnt(A, UROCE_CNT_async_lost) > 0 && dcnt(A, UROCE_CNT_link_downed) == 35);
	control(A, C_PORT, 1);
	control(A, C_HOLD_EVENTS, 0);
	end("events-lost");
}

/* ---- objects ---- */

static void seed_objects(void)
{
	begin();
	object(A, 0, 1, 16, 4 << 2);                    /* UC, within limits */
	object(A, 0, 3, 16, 0);                         /* a second GSI QP: EBUSY */
	object(A, 0, 2 | 32, 8, 2 << 2);                /* UD on the SRQ */
	object(A, 0, 8, 8, 0);                          /* another device's CQ */
	object(A, 0, 64, 8, 0);                         /* another PD's SRQ */
	object(A, 0, 4, 8, 0);                          /* not a QP type */
	object(A, 0, 0, 8, 1);                          /* max_send_wr over the limit */
	object(A, 0, 0, 8, 0x80);                       /* max_inline_data over the limit */
	object(A, 0, 0, 0x88, 0);                       /* max_send_sge over the limit */
	object(A, 0, 0, 8, 2);                          /* max_recv_sge over the limit */
	object(A, 1, 0, 0, 1);
	object(A, 1, 17, 3, 0);
	object(A, 1, 255, 0, 0);
	object(A, 2, 16, 2, 4);
	object(A, 2, 0, 2, 0);
	object(A, 2, 255, 2, 0);
	object(A, 2, 4, 33, 0);
	object(A, 2, 4, 1, 5);
	object(A, 3, 0x0F, 16, 0);                      /* every right */
	object(A, 3, 0x02, 16, 0);                      /* remote write without local write */
	object(A, 3, 0x20, 16, 0);                      /* an unknown right */
	object(A, 3, 0x01, 16, 1);                      /* a range that wraps */
	object(A, 3, 0x01, 16, 2);                      /* no address */
	object(A, 3, 0x11, 0, 2);                       /* empty, no address */
	object(A, 4, 0, 0, 0);
	object(A, 4, 1, 1, 0);
	object(A, 4, 1, 0, 0);                          /* IPv6 destination, IPv4 source */
	object(A, 4, 0, 2, 0);                          /* no such GID index */
	object(A, 4, 0, 0, 1);                          /* port 2 */
	object(A, 4, 1, 1, 2);                          /* flow label over 20 bits */
	object(A, 5, 0, 0, 0);
	object(A, 6, 1, 0, 0);
	object(A, 6, 2, 0, 3);
	object(A, 6, 0, 0, 0);                          /* no GID */
	object(A, 6, 17, 0, 0);                         /* too many */
	object(A, 6, 2, 0x11, 0);                       /* a zero address */
	object(A, 6, 1, 0, 6);                          /* MTU code 6 */
	object(A, 6, 1, 0, 8);                          /* too many QPs */
	object(A, 6, 1, 0, 16);                         /* too many MRs */
	object(A, 6, 1, 0, 32);                         /* first QPN below 16 */
	object(A, 6, 1, 0, 64);                         /* first QPN over 24 bits */
	end("objects");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	g_dir = argv[1];
	seed_scripts();
	seed_opcodes();
	seed_ud();
	seed_mcast();
	seed_uc();
	seed_srq();
	seed_headers();
	seed_ghosts();
	seed_floods();
	seed_atomic_write();
	seed_rnr();
	seed_regions();
	seed_states();
	seed_posts();
	seed_refusals();
	seed_queues();
	seed_unread();
	seed_objects();
	printf("%d seeds written to %s\n", g_seeds, g_dir);
	return 0;
}

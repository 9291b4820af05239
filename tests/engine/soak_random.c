/* SPDX-License-Identifier: MIT */
/* The engine soak: thousands of random work requests between two engines on the simulated
 * fabric, every byte and every completion checked. Each run draws from its own seed the QP
 * type (RC mostly, UC, UD), the path MTU, the address family, the PSNs, the line rate, and
 * per direction the impairments (loss, burst loss, reordering, duplication, corruption,
 * jitter: each off, or up to 10 %); then every work request its opcode (RC: SEND,
 * SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, CMP_AND_SWP, FETCH_AND_ADD;
 * UC: the first four; UD: the first two), its size (0 bytes to 4 MiB, MTU edges
 * included), its SGE split (up to 8 entries with gaps between them), inline data, fence,
 * solicited and unsignaled flags. Both sides post at once.
 *
 * Every buffer has an image of what it must hold: fill bytes, then what each completed
 * operation put there. What may or may not have landed (a UC message cut by a loss, an RC
 * request that ended in RETRY_EXC_ERR, a flushed receive WQE) is taken as found, but only
 * inside the bytes that operation may touch. At the end of a run every byte of every buffer
 * is compared with its image, the gaps between SGEs and around each target included, so a
 * byte written out of place is found as surely as a byte missing.
 *
 * Every packet an engine writes is checked whole, with a good ICRC, before the fabric
 * touches it. RC runs under loss may end in RETRY_EXC_ERR (retry_cnt 7 spent: the specified
 * outcome); what completed before it is checked as above, and the run counts as such.
 *
 * Not in the default test run (a minute or more): it is always built, and becomes the CTest
 * test engine/soak_random (label soak) with -DUROCE_SOAK=ON; README "Tests". Environment:
 * UROCE_SOAK_WRS (10000) work requests at least; UROCE_SOAK_SEED (1) the master seed the
 * runs' seeds are drawn from; UROCE_SOAK_RUN=<seed> replays one run, as a failure prints it;
 * UROCE_SOAK_VERBOSE=1 adds each run's engine counters. Virtual time only: the wall-clock
 * time is printed, never checked. */
#include "harness.h"

#include <stdarg.h>
#include <time.h>

#include "wire/bytes.h"

#define FILL 0xA5                 /* what every byte no operation wrote holds */
#define PIECES 8                  /* SGEs of a work request or a receive WQE, at most */
#define GAP 32                    /* fill bytes before each piece and target: 0..GAP-1 */
#define INLINE_MAX 256
#define MAX_MSG (4u << 20)        /* the largest message */
#define UC_SEND_MAX (64u << 10)   /* UC/UD receive WQEs all hold the run's largest SEND */
#define PAT_LEN (MAX_MSG + 4096)  /* message bytes are cut from one random pattern */
#define QKEY 0x11111111u          /* the Q_Key h_qp_rts gives UD QPs */
#define TX_BURST 16               /* packets a node writes per turn of its pacer */
#define VTIME_LIMIT (3600ull * 1000000000ull) /* virtual time a run may take */
#define SIM_POOL 16384
#define SIM_RING 8192

/* A scatter/gather list in one buffer: pieces in order, with fill between them. */
struct layout {
	uint32_t n;
	uint64_t off[PIECES];
	uint32_t len[PIECES];
};

struct wr_plan {
	enum uroce_wr_opcode op;
	uint32_t len;
	uint32_t id;             /* side << 24 | index: payload bytes 0..3 and the immediate */
	uint32_t pat;            /* where its bytes start in the pattern */
	unsigned flags;
	struct layout loc;       /* its SGEs in the side's loc buffer */
	uint64_t rem;            /* WRITE target, READ source or atomic target in the peer's rem */
	uint64_t init, cmp, arg; /* atomics: the target's value before, compare, swap or add */
	int32_t rwqe;            /* RC: the peer's receive WQE it takes, or -1 */
	uint32_t delivered;      /* receive completions the peer had for it */
};

struct rwqe_plan {
	struct layout l;
	int32_t msg;             /* RC: the peer's work request that lands here */
	bool delivered;
};

/* A registered buffer and its image. */
struct buf {
	struct h_buf b;
	uint8_t *img;
	uint64_t size;           /* while planning: the bytes laid out so far */
};

struct side {
	struct wr_plan *wr;
	uint32_t nwr;
	struct rwqe_plan *rwqe;  /* the WQEs this side posts for the peer's messages */
	uint32_t nrwqe;
	struct buf loc;          /* its own SGEs: SEND/WRITE data, READ and atomic results */
	struct buf rem;          /* what the peer's WRITE, READ and atomics reach */
	struct buf rcv;          /* its receive WQEs */
	struct uroce_qp *qp;
	struct uroce_ah *ah;
	bool failed;             /* a send completed in error (RETRY_EXC_ERR, then flushes) */
	uint32_t ok;             /* work requests that completed successfully */
	uint64_t free_at;        /* the pacer: when the line is free again */
	bool more;               /* the engine filled its last burst: it may have more */
};

struct run {
	uint64_t seed, rng;
	enum uroce_qp_type type;
	enum uroce_mtu mtu;
	uint32_t mtu_bytes;
	bool ipv6, lossy;
	uint64_t rate_bps;       /* each node's line rate */
	uint8_t timeout;
	struct uroce_sim_link_cfg link[2];
	struct h_net *net;
	struct side side[2];
};

struct totals {
	uint64_t runs, runs_by_type[3], wrs, wrs_ok, wrs_by_op[UROCE_WR_OPCODE_MAX], bytes, largest;
	uint64_t compared, pkts, retrans, retries, naks, lost, burst, corrupted, duplicated,
		reordered, retry_exc_runs, ucud_msgs, ucud_delivered, ucud_twice, vtime_ns;
	uint64_t seed_min, seed_max;
};

static uint8_t *g_pat;     /* PAT_LEN random bytes */
static uint8_t *g_scratch; /* a message's bytes */

static const char *type_name(enum uroce_qp_type t)
{
	return t == UROCE_QPT_RC ? "RC" : t == UROCE_QPT_UC ? "UC" : "UD";
}

static void soak_fail(const struct run *r, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void soak_fail(const struct run *r, int line, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fail_msg("soak_random.c:%d: %s\nrun seed 0x%016" PRIx64 " (%s, MTU %u, %s, timeout %u): "
		 "replay it with UROCE_SOAK_RUN=0x%" PRIx64,
		 line, what, r->seed, type_name(r->type), r->mtu_bytes, r->ipv6 ? "IPv6" : "IPv4",
		 r->timeout, r->seed);
}

#define CHECK(c)                                            \
	do {                                                \
		if (!(c))                                   \
			soak_fail(r, __LINE__, "%s", #c);   \
	} while (0)

/* ---- random choices (each run's own stream, so that a seed replays the run) ---- */

static uint64_t rnd(struct run *r) { return uroce_splitmix64(&r->rng); }
static uint64_t below(struct run *r, uint64_t n) { return n ? rnd(r) % n : 0; }
static bool one_in(struct run *r, unsigned n) { return below(r, n) == 0; }
static double upto(struct run *r, double max)
{
	return (double)(rnd(r) >> 11) / 9007199254740992.0 * max;
}

/* ---- buffers, layouts and images ---- */

static bool is_atomic(enum uroce_wr_opcode op)
{
	return op == UROCE_WR_ATOMIC_CMP_AND_SWP || op == UROCE_WR_ATOMIC_FETCH_AND_ADD;
}

static bool has_imm(enum uroce_wr_opcode op)
{
	return op == UROCE_WR_SEND_WITH_IMM || op == UROCE_WR_RDMA_WRITE_WITH_IMM;
}

static bool is_send(enum uroce_wr_opcode op)
{
	return op == UROCE_WR_SEND || op == UROCE_WR_SEND_WITH_IMM;
}

static bool is_write(enum uroce_wr_opcode op)
{
	return op == UROCE_WR_RDMA_WRITE || op == UROCE_WR_RDMA_WRITE_WITH_IMM;
}

/* The messages that take a receive WQE at the peer. */
static bool takes_rwqe(enum uroce_wr_opcode op)
{
	return is_send(op) || op == UROCE_WR_RDMA_WRITE_WITH_IMM;
}

/* len bytes in 1..PIECES pieces (an empty message: no SGE or one empty one), each after
 * 0..GAP-1 bytes of fill, laid out from *cursor on. */
static void layout_new(struct run *r, struct layout *l, uint64_t *cursor, uint32_t len)
{
	uint32_t cut[PIECES + 1];

	l->n = len ? 1 + (uint32_t)below(r, PIECES) : (uint32_t)below(r, 2);
	cut[0] = 0;
	for (uint32_t i = 1; i < l->n; i++) {
		uint32_t c = (uint32_t)below(r, (uint64_t)len + 1), k = i;
		for (; k > 1 && cut[k - 1] > c; k--)
			cut[k] = cut[k - 1];
		cut[k] = c;
	}
	cut[l->n] = len;
	for (uint32_t i = 0; i < l->n; i++) {
		*cursor += below(r, GAP);
		l->off[i] = *cursor;
		l->len[i] = cut[i + 1] - cut[i];
		*cursor += l->len[i];
	}
}

static uint64_t layout_len(const struct layout *l)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < l->n; i++)
		n += l->len[i];
	return n;
}

/* Copies data[0..len) through the pieces into dst (a buffer or an image). */
static void scatter(uint8_t *dst, const struct layout *l, const uint8_t *data, uint64_t len)
{
	for (uint32_t i = 0; i < l->n && len; i++) {
		uint32_t c = len < l->len[i] ? (uint32_t)len : l->len[i];
		memcpy(dst + l->off[i], data, c);
		data += c;
		len -= c;
	}
}

static void gather(const uint8_t *src, const struct layout *l, uint8_t *out, uint64_t len)
{
	for (uint32_t i = 0; i < l->n && len; i++) {
		uint32_t c = len < l->len[i] ? (uint32_t)len : l->len[i];
		memcpy(out, src + l->off[i], c);
		out += c;
		len -= c;
	}
}

/* Whatever these bytes hold is right: an operation that may or may not have landed. */
static void accept_range(struct buf *b, uint64_t off, uint64_t len)
{
	memcpy(b->img + off, b->b.p + off, len);
}

static void accept_layout(struct buf *b, const struct layout *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		accept_range(b, l->off[i], l->len[i]);
}

static int layout_sges(const struct buf *b, const struct layout *l, struct uroce_sge *sge)
{
	for (uint32_t i = 0; i < l->n; i++)
		sge[i] = h_sge(&b->b, l->off[i], l->len[i]);
	return (int)l->n;
}

/* The bytes of a message: a cut of the pattern, its id in the first four. */
static const uint8_t *content(const struct wr_plan *w)
{
	memcpy(g_scratch, g_pat + w->pat, w->len);
	if (w->len >= 4)
		put_le32(g_scratch, w->id);
	return g_scratch;
}

static void buf_alloc(struct run *r, int node, struct buf *b)
{
	b->size += GAP; /* fill after the last piece too */
	b->b = h_buf_new(r->net, node, b->size, H_ALL_ACCESS, 0);
	b->img = malloc(b->size);
	assert_non_null(b->img);
	memset(b->b.p, FILL, b->size);
	memset(b->img, FILL, b->size);
}

static void buf_free(struct buf *b)
{
	h_buf_free(&b->b);
	free(b->img);
}

/* Every byte against the image. Returns the bytes compared. */
static uint64_t buf_check(const struct run *r, const struct buf *b, const char *name, int side)
{
	if (memcmp(b->b.p, b->img, b->size)) {
		uint64_t i = 0;
		while (b->b.p[i] == b->img[i])
			i++;
		soak_fail(r, __LINE__, "side %d buffer %s byte %" PRIu64 " of %" PRIu64
			  " is 0x%02x, expected 0x%02x", side, name, i, b->size, b->b.p[i], b->img[i]);
	}
	return b->size;
}

/* ---- the run's configuration ---- */

/* One direction: a latency, and each impairment off or drawn up to 10 %, the three that
 * destroy packets (loss, burst loss, corruption) together at most 10 %. Burst loss is
 * Gilbert's chain, stepped per packet, not per unit of time: when a QP has nothing to send
 * but one retransmission every timeout, a burst of a few packets lasts several timeouts and
 * spends retry_cnt. So bursts here are short (1.1 to 2 packets on average). */
static void link_new(struct run *r, struct uroce_sim_link_cfg *l)
{
	struct uroce_impair_cfg *im = &l->impair;
	double burst = 0, back = 0.5 + upto(r, 0.4);

	memset(l, 0, sizeof(*l));
	l->latency_ns = below(r, 10001);
	if (one_in(r, 8))
		return; /* a clean direction */
	im->seed = rnd(r);
	if (one_in(r, 2))
		im->loss = upto(r, 0.10);
	if (one_in(r, 2))
		burst = upto(r, 0.10);
	if (one_in(r, 2)) {
		im->corrupt = upto(r, 0.10);
		im->corrupt_bits = 1 + (uint32_t)below(r, 8);
	}
	double sum = im->loss + burst + im->corrupt;
	if (sum > 0.10) {
		im->loss *= 0.10 / sum;
		burst *= 0.10 / sum;
		im->corrupt *= 0.10 / sum;
	}
	if (burst > 0) {
		/* Long-run loss burst = p / (p + r), in runs of 1 / r packets. */
		im->burst_r = back;
		im->burst_p = burst * back / (1 - burst);
	}
	if (one_in(r, 2))
		im->dup = upto(r, 0.10);
	if (one_in(r, 2)) {
		im->reorder = upto(r, 0.10);
		im->reorder_delay_ns = 1000 + below(r, 20000);
	}
	if (one_in(r, 2))
		im->jitter_ns = below(r, 10001);
	if (sum > 0)
		r->lossy = true;
}

static enum uroce_wr_opcode pick_op(struct run *r)
{
	static const enum uroce_wr_opcode rc[] = {
		UROCE_WR_SEND, UROCE_WR_SEND_WITH_IMM, UROCE_WR_RDMA_WRITE,
		UROCE_WR_RDMA_WRITE_WITH_IMM, UROCE_WR_RDMA_READ, UROCE_WR_ATOMIC_CMP_AND_SWP,
		UROCE_WR_ATOMIC_FETCH_AND_ADD,
	};
	/* UC: SEND and WRITE with and without immediate (IBA 9.8); UD: SEND only. */
	uint64_t n = r->type == UROCE_QPT_RC ? 7 : r->type == UROCE_QPT_UC ? 4 : 2;
	return rc[below(r, n)];
}

/* Sizes, each class with its share in 32: tiny, the MTU edges (k x MTU - 1, k x MTU,
 * k x MTU + 1), a few MTUs, up to 16 MTUs, up to 256 KiB, and 256 KiB to 4 MiB. */
static uint32_t pick_len(struct run *r, enum uroce_wr_opcode op)
{
	uint32_t mtu = r->mtu_bytes, max = MAX_MSG, len;
	uint64_t d = below(r, 32);

	if (is_atomic(op))
		return 8;
	if (r->type == UROCE_QPT_UD)
		max = mtu;
	else if (r->type == UROCE_QPT_UC && is_send(op))
		max = UC_SEND_MAX;
	if (d < 8)
		len = (uint32_t)below(r, 65);
	else if (d < 12)
		len = (uint32_t)(1 + below(r, 3)) * mtu - 1 + (uint32_t)below(r, 3);
	else if (d < 20)
		len = (uint32_t)below(r, 4ull * mtu + 1);
	else if (d < 26)
		len = (uint32_t)below(r, 16ull * mtu + 1);
	else if (d < 30)
		len = (uint32_t)below(r, (256u << 10) + 1);
	else
		len = (256u << 10) + (uint32_t)below(r, MAX_MSG - (256u << 10) + 1);
	return len <= max ? len : (uint32_t)below(r, (uint64_t)max + 1);
}

static void plan_wrs(struct run *r, int s)
{
	struct side *sd = &r->side[s], *peer = &r->side[1 - s];

	sd->nwr = 50 + (uint32_t)below(r, 251);
	sd->wr = calloc(sd->nwr, sizeof(*sd->wr));
	assert_non_null(sd->wr);
	for (uint32_t k = 0; k < sd->nwr; k++) {
		struct wr_plan *w = &sd->wr[k];
		w->op = pick_op(r);
		w->len = pick_len(r, w->op);
		/* UC and UD tell messages apart by their first bytes, or by the immediate. */
		if (r->type != UROCE_QPT_RC && w->op == UROCE_WR_SEND && w->len < 4)
			w->op = UROCE_WR_SEND_WITH_IMM;
		w->id = (uint32_t)s << 24 | k;
		w->pat = (uint32_t)below(r, PAT_LEN - MAX_MSG);
		w->flags = one_in(r, 8) ? 0 : UROCE_SEND_SIGNALED;
		if (one_in(r, 16))
			w->flags |= UROCE_SEND_FENCE;
		if (one_in(r, 8))
			w->flags |= UROCE_SEND_SOLICITED;
		if ((is_send(w->op) || is_write(w->op)) && w->len <= INLINE_MAX && one_in(r, 3))
			w->flags |= UROCE_SEND_INLINE;
		layout_new(r, &w->loc, &sd->loc.size, w->len);
		w->rwqe = -1;
		if (is_atomic(w->op)) {
			peer->rem.size = (peer->rem.size + below(r, GAP) + 7) & ~7ull;
			w->rem = peer->rem.size;
			peer->rem.size += 8;
			w->init = rnd(r);
			w->cmp = one_in(r, 2) ? w->init : rnd(r);
			w->arg = rnd(r);
		} else if (!is_send(w->op)) {
			peer->rem.size += below(r, GAP);
			w->rem = peer->rem.size;
			peer->rem.size += w->len;
		}
		if (r->type == UROCE_QPT_RC && takes_rwqe(w->op))
			w->rwqe = (int32_t)peer->nrwqe++;
	}
}

/* The receive WQEs side s posts for the messages of the peer. RC: one per message, in
 * order, each the message's size plus some slack. UC and UD: a quarter more than the
 * messages (duplicates take some), all holding the largest message. */
static void plan_rwqes(struct run *r, int s)
{
	struct side *sd = &r->side[s], *peer = &r->side[1 - s];
	uint32_t msgs = 0, cap = 0;

	for (uint32_t k = 0; k < peer->nwr; k++) {
		if (!takes_rwqe(peer->wr[k].op))
			continue;
		msgs++;
		if (is_send(peer->wr[k].op) && peer->wr[k].len > cap)
			cap = peer->wr[k].len;
	}
	if (r->type == UROCE_QPT_UD)
		cap = UROCE_UD_GRH_LEN + r->mtu_bytes;
	if (r->type != UROCE_QPT_RC)
		sd->nrwqe = msgs + msgs / 4 + 4;
	sd->rwqe = calloc(sd->nrwqe ? sd->nrwqe : 1, sizeof(*sd->rwqe));
	assert_non_null(sd->rwqe);
	for (uint32_t q = 0; q < sd->nrwqe; q++)
		sd->rwqe[q].msg = -1;
	for (uint32_t k = 0; k < peer->nwr; k++)
		if (peer->wr[k].rwqe >= 0)
			sd->rwqe[peer->wr[k].rwqe].msg = (int32_t)k;
	for (uint32_t q = 0; q < sd->nrwqe; q++) {
		const struct wr_plan *w = sd->rwqe[q].msg >= 0 ? &peer->wr[sd->rwqe[q].msg] : NULL;
		uint32_t len = !w ? cap : is_send(w->op) ? w->len : 0;
		layout_new(r, &sd->rwqe[q].l, &sd->rcv.size, len + (uint32_t)below(r, 64));
	}
}

/* The initial contents: what SENDs and WRITEs send, what READs read, atomic targets. */
static void fill_buffers(struct run *r, int s)
{
	struct side *sd = &r->side[s], *peer = &r->side[1 - s];

	for (uint32_t k = 0; k < sd->nwr; k++) {
		const struct wr_plan *w = &sd->wr[k];
		if (is_send(w->op) || is_write(w->op)) {
			const uint8_t *c = content(w);
			scatter(sd->loc.b.p, &w->loc, c, w->len);
			scatter(sd->loc.img, &w->loc, c, w->len);
		} else if (w->op == UROCE_WR_RDMA_READ) {
			const uint8_t *c = content(w);
			memcpy(peer->rem.b.p + w->rem, c, w->len);
			memcpy(peer->rem.img + w->rem, c, w->len);
		} else {
			memcpy(peer->rem.b.p + w->rem, &w->init, 8);
			memcpy(peer->rem.img + w->rem, &w->init, 8);
		}
	}
}

/* ---- the fabric: two nodes, each transmitting at its line rate ---- */

static struct h_net *net_new(const struct run *r)
{
	struct uroce_sim_cfg scfg = {.pool_pkts = SIM_POOL, .max_pkt = UROCE_MAX_DATAGRAM};
	struct h_net *net = calloc(1, sizeof(*net));

	assert_non_null(net);
	net->n = 2;
	net->sim = uroce_sim_new(r->seed, &scfg);
	assert_non_null(net->sim);
	net->buf = malloc((size_t)H_BATCH * UROCE_MAX_DATAGRAM);
	assert_non_null(net->buf);
	for (int i = 0; i < 2; i++) {
		struct h_node *nd = &net->node[i];
		/* UD messages are limited by the port MTU: it is the run's MTU. */
		struct uroce_dev_cfg dcfg = {.ngids = 1, .port_mtu = r->mtu};
		nd->addr = h_addr(i, r->ipv6);
		dcfg.gid[0] = nd->addr;
		assert_int_equal(uroce_sim_add_endpoint(net->sim, &nd->addr, SIM_RING), i);
		nd->io = uroce_sim_io(net->sim, i);
		assert_int_equal(uroce_dev_new(&dcfg, &nd->dev), 0);
		assert_int_equal(uroce_pd_alloc(nd->dev, &nd->pd), 0);
		assert_int_equal(uroce_cq_create(nd->dev, H_CQ_DEPTH, &nd->cq), 0);
	}
	assert_int_equal(uroce_sim_connect(net->sim, 0, 1, &r->link[0]), 0);
	assert_int_equal(uroce_sim_connect(net->sim, 1, 0, &r->link[1]), 1);
	return net;
}

/* Receives what is due, runs the timers, and writes packets while the line is free: a
 * packet of n bytes holds it n x 8 / rate. (h_pump writes everything at once, which turns
 * sixteen 4 MiB READs into 2^18 responses in one nanosecond: more than any pool holds.) */
static void pump(struct run *r, int i, uint64_t now)
{
	struct h_net *net = r->net;
	struct h_node *nd = &net->node[i];
	struct side *sd = &r->side[i];

	h_recv_all(net, i, now);
	uroce_dev_on_timer(nd->dev, now);
	sd->more = false;
	while (sd->free_at <= now) {
		struct uroce_txbatch tx = {.pkts = net->pkts, .max = TX_BURST};
		h_batch_reset(net, TX_BURST);
		size_t n = uroce_dev_write(nd->dev, &tx, now);
		for (size_t k = 0; k < n; k++) {
			uint64_t t = net->pkts[k].len * 8000000000ull / r->rate_bps;
			struct uroce_pkt pkt;
			sd->free_at = (sd->free_at > now ? sd->free_at : now) + (t ? t : 1);
			/* Whatever the fabric does to it later, it leaves whole and right. */
			CHECK(uroce_pkt_dissect(&pkt, UROCE_LINK_IP, net->pkts[k].data,
						net->pkts[k].len) == 0 &&
			      uroce_pkt_icrc_check(&pkt, NULL) == UROCE_CRC_OK);
		}
		assert_int_equal(uroce_io_send(nd->io, net->pkts, n), (int)n);
		uroce_dev_publish(nd->dev); /* what was written is on the fabric */
		if (n < TX_BURST)
			return;
	}
	sd->more = true;
}

/* Runs until nothing is pending; returns the virtual time. */
static uint64_t run_all(struct run *r)
{
	struct uroce_sim *sim = r->net->sim;

	for (;;) {
		uint64_t now = uroce_sim_now(sim), t;
		for (int i = 0; i < 2; i++)
			pump(r, i, now);
		t = uroce_sim_next_event_time(sim);
		for (int i = 0; i < 2; i++) {
			uint64_t d = uroce_dev_next_deadline(r->net->node[i].dev);
			if (d < t)
				t = d;
			if (r->side[i].more && r->side[i].free_at < t)
				t = r->side[i].free_at;
		}
		if (t == UROCE_SIM_NEVER)
			return now;
		CHECK(t <= VTIME_LIMIT);
		uroce_sim_run_until(sim, t);
	}
}

/* ---- posting ---- */

static void create_qps(struct run *r)
{
	struct h_qp_opts o = {.type = r->type, .mtu = r->mtu, .timeout = r->timeout,
			      .retry_cnt = 7, .rnr_retry = 7,
			      .max_rd_atomic = (uint8_t)(1 + below(r, UROCE_MAX_RD_ATOMIC))};
	uint32_t psn[2] = {(uint32_t)below(r, 1u << 24), (uint32_t)below(r, 1u << 24)};

	for (int i = 0; i < 2; i++) {
		struct h_node *nd = &r->net->node[i];
		struct uroce_qp_init_attr init = {
			.send_cq = nd->cq, .recv_cq = nd->cq, .qp_type = r->type,
			.cap = {.max_send_wr = r->side[i].nwr, .max_recv_wr = r->side[i].nrwqe,
				.max_send_sge = PIECES, .max_recv_sge = PIECES,
				.max_inline_data = INLINE_MAX}};
		assert_int_equal(uroce_qp_create(nd->pd, &init, &r->side[i].qp), 0);
	}
	for (int i = 0; i < 2; i++) {
		h_qp_rts(r->net, r->side[i].qp, i, 1 - i, uroce_qp_num(r->side[1 - i].qp), &o,
			 psn[i], psn[1 - i]);
		if (r->type == UROCE_QPT_UD) {
			struct uroce_ah_attr ah = {.dgid = r->net->node[1 - i].addr, .port_num = 1,
						   .hop_limit = 64};
			assert_int_equal(uroce_ah_create(r->net->node[i].pd, &ah, &r->side[i].ah), 0);
		}
	}
}

static void post_all(struct run *r)
{
	struct uroce_sge sge[PIECES];

	for (int s = 0; s < 2; s++) {
		struct side *sd = &r->side[s];
		for (uint32_t q = 0; q < sd->nrwqe; q++) {
			struct uroce_recv_wr wr = {.wr_id = q, .sg_list = sge,
						   .num_sge = layout_sges(&sd->rcv, &sd->rwqe[q].l, sge)};
			const struct uroce_recv_wr *bad;
			assert_int_equal(uroce_post_recv(sd->qp, &wr, &bad), 0);
		}
	}
	for (int s = 0; s < 2; s++) {
		struct side *sd = &r->side[s], *peer = &r->side[1 - s];
		for (uint32_t k = 0; k < sd->nwr; k++) {
			const struct wr_plan *w = &sd->wr[k];
			struct uroce_send_wr wr = {.wr_id = k, .sg_list = sge, .opcode = w->op,
						   .send_flags = w->flags, .imm_data = w->id,
						   .num_sge = layout_sges(&sd->loc, &w->loc, sge)};
			const struct uroce_send_wr *bad;
			uint64_t raddr = h_va(&peer->rem.b, w->rem);
			uint32_t rkey = uroce_mr_rkey(peer->rem.b.mr);
			if (is_atomic(w->op)) {
				wr.wr.atomic.remote_addr = raddr;
				wr.wr.atomic.rkey = rkey;
				wr.wr.atomic.compare_add =
					w->op == UROCE_WR_ATOMIC_CMP_AND_SWP ? w->cmp : w->arg;
				wr.wr.atomic.swap = w->arg;
			} else if (r->type == UROCE_QPT_UD) {
				wr.wr.ud.ah = sd->ah;
				wr.wr.ud.remote_qpn = uroce_qp_num(peer->qp);
				/* The high bit asks for the QP's own Q_Key (IBA 10.2.4). */
				wr.wr.ud.remote_qkey = one_in(r, 2) ? 0x80000000u : QKEY;
			} else if (!is_send(w->op)) {
				wr.wr.rdma.remote_addr = raddr;
				wr.wr.rdma.rkey = rkey;
			}
			assert_int_equal(uroce_post_send(sd->qp, &wr, &bad), 0);
		}
	}
}

/* ---- checking ---- */

static const enum uroce_wc_opcode wc_of[UROCE_WR_OPCODE_MAX] = {
	[UROCE_WR_RDMA_WRITE] = UROCE_WC_RDMA_WRITE,
	[UROCE_WR_RDMA_WRITE_WITH_IMM] = UROCE_WC_RDMA_WRITE,
	[UROCE_WR_SEND] = UROCE_WC_SEND,
	[UROCE_WR_SEND_WITH_IMM] = UROCE_WC_SEND,
	[UROCE_WR_RDMA_READ] = UROCE_WC_RDMA_READ,
	[UROCE_WR_ATOMIC_CMP_AND_SWP] = UROCE_WC_COMP_SWAP,
	[UROCE_WR_ATOMIC_FETCH_AND_ADD] = UROCE_WC_FETCH_ADD,
};

/* The network-header area of a UD receive: 20 zero bytes and the IPv4 header, or the
 * IPv6 header (Annex A17.4.5.2), from the peer to this node. */
static void check_grh(const struct run *r, int s, const uint8_t *g)
{
	const uint8_t *src = r->net->node[1 - s].addr.ip, *dst = r->net->node[s].addr.ip;
	static const uint8_t zero[20];

	if (r->ipv6) {
		CHECK(g[0] >> 4 == 6 && g[6] == UROCE_IPPROTO_UDP);
		CHECK(!memcmp(g + 8, src, 16) && !memcmp(g + 24, dst, 16));
	} else {
		CHECK(!memcmp(g, zero, 20) && g[20] == 0x45 && g[29] == UROCE_IPPROTO_UDP);
		CHECK(!memcmp(g + 32, src, 4) && !memcmp(g + 36, dst, 4));
	}
}

/* RC receive completions: one per WQE in order, the n-th for the peer message planned for
 * it, successful until the QP fails (then flushed). */
static void check_recv_rc(struct run *r, int s, const struct uroce_wc *wc, uint32_t n)
{
	struct side *sd = &r->side[s], *peer = &r->side[1 - s];
	bool flushed = false;
	uint32_t q = 0;

	for (uint32_t i = 0; i < n; i++, q++) {
		CHECK(q < sd->nrwqe && wc[i].wr_id == q);
		struct rwqe_plan *rw = &sd->rwqe[q];
		struct wr_plan *w = &peer->wr[rw->msg];
		if (wc[i].status != UROCE_WC_SUCCESS) {
			CHECK(wc[i].status == UROCE_WC_WR_FLUSH_ERR);
			flushed = true;
			accept_layout(&sd->rcv, &rw->l);
			continue;
		}
		CHECK(!flushed);
		CHECK(wc[i].opcode == (w->op == UROCE_WR_RDMA_WRITE_WITH_IMM
					       ? UROCE_WC_RECV_RDMA_WITH_IMM : UROCE_WC_RECV));
		CHECK(wc[i].byte_len == w->len);
		CHECK(!!(wc[i].wc_flags & UROCE_WC_F_WITH_IMM) == has_imm(w->op));
		CHECK(!has_imm(w->op) || wc[i].imm_data == w->id);
		if (is_send(w->op))
			scatter(sd->rcv.img, &rw->l, content(w), w->len);
		rw->delivered = true;
		w->delivered++;
	}
	/* WQEs left: the sender failed first, and a message may have started in one. */
	for (; q < sd->nrwqe; q++) {
		CHECK(peer->failed || sd->failed);
		accept_layout(&sd->rcv, &sd->rwqe[q].l);
	}
}

/* UC and UD receive completions: WQEs taken in order, each holding whichever message got
 * through (told by its id), byte for byte. Messages may be lost or, UC/UD having no
 * duplicate detection, delivered twice. */
static void check_recv_unreliable(struct run *r, int s, const struct uroce_wc *wc, uint32_t n)
{
	struct side *sd = &r->side[s], *peer = &r->side[1 - s];
	bool ud = r->type == UROCE_QPT_UD;
	uint64_t next = 0;
	static uint8_t got[UC_SEND_MAX + UROCE_UD_GRH_LEN + 64];

	for (uint32_t i = 0; i < n; i++) {
		CHECK(wc[i].status == UROCE_WC_SUCCESS);
		CHECK(wc[i].wr_id >= next && wc[i].wr_id < sd->nrwqe);
		next = wc[i].wr_id + 1;
		struct rwqe_plan *rw = &sd->rwqe[wc[i].wr_id];
		uint32_t off = ud ? UROCE_UD_GRH_LEN : 0;
		/* A WRITE with immediate takes a WQE but puts nothing in it. */
		bool write_imm = wc[i].opcode == UROCE_WC_RECV_RDMA_WITH_IMM;
		CHECK(wc[i].byte_len >= off && (write_imm || wc[i].byte_len <= layout_len(&rw->l)));
		if (!write_imm)
			gather(sd->rcv.b.p, &rw->l, got, wc[i].byte_len);
		if (ud) {
			CHECK(wc[i].wc_flags & UROCE_WC_F_GRH);
			CHECK(wc[i].src_qp == uroce_qp_num(peer->qp));
			check_grh(r, s, got);
		}
		uint32_t plen = wc[i].byte_len - off, id;
		if (wc[i].wc_flags & UROCE_WC_F_WITH_IMM) {
			id = wc[i].imm_data;
		} else {
			CHECK(plen >= 4);
			id = get_le32(got + off);
		}
		CHECK(id >> 24 == (uint32_t)(1 - s) && (id & 0xFFFFFF) < peer->nwr);
		struct wr_plan *w = &peer->wr[id & 0xFFFFFF];
		CHECK(wc[i].opcode == (w->op == UROCE_WR_RDMA_WRITE_WITH_IMM
					       ? UROCE_WC_RECV_RDMA_WITH_IMM : UROCE_WC_RECV));
		CHECK(!!(wc[i].wc_flags & UROCE_WC_F_WITH_IMM) == has_imm(w->op));
		if (is_send(w->op)) {
			CHECK(plen == w->len);
			CHECK(!memcmp(got + off, content(w), w->len));
		} else {
			CHECK(wc[i].byte_len == w->len);
		}
		w->delivered++;
		rw->delivered = true;
		/* UD writes exactly the completion's bytes; a UC WQE may still hold bytes of a
		 * message cut short before it (IBA 9.8: the WQE is used again). */
		if (ud)
			scatter(sd->rcv.img, &rw->l, got, wc[i].byte_len);
		else
			accept_layout(&sd->rcv, &rw->l);
	}
	if (!ud)
		for (uint32_t q = 0; q < sd->nrwqe; q++)
			if (!sd->rwqe[q].delivered)
				accept_layout(&sd->rcv, &sd->rwqe[q].l);
}

/* What a work request of side s did once it completed (ok) or could not be sure of. */
static void wr_effects(struct run *r, int s, struct wr_plan *w, bool ok)
{
	struct side *sd = &r->side[s], *peer = &r->side[1 - s];

	sd->ok += ok;
	if (is_send(w->op)) {
		/* RC: an acknowledged SEND was received (its WQE checked the bytes). */
		CHECK(!ok || r->type != UROCE_QPT_RC || w->delivered == 1);
		return;
	}
	if (w->op == UROCE_WR_RDMA_READ) {
		if (ok)
			scatter(sd->loc.img, &w->loc, content(w), w->len);
		else
			accept_layout(&sd->loc, &w->loc);
		return;
	}
	if (is_atomic(w->op)) {
		uint64_t fin = w->op == UROCE_WR_ATOMIC_CMP_AND_SWP
				       ? (w->init == w->cmp ? w->arg : w->init)
				       : w->init + w->arg;
		if (ok) {
			scatter(sd->loc.img, &w->loc, (const uint8_t *)&w->init, 8);
			memcpy(peer->rem.img + w->rem, &fin, 8);
		} else {
			accept_layout(&sd->loc, &w->loc);
			accept_range(&peer->rem, w->rem, 8);
		}
		return;
	}
	/* WRITE: RC delivers it when acknowledged; a UC WRITE landed when its immediate
	 * arrived, else each packet's bytes landed or not (IBA 9.8). */
	CHECK(!ok || r->type != UROCE_QPT_RC || w->op != UROCE_WR_RDMA_WRITE_WITH_IMM ||
	      w->delivered == 1);
	if (!ok) {
		accept_range(&peer->rem, w->rem, w->len);
		return;
	}
	const uint8_t *c = content(w);
	if (r->type == UROCE_QPT_RC || w->delivered) {
		memcpy(peer->rem.img + w->rem, c, w->len);
		return;
	}
	for (uint32_t off = 0; off < w->len; off += r->mtu_bytes) {
		uint32_t n = w->len - off < r->mtu_bytes ? w->len - off : r->mtu_bytes;
		if (!memcmp(peer->rem.b.p + w->rem + off, c + off, n))
			memcpy(peer->rem.img + w->rem + off, c + off, n);
	}
}

/* Send completions: in posting order, the unsignaled ones silent; all successful, except
 * that RC under loss may end in RETRY_EXC_ERR (retry_cnt 7 spent without progress, the
 * specified outcome) followed by flushes. */
static void check_sends(struct run *r, int s, const struct uroce_wc *wc, uint32_t n)
{
	struct side *sd = &r->side[s];
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		while (!sd->failed && k < sd->nwr && !(sd->wr[k].flags & UROCE_SEND_SIGNALED) &&
		       wc[i].wr_id != k)
			wr_effects(r, s, &sd->wr[k++], true);
		CHECK(k < sd->nwr && wc[i].wr_id == k);
		struct wr_plan *w = &sd->wr[k++];
		CHECK(wc[i].opcode == wc_of[w->op]);
		if (wc[i].status == UROCE_WC_SUCCESS) {
			CHECK(!sd->failed);
			CHECK(w->op != UROCE_WR_RDMA_READ || wc[i].byte_len == w->len);
			wr_effects(r, s, w, true);
			continue;
		}
		if (!sd->failed)
			CHECK(wc[i].status == UROCE_WC_RETRY_EXC_ERR && r->type == UROCE_QPT_RC &&
			      r->lossy);
		else
			CHECK(wc[i].status == UROCE_WC_WR_FLUSH_ERR);
		sd->failed = true;
		wr_effects(r, s, w, false);
	}
	while (!sd->failed && k < sd->nwr && !(sd->wr[k].flags & UROCE_SEND_SIGNALED))
		wr_effects(r, s, &sd->wr[k++], true);
	CHECK(k == sd->nwr);
}

/* Takes every completion of node s: its sends, then its receives. */
static uint32_t poll_all(struct run *r, int s, struct uroce_wc *snd, struct uroce_wc *rcv,
			 uint32_t *nrcv)
{
	struct uroce_wc wc;
	uint32_t n = 0;

	*nrcv = 0;
	while (uroce_cq_poll(r->net->node[s].cq, &wc, 1) == 1) {
		if (wc.opcode & UROCE_WC_RECV) {
			CHECK(*nrcv < r->side[s].nrwqe);
			rcv[(*nrcv)++] = wc;
		} else {
			CHECK(n < r->side[s].nwr);
			snd[n++] = wc;
		}
	}
	return n;
}

static void tally(struct run *r, struct totals *t, uint64_t vtime)
{
	t->runs++;
	t->runs_by_type[r->type - UROCE_QPT_RC]++;
	t->vtime_ns += vtime;
	t->seed_min = t->runs == 1 || r->seed < t->seed_min ? r->seed : t->seed_min;
	t->seed_max = r->seed > t->seed_max ? r->seed : t->seed_max;
	for (int s = 0; s < 2; s++) {
		const struct side *sd = &r->side[s];
		const union uroce_counters *c = uroce_dev_counters(r->net->node[s].dev);
		const union uroce_sim_counters *l = uroce_sim_link_counters(r->net->sim, s);
		t->wrs += sd->nwr;
		t->wrs_ok += sd->ok;
		for (uint32_t k = 0; k < sd->nwr; k++) {
			const struct wr_plan *w = &sd->wr[k];
			t->wrs_by_op[w->op]++;
			t->bytes += w->len;
			t->largest = w->len > t->largest ? w->len : t->largest;
			if (r->type != UROCE_QPT_RC && takes_rwqe(w->op)) {
				t->ucud_msgs++;
				t->ucud_delivered += w->delivered > 0;
				t->ucud_twice += w->delivered > 1;
			}
		}
		t->pkts += c->sent_pkts;
		t->retrans += c->retransmitted_pkts;
		t->retries += c->completer_retry_err;
		t->naks += c->naks_sent;
		t->lost += l->drop_loss;
		t->burst += l->drop_burst;
		t->corrupted += l->corrupted;
		t->duplicated += l->duplicated;
		t->reordered += l->reordered;
		/* The fabric itself never ran out of room: losses are the impairments'. */
		CHECK(!l->drop_pool && !l->drop_ring && !l->drop_queue);
		/* Every packet it corrupted was caught: by the ICRC, or before it when the flip
		 * made a length, the opcode or the pad impossible (recv.c checks the pad rules
		 * before the ICRC). */
		const union uroce_counters *to = uroce_dev_counters(r->net->node[1 - s].dev);
		CHECK(to->drop_bad_icrc + to->drop_malformed + to->drop_bad_pad >= l->corrupted);
	}
	t->retry_exc_runs += r->side[0].failed || r->side[1].failed;
	/* One line per run: a soak's log says what each seed did. */
	const union uroce_counters *c0 = uroce_dev_counters(r->net->node[0].dev),
				   *c1 = uroce_dev_counters(r->net->node[1].dev);
	const union uroce_sim_counters *l0 = uroce_sim_link_counters(r->net->sim, 0),
				       *l1 = uroce_sim_link_counters(r->net->sim, 1);
	printf("run 0x%016" PRIx64 " %s MTU %4u %s %3u Gbit/s timeout %2u: %3u+%3u WRs, "
	       "packets %7" PRIu64 " (%7" PRIu64 " resent)%s\n",
	       r->seed, type_name(r->type), r->mtu_bytes, r->ipv6 ? "v6" : "v4",
	       (unsigned)(r->rate_bps / 1000000000u), r->timeout, r->side[0].nwr, r->side[1].nwr,
	       c0->sent_pkts + c1->sent_pkts, c0->retransmitted_pkts + c1->retransmitted_pkts,
	       r->side[0].failed || r->side[1].failed ? ", RETRY_EXC_ERR" : "");
	if (getenv("UROCE_SOAK_VERBOSE"))
		for (int s = 0; s < 2; s++)
			for (enum uroce_counter c = 0; c < UROCE_NCOUNTERS; c++)
				if (uroce_dev_counters(r->net->node[s].dev)->v[c])
					printf("    node %d %-24s %" PRIu64 "\n", s, uroce_counter_name(c),
					       uroce_dev_counters(r->net->node[s].dev)->v[c]);
	for (int s = 0; s < 2; s++) {
		const struct uroce_impair_cfg *im = &r->link[s].impair;
		const union uroce_sim_counters *l = s ? l1 : l0;
		printf("    %d->%d: loss %.3f burst %.3f/%.2f dup %.3f reorder %.3f corrupt %.3f "
		       "jitter %" PRIu64 " ns: %.1f %% of %" PRIu64 " lost or corrupted\n",
		       s, 1 - s, im->loss, im->burst_p, im->burst_r, im->dup, im->reorder, im->corrupt,
		       im->jitter_ns,
		       100.0 * (double)(l->drop_loss + l->drop_burst + l->corrupted) /
			       (double)(l->sent ? l->sent : 1), l->sent);
	}
}

static void soak_run(uint64_t seed, struct totals *tot)
{
	struct run run = {.seed = seed, .rng = seed}, *r = &run;
	static const uint64_t rates[] = {10000000000ull, 25000000000ull, 100000000000ull};
	uint64_t pick = below(r, 20);

	r->type = pick < 14 ? UROCE_QPT_RC : pick < 17 ? UROCE_QPT_UC : UROCE_QPT_UD;
	r->mtu = (enum uroce_mtu)(UROCE_MTU_256 + below(r, 5));
	r->mtu_bytes = 128u << r->mtu; /* 256 << (code - 1) */
	r->ipv6 = one_in(r, 4);
	r->rate_bps = rates[below(r, 3)];
	/* Above the longest round trip (2 x (10 + 10 + 21) us, plus a 4 KiB packet at 10
	 * Gbit/s): from 262 us to 16.8 ms. */
	r->timeout = (uint8_t)(6 + below(r, 7));
	link_new(r, &r->link[0]);
	link_new(r, &r->link[1]);
	r->net = net_new(r);
	plan_wrs(r, 0);
	plan_wrs(r, 1);
	for (int s = 0; s < 2; s++) {
		plan_rwqes(r, s);
		buf_alloc(r, s, &r->side[s].loc);
		buf_alloc(r, s, &r->side[s].rem);
		buf_alloc(r, s, &r->side[s].rcv);
	}
	fill_buffers(r, 0);
	fill_buffers(r, 1);
	create_qps(r);
	post_all(r);
	uint64_t vtime = run_all(r);

	struct uroce_wc *snd[2], *rcv[2];
	uint32_t nsnd[2], nrcv[2];
	for (int s = 0; s < 2; s++) {
		snd[s] = malloc(r->side[s].nwr * sizeof(**snd));
		rcv[s] = malloc((r->side[s].nrwqe + 1) * sizeof(**rcv));
		assert_true(snd[s] && rcv[s]);
		nsnd[s] = poll_all(r, s, snd[s], rcv[s], &nrcv[s]);
	}
	/* A failed send (RETRY_EXC_ERR) explains WQEs the peer never used: know it first. */
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < nsnd[s]; i++)
			r->side[s].failed |= snd[s][i].status != UROCE_WC_SUCCESS;
	for (int s = 0; s < 2; s++) {
		if (r->type == UROCE_QPT_RC)
			check_recv_rc(r, s, rcv[s], nrcv[s]);
		else
			check_recv_unreliable(r, s, rcv[s], nrcv[s]);
	}
	for (int s = 0; s < 2; s++) {
		r->side[s].failed = false;
		check_sends(r, s, snd[s], nsnd[s]);
	}
	for (int s = 0; s < 2; s++) {
		tot->compared += buf_check(r, &r->side[s].loc, "loc", s);
		tot->compared += buf_check(r, &r->side[s].rem, "rem", s);
		tot->compared += buf_check(r, &r->side[s].rcv, "rcv", s);
	}
	tally(r, tot, vtime);
	for (int s = 0; s < 2; s++) {
		struct side *sd = &r->side[s];
		free(snd[s]);
		free(rcv[s]);
		buf_free(&sd->loc);
		buf_free(&sd->rem);
		buf_free(&sd->rcv);
		free(sd->wr);
		free(sd->rwqe);
	}
	h_net_free(r->net);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	return s && *s ? strtoull(s, NULL, 0) : def;
}

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void report(const struct totals *t, uint64_t master, double wall)
{
	printf("engine soak: %" PRIu64 " work requests in %" PRIu64 " runs (RC %" PRIu64
	       ", UC %" PRIu64 ", UD %" PRIu64 "), master seed %" PRIu64 "\n",
	       t->wrs, t->runs, t->runs_by_type[0], t->runs_by_type[1], t->runs_by_type[2], master);
	printf("  by opcode:");
	for (int op = 0; op < UROCE_WR_OPCODE_MAX; op++)
		if (t->wrs_by_op[op])
			printf(" %s %" PRIu64, uroce_wr_opcode_name((enum uroce_wr_opcode)op),
			       t->wrs_by_op[op]);
	printf("\n  completed successfully: %" PRIu64 " (the others ended in RETRY_EXC_ERR or were "
	       "flushed after it)\n", t->wrs_ok);
	printf("  payload posted: %" PRIu64 " bytes (largest message %" PRIu64 ")\n", t->bytes,
	       t->largest);
	printf("  buffer bytes compared with their images: %" PRIu64 ", mismatches: 0\n",
	       t->compared);
	printf("  packets sent: %" PRIu64 ", retransmitted: %" PRIu64 " (%" PRIu64
	       " go-back-N retries), NAKs sent: %" PRIu64 "\n",
	       t->pkts, t->retrans, t->retries, t->naks);
	printf("  fabric: lost %" PRIu64 ", burst-lost %" PRIu64 ", corrupted %" PRIu64
	       ", duplicated %" PRIu64 ", reordered %" PRIu64 "\n",
	       t->lost, t->burst, t->corrupted, t->duplicated, t->reordered);
	printf("  RC runs ended by RETRY_EXC_ERR (retry_cnt 7 spent under loss): %" PRIu64 "\n",
	       t->retry_exc_runs);
	printf("  UC/UD messages: %" PRIu64 ", delivered %" PRIu64 ", delivered twice %" PRIu64
	       "\n", t->ucud_msgs, t->ucud_delivered, t->ucud_twice);
	printf("  run seeds 0x%016" PRIx64 "..0x%016" PRIx64 "\n", t->seed_min, t->seed_max);
	printf("  virtual time %.3f s, wall time %.1f s\n", (double)t->vtime_ns / 1e9, wall);
}

static void test_soak_random(void **state)
{
	uint64_t master = env_u64("UROCE_SOAK_SEED", 1), target = env_u64("UROCE_SOAK_WRS", 10000);
	uint64_t one = env_u64("UROCE_SOAK_RUN", 0), seeds = master;
	struct totals tot = {0};
	struct timespec t0;
	(void)state;

	g_pat = malloc(PAT_LEN);
	g_scratch = malloc(MAX_MSG + 64);
	assert_true(g_pat && g_scratch);
	for (uint64_t i = 0, s = master; i < PAT_LEN; i += 8) {
		uint64_t v = uroce_splitmix64(&s);
		memcpy(g_pat + i, &v, 8);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (one)
		soak_run(one, &tot);
	else
		while (tot.wrs < target)
			soak_run(uroce_splitmix64(&seeds), &tot);
	report(&tot, master, since(&t0));
	free(g_pat);
	free(g_scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soak_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

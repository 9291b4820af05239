/* SPDX-License-Identifier: MIT */
/* soak_verbs: the verbs soak on the real path. Two processes run this same program, a server
 * and a client, each through the standard <infiniband/verbs.h> API only (uroce's drop-in
 * libibverbs.so.1 here, any verbs device elsewhere): they exchange queue pair numbers, PSNs,
 * GIDs, the region's address and rkey over a TCP connection, as ibv_rc_pingpong does, and
 * connect several RC queue pairs. The client then posts a seeded random stream on each QP:
 * RDMA WRITE, RDMA READ, SEND, SEND with immediate, RDMA WRITE with immediate, FETCH_AND_ADD
 * and CMP_AND_SWP, 0 bytes to several MTUs and up to --max-rdma (1 MiB), several outstanding
 * per QP, local buffers cut into 1 to 4 SGEs with fill between them, some requests chained,
 * inline, fenced or unsignaled. Every byte is checked:
 *
 *  - The client keeps an image of the server's memory for each QP (a region and 16 atomic
 *    words, filled from the seed at the start). A WRITE updates the image when it is posted:
 *    the responder executes one QP's requests in order, so a later READ must see it. A READ
 *    checks what it brought back against the image as it was when the READ was posted, the
 *    fill around its SGEs included. An atomic must return the word's value in the image, which
 *    it then updates. A WRITE or atomic posted while an earlier READ of the same bytes is still
 *    outstanding is fenced (IBV_SEND_FENCE): a READ that is retried is executed again, and
 *    would otherwise read the later write (ordering that is the application's to ask for: the
 *    soak without these fences reports mismatches within seconds under loss).
 *  - Messages (SEND, SEND with immediate, WRITE with immediate) are numbered per QP; the k-th
 *    message's kind, length, immediate and bytes are a function of (seed, QP, k) that both
 *    sides compute, so the server checks each receive completion (opcode, immediate, length,
 *    order, the bytes through the receive WQE's SGEs and the fill around them, or where the
 *    WRITE with immediate put them) without being told anything.
 *  - At the end the client reads back every region and atomic word and compares them with its
 *    image, and the server sends a hash of its memory (compared with the image's), the
 *    messages it checked and its mismatches and errors.
 *
 * Every completion must have status SUCCESS, the opcode of its request, and come in order;
 * every signaled request gets exactly one. The program prints the operations, the bytes
 * checked and the mismatches, and exits 1 on any error or mismatch. An alarm and a guard on
 * completions that stop coming make a hang a failure. Usage: soak_verbs --help; the test and
 * the long run are tests/verbs/test_soak.sh (README "Tests", docs/performance.md "Verbs soak").
 *
 * Both sides run the same binary on the same host, so the connection messages are the
 * structures themselves. The op stream of each QP depends on the seed and the QP's path MTU
 * only (--ops gives each QP an equal share); how the QPs interleave and what the network does
 * depend on timing, so a seed replays the same work, not the same packets. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_QP 64
#define PIECES 4              /* SGEs of a local buffer or a receive WQE, at most */
#define GAP 32                /* fill bytes before each piece: 0..GAP-1 */
#define GUARD 64              /* fill bytes checked after the last byte an operation may touch */
#define FILL 0xA5             /* what every byte no operation wrote holds */
#define NATOMIC 16            /* atomic target words per QP */
#define IMM_OFF 4096          /* a WRITE with immediate lands below this offset in its slot */
#define MAX_IMM_LEN (64u << 10) /* the longest WRITE with immediate */
#define INLINE_WANT 256       /* inline data asked for; 0 if the device has none */
#define RD_ATOM 16            /* READs and atomics in flight per QP, each way */
/* RC attributes that ride out a few percent of loss: the local ACK timeout 4.096 us x 2^14 =
 * 67 ms (perftest's), seven retries, RNR retries forever (the server reposts receives only
 * after checking them), an RNR wait of 0.64 ms. */
#define QP_TIMEOUT 14
#define QP_RETRY 7
#define QP_RNR_RETRY 7
#define QP_RNR_TIMER 12
#define STALL_S 60.0          /* no completion for this long while work is outstanding: a hang */
#define MAGIC 0x6b6f73656f637275ull /* "urocesok" */
#define MAX_REPORTS 10        /* mismatch descriptions printed, at most */

/* ---- one list of the client's operations: name, work request opcode, completion opcode ---- */

#define OP_KINDS(X)                                                      \
	X(WRITE, IBV_WR_RDMA_WRITE, IBV_WC_RDMA_WRITE)                   \
	X(READ, IBV_WR_RDMA_READ, IBV_WC_RDMA_READ)                      \
	X(SEND, IBV_WR_SEND, IBV_WC_SEND)                                \
	X(SEND_IMM, IBV_WR_SEND_WITH_IMM, IBV_WC_SEND)                   \
	X(WRITE_IMM, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WC_RDMA_WRITE)      \
	X(FETCH_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WC_FETCH_ADD)      \
	X(CMP_SWAP, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WC_COMP_SWAP)

enum op_kind {
#define X(name, wr, wc) OP_##name,
	OP_KINDS(X)
#undef X
	OP_NKINDS
};

static const struct {
	const char *name;
	enum ibv_wr_opcode wr;
	enum ibv_wc_opcode wc;
} op_table[OP_NKINDS] = {
#define X(name, wr_op, wc_op) [OP_##name] = {#name, wr_op, wc_op},
	OP_KINDS(X)
#undef X
};

static bool is_atomic(enum op_kind k) { return k == OP_FETCH_ADD || k == OP_CMP_SWAP; }

/* ---- random numbers: splitmix64 (Steele, Lea and Flood 2014; Vigna's constants) ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s) { return mix64(*s += 0x632be59bd9b4e019ull); }
static uint64_t below(uint64_t *s, uint64_t n) { return n ? rnd(s) % n : 0; }
static bool one_in(uint64_t *s, uint64_t n) { return below(s, n) == 0; }

/* A key for one purpose: the stream of a QP, a message, a region. */
enum { TAG_OPS = 1, TAG_MSG, TAG_REGION, TAG_ATOMIC, TAG_MTU, TAG_PSN, TAG_RECV };
static uint64_t key3(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
	return mix64(mix64(mix64(seed ^ tag << 56) ^ a) ^ b);
}

/* The bytes of a payload or a region: a function of its key and the offset, 8 at a time. */
static void pattern(uint8_t *p, size_t len, uint64_t key)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = mix64(key + i / 8);
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

static uint64_t hash_bytes(const uint8_t *p, size_t len)
{
	uint64_t h = 0x243f6a8885a308d3ull, w;

	for (size_t i = 0; i < len; i += 8) {
		w = 0;
		memcpy(&w, p + i, len - i < 8 ? len - i : 8);
		h = mix64(h ^ w);
	}
	return h;
}

/* Sizes, each class with its share in 16: empty, tiny, the MTU edges (k x MTU - 1, k x MTU,
 * k x MTU + 1), up to 4 MTUs, up to 64 KiB, up to max. */
static uint32_t draw_len(uint64_t *r, uint32_t max, uint32_t mtu)
{
	uint64_t d = below(r, 16), len;

	if (d == 0)
		len = 0;
	else if (d < 3)
		len = 1 + below(r, 64);
	else if (d < 6)
		len = (1 + below(r, 4)) * mtu - 1 + below(r, 3);
	else if (d < 11)
		len = below(r, 4ull * mtu + 1);
	else if (d < 15)
		len = below(r, (64u << 10) + 1);
	else
		len = below(r, (uint64_t)max + 1);
	return len <= max ? (uint32_t)len : (uint32_t)below(r, (uint64_t)max + 1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- failures ---- */

static const char *g_role = "soak_verbs";
static uint64_t g_seed;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FAIL (seed 0x%" PRIx64 "): ", g_role, g_seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A mismatch: counted, and the first MAX_REPORTS described. */
static uint64_t g_mismatches;
static char g_first[256]; /* the first mismatch or error, for the server's report */

static void mismatch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mismatch(const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!g_first[0])
		snprintf(g_first, sizeof(g_first), "%s", what);
	if (g_mismatches++ < MAX_REPORTS)
		fprintf(stderr, "%s: MISMATCH (seed 0x%" PRIx64 "): %s\n", g_role, g_seed, what);
}

static void on_alarm(int sig)
{
	static const char msg[] = "soak_verbs: FAIL: timed out (the alarm of --timeout)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing left to tell */
	}
	_exit(1);
}

/* ---- layouts: a buffer's bytes in 1..PIECES SGEs with fill between them ---- */

struct layout {
	uint32_t n;
	uint32_t off[PIECES];
	uint32_t len[PIECES];
};

/* len bytes in 1..PIECES pieces (an empty buffer: no SGE or one empty one), each after
 * 0..GAP-1 bytes of fill, from offset 0 of a slot. */
static void layout_new(uint64_t *r, struct layout *l, uint32_t len)
{
	uint32_t cut[PIECES + 1], cursor = 0;

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
		cursor += (uint32_t)below(r, GAP);
		l->off[i] = cursor;
		l->len[i] = cut[i + 1] - cut[i];
		cursor += l->len[i];
	}
}

static uint32_t layout_end(const struct layout *l)
{
	return l->n ? l->off[l->n - 1] + l->len[l->n - 1] : 0;
}

static void scatter(uint8_t *slot, const struct layout *l, const uint8_t *data, uint32_t len)
{
	for (uint32_t i = 0; i < l->n && len; i++) {
		uint32_t c = len < l->len[i] ? len : l->len[i];
		memcpy(slot + l->off[i], data, c);
		data += c;
		len -= c;
	}
}

static int layout_sges(const struct layout *l, uint8_t *slot, uint32_t lkey, struct ibv_sge *sge)
{
	for (uint32_t i = 0; i < l->n; i++)
		sge[i] = (struct ibv_sge){.addr = (uintptr_t)(slot + l->off[i]),
					  .length = l->len[i], .lkey = lkey};
	return (int)l->n;
}

/* Compares a slot with what it must hold: data[0..len) through the pieces of l, FILL in the
 * gaps before each piece that holds some of it, and FILL in the GUARD bytes after its last
 * byte (a receive WQE's layout is longer than most messages). Returns the first offset that
 * differs, or -1; *end is where the checked bytes end. */
static long slot_check(const uint8_t *slot, const struct layout *l, const uint8_t *data,
		       uint32_t len, uint32_t *end)
{
	uint32_t pos = 0;

	for (uint32_t i = 0; i < l->n && len; i++) {
		for (; pos < l->off[i]; pos++)
			if (slot[pos] != FILL)
				return pos;
		uint32_t c = len < l->len[i] ? len : l->len[i];
		if (memcmp(slot + pos, data, c))
			for (uint32_t k = 0;; k++)
				if (slot[pos + k] != data[k])
					return (long)(pos + k);
		pos += c;
		data += c;
		len -= c;
	}
	*end = pos + GUARD;
	for (; pos < *end; pos++)
		if (slot[pos] != FILL)
			return pos;
	return -1;
}

/* ---- what the two sides tell each other ---- */

struct qp_wire {
	uint32_t qpn, psn;
	uint8_t gid[16];
};

/* Client to server: the run's parameters and the client's QPs. */
struct hello {
	uint64_t magic, seed;
	uint32_t timeout, nqp, depth, recv_depth, max_rdma, max_msg, srq;
	uint32_t active_mtu;          /* enum ibv_mtu: the client port's */
	uint32_t mtu_pick[MAX_QP];    /* each QP's path MTU before the ports' limits */
	struct qp_wire qp[MAX_QP];
};

/* Server to client, once its QPs are in RTS with their receives posted. */
struct welcome {
	uint64_t magic, addr;
	uint32_t rkey, active_mtu;
	struct qp_wire qp[MAX_QP];
};

/* Client to server at the end: how many messages each QP sent. */
struct end_msg {
	uint64_t magic;
	uint64_t msgs[MAX_QP];
};

/* Server to client: what it checked and found. */
struct report {
	uint64_t magic, msgs, bytes, mismatches, errors;
	uint64_t hash[MAX_QP]; /* of each QP's region and atomic words */
	char first[256];
};

static void send_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("TCP send: %s", n < 0 ? strerror(errno) : "closed");
		b += n;
		len -= (size_t)n;
	}
}

static void recv_all(int fd, void *p, size_t len)
{
	uint8_t *b = p;

	while (len) {
		ssize_t n = recv(fd, b, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("TCP receive: %s", n < 0 ? strerror(errno) : "the peer closed the connection");
		b += n;
		len -= (size_t)n;
	}
}

/* ---- the run: parameters, memory layout, verbs objects ---- */

/* The server's memory, the same for every QP: a block of the region and the atomic words
 * (what WRITE, READ and atomics reach, and what the client's image mirrors), the slots of
 * WRITE with immediate, and the receive slots. */
struct srv_layout {
	size_t region;      /* bytes of the region; the atomic words follow it */
	size_t blk;         /* region + atomic words */
	size_t imm;         /* offset of the WRITE-with-immediate slots */
	size_t imm_slot, imm_slots;
	size_t recv;        /* offset of the receive slots */
	size_t recv_slot;
	size_t per_qp, total;
};

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static void srv_layout_init(struct srv_layout *l, const struct hello *h)
{
	size_t max_imm = h->max_msg < MAX_IMM_LEN ? h->max_msg : MAX_IMM_LEN;

	l->region = align_up(2ull * h->max_rdma > (64u << 10) ? 2ull * h->max_rdma : 64u << 10,
			     4096);
	l->blk = l->region + 8 * NATOMIC;
	l->imm = align_up(l->blk, 4096);
	/* The k-th WRITE with immediate of a QP lands in slot k % imm_slots. The server checks
	 * message k before it posts the receive WQE again, and message k + imm_slots can only
	 * be executed after the imm_slots - 1 messages before it have each taken a receive WQE:
	 * with more slots than WQEs a QP can take, none is written before it was checked. */
	l->imm_slots = (size_t)h->recv_depth * (h->srq ? h->nqp : 1) + 2;
	l->imm_slot = align_up(max_imm + IMM_OFF + GUARD, 64);
	l->recv = align_up(l->imm + l->imm_slots * l->imm_slot, 4096);
	l->recv_slot = align_up((size_t)h->max_msg + PIECES * GAP + GUARD, 64);
	l->per_qp = align_up(l->recv + h->recv_depth * l->recv_slot, 4096);
	l->total = l->per_qp * h->nqp;
}

static uint32_t mtu_bytes(enum ibv_mtu m) { return 128u << m; }

/* The k-th message of QP q: both sides derive it. */
struct msg_plan {
	enum op_kind kind;
	uint32_t len, imm, off;
	uint64_t key;
};

static void msg_plan(const struct hello *h, uint32_t q, uint64_t k, uint32_t mtu,
		     struct msg_plan *m)
{
	uint64_t r = key3(h->seed, TAG_MSG, q, k);
	uint64_t d = below(&r, 10);

	m->kind = d < 4 ? OP_SEND : d < 7 ? OP_SEND_IMM : OP_WRITE_IMM;
	m->len = draw_len(&r, m->kind == OP_WRITE_IMM && h->max_msg > MAX_IMM_LEN ? MAX_IMM_LEN
									    : h->max_msg, mtu);
	m->imm = (uint32_t)rnd(&r);
	m->off = (uint32_t)below(&r, IMM_OFF);
	m->key = rnd(&r);
}

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	struct ibv_port_attr port;
	union ibv_gid gid;
	uint32_t inline_max;
	struct ibv_qp *qp[MAX_QP];
	uint32_t psn[MAX_QP];
	enum ibv_mtu mtu[MAX_QP]; /* each QP's path MTU */
};

static void dev_open(struct dev *d, int gid_index, size_t len, bool channel, int cqe)
{
	struct ibv_device **list;
	int n;

	if (!(list = ibv_get_device_list(&n)) || n < 1)
		die("no RDMA device (ibv_get_device_list)");
	d->ctx = ibv_open_device(list[0]);
	n = errno;
	ibv_free_device_list(list);
	if (!d->ctx)
		die("ibv_open_device: %s", strerror(n));
	if ((n = ibv_query_port(d->ctx, 1, &d->port)))
		die("ibv_query_port: %s", strerror(n));
	if ((n = ibv_query_gid(d->ctx, 1, gid_index, &d->gid)))
		die("ibv_query_gid(%d): %s", gid_index, strerror(n));
	if (!(d->pd = ibv_alloc_pd(d->ctx)))
		die("ibv_alloc_pd: %s", strerror(errno));
	if (channel && !(d->chan = ibv_create_comp_channel(d->ctx)))
		die("ibv_create_comp_channel: %s", strerror(errno));
	if (!(d->cq = ibv_create_cq(d->ctx, cqe, NULL, d->chan, 0)))
		die("ibv_create_cq(%d): %s", cqe, strerror(errno));
	d->len = len;
	if (!(d->buf = aligned_alloc(4096, align_up(len, 4096))))
		die("out of memory (%zu bytes)", len);
	memset(d->buf, FILL, len);
	d->mr = ibv_reg_mr(d->pd, d->buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!d->mr)
		die("ibv_reg_mr(%zu bytes): %s", len, strerror(errno));
}

static void dev_create_qps(struct dev *d, uint32_t nqp, uint32_t send_wr, uint32_t recv_wr,
			   uint64_t seed, uint32_t side)
{
	for (uint32_t q = 0; q < nqp; q++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = d->cq,
			.recv_cq = d->cq,
			.srq = d->srq,
			.qp_type = IBV_QPT_RC,
			.cap = {.max_send_wr = send_wr, .max_recv_wr = d->srq ? 0 : recv_wr,
				.max_send_sge = PIECES, .max_recv_sge = PIECES,
				.max_inline_data = INLINE_WANT},
		};
		/* A device without inline data gets a second try without. */
		if (!(d->qp[q] = ibv_create_qp(d->pd, &qa)) && errno == EINVAL) {
			qa.cap.max_inline_data = 0;
			d->qp[q] = ibv_create_qp(d->pd, &qa);
		}
		if (!d->qp[q])
			die("ibv_create_qp: %s%s", strerror(errno),
			    errno == EADDRINUSE ? " (another process uses this address)" : "");
		d->inline_max = qa.cap.max_inline_data;
		d->psn[q] = (uint32_t)key3(seed, TAG_PSN, side, q) & 0xffffff;
	}
}

static void qp_wire_fill(const struct dev *d, uint32_t nqp, struct qp_wire *w)
{
	for (uint32_t q = 0; q < nqp; q++) {
		w[q].qpn = d->qp[q]->qp_num;
		w[q].psn = d->psn[q];
		memcpy(w[q].gid, d->gid.raw, 16);
	}
}

static void qp_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					      IBV_QP_ACCESS_FLAGS);
	if (e)
		die("ibv_modify_qp(INIT): %s", strerror(e));
}

/* RTR towards the peer's QP, then RTS. */
static void qp_connect(struct ibv_qp *qp, enum ibv_mtu mtu, const struct qp_wire *peer,
		       uint32_t psn, int gid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = RD_ATOM,
		.min_rnr_timer = QP_RNR_TIMER,
		.ah_attr = {.is_global = 1, .port_num = 1,
			    .grh = {.sgid_index = (uint8_t)gid_index, .hop_limit = 64}},
	};
	int e;

	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
	if ((e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		die("ibv_modify_qp(RTR): %s", strerror(e));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = QP_TIMEOUT;
	a.retry_cnt = QP_RETRY;
	a.rnr_retry = QP_RNR_RETRY;
	a.sq_psn = psn;
	a.max_rd_atomic = RD_ATOM;
	if ((e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					       IBV_QP_MAX_QP_RD_ATOMIC)))
		die("ibv_modify_qp(RTS): %s", strerror(e));
}

static void path_mtus(struct dev *d, const struct hello *h, uint32_t other_active)
{
	uint32_t lim = h->active_mtu < other_active ? h->active_mtu : other_active;

	if (d->port.active_mtu < lim)
		lim = d->port.active_mtu;
	for (uint32_t q = 0; q < h->nqp; q++)
		d->mtu[q] = (enum ibv_mtu)(h->mtu_pick[q] < lim ? h->mtu_pick[q] : lim);
}

/* The initial contents of QP q's block: the region from the seed, then the atomic words. */
static void blk_init(uint8_t *p, const struct srv_layout *l, uint64_t seed, uint32_t q)
{
	pattern(p, l->region, key3(seed, TAG_REGION, q, 0));
	pattern(p + l->region, 8 * NATOMIC, key3(seed, TAG_ATOMIC, q, 0));
}

static void dev_close(struct dev *d, uint32_t nqp)
{
	for (uint32_t q = 0; q < nqp; q++)
		if (d->qp[q] && ibv_destroy_qp(d->qp[q]))
			die("ibv_destroy_qp failed");
	if (d->srq && ibv_destroy_srq(d->srq))
		die("ibv_destroy_srq failed");
	if (ibv_dereg_mr(d->mr) || ibv_destroy_cq(d->cq) ||
	    (d->chan && ibv_destroy_comp_channel(d->chan)) || ibv_dealloc_pd(d->pd) ||
	    ibv_close_device(d->ctx))
		die("tearing down the verbs objects failed");
	free(d->buf);
}

static const char *wc_opcode_name(enum ibv_wc_opcode op)
{
	for (int k = 0; k < OP_NKINDS; k++)
		if (op_table[k].wc == op)
			return op_table[k].name;
	return op == IBV_WC_RECV ? "RECV" : op == IBV_WC_RECV_RDMA_WITH_IMM ? "RECV_RDMA_WITH_IMM"
									     : "?";
}

/* ---- the server: receives and checks messages; the passive side of everything else ---- */

struct srv_slot {
	struct layout l;
	bool posted;
};

struct server {
	struct hello h;
	struct srv_layout lay;
	struct dev d;
	struct srv_slot *slot; /* nqp x recv_depth receive slots, q * recv_depth + i */
	uint64_t rng;          /* the receive WQEs' SGE splits */
	uint64_t msgs[MAX_QP], total_msgs, bytes, errors;
	uint8_t *expect;       /* a message's bytes */
};

static void srv_error(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void srv_error(struct server *s, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!g_first[0])
		snprintf(g_first, sizeof(g_first), "%s", what);
	if (s->errors++ < MAX_REPORTS)
		fprintf(stderr, "server: ERROR (seed 0x%" PRIx64 "): %s\n", g_seed, what);
}

static uint8_t *srv_recv_slot(struct server *s, uint32_t id)
{
	uint32_t q = id / s->h.recv_depth, i = id % s->h.recv_depth;

	return s->d.buf + q * s->lay.per_qp + s->lay.recv + i * s->lay.recv_slot;
}

/* Posts receive slot id (all FILL) with a new random split into SGEs. */
static void srv_post_recv(struct server *s, uint32_t id)
{
	struct srv_slot *sl = &s->slot[id];
	struct ibv_sge sge[PIECES];
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = sge}, *bad;
	int e;

	layout_new(&s->rng, &sl->l, s->h.max_msg);
	wr.num_sge = layout_sges(&sl->l, srv_recv_slot(s, id), s->d.mr->lkey, sge);
	e = s->d.srq ? ibv_post_srq_recv(s->d.srq, &wr, &bad)
		     : ibv_post_recv(s->d.qp[id / s->h.recv_depth], &wr, &bad);
	if (e)
		die("ibv_post_recv: %s", strerror(e));
	sl->posted = true;
}

static int srv_qp_index(const struct server *s, uint32_t qpn)
{
	for (uint32_t q = 0; q < s->h.nqp; q++)
		if (s->d.qp[q]->qp_num == qpn)
			return (int)q;
	return -1;
}

/* One receive completion: the next message of its QP. */
static void srv_on_wc(struct server *s, const struct ibv_wc *wc)
{
	int qi = srv_qp_index(s, wc->qp_num);
	uint32_t id = (uint32_t)wc->wr_id, q, end;
	struct msg_plan m;
	uint8_t *slot;
	long bad;

	if (wc->status != IBV_WC_SUCCESS)
		die("receive completion wr_id %" PRIu64 " on QP 0x%x: status %s (%d)", wc->wr_id,
		    wc->qp_num, ibv_wc_status_str(wc->status), wc->status);
	if (qi < 0 || id >= s->h.nqp * s->h.recv_depth || !s->slot[id].posted ||
	    (wc->opcode != IBV_WC_RECV && wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM))
		die("unexpected completion: QP 0x%x, wr_id %" PRIu64 ", opcode %s (%d)", wc->qp_num,
		    wc->wr_id, wc_opcode_name(wc->opcode), wc->opcode);
	q = (uint32_t)qi;
	/* Without an SRQ each QP's receive queue completes in the order it was posted. */
	if (!s->d.srq && id != q * s->h.recv_depth + s->msgs[q] % s->h.recv_depth)
		srv_error(s, "QP %u message %" PRIu64 ": completed receive slot %u, expected %" PRIu64,
			  q, s->msgs[q], id, q * s->h.recv_depth + s->msgs[q] % s->h.recv_depth);
	s->slot[id].posted = false;
	msg_plan(&s->h, q, s->msgs[q], mtu_bytes(s->d.mtu[q]), &m);
	bool want_imm = m.kind != OP_SEND, has_imm = wc->wc_flags & IBV_WC_WITH_IMM;
	enum ibv_wc_opcode want_op = m.kind == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM
							    : IBV_WC_RECV;
	if (wc->opcode != want_op || has_imm != want_imm ||
	    (want_imm && ntohl(wc->imm_data) != m.imm) || wc->byte_len != m.len) {
		mismatch("QP %u message %" PRIu64 " (%s, %u bytes, imm 0x%08x): completion has "
			 "opcode %s, %s immediate 0x%08x, byte_len %u",
			 q, s->msgs[q], op_table[m.kind].name, m.len, m.imm,
			 wc_opcode_name(wc->opcode), has_imm ? "an" : "no",
			 has_imm ? ntohl(wc->imm_data) : 0, wc->byte_len);
	} else {
		pattern(s->expect, m.len, m.key);
		if (m.kind == OP_WRITE_IMM) {
			struct layout l = {.n = 1, .off = {m.off}, .len = {m.len}};
			slot = s->d.buf + q * s->lay.per_qp + s->lay.imm +
			       (s->msgs[q] % s->lay.imm_slots) * s->lay.imm_slot;
			bad = slot_check(slot, &l, s->expect, m.len, &end);
			if (bad < 0)
				memset(slot, FILL, end);
		} else {
			slot = srv_recv_slot(s, id);
			bad = slot_check(slot, &s->slot[id].l, s->expect, m.len, &end);
		}
		if (bad >= 0)
			mismatch("QP %u message %" PRIu64 " (%s, %u bytes): byte %ld of its slot is "
				 "0x%02x", q, s->msgs[q], op_table[m.kind].name, m.len, bad,
				 slot[bad]);
		else
			s->bytes += m.len;
	}
	/* The receive slot is all FILL again (a mismatch leaves it as found: later checks may
	 * report it again, which is fine for a run that has failed). */
	memset(srv_recv_slot(s, id), FILL, layout_end(&s->slot[id].l) + GUARD);
	s->msgs[q]++;
	s->total_msgs++;
	srv_post_recv(s, id);
}

static int tcp_listen(const char *bind_addr, const char *port)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE}, *ai;
	int fd, one = 1, e;

	if ((e = getaddrinfo(bind_addr, port, &hints, &ai)))
		die("address %s port %s: %s", bind_addr ? bind_addr : "*", port, gai_strerror(e));
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
		die("TCP listen on port %s: %s", port, strerror(errno));
	freeaddrinfo(ai);
	return fd;
}

static int run_server(const char *bind_addr, const char *port, int gid_index, unsigned timeout)
{
	struct server s;
	struct welcome w = {.magic = MAGIC};
	struct end_msg end = {.magic = 0};
	struct report rep = {.magic = MAGIC};
	int lfd, fd, one = 1, e;
	bool ended = false;

	memset(&s, 0, sizeof(s));
	g_role = "server";
	alarm(timeout); /* until the client says how long the run may take */
	lfd = tcp_listen(bind_addr, port);
	printf("server: listening on TCP port %s\n", port);
	fflush(stdout);
	if ((fd = accept(lfd, NULL, NULL)) < 0)
		die("accept: %s", strerror(errno));
	close(lfd);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	recv_all(fd, &s.h, sizeof(s.h));
	if (s.h.magic != MAGIC || !s.h.nqp || s.h.nqp > MAX_QP || !s.h.recv_depth ||
	    s.h.recv_depth > 1024 || s.h.max_msg > (64u << 20) || s.h.max_rdma > (64u << 20))
		die("the client sent a hello this server does not understand");
	g_seed = s.h.seed;
	alarm(s.h.timeout + 30);
	srv_layout_init(&s.lay, &s.h);

	uint32_t nslots = s.h.nqp * s.h.recv_depth;
	dev_open(&s.d, gid_index, s.lay.total, true, (int)(2 * nslots + 16));
	if (s.h.srq) {
		struct ibv_srq_init_attr sa = {.attr = {.max_wr = nslots, .max_sge = PIECES}};
		if (!(s.d.srq = ibv_create_srq(s.d.pd, &sa)))
			die("ibv_create_srq: %s", strerror(errno));
	}
	dev_create_qps(&s.d, s.h.nqp, 1, s.h.recv_depth, s.h.seed, 1);
	path_mtus(&s.d, &s.h, s.h.active_mtu);
	for (uint32_t q = 0; q < s.h.nqp; q++)
		blk_init(s.d.buf + q * s.lay.per_qp, &s.lay, s.h.seed, q);
	if (!(s.slot = calloc(nslots, sizeof(*s.slot))) || !(s.expect = malloc(s.h.max_msg + 8)))
		die("out of memory");
	s.rng = key3(s.h.seed, TAG_RECV, 0, 0);
	/* Receives are posted, and the QPs ready to receive, before the client may send. */
	for (uint32_t q = 0; q < s.h.nqp; q++)
		qp_init(s.d.qp[q]);
	for (uint32_t id = 0; id < nslots; id++)
		srv_post_recv(&s, id);
	for (uint32_t q = 0; q < s.h.nqp; q++)
		qp_connect(s.d.qp[q], s.d.mtu[q], &s.h.qp[q], s.d.psn[q], gid_index);
	if ((e = ibv_req_notify_cq(s.d.cq, 0)))
		die("ibv_req_notify_cq: %s", strerror(e));
	w.addr = (uintptr_t)s.d.buf;
	w.rkey = s.d.mr->rkey;
	w.active_mtu = s.d.port.active_mtu;
	qp_wire_fill(&s.d, s.h.nqp, w.qp);
	send_all(fd, &w, sizeof(w));

	/* Completions arrive through the channel: the server sleeps while the progress thread
	 * answers WRITEs, READs and atomics on its own. Events are re-armed before the queue is
	 * drained, so none is missed. */
	double deadline = 0;
	for (;;) {
		struct ibv_wc wc[32];
		int n;
		while ((n = ibv_poll_cq(s.d.cq, 32, wc)) > 0) {
			for (int i = 0; i < n; i++)
				srv_on_wc(&s, &wc[i]);
		}
		if (n < 0)
			die("ibv_poll_cq failed");
		if (ended) {
			bool all = true;
			for (uint32_t q = 0; q < s.h.nqp; q++) {
				if (s.msgs[q] > end.msgs[q])
					die("QP %u: %" PRIu64 " messages received, the client sent %" PRIu64,
					    q, s.msgs[q], end.msgs[q]);
				all &= s.msgs[q] == end.msgs[q];
			}
			if (all)
				break;
			if (now_s() > deadline)
				die("the client's last messages never completed here");
		}
		struct pollfd pf[2] = {{.fd = s.d.chan->fd, .events = POLLIN},
				       {.fd = fd, .events = POLLIN}};
		if (poll(pf, ended ? 1 : 2, 1000) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (pf[0].revents & POLLIN) {
			struct ibv_cq *cq;
			void *ctx;
			if (ibv_get_cq_event(s.d.chan, &cq, &ctx))
				die("ibv_get_cq_event failed");
			ibv_ack_cq_events(cq, 1);
			if ((e = ibv_req_notify_cq(s.d.cq, 0)))
				die("ibv_req_notify_cq: %s", strerror(e));
		}
		if (!ended && (pf[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			recv_all(fd, &end, sizeof(end));
			if (end.magic != MAGIC)
				die("the client's end message is garbled");
			ended = true;
			deadline = now_s() + STALL_S;
		}
	}

	rep.msgs = s.total_msgs;
	rep.bytes = s.bytes;
	rep.mismatches = g_mismatches;
	rep.errors = s.errors;
	for (uint32_t q = 0; q < s.h.nqp; q++)
		rep.hash[q] = hash_bytes(s.d.buf + q * s.lay.per_qp, s.lay.blk);
	memcpy(rep.first, g_first, sizeof(rep.first));
	send_all(fd, &rep, sizeof(rep));
	printf("server: %" PRIu64 " messages checked (%" PRIu64 " bytes), %" PRIu64
	       " mismatches, %" PRIu64 " errors\n", rep.msgs, rep.bytes, rep.mismatches, rep.errors);
	/* The client closes first: its close tells us it has the report. */
	char c;
	if (recv(fd, &c, 1, 0) > 0)
		die("the client sent more than expected");
	close(fd);
	dev_close(&s.d, s.h.nqp);
	free(s.slot);
	free(s.expect);
	return rep.mismatches || rep.errors ? 1 : 0;
}

/* ---- the client: posts the random stream and checks what comes back ---- */

struct op {
	uint64_t idx;        /* in its QP's stream */
	enum op_kind kind;
	bool signaled;
	uint32_t len;
	uint64_t roff;       /* WRITE, READ, atomics: offset in the QP's block */
	uint64_t orig;       /* atomics: the value the word must have held */
	uint64_t msg;        /* messages: their number */
	struct layout l;     /* its SGEs in its slot */
	struct ibv_sge sge[PIECES];
	struct ibv_send_wr wr;
};

struct cqp {
	uint32_t q;
	struct ibv_qp *qp;
	uint64_t rng;        /* the QP's stream */
	uint64_t next_idx, msgs;
	struct op *ring;     /* depth ops in flight, oldest at head; ring position = slot */
	uint32_t head, count;
	uint8_t *slots;      /* depth slots in the registered memory */
	uint8_t *expect;     /* READs: what the block held when each was posted, per slot */
	uint8_t *img;        /* the QP's block as it must be */
	uint64_t remote;     /* the block's address at the server */
	uint32_t mtu;
	bool last_signaled;  /* the last request posted was signaled */
	uint64_t verify_at;  /* the read-back: the next offset */
	bool verifying;
};

struct stats {
	uint64_t ops, by_kind[OP_NKINDS], payload, checked_reads, checked_atomics, checked_final;
	uint64_t readbacks, unsignaled, fenced, inlined, chains, completions;
};

struct client {
	struct hello h;
	struct srv_layout lay;
	struct dev d;
	struct cqp qp[MAX_QP];
	uint32_t rkey;
	size_t slot_len;
	uint8_t *scratch;
	struct stats st;
	uint64_t max_ops;    /* per QP */
	uint64_t chain_rng;
	double seconds;
};

static uint8_t *cli_slot(struct cqp *p, size_t slot_len, uint32_t pos)
{
	return p->slots + pos * slot_len;
}

/* Some READ outstanding on this QP reads [off, off + len). */
static bool read_outstanding(const struct cqp *p, uint32_t depth, uint64_t off, uint64_t len)
{
	for (uint32_t i = 0; i < p->count; i++) {
		const struct op *o = &p->ring[(p->head + i) % depth];
		if (o->kind == OP_READ && off < o->roff + o->len && o->roff < off + len)
			return true;
	}
	return false;
}

/* Plans the next request of QP p into ring position pos and fills its slot. verify: the
 * read-back at the end, a READ of the next piece of the block. */
static struct op *cli_plan(struct client *c, struct cqp *p, bool force_signal, bool verify)
{
	uint32_t depth = c->h.depth, pos = (p->head + p->count) % depth;
	struct op *o = &p->ring[pos];
	uint8_t *slot = cli_slot(p, c->slot_len, pos);
	uint64_t *r = &p->rng, d;
	struct msg_plan m = {.kind = OP_SEND};

	memset(o, 0, sizeof(*o));
	o->idx = p->next_idx++;
	if (verify) {
		o->kind = OP_READ;
		o->roff = p->verify_at;
		o->len = (uint32_t)(c->lay.blk - o->roff < c->h.max_rdma ? c->lay.blk - o->roff
									 : c->h.max_rdma);
		p->verify_at += o->len;
	} else if ((d = below(r, 100)) < 25) {
		o->kind = OP_WRITE;
	} else if (d < 50) {
		o->kind = OP_READ;
	} else if (d < 80) {
		msg_plan(&c->h, p->q, p->msgs, p->mtu, &m);
		o->kind = m.kind;
		o->msg = p->msgs++;
	} else {
		o->kind = d < 90 ? OP_FETCH_ADD : OP_CMP_SWAP;
	}

	struct ibv_send_wr *wr = &o->wr;
	wr->wr_id = (uint64_t)p->q << 48 | o->idx;
	wr->opcode = op_table[o->kind].wr;
	wr->sg_list = o->sge;
	/* Drawn whether or not it is forced (forcing depends on timing), so that the stream
	 * stays the same. */
	bool unsignaled = one_in(r, 8);
	o->signaled = force_signal || verify || !unsignaled;
	if (o->signaled)
		wr->send_flags |= IBV_SEND_SIGNALED;
	if (!verify && one_in(r, 16))
		wr->send_flags |= IBV_SEND_FENCE;

	switch (o->kind) {
	case OP_WRITE:
	case OP_READ:
		if (!verify) {
			o->len = draw_len(r, c->h.max_rdma, p->mtu);
			/* One READ in sixteen reads the atomic words. */
			if (o->kind == OP_READ && one_in(r, 16)) {
				o->roff = c->lay.region;
				o->len = 8 * NATOMIC;
			} else {
				o->roff = below(r, c->lay.region - o->len + 1);
			}
		}
		wr->wr.rdma.remote_addr = p->remote + o->roff;
		wr->wr.rdma.rkey = c->rkey;
		layout_new(r, &o->l, o->len);
		memset(slot, FILL, layout_end(&o->l) + GUARD);
		if (o->kind == OP_READ) {
			memcpy(p->expect + (size_t)pos * c->h.max_rdma, p->img + o->roff, o->len);
		} else {
			pattern(c->scratch, o->len, key3(c->h.seed, TAG_OPS, p->q, o->idx));
			scatter(slot, &o->l, c->scratch, o->len);
			if (read_outstanding(p, depth, o->roff, o->len))
				wr->send_flags |= IBV_SEND_FENCE;
			memcpy(p->img + o->roff, c->scratch, o->len);
		}
		break;
	case OP_SEND:
	case OP_SEND_IMM:
	case OP_WRITE_IMM:
		o->len = m.len;
		layout_new(r, &o->l, o->len);
		memset(slot, FILL, layout_end(&o->l) + GUARD);
		pattern(c->scratch, m.len, m.key);
		scatter(slot, &o->l, c->scratch, m.len);
		wr->imm_data = htonl(m.imm);
		if (o->kind == OP_WRITE_IMM) {
			wr->wr.rdma.remote_addr = p->remote + c->lay.imm +
						  (o->msg % c->lay.imm_slots) * c->lay.imm_slot + m.off;
			wr->wr.rdma.rkey = c->rkey;
		}
		break;
	case OP_FETCH_ADD:
	case OP_CMP_SWAP: {
		uint64_t w = below(r, NATOMIC), cur, arg = rnd(r);
		o->roff = c->lay.region + 8 * w;
		o->len = 8;
		memcpy(&cur, p->img + o->roff, 8);
		o->orig = cur;
		wr->wr.atomic.remote_addr = p->remote + o->roff;
		wr->wr.atomic.rkey = c->rkey;
		if (o->kind == OP_FETCH_ADD) {
			wr->wr.atomic.compare_add = arg;
			cur += arg;
		} else {
			/* Half the compares match, so that swaps happen. */
			wr->wr.atomic.compare_add = one_in(r, 2) ? cur : rnd(r);
			wr->wr.atomic.swap = arg;
			if (wr->wr.atomic.compare_add == cur)
				cur = arg;
		}
		memcpy(p->img + o->roff, &cur, 8);
		if (read_outstanding(p, depth, o->roff, 8))
			wr->send_flags |= IBV_SEND_FENCE;
		/* The original value lands in one 8-byte aligned SGE. */
		o->l = (struct layout){.n = 1, .off = {8 * (uint32_t)below(r, GAP / 8)}, .len = {8}};
		memset(slot, FILL, layout_end(&o->l) + GUARD);
		break;
	}
	case OP_NKINDS:
		break;
	}
	wr->num_sge = layout_sges(&o->l, slot, c->d.mr->lkey, o->sge);
	if (!is_atomic(o->kind) && o->kind != OP_READ && o->len <= c->d.inline_max &&
	    one_in(r, 4)) {
		wr->send_flags |= IBV_SEND_INLINE;
		c->st.inlined++;
	}
	if (wr->send_flags & IBV_SEND_FENCE)
		c->st.fenced++;
	if (!o->signaled)
		c->st.unsignaled++;
	if (verify) {
		c->st.readbacks++;
	} else {
		c->st.ops++;
		c->st.by_kind[o->kind]++;
		c->st.payload += o->len;
	}
	p->count++;
	p->last_signaled = o->signaled;
	return o;
}

/* Posts up to n requests on QP p (1 to 4 in one chain). A request is signaled when the ring
 * would be full otherwise, when it is the last of the QP's share, or the last of the chain
 * with last set. */
static void cli_post(struct client *c, struct cqp *p, uint32_t n, bool last, bool verify)
{
	struct ibv_send_wr *first = NULL, *prev = NULL, *bad;
	/* Chains depend on the room, which depends on timing: their own stream. */
	uint32_t k = n > 1 ? 1 + (uint32_t)below(&c->chain_rng, n < 4 ? n : 4) : n;
	int e;

	for (uint32_t i = 0; i < k; i++) {
		bool force = p->count + 1 == c->h.depth || (last && i + 1 == k) ||
			     (c->max_ops && p->next_idx + 1 == c->max_ops);
		struct op *o = cli_plan(c, p, force, verify);
		if (prev)
			prev->next = &o->wr;
		else
			first = &o->wr;
		prev = &o->wr;
	}
	if (k > 1)
		c->st.chains++;
	if ((e = ibv_post_send(p->qp, first, &bad)))
		die("ibv_post_send on QP %u: %s", p->q, strerror(e));
}

/* The oldest request of QP p is complete: check what it brought back. */
static void cli_retire(struct client *c, struct cqp *p)
{
	uint32_t pos = p->head, end;
	struct op *o = &p->ring[pos];
	uint8_t *slot = cli_slot(p, c->slot_len, pos);
	long bad = -1;

	if (o->kind == OP_READ) {
		bad = slot_check(slot, &o->l, p->expect + (size_t)pos * c->h.max_rdma, o->len, &end);
		if (bad >= 0)
			mismatch("QP %u op %" PRIu64 " READ of %u bytes at block offset %" PRIu64
				 " (%u SGEs): byte %ld of its buffer is 0x%02x", p->q, o->idx,
				 o->len, o->roff, o->l.n, bad, slot[bad]);
		else if (p->verifying)
			c->st.checked_final += o->len;
		else
			c->st.checked_reads += o->len;
	} else if (is_atomic(o->kind)) {
		uint8_t want[8];
		uint64_t got;
		memcpy(want, &o->orig, 8);
		bad = slot_check(slot, &o->l, want, 8, &end);
		memcpy(&got, slot + o->l.off[0], 8);
		if (bad >= 0)
			mismatch("QP %u op %" PRIu64 " %s on word %" PRIu64 ": returned 0x%016" PRIx64
				 ", the word held 0x%016" PRIx64 " (or fill around it changed)",
				 p->q, o->idx, op_table[o->kind].name, (o->roff - c->lay.region) / 8,
				 got, o->orig);
		else
			c->st.checked_atomics += 8;
	}
	p->head = (p->head + 1) % c->h.depth;
	p->count--;
}

static void cli_on_wc(struct client *c, const struct ibv_wc *wc)
{
	uint32_t q = (uint32_t)(wc->wr_id >> 48);
	uint64_t idx = wc->wr_id & ((1ull << 48) - 1);
	struct cqp *p;

	if (q >= c->h.nqp || c->qp[q].qp->qp_num != wc->qp_num)
		die("a completion for an unknown request: wr_id 0x%" PRIx64 ", QP 0x%x", wc->wr_id,
		    wc->qp_num);
	p = &c->qp[q];
	if (wc->status != IBV_WC_SUCCESS) {
		const struct op *o = p->count ? &p->ring[p->head] : NULL;
		die("QP %u op %" PRIu64 ": status %s (%d), vendor_err 0x%x; oldest outstanding: "
		    "op %" PRIu64 " %s of %u bytes", q, idx, ibv_wc_status_str(wc->status),
		    wc->status, wc->vendor_err, o ? o->idx : 0, o ? op_table[o->kind].name : "-",
		    o ? o->len : 0);
	}
	/* A completion covers the unsignaled requests before it; the requests it covers must
	 * all be unsignaled, and it must come for one in flight. */
	for (;;) {
		if (!p->count)
			die("QP %u: a completion for op %" PRIu64 ", which is not in flight", q, idx);
		struct op *o = &p->ring[p->head];
		if (o->idx == idx) {
			if (!o->signaled)
				die("QP %u op %" PRIu64 " was unsignaled but completed", q, idx);
			if (wc->opcode != op_table[o->kind].wc)
				mismatch("QP %u op %" PRIu64 " %s: completion opcode %s (%d)", q, idx,
					 op_table[o->kind].name, wc_opcode_name(wc->opcode),
					 wc->opcode);
			c->st.completions++;
			cli_retire(c, p);
			return;
		}
		if (o->signaled)
			die("QP %u: completion for op %" PRIu64 " before signaled op %" PRIu64
			    " (%s): out of order or missing", q, idx, o->idx, op_table[o->kind].name);
		cli_retire(c, p);
	}
}

/* Polls until every QP's ring has room or is empty; runs the stall guard. */
static int cli_poll(struct client *c, double *last)
{
	struct ibv_wc wc[32];
	int n = ibv_poll_cq(c->d.cq, 32, wc);

	if (n < 0)
		die("ibv_poll_cq failed");
	for (int i = 0; i < n; i++)
		cli_on_wc(c, &wc[i]);
	if (n)
		*last = now_s();
	return n;
}

static void cli_stall(struct client *c, double last)
{
	if (now_s() - last < STALL_S)
		return;
	for (uint32_t q = 0; q < c->h.nqp; q++) {
		struct cqp *p = &c->qp[q];
		if (p->count) {
			const struct op *o = &p->ring[p->head];
			fprintf(stderr, "client: QP %u (0x%x): %u in flight, oldest op %" PRIu64
				" %s of %u bytes\n", q, p->qp->qp_num, p->count, o->idx,
				op_table[o->kind].name, o->len);
		}
	}
	die("no completion for %.0f s", STALL_S);
}

static int tcp_connect(const char *host, const char *port, double wait_s)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai, *a;
	double until = now_s() + wait_s;
	int fd, e, one = 1;

	if ((e = getaddrinfo(host, port, &hints, &ai)))
		die("%s port %s: %s", host, port, gai_strerror(e));
	/* The server may still be opening its device: try again for a while. */
	for (;;) {
		for (a = ai; a; a = a->ai_next) {
			if ((fd = socket(a->ai_family, SOCK_STREAM, 0)) < 0)
				continue;
			if (!connect(fd, a->ai_addr, a->ai_addrlen)) {
				freeaddrinfo(ai);
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				return fd;
			}
			close(fd);
		}
		if (now_s() > until)
			die("cannot connect to %s port %s: %s", host, port, strerror(errno));
		usleep(100000);
	}
}

struct client_opts {
	uint64_t seed, ops;
	double seconds, progress;
	unsigned timeout;
	uint32_t nqp, depth, recv_depth, max_rdma, max_msg;
	bool srq;
};

static int run_client(const char *host, const char *port, int gid_index,
		      const struct client_opts *co)
{
	struct client *c = calloc(1, sizeof(*c));
	struct welcome w;
	struct end_msg end = {.magic = MAGIC};
	struct report rep;
	uint32_t depth = co->depth;
	int fd;

	if (!c)
		die("out of memory");
	g_role = "client";
	g_seed = co->seed;
	alarm(co->timeout);
	c->h = (struct hello){.magic = MAGIC, .seed = co->seed, .timeout = co->timeout,
			      .nqp = co->nqp, .depth = depth, .recv_depth = co->recv_depth,
			      .max_rdma = co->max_rdma, .max_msg = co->max_msg, .srq = co->srq};
	/* Each QP runs its share of the operations: its stream is then the same in every run of
	 * a seed, whatever the timing. */
	c->max_ops = co->ops ? (co->ops + co->nqp - 1) / co->nqp : 0;
	c->chain_rng = key3(co->seed, TAG_OPS, MAX_QP, 0);
	c->seconds = co->seconds;
	srv_layout_init(&c->lay, &c->h);
	/* Each slot holds the largest READ or WRITE with its gaps and guard, or an atomic's
	 * result; messages are no longer than that (max_msg <= max_rdma, checked by main). */
	c->slot_len = align_up((size_t)co->max_rdma + PIECES * GAP + GUARD, 64);
	dev_open(&c->d, gid_index, c->slot_len * depth * co->nqp, false,
		 (int)(co->nqp * depth + 16));
	dev_create_qps(&c->d, co->nqp, depth, 1, co->seed, 0);
	c->h.active_mtu = c->d.port.active_mtu;
	for (uint32_t q = 0; q < co->nqp; q++) {
		/* Path MTUs from 256 to 4096 over the QPs, as the ports allow. */
		uint64_t r = key3(co->seed, TAG_MTU, q, 0);
		c->h.mtu_pick[q] = (uint32_t)(IBV_MTU_256 + below(&r, 5));
		qp_init(c->d.qp[q]);
	}
	qp_wire_fill(&c->d, co->nqp, c->h.qp);
	if (!(c->scratch = malloc(co->max_rdma + 8)))
		die("out of memory");

	fd = tcp_connect(host, port, 30);
	send_all(fd, &c->h, sizeof(c->h));
	recv_all(fd, &w, sizeof(w));
	if (w.magic != MAGIC)
		die("the server's welcome is garbled");
	c->rkey = w.rkey;
	path_mtus(&c->d, &c->h, w.active_mtu);
	for (uint32_t q = 0; q < co->nqp; q++) {
		struct cqp *p = &c->qp[q];
		p->q = q;
		p->qp = c->d.qp[q];
		p->rng = key3(co->seed, TAG_OPS, q, UINT64_MAX);
		p->mtu = mtu_bytes(c->d.mtu[q]);
		p->remote = w.addr + q * c->lay.per_qp;
		p->slots = c->d.buf + (size_t)q * depth * c->slot_len;
		p->ring = calloc(depth, sizeof(*p->ring));
		p->expect = malloc((size_t)depth * co->max_rdma);
		p->img = malloc(c->lay.blk);
		if (!p->ring || !p->expect || !p->img)
			die("out of memory");
		blk_init(p->img, &c->lay, co->seed, q);
		qp_connect(p->qp, c->d.mtu[q], &w.qp[q], c->d.psn[q], gid_index);
	}
	printf("client: seed 0x%" PRIx64 ", %u RC QPs (path MTU", co->seed, co->nqp);
	for (uint32_t q = 0; q < co->nqp; q++)
		printf(" %u", c->qp[q].mtu);
	printf("), %u in flight per QP, server receive queue%s of %u, up to %u-byte READ/WRITE, "
	       "%u-byte messages, inline up to %u\n", depth, co->srq ? ": an SRQ" : "s",
	       co->srq ? co->recv_depth * co->nqp : co->recv_depth, co->max_rdma, co->max_msg,
	       c->d.inline_max);
	fflush(stdout);

	/* The random stream, until the operations or the seconds are spent. */
	double t0 = now_s(), last = t0, next_progress = t0 + co->progress;
	bool stop = false;
	unsigned spins = 0;
	while (!stop) {
		stop = true;
		for (uint32_t q = 0; q < co->nqp; q++) {
			struct cqp *p = &c->qp[q];
			uint64_t room = depth - p->count;
			if (c->max_ops) {
				if (p->next_idx >= c->max_ops)
					continue;
				if (p->next_idx + room > c->max_ops)
					room = c->max_ops - p->next_idx;
			}
			stop = false;
			if (room)
				cli_post(c, p, (uint32_t)room, false, false);
		}
		cli_poll(c, &last);
		if (++spins % 256)
			continue;
		double t = now_s();
		cli_stall(c, last);
		if (c->seconds > 0 && t - t0 >= c->seconds)
			stop = true; /* the QPs end with a signaled request below */
		if (co->progress > 0 && t >= next_progress) {
			next_progress += co->progress;
			fprintf(stderr, "client: %.0f s: %" PRIu64 " operations, %.1f MB payload, %.1f MB "
				"checked\n", t - t0, c->st.ops, (double)c->st.payload / 1e6,
				(double)(c->st.checked_reads + c->st.checked_atomics) / 1e6);
		}
	}
	/* Every QP ends with a signaled request, so that its last completion covers the rest;
	 * then, once a QP has nothing in flight, the read-back of its block. */
	for (uint32_t q = 0; q < co->nqp; q++) {
		struct cqp *p = &c->qp[q];
		if (p->count && !p->last_signaled) {
			while (p->count == depth) {
				cli_poll(c, &last);
				cli_stall(c, last);
			}
			cli_post(c, p, 1, true, false);
		}
	}
	double t_run = now_s() - t0;
	for (bool busy = true; busy;) {
		busy = false;
		for (uint32_t q = 0; q < co->nqp; q++) {
			struct cqp *p = &c->qp[q];
			if (!p->count)
				p->verifying = true;
			while (p->verifying && p->count < depth && p->verify_at < c->lay.blk)
				cli_post(c, p, 1, true, true);
			busy |= p->count || p->verify_at < c->lay.blk;
		}
		if (!cli_poll(c, &last))
			cli_stall(c, last);
	}
	/* Every completion is accounted for: nothing more comes. */
	struct ibv_wc extra;
	if (ibv_poll_cq(c->d.cq, 1, &extra))
		die("a completion nobody asked for: wr_id 0x%" PRIx64 ", QP 0x%x, status %s",
		    extra.wr_id, extra.qp_num, ibv_wc_status_str(extra.status));

	for (uint32_t q = 0; q < co->nqp; q++)
		end.msgs[q] = c->qp[q].msgs;
	send_all(fd, &end, sizeof(end));
	recv_all(fd, &rep, sizeof(rep));
	if (rep.magic != MAGIC)
		die("the server's report is garbled");
	uint64_t sent = 0;
	for (uint32_t q = 0; q < co->nqp; q++) {
		sent += c->qp[q].msgs;
		if (rep.hash[q] != hash_bytes(c->qp[q].img, c->lay.blk))
			mismatch("QP %u: the server's memory differs from the image (hash)", q);
	}
	close(fd);
	double t_all = now_s() - t0;

	uint64_t checked = c->st.checked_reads + c->st.checked_atomics + c->st.checked_final +
			   rep.bytes;
	printf("client: operations %" PRIu64 " in %.1f s (", c->st.ops, t_run);
	for (int k = 0; k < OP_NKINDS; k++)
		printf("%s%s %" PRIu64, k ? ", " : "", op_table[k].name, c->st.by_kind[k]);
	printf("), then %" PRIu64 " READs of the read-back\n", c->st.readbacks);
	printf("client: %" PRIu64 " completions, %" PRIu64 " unsignaled, %" PRIu64 " fenced, %" PRIu64
	       " inline, %" PRIu64 " chains\n", c->st.completions, c->st.unsignaled, c->st.fenced,
	       c->st.inlined, c->st.chains);
	printf("client: payload %" PRIu64 " bytes (%.1f MB/s)\n", c->st.payload,
	       (double)c->st.payload / t_run / 1e6);
	printf("client: bytes checked %" PRIu64 " (READ %" PRIu64 ", atomics %" PRIu64
	       ", read-back %" PRIu64 ", server messages %" PRIu64 " in %" PRIu64 " messages)\n",
	       checked, c->st.checked_reads, c->st.checked_atomics, c->st.checked_final, rep.bytes,
	       rep.msgs);
	if (rep.msgs != sent)
		mismatch("the server checked %" PRIu64 " messages, %" PRIu64 " were sent", rep.msgs,
			 sent);
	uint64_t mism = g_mismatches + rep.mismatches;
	printf("client: mismatches %" PRIu64 " (client %" PRIu64 ", server %" PRIu64
	       "), server errors %" PRIu64 "\n", mism, g_mismatches, rep.mismatches, rep.errors);
	if (rep.mismatches || rep.errors)
		printf("client: the server's first finding: %.*s\n", (int)sizeof(rep.first) - 1,
		       rep.first);
	bool ok = !mism && !rep.errors;
	printf("client: %s (seed 0x%" PRIx64 ", %.1f s in all)\n", ok ? "PASS" : "FAIL", co->seed,
	       t_all);
	for (uint32_t q = 0; q < co->nqp; q++) {
		free(c->qp[q].ring);
		free(c->qp[q].expect);
		free(c->qp[q].img);
	}
	dev_close(&c->d, co->nqp);
	free(c->scratch);
	free(c);
	return ok ? 0 : 1;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: soak_verbs server [options]\n"
		"       soak_verbs client HOST [options]\n"
		"Both sides:\n"
		"  -p, --port PORT        TCP port of the connection exchange (18515)\n"
		"  -g, --gid-index N      local GID index (0)\n"
		"  -T, --timeout SEC      fail after this long in all (client: 300, or the\n"
		"                         seconds + 300; the server takes the client's + 30)\n"
		"  -b, --bind ADDR        server: listen on this address only\n"
		"Client (the server takes them from the client):\n"
		"  -s, --seed N           the seed of the work (1)\n"
		"  -n, --ops N            stop after N operations, N / QPs each (10000, or no\n"
		"                         limit with --seconds; 0: no limit)\n"
		"  -t, --seconds SEC      stop after SEC seconds (0: no limit)\n"
		"  -q, --qps N            RC queue pairs (4, at most %d)\n"
		"  -d, --depth N          requests in flight per QP (8)\n"
		"  -r, --recv-depth N     server receive WQEs per QP (8)\n"
		"  -S, --srq              the server's QPs share one SRQ\n"
		"  -R, --max-rdma BYTES   largest READ or WRITE (1048576)\n"
		"  -M, --max-msg BYTES    largest SEND (262144; WRITE with immediate: 65536)\n"
		"  -P, --progress SEC     print progress every SEC seconds\n",
		MAX_QP);
}

static uint64_t num(const char *s, const char *what, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s || v > max) {
		fprintf(stderr, "soak_verbs: %s: '%s' is not a number up to %" PRIu64 "\n", what, s,
			max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'},  {"gid-index", required_argument, NULL, 'g'},
		{"timeout", required_argument, NULL, 'T'}, {"bind", required_argument, NULL, 'b'},
		{"seed", required_argument, NULL, 's'},  {"ops", required_argument, NULL, 'n'},
		{"seconds", required_argument, NULL, 't'}, {"qps", required_argument, NULL, 'q'},
		{"depth", required_argument, NULL, 'd'}, {"recv-depth", required_argument, NULL, 'r'},
		{"srq", no_argument, NULL, 'S'},         {"max-rdma", required_argument, NULL, 'R'},
		{"max-msg", required_argument, NULL, 'M'}, {"progress", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	struct client_opts co = {.seed = 1, .ops = 10000, .nqp = 4, .depth = 8, .recv_depth = 8,
				 .max_rdma = 1u << 20, .max_msg = 256u << 10};
	const char *port = "18515", *bind_addr = NULL;
	int gid_index = 0, opt;
	unsigned timeout = 0;
	bool ops_given = false;

	while ((opt = getopt_long(argc, argv, "p:g:T:b:s:n:t:q:d:r:SR:M:P:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': port = optarg; break;
		case 'g': gid_index = (int)num(optarg, "--gid-index", 255); break;
		case 'T': timeout = (unsigned)num(optarg, "--timeout", 1u << 30); break;
		case 'b': bind_addr = optarg; break;
		case 's': co.seed = num(optarg, "--seed", UINT64_MAX); break;
		case 'n': co.ops = num(optarg, "--ops", UINT64_MAX); ops_given = true; break;
		case 't': co.seconds = (double)num(optarg, "--seconds", 1u << 30); break;
		case 'q': co.nqp = (uint32_t)num(optarg, "--qps", MAX_QP); break;
		case 'd': co.depth = (uint32_t)num(optarg, "--depth", 1024); break;
		case 'r': co.recv_depth = (uint32_t)num(optarg, "--recv-depth", 1024); break;
		case 'S': co.srq = true; break;
		case 'R': co.max_rdma = (uint32_t)num(optarg, "--max-rdma", 64u << 20); break;
		case 'M': co.max_msg = (uint32_t)num(optarg, "--max-msg", 64u << 20); break;
		case 'P': co.progress = (double)num(optarg, "--progress", 1u << 30); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	signal(SIGALRM, on_alarm);
	if (optind < argc && !strcmp(argv[optind], "server") && optind + 1 == argc)
		return run_server(bind_addr, port, gid_index, timeout ? timeout : 300);
	if (optind + 2 == argc && !strcmp(argv[optind], "client")) {
		if (co.seconds > 0 && !ops_given)
			co.ops = 0;
		if (!co.nqp || !co.depth || !co.recv_depth || co.max_msg > co.max_rdma ||
		    co.max_rdma < 8 * NATOMIC || (!co.ops && !co.seconds)) {
			fprintf(stderr, "soak_verbs: needs QPs, depths, --max-msg <= --max-rdma, "
					"--max-rdma >= %d, and --ops or --seconds\n", 8 * NATOMIC);
			return 2;
		}
		co.timeout = timeout ? timeout : (unsigned)co.seconds + 300;
		return run_client(argv[optind + 1], port, gid_index, &co);
	}
	usage(stderr);
	return 2;
}

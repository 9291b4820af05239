/* SPDX-License-Identifier: MIT */
/* Per-flow analysis (uroce-dump --flows). A flow is one direction of traffic to one queue
 * pair: source and destination addresses plus the BTH DestQP. A reliable connection is two
 * flows, each carrying the requests of one side and the responses to the other side's
 * requests; since a response is addressed to the requester's QP, whose number the requests
 * do not carry, the two flows are paired by PSN (docs/flows.md "Pairing").
 *
 * Requests go through a sequence tracker (new, retransmitted, gap) and are grouped into
 * messages; responses (ACK, NAK, RNR NAK, READ responses, ATOMIC ACKs) are matched back to
 * the paired flow's requests for completion and latency. Every per-flow structure has a
 * fixed upper size, so a capture of any length is analysed in bounded memory. */
#include "flows.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/error.h"
#include "wire/psn.h"

/* Limits that bound memory (docs/flows.md "Limits"). */
enum {
	FLOWS_MAX = 65536,        /* flows tracked; packets of further flows are only counted */
	MSGS_LISTED_DEFAULT = 10, /* messages listed per flow; UROCE_DUMP_MESSAGES overrides */
	MSGS_LISTED_MAX = 10000,
	MSGS_RECENT = 64,         /* later messages kept to match retransmissions and responses */
	EPISODES_LISTED = 8,      /* go-back-N episodes listed per flow */
	PENDING_MAX = 512,        /* requests awaiting their response, for latency */
	LAT_SAMPLES_MAX = 8192,   /* latencies kept exactly; a uniform reservoir beyond */
	SEEN_WINDOW = 8192,       /* PSNs remembered behind the newest; divides 2^24 */
	PAIR_WINDOW = 1 << 15,    /* largest PSN distance between a request and its response */
	PAIR_TRIES = 64,          /* packets of an unpaired flow that trigger a pairing attempt */
	IB_MTU_MIN = 256,         /* IBA path MTUs, to bound a READ's PSN span while the MTU */
	IB_MTU_MAX = 4096,        /* of the flow is still unknown */
	SERIES_STEPS_MAX = 1 << 20, /* time-series steps kept over all flows (32 MiB) */
};

/* Which PSNs were seen, for the SEEN_WINDOW PSNs up to the newest one. */
struct psn_window {
	bool started;
	uint32_t top;
	uint8_t bits[SEEN_WINDOW / 8];
};

/* Records psn and returns whether it had been seen before. A PSN that fell out of the
 * window counts as not seen. */
static bool window_mark(struct psn_window *w, uint32_t psn)
{
	int32_t ahead = w->started ? uroce_psn_diff(psn, w->top) : SEEN_WINDOW;
	uint32_t b;
	bool seen;

	if (ahead > 0) {
		if (ahead >= SEEN_WINDOW) {
			memset(w->bits, 0, sizeof(w->bits));
		} else {
			for (int32_t i = 1; i <= ahead; i++) {
				b = uroce_psn_add(w->top, (uint32_t)i) % SEEN_WINDOW;
				w->bits[b / 8] &= (uint8_t)~(1u << (b % 8));
			}
		}
		w->top = psn;
		w->started = true;
	} else if (ahead <= -SEEN_WINDOW) {
		return false;
	}
	b = psn % SEEN_WINDOW;
	seen = w->bits[b / 8] & (1u << (b % 8));
	w->bits[b / 8] |= (uint8_t)(1u << (b % 8));
	return seen;
}

/* Request-to-response latencies in ns: min and max exact, the median from the samples. */
struct lat {
	uint64_t n, min, max;
	uint64_t *v;  /* every sample up to LAT_SAMPLES_MAX, then a uniform reservoir */
	uint32_t len, cap;
	uint64_t rng; /* xorshift64 with a fixed seed: reports are reproducible */
};

/* Message flags. */
enum {
	MSG_LAST = 1u << 0,      /* its last packet was seen */
	MSG_HEADLESS = 1u << 1,  /* its first packet was not captured */
	MSG_ACKED = 1u << 2,     /* an ACK or response covering its last PSN was seen */
	MSG_RETH = 1u << 3,
	MSG_ATOMIC = 1u << 4,
	MSG_IMM = 1u << 5,
	MSG_INV = 1u << 6,
	MSG_ORIG = 1u << 7,      /* the ATOMIC ACK's original value is known */
	MSG_RESP_LAST = 1u << 8, /* a READ RESPONSE LAST/ONLY was seen */
	MSG_DETH = 1u << 9,
	MSG_MAD = 1u << 10,      /* a management datagram (QP0/QP1) */
};

/* One message (work request) as reconstructed from its packets. */
struct msg {
	uint64_t index; /* 0-based, in the order messages started */
	uint64_t frame, ts_ns;
	uint64_t va, swap, cmp, orig;
	uint64_t bytes;      /* request payload, each PSN counted once */
	uint64_t resp_bytes; /* READ response payload, each PSN counted once */
	uint32_t psn;        /* first PSN */
	uint32_t span;       /* PSNs it covers (READ: response packets, an upper bound until
			      * the MTU or the last response is known) */
	uint32_t rkey, len;  /* RETH or AtomicETH R_Key; RETH DMA length */
	uint32_t imm, inv_rkey, qkey, src_qp;
	uint32_t pkts, distinct, retx, resends, resp_pkts;
	uint16_t mad_attr;
	uint8_t mad_class, mad_method;
	uint16_t flags;
	uint8_t kind;        /* enum uroce_opkind */
	uint8_t opcode;      /* of its first packet */
};

/* Totals of one kind of message. */
struct kind_total {
	uint64_t msgs, complete, bytes;
};

#define OPK_COUNT (UROCE_OPK_CNP + 1)

/* The first `listed` messages stay for the report; later ones rotate through MSGS_RECENT
 * slots, long enough to match the retransmissions and responses that follow them. A
 * message leaving its slot is added to `retired`. */
struct msg_log {
	struct msg *v;
	uint32_t cap; /* slots allocated, at most listed + MSGS_RECENT */
	uint64_t count;
	uint64_t cur;     /* index of the message new packets continue (the highest PSNs) */
	uint64_t unacked; /* index of the oldest message not known to be acknowledged */
	uint32_t listed;
	struct kind_total retired[OPK_COUNT];
};

/* What a go-back-N episode followed. */
enum cause { CAUSE_NONE, CAUSE_NAK, CAUSE_RNR };
static const char *const cause_text[] = {
	[CAUSE_NONE] = "no NAK seen (timeout or implied NAK)",
	[CAUSE_NAK] = "after a PSN Sequence Error NAK",
	[CAUSE_RNR] = "after an RNR NAK",
};
static const char *const cause_json[] = {
	[CAUSE_NONE] = "none",
	[CAUSE_NAK] = "nak",
	[CAUSE_RNR] = "rnr_nak",
};

/* A retransmission episode: the requester went back to `psn` after sending up to `top`. */
struct episode {
	uint64_t frame, cause_frame;
	uint32_t psn, top, pkts;
	uint8_t cause;
};

struct pending {
	uint32_t psn;
	uint64_t ts_ns;
};

/* The requests a flow carries (the sending QP acting as requester). */
struct req_half {
	bool tracked;  /* PSN tracking started (connected transports only) */
	bool in_retx;  /* the last request was a retransmission */
	uint32_t lo;   /* lowest PSN seen */
	uint32_t next; /* the next new PSN expected */
	uint32_t slack; /* PSNs `next` may be short by, after a READ of unknown span */
	uint32_t last; /* PSN of the last request */
	uint64_t pkts, retx, dups, gaps, gap_psns, episodes, read_resent, read_reissued;
	uint64_t lat_karn, lat_expired;
	struct episode ep[EPISODES_LISTED];
	struct psn_window seen;
	struct pending pend[PENDING_MAX]; /* ring, in PSN order */
	uint32_t pend_head, pend_len;
	struct lat lat;
	struct msg_log log;
};

/* The last NAK of one type, to tell what a retransmission followed. */
struct nak_mark {
	bool valid;
	uint32_t psn;
	uint64_t frame;
};

/* The responses a flow carries (answers to the paired flow's requests). */
struct resp_half {
	bool acked;    /* an ACK was seen; ack_psn is valid */
	uint32_t ack_psn, last_psn;
	uint64_t pkts, acks, dup_acks, read_pkts, read_bytes, read_dups, atomic_acks;
	uint64_t unmatched, rnr, nak_total;
	uint64_t naks[32];      /* by NAK code */
	uint64_t rnr_timer[32]; /* by RNR NAK timer code */
	struct nak_mark last_nak, last_rnr;
	struct psn_window seen;    /* READ response PSNs, for duplicates */
	struct psn_window matched; /* those matched to a request: its bytes count once */
};

enum addr_type { ADDR_IPV4, ADDR_IPV6, ADDR_GID, ADDR_LID };

static const struct addr_rule {
	const char *name; /* JSON "addr_type" */
	int af;           /* for inet_ntop; 0: a LID, printed in decimal */
	size_t len;
} addr_rules[] = {
	[ADDR_IPV4] = {"ipv4", AF_INET, 4},
	[ADDR_IPV6] = {"ipv6", AF_INET6, 16},
	[ADDR_GID] = {"gid", AF_INET6, 16},
	[ADDR_LID] = {"lid", 0, 2},
};

struct flow_key {
	uint8_t type; /* enum addr_type */
	uint8_t src[16], dst[16];
	uint32_t qpn;
};

struct opcount {
	uint64_t n;
	uint8_t opcode;
};

/* One step of a flow's time series (flows_series_enable). */
struct step {
	uint64_t bytes;
	uint32_t pkts, ce, cnp, retx;
	uint32_t psn; /* the highest new request PSN so far, from the flow's first one */
};

struct flow {
	struct flow_key key;
	uint32_t id; /* 1-based, in order of first packet */
	uint8_t encap; /* enum uroce_encap */
	uint8_t transport;
	bool transport_set; /* transport holds the first non-CNP transport seen */
	uint8_t pair_tries;
	struct flow *peer;   /* the reverse flow of the same connection */
	struct flow *hnext;  /* chain of the same key hash */
	struct flow *pnext;  /* chain of the same address-pair hash */
	uint64_t first_frame, last_frame, first_ts, last_ts;
	uint64_t pkts, bytes, ecn_ce, cnp, icrc_bad, vcrc_bad, undecoded;
	uint32_t mtu; /* largest FIRST/MIDDLE payload: the path MTU */
	struct opcount *ops;
	uint32_t n_ops, cap_ops;
	struct req_half *req;
	struct resp_half *resp;
	struct step *steps; /* the time series: steps[i] is step first_step + i */
	uint32_t first_step, n_steps, cap_steps;
	uint32_t psn0;      /* the first new request PSN, for step.psn */
	bool psn0_set;
};

struct flows {
	struct flow **by_key, **by_pair; /* hash heads, nbuckets each */
	size_t nbuckets;
	struct flow **list; /* in order of creation */
	size_t n, cap;
	uint64_t frames, ib_frames, other_frames, malformed, dropped, alloc_failures;
	uint64_t first_ts, last_ts;
	uint32_t listed;
	uint64_t step_ns;     /* the time series' step; 0: no series */
	uint64_t steps_kept;  /* over all flows, at most SERIES_STEPS_MAX */
	uint64_t steps_missed; /* packets past that limit, not in the series */
};

static uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void lat_add(struct flows *fs, struct lat *l, uint64_t ns)
{
	if (!l->n || ns < l->min)
		l->min = ns;
	if (ns > l->max)
		l->max = ns;
	l->n++;
	if (l->len < LAT_SAMPLES_MAX) {
		if (l->len == l->cap) {
			uint32_t cap = l->cap ? l->cap * 2 : 64;
			uint64_t *v = realloc(l->v, cap * sizeof(*v));
			if (!v) {
				fs->alloc_failures++;
				return;
			}
			l->v = v;
			l->cap = cap;
		}
		l->v[l->len++] = ns;
		return;
	}
	/* Reservoir sampling (algorithm R): each of the n samples is kept with probability
	 * LAT_SAMPLES_MAX / n, so the median stays an unbiased estimate. */
	if (!l->rng)
		l->rng = 0x9E3779B97F4A7C15u;
	uint64_t j = xorshift64(&l->rng) % l->n;
	if (j < LAT_SAMPLES_MAX)
		l->v[j] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double lat_median_us(struct lat *l)
{
	if (!l->len)
		return 0;
	qsort(l->v, l->len, sizeof(*l->v), cmp_u64);
	uint64_t mid = l->len % 2 ? l->v[l->len / 2] : (l->v[l->len / 2 - 1] + l->v[l->len / 2]) / 2;
	return (double)mid / 1e3;
}

/* --- Flow table ------------------------------------------------------------------------------- */

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001B3u; /* FNV-1a */
	return h;
}

static size_t hash_pair(const struct flows *fs, uint8_t type, const uint8_t *src,
			const uint8_t *dst)
{
	uint64_t h = hash_bytes(0xCBF29CE484222325u, &type, 1);

	h = hash_bytes(h, src, addr_rules[type].len);
	h = hash_bytes(h, dst, addr_rules[type].len);
	return (size_t)(h % fs->nbuckets);
}

static size_t hash_key(const struct flows *fs, const struct flow_key *k)
{
	uint8_t qpn[3] = {(uint8_t)(k->qpn >> 16), (uint8_t)(k->qpn >> 8), (uint8_t)k->qpn};
	uint64_t h = hash_bytes(0xCBF29CE484222325u, &k->type, 1);

	h = hash_bytes(h, k->src, addr_rules[k->type].len);
	h = hash_bytes(h, k->dst, addr_rules[k->type].len);
	return (size_t)(hash_bytes(h, qpn, sizeof(qpn)) % fs->nbuckets);
}

static bool same_pair(const struct flow_key *k, uint8_t type, const uint8_t *src,
		      const uint8_t *dst)
{
	size_t n = addr_rules[type].len;

	return k->type == type && !memcmp(k->src, src, n) && !memcmp(k->dst, dst, n);
}

static void link_flow(struct flows *fs, struct flow *fl)
{
	size_t hk = hash_key(fs, &fl->key);
	size_t hp = hash_pair(fs, fl->key.type, fl->key.src, fl->key.dst);

	fl->hnext = fs->by_key[hk];
	fs->by_key[hk] = fl;
	fl->pnext = fs->by_pair[hp];
	fs->by_pair[hp] = fl;
}

/* Keeps chains short: the bucket count doubles when flows outnumber buckets. */
static int rehash(struct flows *fs, size_t nbuckets)
{
	struct flow **k = calloc(nbuckets, sizeof(*k)), **p = calloc(nbuckets, sizeof(*p));

	if (!k || !p) {
		free(k);
		free(p);
		return UROCE_ENOMEM;
	}
	free(fs->by_key);
	free(fs->by_pair);
	fs->by_key = k;
	fs->by_pair = p;
	fs->nbuckets = nbuckets;
	for (size_t i = 0; i < fs->n; i++)
		link_flow(fs, fs->list[i]);
	return 0;
}

/* The flow key of a packet: IP addresses for RoCEv2, GIDs for RoCE v1, LIDs for native
 * InfiniBand (whose GRH, when present, is not needed to tell flows apart). */
static void key_of(const struct uroce_pkt *p, struct flow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->qpn = p->bth.destqp;
	if (p->encap == UROCE_ENCAP_IB) {
		k->type = ADDR_LID;
		k->src[0] = (uint8_t)(p->lrh.slid >> 8);
		k->src[1] = (uint8_t)p->lrh.slid;
		k->dst[0] = (uint8_t)(p->lrh.dlid >> 8);
		k->dst[1] = (uint8_t)p->lrh.dlid;
	} else if (p->encap == UROCE_ENCAP_ROCEV1) {
		k->type = ADDR_GID;
		memcpy(k->src, p->grh.sgid, 16);
		memcpy(k->dst, p->grh.dgid, 16);
	} else if (p->layers & UROCE_L_IPV4) {
		k->type = ADDR_IPV4;
		memcpy(k->src, p->ip4.src, 4);
		memcpy(k->dst, p->ip4.dst, 4);
	} else {
		k->type = ADDR_IPV6;
		memcpy(k->src, p->ip6.src, 16);
		memcpy(k->dst, p->ip6.dst, 16);
	}
}

static struct flow *flow_get(struct flows *fs, const struct uroce_pkt *p)
{
	struct flow_key k;
	struct flow *fl;

	key_of(p, &k);
	for (fl = fs->by_key[hash_key(fs, &k)]; fl; fl = fl->hnext)
		if (fl->key.qpn == k.qpn && same_pair(&fl->key, k.type, k.src, k.dst))
			return fl;
	if (fs->n == FLOWS_MAX)
		return NULL;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct flow **list = realloc(fs->list, cap * sizeof(*list));
		if (!list)
			goto nomem;
		fs->list = list;
		fs->cap = cap;
	}
	if (fs->n >= fs->nbuckets && rehash(fs, fs->nbuckets * 2) < 0)
		goto nomem;
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		goto nomem;
	fl->key = k;
	fl->encap = (uint8_t)p->encap;
	fl->id = (uint32_t)fs->n + 1;
	fs->list[fs->n++] = fl;
	link_flow(fs, fl);
	return fl;
nomem:
	fs->alloc_failures++;
	return NULL;
}

static struct req_half *req_of(struct flows *fs, struct flow *fl)
{
	if (!fl->req) {
		fl->req = calloc(1, sizeof(*fl->req));
		if (!fl->req) {
			fs->alloc_failures++;
			return NULL;
		}
		fl->req->log.listed = fs->listed;
	}
	return fl->req;
}

static struct resp_half *resp_of(struct flows *fs, struct flow *fl)
{
	if (!fl->resp) {
		fl->resp = calloc(1, sizeof(*fl->resp));
		if (!fl->resp)
			fs->alloc_failures++;
	}
	return fl->resp;
}

/* --- Pairing ---------------------------------------------------------------------------------- */

static uint32_t psn_distance(uint32_t a, uint32_t b)
{
	int32_t d = uroce_psn_diff(a, b);

	return (uint32_t)(d < 0 ? -d : d);
}

/* How far the responses of one flow are from the requests of the other, in PSNs (both
 * directions tried; UINT32_MAX when neither applies). */
static uint32_t pair_distance(const struct flow *a, const struct flow *b)
{
	uint32_t d = UINT32_MAX, x;

	if (a->req && a->req->tracked && b->resp && b->resp->pkts) {
		x = psn_distance(b->resp->last_psn, a->req->next);
		d = x < d ? x : d;
	}
	if (b->req && b->req->tracked && a->resp && a->resp->pkts) {
		x = psn_distance(a->resp->last_psn, b->req->next);
		d = x < d ? x : d;
	}
	return d;
}

/* Pairs an unpaired flow A->B with the unpaired flow B->A (any QP) whose request and
 * response PSNs are closest, if within PAIR_WINDOW. Random initial PSNs make two
 * connections between the same hosts almost never that close. */
static void try_pair(struct flows *fs, struct flow *fl)
{
	struct flow *best = NULL;
	uint32_t best_d = PAIR_WINDOW + 1u;

	if (fl->peer || fl->pair_tries >= PAIR_TRIES)
		return;
	fl->pair_tries++;
	for (struct flow *c = fs->by_pair[hash_pair(fs, fl->key.type, fl->key.dst, fl->key.src)]; c;
	     c = c->pnext) {
		if (c == fl || c->peer || !same_pair(&c->key, fl->key.type, fl->key.dst, fl->key.src))
			continue;
		uint32_t d = pair_distance(fl, c);
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	if (best) {
		fl->peer = best;
		best->peer = fl;
	}
}

/* --- Messages --------------------------------------------------------------------------------- */

/* Where message i lives, and whether it is still there. */
static size_t msg_slot(const struct msg_log *l, uint64_t i)
{
	return i < l->listed ? (size_t)i : l->listed + (size_t)((i - l->listed) % MSGS_RECENT);
}

static bool msg_held(const struct msg_log *l, uint64_t i)
{
	return i < l->count && (i < l->listed || l->count - i <= MSGS_RECENT);
}

static struct msg *msg_at(struct msg_log *l, uint64_t i)
{
	return msg_held(l, i) ? &l->v[msg_slot(l, i)] : NULL;
}

/* Whether a message was seen through: every packet (SEND, WRITE), every response byte
 * (READ) or the original value (atomics). */
static bool msg_complete(const struct msg *m)
{
	if (m->flags & MSG_HEADLESS)
		return false;
	if (m->kind == UROCE_OPK_READ_REQ)
		return (m->flags & MSG_RESP_LAST) && m->resp_bytes >= m->len;
	if (m->kind == UROCE_OPK_ATOMIC)
		return m->flags & MSG_ORIG;
	return (m->flags & MSG_LAST) && m->distinct >= m->span;
}

static void msg_total(struct kind_total *t, const struct msg *m)
{
	t[m->kind].msgs++;
	t[m->kind].complete += msg_complete(m);
	t[m->kind].bytes += m->kind == UROCE_OPK_READ_REQ ? m->resp_bytes : m->bytes;
}

static struct msg *msg_new(struct flows *fs, struct msg_log *l, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	struct msg *m;

	/* Grows as messages come, so that a large UROCE_DUMP_MESSAGES costs memory only
	 * on flows that have that many messages. */
	uint64_t most = (uint64_t)l->listed + MSGS_RECENT;
	uint64_t need = l->count < l->listed ? l->count + 1 : most;
	if (need > l->cap) {
		uint64_t cap = l->cap ? (uint64_t)l->cap * 2 : 16;
		cap = cap < need ? need : cap > most ? most : cap;
		struct msg *v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			fs->alloc_failures++;
			return NULL;
		}
		l->v = v;
		l->cap = (uint32_t)cap;
	}
	if (l->count >= (uint64_t)l->listed + MSGS_RECENT)
		msg_total(l->retired, msg_at(l, l->count - MSGS_RECENT));
	l->count++;
	m = msg_at(l, l->count - 1);
	memset(m, 0, sizeof(*m));
	m->index = l->count - 1;
	m->frame = d->frame->number;
	m->ts_ns = d->frame->ts_ns;
	m->psn = p->bth.psn;
	m->span = 1;
	m->kind = p->op->kind;
	m->opcode = p->bth.opcode;
	return m;
}

/* Among the MSGS_RECENT newest messages, the one whose first PSN is closest at or before psn
 * and the one whose first PSN is closest after it. Messages are kept in order of appearance,
 * which is not PSN order once a retransmission brings one that was lost before the capture
 * point. */
static void msg_around(struct msg_log *l, uint32_t psn, struct msg **before, struct msg **after)
{
	int32_t best_before = INT32_MAX, best_after = INT32_MAX;

	*before = *after = NULL;
	for (uint64_t i = l->count > MSGS_RECENT ? l->count - MSGS_RECENT : 0; i < l->count; i++) {
		struct msg *m = msg_at(l, i);
		int32_t d = uroce_psn_diff(psn, m->psn);
		if (d >= 0 && d < best_before) {
			best_before = d;
			*before = m;
		} else if (d < 0 && -d < best_after) {
			best_after = -d;
			*after = m;
		}
	}
}

/* Whether psn belongs to m, m being the message that starts closest before it: up to its
 * last packet, or anywhere after its start while its last packet has not been seen. */
static bool msg_contains(const struct msg *m, uint32_t psn)
{
	int32_t d = uroce_psn_diff(psn, m->psn);

	return d >= 0 && (!(m->flags & MSG_LAST) || (uint32_t)d < m->span);
}

/* The recent message whose PSN range holds psn, or NULL. */
static struct msg *msg_find(struct msg_log *l, uint32_t psn)
{
	struct msg *before, *after;

	msg_around(l, psn, &before, &after);
	return before && msg_contains(before, psn) ? before : NULL;
}

/* Copies what a first packet's extended headers say about the whole message (immediate
 * data and invalidation come with the last packet: see req_message). */
static void msg_headers(struct msg *m, const struct uroce_pkt *p)
{
	const struct uroce_ext *e = &p->ext;

	if (e->present & UROCE_EH_RETH) {
		m->flags |= MSG_RETH;
		m->va = e->reth.va;
		m->rkey = e->reth.rkey;
		m->len = e->reth.dmalen;
	}
	if (e->present & UROCE_EH_ATOMICETH) {
		m->flags |= MSG_ATOMIC;
		m->va = e->atomiceth.va;
		m->rkey = e->atomiceth.rkey;
		m->swap = e->atomiceth.swap;
		m->cmp = e->atomiceth.cmp;
	}
	if (e->present & UROCE_EH_DETH) {
		m->flags |= MSG_DETH;
		m->qkey = e->deth.qkey;
		m->src_qp = e->deth.srcqp;
	}
}

/* PSNs a READ request consumes: one per response packet. While the path MTU is unknown
 * the count lies between the 4096- and the 256-byte MTU figures: *slack is the spread. */
static uint32_t read_span(uint32_t len, uint32_t mtu, uint32_t *slack)
{
	uint32_t lo, hi;

	if (mtu) {
		lo = hi = len ? (uint32_t)(((uint64_t)len + mtu - 1) / mtu) : 1;
	} else {
		lo = len ? (uint32_t)(((uint64_t)len + IB_MTU_MAX - 1) / IB_MTU_MAX) : 1;
		hi = len ? (uint32_t)(((uint64_t)len + IB_MTU_MIN - 1) / IB_MTU_MIN) : 1;
	}
	*slack = hi - lo;
	return lo;
}

static uint32_t flow_mtu(const struct flow *fl)
{
	uint32_t peer = fl->peer ? fl->peer->mtu : 0;

	return fl->mtu > peer ? fl->mtu : peer;
}

/* --- Requests --------------------------------------------------------------------------------- */

static void pending_push(struct req_half *h, uint32_t psn, uint64_t ts)
{
	if (h->pend_len == PENDING_MAX) {
		h->pend_head = (h->pend_head + 1) % PENDING_MAX;
		h->pend_len--;
		h->lat_expired++;
	}
	h->pend[(h->pend_head + h->pend_len++) % PENDING_MAX] = (struct pending){psn, ts};
}

/* Karn's rule: a retransmitted request's response cannot be told from the original's,
 * so no latency is sampled for PSNs at or after a retransmitted one. */
static void pending_retransmitted(struct req_half *h, uint32_t psn)
{
	while (h->pend_len &&
	       uroce_psn_diff(h->pend[(h->pend_head + h->pend_len - 1) % PENDING_MAX].psn, psn) >= 0) {
		h->pend_len--;
		h->lat_karn++;
	}
}

/* An acknowledgement of `upto` answers every pending request up to that PSN. */
static void pending_answered(struct flows *fs, struct req_half *h, uint32_t upto, uint64_t ts)
{
	while (h->pend_len) {
		struct pending *q = &h->pend[h->pend_head];
		if (uroce_psn_diff(q->psn, upto) > 0)
			break;
		lat_add(fs, &h->lat, ts > q->ts_ns ? ts - q->ts_ns : 0);
		h->pend_head = (h->pend_head + 1) % PENDING_MAX;
		h->pend_len--;
	}
}

/* What a retransmission followed: the peer's latest unused RNR NAK or NAK for this PSN. */
static void episode_cause(struct flow *fl, struct episode *ep)
{
	struct resp_half *r = fl->peer ? fl->peer->resp : NULL;
	struct nak_mark *marks[] = {NULL, r ? &r->last_nak : NULL, r ? &r->last_rnr : NULL};

	ep->cause = CAUSE_NONE;
	for (unsigned c = CAUSE_RNR; c > CAUSE_NONE; c--) {
		if (marks[c] && marks[c]->valid && marks[c]->psn == ep->psn) {
			ep->cause = (uint8_t)c;
			ep->cause_frame = marks[c]->frame;
			marks[c]->valid = false;
			return;
		}
	}
}

/* Classifies a request of a connected transport as new or retransmitted, and counts gaps
 * and go-back-N episodes. Returns true for a retransmission. */
static bool req_sequence(struct flow *fl, struct req_half *h, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	uint32_t psn = p->bth.psn, slack = 0, consumed = 1;
	int32_t ahead = h->tracked ? uroce_psn_diff(psn, h->next) : 0;

	if (p->op->kind == UROCE_OPK_READ_REQ)
		consumed = read_span(p->ext.reth.dmalen, flow_mtu(fl), &slack);
	if (!h->tracked) {
		h->tracked = true;
		h->lo = psn;
	}
	if (ahead >= 0) {
		if ((uint32_t)ahead > h->slack) {
			h->gaps++;
			h->gap_psns += (uint32_t)ahead - h->slack;
		}
		h->next = uroce_psn_add(psn, consumed);
		h->slack = slack;
		h->in_retx = false;
		h->last = psn;
		return false;
	}
	h->retx++;
	if (uroce_psn_diff(psn, h->lo) < 0)
		h->lo = psn;
	/* A new episode starts when the PSN goes back, not while a resend walks forward. */
	if (!h->in_retx || uroce_psn_diff(psn, h->last) <= 0) {
		if (h->episodes < EPISODES_LISTED) {
			struct episode *ep = &h->ep[h->episodes];
			*ep = (struct episode){.frame = d->frame->number,
					       .psn = psn,
					       .top = uroce_psn_add(h->next, UROCE_PSN_MASK)};
			episode_cause(fl, ep);
		}
		h->episodes++;
	}
	if (h->episodes <= EPISODES_LISTED)
		h->ep[h->episodes - 1].pkts++;
	h->in_retx = true;
	h->last = psn;
	return true;
}

/* A first packet seen only as a retransmission was lost before the capture point the first
 * time: it completes the message that follows it if that one lacks its start, else it is a
 * message of its own. */
static struct msg *msg_late_first(struct flows *fs, struct msg_log *l, struct msg *after,
				  const struct dump_pkt *d)
{
	uint32_t psn = d->pkt.bth.psn;

	if (!after || !(after->flags & MSG_HEADLESS))
		return msg_new(fs, l, d);
	after->span += (uint32_t)uroce_psn_diff(after->psn, psn);
	after->psn = psn;
	after->flags &= (uint16_t)~MSG_HEADLESS;
	return after;
}

static void req_message(struct flows *fs, struct flow *fl, struct req_half *h,
			const struct dump_pkt *d, bool retx, bool dup)
{
	const struct uroce_pkt *p = &d->pkt;
	uint8_t fl_op = p->op->flags;
	uint32_t psn = p->bth.psn;
	struct msg *m = msg_at(&h->log, h->log.cur), *before, *after;

	if (retx) {
		msg_around(&h->log, psn, &before, &after);
		m = before && msg_contains(before, psn) ? before : NULL;
		if (!m && (fl_op & UROCE_OPF_FIRST))
			m = msg_late_first(fs, &h->log, after, d);
		if (!m)
			return;
		m->retx++;
		if (fl_op & UROCE_OPF_FIRST) {
			m->resends++;
			if (m->kind == UROCE_OPK_READ_REQ && psn != m->psn)
				h->read_reissued++;
			else if (m->kind == UROCE_OPK_READ_REQ)
				h->read_resent++;
			if (psn == m->psn)
				msg_headers(m, p);
		}
	} else if ((fl_op & UROCE_OPF_FIRST) || !m || (m->flags & MSG_LAST) || m->kind != p->op->kind) {
		m = msg_new(fs, &h->log, d);
		if (!m)
			return;
		h->log.cur = m->index;
		if (!(fl_op & UROCE_OPF_FIRST))
			m->flags |= MSG_HEADLESS;
		msg_headers(m, p);
		if (d->has_mgmt) {
			m->flags |= MSG_MAD;
			m->mad_class = d->mgmt.hdr.mgmt_class;
			m->mad_method = uroce_mad_method_byte(&d->mgmt.hdr);
			m->mad_attr = d->mgmt.hdr.attr_id;
		}
	}
	m->pkts++;
	if (!dup) {
		m->distinct++;
		m->bytes += p->payload_len;
	}
	if (p->op->kind == UROCE_OPK_READ_REQ) {
		uint32_t slack;
		if (psn == m->psn)
			m->span = read_span(m->len, flow_mtu(fl), &slack) + slack;
	} else if (uroce_psn_diff(psn, m->psn) >= 0 && (uint32_t)uroce_psn_diff(psn, m->psn) >= m->span) {
		m->span = (uint32_t)uroce_psn_diff(psn, m->psn) + 1;
	}
	if (fl_op & UROCE_OPF_LAST)
		m->flags |= MSG_LAST;
	if (p->ext.present & UROCE_EH_IMMDT) {
		m->flags |= MSG_IMM;
		m->imm = p->ext.immdt;
	}
	if (p->ext.present & UROCE_EH_IETH) {
		m->flags |= MSG_INV;
		m->inv_rkey = p->ext.ieth;
	}
}

static void on_request(struct flows *fs, struct flow *fl, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	struct req_half *h = req_of(fs, fl);
	bool retx = false, dup = false;

	if (!h)
		return;
	h->pkts++;
	/* Datagrams to one QP come from many senders, each with its own PSN sequence: only
	 * connected transports get sequence tracking. Every datagram is one message. */
	if (uroce_opcode_transport(p->bth.opcode) != UROCE_TP_UD) {
		dup = window_mark(&h->seen, p->bth.psn);
		retx = req_sequence(fl, h, d);
		if (retx) {
			h->dups += dup;
			pending_retransmitted(h, p->bth.psn);
		} else if (p->bth.ackreq || p->op->kind == UROCE_OPK_READ_REQ ||
			   p->op->kind == UROCE_OPK_ATOMIC) {
			pending_push(h, p->bth.psn, d->frame->ts_ns);
		}
		try_pair(fs, fl);
	}
	req_message(fs, fl, h, d, retx, dup);
}

/* --- Responses -------------------------------------------------------------------------------- */

/* Marks the messages whose last PSN is covered by an acknowledgement of `upto`. A message
 * whose last packet was never captured ends where the next one starts. */
static void msgs_acked(struct msg_log *l, uint32_t upto)
{
	for (; l->unacked < l->count; l->unacked++) {
		struct msg *m = msg_at(l, l->unacked), *before, *next;
		uint32_t end;
		if (!m)
			continue;
		if (m->flags & MSG_LAST) {
			end = uroce_psn_add(m->psn, m->span - 1);
		} else {
			msg_around(l, m->psn, &before, &next);
			if (!next)
				return;
			end = uroce_psn_add(next->psn, UROCE_PSN_MASK);
		}
		if (uroce_psn_diff(end, upto) > 0)
			return;
		m->flags |= MSG_ACKED;
	}
}

static void on_aeth_nak(struct resp_half *r, const struct dump_pkt *d)
{
	uint8_t syn = d->pkt.ext.aeth.syndrome;
	struct nak_mark mark = {true, d->pkt.bth.psn, d->frame->number};

	if (uroce_aeth_type(syn) == UROCE_AETH_RNR_NAK) {
		r->rnr++;
		r->rnr_timer[uroce_aeth_value(syn)]++;
		r->last_rnr = mark;
	} else {
		r->nak_total++;
		r->naks[uroce_aeth_value(syn)]++;
		if (uroce_aeth_value(syn) == UROCE_NAK_PSN_SEQ_ERR)
			r->last_nak = mark;
	}
}

static void on_response(struct flows *fs, struct flow *fl, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	struct resp_half *r = resp_of(fs, fl);
	uint32_t psn = p->bth.psn;
	bool has_aeth = p->ext.present & UROCE_EH_AETH;
	enum uroce_aeth_type type = has_aeth ? uroce_aeth_type(p->ext.aeth.syndrome) : UROCE_AETH_ACK;

	if (!r)
		return;
	r->pkts++;
	r->last_psn = psn;
	try_pair(fs, fl);
	struct req_half *h = fl->peer && fl->peer->req && fl->peer->req->tracked ? fl->peer->req : NULL;
	struct msg *m;

	if (type == UROCE_AETH_NAK || type == UROCE_AETH_RNR_NAK) {
		on_aeth_nak(r, d);
		/* A NAK acknowledges the requests before the PSN it names (IBA 9.7.5.1). */
		if (h)
			pending_answered(fs, h, uroce_psn_add(psn, UROCE_PSN_MASK), d->frame->ts_ns);
		return;
	}
	if (type != UROCE_AETH_ACK)
		return;
	if (p->op->kind == UROCE_OPK_ACK) {
		r->acks++;
		if (r->acked && uroce_psn_diff(psn, r->ack_psn) <= 0)
			r->dup_acks++;
		if (!r->acked || uroce_psn_diff(psn, r->ack_psn) > 0)
			r->ack_psn = psn;
		r->acked = true;
	} else if (p->op->kind == UROCE_OPK_READ_RESP) {
		bool dup = window_mark(&r->seen, psn);
		r->read_pkts++;
		r->read_bytes += p->payload_len;
		r->read_dups += dup;
		m = h ? msg_find(&h->log, psn) : NULL;
		if (m && (m->kind == UROCE_OPK_ATOMIC_WRITE || m->kind == UROCE_OPK_FLUSH) &&
		    m->psn == psn && !p->payload_len && (p->op->flags & UROCE_OPF_ONLY) == UROCE_OPF_ONLY) {
			/* The answer of an ATOMIC WRITE or a FLUSH: a READ RESPONSE ONLY without
			 * payload (IBA 1.5; Linux rxe_resp.c send_read_response_ack), an
			 * acknowledgement like the others (below). */
		} else if (!m || m->kind != UROCE_OPK_READ_REQ) {
			r->unmatched++;
		} else {
			m->resp_pkts++;
			m->resp_bytes += window_mark(&r->matched, psn) ? 0 : p->payload_len;
			if (p->op->flags & UROCE_OPF_LAST) {
				m->flags |= MSG_RESP_LAST;
				m->span = (uint32_t)uroce_psn_diff(psn, m->psn) + 1;
			}
		}
	} else if (p->op->kind == UROCE_OPK_ATOMIC_ACK) {
		r->atomic_acks++;
		m = h ? msg_find(&h->log, psn) : NULL;
		if (!m || m->kind != UROCE_OPK_ATOMIC || m->psn != psn) {
			r->unmatched++;
		} else {
			m->flags |= MSG_ORIG;
			m->orig = p->ext.atomicacketh.orig;
		}
	}
	if (h) {
		pending_answered(fs, h, psn, d->frame->ts_ns);
		msgs_acked(&h->log, psn);
	}
}

/* --- Input ------------------------------------------------------------------------------------ */

static void count_opcode(struct flows *fs, struct flow *fl, uint8_t opcode)
{
	for (uint32_t i = 0; i < fl->n_ops; i++) {
		if (fl->ops[i].opcode == opcode) {
			fl->ops[i].n++;
			return;
		}
	}
	if (fl->n_ops == fl->cap_ops) {
		uint32_t cap = fl->cap_ops ? fl->cap_ops * 2 : 4;
		struct opcount *v = realloc(fl->ops, cap * sizeof(*v));
		if (!v) {
			fs->alloc_failures++;
			return;
		}
		fl->ops = v;
		fl->cap_ops = cap;
	}
	fl->ops[fl->n_ops++] = (struct opcount){1, opcode};
}

/* ECN Congestion Experienced: both ECN bits set in the IPv4 TOS / IPv6 traffic class. */
static bool ecn_ce(const struct uroce_pkt *p)
{
	if (p->layers & UROCE_L_IPV4)
		return (p->ip4.tos & 3) == 3;
	if (p->layers & UROCE_L_IPV6)
		return (p->ip6.tclass & 3) == 3;
	return false;
}

static void flow_count(struct flows *fs, struct flow *fl, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	uint8_t tp = uroce_opcode_transport(p->bth.opcode);

	if (!fl->pkts) {
		fl->first_frame = d->frame->number;
		fl->first_ts = d->frame->ts_ns;
	}
	fl->last_frame = d->frame->number;
	fl->last_ts = d->frame->ts_ns;
	fl->pkts++;
	fl->bytes += d->frame->wirelen;
	if (!fl->transport_set || fl->transport == UROCE_TP_CNP) {
		fl->transport = tp;
		fl->transport_set = tp != UROCE_TP_CNP;
	}
	count_opcode(fs, fl, p->bth.opcode);
	fl->ecn_ce += ecn_ce(p);
	fl->cnp += p->op->kind == UROCE_OPK_CNP;
	fl->icrc_bad += d->icrc_status == UROCE_CRC_BAD;
	fl->vcrc_bad += d->vcrc_status == UROCE_CRC_BAD;
	/* FIRST and MIDDLE packets (requests and READ responses) carry exactly the path MTU. */
	if ((p->op->flags & (UROCE_OPF_FIRST | UROCE_OPF_MIDDLE)) && !(p->op->flags & UROCE_OPF_LAST) &&
	    (p->layers & UROCE_L_EXT) && p->payload_len > fl->mtu)
		fl->mtu = (uint32_t)p->payload_len;
}

/* --- Time series ---------------------------------------------------------------------------- */

int flows_series_enable(struct flows *fs, uint64_t step_ns)
{
	if (!step_ns || fs->frames)
		return UROCE_EINVAL;
	fs->step_ns = step_ns;
	return 0;
}

/* The step of flow fl that holds time ts, grown as needed; NULL past the limit. Steps run
 * from the flow's first packet, in capture time from the capture's first frame; a frame
 * stamped earlier than the flow's first (captures are not always in time order) counts in
 * its first step. */
static struct step *step_at(struct flows *fs, struct flow *fl, uint64_t ts)
{
	uint64_t k = ts > fs->first_ts ? (ts - fs->first_ts) / fs->step_ns : 0;

	if (k > UINT32_MAX)
		return NULL;
	if (!fl->n_steps)
		fl->first_step = (uint32_t)k;
	uint32_t i = k > fl->first_step ? (uint32_t)(k - fl->first_step) : 0;
	if (i >= fl->n_steps) {
		if (fs->steps_kept + (i + 1 - fl->n_steps) > SERIES_STEPS_MAX)
			return NULL;
		if (i >= fl->cap_steps) {
			uint32_t cap = fl->cap_steps ? fl->cap_steps : 64;
			while (cap <= i)
				cap *= 2;
			struct step *s = realloc(fl->steps, (size_t)cap * sizeof(*s));
			if (!s) {
				fs->alloc_failures++;
				return NULL;
			}
			fl->steps = s;
			fl->cap_steps = cap;
		}
		/* a step without packets keeps the PSN reached */
		uint32_t psn = fl->n_steps ? fl->steps[fl->n_steps - 1].psn : 0;
		for (uint32_t j = fl->n_steps; j <= i; j++)
			fl->steps[j] = (struct step){.psn = psn};
		fs->steps_kept += i + 1 - fl->n_steps;
		fl->n_steps = i + 1;
	}
	return &fl->steps[i];
}

static void series_add(struct flows *fs, struct flow *fl, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	struct step *s = step_at(fs, fl, d->frame->ts_ns);

	if (!s) {
		fs->steps_missed++;
		return;
	}
	s->pkts++;
	s->bytes += d->frame->wirelen;
	s->ce += ecn_ce(p);
	s->cnp += p->op->kind == UROCE_OPK_CNP;
	const struct req_half *r = fl->req;
	if (!r || !r->tracked || !(p->op->flags & UROCE_OPF_REQ) || !(p->layers & UROCE_L_EXT))
		return;
	if (r->in_retx) {
		s->retx++;
		return;
	}
	if (!fl->psn0_set) {
		fl->psn0 = r->last;
		fl->psn0_set = true;
	}
	uint32_t off = (r->last - fl->psn0) & 0xFFFFFF;
	if (off > s->psn)
		s->psn = off;
}

void flows_add(struct flows *fs, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	struct flow *fl;

	if (!fs->frames)
		fs->first_ts = d->frame->ts_ns;
	fs->frames++;
	fs->last_ts = d->frame->ts_ns;
	if (!(p->layers & UROCE_L_BTH) || !p->op) {
		if (d->malformed)
			fs->malformed++;
		else
			fs->other_frames++;
		return;
	}
	fs->ib_frames++;
	fs->malformed += d->malformed;
	fl = flow_get(fs, p);
	if (!fl) {
		fs->dropped++;
		return;
	}
	flow_count(fs, fl, d);
	/* Sequence and message analysis needs every header of the opcode. */
	if (!p->op->name || !(p->layers & UROCE_L_EXT))
		fl->undecoded++;
	else if (p->op->flags & UROCE_OPF_REQ)
		on_request(fs, fl, d);
	else if (p->op->flags & UROCE_OPF_RESP)
		on_response(fs, fl, d);
	if (fs->step_ns)
		series_add(fs, fl, d);
}

/* --- Report ----------------------------------------------------------------------------------- */

/* How message kinds are named in the text and JSON reports. */
static const struct kind_name {
	const char *text, *json;
} kind_names[OPK_COUNT] = {
	[UROCE_OPK_SEND] = {"SEND", "send"},
	[UROCE_OPK_WRITE] = {"RDMA WRITE", "rdma_write"},
	[UROCE_OPK_READ_REQ] = {"RDMA READ", "rdma_read"},
	[UROCE_OPK_ATOMIC] = {"ATOMIC", "atomic"},
	[UROCE_OPK_RESYNC] = {"RESYNC", "resync"},
	[UROCE_OPK_FLUSH] = {"FLUSH", "flush"},
	[UROCE_OPK_ATOMIC_WRITE] = {"ATOMIC WRITE", "atomic_write"},
};

/* NAK codes (IBA Table 44) by their JSON keys; other codes are summed under "other". */
static const char *const nak_keys[] = {
#define NAK_KEY(id, v, name) [v] = #id,
	UROCE_NAK_MAP(NAK_KEY)
#undef NAK_KEY
};
#define NAK_NAMED (sizeof(nak_keys) / sizeof(nak_keys[0]))

static double rel_s(const struct flows *fs, uint64_t ts)
{
	return ts > fs->first_ts ? (double)(ts - fs->first_ts) / 1e9 : 0;
}

static const char *addr_text(const struct flow_key *k, const uint8_t *a, char *buf, size_t len)
{
	const struct addr_rule *r = &addr_rules[k->type];

	if (r->af)
		return inet_ntop(r->af, a, buf, (socklen_t)len) ? buf : "?";
	snprintf(buf, len, "%u", (unsigned)(a[0] << 8 | a[1]));
	return buf;
}

static const char *transport_name(const struct flow *fl)
{
	return uroce_transport_name((enum uroce_transport)fl->transport);
}

/* A protocol value's name, or its number in hex when the tables do not name it. */
static const char *name_or_hex(const char *name, unsigned v, char buf[8])
{
	if (name)
		return name;
	snprintf(buf, 8, "0x%x", v & 0xFFFFu);
	return buf;
}

static const char *plural(uint64_t n) { return n == 1 ? "" : "s"; }

static bool is_fetch_add(const struct msg *m)
{
	return (m->opcode & 0x1F) == (UROCE_OP_RC_FETCH_ADD & 0x1F);
}

/* Per-kind totals: the retired messages plus those still held. */
static void totals_of(const struct msg_log *l, struct kind_total *t)
{
	memcpy(t, l->retired, sizeof(l->retired));
	for (uint64_t i = 0; i < l->count; i++) {
		if (!msg_held(l, i))
			i = l->count - MSGS_RECENT; /* skip to the first recent one */
		msg_total(t, &l->v[msg_slot(l, i)]);
	}
}

/* --- Text report ------------------------------------------------------------------------------ */

#define LABEL "  %-14s"

static void text_msg(FILE *out, const struct flows *fs, const struct msg *m)
{
	fprintf(out, "    #%-4" PRIu64 " frame %-7" PRIu64 " %10.6f s  PSN %-8" PRIu32 "  ",
		m->index + 1, m->frame, rel_s(fs, m->ts_ns), m->psn);
	if (m->kind == UROCE_OPK_ATOMIC)
		fprintf(out, "%s", uroce_opcode_info(m->opcode)->op_name);
	else
		fprintf(out, "%s", kind_names[m->kind].text);
	if (m->flags & (MSG_RETH | MSG_ATOMIC))
		fprintf(out, " va 0x%016" PRIx64 " rkey 0x%08" PRIx32, m->va, m->rkey);
	if (m->flags & MSG_RETH)
		fprintf(out, " len %" PRIu32, m->len);
	if ((m->flags & MSG_ATOMIC) && is_fetch_add(m))
		fprintf(out, " add 0x%" PRIx64, m->swap);
	else if (m->flags & MSG_ATOMIC)
		fprintf(out, " compare 0x%" PRIx64 " swap 0x%" PRIx64, m->cmp, m->swap);
	if (m->flags & MSG_DETH)
		fprintf(out, " from QP 0x%06" PRIx32 " Q_Key 0x%08" PRIx32, m->src_qp, m->qkey);
	if (m->flags & MSG_MAD) {
		char c[8], me[8], a[8];
		fprintf(out, " MAD %s %s %s", name_or_hex(uroce_mad_class_name(m->mad_class), m->mad_class, c),
			name_or_hex(uroce_mad_method_name(m->mad_method), m->mad_method, me),
			name_or_hex(uroce_mad_attr_name(m->mad_class, m->mad_attr), m->mad_attr, a));
	}
	if (m->flags & MSG_IMM)
		fprintf(out, " imm 0x%08" PRIx32, m->imm);
	if (m->flags & MSG_INV)
		fprintf(out, " invalidate rkey 0x%08" PRIx32, m->inv_rkey);
	if (m->kind == UROCE_OPK_READ_REQ)
		fprintf(out, ": %" PRIu32 " response packets, %" PRIu64 " of %" PRIu32 " bytes",
			m->resp_pkts, m->resp_bytes, m->len);
	else if (m->kind == UROCE_OPK_ATOMIC && (m->flags & MSG_ORIG))
		fprintf(out, ": original 0x%" PRIx64, m->orig);
	else if (m->kind == UROCE_OPK_ATOMIC)
		fprintf(out, ": no ATOMIC ACK");
	else
		fprintf(out, ": %" PRIu64 " bytes in %" PRIu32 " packet%s", m->bytes, m->distinct,
			plural(m->distinct));
	fprintf(out, ", %s", msg_complete(m) ? "complete" : "incomplete");
	if (m->flags & MSG_HEADLESS)
		fprintf(out, " (started before the capture)");
	if ((m->flags & MSG_ACKED) && m->kind != UROCE_OPK_READ_REQ && m->kind != UROCE_OPK_ATOMIC)
		fprintf(out, ", acked");
	if (m->kind == UROCE_OPK_READ_REQ && m->resends)
		fprintf(out, ", request retried %" PRIu32 "x", m->resends);
	else if (m->retx)
		fprintf(out, ", %" PRIu32 " packet%s retransmitted", m->retx, plural(m->retx));
	fputc('\n', out);
}

static void text_messages(FILE *out, const struct flows *fs, const struct msg_log *l)
{
	struct kind_total t[OPK_COUNT];
	const char *sep = "";

	totals_of(l, t);
	fprintf(out, LABEL "%" PRIu64 ":", "messages", l->count);
	for (unsigned k = 0; k < OPK_COUNT; k++) {
		if (!t[k].msgs || !kind_names[k].text)
			continue;
		fprintf(out, "%s %s %" PRIu64 " (%" PRIu64 " complete", sep, kind_names[k].text,
			t[k].msgs, t[k].complete);
		if (t[k].bytes)
			fprintf(out, ", %" PRIu64 " bytes", t[k].bytes);
		fputc(')', out);
		sep = ",";
	}
	fputc('\n', out);
	for (uint64_t i = 0; i < l->count && i < l->listed; i++)
		text_msg(out, fs, &l->v[i]);
	if (l->count > l->listed)
		fprintf(out, "    ... %" PRIu64 " more not listed (UROCE_DUMP_MESSAGES=%" PRIu32 ")\n",
			l->count - l->listed, l->listed);
}

static void text_latency(FILE *out, struct lat *l, const struct req_half *h)
{
	fprintf(out, LABEL "%" PRIu64 " sample%s", "latency", l->n, plural(l->n));
	if (l->n)
		fprintf(out, ": min %.1f us, median %.1f us%s, max %.1f us", (double)l->min / 1e3,
			lat_median_us(l), l->n > l->len ? " (estimated)" : "", (double)l->max / 1e3);
	if (h->lat_karn || h->lat_expired)
		fprintf(out, " (not sampled: %" PRIu64 " retransmitted, %" PRIu64 " unanswered)",
			h->lat_karn, h->lat_expired);
	fputc('\n', out);
}

static void text_requests(FILE *out, const struct flows *fs, struct flow *fl)
{
	struct req_half *h = fl->req;

	if (!h->tracked) {
		fprintf(out, LABEL "%" PRIu64 " packet%s (datagrams: no PSN tracking)\n", "requests",
			h->pkts, plural(h->pkts));
		text_messages(out, fs, &h->log);
		return;
	}
	fprintf(out, LABEL "%" PRIu64 " packet%s, PSN %" PRIu32 "..%" PRIu32 "\n", "requests",
		h->pkts, plural(h->pkts), h->lo, uroce_psn_add(h->next, UROCE_PSN_MASK));
	fprintf(out, LABEL "%" PRIu64 " packets (%" PRIu64 " seen before), %" PRIu64
		" go-back-N episodes\n", "retransmitted", h->retx, h->dups, h->episodes);
	for (uint64_t i = 0; i < h->episodes && i < EPISODES_LISTED; i++) {
		const struct episode *ep = &h->ep[i];
		fprintf(out, "    episode %-3" PRIu64 " frame %-7" PRIu64 " back to PSN %" PRIu32
			" from %" PRIu32 ", %" PRIu32 " packets, %s", i + 1, ep->frame, ep->psn, ep->top,
			ep->pkts, cause_text[ep->cause]);
		if (ep->cause != CAUSE_NONE)
			fprintf(out, " (frame %" PRIu64 ")", ep->cause_frame);
		fputc('\n', out);
	}
	if (h->episodes > EPISODES_LISTED)
		fprintf(out, "    ... %" PRIu64 " more episodes\n", h->episodes - EPISODES_LISTED);
	fprintf(out, LABEL "%" PRIu64 " (%" PRIu64 " PSNs skipped)\n", "PSN gaps", h->gaps,
		h->gap_psns);
	if (h->read_resent || h->read_reissued)
		fprintf(out, LABEL "%" PRIu64 " re-sent whole, %" PRIu64 " re-issued for the rest\n",
			"READ retries", h->read_resent, h->read_reissued);
	text_latency(out, &h->lat, h);
	text_messages(out, fs, &h->log);
}

static void text_responses(FILE *out, const struct flow *fl)
{
	const struct resp_half *r = fl->resp;

	fprintf(out, LABEL "%" PRIu64 " packet%s", "responses", r->pkts, plural(r->pkts));
	if (fl->peer)
		fprintf(out, " answering flow %" PRIu32 "'s requests", fl->peer->id);
	if (r->unmatched)
		fprintf(out, ", %" PRIu64 " not matched to a captured request", r->unmatched);
	fputc('\n', out);
	if (r->acks)
		fprintf(out, LABEL "%" PRIu64 " (%" PRIu64 " duplicate)\n", "ACK", r->acks,
			r->dup_acks);
	if (r->nak_total) {
		fprintf(out, LABEL "%" PRIu64 ":", "NAK", r->nak_total);
		for (unsigned c = 0; c < 32; c++) {
			const char *name = uroce_nak_name((uint8_t)c);
			if (r->naks[c])
				fprintf(out, " %s %" PRIu64 "%s", name ? name : "reserved code", r->naks[c],
					name ? "" : "?");
		}
		fputc('\n', out);
	}
	if (r->rnr) {
		fprintf(out, LABEL "%" PRIu64 ":", "RNR NAK", r->rnr);
		for (unsigned t = 0; t < 32; t++)
			if (r->rnr_timer[t])
				fprintf(out, " timer %u (%.2f ms) x%" PRIu64, t,
					uroce_rnr_timer_us((uint8_t)t) / 1e3, r->rnr_timer[t]);
		fputc('\n', out);
	}
	if (r->read_pkts)
		fprintf(out, LABEL "%" PRIu64 " packets, %" PRIu64 " bytes (%" PRIu64 " duplicate)\n",
			"READ response", r->read_pkts, r->read_bytes, r->read_dups);
	if (r->atomic_acks)
		fprintf(out, LABEL "%" PRIu64 "\n", "ATOMIC ACK", r->atomic_acks);
}

static void text_flow(FILE *out, const struct flows *fs, struct flow *fl)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	const char *lid = fl->key.type == ADDR_LID ? "LID " : "";

	fprintf(out, "\nFlow %" PRIu32 ": %s %s%s -> %s%s, dest QP 0x%06" PRIx32 " (%s)\n", fl->id,
		transport_name(fl), lid, addr_text(&fl->key, fl->key.src, src, sizeof(src)), lid,
		addr_text(&fl->key, fl->key.dst, dst, sizeof(dst)), fl->key.qpn,
		uroce_encap_name((enum uroce_encap)fl->encap));
	if (fl->peer)
		fprintf(out, LABEL "flow %" PRIu32 " (paired by PSN)\n", "reverse", fl->peer->id);
	fprintf(out, LABEL "%" PRIu64 "..%" PRIu64 ", %.6f..%.6f s\n", "frames", fl->first_frame,
		fl->last_frame, rel_s(fs, fl->first_ts), rel_s(fs, fl->last_ts));
	fprintf(out, LABEL "%" PRIu64 " (%" PRIu64 " bytes)", "packets", fl->pkts, fl->bytes);
	if (fl->undecoded)
		fprintf(out, ", %" PRIu64 " with headers cut short", fl->undecoded);
	fputc('\n', out);
	fprintf(out, LABEL, "opcodes");
	for (uint32_t i = 0; i < fl->n_ops; i++) {
		const char *name = uroce_opcode_info(fl->ops[i].opcode)->name;
		if (name)
			fprintf(out, "%s%s %" PRIu64, i ? ", " : "", name, fl->ops[i].n);
		else
			fprintf(out, "%s0x%02x %" PRIu64, i ? ", " : "", fl->ops[i].opcode, fl->ops[i].n);
	}
	fputc('\n', out);
	if (fl->mtu)
		fprintf(out, LABEL "%" PRIu32 " (largest FIRST/MIDDLE payload)\n", "path MTU", fl->mtu);
	if (fl->req)
		text_requests(out, fs, fl);
	if (fl->resp)
		text_responses(out, fl);
	fprintf(out, LABEL "ECN-CE %" PRIu64 ", CNP %" PRIu64 ", ICRC bad %" PRIu64, "congestion",
		fl->ecn_ce, fl->cnp, fl->icrc_bad);
	if (fl->encap == UROCE_ENCAP_IB)
		fprintf(out, ", VCRC bad %" PRIu64, fl->vcrc_bad);
	fputc('\n', out);
}

/* --- JSON report ------------------------------------------------------------------------------ */

/* A small pretty-printing JSON writer: members are separated and indented as they come. */
struct jw {
	FILE *out;
	int depth;
	bool first; /* no member written yet at this depth */
};

static void jw_member(struct jw *j, const char *key)
{
	fprintf(j->out, "%s\n%*s", j->first ? "" : ",", j->depth * 2, "");
	j->first = false;
	if (key)
		fprintf(j->out, "\"%s\": ", key);
}

static void jw_open(struct jw *j, const char *key, char c)
{
	jw_member(j, key);
	fputc(c, j->out);
	j->depth++;
	j->first = true;
}

static void jw_close(struct jw *j, char c)
{
	j->depth--;
	if (!j->first)
		fprintf(j->out, "\n%*s", j->depth * 2, "");
	fputc(c, j->out);
	j->first = false;
}

static void jw_u64(struct jw *j, const char *key, uint64_t v)
{
	jw_member(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

static void jw_double(struct jw *j, const char *key, double v)
{
	jw_member(j, key);
	fprintf(j->out, "%.3f", v);
}

static void jw_time(struct jw *j, const char *key, double v)
{
	jw_member(j, key);
	fprintf(j->out, "%.9f", v);
}

static void jw_bool(struct jw *j, const char *key, bool v)
{
	jw_member(j, key);
	fputs(v ? "true" : "false", j->out);
}

static void jw_null(struct jw *j, const char *key)
{
	jw_member(j, key);
	fputs("null", j->out);
}

/* Strings come from our own tables and address formatting; escaping keeps the document
 * valid whatever they hold. */
static void jw_str(struct jw *j, const char *key, const char *s)
{
	jw_member(j, key);
	fputc('"', j->out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(j->out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(j->out, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, j->out);
	}
	fputc('"', j->out);
}

/* 64-bit addresses and operands do not fit a JSON number exactly: hex strings. */
static void jw_hex(struct jw *j, const char *key, uint64_t v, int digits)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, digits, v);
	jw_str(j, key, buf);
}

static void json_msg(struct jw *j, const struct flows *fs, const struct msg *m)
{
	jw_open(j, NULL, '{');
	jw_u64(j, "index", m->index + 1);
	jw_u64(j, "frame", m->frame);
	jw_time(j, "time_s", rel_s(fs, m->ts_ns));
	jw_u64(j, "psn", m->psn);
	jw_str(j, "kind", kind_names[m->kind].json);
	jw_str(j, "opcode", uroce_opcode_info(m->opcode)->name);
	jw_u64(j, "packets", m->pkts);
	jw_u64(j, "distinct_packets", m->distinct);
	jw_u64(j, "retransmitted_packets", m->retx);
	jw_u64(j, "bytes", m->bytes);
	jw_bool(j, "first_packet_seen", !(m->flags & MSG_HEADLESS));
	jw_bool(j, "complete", msg_complete(m));
	jw_bool(j, "acked", m->flags & MSG_ACKED);
	if (m->flags & (MSG_RETH | MSG_ATOMIC)) {
		jw_hex(j, "va", m->va, 16);
		jw_hex(j, "rkey", m->rkey, 8);
	}
	if (m->flags & MSG_RETH)
		jw_u64(j, "length", m->len);
	if (m->flags & MSG_ATOMIC) {
		jw_hex(j, "compare", m->cmp, 16);
		jw_hex(j, "swap_add", m->swap, 16);
		if (m->flags & MSG_ORIG)
			jw_hex(j, "original", m->orig, 16);
		else
			jw_null(j, "original");
	}
	if (m->flags & MSG_IMM)
		jw_hex(j, "immediate", m->imm, 8);
	if (m->flags & MSG_INV)
		jw_hex(j, "invalidate_rkey", m->inv_rkey, 8);
	if (m->flags & MSG_DETH) {
		jw_u64(j, "src_qp", m->src_qp);
		jw_hex(j, "qkey", m->qkey, 8);
	}
	if (m->flags & MSG_MAD) {
		char c[8], me[8], a[8];
		jw_open(j, "mad", '{');
		jw_str(j, "class", name_or_hex(uroce_mad_class_name(m->mad_class), m->mad_class, c));
		jw_str(j, "method", name_or_hex(uroce_mad_method_name(m->mad_method), m->mad_method, me));
		jw_str(j, "attribute", name_or_hex(uroce_mad_attr_name(m->mad_class, m->mad_attr),
						   m->mad_attr, a));
		jw_close(j, '}');
	}
	if (m->kind == UROCE_OPK_READ_REQ) {
		jw_u64(j, "response_packets", m->resp_pkts);
		jw_u64(j, "response_bytes", m->resp_bytes);
		jw_u64(j, "request_resends", m->resends);
	}
	jw_close(j, '}');
}

static void json_messages(struct jw *j, const struct flows *fs, const struct msg_log *l)
{
	struct kind_total t[OPK_COUNT];

	totals_of(l, t);
	jw_u64(j, "messages_total", l->count);
	jw_open(j, "messages_by_kind", '{');
	for (unsigned k = 0; k < OPK_COUNT; k++) {
		if (!t[k].msgs)
			continue;
		jw_open(j, kind_names[k].json, '{');
		jw_u64(j, "messages", t[k].msgs);
		jw_u64(j, "complete", t[k].complete);
		jw_u64(j, "bytes", t[k].bytes);
		jw_close(j, '}');
	}
	jw_close(j, '}');
	jw_open(j, "messages", '[');
	for (uint64_t i = 0; i < l->count && i < l->listed; i++)
		json_msg(j, fs, &l->v[i]);
	jw_close(j, ']');
	jw_u64(j, "messages_not_listed", l->count > l->listed ? l->count - l->listed : 0);
}

static void json_latency(struct jw *j, struct lat *l, const struct req_half *h)
{
	jw_open(j, "latency_us", '{');
	jw_u64(j, "samples", l->n);
	if (l->n) {
		jw_double(j, "min", (double)l->min / 1e3);
		jw_double(j, "median", lat_median_us(l));
		jw_double(j, "max", (double)l->max / 1e3);
	} else {
		jw_null(j, "min");
		jw_null(j, "median");
		jw_null(j, "max");
	}
	jw_bool(j, "median_exact", l->n == l->len);
	jw_u64(j, "not_sampled_retransmitted", h->lat_karn);
	jw_u64(j, "not_sampled_unanswered", h->lat_expired);
	jw_close(j, '}');
}

static void json_requests(struct jw *j, const struct flows *fs, struct flow *fl)
{
	struct req_half *h = fl->req;

	jw_open(j, "requests", '{');
	jw_u64(j, "packets", h->pkts);
	if (h->tracked) {
		jw_open(j, "sequence", '{');
		jw_u64(j, "psn_first", h->lo);
		jw_u64(j, "psn_last", uroce_psn_add(h->next, UROCE_PSN_MASK));
		jw_u64(j, "retransmitted_packets", h->retx);
		jw_u64(j, "duplicate_packets", h->dups);
		jw_u64(j, "gbn_episodes", h->episodes);
		jw_open(j, "episodes", '[');
		for (uint64_t i = 0; i < h->episodes && i < EPISODES_LISTED; i++) {
			const struct episode *ep = &h->ep[i];
			jw_open(j, NULL, '{');
			jw_u64(j, "frame", ep->frame);
			jw_u64(j, "psn", ep->psn);
			jw_u64(j, "from_psn", ep->top);
			jw_u64(j, "packets", ep->pkts);
			jw_str(j, "cause", cause_json[ep->cause]);
			if (ep->cause != CAUSE_NONE)
				jw_u64(j, "cause_frame", ep->cause_frame);
			else
				jw_null(j, "cause_frame");
			jw_close(j, '}');
		}
		jw_close(j, ']');
		jw_u64(j, "gaps", h->gaps);
		jw_u64(j, "gap_psns", h->gap_psns);
		jw_u64(j, "read_resent", h->read_resent);
		jw_u64(j, "read_reissued", h->read_reissued);
		jw_close(j, '}');
		json_latency(j, &h->lat, h);
	} else {
		jw_null(j, "sequence");
		jw_null(j, "latency_us");
	}
	json_messages(j, fs, &h->log);
	jw_close(j, '}');
}

static void json_responses(struct jw *j, const struct resp_half *r)
{
	uint64_t other = 0;

	jw_open(j, "responses", '{');
	jw_u64(j, "packets", r->pkts);
	jw_u64(j, "acks", r->acks);
	jw_u64(j, "duplicate_acks", r->dup_acks);
	jw_u64(j, "nak_total", r->nak_total);
	jw_open(j, "naks", '{');
	for (unsigned c = 0; c < 32; c++) {
		if (c < NAK_NAMED && nak_keys[c])
			jw_u64(j, nak_keys[c], r->naks[c]);
		else
			other += r->naks[c];
	}
	jw_u64(j, "other", other);
	jw_close(j, '}');
	jw_u64(j, "rnr_naks", r->rnr);
	jw_open(j, "rnr_timers", '[');
	for (unsigned t = 0; t < 32; t++) {
		if (!r->rnr_timer[t])
			continue;
		jw_open(j, NULL, '{');
		jw_u64(j, "timer", t);
		jw_u64(j, "us", uroce_rnr_timer_us((uint8_t)t));
		jw_u64(j, "count", r->rnr_timer[t]);
		jw_close(j, '}');
	}
	jw_close(j, ']');
	jw_u64(j, "read_response_packets", r->read_pkts);
	jw_u64(j, "read_response_bytes", r->read_bytes);
	jw_u64(j, "read_response_duplicates", r->read_dups);
	jw_u64(j, "atomic_acks", r->atomic_acks);
	jw_u64(j, "unmatched", r->unmatched);
	jw_close(j, '}');
}

static void json_flow(struct jw *j, const struct flows *fs, struct flow *fl)
{
	char buf[INET6_ADDRSTRLEN];

	jw_open(j, NULL, '{');
	jw_u64(j, "id", fl->id);
	jw_str(j, "transport", transport_name(fl));
	jw_str(j, "encap", uroce_encap_name((enum uroce_encap)fl->encap));
	jw_str(j, "addr_type", addr_rules[fl->key.type].name);
	jw_str(j, "src", addr_text(&fl->key, fl->key.src, buf, sizeof(buf)));
	jw_str(j, "dst", addr_text(&fl->key, fl->key.dst, buf, sizeof(buf)));
	jw_u64(j, "dst_qp", fl->key.qpn);
	if (fl->peer)
		jw_u64(j, "reverse_flow", fl->peer->id);
	else
		jw_null(j, "reverse_flow");
	jw_u64(j, "first_frame", fl->first_frame);
	jw_u64(j, "last_frame", fl->last_frame);
	jw_time(j, "start_s", rel_s(fs, fl->first_ts));
	jw_time(j, "end_s", rel_s(fs, fl->last_ts));
	jw_u64(j, "packets", fl->pkts);
	jw_u64(j, "bytes", fl->bytes);
	jw_u64(j, "undecoded_packets", fl->undecoded);
	jw_open(j, "opcodes", '{');
	for (uint32_t i = 0; i < fl->n_ops; i++) {
		const char *name = uroce_opcode_info(fl->ops[i].opcode)->name;
		char hex[8];
		snprintf(hex, sizeof(hex), "0x%02x", fl->ops[i].opcode);
		jw_u64(j, name ? name : hex, fl->ops[i].n);
	}
	jw_close(j, '}');
	jw_u64(j, "mtu", fl->mtu);
	jw_u64(j, "ecn_ce", fl->ecn_ce);
	jw_u64(j, "cnp", fl->cnp);
	jw_u64(j, "icrc_bad", fl->icrc_bad);
	jw_u64(j, "vcrc_bad", fl->vcrc_bad);
	if (fl->req)
		json_requests(j, fs, fl);
	else
		jw_null(j, "requests");
	if (fl->resp)
		json_responses(j, fl->resp);
	else
		jw_null(j, "responses");
	jw_close(j, '}');
}

static int cmp_opcount(const void *a, const void *b)
{
	const struct opcount *x = a, *y = b;

	return (x->opcode > y->opcode) - (x->opcode < y->opcode);
}

int flows_print(struct flows *fs, FILE *out, bool json)
{
	struct jw j = {out, 0, true};

	for (size_t i = 0; i < fs->n; i++)
		qsort(fs->list[i]->ops, fs->list[i]->n_ops, sizeof(struct opcount), cmp_opcount);
	if (json) {
		jw_open(&j, NULL, '{');
		jw_u64(&j, "frames", fs->frames);
		jw_u64(&j, "ib_packets", fs->ib_frames);
		jw_u64(&j, "other_frames", fs->other_frames);
		jw_u64(&j, "malformed_frames", fs->malformed);
		jw_u64(&j, "untracked_packets", fs->dropped);
		jw_u64(&j, "alloc_failures", fs->alloc_failures);
		jw_time(&j, "duration_s", rel_s(fs, fs->last_ts));
		jw_u64(&j, "messages_listed_max", fs->listed);
		jw_open(&j, "flows", '[');
		for (size_t i = 0; i < fs->n; i++)
			json_flow(&j, fs, fs->list[i]);
		jw_close(&j, ']');
		jw_close(&j, '}');
		fputc('\n', out);
	} else {
		fprintf(out, "%" PRIu64 " frame%s: %" PRIu64 " InfiniBand transport, %" PRIu64
			" other, %" PRIu64 " malformed; %zu flow%s in %.6f s\n", fs->frames,
			plural(fs->frames), fs->ib_frames, fs->other_frames, fs->malformed, fs->n,
			plural(fs->n), rel_s(fs, fs->last_ts));
		if (fs->dropped)
			fprintf(out, "%" PRIu64 " packets of flows beyond the first %d not analysed\n",
				fs->dropped, FLOWS_MAX);
		if (fs->alloc_failures)
			fprintf(out, "out of memory %" PRIu64 " times: some figures are short\n",
				fs->alloc_failures);
		/* Both flows of a connection are printed together, in order of first packet. */
		for (size_t i = 0; i < fs->n; i++) {
			struct flow *fl = fs->list[i];
			if (fl->peer && fl->peer->id < fl->id)
				continue;
			text_flow(out, fs, fl);
			if (fl->peer)
				text_flow(out, fs, fl->peer);
		}
	}
	fflush(out);
	return ferror(out) ? UROCE_EIO : 0;
}

int flows_series_csv(struct flows *fs, FILE *out, struct flows_series_block **blocks)
{
	struct flows_series_block *b = calloc(fs->n ? fs->n : 1, sizeof(*b));
	double step_s = (double)fs->step_ns / 1e9;
	int n = 0;

	*blocks = NULL;
	if (!b)
		return UROCE_ENOMEM;
	fputs("flow,time_s,packets,bytes,mbps,ce,cnp,retransmitted,psn\n", out);
	for (size_t i = 0; i < fs->n; i++) {
		const struct flow *fl = fs->list[i];
		char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
		if (!fl->n_steps)
			continue;
		/* gnuplot reads blocks separated by two blank lines as data sets (index) */
		fprintf(out, "%s# flow %" PRIu32 ": %s %s -> %s, dest QP 0x%06" PRIx32 "\n",
			n ? "\n\n" : "", fl->id, transport_name(fl),
			addr_text(&fl->key, fl->key.src, src, sizeof(src)),
			addr_text(&fl->key, fl->key.dst, dst, sizeof(dst)), fl->key.qpn);
		for (uint32_t k = 0; k < fl->n_steps; k++) {
			const struct step *s = &fl->steps[k];
			fprintf(out, "%" PRIu32 ",%.6f,%" PRIu32 ",%" PRIu64 ",%.3f,%" PRIu32 ",%" PRIu32
				",%" PRIu32 ",%" PRIu32 "\n",
				fl->id, (double)(fl->first_step + k) * step_s, s->pkts, s->bytes,
				(double)s->bytes * 8 / step_s / 1e6, s->ce, s->cnp, s->retx, s->psn);
		}
		b[n++] = (struct flows_series_block){.flow_id = fl->id, .requests = fl->psn0_set,
						     .cnp = fl->cnp > 0, .ce = fl->ecn_ce > 0,
						     .bytes = fl->bytes};
	}
	if (fs->steps_missed)
		fprintf(stderr, "uroce-dump: the time series keeps %d steps in all: %" PRIu64
			" packets past them are not in it (a longer --step keeps fewer)\n",
			SERIES_STEPS_MAX, fs->steps_missed);
	if (fflush(out) || ferror(out)) {
		free(b);
		return UROCE_EIO;
	}
	*blocks = b;
	return n;
}

struct flows *flows_new(void)
{
	struct flows *fs = calloc(1, sizeof(*fs));
	const char *env = getenv("UROCE_DUMP_MESSAGES");
	char *end;

	if (!fs)
		return NULL;
	fs->listed = MSGS_LISTED_DEFAULT;
	if (env && *env) {
		unsigned long v = strtoul(env, &end, 10);
		if (!*end && v <= MSGS_LISTED_MAX)
			fs->listed = (uint32_t)v;
	}
	if (rehash(fs, 64) < 0) {
		free(fs);
		return NULL;
	}
	return fs;
}

void flows_free(struct flows *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++) {
		struct flow *fl = fs->list[i];
		if (fl->req) {
			free(fl->req->lat.v);
			free(fl->req->log.v);
		}
		free(fl->req);
		free(fl->resp);
		free(fl->ops);
		free(fl->steps);
		free(fl);
	}
	free(fs->list);
	free(fs->by_key);
	free(fs->by_pair);
	free(fs);
}

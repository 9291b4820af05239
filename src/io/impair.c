/* SPDX-License-Identifier: MIT */
#include "impair.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/echo.h"
#include "common/error.h"
#include "wire/ib.h"
#include "wire/ip.h"

uint64_t uroce_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return x << k | x >> (64 - k); }

/* xoshiro256** (Blackman and Vigna, 2018): fast, 256 bits of state, integer-only, so every
 * platform draws the same sequence. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* A probability as a threshold on 53-bit draws: p = 1 gives 2^53, above every draw. */
static uint64_t prob53(double p) { return (uint64_t)(p * 9007199254740992.0); }

/* True with the probability behind thr53; a disabled (zero) chance consumes no draw. */
static bool chance(struct uroce_impair *im, enum uroce_impair_stream s, uint64_t thr53)
{
	return thr53 && rng_next(im->rng[s]) >> 11 < thr53;
}

/* ---- configuration: one table of keys drives parsing and validation ---- */

enum key_kind {
	KEY_PROB, /* double in [0, 1] */
	KEY_USEC, /* spec in microseconds, stored as uint64_t nanoseconds */
	KEY_BITS, /* uint32_t in [0, UROCE_IMPAIR_MAX_BITS] */
	KEY_FLAG, /* bool, 0 or 1 */
	KEY_SEED, /* any uint64_t */
};

struct impair_key {
	const char *name;
	enum key_kind kind;
	size_t off;
};

#define KEY(name, kind, field) {name, kind, offsetof(struct uroce_impair_cfg, field)}
static const struct impair_key impair_keys[] = {
	KEY("loss", KEY_PROB, loss),
	KEY("burst_p", KEY_PROB, burst_p),
	KEY("burst_r", KEY_PROB, burst_r),
	KEY("burst_h", KEY_PROB, burst_h),
	KEY("dup", KEY_PROB, dup),
	KEY("reorder", KEY_PROB, reorder),
	KEY("reorder_delay_us", KEY_USEC, reorder_delay_ns),
	KEY("corrupt", KEY_PROB, corrupt),
	KEY("corrupt_bits", KEY_BITS, corrupt_bits),
	KEY("corrupt_any", KEY_FLAG, corrupt_any),
	KEY("delay_us", KEY_USEC, delay_ns),
	KEY("jitter_us", KEY_USEC, jitter_ns),
	KEY("ce", KEY_PROB, ce),
	KEY("seed", KEY_SEED, seed),
};
#undef KEY
#define NKEYS (sizeof(impair_keys) / sizeof(impair_keys[0]))

/* The accepted range of each kind in the spec's units: [0, max] for decimals, [0, imax] for
 * integers. */
static const struct {
	bool integer;
	double max;
	uint64_t imax;
} kind_range[] = {
	[KEY_PROB] = {false, 1, 0},
	[KEY_USEC] = {false, UROCE_IMPAIR_MAX_DELAY_NS / 1000, 0},
	[KEY_BITS] = {true, 0, UROCE_IMPAIR_MAX_BITS},
	[KEY_FLAG] = {true, 0, 1},
	[KEY_SEED] = {true, 0, UINT64_MAX},
};

static bool in_range(enum key_kind kind, double v, uint64_t u)
{
	if (kind_range[kind].integer)
		return u <= kind_range[kind].imax;
	return v >= 0 && v <= kind_range[kind].max; /* false for NaN too */
}

/* Reads a field back in the spec's units, for checking a configuration built in code. */
static void key_load(const struct impair_key *k, const struct uroce_impair_cfg *cfg, double *v,
		     uint64_t *u)
{
	const char *f = (const char *)cfg + k->off;

	*v = 0;
	*u = 0;
	switch (k->kind) {
	case KEY_PROB:
		memcpy(v, f, sizeof(*v));
		break;
	case KEY_USEC: {
		uint64_t ns;
		memcpy(&ns, f, sizeof(ns));
		*v = (double)ns / 1000;
		break;
	}
	case KEY_BITS: {
		uint32_t bits;
		memcpy(&bits, f, sizeof(bits));
		*u = bits;
		break;
	}
	case KEY_FLAG: {
		bool flag;
		memcpy(&flag, f, sizeof(flag));
		*u = flag;
		break;
	}
	case KEY_SEED:
		memcpy(u, f, sizeof(*u));
		break;
	}
}

/* Stores a value already checked against kind_range: decimals arrive as v, integers as u
 * (a seed needs all 64 bits, more than a double holds). */
static void key_store(const struct impair_key *k, struct uroce_impair_cfg *cfg, double v,
		      uint64_t u)
{
	char *f = (char *)cfg + k->off;

	switch (k->kind) {
	case KEY_PROB:
		memcpy(f, &v, sizeof(v));
		break;
	case KEY_USEC: {
		uint64_t ns = (uint64_t)(v * 1000 + 0.5); /* to the nearest nanosecond */
		memcpy(f, &ns, sizeof(ns));
		break;
	}
	case KEY_BITS: {
		uint32_t bits = (uint32_t)u;
		memcpy(f, &bits, sizeof(bits));
		break;
	}
	case KEY_FLAG: {
		bool flag = u != 0;
		memcpy(f, &flag, sizeof(flag));
		break;
	}
	case KEY_SEED:
		memcpy(f, &u, sizeof(u));
		break;
	}
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* An unsigned integer, decimal or 0x hex, in s[0..n); a leading '-' is read as a sign so
 * that "-1" is reported as out of range rather than as malformed. Returns 0, -1 when
 * malformed, 1 when negative or beyond 64 bits. */
static int parse_integer(const char *s, size_t n, uint64_t *out)
{
	bool neg = n && s[0] == '-';
	unsigned base = 10;
	size_t i = neg;
	uint64_t v = 0;
	bool over = false;

	if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		int d = base == 16 ? hex_value(s[i]) : is_digit(s[i]) ? s[i] - '0' : -1;
		if (d < 0)
			return -1;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			over = true;
		v = v * base + (unsigned)d;
	}
	*out = v;
	return (neg && v) || over ? 1 : 0;
}

/* A decimal [-]digits[.digits][e[+-]digits] in s[0..n), without strtod so that the locale
 * cannot change the decimal point. The mantissa keeps 18 digits; one final multiplication
 * or division by an exact power of ten gives the correctly rounded value for the usual
 * short inputs. Returns 0 or -1 when malformed. */
static int parse_decimal(const char *s, size_t n, double *out)
{
	bool neg = n && s[0] == '-';
	size_t i = neg, digits = 0;
	uint64_t m = 0;
	long exp10 = 0;

	for (; i < n && is_digit(s[i]); i++, digits++) {
		if (m < 100000000000000000u)
			m = m * 10 + (uint64_t)(s[i] - '0');
		else
			exp10++;
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && is_digit(s[i]); i++, digits++) {
			if (m < 100000000000000000u) {
				m = m * 10 + (uint64_t)(s[i] - '0');
				exp10--;
			}
		}
	}
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		bool eneg = ++i < n && s[i] == '-';
		long e = 0;
		size_t edigits = 0;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			i++;
		for (; i < n && is_digit(s[i]); i++, edigits++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		if (!edigits)
			return -1;
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return -1;

	double v = (double)m, p = 1;
	for (; exp10 > 22; exp10 -= 22)
		v *= 1e22;
	for (; exp10 < -22; exp10 += 22)
		v /= 1e22;
	for (long k = exp10 < 0 ? -exp10 : exp10; k > 0; k--)
		p *= 10; /* exact up to 10^22 */
	v = exp10 < 0 ? v / p : v * p;
	*out = neg ? -v : v;
	return 0;
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

static int parse_fail(char *msg, size_t msglen, int err, const char *item, size_t n,
		      const char *why)
{
	struct uroce_echo e;

	if (msg && msglen)
		snprintf(msg, msglen, "\"%s\": %s", uroce_echo(&e, item, n), why);
	return err;
}

/* One "key=value" item of length n into cfg. */
static int parse_item(const char *item, size_t n, struct uroce_impair_cfg *cfg, char *msg,
		      size_t msglen)
{
	const char *eq = memchr(item, '=', n), *key = item, *val;
	size_t klen, vlen;
	const struct impair_key *k = NULL;

	if (!eq)
		return parse_fail(msg, msglen, UROCE_EFORMAT, item, n, "expected key=value");
	klen = (size_t)(eq - item);
	val = eq + 1;
	vlen = n - klen - 1;
	trim(&key, &klen);
	trim(&val, &vlen);
	for (size_t i = 0; i < NKEYS && !k; i++)
		if (strlen(impair_keys[i].name) == klen && !memcmp(impair_keys[i].name, key, klen))
			k = &impair_keys[i];
	if (!k) {
		char why[400];
		size_t w = (size_t)snprintf(why, sizeof(why), "unknown key; known keys:");
		for (size_t i = 0; i < NKEYS && w < sizeof(why); i++)
			w += (size_t)snprintf(why + w, sizeof(why) - w, " %s", impair_keys[i].name);
		return parse_fail(msg, msglen, UROCE_EINVAL, item, n, why);
	}

	bool integer = kind_range[k->kind].integer;
	double v = 0;
	uint64_t u = 0;
	int r = integer ? parse_integer(val, vlen, &u) : parse_decimal(val, vlen, &v);
	if (r < 0)
		return parse_fail(msg, msglen, UROCE_EFORMAT, item, n,
				  integer ? "not an unsigned integer" : "not a decimal number");
	if (r > 0 || !in_range(k->kind, v, u)) {
		char why[64];
		if (integer)
			snprintf(why, sizeof(why), "out of range [0, %" PRIu64 "]",
				 kind_range[k->kind].imax);
		else
			snprintf(why, sizeof(why), "out of range [0, %.15g]", kind_range[k->kind].max);
		return parse_fail(msg, msglen, UROCE_EINVAL, item, n, why);
	}
	key_store(k, cfg, v, u);
	return 0;
}

int uroce_impair_parse(const char *spec, struct uroce_impair_cfg *out, char *msg,
		       size_t msglen)
{
	struct uroce_impair_cfg cfg = {0};

	if (!spec)
		return parse_fail(msg, msglen, UROCE_EINVAL, "", 0, "no specification");
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *item = p;
		size_t len = n;
		trim(&item, &len);
		if (len) {
			int err = parse_item(item, len, &cfg, msg, msglen);
			if (err < 0)
				return err;
		}
		p += n + (end != NULL);
	}
	*out = cfg;
	if (msg && msglen)
		msg[0] = '\0';
	return 0;
}

int uroce_impair_init(struct uroce_impair *im, const struct uroce_impair_cfg *cfg,
		      uint64_t salt)
{
	for (size_t i = 0; i < NKEYS; i++) {
		double v;
		uint64_t u;
		key_load(&impair_keys[i], cfg, &v, &u);
		if (!in_range(impair_keys[i].kind, v, u))
			return UROCE_EINVAL;
	}
	memset(im, 0, sizeof(*im));
	im->cfg = *cfg;
	if (!im->cfg.corrupt_bits)
		im->cfg.corrupt_bits = 1;
	if (!im->cfg.reorder_delay_ns)
		im->cfg.reorder_delay_ns = UROCE_IMPAIR_REORDER_DELAY_NS;
	/* Stream i takes words 4i..4i+3 of one splitmix64 sequence (the seeding its authors
	 * recommend: never an all-zero state). */
	uint64_t x = cfg->seed ^ uroce_splitmix64(&salt);
	for (size_t s = 0; s < UROCE_IMPAIR_NSTREAMS; s++)
		for (size_t w = 0; w < 4; w++)
			im->rng[s][w] = uroce_splitmix64(&x);
	im->loss53 = prob53(cfg->loss);
	im->burst_p53 = prob53(cfg->burst_p);
	im->burst_r53 = prob53(cfg->burst_r);
	im->burst_h53 = prob53(cfg->burst_h);
	im->dup53 = prob53(cfg->dup);
	im->reorder53 = prob53(cfg->reorder);
	im->corrupt53 = prob53(cfg->corrupt);
	im->ce53 = prob53(cfg->ce);
	return 0;
}

/* Gilbert-Elliott: the packet's fate in the current state, then one state transition. */
static bool burst_step(struct uroce_impair *im)
{
	bool lost;

	if (!im->burst_p53)
		return false;
	lost = im->bad && !chance(im, UROCE_IMPAIR_S_BURST, im->burst_h53);
	if (im->bad)
		im->bad = !chance(im, UROCE_IMPAIR_S_BURST, im->burst_r53);
	else
		im->bad = chance(im, UROCE_IMPAIR_S_BURST, im->burst_p53);
	return lost;
}

/* The bytes corruption may touch: by default those after the IP and UDP headers (BTH to
 * ICRC) without BTH byte 4, which the ICRC masks (facts.md section 1), so that every flip is
 * one the ICRC sees. *skip is that byte's offset, or len when none is skipped. */
static size_t corrupt_region(const struct uroce_impair *im, const uint8_t *p, size_t len,
			     size_t *skip)
{
	struct uroce_ipv4 ip4;
	struct uroce_ipv6 ip6;
	ssize_t hlen = -1;

	*skip = len;
	if (im->cfg.corrupt_any || !len)
		return 0;
	if (p[0] >> 4 == 4)
		hlen = uroce_ipv4_decode(&ip4, p, len);
	else if (p[0] >> 4 == 6)
		hlen = uroce_ipv6_decode(&ip6, p, len);
	if (hlen < 0 || (size_t)hlen + UROCE_UDP_HLEN + UROCE_BTH_LEN > len)
		return 0; /* not recognisably RoCEv2: anywhere */
	size_t start = (size_t)hlen + UROCE_UDP_HLEN;
	*skip = start + 4;
	return start;
}

/* Flips k distinct bits, k uniform in 1..corrupt_bits, of the region; returns k. Distinct,
 * because two flips of one bit would cancel and leave an intact packet counted as corrupt. */
static uint32_t corrupt_bits(struct uroce_impair *im, uint8_t *p, size_t len)
{
	uint64_t *rng = im->rng[UROCE_IMPAIR_S_BITS];
	uint64_t chosen[UROCE_IMPAIR_MAX_BITS];
	size_t skip, start = corrupt_region(im, p, len, &skip);
	uint64_t nbits = (uint64_t)(len - start - (skip < len)) * 8;
	uint64_t k = 1 + rng_next(rng) % im->cfg.corrupt_bits;

	if (k > nbits)
		k = nbits;
	for (uint64_t i = 0; i < k; i++) {
		uint64_t b;
		bool dup;
		do {
			b = rng_next(rng) % nbits;
			dup = false;
			for (uint64_t j = 0; j < i; j++)
				dup |= chosen[j] == b;
		} while (dup);
		chosen[i] = b;
		size_t byte = start + (size_t)(b / 8);
		if (byte >= skip)
			byte++;
		p[byte] ^= (uint8_t)(1u << (b % 8));
	}
	return (uint32_t)k;
}

void uroce_impair_apply(struct uroce_impair *im, uint8_t *data, size_t len,
			struct uroce_impair_verdict *v)
{
	const struct uroce_impair_cfg *c = &im->cfg;
	bool lost = chance(im, UROCE_IMPAIR_S_LOSS, im->loss53);
	bool burst_lost = burst_step(im);
	bool dup = chance(im, UROCE_IMPAIR_S_DUP, im->dup53);
	bool reorder = chance(im, UROCE_IMPAIR_S_REORDER, im->reorder53);
	bool corrupt = chance(im, UROCE_IMPAIR_S_CORRUPT, im->corrupt53);
	uint64_t jitter = 0;

	/* Modulo bias is below 2^-30 for any jitter up to 10 s: irrelevant here. */
	if (c->jitter_ns)
		jitter = rng_next(im->rng[UROCE_IMPAIR_S_JITTER]) % (c->jitter_ns + 1);

	memset(v, 0, sizeof(*v));
	v->drop = lost ? UROCE_IMPAIR_LOST : burst_lost ? UROCE_IMPAIR_BURST_LOST : UROCE_IMPAIR_KEEP;
	if (v->drop != UROCE_IMPAIR_KEEP)
		return;
	v->dup = dup;
	v->reordered = reorder;
	v->delay_ns = c->delay_ns + jitter + (reorder ? c->reorder_delay_ns : 0);
	if (corrupt && len)
		v->corrupt_bits = corrupt_bits(im, data, len);
}

/* ---- The hold queue ---- */

struct uroce_impair_held {
	uint64_t due, seq;
	uint32_t slot, len, flags;
	uint8_t tos;
	struct uroce_io_addr src, dst;
};

int uroce_impair_hold_init(struct uroce_impair_hold *h, uint32_t max)
{
	memset(h, 0, sizeof(*h));
	h->heap = calloc(max ? max : 1, sizeof(*h->heap));
	h->free_slots = calloc(max ? max : 1, sizeof(*h->free_slots));
	h->buf = calloc(max ? max : 1, UROCE_IMPAIR_HOLD_SLOT);
	if (!h->heap || !h->free_slots || !h->buf)
		return UROCE_ENOMEM;
	h->max = max;
	for (uint32_t i = 0; i < max; i++)
		h->free_slots[i] = max - 1 - i;
	h->nfree = max;
	return 0;
}

void uroce_impair_hold_free(struct uroce_impair_hold *h)
{
	free(h->heap);
	free(h->free_slots);
	free(h->buf);
	memset(h, 0, sizeof(*h));
}

static bool held_before(const struct uroce_impair_held *a, const struct uroce_impair_held *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

bool uroce_impair_hold_push(struct uroce_impair_hold *h, const struct uroce_io_pkt *p,
			    uint64_t due)
{
	if (!h->nfree || p->len > UROCE_IMPAIR_HOLD_SLOT)
		return false;
	uint32_t slot = h->free_slots[--h->nfree];
	memcpy(h->buf + (size_t)slot * UROCE_IMPAIR_HOLD_SLOT, p->data, p->len);
	struct uroce_impair_held e = {.due = due, .seq = h->seq++, .slot = slot, .len = p->len,
				      .flags = p->flags, .tos = p->tos, .src = p->src,
				      .dst = p->dst};
	uint32_t i = h->n++;
	while (i) {
		uint32_t parent = (i - 1) / 2;
		if (!held_before(&e, &h->heap[parent]))
			break;
		h->heap[i] = h->heap[parent];
		i = parent;
	}
	h->heap[i] = e;
	return true;
}

static void hold_pop(struct uroce_impair_hold *h)
{
	struct uroce_impair_held last = h->heap[--h->n];
	uint32_t i = 0;

	h->free_slots[h->nfree++] = h->heap[0].slot;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && held_before(&h->heap[c + 1], &h->heap[c]))
			c++;
		if (!held_before(&h->heap[c], &last))
			break;
		h->heap[i] = h->heap[c];
		i = c;
	}
	if (h->n)
		h->heap[i] = last;
}

size_t uroce_impair_hold_release(struct uroce_impair_hold *h, struct uroce_io_pkt *pkts,
				 size_t n, uint64_t now, uint64_t *truncated)
{
	size_t k = 0;

	for (; k < n && h->n && h->heap[0].due <= now; k++) {
		const struct uroce_impair_held *e = &h->heap[0];
		struct uroce_io_pkt *p = &pkts[k];
		uint32_t len = e->len;

		p->flags = e->flags;
		if (len > p->cap) {
			len = p->cap;
			p->flags |= UROCE_IO_PKT_TRUNC;
			(*truncated)++;
		}
		memcpy(p->data, h->buf + (size_t)e->slot * UROCE_IMPAIR_HOLD_SLOT, len);
		p->len = len;
		p->ts_ns = now;
		p->tos = e->tos;
		p->src = e->src;
		p->dst = e->dst;
		hold_pop(h);
	}
	return k;
}

uint64_t uroce_impair_hold_next_due(const struct uroce_impair_hold *h)
{
	return h->n ? h->heap[0].due : UINT64_MAX;
}

/* CE on an ECN-capable packet, with probability ce (the IP header starts the datagram). */
static bool mark_ce(struct uroce_impair *im, struct uroce_io_pkt *p)
{
	uint8_t *d = p->data;
	bool v6 = p->len >= 40 && d[0] >> 4 == 6;

	if (!im->ce53 || (!v6 && (p->len < 20 || d[0] >> 4 != 4)))
		return false;
	uint8_t ecn = v6 ? (uint8_t)(d[1] >> 4 & 3) : (uint8_t)(d[1] & 3);
	if (ecn == 0 || ecn == 3 || !chance(im, UROCE_IMPAIR_S_CE, im->ce53))
		return false;
	if (v6) {
		d[1] |= 0x30;
	} else {
		d[1] |= 3;
		d[10] = d[11] = 0;
		uint16_t sum = uroce_ipv4_checksum(d, (size_t)(d[0] & 0xF) * 4);
		d[10] = (uint8_t)(sum >> 8);
		d[11] = (uint8_t)sum;
	}
	p->tos |= 3;
	return true;
}

bool uroce_impair_receive(struct uroce_impair *im, struct uroce_impair_hold *h,
			  struct uroce_io_pkt *p, uint64_t now, struct uroce_impair_tally *t)
{
	struct uroce_impair_verdict v;

	uroce_impair_apply(im, p->data, p->len, &v);
	if (v.drop != UROCE_IMPAIR_KEEP) {
		t->impair_lost++;
		return false;
	}
	t->impair_corrupted += v.corrupt_bits != 0;
	if (v.corrupt_bits) /* after any check the backend made: the engine must find it */
		p->flags &= ~(uint32_t)UROCE_IO_PKT_ICRC_OK;
	t->impair_ce_marked += mark_ce(im, p);
	t->impair_reordered += v.reordered;
	t->impair_duplicated += v.dup;
	if (v.delay_ns) {
		t->impair_delayed++;
		/* Both or neither fit; either way each is held or counted hold_full. */
		t->hold_full += !uroce_impair_hold_push(h, p, now + v.delay_ns);
		if (v.dup)
			t->hold_full += !uroce_impair_hold_push(h, p, now + v.delay_ns);
		return false;
	}
	if (v.dup)
		t->hold_full += !uroce_impair_hold_push(h, p, now);
	return true;
}

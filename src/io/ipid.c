/* SPDX-License-Identifier: MIT */
#include "ipid.h"

#include <string.h>

/* Linux numbers the datagrams that leave without a socket's own counter (rxe's among them)
 * with ip_idents_reserve() (net/ipv4/route.c): one counter per hash bucket of (destination,
 * source, protocol), +1 per datagram, plus, when the bucket was last used in an earlier
 * jiffy, a random jump get_random_u32_below(now - old) below the jiffies it was idle. With
 * HZ <= 1000 the jump is at most the idle time in ms, rounded up, so a sequence's window
 * grows by one ID per ms since its last accepted packet. */
#define NS_PER_MS 1000000u
/* Once a window that wide covers every ID, the sequence says nothing: the peer starts anew. */
#define SPAN 65536u

/* The score that decides fallback: a rejection adds MISS, a fit takes 1 away, a resync MISS
 * (it explains the rejection before it). A sender with random IDs is taken as it is from its
 * fourth rejection in a row; one that starts several counters at once resyncs each of them
 * first. Leaving fallback takes at most SCORE_MAX fits. */
#define MISS 8
#define FALLBACK_AT 32
#define SCORE_MAX 64

/* How far to is above from, in the order of the 16-bit wrap. */
static uint16_t fwd(uint16_t from, uint16_t to)
{
	return (uint16_t)(to - from);
}

static bool same_key(const struct uroce_ipid_peer *p, const uint8_t src[4],
		     const uint8_t dst[4])
{
	return !memcmp(p->src, src, 4) && !memcmp(p->dst, dst, 4);
}

/* Every input bit reaches every output bit (the finalizer of MurmurHash3, fmix32): peers
 * that differ only in the last byte of an address, the common case, land in different sets. */
static uint32_t mix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	h ^= h >> 16;
	return h;
}

static struct uroce_ipid_peer *set_of(struct uroce_ipid *t, const uint8_t src[4],
				      const uint8_t dst[4])
{
	uint32_t s, d;

	memcpy(&s, src, 4);
	memcpy(&d, dst, 4);
	return &t->peers[mix(s ^ mix(d)) % UROCE_IPID_SETS * UROCE_IPID_WAYS];
}

static struct uroce_ipid_peer *find(struct uroce_ipid *t, const uint8_t src[4],
				    const uint8_t dst[4])
{
	struct uroce_ipid_peer *set = set_of(t, src, dst);

	for (int w = 0; w < UROCE_IPID_WAYS; w++)
		if (set[w].used && same_key(&set[w], src, dst))
			return &set[w];
	return NULL;
}

/* An empty entry for the peer src -> dst. */
static void init(struct uroce_ipid_peer *p, const uint8_t src[4], const uint8_t dst[4])
{
	memset(p, 0, sizeof(*p));
	p->used = true;
	memcpy(p->src, src, 4);
	memcpy(p->dst, dst, 4);
}

/* A place for a new peer: a free one of its set, else the least recently heard. */
static struct uroce_ipid_peer *claim(struct uroce_ipid *t, const uint8_t src[4],
				     const uint8_t dst[4])
{
	struct uroce_ipid_peer *set = set_of(t, src, dst), *p = &set[0];

	for (int w = 0; w < UROCE_IPID_WAYS; w++) {
		if (!set[w].used) {
			p = &set[w];
			break;
		}
		if (set[w].heard < p->heard)
			p = &set[w];
	}
	if (p->used)
		t->evictions++;
	init(p, src, dst);
	return p;
}

static uint64_t since(uint64_t then, uint64_t now)
{
	return now > then ? now - then : 0;
}

/* How far above the primary sequence's highest ID the next one may be: AHEAD, plus one per
 * ms (rounded up) since it was last accepted; at most SPAN. */
static uint32_t primary_ahead(const struct uroce_ipid_peer *p, uint64_t now)
{
	uint64_t idle = since(p->seq[p->primary].t, now);
	uint64_t ms = idle / NS_PER_MS + (idle % NS_PER_MS != 0);
	return ms >= SPAN ? SPAN : UROCE_IPID_AHEAD + (uint32_t)ms;
}

static bool active(const struct uroce_ipid_seq *s, uint64_t now)
{
	return s->used && since(s->t, now) <= UROCE_IPID_ACTIVE_NS;
}

/* The place for a new sequence or candidate: a free one, else one no longer active, else the
 * oldest candidate, else the least recently used sequence; never the primary, which is what
 * a sender with one counter (Linux) relies on. */
static struct uroce_ipid_seq *place(struct uroce_ipid_peer *p, uint64_t now)
{
	struct uroce_ipid_seq *best = NULL;
	int best_rank = -1;

	for (int i = 0; i < UROCE_IPID_SEQS; i++) {
		struct uroce_ipid_seq *s = &p->seq[i];
		int rank = !s->used ? 3 : !active(s, now) ? 2 : !s->confirmed ? 1 : 0;

		if (i == p->primary && s->used)
			continue;
		if (rank > best_rank || (rank == best_rank && s->t < best->t)) {
			best = s;
			best_rank = rank;
		}
	}
	return best;
}

/* A new sequence at id, as primary. */
static void start(struct uroce_ipid_peer *p, uint16_t id, uint64_t now)
{
	struct uroce_ipid_seq *s = place(p, now);

	*s = (struct uroce_ipid_seq){.t = now, .last = id, .used = true, .confirmed = true};
	p->primary = (uint8_t)(s - p->seq);
}

/* The sequence whose window holds id, or -1: [last - BEHIND, last + ahead], where ahead grows
 * with time for the primary only; the others count while active. Among several, the
 * nearest. */
static int fit(const struct uroce_ipid_peer *p, uint16_t id, uint64_t now)
{
	int best = -1;
	uint32_t best_dist = SPAN;

	for (int i = 0; i < UROCE_IPID_SEQS; i++) {
		const struct uroce_ipid_seq *s = &p->seq[i];
		uint32_t ahead = UROCE_IPID_AHEAD;

		if (!s->confirmed)
			continue;
		if (i == p->primary)
			ahead = primary_ahead(p, now);
		else if (!active(s, now))
			continue;
		uint16_t up = fwd(s->last, id), down = fwd(id, s->last);
		uint32_t dist = down <= UROCE_IPID_BEHIND ? down : up <= ahead ? up : SPAN;
		if (dist < best_dist) {
			best = i;
			best_dist = dist;
		}
	}
	return best;
}

/* The active candidate that id continues (1 to RESYNC_AHEAD above it), or -1. Narrower than a
 * sequence's window: the packet after a jump comes soon, and while a candidate waits its
 * window weakens the check like a sequence's. */
static int continues(const struct uroce_ipid_peer *p, uint16_t id, uint64_t now)
{
	for (int i = 0; i < UROCE_IPID_SEQS; i++) {
		const struct uroce_ipid_seq *s = &p->seq[i];
		uint16_t up = fwd(s->last, id);

		if (!s->confirmed && active(s, now) && up >= 1 && up <= UROCE_IPID_RESYNC_AHEAD)
			return i;
	}
	return -1;
}

/* Keeps the rejected id as a candidate (once: a repeated packet refreshes it). */
static void remember(struct uroce_ipid_peer *p, uint16_t id, uint64_t now)
{
	struct uroce_ipid_seq *s = NULL;

	for (int i = 0; i < UROCE_IPID_SEQS && !s; i++)
		if (p->seq[i].used && !p->seq[i].confirmed && p->seq[i].last == id)
			s = &p->seq[i];
	if (!s)
		s = place(p, now);
	*s = (struct uroce_ipid_seq){.t = now, .last = id, .used = true};
}

/* id was accepted into sequence i. */
static void advance(struct uroce_ipid_peer *p, int i, uint16_t id, uint64_t now)
{
	struct uroce_ipid_seq *s = &p->seq[i];

	if (fwd(id, s->last) > UROCE_IPID_BEHIND) /* above, not a late or repeated one */
		s->last = id;
	s->t = now;
	s->confirmed = true;
	p->primary = (uint8_t)i;
}

static void score_down(struct uroce_ipid_peer *p, unsigned by)
{
	p->score = (uint8_t)(p->score > by ? p->score - by : 0);
	if (!p->score)
		p->fallback = false;
}

static void score_up(struct uroce_ipid *t, struct uroce_ipid_peer *p)
{
	p->score = (uint8_t)(p->score + MISS > SCORE_MAX ? SCORE_MAX : p->score + MISS);
	if (!p->fallback && p->score >= FALLBACK_AT) {
		p->fallback = true;
		t->fallbacks++;
	}
}

enum uroce_ipid_verdict uroce_ipid_check(struct uroce_ipid *t, const uint8_t src[4],
					 const uint8_t dst[4], uint16_t id, bool verified,
					 uint64_t now)
{
	struct uroce_ipid_peer *p = find(t, src, dst);

	if (!p || primary_ahead(p, now) + UROCE_IPID_BEHIND + 1 >= SPAN) {
		/* New, or silent so long that its window holds every ID: nothing to check. */
		if (p)
			init(p, src, dst);
		else
			p = claim(t, src, dst);
		p->heard = now;
		start(p, id, now);
		return verified ? UROCE_IPID_VERIFIED : UROCE_IPID_FIRST;
	}
	p->heard = now;
	int i = fit(p, id, now);
	if (i >= 0) {
		advance(p, i, id, now);
		score_down(p, 1);
		return verified ? UROCE_IPID_VERIFIED : UROCE_IPID_WINDOW;
	}
	if (verified) {
		/* Sure (the ICRC held as received), so it needs no confirmation: uroce's own
		 * ID 0 after another sender's IDs, or another counter of the same sender. */
		start(p, id, now);
		return UROCE_IPID_VERIFIED;
	}
	if ((i = continues(p, id, now)) >= 0) {
		/* The sender jumped (a burst of losses, another counter): the rejected packet
		 * cost a resend, this one confirms the new sequence. */
		advance(p, i, id, now);
		score_down(p, MISS);
		return UROCE_IPID_RESYNC;
	}
	score_up(t, p);
	if (p->fallback) {
		/* Taken as it is; the sequence is the sender's, if the sender keeps one. */
		start(p, id, now);
		return UROCE_IPID_FALLBACK;
	}
	remember(p, id, now);
	return UROCE_IPID_REJECT;
}

void uroce_ipid_unsolved(struct uroce_ipid *t, const uint8_t src[4], const uint8_t dst[4])
{
	struct uroce_ipid_peer *p = find(t, src, dst);

	if (p)
		score_down(p, 1);
}

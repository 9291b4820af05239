/* SPDX-License-Identifier: MIT */
/* The IPv4 Identification tracker of the UDP backend (io/ipid.h) on its own, with virtual
 * time: the window around a sequence (gaps, duplicates, reordering, growth with silence), a
 * jump confirmed by the next packet, several sequences, fallback for a sender with random IDs
 * and the way back, uroce's own ID 0 and GSO numbering, the table making room; then every
 * RoCEv2/IPv4 packet of the rxe captures, replayed with their capture times (skipped without
 * ../shared). */
#include "testutil.h"

#include <dirent.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/ipid.h"
#include "wire/bytes.h"
#include "wire/icrc_id.h"
#include "wire/ip.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define T0 (5 * SEC) /* virtual time starts anywhere */

static const uint8_t A[4] = {10, 0, 0, 1}, B[4] = {10, 0, 0, 2}, C[4] = {10, 0, 0, 3};

static struct uroce_ipid *tracker(void)
{
	struct uroce_ipid *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	return t;
}

/* A solved (not verified) ID from A to B. */
static enum uroce_ipid_verdict solved(struct uroce_ipid *t, uint16_t id, uint64_t now)
{
	return uroce_ipid_check(t, A, B, id, false, now);
}

static void test_window(void **state)
{
	struct uroce_ipid *t = tracker();
	(void)state;

	assert_int_equal(solved(t, 1000, T0), UROCE_IPID_FIRST);
	assert_int_equal(solved(t, 1001, T0), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 1001, T0), UROCE_IPID_WINDOW);       /* duplicate */
	assert_int_equal(solved(t, 1003, T0), UROCE_IPID_WINDOW);       /* one lost */
	assert_int_equal(solved(t, 1002, T0), UROCE_IPID_WINDOW);       /* late */
	/* The highest stays 1003: the window is [1003 - 64, 1003 + 64] at this instant. */
	assert_int_equal(solved(t, 1003 - UROCE_IPID_BEHIND, T0), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 1003 - UROCE_IPID_BEHIND - 1, T0), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 1003 + UROCE_IPID_AHEAD + 1, T0), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 1003 + UROCE_IPID_AHEAD, T0), UROCE_IPID_WINDOW);
	/* Across the 16-bit wrap. */
	assert_int_equal(solved(t, 0xFFF0, T0), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 0xFFF1, T0), UROCE_IPID_RESYNC);
	assert_int_equal(solved(t, 0x0020, T0), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 0xFFFE, T0), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 0x0020 + UROCE_IPID_AHEAD, T0), UROCE_IPID_WINDOW);
	/* Another destination, another source: other peers. */
	assert_int_equal(uroce_ipid_check(t, A, C, 0x0021, false, T0), UROCE_IPID_FIRST);
	assert_int_equal(uroce_ipid_check(t, C, B, 0x0021, false, T0), UROCE_IPID_FIRST);
	assert_int_equal(t->evictions + t->fallbacks, 0);
	free(t);
}

/* Linux's jump after a silence is below the silence in jiffies, so below it in ms: the
 * window grows by one ID per ms (rounded up) since the last accepted packet. */
static void test_silence_grows_window(void **state)
{
	struct uroce_ipid *t = tracker();
	(void)state;

	assert_int_equal(solved(t, 500, T0), UROCE_IPID_FIRST);
	assert_int_equal(solved(t, 500 + UROCE_IPID_AHEAD + 101, T0 + 100 * MS), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 500 + UROCE_IPID_AHEAD + 100, T0 + 100 * MS), UROCE_IPID_WINDOW);
	uint16_t last = 500 + UROCE_IPID_AHEAD + 100;
	/* Half a ms more counts as one. */
	assert_int_equal(solved(t, (uint16_t)(last + UROCE_IPID_AHEAD + 4), T0 + 103 * MS),
			 UROCE_IPID_REJECT);
	assert_int_equal(solved(t, (uint16_t)(last + UROCE_IPID_AHEAD + 4), T0 + 103 * MS + MS / 2),
			 UROCE_IPID_WINDOW);
	last = (uint16_t)(last + UROCE_IPID_AHEAD + 4);
	/* 20 s: a jump of up to 20064. Not below the window, though. */
	uint64_t now = T0 + 21 * SEC;
	assert_int_equal(solved(t, (uint16_t)(last - UROCE_IPID_BEHIND - 1), now), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, (uint16_t)(last + 20000), now), UROCE_IPID_WINDOW);
	last = (uint16_t)(last + 20000);
	/* After 65.4 s the window would hold every ID: the peer starts anew. */
	now += 65407 * MS;
	assert_int_equal(solved(t, (uint16_t)(last + 30000), now - MS), UROCE_IPID_WINDOW);
	last = (uint16_t)(last + 30000);
	now += 65407 * MS;
	assert_int_equal(solved(t, (uint16_t)(last - 1000), now), UROCE_IPID_FIRST);
	assert_int_equal(solved(t, (uint16_t)(last - 999), now), UROCE_IPID_WINDOW);
	/* The clock going back is no silence. */
	assert_int_equal(solved(t, (uint16_t)(last - 999 + UROCE_IPID_AHEAD + 1), now - SEC),
			 UROCE_IPID_REJECT);
	assert_int_equal(t->evictions, 0);
	free(t);
}

/* A jump the window does not explain costs one packet: the next one continuing it starts a
 * new sequence; the old one still counts for a while, then not. */
static void test_resync(void **state)
{
	struct uroce_ipid *t = tracker();
	(void)state;

	assert_int_equal(solved(t, 100, T0), UROCE_IPID_FIRST);
	assert_int_equal(solved(t, 101, T0), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 900, T0), UROCE_IPID_REJECT);    /* 798 lost at once */
	assert_int_equal(solved(t, 102, T0), UROCE_IPID_WINDOW);    /* the candidate stays */
	assert_int_equal(solved(t, 901, T0), UROCE_IPID_RESYNC);
	assert_int_equal(solved(t, 902, T0), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 103, T0 + SEC / 2), UROCE_IPID_WINDOW); /* the old one, active */
	assert_int_equal(solved(t, 903, T0 + SEC / 2), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 104, T0 + 2 * SEC), UROCE_IPID_REJECT); /* no longer */
	/* A candidate is continued from 1 to RESYNC_AHEAD above it, while it is recent (each
	 * case on a peer of its own). */
	uint8_t d[4] = {10, 0, 1, 1};
	assert_int_equal(uroce_ipid_check(t, A, d, 5000, false, T0), UROCE_IPID_FIRST);
	assert_int_equal(uroce_ipid_check(t, A, d, 20000, false, T0), UROCE_IPID_REJECT);
	assert_int_equal(uroce_ipid_check(t, A, d, 20000, false, T0), UROCE_IPID_REJECT);
	assert_int_equal(uroce_ipid_check(t, A, d, 20000 + UROCE_IPID_RESYNC_AHEAD, false, T0),
			 UROCE_IPID_RESYNC);
	d[3]++;
	assert_int_equal(uroce_ipid_check(t, A, d, 5000, false, T0), UROCE_IPID_FIRST);
	assert_int_equal(uroce_ipid_check(t, A, d, 20000, false, T0), UROCE_IPID_REJECT);
	assert_int_equal(uroce_ipid_check(t, A, d, 19999, false, T0), UROCE_IPID_REJECT);
	d[3]++;
	assert_int_equal(uroce_ipid_check(t, A, d, 5000, false, T0), UROCE_IPID_FIRST);
	assert_int_equal(uroce_ipid_check(t, A, d, 20000, false, T0), UROCE_IPID_REJECT);
	assert_int_equal(uroce_ipid_check(t, A, d, 20000 + UROCE_IPID_RESYNC_AHEAD + 1, false,
					  T0), UROCE_IPID_REJECT);
	d[3]++;
	assert_int_equal(uroce_ipid_check(t, A, d, 5000, false, T0), UROCE_IPID_FIRST);
	assert_int_equal(uroce_ipid_check(t, A, d, 30000, false, T0), UROCE_IPID_REJECT);
	assert_int_equal(uroce_ipid_check(t, A, d, 30001, false, T0 + 2 * SEC), UROCE_IPID_REJECT);
	assert_int_equal(t->fallbacks, 0);
	free(t);
}

/* A sender with one counter per QP: each becomes a sequence, one rejected packet each. */
static void test_several_sequences(void **state)
{
	static const uint16_t base[UROCE_IPID_SEQS] = {1000, 9000, 30000, 50000};
	struct uroce_ipid *t = tracker();
	uint16_t next[UROCE_IPID_SEQS];
	size_t rejected = 0;
	(void)state;

	memcpy(next, base, sizeof(next));
	for (int round = 0; round < 50; round++) {
		for (int q = 0; q < UROCE_IPID_SEQS; q++) {
			enum uroce_ipid_verdict v = solved(t, next[q]++, T0 + (uint64_t)round * MS);
			if (round >= 2)
				assert_int_equal(v, UROCE_IPID_WINDOW);
			rejected += v == UROCE_IPID_REJECT;
		}
	}
	assert_int_equal(rejected, UROCE_IPID_SEQS - 1); /* the first was FIRST */
	assert_int_equal(t->fallbacks, 0);
	/* A fifth counter takes the place of the least recently used one. */
	uint64_t now = T0 + 100 * MS;
	assert_int_equal(solved(t, 60000, now), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 60001, now), UROCE_IPID_RESYNC);
	for (int q = 1; q < UROCE_IPID_SEQS; q++)
		assert_int_equal(solved(t, next[q]++, now), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, next[0], now), UROCE_IPID_REJECT);
	free(t);
}

/* Random IDs (a sender without a counter): from the fourth rejection in a row the peer is
 * taken as it is (fallback); it comes back once its IDs fit for long enough. */
static void test_fallback(void **state)
{
	struct uroce_ipid *t = tracker();
	uint64_t now = T0;
	(void)state;

	assert_int_equal(solved(t, 4242, now), UROCE_IPID_FIRST);
	assert_int_equal(solved(t, 17, now), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 60000, now), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 31000, now), UROCE_IPID_REJECT);
	assert_int_equal(t->fallbacks, 0);
	assert_int_equal(solved(t, 9, now), UROCE_IPID_FALLBACK);
	assert_int_equal(t->fallbacks, 1);
	size_t fallback = 0, fit = 0;
	for (int i = 0; i < 1000; i++) {
		enum uroce_ipid_verdict v = solved(t, (uint16_t)test_rand(), now += MS / 10);
		fallback += v == UROCE_IPID_FALLBACK;
		fit += v == UROCE_IPID_WINDOW || v == UROCE_IPID_RESYNC;
	}
	assert_int_equal(fallback + fit, 1000); /* nothing rejected */
	assert_true(fallback > 900);
	assert_int_equal(t->fallbacks, 1);
	/* Sequential again: after at most 64 fitting packets, checked again. */
	uint16_t id = 7;
	assert_int_equal(solved(t, id, now), UROCE_IPID_FALLBACK);
	for (int i = 0; i < 64; i++)
		assert_int_equal(solved(t, ++id, now), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, (uint16_t)(id + 5000), now), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, ++id, now), UROCE_IPID_WINDOW);
	free(t);
}

/* Packets no ID explains are corruption, not random IDs: a link that corrupts much does not
 * put its peer in fallback through the rare corrupted packet some ID explains. */
static void test_unsolved_not_fallback(void **state)
{
	struct uroce_ipid *t = tracker();
	(void)state;

	assert_int_equal(solved(t, 100, T0), UROCE_IPID_FIRST);
	for (int k = 0; k < 10; k++) {
		assert_int_equal(solved(t, (uint16_t)(20000 + 3000 * k), T0), UROCE_IPID_REJECT);
		for (int i = 0; i < 8; i++)
			uroce_ipid_unsolved(t, A, B);
	}
	assert_int_equal(t->fallbacks, 0);
	assert_int_equal(solved(t, 101, T0), UROCE_IPID_WINDOW);
	/* Unknown peer: nothing recorded. */
	uroce_ipid_unsolved(t, C, B);
	assert_int_equal(uroce_ipid_check(t, C, B, 5, false, T0), UROCE_IPID_FIRST);
	free(t);
}

/* uroce sends ID 0 (verified as received), and k for GSO segment k: every packet fits; a
 * corrupted packet explained by a distant ID does not. A verified ID that fits nothing is
 * sure enough to start a sequence of its own. */
static void test_uroce_pattern(void **state)
{
	struct uroce_ipid *t = tracker();
	uint64_t now = T0;
	(void)state;

	for (int run = 0; run < 100; run++) {
		int segs = 1 + run % 64;
		now += 10000;
		assert_int_equal(uroce_ipid_check(t, A, B, 0, true, now), UROCE_IPID_VERIFIED);
		for (int k = 1; k < segs; k++)
			assert_int_equal(solved(t, (uint16_t)k, now), UROCE_IPID_WINDOW);
	}
	assert_int_equal(solved(t, 200, now), UROCE_IPID_REJECT);
	assert_int_equal(solved(t, 64000, now), UROCE_IPID_REJECT);
	/* Verified IDs never fail, and need no confirmation. */
	assert_int_equal(uroce_ipid_check(t, A, B, 40000, true, now), UROCE_IPID_VERIFIED);
	assert_int_equal(solved(t, 40001, now), UROCE_IPID_WINDOW);
	assert_int_equal(solved(t, 5, now), UROCE_IPID_WINDOW); /* the other one still counts */
	assert_int_equal(uroce_ipid_check(t, C, B, 0, true, now), UROCE_IPID_VERIFIED);
	assert_int_equal(uroce_ipid_check(t, C, B, 1, false, now), UROCE_IPID_WINDOW);
	free(t);
}

/* More peers than places: the least recently heard of a set makes room, and is new again
 * when it comes back; a peer heard often stays. */
static void test_eviction(void **state)
{
	struct uroce_ipid *t = tracker();
	uint64_t now = T0;
	uint8_t src[4] = {10, 1, 0, 0};
	(void)state;

	assert_int_equal(uroce_ipid_check(t, C, B, 1, false, now), UROCE_IPID_FIRST);
	assert_int_equal(solved(t, 1, now), UROCE_IPID_FIRST);
	uint16_t id = 1;
	for (uint32_t i = 0; i < 4 * UROCE_IPID_PEERS; i++) {
		put_be16(src + 2, (uint16_t)i);
		now += 1000;
		assert_int_equal(uroce_ipid_check(t, src, B, 77, false, now), UROCE_IPID_FIRST);
		assert_int_equal(solved(t, ++id, now), UROCE_IPID_WINDOW);
	}
	assert_true(t->evictions >= 3 * UROCE_IPID_PEERS);
	assert_true(t->evictions <= 4 * UROCE_IPID_PEERS);
	assert_int_equal(uroce_ipid_check(t, C, B, 2, false, now), UROCE_IPID_FIRST);
	/* The most recent ones are still known. */
	put_be16(src + 2, (uint16_t)(4 * UROCE_IPID_PEERS - 1));
	assert_int_equal(uroce_ipid_check(t, src, B, 78, false, now), UROCE_IPID_WINDOW);

	/* Peers that differ in the last byte of an address only spread over the sets: 512 of
	 * them in 256 sets of 4 make room about 18 times when spread at random (sets of 5 or
	 * more); all in a few sets, hundreds of times. */
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 256; i++) {
		uint8_t s2[4] = {192, 168, 1, (uint8_t)i}, d2[4] = {192, 168, 2, (uint8_t)i};
		assert_int_equal(uroce_ipid_check(t, s2, B, 1, false, now), UROCE_IPID_FIRST);
		assert_int_equal(uroce_ipid_check(t, A, d2, 1, false, now), UROCE_IPID_FIRST);
	}
	print_message("512 peers in %d places: %llu made room\n", UROCE_IPID_PEERS,
		      (unsigned long long)t->evictions);
	assert_true(t->evictions <= 48);
	free(t);
}

/* How many of the 2^16 IDs the peer src -> dst would accept at `now`, each tried on the
 * entry as it is (restored after every try): a corruption explained by some ID is explained
 * by a uniform one, so it passes with probability width / 2^16, and a random corruption with
 * width x 2^-32. */
static uint32_t width(struct uroce_ipid *t, const uint8_t src[4], const uint8_t dst[4],
		      uint64_t now)
{
	struct uroce_ipid_peer *p = NULL;
	uint64_t evictions = t->evictions, fallbacks = t->fallbacks;
	uint32_t n = 0;

	for (size_t i = 0; i < UROCE_IPID_PEERS && !p; i++)
		if (t->peers[i].used && !memcmp(t->peers[i].src, src, 4) &&
		    !memcmp(t->peers[i].dst, dst, 4))
			p = &t->peers[i];
	assert_non_null(p);
	struct uroce_ipid_peer saved = *p;
	for (uint32_t x = 0; x < 0x10000; x++) {
		n += uroce_ipid_accepted(uroce_ipid_check(t, src, dst, (uint16_t)x, false, now));
		*p = saved;
	}
	t->evictions = evictions;
	t->fallbacks = fallbacks;
	return n;
}

/* The widths docs/udp.md gives, exactly. */
static void test_window_width(void **state)
{
	struct uroce_ipid *t = tracker();
	uint64_t now = T0;
	uint16_t id = 1000;
	(void)state;

	/* A busy Linux sender: one packet every 10 us. */
	assert_int_equal(solved(t, id, now), UROCE_IPID_FIRST);
	for (int i = 0; i < 100; i++)
		assert_int_equal(solved(t, ++id, now += 10000), UROCE_IPID_WINDOW);
	uint32_t busy = width(t, A, B, now), next = width(t, A, B, now + 10000);
	assert_int_equal(busy, UROCE_IPID_BEHIND + 1 + UROCE_IPID_AHEAD);   /* 129 */
	assert_int_equal(next, UROCE_IPID_BEHIND + 1 + UROCE_IPID_AHEAD + 1); /* 130 */
	/* After 50 ms of silence: 50 more. */
	uint32_t silent = width(t, A, B, now + 50 * MS);
	assert_int_equal(silent, busy + 50);
	/* A rejected ID waits as a candidate: 16 more while it does (up to a second). */
	assert_int_equal(solved(t, (uint16_t)(id + 30000), now), UROCE_IPID_REJECT);
	uint32_t cand = width(t, A, B, now);
	assert_int_equal(cand, busy + UROCE_IPID_RESYNC_AHEAD);
	assert_int_equal(width(t, A, B, now + SEC + 1), busy + 1000 + 1);
	/* Confirmed: two sequences for a second, then the new one alone. */
	assert_int_equal(solved(t, (uint16_t)(id + 30001), now), UROCE_IPID_RESYNC);
	uint32_t two = width(t, A, B, now);
	assert_int_equal(two, 2 * busy);
	/* uroce's 0 and GSO numbering. */
	uint8_t d[4] = {10, 0, 9, 9};
	assert_int_equal(uroce_ipid_check(t, A, d, 0, true, now), UROCE_IPID_VERIFIED);
	for (uint16_t k = 1; k < 16; k++)
		assert_int_equal(uroce_ipid_check(t, A, d, k, false, now), UROCE_IPID_WINDOW);
	assert_int_equal(width(t, A, d, now), busy);
	/* Random IDs: fallback takes every one. */
	d[3]++;
	assert_int_equal(uroce_ipid_check(t, A, d, 1, false, now), UROCE_IPID_FIRST);
	for (int i = 0; i < 4; i++)
		uroce_ipid_check(t, A, d, (uint16_t)(10000 * (i + 2)), false, now);
	assert_int_equal(t->fallbacks, 1);
	uint32_t fallback = width(t, A, d, now);
	assert_int_equal(fallback, 0x10000);
	print_message("window widths (of 65536 IDs): busy %u, next packet 10 us later %u, after "
		      "50 ms %u, with a candidate %u, just after a resync %u, fallback %u\n",
		      busy, next, silent, cand, two, fallback);
	free(t);
}

/* ---- the rxe captures, replayed ---- */

struct replay {
	struct uroce_ipid *t;
	size_t pkts, nonzero, by[UROCE_IPID_REJECT + 1];
	uint16_t rejected_id[8];
	uint64_t rejected_gap[8]; /* ns since the previous packet of its peer */
};

static void replay_frame(struct replay *r, const uint8_t *data, size_t len, uint64_t now)
{
	struct uroce_pkt pkt;
	uint8_t buf[9216];
	uint16_t id;

	if (uroce_pkt_dissect(&pkt, UROCE_LINK_ETHERNET, data, len) < 0 ||
	    pkt.encap != UROCE_ENCAP_ROCEV2 || !(pkt.layers & UROCE_L_IPV4) ||
	    !(pkt.layers & UROCE_L_ICRC))
		return;
	size_t dlen = pkt.ip4.total_len;
	assert_true(pkt.l3_off + dlen <= len && dlen <= sizeof(buf));
	/* What a UDP receiver rebuilds: ID 0. */
	memcpy(buf, data + pkt.l3_off, dlen);
	put_be16(buf + 4, 0);
	put_be16(buf + 10, 0);
	put_be16(buf + 10, uroce_ipv4_checksum(buf, 20));
	enum uroce_icrc_id_result res = uroce_icrc_id_solve(buf, dlen, NULL, &id);
	assert_true(res == UROCE_ICRC_ID_OK || res == UROCE_ICRC_ID_SOLVED);
	assert_int_equal(id, pkt.ip4.id);
	const struct uroce_ipid_peer *p = NULL;
	for (size_t i = 0; i < UROCE_IPID_PEERS && !p; i++)
		if (r->t->peers[i].used && !memcmp(r->t->peers[i].src, pkt.ip4.src, 4) &&
		    !memcmp(r->t->peers[i].dst, pkt.ip4.dst, 4))
			p = &r->t->peers[i];
	uint64_t heard = p ? p->heard : now;
	enum uroce_ipid_verdict v = uroce_ipid_check(r->t, pkt.ip4.src, pkt.ip4.dst, id,
						     res == UROCE_ICRC_ID_OK, now);
	if (v == UROCE_IPID_REJECT && r->by[v] < 8) {
		r->rejected_id[r->by[v]] = id;
		r->rejected_gap[r->by[v]] = now - heard;
	}
	r->by[v]++;
	r->pkts++;
	r->nonzero += id != 0;
}

/* Each capture into a tracker of its own, with the capture's times. */
static void replay_file(struct replay *r, const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;

	assert_non_null(pc);
	assert_int_equal(pcap_datalink(pc), DLT_EN10MB);
	r->t = tracker();
	while (pcap_next_ex(pc, &h, &data) == 1)
		replay_frame(r, data, h->caplen,
			     (uint64_t)h->ts.tv_sec * SEC + (uint64_t)h->ts.tv_usec * 1000);
	pcap_close(pc);
	free(r->t);
}

/* Every packet is accepted (a first one per direction and file, the others in the window)
 * but one: rxe-rdmacm-send.pcap was cut (its 800-odd data packets are not in the file), so
 * the first packet after the cut is 812 IDs ahead after 385 ms, which no window allows and a
 * resend (or, here, the next packet) resyncs. */
static void test_rxe_captures(void **state)
{
	const char *dir = test_captures_dir();
	struct replay r = {0};
	struct dirent *de;
	char path[4200];
	(void)state;

	if (!dir) {
		print_message("skipped: no ../shared/testdata/captures\n");
		skip();
	}
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t files = 0;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		if (strncmp(de->d_name, "rxe-", 4) || nl < 5 || strcmp(de->d_name + nl - 5, ".pcap"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		replay_file(&r, path);
		files++;
	}
	closedir(d);
	print_message("rxe captures: %zu RoCEv2/IPv4 packets (%zu with a nonzero ID): %zu first, "
		      "%zu in a window, %zu resynced, %zu rejected, %zu in fallback\n",
		      r.pkts, r.nonzero, r.by[UROCE_IPID_FIRST], r.by[UROCE_IPID_WINDOW],
		      r.by[UROCE_IPID_RESYNC], r.by[UROCE_IPID_REJECT], r.by[UROCE_IPID_FALLBACK]);
	for (size_t i = 0; i < r.by[UROCE_IPID_REJECT] && i < 8; i++)
		print_message("  rejected: ID 0x%04x, %.1f ms after its peer's previous packet\n",
			      r.rejected_id[i], (double)r.rejected_gap[i] / MS);
	assert_true(files >= 7);
	assert_true(r.pkts > 4000);
	assert_true(r.by[UROCE_IPID_FIRST] <= 2 * files);
	assert_int_equal(r.by[UROCE_IPID_REJECT], 1);
	assert_int_equal(r.rejected_id[0], 0xca48);
	assert_int_equal(r.by[UROCE_IPID_RESYNC], 1);
	assert_int_equal(r.by[UROCE_IPID_FALLBACK], 0);
	assert_int_equal(r.by[UROCE_IPID_VERIFIED], r.pkts - r.nonzero);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_silence_grows_window),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_several_sequences),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_unsolved_not_fallback),
		cmocka_unit_test(test_uroce_pattern),
		cmocka_unit_test(test_eviction),
		cmocka_unit_test(test_window_width),
		cmocka_unit_test(test_rxe_captures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

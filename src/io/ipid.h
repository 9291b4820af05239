/* SPDX-License-Identifier: MIT */
/* The IPv4 Identification tracker of the UDP backend (docs/udp.md, "Which solved IDs are
 * accepted"). A UDP socket does not show the received IPv4 ID, which the ICRC covers, so the
 * backend solves for the one ID that makes the ICRC verify (wire/icrc_id.h); a random
 * corruption is explained by some ID with probability 2^-16. Senders number a flow's
 * datagrams predictably, so the tracker remembers each peer's IDs and accepts a solved ID only
 * near the next one expected: the corruption then also has to land in that window, W of the
 * 2^16 IDs, and passes with probability W x 2^-32.
 *
 * A peer is a (source, destination) IPv4 address pair, the key of Linux's ID counters. Per
 * peer it keeps up to UROCE_IPID_SEQS sequences (the highest ID accepted and when) or
 * candidates (rejected IDs the next packet may confirm), and a score of recent misses. Time
 * is passed in (ns, any monotonic origin); the table is fixed, zero-initialised, never
 * allocates. Not thread-safe. */
#ifndef UROCE_IO_IPID_H
#define UROCE_IO_IPID_H

#include <stdbool.h>
#include <stdint.h>

#define UROCE_IPID_BEHIND 64   /* accepted below a sequence's highest ID: reordering, and
				* uroce's GSO numbering 0..63 starting over at 0 */
#define UROCE_IPID_AHEAD 64    /* accepted above it at once: lost packets */
#define UROCE_IPID_RESYNC_AHEAD 16 /* how far above a rejected ID the next one confirms it */
#define UROCE_IPID_SEQS 4      /* sequences and candidates per peer (senders with several
				* counters) */
#define UROCE_IPID_WAYS 4      /* peers per hash set */
#define UROCE_IPID_SETS 256
#define UROCE_IPID_PEERS (UROCE_IPID_WAYS * UROCE_IPID_SETS)
#define UROCE_IPID_ACTIVE_NS 1000000000ull /* how long other sequences and candidates count */

/* A sequence: the IDs of one sender's counter, or a candidate for one (a rejected ID the next
 * packet may confirm). */
struct uroce_ipid_seq {
	uint64_t t;     /* when an ID of it was last accepted (candidate: rejected) */
	uint16_t last;  /* the highest such ID, in the order of the 16-bit wrap */
	bool used, confirmed;
};

struct uroce_ipid_peer {
	uint8_t src[4], dst[4];
	uint64_t heard;  /* the last packet with an ID: the least recently heard peer makes room */
	struct uroce_ipid_seq seq[UROCE_IPID_SEQS];
	uint8_t primary; /* the sequence accepted into last: the one whose window grows */
	uint8_t score;   /* recent misses, for fallback */
	bool used, fallback;
};

struct uroce_ipid {
	struct uroce_ipid_peer peers[UROCE_IPID_PEERS]; /* UROCE_IPID_SETS sets of WAYS */
	uint64_t evictions; /* peers forgotten to make room */
	uint64_t fallbacks; /* times a peer went into fallback */
};

/* What happened to one ID. The first five accept the packet, the last rejects it. */
enum uroce_ipid_verdict {
	UROCE_IPID_VERIFIED, /* the ICRC verified with the rebuilt ID: accepted, recorded */
	UROCE_IPID_WINDOW,   /* within the window of one of the peer's sequences */
	UROCE_IPID_RESYNC,   /* just after a rejected ID of the peer: a new sequence from there */
	UROCE_IPID_FIRST,    /* nothing to check against: a new peer (or one forgotten, or silent
			      * so long that any ID is possible) */
	UROCE_IPID_FALLBACK, /* fits nothing, from a peer whose IDs have lately fit nothing */
	UROCE_IPID_REJECT,   /* fits nothing: remembered as a candidate */
};

static inline bool uroce_ipid_accepted(enum uroce_ipid_verdict v)
{
	return v != UROCE_IPID_REJECT;
}

/* An ID the ICRC check found for a packet from src to dst at time now: verified (the ICRC
 * held with the ID the packet came with: always accepted) or solved (one other ID makes it
 * verify: accepted or not by the rules in docs/udp.md). Records it; returns the verdict. */
enum uroce_ipid_verdict uroce_ipid_check(struct uroce_ipid *t, const uint8_t src[4],
					 const uint8_t dst[4], uint16_t id, bool verified,
					 uint64_t now);

/* A packet from src to dst that no ID makes verify: corrupted, so the misses of its peer say
 * less about its IDs (a link that corrupts much does not put a peer in fallback). */
void uroce_ipid_unsolved(struct uroce_ipid *t, const uint8_t src[4], const uint8_t dst[4]);

#endif

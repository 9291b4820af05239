/* SPDX-License-Identifier: MIT */
/* Seeded packet impairments: loss, burst loss, duplication, reordering, corruption, delay and
 * jitter, and (on receive) ECN CE marks. The simulated fabric applies them on its links and a socket backend can apply them
 * to the packets it receives (UROCE_IMPAIR). Pure: no clock, no allocation, no rand(); the
 * decisions are a function of the seed and of the sequence of packets only, the same on every
 * platform. docs/sim.md defines each impairment. */
#ifndef UROCE_IO_IMPAIR_H
#define UROCE_IO_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io.h"

#define UROCE_IMPAIR_MAX_BITS 64                  /* largest corrupt_bits */
#define UROCE_IMPAIR_REORDER_DELAY_NS 20000u      /* reorder_delay_ns 0 means this */
#define UROCE_IMPAIR_MAX_DELAY_NS 10000000000ull  /* 10 s: the bound of every delay */

/* All zero is "no impairment"; a zero secondary parameter means its documented default. */
struct uroce_impair_cfg {
	double loss;               /* each packet is lost with this probability (Bernoulli) */
	/* Burst loss: a Gilbert-Elliott chain stepped once per packet, starting Good. In Bad a
	 * packet gets through with probability burst_h; in Good it always does (k = 1: add
	 * `loss` for losses in Good). Mean run in Bad = 1 / burst_r packets; long-run loss
	 * rate = burst_p / (burst_p + burst_r) x (1 - burst_h). burst_p 0 disables it. */
	double burst_p;            /* P(Good -> Bad) per packet */
	double burst_r;            /* P(Bad -> Good) per packet */
	double burst_h;            /* P(delivered | Bad); 0 is the simple Gilbert model */
	double dup;                /* a second copy follows the packet */
	double reorder;            /* the packet is held back by reorder_delay_ns */
	uint64_t reorder_delay_ns; /* 0: UROCE_IMPAIR_REORDER_DELAY_NS */
	double corrupt;            /* 1..corrupt_bits distinct bits of the packet are flipped */
	uint32_t corrupt_bits;     /* 0 counts as 1; at most UROCE_IMPAIR_MAX_BITS */
	bool corrupt_any;          /* flip anywhere, IP/UDP headers included (default: only
				    * bytes the ICRC covers and does not mask) */
	uint64_t delay_ns;         /* fixed extra delay of every packet */
	uint64_t jitter_ns;        /* plus a uniform extra delay in [0, jitter_ns] */
	double ce;                 /* on receive: an ECN-capable packet (ECT(0), ECT(1)) is
				    * marked CE, as a congested switch would (uroce_impair_receive) */
	uint64_t seed;
};

/* Parses "key=value,key=value" (the UROCE_IMPAIR syntax) into *out, starting from all zero;
 * on error *out is left untouched. Keys: loss, burst_p, burst_r, burst_h, dup, reorder,
 * corrupt (probabilities in [0, 1]), reorder_delay_us, delay_us, jitter_us (microseconds,
 * decimals allowed, at most 10 s), corrupt_bits (0..64), corrupt_any (0 or 1), seed (decimal
 * or 0x hex, 64 bits). Spaces around keys and values and empty items are ignored; a repeated
 * key keeps its last value; numbers never depend on the locale. Returns 0, UROCE_EINVAL (an
 * unknown key or a value out of range) or UROCE_EFORMAT (an item without '=' or a malformed
 * number); when msg is not NULL a one-line explanation naming the item is written there
 * (quoted as uroce_echo() shows outside text: at most its first 64 bytes). */
int uroce_impair_parse(const char *spec, struct uroce_impair_cfg *out, char *msg,
		       size_t msglen);

/* The independent random streams: one per impairment, so that changing one probability
 * never changes which packets another impairment picks. */
enum uroce_impair_stream {
	UROCE_IMPAIR_S_LOSS,
	UROCE_IMPAIR_S_BURST,
	UROCE_IMPAIR_S_DUP,
	UROCE_IMPAIR_S_REORDER,
	UROCE_IMPAIR_S_CORRUPT,
	UROCE_IMPAIR_S_BITS,    /* which bits corruption flips: apart, since only kept packets
				 * draw them */
	UROCE_IMPAIR_S_JITTER,
	UROCE_IMPAIR_S_CE,      /* last: the others keep the seeds they had before it */
	UROCE_IMPAIR_NSTREAMS
};

/* The state of one impaired path. Fields are private: embed it, never allocate it. */
struct uroce_impair {
	struct uroce_impair_cfg cfg;
	uint64_t rng[UROCE_IMPAIR_NSTREAMS][4]; /* xoshiro256** */
	uint64_t loss53, burst_p53, burst_r53, burst_h53, dup53, reorder53, corrupt53, ce53;
	bool bad;                               /* Gilbert-Elliott state */
};

/* Starts impairing with cfg. The streams are seeded from cfg->seed and salt (0 for a lone
 * user; the simulator passes one salt per link so that links differ). Returns 0, or
 * UROCE_EINVAL when a field is out of the ranges uroce_impair_parse() accepts. */
int uroce_impair_init(struct uroce_impair *im, const struct uroce_impair_cfg *cfg,
		      uint64_t salt);

enum uroce_impair_drop {
	UROCE_IMPAIR_KEEP = 0,
	UROCE_IMPAIR_LOST,       /* Bernoulli loss */
	UROCE_IMPAIR_BURST_LOST, /* Gilbert-Elliott loss */
};

/* What happens to one packet. A dropped packet is neither duplicated, reordered, delayed
 * nor corrupted. */
struct uroce_impair_verdict {
	enum uroce_impair_drop drop;
	bool dup;               /* deliver a second, identical copy right after it */
	bool reordered;         /* delay_ns includes the reorder delay */
	uint32_t corrupt_bits;  /* bits flipped in place (0: none) */
	uint64_t delay_ns;      /* extra delay: delay + jitter (+ reorder delay) */
};

/* Decides the fate of the next packet, the IP datagram data[0..len) (which may be corrupted
 * in place). Every enabled impairment draws from its own stream for every packet, dropped
 * ones included. */
void uroce_impair_apply(struct uroce_impair *im, uint8_t *data, size_t len,
			struct uroce_impair_verdict *v);

/* ---- Received packets held back (delay, jitter, reordering, duplicates) ---- */

#define UROCE_IMPAIR_HOLD_SLOT 9216 /* the longest packet a hold queue keeps (jumbo MTU) */

struct uroce_impair_held;

/* Received packets kept until they are due: a binary heap ordered by due time, then by
 * arrival, over places of UROCE_IMPAIR_HOLD_SLOT bytes. Fields are private. */
struct uroce_impair_hold {
	struct uroce_impair_held *heap;
	uint32_t n, max, nfree;
	uint32_t *free_slots;
	uint8_t *buf;
	uint64_t seq;
};

/* Allocates max places (every buffer now; untouched pages cost no memory). Returns 0 or
 * UROCE_ENOMEM (then uroce_impair_hold_free is still safe). */
int uroce_impair_hold_init(struct uroce_impair_hold *h, uint32_t max);
void uroce_impair_hold_free(struct uroce_impair_hold *h);
/* Copies p (data, len, flags, tos, addresses) in, due at `due`; false when every place is
 * taken or p is longer than a place. */
bool uroce_impair_hold_push(struct uroce_impair_hold *h, const struct uroce_io_pkt *p,
			    uint64_t due);
/* Moves the packets due at or before now, earliest first, into pkts[0..n) (their data and
 * cap given; ts_ns = now); one longer than its cap is cut, flagged UROCE_IO_PKT_TRUNC and
 * counted in *truncated. Returns how many. */
size_t uroce_impair_hold_release(struct uroce_impair_hold *h, struct uroce_io_pkt *pkts,
				 size_t n, uint64_t now, uint64_t *truncated);
/* When the earliest held packet is due, or UINT64_MAX when none is held. */
uint64_t uroce_impair_hold_next_due(const struct uroce_impair_hold *h);

/* What the impairments did to received packets: counters a backend that impairs keeps among
 * its own (udp.h and xdp.h put this list in theirs), with their names and descriptions. */
#define UROCE_IMPAIR_COUNTERS(X)                                                              \
	X(impair_lost, "dropped by loss or burst loss")                                       \
	X(impair_duplicated, "extra copies made")                                             \
	X(impair_reordered, "packets held back by the reorder delay")                         \
	X(impair_delayed, "packets held back by any delay (delay, jitter, reorder)")          \
	X(impair_corrupted, "packets with flipped bits")                                      \
	X(impair_ce_marked, "ECN-capable packets marked CE")                                  \
	X(hold_full, "dropped: the hold queue was full, or the packet longer than a place")

/* What one uroce_impair_receive call did. */
struct uroce_impair_tally {
#define UROCE_IMPAIR_TALLY_FIELD(name, desc) uint64_t name;
	UROCE_IMPAIR_COUNTERS(UROCE_IMPAIR_TALLY_FIELD)
#undef UROCE_IMPAIR_TALLY_FIELD
};

/* Adds a tally t to a backend's counters *c, whose fields include UROCE_IMPAIR_COUNTERS. */
#define UROCE_IMPAIR_TALLY_ADD(c, t)                                                          \
	do {                                                                                  \
		(c)->impair_lost += (t).impair_lost;                                          \
		(c)->impair_duplicated += (t).impair_duplicated;                              \
		(c)->impair_reordered += (t).impair_reordered;                                \
		(c)->impair_delayed += (t).impair_delayed;                                    \
		(c)->impair_corrupted += (t).impair_corrupted;                                \
		(c)->impair_ce_marked += (t).impair_ce_marked;                                \
		(c)->hold_full += (t).hold_full;                                              \
	} while (0)

/* The impairments of one packet just received into p (uroce_impair_apply), for a backend
 * that impairs what it receives (UROCE_IMPAIR). Returns true when p is to be delivered now.
 * A lost packet is not; a delayed one goes into the hold queue, with its duplicate if it has
 * one, due after the delay; the duplicate of a packet delivered now waits in the hold queue,
 * due now, so that it follows the original. Bits flipped by corruption clear
 * UROCE_IO_PKT_ICRC_OK: the engine must find the damage. A kept ECN-capable packet is marked
 * CE with probability ce (its IP header, with the IPv4 checksum, and p->tos: the ICRC masks
 * the field). Counts into *t. */
bool uroce_impair_receive(struct uroce_impair *im, struct uroce_impair_hold *h,
			  struct uroce_io_pkt *p, uint64_t now, struct uroce_impair_tally *t);

/* splitmix64: advances *state and returns the next value. For deriving seeds. */
uint64_t uroce_splitmix64(uint64_t *state);

#endif

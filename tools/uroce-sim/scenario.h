/* SPDX-License-Identifier: MIT */
/* Congestion scenarios on the real engine in the simulated fabric (docs/congestion.md):
 * N senders write to one receiver through a switch whose port to the receiver is the
 * bottleneck (N:1 incast; flows may start and stop at different times), with PFC if asked,
 * and PFC's victim flow (a second switch behind a core link) if asked; or N flows over a
 * parking lot, or across a leaf-spine fabric with ECMP (enum scenario_topology).
 * The switches are the fabric's (docs/sim.md "Switches and PFC"). Everything runs on virtual
 * time: the same scenario gives the same figures, byte for byte. Used by uroce-sim and by
 * tests/engine/test_cc.c. */
#ifndef UROCE_SCENARIO_H
#define UROCE_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"

#define SCENARIO_MAX_FLOWS 64
#define SCENARIO_MAX_SPINES 16

/* Where the flows go (docs/congestion.md draws each). */
enum scenario_topology {
	/* N:1 incast: every sender and the receiver on one switch, whose port to the
	 * receiver (bottleneck_bps) is the congested link; with `victim`, a second switch */
	SCENARIO_DUMBBELL,
	/* N switches in a chain joined by N - 1 links of bottleneck_bps, the congested ones:
	 * flow 1 crosses them all, flow k > 1 only link k - 1 */
	SCENARIO_PARKING_LOT,
	/* two leaves joined through `spines` spine switches by links of core_bps, the
	 * congested ones: flow k from a host of leaf 1 to one of leaf 2, over the spine its
	 * UDP source port hashes to (ECMP) */
	SCENARIO_LEAF_SPINE,
};

struct scenario {
	enum scenario_topology topology;
	uint32_t senders;          /* 1..SCENARIO_MAX_FLOWS: the flows (parking lot: 2 or more) */
	uint32_t spines;           /* leaf-spine: 1..SCENARIO_MAX_SPINES */
	struct uroce_cc_cfg cc;    /* every node's congestion control */
	uint64_t link_bps;         /* the senders' and the receiver's links */
	uint64_t bottleneck_bps;   /* the switch's port to the receiver */
	uint64_t latency_ns;       /* of every link */
	uint64_t queue_bytes;      /* the bottleneck's queue (tail drop past it) */
	uint64_t ce_threshold;     /* step marking above this (ce_kmax 0) */
	uint64_t ce_kmin, ce_kmax; /* RED marking (ce_kmax set) */
	double ce_pmax;
	uint64_t pfc_xoff, pfc_xon; /* PFC on every link into a switch (0: none), for the flows'
				     * traffic class */
	uint32_t pfc_quanta;       /* a PAUSE's time, quanta of 512 bit times (0: 0xFFFF) */
	uint32_t dscp;             /* the flows' DSCP (26); their traffic class is DSCP / 8 */
	/* PFC's victim flow: the receiver moves behind a second switch, reached over a core
	 * link of core_bps from the first, and one more flow goes from a sender on the first
	 * switch to a receiver of its own on the second, through the core link but not the
	 * bottleneck. */
	uint32_t victim;           /* 0 or 1 */
	uint64_t core_bps;         /* the victim's core link; leaf-spine: every leaf-spine link */
	uint64_t duration_ns;
	uint64_t sample_ns;        /* the time series' step */
	uint64_t start_ns[SCENARIO_MAX_FLOWS], stop_ns[SCENARIO_MAX_FLOWS]; /* stop 0: the end */
	uint64_t size_bytes[SCENARIO_MAX_FLOWS]; /* a flow of this many bytes, then done (0: no
						  * end); its completion time is measured */
	uint32_t msg_bytes;        /* each WRITE; a sender keeps 256 posted while it runs */
	uint32_t ack_timeout;      /* the QPs' local ACK timeout: 4.096 us x 2^t (14: 67 ms) */
	uint64_t seed;
};

/* The defaults: 2 senders under DCQCN, 25 Gb/s links, a 10 Gb/s bottleneck with a 16 MB
 * queue and RED 20 KB / 100 KB / 50 %, 1 us links, 60 ms, 100 us samples, 64 KB WRITEs, a
 * local ACK timeout of 14 (67 ms, perftest's). */
void scenario_defaults(struct scenario *s);
/* Sets one key ("topology" = "dumbbell" | "parking_lot" | "leaf_spine", "spines",
 * "senders", "cc", "link_gbps", "bottleneck_gbps", "latency_us", "queue_kb",
 * "threshold_kb", "red" = "KMIN_KB,KMAX_KB,PMAX", "pfc" = "XOFF_KB,XON_KB", "pfc_quanta",
 * "dscp", "victim",
 * "core_gbps", "duration_ms", "sample_us", "starts_ms",
 * "stops_ms", "sizes_kb" = comma lists, "msg_kb", "timeout", "seed"); false with a one-line reason in
 * why. */
bool scenario_set(struct scenario *s, const char *key, const char *value, char *why,
		  size_t whylen);
/* Whether the keys fit together (victim=1 only on a dumbbell, a parking lot of 2 senders or
 * more, ...); false with the reason in why (when why is not NULL). */
bool scenario_check(const struct scenario *s, char *why, size_t whylen);
/* Reads a scenario file: key = value lines, # comments. False with the reason (and line). */
bool scenario_load(struct scenario *s, const char *path, char *why, size_t whylen);

/* What a run measured: over the second half of the run, while a flow runs, its share. */
struct scenario_result {
	double jain;               /* Jain's index of the senders' packets over the 2nd half */
	/* The congested links (the topology's): what they carried over their capacity, 2nd
	 * half; the largest queue of any in the 2nd half and over the whole run, bytes; drops
	 * and marks are theirs. */
	double utilisation;
	uint64_t queue_peak, queue_peak_all;
	double queue_mean; /* the fullest congested queue's mean over the 2nd half, sampled
			    * every 20 us */
	double link_gbps[SCENARIO_MAX_FLOWS]; /* each one's throughput over the 2nd half */
	uint32_t nlinks;
	uint64_t drops, cnps, ce_marks, resent, completions, errors;
	uint64_t pauses, paused_ns; /* PFC: PAUSEs that stopped a link into the switch, and for
				     * how long in all */
	double gbps[SCENARIO_MAX_FLOWS]; /* each sender's average over the 2nd half */
	double victim_gbps;              /* the victim flow's, when there is one */
	/* A flow of size_bytes: when its last WRITE completed, from its start, ns (0: not
	 * done by the end; the CQs are read every 20 us, the resolution). */
	uint64_t fct_ns[SCENARIO_MAX_FLOWS];
	/* Dumbbell without the victim: each event (t = 0, and each time a flow starts or
	 * stops), and how long after it the running flows stayed converged to the next event:
	 * over every 2 ms window that follows it, their Jain's index at least 0.95 and their
	 * sum within 10 % of the bottleneck. The end of the last window that was not; 2 ms
	 * when the first already was; -1: never by the next event. */
	uint64_t event_ns[2 * SCENARIO_MAX_FLOWS + 1];
	int64_t converged_ns[2 * SCENARIO_MAX_FLOWS + 1];
	uint32_t nevents;
};

/* Runs the scenario; with csv, writes the time series there (time_us, queue_bytes, cnps,
 * then per flow its throughput and its congestion control rate, Gb/s, the victim flow's
 * last); progress, when
 * `progress` is set, to stderr. Returns 0, or a negative UROCE_E* code (setup failed). */
int scenario_run(const struct scenario *s, FILE *csv, bool progress, struct scenario_result *r);

#endif

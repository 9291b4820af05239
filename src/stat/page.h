/* SPDX-License-Identifier: MIT */
/* The statistics page a process with an open uroce device publishes, and uroce-stat reads
 * (docs/stat.md). One file per process, <pid>.stat in the runtime directory, mapped shared.
 *
 * The page has two parts. The static part (identity, counter names) is written once before
 * the file gets its final name, so a reader never sees it change. The dynamic part (counter
 * values, the QP table) is rewritten by one writer at a time under a sequence lock: seq is
 * odd while a write is under way; a reader copies, then checks that seq was even and did
 * not move, and tries again otherwise. Both sides copy the dynamic part as relaxed atomic
 * 64-bit words, so that concurrent copies are not data races (TSan), and order them with
 * fences around seq. Counters are published by name: a counter added to any list appears
 * in uroce-stat without a change there. */
#ifndef UROCE_STAT_PAGE_H
#define UROCE_STAT_PAGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define UROCE_STAT_MAGIC 0x3174617473657275ull /* "urestat1", little-endian */
#define UROCE_STAT_VERSION 1
#define UROCE_STAT_NAME_MAX 40       /* a counter name and its NUL */
#define UROCE_STAT_MAX_COUNTERS 160  /* device counters: engine, backend, MAD */
#define UROCE_STAT_MAX_QP_COUNTERS 64 /* per-QP counters: the engine's list */
#define UROCE_STAT_MAX_QPS 64        /* QPs shown; qps_total says how many there are */

struct uroce_stat_qp {
	uint32_t qpn, dest_qpn, type, state; /* type and state: the engine's enums */
	uint8_t peer[16];                    /* IPv4 in the first 4 bytes unless peer_ipv6 */
	uint32_t peer_ipv6;
	uint32_t sq_psn, una, epsn, send_outstanding, recv_posted;
	uint32_t pace_kbps;                  /* the pacer's rate (docs/congestion.md), 0: unpaced */
	uint64_t cnt[UROCE_STAT_MAX_QP_COUNTERS];
};

/* The part written under the sequence lock. */
struct uroce_stat_dyn {
	uint64_t time_ns;   /* CLOCK_MONOTONIC at the copy, for rates */
	uint64_t publishes; /* copies made so far */
	uint32_t nqps;      /* entries of qps filled */
	uint32_t qps_total; /* QPs of the device (more than nqps when the table is full) */
	uint64_t counters[UROCE_STAT_MAX_COUNTERS];
	struct uroce_stat_qp qps[UROCE_STAT_MAX_QPS];
};

#define UROCE_STAT_DYN_WORDS (sizeof(struct uroce_stat_dyn) / 8)
_Static_assert(sizeof(struct uroce_stat_dyn) % 8 == 0, "copied as 64-bit words");

struct uroce_stat_page {
	/* static part */
	uint64_t magic;
	uint32_t version, size;  /* size: sizeof(struct uroce_stat_page) */
	uint64_t pid;
	uint64_t start_ns;       /* CLOCK_MONOTONIC when the device opened */
	char comm[32];           /* the command name (/proc/self/comm) */
	char device[16];         /* "uroce0" */
	char backend[16];        /* "udp", "xdp:eth0" */
	char addrs[256];         /* the device's addresses, space-separated */
	char impair[128];        /* UROCE_IMPAIR, empty when none */
	uint32_t ncounters, nqp_counters;
	char counter_names[UROCE_STAT_MAX_COUNTERS][UROCE_STAT_NAME_MAX];
	char qp_counter_names[UROCE_STAT_MAX_QP_COUNTERS][UROCE_STAT_NAME_MAX];
	/* dynamic part */
	_Atomic uint64_t seq;
	_Atomic uint64_t words[UROCE_STAT_DYN_WORDS]; /* a struct uroce_stat_dyn */
};

/* A whole consistent copy, as a reader has it. */
struct uroce_stat_snapshot {
	struct uroce_stat_page hdr; /* its static part; seq and words unused */
	struct uroce_stat_dyn dyn;
};

/* Copies the first `words` words of *d into the page under the sequence lock (one writer at
 * a time: the caller serialises). Words past the filled QP entries need not be copied. */
void uroce_stat_store(struct uroce_stat_page *p, const struct uroce_stat_dyn *d, size_t words);
/* The number of words of d that matter (the header, the counters and the filled QPs). */
size_t uroce_stat_dyn_words(const struct uroce_stat_dyn *d);
/* Copies a consistent dynamic part: 0, or -EAGAIN when every one of tries attempts met a
 * write under way (a writer stopped in the middle: killed, or stuck). */
int uroce_stat_load(const struct uroce_stat_page *p, struct uroce_stat_dyn *d, unsigned tries);
/* Checks magic, version and size and copies the static part and a consistent dynamic part:
 * 0, -EPROTO (not a page of this version), -EAGAIN (see uroce_stat_load). */
int uroce_stat_read(const struct uroce_stat_page *p, size_t len, struct uroce_stat_snapshot *s);

/* The runtime directory (docs/stat.md): UROCE_RUNTIME_DIR, else $XDG_RUNTIME_DIR/uroce if
 * XDG_RUNTIME_DIR is a writable directory, else /tmp/uroce-<uid>. 0, or -ENAMETOOLONG. */
int uroce_stat_dir(char *buf, size_t len);

#endif

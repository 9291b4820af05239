/* SPDX-License-Identifier: MIT */
/* uroce-demo: two processes of this host, a client and a server, connect one RC queue pair
 * each through the standard verbs API and check SEND/RECV, RDMA WRITE, RDMA READ and the
 * atomics byte by byte, then measure throughput and latency. endpoint.c holds the verbs
 * side of one process, capture.c the optional live capture, uroce-demo.c the steps. */
#ifndef UROCE_DEMO_H
#define UROCE_DEMO_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sizes of the checked steps: the SEND spans three 4 KiB packets and the WRITE and READ about
 * sixty, so that the capture shows FIRST/MIDDLE/LAST sequences and the READ's responses. */
#define DEMO_SEND_LEN 10000u
#define DEMO_RDMA_LEN 250000u
#define DEMO_PING_LEN 64u
#define DEMO_FETCH_ADDS 100u
#define DEMO_NSLOTS 32u      /* receive buffers kept posted on each side */
#define DEMO_SQ_DEPTH 256u
#define DEMO_BULK_WINDOW 32u /* RDMA WRITEs kept outstanding in the throughput phase */
#define DEMO_ATOMIC_INIT 1000u
/* Retransmission timeout 4.096 us x 2^12 = 16.8 ms: long against the round trips of lo, short
 * enough that a lost lone packet (which only a timeout recovers) costs little under
 * --impair. perftest's 14 would make it 67 ms. */
#define DEMO_QP_TIMEOUT 12

/* One process's memory, registered as one region with the same layout on both sides, so
 * that each knows the other's offsets from the base address alone. */
struct demo_layout {
	size_t slot_len;  /* one receive slot: the largest message received */
	size_t slots;     /* DEMO_NSLOTS slots */
	size_t send;      /* staging for SENDs and pings */
	size_t wr_area;   /* server: RDMA WRITE target; client: its source */
	size_t rd_area;   /* server: RDMA READ source; client: its destination */
	size_t atomic;    /* server: the 8-byte word; client: one result per atomic */
	size_t bulk;      /* throughput WRITEs: client source, server target */
	size_t bulk_len;
	size_t total;
};

/* What the two sides tell each other before connecting. */
struct demo_info {
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint32_t rkey;
	uint32_t mtu;     /* enum ibv_mtu: the port's active MTU */
	uint64_t addr;    /* base of the region */
	int32_t pid;
	uint32_t inline_max;
};

struct demo_ep {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct demo_layout lay;
	struct demo_info self, peer;
	enum ibv_mtu path_mtu;
	uint8_t rd_atom;        /* max_rd_atomic and max_dest_rd_atomic */
	uint32_t next_slot;     /* the slot the next receive completion fills */
	char libpath[256];      /* the libibverbs that was loaded */
};

void demo_layout_init(struct demo_layout *l, size_t bulk_len);

/* Opens uroce0 (the first device), creates the PD, CQs, RC QP and the region. Returns 0, or
 * -1 with a message in err. */
int demo_ep_open(struct demo_ep *ep, size_t bulk_len, char *err, size_t errlen);
/* INIT, the receive slots posted, RTR to the peer in ep->peer, RTS. Returns 0 or -1 with a
 * message in err. */
int demo_ep_connect(struct demo_ep *ep, char *err, size_t errlen);
void demo_ep_close(struct demo_ep *ep);

/* Posts receive slot i again. Returns 0 or an errno. */
int demo_post_slot(struct demo_ep *ep, uint32_t i);
/* Posts one send work request; when the send queue is full, first waits for one send
 * completion (stored in *wc_out when it is not NULL, its status checked by the caller).
 * Returns 0, an errno, or -1 when the wait timed out. */
int demo_post_send(struct demo_ep *ep, struct ibv_send_wr *wr, struct ibv_wc *wc_out,
		   int *ncomp);

/* Waits up to timeout_s seconds for one completion on cq. Returns 1, 0 on timeout, or -1
 * when ibv_poll_cq fails. */
int demo_wait(struct ibv_cq *cq, struct ibv_wc *wc, double timeout_s);

/* Data patterns: a function of the seed and the byte offset. */
void demo_fill(uint8_t *p, size_t len, uint64_t seed);
/* The offset of the first byte that differs from the pattern, or -1. */
long demo_check(const uint8_t *p, size_t len, uint64_t seed);

double demo_now(void); /* CLOCK_MONOTONIC seconds */

/* capture.c: a live capture of `lo` into a pcap file, in a thread of this process. */
#define DEMO_CAPTURE_HEADERS 128u /* Ethernet, IP, UDP, BTH and every extended header */
struct demo_capture;
/* Opens the capture (filter: RoCEv2 between the two addresses). Returns NULL with a message
 * in err when it cannot (no privilege to capture, no libpcap device). */
struct demo_capture *demo_capture_open(const char *file, const char *ip_a, const char *ip_b,
				       char *err, size_t errlen);
int demo_capture_start(struct demo_capture *c);
/* From now until demo_capture_whole(), packets are kept to their first bytes only: the
 * throughput phase would otherwise fill hundreds of megabytes with payload. */
void demo_capture_headers_only(struct demo_capture *c);
void demo_capture_whole(struct demo_capture *c);
/* Stops, writes out what is left and closes; counts what was written and what the kernel
 * dropped. */
void demo_capture_stop(struct demo_capture *c, uint64_t *written, uint64_t *dropped);

#endif

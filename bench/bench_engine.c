/* SPDX-License-Identifier: MIT */
/* Engine throughput on one core: two engines joined by the simulated fabric over links with
 * no latency and infinite bandwidth, one RC QP pair, SEND and RDMA WRITE of 64 B and 4 KiB at
 * MTU 4096, the send queue kept full (512 work requests outstanding, every 16th signaled,
 * receives reposted as they complete). Both ends run in this thread, so every figure counts
 * the requester, the responder, the completer and the fabric's copies. Packets are what both
 * engines sent (data packets and ACKs).
 *
 * The baseline, measured in the same run, is the wire work one message cannot do without:
 * building its packet (headers, ICRC) with uroce_rocev2_build, then dissecting it and checking
 * its ICRC, as sender and receiver must. The ratio engine / baseline is comparable across
 * machines where absolute figures are not. Each cell keeps the best of five repetitions of
 * about 0.3 s, engine and baseline taking turns so that a busy neighbour slows both alike.
 * Prints figures only (docs/performance.md "Engine throughput"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "io/sim.h"
#include "wire/build.h"
#include "wire/packet.h"

#define TARGET_NS 300000000ull /* one repetition */
#define REPS 5
#define BATCH 64               /* packets per io call */
#define DEPTH 1024             /* send and receive queue depth */
#define OUTSTANDING 512        /* work requests kept posted */
#define SIGNAL_EVERY 16        /* one signaled work request in this many */
#define MAX_LEN 4096

struct side {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp;
	struct uroce_mr *mr;
	uint8_t *buf;
	struct uroce_io *io;
	struct uroce_io_addr addr;
};

struct bench {
	struct uroce_sim *sim;
	struct side side[2];
	struct uroce_io_pkt pkts[BATCH];
	uint8_t *pktbuf;
};

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_engine: %s failed\n", what);
	exit(1);
}

#define TRY(call)                   \
	do {                        \
		if ((call) != 0)    \
			die(#call); \
	} while (0)

/* RESET -> RTS for an RC QP connected to the peer (IBA 11.2.4.2 attributes). */
static void qp_connect(struct side *s, const struct side *peer)
{
	struct uroce_qp_attr a = {
		.qp_state = UROCE_QPS_INIT, .port_num = 1,
		.qp_access_flags = UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_READ,
		.path_mtu = UROCE_MTU_4096, .dest_qp_num = uroce_qp_num(peer->qp),
		.max_dest_rd_atomic = 16, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 16, .ah_attr = {.dgid = peer->addr, .port_num = 1, .hop_limit = 64},
	};

	TRY(uroce_qp_modify(s->qp, &a, UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX | UROCE_QPA_PORT |
					       UROCE_QPA_ACCESS_FLAGS));
	a.qp_state = UROCE_QPS_RTR;
	TRY(uroce_qp_modify(s->qp, &a, UROCE_QPA_STATE | UROCE_QPA_AV | UROCE_QPA_PATH_MTU |
					       UROCE_QPA_DEST_QPN | UROCE_QPA_RQ_PSN |
					       UROCE_QPA_MAX_DEST_RD_ATOMIC | UROCE_QPA_MIN_RNR_TIMER));
	a.qp_state = UROCE_QPS_RTS;
	TRY(uroce_qp_modify(s->qp, &a, UROCE_QPA_STATE | UROCE_QPA_SQ_PSN | UROCE_QPA_TIMEOUT |
					       UROCE_QPA_RETRY_CNT | UROCE_QPA_RNR_RETRY |
					       UROCE_QPA_MAX_QP_RD_ATOMIC));
}

static void bench_new(struct bench *b)
{
	struct uroce_sim_cfg scfg = {.pool_pkts = 4096, .max_pkt = UROCE_MAX_DATAGRAM};
	struct uroce_sim_link_cfg ideal = {0}; /* no latency, infinite bandwidth */

	memset(b, 0, sizeof(*b));
	if (!(b->sim = uroce_sim_new(1, &scfg)))
		die("uroce_sim_new");
	if (!(b->pktbuf = malloc((size_t)BATCH * UROCE_MAX_DATAGRAM)))
		die("malloc");
	for (int i = 0; i < 2; i++) {
		struct side *s = &b->side[i];
		struct uroce_dev_cfg cfg = {.ngids = 1};
		s->addr = (struct uroce_io_addr){.ip = {10, 0, 0, (uint8_t)(i + 1)}};
		cfg.gid[0] = s->addr;
		if (uroce_sim_add_endpoint(b->sim, &s->addr, 4096) != i)
			die("uroce_sim_add_endpoint");
		s->io = uroce_sim_io(b->sim, i);
		TRY(uroce_dev_new(&cfg, &s->dev));
		TRY(uroce_pd_alloc(s->dev, &s->pd));
		TRY(uroce_cq_create(s->dev, 2 * DEPTH, &s->cq));
		struct uroce_qp_init_attr init = {
			.send_cq = s->cq, .recv_cq = s->cq, .qp_type = UROCE_QPT_RC,
			.cap = {.max_send_wr = DEPTH, .max_recv_wr = DEPTH, .max_send_sge = 1,
				.max_recv_sge = 1}};
		TRY(uroce_qp_create(s->pd, &init, &s->qp));
		if (!(s->buf = calloc(1, MAX_LEN)))
			die("calloc");
		TRY(uroce_mr_reg(s->pd, s->buf, MAX_LEN, (uint64_t)(uintptr_t)s->buf,
				 UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE, &s->mr));
	}
	if (uroce_sim_connect(b->sim, 0, 1, &ideal) < 0 || uroce_sim_connect(b->sim, 1, 0, &ideal) < 0)
		die("uroce_sim_connect");
	qp_connect(&b->side[0], &b->side[1]);
	qp_connect(&b->side[1], &b->side[0]);
}

static void bench_free(struct bench *b)
{
	for (int i = 0; i < 2; i++) {
		uroce_dev_free(b->side[i].dev);
		free(b->side[i].buf);
	}
	uroce_sim_free(b->sim);
	free(b->pktbuf);
}

static void reset_pkts(struct bench *b)
{
	for (int k = 0; k < BATCH; k++) {
		b->pkts[k].data = b->pktbuf + (size_t)k * UROCE_MAX_DATAGRAM;
		b->pkts[k].cap = UROCE_MAX_DATAGRAM;
	}
}

/* One side's turn: everything received is handled, everything it has is sent; the fabric
 * delivers at once (no latency). */
static void pump(struct bench *b, struct side *s)
{
	int got;
	size_t n;

	do {
		reset_pkts(b);
		got = uroce_io_recv(s->io, b->pkts, BATCH);
		for (int k = 0; k < got; k++)
			uroce_dev_recv(s->dev, &b->pkts[k], 0);
	} while (got == BATCH);
	do {
		struct uroce_txbatch tx = {.pkts = b->pkts, .max = BATCH};
		reset_pkts(b);
		if ((n = uroce_dev_write(s->dev, &tx, 0)))
			uroce_io_send(s->io, b->pkts, n);
	} while (n == BATCH);
	uroce_dev_publish(s->dev);
	uroce_sim_run_until(b->sim, 0);
}

static void post_recvs(struct side *s, uint32_t len, int n)
{
	struct uroce_sge sge = {.addr = (uint64_t)(uintptr_t)s->buf, .length = len,
				.lkey = uroce_mr_lkey(s->mr)};
	struct uroce_recv_wr wr = {.sg_list = &sge, .num_sge = 1};
	const struct uroce_recv_wr *bad;

	for (int i = 0; i < n; i++)
		if (uroce_post_recv(s->qp, &wr, &bad))
			die("uroce_post_recv");
}

/* Sends `msgs` messages (a multiple of SIGNAL_EVERY) from side 0 to side 1. */
static void transfer(struct bench *b, enum uroce_wr_opcode op, uint32_t len, uint64_t msgs)
{
	struct side *a = &b->side[0], *z = &b->side[1];
	struct uroce_sge sge = {.addr = (uint64_t)(uintptr_t)a->buf, .length = len,
				.lkey = uroce_mr_lkey(a->mr)};
	struct uroce_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = op,
				   .wr.rdma = {.remote_addr = (uint64_t)(uintptr_t)z->buf,
					       .rkey = uroce_mr_rkey(z->mr)}};
	const struct uroce_send_wr *bad;
	struct uroce_wc wc[64];
	uint64_t posted = 0, done = 0;
	int n;

	while (done < msgs) {
		for (; posted - done < OUTSTANDING && posted < msgs; posted++) {
			wr.wr_id = posted;
			wr.send_flags = (posted + 1) % SIGNAL_EVERY ? 0 : UROCE_SEND_SIGNALED;
			if (uroce_post_send(a->qp, &wr, &bad))
				die("uroce_post_send");
		}
		pump(b, a);
		pump(b, z);
		pump(b, a);
		while ((n = uroce_cq_poll(a->cq, wc, 64)) > 0)
			for (int i = 0; i < n; i++) {
				if (wc[i].status != UROCE_WC_SUCCESS)
					die("a send completion");
				done += SIGNAL_EVERY;
			}
		while ((n = uroce_cq_poll(z->cq, wc, 64)) > 0) {
			for (int i = 0; i < n; i++)
				if (wc[i].status != UROCE_WC_SUCCESS)
					die("a receive completion");
			post_recvs(z, len, n);
		}
	}
}

/* One repetition through the engines: messages and packets per second. */
static void engine_rep(struct bench *b, enum uroce_wr_opcode op, uint32_t len, uint64_t msgs,
		       double *msgs_s, double *pkts_s)
{
	uint64_t p0 = uroce_dev_counters(b->side[0].dev)->sent_pkts +
		      uroce_dev_counters(b->side[1].dev)->sent_pkts;
	uint64_t t0 = now_ns(), dt;

	transfer(b, op, len, msgs);
	dt = now_ns() - t0;
	uint64_t pk = uroce_dev_counters(b->side[0].dev)->sent_pkts +
		      uroce_dev_counters(b->side[1].dev)->sent_pkts - p0;
	*msgs_s = (double)msgs * 1e9 / (double)(dt ? dt : 1);
	*pkts_s = (double)pk * 1e9 / (double)(dt ? dt : 1);
}

/* One repetition of the baseline: build the message's packet, dissect it, check its ICRC;
 * messages per second. */
static double wire_rep(enum uroce_wr_opcode op, uint32_t len, uint64_t iters)
{
	static uint8_t payload[MAX_LEN], pkt[UROCE_MAX_DATAGRAM];
	struct uroce_rocev2_net net = {.src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2}, .hop_limit = 64,
				       .sport = 0xC001};
	uint8_t opcode = op == UROCE_WR_SEND ? UROCE_OP_RC_SEND_ONLY : UROCE_OP_RC_RDMA_WRITE_ONLY;
	struct uroce_bth bth = {.opcode = opcode, .pkey = 0xFFFF, .destqp = 17, .ackreq = true};
	struct uroce_ext ext = {.present = uroce_opcode_info(opcode)->headers,
				.reth = {.va = 0x1000, .rkey = 0x101, .dmalen = len}};
	uint64_t t0 = now_ns(), dt, acc = 0;

	for (uint64_t i = 0; i < iters; i++) {
		struct uroce_pkt p;
		bth.psn = (uint32_t)i & 0xFFFFFF;
		ssize_t n = uroce_rocev2_build(pkt, sizeof(pkt), NULL, &net, &bth, &ext, payload, len);
		if (n < 0 || uroce_pkt_dissect(&p, UROCE_LINK_IP, pkt, (size_t)n) ||
		    uroce_pkt_icrc_check(&p, NULL) != UROCE_CRC_OK)
			die("the baseline packet");
		acc += p.bth.psn;
	}
	dt = now_ns() - t0;
	sink = acc;
	return (double)iters * 1e9 / (double)(dt ? dt : 1);
}

/* Counts that make a repetition last about TARGET_NS. */
static uint64_t calibrate(double per_s, uint64_t multiple)
{
	uint64_t n = (uint64_t)(per_s * (double)TARGET_NS / 1e9);
	return (n / multiple + 1) * multiple;
}

int main(void)
{
	static const struct {
		enum uroce_wr_opcode op;
		uint32_t len;
		const char *name;
	} cells[] = {
		{UROCE_WR_SEND, 64, "SEND 64 B"},
		{UROCE_WR_SEND, 4096, "SEND 4 KiB"},
		{UROCE_WR_RDMA_WRITE, 64, "WRITE 64 B"},
		{UROCE_WR_RDMA_WRITE, 4096, "WRITE 4 KiB"},
	};

	printf("Engine throughput, one core, RC, MTU 4096, ideal links (best of %d x ~%.1f s, "
	       "engine and baseline alternating)\n", REPS, (double)TARGET_NS / 1e9);
	printf("%-12s %12s %12s %10s %14s %10s\n", "message", "msgs/s", "pkts/s", "Gbit/s",
	       "baseline msg/s", "x baseline");
	for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
		enum uroce_wr_opcode op = cells[c].op;
		uint32_t len = cells[c].len;
		double m, p, best_m = 0, best_p = 0, best_w = 0;
		struct bench b;

		bench_new(&b);
		if (op == UROCE_WR_SEND)
			post_recvs(&b.side[1], len, DEPTH);
		/* A first short pass of each sets the counts. */
		engine_rep(&b, op, len, 16 * SIGNAL_EVERY * 64, &m, &p);
		uint64_t msgs = calibrate(m, SIGNAL_EVERY);
		uint64_t iters = calibrate(wire_rep(op, len, 65536), 1);
		/* Alternating, so that a busy neighbour slows both alike. */
		for (int r = 0; r < REPS; r++) {
			engine_rep(&b, op, len, msgs, &m, &p);
			if (m > best_m) {
				best_m = m;
				best_p = p;
			}
			double w = wire_rep(op, len, iters);
			if (w > best_w)
				best_w = w;
		}
		bench_free(&b);
		printf("%-12s %12.0f %12.0f %10.2f %14.0f %10.3f\n", cells[c].name, best_m, best_p,
		       best_m * len * 8 / 1e9, best_w, best_m / best_w);
		fflush(stdout);
	}
	return 0;
}

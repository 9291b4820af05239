/* SPDX-License-Identifier: MIT */
/* Writes a synthetic but realistic RoCEv2/IPv4 capture for the dissector benchmark
 * (bench/bench_dissect.sh): many RC connections and a few UD QPs exchanging SENDs, RDMA WRITEs,
 * RDMA READs and atomics, segmented at a 1024-byte path MTU (rxe's at a 1500-byte netdev MTU),
 * with the ACKs, READ responses and atomic ACKs a responder sends, a few PSN-sequence and RNR
 * NAKs followed by retransmissions, ECN-marked packets each answered by a CNP, and UD SENDs
 * with DETH. Every packet comes from uroce_rocev2_build, so every ICRC is right.
 *
 * Most messages are small (0-256 bytes), so most packets are whole in the file and their
 * ICRC is part of what a dissector verifies. A few percent are large; their full-MTU packets
 * are cut at the snap length (512 by default) with the wire length kept, as `tcpdump -s 512`
 * would, which keeps the file near 200 bytes per packet.
 *
 *   gen_capture [-n PACKETS] [-s SEED] [-S SNAPLEN] -o FILE.pcap
 *
 * The output depends only on the options. A summary (packets per opcode, snapped packets,
 * bytes) goes to standard error. */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/build.h"
#include "wire/ib.h"
#include "wire/opcode.h"

#define PMTU 1024
#define N_RC 48            /* RC connections (a requester QP and a responder QP each) */
#define N_UD 4             /* UD QPs */
#define N_HOSTS 8
#define MAX_FRAME 2048     /* Ethernet + IPv4 + UDP + BTH + the largest headers + PMTU + ICRC */
#define PAYLOAD_POOL 8192  /* payload bytes are taken from a pool at a random offset */
#define DSCP_ROCE 26       /* a common RoCE traffic class: DSCP 26, ECN ECT(0) */
#define DSCP_CNP 48        /* CNP priority (facts.md section 4) */
#define ECN_ECT0 0x02
#define ECN_CE 0x03

/* xorshift64*: deterministic, fast, good enough for a traffic mix. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n). */
static uint32_t rnd_below(uint32_t n) { return (uint32_t)((rnd() >> 32) * n >> 32); }

/* True with probability per_mille / 1000. */
static bool chance(uint32_t per_mille) { return rnd_below(1000) < per_mille; }

struct host {
	uint8_t mac[6];
	uint8_t ip[4];
};

/* One end of a connection. */
struct qp {
	unsigned host;
	uint32_t qpn;
	uint16_t sport;  /* 0xC000 | hash of the QPN, fixed per QP (facts.md section 3) */
	uint16_t ip_id;  /* rxe picks varying IPv4 IDs; a per-QP counter is close enough */
};

struct rc_conn {
	struct qp req, resp;
	uint32_t psn;    /* next requester PSN */
	uint32_t msn;    /* responder's message sequence number */
	uint32_t rkey;
	uint64_t va;
};

struct gen {
	pcap_dumper_t *out;
	uint64_t limit, count, snapped, bytes_wire, bytes_file;
	uint32_t snaplen;
	uint64_t ts_ns;
	struct host hosts[N_HOSTS];
	struct rc_conn rc[N_RC];
	struct qp ud[N_UD];
	uint8_t pool[PAYLOAD_POOL];
	uint64_t per_opcode[256];
};

static bool done(const struct gen *g) { return g->count >= g->limit; }

/* Builds one packet and appends it to the capture; returns true when tclass marks it CE
 * (the caller then sends a CNP). */
static bool emit(struct gen *g, struct qp *from, const struct qp *to, uint8_t tclass,
		 const struct uroce_bth *bth, const struct uroce_ext *ext, size_t payload_len)
{
	static uint8_t frame[MAX_FRAME];
	const struct host *src = &g->hosts[from->host], *dst = &g->hosts[to->host];
	struct uroce_eth eth = {0};
	struct uroce_rocev2_net net = {.tclass = tclass, .hop_limit = 64, .sport = from->sport,
				       .ip_id = from->ip_id++};

	if (done(g))
		return false;
	memcpy(eth.src, src->mac, 6);
	memcpy(eth.dst, dst->mac, 6);
	memcpy(net.src, src->ip, 4);
	memcpy(net.dst, dst->ip, 4);
	const uint8_t *payload = g->pool + rnd_below(PAYLOAD_POOL - PMTU);
	ssize_t n = uroce_rocev2_build(frame, sizeof(frame), &eth, &net, bth, ext, payload,
				       payload_len);
	if (n < 0) {
		fprintf(stderr, "gen_capture: opcode 0x%02x: %s\n", bth->opcode,
			uroce_strerror((int)n));
		exit(1);
	}

	/* About 10 Gbit/s on the wire: 0.8 ns per byte plus a small gap. */
	g->ts_ns += (uint64_t)n * 8 / 10 + 100 + rnd_below(400);
	struct pcap_pkthdr h = {
		.ts = {.tv_sec = (time_t)(g->ts_ns / 1000000000u),
		       .tv_usec = (suseconds_t)(g->ts_ns % 1000000000u / 1000)},
		.caplen = (bpf_u_int32)n < g->snaplen ? (bpf_u_int32)n : g->snaplen,
		.len = (bpf_u_int32)n,
	};
	pcap_dump((u_char *)g->out, &h, frame);
	g->count++;
	g->snapped += h.caplen < h.len;
	g->bytes_wire += h.len;
	g->bytes_file += 16 + h.caplen;
	g->per_opcode[bth->opcode]++;
	return (tclass & 3) == ECN_CE;
}

/* The notification point answers a CE-marked packet with a CNP to the sending QP
 * (Annex A17.9.3: opcode 0x81, PSN 0, 16 reserved bytes; BECN set as a ConnectX-4 Lx does). */
static void send_cnp(struct gen *g, const struct qp *marked_from, struct qp *marked_to,
		     uint16_t pkey)
{
	struct uroce_bth bth = {.opcode = UROCE_OP_CNP_CNP, .pkey = pkey, .becn = true,
				.destqp = marked_from->qpn};
	struct uroce_ext ext = {.present = UROCE_EH_CNPRSV};

	emit(g, marked_to, marked_from, DSCP_CNP << 2, &bth, &ext, 0);
}

/* One data-path packet; 1 % of them cross a congested queue and arrive CE-marked. */
static void emit_data(struct gen *g, struct qp *from, struct qp *to,
		      const struct uroce_bth *bth, const struct uroce_ext *ext, size_t len)
{
	uint8_t ecn = chance(10) ? ECN_CE : ECN_ECT0;

	if (emit(g, from, to, DSCP_ROCE << 2 | ecn, bth, ext, len))
		send_cnp(g, from, to, bth->pkey);
}

/* Message sizes: mostly small, a few percent spanning several MTUs. */
static uint32_t message_size(void)
{
	if (chance(30))
		return PMTU + rnd_below(7 * PMTU);
	return rnd_below(257);
}

static void ack(struct gen *g, struct rc_conn *c, uint32_t psn, uint8_t syndrome)
{
	struct uroce_bth bth = {.opcode = UROCE_OP_RC_ACKNOWLEDGE, .pkey = 0xFFFF,
				.destqp = c->req.qpn, .psn = psn};
	struct uroce_ext ext = {.present = UROCE_EH_AETH,
				.aeth = {.syndrome = syndrome, .msn = c->msn}};

	emit(g, &c->resp, &c->req, DSCP_ROCE << 2 | ECN_ECT0, &bth, &ext, 0);
}

/* The packets of one SEND or RDMA WRITE message, from first_psn. */
static void send_packets(struct gen *g, struct rc_conn *c, bool write, bool imm, uint32_t size,
			 uint32_t first_psn)
{
	uint32_t npkts = size <= PMTU ? 1 : (size + PMTU - 1) / PMTU;
	uint32_t left = size;

	for (uint32_t i = 0; i < npkts && !done(g); i++) {
		bool first = i == 0, last = i + 1 == npkts;
		uint32_t len = last ? left : PMTU;
		struct uroce_bth bth = {.pkey = 0xFFFF, .destqp = c->resp.qpn,
					.psn = (first_psn + i) & 0xFFFFFF, .ackreq = last};
		struct uroce_ext ext = {0};
		uint8_t op;

		if (write)
			op = first && last ? (imm ? UROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
						  : UROCE_OP_RC_RDMA_WRITE_ONLY)
			     : first ? UROCE_OP_RC_RDMA_WRITE_FIRST
			     : last ? (imm ? UROCE_OP_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE
					   : UROCE_OP_RC_RDMA_WRITE_LAST)
				    : UROCE_OP_RC_RDMA_WRITE_MIDDLE;
		else
			op = first && last ? (imm ? UROCE_OP_RC_SEND_ONLY_WITH_IMMEDIATE
						  : UROCE_OP_RC_SEND_ONLY)
			     : first ? UROCE_OP_RC_SEND_FIRST
			     : last ? (imm ? UROCE_OP_RC_SEND_LAST_WITH_IMMEDIATE
					   : UROCE_OP_RC_SEND_LAST)
				    : UROCE_OP_RC_SEND_MIDDLE;
		bth.opcode = op;
		bth.se = last && !write;
		ext.present = uroce_opcode_info(op)->headers;
		ext.reth = (struct uroce_reth){.va = c->va, .rkey = c->rkey, .dmalen = size};
		ext.immdt = (uint32_t)rnd();
		emit_data(g, &c->req, &c->resp, &bth, &ext, len);
		left -= len;
	}
}

/* SEND or RDMA WRITE, then the responder's ACK; now and then a PSN-sequence NAK (a lost
 * packet: the requester goes back and resends the message) or an RNR NAK (no receive WQE:
 * the SEND is retried after the timer). */
static void rc_send_write(struct gen *g, struct rc_conn *c, bool write)
{
	uint32_t size = message_size(), first = c->psn;
	uint32_t npkts = size <= PMTU ? 1 : (size + PMTU - 1) / PMTU;
	bool imm = chance(100);
	uint32_t last = (first + npkts - 1) & 0xFFFFFF;

	send_packets(g, c, write, imm, size, first);
	if (chance(3)) {
		ack(g, c, first, uroce_aeth_syndrome(UROCE_AETH_NAK, UROCE_NAK_PSN_SEQ_ERR));
		send_packets(g, c, write, imm, size, first);
	} else if (!write && chance(2)) {
		ack(g, c, first, uroce_aeth_syndrome(UROCE_AETH_RNR_NAK, 14));
		send_packets(g, c, write, imm, size, first);
	}
	c->msn = (c->msn + 1) & 0xFFFFFF;
	ack(g, c, last, UROCE_AETH_CREDIT_INVALID);
	c->psn = (first + npkts) & 0xFFFFFF;
}

/* RDMA READ: the request consumes one PSN per response packet (IBA 9.7.4.1.3). */
static void rc_read(struct gen *g, struct rc_conn *c)
{
	uint32_t size = message_size(), first = c->psn;
	uint32_t npkts = size <= PMTU ? 1 : (size + PMTU - 1) / PMTU;
	struct uroce_bth bth = {.opcode = UROCE_OP_RC_RDMA_READ_REQUEST, .pkey = 0xFFFF,
				.destqp = c->resp.qpn, .psn = first, .ackreq = true};
	struct uroce_ext ext = {.present = UROCE_EH_RETH,
				.reth = {.va = c->va, .rkey = c->rkey, .dmalen = size}};

	emit_data(g, &c->req, &c->resp, &bth, &ext, 0);
	c->msn = (c->msn + 1) & 0xFFFFFF;
	uint32_t left = size;
	for (uint32_t i = 0; i < npkts && !done(g); i++) {
		bool f = i == 0, l = i + 1 == npkts;
		uint32_t len = l ? left : PMTU;
		uint8_t op = f && l ? UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY
			     : f ? UROCE_OP_RC_RDMA_READ_RESPONSE_FIRST
			     : l ? UROCE_OP_RC_RDMA_READ_RESPONSE_LAST
				 : UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		struct uroce_bth rb = {.opcode = op, .pkey = 0xFFFF, .destqp = c->req.qpn,
				       .psn = (first + i) & 0xFFFFFF};
		struct uroce_ext re = {.present = uroce_opcode_info(op)->headers,
				       .aeth = {.syndrome = UROCE_AETH_CREDIT_INVALID, .msn = c->msn}};
		emit_data(g, &c->resp, &c->req, &rb, &re, len);
		left -= len;
	}
	c->psn = (first + npkts) & 0xFFFFFF;
}

static void rc_atomic(struct gen *g, struct rc_conn *c)
{
	bool cas = chance(500);
	struct uroce_bth bth = {.opcode = cas ? UROCE_OP_RC_CMP_SWAP : UROCE_OP_RC_FETCH_ADD,
				.pkey = 0xFFFF, .destqp = c->resp.qpn, .psn = c->psn,
				.ackreq = true};
	struct uroce_ext ext = {.present = UROCE_EH_ATOMICETH,
				.atomiceth = {.va = c->va + 8 * rnd_below(512), .rkey = c->rkey,
					      .swap = rnd(), .cmp = cas ? rnd() : 0}};

	emit_data(g, &c->req, &c->resp, &bth, &ext, 0);
	c->msn = (c->msn + 1) & 0xFFFFFF;
	struct uroce_bth ab = {.opcode = UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, .pkey = 0xFFFF,
			       .destqp = c->req.qpn, .psn = c->psn};
	struct uroce_ext ae = {.present = UROCE_EH_AETH | UROCE_EH_ATOMICACKETH,
			       .aeth = {.syndrome = UROCE_AETH_CREDIT_INVALID, .msn = c->msn},
			       .atomicacketh = {.orig = rnd()}};
	emit(g, &c->resp, &c->req, DSCP_ROCE << 2 | ECN_ECT0, &ab, &ae, 0);
	c->psn = (c->psn + 1) & 0xFFFFFF;
}

static void ud_send(struct gen *g)
{
	struct qp *from = &g->ud[rnd_below(N_UD)], *to = &g->ud[rnd_below(N_UD)];
	bool imm = chance(200);
	struct uroce_bth bth = {.opcode = imm ? UROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE
					      : UROCE_OP_UD_SEND_ONLY,
				.pkey = 0xFFFF, .destqp = to->qpn, .psn = rnd() & 0xFFFFFF};
	struct uroce_ext ext = {.present = uroce_opcode_info(bth.opcode)->headers,
				.deth = {.qkey = 0x11111111, .srcqp = from->qpn},
				.immdt = (uint32_t)rnd()};

	emit_data(g, from, to, &bth, &ext, rnd_below(257));
}

static void qp_init(struct qp *q, unsigned host, uint32_t qpn)
{
	q->host = host;
	q->qpn = qpn;
	/* A multiplicative hash of the QPN into 14 bits, as rxe derives its source port. */
	q->sport = (uint16_t)(0xC000 | ((qpn * 0x61C88647u) >> 18));
	q->ip_id = (uint16_t)rnd();
}

static void gen_init(struct gen *g)
{
	for (unsigned h = 0; h < N_HOSTS; h++) {
		static const uint8_t oui[3] = {0x02, 0x00, 0x5E};
		memcpy(g->hosts[h].mac, oui, 3);
		g->hosts[h].mac[5] = (uint8_t)(h + 1);
		memcpy(g->hosts[h].ip, (const uint8_t[]){10, 0, 0, (uint8_t)(h + 1)}, 4);
	}
	for (unsigned i = 0; i < N_RC; i++) {
		struct rc_conn *c = &g->rc[i];
		unsigned a = rnd_below(N_HOSTS), b = (a + 1 + rnd_below(N_HOSTS - 1)) % N_HOSTS;
		qp_init(&c->req, a, 0x11 + 2 * i);
		qp_init(&c->resp, b, 0x12 + 2 * i);
		c->psn = rnd() & 0xFFFFFF;
		c->rkey = (uint32_t)rnd();
		c->va = 0x7F0000000000ull + ((rnd() & 0xFFFFF) << 12);
	}
	for (unsigned i = 0; i < N_UD; i++)
		qp_init(&g->ud[i], i % N_HOSTS, 0x1000 + i);
	/* Text rather than random bytes: random payloads now and then match one of tshark's
	 * heuristic payload dissectors (FCoIB, ...) and turn into malformed-packet reports,
	 * which real application data would not. */
	static const char text[] = "uroce dissector benchmark payload, 0123456789. ";
	for (size_t i = 0; i < PAYLOAD_POOL; i++)
		g->pool[i] = (uint8_t)text[i % (sizeof(text) - 1)];
	g->ts_ns = 1700000000ull * 1000000000u;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n PACKETS] [-s SEED] [-S SNAPLEN] -o FILE.pcap\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static struct gen g;
	const char *path = NULL;
	uint64_t seed = 1;
	int opt;

	g.limit = 1000000;
	g.snaplen = 512;
	while ((opt = getopt(argc, argv, "n:s:S:o:")) != -1) {
		switch (opt) {
		case 'n':
			g.limit = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			g.snaplen = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			path = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!path || optind != argc || g.snaplen < 64)
		usage(argv[0]);
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	gen_init(&g);

	pcap_t *dead = pcap_open_dead(DLT_EN10MB, (int)g.snaplen);
	g.out = dead ? pcap_dump_open(dead, path) : NULL;
	if (!g.out) {
		fprintf(stderr, "gen_capture: %s: %s\n", path, dead ? pcap_geterr(dead) : "pcap");
		return 1;
	}
	/* The operation mix, per message: SEND 35 %, WRITE 30 %, READ 15 %, atomics 5 %,
	 * UD SEND 15 %. */
	while (!done(&g)) {
		struct rc_conn *c = &g.rc[rnd_below(N_RC)];
		uint32_t r = rnd_below(100);
		if (r < 35)
			rc_send_write(&g, c, false);
		else if (r < 65)
			rc_send_write(&g, c, true);
		else if (r < 80)
			rc_read(&g, c);
		else if (r < 85)
			rc_atomic(&g, c);
		else
			ud_send(&g);
	}
	if (pcap_dump_flush(g.out) < 0) {
		fprintf(stderr, "gen_capture: %s: write error\n", path);
		return 1;
	}
	pcap_dump_close(g.out);
	pcap_close(dead);

	fprintf(stderr, "%s: %llu packets, %llu cut at snaplen %u, %.1f MB on the wire, "
		"%.1f MB in the file\n", path, (unsigned long long)g.count,
		(unsigned long long)g.snapped, g.snaplen, g.bytes_wire / 1e6,
		(g.bytes_file + 24) / 1e6);
	for (unsigned op = 0; op < 256; op++)
		if (g.per_opcode[op])
			fprintf(stderr, "  %-40s %8llu\n", uroce_opcode_info((uint8_t)op)->name,
				(unsigned long long)g.per_opcode[op]);
	return 0;
}

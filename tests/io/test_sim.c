/* SPDX-License-Identifier: MIT */
/* The simulated fabric: exact latency and serialisation arithmetic, FIFO order, tail drop,
 * every impairment seen end to end with real RoCEv2 packets (the ICRC catches corruption and
 * survives CE marking), the pcap trace read back with libpcap and the dissector, determinism
 * of counters and trace bytes, the io ops table, multicast groups, a switch with PFC, and the
 * error paths. Only virtual time. */
#include "testutil.h"

#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "io/sim.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/icrc.h"
#include "wire/packet.h"

#define GBPS 1000000000ull
#define BIG 4200

static const struct uroce_io_addr addr4[2] = {{.ip = {10, 0, 0, 1}}, {.ip = {10, 0, 0, 2}}};
static const struct uroce_io_addr addr6[2] = {
	{.ipv6 = true, .ip = {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
	{.ipv6 = true, .ip = {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}},
};

/* Endpoint 0 and 1 with a link each way (link 0: 0 -> 1, link 1: 1 -> 0). */
static struct uroce_sim *pair_new(uint64_t seed, bool ipv6, const struct uroce_sim_link_cfg *fwd,
				  const struct uroce_sim_link_cfg *back, uint32_t ring)
{
	const struct uroce_io_addr *addr = ipv6 ? addr6 : addr4;
	struct uroce_sim_cfg cfg = {.pool_pkts = 8192, .max_pkt = BIG};
	struct uroce_sim *sim = uroce_sim_new(seed, &cfg);

	assert_non_null(sim);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr[0], ring), 0);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr[1], ring), 1);
	assert_int_equal(uroce_sim_connect(sim, 0, 1, fwd), 0);
	assert_int_equal(uroce_sim_connect(sim, 1, 0, back), 1);
	return sim;
}

/* A RoCEv2 RC SEND ONLY datagram from src to dst, with PSN psn and a payload whose bytes
 * derive from psn. */
static size_t make_packet_to(uint8_t *buf, const struct uroce_io_addr *src,
			     const struct uroce_io_addr *dst, uint32_t psn, size_t payload_len,
			     uint8_t tclass)
{
	uint8_t payload[BIG];
	struct uroce_rocev2_net net = {.ipv6 = src->ipv6, .tclass = tclass, .hop_limit = 64,
				       .sport = 0xC000 | (uint16_t)psn};
	struct uroce_bth bth = {.opcode = UROCE_OP_RC_SEND_ONLY, .pkey = 0xFFFF, .destqp = 0x12,
				.psn = psn & 0xFFFFFF};
	struct uroce_ext ext = {0};

	memcpy(net.src, src->ip, 16);
	memcpy(net.dst, dst->ip, 16);
	for (size_t i = 0; i < payload_len; i++)
		payload[i] = (uint8_t)(psn * 7 + i);
	ssize_t n = uroce_rocev2_build(buf, BIG, NULL, &net, &bth, &ext, payload, payload_len);
	assert_true(n > 0);
	return (size_t)n;
}

/* The same from endpoint `from` of a pair to the other. */
static size_t make_packet(uint8_t *buf, bool ipv6, int from, uint32_t psn, size_t payload_len,
			  uint8_t tclass)
{
	const struct uroce_io_addr *addr = ipv6 ? addr6 : addr4;
	return make_packet_to(buf, &addr[from], &addr[!from], psn, payload_len, tclass);
}

static void send_packet(struct uroce_sim *sim, bool ipv6, int from, uint32_t psn,
			size_t payload_len, uint8_t tclass)
{
	uint8_t buf[BIG];
	struct uroce_io_pkt pkt = {.data = buf};

	pkt.len = (uint32_t)make_packet(buf, ipv6, from, psn, payload_len, tclass);
	assert_int_equal(uroce_sim_send(sim, from, &pkt), 0);
}

struct rx {
	uint8_t data[BIG];
	struct uroce_io_pkt pkt;
};

/* Receives one packet of endpoint ep into r; returns false when none is waiting. */
static bool recv_one(struct uroce_sim *sim, int ep, struct rx *r)
{
	r->pkt = (struct uroce_io_pkt){.data = r->data, .cap = sizeof(r->data)};
	int n = uroce_sim_recv(sim, ep, &r->pkt, 1);
	assert_in_range(n, 0, 1);
	return n == 1;
}

static uint32_t psn_of(const struct rx *r)
{
	struct uroce_pkt p;
	assert_int_equal(uroce_pkt_dissect(&p, UROCE_LINK_IP, r->data, r->pkt.len), 0);
	assert_int_equal(uroce_pkt_icrc_check(&p, NULL), UROCE_CRC_OK);
	return p.bth.psn;
}

static void run_idle(struct uroce_sim *sim)
{
	for (uint64_t t; (t = uroce_sim_next_event_time(sim)) != UROCE_SIM_NEVER;)
		uroce_sim_run_until(sim, t);
}

/* 4096 bytes at 10 Gbit/s take 3276.8 ns; events fall on the next whole nanosecond while
 * the link keeps the exact fraction, so back-to-back packets never drift. */
static void test_latency_bandwidth_exact(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 1000, .bandwidth_bps = 10 * GBPS};
	struct uroce_sim *sim = pair_new(1, false, &cfg, &cfg, 0);
	static const uint64_t arrive[] = {4277, 7554, 10831, 14108, 17384}; /* ceil(k x 3276.8) */
	struct rx r;
	(void)state;

	for (uint32_t k = 0; k < 5; k++) /* 20 + 8 + 12 + 4052 + 4 = 4096 bytes */
		send_packet(sim, false, 0, k, 4052, 0);
	assert_int_equal(uroce_sim_next_event_time(sim), 3277);
	for (uint32_t k = 0; k < 5; k++) {
		uroce_sim_run_until(sim, arrive[k] - 1);
		assert_false(recv_one(sim, 1, &r));
		uroce_sim_run_until(sim, arrive[k]);
		assert_true(recv_one(sim, 1, &r));
		assert_int_equal(r.pkt.len, 4096);
		assert_int_equal(r.pkt.ts_ns, arrive[k]);
		assert_int_equal(psn_of(&r), k);
	}
	/* An idle link starts serialising when the packet is sent. */
	uroce_sim_run_until(sim, 100000);
	send_packet(sim, false, 0, 9, 4052, 0);
	run_idle(sim);
	assert_true(recv_one(sim, 1, &r));
	assert_int_equal(r.pkt.ts_ns, 100000 + 3277 + 1000);
	assert_int_equal(uroce_sim_now(sim), 100000 + 3277 + 1000);
	/* Time never goes back. */
	uroce_sim_run_until(sim, 5);
	assert_int_equal(uroce_sim_now(sim), 100000 + 3277 + 1000);
	uroce_sim_free(sim);

	/* Infinite bandwidth: latency only, and no queue. */
	struct uroce_sim_link_cfg fast = {.latency_ns = 1234, .queue_pkts = 1};
	sim = pair_new(1, true, &fast, &fast, 0);
	for (uint32_t k = 0; k < 3; k++)
		send_packet(sim, true, 1, k, 4000, 0);
	run_idle(sim);
	for (uint32_t k = 0; k < 3; k++) {
		assert_true(recv_one(sim, 0, &r));
		assert_int_equal(r.pkt.ts_ns, 1234);
		assert_int_equal(psn_of(&r), k);
	}
	uroce_sim_free(sim);
}

/* Without reorder or jitter a link is FIFO, and no packet arrives before its latency plus
 * its own serialisation time. */
static void test_fifo(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 5000, .bandwidth_bps = 10 * GBPS};
	struct uroce_sim *sim = pair_new(2, false, &cfg, &cfg, 4096);
	uint64_t sent_at[2000];
	struct rx r;
	uint32_t next = 0;
	(void)state;

	for (uint32_t k = 0; k < 2000; k++) {
		if (k % 16 == 0)
			uroce_sim_run_until(sim, uroce_sim_now(sim) + test_rand() % 20000);
		sent_at[k] = uroce_sim_now(sim);
		send_packet(sim, false, 0, k, 64 + test_rand() % 1400, 0);
	}
	run_idle(sim);
	for (uint64_t last = 0; recv_one(sim, 1, &r); next++) {
		assert_int_equal(psn_of(&r), next);
		assert_true(r.pkt.ts_ns >= last);
		assert_true(r.pkt.ts_ns >= sent_at[next] + 5000 + r.pkt.len * 8 / 10);
		last = r.pkt.ts_ns;
	}
	assert_int_equal(next, 2000);
	assert_int_equal(uroce_sim_link_counters(sim, 0)->delivered, 2000);
	uroce_sim_free(sim);
}

static void test_queue_tail_drop(void **state)
{
	/* 20 + 8 + 12 + 956 + 4 = 1000-byte packets. */
	struct uroce_sim_link_cfg pkts = {.bandwidth_bps = 1 * GBPS, .queue_pkts = 4};
	struct uroce_sim_link_cfg bytes = {.bandwidth_bps = 1 * GBPS, .queue_bytes = 3500};
	struct uroce_sim *sim = pair_new(3, false, &pkts, &bytes, 0);
	struct rx r;
	(void)state;

	for (uint32_t k = 0; k < 10; k++) {
		send_packet(sim, false, 0, k, 956, 0);
		send_packet(sim, false, 1, k, 956, 0);
	}
	run_idle(sim);
	for (uint32_t k = 0; k < 4; k++) {
		assert_true(recv_one(sim, 1, &r));
		assert_int_equal(psn_of(&r), k);
		assert_int_equal(r.pkt.ts_ns, 8000 * (k + 1)); /* 8 us each at 1 Gbit/s */
	}
	assert_false(recv_one(sim, 1, &r));
	for (uint32_t k = 0; k < 3; k++) {
		assert_true(recv_one(sim, 0, &r));
		assert_int_equal(psn_of(&r), k);
	}
	assert_false(recv_one(sim, 0, &r));
	assert_int_equal(uroce_sim_link_counters(sim, 0)->drop_queue, 6);
	assert_int_equal(uroce_sim_link_counters(sim, 1)->drop_queue, 7);
	assert_int_equal(uroce_sim_link_counters(sim, 0)->sent, 10);
	assert_int_equal(uroce_sim_endpoint_counters(sim, 1)->delivered, 4);

	/* Once the queue drains, packets are accepted again. */
	send_packet(sim, false, 0, 10, 956, 0);
	run_idle(sim);
	assert_true(recv_one(sim, 1, &r));
	assert_int_equal(psn_of(&r), 10);
	uroce_sim_free(sim);
}

/* Sends n packets (PSN 0..n-1) from 0 to 1 in groups, receiving as it goes, and marks in
 * got[] which PSNs arrived (counting copies). */
static void stream(struct uroce_sim *sim, uint32_t n, size_t payload, uint8_t *got)
{
	struct rx r;

	for (uint32_t k = 0; k < n;) {
		for (uint32_t end = k + 500; k < end && k < n; k++)
			send_packet(sim, false, 0, k, payload, 0);
		uroce_sim_run_until(sim, uroce_sim_now(sim) + 1000000);
		while (recv_one(sim, 1, &r))
			got[psn_of(&r)]++;
	}
	run_idle(sim);
	while (recv_one(sim, 1, &r))
		got[psn_of(&r)]++;
}

#define NLOSS 100000
static uint8_t got[NLOSS];

static uint64_t loss_run(uint64_t seed)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 1000, .impair = {.loss = 0.01}};
	struct uroce_sim *sim = pair_new(seed, false, &cfg, &cfg, 1024);

	memset(got, 0, sizeof(got));
	stream(sim, NLOSS, 16, got);
	const union uroce_sim_counters *c = uroce_sim_link_counters(sim, 0);
	uint64_t lost = c->drop_loss, missing = 0;
	for (uint32_t k = 0; k < NLOSS; k++) {
		assert_in_range(got[k], 0, 1);
		missing += !got[k];
	}
	assert_int_equal(missing, lost);
	assert_int_equal(c->delivered + lost, NLOSS);
	uroce_sim_free(sim);
	return lost;
}

static void test_loss_rate(void **state)
{
	(void)state;
	/* Binomial(100000, 0.01): mean 1000, sd 31.5. The seed fixes the count; the +-6 sd
	 * bounds only catch a broken model. */
	uint64_t lost = loss_run(42);
	assert_in_range(lost, 811, 1189);
	assert_int_equal(loss_run(42), lost);
	assert_int_not_equal(loss_run(43), lost);
}

static void test_burst_loss(void **state)
{
	/* Mean bad run 1/r = 4 packets. */
	struct uroce_sim_link_cfg cfg = {.latency_ns = 1000,
					 .impair = {.burst_p = 0.002, .burst_r = 0.25}};
	struct uroce_sim *sim = pair_new(5, false, &cfg, &cfg, 1024);
	uint32_t runs = 0, missing = 0;
	(void)state;

	memset(got, 0, sizeof(got));
	stream(sim, 50000, 16, got);
	for (uint32_t k = 0; k < 50000; k++) {
		missing += !got[k];
		runs += !got[k] && (k == 0 || got[k - 1]);
	}
	assert_int_equal(missing, uroce_sim_link_counters(sim, 0)->drop_burst);
	assert_int_equal(uroce_sim_link_counters(sim, 0)->drop_loss, 0);
	assert_in_range(missing, 200, 700);
	assert_true(missing >= 3 * runs); /* runs, not isolated losses */
	uroce_sim_free(sim);
}

static void test_duplication(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 3000, .bandwidth_bps = 25 * GBPS,
					 .impair = {.dup = 0.05}};
	struct uroce_sim *sim = pair_new(6, false, &cfg, &cfg, 4096);
	static struct rx prev, r;
	uint32_t copies = 0, n = 0;
	(void)state;

	for (uint32_t k = 0; k < 3000; k++)
		send_packet(sim, false, 0, k, 300, 0);
	run_idle(sim);
	bool have_prev = false;
	uint32_t expect = 0;
	while (recv_one(sim, 1, &r)) {
		n++;
		uint32_t psn = psn_of(&r);
		if (have_prev && psn == psn_of(&prev)) {
			/* A copy follows its original at once, byte for byte. */
			copies++;
			assert_int_equal(r.pkt.len, prev.pkt.len);
			assert_memory_equal(r.data, prev.data, r.pkt.len);
			assert_int_equal(r.pkt.ts_ns, prev.pkt.ts_ns);
		} else {
			assert_int_equal(psn, expect++);
		}
		prev = r;
		have_prev = true;
	}
	const union uroce_sim_counters *c = uroce_sim_link_counters(sim, 0);
	assert_int_equal(expect, 3000);
	assert_int_equal(copies, c->duplicated);
	assert_int_equal(n, 3000 + c->duplicated);
	assert_in_range(copies, 100, 200); /* Binomial(3000, 0.05): mean 150, sd 12 */
	uroce_sim_free(sim);
}

static void test_reorder(void **state)
{
	/* 1000-byte packets take 800 ns at 10 Gbit/s: a 20 us hold lets ~25 overtake. */
	struct uroce_sim_link_cfg cfg = {.latency_ns = 2000, .bandwidth_bps = 10 * GBPS,
					 .impair = {.reorder = 0.05}};
	struct uroce_sim *sim = pair_new(7, false, &cfg, &cfg, 8192);
	static uint8_t seen[5000];
	struct rx r;
	uint32_t n = 0, descents = 0, last = 0;
	(void)state;

	for (uint32_t k = 0; k < 5000; k++)
		send_packet(sim, false, 0, k, 956, 0);
	run_idle(sim);
	for (; recv_one(sim, 1, &r); n++) {
		uint32_t psn = psn_of(&r);
		assert_true(psn < 5000);
		assert_int_equal(seen[psn]++, 0);
		descents += n && psn < last;
		last = psn;
	}
	const union uroce_sim_counters *c = uroce_sim_link_counters(sim, 0);
	assert_int_equal(n, 5000); /* nothing lost */
	assert_in_range(c->reordered, 180, 320); /* Binomial(5000, 0.05): mean 250, sd 15 */
	assert_true(descents > c->reordered / 2);
	uroce_sim_free(sim);
}

/* Every corrupted packet fails the ICRC and every other one passes. FIFO and lossless, so
 * the k-th delivered packet is PSN k and can be rebuilt to compare bytes. */
static void test_corruption_caught(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 1000, .bandwidth_bps = 40 * GBPS,
					 .impair = {.corrupt = 0.03, .corrupt_bits = 3}};
	uint8_t want[BIG];
	struct rx r;
	uint32_t differ = 0, n = 0;
	(void)state;

	for (int v6 = 0; v6 < 2; v6++) {
		struct uroce_sim *sim = pair_new(8, v6, &cfg, &cfg, 8192);
		size_t hdr = (v6 ? UROCE_IPV6_HLEN : UROCE_IPV4_HLEN) + UROCE_UDP_HLEN;
		differ = 0;
		for (uint32_t k = 0; k < 5000; k++)
			send_packet(sim, v6, 0, k, k % 1500, 0x02);
		run_idle(sim);
		for (n = 0; recv_one(sim, 1, &r); n++) {
			size_t len = make_packet(want, v6, 0, n, n % 1500, 0x02);
			bool bad = memcmp(want, r.data, len) != 0;
			uint32_t crc;
			assert_int_equal(r.pkt.len, len);
			differ += bad;
			/* The ICRC recomputed directly... */
			assert_int_equal(uroce_icrc(v6 ? UROCE_ICRC_ROCEV2_IPV6 : UROCE_ICRC_ROCEV2_IPV4,
						    r.data, hdr, len - 4, &crc), 0);
			assert_int_equal(crc != get_le32(r.data + len - 4), bad);
			/* ... and by the dissector, when a flip did not make the headers
			 * unreadable (an invalid opcode, say). */
			struct uroce_pkt p;
			if (uroce_pkt_dissect(&p, UROCE_LINK_IP, r.data, len) == 0)
				assert_int_equal(uroce_pkt_icrc_check(&p, NULL),
						 bad ? UROCE_CRC_BAD : UROCE_CRC_OK);
		}
		assert_int_equal(n, 5000);
		assert_int_equal(differ, uroce_sim_link_counters(sim, 0)->corrupted);
		assert_in_range(differ, 100, 200); /* mean 150 */
		uroce_sim_free(sim);
	}
}

/* corrupt_any may break the IP header itself: the packet still arrives where it was routed,
 * with no address or TOS taken from the broken header. */
static void test_corrupt_anywhere(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 100, .impair = {.corrupt = 1,
					 .corrupt_bits = 64, .corrupt_any = true}};
	struct uroce_sim *sim = pair_new(12, false, &cfg, &cfg, 4096);
	static const struct uroce_io_addr none;
	uint8_t want[BIG];
	struct rx r;
	uint32_t n = 0, broken = 0;
	(void)state;

	for (uint32_t k = 0; k < 2000; k++)
		send_packet(sim, false, 0, k, 20, 0x02);
	run_idle(sim);
	for (; recv_one(sim, 1, &r); n++) {
		size_t len = make_packet(want, false, 0, n, 20, 0x02);
		assert_int_equal(r.pkt.len, len);
		assert_true(memcmp(want, r.data, len) != 0);
		broken += !memcmp(&r.pkt.src, &none, sizeof(none));
	}
	assert_int_equal(n, 2000);
	assert_int_equal(uroce_sim_link_counters(sim, 0)->corrupted, 2000);
	assert_true(broken > 0);
	uroce_sim_free(sim);
}

/* Above the threshold ECT packets become CE; the IPv4 checksum is updated and the ICRC,
 * which masks the ECN bits, still verifies. */
static void test_ce_marking(void **state)
{
	/* Depth when each arrives: 0, 4096, 8192, ...; the threshold 5000 marks from the third.
	 * Not-ECT and already-CE packets are left alone; the DSCP stays (6 here: traffic class
	 * 0 like the others, so one queue). */
	static const uint8_t tc_in[] = {0x02, 0x01, 0x00, 0x02, 0x01, 0x1A, 0x03, 0x00};
	static const uint8_t tc_out[] = {0x02, 0x01, 0x00, 0x03, 0x03, 0x1B, 0x03, 0x00};
	struct uroce_sim_link_cfg cfg = {.latency_ns = 100, .bandwidth_bps = 10 * GBPS,
					 .ce_threshold = 5000};
	struct rx r;
	(void)state;

	for (int v6 = 0; v6 < 2; v6++) {
		struct uroce_sim *sim = pair_new(9, v6, &cfg, &cfg, 0);
		size_t payload = v6 ? 4032 : 4052; /* 4096-byte datagrams */
		for (uint32_t k = 0; k < sizeof(tc_in); k++)
			send_packet(sim, v6, 0, k, payload, tc_in[k]);
		run_idle(sim);
		for (uint32_t k = 0; k < sizeof(tc_in); k++) {
			struct uroce_pkt p;
			assert_true(recv_one(sim, 1, &r));
			assert_int_equal(r.pkt.len, 4096);
			assert_int_equal(r.pkt.tos, tc_out[k]);
			assert_int_equal(uroce_pkt_dissect(&p, UROCE_LINK_IP, r.data, r.pkt.len), 0);
			assert_int_equal(v6 ? p.ip6.tclass : p.ip4.tos, tc_out[k]);
			assert_int_equal(uroce_pkt_icrc_check(&p, NULL), UROCE_CRC_OK);
			assert_int_equal(p.bth.psn, k);
			if (!v6)
				assert_int_equal(uroce_ipv4_checksum(r.data, UROCE_IPV4_HLEN), 0);
			else
				assert_int_equal(p.ip6.flowlabel, 0);
		}
		assert_int_equal(uroce_sim_link_counters(sim, 0)->ce_marked, 3);
		uroce_sim_free(sim);
	}
}

/* ---- a two-way scenario with every impairment, for traces and determinism ---- */

static void tmp_path(char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/uroce-sim-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
}

#define SCEN_N 3000

struct scenario {
	union uroce_sim_counters c[4]; /* link 0, link 1, endpoint 0, endpoint 1 */
};

/* Endpoint 0 sends SCEN_N packets in bursts of 8 every 3 us; endpoint 1 answers each packet
 * it receives. The loop is the one an engine test uses: run to the next send or event,
 * receive, react. */
static void run_scenario(uint64_t seed, const char *trace, unsigned points, bool corrupt,
			 struct scenario *out)
{
	struct uroce_sim_link_cfg cfg = {
		.latency_ns = 2000, .bandwidth_bps = 25 * GBPS, .queue_pkts = 64,
		.ce_threshold = 4000,
		.impair = {.loss = 0.01, .burst_p = 0.001, .burst_r = 0.3, .dup = 0.01,
			   .reorder = 0.02, .corrupt = corrupt ? 0.01 : 0, .jitter_ns = 300}};
	struct uroce_sim *sim = pair_new(seed, false, &cfg, &cfg, 256);
	struct rx r;
	uint32_t sent = 0, replies = 0;

	if (trace)
		assert_int_equal(uroce_sim_trace_pcap(sim, trace, points), 0);
	for (;;) {
		uint64_t next_send = sent < SCEN_N ? sent / 8 * 3000ull : UROCE_SIM_NEVER;
		uint64_t next_event = uroce_sim_next_event_time(sim);
		uint64_t t = next_send < next_event ? next_send : next_event;
		if (t == UROCE_SIM_NEVER)
			break;
		uroce_sim_run_until(sim, t);
		for (; sent < SCEN_N && sent / 8 * 3000ull <= uroce_sim_now(sim); sent++)
			send_packet(sim, false, 0, sent, 200 + sent * 37 % 1000, 0x02);
		while (recv_one(sim, 1, &r)) {
			send_packet(sim, false, 1, replies, replies * 13 % 600, r.pkt.tos);
			replies++;
		}
		while (recv_one(sim, 0, &r))
			;
	}
	if (trace)
		assert_int_equal(uroce_sim_trace_pcap(sim, NULL, 0), 0);
	for (int i = 0; i < 2; i++) {
		out->c[i] = *uroce_sim_link_counters(sim, i);
		out->c[2 + i] = *uroce_sim_endpoint_counters(sim, i);
	}
	uroce_sim_free(sim);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	uint8_t *buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Nothing is created or lost unaccounted: at idle every packet offered to a link (and every
 * copy) was delivered or dropped under a named counter. */
static void check_balance(const union uroce_sim_counters *c)
{
	assert_int_equal(c->sent + c->duplicated,
			 c->delivered + c->drop_loss + c->drop_burst + c->drop_queue + c->drop_pool +
				 c->drop_ring + c->drop_closed);
}

static void test_determinism(void **state)
{
	char p1[4200], p2[4200], p3[4200];
	struct scenario a, b, c;
	size_t l1, l2, l3;
	(void)state;

	tmp_path(p1, sizeof(p1));
	tmp_path(p2, sizeof(p2));
	tmp_path(p3, sizeof(p3));
	unsigned both = UROCE_SIM_TRACE_SEND | UROCE_SIM_TRACE_DELIVER;
	run_scenario(100, p1, both, true, &a);
	run_scenario(100, p2, both, true, &b);
	run_scenario(101, p3, both, true, &c);
	uint8_t *t1 = read_file(p1, &l1), *t2 = read_file(p2, &l2), *t3 = read_file(p3, &l3);

	/* One seed, one trace, one set of counters. */
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(l1, l2);
	assert_memory_equal(t1, t2, l1);
	/* Another seed, another run. */
	assert_true(memcmp(&a, &c, sizeof(a)) != 0);
	assert_true(l1 != l3 || memcmp(t1, t3, l1) != 0);

	/* Every impairment happened, and everything is accounted for. */
	for (int i = 0; i < 2; i++) {
		for (enum uroce_sim_counter k = 0; k < UROCE_SIM_NCOUNTERS; k++)
			print_message("link %d %-13s %8" PRIu64 "\n", i, uroce_sim_counter_name(k),
				      a.c[i].v[k]);
		check_balance(&a.c[i]);
	}
	const union uroce_sim_counters *l = &a.c[0];
	assert_true(l->drop_loss && l->drop_burst && l->duplicated && l->reordered &&
		    l->corrupted && l->ce_marked);
	assert_int_equal(a.c[2].sent, SCEN_N);
	assert_int_equal(a.c[1].sent, a.c[3].delivered + a.c[3].drop_noroute);
	assert_int_equal(a.c[3].sent, a.c[3].delivered); /* one reply per packet received */
	assert_int_equal(a.c[2].delivered, a.c[1].delivered);
	assert_null(uroce_sim_counter_name(UROCE_SIM_NCOUNTERS));
	free(t1);
	free(t2);
	free(t3);
	unlink(p1);
	unlink(p2);
	unlink(p3);
}

/* The trace reads back with libpcap: nanosecond virtual timestamps in order, synthetic MACs
 * telling the point and the endpoints, and every packet a RoCEv2 packet whose ICRC verifies
 * (CE-marked ones included). */
static void test_trace_reads_back(void **state)
{
	char path[4200], err[PCAP_ERRBUF_SIZE];
	struct scenario s;
	uint64_t count[2][2] = {{0}}, last = 0; /* [point][sender] */
	(void)state;

	for (unsigned points = 1; points <= 3; points++) {
		tmp_path(path, sizeof(path));
		run_scenario(200, path, points, false, &s);
		pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
								     err);
		assert_non_null(pc);
		assert_int_equal(pcap_datalink(pc), DLT_EN10MB);
		memset(count, 0, sizeof(count));
		last = 0;
		struct pcap_pkthdr *h;
		const uint8_t *data;
		while (pcap_next_ex(pc, &h, &data) == 1) {
			struct uroce_pkt p;
			uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
			assert_true(ts >= last);
			last = ts;
			assert_int_equal(h->caplen, h->len);
			assert_int_equal(uroce_pkt_dissect(&p, UROCE_LINK_ETHERNET, data, h->caplen), 0);
			assert_int_equal(p.encap, UROCE_ENCAP_ROCEV2);
			assert_int_equal(uroce_pkt_icrc_check(&p, NULL), UROCE_CRC_OK);
			/* 02:00:00:<point>:<endpoint>: point 0 sent, 1 delivered. */
			unsigned point = data[9], from = get_be16(data + 10), to = get_be16(data + 4);
			assert_int_equal(data[6], 0x02);
			assert_int_equal(data[3], point);
			assert_in_range(point, 0, 1);
			assert_true(points & (1u << point));
			assert_int_equal(to, !from);
			assert_memory_equal(p.ip4.src, addr4[from].ip, 4);
			count[point][from]++;
		}
		pcap_close(pc);
		unlink(path);
		for (int from = 0; from < 2; from++) {
			assert_int_equal(count[0][from], points & 1 ? s.c[from].sent : 0);
			assert_int_equal(count[1][from], points & 2 ? s.c[from].delivered : 0);
		}
		assert_true(s.c[0].ce_marked > 0);
	}
	assert_true(last > 3000 * SCEN_N / 8);
}

/* The endpoint through the backend ops table, as the engine will use it. */
static void test_io_ops(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 500};
	struct uroce_sim *sim = pair_new(10, false, &cfg, &cfg, 0);
	struct uroce_io *a = uroce_sim_io(sim, 0), *b = uroce_sim_io(sim, 1);
	static uint8_t bufs[4][BIG];
	struct uroce_io_pkt pkts[4];
	(void)state;

	assert_non_null(a);
	assert_null(uroce_sim_io(sim, 2));
	assert_string_equal(a->ops->name, "sim");
	assert_int_equal(uroce_io_fd(a), -1);
	for (uint32_t k = 0; k < 3; k++)
		pkts[k] = (struct uroce_io_pkt){.data = bufs[k],
						.len = (uint32_t)make_packet(bufs[k], false, 0, k,
									     100 * k, 0x01)};
	assert_int_equal(uroce_io_send(a, pkts, 3), 3);
	bufs[1][0] = 0x55; /* not IP: the batch stops there */
	assert_int_equal(uroce_io_send(a, pkts, 3), 1);
	assert_int_equal(uroce_io_send(a, &pkts[1], 2), UROCE_EINVAL);
	uroce_sim_run_until(sim, 499);
	assert_int_equal(uroce_io_recv(b, pkts, 4), 0);
	uroce_sim_run_until(sim, 500);

	for (uint32_t k = 0; k < 4; k++)
		pkts[k] = (struct uroce_io_pkt){.data = bufs[k], .cap = BIG};
	pkts[2].cap = 50;
	assert_int_equal(uroce_io_recv(b, pkts, 4), 4);
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t len = (uint32_t)(20 + 8 + 12 + 100 * (k % 3) + 4);
		assert_int_equal(pkts[k].ts_ns, 500);
		assert_int_equal(pkts[k].tos, 0x01);
		assert_memory_equal(&pkts[k].src, &addr4[0], sizeof(addr4[0]));
		assert_memory_equal(&pkts[k].dst, &addr4[1], sizeof(addr4[1]));
		if (k == 2) { /* cut to the buffer and flagged */
			assert_int_equal(pkts[k].len, 50);
			assert_int_equal(pkts[k].flags, UROCE_IO_PKT_TRUNC);
		} else {
			assert_int_equal(pkts[k].len, len);
			assert_int_equal(pkts[k].flags, 0);
		}
	}
	assert_int_equal(uroce_io_recv(b, pkts, 4), 0);

	/* Closing drops what was waiting and what comes later. */
	send_packet(sim, false, 0, 7, 10, 0);
	send_packet(sim, false, 0, 8, 10, 0);
	uroce_sim_run_until(sim, 2000);
	send_packet(sim, false, 0, 9, 10, 0);
	uroce_io_close(b);
	run_idle(sim);
	assert_int_equal(uroce_sim_endpoint_counters(sim, 1)->drop_closed, 1);
	assert_int_equal(uroce_sim_link_counters(sim, 0)->drop_closed, 1);
	pkts[0].len = (uint32_t)make_packet(bufs[0], false, 1, 0, 0, 0);
	assert_int_equal(uroce_sim_send(sim, 1, &pkts[0]), UROCE_EINVAL);
	assert_int_equal(uroce_sim_endpoint_counters(sim, 0)->sent, 7);
	uroce_sim_free(sim);
}


/* Multicast: a datagram to a group reaches every endpoint that joined it, one copy per link
 * (the sender itself only through a link to itself), each copy impaired on its own link,
 * and no other endpoint; leaving stops the copies; the io ops table's join is the same call. */
static void test_multicast(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct uroce_sim_cfg scfg = {.pool_pkts = 256, .max_pkt = BIG};
		struct uroce_sim_link_cfg ideal = {.latency_ns = 100};
		struct uroce_sim_link_cfg lossy = {.latency_ns = 100, .impair = {.loss = 1.0}};
		struct uroce_sim *sim = uroce_sim_new(12, &scfg);
		struct uroce_io_addr ep[5], group = {.ipv6 = v6}, nobody = {.ipv6 = v6};
		struct uroce_io_addr other_family = {.ipv6 = !v6};
		uint8_t buf[BIG];
		struct uroce_io_pkt pkt = {.data = buf};
		int link[5];
		struct rx r;

		if (v6) {
			group.ip[0] = nobody.ip[0] = 0xFF;
			group.ip[1] = nobody.ip[1] = 0x0E;
			group.ip[15] = 0x42;
			nobody.ip[15] = 0x43;
			memcpy(other_family.ip, (uint8_t[]){239, 1, 2, 3}, 4);
		} else {
			memcpy(group.ip, (uint8_t[]){239, 1, 2, 3}, 4);
			memcpy(nobody.ip, (uint8_t[]){224, 0, 0, 9}, 4);
			other_family.ip[0] = 0xFF;
		}
		assert_true(uroce_io_addr_is_multicast(&group));
		assert_true(uroce_io_addr_is_multicast(&other_family));
		for (int i = 0; i < 5; i++) {
			ep[i] = (struct uroce_io_addr){.ipv6 = v6};
			ep[i].ip[0] = v6 ? 0xFD : 10;
			ep[i].ip[v6 ? 15 : 3] = (uint8_t)(i + 1);
			assert_false(uroce_io_addr_is_multicast(&ep[i]));
			assert_int_equal(uroce_sim_add_endpoint(sim, &ep[i], 16), i);
		}
		/* 0 -> 0 is the sender's own loopback; 0 -> 4 loses everything. */
		for (int j = 0; j < 5; j++)
			assert_true((link[j] = uroce_sim_connect(sim, 0, j, j == 4 ? &lossy : &ideal)) >= 0);

		/* Members: 0, 1, 2 and 4; 3 is not. */
		for (int i = 0; i < 5; i++)
			if (i != 3)
				assert_int_equal(uroce_sim_join(sim, i, &group, true), 0);
		assert_int_equal(uroce_sim_join(sim, 1, &group, true), UROCE_EBUSY);
		assert_int_equal(uroce_sim_join(sim, 3, &group, false), UROCE_ENOENT);
		assert_int_equal(uroce_sim_join(sim, 3, &ep[1], true), UROCE_EINVAL);
		assert_int_equal(uroce_sim_join(sim, 3, &other_family, true), UROCE_EINVAL);
		assert_int_equal(uroce_sim_join(sim, 9, &group, true), UROCE_EINVAL);

		/* rounds: who must receive each datagram, with the membership changes between */
		static const bool members[3][5] = {
			{true, true, true, false, false},  /* 4 joined, but its link loses all */
			{true, false, true, false, false}, /* 1 left */
			{true, false, true, true, false},  /* 3 joined through its io backend */
		};
		for (uint32_t round = 0; round < 3; round++) {
			if (round == 1)
				assert_int_equal(uroce_sim_join(sim, 1, &group, false), 0);
			if (round == 2)
				assert_int_equal(uroce_io_join(uroce_sim_io(sim, 3), &group, true), 0);
			pkt.len = (uint32_t)make_packet_to(buf, &ep[0], &group, round, 100, 0);
			assert_int_equal(uroce_sim_send(sim, 0, &pkt), 0);
			run_idle(sim);
			for (int i = 0; i < 5; i++) {
				bool copy = recv_one(sim, i, &r);
				if (copy != members[round][i])
					fail_msg("round %u: endpoint %d %s", round, i,
						 copy ? "got a copy" : "got nothing");
				if (!copy)
					continue;
				assert_int_equal(psn_of(&r), round);
				assert_memory_equal(&r.pkt.dst, &group, sizeof(group));
				assert_memory_equal(&r.pkt.src, &ep[0], sizeof(ep[0]));
				assert_false(recv_one(sim, i, &r)); /* one copy each */
			}
		}
		/* One copy per member link and round; none toward a non-member. */
		static const uint64_t offered[5] = {3, 1, 3, 1, 3};
		for (int j = 0; j < 5; j++)
			assert_int_equal(uroce_sim_link_counters(sim, link[j])->sent, offered[j]);
		assert_int_equal(uroce_sim_link_counters(sim, link[4])->drop_loss, 3);
		assert_int_equal(uroce_sim_endpoint_counters(sim, 0)->sent, 3);
		assert_int_equal(uroce_sim_endpoint_counters(sim, 0)->drop_noroute, 0);

		/* A group nobody joined: no copy at all. */
		pkt.len = (uint32_t)make_packet_to(buf, &ep[0], &nobody, 9, 10, 0);
		assert_int_equal(uroce_sim_send(sim, 0, &pkt), 0);
		run_idle(sim);
		assert_int_equal(uroce_sim_endpoint_counters(sim, 0)->drop_noroute, 1);
		for (int i = 0; i < 5; i++)
			assert_false(recv_one(sim, i, &r));
		uroce_sim_free(sim);
	}
}

/* A switch S between A and B: A -> S at 10 Gb/s, S -> B at 1 Gb/s with no queue limit, 1 us
 * each. A sends 300 packets of 1000 bytes at once. Without PFC the switch's queue to B holds
 * what A's 10 Gb/s brings faster than 1 Gb/s drains it; with PFC on A's link (XOFF 20 000,
 * XON 10 000 bytes) the switch pauses A: its queue stays within XOFF and the headroom (what
 * A sends in the 1 us the PAUSE takes to come back, and the packet on the wire), each PAUSE
 * reaches A exactly one latency after the queue crossed XOFF, and every packet still
 * arrives, in order, none dropped. */
static struct uroce_sim *switch_new(const struct uroce_sim_link_cfg *in)
{
	static const struct uroce_io_addr s_addr = {.ip = {10, 0, 0, 9}};
	struct uroce_sim_cfg cfg = {.pool_pkts = 1024, .max_pkt = BIG};
	struct uroce_sim_link_cfg out = {.latency_ns = 1000, .bandwidth_bps = GBPS};
	struct uroce_sim *sim = uroce_sim_new(5, &cfg);

	assert_non_null(sim);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[0], 0), 0);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[1], 512), 1);
	assert_int_equal(uroce_sim_add_endpoint(sim, &s_addr, 0), 2);
	assert_int_equal(uroce_sim_set_switch(sim, 2), 0);
	assert_int_equal(uroce_sim_connect(sim, 0, 2, in), 0);  /* A -> S */
	assert_int_equal(uroce_sim_connect(sim, 2, 1, &out), 1); /* S -> B */
	assert_int_equal(uroce_sim_add_route(sim, 0, NULL, 0), 0); /* A reaches B through S */
	return sim;
}

static void test_switch_pfc(void **state)
{
	struct uroce_sim_link_cfg in = {.latency_ns = 1000, .bandwidth_bps = 10 * GBPS};
	uint64_t peak[2];
	(void)state;

	for (int pfc = 0; pfc < 2; pfc++) {
		if (pfc) {
			in.pfc_xoff = 20000;
			in.pfc_xon = 10000;
		}
		struct uroce_sim *sim = switch_new(&in);
		uint8_t buf[BIG];
		size_t len = 0;
		for (uint32_t i = 0; i < 300; i++) {
			struct uroce_io_pkt pkt = {.data = buf};
			len = make_packet_to(buf, &addr4[0], &addr4[1], i, 1000 - 44, 0);
			pkt.len = (uint32_t)len;
			assert_int_equal(uroce_sim_send(sim, 0, &pkt), 0);
		}
		assert_int_equal(len, 1000);
		/* Until the first PAUSE has come back: the switch's queue crossed XOFF when its
		 * 20 000th byte arrived; the PAUSE reaches A 1 us later. */
		uint64_t crossed = 0, seen = 0;
		while (uroce_sim_next_event_time(sim) != UROCE_SIM_NEVER) {
			uroce_sim_run_until(sim, uroce_sim_next_event_time(sim));
			if (!crossed && uroce_sim_link_counters(sim, 0)->pfc_peak_bytes >= 20000)
				crossed = uroce_sim_now(sim);
			if (!seen && uroce_sim_link_counters(sim, 0)->pfc_pauses)
				seen = uroce_sim_now(sim);
		}
		const union uroce_sim_counters *a = uroce_sim_link_counters(sim, 0);
		const union uroce_sim_counters *s = uroce_sim_link_counters(sim, 1);
		struct rx r;
		for (uint32_t i = 0; i < 300; i++) {
			assert_true(recv_one(sim, 1, &r));
			assert_int_equal(psn_of(&r), i); /* in order, every one */
		}
		assert_false(recv_one(sim, 1, &r));
		assert_int_equal(s->drop_queue + s->drop_pool + a->drop_queue + a->drop_pool, 0);
		assert_int_equal(s->delivered, 300);
		peak[pfc] = s->queue_peak_bytes;
		if (pfc) {
			assert_true(a->pfc_pauses >= 2);
			assert_true(a->pfc_paused_ns > 0);
			assert_int_equal(seen, crossed + 1000);
			/* headroom: 1 us at 10 Gb/s (1250 bytes) and the packet on the wire */
			assert_true(a->pfc_peak_bytes >= 20000);
			assert_true(a->pfc_peak_bytes <= 20000 + 1250 + 2 * 1000);
			assert_true(peak[1] <= a->pfc_peak_bytes);
		} else {
			assert_int_equal(a->pfc_pauses + a->pfc_peak_bytes, 0);
		}
		uroce_sim_free(sim);
	}
	/* without PFC the queue took 9/10 of the 300 000 bytes */
	assert_true(peak[0] > 250000);
	print_message("switch queue peak: %" PRIu64 " bytes without PFC, %" PRIu64 " with\n",
		      peak[0], peak[1]);
}

/* Traffic classes (DSCP / 8), each link serving them in strict priority and marking each by
 * its own queue; PFC per class; pause quanta and their refresh. */
static void test_traffic_classes(void **state)
{
	(void)state;

	/* Strict priority: 10 packets of class 0 (DSCP 0) queue on a 1 Gb/s link, then one of
	 * class 6 (DSCP 48, a CNP's) leaves right after the one on the wire, unmarked although
	 * 36 KB wait: its own class's queue is empty. */
	struct uroce_sim_link_cfg slow = {.latency_ns = 100, .bandwidth_bps = GBPS,
					  .ce_threshold = 5000};
	struct uroce_sim *sim = pair_new(3, false, &slow, &slow, 0);
	struct rx r;
	for (uint32_t k = 0; k < 10; k++)
		send_packet(sim, false, 0, k, 4052, 0x02);
	send_packet(sim, false, 0, 10, 4052, 0xC2);
	run_idle(sim);
	static const uint32_t order[] = {0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	for (uint32_t k = 0; k < 11; k++) {
		assert_true(recv_one(sim, 1, &r));
		assert_int_equal(psn_of(&r), order[k]);
		if (order[k] == 10)
			assert_int_equal(r.pkt.tos, 0xC2);
	}
	assert_int_equal(uroce_sim_link_counters(sim, 0)->ce_marked, 8); /* class 0 from its 3rd */
	uroce_sim_free(sim);

	/* PFC per class: A sends 300 packets to B behind a 1 Gb/s port (class 3) and 300 to C
	 * behind a 10 Gb/s one, through switch S, PFC on A's link. In one class, C's packets
	 * wait behind B's paused ones (head-of-line blocking) until the end, 2.4 ms; in class
	 * 1, only class 3 is paused and C's packets are through in a fraction of that. */
	static const struct uroce_io_addr c_addr = {.ip = {10, 0, 0, 3}};
	uint64_t c_last[2];
	for (int split = 0; split < 2; split++) {
		struct uroce_sim_link_cfg in = {.latency_ns = 1000, .bandwidth_bps = 10 * GBPS,
						.pfc_xoff = 20000, .pfc_xon = 10000};
		struct uroce_sim_link_cfg fast = {.latency_ns = 1000, .bandwidth_bps = 10 * GBPS};
		uint8_t buf[BIG];
		sim = switch_new(&in);
		assert_int_equal(uroce_sim_add_endpoint(sim, &c_addr, 512), 3);
		assert_int_equal(uroce_sim_connect(sim, 2, 3, &fast), 2);
		for (uint32_t i = 0; i < 300; i++)
			for (int to = 0; to < 2; to++) {
				struct uroce_io_pkt pkt = {.data = buf};
				uint8_t tos = to && split ? 0x20 : 0x60;
				pkt.len = (uint32_t)make_packet_to(buf, &addr4[0], to ? &c_addr : &addr4[1],
								   i, 1000 - 44, tos);
				assert_int_equal(uroce_sim_send(sim, 0, &pkt), 0);
			}
		run_idle(sim);
		c_last[split] = 0;
		for (uint32_t i = 0; i < 300; i++) {
			assert_true(recv_one(sim, 3, &r));
			assert_int_equal(psn_of(&r), i);
			c_last[split] = r.pkt.ts_ns;
			assert_true(recv_one(sim, 1, &r));
			assert_int_equal(psn_of(&r), i);
		}
		const union uroce_sim_counters *a = uroce_sim_link_counters(sim, 0);
		assert_true(a->pfc_pauses > 0);
		assert_true(a->pfc_peak_bytes <= 20000 + 1250 + 2 * 1000);
		uroce_sim_free(sim);
	}
	assert_true(c_last[0] > 2000000);
	assert_true(c_last[1] < 500000);
	print_message("C's last packet: %" PRIu64 " ns in one class with B's, %" PRIu64
		      " ns in its own\n", c_last[0], c_last[1]);

	/* Quanta: PAUSEs of 100 quanta (5.12 us at 10 Gb/s) refreshed every half of that keep
	 * the switch's queue within XOFF and the headroom, as PAUSEs that hold until resumed
	 * do (test_switch_pfc); without the refresh each pause runs out while the queue is over
	 * XON, and the sender runs over the headroom. */
	for (int refresh = 1; refresh >= 0; refresh--) {
		struct uroce_sim_link_cfg in = {.latency_ns = 1000, .bandwidth_bps = 10 * GBPS,
						.pfc_xoff = 20000, .pfc_xon = 10000,
						.pfc_quanta = 100,
						.pfc_refresh_ns = refresh ? 0 : 1000000000};
		uint8_t buf[BIG];
		sim = switch_new(&in);
		for (uint32_t i = 0; i < 300; i++) {
			struct uroce_io_pkt pkt = {.data = buf};
			pkt.len = (uint32_t)make_packet_to(buf, &addr4[0], &addr4[1], i, 1000 - 44, 0);
			assert_int_equal(uroce_sim_send(sim, 0, &pkt), 0);
		}
		run_idle(sim);
		for (uint32_t i = 0; i < 300; i++) {
			assert_true(recv_one(sim, 1, &r));
			assert_int_equal(psn_of(&r), i);
		}
		const union uroce_sim_counters *a = uroce_sim_link_counters(sim, 0);
		if (refresh) {
			assert_true(a->pfc_peak_bytes <= 20000 + 1250 + 2 * 1000);
			/* 2.4 ms of congestion, a refresh every 2.56 us while paused */
			assert_true(a->pfc_frames > 2 * a->pfc_pauses + 100);
		} else {
			assert_true(a->pfc_peak_bytes > 100000);
		}
		print_message("quanta 100, %s: %" PRIu64 " PAUSEs, %" PRIu64 " frames, peak %" PRIu64
			      " bytes\n", refresh ? "refreshed" : "not refreshed", a->pfc_pauses,
			      a->pfc_frames, a->pfc_peak_bytes);
		uroce_sim_free(sim);
	}
}

static void test_limits_and_errors(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 10};
	struct uroce_sim_cfg small = {.pool_pkts = 8, .max_pkt = 512};
	struct uroce_sim *sim = uroce_sim_new(11, &small);
	static const struct uroce_io_addr c4 = {.ip = {10, 0, 0, 3}};
	uint8_t buf[BIG];
	struct uroce_io_pkt pkt = {.data = buf};
	struct rx r;
	(void)state;

	assert_null(uroce_sim_new(1, &(struct uroce_sim_cfg){.max_pkt = 10}));
	assert_null(uroce_sim_new(1, &(struct uroce_sim_cfg){.max_pkt = 70000}));
	assert_non_null(sim);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[0], 4), 0);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[1], 4), 1);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[1], 4), UROCE_EINVAL);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr6[1], 4), 2); /* IPv6: another address */
	assert_int_equal(uroce_sim_add_endpoint(sim, &c4, 4), 3);
	assert_int_equal(uroce_sim_connect(sim, 0, 1, &cfg), 0);
	assert_int_equal(uroce_sim_connect(sim, 0, 1, &cfg), UROCE_EINVAL);
	assert_int_equal(uroce_sim_connect(sim, 0, 9, &cfg), UROCE_EINVAL);
	assert_int_equal(uroce_sim_connect(sim, -1, 0, &cfg), UROCE_EINVAL);
	struct uroce_sim_link_cfg bad = {.impair = {.loss = 2}};
	assert_int_equal(uroce_sim_connect(sim, 1, 0, &bad), UROCE_EINVAL);
	bad = (struct uroce_sim_link_cfg){.latency_ns = UROCE_IMPAIR_MAX_DELAY_NS + 1};
	assert_int_equal(uroce_sim_connect(sim, 1, 0, &bad), UROCE_EINVAL);
	bad = (struct uroce_sim_link_cfg){.pfc_xoff = 1000, .pfc_xon = 1000,
					  .bandwidth_bps = GBPS}; /* XON below XOFF */
	assert_int_equal(uroce_sim_connect(sim, 1, 0, &bad), UROCE_EINVAL);
	bad.pfc_xon = 500;
	bad.bandwidth_bps = 0; /* PFC pauses a transmitter: the link needs a rate */
	assert_int_equal(uroce_sim_connect(sim, 1, 0, &bad), UROCE_EINVAL);
	assert_int_equal(uroce_sim_set_switch(sim, 9), UROCE_EINVAL);
	assert_int_equal(uroce_sim_connect(sim, 1, 0, &cfg), 1);
	assert_null(uroce_sim_link_counters(sim, 2));
	assert_null(uroce_sim_endpoint_counters(sim, 4));

	/* Refused sends. */
	pkt.len = (uint32_t)make_packet(buf, false, 0, 1, 600, 0);
	assert_int_equal(uroce_sim_send(sim, 0, &pkt), UROCE_ENOSPACE);
	pkt.len = 19; /* shorter than an IPv4 header */
	assert_int_equal(uroce_sim_send(sim, 0, &pkt), UROCE_EINVAL);
	pkt.len = 0;
	assert_int_equal(uroce_sim_send(sim, 0, &pkt), UROCE_EINVAL);
	assert_int_equal(uroce_sim_send(sim, 5, &pkt), UROCE_EINVAL);
	assert_int_equal(uroce_sim_recv(sim, 5, &r.pkt, 1), UROCE_EINVAL);

	/* No route: endpoint 1 has no link to endpoint 3. */
	pkt.len = (uint32_t)make_packet(buf, false, 1, 1, 10, 0);
	memcpy(buf + 16, c4.ip, 4);
	assert_int_equal(uroce_sim_send(sim, 1, &pkt), 0);
	assert_int_equal(uroce_sim_endpoint_counters(sim, 1)->drop_noroute, 1);

	/* Full ring: 4 places. */
	for (uint32_t k = 0; k < 6; k++)
		send_packet(sim, false, 0, k, 10, 0);
	run_idle(sim);
	assert_int_equal(uroce_sim_endpoint_counters(sim, 1)->drop_ring, 2);
	assert_int_equal(uroce_sim_link_counters(sim, 0)->drop_ring, 2);
	for (uint32_t k = 0; k < 4; k++) {
		assert_true(recv_one(sim, 1, &r));
		assert_int_equal(psn_of(&r), k);
	}
	/* Empty pool: 8 buffers; 4 go in flight to endpoint 1, then 4 of 6 the other way. */
	for (uint32_t k = 0; k < 4; k++)
		send_packet(sim, false, 0, k, 10, 0);
	for (uint32_t k = 0; k < 6; k++)
		send_packet(sim, false, 1, k, 10, 0);
	assert_int_equal(uroce_sim_link_counters(sim, 1)->drop_pool, 2);
	run_idle(sim);
	check_balance(uroce_sim_link_counters(sim, 0));
	check_balance(uroce_sim_link_counters(sim, 1));

	/* Traces. */
	char path[4200];
	tmp_path(path, sizeof(path));
	assert_int_equal(uroce_sim_trace_pcap(sim, path, 0), UROCE_EINVAL);
	assert_int_equal(uroce_sim_trace_pcap(sim, "/nonexistent-dir/x.pcap", 1), UROCE_EIO);
	assert_int_equal(uroce_sim_trace_pcap(sim, path, UROCE_SIM_TRACE_SEND), 0);
	assert_int_equal(uroce_sim_trace_pcap(sim, path, UROCE_SIM_TRACE_SEND), UROCE_EINVAL);
	assert_int_equal(uroce_sim_trace_pcap(sim, NULL, 0), 0);
	assert_int_equal(uroce_sim_trace_pcap(sim, NULL, 0), 0); /* closing twice is harmless */
	unlink(path);
	uroce_sim_free(sim);
	uroce_sim_free(NULL);
}

/* ECMP (uroce_sim_add_route): host A -> leaf L -> one of 4 spines -> leaf M -> host B, L with
 * a default route over each uplink. Each of 64 flows (UDP source ports) keeps one uplink for
 * all its packets, the 64 use every uplink, and a route for B's address comes before the
 * default ones. */
static void test_ecmp(void **state)
{
	struct uroce_sim_link_cfg cfg = {.latency_ns = 1000};
	struct uroce_sim *sim = uroce_sim_new(7, NULL);
	uint64_t before[4], used[4] = {0};
	uint8_t buf[BIG];
	int up[4];
	(void)state;

	assert_non_null(sim);
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[0], 0), 0); /* A */
	assert_int_equal(uroce_sim_add_endpoint(sim, &addr4[1], 0), 1); /* B */
	for (uint8_t i = 2; i < 8; i++) { /* L, M, 4 spines: switches */
		struct uroce_io_addr a = {.ip = {10, 0, 1, i}};
		assert_int_equal(uroce_sim_add_endpoint(sim, &a, 1), i);
		assert_int_equal(uroce_sim_set_switch(sim, i), 0);
	}
	int a_up = uroce_sim_connect(sim, 0, 2, &cfg);
	assert_int_equal(uroce_sim_add_route(sim, 0, NULL, a_up), 0);
	assert_int_equal(uroce_sim_connect(sim, 3, 1, &cfg) >= 0, 1); /* M -> B */
	for (int k = 0; k < 4; k++) {
		up[k] = uroce_sim_connect(sim, 2, 4 + k, &cfg);
		assert_int_equal(uroce_sim_add_route(sim, 2, NULL, up[k]), 0);
		int down = uroce_sim_connect(sim, 4 + k, 3, &cfg);
		assert_int_equal(uroce_sim_add_route(sim, 4 + k, &addr4[1], down), 0);
	}
	assert_int_equal(uroce_sim_add_route(sim, 2, NULL, a_up), UROCE_EINVAL); /* not L's link */
	assert_int_equal(uroce_sim_add_route(sim, 9, NULL, a_up), UROCE_EINVAL);
	struct uroce_io_addr group = {.ip = {239, 1, 1, 1}};
	assert_int_equal(uroce_sim_add_route(sim, 2, &group, up[0]), UROCE_EINVAL);

	for (int phase = 0; phase < 2; phase++) {
		if (phase) /* a route for B's address: every flow takes the third uplink */
			assert_int_equal(uroce_sim_add_route(sim, 2, &addr4[1], up[2]), 0);
		for (uint32_t f = 0; f < 64; f++) {
			for (int k = 0; k < 4; k++)
				before[k] = uroce_sim_link_counters(sim, up[k])->sent;
			for (uint32_t n = 0; n < 4; n++) { /* same source port, PSN f + n x 2^16 */
				struct uroce_io_pkt pkt = {.data = buf};
				pkt.len = (uint32_t)make_packet_to(buf, &addr4[0], &addr4[1],
								   f + (n << 16), 100, 0);
				assert_int_equal(uroce_sim_send(sim, 0, &pkt), 0);
			}
			run_idle(sim);
			int took = -1;
			for (int k = 0; k < 4; k++) {
				uint64_t d = uroce_sim_link_counters(sim, up[k])->sent - before[k];
				assert_true(d == 0 || d == 4); /* all of the flow on one path */
				if (d == 4)
					took = k;
			}
			assert_true(took >= 0);
			if (phase)
				assert_int_equal(took, 2);
			else
				used[took]++;
		}
	}
	for (int k = 0; k < 4; k++)
		assert_true(used[k] > 0);
	assert_int_equal(uroce_sim_endpoint_counters(sim, 1)->delivered, 2 * 64 * 4);
	uroce_sim_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_bandwidth_exact),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_queue_tail_drop),
		cmocka_unit_test(test_loss_rate),
		cmocka_unit_test(test_burst_loss),
		cmocka_unit_test(test_duplication),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_corruption_caught),
		cmocka_unit_test(test_corrupt_anywhere),
		cmocka_unit_test(test_ce_marking),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_trace_reads_back),
		cmocka_unit_test(test_io_ops),
		cmocka_unit_test(test_multicast),
		cmocka_unit_test(test_switch_pfc),
		cmocka_unit_test(test_ecmp),
		cmocka_unit_test(test_traffic_classes),
		cmocka_unit_test(test_limits_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

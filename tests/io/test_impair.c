/* SPDX-License-Identifier: MIT */
/* The impairment module on its own: the UROCE_IMPAIR parser and its errors, range checks,
 * determinism, rates over many packets (fixed seeds, so every count is exact and the wide
 * binomial bounds only guard against a broken model), independence of the streams, and where
 * corruption flips bits. */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "io/impair.h"
#include "wire/build.h"
#include "wire/packet.h"

#define NPKTS 100000

static void test_parse_example(void **state)
{
	struct uroce_impair_cfg c;
	char msg[256];
	(void)state;

	/* The form documented for UROCE_IMPAIR. */
	assert_int_equal(uroce_impair_parse("loss=0.01,dup=0.001,reorder=0.01,corrupt=0.001,"
					    "delay_us=50,seed=7", &c, msg, sizeof(msg)), 0);
	assert_true(c.loss == 0.01);
	assert_true(c.dup == 0.001);
	assert_true(c.reorder == 0.01);
	assert_true(c.corrupt == 0.001);
	assert_int_equal(c.delay_ns, 50000);
	assert_int_equal(c.seed, 7);
	assert_true(c.burst_p == 0 && c.jitter_ns == 0 && !c.corrupt_any && c.corrupt_bits == 0);
	assert_string_equal(msg, "");
}

static void test_parse_forms(void **state)
{
	struct uroce_impair_cfg c;
	(void)state;

	assert_int_equal(uroce_impair_parse("", &c, NULL, 0), 0);
	struct uroce_impair_cfg zero = {0};
	assert_memory_equal(&c, &zero, sizeof(c));
	/* Spaces, empty items, exponents, fractional microseconds, hex, the last value wins. */
	assert_int_equal(uroce_impair_parse(" loss = 1e-3 ,, burst_p=0.5E-2,burst_r=.25,burst_h=1,"
					    "jitter_us=0.5,reorder_delay_us=2.0004,corrupt_bits=64,"
					    "corrupt_any=1,seed=0xFFFFFFFFFFFFFFFF,loss=0.002,",
					    &c, NULL, 0), 0);
	assert_true(c.loss == 0.002);
	assert_true(c.burst_p == 0.005);
	assert_true(c.burst_r == 0.25);
	assert_true(c.burst_h == 1);
	assert_int_equal(c.jitter_ns, 500);
	assert_int_equal(c.reorder_delay_ns, 2000); /* to the nearest nanosecond */
	assert_int_equal(c.corrupt_bits, 64);
	assert_true(c.corrupt_any);
	assert_true(c.seed == UINT64_MAX);
	assert_int_equal(uroce_impair_parse("seed=18446744073709551615,delay_us=10000000", &c,
					    NULL, 0), 0);
	assert_true(c.seed == UINT64_MAX);
	assert_int_equal(c.delay_ns, UROCE_IMPAIR_MAX_DELAY_NS);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *spec;
		int err;
		const char *says; /* part of the message */
	} cases[] = {
		{"lossy=0.1", UROCE_EINVAL, "\"lossy=0.1\": unknown key; known keys: loss burst_p"},
		{"loss=0.1,dupe=1", UROCE_EINVAL, "\"dupe=1\": unknown key"},
		{"loss", UROCE_EFORMAT, "\"loss\": expected key=value"},
		{"loss=", UROCE_EFORMAT, "\"loss=\": not a decimal number"},
		{"loss=abc", UROCE_EFORMAT, "not a decimal number"},
		{"loss=0.1.2", UROCE_EFORMAT, "not a decimal number"},
		{"loss=1e", UROCE_EFORMAT, "not a decimal number"},
		{"loss=0,1", UROCE_EFORMAT, "\"1\": expected key=value"},
		{"delay_us=5ms", UROCE_EFORMAT, "not a decimal number"},
		{"seed=7.5", UROCE_EFORMAT, "\"seed=7.5\": not an unsigned integer"},
		{"seed=0x", UROCE_EFORMAT, "not an unsigned integer"},
		{"corrupt_bits=two", UROCE_EFORMAT, "not an unsigned integer"},
		{"loss=1.5", UROCE_EINVAL, "\"loss=1.5\": out of range [0, 1]"},
		{"dup=-0.1", UROCE_EINVAL, "out of range [0, 1]"},
		{"loss=1e400", UROCE_EINVAL, "out of range"},
		{"delay_us=10000000.001", UROCE_EINVAL, "out of range [0, 10000000]"},
		{"corrupt_bits=65", UROCE_EINVAL, "out of range [0, 64]"},
		{"corrupt_any=2", UROCE_EINVAL, "out of range [0, 1]"},
		{"seed=18446744073709551616", UROCE_EINVAL, "out of range [0, 18446744073709551615]"},
		{"seed=-1", UROCE_EINVAL, "out of range"},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct uroce_impair_cfg c = {.loss = 0.25}, before = c;
		char msg[512];
		int err = uroce_impair_parse(cases[i].spec, &c, msg, sizeof(msg));
		if (err != cases[i].err || !strstr(msg, cases[i].says))
			print_error("%s: %s (%s)\n", cases[i].spec, uroce_err_name(err), msg);
		assert_int_equal(err, cases[i].err);
		assert_non_null(strstr(msg, cases[i].says));
		assert_memory_equal(&c, &before, sizeof(c)); /* untouched on error */
	}
	/* A long item is quoted by its first 64 bytes and "...": the reason still follows, and
	 * fits the 320 bytes the library gives the message. */
	char *huge = malloc(5001), msg[320];
	assert_non_null(huge);
	memset(huge, 'k', 5000);
	huge[5000] = '\0';
	struct uroce_impair_cfg hc;
	assert_int_equal(uroce_impair_parse(huge, &hc, msg, sizeof(msg)), UROCE_EFORMAT);
	assert_int_equal(strncmp(msg, "\"kkkk", 5), 0);
	assert_int_equal(strspn(msg + 1, "k"), 64);
	assert_string_equal(msg + 65, "...\": expected key=value");
	huge[100] = '=';
	assert_int_equal(uroce_impair_parse(huge, &hc, msg, sizeof(msg)), UROCE_EINVAL);
	assert_int_equal(strspn(msg + 1, "k"), 64);
	assert_non_null(strstr(msg, "...\": unknown key; known keys: loss "));
	assert_true(strlen(msg) < sizeof(msg) - 1); /* whole, not cut */
	free(huge);
	/* A short buffer gets a cut message, never an overrun; no buffer is fine. */
	char small[8];
	struct uroce_impair_cfg c;
	assert_int_equal(uroce_impair_parse("nope=1", &c, small, sizeof(small)), UROCE_EINVAL);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(uroce_impair_parse("nope=1", &c, NULL, 0), UROCE_EINVAL);
	assert_int_equal(uroce_impair_parse(NULL, &c, NULL, 0), UROCE_EINVAL);
}

static void test_init_checks_ranges(void **state)
{
	struct uroce_impair im;
	struct uroce_impair_cfg good = {.loss = 1, .corrupt_bits = 64,
					.jitter_ns = UROCE_IMPAIR_MAX_DELAY_NS};
	(void)state;

	assert_int_equal(uroce_impair_init(&im, &good, 0), 0);
	struct uroce_impair_cfg bad[] = {
		{.loss = 1.0001}, {.dup = -1}, {.burst_h = NAN}, {.corrupt_bits = 65},
		{.delay_ns = UROCE_IMPAIR_MAX_DELAY_NS + 1}, {.reorder_delay_ns = UINT64_MAX},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uroce_impair_init(&im, &bad[i], 0), UROCE_EINVAL);
}

/* A RoCEv2 SEND ONLY datagram (no Ethernet header) with payload_len bytes. */
static size_t make_packet(uint8_t *buf, size_t cap, bool ipv6, uint32_t psn, size_t payload_len)
{
	uint8_t payload[1024];
	struct uroce_rocev2_net net = {.ipv6 = ipv6, .src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2},
				       .tclass = 0x02, .hop_limit = 64, .sport = 0xC001};
	struct uroce_bth bth = {.opcode = UROCE_OP_RC_SEND_ONLY, .pkey = 0xFFFF, .destqp = 0x11,
				.psn = psn};
	struct uroce_ext ext = {0};

	for (size_t i = 0; i < payload_len; i++)
		payload[i] = (uint8_t)(psn + i);
	ssize_t n = uroce_rocev2_build(buf, cap, NULL, &net, &bth, &ext, payload, payload_len);
	assert_true(n > 0);
	return (size_t)n;
}

/* Runs NPKTS verdicts and returns how many were dropped for `why`. */
static unsigned count_drops(const struct uroce_impair_cfg *cfg, uint64_t salt,
			    enum uroce_impair_drop why)
{
	struct uroce_impair im;
	struct uroce_impair_verdict v;
	uint8_t pkt[100] = {0};
	unsigned n = 0;

	assert_int_equal(uroce_impair_init(&im, cfg, salt), 0);
	for (int i = 0; i < NPKTS; i++) {
		uroce_impair_apply(&im, pkt, sizeof(pkt), &v);
		n += v.drop == why;
	}
	return n;
}

static void test_loss_rate(void **state)
{
	struct uroce_impair_cfg cfg = {.loss = 0.01, .seed = 7};
	(void)state;

	/* Binomial(100000, 0.01): mean 1000, sd 31.5; +-6 sd cannot fail by chance, and the
	 * seed makes the count exact anyway: the same on every run and every platform. */
	unsigned lost = count_drops(&cfg, 0, UROCE_IMPAIR_LOST);
	assert_in_range(lost, 811, 1189);
	assert_int_equal(count_drops(&cfg, 0, UROCE_IMPAIR_LOST), lost);
	cfg.seed = 8;
	assert_int_not_equal(count_drops(&cfg, 0, UROCE_IMPAIR_LOST), lost);
	cfg.seed = 7;
	assert_int_not_equal(count_drops(&cfg, 1, UROCE_IMPAIR_LOST), lost); /* salt */
	cfg.loss = 0;
	assert_int_equal(count_drops(&cfg, 0, UROCE_IMPAIR_LOST), 0);
	cfg.loss = 1;
	assert_int_equal(count_drops(&cfg, 0, UROCE_IMPAIR_LOST), NPKTS);
}

static void test_burst_loss(void **state)
{
	/* Mean bad run 1/r = 5 packets; long-run loss p/(p+r) = 0.002/0.202 = 0.99 %. */
	struct uroce_impair_cfg cfg = {.burst_p = 0.002, .burst_r = 0.2, .seed = 3};
	struct uroce_impair im;
	struct uroce_impair_verdict v;
	uint8_t pkt[64] = {0};
	unsigned lost = 0, runs = 0, run = 0, longest = 0;
	(void)state;

	assert_int_equal(uroce_impair_init(&im, &cfg, 0), 0);
	for (int i = 0; i < NPKTS; i++) {
		uroce_impair_apply(&im, pkt, sizeof(pkt), &v);
		assert_true(v.drop != UROCE_IMPAIR_LOST);
		if (v.drop == UROCE_IMPAIR_BURST_LOST) {
			lost++;
			runs += run++ == 0;
			longest = run > longest ? run : longest;
		} else {
			run = 0;
		}
	}
	/* ~200 bursts of mean length 5 (independent loss at this rate: runs of ~1.01). */
	assert_in_range(lost, 600, 1400);
	assert_in_range(runs, 120, 280);
	assert_true(lost >= 4 * runs);
	assert_true(longest >= 15);
	/* burst_h = 1: Bad loses nothing. */
	cfg.burst_h = 1;
	assert_int_equal(count_drops(&cfg, 0, UROCE_IMPAIR_BURST_LOST), 0);
}

/* Changing one impairment never changes which packets another one picks. */
static void test_streams_independent(void **state)
{
	struct uroce_impair_cfg a = {.dup = 0.1, .reorder = 0.1, .jitter_ns = 1000, .seed = 5};
	struct uroce_impair_cfg b = a;
	struct uroce_impair ia, ib;
	uint8_t pa[200], pb[200];
	(void)state;

	b.loss = 0.3;
	b.corrupt = 0.5;
	assert_int_equal(uroce_impair_init(&ia, &a, 9), 0);
	assert_int_equal(uroce_impair_init(&ib, &b, 9), 0);
	for (int i = 0; i < 20000; i++) {
		struct uroce_impair_verdict va, vb;
		size_t n = make_packet(pa, sizeof(pa), false, (uint32_t)i, 100);
		memcpy(pb, pa, n);
		uroce_impair_apply(&ia, pa, n, &va);
		uroce_impair_apply(&ib, pb, n, &vb);
		if (vb.drop)
			continue;
		assert_int_equal(va.dup, vb.dup);
		assert_int_equal(va.reordered, vb.reordered);
		assert_int_equal(va.delay_ns, vb.delay_ns);
	}
}

static void test_delays(void **state)
{
	struct uroce_impair_cfg cfg = {.delay_ns = 500, .jitter_ns = 100, .reorder = 0.2};
	struct uroce_impair im;
	struct uroce_impair_verdict v;
	uint8_t pkt[64] = {0};
	unsigned reordered = 0, low = 0, high = 0;
	(void)state;

	assert_int_equal(uroce_impair_init(&im, &cfg, 0), 0);
	for (int i = 0; i < NPKTS; i++) {
		uroce_impair_apply(&im, pkt, sizeof(pkt), &v);
		uint64_t base = v.delay_ns - (v.reordered ? UROCE_IMPAIR_REORDER_DELAY_NS : 0);
		assert_in_range(base, 500, 600);
		reordered += v.reordered;
		low += base == 500;
		high += base == 600;
	}
	assert_in_range(reordered, 19000, 21000);
	assert_true(low > 0 && high > 0); /* both ends of [delay, delay + jitter] are reached */
}

static unsigned popcount8(uint8_t x)
{
	unsigned n = 0;
	for (; x; x &= (uint8_t)(x - 1))
		n++;
	return n;
}

/* Default corruption flips 1..corrupt_bits distinct bits, all after the IP and UDP headers
 * and never in BTH byte 4, so the ICRC rejects every corrupted packet; corrupt_any also
 * reaches the headers. */
static void test_corruption_region(void **state)
{
	uint8_t orig[1200], pkt[1200];
	unsigned header_hits = 0;
	(void)state;

	for (int any = 0; any < 2; any++) {
		for (int v6 = 0; v6 < 2; v6++) {
			struct uroce_impair_cfg cfg = {.corrupt = 1, .corrupt_bits = 5,
						       .corrupt_any = any, .seed = 11};
			struct uroce_impair im;
			size_t hdr = (v6 ? UROCE_IPV6_HLEN : UROCE_IPV4_HLEN) + UROCE_UDP_HLEN;
			unsigned seen[6] = {0};
			assert_int_equal(uroce_impair_init(&im, &cfg, 0), 0);
			for (uint32_t i = 0; i < 5000; i++) {
				struct uroce_impair_verdict v;
				size_t n = make_packet(orig, sizeof(orig), v6, i, 1 + i % 1000);
				memcpy(pkt, orig, n);
				uroce_impair_apply(&im, pkt, n, &v);
				unsigned flipped = 0;
				bool in_header = false;
				for (size_t b = 0; b < n; b++) {
					unsigned d = popcount8(orig[b] ^ pkt[b]);
					flipped += d;
					if (d && (b < hdr || b == hdr + 4))
						in_header = true;
				}
				assert_int_equal(flipped, v.corrupt_bits);
				assert_in_range(flipped, 1, 5);
				seen[flipped]++;
				if (!any) {
					struct uroce_pkt p;
					assert_false(in_header);
					/* The dissector may stop at a corrupted opcode; when it
					 * reaches the ICRC, the ICRC is wrong. */
					if (uroce_pkt_dissect(&p, UROCE_LINK_IP, pkt, n) == 0)
						assert_int_equal(uroce_pkt_icrc_check(&p, NULL),
								 UROCE_CRC_BAD);
				}
				header_hits += in_header;
			}
			for (unsigned k = 1; k <= 5; k++)
				assert_true(seen[k] > 700); /* k uniform in 1..5 */
		}
	}
	assert_true(header_hits > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_example),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_init_checks_ranges),
		cmocka_unit_test(test_loss_rate),
		cmocka_unit_test(test_burst_loss),
		cmocka_unit_test(test_streams_independent),
		cmocka_unit_test(test_delays),
		cmocka_unit_test(test_corruption_region),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

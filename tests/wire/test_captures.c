/* SPDX-License-Identifier: MIT */
/* Vectors from every real capture in ../shared/testdata/captures: each RoCEv2 / native IB
 * packet dissects completely and its ICRC (and VCRC) verifies with the rules of facts.md
 * section 1; every shorter prefix of every packet dissects without reading out of bounds
 * and reports an error instead of a CRC verdict. The expected counts come from tshark 4.0:
 * `tshark -r FILE -Y infiniband.bth | wc -l`. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "wire/icrc.h"
#include "wire/packet.h"

struct capture_expect {
	const char *file;
	long frames;
	long ib;          /* frames with a BTH */
	enum uroce_encap encap;
	bool vcrc;
};

static const struct capture_expect captures[] = {
	{"cx4lx-cnp.pcap", 1, 1, UROCE_ENCAP_ROCEV2, false},
	{"ib-native-erf.pcap", 43, 43, UROCE_ENCAP_IB, true},
	{"ib-native.erf", 43, 43, UROCE_ENCAP_IB, true},
	{"rxe-atomic-cmpswap.pcap", 440, 400, UROCE_ENCAP_ROCEV2, false},
	{"rxe-cm-write-read-arp.pcap", 16, 12, UROCE_ENCAP_ROCEV2, false},
	{"rxe-cm-write-read.pcap", 12, 12, UROCE_ENCAP_ROCEV2, false},
	{"rxe-ipv6-rc-pingpong.pcap", 300, 288, UROCE_ENCAP_ROCEV2, false},
	{"rxe-rdmacm-send.pcap", 95, 95, UROCE_ENCAP_ROCEV2, false},
	{"rxe-read-loss-reissue.pcap", 1501, 1501, UROCE_ENCAP_ROCEV2, false},
	{"rxe-rnr-nak.pcap", 600, 579, UROCE_ENCAP_ROCEV2, false},
	{"rxe-write-loss-nak.pcap", 1500, 1477, UROCE_ENCAP_ROCEV2, false},
};

struct tally {
	const struct capture_expect *exp;
	long ib, icrc_ok, vcrc_ok, raw;
};

static void check_frame(void *ctx, size_t number, enum uroce_link link, const uint8_t *data,
			size_t len)
{
	struct tally *t = ctx;
	struct uroce_pkt pkt;
	int rc = uroce_pkt_dissect(&pkt, link, data, len);

	if (rc < 0)
		fail_msg("%s frame %zu: %s", t->exp->file, number, uroce_strerror(rc));
	if (pkt.layers & UROCE_L_RAW) { /* native IB raw (IPoIB-less) packets: VCRC only */
		t->raw++;
	} else if (pkt.layers & UROCE_L_BTH) {
		t->ib++;
		assert_int_equal(pkt.encap, t->exp->encap);
		assert_true(pkt.layers & UROCE_L_EXT);
		uint32_t crc = 0;
		enum uroce_crc_status st = uroce_pkt_icrc_check(&pkt, &crc);
		if (st != UROCE_CRC_OK)
			fail_msg("%s frame %zu: ICRC %s (wire %08x computed %08x)", t->exp->file, number,
				 uroce_crc_status_name(st), pkt.icrc, crc);
		t->icrc_ok++;
	}
	if (t->exp->vcrc) {
		assert_int_equal(uroce_pkt_vcrc_check(&pkt, NULL), UROCE_CRC_OK);
		t->vcrc_ok++;
	}

	/* Every prefix: no out-of-bounds read (ASan), and a CRC verdict only when the bytes
	 * it covers are all there (a native IB packet may lose its VCRC and keep its ICRC). */
	for (size_t cut = 0; cut < len; cut++) {
		struct uroce_pkt part;
		(void)uroce_pkt_dissect(&part, link, data, cut);
		enum uroce_crc_status st = uroce_pkt_icrc_check(&part, NULL);
		if ((part.layers & UROCE_L_ICRC) || st == UROCE_CRC_OK || st == UROCE_CRC_BAD)
			if (part.icrc_off + UROCE_ICRC_LEN > cut)
				fail_msg("%s frame %zu cut at %zu: ICRC verdict past the end", t->exp->file,
					 number, cut);
		if (uroce_pkt_vcrc_check(&part, NULL) != UROCE_CRC_ABSENT)
			assert_true(part.vcrc_off + UROCE_VCRC_LEN <= cut);
	}
}

static void test_all_captures(void **state)
{
	const char *dir = *state;
	char path[4200];

	for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
		struct tally t = {.exp = &captures[i]};
		snprintf(path, sizeof(path), "%s/%s", dir, captures[i].file);
		long n = test_each_frame(path, check_frame, &t);
		if (n != captures[i].frames)
			fail_msg("%s: %ld frames, expected %ld", captures[i].file, n, captures[i].frames);
		/* Native IB raw packets (LNH 0/1) carry no BTH and no ICRC. */
		if (t.ib + t.raw != captures[i].ib || t.icrc_ok != t.ib)
			fail_msg("%s: %ld IB packets (+%ld raw), %ld ICRC ok, expected %ld", captures[i].file,
				 t.ib, t.raw, t.icrc_ok, captures[i].ib);
		if (captures[i].vcrc)
			assert_int_equal(t.vcrc_ok, captures[i].frames);
	}
}

/* Frame `want` of a capture, copied out. */
struct grab {
	size_t want, len;
	enum uroce_link link;
	uint8_t buf[2048];
};

static void grab_frame(void *ctx, size_t number, enum uroce_link link, const uint8_t *data,
		       size_t len)
{
	struct grab *g = ctx;
	if (number == g->want && len <= sizeof(g->buf)) {
		memcpy(g->buf, data, len);
		g->len = len;
		g->link = link;
	}
}

/* Flipping any bit of the covered bytes is caught (the packet no longer verifies, or no
 * longer parses as RoCE); flipping a variant field (TOS/ECN, TTL, IP checksum, UDP checksum,
 * BTH byte 4 with FECN/BECN) is not, by design (facts.md section 1). */
static void test_icrc_detects_corruption(void **state)
{
	char path[4200];
	struct grab g = {.want = 4}; /* RDMA WRITE ONLY over IPv4 */
	struct uroce_pkt pkt;

	snprintf(path, sizeof(path), "%s/rxe-cm-write-read.pcap", (const char *)*state);
	assert_true(test_each_frame(path, grab_frame, &g) > 0);
	assert_int_equal(uroce_pkt_dissect(&pkt, g.link, g.buf, g.len), 0);
	assert_int_equal(uroce_pkt_icrc_check(&pkt, NULL), UROCE_CRC_OK);
	size_t ip = pkt.l3_off, udp = ip + 20, bth = pkt.bth_off, end = pkt.icrc_off + 4;

	for (size_t i = ip; i < end; i++) {
		bool variant = i == ip + 1 || i == ip + 8 || i == ip + 10 || i == ip + 11 ||
			       i == udp + 6 || i == udp + 7 || i == bth + 4;
		for (int bit = 0; bit < 8; bit++) {
			g.buf[i] ^= (uint8_t)(1u << bit);
			struct uroce_pkt c;
			int rc = uroce_pkt_dissect(&c, g.link, g.buf, g.len);
			enum uroce_crc_status st = rc == 0 ? uroce_pkt_icrc_check(&c, NULL) : UROCE_CRC_ABSENT;
			if (variant && st != UROCE_CRC_OK)
				fail_msg("variant byte %zu bit %d changed the ICRC", i - ip, bit);
			if (!variant && st == UROCE_CRC_OK)
				fail_msg("flip of byte %zu bit %d went undetected", i - ip, bit);
			g.buf[i] ^= (uint8_t)(1u << bit);
		}
	}
}

/* The same computation from the sending side: uroce_icrc over a packet we build must give
 * the CRC stored in the real packet. */
static void test_icrc_recompute_ipv6(void **state)
{
	char path[4200];
	struct grab g = {.want = 1};
	struct uroce_pkt pkt;
	uint32_t crc;

	snprintf(path, sizeof(path), "%s/rxe-ipv6-rc-pingpong.pcap", (const char *)*state);
	for (g.want = 1; g.want <= 20; g.want++) {
		g.len = 0;
		assert_true(test_each_frame(path, grab_frame, &g) > 0);
		if (uroce_pkt_dissect(&pkt, g.link, g.buf, g.len) < 0 || !(pkt.layers & UROCE_L_BTH))
			continue;
		assert_true(pkt.layers & UROCE_L_IPV6);
		assert_int_equal(uroce_icrc(UROCE_ICRC_ROCEV2_IPV6, g.buf + pkt.l3_off,
					    pkt.bth_off - pkt.l3_off, pkt.icrc_off - pkt.l3_off, &crc), 0);
		assert_int_equal(crc, pkt.icrc);
	}
	/* Lengths that cannot describe a packet are refused. */
	assert_int_equal(uroce_icrc(UROCE_ICRC_ROCEV2_IPV6, g.buf, 47, 100, &crc), UROCE_EINVAL);
	assert_int_equal(uroce_icrc(UROCE_ICRC_ROCEV2_IPV6, g.buf, 48, 59, &crc), UROCE_EINVAL);
}

/* RoCE v1 (EtherType 0x8915, GRH first) has no real capture here. Its ICRC rule is the
 * native LNH = 3 rule (facts.md section 1: the LRH becomes 8 bytes of ones), so a native
 * packet with a GRH, re-framed as RoCE v1, must keep its ICRC and verify. */
static void test_rocev1_from_native_grh(void **state)
{
	char path[4200];
	struct grab g = {.want = 3}; /* IPoIB over UD with a GRH */
	struct uroce_pkt ib, v1;
	uint8_t frame[2048] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x89, 0x15};

	snprintf(path, sizeof(path), "%s/ib-native-erf.pcap", (const char *)*state);
	assert_true(test_each_frame(path, grab_frame, &g) > 0);
	assert_int_equal(uroce_pkt_dissect(&ib, g.link, g.buf, g.len), 0);
	assert_int_equal(ib.lrh.lnh, UROCE_LNH_IBA_GLOBAL);
	size_t ib_len = ib.icrc_off + UROCE_ICRC_LEN - UROCE_LRH_LEN; /* GRH .. ICRC */
	memcpy(frame + UROCE_ETH_HLEN, g.buf + UROCE_LRH_LEN, ib_len);

	assert_int_equal(uroce_pkt_dissect(&v1, UROCE_LINK_ETHERNET, frame, UROCE_ETH_HLEN + ib_len), 0);
	assert_int_equal(v1.encap, UROCE_ENCAP_ROCEV1);
	assert_int_equal(v1.bth.psn, ib.bth.psn);
	assert_int_equal(v1.ext.deth.qkey, ib.ext.deth.qkey);
	assert_int_equal(v1.payload_len, ib.payload_len);
	assert_int_equal(uroce_pkt_icrc_check(&v1, NULL), UROCE_CRC_OK);
	frame[UROCE_ETH_HLEN + 40 + 12] ^= 1; /* a DETH bit */
	assert_int_equal(uroce_pkt_dissect(&v1, UROCE_LINK_ETHERNET, frame, UROCE_ETH_HLEN + ib_len), 0);
	assert_int_equal(uroce_pkt_icrc_check(&v1, NULL), UROCE_CRC_BAD);
}

static int setup(void **state)
{
	static char dir[4096];
	snprintf(dir, sizeof(dir), "%s", test_captures_dir());
	*state = dir;
	return 0;
}

int main(void)
{
	if (!test_captures_dir()) {
		printf("skipped: ../shared/testdata/captures is absent\n");
		return TEST_SKIP_CODE;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_captures),
		cmocka_unit_test(test_icrc_detects_corruption),
		cmocka_unit_test(test_icrc_recompute_ipv6),
		cmocka_unit_test(test_rocev1_from_native_grh),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

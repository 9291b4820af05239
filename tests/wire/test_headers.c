/* SPDX-License-Identifier: MIT */
/* Encode/decode round trips with random values and truncation tests for every header of the
 * link, network and InfiniBand transport layers (style.md habit 4: every shorter prefix
 * fails cleanly). */
#include "testutil.h"

#include <string.h>

#include "common/error.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/eth.h"
#include "wire/ib.h"
#include "wire/ip.h"

#define ROUNDS 2000

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

/* A fixed-size header whose every bit is a field (reserved bits included) must come back
 * byte-exact from decode then encode, and every shorter prefix must fail to decode. */
#define CHECK_FIXED(type, dec, enc, size, fixup)                                   \
	do {                                                                       \
		for (int r = 0; r < ROUNDS; r++) {                                 \
			uint8_t in[size], out[size];                               \
			type h;                                                    \
			fill_random(in, size);                                     \
			fixup;                                                     \
			assert_int_equal(dec(&h, in, size), size);                 \
			assert_int_equal(enc(&h, out, size), size);                \
			assert_memory_equal(in, out, size);                        \
			for (size_t cut = 0; cut < (size); cut++) {                \
				assert_int_equal(dec(&h, in, cut), UROCE_ETRUNC);  \
				assert_int_equal(enc(&h, out, cut), UROCE_ENOSPACE); \
			}                                                          \
		}                                                                  \
	} while (0)

static void test_lrh(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_lrh, uroce_lrh_decode, uroce_lrh_encode, UROCE_LRH_LEN, (void)0);
}

static void test_grh(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_grh, uroce_grh_decode, uroce_grh_encode, UROCE_GRH_LEN, (void)0);
}

static void test_bth(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_bth, uroce_bth_decode, uroce_bth_encode, UROCE_BTH_LEN, (void)0);
}

static void test_udp(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_udp, uroce_udp_decode, uroce_udp_encode, UROCE_UDP_HLEN, (void)0);
}

static void test_ipv4(void **state)
{
	(void)state;
	/* Version 4, IHL 5: the encoder writes the fixed 20-byte header. */
	CHECK_FIXED(struct uroce_ipv4, uroce_ipv4_decode, uroce_ipv4_encode, UROCE_IPV4_HLEN,
		    in[0] = 0x45);
}

static void test_ipv4_fields(void **state)
{
	uint8_t b[60] = {0x46, 0xB8, 0, 60, 0x12, 0x34, 0x40, 0, 64, 17, 0xAB, 0xCD, 10, 0, 0, 1, 10, 0, 0, 2};
	struct uroce_ipv4 h;
	(void)state;

	assert_int_equal(uroce_ipv4_decode(&h, b, sizeof(b)), 24);
	assert_true(h.has_options);
	assert_int_equal(h.tos, 0xB8);
	assert_int_equal(h.id, 0x1234);
	assert_int_equal(h.flags, 2); /* DF */
	assert_int_equal(uroce_ipv4_decode(&h, b, 23), UROCE_ETRUNC); /* options cut */
	b[0] = 0x44;
	assert_int_equal(uroce_ipv4_decode(&h, b, sizeof(b)), UROCE_EBADLEN); /* IHL < 5 */
	b[0] = 0x65;
	assert_int_equal(uroce_ipv4_decode(&h, b, sizeof(b)), UROCE_EBADVER);
	/* RFC 1071 checksum: a header with its checksum filled in sums to zero. */
	uint8_t hdr[20] = {0x45, 0, 0, 0x54, 0xAB, 0xCD, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2};
	uint16_t c = uroce_ipv4_checksum(hdr, 20);
	hdr[10] = (uint8_t)(c >> 8);
	hdr[11] = (uint8_t)c;
	assert_int_equal(uroce_ipv4_checksum(hdr, 20), 0);
}

static void test_ipv6(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_ipv6, uroce_ipv6_decode, uroce_ipv6_encode, UROCE_IPV6_HLEN,
		    { in[0] = (uint8_t)(0x60 | (in[0] & 0x0F)); in[6] = 17; });
}

static void test_ipv6_ext(void **state)
{
	/* IPv6, hop-by-hop (8 bytes), destination options (16 bytes), then UDP. */
	uint8_t b[40 + 8 + 16 + 8] = {0x60};
	struct uroce_ipv6 h;
	(void)state;

	b[6] = 0;        /* hop-by-hop */
	b[40] = 60;      /* next: destination options */
	b[41] = 0;       /* 8 bytes */
	b[48] = 17;      /* next: UDP */
	b[49] = 1;       /* 16 bytes */
	assert_int_equal(uroce_ipv6_decode(&h, b, sizeof(b)), 64);
	assert_true(h.has_ext);
	assert_int_equal(h.upper_proto, 17);
	assert_int_equal(h.ext_len, 24);
	for (size_t cut = 0; cut < 64; cut++)
		assert_true(uroce_ipv6_decode(&h, b, cut) < 0);
}

static void test_eth(void **state)
{
	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		uint8_t in[22], out[22];
		struct uroce_eth h;
		unsigned tags = (unsigned)(test_rand() % 3);
		size_t size = 14 + 4 * tags;

		fill_random(in, sizeof(in));
		if (tags >= 1) {
			in[12] = tags == 2 ? 0x88 : 0x81;
			in[13] = tags == 2 ? 0xA8 : 0x00;
		}
		if (tags == 2) {
			in[16] = 0x81;
			in[17] = 0x00;
		}
		in[size - 2] = 0x08; /* IPv4 after the tags, never another TPID */
		in[size - 1] = 0x00;
		assert_int_equal(uroce_eth_decode(&h, in, size), (ssize_t)size);
		assert_int_equal(h.n_vlans, tags);
		assert_int_equal(h.ethertype, 0x0800);
		assert_int_equal(uroce_eth_encode(&h, out, size), (ssize_t)size);
		assert_memory_equal(in, out, size);
		for (size_t cut = 0; cut < size; cut++)
			assert_int_equal(uroce_eth_decode(&h, in, cut), UROCE_ETRUNC);
	}
	/* A third stacked tag is refused, not guessed. */
	uint8_t three[26] = {0};
	struct uroce_eth h;
	for (int i = 0; i < 3; i++) {
		three[12 + 4 * i] = 0x81;
		three[13 + 4 * i] = 0x00;
	}
	assert_int_equal(uroce_eth_decode(&h, three, sizeof(three)), UROCE_EBADLEN);
}

/* IP multicast groups to Ethernet addresses: the low 23 bits of an IPv4 group behind
 * 01:00:5e (RFC 1112 6.4: the group's 24th bit from the right is dropped), the last 32 bits
 * of an IPv6 group behind 33:33 (RFC 2464 7). */
static void test_eth_multicast_mac(void **state)
{
	static const struct {
		bool ipv6;
		uint8_t ip[16], mac[6];
	} cases[] = {
		{false, {224, 0, 0, 1}, {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}},
		{false, {239, 129, 2, 3}, {0x01, 0x00, 0x5e, 0x01, 0x02, 0x03}},
		{false, {239, 255, 255, 255}, {0x01, 0x00, 0x5e, 0x7f, 0xff, 0xff}},
		{true, {0xff, 0x02, [15] = 1}, {0x33, 0x33, 0x00, 0x00, 0x00, 0x01}},
		{true, {0xff, 0x0e, [12] = 0xde, 0xad, 0xbe, 0xef}, {0x33, 0x33, 0xde, 0xad, 0xbe, 0xef}},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t mac[6];
		uroce_eth_multicast_mac(cases[i].ip, cases[i].ipv6, mac);
		assert_memory_equal(mac, cases[i].mac, 6);
	}
}

/* Every valid opcode's extended headers: decode random bytes, encode, compare; every prefix
 * shorter than the opcode's header length fails. */
static void test_ext_all_opcodes(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 256; v++) {
		const struct uroce_opcode_info *oi = uroce_opcode_info((uint8_t)v);
		if (!oi->name)
			continue;
		size_t n = uroce_exthdr_len(oi->headers);
		for (int r = 0; r < 50; r++) {
			uint8_t in[64], out[64];
			struct uroce_ext e;
			fill_random(in, sizeof(in));
			assert_int_equal(uroce_ext_decode(&e, oi->headers, in, sizeof(in)), (ssize_t)n);
			assert_int_equal(e.present, oi->headers);
			assert_int_equal(uroce_ext_encode(&e, out, sizeof(out)), (ssize_t)n);
			assert_memory_equal(in, out, n);
			for (size_t cut = 0; cut < n; cut++)
				assert_int_equal(uroce_ext_decode(&e, oi->headers, in, cut), UROCE_ETRUNC);
		}
	}
}

/* Field placement, checked against hand-made bytes (IBA 9.2-9.3). */
static void test_field_layout(void **state)
{
	static const uint8_t bth_bytes[12] = {0x0A, 0xE5, 0xFF, 0xFF, 0xC0, 0x12, 0x34, 0x56,
					      0x80, 0xAB, 0xCD, 0xEF};
	static const uint8_t atomic[28] = {1, 2, 3, 4, 5, 6, 7, 8, 0xDE, 0xAD, 0xBE, 0xEF,
					   0, 0, 0, 0, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF,
					   0xFF, 0xFF, 0xFF, 0xFE};
	struct uroce_bth b;
	struct uroce_ext e;
	(void)state;

	assert_int_equal(uroce_bth_decode(&b, bth_bytes, 12), 12);
	assert_int_equal(b.opcode, 0x0A);
	assert_true(b.se);
	assert_true(b.m);
	assert_int_equal(b.padcnt, 2);
	assert_int_equal(b.tver, 5);
	assert_int_equal(b.pkey, 0xFFFF);
	assert_true(b.fecn);
	assert_true(b.becn);
	assert_int_equal(b.destqp, 0x123456);
	assert_true(b.ackreq);
	assert_int_equal(b.psn, 0xABCDEF);

	assert_int_equal(uroce_ext_decode(&e, UROCE_EH_ATOMICETH, atomic, 28), 28);
	assert_int_equal(e.atomiceth.va, 0x0102030405060708ull);
	assert_int_equal(e.atomiceth.rkey, 0xDEADBEEF);
	assert_int_equal(e.atomiceth.swap, 1);
	assert_int_equal(e.atomiceth.cmp, 0xFFFFFFFFFFFFFFFEull);
}

static void test_aeth(void **state)
{
	char buf[64];
	(void)state;

	/* Facts.md section 7: bit 7 reserved, bits 6..5 type, bits 4..0 value. */
	assert_int_equal(uroce_aeth_type(0x1F), UROCE_AETH_ACK);
	assert_int_equal(uroce_aeth_value(0x1F), 31);
	assert_int_equal(uroce_aeth_type(0x60), UROCE_AETH_NAK);
	assert_int_equal(uroce_aeth_type(0x2E), UROCE_AETH_RNR_NAK);
	assert_int_equal(uroce_aeth_syndrome(UROCE_AETH_NAK, UROCE_NAK_REMOTE_ACCESS), 0x62);
	assert_string_equal(uroce_aeth_describe(0x1F, buf, sizeof(buf)), "ACK (no credit information)");
	assert_string_equal(uroce_aeth_describe(0x0A, buf, sizeof(buf)), "ACK (credits 32)");
	assert_string_equal(uroce_aeth_describe(0x60, buf, sizeof(buf)), "NAK: PSN Sequence Error");
	assert_string_equal(uroce_aeth_describe(0x63, buf, sizeof(buf)), "NAK: Remote Operational Error");
	assert_string_equal(uroce_aeth_describe(0x65, buf, sizeof(buf)), "NAK: reserved code 5");
	assert_string_equal(uroce_aeth_describe(0x2E, buf, sizeof(buf)), "RNR NAK (timer 14: 1.28 ms)");
	assert_string_equal(uroce_aeth_describe(0x20, buf, sizeof(buf)), "RNR NAK (timer 0: 655.36 ms)");
	assert_string_equal(uroce_aeth_describe(0x40, buf, sizeof(buf)), "reserved syndrome 0x40");
	assert_int_equal(uroce_rnr_timer_us(1), 10);
	assert_int_equal(uroce_rnr_timer_us(31), 491520);
	assert_int_equal(uroce_aeth_credits(0), 0);
	assert_int_equal(uroce_aeth_credits(30), 32768);
	assert_int_equal(uroce_aeth_credits(31), -1);
	/* The tables are monotonic (apart from entry 0 of the RNR timer, 655.36 ms). */
	for (uint8_t t = 2; t < 32; t++)
		assert_true(uroce_rnr_timer_us(t) > uroce_rnr_timer_us((uint8_t)(t - 1)));
	for (uint8_t c = 1; c < 31; c++)
		assert_true(uroce_aeth_credits(c) > uroce_aeth_credits((uint8_t)(c - 1)));
}

static void test_errors(void **state)
{
	(void)state;
	assert_string_equal(uroce_err_name(UROCE_ETRUNC), "UROCE_ETRUNC");
	assert_string_equal(uroce_strerror(0), "success");
	assert_string_equal(uroce_strerror(-1), "unknown error");
	assert_true(UROCE_ETRUNC < 0 && UROCE_EFORMAT < 0);
}

/* uroce_udp_datagram_decode: RoCEv2 datagrams over IPv4 and IPv6 with every field, Ethernet
 * padding after them, and what the io boundary refuses. */
static void test_udp_datagram(void **state)
{
	struct uroce_bth bth = {.opcode = UROCE_OP_RC_SEND_ONLY, .pkey = 0xFFFF, .destqp = 5};
	struct uroce_ext ext = {0};
	struct uroce_udp_datagram d;
	uint8_t b[128], payload[20] = {1, 2, 3};
	(void)state;

	for (int v6 = 0; v6 < 2; v6++) {
		struct uroce_rocev2_net net = {.ipv6 = v6, .tclass = 0x6A, .hop_limit = 33,
					       .sport = 0xC123};
		for (int i = 0; i < 16; i++) {
			net.src[i] = (uint8_t)(0x10 + i);
			net.dst[i] = (uint8_t)(0x80 + i);
		}
		memset(b, 0xEE, sizeof(b));
		ssize_t n = uroce_rocev2_build(b, sizeof(b), NULL, &net, &bth, &ext, payload,
					       sizeof(payload));
		size_t ip = v6 ? UROCE_IPV6_HLEN : UROCE_IPV4_HLEN;
		assert_true(n > 0);
		for (size_t len = (size_t)n; len <= (size_t)n + 10; len += 10) { /* padding after */
			assert_int_equal(uroce_udp_datagram_decode(&d, b, len), 0);
			assert_int_equal(d.ipv6, v6);
			assert_memory_equal(d.src, net.src, v6 ? 16 : 4);
			assert_memory_equal(d.dst, net.dst, v6 ? 16 : 4);
			assert_int_equal(d.tclass, 0x6A);
			assert_int_equal(d.ttl, 33);
			assert_int_equal(d.sport, 0xC123);
			assert_int_equal(d.dport, 4791);
			assert_true(d.csum_ok);
			assert_int_equal(d.hlen, ip + UROCE_UDP_HLEN);
			assert_int_equal(d.len, (size_t)n);
		}
		for (size_t cut = 0; cut < (size_t)n; cut++) /* every truncation */
			assert_int_equal(uroce_udp_datagram_decode(&d, b, cut), UROCE_EINVAL);
		uint8_t c[sizeof(b)];
		memcpy(c, b, sizeof(b));
		c[v6 ? 6 : 9] = 6; /* TCP */
		assert_int_equal(uroce_udp_datagram_decode(&d, c, (size_t)n), UROCE_EINVAL);
		memcpy(c, b, sizeof(b));
		put_be16(c + ip + 4, (uint16_t)(n - (ssize_t)ip - 1)); /* UDP length one short */
		assert_int_equal(uroce_udp_datagram_decode(&d, c, (size_t)n), UROCE_EINVAL);
		if (v6) {
			memcpy(c, b, sizeof(b));
			c[6] = 0; /* a hop-by-hop header first */
			assert_int_equal(uroce_udp_datagram_decode(&d, c, (size_t)n), UROCE_EINVAL);
			continue;
		}
		static const struct {
			size_t off;
			uint8_t val;
		} bad4[] = {{6, 0x60}, /* DF and MF: a fragment */
			    {7, 0x01}, /* a fragment offset */
			    {0, 0x46}, /* options */
			    {0, 0x55}}; /* not version 4 */
		for (size_t k = 0; k < sizeof(bad4) / sizeof(bad4[0]); k++) {
			memcpy(c, b, sizeof(b));
			c[bad4[k].off] = bad4[k].val;
			assert_int_equal(uroce_udp_datagram_decode(&d, c, (size_t)n), UROCE_EINVAL);
		}
		memcpy(c, b, sizeof(b));
		c[10] ^= 1; /* the header checksum: parsed, flagged */
		assert_int_equal(uroce_udp_datagram_decode(&d, c, (size_t)n), 0);
		assert_false(d.csum_ok);
		memcpy(c, b, sizeof(b));
		c[8] = 1; /* TTL: the checksum no longer verifies, the rest stands */
		assert_int_equal(uroce_udp_datagram_decode(&d, c, (size_t)n), 0);
		assert_int_equal(d.ttl, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lrh),          cmocka_unit_test(test_grh),
		cmocka_unit_test(test_bth),          cmocka_unit_test(test_udp),
		cmocka_unit_test(test_ipv4),         cmocka_unit_test(test_ipv4_fields),
		cmocka_unit_test(test_ipv6),         cmocka_unit_test(test_ipv6_ext),
		cmocka_unit_test(test_eth),          cmocka_unit_test(test_ext_all_opcodes),
		cmocka_unit_test(test_field_layout), cmocka_unit_test(test_aeth),
		cmocka_unit_test(test_errors),       cmocka_unit_test(test_eth_multicast_mac),
		cmocka_unit_test(test_udp_datagram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

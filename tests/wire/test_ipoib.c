/* SPDX-License-Identifier: MIT */
/* IPoIB (RFC 4391): the encapsulation header, IB ARP and its 20-byte link addresses, the
 * probe; round trips, truncation from exactly sized heap copies, and the ARP reply of
 * ib-native-erf.pcap frame 6 byte for byte. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/ipoib.h"

#define ROUNDS 500

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

/* The IB payload of ib-native-erf.pcap frame 6 (after LRH, BTH, DETH): IPoIB header + ARP
 * reply "10.0.0.58 is at 80000404fe800000000000000002c9020020b4dd". */
static const uint8_t arp_reply[] = {
	0x08, 0x06, 0x00, 0x00,                         /* IPoIB: ARP */
	0x00, 0x20, 0x08, 0x00, 0x14, 0x04, 0x00, 0x02, /* htype 32, IPv4, 20, 4, reply */
	0x80, 0x00, 0x04, 0x04, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xc9, 0x02, 0x00, 0x20, 0xb4, 0xdd, /* sender hardware address */
	0x0a, 0x00, 0x00, 0x3a,                         /* 10.0.0.58 */
	0x80, 0x00, 0x04, 0x05, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36, /* target hardware address */
	0x0a, 0x00, 0x01, 0x22,                         /* 10.0.1.34 */
};

static void test_arp_capture(void **state)
{
	static const uint8_t sgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					 0x00, 0x02, 0xc9, 0x02, 0x00, 0x20, 0xb4, 0xdd};
	struct uroce_ipoib ip;
	uint8_t out[sizeof(arp_reply)];
	(void)state;

	assert_int_equal(uroce_ipoib_decode(&ip, arp_reply, sizeof(arp_reply)), sizeof(arp_reply));
	assert_int_equal(ip.ethertype, UROCE_ETHERTYPE_ARP);
	assert_int_equal(ip.rsv, 0);
	assert_int_equal(ip.payload_off, 4);
	assert_int_equal(ip.payload_len, sizeof(arp_reply) - 4);
	assert_true(ip.has_arp);
	assert_int_equal(ip.arp.htype, UROCE_IPOIB_ARP_HTYPE);
	assert_int_equal(ip.arp.ptype, UROCE_ETHERTYPE_IPV4);
	assert_int_equal(ip.arp.hlen, 20);
	assert_int_equal(ip.arp.plen, 4);
	assert_int_equal(ip.arp.op, 2);
	assert_string_equal(uroce_arp_op_name(ip.arp.op), "reply");
	assert_int_equal(ip.arp.sha.flags, UROCE_IPOIB_HW_FLAG_RC);
	assert_int_equal(ip.arp.sha.qpn, 0x000404);
	assert_memory_equal(ip.arp.sha.gid, sgid, 16);
	assert_memory_equal(ip.arp.spa, ((const uint8_t[]){10, 0, 0, 58}), 4);
	assert_int_equal(ip.arp.tha.qpn, 0x000405);
	assert_memory_equal(ip.arp.tpa, ((const uint8_t[]){10, 0, 1, 34}), 4);
	assert_true(uroce_ipoib_probe(arp_reply, sizeof(arp_reply)));

	assert_int_equal(uroce_ipoib_encode(&ip, out, sizeof(out)), sizeof(out));
	assert_memory_equal(arp_reply, out, sizeof(out));
	for (size_t cut = 0; cut < sizeof(out); cut++)
		assert_int_equal(uroce_ipoib_encode(&ip, out, cut), UROCE_ENOSPACE);

	/* Every prefix: the header alone is never enough for an ARP. */
	for (size_t cut = 0; cut < sizeof(arp_reply); cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, arp_reply, cut);
		assert_int_equal(uroce_ipoib_decode(&ip, copy, cut), UROCE_ETRUNC);
		free(copy);
	}
}

static void test_header(void **state)
{
	const uint8_t ipv6[] = {0x86, 0xdd, 0x00, 0x00, 0x60, 0x00};
	const uint8_t rsv[] = {0x08, 0x00, 0x00, 0x01};
	const uint8_t other[] = {0x88, 0xcc, 0x00, 0x00};
	struct uroce_ipoib ip;
	uint8_t out[4];
	(void)state;

	assert_int_equal(uroce_ipoib_decode(&ip, ipv6, sizeof(ipv6)), 4);
	assert_int_equal(ip.ethertype, UROCE_ETHERTYPE_IPV6);
	assert_false(ip.has_arp);
	assert_int_equal(ip.payload_off, 4);
	assert_int_equal(ip.payload_len, 2);
	assert_true(uroce_ipoib_probe(ipv6, sizeof(ipv6)));
	assert_false(uroce_ipoib_probe(ipv6, 3));
	assert_false(uroce_ipoib_probe(rsv, sizeof(rsv)));
	assert_false(uroce_ipoib_probe(other, sizeof(other)));
	/* The decoder itself takes any EtherType and reserved value. */
	assert_int_equal(uroce_ipoib_decode(&ip, rsv, sizeof(rsv)), 4);
	assert_int_equal(ip.rsv, 1);

	for (int r = 0; r < ROUNDS; r++) {
		uint8_t in[4];
		fill_random(in, sizeof(in));
		if (in[0] == 0x08 && in[1] == 0x06)
			in[1] = 0x00; /* ARP has its own test */
		if (in[0] == 0x80 && in[1] == 0x35)
			in[1] = 0x00;
		assert_int_equal(uroce_ipoib_decode(&ip, in, sizeof(in)), 4);
		assert_int_equal(uroce_ipoib_encode(&ip, out, sizeof(out)), 4);
		assert_memory_equal(in, out, 4);
	}
	for (size_t cut = 0; cut < 4; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, ipv6, cut);
		assert_int_equal(uroce_ipoib_decode(&ip, copy, cut), UROCE_ETRUNC);
		assert_false(uroce_ipoib_probe(copy, cut));
		free(copy);
	}
}

/* ARP round trips for every protocol address length up to 16 (IPv4 is 4). */
static void test_arp_roundtrip(void **state)
{
	(void)state;
	for (uint8_t plen = 0; plen <= UROCE_IPOIB_ARP_MAX_PLEN; plen++) {
		for (int r = 0; r < 50; r++) {
			uint8_t in[UROCE_IPOIB_ARP_FIXED_LEN + 2 * (20 + 16)], out[sizeof(in)];
			size_t n = UROCE_IPOIB_ARP_FIXED_LEN + 2 * (20 + (size_t)plen);
			struct uroce_ipoib_arp a;
			fill_random(in, sizeof(in));
			in[4] = 20;
			in[5] = plen;
			assert_int_equal(uroce_ipoib_arp_decode(&a, in, n), n);
			assert_int_equal(uroce_ipoib_arp_encode(&a, out, n), n);
			assert_memory_equal(in, out, n);
			assert_int_equal(uroce_ipoib_arp_encode(&a, out, n - 1), UROCE_ENOSPACE);
			if (r)
				continue;
			for (size_t cut = 0; cut < n; cut++) {
				uint8_t *copy = malloc(cut ? cut : 1);
				assert_non_null(copy);
				memcpy(copy, in, cut);
				assert_int_equal(uroce_ipoib_arp_decode(&a, copy, cut), UROCE_ETRUNC);
				free(copy);
			}
		}
	}
}

static void test_arp_bad(void **state)
{
	uint8_t b[sizeof(arp_reply)];
	struct uroce_ipoib ip;
	struct uroce_ipoib_arp a;
	(void)state;

	memcpy(b, arp_reply, sizeof(b));
	b[4 + 4] = 6; /* an Ethernet hardware length */
	assert_int_equal(uroce_ipoib_decode(&ip, b, sizeof(b)), UROCE_EFORMAT);
	assert_false(ip.has_arp);
	memcpy(b, arp_reply, sizeof(b));
	b[4 + 5] = 17;
	assert_int_equal(uroce_ipoib_arp_decode(&a, b + 4, sizeof(b) - 4), UROCE_EFORMAT);
	memset(&a, 0, sizeof(a));
	a.hlen = 6;
	assert_int_equal(uroce_ipoib_arp_encode(&a, b, sizeof(b)), UROCE_EINVAL);
}

static void test_hwaddr(void **state)
{
	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		uint8_t in[UROCE_IPOIB_HWADDR_LEN], out[UROCE_IPOIB_HWADDR_LEN];
		struct uroce_ipoib_hwaddr h;
		fill_random(in, sizeof(in));
		assert_int_equal(uroce_ipoib_hwaddr_decode(&h, in, sizeof(in)), UROCE_IPOIB_HWADDR_LEN);
		assert_int_equal(h.flags, in[0]);
		assert_int_equal(h.qpn, (uint32_t)in[1] << 16 | in[2] << 8 | in[3]);
		assert_int_equal(uroce_ipoib_hwaddr_encode(&h, out, sizeof(out)), UROCE_IPOIB_HWADDR_LEN);
		assert_memory_equal(in, out, sizeof(in));
		for (size_t cut = 0; cut < sizeof(in); cut++) {
			assert_int_equal(uroce_ipoib_hwaddr_decode(&h, in, cut), UROCE_ETRUNC);
			assert_int_equal(uroce_ipoib_hwaddr_encode(&h, out, cut), UROCE_ENOSPACE);
		}
	}
}

static void test_names(void **state)
{
	(void)state;
#define CHECK_OP(id, v, n) assert_string_equal(uroce_arp_op_name(v), n);
	UROCE_ARP_OP_MAP(CHECK_OP)
#undef CHECK_OP
	assert_null(uroce_arp_op_name(0));
	assert_null(uroce_arp_op_name(5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arp_capture),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_arp_roundtrip),
		cmocka_unit_test(test_arp_bad),
		cmocka_unit_test(test_hwaddr),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

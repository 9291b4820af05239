/* SPDX-License-Identifier: MIT */
/* The VCRC over every packet of the native InfiniBand sample capture, in its pcap (DLT_ERF)
 * and raw ERF forms: the last 2 bytes, least-significant byte first, cover LRH..ICRC. Exits 77
 * (skipped) when ../shared is absent. */
#include "testutil.h"

#include <stdio.h>

#include "wire/bytes.h"
#include "wire/crc.h"

#define IB_NATIVE_PACKETS 43

struct vcrc_tally {
	size_t packets, ok;
};

static void check_vcrc(void *ctx, size_t number, enum uroce_link link, const uint8_t *data,
		       size_t len)
{
	struct vcrc_tally *t = ctx;

	t->packets++;
	assert_int_equal(link, UROCE_LINK_IB);
	assert_true(len >= 8 + 2);
	/* LRH.PktLen (11 bits, 4-byte words) counts LRH..ICRC: the VCRC is what is left. */
	assert_int_equal((size_t)(get_be16(data + 4) & 0x7FF) * 4, len - 2);
	uint16_t stored = get_le16(data + len - 2);
	uint16_t computed = uroce_vcrc16(data, len - 2);
	if (computed != stored)
		print_error("packet %zu: VCRC stored 0x%04x computed 0x%04x\n", number, stored,
			    computed);
	else
		t->ok++;
}

static void check_file(const char *name)
{
	char path[4200];
	struct vcrc_tally t = {0};

	snprintf(path, sizeof(path), "%s/%s", test_captures_dir(), name);
	assert_int_equal(test_each_frame(path, check_vcrc, &t), IB_NATIVE_PACKETS);
	assert_int_equal(t.packets, IB_NATIVE_PACKETS);
	assert_int_equal(t.ok, IB_NATIVE_PACKETS);
}

static void test_vcrc_pcap(void **state)
{
	(void)state;
	check_file("ib-native-erf.pcap");
}

static void test_vcrc_raw_erf(void **state)
{
	(void)state;
	check_file("ib-native.erf");
}

int main(void)
{
	if (!test_captures_dir()) {
		fprintf(stderr, "captures folder absent: skipped\n");
		return TEST_SKIP_CODE;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vcrc_pcap),
		cmocka_unit_test(test_vcrc_raw_erf),
	};
	return cmocka_run_group_tests_name("vcrc_captures", tests, NULL, NULL);
}

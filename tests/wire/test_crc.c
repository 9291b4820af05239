/* SPDX-License-Identifier: MIT */
/* CRC-32 and VCRC: check values, ISA-L vs portable vs zlib on random lengths, offsets and
 * chained calls. The VCRC over real packets is in test_vcrc_captures.c. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "wire/crc.h"

#ifdef UROCE_HAVE_ZLIB
#include <zlib.h>
#endif

#define BIG_LEN (1u << 20)

static const uint8_t check_input[] = "123456789";

static void fill_random(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(test_rand() >> 56);
}

/* zlib's crc32() when available, else a bitwise CRC-32 written from the definition. */
static uint32_t crc32_oracle(uint32_t crc, const uint8_t *p, size_t len)
{
#ifdef UROCE_HAVE_ZLIB
	/* zlib takes a uInt length: feed it in pieces so any size_t works. */
	while (len > 0) {
		uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
#else
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
#endif
}

/* The same CRC-16 bit by bit, from facts.md: reflected 0xD008, init and xorout 0xFFFF. */
static uint16_t vcrc_bitwise(const uint8_t *p, size_t len)
{
	uint16_t crc = 0xFFFF;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (uint16_t)((crc >> 1) ^ (0xD008u & (0u - (crc & 1u))));
	}
	return (uint16_t)~crc;
}

static void test_check_value(void **state)
{
	(void)state;
	assert_int_equal(uroce_crc32(0, check_input, 9), 0xCBF43926u);
	assert_int_equal(uroce_crc32_portable(0, check_input, 9), 0xCBF43926u);
	assert_int_equal(crc32_oracle(0, check_input, 9), 0xCBF43926u);
	/* Empty input returns the seed unchanged, as zlib does. */
	assert_int_equal(uroce_crc32(0, check_input, 0), 0);
	assert_int_equal(uroce_crc32(0x12345678u, check_input, 0), 0x12345678u);
	assert_int_equal(uroce_crc32_portable(0x12345678u, check_input, 0), 0x12345678u);
}

static void test_impl_name(void **state)
{
	(void)state;
	const char *impl = uroce_crc32_impl();
	assert_non_null(impl);
	assert_true(strcmp(impl, "isa-l") == 0 || strcmp(impl, "portable") == 0);
	print_message("uroce_crc32 uses %s\n", impl);
}

/* Every length 0..5000 at every offset 0..15 of one random buffer, with nonzero seeds too. */
static void test_lengths_offsets(void **state)
{
	(void)state;
	enum { MAXLEN = 5000, MAXOFF = 16 };
	uint8_t *buf = malloc(MAXLEN + MAXOFF);
	assert_non_null(buf);
	fill_random(buf, MAXLEN + MAXOFF);

	for (size_t len = 0; len <= MAXLEN; len++) {
		size_t off = len % MAXOFF;
		uint32_t seed = len % 3 == 0 ? 0 : (uint32_t)test_rand();
		uint32_t want = crc32_oracle(seed, buf + off, len);
		assert_int_equal(uroce_crc32(seed, buf + off, len), want);
		assert_int_equal(uroce_crc32_portable(seed, buf + off, len), want);
	}
	for (size_t off = 0; off < MAXOFF; off++)
		for (size_t len = 0; len < 300; len++) {
			uint32_t want = crc32_oracle(0, buf + off, len);
			assert_int_equal(uroce_crc32(0, buf + off, len), want);
			assert_int_equal(uroce_crc32_portable(0, buf + off, len), want);
		}
	free(buf);
}

/* 1 MiB in one call, at an odd offset. */
static void test_big(void **state)
{
	(void)state;
	uint8_t *buf = malloc(BIG_LEN + 1);
	assert_non_null(buf);
	fill_random(buf, BIG_LEN + 1);
	uint32_t want = crc32_oracle(0, buf + 1, BIG_LEN);
	assert_int_equal(uroce_crc32(0, buf + 1, BIG_LEN), want);
	assert_int_equal(uroce_crc32_portable(0, buf + 1, BIG_LEN), want);
	free(buf);
}

/* Chaining: the CRC of a buffer cut anywhere into pieces, alternating the implementations
 * between pieces, equals the CRC in one call (the two must share one state convention). */
static void test_chaining(void **state)
{
	(void)state;
	enum { LEN = 20000 };
	uint8_t *buf = malloc(LEN);
	assert_non_null(buf);
	fill_random(buf, LEN);
	uint32_t want = crc32_oracle(0, buf, LEN);

	for (int round = 0; round < 200; round++) {
		uint32_t crc = 0;
		size_t pos = 0;
		int piece = 0;
		while (pos < LEN) {
			size_t n = (size_t)(test_rand() % (round < 100 ? 64 : 4100));
			if (n > LEN - pos)
				n = LEN - pos;
			if ((piece++ + round) & 1)
				crc = uroce_crc32(crc, buf + pos, n);
			else
				crc = uroce_crc32_portable(crc, buf + pos, n);
			pos += n;
		}
		assert_int_equal(crc, want);
	}
	free(buf);
}

/* Every single-bit error in a 64-byte buffer changes the CRC (CRC-32 detects all of them). */
static void test_single_bit_errors(void **state)
{
	(void)state;
	uint8_t buf[64];
	fill_random(buf, sizeof(buf));
	uint32_t good = uroce_crc32(0, buf, sizeof(buf));
	for (size_t bit = 0; bit < sizeof(buf) * 8; bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(uroce_crc32(0, buf, sizeof(buf)), good);
		assert_int_not_equal(uroce_crc32_portable(0, buf, sizeof(buf)), good);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

static void test_vcrc(void **state)
{
	(void)state;
	/* Check value of these parameters over "123456789", computed from the definition by an
	 * independent script (Python, bitwise). */
	assert_int_equal(uroce_vcrc16(check_input, 9), 0x0A3D);
	assert_int_equal(vcrc_bitwise(check_input, 9), 0x0A3D);
	assert_int_equal(uroce_vcrc16(check_input, 0), 0x0000);

	uint8_t buf[2100];
	fill_random(buf, sizeof(buf));
	for (size_t len = 0; len <= sizeof(buf); len += 1 + len / 16)
		assert_int_equal(uroce_vcrc16(buf, len), vcrc_bitwise(buf, len));

	/* A real packet: record 1 of ib-native.erf (an SMP, LRH..ICRC = file offsets 0x10..0x12F,
	 * 288 bytes), whose VCRC bytes on the wire are 00 37 (least-significant byte first). */
	static const uint8_t lrh_bth[] = {
		0xF0, 0x02, 0xFF, 0xFF, 0x00, 0x48, 0xFF, 0xFF, /* LRH */
		0x64, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xE9, /* BTH */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* DETH */
		0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x01, 0x02, 0x00, 0x01, 0x50, 0x9C,
		0x00, 0x01, 0x25, 0xC8, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,
	};
	uint8_t pkt[288] = {0};
	memcpy(pkt, lrh_bth, sizeof(lrh_bth));
	pkt[0xAD - 0x10] = 0x02; /* the only other nonzero bytes */
	pkt[0xAE - 0x10] = 0x03;
	memcpy(pkt + 284, (const uint8_t[]){0x10, 0x65, 0xEF, 0x88}, 4); /* ICRC */
	assert_int_equal(uroce_vcrc16(pkt, sizeof(pkt)), 0x3700);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_impl_name),
		cmocka_unit_test(test_lengths_offsets),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_chaining),
		cmocka_unit_test(test_single_bit_errors),
		cmocka_unit_test(test_vcrc),
	};
	return cmocka_run_group_tests_name("crc", tests, NULL, NULL);
}

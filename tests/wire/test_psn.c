/* SPDX-License-Identifier: MIT */
/* 24-bit PSN arithmetic across the wrap. */
#include "testutil.h"

#include "wire/psn.h"

static void test_wrap(void **state)
{
	(void)state;
	assert_int_equal(uroce_psn_add(0xFFFFFF, 1), 0);
	assert_int_equal(uroce_psn_add(0xFFFFF0, 0x20), 0x10);
	assert_int_equal(uroce_psn_diff(0x000005, 0xFFFFFE), 7);
	assert_int_equal(uroce_psn_diff(0xFFFFFE, 0x000005), -7);
	assert_true(uroce_psn_lt(0xFFFFFE, 0x000001));
	assert_false(uroce_psn_lt(0x000001, 0xFFFFFE));
	assert_true(uroce_psn_le(7, 7));
	/* The half-space boundary: 2^23 ahead counts as behind. */
	assert_int_equal(uroce_psn_diff(0x800000, 0), -0x800000);
	assert_int_equal(uroce_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
}

static void test_random_consistency(void **state)
{
	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint32_t a = (uint32_t)test_rand() & UROCE_PSN_MASK;
		uint32_t n = (uint32_t)test_rand() % 0x800000;
		uint32_t b = uroce_psn_add(a, n);
		assert_int_equal(uroce_psn_diff(b, a), (int32_t)n);
		assert_int_equal(uroce_psn_diff(a, b), -(int32_t)n);
		assert_int_equal(uroce_psn_lt(a, b), n != 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_random_consistency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

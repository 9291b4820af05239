/* SPDX-License-Identifier: MIT */
/* uroce_echo, the one way messages quote outside text (common/echo.h): short text whole,
 * long text cut to 64 bytes and "...", never inside a UTF-8 character, control characters
 * as '?', a length-bounded item not read past its end. */
#include "testutil.h"

#include <string.h>

#include "common/echo.h"

static void test_short_text_whole(void **state)
{
	struct uroce_echo e;
	char exact[UROCE_ECHO_MAX + 1];
	(void)state;

	assert_string_equal(uroce_echo(&e, "", (size_t)-1), "");
	assert_string_equal(uroce_echo(&e, "127.0.0.1", (size_t)-1), "127.0.0.1");
	memset(exact, 'a', UROCE_ECHO_MAX);
	exact[UROCE_ECHO_MAX] = '\0';
	assert_string_equal(uroce_echo(&e, exact, (size_t)-1), exact); /* 64: no "..." */
}

static void test_long_text_cut(void **state)
{
	static char huge[5001];
	struct uroce_echo e;
	(void)state;

	memset(huge, 'x', 5000);
	const char *s = uroce_echo(&e, huge, (size_t)-1);
	assert_int_equal(strlen(s), UROCE_ECHO_MAX + 3);
	assert_int_equal(strspn(s, "x"), UROCE_ECHO_MAX);
	assert_string_equal(s + UROCE_ECHO_MAX, "...");
	/* A 2-byte character across the limit goes whole, and so does a 4-byte one. */
	memcpy(huge + UROCE_ECHO_MAX - 1, "\xC3\xA9", 2);
	s = uroce_echo(&e, huge, (size_t)-1);
	assert_int_equal(strspn(s, "x"), UROCE_ECHO_MAX - 1);
	assert_string_equal(s + UROCE_ECHO_MAX - 1, "...");
	memcpy(huge + UROCE_ECHO_MAX - 2, "\xF0\x9F\x98\x80", 4);
	s = uroce_echo(&e, huge, (size_t)-1);
	assert_int_equal(strspn(s, "x"), UROCE_ECHO_MAX - 2);
	assert_string_equal(s + UROCE_ECHO_MAX - 2, "...");
}

static void test_control_characters_and_bounds(void **state)
{
	struct uroce_echo e;
	(void)state;

	assert_string_equal(uroce_echo(&e, "a\x1b[31mb\n\x7f", (size_t)-1), "a?[31mb??");
	/* An item of n bytes inside a longer text: n bytes, and "..." only past 64. */
	assert_string_equal(uroce_echo(&e, "loss=2,dup=1", 6), "loss=2");
	assert_string_equal(uroce_echo(&e, "abc", 0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_text_whole),
		cmocka_unit_test(test_long_text_cut),
		cmocka_unit_test(test_control_characters_and_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* The timer heap every timer of the CM and the engine lives in (common/timer.c) against a
 * plain model, under thousands of random operations from a fixed seed; and its reserve, which
 * lets an owner arm without allocating. */
#include "testutil.h"

#include <stdlib.h>

#include "common/error.h"
#include "common/timer.h"

#define NT 300

/* The heap: arm, re-arm and cancel at random; the first timer is always the model's earliest
 * (by due time, then by arming order), and popping them all gives the sorted order. */
static void test_timer_heap(void **state)
{
	static struct timer t[NT];
	static uint64_t armed_seq[NT];
	struct timer_heap h = {0};
	uint64_t seq = 0;
	(void)state;

	for (int i = 0; i < NT; i++)
		timer_init(&t[i]);
	for (int step = 0; step < 20000; step++) {
		int i = (int)(test_rand() % NT);
		if (test_rand() % 4 == 0) {
			timer_cancel(&h, &t[i]);
		} else {
			assert_int_equal(timer_arm(&h, &t[i], test_rand() % 64), 0);
			armed_seq[i] = seq++;
		}
		/* The model: the earliest armed timer. */
		int best = -1;
		uint32_t n = 0;
		for (int k = 0; k < NT; k++) {
			if (!timer_armed(&t[k]))
				continue;
			n++;
			if (best < 0 || t[k].due < t[best].due ||
			    (t[k].due == t[best].due && armed_seq[k] < armed_seq[best]))
				best = k;
		}
		assert_int_equal(h.n, n);
		assert_ptr_equal(timer_first(&h), best < 0 ? NULL : &t[best]);
	}
	uint64_t last_due = 0;
	struct timer *f;
	while ((f = timer_first(&h))) {
		assert_true(f->due >= last_due);
		last_due = f->due;
		timer_cancel(&h, f);
		assert_false(timer_armed(f));
	}
	timer_heap_free(&h);
}

/* Room made beforehand: arming that many never grows the array (its address stays). */
static void test_reserve(void **state)
{
	static struct timer t[100];
	struct timer_heap h = {0};
	(void)state;

	assert_int_equal(timer_heap_reserve(&h, 100), 0);
	struct timer **array = h.t;
	assert_true(h.cap >= 100);
	for (int i = 0; i < 100; i++) {
		timer_init(&t[i]);
		assert_int_equal(timer_arm(&h, &t[i], (uint64_t)(100 - i)), 0);
	}
	assert_ptr_equal(h.t, array);
	assert_ptr_equal(timer_first(&h), &t[99]);
	assert_int_equal(timer_heap_reserve(&h, 50), 0); /* less than it has: nothing changes */
	assert_ptr_equal(h.t, array);
	assert_int_equal(timer_heap_reserve(&h, UINT32_MAX), UROCE_ENOMEM);
	assert_int_equal(h.n, 100);
	timer_heap_free(&h);
	for (int i = 0; i < 100; i++)
		assert_false(timer_armed(&t[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_heap),
		cmocka_unit_test(test_reserve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

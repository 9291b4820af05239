/* SPDX-License-Identifier: MIT */
/* The CM's two data structures against plain models: the timer heap (every timer the CM
 * has, src/cm/timer.c) and the lookup tables (src/cm/table.c), under thousands of random
 * operations from a fixed seed. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cm/table.h"
#include "cm/timer.h"

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

struct item {
	struct table_node node;
	uint64_t a;
	uint32_t b;
	bool in;
};

/* The table: keys from a small space so that they collide and repeat; find and next give
 * exactly the linked items with the key, across the growth of the bucket array. */
static void test_table(void **state)
{
	static struct item it[2000];
	struct table t = {0};
	(void)state;

	for (int step = 0; step < 40000; step++) {
		struct item *x = &it[test_rand() % 2000];
		if (x->in && test_rand() % 3 == 0) {
			table_remove(&t, &x->node);
			x->in = false;
		} else if (!x->in) {
			x->a = test_rand() % 5;
			x->b = (uint32_t)(test_rand() % 50);
			assert_int_equal(table_insert(&t, &x->node, x->a, x->b), 0);
			x->in = true;
		}
		if (step % 97)
			continue;
		uint32_t linked = 0;
		for (int k = 0; k < 2000; k++)
			linked += it[k].in;
		assert_int_equal(t.n, linked);
		for (uint64_t a = 0; a < 5; a++) {
			for (uint32_t b = 0; b < 50; b++) {
				int want = 0, got = 0;
				for (int k = 0; k < 2000; k++)
					want += it[k].in && it[k].a == a && it[k].b == b;
				for (struct table_node *n = table_find(&t, a, b); n; n = table_next(n)) {
					struct item *y = (struct item *)n;
					assert_true(y->in && y->a == a && y->b == b);
					got++;
				}
				assert_int_equal(got, want);
			}
		}
	}
	table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_heap),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

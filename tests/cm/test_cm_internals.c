/* SPDX-License-Identifier: MIT */
/* The CM's lookup tables (src/cm/table.c) against a plain model, under thousands of random
 * operations from a fixed seed (its timer heap, common/timer.c, is tests/common/test_timer.c's). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cm/table.h"

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
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

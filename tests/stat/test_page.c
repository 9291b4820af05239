/* SPDX-License-Identifier: MIT */
/* The statistics page (src/stat/page.h): the sequence lock's copies, its torn-read retry,
 * the reader's checks of the static part, and the runtime directory's choice. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "stat/page.h"

static struct uroce_stat_page *new_page(void)
{
	struct uroce_stat_page *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->magic = UROCE_STAT_MAGIC;
	p->version = UROCE_STAT_VERSION;
	p->size = sizeof(*p);
	p->ncounters = 3;
	p->nqp_counters = 2;
	return p;
}

/* Every value of the copy is k: a torn copy mixes two values of k. */
static void fill(struct uroce_stat_dyn *d, uint64_t k, uint32_t nqps)
{
	memset(d, 0, sizeof(*d));
	d->time_ns = k;
	d->publishes = k;
	d->nqps = d->qps_total = nqps;
	for (size_t i = 0; i < UROCE_STAT_MAX_COUNTERS; i++)
		d->counters[i] = k;
	for (uint32_t q = 0; q < nqps; q++) {
		d->qps[q].qpn = q + 17;
		d->qps[q].sq_psn = (uint32_t)k;
		for (size_t i = 0; i < UROCE_STAT_MAX_QP_COUNTERS; i++)
			d->qps[q].cnt[i] = k;
	}
}

static void assert_whole(const struct uroce_stat_dyn *d)
{
	uint64_t k = d->time_ns;

	assert_int_equal(d->publishes, k);
	for (size_t i = 0; i < UROCE_STAT_MAX_COUNTERS; i++)
		assert_int_equal(d->counters[i], k);
	for (uint32_t q = 0; q < d->nqps; q++) {
		assert_int_equal(d->qps[q].sq_psn, (uint32_t)k);
		for (size_t i = 0; i < UROCE_STAT_MAX_QP_COUNTERS; i++)
			assert_int_equal(d->qps[q].cnt[i], k);
	}
}

static void test_round_trip(void **state)
{
	struct uroce_stat_page *p = new_page();
	struct uroce_stat_dyn *in = malloc(sizeof(*in)), *out = malloc(sizeof(*out));
	(void)state;

	fill(in, 42, 3);
	uroce_stat_store(p, in, uroce_stat_dyn_words(in));
	assert_int_equal(atomic_load_explicit(&p->seq, memory_order_relaxed), 2);
	assert_int_equal(uroce_stat_load(p, out, 1), 0);
	assert_int_equal(out->nqps, 3);
	assert_int_equal(out->qps[2].qpn, 19);
	assert_whole(out);
	/* only the filled QPs are copied: a later copy with fewer leaves the rest alone */
	assert_true(uroce_stat_dyn_words(in) < UROCE_STAT_DYN_WORDS);
	fill(in, 43, 1);
	uroce_stat_store(p, in, uroce_stat_dyn_words(in));
	assert_int_equal(uroce_stat_load(p, out, 1), 0);
	assert_int_equal(out->nqps, 1);
	assert_whole(out);
	free(in);
	free(out);
	free(p);
}

/* A writer stopped between its two seq stores (seq odd): every try fails, and the reader
 * says so rather than return the half-written copy. */
static void test_torn_gives_up(void **state)
{
	struct uroce_stat_page *p = new_page();
	struct uroce_stat_dyn *in = malloc(sizeof(*in)), *out = malloc(sizeof(*out));
	struct uroce_stat_snapshot *s = malloc(sizeof(*s));
	(void)state;

	fill(in, 7, 2);
	uroce_stat_store(p, in, uroce_stat_dyn_words(in));
	atomic_store_explicit(&p->seq, 3, memory_order_relaxed); /* a write under way */
	assert_int_equal(uroce_stat_load(p, out, 5), -EAGAIN);
	assert_int_equal(uroce_stat_read(p, sizeof(*p), s), -EAGAIN);
	atomic_store_explicit(&p->seq, 4, memory_order_relaxed);
	assert_int_equal(uroce_stat_load(p, out, 1), 0);
	assert_whole(out);
	free(in);
	free(out);
	free(s);
	free(p);
}

#define WRITES 20000

struct race {
	struct uroce_stat_page *page;
	_Atomic int done;
};

static void *writer(void *arg)
{
	struct race *r = arg;
	struct uroce_stat_dyn *d = malloc(sizeof(*d));

	for (uint64_t k = 1; k <= WRITES; k++) {
		fill(d, k, (uint32_t)(k % 4));
		uroce_stat_store(r->page, d, uroce_stat_dyn_words(d));
	}
	free(d);
	atomic_store_explicit(&r->done, 1, memory_order_release);
	return NULL;
}

/* A reader beside a writer that never stops: each copy it accepts is one whole write (all
 * its values equal), and copies never go back in time. */
static void test_concurrent(void **state)
{
	struct race r = {.page = new_page()};
	struct uroce_stat_dyn *out = malloc(sizeof(*out));
	uint64_t last = 0, accepted = 0;
	pthread_t t;
	(void)state;

	assert_int_equal(pthread_create(&t, NULL, writer, &r), 0);
	while (!atomic_load_explicit(&r.done, memory_order_acquire)) {
		if (uroce_stat_load(r.page, out, 1000))
			continue;
		accepted++;
		assert_whole(out);
		assert_true(out->time_ns >= last);
		last = out->time_ns;
	}
	pthread_join(t, NULL);
	assert_int_equal(uroce_stat_load(r.page, out, 1), 0);
	assert_int_equal(out->time_ns, WRITES);
	assert_whole(out);
	(void)accepted;
	free(out);
	free(r.page);
}

static void test_read_checks(void **state)
{
	struct uroce_stat_page *p = new_page();
	struct uroce_stat_snapshot *s = malloc(sizeof(*s));
	struct uroce_stat_dyn *in = malloc(sizeof(*in));
	(void)state;

	fill(in, 5, 1);
	memset(p->comm, 'x', sizeof(p->comm)); /* not terminated by the writer */
	uroce_stat_store(p, in, uroce_stat_dyn_words(in));
	assert_int_equal(uroce_stat_read(p, sizeof(*p), s), 0);
	assert_int_equal(strlen(s->hdr.comm), sizeof(s->hdr.comm) - 1);
	assert_int_equal(s->hdr.ncounters, 3);
	assert_int_equal(s->dyn.counters[0], 5);
	assert_int_equal(uroce_stat_read(p, sizeof(*p) - 1, s), -EPROTO);
	p->ncounters = UROCE_STAT_MAX_COUNTERS + 1;
	assert_int_equal(uroce_stat_read(p, sizeof(*p), s), -EPROTO);
	p->ncounters = 3;
	p->version = UROCE_STAT_VERSION + 1;
	assert_int_equal(uroce_stat_read(p, sizeof(*p), s), -EPROTO);
	p->version = UROCE_STAT_VERSION;
	p->magic ^= 1;
	assert_int_equal(uroce_stat_read(p, sizeof(*p), s), -EPROTO);
	free(in);
	free(s);
	free(p);
}

static void test_dir(void **state)
{
	char buf[256], want[64], tmpl[] = "/tmp/uroce-test-xdg.XXXXXX";
	(void)state;

	setenv("UROCE_RUNTIME_DIR", "/some/where", 1);
	assert_int_equal(uroce_stat_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/some/where");
	assert_int_equal(uroce_stat_dir(buf, 5), -ENAMETOOLONG);
	unsetenv("UROCE_RUNTIME_DIR");
	assert_non_null(mkdtemp(tmpl));
	setenv("XDG_RUNTIME_DIR", tmpl, 1);
	assert_int_equal(uroce_stat_dir(buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/uroce", tmpl);
	assert_string_equal(buf, want);
	rmdir(tmpl);
	/* gone (or unwritable): the per-user directory of /tmp */
	assert_int_equal(uroce_stat_dir(buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "/tmp/uroce-%u", (unsigned)getuid());
	assert_string_equal(buf, want);
	unsetenv("XDG_RUNTIME_DIR");
	assert_int_equal(uroce_stat_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_torn_gives_up),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_read_checks),
		cmocka_unit_test(test_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

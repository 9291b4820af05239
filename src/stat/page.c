/* SPDX-License-Identifier: MIT */
/* The statistics page's sequence lock and the runtime directory (page.h, docs/stat.md). */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "page.h"

/* The C11 sequence lock (Boehm, "Can seqlocks get along with programming language memory
 * models?", 2012): the writer makes seq odd, then a release fence keeps every word store
 * after it; the final release store of the even seq keeps them before. A reader that saw
 * any new word passes its acquire fence and then sees seq moved. */
void uroce_stat_store(struct uroce_stat_page *p, const struct uroce_stat_dyn *d, size_t words)
{
	/* Relaxed: this writer is seq's only writer (the caller serialises writers). */
	uint64_t s = atomic_load_explicit(&p->seq, memory_order_relaxed);
	const char *src = (const char *)d;
	uint64_t w;

	atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (size_t i = 0; i < words && i < UROCE_STAT_DYN_WORDS; i++) {
		memcpy(&w, src + i * 8, 8);
		atomic_store_explicit(&p->words[i], w, memory_order_relaxed);
	}
	atomic_store_explicit(&p->seq, s + 2, memory_order_release);
}

size_t uroce_stat_dyn_words(const struct uroce_stat_dyn *d)
{
	uint32_t n = d->nqps < UROCE_STAT_MAX_QPS ? d->nqps : UROCE_STAT_MAX_QPS;

	return (offsetof(struct uroce_stat_dyn, qps) + n * sizeof(struct uroce_stat_qp)) / 8;
}

int uroce_stat_load(const struct uroce_stat_page *p, struct uroce_stat_dyn *d, unsigned tries)
{
	char *dst = (char *)d;
	uint64_t s1, s2, w;

	while (tries--) {
		s1 = atomic_load_explicit(&p->seq, memory_order_acquire);
		if (s1 & 1) {
			sched_yield(); /* let the writer finish */
			continue;
		}
		for (size_t i = 0; i < UROCE_STAT_DYN_WORDS; i++) {
			w = atomic_load_explicit(&p->words[i], memory_order_relaxed);
			memcpy(dst + i * 8, &w, 8);
		}
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&p->seq, memory_order_relaxed);
		if (s1 == s2) {
			if (d->nqps > UROCE_STAT_MAX_QPS)
				d->nqps = UROCE_STAT_MAX_QPS;
			return 0;
		}
	}
	return -EAGAIN;
}

int uroce_stat_read(const struct uroce_stat_page *p, size_t len, struct uroce_stat_snapshot *s)
{
	if (len < sizeof(*p) || p->magic != UROCE_STAT_MAGIC || p->version != UROCE_STAT_VERSION ||
	    p->size != sizeof(*p) || p->ncounters > UROCE_STAT_MAX_COUNTERS ||
	    p->nqp_counters > UROCE_STAT_MAX_QP_COUNTERS)
		return -EPROTO;
	memcpy(&s->hdr, p, offsetof(struct uroce_stat_page, seq));
	/* the names are the writer's: end them whatever it wrote */
	s->hdr.comm[sizeof(s->hdr.comm) - 1] = 0;
	s->hdr.device[sizeof(s->hdr.device) - 1] = 0;
	s->hdr.backend[sizeof(s->hdr.backend) - 1] = 0;
	s->hdr.addrs[sizeof(s->hdr.addrs) - 1] = 0;
	s->hdr.impair[sizeof(s->hdr.impair) - 1] = 0;
	for (uint32_t i = 0; i < UROCE_STAT_MAX_COUNTERS; i++)
		s->hdr.counter_names[i][UROCE_STAT_NAME_MAX - 1] = 0;
	for (uint32_t i = 0; i < UROCE_STAT_MAX_QP_COUNTERS; i++)
		s->hdr.qp_counter_names[i][UROCE_STAT_NAME_MAX - 1] = 0;
	/* A thousand tries: a writer copies a few kilobytes, so only one stopped mid-copy (killed
	 * by a signal between its two seq stores) fails them all. */
	return uroce_stat_load(p, &s->dyn, 1000);
}

int uroce_stat_dir(char *buf, size_t len)
{
	const char *env = getenv("UROCE_RUNTIME_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (xdg && *xdg == '/' && !access(xdg, W_OK | X_OK))
		n = snprintf(buf, len, "%s/uroce", xdg);
	else
		n = snprintf(buf, len, "/tmp/uroce-%u", (unsigned)getuid());
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

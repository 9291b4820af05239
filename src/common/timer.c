/* SPDX-License-Identifier: MIT */
#include "timer.h"

#include <assert.h>
#include <stdlib.h>

#include "common/error.h"

static bool earlier(const struct timer *a, const struct timer *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void place(struct timer_heap *h, uint32_t i, struct timer *t)
{
	h->t[i] = t;
	t->idx = i;
}

static void sift_up(struct timer_heap *h, uint32_t i)
{
	struct timer *t = h->t[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (!earlier(t, h->t[parent]))
			break;
		place(h, i, h->t[parent]);
		i = parent;
	}
	place(h, i, t);
}

static void sift_down(struct timer_heap *h, uint32_t i)
{
	struct timer *t = h->t[i];

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && earlier(h->t[c + 1], h->t[c]))
			c++;
		if (!earlier(h->t[c], t))
			break;
		place(h, i, h->t[c]);
		i = c;
	}
	place(h, i, t);
}

void timer_heap_free(struct timer_heap *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		h->t[i]->idx = TIMER_IDLE;
	free(h->t);
	h->t = NULL;
	h->n = h->cap = 0;
}

int timer_heap_reserve(struct timer_heap *h, uint32_t count)
{
	if (count <= h->cap)
		return 0;
	if (count > UINT32_MAX / 2)
		return UROCE_ENOMEM;
	uint32_t cap = h->cap ? h->cap : 16;
	while (cap < count)
		cap *= 2;
	struct timer **grown = realloc(h->t, (size_t)cap * sizeof(*grown));
	if (!grown)
		return UROCE_ENOMEM;
	h->t = grown;
	h->cap = cap;
	return 0;
}

int timer_arm(struct timer_heap *h, struct timer *t, uint64_t due)
{
	int err;

	if (!timer_armed(t) && h->n == h->cap && (err = timer_heap_reserve(h, h->n + 1)))
		return err;
	t->due = due;
	t->seq = h->seq++;
	if (!timer_armed(t)) {
		place(h, h->n++, t);
		sift_up(h, t->idx);
		return 0;
	}
	/* Re-armed: it may move either way (its seq is now the largest). */
	sift_up(h, t->idx);
	sift_down(h, t->idx);
	return 0;
}

void timer_cancel(struct timer_heap *h, struct timer *t)
{
	if (!timer_armed(t))
		return;
	uint32_t i = t->idx;
	assert(i < h->n && h->t[i] == t);
	struct timer *last = h->t[--h->n];
	t->idx = TIMER_IDLE;
	if (last == t)
		return;
	place(h, i, last);
	sift_up(h, i);
	sift_down(h, last->idx);
}

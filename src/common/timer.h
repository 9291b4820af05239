/* SPDX-License-Identifier: MIT */
/* One mechanism for every timer (style.md "one mechanism for timers"): the CM's (src/cm) and
 * the engine's (each QP's retransmission and RNR timers; congestion control's are entries of
 * the same kind). A binary min-heap of timers embedded in their owners, ordered by due time,
 * then by when they were armed, so that timers due at the same time run in a fixed order.
 * Arming, re-arming and cancelling are O(log n); the earliest is read in O(1), whatever the
 * number of timers. The heap holds pointers; it allocates only to grow its array, which an
 * owner can make room in beforehand (timer_heap_reserve) so that its arming never fails. */
#ifndef UROCE_COMMON_TIMER_H
#define UROCE_COMMON_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define TIMER_IDLE UINT32_MAX /* timer.idx of a timer not in the heap */

struct timer {
	uint64_t due;
	uint64_t seq;  /* arming order: the tie-break */
	uint32_t idx;  /* place in the heap, TIMER_IDLE when not armed */
	uint32_t kind; /* the owner's: which of its timers this is */
};

struct timer_heap {
	struct timer **t;
	uint32_t n, cap;
	uint64_t seq;
};

static inline void timer_init(struct timer *t) { t->idx = TIMER_IDLE; }
static inline bool timer_armed(const struct timer *t) { return t->idx != TIMER_IDLE; }

void timer_heap_free(struct timer_heap *h);
/* Room for `count` armed timers in all, so that arming up to that many never allocates:
 * 0, or UROCE_ENOMEM (nothing changed). */
int timer_heap_reserve(struct timer_heap *h, uint32_t count);
/* Arms (or moves) t to `due`: 0, or UROCE_ENOMEM when the heap cannot grow (t unchanged). */
int timer_arm(struct timer_heap *h, struct timer *t, uint64_t due);
/* Disarms t if armed. */
void timer_cancel(struct timer_heap *h, struct timer *t);
/* The earliest timer, or NULL. */
static inline struct timer *timer_first(const struct timer_heap *h)
{
	return h->n ? h->t[0] : (struct timer *)0;
}

#endif

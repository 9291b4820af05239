/* SPDX-License-Identifier: MIT */
/* The progress thread: it runs the port's rounds (port.c) while there is traffic, sleeps
 * when there is none, naps while an application thread runs the rounds itself, and wakes
 * on its doorbell (design.md "Runtime model").
 *
 * With nothing to do (after spin_us without traffic, 0 by default) it sleeps in ppoll on the
 * backend's descriptor and an eventfd doorbell, with the engine's next deadline (or a delayed
 * impaired packet's) as its timeout. While an application thread polls, it naps (nap).
 * Applications ring the doorbell only when the thread sleeps: posting sets `posted`, then
 * looks at `sleeping`; the thread sets `sleeping`, then looks at `posted` a last time. A store
 * then a load on each side, all four sequentially consistent: one of the two always sees the
 * other (uv_port_posted).
 *
 * Memory orders: every atomic access spells its order, with the reason where it is not the
 * plain acquire/release of a flag that publishes data (docs/verbs.md "Threads and locks"). */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "io/udp.h"
#include "priv.h"

#define UV_APP_POLLING_NS 5000 /* an application that ran a round this recently polls */
#define UV_NAP_MIN_NS 2000     /* the progress thread's naps while it does (nap) */
#define UV_NAP_MAX_NS 250000  /* a packet that arrives as the application stops polling waits
                                * at most this long: within a local ACK timeout of 6 (262 us) */

/* Writes the progress thread's doorbell: ends its sleep or its nap. */
void uv_port_ring(struct uv_port *p)
{
	uint64_t one = 1;

	if (write(p->doorbell, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only at 2^64 - 1 pending: the thread is awake */
	}
}

/* The next round takes the work in (send_pending: its acquire pairs with this store's
 * release), and the progress thread wakes if it sleeps (design.md: a doorbell only then).
 * seq_cst on both accesses here and on the thread's store of sleeping and load of posted
 * (progress_main): a store then a load on each side, so that either this call sees the thread
 * asleep and rings, or the thread sees posted and stays awake. Acquire and release would
 * allow both loads to miss both stores. */
void uv_port_posted(struct uv_port *p)
{
	atomic_store_explicit(&p->posted, true, memory_order_seq_cst);
	if (atomic_load_explicit(&p->sleeping, memory_order_seq_cst) && p->doorbell >= 0)
		uv_port_ring(p);
}
/* ---- The thread ---- */

/* Sleeps until the backend has something (a datagram, a held packet due), the doorbell rings
 * or the deadline passes. poll rather than an epoll set of the thread's own: poll's wait
 * entries exist only while the thread sleeps, whereas an epoll set holding the backend's
 * epoll descriptor stays hooked to it, and every datagram that arrived while the thread was
 * awake paid a nested epoll wake-up inside the sender's sendmsg (in a latency test on
 * loopback, the socket wake-up's share of sendmmsg's samples went from 6 % to 3 %). */
static void sleep_until(struct uv_port *p, uint64_t deadline, uint64_t now)
{
	struct pollfd fds[2] = {{.fd = uroce_io_fd(p->io), .events = POLLIN},
				{.fd = p->doorbell, .events = POLLIN}};
	struct timespec ts, *tsp = NULL;
	uint64_t v;

	if (deadline != UROCE_NEVER) {
		uint64_t d = deadline > now ? deadline - now : 0;
		ts.tv_sec = (time_t)(d / 1000000000u);
		ts.tv_nsec = (long)(d % 1000000000u);
		tsp = &ts;
	}
	(void)ppoll(fds, 2, tsp, NULL);
	if (read(p->doorbell, &v, sizeof(v)) < 0) {
		/* EAGAIN: nobody rang */
	}
}

/* While an application thread runs the rounds, the progress thread naps rather than
 * yields: two processes with two threads each on two CPUs would otherwise take turns on
 * the CPUs the application threads need, and a thread that yields to a spinning one waits
 * for the end of its time slice (milliseconds) before it runs again. A nap is not ended by
 * packets or posts (the application handles those), only by its timer, by the doorbell of
 * an application that arms a CQ (uv_port_end_nap: it is about to wait) and by a stop. It
 * bounds how long a packet that arrives just after the application stopped polling waits,
 * so it starts short and doubles while the application keeps polling (progress_main), up to
 * UV_NAP_MAX_NS: an application that polls without a break, as a latency test does, wakes
 * the thread four thousand times a second; one that polls its CQ for a
 * completion and then spins on memory for the peer's RDMA WRITE, as ib_write_lat does,
 * finds the thread on the socket within about UV_APP_POLLING_NS + UV_NAP_MIN_NS. */
static void nap(struct uv_port *p, uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	struct pollfd bell = {.fd = p->doorbell, .events = POLLIN};
	uint64_t v;

	/* napping is relaxed: a hint. An application that misses it lets the nap run out
	 * (UV_NAP_MAX_NS at most), one that sees it late rings a doorbell the next sleep takes. */
	atomic_store_explicit(&p->napping, true, memory_order_relaxed);
	if (!atomic_load_explicit(&p->stop, memory_order_relaxed) &&
	    ppoll(&bell, 1, &ts, NULL) > 0 && read(p->doorbell, &v, sizeof(v)) < 0) {
		/* EAGAIN: another reader took it */
	}
	atomic_store_explicit(&p->napping, false, memory_order_relaxed);
}

void uv_port_end_nap(struct uv_port *p)
{
	if (atomic_load_explicit(&p->napping, memory_order_relaxed))
		uv_port_ring(p);
}

static void *progress_main(void *arg)
{
	struct uv_port *p = arg;
	const uint64_t spin_ns = (uint64_t)p->spin_us * 1000u;
	uint64_t now = uroce_udp_now(), last_busy = now, deadline, io_deadline;
	uint64_t nap_ns = UV_NAP_MIN_NS;
	size_t moved;

	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) { /* see uv_thread_stop */
		/* An application polling its CQ runs the rounds itself: stay out of its way, but
		 * keep watching, since it may stop polling at any time. Never wait on round_lock:
		 * its holder would pay a futex wake for it. */
		if (now - atomic_load_explicit(&p->app_polled, memory_order_relaxed) < UV_APP_POLLING_NS ||
		    pthread_mutex_trylock(&p->round_lock)) {
			nap(p, nap_ns);
			if (nap_ns < UV_NAP_MAX_NS)
				nap_ns *= 2;
			now = uroce_udp_now();
			continue;
		}
		nap_ns = UV_NAP_MIN_NS;
		moved = uv_port_round(p);
		deadline = p->deadline;
		io_deadline = uroce_io_next_deadline(p->io); /* the backend is round_lock's */
		pthread_mutex_unlock(&p->round_lock);
		now = uroce_udp_now();
		if (moved) {
			last_busy = now;
			continue;
		}
		if (io_deadline < deadline)
			deadline = io_deadline;
		/* Keep polling for a while after traffic, and whenever a deadline is nearer than
		 * an OS sleep is precise (facts.md section 6: 20-80 us). */
		if (now - last_busy < spin_ns || (deadline != UROCE_NEVER && deadline - now < 100000)) {
			if (now - last_busy >= 20000)
				sched_yield();
			continue;
		}
		/* Posting stores `posted`, then looks at `sleeping`; the thread stores `sleeping`,
		 * then looks at `posted` (all four seq_cst, uv_port_posted): one of the two sees
		 * the other, so nothing is left behind a sleep. Clearing `sleeping` is relaxed: a
		 * poster that still sees it rings once more, and the next sleep takes that ring. */
		atomic_store_explicit(&p->sleeping, true, memory_order_seq_cst);
		if (!atomic_load_explicit(&p->posted, memory_order_seq_cst))
			sleep_until(p, deadline, now);
		atomic_store_explicit(&p->sleeping, false, memory_order_relaxed);
		now = last_busy = uroce_udp_now();
	}
	return NULL;
}

/* Starts the progress thread and its doorbell (the port lock held, the backend open).
 * Returns 0 or an errno. */
int uv_thread_start(struct uv_port *p)
{
	sigset_t all, old;
	int err;

	if ((p->doorbell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		return errno ? errno : EAGAIN;
	/* Signals are the application's: perftest's SIGALRM must not land in this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->thread, NULL, progress_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(p->doorbell);
		p->doorbell = -1;
		return err;
	}
	return 0;
}


/* The last context is closing: nobody else uses the port. stop is relaxed: it publishes
 * nothing, the doorbell written after it wakes the thread that reads it, and pthread_join
 * orders what follows. */
void uv_thread_stop(struct uv_port *p)
{
	if (!atomic_load_explicit(&p->running, memory_order_relaxed))
		return;
	atomic_store_explicit(&p->stop, true, memory_order_relaxed);
	uv_port_ring(p);
	pthread_join(p->thread, NULL);
	atomic_store_explicit(&p->running, false, memory_order_relaxed);
	close(p->doorbell);
	p->doorbell = -1;
}

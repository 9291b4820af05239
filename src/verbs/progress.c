/* SPDX-License-Identifier: MIT */
/* The port: the engine, the UDP socket backend and the progress thread that runs them
 * (design.md "Runtime model").
 *
 * The thread receives a batch, feeds it to the engine, fires due timers, writes what the
 * engine has to send and delivers completion and asynchronous events, then goes round again.
 * With nothing to do (after spin_us without traffic, 0 by default) it sleeps in ppoll on the
 * backend's descriptor and an eventfd doorbell, with the engine's next deadline (or a delayed
 * impaired packet's) as its timeout. While an application thread polls, it naps (nap).
 * Applications ring the doorbell only when the thread sleeps: posting sets `posted`, then
 * looks at `sleeping`; the thread sets `sleeping`, then looks at `posted` a last time. A store
 * then a load on each side, all four sequentially consistent: one of the two always sees the
 * other (uv_port_posted).
 *
 * Memory orders: every atomic access spells its order, with the reason where it is not the
 * plain acquire/release of a flag that publishes data (docs/verbs.md "Threads and locks").
 *
 * The passive side of RDMA WRITE, READ and atomics needs nothing from the application: the
 * thread answers on its own, as a NIC would. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/echo.h"
#include "common/error.h"
#include "io/udp.h"
#include "io/xdp.h"
#include "priv.h"

#define UV_RXCAP (UROCE_MAX_DATAGRAM + 64)
#define UV_SPIN_US_DEFAULT 0
#define UV_APP_POLLING_NS 5000 /* an application that ran a round this recently polls */
#define UV_NAP_MIN_NS 2000     /* the progress thread's naps while it does (nap) */
#define UV_NAP_MAX_NS 250000  /* a packet that arrives as the application stops polling waits
                                * at most this long: within a local ACK timeout of 6 (262 us) */
#define UV_EXIT_WAIT_NS 10000000 /* how long exit waits for a round in progress (port_at_exit) */

static pthread_mutex_t port_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct uv_port *the_port;

static uint32_t env_u32(const char *name, uint32_t def)
{
	const char *s = getenv(name);
	struct uroce_echo e;
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 10);
	if (*end || v > UINT32_MAX) {
		fprintf(stderr, "uroce: %s=%s is not a number; using %u\n", name,
			uroce_echo(&e, s, (size_t)-1), def);
		return def;
	}
	return (uint32_t)v;
}

static int port_create(struct uv_device *dev, struct uv_port **out)
{
	struct uroce_dev_cfg cfg;
	struct uv_port *p;
	const char *spec = getenv("UROCE_IMPAIR");
	char msg[320]; /* the item echoed (at most UROCE_ECHO_MAX bytes) and the known keys */
	size_t i;
	int err;

	if (!(p = calloc(1, sizeof(*p))))
		return ENOMEM;
	p->dev = dev;
	p->doorbell = -1;
	if (spec && *spec) {
		if (uroce_impair_parse(spec, &p->impair, msg, sizeof(msg))) {
			fprintf(stderr, "uroce: UROCE_IMPAIR: %s\n", msg);
			free(p);
			return EINVAL;
		}
		p->impaired = true;
	}
	p->spin_us = env_u32("UROCE_SPIN_US", UV_SPIN_US_DEFAULT);

	memset(&cfg, 0, sizeof(cfg));
	for (i = 0; i < dev->ngids; i++)
		cfg.gid[i] = dev->gid[i].addr;
	cfg.ngids = (uint32_t)dev->ngids;
	cfg.port_mtu = dev->active_mtu;
	/* A random first QP number, as a device that outlives processes would have: a program
	 * run twice on one address then does not hand its peer's stale packets the same QP
	 * numbers, and captures keep the runs apart. */
	uint32_t r = 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (uint32_t)getpid() * 2654435761u;
	cfg.first_qpn = 16 + r % (0xFFFFFFu - 15);
	if ((err = uroce_dev_new(&cfg, &p->eng))) {
		free(p);
		return uv_errno(err);
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->round_lock, NULL);
	*out = p;
	return 0;
}

int uv_port_open(struct uv_device *dev, struct uv_port **out)
{
	int err = 0;

	pthread_mutex_lock(&port_mutex);
	if (!the_port)
		err = port_create(dev, &the_port);
	if (!err) {
		the_port->refs++;
		*out = the_port;
	}
	pthread_mutex_unlock(&port_mutex);
	return err;
}

/* Writes the progress thread's doorbell: ends its sleep or its nap. */
static void ring(struct uv_port *p)
{
	uint64_t one = 1;

	if (write(p->doorbell, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only at 2^64 - 1 pending: the thread is awake */
	}
}

/* The last context is closing: nobody else uses the port. stop is relaxed: it publishes
 * nothing, the doorbell written after it wakes the thread that reads it, and pthread_join
 * orders what follows. */
static void port_stop(struct uv_port *p)
{
	if (!atomic_load_explicit(&p->running, memory_order_relaxed))
		return;
	atomic_store_explicit(&p->stop, true, memory_order_relaxed);
	ring(p);
	pthread_join(p->thread, NULL);
	atomic_store_explicit(&p->running, false, memory_order_relaxed);
}

void uv_port_close(struct uv_port *p)
{
	pthread_mutex_lock(&port_mutex);
	if (--p->refs) {
		pthread_mutex_unlock(&port_mutex);
		return;
	}
	the_port = NULL;
	pthread_mutex_unlock(&port_mutex);

	uv_port_flush(p);
	port_stop(p);
	if (p->io)
		uroce_io_close(p->io);
	if (p->doorbell >= 0)
		close(p->doorbell);
	uroce_dev_free(p->eng);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->round_lock);
	free(p->bufs);
	free(p);
}

/* ---- Deliveries ---- */

static void deliver_async(struct uv_port *p)
{
	struct uroce_async_event e;
	struct ibv_async_event ev;
	struct ibv_context *owner;
	struct uv_context *c;

	while (uroce_dev_get_async_event(p->eng, &e) == 1) {
		memset(&ev, 0, sizeof(ev));
		ev.event_type = (enum ibv_event_type)e.type;
		owner = NULL;
		switch (e.type) {
		case UROCE_EVENT_CQ_ERR: {
			struct ibv_cq *cq = uroce_cq_user(e.element.cq);
			ev.element.cq = cq;
			owner = cq ? cq->context : NULL;
			break;
		}
		case UROCE_EVENT_SRQ_LIMIT_REACHED: {
			struct ibv_srq *srq = uroce_srq_user(e.element.srq);
			ev.element.srq = srq;
			owner = srq ? srq->context : NULL;
			break;
		}
		case UROCE_EVENT_PORT_ACTIVE:
		case UROCE_EVENT_PORT_ERR:
			ev.element.port_num = e.element.port_num;
			break;
		default: {
			struct ibv_qp *qp = uroce_qp_user(e.element.qp);
			ev.element.qp = qp;
			owner = qp ? qp->context : NULL;
			break;
		}
		}
		for (c = p->contexts; c; c = c->next)
			if (!owner || owner == &c->vctx.context)
				uv_async_push(c, &ev);
	}
}

void uv_port_deliver(struct uv_port *p)
{
	struct uv_cq **pp = &p->armed, *cq;

	deliver_async(p);
	while ((cq = *pp)) {
		if (uroce_cq_pushed(cq->eng) != cq->armed_at) {
			*pp = cq->next_armed;
			cq->armed = false;
			uv_cq_fire(cq);
		} else {
			pp = &cq->next_armed;
		}
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
		ring(p);
}

void uv_port_unlock_kick(struct uv_port *p)
{
	uv_port_deliver(p);
	pthread_mutex_unlock(&p->lock);
	uv_port_posted(p);
}

/* ---- Rounds ---- */

struct uv_bufs {
	struct uroce_io_pkt rx[UV_BATCH], tx[UV_BATCH];
	uint8_t rxbuf[UV_BATCH][UV_RXCAP];
	uint8_t txbuf[UV_BATCH][UROCE_MAX_DATAGRAM];
};

static void send_all(struct uv_port *p, struct uroce_io_pkt *pkts, size_t n)
{
	size_t done = 0;
	int r;

	while (done < n) {
		r = uroce_io_send(p->io, pkts + done, n - done);
		if (r <= 0) /* an error of the first packet: it is lost, as on a wire */
			r = 1;
		done += (size_t)r;
	}
}

/* Makes visible the completions whose answers have left (the ACK rule, docs/verbs.md) and
 * delivers their events and the asynchronous ones. The port lock and round_lock held, and
 * every packet written in this round sent. */
static void publish(struct uv_port *p)
{
	uroce_dev_publish(p->eng);
	uv_port_deliver(p);
}

/* The end of a write that made n packets (round_lock held, the port lock not): sends them,
 * then publishes. */
static void send_and_publish(struct uv_port *p, size_t n)
{
	send_all(p, p->bufs->tx, n);
	pthread_mutex_lock(&p->lock);
	publish(p);
	pthread_mutex_unlock(&p->lock);
}

/* Writes what the engine has to send now and sends it (round_lock held), requests first:
 * in one sendmmsg the kernel delivers each datagram before it takes the next, so an
 * application's request is not kept waiting behind the ACKs written with it. Those ACKs
 * answer packets whose completions nobody has seen yet: the ones seen were answered before
 * they became visible. */
static size_t write_and_send(struct uv_port *p, uint64_t now)
{
	struct uroce_txbatch tx = {.pkts = p->bufs->tx, .max = UV_BATCH / 2};

	pthread_mutex_lock(&p->lock);
	uroce_dev_write_requests(p->eng, &tx, now);
	tx.max = UV_BATCH;
	uroce_dev_write(p->eng, &tx, now);
	p->deadline = uroce_dev_next_deadline(p->eng);
	if (!tx.n)
		publish(p);
	pthread_mutex_unlock(&p->lock);
	if (tx.n)
		send_and_publish(p, tx.n);
	return tx.n;
}

/* Sends what was posted since the last time (round_lock held); returns the number of
 * packets sent. */
static size_t send_pending(struct uv_port *p)
{
	if (!atomic_exchange_explicit(&p->posted, false, memory_order_acquire))
		return 0;
	return write_and_send(p, uroce_udp_now());
}

/* One round, round_lock held: send what was posted since the last round, receive a batch,
 * run the engine on it under the port lock (fire due timers, write what is to be sent), send,
 * then publish the completions (the ACK rule). Whoever holds round_lock may run it: the
 * progress thread, or an application thread polling an empty CQ, which saves the hand-over
 * between threads when the application spins anyway. One round at a time keeps packets in
 * arrival order, and the port lock is not held across the system calls, so posting never
 * waits for them. Posted work leaves before the receive call, so that it does not wait on
 * it. Returns the number of packets moved. */
static size_t port_round(struct uv_port *p)
{
	struct uv_bufs *b = p->bufs;
	struct uroce_txbatch tx = {.pkts = b->tx, .max = UV_BATCH};
	size_t moved = send_pending(p);
	uint64_t now;
	int i, n;

	for (i = 0; i < UV_BATCH; i++) {
		b->rx[i].data = b->rxbuf[i];
		b->rx[i].cap = UV_RXCAP;
	}
	n = uroce_io_recv(p->io, b->rx, UV_BATCH);
	if (n < 0)
		n = 0;
	now = uroce_udp_now();
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < n; i++)
		uroce_dev_recv(p->eng, &b->rx[i], now);
	if (now >= p->deadline)
		uroce_dev_on_timer(p->eng, now);
	uroce_dev_write(p->eng, &tx, now);
	p->deadline = uroce_dev_next_deadline(p->eng);
	if (!tx.n)
		publish(p);
	pthread_mutex_unlock(&p->lock);
	if (tx.n)
		send_and_publish(p, tx.n);
	return moved + (size_t)n + tx.n;
}

void uv_port_flush(struct uv_port *p)
{
	if (!atomic_load_explicit(&p->running, memory_order_acquire))
		return;
	pthread_mutex_lock(&p->round_lock);
	if (!send_pending(p)) {
		/* what a flush completed, which writes nothing */
		pthread_mutex_lock(&p->lock);
		publish(p);
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&p->round_lock);
}

bool uv_port_poll(struct uv_port *p)
{
	size_t moved;

	if (!atomic_load_explicit(&p->running, memory_order_acquire) ||
	    pthread_mutex_trylock(&p->round_lock))
		return false;
	moved = port_round(p);
	atomic_store_explicit(&p->app_polled, uroce_udp_now(), memory_order_relaxed);
	pthread_mutex_unlock(&p->round_lock);
	return moved > 0;
}

/* exit() and a return from main run the destructors while the progress thread still runs,
 * and end the process right after: what the engine owes the network and has not written yet
 * (the ACK of an RDMA WRITE whose data the application saw land in memory, work posted just
 * before) is written and sent now, as a NIC would send it whatever the process does. What
 * completions show needs nothing here (the ACK rule: their answers left before they became
 * visible), which also covers _exit and fatal signals, where nothing runs. A round in
 * progress on another thread is waited for, briefly: a signal handler that calls exit may
 * have interrupted its holder. */
__attribute__((destructor)) static void port_at_exit(void)
{
	struct timespec until;
	struct uv_port *p;

	if (pthread_mutex_trylock(&port_mutex))
		return;
	p = the_port;
	clock_gettime(CLOCK_REALTIME, &until); /* the clock of pthread_mutex_timedlock */
	until.tv_nsec += UV_EXIT_WAIT_NS;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (p && atomic_load_explicit(&p->running, memory_order_acquire) &&
	    !pthread_mutex_timedlock(&p->round_lock, &until)) {
		for (int i = 0; i < 16 && write_and_send(p, uroce_udp_now()); i++)
			;
		pthread_mutex_unlock(&p->round_lock);
	}
	pthread_mutex_unlock(&port_mutex);
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
		ring(p);
}

static void *progress_main(void *arg)
{
	struct uv_port *p = arg;
	const uint64_t spin_ns = (uint64_t)p->spin_us * 1000u;
	uint64_t now = uroce_udp_now(), last_busy = now, deadline, io_deadline;
	uint64_t nap_ns = UV_NAP_MIN_NS;
	size_t moved;

	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) { /* see port_stop */
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
		moved = port_round(p);
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

static int resolve_neighbour(void *arg, const struct uroce_io_addr *dst, uint8_t mac[6])
{
	const struct uv_device *dev = arg;

	return uroce_netif_neighbour(dev->xdp_ifindex, dst, mac);
}

/* The AF_XDP backend on UROCE_XDP's interface (docs/udp.md "AF_XDP"). */
static int open_xdp(struct uv_port *p)
{
	struct uv_device *dev = p->dev;
	struct uroce_xdp_cfg cfg = {
		.ifname = dev->xdp_if,
		.queue = dev->xdp_queue,
		.resolve = resolve_neighbour,
		.resolve_arg = dev,
		.impair = p->impaired ? &p->impair : NULL,
	};
	int err;

	if (!(err = uroce_xdp_open(&cfg, &p->io))) {
		uint32_t queues = uroce_xdp_rx_queues(p->io);
		if (queues > 1)
			fprintf(stderr, "uroce: UROCE_XDP: %s has %u receive queues; only the flows "
				"it steers to queue %u reach this process\n", cfg.ifname, queues,
				cfg.queue);
		return 0;
	}
	fprintf(stderr, "uroce: UROCE_XDP: cannot use queue %u of %s: %s (%s)%s\n", cfg.queue,
		cfg.ifname, uroce_strerror(err), strerror(errno),
		err == UROCE_EPERM ? "; AF_XDP needs CAP_NET_ADMIN and CAP_BPF"
		: err == UROCE_EBUSY ? "; another XDP program or socket has it"
		: err == UROCE_EINVAL ? "; it must be Ethernet with an MTU of at most 3826" : "");
	p->io = NULL;
	return err == UROCE_EPERM ? EPERM : err == UROCE_EBUSY ? EBUSY : ENODEV;
}

/* The variable an MPI launcher sets in each rank's environment (Open MPI, Hydra, PMIx,
 * srun), or NULL: ranks of one host on one address need tools/uroce-rank. */
static const char *mpi_rank_variable(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
					   "SLURM_PROCID"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return vars[i];
	return NULL;
}

/* Says why the UDP backend did not open so that the user can act: on which address, and
 * for a taken <address>:4791 (another process, often another uroce program on the same
 * address, has bound it) how to give this process another one (uroce.7 "UROCE_IP"). `which`
 * is the address that failed, or ngids when the failure came before any. */
static void udp_open_failed(const struct uv_device *dev, int err, int sys, size_t which)
{
	char at[4 * INET6_ADDRSTRLEN]; /* the address, or as many of the device's as fit */
	char ip[INET6_ADDRSTRLEN];
	size_t n = 0;

	at[0] = '\0';
	for (size_t i = which < dev->ngids ? which : 0; i < dev->ngids; i++) {
		const struct uroce_io_addr *a = &dev->gid[i].addr;
		inet_ntop(a->ipv6 ? AF_INET6 : AF_INET, a->ip, ip, sizeof(ip));
		if (n + strlen(ip) + 6 >= sizeof(at)) {
			snprintf(at + n, sizeof(at) - n, ", ...");
			break;
		}
		n += (size_t)snprintf(at + n, sizeof(at) - n, "%s%s", n ? ", " : "", ip);
		if (which < dev->ngids)
			break; /* the one that failed */
	}
	if (err != UROCE_EBUSY) {
		fprintf(stderr, "uroce: cannot open UDP port 4791 on %s: %s%s%s%s\n", at,
			uroce_strerror(err), sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
		return;
	}
	const struct uroce_io_addr *a = &dev->gid[which < dev->ngids ? which : 0].addr;
	if (!a->ipv6 && a->ip[0] == 127) {
		/* Every 127.x.y.z reaches lo: the next one is as good as any. */
		snprintf(ip, sizeof(ip), "127.%u.%u.%u", a->ip[1], a->ip[2], a->ip[3] % 254u + 1);
		fprintf(stderr, "uroce: UDP port 4791 of %s is taken (another process, perhaps "
			"another uroce program, has bound it): give this process another address "
			"with UROCE_IP, e.g. UROCE_IP=%s (any 127.x.y.z is on the loopback "
			"interface)\n", at, ip);
	} else {
		fprintf(stderr, "uroce: UDP port 4791 of %s is taken (another process, perhaps "
			"another uroce program, has bound it): give this process another address of "
			"this host with UROCE_IP=<address>\n", at);
	}
	const char *rank = mpi_rank_variable();
	if (rank)
		fprintf(stderr, "uroce: this process is an MPI rank (%s is set): run each rank "
			"under tools/uroce-rank, which gives it an address of its own from "
			"UROCE_RANK_IPS (uroce(7) \"UCX, OPEN MPI AND MPICH\")\n", rank);
}

static int open_udp(struct uv_port *p)
{
	struct uroce_io_addr addrs[UV_MAX_GIDS];
	struct uroce_udp_cfg cfg;
	size_t failed = p->dev->ngids;
	int err;

	for (size_t i = 0; i < p->dev->ngids; i++)
		addrs[i] = p->dev->gid[i].addr;
	memset(&cfg, 0, sizeof(cfg));
	cfg.addrs = addrs;
	cfg.naddrs = p->dev->ngids;
	cfg.failed_addr = &failed;
	cfg.impair = p->impaired ? &p->impair : NULL;
	cfg.no_gso = !env_u32("UROCE_GSO", 1); /* docs/udp.md "GSO" */
	errno = 0;
	if ((err = uroce_udp_open(&cfg, &p->io))) {
		udp_open_failed(p->dev, err, errno, failed);
		p->io = NULL;
		return err == UROCE_EBUSY ? EADDRINUSE : uv_errno(err);
	}
	return 0;
}

int uv_port_start(struct uv_port *p)
{
	sigset_t all, old;
	size_t i;
	int err;

	/* Relaxed: its writers hold the port lock, as this caller does. */
	if (atomic_load_explicit(&p->running, memory_order_relaxed))
		return 0;
	if (!p->bufs && !(p->bufs = malloc(sizeof(*p->bufs))))
		return ENOMEM;
	for (i = 0; i < UV_BATCH; i++) {
		p->bufs->tx[i].data = p->bufs->txbuf[i];
		p->bufs->tx[i].cap = UROCE_MAX_DATAGRAM;
	}
	p->deadline = UROCE_NEVER;
	if ((err = p->dev->xdp ? open_xdp(p) : open_udp(p)))
		return err;
	if ((p->doorbell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		goto fail;

	/* Signals are the application's: perftest's SIGALRM must not land in this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->thread, NULL, progress_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		errno = err;
		goto fail;
	}
	/* Release: pollers that see it running (acquire) use the backend and buffers set up
	 * above without the port lock (uv_port_poll, uv_port_flush, port_at_exit). */
	atomic_store_explicit(&p->running, true, memory_order_release);
	return 0;
fail:
	err = errno ? errno : EAGAIN;
	if (p->doorbell >= 0)
		close(p->doorbell);
	p->doorbell = -1;
	uroce_io_close(p->io);
	p->io = NULL;
	return err;
}

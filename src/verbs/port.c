/* SPDX-License-Identifier: MIT */
/* The port: the engine and the UDP (or AF_XDP) backend that carries its packets (design.md
 * "Runtime model"): creating it, opening the backend, the rounds that run the engine on a
 * batch, flushing, publishing completions (the ACK rule) and delivering events, and what
 * exit owes the network. The thread that runs the rounds is thread.c's.
 *
 * A round receives a batch, feeds it to the engine, fires due timers, writes what the engine
 * has to send and delivers completion and asynchronous events. Whoever holds round_lock runs
 * it: the progress thread, or an application thread polling an empty CQ.
 *
 * Memory orders: every atomic access spells its order, with the reason where it is not the
 * plain acquire/release of a flag that publishes data (docs/verbs.md "Threads and locks").
 *
 * The passive side of RDMA WRITE, READ and atomics needs nothing from the application: the
 * port answers on its own, as a NIC would. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/echo.h"
#include "common/error.h"
#include "io/udp.h"
#include "io/packet.h"
#include "io/xdp.h"
#include "priv.h"

#define UV_RXCAP (UROCE_MAX_DATAGRAM + 64)
#define UV_SPIN_US_DEFAULT 0
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
	/* Congestion control (docs/congestion.md): the algorithm and its parameters */
	const char *cc = getenv("UROCE_CC");
	if (cc && *cc && uroce_cc_parse(cc, &cfg.cc, msg, sizeof(msg))) {
		fprintf(stderr, "uroce: UROCE_CC: %s\n", msg);
		free(p);
		return EINVAL;
	}
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
	/* Sharing the addresses with the user's other processes: this one numbers its QPs in
	 * its slot, whose number the port's steering reads in every BTH (docs/multiprocess.md). */
	char dir[PATH_MAX];
	if (dev->backend == UV_BACKEND_UDP && env_u32("UROCE_SHARE", 1) && !uv_runtime_dir(dir, sizeof(dir)) &&
	    !uroce_share_open(dir, &p->share)) {
		cfg.qpn_lo = uroce_share_slot(p->share) << 16;
		cfg.qpn_hi = cfg.qpn_lo | 0xFFFF;
		cfg.first_qpn = cfg.qpn_lo + r % 0x10000;
	}
	if ((err = uroce_dev_new(&cfg, &p->eng))) {
		if (err == UROCE_EINVAL && cc && *cc)
			fprintf(stderr, "uroce: UROCE_CC: min_rate above line_rate\n");
		uroce_share_close(p->share);
		free(p);
		return uv_errno(err);
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->round_lock, NULL);
	*out = p;
	return 0;
}

/* fork gives the child a copy of the parent's port, without its progress thread: its engine,
 * its sockets, its slot among the processes sharing the addresses, its pages. All of that is
 * still the parent's, so the child's copy is left alone (closing an inherited context or the
 * child's exit touches none of it: no packet of the parent's sent twice, no page removed, no
 * slot given up), and a device the child opens starts a port of its own, as a process of its
 * own would (docs/verbs.md "fork"). As with a NIC's ibv_fork_init, the child uses the devices
 * it opens itself, not the parent's resources. */
static void port_after_fork(void)
{
	pthread_mutex_init(&port_mutex, NULL);
	if (the_port)
		the_port->inherited = true;
	the_port = NULL;
}

__attribute__((constructor)) static void port_fork_init(void)
{
	pthread_atfork(NULL, NULL, port_after_fork);
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

void uv_port_close(struct uv_port *p)
{
	pthread_mutex_lock(&port_mutex);
	/* the parent's port, inherited through fork, is left as it is (port_after_fork) */
	if (--p->refs || p->inherited) {
		pthread_mutex_unlock(&port_mutex);
		return;
	}
	the_port = NULL;
	pthread_mutex_unlock(&port_mutex);

	uv_port_flush(p);
	uv_thread_stop(p);
	uv_stat_close(p, false);
	uv_gsi_close(p);
	if (p->io)
		uroce_io_close(p->io);
	uroce_share_close(p->share); /* after the io, which leaves its groups */
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

void uv_port_unlock_kick(struct uv_port *p)
{
	uv_port_deliver(p);
	uv_stat_changed(p);
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
	/* MADs QP1 just received: the next round hands them to the service and sends its
	 * answers, the thread staying awake for it (the ACK rule holds for QP1 too). */
	if (uv_gsi_pending(p))
		uv_port_posted(p);
}

/* When the next round must run at the latest: the engine's timers and the MAD service's
 * (the port lock held). */
static uint64_t next_deadline(struct uv_port *p)
{
	uint64_t d = uroce_dev_next_deadline(p->eng), s = uv_gsi_deadline(p),
		 st = uv_stat_deadline(p);

	if (s < d)
		d = s;
	return st < d ? st : d;
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
	uv_gsi_round(p, now);
	uroce_dev_write_requests(p->eng, &tx, now);
	tx.max = UV_BATCH;
	uroce_dev_write(p->eng, &tx, now);
	uv_stat_round(p, now, tx.n > 0);
	p->deadline = next_deadline(p);
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
size_t uv_port_round(struct uv_port *p)
{
	struct uv_bufs *b = p->bufs;
	struct uroce_txbatch tx = {.pkts = b->tx, .max = UV_BATCH};
	size_t moved = send_pending(p), mads;
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
	/* p->deadline may be the MAD service's: the engine's own timers are asked (cheap while
	 * nothing moved them) before its scan runs. */
	if (now >= p->deadline && now >= uroce_dev_next_deadline(p->eng))
		uroce_dev_on_timer(p->eng, now);
	mads = uv_gsi_round(p, now);
	uroce_dev_write(p->eng, &tx, now);
	uv_stat_round(p, now, moved + (size_t)n + mads + tx.n > 0);
	p->deadline = next_deadline(p);
	if (!tx.n)
		publish(p);
	pthread_mutex_unlock(&p->lock);
	if (tx.n)
		send_and_publish(p, tx.n);
	return moved + (size_t)n + mads + tx.n;
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
	moved = uv_port_round(p);
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
		/* timed as round_lock is: a signal handler may have interrupted its holder */
		if (!pthread_mutex_timedlock(&p->lock, &until)) {
			uv_stat_close(p, true);
			pthread_mutex_unlock(&p->lock);
		}
		pthread_mutex_unlock(&p->round_lock);
	}
	pthread_mutex_unlock(&port_mutex);
}

static int resolve_neighbour(void *arg, const struct uroce_io_addr *dst, uint8_t mac[6])
{
	const struct uv_device *dev = arg;

	return uroce_netif_neighbour(dev->raw_ifindex, dst, mac);
}

/* The AF_XDP backend on UROCE_XDP's interface (docs/udp.md "AF_XDP"). */
static int open_xdp(struct uv_port *p)
{
	struct uv_device *dev = p->dev;
	struct uroce_xdp_cfg cfg = {
		.ifname = dev->raw_if,
		.queue = dev->raw_queue,
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
		: err == UROCE_EBUSY ? "; another XDP program or socket has it (AF_XDP binds a "
				       "queue to one process: processes that share an address use the "
				       "UDP backend, without UROCE_XDP; docs/multiprocess.md)"
		: err == UROCE_EINVAL ? "; it must be Ethernet with an MTU of at most 3826" : "");
	p->io = NULL;
	return err == UROCE_EPERM ? EPERM : err == UROCE_EBUSY ? EBUSY : ENODEV;
}

/* The AF_PACKET backend on UROCE_PACKET's interface (docs/backends.md). */
static int open_packet(struct uv_port *p)
{
	struct uv_device *dev = p->dev;
	struct uroce_packet_cfg cfg = {
		.ifname = dev->raw_if,
		.resolve = resolve_neighbour,
		.resolve_arg = dev,
		.impair = p->impaired ? &p->impair : NULL,
	};
	int err;

	if (!(err = uroce_packet_open(&cfg, &p->io)))
		return 0;
	fprintf(stderr, "uroce: UROCE_PACKET: cannot use %s: %s (%s)%s\n", cfg.ifname,
		uroce_strerror(err), strerror(errno),
		err == UROCE_EPERM ? "; a packet socket needs CAP_NET_RAW (the UDP backend, "
				     "without UROCE_PACKET, needs no privilege)"
		: err == UROCE_EINVAL ? "; it must be Ethernet with an MTU of at most 9000" : "");
	p->io = NULL;
	return err == UROCE_EPERM ? EPERM : ENODEV;
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
 * for a taken <address>:4791 how to give this process another one (uroce.7 "UROCE_IP").
 * uroce's processes share the port (docs/multiprocess.md): it is taken only by a socket
 * outside their group, another program's or another user's, or when one side does not share
 * (UROCE_SHARE=0). `which` is the address that failed, or ngids when the failure came
 * before any. */
static void udp_open_failed(const struct uv_port *p, int err, int sys, size_t which)
{
	const struct uv_device *dev = p->dev;
	const char *who = p->share ? "a socket uroce cannot share it with (another program's, "
				     "another user's, or a uroce program run with UROCE_SHARE=0)"
				   : "another process (this one does not share it: UROCE_SHARE=0, "
				     "or no runtime directory)";
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
		fprintf(stderr, "uroce: UDP port 4791 of %s is taken by %s: give this process "
			"another address with UROCE_IP, e.g. UROCE_IP=%s (any 127.x.y.z is on the "
			"loopback interface)\n", at, who, ip);
	} else {
		fprintf(stderr, "uroce: UDP port 4791 of %s is taken by %s: give this process "
			"another address of this host with UROCE_IP=<address>\n", at, who);
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
	cfg.share = p->share;
	errno = 0;
	if ((err = uroce_udp_open(&cfg, &p->io))) {
		udp_open_failed(p, err, errno, failed);
		p->io = NULL;
		return err == UROCE_EBUSY ? EADDRINUSE : uv_errno(err);
	}
	return 0;
}

int uv_port_start(struct uv_port *p)
{
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
	static int (*const open_backend[])(struct uv_port *) = {
		[UV_BACKEND_UDP] = open_udp,
		[UV_BACKEND_XDP] = open_xdp,
		[UV_BACKEND_PACKET] = open_packet,
	};
	if ((err = open_backend[p->dev->backend](p)))
		return err;
	uv_stat_open(p);
	if ((err = uv_thread_start(p))) {
		uv_stat_close(p, false);
		uroce_io_close(p->io);
		p->io = NULL;
		return err;
	}
	/* Release: pollers that see it running (acquire) use the backend and buffers set up
	 * above without the port lock (uv_port_poll, uv_port_flush, port_at_exit). */
	atomic_store_explicit(&p->running, true, memory_order_release);
	return 0;
}

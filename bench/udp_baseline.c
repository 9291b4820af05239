/* SPDX-License-Identifier: MIT */
/* The raw UDP baselines that bench_verbs.sh sets uroce's perftest figures against: what the
 * kernel's UDP path between the same two addresses gives with no RDMA stack on top.
 *
 *   udp_baseline bw [-l BYTES] [-s SECONDS] [-b BATCH]
 *       a sender thread bound to --src pushes datagrams of BYTES (4096) with sendmmsg, BATCH
 *       (64) per call, to a receiver thread on --dst that takes them with recvmmsg,
 *       busy-polling (--block: blocking); the receiver reports what arrived: Gbit/s of UDP
 *       payload and datagrams/s. With -l 64 it is the small-message rate.
 *   udp_baseline pingpong [-l BYTES] [-n ITERS] [--acked]
 *       BYTES (64) bounce between two threads that both busy-poll (recv with MSG_DONTWAIT),
 *       as ib_send_lat's two sides poll their completion queues; reports the round trip's
 *       median and 99th percentile and half of them, the one-way time ib_send_lat prints.
 *       --acked: each message goes with a 20-byte datagram before it, in one sendmmsg, and
 *       a side answers once it has both. That is what an RC SEND ping-pong puts on the wire
 *       when each side waits for the ACK of its last message before it looks at the next
 *       one, as ib_send_lat does (every send signaled): the ACK of the peer's message and
 *       the own message per direction. Nothing else of RDMA is done: it is the floor of
 *       RC over UDP sockets for that test.
 *
 * Common: --src ADDR (127.0.0.1) --dst ADDR (127.0.0.2) --port N (18600); --src-netns NAME and
 * --dst-netns NAME open that side's socket in a named network namespace (ip netns; root), for
 * the baseline on the veth pair of uroce's AF_XDP figures. The last line is
 * "result key=value ..." for scripts. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 1024
#define MAX_LEN 65507 /* the largest UDP payload over IPv4 */
#define SOCKBUF (8 << 20)

struct cfg {
	struct sockaddr_in src, dst;
	size_t len;
	double seconds;
	unsigned batch;
	long iters;
	bool block;     /* bw: the receiver blocks instead of polling */
	bool acked;     /* pingpong: an ACK-sized datagram goes with each message */
	const char *src_netns, *dst_netns; /* NULL: the process's own */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* A UDP socket bound to addr, connected to peer when it is not NULL. Large buffers: the
 * root-only FORCE variants pass net.core.rmem_max, as a benchmark host's tuning would. */
/* Moves the calling thread into network namespace name (NULL: stays); a socket keeps the
 * namespace it was made in, whichever thread uses it later. */
static void enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!name)
		return;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

static int udp_socket(const struct sockaddr_in *addr, const struct sockaddr_in *peer)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), v = SOCKBUF, one = 1;

	if (fd < 0)
		die("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)addr, sizeof(*addr)))
		die("bind");
	if (peer && connect(fd, (const struct sockaddr *)peer, sizeof(*peer)))
		die("connect");
	return fd;
}

/* ---- bw ---- */

struct bw_rx {
	const struct cfg *c;
	int fd;
	_Atomic bool stop;
	uint64_t bytes, dgrams;
	double first, last;
};

static void *bw_receiver(void *arg)
{
	struct bw_rx *r = arg;
	unsigned batch = r->c->batch;
	struct mmsghdr *m = calloc(batch, sizeof(*m));
	struct iovec *iov = calloc(batch, sizeof(*iov));
	uint8_t *buf = malloc((size_t)batch * MAX_LEN);
	struct timeval tv = {.tv_usec = 100000};
	double idle_since = 0;

	if (!m || !iov || !buf)
		die("malloc");
	/* A timeout, so that the end of the sender's stream is noticed. */
	setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (unsigned i = 0; i < batch; i++) {
		iov[i] = (struct iovec){buf + (size_t)i * MAX_LEN, MAX_LEN};
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	for (;;) {
		/* Busy-polling by default, as uroce's progress thread does: the stronger baseline
		 * (10-15 % more than a blocking receive on the project's VMs). */
		int flags = r->c->block ? MSG_WAITFORONE : MSG_DONTWAIT;
		int n = recvmmsg(r->fd, m, batch, flags, NULL);
		double t = now_s();
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				break;
			if (!atomic_load(&r->stop))
				continue;
			if (!idle_since)
				idle_since = t;
			if (r->c->block || t - idle_since > 0.1)
				break;
			continue;
		}
		idle_since = 0;
		if (!r->dgrams)
			r->first = t;
		r->last = t;
		for (int i = 0; i < n; i++)
			r->bytes += m[i].msg_len;
		r->dgrams += (uint64_t)n;
	}
	free(m);
	free(iov);
	free(buf);
	return NULL;
}

static int run_bw(const struct cfg *c)
{
	struct bw_rx rx = {.c = c};
	struct mmsghdr *m = calloc(c->batch, sizeof(*m));
	struct iovec iov;
	uint8_t *buf = calloc(1, c->len);
	uint64_t sent = 0, calls = 0;
	pthread_t th;
	double t0, t;
	int fd;

	if (!m || !buf)
		die("malloc");
	enter_netns(c->dst_netns);
	rx.fd = udp_socket(&c->dst, NULL);
	enter_netns(c->src_netns);
	fd = udp_socket(&c->src, &c->dst);
	iov = (struct iovec){buf, c->len};
	for (unsigned i = 0; i < c->batch; i++) {
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	if (pthread_create(&th, NULL, bw_receiver, &rx))
		die("pthread_create");
	t0 = now_s();
	do {
		/* The deadline is read once per call: a call sends a batch in microseconds. */
		int n = sendmmsg(fd, m, c->batch, 0);
		if (n < 0) {
			/* A full buffer or a receiver not yet bound: try again. */
			if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR &&
			    errno != ECONNREFUSED)
				die("sendmmsg");
			continue;
		}
		sent += (uint64_t)n;
		calls++;
	} while ((t = now_s()) - t0 < c->seconds);
	atomic_store(&rx.stop, true);
	pthread_join(th, NULL);
	close(fd);
	close(rx.fd);

	double span = rx.last - rx.first, gbps = 0, pps = 0;
	if (span > 0 && rx.dgrams > 1) {
		/* The first batch's datagrams count as the start: rates from the rest. */
		gbps = (double)rx.bytes * 8 / span / 1e9;
		pps = (double)rx.dgrams / span;
	}
	printf("udp bw: %zu B datagrams, sendmmsg/recvmmsg batches of %u, %s receiver, %s -> ",
	       c->len, c->batch, c->block ? "blocking" : "polling", inet_ntoa(c->src.sin_addr));
	printf("%s, %.2f s\n", inet_ntoa(c->dst.sin_addr), t - t0);
	printf("  sent     %" PRIu64 " datagrams in %" PRIu64 " calls (%.0f/s)\n", sent, calls,
	       (double)sent / (t - t0));
	printf("  received %" PRIu64 " datagrams (%.1f %% of those sent): %.2f Gbit/s, %.0f "
	       "datagrams/s\n",
	       rx.dgrams, sent ? 100.0 * (double)rx.dgrams / (double)sent : 0.0, gbps, pps);
	printf("result gbps=%.3f pps=%.0f sent_pps=%.0f\n", gbps, pps, (double)sent / (t - t0));
	free(m);
	free(buf);
	return rx.dgrams ? 0 : 1;
}

/* ---- pingpong ---- */

#define ACK_LEN 20 /* a RoCEv2 ACK's UDP payload: BTH, AETH, ICRC */

struct pp_srv {
	const struct cfg *c;
	int fd;
	_Atomic bool stop;
};

/* Sends a message of len bytes, after an ACK-sized datagram when acked. */
static int pp_send(int fd, uint8_t *msg, size_t len, bool acked)
{
	static uint8_t ack[ACK_LEN];
	struct iovec iov[2] = {{ack, sizeof(ack)}, {msg, len}};
	struct mmsghdr m[2] = {{.msg_hdr = {.msg_iov = &iov[0], .msg_iovlen = 1}},
			       {.msg_hdr = {.msg_iov = &iov[1], .msg_iovlen = 1}}};

	if (!acked)
		return send(fd, msg, len, 0) < 0 ? -1 : 0;
	return sendmmsg(fd, m, 2, 0) == 2 ? 0 : -1;
}

/* Busy-polls for one message (and its ACK-sized datagram first when acked) until the
 * `until` time; returns the message's length, or -1 at the time limit. */
static ssize_t pp_recv(int fd, uint8_t *buf, size_t cap, bool acked, double until)
{
	ssize_t n;
	bool ack_seen = !acked;

	for (;;) {
		n = recv(fd, buf, cap, MSG_DONTWAIT);
		if (n == ACK_LEN && !ack_seen)
			ack_seen = true;
		else if (n >= 0 && ack_seen)
			return n;
		else if (n < 0 && now_s() > until)
			return -1;
	}
}

static void *pp_server(void *arg)
{
	struct pp_srv *s = arg;
	uint8_t buf[MAX_LEN];

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		ssize_t n = pp_recv(s->fd, buf, sizeof(buf), s->c->acked, now_s() + 0.1);
		if (n > 0 && pp_send(s->fd, buf, (size_t)n, s->c->acked) < 0 &&
		    errno != ECONNREFUSED)
			die("send");
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int run_pingpong(const struct cfg *c)
{
	struct pp_srv srv = {.c = c};
	const long warmup = c->iters / 10 + 10;
	double *rtt = calloc((size_t)c->iters, sizeof(*rtt));
	uint8_t *out = calloc(1, c->len), in[MAX_LEN];
	long lost = 0, k = 0;
	pthread_t th;
	int fd;

	if (!rtt || !out)
		die("malloc");
	enter_netns(c->dst_netns);
	srv.fd = udp_socket(&c->dst, &c->src);
	enter_netns(c->src_netns);
	fd = udp_socket(&c->src, &c->dst);
	if (pthread_create(&th, NULL, pp_server, &srv))
		die("pthread_create");
	for (long i = -warmup; i < c->iters; i++) {
		double t0 = now_s(), t;
		ssize_t n;
		memcpy(out, &i, sizeof(i) < c->len ? sizeof(i) : c->len);
		if (pp_send(fd, out, c->len, c->acked) < 0)
			die("send");
		/* A datagram lost on lo is rare: after a second, count it and go on. */
		n = pp_recv(fd, in, sizeof(in), c->acked, t0 + 1.0);
		t = now_s();
		if (n < 0) {
			lost++;
			continue;
		}
		if (i >= 0)
			rtt[k++] = t - t0;
	}
	atomic_store(&srv.stop, true);
	pthread_join(th, NULL);
	close(fd);
	close(srv.fd);
	if (!k) {
		fprintf(stderr, "udp pingpong: no answer\n");
		return 1;
	}
	qsort(rtt, (size_t)k, sizeof(*rtt), cmp_double);
	/* Nearest rank, as for every percentile in these benchmarks. */
	double p50 = rtt[((size_t)k + 1) / 2 - 1] * 1e6;
	double p99 = rtt[((size_t)k * 99 + 99) / 100 - 1] * 1e6;
	printf("udp pingpong: %zu B%s, %ld round trips (after %ld warm-up), both sides busy-poll\n",
	       c->len, c->acked ? " after a 20 B datagram each way" : "", k, warmup);
	printf("  round trip median %.2f us, p99 %.2f us, min %.2f us; one way (half) %.2f us, "
	       "%.2f us; %ld lost\n",
	       p50, p99, rtt[0] * 1e6, p50 / 2, p99 / 2, lost);
	printf("result rtt_p50_us=%.3f rtt_p99_us=%.3f oneway_p50_us=%.3f oneway_p99_us=%.3f\n",
	       p50, p99, p50 / 2, p99 / 2);
	free(rtt);
	free(out);
	return 0;
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fputs("Usage: udp_baseline bw [-l BYTES] [-s SECONDS] [-b BATCH] [--block] [common]\n"
	      "       udp_baseline pingpong [-l BYTES] [-n ITERS] [--acked] [common]\n"
	      "common: [--src ADDR] [--dst ADDR] [--port N] [--src-netns NAME] [--dst-netns NAME]\n",
	      f);
}

static void set_addr(struct sockaddr_in *a, const char *ip, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a->sin_addr) != 1) {
		fprintf(stderr, "udp_baseline: %s is not an IPv4 address\n", ip);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"len", required_argument, NULL, 'l'},   {"seconds", required_argument, NULL, 's'},
		{"batch", required_argument, NULL, 'b'}, {"iters", required_argument, NULL, 'n'},
		{"src", required_argument, NULL, 'S'},   {"dst", required_argument, NULL, 'D'},
		{"port", required_argument, NULL, 'p'},  {"block", no_argument, NULL, 'B'},
		{"acked", no_argument, NULL, 'A'},
		{"src-netns", required_argument, NULL, 'X'}, {"dst-netns", required_argument, NULL, 'Y'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *src = "127.0.0.1", *dst = "127.0.0.2", *mode;
	struct cfg c = {.seconds = 3, .batch = 64, .iters = 100000};
	long len = -1, port = 18600;
	int o;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "l:s:b:n:S:D:p:BAh", opts, NULL)) != -1) {
		switch (o) {
		case 'l': len = atol(optarg); break;
		case 's': c.seconds = atof(optarg); break;
		case 'b': c.batch = (unsigned)atoi(optarg); break;
		case 'n': c.iters = atol(optarg); break;
		case 'S': src = optarg; break;
		case 'D': dst = optarg; break;
		case 'p': port = atol(optarg); break;
		case 'B': c.block = true; break;
		case 'A': c.acked = true; break;
		case 'X': c.src_netns = optarg; break;
		case 'Y': c.dst_netns = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (len < 0)
		len = strcmp(mode, "bw") ? 64 : 4096;
	if (len < 1 || len > MAX_LEN || c.seconds <= 0 || c.batch < 1 || c.batch > MAX_BATCH ||
	    c.iters < 1 || port < 1 || port > 65534 || (c.acked && len == ACK_LEN)) {
		usage(stderr);
		return 2;
	}
	c.len = (size_t)len;
	/* The receiver's port; the sender takes the next one, so that a stale datagram from an
	 * earlier run cannot be taken for an answer. */
	set_addr(&c.dst, dst, (uint16_t)port);
	set_addr(&c.src, src, (uint16_t)(port + 1));
	if (!strcmp(mode, "bw"))
		return run_bw(&c);
	if (!strcmp(mode, "pingpong"))
		return run_pingpong(&c);
	usage(stderr);
	return 2;
}

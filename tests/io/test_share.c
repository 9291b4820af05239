/* SPDX-License-Identifier: MIT */
/* One address, many processes (io/share.h): member processes, each with its slot and a UDP
 * handle on the same address and port, receive exactly the datagrams whose BTH destination
 * QP carries their slot: steered by the group's program once the joins are done (nothing
 * forwarded), after a member's orderly exit (the program rewritten for the kernel's move of
 * the last socket; nothing lost while datagrams stream in during it), and after a kill -9 (the misrouted datagrams forwarded to their owners,
 * a round of probes run, the dead slot's datagrams delivered to nobody). QP1's MADs go to
 * the member whose CM is attached, a REQ to the listener of its Service ID, an answer to the
 * member whose prefix its Remote Comm ID carries.
 *
 * Each run binds 127.X.Y.1 (X.Y from the pid) and a port derived from the pid, and keeps its
 * slots and group pages in a directory of its own. Waiting is poll() with generous timeouts;
 * nothing asserts on elapsed time. */
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "io/share.h"
#include "io/udp.h"
#include "wire/build.h"
#include "wire/bytes.h"

#define MEMBERS 4
#define PER_MEMBER 200   /* datagrams sent to each member per phase */
#define WAIT_MS 10000    /* only reached when something is broken */
#define OP_DATA 0x04     /* RC SEND Only */
#define OP_END 0x0A      /* RC RDMA WRITE Only: "report once you have PSN datagrams (or in
			  * 5 s) and go on": a forwarded datagram may come after it */
#define OP_QUIT 0x0B     /* "report and exit" */
#define OP_CM_ON 0x0C    /* "attach your CM" */
#define OP_LISTEN 0x0D   /* "listen on the Service ID in the PSN" */
#define OP_UD 0x64       /* UD SEND Only: a MAD to QP1 */

static char dir[64];
static uint16_t port;
static struct uroce_io_addr addr = {.ipv6 = false};
static int tx_fd;

struct member {
	pid_t pid;
	int rd;        /* its reports */
	unsigned slot;
	unsigned long forwarded; /* what it had forwarded at its last report */
};

/* A member's report of one phase. */
struct report {
	unsigned slot;
	unsigned long got, wrong, mads;
	unsigned long forwarded, forwarded_in, no_owner, rounds;
};

static void child(int wr)
{
	struct uroce_share *s;
	struct uroce_io *io;
	uint8_t bufs[64][256];
	struct uroce_io_pkt pkts[64];
	struct report r = {0};
	uint64_t report_at = 0; /* an END came: report then, or once `want` have come */
	unsigned long want = 0;
	bool quit = false;

	if (uroce_share_open(dir, &s))
		_exit(2);
	struct uroce_udp_cfg cfg = {.addrs = &addr, .naddrs = 1, .port = port, .share = s,
				    .no_ip_id_solve = true};
	if (uroce_udp_open(&cfg, &io))
		_exit(3);
	r.slot = uroce_share_slot(s);
	if (write(wr, &r, sizeof(r)) != sizeof(r))
		_exit(4);
	for (;;) {
		struct pollfd pfd = {.fd = uroce_io_fd(io), .events = POLLIN};
		uint64_t due = uroce_io_next_deadline(io), now = uroce_udp_now();
		int ms = due == UINT64_MAX ? 1000 : due <= now ? 0 : (int)((due - now) / 1000000 + 1);

		(void)poll(&pfd, 1, ms);
		for (int i = 0; i < 64; i++)
			pkts[i] = (struct uroce_io_pkt){.data = bufs[i], .cap = sizeof(bufs[i])};
		int n = uroce_io_recv(io, pkts, 64);
		for (int i = 0; i < n; i++) {
			const uint8_t *bth = pkts[i].data + 28; /* IPv4 + UDP */
			unsigned owner = bth[5];
			uint32_t psn = get_be32(bth + 8) & 0xFFFFFF;

			if (owner == 0) {
				r.mads++;
				continue;
			}
			if (owner != r.slot) {
				r.wrong++;
				continue;
			}
			switch (bth[0]) {
			case OP_DATA:
				r.got++;
				break;
			case OP_CM_ON:
				uroce_udp_share_cm(io, true);
				break;
			case OP_LISTEN:
				(void)uroce_udp_share_listen(io, psn, true);
				break;
			case OP_END:
			case OP_QUIT:
				report_at = uroce_udp_now() + 5000000000ull;
				want = psn;
				quit = bth[0] == OP_QUIT;
				break;
			}
		}
		if (report_at && (r.got >= want || uroce_udp_now() >= report_at)) {
			const union uroce_udp_counters *c = uroce_udp_counters(io);
			r.forwarded = c->share_forwarded;
			r.forwarded_in = c->share_received_forwarded;
			r.no_owner = c->share_no_owner;
			r.rounds = c->share_rounds;
			if (write(wr, &r, sizeof(r)) != sizeof(r))
				_exit(5);
			if (quit) {
				uroce_io_close(io);
				uroce_share_close(s);
				_exit(0);
			}
			r.got = r.wrong = r.mads = 0;
			report_at = 0;
		}
	}
}

static void start(struct member *m)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	m->pid = fork();
	assert_true(m->pid >= 0);
	if (!m->pid) {
		close(p[0]);
		/* a failed assertion ends the test: its members end with it */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		child(p[1]);
	}
	close(p[1]);
	m->rd = p[0];
	struct report r;
	struct pollfd pfd = {.fd = m->rd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	assert_int_equal(read(m->rd, &r, sizeof(r)), sizeof(r));
	m->slot = r.slot;
	m->forwarded = 0;
	assert_true(m->slot >= UROCE_SHARE_SLOT_FIRST && m->slot <= UROCE_SHARE_SLOT_LAST);
}

/* A datagram with a BTH (opcode, destination QP, PSN), 4 payload bytes and an ICRC field,
 * sent to the shared address from 127.X.Y.2. */
static void send_bth(uint8_t op, uint32_t qpn, uint32_t psn, const uint8_t *extra, size_t n)
{
	uint8_t b[256] = {0};
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};

	b[0] = op;
	put_be16(b + 2, 0xFFFF);
	put_be32(b + 4, qpn & 0xFFFFFF);
	put_be32(b + 8, psn & 0xFFFFFF);
	if (extra)
		memcpy(b + 12, extra, n);
	memcpy(&to.sin_addr, addr.ip, 4);
	size_t len = 12 + (extra ? n : 4) + 4;
	assert_int_equal(sendto(tx_fd, b, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

static void send_data(unsigned slot, unsigned count)
{
	for (unsigned i = 0; i < count; i++) {
		send_bth(OP_DATA, slot << 16 | 0x123, i, NULL, 0);
		if (i % 32 == 31)
			usleep(1000); /* within the receive buffers */
	}
}

/* The member's report, once it has `want` datagrams (or 5 s after asking). */
static struct report collect_n(struct member *m, uint8_t op, unsigned want)
{
	struct report r;
	struct pollfd pfd = {.fd = m->rd, .events = POLLIN};

	send_bth(op, m->slot << 16 | 0x123, want, NULL, 0);
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	assert_int_equal(read(m->rd, &r, sizeof(r)), sizeof(r));
	assert_int_equal(r.slot, m->slot);
	return r;
}

static struct report collect(struct member *m, uint8_t op)
{
	return collect_n(m, op, 0);
}

static void reap(struct member *m)
{
	int st;

	assert_int_equal(waitpid(m->pid, &st, 0), m->pid);
	close(m->rd);
}

static int setup(void **state)
{
	(void)state;
	pid_t pid = getpid();
	snprintf(dir, sizeof(dir), "/tmp/uroce-test-share-%d", (int)pid);
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	port = (uint16_t)(20000 + pid % 20000);
	addr.ip[0] = 127;
	addr.ip[1] = (uint8_t)(pid >> 8);
	addr.ip[2] = (uint8_t)pid;
	addr.ip[3] = 1;
	tx_fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in from = {.sin_family = AF_INET};
	memcpy(&from.sin_addr, addr.ip, 4);
	((uint8_t *)&from.sin_addr)[3] = 2;
	int buf = 4 << 20;
	(void)setsockopt(tx_fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	return tx_fd < 0 || bind(tx_fd, (struct sockaddr *)&from, sizeof(from)) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	close(tx_fd);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Slots are distinct while their holders live, and free again when one closes or dies. */
static void test_slots(void **state)
{
	struct uroce_share *a, *b;
	(void)state;

	assert_int_equal(uroce_share_open(dir, &a), 0);
	assert_int_equal(uroce_share_open(dir, &b), 0);
	assert_int_not_equal(uroce_share_slot(a), uroce_share_slot(b));
	uroce_share_close(a);
	uroce_share_close(b);
	char longdir[PATH_MAX + 8];
	memset(longdir, 'x', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = 0;
	assert_int_equal(uroce_share_open(longdir, &a), UROCE_EINVAL);
}

/* Sends PER_MEMBER datagrams to each of the n members, then checks that each got exactly
 * those and no other's; their reports in r. */
static void deliver_all(struct member *m, int n, struct report *r)
{
	for (int i = 0; i < n; i++)
		send_data(m[i].slot, PER_MEMBER);
	for (int i = 0; i < n; i++) {
		r[i] = collect_n(&m[i], OP_END, PER_MEMBER);
		assert_int_equal(r[i].got, PER_MEMBER);
		assert_int_equal(r[i].wrong, 0);
	}
}

/* The steering: every member gets its own datagrams and only those. */
static void test_steering(void **state)
{
	struct member m[MEMBERS + 1];
	struct report r[MEMBERS + 1];
	(void)state;

	for (int i = 0; i < MEMBERS; i++)
		start(&m[i]);
	for (int i = 0; i < MEMBERS; i++)
		for (int j = 0; j < i; j++)
			assert_int_not_equal(m[i].slot, m[j].slot);

	/* 1. after the joins: all steered, none forwarded */
	deliver_all(m, MEMBERS, r);
	for (int i = 0; i < MEMBERS; i++) {
		assert_int_equal(r[i].forwarded, 0);
		assert_int_equal(r[i].forwarded_in, 0);
	}

	/* 2. member 1 exits in order: the last socket takes its index, and once a member has
	 * attached the program the leaver left on the page, all is steered: nothing forwarded,
	 * no round of probes run */
	collect(&m[1], OP_QUIT);
	reap(&m[1]);
	m[1] = m[MEMBERS - 1];
	int alive = MEMBERS - 1;
	deliver_all(m, alive, r);
	for (int i = 0; i < alive; i++)
		m[i].forwarded = r[i].forwarded;
	unsigned long rounds[MEMBERS];
	for (int i = 0; i < alive; i++)
		rounds[i] = r[i].rounds;
	deliver_all(m, alive, r);
	for (int i = 0; i < alive; i++) {
		assert_int_equal(r[i].forwarded, m[i].forwarded);
		assert_int_equal(r[i].rounds, rounds[i]);
	}

	/* 3. member 0 is killed: the kernel moves the last socket into its index unknown to
	 * the program; what reaches the wrong member is forwarded, a round repairs the
	 * steering, and the dead slot's datagrams reach nobody */
	unsigned dead = m[0].slot;
	assert_int_equal(kill(m[0].pid, SIGKILL), 0);
	reap(&m[0]);
	m[0] = m[alive - 1];
	alive--;
	unsigned long forwarded = 0;
	for (int round = 0; round < 2; round++) {
		send_data(dead, 20);
		deliver_all(m, alive, r);
		for (int i = 0; i < alive; i++) {
			forwarded += r[i].forwarded - m[i].forwarded;
			m[i].forwarded = r[i].forwarded;
		}
	}
	assert_true(forwarded > 0); /* the move was repaired by forwarding first */

	/* 4. a newcomer joins the repaired group: all steered again, nothing forwarded */
	start(&m[alive++]);
	deliver_all(m, alive, r);
	for (int i = 0; i < alive; i++)
		assert_int_equal(r[i].forwarded, m[i].forwarded);
	for (int i = 0; i < alive; i++) {
		collect(&m[i], OP_QUIT);
		reap(&m[i]);
	}
}

struct stream {
	unsigned slot, count;
};

/* An even stream, one datagram every 10 us or so: a burst would keep the leaver's drain
 * busy until it ends, and the leaver would then close between two bursts. */
static void *stream_main(void *arg)
{
	const struct stream *st = arg;

	for (unsigned i = 0; i < st->count; i++) {
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		send_bth(OP_DATA, st->slot << 16 | 0x123, i, NULL, 0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000l + t.tv_nsec - t0.tv_nsec < 10000);
	}
	return NULL;
}

/* A member leaves while datagrams stream to the member whose socket the kernel moves into
 * its index: none is lost in the leaver's queue when it closes (before the close, the
 * leaver's program sends nothing to it), and none goes astray after (forwarded until a member
 * attaches the page's program). Each of the rounds has a leaver and a last member of its own. */
static void test_leave_under_traffic(void **state)
{
	enum { ROUNDS = 16, STREAM = 4000 };
	struct member base, x, y;
	(void)state;

	start(&base);
	for (int round = 0; round < ROUNDS; round++) {
		start(&x);
		start(&y); /* the last index: it moves into x's */
		struct stream st = {.slot = y.slot, .count = STREAM};
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, stream_main, &st), 0);
		usleep(5000);
		collect(&x, OP_QUIT);
		reap(&x);
		assert_int_equal(pthread_join(t, NULL), 0);
		struct report r = collect_n(&y, OP_QUIT, STREAM);
		reap(&y);
		assert_int_equal(r.got, STREAM);
		assert_int_equal(r.wrong, 0);
	}
	collect(&base, OP_QUIT);
	reap(&base);
}

/* A MAD to QP1 (BTH, DETH, MAD header; the CM fields at their offsets). */
static void send_mad(uint16_t attr, uint64_t sid, uint32_t remote_id, uint32_t local_id)
{
	uint8_t b[64] = {0};

	b[20 - 12 + 1] = 0x07;              /* MAD class CM (MAD byte 1) */
	put_be16(b + 36 - 12, attr);          /* attribute ID */
	put_be32(b + 44 - 12, local_id);
	put_be32(b + 48 - 12, remote_id);
	put_be64(b + 52 - 12, sid);
	send_bth(OP_UD, 1, 0, b, sizeof(b));
}

static unsigned long mads_of(struct member *m)
{
	return collect(m, OP_END).mads;
}

/* QP1: MADs go to the CM attached, a REQ by its Service ID, an answer by its Remote Comm ID's
 * prefix. */
static void test_cm_steering(void **state)
{
	struct member a, b;
	(void)state;

	start(&a);
	start(&b);
	send_bth(OP_CM_ON, a.slot << 16 | 1, 0, NULL, 0);
	send_bth(OP_CM_ON, b.slot << 16 | 1, 0, NULL, 0);
	send_bth(OP_LISTEN, b.slot << 16 | 1, 0x4242, NULL, 0);
	(void)mads_of(&a);
	(void)mads_of(&b);
	/* the lowest slot's CM is the default */
	struct member *dflt = a.slot < b.slot ? &a : &b, *other = dflt == &a ? &b : &a;
	send_mad(0x0010, 0x4242, 0, 7);           /* REQ for b's Service ID */
	send_mad(0x0010, 0x9999, 0, 7);           /* REQ nobody listens to: the default */
	send_mad(0x0014, 0, other->slot << 24 | 5, 0); /* RTU to the other's connection */
	send_mad(0x0013, 0, dflt->slot << 24 | 5, 0);  /* REP to the default's */
	send_mad(0x0018, 0, 0, other->slot << 24 | 9); /* SIDR_REP: by its Request ID */
	/* b: its REQ, and either the other's two or the default's two */
	assert_int_equal(mads_of(&a), 2);
	assert_int_equal(mads_of(&b), 3);
	collect(&a, OP_QUIT);
	reap(&a);
	collect(&b, OP_QUIT);
	reap(&b);
}

/* A member's forwarding socket binds a port below the QPs' range (0x8000 to 0xBFFF): the
 * kernel's ephemeral choice could take one of the process's own QPs' source ports. Twenty
 * groups' ports, all in the range. */
static void test_fwd_port(void **state)
{
	struct uroce_share *sh;
	(void)state;

	assert_int_equal(uroce_share_open(dir, &sh), 0);
	for (int k = 0; k < 20; k++) {
		struct uroce_share_group *g;
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
		struct sockaddr_in fa;
		socklen_t falen = sizeof(fa);
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		assert_true(fd >= 0);
		memcpy(&sa.sin_addr, addr.ip, 4);
		assert_int_equal(uroce_share_join(sh, fd, (struct sockaddr *)&sa, sizeof(sa), &addr,
						  port, &g), 0);
		assert_int_equal(getsockname(uroce_share_fwd_fd(g), (struct sockaddr *)&fa, &falen), 0);
		assert_true(ntohs(fa.sin_port) >= 0x8000 && ntohs(fa.sin_port) < UROCE_QP_SPORT_MIN);
		uroce_share_leave(g);
	}
	uroce_share_close(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_fwd_port),
		cmocka_unit_test(test_steering),
		cmocka_unit_test(test_leave_under_traffic),
		cmocka_unit_test(test_cm_steering),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

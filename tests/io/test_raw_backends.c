/* SPDX-License-Identifier: MIT */
/* The raw Ethernet backends, AF_XDP (xdp.h) and AF_PACKET (packet.h), each on its own and
 * through the same cases, on a veth pair in a network namespace the test makes for itself
 * (unshare; root): engine-shaped datagrams sent through the handle on one end come out
 * of the handle on the other byte for byte, over IPv4 and IPv6, with their addresses and TOS;
 * a batch longer than the kernel's 32 frames per system call arrives whole; a packet longer
 * than the caller's buffer is cut and flagged; the next hop comes from the resolver, packets
 * wait in order while it is unresolved and leave when it is; UROCE_IMPAIR's loss,
 * duplication and delay act on receive; multicast groups joined and left, the sender's own
 * datagram looped back; datagrams the
 * backend cannot send are refused or counted; misuse gets its error; the AF_PACKET handle
 * holds UDP port 4791 on its interface. Skipped (77) without
 * root or without veth. Waiting is poll() on the handle's fd with a generous timeout. */
#include "testutil.h"

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <linux/sockios.h>

#include "common/error.h"
#include "io/packet.h"
#include "io/xdp.h"
#include "wire/build.h"
#include "wire/opcode.h"

#define WAIT_MS 10000 /* only reached when something is broken */

static const struct uroce_io_addr v4[2] = {{.ip = {10, 79, 0, 1}}, {.ip = {10, 79, 0, 2}}};
static const struct uroce_io_addr v6[2] = {
	{.ipv6 = true, .ip = {0xfd, 0, 0, 0x79, [15] = 1}},
	{.ipv6 = true, .ip = {0xfd, 0, 0, 0x79, [15] = 2}},
};

/* What a resolver answers, and how often it was asked. */
struct resolver {
	uint8_t mac[6];
	int answer;
	unsigned calls;
};

static int resolve(void *arg, const struct uroce_io_addr *dst, uint8_t mac[6])
{
	struct resolver *r = arg;

	(void)dst;
	r->calls++;
	if (!r->answer)
		memcpy(mac, r->mac, 6);
	return r->answer;
}

static struct resolver res[2]; /* res[i]: the resolver of the handle on x<i> */
static struct uroce_io *io[2];

/* The backend under test: how to open it and read its counters by name. */
struct backend {
	const char *name;
	int (*open)(const char *ifname, struct resolver *r, const struct uroce_impair_cfg *im,
		    uint32_t frames, struct uroce_io **out);
	const uint64_t *(*counter)(const struct uroce_io *h, const char *name);
	bool exclusive; /* a second handle on the interface is refused (EBUSY) */
};

static int xdp_open(const char *ifname, struct resolver *r, const struct uroce_impair_cfg *im,
		    uint32_t frames, struct uroce_io **out)
{
	struct uroce_xdp_cfg cfg = {.ifname = ifname, .resolve = r ? resolve : NULL,
				    .resolve_arg = r, .impair = im, .frames = frames};
	return uroce_xdp_open(&cfg, out);
}

static const uint64_t *xdp_counter(const struct uroce_io *h, const char *name)
{
	for (int i = 0; i < UROCE_XDP_NCOUNTERS; i++)
		if (!strcmp(uroce_xdp_counter_name((enum uroce_xdp_counter)i), name))
			return &uroce_xdp_counters(h)->v[i];
	fail_msg("no xdp counter %s", name);
	return NULL;
}

static int packet_open(const char *ifname, struct resolver *r, const struct uroce_impair_cfg *im,
		       uint32_t frames, struct uroce_io **out)
{
	struct uroce_packet_cfg cfg = {.ifname = ifname, .resolve = r ? resolve : NULL,
				       .resolve_arg = r, .impair = im, .frames = frames};
	return uroce_packet_open(&cfg, out);
}

static const uint64_t *packet_counter(const struct uroce_io *h, const char *name)
{
	for (int i = 0; i < UROCE_PACKET_NCOUNTERS; i++)
		if (!strcmp(uroce_packet_counter_name((enum uroce_packet_counter)i), name))
			return &uroce_packet_counters(h)->v[i];
	fail_msg("no packet counter %s", name);
	return NULL;
}

static const struct backend backends[] = {
	{"xdp", xdp_open, xdp_counter, true},
	{"packet", packet_open, packet_counter, false},
};
static const struct backend *B;

#define CTR(h, name) (*B->counter((h), #name))

static void link_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq r;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(s >= 0);
	memset(&r, 0, sizeof(r));
	snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", ifname);
	assert_int_equal(ioctl(s, SIOCGIFHWADDR, &r), 0);
	memcpy(mac, r.ifr_hwaddr.sa_data, 6);
	close(s);
}

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		link_mac(i ? "x0" : "x1", res[i].mac); /* the peer's address */
		res[i].answer = 0;
		res[i].calls = 0;
		if (B->open(i ? "x1" : "x0", &res[i], NULL, 0, &io[i]))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		if (io[i])
			uroce_io_close(io[i]);
	io[0] = io[1] = NULL;
	return 0;
}

/* A RoCEv2 SEND from a to b, as the engine builds it (IPv4 header checksum included). */
static size_t build(uint8_t *buf, size_t cap, const struct uroce_io_addr *a,
		    const struct uroce_io_addr *b, uint32_t psn, size_t len, uint8_t tos)
{
	static uint8_t payload[2048];
	struct uroce_rocev2_net net = {.ipv6 = a->ipv6, .tclass = tos, .hop_limit = 64,
				       .sport = 0xC123};
	struct uroce_bth bth = {.opcode = UROCE_OP_RC_SEND_ONLY, .pkey = 0xFFFF, .destqp = 0x11,
				.psn = psn};
	struct uroce_ext ext = {.present = uroce_opcode_info(UROCE_OP_RC_SEND_ONLY)->headers};

	for (size_t i = 0; i < len; i++)
		payload[i] = (uint8_t)(psn * 7 + i);
	memcpy(net.src, a->ip, 16);
	memcpy(net.dst, b->ip, 16);
	ssize_t n = uroce_rocev2_build(buf, cap, NULL, &net, &bth, &ext, payload, len);
	assert_true(n > 0);
	return (size_t)n;
}

/* Receives on h until want packets came (or the wait runs out); returns how many. */
static size_t recv_all(struct uroce_io *h, struct uroce_io_pkt *pkts, size_t want)
{
	size_t got = 0;

	while (got < want) {
		int n = uroce_io_recv(h, pkts + got, want - got);
		assert_true(n >= 0);
		if (n == 0) {
			struct pollfd pfd = {.fd = uroce_io_fd(h), .events = POLLIN};
			if (poll(&pfd, 1, WAIT_MS) <= 0)
				break;
		}
		got += (size_t)n;
	}
	return got;
}

#define BATCH 100 /* more than three of the kernel's 32-frame transmit batches */

static void exchange(const struct uroce_io_addr *ends, uint8_t tos)
{
	static uint8_t out[BATCH][2048], in[BATCH][2048];
	struct uroce_io_pkt sent[BATCH], got[BATCH];

	for (int dir = 0; dir < 2; dir++) {
		for (size_t k = 0; k < BATCH; k++) {
			/* lengths vary, so that a packet arriving in the wrong place shows */
			size_t n = build(out[k], sizeof(out[k]), &ends[dir], &ends[!dir],
					 (uint32_t)k, 64 + 13 * k, tos);
			sent[k] = (struct uroce_io_pkt){.data = out[k], .len = (uint32_t)n};
			got[k] = (struct uroce_io_pkt){.data = in[k], .cap = sizeof(in[k])};
		}
		assert_int_equal(uroce_io_send(io[dir], sent, BATCH), BATCH);
		assert_int_equal(recv_all(io[!dir], got, BATCH), BATCH);
		for (size_t k = 0; k < BATCH; k++) {
			assert_int_equal(got[k].len, sent[k].len);
			assert_memory_equal(got[k].data, sent[k].data, sent[k].len);
			assert_int_equal(got[k].flags, 0);
			assert_int_equal(got[k].tos, tos);
			assert_true(uroce_io_addr_equal(&got[k].src, &ends[dir]));
			assert_true(uroce_io_addr_equal(&got[k].dst, &ends[!dir]));
		}
		assert_int_equal(CTR(io[dir], sent), BATCH);
		assert_int_equal(CTR(io[!dir], delivered), BATCH);
	}
}

static void test_exchange_ipv4(void **state)
{
	(void)state;
	exchange(v4, 0x02); /* ECT(0) */
}

static void test_exchange_ipv6(void **state)
{
	(void)state;
	exchange(v6, 0x8b); /* a DSCP and CE */
}

static void test_truncated(void **state)
{
	uint8_t out[2048], in[100];
	struct uroce_io_pkt p = {.data = out}, q = {.data = in, .cap = sizeof(in)};
	(void)state;

	p.len = (uint32_t)build(out, sizeof(out), &v4[0], &v4[1], 1, 500, 0);
	assert_int_equal(uroce_io_send(io[0], &p, 1), 1);
	assert_int_equal(recv_all(io[1], &q, 1), 1);
	assert_int_equal(q.len, sizeof(in));
	assert_true(q.flags & UROCE_IO_PKT_TRUNC);
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(CTR(io[1], truncated), 1);
}

static void test_unresolved_next_hop(void **state)
{
	uint8_t out[20][2048], in[2][2048];
	struct uroce_io_pkt p[20], q[2] = {{.data = in[0], .cap = 2048}, {.data = in[1], .cap = 2048}};
	(void)state;

	for (uint32_t k = 0; k < 20; k++)
		p[k] = (struct uroce_io_pkt){
			.data = out[k],
			.len = (uint32_t)build(out[k], sizeof(out[k]), &v4[0], &v4[1], k, 64 + k, 0)};
	/* Not resolved yet: the packets wait (16 at most, the rest are lost), the resolver is
	 * asked once, not per packet, and the handle says when to look again. */
	res[0].answer = UROCE_EAGAIN;
	assert_int_equal(uroce_io_send(io[0], p, 2), 2);
	assert_int_equal(CTR(io[0], neigh_held), 2);
	assert_int_equal(CTR(io[0], sent), 0);
	assert_int_equal(res[0].calls, 1);
	assert_true(uroce_io_next_deadline(io[0]) != UINT64_MAX);
	assert_int_equal(uroce_io_send(io[0], p + 2, 18), 18);
	assert_int_equal(CTR(io[0], neigh_held), 16);
	assert_int_equal(CTR(io[0], send_no_neighbour), 4);
	assert_int_equal(uroce_io_recv(io[1], q, 1), 0);
	/* Resolved: at the next look, the held packets leave in the order they were sent. */
	res[0].answer = 0;
	usleep(2000);
	assert_int_equal(uroce_io_recv(io[0], q, 1), 0); /* a round of the sender */
	assert_int_equal(res[0].calls, 2);
	assert_int_equal(CTR(io[0], sent), 16);
	assert_int_equal(uroce_io_next_deadline(io[0]), UINT64_MAX);
	for (uint32_t k = 0; k < 16; k++) {
		assert_int_equal(recv_all(io[1], q, 1), 1);
		assert_int_equal(q[0].len, p[k].len);
		assert_memory_equal(in[0], out[k], p[k].len);
	}

	/* No route: lost at once, counted apart, nothing held. */
	uint8_t out6[2048];
	struct uroce_io_pkt p6 = {.data = out6};
	p6.len = (uint32_t)build(out6, sizeof(out6), &v6[0], &v6[1], 2, 64, 0);
	res[0].answer = UROCE_ENOENT;
	assert_int_equal(uroce_io_send(io[0], &p6, 1), 1);
	assert_int_equal(CTR(io[0], send_no_route), 1);
	assert_int_equal(CTR(io[0], neigh_held), 16);
}

/* UROCE_IMPAIR on this backend: the same impairments as the UDP backend's, on receive. */
static void test_impaired(void **state)
{
	static const struct uroce_impair_cfg lose_all = {.loss = 1}, dup_all = {.dup = 1},
					     late = {.delay_ns = 5000000}; /* 5 ms */
	const struct uroce_impair_cfg *cfgs[] = {&lose_all, &dup_all, &late};
	uint8_t out[4][2048], in[8][2048];
	struct uroce_io_pkt p[4], q[8];
	(void)state;

	for (int k = 0; k < 4; k++)
		p[k] = (struct uroce_io_pkt){
			.data = out[k],
			.len = (uint32_t)build(out[k], sizeof(out[k]), &v4[0], &v4[1], (uint32_t)k,
					       100 + 4 * (size_t)k, 0)};
	for (int c = 0; c < 3; c++) {
		uroce_io_close(io[1]); /* the fixture's receiver, reopened impaired */
		io[1] = NULL;
		assert_int_equal(B->open("x1", &res[1], cfgs[c], 0, &io[1]), 0);
		for (int k = 0; k < 8; k++)
			q[k] = (struct uroce_io_pkt){.data = in[k], .cap = sizeof(in[k])};
		assert_int_equal(uroce_io_send(io[0], p, 4), 4);
		if (c == 0) { /* every packet lost: none delivered, all counted */
			struct pollfd pfd = {.fd = uroce_io_fd(io[1]), .events = POLLIN};
			size_t seen = 0;
			while (seen < 4 && poll(&pfd, 1, WAIT_MS) > 0) {
				assert_int_equal(uroce_io_recv(io[1], q, 8), 0);
				seen = CTR(io[1], received);
			}
			assert_int_equal(CTR(io[1], impair_lost), 4);
			assert_int_equal(CTR(io[1], delivered), 0);
		} else if (c == 1) { /* each twice, the originals in order (a copy follows the
				      * packets of its own recv call) */
			int seen[4] = {0}, next = 0;
			assert_int_equal(recv_all(io[1], q, 8), 8);
			for (int k = 0; k < 8; k++) {
				int j = ((int)q[k].len - (int)p[0].len) / 4; /* lengths: 4k more */
				assert_true(j >= 0 && j < 4);
				assert_memory_equal(in[k], out[j], p[j].len);
				if (!seen[j]++)
					assert_int_equal(j, next++);
			}
			assert_int_equal(next, 4);
			assert_int_equal(CTR(io[1], impair_duplicated), 4);
		} else { /* held, the deadline says when, then delivered in order */
			struct pollfd pfd = {.fd = uroce_io_fd(io[1]), .events = POLLIN};
			while (CTR(io[1], received) < 4 && poll(&pfd, 1, WAIT_MS) > 0)
				assert_int_equal(uroce_io_recv(io[1], q, 8), 0);
			assert_int_equal(CTR(io[1], impair_delayed), 4);
			uint64_t due = uroce_io_next_deadline(io[1]);
			assert_true(due != UINT64_MAX);
			usleep(6000);
			assert_int_equal(uroce_io_recv(io[1], q, 8), 4);
			for (int k = 0; k < 4; k++)
				assert_memory_equal(in[k], out[k], p[k].len);
			assert_int_equal(uroce_io_next_deadline(io[1]), UINT64_MAX);
		}
	}
}

/* Whether /proc/net/igmp (IPv4) or /proc/net/igmp6 lists the group on the interface. */
static bool member(const char *ifname, const struct uroce_io_addr *g)
{
	char line[256], want[40], dev[32] = "", group[40];
	bool found = false;
	FILE *f = fopen(g->ipv6 ? "/proc/net/igmp6" : "/proc/net/igmp", "r");

	assert_non_null(f);
	if (g->ipv6) {
		for (int i = 0; i < 16; i++)
			snprintf(want + 2 * i, 3, "%02x", g->ip[i]);
	} else {
		uint32_t v;
		memcpy(&v, g->ip, 4);
		snprintf(want, sizeof(want), "%08X", v);
	}
	while (fgets(line, sizeof(line), f)) {
		int idx;
		if (g->ipv6) {
			found |= sscanf(line, "%d %31s %39s", &idx, dev, group) == 3 &&
				 !strcmp(dev, ifname) && !strcmp(group, want);
		} else if (line[0] != '\t') { /* a device line: "2\tx1        :     1      V3" */
			if (sscanf(line, "%d %31s", &idx, dev) != 2)
				dev[0] = '\0';
		} else {
			found |= sscanf(line, " %39s", group) == 1 && !strcmp(dev, ifname) &&
				 !strcmp(group, want);
		}
	}
	fclose(f);
	return found;
}

/* Multicast: a handle that joined a group gets what the other sends to it, the group as its
 * destination, with no neighbour resolved for it (the group's Ethernet address is derived);
 * a sender that joined gets its own datagram back (looped); the membership is the kernel's
 * on the interface, and ends with the leave. */
static void test_multicast(void **state)
{
	(void)state;
	for (int v = 0; v < 2; v++) {
		const struct uroce_io_addr *ends = v ? v6 : v4;
		struct uroce_io_addr g = {.ipv6 = v};
		uint8_t out[2048], in[2][2048];
		struct uroce_io_pkt p = {.data = out};
		struct uroce_io_pkt q[2] = {{.data = in[0], .cap = 2048}, {.data = in[1], .cap = 2048}};

		if (v)
			memcpy(g.ip, (uint8_t[]){0xff, 0x0e, [13] = 0x79, [15] = 1}, 16);
		else
			memcpy(g.ip, (uint8_t[]){239, 79, 0, 1}, 4);
		assert_int_equal(uroce_io_join(io[1], &ends[0], true), UROCE_EINVAL);
		assert_int_equal(uroce_io_join(io[1], &g, false), UROCE_ENOENT);
		assert_int_equal(uroce_io_join(io[1], &g, true), 0);
		assert_int_equal(uroce_io_join(io[1], &g, true), UROCE_EBUSY);
		assert_true(member("x1", &g));
		assert_false(member("x0", &g));

		for (uint32_t round = 0; round < 2; round++) {
			if (round == 1)
				assert_int_equal(uroce_io_join(io[0], &g, true), 0);
			p.len = (uint32_t)build(out, sizeof(out), &ends[0], &g, round, 200, 0x02);
			unsigned calls = res[0].calls;
			assert_int_equal(uroce_io_send(io[0], &p, 1), 1);
			assert_int_equal(res[0].calls, calls);
			for (int h = round ? 0 : 1; h < 2; h++) {
				assert_int_equal(recv_all(io[h], q, 1), 1);
				assert_int_equal(q[0].len, p.len);
				assert_memory_equal(in[0], out, p.len);
				assert_int_equal(q[0].tos, 0x02);
				assert_true(uroce_io_addr_equal(&q[0].src, &ends[0]));
				assert_true(uroce_io_addr_equal(&q[0].dst, &g));
			}
		}
		/* counted over both families so far */
		assert_int_equal(CTR(io[0], looped), v + 1);
		assert_int_equal(CTR(io[1], looped), 0);
		assert_int_equal(CTR(io[1], delivered), 2 * (v + 1));
		for (int h = 0; h < 2; h++)
			assert_int_equal(uroce_io_join(io[h], &g, false), 0);
		assert_false(member("x1", &g));
		assert_false(member("x0", &g));
	}
}

static void test_refused_and_too_big(void **state)
{
	uint8_t out[4096], junk[64] = {0x45};
	struct uroce_io_pkt p[2] = {{.data = out}, {.data = junk, .len = sizeof(junk)}};
	(void)state;

	p[0].len = (uint32_t)build(out, sizeof(out), &v4[0], &v4[1], 1, 64, 0);
	/* Not an IP datagram the backend takes: the first is taken, the second refused. */
	assert_int_equal(uroce_io_send(io[0], p, 2), 1);
	assert_int_equal(uroce_io_send(io[0], &p[1], 1), UROCE_EINVAL);
	/* Longer than the interface's MTU (1500): dropped and counted. */
	p[0].len = (uint32_t)build(out, sizeof(out), &v4[0], &v4[1], 2, 2000, 0);
	assert_int_equal(uroce_io_send(io[0], p, 1), 1);
	assert_int_equal(CTR(io[0], send_too_big), 1);
}

static void test_open_errors(void **state)
{
	struct uroce_io *h = NULL;
	(void)state;

	/* AF_XDP: x0 is taken by the fixture's handle, whose program is attached. AF_PACKET:
	 * any number of sockets may listen on an interface. */
	if (B->exclusive) {
		assert_int_equal(B->open("x0", &res[0], NULL, 0, &h), UROCE_EBUSY);
	} else {
		assert_int_equal(B->open("x0", &res[0], NULL, 0, &h), 0);
		uroce_io_close(h);
		h = NULL;
		/* The fixture's handles hold UDP port 4791 on their interfaces, so that the
		 * kernel's stack, which sees their frames too, answers no ICMP port unreachable. */
		for (int i = 0; i < 2; i++) {
			struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(4791)};
			int fd = socket(AF_INET6, SOCK_DGRAM, 0);
			assert_true(fd >= 0);
			assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, i ? "x1" : "x0", 2), 0);
			assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), -1);
			assert_int_equal(errno, EADDRINUSE);
			close(fd);
		}
	}
	assert_int_equal(B->open("nosuch0", &res[0], NULL, 0, &h), UROCE_ENOENT);
	assert_int_equal(B->open("lo", &res[0], NULL, 0, &h), UROCE_EINVAL); /* no Ethernet */
	assert_int_equal(B->open("x0", &res[0], NULL, 100, &h), UROCE_EINVAL); /* not 2^k */
	assert_int_equal(B->open("x0", NULL, NULL, 0, &h), UROCE_EINVAL);      /* no resolver */
	assert_null(h);
	assert_null(uroce_xdp_counters(NULL));
	assert_null(uroce_packet_counters(NULL));
	assert_true((uroce_xdp_counters(io[0]) != NULL) == B->exclusive);
	assert_true((uroce_packet_counters(io[0]) != NULL) == !B->exclusive);
	assert_string_equal(uroce_xdp_counter_name(UROCE_XDP_C_send_no_neighbour),
			    "send_no_neighbour");
	assert_non_null(uroce_xdp_counter_desc(UROCE_XDP_C_hold_full));
	assert_null(uroce_xdp_counter_name(UROCE_XDP_NCOUNTERS));
	assert_string_equal(uroce_packet_counter_name(UROCE_PACKET_C_ring_drops), "ring_drops");
	assert_non_null(uroce_packet_counter_desc(UROCE_PACKET_C_hold_full));
	assert_null(uroce_packet_counter_name(UROCE_PACKET_NCOUNTERS));
	assert_int_equal(uroce_xdp_rx_queues(io[0]), B->exclusive ? 1 : 0);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP: needs root (a network namespace, XDP, packet sockets)\n");
		return 77;
	}
	if (unshare(CLONE_NEWNET)) {
		printf("SKIP: cannot make a network namespace: %s\n", strerror(errno));
		return 77;
	}
	/* In the new namespace, which only this process and its children see. */
	if (system("ip link add x0 type veth peer name x1 2>/dev/null && ip link set lo up && "
		   "ip link set x0 up && ip link set x1 up")) {
		printf("SKIP: cannot make a veth pair\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exchange_ipv4, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchange_ipv6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unresolved_next_hop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_impaired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multicast, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_and_too_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
	};
	int failed = 0;
	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		B = &backends[b];
		failed += _cmocka_run_group_tests(B->name, tests, sizeof(tests) / sizeof(tests[0]),
						  NULL, NULL);
	}
	return failed;
}

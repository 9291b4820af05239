/* SPDX-License-Identifier: MIT */
/* The GID-table scan (verbs/netif.c) against independent oracles: getifaddrs() for the
 * addresses and link-layer addresses, SIOCGIFMTU for MTUs. On this host: 127.0.0.1 first,
 * UROCE_IP forms, malformed and absent addresses. In a private network namespace built with
 * ip(8) (skipped without CAP_SYS_ADMIN or iproute2): the exact table order, an MTU of 9000,
 * and that tentative, deprecated, link-local and down-interface addresses are left out; the
 * next hop's Ethernet address and VLAN (neighbour table, gateway, VLAN interface, the host's
 * own address, multicast and link-local encodings, unresolved and unroutable addresses). And
 * the RoCE MTU rule, taken from Linux rxe. */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/error.h"
#include "netif.h"

#define MAXA 16

static struct uroce_io_addr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct uroce_io_addr x = {.ipv6 = false, .ip = {a, b, c, d}};
	return x;
}

static struct uroce_io_addr text_addr(const char *s)
{
	struct uroce_io_addr x = {0};

	if (inet_pton(AF_INET, s, x.ip) != 1) {
		assert_int_equal(inet_pton(AF_INET6, s, x.ip), 1);
		x.ipv6 = true;
	}
	return x;
}

static bool same_addr(const struct uroce_io_addr *x, const struct uroce_io_addr *y)
{
	return x->ipv6 == y->ipv6 && memcmp(x->ip, y->ip, x->ipv6 ? 16 : 4) == 0;
}

static const char *show(const struct uroce_io_addr *a, char *buf, size_t len)
{
	return inet_ntop(a->ipv6 ? AF_INET6 : AF_INET, a->ip, buf, (socklen_t)len);
}

static void assert_addr(const struct uroce_io_addr *got, const struct uroce_io_addr *want)
{
	char g[INET6_ADDRSTRLEN], w[INET6_ADDRSTRLEN];

	if (!same_addr(got, want))
		fail_msg("address %s, expected %s", show(got, g, sizeof(g)),
			 show(want, w, sizeof(w)));
}

/* The oracle: is a (family, bytes) on interface ifname according to getifaddrs()? With
 * ifname NULL, on any interface; *up gets whether that interface is up. */
static bool host_has(const struct uroce_io_addr *a, const char *ifname, bool *up)
{
	struct ifaddrs *list, *i;
	bool found = false;

	assert_int_equal(getifaddrs(&list), 0);
	for (i = list; i && !found; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;
		const void *bytes;

		if (!sa || (ifname && strcmp(i->ifa_name, ifname) != 0))
			continue;
		if (sa->sa_family == AF_INET && !a->ipv6)
			bytes = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		else if (sa->sa_family == AF_INET6 && a->ipv6)
			bytes = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		else
			continue;
		if (memcmp(bytes, a->ip, a->ipv6 ? 16 : 4) == 0) {
			found = true;
			if (up)
				*up = i->ifa_flags & IFF_UP;
		}
	}
	freeifaddrs(list);
	return found;
}

/* The link-layer address getifaddrs() reports for ifname (AF_PACKET entry), zero if none.
 * Returns getifaddrs()'s result: the namespace child cannot use cmocka's assertions. */
static int host_mac(const char *ifname, uint8_t mac[6])
{
	struct ifaddrs *list, *i;

	memset(mac, 0, 6);
	if (getifaddrs(&list) != 0)
		return -1;
	for (i = list; i; i = i->ifa_next) {
		const void *sa = i->ifa_addr;
		const struct sockaddr_ll *ll = sa;

		if (ll && ll->sll_family == AF_PACKET && strcmp(i->ifa_name, ifname) == 0 &&
		    ll->sll_halen == 6)
			memcpy(mac, ll->sll_addr, 6);
	}
	freeifaddrs(list);
	return 0;
}

static uint32_t host_mtu(const char *ifname)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	strncpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name) - 1);
	assert_int_equal(ioctl(fd, SIOCGIFMTU, &ifr), 0);
	close(fd);
	return (uint32_t)ifr.ifr_mtu;
}

/* The loopback interface's name, by getifaddrs(). */
static void loopback_name(char name[IF_NAMESIZE])
{
	struct ifaddrs *list, *i;

	name[0] = '\0';
	assert_int_equal(getifaddrs(&list), 0);
	for (i = list; i; i = i->ifa_next)
		if (i->ifa_flags & IFF_LOOPBACK) {
			snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
			break;
		}
	freeifaddrs(list);
	if (!name[0])
		skip(); /* no loopback interface in this namespace */
}

/* What every entry must satisfy, whatever the host: it is where getifaddrs() says, on an up
 * interface, with that interface's index, MTU and link-layer address. */
static void check_entry(const struct uroce_netif_addr *e)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t mac[6];
	bool up = false;

	if (!host_has(&e->addr, e->ifname, &up) || !up)
		fail_msg("%s is not on %s, or %s is down", show(&e->addr, buf, sizeof(buf)),
			 e->ifname, e->ifname);
	if (e->addr.ipv6 && e->addr.ip[0] == 0xfe && (e->addr.ip[1] & 0xc0) == 0x80)
		fail_msg("link-local %s listed", show(&e->addr, buf, sizeof(buf)));
	assert_int_equal(e->ifindex, if_nametoindex(e->ifname));
	assert_int_equal(e->mtu, host_mtu(e->ifname));
	assert_int_equal(host_mac(e->ifname, mac), 0);
	assert_memory_equal(e->mac, mac, 6);
	assert_int_equal(e->ifname[sizeof(e->ifname) - 1], '\0');
}

static void test_mtu_rule(void **state)
{
	/* rxe: rxe_mtu_int_to_enum(ifmtu - 80), 0 raised to 256. The 1500 and 9000 rows are
	 * what rxe reports on the rxe-vm guests (facts.md section 3). */
	static const struct {
		uint32_t ifmtu;
		enum uroce_mtu want;
	} rows[] = {
		{0, UROCE_MTU_256},       {79, UROCE_MTU_256},      {80, UROCE_MTU_256},
		{256, UROCE_MTU_256},     {335, UROCE_MTU_256},     {336, UROCE_MTU_256},
		{591, UROCE_MTU_256},     {592, UROCE_MTU_512},     {1024, UROCE_MTU_512},
		{1103, UROCE_MTU_512},    {1104, UROCE_MTU_1024},   {1280, UROCE_MTU_1024},
		{1400, UROCE_MTU_1024},   {1500, UROCE_MTU_1024},   {2048, UROCE_MTU_1024},
		{2127, UROCE_MTU_1024},   {2128, UROCE_MTU_2048},   {4096, UROCE_MTU_2048},
		{4175, UROCE_MTU_2048},   {4176, UROCE_MTU_4096},   {4200, UROCE_MTU_4096},
		{9000, UROCE_MTU_4096},   {65535, UROCE_MTU_4096},  {65536, UROCE_MTU_4096},
		{UINT32_MAX, UROCE_MTU_4096},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (uroce_netif_active_mtu(rows[i].ifmtu) != rows[i].want)
			fail_msg("ifmtu %u: code %d, expected %d", rows[i].ifmtu,
				 (int)uroce_netif_active_mtu(rows[i].ifmtu), (int)rows[i].want);
}

static void test_scan_host(void **state)
{
	struct uroce_netif_addr a[MAXA];
	char lo[IF_NAMESIZE];
	size_t n = 99;
	(void)state;

	loopback_name(lo);
	assert_int_equal(uroce_netif_scan(NULL, a, MAXA, &n), 0);
	assert_true(n >= 1 && n <= MAXA);
	/* Index 0: 127.0.0.1 on lo, with lo's MTU and no MAC. */
	struct uroce_io_addr loop4 = v4(127, 0, 0, 1);
	assert_addr(&a[0].addr, &loop4);
	assert_string_equal(a[0].ifname, lo);
	assert_int_equal(a[0].mtu, host_mtu(lo));
	static const uint8_t zero[6];
	assert_memory_equal(a[0].mac, zero, 6);
	for (size_t i = 0; i < n; i++) {
		check_entry(&a[i]);
		if (i > 0)
			assert_true(a[i - 1].addr.ipv6 <= a[i].addr.ipv6); /* IPv4 first */
		for (size_t j = 0; j < i; j++)
			assert_false(same_addr(&a[i].addr, &a[j].addr));
	}
	/* Every IPv4 address of an up interface is listed (when the table had room). */
	if (n < MAXA) {
		struct ifaddrs *list, *i;

		assert_int_equal(getifaddrs(&list), 0);
		for (i = list; i; i = i->ifa_next) {
			struct uroce_io_addr x = {0};
			bool listed = false;

			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
			    !(i->ifa_flags & IFF_UP))
				continue;
			const void *sa = i->ifa_addr;
			const struct sockaddr_in *sin = sa;

			memcpy(x.ip, &sin->sin_addr, 4);
			for (size_t k = 0; k < n; k++)
				listed |= same_addr(&x, &a[k].addr);
			assert_true(listed);
		}
		freeifaddrs(list);
	}
}

static void test_scan_every_entry_alone(void **state)
{
	struct uroce_netif_addr a[MAXA], one;
	char text[INET6_ADDRSTRLEN];
	size_t n, m;
	(void)state;

	assert_int_equal(uroce_netif_scan(NULL, a, MAXA, &n), 0);
	for (size_t i = 0; i < n; i++) {
		show(&a[i].addr, text, sizeof(text));
		assert_int_equal(uroce_netif_scan(text, &one, 1, &m), 0);
		assert_int_equal(m, 1);
		assert_memory_equal(&one, &a[i], sizeof(one));
	}
}

static void test_scan_truncates(void **state)
{
	struct uroce_netif_addr all[MAXA], first;
	size_t n, m = 99;
	(void)state;

	assert_int_equal(uroce_netif_scan(NULL, all, MAXA, &n), 0);
	assert_int_equal(uroce_netif_scan(NULL, &first, 1, &m), 0);
	assert_int_equal(m, 1);
	assert_memory_equal(&first, &all[0], sizeof(first));
	m = 99;
	assert_int_equal(uroce_netif_scan(NULL, NULL, 0, &m), 0);
	assert_int_equal(m, 0);
	m = 99;
	assert_int_equal(uroce_netif_scan("127.0.0.1", NULL, 0, &m), 0);
	assert_int_equal(m, 0);
}

static void test_only_loopback_net(void **state)
{
	static const struct {
		const char *text;
		uint8_t last;
	} cases[] = {
		{"127.0.0.1", 1}, {"127.0.0.2", 2}, {"127.0.0.254", 254}, {"::ffff:127.0.0.3", 3},
	};
	struct uroce_netif_addr a;
	char lo[IF_NAMESIZE];
	size_t n;
	(void)state;

	loopback_name(lo);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct uroce_io_addr want = v4(127, 0, 0, cases[i].last);

		n = 99;
		assert_int_equal(uroce_netif_scan(cases[i].text, &a, 1, &n), 0);
		assert_int_equal(n, 1);
		assert_addr(&a.addr, &want);
		assert_string_equal(a.ifname, lo);
		assert_int_equal(a.ifindex, if_nametoindex(lo));
		assert_int_equal(a.mtu, host_mtu(lo));
	}
}

static void test_only_absent(void **state)
{
	static const char *const texts[] = {
		"198.51.100.254", "10.255.255.254", "0.0.0.0", "255.255.255.255", "224.0.0.1",
		"2001:db8:ffff::1", "::", "ff02::1", "::ffff:198.51.100.254",
	};
	struct uroce_netif_addr a;
	size_t n;
	(void)state;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct uroce_io_addr x = text_addr(texts[i]);

		if (host_has(&x, NULL, NULL))
			continue; /* this host happens to have it */
		n = 99;
		if (uroce_netif_scan(texts[i], &a, 1, &n) != UROCE_ENOENT)
			fail_msg("%s: not ENOENT", texts[i]);
		assert_int_equal(n, 0);
	}
}

static void test_only_malformed(void **state)
{
	static const char *const texts[] = {
		"", " ", "1.2.3", "1.2.3.4.5", "256.0.0.1", "127.0.0.1 ", " 127.0.0.1",
		"127.0.0.1/8", "localhost", "::g", "1::2::3", "fe80::1%lo", "[::1]", "0x7f.0.0.1",
		"127.0.0.1:4791",
	};
	struct uroce_netif_addr a;
	size_t n;
	(void)state;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		n = 99;
		if (uroce_netif_scan(texts[i], &a, 1, &n) != UROCE_EINVAL)
			fail_msg("\"%s\": not EINVAL", texts[i]);
		assert_int_equal(n, 0);
	}
	assert_int_equal(uroce_netif_scan(NULL, &a, 1, NULL), UROCE_EINVAL);
	assert_int_equal(uroce_netif_scan(NULL, NULL, 1, &n), UROCE_EINVAL);
	assert_string_equal(uroce_err_name(UROCE_ENOENT), "UROCE_ENOENT");
}

static void test_ipv6_loopback(void **state)
{
	struct uroce_netif_addr a[MAXA], one;
	struct uroce_io_addr loop6 = text_addr("::1");
	char lo[IF_NAMESIZE];
	size_t n, first6;
	(void)state;

	if (!host_has(&loop6, NULL, NULL))
		skip(); /* IPv6 disabled here */
	loopback_name(lo);
	assert_int_equal(uroce_netif_scan("::1", &one, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_addr(&one.addr, &loop6);
	assert_string_equal(one.ifname, lo);
	assert_int_equal(one.mtu, host_mtu(lo));
	/* In the full table ::1 heads the IPv6 entries. */
	assert_int_equal(uroce_netif_scan(NULL, a, MAXA, &n), 0);
	for (first6 = 0; first6 < n && !a[first6].addr.ipv6; first6++)
		;
	assert_true(first6 < n);
	assert_addr(&a[first6].addr, &loop6);
}

/* The namespace test: the child builds the network and scans; the parent checks. */
#define NS_QUERIES 10

static const char *const ns_queries[NS_QUERIES] = {
	"10.9.0.1",      /* ua: MTU 9000 */
	"10.7.0.1",      /* uc */
	"127.0.0.9",     /* only lo's 127.0.0.0/8 route */
	"127.0.0.5",     /* lo's primary */
	"10.8.0.1",      /* ub is down */
	"2001:db8::2",   /* deprecated */
	"2001:db8::3",   /* tentative: ua has no carrier, so DAD never ends */
	"2001:db8:1::1", /* uc, usable */
	"::1",
	"127.0.0.2",     /* asked again after lo went down */
};

struct ns_result {
	int status; /* 0, or 77 when the namespace could not be built */
	int err_all;
	size_t n_all;
	struct uroce_netif_addr all[MAXA];
	int err_q[NS_QUERIES];
	size_t n_q[NS_QUERIES];
	struct uroce_netif_addr q[NS_QUERIES];
	uint8_t mac_ua[6], mac_uc[6];
	int err_lo_down;
	size_t n_lo_down;
	struct uroce_netif_addr lo_down[MAXA];
};

static const char ns_setup[] =
	/* 127.0.0.1 re-added after 127.0.0.5, so the kernel lists it second: the table must
	 * still start with it. */
	"ip link set lo up"
	" && ip addr del 127.0.0.1/8 dev lo"
	" && ip addr add 127.0.0.5/8 dev lo"
	" && ip addr add 127.0.0.1/8 dev lo"
	" && ip link add ua type veth peer name ub"
	" && ip link set ua mtu 9000 up"
	" && ip addr add 10.9.0.1/24 dev ua"
	" && ip addr add 10.8.0.1/24 dev ub"
	" && ip -6 addr add 2001:db8::3/64 dev ua"
	" && ip -6 addr add 2001:db8::2/64 dev ua nodad preferred_lft 0"
	" && ip link add uc type veth peer name ud"
	" && ip link set ud up && ip link set uc up"
	" && ip addr add 10.7.0.1/24 dev uc"
	" && ip -6 addr add 2001:db8:1::1/64 dev uc nodad";

static void ns_child(int fd)
{
	static struct ns_result r;
	size_t off = 0;

	memset(&r, 0, sizeof(r));
	setenv("PATH", "/usr/sbin:/sbin:/usr/bin:/bin", 1);
	if (unshare(CLONE_NEWNET) != 0 || system(ns_setup) != 0) {
		r.status = TEST_SKIP_CODE;
	} else {
		r.err_all = uroce_netif_scan(NULL, r.all, MAXA, &r.n_all);
		for (int i = 0; i < NS_QUERIES - 1; i++)
			r.err_q[i] = uroce_netif_scan(ns_queries[i], &r.q[i], 1, &r.n_q[i]);
		if (host_mac("ua", r.mac_ua) != 0 || host_mac("uc", r.mac_uc) != 0 ||
		    system("ip link set lo down") != 0) {
			r.status = TEST_SKIP_CODE;
		} else {
			int i = NS_QUERIES - 1;

			r.err_q[i] = uroce_netif_scan(ns_queries[i], &r.q[i], 1, &r.n_q[i]);
			r.err_lo_down = uroce_netif_scan(NULL, r.lo_down, MAXA, &r.n_lo_down);
		}
	}
	while (off < sizeof(r)) {
		ssize_t w = write(fd, (const char *)&r + off, sizeof(r) - off);

		if (w <= 0)
			_exit(1);
		off += (size_t)w;
	}
	_exit(0);
}

static void test_namespace(void **state)
{
	static struct ns_result r;
	int fds[2], status;
	size_t off = 0;
	pid_t pid;
	(void)state;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		ns_child(fds[1]);
	}
	close(fds[1]);
	while (off < sizeof(r)) {
		ssize_t got = read(fds[0], (char *)&r + off, sizeof(r) - off);

		if (got <= 0)
			break;
		off += (size_t)got;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(off, sizeof(r));
	if (r.status == TEST_SKIP_CODE)
		skip(); /* no CAP_SYS_ADMIN, no iproute2, or no veth */

	/* The whole table, in order: lo's IPv4 (127.0.0.1 first), then ua and uc by ifindex
	 * (created in that order), then ::1 and uc's global IPv6. Left out: ub's (down), ua's
	 * tentative and deprecated IPv6, every fe80::. */
	static const struct {
		const char *addr, *ifname;
		uint32_t mtu;
	} want[] = {
		{"127.0.0.1", "lo", 65536},
		{"127.0.0.5", "lo", 65536},
		{"10.9.0.1", "ua", 9000},
		{"10.7.0.1", "uc", 1500},
		{"::1", "lo", 65536},
		{"2001:db8:1::1", "uc", 1500},
	};
	static const uint8_t zero[6];
	char buf[INET6_ADDRSTRLEN];

	assert_int_equal(r.err_all, 0);
	for (size_t i = 0; i < r.n_all; i++)
		print_message("  netns gid %zu: %s %s mtu %u\n", i,
			      show(&r.all[i].addr, buf, sizeof(buf)), r.all[i].ifname,
			      r.all[i].mtu);
	assert_int_equal(r.n_all, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r.n_all; i++) {
		struct uroce_io_addr x = text_addr(want[i].addr);

		assert_addr(&r.all[i].addr, &x);
		assert_string_equal(r.all[i].ifname, want[i].ifname);
		assert_int_equal(r.all[i].mtu, want[i].mtu);
		assert_memory_equal(r.all[i].mac,
				    !strcmp(want[i].ifname, "ua") ? r.mac_ua :
				    !strcmp(want[i].ifname, "uc") ? r.mac_uc : zero, 6);
	}
	assert_true(r.all[2].ifindex < r.all[3].ifindex);
	assert_memory_not_equal(r.mac_ua, zero, 6);
	assert_int_equal(uroce_netif_active_mtu(r.all[2].mtu), UROCE_MTU_4096);

	/* Each address alone. */
	static const struct {
		int err;
		const char *ifname;
		uint32_t mtu;
	} wq[NS_QUERIES] = {
		{0, "ua", 9000},
		{0, "uc", 1500},
		{0, "lo", 65536},
		{0, "lo", 65536},
		{UROCE_ENOENT, NULL, 0},
		{UROCE_ENOENT, NULL, 0},
		{UROCE_ENOENT, NULL, 0},
		{0, "uc", 1500},
		{0, "lo", 65536},
		{UROCE_ENOENT, NULL, 0},
	};
	for (int i = 0; i < NS_QUERIES; i++) {
		if (r.err_q[i] != wq[i].err)
			fail_msg("%s: %s, expected %s", ns_queries[i], uroce_err_name(r.err_q[i]),
				 uroce_err_name(wq[i].err));
		assert_int_equal(r.n_q[i], wq[i].err ? 0 : 1);
		if (wq[i].err)
			continue;
		struct uroce_io_addr x = text_addr(ns_queries[i]);
		assert_addr(&r.q[i].addr, &x);
		assert_string_equal(r.q[i].ifname, wq[i].ifname);
		assert_int_equal(r.q[i].mtu, wq[i].mtu);
	}

	/* With lo down: nothing of lo, not even the 127.0.0.0/8 rule. */
	assert_int_equal(r.err_lo_down, 0);
	assert_int_equal(r.n_lo_down, 3);
	for (size_t i = 0; i < r.n_lo_down; i++)
		assert_string_not_equal(r.lo_down[i].ifname, "lo");
}

/* ---- The next hop's Ethernet address (uroce_netif_l2), in a namespace of its own ---- */

static const char l2_setup[] =
	"ip link set lo up"
	" && ip link add la type veth peer name lb"
	" && ip link set la up && ip link set lb up"
	" && ip addr add 10.5.0.1/24 dev la"
	" && ip -6 addr add 2001:db8:5::1/64 dev la nodad"
	" && ip neigh add 10.5.0.9 lladdr 02:00:00:00:05:09 dev la nud permanent"
	" && ip -6 neigh add 2001:db8:5::9 lladdr 02:00:00:00:05:99 dev la nud permanent"
	" && ip route add 10.4.0.0/24 via 10.5.0.9 dev la";
/* A VLAN interface needs the kernel's 802.1Q support (CONFIG_VLAN_8021Q), which not every
 * kernel has: its cases run where it can be made. */
static const char l2_vlan_setup[] =
	"ip link add link la name la.7 type vlan id 7 2>/dev/null && ip link set la.7 up"
	" && ip addr add 10.6.0.1/24 dev la.7"
	" && ip neigh add 10.6.0.9 lladdr 02:00:00:00:06:09 dev la.7 nud permanent";

/* Interface, destination, and what uroce_netif_l2 must answer (mac "own": la's address). */
static const struct l2_case {
	const char *ifname, *dst;
	int err;
	const char *mac;
	uint16_t vid;
} l2_cases[] = {
	{"la", "10.5.0.9", 0, "02:00:00:00:05:09", 0xffff},   /* the neighbour table */
	{"la.7", "10.6.0.9", 0, "02:00:00:00:06:09", 7},      /* on a VLAN interface */
	{"la", "10.4.0.1", 0, "02:00:00:00:05:09", 0xffff},   /* through a gateway */
	{"la", "2001:db8:5::9", 0, "02:00:00:00:05:99", 0xffff},
	{"la", "10.5.0.1", 0, "own", 0xffff},                 /* the host's own address */
	{"lo", "127.0.0.1", 0, "00:00:00:00:00:00", 0xffff},  /* lo has no address */
	{"la", "224.1.2.3", 0, "01:00:5e:01:02:03", 0xffff},  /* multicast, no route */
	{"la", "239.129.2.3", 0, "01:00:5e:01:02:03", 0xffff}, /* 23 bits of it */
	{"la", "ff02::1:ff00:9", 0, "33:33:ff:00:00:09", 0xffff},
	{"la", "fe80::211:22ff:fe33:4455", 0, "00:11:22:33:44:55", 0xffff},
	{"la", "10.5.0.10", UROCE_EAGAIN, NULL, 0},            /* not resolved (yet) */
	{"la.7", "10.5.0.9", UROCE_ENOENT, NULL, 0},           /* leaves through la */
	{"la", "192.0.2.1", UROCE_ENOENT, NULL, 0},            /* no route at all */
};
#define L2_CASES (sizeof(l2_cases) / sizeof(l2_cases[0]))

struct l2_result {
	int status; /* 0, or 77 when the namespace could not be built */
	bool vlan;  /* la.7 exists */
	uint8_t own[6];
	int err[L2_CASES];
	uint8_t mac[L2_CASES][6];
	uint16_t vid[L2_CASES];
};

static void l2_child(int fd)
{
	static struct l2_result r;
	size_t off = 0;

	memset(&r, 0, sizeof(r));
	setenv("PATH", "/usr/sbin:/sbin:/usr/bin:/bin", 1);
	if (unshare(CLONE_NEWNET) != 0 || system(l2_setup) != 0 || host_mac("la", r.own) != 0) {
		r.status = TEST_SKIP_CODE;
	} else {
		r.vlan = system(l2_vlan_setup) == 0;
		for (size_t i = 0; i < L2_CASES; i++) {
			struct uroce_io_addr dst = text_addr(l2_cases[i].dst);
			uint32_t ifindex = if_nametoindex(l2_cases[i].ifname);

			if (ifindex)
				r.err[i] = uroce_netif_l2(ifindex, &dst, r.mac[i], &r.vid[i]);
		}
	}
	while (off < sizeof(r)) {
		ssize_t w = write(fd, (const char *)&r + off, sizeof(r) - off);

		if (w <= 0)
			_exit(1);
		off += (size_t)w;
	}
	_exit(0);
}

static void test_l2_namespace(void **state)
{
	static struct l2_result r;
	int fds[2], status;
	size_t off = 0;
	pid_t pid;
	(void)state;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		l2_child(fds[1]);
	}
	close(fds[1]);
	while (off < sizeof(r)) {
		ssize_t got = read(fds[0], (char *)&r + off, sizeof(r) - off);

		if (got <= 0)
			break;
		off += (size_t)got;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(off, sizeof(r));
	if (r.status == TEST_SKIP_CODE)
		skip(); /* no CAP_SYS_ADMIN, no iproute2, or no veth/vlan */

	if (!r.vlan)
		print_message("  no VLAN interfaces in this kernel: the la.7 cases are left out\n");
	for (size_t i = 0; i < L2_CASES; i++) {
		const struct l2_case *c = &l2_cases[i];
		uint8_t want[6];

		if (!r.vlan && !strcmp(c->ifname, "la.7"))
			continue;
		if (r.err[i] != c->err)
			fail_msg("%s via %s: %s, expected %s", c->dst, c->ifname,
				 uroce_err_name(r.err[i]), uroce_err_name(c->err));
		if (c->err)
			continue;
		if (!strcmp(c->mac, "own"))
			memcpy(want, r.own, 6);
		else
			assert_int_equal(sscanf(c->mac, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &want[0],
						&want[1], &want[2], &want[3], &want[4], &want[5]),
					 6);
		if (memcmp(r.mac[i], want, 6))
			fail_msg("%s via %s: %02x:%02x:%02x:%02x:%02x:%02x, expected %s", c->dst,
				 c->ifname, r.mac[i][0], r.mac[i][1], r.mac[i][2], r.mac[i][3],
				 r.mac[i][4], r.mac[i][5], c->mac);
		assert_int_equal(r.vid[i], c->vid);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtu_rule),
		cmocka_unit_test(test_scan_host),
		cmocka_unit_test(test_scan_every_entry_alone),
		cmocka_unit_test(test_scan_truncates),
		cmocka_unit_test(test_only_loopback_net),
		cmocka_unit_test(test_only_absent),
		cmocka_unit_test(test_only_malformed),
		cmocka_unit_test(test_ipv6_loopback),
		cmocka_unit_test(test_namespace),
		cmocka_unit_test(test_l2_namespace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

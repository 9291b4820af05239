/* SPDX-License-Identifier: MIT */
/* The AF_XDP backend's XDP program (io/xdp_filter.c), run by the kernel on crafted frames
 * (BPF_PROG_TEST_RUN): RoCEv2 over IPv4 and IPv6 is caught, everything the kernel must keep
 * (other ports, TCP, IPv4 options and fragments, IPv6 extension headers, ARP, VLAN-tagged and
 * truncated frames) passes. A caught frame meets an empty XSKMAP here, so it gets the miss
 * action: XDP_DROP in most tests, to tell "caught" from "passed"; XDP_PASS, the production
 * setting, in one. Then the argument checks, closing, and attaching to a dummy interface in a
 * network namespace of the test's own (skipped when that cannot be made).
 *
 * Loading needs CAP_BPF and CAP_NET_ADMIN (CAP_SYS_ADMIN stands in for both): without them
 * the program exits 77 (CTest: skipped). */
#include "testutil.h"

#include <errno.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "io/xdp_filter.h"
#include "wire/bytes.h"
#include "wire/eth.h"
#include "wire/ip.h"

#define ROCEV2_PORT 4791
#define NQUEUES 4
#define DUMMY "uroce-xf0" /* made in the test's own network namespace */

static struct uroce_xdp_filter drop_filter; /* miss action XDP_DROP */

/* ---- frames ---- */

#define FRAME_MAX 128
#define PAYLOAD 28 /* a BTH and an ICRC's worth of zeros after the UDP header */

struct frame {
	uint8_t b[FRAME_MAX];
	size_t len;
};

/* An untagged Ethernet frame of IPv4 (20-byte header) carrying protocol to dport. */
static struct frame ipv4(uint8_t protocol, uint16_t dport)
{
	struct frame f = {.len = UROCE_ETH_HLEN + UROCE_IPV4_HLEN + UROCE_UDP_HLEN + PAYLOAD};
	uint8_t *ip = f.b + UROCE_ETH_HLEN, *l4 = ip + UROCE_IPV4_HLEN;

	memset(f.b, 0x02, 12); /* destination and source MAC */
	put_be16(f.b + 12, UROCE_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(f.len - UROCE_ETH_HLEN)); /* total length */
	put_be16(ip + 6, 0x4000);                              /* DF, offset 0 */
	ip[8] = 64;                                            /* TTL */
	ip[9] = protocol;
	memcpy(ip + 12, (const uint8_t[]){10, 0, 0, 1, 10, 0, 0, 2}, 8); /* 10.0.0.1 -> .2 */
	put_be16(l4, 49152); /* source port */
	put_be16(l4 + 2, dport);
	put_be16(l4 + 4, UROCE_UDP_HLEN + PAYLOAD);
	return f;
}

/* An untagged Ethernet frame of IPv6 whose next header is next_header, UDP to dport. */
static struct frame ipv6(uint8_t next_header, uint16_t dport)
{
	struct frame f = {.len = UROCE_ETH_HLEN + UROCE_IPV6_HLEN + UROCE_UDP_HLEN + PAYLOAD};
	uint8_t *ip = f.b + UROCE_ETH_HLEN, *l4 = ip + UROCE_IPV6_HLEN;

	memset(f.b, 0x02, 12);
	put_be16(f.b + 12, UROCE_ETHERTYPE_IPV6);
	ip[0] = 0x60;
	put_be16(ip + 4, UROCE_UDP_HLEN + PAYLOAD); /* payload length */
	ip[6] = next_header;
	ip[7] = 64; /* hop limit */
	memcpy(ip + 8, (const uint8_t[16]){0xfd, [15] = 1}, 16);  /* source fd00::1 */
	memcpy(ip + 24, (const uint8_t[16]){0xfd, [15] = 2}, 16); /* destination fd00::2 */
	put_be16(l4, 49152);
	put_be16(l4 + 2, dport);
	put_be16(l4 + 4, UROCE_UDP_HLEN + PAYLOAD);
	return f;
}

static struct frame rocev2_ipv4(void) { return ipv4(UROCE_IPPROTO_UDP, ROCEV2_PORT); }
static struct frame rocev2_ipv6(void) { return ipv6(UROCE_IPPROTO_UDP, ROCEV2_PORT); }

static struct frame cut(struct frame f, size_t len)
{
	f.len = len;
	return f;
}

/* Runs the program once on f; returns the kernel's bpf_prog_test_run result (0 or a negative
 * errno) and the program's return value in *action. */
static int run(const struct uroce_xdp_filter *filter, const struct frame *f, uint32_t *action)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f->b, .data_size_in = (uint32_t)f->len,
		    .repeat = 1);
	int err = bpf_prog_test_run_opts(filter->prog_fd, &opts);

	*action = opts.retval;
	return err;
}

static uint32_t action_on(const struct uroce_xdp_filter *filter, const struct frame *f)
{
	uint32_t action;

	assert_int_equal(run(filter, f, &action), 0);
	return action;
}

/* ---- the program ---- */

static void test_rocev2_caught(void **state)
{
	(void)state;
	struct frame v4 = rocev2_ipv4(), v6 = rocev2_ipv6();

	assert_int_equal(action_on(&drop_filter, &v4), XDP_DROP);
	assert_int_equal(action_on(&drop_filter, &v6), XDP_DROP);
	/* Exactly the headers, no payload: still whole enough to be caught. */
	v4 = cut(v4, UROCE_ETH_HLEN + UROCE_IPV4_HLEN + UROCE_UDP_HLEN);
	v6 = cut(v6, UROCE_ETH_HLEN + UROCE_IPV6_HLEN + UROCE_UDP_HLEN);
	assert_int_equal(action_on(&drop_filter, &v4), XDP_DROP);
	assert_int_equal(action_on(&drop_filter, &v6), XDP_DROP);
}

static void assert_passes(const char *what, struct frame f)
{
	uint32_t action = action_on(&drop_filter, &f);

	if (action != XDP_PASS)
		fail_msg("%s: action %u, expected XDP_PASS (%u)", what, action, XDP_PASS);
}

static void test_others_passed(void **state)
{
	(void)state;
	struct frame f;

	assert_passes("IPv4 UDP to 4792", ipv4(UROCE_IPPROTO_UDP, ROCEV2_PORT + 1));
	assert_passes("IPv4 UDP to 46866 (4791 byte-swapped)", ipv4(UROCE_IPPROTO_UDP, 0xb712));
	assert_passes("IPv4 TCP to 4791", ipv4(6, ROCEV2_PORT));
	assert_passes("IPv6 UDP to 4792", ipv6(UROCE_IPPROTO_UDP, ROCEV2_PORT + 1));
	assert_passes("IPv6 hop-by-hop options first", ipv6(0, ROCEV2_PORT));
	assert_passes("IPv6 fragment header first", ipv6(44, ROCEV2_PORT));

	f = rocev2_ipv4();
	f.b[UROCE_ETH_HLEN] = 0x46; /* IHL 6: 4 bytes of options, where UDP would start */
	assert_passes("IPv4 with options", f);
	f = rocev2_ipv4();
	f.b[UROCE_ETH_HLEN] = 0x65; /* version 6 under the IPv4 EtherType */
	assert_passes("IPv4 EtherType, version 6", f);
	f = rocev2_ipv4();
	put_be16(f.b + UROCE_ETH_HLEN + 6, 0x2000); /* MF, offset 0: the first fragment */
	assert_passes("IPv4 first fragment", f);
	f = rocev2_ipv4();
	put_be16(f.b + UROCE_ETH_HLEN + 6, 185); /* MF clear, offset 1480 bytes: the last one */
	assert_passes("IPv4 last fragment", f);

	f = rocev2_ipv4();
	put_be16(f.b + 12, UROCE_ETHERTYPE_ARP);
	assert_passes("ARP", f);

	/* An 802.1Q tag (VLAN 5) before the IPv4 EtherType: the headers move by 4 bytes. */
	struct frame untagged = rocev2_ipv4();
	f = untagged;
	put_be16(f.b + 12, UROCE_ETHERTYPE_VLAN);
	put_be16(f.b + 14, 5);
	memcpy(f.b + 16, untagged.b + 12, untagged.len - 12);
	f.len = untagged.len + 4;
	assert_passes("802.1Q-tagged IPv4 UDP to 4791", f);

	assert_passes("IPv4 header cut at 30 bytes", cut(rocev2_ipv4(), 30));
	assert_passes("IPv4 UDP header cut after the port",
		      cut(rocev2_ipv4(), UROCE_ETH_HLEN + UROCE_IPV4_HLEN + 4));
	assert_passes("IPv6 cut before the UDP port",
		      cut(rocev2_ipv6(), UROCE_ETH_HLEN + UROCE_IPV6_HLEN + 2));
	assert_passes("IPv6 UDP header cut after the port",
		      cut(rocev2_ipv6(), UROCE_ETH_HLEN + UROCE_IPV6_HLEN + 4));
	assert_passes("Ethernet header only", cut(rocev2_ipv4(), UROCE_ETH_HLEN));
}

/* BPF_PROG_TEST_RUN refuses XDP input shorter than an Ethernet header (ETH_HLEN), so the
 * program never sees one; that is the kernel's check, the program checks anyway. */
static void test_runt_refused(void **state)
{
	(void)state;
	struct frame f = cut(rocev2_ipv4(), UROCE_ETH_HLEN - 1);
	uint32_t action;

	assert_int_equal(run(&drop_filter, &f, &action), -EINVAL);
}

/* The production setting: a caught frame with no socket on its queue goes to the kernel. */
static void test_miss_passes(void **state)
{
	(void)state;
	struct uroce_xdp_filter f;
	struct frame v4 = rocev2_ipv4(), v6 = rocev2_ipv6(), other = ipv4(UROCE_IPPROTO_UDP, 22);

	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, 1, XDP_PASS, &f), 0);
	assert_int_equal(action_on(&f, &v4), XDP_PASS);
	assert_int_equal(action_on(&f, &v6), XDP_PASS);
	assert_int_equal(action_on(&f, &other), XDP_PASS);
	uroce_xdp_filter_close(&f);
}

/* Another port is caught instead: the port is the program's, not a constant of it. */
static void test_other_port(void **state)
{
	(void)state;
	struct uroce_xdp_filter f;
	struct frame to_port = ipv4(UROCE_IPPROTO_UDP, 18515), to_4791 = rocev2_ipv6();

	assert_int_equal(uroce_xdp_filter_load(18515, 1, XDP_DROP, &f), 0);
	assert_int_equal(action_on(&f, &to_port), XDP_DROP);
	assert_int_equal(action_on(&f, &to_4791), XDP_PASS);
	uroce_xdp_filter_close(&f);
}

/* ---- arguments, closing ---- */

static void assert_closed(const struct uroce_xdp_filter *f)
{
	assert_int_equal(f->prog_fd, -1);
	assert_int_equal(f->map_fd, -1);
	assert_int_equal(f->link_fd, -1);
}

static void test_load_checks_arguments(void **state)
{
	(void)state;
	struct uroce_xdp_filter f;

	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, 0, XDP_PASS, &f), -EINVAL);
	assert_closed(&f);
	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, 1025, XDP_PASS, &f), -EINVAL);
	assert_closed(&f);
	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, 1, XDP_REDIRECT, &f), -EINVAL);
	assert_closed(&f);
	uroce_xdp_filter_close(&f); /* after a failed load */
	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, 1024, XDP_ABORTED, &f), 0);
	uroce_xdp_filter_close(&f);
}

static void test_close(void **state)
{
	(void)state;
	struct uroce_xdp_filter never = {.prog_fd = -1, .map_fd = -1, .link_fd = -1}, f;
	bool generic;

	uroce_xdp_filter_close(&never);
	assert_closed(&never);
	assert_int_equal(uroce_xdp_filter_attach(&never, 1, &generic), -EINVAL);

	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, NQUEUES, XDP_PASS, &f), 0);
	assert_true(f.prog_fd >= 0 && f.map_fd >= 0);
	assert_int_equal(f.link_fd, -1);
	uroce_xdp_filter_close(&f);
	assert_closed(&f);
	uroce_xdp_filter_close(&f); /* twice */
}

/* ---- attaching ---- */

struct attach_state {
	int ifindex;
	struct uroce_xdp_filter first, second;
};

/* A dummy interface (ifb where the kernel has no dummy driver: neither driver has native XDP)
 * in a network namespace of the process's own: no interface of the host is in reach, and
 * parallel runs cannot meet. The namespace lasts as long as the process, so this test comes
 * last. */
static int dummy_setup(void **state)
{
	static struct attach_state s;

	memset(&s, 0, sizeof(s));
	s.first = s.second = (struct uroce_xdp_filter){.prog_fd = -1, .map_fd = -1, .link_fd = -1};
	*state = &s;
	if (unshare(CLONE_NEWNET) != 0 ||
	    system("{ ip link add " DUMMY " type dummy || ip link add " DUMMY " type ifb; }"
		   " 2>/dev/null") != 0)
		return 0; /* the test skips */
	s.ifindex = (int)if_nametoindex(DUMMY);
	return 0;
}

static int dummy_teardown(void **state)
{
	struct attach_state *s = *state;

	uroce_xdp_filter_close(&s->first);
	uroce_xdp_filter_close(&s->second);
	if (s->ifindex > 0 && system("ip link del " DUMMY) != 0)
		return -1;
	return 0;
}

static void test_attach(void **state)
{
	struct attach_state *s = *state;
	bool generic = false;

	if (s->ifindex <= 0)
		skip(); /* no CAP_SYS_ADMIN for a namespace, no iproute2, or no dummy/ifb driver */
	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, NQUEUES, XDP_PASS, &s->first), 0);
	assert_int_equal(uroce_xdp_filter_load(ROCEV2_PORT, NQUEUES, XDP_PASS, &s->second), 0);

	/* The driver has no native XDP: generic mode. */
	assert_int_equal(uroce_xdp_filter_attach(&s->first, s->ifindex, &generic), 0);
	assert_true(generic);
	assert_true(s->first.link_fd >= 0);
	assert_int_equal(uroce_xdp_filter_attach(&s->first, s->ifindex, &generic), -EINVAL);

	/* The interface is taken. The native attempt meets the generic program: -EEXIST (the
	 * two modes cannot be active at once); over a native one it would be -EBUSY. */
	int err = uroce_xdp_filter_attach(&s->second, s->ifindex, &generic);
	assert_true(err == -EBUSY || err == -EEXIST);
	assert_int_equal(s->second.link_fd, -1);

	/* Closing the first detaches it: the second gets the interface. */
	uroce_xdp_filter_close(&s->first);
	generic = false;
	assert_int_equal(uroce_xdp_filter_attach(&s->second, s->ifindex, &generic), 0);
	assert_true(generic);
	uroce_xdp_filter_close(&s->second);
}

int main(void)
{
	int err = uroce_xdp_filter_load(ROCEV2_PORT, NQUEUES, XDP_DROP, &drop_filter);

	if (err == -EPERM) {
		printf("skipped: loading an XDP program needs CAP_BPF and CAP_NET_ADMIN "
		       "(or CAP_SYS_ADMIN)\n");
		return TEST_SKIP_CODE;
	}
	if (err != 0) {
		fprintf(stderr, "uroce_xdp_filter_load: %s\n", strerror(-err));
		return 1;
	}

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rocev2_caught),
		cmocka_unit_test(test_others_passed),
		cmocka_unit_test(test_runt_refused),
		cmocka_unit_test(test_miss_passes),
		cmocka_unit_test(test_other_port),
		cmocka_unit_test(test_load_checks_arguments),
		cmocka_unit_test(test_close),
		cmocka_unit_test_setup_teardown(test_attach, dummy_setup, dummy_teardown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	uroce_xdp_filter_close(&drop_filter);
	return failed;
}

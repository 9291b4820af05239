/* SPDX-License-Identifier: MIT */
/* The host's addresses for the GID table (netif.h), from one dump of the kernel's links and
 * addresses into libnl-route caches: a snapshot, taken when a device is opened, as rxe's GID
 * table is filled from the netdev's addresses. */
#include "netif.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vlan.h>
#include <netlink/route/neighbour.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "common/error.h"
#include "wire/eth.h"

/* Linux rxe reserves RXE_MAX_HDR_LENGTH = 80 bytes of the netdev MTU for headers
 * (drivers/infiniband/sw/rxe/rxe_hdr.h); IPv6 40 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 = 80. */
#define NETIF_HDR_ALLOWANCE 80u

/* IPv6 address states that must not become a GID: the kernel would not let a socket send
 * from a tentative or DAD-failed address, and a deprecated one is on its way out. */
#define NETIF_V6_UNUSABLE (IFA_F_TENTATIVE | IFA_F_DADFAILED | IFA_F_DEPRECATED)

enum uroce_mtu uroce_netif_active_mtu(uint32_t ifmtu)
{
	/* rxe_set_mtu() (drivers/infiniband/sw/rxe/rxe.c) takes eth_mtu_int_to_enum(ndev mtu),
	 * which subtracts the allowance and rounds down with rxe_mtu_int_to_enum()
	 * (rxe_param.h: below 256 is 0, then 256/512/1024/2048, 4096 and up is 4096); a result
	 * of 0 becomes IB_MTU_256, so small MTUs still give 256. */
	uint32_t room = ifmtu > NETIF_HDR_ALLOWANCE ? ifmtu - NETIF_HDR_ALLOWANCE : 0;

	if (room >= 4096)
		return UROCE_MTU_4096;
	if (room >= 2048)
		return UROCE_MTU_2048;
	if (room >= 1024)
		return UROCE_MTU_1024;
	if (room >= 512)
		return UROCE_MTU_512;
	return UROCE_MTU_256;
}

/* A usable address with what decides its place in the table. */
struct cand {
	struct uroce_netif_addr a;
	bool loopback; /* on the loopback interface */
	bool first;    /* 127.0.0.1 or ::1 */
	size_t pos;    /* in the kernel's dump, to keep its order */
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *x = pa, *y = pb;

	if (x->a.addr.ipv6 != y->a.addr.ipv6)
		return x->a.addr.ipv6 ? 1 : -1;
	if (x->loopback != y->loopback)
		return x->loopback ? -1 : 1;
	if (x->a.ifindex != y->a.ifindex)
		return x->a.ifindex < y->a.ifindex ? -1 : 1;
	if (x->first != y->first)
		return x->first ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static bool is_v4_loopback_net(const struct uroce_io_addr *a)
{
	return !a->ipv6 && a->ip[0] == 127;
}

static bool is_primary_loopback(const struct uroce_io_addr *a)
{
	static const uint8_t v4[4] = {127, 0, 0, 1};
	static const uint8_t v6[16] = {[15] = 1};

	return a->ipv6 ? memcmp(a->ip, v6, 16) == 0 : memcmp(a->ip, v4, 4) == 0;
}

void uroce_netif_addr_from_gid(const uint8_t gid[16], struct uroce_io_addr *a)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};

	memset(a, 0, sizeof(*a));
	if (memcmp(gid, mapped, sizeof(mapped)) == 0) {
		memcpy(a->ip, gid + 12, 4);
	} else {
		memcpy(a->ip, gid, 16);
		a->ipv6 = true;
	}
}

void uroce_netif_addr_to_gid(const struct uroce_io_addr *a, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (a->ipv6) {
		memcpy(gid, a->ip, 16);
	} else {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, a->ip, 4);
	}
}

/* Parses the UROCE_IP text; ::ffff:a.b.c.d is taken as the IPv4 address it maps. */
static int parse_only(const char *s, struct uroce_io_addr *a)
{
	uint8_t ip[16];

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->ip) == 1)
		return 0;
	if (inet_pton(AF_INET6, s, ip) != 1)
		return UROCE_EINVAL;
	uroce_netif_addr_from_gid(ip, a);
	return 0;
}

static void fill_link(struct uroce_netif_addr *o, struct rtnl_link *link)
{
	struct nl_addr *ll = rtnl_link_get_addr(link);
	const char *name = rtnl_link_get_name(link);

	o->ifindex = (uint32_t)rtnl_link_get_ifindex(link);
	o->mtu = rtnl_link_get_mtu(link);
	memset(o->mac, 0, sizeof(o->mac));
	if (!(rtnl_link_get_flags(link) & IFF_LOOPBACK) && ll &&
	    nl_addr_get_len(ll) == sizeof(o->mac))
		memcpy(o->mac, nl_addr_get_binary_addr(ll), sizeof(o->mac));
	memset(o->ifname, 0, sizeof(o->ifname));
	if (name)
		strncpy(o->ifname, name, sizeof(o->ifname) - 1);
}

/* Turns one cached address into a candidate; false when it is not usable. */
static bool make_cand(struct rtnl_addr *ra, struct nl_cache *links, struct cand *c)
{
	struct nl_addr *local = rtnl_addr_get_local(ra);
	int family = rtnl_addr_get_family(ra);
	struct rtnl_link *link;
	bool up;

	if (!local || (family != AF_INET && family != AF_INET6))
		return false;
	if (nl_addr_get_len(local) != (family == AF_INET ? 4u : 16u))
		return false;
	memset(c, 0, sizeof(*c));
	c->a.addr.ipv6 = family == AF_INET6;
	memcpy(c->a.addr.ip, nl_addr_get_binary_addr(local), nl_addr_get_len(local));
	if (c->a.addr.ipv6) {
		/* fe80::/10 */
		if (c->a.addr.ip[0] == 0xfe && (c->a.addr.ip[1] & 0xc0) == 0x80)
			return false;
		if (rtnl_addr_get_flags(ra) & NETIF_V6_UNUSABLE)
			return false;
	}
	link = rtnl_link_get(links, rtnl_addr_get_ifindex(ra));
	if (!link)
		return false; /* the link went away between the two dumps */
	up = rtnl_link_get_flags(link) & IFF_UP;
	c->loopback = rtnl_link_get_flags(link) & IFF_LOOPBACK;
	fill_link(&c->a, link);
	rtnl_link_put(link);
	c->first = is_primary_loopback(&c->a.addr);
	return up;
}

/* The loopback interface, for a 127.0.0.0/8 address nobody assigned; false if it is absent
 * or down. */
static bool loopback_entry(struct nl_cache *links, const struct uroce_io_addr *addr,
			   struct uroce_netif_addr *o)
{
	for (struct nl_object *obj = nl_cache_get_first(links); obj;
	     obj = nl_cache_get_next(obj)) {
		struct rtnl_link *link = (struct rtnl_link *)obj;
		unsigned flags = rtnl_link_get_flags(link);

		if ((flags & IFF_LOOPBACK) && (flags & IFF_UP)) {
			memset(o, 0, sizeof(*o));
			o->addr = *addr;
			fill_link(o, link);
			return true;
		}
	}
	return false;
}

static int nl_to_uroce(int nlerr)
{
	return nlerr == -NLE_NOMEM ? UROCE_ENOMEM : UROCE_EIO;
}

int uroce_netif_scan(const char *only, struct uroce_netif_addr *out, size_t max, size_t *n)
{
	struct uroce_io_addr want;
	struct nl_sock *sk = NULL;
	struct nl_cache *links = NULL, *addrs = NULL;
	struct cand *cands = NULL;
	size_t ncand = 0, total, pos = 0;
	int err;

	if (!n || (!out && max > 0))
		return UROCE_EINVAL;
	*n = 0;
	if (only && parse_only(only, &want) < 0)
		return UROCE_EINVAL;

	sk = nl_socket_alloc();
	if (!sk)
		return UROCE_ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0) {
		err = nl_to_uroce(err);
		goto out;
	}
	err = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (err < 0) {
		err = nl_to_uroce(err);
		goto out;
	}
	err = rtnl_addr_alloc_cache(sk, &addrs);
	if (err < 0) {
		err = nl_to_uroce(err);
		goto out;
	}

	total = (size_t)nl_cache_nitems(addrs);
	cands = calloc(total ? total : 1, sizeof(*cands));
	if (!cands) {
		err = UROCE_ENOMEM;
		goto out;
	}
	for (struct nl_object *obj = nl_cache_get_first(addrs); obj && ncand < total;
	     obj = nl_cache_get_next(obj), pos++) {
		struct cand *c = &cands[ncand];

		if (!make_cand((struct rtnl_addr *)obj, links, c))
			continue;
		if (only && !uroce_io_addr_equal(&c->a.addr, &want))
			continue;
		c->pos = pos;
		ncand++;
	}
	qsort(cands, ncand, sizeof(*cands), cand_cmp);

	err = 0;
	if (only) {
		struct uroce_netif_addr hit = {0};

		if (ncand > 0)
			hit = cands[0].a;
		else if (!is_v4_loopback_net(&want) || !loopback_entry(links, &want, &hit))
			err = UROCE_ENOENT;
		if (!err && max > 0) {
			out[0] = hit;
			*n = 1;
		}
		goto out;
	}
	for (size_t i = 0; i < ncand && i < max; i++)
		out[i] = cands[i].a;
	*n = ncand < max ? ncand : max;
out:
	free(cands);
	if (addrs)
		nl_cache_free(addrs);
	if (links)
		nl_cache_free(links);
	nl_socket_free(sk);
	return err;
}

/* What the kernel's route to an address says (RTM_GETROUTE, as `ip route get` asks): a
 * unicast route (found) or the address is the host's own (local). */
struct route_answer {
	bool found;
	bool local;
	uint32_t oif;
	bool has_gateway;
	uint8_t gateway[16];
};

static int route_parse(struct nl_msg *msg, void *arg)
{
	struct route_answer *r = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *tb[RTA_MAX + 1];
	const struct rtmsg *rtm = nlmsg_data(h);
	size_t alen = rtm->rtm_family == AF_INET ? 4 : 16;

	if (h->nlmsg_type != RTM_NEWROUTE || nlmsg_parse(h, sizeof(*rtm), tb, RTA_MAX, NULL) < 0)
		return NL_SKIP;
	if (rtm->rtm_type == RTN_LOCAL) {
		r->local = true;
		return NL_OK;
	}
	if (rtm->rtm_type != RTN_UNICAST || !tb[RTA_OIF])
		return NL_SKIP; /* unreachable, blackhole, multicast, ... */
	r->found = true;
	r->oif = nla_get_u32(tb[RTA_OIF]);
	if (tb[RTA_GATEWAY] && (size_t)nla_len(tb[RTA_GATEWAY]) == alen) {
		r->has_gateway = true;
		memcpy(r->gateway, nla_data(tb[RTA_GATEWAY]), alen);
	}
	return NL_OK;
}

static int route_get(struct nl_sock *sk, const struct uroce_io_addr *dst, struct route_answer *r)
{
	size_t alen = dst->ipv6 ? 16 : 4;
	struct rtmsg rtm = {.rtm_family = dst->ipv6 ? AF_INET6 : AF_INET,
			    .rtm_dst_len = (unsigned char)(alen * 8)};
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST);
	int err;

	if (!msg)
		return UROCE_ENOMEM;
	if (nlmsg_append(msg, &rtm, sizeof(rtm), NLMSG_ALIGNTO) < 0 ||
	    nla_put(msg, RTA_DST, (int)alen, dst->ip) < 0) {
		nlmsg_free(msg);
		return UROCE_ENOMEM;
	}
	memset(r, 0, sizeof(*r));
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, route_parse, r);
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	/* No route at all comes back as an error message (ENETUNREACH): not found. */
	if (err < 0 && !r->found && !r->local)
		return err == -NLE_NOMEM ? UROCE_ENOMEM : UROCE_ENOENT;
	return r->found || r->local ? 0 : UROCE_ENOENT;
}

/* Makes the kernel resolve the next hop to dst: a datagram sent through the stack needs it. */
static void neighbour_solicit(const struct uroce_io_addr *dst)
{
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_port = htons(9)};
	struct sockaddr_in sa4 = {.sin_family = AF_INET, .sin_port = htons(9)};
	int s = socket(dst->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	if (dst->ipv6) {
		memcpy(&sa6.sin6_addr, dst->ip, 16);
		(void)sendto(s, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sa6, sizeof(sa6));
	} else {
		memcpy(&sa4.sin_addr, dst->ip, 4);
		(void)sendto(s, "", 0, MSG_DONTWAIT, (struct sockaddr *)&sa4, sizeof(sa4));
	}
	close(s);
}

/* The Ethernet address of the next hop of route on ifindex, from the neighbour table
 * (dumped before the route was asked for: a dump must not follow another request's answer
 * on the socket). UROCE_EAGAIN, after asking the kernel to resolve it, when the table has
 * no usable entry. */
static int neighbour_mac(struct nl_cache *neighs, uint32_t ifindex,
			 const struct route_answer *route, const struct uroce_io_addr *dst,
			 uint8_t mac[6])
{
	struct nl_addr *hop = nl_addr_build(dst->ipv6 ? AF_INET6 : AF_INET,
					    route->has_gateway ? route->gateway : dst->ip,
					    dst->ipv6 ? 16 : 4);
	struct rtnl_neigh *n;
	int err;

	if (!hop)
		return UROCE_ENOMEM;
	n = rtnl_neigh_get(neighs, (int)ifindex, hop);
	struct nl_addr *ll = n ? rtnl_neigh_get_lladdr(n) : NULL;
	/* NUD_VALID (include/net/neighbour.h): every state in which the entry's address can
	 * be used, STALE included (the kernel itself sends to a stale entry while it checks). */
	int valid = NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | NUD_DELAY;
	if (n && (rtnl_neigh_get_state(n) & valid) && ll && nl_addr_get_len(ll) == 6) {
		memcpy(mac, nl_addr_get_binary_addr(ll), 6);
		err = 0;
	} else {
		neighbour_solicit(dst);
		err = UROCE_EAGAIN;
	}
	if (n)
		rtnl_neigh_put(n);
	nl_addr_put(hop);
	return err;
}

/* A netlink socket with the neighbour table dumped, the interface ifindex when asked for
 * (link), and the route to dst (when the kernel has none, found and local are false). The
 * route comes last: route_get leaves its own handler on the socket. */
struct lookup {
	struct nl_sock *sk;
	struct nl_cache *neighs;
	struct rtnl_link *link;
	struct route_answer route;
};

static void lookup_free(struct lookup *l)
{
	if (l->link)
		rtnl_link_put(l->link);
	if (l->neighs)
		nl_cache_free(l->neighs);
	nl_socket_free(l->sk);
}

static int lookup_start(struct lookup *l, const struct uroce_io_addr *dst, bool link,
			uint32_t ifindex)
{
	int err;

	memset(l, 0, sizeof(*l));
	if (!(l->sk = nl_socket_alloc()))
		return UROCE_ENOMEM;
	if ((err = nl_connect(l->sk, NETLINK_ROUTE)) < 0 ||
	    (err = rtnl_neigh_alloc_cache(l->sk, &l->neighs)) < 0 ||
	    (link && (err = rtnl_link_get_kernel(l->sk, (int)ifindex, NULL, &l->link)) < 0)) {
		lookup_free(l);
		return err == -NLE_OBJ_NOTFOUND || err == -NLE_NODEV ? UROCE_ENOENT
								      : nl_to_uroce(err);
	}
	/* No route is an answer too (found and local stay false). */
	if ((err = route_get(l->sk, dst, &l->route)) && err != UROCE_ENOENT) {
		lookup_free(l);
		return err;
	}
	return 0;
}

int uroce_netif_neighbour(uint32_t ifindex, const struct uroce_io_addr *dst, uint8_t mac[6])
{
	struct lookup l;
	int err = lookup_start(&l, dst, false, 0);

	if (err)
		return err;
	if (!l.route.found || l.route.oif != ifindex)
		err = UROCE_ENOENT;
	else
		err = neighbour_mac(l.neighs, ifindex, &l.route, dst, mac);
	lookup_free(&l);
	return err;
}

/* The Ethernet addresses that IP derives from the IP address itself, as rdma-core 44's
 * libibverbs/neigh.c encodes them: IPv4 multicast 224.0.0.0/4 -> 01:00:5e and its low 23
 * bits (RFC 1112 6.4); IPv6 multicast ff00::/8 -> 33:33 and its last 32 bits (RFC 2464 7);
 * IPv6 link-local fe80::/64 -> the MAC inside its EUI-64 interface identifier (RFC 4291
 * 2.5.1, with the universal/local bit flipped back). False for any other address. */
static bool encoded_mac(const struct uroce_io_addr *dst, uint8_t mac[6])
{
	static const uint8_t link_local[8] = {0xfe, 0x80};
	const uint8_t *ip = dst->ip;

	if (uroce_io_addr_is_multicast(dst)) {
		uroce_eth_multicast_mac(ip, dst->ipv6, mac);
		return true;
	}
	if (dst->ipv6 && !memcmp(ip, link_local, 8)) {
		memcpy(mac, ip + 8, 3);
		memcpy(mac + 3, ip + 13, 3);
		mac[0] ^= 2;
		return true;
	}
	return false;
}

int uroce_netif_l2(uint32_t ifindex, const struct uroce_io_addr *dst, uint8_t mac[6],
		   uint16_t *vid)
{
	struct lookup l;
	struct rtnl_link *link;
	int err = lookup_start(&l, dst, true, ifindex);

	if (err)
		return err;
	link = l.link;
	/* rdma-core's neigh_get_vlan_id_from_dev: the VLAN id of a VLAN interface, else 0xFFFF. */
	*vid = 0xffff;
	if (rtnl_link_is_vlan(link)) {
		int id = rtnl_link_vlan_get_id(link);
		if (id >= 0 && id <= 0xfff)
			*vid = (uint16_t)id;
	}
	if (l.route.local) {
		/* The host's own address: the interface's own Ethernet address (rdma-core takes
		 * the link address of the source's interface; lo's is all zeros). */
		struct nl_addr *ll = rtnl_link_get_addr(link);
		if (ll && nl_addr_get_len(ll) == 6)
			memcpy(mac, nl_addr_get_binary_addr(ll), 6);
		else
			memset(mac, 0, 6);
		err = 0;
	} else if (encoded_mac(dst, mac)) {
		err = 0;
	} else if (l.route.found && l.route.oif == ifindex) {
		err = neighbour_mac(l.neighs, ifindex, &l.route, dst, mac);
	} else {
		err = UROCE_ENOENT;
	}
	lookup_free(&l);
	return err;
}

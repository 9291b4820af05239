/* SPDX-License-Identifier: MIT */
/* Addresses and routes: rdma_resolve_addr and rdma_resolve_route, as Linux's addr.c and
 * cma.c resolve them for RoCE (the source address the kernel's routing table chooses, asked
 * with rtnetlink RTM_GETROUTE; the path built locally, cma_resolve_iboe_route). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "priv.h"

/* Asks the kernel for its route to dst: the output interface, preferred source and whether
 * dst is an address of this host (RTN_LOCAL: the route goes through lo).
 * 0, or a negative errno (the kernel's answer, e.g. -ENETUNREACH). */
static int get_route(const struct uroce_io_addr *dst, int *oif, struct uroce_io_addr *prefsrc,
		     bool *has_src, bool *local)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} resp;
	struct rtattr *rta;
	size_t alen = dst->ipv6 ? 16 : 4;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	ssize_t n;
	int fd, err = -ENETUNREACH;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = dst->ipv6 ? AF_INET6 : AF_INET;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = RTA_DST;
	rta->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), dst->ip, alen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}
	n = recv(fd, &resp, sizeof(resp), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	*has_src = false;
	*local = false;
	*oif = 0;
	for (struct nlmsghdr *nh = &resp.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);

			if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error)
				err = e->error;
			break;
		}
		if (nh->nlmsg_type != RTM_NEWROUTE || nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
			continue;
		int len = (int)RTM_PAYLOAD(nh);

		*local = ((const struct rtmsg *)NLMSG_DATA(nh))->rtm_type == RTN_LOCAL;
		for (rta = RTM_RTA(NLMSG_DATA(nh)); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
			if (rta->rta_type == RTA_OIF && RTA_PAYLOAD(rta) >= sizeof(int))
				memcpy(oif, RTA_DATA(rta), sizeof(int));
			if (rta->rta_type == RTA_PREFSRC && RTA_PAYLOAD(rta) >= alen) {
				memset(prefsrc, 0, sizeof(*prefsrc));
				prefsrc->ipv6 = dst->ipv6;
				memcpy(prefsrc->ip, RTA_DATA(rta), alen);
				*has_src = true;
			}
		}
		err = *oif ? 0 : -ENETUNREACH;
		break;
	}
out:
	close(fd);
	return err;
}

/* The index of the interface that holds addr, 0 if none does. */
static int ifindex_of_addr(const struct uroce_io_addr *addr)
{
	struct ifaddrs *ifs, *ifa;
	int index = 0;

	if (getifaddrs(&ifs))
		return 0;
	for (ifa = ifs; ifa && !index; ifa = ifa->ifa_next) {
		const struct sockaddr *sa = ifa->ifa_addr;

		if (!sa || sa->sa_family != (addr->ipv6 ? AF_INET6 : AF_INET))
			continue;
		if (addr->ipv6 ? !memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
					 addr->ip, 16)
			       : !memcmp(&((const struct sockaddr_in *)(const void *)sa)->sin_addr,
					 addr->ip, 4))
			index = (int)if_nametoindex(ifa->ifa_name);
	}
	freeifaddrs(ifs);
	return index;
}

int cma_route_source(const struct uroce_io_addr *dst, struct uroce_io_addr *src,
		     uint8_t *hop_limit)
{
	struct uroce_io_addr pref;
	bool has_src, local;
	int oif, err;

	*hop_limit = UROCE_CM_DEFAULT_HOP_LIMIT; /* the route's (ip4_dst_hoplimit): 64 */
	err = get_route(dst, &oif, &pref, &has_src, &local);
	if (err)
		return err;
	if (has_src && cma_dev_of_addr(&pref, NULL)) {
		*src = pref;
		return 0;
	}
	/* A destination on this host is routed through lo, and Linux's addr.c then takes the
	 * interface that holds the destination instead (rdma_set_src_addr_rcu:
	 * rdma_find_ndev_for_src_ip_rcu of dst_in), so the source is a GID on that interface:
	 * 10.11.0.2 for 10.11.0.1 when both are on one veth (tests/hpc/test_fi_pingpong.sh). */
	if (local) {
		int dev_if = ifindex_of_addr(dst);

		if (dev_if)
			oif = dev_if;
	}
	/* The kernel's preferred source is not a uroce address (a process owns only its
	 * UROCE_IP ones): any GID of this IP version on the route's interface will do, as the
	 * kernel would choose among that interface's addresses. */
	for (int i = 0; i < cma_ndevs(); i++) {
		const struct cma_dev *d = cma_dev_at(i);

		for (int g = 0; g < d->ngids; g++)
			if (d->gid[g].ifindex == oif && d->gid[g].addr.ipv6 == dst->ipv6) {
				*src = d->gid[g].addr;
				return 0;
			}
	}
	return -ENETUNREACH;
}

static int addr_event(struct cma_id *c, enum rdma_cm_event_type type, int status)
{
	struct cma_event *e = cma_event_new(c, type, status);

	if (!e)
		return cma_ret(ENOMEM);
	cma_enqueue(e);
	return cma_sync_wait(c);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		      int timeout_ms)
{
	struct cma_id *c = cma_id_of(id);
	struct uroce_io_addr dst, src;
	uint16_t dport;
	uint8_t hop;
	int err;

	(void)timeout_ms; /* answered at once: no ARP or neighbour to wait for on a GID */
	if (!dst_addr || (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6))
		return cma_ret(EINVAL);
	if (c->state == CMA_IDLE && src_addr && cma_bind(c, src_addr))
		return -1;
	if (c->state != CMA_IDLE && c->state != CMA_ADDR_BOUND)
		return cma_ret(EINVAL);
	cma_addr_from_sa(&dst, &dport, dst_addr);
	memcpy(&id->route.addr.dst_storage, dst_addr,
	       dst_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					       : sizeof(struct sockaddr_in));
	if (c->dev) {
		src = c->dev->gid[c->sgid_index].addr;
		err = src.ipv6 == dst.ipv6 ? 0 : -EAFNOSUPPORT;
	} else if (uroce_io_addr_is_multicast(&dst)) {
		/* A group: the first address of its IP version (the kernel takes the route's
		 * device, which a namespace with only loopback has none for). */
		err = -ENETUNREACH;
		for (int i = 0; i < cma_ndevs() && err; i++)
			for (int g = 0; g < cma_dev_at(i)->ngids && err; g++)
				if (cma_dev_at(i)->gid[g].addr.ipv6 == dst.ipv6) {
					src = cma_dev_at(i)->gid[g].addr;
					err = 0;
				}
	} else {
		err = cma_route_source(&dst, &src, &hop);
	}
	if (!err && !c->dev) {
		struct sockaddr_storage ss;
		uint16_t sport = c->state == CMA_ADDR_BOUND ? ntohs(rdma_get_src_port(id)) : 0;
		int gidx;
		struct cma_dev *d = cma_dev_of_addr(&src, &gidx);

		if (c->state == CMA_ADDR_BOUND) {
			/* Bound to a wildcard: the device is the source's, the port stays. */
			if (cma_dev_open(d))
				err = -errno;
			else {
				cma_id_set_dev(c, d, gidx);
				cma_sa_from_addr(&ss, &src, sport);
				memcpy(&id->route.addr.src_storage, &ss, sizeof(ss));
			}
		} else {
			cma_sa_from_addr(&ss, &src, 0);
			if (cma_bind(c, (struct sockaddr *)&ss))
				err = -errno;
		}
	}
	if (err)
		return addr_event(c, RDMA_CM_EVENT_ADDR_ERROR, err);
	uroce_cm_gid_from_addr(id->route.addr.addr.ibaddr.dgid.raw, &dst);
	c->state = CMA_ADDR_RESOLVED;
	return addr_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct cma_id *c = cma_id_of(id);
	struct uroce_io_addr src, dst;
	uint16_t sport, dport;

	(void)timeout_ms; /* built locally, as cma_resolve_iboe_route: nothing to wait for */
	if (c->state != CMA_ADDR_RESOLVED && c->state != CMA_ROUTE_RESOLVED)
		return cma_ret(EINVAL);
	cma_addr_from_sa(&src, &sport, &id->route.addr.src_addr);
	cma_addr_from_sa(&dst, &dport, &id->route.addr.dst_addr);
	src = c->dev->gid[c->sgid_index].addr; /* the GID's form of the source */
	uroce_rdma_iboe_path(&c->path, &src, sport, &dst, dport, c->tos, UROCE_CM_DEFAULT_HOP_LIMIT,
			     c->dev->mtu, c->ack_timeout,
			     id->route.addr.src_addr.sa_family == AF_INET6
				     ? ntohl(id->route.addr.src_sin6.sin6_flowinfo)
				     : 0);
	cma_id_fill_path_rec(c);
	c->state = CMA_ROUTE_RESOLVED;
	return addr_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
}

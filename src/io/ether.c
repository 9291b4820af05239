/* SPDX-License-Identifier: MIT */
/* The raw Ethernet backends' shared parts (ether.h). */
#include "ether.h"

#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/eth.h"
#include "wire/ip.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD
#define ROCEV2_PORT 4791
/* Packets to a next hop whose Ethernet address the kernel is still resolving wait, as the
 * kernel's own do in its neighbour entry's queue (net/core/neighbour.c, __neigh_event_send):
 * at most UROCE_ETHER_NEIGH_HOLD per hop, looked up again every NEIGH_RETRY_NS, and given up
 * after NEIGH_GIVE_UP_NS (the kernel's ARP gives up after 3 probes 1 s apart, mcast_solicit
 * and retrans_time_ms). A hop that is not resolving is looked up again after NEIGH_RETRY_NS. */
#define NEIGH_RETRY_NS 1000000ull        /* 1 ms */
#define NEIGH_GIVE_UP_NS 3000000000ull  /* 3 s */

int uroce_ether_sys_err(int neg)
{
	errno = -neg;
	switch (-neg) {
	case EPERM:
	case EACCES:
		return UROCE_EPERM;
	case EBUSY:
	case EEXIST:
		return UROCE_EBUSY;
	case ENODEV:
	case ENOENT:
	case ENXIO:
		return UROCE_ENOENT;
	case ENOMEM:
	case ENOBUFS:
		return UROCE_ENOMEM;
	case EINVAL:
	case EOPNOTSUPP:
		return UROCE_EINVAL;
	default:
		return UROCE_EIO;
	}
}

/* The interface's receive queues, as `ethtool -l` counts them (receive-only and combined
 * channels); 1 when the driver does not say. */
static uint32_t rx_queue_count(int s, struct ifreq *r)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};

	r->ifr_data = (char *)&ch;
	if (ioctl(s, SIOCETHTOOL, r) < 0 || ch.rx_count + ch.combined_count == 0)
		return 1;
	return ch.rx_count + ch.combined_count;
}

int uroce_ether_link_info(const char *ifname, struct uroce_ether_link *l)
{
	struct ifreq r;
	int s, err = 0;

	memset(l, 0, sizeof(*l));
	if (!(l->ifindex = (int)if_nametoindex(ifname)))
		return uroce_ether_sys_err(-errno);
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return uroce_ether_sys_err(-errno);
	memset(&r, 0, sizeof(r));
	strncpy(r.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(s, SIOCGIFHWADDR, &r) < 0) {
		err = uroce_ether_sys_err(-errno);
	} else if (r.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		errno = EINVAL;
		err = UROCE_EINVAL;
	} else {
		memcpy(l->mac, r.ifr_hwaddr.sa_data, 6);
		if (ioctl(s, SIOCGIFMTU, &r) < 0)
			err = uroce_ether_sys_err(-errno);
		else
			l->mtu = (uint32_t)r.ifr_mtu;
		l->rx_queues = rx_queue_count(s, &r);
	}
	close(s);
	return err;
}

/* ---- next hops ---- */

/* Looks dst's next hop up again when it is due (resolve()). A multicast group's is no hop
 * but the Ethernet address the group maps to, for good. */
static void neigh_refresh(struct uroce_ether_neighs *n, struct uroce_ether_neigh *e, uint64_t now)
{
	uint8_t fresh[6];
	int err;

	if (now < e->until)
		return;
	if (uroce_io_addr_is_multicast(&e->dst)) {
		uroce_eth_multicast_mac(e->dst.ip, e->dst.ipv6, e->mac);
		e->known = true;
		e->err = 0;
		e->until = UINT64_MAX;
		return;
	}
	err = n->resolve(n->resolve_arg, &e->dst, fresh);
	(*n->c.resolves)++;
	if (!err) {
		memcpy(e->mac, fresh, 6);
		e->known = true;
	} else if (err != UROCE_EAGAIN) {
		e->known = false; /* no route any more: stop sending */
	}
	/* A known address whose kernel entry is being resolved again stays in use. */
	e->err = err;
	e->until = now + (err ? NEIGH_RETRY_NS : UROCE_ETHER_NEIGH_REFRESH_NS);
}

/* Which entry to give up first: an unused one, then one without held packets (theirs would
 * be lost), then the one due soonest. */
static bool evict_before(const struct uroce_ether_neigh *a, const struct uroce_ether_neigh *b)
{
	if (a->used != b->used)
		return !a->used;
	if (!a->nheld != !b->nheld)
		return !a->nheld;
	return a->until < b->until;
}

/* dst's entry, looked up again when due; claimed when there is none. */
static struct uroce_ether_neigh *neigh_get(struct uroce_ether_neighs *n,
					   const struct uroce_io_addr *dst, uint64_t now)
{
	struct uroce_ether_neigh *victim = &n->e[0];

	for (size_t i = 0; i < UROCE_ETHER_NEIGH_SLOTS; i++) {
		struct uroce_ether_neigh *e = &n->e[i];
		if (e->used && uroce_io_addr_equal(&e->dst, dst)) {
			neigh_refresh(n, e, now);
			return e;
		}
		if (evict_before(e, victim))
			victim = e;
	}
	*n->c.no_neighbour += victim->nheld;
	uint8_t *hold = victim->hold; /* the room stays with the slot */
	memset(victim, 0, sizeof(*victim));
	victim->hold = hold;
	victim->used = true;
	victim->dst = *dst;
	neigh_refresh(n, victim, now);
	return victim;
}

/* When e's held packets are to be looked at: at once when the address is known (the
 * backend had no room), else at the next lookup. */
static uint64_t neigh_due(const struct uroce_ether_neigh *e)
{
	return !e->nheld ? UINT64_MAX : e->known ? 0 : e->until;
}

/* Keeps a datagram until e's address is known; false when it cannot wait. */
static bool neigh_hold(struct uroce_ether_neighs *n, struct uroce_ether_neigh *e,
		       const uint8_t *d, uint32_t len, uint64_t now)
{
	if (e->nheld == UROCE_ETHER_NEIGH_HOLD)
		return false;
	if (!e->hold && !(e->hold = malloc((size_t)UROCE_ETHER_NEIGH_HOLD * n->max_len)))
		return false;
	memcpy(e->hold + (size_t)e->nheld * n->max_len, d, len);
	if (!e->nheld)
		e->held_since = now;
	e->held_len[e->nheld++] = len;
	(*n->c.held)++;
	return true;
}

enum uroce_ether_route uroce_ether_neigh_route(struct uroce_ether_neighs *n,
					       const struct uroce_io_addr *dst, const uint8_t *d,
					       uint32_t len, uint64_t now, uint8_t mac[6])
{
	struct uroce_ether_neigh *e = neigh_get(n, dst, now);

	if (e->known && !e->nheld) {
		memcpy(mac, e->mac, 6);
		return UROCE_ETHER_SEND;
	}
	/* behind the held ones, never before them */
	if ((e->known || e->err == UROCE_EAGAIN) && len <= n->max_len) {
		if (neigh_hold(n, e, d, len, now))
			return UROCE_ETHER_HELD;
		(*n->c.no_neighbour)++;
	} else {
		(*n->c.no_route)++;
	}
	return UROCE_ETHER_DROPPED;
}

void uroce_ether_neigh_release(struct uroce_ether_neighs *n, uint64_t now,
			       uroce_ether_emit_fn emit, void *arg)
{
	for (size_t i = 0; i < UROCE_ETHER_NEIGH_SLOTS; i++) {
		struct uroce_ether_neigh *e = &n->e[i];
		uint32_t sent = 0;

		if (now < neigh_due(e))
			continue;
		neigh_refresh(n, e, now);
		if (e->known) {
			while (sent < e->nheld && emit(arg, e->mac, e->hold + (size_t)sent * n->max_len,
						       e->held_len[sent]))
				sent++;
			/* what the backend had no room for stays, first in line */
			memmove(e->hold, e->hold + (size_t)sent * n->max_len,
				(size_t)(e->nheld - sent) * n->max_len);
			memmove(e->held_len, e->held_len + sent, (e->nheld - sent) * sizeof(uint32_t));
			e->nheld -= sent;
		} else if (e->err != UROCE_EAGAIN) {
			*n->c.no_route += e->nheld;
			e->nheld = 0;
		} else if (now - e->held_since >= NEIGH_GIVE_UP_NS) {
			*n->c.no_neighbour += e->nheld;
			e->nheld = 0;
		}
	}
}

uint64_t uroce_ether_neigh_next_due(const struct uroce_ether_neighs *n)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < UROCE_ETHER_NEIGH_SLOTS; i++)
		if (neigh_due(&n->e[i]) < due)
			due = neigh_due(&n->e[i]);
	return due;
}

void uroce_ether_neigh_free(struct uroce_ether_neighs *n)
{
	for (size_t i = 0; i < UROCE_ETHER_NEIGH_SLOTS; i++) {
		free(n->e[i].hold);
		n->e[i].hold = NULL;
		n->e[i].nheld = 0;
	}
}

/* ---- multicast ---- */

static uint32_t group_index(const struct uroce_ether_groups *g, const struct uroce_io_addr *a)
{
	uint32_t i = 0;

	while (i < g->n && !uroce_io_addr_equal(&g->addr[i], a))
		i++;
	return i;
}

bool uroce_ether_joined(const struct uroce_ether_groups *g, const struct uroce_io_addr *dst)
{
	return group_index(g, dst) < g->n;
}

int uroce_ether_join(struct uroce_ether_groups *g, int ifindex, const struct uroce_io_addr *group,
		     bool join)
{
	uint32_t i;
	int fd, err;

	if (!uroce_io_addr_is_multicast(group))
		return UROCE_EINVAL;
	i = group_index(g, group);
	if (!join) {
		if (i == g->n)
			return UROCE_ENOENT;
		close(g->fd[i]); /* the membership ends with it */
		g->n--;
		g->addr[i] = g->addr[g->n];
		g->fd[i] = g->fd[g->n];
		return 0;
	}
	if (i < g->n)
		return UROCE_EBUSY;
	struct uroce_io_addr *addr = realloc(g->addr, (g->n + 1) * sizeof(*addr));
	if (addr)
		g->addr = addr;
	int *fds = addr ? realloc(g->fd, (g->n + 1) * sizeof(*fds)) : NULL;
	if (!fds)
		return UROCE_ENOMEM;
	g->fd = fds;
	if ((fd = socket(group->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return uroce_ether_sys_err(-errno);
	if (group->ipv6) {
		struct ipv6_mreq mr = {.ipv6mr_interface = (unsigned)ifindex};
		memcpy(&mr.ipv6mr_multiaddr, group->ip, 16);
		err = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr));
	} else {
		struct ip_mreqn mr = {.imr_ifindex = ifindex};
		memcpy(&mr.imr_multiaddr, group->ip, 4);
		err = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
	}
	if (err < 0) {
		err = uroce_ether_sys_err(-errno);
		close(fd);
		return err;
	}
	memset(&g->addr[g->n], 0, sizeof(g->addr[g->n]));
	g->addr[g->n].ipv6 = group->ipv6;
	memcpy(g->addr[g->n].ip, group->ip, group->ipv6 ? 16 : 4);
	g->fd[g->n++] = fd;
	return 0;
}

void uroce_ether_groups_free(struct uroce_ether_groups *g)
{
	for (uint32_t i = 0; i < g->n; i++)
		close(g->fd[i]);
	free(g->addr);
	free(g->fd);
	memset(g, 0, sizeof(*g));
}

void uroce_ether_loop_back(struct uroce_impair_hold *hold, const struct uroce_io_pkt *p,
			   uint64_t now, uint64_t *looped, uint64_t *hold_full)
{
	struct uroce_udp_datagram d;
	struct uroce_io_pkt c = {.data = p->data, .len = p->len};

	if (uroce_udp_datagram_decode(&d, p->data, p->len))
		return;
	c.tos = d.tclass;
	c.src.ipv6 = c.dst.ipv6 = d.ipv6;
	memcpy(c.src.ip, d.src, 16);
	memcpy(c.dst.ip, d.dst, 16);
	if (uroce_impair_hold_push(hold, &c, now))
		(*looped)++;
	else
		(*hold_full)++;
}

/* ---- frames ---- */

void uroce_ether_header(uint8_t *f, const uint8_t dst_mac[6], const uint8_t src_mac[6],
			bool ipv6)
{
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	put_be16(f + 12, ipv6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
}

int uroce_ether_datagram(const struct uroce_io_pkt *pkt, struct uroce_io_addr *dst)
{
	struct uroce_udp_datagram d;

	if (!pkt->data || uroce_udp_datagram_decode(&d, pkt->data, pkt->len) || d.len != pkt->len)
		return UROCE_EINVAL;
	memset(dst, 0, sizeof(*dst));
	dst->ipv6 = d.ipv6;
	memcpy(dst->ip, d.dst, 16);
	return 0;
}

bool uroce_ether_frame_decode(const uint8_t *f, size_t flen, struct uroce_io_pkt *p)
{
	const uint8_t *ip = f + UROCE_ETHER_HLEN;
	struct uroce_udp_datagram d;
	uint16_t type;

	if (flen < UROCE_ETHER_HLEN)
		return false;
	type = get_be16(f + 12);
	/* what follows the IP datagram in the frame is Ethernet padding */
	if ((type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6) ||
	    uroce_udp_datagram_decode(&d, ip, flen - UROCE_ETHER_HLEN) ||
	    d.ipv6 != (type == ETHERTYPE_IPV6) || !d.csum_ok || d.dport != ROCEV2_PORT)
		return false;
	memset(&p->src, 0, sizeof(p->src));
	memset(&p->dst, 0, sizeof(p->dst));
	p->src.ipv6 = p->dst.ipv6 = d.ipv6;
	memcpy(p->src.ip, d.src, 16);
	memcpy(p->dst.ip, d.dst, 16);
	p->tos = d.tclass;
	p->flags = 0;
	p->len = (uint32_t)d.len;
	if (d.len > p->cap) {
		p->len = p->cap;
		p->flags = UROCE_IO_PKT_TRUNC;
	}
	memcpy(p->data, ip, p->len);
	return true;
}

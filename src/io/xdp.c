/* SPDX-License-Identifier: MIT */
/* The AF_XDP backend (xdp.h, docs/udp.md "AF_XDP"). One UMEM of 4 KiB frames: the first half
 * lives in the fill and receive rings, the second half on a free stack for sending and comes
 * back through the completion ring. The rings are libxdp's (xsk.h); the XDP program is
 * xdp_filter.c's. */
#include "xdp.h"

#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/ethtool.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <xdp/xsk.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/eth.h"
#include "wire/ip.h"
#include "xdp_filter.h"

#define ETH_HLEN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD
#define ROCEV2_PORT 4791
#define NEIGH_SLOTS 16
/* Packets to a next hop whose Ethernet address the kernel is still resolving wait, as the
 * kernel's own do in its neighbour entry's queue (net/core/neighbour.c, __neigh_event_send):
 * at most NEIGH_HOLD per hop, looked up again every NEIGH_RETRY_NS, and given up after
 * NEIGH_GIVE_UP_NS (the kernel's ARP gives up after 3 probes 1 s apart, mcast_solicit and
 * retrans_time_ms). A hop that is not resolving is looked up again after NEIGH_RETRY_NS. */
#define NEIGH_HOLD 16
#define NEIGH_RETRY_NS 1000000ull        /* 1 ms */
#define NEIGH_GIVE_UP_NS 3000000000ull  /* 3 s */

struct neigh {
	struct uroce_io_addr dst;
	uint8_t mac[6];
	bool used, known;
	int err;        /* the last lookup's result */
	uint64_t until; /* look up again from then on */
	/* Packets waiting for the address: send frames (UMEM offsets) holding the datagram
	 * behind room for the Ethernet header, in the order they were sent. */
	uint64_t held[NEIGH_HOLD];
	uint32_t held_len[NEIGH_HOLD];
	uint32_t nheld;
	uint64_t held_since;
};

/* A multicast group joined (xdp_join): a UDP socket that holds the membership. */
struct xdp_group {
	struct uroce_io_addr addr;
	int fd;
};

struct xdp {
	struct uroce_io io; /* first: the ops receive &io */
	union uroce_xdp_counters c;
	uint8_t mac[6];
	int ifindex;
	uint32_t max_frame; /* the longest Ethernet frame (without FCS) the interface takes */
	uint32_t rx_queues; /* the interface's receive queues (ethtool channels), 1 when unknown */
	uroce_xdp_resolve_fn resolve;
	void *resolve_arg;

	struct uroce_xdp_filter filter;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	int fd;
	uint8_t *area;
	size_t area_len;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;

	uint64_t *tx_free; /* free send frames (UMEM offsets), a stack */
	uint32_t ntx_free;
	uint64_t *refill;  /* received frames the fill ring had no room for yet */
	uint32_t nrefill;
	uint32_t unsent;   /* frames on the transmit ring the kernel may not have taken yet */

	struct neigh neigh[NEIGH_SLOTS];

	bool impaired;
	struct uroce_impair im;
	struct uroce_impair_hold hold;

	struct xdp_group *groups;
	uint32_t ngroups;
};

static const struct uroce_io_ops xdp_ops;

static const char *const counter_names[] = {
#define NAME(name, desc) #name,
	UROCE_XDP_COUNTERS(NAME)
#undef NAME
};
static const char *const counter_descs[] = {
#define DESC(name, desc) desc,
	UROCE_XDP_COUNTERS(DESC)
#undef DESC
};

const char *uroce_xdp_counter_name(enum uroce_xdp_counter c)
{
	return (unsigned)c < UROCE_XDP_NCOUNTERS ? counter_names[c] : NULL;
}

const char *uroce_xdp_counter_desc(enum uroce_xdp_counter c)
{
	return (unsigned)c < UROCE_XDP_NCOUNTERS ? counter_descs[c] : NULL;
}

const union uroce_xdp_counters *uroce_xdp_counters(const struct uroce_io *io)
{
	return io && io->ops == &xdp_ops ? &((const struct xdp *)(const void *)io)->c : NULL;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A negative errno (libbpf and libxdp return those) as a UROCE_E* code; errno keeps it. */
static int sys_err(int neg)
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

/* ---- neighbours ---- */

/* Looks dst's next hop up again when it is due (resolve()). A multicast group's is no hop
 * but the Ethernet address the group maps to, for good. */
static void neigh_refresh(struct xdp *x, struct neigh *e, uint64_t now)
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
	err = x->resolve(x->resolve_arg, &e->dst, fresh);
	x->c.resolves++;
	if (!err) {
		memcpy(e->mac, fresh, 6);
		e->known = true;
	} else if (err != UROCE_EAGAIN) {
		e->known = false; /* no route any more: stop sending */
	}
	/* A known address whose kernel entry is being resolved again stays in use. */
	e->err = err;
	e->until = now + (err ? NEIGH_RETRY_NS : UROCE_XDP_NEIGH_REFRESH_NS);
}

/* Gives the frames of e's held packets back, counting them lost under `counter`. */
static void neigh_drop_held(struct xdp *x, struct neigh *e, uint64_t *counter)
{
	for (uint32_t k = 0; k < e->nheld; k++)
		x->tx_free[x->ntx_free++] = e->held[k];
	*counter += e->nheld;
	e->nheld = 0;
}

/* Which entry to give up first: an unused one, then one without held packets (theirs would
 * be lost), then the one due soonest. */
static bool evict_before(const struct neigh *a, const struct neigh *b)
{
	if (a->used != b->used)
		return !a->used;
	if (!a->nheld != !b->nheld)
		return !a->nheld;
	return a->until < b->until;
}

/* dst's entry, looked up again when due; claimed when there is none. */
static struct neigh *neigh_get(struct xdp *x, const struct uroce_io_addr *dst, uint64_t now)
{
	struct neigh *victim = &x->neigh[0];

	for (size_t i = 0; i < NEIGH_SLOTS; i++) {
		struct neigh *n = &x->neigh[i];
		if (n->used && uroce_io_addr_equal(&n->dst, dst)) {
			neigh_refresh(x, n, now);
			return n;
		}
		if (evict_before(n, victim))
			victim = n;
	}
	neigh_drop_held(x, victim, &x->c.send_no_neighbour);
	memset(victim, 0, sizeof(*victim));
	victim->used = true;
	victim->dst = *dst;
	neigh_refresh(x, victim, now);
	return victim;
}

/* When e's held packets are to be looked at: at once when the address is known (the
 * transmit ring was full), else at the next lookup. */
static uint64_t neigh_due(const struct neigh *e)
{
	return !e->nheld ? UINT64_MAX : e->known ? 0 : e->until;
}

/* Writes the Ethernet header of a frame to e's next hop. */
static void eth_header(const struct xdp *x, const struct neigh *e, uint8_t *f)
{
	memcpy(f, e->mac, 6);
	memcpy(f + 6, x->mac, 6);
	put_be16(f + 12, e->dst.ipv6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
}

/* Puts a frame on the transmit ring (a slot was reserved); the caller submits. */
static void tx_put(struct xdp *x, uint32_t idx, uint64_t addr, uint32_t len)
{
	struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx);

	d->addr = addr;
	d->len = len;
	d->options = 0;
}

/* Sends or drops the held packets whose next hop is due for another look; returns how many
 * went on the transmit ring (reserved, not yet submitted). */
static uint32_t neigh_release(struct xdp *x, uint64_t now)
{
	uint32_t queued = 0, idx;

	for (size_t i = 0; i < NEIGH_SLOTS; i++) {
		struct neigh *e = &x->neigh[i];

		if (now < neigh_due(e))
			continue;
		neigh_refresh(x, e, now);
		if (e->known) {
			if (xsk_ring_prod__reserve(&x->tx, e->nheld, &idx) != e->nheld)
				continue; /* the ring is full: next time */
			for (uint32_t k = 0; k < e->nheld; k++) {
				uint8_t *f = xsk_umem__get_data(x->area, e->held[k]);
				eth_header(x, e, f);
				tx_put(x, idx + k, e->held[k], e->held_len[k] + ETH_HLEN);
			}
			queued += e->nheld;
			e->nheld = 0;
		} else if (e->err != UROCE_EAGAIN) {
			neigh_drop_held(x, e, &x->c.send_no_route);
		} else if (now - e->held_since >= NEIGH_GIVE_UP_NS) {
			neigh_drop_held(x, e, &x->c.send_no_neighbour);
		}
	}
	return queued;
}

/* Keeps a packet until e's address is known, or counts it lost when it cannot wait. */
static void neigh_hold(struct xdp *x, struct neigh *e, const struct uroce_io_pkt *p, uint64_t now)
{
	if (e->nheld == NEIGH_HOLD || !x->ntx_free) {
		x->c.send_no_neighbour++;
		return;
	}
	uint64_t addr = x->tx_free[--x->ntx_free];

	memcpy((uint8_t *)xsk_umem__get_data(x->area, addr) + ETH_HLEN, p->data, p->len);
	if (!e->nheld)
		e->held_since = now;
	e->held[e->nheld] = addr;
	e->held_len[e->nheld++] = p->len;
	x->c.neigh_held++;
}

static uint64_t xdp_next_deadline(const struct uroce_io *io)
{
	const struct xdp *x = (const struct xdp *)(const void *)io;
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < NEIGH_SLOTS; i++)
		if (neigh_due(&x->neigh[i]) < due)
			due = neigh_due(&x->neigh[i]);
	if (uroce_impair_hold_next_due(&x->hold) < due)
		due = uroce_impair_hold_next_due(&x->hold);
	return due;
}

/* ---- sending ---- */

/* Takes back the send frames the kernel is done with. */
static void reclaim(struct xdp *x)
{
	uint32_t idx, n = xsk_ring_cons__peek(&x->comp, UINT32_MAX, &idx);

	for (uint32_t i = 0; i < n; i++)
		x->tx_free[x->ntx_free++] = *xsk_ring_cons__comp_addr(&x->comp, idx + i);
	xsk_ring_cons__release(&x->comp, n);
}

/* Tells the kernel to send what waits on the transmit ring. In copy mode each call sends at
 * most 32 frames (TX_BATCH_SIZE in net/xdp/xsk.c; EAGAIN when more wait), so a longer run
 * takes several; a call that made no progress (a full device queue) ends the loop, and the
 * next send or recv tries again. */
static void kick(struct xdp *x)
{
	while (x->unsent) {
		uint32_t before = __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE);

		if (xsk_ring_prod__needs_wakeup(&x->tx)) {
			x->c.kicks++;
			if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
			    errno != EBUSY && errno != ENOBUFS && errno != EINTR)
				x->c.kick_errors++;
		}
		uint32_t taken = __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE) - before;
		x->unsent -= taken < x->unsent ? taken : x->unsent;
		if (!taken)
			break;
	}
}

/* The headers of an IP datagram send() takes, and its destination; UROCE_EINVAL when it is
 * not one. */
static int datagram_parse(const struct uroce_io_pkt *pkt, struct uroce_udp_datagram *d,
			  struct uroce_io_addr *dst)
{
	if (!pkt->data || uroce_udp_datagram_decode(d, pkt->data, pkt->len) || d->len != pkt->len)
		return UROCE_EINVAL;
	memset(dst, 0, sizeof(*dst));
	dst->ipv6 = d->ipv6;
	memcpy(dst->ip, d->dst, 16);
	return 0;
}

/* Hands the queued frames to the kernel. */
static void tx_submit(struct xdp *x, uint32_t queued)
{
	if (!queued)
		return;
	xsk_ring_prod__submit(&x->tx, queued);
	x->c.sent += queued;
	x->unsent += queued;
	kick(x);
}

/* The index of the group dst among the handle's, or ngroups. */
static uint32_t group_index(const struct xdp *x, const struct uroce_io_addr *dst)
{
	uint32_t i = 0;

	while (i < x->ngroups && !uroce_io_addr_equal(&x->groups[i].addr, dst))
		i++;
	return i;
}

/* A datagram to a group the handle joined comes back to it through the hold queue, due now,
 * as the kernel's IP_MULTICAST_LOOP hands a socket's own group datagrams back: the frame
 * itself leaves on the wire past the kernel's stack, which never loops it. */
static void loop_back(struct xdp *x, const struct uroce_io_pkt *p,
		      const struct uroce_udp_datagram *d, const struct uroce_io_addr *dst,
		      uint64_t now)
{
	struct uroce_io_pkt c = {.data = p->data, .len = p->len, .tos = d->tclass, .dst = *dst};

	c.src.ipv6 = d->ipv6;
	memcpy(c.src.ip, d->src, 16);
	if (uroce_impair_hold_push(&x->hold, &c, now))
		x->c.looped++;
	else
		x->c.hold_full++;
}

static int xdp_send(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n)
{
	struct xdp *x = (struct xdp *)io;
	uint64_t now = now_ns();
	uint32_t queued;
	size_t i;

	if (n > INT_MAX)
		n = INT_MAX;
	reclaim(x);
	queued = neigh_release(x, now); /* held packets first: they were sent earlier */
	for (i = 0; i < n; i++) {
		const struct uroce_io_pkt *p = &pkts[i];
		struct uroce_udp_datagram d;
		struct uroce_io_addr dst;
		struct neigh *e;
		uint32_t idx;

		if (datagram_parse(p, &d, &dst) < 0)
			break;
		if (p->len + ETH_HLEN > x->max_frame) {
			x->c.send_too_big++;
			continue;
		}
		if (group_index(x, &dst) < x->ngroups)
			loop_back(x, p, &d, &dst, now);
		e = neigh_get(x, &dst, now);
		if (!e->known || e->nheld) { /* behind the held ones, never before them */
			if (e->known || e->err == UROCE_EAGAIN)
				neigh_hold(x, e, p, now);
			else
				x->c.send_no_route++;
			continue;
		}
		if (!x->ntx_free || xsk_ring_prod__reserve(&x->tx, 1, &idx) != 1) {
			x->c.send_full++;
			continue;
		}
		uint64_t addr = x->tx_free[--x->ntx_free];
		uint8_t *f = xsk_umem__get_data(x->area, addr);

		eth_header(x, e, f);
		memcpy(f + ETH_HLEN, p->data, p->len);
		tx_put(x, idx, addr, p->len + ETH_HLEN);
		queued++;
	}
	tx_submit(x, queued);
	if (i < n && i == 0)
		return UROCE_EINVAL;
	return (int)i;
}

/* ---- receiving ---- */

bool uroce_xdp_frame_decode(const uint8_t *f, size_t flen, struct uroce_io_pkt *p)
{
	const uint8_t *ip = f + ETH_HLEN;
	struct uroce_udp_datagram d;
	uint16_t type;

	if (flen < ETH_HLEN)
		return false;
	type = get_be16(f + 12);
	/* what follows the IP datagram in the frame is Ethernet padding */
	if ((type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6) ||
	    uroce_udp_datagram_decode(&d, ip, flen - ETH_HLEN) ||
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

/* Gives received frames back to the kernel. The fill ring is as large as the receive half of
 * the UMEM, but the kernel publishes what it took from it lazily (at its next batch), so its
 * room can trail the frames just read: the rest wait in refill for a later call. */
static void refill(struct xdp *x)
{
	uint32_t n = xsk_prod_nb_free(&x->fill, x->nrefill), idx;

	if (n > x->nrefill)
		n = x->nrefill;
	if (!n || xsk_ring_prod__reserve(&x->fill, n, &idx) != n)
		return;
	x->nrefill -= n;
	for (uint32_t i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = x->refill[x->nrefill + i];
	xsk_ring_prod__submit(&x->fill, n);
}

/* The impairments of a packet just decoded into p; true when it is delivered now. */
static bool impair(struct xdp *x, struct uroce_io_pkt *p, uint64_t now)
{
	struct uroce_impair_tally t = {0};
	bool deliver = uroce_impair_receive(&x->im, &x->hold, p, now, &t);

	UROCE_IMPAIR_TALLY_ADD(&x->c, t);
	return deliver;
}

static int xdp_recv(struct uroce_io *io, struct uroce_io_pkt *pkts, size_t n)
{
	struct xdp *x = (struct xdp *)io;
	uint64_t now = now_ns();
	uint32_t idx, got;
	size_t out;

	reclaim(x);
	tx_submit(x, neigh_release(x, now));
	kick(x); /* frames a full device queue left behind */
	if (n > INT_MAX)
		n = INT_MAX;
	/* Held packets that are due arrived before anything still in the ring. */
	out = uroce_impair_hold_release(&x->hold, pkts, n, now, &x->c.truncated);
	got = xsk_ring_cons__peek(&x->rx, (uint32_t)(n - out), &idx);
	if (!got) {
		refill(x);
		if (xsk_ring_prod__needs_wakeup(&x->fill))
			recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	}
	for (uint32_t i = 0; i < got; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
		const uint8_t *f = xsk_umem__get_data(x->area, xsk_umem__add_offset_to_addr(d->addr));
		struct uroce_io_pkt *p = &pkts[out];

		if (!uroce_xdp_frame_decode(f, d->len, p)) {
			x->c.bad_frames++;
		} else {
			x->c.truncated += (p->flags & UROCE_IO_PKT_TRUNC) != 0;
			p->ts_ns = now;
			out += !x->impaired || impair(x, p, now);
		}
		x->refill[x->nrefill++] = xsk_umem__extract_addr(d->addr);
	}
	if (got) {
		xsk_ring_cons__release(&x->rx, got);
		refill(x);
		x->c.received += got;
	}
	/* A duplicate made above is due now: it follows its original. */
	out += uroce_impair_hold_release(&x->hold, pkts + out, n - out, now, &x->c.truncated);
	x->c.delivered += out;
	return (int)out;
}

static int xdp_fd(struct uroce_io *io)
{
	return ((struct xdp *)io)->fd;
}

/* Releases what xdp_setup made, so that it can run again. */
static void xdp_teardown(struct xdp *x)
{
	uroce_xdp_filter_close(&x->filter); /* first: no more packets for a closing socket */
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area)
		munmap(x->area, x->area_len);
	free(x->tx_free);
	free(x->refill);
	x->xsk = NULL;
	x->umem = NULL;
	x->area = NULL;
	x->tx_free = x->refill = NULL;
	x->ntx_free = x->nrefill = x->unsent = 0;
	x->fd = -1;
}

/* The io op join. The AF_XDP socket takes every frame to UDP port 4791 that reaches the
 * interface queue, a group's too (the XDP program looks at no address); what joining adds is
 * the membership: a UDP socket that joins the group on the interface, so that the kernel
 * sends the IGMP or MLD report (switches that snoop them forward the group's traffic there)
 * and accepts the group's Ethernet address in the NIC's filter. The socket reads nothing:
 * it has no port, and the program takes the frames before the kernel's stack. */
static int xdp_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join)
{
	struct xdp *x = (struct xdp *)io;
	uint32_t i;

	if (!uroce_io_addr_is_multicast(group))
		return UROCE_EINVAL;
	i = group_index(x, group);
	if (!join) {
		if (i == x->ngroups)
			return UROCE_ENOENT;
		close(x->groups[i].fd); /* the membership ends with it */
		x->groups[i] = x->groups[--x->ngroups];
		return 0;
	}
	if (i < x->ngroups)
		return UROCE_EBUSY;
	struct xdp_group *groups = realloc(x->groups, (x->ngroups + 1) * sizeof(*groups));
	if (!groups)
		return UROCE_ENOMEM;
	x->groups = groups;
	int fd = socket(group->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;
	if (fd < 0)
		return sys_err(-errno);
	if (group->ipv6) {
		struct ipv6_mreq mr = {.ipv6mr_interface = (unsigned)x->ifindex};
		memcpy(&mr.ipv6mr_multiaddr, group->ip, 16);
		err = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr));
	} else {
		struct ip_mreqn mr = {.imr_ifindex = x->ifindex};
		memcpy(&mr.imr_multiaddr, group->ip, 4);
		err = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
	}
	if (err < 0) {
		err = sys_err(-errno);
		close(fd);
		return err;
	}
	memset(&groups[x->ngroups].addr, 0, sizeof(groups[x->ngroups].addr));
	groups[x->ngroups].addr.ipv6 = group->ipv6;
	memcpy(groups[x->ngroups].addr.ip, group->ip, group->ipv6 ? 16 : 4);
	groups[x->ngroups++].fd = fd;
	return 0;
}

static void xdp_close(struct uroce_io *io)
{
	struct xdp *x = (struct xdp *)io;

	for (uint32_t i = 0; i < x->ngroups; i++)
		close(x->groups[i].fd);
	free(x->groups);
	xdp_teardown(x);
	uroce_impair_hold_free(&x->hold);
	free(x);
}

static const struct uroce_io_ops xdp_ops = {
	.name = "xdp",
	.send = xdp_send,
	.recv = xdp_recv,
	.fd = xdp_fd,
	.close = xdp_close,
	.next_deadline = xdp_next_deadline,
	.join = xdp_join,
};

/* ---- opening ---- */

uint32_t uroce_xdp_rx_queues(const struct uroce_io *io)
{
	return io && io->ops == &xdp_ops ? ((const struct xdp *)(const void *)io)->rx_queues : 0;
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

/* The interface's Ethernet address, MTU and receive queues. */
static int link_info(const char *ifname, uint8_t mac[6], uint32_t *mtu, uint32_t *queues)
{
	struct ifreq r;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (s < 0)
		return sys_err(-errno);
	memset(&r, 0, sizeof(r));
	strncpy(r.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(s, SIOCGIFHWADDR, &r) < 0) {
		err = sys_err(-errno);
	} else if (r.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		errno = EINVAL;
		err = UROCE_EINVAL; /* lo and tunnels: no Ethernet header to write */
	} else {
		memcpy(mac, r.ifr_hwaddr.sa_data, 6);
		if (ioctl(s, SIOCGIFMTU, &r) < 0)
			err = sys_err(-errno);
		else
			*mtu = (uint32_t)r.ifr_mtu;
		*queues = rx_queue_count(s, &r);
	}
	close(s);
	return err;
}

static int xdp_setup(struct xdp *x, const struct uroce_xdp_cfg *cfg, uint32_t frames)
{
	uint32_t half = frames / 2, mtu = 0;
	int ifindex = (int)if_nametoindex(cfg->ifname), err;

	if (!ifindex)
		return sys_err(-errno);
	if ((err = link_info(cfg->ifname, x->mac, &mtu, &x->rx_queues)))
		return err;
	x->ifindex = ifindex;
	if (mtu + ETH_HLEN > UROCE_XDP_MAX_FRAME) {
		errno = EINVAL;
		return UROCE_EINVAL;
	}
	x->max_frame = mtu + ETH_HLEN;

	x->area_len = (size_t)frames * UROCE_XDP_FRAME_SIZE;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		return sys_err(-errno);
	}
	x->tx_free = calloc(half, sizeof(*x->tx_free));
	x->refill = calloc(half, sizeof(*x->refill));
	if (!x->tx_free || !x->refill)
		return UROCE_ENOMEM;

	const struct xsk_umem_config ucfg = {
		.fill_size = half,
		.comp_size = half,
		.frame_size = UROCE_XDP_FRAME_SIZE,
		.frame_headroom = 0,
	};
	if ((err = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fill, &x->comp, &ucfg)))
		return x->umem = NULL, sys_err(err);

	if ((err = uroce_xdp_filter_load(ROCEV2_PORT, cfg->queue + 1, XDP_PASS, &x->filter)))
		return sys_err(err);

	/* The program is ours (xdp_filter.c): libxdp must not load its own. Zero-copy when
	 * the driver has it, else copy mode (veth, and generic XDP). */
	const struct xsk_socket_config scfg = {
		.rx_size = half,
		.tx_size = half,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP,
	};
	if ((err = xsk_socket__create(&x->xsk, cfg->ifname, cfg->queue, x->umem, &x->rx, &x->tx,
				      &scfg)))
		return x->xsk = NULL, sys_err(err);
	x->fd = xsk_socket__fd(x->xsk);
	if (bpf_map_update_elem(x->filter.map_fd, &cfg->queue, &x->fd, 0))
		return sys_err(-errno);
	bool generic;
	if ((err = uroce_xdp_filter_attach(&x->filter, ifindex, &generic)))
		return sys_err(err);

	for (uint32_t i = 0; i < half; i++)
		x->refill[x->nrefill++] = (uint64_t)i * UROCE_XDP_FRAME_SIZE;
	refill(x);
	for (uint32_t i = 0; i < half; i++)
		x->tx_free[x->ntx_free++] = (uint64_t)(half + i) * UROCE_XDP_FRAME_SIZE;
	return 0;
}

int uroce_xdp_open(const struct uroce_xdp_cfg *cfg, struct uroce_io **out)
{
	uint32_t frames;
	struct xdp *x;
	int err;

	if (!cfg || !out || !cfg->ifname || !cfg->resolve)
		return UROCE_EINVAL;
	frames = cfg->frames ? cfg->frames : UROCE_XDP_FRAMES;
	if (frames < 64 || frames > 65536 || (frames & (frames - 1)) || cfg->queue >= 1024 ||
	    cfg->hold_pkts > (1u << 20))
		return UROCE_EINVAL;
	if (!(x = calloc(1, sizeof(*x))))
		return UROCE_ENOMEM;
	x->io.ops = &xdp_ops;
	x->fd = -1;
	x->filter.prog_fd = x->filter.map_fd = x->filter.link_fd = -1;
	x->resolve = cfg->resolve;
	x->resolve_arg = cfg->resolve_arg;
	if (cfg->impair) {
		if ((err = uroce_impair_init(&x->im, cfg->impair, 0))) {
			free(x);
			return err;
		}
		x->impaired = true;
	}
	if (!(err = uroce_impair_hold_init(&x->hold, cfg->hold_pkts ? cfg->hold_pkts : 1024))) {
		/* The kernel frees a closed AF_XDP socket's hold on its queue from a work queue:
		 * a handle reopened on the queue at once finds it busy for a millisecond or two. */
		for (int tries = 0; (err = xdp_setup(x, cfg, frames)) == UROCE_EBUSY && tries < 50;
		     tries++) {
			xdp_teardown(x);
			usleep(2000);
		}
	}
	if (err) {
		int saved = errno;
		xdp_close(&x->io);
		errno = saved;
		return err;
	}
	*out = &x->io;
	return 0;
}

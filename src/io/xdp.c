/* SPDX-License-Identifier: MIT */
/* The AF_XDP backend (xdp.h, docs/udp.md "AF_XDP"). One UMEM of 4 KiB frames: the first half
 * lives in the fill and receive rings, the second half on a free stack for sending and comes
 * back through the completion ring. The rings are libxdp's (xsk.h); the XDP program is
 * xdp_filter.c's. */
#include "xdp.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#include "common/error.h"
#include "ether.h"
#include "xdp_filter.h"

#define ETH_HLEN UROCE_ETHER_HLEN
#define ROCEV2_PORT 4791
struct xdp {
	struct uroce_io io; /* first: the ops receive &io */
	union uroce_xdp_counters c;
	struct uroce_ether_link link;
	uint32_t max_frame; /* the longest Ethernet frame (without FCS) the interface takes */

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

	struct uroce_ether_neighs neighs;
	uint32_t queued; /* frames reserved on the transmit ring by this call, not submitted */

	bool impaired;
	struct uroce_impair im;
	struct uroce_impair_hold hold;

	struct uroce_ether_groups groups;
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

/* Puts a frame on the transmit ring (a slot was reserved); the caller submits. */
static void tx_put(struct xdp *x, uint32_t idx, uint64_t addr, uint32_t len)
{
	struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx);

	d->addr = addr;
	d->len = len;
	d->options = 0;
}

/* Puts one held datagram, waiting no more, on the transmit ring (uroce_ether_emit_fn). */
static bool emit_held(void *arg, const uint8_t mac[6], const uint8_t *d, uint32_t len)
{
	struct xdp *x = arg;
	uint32_t idx;

	if (!x->ntx_free || xsk_ring_prod__reserve(&x->tx, 1, &idx) != 1)
		return false; /* the ring is full: next time */
	uint64_t addr = x->tx_free[--x->ntx_free];
	uint8_t *f = xsk_umem__get_data(x->area, addr);

	uroce_ether_header(f, mac, x->link.mac, (d[0] >> 4) == 6);
	memcpy(f + ETH_HLEN, d, len);
	tx_put(x, idx, addr, len + ETH_HLEN);
	x->queued++;
	return true;
}

static uint64_t xdp_next_deadline(const struct uroce_io *io)
{
	const struct xdp *x = (const struct xdp *)(const void *)io;
	uint64_t due = uroce_ether_neigh_next_due(&x->neighs);

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

/* Hands the frames queued by this call to the kernel. */
static void tx_submit(struct xdp *x)
{
	if (!x->queued)
		return;
	xsk_ring_prod__submit(&x->tx, x->queued);
	x->c.sent += x->queued;
	x->unsent += x->queued;
	x->queued = 0;
	kick(x);
}

static int xdp_send(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n)
{
	struct xdp *x = (struct xdp *)io;
	uint64_t now = now_ns();
	size_t i;

	if (n > INT_MAX)
		n = INT_MAX;
	reclaim(x);
	/* held packets first: they were sent earlier */
	uroce_ether_neigh_release(&x->neighs, now, emit_held, x);
	for (i = 0; i < n; i++) {
		const struct uroce_io_pkt *p = &pkts[i];
		struct uroce_io_addr dst;
		uint8_t mac[6];
		uint32_t idx;

		if (uroce_ether_datagram(p, &dst) < 0)
			break;
		if (p->len + ETH_HLEN > x->max_frame) {
			x->c.send_too_big++;
			continue;
		}
		if (uroce_ether_joined(&x->groups, &dst))
			uroce_ether_loop_back(&x->hold, p, now, &x->c.looped, &x->c.hold_full);
		if (uroce_ether_neigh_route(&x->neighs, &dst, p->data, p->len, now, mac) !=
		    UROCE_ETHER_SEND)
			continue;
		if (!x->ntx_free || xsk_ring_prod__reserve(&x->tx, 1, &idx) != 1) {
			x->c.send_full++;
			continue;
		}
		uint64_t addr = x->tx_free[--x->ntx_free];
		uint8_t *f = xsk_umem__get_data(x->area, addr);

		uroce_ether_header(f, mac, x->link.mac, dst.ipv6);
		memcpy(f + ETH_HLEN, p->data, p->len);
		tx_put(x, idx, addr, p->len + ETH_HLEN);
		x->queued++;
	}
	tx_submit(x);
	if (i < n && i == 0)
		return UROCE_EINVAL;
	return (int)i;
}

/* ---- receiving ---- */

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
	uroce_ether_neigh_release(&x->neighs, now, emit_held, x);
	tx_submit(x);
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

		if (!uroce_ether_frame_decode(f, d->len, p)) {
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
 * the membership (ether.h). */
static int xdp_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join)
{
	struct xdp *x = (struct xdp *)io;

	return uroce_ether_join(&x->groups, x->link.ifindex, group, join);
}

static void xdp_close(struct uroce_io *io)
{
	struct xdp *x = (struct xdp *)io;

	uroce_ether_groups_free(&x->groups);
	uroce_ether_neigh_free(&x->neighs);
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
	return io && io->ops == &xdp_ops ? ((const struct xdp *)(const void *)io)->link.rx_queues : 0;
}

static int xdp_setup(struct xdp *x, const struct uroce_xdp_cfg *cfg, uint32_t frames)
{
	uint32_t half = frames / 2;
	int err;

	if ((err = uroce_ether_link_info(cfg->ifname, &x->link)))
		return err;
	if (x->link.mtu + ETH_HLEN > UROCE_XDP_MAX_FRAME) {
		errno = EINVAL;
		return UROCE_EINVAL;
	}
	x->max_frame = x->link.mtu + ETH_HLEN;

	x->area_len = (size_t)frames * UROCE_XDP_FRAME_SIZE;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		return uroce_ether_sys_err(-errno);
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
		return x->umem = NULL, uroce_ether_sys_err(err);

	if ((err = uroce_xdp_filter_load(ROCEV2_PORT, cfg->queue + 1, XDP_PASS, &x->filter)))
		return uroce_ether_sys_err(err);

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
		return x->xsk = NULL, uroce_ether_sys_err(err);
	x->fd = xsk_socket__fd(x->xsk);
	if (bpf_map_update_elem(x->filter.map_fd, &cfg->queue, &x->fd, 0))
		return uroce_ether_sys_err(-errno);
	bool generic;
	if ((err = uroce_xdp_filter_attach(&x->filter, x->link.ifindex, &generic)))
		return uroce_ether_sys_err(err);

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
	x->neighs = (struct uroce_ether_neighs){
		.resolve = cfg->resolve,
		.resolve_arg = cfg->resolve_arg,
		.max_len = UROCE_XDP_MAX_FRAME - ETH_HLEN,
		.c = {.no_neighbour = &x->c.send_no_neighbour, .held = &x->c.neigh_held,
		      .no_route = &x->c.send_no_route, .resolves = &x->c.resolves},
	};
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

/* SPDX-License-Identifier: MIT */
/* The AF_PACKET backend (packet.h, docs/backends.md). One packet socket: a TPACKET_V2 receive
 * ring (packet(7), Documentation/networking/packet_mmap.rst) behind a classic BPF filter, and
 * sendmmsg() for sending. */
#include "packet.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "common/error.h"

#define ROCEV2_PORT 4791
#define SEND_BATCH 64 /* frames per sendmmsg() */
/* A ring frame holds the tpacket2_hdr, the sockaddr_ll and the Ethernet frame with room for
 * a VLAN tag the kernel may put back (TPACKET_ALIGN'ed offsets): 4 KiB for MTUs up to 3 900,
 * the next power of two above. */
#define FRAME_OVERHEAD 256

struct pkt {
	struct uroce_io io; /* first: the ops receive &io */
	union uroce_packet_counters c;
	struct uroce_ether_link link;
	uint32_t max_frame; /* the longest Ethernet frame (without FCS) the interface takes */
	int fd;
	int guard_fd; /* holds UDP port 4791 on the interface, or -1 */

	uint8_t *ring;
	size_t ring_len;
	uint32_t frame_size, nframes, next; /* next: the ring frame to look at */

	struct uroce_ether_neighs neighs;
	struct uroce_ether_groups groups;

	bool impaired;
	struct uroce_impair im;
	struct uroce_impair_hold hold;
};

static const struct uroce_io_ops packet_ops;

static const char *const counter_names[] = {
#define NAME(name, desc) #name,
	UROCE_PACKET_COUNTERS(NAME)
#undef NAME
};
static const char *const counter_descs[] = {
#define DESC(name, desc) desc,
	UROCE_PACKET_COUNTERS(DESC)
#undef DESC
};

const char *uroce_packet_counter_name(enum uroce_packet_counter c)
{
	return (unsigned)c < UROCE_PACKET_NCOUNTERS ? counter_names[c] : NULL;
}

const char *uroce_packet_counter_desc(enum uroce_packet_counter c)
{
	return (unsigned)c < UROCE_PACKET_NCOUNTERS ? counter_descs[c] : NULL;
}

const union uroce_packet_counters *uroce_packet_counters(const struct uroce_io *io)
{
	return io && io->ops == &packet_ops ? &((const struct pkt *)(const void *)io)->c : NULL;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- sending ---- */

/* Sends frames: hdr[i] (the Ethernet header) then data[i]; counts what the kernel took and
 * what it refused (a full device queue, which a network would lose as well). */
static void send_frames(struct pkt *k, uint8_t (*hdr)[UROCE_ETHER_HLEN], const uint8_t *const *data,
			const uint32_t *len, uint32_t n)
{
	struct mmsghdr msg[SEND_BATCH];
	struct iovec iov[SEND_BATCH][2];
	uint32_t done = 0;

	for (uint32_t i = 0; i < n; i++) {
		iov[i][0] = (struct iovec){.iov_base = hdr[i], .iov_len = UROCE_ETHER_HLEN};
		iov[i][1] = (struct iovec){.iov_base = (void *)(uintptr_t)data[i], .iov_len = len[i]};
		msg[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = iov[i], .msg_iovlen = 2}};
	}
	while (done < n) {
		int r = sendmmsg(k->fd, msg + done, n - done, MSG_DONTWAIT);

		k->c.send_calls++;
		if (r > 0) {
			k->c.sent += (uint32_t)r;
			done += (uint32_t)r;
		} else if (r < 0 && errno == EINTR) {
			continue;
		} else {
			k->c.send_dropped++; /* the first one failed: drop it, try the rest */
			done++;
		}
	}
}

/* One held datagram, waiting no more (uroce_ether_emit_fn). */
static bool emit_held(void *arg, const uint8_t mac[6], const uint8_t *d, uint32_t len)
{
	struct pkt *k = arg;
	uint8_t hdr[1][UROCE_ETHER_HLEN];

	uroce_ether_header(hdr[0], mac, k->link.mac, (d[0] >> 4) == 6);
	send_frames(k, hdr, &d, &len, 1);
	return true;
}

static int packet_send(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n)
{
	struct pkt *k = (struct pkt *)io;
	uint8_t hdr[SEND_BATCH][UROCE_ETHER_HLEN];
	const uint8_t *data[SEND_BATCH];
	uint32_t len[SEND_BATCH], batch = 0;
	uint64_t now = now_ns();
	size_t i;

	if (n > INT_MAX)
		n = INT_MAX;
	/* held packets first: they were sent earlier */
	uroce_ether_neigh_release(&k->neighs, now, emit_held, k);
	for (i = 0; i < n; i++) {
		const struct uroce_io_pkt *p = &pkts[i];
		struct uroce_io_addr dst;
		uint8_t mac[6];

		if (uroce_ether_datagram(p, &dst) < 0)
			break;
		if (p->len + UROCE_ETHER_HLEN > k->max_frame) {
			k->c.send_too_big++;
			continue;
		}
		if (uroce_ether_joined(&k->groups, &dst))
			uroce_ether_loop_back(&k->hold, p, now, &k->c.looped, &k->c.hold_full);
		if (uroce_ether_neigh_route(&k->neighs, &dst, p->data, p->len, now, mac) !=
		    UROCE_ETHER_SEND)
			continue;
		uroce_ether_header(hdr[batch], mac, k->link.mac, dst.ipv6);
		data[batch] = p->data;
		len[batch++] = p->len;
		if (batch == SEND_BATCH) {
			send_frames(k, hdr, data, len, batch);
			batch = 0;
		}
	}
	if (batch)
		send_frames(k, hdr, data, len, batch);
	if (i < n && i == 0)
		return UROCE_EINVAL;
	return (int)i;
}

static uint64_t packet_next_deadline(const struct uroce_io *io)
{
	const struct pkt *k = (const struct pkt *)(const void *)io;
	uint64_t due = uroce_ether_neigh_next_due(&k->neighs);

	if (uroce_impair_hold_next_due(&k->hold) < due)
		due = uroce_impair_hold_next_due(&k->hold);
	return due;
}

/* ---- receiving ---- */

/* The frames the kernel dropped for want of ring space since the last look (it flags the
 * next frame it delivers TP_STATUS_LOSING; reading the statistics clears them). */
static void count_ring_drops(struct pkt *k)
{
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);

	if (!getsockopt(k->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
		k->c.ring_drops += st.tp_drops;
}

/* The impairments of a packet just decoded into p; true when it is delivered now. */
static bool impair(struct pkt *k, struct uroce_io_pkt *p, uint64_t now)
{
	struct uroce_impair_tally t = {0};
	bool deliver = uroce_impair_receive(&k->im, &k->hold, p, now, &t);

	UROCE_IMPAIR_TALLY_ADD(&k->c, t);
	return deliver;
}

static int packet_recv(struct uroce_io *io, struct uroce_io_pkt *pkts, size_t n)
{
	struct pkt *k = (struct pkt *)io;
	uint64_t now = now_ns();
	size_t out;

	uroce_ether_neigh_release(&k->neighs, now, emit_held, k);
	if (n > INT_MAX)
		n = INT_MAX;
	/* Held packets that are due arrived before anything still in the ring. */
	out = uroce_impair_hold_release(&k->hold, pkts, n, now, &k->c.truncated);
	while (out < n) {
		struct tpacket2_hdr *h = (void *)(k->ring + (size_t)k->next * k->frame_size);
		uint32_t status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		struct uroce_io_pkt *p = &pkts[out];

		if (!(status & TP_STATUS_USER))
			break;
		if (status & TP_STATUS_LOSING)
			count_ring_drops(k);
		k->c.received++;
		/* The kernel bounds tp_mac + tp_snaplen by the frame; checked all the same. A
		 * frame whose tag the NIC took off belongs to a VLAN interface above this one,
		 * unless it is priority-tagged only (VLAN 0). */
		if ((uint64_t)h->tp_mac + h->tp_snaplen > k->frame_size ||
		    ((status & TP_STATUS_VLAN_VALID) && (h->tp_vlan_tci & 0x0FFF)) ||
		    !uroce_ether_frame_decode((uint8_t *)h + h->tp_mac, h->tp_snaplen, p)) {
			k->c.bad_frames++;
		} else {
			k->c.truncated += (p->flags & UROCE_IO_PKT_TRUNC) != 0;
			p->ts_ns = now;
			out += !k->impaired || impair(k, p, now);
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		k->next = (k->next + 1) & (k->nframes - 1);
	}
	/* A duplicate made above is due now: it follows its original. */
	out += uroce_impair_hold_release(&k->hold, pkts + out, n - out, now, &k->c.truncated);
	k->c.delivered += out;
	return (int)out;
}

static int packet_fd(struct uroce_io *io)
{
	return ((struct pkt *)io)->fd;
}

static int packet_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join)
{
	struct pkt *k = (struct pkt *)io;

	return uroce_ether_join(&k->groups, k->link.ifindex, group, join);
}

static void packet_close(struct uroce_io *io)
{
	struct pkt *k = (struct pkt *)io;

	uroce_ether_groups_free(&k->groups);
	uroce_ether_neigh_free(&k->neighs);
	if (k->ring)
		munmap(k->ring, k->ring_len);
	if (k->fd >= 0)
		close(k->fd);
	if (k->guard_fd >= 0)
		close(k->guard_fd);
	uroce_impair_hold_free(&k->hold);
	free(k);
}

static const struct uroce_io_ops packet_ops = {
	.name = "packet",
	.send = packet_send,
	.recv = packet_recv,
	.fd = packet_fd,
	.close = packet_close,
	.next_deadline = packet_next_deadline,
	.join = packet_join,
};

/* ---- opening ---- */

/* The socket's filter: untagged (or NIC-untagged) IPv4 that is not a fragment, or IPv6
 * without extension headers, carrying UDP to port 4791. The rest of the interface's
 * traffic never reaches the ring. */
static struct sock_filter rocev2_filter[] = { /* not const: sock_fprog points to it */
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),                   /* 0: EtherType */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0800, 0, 7),        /* 1: IPv4, else 9 */
	BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),                   /* 2: protocol */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 11),  /* 3: UDP, else drop */
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),                   /* 4: fragment offset */
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1FFF, 9, 0),       /* 5: a fragment: drop */
	BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),                  /* 6: X = IPv4 header length */
	BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14 + 2),               /* 7: UDP destination port */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCEV2_PORT, 5, 6),   /* 8: accept, else drop */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x86DD, 0, 5),        /* 9: IPv6, else drop */
	BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 6),               /* 10: next header */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 3),   /* 11: UDP, else drop */
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 40 + 2),          /* 12: UDP destination port */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ROCEV2_PORT, 0, 1),   /* 13: accept, else drop */
	BPF_STMT(BPF_RET | BPF_K, 0x40000),                       /* 14: accept the frame */
	BPF_STMT(BPF_RET | BPF_K, 0),                             /* 15: drop */
};

/* Holds UDP port 4791 on the interface, so that the kernel's stack, which sees the frames
 * the ring gets, finds a socket and sends no ICMP port unreachable; the socket keeps nothing
 * (its filter drops all). -1 when the port is taken already (then someone else answers) or
 * cannot be held. */
static int guard_port(const char *ifname)
{
	static struct sock_filter drop_all[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
	const struct sock_fprog prog = {.len = 1, .filter = drop_all};
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(ROCEV2_PORT)};
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), off = 0;

	if (fd < 0)
		return -1;
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int packet_setup(struct pkt *k, const struct uroce_packet_cfg *cfg, uint32_t frames)
{
	const struct sock_fprog prog = {
		.len = sizeof(rocev2_filter) / sizeof(rocev2_filter[0]),
		.filter = rocev2_filter,
	};
	int version = TPACKET_V2, one = 1, err;

	if ((err = uroce_ether_link_info(cfg->ifname, &k->link)))
		return err;
	if (k->link.mtu > UROCE_PACKET_MAX_MTU) {
		errno = EINVAL;
		return UROCE_EINVAL;
	}
	k->max_frame = k->link.mtu + UROCE_ETHER_HLEN;
	k->neighs.max_len = k->link.mtu;
	k->frame_size = 4096;
	while (k->frame_size < k->max_frame + FRAME_OVERHEAD)
		k->frame_size *= 2;
	k->nframes = frames;

	/* Protocol 0: nothing arrives before the filter and the ring are in place and the
	 * socket is bound below. */
	if ((k->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return uroce_ether_sys_err(-errno);
	/* A block holds 16 frames of 4 KiB (fewer larger ones); the ring is whole blocks. */
	uint32_t block = k->frame_size < 65536 ? 65536 : k->frame_size;
	uint32_t per_block = block / k->frame_size;
	if (frames < per_block)
		block = k->frame_size * (per_block = frames);
	struct tpacket_req req = {
		.tp_block_size = block,
		.tp_block_nr = frames / per_block,
		.tp_frame_size = k->frame_size,
		.tp_frame_nr = frames,
	};
	if (setsockopt(k->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) ||
	    setsockopt(k->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    /* our own frames are not ours to receive */
	    setsockopt(k->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) ||
	    setsockopt(k->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		return uroce_ether_sys_err(-errno);
	k->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
	k->ring = mmap(NULL, k->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
	if (k->ring == MAP_FAILED) {
		k->ring = NULL;
		return uroce_ether_sys_err(-errno);
	}
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = k->link.ifindex,
	};
	if (bind(k->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return uroce_ether_sys_err(-errno);
	k->guard_fd = guard_port(cfg->ifname);
	return 0;
}

int uroce_packet_open(const struct uroce_packet_cfg *cfg, struct uroce_io **out)
{
	uint32_t frames;
	struct pkt *k;
	int err;

	if (!cfg || !out || !cfg->ifname || !cfg->resolve)
		return UROCE_EINVAL;
	frames = cfg->frames ? cfg->frames : UROCE_PACKET_FRAMES;
	if (frames < 64 || frames > 65536 || (frames & (frames - 1)) || cfg->hold_pkts > (1u << 20))
		return UROCE_EINVAL;
	if (!(k = calloc(1, sizeof(*k))))
		return UROCE_ENOMEM;
	k->io.ops = &packet_ops;
	k->fd = k->guard_fd = -1;
	k->neighs = (struct uroce_ether_neighs){
		.resolve = cfg->resolve,
		.resolve_arg = cfg->resolve_arg,
		.max_len = UROCE_PACKET_MAX_MTU, /* the interface's MTU, once known */
		.c = {.no_neighbour = &k->c.send_no_neighbour, .held = &k->c.neigh_held,
		      .no_route = &k->c.send_no_route, .resolves = &k->c.resolves},
	};
	if (cfg->impair && (err = uroce_impair_init(&k->im, cfg->impair, 0))) {
		free(k);
		return err;
	}
	k->impaired = cfg->impair != NULL;
	if (!(err = uroce_impair_hold_init(&k->hold, cfg->hold_pkts ? cfg->hold_pkts : 1024)))
		err = packet_setup(k, cfg, frames);
	if (err) {
		int saved = errno;
		packet_close(&k->io);
		errno = saved;
		return err;
	}
	*out = &k->io;
	return 0;
}

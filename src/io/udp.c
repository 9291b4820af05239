/* SPDX-License-Identifier: MIT */
#include "udp.h"

#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "common/error.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/ib.h"
#include "wire/icrc.h"
#include "wire/icrc_id.h"
#include "wire/ip.h"
#include "wire/mad.h"
#include "ipid.h"
#include "share.h"

#define NIL UINT32_MAX
#define BATCH 64                  /* messages per sendmmsg/recvmmsg call */
#define RX_WANT_MIN 4             /* the fewest entries a recvmmsg call is set up for */
#define CTL_LEN 192               /* control data of one message: pktinfo, TOS, TTL, priority, drops (<= 128) */
#define RCVBUF (4 << 20)          /* asked for; the kernel caps it at net.core.rmem_max */
#define SNDBUF (1 << 20)          /* per send socket; capped at net.core.wmem_max */
#define MIN_PAYLOAD (UROCE_BTH_LEN + UROCE_ICRC_LEN)
#define HDR4 (UROCE_IPV4_HLEN + UROCE_UDP_HLEN)
#define HDR6 (UROCE_IPV6_HLEN + UROCE_UDP_HLEN)
#define DEFAULT_TTL 64            /* rebuilt when the kernel gave no TTL / hop limit */
#define MAX_TABLE (1u << 20)      /* most send sockets or hold places */
#define GSO_SEGS 64               /* most datagrams per GSO send (Linux UDP_MAX_SEGMENTS >= 64) */
#define GSO_BYTES 65507           /* most bytes per GSO send: one IPv4 datagram's UDP payload */
#define BTH_DEST_QP 5             /* the BTH's DestQP: bytes 5..7 (IBA 9.2) */
#define FWD_EVERY 16              /* recv calls per read of the forwarding sockets (udp_recv) */

/* ---- the backend's state ---- */

/* A receive socket: one per configured address (the first naddrs of struct udp's rx), then
 * one per multicast group joined (udp_join). */
struct rx_sock {
	int fd;
	bool ipv6;
	uint32_t drops;            /* the kernel's drop count last seen (SO_RXQ_OVFL) */
	struct uroce_io_addr addr; /* bound: the destination when no pktinfo came */
	size_t want;               /* entries its recvmmsg calls are set up for (rx_drain) */
	/* A configured IPv6 address: the index of its interface, found when a datagram from it
	 * first goes to a group (tx_fill); 0 before, or when no interface carries it. */
	unsigned ifindex;
	bool ifindex_known;
	/* A configured address shared with the user's other processes (share.h): the socket's
	 * group, which owns the socket, and when its work is next due; else NULL. */
	struct uroce_share_group *group;
	uint64_t group_due;
};

/* A send socket, bound to (ip, sport). */
struct tx_sock {
	int fd;
	bool ipv6;
	uint16_t sport;      /* the QP's: the packets' and the cache's key */
	uint16_t wire_sport; /* the port bound: sport, unless another socket held it (tx_open) */
	uint8_t ip[16];
	/* The socket's own TOS (traffic class) and TTL (hop limit), set when it opens from its
	 * first packet, or -1 (the kernel's default): packets that agree go without control
	 * messages (tx_fill). */
	int16_t tos, ttl;
	uint32_t next;     /* hash chain */
	uint64_t last_use;
};

union ctl_buf {
	struct cmsghdr align;
	uint8_t b[CTL_LEN];
};

struct udp {
	struct uroce_io io; /* first: the ops receive &io */
	union uroce_udp_counters c;
	uint16_t port;
	bool solve_id, impaired;
	int8_t prio_cmsg; /* SO_PRIORITY as a control message: 0 not probed yet, 1 taken, -1 not */
	int epfd, tfd;

	struct rx_sock *rx;
	size_t nrx, rx_next;
	size_t naddrs, rx_cap;  /* rx[0..naddrs): the configured addresses; then the groups */

	struct tx_sock *tx;
	uint32_t tx_max, tx_used, nbuckets;
	uint32_t *buckets;
	uint64_t tick;

	struct uroce_impair im;
	struct uroce_impair_hold hold; /* impaired packets, and those rx_place had no room for */
	uint64_t armed;                /* the timerfd's expiry: the earliest held packet's due */

	struct uroce_share *share; /* cfg.share: the receive sockets of the addresses are shared */
	/* The addresses' groups, as rx[0..naddrs) has them, in an array that, unlike rx, never
	 * moves: the CM's calls (uroce_udp_share_cm, _listen) come from other threads. */
	struct uroce_share_group **groups;
	uint32_t fwd_calls;        /* recv calls, for FWD_EVERY */

	struct uroce_icrc_id_cache idc;
	struct uroce_ipid ipid;   /* each IPv4 peer's ID sequences: which solved IDs to accept */
	bool gso;                 /* UDP_SEGMENT in use: until the kernel refuses it */
	struct uroce_icrc_id_terms gso_terms;
	struct uroce_icrc_id_terms port_terms; /* for sockets bound to another port (tx_open) */

	/* A sendmmsg/recvmmsg batch. Sending, message m holds segs[m] packets: one, or a GSO
	 * run whose packet k uses iov[2k] (its bytes up to the ICRC) and iov[2k + 1] (icrc[k],
	 * the ICRC for the ID the kernel gives it), k counted over the batch's packets. */
	struct mmsghdr msgs[BATCH];
	struct iovec iov[2 * BATCH];
	uint32_t segs[BATCH];
	uint8_t icrc[BATCH][UROCE_ICRC_LEN];
	struct sockaddr_in6 names[BATCH]; /* large enough for either family */
	union ctl_buf ctl[BATCH];
};

static const struct uroce_io_ops udp_ops;

static const char *const counter_names[] = {
#define UROCE_UDP_COUNTER_NAME(name, desc) #name,
	UROCE_UDP_COUNTERS(UROCE_UDP_COUNTER_NAME)
#undef UROCE_UDP_COUNTER_NAME
};
static const char *const counter_descs[] = {
#define UROCE_UDP_COUNTER_DESC(name, desc) desc,
	UROCE_UDP_COUNTERS(UROCE_UDP_COUNTER_DESC)
#undef UROCE_UDP_COUNTER_DESC
};

const char *uroce_udp_counter_name(enum uroce_udp_counter c)
{
	return (unsigned)c < UROCE_UDP_NCOUNTERS ? counter_names[c] : NULL;
}

const char *uroce_udp_counter_desc(enum uroce_udp_counter c)
{
	return (unsigned)c < UROCE_UDP_NCOUNTERS ? counter_descs[c] : NULL;
}

uint64_t uroce_udp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct udp *as_udp(const struct uroce_io *io)
{
	return io && io->ops == &udp_ops ? (struct udp *)(uintptr_t)io : NULL;
}

uint64_t uroce_udp_next_deadline(const struct uroce_io *io)
{
	const struct udp *u = as_udp(io);
	uint64_t due;

	if (!u)
		return UINT64_MAX;
	due = uroce_impair_hold_next_due(&u->hold);
	for (size_t k = 0; k < u->naddrs; k++)
		if (u->rx[k].group && u->rx[k].group_due < due)
			due = u->rx[k].group_due;
	return due;
}

const union uroce_udp_counters *uroce_udp_counters(const struct uroce_io *io)
{
	const struct udp *u = as_udp(io);
	return u ? &u->c : NULL;
}

static int sys_err(int e)
{
	switch (e) {
	case EADDRINUSE:
		return UROCE_EBUSY;
	case EADDRNOTAVAIL:
	case EAFNOSUPPORT:
	case EINVAL:
		return UROCE_EINVAL;
	case ENOMEM:
	case ENOBUFS:
	case EMFILE:
	case ENFILE:
		return UROCE_ENOMEM;
	default:
		return UROCE_EIO;
	}
}

static socklen_t make_sockaddr(struct sockaddr_in6 *sa, bool ipv6, const uint8_t *ip,
			       uint16_t port)
{
	memset(sa, 0, sizeof(*sa));
	if (ipv6) {
		sa->sin6_family = AF_INET6;
		sa->sin6_port = htons(port);
		memcpy(&sa->sin6_addr, ip, 16);
		return sizeof(struct sockaddr_in6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)(void *)sa;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	memcpy(&s4->sin_addr, ip, 4);
	return sizeof(struct sockaddr_in);
}

static int setopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

/* ---- the hold queue ---- */

/* Holds a received packet until `due`, or counts it lost (hold_full). */
static void hold_push(struct udp *u, const struct uroce_io_pkt *p, uint64_t due)
{
	if (!uroce_impair_hold_push(&u->hold, p, due))
		u->c.hold_full++;
}

/* Points the timerfd at the earliest held packet, so that the epoll fd turns readable when
 * it is due. Setting the timer also clears an expiry that was not read. */
static void timer_update(struct udp *u)
{
	uint64_t due = uroce_impair_hold_next_due(&u->hold);

	if (due == UINT64_MAX)
		due = 0;

	if (due == u->armed)
		return;
	struct itimerspec its = {{0, 0}, {0, 0}};
	if (due) {
		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
	}
	if (timerfd_settime(u->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		u->armed = due;
}

/* ---- sending ---- */

struct tx_key {
	bool ipv6;
	uint16_t sport;
	uint8_t ip[16];
};

static uint32_t tx_hash(const struct tx_key *k)
{
	uint32_t h = 2166136261u ^ k->ipv6; /* FNV-1a */

	for (int i = 0; i < (k->ipv6 ? 16 : 4); i++)
		h = (h ^ k->ip[i]) * 16777619u;
	h = (h ^ (k->sport >> 8)) * 16777619u;
	h = (h ^ (k->sport & 0xFF)) * 16777619u;
	return h;
}

static bool tx_match(const struct tx_sock *s, const struct tx_key *k)
{
	return s->ipv6 == k->ipv6 && s->sport == k->sport &&
	       !memcmp(s->ip, k->ip, k->ipv6 ? 16 : 4);
}

static bool tx_key_eq(const struct tx_key *a, const struct tx_key *b)
{
	return a->ipv6 == b->ipv6 && a->sport == b->sport &&
	       !memcmp(a->ip, b->ip, a->ipv6 ? 16 : 4);
}

/* Binds fd to (ip, a free port of the QPs' range), the one after k->sport first. */
static int tx_bind_other(int fd, const struct tx_key *k, uint16_t *wire_sport)
{
	struct sockaddr_in6 sa;
	socklen_t salen = make_sockaddr(&sa, k->ipv6, k->ip, 0);
	int port = uroce_bind_in_range(fd, &sa, salen, UROCE_QP_SPORT_MIN,
				       0x10000u - UROCE_QP_SPORT_MIN,
				       (uint32_t)(k->sport - UROCE_QP_SPORT_MIN + 1));

	if (port < 0)
		return -1;
	*wire_sport = (uint16_t)port;
	return 0;
}

/* A socket that sends from (ip, sport) with DF set. It never reads: a filter that keeps no
 * byte drops whatever arrives at that port, rather than let it fill a buffer nobody reads
 * (RoCEv2 traffic goes to 4791, so nothing should).
 *
 * A socket of another program (or of this user's without SO_REUSEPORT) may hold the port:
 * the QP then sends from another port of its range, *wire_sport, and every packet's ICRC,
 * which covers the port, is corrected on the way out (tx_icrc). The source port is the
 * flow's ECMP entropy, which no receiver checks; the QP still keeps one path. */
static int tx_open(const struct tx_key *k, uint16_t *wire_sport)
{
	static struct sock_filter drop_all[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
	struct sock_fprog prog = {.len = 1, .filter = drop_all};
	struct sockaddr_in6 sa;
	socklen_t salen = make_sockaddr(&sa, k->ipv6, k->ip, k->sport);
	int fd = socket(k->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_UDP);

	if (fd < 0)
		return -1;
	/* DF (facts.md section 2: an unconnected DF socket also sends IPv4 ID 0, which is what
	 * the engine writes in its header and what receivers rebuild). */
	int err = k->ipv6 ? setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1) ||
				    setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO) ||
				    setopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, 1)
			  : setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
	/* The user's processes on one address send from the same (address, port) when their
	 * QPs' source ports meet (every QP1 has the same one): each binds its own socket
	 * there. None of them reads, so which one the kernel would give a datagram to does
	 * not matter. */
	err = err || setopt(fd, SOL_SOCKET, SO_REUSEPORT, 1);
	*wire_sport = k->sport;
	if (!err && bind(fd, (struct sockaddr *)&sa, salen) < 0)
		err = errno != EADDRINUSE || tx_bind_other(fd, k, wire_sport);
	if (err) {
		close(fd);
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	/* Room for a window of full-size packets queued at the device; best effort. */
	(void)setopt(fd, SOL_SOCKET, SO_SNDBUF, SNDBUF);
	return fd;
}

static void tx_unlink(struct udp *u, uint32_t idx)
{
	struct tx_key k = {.ipv6 = u->tx[idx].ipv6, .sport = u->tx[idx].sport};
	memcpy(k.ip, u->tx[idx].ip, 16);
	uint32_t *pp = &u->buckets[tx_hash(&k) & (u->nbuckets - 1)];

	while (*pp != idx)
		pp = &u->tx[*pp].next;
	*pp = u->tx[idx].next;
}

/* The send socket for k (opened and bound on first use, its TOS and TTL those of the packet
 * it opens for), or NULL. */
static struct tx_sock *tx_get(struct udp *u, const struct tx_key *k, uint8_t tos, uint8_t ttl)
{
	uint32_t *bucket = &u->buckets[tx_hash(k) & (u->nbuckets - 1)];
	uint32_t idx;

	for (idx = *bucket; idx != NIL; idx = u->tx[idx].next) {
		if (tx_match(&u->tx[idx], k)) {
			u->tx[idx].last_use = ++u->tick;
			return &u->tx[idx];
		}
	}
	uint16_t wire_sport;
	int fd = tx_open(k, &wire_sport);
	if (fd < 0)
		return NULL;
	u->c.send_port_moved += wire_sport != k->sport;
	/* Best effort: a refused value leaves the kernel's default, which tx_fill then
	 * overrides per packet. */
	int level = k->ipv6 ? IPPROTO_IPV6 : IPPROTO_IP;
	int16_t own_tos = setopt(fd, level, k->ipv6 ? IPV6_TCLASS : IP_TOS, tos) ? -1 : tos;
	int16_t own_ttl =
		!ttl || setopt(fd, level, k->ipv6 ? IPV6_UNICAST_HOPS : IP_TTL, ttl) ? -1 : ttl;
	if (u->tx_used < u->tx_max) {
		idx = u->tx_used++;
	} else {
		/* Evict the least recently used: a scan, but only when a new (source, port)
		 * shows up with the cache full. */
		idx = 0;
		for (uint32_t i = 1; i < u->tx_max; i++)
			if (u->tx[i].last_use < u->tx[idx].last_use)
				idx = i;
		tx_unlink(u, idx);
		close(u->tx[idx].fd);
		u->c.send_evictions++;
	}
	struct tx_sock *s = &u->tx[idx];
	memset(s->ip, 0, sizeof(s->ip));
	memcpy(s->ip, k->ip, k->ipv6 ? 16 : 4);
	s->fd = fd;
	s->ipv6 = k->ipv6;
	s->sport = k->sport;
	s->wire_sport = wire_sport;
	s->tos = own_tos;
	s->ttl = own_ttl;
	s->last_use = ++u->tick;
	s->next = *bucket;
	*bucket = idx;
	u->c.send_sockets++;
	return s;
}

/* What send() needs from one datagram. */
struct tx_pkt {
	struct tx_key key;
	uint8_t dst[16];
	bool group;        /* dst is a multicast group */
	uint8_t tos, ttl;
	uint8_t prio;      /* the 802.1p priority asked for, 0: the socket's */
	uint16_t id;       /* IPv4: the header's Identification */
	uint8_t *payload;
	size_t plen;
};

/* Parses the IP and UDP headers; UROCE_EINVAL when the datagram is not one send() takes. */
static int tx_parse(const struct uroce_io_pkt *pkt, struct tx_pkt *t)
{
	struct uroce_udp_datagram d;

	memset(t, 0, sizeof(*t));
	if (!pkt->data || pkt->prio > 7 || uroce_udp_datagram_decode(&d, pkt->data, pkt->len) ||
	    d.len != pkt->len)
		return UROCE_EINVAL;
	t->prio = pkt->prio;
	t->key.ipv6 = d.ipv6;
	memcpy(t->key.ip, d.src, 16);
	memcpy(t->dst, d.dst, 16);
	t->tos = d.tclass;
	t->ttl = d.ttl;
	t->id = d.id;
	t->key.sport = d.sport;
	struct uroce_io_addr dst = {.ipv6 = d.ipv6};
	memcpy(dst.ip, d.dst, 16);
	t->group = uroce_io_addr_is_multicast(&dst);
	t->payload = pkt->data + d.hlen;
	t->plen = pkt->len - d.hlen;
	return 0;
}

static void tx_cmsg(struct msghdr *h, struct cmsghdr *cm, int level, int type, const void *v,
		    size_t len)
{
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), v, len);
	h->msg_controllen += CMSG_SPACE(len);
}

/* The index of the interface that carries addr: 0 when none does (127.0.0.2 is on no
 * interface, and needs none: the route to it is lo). A netlink dump: for slow paths. */
static unsigned addr_ifindex(const struct uroce_io_addr *addr)
{
	struct ifaddrs *ifs;
	unsigned idx = 0;

	if (getifaddrs(&ifs) < 0)
		return 0;
	for (const struct ifaddrs *i = ifs; i && !idx; i = i->ifa_next) {
		const void *ip;
		if (!i->ifa_addr || i->ifa_addr->sa_family != (addr->ipv6 ? AF_INET6 : AF_INET))
			continue;
		if (addr->ipv6)
			ip = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
		else
			ip = &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
		if (!memcmp(ip, addr->ip, addr->ipv6 ? 16 : 4))
			idx = if_nametoindex(i->ifa_name);
	}
	freeifaddrs(ifs);
	return idx;
}

/* The interface of the configured IPv6 address ip (0: not configured, or on none), looked up
 * once per address. */
static unsigned src_ifindex(struct udp *u, const uint8_t *ip)
{
	for (size_t k = 0; k < u->naddrs; k++) {
		struct rx_sock *s = &u->rx[k];
		if (!s->ipv6 || memcmp(s->addr.ip, ip, 16))
			continue;
		if (!s->ifindex_known) {
			s->ifindex = addr_ifindex(&s->addr);
			s->ifindex_known = true;
		}
		return s->ifindex;
	}
	return 0;
}

/* Packet k goes out as its bytes up to the ICRC, iov[2k], and its ICRC changed by `change`,
 * iov[2k + 1]. */
static void tx_icrc(struct udp *u, size_t k, const struct tx_pkt *t, uint32_t change)
{
	put_le32(u->icrc[k], get_le32(t->payload + t->plen - UROCE_ICRC_LEN) ^ change);
	u->iov[2 * k].iov_base = t->payload;
	u->iov[2 * k].iov_len = t->plen - UROCE_ICRC_LEN;
	u->iov[2 * k + 1].iov_base = u->icrc[k];
	u->iov[2 * k + 1].iov_len = UROCE_ICRC_LEN;
}

/* The change of packet t's ICRC when it leaves from port `wire` rather than its QP's
 * (tx_open): the port is followed by the rest of the UDP header and the UDP payload. */
static uint32_t tx_port_change(struct udp *u, const struct tx_pkt *t, uint16_t wire)
{
	if (wire == t->key.sport)
		return 0;
	return uroce_icrc_u16_change(&u->port_terms,
				     (uint32_t)(UROCE_UDP_HLEN - 2 + t->plen - UROCE_ICRC_LEN),
				     (uint16_t)(t->key.sport ^ wire));
}

/* Whether this kernel takes SO_PRIORITY as a control message of sendmsg (socket(7); newer
 * kernels do, older ones refuse the message with EINVAL). Probed once, with an empty
 * datagram from a socket to itself: a refusal comes before the route, so lo being down
 * changes nothing. */
static bool prio_cmsg_ok(struct udp *u)
{
	if (u->prio_cmsg)
		return u->prio_cmsg > 0;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr h = {.msg_name = &a, .msg_namelen = sizeof(a), .msg_control = ctl.b,
			   .msg_controllen = sizeof(ctl.b)};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), prio = 0;

	u->prio_cmsg = -1;
	if (fd < 0)
		return false;
	memset(&ctl, 0, sizeof(ctl));
	struct cmsghdr *cm = CMSG_FIRSTHDR(&h);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SO_PRIORITY;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &prio, sizeof(int));
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &alen)) {
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (sendmsg(fd, &h, MSG_DONTWAIT) == 0 || errno != EINVAL)
			u->prio_cmsg = 1;
	}
	close(fd);
	return u->prio_cmsg > 0;
}

/* Message m of the batch: packet k's payload to dst:port, with its TOS/traffic class and
 * TTL/hop limit as ancillary data where they differ from the socket's (a TTL of 0 leaves the
 * socket's). Control messages cost the kernel a parse per datagram, and one QP's packets all
 * agree with the socket its first packet opened. A datagram to a multicast group always
 * carries its TTL: the socket's own (IP_TTL, IPV6_UNICAST_HOPS) is for unicast, and a
 * group's default is 1 (IP_MULTICAST_TTL, ip(7)); over IPv6 it also names the interface of
 * its source address (IPV6_PKTINFO), since no route to a group names one: IPv4 needs none,
 * a socket bound to a local address sends its multicast out of that address's interface. */
static void tx_fill(struct udp *u, size_t m, size_t k, const struct tx_pkt *t,
		    const struct tx_sock *ts)
{
	struct msghdr *h = &u->msgs[m].msg_hdr;
	int level = t->key.ipv6 ? IPPROTO_IPV6 : IPPROTO_IP;
	int tos = t->tos, ttl = t->ttl;

	memset(h, 0, sizeof(*h));
	h->msg_name = &u->names[m];
	h->msg_namelen = make_sockaddr(&u->names[m], t->key.ipv6, t->dst, u->port);
	h->msg_iov = &u->iov[2 * k];
	if (ts->wire_sport == t->key.sport) {
		u->iov[2 * k].iov_base = t->payload;
		u->iov[2 * k].iov_len = t->plen;
		h->msg_iovlen = 1;
	} else {
		tx_icrc(u, k, t, tx_port_change(u, t, ts->wire_sport));
		h->msg_iovlen = 2;
	}
	u->segs[m] = 1;
	/* CMSG_NXTHDR reads the next header's length: no stale bytes of a receive there. */
	memset(u->ctl[m].b, 0, sizeof(u->ctl[m].b));
	h->msg_control = u->ctl[m].b;
	h->msg_controllen = sizeof(u->ctl[m].b); /* for CMSG_FIRSTHDR; tx_cmsg counts anew */
	struct cmsghdr *cm = CMSG_FIRSTHDR(h);
	h->msg_controllen = 0;
	if (t->tos != ts->tos)
		tx_cmsg(h, cm, level, t->key.ipv6 ? IPV6_TCLASS : IP_TOS, &tos, sizeof(int));
	if (ttl && (t->ttl != ts->ttl || t->group))
		tx_cmsg(h, (struct cmsghdr *)(u->ctl[m].b + h->msg_controllen), level,
			t->key.ipv6 ? IPV6_HOPLIMIT : IP_TTL, &ttl, sizeof(int));
	if (t->prio) { /* a CNP's cnp_802p_prio (docs/udp.md "Sending") */
		int prio = t->prio;
		if (prio_cmsg_ok(u))
			tx_cmsg(h, (struct cmsghdr *)(u->ctl[m].b + h->msg_controllen), SOL_SOCKET,
				SO_PRIORITY, &prio, sizeof(int));
		else
			u->c.send_prio_unset++;
	}
	unsigned ifindex = t->group && t->key.ipv6 ? src_ifindex(u, t->key.ip) : 0;
	if (ifindex) {
		struct in6_pktinfo pi = {.ipi6_ifindex = ifindex};
		memcpy(&pi.ipi6_addr, t->key.ip, 16);
		tx_cmsg(h, (struct cmsghdr *)(u->ctl[m].b + h->msg_controllen), IPPROTO_IPV6,
			IPV6_PKTINFO, &pi, sizeof(pi));
	}
	if (!h->msg_controllen)
		h->msg_control = NULL;
}

/* Packet k goes out as segment `seg` of GSO message m through ts: its ICRC for the ID the
 * kernel will give it (unchanged over IPv6, which has no ID) and the socket's port. With
 * UDP_SEGMENT the kernel cuts one send into datagrams of gso_size bytes, each with its own IP
 * header; from an unconnected IPv4 socket with DF, segment k carries ID k (the first one 0,
 * as a plain send; checked on kernel 6.18, docs/udp.md "GSO"), and the ICRC covers the ID. */
static void tx_segment(struct udp *u, size_t k, uint32_t seg, const struct tx_pkt *t,
		       const struct tx_sock *ts)
{
	uint32_t change = tx_port_change(u, t, ts->wire_sport);

	if (!t->key.ipv6)
		change ^= uroce_icrc_id_change(&u->gso_terms, (uint32_t)(HDR4 + t->plen),
					       (uint16_t)(t->id ^ seg));
	tx_icrc(u, k, t, change);
}

/* Whether packet t (k-th of the batch) may join message m as one more GSO segment: the
 * packets of one GSO send share the socket (checked by the caller), destination address and
 * QP, TOS, TTL, priority and size, and the kernel takes at most GSO_SEGS of them and GSO_BYTES in all.
 * `first` is the message's first packet.
 *
 * The same destination QP, because a receiver that shares its address among processes
 * steers each datagram by it (docs/multiprocess.md), and over loopback or a veth the
 * receiving kernel steers a GSO send as one datagram: a UD QP's sends to two processes of
 * one address would all reach the first one's, which then forwards. A MAD to QP1 is steered
 * by its content, so those go one per send. */
static bool tx_gso_fits(const struct udp *u, size_t m, const struct tx_pkt *first,
			const struct tx_pkt *t)
{
	/* Not to a group: only UD sends there, a packet per message, and GSO through the
	 * multicast loopback path is left untried. */
	return u->gso && !t->group && t->plen == first->plen && t->plen >= MIN_PAYLOAD &&
	       u->segs[m] < GSO_SEGS && (u->segs[m] + 1) * t->plen <= GSO_BYTES &&
	       t->tos == first->tos && t->ttl == first->ttl && t->prio == first->prio &&
	       !memcmp(t->dst, first->dst, t->key.ipv6 ? 16 : 4) &&
	       !memcmp(t->payload + BTH_DEST_QP, first->payload + BTH_DEST_QP, 3) &&
	       get_be24(t->payload + BTH_DEST_QP) != UROCE_QP1;
}

/* Adds packet t, the k-th of the batch, to message m as a GSO segment; `first` is the
 * message's first packet, the (k - segs[m])-th. */
static void tx_gso_add(struct udp *u, size_t m, size_t k, const struct tx_pkt *first,
		       const struct tx_pkt *t, const struct tx_sock *ts)
{
	struct msghdr *h = &u->msgs[m].msg_hdr;

	if (u->segs[m] == 1) {
		uint16_t size = (uint16_t)t->plen;
		tx_segment(u, k - 1, 0, first, ts);
		h->msg_control = u->ctl[m].b; /* NULL when tx_fill had nothing for it */
		tx_cmsg(h, (struct cmsghdr *)(u->ctl[m].b + h->msg_controllen), SOL_UDP,
			UDP_SEGMENT, &size, sizeof(size));
		h->msg_iovlen = 2;
	}
	tx_segment(u, k, u->segs[m], t, ts);
	h->msg_iovlen += 2;
	u->segs[m]++;
}

/* The datagrams in messages [from, to). */
static uint64_t tx_count(const struct udp *u, size_t from, size_t to)
{
	uint64_t n = 0;

	for (size_t m = from; m < to; m++)
		n += u->segs[m];
	return n;
}

/* Sends messages [0, n) through fd; a message the kernel refuses is counted and skipped. */
static void tx_flush(struct udp *u, int fd, size_t n)
{
	size_t done = 0;

	while (done < n) {
		int r = sendmmsg(fd, u->msgs + done, (unsigned)(n - done), 0);
		if (r > 0) {
			for (size_t m = done; m < done + (unsigned)r; m++) {
				u->c.sent += u->segs[m];
				if (u->segs[m] > 1)
					u->c.sent_gso += u->segs[m];
			}
			done += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		/* sendmmsg reports an error only for the first message it could not send. A
		 * full buffer will not drain within this call: the rest of the run is lost
		 * too, without a system call each. */
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
			u->c.send_full += tx_count(u, done, n);
			break;
		}
		if (u->segs[done] > 1) {
			/* A kernel without UDP_SEGMENT, or a path it cannot use it on: plain
			 * sends from now on. These datagrams are lost, as on a wire; the
			 * transport resends them. */
			u->gso = false;
			u->c.gso_refused++;
			u->c.send_errors += u->segs[done];
		} else if (r < 0 && errno == EMSGSIZE) {
			u->c.send_too_big++;
		} else {
			u->c.send_errors++;
		}
		done++;
	}
}

/* Sends m parsed packets, one sendmmsg per socket: a socket's packets keep their order, and
 * equal consecutive ones among them go in one GSO message. The engine's QPs take turns
 * packet by packet, so two busy QPs (two sockets) interleave in a batch; sent in batch order,
 * they would cost a system call per packet. Packets of different sockets are different QPs
 * (the source port is the QP's), between which no order is owed. */
static void tx_send_grouped(struct udp *u, const struct tx_pkt *t, size_t m)
{
	bool taken[BATCH] = {false};

	for (size_t j = 0; j < m; j++) {
		if (taken[j])
			continue;
		const struct tx_pkt *first = NULL; /* the first packet of the last message */
		size_t run = 0, nmsg = 0;
		struct tx_sock *ts = tx_get(u, &t[j].key, t[j].tos, t[j].ttl);
		for (size_t k = j; k < m; k++) {
			if (taken[k] || !tx_key_eq(&t[k].key, &t[j].key))
				continue;
			taken[k] = true;
			if (!ts) {
				u->c.send_socket_errors++;
				continue;
			}
			if (nmsg && tx_gso_fits(u, nmsg - 1, first, &t[k])) {
				tx_gso_add(u, nmsg - 1, run, first, &t[k], ts);
			} else {
				tx_fill(u, nmsg++, run, &t[k], ts);
				first = &t[k];
			}
			run++;
		}
		if (run)
			tx_flush(u, ts->fd, nmsg);
	}
}

static int udp_send(struct uroce_io *io, const struct uroce_io_pkt *pkts, size_t n)
{
	struct udp *u = (struct udp *)io;
	struct tx_pkt t[BATCH];
	uint64_t id_nonzero = 0;
	size_t i = 0, m;

	if (n > INT_MAX)
		n = INT_MAX;
	/* In chunks of up to BATCH packets, each ending before the first that does not parse. */
	do {
		for (m = 0; m < BATCH && i + m < n && tx_parse(&pkts[i + m], &t[m]) == 0; m++)
			id_nonzero += !t[m].key.ipv6 && t[m].id;
		tx_send_grouped(u, t, m);
		i += m;
	} while (m == BATCH && i < n);
	/* Told apart from sent only here: the ID is known before sending, the outcome after.
	 * Counted whether or not the kernel took them, as a hint that the engine's header
	 * disagrees with the wire. */
	u->c.sent_ip_id_nonzero += id_nonzero;
	if (i < n && i == 0)
		return UROCE_EINVAL;
	return (int)i;
}

/* ---- receiving ---- */

/* The IP and UDP headers the kernel stripped, rebuilt into hdr (HDR4 or HDR6 bytes). The
 * IPv4 ID is 0, what a Linux DF socket sends (facts.md section 2; solved later for others),
 * flags DF; the UDP checksum 0 (Annex A17.3.2.4 allows it, and the ICRC masks it); the
 * destination port 4791 whatever the socket's port; the IPv6 flow label 0 (masked too). */
static size_t rx_headers(uint8_t *hdr, bool ipv6, const struct uroce_io_addr *src,
			 const struct uroce_io_addr *dst, uint16_t sport, uint8_t tos, uint8_t ttl,
			 size_t plen)
{
	size_t udp_len = UROCE_UDP_HLEN + plen, hlen;

	if (ipv6) {
		struct uroce_ipv6 h = {.tclass = tos, .payload_len = (uint16_t)udp_len,
				       .nxthdr = UROCE_IPPROTO_UDP, .hoplimit = ttl};
		memcpy(h.src, src->ip, 16);
		memcpy(h.dst, dst->ip, 16);
		hlen = (size_t)uroce_ipv6_encode(&h, hdr, UROCE_IPV6_HLEN);
	} else {
		struct uroce_ipv4 h = {.tos = tos, .total_len = (uint16_t)(UROCE_IPV4_HLEN + udp_len),
				       .flags = 2, .ttl = ttl, .proto = UROCE_IPPROTO_UDP};
		memcpy(h.src, src->ip, 4);
		memcpy(h.dst, dst->ip, 4);
		hlen = (size_t)uroce_ipv4_encode(&h, hdr, UROCE_IPV4_HLEN);
		put_be16(hdr + 10, uroce_ipv4_checksum(hdr, UROCE_IPV4_HLEN));
	}
	struct uroce_udp uh = {.sport = sport, .dport = UROCE_UDP_PORT, .len = (uint16_t)udp_len};
	uroce_udp_encode(&uh, hdr + hlen, UROCE_UDP_HLEN);
	return hlen + UROCE_UDP_HLEN;
}

/* Destination address, TOS, TTL and the socket's drop count from the ancillary data. */
static void rx_cmsgs(struct msghdr *h, struct uroce_io_addr *dst, uint8_t *tos, uint8_t *ttl,
		     uint32_t *drops)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
		const uint8_t *d = CMSG_DATA(cm);
		int v;

		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			memcpy(&pi, d, sizeof(pi));
			memcpy(dst->ip, &pi.ipi_addr, 4); /* the header's destination */
		} else if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS) {
			*tos = d[0]; /* IP_RECVTOS delivers one byte */
		} else if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TTL) {
			memcpy(&v, d, sizeof(v));
			*ttl = (uint8_t)v;
		} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;
			memcpy(&pi, d, sizeof(pi));
			memcpy(dst->ip, &pi.ipi6_addr, 16);
		} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_TCLASS) {
			memcpy(&v, d, sizeof(v));
			*tos = (uint8_t)v;
		} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_HOPLIMIT) {
			memcpy(&v, d, sizeof(v));
			*ttl = (uint8_t)v;
		} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(drops, d, sizeof(*drops));
		}
	}
}

/* Moves the finished packet at pkts[i] to pkts[w] (w <= i, behind dropped ones), or into the
 * hold queue, due now, when pkts[w] is too small for it. Returns the next free place. */
static size_t rx_place(struct udp *u, struct uroce_io_pkt *pkts, size_t i, size_t w,
		       uint64_t now)
{
	struct uroce_io_pkt *p = &pkts[i], *q = &pkts[w];

	if (w == i)
		return w + 1;
	if (p->len > q->cap) {
		hold_push(u, p, now);
		return w;
	}
	memmove(q->data, p->data, p->len);
	q->len = p->len;
	q->flags = p->flags;
	q->ts_ns = p->ts_ns;
	q->tos = p->tos;
	q->src = p->src;
	q->dst = p->dst;
	return w + 1;
}

/* Writes a solved IPv4 ID into the rebuilt header, and the header checksum that goes with it:
 * the packet is then the one its sender sent. */
static void set_ipv4_id(uint8_t *hdr, uint16_t id)
{
	put_be16(hdr + 4, id);
	put_be16(hdr + 10, 0);
	put_be16(hdr + 10, uroce_ipv4_checksum(hdr, UROCE_IPV4_HLEN));
}

/* Where each verdict of the ID tracker is counted (verified packets are not). */
static const int verdict_counter[] = {
	[UROCE_IPID_VERIFIED] = -1,
	[UROCE_IPID_WINDOW] = UROCE_UDP_C_ip_id_in_window,
	[UROCE_IPID_RESYNC] = UROCE_UDP_C_ip_id_resynced,
	[UROCE_IPID_FIRST] = UROCE_UDP_C_ip_id_first,
	[UROCE_IPID_FALLBACK] = UROCE_UDP_C_ip_id_fallback,
	[UROCE_IPID_REJECT] = UROCE_UDP_C_ip_id_rejected,
};

/* The ICRC of an IPv4 packet whose rebuilt header says ID 0. It verifies as is (uroce and
 * Linux DF sockets send 0), or one other ID makes it verify, which is accepted only if it
 * fits its peer's sequence (ipid.h, docs/udp.md): a random corruption is explained by some ID
 * with probability 2^-16, by one in the window with W x 2^-32. Accepted: the ID written in,
 * marked ICRC_OK. Not: delivered as rebuilt, and the engine's own check drops it. */
static void rx_check_id(struct udp *u, struct uroce_io_pkt *p, uint64_t now)
{
	uint16_t id;
	enum uroce_icrc_id_result res = uroce_icrc_id_solve(p->data, p->len, &u->idc, &id);

	if (res == UROCE_ICRC_ID_NONE) {
		uroce_ipid_unsolved(&u->ipid, p->src.ip, p->dst.ip);
		u->c.ip_id_unsolved++;
		return;
	}
	if (res != UROCE_ICRC_ID_OK && res != UROCE_ICRC_ID_SOLVED)
		return;
	enum uroce_ipid_verdict v = uroce_ipid_check(&u->ipid, p->src.ip, p->dst.ip, id,
						     res == UROCE_ICRC_ID_OK, now);
	if (verdict_counter[v] >= 0)
		u->c.v[verdict_counter[v]]++;
	if (!uroce_ipid_accepted(v))
		return;
	if (res == UROCE_ICRC_ID_SOLVED) {
		set_ipv4_id(p->data, id);
		u->c.ip_id_solved++;
	}
	p->flags |= UROCE_IO_PKT_ICRC_OK;
}

/* Makes a packet of the datagram at pkts[i], whose payload (plen bytes in all) was read at
 * data + its headers' length as far as cap allowed: rebuilt headers, the ID check, the
 * impairments. Returns the next free place. */
static size_t rx_finish(struct udp *u, struct uroce_io_pkt *pkts, size_t i, size_t w,
			const struct uroce_share_meta *m, size_t plen, uint64_t now)
{
	struct uroce_io_pkt *p = &pkts[i];
	uint8_t hdr[HDR6];
	bool ipv6 = m->src.ipv6;
	size_t hlen = rx_headers(hdr, ipv6, &m->src, &m->dst, m->sport, m->tos, m->ttl, plen);
	size_t total = hlen + plen;

	/* The payload was read at data + hlen when the header fit in cap (rx_drain). */
	memcpy(p->data, hdr, hlen < p->cap ? hlen : p->cap);
	p->flags = 0;
	p->len = (uint32_t)total;
	if (total > p->cap) {
		p->len = p->cap;
		p->flags = UROCE_IO_PKT_TRUNC;
		u->c.truncated++;
	}
	p->ts_ns = now;
	p->tos = m->tos;
	p->src = m->src;
	p->dst = m->dst;

	if (!ipv6 && u->solve_id && !(p->flags & UROCE_IO_PKT_TRUNC))
		rx_check_id(u, p, now);

	/* After the ID solver: an impairment is never "repaired". A duplicate waits in the hold
	 * queue, due now: it is handed over after this batch (in this call when descriptors
	 * remain), so it follows the original. */
	if (u->impaired) {
		struct uroce_impair_tally t = {0};
		bool deliver = uroce_impair_receive(&u->im, &u->hold, p, now, &t);

		UROCE_IMPAIR_TALLY_ADD(&u->c, t);
		if (!deliver)
			return w;
	}
	return rx_place(u, pkts, i, w, now);
}

/* Turns message j, received into pkts[i], into a packet; returns the next free place. */
static size_t rx_one(struct udp *u, struct rx_sock *s, struct uroce_io_pkt *pkts,
		     size_t i, size_t w, size_t j, uint64_t now)
{
	struct mmsghdr *msg = &u->msgs[j];
	size_t plen = msg->msg_len; /* the whole datagram: recvmmsg was given MSG_TRUNC */
	struct uroce_share_meta m = {.src.ipv6 = s->ipv6, .dst = s->addr, .ttl = DEFAULT_TTL};

	if (plen < MIN_PAYLOAD) {
		u->c.runts++;
		return w;
	}
	if (s->ipv6) {
		memcpy(m.src.ip, &u->names[j].sin6_addr, 16);
		m.sport = ntohs(u->names[j].sin6_port);
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(void *)&u->names[j];
		memcpy(m.src.ip, &s4->sin_addr, 4);
		m.sport = ntohs(s4->sin_port);
	}
	uint32_t drops = s->drops;
	rx_cmsgs(&msg->msg_hdr, &m.dst, &m.tos, &m.ttl, &drops);
	/* A running count: what it grew by since the last datagram (modulo 2^32). */
	u->c.recv_overflows += (uint32_t)(drops - s->drops);
	s->drops = drops;
	if (s->group) {
		/* A probe, or another member's datagram (forwarded): not this process's. */
		size_t hlen = s->ipv6 ? HDR6 : HDR4;
		size_t room = pkts[i].cap > hlen ? pkts[i].cap - hlen : 0;
		if (uroce_share_rx(s->group, pkts[i].data + hlen, plen < room ? plen : room, &m) ==
		    UROCE_SHARE_RX_TAKEN)
			return w;
	}
	return rx_finish(u, pkts, i, w, &m, plen, now);
}

/* Datagrams other processes of the shared address forwarded here (share.h) into
 * pkts[out..n); returns the new out. Each is read behind room for IPv6 headers, and moved
 * down to its IPv4 headers' length when it is IPv4. */
static size_t rx_forwarded(struct udp *u, struct uroce_share_group *g,
			   struct uroce_io_pkt *pkts, size_t out, size_t n, uint64_t now)
{
	while (out < n) {
		struct uroce_io_pkt *p = &pkts[out];
		struct uroce_share_meta m;
		size_t room = p->cap > HDR6 ? p->cap - HDR6 : 0;
		size_t plen = uroce_share_fwd_recv(g, p->data + (room ? HDR6 : 0), room, &m);

		if (!plen)
			break;
		if (plen < MIN_PAYLOAD) {
			u->c.runts++;
			continue;
		}
		if (!m.src.ipv6 && room)
			memmove(p->data + HDR4, p->data + HDR6, plen < room ? plen : room);
		out = rx_finish(u, pkts, out, out, &m, plen, now);
	}
	return out;
}

/* Reads datagrams of socket s into pkts[out..n); returns the new out. */
static size_t rx_drain(struct udp *u, struct rx_sock *s, struct uroce_io_pkt *pkts,
		       size_t out, size_t n, uint64_t now)
{
	size_t hlen = s->ipv6 ? HDR6 : HDR4;
	/* Dropped datagrams (runts, impairments) free their place for more: bound the reads,
	 * so that a flood of them cannot keep one call reading forever. */
	size_t budget = 4 * (n - out) + BATCH;

	while (out < n && budget) {
		/* Each call sets up only about as many entries as the last calls filled: a caller
		 * that polls an empty socket in a loop would otherwise clear and fill 64 message
		 * headers per call for nothing (the kernel reads an entry only when it has a
		 * datagram for it). A full call doubles the next one's size. Per socket: one
		 * address's traffic says nothing about another's. */
		size_t want = n - out < s->want ? n - out : s->want;
		if (want > budget)
			want = budget;
		for (size_t j = 0; j < want; j++) {
			struct uroce_io_pkt *p = &pkts[out + j];
			struct msghdr *h = &u->msgs[j].msg_hdr;
			/* Leave room for the headers; with less than that, the payload is not
			 * needed at all (only the headers fit), but the length is. */
			size_t room = p->cap > hlen ? p->cap - hlen : 0;

			memset(h, 0, sizeof(*h));
			u->iov[j].iov_base = p->data + (room ? hlen : 0);
			u->iov[j].iov_len = room;
			h->msg_name = &u->names[j];
			h->msg_namelen = sizeof(u->names[j]);
			h->msg_iov = &u->iov[j];
			h->msg_iovlen = 1;
			h->msg_control = u->ctl[j].b;
			h->msg_controllen = sizeof(u->ctl[j].b);
		}
		int r = recvmmsg(s->fd, u->msgs, (unsigned)want, MSG_DONTWAIT | MSG_TRUNC, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			u->c.recv_errors++;
		size_t got = r > 0 ? (size_t)r : 0, next = got == want ? 2 * want : 2 * got;
		s->want = next < RX_WANT_MIN ? RX_WANT_MIN : next > BATCH ? BATCH : next;
		if (r <= 0)
			break;
		u->c.received += (unsigned)r;
		budget -= (size_t)r;
		size_t w = out;
		for (size_t j = 0; j < (size_t)r; j++)
			w = rx_one(u, s, pkts, out + j, w, j, now);
		out = w;
		if ((size_t)r < want)
			break;
	}
	return out;
}

static int udp_recv(struct uroce_io *io, struct uroce_io_pkt *pkts, size_t n)
{
	struct udp *u = (struct udp *)io;
	uint64_t now = uroce_udp_now();
	size_t out = 0;

	if (n > INT_MAX)
		n = INT_MAX;
	/* Held packets that are due arrived before anything still in the sockets, and so did
	 * those another process forwarded. */
	out = uroce_impair_hold_release(&u->hold, pkts, n, now, &u->c.truncated);
	/* Forwards are rare (a misroute): their sockets are read every FWD_EVERY calls only,
	 * not at the cost of a system call each in a spinning loop. A sleeping progress thread
	 * that one wakes calls again at once, until its turn comes. */
	if (u->share && ++u->fwd_calls % FWD_EVERY == 0)
		for (size_t k = 0; k < u->naddrs; k++)
			if (u->rx[k].group)
				out = rx_forwarded(u, u->rx[k].group, pkts, out, n, now);
	for (size_t k = 0; k < u->nrx && out < n; k++)
		out = rx_drain(u, &u->rx[(u->rx_next + k) % u->nrx], pkts, out, n, now);
	u->rx_next = (u->rx_next + 1) % u->nrx; /* no socket starves the others */
	out += uroce_impair_hold_release(&u->hold, pkts + out, n - out, now, &u->c.truncated);
	timer_update(u);
	u->c.delivered += out;
	u->c.ip_id_fallbacks = u->ipid.fallbacks;
	u->c.ip_id_peer_evictions = u->ipid.evictions;
	if (u->share) {
		for (size_t k = 0; k < u->naddrs; k++)
			if (u->rx[k].group)
				u->rx[k].group_due = uroce_share_poll(u->rx[k].group, now);
		const struct uroce_share_counters *sc = uroce_share_counters(u->share);
#define UROCE_UDP_SHARE_COPY(name, desc) u->c.name = sc->name;
		UROCE_SHARE_COUNTERS(UROCE_UDP_SHARE_COPY)
#undef UROCE_UDP_SHARE_COPY
	}
	return (int)out;
}

static int udp_fd(struct uroce_io *io)
{
	return ((struct udp *)io)->epfd;
}

static void udp_close(struct uroce_io *io)
{
	struct udp *u = (struct udp *)io;

	for (size_t i = 0; i < u->nrx; i++) {
		if (u->rx[i].group)
			uroce_share_leave(u->rx[i].group); /* closes the socket */
		else if (u->rx[i].fd >= 0)
			close(u->rx[i].fd);
	}
	for (uint32_t i = 0; i < u->tx_used; i++)
		close(u->tx[i].fd);
	if (u->tfd >= 0)
		close(u->tfd);
	if (u->epfd >= 0)
		close(u->epfd);
	free(u->rx);
	free(u->groups);
	free(u->tx);
	free(u->buckets);
	uroce_impair_hold_free(&u->hold);
	free(u);
}

static int udp_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join);

static const struct uroce_io_ops udp_ops = {
	.name = "udp",
	.send = udp_send,
	.recv = udp_recv,
	.fd = udp_fd,
	.close = udp_close,
	.next_deadline = uroce_udp_next_deadline,
	.join = udp_join,
};

/* ---- opening ---- */

/* Joins the group a socket is bound to on the interface of the local address `local` (its
 * IPv4 address names it; an IPv6 one, through its index). The kernel sends the IGMP or MLD
 * report, and the membership ends when the socket closes. */
static int group_join(int fd, const struct uroce_io_addr *group, const struct uroce_io_addr *local,
		      unsigned ifindex)
{
	if (group->ipv6) {
		struct ipv6_mreq mr = {.ipv6mr_interface = ifindex};
		memcpy(&mr.ipv6mr_multiaddr, group->ip, 16);
		return setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr));
	}
	struct ip_mreqn mr = {.imr_ifindex = 0};
	memcpy(&mr.imr_multiaddr, group->ip, 4);
	memcpy(&mr.imr_address, local->ip, 4); /* 0.0.0.0: the kernel's route to the group */
	return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
}

/* Opens the receive socket s for addr, a local address, or for a multicast group joined
 * through the local address `local` (NULL for a local address). Every process of the host
 * that joins a group binds <group>:port, each with SO_REUSEADDR, and the kernel gives each
 * of them a copy of every datagram to the group. On failure s->fd may be open: the caller
 * closes it. */
static int rx_open(struct udp *u, struct rx_sock *s, const struct uroce_io_addr *addr,
		   const struct uroce_io_addr *local)
{
	struct sockaddr_in6 sa;
	socklen_t salen = make_sockaddr(&sa, addr->ipv6, addr->ip, u->port);
	int fd = socket(addr->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_UDP);
	unsigned ifindex = local && addr->ipv6 ? addr_ifindex(local) : 0;

	if (fd < 0)
		return sys_err(errno);
	s->fd = fd;
	s->ipv6 = addr->ipv6;
	s->addr = *addr;
	s->want = BATCH;
	if (!addr->ipv6)
		memset(s->addr.ip + 4, 0, 12);
	/* A larger buffer absorbs bursts between two recv calls; best effort, as is the count
	 * of what overflowed it anyway. */
	(void)setopt(fd, SOL_SOCKET, SO_RCVBUF, RCVBUF);
	(void)setopt(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
	/* The destination of what a socket bound to one address receives is that address
	 * (s->addr, rx_one's default): only a wildcard needs it per datagram, and a control
	 * message less is less work in every receive. */
	static const uint8_t any[16];
	bool wildcard = !memcmp(addr->ip, any, addr->ipv6 ? 16 : 4);
	int err = addr->ipv6 ? setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1) ||
				       setopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, wildcard) ||
				       setopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1) ||
				       setopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1) ||
				       /* Linux rxe sends RoCEv2 over IPv6 with UDP checksum 0
					* (rxe_net.c prepare_udp_hdr leaves it 0 and sets
					* no_check6_tx), which IPv6 UDP sockets drop unless told
					* otherwise (RFC 6935); the ICRC covers the packet anyway. */
				       setopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, 1)
			     : setopt(fd, IPPROTO_IP, IP_PKTINFO, wildcard) ||
				       setopt(fd, IPPROTO_IP, IP_RECVTOS, 1) ||
				       setopt(fd, IPPROTO_IP, IP_RECVTTL, 1);
	if (!err && local)
		err = setopt(fd, SOL_SOCKET, SO_REUSEADDR, 1);
	/* A wildcard socket would also get the datagrams of every group any socket of the host
	 * joined (IP_MULTICAST_ALL, on by default, ip(7)): the group's own socket takes those. */
	if (!err && wildcard)
		(void)setopt(fd, addr->ipv6 ? IPPROTO_IPV6 : IPPROTO_IP,
			     addr->ipv6 ? IPV6_MULTICAST_ALL : IP_MULTICAST_ALL, 0);
	/* A group with a scope narrower than the site's (ff02::, link-local) is bound on its
	 * interface; for the others the index changes nothing. */
	if (addr->ipv6)
		sa.sin6_scope_id = ifindex;
	if (err)
		return sys_err(errno);
	if (!local && u->share) {
		/* one of the user's processes sharing the address (share.h) */
		err = uroce_share_join(u->share, fd, (struct sockaddr *)&sa, salen, addr, u->port,
				       &s->group);
		if (err < 0)
			return err;
		struct epoll_event ev = {.events = EPOLLIN};
		if (epoll_ctl(u->epfd, EPOLL_CTL_ADD, uroce_share_fwd_fd(s->group), &ev) < 0)
			return sys_err(errno);
	} else if (bind(fd, (struct sockaddr *)&sa, salen) < 0) {
		return sys_err(errno);
	}
	if (local && group_join(fd, addr, local, ifindex) < 0)
		return sys_err(errno);
	struct epoll_event ev = {.events = EPOLLIN};
	if (epoll_ctl(u->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return sys_err(errno);
	return 0;
}

/* The io op join: a receive socket per group (rx_open), closed to leave. The group is joined
 * through the first configured address of its family. */
static int udp_join(struct uroce_io *io, const struct uroce_io_addr *group, bool join)
{
	struct udp *u = (struct udp *)io;
	struct uroce_io_addr local; /* a copy: rx may move below */
	bool have_local = false;
	size_t i;

	if (!uroce_io_addr_is_multicast(group))
		return UROCE_EINVAL;
	for (i = u->naddrs; i < u->nrx && !uroce_io_addr_equal(&u->rx[i].addr, group); i++)
		;
	if (!join) {
		if (i == u->nrx)
			return UROCE_ENOENT;
		/* Closing the socket ends its membership (the kernel sends the IGMP leave or MLD
		 * done) and takes it out of the epoll set. */
		close(u->rx[i].fd);
		u->rx[i] = u->rx[--u->nrx];
		if (u->rx_next >= u->nrx)
			u->rx_next = 0;
		return 0;
	}
	if (i < u->nrx)
		return UROCE_EBUSY;
	for (i = 0; i < u->naddrs && !have_local; i++)
		if ((have_local = u->rx[i].ipv6 == group->ipv6))
			local = u->rx[i].addr;
	if (!have_local)
		return UROCE_EINVAL;
	if (u->nrx == u->rx_cap) {
		struct rx_sock *rx = realloc(u->rx, (u->rx_cap + 8) * sizeof(*rx));
		if (!rx)
			return UROCE_ENOMEM;
		u->rx = rx;
		u->rx_cap += 8;
	}
	struct rx_sock *s = &u->rx[u->nrx];
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	int err = rx_open(u, s, group, &local);
	if (err < 0) {
		if (s->fd >= 0)
			close(s->fd);
		return err;
	}
	u->nrx++;
	return 0;
}

static int udp_setup(struct udp *u, const struct uroce_udp_cfg *cfg)
{
	int err;

	u->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (u->epfd < 0)
		return sys_err(errno);
	u->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (u->tfd < 0)
		return sys_err(errno);
	struct epoll_event ev = {.events = EPOLLIN};
	if (epoll_ctl(u->epfd, EPOLL_CTL_ADD, u->tfd, &ev) < 0)
		return sys_err(errno);

	u->rx = calloc(cfg->naddrs, sizeof(*u->rx));
	u->rx_cap = cfg->naddrs;
	u->groups = calloc(cfg->naddrs, sizeof(*u->groups));
	u->tx_max = cfg->max_send_sockets ? cfg->max_send_sockets : UROCE_UDP_SEND_SOCKETS;
	for (u->nbuckets = 1; u->nbuckets < 2 * u->tx_max; u->nbuckets *= 2)
		;
	u->tx = calloc(u->tx_max, sizeof(*u->tx));
	u->buckets = malloc(u->nbuckets * sizeof(*u->buckets));
	if (!u->rx || !u->tx || !u->buckets || !u->groups)
		return UROCE_ENOMEM;
	/* The hold queue's pages are only touched when packets are held, which is rare without
	 * impairments. */
	if ((err = uroce_impair_hold_init(&u->hold,
					  cfg->hold_pkts ? cfg->hold_pkts : UROCE_UDP_HOLD_PKTS)))
		return err;
	for (uint32_t i = 0; i < u->nbuckets; i++)
		u->buckets[i] = NIL;

	for (size_t i = 0; i < cfg->naddrs; i++) {
		u->rx[i].fd = -1;
		u->nrx++;
		u->naddrs++;
		err = rx_open(u, &u->rx[i], &cfg->addrs[i], NULL);
		if (err < 0) {
			if (cfg->failed_addr)
				*cfg->failed_addr = i;
			return err;
		}
		u->groups[i] = u->rx[i].group;
	}
	return 0;
}

int uroce_udp_open(const struct uroce_udp_cfg *cfg, struct uroce_io **out)
{
	struct udp *u;
	int err;

	if (!cfg || !out || !cfg->addrs || !cfg->naddrs || cfg->naddrs > UROCE_UDP_MAX_ADDRS ||
	    cfg->hold_pkts > MAX_TABLE || cfg->max_send_sockets > MAX_TABLE)
		return UROCE_EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return UROCE_ENOMEM;
	u->io.ops = &udp_ops;
	u->port = cfg->port ? cfg->port : UROCE_UDP_PORT;
	u->solve_id = !cfg->no_ip_id_solve;
	u->share = cfg->share;
	u->gso = !cfg->no_gso;
	u->epfd = u->tfd = -1;
	if (cfg->impair) {
		err = uroce_impair_init(&u->im, cfg->impair, 0);
		if (err < 0) {
			free(u);
			return err;
		}
		u->impaired = true;
	}
	err = udp_setup(u, cfg);
	if (err < 0) {
		int saved = errno;
		udp_close(&u->io);
		errno = saved;
		return err;
	}
	*out = &u->io;
	return 0;
}

void uroce_udp_share_cm(struct uroce_io *io, bool attach)
{
	struct udp *u = as_udp(io);

	for (size_t k = 0; u && u->share && k < u->naddrs; k++)
		uroce_share_cm(u->groups[k], attach);
}

int uroce_udp_share_listen(struct uroce_io *io, uint64_t sid, bool on)
{
	struct udp *u = as_udp(io);
	int err = 0;
	size_t k;

	for (k = 0; u && u->share && k < u->naddrs; k++)
		if ((err = uroce_share_listen(u->groups[k], sid, on)))
			break;
	if (err && on) /* none changed: undo those before */
		for (size_t j = 0; j < k; j++)
			(void)uroce_share_listen(u->groups[j], sid, false);
	return err;
}

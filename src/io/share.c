/* SPDX-License-Identifier: MIT */
/* One address, many processes (share.h, docs/multiprocess.md). */
#include "share.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "common/error.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/icrc.h"
#include "wire/ip.h"
#include "wire/opcode.h"

/* A probe is a well-formed RoCEv2 UD SEND Only (a capture shows it as such, its ICRC good),
 * from the group's forwarding socket to QP 0xFF0000 + the index it asks the program for:
 * slot 255 holds no QP but the multicast QPN, whose datagrams never meet the program. Its
 * DETH carries PROBE_QKEY, its payload the round and the round's cookie, which only the
 * user's processes can read in the group's page. */
#define PROBE_SLOT 0xFFu
#define PROBE_QKEY 0x55524F50u /* "UROP" */
#define PROBE_PAYLOAD 16       /* round, cookie, 4 zero bytes */
#define PROBE_LEN (UROCE_BTH_LEN + 8 + PROBE_PAYLOAD + UROCE_ICRC_LEN)
#define FWD_MAGIC 0x55524657u          /* "URFW": a forwarded datagram's header */
#define PAGE_MAGIC 0x3252485345524f55ull /* "UORESHR2" */
#define ROUND_WAIT_NS 200000000ull     /* how long a round waits for the members' answers */
#define ROUND_GAP_NS 100000000ull      /* between two rounds a process starts on misroutes */
#define JOIN_LOCK_TRIES 200            /* x 10 ms: how long a join waits for a round elsewhere */
#define NO_INDEX 0xFFFFFFFFu           /* a program's answer that leaves the choice to the hash */
#define NSLOTS 256
/* Relaxed accesses to the page (struct page says why that is enough). */
#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* MAD fields in the UDP payload of a UD SEND to QP1 (BTH 12 bytes, DETH 8, then the MAD,
 * IBA 13.4.2; the CM messages' fields, IBA 12.6: the data starts at MAD byte 24). */
#define MAD_CLASS 21
#define MAD_ATTR 36
#define CM_LOCAL_ID 44   /* a SIDR message's Request ID */
#define CM_REMOTE_ID 48
#define CM_SERVICE_ID 52 /* REQ and SIDR_REQ */
#define CLASS_CM 0x07
#define ATTR_REQ 0x0010
#define ATTR_SIDR_REQ 0x0017
#define ATTR_SIDR_REP 0x0018

/* The group's page: one per (network namespace, address, port), shared by its members.
 * Membership, the mapping and the listeners change under the page's flock; a member writes
 * its own answer to a probe (round, index) without it. Memory orders: a probe's answer is
 * published with its round (release; the prober acquires it), a round's cookie before the
 * round (release; acquired by the members); every other field is relaxed: written under the
 * lock, whose system calls order them for the next holder, and read on the data path, where
 * a stale value only costs a forwarded datagram. */
struct member {
	_Atomic uint64_t id;     /* the owner's share id (its slot file says the same) */
	_Atomic uint32_t joined; /* its socket is in the group */
	_Atomic uint32_t cm;     /* its CM is attached to QP1 */
	_Atomic uint32_t mapped; /* index is where the program sends its traffic */
	_Atomic uint32_t index;
	_Atomic uint32_t round;  /* the last round it answered */
	_Atomic uint32_t fwd_port; /* its forwarding socket's UDP port, on the address */
	_Atomic uint64_t token;  /* what a datagram forwarded to it must carry */
};

struct listener {
	_Atomic uint64_t sid;
	_Atomic uint32_t slot; /* 0: a free entry */
	uint32_t pad;
};

struct page {
	uint64_t magic;
	_Atomic uint32_t round;
	_Atomic uint32_t size; /* sockets in the group, as the last round or change left it */
	_Atomic uint64_t cookie;
	/* The attached program is not the page's: a member left, and the next member to poll
	 * attaches the page's (uroce_share_leave says why the leaver cannot). */
	_Atomic uint32_t stale;
	uint32_t pad;
	struct member m[NSLOTS];
	struct listener l[UROCE_SHARE_MAX_LISTEN];
};

struct uroce_share {
	char dir[PATH_MAX];
	unsigned slot;
	uint64_t id;
	int lock_fd;
	struct uroce_share_counters c;
};

struct uroce_share_group {
	struct uroce_share *s;
	int fd, page_fd;
	/* The forwarding socket: UDP on the address (loopback for a wildcard), an ephemeral
	 * port, so that no queue limit of the host's (a datagram socket of the file system
	 * queues 10, net.unix.max_dgram_qlen) drops a burst; what comes must carry token. */
	int fwd_fd;
	uint16_t fwd_port;
	uint64_t token;
	struct uroce_io_addr fwd_addr;
	struct page *page;
	struct uroce_io_addr addr;
	uint16_t port;
	bool locked;        /* holds the page's flock: a round of its own runs */
	uint32_t round;     /* that round */
	uint32_t round_n;   /* the probes it sent */
	uint8_t live[NSLOTS]; /* the members it waits for */
	uint64_t round_due;
	_Atomic bool want_round; /* a misroute was seen (the receive path sets it) */
	/* The rest of this struct, and changes of the group, are taken in turns by the progress
	 * thread (uroce_share_poll: trylock, so it never waits) and the application threads
	 * that attach the CM or listen (udp.h says which calls). */
	pthread_mutex_t mu;
	uint64_t next_round_at;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t random64(void)
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = now_ns() * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
	return r;
}

/* dir/slot-N.lock; -1 when it does not fit. */
static int slot_path(const struct uroce_share *s, char *buf, size_t len, unsigned slot)
{
	int n = snprintf(buf, len, "%s/slot-%u.lock", s->dir, slot);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ---- slots ---- */

/* The id written in slot's lock file by the process that holds it, or 0 when nobody holds it
 * (the kernel dropped a dead holder's flock). */
static uint64_t slot_holder(const struct uroce_share *s, unsigned slot)
{
	char path[PATH_MAX + 32], text[64];
	uint64_t id = 0;
	int fd;

	if (slot == s->slot)
		return s->id;
	if (slot_path(s, path, sizeof(path), slot) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd); /* nobody holds it */
		return 0;
	}
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	if (n > 0) {
		unsigned long long v = 0;
		text[n] = 0;
		if (sscanf(text, "%*u %llx", &v) == 1)
			id = v;
	}
	return id;
}

int uroce_share_open(const char *dir, struct uroce_share **out)
{
	struct uroce_share *s;
	char path[PATH_MAX + 32];

	if (!dir || strlen(dir) >= sizeof(s->dir) - 1)
		return UROCE_EINVAL;
	if (!(s = calloc(1, sizeof(*s))))
		return UROCE_ENOMEM;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	s->lock_fd = -1;
	s->id = random64() | 1;
	/* The first free slot from a random start: a slot given up is not taken again at once,
	 * so a late packet for a dead process's QP finds no new owner of its number. */
	unsigned start = (unsigned)(s->id >> 8) % (UROCE_SHARE_SLOT_LAST - UROCE_SHARE_SLOT_FIRST + 1);
	for (unsigned k = 0; k <= UROCE_SHARE_SLOT_LAST - UROCE_SHARE_SLOT_FIRST && !s->slot; k++) {
		unsigned slot = UROCE_SHARE_SLOT_FIRST +
				(start + k) % (UROCE_SHARE_SLOT_LAST - UROCE_SHARE_SLOT_FIRST + 1);
		int fd;

		if (slot_path(s, path, sizeof(path), slot) ||
		    (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
			int e = errno;
			free(s);
			errno = e;
			return UROCE_EIO;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			continue;
		}
		char text[64];
		int n = snprintf(text, sizeof(text), "%d %llx\n", (int)getpid(),
				 (unsigned long long)s->id);
		if (ftruncate(fd, 0) || pwrite(fd, text, (size_t)n, 0) != n) {
			close(fd);
			continue;
		}
		s->slot = slot;
		s->lock_fd = fd;
	}
	if (!s->slot) {
		free(s);
		return UROCE_EBUSY;
	}
	*out = s;
	return 0;
}

void uroce_share_close(struct uroce_share *s)
{
	if (!s)
		return;
	/* The lock file stays (another process may be opening it); closing drops the lock. */
	close(s->lock_fd);
	free(s);
}

unsigned uroce_share_slot(const struct uroce_share *s) { return s->slot; }

const struct uroce_share_counters *uroce_share_counters(const struct uroce_share *s)
{
	return &s->c;
}

/* ---- the page ---- */

static bool member_live(const struct uroce_share_group *g, unsigned slot)
{
	const struct member *m = &g->page->m[slot];

	return LD(m->joined) && LD(m->id) == slot_holder(g->s, slot);
}

/* Under the lock: forgets the members that died without leaving, with their listeners. */
static void forget_dead(struct uroce_share_group *g)
{
	struct page *p = g->page;

	for (unsigned slot = UROCE_SHARE_SLOT_FIRST; slot <= UROCE_SHARE_SLOT_LAST; slot++) {
		if (!LD(p->m[slot].joined) || member_live(g, slot))
			continue;
		ST(p->m[slot].joined, 0);
		ST(p->m[slot].cm, 0);
		ST(p->m[slot].mapped, 0);
	}
	for (unsigned i = 0; i < UROCE_SHARE_MAX_LISTEN; i++) {
		unsigned slot = LD(p->l[i].slot);
		if (slot && !LD(p->m[slot].joined))
			ST(p->l[i].slot, 0);
	}
}

/* The member QP1's MADs go to when nothing in them names another: the live member of the
 * lowest slot whose CM is attached, or 0. */
static unsigned cm_default(const struct page *p)
{
	for (unsigned slot = UROCE_SHARE_SLOT_FIRST; slot <= UROCE_SHARE_SLOT_LAST; slot++)
		if (LD(p->m[slot].joined) && LD(p->m[slot].cm))
			return slot;
	return 0;
}

/* ---- the program ---- */

struct prog {
	struct sock_filter f[BPF_MAXINSNS];
	unsigned n;
};

static void emit(struct prog *pr, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	if (pr->n < BPF_MAXINSNS)
		pr->f[pr->n++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
}

/* Slot in A -> return the index of its member; past the chain, return `otherwise`. */
static void emit_chain(struct prog *pr, const struct page *p, uint32_t otherwise)
{
	for (unsigned slot = UROCE_SHARE_SLOT_FIRST; slot <= UROCE_SHARE_SLOT_LAST; slot++) {
		if (!LD(p->m[slot].joined) || !LD(p->m[slot].mapped))
			continue;
		emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, slot);
		emit(pr, BPF_RET | BPF_K, 0, 0, LD(p->m[slot].index));
	}
	emit(pr, BPF_RET | BPF_K, 0, 0, otherwise);
}

static uint32_t index_of(const struct page *p, unsigned slot)
{
	return slot && LD(p->m[slot].mapped) ? LD(p->m[slot].index) : NO_INDEX;
}

/* The group's program, from the page (under the lock). What has no index (a slot not mapped,
 * no CM attached) returns `unmapped`: NO_INDEX (the hash), or during a leave another member's
 * index. A load past the datagram's end ends a classic program with 0: such runts go to
 * index 0, whose member drops them. */
static void compile(const struct page *p, struct prog *pr, uint32_t unmapped)
{
	uint32_t cm = index_of(p, cm_default(p));
	unsigned qp1, sid, jump;

	if (cm == NO_INDEX)
		cm = unmapped;
	pr->n = 0;
	/* the slot: the top byte of the BTH destination QP */
	emit(pr, BPF_LD | BPF_B | BPF_ABS, 0, 0, 5);
	emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
	jump = pr->n;
	emit(pr, BPF_JMP | BPF_JA, 0, 0, 0); /* to qp1, set below */
	/* probes: to the index their QP number's low bits ask for */
	emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 2, PROBE_SLOT);
	emit(pr, BPF_LD | BPF_H | BPF_ABS, 0, 0, 6);
	emit(pr, BPF_RET | BPF_A, 0, 0, 0);
	emit_chain(pr, p, unmapped);
	/* QP1: a CM MAD goes by what names its receiver; anything else to the default CM */
	qp1 = pr->n;
	pr->f[jump].k = qp1 - jump - 1;
	emit(pr, BPF_LD | BPF_B | BPF_ABS, 0, 0, MAD_CLASS);
	emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, CLASS_CM);
	emit(pr, BPF_RET | BPF_K, 0, 0, cm);
	emit(pr, BPF_LD | BPF_H | BPF_ABS, 0, 0, MAD_ATTR);
	emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, ATTR_REQ);
	jump = pr->n;
	emit(pr, BPF_JMP | BPF_JA, 0, 0, 0); /* to sid */
	emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, ATTR_SIDR_REQ);
	unsigned jump2 = pr->n;
	emit(pr, BPF_JMP | BPF_JA, 0, 0, 0); /* to sid */
	emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 2, ATTR_SIDR_REP);
	emit(pr, BPF_LD | BPF_B | BPF_ABS, 0, 0, CM_LOCAL_ID); /* the requester's own ID */
	emit(pr, BPF_JMP | BPF_JA, 0, 0, 1);
	emit(pr, BPF_LD | BPF_B | BPF_ABS, 0, 0, CM_REMOTE_ID); /* the receiver's comm ID */
	emit_chain(pr, p, cm);
	/* REQ, SIDR_REQ: by Service ID */
	sid = pr->n;
	pr->f[jump].k = sid - jump - 1;
	pr->f[jump2].k = sid - jump2 - 1;
	for (unsigned i = 0; i < UROCE_SHARE_MAX_LISTEN; i++) {
		unsigned slot = LD(p->l[i].slot);
		uint64_t v = LD(p->l[i].sid);
		if (!slot || index_of(p, slot) == NO_INDEX)
			continue;
		emit(pr, BPF_LD | BPF_W | BPF_ABS, 0, 0, CM_SERVICE_ID);
		emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 3, (uint32_t)(v >> 32));
		emit(pr, BPF_LD | BPF_W | BPF_ABS, 0, 0, CM_SERVICE_ID + 4);
		emit(pr, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)v);
		emit(pr, BPF_RET | BPF_K, 0, 0, index_of(p, slot));
	}
	emit(pr, BPF_RET | BPF_K, 0, 0, cm);
}

static void attach_program(struct uroce_share_group *g, uint32_t unmapped)
{
	struct prog *pr = malloc(sizeof(*pr));

	if (!pr)
		return;
	compile(g->page, pr, unmapped);
	struct sock_fprog fp = {.len = (unsigned short)pr->n, .filter = pr->f};
	/* Best effort: without a program the kernel's hash spreads the datagrams and the
	 * members forward what is not theirs. */
	(void)setsockopt(g->fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &fp, sizeof(fp));
	free(pr);
}

/* The page's program (under the lock). */
static void attach(struct uroce_share_group *g)
{
	attach_program(g, NO_INDEX);
	ST(g->page->stale, 0);
}

/* ---- rounds ---- */

static bool try_lock(struct uroce_share_group *g)
{
	if (!g->locked && flock(g->page_fd, LOCK_EX | LOCK_NB) == 0)
		g->locked = true;
	return g->locked;
}

static void unlock(struct uroce_share_group *g)
{
	if (g->locked)
		flock(g->page_fd, LOCK_UN);
	g->locked = false;
}

/* Sends iov to port of the forwarding address, from the group's forwarding socket. */
static bool send_local(struct uroce_share_group *g, uint16_t port, struct iovec *iov,
		       size_t niov)
{
	struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr_in sa4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = niov};

	if (g->addr.ipv6) {
		memcpy(&sa6.sin6_addr, g->fwd_addr.ip, 16);
		mh.msg_name = &sa6;
		mh.msg_namelen = sizeof(sa6);
	} else {
		memcpy(&sa4.sin_addr, g->fwd_addr.ip, 4);
		mh.msg_name = &sa4;
		mh.msg_namelen = sizeof(sa4);
	}
	return sendmsg(g->fwd_fd, &mh, MSG_DONTWAIT) >= 0;
}

/* The probe for index: built as the engine builds its packets, the IPv4 ID 0 that the
 * forwarding socket's DF sends (facts.md section 2), so that its ICRC holds on the wire. */
static void send_probe(struct uroce_share_group *g, uint32_t index)
{
	uint8_t b[UROCE_IPV6_HLEN + UROCE_UDP_HLEN + PROBE_LEN], payload[PROBE_PAYLOAD] = {0};
	struct uroce_rocev2_net net = {.ipv6 = g->addr.ipv6, .hop_limit = 64, .sport = g->fwd_port};
	struct uroce_bth bth = {.opcode = UROCE_OP_UD_SEND_ONLY, .pkey = 0xFFFF,
				.destqp = PROBE_SLOT << 16 | (index & 0xFFFF)};
	struct uroce_ext ext = {.present = UROCE_EH_DETH, .deth = {.qkey = PROBE_QKEY, .srcqp = 1}};
	size_t hlen = (g->addr.ipv6 ? UROCE_IPV6_HLEN : UROCE_IPV4_HLEN) + UROCE_UDP_HLEN;

	memcpy(net.src, g->fwd_addr.ip, 16);
	memcpy(net.dst, g->fwd_addr.ip, 16);
	put_be32(payload, g->round);
	put_be64(payload + 4, LD(g->page->cookie));
	ssize_t n = uroce_rocev2_build(b, sizeof(b), NULL, &net, &bth, &ext, payload, sizeof(payload));
	if (n <= (ssize_t)hlen)
		return;
	struct iovec iov = {b + hlen, (size_t)n - hlen};
	(void)send_local(g, g->port, &iov, 1);
}

/* Under the lock: a probe to every index of the group, each member writes down the one it
 * got (uroce_share_rx). A wildcard address (0.0.0.0, ::) is probed through loopback. */
static void round_start(struct uroce_share_group *g, uint64_t now)
{
	struct page *p = g->page;
	uint32_t n = 0;

	forget_dead(g);
	for (unsigned slot = 0; slot < NSLOTS; slot++) {
		g->live[slot] = (uint8_t)(slot && LD(p->m[slot].joined));
		n += g->live[slot];
	}
	g->round = LD(p->round) + 1;
	ST(p->cookie, random64());
	atomic_store_explicit(&p->round, g->round, memory_order_release); /* after its cookie */
	g->round_n = n;
	g->round_due = now + ROUND_WAIT_NS;
	atomic_store_explicit(&g->want_round, false, memory_order_relaxed);
	g->s->c.share_rounds++;
	attach(g); /* the old mapping, minus the dead, and the probes' rule */
	for (uint32_t i = 0; i < n; i++)
		send_probe(g, i);
}

static bool round_answered(const struct uroce_share_group *g)
{
	for (unsigned slot = 0; slot < NSLOTS; slot++)
		if (g->live[slot] &&
		    atomic_load_explicit(&g->page->m[slot].round, memory_order_acquire) != g->round)
			return false;
	return true;
}

/* The answers become the mapping; a member that did not answer (stopped, or its probe fell
 * back to the hash) keeps none, and what reaches another member for it is forwarded. */
static void round_finish(struct uroce_share_group *g, uint64_t now)
{
	struct page *p = g->page;

	for (unsigned slot = 0; slot < NSLOTS; slot++) {
		if (!g->live[slot])
			continue;
		bool ok = atomic_load_explicit(&p->m[slot].round, memory_order_acquire) == g->round &&
			  LD(p->m[slot].index) < g->round_n;
		if (!ok)
			g->s->c.share_unanswered++;
		ST(p->m[slot].mapped, ok);
	}
	ST(p->size, g->round_n);
	attach(g);
	g->round_due = 0;
	g->next_round_at = now + ROUND_GAP_NS;
	unlock(g);
}

static uint64_t poll_locked(struct uroce_share_group *g, uint64_t now)
{
	if (!g->round_due && LD(g->page->stale)) {
		if (!try_lock(g))
			return now + 1000000; /* the leaver, or a round: soon again */
		if (LD(g->page->stale))
			attach(g);
		unlock(g);
	}
	if (g->round_due) {
		if (round_answered(g) || now >= g->round_due)
			round_finish(g, now);
		else
			return g->round_due < now + 1000000 ? g->round_due : now + 1000000;
	}
	if (atomic_load_explicit(&g->want_round, memory_order_relaxed)) {
		if (now < g->next_round_at)
			return g->next_round_at;
		if (!try_lock(g))
			return now + ROUND_GAP_NS; /* another member runs one */
		round_start(g, now);
		return now + 1000000; /* look at the answers in a millisecond */
	}
	return UINT64_MAX;
}

uint64_t uroce_share_poll(struct uroce_share_group *g, uint64_t now)
{
	uint64_t due;

	if (pthread_mutex_trylock(&g->mu))
		return now + 1000000; /* an application thread changes the group: soon again */
	due = poll_locked(g, now);
	pthread_mutex_unlock(&g->mu);
	return due;
}

/* ---- forwarding ---- */

struct fwd_hdr {
	uint32_t magic;
	uint8_t ipv6, tos, ttl, pad;
	uint64_t token;
	uint16_t sport, pad2;
	uint8_t src[16], dst[16];
};

/* Sends a datagram that reached this process to its owner's forwarding socket. */
static bool forward(struct uroce_share_group *g, unsigned slot, const uint8_t *payload,
		    size_t len, const struct uroce_share_meta *meta)
{
	const struct member *m = &g->page->m[slot];
	struct fwd_hdr h = {.magic = FWD_MAGIC, .ipv6 = meta->src.ipv6, .tos = meta->tos,
			    .ttl = meta->ttl, .sport = meta->sport, .token = LD(m->token)};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)(uintptr_t)payload, len}};
	uint16_t port = (uint16_t)LD(m->fwd_port);

	memcpy(h.src, meta->src.ip, 16);
	memcpy(h.dst, meta->dst.ip, 16);
	return port && send_local(g, port, iov, 2);
}

int uroce_share_fwd_fd(const struct uroce_share_group *g) { return g->fwd_fd; }

size_t uroce_share_fwd_recv(struct uroce_share_group *g, uint8_t *buf, size_t cap,
			    struct uroce_share_meta *meta)
{
	struct uroce_share *s = g->s;

	for (;;) {
		struct fwd_hdr h;
		struct iovec iov[2] = {{&h, sizeof(h)}, {buf, cap}};
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
		ssize_t n = recvmsg(g->fwd_fd, &mh, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		if ((size_t)n < sizeof(h) || h.magic != FWD_MAGIC || h.token != g->token)
			continue; /* not from a member: dropped */
		memset(meta, 0, sizeof(*meta));
		meta->src.ipv6 = meta->dst.ipv6 = h.ipv6 != 0;
		memcpy(meta->src.ip, h.src, 16);
		memcpy(meta->dst.ip, h.dst, 16);
		meta->sport = h.sport;
		meta->tos = h.tos;
		meta->ttl = h.ttl;
		s->c.share_received_forwarded++;
		return (size_t)n - sizeof(h);
	}
}

/* ---- receiving ---- */

/* The slot a MAD to QP1 is for, as the program decides (compile), or 0 for none. */
static unsigned mad_owner(const struct page *p, const uint8_t *b, size_t len)
{
	unsigned dflt = cm_default(p), slot;

	if (len < CM_SERVICE_ID + 8 || b[MAD_CLASS] != CLASS_CM)
		return dflt;
	uint16_t attr = get_be16(b + MAD_ATTR);
	if (attr == ATTR_REQ || attr == ATTR_SIDR_REQ) {
		uint64_t sid = get_be64(b + CM_SERVICE_ID);
		for (unsigned i = 0; i < UROCE_SHARE_MAX_LISTEN; i++)
			if ((slot = LD(p->l[i].slot)) && LD(p->l[i].sid) == sid)
				return slot;
		return dflt;
	}
	slot = b[attr == ATTR_SIDR_REP ? CM_LOCAL_ID : CM_REMOTE_ID];
	return slot >= UROCE_SHARE_SLOT_FIRST && slot <= UROCE_SHARE_SLOT_LAST &&
			       LD(p->m[slot].joined) && LD(p->m[slot].cm)
		       ? slot
		       : dflt;
}

enum uroce_share_rx uroce_share_rx(struct uroce_share_group *g, const uint8_t *b, size_t len,
				   const struct uroce_share_meta *meta)
{
	struct page *p = g->page;
	unsigned me = g->s->slot, slot;

	if (len == PROBE_LEN && b[0] == UROCE_OP_UD_SEND_ONLY && b[5] == PROBE_SLOT &&
	    get_be32(b + UROCE_BTH_LEN) == PROBE_QKEY) {
		const uint8_t *pl = b + UROCE_BTH_LEN + 8;
		uint32_t round = get_be32(pl);
		if (round == atomic_load_explicit(&p->round, memory_order_acquire) &&
		    get_be64(pl + 4) == LD(p->cookie)) {
			ST(p->m[me].index, get_be16(b + 6));
			/* release: the prober that sees the round sees the index */
			atomic_store_explicit(&p->m[me].round, round, memory_order_release);
			g->s->c.share_probes++;
		}
		return UROCE_SHARE_RX_TAKEN;
	}
	if (len < 12)
		return UROCE_SHARE_RX_MINE; /* a runt: the engine counts it */
	slot = b[5];
	if (slot == 0)
		slot = mad_owner(p, b, len);
	else if (slot > UROCE_SHARE_SLOT_LAST)
		return UROCE_SHARE_RX_MINE; /* the multicast QPN (its own sockets) */
	if (slot == me || slot == 0)
		return UROCE_SHARE_RX_MINE;
	if (!LD(p->m[slot].joined)) {
		g->s->c.share_no_owner++;
		return UROCE_SHARE_RX_TAKEN;
	}
	if (forward(g, slot, b, len, meta)) {
		g->s->c.share_forwarded++;
		/* the program and the group disagree (unless a leave's program still waits to
		 * be replaced: this member's next poll attaches the page's) */
		if (!LD(p->stale))
			atomic_store_explicit(&g->want_round, true, memory_order_relaxed);
	} else {
		g->s->c.share_forward_failed++;
	}
	return UROCE_SHARE_RX_TAKEN;
}

/* ---- joining and leaving ---- */

static int page_open(struct uroce_share_group *g, const struct uroce_io_addr *addr, uint16_t port)
{
	char ip[INET6_ADDRSTRLEN], path[PATH_MAX + 96];
	struct stat st;
	unsigned long long ns = stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;

	inet_ntop(addr->ipv6 ? AF_INET6 : AF_INET, addr->ip, ip, sizeof(ip));
	if (snprintf(path, sizeof(path), "%s/udp-%llu-%s-%u.group", g->s->dir, ns, ip, port) >=
	    (int)sizeof(path))
		return UROCE_EINVAL;
	g->page_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (g->page_fd < 0)
		return UROCE_EIO;
	/* the first to come sizes it; mapping past a short file would fault */
	for (int i = 0; i < JOIN_LOCK_TRIES && !try_lock(g); i++)
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	if (fstat(g->page_fd, &st) || (st.st_size < (off_t)sizeof(struct page) &&
				       ftruncate(g->page_fd, sizeof(struct page))))
		return UROCE_EIO;
	void *m = mmap(NULL, sizeof(struct page), PROT_READ | PROT_WRITE, MAP_SHARED, g->page_fd, 0);
	if (m == MAP_FAILED)
		return UROCE_EIO;
	g->page = m;
	if (g->page->magic != PAGE_MAGIC) {
		memset(g->page, 0, sizeof(*g->page));
		g->page->magic = PAGE_MAGIC;
	}
	return 0;
}

/* Binds fd to sa's address and a free port below the QPs' source ports, from a random start.
 * A port the kernel picked (bind to port 0) could be one a QP of this process or another one
 * sends from, whose send socket then could not bind it: the QP's packets would be lost, the
 * last ACK of a program that exits among them (test_exit_acks saw it about once in 8000
 * runs). Ports 0x8000 up to the QPs' are the lower half of Linux's ephemeral range. */
static int bind_below_qp_ports(int fd, struct sockaddr_in6 *sa, socklen_t len)
{
	const uint32_t lo = 0x8000, n = UROCE_QP_SPORT_MIN - lo;

	return uroce_bind_in_range(fd, sa, len, lo, n, (uint32_t)(random64() % n)) < 0 ? -1 : 0;
}

/* The group's forwarding socket (struct uroce_share_group). */
static int fwd_open(struct uroce_share_group *g)
{
	static const uint8_t any[16];
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6};
	struct sockaddr_in *sa4 = (struct sockaddr_in *)(void *)&sa;
	socklen_t len = g->addr.ipv6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int buf = 4 << 20;

	g->fwd_addr = g->addr;
	if (!memcmp(g->addr.ip, any, g->addr.ipv6 ? 16 : 4)) {
		if (g->addr.ipv6)
			g->fwd_addr.ip[15] = 1;                                   /* ::1 */
		else
			memcpy(g->fwd_addr.ip, (const uint8_t[]){127, 0, 0, 1}, 4); /* 127.0.0.1 */
	}
	if (g->addr.ipv6) {
		memcpy(&sa.sin6_addr, g->fwd_addr.ip, 16);
	} else {
		sa4->sin_family = AF_INET;
		memcpy(&sa4->sin_addr, g->fwd_addr.ip, 4);
	}
	g->fwd_fd = socket(g->addr.ipv6 ? AF_INET6 : AF_INET,
			   SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* DF: IPv4 ID 0 on the wire, which the probes' ICRC covers (facts.md section 2) */
	int df = g->addr.ipv6 ? 0 : IP_PMTUDISC_DO;
	if (g->fwd_fd < 0 ||
	    (!g->addr.ipv6 && setsockopt(g->fwd_fd, IPPROTO_IP, IP_MTU_DISCOVER, &df, sizeof(df))) ||
	    bind_below_qp_ports(g->fwd_fd, &sa, len) ||
	    getsockname(g->fwd_fd, (struct sockaddr *)&sa, &len))
		return UROCE_EIO;
	(void)setsockopt(g->fwd_fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	g->fwd_port = ntohs(g->addr.ipv6 ? sa.sin6_port : sa4->sin_port);
	g->token = random64();
	return 0;
}

static void group_free(struct uroce_share_group *g)
{
	unlock(g);
	if (g->fwd_fd >= 0)
		close(g->fwd_fd);
	if (g->page)
		munmap(g->page, sizeof(struct page));
	if (g->page_fd >= 0)
		close(g->page_fd);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* Reads one datagram of the group's socket outside the progress thread (a join's round, a
 * leave): a probe is answered, another member's datagram forwarded, this process's dropped
 * (none is due yet, or it is leaving). False when none waits. Without ancillary data: TOS
 * and TTL, which the ICRC does not cover, read 0 and 64. */
static bool take_one(struct uroce_share_group *g)
{
	static _Thread_local uint8_t b[UROCE_SHARE_MAX_DATAGRAM];
	struct sockaddr_in6 from;
	socklen_t fl = sizeof(from);
	ssize_t n = recvfrom(g->fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);

	if (n <= 0)
		return n == 0 || errno == EINTR;
	struct uroce_share_meta meta = {.src.ipv6 = g->addr.ipv6, .dst = g->addr, .ttl = 64};
	if (g->addr.ipv6) {
		memcpy(meta.src.ip, &from.sin6_addr, 16);
		meta.sport = ntohs(from.sin6_port);
	} else {
		const struct sockaddr_in *f4 = (const struct sockaddr_in *)(void *)&from;
		memcpy(meta.src.ip, &f4->sin_addr, 4);
		meta.sport = ntohs(f4->sin_port);
	}
	(void)uroce_share_rx(g, b, (size_t)n, &meta);
	return true;
}

int uroce_share_join(struct uroce_share *s, int fd, const struct sockaddr *sa, socklen_t salen,
		     const struct uroce_io_addr *addr, uint16_t port, struct uroce_share_group **out)
{
	struct uroce_share_group *g = calloc(1, sizeof(*g));
	int one = 1, err;

	if (!g)
		return UROCE_ENOMEM;
	g->s = s;
	g->fd = fd;
	g->page_fd = g->fwd_fd = -1;
	pthread_mutex_init(&g->mu, NULL);
	g->addr = *addr;
	g->port = port;
	if ((err = fwd_open(g)) || (err = page_open(g, addr, port))) {
		int e = errno;
		group_free(g);
		errno = e;
		return err;
	}
	/* Under the lock (if the wait for it did not run out: a round elsewhere ends by
	 * itself), so that no other member changes the group meanwhile. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) || bind(fd, sa, salen)) {
		int e = errno;
		group_free(g);
		errno = e;
		return e == EADDRINUSE ? UROCE_EBUSY : UROCE_EIO;
	}
	struct member *m = &g->page->m[s->slot];
	ST(m->mapped, 0);
	ST(m->cm, 0);
	ST(m->round, 0);
	ST(m->id, s->id);
	ST(m->token, g->token);
	ST(m->fwd_port, g->fwd_port);
	ST(m->joined, 1);
	/* A round, answering this socket's probe here: the progress thread does not run yet.
	 * What else comes meanwhile is another member's (forwarded) or a stray (dropped). */
	g->locked = true; /* page_open took it, or the round goes without */
	uint64_t now = now_ns();
	round_start(g, now);
	while (!round_answered(g) && (now = now_ns()) < g->round_due) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		if (poll(&pfd, 1, 5) > 0)
			while (take_one(g))
				;
	}
	round_finish(g, now_ns());
	*out = g;
	return 0;
}

/* An application thread's change of the group (or the leave): the group's mutex, then the
 * page's lock, waited for 2 s at most (a round elsewhere ends by itself; past that the change
 * goes without, and a misroute repairs it). A round of this process's holds the lock already. */
static void change_begin(struct uroce_share_group *g)
{
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < JOIN_LOCK_TRIES && !try_lock(g); i++)
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
}

static void change_end(struct uroce_share_group *g)
{
	if (!g->round_due)
		unlock(g);
	pthread_mutex_unlock(&g->mu);
}

void uroce_share_leave(struct uroce_share_group *g)
{
	struct page *p = g->page;
	struct member *me = &p->m[g->s->slot];

	change_begin(g);
	g->round_due = 0; /* a round of ours ends here */
	/* When a socket closes, the kernel drops what waits in its queue and moves the group's
	 * last socket into its index (reuseport_detach_sock). So, before the close, a program
	 * that sends nothing to this socket's index k: what has no index (this process's
	 * traffic among it) goes to another member, which forwards it; then what came before
	 * is forwarded, and the socket closed with nothing in it. The last socket's owner keeps
	 * its old index in that program: right until the close, past the group's end after it,
	 * where the kernel falls back to the hash and whoever gets its datagrams forwards them.
	 * Then the page says where that socket went, and the next member to poll attaches the
	 * page's program (this process has no socket to attach it with any more). */
	uint32_t size = LD(p->size), k = LD(me->index);
	bool mapped = LD(me->mapped) && k < size;
	ST(me->joined, 0);
	ST(me->cm, 0);
	ST(me->mapped, 0);
	for (unsigned i = 0; i < UROCE_SHARE_MAX_LISTEN; i++)
		if (LD(p->l[i].slot) == g->s->slot)
			ST(p->l[i].slot, 0);
	attach_program(g, mapped && size > 1 ? (k == 0 ? 1 : 0) : NO_INDEX);
	while (take_one(g))
		;
	close(g->fd);
	if (mapped) {
		for (unsigned slot = UROCE_SHARE_SLOT_FIRST; slot <= UROCE_SHARE_SLOT_LAST; slot++)
			if (LD(p->m[slot].joined) && LD(p->m[slot].mapped) &&
			    LD(p->m[slot].index) == size - 1)
				ST(p->m[slot].index, k);
		ST(p->size, size - 1);
		ST(p->stale, 1);
	}
	change_end(g);
	group_free(g);
}

/* ---- the CM ---- */

void uroce_share_cm(struct uroce_share_group *g, bool attach_cm)
{
	change_begin(g);
	ST(g->page->m[g->s->slot].cm, attach_cm);
	attach(g);
	change_end(g);
}

int uroce_share_listen(struct uroce_share_group *g, uint64_t sid, bool on)
{
	struct page *p = g->page;
	unsigned me = g->s->slot, free_i = UROCE_SHARE_MAX_LISTEN;
	int err = 0;

	change_begin(g);
	forget_dead(g);
	for (unsigned i = 0; i < UROCE_SHARE_MAX_LISTEN; i++) {
		unsigned slot = LD(p->l[i].slot);
		if (!slot) {
			if (free_i == UROCE_SHARE_MAX_LISTEN)
				free_i = i;
			continue;
		}
		if (LD(p->l[i].sid) != sid)
			continue;
		if (slot != me)
			err = on ? UROCE_EBUSY : 0;
		else if (!on)
			ST(p->l[i].slot, 0);
		free_i = UROCE_SHARE_MAX_LISTEN + 1; /* found: nothing to add */
		break;
	}
	if (on && free_i == UROCE_SHARE_MAX_LISTEN) {
		err = UROCE_ENOMEM;
	} else if (on && free_i < UROCE_SHARE_MAX_LISTEN) {
		ST(p->l[free_i].sid, sid);
		ST(p->l[free_i].slot, me);
	}
	if (!err)
		attach(g);
	change_end(g);
	return err;
}

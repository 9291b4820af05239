/* SPDX-License-Identifier: MIT */
/* The device's statistics page (docs/stat.md, stat/page.h): every counter of the engine, the
 * backend and QP1's MAD service, and the QP table, copied into a file of the runtime
 * directory that uroce-stat maps. The copy is made by whoever runs a round (round_lock and
 * the port lock held: one writer at a time, the engine and the backend still), at most
 * every UV_STAT_INTERVAL_NS and only after something happened, so that a busy data path
 * pays one short copy per interval and an idle one nothing. The file is locked (flock) for
 * the process's life: uroce-stat takes a file nobody locks for a crashed process's, and
 * removes it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "io/udp.h"
#include "io/packet.h"
#include "io/xdp.h"
#include "priv.h"
#include "stat/report.h"

#define UV_STAT_INTERVAL_NS 10000000 /* 10 ms: fresh for a person or a --watch of 1 s */

struct uv_stat {
	struct uroce_stat_page *page;
	int fd;
	bool report;            /* UROCE_STATS=1: print the report at the end */
	bool dirty;             /* something happened since the last copy (port lock) */
	uint64_t at;            /* when the last copy was made */
	char path[256];
	struct uroce_stat_dyn dyn; /* the copy being gathered */
};

/* The directory, made if missing: private (0700) and ours, since other users must not
 * place files that a uroce-stat run by us would trust or remove. */
int uv_runtime_dir(char *dir, size_t len)
{
	struct stat st;

	if (uroce_stat_dir(dir, len))
		return -1;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return -1;
	return 0;
}

static void set_name(char *dst, const char *prefix, const char *name)
{
	snprintf(dst, UROCE_STAT_NAME_MAX, "%s%s", prefix, name);
}

/* Each backend's own counters: its prefix ("udp_" in the names, "udp:" in the backend
 * field), how many, their names, their live values (NULL before the backend is open). */
static const char *udp_name(unsigned i) { return uroce_udp_counter_name((enum uroce_udp_counter)i); }
static const char *xdp_name(unsigned i) { return uroce_xdp_counter_name((enum uroce_xdp_counter)i); }
static const char *packet_name(unsigned i)
{
	return uroce_packet_counter_name((enum uroce_packet_counter)i);
}
static const uint64_t *udp_values(const struct uroce_io *io)
{
	const union uroce_udp_counters *c = uroce_udp_counters(io);
	return c ? c->v : NULL;
}
static const uint64_t *xdp_values(const struct uroce_io *io)
{
	const union uroce_xdp_counters *c = uroce_xdp_counters(io);
	return c ? c->v : NULL;
}
static const uint64_t *packet_values(const struct uroce_io *io)
{
	const union uroce_packet_counters *c = uroce_packet_counters(io);
	return c ? c->v : NULL;
}

static const struct backend_stats {
	const char *prefix;
	unsigned n;
	const char *(*name)(unsigned i);
	const uint64_t *(*values)(const struct uroce_io *io);
} backend_stats[] = {
	[UV_BACKEND_UDP] = {"udp:", UROCE_UDP_NCOUNTERS, udp_name, udp_values},
	[UV_BACKEND_XDP] = {"xdp:", UROCE_XDP_NCOUNTERS, xdp_name, xdp_values},
	[UV_BACKEND_PACKET] = {"packet:", UROCE_PACKET_NCOUNTERS, packet_name, packet_values},
};

/* The static part: identity and names, in the order stat_gather copies the values. */
static void fill_static(struct uv_port *p, struct uroce_stat_page *h)
{
	const struct uv_device *d = p->dev;
	const char *impair = getenv("UROCE_IMPAIR");
	size_t used = 0;
	uint32_t n = 0;
	FILE *f;

	h->magic = UROCE_STAT_MAGIC;
	h->version = UROCE_STAT_VERSION;
	h->size = sizeof(*h);
	h->pid = (uint64_t)getpid();
	h->start_ns = uroce_udp_now();
	if ((f = fopen("/proc/self/comm", "r"))) {
		if (fgets(h->comm, sizeof(h->comm), f))
			h->comm[strcspn(h->comm, "\n")] = 0;
		fclose(f);
	}
	snprintf(h->device, sizeof(h->device), "%s", UV_DEV_NAME);
	const struct backend_stats *b = &backend_stats[d->backend];
	if (d->backend == UV_BACKEND_UDP)
		snprintf(h->backend, sizeof(h->backend), "udp");
	else /* "xdp:eth0", "packet:eth0" */
		snprintf(h->backend, sizeof(h->backend), "%s%.*s", b->prefix,
			 (int)(sizeof(h->backend) - 1 - strlen(b->prefix)), d->raw_if);
	for (size_t i = 0; i < d->ngids && used + INET6_ADDRSTRLEN + 1 < sizeof(h->addrs); i++) {
		const struct uroce_io_addr *a = &d->gid[i].addr;

		if (used)
			h->addrs[used++] = ' ';
		if (inet_ntop(a->ipv6 ? AF_INET6 : AF_INET, a->ip, h->addrs + used,
			      (socklen_t)(sizeof(h->addrs) - used)))
			used += strlen(h->addrs + used);
	}
	if (p->impaired && impair)
		snprintf(h->impair, sizeof(h->impair), "%s", impair);

	for (unsigned i = 0; i < UROCE_NCOUNTERS; i++)
		set_name(h->counter_names[n++], "", uroce_counter_name((enum uroce_counter)i));
	for (unsigned i = 0; i < b->n; i++) {
		char prefix[8];
		snprintf(prefix, sizeof(prefix), "%.*s_", (int)strlen(b->prefix) - 1, b->prefix);
		set_name(h->counter_names[n++], prefix, b->name(i));
	}
#define UV_STAT_MAD_NAME(name, desc) set_name(h->counter_names[n++], "", #name);
	UV_MAD_COUNTERS(UV_STAT_MAD_NAME)
#undef UV_STAT_MAD_NAME
	h->ncounters = n;
	for (unsigned i = 0; i < UROCE_NCOUNTERS; i++)
		set_name(h->qp_counter_names[i], "", uroce_counter_name((enum uroce_counter)i));
	h->nqp_counters = UROCE_NCOUNTERS;
}

_Static_assert(UROCE_NCOUNTERS + UROCE_UDP_NCOUNTERS + 8 <= UROCE_STAT_MAX_COUNTERS &&
		       UROCE_NCOUNTERS + UROCE_XDP_NCOUNTERS + 8 <= UROCE_STAT_MAX_COUNTERS &&
		       UROCE_NCOUNTERS + UROCE_PACKET_NCOUNTERS + 8 <= UROCE_STAT_MAX_COUNTERS,
	       "stat/page.h: room for every device counter (and the MAD service's few)");
_Static_assert(UROCE_NCOUNTERS <= UROCE_STAT_MAX_QP_COUNTERS,
	       "stat/page.h: room for every QP counter");

/* The values, in fill_static's order (both locks held). */
static void stat_gather(struct uv_port *p, struct uroce_stat_dyn *d, uint64_t now)
{
	const union uroce_counters *dev = uroce_dev_counters(p->eng);
	struct uroce_qp_info qi;
	union uroce_counters qc;
	uint32_t n = 0, cursor = 0;

	d->time_ns = now;
	d->publishes++;
	for (unsigned i = 0; i < UROCE_NCOUNTERS; i++)
		d->counters[n++] = dev->v[i];
	const struct backend_stats *b = &backend_stats[p->dev->backend];
	const uint64_t *v = b->values(p->io);
	for (unsigned i = 0; i < b->n; i++)
		d->counters[n++] = v ? v[i] : 0;
#define UV_STAT_MAD_VALUE(name, desc) d->counters[n++] = p->mad_counters.name;
	UV_MAD_COUNTERS(UV_STAT_MAD_VALUE)
#undef UV_STAT_MAD_VALUE

	d->nqps = d->qps_total = 0;
	while (uroce_dev_qp_next(p->eng, &cursor, &qi, &qc)) {
		struct uroce_stat_qp *q = &d->qps[d->nqps];

		if (d->qps_total++ >= UROCE_STAT_MAX_QPS)
			continue;
		d->nqps++;
		*q = (struct uroce_stat_qp){
			.qpn = qi.qpn, .dest_qpn = qi.dest_qpn, .type = qi.type, .state = qi.state,
			.peer_ipv6 = qi.peer.ipv6, .sq_psn = qi.sq_psn, .una = qi.una,
			.epsn = qi.epsn, .send_outstanding = qi.send_outstanding,
			.recv_posted = qi.recv_posted,
			.pace_kbps = qi.pace_bps / 1000 > UINT32_MAX ? UINT32_MAX
				     : (uint32_t)(qi.pace_bps / 1000),
		};
		memcpy(q->peer, qi.peer.ip, sizeof(q->peer));
		memcpy(q->cnt, qc.v, sizeof(qc.v));
	}
}

static void stat_publish(struct uv_port *p, uint64_t now)
{
	struct uv_stat *s = p->stat;

	stat_gather(p, &s->dyn, now);
	uroce_stat_store(s->page, &s->dyn, uroce_stat_dyn_words(&s->dyn));
	s->at = now;
	s->dirty = false;
}

/* Made under a temporary name, locked, filled, then renamed: uroce-stat only looks at
 * <pid>.stat files, so it never finds one unlocked or half written. */
void uv_stat_open(struct uv_port *p)
{
	const char *env = getenv("UROCE_STATS");
	char dir[200], tmp[256];
	struct uv_stat *s;
	void *m;

	if (!(s = calloc(1, sizeof(*s))))
		return;
	s->fd = -1;
	s->report = env && !strcmp(env, "1");
	s->dirty = true;
	p->stat = s;
	if (uv_runtime_dir(dir, sizeof(dir)))
		return; /* no page, but UROCE_STATS still reports */
	snprintf(tmp, sizeof(tmp), "%s/.%d.tmp", dir, (int)getpid());
	snprintf(s->path, sizeof(s->path), "%s/%d.stat", dir, (int)getpid());
	unlink(tmp);
	if ((s->fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		goto fail;
	if (flock(s->fd, LOCK_EX | LOCK_NB) || ftruncate(s->fd, sizeof(*s->page)))
		goto fail;
	m = mmap(NULL, sizeof(*s->page), PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	s->page = m;
	fill_static(p, s->page);
	if (rename(tmp, s->path)) {
		munmap(s->page, sizeof(*s->page));
		s->page = NULL;
		goto fail;
	}
	return;
fail:
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
		unlink(tmp);
	}
	s->path[0] = 0;
}

void uv_stat_round(struct uv_port *p, uint64_t now, bool moved)
{
	struct uv_stat *s = p->stat;

	if (!s || !s->page)
		return;
	if (!(s->dirty |= moved) || now - s->at < UV_STAT_INTERVAL_NS)
		return;
	stat_publish(p, now);
	/* What this round sends is counted after the copy (the sends run without the port
	 * lock): one more copy an interval later takes it. */
	s->dirty = moved;
}

void uv_stat_changed(struct uv_port *p)
{
	if (p->stat)
		p->stat->dirty = true;
}

uint64_t uv_stat_deadline(const struct uv_port *p)
{
	const struct uv_stat *s = p->stat;

	return s && s->page && s->dirty ? s->at + UV_STAT_INTERVAL_NS : UROCE_NEVER;
}

void uv_stat_close(struct uv_port *p, bool exiting)
{
	struct uv_stat *s = p->stat;
	struct uroce_stat_snapshot *snap;

	if (!s)
		return;
	if (s->report && p->io && (snap = calloc(1, sizeof(*snap)))) {
		/* the page's own static part when there is one, else a fresh one */
		if (s->page)
			memcpy(&snap->hdr, s->page, offsetof(struct uroce_stat_page, seq));
		else
			fill_static(p, &snap->hdr);
		stat_gather(p, &snap->dyn, uroce_udp_now());
		uroce_stat_print_table(stderr, snap, NULL, false);
		free(snap);
	}
	if (s->page) {
		unlink(s->path);
		munmap(s->page, sizeof(*s->page));
		s->page = NULL;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	/* At exit the progress thread may still run a round that looks at p->stat. */
	if (!exiting) {
		p->stat = NULL;
		free(s);
	} else {
		s->report = false;
	}
}

/* SPDX-License-Identifier: MIT */
/* The devices: uroce's verbs devices found through their bridge (verbs/bridge.h), each with
 * a CM (src/cm) that becomes the port's MAD service on first use; rdma_get_devices. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <time.h>

#include "common/error.h"
#include "priv.h"

pthread_mutex_t cma_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cma_init_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool cma_discovered;
static struct cma_dev cma_devs[CMA_MAX_DEVS];
static int cma_ndev;
static int cma_init_err;

int cma_ret(int err)
{
	if (!err)
		return 0;
	errno = err;
	return -1;
}

int cma_errno(int e)
{
	switch (e) {
	case 0:
		return 0;
	case UROCE_ENOMEM:
		return ENOMEM;
	case UROCE_EBUSY:
		return EADDRINUSE; /* a listener on the same Service ID */
	default:
		return EINVAL;
	}
}

uint32_t cma_random(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)random();
	return v;
}

void cma_addr_from_sa(struct uroce_io_addr *a, uint16_t *port, const struct sockaddr *sa)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};

		/* An IPv4-mapped IPv6 address is the IPv4 address (a GID's form). */
		if (!memcmp(s6->sin6_addr.s6_addr, mapped, 12)) {
			memcpy(a->ip, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			a->ipv6 = true;
			memcpy(a->ip, s6->sin6_addr.s6_addr, 16);
		}
		if (port)
			*port = ntohs(s6->sin6_port);
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		memcpy(a->ip, &s4->sin_addr, 4);
		if (port)
			*port = ntohs(s4->sin_port);
	}
}

void cma_sa_from_addr(struct sockaddr_storage *ss, const struct uroce_io_addr *a, uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (a->ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(s6->sin6_addr.s6_addr, a->ip, 16);
		s6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a->ip, 4);
		s4->sin_port = htons(port);
	}
}

/* ---- The MAD service: runs in the port's round, port lock held ---- */

static void svc_recv(void *arg, const struct uroce_cm_mad *mad, uint64_t now)
{
	struct cma_dev *d = arg;

	uroce_cm_recv(d->cm, mad, now);
	cma_dev_drain(d, now);
}

static void svc_timer(void *arg, uint64_t now)
{
	struct cma_dev *d = arg;

	uroce_cm_on_timer(d->cm, now);
	cma_dev_drain(d, now);
}

static int svc_next_mad(void *arg, struct uroce_cm_mad *out)
{
	struct cma_dev *d = arg;
	int r = uroce_cm_next_mad(d->cm, out);

	if (!r)
		d->drained = d->kicked;
	return r;
}

static uint64_t svc_deadline(void *arg)
{
	return uroce_cm_next_deadline(((struct cma_dev *)arg)->cm);
}

void cma_dev_drain(struct cma_dev *dev, uint64_t now)
{
	struct uroce_cm_event ev;

	while (uroce_cm_get_event(dev->cm, &ev))
		cma_handle_cm_event(dev, &ev, now);
}

void cma_dev_lock(struct cma_dev *dev)
{
	dev->bridge->lock(dev->port);
}

void cma_dev_unlock(struct cma_dev *dev)
{
	cma_dev_drain(dev, cma_dev_now(dev));
	dev->bridge->unlock_kick(dev->port);
}

uint64_t cma_dev_now(struct cma_dev *dev)
{
	return dev->bridge->now(dev->port);
}

/* ---- Discovery ---- */

static void load_gids(struct cma_dev *d)
{
	struct ibv_port_attr pa;

	d->ngids = 0;
	for (int i = 0; i < CMA_MAX_GIDS; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(d->verbs, 1, (uint32_t)i, &e, 0))
			break;
		uroce_cm_addr_from_gid(&d->gid[d->ngids].addr, e.gid.raw);
		d->gid[d->ngids].ifindex = (int)e.ndev_ifindex;
		d->ngids++;
	}
	d->mtu = IBV_MTU_1024;
	if (!ibv_query_port(d->verbs, 1, &pa) && pa.active_mtu)
		d->mtu = (uint8_t)pa.active_mtu;
}

static int init_dev(struct cma_dev *d, struct ibv_device *ibdev, const struct uv_bridge *b)
{
	struct ibv_device_attr attr;
	struct uroce_cm_cfg cfg = {0};
	uint64_t seed;

	d->ibdev = ibdev;
	d->bridge = b;
	d->verbs = ibv_open_device(ibdev);
	if (!d->verbs)
		return -1;
	if (ibv_query_device(d->verbs, &attr)) {
		ibv_close_device(d->verbs);
		return -1;
	}
	d->guid = be64toh(attr.node_guid);
	d->max_init_depth = (uint8_t)(attr.max_qp_init_rd_atom > 255 ? 255 : attr.max_qp_init_rd_atom);
	d->max_resp_res = (uint8_t)(attr.max_qp_rd_atom > 255 ? 255 : attr.max_qp_rd_atom);
	load_gids(d);
	seed = (uint64_t)cma_random() << 32 | cma_random();
	cfg.ca_guid = d->guid;
	cfg.seed = seed;
	cfg.tid_high = 2; /* Linux's MAD agent number in the rxe captures (docs/cm.md) */
	cfg.ack_delay = 15; /* uroce's verbs report rxe's local CA ACK delay */
	/* The process's slot on the shared addresses: the peers' answers name it in their
	 * Remote Comm ID, by which the port steers them here (docs/multiprocess.md). */
	cfg.id_prefix = (uint8_t)b->slot(d->verbs);
	if (uroce_cm_new(&cfg, &d->cm)) {
		ibv_close_device(d->verbs);
		return -1;
	}
	pthread_mutex_init(&d->attach_mu, NULL);
	d->svc = (struct uv_mad_service){
		.arg = d,
		.recv = svc_recv,
		.on_timer = svc_timer,
		.next_mad = svc_next_mad,
		.next_deadline = svc_deadline,
	};
	return 0;
}

static void discover(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		cma_init_err = errno ? errno : ENODEV;
		return;
	}
	for (int i = 0; i < n && cma_ndev < CMA_MAX_DEVS; i++) {
		const struct uv_bridge *b = uv_bridge_of(list[i]);

		if (b && !init_dev(&cma_devs[cma_ndev], list[i], b))
			cma_ndev++;
	}
	/* The devices stay open for the life of the process, as librdmacm keeps its
	 * cma_dev_list; an open device outlives the list it came in. */
	ibv_free_device_list(list);
	cma_init_err = cma_ndev ? 0 : ENODEV;
	cma_ports_seed(cma_random());
}

/* Discovery opens the devices (ibv_open_device takes verbs locks) under cma_init_mu. The
 * devices' progress threads call back into librdmacm with their port lock held (an incoming
 * REQ makes an id: event.c) and so may reach cma_init: once discovery is done they see the
 * flag and never take cma_init_mu, which keeps the two locks in one order. */
int cma_init(void)
{
	if (!atomic_load_explicit(&cma_discovered, memory_order_acquire)) {
		pthread_mutex_lock(&cma_init_mu);
		if (!atomic_load_explicit(&cma_discovered, memory_order_relaxed)) {
			discover();
			atomic_store_explicit(&cma_discovered, true, memory_order_release);
		}
		pthread_mutex_unlock(&cma_init_mu);
	}
	return cma_ret(cma_init_err);
}

int cma_ndevs(void)
{
	return cma_ndev;
}

struct cma_dev *cma_dev_at(int i)
{
	return i >= 0 && i < cma_ndev ? &cma_devs[i] : NULL;
}

struct cma_dev *cma_dev_of_addr(const struct uroce_io_addr *addr, int *index)
{
	for (int i = 0; i < cma_ndev; i++)
		for (int g = 0; g < cma_devs[i].ngids; g++)
			if (uroce_io_addr_equal(&cma_devs[i].gid[g].addr, addr)) {
				if (index)
					*index = g;
				return &cma_devs[i];
			}
	return NULL;
}

/* cma_dev_open's work, attach_mu held: 0 or a positive errno. */
static int dev_open_locked(struct cma_dev *d)
{
	int err = 0;

	if (!d->pd) {
		d->pd = ibv_alloc_pd(d->verbs);
		if (!d->pd)
			err = errno ? errno : ENOMEM;
	}
	if (!err && !d->port) {
		err = d->bridge->attach(d->verbs, &d->svc, &d->port);
		if (err)
			d->port = NULL;
	}
	return err;
}

int cma_dev_open(struct cma_dev *d)
{
	int err;

	pthread_mutex_lock(&d->attach_mu);
	err = dev_open_locked(d);
	pthread_mutex_unlock(&d->attach_mu);
	return cma_ret(err);
}

/* A CM id of c listening on sid in d's CM, in *out: 0, or a positive errno (*out as it was).
 * now: the port's clock, which destroying an id that never listened does not read. */
static int cm_listen(struct cma_dev *d, struct cma_id *c, uint64_t sid, struct uroce_cm_id **out,
		     uint64_t now)
{
	struct uroce_cm_id *cid;
	int e = uroce_cm_create_id(d->cm, c, &cid);

	if (!e && (e = uroce_cm_listen(cid, sid, 0)))
		uroce_cm_destroy_id(cid, now);
	if (e)
		return cma_errno(e);
	*out = cid;
	return 0;
}

/* With the port lock held: the listener *out (0) also gets the REQs the port receives for
 * sid among the processes sharing its addresses; when another process listens on sid there,
 * it is destroyed (EADDRINUSE, as the kernel's bind of a taken port). */
static int share_listen(struct cma_dev *d, uint64_t sid, struct uroce_cm_id **out)
{
	int err = d->bridge->listen(d->port, sid, true);

	if (err) {
		uroce_cm_destroy_id(*out, cma_dev_now(d));
		*out = NULL;
	}
	return err;
}

void cma_dev_unlisten(struct cma_dev *d, uint64_t sid)
{
	if (d->port)
		(void)d->bridge->listen(d->port, sid, false);
}

int cma_dev_listen(struct cma_dev *d, struct cma_id *c, uint64_t sid, struct uroce_cm_id **out,
		   bool *opened)
{
	int err;

	*opened = true;
	pthread_mutex_lock(&d->attach_mu);
	if (d->port) {
		pthread_mutex_unlock(&d->attach_mu);
		cma_dev_lock(d);
		err = cm_listen(d, c, sid, out, cma_dev_now(d));
		if (!err)
			err = share_listen(d, sid, out);
		cma_dev_unlock(d);
		return err;
	}
	/* The listener goes into the CM before the port takes its first MAD: a REQ already
	 * waiting for the new socket (a peer told the port before the listen, as qperf 0.4.11's
	 * server tells its client) would otherwise be rejected for no listener (invalid Service
	 * ID) between the port's start and the listen. No progress thread runs this CM before
	 * the attach, and attach_mu keeps every other thread from attaching it meanwhile. */
	err = cm_listen(d, c, sid, out, 0);
	if (!err && dev_open_locked(d)) {
		uroce_cm_destroy_id(*out, 0); /* a listener, no request: now is not read */
		*out = NULL;
		*opened = false;
	} else if (!err) {
		cma_dev_lock(d);
		err = share_listen(d, sid, out);
		cma_dev_unlock(d);
	}
	pthread_mutex_unlock(&d->attach_mu);
	return err;
}

/* ---- Every id, and the process's exit ---- */

static struct cma_id *all_ids;

/* fork: the child's copies of the devices (their CMs, the verbs port under them: port.c) and
 * of every id are the parent's. The child forgets them: its first call opens the devices
 * again, for itself, and its exit (cma_at_exit) destroys its own ids only, never sending the
 * parent's DREQs or REJs. */
static void cma_after_fork(void)
{
	pthread_mutex_init(&cma_mu, NULL);
	pthread_mutex_init(&cma_init_mu, NULL);
	memset(cma_devs, 0, sizeof(cma_devs));
	cma_ndev = 0;
	cma_init_err = 0;
	atomic_store_explicit(&cma_discovered, false, memory_order_relaxed);
	all_ids = NULL;
}

__attribute__((constructor)) static void cma_fork_init(void)
{
	pthread_atfork(NULL, NULL, cma_after_fork);
}

void cma_id_link(struct cma_id *c)
{
	pthread_mutex_lock(&cma_mu);
	c->next_all = all_ids;
	c->prev_all = &all_ids;
	if (all_ids)
		all_ids->prev_all = &c->next_all;
	all_ids = c;
	pthread_mutex_unlock(&cma_mu);
}

void cma_id_unlink(struct cma_id *c)
{
	pthread_mutex_lock(&cma_mu);
	*c->prev_all = c->next_all;
	if (c->next_all)
		c->next_all->prev_all = c->prev_all;
	pthread_mutex_unlock(&cma_mu);
}

/* The kernel's rdma_cm destroys a process's ids when its file is closed, at the latest when
 * the process exits (ucma_close), and its CM then sends what each state calls for: the DREP
 * of a DREQ the process never answered, a DREQ for a connection still up, a REJ for a
 * request never accepted. A program that exits without rdma_disconnect or rdma_destroy_id
 * (qperf's server, for one) relies on it: without it the peer would wait for a DREP until
 * its DREQ's retries run out. Here the CM lives in the process, so its exit does it: every
 * CM id still alive is destroyed, then the port is given a little time to send the MADs
 * (libibverbs' own exit then sends what its engine still holds). A process that dies of a
 * signal sends nothing, as a crashed host would. The ids themselves stay: other threads may
 * still hold them while the process ends. */
#define CMA_EXIT_WAIT_NS 200000000ll /* at most 0.2 s for the last MADs */

__attribute__((destructor)) static void cma_at_exit(void)
{
	struct cma_id *c;
	uint64_t gen[CMA_MAX_DEVS] = {0};

	for (;;) {
		struct uroce_cm_id *cid = NULL;
		struct cma_dev *d = NULL;

		pthread_mutex_lock(&cma_mu);
		for (c = all_ids; c && !cid; c = c->next_all) {
			if (c->cm_id) {
				cid = c->cm_id;
				d = c->dev;
				c->cm_id = NULL;
			}
			for (int i = 0; i < CMA_MAX_DEVS && !cid; i++)
				if (c->listen_cm[i]) {
					cid = c->listen_cm[i];
					d = cma_dev_at(i);
					c->listen_cm[i] = NULL;
				}
		}
		pthread_mutex_unlock(&cma_mu);
		if (!cid)
			break;
		cma_dev_lock(d);
		uroce_cm_destroy_id(cid, cma_dev_now(d));
		cma_dev_unlock(d);
	}
	for (int i = 0; i < cma_ndev; i++) {
		struct cma_dev *d = &cma_devs[i];

		if (!d->port)
			continue;
		cma_dev_lock(d);
		gen[i] = ++d->kicked;
		cma_dev_unlock(d);
	}
	for (long long waited = 0; waited < CMA_EXIT_WAIT_NS; waited += 1000000) {
		const struct timespec ms = {0, 1000000};
		bool done = true;

		for (int i = 0; i < cma_ndev; i++) {
			struct cma_dev *d = &cma_devs[i];

			if (!d->port)
				continue;
			cma_dev_lock(d);
			done = done && d->drained >= gen[i];
			d->bridge->unlock_kick(d->port);
		}
		if (done)
			break;
		nanosleep(&ms, NULL);
	}
}

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;

	if (num_devices)
		*num_devices = 0;
	if (cma_init())
		return NULL; /* errno ENODEV without a uroce device, as librdmacm's ucma_init */
	list = calloc((size_t)cma_ndev + 1, sizeof(*list));
	if (!list)
		return NULL;
	for (int i = 0; i < cma_ndev; i++)
		list[i] = cma_devs[i].verbs;
	if (num_devices)
		*num_devices = cma_ndev;
	return list;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

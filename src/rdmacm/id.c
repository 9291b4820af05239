/* SPDX-License-Identifier: MIT */
/* rdma_cm ids: creation, binding to an address and a port, listening, options, destruction
 * (Linux's cma.c rdma_create_id, rdma_bind_addr, rdma_listen, rdma_set_option,
 * rdma_destroy_id; librdmacm/cma.c for what user space adds: the private channel of an id
 * created without one, the wait for unacknowledged events). */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

int cma_ps_ok(enum rdma_port_space ps)
{
	/* RDMA_PS_IPOIB needs IPoIB, which RoCE has not: refused as the kernel refuses an
	 * unknown space (ucma_create_id: -EINVAL). */
	return ps == RDMA_PS_TCP || ps == RDMA_PS_UDP || ps == RDMA_PS_IB;
}

struct cma_id *cma_id_alloc(struct rdma_event_channel *ch, void *context,
			    enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct cma_id *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->id.context = context;
	c->id.ps = ps;
	c->id.qp_type = qpt;
	/* The id's sequence number is chosen with it, as cma.c's __rdma_create_id does:
	 * rdma_init_qp_attr gives a QP of the application's own (moved to RTR and RTS before
	 * rdma_accept, or between CONNECT_RESPONSE and rdma_establish) the PSN that
	 * rdma_connect and rdma_accept advertise. */
	c->seq_num = cma_random() & 0xFFFFFF;
	if (!ch) {
		ch = rdma_create_event_channel();
		if (!ch) {
			free(c);
			return NULL;
		}
		c->sync = true;
	}
	c->id.channel = ch;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cond, NULL);
	cma_id_link(c);
	return c;
}

void cma_id_free(struct cma_id *c)
{
	struct cma_mc *mc;

	while ((mc = c->mc)) {
		c->mc = mc->next;
		free(mc);
	}
	cma_id_unlink(c);
	if (c->sync)
		rdma_destroy_event_channel(c->id.channel);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->mu);
	free(c->connect);
	free(c->qp_init_attr);
	free(c);
}

void cma_id_set_dev(struct cma_id *c, struct cma_dev *dev, int gid_index)
{
	c->dev = dev;
	c->id.verbs = dev->verbs;
	c->id.pd = dev->pd;
	c->id.port_num = 1;
	c->sgid_index = gid_index;
	uroce_cm_gid_from_addr(c->id.route.addr.addr.ibaddr.sgid.raw, &dev->gid[gid_index].addr);
	c->id.route.addr.addr.ibaddr.pkey = htobe16(0xFFFF);
}

/* id->route.path_rec from the path (ucma_query_route hands the kernel's out the same way). */
void cma_id_fill_path_rec(struct cma_id *c)
{
	struct ibv_sa_path_rec *r = &c->path_rec;
	const struct uroce_cm_path_rec *p = &c->path;

	memset(r, 0, sizeof(*r));
	uroce_cm_gid_from_addr(r->sgid.raw, &p->local);
	uroce_cm_gid_from_addr(r->dgid.raw, &p->remote);
	r->flow_label = htobe32(p->flow_label);
	r->hop_limit = p->hop_limit;
	r->traffic_class = p->traffic_class;
	r->reversible = 1;
	r->numb_path = 1;
	r->pkey = htobe16(p->pkey);
	r->sl = p->sl;
	r->mtu_selector = 2; /* exactly */
	r->mtu = p->mtu;
	r->rate_selector = 2;
	r->rate = p->rate;
	r->packet_life_time_selector = 2;
	r->packet_life_time = p->packet_life_time;
	c->id.route.path_rec = r;
	c->id.route.num_paths = 1;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	struct cma_id *c;

	if (cma_init())
		return -1;
	if (!id || !cma_ps_ok(ps))
		return cma_ret(EINVAL);
	c = cma_id_alloc(channel, context, ps,
			 ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD : IBV_QPT_RC);
	if (!c)
		return cma_ret(ENOMEM);
	*id = &c->id;
	return 0;
}

static bool is_any(const struct uroce_io_addr *a)
{
	static const uint8_t zero[16];

	return !memcmp(a->ip, zero, a->ipv6 ? 16 : 4);
}

/* 127.0.0.0/8 (RFC 1122 3.2.1.3) or ::1 (RFC 4291 2.5.3). */
static bool is_loopback(const struct uroce_io_addr *a)
{
	static const uint8_t one[16] = {[15] = 1};

	return a->ipv6 ? !memcmp(a->ip, one, 16) : a->ip[0] == 127;
}

/* Binds c to addr (its port 0: an ephemeral one), as cma_bind_addr: the device is the one
 * with that address among its GIDs, none for a wildcard address. Linux's rdma_bind_addr
 * takes a loopback address for a wildcard too (cma_any_addr is cma_zero_addr or
 * cma_loopback_addr): it succeeds without a device, id->verbs NULL. libfabric's verbs
 * provider relies on it: fi_getinfo without a node binds "localhost" (vrb_get_rai_id) and,
 * finding no device, takes the addresses of its interfaces (vrb_fill_addr). Here a loopback
 * address that is one of a device's GIDs (UROCE_IP=127.0.0.1: uroce runs on lo too) binds
 * that device; any other is a wildcard, as in the kernel. */
int cma_bind(struct cma_id *c, const struct sockaddr *sa)
{
	struct uroce_io_addr a;
	struct cma_dev *dev = NULL;
	uint16_t port;
	int gidx = 0, err;

	if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return cma_ret(EAFNOSUPPORT);
	if (c->state != CMA_IDLE)
		return cma_ret(EINVAL);
	cma_addr_from_sa(&a, &port, sa);
	if (!is_any(&a)) {
		dev = cma_dev_of_addr(&a, &gidx);
		if (!dev && !is_loopback(&a))
			return cma_ret(EADDRNOTAVAIL);
		if (dev && cma_dev_open(dev))
			return -1;
	}
	err = cma_port_get((uint16_t)c->id.ps, &port, c->reuseaddr, c);
	if (err)
		return cma_ret(-err);
	c->port_held = true;
	if (dev)
		cma_id_set_dev(c, dev, gidx);
	memset(&c->id.route.addr.src_storage, 0, sizeof(c->id.route.addr.src_storage));
	memcpy(&c->id.route.addr.src_storage, sa,
	       sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	if (sa->sa_family == AF_INET6)
		c->id.route.addr.src_sin6.sin6_port = htons(port);
	else
		c->id.route.addr.src_sin.sin_port = htons(port);
	c->state = CMA_ADDR_BOUND;
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_bind(cma_id_of(id), addr);
}

static uint16_t src_port(struct cma_id *c)
{
	return ntohs(rdma_get_src_port(&c->id));
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct cma_id *c = cma_id_of(id);
	uint64_t sid;
	int err = 0, listening = 0;

	if (c->state == CMA_IDLE) {
		/* rdma_listen on an unbound id binds it to the IPv4 wildcard (cma_bind_any). */
		struct sockaddr_in any = {.sin_family = AF_INET};

		if (cma_bind(c, (struct sockaddr *)&any))
			return -1;
	}
	if (c->state != CMA_ADDR_BOUND)
		return cma_ret(c->state == CMA_LISTEN ? 0 : EINVAL);
	err = cma_port_listen((uint16_t)id->ps, src_port(c), c);
	if (err)
		return cma_ret(-err);
	c->backlog = backlog;
	/* Before the CM listens: a REQ may come at once, and its callback looks at it. */
	c->state = CMA_LISTEN;
	sid = uroce_rdma_service_id((uint16_t)id->ps, src_port(c));
	for (int i = 0; i < cma_ndevs(); i++) {
		struct cma_dev *d = cma_dev_at(i);
		bool opened;
		int e;

		if (c->dev && c->dev != d)
			continue;
		e = cma_dev_listen(d, c, sid, &c->listen_cm[i], &opened);
		if (!opened)
			continue; /* a wildcard listener listens on the devices that can */
		if (e)
			err = e;
		else
			listening++;
	}
	if (!listening) {
		c->state = CMA_ADDR_BOUND; /* no CM listens for it: no callback sees it */
		return cma_ret(err ? err : ENODEV);
	}
	return 0;
}

/* Destroys a request's id that the application never saw (its listener goes away). */
static void destroy_child(struct cma_id *k)
{
	struct cma_id *none[1];
	int n;

	cma_dev_lock(k->dev);
	uroce_cm_destroy_id(k->cm_id, cma_dev_now(k->dev));
	cma_dev_unlock(k->dev);
	cma_unqueue(k, none, &n, 0);
	cma_id_free(k);
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cma_id *c = cma_id_of(id);
	struct cma_id *children[256];
	int n;

	if (!c)
		return cma_ret(EINVAL);
	/* After these, no callback names c again (uroce_cm_destroy_id drops its events). */
	for (int i = 0; i < CMA_MAX_DEVS; i++)
		if (c->listen_cm[i]) {
			struct cma_dev *d = cma_dev_at(i);

			cma_dev_lock(d);
			cma_dev_unlisten(d, uroce_rdma_service_id((uint16_t)id->ps, src_port(c)));
			uroce_cm_destroy_id(c->listen_cm[i], cma_dev_now(d));
			cma_dev_unlock(d);
		}
	if (c->cm_id) {
		cma_dev_lock(c->dev);
		uroce_cm_destroy_id(c->cm_id, cma_dev_now(c->dev));
		c->cm_id = NULL;
		cma_dev_unlock(c->dev);
	}
	do {
		cma_unqueue(c, children, &n, (int)(sizeof(children) / sizeof(children[0])));
		for (int i = 0; i < n; i++)
			destroy_child(children[i]);
	} while (n == (int)(sizeof(children) / sizeof(children[0])));
	if (c->port_held)
		cma_port_put((uint16_t)id->ps, src_port(c), c);
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	/* librdmacm's rdma_destroy_id: every event handed out must be acknowledged first. */
	pthread_mutex_lock(&c->mu);
	while (c->completed < c->reported)
		pthread_cond_wait(&c->cond, &c->mu);
	pthread_mutex_unlock(&c->mu);
	cma_id_free(c);
	return 0;
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	struct cma_id *c = cma_id_of(id);

	if (!optval)
		return cma_ret(EINVAL);
	if (level == RDMA_OPTION_IB)
		/* Paths from an SA (RDMA_OPTION_IB_PATH): a RoCE port builds its own. */
		return cma_ret(optname == RDMA_OPTION_IB_PATH ? EOPNOTSUPP : ENOSYS);
	if (level != RDMA_OPTION_ID)
		return cma_ret(ENOSYS);
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(uint8_t))
			return cma_ret(EINVAL);
		c->tos = *(uint8_t *)optval;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (optlen != sizeof(int))
			return cma_ret(EINVAL);
		/* Before the id is bound (rdma_set_reuseaddr: RDMA_CM_IDLE only). */
		if (c->state != CMA_IDLE)
			return cma_ret(EINVAL);
		c->reuseaddr = *(int *)optval != 0;
		return 0;
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			return cma_ret(EINVAL);
		if (c->state != CMA_IDLE)
			return cma_ret(EINVAL);
		c->afonly = *(int *)optval != 0;
		return 0;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t))
			return cma_ret(EINVAL);
		c->ack_timeout = *(uint8_t *)optval;
		if (c->ack_timeout > UROCE_CM_MAX_TIMEOUT)
			c->ack_timeout = UROCE_CM_MAX_TIMEOUT;
		return 0;
	default:
		return cma_ret(ENOSYS);
	}
}

static __be16 port_of(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	return 0;
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return port_of(&id->route.addr.src_addr);
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return port_of(&id->route.addr.dst_addr);
}

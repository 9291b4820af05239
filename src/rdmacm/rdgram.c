/* SPDX-License-Identifier: MIT */
/* Datagram rsockets (SOCK_DGRAM; the API is rsocket.c's), speaking rdma-core 44's protocol
 * (librdmacm/rsocket.c, v44.0: the ds_* and udp_svc_* functions; docs/rdmacm.md "rsocket").
 *
 * A datagram rsocket is a real UDP socket (its number, bound and connected as the
 * application says) and one UD QP per local address it sends from, bound in RDMA_PS_UDP to
 * that address and the UDP socket's port, Q_Key RDMA_UDP_QKEY. Each datagram over a QP
 * starts with a ds_header naming its sender's UDP address (version 4 or 6, its length, the
 * port, the IPv4 address or the IPv6 flow info and address): recvfrom reports it.
 *
 * A peer's QP number is learned over UDP. The first datagram to an address whose QP is not
 * known goes by the UDP socket, behind a ds_udp_header (tag 0x55555555, version, op
 * RS_OP_DATA, length, the sender's QPN, its address). The receiver's service thread answers
 * with an RS_OP_CTRL header alone (its own QPN), makes an address handle to the sender,
 * and hands the data to its own QP by a send to itself, so that the application reads
 * every datagram from its QPs. The sender's service thread takes the answer's QPN: the
 * datagrams that follow go over the QPs.
 *
 * Where uroce differs from rdma-core, on purpose: rdma-core's address handle from a QP to
 * itself has no GRH (ds_add_qp_dest: a LID only), which a RoCE port refuses (the kernel's
 * rdma_check_ah_attr; uroce's ibv_create_ah says EINVAL too), so rdma-core's datagram
 * rsockets fail on every RoCE device; uroce's self address handle is built like any other,
 * from the resolved route. A datagram larger than a slot fails with EMSGSIZE (rdma-core's
 * copies past its slot). A sendto from an unbound socket binds it first, as UDP's does
 * (rdma-core then announces port 0). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>

#include "priv.h"
#include "rsocket.h"
#include "wire/rsocket.h"

enum { DS_GRH_LEN = 40 }; /* a receive's first 40 bytes, before the datagram */
#define RECV_WR (1ull << 63) /* a receive's wr_id: this bit and its slot's offset */

struct ds_qp;

/* A peer by its UDP address: the QP that sends to it, and its QP once known. */
struct ds_dest {
	struct sockaddr_storage addr;
	struct ds_qp *qp;
	struct ibv_ah *ah; /* NULL until the peer's QPN is known: datagrams go by UDP */
	uint32_t qpn;
	struct ds_dest *next;
};

/* The UD QP of one local address. */
struct ds_qp {
	struct ds_qp *next;
	struct rdma_cm_id *id; /* holds the CQ and its channel too (rdma_destroy_qp frees them) */
	struct ibv_mr *smr, *rmr;
	uint8_t *rbuf;    /* rq_size slots of RS_SNDLOWAT, then the GRH's landing place */
	uint8_t hdr[UROCE_DS_HDR6_LEN]; /* the ds_header of its datagrams */
	uint8_t hdr_len;
	uint32_t max_data; /* the largest datagram it carries */
	bool armed;
	struct ds_dest self; /* its own address: the service thread's sends to itself */
};

/* A received datagram waiting for recvfrom. */
struct ds_rmsg {
	struct ds_qp *qp;
	uint32_t offset, length;
};

struct ds {
	struct rsock k; /* first; k.fd is the UDP socket */
	int epfd;       /* the QPs' completion channels: rpoll and a blocking call sleep on it */
	pthread_mutex_t mu;
	bool readable, writable;
	bool ep; /* the buffers exist and the service thread watches the socket */
	uint32_t sbuf_size, rbuf_size;
	uint16_t sq_size, rq_size, sq_inline;

	uint8_t *sbuf; /* sq_size slots of RS_SNDLOWAT */
	uint16_t *free_slots; /* a stack: the first sqe_avail are free */
	int sqe_avail;
	struct ds_rmsg *rmsg; /* a ring of rq_size + 1 */
	int rmsg_head, rmsg_tail, rqe_avail;

	struct ds_qp *qps;
	struct ds_dest *dests, *conn;
	struct ds *svc_next;
};

static const struct rsock_ops dgram_ops;

static struct ds *ds_of(struct rsock *k)
{
	return (struct ds *)k;
}

static socklen_t addr_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* Same family, port and address (rdma-core's ds_compare_addr, without the flow info). */
static bool addr_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

	return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
}

static bool addr_copy(struct sockaddr_storage *dst, const struct sockaddr *src, socklen_t l)
{
	socklen_t need = src && src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
							     sizeof(struct sockaddr_in);

	if (!src || (src->sa_family != AF_INET && src->sa_family != AF_INET6) || l < need) {
		errno = EINVAL;
		return false;
	}
	memset(dst, 0, sizeof(*dst));
	memcpy(dst, src, need);
	return true;
}

/* A socket address as the headers carry it (wire/rsocket.h), and back. */
static void ds_addr_of(const struct sockaddr_storage *s, struct uroce_ds_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (s->ss_family == AF_INET) {
		const struct sockaddr_in *v4 = (const void *)s;

		a->version = 4;
		memcpy(a->port, &v4->sin_port, 2);
		memcpy(a->ip, &v4->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *v6 = (const void *)s;

		a->version = 6;
		memcpy(a->port, &v6->sin6_port, 2);
		memcpy(a->flow, &v6->sin6_flowinfo, 4);
		memcpy(a->ip, &v6->sin6_addr, 16);
	}
}

static void sockaddr_of(const struct uroce_ds_addr *a, struct sockaddr_storage *s)
{
	memset(s, 0, sizeof(*s));
	if (a->version == 4) {
		struct sockaddr_in *v4 = (void *)s;

		v4->sin_family = AF_INET;
		memcpy(&v4->sin_port, a->port, 2);
		memcpy(&v4->sin_addr, a->ip, 4);
	} else {
		struct sockaddr_in6 *v6 = (void *)s;

		v6->sin6_family = AF_INET6;
		memcpy(&v6->sin6_port, a->port, 2);
		memcpy(&v6->sin6_flowinfo, a->flow, 4);
		memcpy(&v6->sin6_addr, a->ip, 16);
	}
}

/* The ds_header naming a (rdma-core's ds_format_hdr): its length. */
static uint8_t format_hdr(uint8_t *h, const struct sockaddr_storage *a)
{
	struct uroce_ds_addr da;

	ds_addr_of(a, &da);
	return (uint8_t)uroce_ds_hdr_build(h, &da);
}

/* ---- the service thread: every datagram rsocket's UDP socket ---- */

/* svc_mu guards the list, never held while a socket's mu is taken (the application holds
 * its socket's mu when it adds the socket): the thread marks the socket it serves busy and
 * serves it without svc_mu, and svc_remove waits until it is not busy. */
static pthread_mutex_t svc_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t svc_idle = PTHREAD_COND_INITIALIZER;
static struct ds *svc_list, *svc_busy;
static int svc_wake = -1; /* an eventfd: the list changed */
static bool svc_running;

static void svc_process(struct ds *ds);

static void *svc_main(void *arg)
{
	struct pollfd *pf = NULL;
	size_t cap = 0;

	(void)arg;
	for (;;) {
		size_t n = 1;

		pthread_mutex_lock(&svc_mu);
		for (struct ds *d = svc_list; d; d = d->svc_next)
			n++;
		if (n > cap) {
			struct pollfd *p = realloc(pf, n * sizeof(*pf));

			if (p) {
				pf = p;
				cap = n;
			}
		}
		if (n > cap)
			n = cap; /* out of memory: the sockets that fit */
		pf[0] = (struct pollfd){ .fd = svc_wake, .events = POLLIN };
		n = 1;
		for (struct ds *d = svc_list; d && n < cap; d = d->svc_next)
			pf[n++] = (struct pollfd){ .fd = d->k.fd, .events = POLLIN };
		pthread_mutex_unlock(&svc_mu);

		if (poll(pf, n, -1) < 0)
			continue;
		if (pf[0].revents) {
			uint64_t v;

			if (read(svc_wake, &v, sizeof(v)) < 0)
				continue;
		}
		/* A descriptor whose socket left the list is skipped; a socket being closed waits
		 * while it is served (svc_remove). */
		for (size_t i = 1; i < n; i++) {
			struct ds *d;

			if (!(pf[i].revents & POLLIN))
				continue;
			pthread_mutex_lock(&svc_mu);
			for (d = svc_list; d && d->k.fd != pf[i].fd; d = d->svc_next)
				;
			svc_busy = d;
			pthread_mutex_unlock(&svc_mu);
			if (!d)
				continue;
			svc_process(d);
			pthread_mutex_lock(&svc_mu);
			svc_busy = NULL;
			pthread_cond_broadcast(&svc_idle);
			pthread_mutex_unlock(&svc_mu);
		}
	}
	return NULL;
}

static void svc_kick(void)
{
	uint64_t one = 1;

	if (write(svc_wake, &one, sizeof(one)) < 0) {
		/* the counter is full: the thread has a wake-up pending anyway */
	}
}

static int svc_add(struct ds *ds)
{
	int err = 0;

	pthread_mutex_lock(&svc_mu);
	if (!svc_running) {
		pthread_attr_t at;
		pthread_t t;

		if (svc_wake < 0)
			svc_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (svc_wake < 0)
			err = errno;
		else
			err = pthread_create(&t, &at, svc_main, NULL);
		pthread_attr_destroy(&at);
		svc_running = !err;
	}
	if (!err) {
		ds->svc_next = svc_list;
		svc_list = ds;
		svc_kick();
	}
	pthread_mutex_unlock(&svc_mu);
	if (err)
		errno = err;
	return err ? -1 : 0;
}

static void svc_remove(struct ds *ds)
{
	pthread_mutex_lock(&svc_mu);
	for (struct ds **p = &svc_list; *p; p = &(*p)->svc_next)
		if (*p == ds) {
			*p = ds->svc_next;
			svc_kick();
			break;
		}
	while (svc_busy == ds)
		pthread_cond_wait(&svc_idle, &svc_mu);
	pthread_mutex_unlock(&svc_mu);
}

/* fork: the child has no service thread; its first datagram rsocket starts one, with an
 * eventfd of its own (the inherited one is the parent's: each would eat the other's
 * wake-ups). The parent's sockets are not the child's to serve. */
static void svc_after_fork(void)
{
	pthread_mutex_init(&svc_mu, NULL);
	pthread_cond_init(&svc_idle, NULL);
	svc_list = svc_busy = NULL;
	svc_running = false;
	if (svc_wake >= 0)
		close(svc_wake);
	svc_wake = -1;
}

__attribute__((constructor)) static void svc_fork_init(void)
{
	pthread_atfork(NULL, NULL, svc_after_fork);
}

/* ---- QPs, address handles and peers ---- */

/* An address handle from qp's address to dst's, from the route librdmacm resolves (rdma-core's
 * udp_svc_create_ah), with a GRH as RoCE needs: NULL with errno. */
static struct ibv_ah *make_ah(struct ds_qp *qp, const struct sockaddr_storage *dst)
{
	struct sockaddr_storage src, to = *dst;
	struct rdma_cm_id *id;
	struct ibv_ah_attr attr;
	struct ibv_ah *ah = NULL;

	memcpy(&src, rdma_get_local_addr(qp->id), sizeof(struct sockaddr_in6));
	if (src.ss_family == AF_INET)
		((struct sockaddr_in *)&src)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP))
		return NULL;
	if (!rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&to, 2000) &&
	    !rdma_resolve_route(id, 2000)) {
		cma_fill_ah(cma_id_of(id), &cma_id_of(id)->path, &attr);
		ah = ibv_create_ah(qp->id->pd, &attr);
	}
	int e = errno;

	rdma_destroy_id(id);
	errno = e;
	return ah;
}

static void take_cq_events(struct ds_qp *qp)
{
	struct ibv_cq *cq;
	void *ctx;

	while (!ibv_get_cq_event(qp->id->recv_cq_channel, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		qp->armed = false;
	}
}

static void qp_free(struct ds *ds, struct ds_qp *qp)
{
	if (qp->self.ah)
		ibv_destroy_ah(qp->self.ah);
	if (qp->smr)
		ibv_dereg_mr(qp->smr);
	if (qp->rmr)
		ibv_dereg_mr(qp->rmr);
	if (qp->id) {
		if (qp->id->recv_cq_channel) {
			epoll_ctl(ds->epfd, EPOLL_CTL_DEL, qp->id->recv_cq_channel->fd, NULL);
			take_cq_events(qp);
		}
		rdma_destroy_qp(qp->id);
		rdma_destroy_id(qp->id);
	}
	free(qp->rbuf);
	free(qp);
}

static int post_recv(struct ds *ds, struct ds_qp *qp, uint32_t offset)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)(qp->rbuf + (size_t)ds->rq_size * RS_SNDLOWAT),
		  .length = DS_GRH_LEN, .lkey = qp->rmr->lkey },
		{ .addr = (uintptr_t)(qp->rbuf + offset), .length = RS_SNDLOWAT,
		  .lkey = qp->rmr->lkey },
	};
	struct ibv_recv_wr wr = { .wr_id = RECV_WR | offset, .sg_list = sge, .num_sge = 2 }, *bad;
	int ret = ibv_post_recv(qp->id->qp, &wr, &bad);

	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

/* The QP of local address src (its port the UDP socket's), made on first use (rdma-core's
 * ds_create_qp): mu held. */
static struct ds_qp *qp_get(struct ds *ds, const struct sockaddr_storage *src)
{
	struct ibv_qp_init_attr qa;
	struct ibv_port_attr pa;
	struct ds_qp *qp;
	struct epoll_event ev = { .events = EPOLLIN };
	struct ibv_comp_channel *cc;

	for (qp = ds->qps; qp; qp = qp->next)
		if (addr_equal(&qp->self.addr, src))
			return qp;
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->self.addr = *src;
	qp->self.qp = qp;
	qp->hdr_len = format_hdr(qp->hdr, src);
	if (rdma_create_id(NULL, &qp->id, qp, RDMA_PS_UDP) ||
	    rdma_bind_addr(qp->id, (struct sockaddr *)&qp->self.addr))
		goto fail;
	if (!qp->id->verbs) {
		/* a loopback address that is none of the devices' (docs/rdmacm.md "Addresses
		 * and routes"): no QP can send from it */
		errno = EADDRNOTAVAIL;
		goto fail;
	}
	cc = ibv_create_comp_channel(qp->id->verbs);
	if (!cc)
		goto fail;
	qp->id->recv_cq_channel = qp->id->send_cq_channel = cc;
	(void)fcntl(cc->fd, F_SETFL, O_NONBLOCK);
	qp->id->recv_cq = ibv_create_cq(qp->id->verbs, ds->sq_size + ds->rq_size, qp, cc, 0);
	if (!qp->id->recv_cq)
		goto fail;
	qp->id->send_cq = qp->id->recv_cq;
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = qp;
	qa.send_cq = qa.recv_cq = qp->id->recv_cq;
	qa.qp_type = IBV_QPT_UD;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = ds->sq_size;
	qa.cap.max_recv_wr = ds->rq_size;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 2;
	qa.cap.max_inline_data = ds->sq_inline;
	if (rdma_create_qp(qp->id, NULL, &qa))
		goto fail;
	ds->sq_inline = (uint16_t)qa.cap.max_inline_data;
	/* The largest datagram: its slot less the longer header (UDP's, on the first way),
	 * and one packet of the path MTU with its ds_header. */
	qp->max_data = RS_SNDLOWAT - (src->ss_family == AF_INET ? UROCE_DS_UDP_HDR4_LEN :
								   UROCE_DS_UDP_HDR6_LEN);
	if (!ibv_query_port(qp->id->verbs, qp->id->port_num, &pa)) {
		uint32_t mtu = 128u << pa.active_mtu;

		if (mtu - qp->hdr_len < qp->max_data)
			qp->max_data = mtu - qp->hdr_len;
	}
	qp->rbuf = calloc(1, (size_t)ds->rq_size * RS_SNDLOWAT + DS_GRH_LEN);
	if (!qp->rbuf) {
		errno = ENOMEM;
		goto fail;
	}
	qp->smr = ibv_reg_mr(qp->id->pd, ds->sbuf, (size_t)ds->sq_size * RS_SNDLOWAT, 0);
	qp->rmr = ibv_reg_mr(qp->id->pd, qp->rbuf, (size_t)ds->rq_size * RS_SNDLOWAT + DS_GRH_LEN,
			     IBV_ACCESS_LOCAL_WRITE);
	if (!qp->smr || !qp->rmr)
		goto fail;
	qp->self.ah = make_ah(qp, src);
	if (!qp->self.ah)
		goto fail;
	qp->self.qpn = qp->id->qp->qp_num;
	ev.data.ptr = qp;
	if (epoll_ctl(ds->epfd, EPOLL_CTL_ADD, cc->fd, &ev))
		goto fail;
	for (uint32_t i = 0; i < ds->rq_size; i++)
		if (post_recv(ds, qp, i * RS_SNDLOWAT))
			goto fail;
	/* armed from the start, as rdma-core's rs_create_cq: a poller asleep on the socket
	 * wakes for this QP's first datagram */
	qp->armed = !ibv_req_notify_cq(qp->id->recv_cq, 0);
	qp->next = ds->qps;
	ds->qps = qp;
	return qp;
fail: {
	int e = errno ? errno : ENOMEM;

	qp_free(ds, qp);
	errno = e;
	return NULL;
}
}

/* The local address datagrams to dst leave from: the UDP socket's, or, when it is bound to
 * a wildcard, the route's source with the socket's port (rdma-core's ds_get_src_addr). */
static int src_addr_for(struct ds *ds, const struct sockaddr_storage *dst,
			struct sockaddr_storage *src)
{
	socklen_t l = sizeof(*src);
	int s, ret;
	in_port_t port;

	if (getsockname(ds->k.fd, (struct sockaddr *)src, &l))
		return -1;
	if (src->ss_family == AF_INET) {
		struct sockaddr_in *a = (void *)src;

		if (a->sin_addr.s_addr != htonl(INADDR_ANY) &&
		    a->sin_addr.s_addr != htonl(INADDR_LOOPBACK))
			return 0;
		port = a->sin_port;
	} else {
		struct sockaddr_in6 *a = (void *)src;

		if (memcmp(&a->sin6_addr, &in6addr_any, 16) &&
		    memcmp(&a->sin6_addr, &in6addr_loopback, 16))
			return 0;
		port = a->sin6_port;
	}
	s = socket(dst->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	l = sizeof(*src);
	ret = connect(s, (const struct sockaddr *)dst, addr_len(dst)) ||
	      getsockname(s, (struct sockaddr *)src, &l);
	close(s);
	if (ret)
		return -1;
	if (src->ss_family == AF_INET)
		((struct sockaddr_in *)src)->sin_port = port;
	else
		((struct sockaddr_in6 *)src)->sin6_port = port;
	return 0;
}

/* The peer at addr, made on first use with the QP it is reached from (rdma-core's
 * ds_get_dest): mu held. */
static struct ds_dest *dest_get(struct ds *ds, const struct sockaddr_storage *addr)
{
	struct sockaddr_storage src;
	struct ds_dest *d;
	struct ds_qp *qp;

	for (d = ds->dests; d; d = d->next)
		if (addr_equal(&d->addr, addr))
			return d;
	if (src_addr_for(ds, addr, &src))
		return NULL;
	qp = qp_get(ds, &src);
	if (!qp)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->addr = *addr;
	d->qp = qp;
	d->next = ds->dests;
	ds->dests = d;
	return d;
}

/* ---- completions ---- */

/* Take the completions of every QP: received datagrams queued for recvfrom while there is
 * room (else, and when malformed, dropped and their receive posted again), sent slots
 * freed. mu held. */
static void poll_cqs(struct ds *ds)
{
	for (struct ds_qp *qp = ds->qps; qp; qp = qp->next) {
		struct ibv_wc wc[16];
		int n;

		while ((n = ibv_poll_cq(qp->id->recv_cq, 16, wc)) > 0) {
			for (int i = 0; i < n; i++) {
				uint32_t off = (uint32_t)wc[i].wr_id;

				if (!(wc[i].wr_id & RECV_WR)) {
					ds->free_slots[ds->sqe_avail++] = (uint16_t)(off / RS_SNDLOWAT);
					continue;
				}
				if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
					continue;
				struct uroce_ds_addr from;
				uint32_t len = wc[i].byte_len > DS_GRH_LEN ?
						       wc[i].byte_len - DS_GRH_LEN : 0;

				/* rdma-core's ds_valid_recv: a datagram starts with a header */
				if (wc[i].status == IBV_WC_SUCCESS && ds->rqe_avail &&
				    uroce_ds_hdr_parse(qp->rbuf + off, len, &from)) {
					struct ds_rmsg *m = &ds->rmsg[ds->rmsg_tail];

					m->qp = qp;
					m->offset = off;
					m->length = len;
					ds->rqe_avail--;
					if (++ds->rmsg_tail == ds->rq_size + 1)
						ds->rmsg_tail = 0;
				} else {
					post_recv(ds, qp, off);
				}
			}
		}
	}
}

static void arm_cqs(struct ds *ds)
{
	for (struct ds_qp *qp = ds->qps; qp; qp = qp->next)
		if (!qp->armed && !ibv_req_notify_cq(qp->id->recv_cq, 0))
			qp->armed = true;
}

static void take_events(struct ds *ds)
{
	for (struct ds_qp *qp = ds->qps; qp; qp = qp->next)
		take_cq_events(qp);
}

typedef bool (*ds_cond)(const struct ds *);

static bool have_data(const struct ds *ds)
{
	return ds->rmsg_head != ds->rmsg_tail;
}

static bool can_send(const struct ds *ds)
{
	return ds->sqe_avail > 0;
}

static bool all_sent(const struct ds *ds)
{
	return ds->sqe_avail == ds->sq_size;
}

/* Process completions until cond holds: 0, or -1 with EAGAIN when nonblocking. mu held,
 * released while asleep. */
static int ds_process(struct ds *ds, bool nonblock, ds_cond cond)
{
	for (;;) {
		poll_cqs(ds);
		if (cond(ds))
			return 0;
		if (nonblock) {
			errno = EAGAIN;
			return -1;
		}
		arm_cqs(ds);
		poll_cqs(ds);
		if (cond(ds))
			return 0;
		pthread_mutex_unlock(&ds->mu);
		struct epoll_event ev;
		int n = epoll_wait(ds->epfd, &ev, 1, -1);

		pthread_mutex_lock(&ds->mu);
		if (n < 0 && errno != EINTR)
			return -1;
		take_events(ds);
	}
}

/* ---- sending ---- */

static ssize_t send_udp(struct ds *ds, struct ds_dest *d, uint8_t op, const struct iovec *v,
			int cnt, int flags)
{
	uint8_t h[UROCE_DS_UDP_HDR6_LEN];
	struct uroce_ds_addr me;
	struct iovec mv[9];
	struct msghdr m = { .msg_name = &d->addr, .msg_namelen = addr_len(&d->addr),
			    .msg_iov = mv, .msg_iovlen = 1 };
	ssize_t n, hl;

	if (cnt > 8) {
		errno = EMSGSIZE;
		return -1;
	}
	ds_addr_of(&d->qp->self.addr, &me);
	hl = (ssize_t)uroce_ds_udp_hdr_build(h, op, d->qp->self.qpn, &me);
	mv[0] = (struct iovec){ .iov_base = h, .iov_len = (size_t)hl };
	for (int i = 0; i < cnt; i++)
		mv[m.msg_iovlen++] = v[i];
	n = sendmsg(ds->k.fd, &m, (flags & MSG_DONTWAIT) | MSG_NOSIGNAL);
	return n < 0 ? -1 : n - hl;
}

/* A datagram over d's QP from a free slot: hdr (the sender's ds_header), then the data. */
static int send_qp(struct ds *ds, struct ds_dest *d, const uint8_t *hdr, uint8_t hdr_len,
		   const struct iovec *v, int cnt)
{
	uint16_t slot = ds->free_slots[ds->sqe_avail - 1];
	uint8_t *p = ds->sbuf + (size_t)slot * RS_SNDLOWAT;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .lkey = d->qp->smr->lkey };
	struct ibv_send_wr wr = { .wr_id = (uint64_t)slot * RS_SNDLOWAT, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND }, *bad;
	int ret;

	memcpy(p, hdr, hdr_len);
	sge.length = hdr_len;
	for (int i = 0; i < cnt; i++) {
		memcpy(p + sge.length, v[i].iov_base, v[i].iov_len);
		sge.length += (uint32_t)v[i].iov_len;
	}
	if (sge.length <= ds->sq_inline)
		wr.send_flags = IBV_SEND_INLINE;
	wr.wr.ud.ah = d->ah;
	wr.wr.ud.remote_qpn = d->qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	ret = ibv_post_send(d->qp->id->qp, &wr, &bad);
	if (ret) {
		errno = ret;
		return -1;
	}
	ds->sqe_avail--;
	return 0;
}

/* ---- the service thread's work for one socket ---- */

/* rdma-core's udp_svc_process_rs: a datagram on the UDP socket, from a peer that does not
 * know our QP yet (op DATA: answered with our QPN, its data handed to our QP) or answering
 * one of ours (op CTRL: its QPN). The socket is svc_busy. */
static void svc_datagram(struct ds *ds, const uint8_t *b, size_t n,
			 const struct sockaddr_storage *from)
{
	struct uroce_ds_addr sender;
	struct ds_dest *d;
	uint32_t qpn;
	uint8_t op;
	size_t hl = uroce_ds_udp_hdr_parse(b, n, from->ss_family == AF_INET ? 4 : 6, &op, &qpn,
					   &sender);
	bool need_ah;

	if (!hl)
		return;
	pthread_mutex_lock(&ds->mu);
	d = dest_get(ds, from);
	if (d && op == RS_OP_DATA)
		send_udp(ds, d, RS_OP_CTRL, NULL, 0, MSG_DONTWAIT);
	need_ah = d && (!d->ah || d->qpn != qpn);
	pthread_mutex_unlock(&ds->mu);
	if (!d)
		return;
	if (need_ah) {
		/* resolved without mu; d lives as long as the socket, which stays while it is
		 * served (svc_busy) */
		struct ibv_ah *ah = make_ah(d->qp, from), *old;

		if (!ah)
			return;
		pthread_mutex_lock(&ds->mu);
		old = d->ah;
		d->ah = ah;
		d->qpn = qpn;
		pthread_mutex_unlock(&ds->mu);
		if (old)
			ibv_destroy_ah(old);
	}
	if (op != RS_OP_DATA)
		return;
	pthread_mutex_lock(&ds->mu);
	poll_cqs(ds);
	if (can_send(ds) && n - hl <= d->qp->max_data) {
		/* to our own QP, with the sender's address in the header */
		uint8_t h[UROCE_DS_HDR6_LEN];
		uint8_t h_len = format_hdr(h, from);
		struct iovec data = { .iov_base = (void *)(uintptr_t)(b + hl), .iov_len = n - hl };

		send_qp(ds, &d->qp->self, h, h_len, &data, 1);
	}
	pthread_mutex_unlock(&ds->mu);
}

static void svc_process(struct ds *ds)
{
	uint8_t b[RS_SNDLOWAT];

	for (;;) {
		struct sockaddr_storage from;
		socklen_t l = sizeof(from);
		ssize_t n;

		/* under mu, as every other use of the UDP socket (bind, connect, sendmsg) */
		pthread_mutex_lock(&ds->mu);
		n = recvfrom(ds->k.fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &l);
		pthread_mutex_unlock(&ds->mu);
		if (n < 0)
			return;
		if (from.ss_family == AF_INET || from.ss_family == AF_INET6)
			svc_datagram(ds, b, (size_t)n, &from);
	}
}

/* ---- the socket ---- */

/* rdma-core's ds_set_qp_size and ds_init_ep: one slot of RS_SNDLOWAT per WR, the service
 * thread told. mu held. */
static int ds_init_ep(struct ds *ds)
{
	if (ds->ep)
		return 0;
	if (ds->sq_size > RS_QP_MAX_SIZE)
		ds->sq_size = RS_QP_MAX_SIZE;
	if (ds->rq_size > RS_QP_MAX_SIZE)
		ds->rq_size = RS_QP_MAX_SIZE;
	if (ds->rq_size > ds->rbuf_size / RS_SNDLOWAT)
		ds->rq_size = (uint16_t)(ds->rbuf_size / RS_SNDLOWAT);
	if (ds->sq_size > ds->sbuf_size / RS_SNDLOWAT)
		ds->sq_size = (uint16_t)(ds->sbuf_size / RS_SNDLOWAT);
	if (ds->rq_size < 1)
		ds->rq_size = 1;
	if (ds->sq_size < 1)
		ds->sq_size = 1;
	ds->sbuf = calloc(ds->sq_size, RS_SNDLOWAT);
	ds->free_slots = calloc(ds->sq_size, sizeof(*ds->free_slots));
	ds->rmsg = calloc((size_t)ds->rq_size + 1, sizeof(*ds->rmsg));
	if (!ds->sbuf || !ds->free_slots || !ds->rmsg) {
		errno = ENOMEM;
		return -1;
	}
	for (uint16_t i = 0; i < ds->sq_size; i++)
		ds->free_slots[i] = i;
	ds->sqe_avail = ds->sq_size;
	ds->rqe_avail = ds->rq_size;
	if (svc_add(ds))
		return -1;
	ds->ep = true;
	return 0;
}

struct rsock *rdgram_new(int domain)
{
	struct ds *ds = calloc(1, sizeof(*ds));

	if (!ds) {
		errno = ENOMEM;
		return NULL;
	}
	ds->k.ops = &dgram_ops;
	ds->k.domain = domain;
	ds->k.fd = socket(domain, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ds->epfd = epoll_create1(EPOLL_CLOEXEC);
	pthread_mutex_init(&ds->mu, NULL);
	ds->readable = ds->writable = true;
	ds->sbuf_size = ds->rbuf_size = RS_DEF_BUF;
	ds->sq_size = RS_DEF_SQSIZE;
	ds->rq_size = RS_DEF_RQSIZE;
	ds->sq_inline = RS_DEF_INLINE;
	if (ds->k.fd < 0 || ds->epfd < 0 || rsock_insert(&ds->k)) {
		int e = errno;

		if (ds->k.fd >= 0)
			close(ds->k.fd);
		if (ds->epfd >= 0)
			close(ds->epfd);
		pthread_mutex_destroy(&ds->mu);
		free(ds);
		errno = e;
		return NULL;
	}
	return &ds->k;
}

static bool is_wildcard(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY);
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &in6addr_any, 16);
}

/* A socket bound to one address has its QP at once (rdma-core's waits for the first
 * datagram): the first datagram in finds it ready, and the uroce port is up as soon as the
 * socket is bound. Where the address has no device, the QP is left for the first send,
 * which says why (EADDRNOTAVAIL); the bind itself is UDP's. */
static int dg_bind(struct rsock *k, const struct sockaddr *a, socklen_t l)
{
	struct ds *ds = ds_of(k);
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	int ret;

	pthread_mutex_lock(&ds->mu);
	ret = ds_init_ep(ds) ? -1 : bind(ds->k.fd, a, l);
	if (!ret && !getsockname(ds->k.fd, (struct sockaddr *)&me, &ml) && !is_wildcard(&me)) {
		int e = errno;

		qp_get(ds, &me);
		errno = e;
	}
	pthread_mutex_unlock(&ds->mu);
	return ret;
}

static int dg_connect(struct rsock *k, const struct sockaddr *a, socklen_t l)
{
	struct ds *ds = ds_of(k);
	struct sockaddr_storage to;
	int ret = -1;

	if (!addr_copy(&to, a, l))
		return -1;
	pthread_mutex_lock(&ds->mu);
	if (!ds_init_ep(ds) && !connect(ds->k.fd, a, l)) {
		ds->conn = dest_get(ds, &to);
		ret = ds->conn ? 0 : -1;
	}
	pthread_mutex_unlock(&ds->mu);
	return ret;
}

/* A sendto from an unbound socket binds it to the wildcard first, as UDP's sendto does: the
 * QPs announce its port. */
static int bind_if_unbound(struct ds *ds)
{
	struct sockaddr_storage me;
	socklen_t l = sizeof(me);

	if (getsockname(ds->k.fd, (struct sockaddr *)&me, &l))
		return -1;
	if ((me.ss_family == AF_INET && ((struct sockaddr_in *)&me)->sin_port) ||
	    (me.ss_family == AF_INET6 && ((struct sockaddr_in6 *)&me)->sin6_port))
		return 0;
	memset(&me, 0, sizeof(me));
	me.ss_family = (sa_family_t)ds->k.domain;
	return bind(ds->k.fd, (struct sockaddr *)&me, addr_len(&me));
}

static ssize_t dg_send(struct rsock *k, const struct iovec *v, int cnt, int flags,
		       const struct sockaddr *to, socklen_t tolen)
{
	struct ds *ds = ds_of(k);
	size_t len = rsock_iov_len(v, cnt);
	struct sockaddr_storage addr;
	struct ds_dest *d;
	ssize_t ret = -1;

	if (to && !addr_copy(&addr, to, tolen))
		return -1;
	pthread_mutex_lock(&ds->mu);
	if (!ds->writable) {
		errno = EPIPE;
		goto out;
	}
	if (ds_init_ep(ds) || (to && bind_if_unbound(ds)))
		goto out;
	d = to ? dest_get(ds, &addr) : ds->conn;
	if (!d) {
		if (!to)
			errno = EDESTADDRREQ;
		goto out;
	}
	if (len > d->qp->max_data) {
		errno = EMSGSIZE;
		goto out;
	}
	if (!d->ah) {
		ret = send_udp(ds, d, RS_OP_DATA, v, cnt, flags);
		goto out;
	}
	if (!can_send(ds) && ds_process(ds, rsock_nonblocking(k, flags), can_send))
		goto out;
	if (!send_qp(ds, d, d->qp->hdr, d->qp->hdr_len, v, cnt))
		ret = (ssize_t)len;
out:
	pthread_mutex_unlock(&ds->mu);
	return ret;
}

static ssize_t dg_recv(struct rsock *k, const struct iovec *v, int cnt, int flags,
		       struct sockaddr *from, socklen_t *fromlen)
{
	struct ds *ds = ds_of(k);
	struct sockaddr_storage src;
	struct uroce_ds_addr sender;
	struct ds_rmsg *m;
	const uint8_t *p;
	size_t left, done = 0, hl;

	pthread_mutex_lock(&ds->mu);
	if (!ds->readable) {
		pthread_mutex_unlock(&ds->mu);
		errno = EINVAL; /* rdma-core's ds_recvfrom after a shutdown */
		return -1;
	}
	if (ds_init_ep(ds) ||
	    (!have_data(ds) && ds_process(ds, rsock_nonblocking(k, flags), have_data))) {
		pthread_mutex_unlock(&ds->mu);
		return -1;
	}
	m = &ds->rmsg[ds->rmsg_head];
	p = m->qp->rbuf + m->offset;
	hl = uroce_ds_hdr_parse(p, m->length, &sender); /* not 0: checked when it was queued */
	sockaddr_of(&sender, &src);
	left = m->length - hl;
	p += hl;
	for (int i = 0; i < cnt && left; i++) {
		size_t x = v[i].iov_len < left ? v[i].iov_len : left;

		memcpy(v[i].iov_base, p, x);
		p += x;
		left -= x;
		done += x;
	}
	if (from && fromlen)
		rsock_copy_addr((struct sockaddr *)&src, from, fromlen);
	if (!(flags & MSG_PEEK)) {
		post_recv(ds, m->qp, m->offset);
		if (++ds->rmsg_head == ds->rq_size + 1)
			ds->rmsg_head = 0;
		ds->rqe_avail++;
	}
	pthread_mutex_unlock(&ds->mu);
	return (ssize_t)done;
}

static int dg_shutdown(struct rsock *k, int how)
{
	struct ds *ds = ds_of(k);

	pthread_mutex_lock(&ds->mu);
	if (how == SHUT_RD || how == SHUT_RDWR)
		ds->readable = false;
	if (how == SHUT_WR || how == SHUT_RDWR)
		ds->writable = false;
	pthread_mutex_unlock(&ds->mu);
	return 0;
}

/* rdma-core's ds_shutdown and ds_free: the service first lets go, the sends in flight end
 * (a datagram handed to rsend is on its way, as UDP's), then everything goes. */
static void dg_close(struct rsock *k)
{
	struct ds *ds = ds_of(k);

	svc_remove(ds);
	pthread_mutex_lock(&ds->mu);
	if (ds->ep)
		ds_process(ds, false, all_sent);
	while (ds->dests) {
		struct ds_dest *d = ds->dests;

		ds->dests = d->next;
		if (d->ah)
			ibv_destroy_ah(d->ah);
		free(d);
	}
	while (ds->qps) {
		struct ds_qp *qp = ds->qps;

		ds->qps = qp->next;
		qp_free(ds, qp);
	}
	pthread_mutex_unlock(&ds->mu);
	rsock_remove(&ds->k);
	close(ds->k.fd);
	close(ds->epfd);
	pthread_mutex_destroy(&ds->mu);
	free(ds->sbuf);
	free(ds->free_slots);
	free(ds->rmsg);
	free(ds);
}

static int dg_getpeername(struct rsock *k, struct sockaddr *a, socklen_t *l)
{
	return getpeername(k->fd, a, l);
}

static int dg_getsockname(struct rsock *k, struct sockaddr *a, socklen_t *l)
{
	return getsockname(k->fd, a, l);
}

/* rdma-core's rsetsockopt for datagram sockets: every option but SOL_RDMA's goes to the
 * UDP socket too; the buffer sizes (twice the value) and the queue sizes count until the
 * first QP exists. */
static int dg_setsockopt(struct rsock *k, int level, int name, const void *v, socklen_t l)
{
	struct ds *ds = ds_of(k);
	uint32_t val;
	int ret = 0;

	memcpy(&val, v, sizeof(val));
	if (level != SOL_RDMA && setsockopt(k->fd, level, name, v, l))
		return -1;
	pthread_mutex_lock(&ds->mu);
	if (level == SOL_SOCKET && name == SO_SNDBUF && !ds->ep)
		ds->sbuf_size = val << 1 < RS_SNDLOWAT * 2 ? RS_SNDLOWAT * 2 : val << 1;
	else if (level == SOL_SOCKET && name == SO_RCVBUF && !ds->ep)
		ds->rbuf_size = val << 1 < RS_SNDLOWAT * 2 ? RS_SNDLOWAT * 2 : val << 1;
	else if (level == SOL_RDMA && name == RDMA_SQSIZE && !ds->ep)
		ds->sq_size = (uint16_t)(val > RS_QP_MAX_SIZE ? RS_QP_MAX_SIZE : val);
	else if (level == SOL_RDMA && name == RDMA_RQSIZE && !ds->ep)
		ds->rq_size = (uint16_t)(val > RS_QP_MAX_SIZE ? RS_QP_MAX_SIZE : val);
	else if (level == SOL_RDMA && name == RDMA_INLINE && !ds->qps)
		ds->sq_inline = (uint16_t)(val > 0xFFFF ? 0xFFFF : val);
	else if (level == SOL_RDMA && name != RDMA_SQSIZE && name != RDMA_RQSIZE &&
		 name != RDMA_INLINE) {
		errno = ENOPROTOOPT;
		ret = -1;
	}
	pthread_mutex_unlock(&ds->mu);
	return ret;
}

static int dg_getsockopt(struct rsock *k, int level, int name, int *val)
{
	struct ds *ds = ds_of(k);
	socklen_t l = sizeof(*val);

	if (level == SOL_SOCKET && name == SO_SNDBUF)
		*val = (int)ds->sbuf_size;
	else if (level == SOL_SOCKET && name == SO_RCVBUF)
		*val = (int)ds->rbuf_size;
	else if (level == SOL_RDMA && name == RDMA_SQSIZE)
		*val = ds->sq_size;
	else if (level == SOL_RDMA && name == RDMA_RQSIZE)
		*val = ds->rq_size;
	else if (level == SOL_RDMA && name == RDMA_INLINE)
		*val = ds->sq_inline;
	else if (level == SOL_RDMA) {
		errno = ENOPROTOOPT;
		return -1;
	} else
		return getsockopt(k->fd, level, name, val, &l);
	return 0;
}

static short dg_revents(struct rsock *k, short events)
{
	struct ds *ds = ds_of(k);
	short r = 0;

	pthread_mutex_lock(&ds->mu);
	poll_cqs(ds);
	if (have_data(ds))
		r |= events & POLLIN;
	if (!ds->ep || can_send(ds))
		r |= events & POLLOUT;
	pthread_mutex_unlock(&ds->mu);
	return r;
}

static int dg_arm(struct rsock *k)
{
	struct ds *ds = ds_of(k);

	pthread_mutex_lock(&ds->mu);
	arm_cqs(ds);
	pthread_mutex_unlock(&ds->mu);
	return ds->epfd;
}

static void dg_woken(struct rsock *k)
{
	struct ds *ds = ds_of(k);

	pthread_mutex_lock(&ds->mu);
	take_events(ds);
	pthread_mutex_unlock(&ds->mu);
}

static const struct rsock_ops dgram_ops = {
	.bind = dg_bind,
	.connect = dg_connect,
	.send = dg_send,
	.recv = dg_recv,
	.shutdown = dg_shutdown,
	.close = dg_close,
	.getpeername = dg_getpeername,
	.getsockname = dg_getsockname,
	.setsockopt = dg_setsockopt,
	.getsockopt = dg_getsockopt,
	.revents = dg_revents,
	.arm = dg_arm,
	.woken = dg_woken,
};

/* SPDX-License-Identifier: MIT */
/* Completion queues and completion channels.
 *
 * ibv_poll_cq reads the engine's CQ ring directly: no port lock, no system call, so a
 * polling application and the progress thread never wait for each other. A completion
 * channel is a pipe: the progress thread writes the pointer of a CQ whose notification
 * request was met, ibv_get_cq_event reads it, so the channel's fd is a real pollable
 * descriptor (facts.md section 5). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"

/* ---- Completion channels ---- */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct uv_comp_channel *ch = calloc(1, sizeof(*ch));
	int fds[2];

	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		free(ch);
		return NULL;
	}
	(void)fcntl(fds[1], F_SETFL, O_NONBLOCK);
	pthread_mutex_init(&ch->lock, NULL);
	ch->ibv.context = ctx;
	ch->ibv.fd = fds[0];
	ch->wfd = fds[1];
	return &ch->ibv;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct uv_comp_channel *ch = (struct uv_comp_channel *)channel;

	/* Acquire: a CQ destroyed on another thread is done with the channel (its release). */
	if (__atomic_load_n(&channel->refcnt, __ATOMIC_ACQUIRE))
		return uv_fail(EBUSY);
	while (ch->stubs) {
		struct uv_cq *stub = ch->stubs;
		ch->stubs = stub->next_stub;
		free(stub);
	}
	pthread_mutex_destroy(&ch->lock);
	close(ch->ibv.fd);
	close(ch->wfd);
	free(ch);
	return 0;
}

void uv_cq_fire(struct uv_cq *cq)
{
	struct uv_comp_channel *ch = (struct uv_comp_channel *)cq->ibv.channel;
	struct uv_cq *ptr = cq;

	if (!ch)
		return;
	/* 8 bytes: atomic on a pipe. The pipe holds thousands; a full one means the
	 * application has stopped reading events, and one more would tell it nothing. */
	if (write(ch->wfd, &ptr, sizeof(ptr)) == (ssize_t)sizeof(ptr))
		cq->events_sent++;
}

/* Takes a stub off the channel's list and frees it once its last unread event is read. */
static void stub_release(struct uv_comp_channel *ch, struct uv_cq *stub)
{
	struct uv_cq **pp;

	for (pp = &ch->stubs; *pp; pp = &(*pp)->next_stub)
		if (*pp == stub) {
			if (stub->events_read == stub->events_sent) {
				*pp = stub->next_stub;
				free(stub);
			}
			return;
		}
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct uv_comp_channel *ch = (struct uv_comp_channel *)channel;
	struct uv_cq *ptr;
	bool stale;

	do {
		ssize_t n = read(channel->fd, &ptr, sizeof(ptr));

		if (n != (ssize_t)sizeof(ptr)) {
			if (n >= 0)
				errno = EIO;
			return -1;
		}
		pthread_mutex_lock(&ch->lock);
		ptr->events_read++;
		/* An event of a CQ destroyed before it was read is dropped, as the kernel drops
		 * a destroyed CQ's queued events (ib_uverbs_release_ucq). */
		if ((stale = ptr->destroyed))
			stub_release(ch, ptr);
		pthread_mutex_unlock(&ch->lock);
	} while (stale);
	*cq = &ptr->ibv;
	*cq_context = ptr->ibv.cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ---- CQs ---- */

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct uv_port *port = port_of(ctx);
	struct uv_cq *cq;
	int err;

	if (cqe <= 0 || cqe > UROCE_MAX_CQE || comp_vector < 0 ||
	    comp_vector >= ctx->num_comp_vectors || (channel && channel->context != ctx)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(cq = calloc(1, sizeof(*cq)))) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&port->lock);
	err = uroce_cq_create(port->eng, (uint32_t)cqe, &cq->eng);
	if (!err)
		uroce_cq_set_user(cq->eng, &cq->ibv);
	pthread_mutex_unlock(&port->lock);
	if (err) {
		free(cq);
		errno = uv_errno(err);
		return NULL;
	}
	cq->ibv.context = ctx;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	cq->ibv.cqe = cqe;
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	pthread_mutex_init(&cq->poll_lock, NULL);
	if (channel) /* a count: relaxed (the channel outlives the call, the caller sees to it) */
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
	return &cq->ibv;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct uv_cq *cq = to_uv_cq(ibcq), **pp;
	struct uv_port *port = port_of(ibcq->context);
	struct uv_comp_channel *ch = (struct uv_comp_channel *)ibcq->channel;
	unsigned sent, handed_out = 0;
	bool stub = false;
	int err;

	pthread_mutex_lock(&port->lock);
	err = uroce_cq_destroy(cq->eng);
	if (!err)
		for (pp = &port->armed; *pp; pp = &(*pp)->next_armed)
			if (*pp == cq) {
				*pp = cq->next_armed;
				break;
			}
	sent = cq->events_sent;
	pthread_mutex_unlock(&port->lock);
	if (err)
		return uv_fail(uv_errno(err));

	/* As the kernel's destroy does (ibv_cmd_destroy_cq): wait until every completion event
	 * that ibv_get_cq_event handed out has been acknowledged, so no reader holds a pointer
	 * to a freed CQ. Events still unread in the channel are not waited for (an application
	 * that armed the CQ and then polled its last completions never reads the event they
	 * raised): they are dropped when read, and the CQ stays as a stub until then. */
	if (ch) {
		pthread_mutex_lock(&ch->lock);
		cq->destroyed = true;
		handed_out = cq->events_read;
		pthread_mutex_unlock(&ch->lock);
	}
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed < handed_out)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);
	/* The same for its asynchronous events (CQ_ERR): queued ones are dropped. */
	uv_async_wait_acked(&ibcq->mutex, &ibcq->cond, &ibcq->async_events_completed,
			    uv_async_forget(ibcq->context, ibcq, &cq->async_reported));

	pthread_mutex_destroy(&cq->poll_lock);
	pthread_mutex_destroy(&ibcq->mutex);
	pthread_cond_destroy(&ibcq->cond);
	if (ch) {
		pthread_mutex_lock(&ch->lock);
		if ((stub = cq->events_read != sent)) {
			cq->next_stub = ch->stubs;
			ch->stubs = cq;
		}
		pthread_mutex_unlock(&ch->lock);
		/* Release: this CQ's use of the channel ends here (ibv_destroy_comp_channel). */
		__atomic_sub_fetch(&ch->ibv.refcnt, 1, __ATOMIC_RELEASE);
	}
	if (!stub)
		free(cq);
	return 0;
}

/* ibv_resize_cq(3): at least cqe entries, and no fewer than the completions the CQ holds
 * (EINVAL). The device first takes in and sends what was posted (uv_port_flush, as
 * ibv_modify_qp does), so that the count includes the completions a NIC would already have
 * made of it: a UD send's completes as its datagram leaves. */
int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct uv_cq *cq = to_uv_cq(ibcq);
	struct uv_port *port = port_of(ibcq->context);
	int err;

	if (cqe <= 0 || cqe > UROCE_MAX_CQE)
		return uv_fail(EINVAL);
	pthread_mutex_lock(&cq->poll_lock);
	uv_port_flush(port);
	pthread_mutex_lock(&port->lock);
	err = uroce_cq_resize(cq->eng, (uint32_t)cqe);
	pthread_mutex_unlock(&port->lock);
	if (!err)
		ibcq->cqe = cqe;
	pthread_mutex_unlock(&cq->poll_lock);
	return uv_fail(uv_errno(err));
}

static void wc_from_engine(const struct uroce_wc *e, struct ibv_wc *w)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = e->wr_id;
	w->status = (enum ibv_wc_status)e->status;
	w->opcode = (enum ibv_wc_opcode)e->opcode;
	w->vendor_err = e->vendor_err;
	w->byte_len = e->byte_len;
	if (e->wc_flags & UROCE_WC_F_WITH_INV)
		w->invalidated_rkey = e->invalidated_rkey;
	else
		w->imm_data = htonl(e->imm_data);
	w->qp_num = e->qp_num;
	w->src_qp = e->src_qp;
	w->wc_flags = e->wc_flags;
	w->pkey_index = e->pkey_index;
	/* Annex A17.4.5.1: a RoCEv2 UD completion says whether the packet came over IPv4 or
	 * IPv6 (where the 40-byte header area has its addresses). struct ibv_wc has no field
	 * for it; NVIDIA's NICs put it in sl, which RoCEv2 packets do not carry (mlx5 CQE
	 * flags_rqpn bits 26..24, the L3 header type: 1 IPv6, 2 IPv4), and UCX reads it there:
	 * its ud_verbs transport drops every packet whose header area does not hold one of
	 * its GIDs at the place that type gives (ud_iface.h, uct_ud_iface_check_grh). */
	if (e->wc_flags & UROCE_WC_F_GRH)
		w->sl = e->ipv6 ? 1 : 2;
}

int uv_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct uv_cq *cq = to_uv_cq(ibcq);
	struct uroce_wc e[32];
	int got = 0, k, i;

	if (n <= 0)
		return 0;
	/* Empty: make progress here rather than wait for the progress thread to be scheduled,
	 * then look again. No lock is taken when another thread is already running a round. */
	if (!uroce_cq_count(cq->eng)) {
		uv_port_poll(port_of(ibcq->context));
		if (!uroce_cq_count(cq->eng)) {
			k = uroce_cq_poll(cq->eng, e, 0);
			return k < 0 ? -1 : 0;
		}
	}
	pthread_mutex_lock(&cq->poll_lock);
	while (got < n) {
		k = uroce_cq_poll(cq->eng, e, n - got < 32 ? n - got : 32);
		if (k < 0) {
			if (!got)
				got = -1; /* the CQ overran: ibv_poll_cq(3) returns a negative value */
			break;
		}
		for (i = 0; i < k; i++)
			wc_from_engine(&e[i], &wc[got + i]);
		got += k;
		if (k < 32)
			break;
	}
	pthread_mutex_unlock(&cq->poll_lock);
	return got;
}

void uv_qp_cqs_lock(struct ibv_qp *qp, bool lock)
{
	struct uv_cq *a = to_uv_cq(qp->send_cq), *b = to_uv_cq(qp->recv_cq);

	if ((uintptr_t)a > (uintptr_t)b) {
		struct uv_cq *t = a;
		a = b;
		b = t;
	}
	if (lock) {
		pthread_mutex_lock(&a->poll_lock);
		if (b != a)
			pthread_mutex_lock(&b->poll_lock);
	} else {
		if (b != a)
			pthread_mutex_unlock(&b->poll_lock);
		pthread_mutex_unlock(&a->poll_lock);
	}
}

static void cq_drop_qp(struct uv_cq *cq, struct ibv_qp *qp)
{
	uint32_t before = uroce_cq_pushed(cq->eng);

	uroce_cq_drop_qp(cq->eng, to_uv_qp(qp)->eng);
	/* Dropping staged completions moves the count: not a new completion. */
	if (cq->armed && cq->armed_at == before)
		cq->armed_at = uroce_cq_pushed(cq->eng);
}

void uv_qp_cqs_drop(struct ibv_qp *qp)
{
	cq_drop_qp(to_uv_cq(qp->send_cq), qp);
	if (qp->recv_cq != qp->send_cq)
		cq_drop_qp(to_uv_cq(qp->recv_cq), qp);
}

/* Solicited-only requests are met by any completion: an event that comes early is allowed
 * (the consumer polls after every event), one that never comes would not be. */
int uv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct uv_cq *cq = to_uv_cq(ibcq);
	struct uv_port *port = port_of(ibcq->context);

	(void)solicited_only;
	pthread_mutex_lock(&port->lock);
	if (!cq->armed) {
		cq->armed = true;
		cq->armed_at = uroce_cq_pushed(cq->eng);
		cq->next_armed = port->armed;
		port->armed = cq;
	}
	pthread_mutex_unlock(&port->lock);
	uv_port_end_nap(port); /* the application is about to wait for an event */
	return 0;
}

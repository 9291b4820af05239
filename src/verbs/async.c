/* SPDX-License-Identifier: MIT */
/* Asynchronous events (ibv_get_async_event(3)): each context's queue, its file descriptor,
 * and what destroying an object owes them.
 *
 * The man page's rule: "destroying an object (CQ, SRQ or QP) will wait for all affiliated
 * events for the object to be acknowledged; this avoids an application retrieving an
 * affiliated event after the corresponding object has already been destroyed". rdma-core
 * gets it from the kernel, which drops a destroyed object's events still queued and tells
 * how many it handed out, which the library waits to see acknowledged. Here the queue is the
 * context's own: the progress thread appends (the port lock held), ibv_get_async_event takes
 * the oldest, and a destroy removes the object's queued events and waits for the acks of
 * those already taken. UCX's asynchronous thread acknowledges events while its main thread
 * destroys the QPs they name: without the wait, the ack wrote into freed memory.
 *
 * async_fd is one end of a socket pair: one byte per queued event, so that it polls readable
 * exactly while events wait (programs poll it, and may make it non-blocking). A socket rather
 * than a pipe because a destroy takes bytes back without blocking (MSG_DONTWAIT) whatever the
 * program did to the descriptor. A getter that took a byte whose event a destroy removed
 * meanwhile finds the queue empty and waits for the next event, as a reader of the kernel's
 * descriptor does in that race. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "priv.h"

int uv_async_init(struct uv_context *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return errno;
	/* The progress thread never blocks on it (the queue is smaller than the buffer). */
	(void)fcntl(sv[1], F_SETFL, O_NONBLOCK);
	pthread_mutex_init(&c->async.lock, NULL);
	c->async.wfd = sv[1];
	c->vctx.context.async_fd = sv[0];
	return 0;
}

void uv_async_fini(struct uv_context *c)
{
	close(c->vctx.context.async_fd);
	close(c->async.wfd);
	pthread_mutex_destroy(&c->async.lock);
}

/* The object an event is about: NULL for the port's events. */
static const void *element_of(const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return ev->element.cq;
	case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST: case IBV_EVENT_SQ_DRAINED: case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR: case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ev->element.qp;
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED:
		return ev->element.srq;
	default:
		return NULL;
	}
}

/* Where the object counts the events handed out about it. */
static unsigned *reported_of(const struct ibv_async_event *ev)
{
	if (!element_of(ev))
		return NULL;
	if (ev->event_type == IBV_EVENT_CQ_ERR)
		return &to_uv_cq(ev->element.cq)->async_reported;
	if (ev->event_type == IBV_EVENT_SRQ_ERR || ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
		return &((struct uv_srq *)ev->element.srq)->async_reported;
	return &to_uv_qp(ev->element.qp)->async_reported;
}

void uv_async_push(struct uv_context *c, const struct ibv_async_event *ev)
{
	struct uv_async *a = &c->async;
	static const char one = 1;

	pthread_mutex_lock(&a->lock);
	/* A context that never reads its events loses the newest, never the thread's time. */
	if (a->count < UV_ASYNC_QUEUE && write(a->wfd, &one, 1) == 1)
		a->q[(a->head + a->count++) % UV_ASYNC_QUEUE] = *ev;
	pthread_mutex_unlock(&a->lock);
}

unsigned uv_async_forget(struct ibv_context *ctx, const void *element, const unsigned *reported)
{
	struct uv_async *a = &to_uv_context(ctx)->async;
	unsigned kept = 0, gone, n;
	char b;

	pthread_mutex_lock(&a->lock);
	for (unsigned i = 0; i < a->count; i++) {
		struct ibv_async_event ev = a->q[(a->head + i) % UV_ASYNC_QUEUE];

		if (element_of(&ev) != element)
			a->q[(a->head + kept++) % UV_ASYNC_QUEUE] = ev;
	}
	gone = a->count - kept;
	a->count = kept;
	for (; gone; gone--)
		if (recv(ctx->async_fd, &b, 1, MSG_DONTWAIT) != 1)
			break; /* a getter has the byte: it finds the queue one short, and waits */
	n = *reported;
	pthread_mutex_unlock(&a->lock);
	return n;
}

int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct uv_async *a = &to_uv_context(ctx)->async;
	unsigned *reported;
	ssize_t n;
	char b;

	for (;;) {
		n = read(ctx->async_fd, &b, 1); /* blocks unless the program made it non-blocking */
		if (n != 1) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		pthread_mutex_lock(&a->lock);
		if (a->count) {
			*ev = a->q[a->head];
			a->head = (a->head + 1) % UV_ASYNC_QUEUE;
			a->count--;
			if ((reported = reported_of(ev)))
				++*reported;
			pthread_mutex_unlock(&a->lock);
			return 0;
		}
		pthread_mutex_unlock(&a->lock);
	}
}

void ibv_ack_async_event(struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = ev->element.cq;
		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		break;
	}
	case IBV_EVENT_QP_FATAL: case IBV_EVENT_QP_REQ_ERR: case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST: case IBV_EVENT_SQ_DRAINED: case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR: case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = ev->element.qp;
		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		break;
	}
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = ev->element.srq;
		pthread_mutex_lock(&srq->mutex);
		srq->events_completed++;
		pthread_cond_signal(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
		break;
	}
	default:
		break;
	}
}

void uv_async_wait_acked(pthread_mutex_t *m, pthread_cond_t *cond, const uint32_t *acked,
			 unsigned reported)
{
	pthread_mutex_lock(m);
	while (*acked != reported)
		pthread_cond_wait(cond, m);
	pthread_mutex_unlock(m);
}

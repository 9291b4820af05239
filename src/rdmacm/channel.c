/* SPDX-License-Identifier: MIT */
/* Event channels: a queue of rdma_cm events and an eventfd that is readable while the queue
 * is not empty (librdmacm's channel fd is the kernel's rdma_cm file, readable the same way).
 * The port's thread queues the CM's events; rdma_get_cm_event takes them in the
 * application's thread and finishes them there (QP changes: librdmacm/cma.c
 * rdma_get_cm_event), rdma_ack_cm_event releases them. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "priv.h"

struct cma_channel *cma_channel_of(const struct cma_id *c)
{
	return (struct cma_channel *)c->id.channel;
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct cma_channel *ch;

	if (cma_init())
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->ch.fd = eventfd(0, EFD_CLOEXEC);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->mu, NULL);
	ch->tail = &ch->head;
	return &ch->ch;
}

/* Destroyed channels whose memory is kept a while, so that a call of rdma_get_cm_event on a
 * channel just destroyed finds it dead instead of reading freed memory (rping's event thread
 * loops back to it while the main thread tears down). The oldest is freed when a newer one
 * needs its place. */
#define CMA_CHANNEL_GRAVEYARD 64
static struct cma_channel *graveyard[CMA_CHANNEL_GRAVEYARD];
static unsigned graveyard_next;
static pthread_mutex_t graveyard_mu = PTHREAD_MUTEX_INITIALIZER;

static void bury(struct cma_channel *ch)
{
	struct cma_channel *old;

	pthread_mutex_lock(&graveyard_mu);
	old = graveyard[graveyard_next];
	graveyard[graveyard_next] = ch;
	graveyard_next = (graveyard_next + 1) % CMA_CHANNEL_GRAVEYARD;
	pthread_mutex_unlock(&graveyard_mu);
	if (old) {
		pthread_mutex_destroy(&old->mu);
		free(old);
	}
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct cma_channel *ch = (struct cma_channel *)channel;
	bool waited;

	if (!ch)
		return;
	pthread_mutex_lock(&ch->mu);
	while (ch->head) {
		struct cma_event *e = ch->head;

		ch->head = e->next;
		free(e);
	}
	ch->tail = &ch->head;
	close(ch->ch.fd);
	/* A thread still waiting in rdma_get_cm_event (mckey's event thread, never joined)
	 * wakes up when the eventfd goes; it finds the channel dead and stays blocked, as it
	 * would in the kernel's read of a file closed under it. The memory stays for it. */
	waited = ch->waiters > 0;
	ch->dead = true;
	ch->destroyer = pthread_self();
	pthread_mutex_unlock(&ch->mu);
	if (!waited)
		bury(ch);
}

/* A thread whose channel was destroyed under it: blocked for good. */
static void park(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&never, &mu);
}

struct cma_event *cma_event_new(struct cma_id *owner, enum rdma_cm_event_type type, int status)
{
	struct cma_event *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->owner = owner;
	e->ev.id = &owner->id;
	e->ev.event = type;
	e->ev.status = status;
	return e;
}

/* ch->mu held: the eventfd's count is 1 exactly while the queue is not empty, so that its
 * read below never blocks, whatever O_NONBLOCK the application set on it. */
static void signal_ready(struct cma_channel *ch)
{
	uint64_t one = 1;

	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		abort(); /* an eventfd write of 1 fails only on a count near 2^64 */
}

static void signal_empty(struct cma_channel *ch)
{
	uint64_t v;

	if (read(ch->ch.fd, &v, sizeof(v)) != sizeof(v))
		abort(); /* the count is 1 here (signal_ready) */
}

void cma_enqueue(struct cma_event *e)
{
	struct cma_channel *ch = cma_channel_of(e->owner);

	pthread_mutex_lock(&ch->mu);
	e->next = NULL;
	*ch->tail = e;
	ch->tail = &e->next;
	if (ch->head == e)
		signal_ready(ch);
	pthread_mutex_unlock(&ch->mu);
}

/* ch->mu held, after events were taken out of the queue (had: it was not empty before). */
static void relink(struct cma_channel *ch, bool had)
{
	ch->tail = &ch->head;
	while (*ch->tail)
		ch->tail = &(*ch->tail)->next;
	if (had && !ch->head)
		signal_empty(ch);
}

static struct cma_event *dequeue(struct cma_channel *ch)
{
	struct cma_event *e;

	pthread_mutex_lock(&ch->mu);
	e = ch->head;
	if (e) {
		/* Counted before the lock is released: rdma_destroy_id, which takes the id's
		 * events off the queue under it, then waits for every counted one. */
		pthread_mutex_lock(&e->owner->mu);
		e->owner->reported++;
		pthread_mutex_unlock(&e->owner->mu);
		ch->head = e->next;
		if (!ch->head) {
			ch->tail = &ch->head;
			signal_empty(ch);
		}
	}
	pthread_mutex_unlock(&ch->mu);
	return e;
}

void cma_unqueue(struct cma_id *c, struct cma_id **children, int *nchildren, int max)
{
	struct cma_channel *ch = cma_channel_of(c);
	struct cma_event **pp, *e;

	bool had;

	*nchildren = 0;
	pthread_mutex_lock(&ch->mu);
	had = ch->head != NULL;
	for (pp = &ch->head; (e = *pp);) {
		if (e->owner != c) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST && e->ev.id != &c->id &&
		    *nchildren < max)
			children[(*nchildren)++] = cma_id_of(e->ev.id);
		free(e);
	}
	relink(ch, had);
	pthread_mutex_unlock(&ch->mu);
}

void cma_unqueue_mc(struct cma_id *c, const struct cma_mc *mc)
{
	struct cma_channel *ch = cma_channel_of(c);
	struct cma_event **pp, *e;
	bool had;

	pthread_mutex_lock(&ch->mu);
	had = ch->head != NULL;
	for (pp = &ch->head; (e = *pp);) {
		if (e->owner == c && e->mc == mc) {
			*pp = e->next;
			free(e);
		} else {
			pp = &e->next;
		}
	}
	relink(ch, had);
	pthread_mutex_unlock(&ch->mu);
}

void cma_complete(struct cma_id *c)
{
	pthread_mutex_lock(&c->mu);
	c->completed++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->mu);
}

/* librdmacm's ucma_process_join: the QP joins the group unless send-only. */
static int process_join(struct cma_event *e)
{
	struct cma_id *c = e->owner;

	if (!c->id.qp || e->mc->join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return 0;
	if (ibv_attach_mcast(c->id.qp, &e->mc->mgid, 0))
		return -errno;
	e->mc->attached = true;
	return 0;
}

/* What librdmacm does with an event in the thread that takes it: false when the event is
 * to be dropped (a consequence of a connect error already reported). */
static bool finish(struct cma_event *e)
{
	struct cma_id *c = e->owner;

	switch (e->post) {
	case CMA_POST_CONN_RESP:
		if (!c->id.qp)
			break; /* the application calls rdma_establish */
		if (cma_process_conn_resp(c)) {
			e->ev.status = -errno;
			e->ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
			c->connect_error = true;
		} else {
			e->ev.event = RDMA_CM_EVENT_ESTABLISHED;
		}
		break;
	case CMA_POST_REJECTED:
		if (c->connect_error)
			return false;
		cma_modify_qp_err(c);
		break;
	case CMA_POST_JOIN:
		e->ev.status = process_join(e);
		if (e->ev.status)
			e->ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		break;
	case CMA_POST_NONE:
		if (e->ev.event == RDMA_CM_EVENT_DISCONNECTED && c->connect_error)
			return false;
		break;
	}
	return true;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct cma_channel *ch = (struct cma_channel *)channel;
	struct cma_event *e;

	int err = 0;

	if (!ch || !event)
		return cma_ret(EINVAL);
	pthread_mutex_lock(&ch->mu);
	if (ch->dead) {
		/* The thread that destroyed the channel learns its mistake, as from the kernel's
		 * closed file. Another thread raced the destruction: rping's event thread, which
		 * acknowledges DISCONNECTED and loops straight back while its main thread tears
		 * down, and exits 255 when its call fails. In the kernel it is blocked in its read
		 * by then almost always; here a loaded machine let it lose 4 runs in 100, so it
		 * gets that outcome every time: blocked for good. */
		bool mine = pthread_equal(ch->destroyer, pthread_self());

		pthread_mutex_unlock(&ch->mu);
		if (!mine)
			park();
		return cma_ret(EBADF);
	}
	ch->waiters++;
	pthread_mutex_unlock(&ch->mu);
	for (;;) {
		struct pollfd pfd = {.fd = ch->ch.fd, .events = POLLIN};
		bool dead;

		pthread_mutex_lock(&ch->mu);
		dead = ch->dead;
		pthread_mutex_unlock(&ch->mu);
		if (dead)
			park();
		e = dequeue(ch);
		if (e) {
			if (finish(e))
				break;
			cma_complete(e->owner);
			free(e);
			continue;
		}
		if (fcntl(ch->ch.fd, F_GETFL) & O_NONBLOCK) {
			err = EAGAIN;
			break;
		}
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			err = errno;
			break;
		}
	}
	pthread_mutex_lock(&ch->mu);
	ch->waiters--;
	pthread_mutex_unlock(&ch->mu);
	if (err)
		return cma_ret(err);
	if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST)
		cma_id_of(e->ev.id)->parent = NULL; /* handed up: the application owns it */
	*event = &e->ev;
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cma_event *e = (struct cma_event *)event;

	if (!e)
		return cma_ret(EINVAL);
	cma_complete(e->owner);
	free(e);
	return 0;
}

/* librdmacm's ucma_complete: an id without a channel of its own waits for the event its
 * call started, keeps it in id->event, and turns a failure into errno. */
int cma_sync_wait(struct cma_id *c)
{
	struct rdma_cm_event *ev;

	if (!c->sync)
		return 0;
	if (c->id.event) {
		rdma_ack_cm_event(c->id.event);
		c->id.event = NULL;
	}
	if (rdma_get_cm_event(c->id.channel, &ev))
		return -1;
	c->id.event = ev;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return cma_ret(ECONNREFUSED);
	if (ev->status)
		return cma_ret(ev->status < 0 ? -ev->status : ev->status);
	return 0;
}

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	/* The names of rdma_cma.h's enum rdma_cm_event_type, by value. */
	static const char *const names[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED",    "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED",   "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST",  "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR",    "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED",         "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED",     "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN",   "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE",      "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned)event < sizeof(names) / sizeof(names[0]))
		return names[event];
	return "UNKNOWN EVENT";
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct cma_id *c = cma_id_of(id);
	struct cma_channel *old = cma_channel_of(c), *nw;
	bool sync = !channel, had;

	if (c->sync && !channel)
		return cma_ret(EINVAL);
	if (sync) {
		channel = rdma_create_event_channel();
		if (!channel)
			return -1;
	}
	nw = (struct cma_channel *)channel;
	if (c->dev && c->dev->port)
		cma_dev_lock(c->dev); /* no callback queues an event meanwhile */
	/* The id's queued events follow it (the kernel's ucma_migrate_id moves them too). */
	pthread_mutex_lock(&old->mu);
	had = old->head != NULL;
	for (struct cma_event **pp = &old->head, *e; (e = *pp);) {
		if (e->owner != c) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		e->next = NULL;
		pthread_mutex_lock(&nw->mu);
		*nw->tail = e;
		nw->tail = &e->next;
		if (nw->head == e)
			signal_ready(nw);
		pthread_mutex_unlock(&nw->mu);
	}
	relink(old, had);
	pthread_mutex_unlock(&old->mu);
	id->channel = channel;
	if (c->dev && c->dev->port)
		cma_dev_unlock(c->dev);
	if (c->sync) {
		if (id->event) {
			rdma_ack_cm_event(id->event);
			id->event = NULL;
		}
		rdma_destroy_event_channel(&old->ch);
	}
	c->sync = sync;
	/* Events already handed out on the old channel must be acknowledged first. */
	pthread_mutex_lock(&c->mu);
	while (c->completed < c->reported)
		pthread_cond_wait(&c->cond, &c->mu);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

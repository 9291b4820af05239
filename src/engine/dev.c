/* SPDX-License-Identifier: MIT */
/* The device: object bookkeeping, asynchronous events, counters, the transmit round robin
 * and the timers. The only entry points that take time are here and in recv.c. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "cc.h"
#include "completer.h"
#include "cq.h"
#include "mcast.h"
#include "mr.h"
#include "priv.h"
#include "qp.h"
#include "requester.h"
#include "responder.h"
#include "rq.h"

#define DEFAULT_MAX_QP 256
#define DEFAULT_MAX_MR 1024
#define DEFAULT_UNACKED 128 /* rxe's RXE_MAX_UNACKED_PSNS */
#define DEFAULT_ACK_REQ 64  /* rxe sets AckReq about every 64 packets (facts.md section 3) */

static const char *const counter_names[] = {
#define UROCE_COUNTER_NAME(name, desc) #name,
	UROCE_COUNTERS(UROCE_COUNTER_NAME)
#undef UROCE_COUNTER_NAME
};

static const char *const counter_descs[] = {
#define UROCE_COUNTER_DESC(name, desc) desc,
	UROCE_COUNTERS(UROCE_COUNTER_DESC)
#undef UROCE_COUNTER_DESC
};

const char *uroce_counter_name(enum uroce_counter c)
{
	return (unsigned)c < UROCE_NCOUNTERS ? counter_names[c] : NULL;
}

const char *uroce_counter_desc(enum uroce_counter c)
{
	return (unsigned)c < UROCE_NCOUNTERS ? counter_descs[c] : NULL;
}

const char *uroce_event_name(enum uroce_event_type e)
{
	static const char *const names[] = {
#define UROCE_EV_NAME(name, v) [v] = #name,
		UROCE_EVENTS(UROCE_EV_NAME)
#undef UROCE_EV_NAME
	};
	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : NULL;
}

void eng_count(struct uroce_dev *dev, struct uroce_qp *qp, enum uroce_counter c)
{
	assert((unsigned)c < UROCE_NCOUNTERS);
	dev->cnt.v[c]++;
	if (qp)
		qp->cnt.v[c]++;
}

/* ---- objects ---- */

void dev_obj_add(struct uroce_dev *dev, struct obj *o, enum obj_kind kind)
{
	o->kind = kind;
	o->prev = &dev->objs;
	o->next = dev->objs.next;
	dev->objs.next->prev = o;
	dev->objs.next = o;
}

void dev_obj_del(struct obj *o)
{
	o->prev->next = o->next;
	o->next->prev = o->prev;
}

static bool addr_zero(const struct uroce_io_addr *a)
{
	static const uint8_t zero[16];
	return !memcmp(a->ip, zero, a->ipv6 ? 16 : 4);
}

int uroce_dev_new(const struct uroce_dev_cfg *cfg, struct uroce_dev **out)
{
	struct uroce_dev *dev;

	if (!cfg->ngids || cfg->ngids > UROCE_MAX_GIDS)
		return UROCE_EINVAL;
	for (uint32_t i = 0; i < cfg->ngids; i++)
		if (addr_zero(&cfg->gid[i]))
			return UROCE_EINVAL;
	if (cfg->port_mtu && (cfg->port_mtu < UROCE_MTU_256 || cfg->port_mtu > UROCE_MTU_4096))
		return UROCE_EINVAL;
	uint32_t lo = cfg->qpn_lo, hi = cfg->qpn_hi;
	if (!lo && !hi) {
		lo = QPN_BASE;
		hi = LAST_QPN;
	}
	if (lo < QPN_BASE || hi > LAST_QPN || lo > hi ||
	    (cfg->max_qp ? cfg->max_qp : DEFAULT_MAX_QP) > hi - lo + 1 ||
	    cfg->max_mr >= 1u << (32 - MR_KEY_BITS) ||
	    (cfg->first_qpn && (cfg->first_qpn < lo || cfg->first_qpn > MAX_QPN ||
				(cfg->first_qpn > hi && cfg->first_qpn != MCAST_QPN))))
		return UROCE_EINVAL;
	if (!(dev = calloc(1, sizeof(*dev))))
		return UROCE_ENOMEM;
	dev->cfg = *cfg;
	if (!cc_cfg_resolve(&dev->cfg.cc)) {
		free(dev);
		return UROCE_EINVAL;
	}
	dev->cc = cc_algo(dev->cfg.cc.algo);
	if (!dev->cfg.port_mtu)
		dev->cfg.port_mtu = UROCE_MTU_4096;
	if (!dev->cfg.max_qp)
		dev->cfg.max_qp = DEFAULT_MAX_QP;
	if (!dev->cfg.max_mr)
		dev->cfg.max_mr = DEFAULT_MAX_MR;
	if (!dev->cfg.max_unacked_pkts)
		dev->cfg.max_unacked_pkts = DEFAULT_UNACKED;
	if (!dev->cfg.ack_req_interval)
		dev->cfg.ack_req_interval = DEFAULT_ACK_REQ;
	/* Numbering skips the multicast QPN (qpn_after); a start there starts at the base. */
	dev->qpn_lo = lo;
	dev->qpn_hi = hi;
	dev->next_qpn = dev->cfg.first_qpn && dev->cfg.first_qpn <= hi ? dev->cfg.first_qpn : lo;
	dev->port_mtu = mtu_bytes(dev->cfg.port_mtu);
	dev->objs.prev = dev->objs.next = &dev->objs;
	dev->port_active = true;
	dev->qps = calloc(dev->cfg.max_qp, sizeof(*dev->qps));
	dev->mrs = calloc(dev->cfg.max_mr + 1, sizeof(*dev->mrs));
	dev->mr_key = calloc(dev->cfg.max_mr + 1, 1);
	if (!dev->qps || !dev->mrs || !dev->mr_key) {
		uroce_dev_free(dev);
		return UROCE_ENOMEM;
	}
	*out = dev;
	return 0;
}

/* The alignment asked of a parent domain's allocator: a cache line, so that two rings never
 * share one. */
#define QUEUE_MEM_ALIGN 64

void *queue_mem_alloc(const struct uroce_mem *mem, size_t size, enum uroce_mem_use use,
		      bool *custom)
{
	void *p = mem && mem->alloc ? mem->alloc(mem->ctx, size, QUEUE_MEM_ALIGN, use)
				    : UROCE_MEM_DEFAULT;

	*custom = p != UROCE_MEM_DEFAULT;
	return *custom ? p : calloc(1, size);
}

void queue_mem_free(const struct uroce_dev *dev, const struct uroce_mem *mem, void *block,
		    enum uroce_mem_use use, bool custom)
{
	if (!custom)
		free(block);
	else if (block && !dev->ending)
		mem->free(mem->ctx, block, use);
}

/* Releases an object whatever its references: the device is going away. */
static void free_obj(struct obj *o)
{
	switch (o->kind) {
	case OBJ_MR:
		mr_release((struct uroce_mr *)o);
		break;
	case OBJ_CQ:
		cq_release((struct uroce_cq *)o);
		break;
	case OBJ_SRQ:
		srq_release((struct uroce_srq *)o);
		break;
	default: /* PD, AH: one allocation */
		dev_obj_del(o);
		free(o);
		break;
	}
}

void uroce_dev_free(struct uroce_dev *dev)
{
	if (!dev)
		return;
	dev->ending = true;
	mcast_release(dev); /* an attached QP is not destroyed otherwise */
	/* QPs first: they hold references on everything else. */
	for (int pass = 0; pass < 2; pass++) {
		struct obj *o = dev->objs.next;
		while (o != &dev->objs) {
			struct obj *next = o->next;
			if (pass == 0 && o->kind == OBJ_QP)
				uroce_qp_destroy((struct uroce_qp *)o);
			else if (pass == 1)
				free_obj(o);
			o = next;
		}
	}
	timer_heap_free(&dev->timers);
	free(dev->qps);
	free(dev->mrs);
	free(dev->mr_key);
	free(dev);
}

void uroce_dev_query(const struct uroce_dev *dev, struct uroce_dev_attr *attr)
{
	*attr = (struct uroce_dev_attr){
		.max_qp = dev->cfg.max_qp,
		.max_qp_wr = UROCE_MAX_WR,
		.max_sge = UROCE_MAX_SGE,
		.max_cq = UINT32_MAX,
		.max_cqe = UROCE_MAX_CQE,
		.max_mr = dev->cfg.max_mr,
		.max_pd = UINT32_MAX,
		.max_srq = UINT32_MAX,
		.max_srq_wr = UROCE_MAX_WR,
		.max_qp_rd_atom = UROCE_MAX_RD_ATOMIC,
		.max_qp_init_rd_atom = UROCE_MAX_RD_ATOMIC,
		.max_inline_data = UROCE_MAX_INLINE,
		.max_mcast_grp = UROCE_MAX_MCAST_GRP,
		.max_mcast_qp_attach = UROCE_MAX_MCAST_QP_ATTACH,
		.max_total_mcast_qp_attach = UROCE_MAX_TOTAL_MCAST_QP_ATTACH,
		.port_mtu = dev->cfg.port_mtu,
		.port_active = dev->port_active,
	};
}

const union uroce_counters *uroce_dev_counters(const struct uroce_dev *dev) { return &dev->cnt; }

/* ---- asynchronous events (IBA 11.6.3) ---- */

void dev_event(struct uroce_dev *dev, enum uroce_event_type type, void *element)
{
	struct uroce_async_event *ev;

	if (dev->ev_count == ASYNC_RING) {
		eng_count(dev, NULL, UROCE_CNT_async_lost);
		return;
	}
	ev = &dev->ev[(dev->ev_head + dev->ev_count++) % ASYNC_RING];
	ev->type = type;
	switch (type) {
	case UROCE_EVENT_CQ_ERR:
		ev->element.cq = element;
		break;
	case UROCE_EVENT_SRQ_LIMIT_REACHED:
		ev->element.srq = element;
		break;
	case UROCE_EVENT_PORT_ACTIVE:
	case UROCE_EVENT_PORT_ERR:
		ev->element.port_num = 1;
		break;
	default:
		ev->element.qp = element;
		break;
	}
}

/* The object an event is about (NULL for the port's events). */
static const void *event_element(const struct uroce_async_event *ev)
{
	switch (ev->type) {
	case UROCE_EVENT_CQ_ERR:
		return ev->element.cq;
	case UROCE_EVENT_SRQ_LIMIT_REACHED:
		return ev->element.srq;
	case UROCE_EVENT_PORT_ACTIVE:
	case UROCE_EVENT_PORT_ERR:
		return NULL;
	default:
		return ev->element.qp;
	}
}

void dev_forget_events(struct uroce_dev *dev, const void *element)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < dev->ev_count; i++) {
		struct uroce_async_event ev = dev->ev[(dev->ev_head + i) % ASYNC_RING];

		if (event_element(&ev) != element)
			dev->ev[(dev->ev_head + kept++) % ASYNC_RING] = ev;
	}
	dev->ev_count = kept;
}

int uroce_dev_get_async_event(struct uroce_dev *dev, struct uroce_async_event *ev)
{
	if (!dev->ev_count)
		return 0;
	*ev = dev->ev[dev->ev_head];
	dev->ev_head = (dev->ev_head + 1) % ASYNC_RING;
	dev->ev_count--;
	return 1;
}

void uroce_dev_set_port_active(struct uroce_dev *dev, bool active)
{
	if (active == dev->port_active)
		return;
	dev->port_active = active;
	if (!active)
		eng_count(dev, NULL, UROCE_CNT_link_downed);
	dev_event(dev, active ? UROCE_EVENT_PORT_ACTIVE : UROCE_EVENT_PORT_ERR, NULL);
}

/* ---- transmission: a round robin of QPs with something to send ---- */

void sched_add(struct uroce_qp *qp)
{
	struct uroce_dev *dev = qp->dev;

	if (qp->scheduled)
		return;
	assert(!dev->sched_tail || !dev->sched_tail->sched_next);
	qp->scheduled = true;
	qp->sched_next = NULL;
	if (dev->sched_tail)
		dev->sched_tail->sched_next = qp;
	else
		dev->sched_head = qp;
	dev->sched_tail = qp;
}

void sched_del(struct uroce_qp *qp)
{
	struct uroce_dev *dev = qp->dev;
	struct uroce_qp **pp = &dev->sched_head, *prev = NULL;

	if (!qp->scheduled)
		return;
	while (*pp != qp) {
		assert(*pp); /* a scheduled QP is on the list */
		prev = *pp;
		pp = &(*pp)->sched_next;
	}
	*pp = qp->sched_next;
	if (dev->sched_tail == qp)
		dev->sched_tail = prev;
	qp->scheduled = false;
}

size_t uroce_dev_write(struct uroce_dev *dev, struct uroce_txbatch *tx, uint64_t now)
{
	size_t n0 = tx->n;

	uroce_dev_take_posted(dev);
	/* Packets are made only when there is room for them, straight into the caller's
	 * buffers: the engine never queues a packet of its own. Each QP sends one packet per
	 * turn, responses first: a responder that waits behind its own requests could stall
	 * both ends. A QP's turn can start or stop its timers. */
	while (tx->n < tx->max && dev->sched_head && dev->port_active) {
		struct uroce_qp *qp = dev->sched_head;
		assert(qp->scheduled);
		dev->sched_head = qp->sched_next;
		if (!dev->sched_head)
			dev->sched_tail = NULL;
		qp->scheduled = false;
		if (cc_np_emit(qp, tx, now) || resp_emit(qp, tx, now) || req_emit(qp, tx, now))
			sched_add(qp);
	}
	return tx->n - n0;
}

size_t uroce_dev_write_requests(struct uroce_dev *dev, struct uroce_txbatch *tx, uint64_t now)
{
	size_t n0 = tx->n;
	bool moved = true;

	uroce_dev_take_posted(dev);
	/* The same turns as uroce_dev_write, requests only: every QP stays scheduled, since
	 * its responses (or nothing) are left for uroce_dev_write. A turn can take its own QP
	 * off the schedule (a failed WQE completing moves it to the error state), hence next is
	 * read first; no turn touches another QP's place. */
	while (moved && tx->n < tx->max && dev->port_active) {
		struct uroce_qp *qp, *next;
		moved = false;
		for (qp = dev->sched_head; qp && tx->n < tx->max; qp = next) {
			next = qp->sched_next;
			moved |= req_emit(qp, tx, now);
		}
	}
	return tx->n - n0;
}

/* ---- the ACK rule: completions become visible after what their QP owed has left ---- */

void uroce_dev_publish(struct uroce_dev *dev)
{
	struct uroce_cq **pp = &dev->publishing, *cq;

	while ((cq = *pp)) {
		if (cq_publish(cq)) {
			*pp = cq->publish_next;
			cq->publishing = false;
		} else {
			pp = &cq->publish_next;
		}
	}
}

/* ---- timers ---- */

void uroce_dev_on_timer(struct uroce_dev *dev, uint64_t now)
{
	qp_timers_fire(dev, now);
}

uint64_t uroce_dev_next_deadline(struct uroce_dev *dev)
{
	const struct timer *t = timer_first(&dev->timers);

	return t ? t->due : UROCE_NEVER;
}

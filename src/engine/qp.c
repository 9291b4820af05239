/* SPDX-License-Identifier: MIT */
#include "qp.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc.h"
#include "common/error.h"
#include "completer.h"
#include "cq.h"
#include "mr.h"
#include "rq.h"
#include "wire/mad.h"
#include "wr.h"

#define MAX_MSG_LEN (1ull << 31) /* IBA 9.4: the largest message is 2^31 bytes */

const char *uroce_qp_state_name(enum uroce_qp_state s)
{
	static const char *const names[] = {
#define UROCE_QPS_NAME(name, v) [v] = #name,
		UROCE_QP_STATES(UROCE_QPS_NAME)
#undef UROCE_QPS_NAME
	};
	return (unsigned)s < UROCE_QPS_COUNT ? names[s] : NULL;
}

const char *uroce_qp_attr_name(enum uroce_qp_attr_mask bit)
{
	switch (bit) {
#define UROCE_QPA_CASE(name, b, str) \
	case UROCE_QPA_##name:       \
		return str;
		UROCE_QP_ATTRS(UROCE_QPA_CASE)
#undef UROCE_QPA_CASE
	}
	return NULL;
}

const union uroce_counters *uroce_qp_counters(const struct uroce_qp *qp) { return &qp->cnt; }
uint32_t uroce_qp_num(const struct uroce_qp *qp) { return qp->qpn; }
void uroce_qp_set_user(struct uroce_qp *qp, void *user) { qp->user = user; }
void *uroce_qp_user(const struct uroce_qp *qp) { return qp->user; }
enum uroce_qp_state uroce_qp_state(const struct uroce_qp *qp) { return qp_state(qp); }

bool qp_can_receive(const struct uroce_qp *qp)
{
	enum uroce_qp_state s = qp_state(qp);

	return s >= UROCE_QPS_RTR && s <= UROCE_QPS_SQE;
}

/* ---- the transition table (IBA 10.3.1 states, 11.2.4.2 attributes) ---- */

/* Index of a QP type in the rows below (the GSI moves as a UD QP). */
enum { T_RC, T_UC, T_UD, T_COUNT };

static unsigned type_index(enum uroce_qp_type t)
{
	return t == UROCE_QPT_RC ? T_RC : t == UROCE_QPT_UC ? T_UC : T_UD;
}

struct transition {
	uint8_t types;          /* bit per type index: the types for which the move is legal */
	uint32_t req[T_COUNT];  /* attributes the move requires */
	uint32_t opt[T_COUNT];  /* attributes it also accepts */
};

#define TYPES_ALL 7u
#define TYPES_UC_UD (1u << T_UC | 1u << T_UD)
#define A(x) UROCE_QPA_##x
/* Any state may go to RESET or ERR, with no attributes (10.3.1). */
#define TO_RESET_ERR [UROCE_QPS_RESET] = {TYPES_ALL, {0}, {0}}, [UROCE_QPS_ERR] = {TYPES_ALL, {0}, {0}}
#define INIT_OPT_CONN (A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS))
#define INIT_OPT_UD (A(PKEY_INDEX) | A(PORT) | A(QKEY))
#define RTS_OPT_RC (A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER))
#define RTS_OPT_UC (A(CUR_STATE) | A(ACCESS_FLAGS))
#define RTS_OPT_UD (A(CUR_STATE) | A(QKEY))

static const struct transition transitions[UROCE_QPS_COUNT][UROCE_QPS_COUNT] = {
	[UROCE_QPS_RESET] = {
		TO_RESET_ERR,
		[UROCE_QPS_INIT] = {TYPES_ALL, {INIT_OPT_CONN, INIT_OPT_CONN, INIT_OPT_UD}, {0}},
	},
	[UROCE_QPS_INIT] = {
		TO_RESET_ERR,
		[UROCE_QPS_INIT] = {TYPES_ALL, {0}, {INIT_OPT_CONN, INIT_OPT_CONN, INIT_OPT_UD}},
		[UROCE_QPS_RTR] = {TYPES_ALL,
				   {A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
					    A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
				    A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN), 0},
				   {A(ACCESS_FLAGS) | A(PKEY_INDEX), A(ACCESS_FLAGS) | A(PKEY_INDEX),
				    A(PKEY_INDEX) | A(QKEY)}},
	},
	[UROCE_QPS_RTR] = {
		TO_RESET_ERR,
		[UROCE_QPS_RTS] = {TYPES_ALL,
				   {A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
					    A(MAX_QP_RD_ATOMIC),
				    A(SQ_PSN), A(SQ_PSN)},
				   {RTS_OPT_RC, RTS_OPT_UC, RTS_OPT_UD}},
	},
	[UROCE_QPS_RTS] = {
		TO_RESET_ERR,
		[UROCE_QPS_RTS] = {TYPES_ALL, {0}, {RTS_OPT_RC, RTS_OPT_UC, RTS_OPT_UD}},
		[UROCE_QPS_SQD] = {TYPES_ALL, {0},
				   {A(EN_SQD_ASYNC_NOTIFY), A(EN_SQD_ASYNC_NOTIFY),
				    A(EN_SQD_ASYNC_NOTIFY)}},
	},
	[UROCE_QPS_SQD] = {
		TO_RESET_ERR,
		[UROCE_QPS_RTS] = {TYPES_ALL, {0}, {RTS_OPT_RC, RTS_OPT_UC, RTS_OPT_UD}},
		[UROCE_QPS_SQD] = {TYPES_ALL, {0},
				   {A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
					    A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) |
					    A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER),
				    A(AV) | A(ACCESS_FLAGS) | A(PKEY_INDEX),
				    A(PKEY_INDEX) | A(QKEY)}},
	},
	/* Only UC and UD have a send queue error state: RC send errors go to ERR. */
	[UROCE_QPS_SQE] = {
		TO_RESET_ERR,
		[UROCE_QPS_RTS] = {TYPES_UC_UD, {0}, {0, RTS_OPT_UC, RTS_OPT_UD}},
	},
	[UROCE_QPS_ERR] = {
		TO_RESET_ERR,
	},
};

#undef A

/* The value checks of each attribute present in mask. */
static int attr_values_ok(const struct uroce_qp *qp, const struct uroce_qp_attr *attr,
			  unsigned mask)
{
	const struct uroce_dev *dev = qp->dev;

	if (mask & UROCE_QPA_CUR_STATE && attr->cur_qp_state != qp_state(qp))
		return UROCE_EINVAL;
	/* QP1 has the well-known Q_Key and no other (IBA 13.5.1.1). */
	if (qp->type == UROCE_QPT_GSI && mask & UROCE_QPA_QKEY && attr->qkey != UROCE_GSI_QKEY)
		return UROCE_EINVAL;
	if (mask & UROCE_QPA_ACCESS_FLAGS &&
	    attr->qp_access_flags & ~(unsigned)(UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE |
						UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC))
		return UROCE_EINVAL;
	/* One port and one P_Key (the default partition) per device. */
	if ((mask & UROCE_QPA_PKEY_INDEX && attr->pkey_index) ||
	    (mask & UROCE_QPA_PORT && attr->port_num != 1))
		return UROCE_EINVAL;
	if (mask & UROCE_QPA_AV && ah_check(dev, &attr->ah_attr))
		return UROCE_EINVAL;
	if (mask & UROCE_QPA_PATH_MTU &&
	    (attr->path_mtu < UROCE_MTU_256 || attr->path_mtu > dev->cfg.port_mtu))
		return UROCE_EINVAL;
	if ((mask & UROCE_QPA_TIMEOUT && attr->timeout > 31) ||
	    (mask & UROCE_QPA_RETRY_CNT && attr->retry_cnt > 7) ||
	    (mask & UROCE_QPA_RNR_RETRY && attr->rnr_retry > 7) ||
	    (mask & UROCE_QPA_MIN_RNR_TIMER && attr->min_rnr_timer > 31))
		return UROCE_EINVAL;
	if ((mask & UROCE_QPA_RQ_PSN && attr->rq_psn > UROCE_PSN_MASK) ||
	    (mask & UROCE_QPA_SQ_PSN && attr->sq_psn > UROCE_PSN_MASK) ||
	    (mask & UROCE_QPA_DEST_QPN && attr->dest_qp_num > MAX_QPN))
		return UROCE_EINVAL;
	if ((mask & UROCE_QPA_MAX_QP_RD_ATOMIC && attr->max_rd_atomic > UROCE_MAX_RD_ATOMIC) ||
	    (mask & UROCE_QPA_MAX_DEST_RD_ATOMIC && attr->max_dest_rd_atomic > UROCE_MAX_RD_ATOMIC))
		return UROCE_EINVAL;
	return 0;
}

static bool sq_drained(const struct uroce_qp *qp)
{
	const struct sq *sq = &qp->sq;
	return sq_tail(sq) == sq->cur &&
	       (sq->cur == sq_head(sq) || sq_at(sq, sq->cur)->state == SWQE_POSTED);
}

void qp_check_drained(struct uroce_qp *qp)
{
	if (qp_state(qp) != UROCE_QPS_SQD || qp->sq_drained_sent || !sq_drained(qp))
		return;
	qp->sq_drained_sent = true;
	if (qp->attr.en_sqd_async_notify)
		dev_event(qp->dev, UROCE_EVENT_SQ_DRAINED, qp);
}

/* ---- timers ---- */

/* The end of an RNR wait: the requester sends again (req_emit waits while the timer runs). */
static void rnr_wait_end(struct uroce_qp *qp, uint64_t now)
{
	(void)now;
	sched_add(qp);
}

/* Each of a QP's timers: where it lives in the QP, and what its firing does. */
static const struct {
	size_t offset;
	void (*fire)(struct uroce_qp *qp, uint64_t now);
} qp_timers[QP_TIMERS] = {
	[QP_TIMER_RTO] = {offsetof(struct uroce_qp, req.rto), comp_timeout},
	[QP_TIMER_RNR] = {offsetof(struct uroce_qp, req.rnr), rnr_wait_end},
	[QP_TIMER_PACE] = {offsetof(struct uroce_qp, cc.pace), cc_pace_end},
	[QP_TIMER_CC0] = {offsetof(struct uroce_qp, cc.t0), cc_timer0},
	[QP_TIMER_CC1] = {offsetof(struct uroce_qp, cc.t1), cc_timer1},
};

static struct timer *timer_of(const struct uroce_qp *qp, enum qp_timer k)
{
	return (struct timer *)(void *)((char *)(uintptr_t)qp + qp_timers[k].offset);
}

void qp_timer_arm(struct uroce_qp *qp, enum qp_timer k, uint64_t due)
{
	/* Never fails: the heap has room for every QP's timers (uroce_qp_create). */
	int err = timer_arm(&qp->dev->timers, timer_of(qp, k), due);

	assert(!err);
	(void)err;
}

void qp_timer_stop(struct uroce_qp *qp, enum qp_timer k)
{
	timer_cancel(&qp->dev->timers, timer_of(qp, k));
}

bool qp_timer_armed(const struct uroce_qp *qp, enum qp_timer k)
{
	return timer_armed(timer_of(qp, k));
}

uint64_t qp_timer_due(const struct uroce_qp *qp, enum qp_timer k)
{
	const struct timer *t = timer_of(qp, k);

	return timer_armed(t) ? t->due : UROCE_NEVER;
}

void qp_timers_fire(struct uroce_dev *dev, uint64_t now)
{
	struct timer *t;

	while ((t = timer_first(&dev->timers)) && t->due <= now) {
		timer_cancel(&dev->timers, t);
		qp_timers[t->kind].fire(
			(struct uroce_qp *)(void *)((char *)t - qp_timers[t->kind].offset), now);
	}
}

/* Stopped, and told which they are (a QP's creation, a reset of its requester). */
static void timers_init(struct uroce_qp *qp)
{
	for (unsigned k = 0; k < QP_TIMERS; k++) {
		timer_init(timer_of(qp, (enum qp_timer)k));
		timer_of(qp, (enum qp_timer)k)->kind = k;
	}
}

static void timers_stop(struct uroce_qp *qp)
{
	for (unsigned k = 0; k < QP_TIMERS; k++)
		qp_timer_stop(qp, (enum qp_timer)k);
}

static void req_reset(struct uroce_qp *qp, uint32_t psn)
{
	timers_stop(qp); /* the heap points at them */
	memset(&qp->req, 0, sizeof(qp->req));
	timers_init(qp);
	qp->req.psn = qp->req.una = qp->req.psn_max = psn;
}

/* Back to the state of a new QP: queues emptied without completions (10.3.1 RESET). Nobody
 * posts meanwhile (verbs requires it; what was posted before reached the engine through the
 * lock of the call that resets): the indexes are written relaxed. */
static void qp_reset(struct uroce_qp *qp)
{
	struct uroce_sge *wqe_sge = qp->resp.wqe_sge;

	sched_del(qp);
	atomic_store_explicit(&qp->sq.head, 0, memory_order_relaxed);
	qp->sq.cur = 0;
	atomic_store_explicit(&qp->sq.tail, 0, memory_order_relaxed);
	rq_clear(&qp->rq);
	req_reset(qp, 0);
	cc_qp_start(qp, 0);
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.wqe_sge = wqe_sge;
	qp->resp.wqe.sge = wqe_sge;
	qp->comm_est = false;
}

static void apply_attrs(struct uroce_qp *qp, const struct uroce_qp_attr *attr, unsigned mask)
{
	struct uroce_qp_attr *a = &qp->attr;

	if (mask & UROCE_QPA_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & UROCE_QPA_QKEY)
		a->qkey = attr->qkey;
	if (mask & UROCE_QPA_AV)
		a->ah_attr = attr->ah_attr;
	if (mask & UROCE_QPA_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->mtu = mtu_bytes(attr->path_mtu);
	}
	if (mask & UROCE_QPA_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & UROCE_QPA_RETRY_CNT)
		a->retry_cnt = qp->req.retry_left = attr->retry_cnt;
	if (mask & UROCE_QPA_RNR_RETRY)
		a->rnr_retry = qp->req.rnr_left = attr->rnr_retry;
	if (mask & UROCE_QPA_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & UROCE_QPA_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & UROCE_QPA_MAX_DEST_RD_ATOMIC) {
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
		qp->resp.nres = attr->max_dest_rd_atomic;
		qp->resp.res_next = 0;
	}
	if (mask & UROCE_QPA_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & UROCE_QPA_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & UROCE_QPA_RQ_PSN) {
		a->rq_psn = attr->rq_psn;
		qp->resp.epsn = attr->rq_psn;
		qp->resp.last_ack_psn = uroce_psn_add(attr->rq_psn, UROCE_PSN_MASK);
	}
	if (mask & UROCE_QPA_SQ_PSN) {
		a->sq_psn = attr->sq_psn;
		req_reset(qp, attr->sq_psn);
		qp->req.retry_left = a->retry_cnt;
		qp->req.rnr_left = a->rnr_retry;
	}
}

int uroce_qp_modify(struct uroce_qp *qp, const struct uroce_qp_attr *attr, unsigned mask)
{
	enum uroce_qp_state cur = qp_state(qp);
	enum uroce_qp_state next = mask & UROCE_QPA_STATE ? attr->qp_state : cur;
	unsigned t = type_index(qp->type);
	const struct transition *tr;
	int err;

	if ((unsigned)next >= UROCE_QPS_COUNT)
		return UROCE_EINVAL;
	tr = &transitions[cur][next];
	if (!(tr->types & 1u << t))
		return UROCE_EINVAL;
	if ((mask & tr->req[t]) != tr->req[t] ||
	    mask & ~(UROCE_QPA_STATE | tr->req[t] | tr->opt[t]))
		return UROCE_EINVAL;
	if ((err = attr_values_ok(qp, attr, mask)) < 0)
		return err;
	/* 11.2.4.2: the attributes of an SQD QP change only once it has drained. */
	if (cur == UROCE_QPS_SQD && next == UROCE_QPS_SQD && (mask & ~UROCE_QPA_STATE) &&
	    !sq_drained(qp))
		return UROCE_EBUSY;

	apply_attrs(qp, attr, mask);
	if (next == cur)
		return 0;
	switch (next) {
	case UROCE_QPS_RESET:
		qp_reset(qp);
		qp_set_state(qp, next);
		break;
	case UROCE_QPS_ERR:
		qp_to_error(qp);
		break;
	case UROCE_QPS_SQD:
		qp_set_state(qp, next);
		qp->sq_drained_sent = false;
		qp_check_drained(qp);
		break;
	default:
		qp_set_state(qp, next);
		sched_add(qp);
		break;
	}
	return 0;
}

void uroce_qp_query(const struct uroce_qp *qp, struct uroce_qp_attr *attr,
		    struct uroce_qp_init_attr *init)
{
	*attr = qp->attr;
	attr->qp_state = attr->cur_qp_state = qp_state(qp);
	attr->sq_draining = attr->qp_state == UROCE_QPS_SQD && !sq_drained(qp);
	attr->cap = qp->cap;
	attr->port_num = 1;
	if (init) {
		init->send_cq = qp->scq;
		init->recv_cq = qp->rcq;
		init->srq = qp->srq;
		init->cap = qp->cap;
		init->qp_type = qp->type;
		init->sq_sig_all = qp->sq_sig_all;
	}
}

/* ---- creation ---- */

/* UDP source port: UROCE_QP_SPORT_MIN | a 14-bit hash of the QP number, fixed per QP so that
 * a flow keeps one ECMP path (design.md "Addressing"; rxe does the same with another hash). */
static uint16_t qp_sport(uint32_t qpn)
{
	return (uint16_t)(UROCE_QP_SPORT_MIN | ((qpn * 0x9E3779B1u) >> 18));
}

static int qp_alloc_queues(struct uroce_qp *qp, const struct uroce_qp_init_attr *attr)
{
	const struct uroce_qp_cap *cap = &attr->cap;
	struct sq *sq = &qp->sq;
	uint32_t sge = cap->max_send_sge ? cap->max_send_sge : 1;
	uint32_t recv_sge = attr->srq ? attr->srq->rq.max_sge : cap->max_recv_sge;
	int err;

	sq->size = pow2_at_least(cap->max_send_wr ? cap->max_send_wr : 1);
	/* One block: the WQEs, their SGEs, their inline data (the sizes of struct swqe and
	 * struct uroce_sge keep each part aligned). */
	size_t wqe_bytes = (size_t)sq->size * sizeof(*sq->wqe);
	size_t sge_bytes = (size_t)sq->size * sge * sizeof(*sq->sge);
	uint8_t *block = queue_mem_alloc(attr->mem, wqe_bytes + sge_bytes +
							    (size_t)sq->size * cap->max_inline_data,
					 UROCE_MEM_SQ, &sq->mem_custom);
	if (!block)
		return UROCE_ENOMEM;
	sq->wqe = (struct swqe *)block;
	sq->sge = (struct uroce_sge *)(block + wqe_bytes);
	sq->inl = cap->max_inline_data ? block + wqe_bytes + sge_bytes : NULL;
	qp->resp.wqe_sge = calloc(recv_sge ? recv_sge : 1, sizeof(struct uroce_sge));
	if (!qp->resp.wqe_sge)
		return UROCE_ENOMEM;
	for (uint32_t i = 0; i < sq->size; i++) {
		sq->wqe[i].wr.sg_list = &sq->sge[(size_t)i * sge];
		sq->wqe[i].inline_data = sq->inl ? sq->inl + (size_t)i * cap->max_inline_data : NULL;
	}
	qp->resp.wqe.sge = qp->resp.wqe_sge;
	if (!attr->srq && (err = rq_init(&qp->rq, cap->max_recv_wr, cap->max_recv_sge, attr->mem,
					 UROCE_MEM_RQ)) < 0)
		return err;
	return 0;
}

static void qp_free(struct uroce_dev *dev, struct uroce_qp *qp)
{
	queue_mem_free(dev, &qp->mem, qp->sq.wqe, UROCE_MEM_SQ, qp->sq.mem_custom);
	free(qp->resp.wqe_sge);
	rq_fini(&qp->rq, dev, &qp->mem, UROCE_MEM_RQ);
	free(qp);
}

int uroce_qp_create(struct uroce_pd *pd, const struct uroce_qp_init_attr *attr,
		    struct uroce_qp **out)
{
	struct uroce_dev *dev = pd->dev;
	const struct uroce_qp_cap *cap = &attr->cap;
	struct uroce_qp *qp;
	int err;

	if (!attr->send_cq || !attr->recv_cq || attr->send_cq->dev != dev ||
	    attr->recv_cq->dev != dev)
		return UROCE_EINVAL;
	if (attr->qp_type != UROCE_QPT_RC && attr->qp_type != UROCE_QPT_UC &&
	    !type_is_datagram(attr->qp_type))
		return UROCE_EINVAL;
	if (cap->max_send_wr > UROCE_MAX_WR || cap->max_send_sge > UROCE_MAX_SGE ||
	    cap->max_inline_data > UROCE_MAX_INLINE ||
	    (!attr->srq && (cap->max_recv_wr > UROCE_MAX_WR || cap->max_recv_sge > UROCE_MAX_SGE)))
		return UROCE_EINVAL;
	/* IBA 10.2.9: a QP and its SRQ belong to one protection domain. */
	if (attr->srq && attr->srq->pd != pd)
		return UROCE_EINVAL;
	/* One GSI QP per port, QP1 (IBA 13.5.1; rxe refuses a second one the same way). */
	bool gsi = attr->qp_type == UROCE_QPT_GSI;
	if (gsi && dev->gsi)
		return UROCE_EBUSY;
	/* QP numbers run cyclically over [qpn_lo, qpn_hi], so that a number is not reused
	 * soon; a number whose table slot is taken is skipped. 2 x max_qp tries visit every
	 * slot even across the wrap of the numbers, where the slots restart at 0. */
	uint32_t qpn = dev->next_qpn;
	for (uint32_t tries = 1;
	     !gsi && dev->qps[qp_slot(dev, qpn)] && tries < 2 * dev->cfg.max_qp; tries++)
		qpn = qpn_after(dev, qpn);
	if ((!gsi && dev->qps[qp_slot(dev, qpn)]) || !(qp = calloc(1, sizeof(*qp))))
		return UROCE_ENOMEM;
	if (attr->mem)
		qp->mem = *attr->mem;
	if ((err = qp_alloc_queues(qp, attr)) < 0) {
		qp_free(dev, qp);
		return err;
	}
	if (timer_heap_reserve(&dev->timers, dev->ntimers + QP_TIMERS)) {
		qp_free(dev, qp);
		return UROCE_ENOMEM;
	}
	dev->ntimers += QP_TIMERS;
	timers_init(qp); /* before req_reset stops them: a zeroed timer would look armed */
	qp->dev = dev;
	qp->pd = pd;
	qp->scq = attr->send_cq;
	qp->rcq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->type = attr->qp_type;
	atomic_init(&qp->state, UROCE_QPS_RESET); /* not yet seen by any other thread */
	qp->qpn = gsi ? GSI_QPN : qpn;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->cap = *cap;
	if (attr->srq)
		qp->cap.max_recv_wr = qp->cap.max_recv_sge = 0;
	qp->mtu = type_is_datagram(qp->type) ? dev->port_mtu : mtu_bytes(UROCE_MTU_256);
	qp->sport = qp_sport(qp->qpn);
	req_reset(qp, 0);
	cc_qp_start(qp, 0);
	if (gsi) {
		qp->attr.qkey = UROCE_GSI_QKEY;
		dev->gsi = qp;
	} else {
		dev->qps[qp_slot(dev, qpn)] = qp;
		dev->next_qpn = qpn_after(dev, qpn);
	}
	pd->refs++;
	qp->scq->refs++;
	qp->rcq->refs++;
	if (qp->srq)
		qp->srq->refs++;
	dev_obj_add(dev, &qp->obj, OBJ_QP);
	*out = qp;
	return 0;
}

int uroce_qp_destroy(struct uroce_qp *qp)
{
	/* As the kernel's uverbs: a QP is destroyed once the consumer has detached it from its
	 * groups (uverbs_free_qp: EBUSY while its multicast list is not empty). */
	if (qp->mcast_groups)
		return UROCE_EBUSY;
	/* Off the posted list, which may hold it. In RESET its own work is not taken in: a QP
	 * in ERR would otherwise flush what was posted since, into completions that name it
	 * after it is freed (engine.h: destroyed without completions). */
	qp_set_state(qp, UROCE_QPS_RESET);
	uroce_dev_take_posted(qp->dev);
	timers_stop(qp);
	qp->dev->ntimers -= QP_TIMERS;
	sched_del(qp);
	if (qp->type == UROCE_QPT_GSI)
		qp->dev->gsi = NULL;
	else
		qp->dev->qps[qp_slot(qp->dev, qp->qpn)] = NULL;
	cq_forget_qp(qp->scq, qp);
	if (qp->rcq != qp->scq)
		cq_forget_qp(qp->rcq, qp);
	qp->pd->refs--;
	qp->scq->refs--;
	qp->rcq->refs--;
	if (qp->srq)
		qp->srq->refs--;
	dev_forget_events(qp->dev, qp);
	dev_obj_del(&qp->obj);
	qp_free(qp->dev, qp);
	return 0;
}

/* ---- errors and flushing ---- */

static void flush_recv(struct uroce_qp *qp, uint64_t wr_id)
{
	struct uroce_wc wc = {.wr_id = wr_id, .status = UROCE_WC_WR_FLUSH_ERR,
			      .opcode = UROCE_WC_RECV, .qp = qp, .qp_num = qp->qpn};
	cq_push(qp->rcq, &wc);
}

static void flush_sq(struct uroce_qp *qp)
{
	while (sq_tail(&qp->sq) != sq_head(&qp->sq))
		comp_wqe(qp, UROCE_WC_WR_FLUSH_ERR);
	timers_stop(qp);
}

/* The receive queue of a QP in ERR. Its head is read seq_cst: the move to ERR stores the state
 * (seq_cst) and then reads head here, while uroce_post_recv stores head (rq_post, seq_cst)
 * and then reads the state (seq_cst). With a store then a load on each side, one of the two
 * sees the other: a receive posted as the QP goes to ERR is flushed here, or its poster sees
 * ERR and queues the QP, and the next uroce_dev_take_posted flushes it. */
static void flush_rq(struct uroce_qp *qp)
{
	struct rq *rq = &qp->rq;
	uint32_t head = atomic_load_explicit(&rq->head, memory_order_seq_cst);
	uint32_t tail = atomic_load_explicit(&rq->tail, memory_order_relaxed);

	assert(head - tail <= rq->max_wr);
	for (; tail != head; tail++)
		flush_recv(qp, rq->wqe[tail & (rq->size - 1)].wr_id);
	/* Release: the slots are read before a poster may reuse them (rq_post's acquire). */
	atomic_store_explicit(&rq->tail, tail, memory_order_release);
}

void qp_to_error(struct uroce_qp *qp)
{
	struct resp_state *rs = &qp->resp;

	if (qp_state(qp) == UROCE_QPS_ERR)
		return;
	/* seq_cst: half of the handshake with uroce_post_recv (flush_rq). */
	atomic_store_explicit(&qp->state, UROCE_QPS_ERR, memory_order_seq_cst);
	flush_sq(qp);
	/* A receive WQE taken by an unfinished message is older than those still queued. */
	if (rs->have_wqe)
		flush_recv(qp, rs->wqe.wr_id);
	rs->have_wqe = false;
	rs->msg = MSG_NONE;
	rs->ack_pending = false;
	for (uint32_t i = 0; i < UROCE_MAX_RD_ATOMIC; i++)
		rs->res[i].pending = false;
	sched_del(qp); /* after the flush, which schedules the QP as it completes */
	if (qp->srq) {
		dev_event(qp->dev, UROCE_EVENT_QP_LAST_WQE_REACHED, qp);
		return;
	}
	flush_rq(qp);
}

void qp_send_error(struct uroce_qp *qp)
{
	if (qp->type == UROCE_QPT_RC) {
		qp_to_error(qp);
		return;
	}
	if (qp_state(qp) == UROCE_QPS_ERR)
		return;
	qp_set_state(qp, UROCE_QPS_SQE);
	flush_sq(qp);
}

/* ---- posting ---- */

/* The checks of one send request that make post_send fail (ibv_post_send's EINVAL);
 * everything else is found while executing it and reported in its completion. */
static int send_wr_ok(const struct uroce_qp *qp, const struct uroce_send_wr *wr, uint64_t *len)
{
	const struct wr_info *wi = wr_info(wr->opcode);

	*len = 0;
	if (!wi || !(wi->flags & wr_qp_flag(qp->type)) || wr->num_sge < 0 ||
	    (wr->num_sge && !wr->sg_list))
		return UROCE_EINVAL;
	if (wr->send_flags & UROCE_SEND_INLINE && !(wi->flags & WRF_CARRIES_DATA))
		return UROCE_EINVAL;
	if (!(wr->send_flags & UROCE_SEND_INLINE) && (uint32_t)wr->num_sge > qp->cap.max_send_sge)
		return UROCE_EINVAL;
	for (int i = 0; i < wr->num_sge; i++)
		*len += wr->sg_list[i].length;
	if (*len > MAX_MSG_LEN)
		return UROCE_EINVAL;
	/* An atomic returns the 8-byte original value into its SGE list (IBA 9.4.5); an ATOMIC
	 * WRITE sends 8 bytes from it, inline in the WQE whatever max_inline_data (swqe_inline).
	 * Another length is EINVAL, as Linux rxe's validate_send_wr answers an atomic's. */
	if (wi->flags & WRF_LEN8 ? *len != 8
				 : wr->send_flags & UROCE_SEND_INLINE && *len > qp->cap.max_inline_data)
		return UROCE_EINVAL;
	if (type_is_datagram(qp->type) &&
	    (!wr->wr.ud.ah || wr->wr.ud.ah->pd != qp->pd || wr->wr.ud.remote_qpn > MAX_QPN))
		return UROCE_EINVAL;
	return 0;
}

/* Tells the engine that the QP has new work (uroce_dev_take_posted). The flag is exchanged
 * acq_rel, as the engine clears it: release, so that the engine, whose exchange reads this one,
 * sees the head this call's caller stored; acquire, so that post_next is written only after
 * the engine read it (it reads it before it clears the flag). */
static void post_notify(struct uroce_qp *qp)
{
	struct uroce_dev *dev = qp->dev;

	if (atomic_exchange_explicit(&qp->post_queued, true, memory_order_acq_rel))
		return; /* on the list already, and the engine reads head after taking it off */
	qp->post_next = atomic_load_explicit(&dev->posted, memory_order_relaxed);
	/* Release: post_next is written before the engine can take the QP (its acquire). */
	while (!atomic_compare_exchange_weak_explicit(&dev->posted, &qp->post_next, qp,
						      memory_order_release, memory_order_relaxed))
		;
}

int uroce_post_send(struct uroce_qp *qp, const struct uroce_send_wr *wr,
		    const struct uroce_send_wr **bad_wr)
{
	struct sq *sq = &qp->sq;
	const uint32_t first = atomic_load_explicit(&sq->head, memory_order_relaxed); /* ours */
	uint32_t head = first;
	uint64_t len;
	int err = 0;

	for (; wr; wr = wr->next) {
		/* Acquire on tail: the engine has read the slots it gave back (sq_tail). */
		uint32_t used = head - atomic_load_explicit(&sq->tail, memory_order_acquire);

		assert(used <= qp->cap.max_send_wr);
		if (qp_state(qp) < UROCE_QPS_RTS)
			err = UROCE_EINVAL;
		else if ((err = send_wr_ok(qp, wr, &len)) == 0 && used == qp->cap.max_send_wr)
			err = UROCE_EFULL;
		if (err) {
			*bad_wr = wr;
			break;
		}
		/* The one slot no WQE of the engine's uses (head - tail < max_send_wr <= size). */
		struct swqe *w = sq_at(sq, head);
		struct uroce_sge *sge = w->wr.sg_list;
		w->wr = *wr;
		w->wr.next = NULL;
		w->wr.sg_list = sge;
		w->len = len;
		w->state = SWQE_POSTED;
		w->status = UROCE_WC_SUCCESS;
		w->resp_pkts = 0;
		if (wr->send_flags & UROCE_SEND_INLINE) {
			/* Inline data is read from host addresses now (ibv_post_send semantics):
			 * the SGEs need no L_Key and the buffers may be reused at once. */
			uint8_t *p = swqe_inline(w);
			for (int i = 0; i < wr->num_sge; i++) {
				/* An empty SGE may have no address (and a QP without inline room
				 * no buffer): memcpy from or to NULL is undefined even for 0. */
				if (!wr->sg_list[i].length)
					continue;
				memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr,
				       wr->sg_list[i].length);
				p += wr->sg_list[i].length;
			}
			w->wr.num_sge = 0;
		} else if (wr->num_sge) {
			memcpy(sge, wr->sg_list, (size_t)wr->num_sge * sizeof(*sge));
		}
		if (type_is_datagram(qp->type)) {
			w->av = wr->wr.ud.ah->attr;
			w->wr.wr.ud.ah = NULL;
		}
		atomic_store_explicit(&sq->head, ++head, memory_order_release);
	}
	/* Scheduling, or in ERR and SQE the flush (IBA 10.3.1), is the engine's, when it takes
	 * the QP off the posted list. */
	if (head != first)
		post_notify(qp);
	return err;
}

int uroce_post_recv(struct uroce_qp *qp, const struct uroce_recv_wr *wr,
		    const struct uroce_recv_wr **bad_wr)
{
	if (qp_state(qp) == UROCE_QPS_RESET || qp->srq) {
		*bad_wr = wr;
		return UROCE_EINVAL;
	}
	int err = rq_post(&qp->rq, wr, bad_wr);
	/* In ERR the engine flushes them (IBA 10.3.1). The state is read after head was stored,
	 * both seq_cst: a move to ERR that this call does not see flushes what it posted
	 * (flush_rq). */
	if (atomic_load_explicit(&qp->state, memory_order_seq_cst) == UROCE_QPS_ERR)
		post_notify(qp);
	return err;
}

/* What was posted since the engine last looked: in RTS a send queue with unsent WQEs joins
 * the transmit round robin; in ERR both queues are flushed, in SQE the send queue. */
static void qp_take_posted(struct uroce_qp *qp)
{
	switch (qp_state(qp)) {
	case UROCE_QPS_RTS:
		if (qp->sq.cur != sq_head(&qp->sq))
			sched_add(qp);
		break;
	case UROCE_QPS_SQE:
		flush_sq(qp);
		break;
	case UROCE_QPS_ERR:
		flush_sq(qp);
		sched_del(qp); /* as qp_to_error: the flush schedules the QP as it completes */
		if (!qp->srq)
			flush_rq(qp);
		break;
	default: /* SQD resumes at RTS (uroce_qp_modify); before RTS only receives are posted */
		break;
	}
}

void uroce_dev_take_posted(struct uroce_dev *dev)
{
	struct uroce_qp *qp, *next;

	/* Relaxed: the caller knows of new work through its own synchronisation with the
	 * posters (the verbs layer's `posted` flag, thread.c), and a push not visible yet is
	 * taken by the next call. Acquire on the exchange: the pushers' release. */
	if (!atomic_load_explicit(&dev->posted, memory_order_relaxed))
		return;
	qp = atomic_exchange_explicit(&dev->posted, NULL, memory_order_acquire);
	for (; qp; qp = next) {
		next = qp->post_next; /* before the flag: a poster may queue the QP again then */
		/* acq_rel: see post_notify; the state and heads are read after it. */
		(void)atomic_exchange_explicit(&qp->post_queued, false, memory_order_acq_rel);
		qp_take_posted(qp);
	}
}

/* The observer's view (engine.h). The ring indices are read relaxed: posters move head
 * concurrently, and a count one post old is as good as any for a report. */
static void qp_info(const struct uroce_qp *qp, struct uroce_qp_info *info)
{
	*info = (struct uroce_qp_info){
		.qpn = qp->qpn,
		.dest_qpn = qp->attr.dest_qp_num,
		.type = qp->type,
		.state = qp_state(qp),
		.sq_psn = qp->req.psn,
		.una = qp->req.una,
		.epsn = qp->resp.epsn,
		.send_outstanding = atomic_load_explicit(&qp->sq.head, memory_order_relaxed) -
				    atomic_load_explicit(&qp->sq.tail, memory_order_relaxed),
	};
	if (!qp->srq)
		info->recv_posted = atomic_load_explicit(&qp->rq.head, memory_order_relaxed) -
				    atomic_load_explicit(&qp->rq.tail, memory_order_relaxed);
	if (qp->type == UROCE_QPT_RC || qp->type == UROCE_QPT_UC)
		info->peer = qp->attr.ah_attr.dgid;
	uint64_t pace = cc_pace_rate(qp);
	info->pace_bps = pace == UINT64_MAX ? 0 : pace;
}

/* *cursor: 0 before QP1, then one past the table slot last returned. */
bool uroce_dev_qp_next(const struct uroce_dev *dev, uint32_t *cursor, struct uroce_qp_info *info,
		       union uroce_counters *cnt)
{
	const struct uroce_qp *qp = NULL;

	if (*cursor == 0) {
		*cursor = 1;
		qp = dev->gsi;
	}
	while (!qp && *cursor <= dev->cfg.max_qp)
		qp = dev->qps[(*cursor)++ - 1];
	if (!qp)
		return false;
	qp_info(qp, info);
	*cnt = qp->cnt;
	return true;
}

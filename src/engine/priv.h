/* SPDX-License-Identifier: MIT */
/* The engine's objects as the role files see them (the analogue of rxe_verbs.h). Only
 * src/engine includes this header; users see engine.h. */
#ifndef UROCE_ENGINE_PRIV_H
#define UROCE_ENGINE_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "common/timer.h"
#include "wire/build.h"
#include "wire/psn.h"

#define QPN_BASE 16u         /* QP 0 and 1 are the special QPs (IBA 10.2.3); 2..15 kept free */
#define GSI_QPN 1u           /* QP1, the General Services Interface (IBA 13.5.1) */
#define MAX_QPN 0xFFFFFFu     /* the largest 24-bit QP number */
/* The BTH destination QP of every multicast packet: Linux's IB_MULTICAST_QPN (rxe_recv.c
 * fans a packet with it out to a group's QPs), qib's QIB_MULTICAST_QPN; the base
 * specification's clause was not available. No QP has this number: numbering stops at
 * LAST_QPN. */
#define MCAST_QPN 0xFFFFFFu
#define LAST_QPN (MCAST_QPN - 1)
#define ASYNC_RING 64        /* pending asynchronous events */
#define MR_KEY_BITS 8        /* the consumer-visible key part of an L_Key/R_Key (10.6.3.2) */
/* No message may use more than a quarter of the PSN space: PSN comparisons are only
 * meaningful within half of it (IBA 9.7.1), and the window sits on top. */
#define MAX_MSG_PKTS (1u << 22)

/* Every object sits on its device's list so that uroce_dev_free can release what the
 * caller left behind (a verbs process may exit without destroying anything). */
enum obj_kind { OBJ_PD, OBJ_MR, OBJ_CQ, OBJ_AH, OBJ_SRQ, OBJ_QP };

struct obj {
	struct obj *prev, *next;
	enum obj_kind kind;
};

struct uroce_pd {
	struct obj obj;
	struct uroce_dev *dev;
	uint32_t refs; /* MRs, AHs, SRQs and QPs using it */
};

struct uroce_mr {
	struct obj obj;
	struct uroce_pd *pd;
	uint8_t *addr;   /* host address of iova */
	uint64_t iova, length;
	uint32_t key;    /* lkey == rkey: index << 8 | key part */
	unsigned access; /* enum uroce_access set */
	bool valid;      /* cleared by LOCAL_INV / SEND_WITH_INV */
};

struct uroce_ah {
	struct obj obj;
	struct uroce_pd *pd;
	struct uroce_ah_attr attr;
};

/* A single-producer single-consumer ring: the engine pushes (under its owner's serialization),
 * uroce_cq_poll takes, and the two may run on different threads at once (the verbs layer polls
 * without the device lock). head, tail and staged run freely; the slot is the value modulo
 * size, a power of two, while depth is the capacity the user asked for.
 *
 * The ACK rule (docs/engine.md): a completion is pushed at staged and becomes visible (tail
 * moves over it) only in uroce_dev_publish, once what its QP owed the network when it was
 * pushed has been handed to the caller's network: [tail, staged) wait. */
struct uroce_cq {
	struct obj obj;
	struct uroce_dev *dev;
	struct uroce_wc *ring;
	uint32_t *due;            /* per slot: the QP's owed count the completion waits for */
	uint32_t depth, size;
	_Atomic uint32_t head;    /* next to take: written by the consumer only */
	_Atomic uint32_t tail;    /* next to publish: what the consumer may take stops here */
	uint32_t staged;          /* next free: the producer's own */
	uint32_t refs;            /* QPs using it */
	_Atomic bool overrun;
	bool publishing;          /* on the device's list of CQs with staged completions */
	struct uroce_cq *publish_next;
	void *user;
};

/* A receive WQE and a receive queue: a QP's own or an SRQ's. */
struct rwqe {
	uint64_t wr_id;
	uint32_t nsge;
	uint64_t len;          /* sum of the SGE lengths */
	struct uroce_sge *sge; /* max_sge entries owned by the queue slot */
};

struct rq {
	struct rwqe *wqe;      /* the ring's block begins here, the SGEs follow */
	struct uroce_sge *sge;
	bool mem_custom;       /* the block came from a struct uroce_mem */
	uint32_t size;         /* ring slots: a power of two >= max_wr */
	uint32_t max_wr, max_sge;
	/* Free-running, head - tail WQEs posted. A single-producer single-consumer ring: the
	 * poster writes a slot, then head; the engine reads a slot after head, then moves tail
	 * (docs/engine.md "Threads"). */
	_Atomic uint32_t head, tail;
};

struct uroce_srq {
	struct obj obj;
	struct uroce_pd *pd;
	struct rq rq;
	struct uroce_mem mem;  /* where the ring's block came from (alloc NULL: calloc) */
	uint32_t limit;        /* armed when nonzero (IBA 10.2.9.5) */
	uint32_t refs;
	void *user;
};

/* A send WQE. The request is copied at post time; sg_list points at the slot's own SGEs
 * (or is unused for inline data, which is copied into the slot). */
enum swqe_state {
	SWQE_POSTED,  /* not started */
	SWQE_ACTIVE,  /* PSNs assigned: some or all packets sent */
	SWQE_DONE,    /* executed locally (LOCAL_INV), waiting to complete in order */
	SWQE_FAILED,  /* a local error: completes with ->status when it reaches the tail */
};

struct swqe {
	struct uroce_send_wr wr;
	struct uroce_ah_attr av;   /* UD: the AH's attributes at post time */
	uint8_t *inline_data;      /* max_inline_data bytes owned by the slot */
	uint8_t atomic_wr[8];      /* an inline ATOMIC WRITE's value, whatever max_inline_data */
	uint64_t len;              /* message length */
	uint32_t first_psn, npkts; /* PSNs used: packets, or READ response packets */
	uint32_t resp_pkts;        /* READ/atomic: response packets received in order */
	enum swqe_state state;
	enum uroce_wc_status status;
};

struct sq {
	struct swqe *wqe;          /* the ring's block begins here; the SGEs, then inline data */
	struct uroce_sge *sge;
	uint8_t *inl;
	bool mem_custom;           /* the block came from the QP's struct uroce_mem */
	uint32_t size;             /* a power of two >= max_send_wr */
	_Atomic uint32_t head;     /* next slot to post: written by the poster (as rq) */
	uint32_t cur;              /* the WQE the requester sends next */
	_Atomic uint32_t tail;     /* the oldest WQE not completed: read by the poster */
};

/* Requester state (IBA 9.7.4 / 9.7.6). All PSNs are 24-bit. */
struct req_state {
	uint32_t psn;              /* next PSN to send */
	uint32_t psn_max;          /* one past the highest PSN ever sent */
	uint32_t una;              /* oldest PSN not acknowledged (== psn_max when idle) */
	uint32_t rd_atomic;        /* READ/atomic WQEs between tail and cur */
	uint32_t noack_pkts;       /* packets since the last AckReq */
	uint8_t retry_left, rnr_left;
	bool seq_retry;            /* a retry started and no progress since: gaps wait */
	struct timer rto;          /* the local ACK timer (QP_TIMER_RTO) */
	struct timer rnr;          /* the end of an RNR wait (QP_TIMER_RNR) */
};

struct cc_ops;

/* DCQCN's reaction point (dcqcn.c). */
struct dcqcn {
	uint64_t target;           /* R_T, bits/s */
	uint32_t alpha;            /* the estimate of congestion, 1 << 20 being 1 */
	uint32_t t_stage, b_stage; /* increase events since the last cut: the timer's, the bytes' */
	uint64_t bytes;            /* sent since the byte counter's last event */
};

/* Congestion control (cc.h): the reaction point's rate and pacer, the notification point's
 * CNP. */
struct qp_cc {
	const struct cc_ops *ops;  /* NULL: no rate control (QP1, or the algorithm "none") */
	uint64_t rate;             /* bits/s the algorithm lets the requester send at; >= line
				    * rate: unpaced */
	uint64_t limit;            /* bits/s the application set (uroce_qp_set_rate_limit), 0: none */
	/* The pacer: the last request packet's slot started at pace_start and lasts pace_bytes
	 * at the current rate (cc_next_send), so that a rate that changes meanwhile moves the
	 * next packet's time at once. pace_bytes 0: no slot running. */
	uint64_t pace_start;
	uint32_t pace_bytes;
	struct timer pace;         /* QP_TIMER_PACE: until cc_next_send */
	struct timer t0, t1;       /* QP_TIMER_CC0, CC1: the algorithm's */
	bool cnp_due;              /* a CNP waits for the QP's turn */
	bool cnp_sent;             /* one was sent, at last_cnp */
	uint64_t last_cnp;
	uint32_t cnp_qpn;          /* the CNP's destination QP: the sender of the marked packet */
	uint16_t cnp_pkey;
	struct uroce_ah_attr cnp_av; /* its address: the marked packet's source */
	union {
		struct dcqcn dcqcn;
	} alg;
};

/* Where a WQE's inline data is: an ATOMIC WRITE's 8 bytes in the WQE itself, so that it
 * needs no max_inline_data (ibv_wr_atomic_write passes its value by address, to be copied
 * as a NIC's WQE holds it), the rest in the slot's buffer. */
static inline uint8_t *swqe_inline(struct swqe *w)
{
	return w->wr.opcode == UROCE_WR_ATOMIC_WRITE ? w->atomic_wr : w->inline_data;
}

/* The requester's PSNs in order: una <= psn <= psn_max, within the window that PSN
 * comparisons can tell apart (IBA 9.7.1). */
static inline bool req_psns_ok(const struct req_state *rq)
{
	return uroce_psn_le(rq->una, rq->psn) && uroce_psn_le(rq->psn, rq->psn_max);
}

/* A responder resource (IBA 9.7.5.1.3 "responder resources"): a READ, atomic or ATOMIC WRITE
 * request kept for replay so that a duplicate is answered without executing it again. */
enum res_kind { RES_NONE, RES_READ, RES_ATOMIC, RES_ATOMIC_WRITE };

struct resp_res {
	enum res_kind kind;
	bool pending;              /* responses left to send from cur_psn */
	bool replay;               /* ... and they answer a duplicate (rc_duplicate) */
	uint32_t first_psn, last_psn, cur_psn;
	uint64_t va;               /* READ: the remote address, R_Key and length */
	uint32_t rkey, len;
	uint64_t orig;             /* atomic: the value before the operation */
	uint32_t msn;              /* MSN to put in the response AETH */
	uint32_t owed_at;          /* the QP's owed count when it became pending */
};

/* The message being received (multi-packet SEND or RDMA WRITE). */
enum resp_msg { MSG_NONE, MSG_SEND, MSG_WRITE };

struct resp_state {
	uint32_t epsn, msn;
	uint32_t last_ack_psn;     /* the last SEND/WRITE packet accepted: duplicate ACKs carry it */
	bool nak_sent;             /* a NAK or RNR NAK for epsn went out: drop until epsn */
	bool error;                /* class A/C error: to ERR once the NAK is out (9.9.3.1) */
	enum resp_msg msg;
	uint32_t msg_psn;          /* first PSN of the message */
	uint64_t va;               /* WRITE: RETH */
	uint32_t rkey, dma_len;
	bool have_wqe;             /* a receive WQE is taken for this message */
	struct rwqe wqe;           /* its copy; sge points at wqe_sge */
	struct uroce_sge *wqe_sge;
	/* the ACK/NAK to send: the newest one wins (coalescing) */
	bool ack_pending;
	uint8_t ack_syndrome;
	uint32_t ack_psn, ack_msn;
	uint32_t ack_owed_at;      /* the QP's owed count when the ACK/NAK became pending */
	struct resp_res res[UROCE_MAX_RD_ATOMIC];
	uint32_t nres, res_next;
};

/* An IP multicast group with QPs of the device attached (mcast.c). */
struct mcast_group {
	struct uroce_io_addr addr;
	uint32_t nqps;
	struct uroce_qp *qps[UROCE_MAX_MCAST_QP_ATTACH]; /* in attach order */
};

struct uroce_qp {
	struct obj obj;
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *scq, *rcq;
	struct uroce_srq *srq;
	enum uroce_qp_type type;
	_Atomic enum uroce_qp_state state; /* read by posters */
	uint32_t qpn;
	bool sq_sig_all;
	struct uroce_qp_cap cap;
	struct uroce_qp_attr attr; /* current values of everything modify_qp sets */
	uint32_t mtu;              /* path MTU in bytes (UD: the port MTU) */
	uint16_t sport;            /* UDP source port, fixed per QP (design.md "Addressing") */
	bool comm_est;             /* COMM_EST raised */
	bool sq_drained_sent;      /* SQ_DRAINED raised for this SQD */
	uint32_t mcast_groups;     /* groups it is attached to: it cannot be destroyed before */
	struct sq sq;
	struct rq rq;
	struct uroce_mem mem;      /* where the rings' blocks came from (alloc NULL: calloc) */
	struct req_state req;
	struct resp_state resp;
	struct qp_cc cc;
	union uroce_counters cnt;
	/* The ACK rule: every response the responder is asked to send (an ACK or NAK becoming
	 * pending, a READ or atomic response) takes the next value of owed, and every completion
	 * of the QP waits for the responses numbered up to one past the count at its push, i.e.
	 * those owed before it and the one its own packet asks for (uroce_dev_publish). */
	uint32_t owed;
	struct uroce_qp *sched_next; /* in the device's transmit round robin */
	bool scheduled;
	/* On the device's list of QPs with work posted since the engine last looked
	 * (dev_take_posted): set by the poster that queued it, cleared by the engine. */
	_Atomic bool post_queued;
	struct uroce_qp *post_next;
	void *user;
};

struct uroce_dev {
	struct uroce_dev_cfg cfg;
	uint32_t port_mtu;         /* bytes */
	struct obj objs;           /* list head */
	struct uroce_qp **qps;     /* by qp_slot(qpn) */
	struct uroce_qp *gsi;      /* QP1, outside the table */
	struct mcast_group *mcg[UROCE_MAX_MCAST_GRP]; /* groups with attached QPs (mcast.c) */
	uint32_t nmcg;
	uint32_t next_qpn;         /* the next QP number to try */
	uint32_t qpn_lo, qpn_hi;   /* the numbers it hands out (cfg.qpn_lo, qpn_hi) */
	struct uroce_mr **mrs;     /* by key >> 8; slot 0 unused so that key 0 is never valid */
	uint8_t *mr_key;           /* the last key part given out per slot */
	struct uroce_cq *publishing; /* CQs with staged completions (uroce_dev_publish) */
	struct uroce_async_event ev[ASYNC_RING];
	uint32_t ev_head, ev_count;
	struct uroce_qp *sched_head, *sched_tail;
	/* QPs with newly posted work, pushed by posters on any thread (a lock-free stack that
	 * the engine empties whole: no ABA), linked by post_next. */
	struct uroce_qp *_Atomic posted;
	bool port_active;
	const struct cc_ops *cc;   /* the QPs' congestion control algorithm, NULL: none */
	struct timer_heap timers;  /* every armed timer of its QPs (common/timer.h) */
	uint32_t ntimers;          /* the timers its QPs have: the heap has room for them all */
	union uroce_counters cnt;
	bool ending;               /* in uroce_dev_free: custom queue memory is not given back */
	uint8_t scratch[4096];     /* gathers a packet payload spread over several SGEs */
};

/* dev.c */
void dev_obj_add(struct uroce_dev *dev, struct obj *o, enum obj_kind kind);
void dev_obj_del(struct obj *o);
void dev_event(struct uroce_dev *dev, enum uroce_event_type type, void *element);
/* A ring's block of size bytes, zeroed: from mem when it has an allocator and that does not
 * answer UROCE_MEM_DEFAULT (*custom set), else from calloc. NULL when out of memory. */
void *queue_mem_alloc(const struct uroce_mem *mem, size_t size, enum uroce_mem_use use,
		      bool *custom);
/* Gives a block of queue_mem_alloc back where it came from (NULL: nothing). */
void queue_mem_free(const struct uroce_dev *dev, const struct uroce_mem *mem, void *block,
		    enum uroce_mem_use use, bool custom);
/* An object is being destroyed: its events not yet taken are dropped, so that nobody is
 * handed a pointer to it afterwards (the kernel's verbs drop a destroyed object's queued
 * events too). */
void dev_forget_events(struct uroce_dev *dev, const void *element);
/* Counts on the device and, when qp is not NULL, on the QP. */
void eng_count(struct uroce_dev *dev, struct uroce_qp *qp, enum uroce_counter c);
/* Puts the QP in the transmit round robin (idempotent) / takes it out. */
void sched_add(struct uroce_qp *qp);
void sched_del(struct uroce_qp *qp);

/* A QP's timers (qp.c's table says where each lives in the QP and what its firing does). */
enum qp_timer { QP_TIMER_RTO, QP_TIMER_RNR, QP_TIMER_PACE, QP_TIMER_CC0, QP_TIMER_CC1, QP_TIMERS };
/* Arms (or moves) one of the QP's timers; stops it; whether it runs; when it is due
 * (UROCE_NEVER when stopped). */
void qp_timer_arm(struct uroce_qp *qp, enum qp_timer k, uint64_t due);
void qp_timer_stop(struct uroce_qp *qp, enum qp_timer k);
bool qp_timer_armed(const struct uroce_qp *qp, enum qp_timer k);
uint64_t qp_timer_due(const struct uroce_qp *qp, enum qp_timer k);
/* Fires every QP timer of the device due at or before now, earliest first. */
void qp_timers_fire(struct uroce_dev *dev, uint64_t now);

static inline uint32_t mtu_bytes(enum uroce_mtu m) { return 128u << m; }
/* UD and GSI QPs carry datagrams: QP1 is a UD QP with a fixed number and Q_Key (13.5.1). */
static inline bool type_is_datagram(enum uroce_qp_type t)
{
	return t == UROCE_QPT_UD || t == UROCE_QPT_GSI;
}
/* The local ACK timeout: 4.096 us x 2^timeout (IBA 9.7.6.1.3; 0 disables it). */
static inline uint64_t rto_ns(uint8_t timeout) { return 4096ull << timeout; }
static inline struct swqe *sq_at(const struct sq *sq, uint32_t i)
{
	return &sq->wqe[i & (sq->size - 1)];
}

/* ---- What posters on other threads share with the engine (docs/engine.md "Threads") ----
 * Every access to these fields spells its memory order; these helpers are the engine's side.
 *
 * The QP's state: written by the engine only, read by it and by posters, which refuse work
 * before RTS and take nothing else from the engine through it: relaxed. The exceptions are
 * explicit where they are made: the move to ERR and the poster of receives (qp.c). */
static inline enum uroce_qp_state qp_state(const struct uroce_qp *qp)
{
	return atomic_load_explicit(&qp->state, memory_order_relaxed);
}

static inline void qp_set_state(struct uroce_qp *qp, enum uroce_qp_state s)
{
	atomic_store_explicit(&qp->state, s, memory_order_relaxed);
}

/* A send queue's head as the engine reads it: acquire, since it reads the slots below it
 * next (pairs with uroce_post_send's release). */
static inline uint32_t sq_head(const struct sq *sq)
{
	return atomic_load_explicit(&sq->head, memory_order_acquire);
}

/* Its tail, the engine's own index: relaxed to read; moved with release once the engine is
 * done with the slot, which the poster may then reuse (pairs with uroce_post_send's acquire). */
static inline uint32_t sq_tail(const struct sq *sq)
{
	return atomic_load_explicit(&sq->tail, memory_order_relaxed);
}
/* The QP table slot of a QP number: numbers are handed out so that live QPs never share one. */
static inline uint32_t qp_slot(const struct uroce_dev *dev, uint32_t qpn)
{
	return (qpn - dev->qpn_lo) % dev->cfg.max_qp;
}
/* The next QP number: they run over [qpn_lo, qpn_hi] and start again at qpn_lo. */
static inline uint32_t qpn_after(const struct uroce_dev *dev, uint32_t qpn)
{
	return qpn >= dev->qpn_hi ? dev->qpn_lo : qpn + 1;
}
static inline uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

#endif

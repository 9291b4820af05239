/* SPDX-License-Identifier: MIT */
/* The layouts the CM's role files share (the analogue of the engine's priv.h):
 *   cm.c     the CM and its IDs: creation, lookups, events, the transmit queue, timers,
 *            destroy, names
 *   conn.c   the connected service: REQ, MRA, REJ, REP, RTU, DREQ, DREP, sent and received
 *   sidr.c   the datagram service: SIDR_REQ, SIDR_REP
 *   recv.c   received MADs: header checks (one counter per reason) and dispatch
 *   xmit.c   the only place that makes MAD bytes
 *   table.c  the lookup tables (the timer heap is common/timer.c, shared with the engine)
 *   rdmacm.c the rdma_cm conventions on the wire (cm/rdmacm.h) */
#ifndef UROCE_CM_PRIV_H
#define UROCE_CM_PRIV_H

#include "cm.h"
#include "table.h"
#include "common/timer.h"

/* A set of states, for "does this state take that message" (IBA 12.9's state diagrams, as
 * Linux's cm.c handlers check them). */
#define ST(s) (1u << UROCE_CM_##s)

struct uroce_cm {
	struct uroce_cm_cfg cfg;
	uint32_t id_operand;            /* XORed into every comm ID (from cfg.seed) */
	uint32_t id_counter;
	uint32_t nids;
	struct table by_local;          /* (0, local comm ID) -> ID */
	struct table by_remote;         /* (remote CA GUID, remote comm ID) -> ID */
	struct table by_qpn;            /* (remote CA GUID, remote QPN) -> ID */
	struct table by_sidr;           /* (peer address digest, request ID) -> ID in SIDR_REQ_RCVD */
	struct uroce_cm_id *listeners;  /* list through lnext / lprev */
	struct timer_heap timers;
	struct uroce_cm_mad *txq;       /* ring of MADs to send */
	uint32_t tx_head, tx_n, tx_cap;
	struct uroce_cm_event *evq;     /* ring of events */
	uint32_t ev_head, ev_n, ev_cap;
	union uroce_cm_counters cnt;
};

/* What a MAD of an ID goes with (the uroce_cm_mad fields but the bytes). */
struct cm_route {
	struct uroce_io_addr peer, local;
	uint8_t traffic_class, hop_limit;
	uint32_t flow_label;
};

struct uroce_cm_id {
	struct uroce_cm *cm;
	void *context;
	enum uroce_cm_state state;
	bool user_gone;                 /* destroyed by the caller: no events, freed when done */
	bool conn_valid;                /* conn holds a connection's values */
	uint32_t nevents;               /* queued events naming it (as id or listen_id) */

	uint64_t service_id, service_mask; /* LISTEN; the SID of a connection */
	struct uroce_cm_id *lnext, *lprev;

	uint32_t local_id, remote_id;
	uint64_t remote_guid;
	uint64_t tid;                   /* the TID of the exchange under way */
	struct cm_route route;          /* where this ID's MADs go */
	struct uroce_cm_conn conn;      /* uroce_cm_id_query's answer */

	struct timer timer;             /* response timeout or timewait */
	uint64_t timeout_ns;            /* between resends */
	uint8_t max_cm_retries;
	uint8_t retries_left;
	uint8_t service_timeout;        /* of the MRA this side sent */

	/* Messages kept whole for duplicates: `out` is what the timer resends (REQ, REP, DREQ,
	 * SIDR_REQ) and what a duplicate REQ gets while it is a REP; `reply` the last MRA, RTU or
	 * DREP, which duplicates of what it answered get again. */
	uint8_t out[UROCE_MAD_LEN];
	uint8_t reply[UROCE_MAD_LEN];
	uint16_t out_attr, reply_attr;  /* 0: none kept */

	struct table_node n_local, n_remote, n_qpn, n_sidr;
};

/* ---- cm.c ---- */
int cm_id_alloc(struct uroce_cm *cm, struct uroce_cm_id **out);
/* The ID with that local comm ID whose remote comm ID is `remote`, or NULL. */
struct uroce_cm_id *cm_find_id(struct uroce_cm *cm, uint32_t local_id, uint32_t remote_id);
struct uroce_cm_id *cm_find_remote(struct uroce_cm *cm, uint64_t guid, uint32_t remote_id);
struct uroce_cm_id *cm_find_listener(struct uroce_cm *cm, uint64_t service_id);
/* Table membership: remote comm ID (duplicate REQs and REPs), remote QPN (stale
 * connections). The insert functions return false when another ID holds the key (or no
 * memory was left: the message is then dropped as a conflict would be). */
bool cm_link_remote(struct uroce_cm_id *id);
bool cm_link_qpn(struct uroce_cm_id *id);
void cm_unlink_remote(struct uroce_cm_id *id);
struct uroce_cm_id *cm_find_qpn(struct uroce_cm *cm, uint64_t guid, uint32_t qpn);
void cm_event(struct uroce_cm *cm, enum uroce_cm_event_type type, struct uroce_cm_id *id,
	      struct uroce_cm_id *listen_id, const struct uroce_cm_msg *msg,
	      const struct uroce_cm_mad *mad);
/* Arms the ID's timer at now + ns (retries_left resends to go). */
void cm_arm(struct uroce_cm_id *id, uint64_t now, uint64_t ns);
void cm_disarm(struct uroce_cm_id *id);
/* State changes with their side effects (Linux's cm_enter_timewait / cm_reset_to_idle). */
void cm_enter_timewait(struct uroce_cm_id *id, uint64_t now);
void cm_reset_to_idle(struct uroce_cm_id *id);
/* After anything that moved a destroyed ID: does what its state still calls for (a DREQ
 * that came for it gets its DREP) and frees it once nothing needs it. */
void cm_settle(struct uroce_cm_id *id, uint64_t now);
/* Whether the MAD came from the ID's peer; counts drop_wrong_peer when not. */
bool cm_from_peer(struct uroce_cm_id *id, const struct uroce_cm_mad *mad);

/* ---- xmit.c ---- */
/* Encodes m into 256 MAD bytes with a MAD header of m->attr and tid. */
void cm_format_msg(const struct uroce_cm_msg *m, uint64_t tid, uint8_t *mad);
/* Queues m (with a MAD header of m->attr and tid) to r; keep (when not NULL) gets a copy of
 * the 256 bytes. 0, or UROCE_EFULL when max_queued MADs wait (counted; keep still filled). */
int cm_send_msg(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		const struct cm_route *r, uint8_t *keep);
/* Queues 256 kept bytes again. */
int cm_send_raw(struct uroce_cm *cm, const uint8_t *mad, const struct cm_route *r);
/* The route back to where a MAD came from, for answers without an ID. */
void cm_route_back(struct cm_route *r, const struct uroce_cm_mad *mad);

/* ---- conn.c ---- */
void conn_recv_req(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
void conn_recv_mra(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
void conn_recv_rej(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
void conn_recv_rep(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
void conn_recv_rtu(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
void conn_recv_dreq(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		    const struct uroce_cm_mad *mad, uint64_t now);
void conn_recv_drep(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		    const struct uroce_cm_mad *mad, uint64_t now);

/* ---- sidr.c ---- */
void sidr_recv_req(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
void sidr_recv_rep(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		   const struct uroce_cm_mad *mad, uint64_t now);
/* A digest of a peer address for the SIDR table's key. */
uint64_t sidr_addr_key(const struct uroce_io_addr *a);

#endif

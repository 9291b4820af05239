/* SPDX-License-Identifier: MIT */
/* The Communication Manager (IBA Vol. 1 chapter 12) of a RoCEv2 port (Annex A17.6.1), without
 * I/O, in the engine's model (docs/engine.md, design.md): it never reads a clock, touches a
 * socket, sleeps, starts a thread or draws a random number of its own. Its inputs are the CM
 * MADs the port's QP1 receives (uroce_cm_recv), the calls below and the passing of time
 * (uroce_cm_on_timer); its outputs are MADs for the caller to send from QP1
 * (uroce_cm_next_mad), events (uroce_cm_get_event) and the next deadline
 * (uroce_cm_next_deadline). Time is a uint64_t count of nanoseconds the caller chooses.
 *
 * The objects and calls follow Linux's in-kernel IB CM (include/rdma/ib_cm.h) one to one, so
 * that the librdmacm layer can play the part of Linux's cma.c on top of it:
 *
 *   Linux                           uroce
 *   ib_create_cm_id                 uroce_cm_create_id
 *   ib_destroy_cm_id                uroce_cm_destroy_id (sends what the state calls for)
 *   ib_cm_listen                    uroce_cm_listen
 *   ib_send_cm_req / _rep / _rtu    uroce_cm_send_req / _rep / _rtu
 *   ib_send_cm_rej / _mra           uroce_cm_send_rej / _mra
 *   ib_send_cm_dreq / _drep         uroce_cm_send_dreq / _drep
 *   ib_send_cm_sidr_req / _rep      uroce_cm_send_sidr_req / _sidr_rep
 *   ib_cm_notify(IB_EVENT_COMM_EST) uroce_cm_establish
 *   ib_cm_init_qp_attr              uroce_cm_id_query (the negotiated values, for any QP state)
 *   the cm_handler callback         uroce_cm_get_event (pulled, like uroce_dev_get_async_event)
 *
 * State names, event types and their values are Linux's (enum ib_cm_state, ib_cm_event_type).
 * Alternate paths (LAP, APR, path migration) are not implemented: Linux does not support them
 * on RoCE either (cm.c drops LAP and APR on a RoCE port). What this CM does on purpose
 * differently from Linux's is listed in docs/cm.md, with the state machine, the timers and
 * the wire conventions.
 *
 * Not thread-safe: one thread (the port's progress thread) owns a CM and its IDs. Errors are
 * negative UROCE_E* codes (common/error.h). */
#ifndef UROCE_CM_CM_H
#define UROCE_CM_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cm/counters.h"
#include "io/io.h"
#include "wire/cm.h"
#include "wire/mad.h"

#define UROCE_CM_NEVER UINT64_MAX      /* no deadline */
#define UROCE_CM_MAX_CM_RETRIES 15     /* the REQ's Max CM Retries field has 4 bits */
#define UROCE_CM_MAX_TIMEOUT 31        /* 5-bit IBA timeouts: 4.096 us x 2^t */
#define UROCE_CM_MRA_FLAG_DELAY 0x80   /* uroce_cm_send_mra: answer only a duplicate (Linux's
                                        * IB_CM_MRA_FLAG_DELAY) */
#define UROCE_CM_DEFAULT_HOP_LIMIT 64  /* of MADs that answer a MAD without a connection */

struct uroce_cm;
struct uroce_cm_id;

/* ID states (IBA 12.9 state diagrams; values as Linux's enum ib_cm_state). */
#define UROCE_CM_STATES(X)      \
	X(IDLE, 0)              \
	X(LISTEN, 1)            \
	X(REQ_SENT, 2)          \
	X(REQ_RCVD, 3)          \
	X(MRA_REQ_SENT, 4)      \
	X(MRA_REQ_RCVD, 5)      \
	X(REP_SENT, 6)          \
	X(REP_RCVD, 7)          \
	X(MRA_REP_SENT, 8)      \
	X(MRA_REP_RCVD, 9)      \
	X(ESTABLISHED, 10)      \
	X(DREQ_SENT, 11)        \
	X(DREQ_RCVD, 12)        \
	X(TIMEWAIT, 13)         \
	X(SIDR_REQ_SENT, 14)    \
	X(SIDR_REQ_RCVD, 15)

enum uroce_cm_state {
#define UROCE_CM_STATE_ENUM(name, v) UROCE_CM_##name = v,
	UROCE_CM_STATES(UROCE_CM_STATE_ENUM)
#undef UROCE_CM_STATE_ENUM
	UROCE_CM_NSTATES
};

/* Events (values as Linux's enum ib_cm_event_type; LAP_ERROR, LAP_RECEIVED and APR_RECEIVED
 * keep their numbers but never occur). */
#define UROCE_CM_EVENTS(X)          \
	X(REQ_ERROR, 0)             \
	X(REQ_RECEIVED, 1)          \
	X(REP_ERROR, 2)             \
	X(REP_RECEIVED, 3)          \
	X(RTU_RECEIVED, 4)          \
	X(USER_ESTABLISHED, 5)      \
	X(DREQ_ERROR, 6)            \
	X(DREQ_RECEIVED, 7)         \
	X(DREP_RECEIVED, 8)         \
	X(TIMEWAIT_EXIT, 9)         \
	X(MRA_RECEIVED, 10)         \
	X(REJ_RECEIVED, 11)         \
	X(LAP_ERROR, 12)            \
	X(LAP_RECEIVED, 13)         \
	X(APR_RECEIVED, 14)         \
	X(SIDR_REQ_ERROR, 15)       \
	X(SIDR_REQ_RECEIVED, 16)    \
	X(SIDR_REP_RECEIVED, 17)

enum uroce_cm_event_type {
#define UROCE_CM_EVENT_ENUM(name, v) UROCE_CM_EV_##name = v,
	UROCE_CM_EVENTS(UROCE_CM_EVENT_ENUM)
#undef UROCE_CM_EVENT_ENUM
	UROCE_CM_NEVENTS
};

/* Enumerations of the wire's lists (wire/cm.h) that the calls and events use. */
enum uroce_cm_transport {
#define UROCE_CM_TRANSPORT_ENUM(id, v, n) UROCE_CM_TRANSPORT_##id = v,
	UROCE_CM_TRANSPORT_MAP(UROCE_CM_TRANSPORT_ENUM)
#undef UROCE_CM_TRANSPORT_ENUM
};

enum uroce_cm_msg_kind { /* a REJ's Message Rejected, an MRA's Message MRAed */
#define UROCE_CM_MSG_KIND_ENUM(id, v, n) UROCE_CM_MSG_##id = v,
	UROCE_CM_MSG_KIND_MAP(UROCE_CM_MSG_KIND_ENUM)
#undef UROCE_CM_MSG_KIND_ENUM
};

enum uroce_cm_sidr_status {
#define UROCE_CM_SIDR_STATUS_ENUM(id, v, n) UROCE_CM_SIDR_##id = v,
	UROCE_CM_SIDR_STATUS_MAP(UROCE_CM_SIDR_STATUS_ENUM)
#undef UROCE_CM_SIDR_STATUS_ENUM
};

/* ---- Configuration and MADs ---- */

struct uroce_cm_cfg {
	uint64_t ca_guid;     /* the Local CA GUID of every REQ and REP (the device's node GUID) */
	/* The only randomness: the comm IDs are a counter XOR a value drawn from this seed (as
	 * Linux XORs its IDs with a random operand), so that a restarted CM does not reuse the
	 * IDs its peers may still remember. */
	uint64_t seed;
	/* The upper 32 bits of the Transaction ID of every message this CM starts (REQ, DREQ,
	 * SIDR_REQ); the lower 32 bits are the ID's comm ID. Linux puts its MAD agent's number
	 * there (2 in the rxe captures). Answers carry the TID of what they answer. */
	uint32_t tid_high;
	uint8_t ack_delay;    /* the local CA ACK delay (5 bits): the REP's Target ACK Delay and
			       * part of every local ACK timeout (uroce's verbs say 15, as rxe) */
	uint32_t max_ids;     /* IDs alive at once, 0: 65536; a REQ or SIDR_REQ past it is
			       * dropped and counted (the peer's retry may find room) */
	uint32_t max_queued;  /* MADs waiting for uroce_cm_next_mad, 0: 4096; past it a MAD is
			       * dropped and counted (tx_queue_full) */
	/* 0, or the top byte of every local comm ID (and SIDR request ID): the slot of the
	 * process among those sharing its address, which their port's steering reads in the
	 * Remote Comm ID of the peer's answers (docs/multiprocess.md). */
	uint8_t id_prefix;
};

/* One CM MAD as it comes from or goes to QP1. A received MAD carries the 256 bytes after the
 * BTH and DETH of a UD SEND to QP1 with the GSI Q_Key, the IP address it came from (peer)
 * and the local address it was sent to (local); the other fields are ignored. A MAD to send
 * goes from QP1 to QP1 at peer, with Q_Key 0x80010000 (UROCE_GSI_QKEY) and the port's P_Key,
 * from the local address, in an IP header with the traffic class and hop limit given here;
 * flow_label is the IPv6 flow label (for the UDP source port too, as Linux derives it). Annex
 * A17.6.1: CM packets of a connection are RoCEv2 packets of the connection's IP version, so
 * peer and local always have the same one. */
struct uroce_cm_mad {
	uint8_t data[UROCE_MAD_LEN];
	struct uroce_io_addr peer;
	struct uroce_io_addr local;
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint32_t flow_label;
};

/* A path (Linux's struct sa_path_rec, as far as RoCEv2 has one): built locally, since a
 * RoCEv2 port has no Subnet Administrator (cm/rdmacm.h builds one as Linux's cma.c does).
 * The GIDs are IP addresses (an IPv4 one travels IPv4-mapped, ::ffff:a.b.c.d). */
struct uroce_cm_path_rec {
	struct uroce_io_addr local;   /* the source GID */
	struct uroce_io_addr remote;  /* the destination GID: where the CM's MADs go too */
	uint32_t flow_label;          /* 20 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;            /* <= 1 makes the path "subnet local" (then LIDs 0) */
	uint8_t sl;                   /* 4 bits */
	uint8_t rate;                 /* 6-bit IBA static rate, 0: the port's current rate */
	uint8_t mtu;                  /* IBA MTU code, 1 (256) .. 5 (4096) */
	uint8_t packet_life_time;     /* 5 bits, 4.096 us x 2^t */
	uint16_t pkey;
};

/* ---- The CM ---- */

/* Creates a CM: UROCE_EINVAL (ack_delay past 5 bits), UROCE_ENOMEM. */
int uroce_cm_new(const struct uroce_cm_cfg *cfg, struct uroce_cm **out);
/* Frees the CM, every ID in it and whatever is queued, sending nothing. */
void uroce_cm_free(struct uroce_cm *cm);

/* Handles one received MAD at time now. Never fails: a MAD that is not accepted is dropped
 * and counted under the drop_* counter that names why; one that is accepted counts in
 * rx_handled (so rx_mads = rx_handled + the drop_* counters). */
void uroce_cm_recv(struct uroce_cm *cm, const struct uroce_cm_mad *in, uint64_t now);
/* Takes the oldest MAD to send: 1 and *out filled, or 0 when none is queued. Call it after
 * every uroce_cm_recv, uroce_cm_on_timer and call below that can send, until it returns 0. */
int uroce_cm_next_mad(struct uroce_cm *cm, struct uroce_cm_mad *out);
/* Runs every timer due at or before now: response timeouts (the message is sent again, or
 * the ID fails with REQ_ERROR, REP_ERROR, DREQ_ERROR or SIDR_REQ_ERROR once its retries are
 * spent) and the end of timewait. */
void uroce_cm_on_timer(struct uroce_cm *cm, uint64_t now);
/* The earliest timer, or UROCE_CM_NEVER. */
uint64_t uroce_cm_next_deadline(const struct uroce_cm *cm);
const union uroce_cm_counters *uroce_cm_counters(const struct uroce_cm *cm);

/* ---- IDs ---- */

/* Creates an ID in IDLE with the caller's context pointer: UROCE_ENOMEM, also when max_ids
 * are alive (IDs destroyed but still in timewait count). */
int uroce_cm_create_id(struct uroce_cm *cm, void *context, struct uroce_cm_id **out);
/* Destroys an ID, first sending what its state calls for, as Linux's cm_destroy_id does:
 * REQ_SENT or MRA_REQ_RCVD: REJ "timeout" with the CA GUID as ARI; REQ_RCVD, MRA_REQ_SENT,
 * REP_RCVD, MRA_REP_SENT: REJ "consumer defined"; REP_SENT, MRA_REP_RCVD: the same REJ, then
 * timewait; ESTABLISHED: a DREQ (resent until the DREP comes or the retries are spent, where
 * Linux sends it once), then timewait; DREQ_RCVD: a DREP, then timewait; SIDR_REQ_RCVD: a
 * SIDR_REP "rejected". What stays in timewait (or DREQ_SENT) lives on inside the CM, still
 * answering duplicates, and is freed at its end without an event. The ID's queued events are
 * dropped: after this call `id` is never returned again and must not be used. */
void uroce_cm_destroy_id(struct uroce_cm_id *id, uint64_t now);
void *uroce_cm_id_context(const struct uroce_cm_id *id);
void uroce_cm_id_set_context(struct uroce_cm_id *id, void *context);
enum uroce_cm_state uroce_cm_id_state(const struct uroce_cm_id *id);

/* Listens for REQs and SIDR_REQs whose Service ID matches: (sid & mask) == service_id & mask
 * (mask 0: every bit). An ID in IDLE only: UROCE_EINVAL; UROCE_EBUSY when another listener's
 * range overlaps this one. Each matching REQ creates a new ID, reported by REQ_RECEIVED with
 * this listener in listen_id. */
int uroce_cm_listen(struct uroce_cm_id *id, uint64_t service_id, uint64_t mask);

/* ---- Connected service (RC, UC): IBA 12.6-12.9 ---- */

/* ib_cm_req_param. Timeouts are 5-bit IBA values (4.096 us x 2^t); private data up to
 * UROCE_CM_REQ_PRIVATE_LEN bytes, the rest of the field is zero. */
struct uroce_cm_req_param {
	struct uroce_cm_path_rec path; /* primary path; there is no alternate one */
	uint64_t service_id;
	uint32_t qpn;                  /* 24 bits */
	uint8_t transport;             /* UROCE_CM_TRANSPORT_RC or _UC */
	uint32_t starting_psn;         /* 24 bits: the PSN this side's QP expects first */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t remote_cm_response_timeout; /* how long the peer may take to answer */
	uint8_t local_cm_response_timeout;  /* how long this side may take to answer */
	bool flow_control;
	uint8_t retry_count;           /* 3 bits */
	uint8_t rnr_retry_count;       /* 3 bits */
	uint8_t max_cm_retries;        /* 4 bits: the REQ is sent at most 1 + this many times */
	bool srq;
	const void *private_data;
	uint8_t private_data_len;
};

/* Sends a REQ from an IDLE ID to path.remote: UROCE_EINVAL (state, a field past its width, a
 * transport other than RC or UC, too much private data, an MTU code out of 1..5). The REQ is
 * resent every 2 x packet life time + remote CM response timeout (cm.c's formula, exact IBA
 * units) until an answer, and REQ_ERROR ends it after max_cm_retries resends. */
int uroce_cm_send_req(struct uroce_cm_id *id, const struct uroce_cm_req_param *p, uint64_t now);

/* ib_cm_rep_param. */
struct uroce_cm_rep_param {
	uint32_t qpn;
	uint32_t starting_psn;         /* the PSN this side's QP expects first */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	bool flow_control;
	uint8_t rnr_retry_count;
	bool srq;
	const void *private_data;      /* up to UROCE_CM_REP_PRIVATE_LEN bytes */
	uint8_t private_data_len;
};

/* Accepts a REQ (REQ_RCVD or MRA_REQ_SENT): UROCE_EINVAL. The REP is resent every CM
 * response timeout of the REQ's sender (its Local CM Response Timeout) until the RTU, up to
 * the REQ's Max CM Retries, then REP_ERROR. */
int uroce_cm_send_rep(struct uroce_cm_id *id, const struct uroce_cm_rep_param *p, uint64_t now);
/* Answers a REP (REP_RCVD or MRA_REP_SENT) and enters ESTABLISHED: UROCE_EINVAL. A duplicate
 * REP later gets this RTU again. */
int uroce_cm_send_rtu(struct uroce_cm_id *id, const void *private_data, uint8_t len);
/* Rejects (REQ_SENT, MRA_REQ_RCVD, REQ_RCVD, MRA_REQ_SENT, REP_RCVD, MRA_REP_SENT: the ID
 * returns to IDLE; REP_SENT, MRA_REP_RCVD: it enters timewait). UROCE_EINVAL for another
 * state, ARI or private data too long, or reason 13 or 19, the LID reasons that a RoCEv2 port
 * must never send (Annex A17 CA17-35). */
int uroce_cm_send_rej(struct uroce_cm_id *id, uint16_t reason, const void *ari, uint8_t ari_len,
		      const void *private_data, uint8_t len, uint64_t now);
/* Acknowledges a REQ (REQ_RCVD: MRA_REQ_SENT) or a REP (REP_RCVD: MRA_REP_SENT) that will take
 * a while: the peer then waits service_timeout (5 bits) + its packet life time before
 * resending. With UROCE_CM_MRA_FLAG_DELAY in service_timeout nothing is sent now: only a
 * duplicate of the message gets the MRA (what Linux's rdma_cm does while the application
 * decides). UROCE_EINVAL. */
int uroce_cm_send_mra(struct uroce_cm_id *id, uint8_t service_timeout, const void *private_data,
		      uint8_t len);
/* Disconnects an ESTABLISHED ID (DREQ_SENT): UROCE_EINVAL. The DREQ is resent like the
 * message that set the connection up (the same timeout and retries) until the DREP; DREQ_ERROR
 * and timewait follow when none comes. */
int uroce_cm_send_dreq(struct uroce_cm_id *id, const void *private_data, uint8_t len,
		       uint64_t now);
/* Answers a DREQ (DREQ_RCVD) and enters timewait: UROCE_EINVAL. A duplicate DREQ gets this
 * DREP again. */
int uroce_cm_send_drep(struct uroce_cm_id *id, const void *private_data, uint8_t len,
		       uint64_t now);
/* The passive side's QP received before the RTU (the verbs COMM_EST event, Linux's
 * ib_cm_notify(IB_EVENT_COMM_EST)): REP_SENT or MRA_REP_RCVD enter ESTABLISHED with a
 * USER_ESTABLISHED event. UROCE_EINVAL in any other state (ESTABLISHED included). */
int uroce_cm_establish(struct uroce_cm_id *id);

/* ---- Unreliable datagram service: Service ID resolution, IBA 12.11 ---- */

struct uroce_cm_sidr_req_param {
	struct uroce_cm_path_rec path; /* addresses, P_Key, traffic class, hop limit, flow label */
	uint64_t service_id;
	uint64_t timeout_ns;           /* between resends (Linux's timeout_ms); not 0 */
	uint8_t max_cm_retries;
	const void *private_data;      /* up to UROCE_CM_SIDR_REQ_PRIVATE_LEN bytes */
	uint8_t private_data_len;
};

/* Sends a SIDR_REQ from an IDLE ID: UROCE_EINVAL. SIDR_REP_RECEIVED or SIDR_REQ_ERROR ends
 * it, and the ID is IDLE again. */
int uroce_cm_send_sidr_req(struct uroce_cm_id *id, const struct uroce_cm_sidr_req_param *p,
			   uint64_t now);

struct uroce_cm_sidr_rep_param {
	uint8_t status;                /* UROCE_CM_SIDR_STATUS_MAP */
	uint32_t qpn;
	uint32_t qkey;
	const void *info;              /* up to UROCE_CM_SIDR_REP_INFO_LEN bytes */
	uint8_t info_len;
	const void *private_data;      /* up to UROCE_CM_SIDR_REP_PRIVATE_LEN bytes */
	uint8_t private_data_len;
};

/* Answers a SIDR_REQ (SIDR_REQ_RCVD; the ID is IDLE again): UROCE_EINVAL. */
int uroce_cm_send_sidr_rep(struct uroce_cm_id *id, const struct uroce_cm_sidr_rep_param *p);

/* ---- What the ID negotiated ---- */

/* Everything the QP of the connection needs (what Linux's ib_cm_init_qp_attr hands out for
 * INIT, RTR and RTS), valid from REQ_SENT / REQ_RCVD on as far as known. */
struct uroce_cm_conn {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;       /* 0 until the peer's is known */
	uint64_t service_id;
	uint64_t remote_ca_guid;
	uint8_t transport;             /* UROCE_CM_TRANSPORT_RC / _UC */
	uint32_t local_qpn;
	uint32_t remote_qpn;           /* the QP's dest_qp_num */
	uint32_t sq_psn;               /* the QP's sq_psn: the peer's starting PSN */
	uint32_t rq_psn;               /* the QP's rq_psn: this side's starting PSN */
	uint8_t path_mtu;
	uint8_t responder_resources;   /* the QP's max_dest_rd_atomic */
	uint8_t initiator_depth;       /* the QP's max_rd_atomic */
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint8_t ack_timeout;           /* the QP's timeout (local ACK timeout, 5 bits) */
	bool srq;                      /* the peer's SRQ flag */
	bool flow_control;
	struct uroce_cm_path_rec path; /* the QP's address vector (the peer's view reversed on
					* the passive side) */
	struct uroce_io_addr peer;     /* where this ID's MADs go */
};

/* UROCE_EINVAL for an ID that never sent or took a REQ (a new one, a listener, a SIDR one). */
int uroce_cm_id_query(const struct uroce_cm_id *id, struct uroce_cm_conn *out);

/* ---- Events ---- */

/* One event. msg is the message that caused it (its attr says which; 0 and zeroed for
 * *_ERROR and TIMEWAIT_EXIT, which no message causes): the private data, the REJ reason and
 * ARI, the MRA service timeout, the SIDR_REP status, QPN and Q_Key are read there. For
 * REQ_RECEIVED and SIDR_REQ_RECEIVED, id is a new ID (the caller owns it: accept, reject or
 * destroy it) and listen_id the listener it came through. */
struct uroce_cm_event {
	enum uroce_cm_event_type type;
	struct uroce_cm_id *id;
	struct uroce_cm_id *listen_id;
	struct uroce_cm_msg msg;
	struct uroce_io_addr peer;     /* where the message came from */
	struct uroce_io_addr local;    /* the local address it came to */
};

/* Takes the oldest event: 1, or 0 when there is none. A REQ_RECEIVED or SIDR_REQ_RECEIVED
 * whose listener was destroyed meanwhile is not returned: its new ID is destroyed (the REQ
 * rejected) instead. */
int uroce_cm_get_event(struct uroce_cm *cm, struct uroce_cm_event *ev);

/* ---- Names and units ---- */

const char *uroce_cm_state_name(enum uroce_cm_state s);       /* "REQ_SENT", NULL past the end */
const char *uroce_cm_event_name(enum uroce_cm_event_type e);  /* "REQ_RECEIVED", NULL */
/* 4.096 us x 2^t in nanoseconds (t clamped to 31): the unit of every CM and ACK timeout. */
uint64_t uroce_cm_time_ns(uint8_t t);
/* The local ACK timeout of a path: 4.096 us x 2^result ~ 2 x packet life time + the CA's
 * ACK delay (IBA 12.7.34, as Linux's cm_ack_timeout rounds it; at most 31). */
uint8_t uroce_cm_ack_timeout(uint8_t ca_ack_delay, uint8_t packet_life_time);
/* A GID from an IP address (IPv4 mapped to ::ffff:a.b.c.d) and back; addr_from_gid gives an
 * IPv4 address for an IPv4-mapped GID, else an IPv6 one. */
void uroce_cm_gid_from_addr(uint8_t gid[16], const struct uroce_io_addr *addr);
void uroce_cm_addr_from_gid(struct uroce_io_addr *addr, const uint8_t gid[16]);

#endif

/* SPDX-License-Identifier: MIT */
/* The CM's counters: one list gives the fields, their names and their meaning (style.md habit
 * 2, as src/engine/counters.h). Every MAD handed to uroce_cm_recv is counted once in rx_mads
 * and once more, either in rx_handled or in the drop_* counter that names why it was not
 * accepted; the other counters say more about the handled ones and about what was sent. */
#ifndef UROCE_CM_COUNTERS_H
#define UROCE_CM_COUNTERS_H

#include <stdint.h>

#define UROCE_CM_COUNTERS(X)                                                                    \
	X(rx_mads, "MADs handed to uroce_cm_recv")                                              \
	X(rx_handled, "received messages that moved a state, raised an event or were answered") \
	X(tx_mads, "MADs handed out by uroce_cm_next_mad")                                      \
	X(tx_retries, "REQ, REP, DREQ or SIDR_REQ sent again after a response timeout")         \
	X(tx_timeouts, "messages whose retries ran out (REQ, REP, DREQ, SIDR_REQ _ERROR)")      \
	X(tx_queue_full, "MADs not queued: max_queued were already waiting")                   \
	X(dup_req, "REQs of a known connection (answered with its REP, MRA or REJ stale)")      \
	X(dup_rep, "REPs of an answered REP (answered with the RTU or MRA again)")              \
	X(dup_rtu, "RTUs for a connection no longer waiting for one")                           \
	X(dup_mra, "MRAs after the first for the same message")                                 \
	X(dup_dreq, "DREQs after the first (answered with the DREP again in timewait)")         \
	X(dup_sidr_req, "SIDR_REQs still being answered")                                       \
	X(rej_stale_sent, "REJ stale connection sent (a REQ or REP naming a known remote QP)")  \
	X(rej_no_listener_sent, "REJ invalid service ID sent (no listener for the REQ)")        \
	X(rej_transport_sent, "REJ invalid transport type sent (RD and extended transports)")   \
	X(drep_unknown_sent, "DREPs sent for a DREQ naming no connection (as Linux does)")      \
	X(sidr_unsupported_sent, "SIDR_REP unsupported sent (no listener)")                     \
	X(timewait_entered, "connections that entered timewait")                                \
	X(drop_version, "drop: base version not 1 or class version not 2")                      \
	X(drop_class, "drop: not the CM class (0x07)")                                          \
	X(drop_method, "drop: method other than Send (a response, Get, Set...)")                \
	X(drop_attr, "drop: attribute is not a CM message (ClassPortInfo, unassigned)")         \
	X(drop_lap_apr, "drop: LAP or APR (alternate paths are not supported on RoCE)")         \
	X(drop_unknown_id, "drop: no ID with the message's comm IDs")                           \
	X(drop_state, "drop: the ID's state does not take the message")                         \
	X(drop_wrong_peer, "drop: from an address other than the ID's peer")                    \
	X(drop_dreq_qpn, "drop: DREQ naming a QPN other than the connection's")                 \
	X(drop_remote_id_in_use, "drop: REP whose comm ID and CA GUID another ID already has")  \
	X(drop_no_resources, "drop: REQ or SIDR_REQ with max_ids IDs alive")                    \
	X(events_lost, "events lost because no memory was left for them")

enum uroce_cm_counter {
#define UROCE_CM_COUNTER_ENUM(name, desc) UROCE_CM_CNT_##name,
	UROCE_CM_COUNTERS(UROCE_CM_COUNTER_ENUM)
#undef UROCE_CM_COUNTER_ENUM
	UROCE_CM_NCOUNTERS
};

union uroce_cm_counters {
	struct {
#define UROCE_CM_COUNTER_FIELD(name, desc) uint64_t name;
		UROCE_CM_COUNTERS(UROCE_CM_COUNTER_FIELD)
#undef UROCE_CM_COUNTER_FIELD
	};
	uint64_t v[UROCE_CM_NCOUNTERS]; /* indexed by enum uroce_cm_counter */
};

/* "rx_mads", or NULL past the end. */
const char *uroce_cm_counter_name(enum uroce_cm_counter c);
/* The one-line meaning, or NULL past the end. */
const char *uroce_cm_counter_desc(enum uroce_cm_counter c);

#endif

/* SPDX-License-Identifier: MIT */
/* The engine's counters: one list gives the fields, their names and their meaning, kept per
 * device and per QP (style.md habit 2). The first fifteen are Linux rxe's hw_counters
 * (facts.md section 3), with the meaning given here; the drop_* counters name every reason
 * a received packet is discarded (design.md: bad input is dropped and counted, never fatal). */
#ifndef UROCE_ENGINE_COUNTERS_H
#define UROCE_ENGINE_COUNTERS_H

#include <stdint.h>

#define UROCE_COUNTERS(X)                                                                       \
	X(sent_pkts, "packets written to a transmit batch")                                     \
	X(rcvd_pkts, "packets that passed header validation and reached a QP")                  \
	X(duplicate_request, "responder: requests with a PSN before the expected one")          \
	X(out_of_seq_request, "responder: PSN gaps detected (one PSN sequence NAK each)")       \
	X(rcvd_rnr_err, "requester: RNR NAKs received")                                         \
	X(send_rnr_err, "responder: RNR NAKs sent (no receive WQE)")                            \
	X(rcvd_seq_err, "requester: PSN sequence NAKs received")                                \
	X(ack_deferred, "responder: requests without AckReq, acknowledged by a later ACK")      \
	X(retry_exceeded_err, "requester: retry_cnt exhausted (RETRY_EXC_ERR)")                 \
	X(retry_rnr_exceeded_err, "requester: rnr_retry exhausted (RNR_RETRY_EXC_ERR)")         \
	X(completer_retry_err, "requester: go-back-N retries (timeout or sequence error)")      \
	X(send_err, "packets that could not be built (transmit buffer too small)")              \
	X(link_downed, "times the port went down")                                              \
	X(rdma_sends, "RDMA READ/WRITE (and ATOMIC WRITE) request packets sent")                \
	X(rdma_recvs, "RDMA READ/WRITE (and ATOMIC WRITE) request packets executed by the responder") \
	X(retransmitted_pkts, "request packets sent again after a retry")                       \
	X(naks_sent, "NAKs sent other than RNR NAKs (PSN sequence, invalid request, access, op)") \
	X(acks_sent, "ACK packets sent (ATOMIC ACKNOWLEDGE included)")                          \
	X(ud_send_too_long, "UD sends longer than the port MTU: no packet, success (C10-93.1.1)") \
	X(drop_trunc, "drop: the datagram did not fit the receive buffer")                      \
	X(drop_malformed, "drop: not a whole RoCEv2 packet (not UDP, bad lengths, reserved opcode)") \
	X(drop_bad_pad, "drop: payload + BTH.PadCnt not whole 4-byte words, or a pad with no payload") \
	X(drop_udp_port, "drop: UDP destination port is not 4791 (Annex A17 CA17-20, CA17-24)") \
	X(drop_ip_header, "drop: IPv4 fragment or header checksum wrong (Annex A17 CA17-7/8, CA17-24)") \
	X(drop_bad_icrc, "drop: ICRC mismatch")                                                 \
	X(drop_icrc_unchecked, "drop: ICRC not computable (IPv4 options, IPv6 extensions)")     \
	X(drop_not_local, "drop: destination IP is not one of the device's GIDs nor a group it joined") \
	X(drop_mcast_qpn, "drop: to a group with a QPN other than 0xFFFFFF, or QPN 0xFFFFFF to a GID") \
	X(drop_bad_tver, "drop: BTH TVer is not 0")                                             \
	X(drop_bad_pkey, "drop: P_Key is not the default partition")                            \
	X(drop_qp0, "drop: destination QP 0: RoCEv2 has no subnet manager (CA17-33)")           \
	X(drop_gsi_qkey, "drop: QP1 (GSI) packet without the GSI Q_Key 0x80010000")             \
	X(drop_unknown_qp, "drop: no such destination QP")                                      \
	X(drop_wrong_transport, "drop: opcode transport differs from the QP type")              \
	X(drop_qp_state, "drop: the QP cannot receive in its state")                            \
	X(drop_wrong_src, "drop: RC/UC source IP differs from the QP's address vector")         \
	X(drop_bad_qkey, "drop: UD Q_Key mismatch")                                             \
	X(drop_out_of_seq, "drop: request after a gap already NAKed (silent until ePSN)")       \
	X(drop_dup_no_resource, "drop: duplicate READ/atomic with no responder resource left")  \
	X(drop_ghost_response, "drop: response or ACK for a PSN never sent or already done")    \
	X(drop_bad_response, "drop: response whose opcode or length does not fit the request")  \
	X(drop_no_recv_wqe, "drop: UD/UC SEND with no receive WQE posted")                      \
	X(drop_uc_gap, "drop: UC packet of a message broken by a PSN gap")                      \
	X(drop_uc_invalid, "drop: UC request failing validation (its message is discarded)")    \
	X(drop_too_long, "drop: UD/UC message longer than the receive buffer or the MTU")       \
	X(drop_qp_error, "drop: request after the responder detected an error")                 \
	X(async_lost, "asynchronous events lost because the event queue was full")             \
	X(np_ecn_marked_roce_packets, "notification point: packets received marked CE (ECN 11)") \
	X(np_cnp_sent, "notification point: CNPs sent")                                         \
	X(rp_cnp_handled, "reaction point: CNPs received that cut the QP's rate")               \
	X(rp_cnp_ignored, "reaction point: CNPs received for a QP without congestion control")

enum uroce_counter {
#define UROCE_COUNTER_ENUM(name, desc) UROCE_CNT_##name,
	UROCE_COUNTERS(UROCE_COUNTER_ENUM)
#undef UROCE_COUNTER_ENUM
	UROCE_NCOUNTERS
};

union uroce_counters {
	struct {
#define UROCE_COUNTER_FIELD(name, desc) uint64_t name;
		UROCE_COUNTERS(UROCE_COUNTER_FIELD)
#undef UROCE_COUNTER_FIELD
	};
	uint64_t v[UROCE_NCOUNTERS]; /* indexed by enum uroce_counter */
};

/* "sent_pkts", or NULL past the end. */
const char *uroce_counter_name(enum uroce_counter c);
/* The one-line meaning, or NULL past the end. */
const char *uroce_counter_desc(enum uroce_counter c);

#endif

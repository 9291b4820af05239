/* SPDX-License-Identifier: MIT */
/* Communication Management messages (IBA Vol. 1 chapter 12.6-12.11): the MAD data (the 232
 * bytes after the common MAD header) of a MAD of class 0x07, one layout per attribute.
 * Byte offsets follow IBA 12.6.5-12.11 (the same offsets as Linux include/rdma/ibta_vol1_c12.h);
 * the IP-CM private data of a REQ follows IBTA Annex A11 ("RDMA IP CM Service").
 * Decoders follow the wire contract: `ssize_t decode(out, p, len)` returns the bytes consumed
 * (always UROCE_CM_DATA_LEN) or a negative UROCE_E* code and never reads past p + len;
 * encoders return the bytes written or UROCE_ENOSPACE. Reserved bits are kept so that a
 * decode/encode round trip is byte-exact. */
#ifndef UROCE_WIRE_CM_H
#define UROCE_WIRE_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UROCE_CM_DATA_LEN 232 /* MAD data after the 24-byte common header */
#define UROCE_CM_CLASS_VERSION 2

/* CM attributes, one per message (IBA 12.6, CM attribute IDs): X(ID, value, short name, IBA name).
 * The IBA names are also Wireshark's CM_Attributes strings. */
#define UROCE_CM_ATTR_MAP(X)                                                  \
	X(CLASS_PORT_INFO, 0x0001, "ClassPortInfo", "ClassPortInfo")          \
	X(REQ, 0x0010, "REQ", "ConnectRequest")                               \
	X(MRA, 0x0011, "MRA", "MsgRcptAck")                                   \
	X(REJ, 0x0012, "REJ", "ConnectReject")                                \
	X(REP, 0x0013, "REP", "ConnectReply")                                 \
	X(RTU, 0x0014, "RTU", "ReadyToUse")                                   \
	X(DREQ, 0x0015, "DREQ", "DisconnectRequest")                          \
	X(DREP, 0x0016, "DREP", "DisconnectReply")                            \
	X(SIDR_REQ, 0x0017, "SIDR_REQ", "ServiceIDResReq")                    \
	X(SIDR_REP, 0x0018, "SIDR_REP", "ServiceIDResReqResp")                \
	X(LAP, 0x0019, "LAP", "LoadAlternatePath")                            \
	X(APR, 0x001A, "APR", "AlternatePathResponse")

enum uroce_cm_attr {
#define UROCE_CM_ATTR_ENUM(id, v, s, n) UROCE_CM_ATTR_##id = v,
	UROCE_CM_ATTR_MAP(UROCE_CM_ATTR_ENUM)
#undef UROCE_CM_ATTR_ENUM
};

/* REJ reason codes (IBA 12.6.7.2, REJ reason table; Linux enum ib_cm_rej_reason). */
#define UROCE_CM_REJ_REASON_MAP(X)                                                   \
	X(NO_QP, 1, "No QP available")                                               \
	X(NO_EEC, 2, "No EEC available")                                             \
	X(NO_RESOURCES, 3, "No resources available")                                 \
	X(TIMEOUT, 4, "Timeout")                                                     \
	X(UNSUPPORTED, 5, "Unsupported request")                                     \
	X(INVALID_COMM_ID, 6, "Invalid Communication ID")                            \
	X(INVALID_COMM_INSTANCE, 7, "Invalid Communication Instance")                \
	X(INVALID_SERVICE_ID, 8, "Invalid Service ID")                               \
	X(INVALID_TRANSPORT_TYPE, 9, "Invalid Transport Service Type")               \
	X(STALE_CONN, 10, "Stale connection")                                        \
	X(RDC_NOT_EXIST, 11, "RDC does not exist")                                   \
	X(INVALID_GID, 12, "Primary Remote Port GID rejected")                       \
	X(INVALID_LID, 13, "Primary Remote Port LID rejected")                       \
	X(INVALID_SL, 14, "Invalid Primary SL")                                      \
	X(INVALID_TRAFFIC_CLASS, 15, "Invalid Primary Traffic Class")                \
	X(INVALID_HOP_LIMIT, 16, "Invalid Primary Hop Limit")                        \
	X(INVALID_PACKET_RATE, 17, "Invalid Primary Packet Rate")                    \
	X(INVALID_ALT_GID, 18, "Alternate Remote Port GID rejected")                 \
	X(INVALID_ALT_LID, 19, "Alternate Remote Port LID rejected")                 \
	X(INVALID_ALT_SL, 20, "Invalid Alternate SL")                                \
	X(INVALID_ALT_TRAFFIC_CLASS, 21, "Invalid Alternate Traffic Class")          \
	X(INVALID_ALT_HOP_LIMIT, 22, "Invalid Alternate Hop Limit")                  \
	X(INVALID_ALT_PACKET_RATE, 23, "Invalid Alternate Packet Rate")              \
	X(PORT_CM_REDIRECT, 24, "Port and CM Redirection")                           \
	X(PORT_REDIRECT, 25, "Port Redirection")                                     \
	X(INVALID_MTU, 26, "Invalid Path MTU")                                       \
	X(INSUFFICIENT_RESP_RESOURCES, 27, "Insufficient Responder Resources")       \
	X(CONSUMER_DEFINED, 28, "Consumer Reject")                                   \
	X(INVALID_RNR_RETRY, 29, "Invalid RNR NAK Retry Count")                      \
	X(DUPLICATE_LOCAL_COMM_ID, 30, "Duplicate Local Communication ID")           \
	X(INVALID_CLASS_VERSION, 31, "Unsupported Class Version")                    \
	X(INVALID_FLOW_LABEL, 32, "Invalid Primary Flow Label")                      \
	X(INVALID_ALT_FLOW_LABEL, 33, "Invalid Alternate Flow Label")                \
	X(VENDOR_OPTION_NOT_SUPPORTED, 35, "Vendor option not supported")

enum uroce_cm_rej_reason {
#define UROCE_CM_REJ_ENUM(id, v, n) UROCE_CM_REJ_##id = v,
	UROCE_CM_REJ_REASON_MAP(UROCE_CM_REJ_ENUM)
#undef UROCE_CM_REJ_ENUM
};

/* The message a REJ rejects / an MRA acknowledges (IBA 12.6.6, 12.6.7): 2 bits. */
#define UROCE_CM_MSG_KIND_MAP(X)   \
	X(REQ, 0, "REQ")           \
	X(REP, 1, "REP")           \
	X(OTHER, 2, "LAP / other") \
	X(RSV, 3, "reserved")

/* APR status (IBA 12.8.2, AP status table; Linux enum ib_cm_apr_status). */
#define UROCE_CM_APR_STATUS_MAP(X)                                    \
	X(SUCCESS, 0, "Alternate path loaded")                        \
	X(INVALID_COMM_ID, 1, "Invalid Communication ID")             \
	X(UNSUPPORTED, 2, "Option not supported")                     \
	X(REJECT, 3, "Rejected")                                      \
	X(REDIRECT, 4, "Redirect")                                    \
	X(IS_CURRENT, 5, "Path is already current")                   \
	X(INVALID_QPN_EECN, 6, "Invalid QPN/EECN")                    \
	X(INVALID_LID, 7, "Invalid alternate LID")                    \
	X(INVALID_GID, 8, "Invalid alternate GID")                    \
	X(INVALID_FLOW_LABEL, 9, "Invalid alternate flow label")      \
	X(INVALID_TCLASS, 10, "Invalid alternate traffic class")      \
	X(INVALID_HOP_LIMIT, 11, "Invalid alternate hop limit")       \
	X(INVALID_PACKET_RATE, 12, "Invalid alternate packet rate")   \
	X(INVALID_SL, 13, "Invalid alternate SL")

/* SIDR_REP status (IBA 12.11.2; Linux enum ib_cm_sidr_status). */
#define UROCE_CM_SIDR_STATUS_MAP(X)                           \
	X(SUCCESS, 0, "QPN valid")                            \
	X(UNSUPPORTED, 1, "Service ID not supported")         \
	X(REJECT, 2, "Rejected by the service provider")      \
	X(NO_QP, 3, "No QP available")                        \
	X(REDIRECT, 4, "Redirect")                            \
	X(UNSUPPORTED_VERSION, 5, "Unsupported class version")

/* REQ Transport Service Type (IBA 12.6.5): 3 means "see Extended Transport Type", whose value
 * 1 is XRC (Annex A14). */
#define UROCE_CM_TRANSPORT_MAP(X) \
	X(RC, 0, "RC")            \
	X(UC, 1, "UC")            \
	X(RD, 2, "RD")            \
	X(EXT, 3, "extended")

/* A path of a REQ (primary at byte 52, alternate at byte 96, 44 bytes each) or the alternate
 * path of a LAP (whose layout differs: see struct uroce_cm_lap). */
struct uroce_cm_path {
	uint16_t local_lid;
	uint16_t remote_lid;
	uint8_t local_gid[16];
	uint8_t remote_gid[16];
	uint32_t flow_label;   /* 20 bits */
	uint8_t rsv6;          /* REQ: 6 reserved bits before the packet rate; LAP: 4 bits */
	uint8_t packet_rate;   /* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;            /* 4 bits */
	bool subnet_local;
	uint8_t rsv3;          /* 3 reserved bits after Subnet Local */
	uint8_t local_ack_timeout; /* 5 bits */
	uint8_t rsv3b;         /* 3 bits after the ACK timeout (alternate: SAPSupported in bit 2) */
};

#define UROCE_CM_REQ_PRIVATE_LEN 92
#define UROCE_CM_MRA_PRIVATE_LEN 222
#define UROCE_CM_REJ_ARI_LEN 72
#define UROCE_CM_REJ_PRIVATE_LEN 148
#define UROCE_CM_REP_PRIVATE_LEN 196
#define UROCE_CM_RTU_PRIVATE_LEN 224
#define UROCE_CM_DREQ_PRIVATE_LEN 220
#define UROCE_CM_DREP_PRIVATE_LEN 224
#define UROCE_CM_LAP_PRIVATE_LEN 168
#define UROCE_CM_APR_INFO_LEN 72
#define UROCE_CM_APR_PRIVATE_LEN 148
#define UROCE_CM_SIDR_REQ_PRIVATE_LEN 216
#define UROCE_CM_SIDR_REP_INFO_LEN 72
#define UROCE_CM_SIDR_REP_PRIVATE_LEN 136

/* REQ (IBA 12.6.5). */
struct uroce_cm_req {
	uint32_t local_comm_id;
	uint32_t rsv4;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t rsv24;              /* bytes 24..27 */
	uint32_t local_qkey;
	uint32_t local_qpn;          /* 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;         /* 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;        /* 24 bits */
	uint8_t remote_cm_resp_timeout; /* 5 bits */
	uint8_t transport_type;      /* 2 bits, UROCE_CM_TRANSPORT_MAP */
	bool e2e_flow_control;
	uint32_t starting_psn;       /* 24 bits */
	uint8_t local_cm_resp_timeout; /* 5 bits */
	uint8_t retry_count;         /* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;            /* 4 bits, IBA MTU code (1 = 256 ... 5 = 4096) */
	bool rdc_exists;
	uint8_t rnr_retry_count;     /* 3 bits */
	uint8_t max_cm_retries;      /* 4 bits */
	bool srq;
	uint8_t ext_transport;       /* 3 bits */
	struct uroce_cm_path primary;
	struct uroce_cm_path alternate;
	uint8_t private_data[UROCE_CM_REQ_PRIVATE_LEN];
};

/* MRA (IBA 12.6.6). */
struct uroce_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;           /* 2 bits, UROCE_CM_MSG_KIND_MAP */
	uint8_t rsv6;
	uint8_t service_timeout;     /* 5 bits */
	uint8_t rsv3;
	uint8_t private_data[UROCE_CM_MRA_PRIVATE_LEN];
};

/* REJ (IBA 12.6.7). */
struct uroce_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected;        /* 2 bits, UROCE_CM_MSG_KIND_MAP */
	uint8_t rsv6;
	uint8_t reject_info_len;     /* 7 bits: bytes of ARI that are valid */
	uint8_t rsv1;
	uint16_t reason;             /* UROCE_CM_REJ_REASON_MAP */
	uint8_t ari[UROCE_CM_REJ_ARI_LEN];
	uint8_t private_data[UROCE_CM_REJ_PRIVATE_LEN];
};

/* REP (IBA 12.6.8). The reserved bytes after the QPN, EECN and PSN carry a vendor ID in
 * IBA 1.4 (Linux CM_REP_VENDORID_H/M/L); they are kept as they are. */
struct uroce_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;          /* 24 bits */
	uint8_t rsv15;
	uint32_t local_eecn;         /* 24 bits */
	uint8_t rsv19;
	uint32_t starting_psn;       /* 24 bits */
	uint8_t rsv23;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;    /* 5 bits */
	uint8_t failover_accepted;   /* 2 bits */
	bool e2e_flow_control;
	uint8_t rnr_retry_count;     /* 3 bits */
	bool srq;
	uint8_t rsv4;
	uint64_t local_ca_guid;
	uint8_t private_data[UROCE_CM_REP_PRIVATE_LEN];
};

/* RTU (IBA 12.6.9) and DREP (IBA 12.6.11) share this layout. */
struct uroce_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[UROCE_CM_RTU_PRIVATE_LEN];
};

/* DREQ (IBA 12.6.10). */
struct uroce_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn_eecn;    /* 24 bits */
	uint8_t rsv11;
	uint8_t private_data[UROCE_CM_DREQ_PRIVATE_LEN];
};

/* LAP (IBA 12.8.1). The alternate path is packed differently from a REQ path: flow label
 * (20), reserved (4, in alt.rsv6), traffic class (8); hop limit, reserved (2, rsv_rate),
 * packet rate (6), SL (4), subnet local (1), reserved (3), ACK timeout (5), reserved (3). */
struct uroce_cm_lap {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t rsv8;
	uint32_t remote_qpn_eecn;    /* 24 bits */
	uint8_t remote_cm_resp_timeout; /* 5 bits */
	uint8_t rsv15;               /* 3 bits */
	uint32_t rsv16;
	struct uroce_cm_path alt;
	uint8_t rsv_rate;            /* 2 bits */
	uint8_t private_data[UROCE_CM_LAP_PRIVATE_LEN];
};

/* APR (IBA 12.8.2). */
struct uroce_cm_apr {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t add_info_len;
	uint8_t ap_status;           /* UROCE_CM_APR_STATUS_MAP */
	uint16_t rsv10;
	uint8_t add_info[UROCE_CM_APR_INFO_LEN];
	uint8_t private_data[UROCE_CM_APR_PRIVATE_LEN];
};

/* SIDR_REQ (IBA 12.11.1). */
struct uroce_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint16_t rsv6;
	uint64_t service_id;
	uint8_t private_data[UROCE_CM_SIDR_REQ_PRIVATE_LEN];
};

/* SIDR_REP (IBA 12.11.2). */
struct uroce_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;              /* UROCE_CM_SIDR_STATUS_MAP */
	uint8_t add_info_len;
	uint16_t rsv6;
	uint32_t qpn;                /* 24 bits */
	uint8_t rsv11;
	uint64_t service_id;
	uint32_t qkey;
	uint8_t add_info[UROCE_CM_SIDR_REP_INFO_LEN]; /* ClassPortInfo on redirect */
	uint8_t private_data[UROCE_CM_SIDR_REP_PRIVATE_LEN];
};

/* One CM message: `attr` (enum uroce_cm_attr) says which member is valid; DREP uses `rtu`. */
struct uroce_cm_msg {
	uint16_t attr;
	union {
		struct uroce_cm_req req;
		struct uroce_cm_mra mra;
		struct uroce_cm_rej rej;
		struct uroce_cm_rep rep;
		struct uroce_cm_rtu rtu;
		struct uroce_cm_rtu drep;
		struct uroce_cm_dreq dreq;
		struct uroce_cm_lap lap;
		struct uroce_cm_apr apr;
		struct uroce_cm_sidr_req sidr_req;
		struct uroce_cm_sidr_rep sidr_rep;
	};
};

/* RDMA IP CM Service (IBTA Annex A11): ServiceID = 0x0000000001 (40 bits), protocol (8 bits),
 * port (16 bits); the REQ private data then starts with the IP-CM header below. */
#define UROCE_CM_IPCM_SID_PREFIX 0x0000000001ull
#define UROCE_CM_IPCM_LEN 36          /* the IP-CM header, before the consumer private data */
#define UROCE_CM_IPCM_CONSUMER_LEN 56 /* the rest of the 92-byte REQ private data */

static inline bool uroce_cm_sid_is_ipcm(uint64_t sid)
{
	return sid >> 24 == UROCE_CM_IPCM_SID_PREFIX;
}
static inline uint8_t uroce_cm_sid_protocol(uint64_t sid) { return (uint8_t)(sid >> 16); }
static inline uint16_t uroce_cm_sid_port(uint64_t sid) { return (uint16_t)sid; }
static inline uint64_t uroce_cm_ipcm_sid(uint8_t protocol, uint16_t port)
{
	return UROCE_CM_IPCM_SID_PREFIX << 24 | (uint64_t)protocol << 16 | port;
}

struct uroce_cm_ipcm {
	uint8_t major;     /* 4 bits */
	uint8_t minor;     /* 4 bits */
	uint8_t ip_version; /* 4 bits: 4 or 6 */
	uint8_t rsv4;      /* 4 bits */
	uint16_t src_port;
	uint8_t src_ip[16]; /* IPv4: the address in the last 4 bytes, the first 12 zero */
	uint8_t dst_ip[16];
	uint8_t consumer[UROCE_CM_IPCM_CONSUMER_LEN];
};

/* Each takes the 232 bytes of MAD data; UROCE_ETRUNC when len is shorter. */
ssize_t uroce_cm_req_decode(struct uroce_cm_req *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_req_encode(const struct uroce_cm_req *in, uint8_t *p, size_t len);
ssize_t uroce_cm_mra_decode(struct uroce_cm_mra *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_mra_encode(const struct uroce_cm_mra *in, uint8_t *p, size_t len);
ssize_t uroce_cm_rej_decode(struct uroce_cm_rej *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_rej_encode(const struct uroce_cm_rej *in, uint8_t *p, size_t len);
ssize_t uroce_cm_rep_decode(struct uroce_cm_rep *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_rep_encode(const struct uroce_cm_rep *in, uint8_t *p, size_t len);
/* RTU and DREP. */
ssize_t uroce_cm_rtu_decode(struct uroce_cm_rtu *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_rtu_encode(const struct uroce_cm_rtu *in, uint8_t *p, size_t len);
ssize_t uroce_cm_dreq_decode(struct uroce_cm_dreq *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_dreq_encode(const struct uroce_cm_dreq *in, uint8_t *p, size_t len);
ssize_t uroce_cm_lap_decode(struct uroce_cm_lap *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_lap_encode(const struct uroce_cm_lap *in, uint8_t *p, size_t len);
ssize_t uroce_cm_apr_decode(struct uroce_cm_apr *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_apr_encode(const struct uroce_cm_apr *in, uint8_t *p, size_t len);
ssize_t uroce_cm_sidr_req_decode(struct uroce_cm_sidr_req *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_sidr_req_encode(const struct uroce_cm_sidr_req *in, uint8_t *p, size_t len);
ssize_t uroce_cm_sidr_rep_decode(struct uroce_cm_sidr_rep *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_sidr_rep_encode(const struct uroce_cm_sidr_rep *in, uint8_t *p, size_t len);

/* Decodes the message named by `attr`: UROCE_EINVAL when attr is not a CM message (ClassPortInfo
 * or an unknown attribute), UROCE_ETRUNC when len < UROCE_CM_DATA_LEN. */
ssize_t uroce_cm_decode(struct uroce_cm_msg *out, uint16_t attr, const uint8_t *p, size_t len);
/* Encodes in->attr's message: UROCE_EINVAL or UROCE_ENOSPACE. */
ssize_t uroce_cm_encode(const struct uroce_cm_msg *in, uint8_t *p, size_t len);

/* The IP-CM header and consumer data from a REQ's 92 bytes of private data (UROCE_ETRUNC). */
ssize_t uroce_cm_ipcm_decode(struct uroce_cm_ipcm *out, const uint8_t *p, size_t len);
ssize_t uroce_cm_ipcm_encode(const struct uroce_cm_ipcm *in, uint8_t *p, size_t len);

/* "REQ", "SIDR_REP", ... or NULL for a non-message attribute. */
const char *uroce_cm_msg_name(uint16_t attr);
/* "ConnectRequest", ... (IBA attribute names, also for ClassPortInfo) or NULL. */
const char *uroce_cm_attr_name(uint16_t attr);
/* REJ reason text, or NULL for an unassigned code. */
const char *uroce_cm_rej_reason_name(uint16_t reason);
const char *uroce_cm_msg_kind_name(uint8_t kind);
const char *uroce_cm_apr_status_name(uint8_t status);
const char *uroce_cm_sidr_status_name(uint8_t status);
const char *uroce_cm_transport_name(uint8_t type);

#endif

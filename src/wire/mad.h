/* SPDX-License-Identifier: MIT */
/* Management datagrams (IBA Vol. 1 chapter 13.4): the 256-byte MAD that a UD packet carries to
 * QP0 (subnet management) or QP1 (general services), with the layers this project decodes:
 * the common MAD header (13.4.3), subnet management packets, LID-routed and directed-route
 * (14.2.1), the SMInfo attribute (14.2.5.13), RMPP (13.6.2), the SA header (15.2.1) with its
 * PathRecord attribute (15.2.5.16), and the CM messages of cm.h (12.6).
 * Decoders follow the wire contract: `ssize_t decode(out, p, len)` returns the bytes consumed
 * or a negative UROCE_E* code and never reads past p + len; encoders return the bytes written
 * or UROCE_ENOSPACE. Reserved fields are kept so that decode/encode round trips are
 * byte-exact. Names come from the X-macro lists below (IBA names; Wireshark's
 * packet-infiniband.c uses the same ones). */
#ifndef UROCE_WIRE_MAD_H
#define UROCE_WIRE_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cm.h"

#define UROCE_MAD_LEN 256
#define UROCE_MAD_HDR_LEN 24
#define UROCE_MAD_DATA_LEN 232       /* after the common header */
#define UROCE_MAD_BASE_VERSION 1
#define UROCE_QP0 0                  /* SMI: subnet management */
#define UROCE_QP1 1                  /* GSI: every other class */
#define UROCE_GSI_QKEY 0x80010000u   /* IBA 13.5.1.1: the well-known Q_Key of QP1 */

/* Management classes (IBA 13.4.4, management class table; Linux include/rdma/ib_mad.h for
 * the assigned application classes): X(ID, value, name). The ranges are named by
 * uroce_mad_class_name(). */
#define UROCE_MAD_CLASS_MAP(X)                         \
	X(SUBN_LID, 0x01, "SubnMgmt")                  \
	X(SUBN_ADM, 0x03, "SubnAdm")                   \
	X(PERF, 0x04, "Perf")                          \
	X(BM, 0x05, "BM")                              \
	X(DEV_MGT, 0x06, "DevMgt")                     \
	X(CM, 0x07, "CM")                              \
	X(SNMP, 0x08, "SNMP")                          \
	X(DEV_ADM, 0x10, "DevAdm")                     \
	X(BOOT_MGT, 0x11, "BootMgt")                   \
	X(BIS, 0x12, "BIS")                            \
	X(CONG_CTRL, 0x21, "CongCtrl")                 \
	X(SUBN_DR, 0x81, "SubnMgmt (directed route)")

enum uroce_mad_class {
#define UROCE_MAD_CLASS_ENUM(id, v, n) UROCE_MAD_CLASS_##id = v,
	UROCE_MAD_CLASS_MAP(UROCE_MAD_CLASS_ENUM)
#undef UROCE_MAD_CLASS_ENUM
};

#define UROCE_MAD_CLASS_VENDOR1_FIRST 0x09 /* vendor specific, range 1 */
#define UROCE_MAD_CLASS_VENDOR1_LAST 0x0F
#define UROCE_MAD_CLASS_APP_FIRST 0x10     /* application specific */
#define UROCE_MAD_CLASS_APP_LAST 0x2F
#define UROCE_MAD_CLASS_VENDOR2_FIRST 0x30 /* vendor specific with OUI, range 2 */
#define UROCE_MAD_CLASS_VENDOR2_LAST 0x4F

/* Methods as the whole Method byte, R bit included (IBA 13.4.5, method table; 15.2.2 for the
 * SA-only methods). */
#define UROCE_MAD_METHOD_MAP(X)                           \
	X(GET, 0x01, "Get")                               \
	X(SET, 0x02, "Set")                               \
	X(SEND, 0x03, "Send")                             \
	X(TRAP, 0x05, "Trap")                             \
	X(REPORT, 0x06, "Report")                         \
	X(TRAP_REPRESS, 0x07, "TrapRepress")              \
	X(GET_TABLE, 0x12, "GetTable")                    \
	X(GET_TRACE_TABLE, 0x13, "GetTraceTable")         \
	X(GET_MULTI, 0x14, "GetMulti")                    \
	X(DELETE, 0x15, "Delete")                         \
	X(GET_RESP, 0x81, "GetResp")                      \
	X(REPORT_RESP, 0x86, "ReportResp")                \
	X(GET_TABLE_RESP, 0x92, "GetTableResp")           \
	X(GET_MULTI_RESP, 0x94, "GetMultiResp")           \
	X(DELETE_RESP, 0x95, "DeleteResp")

enum uroce_mad_method {
#define UROCE_MAD_METHOD_ENUM(id, v, n) UROCE_MAD_METHOD_##id = v,
	UROCE_MAD_METHOD_MAP(UROCE_MAD_METHOD_ENUM)
#undef UROCE_MAD_METHOD_ENUM
};

#define UROCE_MAD_METHOD_RESP 0x80 /* the R bit */

/* Status bits 4..2, the invalid-field code (IBA 13.4.7, MAD status table). Bit 0 is "busy",
 * bit 1 "redirect required", bits 14..8 class specific, bit 15 the D bit of a directed-route
 * SMP. */
#define UROCE_MAD_STATUS_CODE_MAP(X)                                           \
	X(OK, 0, "no invalid fields")                                          \
	X(BAD_VERSION, 1, "bad version or class version")                      \
	X(METHOD_UNSUPPORTED, 2, "method not supported")                       \
	X(METHOD_ATTR_UNSUPPORTED, 3, "method/attribute combination not supported") \
	X(INVALID_VALUE, 7, "invalid value in attribute or modifier")

/* SA class-specific status, bits 15..8 (IBA 15.2.1.1, SA MAD status table). */
#define UROCE_SA_STATUS_MAP(X)                                           \
	X(NO_RESOURCES, 1, "ERR_NO_RESOURCES")                           \
	X(REQ_INVALID, 2, "ERR_REQ_INVALID")                             \
	X(NO_RECORDS, 3, "ERR_NO_RECORDS")                               \
	X(TOO_MANY_RECORDS, 4, "ERR_TOO_MANY_RECORDS")                   \
	X(REQ_INVALID_GID, 5, "ERR_REQ_INVALID_GID")                     \
	X(REQ_INSUFFICIENT_COMPONENTS, 6, "ERR_REQ_INSUFFICIENT_COMPONENTS") \
	X(REQ_DENIED, 7, "ERR_REQ_DENIED")

/* Attributes every class may use (IBA 13.4.8). */
#define UROCE_MAD_COMMON_ATTR_MAP(X)                \
	X(CLASS_PORT_INFO, 0x0001, "ClassPortInfo") \
	X(NOTICE, 0x0002, "Notice")                 \
	X(INFORM_INFO, 0x0003, "InformInfo")

/* Subnet management attributes (IBA 14.2.5, SMP attribute table; LinkSpeedWidthPairsTable as
 * Wireshark names 0x001C). */
#define UROCE_SMP_ATTR_MAP(X)                                          \
	X(NODE_DESCRIPTION, 0x0010, "NodeDescription")                 \
	X(NODE_INFO, 0x0011, "NodeInfo")                               \
	X(SWITCH_INFO, 0x0012, "SwitchInfo")                           \
	X(GUID_INFO, 0x0014, "GUIDInfo")                               \
	X(PORT_INFO, 0x0015, "PortInfo")                               \
	X(P_KEY_TABLE, 0x0016, "P_KeyTable")                           \
	X(SL_TO_VL_TABLE, 0x0017, "SLtoVLMappingTable")                \
	X(VL_ARB_TABLE, 0x0018, "VLArbitrationTable")                  \
	X(LINEAR_FWD_TABLE, 0x0019, "LinearForwardingTable")           \
	X(RANDOM_FWD_TABLE, 0x001A, "RandomForwardingTable")           \
	X(MCAST_FWD_TABLE, 0x001B, "MulticastForwardingTable")         \
	X(LINK_SPEED_WIDTH_TABLE, 0x001C, "LinkSpeedWidthPairsTable")  \
	X(SM_INFO, 0x0020, "SMInfo")                                   \
	X(VENDOR_DIAG, 0x0030, "VendorDiag")                           \
	X(LED_INFO, 0x0031, "LedInfo")

/* Subnet administration attributes (IBA 15.2.5, SA attribute table). */
#define UROCE_SA_ATTR_MAP(X)                                                      \
	X(NODE_RECORD, 0x0011, "NodeRecord")                                      \
	X(PORT_INFO_RECORD, 0x0012, "PortInfoRecord")                             \
	X(SL_TO_VL_TABLE_RECORD, 0x0013, "SLtoVLMappingTableRecord")              \
	X(SWITCH_INFO_RECORD, 0x0014, "SwitchInfoRecord")                         \
	X(LINEAR_FWD_TABLE_RECORD, 0x0015, "LinearForwardingTableRecord")         \
	X(RANDOM_FWD_TABLE_RECORD, 0x0016, "RandomForwardingTableRecord")         \
	X(MCAST_FWD_TABLE_RECORD, 0x0017, "MulticastForwardingTableRecord")       \
	X(SM_INFO_RECORD, 0x0018, "SMInfoRecord")                                 \
	X(LINK_SPEED_WIDTH_TABLE_RECORD, 0x0019, "LinkSpeedWidthPairsTableRecord") \
	X(LINK_RECORD, 0x0020, "LinkRecord")                                      \
	X(GUID_INFO_RECORD, 0x0030, "GuidInfoRecord")                             \
	X(SERVICE_RECORD, 0x0031, "ServiceRecord")                                \
	X(P_KEY_TABLE_RECORD, 0x0033, "P_KeyTableRecord")                         \
	X(PATH_RECORD, 0x0035, "PathRecord")                                      \
	X(VL_ARB_TABLE_RECORD, 0x0036, "VLArbitrationTableRecord")                \
	X(MCMEMBER_RECORD, 0x0038, "MCMemberRecord")                              \
	X(TRACE_RECORD, 0x0039, "TraceRecord")                                    \
	X(MULTI_PATH_RECORD, 0x003A, "MultiPathRecord")                           \
	X(SERVICE_ASSOC_RECORD, 0x003B, "ServiceAssociationRecord")               \
	X(INFORM_INFO_RECORD, 0x00F3, "InformInfoRecord")

/* Performance management attributes (IBA 16.1.3, PMA attribute table). */
#define UROCE_PERF_ATTR_MAP(X)                                                \
	X(PORT_SAMPLES_CONTROL, 0x0010, "PortSamplesControl")                 \
	X(PORT_SAMPLES_RESULT, 0x0011, "PortSamplesResult")                   \
	X(PORT_COUNTERS, 0x0012, "PortCounters")                              \
	X(PORT_RCV_ERROR_DETAILS, 0x0015, "PortRcvErrorDetails")              \
	X(PORT_XMIT_DISCARD_DETAILS, 0x0016, "PortXmitDiscardDetails")        \
	X(PORT_OP_RCV_COUNTERS, 0x0017, "PortOpRcvCounters")                  \
	X(PORT_FLOW_CTL_COUNTERS, 0x0018, "PortFlowCtlCounters")              \
	X(PORT_VL_OP_PACKETS, 0x0019, "PortVLOpPackets")                      \
	X(PORT_VL_OP_DATA, 0x001A, "PortVLOpData")                            \
	X(PORT_VL_XMIT_FLOW_CTL_ERRORS, 0x001B, "PortVLXmitFlowCtlUpdateErrors") \
	X(PORT_VL_XMIT_WAIT_COUNTERS, 0x001C, "PortVLXmitWaitCounters")       \
	X(PORT_COUNTERS_EXT, 0x001D, "PortCountersExtended")                  \
	X(PORT_SAMPLES_RESULT_EXT, 0x001E, "PortSamplesResultExtended")       \
	X(SW_PORT_VL_CONGESTION, 0x0030, "SwPortVLCongestion")

/* Device management attributes (IBA 16.3.3, DM attribute table). */
#define UROCE_DM_ATTR_MAP(X)                                    \
	X(IO_UNIT_INFO, 0x0010, "IOUnitInfo")                   \
	X(IO_CONTROLLER_PROFILE, 0x0011, "IOControllerProfile") \
	X(SERVICE_ENTRIES, 0x0012, "ServiceEntries")            \
	X(DIAGNOSTIC_TIMEOUT, 0x0020, "DiagnosticTimeout")      \
	X(PREPARE_TO_TEST, 0x0021, "PrepareToTest")             \
	X(TEST_DEVICE_ONCE, 0x0022, "TestDeviceOnce")           \
	X(TEST_DEVICE_LOOP, 0x0023, "TestDeviceLoop")           \
	X(DIAG_CODE, 0x0024, "DiagCode")

enum uroce_mad_attr {
#define UROCE_MAD_ATTR_ENUM(id, v, n) UROCE_MAD_ATTR_##id = v,
	UROCE_MAD_COMMON_ATTR_MAP(UROCE_MAD_ATTR_ENUM)
#undef UROCE_MAD_ATTR_ENUM
#define UROCE_SMP_ATTR_ENUM(id, v, n) UROCE_SMP_ATTR_##id = v,
	UROCE_SMP_ATTR_MAP(UROCE_SMP_ATTR_ENUM)
#undef UROCE_SMP_ATTR_ENUM
#define UROCE_SA_ATTR_ENUM(id, v, n) UROCE_SA_ATTR_##id = v,
	UROCE_SA_ATTR_MAP(UROCE_SA_ATTR_ENUM)
#undef UROCE_SA_ATTR_ENUM
#define UROCE_PERF_ATTR_ENUM(id, v, n) UROCE_PERF_ATTR_##id = v,
	UROCE_PERF_ATTR_MAP(UROCE_PERF_ATTR_ENUM)
#undef UROCE_PERF_ATTR_ENUM
#define UROCE_DM_ATTR_ENUM(id, v, n) UROCE_DM_ATTR_##id = v,
	UROCE_DM_ATTR_MAP(UROCE_DM_ATTR_ENUM)
#undef UROCE_DM_ATTR_ENUM
};

#define UROCE_MAD_ATTR_VENDOR_FIRST 0xFF00 /* vendor-specific attributes of any class */

/* RMPP (IBA 13.6.2.1). */
#define UROCE_RMPP_TYPE_MAP(X)   \
	X(NONE, 0, "not RMPP")   \
	X(DATA, 1, "DATA")       \
	X(ACK, 2, "ACK")         \
	X(STOP, 3, "STOP")       \
	X(ABORT, 4, "ABORT")

enum uroce_rmpp_type {
#define UROCE_RMPP_TYPE_ENUM(id, v, n) UROCE_RMPP_TYPE_##id = v,
	UROCE_RMPP_TYPE_MAP(UROCE_RMPP_TYPE_ENUM)
#undef UROCE_RMPP_TYPE_ENUM
};

enum uroce_rmpp_flag {
	UROCE_RMPP_FLAG_ACTIVE = 1u << 0,
	UROCE_RMPP_FLAG_FIRST = 1u << 1,
	UROCE_RMPP_FLAG_LAST = 1u << 2,
};

#define UROCE_RMPP_STATUS_MAP(X)                                            \
	X(NORMAL, 0, "Normal")                                              \
	X(RESX, 1, "Resources Exhausted")                                   \
	X(T2L, 118, "Total Time Too Long")                                  \
	X(BAD_LEN, 119, "Inconsistent Last and PayloadLength")              \
	X(BAD_SEG, 120, "Inconsistent First and Segment Number")            \
	X(BADT, 121, "Bad RMPPType")                                        \
	X(W2S, 122, "NewWindowLast Too Small")                              \
	X(S2B, 123, "SegmentNumber Too Big")                                \
	X(ILLEGAL_STATUS, 124, "Illegal Status")                            \
	X(UNSUPPORTED_VERSION, 125, "Unsupported Version")                  \
	X(TOO_MANY_RETRIES, 126, "Too Many Retries")                        \
	X(UNSPECIFIED, 127, "Unspecified")

/* SMInfo.SMState (IBA 14.2.5.13; SM states of 14.4.1). */
#define UROCE_SM_STATE_MAP(X)       \
	X(NOT_ACTIVE, 0, "Not Active") \
	X(DISCOVERING, 1, "Discovering") \
	X(STANDBY, 2, "Standby")       \
	X(MASTER, 3, "Master")

/* PathRecord/REQ MTU codes and the selectors of PathRecord (IBA 15.2.5.16). */
#define UROCE_IB_MTU_MAP(X) \
	X(256, 1)           \
	X(512, 2)           \
	X(1024, 3)          \
	X(2048, 4)          \
	X(4096, 5)

#define UROCE_SA_SELECTOR_MAP(X)          \
	X(GREATER, 0, "greater than")     \
	X(LESS, 1, "less than")           \
	X(EXACT, 2, "exactly")            \
	X(BEST, 3, "largest available")

/* The common MAD header (IBA 13.4.3), 24 bytes. */
struct uroce_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	bool r;             /* response bit, Method bit 7 */
	uint8_t method;     /* 7 bits */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint16_t rsv;
	uint32_t attr_mod;
};

static inline uint8_t uroce_mad_method_byte(const struct uroce_mad_hdr *h)
{
	return (uint8_t)(h->r << 7 | (h->method & 0x7F));
}

/* A LID-routed SMP (IBA 14.2.1.1): after the common header. */
struct uroce_smp_lid {
	uint64_t mkey;
	uint8_t rsv32[32];
	uint8_t data[64];
	uint8_t rsv128[128];
};

/* A directed-route SMP (IBA 14.2.1.2). D and Status share the header's Status field; Hop
 * Pointer and Hop Count are its ClassSpecific field. */
struct uroce_smp_dr {
	bool d;             /* direction: 1 on the return path */
	uint16_t status;    /* 15 bits */
	uint8_t hop_ptr;
	uint8_t hop_cnt;
	uint64_t mkey;
	uint16_t dr_slid;
	uint16_t dr_dlid;
	uint8_t rsv28[28];
	uint8_t data[64];
	uint8_t initial_path[64];
	uint8_t return_path[64];
};

/* SMInfo (IBA 14.2.5.13): the first 21 of the attribute's 64 bytes. */
#define UROCE_SMINFO_LEN 21
struct uroce_sminfo {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority;   /* 4 bits */
	uint8_t sm_state;   /* 4 bits, UROCE_SM_STATE_MAP */
};

/* The RMPP header (IBA 13.6.2.1), 12 bytes after the common header. Data1/Data2 are
 * SegmentNumber/PayloadLength in DATA, SegmentNumber/NewWindowLast in ACK. */
#define UROCE_RMPP_HDR_LEN 12
struct uroce_rmpp {
	uint8_t version;
	uint8_t type;       /* enum uroce_rmpp_type */
	uint8_t resp_time;  /* 5 bits */
	uint8_t flags;      /* 3 bits, enum uroce_rmpp_flag */
	uint8_t status;     /* UROCE_RMPP_STATUS_MAP */
	uint32_t data1;
	uint32_t data2;
};

/* The SA header (IBA 15.2.1.1): RMPP, SM_Key, AttributeOffset (in 8-byte words: the distance
 * between records of a table), ComponentMask, then 200 bytes of SA data. */
#define UROCE_SA_DATA_LEN 200
struct uroce_sa {
	struct uroce_rmpp rmpp;
	uint64_t sm_key;
	uint16_t attr_offset;
	uint16_t rsv;
	uint64_t comp_mask;
	uint8_t data[UROCE_SA_DATA_LEN];
};

/* PathRecord (IBA 15.2.5.16), 64 bytes. Bytes 0..7 were reserved before IBA 1.2 (and are
 * still "Reserved" in Wireshark); IBA 1.2 made them the ServiceID. */
#define UROCE_PATHREC_LEN 64
struct uroce_pathrec {
	uint64_t service_id;
	uint8_t dgid[16];
	uint8_t sgid[16];
	uint16_t dlid;
	uint16_t slid;
	bool raw_traffic;
	uint8_t rsv3;       /* 3 bits */
	uint32_t flow_label; /* 20 bits */
	uint8_t hop_limit;
	uint8_t tclass;
	bool reversible;
	uint8_t numb_path;  /* 7 bits */
	uint16_t pkey;
	uint16_t qos_class; /* 12 bits */
	uint8_t sl;         /* 4 bits */
	uint8_t mtu_selector; /* 2 bits, UROCE_SA_SELECTOR_MAP */
	uint8_t mtu;        /* 6 bits, UROCE_IB_MTU_MAP code */
	uint8_t rate_selector;
	uint8_t rate;       /* 6 bits, IBA static rate code */
	uint8_t plt_selector;
	uint8_t plt;        /* 6 bits: 4.096 us x 2^plt */
	uint8_t preference;
	uint8_t rsv58[6];
};

/* What uroce_mgmt_decode found, as bits of uroce_mgmt.present. */
enum uroce_mgmt_part {
	UROCE_MGMT_SMP_LID = 1u << 0,  /* class 0x01 */
	UROCE_MGMT_SMP_DR = 1u << 1,   /* class 0x81 */
	UROCE_MGMT_SMINFO = 1u << 2,   /* SMInfo: an SMP's attribute or an SA SMInfoRecord's */
	UROCE_MGMT_SA = 1u << 3,       /* class 0x03: RMPP + SA header */
	UROCE_MGMT_PATHREC = 1u << 4,  /* the first PathRecord of an SA MAD */
	UROCE_MGMT_CM = 1u << 5,       /* class 0x07 with a CM message attribute */
	UROCE_MGMT_IPCM = 1u << 6,     /* a CM REQ whose ServiceID is an IP-CM one */
};

/* The complete decode of one MAD. `raw` is a copy of the 256 bytes (for fields shown as
 * bytes); the members named by `present` are valid, `hdr` always is. */
struct uroce_mgmt {
	uint32_t present;   /* enum uroce_mgmt_part set */
	uint8_t raw[UROCE_MAD_LEN];
	struct uroce_mad_hdr hdr;
	struct uroce_smp_lid smp_lid;
	struct uroce_smp_dr smp_dr;
	struct uroce_sminfo sminfo;
	struct uroce_sa sa;
	struct uroce_pathrec pathrec;
	struct uroce_cm_msg cm;
	struct uroce_cm_ipcm ipcm;
};

/* The common header: UROCE_ETRUNC below 24 bytes. */
ssize_t uroce_mad_hdr_decode(struct uroce_mad_hdr *out, const uint8_t *p, size_t len);
ssize_t uroce_mad_hdr_encode(const struct uroce_mad_hdr *in, uint8_t *p, size_t len);

/* SMPs take and write the whole 256-byte MAD (a directed-route SMP keeps fields in the common
 * header): UROCE_ETRUNC / UROCE_ENOSPACE below 256 bytes. The DR encoder writes hdr with its
 * Status and ClassSpecific replaced by in's D, status, hop pointer and hop count. */
ssize_t uroce_smp_lid_decode(struct uroce_smp_lid *out, const uint8_t *mad, size_t len);
ssize_t uroce_smp_lid_encode(const struct uroce_mad_hdr *hdr, const struct uroce_smp_lid *in,
			     uint8_t *mad, size_t len);
ssize_t uroce_smp_dr_decode(struct uroce_smp_dr *out, const uint8_t *mad, size_t len);
ssize_t uroce_smp_dr_encode(const struct uroce_mad_hdr *hdr, const struct uroce_smp_dr *in,
			    uint8_t *mad, size_t len);

/* SMInfo from the SMP data: UROCE_ETRUNC below 21 bytes. */
ssize_t uroce_sminfo_decode(struct uroce_sminfo *out, const uint8_t *p, size_t len);
ssize_t uroce_sminfo_encode(const struct uroce_sminfo *in, uint8_t *p, size_t len);

ssize_t uroce_rmpp_decode(struct uroce_rmpp *out, const uint8_t *p, size_t len);
ssize_t uroce_rmpp_encode(const struct uroce_rmpp *in, uint8_t *p, size_t len);
/* The SA header and data from the 232 bytes after the common header (UROCE_ETRUNC). */
ssize_t uroce_sa_decode(struct uroce_sa *out, const uint8_t *p, size_t len);
ssize_t uroce_sa_encode(const struct uroce_sa *in, uint8_t *p, size_t len);
ssize_t uroce_pathrec_decode(struct uroce_pathrec *out, const uint8_t *p, size_t len);
ssize_t uroce_pathrec_encode(const struct uroce_pathrec *in, uint8_t *p, size_t len);

/* Decodes one MAD (p: the 256 bytes after the BTH+DETH of a UD packet to QP0/QP1): the common
 * header, then by management class the SMP (+SMInfo), SA (+PathRecord, +SMInfoRecord's
 * SMInfo) or CM message (+IP-CM private data). Returns UROCE_MAD_LEN, or UROCE_ETRUNC when
 * len < 256 (a MAD is never shorter). Other classes and unknown attributes leave only the
 * header present. */
ssize_t uroce_mgmt_decode(struct uroce_mgmt *out, const uint8_t *p, size_t len);

/* Names, or NULL for an unassigned value. The class name covers the vendor and application
 * ranges ("Vendor (range 1)", ...). */
const char *uroce_mad_class_name(uint8_t mgmt_class);
/* method: the whole Method byte (R bit included). */
const char *uroce_mad_method_name(uint8_t method);
/* The attribute's name within its class (the common attributes included); vendor-specific
 * attributes (0xFF00..) are "VendorSpecific". */
const char *uroce_mad_attr_name(uint8_t mgmt_class, uint16_t attr);
/* "busy, redirect, method not supported, class status 0x03 (ERR_NO_RECORDS)"; "OK" for 0.
 * Writes into buf and returns it. */
const char *uroce_mad_status_describe(uint8_t mgmt_class, uint16_t status, char *buf, size_t len);
const char *uroce_rmpp_type_name(uint8_t type);
const char *uroce_rmpp_status_name(uint8_t status);
const char *uroce_sm_state_name(uint8_t state);
const char *uroce_sa_selector_name(uint8_t sel);
/* MTU code to bytes (0 for an invalid code). */
unsigned uroce_ib_mtu_bytes(uint8_t code);

#endif

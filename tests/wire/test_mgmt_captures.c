/* SPDX-License-Identifier: MIT */
/* The management and IPoIB decoders against real captures (../shared/testdata/captures):
 * native InfiniBand (ib-native-erf.pcap: directed-route SMPs with SMInfo, SA PathRecord with
 * RMPP, CM REQ/REP/RTU, IPoIB ARP/IPv4/IPv6) and Linux rxe RoCEv2 (CM with IP-CM private
 * data, DREQ/DREP). The MAD and the IPoIB header are located by fixed offsets from the
 * headers (LRH [+GRH] + BTH [+DETH], or Ethernet + IPv4 + UDP + BTH + DETH), independently of
 * the frame dissector. Every decoded value is compared with tshark 4.0's; each located
 * payload is also decoded at every shorter length from an exactly sized heap copy, so that
 * ASan sees any read past the end.
 *
 * The tables below were generated once with tshark 4.0.17, e.g.
 *   tshark -r FILE -Y infiniband.mad -T fields -E separator='|' -E occurrence=f \
 *          -e frame.number -e infiniband.mad.mgmtclass ... -e infiniband.mad.attributemodifier
 *   tshark -r FILE -Y infiniband.cm.req -T fields ... -e infiniband.cm.req.localqpn ...
 * (one command per table, over the field names of each struct, in order), with GIDs and IP
 * addresses turned into bytes. Where tshark shows a value other than the wire field (the REQ
 * flow label and packet rate), the table holds tshark's value and the test derives it. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/ipoib.h"
#include "wire/mad.h"

struct exp_mad {
	const char *file;
	unsigned frame;
	uint8_t mgmt_class, class_version, method;
	uint16_t status, class_specific;
	uint64_t tid;
	uint16_t attr;
	uint32_t attr_mod;
};

struct exp_smp {
	const char *file;
	unsigned frame;
	uint16_t smpstatus; /* D bit included, as tshark shows it */
	uint8_t hop_ptr, hop_cnt;
	uint64_t mkey;
	uint16_t dr_slid, dr_dlid;
	uint64_t guid, sm_key;
	uint32_t act_count;
	uint8_t priority, sm_state;
	uint32_t initial_path4, return_path4; /* the first 4 bytes of each path */
};

struct exp_sa {
	const char *file;
	unsigned frame;
	uint8_t rmpp_version, rmpp_type, rmpp_status;
	uint32_t data1, data2;
	uint64_t sm_key;
	uint16_t attr_offset;
	uint64_t comp_mask;
	uint16_t dlid, slid;
	uint8_t raw_traffic;
	uint32_t flow_label;
	uint8_t hop_limit, tclass, reversible, numb_path;
	uint16_t pkey, sl;
	uint8_t mtu_sel, mtu, rate_sel, rate, plt_sel, plt, preference;
	uint8_t dgid[16], sgid[16];
};

struct exp_req {
	const char *file;
	unsigned frame;
	uint32_t local_comm_id;
	uint64_t service_id, local_ca_guid;
	uint32_t local_qkey, local_qpn;
	uint8_t responder_resources;
	uint32_t local_eecn;
	uint8_t initiator_depth;
	uint32_t remote_eecn;
	uint8_t remote_cm_resp_timeout, transport_type, e2e;
	uint32_t starting_psn;
	uint8_t local_cm_resp_timeout, retry_count;
	uint16_t pkey;
	uint8_t path_mtu, rdc_exists, rnr_retry_count, max_cm_retries, srq, ext_transport;
	uint16_t p_llid, p_rlid;
	uint8_t p_tclass, p_hop, p_sl, p_subnet_local, p_ack;
	uint16_t a_llid, a_rlid;
	uint8_t a_tclass, a_hop, a_sl, a_subnet_local, a_ack;
	uint32_t ts_flow_label, ts_packet_rate; /* tshark's (see check_req) */
	int ipv4;                               /* tshark showed the GIDs as IPv4 addresses */
	uint8_t p_lgid[16], p_rgid[16];
	int has_ipcm;
	uint8_t major, minor, ipv;
	uint16_t sport;
	uint8_t sip4[4], dip4[4];
	uint8_t sid_protocol;
	uint16_t sid_port;
};

struct exp_rep {
	const char *file;
	unsigned frame;
	uint32_t local_comm_id, remote_comm_id, local_qkey, local_qpn, local_eecn, starting_psn;
	uint8_t responder_resources, initiator_depth, target_ack_delay, failover, e2e, rnr_retry;
	uint8_t srq, rsv;
	uint64_t local_ca_guid;
};

/* RTU, DREQ, DREP. */
struct exp_cm_short {
	const char *file;
	unsigned frame;
	uint16_t attr;
	uint32_t local_comm_id, remote_comm_id, remote_qpn;
};

struct exp_ipoib {
	const char *file;
	unsigned frame;
	uint16_t ethertype;
};

struct exp_hw {
	uint8_t flags;
	uint32_t qpn;
	uint8_t gid[16];
};

struct exp_arp {
	const char *file;
	unsigned frame;
	uint16_t htype, ptype;
	uint8_t hlen, plen;
	uint16_t op;
	struct exp_hw sha;
	uint8_t spa[4];
	struct exp_hw tha;
	uint8_t tpa[4];
};

static const struct exp_mad exp_mads[] = {
	{"ib-native-erf.pcap", 1, 0x81, 0x01, 0x01, 0x0000, 0x0102, 0x0001509c000125c8, 0x0020,
	 0x00000000},
	{"ib-native-erf.pcap", 2, 0x81, 0x01, 0x81, 0x8000, 0x0102, 0x0001509c000125c8, 0x0020,
	 0x00000000},
	{"ib-native-erf.pcap", 7, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000010278648e9, 0x0010,
	 0x00000000},
	{"ib-native-erf.pcap", 8, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000010278648e9, 0x0013,
	 0x00000000},
	{"ib-native-erf.pcap", 9, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000010278648e9, 0x0014,
	 0x00000000},
	{"ib-native-erf.pcap", 12, 0x81, 0x01, 0x01, 0x0000, 0x0102, 0x0001509c000125c9, 0x0020,
	 0x00000000},
	{"ib-native-erf.pcap", 13, 0x81, 0x01, 0x81, 0x8000, 0x0102, 0x0001509c000125c9, 0x0020,
	 0x00000000},
	{"ib-native-erf.pcap", 27, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000bbf9ed13f, 0x0010,
	 0x00000000},
	{"ib-native-erf.pcap", 28, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000bbf9ed13f, 0x0013,
	 0x00000000},
	{"ib-native-erf.pcap", 29, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000bbf9ed13f, 0x0014,
	 0x00000000},
	{"ib-native-erf.pcap", 32, 0x03, 0x02, 0x01, 0x0000, 0x0000, 0x0000000bb9647f9e, 0x0035,
	 0x00000000},
	{"ib-native-erf.pcap", 33, 0x03, 0x02, 0x81, 0x0000, 0x0000, 0x0000000bb9647f9e, 0x0035,
	 0x00000000},
	{"ib-native-erf.pcap", 34, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000010278648eb, 0x0010,
	 0x00000000},
	{"ib-native-erf.pcap", 35, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000010278648eb, 0x0013,
	 0x00000000},
	{"ib-native-erf.pcap", 37, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000010278648eb, 0x0014,
	 0x00000000},
	{"ib-native-erf.pcap", 41, 0x81, 0x01, 0x01, 0x0000, 0x0102, 0x0001509c000125e1, 0x0020,
	 0x00000000},
	{"ib-native-erf.pcap", 42, 0x81, 0x01, 0x81, 0x8000, 0x0102, 0x0001509c000125e1, 0x0020,
	 0x00000000},
	{"rxe-cm-write-read.pcap", 1, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000252b5cf34, 0x0010,
	 0x00000000},
	{"rxe-cm-write-read.pcap", 2, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000252b5cf34, 0x0013,
	 0x00000000},
	{"rxe-cm-write-read.pcap", 3, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000252b5cf34, 0x0014,
	 0x00000000},
	{"rxe-cm-write-read.pcap", 11, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000252b5cf34, 0x0015,
	 0x00000000},
	{"rxe-cm-write-read.pcap", 12, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x0000000252b5cf34, 0x0016,
	 0x00000000},
	{"rxe-cm-write-read-arp.pcap", 1, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b90866ac,
	 0x0010, 0x00000000},
	{"rxe-cm-write-read-arp.pcap", 2, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b90866ac,
	 0x0013, 0x00000000},
	{"rxe-cm-write-read-arp.pcap", 3, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b90866ac,
	 0x0014, 0x00000000},
	{"rxe-cm-write-read-arp.pcap", 11, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b90866ac,
	 0x0015, 0x00000000},
	{"rxe-cm-write-read-arp.pcap", 16, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b90866ac,
	 0x0016, 0x00000000},
	{"rxe-rdmacm-send.pcap", 1, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78b, 0x0010,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 2, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78b, 0x0013,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 3, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78b, 0x0014,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 24, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78a, 0x0010,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 25, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78a, 0x0013,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 26, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78a, 0x0014,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 92, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78a, 0x0015,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 93, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x000000025054a78a, 0x0016,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 94, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b13541c2, 0x0015,
	 0x00000000},
	{"rxe-rdmacm-send.pcap", 95, 0x07, 0x02, 0x03, 0x0000, 0x0000, 0x00000002b13541c2, 0x0016,
	 0x00000000},
};

static const struct exp_smp exp_smps[] = {
	{"ib-native-erf.pcap", 1, 0x0000, 0x01, 0x02, 0x0000000000000000, 0xffff, 0xffff,
	 0x0000000000000000, 0x0000000000000000, 0x00000000, 0x00, 0x00, 0x00020300, 0x00000000},
	{"ib-native-erf.pcap", 2, 0x8000, 0x01, 0x02, 0x0000000000000000, 0xffff, 0xffff,
	 0x0002c9020020b4dd, 0x0000000000000000, 0x0000923a, 0x00, 0x03, 0x00020300, 0x00060100},
	{"ib-native-erf.pcap", 12, 0x0000, 0x01, 0x02, 0x0000000000000000, 0xffff, 0xffff,
	 0x0000000000000000, 0x0000000000000000, 0x00000000, 0x00, 0x00, 0x00020300, 0x00000000},
	{"ib-native-erf.pcap", 13, 0x8000, 0x01, 0x02, 0x0000000000000000, 0xffff, 0xffff,
	 0x0002c9020020b4dd, 0x0000000000000000, 0x0000923d, 0x00, 0x03, 0x00020300, 0x00060100},
	{"ib-native-erf.pcap", 41, 0x0000, 0x01, 0x02, 0x0000000000000000, 0xffff, 0xffff,
	 0x0000000000000000, 0x0000000000000000, 0x00000000, 0x00, 0x00, 0x00020300, 0x00000000},
	{"ib-native-erf.pcap", 42, 0x8000, 0x01, 0x02, 0x0000000000000000, 0xffff, 0xffff,
	 0x0002c9020020b4dd, 0x0000000000000000, 0x000092b1, 0x00, 0x03, 0x00020300, 0x00060100},
};

static const struct exp_sa exp_sas[] = {
	{"ib-native-erf.pcap", 32, 0x00, 0x00, 0x00, 0x00000000, 0x00000000, 0x0000000000000000,
	 0x0000, 0x000000000000340c, 0x0000, 0x0000, 0x00, 0x000000, 0x00, 0x00, 0x00, 0x01, 0xffff,
	 0x0000, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x18,
	 0x95},
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6,
	 0x36}},
	{"ib-native-erf.pcap", 33, 0x00, 0x00, 0x00, 0x00000000, 0x00000000, 0x0000000000000000,
	 0x0008, 0x000000000000340c, 0x0002, 0x0004, 0x00, 0x000000, 0x00, 0x00, 0x01, 0x00, 0xffff,
	 0x0000, 0x02, 0x04, 0x02, 0x03, 0x02, 0x12, 0x00,
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x18,
	 0x95},
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6,
	 0x36}},
};

static const struct exp_req exp_reqs[] = {
	{"ib-native-erf.pcap", 7, 0xe9488627, 0x1000000000000404, 0x0002c9020024f634, 0x00000000,
	 0x870408, 0x04, 0x000000, 0x00, 0x000000, 0x14, 0x00, 0x00, 0x000000, 0x14, 0x00, 0xffff,
	 0x04, 0x00, 0x00, 0x0f, 0x01, 0x00, 4, 1, 0x00, 0x00, 0x00, 0x01, 0x13, 0, 0, 0x00, 0x00,
	 0x00, 0x00, 0x00,
	 0x00000000, 0x00000000,
	 0,
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36},
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x20, 0xb4, 0xdd},
	 0, 0, 0, 0, 0, {0}, {0}, 0, 0},
	{"ib-native-erf.pcap", 27, 0x3fd19ebf, 0x1000000000000405, 0x0002c90300001894, 0x00000000,
	 0x6c004a, 0x04, 0x000000, 0x00, 0x000000, 0x14, 0x00, 0x00, 0x000000, 0x14, 0x00, 0xffff,
	 0x04, 0x00, 0x00, 0x0f, 0x01, 0x00, 2, 4, 0x00, 0x00, 0x00, 0x01, 0x13, 0, 0, 0x00, 0x00,
	 0x00, 0x00, 0x00,
	 0x00000000, 0x00000000,
	 0,
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x18, 0x95},
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36},
	 0, 0, 0, 0, 0, {0}, {0}, 0, 0},
	{"ib-native-erf.pcap", 34, 0xeb488627, 0x1000000000000048, 0x0002c9020024f634, 0x00000000,
	 0x890408, 0x04, 0x000000, 0x00, 0x000000, 0x14, 0x00, 0x00, 0x000000, 0x14, 0x00, 0xffff,
	 0x04, 0x00, 0x00, 0x0f, 0x01, 0x00, 4, 2, 0x00, 0x00, 0x00, 0x01, 0x13, 0, 0, 0x00, 0x00,
	 0x00, 0x00, 0x00,
	 0x00000000, 0x00000000,
	 0,
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02, 0x00, 0x24, 0xf6, 0x36},
	 {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x18, 0x95},
	 0, 0, 0, 0, 0, {0}, {0}, 0, 0},
	{"rxe-cm-write-read.pcap", 1, 0x34cfb552, 0x0000000001061d2f, 0x505400fffe0aaaba,
	 0x00000000, 0x000011, 0x01, 0x000000, 0x01, 0x000000, 0x14, 0x00, 0x00, 0xe1a47d, 0x14,
	 0x07, 0xffff, 0x03, 0x00, 0x07, 0x0f, 0x00, 0x00, 65535, 65535, 0x00, 0x40, 0x00, 0x00,
	 0x13, 0, 0, 0x00, 0x00, 0x00, 0x00, 0x00,
	 0x00000204, 0x00000020,
	 1,
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x41, 0x05},
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x41, 0x04},
	 1, 0x00, 0x00, 0x04, 0x93d7, {192, 168, 65, 5}, {192, 168, 65, 4}, 0x06, 0x1d2f},
	{"rxe-cm-write-read-arp.pcap", 1, 0xac6608b9, 0x0000000001061d2f, 0x505400fffedaf92d,
	 0x00000000, 0x000017, 0x01, 0x000000, 0x01, 0x000000, 0x14, 0x00, 0x00, 0x89bb0e, 0x14,
	 0x07, 0xffff, 0x03, 0x00, 0x07, 0x0f, 0x00, 0x00, 65535, 65535, 0x00, 0x40, 0x00, 0x00,
	 0x13, 0, 0, 0x00, 0x00, 0x00, 0x00, 0x00,
	 0x000003a1, 0x0000003a,
	 1,
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x02, 0x19},
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x02, 0x18},
	 1, 0x00, 0x00, 0x04, 0xa129, {192, 168, 2, 25}, {192, 168, 2, 24}, 0x06, 0x1d2f},
	{"rxe-rdmacm-send.pcap", 1, 0x8ba75450, 0x0000000001064853, 0x505400fffe181011, 0x00000000,
	 0x00001b, 0x00, 0x000000, 0x00, 0x000000, 0x14, 0x00, 0x00, 0x24388a, 0x14, 0x07, 0xffff,
	 0x03, 0x00, 0x07, 0x0f, 0x00, 0x00, 65535, 65535, 0x00, 0x40, 0x00, 0x00, 0x13, 0, 0, 0x00,
	 0x00, 0x00, 0x00, 0x00,
	 0x00000bfd, 0x0000003f,
	 1,
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x0a, 0x0b},
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x0a, 0x0c},
	 1, 0x00, 0x00, 0x04, 0xe4d4, {198, 18, 10, 11}, {198, 18, 10, 12}, 0x06, 0x4853},
	{"rxe-rdmacm-send.pcap", 24, 0x8aa75450, 0x0000000001064853, 0x505400fffe181011, 0x00000000,
	 0x00001c, 0x00, 0x000000, 0x00, 0x000000, 0x14, 0x00, 0x00, 0x8eec52, 0x14, 0x07, 0xffff,
	 0x03, 0x00, 0x07, 0x0f, 0x00, 0x00, 65535, 65535, 0x00, 0x40, 0x00, 0x00, 0x13, 0, 0, 0x00,
	 0x00, 0x00, 0x00, 0x00,
	 0x00000bb7, 0x0000003b,
	 1,
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x0a, 0x0b},
	 {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xc6, 0x12, 0x0a, 0x0c},
	 1, 0x00, 0x00, 0x04, 0xe28d, {198, 18, 10, 11}, {198, 18, 10, 12}, 0x06, 0x4853},
};

static const struct exp_rep exp_reps[] = {
	{"ib-native-erf.pcap", 8, 0xf9024539, 0xe9488627, 0x00000000, 0xfc0407, 0x000000, 0xd40a55,
	 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0002c9020020b4dc},
	{"ib-native-erf.pcap", 28, 0xea488627, 0x3fd19ebf, 0x00000000, 0x890407, 0x000000, 0xbd15cb,
	 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0002c9020024f634},
	{"ib-native-erf.pcap", 35, 0x3ed19ebf, 0xeb488627, 0x00000000, 0x6c004b, 0x000000, 0x732328,
	 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x01, 0x00, 0x0002c90300001894},
	{"rxe-cm-write-read.pcap", 2, 0xa980e2d3, 0x34cfb552, 0x00000000, 0x000011, 0x000000,
	 0x8c84dd, 0x01, 0x01, 0x0f, 0x00, 0x00, 0x07, 0x00, 0x00, 0x505400fffebf4369},
	{"rxe-cm-write-read-arp.pcap", 2, 0xc8577fdb, 0xac6608b9, 0x00000000, 0x000011, 0x000000,
	 0xc23298, 0x01, 0x01, 0x0f, 0x00, 0x00, 0x07, 0x00, 0x00, 0x505400fffe8b2d12},
	{"rxe-rdmacm-send.pcap", 2, 0xc24135b1, 0x8ba75450, 0x00000000, 0x00001b, 0x000000,
	 0xfa1468, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x07, 0x00, 0x00, 0x505400fffe181012},
	{"rxe-rdmacm-send.pcap", 25, 0xc04135b1, 0x8aa75450, 0x00000000, 0x00001c, 0x000000,
	 0x5e4a5d, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x07, 0x00, 0x00, 0x505400fffe181012},
};

static const struct exp_cm_short exp_cm_shorts[] = {
	{"ib-native-erf.pcap", 9, 0x0014, 0xe9488627, 0xf9024539, 0},
	{"ib-native-erf.pcap", 29, 0x0014, 0x3fd19ebf, 0xea488627, 0},
	{"ib-native-erf.pcap", 37, 0x0014, 0xeb488627, 0x3ed19ebf, 0},
	{"rxe-cm-write-read.pcap", 3, 0x0014, 0x34cfb552, 0xa980e2d3, 0},
	{"rxe-cm-write-read.pcap", 11, 0x0015, 0x34cfb552, 0xa980e2d3, 0x000011},
	{"rxe-cm-write-read.pcap", 12, 0x0016, 0xa980e2d3, 0x34cfb552, 0},
	{"rxe-cm-write-read-arp.pcap", 3, 0x0014, 0xac6608b9, 0xc8577fdb, 0},
	{"rxe-cm-write-read-arp.pcap", 11, 0x0015, 0xac6608b9, 0xc8577fdb, 0x000011},
	{"rxe-cm-write-read-arp.pcap", 16, 0x0016, 0xc8577fdb, 0xac6608b9, 0},
	{"rxe-rdmacm-send.pcap", 3, 0x0014, 0x8ba75450, 0xc24135b1, 0},
	{"rxe-rdmacm-send.pcap", 26, 0x0014, 0x8aa75450, 0xc04135b1, 0},
	{"rxe-rdmacm-send.pcap", 92, 0x0015, 0x8aa75450, 0xc04135b1, 0x00001c},
	{"rxe-rdmacm-send.pcap", 94, 0x0015, 0xc24135b1, 0x8ba75450, 0x00001b},
	{"rxe-rdmacm-send.pcap", 93, 0x0016, 0xc04135b1, 0x8aa75450, 0},
	{"rxe-rdmacm-send.pcap", 95, 0x0016, 0x8ba75450, 0xc24135b1, 0},
};

static const struct exp_ipoib exp_ipoibs[] = {
	{"ib-native-erf.pcap", 3, 0x0800},
	{"ib-native-erf.pcap", 4, 0x0800},
	{"ib-native-erf.pcap", 5, 0x0806},
	{"ib-native-erf.pcap", 6, 0x0806},
	{"ib-native-erf.pcap", 10, 0x0800},
	{"ib-native-erf.pcap", 14, 0x0800},
	{"ib-native-erf.pcap", 16, 0x0800},
	{"ib-native-erf.pcap", 18, 0x0800},
	{"ib-native-erf.pcap", 20, 0x0800},
	{"ib-native-erf.pcap", 22, 0x0800},
	{"ib-native-erf.pcap", 24, 0x0800},
	{"ib-native-erf.pcap", 25, 0x0800},
	{"ib-native-erf.pcap", 26, 0x86dd},
	{"ib-native-erf.pcap", 30, 0x86dd},
	{"ib-native-erf.pcap", 36, 0x86dd},
	{"ib-native-erf.pcap", 39, 0x86dd},
	{"ib-native-erf.pcap", 43, 0x86dd},
};

static const struct exp_arp exp_arps[] = {
	{"ib-native-erf.pcap", 5, 32, 0x0800, 20, 4, 1,
	 {0x80, 0x000405, {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02,
	 0x00, 0x24, 0xf6, 0x36}}, {10, 0, 1, 34},
	 {0x00, 0x000000, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	 0x00, 0x00, 0x00, 0x00}}, {10, 0, 0, 58}},
	{"ib-native-erf.pcap", 6, 32, 0x0800, 20, 4, 2,
	 {0x80, 0x000404, {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02,
	 0x00, 0x20, 0xb4, 0xdd}}, {10, 0, 0, 58},
	 {0x80, 0x000405, {0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x02,
	 0x00, 0x24, 0xf6, 0x36}}, {10, 0, 1, 34}},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const capture_files[] = {
	"ib-native-erf.pcap",
	"rxe-cm-write-read.pcap",
	"rxe-cm-write-read-arp.pcap",
	"rxe-rdmacm-send.pcap",
};

/* What the walk over one file saw. */
struct walk {
	const char *file;
	unsigned mads, ipoibs, arps;                    /* decoded */
	unsigned mads_ok, smps_ok, sas_ok, reqs_ok, reps_ok, shorts_ok, ipoibs_ok, arps_ok;
};

/* Every table row starts with the file and the frame number. */
struct row_key {
	const char *file;
	unsigned frame;
};

static const void *find_row(const void *table, size_t stride, size_t n, const char *file,
			    unsigned frame)
{
	for (size_t i = 0; i < n; i++) {
		const struct row_key *k = (const void *)((const char *)table + i * stride);
		if (!strcmp(k->file, file) && k->frame == frame)
			return k;
	}
	return NULL;
}

static unsigned count_rows(const void *table, size_t stride, size_t n, const char *file)
{
	unsigned c = 0;
	for (size_t i = 0; i < n; i++) {
		const struct row_key *k = (const void *)((const char *)table + i * stride);
		c += !strcmp(k->file, file);
	}
	return c;
}

#define FIND(table, file, frame) find_row(table, sizeof(table[0]), N(table), file, frame)
#define ROWS(table, file) count_rows(table, sizeof(table[0]), N(table), file)

static void check_hdr(const struct exp_mad *e, const struct uroce_mgmt *m)
{
	assert_int_equal(m->hdr.base_version, 1);
	assert_int_equal(m->hdr.mgmt_class, e->mgmt_class);
	assert_int_equal(m->hdr.class_version, e->class_version);
	assert_int_equal(uroce_mad_method_byte(&m->hdr), e->method);
	assert_int_equal(m->hdr.status, e->status);
	assert_int_equal(m->hdr.class_specific, e->class_specific);
	assert_true(m->hdr.tid == e->tid);
	assert_int_equal(m->hdr.attr_id, e->attr);
	assert_int_equal(m->hdr.attr_mod, e->attr_mod);
	assert_non_null(uroce_mad_class_name(m->hdr.mgmt_class));
	assert_non_null(uroce_mad_method_name(uroce_mad_method_byte(&m->hdr)));
	assert_non_null(uroce_mad_attr_name(m->hdr.mgmt_class, m->hdr.attr_id));
}

static void check_smp(const struct exp_smp *e, const struct uroce_mgmt *m)
{
	const struct uroce_smp_dr *dr = &m->smp_dr;

	assert_true(m->present & UROCE_MGMT_SMP_DR);
	assert_true(m->present & UROCE_MGMT_SMINFO);
	assert_int_equal(dr->d << 15 | dr->status, e->smpstatus);
	assert_int_equal(dr->hop_ptr, e->hop_ptr);
	assert_int_equal(dr->hop_cnt, e->hop_cnt);
	assert_true(dr->mkey == e->mkey);
	assert_int_equal(dr->dr_slid, e->dr_slid);
	assert_int_equal(dr->dr_dlid, e->dr_dlid);
	assert_int_equal(get_be32(dr->initial_path), e->initial_path4);
	assert_int_equal(get_be32(dr->return_path), e->return_path4);
	assert_true(m->sminfo.guid == e->guid);
	assert_true(m->sminfo.sm_key == e->sm_key);
	assert_int_equal(m->sminfo.act_count, e->act_count);
	assert_int_equal(m->sminfo.priority, e->priority);
	assert_int_equal(m->sminfo.sm_state, e->sm_state);
	assert_non_null(uroce_sm_state_name(m->sminfo.sm_state));
}

static void check_sa(const struct exp_sa *e, const struct uroce_mgmt *m)
{
	const struct uroce_sa *sa = &m->sa;
	const struct uroce_pathrec *pr = &m->pathrec;

	assert_true(m->present & UROCE_MGMT_SA);
	assert_true(m->present & UROCE_MGMT_PATHREC);
	assert_int_equal(sa->rmpp.version, e->rmpp_version);
	assert_int_equal(sa->rmpp.type, e->rmpp_type);
	assert_int_equal(sa->rmpp.status, e->rmpp_status);
	assert_int_equal(sa->rmpp.data1, e->data1);
	assert_int_equal(sa->rmpp.data2, e->data2);
	assert_true(sa->sm_key == e->sm_key);
	assert_int_equal(sa->attr_offset, e->attr_offset);
	assert_true(sa->comp_mask == e->comp_mask);
	assert_int_equal(pr->dlid, e->dlid);
	assert_int_equal(pr->slid, e->slid);
	assert_int_equal(pr->raw_traffic, e->raw_traffic);
	assert_int_equal(pr->flow_label, e->flow_label);
	assert_int_equal(pr->hop_limit, e->hop_limit);
	assert_int_equal(pr->tclass, e->tclass);
	assert_int_equal(pr->reversible, e->reversible);
	assert_int_equal(pr->numb_path, e->numb_path);
	assert_int_equal(pr->pkey, e->pkey);
	assert_int_equal(pr->sl, e->sl);
	assert_int_equal(pr->mtu_selector, e->mtu_sel);
	assert_int_equal(pr->mtu, e->mtu);
	assert_int_equal(pr->rate_selector, e->rate_sel);
	assert_int_equal(pr->rate, e->rate);
	assert_int_equal(pr->plt_selector, e->plt_sel);
	assert_int_equal(pr->plt, e->plt);
	assert_int_equal(pr->preference, e->preference);
	assert_memory_equal(pr->dgid, e->dgid, 16);
	assert_memory_equal(pr->sgid, e->sgid, 16);
}

static void check_req(const struct exp_req *e, const struct uroce_mgmt *m)
{
	const struct uroce_cm_req *r = &m->cm.req;

	assert_true(m->present & UROCE_MGMT_CM);
	assert_int_equal(m->cm.attr, UROCE_CM_ATTR_REQ);
	assert_int_equal(r->local_comm_id, e->local_comm_id);
	assert_true(r->service_id == e->service_id);
	assert_true(r->local_ca_guid == e->local_ca_guid);
	assert_int_equal(r->local_qkey, e->local_qkey);
	assert_int_equal(r->local_qpn, e->local_qpn);
	assert_int_equal(r->responder_resources, e->responder_resources);
	assert_int_equal(r->local_eecn, e->local_eecn);
	assert_int_equal(r->initiator_depth, e->initiator_depth);
	assert_int_equal(r->remote_eecn, e->remote_eecn);
	assert_int_equal(r->remote_cm_resp_timeout, e->remote_cm_resp_timeout);
	assert_int_equal(r->transport_type, e->transport_type);
	assert_int_equal(r->e2e_flow_control, e->e2e);
	assert_int_equal(r->starting_psn, e->starting_psn);
	assert_int_equal(r->local_cm_resp_timeout, e->local_cm_resp_timeout);
	assert_int_equal(r->retry_count, e->retry_count);
	assert_int_equal(r->pkey, e->pkey);
	assert_int_equal(r->path_mtu, e->path_mtu);
	assert_int_equal(r->rdc_exists, e->rdc_exists);
	assert_int_equal(r->rnr_retry_count, e->rnr_retry_count);
	assert_int_equal(r->max_cm_retries, e->max_cm_retries);
	assert_int_equal(r->srq, e->srq);
	assert_int_equal(r->ext_transport, e->ext_transport);
	assert_int_equal(r->primary.local_lid, e->p_llid);
	assert_int_equal(r->primary.remote_lid, e->p_rlid);
	assert_int_equal(r->primary.traffic_class, e->p_tclass);
	assert_int_equal(r->primary.hop_limit, e->p_hop);
	assert_int_equal(r->primary.sl, e->p_sl);
	assert_int_equal(r->primary.subnet_local, e->p_subnet_local);
	assert_int_equal(r->primary.local_ack_timeout, e->p_ack);
	assert_int_equal(r->alternate.local_lid, e->a_llid);
	assert_int_equal(r->alternate.remote_lid, e->a_rlid);
	assert_int_equal(r->alternate.traffic_class, e->a_tclass);
	assert_int_equal(r->alternate.hop_limit, e->a_hop);
	assert_int_equal(r->alternate.sl, e->a_sl);
	assert_int_equal(r->alternate.subnet_local, e->a_subnet_local);
	assert_int_equal(r->alternate.local_ack_timeout, e->a_ack);
	/* tshark 4.0 reads the primary flow label as 3 bytes masked with 0xFFFFF000 and the packet
	 * rate from the first of those bytes: it shows flow_label >> 8 and (flow_label >> 12) &
	 * 0x3F instead of the wire's packet rate (the low 6 bits of byte 91: 3, 10 Gb/s, in the
	 * native captures, 0 from rxe). */
	assert_int_equal(r->primary.flow_label >> 8, e->ts_flow_label);
	assert_int_equal((r->primary.flow_label >> 12) & 0x3F, e->ts_packet_rate);
	assert_int_equal(r->primary.packet_rate, e->ipv4 ? 0 : 3); /* rxe frames are the IPv4 ones */
	assert_memory_equal(r->primary.local_gid, e->p_lgid, 16);
	assert_memory_equal(r->primary.remote_gid, e->p_rgid, 16);
	assert_int_equal(!!(m->present & UROCE_MGMT_IPCM), e->has_ipcm);
	if (e->has_ipcm) {
		assert_int_equal(m->ipcm.major, e->major);
		assert_int_equal(m->ipcm.minor, e->minor);
		assert_int_equal(m->ipcm.ip_version, e->ipv);
		assert_int_equal(m->ipcm.src_port, e->sport);
		assert_memory_equal(m->ipcm.src_ip + 12, e->sip4, 4);
		assert_memory_equal(m->ipcm.dst_ip + 12, e->dip4, 4);
		assert_int_equal(uroce_cm_sid_protocol(r->service_id), e->sid_protocol);
		assert_int_equal(uroce_cm_sid_port(r->service_id), e->sid_port);
	}
}

static void check_rep(const struct exp_rep *e, const struct uroce_mgmt *m)
{
	const struct uroce_cm_rep *r = &m->cm.rep;

	assert_true(m->present & UROCE_MGMT_CM);
	assert_int_equal(m->cm.attr, UROCE_CM_ATTR_REP);
	assert_int_equal(r->local_comm_id, e->local_comm_id);
	assert_int_equal(r->remote_comm_id, e->remote_comm_id);
	assert_int_equal(r->local_qkey, e->local_qkey);
	assert_int_equal(r->local_qpn, e->local_qpn);
	assert_int_equal(r->local_eecn, e->local_eecn);
	assert_int_equal(r->starting_psn, e->starting_psn);
	assert_int_equal(r->responder_resources, e->responder_resources);
	assert_int_equal(r->initiator_depth, e->initiator_depth);
	assert_int_equal(r->target_ack_delay, e->target_ack_delay);
	assert_int_equal(r->failover_accepted, e->failover);
	assert_int_equal(r->e2e_flow_control, e->e2e);
	assert_int_equal(r->rnr_retry_count, e->rnr_retry);
	assert_int_equal(r->srq, e->srq);
	assert_int_equal(r->rsv4, e->rsv);
	assert_true(r->local_ca_guid == e->local_ca_guid);
}

static void check_short(const struct exp_cm_short *e, const struct uroce_mgmt *m)
{
	assert_true(m->present & UROCE_MGMT_CM);
	assert_int_equal(m->cm.attr, e->attr);
	switch (e->attr) {
	case UROCE_CM_ATTR_RTU:
		assert_int_equal(m->cm.rtu.local_comm_id, e->local_comm_id);
		assert_int_equal(m->cm.rtu.remote_comm_id, e->remote_comm_id);
		break;
	case UROCE_CM_ATTR_DREP:
		assert_int_equal(m->cm.drep.local_comm_id, e->local_comm_id);
		assert_int_equal(m->cm.drep.remote_comm_id, e->remote_comm_id);
		break;
	case UROCE_CM_ATTR_DREQ:
		assert_int_equal(m->cm.dreq.local_comm_id, e->local_comm_id);
		assert_int_equal(m->cm.dreq.remote_comm_id, e->remote_comm_id);
		assert_int_equal(m->cm.dreq.remote_qpn_eecn, e->remote_qpn);
		break;
	default:
		fail();
	}
}

static void check_hw(const struct exp_hw *e, const struct uroce_ipoib_hwaddr *h)
{
	assert_int_equal(h->flags, e->flags);
	assert_int_equal(h->qpn, e->qpn);
	assert_memory_equal(h->gid, e->gid, 16);
}

static void check_arp(const struct exp_arp *e, const struct uroce_ipoib *ip)
{
	const struct uroce_ipoib_arp *a = &ip->arp;

	assert_true(ip->has_arp);
	assert_int_equal(a->htype, e->htype);
	assert_int_equal(a->ptype, e->ptype);
	assert_int_equal(a->hlen, e->hlen);
	assert_int_equal(a->plen, e->plen);
	assert_int_equal(a->op, e->op);
	check_hw(&e->sha, &a->sha);
	check_hw(&e->tha, &a->tha);
	assert_memory_equal(a->spa, e->spa, 4);
	assert_memory_equal(a->tpa, e->tpa, 4);
}

/* Every shorter MAD fails; the decoder reads from an exactly sized heap copy. */
static void truncate_mad(const uint8_t *mad)
{
	struct uroce_mgmt m;

	for (size_t cut = 0; cut < UROCE_MAD_LEN; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, mad, cut);
		assert_int_equal(uroce_mgmt_decode(&m, copy, cut), UROCE_ETRUNC);
		free(copy);
	}
}

/* Every shorter IPoIB payload decodes to a shorter valid thing or fails cleanly. */
static void truncate_ipoib(const uint8_t *p, size_t len, ssize_t full)
{
	struct uroce_ipoib ip;

	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, p, cut);
		ssize_t r = uroce_ipoib_decode(&ip, copy, cut);
		if (cut < UROCE_IPOIB_HDR_LEN || (size_t)full > cut)
			assert_int_equal(r, UROCE_ETRUNC);
		else
			assert_int_equal(r, full);
		free(copy);
	}
}

static void on_mad(struct walk *w, unsigned frame, const uint8_t *mad, size_t len)
{
	const struct exp_mad *em = FIND(exp_mads, w->file, frame);
	const struct exp_smp *es = FIND(exp_smps, w->file, frame);
	const struct exp_sa *esa = FIND(exp_sas, w->file, frame);
	const struct exp_req *erq = FIND(exp_reqs, w->file, frame);
	const struct exp_rep *erp = FIND(exp_reps, w->file, frame);
	const struct exp_cm_short *ecs = FIND(exp_cm_shorts, w->file, frame);
	struct uroce_mgmt m;

	assert_int_equal(uroce_mgmt_decode(&m, mad, len), UROCE_MAD_LEN);
	w->mads++;
	assert_non_null(em); /* every MAD tshark saw, and no other */
	check_hdr(em, &m);
	w->mads_ok++;
	if (es) {
		check_smp(es, &m);
		w->smps_ok++;
	}
	if (esa) {
		check_sa(esa, &m);
		w->sas_ok++;
	}
	if (erq) {
		check_req(erq, &m);
		w->reqs_ok++;
	}
	if (erp) {
		check_rep(erp, &m);
		w->reps_ok++;
	}
	if (ecs) {
		check_short(ecs, &m);
		w->shorts_ok++;
	}
	truncate_mad(mad);
}

static void on_ipoib(struct walk *w, unsigned frame, const uint8_t *p, size_t len)
{
	const struct exp_ipoib *ei = FIND(exp_ipoibs, w->file, frame);
	const struct exp_arp *ea = FIND(exp_arps, w->file, frame);
	struct uroce_ipoib ip;
	ssize_t r = uroce_ipoib_decode(&ip, p, len);

	assert_true(r >= UROCE_IPOIB_HDR_LEN);
	w->ipoibs++;
	assert_non_null(ei);
	assert_int_equal(ip.ethertype, ei->ethertype);
	assert_int_equal(ip.rsv, 0);
	w->ipoibs_ok++;
	if (ip.has_arp)
		w->arps++;
	if (ea) {
		check_arp(ea, &ip);
		w->arps_ok++;
	}
	truncate_ipoib(p, len, r);
}

/* Locates the BTH by fixed offsets: native IB (LRH, GRH when LNH = 3) or Ethernet + IPv4/IPv6
 * + UDP port 4791. Returns the BTH offset, or 0 when the frame is not IB transport; *trailer
 * is the ICRC (+ VCRC) length. */
static size_t find_bth(enum uroce_link link, const uint8_t *p, size_t len, size_t *trailer)
{
	size_t off;

	if (link == UROCE_LINK_IB) {
		if (len < 8)
			return 0;
		if ((p[1] & 3) == 2)
			off = 8;
		else if ((p[1] & 3) == 3)
			off = 8 + 40;
		else
			return 0;
		*trailer = 4 + 2;
		return off;
	}
	if (len < 14)
		return 0;
	uint16_t et = get_be16(p + 12);
	off = 14;
	if (et == 0x0800 && len >= off + 20 && p[off + 9] == 17)
		off += (size_t)(p[off] & 0xF) * 4;
	else if (et == 0x86DD && len >= off + 40 && p[off + 6] == 17)
		off += 40;
	else
		return 0;
	if (len < off + 8 || get_be16(p + off + 2) != 4791)
		return 0;
	*trailer = 4;
	return off + 8;
}

static void on_frame(void *ctx, size_t number, enum uroce_link link, const uint8_t *p, size_t len)
{
	struct walk *w = ctx;
	size_t trailer = 0;
	size_t bth = find_bth(link, p, len, &trailer);

	if (!bth || len < bth + 12 + trailer)
		return;
	const uint8_t *b = p + bth;
	uint8_t opcode = b[0];
	uint8_t pad = (b[1] >> 4) & 3;
	uint32_t destqp = get_be24(b + 5);
	size_t hdrs;

	if (opcode == 0x64) /* UD SEND Only: DETH follows */
		hdrs = 12 + 8;
	else if (opcode == 0x04) /* RC SEND Only: IPoIB connected mode */
		hdrs = 12;
	else
		return;
	if (len < bth + hdrs + trailer + pad)
		return;
	const uint8_t *pl = b + hdrs;
	size_t plen = len - bth - hdrs - trailer - pad;

	if (opcode == 0x64 && destqp <= UROCE_QP1)
		on_mad(w, (unsigned)number, pl, plen);
	else if (uroce_ipoib_probe(pl, plen))
		on_ipoib(w, (unsigned)number, pl, plen);
}

static void test_captures(void **state)
{
	const char *dir = test_captures_dir();
	char path[4096];
	(void)state;

	for (size_t i = 0; i < N(capture_files); i++) {
		struct walk w = {.file = capture_files[i]};
		snprintf(path, sizeof(path), "%s/%s", dir, capture_files[i]);
		assert_true(test_each_frame(path, on_frame, &w) > 0);
		assert_int_equal(w.mads, ROWS(exp_mads, w.file));
		assert_int_equal(w.mads_ok, ROWS(exp_mads, w.file));
		assert_int_equal(w.smps_ok, ROWS(exp_smps, w.file));
		assert_int_equal(w.sas_ok, ROWS(exp_sas, w.file));
		assert_int_equal(w.reqs_ok, ROWS(exp_reqs, w.file));
		assert_int_equal(w.reps_ok, ROWS(exp_reps, w.file));
		assert_int_equal(w.shorts_ok, ROWS(exp_cm_shorts, w.file));
		assert_int_equal(w.ipoibs, ROWS(exp_ipoibs, w.file));
		assert_int_equal(w.ipoibs_ok, ROWS(exp_ipoibs, w.file));
		assert_int_equal(w.arps, ROWS(exp_arps, w.file));
		assert_int_equal(w.arps_ok, ROWS(exp_arps, w.file));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures),
	};

	if (!test_captures_dir()) {
		fprintf(stderr, "captures folder absent: skipped\n");
		return TEST_SKIP_CODE;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/* MADs (IBA 13.4): the common header, SMPs (LID-routed and directed-route), SMInfo, RMPP, the
 * SA header and PathRecord, and uroce_mgmt_decode's dispatch by class: byte-exact round trips
 * with random contents, truncation of every decoder (from exactly sized heap copies, so that
 * ASan sees a read past the end), field positions, and the name tables. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/mad.h"

#define ROUNDS 500

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

/* Calls dec on every prefix of in shorter than size, from an exactly sized heap copy. */
#define CHECK_PREFIXES(dec, out, in, size)                                         \
	do {                                                                       \
		for (size_t cut = 0; cut < (size); cut++) {                        \
			uint8_t *copy_ = malloc(cut ? cut : 1);                    \
			assert_non_null(copy_);                                    \
			memcpy(copy_, in, cut);                                    \
			assert_int_equal(dec(out, copy_, cut), UROCE_ETRUNC);      \
			free(copy_);                                               \
		}                                                                  \
	} while (0)

/* A fixed-size structure whose every bit is a field (reserved bits included). */
#define CHECK_FIXED(type, dec, enc, size)                                          \
	do {                                                                       \
		for (int round_ = 0; round_ < ROUNDS; round_++) {                   \
			uint8_t in[size], out[size];                               \
			type h;                                                    \
			fill_random(in, size);                                     \
			assert_int_equal(dec(&h, in, size), size);                 \
			memset(out, 0xA5, size);                                   \
			assert_int_equal(enc(&h, out, size), size);                \
			assert_memory_equal(in, out, size);                        \
			if (round_ == 0) {                                         \
				CHECK_PREFIXES(dec, &h, in, size);                 \
				for (size_t cut = 0; cut < (size); cut++)          \
					assert_int_equal(enc(&h, out, cut), UROCE_ENOSPACE); \
			}                                                          \
		}                                                                  \
	} while (0)

static void test_hdr(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_mad_hdr, uroce_mad_hdr_decode, uroce_mad_hdr_encode,
		    UROCE_MAD_HDR_LEN);
}

static void test_hdr_fields(void **state)
{
	const uint8_t b[UROCE_MAD_HDR_LEN] = {0x01, 0x03, 0x02, 0x92, 0x00, 0x0C, 0xAB, 0xCD,
					      0, 0, 0, 0x0B, 0xB9, 0x64, 0x7F, 0x9E,
					      0x00, 0x35, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF};
	struct uroce_mad_hdr h;
	(void)state;

	assert_int_equal(uroce_mad_hdr_decode(&h, b, sizeof(b)), UROCE_MAD_HDR_LEN);
	assert_int_equal(h.base_version, 1);
	assert_int_equal(h.mgmt_class, UROCE_MAD_CLASS_SUBN_ADM);
	assert_int_equal(h.class_version, 2);
	assert_true(h.r);
	assert_int_equal(h.method, 0x12);
	assert_int_equal(uroce_mad_method_byte(&h), UROCE_MAD_METHOD_GET_TABLE_RESP);
	assert_string_equal(uroce_mad_method_name(uroce_mad_method_byte(&h)), "GetTableResp");
	assert_int_equal(h.status, 0x000C);
	assert_int_equal(h.class_specific, 0xABCD);
	assert_true(h.tid == 0x0000000BB9647F9Eull);
	assert_int_equal(h.attr_id, UROCE_SA_ATTR_PATH_RECORD);
	assert_int_equal(h.rsv, 0x1234);
	assert_int_equal(h.attr_mod, 0xDEADBEEF);
}

static void test_smp_lid(void **state)
{
	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		uint8_t in[UROCE_MAD_LEN], out[UROCE_MAD_LEN];
		struct uroce_mad_hdr h;
		struct uroce_smp_lid s;
		fill_random(in, sizeof(in));
		assert_int_equal(uroce_mad_hdr_decode(&h, in, sizeof(in)), UROCE_MAD_HDR_LEN);
		assert_int_equal(uroce_smp_lid_decode(&s, in, sizeof(in)), UROCE_MAD_LEN);
		assert_true(s.mkey == get_be64(in + 24));
		assert_memory_equal(s.data, in + 64, 64);
		memset(out, 0xA5, sizeof(out));
		assert_int_equal(uroce_smp_lid_encode(&h, &s, out, sizeof(out)), UROCE_MAD_LEN);
		assert_memory_equal(in, out, sizeof(in));
		if (r)
			continue;
		CHECK_PREFIXES(uroce_smp_lid_decode, &s, in, UROCE_MAD_LEN);
		assert_int_equal(uroce_smp_lid_encode(&h, &s, out, UROCE_MAD_LEN - 1), UROCE_ENOSPACE);
	}
}

static void test_smp_dr(void **state)
{
	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		uint8_t in[UROCE_MAD_LEN], out[UROCE_MAD_LEN];
		struct uroce_mad_hdr h;
		struct uroce_smp_dr s;
		fill_random(in, sizeof(in));
		assert_int_equal(uroce_mad_hdr_decode(&h, in, sizeof(in)), UROCE_MAD_HDR_LEN);
		assert_int_equal(uroce_smp_dr_decode(&s, in, sizeof(in)), UROCE_MAD_LEN);
		memset(out, 0xA5, sizeof(out));
		/* The DR fields win over the header's Status and ClassSpecific. */
		h.status = (uint16_t)~h.status;
		h.class_specific = (uint16_t)~h.class_specific;
		assert_int_equal(uroce_smp_dr_encode(&h, &s, out, sizeof(out)), UROCE_MAD_LEN);
		assert_memory_equal(in, out, sizeof(in));
		if (r)
			continue;
		CHECK_PREFIXES(uroce_smp_dr_decode, &s, in, UROCE_MAD_LEN);
		assert_int_equal(uroce_smp_dr_encode(&h, &s, out, UROCE_MAD_LEN - 1), UROCE_ENOSPACE);
	}
}

/* The SubnGetResp(SMInfo) of ib-native-erf.pcap frame 2, rebuilt field by field. */
static void build_dr_sminfo(uint8_t *mad)
{
	memset(mad, 0, UROCE_MAD_LEN);
	mad[0] = 1;
	mad[1] = UROCE_MAD_CLASS_SUBN_DR;
	mad[2] = 1;
	mad[3] = UROCE_MAD_METHOD_GET_RESP;
	put_be16(mad + 4, 0x8000);           /* D = 1, status 0 */
	mad[6] = 1;                          /* hop pointer */
	mad[7] = 2;                          /* hop count */
	put_be64(mad + 8, 0x0001509C000125C8ull);
	put_be16(mad + 16, UROCE_SMP_ATTR_SM_INFO);
	put_be16(mad + 32, 0xFFFF);          /* DrSLID */
	put_be16(mad + 34, 0xFFFF);          /* DrDLID */
	put_be64(mad + 64, 0x0002C9020020B4DDull); /* SMInfo.GUID */
	put_be32(mad + 64 + 16, 0x923A);     /* ActCount */
	mad[64 + 20] = 0x03;                 /* priority 0, MASTER */
	mad[128 + 1] = 2;                    /* InitialPath 00 02 03 */
	mad[128 + 2] = 3;
	mad[192 + 1] = 6;                    /* ReturnPath 00 06 01 */
	mad[192 + 2] = 1;
}

static void test_smp_dr_fields(void **state)
{
	uint8_t mad[UROCE_MAD_LEN];
	struct uroce_mgmt m;
	(void)state;

	build_dr_sminfo(mad);
	assert_int_equal(uroce_mgmt_decode(&m, mad, sizeof(mad)), UROCE_MAD_LEN);
	assert_int_equal(m.present, UROCE_MGMT_SMP_DR | UROCE_MGMT_SMINFO);
	assert_true(m.smp_dr.d);
	assert_int_equal(m.smp_dr.status, 0);
	assert_int_equal(m.smp_dr.hop_ptr, 1);
	assert_int_equal(m.smp_dr.hop_cnt, 2);
	assert_int_equal(m.smp_dr.dr_slid, 0xFFFF);
	assert_int_equal(m.smp_dr.dr_dlid, 0xFFFF);
	assert_memory_equal(m.smp_dr.initial_path, ((const uint8_t[]){0, 2, 3, 0}), 4);
	assert_memory_equal(m.smp_dr.return_path, ((const uint8_t[]){0, 6, 1, 0}), 4);
	assert_true(m.sminfo.guid == 0x0002C9020020B4DDull);
	assert_true(m.sminfo.sm_key == 0);
	assert_int_equal(m.sminfo.act_count, 0x923A);
	assert_int_equal(m.sminfo.priority, 0);
	assert_int_equal(m.sminfo.sm_state, 3);
	assert_string_equal(uroce_sm_state_name(m.sminfo.sm_state), "Master");
	assert_string_equal(uroce_mad_class_name(m.hdr.mgmt_class), "SubnMgmt (directed route)");
	assert_string_equal(uroce_mad_attr_name(m.hdr.mgmt_class, m.hdr.attr_id), "SMInfo");
	assert_memory_equal(m.raw, mad, sizeof(mad));
}

static void test_sminfo(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_sminfo, uroce_sminfo_decode, uroce_sminfo_encode, UROCE_SMINFO_LEN);
}

static void test_rmpp(void **state)
{
	const uint8_t b[UROCE_RMPP_HDR_LEN] = {1, 1, 0x1F << 3 | 7, 0, 0, 0, 0, 1, 0, 0, 0x01, 0x2C};
	struct uroce_rmpp r;
	(void)state;

	CHECK_FIXED(struct uroce_rmpp, uroce_rmpp_decode, uroce_rmpp_encode, UROCE_RMPP_HDR_LEN);
	assert_int_equal(uroce_rmpp_decode(&r, b, sizeof(b)), UROCE_RMPP_HDR_LEN);
	assert_int_equal(r.version, 1);
	assert_int_equal(r.type, UROCE_RMPP_TYPE_DATA);
	assert_int_equal(r.resp_time, 0x1F);
	assert_int_equal(r.flags, UROCE_RMPP_FLAG_ACTIVE | UROCE_RMPP_FLAG_FIRST | UROCE_RMPP_FLAG_LAST);
	assert_int_equal(r.data1, 1);   /* SegmentNumber */
	assert_int_equal(r.data2, 300); /* PayloadLength */
}

static void test_sa(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_sa, uroce_sa_decode, uroce_sa_encode, UROCE_MAD_DATA_LEN);
}

static void test_pathrec(void **state)
{
	(void)state;
	CHECK_FIXED(struct uroce_pathrec, uroce_pathrec_decode, uroce_pathrec_encode,
		    UROCE_PATHREC_LEN);
}

/* The PathRecord of the SubnAdmGetResp in ib-native-erf.pcap frame 33, with the flow label,
 * hop limit, raw-traffic bit, QoS class and reserved bytes set so that each lands apart. */
static void test_pathrec_fields(void **state)
{
	uint8_t b[UROCE_PATHREC_LEN] = {0};
	struct uroce_pathrec p;
	(void)state;

	put_be64(b, 0x1000000000000404ull);
	b[8] = 0xFE;
	b[9] = 0x80;
	b[23] = 0x95;
	b[24] = 0xFE;
	b[39] = 0x36;
	put_be16(b + 40, 2);
	put_be16(b + 42, 4);
	put_be32(b + 44, 1u << 31 | 5u << 28 | 0xABCDEu << 8 | 0x40);
	b[48] = 0x12;
	b[49] = 0x80 | 0x05;
	put_be16(b + 50, 0xFFFF);
	put_be16(b + 52, 0x123 << 4 | 0x7);
	b[54] = 0x84;
	b[55] = 0x83;
	b[56] = 0x92;
	b[57] = 0x01;
	b[63] = 0xEE;
	assert_int_equal(uroce_pathrec_decode(&p, b, sizeof(b)), UROCE_PATHREC_LEN);
	assert_true(p.service_id == 0x1000000000000404ull);
	assert_int_equal(p.dgid[0], 0xFE);
	assert_int_equal(p.dgid[15], 0x95);
	assert_int_equal(p.sgid[0], 0xFE);
	assert_int_equal(p.sgid[15], 0x36);
	assert_int_equal(p.dlid, 2);
	assert_int_equal(p.slid, 4);
	assert_true(p.raw_traffic);
	assert_int_equal(p.rsv3, 5);
	assert_int_equal(p.flow_label, 0xABCDE);
	assert_int_equal(p.hop_limit, 0x40);
	assert_int_equal(p.tclass, 0x12);
	assert_true(p.reversible);
	assert_int_equal(p.numb_path, 5);
	assert_int_equal(p.pkey, 0xFFFF);
	assert_int_equal(p.qos_class, 0x123);
	assert_int_equal(p.sl, 7);
	assert_int_equal(p.mtu_selector, 2);
	assert_int_equal(p.mtu, 4);
	assert_int_equal(uroce_ib_mtu_bytes(p.mtu), 2048);
	assert_string_equal(uroce_sa_selector_name(p.mtu_selector), "exactly");
	assert_int_equal(p.rate_selector, 2);
	assert_int_equal(p.rate, 3);
	assert_int_equal(p.plt_selector, 2);
	assert_int_equal(p.plt, 0x12);
	assert_int_equal(p.preference, 1);
	assert_int_equal(p.rsv58[5], 0xEE);
}

/* A MAD of the given class and attribute with random contents. */
static void random_mad(uint8_t *mad, uint8_t mgmt_class, uint16_t attr)
{
	fill_random(mad, UROCE_MAD_LEN);
	mad[0] = 1;
	mad[1] = mgmt_class;
	put_be16(mad + 16, attr);
}

static void test_mgmt_dispatch(void **state)
{
	static const struct {
		uint8_t mgmt_class;
		uint16_t attr;
		uint32_t present;
	} cases[] = {
		{UROCE_MAD_CLASS_SUBN_LID, UROCE_SMP_ATTR_SM_INFO, UROCE_MGMT_SMP_LID | UROCE_MGMT_SMINFO},
		{UROCE_MAD_CLASS_SUBN_LID, UROCE_SMP_ATTR_NODE_INFO, UROCE_MGMT_SMP_LID},
		{UROCE_MAD_CLASS_SUBN_DR, UROCE_SMP_ATTR_SM_INFO, UROCE_MGMT_SMP_DR | UROCE_MGMT_SMINFO},
		{UROCE_MAD_CLASS_SUBN_DR, UROCE_SMP_ATTR_PORT_INFO, UROCE_MGMT_SMP_DR},
		{UROCE_MAD_CLASS_SUBN_ADM, UROCE_SA_ATTR_PATH_RECORD, UROCE_MGMT_SA | UROCE_MGMT_PATHREC},
		{UROCE_MAD_CLASS_SUBN_ADM, UROCE_SA_ATTR_NODE_RECORD, UROCE_MGMT_SA},
		{UROCE_MAD_CLASS_SUBN_ADM, UROCE_SA_ATTR_SM_INFO_RECORD, UROCE_MGMT_SA | UROCE_MGMT_SMINFO},
		{UROCE_MAD_CLASS_CM, UROCE_CM_ATTR_REP, UROCE_MGMT_CM},
		{UROCE_MAD_CLASS_CM, UROCE_CM_ATTR_LAP, UROCE_MGMT_CM},
		{UROCE_MAD_CLASS_CM, UROCE_CM_ATTR_CLASS_PORT_INFO, 0},
		{UROCE_MAD_CLASS_PERF, UROCE_PERF_ATTR_PORT_COUNTERS, 0},
		{0x30, 0xFF10, 0},
		{0x7F, 0x0001, 0},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t mad[UROCE_MAD_LEN + 8];
		struct uroce_mgmt m;
		random_mad(mad, cases[i].mgmt_class, cases[i].attr);
		/* Bytes after the MAD (pad, ICRC) are not part of it. */
		assert_int_equal(uroce_mgmt_decode(&m, mad, sizeof(mad)), UROCE_MAD_LEN);
		assert_int_equal(m.present, cases[i].present);
		assert_int_equal(m.hdr.mgmt_class, cases[i].mgmt_class);
		assert_int_equal(m.hdr.attr_id, cases[i].attr);
		assert_memory_equal(m.raw, mad, UROCE_MAD_LEN);
		CHECK_PREFIXES(uroce_mgmt_decode, &m, mad, UROCE_MAD_LEN);
		assert_int_equal(m.present, 0);
	}
}

static void test_mgmt_req_ipcm(void **state)
{
	uint8_t mad[UROCE_MAD_LEN];
	struct uroce_mgmt m;
	(void)state;

	random_mad(mad, UROCE_MAD_CLASS_CM, UROCE_CM_ATTR_REQ);
	put_be64(mad + 24 + 8, uroce_cm_ipcm_sid(0x06, 18515)); /* ServiceID */
	mad[24 + 140] = 0x00;                                 /* IP-CM version 0.0 */
	mad[24 + 141] = 0x40;                                 /* IPv4 */
	assert_int_equal(uroce_mgmt_decode(&m, mad, sizeof(mad)), UROCE_MAD_LEN);
	assert_int_equal(m.present, UROCE_MGMT_CM | UROCE_MGMT_IPCM);
	assert_int_equal(m.cm.attr, UROCE_CM_ATTR_REQ);
	assert_int_equal(uroce_cm_sid_port(m.cm.req.service_id), 18515);
	assert_int_equal(m.ipcm.ip_version, 4);

	put_be64(mad + 24 + 8, 0x1000000000000404ull);        /* not an IP-CM ServiceID */
	assert_int_equal(uroce_mgmt_decode(&m, mad, sizeof(mad)), UROCE_MAD_LEN);
	assert_int_equal(m.present, UROCE_MGMT_CM);
}

/* Random bytes of every class decode without reading outside the MAD. */
static void test_mgmt_random(void **state)
{
	(void)state;
	for (int r = 0; r < 20000; r++) {
		uint8_t *mad = malloc(UROCE_MAD_LEN);
		struct uroce_mgmt m;
		assert_non_null(mad);
		fill_random(mad, UROCE_MAD_LEN);
		if (r & 1) /* favour the decoded classes */
			mad[1] = (uint8_t[]){0x01, 0x81, 0x03, 0x07}[(r >> 1) & 3];
		if (r & 2)
			put_be16(mad + 16, (uint16_t)(test_rand() & 0x1F)); /* likely attributes */
		assert_int_equal(uroce_mgmt_decode(&m, mad, UROCE_MAD_LEN), UROCE_MAD_LEN);
		free(mad);
	}
}

static void test_names(void **state)
{
	char buf[160];
	(void)state;

#define CHECK_CLASS(id, v, n) assert_string_equal(uroce_mad_class_name(v), n);
	UROCE_MAD_CLASS_MAP(CHECK_CLASS)
#undef CHECK_CLASS
	assert_string_equal(uroce_mad_class_name(0x09), "Vendor (range 1)");
	assert_string_equal(uroce_mad_class_name(0x0F), "Vendor (range 1)");
	assert_string_equal(uroce_mad_class_name(0x2F), "Application");
	assert_string_equal(uroce_mad_class_name(0x30), "Vendor (range 2)");
	assert_string_equal(uroce_mad_class_name(0x4F), "Vendor (range 2)");
	assert_null(uroce_mad_class_name(0x00));
	assert_null(uroce_mad_class_name(0x02));
	assert_null(uroce_mad_class_name(0x50));
	assert_null(uroce_mad_class_name(0x82));

#define CHECK_METHOD(id, v, n) assert_string_equal(uroce_mad_method_name(v), n);
	UROCE_MAD_METHOD_MAP(CHECK_METHOD)
#undef CHECK_METHOD
	assert_null(uroce_mad_method_name(0x04));
	assert_null(uroce_mad_method_name(0x83));

#define CHECK_SMP(id, v, n)                                                   \
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_LID, v), n); \
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_DR, v), n);
	UROCE_SMP_ATTR_MAP(CHECK_SMP)
#undef CHECK_SMP
#define CHECK_SA(id, v, n) assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_ADM, v), n);
	UROCE_SA_ATTR_MAP(CHECK_SA)
#undef CHECK_SA
#define CHECK_PERF(id, v, n) assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_PERF, v), n);
	UROCE_PERF_ATTR_MAP(CHECK_PERF)
#undef CHECK_PERF
#define CHECK_DM(id, v, n) assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_DEV_MGT, v), n);
	UROCE_DM_ATTR_MAP(CHECK_DM)
#undef CHECK_DM
#define CHECK_CM(id, v, s, n) assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_CM, v), n);
	UROCE_CM_ATTR_MAP(CHECK_CM)
#undef CHECK_CM
#define CHECK_COMMON(id, v, n) assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_BM, v), n);
	UROCE_MAD_COMMON_ATTR_MAP(CHECK_COMMON)
#undef CHECK_COMMON
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_ADM, 0x0001), "ClassPortInfo");
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_LID, 0x0002), "Notice");
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_ADM, 0x0011), "NodeRecord");
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_LID, 0x0011), "NodeInfo");
	assert_string_equal(uroce_mad_attr_name(UROCE_MAD_CLASS_CM, 0xFF01), "VendorSpecific");
	assert_null(uroce_mad_attr_name(UROCE_MAD_CLASS_SUBN_LID, 0x0013));
	assert_null(uroce_mad_attr_name(UROCE_MAD_CLASS_CM, 0x001B));

#define CHECK_RMPP_TYPE(id, v, n) assert_string_equal(uroce_rmpp_type_name(v), n);
	UROCE_RMPP_TYPE_MAP(CHECK_RMPP_TYPE)
#undef CHECK_RMPP_TYPE
#define CHECK_RMPP_STATUS(id, v, n) assert_string_equal(uroce_rmpp_status_name(v), n);
	UROCE_RMPP_STATUS_MAP(CHECK_RMPP_STATUS)
#undef CHECK_RMPP_STATUS
#define CHECK_STATE(id, v, n) assert_string_equal(uroce_sm_state_name(v), n);
	UROCE_SM_STATE_MAP(CHECK_STATE)
#undef CHECK_STATE
	assert_null(uroce_rmpp_type_name(5));
	assert_null(uroce_rmpp_status_name(2));
	assert_null(uroce_sm_state_name(4));
	assert_int_equal(uroce_ib_mtu_bytes(1), 256);
	assert_int_equal(uroce_ib_mtu_bytes(5), 4096);
	assert_int_equal(uroce_ib_mtu_bytes(0), 0);
	assert_int_equal(uroce_ib_mtu_bytes(6), 0);

	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_SUBN_LID, 0, buf, sizeof(buf)),
			    "OK");
	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_SUBN_DR, 0x8000, buf,
						      sizeof(buf)),
			    "D (return path)");
	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_SUBN_ADM, 0x0300, buf,
						      sizeof(buf)),
			    "class status 3 (ERR_NO_RECORDS)");
	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_CM, 0x0001 | 0x0002 | 2 << 2,
						      buf, sizeof(buf)),
			    "busy, redirect required, method not supported");
	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_PERF, 5 << 2 | 0x4200, buf,
						      sizeof(buf)),
			    "reserved invalid-field code, class status 0x42");
	/* A short buffer truncates. */
	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_CM, 0x0003, buf, 7), "busy, ");
	assert_string_equal(uroce_mad_status_describe(UROCE_MAD_CLASS_CM, 0x0003, buf, 1), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr),
		cmocka_unit_test(test_hdr_fields),
		cmocka_unit_test(test_smp_lid),
		cmocka_unit_test(test_smp_dr),
		cmocka_unit_test(test_smp_dr_fields),
		cmocka_unit_test(test_sminfo),
		cmocka_unit_test(test_rmpp),
		cmocka_unit_test(test_sa),
		cmocka_unit_test(test_pathrec),
		cmocka_unit_test(test_pathrec_fields),
		cmocka_unit_test(test_mgmt_dispatch),
		cmocka_unit_test(test_mgmt_req_ipcm),
		cmocka_unit_test(test_mgmt_random),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

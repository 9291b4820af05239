/* SPDX-License-Identifier: MIT */
/* CM messages (IBA 12.6-12.11): byte-exact round trips of every message with random contents,
 * truncation of every decoder, field positions on hand-built messages, the IP-CM private data
 * (Annex A11) and the name tables. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/cm.h"

#define ROUNDS 500

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)test_rand();
}

static const uint16_t cm_messages[] = {
#define CM_ATTR_VALUE(id, v, s, n) v,
	UROCE_CM_ATTR_MAP(CM_ATTR_VALUE)
#undef CM_ATTR_VALUE
};

/* Every message: random 232 bytes decode, encode back byte-exact; every prefix fails from an
 * exactly sized heap copy (so ASan catches a read past the end); short buffers fail to
 * encode. */
static void test_roundtrip_all(void **state)
{
	(void)state;
	for (size_t a = 0; a < sizeof(cm_messages) / sizeof(cm_messages[0]); a++) {
		uint16_t attr = cm_messages[a];
		for (int r = 0; r < ROUNDS; r++) {
			uint8_t in[UROCE_CM_DATA_LEN], out[UROCE_CM_DATA_LEN];
			struct uroce_cm_msg m;
			fill_random(in, sizeof(in));
			if (attr == UROCE_CM_ATTR_CLASS_PORT_INFO) {
				assert_int_equal(uroce_cm_decode(&m, attr, in, sizeof(in)), UROCE_EINVAL);
				m.attr = attr;
				assert_int_equal(uroce_cm_encode(&m, out, sizeof(out)), UROCE_EINVAL);
				continue;
			}
			assert_int_equal(uroce_cm_decode(&m, attr, in, sizeof(in)), UROCE_CM_DATA_LEN);
			assert_int_equal(m.attr, attr);
			memset(out, 0xA5, sizeof(out));
			assert_int_equal(uroce_cm_encode(&m, out, sizeof(out)), UROCE_CM_DATA_LEN);
			assert_memory_equal(in, out, sizeof(in));
			if (r)
				continue;
			for (size_t cut = 0; cut < UROCE_CM_DATA_LEN; cut++) {
				uint8_t *copy = malloc(cut ? cut : 1);
				assert_non_null(copy);
				memcpy(copy, in, cut);
				assert_int_equal(uroce_cm_decode(&m, attr, copy, cut), UROCE_ETRUNC);
				assert_int_equal(uroce_cm_encode(&m, copy, cut), UROCE_ENOSPACE);
				free(copy);
			}
		}
	}
}

static void test_unknown_attr(void **state)
{
	uint8_t b[UROCE_CM_DATA_LEN] = {0};
	struct uroce_cm_msg m;
	(void)state;

	assert_int_equal(uroce_cm_decode(&m, 0x001B, b, sizeof(b)), UROCE_EINVAL);
	assert_int_equal(uroce_cm_decode(&m, 0xFF00, b, sizeof(b)), UROCE_EINVAL);
	assert_null(uroce_cm_msg_name(0x001B));
	assert_null(uroce_cm_msg_name(UROCE_CM_ATTR_CLASS_PORT_INFO));
	assert_string_equal(uroce_cm_attr_name(UROCE_CM_ATTR_CLASS_PORT_INFO), "ClassPortInfo");
}

/* A REQ built by hand with a distinct value in every field (IBA 12.6.5 offsets). */
static void test_req_fields(void **state)
{
	uint8_t b[UROCE_CM_DATA_LEN] = {0};
	struct uroce_cm_req r;
	(void)state;

	put_be32(b, 0x11223344);
	put_be64(b + 8, 0x0000000001061D2Full);
	put_be64(b + 16, 0x0002C9020024F634ull);
	put_be32(b + 28, 0x80010000);
	put_be24(b + 32, 0x870408);
	b[35] = 4;
	put_be24(b + 36, 0x123456);
	b[39] = 5;
	put_be24(b + 40, 0x654321);
	b[43] = 20 << 3 | 1 << 1 | 1;  /* remote CM timeout 20, UC, flow control */
	put_be24(b + 44, 0xE1A47D);
	b[47] = 19 << 3 | 6;           /* local CM timeout 19, retry 6 */
	put_be16(b + 48, 0x8001);
	b[50] = 5 << 4 | 1 << 3 | 7;   /* MTU 4096, RDC exists, RNR retry 7 */
	b[51] = 15 << 4 | 1 << 3 | 1;  /* max CM retries 15, SRQ, extended transport 1 */
	put_be16(b + 52, 4);
	put_be16(b + 54, 1);
	b[56] = 0xFE;
	b[72] = 0xFD;
	put_be32(b + 88, 0xABCDEu << 12 | 0x15u << 6 | 0x03); /* flow label, reserved, rate */
	b[92] = 0x22;
	b[93] = 0x40;
	b[94] = 0xA << 4 | 1 << 3 | 5;
	b[95] = 0x13 << 3 | 2;
	put_be16(b + 96, 7);
	put_be16(b + 98, 8);
	b[100] = 0xAA;
	b[131] = 0xBB;
	put_be32(b + 132, 0x12345u << 12 | 0x06);
	b[136] = 0x33;
	b[137] = 0x44;
	b[138] = 0x3 << 4;
	b[139] = 0x1F << 3 | 4;        /* alternate ACK timeout 31, SAPSupported */
	b[140] = 0x77;
	b[231] = 0x99;

	assert_int_equal(uroce_cm_req_decode(&r, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(r.local_comm_id, 0x11223344);
	assert_true(uroce_cm_sid_is_ipcm(r.service_id));
	assert_int_equal(uroce_cm_sid_protocol(r.service_id), 6);
	assert_int_equal(uroce_cm_sid_port(r.service_id), 0x1D2F);
	assert_true(uroce_cm_ipcm_sid(6, 0x1D2F) == r.service_id);
	assert_true(r.local_ca_guid == 0x0002C9020024F634ull);
	assert_int_equal(r.local_qkey, 0x80010000);
	assert_int_equal(r.local_qpn, 0x870408);
	assert_int_equal(r.responder_resources, 4);
	assert_int_equal(r.local_eecn, 0x123456);
	assert_int_equal(r.initiator_depth, 5);
	assert_int_equal(r.remote_eecn, 0x654321);
	assert_int_equal(r.remote_cm_resp_timeout, 20);
	assert_int_equal(r.transport_type, 1);
	assert_string_equal(uroce_cm_transport_name(r.transport_type), "UC");
	assert_true(r.e2e_flow_control);
	assert_int_equal(r.starting_psn, 0xE1A47D);
	assert_int_equal(r.local_cm_resp_timeout, 19);
	assert_int_equal(r.retry_count, 6);
	assert_int_equal(r.pkey, 0x8001);
	assert_int_equal(r.path_mtu, 5);
	assert_true(r.rdc_exists);
	assert_int_equal(r.rnr_retry_count, 7);
	assert_int_equal(r.max_cm_retries, 15);
	assert_true(r.srq);
	assert_int_equal(r.ext_transport, 1);
	assert_int_equal(r.primary.local_lid, 4);
	assert_int_equal(r.primary.remote_lid, 1);
	assert_int_equal(r.primary.local_gid[0], 0xFE);
	assert_int_equal(r.primary.remote_gid[0], 0xFD);
	assert_int_equal(r.primary.flow_label, 0xABCDE);
	assert_int_equal(r.primary.rsv6, 0x15);
	assert_int_equal(r.primary.packet_rate, 3);
	assert_int_equal(r.primary.traffic_class, 0x22);
	assert_int_equal(r.primary.hop_limit, 0x40);
	assert_int_equal(r.primary.sl, 0xA);
	assert_true(r.primary.subnet_local);
	assert_int_equal(r.primary.rsv3, 5);
	assert_int_equal(r.primary.local_ack_timeout, 0x13);
	assert_int_equal(r.primary.rsv3b, 2);
	assert_int_equal(r.alternate.local_lid, 7);
	assert_int_equal(r.alternate.remote_lid, 8);
	assert_int_equal(r.alternate.local_gid[0], 0xAA);
	assert_int_equal(r.alternate.remote_gid[15], 0xBB);
	assert_int_equal(r.alternate.flow_label, 0x12345);
	assert_int_equal(r.alternate.packet_rate, 6);
	assert_int_equal(r.alternate.traffic_class, 0x33);
	assert_int_equal(r.alternate.hop_limit, 0x44);
	assert_int_equal(r.alternate.sl, 3);
	assert_false(r.alternate.subnet_local);
	assert_int_equal(r.alternate.local_ack_timeout, 31);
	assert_int_equal(r.alternate.rsv3b, 4);
	assert_int_equal(r.private_data[0], 0x77);
	assert_int_equal(r.private_data[UROCE_CM_REQ_PRIVATE_LEN - 1], 0x99);
}

static void test_rep_rej_mra_fields(void **state)
{
	uint8_t b[UROCE_CM_DATA_LEN] = {0};
	struct uroce_cm_rep rep;
	struct uroce_cm_rej rej;
	struct uroce_cm_mra mra;
	(void)state;

	put_be32(b, 1);
	put_be32(b + 4, 2);
	put_be32(b + 8, 0x1234);
	put_be24(b + 12, 0xFC0407);
	put_be24(b + 16, 0x000102);
	put_be24(b + 20, 0xD40A55);
	b[24] = 3;
	b[25] = 4;
	b[26] = 15 << 3 | 2 << 1 | 1;
	b[27] = 7 << 5 | 1 << 4 | 0x5;
	put_be64(b + 28, 0x0002C9020020B4DCull);
	b[36] = 0xEE;
	assert_int_equal(uroce_cm_rep_decode(&rep, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(rep.local_comm_id, 1);
	assert_int_equal(rep.remote_comm_id, 2);
	assert_int_equal(rep.local_qkey, 0x1234);
	assert_int_equal(rep.local_qpn, 0xFC0407);
	assert_int_equal(rep.local_eecn, 0x102);
	assert_int_equal(rep.starting_psn, 0xD40A55);
	assert_int_equal(rep.responder_resources, 3);
	assert_int_equal(rep.initiator_depth, 4);
	assert_int_equal(rep.target_ack_delay, 15);
	assert_int_equal(rep.failover_accepted, 2);
	assert_true(rep.e2e_flow_control);
	assert_int_equal(rep.rnr_retry_count, 7);
	assert_true(rep.srq);
	assert_int_equal(rep.rsv4, 5);
	assert_true(rep.local_ca_guid == 0x0002C9020020B4DCull);
	assert_int_equal(rep.private_data[0], 0xEE);

	memset(b, 0, sizeof(b));
	b[8] = 1 << 6;                 /* REP rejected */
	b[9] = 16 << 1;                /* 16 bytes of ARI */
	put_be16(b + 10, UROCE_CM_REJ_INVALID_SERVICE_ID);
	b[12] = 0x42;
	b[84] = 0x43;
	assert_int_equal(uroce_cm_rej_decode(&rej, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(rej.msg_rejected, 1);
	assert_string_equal(uroce_cm_msg_kind_name(rej.msg_rejected), "REP");
	assert_int_equal(rej.reject_info_len, 16);
	assert_int_equal(rej.reason, 8);
	assert_string_equal(uroce_cm_rej_reason_name(rej.reason), "Invalid Service ID");
	assert_int_equal(rej.ari[0], 0x42);
	assert_int_equal(rej.private_data[0], 0x43);

	memset(b, 0, sizeof(b));
	b[8] = 2 << 6;                 /* LAP MRAed */
	b[9] = 17 << 3;
	b[10] = 0x44;
	assert_int_equal(uroce_cm_mra_decode(&mra, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(mra.msg_mraed, 2);
	assert_int_equal(mra.service_timeout, 17);
	assert_int_equal(mra.private_data[0], 0x44);
}

static void test_lap_apr_sidr_fields(void **state)
{
	uint8_t b[UROCE_CM_DATA_LEN] = {0};
	struct uroce_cm_lap lap;
	struct uroce_cm_apr apr;
	struct uroce_cm_sidr_req sreq;
	struct uroce_cm_sidr_rep srep;
	(void)state;

	put_be24(b + 12, 0xABCDEF);
	b[15] = 21 << 3;
	put_be16(b + 20, 0x11);
	put_be16(b + 22, 0x22);
	b[24] = 0xFE;
	b[40] = 0xFD;
	put_be32(b + 56, 0x54321u << 12 | 0xAu << 8 | 0x60); /* flow label, reserved, tclass */
	b[60] = 9;
	b[61] = 2 << 6 | 0x2A;
	b[62] = 0xC << 4 | 1 << 3;
	b[63] = 0x0E << 3;
	b[64] = 0x5A;
	assert_int_equal(uroce_cm_lap_decode(&lap, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(lap.remote_qpn_eecn, 0xABCDEF);
	assert_int_equal(lap.remote_cm_resp_timeout, 21);
	assert_int_equal(lap.alt.local_lid, 0x11);
	assert_int_equal(lap.alt.remote_lid, 0x22);
	assert_int_equal(lap.alt.local_gid[0], 0xFE);
	assert_int_equal(lap.alt.remote_gid[0], 0xFD);
	assert_int_equal(lap.alt.flow_label, 0x54321);
	assert_int_equal(lap.alt.rsv6, 0xA);
	assert_int_equal(lap.alt.traffic_class, 0x60);
	assert_int_equal(lap.alt.hop_limit, 9);
	assert_int_equal(lap.rsv_rate, 2);
	assert_int_equal(lap.alt.packet_rate, 0x2A);
	assert_int_equal(lap.alt.sl, 0xC);
	assert_true(lap.alt.subnet_local);
	assert_int_equal(lap.alt.local_ack_timeout, 0x0E);
	assert_int_equal(lap.private_data[0], 0x5A);

	memset(b, 0, sizeof(b));
	b[8] = 72;
	b[9] = 5;
	b[12] = 1;
	b[84] = 2;
	assert_int_equal(uroce_cm_apr_decode(&apr, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(apr.add_info_len, 72);
	assert_int_equal(apr.ap_status, 5);
	assert_non_null(uroce_cm_apr_status_name(apr.ap_status));
	assert_int_equal(apr.add_info[0], 1);
	assert_int_equal(apr.private_data[0], 2);

	memset(b, 0, sizeof(b));
	put_be32(b, 0xCAFE);
	put_be16(b + 4, 0xFFFF);
	put_be64(b + 8, 0x1000000000000404ull);
	b[16] = 3;
	assert_int_equal(uroce_cm_sidr_req_decode(&sreq, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(sreq.request_id, 0xCAFE);
	assert_int_equal(sreq.pkey, 0xFFFF);
	assert_true(sreq.service_id == 0x1000000000000404ull);
	assert_false(uroce_cm_sid_is_ipcm(sreq.service_id));
	assert_int_equal(sreq.private_data[0], 3);

	memset(b, 0, sizeof(b));
	put_be32(b, 0xCAFE);
	b[4] = 3;
	b[5] = 0;
	put_be24(b + 8, 0x000048);
	put_be64(b + 12, 0x1000000000000404ull);
	put_be32(b + 20, 0x00000B1B);
	b[24] = 4;
	b[96] = 5;
	assert_int_equal(uroce_cm_sidr_rep_decode(&srep, b, sizeof(b)), UROCE_CM_DATA_LEN);
	assert_int_equal(srep.status, 3);
	assert_string_equal(uroce_cm_sidr_status_name(srep.status), "No QP available");
	assert_int_equal(srep.qpn, 0x48);
	assert_true(srep.service_id == 0x1000000000000404ull);
	assert_int_equal(srep.qkey, 0xB1B);
	assert_int_equal(srep.add_info[0], 4);
	assert_int_equal(srep.private_data[0], 5);
}

/* The IP-CM private data of the rxe capture's REQ (rxe-cm-write-read.pcap frame 1). */
static void test_ipcm(void **state)
{
	uint8_t pd[UROCE_CM_REQ_PRIVATE_LEN] = {0x00, 0x40, 0x93, 0xD7};
	uint8_t out[UROCE_CM_REQ_PRIVATE_LEN];
	struct uroce_cm_ipcm ip;
	(void)state;

	memcpy(pd + 4 + 12, (const uint8_t[]){192, 168, 65, 5}, 4);
	memcpy(pd + 20 + 12, (const uint8_t[]){192, 168, 65, 4}, 4);
	pd[36] = 0x11;
	assert_int_equal(uroce_cm_ipcm_decode(&ip, pd, sizeof(pd)), UROCE_CM_REQ_PRIVATE_LEN);
	assert_int_equal(ip.major, 0);
	assert_int_equal(ip.minor, 0);
	assert_int_equal(ip.ip_version, 4);
	assert_int_equal(ip.src_port, 0x93D7);
	assert_memory_equal(ip.src_ip + 12, ((const uint8_t[]){192, 168, 65, 5}), 4);
	assert_memory_equal(ip.dst_ip + 12, ((const uint8_t[]){192, 168, 65, 4}), 4);
	assert_int_equal(ip.consumer[0], 0x11);
	assert_int_equal(uroce_cm_ipcm_encode(&ip, out, sizeof(out)), UROCE_CM_REQ_PRIVATE_LEN);
	assert_memory_equal(pd, out, sizeof(pd));

	for (int r = 0; r < ROUNDS; r++) {
		uint8_t in[UROCE_CM_REQ_PRIVATE_LEN];
		fill_random(in, sizeof(in));
		assert_int_equal(uroce_cm_ipcm_decode(&ip, in, sizeof(in)), UROCE_CM_REQ_PRIVATE_LEN);
		assert_int_equal(uroce_cm_ipcm_encode(&ip, out, sizeof(out)), UROCE_CM_REQ_PRIVATE_LEN);
		assert_memory_equal(in, out, sizeof(in));
	}
	for (size_t cut = 0; cut < UROCE_CM_REQ_PRIVATE_LEN; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, pd, cut);
		assert_int_equal(uroce_cm_ipcm_decode(&ip, copy, cut), UROCE_ETRUNC);
		assert_int_equal(uroce_cm_ipcm_encode(&ip, copy, cut), UROCE_ENOSPACE);
		free(copy);
	}
}

/* Every entry of each X-macro list is found by its value; gaps are NULL. */
static void test_names(void **state)
{
	(void)state;
#define CHECK_ATTR(id, v, s, n)                                                 \
	assert_string_equal(uroce_cm_attr_name(v), n);                          \
	if (v != UROCE_CM_ATTR_CLASS_PORT_INFO)                                 \
		assert_string_equal(uroce_cm_msg_name(v), s);
	UROCE_CM_ATTR_MAP(CHECK_ATTR)
#undef CHECK_ATTR
#define CHECK_REJ(id, v, n) assert_string_equal(uroce_cm_rej_reason_name(v), n);
	UROCE_CM_REJ_REASON_MAP(CHECK_REJ)
#undef CHECK_REJ
#define CHECK_APR(id, v, n) assert_string_equal(uroce_cm_apr_status_name(v), n);
	UROCE_CM_APR_STATUS_MAP(CHECK_APR)
#undef CHECK_APR
#define CHECK_SIDR(id, v, n) assert_string_equal(uroce_cm_sidr_status_name(v), n);
	UROCE_CM_SIDR_STATUS_MAP(CHECK_SIDR)
#undef CHECK_SIDR
#define CHECK_KIND(id, v, n) assert_string_equal(uroce_cm_msg_kind_name(v), n);
	UROCE_CM_MSG_KIND_MAP(CHECK_KIND)
#undef CHECK_KIND
#define CHECK_TP(id, v, n) assert_string_equal(uroce_cm_transport_name(v), n);
	UROCE_CM_TRANSPORT_MAP(CHECK_TP)
#undef CHECK_TP
	assert_int_equal(UROCE_CM_REJ_CONSUMER_DEFINED, 28);
	assert_null(uroce_cm_rej_reason_name(0));
	assert_null(uroce_cm_rej_reason_name(34));
	assert_null(uroce_cm_rej_reason_name(36));
	assert_null(uroce_cm_apr_status_name(14));
	assert_null(uroce_cm_sidr_status_name(6));
	assert_null(uroce_cm_msg_kind_name(4));
	assert_null(uroce_cm_transport_name(4));
	assert_null(uroce_cm_attr_name(0x0002));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_unknown_attr),
		cmocka_unit_test(test_req_fields),
		cmocka_unit_test(test_rep_rej_mra_fields),
		cmocka_unit_test(test_lap_apr_sidr_fields),
		cmocka_unit_test(test_ipcm),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

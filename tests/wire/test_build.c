/* SPDX-License-Identifier: MIT */
/* Building RoCEv2 packets for every valid opcode (IPv4 and IPv6, with and without Ethernet):
 * the dissector reads back every field, the ICRC verifies, and a real rxe packet is
 * reproduced byte for byte. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "wire/build.h"
#include "wire/packet.h"

static void random_ext(struct uroce_ext *e, uint16_t headers)
{
	uint8_t raw[64];
	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)test_rand();
	assert_true(uroce_ext_decode(e, headers, raw, sizeof(raw)) >= 0);
}

static void test_every_opcode(void **state)
{
	uint8_t frame[4200], payload[1100];
	(void)state;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)i;
	for (unsigned v = 0; v < 256; v++) {
		const struct uroce_opcode_info *oi = uroce_opcode_info((uint8_t)v);
		if (!oi->name)
			continue;
		for (int variant = 0; variant < 4; variant++) {
			bool ipv6 = variant & 1, l2 = variant & 2;
			struct uroce_eth eth = {.dst = {2, 0, 0, 0, 0, 1}, .src = {2, 0, 0, 0, 0, 2}};
			struct uroce_rocev2_net net = {.ipv6 = ipv6, .src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2},
						       .tclass = 0x02, .hop_limit = 64, .sport = 0xC123};
			struct uroce_bth bth = {.opcode = (uint8_t)v, .pkey = 0xFFFF, .destqp = 0x123456 ^ v,
						.ackreq = true, .psn = 0xFFFFFF - v};
			struct uroce_ext ext;
			size_t plen = oi->flags & UROCE_OPF_PAYLOAD ? (size_t)(test_rand() % 1025) : 0;
			random_ext(&ext, oi->headers);

			ssize_t n = uroce_rocev2_build(frame, sizeof(frame), l2 ? &eth : NULL, &net, &bth,
						       &ext, payload, plen);
			assert_true(n > 0);
			struct uroce_pkt pkt;
			assert_int_equal(uroce_pkt_dissect(&pkt, l2 ? UROCE_LINK_ETHERNET : UROCE_LINK_IP,
							   frame, (size_t)n), 0);
			assert_int_equal(pkt.encap, UROCE_ENCAP_ROCEV2);
			assert_int_equal(pkt.bth.opcode, v);
			assert_int_equal(pkt.bth.destqp, bth.destqp);
			assert_int_equal(pkt.bth.psn, bth.psn);
			assert_int_equal(pkt.bth.padcnt, (0u - plen) & 3);
			assert_int_equal(pkt.payload_len, plen);
			assert_memory_equal(frame + pkt.payload_off, payload, plen);
			assert_int_equal(pkt.ext.present, ext.present);
			/* Re-encoding what was read gives the bytes that were built. */
			uint8_t again[64];
			ssize_t elen = uroce_ext_encode(&pkt.ext, again, sizeof(again));
			assert_true(elen >= 0);
			assert_memory_equal(again, frame + pkt.bth_off + UROCE_BTH_LEN, (size_t)elen);
			if (ext.present & UROCE_EH_RETH)
				assert_int_equal(pkt.ext.reth.va, ext.reth.va);
			assert_int_equal(uroce_pkt_icrc_check(&pkt, NULL), UROCE_CRC_OK);
			if (!ipv6) /* a correct IPv4 header sums to zero */
				assert_int_equal(uroce_ipv4_checksum(frame + pkt.l3_off, 20), 0);
			/* Too small a buffer is refused, never overrun. */
			assert_int_equal(uroce_rocev2_build(frame, (size_t)n - 1, l2 ? &eth : NULL, &net,
							    &bth, &ext, payload, plen), UROCE_ENOSPACE);
		}
	}
}

static void test_refuses_bad_input(void **state)
{
	uint8_t frame[256];
	struct uroce_rocev2_net net = {0};
	struct uroce_bth bth = {.opcode = 0x15}; /* not valid for RC */
	struct uroce_ext ext = {0};
	(void)state;

	assert_int_equal(uroce_rocev2_build(frame, sizeof(frame), NULL, &net, &bth, &ext, NULL, 0),
			 UROCE_EINVAL);
	bth.opcode = UROCE_OP_RC_RDMA_WRITE_ONLY; /* needs a RETH */
	assert_int_equal(uroce_rocev2_build(frame, sizeof(frame), NULL, &net, &bth, &ext, NULL, 0),
			 UROCE_EINVAL);
	bth.opcode = UROCE_OP_RC_SEND_ONLY;
	assert_int_equal(uroce_rocev2_build(frame, sizeof(frame), NULL, &net, &bth, &ext, NULL, 70000),
			 UROCE_EBADLEN);
	/* The largest datagrams: the IPv4 total length includes the 20-byte header, the IPv6
	 * payload length does not. UDP 8 + BTH 12 + ICRC 4 = 24 bytes around the payload, which
	 * is padded to a multiple of 4. */
	static uint8_t big[70000], payload[65536];
	assert_true(uroce_rocev2_build(big, sizeof(big), NULL, &net, &bth, &ext, payload, 65488) > 0);
	assert_int_equal(uroce_rocev2_build(big, sizeof(big), NULL, &net, &bth, &ext, payload, 65489),
			 UROCE_EBADLEN);
	net.ipv6 = true;
	assert_true(uroce_rocev2_build(big, sizeof(big), NULL, &net, &bth, &ext, payload, 65508) > 0);
	assert_int_equal(uroce_rocev2_build(big, sizeof(big), NULL, &net, &bth, &ext, payload, 65509),
			 UROCE_EBADLEN);
}

struct grab {
	size_t want, len;
	uint8_t buf[2048];
};

static void grab_frame(void *ctx, size_t number, enum uroce_link link, const uint8_t *data,
		       size_t len)
{
	struct grab *g = ctx;
	(void)link;
	if (number == g->want && len <= sizeof(g->buf)) {
		memcpy(g->buf, data, len);
		g->len = len;
	}
}

/* Rebuild rxe's RDMA WRITE ONLY (rxe-cm-write-read.pcap frame 4) from its decoded fields:
 * the result is the same bytes, ICRC included. */
static void test_reproduces_rxe_packet(void **state)
{
	char path[4200];
	struct grab g = {.want = 4};
	struct uroce_pkt pkt;
	uint8_t out[2048];
	(void)state;

	if (!test_captures_dir())
		skip();
	snprintf(path, sizeof(path), "%s/rxe-cm-write-read.pcap", test_captures_dir());
	assert_true(test_each_frame(path, grab_frame, &g) > 0);
	assert_int_equal(uroce_pkt_dissect(&pkt, UROCE_LINK_ETHERNET, g.buf, g.len), 0);
	struct uroce_rocev2_net net = {.tclass = pkt.ip4.tos, .hop_limit = pkt.ip4.ttl,
				       .ip_id = pkt.ip4.id, .sport = pkt.udp.sport};
	memcpy(net.src, pkt.ip4.src, 4);
	memcpy(net.dst, pkt.ip4.dst, 4);
	ssize_t n = uroce_rocev2_build(out, sizeof(out), &pkt.eth, &net, &pkt.bth, &pkt.ext,
				       g.buf + pkt.payload_off, pkt.payload_len);
	assert_int_equal(n, (ssize_t)(pkt.icrc_off + 4));
	assert_memory_equal(out, g.buf, (size_t)n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_opcode),
		cmocka_unit_test(test_refuses_bad_input),
		cmocka_unit_test(test_reproduces_rxe_packet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

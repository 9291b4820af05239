/* SPDX-License-Identifier: MIT */
/* Inbound validation, one test per rule, each named after the clause it checks: the Annex
 * A17 compliance statement (CA17-n) or section where the clause has no number, and the IBA
 * section for the transport header (docs/engine.md "Test names and clauses" says which
 * numbers are verified and where from): a packet that breaks
 * the rule is dropped silently (nothing sent, nothing executed, no completion) and counted
 * under its own counter, on the device and, once the QP is known, on the QP; the same
 * packet without the fault, or with a change the rule allows, is accepted. */
#include "inject.h"

#include "engine/priv.h"

#define PAYLOAD 16

static const uint8_t data[PAYLOAD] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* A device whose QP (RC, or another type) expects PSN 10 and has receives posted. */
static struct inj *setup(enum uroce_qp_type type, bool ipv6, struct h_buf *b)
{
	struct inj_opts o = {.type = type, .ipv6 = ipv6, .epsn = 10};
	struct inj *t = inj_new(&o);

	*b = inj_buf(t, 16 * 128, 1);
	for (int i = 0; i < 16; i++)
		h_post_recv(t->qp, (uint64_t)i, b, (size_t)i * 128, 128);
	return t;
}

static void teardown(struct inj *t, struct h_buf *b)
{
	h_buf_free(b);
	inj_free(t);
}

/* The SEND ONLY each test starts from: to the QP, at the PSN it expects, AckReq set (UD: the
 * QP's Q_Key in the DETH). */
static struct inj_hdr good(const struct inj *t)
{
	bool ud = t->qp->type == UROCE_QPT_UD;
	struct inj_hdr h = {.opcode = ud ? UROCE_OP_UD_SEND_ONLY
					  : t->qp->type == UROCE_QPT_UC ? UROCE_OP_UC_SEND_ONLY
									: UROCE_OP_RC_SEND_ONLY,
			    .psn = t->qp->resp.epsn, .ackreq = !ud, .payload = data, .len = PAYLOAD};
	h.ext.deth.qkey = INJ_QKEY;
	h.ext.deth.srcqp = INJ_PEER_QPN;
	return h;
}

/* Exactly counter c moved on the device (and on the QP when qp_too), nothing went out and
 * nothing completed. */
static void expect_drop(struct inj *t, const union uroce_counters *dev0,
			const union uroce_counters *qp0, enum uroce_counter c, bool qp_too)
{
	const union uroce_counters *dev = uroce_dev_counters(t->dev), *qp = uroce_qp_counters(t->qp);
	struct uroce_wc wc;

	for (enum uroce_counter k = 0; k < UROCE_NCOUNTERS; k++) {
		if (dev->v[k] != dev0->v[k] + (k == c))
			fail_msg("device %s went from %" PRIu64 " to %" PRIu64 "; only %s should move",
				 uroce_counter_name(k), dev0->v[k], dev->v[k], uroce_counter_name(c));
		if (qp->v[k] != qp0->v[k] + (k == c && qp_too))
			fail_msg("QP %s went from %" PRIu64 " to %" PRIu64, uroce_counter_name(k),
				 qp0->v[k], qp->v[k]);
	}
	assert_int_equal(inj_out(t), 0);
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
}

/* t->pkt (as built and edited) is dropped under c. */
static void deliver_dropped(struct inj *t, enum uroce_counter c, bool qp_too)
{
	union uroce_counters dev0 = *uroce_dev_counters(t->dev), qp0 = *uroce_qp_counters(t->qp);

	inj_deliver(t);
	expect_drop(t, &dev0, &qp0, c, qp_too);
}

/* t->pkt reaches the QP: counted as received, the message completes (and RC acknowledges
 * it with an ACK at its PSN). */
static void deliver_accepted(struct inj *t)
{
	uint64_t rcvd = h_counter(t->dev, UROCE_CNT_rcvd_pkts);
	uint32_t psn = t->qp->resp.epsn;
	struct uroce_wc wc;

	inj_deliver(t);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_rcvd_pkts), rcvd + 1);
	if (t->qp->type == UROCE_QPT_RC) {
		/* The ACK rule: the completion shows once its ACK has left. */
		assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 0);
		assert_int_equal(inj_out(t), 1);
		inj_expect_ack(&t->o[0], 0x1F, psn);
	} else {
		assert_int_equal(inj_out(t), 0);
	}
	assert_int_equal(uroce_cq_poll(t->cq, &wc, 1), 1);
	assert_int_equal(wc.status, UROCE_WC_SUCCESS);
	assert_int_equal(wc.opcode, UROCE_WC_RECV);
}

/* Annex A17 CA17-20 puts IANA's port 4791 in the UDP destination port and CA17-24 drops
 * received packets whose UDP header breaks A17.3.2: a datagram to another port is not
 * RoCEv2, whatever it holds (the ICRC, which covers the ports, made right). */
static void test_CA17_24_udp_destination_port_4791(void **state)
{
	static const uint16_t ports[] = {4790, 4792, 0, 0xFFFF, 4791 << 1};
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_RC, false, &b);
	struct inj_hdr h = good(t);
	(void)state;

	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		inj_build(t, &h);
		put_be16(t->pkt + 22, ports[i]);
		inj_fixup(t, false, true);
		deliver_dropped(t, UROCE_CNT_drop_udp_port, false);
	}
	inj_build(t, &h);
	deliver_accepted(t);
	teardown(t, &b);
}

/* Annex A17.3.2.4 (no compliance number): senders should set the UDP checksum to 0, and
 * CA17-22 (d) masks it out of the ICRC; so it is not checked on receipt: 0 and any other
 * value are accepted, the ICRC protects the packet. */
static void test_A17_3_2_4_udp_checksum_ignored(void **state)
{
	static const uint16_t sums[] = {0, 0xFFFF, 0xBEEF, 0x0001};
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_RC, false, &b);
	(void)state;

	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		struct inj_hdr h = good(t);
		inj_build(t, &h);
		put_be16(t->pkt + 26, sums[i]);
		deliver_accepted(t);
	}
	/* Over IPv6 too, where a UDP checksum of 0 is otherwise forbidden (RFC 8200). */
	struct h_buf b6;
	struct inj *t6 = setup(UROCE_QPT_RC, true, &b6);
	struct inj_hdr h6 = good(t6);
	inj_build(t6, &h6);
	assert_int_equal(get_be16(t6->pkt + 46), 0);
	deliver_accepted(t6);
	teardown(t6, &b6);
	teardown(t, &b);
}

/* Annex A17 CA17-24 drops received packets whose IP header breaks A17.3.1, and CA17-27
 * those whose IP version is not the one of their framing: a wrong IPv4 header checksum (a
 * field the ICRC masks, so only the checksum itself can catch it) and a fragment (CA17-7,
 * CA17-8: DF set, offset 0) are dropped as IP header faults; a header with options (CA17-3:
 * IHL 5), which the ICRC cannot be computed over, as unchecked; not UDP (CA17-10) or
 * another IP version, as not RoCEv2; another destination, as not local. What routers
 * change on the way (TTL, DSCP and ECN, with the checksum updated) is accepted. */
static void test_CA17_24_CA17_27_ip_header_checks(void **state)
{
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_RC, false, &b);
	struct inj_hdr h = good(t);
	struct uroce_io_addr other = h_addr(7, false);
	(void)state;

	inj_build(t, &h);
	t->pkt[11] ^= 0x40; /* the header checksum */
	deliver_dropped(t, UROCE_CNT_drop_ip_header, false);
	inj_build(t, &h);
	t->pkt[6] |= 0x20; /* more fragments */
	inj_fixup(t, true, true);
	deliver_dropped(t, UROCE_CNT_drop_ip_header, false);
	inj_build(t, &h);
	t->pkt[7] = 0x08; /* fragment offset 64 */
	inj_fixup(t, true, true);
	deliver_dropped(t, UROCE_CNT_drop_ip_header, false);
	/* Four bytes of options (NOP, NOP, NOP, end): IHL 6. */
	inj_build(t, &h);
	memmove(t->pkt + 24, t->pkt + 20, t->len - 20);
	memcpy(t->pkt + 20, (const uint8_t[]){1, 1, 1, 0}, 4);
	t->len += 4;
	t->pkt[0] = 0x46;
	put_be16(t->pkt + 2, (uint16_t)t->len);
	put_be16(t->pkt + 10, 0);
	put_be16(t->pkt + 10, uroce_ipv4_checksum(t->pkt, 24));
	deliver_dropped(t, UROCE_CNT_drop_icrc_unchecked, false);
	inj_build(t, &h);
	t->pkt[9] = 6; /* TCP */
	inj_fixup(t, true, true);
	deliver_dropped(t, UROCE_CNT_drop_malformed, false);
	for (int version = 0; version < 16; version++) {
		if (version == 4)
			continue;
		inj_build(t, &h);
		t->pkt[0] = (uint8_t)(version << 4 | 5);
		put_be16(t->pkt + 10, 0);
		put_be16(t->pkt + 10, uroce_ipv4_checksum(t->pkt, 20));
		deliver_dropped(t, UROCE_CNT_drop_malformed, false);
	}
	struct inj_hdr elsewhere = h;
	elsewhere.dst = &other;
	inj_build(t, &elsewhere);
	deliver_dropped(t, UROCE_CNT_drop_not_local, false);
	/* A router's work: TTL down, DSCP and ECN changed, checksum updated; no new ICRC. */
	inj_build(t, &h);
	t->pkt[8] = 3;
	t->pkt[1] = 0xB9;
	inj_fixup(t, true, false);
	deliver_accepted(t);
	teardown(t, &b);

	/* IPv6: hop limit, traffic class and flow label may change; the destination may not. */
	t = setup(UROCE_QPT_RC, true, &b);
	h = good(t);
	inj_build(t, &h);
	t->pkt[7] = 1;
	t->pkt[0] = 0x6F;
	t->pkt[3] = 0x55;
	deliver_accepted(t);
	other = h_addr(7, true);
	elsewhere = good(t);
	elsewhere.dst = &other;
	inj_build(t, &elsewhere);
	deliver_dropped(t, UROCE_CNT_drop_not_local, false);
	teardown(t, &b);
}

/* Annex A17 CA17-33: RoCEv2 has no subnet management, so there is no QP0: whatever is sent
 * to it is dropped. */
static void test_CA17_33_qp0_dropped(void **state)
{
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_UD, false, &b);
	(void)state;

	for (int i = 0; i < 2; i++) {
		struct inj_hdr h = good(t);
		if (i)
			h.opcode = UROCE_OP_RC_SEND_ONLY; /* a connected opcode, too */
		inj_build(t, &h);
		put_be24(t->pkt + inj_bth_off(t) + 5, 0);
		inj_fixup(t, false, true);
		deliver_dropped(t, UROCE_CNT_drop_qp0, false);
	}
	teardown(t, &b);
}

/* QP1, the General Services Interface (the one special QP of a RoCEv2 port, Annex A17.5.8),
 * takes only datagrams that carry its well-known Q_Key
 * 0x80010000 (IBA 13.5.1.1). A wrong key (or a packet with no DETH at all) is dropped as
 * such, whether or not the device has a GSI QP; one with the right key meets no GSI QP on
 * this device and counts as an unknown QP (test_gsi has the GSI QP itself). */
static void test_IBA13_5_1_1_qp1_gsi_qkey_0x80010000(void **state)
{
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_UD, false, &b);
	struct inj_hdr h = good(t);
	(void)state;

	h.destqp = 1;
	inj_build(t, &h);
	deliver_dropped(t, UROCE_CNT_drop_gsi_qkey, false);
	h.ext.deth.qkey = 0x80010001;
	inj_build(t, &h);
	deliver_dropped(t, UROCE_CNT_drop_gsi_qkey, false);
	struct inj_hdr rc = {.opcode = UROCE_OP_RC_SEND_ONLY, .destqp = 1, .payload = data,
			     .len = PAYLOAD};
	inj_build(t, &rc);
	deliver_dropped(t, UROCE_CNT_drop_gsi_qkey, false);
	h.ext.deth.qkey = 0x80010000;
	inj_build(t, &h);
	deliver_dropped(t, UROCE_CNT_drop_unknown_qp, false);
	teardown(t, &b);
}

/* IBA 9.6: the packet's P_Key must match the QP's (index 0: 0xFFFF, the default partition,
 * full member): the same 15-bit key, full or limited membership (IBA 10.9.3). */
static void test_IBA9_6_pkey_check(void **state)
{
	static const uint16_t bad[] = {0x0000, 0x8000, 0x1234, 0xFFFE, 0x7FFE, 0xBFFF};
	static const uint16_t fine[] = {0xFFFF, 0x7FFF};
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_RC, false, &b);
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct inj_hdr h = good(t);
		inj_build(t, &h);
		put_be16(t->pkt + inj_bth_off(t) + 2, bad[i]); /* 0 would mean "default" to inj */
		inj_fixup(t, false, true);
		deliver_dropped(t, UROCE_CNT_drop_bad_pkey, false);
	}
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		struct inj_hdr h = good(t);
		h.pkey = fine[i];
		inj_build(t, &h);
		deliver_accepted(t);
	}
	teardown(t, &b);
}

/* IBA 9.6, TVer: transport header version 0 is the only one; any other is dropped. */
static void test_IBA9_6_tver_0(void **state)
{
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_RC, false, &b);
	(void)state;

	for (uint8_t v = 1; v < 16; v++) {
		struct inj_hdr h = good(t);
		h.tver = v;
		inj_build(t, &h);
		deliver_dropped(t, UROCE_CNT_drop_bad_tver, false);
	}
	struct inj_hdr h = good(t);
	inj_build(t, &h);
	deliver_accepted(t);
	teardown(t, &b);
}

/* Annex A17 CA17-29: a RoCEv2 port ignores the BTH's FECN and BECN bits; and the BTH's
 * reserved fields are ignored on receipt (IBA 9.2): every one of those bits set, the packet
 * is accepted. Byte 8's reserved bits are covered by the ICRC (made right); byte 4 is
 * masked by it. */
static void test_CA17_29_fecn_becn_and_reserved_bits_ignored(void **state)
{
	struct h_buf b;
	(void)state;

	for (int type = 0; type < 2; type++) {
		struct inj *t = setup(type ? UROCE_QPT_UD : UROCE_QPT_RC, false, &b);
		struct inj_hdr h = good(t);
		inj_build(t, &h);
		t->pkt[inj_bth_off(t) + 4] = 0xFF; /* FECN, BECN, Resv6 */
		t->pkt[inj_bth_off(t) + 8] |= 0x7F; /* Resv7 */
		inj_fixup(t, false, true);
		deliver_accepted(t);
		teardown(t, &b);
	}
}

/* IBA 9.6: an opcode must belong to the QP's transport: UC and UD operations to an RC QP,
 * RC and UC ones to a UD QP are dropped, counted on the QP too. Reserved opcodes are not a
 * RoCEv2 packet at all. */
static void test_IBA9_6_opcode_not_valid_for_qp_type(void **state)
{
	static const uint8_t to_rc[] = {UROCE_OP_UC_SEND_ONLY, UROCE_OP_UD_SEND_ONLY,
					UROCE_OP_UC_RDMA_WRITE_ONLY};
	static const uint8_t to_ud[] = {UROCE_OP_RC_SEND_ONLY, UROCE_OP_UC_SEND_ONLY,
					UROCE_OP_RC_RDMA_READ_REQUEST};
	struct h_buf b;
	(void)state;

	for (int type = 0; type < 2; type++) {
		struct inj *t = setup(type ? UROCE_QPT_UD : UROCE_QPT_RC, false, &b);
		const uint8_t *ops = type ? to_ud : to_rc;
		for (int i = 0; i < 3; i++) {
			struct inj_hdr h = good(t);
			h.opcode = ops[i];
			h.len = uroce_opcode_info(ops[i])->flags & UROCE_OPF_PAYLOAD ? PAYLOAD : 0;
			inj_build(t, &h);
			deliver_dropped(t, UROCE_CNT_drop_wrong_transport, true);
		}
		struct inj_hdr h = good(t);
		inj_build(t, &h);
		t->pkt[inj_bth_off(t)] = 0x1E; /* reserved in every transport */
		inj_fixup(t, false, true);
		deliver_dropped(t, UROCE_CNT_drop_malformed, false);
		h = good(t);
		inj_build(t, &h);
		deliver_accepted(t);
		teardown(t, &b);
	}
}

/* Annex A17.4.4.2 (the L3 address validation of IBA 9.6.1.2.3 applied to IP addresses): a
 * connected QP (RC, UC) takes packets only from the address of its peer; UD takes them
 * from anyone. */
static void test_A17_4_4_2_connected_qp_source_address(void **state)
{
	struct uroce_io_addr stranger = h_addr(9, false);
	struct h_buf b;
	(void)state;

	for (int type = 0; type < 3; type++) {
		static const enum uroce_qp_type types[] = {UROCE_QPT_RC, UROCE_QPT_UC, UROCE_QPT_UD};
		struct inj *t = setup(types[type], false, &b);
		struct inj_hdr h = good(t);
		h.src = &stranger;
		inj_build(t, &h);
		if (types[type] == UROCE_QPT_UD)
			deliver_accepted(t);
		else
			deliver_dropped(t, UROCE_CNT_drop_wrong_src, true);
		teardown(t, &b);
	}
}

/* Gives t->pkt the pad count pad and `delta` more bytes before the ICRC (fewer when
 * negative: the last bytes before it go), with the IP and UDP lengths, the IPv4 header
 * checksum and the ICRC made right: a packet that is whole in every respect but its pad. */
static void repad(struct inj *t, uint8_t pad, int delta)
{
	size_t ip = inj_ip_len(t), bth = inj_bth_off(t), icrc = t->len - 4;

	if (delta > 0)
		memset(t->pkt + icrc, 0, (size_t)delta);
	t->len = (size_t)((ptrdiff_t)t->len + delta);
	t->pkt[bth + 1] = (uint8_t)((t->pkt[bth + 1] & ~0x30) | pad << 4);
	if (ip == 20)
		put_be16(t->pkt + 2, (uint16_t)t->len);
	else
		put_be16(t->pkt + 4, (uint16_t)(t->len - ip));
	put_be16(t->pkt + ip + 4, (uint16_t)(t->len - ip));
	inj_fixup(t, true, true);
}

/* IBA 9.2, PadCnt: the pad count is the 0..3 bytes that make the payload whole 4-byte words
 * (an InfiniBand packet is whole words, LRH.PktLen counting them; RoCEv2 carries the same
 * transport packet): pad = (-payload) & 3, so payload + pad is a multiple of 4. Every other
 * pad count, with the UDP length that goes with it, is a malformed packet, dropped in
 * silence before the QP is looked up: 5 bytes with no pad (the finding that started this),
 * a pad that does not complete the last word, or more pad than there are bytes. Each
 * payload of 0..9 bytes is accepted with its own pad, over RC and IPv4, UD and IPv6. */
static void test_IBA9_2_padcnt_makes_whole_words(void **state)
{
	struct h_buf b;
	(void)state;

	for (int v = 0; v < 2; v++) {
		struct inj *t = setup(v ? UROCE_QPT_UD : UROCE_QPT_RC, v != 0, &b);
		for (uint32_t len = 0; len < 10; len++) {
			uint8_t right = (uint8_t)(-len & 3);
			for (uint8_t pad = 0; pad < 4; pad++) {
				struct inj_hdr h = good(t);
				h.len = len;
				inj_build(t, &h);
				assert_int_equal(t->pkt[inj_bth_off(t) + 1] >> 4 & 3, right);
				if (pad == right) {
					deliver_accepted(t);
					continue;
				}
				repad(t, pad, (int)pad - right);
				deliver_dropped(t, UROCE_CNT_drop_bad_pad, false);
			}
		}
		/* More pad than bytes: a zero-length SEND that claims 1..3 bytes of pad. */
		for (uint8_t pad = 1; pad < 4; pad++) {
			struct inj_hdr h = good(t);
			h.len = 0;
			inj_build(t, &h);
			repad(t, pad, 0);
			deliver_dropped(t, UROCE_CNT_drop_bad_pad, false);
		}
		teardown(t, &b);
	}
}

/* IBA 9.2, PadCnt: a packet whose opcode carries no payload (ACK, READ request, atomics and
 * their acknowledgement, CNP) has nothing to pad, so its pad count is 0. One with a pad is
 * malformed and dropped in silence before it reaches the responder or the completer,
 * whether the pad stands alone (no byte after the headers) or with bytes that make whole
 * words. The same packets with pad 0 reach the QP: the READ is answered, the ACK (for
 * nothing outstanding) is a ghost for the completer. */
static void test_IBA9_2_no_padcnt_without_payload(void **state)
{
	struct h_buf b;
	struct inj *t = setup(UROCE_QPT_RC, false, &b);
	(void)state;

	struct uroce_ext read = {.reth = {.va = h_va(&b, 0), .rkey = uroce_mr_rkey(b.mr),
					  .dmalen = 8}};
	struct uroce_ext atomic = {.atomiceth = {.va = h_va(&b, 64), .rkey = uroce_mr_rkey(b.mr),
						 .swap = 1}};
	struct uroce_ext ack = {.aeth = {.syndrome = 0x1F}};
	const struct {
		uint8_t opcode;
		const struct uroce_ext *ext;
	} ops[] = {
		{UROCE_OP_RC_RDMA_READ_REQUEST, &read}, {UROCE_OP_RC_FETCH_ADD, &atomic},
		{UROCE_OP_RC_CMP_SWAP, &atomic},        {UROCE_OP_RC_ACKNOWLEDGE, &ack},
		{UROCE_OP_RC_ATOMIC_ACKNOWLEDGE, &ack}, {UROCE_OP_CNP_CNP, NULL},
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct inj_hdr h = {.opcode = ops[i].opcode, .psn = t->qp->resp.epsn, .ackreq = true};
		if (ops[i].ext)
			h.ext = *ops[i].ext;
		for (uint8_t pad = 1; pad < 4; pad++) {
			inj_build(t, &h);
			repad(t, pad, 0);
			deliver_dropped(t, UROCE_CNT_drop_bad_pad, false);
			inj_build(t, &h);
			repad(t, pad, 4);
			deliver_dropped(t, UROCE_CNT_drop_bad_pad, false);
		}
	}
	/* Pad 0: the READ request reaches the responder and is answered... */
	struct inj_hdr h = {.opcode = UROCE_OP_RC_RDMA_READ_REQUEST, .psn = t->qp->resp.epsn,
			    .ackreq = true, .ext = read};
	uint64_t rcvd = h_counter(t->dev, UROCE_CNT_rcvd_pkts);
	inj_send(t, &h);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_rcvd_pkts), rcvd + 1);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(t->o[0].bth.opcode, UROCE_OP_RC_RDMA_READ_RESPONSE_ONLY);
	assert_int_equal(t->o[0].payload_len, 8);
	/* ... and the ACK reaches the completer, which has nothing it could acknowledge. */
	h = (struct inj_hdr){.opcode = UROCE_OP_RC_ACKNOWLEDGE, .psn = INJ_SQ_PSN, .ext = ack};
	inj_send(t, &h);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_rcvd_pkts), rcvd + 2);
	assert_int_equal(inj_qp_counter(t, UROCE_CNT_drop_ghost_response), 1);
	assert_int_equal(h_counter(t->dev, UROCE_CNT_drop_bad_pad), 6 * 3 * 2);
	teardown(t, &b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_CA17_24_udp_destination_port_4791),
		cmocka_unit_test(test_A17_3_2_4_udp_checksum_ignored),
		cmocka_unit_test(test_CA17_24_CA17_27_ip_header_checks),
		cmocka_unit_test(test_CA17_33_qp0_dropped),
		cmocka_unit_test(test_IBA13_5_1_1_qp1_gsi_qkey_0x80010000),
		cmocka_unit_test(test_IBA9_6_pkey_check),
		cmocka_unit_test(test_IBA9_6_tver_0),
		cmocka_unit_test(test_CA17_29_fecn_becn_and_reserved_bits_ignored),
		cmocka_unit_test(test_IBA9_6_opcode_not_valid_for_qp_type),
		cmocka_unit_test(test_A17_4_4_2_connected_qp_source_address),
		cmocka_unit_test(test_IBA9_2_padcnt_makes_whole_words),
		cmocka_unit_test(test_IBA9_2_no_padcnt_without_payload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

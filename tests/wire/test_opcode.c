/* SPDX-License-Identifier: MIT */
/* The opcode table self-check: all 256 values, against IBA Vol. 1 Table 36 and Annex A17. */
#include "testutil.h"

#include <string.h>

#include "wire/opcode.h"

static bool has(uint8_t op, uint16_t hdr) { return uroce_opcode_info(op)->headers & hdr; }

/* Every one of the 256 values is either invalid (no name) or internally consistent. */
static void test_walk_all_256(void **state)
{
	unsigned valid[8] = {0};
	(void)state;

	for (unsigned v = 0; v < 256; v++) {
		const struct uroce_opcode_info *oi = uroce_opcode_info((uint8_t)v);
		enum uroce_transport tp = uroce_opcode_transport((uint8_t)v);
		if (!oi->name) {
			assert_int_equal(oi->headers, 0);
			assert_int_equal(oi->flags, 0);
			assert_false(uroce_opcode_valid((uint8_t)v));
			continue;
		}
		valid[v >> 5]++;
		/* The name starts with the transport of the upper three bits. */
		const char *tpn = uroce_transport_name(tp);
		assert_memory_equal(oi->name, tpn, strlen(tpn));
		assert_int_equal(oi->name[strlen(tpn)], '_');
		assert_string_equal(oi->name + strlen(tpn) + 1, oi->op_name);
		/* MIDDLE excludes FIRST and LAST; a packet is a request, a response or a CNP. */
		if (oi->flags & UROCE_OPF_MIDDLE)
			assert_int_equal(oi->flags & UROCE_OPF_ONLY, 0);
		else if (oi->kind != UROCE_OPK_CNP)
			assert_true(oi->flags & (UROCE_OPF_FIRST | UROCE_OPF_LAST));
		assert_false((oi->flags & UROCE_OPF_REQ) && (oi->flags & UROCE_OPF_RESP));
		assert_true((oi->flags & (UROCE_OPF_REQ | UROCE_OPF_RESP)) || oi->kind == UROCE_OPK_CNP);
		/* Transport headers: RD always RDETH, its requests DETH; UD DETH; XRC requests
		 * XRCETH and its responses none; RC and UC neither. */
		bool req = oi->flags & UROCE_OPF_REQ;
		assert_int_equal(has((uint8_t)v, UROCE_EH_RDETH), tp == UROCE_TP_RD);
		assert_int_equal(has((uint8_t)v, UROCE_EH_DETH), (tp == UROCE_TP_RD && req) || tp == UROCE_TP_UD);
		assert_int_equal(has((uint8_t)v, UROCE_EH_XRCETH), tp == UROCE_TP_XRC && req);
		/* Responses carry an AETH unless they are READ RESPONSE MIDDLE. */
		if (oi->flags & UROCE_OPF_RESP)
			assert_int_equal(has((uint8_t)v, UROCE_EH_AETH), !(oi->flags & UROCE_OPF_MIDDLE));
		/* RETH only on the first packet of a WRITE, on READ requests, FLUSH, ATOMIC WRITE. */
		if (has((uint8_t)v, UROCE_EH_RETH))
			assert_true(oi->flags & UROCE_OPF_FIRST);
		/* ImmDt and IETH only on the last packet of a message. */
		if (has((uint8_t)v, UROCE_EH_IMMDT | UROCE_EH_IETH))
			assert_true(oi->flags & UROCE_OPF_LAST);
	}
	static const unsigned expect[8] = {25, 12, 22, 2, 1, 25, 0, 0};
	assert_memory_equal(valid, expect, sizeof(expect));
}

/* Facts.md section 7: the values that common references get wrong. */
static void test_spot_values(void **state)
{
	(void)state;
	assert_string_equal(uroce_opcode_info(0x10)->name, "RC_RDMA_READ_RESPONSE_ONLY");
	assert_string_equal(uroce_opcode_info(0x12)->name, "RC_ATOMIC_ACKNOWLEDGE");
	assert_string_equal(uroce_opcode_info(0x13)->name, "RC_CMP_SWAP");
	assert_string_equal(uroce_opcode_info(0x14)->name, "RC_FETCH_ADD");
	assert_null(uroce_opcode_info(0x15)->name); /* RC has no RESYNC */
	assert_string_equal(uroce_opcode_info(0x55)->name, "RD_RESYNC");
	assert_string_equal(uroce_opcode_info(0x16)->name, "RC_SEND_LAST_WITH_INVALIDATE");
	assert_int_equal(uroce_opcode_info(0x17)->headers, UROCE_EH_IETH);
	assert_int_equal(uroce_opcode_info(0x1C)->headers, UROCE_EH_FETH | UROCE_EH_RETH);
	assert_int_equal(uroce_opcode_info(0x1D)->headers, UROCE_EH_RETH);
	assert_true(uroce_opcode_info(0x1D)->flags & UROCE_OPF_PAYLOAD);
	assert_string_equal(uroce_opcode_info(0x81)->name, "CNP_CNP");
	assert_int_equal(uroce_opcode_info(0x81)->headers, UROCE_EH_CNPRSV);
	assert_int_equal(UROCE_OP_UD_SEND_ONLY, 0x64);
	assert_int_equal(UROCE_OP_XRC_FETCH_ADD, 0xB4);
	assert_int_equal(UROCE_OP_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x2B);
	/* UC has no READ, atomics or ACKs; UD only SEND ONLY (with immediate). */
	for (unsigned v = 0x2C; v < 0x40; v++)
		assert_null(uroce_opcode_info((uint8_t)v)->name);
	for (unsigned v = 0x60; v < 0x80; v++)
		assert_int_equal(uroce_opcode_valid((uint8_t)v), v == 0x64 || v == 0x65);
	for (unsigned v = 0x80; v < 0xA0; v++)
		assert_int_equal(uroce_opcode_valid((uint8_t)v), v == 0x81);
	for (unsigned v = 0xC0; v < 0x100; v++)
		assert_false(uroce_opcode_valid((uint8_t)v));
	for (unsigned v = 0x18; v < 0x1C; v++)
		assert_false(uroce_opcode_valid((uint8_t)v));
}

static void test_header_lengths(void **state)
{
	(void)state;
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)->headers), 20);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_RD_RDMA_READ_REQUEST)->headers), 28);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_RC_CMP_SWAP)->headers), 28);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_RC_ATOMIC_ACKNOWLEDGE)->headers), 12);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE)->headers), 12);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_XRC_RDMA_WRITE_FIRST)->headers), 20);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_RC_FLUSH)->headers), 20);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_CNP_CNP)->headers), 16);
	assert_int_equal(uroce_exthdr_len(uroce_opcode_info(UROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE)->headers), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_all_256),
		cmocka_unit_test(test_spot_values),
		cmocka_unit_test(test_header_lengths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

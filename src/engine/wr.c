/* SPDX-License-Identifier: MIT */
#include "wr.h"

#include <stddef.h>

#define ALL_CONN (WRF_RC | WRF_UC)
#define NO_OP 0xFF

/* BTH operations: SEND 0x00 first, 0x01 middle, 0x02/0x03/0x16 last (plain, ImmDt, IETH),
 * 0x04/0x05/0x17 only; WRITE 0x06 first, 0x07 middle, 0x08/0x09 last, 0x0A/0x0B only; READ
 * 0x0C; CmpSwap 0x13; FetchAdd 0x14 (IBA 9.2 Table 36; facts.md section 7 for 0x12-0x17);
 * ATOMIC WRITE 0x1D (IBA 1.5, src/wire/opcode.h). */
/* X(opcode, flags, {first, middle, last, only}, completion opcode); the name is the
 * enumerator's, so the two cannot drift. */
#define ROW(op, fl, ops, wc) [UROCE_WR_##op] = {#op, (fl), ops, UROCE_WC_##wc},
#define OPS(f, m, l, o) {f, m, l, o}

static const struct wr_info table[UROCE_WR_OPCODE_MAX] = {
	ROW(RDMA_WRITE, ALL_CONN | WRF_REMOTE | WRF_CARRIES_DATA, OPS(0x06, 0x07, 0x08, 0x0A),
	    RDMA_WRITE)
	ROW(RDMA_WRITE_WITH_IMM, ALL_CONN | WRF_REMOTE | WRF_CARRIES_DATA,
	    OPS(0x06, 0x07, 0x09, 0x0B), RDMA_WRITE)
	ROW(SEND, ALL_CONN | WRF_UD | WRF_CARRIES_DATA, OPS(0x00, 0x01, 0x02, 0x04), SEND)
	ROW(SEND_WITH_IMM, ALL_CONN | WRF_UD | WRF_CARRIES_DATA, OPS(0x00, 0x01, 0x03, 0x05), SEND)
	ROW(RDMA_READ, WRF_RC | WRF_REMOTE | WRF_RD_ATOMIC | WRF_DEST_WRITE | WRF_READ_RESP,
	    OPS(NO_OP, NO_OP, NO_OP, 0x0C), RDMA_READ)
	ROW(ATOMIC_CMP_AND_SWP,
	    WRF_RC | WRF_REMOTE | WRF_RD_ATOMIC | WRF_ATOMIC | WRF_DEST_WRITE | WRF_LEN8,
	    OPS(NO_OP, NO_OP, NO_OP, 0x13), COMP_SWAP)
	ROW(ATOMIC_FETCH_AND_ADD,
	    WRF_RC | WRF_REMOTE | WRF_RD_ATOMIC | WRF_ATOMIC | WRF_DEST_WRITE | WRF_LEN8,
	    OPS(NO_OP, NO_OP, NO_OP, 0x14), FETCH_ADD)
	/* ATOMIC WRITE takes a responder resource and an initiator depth slot like a READ and
	 * is answered by a zero-length READ RESPONSE ONLY (Linux rxe: rxe_req.c check_init_depth,
	 * rxe_resp.c acknowledge -> send_read_response_ack). */
	ROW(ATOMIC_WRITE,
	    WRF_RC | WRF_REMOTE | WRF_RD_ATOMIC | WRF_CARRIES_DATA | WRF_LEN8 | WRF_READ_RESP,
	    OPS(NO_OP, NO_OP, NO_OP, 0x1D), ATOMIC_WRITE)
	ROW(LOCAL_INV, ALL_CONN | WRF_LOCAL, OPS(NO_OP, NO_OP, NO_OP, NO_OP), LOCAL_INV)
	/* IBA 1.2.1 added SEND with Invalidate to RC (and XRC) only: Table 36 has no UC row. */
	ROW(SEND_WITH_INV, WRF_RC | WRF_CARRIES_DATA, OPS(0x00, 0x01, 0x16, 0x17), SEND)
};

#undef ROW
#undef OPS

const struct wr_info *wr_info(enum uroce_wr_opcode op)
{
	if ((unsigned)op >= UROCE_WR_OPCODE_MAX || !table[op].name)
		return NULL;
	return &table[op];
}

const char *uroce_wr_opcode_name(enum uroce_wr_opcode op)
{
	const struct wr_info *wi = wr_info(op);
	return wi ? wi->name : NULL;
}

/* SPDX-License-Identifier: MIT */
/* The work-request table: for every send opcode, the QP types that accept it, the BTH
 * operations of its packets (low five opcode bits, IBA 9.2 Table 36), its completion opcode
 * and its properties. The requester, the completer and post_send read it instead of
 * switching on the opcode. */
#ifndef UROCE_ENGINE_WR_H
#define UROCE_ENGINE_WR_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

/* Packet position in a message: index into wr_info.op. */
enum pkt_pos { POS_FIRST, POS_MIDDLE, POS_LAST, POS_ONLY };

enum wr_flag {
	WRF_RC = 1u << 0,        /* valid on RC QPs */
	WRF_UC = 1u << 1,
	WRF_UD = 1u << 2,
	WRF_REMOTE = 1u << 3,    /* carries a remote address and R_Key */
	WRF_RD_ATOMIC = 1u << 4, /* READ or atomic: counts against max_rd_atomic */
	WRF_ATOMIC = 1u << 5,
	WRF_LOCAL = 1u << 6,     /* no packet (LOCAL_INV) */
	WRF_DEST_WRITE = 1u << 7, /* the local SGEs receive data (READ, atomics) */
	WRF_CARRIES_DATA = 1u << 8, /* the local SGEs are sent (SEND, WRITE, ATOMIC WRITE) */
	WRF_LEN8 = 1u << 9,       /* the SGEs hold exactly 8 bytes (atomics, ATOMIC WRITE) */
	WRF_READ_RESP = 1u << 10, /* answered by RDMA READ responses (READ, ATOMIC WRITE) */
};

struct wr_info {
	const char *name;
	uint16_t flags;           /* enum wr_flag set */
	uint8_t op[4];            /* low five BTH opcode bits by enum pkt_pos */
	enum uroce_wc_opcode wc;  /* completion opcode */
};

/* The entry of a valid opcode, or NULL. */
const struct wr_info *wr_info(enum uroce_wr_opcode op);
/* Position of packet k of n. */
static inline enum pkt_pos pkt_pos(uint32_t k, uint32_t n)
{
	assert(k < n);
	if (n == 1)
		return POS_ONLY;
	return k == 0 ? POS_FIRST : k + 1 == n ? POS_LAST : POS_MIDDLE;
}
/* The WRF_RC/UC/UD bit of a QP type. */
static inline uint16_t wr_qp_flag(enum uroce_qp_type t)
{
	return t == UROCE_QPT_RC ? WRF_RC : t == UROCE_QPT_UC ? WRF_UC : WRF_UD; /* UD, GSI */
}

#endif

/* SPDX-License-Identifier: MIT */
/* The engine fuzz target's harness (fuzz_engine.c), shared with its seed generator
 * (fuzz_engine_seeds.c), which writes scripts by running them step by step on the same pair
 * of engines. The input format is described in fuzz_engine.c and docs/fuzzing.md. */
#ifndef UROCE_FUZZ_ENGINE_H
#define UROCE_FUZZ_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* The QPs of each node, connected to the same index on the other node. QP_RD has a small CQ
 * of its own, max_dest_rd_atomic 1 and max_rd_atomic 2 (each end may ask more of the other
 * than it accepts), no retransmission timer and endless RNR retries; QP_SRQ runs over IPv6. */
enum { QP_RC, QP_UC, QP_UD, QP_SRQ, QP_GSI, QP_RD, NQP };

/* Registered regions of each node. */
enum { R_DATA, R_LOCAL, R_INV, R_RO, NREGION };

/* Steps: the op byte's low four bits (modulo NOPS), bit 4 the node, bits 5-7 flags. */
enum op {
	OP_INJECT, OP_MUTATE, OP_DELIVER, OP_DROP, OP_DUP, OP_TIME, OP_POST, OP_SWAP,
	OP_MODIFY, OP_CONTROL, OP_OBJECT, OP_SETTLE, NOPS
};
#define F_NODE 0x10
#define F_FIX 0x20    /* inject, mutate: lengths, checksum and ICRC made right; settle: time too */
#define F_FRAMED 0x40 /* inject: a transport part behind the harness's IP/UDP headers */
#define F_X 0x80      /* inject: framed, over IPv6; raw, an io flags byte follows the length */

/* post: the flags byte. */
#define P_TARGET 0x03    /* remote region: enum target */
#define P_UNSIGNALED 0x04
#define P_FENCE 0x08
#define P_SOLICITED 0x10
#define P_INLINE 0x20
#define P_BAD_LOCAL 0x40 /* local SGEs under a key that does not cover them */
#define P_X 0x80         /* datagram QPs: the IPv6 address handle; else one SGE too many */

/* post: the remote region a work request aims at (the flags' low bits). */
enum target { T_DATA, T_INV, T_RO, T_STALE /* the data region's previous key */ };

/* control: the what byte (modulo NCONTROL), then one argument byte. */
enum control {
	C_SRQ_LIMIT, C_PORT, C_HOLD_EVENTS, C_HOLD_CQ, C_REREG, C_TX_CAP, C_RECREATE,
	C_RECONNECT, NCONTROL
};

#define OUTBOX 64 /* packets in flight from one engine */

struct region {
	uint8_t *mem; /* GUARD + len + GUARD bytes */
	size_t len;
	uint64_t iova;
	unsigned access;
	struct uroce_mr *mr;
};

struct node {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq, *cq_small; /* cq_small: QP_RD's */
	struct uroce_qp *qp[NQP];
	struct uroce_srq *srq;          /* QP_SRQ's receives */
	struct uroce_ah *ah[2];         /* to the peer over IPv4, IPv6 */
	struct region reg[NREGION];
	struct uroce_io_addr gid[2];    /* IPv4, IPv6 */
	uint64_t send_id[NQP], recv_id[NQP];     /* the next wr_id to post (increasing) */
	uint64_t send_done[NQP], recv_done[NQP]; /* one past the last wr_id completed */
	uint64_t recv_calls;
	bool posted;        /* a send was posted since the last flush_out */
	bool port_up, hold_events, hold_cq, cq_held;
	uint32_t tx_cap;    /* transmit buffer size handed to the engine */
	/* in flight to the other engine */
	uint8_t box[OUTBOX][UROCE_MAX_DATAGRAM];
	uint32_t box_len[OUTBOX];
	uint32_t head, count;
};

extern struct node g_node[2];
extern uint64_t g_now;
/* The multicast group of each family (IPv4, IPv6) that both engines' UD QPs are attached to. */
extern const struct uroce_io_addr fuzz_engine_group[2];

struct reader {
	const uint8_t *p;
	size_t n;
};

/* A fresh pair, connected, with the initial work posted and its first packets written. */
void fuzz_engine_pair_new(void);
void fuzz_engine_pair_free(void);
/* One step of the script, then what follows every step: both engines write what they
 * have, and every invariant is checked. */
void fuzz_engine_step(struct reader *r);
/* The clean finish: everything delivered and time moved on until both engines are quiet
 * (bounded), then the final checks. */
void fuzz_engine_finish(void);

#endif

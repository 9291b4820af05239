/* SPDX-License-Identifier: MIT */
/* The CM fuzz target's script (fuzz_cm.c) and what its seed generator (fuzz_cm_seeds.c)
 * needs to write scripts and check that each reached its case. */
#ifndef UROCE_FUZZ_CM_H
#define UROCE_FUZZ_CM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cm/cm.h"

#define FC_NODES 3
#define FC_SLOTS 12               /* IDs a node's script can name */
#define FC_SID_TCP 0x0000000001064853ull
#define FC_SID_UDP 0x0000000001111C06ull

/* A step: an op byte (bits 0-3 the op, modulo FC_NOPS; bits 4-5 the node, modulo 3; bits 6
 * and 7 two flags) and its operands. */
enum fc_op {
	FC_API,      /* u8 call, u8 slot, u8 arg, u8 peer: a call (enum fc_call) */
	FC_EVENTS,   /* the node's events taken; flag 6: answered as rdma_cm would */
	FC_DELIVER,  /* u8 n: the next n MADs in flight delivered, in order */
	FC_DROP,     /* the next MAD in flight lost */
	FC_DUP,      /* the next MAD in flight delivered and kept */
	FC_SWAP,     /* the next two MADs in flight change places */
	FC_MUTATE,   /* u8 edits, (u8 offset, u8 xor) per edit: the next MAD changed, delivered */
	FC_INJECT,   /* u8 attr, u8 len, len bytes: a MAD made here, delivered to the node
		      * (flag 6: its comm IDs those of a slot's ID, flag 7: from a stranger) */
	FC_TIME,     /* u8 k: 4.096 us x 2^(k mod 32) pass, every timer due runs */
	FC_SETTLE,   /* everything delivered, events answered, until nothing moves */
	FC_DOWN,     /* the node stops (or starts again) sending and receiving */
	FC_NOPS
};

enum fc_call {
	FC_CONNECT,  /* slot: a new ID unless one is there; peer: the node; arg: bit 0 IPv6, bits
		      * 1-4 max CM retries, bits 5-7 the CM response timeouts (4 + 2 x) */
	FC_ACCEPT,
	FC_RTU,
	FC_REJ,      /* arg: the reason */
	FC_MRA,      /* arg: the service timeout and the delay flag */
	FC_DREQ,
	FC_DREP,
	FC_ESTABLISH,
	FC_SIDR_REQ, /* peer: the node; arg: bits 0-3 retries, bits 4-7 the timeout */
	FC_SIDR_REP, /* arg: the status */
	FC_DESTROY,
	FC_LISTEN,   /* arg: 0 TCP, 1 UDP, 2 a range of TCP ports, else the Service ID arg */
	FC_QUERY,
	FC_NCALLS
};

/* Runs a script from fresh CMs (as LLVMFuzzerTestOneInput does) and leaves them for
 * inspection until the next run; fc_finish then ends them (clean finish and checks). */
void fc_run(const uint8_t *data, size_t size);
void fc_finish(void);
struct uroce_cm *fc_cm(int node);
struct uroce_cm_id *fc_slot(int node, int slot);
/* How many events of type t the node took during the script. */
int fc_events(int node, enum uroce_cm_event_type t);

#endif

/* SPDX-License-Identifier: MIT */
/* The transmit path: the only place that turns engine state into datagram bytes (the role
 * of rxe_net.c), through uroce_rocev2_build so that lengths, pad and ICRC come from the
 * wire layer. */
#ifndef UROCE_ENGINE_XMIT_H
#define UROCE_ENGINE_XMIT_H

#include <stdint.h>

#include "priv.h"
#include "wire/ib.h"

/* One packet to build. ext->present is filled from the opcode. */
struct xmit_pkt {
	const struct uroce_ah_attr *av; /* destination */
	uint8_t opcode;
	uint32_t destqp, psn;
	bool ackreq, se;
	bool becn;                      /* a CNP's */
	uint16_t pkey;                  /* 0: 0xFFFF, the default partition */
	struct uroce_ext ext;
	const uint8_t *payload;
	uint32_t len;
};

/* Appends the packet to tx (which must have room) and counts it, or counts send_err when
 * the caller's buffer is too small: the packet is then lost as if on the wire, and the
 * protocol recovers as from any loss. */
void xmit(struct uroce_qp *qp, struct uroce_txbatch *tx, struct xmit_pkt *pkt, uint64_t now);

#endif

/* SPDX-License-Identifier: MIT */
#include "xmit.h"

#include <assert.h>
#include <string.h>

#include "cc.h"
#include "wire/build.h"

void xmit(struct uroce_qp *qp, struct uroce_txbatch *tx, struct xmit_pkt *pkt, uint64_t now)
{
	struct uroce_dev *dev = qp->dev;
	const struct uroce_ah_attr *av = pkt->av;
	const struct uroce_io_addr *src = &dev->cfg.gid[av->sgid_index];
	struct uroce_io_pkt *out = &tx->pkts[tx->n];

	/* The callers' turns make one packet each, and start only with room for it. */
	assert(tx->n < tx->max);
	struct uroce_rocev2_net net = {
		.ipv6 = src->ipv6,
		.tclass = pkt->opcode == UROCE_OP_CNP_CNP ? av->traffic_class
							  : cc_tclass(qp, av->traffic_class),
		.hop_limit = av->hop_limit ? av->hop_limit : 64,
		.flowlabel = av->flow_label,
		.sport = qp->sport,
	};
	/* P_Key: the default partition, full membership (rxe sends 0xFFFF only, facts.md
	 * section 3), but in a CNP, which copies the marked packet's. M is 0: no path
	 * migration. */
	struct uroce_bth bth = {.opcode = pkt->opcode, .se = pkt->se,
				.pkey = pkt->pkey ? pkt->pkey : 0xFFFF, .becn = pkt->becn,
				.destqp = pkt->destqp, .ackreq = pkt->ackreq, .psn = pkt->psn};

	memcpy(net.src, src->ip, 16);
	memcpy(net.dst, av->dgid.ip, 16);
	pkt->ext.present = uroce_opcode_info(pkt->opcode)->headers;
	ssize_t n = uroce_rocev2_build(out->data, out->cap, NULL, &net, &bth, &pkt->ext,
				       pkt->payload, pkt->len);
	if (n < 0) {
		eng_count(dev, qp, UROCE_CNT_send_err);
		return;
	}
	out->len = (uint32_t)n;
	out->flags = 0;
	out->ts_ns = now;
	out->tos = net.tclass;
	/* A CNP's priority is cnp_802p_prio; other packets keep the socket's. */
	out->prio = pkt->opcode == UROCE_OP_CNP_CNP ? dev->cfg.cc.cnp_prio : 0;
	out->src = *src;
	out->dst = av->dgid;
	tx->n++;
	eng_count(dev, qp, UROCE_CNT_sent_pkts);
	if (uroce_opcode_info(pkt->opcode)->flags & UROCE_OPF_REQ)
		cc_sent(qp, out->len, now);
}

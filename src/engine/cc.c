/* SPDX-License-Identifier: MIT */
#include "cc.h"

#include <string.h>

#include "common/error.h"
#include "wire/ip.h"
#include "xmit.h"

#define ECN_MASK 0x03
#define ECN_CE 0x03
#define ECT0 0x02

/* The algorithms, by enum uroce_cc_algo. */
static const struct cc_ops *const algos[UROCE_CC_COUNT] = {
	[UROCE_CC_NONE] = NULL,
	[UROCE_CC_DCQCN] = &dcqcn_ops,
};

const struct cc_ops *cc_algo(enum uroce_cc_algo algo)
{
	return algos[algo];
}

/* A zero field takes its default (engine.h says where each comes from). */
#define DEFAULT(field, value)                                                                      \
	do {                                                                                       \
		if (!cfg->field)                                                                   \
			cfg->field = (value);                                                      \
	} while (0)

bool cc_cfg_resolve(struct uroce_cc_cfg *cfg)
{
	if ((unsigned)cfg->algo >= UROCE_CC_COUNT || cfg->ecn > ECT0 ||
	    cfg->cnp_dscp > 63 || cfg->cnp_prio > 7 || cfg->g_shift > 16)
		return false;
	DEFAULT(ecn, ECT0);
	DEFAULT(cnp_dscp, 48);
	DEFAULT(min_time_between_cnps_ns, 50000);
	DEFAULT(line_rate, 25000000000ull);
	DEFAULT(min_rate, 1000000);
	DEFAULT(ai_rate, 40000000);
	DEFAULT(hai_rate, 400000000);
	DEFAULT(g_shift, 8);
	DEFAULT(alpha_period_ns, 55000);
	DEFAULT(time_reset_ns, 55000);
	DEFAULT(byte_reset, 10000000);
	DEFAULT(threshold, 5);
	return cfg->min_rate <= cfg->line_rate;
}

void cc_qp_start(struct uroce_qp *qp, uint64_t now)
{
	struct qp_cc *cc = &qp->cc;

	qp_timer_stop(qp, QP_TIMER_PACE);
	qp_timer_stop(qp, QP_TIMER_CC0);
	qp_timer_stop(qp, QP_TIMER_CC1);
	cc->ops = qp->type == UROCE_QPT_GSI ? NULL : qp->dev->cc;
	cc->rate = qp->dev->cfg.cc.line_rate;
	cc->limit = 0;
	cc->pace_start = 0;
	cc->pace_bytes = 0;
	cc->cnp_due = cc->cnp_sent = false;
	memset(&cc->alg, 0, sizeof(cc->alg));
	if (cc->ops)
		cc->ops->start(qp, now);
}

uint8_t cc_tclass(const struct uroce_qp *qp, uint8_t av_tclass)
{
	return qp->cc.ops ? (uint8_t)((av_tclass & ~ECN_MASK) | qp->dev->cfg.cc.ecn) : av_tclass;
}

uint64_t uroce_qp_cc_rate(const struct uroce_qp *qp)
{
	return qp->cc.ops ? qp->cc.rate : UINT64_MAX;
}

int uroce_qp_set_rate_limit(struct uroce_qp *qp, uint64_t bps)
{
	if (qp->type == UROCE_QPT_GSI)
		return UROCE_EINVAL;
	qp->cc.limit = bps;
	cc_rate_changed(qp, 0); /* a QP waiting for its pace timer may go sooner now */
	return 0;
}

/* ---- the pacer ---- */

/* The rate the pacer holds the requester to: the algorithm's below the line rate, the
 * application's limit, the lower of the two; UINT64_MAX: unpaced. */
uint64_t cc_pace_rate(const struct uroce_qp *qp)
{
	const struct qp_cc *cc = &qp->cc;
	uint64_t r = cc->ops && cc->rate < qp->dev->cfg.cc.line_rate ? cc->rate : UINT64_MAX;

	return cc->limit && cc->limit < r ? cc->limit : r;
}

uint64_t cc_next_send(const struct uroce_qp *qp)
{
	const struct qp_cc *cc = &qp->cc;
	uint64_t rate = cc_pace_rate(qp);

	if (rate == UINT64_MAX || !cc->pace_bytes)
		return 0;
	return cc->pace_start + (uint64_t)cc->pace_bytes * 8000000000ull / rate;
}

bool cc_may_send(struct uroce_qp *qp, uint64_t now)
{
	uint64_t next = cc_next_send(qp);

	if (now >= next)
		return true;
	qp_timer_arm(qp, QP_TIMER_PACE, next);
	return false;
}

void cc_rate_changed(struct uroce_qp *qp, uint64_t now)
{
	if (!qp_timer_armed(qp, QP_TIMER_PACE))
		return;
	uint64_t next = cc_next_send(qp);
	if (next > now) {
		qp_timer_arm(qp, QP_TIMER_PACE, next);
	} else {
		qp_timer_stop(qp, QP_TIMER_PACE);
		sched_add(qp);
	}
}

void cc_pace_end(struct uroce_qp *qp, uint64_t now)
{
	(void)now;
	sched_add(qp);
}

void cc_sent(struct uroce_qp *qp, uint32_t bytes, uint64_t now)
{
	struct qp_cc *cc = &qp->cc;

	/* The packet's slot on a link of the QP's rate, from when it left (or from when the
	 * previous one's ended, for a QP sending back to back). A QP that was idle does not bank
	 * the time: no burst after a pause. */
	if (cc_pace_rate(qp) != UINT64_MAX) {
		uint64_t next = cc_next_send(qp);
		cc->pace_start = next > now ? next : now;
		cc->pace_bytes = bytes;
	} else {
		cc->pace_bytes = 0;
	}
	if (cc->ops)
		cc->ops->on_sent(qp, bytes, now);
}

void cc_timer0(struct uroce_qp *qp, uint64_t now)
{
	if (qp->cc.ops)
		qp->cc.ops->on_timer(qp, 0, now);
}

void cc_timer1(struct uroce_qp *qp, uint64_t now)
{
	if (qp->cc.ops)
		qp->cc.ops->on_timer(qp, 1, now);
}

/* ---- the notification point (Annex A17.9.2, CA17-44) ---- */

/* The index of the device's GID that is addr, or -1. */
static int gid_index(const struct uroce_dev *dev, const uint8_t *ip, bool ipv6)
{
	for (uint32_t i = 0; i < dev->cfg.ngids; i++)
		if (dev->cfg.gid[i].ipv6 == ipv6 && !memcmp(dev->cfg.gid[i].ip, ip, ipv6 ? 16 : 4))
			return (int)i;
	return -1;
}

void cc_np_marked(struct uroce_qp *qp, const struct uroce_pkt *pkt, uint64_t now)
{
	struct qp_cc *cc = &qp->cc;
	const struct uroce_cc_cfg *cfg = &qp->dev->cfg.cc;
	bool v6 = pkt->layers & UROCE_L_IPV6;
	uint8_t tclass = v6 ? pkt->ip6.tclass : pkt->ip4.tos;

	if ((tclass & ECN_MASK) != ECN_CE)
		return;
	eng_count(qp->dev, qp, UROCE_CNT_np_ecn_marked_roce_packets);
	/* QP1's MADs get none: a CNP to QP1 carries no GSI Q_Key, and its receiver drops it */
	if (cfg->np_off || qp->type == UROCE_QPT_GSI || cc->cnp_due ||
	    (cc->cnp_sent && now - cc->last_cnp < cfg->min_time_between_cnps_ns))
		return;
	const uint8_t *src = v6 ? pkt->ip6.src : pkt->ip4.src;
	const uint8_t *dst = v6 ? pkt->ip6.dst : pkt->ip4.dst;
	int sgid = gid_index(qp->dev, dst, v6);
	if (sgid < 0)
		return; /* a group's datagram: no CNP for multicast */
	/* To the QP that sent the marked packet (facts.md section 4): a connected QP's peer, or
	 * the datagram's source QP. */
	cc->cnp_qpn = pkt->ext.present & UROCE_EH_DETH ? pkt->ext.deth.srcqp
						       : qp->attr.dest_qp_num;
	cc->cnp_pkey = pkt->bth.pkey;
	memset(&cc->cnp_av, 0, sizeof(cc->cnp_av));
	cc->cnp_av.dgid.ipv6 = v6;
	memcpy(cc->cnp_av.dgid.ip, src, v6 ? 16 : 4);
	cc->cnp_av.sgid_index = (uint8_t)sgid;
	/* DSCP 48 and ECT(0), as a ConnectX-4 Lx sends them (facts.md section 4) */
	cc->cnp_av.traffic_class = (uint8_t)(cfg->cnp_dscp << 2 | ECT0);
	cc->cnp_due = true;
	sched_add(qp);
}

bool cc_np_emit(struct uroce_qp *qp, struct uroce_txbatch *tx, uint64_t now)
{
	struct qp_cc *cc = &qp->cc;

	if (!cc->cnp_due)
		return false;
	/* BTH: BECN set as a ConnectX sends it, PSN 0, the marked packet's P_Key; then 16
	 * reserved zero bytes (Annex A17.9.3). */
	struct xmit_pkt p = {.av = &cc->cnp_av, .opcode = UROCE_OP_CNP_CNP, .destqp = cc->cnp_qpn,
			     .becn = true, .pkey = cc->cnp_pkey};
	cc->cnp_due = false;
	cc->cnp_sent = true;
	cc->last_cnp = now;
	xmit(qp, tx, &p, now);
	eng_count(qp->dev, qp, UROCE_CNT_np_cnp_sent);
	return true;
}

/* ---- the reaction point ---- */

void cc_cnp_rcvd(struct uroce_qp *qp, uint64_t now)
{
	if (!qp->cc.ops) {
		eng_count(qp->dev, qp, UROCE_CNT_rp_cnp_ignored);
		return;
	}
	eng_count(qp->dev, qp, UROCE_CNT_rp_cnp_handled);
	qp->cc.ops->on_cnp(qp, now);
}

/* SPDX-License-Identifier: MIT */
/* DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015), as its authors' ns-3 code runs it (facts.md section 4, bobzhuyb/ns3-rdma):
 *  - a CNP: R_T = R_C; alpha = (1 - g) alpha + g; R_C = max(R_min, R_C (1 - alpha / 2)); the
 *    increase timer, the byte counter and both stages start over;
 *  - alpha decays, alpha = (1 - g) alpha, once per alpha period without a CNP (timer 0);
 *  - increase events, each with its stage count: the timer T (timer 1) and every B bytes
 *    sent. While both stages are below F, fast recovery R_C = (R_T + R_C) / 2; once one
 *    reaches F, additive increase (R_T += R_AI first); once both do, hyper increase
 *    (R_T += R_HAI (min stage - F + 1) first). Rates never pass the line rate.
 * The timers stop once the QP is back at line rate with alpha at its floor, so an idle or
 * uncongested QP costs nothing. Fixed point: alpha in units of 2^-20. */
#include "cc.h"

#define ALPHA_ONE (1u << 20)
#define ALPHA_FLOOR (ALPHA_ONE >> 10) /* below this, alpha's decay timer stops */

static const struct uroce_cc_cfg *cfg_of(const struct uroce_qp *qp)
{
	return &qp->dev->cfg.cc;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void start(struct uroce_qp *qp, uint64_t now)
{
	struct dcqcn *d = &qp->cc.alg.dcqcn;

	(void)now;
	d->target = qp->cc.rate;
	d->alpha = ALPHA_ONE; /* mlx5's initial_alpha 1023 of 1023: the first cut halves */
}

/* The increase timer runs while the rate is below the line rate; alpha's while it decays. */
static void arm_timers(struct uroce_qp *qp, uint64_t now, bool restart_increase)
{
	const struct uroce_cc_cfg *cfg = cfg_of(qp);
	struct dcqcn *d = &qp->cc.alg.dcqcn;

	if (qp->cc.rate < cfg->line_rate) {
		if (restart_increase || !qp_timer_armed(qp, QP_TIMER_CC1))
			qp_timer_arm(qp, QP_TIMER_CC1, now + cfg->time_reset_ns);
	} else {
		qp_timer_stop(qp, QP_TIMER_CC1);
	}
	if (d->alpha > ALPHA_FLOOR) {
		if (!qp_timer_armed(qp, QP_TIMER_CC0))
			qp_timer_arm(qp, QP_TIMER_CC0, now + cfg->alpha_period_ns);
	} else {
		qp_timer_stop(qp, QP_TIMER_CC0);
	}
}

static void on_cnp(struct uroce_qp *qp, uint64_t now)
{
	const struct uroce_cc_cfg *cfg = cfg_of(qp);
	struct dcqcn *d = &qp->cc.alg.dcqcn;
	uint64_t rc = qp->cc.rate;

	d->target = rc;
	d->alpha += (ALPHA_ONE - d->alpha) >> cfg->g_shift;
	rc -= (rc >> 1) * d->alpha / ALPHA_ONE;
	qp->cc.rate = rc < cfg->min_rate ? cfg->min_rate : rc;
	d->t_stage = d->b_stage = 0;
	d->bytes = 0;
	/* alpha's period starts again: it decays only after a period without a CNP */
	qp_timer_arm(qp, QP_TIMER_CC0, now + cfg->alpha_period_ns);
	arm_timers(qp, now, true);
	cc_rate_changed(qp, now);
}

static void increase(struct uroce_qp *qp, uint64_t now)
{
	const struct uroce_cc_cfg *cfg = cfg_of(qp);
	struct dcqcn *d = &qp->cc.alg.dcqcn;
	uint32_t lo = d->t_stage < d->b_stage ? d->t_stage : d->b_stage;
	uint32_t hi = d->t_stage < d->b_stage ? d->b_stage : d->t_stage;

	if (lo >= cfg->threshold)
		d->target += cfg->hai_rate * (lo - cfg->threshold + 1);
	else if (hi >= cfg->threshold)
		d->target += cfg->ai_rate;
	d->target = min_u64(d->target, cfg->line_rate);
	qp->cc.rate = min_u64((d->target + qp->cc.rate) / 2, cfg->line_rate);
	/* The average never reaches the target: within 1 bit/s of the line rate is the line
	 * rate, and the pacer stops. */
	if (cfg->line_rate - qp->cc.rate <= 1 && d->target == cfg->line_rate)
		qp->cc.rate = cfg->line_rate;
	cc_rate_changed(qp, now);
}

static void on_sent(struct uroce_qp *qp, uint32_t bytes, uint64_t now)
{
	const struct uroce_cc_cfg *cfg = cfg_of(qp);
	struct dcqcn *d = &qp->cc.alg.dcqcn;

	if (qp->cc.rate >= cfg->line_rate)
		return;
	d->bytes += bytes;
	if (d->bytes < cfg->byte_reset)
		return;
	d->bytes -= cfg->byte_reset;
	d->b_stage++;
	increase(qp, now);
	arm_timers(qp, now, false);
}

static void on_timer(struct uroce_qp *qp, unsigned i, uint64_t now)
{
	const struct uroce_cc_cfg *cfg = cfg_of(qp);
	struct dcqcn *d = &qp->cc.alg.dcqcn;

	if (i == 0) {
		d->alpha -= d->alpha >> cfg->g_shift;
	} else {
		d->t_stage++;
		increase(qp, now);
	}
	arm_timers(qp, now, i == 1);
}

const struct cc_ops dcqcn_ops = {
	.start = start,
	.on_cnp = on_cnp,
	.on_sent = on_sent,
	.on_timer = on_timer,
};

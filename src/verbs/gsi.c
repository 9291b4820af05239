/* SPDX-License-Identifier: MIT */
/* QP1: the port's General Services Interface (IBA 13.5.1) and its MAD service (bridge.h).
 *
 * On Linux the kernel's MAD layer owns QP1 and the CM runs on it; libibverbs has no QP type
 * for it. Here the port owns it: the engine's GSI QP, created when a service attaches (uroce's
 * librdmacm, with the CM of src/cm), with an internal CQ and receive buffers in an internal
 * MR. Every round (port.c), under the port lock, takes QP1's completions and hands the MADs
 * to the service, runs its timer when due and posts the MADs it has to send, which the same
 * round writes. The service's deadline is part of the port's (the thread sleeps until it),
 * and MADs received in a round make the next one run at once (uv_gsi_pending): an answer
 * owed to the network never waits for the thread's sleep (the ACK rule, docs/verbs.md).
 *
 * One service per port, and one port per process (each process owns its addresses), so
 * QP1 of an address belongs to the process that bound it. */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "io/udp.h"
#include "priv.h"
#include "wire/mad.h"

#define GSI_RECVS 256 /* receive buffers: a burst of REQs from many peers is absorbed */
#define GSI_SENDS 256 /* sends posted and not completed */
#define GSI_BUF (UROCE_UD_GRH_LEN + UROCE_MAD_LEN)
#define GSI_SEND_ID UINT64_MAX /* the wr_id of sends; receives have their buffer's index */

struct uv_bridge_port {
	struct uv_port *port;
	struct uv_mad_service svc;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp;
	struct uroce_mr *mr;
	uint8_t *bufs;      /* GSI_RECVS buffers of GSI_BUF bytes, registered as mr */
	uint32_t sends_out; /* posted sends not yet completed */
};

static int post_recv(struct uv_bridge_port *g, uint32_t i)
{
	struct uroce_sge sge = {.addr = (uint64_t)i * GSI_BUF, .length = GSI_BUF,
				.lkey = uroce_mr_lkey(g->mr)};
	struct uroce_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1};
	const struct uroce_recv_wr *bad;

	return uroce_post_recv(g->qp, &wr, &bad);
}

/* Frees what QP1 holds (the port lock held), keeping its engine counters in the port's. */
static void release(struct uv_bridge_port *g)
{
	struct uv_port *p = g->port;

	if (p->io)
		uroce_udp_share_cm(p->io, false);
	if (g->qp) {
		p->mad_counters.mads_no_buffer += uroce_qp_counters(g->qp)->drop_no_recv_wqe;
		uroce_qp_destroy(g->qp);
	}
	if (g->cq)
		uroce_cq_destroy(g->cq);
	if (g->mr)
		uroce_mr_dereg(g->mr);
	if (g->pd)
		uroce_pd_dealloc(g->pd);
	free(g->bufs);
	free(g);
}

/* QP1 through INIT, RTR and RTS with the GSI Q_Key, its receives posted. */
static int create_qp1(struct uv_bridge_port *g)
{
	struct uroce_dev *eng = g->port->eng;
	struct uroce_qp_init_attr ia = {.cap = {.max_send_wr = GSI_SENDS, .max_recv_wr = GSI_RECVS,
						.max_send_sge = 1, .max_recv_sge = 1,
						.max_inline_data = UROCE_MAD_LEN},
					.qp_type = UROCE_QPT_GSI};
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_INIT, .port_num = 1, .qkey = UROCE_GSI_QKEY};
	int err;

	if (!(g->bufs = calloc(GSI_RECVS, GSI_BUF)))
		return UROCE_ENOMEM;
	if ((err = uroce_pd_alloc(eng, &g->pd)) ||
	    (err = uroce_mr_reg(g->pd, g->bufs, (uint64_t)GSI_RECVS * GSI_BUF, 0,
				UROCE_ACCESS_LOCAL_WRITE, &g->mr)) ||
	    (err = uroce_cq_create(eng, GSI_RECVS + GSI_SENDS, &g->cq)))
		return err;
	ia.send_cq = ia.recv_cq = g->cq;
	if ((err = uroce_qp_create(g->pd, &ia, &g->qp)) ||
	    (err = uroce_qp_modify(g->qp, &a, UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX |
					    UROCE_QPA_PORT | UROCE_QPA_QKEY)))
		return err;
	a.qp_state = UROCE_QPS_RTR;
	if ((err = uroce_qp_modify(g->qp, &a, UROCE_QPA_STATE)))
		return err;
	a.qp_state = UROCE_QPS_RTS;
	a.sq_psn = 0;
	if ((err = uroce_qp_modify(g->qp, &a, UROCE_QPA_STATE | UROCE_QPA_SQ_PSN)))
		return err;
	for (uint32_t i = 0; i < GSI_RECVS; i++)
		if ((err = post_recv(g, i)))
			return err;
	return 0;
}

static int attach(struct ibv_context *ctx, const struct uv_mad_service *svc,
		  struct uv_bridge_port **out)
{
	struct uv_port *p;
	struct uv_bridge_port *g;
	int err;

	if (!ctx || !svc || !out || !svc->recv || !svc->on_timer || !svc->next_mad ||
	    !svc->next_deadline || ctx->device != &uv_device_get()->ibv)
		return EINVAL;
	p = port_of(ctx);
	pthread_mutex_lock(&p->lock);
	if (p->gsi) {
		pthread_mutex_unlock(&p->lock);
		return EBUSY;
	}
	if ((err = uv_port_start(p))) {
		pthread_mutex_unlock(&p->lock);
		return err;
	}
	if (!(g = calloc(1, sizeof(*g)))) {
		pthread_mutex_unlock(&p->lock);
		return ENOMEM;
	}
	g->port = p;
	g->svc = *svc;
	if ((err = create_qp1(g))) {
		release(g);
		pthread_mutex_unlock(&p->lock);
		return uv_errno(err);
	}
	p->gsi = g;
	/* The MADs that name no other process's listener or connection come here. */
	uroce_udp_share_cm(p->io, true);
	*out = g;
	uv_port_unlock_kick(p); /* the next round asks for the service's deadline */
	return 0;
}

static void detach(struct uv_bridge_port *g)
{
	struct uv_port *p = g->port;

	/* The callbacks run under the port lock: taking it waits for a round in progress. */
	pthread_mutex_lock(&p->lock);
	p->gsi = NULL;
	release(g);
	pthread_mutex_unlock(&p->lock);
}

void uv_gsi_close(struct uv_port *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->gsi) {
		release(p->gsi);
		p->gsi = NULL;
	}
	pthread_mutex_unlock(&p->lock);
}

static void lock(struct uv_bridge_port *g)
{
	pthread_mutex_lock(&g->port->lock);
}

static void unlock_kick(struct uv_bridge_port *g)
{
	uv_port_unlock_kick(g->port);
}

static uint64_t now(struct uv_bridge_port *g)
{
	(void)g;
	return uroce_udp_now(); /* the clock of the port's rounds */
}

static void counters(struct uv_bridge_port *g, struct uv_mad_counters *out)
{
	struct uv_port *p = g->port;

	pthread_mutex_lock(&p->lock);
	*out = p->mad_counters;
	if (p->gsi)
		out->mads_no_buffer += uroce_qp_counters(p->gsi->qp)->drop_no_recv_wqe;
	pthread_mutex_unlock(&p->lock);
}

/* A receive completion: the network header in the first 40 bytes (an IPv6 header, or 20
 * unused bytes and an IPv4 header: Annex A17.4.5.2), the MAD after it. */
static void take_recv(struct uv_bridge_port *g, const struct uroce_wc *wc, uint64_t t)
{
	const uint8_t *b = g->bufs + wc->wr_id * GSI_BUF;
	struct uroce_cm_mad mad;

	if (wc->status != UROCE_WC_SUCCESS || wc->byte_len != GSI_BUF) {
		g->port->mad_counters.mads_rx_not_mad++;
		return;
	}
	memset(&mad, 0, sizeof(mad));
	memcpy(mad.data, b + UROCE_UD_GRH_LEN, UROCE_MAD_LEN);
	mad.peer.ipv6 = mad.local.ipv6 = wc->ipv6;
	if (wc->ipv6) {
		memcpy(mad.peer.ip, b + 8, 16);   /* IPv6 source address */
		memcpy(mad.local.ip, b + 24, 16); /* destination address */
	} else {
		memcpy(mad.peer.ip, b + 20 + 12, 4);
		memcpy(mad.local.ip, b + 20 + 16, 4);
	}
	g->port->mad_counters.mads_rx++;
	g->svc.recv(g->svc.arg, &mad, t);
}

/* Posts a MAD of the service from QP1 to QP1 at mad->peer: the engine copies the AH's
 * attributes and the inline data at post time, so both live for the call only. */
static void send_mad(struct uv_bridge_port *g, const struct uroce_cm_mad *mad)
{
	const struct uv_device *dev = g->port->dev;
	struct uroce_ah_attr aa = {.dgid = mad->peer, .traffic_class = mad->traffic_class,
				   .hop_limit = mad->hop_limit, .flow_label = mad->flow_label,
				   .port_num = 1};
	struct uroce_sge sge = {.addr = (uint64_t)(uintptr_t)mad->data, .length = UROCE_MAD_LEN};
	struct uroce_send_wr wr = {.wr_id = GSI_SEND_ID, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_SEND,
				   .send_flags = UROCE_SEND_SIGNALED | UROCE_SEND_INLINE,
				   .wr.ud = {.remote_qpn = 1, .remote_qkey = UROCE_GSI_QKEY}};
	const struct uroce_send_wr *bad;
	struct uroce_ah *ah;
	size_t i;

	for (i = 0; i < dev->ngids && !uroce_io_addr_equal(&dev->gid[i].addr, &mad->local); i++)
		;
	aa.sgid_index = (uint8_t)i;
	if (i == dev->ngids || uroce_ah_create(g->pd, &aa, &ah)) {
		g->port->mad_counters.mads_tx_dropped++;
		return;
	}
	wr.wr.ud.ah = ah;
	if (uroce_post_send(g->qp, &wr, &bad)) {
		g->port->mad_counters.mads_tx_dropped++;
	} else {
		g->sends_out++;
		g->port->mad_counters.mads_tx++;
	}
	uroce_ah_destroy(ah);
}

size_t uv_gsi_round(struct uv_port *p, uint64_t t)
{
	struct uv_bridge_port *g = p->gsi;
	struct uroce_wc wc[16];
	struct uroce_cm_mad mad;
	size_t moved = 0;
	int n;

	if (!g)
		return 0;
	while ((n = uroce_cq_poll(g->cq, wc, 16)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == GSI_SEND_ID) {
				g->sends_out--; /* an error completion is a MAD lost, as on a wire */
				continue;
			}
			take_recv(g, &wc[i], t);
			moved++;
			(void)post_recv(g, (uint32_t)wc[i].wr_id); /* its slot was just freed */
		}
	}
	if (t >= g->svc.next_deadline(g->svc.arg))
		g->svc.on_timer(g->svc.arg, t);
	/* What does not fit in the send queue stays with the service for a later round. */
	while (g->sends_out < GSI_SENDS && g->svc.next_mad(g->svc.arg, &mad)) {
		send_mad(g, &mad);
		moved++;
	}
	return moved;
}

uint64_t uv_gsi_deadline(struct uv_port *p)
{
	return p->gsi ? p->gsi->svc.next_deadline(p->gsi->svc.arg) : UROCE_NEVER;
}

bool uv_gsi_pending(struct uv_port *p)
{
	return p->gsi && uroce_cq_count(p->gsi->cq) > 0;
}

static unsigned slot(struct ibv_context *ctx)
{
	struct uv_port *p = ctx && ctx->device == &uv_device_get()->ibv ? port_of(ctx) : NULL;

	return p && p->share ? uroce_share_slot(p->share) : 0;
}

static int listen_sid(struct uv_bridge_port *g, uint64_t sid, bool on)
{
	int err = g->port->io ? uroce_udp_share_listen(g->port->io, sid, on) : 0;

	return err == UROCE_EBUSY ? EADDRINUSE : err ? ENOMEM : 0;
}

const struct uv_bridge uv_bridge = {
	.magic = UV_BRIDGE_MAGIC,
	.version = UV_BRIDGE_VERSION,
	.size = sizeof(struct uv_bridge),
	.attach = attach,
	.detach = detach,
	.lock = lock,
	.unlock_kick = unlock_kick,
	.now = now,
	.counters = counters,
	.slot = slot,
	.listen = listen_sid,
};

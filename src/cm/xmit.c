/* SPDX-License-Identifier: MIT */
/* The only place that makes MAD bytes: the common MAD header every CM message carries
 * (IBA 13.4.3; Linux's cm_format_mad_hdr) and the message's encoding, into the queue of MADs
 * the caller takes with uroce_cm_next_mad. */
#include "priv.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* A slot at the tail of the queue, or NULL when max_queued MADs wait or no memory is left
 * (counted: the message is lost as the network could lose it, and the timers that cover a
 * loss cover this too). */
static struct uroce_cm_mad *tail_slot(struct uroce_cm *cm)
{
	if (cm->tx_n >= cm->cfg.max_queued) {
		cm->cnt.tx_queue_full++;
		return NULL;
	}
	if (cm->tx_n == cm->tx_cap) {
		uint32_t cap = cm->tx_cap ? 2 * cm->tx_cap : 16;
		struct uroce_cm_mad *q = malloc((size_t)cap * sizeof(*q));
		if (!q) {
			cm->cnt.tx_queue_full++;
			return NULL;
		}
		for (uint32_t i = 0; i < cm->tx_n; i++)
			q[i] = cm->txq[(cm->tx_head + i) % cm->tx_cap];
		free(cm->txq);
		cm->txq = q;
		cm->tx_cap = cap;
		cm->tx_head = 0;
	}
	return &cm->txq[(cm->tx_head + cm->tx_n++) % cm->tx_cap];
}

static void set_route(struct uroce_cm_mad *m, const struct cm_route *r)
{
	m->peer = r->peer;
	m->local = r->local;
	m->traffic_class = r->traffic_class;
	m->hop_limit = r->hop_limit;
	m->flow_label = r->flow_label & 0xFFFFF;
}

void cm_format_msg(const struct uroce_cm_msg *m, uint64_t tid, uint8_t *mad)
{
	/* Base version 1, class CM, class version 2, method Send, status 0 (Linux's
	 * cm_format_mad_hdr, and every CM MAD of the rxe captures: docs/cm.md). */
	const struct uroce_mad_hdr hdr = {
		.base_version = UROCE_MAD_BASE_VERSION,
		.mgmt_class = UROCE_MAD_CLASS_CM,
		.class_version = UROCE_CM_CLASS_VERSION,
		.method = UROCE_MAD_METHOD_SEND,
		.tid = tid,
		.attr_id = m->attr,
	};

	uroce_mad_hdr_encode(&hdr, mad, UROCE_MAD_HDR_LEN);
	uroce_cm_encode(m, mad + UROCE_MAD_HDR_LEN, UROCE_CM_DATA_LEN);
}

int cm_send_msg(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
		const struct cm_route *r, uint8_t *keep)
{
	uint8_t mad[UROCE_MAD_LEN];

	cm_format_msg(m, tid, mad);
	if (keep)
		memcpy(keep, mad, sizeof(mad));
	return cm_send_raw(cm, mad, r);
}

int cm_send_raw(struct uroce_cm *cm, const uint8_t *mad, const struct cm_route *r)
{
	struct uroce_cm_mad *slot = tail_slot(cm);

	if (!slot)
		return UROCE_EFULL;
	memcpy(slot->data, mad, UROCE_MAD_LEN);
	set_route(slot, r);
	return 0;
}

void cm_route_back(struct cm_route *r, const struct uroce_cm_mad *mad)
{
	r->peer = mad->peer;
	r->local = mad->local;
	r->traffic_class = 0;
	r->hop_limit = UROCE_CM_DEFAULT_HOP_LIMIT;
	r->flow_label = 0;
}

int uroce_cm_next_mad(struct uroce_cm *cm, struct uroce_cm_mad *out)
{
	if (!cm->tx_n)
		return 0;
	*out = cm->txq[cm->tx_head];
	cm->tx_head = (cm->tx_head + 1) % cm->tx_cap;
	cm->tx_n--;
	cm->cnt.tx_mads++;
	return 1;
}

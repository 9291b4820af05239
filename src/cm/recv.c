/* SPDX-License-Identifier: MIT */
/* Received MADs: the common header's checks, one drop counter per reason, then the handler
 * of the attribute (one table, no switch). The CM registers for what Linux's cm.c registers
 * its MAD agent for: class CM (0x07), class version 2, method Send (cm_add_one); everything
 * else on QP1 is some other agent's, and there is none in uroce. */
#include "priv.h"

typedef void (*recv_fn)(struct uroce_cm *cm, const struct uroce_cm_msg *m, uint64_t tid,
			const struct uroce_cm_mad *mad, uint64_t now);

static const struct {
	uint16_t attr;
	recv_fn fn;
} handlers[] = {
	{UROCE_CM_ATTR_REQ, conn_recv_req},
	{UROCE_CM_ATTR_MRA, conn_recv_mra},
	{UROCE_CM_ATTR_REJ, conn_recv_rej},
	{UROCE_CM_ATTR_REP, conn_recv_rep},
	{UROCE_CM_ATTR_RTU, conn_recv_rtu},
	{UROCE_CM_ATTR_DREQ, conn_recv_dreq},
	{UROCE_CM_ATTR_DREP, conn_recv_drep},
	{UROCE_CM_ATTR_SIDR_REQ, sidr_recv_req},
	{UROCE_CM_ATTR_SIDR_REP, sidr_recv_rep},
};

void uroce_cm_recv(struct uroce_cm *cm, const struct uroce_cm_mad *in, uint64_t now)
{
	struct uroce_mad_hdr h;
	struct uroce_cm_msg m;

	cm->cnt.rx_mads++;
	uroce_mad_hdr_decode(&h, in->data, sizeof(in->data));
	if (h.base_version != UROCE_MAD_BASE_VERSION) {
		cm->cnt.drop_version++;
		return;
	}
	if (h.mgmt_class != UROCE_MAD_CLASS_CM) {
		cm->cnt.drop_class++;
		return;
	}
	if (h.class_version != UROCE_CM_CLASS_VERSION) {
		cm->cnt.drop_version++;
		return;
	}
	if (h.r || h.method != UROCE_MAD_METHOD_SEND) {
		cm->cnt.drop_method++;
		return;
	}
	/* Linux's cm_lap_handler and cm_apr_handler return at once on a RoCE port: alternate
	 * paths are not supported there (Annex A17 CA17-36 and CA17-37 only say how they would
	 * look). */
	if (h.attr_id == UROCE_CM_ATTR_LAP || h.attr_id == UROCE_CM_ATTR_APR) {
		cm->cnt.drop_lap_apr++;
		return;
	}
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		if (handlers[i].attr != h.attr_id)
			continue;
		/* A CM message is the whole MAD data: its decoder cannot fail on 232 bytes. */
		uroce_cm_decode(&m, h.attr_id, in->data + UROCE_MAD_HDR_LEN, UROCE_CM_DATA_LEN);
		handlers[i].fn(cm, &m, h.tid, in, now);
		return;
	}
	cm->cnt.drop_attr++;
}

/* SPDX-License-Identifier: MIT */
#include "cm.h"

#include <string.h>

#include "bytes.h"
#include "common/error.h"

/* A REQ path, 44 bytes (IBA 12.6.5: primary at MAD data byte 52, alternate at 96). */
static void req_path_dec(struct uroce_cm_path *o, const uint8_t *q)
{
	uint32_t w = get_be32(q + 36);

	o->local_lid = get_be16(q);
	o->remote_lid = get_be16(q + 2);
	memcpy(o->local_gid, q + 4, 16);
	memcpy(o->remote_gid, q + 20, 16);
	o->flow_label = w >> 12;
	o->rsv6 = (w >> 6) & 0x3F;
	o->packet_rate = w & 0x3F;
	o->traffic_class = q[40];
	o->hop_limit = q[41];
	o->sl = q[42] >> 4;
	o->subnet_local = (q[42] >> 3) & 1;
	o->rsv3 = q[42] & 7;
	o->local_ack_timeout = q[43] >> 3;
	o->rsv3b = q[43] & 7;
}

static void req_path_enc(const struct uroce_cm_path *i, uint8_t *q)
{
	put_be16(q, i->local_lid);
	put_be16(q + 2, i->remote_lid);
	memcpy(q + 4, i->local_gid, 16);
	memcpy(q + 20, i->remote_gid, 16);
	put_be32(q + 36, (i->flow_label & 0xFFFFF) << 12 | (uint32_t)(i->rsv6 & 0x3F) << 6 |
				 (i->packet_rate & 0x3F));
	q[40] = i->traffic_class;
	q[41] = i->hop_limit;
	q[42] = (uint8_t)((i->sl & 0xF) << 4 | i->subnet_local << 3 | (i->rsv3 & 7));
	q[43] = (uint8_t)((i->local_ack_timeout & 0x1F) << 3 | (i->rsv3b & 7));
}

ssize_t uroce_cm_req_decode(struct uroce_cm_req *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->rsv4 = get_be32(p + 4);
	out->service_id = get_be64(p + 8);
	out->local_ca_guid = get_be64(p + 16);
	out->rsv24 = get_be32(p + 24);
	out->local_qkey = get_be32(p + 28);
	out->local_qpn = get_be24(p + 32);
	out->responder_resources = p[35];
	out->local_eecn = get_be24(p + 36);
	out->initiator_depth = p[39];
	out->remote_eecn = get_be24(p + 40);
	out->remote_cm_resp_timeout = p[43] >> 3;
	out->transport_type = (p[43] >> 1) & 3;
	out->e2e_flow_control = p[43] & 1;
	out->starting_psn = get_be24(p + 44);
	out->local_cm_resp_timeout = p[47] >> 3;
	out->retry_count = p[47] & 7;
	out->pkey = get_be16(p + 48);
	out->path_mtu = p[50] >> 4;
	out->rdc_exists = (p[50] >> 3) & 1;
	out->rnr_retry_count = p[50] & 7;
	out->max_cm_retries = p[51] >> 4;
	out->srq = (p[51] >> 3) & 1;
	out->ext_transport = p[51] & 7;
	req_path_dec(&out->primary, p + 52);
	req_path_dec(&out->alternate, p + 96);
	memcpy(out->private_data, p + 140, UROCE_CM_REQ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_req_encode(const struct uroce_cm_req *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->rsv4);
	put_be64(p + 8, in->service_id);
	put_be64(p + 16, in->local_ca_guid);
	put_be32(p + 24, in->rsv24);
	put_be32(p + 28, in->local_qkey);
	put_be24(p + 32, in->local_qpn);
	p[35] = in->responder_resources;
	put_be24(p + 36, in->local_eecn);
	p[39] = in->initiator_depth;
	put_be24(p + 40, in->remote_eecn);
	p[43] = (uint8_t)((in->remote_cm_resp_timeout & 0x1F) << 3 | (in->transport_type & 3) << 1 |
			  in->e2e_flow_control);
	put_be24(p + 44, in->starting_psn);
	p[47] = (uint8_t)((in->local_cm_resp_timeout & 0x1F) << 3 | (in->retry_count & 7));
	put_be16(p + 48, in->pkey);
	p[50] = (uint8_t)((in->path_mtu & 0xF) << 4 | in->rdc_exists << 3 | (in->rnr_retry_count & 7));
	p[51] = (uint8_t)((in->max_cm_retries & 0xF) << 4 | in->srq << 3 | (in->ext_transport & 7));
	req_path_enc(&in->primary, p + 52);
	req_path_enc(&in->alternate, p + 96);
	memcpy(p + 140, in->private_data, UROCE_CM_REQ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_mra_decode(struct uroce_cm_mra *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	out->msg_mraed = p[8] >> 6;
	out->rsv6 = p[8] & 0x3F;
	out->service_timeout = p[9] >> 3;
	out->rsv3 = p[9] & 7;
	memcpy(out->private_data, p + 10, UROCE_CM_MRA_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_mra_encode(const struct uroce_cm_mra *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	p[8] = (uint8_t)((in->msg_mraed & 3) << 6 | (in->rsv6 & 0x3F));
	p[9] = (uint8_t)((in->service_timeout & 0x1F) << 3 | (in->rsv3 & 7));
	memcpy(p + 10, in->private_data, UROCE_CM_MRA_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_rej_decode(struct uroce_cm_rej *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	out->msg_rejected = p[8] >> 6;
	out->rsv6 = p[8] & 0x3F;
	out->reject_info_len = p[9] >> 1;
	out->rsv1 = p[9] & 1;
	out->reason = get_be16(p + 10);
	memcpy(out->ari, p + 12, UROCE_CM_REJ_ARI_LEN);
	memcpy(out->private_data, p + 84, UROCE_CM_REJ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_rej_encode(const struct uroce_cm_rej *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	p[8] = (uint8_t)((in->msg_rejected & 3) << 6 | (in->rsv6 & 0x3F));
	p[9] = (uint8_t)((in->reject_info_len & 0x7F) << 1 | (in->rsv1 & 1));
	put_be16(p + 10, in->reason);
	memcpy(p + 12, in->ari, UROCE_CM_REJ_ARI_LEN);
	memcpy(p + 84, in->private_data, UROCE_CM_REJ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_rep_decode(struct uroce_cm_rep *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	out->local_qkey = get_be32(p + 8);
	out->local_qpn = get_be24(p + 12);
	out->rsv15 = p[15];
	out->local_eecn = get_be24(p + 16);
	out->rsv19 = p[19];
	out->starting_psn = get_be24(p + 20);
	out->rsv23 = p[23];
	out->responder_resources = p[24];
	out->initiator_depth = p[25];
	out->target_ack_delay = p[26] >> 3;
	out->failover_accepted = (p[26] >> 1) & 3;
	out->e2e_flow_control = p[26] & 1;
	out->rnr_retry_count = p[27] >> 5;
	out->srq = (p[27] >> 4) & 1;
	out->rsv4 = p[27] & 0xF;
	out->local_ca_guid = get_be64(p + 28);
	memcpy(out->private_data, p + 36, UROCE_CM_REP_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_rep_encode(const struct uroce_cm_rep *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	put_be32(p + 8, in->local_qkey);
	put_be24(p + 12, in->local_qpn);
	p[15] = in->rsv15;
	put_be24(p + 16, in->local_eecn);
	p[19] = in->rsv19;
	put_be24(p + 20, in->starting_psn);
	p[23] = in->rsv23;
	p[24] = in->responder_resources;
	p[25] = in->initiator_depth;
	p[26] = (uint8_t)((in->target_ack_delay & 0x1F) << 3 | (in->failover_accepted & 3) << 1 |
			  in->e2e_flow_control);
	p[27] = (uint8_t)((in->rnr_retry_count & 7) << 5 | in->srq << 4 | (in->rsv4 & 0xF));
	put_be64(p + 28, in->local_ca_guid);
	memcpy(p + 36, in->private_data, UROCE_CM_REP_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_rtu_decode(struct uroce_cm_rtu *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	memcpy(out->private_data, p + 8, UROCE_CM_RTU_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_rtu_encode(const struct uroce_cm_rtu *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	memcpy(p + 8, in->private_data, UROCE_CM_RTU_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_dreq_decode(struct uroce_cm_dreq *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	out->remote_qpn_eecn = get_be24(p + 8);
	out->rsv11 = p[11];
	memcpy(out->private_data, p + 12, UROCE_CM_DREQ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_dreq_encode(const struct uroce_cm_dreq *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	put_be24(p + 8, in->remote_qpn_eecn);
	p[11] = in->rsv11;
	memcpy(p + 12, in->private_data, UROCE_CM_DREQ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_lap_decode(struct uroce_cm_lap *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	struct uroce_cm_path *a = &out->alt;
	uint32_t w = get_be32(p + 56);

	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	out->rsv8 = get_be32(p + 8);
	out->remote_qpn_eecn = get_be24(p + 12);
	out->remote_cm_resp_timeout = p[15] >> 3;
	out->rsv15 = p[15] & 7;
	out->rsv16 = get_be32(p + 16);
	a->local_lid = get_be16(p + 20);
	a->remote_lid = get_be16(p + 22);
	memcpy(a->local_gid, p + 24, 16);
	memcpy(a->remote_gid, p + 40, 16);
	a->flow_label = w >> 12;
	a->rsv6 = (w >> 8) & 0xF;
	a->traffic_class = (uint8_t)w;
	a->hop_limit = p[60];
	out->rsv_rate = p[61] >> 6;
	a->packet_rate = p[61] & 0x3F;
	a->sl = p[62] >> 4;
	a->subnet_local = (p[62] >> 3) & 1;
	a->rsv3 = p[62] & 7;
	a->local_ack_timeout = p[63] >> 3;
	a->rsv3b = p[63] & 7;
	memcpy(out->private_data, p + 64, UROCE_CM_LAP_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_lap_encode(const struct uroce_cm_lap *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	const struct uroce_cm_path *a = &in->alt;

	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	put_be32(p + 8, in->rsv8);
	put_be24(p + 12, in->remote_qpn_eecn);
	p[15] = (uint8_t)((in->remote_cm_resp_timeout & 0x1F) << 3 | (in->rsv15 & 7));
	put_be32(p + 16, in->rsv16);
	put_be16(p + 20, a->local_lid);
	put_be16(p + 22, a->remote_lid);
	memcpy(p + 24, a->local_gid, 16);
	memcpy(p + 40, a->remote_gid, 16);
	put_be32(p + 56, (a->flow_label & 0xFFFFF) << 12 | (uint32_t)(a->rsv6 & 0xF) << 8 |
				 a->traffic_class);
	p[60] = a->hop_limit;
	p[61] = (uint8_t)((in->rsv_rate & 3) << 6 | (a->packet_rate & 0x3F));
	p[62] = (uint8_t)((a->sl & 0xF) << 4 | a->subnet_local << 3 | (a->rsv3 & 7));
	p[63] = (uint8_t)((a->local_ack_timeout & 0x1F) << 3 | (a->rsv3b & 7));
	memcpy(p + 64, in->private_data, UROCE_CM_LAP_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_apr_decode(struct uroce_cm_apr *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->local_comm_id = get_be32(p);
	out->remote_comm_id = get_be32(p + 4);
	out->add_info_len = p[8];
	out->ap_status = p[9];
	out->rsv10 = get_be16(p + 10);
	memcpy(out->add_info, p + 12, UROCE_CM_APR_INFO_LEN);
	memcpy(out->private_data, p + 84, UROCE_CM_APR_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_apr_encode(const struct uroce_cm_apr *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->local_comm_id);
	put_be32(p + 4, in->remote_comm_id);
	p[8] = in->add_info_len;
	p[9] = in->ap_status;
	put_be16(p + 10, in->rsv10);
	memcpy(p + 12, in->add_info, UROCE_CM_APR_INFO_LEN);
	memcpy(p + 84, in->private_data, UROCE_CM_APR_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_sidr_req_decode(struct uroce_cm_sidr_req *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->request_id = get_be32(p);
	out->pkey = get_be16(p + 4);
	out->rsv6 = get_be16(p + 6);
	out->service_id = get_be64(p + 8);
	memcpy(out->private_data, p + 16, UROCE_CM_SIDR_REQ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_sidr_req_encode(const struct uroce_cm_sidr_req *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->request_id);
	put_be16(p + 4, in->pkey);
	put_be16(p + 6, in->rsv6);
	put_be64(p + 8, in->service_id);
	memcpy(p + 16, in->private_data, UROCE_CM_SIDR_REQ_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_sidr_rep_decode(struct uroce_cm_sidr_rep *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ETRUNC;
	out->request_id = get_be32(p);
	out->status = p[4];
	out->add_info_len = p[5];
	out->rsv6 = get_be16(p + 6);
	out->qpn = get_be24(p + 8);
	out->rsv11 = p[11];
	out->service_id = get_be64(p + 12);
	out->qkey = get_be32(p + 20);
	memcpy(out->add_info, p + 24, UROCE_CM_SIDR_REP_INFO_LEN);
	memcpy(out->private_data, p + 96, UROCE_CM_SIDR_REP_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_sidr_rep_encode(const struct uroce_cm_sidr_rep *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_DATA_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, in->request_id);
	p[4] = in->status;
	p[5] = in->add_info_len;
	put_be16(p + 6, in->rsv6);
	put_be24(p + 8, in->qpn);
	p[11] = in->rsv11;
	put_be64(p + 12, in->service_id);
	put_be32(p + 20, in->qkey);
	memcpy(p + 24, in->add_info, UROCE_CM_SIDR_REP_INFO_LEN);
	memcpy(p + 96, in->private_data, UROCE_CM_SIDR_REP_PRIVATE_LEN);
	return UROCE_CM_DATA_LEN;
}

ssize_t uroce_cm_decode(struct uroce_cm_msg *out, uint16_t attr, const uint8_t *p, size_t len)
{
	out->attr = attr;
	switch (attr) {
	case UROCE_CM_ATTR_REQ:
		return uroce_cm_req_decode(&out->req, p, len);
	case UROCE_CM_ATTR_MRA:
		return uroce_cm_mra_decode(&out->mra, p, len);
	case UROCE_CM_ATTR_REJ:
		return uroce_cm_rej_decode(&out->rej, p, len);
	case UROCE_CM_ATTR_REP:
		return uroce_cm_rep_decode(&out->rep, p, len);
	case UROCE_CM_ATTR_RTU:
		return uroce_cm_rtu_decode(&out->rtu, p, len);
	case UROCE_CM_ATTR_DREP:
		return uroce_cm_rtu_decode(&out->drep, p, len);
	case UROCE_CM_ATTR_DREQ:
		return uroce_cm_dreq_decode(&out->dreq, p, len);
	case UROCE_CM_ATTR_LAP:
		return uroce_cm_lap_decode(&out->lap, p, len);
	case UROCE_CM_ATTR_APR:
		return uroce_cm_apr_decode(&out->apr, p, len);
	case UROCE_CM_ATTR_SIDR_REQ:
		return uroce_cm_sidr_req_decode(&out->sidr_req, p, len);
	case UROCE_CM_ATTR_SIDR_REP:
		return uroce_cm_sidr_rep_decode(&out->sidr_rep, p, len);
	default:
		return UROCE_EINVAL;
	}
}

ssize_t uroce_cm_encode(const struct uroce_cm_msg *in, uint8_t *p, size_t len)
{
	switch (in->attr) {
	case UROCE_CM_ATTR_REQ:
		return uroce_cm_req_encode(&in->req, p, len);
	case UROCE_CM_ATTR_MRA:
		return uroce_cm_mra_encode(&in->mra, p, len);
	case UROCE_CM_ATTR_REJ:
		return uroce_cm_rej_encode(&in->rej, p, len);
	case UROCE_CM_ATTR_REP:
		return uroce_cm_rep_encode(&in->rep, p, len);
	case UROCE_CM_ATTR_RTU:
		return uroce_cm_rtu_encode(&in->rtu, p, len);
	case UROCE_CM_ATTR_DREP:
		return uroce_cm_rtu_encode(&in->drep, p, len);
	case UROCE_CM_ATTR_DREQ:
		return uroce_cm_dreq_encode(&in->dreq, p, len);
	case UROCE_CM_ATTR_LAP:
		return uroce_cm_lap_encode(&in->lap, p, len);
	case UROCE_CM_ATTR_APR:
		return uroce_cm_apr_encode(&in->apr, p, len);
	case UROCE_CM_ATTR_SIDR_REQ:
		return uroce_cm_sidr_req_encode(&in->sidr_req, p, len);
	case UROCE_CM_ATTR_SIDR_REP:
		return uroce_cm_sidr_rep_encode(&in->sidr_rep, p, len);
	default:
		return UROCE_EINVAL;
	}
}

ssize_t uroce_cm_ipcm_decode(struct uroce_cm_ipcm *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_CM_REQ_PRIVATE_LEN)
		return UROCE_ETRUNC;
	out->major = p[0] >> 4;
	out->minor = p[0] & 0xF;
	out->ip_version = p[1] >> 4;
	out->rsv4 = p[1] & 0xF;
	out->src_port = get_be16(p + 2);
	memcpy(out->src_ip, p + 4, 16);
	memcpy(out->dst_ip, p + 20, 16);
	memcpy(out->consumer, p + UROCE_CM_IPCM_LEN, UROCE_CM_IPCM_CONSUMER_LEN);
	return UROCE_CM_REQ_PRIVATE_LEN;
}

ssize_t uroce_cm_ipcm_encode(const struct uroce_cm_ipcm *in, uint8_t *p, size_t len)
{
	if (len < UROCE_CM_REQ_PRIVATE_LEN)
		return UROCE_ENOSPACE;
	p[0] = (uint8_t)((in->major & 0xF) << 4 | (in->minor & 0xF));
	p[1] = (uint8_t)((in->ip_version & 0xF) << 4 | (in->rsv4 & 0xF));
	put_be16(p + 2, in->src_port);
	memcpy(p + 4, in->src_ip, 16);
	memcpy(p + 20, in->dst_ip, 16);
	memcpy(p + UROCE_CM_IPCM_LEN, in->consumer, UROCE_CM_IPCM_CONSUMER_LEN);
	return UROCE_CM_REQ_PRIVATE_LEN;
}

/* Name lookups: one switch per X-macro list, so a name cannot drift from its value. */

const char *uroce_cm_msg_name(uint16_t attr)
{
	if (attr == UROCE_CM_ATTR_CLASS_PORT_INFO) /* an attribute, not a message */
		return NULL;
	switch (attr) {
#define UROCE_CM_ATTR_SHORT(id, v, s, n) case v: return s;
	UROCE_CM_ATTR_MAP(UROCE_CM_ATTR_SHORT)
#undef UROCE_CM_ATTR_SHORT
	default:
		return NULL;
	}
}

const char *uroce_cm_attr_name(uint16_t attr)
{
	switch (attr) {
#define UROCE_CM_ATTR_LONG(id, v, s, n) case v: return n;
	UROCE_CM_ATTR_MAP(UROCE_CM_ATTR_LONG)
#undef UROCE_CM_ATTR_LONG
	default:
		return NULL;
	}
}

#define UROCE_CM_NAME_CASE(id, v, n) case v: return n;

const char *uroce_cm_rej_reason_name(uint16_t reason)
{
	switch (reason) {
	UROCE_CM_REJ_REASON_MAP(UROCE_CM_NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_cm_msg_kind_name(uint8_t kind)
{
	switch (kind) {
	UROCE_CM_MSG_KIND_MAP(UROCE_CM_NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_cm_apr_status_name(uint8_t status)
{
	switch (status) {
	UROCE_CM_APR_STATUS_MAP(UROCE_CM_NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_cm_sidr_status_name(uint8_t status)
{
	switch (status) {
	UROCE_CM_SIDR_STATUS_MAP(UROCE_CM_NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_cm_transport_name(uint8_t type)
{
	switch (type) {
	UROCE_CM_TRANSPORT_MAP(UROCE_CM_NAME_CASE)
	default:
		return NULL;
	}
}

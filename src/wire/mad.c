/* SPDX-License-Identifier: MIT */
#include "mad.h"

#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "common/error.h"

ssize_t uroce_mad_hdr_decode(struct uroce_mad_hdr *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_MAD_HDR_LEN)
		return UROCE_ETRUNC;
	out->base_version = p[0];
	out->mgmt_class = p[1];
	out->class_version = p[2];
	out->r = p[3] >> 7;
	out->method = p[3] & 0x7F;
	out->status = get_be16(p + 4);
	out->class_specific = get_be16(p + 6);
	out->tid = get_be64(p + 8);
	out->attr_id = get_be16(p + 16);
	out->rsv = get_be16(p + 18);
	out->attr_mod = get_be32(p + 20);
	return UROCE_MAD_HDR_LEN;
}

ssize_t uroce_mad_hdr_encode(const struct uroce_mad_hdr *in, uint8_t *p, size_t len)
{
	if (len < UROCE_MAD_HDR_LEN)
		return UROCE_ENOSPACE;
	p[0] = in->base_version;
	p[1] = in->mgmt_class;
	p[2] = in->class_version;
	p[3] = uroce_mad_method_byte(in);
	put_be16(p + 4, in->status);
	put_be16(p + 6, in->class_specific);
	put_be64(p + 8, in->tid);
	put_be16(p + 16, in->attr_id);
	put_be16(p + 18, in->rsv);
	put_be32(p + 20, in->attr_mod);
	return UROCE_MAD_HDR_LEN;
}

/* LID-routed SMP (IBA 14.2.1.1): M_Key at 24, 32 reserved bytes, 64 data bytes at 64, 128
 * reserved bytes at 128. */
ssize_t uroce_smp_lid_decode(struct uroce_smp_lid *out, const uint8_t *mad, size_t len)
{
	if (len < UROCE_MAD_LEN)
		return UROCE_ETRUNC;
	out->mkey = get_be64(mad + 24);
	memcpy(out->rsv32, mad + 32, 32);
	memcpy(out->data, mad + 64, 64);
	memcpy(out->rsv128, mad + 128, 128);
	return UROCE_MAD_LEN;
}

ssize_t uroce_smp_lid_encode(const struct uroce_mad_hdr *hdr, const struct uroce_smp_lid *in,
			     uint8_t *mad, size_t len)
{
	if (len < UROCE_MAD_LEN)
		return UROCE_ENOSPACE;
	uroce_mad_hdr_encode(hdr, mad, len);
	put_be64(mad + 24, in->mkey);
	memcpy(mad + 32, in->rsv32, 32);
	memcpy(mad + 64, in->data, 64);
	memcpy(mad + 128, in->rsv128, 128);
	return UROCE_MAD_LEN;
}

/* Directed-route SMP (IBA 14.2.1.2): D is Status bit 15, Hop Pointer and Hop Count are the
 * ClassSpecific bytes; M_Key at 24, DrSLID at 32, DrDLID at 34, 28 reserved bytes, 64 data
 * bytes at 64, InitialPath at 128, ReturnPath at 192. */
ssize_t uroce_smp_dr_decode(struct uroce_smp_dr *out, const uint8_t *mad, size_t len)
{
	if (len < UROCE_MAD_LEN)
		return UROCE_ETRUNC;
	uint16_t status = get_be16(mad + 4);

	out->d = status >> 15;
	out->status = status & 0x7FFF;
	out->hop_ptr = mad[6];
	out->hop_cnt = mad[7];
	out->mkey = get_be64(mad + 24);
	out->dr_slid = get_be16(mad + 32);
	out->dr_dlid = get_be16(mad + 34);
	memcpy(out->rsv28, mad + 36, 28);
	memcpy(out->data, mad + 64, 64);
	memcpy(out->initial_path, mad + 128, 64);
	memcpy(out->return_path, mad + 192, 64);
	return UROCE_MAD_LEN;
}

ssize_t uroce_smp_dr_encode(const struct uroce_mad_hdr *hdr, const struct uroce_smp_dr *in,
			    uint8_t *mad, size_t len)
{
	if (len < UROCE_MAD_LEN)
		return UROCE_ENOSPACE;
	uroce_mad_hdr_encode(hdr, mad, len);
	put_be16(mad + 4, (uint16_t)(in->d << 15 | (in->status & 0x7FFF)));
	mad[6] = in->hop_ptr;
	mad[7] = in->hop_cnt;
	put_be64(mad + 24, in->mkey);
	put_be16(mad + 32, in->dr_slid);
	put_be16(mad + 34, in->dr_dlid);
	memcpy(mad + 36, in->rsv28, 28);
	memcpy(mad + 64, in->data, 64);
	memcpy(mad + 128, in->initial_path, 64);
	memcpy(mad + 192, in->return_path, 64);
	return UROCE_MAD_LEN;
}

ssize_t uroce_sminfo_decode(struct uroce_sminfo *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_SMINFO_LEN)
		return UROCE_ETRUNC;
	out->guid = get_be64(p);
	out->sm_key = get_be64(p + 8);
	out->act_count = get_be32(p + 16);
	out->priority = p[20] >> 4;
	out->sm_state = p[20] & 0xF;
	return UROCE_SMINFO_LEN;
}

ssize_t uroce_sminfo_encode(const struct uroce_sminfo *in, uint8_t *p, size_t len)
{
	if (len < UROCE_SMINFO_LEN)
		return UROCE_ENOSPACE;
	put_be64(p, in->guid);
	put_be64(p + 8, in->sm_key);
	put_be32(p + 16, in->act_count);
	p[20] = (uint8_t)((in->priority & 0xF) << 4 | (in->sm_state & 0xF));
	return UROCE_SMINFO_LEN;
}

/* RMPP (IBA 13.6.2.1): RRespTime is the upper 5 bits of byte 2, RMPPFlags the lower 3. */
ssize_t uroce_rmpp_decode(struct uroce_rmpp *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_RMPP_HDR_LEN)
		return UROCE_ETRUNC;
	out->version = p[0];
	out->type = p[1];
	out->resp_time = p[2] >> 3;
	out->flags = p[2] & 7;
	out->status = p[3];
	out->data1 = get_be32(p + 4);
	out->data2 = get_be32(p + 8);
	return UROCE_RMPP_HDR_LEN;
}

ssize_t uroce_rmpp_encode(const struct uroce_rmpp *in, uint8_t *p, size_t len)
{
	if (len < UROCE_RMPP_HDR_LEN)
		return UROCE_ENOSPACE;
	p[0] = in->version;
	p[1] = in->type;
	p[2] = (uint8_t)((in->resp_time & 0x1F) << 3 | (in->flags & 7));
	p[3] = in->status;
	put_be32(p + 4, in->data1);
	put_be32(p + 8, in->data2);
	return UROCE_RMPP_HDR_LEN;
}

/* SA (IBA 15.2.1.1), from MAD byte 24: RMPP (12), SM_Key (8), AttributeOffset (2),
 * Reserved (2), ComponentMask (8), SA data (200). */
ssize_t uroce_sa_decode(struct uroce_sa *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_MAD_DATA_LEN)
		return UROCE_ETRUNC;
	uroce_rmpp_decode(&out->rmpp, p, len);
	out->sm_key = get_be64(p + 12);
	out->attr_offset = get_be16(p + 20);
	out->rsv = get_be16(p + 22);
	out->comp_mask = get_be64(p + 24);
	memcpy(out->data, p + 32, UROCE_SA_DATA_LEN);
	return UROCE_MAD_DATA_LEN;
}

ssize_t uroce_sa_encode(const struct uroce_sa *in, uint8_t *p, size_t len)
{
	if (len < UROCE_MAD_DATA_LEN)
		return UROCE_ENOSPACE;
	uroce_rmpp_encode(&in->rmpp, p, len);
	put_be64(p + 12, in->sm_key);
	put_be16(p + 20, in->attr_offset);
	put_be16(p + 22, in->rsv);
	put_be64(p + 24, in->comp_mask);
	memcpy(p + 32, in->data, UROCE_SA_DATA_LEN);
	return UROCE_MAD_DATA_LEN;
}

/* PathRecord (IBA 15.2.5.16). */
ssize_t uroce_pathrec_decode(struct uroce_pathrec *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_PATHREC_LEN)
		return UROCE_ETRUNC;
	uint32_t w = get_be32(p + 44);
	uint16_t qos_sl = get_be16(p + 52);

	out->service_id = get_be64(p);
	memcpy(out->dgid, p + 8, 16);
	memcpy(out->sgid, p + 24, 16);
	out->dlid = get_be16(p + 40);
	out->slid = get_be16(p + 42);
	out->raw_traffic = w >> 31;
	out->rsv3 = (w >> 28) & 7;
	out->flow_label = (w >> 8) & 0xFFFFF;
	out->hop_limit = (uint8_t)w;
	out->tclass = p[48];
	out->reversible = p[49] >> 7;
	out->numb_path = p[49] & 0x7F;
	out->pkey = get_be16(p + 50);
	out->qos_class = qos_sl >> 4;
	out->sl = qos_sl & 0xF;
	out->mtu_selector = p[54] >> 6;
	out->mtu = p[54] & 0x3F;
	out->rate_selector = p[55] >> 6;
	out->rate = p[55] & 0x3F;
	out->plt_selector = p[56] >> 6;
	out->plt = p[56] & 0x3F;
	out->preference = p[57];
	memcpy(out->rsv58, p + 58, 6);
	return UROCE_PATHREC_LEN;
}

ssize_t uroce_pathrec_encode(const struct uroce_pathrec *in, uint8_t *p, size_t len)
{
	if (len < UROCE_PATHREC_LEN)
		return UROCE_ENOSPACE;
	put_be64(p, in->service_id);
	memcpy(p + 8, in->dgid, 16);
	memcpy(p + 24, in->sgid, 16);
	put_be16(p + 40, in->dlid);
	put_be16(p + 42, in->slid);
	put_be32(p + 44, (uint32_t)in->raw_traffic << 31 | (uint32_t)(in->rsv3 & 7) << 28 |
				 (in->flow_label & 0xFFFFF) << 8 | in->hop_limit);
	p[48] = in->tclass;
	p[49] = (uint8_t)(in->reversible << 7 | (in->numb_path & 0x7F));
	put_be16(p + 50, in->pkey);
	put_be16(p + 52, (uint16_t)((in->qos_class & 0xFFF) << 4 | (in->sl & 0xF)));
	p[54] = (uint8_t)((in->mtu_selector & 3) << 6 | (in->mtu & 0x3F));
	p[55] = (uint8_t)((in->rate_selector & 3) << 6 | (in->rate & 0x3F));
	p[56] = (uint8_t)((in->plt_selector & 3) << 6 | (in->plt & 0x3F));
	p[57] = in->preference;
	memcpy(p + 58, in->rsv58, 6);
	return UROCE_PATHREC_LEN;
}

ssize_t uroce_mgmt_decode(struct uroce_mgmt *out, const uint8_t *p, size_t len)
{
	out->present = 0;
	if (len < UROCE_MAD_LEN)
		return UROCE_ETRUNC;
	const uint8_t *data = p + UROCE_MAD_HDR_LEN;
	memcpy(out->raw, p, UROCE_MAD_LEN);
	uroce_mad_hdr_decode(&out->hdr, p, len);

	/* Every sub-decoder below reads inside the 256 bytes checked above, so none can fail. */
	switch (out->hdr.mgmt_class) {
	case UROCE_MAD_CLASS_SUBN_LID:
		uroce_smp_lid_decode(&out->smp_lid, p, len);
		out->present |= UROCE_MGMT_SMP_LID;
		if (out->hdr.attr_id == UROCE_SMP_ATTR_SM_INFO) {
			uroce_sminfo_decode(&out->sminfo, out->smp_lid.data, sizeof(out->smp_lid.data));
			out->present |= UROCE_MGMT_SMINFO;
		}
		break;
	case UROCE_MAD_CLASS_SUBN_DR:
		uroce_smp_dr_decode(&out->smp_dr, p, len);
		out->present |= UROCE_MGMT_SMP_DR;
		if (out->hdr.attr_id == UROCE_SMP_ATTR_SM_INFO) {
			uroce_sminfo_decode(&out->sminfo, out->smp_dr.data, sizeof(out->smp_dr.data));
			out->present |= UROCE_MGMT_SMINFO;
		}
		break;
	case UROCE_MAD_CLASS_SUBN_ADM:
		uroce_sa_decode(&out->sa, data, UROCE_MAD_DATA_LEN);
		out->present |= UROCE_MGMT_SA;
		/* The first record; a table's further records sit AttributeOffset x 8 bytes apart,
		 * possibly across RMPP segments. */
		if (out->hdr.attr_id == UROCE_SA_ATTR_PATH_RECORD) {
			uroce_pathrec_decode(&out->pathrec, out->sa.data, sizeof(out->sa.data));
			out->present |= UROCE_MGMT_PATHREC;
		}
		/* SMInfoRecord (IBA 15.2.5.4): a RID of LID and 2 reserved bytes, then SMInfo. */
		if (out->hdr.attr_id == UROCE_SA_ATTR_SM_INFO_RECORD) {
			uroce_sminfo_decode(&out->sminfo, out->sa.data + 4, sizeof(out->sa.data) - 4);
			out->present |= UROCE_MGMT_SMINFO;
		}
		break;
	case UROCE_MAD_CLASS_CM:
		if (uroce_cm_decode(&out->cm, out->hdr.attr_id, data, UROCE_MAD_DATA_LEN) < 0)
			break; /* ClassPortInfo or an unknown attribute */
		out->present |= UROCE_MGMT_CM;
		if (out->cm.attr == UROCE_CM_ATTR_REQ && uroce_cm_sid_is_ipcm(out->cm.req.service_id)) {
			uroce_cm_ipcm_decode(&out->ipcm, out->cm.req.private_data,
					     sizeof(out->cm.req.private_data));
			out->present |= UROCE_MGMT_IPCM;
		}
		break;
	default:
		break;
	}
	return UROCE_MAD_LEN;
}

/* Name lookups: one switch per X-macro list, so a name cannot drift from its value. */
#define NAME_CASE(id, v, n) case v: return n;

const char *uroce_mad_class_name(uint8_t mgmt_class)
{
	switch (mgmt_class) {
	UROCE_MAD_CLASS_MAP(NAME_CASE)
	default:
		break;
	}
	if (mgmt_class >= UROCE_MAD_CLASS_VENDOR1_FIRST && mgmt_class <= UROCE_MAD_CLASS_VENDOR1_LAST)
		return "Vendor (range 1)";
	if (mgmt_class >= UROCE_MAD_CLASS_APP_FIRST && mgmt_class <= UROCE_MAD_CLASS_APP_LAST)
		return "Application";
	if (mgmt_class >= UROCE_MAD_CLASS_VENDOR2_FIRST && mgmt_class <= UROCE_MAD_CLASS_VENDOR2_LAST)
		return "Vendor (range 2)";
	return NULL;
}

const char *uroce_mad_method_name(uint8_t method)
{
	switch (method) {
	UROCE_MAD_METHOD_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

static const char *common_attr_name(uint16_t attr)
{
	switch (attr) {
	UROCE_MAD_COMMON_ATTR_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

static const char *class_attr_name(uint8_t mgmt_class, uint16_t attr)
{
	switch (mgmt_class) {
	case UROCE_MAD_CLASS_SUBN_LID:
	case UROCE_MAD_CLASS_SUBN_DR:
		switch (attr) {
		UROCE_SMP_ATTR_MAP(NAME_CASE)
		default:
			return NULL;
		}
	case UROCE_MAD_CLASS_SUBN_ADM:
		switch (attr) {
		UROCE_SA_ATTR_MAP(NAME_CASE)
		default:
			return NULL;
		}
	case UROCE_MAD_CLASS_PERF:
		switch (attr) {
		UROCE_PERF_ATTR_MAP(NAME_CASE)
		default:
			return NULL;
		}
	case UROCE_MAD_CLASS_DEV_MGT:
		switch (attr) {
		UROCE_DM_ATTR_MAP(NAME_CASE)
		default:
			return NULL;
		}
	case UROCE_MAD_CLASS_CM:
		return uroce_cm_attr_name(attr);
	default:
		return NULL;
	}
}

const char *uroce_mad_attr_name(uint8_t mgmt_class, uint16_t attr)
{
	const char *n = class_attr_name(mgmt_class, attr);

	if (n)
		return n;
	if (attr >= UROCE_MAD_ATTR_VENDOR_FIRST)
		return "VendorSpecific";
	return common_attr_name(attr);
}

static const char *status_code_name(unsigned code)
{
	switch (code) {
	UROCE_MAD_STATUS_CODE_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

static const char *sa_status_name(unsigned code)
{
	switch (code) {
	UROCE_SA_STATUS_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

/* Appends to buf at *pos, never past len; snprintf's return is clamped so a long text only
 * truncates. */
static void append(char *buf, size_t len, size_t *pos, const char *s)
{
	if (*pos >= len)
		return;
	int n = snprintf(buf + *pos, len - *pos, "%s%s", *pos ? ", " : "", s);
	if (n > 0)
		*pos += (size_t)n < len - *pos ? (size_t)n : len - *pos;
}

const char *uroce_mad_status_describe(uint8_t mgmt_class, uint16_t status, char *buf, size_t len)
{
	size_t pos = 0;
	unsigned code = (status >> 2) & 7;
	unsigned cls = status >> 8; /* class-specific bits 15..8 */
	char tmp[64];

	if (!len)
		return buf;
	buf[0] = 0;
	if (mgmt_class == UROCE_MAD_CLASS_SUBN_DR) {
		if (status & 0x8000)
			append(buf, len, &pos, "D (return path)");
		cls &= 0x7F; /* bit 15 is the D bit here */
	}
	if (status & 1)
		append(buf, len, &pos, "busy");
	if (status & 2)
		append(buf, len, &pos, "redirect required");
	if (code) {
		const char *n = status_code_name(code);
		append(buf, len, &pos, n ? n : "reserved invalid-field code");
	}
	if (cls) {
		const char *n = mgmt_class == UROCE_MAD_CLASS_SUBN_ADM ? sa_status_name(cls) : NULL;
		if (n)
			snprintf(tmp, sizeof(tmp), "class status %u (%s)", cls, n);
		else
			snprintf(tmp, sizeof(tmp), "class status 0x%02x", cls);
		append(buf, len, &pos, tmp);
	}
	if (!pos)
		snprintf(buf, len, "OK");
	return buf;
}

const char *uroce_rmpp_type_name(uint8_t type)
{
	switch (type) {
	UROCE_RMPP_TYPE_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_rmpp_status_name(uint8_t status)
{
	switch (status) {
	UROCE_RMPP_STATUS_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_sm_state_name(uint8_t state)
{
	switch (state) {
	UROCE_SM_STATE_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

const char *uroce_sa_selector_name(uint8_t sel)
{
	switch (sel) {
	UROCE_SA_SELECTOR_MAP(NAME_CASE)
	default:
		return NULL;
	}
}

unsigned uroce_ib_mtu_bytes(uint8_t code)
{
	switch (code) {
#define MTU_CASE(bytes, c) case c: return bytes;
	UROCE_IB_MTU_MAP(MTU_CASE)
#undef MTU_CASE
	default:
		return 0;
	}
}

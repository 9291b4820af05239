/* SPDX-License-Identifier: MIT */
/* The fields of the management layers (MAD, SMP, SMInfo, RMPP, SA, PathRecord, CM) and of
 * IPoIB, with tshark 4.0's names, types and bases (`tshark -G fields`) and `uroce.*` for what
 * tshark does not show. Values come from d->mgmt and d->ipoib; where tshark 4.0 shows
 * something other than the wire field, the getter reproduces tshark's value (so that -T fields
 * compares equal) and the comment says what tshark does; the true value then has a `uroce.*`
 * field of its own. The layout facts behind each quirk were checked against tshark 4.0.17 on
 * the captures and on crafted MADs of every class, attribute and RMPP type.
 *
 * tshark shows the EtherType of an IPoIB payload as infiniband.rwh.etype, a field that also
 * serves the raw header of LNH 0 packets: fields_core.c defines it for both. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "wire/bytes.h"

#define N_OF(t) (sizeof(t) / sizeof((t)[0]))

#define GET(nm, lbl, fm, w, fn, mean) \
	{.name = nm, .label = lbl, .fmt = fm, .width = w, .get = fn, .meaning = mean}
/* A whole header or data block as bytes: -T fields and -T json only, not -V. */
#define GETRAW(nm, lbl, fn) \
	{.name = nm, .label = lbl, .fmt = FLD_BYTES, .get = fn, .flags = FLD_F_RAW}
#define HEX(nm, lbl, digits, fn, mean) GET(nm, lbl, FLD_HEX, digits, fn, mean)

/* The two callback signatures of struct dump_field. */
#define GETTER(fn) static int fn(const struct dump_pkt *d, struct fld_val *out)
#define MEANING(fn) \
	static const char *fn(const struct dump_pkt *d, const struct fld_val *v, char *buf, size_t len)

/* tshark's hex widths: 2 digits per byte of the field type. */
#define H8 2
#define H16 4
#define H24 6
#define H32 8
#define H64 16

/* ---- Where things are ---- */

static const struct uroce_mgmt *mgmt(const struct dump_pkt *d)
{
	return d->has_mgmt ? &d->mgmt : NULL;
}

static bool mgmt_has(const struct dump_pkt *d, uint32_t part)
{
	return d->has_mgmt && (d->mgmt.present & part);
}

static uint8_t mad_class(const struct dump_pkt *d) { return d->mgmt.hdr.mgmt_class; }
static uint16_t mad_attr(const struct dump_pkt *d) { return d->mgmt.hdr.attr_id; }

/* `len` captured bytes at MAD offset `off` (which may be negative, or run past the 256 bytes:
 * tshark shows a few items that start before the MAD or end after it). NULL when the frame
 * does not hold them. */
static const uint8_t *mad_bytes(const struct dump_pkt *d, long off, size_t len)
{
	long start = (long)d->pkt.payload_off + off;

	if (!d->has_mgmt || start < 0 || (size_t)start > d->pkt.frame_len ||
	    d->pkt.frame_len - (size_t)start < len)
		return NULL;
	return d->pkt.frame + start;
}

/* Appends an occurrence of `len` MAD bytes at `off` if they were captured. */
static int add_mad_bytes(const struct dump_pkt *d, struct fld_val *out, int n, long off, size_t len)
{
	const uint8_t *p = mad_bytes(d, off, len);

	if (!p || n >= FLD_MAX_OCC)
		return n;
	fld_one_bytes(&out[n], p, len);
	return n + 1;
}

static bool is_smp(const struct dump_pkt *d)
{
	return mgmt_has(d, UROCE_MGMT_SMP_LID | UROCE_MGMT_SMP_DR);
}

/* ---- MAD common header ---- */

static int get_mad(const struct dump_pkt *d, struct fld_val *out)
{
	return d->has_mgmt ? fld_one_bytes(out, d->mgmt.raw, UROCE_MAD_LEN) : 0;
}

static int get_mad_data(const struct dump_pkt *d, struct fld_val *out)
{
	return d->has_mgmt ? fld_one_bytes(out, d->mgmt.raw + UROCE_MAD_HDR_LEN, UROCE_MAD_DATA_LEN) : 0;
}

#define MAD_GET(fn, expr)                                                   \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		const struct uroce_mgmt *m = mgmt(d);                       \
		return m ? fld_one(out, (expr)) : 0;                            \
	}

MAD_GET(get_base_version, m->hdr.base_version)
MAD_GET(get_mgmt_class, m->hdr.mgmt_class)
MAD_GET(get_class_version, m->hdr.class_version)
/* tshark shows the whole Method byte, R bit included */
MAD_GET(get_method, uroce_mad_method_byte(&m->hdr))
MAD_GET(get_status, m->hdr.status)
MAD_GET(get_class_specific, m->hdr.class_specific)
MAD_GET(get_tid, m->hdr.tid)
MAD_GET(get_attr_id, m->hdr.attr_id)
MAD_GET(get_attr_mod, m->hdr.attr_mod)

MEANING(mean_class)
{
	(void)d, (void)buf, (void)len;
	return uroce_mad_class_name((uint8_t)v->u);
}

/* tshark writes methods as "Get()". */
MEANING(mean_method)
{
	const char *n = uroce_mad_method_name((uint8_t)v->u);

	(void)d;
	if (!n)
		return NULL;
	snprintf(buf, len, "%s()", n);
	return buf;
}

MEANING(mean_status)
{
	return uroce_mad_status_describe(mad_class(d), (uint16_t)v->u, buf, len);
}

MEANING(mean_attr)
{
	(void)buf, (void)len;
	return uroce_mad_attr_name(mad_class(d), (uint16_t)v->u);
}

static const struct dump_field mad_fields[] = {
	GETRAW("infiniband.mad", "MAD (Management Datagram) Common Header", get_mad),
	HEX("infiniband.mad.baseversion", "Base Version", H8, get_base_version, NULL),
	HEX("infiniband.mad.mgmtclass", "Management Class", H8, get_mgmt_class, mean_class),
	HEX("infiniband.mad.classversion", "Class Version", H8, get_class_version, NULL),
	HEX("infiniband.mad.method", "Method", H8, get_method, mean_method),
	HEX("infiniband.mad.status", "Status", H16, get_status, mean_status),
	HEX("infiniband.mad.classspecific", "Class Specific", H16, get_class_specific, NULL),
	HEX("infiniband.mad.transactionid", "Transaction ID", H64, get_tid, NULL),
	HEX("infiniband.mad.attributeid", "Attribute ID", H16, get_attr_id, mean_attr),
	HEX("infiniband.mad.attributemodifier", "Attribute Modifier", H32, get_attr_mod, NULL),
	GETRAW("infiniband.mad.data", "MAD Data Payload", get_mad_data),
};

/* ---- SMP, LID-routed and directed-route ---- */

static int get_smplid(const struct dump_pkt *d, struct fld_val *out)
{
	return mgmt_has(d, UROCE_MGMT_SMP_LID) ? fld_one_bytes(out, d->mgmt.raw, UROCE_MAD_LEN) : 0;
}

/* tshark uses infiniband.smplid.mkey for the M_Key of both kinds of SMP. */
static int get_mkey(const struct dump_pkt *d, struct fld_val *out)
{
	if (mgmt_has(d, UROCE_MGMT_SMP_LID))
		return fld_one(out, d->mgmt.smp_lid.mkey);
	if (mgmt_has(d, UROCE_MGMT_SMP_DR))
		return fld_one(out, d->mgmt.smp_dr.mkey);
	return 0;
}

/* SMP attributes for which tshark 4.0 adds a second 64-byte "SMP Data" item over the same
 * bytes (its parse_<Attribute> opens one): Notice, the forwarding, SL-to-VL, VL arbitration
 * and link-speed tables, SMInfo, VendorDiag, LedInfo. */
static bool smp_attr_second_item(uint16_t attr)
{
	switch (attr) {
	case UROCE_MAD_ATTR_NOTICE:
	case UROCE_SMP_ATTR_SL_TO_VL_TABLE:
	case UROCE_SMP_ATTR_VL_ARB_TABLE:
	case UROCE_SMP_ATTR_LINEAR_FWD_TABLE:
	case UROCE_SMP_ATTR_RANDOM_FWD_TABLE:
	case UROCE_SMP_ATTR_MCAST_FWD_TABLE:
	case UROCE_SMP_ATTR_LINK_SPEED_WIDTH_TABLE:
	case UROCE_SMP_ATTR_SM_INFO:
	case UROCE_SMP_ATTR_VENDOR_DIAG:
	case UROCE_SMP_ATTR_LED_INFO:
		return true;
	default:
		return false;
	}
}

/* The SA view: where tshark finds the SA header. After an RMPP header of a reserved type
 * (5..255) tshark 4.0 advances by 4 bytes instead of 12, so it reads the SA header 8 bytes
 * early (SM_Key at MAD byte 28, the data at 48) and its SA item starts 8 bytes before the
 * MAD. The view reproduces that; for valid types it is the decode in d->mgmt. */
struct sa_view {
	long hdr_off;           /* MAD offset of the SM_Key: 36, or 28 after a reserved RMPP type */
	long data_off;          /* MAD offset of the SA data: 56, or 48 */
	struct uroce_sa sa;
};

static bool sa_view(const struct dump_pkt *d, struct sa_view *v)
{
	if (!mgmt_has(d, UROCE_MGMT_SA))
		return false;
	v->sa = d->mgmt.sa;
	v->hdr_off = UROCE_MAD_HDR_LEN + UROCE_RMPP_HDR_LEN;
	if (d->mgmt.sa.rmpp.type > UROCE_RMPP_TYPE_ABORT) {
		v->hdr_off -= 8;
		/* uroce_sa_decode reads the RMPP header 12 bytes before the SM_Key */
		uroce_sa_decode(&v->sa, d->mgmt.raw + v->hdr_off - UROCE_RMPP_HDR_LEN,
				UROCE_MAD_LEN - (size_t)(v->hdr_off - UROCE_RMPP_HDR_LEN));
		v->sa.rmpp = d->mgmt.sa.rmpp;
	}
	v->data_off = v->hdr_off + 20;
	return true;
}

/* infiniband.smplid.smpdata is tshark's generic "data" item, used well beyond SMPs:
 * - SMP: the 64-byte attribute, a second item over it for the attributes above, and for a
 *   Notice a third of 54 bytes (the data details at attribute byte 10);
 * - SA: the 64-byte SMP attribute inside a record (Notice: + the 54-byte details;
 *   SLtoVL/LFT/RFT/MFT/VLArb records: after an 8-byte RID; SMInfoRecord: after 4 bytes;
 *   LinkSpeedWidthPairsTableRecord: at once);
 * - CM, BM, DevMgt, SNMP, vendor and application classes: the 232 bytes of MAD data;
 * - Perf: the same except for ClassPortInfo, PortCounters and PortCountersExtended, which
 *   tshark decodes;
 * - reserved classes: none (tshark's item runs past the packet and is dropped). */
static int get_smpdata(const struct dump_pkt *d, struct fld_val *out)
{
	struct sa_view v;
	uint8_t cls;
	int n = 0;

	if (!d->has_mgmt)
		return 0;
	cls = mad_class(d);
	if (is_smp(d)) {
		n = add_mad_bytes(d, out, n, 64, 64);
		if (smp_attr_second_item(mad_attr(d)))
			n = add_mad_bytes(d, out, n, 64, 64);
		if (mad_attr(d) == UROCE_MAD_ATTR_NOTICE)
			n = add_mad_bytes(d, out, n, 64 + 10, 54);
		return n;
	}
	if (sa_view(d, &v)) {
		switch (mad_attr(d)) {
		case UROCE_MAD_ATTR_NOTICE:
			n = add_mad_bytes(d, out, n, v.data_off, 64);
			return add_mad_bytes(d, out, n, v.data_off + 10, 54);
		case UROCE_SA_ATTR_SL_TO_VL_TABLE_RECORD:
		case UROCE_SA_ATTR_LINEAR_FWD_TABLE_RECORD:
		case UROCE_SA_ATTR_RANDOM_FWD_TABLE_RECORD:
		case UROCE_SA_ATTR_MCAST_FWD_TABLE_RECORD:
		case UROCE_SA_ATTR_VL_ARB_TABLE_RECORD:
			return add_mad_bytes(d, out, n, v.data_off + 8, 64);
		case UROCE_SA_ATTR_SM_INFO_RECORD:
			return add_mad_bytes(d, out, n, v.data_off + 4, 64);
		case UROCE_SA_ATTR_LINK_SPEED_WIDTH_TABLE_RECORD:
			return add_mad_bytes(d, out, n, v.data_off, 64);
		default:
			return 0;
		}
	}
	if (cls == UROCE_MAD_CLASS_PERF) {
		switch (mad_attr(d)) {
		case UROCE_MAD_ATTR_CLASS_PORT_INFO:
		case UROCE_PERF_ATTR_PORT_COUNTERS:
		case UROCE_PERF_ATTR_PORT_COUNTERS_EXT:
			return 0;
		default:
			return add_mad_bytes(d, out, n, UROCE_MAD_HDR_LEN, UROCE_MAD_DATA_LEN);
		}
	}
	if (cls == UROCE_MAD_CLASS_CM || cls == UROCE_MAD_CLASS_BM || cls == UROCE_MAD_CLASS_DEV_MGT ||
	    cls == UROCE_MAD_CLASS_SNMP ||
	    (cls >= UROCE_MAD_CLASS_VENDOR1_FIRST && cls <= UROCE_MAD_CLASS_VENDOR2_LAST))
		return add_mad_bytes(d, out, n, UROCE_MAD_HDR_LEN, UROCE_MAD_DATA_LEN);
	return 0;
}

static int get_smpdirected(const struct dump_pkt *d, struct fld_val *out)
{
	return mgmt_has(d, UROCE_MGMT_SMP_DR) ? fld_one_bytes(out, d->mgmt.raw, UROCE_MAD_LEN) : 0;
}

#define DR_GET(fn, expr)                                                    \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		const struct uroce_smp_dr *s = &d->mgmt.smp_dr;             \
		return mgmt_has(d, UROCE_MGMT_SMP_DR) ? fld_one(out, (expr)) : 0; \
	}

/* tshark 4.0 reads the D bit as 1 byte with the 16-bit mask 0x8000: it is always 0. The bit
 * itself is uroce.smp.d. */
static int get_dr_d_tshark(const struct dump_pkt *d, struct fld_val *out)
{
	return mgmt_has(d, UROCE_MGMT_SMP_DR) ? fld_one(out, 0) : 0;
}

DR_GET(get_dr_d, s->d)
DR_GET(get_dr_status, (uint16_t)(s->d << 15 | s->status)) /* tshark: the 16 bits, D included */
DR_GET(get_dr_hop_ptr, s->hop_ptr)
DR_GET(get_dr_hop_cnt, s->hop_cnt)
DR_GET(get_dr_slid, s->dr_slid)
DR_GET(get_dr_dlid, s->dr_dlid)

static int get_initial_path(const struct dump_pkt *d, struct fld_val *out)
{
	return mgmt_has(d, UROCE_MGMT_SMP_DR) ? fld_one_bytes(out, d->mgmt.smp_dr.initial_path, 64) : 0;
}

static int get_return_path(const struct dump_pkt *d, struct fld_val *out)
{
	return mgmt_has(d, UROCE_MGMT_SMP_DR) ? fld_one_bytes(out, d->mgmt.smp_dr.return_path, 64) : 0;
}

MEANING(mean_dr_status)
{
	(void)d;
	return uroce_mad_status_describe(UROCE_MAD_CLASS_SUBN_DR, (uint16_t)v->u, buf, len);
}

static const struct dump_field smp_fields[] = {
	GETRAW("infiniband.smplid", "Subnet Management Packet (LID Routed)", get_smplid),
	GETRAW("infiniband.smpdirected", "Subnet Management Packet (Directed Route)", get_smpdirected),
	HEX("infiniband.smpdirected.d", "D (Direction Bit) [as tshark 4.0 reads it]", H64, get_dr_d_tshark,
	    NULL),
	GET("uroce.smp.d", "D (Direction Bit)", FLD_BOOL, 0, get_dr_d, NULL),
	HEX("infiniband.smpdirected.smpstatus", "Status", H16, get_dr_status, mean_dr_status),
	HEX("infiniband.smpdirected.hoppointer", "Hop Pointer", H8, get_dr_hop_ptr, NULL),
	HEX("infiniband.smpdirected.hopcount", "Hop Count", H8, get_dr_hop_cnt, NULL),
	HEX("infiniband.smplid.mkey", "M_Key", H64, get_mkey, NULL),
	HEX("infiniband.smpdirected.drslid", "DrSLID", H16, get_dr_slid, NULL),
	HEX("infiniband.smpdirected.drdlid", "DrDLID", H16, get_dr_dlid, NULL),
	GETRAW("infiniband.smplid.smpdata", "SMP Data", get_smpdata),
	GET("infiniband.smpdirected.initialpath", "Initial Path", FLD_BYTES, 0, get_initial_path, NULL),
	GET("infiniband.smpdirected.returnpath", "Return Path", FLD_BYTES, 0, get_return_path, NULL),
};

/* ---- SMInfo (an SMP attribute, or the record of an SA SMInfoRecord) ---- */

static bool sminfo(const struct dump_pkt *d, struct uroce_sminfo *out)
{
	struct sa_view v;

	if (!mgmt_has(d, UROCE_MGMT_SMINFO))
		return false;
	*out = d->mgmt.sminfo;
	if (sa_view(d, &v)) /* the record follows a 4-byte RID, wherever tshark puts the data */
		uroce_sminfo_decode(out, v.sa.data + 4, sizeof(v.sa.data) - 4);
	return true;
}

#define SMINFO_GET(fn, expr)                                                \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		struct uroce_sminfo s;                                      \
		return sminfo(d, &s) ? fld_one(out, (expr)) : 0;                \
	}

SMINFO_GET(get_sminfo_guid, s.guid)
SMINFO_GET(get_sminfo_smkey, s.sm_key)
SMINFO_GET(get_sminfo_actcount, s.act_count)
SMINFO_GET(get_sminfo_priority, s.priority)
SMINFO_GET(get_sminfo_state, s.sm_state)

MEANING(mean_sm_state)
{
	(void)d, (void)buf, (void)len;
	return uroce_sm_state_name((uint8_t)v->u);
}

static const struct dump_field sminfo_fields[] = {
	HEX("infiniband.sminfo.guid", "GUID", H64, get_sminfo_guid, NULL),
	HEX("infiniband.sminfo.sm_key", "SM_Key", H64, get_sminfo_smkey, NULL),
	HEX("infiniband.sminfo.actcount", "ActCount", H32, get_sminfo_actcount, NULL),
	HEX("infiniband.sminfo.priority", "Priority", H8, get_sminfo_priority, NULL),
	HEX("infiniband.sminfo.smstate", "SMState", H8, get_sminfo_state, mean_sm_state),
};

/* ---- RMPP (tshark decodes it in SA MADs only) ---- */

static const struct uroce_rmpp *rmpp(const struct dump_pkt *d)
{
	return mgmt_has(d, UROCE_MGMT_SA) ? &d->mgmt.sa.rmpp : NULL;
}

static int get_rmpp(const struct dump_pkt *d, struct fld_val *out)
{
	return rmpp(d) ? fld_one_bytes(out, d->mgmt.raw + UROCE_MAD_HDR_LEN, UROCE_RMPP_HDR_LEN) : 0;
}

#define RMPP_GET(fn, cond, expr)                                            \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		const struct uroce_rmpp *r = rmpp(d);                       \
		return r && (cond) ? fld_one(out, (expr)) : 0;                  \
	}

/* The byte that holds RRespTime (5 bits) and RMPPFlags (3 bits). */
static uint8_t rmpp_byte2(const struct uroce_rmpp *r)
{
	return (uint8_t)(r->resp_time << 3 | (r->flags & 7));
}

RMPP_GET(get_rmpp_version, 1, r->version)
RMPP_GET(get_rmpp_type, 1, r->type)
/* tshark 4.0 splits byte 2 as 4 + 4 bits (masks 0xF0, 0x0F) where IBA 13.6.2.1 has 5 + 3:
 * its values are reproduced here, the IBA ones are uroce.rmpp.resptime and uroce.rmpp.flags. */
RMPP_GET(get_rmpp_resptime_tshark, 1, rmpp_byte2(r) >> 4)
RMPP_GET(get_rmpp_flags_tshark, 1, rmpp_byte2(r) & 0xF)
RMPP_GET(get_rmpp_resptime, 1, r->resp_time)
RMPP_GET(get_rmpp_flags, 1, r->flags)
RMPP_GET(get_rmpp_status, 1, r->status)
/* Data1/Data2 by type, as tshark names them; reserved types (5..) show neither. */
RMPP_GET(get_rmpp_data1, r->type == UROCE_RMPP_TYPE_NONE, r->data1)
RMPP_GET(get_rmpp_data2, r->type == UROCE_RMPP_TYPE_NONE, r->data2)
RMPP_GET(get_rmpp_segment, r->type == UROCE_RMPP_TYPE_DATA || r->type == UROCE_RMPP_TYPE_ACK,
	 r->data1)
RMPP_GET(get_rmpp_paylen, r->type == UROCE_RMPP_TYPE_DATA, r->data2)
RMPP_GET(get_rmpp_nwl, r->type == UROCE_RMPP_TYPE_ACK, r->data2)

/* The 220 bytes after the RMPP header, as tshark shows them for DATA and for STOP/ABORT. */
static int rmpp_rest(const struct dump_pkt *d, struct fld_val *out, bool want)
{
	return rmpp(d) && want ? fld_one_bytes(out, d->mgmt.raw + 36, UROCE_MAD_LEN - 36) : 0;
}

static int get_rmpp_transferred(const struct dump_pkt *d, struct fld_val *out)
{
	return rmpp_rest(d, out, rmpp(d) && rmpp(d)->type == UROCE_RMPP_TYPE_DATA);
}

static int get_rmpp_errdata(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_rmpp *r = rmpp(d);
	return rmpp_rest(d, out,
			 r && (r->type == UROCE_RMPP_TYPE_STOP || r->type == UROCE_RMPP_TYPE_ABORT));
}

MEANING(mean_rmpp_type)
{
	(void)d, (void)buf, (void)len;
	return uroce_rmpp_type_name((uint8_t)v->u);
}

MEANING(mean_rmpp_status)
{
	(void)d, (void)buf, (void)len;
	return uroce_rmpp_status_name((uint8_t)v->u);
}

MEANING(mean_rmpp_flags)
{
	(void)d;
	snprintf(buf, len, "%s%s%s", v->u & UROCE_RMPP_FLAG_ACTIVE ? "Active " : "",
		 v->u & UROCE_RMPP_FLAG_FIRST ? "First " : "", v->u & UROCE_RMPP_FLAG_LAST ? "Last " : "");
	if (buf[0])
		buf[strlen(buf) - 1] = 0;
	return buf[0] ? buf : "none";
}

static const struct dump_field rmpp_fields[] = {
	GETRAW("infiniband.rmpp", "RMPP (Reliable Multi-Packet Transaction Protocol)", get_rmpp),
	HEX("infiniband.rmpp.rmppversion", "RMPP Version", H8, get_rmpp_version, NULL),
	HEX("infiniband.rmpp.rmpptype", "RMPP Type", H8, get_rmpp_type, mean_rmpp_type),
	HEX("infiniband.rmpp.rresptime", "R Resp Time [as tshark 4.0 reads it]", H8,
	    get_rmpp_resptime_tshark, NULL),
	HEX("infiniband.rmpp.rmppflags", "RMPP Flags [as tshark 4.0 reads them]", H8,
	    get_rmpp_flags_tshark, NULL),
	GET("uroce.rmpp.resptime", "RRespTime", FLD_DEC, 0, get_rmpp_resptime, NULL),
	HEX("uroce.rmpp.flags", "RMPPFlags", H8, get_rmpp_flags, mean_rmpp_flags),
	HEX("infiniband.rmpp.rmppstatus", "RMPP Status", H8, get_rmpp_status, mean_rmpp_status),
	HEX("infiniband.rmpp.data1", "RMPP Data 1", H32, get_rmpp_data1, NULL),
	HEX("infiniband.rmpp.data2", "RMPP Data 2", H32, get_rmpp_data2, NULL),
	HEX("infiniband.rmpp.segmentnumber", "Segment Number", H32, get_rmpp_segment, NULL),
	HEX("infiniband.rmpp.payloadlength", "Payload Length", H32, get_rmpp_paylen, NULL),
	GETRAW("infiniband.rmpp.transferreddata", "Transferred Data", get_rmpp_transferred),
	HEX("infiniband.rmpp.newwindowlast", "New Window Last", H32, get_rmpp_nwl, NULL),
	GETRAW("infiniband.rmpp.extendederrordata", "Optional Extended Error Data", get_rmpp_errdata),
};

/* ---- SA header and record identifiers ---- */

/* tshark 4.0 registers its "SA Packet" item under the name infiniband.sa.drdlid. It shows
 * it for the whole MAD, for the 200 bytes of SA data, and for the record of the attributes it
 * decodes (after their RID): InformInfo, LinkRecord, ServiceRecord (whose 176 bytes run past
 * the MAD into the ICRC), PathRecord, MCMemberRecord, TraceRecord, MultiPathRecord,
 * ServiceAssociationRecord, InformInfoRecord. */
static int get_sa_item(const struct dump_pkt *d, struct fld_val *out)
{
	struct sa_view v;
	long rec = -1;
	size_t rec_len = 0;
	int n = 0;

	if (!sa_view(d, &v))
		return 0;
	n = add_mad_bytes(d, out, n, v.hdr_off - 36, UROCE_MAD_LEN);
	n = add_mad_bytes(d, out, n, v.data_off, UROCE_SA_DATA_LEN);
	switch (mad_attr(d)) {
	case UROCE_MAD_ATTR_INFORM_INFO:
		rec = 0, rec_len = 36;
		break;
	case UROCE_SA_ATTR_LINK_RECORD:
		rec = 3, rec_len = 3;
		break;
	case UROCE_SA_ATTR_SERVICE_RECORD:
		rec = 28, rec_len = 176;
		break;
	case UROCE_SA_ATTR_PATH_RECORD:
		rec = 0, rec_len = UROCE_PATHREC_LEN;
		break;
	case UROCE_SA_ATTR_MCMEMBER_RECORD:
		rec = 32, rec_len = 64;
		break;
	case UROCE_SA_ATTR_TRACE_RECORD:
		rec = 0, rec_len = 46;
		break;
	case UROCE_SA_ATTR_MULTI_PATH_RECORD:
		rec = 0, rec_len = UROCE_SA_DATA_LEN;
		break;
	case UROCE_SA_ATTR_SERVICE_ASSOC_RECORD:
		rec = 0, rec_len = 80;
		break;
	case UROCE_SA_ATTR_INFORM_INFO_RECORD:
		rec = 24, rec_len = 36;
		break;
	default:
		break;
	}
	if (rec >= 0)
		n = add_mad_bytes(d, out, n, v.data_off + rec, rec_len);
	return n;
}

#define SA_GET(fn, expr)                                                    \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		struct sa_view v;                                           \
		return sa_view(d, &v) ? fld_one(out, (expr)) : 0;               \
	}

SA_GET(get_sa_smkey, v.sa.sm_key)
SA_GET(get_sa_attr_offset, v.sa.attr_offset)
SA_GET(get_sa_comp_mask, v.sa.comp_mask)

/* The record identifier fields tshark shows (its parse_RID), by attribute: which field sits
 * at which byte of the SA data. */
enum rid_field {
	RID_LID,
	RID_ENDPORTLID,
	RID_PORTNUM,
	RID_INPUTPORTNUM,
	RID_OUTPUTPORTNUM,
	RID_BLOCK8,
	RID_BLOCK9,
	RID_BLOCK16,
	RID_POSITION,
};

static const struct rid_entry {
	uint16_t attr;
	uint8_t field;  /* enum rid_field */
	uint8_t off;    /* byte in the SA data */
} rid_table[] = {
	{UROCE_SA_ATTR_NODE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_PORT_INFO_RECORD, RID_ENDPORTLID, 0},
	{UROCE_SA_ATTR_PORT_INFO_RECORD, RID_PORTNUM, 2},
	{UROCE_SA_ATTR_SL_TO_VL_TABLE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_SL_TO_VL_TABLE_RECORD, RID_INPUTPORTNUM, 2},
	{UROCE_SA_ATTR_SL_TO_VL_TABLE_RECORD, RID_OUTPUTPORTNUM, 3},
	{UROCE_SA_ATTR_SWITCH_INFO_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_LINEAR_FWD_TABLE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_LINEAR_FWD_TABLE_RECORD, RID_BLOCK16, 2},
	{UROCE_SA_ATTR_RANDOM_FWD_TABLE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_RANDOM_FWD_TABLE_RECORD, RID_BLOCK16, 2},
	{UROCE_SA_ATTR_MCAST_FWD_TABLE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_MCAST_FWD_TABLE_RECORD, RID_POSITION, 2},
	{UROCE_SA_ATTR_MCAST_FWD_TABLE_RECORD, RID_BLOCK9, 2},
	{UROCE_SA_ATTR_VL_ARB_TABLE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_VL_ARB_TABLE_RECORD, RID_OUTPUTPORTNUM, 2},
	{UROCE_SA_ATTR_VL_ARB_TABLE_RECORD, RID_BLOCK8, 3},
	{UROCE_SA_ATTR_SM_INFO_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_P_KEY_TABLE_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_P_KEY_TABLE_RECORD, RID_BLOCK16, 2},
	{UROCE_SA_ATTR_P_KEY_TABLE_RECORD, RID_PORTNUM, 4},
	{UROCE_SA_ATTR_GUID_INFO_RECORD, RID_LID, 0},
	{UROCE_SA_ATTR_GUID_INFO_RECORD, RID_BLOCK8, 2},
};

static int rid_get(const struct dump_pkt *d, struct fld_val *out, enum rid_field field)
{
	struct sa_view v;

	if (!sa_view(d, &v))
		return 0;
	for (size_t i = 0; i < N_OF(rid_table); i++) {
		const struct rid_entry *e = &rid_table[i];
		const uint8_t *p = v.sa.data + e->off;
		if (e->attr != mad_attr(d) || e->field != field)
			continue;
		switch (field) {
		case RID_LID:
		case RID_ENDPORTLID:
		case RID_BLOCK16:
			return fld_one(out, get_be16(p));
		case RID_BLOCK9:
			return fld_one(out, get_be16(p) & 0x1FF);
		case RID_POSITION:
			return fld_one(out, p[0] >> 4);
		default:
			return fld_one(out, p[0]);
		}
	}
	return 0;
}

#define RID_GET(fn, field) \
	GETTER(fn) { return rid_get(d, out, field); }

RID_GET(get_rid_lid, RID_LID)
RID_GET(get_rid_endportlid, RID_ENDPORTLID)
RID_GET(get_rid_portnum, RID_PORTNUM)
RID_GET(get_rid_inputportnum, RID_INPUTPORTNUM)
RID_GET(get_rid_outputportnum, RID_OUTPUTPORTNUM)
RID_GET(get_rid_block8, RID_BLOCK8)
RID_GET(get_rid_block9, RID_BLOCK9)
RID_GET(get_rid_block16, RID_BLOCK16)
RID_GET(get_rid_position, RID_POSITION)

static const struct dump_field sa_fields[] = {
	GETRAW("infiniband.sa.drdlid", "SA Packet (Subnet Administration)", get_sa_item),
	HEX("infiniband.sa.smkey", "SM_Key (Verification Key)", H64, get_sa_smkey, NULL),
	HEX("infiniband.sa.attributeoffset", "Attribute Offset", H16, get_sa_attr_offset, NULL),
	HEX("infiniband.sa.componentmask", "Component Mask", H64, get_sa_comp_mask, NULL),
	HEX("infiniband.sa.lid", "LID", H16, get_rid_lid, NULL),
	HEX("infiniband.sa.endportlid", "EndportLID", H16, get_rid_endportlid, NULL),
	HEX("infiniband.sa.portnum", "PortNum", H8, get_rid_portnum, NULL),
	HEX("infiniband.sa.inputportnum", "InputPortNum", H8, get_rid_inputportnum, NULL),
	HEX("infiniband.sa.outputportnum", "OutputPortNum", H8, get_rid_outputportnum, NULL),
	HEX("infiniband.sa.blocknum_eightbit", "BlockNum_EightBit", H8, get_rid_block8, NULL),
	HEX("infiniband.sa.blocknum_ninebit", "BlockNum_NineBit", H16, get_rid_block9, NULL),
	HEX("infiniband.sa.blocknum_sixteenbit", "BlockNum_SixteenBit", H16, get_rid_block16, NULL),
	HEX("infiniband.sa.position", "Position", H8, get_rid_position, NULL),
};

/* ---- PathRecord ---- */

static bool pathrec(const struct dump_pkt *d, struct uroce_pathrec *out)
{
	struct sa_view v;

	if (!mgmt_has(d, UROCE_MGMT_PATHREC) || !sa_view(d, &v))
		return false;
	uroce_pathrec_decode(out, v.sa.data, sizeof(v.sa.data));
	return true;
}

#define PR_GET(fn, expr)                                                    \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		struct uroce_pathrec p;                                     \
		return pathrec(d, &p) ? fld_one(out, (expr)) : 0;               \
	}

/* The GIDs must outlive the getter: they are read from the MAD itself. */
static int pr_gid(const struct dump_pkt *d, struct fld_val *out, long off)
{
	struct sa_view v;
	const uint8_t *p;

	if (!mgmt_has(d, UROCE_MGMT_PATHREC) || !sa_view(d, &v))
		return 0;
	p = mad_bytes(d, v.data_off + off, 16);
	return p ? fld_one_bytes(out, p, 16) : 0;
}

GETTER(get_pr_dgid) { return pr_gid(d, out, 8); }
GETTER(get_pr_sgid) { return pr_gid(d, out, 24); }
PR_GET(get_pr_dlid, p.dlid)
PR_GET(get_pr_slid, p.slid)
PR_GET(get_pr_raw, p.raw_traffic)
PR_GET(get_pr_flow, p.flow_label)
PR_GET(get_pr_hop, p.hop_limit)
PR_GET(get_pr_tclass, p.tclass)
PR_GET(get_pr_rev, p.reversible)
PR_GET(get_pr_numb, p.numb_path)
PR_GET(get_pr_pkey, p.pkey)
PR_GET(get_pr_sl, p.sl)
PR_GET(get_pr_mtusel, p.mtu_selector)
PR_GET(get_pr_mtu, p.mtu)
PR_GET(get_pr_ratesel, p.rate_selector)
PR_GET(get_pr_rate, p.rate)
PR_GET(get_pr_pltsel, p.plt_selector)
PR_GET(get_pr_plt, p.plt)
PR_GET(get_pr_pref, p.preference)

MEANING(mean_selector)
{
	(void)d, (void)buf, (void)len;
	return uroce_sa_selector_name((uint8_t)v->u);
}

MEANING(mean_mtu)
{
	unsigned bytes = uroce_ib_mtu_bytes((uint8_t)v->u);

	(void)d;
	if (!bytes)
		return NULL;
	snprintf(buf, len, "%u bytes", bytes);
	return buf;
}

static const struct dump_field pathrec_fields[] = {
	GET("infiniband.pathrecord.dgid", "DGID", FLD_IPV6, 0, get_pr_dgid, NULL),
	GET("infiniband.pathrecord.sgid", "SGID", FLD_IPV6, 0, get_pr_sgid, NULL),
	HEX("infiniband.pathrecord.dlid", "DLID", H16, get_pr_dlid, NULL),
	HEX("infiniband.pathrecord.slid", "SLID", H16, get_pr_slid, NULL),
	HEX("infiniband.pathrecord.rawtraffic", "RawTraffic", H8, get_pr_raw, NULL),
	HEX("infiniband.pathrecord.flowlabel", "FlowLabel", H24, get_pr_flow, NULL),
	HEX("infiniband.pathrecord.hoplimit", "HopLimit", H8, get_pr_hop, NULL),
	HEX("infiniband.pathrecord.tclass", "TClass", H8, get_pr_tclass, NULL),
	HEX("infiniband.pathrecord.reversible", "Reversible", H8, get_pr_rev, NULL),
	HEX("infiniband.pathrecord.numbpath", "NumbPath", H8, get_pr_numb, NULL),
	HEX("infiniband.pathrecord.p_key", "P_Key", H16, get_pr_pkey, NULL),
	HEX("infiniband.pathrecord.sl", "SL", H16, get_pr_sl, NULL), /* tshark: FT_UINT16 */
	HEX("infiniband.pathrecord.mtuselector", "MTUSelector", H8, get_pr_mtusel, mean_selector),
	HEX("infiniband.pathrecord.mtu", "MTU", H8, get_pr_mtu, mean_mtu),
	HEX("infiniband.pathrecord.rateselector", "RateSelector", H8, get_pr_ratesel, mean_selector),
	HEX("infiniband.pathrecord.rate", "Rate", H8, get_pr_rate, NULL),
	HEX("infiniband.pathrecord.packetlifetimeselector", "PacketLifeTimeSelector", H8, get_pr_pltsel,
	    mean_selector),
	HEX("infiniband.pathrecord.packetlifetime", "PacketLifeTime", H8, get_pr_plt, NULL),
	HEX("infiniband.pathrecord.preference", "Preference", H8, get_pr_pref, NULL),
};

/* ---- CM ---- */

static const struct uroce_cm_msg *cm(const struct dump_pkt *d, uint16_t attr)
{
	return mgmt_has(d, UROCE_MGMT_CM) && d->mgmt.cm.attr == attr ? &d->mgmt.cm : NULL;
}

static int get_cm_msg(const struct dump_pkt *d, struct fld_val *out)
{
	return mgmt_has(d, UROCE_MGMT_CM) ? fld_one_str(out, uroce_cm_msg_name(d->mgmt.cm.attr)) : 0;
}

/* A field of one CM message: `msg` names the union member, `attr` the message. */
#define CM_GET(fn, msg, attr, expr)                                             \
	static int fn(const struct dump_pkt *d, struct fld_val *out)            \
	{                                                                       \
		const struct uroce_cm_msg *c = cm(d, UROCE_CM_ATTR_##attr);     \
		return c ? fld_one(out, (expr)) : 0;                                \
	}
#define CM_BYTES(fn, msg, attr, member)                                         \
	static int fn(const struct dump_pkt *d, struct fld_val *out)            \
	{                                                                       \
		const struct uroce_cm_msg *c = cm(d, UROCE_CM_ATTR_##attr);     \
		return c ? fld_one_bytes(out, c->msg.member, sizeof(c->msg.member)) : 0; \
	}

/* REQ */
static bool req_ipcm(const struct dump_pkt *d)
{
	return cm(d, UROCE_CM_ATTR_REQ) && (d->mgmt.present & UROCE_MGMT_IPCM);
}

/* tshark shows the primary GIDs of a REQ carried over RoCEv2/IPv4 as IPv4 addresses (the last
 * 4 GID bytes, under _ipv4 names), and as IPv6 otherwise. */
static bool over_ipv4(const struct dump_pkt *d)
{
	return d->pkt.encap == UROCE_ENCAP_ROCEV2 && (d->pkt.layers & UROCE_L_IPV4);
}

CM_GET(get_req_lcid, req, REQ, c->req.local_comm_id)
CM_GET(get_req_sid, req, REQ, c->req.service_id)
CM_GET(get_req_lguid, req, REQ, c->req.local_ca_guid)
CM_GET(get_req_qkey, req, REQ, c->req.local_qkey)
CM_GET(get_req_qpn, req, REQ, c->req.local_qpn)
CM_GET(get_req_respres, req, REQ, c->req.responder_resources)
CM_GET(get_req_leecn, req, REQ, c->req.local_eecn)
CM_GET(get_req_initdepth, req, REQ, c->req.initiator_depth)
CM_GET(get_req_reecn, req, REQ, c->req.remote_eecn)
CM_GET(get_req_rrt, req, REQ, c->req.remote_cm_resp_timeout)
CM_GET(get_req_tst, req, REQ, c->req.transport_type)
CM_GET(get_req_e2e, req, REQ, c->req.e2e_flow_control)
CM_GET(get_req_psn, req, REQ, c->req.starting_psn)
CM_GET(get_req_lrt, req, REQ, c->req.local_cm_resp_timeout)
CM_GET(get_req_retry, req, REQ, c->req.retry_count)
CM_GET(get_req_pkey, req, REQ, c->req.pkey)
CM_GET(get_req_mtu, req, REQ, c->req.path_mtu)
CM_GET(get_req_rdc, req, REQ, c->req.rdc_exists)
CM_GET(get_req_rnr, req, REQ, c->req.rnr_retry_count)
CM_GET(get_req_maxcm, req, REQ, c->req.max_cm_retries)
CM_GET(get_req_srq, req, REQ, c->req.srq)
CM_GET(get_req_ext, req, REQ, c->req.ext_transport)

static int get_sid_prefix(const struct dump_pkt *d, struct fld_val *out)
{
	/* the ServiceID's first 5 bytes, kept in the MAD copy */
	return req_ipcm(d) ? fld_one_bytes(out, d->mgmt.raw + UROCE_MAD_HDR_LEN + 8, 5) : 0;
}

static int get_sid_protocol(const struct dump_pkt *d, struct fld_val *out)
{
	return req_ipcm(d) ? fld_one(out, uroce_cm_sid_protocol(d->mgmt.cm.req.service_id)) : 0;
}

static int get_sid_port(const struct dump_pkt *d, struct fld_val *out)
{
	return req_ipcm(d) ? fld_one(out, uroce_cm_sid_port(d->mgmt.cm.req.service_id)) : 0;
}

MEANING(mean_sid)
{
	(void)d;
	if (!uroce_cm_sid_is_ipcm(v->u))
		return NULL;
	snprintf(buf, len, "IP CM, protocol 0x%02x, port %u", uroce_cm_sid_protocol(v->u),
		 uroce_cm_sid_port(v->u));
	return buf;
}

MEANING(mean_transport)
{
	(void)d, (void)buf, (void)len;
	return uroce_cm_transport_name((uint8_t)v->u);
}

/* Path fields: `alt` selects the alternate path. */
static const struct uroce_cm_path *req_path(const struct dump_pkt *d, bool alt)
{
	const struct uroce_cm_msg *c = cm(d, UROCE_CM_ATTR_REQ);
	return c ? (alt ? &c->req.alternate : &c->req.primary) : NULL;
}

#define PATH_GET(fn, alt, expr)                                             \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		const struct uroce_cm_path *p = req_path(d, alt);           \
		return p ? fld_one(out, (expr)) : 0;                            \
	}

PATH_GET(get_p_llid, false, p->local_lid)
PATH_GET(get_p_rlid, false, p->remote_lid)
PATH_GET(get_a_llid, true, p->local_lid)
PATH_GET(get_a_rlid, true, p->remote_lid)
/* tshark 4.0 reads the 20-bit flow label as 3 bytes masked with 0xFFFFF000 (showing the
 * label >> 8), and the 6 reserved bits and the packet rate from the first of those bytes
 * (masks 0xFC0 and 0x3F on one byte): reproduced here; the wire values are uroce.cm.req.*. */
PATH_GET(get_p_flow_tshark, false, p->flow_label >> 8)
PATH_GET(get_p_rsv0_tshark, false, (p->flow_label >> 18) & 3)
PATH_GET(get_p_rate_tshark, false, (p->flow_label >> 12) & 0x3F)
PATH_GET(get_a_flow_tshark, true, p->flow_label >> 8)
PATH_GET(get_a_rsv0_tshark, true, (p->flow_label >> 18) & 3)
PATH_GET(get_a_rate_tshark, true, (p->flow_label >> 12) & 0x3F)
PATH_GET(get_p_flow, false, p->flow_label)
PATH_GET(get_p_rate, false, p->packet_rate)
PATH_GET(get_a_flow, true, p->flow_label)
PATH_GET(get_a_rate, true, p->packet_rate)
PATH_GET(get_p_tclass, false, p->traffic_class)
PATH_GET(get_p_hop, false, p->hop_limit)
PATH_GET(get_p_sl, false, p->sl)
PATH_GET(get_p_subnet, false, p->subnet_local)
PATH_GET(get_p_rsv1, false, p->rsv3)
PATH_GET(get_p_ack, false, p->local_ack_timeout)
PATH_GET(get_p_rsv2, false, p->rsv3b)
PATH_GET(get_a_tclass, true, p->traffic_class)
PATH_GET(get_a_hop, true, p->hop_limit)
PATH_GET(get_a_sl, true, p->sl)
PATH_GET(get_a_subnet, true, p->subnet_local)
PATH_GET(get_a_ack, true, p->local_ack_timeout)

/* tshark 4.0 gives the reserved bits after the alternate Subnet Local and after the alternate
 * ACK timeout the same name: two occurrences, in that order. */
static int get_a_rsv1(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_cm_path *p = req_path(d, true);

	if (!p)
		return 0;
	fld_one(&out[0], p->rsv3);
	fld_one(&out[1], p->rsv3b);
	return 2;
}

static int req_gid(const struct dump_pkt *d, struct fld_val *out, bool remote, bool want_ipv4)
{
	const struct uroce_cm_path *p = req_path(d, false);
	const uint8_t *gid;

	if (!p || over_ipv4(d) != want_ipv4)
		return 0;
	gid = remote ? p->remote_gid : p->local_gid;
	return want_ipv4 ? fld_one_bytes(out, gid + 12, 4) : fld_one_bytes(out, gid, 16);
}

GETTER(get_p_lgid) { return req_gid(d, out, false, false); }
GETTER(get_p_rgid) { return req_gid(d, out, true, false); }
GETTER(get_p_lgid4) { return req_gid(d, out, false, true); }
GETTER(get_p_rgid4) { return req_gid(d, out, true, true); }

static int get_a_lgid(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_cm_path *p = req_path(d, true);
	return p ? fld_one_bytes(out, p->local_gid, 16) : 0;
}

static int get_a_rgid(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_cm_path *p = req_path(d, true);
	return p ? fld_one_bytes(out, p->remote_gid, 16) : 0;
}

/* The private data: undecoded unless the ServiceID is an IP-CM one. */
static int get_req_private(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_cm_msg *c = cm(d, UROCE_CM_ATTR_REQ);
	return c && !req_ipcm(d) ? fld_one_bytes(out, c->req.private_data, sizeof(c->req.private_data)) : 0;
}

static int get_ipcm(const struct dump_pkt *d, struct fld_val *out)
{
	return req_ipcm(d) ? fld_one_bytes(out, d->mgmt.cm.req.private_data, UROCE_CM_REQ_PRIVATE_LEN) : 0;
}

#define IPCM_GET(fn, expr)                                                  \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		const struct uroce_cm_ipcm *ip = &d->mgmt.ipcm;             \
		return req_ipcm(d) ? fld_one(out, (expr)) : 0;                  \
	}

IPCM_GET(get_ipcm_major, ip->major)
IPCM_GET(get_ipcm_minor, ip->minor)
IPCM_GET(get_ipcm_ipv, ip->ip_version)
IPCM_GET(get_ipcm_rsv, ip->rsv4)
IPCM_GET(get_ipcm_sport, ip->src_port)

/* tshark takes the addresses as IPv4 (the last 4 of 16 bytes) when the IP version is 4, as
 * IPv6 for any other value. */
static int ipcm_ip(const struct dump_pkt *d, struct fld_val *out, bool dst, bool want_v4)
{
	const struct uroce_cm_ipcm *ip = &d->mgmt.ipcm;
	const uint8_t *a = dst ? ip->dst_ip : ip->src_ip;

	if (!req_ipcm(d) || (ip->ip_version == 4) != want_v4)
		return 0;
	return want_v4 ? fld_one_bytes(out, a + 12, 4) : fld_one_bytes(out, a, 16);
}

GETTER(get_ipcm_sip4) { return ipcm_ip(d, out, false, true); }
GETTER(get_ipcm_dip4) { return ipcm_ip(d, out, true, true); }
GETTER(get_ipcm_sip6) { return ipcm_ip(d, out, false, false); }
GETTER(get_ipcm_dip6) { return ipcm_ip(d, out, true, false); }

static int get_ipcm_private(const struct dump_pkt *d, struct fld_val *out)
{
	return req_ipcm(d) ? fld_one_bytes(out, d->mgmt.ipcm.consumer, UROCE_CM_IPCM_CONSUMER_LEN) : 0;
}

MEANING(mean_mtu_code)
{
	return mean_mtu(d, v, buf, len);
}

static const struct dump_field cm_req_fields[] = {
	GET("uroce.cm.msg", "CM message", FLD_STRING, 0, get_cm_msg, NULL),
	/* tshark names the REQ's Local Communication ID after the message */
	HEX("infiniband.cm.req", "Local Communication ID", H32, get_req_lcid, NULL),
	HEX("infiniband.cm.req.serviceid", "ServiceID", H64, get_req_sid, mean_sid),
	GET("infiniband.cm.req.serviceid.prefix", "Prefix", FLD_BYTES, 0, get_sid_prefix, NULL),
	HEX("infiniband.cm.req.serviceid.protocol", "Protocol", H8, get_sid_protocol, NULL),
	HEX("infiniband.cm.req.serviceid.dport", "Destination Port", H16, get_sid_port, NULL),
	HEX("infiniband.cm.req.localcaguid", "Local CA GUID", H64, get_req_lguid, NULL),
	HEX("infiniband.cm.req.localqkey", "Local Q_Key", H32, get_req_qkey, NULL),
	HEX("infiniband.cm.req.localqpn", "Local QPN", H24, get_req_qpn, NULL),
	HEX("infiniband.cm.req.responderres", "Responder Resources", H8, get_req_respres, NULL),
	HEX("infiniband.cm.req.localeecn", "Local EECN", H24, get_req_leecn, NULL),
	HEX("infiniband.cm.req.initdepth", "Initiator Depth", H8, get_req_initdepth, NULL),
	HEX("infiniband.cm.req.remoteeecn", "Remote EECN", H24, get_req_reecn, NULL),
	HEX("infiniband.cm.req.remoteresptout", "Remote CM Response Timeout", H8, get_req_rrt, NULL),
	HEX("infiniband.cm.req.transpsvctype", "Transport Service Type", H8, get_req_tst, mean_transport),
	HEX("infiniband.cm.req.e2eflowctrl", "End-to-End Flow Control", H8, get_req_e2e, NULL),
	HEX("infiniband.cm.req.startpsn", "Starting PSN", H24, get_req_psn, NULL),
	HEX("infiniband.cm.req.localresptout", "Local CM Response Timeout", H8, get_req_lrt, NULL),
	HEX("infiniband.cm.req.retrcount", "Retry Count", H8, get_req_retry, NULL),
	HEX("infiniband.cm.req.pkey", "Partition Key", H16, get_req_pkey, NULL),
	HEX("infiniband.cm.req.pppmtu", "Path Packet Payload MTU", H8, get_req_mtu, mean_mtu_code),
	HEX("infiniband.cm.req.rdcexist", "RDC Exists", H8, get_req_rdc, NULL),
	HEX("infiniband.cm.req.rnrretrcount", "RNR Retry Count", H8, get_req_rnr, NULL),
	HEX("infiniband.cm.req.maxcmretr", "Max CM Retries", H8, get_req_maxcm, NULL),
	HEX("infiniband.cm.req.srq", "SRQ", H8, get_req_srq, NULL),
	HEX("infiniband.cm.req.ext_transport", "Extended Transport", H8, get_req_ext, NULL),
	GET("infiniband.cm.req.prim_locallid", "Primary Local Port LID", FLD_DEC, 0, get_p_llid, NULL),
	GET("infiniband.cm.req.prim_remotelid", "Primary Remote Port LID", FLD_DEC, 0, get_p_rlid, NULL),
	GET("infiniband.cm.req.prim_localgid", "Primary Local Port GID", FLD_IPV6, 0, get_p_lgid, NULL),
	GET("infiniband.cm.req.prim_remotegid", "Primary Remote Port GID", FLD_IPV6, 0, get_p_rgid, NULL),
	GET("infiniband.cm.req.prim_localgid_ipv4", "Primary Local Port GID", FLD_IPV4, 0, get_p_lgid4,
	    NULL),
	GET("infiniband.cm.req.prim_remotegid_ipv4", "Primary Remote Port GID", FLD_IPV4, 0, get_p_rgid4,
	    NULL),
	HEX("infiniband.cm.req.prim_flowlabel", "Primary Flow Label [as tshark 4.0 reads it]", H32,
	    get_p_flow_tshark, NULL),
	HEX("infiniband.cm.req.prim_reserved0", "Reserved [as tshark 4.0 reads it]", H32,
	    get_p_rsv0_tshark, NULL),
	HEX("infiniband.cm.req.prim_pktrate", "Primary Packet Rate [as tshark 4.0 reads it]", H32,
	    get_p_rate_tshark, NULL),
	HEX("uroce.cm.req.prim_flowlabel", "Primary Flow Label", 5, get_p_flow, NULL),
	HEX("uroce.cm.req.prim_pktrate", "Primary Packet Rate", H8, get_p_rate, NULL),
	HEX("infiniband.cm.req.prim_tfcclass", "Primary Traffic Class", H8, get_p_tclass, NULL),
	HEX("infiniband.cm.req.prim_hoplim", "Primary Hop Limit", H8, get_p_hop, NULL),
	HEX("infiniband.cm.req.prim_sl", "Primary SL", H8, get_p_sl, NULL),
	HEX("infiniband.cm.req.prim_subnetlocal", "Primary Subnet Local", H8, get_p_subnet, NULL),
	HEX("infiniband.cm.req.prim_reserved1", "Reserved", H8, get_p_rsv1, NULL),
	HEX("infiniband.cm.req.prim_localacktout", "Primary Local ACK Timeout", H8, get_p_ack, NULL),
	HEX("infiniband.cm.req.prim_reserved2", "Reserved", H8, get_p_rsv2, NULL),
	GET("infiniband.cm.req.alt_locallid", "Alternate Local Port LID", FLD_DEC, 0, get_a_llid, NULL),
	GET("infiniband.cm.req.alt_remotelid", "Alternate Remote Port LID", FLD_DEC, 0, get_a_rlid, NULL),
	GET("infiniband.cm.req.alt_localgid", "Alternate Local Port GID", FLD_BYTES, 0, get_a_lgid, NULL),
	GET("infiniband.cm.req.alt_remotegid", "Alternate Remote Port GID", FLD_BYTES, 0, get_a_rgid,
	    NULL),
	HEX("infiniband.cm.req.alt_flowlabel", "Alternate Flow Label [as tshark 4.0 reads it]", H32,
	    get_a_flow_tshark, NULL),
	HEX("infiniband.cm.req.alt_reserved0", "Reserved [as tshark 4.0 reads it]", H32,
	    get_a_rsv0_tshark, NULL),
	HEX("infiniband.cm.req.alt_pktrate", "Alternate Packet Rate [as tshark 4.0 reads it]", H32,
	    get_a_rate_tshark, NULL),
	HEX("uroce.cm.req.alt_flowlabel", "Alternate Flow Label", 5, get_a_flow, NULL),
	HEX("uroce.cm.req.alt_pktrate", "Alternate Packet Rate", H8, get_a_rate, NULL),
	HEX("infiniband.cm.req.alt_tfcclass", "Alternate Traffic Class", H8, get_a_tclass, NULL),
	HEX("infiniband.cm.req.alt_hoplim", "Alternate Hop Limit", H8, get_a_hop, NULL),
	HEX("infiniband.cm.req.alt_sl", "Alternate SL", H8, get_a_sl, NULL),
	HEX("infiniband.cm.req.alt_subnetlocal", "Alternate Subnet Local", H8, get_a_subnet, NULL),
	HEX("infiniband.cm.req.alt_reserved1", "Reserved", H8, get_a_rsv1, NULL),
	HEX("infiniband.cm.req.alt_localacktout", "Alternate Local ACK Timeout", H8, get_a_ack, NULL),
	GET("infiniband.cm.req.private", "PrivateData", FLD_BYTES, 0, get_req_private, NULL),
	GETRAW("infiniband.cm.req.ip_cm", "IP CM Request Msg", get_ipcm),
	HEX("infiniband.cm.req.ip_cm.majv", "IP CM Major Version", H8, get_ipcm_major, NULL),
	HEX("infiniband.cm.req.ip_cm.minv", "IP CM Minor Version", H8, get_ipcm_minor, NULL),
	HEX("infiniband.cm.req.ip_cm.ipv", "IP CM IP Version", H8, get_ipcm_ipv, NULL),
	HEX("infiniband.cm.req.ip_cm.reserved", "IP CM Reserved", H8, get_ipcm_rsv, NULL),
	HEX("infiniband.cm.req.ip_cm.sport", "IP CM Source Port", H16, get_ipcm_sport, NULL),
	GET("infiniband.cm.req.ip_cm.sip6", "IP CM Source IP", FLD_IPV6, 0, get_ipcm_sip6, NULL),
	GET("infiniband.cm.req.ip_cm.dip6", "IP CM Destination IP", FLD_IPV6, 0, get_ipcm_dip6, NULL),
	GET("infiniband.cm.req.ip_cm.sip4", "IP CM Source IP", FLD_IPV4, 0, get_ipcm_sip4, NULL),
	GET("infiniband.cm.req.ip_cm.dip4", "IP CM Destination IP", FLD_IPV4, 0, get_ipcm_dip4, NULL),
	GET("infiniband.cm.req.ip_cm.private", "IP CM Consumer PrivateData", FLD_BYTES, 0,
	    get_ipcm_private, NULL),
};

/* REP */
CM_GET(get_rep_lcid, rep, REP, c->rep.local_comm_id)
CM_GET(get_rep_rcid, rep, REP, c->rep.remote_comm_id)
CM_GET(get_rep_qkey, rep, REP, c->rep.local_qkey)
CM_GET(get_rep_qpn, rep, REP, c->rep.local_qpn)
CM_GET(get_rep_eecn, rep, REP, c->rep.local_eecn)
CM_GET(get_rep_psn, rep, REP, c->rep.starting_psn)
CM_GET(get_rep_respres, rep, REP, c->rep.responder_resources)
CM_GET(get_rep_initdepth, rep, REP, c->rep.initiator_depth)
CM_GET(get_rep_tad, rep, REP, c->rep.target_ack_delay)
CM_GET(get_rep_failover, rep, REP, c->rep.failover_accepted)
CM_GET(get_rep_e2e, rep, REP, c->rep.e2e_flow_control)
CM_GET(get_rep_rnr, rep, REP, c->rep.rnr_retry_count)
CM_GET(get_rep_srq, rep, REP, c->rep.srq)
CM_GET(get_rep_rsv, rep, REP, c->rep.rsv4)
CM_GET(get_rep_guid, rep, REP, c->rep.local_ca_guid)
CM_BYTES(get_rep_private, rep, REP, private_data)

static const struct dump_field cm_rep_fields[] = {
	HEX("infiniband.cm.rep", "Local Communication ID", H32, get_rep_lcid, NULL),
	HEX("infiniband.cm.rep.remotecommid", "Remote Communication ID", H32, get_rep_rcid, NULL),
	HEX("infiniband.cm.rep.localqkey", "Local Q_Key", H32, get_rep_qkey, NULL),
	HEX("infiniband.cm.rep.localqpn", "Local QPN", H24, get_rep_qpn, NULL),
	HEX("infiniband.cm.rep.localeecn", "Local EE Context Number", H24, get_rep_eecn, NULL),
	HEX("infiniband.cm.rep.startpsn", "Starting PSN", H24, get_rep_psn, NULL),
	HEX("infiniband.cm.rep.respres", "Responder Resources", H8, get_rep_respres, NULL),
	HEX("infiniband.cm.rep.initdepth", "Initiator Depth", H8, get_rep_initdepth, NULL),
	HEX("infiniband.cm.rep.tgtackdelay", "Target ACK Delay", H8, get_rep_tad, NULL),
	HEX("infiniband.cm.rep.failoveracc", "Failover Accepted", H8, get_rep_failover, NULL),
	HEX("infiniband.cm.rep.e2eflowctrl", "End-To-End Flow Control", H8, get_rep_e2e, NULL),
	HEX("infiniband.cm.rep.rnrretrcount", "RNR Retry Count", H8, get_rep_rnr, NULL),
	HEX("infiniband.cm.rep.srq", "SRQ", H8, get_rep_srq, NULL),
	HEX("infiniband.cm.rep.reserved", "Reserved", H8, get_rep_rsv, NULL),
	HEX("infiniband.cm.rep.localcaguid", "Local CA GUID", H64, get_rep_guid, NULL),
	GET("infiniband.cm.rep.private", "PrivateData", FLD_BYTES, 0, get_rep_private, NULL),
};

/* RTU, REJ, DREQ, DREP */
CM_GET(get_rtu_lcid, rtu, RTU, c->rtu.local_comm_id)
CM_GET(get_rtu_rcid, rtu, RTU, c->rtu.remote_comm_id)
CM_BYTES(get_rtu_private, rtu, RTU, private_data)
CM_GET(get_rej_lcid, rej, REJ, c->rej.local_comm_id)
CM_GET(get_rej_rcid, rej, REJ, c->rej.remote_comm_id)
CM_GET(get_rej_msg, rej, REJ, c->rej.msg_rejected)
/* tshark 4.0 masks the 6 reserved bits after Message REJected with 0x03: only the low two. */
CM_GET(get_rej_rsv0, rej, REJ, c->rej.rsv6 & 3)
CM_GET(get_rej_infolen, rej, REJ, c->rej.reject_info_len)
CM_GET(get_rej_rsv1, rej, REJ, c->rej.rsv1)
CM_GET(get_rej_reason, rej, REJ, c->rej.reason)
CM_BYTES(get_rej_ari, rej, REJ, ari)
CM_BYTES(get_rej_private, rej, REJ, private_data)
CM_GET(get_dreq_lcid, dreq, DREQ, c->dreq.local_comm_id)
CM_GET(get_dreq_rcid, dreq, DREQ, c->dreq.remote_comm_id)
CM_GET(get_dreq_qpn, dreq, DREQ, c->dreq.remote_qpn_eecn)
CM_BYTES(get_dreq_private, dreq, DREQ, private_data)
CM_GET(get_drep_lcid, drep, DREP, c->drep.local_comm_id)
CM_GET(get_drep_rcid, drep, DREP, c->drep.remote_comm_id)
CM_BYTES(get_drep_private, drep, DREP, private_data)

MEANING(mean_msg_kind)
{
	(void)d, (void)buf, (void)len;
	return uroce_cm_msg_kind_name((uint8_t)v->u);
}

MEANING(mean_rej_reason)
{
	(void)d, (void)buf, (void)len;
	return uroce_cm_rej_reason_name((uint16_t)v->u);
}

static const struct dump_field cm_other_fields[] = {
	HEX("infiniband.cm.rtu.localcommid", "Local Communication ID", H32, get_rtu_lcid, NULL),
	HEX("infiniband.cm.rtu.remotecommid", "Remote Communication ID", H32, get_rtu_rcid, NULL),
	GET("infiniband.cm.rtu.private", "PrivateData", FLD_BYTES, 0, get_rtu_private, NULL),
	HEX("infiniband.cm.rej.localcommid", "Local Communication ID", H32, get_rej_lcid, NULL),
	HEX("infiniband.cm.rej.remotecommid", "Remote Communication ID", H32, get_rej_rcid, NULL),
	HEX("infiniband.cm.rej.msgrej", "Message REJected", H8, get_rej_msg, mean_msg_kind),
	HEX("infiniband.cm.rej.reserved0", "Reserved [as tshark 4.0 reads it]", H8, get_rej_rsv0, NULL),
	HEX("infiniband.cm.rej.rejinfolen", "Reject Info Length", H8, get_rej_infolen, NULL),
	HEX("infiniband.cm.rej.reserved1", "Reserved", H8, get_rej_rsv1, NULL),
	HEX("infiniband.cm.rej.reason", "Reason", H16, get_rej_reason, mean_rej_reason),
	GET("infiniband.cm.rej.ari", "Additional Reject Information (ARI)", FLD_BYTES, 0, get_rej_ari,
	    NULL),
	GET("infiniband.cm.rej.private", "PrivateData", FLD_BYTES, 0, get_rej_private, NULL),
	HEX("infiniband.cm.dreq.localcommid", "Local Communication ID", H32, get_dreq_lcid, NULL),
	HEX("infiniband.cm.dreq.remotecommid", "Remote Communication ID", H32, get_dreq_rcid, NULL),
	/* tshark files the DREQ's Remote QPN/EECN under the REQ's name */
	HEX("infiniband.cm.req.remoteqpneecn", "Remote QPN/EECN", H24, get_dreq_qpn, NULL),
	GET("infiniband.cm.dreq.private", "PrivateData", FLD_BYTES, 0, get_dreq_private, NULL),
	HEX("infiniband.cm.drsp.localcommid", "Local Communication ID", H32, get_drep_lcid, NULL),
	HEX("infiniband.cm.drsp.remotecommid", "Remote Communication ID", H32, get_drep_rcid, NULL),
	GET("infiniband.cm.drsp.private", "PrivateData", FLD_BYTES, 0, get_drep_private, NULL),
};

/* MRA, LAP, APR, SIDR_REQ, SIDR_REP: tshark 4.0 does not decode them (uroce.* names). */
CM_GET(get_mra_lcid, mra, MRA, c->mra.local_comm_id)
CM_GET(get_mra_rcid, mra, MRA, c->mra.remote_comm_id)
CM_GET(get_mra_msg, mra, MRA, c->mra.msg_mraed)
CM_GET(get_mra_timeout, mra, MRA, c->mra.service_timeout)
CM_GET(get_lap_lcid, lap, LAP, c->lap.local_comm_id)
CM_GET(get_lap_rcid, lap, LAP, c->lap.remote_comm_id)
CM_GET(get_lap_qpn, lap, LAP, c->lap.remote_qpn_eecn)
CM_GET(get_lap_rrt, lap, LAP, c->lap.remote_cm_resp_timeout)
CM_GET(get_lap_llid, lap, LAP, c->lap.alt.local_lid)
CM_GET(get_lap_rlid, lap, LAP, c->lap.alt.remote_lid)
CM_BYTES(get_lap_lgid, lap, LAP, alt.local_gid)
CM_BYTES(get_lap_rgid, lap, LAP, alt.remote_gid)
CM_GET(get_lap_flow, lap, LAP, c->lap.alt.flow_label)
CM_GET(get_lap_tclass, lap, LAP, c->lap.alt.traffic_class)
CM_GET(get_lap_hop, lap, LAP, c->lap.alt.hop_limit)
CM_GET(get_lap_rate, lap, LAP, c->lap.alt.packet_rate)
CM_GET(get_lap_sl, lap, LAP, c->lap.alt.sl)
CM_GET(get_lap_subnet, lap, LAP, c->lap.alt.subnet_local)
CM_GET(get_lap_ack, lap, LAP, c->lap.alt.local_ack_timeout)
CM_GET(get_apr_lcid, apr, APR, c->apr.local_comm_id)
CM_GET(get_apr_rcid, apr, APR, c->apr.remote_comm_id)
CM_GET(get_apr_infolen, apr, APR, c->apr.add_info_len)
CM_GET(get_apr_status, apr, APR, c->apr.ap_status)
CM_GET(get_sreq_id, sidr_req, SIDR_REQ, c->sidr_req.request_id)
CM_GET(get_sreq_pkey, sidr_req, SIDR_REQ, c->sidr_req.pkey)
CM_GET(get_sreq_sid, sidr_req, SIDR_REQ, c->sidr_req.service_id)
CM_GET(get_srep_id, sidr_rep, SIDR_REP, c->sidr_rep.request_id)
CM_GET(get_srep_status, sidr_rep, SIDR_REP, c->sidr_rep.status)
CM_GET(get_srep_qpn, sidr_rep, SIDR_REP, c->sidr_rep.qpn)
CM_GET(get_srep_sid, sidr_rep, SIDR_REP, c->sidr_rep.service_id)
CM_GET(get_srep_qkey, sidr_rep, SIDR_REP, c->sidr_rep.qkey)

MEANING(mean_apr_status)
{
	(void)d, (void)buf, (void)len;
	return uroce_cm_apr_status_name((uint8_t)v->u);
}

MEANING(mean_sidr_status)
{
	(void)d, (void)buf, (void)len;
	return uroce_cm_sidr_status_name((uint8_t)v->u);
}

static const struct dump_field cm_uroce_fields[] = {
	HEX("uroce.cm.mra.localcommid", "Local Communication ID", H32, get_mra_lcid, NULL),
	HEX("uroce.cm.mra.remotecommid", "Remote Communication ID", H32, get_mra_rcid, NULL),
	HEX("uroce.cm.mra.msgmraed", "Message MRAed", H8, get_mra_msg, mean_msg_kind),
	HEX("uroce.cm.mra.servicetimeout", "Service Timeout", H8, get_mra_timeout, NULL),
	HEX("uroce.cm.lap.localcommid", "Local Communication ID", H32, get_lap_lcid, NULL),
	HEX("uroce.cm.lap.remotecommid", "Remote Communication ID", H32, get_lap_rcid, NULL),
	HEX("uroce.cm.lap.remoteqpneecn", "Remote QPN/EECN", H24, get_lap_qpn, NULL),
	HEX("uroce.cm.lap.remoteresptout", "Remote CM Response Timeout", H8, get_lap_rrt, NULL),
	GET("uroce.cm.lap.alt_locallid", "Alternate Local Port LID", FLD_DEC, 0, get_lap_llid, NULL),
	GET("uroce.cm.lap.alt_remotelid", "Alternate Remote Port LID", FLD_DEC, 0, get_lap_rlid, NULL),
	GET("uroce.cm.lap.alt_localgid", "Alternate Local Port GID", FLD_IPV6, 0, get_lap_lgid, NULL),
	GET("uroce.cm.lap.alt_remotegid", "Alternate Remote Port GID", FLD_IPV6, 0, get_lap_rgid, NULL),
	HEX("uroce.cm.lap.alt_flowlabel", "Alternate Flow Label", 5, get_lap_flow, NULL),
	HEX("uroce.cm.lap.alt_tfcclass", "Alternate Traffic Class", H8, get_lap_tclass, NULL),
	HEX("uroce.cm.lap.alt_hoplim", "Alternate Hop Limit", H8, get_lap_hop, NULL),
	HEX("uroce.cm.lap.alt_pktrate", "Alternate Packet Rate", H8, get_lap_rate, NULL),
	HEX("uroce.cm.lap.alt_sl", "Alternate SL", H8, get_lap_sl, NULL),
	HEX("uroce.cm.lap.alt_subnetlocal", "Alternate Subnet Local", H8, get_lap_subnet, NULL),
	HEX("uroce.cm.lap.alt_localacktout", "Alternate Local ACK Timeout", H8, get_lap_ack, NULL),
	HEX("uroce.cm.apr.localcommid", "Local Communication ID", H32, get_apr_lcid, NULL),
	HEX("uroce.cm.apr.remotecommid", "Remote Communication ID", H32, get_apr_rcid, NULL),
	HEX("uroce.cm.apr.infolen", "Additional Info Length", H8, get_apr_infolen, NULL),
	HEX("uroce.cm.apr.status", "AP Status", H8, get_apr_status, mean_apr_status),
	HEX("uroce.cm.sidr_req.requestid", "Request ID", H32, get_sreq_id, NULL),
	HEX("uroce.cm.sidr_req.pkey", "Partition Key", H16, get_sreq_pkey, NULL),
	HEX("uroce.cm.sidr_req.serviceid", "ServiceID", H64, get_sreq_sid, mean_sid),
	HEX("uroce.cm.sidr_rep.requestid", "Request ID", H32, get_srep_id, NULL),
	HEX("uroce.cm.sidr_rep.status", "Status", H8, get_srep_status, mean_sidr_status),
	HEX("uroce.cm.sidr_rep.qpn", "QPN", H24, get_srep_qpn, NULL),
	HEX("uroce.cm.sidr_rep.serviceid", "ServiceID", H64, get_srep_sid, mean_sid),
	HEX("uroce.cm.sidr_rep.qkey", "Q_Key", H32, get_srep_qkey, NULL),
};

/* ---- IPoIB (tshark shows IB ARP under arp.*; uroce-dump has no Ethernet ARP decoder, so the
 * IPoIB ARP fields take uroce.* names rather than claim the arp.* ones) ---- */

static const struct uroce_ipoib_arp *ipoib_arp(const struct dump_pkt *d)
{
	return d->has_ipoib && d->ipoib.has_arp ? &d->ipoib.arp : NULL;
}

static int get_ipoib_rsv(const struct dump_pkt *d, struct fld_val *out)
{
	return d->has_ipoib ? fld_one(out, d->ipoib.rsv) : 0;
}

#define ARP_GET(fn, expr)                                                   \
	static int fn(const struct dump_pkt *d, struct fld_val *out)        \
	{                                                                   \
		const struct uroce_ipoib_arp *a = ipoib_arp(d);             \
		return a ? fld_one(out, (expr)) : 0;                            \
	}

ARP_GET(get_arp_htype, a->htype)
ARP_GET(get_arp_ptype, a->ptype)
ARP_GET(get_arp_hlen, a->hlen)
ARP_GET(get_arp_plen, a->plen)
ARP_GET(get_arp_op, a->op)
ARP_GET(get_arp_sflags, a->sha.flags)
ARP_GET(get_arp_sqpn, a->sha.qpn)
ARP_GET(get_arp_tflags, a->tha.flags)
ARP_GET(get_arp_tqpn, a->tha.qpn)

static int arp_gid(const struct dump_pkt *d, struct fld_val *out, bool target)
{
	const struct uroce_ipoib_arp *a = ipoib_arp(d);
	return a ? fld_one_bytes(out, target ? a->tha.gid : a->sha.gid, 16) : 0;
}

GETTER(get_arp_sgid) { return arp_gid(d, out, false); }
GETTER(get_arp_tgid) { return arp_gid(d, out, true); }

/* Protocol addresses: IPv4 when 4 bytes long, else bytes. */
static int arp_pa(const struct dump_pkt *d, struct fld_val *out, bool target, bool want_v4)
{
	const struct uroce_ipoib_arp *a = ipoib_arp(d);

	if (!a || (a->ptype == UROCE_ETHERTYPE_IPV4 && a->plen == 4) != want_v4)
		return 0;
	return fld_one_bytes(out, target ? a->tpa : a->spa, a->plen);
}

GETTER(get_arp_spa4) { return arp_pa(d, out, false, true); }
GETTER(get_arp_tpa4) { return arp_pa(d, out, true, true); }
GETTER(get_arp_spa) { return arp_pa(d, out, false, false); }
GETTER(get_arp_tpa) { return arp_pa(d, out, true, false); }

MEANING(mean_arp_op)
{
	(void)d, (void)buf, (void)len;
	return uroce_arp_op_name((uint16_t)v->u);
}

MEANING(mean_hw_flags)
{
	(void)d, (void)buf, (void)len;
	return v->u & UROCE_IPOIB_HW_FLAG_RC ? "connected mode" : NULL;
}

static const struct dump_field ipoib_fields[] = {
	HEX("uroce.ipoib.reserved", "Reserved", H16, get_ipoib_rsv, NULL),
	GET("uroce.ipoib.arp.hw_type", "Hardware type", FLD_DEC, 0, get_arp_htype, NULL),
	HEX("uroce.ipoib.arp.proto_type", "Protocol type", H16, get_arp_ptype, NULL),
	GET("uroce.ipoib.arp.hw_size", "Hardware size", FLD_DEC, 0, get_arp_hlen, NULL),
	GET("uroce.ipoib.arp.proto_size", "Protocol size", FLD_DEC, 0, get_arp_plen, NULL),
	GET("uroce.ipoib.arp.opcode", "Opcode", FLD_DEC, 0, get_arp_op, mean_arp_op),
	HEX("uroce.ipoib.arp.src.flags", "Sender flags", H8, get_arp_sflags, mean_hw_flags),
	HEX("uroce.ipoib.arp.src.qpn", "Sender QPN", H24, get_arp_sqpn, NULL),
	GET("uroce.ipoib.arp.src.gid", "Sender GID", FLD_IPV6, 0, get_arp_sgid, NULL),
	GET("uroce.ipoib.arp.src.proto_ipv4", "Sender IP address", FLD_IPV4, 0, get_arp_spa4, NULL),
	GET("uroce.ipoib.arp.src.proto", "Sender protocol address", FLD_BYTES, 0, get_arp_spa, NULL),
	HEX("uroce.ipoib.arp.dst.flags", "Target flags", H8, get_arp_tflags, mean_hw_flags),
	HEX("uroce.ipoib.arp.dst.qpn", "Target QPN", H24, get_arp_tqpn, NULL),
	GET("uroce.ipoib.arp.dst.gid", "Target GID", FLD_IPV6, 0, get_arp_tgid, NULL),
	GET("uroce.ipoib.arp.dst.proto_ipv4", "Target IP address", FLD_IPV4, 0, get_arp_tpa4, NULL),
	GET("uroce.ipoib.arp.dst.proto", "Target protocol address", FLD_BYTES, 0, get_arp_tpa, NULL),
};

#define GROUP(title, fields) {title, fields, N_OF(fields)}

const struct dump_field_group dump_mgmt_groups[] = {
	GROUP("MAD Header - Common Management Datagram", mad_fields),
	GROUP("Subnet Management Packet", smp_fields),
	GROUP("SMInfo", sminfo_fields),
	GROUP("RMPP (Reliable Multi-Packet Transaction Protocol)", rmpp_fields),
	GROUP("SA Packet (Subnet Administration)", sa_fields),
	GROUP("PathRecord", pathrec_fields),
	GROUP("CM ConnectRequest", cm_req_fields),
	GROUP("CM ConnectReply", cm_rep_fields),
	GROUP("CM Messages", cm_other_fields),
	GROUP("CM Messages (not decoded by tshark)", cm_uroce_fields),
	GROUP("IP over InfiniBand", ipoib_fields),
};

const size_t dump_mgmt_group_count = N_OF(dump_mgmt_groups);

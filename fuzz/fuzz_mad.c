/* SPDX-License-Identifier: MIT */
/* Input: the payload of a UD packet to QP0/QP1 (a 256-byte MAD) or of an IPoIB SEND; every
 * input goes to both decoders, as a dissector meeting an unknown payload would try them.
 *   - uroce_mgmt_decode: the parts it reports agree with the management class and attribute,
 *     and each re-encodes to exactly the bytes it came from (reserved fields are kept);
 *   - every sub-decoder (header, SMP, SMInfo, RMPP, SA, PathRecord, each CM message, IP-CM)
 *     also runs on the raw input at whatever length it has: short input is an error, never
 *     a read past the end (the input is an exact-size heap buffer under ASan);
 *   - uroce_ipoib_decode: the header, the IB ARP, and their re-encoding;
 *   - the name and description functions accept any value. */
#include "fuzz_check.h"

#include <string.h>

#include "common/error.h"
#include "wire/cm.h"
#include "wire/ipoib.h"
#include "wire/mad.h"

/* Byte offsets inside a MAD (IBA 14.2.1.1, 14.2.1.2, 15.2.1.1). */
#define SMP_DATA_OFF 64
#define SA_DATA_OFF (UROCE_MAD_HDR_LEN + 32)

static const uint16_t cm_attrs[] = {
#define CM_ATTR_VALUE(id, v, s, n) v,
	UROCE_CM_ATTR_MAP(CM_ATTR_VALUE)
#undef CM_ATTR_VALUE
};

static void check_names(const struct uroce_mgmt *m)
{
	char buf[160], tiny[6];
	uint8_t cls = m->hdr.mgmt_class;

	(void)uroce_mad_class_name(cls);
	(void)uroce_mad_method_name(uroce_mad_method_byte(&m->hdr));
	(void)uroce_mad_attr_name(cls, m->hdr.attr_id);
	FUZZ_CHECK(uroce_mad_status_describe(cls, m->hdr.status, buf, sizeof(buf)) == buf);
	FUZZ_CHECK(memchr(buf, 0, sizeof(buf)));
	/* A short buffer is cut, still terminated. */
	FUZZ_CHECK(uroce_mad_status_describe(cls, m->hdr.status, tiny, sizeof(tiny)) == tiny);
	FUZZ_CHECK(memchr(tiny, 0, sizeof(tiny)));
	if (m->present & UROCE_MGMT_SA) {
		(void)uroce_rmpp_type_name(m->sa.rmpp.type);
		(void)uroce_rmpp_status_name(m->sa.rmpp.status);
	}
	if (m->present & UROCE_MGMT_SMINFO)
		(void)uroce_sm_state_name(m->sminfo.sm_state);
	if (m->present & UROCE_MGMT_PATHREC) {
		(void)uroce_sa_selector_name(m->pathrec.mtu_selector);
		(void)uroce_ib_mtu_bytes(m->pathrec.mtu);
	}
	if (m->present & UROCE_MGMT_CM) {
		FUZZ_CHECK(uroce_cm_msg_name(m->cm.attr));
		FUZZ_CHECK(uroce_cm_attr_name(m->cm.attr));
		if (m->cm.attr == UROCE_CM_ATTR_REJ)
			(void)uroce_cm_rej_reason_name(m->cm.rej.reason);
		if (m->cm.attr == UROCE_CM_ATTR_REQ)
			(void)uroce_cm_transport_name(m->cm.req.transport_type);
		if (m->cm.attr == UROCE_CM_ATTR_APR)
			(void)uroce_cm_apr_status_name(m->cm.apr.ap_status);
		if (m->cm.attr == UROCE_CM_ATTR_SIDR_REP)
			(void)uroce_cm_sidr_status_name(m->cm.sidr_rep.status);
	}
}

static void check_mgmt(const uint8_t *data, size_t size)
{
	static struct uroce_mgmt m; /* 2.5 KB: kept off the stack */
	uint8_t buf[UROCE_MAD_LEN];
	ssize_t n = uroce_mgmt_decode(&m, data, size);

	if (size < UROCE_MAD_LEN) {
		FUZZ_CHECK(n == UROCE_ETRUNC && m.present == 0);
		return;
	}
	FUZZ_CHECK(n == UROCE_MAD_LEN);
	FUZZ_CHECK(memcmp(m.raw, data, UROCE_MAD_LEN) == 0);
	FUZZ_CHECK(uroce_mad_hdr_encode(&m.hdr, buf, sizeof(buf)) == UROCE_MAD_HDR_LEN);
	FUZZ_CHECK(memcmp(buf, data, UROCE_MAD_HDR_LEN) == 0);

	/* What was decoded follows from the class and attribute alone. */
	uint8_t cls = m.hdr.mgmt_class;
	uint16_t attr = m.hdr.attr_id;
	bool smp = cls == UROCE_MAD_CLASS_SUBN_LID || cls == UROCE_MAD_CLASS_SUBN_DR;
	FUZZ_CHECK(!!(m.present & UROCE_MGMT_SMP_LID) == (cls == UROCE_MAD_CLASS_SUBN_LID));
	FUZZ_CHECK(!!(m.present & UROCE_MGMT_SMP_DR) == (cls == UROCE_MAD_CLASS_SUBN_DR));
	/* SMInfo: an SMP's attribute, or inside an SA SMInfoRecord (IBA 15.2.5.4). */
	bool sminfo_rec = cls == UROCE_MAD_CLASS_SUBN_ADM && attr == UROCE_SA_ATTR_SM_INFO_RECORD;
	FUZZ_CHECK(!!(m.present & UROCE_MGMT_SMINFO) ==
		   ((smp && attr == UROCE_SMP_ATTR_SM_INFO) || sminfo_rec));
	FUZZ_CHECK(!!(m.present & UROCE_MGMT_SA) == (cls == UROCE_MAD_CLASS_SUBN_ADM));
	FUZZ_CHECK(!!(m.present & UROCE_MGMT_PATHREC) ==
		   (cls == UROCE_MAD_CLASS_SUBN_ADM && attr == UROCE_SA_ATTR_PATH_RECORD));
	FUZZ_CHECK(!(m.present & UROCE_MGMT_CM) ||
		   (cls == UROCE_MAD_CLASS_CM && m.cm.attr == attr && uroce_cm_msg_name(attr)));
	FUZZ_CHECK(!(m.present & UROCE_MGMT_IPCM) ||
		   ((m.present & UROCE_MGMT_CM) && attr == UROCE_CM_ATTR_REQ &&
		    uroce_cm_sid_is_ipcm(m.cm.req.service_id)));

	/* Every part re-encodes to its bytes. */
	if (m.present & UROCE_MGMT_SMP_LID) {
		FUZZ_CHECK(uroce_smp_lid_encode(&m.hdr, &m.smp_lid, buf, sizeof(buf)) == UROCE_MAD_LEN);
		FUZZ_CHECK(memcmp(buf, data, UROCE_MAD_LEN) == 0);
		FUZZ_CHECK(memcmp(m.smp_lid.data, data + SMP_DATA_OFF, sizeof(m.smp_lid.data)) == 0);
	}
	if (m.present & UROCE_MGMT_SMP_DR) {
		FUZZ_CHECK(uroce_smp_dr_encode(&m.hdr, &m.smp_dr, buf, sizeof(buf)) == UROCE_MAD_LEN);
		FUZZ_CHECK(memcmp(buf, data, UROCE_MAD_LEN) == 0);
		FUZZ_CHECK(memcmp(m.smp_dr.data, data + SMP_DATA_OFF, sizeof(m.smp_dr.data)) == 0);
	}
	if (m.present & UROCE_MGMT_SMINFO) {
		FUZZ_CHECK(uroce_sminfo_encode(&m.sminfo, buf, sizeof(buf)) == UROCE_SMINFO_LEN);
		/* A SMInfoRecord starts with its RID: LID and 2 reserved bytes. */
		size_t at = sminfo_rec ? SA_DATA_OFF + 4 : SMP_DATA_OFF;
		FUZZ_CHECK(memcmp(buf, data + at, UROCE_SMINFO_LEN) == 0);
	}
	if (m.present & UROCE_MGMT_SA) {
		FUZZ_CHECK(uroce_sa_encode(&m.sa, buf, sizeof(buf)) == UROCE_MAD_DATA_LEN);
		FUZZ_CHECK(memcmp(buf, data + UROCE_MAD_HDR_LEN, UROCE_MAD_DATA_LEN) == 0);
		FUZZ_CHECK(memcmp(m.sa.data, data + SA_DATA_OFF, UROCE_SA_DATA_LEN) == 0);
	}
	if (m.present & UROCE_MGMT_PATHREC) {
		FUZZ_CHECK(uroce_pathrec_encode(&m.pathrec, buf, sizeof(buf)) == UROCE_PATHREC_LEN);
		FUZZ_CHECK(memcmp(buf, data + SA_DATA_OFF, UROCE_PATHREC_LEN) == 0);
	}
	if (m.present & UROCE_MGMT_CM) {
		FUZZ_CHECK(uroce_cm_encode(&m.cm, buf, sizeof(buf)) == UROCE_CM_DATA_LEN);
		FUZZ_CHECK(memcmp(buf, data + UROCE_MAD_HDR_LEN, UROCE_CM_DATA_LEN) == 0);
	}
	if (m.present & UROCE_MGMT_IPCM) {
		FUZZ_CHECK(uroce_cm_ipcm_encode(&m.ipcm, buf, sizeof(buf)) == UROCE_CM_REQ_PRIVATE_LEN);
		FUZZ_CHECK(memcmp(buf, m.cm.req.private_data, UROCE_CM_REQ_PRIVATE_LEN) == 0);
	}
	check_names(&m);
}

/* decoder(out, data, size) then encoder(out, buf) must give back data[0..n). */
#define ROUND_TRIP(type, dec, enc, minlen)                                            \
	do {                                                                          \
		type v_;                                                              \
		ssize_t n_ = dec(&v_, data, size);                                    \
		FUZZ_CHECK(size < (minlen) ? n_ == UROCE_ETRUNC : n_ == (ssize_t)(minlen)); \
		if (n_ > 0) {                                                         \
			FUZZ_CHECK(enc(&v_, buf, sizeof(buf)) == n_);                 \
			FUZZ_CHECK(memcmp(buf, data, (size_t)n_) == 0);               \
			FUZZ_CHECK(enc(&v_, buf, (size_t)n_ - 1) == UROCE_ENOSPACE); \
		}                                                                     \
	} while (0)

/* The sub-decoders on the raw input, whatever its length. */
static void check_parts(const uint8_t *data, size_t size)
{
	static struct uroce_smp_lid lid;
	static struct uroce_smp_dr dr;
	static struct uroce_cm_msg cm;
	uint8_t buf[UROCE_MAD_LEN];

	ROUND_TRIP(struct uroce_mad_hdr, uroce_mad_hdr_decode, uroce_mad_hdr_encode,
		   UROCE_MAD_HDR_LEN);
	ROUND_TRIP(struct uroce_sminfo, uroce_sminfo_decode, uroce_sminfo_encode,
		   UROCE_SMINFO_LEN);
	ROUND_TRIP(struct uroce_rmpp, uroce_rmpp_decode, uroce_rmpp_encode, UROCE_RMPP_HDR_LEN);
	ROUND_TRIP(struct uroce_sa, uroce_sa_decode, uroce_sa_encode, UROCE_MAD_DATA_LEN);
	ROUND_TRIP(struct uroce_pathrec, uroce_pathrec_decode, uroce_pathrec_encode,
		   UROCE_PATHREC_LEN);
	ROUND_TRIP(struct uroce_cm_ipcm, uroce_cm_ipcm_decode, uroce_cm_ipcm_encode,
		   UROCE_CM_REQ_PRIVATE_LEN);

	ssize_t n = uroce_smp_lid_decode(&lid, data, size);
	FUZZ_CHECK(size < UROCE_MAD_LEN ? n == UROCE_ETRUNC : n == UROCE_MAD_LEN);
	n = uroce_smp_dr_decode(&dr, data, size);
	FUZZ_CHECK(size < UROCE_MAD_LEN ? n == UROCE_ETRUNC : n == UROCE_MAD_LEN);

	for (size_t i = 0; i < sizeof(cm_attrs) / sizeof(cm_attrs[0]); i++) {
		n = uroce_cm_decode(&cm, cm_attrs[i], data, size);
		if (cm_attrs[i] == UROCE_CM_ATTR_CLASS_PORT_INFO) {
			FUZZ_CHECK(n == UROCE_EINVAL);
			continue;
		}
		FUZZ_CHECK(size < UROCE_CM_DATA_LEN ? n == UROCE_ETRUNC : n == UROCE_CM_DATA_LEN);
		if (n < 0)
			continue;
		FUZZ_CHECK(uroce_cm_encode(&cm, buf, sizeof(buf)) == n);
		FUZZ_CHECK(memcmp(buf, data, (size_t)n) == 0);
	}
}

static void check_ipoib(const uint8_t *data, size_t size)
{
	struct uroce_ipoib ip;
	uint8_t buf[UROCE_IPOIB_HDR_LEN + UROCE_IPOIB_ARP_FIXED_LEN +
		    2 * (UROCE_IPOIB_HWADDR_LEN + UROCE_IPOIB_ARP_MAX_PLEN)];
	ssize_t n = uroce_ipoib_decode(&ip, data, size);
	bool arp;

	(void)uroce_ipoib_probe(data, size);
	if (size < UROCE_IPOIB_HDR_LEN) {
		FUZZ_CHECK(n == UROCE_ETRUNC);
		return;
	}
	arp = ip.ethertype == UROCE_ETHERTYPE_ARP || ip.ethertype == UROCE_ETHERTYPE_RARP;
	FUZZ_CHECK(ip.payload_off == UROCE_IPOIB_HDR_LEN && ip.payload_len == size - UROCE_IPOIB_HDR_LEN);
	if (!arp) {
		FUZZ_CHECK(n == UROCE_IPOIB_HDR_LEN && !ip.has_arp);
	} else if (n < 0) {
		FUZZ_CHECK((n == UROCE_ETRUNC || n == UROCE_EFORMAT) && !ip.has_arp);
		return;
	} else {
		FUZZ_CHECK(ip.has_arp && ip.arp.hlen == UROCE_IPOIB_HWADDR_LEN);
		FUZZ_CHECK(ip.arp.plen <= UROCE_IPOIB_ARP_MAX_PLEN);
		FUZZ_CHECK((size_t)n == UROCE_IPOIB_HDR_LEN + UROCE_IPOIB_ARP_FIXED_LEN +
					2 * (UROCE_IPOIB_HWADDR_LEN + (size_t)ip.arp.plen));
		FUZZ_CHECK((size_t)n <= size);
		(void)uroce_arp_op_name(ip.arp.op);
	}
	FUZZ_CHECK(uroce_ipoib_encode(&ip, buf, sizeof(buf)) == n);
	FUZZ_CHECK(memcmp(buf, data, (size_t)n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_mgmt(data, size);
	check_parts(data, size);
	check_ipoib(data, size);
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include "dissect.h"

#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"

/* Names of the layers a dissection can stop in, for messages. */
static const struct {
	uint32_t layer;
	const char *name;
} layer_names[] = {
	{UROCE_L_ETH, "Ethernet"},
	{UROCE_L_VLAN, "VLAN"},
	{UROCE_L_IPV4, "IPv4"},
	{UROCE_L_IPV6, "IPv6"},
	{UROCE_L_UDP, "UDP"},
	{UROCE_L_LRH, "LRH"},
	{UROCE_L_GRH, "GRH"},
	{UROCE_L_BTH, "BTH"},
	{UROCE_L_EXT, "extended headers"},
	{UROCE_L_ICRC, "ICRC"},
	{UROCE_L_VCRC, "VCRC"},
	{UROCE_L_RAW, "raw header"},
};

static const char *layer_name(uint32_t layer)
{
	for (size_t i = 0; i < sizeof(layer_names) / sizeof(layer_names[0]); i++)
		if (layer_names[i].layer == layer)
			return layer_names[i].name;
	return "frame";
}

static void set_error(struct dump_pkt *out, int err, const char *where)
{
	if (out->err)
		return; /* keep the first */
	out->err = err;
	out->err_where = where;
	out->malformed = true;
}

/* The payload bytes that were captured (a MAD or IPoIB decoder reports what is missing). */
static size_t captured_payload(const struct uroce_pkt *p)
{
	size_t avail = p->payload_off <= p->frame_len ? p->frame_len - p->payload_off : 0;
	return p->payload_len < avail ? p->payload_len : avail;
}

/* Any SEND payload could follow another upper-layer protocol: take it for IPoIB when its
 * header has the reserved bits zero and an EtherType IPoIB carries (RFC 4391 section 6). */
static bool ipoib_like(const uint8_t *p, size_t len)
{
	static const uint16_t types[] = {UROCE_ETHERTYPE_IPV4, UROCE_ETHERTYPE_ARP,
					 UROCE_ETHERTYPE_RARP, UROCE_ETHERTYPE_IPV6};

	if (len < UROCE_IPOIB_HDR_LEN || get_be16(p + 2) != 0)
		return false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (get_be16(p) == types[i])
			return true;
	return false;
}

/* What the payload carries: a MAD for UD SEND to QP0/QP1 (IBA 13.5.1), IPoIB for the first
 * packet of a SEND on native InfiniBand to any other QP (RFC 4391 UD, RFC 4755 connected
 * mode over RC). */
static void dissect_payload(struct dump_pkt *out)
{
	const struct uroce_pkt *p = &out->pkt;
	const uint8_t *payload = p->frame + p->payload_off;
	size_t len = captured_payload(p);
	enum uroce_transport tp = uroce_opcode_transport(p->bth.opcode);
	ssize_t n;

	if (!(p->layers & UROCE_L_EXT))
		return;
	if (p->bth.destqp <= 1) {
		if (p->bth.opcode != UROCE_OP_UD_SEND_ONLY)
			return;
		memset(&out->mgmt, 0, sizeof(out->mgmt)); /* see dump_dissect */
		n = uroce_mgmt_decode(&out->mgmt, payload, len);
		if (n < 0)
			set_error(out, (int)n, "MAD");
		else
			out->has_mgmt = true;
		return;
	}
	if (p->encap != UROCE_ENCAP_IB || (tp != UROCE_TP_UD && tp != UROCE_TP_RC) ||
	    p->op->kind != UROCE_OPK_SEND || !(p->op->flags & UROCE_OPF_FIRST) ||
	    !ipoib_like(payload, len))
		return;
	memset(&out->ipoib, 0, sizeof(out->ipoib));
	n = uroce_ipoib_decode(&out->ipoib, payload, len);
	if (n < 0)
		set_error(out, (int)n, "IPoIB");
	else
		out->has_ipoib = true;
}

void dump_dissect(struct dump_pkt *out, const struct dump_frame *frame)
{
	/* Member by member rather than a memset of the whole struct: the MAD and IPoIB decodes
	 * are 1.6 of its 2 KiB, and clearing them for every packet took 5 % of the time of
	 * -T fields on a large capture. They are cleared by dissect_payload when it decodes into
	 * them, and read only when has_mgmt or has_ipoib says so. uroce_pkt_dissect clears pkt. */
	out->frame = frame;
	out->icrc_status = UROCE_CRC_ABSENT;
	out->icrc_computed = 0;
	out->vcrc_status = UROCE_CRC_ABSENT;
	out->vcrc_computed = 0;
	out->has_mgmt = false;
	out->has_ipoib = false;
	out->malformed = false;
	out->err = 0;
	out->err_where = NULL;
	if (frame->undecoded) {
		/* uroce_pkt_dissect is not run: the empty packet has no layers and encap NONE */
		memset(&out->pkt, 0, sizeof(out->pkt));
		if (frame->err)
			set_error(out, frame->err, "capture record");
		return;
	}
	if (uroce_pkt_dissect(&out->pkt, frame->link, frame->data, frame->caplen) < 0) {
		set_error(out, out->pkt.err, layer_name(out->pkt.err_layer));
		/* Cut by the capture's snap length, not by its sender: the bytes that are there
		 * are fine, the rest was not kept (tshark does not call it malformed either). */
		if (out->err == UROCE_ETRUNC && frame->caplen < frame->wirelen)
			out->malformed = false;
	}
	out->icrc_status = uroce_pkt_icrc_check(&out->pkt, &out->icrc_computed);
	out->vcrc_status = uroce_pkt_vcrc_check(&out->pkt, &out->vcrc_computed);
	dissect_payload(out);
}

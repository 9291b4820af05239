/* SPDX-License-Identifier: MIT */
/* The fields of the link, IP and InfiniBand transport layers, with tshark 4.0's names, types
 * and bases (`tshark -G fields`), and `uroce.*` for what tshark does not show. Most entries
 * are table-driven (a member of struct uroce_pkt plus a presence test); a getter is written
 * only where the value is computed or tshark shows something other than the plain member. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "common/error.h"
#include "names.h"
#include "wire/bytes.h"

#define N_OF(t) (sizeof(t) / sizeof((t)[0]))
#define PKT_SIZE(m) sizeof(((struct dump_pkt *)0)->pkt.m)

/* An integer member of struct uroce_pkt, or bits `mask` of it after shifting right by `shift`. */
#define BITS(nm, lbl, fm, w, m, lay, eh, sh, mk, mean)                                        \
	{.name = nm, .label = lbl, .fmt = fm, .width = w, .meaning = mean, .src = FLD_SRC_PKT, \
	 .off = offsetof(struct dump_pkt, pkt.m), .size = PKT_SIZE(m), .layers = lay, .ext = eh, \
	 .shift = sh, .mask = mk}
#define INT(nm, lbl, fm, w, m, lay, eh, mean) BITS(nm, lbl, fm, w, m, lay, eh, 0, 0, mean)
/* Bytes held in a member of struct uroce_pkt (addresses, GIDs). */
#define MEM(nm, lbl, fm, m, lay, eh) INT(nm, lbl, fm, 0, m, lay, eh, NULL)
/* A whole header as bytes: `size` frame bytes at the offset kept in pkt.m. */
#define RAW(nm, lbl, m, sz, lay)                                                              \
	{.name = nm, .label = lbl, .fmt = FLD_BYTES, .src = FLD_SRC_FRAME,                     \
	 .off = offsetof(struct dump_pkt, pkt.m), .size = sz, .layers = lay, .flags = FLD_F_RAW}
/* A computed field. */
#define GET(nm, lbl, fm, w, fn, mean) \
	{.name = nm, .label = lbl, .fmt = fm, .width = w, .get = fn, .meaning = mean}
#define GETRAW(nm, lbl, fn) \
	{.name = nm, .label = lbl, .fmt = FLD_BYTES, .get = fn, .flags = FLD_F_RAW}

/* dump_field.off is 16 bits wide. */
_Static_assert(offsetof(struct dump_pkt, pkt) + sizeof(struct uroce_pkt) <= UINT16_MAX,
	       "struct uroce_pkt members must be reachable through a 16-bit offset");

#define L_ETH UROCE_L_ETH
#define L_IP4 UROCE_L_IPV4
#define L_IP6 UROCE_L_IPV6
#define L_UDP UROCE_L_UDP
#define L_LRH UROCE_L_LRH
#define L_GRH UROCE_L_GRH
#define L_BTH UROCE_L_BTH
#define L_EXT UROCE_L_EXT

/* A getter whose whole body is one expression of d and out. */
#define GETTER(fn, expr)                                             \
	static int fn(const struct dump_pkt *d, struct fld_val *out) \
	{                                                            \
		return expr;                                         \
	}

static bool has_ext(const struct dump_pkt *d, uint16_t bit)
{
	return (d->pkt.layers & L_EXT) && (d->pkt.ext.present & bit);
}

/* ---- Frame ---- */

GETTER(get_number, fld_one(out, d->frame->number))
GETTER(get_time, fld_one(out, d->frame->ts_ns))
GETTER(get_len, fld_one(out, d->frame->wirelen))
GETTER(get_caplen, fld_one(out, d->frame->caplen))

static int get_encap(const struct dump_pkt *d, struct fld_val *out)
{
	return fld_one_str(out, uroce_encap_name(d->pkt.encap));
}

GETTER(get_malformed, fld_one(out, d->malformed))

static int get_error(const struct dump_pkt *d, struct fld_val *out)
{
	return d->err ? fld_one_str(out, uroce_strerror(d->err)) : 0;
}

static int get_error_layer(const struct dump_pkt *d, struct fld_val *out)
{
	return d->err && d->err_where ? fld_one_str(out, d->err_where) : 0;
}

static const char *mean_malformed(const struct dump_pkt *d, const struct fld_val *v, char *buf,
				  size_t len)
{
	if (!v->u)
		return NULL;
	snprintf(buf, len, "%s, in %s", uroce_strerror(d->err), d->err_where ? d->err_where : "?");
	return buf;
}

static const struct dump_field frame_fields[] = {
	GET("frame.number", "Number", FLD_DEC, 0, get_number, NULL),
	GET("frame.time_epoch", "Epoch time", FLD_TIME, 0, get_time, NULL),
	GET("frame.len", "Length on the wire", FLD_DEC, 0, get_len, NULL),
	GET("frame.cap_len", "Captured length", FLD_DEC, 0, get_caplen, NULL),
	GET("uroce.encap", "Encapsulation", FLD_STRING, 0, get_encap, NULL),
	GET("uroce.malformed", "Malformed", FLD_BOOL, 0, get_malformed, mean_malformed),
	GET("uroce.error", "Error", FLD_STRING, 0, get_error, NULL),
	GET("uroce.error.layer", "Error layer", FLD_STRING, 0, get_error_layer, NULL),
};

/* ---- Ethernet and VLAN ---- */

static const char *mean_ethertype(const struct dump_pkt *d, const struct fld_val *v, char *buf,
				  size_t len)
{
	(void)d, (void)buf, (void)len;
	return dump_ethertype_name((uint16_t)v->u);
}

/* tshark's eth.type is the EtherType right after the addresses: the first tag's TPID when the
 * frame is tagged. */
static int get_eth_type(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_eth *e = &d->pkt.eth;

	if (!(d->pkt.layers & L_ETH))
		return 0;
	return fld_one(out, e->n_vlans ? e->vlan[0].tpid : e->ethertype);
}

/* One occurrence per tag with the given TPID, outermost first: tshark shows 802.1Q tags as
 * vlan.* and 802.1ad (Q-in-Q) service tags as ieee8021ad.*. */
static int tag_each(const struct dump_pkt *d, struct fld_val *out, uint16_t tpid, int what)
{
	const struct uroce_eth *e = &d->pkt.eth;
	int n = 0;

	if (!(d->pkt.layers & UROCE_L_VLAN))
		return 0;
	for (unsigned i = 0; i < e->n_vlans && i < UROCE_ETH_MAX_VLANS; i++) {
		/* the EtherType after this tag: the next tag's TPID or the final EtherType */
		uint16_t next = i + 1 < e->n_vlans ? e->vlan[i + 1].tpid : e->ethertype;
		const uint16_t v[] = {e->vlan[i].pcp, e->vlan[i].dei, e->vlan[i].vid, next};
		if (e->vlan[i].tpid == tpid)
			fld_one(&out[n++], v[what]);
	}
	return n;
}

GETTER(get_vlan_pcp, tag_each(d, out, UROCE_ETHERTYPE_VLAN, 0))
GETTER(get_vlan_dei, tag_each(d, out, UROCE_ETHERTYPE_VLAN, 1))
GETTER(get_vlan_id, tag_each(d, out, UROCE_ETHERTYPE_VLAN, 2))
GETTER(get_vlan_etype, tag_each(d, out, UROCE_ETHERTYPE_VLAN, 3))
GETTER(get_qinq_pcp, tag_each(d, out, UROCE_ETHERTYPE_QINQ, 0))
GETTER(get_qinq_dei, tag_each(d, out, UROCE_ETHERTYPE_QINQ, 1))
GETTER(get_qinq_id, tag_each(d, out, UROCE_ETHERTYPE_QINQ, 2))

static const struct dump_field eth_fields[] = {
	MEM("eth.dst", "Destination", FLD_ETHER, eth.dst, L_ETH, 0),
	MEM("eth.src", "Source", FLD_ETHER, eth.src, L_ETH, 0),
	GET("eth.type", "Type", FLD_HEX, 4, get_eth_type, mean_ethertype),
};

static const struct dump_field qinq_fields[] = {
	GET("ieee8021ad.priority", "Priority", FLD_DEC, 0, get_qinq_pcp, NULL),
	GET("ieee8021ad.dei", "DEI", FLD_DEC, 0, get_qinq_dei, NULL),
	GET("ieee8021ad.id", "ID", FLD_DEC, 0, get_qinq_id, NULL),
};

static const struct dump_field vlan_fields[] = {
	GET("vlan.priority", "Priority", FLD_DEC, 0, get_vlan_pcp, NULL),
	GET("vlan.dei", "DEI", FLD_BOOL, 0, get_vlan_dei, NULL),
	GET("vlan.id", "ID", FLD_DEC, 0, get_vlan_id, NULL),
	GET("vlan.etype", "Type", FLD_HEX, 4, get_vlan_etype, mean_ethertype),
};

/* ---- IPv4, IPv6, UDP ---- */

static const char *mean_ipproto(const struct dump_pkt *d, const struct fld_val *v, char *buf,
				size_t len)
{
	(void)d, (void)buf, (void)len;
	return dump_ipproto_name((uint8_t)v->u);
}

static const char *mean_ecn(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			    size_t len)
{
	(void)d, (void)buf, (void)len;
	return dump_ecn_name((uint8_t)v->u);
}

static int get_ip_hdr_len(const struct dump_pkt *d, struct fld_val *out)
{
	return d->pkt.layers & L_IP4 ? fld_one(out, d->pkt.ip4.ihl * 4u) : 0;
}

static const struct dump_field ipv4_fields[] = {
	INT("ip.version", "Version", FLD_DEC, 0, ip4.version, L_IP4, 0, NULL),
	GET("ip.hdr_len", "Header length", FLD_DEC, 0, get_ip_hdr_len, NULL),
	INT("ip.dsfield", "Differentiated services field", FLD_HEX, 2, ip4.tos, L_IP4, 0, NULL),
	BITS("ip.dsfield.dscp", "DSCP", FLD_DEC, 0, ip4.tos, L_IP4, 0, 2, 0x3F, NULL),
	BITS("ip.dsfield.ecn", "ECN", FLD_DEC, 0, ip4.tos, L_IP4, 0, 0, 3, mean_ecn),
	INT("ip.len", "Total length", FLD_DEC, 0, ip4.total_len, L_IP4, 0, NULL),
	INT("ip.id", "Identification", FLD_HEX, 4, ip4.id, L_IP4, 0, NULL),
	INT("ip.flags", "Flags", FLD_HEX, 2, ip4.flags, L_IP4, 0, NULL),
	BITS("ip.flags.df", "Don't fragment", FLD_BOOL, 0, ip4.flags, L_IP4, 0, 1, 1, NULL),
	BITS("ip.flags.mf", "More fragments", FLD_BOOL, 0, ip4.flags, L_IP4, 0, 0, 1, NULL),
	INT("ip.ttl", "Time to live", FLD_DEC, 0, ip4.ttl, L_IP4, 0, NULL),
	INT("ip.proto", "Protocol", FLD_DEC, 0, ip4.proto, L_IP4, 0, mean_ipproto),
	INT("ip.checksum", "Header checksum", FLD_HEX, 4, ip4.csum, L_IP4, 0, NULL),
	MEM("ip.src", "Source address", FLD_IPV4, ip4.src, L_IP4, 0),
	MEM("ip.dst", "Destination address", FLD_IPV4, ip4.dst, L_IP4, 0),
	INT("uroce.ip.options", "Has options (the ICRC assumes none)", FLD_BOOL, 0, ip4.has_options,
	    L_IP4, 0, NULL),
};

static int get_ip6_ext_len(const struct dump_pkt *d, struct fld_val *out)
{
	return (d->pkt.layers & L_IP6) && d->pkt.ip6.has_ext ? fld_one(out, d->pkt.ip6.ext_len) : 0;
}

static const struct dump_field ipv6_fields[] = {
	INT("ipv6.version", "Version", FLD_DEC, 0, ip6.version, L_IP6, 0, NULL),
	INT("ipv6.tclass", "Traffic class", FLD_HEX, 8, ip6.tclass, L_IP6, 0, NULL),
	BITS("ipv6.tclass.dscp", "DSCP", FLD_DEC, 0, ip6.tclass, L_IP6, 0, 2, 0x3F, NULL),
	BITS("ipv6.tclass.ecn", "ECN", FLD_DEC, 0, ip6.tclass, L_IP6, 0, 0, 3, mean_ecn),
	INT("ipv6.flow", "Flow label", FLD_HEX, 6, ip6.flowlabel, L_IP6, 0, NULL),
	INT("ipv6.plen", "Payload length", FLD_DEC, 0, ip6.payload_len, L_IP6, 0, NULL),
	INT("ipv6.nxt", "Next header", FLD_DEC, 0, ip6.nxthdr, L_IP6, 0, mean_ipproto),
	INT("ipv6.hlim", "Hop limit", FLD_DEC, 0, ip6.hoplimit, L_IP6, 0, NULL),
	MEM("ipv6.src", "Source address", FLD_IPV6, ip6.src, L_IP6, 0),
	MEM("ipv6.dst", "Destination address", FLD_IPV6, ip6.dst, L_IP6, 0),
	GET("uroce.ipv6.ext_len", "Extension headers length", FLD_DEC, 0, get_ip6_ext_len, NULL),
};

static const char *mean_udp_port(const struct dump_pkt *d, const struct fld_val *v, char *buf,
				 size_t len)
{
	(void)d, (void)buf, (void)len;
	return v->u == UROCE_ROCEV2_UDP_PORT ? "RoCEv2" : NULL;
}

static const struct dump_field udp_fields[] = {
	INT("udp.srcport", "Source port", FLD_DEC, 0, udp.sport, L_UDP, 0, NULL),
	INT("udp.dstport", "Destination port", FLD_DEC, 0, udp.dport, L_UDP, 0, mean_udp_port),
	INT("udp.length", "Length", FLD_DEC, 0, udp.len, L_UDP, 0, NULL),
	INT("udp.checksum", "Checksum", FLD_HEX, 4, udp.csum, L_UDP, 0, NULL),
};

/* ---- LRH, RWH, GRH ---- */

static const char *mean_lnh(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			    size_t len)
{
	(void)d, (void)buf, (void)len;
	return dump_lnh_name((uint8_t)v->u);
}

static const char *mean_vl(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			   size_t len)
{
	(void)d, (void)buf, (void)len;
	return v->u == 15 ? "VL15, subnet management" : NULL;
}

static const char *mean_words(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			      size_t len)
{
	(void)d;
	snprintf(buf, len, "%u bytes, LRH through ICRC", (unsigned)v->u * 4);
	return buf;
}

static const struct dump_field lrh_fields[] = {
	RAW("infiniband.lrh", "Local Route Header", ib_off, UROCE_LRH_LEN, L_LRH),
	INT("infiniband.lrh.vl", "Virtual Lane", FLD_HEX, 2, lrh.vl, L_LRH, 0, mean_vl),
	INT("infiniband.lrh.lver", "Link Version", FLD_DEC, 0, lrh.lver, L_LRH, 0, NULL),
	INT("infiniband.lrh.sl", "Service Level", FLD_DEC, 0, lrh.sl, L_LRH, 0, NULL),
	INT("infiniband.lrh.reserved2", "Reserved (2 bits)", FLD_DEC, 0, lrh.rsv2, L_LRH, 0, NULL),
	INT("infiniband.lrh.lnh", "Link Next Header", FLD_HEX, 2, lrh.lnh, L_LRH, 0, mean_lnh),
	INT("infiniband.lrh.dlid", "Destination Local ID", FLD_DEC, 0, lrh.dlid, L_LRH, 0, NULL),
	INT("infiniband.lrh.reserved5", "Reserved (5 bits)", FLD_DEC, 0, lrh.rsv5, L_LRH, 0, NULL),
	INT("infiniband.lrh.pktlen", "Packet Length", FLD_DEC, 0, lrh.pktlen, L_LRH, 0, mean_words),
	INT("infiniband.lrh.slid", "Source Local ID", FLD_DEC, 0, lrh.slid, L_LRH, 0, NULL),
};

static bool is_rwh(const struct dump_pkt *d)
{
	return (d->pkt.layers & UROCE_L_RAW) && d->pkt.lrh.lnh == UROCE_LNH_RAW;
}

static int get_rwh(const struct dump_pkt *d, struct fld_val *out)
{
	return is_rwh(d) ? fld_one_bytes(out, d->pkt.frame + UROCE_LRH_LEN, 4) : 0;
}

/* tshark shows the EtherType of the RWH (LNH 0), and also the type field that opens an IPoIB
 * payload, under infiniband.rwh.etype. */
static int get_rwh_etype(const struct dump_pkt *d, struct fld_val *out)
{
	if (is_rwh(d))
		return fld_one(out, d->pkt.raw_ethertype);
	return d->has_ipoib ? fld_one(out, d->ipoib.ethertype) : 0;
}

static const struct dump_field rwh_fields[] = {
	GETRAW("infiniband.rwh", "Raw Header", get_rwh),
	GET("infiniband.rwh.etype", "Ethertype", FLD_HEX, 4, get_rwh_etype, mean_ethertype),
};

/* The GRH opens the packet after the LRH (native IB) or after the Ethernet header (RoCE v1). */
static int get_grh(const struct dump_pkt *d, struct fld_val *out)
{
	size_t off = d->pkt.encap == UROCE_ENCAP_ROCEV1 ? d->pkt.l3_off : UROCE_LRH_LEN;

	if (!(d->pkt.layers & L_GRH) || off + UROCE_GRH_LEN > d->pkt.frame_len)
		return 0;
	return fld_one_bytes(out, d->pkt.frame + off, UROCE_GRH_LEN);
}

static const char *mean_nxthdr(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			       size_t len)
{
	(void)d, (void)buf, (void)len;
	return v->u == 0x1B ? "IBA transport" : NULL;
}

static const struct dump_field grh_fields[] = {
	GETRAW("infiniband.grh", "Global Route Header", get_grh),
	INT("infiniband.grh.ipver", "IP Version", FLD_DEC, 0, grh.ipver, L_GRH, 0, NULL),
	INT("infiniband.grh.tclass", "Traffic Class", FLD_DEC, 0, grh.tclass, L_GRH, 0, NULL),
	INT("infiniband.grh.flowlabel", "Flow Label", FLD_DEC, 0, grh.flowlabel, L_GRH, 0, NULL),
	INT("infiniband.grh.paylen", "Payload Length", FLD_DEC, 0, grh.paylen, L_GRH, 0, NULL),
	INT("infiniband.grh.nxthdr", "Next Header", FLD_DEC, 0, grh.nxthdr, L_GRH, 0, mean_nxthdr),
	INT("infiniband.grh.hoplmt", "Hop Limit", FLD_DEC, 0, grh.hoplmt, L_GRH, 0, NULL),
	MEM("infiniband.grh.sgid", "Source GID", FLD_IPV6, grh.sgid, L_GRH, 0),
	MEM("infiniband.grh.dgid", "Destination GID", FLD_IPV6, grh.dgid, L_GRH, 0),
};

/* ---- BTH ---- */

static const char *mean_opcode(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			       size_t len)
{
	(void)d;
	const char *s = dump_opcode_text((uint8_t)v->u, buf, len);
	return s ? s : "not valid for its transport";
}

static const char *mean_pkey(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			     size_t len)
{
	(void)d;
	/* IBA 10.9.1.2: bit 15 is the membership type, the rest the partition */
	snprintf(buf, len, "%s member, partition 0x%04x%s", v->u & 0x8000 ? "full" : "limited",
		 (unsigned)(v->u & 0x7FFF), (v->u & 0x7FFF) == 0x7FFF ? " (default)" : "");
	return buf;
}

static const char *mean_qp(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			   size_t len)
{
	static const struct dump_name qps[] = {
		{0, "QP0, subnet management"},
		{1, "QP1, general services"},
		{0xFFFFFF, "multicast"},
	};
	(void)d, (void)buf, (void)len;
	return dump_name_find(qps, N_OF(qps), (uint32_t)v->u);
}

static int get_opname(const struct dump_pkt *d, struct fld_val *out)
{
	const struct uroce_opcode_info *op = d->pkt.op;

	if (!op || !op->name)
		return 0;
	/* "RC_SEND_FIRST"; the CNP is its own transport: "CNP", not "CNP_CNP" */
	return fld_one_str(out, op->kind == UROCE_OPK_CNP ? op->op_name : op->name);
}

static int get_transport(const struct dump_pkt *d, struct fld_val *out)
{
	if (!(d->pkt.layers & L_BTH))
		return 0;
	return fld_one_str(out, uroce_transport_name(uroce_opcode_transport(d->pkt.bth.opcode)));
}

static const struct dump_field bth_fields[] = {
	RAW("infiniband.bth", "Base Transport Header", bth_off, UROCE_BTH_LEN, L_BTH),
	INT("infiniband.bth.opcode", "Opcode", FLD_DEC, 0, bth.opcode, L_BTH, 0, mean_opcode),
	INT("infiniband.bth.se", "Solicited Event", FLD_BOOL, 0, bth.se, L_BTH, 0, NULL),
	INT("infiniband.bth.m", "MigReq", FLD_BOOL, 0, bth.m, L_BTH, 0, NULL),
	INT("infiniband.bth.padcnt", "Pad Count", FLD_DEC, 0, bth.padcnt, L_BTH, 0, NULL),
	INT("infiniband.bth.tver", "Header Version", FLD_DEC, 0, bth.tver, L_BTH, 0, NULL),
	INT("infiniband.bth.p_key", "Partition Key", FLD_DEC, 0, bth.pkey, L_BTH, 0, mean_pkey),
	INT("uroce.bth.fecn", "FECN", FLD_BOOL, 0, bth.fecn, L_BTH, 0, NULL),
	INT("uroce.bth.becn", "BECN", FLD_BOOL, 0, bth.becn, L_BTH, 0, NULL),
	INT("uroce.bth.reserved6", "Reserved (6 bits)", FLD_DEC, 0, bth.rsv6, L_BTH, 0, NULL),
	INT("infiniband.bth.destqp", "Destination Queue Pair", FLD_HEX, 6, bth.destqp, L_BTH, 0,
	    mean_qp),
	INT("infiniband.bth.a", "Acknowledge Request", FLD_BOOL, 0, bth.ackreq, L_BTH, 0, NULL),
	INT("infiniband.bth.reserved7", "Reserved (7 bits)", FLD_DEC, 0, bth.rsv7, L_BTH, 0, NULL),
	INT("infiniband.bth.psn", "Packet Sequence Number", FLD_DEC, 0, bth.psn, L_BTH, 0, NULL),
	GET("uroce.opcode.name", "Opcode name", FLD_STRING, 0, get_opname, NULL),
	GET("uroce.transport", "Transport", FLD_STRING, 0, get_transport, NULL),
};

/* ---- Extended headers ---- */

/* The wire bytes of extended header `idx`: the headers present sit after the BTH in index
 * order (opcode.h). */
static int ext_bytes(const struct dump_pkt *d, unsigned idx, struct fld_val *out)
{
	size_t off = d->pkt.bth_off + UROCE_BTH_LEN;

	if (!has_ext(d, (uint16_t)(1u << idx)))
		return 0;
	for (unsigned i = 0; i < idx; i++)
		if (d->pkt.ext.present & (1u << i))
			off += uroce_exthdr_size[i];
	if (off + uroce_exthdr_size[idx] > d->pkt.frame_len)
		return 0;
	return fld_one_bytes(out, d->pkt.frame + off, uroce_exthdr_size[idx]);
}

#define EXT_RAW_GETTER(id, size, name, desc) GETTER(get_raw_##id, ext_bytes(d, UROCE_EHI_##id, out))
UROCE_EXTHDR_MAP(EXT_RAW_GETTER)
#undef EXT_RAW_GETTER

static const struct dump_field rdeth_fields[] = {
	GETRAW("infiniband.rdeth", "RDETH", get_raw_RDETH),
	INT("infiniband.rdeth.eecnxt", "E2E Context", FLD_DEC, 0, ext.rdeth.eecnxt, L_EXT,
	    UROCE_EH_RDETH, NULL),
};

static const struct dump_field deth_fields[] = {
	GETRAW("infiniband.deth", "DETH", get_raw_DETH),
	INT("infiniband.deth.q_key", "Queue Key", FLD_HEX, 16, ext.deth.qkey, L_EXT, UROCE_EH_DETH,
	    NULL),
	INT("infiniband.deth.srcqp", "Source Queue Pair", FLD_HEX, 8, ext.deth.srcqp, L_EXT,
	    UROCE_EH_DETH, mean_qp),
};

static const struct dump_field xrceth_fields[] = {
	GETRAW("uroce.xrceth", "XRCETH", get_raw_XRCETH),
	INT("uroce.xrceth.xrcsrq", "XRC SRQ", FLD_HEX, 6, ext.xrceth.xrcsrq, L_EXT, UROCE_EH_XRCETH,
	    NULL),
};

static const struct dump_field feth_fields[] = {
	GETRAW("uroce.feth", "FETH", get_raw_FETH),
	INT("uroce.feth.sel", "Selectivity Level", FLD_DEC, 0, ext.feth.sel, L_EXT, UROCE_EH_FETH,
	    NULL),
	INT("uroce.feth.plt", "Placement Type", FLD_DEC, 0, ext.feth.plt, L_EXT, UROCE_EH_FETH, NULL),
};

/* tshark reads the AtomicETH's VA and R_Key into the RETH's fields: so does uroce, since a
 * packet carries one of the two headers, never both. */
static int get_va(const struct dump_pkt *d, struct fld_val *out)
{
	if (has_ext(d, UROCE_EH_RETH))
		return fld_one(out, d->pkt.ext.reth.va);
	return has_ext(d, UROCE_EH_ATOMICETH) ? fld_one(out, d->pkt.ext.atomiceth.va) : 0;
}

static int get_rkey(const struct dump_pkt *d, struct fld_val *out)
{
	if (has_ext(d, UROCE_EH_RETH))
		return fld_one(out, d->pkt.ext.reth.rkey);
	return has_ext(d, UROCE_EH_ATOMICETH) ? fld_one(out, d->pkt.ext.atomiceth.rkey) : 0;
}

static const struct dump_field reth_fields[] = {
	GETRAW("infiniband.reth", "RETH", get_raw_RETH),
	GET("infiniband.reth.va", "Virtual Address", FLD_HEX, 16, get_va, NULL),
	GET("infiniband.reth.r_key", "Remote Key", FLD_HEX, 8, get_rkey, NULL),
	INT("infiniband.reth.dmalen", "DMA Length", FLD_DEC, 0, ext.reth.dmalen, L_EXT,
	    UROCE_EH_RETH, NULL),
};

static const struct dump_field atomiceth_fields[] = {
	GETRAW("infiniband.atomiceth", "AtomicETH", get_raw_ATOMICETH),
	INT("infiniband.atomiceth.swapdt", "Swap (Or Add) Data", FLD_DEC, 0, ext.atomiceth.swap,
	    L_EXT, UROCE_EH_ATOMICETH, NULL),
	INT("infiniband.atomiceth.cmpdt", "Compare Data", FLD_DEC, 0, ext.atomiceth.cmp, L_EXT,
	    UROCE_EH_ATOMICETH, NULL),
};

/* AETH syndrome sub-fields: tshark shows the 5-bit value under a name that depends on the
 * type (bits 6..5), and only that one. */
static int aeth_value_if(const struct dump_pkt *d, struct fld_val *out, enum uroce_aeth_type t)
{
	uint8_t syn = d->pkt.ext.aeth.syndrome;

	if (!has_ext(d, UROCE_EH_AETH) || uroce_aeth_type(syn) != t)
		return 0;
	return fld_one(out, uroce_aeth_value(syn));
}

GETTER(get_credit, aeth_value_if(d, out, UROCE_AETH_ACK))
GETTER(get_timer, aeth_value_if(d, out, UROCE_AETH_RNR_NAK))
GETTER(get_rsv_value, aeth_value_if(d, out, UROCE_AETH_RESERVED))
GETTER(get_nak_code, aeth_value_if(d, out, UROCE_AETH_NAK))

static int get_credits(const struct dump_pkt *d, struct fld_val *out)
{
	int32_t credits;

	if (!get_credit(d, out) || (credits = uroce_aeth_credits((uint8_t)out->u)) < 0)
		return 0;
	return fld_one(out, (uint64_t)credits);
}

static int get_rnr_us(const struct dump_pkt *d, struct fld_val *out)
{
	return get_timer(d, out) ? fld_one(out, uroce_rnr_timer_us((uint8_t)out->u)) : 0;
}

static int get_nak_name(const struct dump_pkt *d, struct fld_val *out)
{
	const char *name;

	if (!get_nak_code(d, out))
		return 0;
	name = uroce_nak_name((uint8_t)out->u);
	return fld_one_str(out, name ? name : "reserved");
}

static int get_aeth_meaning(const struct dump_pkt *d, struct fld_val *out)
{
	/* One packet is printed at a time, so a static buffer holds the text long enough. */
	static char buf[64];

	if (!has_ext(d, UROCE_EH_AETH))
		return 0;
	return fld_one_str(out, uroce_aeth_describe(d->pkt.ext.aeth.syndrome, buf, sizeof(buf)));
}

static const char *mean_syndrome(const struct dump_pkt *d, const struct fld_val *v, char *buf,
				 size_t len)
{
	(void)d;
	return uroce_aeth_describe((uint8_t)v->u, buf, len);
}

static const char *mean_aeth_type(const struct dump_pkt *d, const struct fld_val *v, char *buf,
				  size_t len)
{
	(void)d, (void)buf, (void)len;
	return dump_aeth_type_name((uint8_t)v->u);
}

static const char *mean_credit(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			       size_t len)
{
	int32_t credits = uroce_aeth_credits((uint8_t)v->u);

	(void)d;
	if (credits < 0)
		return "no credit information";
	snprintf(buf, len, "%d credits", (int)credits);
	return buf;
}

static const char *mean_timer(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			      size_t len)
{
	(void)d;
	return dump_rnr_text((uint8_t)v->u, buf, len);
}

static const char *mean_nak(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			    size_t len)
{
	const char *name = uroce_nak_name((uint8_t)v->u);

	(void)d, (void)buf, (void)len;
	return name ? name : "reserved";
}

static const struct dump_field aeth_fields[] = {
	GETRAW("infiniband.aeth", "AETH", get_raw_AETH),
	INT("infiniband.aeth.syndrome", "Syndrome", FLD_DEC, 0, ext.aeth.syndrome, L_EXT,
	    UROCE_EH_AETH, mean_syndrome),
	BITS("infiniband.aeth.syndrome.reserved", "Reserved", FLD_DEC, 0, ext.aeth.syndrome, L_EXT,
	     UROCE_EH_AETH, 7, 1, NULL),
	BITS("infiniband.aeth.syndrome.opcode", "OpCode", FLD_DEC, 0, ext.aeth.syndrome, L_EXT,
	     UROCE_EH_AETH, 5, 3, mean_aeth_type),
	GET("infiniband.aeth.syndrome.credit_count", "Credit Count", FLD_DEC, 0, get_credit,
	    mean_credit),
	GET("infiniband.aeth.syndrome.timer", "Timer", FLD_DEC, 0, get_timer, mean_timer),
	GET("infiniband.aeth.syndrome.reserved_value", "Reserved", FLD_DEC, 0, get_rsv_value, NULL),
	GET("infiniband.aeth.syndrome.error_code", "Error Code", FLD_DEC, 0, get_nak_code, mean_nak),
	INT("infiniband.aeth.msn", "Message Sequence Number", FLD_DEC, 0, ext.aeth.msn, L_EXT,
	    UROCE_EH_AETH, NULL),
	GET("uroce.aeth.meaning", "Meaning", FLD_STRING, 0, get_aeth_meaning, NULL),
	GET("uroce.aeth.credits", "Credits", FLD_DEC, 0, get_credits, NULL),
	GET("uroce.rnr.timer_us", "RNR timer (us)", FLD_DEC, 0, get_rnr_us, NULL),
	GET("uroce.nak.name", "NAK", FLD_STRING, 0, get_nak_name, NULL),
};

static const struct dump_field atomicacketh_fields[] = {
	GETRAW("infiniband.atomicacketh", "AtomicAckETH", get_raw_ATOMICACKETH),
	INT("infiniband.atomicacketh.origremdt", "Original Remote Data", FLD_DEC, 0,
	    ext.atomicacketh.orig, L_EXT, UROCE_EH_ATOMICACKETH, NULL),
};

/* ImmDt and IETH are shown by tshark as bytes: they are not numbers to the transport. */
static const struct dump_field immdt_fields[] = {
	{.name = "infiniband.immdt", .label = "Immediate Data", .fmt = FLD_BYTES, .get = get_raw_IMMDT},
};

static const struct dump_field ieth_fields[] = {
	{.name = "infiniband.ieth", .label = "RKey", .fmt = FLD_BYTES, .get = get_raw_IETH},
};

static int get_cnp(const struct dump_pkt *d, struct fld_val *out)
{
	return d->pkt.op && d->pkt.op->kind == UROCE_OPK_CNP ? fld_one(out, 1) : 0;
}

static const struct dump_field cnp_fields[] = {
	GET("uroce.cnp", "Congestion Notification Packet", FLD_BOOL, 0, get_cnp, NULL),
	GET("uroce.cnp.reserved", "Reserved", FLD_BYTES, 0, get_raw_CNPRSV, NULL),
};

/* ---- Payload ---- */

/* The payload bytes present in the capture (pad excluded); false when the packet has none. */
static bool payload(const struct dump_pkt *d, const uint8_t **p, size_t *len)
{
	const struct uroce_pkt *k = &d->pkt;

	if (!(k->layers & L_EXT) || !(k->op->flags & UROCE_OPF_PAYLOAD) || k->payload_off > k->frame_len)
		return false;
	*p = k->frame + k->payload_off;
	*len = k->payload_len < k->frame_len - k->payload_off ? k->payload_len
							       : k->frame_len - k->payload_off;
	return true;
}

static int get_payload(const struct dump_pkt *d, struct fld_val *out)
{
	const uint8_t *p;
	size_t len;

	return payload(d, &p, &len) && len ? fld_one_bytes(out, p, len) : 0;
}

static int get_payload_len(const struct dump_pkt *d, struct fld_val *out)
{
	return (d->pkt.layers & L_EXT) && (d->pkt.op->flags & UROCE_OPF_PAYLOAD)
		       ? fld_one(out, d->pkt.payload_len)
		       : 0;
}

/* tshark's data.len: the bytes after the headers that no other dissector took (MADs and IPoIB
 * are taken), pad included, up to the ICRC. */
static int get_data_len(const struct dump_pkt *d, struct fld_val *out)
{
	const uint8_t *p;
	size_t len;

	if (d->has_mgmt || d->has_ipoib || !payload(d, &p, &len))
		return 0;
	len = d->pkt.payload_len + d->pkt.bth.padcnt;
	return len ? fld_one(out, len) : 0;
}

/* The 8-byte ATOMIC WRITE payload, a big-endian value written at the RETH's VA. */
static int get_atomic_write(const struct dump_pkt *d, struct fld_val *out)
{
	const uint8_t *p;
	size_t len;

	if (!payload(d, &p, &len) || d->pkt.op->kind != UROCE_OPK_ATOMIC_WRITE ||
	    len < UROCE_ATOMIC_WRITE_LEN)
		return 0;
	return fld_one(out, get_be64(p));
}

static const struct dump_field payload_fields[] = {
	GET("infiniband.payload", "Payload", FLD_BYTES, 0, get_payload, NULL),
	GET("uroce.payload.len", "Payload length (pad excluded)", FLD_DEC, 0, get_payload_len, NULL),
	GET("data.len", "Data length (pad included)", FLD_DEC, 0, get_data_len, NULL),
	GET("uroce.atomic_write.data", "Atomic Write data", FLD_HEX, 16, get_atomic_write, NULL),
};

/* ---- CRCs ---- */

static int get_icrc(const struct dump_pkt *d, struct fld_val *out)
{
	return d->pkt.layers & UROCE_L_ICRC ? fld_one(out, dump_crc32_shown(d->pkt.icrc)) : 0;
}

static int get_vcrc(const struct dump_pkt *d, struct fld_val *out)
{
	return d->pkt.layers & UROCE_L_VCRC ? fld_one(out, dump_crc16_shown(d->pkt.vcrc)) : 0;
}

static int crc_status(enum uroce_crc_status st, struct fld_val *out)
{
	return st == UROCE_CRC_ABSENT ? 0 : fld_one_str(out, uroce_crc_status_name(st));
}

static bool crc_computed(enum uroce_crc_status st)
{
	return st == UROCE_CRC_OK || st == UROCE_CRC_BAD;
}

GETTER(get_icrc_status, crc_status(d->icrc_status, out))
GETTER(get_vcrc_status, crc_status(d->vcrc_status, out))

static int get_icrc_computed(const struct dump_pkt *d, struct fld_val *out)
{
	return crc_computed(d->icrc_status) ? fld_one(out, dump_crc32_shown(d->icrc_computed)) : 0;
}

static int get_vcrc_computed(const struct dump_pkt *d, struct fld_val *out)
{
	return crc_computed(d->vcrc_status) ? fld_one(out, dump_crc16_shown(d->vcrc_computed)) : 0;
}

static const char *crc_meaning(enum uroce_crc_status st, unsigned width, uint32_t computed,
			       char *buf, size_t len)
{
	if (st == UROCE_CRC_BAD)
		snprintf(buf, len, "BAD, computed 0x%0*x", (int)width, (unsigned)computed);
	else
		snprintf(buf, len, "%s", uroce_crc_status_name(st));
	return buf;
}

static const char *mean_icrc(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			     size_t len)
{
	(void)v;
	return crc_meaning(d->icrc_status, 8, dump_crc32_shown(d->icrc_computed), buf, len);
}

static const char *mean_vcrc(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			     size_t len)
{
	(void)v;
	return crc_meaning(d->vcrc_status, 4, dump_crc16_shown(d->vcrc_computed), buf, len);
}

static const struct dump_field crc_fields[] = {
	GET("infiniband.invariant.crc", "Invariant CRC", FLD_HEX, 8, get_icrc, mean_icrc),
	GET("uroce.icrc.status", "ICRC status", FLD_STRING, 0, get_icrc_status, NULL),
	GET("uroce.icrc.computed", "ICRC computed", FLD_HEX, 8, get_icrc_computed, NULL),
	GET("infiniband.variant.crc", "Variant CRC", FLD_HEX, 4, get_vcrc, mean_vcrc),
	GET("uroce.vcrc.status", "VCRC status", FLD_STRING, 0, get_vcrc_status, NULL),
	GET("uroce.vcrc.computed", "VCRC computed", FLD_HEX, 4, get_vcrc_computed, NULL),
};

#define GROUP(title, fields) {title, fields, N_OF(fields)}

const struct dump_field_group dump_core_groups[] = {
	GROUP("Frame", frame_fields),
	GROUP("Ethernet II", eth_fields),
	GROUP("IEEE 802.1ad", qinq_fields),
	GROUP("802.1Q Virtual LAN", vlan_fields),
	GROUP("Internet Protocol Version 4", ipv4_fields),
	GROUP("Internet Protocol Version 6", ipv6_fields),
	GROUP("User Datagram Protocol", udp_fields),
	GROUP("Local Route Header", lrh_fields),
	GROUP("Global Route Header", grh_fields),
	GROUP("Base Transport Header", bth_fields),
	GROUP("RDETH - Reliable Datagram Extended Transport Header", rdeth_fields),
	GROUP("DETH - Datagram Extended Transport Header", deth_fields),
	GROUP("XRCETH - XRC Extended Transport Header", xrceth_fields),
	GROUP("FETH - Flush Extended Transport Header", feth_fields),
	GROUP("RETH - RDMA Extended Transport Header", reth_fields),
	GROUP("AtomicETH - Atomic Extended Transport Header", atomiceth_fields),
	GROUP("AETH - ACK Extended Transport Header", aeth_fields),
	GROUP("AtomicAckETH - Atomic ACK Extended Transport Header", atomicacketh_fields),
	GROUP("ImmDt - Immediate Data", immdt_fields),
	GROUP("IETH - Invalidate Extended Transport Header", ieth_fields),
	GROUP("Congestion Notification", cnp_fields),
	/* last: for IPoIB it describes the payload, whose own fields follow (fields_mgmt.c) */
	GROUP("EtherType: Raw Header or IPoIB header", rwh_fields),
};

const size_t dump_core_group_count = N_OF(dump_core_groups);

const struct dump_field_group dump_tail_groups[] = {
	GROUP("Payload", payload_fields),
	GROUP("CRCs", crc_fields),
};

const size_t dump_tail_group_count = N_OF(dump_tail_groups);

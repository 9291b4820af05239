/* SPDX-License-Identifier: MIT */
/* The default output: one line per frame, in the spirit of tcpdump. Every frame gets a line,
 * even when it is not InfiniBand, so that line N is frame N. */
#include "common/error.h"
#include "names.h"
#include "outbuf.h"
#include "output.h"

/* "aa:bb:cc:dd:ee:ff" */
static void mac(struct outbuf *ob, const uint8_t *m)
{
	for (unsigned i = 0; i < 6; i++) {
		if (i)
			ob_char(ob, ':');
		ob_hex(ob, m[i], 2);
	}
}

/* "src > dst": IP addresses for RoCEv2 and plain IP, GIDs for RoCE v1, LIDs (and GIDs when a
 * GRH is present) for native InfiniBand, MAC addresses for other Ethernet frames. */
static void addresses(struct outbuf *ob, const struct uroce_pkt *p)
{
	if (p->layers & UROCE_L_IPV4) {
		ob_ipv4(ob, p->ip4.src);
		ob_str(ob, " > ");
		ob_ipv4(ob, p->ip4.dst);
	} else if (p->layers & UROCE_L_IPV6) {
		ob_ipv6(ob, p->ip6.src);
		ob_str(ob, " > ");
		ob_ipv6(ob, p->ip6.dst);
	} else if (p->layers & UROCE_L_LRH) {
		ob_str(ob, "LID ");
		ob_dec(ob, p->lrh.slid);
		ob_str(ob, " > LID ");
		ob_dec(ob, p->lrh.dlid);
	} else if (p->layers & UROCE_L_ETH) {
		mac(ob, p->eth.src);
		ob_str(ob, " > ");
		mac(ob, p->eth.dst);
	}
	if (p->layers & UROCE_L_GRH) {
		ob_str(ob, p->layers & UROCE_L_LRH ? " GID " : "GID ");
		ob_ipv6(ob, p->grh.sgid);
		ob_str(ob, " > ");
		ob_ipv6(ob, p->grh.dgid);
	}
}

/* A frame that carries no InfiniBand transport: name what it is. */
static void not_ib(struct outbuf *ob, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	const char *name;

	if (d->frame->undecoded) {
		ob_char(ob, ' ');
		ob_str(ob, d->frame->undecoded);
		return;
	}
	if (p->layers & UROCE_L_RAW) {
		name = dump_ethertype_name(p->raw_ethertype);
		ob_str(ob, " raw, type 0x");
		ob_hex(ob, p->raw_ethertype, 4);
		if (name) {
			ob_char(ob, ' ');
			ob_str(ob, name);
		}
	} else if (p->layers & UROCE_L_UDP) {
		ob_str(ob, " UDP ");
		ob_dec(ob, p->udp.sport);
		ob_str(ob, " > ");
		ob_dec(ob, p->udp.dport);
	} else if (p->layers & (UROCE_L_IPV4 | UROCE_L_IPV6)) {
		uint8_t proto = p->layers & UROCE_L_IPV4 ? p->ip4.proto : p->ip6.upper_proto;
		name = dump_ipproto_name(proto);
		ob_str(ob, p->layers & UROCE_L_IPV4 ? " IPv4 proto " : " IPv6 proto ");
		ob_dec(ob, proto);
		if (name) {
			ob_str(ob, " (");
			ob_str(ob, name);
			ob_char(ob, ')');
		}
	} else if (p->layers & UROCE_L_ETH) {
		name = dump_ethertype_name(p->eth.ethertype);
		if (name) {
			ob_char(ob, ' ');
			ob_str(ob, name);
		} else {
			ob_str(ob, " ethertype 0x");
			ob_hex(ob, p->eth.ethertype, 4);
		}
	}
}

/* ---- extended headers, one printer each ---- */

static void rdeth(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " eecnxt ");
	ob_dec(ob, d->pkt.ext.rdeth.eecnxt);
}

static void deth(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " qkey 0x");
	ob_hex(ob, d->pkt.ext.deth.qkey, 8);
	ob_str(ob, " srcqp 0x");
	ob_hex(ob, d->pkt.ext.deth.srcqp, 6);
}

static void xrceth(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " xrcsrq 0x");
	ob_hex(ob, d->pkt.ext.xrceth.xrcsrq, 6);
}

static void feth(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " sel ");
	ob_dec(ob, d->pkt.ext.feth.sel);
	ob_str(ob, " plt ");
	ob_dec(ob, d->pkt.ext.feth.plt);
}

static void reth(struct outbuf *ob, const struct dump_pkt *d)
{
	const struct uroce_reth *r = &d->pkt.ext.reth;

	ob_str(ob, " va 0x");
	ob_hex(ob, r->va, 1);
	ob_str(ob, " rkey 0x");
	ob_hex(ob, r->rkey, 8);
	ob_str(ob, " dmalen ");
	ob_dec(ob, r->dmalen);
}

static void atomiceth(struct outbuf *ob, const struct dump_pkt *d)
{
	const struct uroce_atomiceth *a = &d->pkt.ext.atomiceth;

	ob_str(ob, " va 0x");
	ob_hex(ob, a->va, 1);
	ob_str(ob, " rkey 0x");
	ob_hex(ob, a->rkey, 8);
	if ((d->pkt.bth.opcode & 0x1F) == (UROCE_OP_RC_FETCH_ADD & 0x1F)) {
		ob_str(ob, " add ");
		ob_dec(ob, a->swap);
	} else {
		ob_str(ob, " swap ");
		ob_dec(ob, a->swap);
		ob_str(ob, " compare ");
		ob_dec(ob, a->cmp);
	}
}

static void aeth(struct outbuf *ob, const struct dump_pkt *d)
{
	uint8_t syn = d->pkt.ext.aeth.syndrome, v = uroce_aeth_value(syn);
	char buf[32];
	const char *nak;

	switch (uroce_aeth_type(syn)) {
	case UROCE_AETH_ACK:
		ob_str(ob, " ACK");
		if (v != UROCE_AETH_CREDIT_INVALID) {
			/* a credit count, never negative for a valid code */
			ob_str(ob, " credits ");
			ob_dec(ob, (uint32_t)uroce_aeth_credits(v));
		}
		break;
	case UROCE_AETH_RNR_NAK:
		ob_str(ob, " RNR NAK ");
		ob_str(ob, dump_rnr_text(v, buf, sizeof(buf)));
		break;
	case UROCE_AETH_NAK:
		nak = uroce_nak_name(v);
		ob_str(ob, " NAK ");
		ob_str(ob, nak ? nak : "reserved code");
		if (!nak) {
			ob_char(ob, ' ');
			ob_dec(ob, v);
		}
		break;
	default:
		ob_str(ob, " AETH reserved syndrome 0x");
		ob_hex(ob, syn, 2);
		break;
	}
	ob_str(ob, " msn ");
	ob_dec(ob, d->pkt.ext.aeth.msn);
}

static void atomicacketh(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " orig ");
	ob_dec(ob, d->pkt.ext.atomicacketh.orig);
}

static void immdt(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " imm 0x");
	ob_hex(ob, d->pkt.ext.immdt, 8);
}

static void ieth(struct outbuf *ob, const struct dump_pkt *d)
{
	ob_str(ob, " invalidate rkey 0x");
	ob_hex(ob, d->pkt.ext.ieth, 8);
}

static void (*const ext_printers[UROCE_EHI_COUNT])(struct outbuf *, const struct dump_pkt *) = {
	[UROCE_EHI_RDETH] = rdeth,
	[UROCE_EHI_DETH] = deth,
	[UROCE_EHI_XRCETH] = xrceth,
	[UROCE_EHI_FETH] = feth,
	[UROCE_EHI_RETH] = reth,
	[UROCE_EHI_ATOMICETH] = atomiceth,
	[UROCE_EHI_AETH] = aeth,
	[UROCE_EHI_ATOMICACKETH] = atomicacketh,
	[UROCE_EHI_IMMDT] = immdt,
	[UROCE_EHI_IETH] = ieth,
	/* the CNP's reserved bytes say nothing */
};

/* " name" when the name is known, else " what 0x" and the value in `width` hex digits. */
static void name_or_hex(struct outbuf *ob, const char *name, const char *what, unsigned v,
			unsigned width)
{
	ob_char(ob, ' ');
	if (name) {
		ob_str(ob, name);
		return;
	}
	ob_str(ob, what);
	ob_str(ob, " 0x");
	ob_hex(ob, v, width);
}

/* "MAD SubnAdm GetResp PathRecord", "CM REQ (ConnectRequest)". */
static void mgmt(struct outbuf *ob, const struct dump_pkt *d)
{
	const struct uroce_mad_hdr *h = &d->mgmt.hdr;
	uint8_t method = uroce_mad_method_byte(h);

	if (d->mgmt.present & UROCE_MGMT_CM) {
		ob_str(ob, " | CM ");
		ob_str(ob, uroce_cm_msg_name(h->attr_id));
		ob_str(ob, " (");
		ob_str(ob, uroce_cm_attr_name(h->attr_id));
		ob_char(ob, ')');
		return;
	}
	ob_str(ob, " | MAD");
	name_or_hex(ob, uroce_mad_class_name(h->mgmt_class), "class", h->mgmt_class, 2);
	name_or_hex(ob, uroce_mad_method_name(method), "method", method, 2);
	name_or_hex(ob, uroce_mad_attr_name(h->mgmt_class, h->attr_id), "attribute", h->attr_id, 4);
}

static void crc(struct outbuf *ob, const char *name, enum uroce_crc_status st, unsigned width,
		uint32_t want)
{
	if (st == UROCE_CRC_ABSENT)
		return;
	ob_char(ob, ' ');
	ob_str(ob, name);
	if (st == UROCE_CRC_BAD) {
		ob_str(ob, " BAD (want 0x");
		ob_hex(ob, want, width);
		ob_char(ob, ')');
	} else {
		ob_char(ob, ' ');
		ob_str(ob, uroce_crc_status_name(st));
	}
}

static void transport(struct outbuf *ob, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;

	if (!dump_opcode_put(ob, p->bth.opcode)) {
		ob_str(ob, " opcode 0x");
		ob_hex(ob, p->bth.opcode, 2);
	}
	ob_str(ob, " qp 0x");
	ob_hex(ob, p->bth.destqp, 6);
	ob_str(ob, " psn ");
	ob_dec(ob, p->bth.psn);
	if (p->bth.se)
		ob_str(ob, " se");
	if (p->bth.ackreq)
		ob_str(ob, " ackreq");
	if (p->bth.fecn)
		ob_str(ob, " fecn");
	if (p->bth.becn)
		ob_str(ob, " becn");
	if (!(p->layers & UROCE_L_EXT))
		return;
	for (unsigned i = 0; i < UROCE_EHI_COUNT; i++)
		if ((p->ext.present & (1u << i)) && ext_printers[i])
			ext_printers[i](ob, d);
	if (d->has_mgmt)
		mgmt(ob, d);
	if (d->has_ipoib) {
		ob_str(ob, " | IPoIB ");
		ob_str(ob, dump_ethertype_name(d->ipoib.ethertype));
	}
	if (p->op->flags & UROCE_OPF_PAYLOAD) {
		ob_str(ob, " len ");
		ob_dec(ob, p->payload_len);
	}
}

static bool ecn_ce(const struct uroce_pkt *p)
{
	if (p->layers & UROCE_L_IPV4)
		return (p->ip4.tos & 3) == 3;
	return (p->layers & UROCE_L_IPV6) && (p->ip6.tclass & 3) == 3;
}

void print_line(struct outbuf *ob, const struct dump_pkt *d, uint64_t t0_ns)
{
	const struct uroce_pkt *p = &d->pkt;
	uint64_t t = d->frame->ts_ns >= t0_ns ? d->frame->ts_ns - t0_ns : 0;

	ob_dec(ob, d->frame->number);
	ob_char(ob, ' ');
	ob_dec(ob, t / 1000000000u);
	ob_char(ob, '.');
	ob_dec_pad(ob, t % 1000000000u / 1000u, 6);
	ob_char(ob, ' ');
	addresses(ob, p);
	for (unsigned i = 0; i < p->eth.n_vlans && i < UROCE_ETH_MAX_VLANS; i++) {
		ob_str(ob, " vlan ");
		ob_dec(ob, p->eth.vlan[i].vid);
	}
	if (p->encap == UROCE_ENCAP_NONE)
		not_ib(ob, d);
	else {
		ob_char(ob, ' ');
		ob_str(ob, uroce_encap_name(p->encap));
	}
	if (ecn_ce(p))
		ob_str(ob, " ECN-CE");
	if (p->layers & UROCE_L_BTH)
		transport(ob, d);
	else if (p->layers & UROCE_L_RAW)
		not_ib(ob, d);
	crc(ob, "icrc", d->icrc_status, 8, dump_crc32_shown(d->icrc_computed));
	crc(ob, "vcrc", d->vcrc_status, 4, dump_crc16_shown(d->vcrc_computed));
	if (d->malformed) {
		ob_str(ob, " [malformed: ");
		ob_str(ob, uroce_strerror(d->err));
		ob_str(ob, ", in ");
		ob_str(ob, d->err_where ? d->err_where : "?");
		ob_char(ob, ']');
	}
	ob_char(ob, '\n');
}

/* SPDX-License-Identifier: MIT */
/* The default output: one line per frame, in the spirit of tcpdump. Every frame gets a line,
 * even when it is not InfiniBand, so that line N is frame N. */
#include <arpa/inet.h>
#include <inttypes.h>

#include "common/error.h"
#include "names.h"
#include "output.h"

static void addr(FILE *out, int af, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	fputs(inet_ntop(af, a, buf, sizeof(buf)) ? buf : "?", out);
}

/* "src > dst": IP addresses for RoCEv2 and plain IP, GIDs for RoCE v1, LIDs (and GIDs when a
 * GRH is present) for native InfiniBand, MAC addresses for other Ethernet frames. */
static void addresses(FILE *out, const struct uroce_pkt *p)
{
	if (p->layers & UROCE_L_IPV4) {
		addr(out, AF_INET, p->ip4.src);
		fputs(" > ", out);
		addr(out, AF_INET, p->ip4.dst);
	} else if (p->layers & UROCE_L_IPV6) {
		addr(out, AF_INET6, p->ip6.src);
		fputs(" > ", out);
		addr(out, AF_INET6, p->ip6.dst);
	} else if (p->layers & UROCE_L_LRH) {
		fprintf(out, "LID %u > LID %u", (unsigned)p->lrh.slid, (unsigned)p->lrh.dlid);
	} else if (p->layers & UROCE_L_ETH) {
		const uint8_t *s = p->eth.src, *t = p->eth.dst;
		fprintf(out, "%02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x", s[0],
			s[1], s[2], s[3], s[4], s[5], t[0], t[1], t[2], t[3], t[4], t[5]);
	}
	if (p->layers & UROCE_L_GRH) {
		fputs(p->layers & UROCE_L_LRH ? " GID " : "GID ", out);
		addr(out, AF_INET6, p->grh.sgid);
		fputs(" > ", out);
		addr(out, AF_INET6, p->grh.dgid);
	}
}

/* A frame that carries no InfiniBand transport: name what it is. */
static void not_ib(FILE *out, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	const char *name;

	if (d->frame->undecoded) {
		fprintf(out, " %s", d->frame->undecoded);
		return;
	}
	if (p->layers & UROCE_L_RAW) {
		name = dump_ethertype_name(p->raw_ethertype);
		fprintf(out, " raw, type 0x%04x%s%s", (unsigned)p->raw_ethertype, name ? " " : "",
			name ? name : "");
	} else if (p->layers & UROCE_L_UDP) {
		fprintf(out, " UDP %u > %u", (unsigned)p->udp.sport, (unsigned)p->udp.dport);
	} else if (p->layers & (UROCE_L_IPV4 | UROCE_L_IPV6)) {
		uint8_t proto = p->layers & UROCE_L_IPV4 ? p->ip4.proto : p->ip6.upper_proto;
		name = dump_ipproto_name(proto);
		fprintf(out, " %s proto %u%s%s%s", p->layers & UROCE_L_IPV4 ? "IPv4" : "IPv6",
			(unsigned)proto, name ? " (" : "", name ? name : "", name ? ")" : "");
	} else if (p->layers & UROCE_L_ETH) {
		name = dump_ethertype_name(p->eth.ethertype);
		if (name)
			fprintf(out, " %s", name);
		else
			fprintf(out, " ethertype 0x%04x", (unsigned)p->eth.ethertype);
	}
}

/* ---- extended headers, one printer each ---- */

static void rdeth(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " eecnxt %u", (unsigned)d->pkt.ext.rdeth.eecnxt);
}

static void deth(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " qkey 0x%08x srcqp 0x%06x", (unsigned)d->pkt.ext.deth.qkey,
		(unsigned)d->pkt.ext.deth.srcqp);
}

static void xrceth(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " xrcsrq 0x%06x", (unsigned)d->pkt.ext.xrceth.xrcsrq);
}

static void feth(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " sel %u plt %u", (unsigned)d->pkt.ext.feth.sel, (unsigned)d->pkt.ext.feth.plt);
}

static void reth(FILE *out, const struct dump_pkt *d)
{
	const struct uroce_reth *r = &d->pkt.ext.reth;

	fprintf(out, " va 0x%" PRIx64 " rkey 0x%08x dmalen %u", r->va, (unsigned)r->rkey,
		(unsigned)r->dmalen);
}

static void atomiceth(FILE *out, const struct dump_pkt *d)
{
	const struct uroce_atomiceth *a = &d->pkt.ext.atomiceth;

	fprintf(out, " va 0x%" PRIx64 " rkey 0x%08x", a->va, (unsigned)a->rkey);
	if ((d->pkt.bth.opcode & 0x1F) == (UROCE_OP_RC_FETCH_ADD & 0x1F))
		fprintf(out, " add %" PRIu64, a->swap);
	else
		fprintf(out, " swap %" PRIu64 " compare %" PRIu64, a->swap, a->cmp);
}

static void aeth(FILE *out, const struct dump_pkt *d)
{
	uint8_t syn = d->pkt.ext.aeth.syndrome, v = uroce_aeth_value(syn);
	char buf[32];
	const char *nak;

	switch (uroce_aeth_type(syn)) {
	case UROCE_AETH_ACK:
		fputs(" ACK", out);
		if (v != UROCE_AETH_CREDIT_INVALID)
			fprintf(out, " credits %d", (int)uroce_aeth_credits(v));
		break;
	case UROCE_AETH_RNR_NAK:
		fprintf(out, " RNR NAK %s", dump_rnr_text(v, buf, sizeof(buf)));
		break;
	case UROCE_AETH_NAK:
		nak = uroce_nak_name(v);
		fprintf(out, " NAK %s", nak ? nak : "reserved code");
		if (!nak)
			fprintf(out, " %u", (unsigned)v);
		break;
	default:
		fprintf(out, " AETH reserved syndrome 0x%02x", (unsigned)syn);
		break;
	}
	fprintf(out, " msn %u", (unsigned)d->pkt.ext.aeth.msn);
}

static void atomicacketh(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " orig %" PRIu64, d->pkt.ext.atomicacketh.orig);
}

static void immdt(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " imm 0x%08x", (unsigned)d->pkt.ext.immdt);
}

static void ieth(FILE *out, const struct dump_pkt *d)
{
	fprintf(out, " invalidate rkey 0x%08x", (unsigned)d->pkt.ext.ieth);
}

static void (*const ext_printers[UROCE_EHI_COUNT])(FILE *, const struct dump_pkt *) = {
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

/* "MAD SubnAdm GetResp PathRecord", "CM REQ (ConnectRequest)". */
static void mgmt(FILE *out, const struct dump_pkt *d)
{
	const struct uroce_mad_hdr *h = &d->mgmt.hdr;
	uint8_t method = uroce_mad_method_byte(h);
	const char *cls = uroce_mad_class_name(h->mgmt_class);
	const char *mth = uroce_mad_method_name(method);
	const char *attr = uroce_mad_attr_name(h->mgmt_class, h->attr_id);

	if (d->mgmt.present & UROCE_MGMT_CM) {
		fprintf(out, " | CM %s (%s)", uroce_cm_msg_name(h->attr_id),
			uroce_cm_attr_name(h->attr_id));
		return;
	}
	fputs(" | MAD", out);
	if (cls)
		fprintf(out, " %s", cls);
	else
		fprintf(out, " class 0x%02x", (unsigned)h->mgmt_class);
	if (mth)
		fprintf(out, " %s", mth);
	else
		fprintf(out, " method 0x%02x", (unsigned)method);
	if (attr)
		fprintf(out, " %s", attr);
	else
		fprintf(out, " attribute 0x%04x", (unsigned)h->attr_id);
}

static void crc(FILE *out, const char *name, enum uroce_crc_status st, unsigned width,
		uint32_t want)
{
	if (st == UROCE_CRC_ABSENT)
		return;
	if (st == UROCE_CRC_BAD)
		fprintf(out, " %s BAD (want 0x%0*x)", name, (int)width, (unsigned)want);
	else
		fprintf(out, " %s %s", name, uroce_crc_status_name(st));
}

static void transport(FILE *out, const struct dump_pkt *d)
{
	const struct uroce_pkt *p = &d->pkt;
	char buf[64];
	const char *op = dump_opcode_text(p->bth.opcode, buf, sizeof(buf));

	if (op)
		fprintf(out, " %s", op);
	else
		fprintf(out, " opcode 0x%02x", (unsigned)p->bth.opcode);
	fprintf(out, " qp 0x%06x psn %u", (unsigned)p->bth.destqp, (unsigned)p->bth.psn);
	if (p->bth.se)
		fputs(" se", out);
	if (p->bth.ackreq)
		fputs(" ackreq", out);
	if (p->bth.fecn)
		fputs(" fecn", out);
	if (p->bth.becn)
		fputs(" becn", out);
	if (!(p->layers & UROCE_L_EXT))
		return;
	for (unsigned i = 0; i < UROCE_EHI_COUNT; i++)
		if ((p->ext.present & (1u << i)) && ext_printers[i])
			ext_printers[i](out, d);
	if (d->has_mgmt)
		mgmt(out, d);
	if (d->has_ipoib)
		fprintf(out, " | IPoIB %s", dump_ethertype_name(d->ipoib.ethertype));
	if (p->op->flags & UROCE_OPF_PAYLOAD)
		fprintf(out, " len %zu", p->payload_len);
}

static bool ecn_ce(const struct uroce_pkt *p)
{
	if (p->layers & UROCE_L_IPV4)
		return (p->ip4.tos & 3) == 3;
	return (p->layers & UROCE_L_IPV6) && (p->ip6.tclass & 3) == 3;
}

void print_line(FILE *out, const struct dump_pkt *d, uint64_t t0_ns)
{
	const struct uroce_pkt *p = &d->pkt;
	uint64_t t = d->frame->ts_ns >= t0_ns ? d->frame->ts_ns - t0_ns : 0;

	fprintf(out, "%" PRIu64 " %" PRIu64 ".%06" PRIu64 " ", d->frame->number, t / 1000000000u,
		t % 1000000000u / 1000u);
	addresses(out, p);
	for (unsigned i = 0; i < p->eth.n_vlans && i < UROCE_ETH_MAX_VLANS; i++)
		fprintf(out, " vlan %u", (unsigned)p->eth.vlan[i].vid);
	if (p->encap == UROCE_ENCAP_NONE)
		not_ib(out, d);
	else
		fprintf(out, " %s", uroce_encap_name(p->encap));
	if (ecn_ce(p))
		fputs(" ECN-CE", out);
	if (p->layers & UROCE_L_BTH)
		transport(out, d);
	else if (p->layers & UROCE_L_RAW)
		not_ib(out, d);
	crc(out, "icrc", d->icrc_status, 8, dump_crc32_shown(d->icrc_computed));
	crc(out, "vcrc", d->vcrc_status, 4, dump_crc16_shown(d->vcrc_computed));
	if (d->malformed)
		fprintf(out, " [malformed: %s, in %s]", uroce_strerror(d->err),
			d->err_where ? d->err_where : "?");
	fputc('\n', out);
}

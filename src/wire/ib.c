/* SPDX-License-Identifier: MIT */
#include "ib.h"

#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "common/error.h"

ssize_t uroce_lrh_decode(struct uroce_lrh *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_LRH_LEN)
		return UROCE_ETRUNC;
	out->vl = p[0] >> 4;
	out->lver = p[0] & 0x0F;
	out->sl = p[1] >> 4;
	out->rsv2 = (p[1] >> 2) & 3;
	out->lnh = p[1] & 3;
	out->dlid = get_be16(p + 2);
	out->rsv5 = p[4] >> 3;
	out->pktlen = get_be16(p + 4) & 0x7FF;
	out->slid = get_be16(p + 6);
	return UROCE_LRH_LEN;
}

ssize_t uroce_lrh_encode(const struct uroce_lrh *in, uint8_t *p, size_t len)
{
	if (len < UROCE_LRH_LEN)
		return UROCE_ENOSPACE;
	p[0] = (uint8_t)(in->vl << 4 | (in->lver & 0x0F));
	p[1] = (uint8_t)(in->sl << 4 | (in->rsv2 & 3) << 2 | (in->lnh & 3));
	put_be16(p + 2, in->dlid);
	put_be16(p + 4, (uint16_t)((in->rsv5 & 0x1F) << 11 | (in->pktlen & 0x7FF)));
	put_be16(p + 6, in->slid);
	return UROCE_LRH_LEN;
}

ssize_t uroce_grh_decode(struct uroce_grh *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_GRH_LEN)
		return UROCE_ETRUNC;
	uint32_t w = get_be32(p);
	out->ipver = (uint8_t)(w >> 28);
	out->tclass = (uint8_t)(w >> 20);
	out->flowlabel = w & 0xFFFFF;
	out->paylen = get_be16(p + 4);
	out->nxthdr = p[6];
	out->hoplmt = p[7];
	memcpy(out->sgid, p + 8, 16);
	memcpy(out->dgid, p + 24, 16);
	return UROCE_GRH_LEN;
}

ssize_t uroce_grh_encode(const struct uroce_grh *in, uint8_t *p, size_t len)
{
	if (len < UROCE_GRH_LEN)
		return UROCE_ENOSPACE;
	put_be32(p, (uint32_t)(in->ipver & 0x0F) << 28 | (uint32_t)in->tclass << 20 |
			    (in->flowlabel & 0xFFFFF));
	put_be16(p + 4, in->paylen);
	p[6] = in->nxthdr;
	p[7] = in->hoplmt;
	memcpy(p + 8, in->sgid, 16);
	memcpy(p + 24, in->dgid, 16);
	return UROCE_GRH_LEN;
}

ssize_t uroce_bth_decode(struct uroce_bth *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_BTH_LEN)
		return UROCE_ETRUNC;
	out->opcode = p[0];
	out->se = p[1] >> 7;
	out->m = (p[1] >> 6) & 1;
	out->padcnt = (p[1] >> 4) & 3;
	out->tver = p[1] & 0x0F;
	out->pkey = get_be16(p + 2);
	out->fecn = p[4] >> 7;
	out->becn = (p[4] >> 6) & 1;
	out->rsv6 = p[4] & 0x3F;
	out->destqp = get_be24(p + 5);
	out->ackreq = p[8] >> 7;
	out->rsv7 = p[8] & 0x7F;
	out->psn = get_be24(p + 9);
	return UROCE_BTH_LEN;
}

ssize_t uroce_bth_encode(const struct uroce_bth *in, uint8_t *p, size_t len)
{
	if (len < UROCE_BTH_LEN)
		return UROCE_ENOSPACE;
	p[0] = in->opcode;
	p[1] = (uint8_t)(in->se << 7 | in->m << 6 | (in->padcnt & 3) << 4 | (in->tver & 0x0F));
	put_be16(p + 2, in->pkey);
	p[4] = (uint8_t)(in->fecn << 7 | in->becn << 6 | (in->rsv6 & 0x3F));
	put_be24(p + 5, in->destqp);
	p[8] = (uint8_t)(in->ackreq << 7 | (in->rsv7 & 0x7F));
	put_be24(p + 9, in->psn);
	return UROCE_BTH_LEN;
}

/* One decode and one encode function per extended header, indexed like the X-macro list, so
 * that walking an opcode's mask is a loop over a table. Each receives exactly
 * uroce_exthdr_size[i] bytes. */
typedef void (*ext_decode_fn)(struct uroce_ext *e, const uint8_t *p);
typedef void (*ext_encode_fn)(const struct uroce_ext *e, uint8_t *p);

static void rdeth_dec(struct uroce_ext *e, const uint8_t *p)
{
	e->rdeth.rsv = p[0];
	e->rdeth.eecnxt = get_be24(p + 1);
}
static void rdeth_enc(const struct uroce_ext *e, uint8_t *p)
{
	p[0] = e->rdeth.rsv;
	put_be24(p + 1, e->rdeth.eecnxt);
}
static void deth_dec(struct uroce_ext *e, const uint8_t *p)
{
	e->deth.qkey = get_be32(p);
	e->deth.rsv = p[4];
	e->deth.srcqp = get_be24(p + 5);
}
static void deth_enc(const struct uroce_ext *e, uint8_t *p)
{
	put_be32(p, e->deth.qkey);
	p[4] = e->deth.rsv;
	put_be24(p + 5, e->deth.srcqp);
}
static void xrceth_dec(struct uroce_ext *e, const uint8_t *p)
{
	e->xrceth.rsv = p[0];
	e->xrceth.xrcsrq = get_be24(p + 1);
}
static void xrceth_enc(const struct uroce_ext *e, uint8_t *p)
{
	p[0] = e->xrceth.rsv;
	put_be24(p + 1, e->xrceth.xrcsrq);
}
static void feth_dec(struct uroce_ext *e, const uint8_t *p)
{
	uint32_t w = get_be32(p);
	e->feth.rsv = w >> 6;
	e->feth.sel = (w >> 4) & 3;
	e->feth.plt = w & 0x0F;
}
static void feth_enc(const struct uroce_ext *e, uint8_t *p)
{
	put_be32(p, (e->feth.rsv & 0x3FFFFFF) << 6 | (uint32_t)(e->feth.sel & 3) << 4 |
			    (e->feth.plt & 0x0F));
}
static void reth_dec(struct uroce_ext *e, const uint8_t *p)
{
	e->reth.va = get_be64(p);
	e->reth.rkey = get_be32(p + 8);
	e->reth.dmalen = get_be32(p + 12);
}
static void reth_enc(const struct uroce_ext *e, uint8_t *p)
{
	put_be64(p, e->reth.va);
	put_be32(p + 8, e->reth.rkey);
	put_be32(p + 12, e->reth.dmalen);
}
static void atomiceth_dec(struct uroce_ext *e, const uint8_t *p)
{
	e->atomiceth.va = get_be64(p);
	e->atomiceth.rkey = get_be32(p + 8);
	e->atomiceth.swap = get_be64(p + 12);
	e->atomiceth.cmp = get_be64(p + 20);
}
static void atomiceth_enc(const struct uroce_ext *e, uint8_t *p)
{
	put_be64(p, e->atomiceth.va);
	put_be32(p + 8, e->atomiceth.rkey);
	put_be64(p + 12, e->atomiceth.swap);
	put_be64(p + 20, e->atomiceth.cmp);
}
static void aeth_dec(struct uroce_ext *e, const uint8_t *p)
{
	e->aeth.syndrome = p[0];
	e->aeth.msn = get_be24(p + 1);
}
static void aeth_enc(const struct uroce_ext *e, uint8_t *p)
{
	p[0] = e->aeth.syndrome;
	put_be24(p + 1, e->aeth.msn);
}
static void atomicacketh_dec(struct uroce_ext *e, const uint8_t *p) { e->atomicacketh.orig = get_be64(p); }
static void atomicacketh_enc(const struct uroce_ext *e, uint8_t *p) { put_be64(p, e->atomicacketh.orig); }
static void immdt_dec(struct uroce_ext *e, const uint8_t *p) { e->immdt = get_be32(p); }
static void immdt_enc(const struct uroce_ext *e, uint8_t *p) { put_be32(p, e->immdt); }
static void ieth_dec(struct uroce_ext *e, const uint8_t *p) { e->ieth = get_be32(p); }
static void ieth_enc(const struct uroce_ext *e, uint8_t *p) { put_be32(p, e->ieth); }
static void cnprsv_dec(struct uroce_ext *e, const uint8_t *p) { memcpy(e->cnp_rsv, p, UROCE_CNP_RSV_LEN); }
static void cnprsv_enc(const struct uroce_ext *e, uint8_t *p) { memcpy(p, e->cnp_rsv, UROCE_CNP_RSV_LEN); }

static const struct {
	ext_decode_fn dec;
	ext_encode_fn enc;
} ext_codec[UROCE_EHI_COUNT] = {
	[UROCE_EHI_RDETH] = {rdeth_dec, rdeth_enc},
	[UROCE_EHI_DETH] = {deth_dec, deth_enc},
	[UROCE_EHI_XRCETH] = {xrceth_dec, xrceth_enc},
	[UROCE_EHI_FETH] = {feth_dec, feth_enc},
	[UROCE_EHI_RETH] = {reth_dec, reth_enc},
	[UROCE_EHI_ATOMICETH] = {atomiceth_dec, atomiceth_enc},
	[UROCE_EHI_AETH] = {aeth_dec, aeth_enc},
	[UROCE_EHI_ATOMICACKETH] = {atomicacketh_dec, atomicacketh_enc},
	[UROCE_EHI_IMMDT] = {immdt_dec, immdt_enc},
	[UROCE_EHI_IETH] = {ieth_dec, ieth_enc},
	[UROCE_EHI_CNPRSV] = {cnprsv_dec, cnprsv_enc},
};

ssize_t uroce_ext_decode(struct uroce_ext *out, uint16_t headers, const uint8_t *p, size_t len)
{
	size_t off = 0;

	out->present = 0;
	for (unsigned i = 0; i < UROCE_EHI_COUNT; i++) {
		if (!(headers & (1u << i)))
			continue;
		if (len - off < uroce_exthdr_size[i])
			return UROCE_ETRUNC;
		ext_codec[i].dec(out, p + off);
		off += uroce_exthdr_size[i];
		out->present |= (uint16_t)(1u << i);
	}
	return (ssize_t)off;
}

ssize_t uroce_ext_encode(const struct uroce_ext *in, uint8_t *p, size_t len)
{
	size_t need = uroce_exthdr_len(in->present), off = 0;

	if (len < need)
		return UROCE_ENOSPACE;
	for (unsigned i = 0; i < UROCE_EHI_COUNT; i++) {
		if (!(in->present & (1u << i)))
			continue;
		ext_codec[i].enc(in, p + off);
		off += uroce_exthdr_size[i];
	}
	return (ssize_t)off;
}

/* IBA Vol. 1 9.7.5.2.8, Table 45 "Encoding for RNR NAK Timer Field", in microseconds. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
	480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
	20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t uroce_rnr_timer_us(uint8_t timer) { return rnr_timer_us[timer & 0x1F]; }

/* IBA Vol. 1 9.7.7.2.5, Table 46 "End-to-End Flow Control Credit Encoding". */
static const uint16_t credit_count[31] = {
	0,   1,   2,   3,    4,    6,    8,    12,   16,    24,    32,
	48,  64,  96,  128,  192,  256,  384,  512,  768,   1024,  1536,
	2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

int32_t uroce_aeth_credits(uint8_t code)
{
	code &= 0x1F;
	return code == UROCE_AETH_CREDIT_INVALID ? -1 : credit_count[code];
}

const char *uroce_nak_name(uint8_t code)
{
	static const char *const names[] = {
#define NAK_NAME(id, v, name) [v] = name,
		UROCE_NAK_MAP(NAK_NAME)
#undef NAK_NAME
	};
	return code < sizeof(names) / sizeof(names[0]) ? names[code] : NULL;
}

const char *uroce_aeth_describe(uint8_t syndrome, char *buf, size_t len)
{
	uint8_t v = uroce_aeth_value(syndrome);
	const char *nak;
	uint32_t us;

	switch (uroce_aeth_type(syndrome)) {
	case UROCE_AETH_ACK:
		if (v == UROCE_AETH_CREDIT_INVALID)
			snprintf(buf, len, "ACK (no credit information)");
		else
			snprintf(buf, len, "ACK (credits %d)", (int)uroce_aeth_credits(v));
		break;
	case UROCE_AETH_RNR_NAK:
		us = uroce_rnr_timer_us(v);
		snprintf(buf, len, "RNR NAK (timer %u: %u.%02u ms)", (unsigned)v, (unsigned)(us / 1000),
			 (unsigned)(us % 1000 / 10));
		break;
	case UROCE_AETH_NAK:
		nak = uroce_nak_name(v);
		if (nak)
			snprintf(buf, len, "NAK: %s", nak);
		else
			snprintf(buf, len, "NAK: reserved code %u", (unsigned)v);
		break;
	default:
		snprintf(buf, len, "reserved syndrome 0x%02x", (unsigned)syndrome);
		break;
	}
	return buf;
}

/* SPDX-License-Identifier: MIT */
#include "erf.h"

#include <string.h>

#include "bytes.h"
#include "common/error.h"

#define NS_PER_S 1000000000ull

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p + 4) << 32 | get_le32(p);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

uint64_t uroce_erf_ts_to_ns(uint64_t ts)
{
	/* frac * 1e9 < 2^62: no overflow; a fraction that rounds up to 1e9 carries into the
	 * seconds by the addition. */
	uint64_t frac = ts & 0xFFFFFFFFu;
	return (ts >> 32) * NS_PER_S + ((frac * NS_PER_S + (1ull << 31)) >> 32);
}

uint64_t uroce_erf_ts_from_ns(uint64_t ns)
{
	uint64_t sec = ns / NS_PER_S, rem = ns % NS_PER_S;
	/* rem < 1e9, so the rounded fraction stays below 2^32 (at most 0xFFFFFFFC). */
	uint64_t frac = ((rem << 32) + NS_PER_S / 2) / NS_PER_S;
	return (sec << 32) | frac;
}

/* The shared body: end is how far the record may be read, min(len, rlen) (checked by the
 * callers). Distinguishes "the record says it is longer than rlen" (BADLEN) from "the buffer
 * stops first" (TRUNC). */
static int erf_parse(struct uroce_erf *out, const uint8_t *p, size_t len, size_t end)
{
	size_t off = UROCE_ERF_HDR_LEN;
	bool more = out->ext;

	out->n_ext = 0;
	while (more) {
		if (off + UROCE_ERF_EXT_LEN > out->rlen)
			return UROCE_EBADLEN;
		if (off + UROCE_ERF_EXT_LEN > end)
			return UROCE_ETRUNC;
		more = (p[off] & 0x80) != 0;
		off += UROCE_ERF_EXT_LEN;
		out->n_ext++;
	}

	switch (out->type) {
	case UROCE_ERF_TYPE_INFINIBAND:
		out->link = UROCE_ERF_LINK_IB;
		break;
	case UROCE_ERF_TYPE_ETH:
		out->link = UROCE_ERF_LINK_ETH;
		if (off + UROCE_ERF_ETH_PAD > out->rlen)
			return UROCE_EBADLEN;
		if (off + UROCE_ERF_ETH_PAD > end)
			return UROCE_ETRUNC;
		off += UROCE_ERF_ETH_PAD;
		break;
	default:
		out->link = UROCE_ERF_LINK_UNSUPPORTED;
		break;
	}

	out->payload_off = off;
	out->payload_len = end - off;
	if (out->link != UROCE_ERF_LINK_UNSUPPORTED && out->payload_len > out->wlen)
		out->payload_len = out->wlen; /* the rest is record padding */
	out->snapped = len < out->rlen;
	return 0;
}

/* The fixed 16 bytes; the caller checked len >= 16. */
static void erf_fixed(struct uroce_erf *out, const uint8_t *p)
{
	out->ts = get_le64(p);
	out->ts_ns = uroce_erf_ts_to_ns(out->ts);
	out->type = p[8] & 0x7F;
	out->ext = (p[8] & UROCE_ERF_TYPE_EXT) != 0;
	out->flags = p[9];
	out->rlen = get_be16(p + 10);
	out->lctr = get_be16(p + 12);
	out->wlen = get_be16(p + 14);
}

/* The strict decoder needs the whole record; the snapped one only the headers, the record
 * then ending at min(len, rlen). */
static ssize_t erf_decode(struct uroce_erf *out, const uint8_t *p, size_t len, bool snapped)
{
	if (!out || !p)
		return UROCE_EINVAL;
	if (len < UROCE_ERF_HDR_LEN)
		return UROCE_ETRUNC;
	erf_fixed(out, p);
	if (out->rlen < UROCE_ERF_HDR_LEN)
		return UROCE_EBADLEN;
	if (!snapped && len < out->rlen)
		return UROCE_ETRUNC;
	size_t end = len < out->rlen ? len : out->rlen;
	int err = erf_parse(out, p, len, end);
	return err < 0 ? err : (ssize_t)end;
}

ssize_t uroce_erf_decode(struct uroce_erf *out, const uint8_t *p, size_t len)
{
	return erf_decode(out, p, len, false);
}

ssize_t uroce_erf_decode_snap(struct uroce_erf *out, const uint8_t *p, size_t len)
{
	return erf_decode(out, p, len, true);
}

ssize_t uroce_erf_encode(const struct uroce_erf *in, const uint8_t *pkt, size_t pkt_len,
			 uint8_t *p, size_t len)
{
	size_t pad;

	if (!in || !p || (!pkt && pkt_len))
		return UROCE_EINVAL;
	if (in->type == UROCE_ERF_TYPE_INFINIBAND)
		pad = 0;
	else if (in->type == UROCE_ERF_TYPE_ETH)
		pad = UROCE_ERF_ETH_PAD;
	else
		return UROCE_EINVAL;
	if (in->ext || in->n_ext || in->wlen < pkt_len || pkt_len > UINT16_MAX)
		return UROCE_EINVAL;
	size_t used = UROCE_ERF_HDR_LEN + pad + pkt_len;
	size_t rlen = (used + UROCE_ERF_ALIGN - 1) & ~(size_t)(UROCE_ERF_ALIGN - 1);
	if (rlen > UINT16_MAX)
		return UROCE_EINVAL;
	if (len < rlen)
		return UROCE_ENOSPACE;

	put_le64(p, in->ts);
	p[8] = in->type;
	p[9] = in->flags;
	put_be16(p + 10, (uint16_t)rlen);
	put_be16(p + 12, in->lctr);
	put_be16(p + 14, in->wlen);
	memset(p + UROCE_ERF_HDR_LEN, 0, pad);
	if (pkt_len)
		memcpy(p + UROCE_ERF_HDR_LEN + pad, pkt, pkt_len);
	memset(p + used, 0, rlen - used);
	return (ssize_t)rlen;
}

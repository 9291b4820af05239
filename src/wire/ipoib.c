/* SPDX-License-Identifier: MIT */
#include "ipoib.h"

#include <string.h>

#include "bytes.h"
#include "common/error.h"

ssize_t uroce_ipoib_hwaddr_decode(struct uroce_ipoib_hwaddr *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_IPOIB_HWADDR_LEN)
		return UROCE_ETRUNC;
	out->flags = p[0];
	out->qpn = get_be24(p + 1);
	memcpy(out->gid, p + 4, 16);
	return UROCE_IPOIB_HWADDR_LEN;
}

ssize_t uroce_ipoib_hwaddr_encode(const struct uroce_ipoib_hwaddr *in, uint8_t *p, size_t len)
{
	if (len < UROCE_IPOIB_HWADDR_LEN)
		return UROCE_ENOSPACE;
	p[0] = in->flags;
	put_be24(p + 1, in->qpn);
	memcpy(p + 4, in->gid, 16);
	return UROCE_IPOIB_HWADDR_LEN;
}

static size_t arp_len(uint8_t plen)
{
	return UROCE_IPOIB_ARP_FIXED_LEN + 2 * (UROCE_IPOIB_HWADDR_LEN + (size_t)plen);
}

ssize_t uroce_ipoib_arp_decode(struct uroce_ipoib_arp *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_IPOIB_ARP_FIXED_LEN)
		return UROCE_ETRUNC;
	out->htype = get_be16(p);
	out->ptype = get_be16(p + 2);
	out->hlen = p[4];
	out->plen = p[5];
	out->op = get_be16(p + 6);
	/* The hardware address length is fixed by RFC 4391; anything else is not an IB ARP. */
	if (out->hlen != UROCE_IPOIB_HWADDR_LEN || out->plen > UROCE_IPOIB_ARP_MAX_PLEN)
		return UROCE_EFORMAT;
	size_t need = arp_len(out->plen);
	if (len < need)
		return UROCE_ETRUNC;
	const uint8_t *q = p + UROCE_IPOIB_ARP_FIXED_LEN;
	uroce_ipoib_hwaddr_decode(&out->sha, q, UROCE_IPOIB_HWADDR_LEN);
	q += UROCE_IPOIB_HWADDR_LEN;
	memset(out->spa, 0, sizeof(out->spa));
	memcpy(out->spa, q, out->plen);
	q += out->plen;
	uroce_ipoib_hwaddr_decode(&out->tha, q, UROCE_IPOIB_HWADDR_LEN);
	q += UROCE_IPOIB_HWADDR_LEN;
	memset(out->tpa, 0, sizeof(out->tpa));
	memcpy(out->tpa, q, out->plen);
	return (ssize_t)need;
}

ssize_t uroce_ipoib_arp_encode(const struct uroce_ipoib_arp *in, uint8_t *p, size_t len)
{
	if (in->hlen != UROCE_IPOIB_HWADDR_LEN || in->plen > UROCE_IPOIB_ARP_MAX_PLEN)
		return UROCE_EINVAL;
	size_t need = arp_len(in->plen);
	if (len < need)
		return UROCE_ENOSPACE;
	put_be16(p, in->htype);
	put_be16(p + 2, in->ptype);
	p[4] = in->hlen;
	p[5] = in->plen;
	put_be16(p + 6, in->op);
	uint8_t *q = p + UROCE_IPOIB_ARP_FIXED_LEN;
	uroce_ipoib_hwaddr_encode(&in->sha, q, UROCE_IPOIB_HWADDR_LEN);
	q += UROCE_IPOIB_HWADDR_LEN;
	memcpy(q, in->spa, in->plen);
	q += in->plen;
	uroce_ipoib_hwaddr_encode(&in->tha, q, UROCE_IPOIB_HWADDR_LEN);
	q += UROCE_IPOIB_HWADDR_LEN;
	memcpy(q, in->tpa, in->plen);
	return (ssize_t)need;
}

ssize_t uroce_ipoib_decode(struct uroce_ipoib *out, const uint8_t *p, size_t len)
{
	out->has_arp = false;
	if (len < UROCE_IPOIB_HDR_LEN)
		return UROCE_ETRUNC;
	out->ethertype = get_be16(p);
	out->rsv = get_be16(p + 2);
	out->payload_off = UROCE_IPOIB_HDR_LEN;
	out->payload_len = len - UROCE_IPOIB_HDR_LEN;
	if (out->ethertype != UROCE_ETHERTYPE_ARP && out->ethertype != UROCE_ETHERTYPE_RARP)
		return UROCE_IPOIB_HDR_LEN;
	ssize_t r = uroce_ipoib_arp_decode(&out->arp, p + UROCE_IPOIB_HDR_LEN, out->payload_len);
	if (r < 0)
		return r;
	out->has_arp = true;
	return UROCE_IPOIB_HDR_LEN + r;
}

ssize_t uroce_ipoib_encode(const struct uroce_ipoib *in, uint8_t *p, size_t len)
{
	if (len < UROCE_IPOIB_HDR_LEN)
		return UROCE_ENOSPACE;
	put_be16(p, in->ethertype);
	put_be16(p + 2, in->rsv);
	if (!in->has_arp)
		return UROCE_IPOIB_HDR_LEN;
	ssize_t r = uroce_ipoib_arp_encode(&in->arp, p + UROCE_IPOIB_HDR_LEN, len - UROCE_IPOIB_HDR_LEN);
	return r < 0 ? r : UROCE_IPOIB_HDR_LEN + r;
}

bool uroce_ipoib_probe(const uint8_t *p, size_t len)
{
	if (len < UROCE_IPOIB_HDR_LEN || get_be16(p + 2) != 0)
		return false;
	switch (get_be16(p)) {
	case UROCE_ETHERTYPE_IPV4:
	case UROCE_ETHERTYPE_ARP:
	case UROCE_ETHERTYPE_RARP:
	case UROCE_ETHERTYPE_IPV6:
		return true;
	default:
		return false;
	}
}

const char *uroce_arp_op_name(uint16_t op)
{
	switch (op) {
#define ARP_OP_CASE(id, v, n) case v: return n;
	UROCE_ARP_OP_MAP(ARP_OP_CASE)
#undef ARP_OP_CASE
	default:
		return NULL;
	}
}

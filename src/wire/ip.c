/* SPDX-License-Identifier: MIT */
#include "ip.h"

#include <string.h>

#include "bytes.h"
#include "common/error.h"

ssize_t uroce_ipv4_decode(struct uroce_ipv4 *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_IPV4_HLEN)
		return UROCE_ETRUNC;
	out->version = p[0] >> 4;
	out->ihl = p[0] & 0x0F;
	if (out->version != 4)
		return UROCE_EBADVER;
	size_t hlen = (size_t)out->ihl * 4;
	if (hlen < UROCE_IPV4_HLEN)
		return UROCE_EBADLEN;
	if (len < hlen)
		return UROCE_ETRUNC;
	out->tos = p[1];
	out->total_len = get_be16(p + 2);
	out->id = get_be16(p + 4);
	out->flags = p[6] >> 5;
	out->frag_off = get_be16(p + 6) & 0x1FFF;
	out->ttl = p[8];
	out->proto = p[9];
	out->csum = get_be16(p + 10);
	memcpy(out->src, p + 12, 4);
	memcpy(out->dst, p + 16, 4);
	out->has_options = hlen > UROCE_IPV4_HLEN;
	return (ssize_t)hlen;
}

ssize_t uroce_ipv4_encode(const struct uroce_ipv4 *in, uint8_t *p, size_t len)
{
	if (len < UROCE_IPV4_HLEN)
		return UROCE_ENOSPACE;
	p[0] = 4 << 4 | 5;
	p[1] = in->tos;
	put_be16(p + 2, in->total_len);
	put_be16(p + 4, in->id);
	put_be16(p + 6, (uint16_t)((in->flags & 7) << 13 | (in->frag_off & 0x1FFF)));
	p[8] = in->ttl;
	p[9] = in->proto;
	put_be16(p + 10, in->csum);
	memcpy(p + 12, in->src, 4);
	memcpy(p + 16, in->dst, 4);
	return UROCE_IPV4_HLEN;
}

uint16_t uroce_ipv4_checksum(const uint8_t *hdr, size_t hlen)
{
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < hlen; i += 2)
		sum += get_be16(hdr + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* IPv6 extension headers that share the generic "next header, length in 8-byte units"
 * layout (RFC 8200 section 4; the fragment header has a fixed 8-byte size). */
static bool ipv6_is_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 60 || nh == 135 || nh == 139 || nh == 140;
}

ssize_t uroce_ipv6_decode(struct uroce_ipv6 *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_IPV6_HLEN)
		return UROCE_ETRUNC;
	uint32_t w = get_be32(p);
	out->version = (uint8_t)(w >> 28);
	if (out->version != 6)
		return UROCE_EBADVER;
	out->tclass = (uint8_t)(w >> 20);
	out->flowlabel = w & 0xFFFFF;
	out->payload_len = get_be16(p + 4);
	out->nxthdr = p[6];
	out->hoplimit = p[7];
	memcpy(out->src, p + 8, 16);
	memcpy(out->dst, p + 24, 16);

	size_t off = UROCE_IPV6_HLEN;
	uint8_t nh = out->nxthdr;
	while (ipv6_is_ext(nh)) {
		if (len < off + 8)
			return UROCE_ETRUNC;
		size_t elen = nh == 44 ? 8 : ((size_t)p[off + 1] + 1) * 8;
		if (len < off + elen)
			return UROCE_ETRUNC;
		nh = p[off];
		off += elen;
	}
	out->upper_proto = nh;
	out->ext_len = (uint32_t)(off - UROCE_IPV6_HLEN);
	out->has_ext = off > UROCE_IPV6_HLEN;
	return (ssize_t)off;
}

ssize_t uroce_ipv6_encode(const struct uroce_ipv6 *in, uint8_t *p, size_t len)
{
	if (len < UROCE_IPV6_HLEN)
		return UROCE_ENOSPACE;
	put_be32(p, 6u << 28 | (uint32_t)in->tclass << 20 | (in->flowlabel & 0xFFFFF));
	put_be16(p + 4, in->payload_len);
	p[6] = in->nxthdr;
	p[7] = in->hoplimit;
	memcpy(p + 8, in->src, 16);
	memcpy(p + 24, in->dst, 16);
	return UROCE_IPV6_HLEN;
}

ssize_t uroce_udp_decode(struct uroce_udp *out, const uint8_t *p, size_t len)
{
	if (len < UROCE_UDP_HLEN)
		return UROCE_ETRUNC;
	out->sport = get_be16(p);
	out->dport = get_be16(p + 2);
	out->len = get_be16(p + 4);
	out->csum = get_be16(p + 6);
	return UROCE_UDP_HLEN;
}

ssize_t uroce_udp_encode(const struct uroce_udp *in, uint8_t *p, size_t len)
{
	if (len < UROCE_UDP_HLEN)
		return UROCE_ENOSPACE;
	put_be16(p, in->sport);
	put_be16(p + 2, in->dport);
	put_be16(p + 4, in->len);
	put_be16(p + 6, in->csum);
	return UROCE_UDP_HLEN;
}

int uroce_udp_datagram_decode(struct uroce_udp_datagram *d, const uint8_t *p, size_t len)
{
	struct uroce_udp udp;

	memset(d, 0, sizeof(*d));
	if (!len)
		return UROCE_EINVAL;
	if (p[0] >> 4 == 4) {
		struct uroce_ipv4 ip;
		if (uroce_ipv4_decode(&ip, p, len) != UROCE_IPV4_HLEN ||
		    ip.proto != UROCE_IPPROTO_UDP || ip.flags & 1 || ip.frag_off ||
		    ip.total_len > len)
			return UROCE_EINVAL;
		memcpy(d->src, ip.src, 4);
		memcpy(d->dst, ip.dst, 4);
		d->tclass = ip.tos;
		d->ttl = ip.ttl;
		d->id = ip.id;
		d->csum_ok = !uroce_ipv4_checksum(p, UROCE_IPV4_HLEN);
		d->len = ip.total_len;
		d->hlen = UROCE_IPV4_HLEN;
	} else {
		struct uroce_ipv6 ip;
		if (uroce_ipv6_decode(&ip, p, len) != UROCE_IPV6_HLEN ||
		    ip.nxthdr != UROCE_IPPROTO_UDP || (size_t)ip.payload_len + UROCE_IPV6_HLEN > len)
			return UROCE_EINVAL;
		d->ipv6 = true;
		memcpy(d->src, ip.src, 16);
		memcpy(d->dst, ip.dst, 16);
		d->tclass = ip.tclass;
		d->ttl = ip.hoplimit;
		d->csum_ok = true;
		d->len = (size_t)ip.payload_len + UROCE_IPV6_HLEN;
		d->hlen = UROCE_IPV6_HLEN;
	}
	if (d->len < d->hlen || uroce_udp_decode(&udp, p + d->hlen, d->len - d->hlen) < 0 ||
	    udp.len != d->len - d->hlen)
		return UROCE_EINVAL;
	d->sport = udp.sport;
	d->dport = udp.dport;
	d->hlen += UROCE_UDP_HLEN;
	return 0;
}

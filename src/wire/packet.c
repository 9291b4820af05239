/* SPDX-License-Identifier: MIT */
#include "packet.h"

#include <string.h>

#include "bytes.h"
#include "common/error.h"
#include "crc.h"
#include "icrc.h"

#define GRH_NXTHDR_IBA 0x1B /* IBA 8.3.1: an IBA transport header follows the GRH */

static int fail(struct uroce_pkt *pkt, uint32_t layer, int err)
{
	pkt->err = err;
	pkt->err_layer = layer;
	return err;
}

/* The transport part: BTH, extended headers, payload, pad, ICRC. `end` is where the ICRC
 * ends according to the enclosing length field (UDP length, GRH PayLen or LRH PktLen); it
 * may lie past the captured bytes when the capture was cut by its snap length. */
static int dissect_transport(struct uroce_pkt *pkt, size_t off, size_t end)
{
	size_t len = pkt->frame_len;
	const uint8_t *p = pkt->frame;
	ssize_t n;

	pkt->bth_off = off;
	if (end < off + UROCE_BTH_LEN + UROCE_ICRC_LEN)
		return fail(pkt, UROCE_L_BTH, UROCE_EBADLEN);
	n = uroce_bth_decode(&pkt->bth, p + off, len - off);
	if (n < 0)
		return fail(pkt, UROCE_L_BTH, (int)n);
	pkt->layers |= UROCE_L_BTH;
	pkt->op = uroce_opcode_info(pkt->bth.opcode);
	off += (size_t)n;
	if (!pkt->op->name)
		return fail(pkt, UROCE_L_BTH, UROCE_EBADOPCODE);

	size_t icrc_off = end - UROCE_ICRC_LEN;
	size_t avail = (icrc_off < len ? icrc_off : len) - off;
	n = uroce_ext_decode(&pkt->ext, pkt->op->headers, p + off, avail);
	if (n < 0)
		return fail(pkt, UROCE_L_EXT, icrc_off > len ? UROCE_ETRUNC : UROCE_EBADLEN);
	pkt->layers |= UROCE_L_EXT;
	off += (size_t)n;
	pkt->payload_off = off;
	if (icrc_off - off < pkt->bth.padcnt)
		return fail(pkt, UROCE_L_EXT, UROCE_EBADLEN);
	pkt->payload_len = icrc_off - off - pkt->bth.padcnt;
	pkt->icrc_off = icrc_off;
	if (end > len)
		return fail(pkt, UROCE_L_ICRC, UROCE_ETRUNC);
	pkt->icrc = get_le32(p + icrc_off);
	pkt->layers |= UROCE_L_ICRC;
	return 0;
}

static int dissect_udp(struct uroce_pkt *pkt, size_t off, size_t ip_end)
{
	ssize_t n = uroce_udp_decode(&pkt->udp, pkt->frame + off, pkt->frame_len - off);

	if (n < 0)
		return fail(pkt, UROCE_L_UDP, (int)n);
	pkt->layers |= UROCE_L_UDP;
	if (pkt->udp.dport != UROCE_ROCEV2_UDP_PORT)
		return 0;
	if (pkt->udp.len < UROCE_UDP_HLEN || off + pkt->udp.len > ip_end)
		return fail(pkt, UROCE_L_UDP, UROCE_EBADLEN);
	pkt->encap = UROCE_ENCAP_ROCEV2;
	pkt->ib_off = off + UROCE_UDP_HLEN;
	return dissect_transport(pkt, pkt->ib_off, off + pkt->udp.len);
}

static int dissect_ipv4(struct uroce_pkt *pkt, size_t off)
{
	ssize_t n = uroce_ipv4_decode(&pkt->ip4, pkt->frame + off, pkt->frame_len - off);

	if (n < 0)
		return fail(pkt, UROCE_L_IPV4, (int)n);
	pkt->layers |= UROCE_L_IPV4;
	pkt->l3_off = off;
	if (pkt->ip4.total_len < (size_t)n)
		return fail(pkt, UROCE_L_IPV4, UROCE_EBADLEN);
	/* Only a whole, unfragmented datagram carries a UDP header we can trust. */
	if (pkt->ip4.proto != UROCE_IPPROTO_UDP || pkt->ip4.frag_off || (pkt->ip4.flags & 1))
		return 0;
	return dissect_udp(pkt, off + (size_t)n, off + pkt->ip4.total_len);
}

static int dissect_ipv6(struct uroce_pkt *pkt, size_t off)
{
	ssize_t n = uroce_ipv6_decode(&pkt->ip6, pkt->frame + off, pkt->frame_len - off);

	if (n < 0)
		return fail(pkt, UROCE_L_IPV6, (int)n);
	pkt->layers |= UROCE_L_IPV6;
	pkt->l3_off = off;
	if (pkt->ip6.payload_len < pkt->ip6.ext_len)
		return fail(pkt, UROCE_L_IPV6, UROCE_EBADLEN);
	if (pkt->ip6.upper_proto != UROCE_IPPROTO_UDP)
		return 0;
	return dissect_udp(pkt, off + (size_t)n, off + UROCE_IPV6_HLEN + pkt->ip6.payload_len);
}

static int dissect_grh(struct uroce_pkt *pkt, size_t off)
{
	ssize_t n = uroce_grh_decode(&pkt->grh, pkt->frame + off, pkt->frame_len - off);

	if (n < 0)
		return fail(pkt, UROCE_L_GRH, (int)n);
	pkt->layers |= UROCE_L_GRH;
	if (pkt->grh.ipver != 6)
		return fail(pkt, UROCE_L_GRH, UROCE_EBADVER);
	if (pkt->grh.nxthdr != GRH_NXTHDR_IBA)
		return fail(pkt, UROCE_L_GRH, UROCE_ENOTIB);
	return 0;
}

static int dissect_rocev1(struct uroce_pkt *pkt, size_t off)
{
	int err;

	pkt->encap = UROCE_ENCAP_ROCEV1;
	pkt->l3_off = pkt->ib_off = off;
	if ((err = dissect_grh(pkt, off)) < 0)
		return err;
	/* GRH PayLen counts the bytes after the GRH up to and including the ICRC. */
	return dissect_transport(pkt, off + UROCE_GRH_LEN, off + UROCE_GRH_LEN + pkt->grh.paylen);
}

static int dissect_native(struct uroce_pkt *pkt)
{
	const uint8_t *p = pkt->frame;
	size_t len = pkt->frame_len;
	ssize_t n = uroce_lrh_decode(&pkt->lrh, p, len);
	int err;

	pkt->encap = UROCE_ENCAP_IB;
	if (n < 0)
		return fail(pkt, UROCE_L_LRH, (int)n);
	pkt->layers |= UROCE_L_LRH;
	/* PktLen x 4 = bytes from the LRH through the ICRC; the VCRC follows (IBA 7.7.8). */
	size_t end = (size_t)pkt->lrh.pktlen * 4;
	if (end < UROCE_LRH_LEN)
		return fail(pkt, UROCE_L_LRH, UROCE_EBADLEN);
	if (end + UROCE_VCRC_LEN <= len) {
		pkt->vcrc_off = end;
		pkt->vcrc = get_le16(p + end);
		pkt->layers |= UROCE_L_VCRC;
	}
	switch (pkt->lrh.lnh) {
	case UROCE_LNH_RAW:
		if (end < UROCE_LRH_LEN + 4 || len < UROCE_LRH_LEN + 4)
			return fail(pkt, UROCE_L_RAW, UROCE_ETRUNC);
		pkt->raw_ethertype = get_be16(p + UROCE_LRH_LEN + 2); /* RWH: reserved, EtherType */
		pkt->raw_off = UROCE_LRH_LEN + 4;
		pkt->layers |= UROCE_L_RAW;
		return 0;
	case UROCE_LNH_IP_NONIBA:
		pkt->raw_ethertype = 0x86DD;
		pkt->raw_off = UROCE_LRH_LEN;
		pkt->layers |= UROCE_L_RAW;
		return 0;
	case UROCE_LNH_IBA_GLOBAL:
		if ((err = dissect_grh(pkt, UROCE_LRH_LEN)) < 0)
			return err;
		return dissect_transport(pkt, UROCE_LRH_LEN + UROCE_GRH_LEN, end);
	default:
		return dissect_transport(pkt, UROCE_LRH_LEN, end);
	}
}

static int dissect_l3(struct uroce_pkt *pkt, uint16_t ethertype, size_t off)
{
	switch (ethertype) {
	case UROCE_ETHERTYPE_IPV4:
		return dissect_ipv4(pkt, off);
	case UROCE_ETHERTYPE_IPV6:
		return dissect_ipv6(pkt, off);
	case UROCE_ROCEV1_ETHERTYPE:
		return dissect_rocev1(pkt, off);
	default:
		return 0;
	}
}

int uroce_pkt_dissect(struct uroce_pkt *pkt, enum uroce_link link, const uint8_t *frame,
		      size_t len)
{
	ssize_t n;

	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = frame;
	pkt->frame_len = len;
	switch (link) {
	case UROCE_LINK_ETHERNET:
		n = uroce_eth_decode(&pkt->eth, frame, len);
		if (n < 0)
			return fail(pkt, UROCE_L_ETH, (int)n);
		pkt->layers |= UROCE_L_ETH | (pkt->eth.n_vlans ? UROCE_L_VLAN : 0);
		return dissect_l3(pkt, pkt->eth.ethertype, (size_t)n);
	case UROCE_LINK_IP:
		if (len < 1)
			return fail(pkt, UROCE_L_IPV4, UROCE_ETRUNC);
		return dissect_l3(pkt, frame[0] >> 4 == 6 ? UROCE_ETHERTYPE_IPV6 : UROCE_ETHERTYPE_IPV4, 0);
	case UROCE_LINK_IB:
		return dissect_native(pkt);
	}
	return fail(pkt, 0, UROCE_EINVAL);
}

/* Which ICRC rule applies, and the bytes before the BTH that it covers. */
static int icrc_kind(const struct uroce_pkt *pkt, enum uroce_icrc_kind *kind, size_t *start)
{
	switch (pkt->encap) {
	case UROCE_ENCAP_ROCEV2:
		*kind = pkt->layers & UROCE_L_IPV4 ? UROCE_ICRC_ROCEV2_IPV4 : UROCE_ICRC_ROCEV2_IPV6;
		*start = pkt->l3_off;
		return 0;
	case UROCE_ENCAP_ROCEV1:
		*kind = UROCE_ICRC_ROCEV1;
		*start = pkt->l3_off;
		return 0;
	case UROCE_ENCAP_IB:
		*kind = pkt->lrh.lnh == UROCE_LNH_IBA_GLOBAL ? UROCE_ICRC_IB_GLOBAL : UROCE_ICRC_IB_LOCAL;
		*start = 0;
		return 0;
	default:
		return UROCE_ENOTIB;
	}
}

enum uroce_crc_status uroce_pkt_icrc_check(const struct uroce_pkt *pkt, uint32_t *computed)
{
	enum uroce_icrc_kind kind;
	size_t start;
	uint32_t crc;

	if (!(pkt->layers & UROCE_L_BTH) || icrc_kind(pkt, &kind, &start) < 0)
		return UROCE_CRC_ABSENT;
	if (!(pkt->layers & UROCE_L_ICRC))
		return pkt->icrc_off ? UROCE_CRC_UNCHECKED : UROCE_CRC_ABSENT;
	if (uroce_icrc(kind, pkt->frame + start, pkt->bth_off - start, pkt->icrc_off - start, &crc) < 0)
		return UROCE_CRC_UNCHECKED;
	if (computed)
		*computed = crc;
	return crc == pkt->icrc ? UROCE_CRC_OK : UROCE_CRC_BAD;
}

enum uroce_crc_status uroce_pkt_vcrc_check(const struct uroce_pkt *pkt, uint16_t *computed)
{
	if (!(pkt->layers & UROCE_L_VCRC))
		return UROCE_CRC_ABSENT;
	uint16_t crc = uroce_vcrc16(pkt->frame, pkt->vcrc_off);
	if (computed)
		*computed = crc;
	return crc == pkt->vcrc ? UROCE_CRC_OK : UROCE_CRC_BAD;
}

const char *uroce_encap_name(enum uroce_encap encap)
{
	static const char *const names[] = {
		[UROCE_ENCAP_NONE] = "none",
		[UROCE_ENCAP_ROCEV2] = "RoCEv2",
		[UROCE_ENCAP_ROCEV1] = "RoCEv1",
		[UROCE_ENCAP_IB] = "InfiniBand",
	};
	return (unsigned)encap < sizeof(names) / sizeof(names[0]) ? names[encap] : "?";
}

const char *uroce_crc_status_name(enum uroce_crc_status st)
{
	static const char *const names[] = {
		[UROCE_CRC_ABSENT] = "absent",
		[UROCE_CRC_OK] = "ok",
		[UROCE_CRC_BAD] = "bad",
		[UROCE_CRC_UNCHECKED] = "unchecked",
	};
	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

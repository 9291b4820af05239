/* SPDX-License-Identifier: MIT */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/crc.h"

/* Mutations are made on a heap copy of exactly len bytes, so that ASan still sees a read one
 * byte past the frame. */
static uint8_t *dup_frame(const struct uroce_pkt *pkt)
{
	uint8_t *copy = malloc(pkt->frame_len ? pkt->frame_len : 1);

	FUZZ_CHECK(copy);
	if (pkt->frame_len)
		memcpy(copy, pkt->frame, pkt->frame_len);
	return copy;
}

static bool is_one_bit(uint32_t v) { return v && !(v & (v - 1)); }

/* Where the transport ends (the ICRC's last byte + 1) according to the enclosing length
 * field: UDP length, GRH PayLen or LRH PktLen. */
static size_t transport_end(const struct uroce_pkt *pkt)
{
	switch (pkt->encap) {
	case UROCE_ENCAP_ROCEV2:
		return pkt->ib_off - UROCE_UDP_HLEN + pkt->udp.len;
	case UROCE_ENCAP_ROCEV1:
		return pkt->ib_off + UROCE_GRH_LEN + pkt->grh.paylen;
	case UROCE_ENCAP_IB:
		return (size_t)pkt->lrh.pktlen * 4;
	default:
		return 0;
	}
}

int fuzz_dissect(struct uroce_pkt *pkt, enum uroce_link link, const uint8_t *frame, size_t len)
{
	int rc = uroce_pkt_dissect(pkt, link, frame, len);
	uint32_t l = pkt->layers;

	FUZZ_CHECK(rc == pkt->err);
	FUZZ_CHECK(rc == 0 || (rc > UROCE_ERRNO_FIRST_ && rc <= UROCE_EFORMAT));
	FUZZ_CHECK(rc == 0 ? pkt->err_layer == 0 : is_one_bit(pkt->err_layer));
	FUZZ_CHECK(pkt->frame == frame && pkt->frame_len == len);

	FUZZ_CHECK(!(l & UROCE_L_VLAN) || (l & UROCE_L_ETH));
	FUZZ_CHECK(!((l & UROCE_L_IPV4) && (l & UROCE_L_IPV6)));
	FUZZ_CHECK(!(l & UROCE_L_UDP) || (l & (UROCE_L_IPV4 | UROCE_L_IPV6)));
	switch (link) {
	case UROCE_LINK_ETHERNET:
		FUZZ_CHECK((l & UROCE_L_ETH) || rc == UROCE_ETRUNC || rc == UROCE_EBADLEN);
		FUZZ_CHECK(!(l & UROCE_L_LRH));
		break;
	case UROCE_LINK_IP:
		FUZZ_CHECK(!(l & (UROCE_L_ETH | UROCE_L_VLAN | UROCE_L_LRH)));
		break;
	case UROCE_LINK_IB:
		FUZZ_CHECK(pkt->encap == UROCE_ENCAP_IB);
		FUZZ_CHECK(!(l & (UROCE_L_ETH | UROCE_L_VLAN | UROCE_L_IPV4 | UROCE_L_IPV6 | UROCE_L_UDP)));
		break;
	}

	switch (pkt->encap) {
	case UROCE_ENCAP_NONE:
		FUZZ_CHECK(!(l & (UROCE_L_LRH | UROCE_L_GRH | UROCE_L_BTH | UROCE_L_EXT | UROCE_L_ICRC |
				  UROCE_L_VCRC | UROCE_L_RAW)));
		break;
	case UROCE_ENCAP_ROCEV2:
		FUZZ_CHECK((l & UROCE_L_UDP) && pkt->udp.dport == UROCE_ROCEV2_UDP_PORT);
		FUZZ_CHECK(pkt->ib_off == pkt->bth_off && pkt->ib_off > pkt->l3_off);
		FUZZ_CHECK(pkt->udp.len >= UROCE_UDP_HLEN);
		/* The UDP datagram lies inside the IP packet. */
		if (l & UROCE_L_IPV4)
			FUZZ_CHECK(transport_end(pkt) <= pkt->l3_off + pkt->ip4.total_len);
		else
			FUZZ_CHECK(transport_end(pkt) <=
				   pkt->l3_off + UROCE_IPV6_HLEN + pkt->ip6.payload_len);
		FUZZ_CHECK(!(l & (UROCE_L_LRH | UROCE_L_GRH | UROCE_L_VCRC | UROCE_L_RAW)));
		break;
	case UROCE_ENCAP_ROCEV1:
		FUZZ_CHECK(pkt->l3_off == pkt->ib_off);
		FUZZ_CHECK(!(l & (UROCE_L_IPV4 | UROCE_L_IPV6 | UROCE_L_UDP | UROCE_L_LRH |
				  UROCE_L_VCRC | UROCE_L_RAW)));
		if (l & UROCE_L_BTH)
			FUZZ_CHECK((l & UROCE_L_GRH) && pkt->bth_off == pkt->ib_off + UROCE_GRH_LEN);
		break;
	case UROCE_ENCAP_IB:
		FUZZ_CHECK(pkt->ib_off == 0);
		if (l & UROCE_L_BTH) {
			bool global = pkt->lrh.lnh == UROCE_LNH_IBA_GLOBAL;
			FUZZ_CHECK((l & UROCE_L_LRH) && pkt->lrh.lnh >= UROCE_LNH_IBA_LOCAL);
			FUZZ_CHECK(!global || (l & UROCE_L_GRH));
			FUZZ_CHECK(pkt->bth_off == UROCE_LRH_LEN + (global ? UROCE_GRH_LEN : 0));
		}
		break;
	}

	if (l & UROCE_L_BTH) {
		FUZZ_CHECK(pkt->bth_off + UROCE_BTH_LEN <= len);
		FUZZ_CHECK(pkt->op && pkt->op == uroce_opcode_info(pkt->bth.opcode));
		FUZZ_CHECK(pkt->op->name || rc == UROCE_EBADOPCODE);
		FUZZ_CHECK(pkt->bth.destqp <= 0xFFFFFF && pkt->bth.psn <= 0xFFFFFF);
		FUZZ_CHECK(pkt->bth.padcnt <= 3 && pkt->bth.tver <= 15);
	} else {
		FUZZ_CHECK(!pkt->op);
	}
	if (l & UROCE_L_EXT) {
		FUZZ_CHECK((l & UROCE_L_BTH) && pkt->op->name);
		FUZZ_CHECK(pkt->ext.present == pkt->op->headers);
		FUZZ_CHECK(pkt->payload_off ==
			   pkt->bth_off + UROCE_BTH_LEN + uroce_exthdr_len(pkt->op->headers));
		FUZZ_CHECK(pkt->payload_off <= len);
	}
	if (l & UROCE_L_ICRC) {
		FUZZ_CHECK(l & UROCE_L_EXT);
		FUZZ_CHECK(pkt->icrc_off + UROCE_ICRC_LEN <= len);
		FUZZ_CHECK(pkt->icrc_off + UROCE_ICRC_LEN == transport_end(pkt));
		FUZZ_CHECK(pkt->payload_off + pkt->payload_len + pkt->bth.padcnt == pkt->icrc_off);
		FUZZ_CHECK(pkt->icrc == get_le32(frame + pkt->icrc_off));
	}
	/* Dissected to its end: an IB packet is complete, ICRC included. */
	if (rc == 0 && (l & UROCE_L_BTH))
		FUZZ_CHECK((l & UROCE_L_ICRC) && pkt->payload_off + pkt->payload_len <= len);
	if (l & UROCE_L_VCRC) {
		FUZZ_CHECK(pkt->encap == UROCE_ENCAP_IB && (l & UROCE_L_LRH));
		FUZZ_CHECK(pkt->vcrc_off == (size_t)pkt->lrh.pktlen * 4);
		FUZZ_CHECK(pkt->vcrc_off + UROCE_VCRC_LEN <= len);
		FUZZ_CHECK(pkt->vcrc == get_le16(frame + pkt->vcrc_off));
	}
	if (l & UROCE_L_RAW) {
		FUZZ_CHECK(pkt->encap == UROCE_ENCAP_IB && !(l & (UROCE_L_BTH | UROCE_L_GRH)));
		FUZZ_CHECK(pkt->raw_off <= len);
	}
	if (l & UROCE_L_LRH)
		FUZZ_CHECK(pkt->encap == UROCE_ENCAP_IB);
	if (l & UROCE_L_GRH)
		FUZZ_CHECK(pkt->encap == UROCE_ENCAP_ROCEV1 || pkt->encap == UROCE_ENCAP_IB);
	return rc;
}

/* Sets every field the ICRC masks (facts.md section 1) to a different value. */
static void change_variant_fields(const struct uroce_pkt *pkt, uint8_t *f)
{
	size_t l3 = pkt->l3_off;

	switch (pkt->encap) {
	case UROCE_ENCAP_ROCEV2:
		if (pkt->layers & UROCE_L_IPV4) {
			f[l3 + 1] ^= 0xFF;  /* TOS */
			f[l3 + 8] ^= 0xFF;  /* TTL */
			f[l3 + 10] ^= 0x5A; /* header checksum */
			f[l3 + 11] ^= 0xA5;
		} else {
			f[l3] ^= 0x0F;      /* traffic class (high nibble), flow label, hop limit */
			f[l3 + 1] ^= 0xFF;
			f[l3 + 2] ^= 0xFF;
			f[l3 + 3] ^= 0xFF;
			f[l3 + 7] ^= 0xFF;
		}
		f[pkt->bth_off - 2] ^= 0xFF; /* UDP checksum */
		f[pkt->bth_off - 1] ^= 0x0F;
		break;
	case UROCE_ENCAP_ROCEV1:
		f[l3] ^= 0x0F;
		f[l3 + 1] ^= 0xFF;
		f[l3 + 2] ^= 0xFF;
		f[l3 + 3] ^= 0xFF;
		f[l3 + 7] ^= 0xFF;
		break;
	case UROCE_ENCAP_IB:
		f[0] ^= 0xF0; /* VL */
		if (pkt->lrh.lnh == UROCE_LNH_IBA_GLOBAL) {
			/* The whole LRH is replaced by ones; the layout comes from pkt, not from
			 * these bytes. */
			for (size_t i = 1; i < UROCE_LRH_LEN; i++)
				f[i] ^= 0xFF;
			f[UROCE_LRH_LEN] ^= 0x0F;
			f[UROCE_LRH_LEN + 1] ^= 0xFF;
			f[UROCE_LRH_LEN + 2] ^= 0xFF;
			f[UROCE_LRH_LEN + 3] ^= 0xFF;
			f[UROCE_LRH_LEN + 7] ^= 0xFF;
		}
		break;
	default:
		break;
	}
	f[pkt->bth_off + 4] ^= 0xC0; /* FECN, BECN */
	f[pkt->bth_off + 4] ^= 0x3F; /* reserved */
}

enum uroce_crc_status fuzz_check_icrc(const struct uroce_pkt *pkt, uint32_t *computed)
{
	uint32_t crc = 0, again = 0, other = 0;
	enum uroce_crc_status st = uroce_pkt_icrc_check(pkt, &crc);

	FUZZ_CHECK(st == uroce_pkt_icrc_check(pkt, &again));
	FUZZ_CHECK(st >= UROCE_CRC_ABSENT && st <= UROCE_CRC_UNCHECKED);
	if (pkt->layers & UROCE_L_ICRC)
		FUZZ_CHECK(st != UROCE_CRC_ABSENT);
	if (st != UROCE_CRC_OK && st != UROCE_CRC_BAD)
		return st;
	FUZZ_CHECK(pkt->layers & UROCE_L_ICRC);
	FUZZ_CHECK(crc == again);
	FUZZ_CHECK((st == UROCE_CRC_OK) == (crc == pkt->icrc));
	if (computed)
		*computed = crc;

	uint8_t *copy = dup_frame(pkt);
	struct uroce_pkt view = *pkt;
	view.frame = copy;

	/* The stored value alone decides the verdict. */
	view.icrc = crc ^ 1;
	FUZZ_CHECK(uroce_pkt_icrc_check(&view, NULL) == UROCE_CRC_BAD);
	view.icrc = crc;
	FUZZ_CHECK(uroce_pkt_icrc_check(&view, NULL) == UROCE_CRC_OK);

	/* Variant fields may take any value (that is why they are masked). */
	change_variant_fields(pkt, copy);
	FUZZ_CHECK(uroce_pkt_icrc_check(&view, &other) == UROCE_CRC_OK && other == crc);
	memcpy(copy, pkt->frame, pkt->frame_len);

	/* A CRC-32 catches every single-bit error in what it covers. The last byte before the
	 * ICRC (PSN, extended header, payload or pad) and the P_Key never steer the layout. */
	copy[pkt->icrc_off - 1] ^= 0x01;
	FUZZ_CHECK(uroce_pkt_icrc_check(&view, &other) == UROCE_CRC_BAD && other != crc);
	copy[pkt->icrc_off - 1] ^= 0x01;
	copy[pkt->bth_off + 2] ^= 0x80;
	FUZZ_CHECK(uroce_pkt_icrc_check(&view, &other) == UROCE_CRC_BAD && other != crc);
	copy[pkt->bth_off + 2] ^= 0x80;
	/* The IPv4 Identification is covered (facts.md section 2): not a variant field. */
	if (pkt->encap == UROCE_ENCAP_ROCEV2 && (pkt->layers & UROCE_L_IPV4)) {
		copy[pkt->l3_off + 5] ^= 0x10;
		FUZZ_CHECK(uroce_pkt_icrc_check(&view, &other) == UROCE_CRC_BAD && other != crc);
	}
	free(copy);
	return st;
}

enum uroce_crc_status fuzz_check_vcrc(const struct uroce_pkt *pkt)
{
	uint16_t crc = 0, other = 0;
	enum uroce_crc_status st = uroce_pkt_vcrc_check(pkt, &crc);

	if (!(pkt->layers & UROCE_L_VCRC)) {
		FUZZ_CHECK(st == UROCE_CRC_ABSENT);
		return st;
	}
	FUZZ_CHECK(st == UROCE_CRC_OK || st == UROCE_CRC_BAD);
	FUZZ_CHECK((st == UROCE_CRC_OK) == (crc == pkt->vcrc));

	uint8_t *copy = dup_frame(pkt);
	struct uroce_pkt view = *pkt;
	view.frame = copy;
	view.vcrc = crc;
	FUZZ_CHECK(uroce_pkt_vcrc_check(&view, NULL) == UROCE_CRC_OK);
	view.vcrc = (uint16_t)(crc ^ 0x8000);
	FUZZ_CHECK(uroce_pkt_vcrc_check(&view, NULL) == UROCE_CRC_BAD);
	view.vcrc = crc;
	/* Nothing is masked under the VCRC, the VL included; it covers everything up to itself. */
	if (pkt->vcrc_off) {
		copy[0] ^= 0x10;
		FUZZ_CHECK(uroce_pkt_vcrc_check(&view, &other) == UROCE_CRC_BAD && other != crc);
		copy[0] ^= 0x10;
		copy[pkt->vcrc_off - 1] ^= 0x01;
		FUZZ_CHECK(uroce_pkt_vcrc_check(&view, &other) == UROCE_CRC_BAD && other != crc);
	}
	free(copy);
	return st;
}

void fuzz_check_rebuild(const struct uroce_pkt *pkt, uint32_t icrc)
{
	const uint8_t *f = pkt->frame;
	size_t l3 = pkt->l3_off, pad = pkt->bth.padcnt;

	/* Only what the builder can express: exact pad of zeros, UDP checksum 0, a 20-byte IPv4
	 * header with DF and no fragment, or an IPv6 header without extension headers, length
	 * fields that agree, and no trailing bytes (Ethernet padding) after the ICRC. */
	if (pkt->encap != UROCE_ENCAP_ROCEV2 || !(pkt->layers & UROCE_L_ICRC) || pkt->err)
		return;
	if (pad != ((0u - pkt->payload_len) & 3) || pkt->udp.csum != 0)
		return;
	for (size_t i = 0; i < pad; i++)
		if (f[pkt->payload_off + pkt->payload_len + i])
			return;
	if (pkt->icrc_off + UROCE_ICRC_LEN != pkt->frame_len)
		return;

	struct uroce_rocev2_net net = {.sport = pkt->udp.sport};
	if (pkt->layers & UROCE_L_IPV4) {
		const struct uroce_ipv4 *ip = &pkt->ip4;
		if (ip->has_options || ip->flags != 2 || ip->frag_off ||
		    ip->total_len != UROCE_IPV4_HLEN + pkt->udp.len)
			return;
		memcpy(net.src, ip->src, 4);
		memcpy(net.dst, ip->dst, 4);
		net.tclass = ip->tos;
		net.hop_limit = ip->ttl;
		net.ip_id = ip->id;
	} else {
		const struct uroce_ipv6 *ip = &pkt->ip6;
		if (ip->has_ext || ip->payload_len != pkt->udp.len)
			return;
		net.ipv6 = true;
		memcpy(net.src, ip->src, 16);
		memcpy(net.dst, ip->dst, 16);
		net.tclass = ip->tclass;
		net.hop_limit = ip->hoplimit;
		net.flowlabel = ip->flowlabel;
	}

	size_t len = pkt->frame_len;
	uint8_t *out = malloc(len);
	FUZZ_CHECK(out);
	ssize_t n = uroce_rocev2_build(out, len, (pkt->layers & UROCE_L_ETH) ? &pkt->eth : NULL,
				       &net, &pkt->bth, &pkt->ext, f + pkt->payload_off,
				       pkt->payload_len);
	FUZZ_CHECK(n == (ssize_t)len);
	if (!net.ipv6) {
		/* The builder computes the header checksum; the capture may carry any. */
		FUZZ_CHECK(uroce_ipv4_checksum(out + l3, UROCE_IPV4_HLEN) == 0);
		out[l3 + 10] = f[l3 + 10];
		out[l3 + 11] = f[l3 + 11];
	}
	FUZZ_CHECK(memcmp(out, f, pkt->icrc_off) == 0);
	FUZZ_CHECK(get_le32(out + pkt->icrc_off) == icrc);
	free(out);
}

void fuzz_check_ip_view(const struct uroce_pkt *eth_pkt)
{
	if (!(eth_pkt->layers & (UROCE_L_IPV4 | UROCE_L_IPV6)))
		return;

	size_t off = eth_pkt->l3_off;
	struct uroce_pkt ip;
	uint32_t l2 = UROCE_L_ETH | UROCE_L_VLAN;
	uint32_t crc_eth = 0, crc_ip = 0;

	/* A copy, so that the LINK_IP view cannot read the Ethernet header unnoticed. */
	size_t len = eth_pkt->frame_len - off;
	uint8_t *copy = malloc(len ? len : 1);
	FUZZ_CHECK(copy);
	memcpy(copy, eth_pkt->frame + off, len);

	int rc = fuzz_dissect(&ip, UROCE_LINK_IP, copy, len);
	FUZZ_CHECK(rc == eth_pkt->err && ip.err_layer == eth_pkt->err_layer);
	FUZZ_CHECK(ip.layers == (eth_pkt->layers & ~l2) && ip.encap == eth_pkt->encap);
	FUZZ_CHECK(ip.l3_off == 0);
	if (ip.layers & UROCE_L_BTH)
		FUZZ_CHECK(ip.bth_off + off == eth_pkt->bth_off && ip.bth.psn == eth_pkt->bth.psn);
	if (ip.layers & UROCE_L_EXT)
		FUZZ_CHECK(ip.payload_off + off == eth_pkt->payload_off);
	if (ip.layers & UROCE_L_ICRC)
		FUZZ_CHECK(ip.icrc_off + off == eth_pkt->icrc_off &&
			   ip.payload_len == eth_pkt->payload_len && ip.icrc == eth_pkt->icrc);
	enum uroce_crc_status st = uroce_pkt_icrc_check(&ip, &crc_ip);
	FUZZ_CHECK(st == uroce_pkt_icrc_check(eth_pkt, &crc_eth));
	if (st == UROCE_CRC_OK || st == UROCE_CRC_BAD)
		FUZZ_CHECK(crc_ip == crc_eth);
	free(copy);
}

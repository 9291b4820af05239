/* SPDX-License-Identifier: MIT */
#include "build.h"

#include <string.h>

#include "bytes.h"
#include "common/error.h"
#include "icrc.h"
#include "ip.h"

ssize_t uroce_rocev2_build(uint8_t *out, size_t cap, const struct uroce_eth *eth,
			   const struct uroce_rocev2_net *net, const struct uroce_bth *bth,
			   const struct uroce_ext *ext, const uint8_t *payload, size_t payload_len)
{
	const struct uroce_opcode_info *oi = uroce_opcode_info(bth->opcode);
	size_t l2 = 0, l3_len = net->ipv6 ? UROCE_IPV6_HLEN : UROCE_IPV4_HLEN;
	size_t pad = (0u - payload_len) & 3;
	ssize_t n;

	if (!oi->name || ext->present != oi->headers)
		return UROCE_EINVAL;
	if (eth) {
		struct uroce_eth e = *eth;
		e.ethertype = net->ipv6 ? UROCE_ETHERTYPE_IPV6 : UROCE_ETHERTYPE_IPV4;
		if ((n = uroce_eth_encode(&e, out, cap)) < 0)
			return n;
		l2 = (size_t)n;
	}
	size_t ib_len = UROCE_BTH_LEN + uroce_exthdr_len(ext->present) + payload_len + pad +
			UROCE_ICRC_LEN;
	size_t udp_len = UROCE_UDP_HLEN + ib_len;
	/* IPv4 Total Length counts its own header; IPv6 Payload Length does not. */
	if (udp_len > 0xFFFF - (net->ipv6 ? 0 : l3_len))
		return UROCE_EBADLEN;
	if (cap < l2 + l3_len + udp_len)
		return UROCE_ENOSPACE;

	uint8_t *ip = out + l2;
	if (net->ipv6) {
		struct uroce_ipv6 h = {.tclass = net->tclass, .flowlabel = net->flowlabel,
				       .payload_len = (uint16_t)udp_len, .nxthdr = UROCE_IPPROTO_UDP,
				       .hoplimit = net->hop_limit};
		memcpy(h.src, net->src, 16);
		memcpy(h.dst, net->dst, 16);
		uroce_ipv6_encode(&h, ip, l3_len);
	} else {
		/* DF set, as rxe and a Linux UDP socket with IP_PMTUDISC_DO send it. */
		struct uroce_ipv4 h = {.tos = net->tclass, .total_len = (uint16_t)(l3_len + udp_len),
				       .id = net->ip_id, .flags = 2, .ttl = net->hop_limit,
				       .proto = UROCE_IPPROTO_UDP};
		memcpy(h.src, net->src, 4);
		memcpy(h.dst, net->dst, 4);
		uroce_ipv4_encode(&h, ip, l3_len);
		put_be16(ip + 10, uroce_ipv4_checksum(ip, l3_len));
	}
	struct uroce_udp u = {.sport = net->sport, .dport = UROCE_ROCEV2_UDP_PORT,
			      .len = (uint16_t)udp_len, .csum = 0};
	uroce_udp_encode(&u, ip + l3_len, UROCE_UDP_HLEN);

	uint8_t *p = ip + l3_len + UROCE_UDP_HLEN;
	struct uroce_bth b = *bth;
	b.padcnt = (uint8_t)pad;
	uroce_bth_encode(&b, p, UROCE_BTH_LEN);
	p += UROCE_BTH_LEN;
	p += uroce_ext_encode(ext, p, uroce_exthdr_len(ext->present));
	if (payload_len)
		memcpy(p, payload, payload_len);
	p += payload_len;
	memset(p, 0, pad);
	p += pad;

	uint32_t crc;
	int err = uroce_icrc(net->ipv6 ? UROCE_ICRC_ROCEV2_IPV6 : UROCE_ICRC_ROCEV2_IPV4, ip,
			     l3_len + UROCE_UDP_HLEN, (size_t)(p - ip), &crc);
	if (err < 0)
		return err;
	put_le32(p, crc);
	return (ssize_t)(l2 + l3_len + udp_len);
}

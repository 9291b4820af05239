/* SPDX-License-Identifier: MIT */
#include "eth.h"

#include <stdbool.h>
#include <string.h>

#include "bytes.h"
#include "common/error.h"

static bool is_vlan_tpid(uint16_t type)
{
	return type == UROCE_ETHERTYPE_VLAN || type == UROCE_ETHERTYPE_QINQ;
}

ssize_t uroce_eth_decode(struct uroce_eth *out, const uint8_t *p, size_t len)
{
	size_t off = 12;

	if (len < UROCE_ETH_HLEN)
		return UROCE_ETRUNC;
	memcpy(out->dst, p, 6);
	memcpy(out->src, p + 6, 6);
	out->n_vlans = 0;
	uint16_t type = get_be16(p + off);
	while (is_vlan_tpid(type)) {
		if (out->n_vlans == UROCE_ETH_MAX_VLANS)
			return UROCE_EBADLEN; /* more tags than 802.1ad stacks */
		if (len < off + 4 + 2)
			return UROCE_ETRUNC;
		struct uroce_vlan *v = &out->vlan[out->n_vlans++];
		uint16_t tci = get_be16(p + off + 2);
		v->tpid = type;
		v->pcp = (uint8_t)(tci >> 13);
		v->dei = (uint8_t)(tci >> 12 & 1);
		v->vid = tci & 0x0FFF;
		off += 4;
		type = get_be16(p + off);
	}
	out->ethertype = type;
	return (ssize_t)(off + 2);
}

ssize_t uroce_eth_encode(const struct uroce_eth *in, uint8_t *p, size_t len)
{
	size_t need = UROCE_ETH_HLEN + 4u * in->n_vlans;

	if (in->n_vlans > UROCE_ETH_MAX_VLANS)
		return UROCE_EINVAL;
	if (len < need)
		return UROCE_ENOSPACE;
	memcpy(p, in->dst, 6);
	memcpy(p + 6, in->src, 6);
	size_t off = 12;
	for (unsigned i = 0; i < in->n_vlans; i++) {
		const struct uroce_vlan *v = &in->vlan[i];
		put_be16(p + off, v->tpid);
		put_be16(p + off + 2, (uint16_t)((v->pcp & 7) << 13 | (v->dei & 1) << 12 | (v->vid & 0xFFF)));
		off += 4;
	}
	put_be16(p + off, in->ethertype);
	return (ssize_t)need;
}

void uroce_eth_multicast_mac(const uint8_t *ip, bool ipv6, uint8_t mac[6])
{
	if (ipv6) {
		mac[0] = mac[1] = 0x33;
		memcpy(mac + 2, ip + 12, 4);
		return;
	}
	mac[0] = 0x01, mac[1] = 0x00, mac[2] = 0x5e;
	mac[3] = ip[1] & 0x7f, mac[4] = ip[2], mac[5] = ip[3];
}

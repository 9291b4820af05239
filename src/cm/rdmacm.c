/* SPDX-License-Identifier: MIT */
#include "rdmacm.h"

#include <string.h>

#include "common/error.h"

uint32_t uroce_rdma_flow_label(uint16_t sport, uint16_t dport, bool ipv6, uint32_t flowinfo)
{
	if (ipv6 && (flowinfo & 0xFFFFF))
		return flowinfo & 0xFFFFF;
	return ((uint32_t)sport * 31 + dport) & 0xFFFFF;
}

void uroce_rdma_iboe_path(struct uroce_cm_path_rec *out, const struct uroce_io_addr *src,
			  uint16_t sport, const struct uroce_io_addr *dst, uint16_t dport,
			  uint8_t tos, uint8_t hop_limit, uint8_t mtu, uint8_t ack_timeout,
			  uint32_t flowinfo)
{
	memset(out, 0, sizeof(*out));
	out->local = *src;
	out->remote = *dst;
	out->hop_limit = hop_limit;
	out->pkey = 0xFFFF;
	/* iboe_tos_to_sl: the interface's priority map, empty on a plain netdev. */
	out->sl = 0;
	out->traffic_class = tos;
	out->mtu = mtu;
	out->rate = 0; /* IB_RATE_PORT_CURRENT */
	/* "local ACK timeout = 2 x PacketLifeTime + local CA's ACK delay": an ACK timeout set
	 * by the application makes the life time one step less. */
	out->packet_life_time = ack_timeout ? (uint8_t)(ack_timeout - 1)
					    : UROCE_RDMA_IBOE_PACKET_LIFETIME;
	out->flow_label = uroce_rdma_flow_label(sport, dport, src->ipv6, flowinfo);
}

static void put_ip(uint8_t slot[16], const struct uroce_io_addr *a)
{
	memset(slot, 0, 16);
	if (a->ipv6)
		memcpy(slot, a->ip, 16);
	else
		memcpy(slot + 12, a->ip, 4);
}

static void get_ip(struct uroce_io_addr *a, const uint8_t slot[16], bool ipv6)
{
	memset(a, 0, sizeof(*a));
	a->ipv6 = ipv6;
	if (ipv6)
		memcpy(a->ip, slot, 16);
	else
		memcpy(a->ip, slot + 12, 4);
}

ssize_t uroce_rdma_hdr_encode(uint8_t *out, size_t cap, const struct uroce_io_addr *src,
			      uint16_t sport, const struct uroce_io_addr *dst, const void *user,
			      size_t user_len)
{
	struct uroce_cm_ipcm h = {.ip_version = src->ipv6 ? 6 : 4, .src_port = sport};
	uint8_t buf[UROCE_CM_REQ_PRIVATE_LEN];

	if (src->ipv6 != dst->ipv6 || cap < UROCE_RDMA_HDR_LEN ||
	    user_len > cap - UROCE_RDMA_HDR_LEN || (user_len && !user))
		return UROCE_EINVAL;
	put_ip(h.src_ip, src);
	put_ip(h.dst_ip, dst);
	uroce_cm_ipcm_encode(&h, buf, sizeof(buf));
	memset(out, 0, cap);
	memcpy(out, buf, UROCE_RDMA_HDR_LEN);
	if (user_len)
		memcpy(out + UROCE_RDMA_HDR_LEN, user, user_len);
	return (ssize_t)(UROCE_RDMA_HDR_LEN + user_len);
}

int uroce_rdma_hdr_decode(const uint8_t *pdata, size_t len, struct uroce_io_addr *src,
			  uint16_t *sport, struct uroce_io_addr *dst)
{
	struct uroce_cm_ipcm h;
	uint8_t buf[UROCE_CM_REQ_PRIVATE_LEN] = {0};

	if (len < UROCE_RDMA_HDR_LEN)
		return UROCE_ETRUNC;
	memcpy(buf, pdata, UROCE_RDMA_HDR_LEN);
	uroce_cm_ipcm_decode(&h, buf, sizeof(buf));
	if (h.major || h.minor || (h.ip_version != 4 && h.ip_version != 6))
		return UROCE_EINVAL;
	get_ip(src, h.src_ip, h.ip_version == 6);
	get_ip(dst, h.dst_ip, h.ip_version == 6);
	*sport = h.src_port;
	return 0;
}

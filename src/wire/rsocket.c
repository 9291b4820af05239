/* SPDX-License-Identifier: MIT */
/* rdma-core's rsocket connect data and datagram headers (rsocket.h). */
#include "wire/rsocket.h"

#include <string.h>

#include "wire/bytes.h"

void uroce_rs_conn_data_build(uint8_t *out, const struct uroce_rs_conn_data *c)
{
	memset(out, 0, UROCE_RS_CONN_DATA_LEN);
	out[0] = c->version;
	out[1] = c->flags;
	put_be16(out + 2, c->credits);
	out[7] = c->target_iomap_size;
	put_be64(out + 8, c->target_sgl.addr);
	put_be32(out + 16, c->target_sgl.key);
	put_be32(out + 20, c->target_sgl.length);
	put_be64(out + 24, c->data_buf.addr);
	put_be32(out + 32, c->data_buf.key);
	put_be32(out + 36, c->data_buf.length);
}

int uroce_rs_conn_data_parse(const uint8_t *b, size_t len, struct uroce_rs_conn_data *c)
{
	memset(c, 0, sizeof(*c));
	if (len < UROCE_RS_CONN_DATA_LEN)
		return -1;
	c->version = b[0];
	c->flags = b[1];
	c->credits = get_be16(b + 2);
	c->target_iomap_size = b[7];
	c->target_sgl.addr = get_be64(b + 8);
	c->target_sgl.key = get_be32(b + 16);
	c->target_sgl.length = get_be32(b + 20);
	c->data_buf.addr = get_be64(b + 24);
	c->data_buf.key = get_be32(b + 32);
	c->data_buf.length = get_be32(b + 36);
	return 0;
}

size_t uroce_ds_hdr_build(uint8_t *out, const struct uroce_ds_addr *a)
{
	if (a->version == 4) {
		out[0] = 4;
		out[1] = UROCE_DS_HDR4_LEN;
		memcpy(out + 2, a->port, 2);
		memcpy(out + 4, a->ip, 4);
		return UROCE_DS_HDR4_LEN;
	}
	if (a->version == 6) {
		out[0] = 6;
		out[1] = UROCE_DS_HDR6_LEN;
		memcpy(out + 2, a->port, 2);
		memcpy(out + 4, a->flow, 4);
		memcpy(out + 8, a->ip, 16);
		return UROCE_DS_HDR6_LEN;
	}
	return 0;
}

size_t uroce_ds_hdr_parse(const uint8_t *b, size_t len, struct uroce_ds_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (len >= UROCE_DS_HDR4_LEN && b[0] == 4 && b[1] == UROCE_DS_HDR4_LEN) {
		a->version = 4;
		memcpy(a->port, b + 2, 2);
		memcpy(a->ip, b + 4, 4);
		return UROCE_DS_HDR4_LEN;
	}
	if (len >= UROCE_DS_HDR6_LEN && b[0] == 6 && b[1] == UROCE_DS_HDR6_LEN) {
		a->version = 6;
		memcpy(a->port, b + 2, 2);
		memcpy(a->flow, b + 4, 4);
		memcpy(a->ip, b + 8, 16);
		return UROCE_DS_HDR6_LEN;
	}
	return 0;
}

size_t uroce_ds_udp_hdr_build(uint8_t *out, uint8_t op, uint32_t qpn,
			      const struct uroce_ds_addr *a)
{
	size_t n = a->version == 4 ? UROCE_DS_UDP_HDR4_LEN : UROCE_DS_UDP_HDR6_LEN;

	if (a->version != 4 && a->version != 6)
		return 0;
	memset(out, 0, n);
	put_be32(out, UROCE_DS_UDP_TAG);
	out[4] = a->version;
	out[5] = op;
	out[6] = (uint8_t)n;
	put_be32(out + 8, qpn & 0xFFFFFF);
	memcpy(out + 12, a->ip, a->version == 4 ? 4 : 16);
	return n;
}

size_t uroce_ds_udp_hdr_parse(const uint8_t *b, size_t len, uint8_t version, uint8_t *op,
			      uint32_t *qpn, struct uroce_ds_addr *a)
{
	size_t n = version == 4 ? UROCE_DS_UDP_HDR4_LEN : UROCE_DS_UDP_HDR6_LEN;

	memset(a, 0, sizeof(*a));
	if ((version != 4 && version != 6) || len < n || get_be32(b) != UROCE_DS_UDP_TAG ||
	    b[4] != version || b[6] != n)
		return 0;
	*op = b[5];
	*qpn = get_be32(b + 8) & 0xFFFFFF;
	a->version = version;
	memcpy(a->ip, b + 12, version == 4 ? 4 : 16);
	return n;
}

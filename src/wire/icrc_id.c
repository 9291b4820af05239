/* SPDX-License-Identifier: MIT */
#include "icrc_id.h"

#include <assert.h>
#include <string.h>

#include "bytes.h"
#include "ib.h"
#include "icrc.h"
#include "ip.h"

#define CRC32_POLY 0xEDB88320u /* IEEE 802.3, reflected */
#define HDR4 (UROCE_IPV4_HLEN + UROCE_UDP_HLEN)
#define ID_OFF 4               /* the ID's offset in the IPv4 header */

/* The CRC state is a polynomial mod P in the reflected layout: bit 31 holds x^0, bit 0 holds
 * x^31, and shifting right multiplies by x. So one zero byte multiplies the state by x^8,
 * and N zero bytes by x^(8N): that is how a bit flipped early in the packet shows in the
 * final CRC, without running the CRC over the bytes that follow. */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
	uint32_t r = 0;

	for (int i = 31; i >= 0; i--) {
		if (a >> i & 1)
			r ^= b;
		b = b & 1 ? (b >> 1) ^ CRC32_POLY : b >> 1;
	}
	return r;
}

/* x^(8n) mod P. */
static uint32_t x8n_mod(size_t n)
{
	uint32_t r = 0x80000000u, base = 0x00800000u; /* x^0, x^8 */

	for (; n; n >>= 1) {
		if (n & 1)
			r = gf2_mulmod(r, base);
		base = gf2_mulmod(base, base);
	}
	return r;
}

/* The CRC state after the bytes p[0..n) starting from state 0: the linear part of CRC-32. */
static uint32_t crc_linear(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i < n; i++) {
		s ^= p[i];
		for (int k = 0; k < 8; k++)
			s = s & 1 ? (s >> 1) ^ CRC32_POLY : s >> 1;
	}
	return s;
}

/* The ICRC input is 8 bytes of ones, then the datagram up to the ICRC; the ID sits at
 * datagram bytes 4 and 5, so (len - 4) - 6 bytes follow it. */
static uint32_t id_after(uint32_t len)
{
	return len - UROCE_ICRC_LEN - ID_OFF - 2;
}

/* L(1 << bit) for the factor of one length. */
static uint32_t id_bit_term(uint32_t shift, int bit)
{
	uint8_t d[2] = {(uint8_t)((1u << bit) >> 8), (uint8_t)(1u << bit)};
	return gf2_mulmod(crc_linear(d, 2), shift);
}

uint32_t uroce_icrc_u16_change(struct uroce_icrc_id_terms *t, uint32_t after, uint16_t x)
{
	uint32_t d = 0;

	if (t->after != after || !after) {
		/* the factor that carries a change of the field to the end of the input */
		uint32_t shift = x8n_mod(after);
		for (int bit = 0; bit < 16; bit++)
			t->v[bit] = id_bit_term(shift, bit);
		t->after = after;
	}
	for (int bit = 0; x; bit++, x >>= 1)
		if (x & 1)
			d ^= t->v[bit];
	return d;
}

uint32_t uroce_icrc_id_change(struct uroce_icrc_id_terms *t, uint32_t len, uint16_t x)
{
	if (len < ID_OFF + 2 + UROCE_ICRC_LEN)
		return 0;
	return uroce_icrc_u16_change(t, id_after(len), x);
}

static void basis_build(struct uroce_icrc_id_basis *b, uint32_t len)
{
	uint32_t shift = x8n_mod(id_after(len));

	memset(b, 0, sizeof(*b));
	b->len = len;
	for (int bit = 0; bit < 16; bit++) {
		uint32_t v = id_bit_term(shift, bit);
		uint16_t c = (uint16_t)(1u << bit);

		for (int k = 31; k >= 0 && v; k--) {
			if (!(v >> k & 1))
				continue;
			if (!b->vec[k]) {
				b->vec[k] = v;
				b->combo[k] = c;
				break;
			}
			v ^= b->vec[k];
			c ^= b->combo[k];
		}
		/* v never reduces to 0: CRC-32 detects every burst of up to 32 bits, so no
		 * nonzero change confined to 16 bits leaves the CRC as it was. */
	}
}

/* The ID change x with L(x) = t, or -1 when t is outside the span of the ID bits. */
static int basis_solve(const struct uroce_icrc_id_basis *b, uint32_t t)
{
	uint16_t x = 0;

	for (int k = 31; k >= 0; k--) {
		if (!(t >> k & 1))
			continue;
		if (!b->vec[k])
			return -1;
		t ^= b->vec[k];
		x ^= b->combo[k];
	}
	return x;
}

enum uroce_icrc_id_result uroce_icrc_id_solve(const uint8_t *p, size_t len,
					      struct uroce_icrc_id_cache *cache, uint16_t *id)
{
	struct uroce_icrc_id_basis local, *b;
	uint32_t crc;

	if (len < HDR4 + UROCE_BTH_LEN + UROCE_ICRC_LEN || p[0] != 0x45 ||
	    p[9] != UROCE_IPPROTO_UDP || get_be16(p + 2) != len)
		return UROCE_ICRC_ID_UNCHECKED;
	if (uroce_icrc(UROCE_ICRC_ROCEV2_IPV4, p, HDR4, len - UROCE_ICRC_LEN, &crc) < 0)
		return UROCE_ICRC_ID_UNCHECKED;
	uint16_t hid = get_be16(p + ID_OFF);
	uint32_t t = crc ^ get_le32(p + len - UROCE_ICRC_LEN);
	if (id)
		*id = hid;
	if (!t)
		return UROCE_ICRC_ID_OK;
	if (cache) {
		/* Fibonacci hashing: lengths that differ by a multiple of 16 (common among
		 * RoCE packets) still land apart. */
		static_assert(UROCE_ICRC_ID_CACHE == 1 << 4, "the hash keeps 4 bits");
		b = &cache->b[(uint32_t)len * 2654435761u >> 28];
		if (b->len != len)
			basis_build(b, (uint32_t)len);
	} else {
		b = &local;
		basis_build(b, (uint32_t)len);
	}
	int x = basis_solve(b, t);
	if (x < 0)
		return UROCE_ICRC_ID_NONE;
	if (id)
		*id = hid ^ (uint16_t)x;
	return UROCE_ICRC_ID_SOLVED;
}

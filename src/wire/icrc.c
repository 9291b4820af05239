/* SPDX-License-Identifier: MIT */
#include "icrc.h"

#include <string.h>

#include "common/error.h"
#include "crc.h"
#include "ib.h"
#include "ip.h"

/* 8 bytes of ones for the masked LRH, the headers before the BTH, and the BTH. */
#define ICRC_MASK_BUF (8 + 116 + UROCE_BTH_LEN)

/* Traffic class, flow label and hop limit of an IPv6 header or a GRH (same layout). */
static void mask_ipv6_like(uint8_t *h)
{
	h[0] |= 0x0F;
	h[1] = h[2] = h[3] = 0xFF;
	h[7] = 0xFF;
}

int uroce_icrc(enum uroce_icrc_kind kind, const uint8_t *p, size_t hdr_len, size_t len,
	       uint32_t *crc)
{
	static const size_t min_hdr[] = {
		[UROCE_ICRC_ROCEV2_IPV4] = UROCE_IPV4_HLEN + UROCE_UDP_HLEN,
		[UROCE_ICRC_ROCEV2_IPV6] = UROCE_IPV6_HLEN + UROCE_UDP_HLEN,
		[UROCE_ICRC_ROCEV1] = UROCE_GRH_LEN,
		[UROCE_ICRC_IB_LOCAL] = UROCE_LRH_LEN,
		[UROCE_ICRC_IB_GLOBAL] = UROCE_LRH_LEN + UROCE_GRH_LEN,
	};
	uint8_t buf[ICRC_MASK_BUF];
	/* RoCE has no LRH: 8 bytes of ones stand for it. Native IB masks its own LRH: the VL
	 * only with LNH 2, all of it with LNH 3. */
	size_t pre = kind == UROCE_ICRC_IB_LOCAL || kind == UROCE_ICRC_IB_GLOBAL ? 0 : 8;
	size_t covered = hdr_len + UROCE_BTH_LEN;

	if ((unsigned)kind > UROCE_ICRC_IB_GLOBAL || hdr_len < min_hdr[kind] || len < covered ||
	    pre + covered > sizeof(buf))
		return UROCE_EINVAL;
	memset(buf, 0xFF, 8);
	memcpy(buf + pre, p, covered);
	uint8_t *h = buf + pre;

	switch (kind) {
	case UROCE_ICRC_ROCEV2_IPV4: {
		size_t ihl = (size_t)(h[0] & 0x0F) * 4;
		if (ihl < UROCE_IPV4_HLEN || ihl + UROCE_UDP_HLEN != hdr_len)
			return UROCE_EINVAL;
		h[1] = 0xFF;            /* TOS: DSCP and ECN */
		h[8] = 0xFF;            /* TTL */
		h[10] = h[11] = 0xFF;   /* header checksum */
		break;
	}
	case UROCE_ICRC_ROCEV2_IPV6:
		mask_ipv6_like(h);
		break;
	case UROCE_ICRC_ROCEV1:
		mask_ipv6_like(h);
		break;
	case UROCE_ICRC_IB_LOCAL:
		h[0] |= 0xF0;           /* VL */
		break;
	case UROCE_ICRC_IB_GLOBAL:
		memset(h, 0xFF, UROCE_LRH_LEN);
		mask_ipv6_like(h + UROCE_LRH_LEN);
		break;
	}
	if (kind == UROCE_ICRC_ROCEV2_IPV4 || kind == UROCE_ICRC_ROCEV2_IPV6)
		h[hdr_len - 2] = h[hdr_len - 1] = 0xFF; /* UDP checksum */
	h[hdr_len + 4] = 0xFF;                          /* BTH FECN, BECN, reserved */

	uint32_t c = uroce_crc32(0, buf, pre + covered);
	*crc = uroce_crc32(c, p + covered, len - covered);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Input: a RoCE v1 packet from the GRH on (GRH, BTH, extended headers, payload, pad, ICRC).
 * The harness puts an Ethernet header with EtherType 0x8915 in front, so no mutation is spent
 * on reaching the GRH, and dissects it once more behind an 802.1Q tag: both views must agree
 * on everything but the offsets. */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "wire/bytes.h"

#define VLAN_TAG_LEN 4

/* Ethernet header, optionally one 802.1Q tag (VID 5, PCP 3: a typical RoCE priority). */
static uint8_t *frame_for(const uint8_t *data, size_t size, bool vlan, size_t *len)
{
	static const uint8_t macs[12] = {0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02};
	size_t hlen = UROCE_ETH_HLEN + (vlan ? VLAN_TAG_LEN : 0);
	uint8_t *f = malloc(hlen + size);

	FUZZ_CHECK(f);
	memcpy(f, macs, sizeof(macs));
	if (vlan) {
		put_be16(f + 12, UROCE_ETHERTYPE_VLAN);
		put_be16(f + 14, 3 << 13 | 5);
	}
	put_be16(f + hlen - 2, UROCE_ROCEV1_ETHERTYPE);
	if (size)
		memcpy(f + hlen, data, size);
	*len = hlen + size;
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_pkt plain, tagged;
	uint32_t crc_plain = 0, crc_tagged = 0;
	size_t len;

	uint8_t *f = frame_for(data, size, false, &len);
	int rc = fuzz_dissect(&plain, UROCE_LINK_ETHERNET, f, len);
	FUZZ_CHECK(plain.encap == UROCE_ENCAP_ROCEV1 && plain.l3_off == UROCE_ETH_HLEN);
	enum uroce_crc_status st = fuzz_check_icrc(&plain, &crc_plain);
	FUZZ_CHECK(fuzz_check_vcrc(&plain) == UROCE_CRC_ABSENT);

	uint8_t *g = frame_for(data, size, true, &len);
	int rc2 = fuzz_dissect(&tagged, UROCE_LINK_ETHERNET, g, len);
	FUZZ_CHECK(rc2 == rc && tagged.err_layer == plain.err_layer);
	FUZZ_CHECK(tagged.layers == (plain.layers | UROCE_L_VLAN));
	FUZZ_CHECK(tagged.l3_off == plain.l3_off + VLAN_TAG_LEN);
	if (plain.layers & UROCE_L_BTH)
		FUZZ_CHECK(tagged.bth_off == plain.bth_off + VLAN_TAG_LEN);
	if (plain.layers & UROCE_L_ICRC)
		FUZZ_CHECK(tagged.icrc_off == plain.icrc_off + VLAN_TAG_LEN &&
			   tagged.payload_len == plain.payload_len);
	FUZZ_CHECK(fuzz_check_icrc(&tagged, &crc_tagged) == st);
	if (st == UROCE_CRC_OK || st == UROCE_CRC_BAD)
		FUZZ_CHECK(crc_tagged == crc_plain);

	free(g);
	free(f);
	return 0;
}

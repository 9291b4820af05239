/* SPDX-License-Identifier: MIT */
/* Input: a native InfiniBand packet from the LRH through the VCRC (an ERF type 21 payload).
 * Dissected with the ICRC and VCRC invariants checked. A packet with a GRH (LNH 3) is also
 * re-framed as RoCE v1 (Ethernet + the same GRH and transport): RoCE v1 follows the LNH 3 ICRC
 * rule (facts.md section 1), so both encapsulations must compute the same ICRC. */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "wire/bytes.h"

static void check_as_rocev1(const struct uroce_pkt *ib, uint32_t crc)
{
	/* Only when the GRH PayLen and the LRH PktLen put the ICRC at the same place. */
	if (ib->icrc_off + UROCE_ICRC_LEN != (size_t)UROCE_LRH_LEN + UROCE_GRH_LEN + ib->grh.paylen)
		return;

	size_t body = ib->icrc_off + UROCE_ICRC_LEN - UROCE_LRH_LEN;
	size_t len = UROCE_ETH_HLEN + body;
	uint8_t *f = malloc(len);
	FUZZ_CHECK(f);
	memset(f, 0x02, 12);
	put_be16(f + 12, UROCE_ROCEV1_ETHERTYPE);
	memcpy(f + UROCE_ETH_HLEN, ib->frame + UROCE_LRH_LEN, body);

	struct uroce_pkt v1;
	uint32_t crc1 = 0;
	FUZZ_CHECK(fuzz_dissect(&v1, UROCE_LINK_ETHERNET, f, len) == 0);
	FUZZ_CHECK(v1.encap == UROCE_ENCAP_ROCEV1 && v1.payload_len == ib->payload_len);
	enum uroce_crc_status st = fuzz_check_icrc(&v1, &crc1);
	FUZZ_CHECK((st == UROCE_CRC_OK || st == UROCE_CRC_BAD) && crc1 == crc);
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_pkt pkt;
	uint32_t crc = 0;
	int rc = fuzz_dissect(&pkt, UROCE_LINK_IB, data, size);
	enum uroce_crc_status st = fuzz_check_icrc(&pkt, &crc);

	fuzz_check_vcrc(&pkt);
	if (rc == 0 && pkt.lrh.lnh == UROCE_LNH_IBA_GLOBAL &&
	    (st == UROCE_CRC_OK || st == UROCE_CRC_BAD))
		check_as_rocev1(&pkt, crc);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Input: one Ethernet frame, as pcap DLT_EN10MB stores it. Dissected as Ethernet (VLAN tags,
 * IPv4/IPv6, UDP 4791, BTH and the rest) with every ICRC invariant checked, then rebuilt with
 * uroce_rocev2_build when its headers allow, then the same bytes are dissected again as a raw
 * IP packet (what a UDP socket or DLT_RAW delivers), which exercises the other entry point on
 * inputs the fuzzer did not shape for it. */
#include "fuzz_check.h"

static void one_view(enum uroce_link link, const uint8_t *data, size_t size)
{
	struct uroce_pkt pkt;
	uint32_t crc = 0;
	int rc = fuzz_dissect(&pkt, link, data, size);
	enum uroce_crc_status st = fuzz_check_icrc(&pkt, &crc);

	FUZZ_CHECK(fuzz_check_vcrc(&pkt) == UROCE_CRC_ABSENT);
	if (rc == 0 && (st == UROCE_CRC_OK || st == UROCE_CRC_BAD))
		fuzz_check_rebuild(&pkt, crc);
	if (link == UROCE_LINK_ETHERNET)
		fuzz_check_ip_view(&pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one_view(UROCE_LINK_ETHERNET, data, size);
	one_view(UROCE_LINK_IP, data, size);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Invariants shared by the libFuzzer targets. Sanitizers catch memory errors; these checks catch
 * the other kind of bug: a dissection that stays in bounds but says something false (an ICRC
 * verdict on bytes that are not there, offsets that do not add up, a CRC that does not notice a
 * flipped bit, a decoder and an encoder that disagree). A violation prints what failed and
 * traps, which libFuzzer reports as a crash with the input saved. */
#ifndef UROCE_FUZZ_CHECK_H
#define UROCE_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire/packet.h"

/* The entry point libFuzzer calls; declared here for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__,  \
				__LINE__, #cond);                                     \
			__builtin_trap();                                             \
		}                                                                     \
	} while (0)

/* Dissects frame[0..len) as link and checks every structural invariant of the result; rc is
 * returned and pkt filled. */
int fuzz_dissect(struct uroce_pkt *pkt, enum uroce_link link, const uint8_t *frame, size_t len);

/* Checks the ICRC verdict: consistent with the layers found, unchanged when the variant
 * fields (the ones the ICRC masks) change, BAD after one flipped covered bit, OK once the
 * computed value is stored. Returns the verdict, and the computed CRC in *computed when it was
 * OK or BAD. */
enum uroce_crc_status fuzz_check_icrc(const struct uroce_pkt *pkt, uint32_t *computed);

/* The same for the VCRC of a native InfiniBand packet. */
enum uroce_crc_status fuzz_check_vcrc(const struct uroce_pkt *pkt);

/* Encoder against decoder: a RoCEv2 packet whose headers uroce_rocev2_build can express is
 * rebuilt from the dissected fields and must come out byte for byte (the IPv4 checksum aside)
 * with the ICRC the checker computed. */
void fuzz_check_rebuild(const struct uroce_pkt *pkt, uint32_t icrc);

/* Dissection of the bytes from the IP header on (LINK_IP) must agree with the dissection of
 * the whole Ethernet frame. */
void fuzz_check_ip_view(const struct uroce_pkt *eth_pkt);

#endif

/* SPDX-License-Identifier: MIT */
/* Input: one received Ethernet frame, as the AF_XDP backend reads it from its receive ring,
 * behind one byte that sets the caller's buffer size. uroce_ether_frame_decode must stay inside
 * both buffers (ASan checks every access), and what it accepts must agree with the frame: the
 * datagram is the bytes after the Ethernet header, no longer than the frame, cut at cap and
 * flagged exactly when it was longer, with the source and destination of its header. */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "io/ether.h"
#include "wire/bytes.h"

#define ETH_HLEN 14

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_io_pkt p;
	uint8_t *frame, *buf;
	size_t flen, cap;

	if (size < 1)
		return 0;
	/* Buffer sizes from 0 to 255 and the backend's own (UROCE_MAX_DATAGRAM-sized) 4096. */
	cap = data[0] == 255 ? 4096 : data[0];
	flen = size - 1;
	/* Copies of exact size, so that any read past the frame or write past cap is caught. */
	frame = malloc(flen ? flen : 1);
	buf = malloc(cap ? cap : 1);
	FUZZ_CHECK(frame && buf);
	memcpy(frame, data + 1, flen);
	memset(&p, 0, sizeof(p));
	p.data = buf;
	p.cap = (uint32_t)cap;
	if (uroce_ether_frame_decode(frame, flen, &p)) {
		const uint8_t *ip = frame + ETH_HLEN;
		bool v6 = get_be16(frame + 12) == 0x86DD;
		size_t whole = v6 ? 40 + (size_t)get_be16(ip + 4) : get_be16(ip + 2);

		FUZZ_CHECK(flen >= ETH_HLEN + whole);
		FUZZ_CHECK(whole >= (v6 ? 40u : 20u) + 8u);
		FUZZ_CHECK(p.len == (whole > cap ? cap : whole));
		FUZZ_CHECK(!!(p.flags & UROCE_IO_PKT_TRUNC) == (whole > cap));
		FUZZ_CHECK(!memcmp(p.data, ip, p.len));
		FUZZ_CHECK(p.src.ipv6 == v6 && p.dst.ipv6 == v6);
		FUZZ_CHECK(!memcmp(p.src.ip, ip + (v6 ? 8 : 12), v6 ? 16 : 4));
		FUZZ_CHECK(!memcmp(p.dst.ip, ip + (v6 ? 24 : 16), v6 ? 16 : 4));
		FUZZ_CHECK(get_be16(ip + (v6 ? 40 : 20) + 2) == 4791);
	}
	free(frame);
	free(buf);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Input: what rsockets take off the network besides their data (wire/rsocket.h): the start
 * of a datagram rsocket's datagram, as it comes off a UD QP (a ds_header) or off the UDP
 * socket (a ds_udp_header, over IPv4 and over IPv6: the first input byte picks the
 * version), and a stream rsocket's connect private data; the rest of the input after the
 * first byte is given to each parser.
 *   - a ds_header that parses has a length of 8 or 24, no more than the input, and is
 *     rebuilt to exactly its bytes from what was parsed;
 *   - a ds_udp_header that parses has the version's length, and is rebuilt to its bytes
 *     but the reserved byte and the QPN field's top 8 bits, which the parser ignores;
 *   - connect data that parses (40 bytes or more) is rebuilt to its first 40 bytes but the
 *     three reserved ones;
 *   - short or malformed input is refused, never read past (an exact-size buffer under
 *     ASan). */
#include "fuzz_check.h"

#include <string.h>

#include "wire/rsocket.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_rs_conn_data c;
	struct uroce_ds_addr a;
	uint8_t out[UROCE_RS_CONN_DATA_LEN], op;
	uint32_t qpn;
	size_t n;

	if (!size)
		return 0;
	n = uroce_ds_hdr_parse(data + 1, size - 1, &a);
	if (n) {
		FUZZ_CHECK(n == UROCE_DS_HDR4_LEN || n == UROCE_DS_HDR6_LEN);
		FUZZ_CHECK(n <= size - 1);
		FUZZ_CHECK(uroce_ds_hdr_build(out, &a) == n);
		FUZZ_CHECK(!memcmp(out, data + 1, n));
	}
	n = uroce_ds_udp_hdr_parse(data + 1, size - 1, data[0] & 1 ? 6 : 4, &op, &qpn, &a);
	if (n) {
		FUZZ_CHECK(n == (data[0] & 1 ? UROCE_DS_UDP_HDR6_LEN : UROCE_DS_UDP_HDR4_LEN));
		FUZZ_CHECK(n <= size - 1 && qpn <= 0xFFFFFF);
		FUZZ_CHECK(uroce_ds_udp_hdr_build(out, op, qpn, &a) == n);
		FUZZ_CHECK(!memcmp(out, data + 1, 7) && out[8] == 0 &&
			   !memcmp(out + 9, data + 1 + 9, n - 9));
	}
	if (!uroce_rs_conn_data_parse(data + 1, size - 1, &c)) {
		FUZZ_CHECK(size - 1 >= UROCE_RS_CONN_DATA_LEN);
		uroce_rs_conn_data_build(out, &c);
		FUZZ_CHECK(!memcmp(out, data + 1, 4) && !out[4] && !out[5] && !out[6] &&
			   !memcmp(out + 7, data + 1 + 7, UROCE_RS_CONN_DATA_LEN - 7));
	} else {
		FUZZ_CHECK(size - 1 < UROCE_RS_CONN_DATA_LEN);
	}
	return 0;
}

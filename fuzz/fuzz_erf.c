/* SPDX-License-Identifier: MIT */
/* Input: a raw ERF file, i.e. records back to back. Every record is decoded with both
 * decoders (whole and snapped), checked, re-encoded and decoded again, and its packet is
 * dissected (LRH-first for type 21, Ethernet for type 2). The last record may be cut short by
 * the end of the input, as a pcap DLT_ERF record cut by the snap length is. */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/erf.h"

#define NS_PER_S 1000000000ull

static void same_record(const struct uroce_erf *a, const struct uroce_erf *b)
{
	FUZZ_CHECK(a->ts == b->ts && a->ts_ns == b->ts_ns && a->type == b->type);
	FUZZ_CHECK(a->ext == b->ext && a->flags == b->flags && a->rlen == b->rlen);
	FUZZ_CHECK(a->lctr == b->lctr && a->wlen == b->wlen && a->n_ext == b->n_ext);
	FUZZ_CHECK(a->link == b->link && a->payload_off == b->payload_off);
	FUZZ_CHECK(a->payload_len == b->payload_len && a->snapped == b->snapped);
}

static void dissect_payload(const struct uroce_erf *rec, const uint8_t *p)
{
	if (rec->link == UROCE_ERF_LINK_UNSUPPORTED)
		return;
	/* A copy of exactly the packet bytes: a read past them is caught even when the next
	 * record follows. */
	uint8_t *pkt_bytes = malloc(rec->payload_len ? rec->payload_len : 1);
	FUZZ_CHECK(pkt_bytes);
	if (rec->payload_len)
		memcpy(pkt_bytes, p + rec->payload_off, rec->payload_len);

	struct uroce_pkt pkt;
	enum uroce_link link = rec->link == UROCE_ERF_LINK_IB ? UROCE_LINK_IB : UROCE_LINK_ETHERNET;
	fuzz_dissect(&pkt, link, pkt_bytes, rec->payload_len);
	fuzz_check_icrc(&pkt, NULL);
	fuzz_check_vcrc(&pkt);
	free(pkt_bytes);
}

/* What every decoded record satisfies; end is how many of its bytes are present. */
static void check_record(const struct uroce_erf *rec, const uint8_t *p, size_t end)
{
	size_t pad = rec->link == UROCE_ERF_LINK_ETH ? UROCE_ERF_ETH_PAD : 0;

	FUZZ_CHECK(rec->rlen >= UROCE_ERF_HDR_LEN && end <= rec->rlen);
	FUZZ_CHECK(rec->snapped == (end < rec->rlen));
	FUZZ_CHECK(rec->ext == (rec->n_ext > 0));
	FUZZ_CHECK(rec->payload_off == UROCE_ERF_HDR_LEN + UROCE_ERF_EXT_LEN * rec->n_ext + pad);
	FUZZ_CHECK(rec->payload_off <= end);
	if (rec->link == UROCE_ERF_LINK_UNSUPPORTED) {
		FUZZ_CHECK(rec->type != UROCE_ERF_TYPE_ETH && rec->type != UROCE_ERF_TYPE_INFINIBAND);
		FUZZ_CHECK(rec->payload_off + rec->payload_len == end);
	} else {
		size_t avail = end - rec->payload_off;
		FUZZ_CHECK(rec->payload_len == (avail < rec->wlen ? avail : rec->wlen));
	}
	FUZZ_CHECK(rec->ts_ns == uroce_erf_ts_to_ns(rec->ts));
	/* ns -> ts -> ns is exact below 2^32 seconds (erf.h). */
	if (rec->ts_ns < (1ull << 32) * NS_PER_S)
		FUZZ_CHECK(uroce_erf_ts_to_ns(uroce_erf_ts_from_ns(rec->ts_ns)) == rec->ts_ns);

	/* Re-encode (the encoder writes no extension headers) and decode again. */
	if (rec->link != UROCE_ERF_LINK_UNSUPPORTED && !rec->ext) {
		size_t cap = UROCE_ERF_HDR_LEN + pad + rec->payload_len + UROCE_ERF_ALIGN;
		uint8_t *buf = malloc(cap);
		struct uroce_erf again;
		FUZZ_CHECK(buf);
		ssize_t n = uroce_erf_encode(rec, p + rec->payload_off, rec->payload_len, buf, cap);
		if (cap - UROCE_ERF_ALIGN > 0xFFF8) {
			/* Rounded up to 8, the record would not fit in rlen. */
			FUZZ_CHECK(n == UROCE_EINVAL);
			free(buf);
			dissect_payload(rec, p);
			return;
		}
		FUZZ_CHECK(n >= (ssize_t)(UROCE_ERF_HDR_LEN + pad + rec->payload_len));
		FUZZ_CHECK(n % UROCE_ERF_ALIGN == 0 && (size_t)n < cap);
		FUZZ_CHECK(uroce_erf_decode(&again, buf, (size_t)n) == n);
		FUZZ_CHECK(again.ts == rec->ts && again.type == rec->type && !again.ext);
		FUZZ_CHECK(again.flags == rec->flags && again.lctr == rec->lctr);
		FUZZ_CHECK(again.wlen == rec->wlen && again.link == rec->link);
		FUZZ_CHECK(again.payload_off == UROCE_ERF_HDR_LEN + pad);
		/* The record padding counts as packet bytes when wlen claims more than the
		 * original record held; it must be zeros. */
		FUZZ_CHECK(again.payload_len >= rec->payload_len);
		FUZZ_CHECK(memcmp(buf + again.payload_off, p + rec->payload_off, rec->payload_len) == 0);
		for (size_t i = again.payload_off + rec->payload_len; i < (size_t)n; i++)
			FUZZ_CHECK(buf[i] == 0);
		free(buf);
	}
	dissect_payload(rec, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		struct uroce_erf rec, snap;
		const uint8_t *p = data + off;
		size_t left = size - off;
		ssize_t n = uroce_erf_decode(&rec, p, left);
		ssize_t m = uroce_erf_decode_snap(&snap, p, left);

		if (n >= 0) {
			/* A whole record: both decoders agree. */
			FUZZ_CHECK(n == rec.rlen && (size_t)n <= left && !rec.snapped);
			FUZZ_CHECK(m == n);
			same_record(&rec, &snap);
			check_record(&rec, p, (size_t)n);
			off += (size_t)n;
			continue;
		}
		FUZZ_CHECK(n == UROCE_ETRUNC || n == UROCE_EBADLEN);
		if (n == UROCE_EBADLEN)
			FUZZ_CHECK(m == UROCE_EBADLEN);
		if (m >= 0) {
			/* Only a record cut by the end of the buffer decodes snapped. */
			FUZZ_CHECK(n == UROCE_ETRUNC && snap.snapped && (size_t)m == left);
			FUZZ_CHECK((size_t)m < snap.rlen);
			check_record(&snap, p, (size_t)m);
		}
		break;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The ERF decoder and encoder: the 43 records of the native InfiniBand sample in its raw .erf
 * and pcap (DLT_ERF) forms, every truncated prefix, malformed headers, and round trips. The
 * tests that need ../shared are skipped when it is absent. */
#include "testutil.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "wire/bytes.h"
#include "wire/erf.h"

#define IB_NATIVE_RECORDS 43

struct file_buf {
	uint8_t *data;
	size_t len;
};

static int read_file(const char *path, struct file_buf *fb)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -1;
	}
	fb->len = (size_t)size;
	fb->data = malloc(fb->len);
	if (!fb->data || fread(fb->data, 1, fb->len, f) != fb->len) {
		free(fb->data);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* The raw sample file, or skip the test. */
static void load_raw_erf(struct file_buf *fb)
{
	char path[4200];
	const char *dir = test_captures_dir();

	if (!dir)
		skip();
	snprintf(path, sizeof(path), "%s/ib-native.erf", dir);
	assert_int_equal(read_file(path, fb), 0);
}

/* A copy of p[0..len) in a block of exactly len bytes, so ASan sees any read past it. */
static uint8_t *exact_copy(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	assert_non_null(q);
	if (len)
		memcpy(q, p, len);
	return q;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void test_raw_file(void **state)
{
	(void)state;
	struct file_buf fb;
	size_t pos = 0, n = 0;

	load_raw_erf(&fb);
	while (pos < fb.len) {
		struct uroce_erf erf;
		ssize_t r = uroce_erf_decode(&erf, fb.data + pos, fb.len - pos);
		assert_true(r > 0);
		n++;
		assert_int_equal(r, erf.rlen);
		assert_int_equal(erf.type, UROCE_ERF_TYPE_INFINIBAND);
		assert_int_equal(erf.link, UROCE_ERF_LINK_IB);
		assert_false(erf.ext);
		assert_int_equal(erf.n_ext, 0);
		assert_true(erf.flags & UROCE_ERF_FLAG_VLEN);
		assert_int_equal(erf.flags & ~(UROCE_ERF_FLAG_VLEN | UROCE_ERF_FLAG_IFACE), 0);
		assert_int_equal(erf.lctr, 0);
		assert_false(erf.snapped);
		/* Payload = the whole IB packet (wlen), the record padded with zeros to 8 bytes. */
		assert_int_equal(erf.payload_off, UROCE_ERF_HDR_LEN);
		assert_int_equal(erf.payload_len, erf.wlen);
		assert_int_equal(erf.rlen, round8(UROCE_ERF_HDR_LEN + erf.wlen));
		for (size_t i = erf.payload_off + erf.payload_len; i < erf.rlen; i++)
			assert_int_equal(fb.data[pos + i], 0);
		/* wlen = LRH.PktLen x 4 (LRH..ICRC) + the 2-byte VCRC. */
		const uint8_t *lrh = fb.data + pos + erf.payload_off;
		assert_int_equal((get_be16(lrh + 4) & 0x7FF) * 4 + 2, erf.wlen);
		/* Timestamps as tshark prints them (frame.time_epoch). */
		if (n == 1) {
			assert_int_equal(erf.ts, 0x482B41EF7FEBEA60ull);
			assert_int_equal(erf.ts_ns, 1210794479499693535ull);
			assert_int_equal(erf.rlen, 312);
			assert_int_equal(erf.wlen, 290);
			assert_int_equal(erf.flags, 0x05);
		} else if (n == 2) {
			assert_int_equal(erf.ts_ns, 1210794479499762550ull); /* rounded up */
		} else if (n == IB_NATIVE_RECORDS) {
			assert_int_equal(erf.ts_ns, 1210794730073083229ull);
		}
		pos += (size_t)r;
	}
	assert_int_equal(pos, fb.len);
	assert_int_equal(n, IB_NATIVE_RECORDS);
	free(fb.data);
}

/* The pcap form holds the same records, each cut at 16 + wlen (before rlen): the strict decoder
 * refuses them, the snapped one gives the same fields and packet bytes. */
static void test_pcap_matches_raw(void **state)
{
	(void)state;
	struct file_buf fb;
	char path[4200], err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t pos = 0, n = 0;

	load_raw_erf(&fb);
	snprintf(path, sizeof(path), "%s/ib-native-erf.pcap", test_captures_dir());
	pcap_t *pc = pcap_open_offline(path, err);
	assert_non_null(pc);
	assert_int_equal(pcap_datalink(pc), DLT_ERF);
	while (pcap_next_ex(pc, &h, &data) == 1) {
		struct uroce_erf a, b;
		assert_true(pos < fb.len);
		ssize_t ra = uroce_erf_decode(&a, fb.data + pos, fb.len - pos);
		assert_true(ra > 0);
		n++;

		uint8_t *rec = exact_copy(data, h->caplen);
		assert_int_equal(uroce_erf_decode(&b, rec, h->caplen), UROCE_ETRUNC);
		ssize_t rb = uroce_erf_decode_snap(&b, rec, h->caplen);
		assert_int_equal(rb, h->caplen);
		assert_true(b.snapped);
		assert_int_equal(h->caplen, UROCE_ERF_HDR_LEN + b.wlen);
		assert_int_equal(b.ts, a.ts);
		assert_int_equal(b.type, a.type);
		assert_int_equal(b.flags, a.flags);
		assert_int_equal(b.rlen, a.rlen);
		assert_int_equal(b.lctr, a.lctr);
		assert_int_equal(b.wlen, a.wlen);
		assert_int_equal(b.link, a.link);
		assert_int_equal(b.payload_off, a.payload_off);
		assert_int_equal(b.payload_len, a.payload_len);
		assert_memory_equal(rec + b.payload_off, fb.data + pos + a.payload_off,
				    a.payload_len);
		/* The pcap record time is the ERF time in microseconds (within rounding). */
		uint64_t pcap_us = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
		uint64_t erf_us = a.ts_ns / 1000u;
		assert_true(pcap_us + 1 >= erf_us && pcap_us <= erf_us + 1);
		free(rec);
		pos += (size_t)ra;
	}
	pcap_close(pc);
	assert_int_equal(n, IB_NATIVE_RECORDS);
	assert_int_equal(pos, fb.len);
	free(fb.data);
}

/* Every prefix of every record: the strict decoder fails cleanly; the snapped one fails until
 * the header is complete, then reports exactly the bytes present. Each prefix sits in a block
 * of its own size, so the sanitizer build catches any read past it. */
static void check_prefixes(const uint8_t *rec, size_t rlen)
{
	struct uroce_erf full, erf;
	assert_int_equal(uroce_erf_decode(&full, rec, rlen), (ssize_t)rlen);

	for (size_t len = 0; len < rlen; len++) {
		uint8_t *p = exact_copy(rec, len);
		assert_int_equal(uroce_erf_decode(&erf, p, len), UROCE_ETRUNC);
		ssize_t r = uroce_erf_decode_snap(&erf, p, len);
		if (len < full.payload_off) {
			assert_int_equal(r, UROCE_ETRUNC);
		} else {
			size_t avail = len - full.payload_off;
			assert_int_equal(r, (ssize_t)len);
			assert_true(erf.snapped);
			assert_int_equal(erf.payload_off, full.payload_off);
			assert_int_equal(erf.n_ext, full.n_ext);
			if (full.link == UROCE_ERF_LINK_UNSUPPORTED || avail < full.wlen)
				assert_int_equal(erf.payload_len, avail);
			else
				assert_int_equal(erf.payload_len, full.wlen);
		}
		free(p);
	}
	/* A longer buffer (the next record follows) still consumes exactly rlen. */
	uint8_t *p = malloc(rlen + 64);
	assert_non_null(p);
	memcpy(p, rec, rlen);
	memset(p + rlen, 0xA5, 64);
	assert_int_equal(uroce_erf_decode(&erf, p, rlen + 64), (ssize_t)rlen);
	assert_int_equal(uroce_erf_decode_snap(&erf, p, rlen + 64), (ssize_t)rlen);
	assert_false(erf.snapped);
	assert_int_equal(erf.payload_len, full.payload_len);
	free(p);
}

static void test_truncation_raw_file(void **state)
{
	(void)state;
	struct file_buf fb;
	struct uroce_erf erf;

	load_raw_erf(&fb);
	for (size_t pos = 0; pos < fb.len;) {
		ssize_t r = uroce_erf_decode(&erf, fb.data + pos, fb.len - pos);
		assert_true(r > 0);
		check_prefixes(fb.data + pos, (size_t)r);
		pos += (size_t)r;
	}
	free(fb.data);
}

/* A hand-made record: type 2 with two extension headers, then the 2-byte pad and a frame. */
static size_t make_eth_ext_record(uint8_t *rec, size_t frame_len, uint16_t wlen)
{
	size_t rlen = round8(16 + 16 + 2 + frame_len);
	memset(rec, 0, rlen);
	put_le32(rec, 0x80000000u); /* half a second */
	put_le32(rec + 4, 1700000000u);
	rec[8] = UROCE_ERF_TYPE_EXT | UROCE_ERF_TYPE_ETH;
	rec[9] = UROCE_ERF_FLAG_VLEN | 2;
	put_be16(rec + 10, (uint16_t)rlen);
	put_be16(rec + 12, 7);
	put_be16(rec + 14, wlen);
	rec[16] = 0x80 | 0x05; /* another extension header follows */
	rec[24] = 0x0E;        /* the last one */
	rec[32] = 0xEE;        /* the ETH offset/pad bytes: ignored */
	rec[33] = 0xEE;
	for (size_t i = 0; i < frame_len; i++)
		rec[34 + i] = (uint8_t)i;
	return rlen;
}

static void test_extension_headers(void **state)
{
	(void)state;
	uint8_t rec[256];
	struct uroce_erf erf;

	/* wlen 64 = a 60-byte frame + FCS not captured: payload is what the record holds. */
	size_t rlen = make_eth_ext_record(rec, 60, 64);
	assert_int_equal(uroce_erf_decode(&erf, rec, rlen), (ssize_t)rlen);
	assert_int_equal(erf.type, UROCE_ERF_TYPE_ETH);
	assert_true(erf.ext);
	assert_int_equal(erf.n_ext, 2);
	assert_int_equal(erf.link, UROCE_ERF_LINK_ETH);
	assert_int_equal(erf.payload_off, 16 + 16 + 2);
	assert_int_equal(erf.payload_len, rlen - 34); /* 60 + 2 bytes of record padding */
	assert_int_equal(erf.flags & UROCE_ERF_FLAG_IFACE, 2);
	assert_int_equal(erf.lctr, 7);
	assert_int_equal(erf.ts_ns, 1700000000500000000ull);
	assert_int_equal(rec[erf.payload_off + 59], 59);
	check_prefixes(rec, rlen);

	/* wlen smaller than the bytes present: the rest is padding. */
	rlen = make_eth_ext_record(rec, 60, 60);
	assert_int_equal(uroce_erf_decode(&erf, rec, rlen), (ssize_t)rlen);
	assert_int_equal(erf.payload_len, 60);
	check_prefixes(rec, rlen);
}

static void test_malformed(void **state)
{
	(void)state;
	uint8_t rec[64] = {0};
	struct uroce_erf erf;

	assert_int_equal(uroce_erf_decode(NULL, rec, sizeof(rec)), UROCE_EINVAL);
	assert_int_equal(uroce_erf_decode(&erf, NULL, 0), UROCE_EINVAL);
	assert_int_equal(uroce_erf_decode_snap(NULL, rec, sizeof(rec)), UROCE_EINVAL);

	/* rlen below the fixed header. */
	memset(rec, 0, sizeof(rec));
	rec[8] = UROCE_ERF_TYPE_INFINIBAND;
	for (uint16_t rlen = 0; rlen < 16; rlen++) {
		put_be16(rec + 10, rlen);
		assert_int_equal(uroce_erf_decode(&erf, rec, sizeof(rec)), UROCE_EBADLEN);
		assert_int_equal(uroce_erf_decode_snap(&erf, rec, sizeof(rec)), UROCE_EBADLEN);
	}

	/* Extension headers that run past rlen: an endless chain, and one header too many. */
	memset(rec, 0x80, sizeof(rec));
	rec[8] = UROCE_ERF_TYPE_EXT | UROCE_ERF_TYPE_INFINIBAND;
	put_be16(rec + 10, 64);
	assert_int_equal(uroce_erf_decode(&erf, rec, sizeof(rec)), UROCE_EBADLEN);
	assert_int_equal(uroce_erf_decode_snap(&erf, rec, sizeof(rec)), UROCE_EBADLEN);
	put_be16(rec + 10, 20);
	assert_int_equal(uroce_erf_decode(&erf, rec, sizeof(rec)), UROCE_EBADLEN);
	/* ... but the snapped decoder says TRUNC when the buffer ends first. */
	put_be16(rec + 10, 64);
	assert_int_equal(uroce_erf_decode_snap(&erf, rec, 40), UROCE_ETRUNC);

	/* ETH records too short for the 2-byte pad. */
	memset(rec, 0, sizeof(rec));
	rec[8] = UROCE_ERF_TYPE_ETH;
	put_be16(rec + 10, 17);
	assert_int_equal(uroce_erf_decode(&erf, rec, sizeof(rec)), UROCE_EBADLEN);
	put_be16(rec + 10, 18);
	assert_int_equal(uroce_erf_decode(&erf, rec, sizeof(rec)), 18);
	assert_int_equal(erf.payload_len, 0);

	/* An empty IB record is well formed. */
	rec[8] = UROCE_ERF_TYPE_INFINIBAND;
	put_be16(rec + 10, 16);
	assert_int_equal(uroce_erf_decode(&erf, rec, 16), 16);
	assert_int_equal(erf.payload_off, 16);
	assert_int_equal(erf.payload_len, 0);
}

/* Other types are decoded and flagged, not refused. */
static void test_unsupported_type(void **state)
{
	(void)state;
	uint8_t rec[48] = {0};
	struct uroce_erf erf;

	rec[8] = 22; /* IPV4 */
	put_be16(rec + 10, sizeof(rec));
	put_be16(rec + 14, 20);
	assert_int_equal(uroce_erf_decode(&erf, rec, sizeof(rec)), (ssize_t)sizeof(rec));
	assert_int_equal(erf.type, 22);
	assert_int_equal(erf.link, UROCE_ERF_LINK_UNSUPPORTED);
	assert_int_equal(erf.payload_off, 16);
	assert_int_equal(erf.payload_len, sizeof(rec) - 16);
	check_prefixes(rec, sizeof(rec));
}

/* Re-encoding every record of the sample from its decoded fields gives the same bytes. */
static void test_encode_raw_file(void **state)
{
	(void)state;
	struct file_buf fb;
	uint8_t out[2048];

	load_raw_erf(&fb);
	for (size_t pos = 0; pos < fb.len;) {
		struct uroce_erf erf;
		ssize_t r = uroce_erf_decode(&erf, fb.data + pos, fb.len - pos);
		assert_true(r > 0);
		const uint8_t *pkt = fb.data + pos + erf.payload_off;
		ssize_t w = uroce_erf_encode(&erf, pkt, erf.payload_len, out, sizeof(out));
		assert_int_equal(w, r);
		assert_memory_equal(out, fb.data + pos, (size_t)r);
		/* Too small a buffer: refused whole. */
		for (size_t cap = 0; cap < (size_t)r; cap += 7)
			assert_int_equal(uroce_erf_encode(&erf, pkt, erf.payload_len, out, cap),
					 UROCE_ENOSPACE);
		pos += (size_t)r;
	}
	free(fb.data);
}

static void test_encode_round_trip(void **state)
{
	(void)state;
	static uint8_t pkt[4200], out[4300];

	for (int i = 0; i < 2000; i++) {
		struct uroce_erf in = {0}, erf;
		size_t len = (size_t)(test_rand() % sizeof(pkt));
		for (size_t k = 0; k < len; k++)
			pkt[k] = (uint8_t)test_rand();
		in.type = (i & 1) ? UROCE_ERF_TYPE_ETH : UROCE_ERF_TYPE_INFINIBAND;
		in.flags = (uint8_t)(UROCE_ERF_FLAG_VLEN | (i & 3));
		in.lctr = (uint16_t)i;
		in.wlen = (uint16_t)(len + (i & 1 ? 4 : 0)); /* ETH: FCS not captured */
		in.ts = uroce_erf_ts_from_ns(test_rand() % (4000000000ull * 1000000000ull));

		ssize_t w = uroce_erf_encode(&in, pkt, len, out, sizeof(out));
		assert_true(w > 0);
		assert_int_equal(w % UROCE_ERF_ALIGN, 0);
		uint8_t *rec = exact_copy(out, (size_t)w);
		assert_int_equal(uroce_erf_decode(&erf, rec, (size_t)w), w);
		assert_int_equal(erf.ts, in.ts);
		assert_int_equal(erf.ts_ns, uroce_erf_ts_to_ns(in.ts));
		assert_int_equal(erf.type, in.type);
		assert_int_equal(erf.flags, in.flags);
		assert_int_equal(erf.lctr, in.lctr);
		assert_int_equal(erf.wlen, in.wlen);
		assert_int_equal(erf.link, (i & 1) ? UROCE_ERF_LINK_ETH : UROCE_ERF_LINK_IB);
		/* ETH with wlen = len + 4: the payload may include up to 4 bytes of padding. */
		size_t want = (i & 1) ? len + 4 : len;
		size_t avail = (size_t)w - erf.payload_off;
		assert_int_equal(erf.payload_len, want < avail ? want : avail);
		assert_memory_equal(rec + erf.payload_off, pkt, len);
		free(rec);
	}
}

static void test_encode_errors(void **state)
{
	(void)state;
	uint8_t pkt[8] = {0}, out[64];
	struct uroce_erf in = {.type = UROCE_ERF_TYPE_INFINIBAND, .wlen = 8};

	assert_int_equal(uroce_erf_encode(&in, pkt, 8, out, sizeof(out)), 24);
	assert_int_equal(uroce_erf_encode(NULL, pkt, 8, out, sizeof(out)), UROCE_EINVAL);
	assert_int_equal(uroce_erf_encode(&in, NULL, 8, out, sizeof(out)), UROCE_EINVAL);
	assert_int_equal(uroce_erf_encode(&in, pkt, 8, NULL, sizeof(out)), UROCE_EINVAL);
	assert_int_equal(uroce_erf_encode(&in, pkt, 9, out, sizeof(out)), UROCE_EINVAL); /* wlen */
	in.type = 3;
	assert_int_equal(uroce_erf_encode(&in, pkt, 8, out, sizeof(out)), UROCE_EINVAL);
	in.type = UROCE_ERF_TYPE_INFINIBAND;
	in.ext = true;
	assert_int_equal(uroce_erf_encode(&in, pkt, 8, out, sizeof(out)), UROCE_EINVAL);
	in.ext = false;
	in.n_ext = 1;
	assert_int_equal(uroce_erf_encode(&in, pkt, 8, out, sizeof(out)), UROCE_EINVAL);
	in.n_ext = 0;
	assert_int_equal(uroce_erf_encode(&in, pkt, 8, out, 23), UROCE_ENOSPACE);
	/* The largest record: rlen must fit 16 bits after padding to 8. */
	static uint8_t big[65536], big_out[65536];
	in.wlen = UINT16_MAX;
	assert_int_equal(uroce_erf_encode(&in, big, 65535 - 16 - 7, big_out, sizeof(big_out)),
			 65528);
	assert_int_equal(uroce_erf_encode(&in, big, 65535 - 16 - 6, big_out, sizeof(big_out)),
			 UROCE_EINVAL);
	/* An empty packet still makes a record. */
	in.wlen = 0;
	assert_int_equal(uroce_erf_encode(&in, NULL, 0, out, sizeof(out)), 16);
}

static void test_timestamps(void **state)
{
	(void)state;
	assert_int_equal(uroce_erf_ts_to_ns(0), 0);
	assert_int_equal(uroce_erf_ts_to_ns(1ull << 32), 1000000000ull);
	assert_int_equal(uroce_erf_ts_to_ns(0x80000000ull), 500000000ull);
	/* The largest fraction rounds up into the next second. */
	assert_int_equal(uroce_erf_ts_to_ns(0xFFFFFFFFull), 1000000000ull);
	assert_int_equal(uroce_erf_ts_from_ns(999999999ull), 0xFFFFFFFCull);
	assert_int_equal(uroce_erf_ts_from_ns(1500000000ull), (1ull << 32) | 0x80000000ull);
	for (int i = 0; i < 100000; i++) {
		uint64_t ns = test_rand() % (((1ull << 32) - 1) * 1000000000ull);
		assert_int_equal(uroce_erf_ts_to_ns(uroce_erf_ts_from_ns(ns)), ns);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_file),
		cmocka_unit_test(test_pcap_matches_raw),
		cmocka_unit_test(test_truncation_raw_file),
		cmocka_unit_test(test_extension_headers),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_unsupported_type),
		cmocka_unit_test(test_encode_raw_file),
		cmocka_unit_test(test_encode_round_trip),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_timestamps),
	};
	return cmocka_run_group_tests_name("erf", tests, NULL, NULL);
}

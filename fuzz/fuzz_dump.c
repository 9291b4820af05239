/* SPDX-License-Identifier: MIT */
/* uroce-dump end to end, minus the capture reader: a few frames go through the tool's
 * dissection and every output mode (one line, -V, JSON, -T fields with every field under two
 * sets of -E options) into /dev/null, and all of them through one --flows analysis, printed
 * as text and as JSON, with its time series (--series, a 10 us step) written as CSV. Several frames per input let the fuzzer reach the per-QP state of the
 * flow analysis (PSN tracking, retransmissions, READ matching), not only one packet's view.
 *
 * Input: records of
 *   1 byte   flags: bits 1..0 link (0 Ethernet, 1 InfiniBand from the LRH, 2 raw IP,
 *            3 Ethernet), bit 2 the frame is not decodable (an "undecoded" note instead),
 *            bits 7..3 time since the previous frame in microseconds
 *   2 bytes  captured length, big-endian (cut to what remains)
 *   2 bytes  wire length minus captured length, big-endian (a snapped frame)
 *   the captured bytes
 * Each frame is copied into a buffer of exactly its length so that ASan sees any read past it.
 * fuzz/make_corpus.c writes seeds in this format from the captures. */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "dissect.h"
#include "fields.h"
#include "flows.h"
#include "output.h"
#include "wire/bytes.h"

#define MAX_FRAMES 16
#define REC_HDR 5

int LLVMFuzzerInitialize(int *argc, char ***argv);

static FILE *devnull;
static struct fields_out all_fields, all_fields_alt;

static int add_group(void *ctx, const struct dump_field_group *g)
{
	(void)ctx;
	for (size_t i = 0; i < g->count; i++) {
		FUZZ_CHECK(fields_out_add(&all_fields, g->fields[i].name) == 0);
		FUZZ_CHECK(fields_out_add(&all_fields_alt, g->fields[i].name) == 0);
		FUZZ_CHECK(dump_field_find(g->fields[i].name) != NULL);
	}
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const alt_opts[] = {"header=y", "occurrence=l", "aggregator=;",
					       "quote=d", "separator=,"};
	char err[256];

	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(devnull);
	fields_out_init(&all_fields);
	fields_out_init(&all_fields_alt);
	for (size_t i = 0; i < sizeof(alt_opts) / sizeof(alt_opts[0]); i++)
		FUZZ_CHECK(fields_out_option(&all_fields_alt, alt_opts[i], err, sizeof(err)) == 0);
	dump_field_each_group(add_group, NULL);
	return 0;
}

/* What dump_dissect reports must agree with the wire dissector and with itself. */
static void check_dump_pkt(const struct dump_pkt *d, const struct dump_frame *f)
{
	FUZZ_CHECK(d->frame == f);
	/* An error makes the packet malformed, except a frame the capture's snap length cut
	 * (dissect.c: the sender did nothing wrong). */
	if (!f->undecoded && d->pkt.err == UROCE_ETRUNC && f->caplen < f->wirelen)
		FUZZ_CHECK(!d->malformed && d->err == UROCE_ETRUNC);
	else
		FUZZ_CHECK(d->malformed == (d->err != 0));
	FUZZ_CHECK((d->err != 0) == (d->err_where != NULL));
	if (f->undecoded) {
		FUZZ_CHECK(d->pkt.layers == 0 && !d->has_mgmt && !d->has_ipoib);
		return;
	}

	struct uroce_pkt ref;
	int rc = fuzz_dissect(&ref, f->link, f->data, f->caplen);
	FUZZ_CHECK(d->pkt.layers == ref.layers && d->pkt.err == rc && d->pkt.encap == ref.encap);
	FUZZ_CHECK(d->icrc_status == uroce_pkt_icrc_check(&ref, NULL));
	FUZZ_CHECK(d->vcrc_status == uroce_pkt_vcrc_check(&ref, NULL));
	if (rc < 0)
		FUZZ_CHECK(d->err == rc);
	if (d->has_mgmt)
		FUZZ_CHECK((ref.layers & UROCE_L_EXT) && ref.bth.destqp <= 1);
	if (d->has_ipoib)
		FUZZ_CHECK(ref.encap == UROCE_ENCAP_IB && (ref.layers & UROCE_L_EXT));
	FUZZ_CHECK(!(d->has_mgmt && d->has_ipoib));
}

static void print_all(const struct dump_pkt *d, uint64_t t0)
{
	struct outbuf ob;

	ob_init(&ob, devnull);
	print_line(&ob, d, t0);
	print_verbose(devnull, d);
	print_json(devnull, d);
	fields_out_packet(&ob, &all_fields, d);
	fields_out_packet(&ob, &all_fields_alt, d);
	ob_flush(&ob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum uroce_link links[4] = {UROCE_LINK_ETHERNET, UROCE_LINK_IB, UROCE_LINK_IP,
						 UROCE_LINK_ETHERNET};
	struct flows *flows = flows_new();
	uint64_t ts = 1700000000ull * 1000000000u, t0 = ts;
	size_t off = 0;

	FUZZ_CHECK(flows);
	FUZZ_CHECK(flows_series_enable(flows, 10000) == 0);
	fields_out_header(devnull, &all_fields);
	fields_out_header(devnull, &all_fields_alt);
	for (unsigned n = 1; n <= MAX_FRAMES && off + REC_HDR <= size; n++) {
		uint8_t flags = data[off];
		size_t caplen = get_be16(data + off + 1), extra = get_be16(data + off + 3);
		off += REC_HDR;
		if (caplen > size - off)
			caplen = size - off;

		uint8_t *bytes = malloc(caplen ? caplen : 1);
		FUZZ_CHECK(bytes);
		memcpy(bytes, data + off, caplen);
		off += caplen;
		ts += (uint64_t)(flags >> 3) * 1000;

		struct dump_frame f = {
			.number = n, .ts_ns = ts, .caplen = (uint32_t)caplen,
			.wirelen = (uint32_t)(caplen + extra), .link = links[flags & 3],
			.data = bytes,
			.undecoded = (flags & 4) ? "fuzzed undecodable record" : NULL,
		};
		struct dump_pkt d;
		dump_dissect(&d, &f);
		check_dump_pkt(&d, &f);
		print_all(&d, t0);
		flows_add(flows, &d);
		free(bytes);
	}
	FUZZ_CHECK(flows_print(flows, devnull, false) == 0);
	FUZZ_CHECK(flows_print(flows, devnull, true) == 0);
	struct flows_series_block *blocks;
	FUZZ_CHECK(flows_series_csv(flows, devnull, &blocks) >= 0);
	free(blocks);
	flows_free(flows);
	return 0;
}

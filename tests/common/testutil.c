/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "wire/erf.h"

const char *test_captures_dir(void)
{
	static char path[4096];
	const char *shared = getenv("UROCE_SHARED");
	struct stat st;

	if (!shared)
		shared = "../shared";
	snprintf(path, sizeof(path), "%s/testdata/captures", shared);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

/* Where the packet of an ERF record starts: type 21 carries an InfiniBand packet at the LRH,
 * type 2 an Ethernet frame after 2 bytes of padding; other types are skipped (-1). pcap
 * DLT_ERF records may be cut before rlen (caplen < rlen), so the snapped decoder is used. */
static int erf_payload(const uint8_t *p, size_t len, enum uroce_link *link, size_t *off,
		       size_t *plen)
{
	struct uroce_erf erf;

	if (uroce_erf_decode_snap(&erf, p, len) < 0)
		return -1;
	switch (erf.link) {
	case UROCE_ERF_LINK_IB:
		*link = UROCE_LINK_IB;
		break;
	case UROCE_ERF_LINK_ETH:
		*link = UROCE_LINK_ETHERNET;
		break;
	default:
		return -1;
	}
	*off = erf.payload_off;
	*plen = erf.payload_len;
	return 0;
}

/* A raw .erf file (which libpcap cannot open): the whole file must be a sequence of complete
 * records, checked before fn sees any of them; returns -1 otherwise (or for an empty file). */
static long each_erf_file_record(const char *path, test_frame_fn fn, void *ctx)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	long n = -1;

	if (!f)
		return -1;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 1 << 16;
			uint8_t *nbuf = realloc(buf, ncap);
			if (!nbuf)
				goto out;
			buf = nbuf;
			cap = ncap;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f) || len == 0)
		goto out;
	for (size_t pos = 0; pos < len;) { /* validate the whole file first */
		struct uroce_erf erf;
		ssize_t r = uroce_erf_decode(&erf, buf + pos, len - pos);
		if (r < 0)
			goto out;
		pos += (size_t)r;
	}
	n = 0;
	for (size_t pos = 0; pos < len;) {
		struct uroce_erf erf;
		ssize_t r = uroce_erf_decode(&erf, buf + pos, len - pos);
		enum uroce_link link;
		n++;
		if (erf.link == UROCE_ERF_LINK_IB || erf.link == UROCE_ERF_LINK_ETH) {
			link = erf.link == UROCE_ERF_LINK_IB ? UROCE_LINK_IB : UROCE_LINK_ETHERNET;
			fn(ctx, (size_t)n, link, buf + pos + erf.payload_off, erf.payload_len);
		}
		pos += (size_t)r;
	}
out:
	free(buf);
	fclose(f);
	return n;
}

long test_each_frame(const char *path, test_frame_fn fn, void *ctx)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	long n = 0;

	if (!pc)
		return each_erf_file_record(path, fn, ctx);
	int dlt = pcap_datalink(pc);
	while (pcap_next_ex(pc, &h, &data) == 1) {
		enum uroce_link link = UROCE_LINK_ETHERNET;
		size_t off = 0, plen = h->caplen;
		n++;
		if (dlt == DLT_ERF && erf_payload(data, h->caplen, &link, &off, &plen) < 0)
			continue;
		fn(ctx, (size_t)n, link, data + off, plen);
	}
	pcap_close(pc);
	return n;
}

uint64_t test_rand(void)
{
	static uint64_t s = 0x9E3779B97F4A7C15ull;
	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return s * 0x2545F4914F6CDD1Dull;
}

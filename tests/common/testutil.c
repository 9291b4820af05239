/* SPDX-License-Identifier: MIT */
#include "testutil.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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

/* ERF records inside pcap link type 197 (DLT_ERF): a 16-byte header, type 21 carries an
 * InfiniBand packet starting at the LRH, type 2 an Ethernet frame after 2 bytes of padding. */
static int erf_payload(const uint8_t *p, size_t len, enum uroce_link *link, size_t *off)
{
	if (len < 16)
		return -1;
	uint8_t type = p[8] & 0x7F;
	size_t hdr = 16;
	for (uint8_t t = p[8]; (t & 0x80) && hdr + 8 <= len; t = p[hdr]) /* extension headers */
		hdr += 8;
	if (type == 21) {
		*link = UROCE_LINK_IB;
		*off = hdr;
		return 0;
	}
	if (type == 2) {
		*link = UROCE_LINK_ETHERNET;
		*off = hdr + 2;
		return 0;
	}
	return -1;
}

long test_each_frame(const char *path, test_frame_fn fn, void *ctx)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	long n = 0;

	if (!pc)
		return -1;
	int dlt = pcap_datalink(pc);
	while (pcap_next_ex(pc, &h, &data) == 1) {
		enum uroce_link link = UROCE_LINK_ETHERNET;
		size_t off = 0;
		n++;
		if (dlt == DLT_ERF && erf_payload(data, h->caplen, &link, &off) < 0)
			continue;
		if (off > h->caplen)
			continue;
		fn(ctx, (size_t)n, link, data + off, h->caplen - off);
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

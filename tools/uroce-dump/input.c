/* SPDX-License-Identifier: MIT */
#include "input.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <pcap/sll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common/error.h"
#include "names.h"
#include "wire/bytes.h"
#include "wire/erf.h"

#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

#define SNAPLEN 262144        /* whole jumbo frames, as tcpdump takes them */
#define LIVE_TIMEOUT_MS 100   /* how often a quiet live capture looks at the stop flag */
/* Enough for any file magic and the start of an ERF record up to its packet: the header,
 * four extension headers and the Ethernet pad. */
#define PEEK_LEN 64
#define ERF_MAX_RECORD 65535  /* rlen is 16 bits */
#define NS_PER_S 1000000000ull
/* The stdio buffer of a file libpcap reads (pcapng, standard input; see map_open for the
 * others): with the default 8 KiB, a large capture took one read(2) per few dozen packets. */
#define FILE_BUF_SIZE (256 * 1024)
/* The classic pcap format (libpcap's savefile.c, sf-pcap.c). */
#define PCAP_MAGIC_US 0xA1B2C3D4u
#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16

/* ERF record types carrying a raw IP packet (no Ethernet header). */
#define ERF_TYPE_IPV4 22
#define ERF_TYPE_IPV6 23

struct dump_input {
	pcap_t *pc;               /* pcap/pcapng file or live capture; NULL for a raw ERF file */
	char *file_buf;           /* the stdio buffer of pc's file, freed after pc is closed */
	int dlt;
	enum uroce_link link;     /* dlt_table's entry for dlt, looked up once */
	unsigned link_hdr;
	bool nano;                /* pcap timestamps in ns (else us) */
	FILE *erf;                /* raw ERF file */
	uint8_t peek[PEEK_LEN];   /* the bytes read to recognise the file */
	size_t peek_len;
	size_t peek_pos;          /* how many of them the ERF reader has taken */
	pcap_t *dead;             /* compiles the filter for a raw ERF file */
	struct bpf_program prog;
	bool have_prog;
	uint8_t *rec;             /* raw ERF: the current record */
	/* A pcap file read in place (see map_open): the whole file, and where the next record
	 * starts; map is NULL when libpcap reads the records. */
	uint8_t *map;             /* mapped read-only */
	size_t map_len, map_pos;
	bool map_nano;            /* the file's timestamps are in ns (else us) */
	uint32_t map_snaplen;
	struct pcap_pkthdr map_hdr; /* the record header as libpcap would fill it */
	uint64_t number;
	volatile sig_atomic_t stop;
	char note[96];
};

/* A FILE that gives back the bytes read to recognise the format, then the rest of the
 * underlying stream: standard input cannot be rewound, and libpcap must see the magic. */
struct replay {
	FILE *f;
	const uint8_t *head;
	size_t len, pos;
};

static ssize_t replay_read(void *cookie, char *buf, size_t size)
{
	struct replay *r = cookie;

	if (r->pos < r->len) {
		size_t n = r->len - r->pos < size ? r->len - r->pos : size;
		memcpy(buf, r->head + r->pos, n);
		r->pos += n;
		return (ssize_t)n;
	}
	size_t n = fread(buf, 1, size, r->f);
	return n == 0 && ferror(r->f) ? -1 : (ssize_t)n;
}

static int replay_close(void *cookie)
{
	struct replay *r = cookie;
	int rc = r->f == stdin ? 0 : fclose(r->f);

	free(r);
	return rc;
}

static FILE *replay_open(FILE *f, const uint8_t *head, size_t len)
{
	static const cookie_io_functions_t io = {.read = replay_read, .close = replay_close};
	struct replay *r = calloc(1, sizeof(*r));
	FILE *out;

	if (!r)
		return NULL;
	*r = (struct replay){.f = f, .head = head, .len = len};
	out = fopencookie(r, "r", io);
	if (!out)
		free(r);
	return out;
}

static bool is_pcap_magic(const uint8_t *p)
{
	static const uint32_t magics[] = {
		0xA1B2C3D4, 0xD4C3B2A1, /* pcap, microseconds */
		0xA1B23C4D, 0x4D3CB2A1, /* pcap, nanoseconds */
		0xA1B2CD34, 0x34CDB2A1, /* pcap with Kuznetzov's extended headers */
		0x0A0D0D0A,             /* pcapng Section Header Block */
	};
	uint32_t m = get_be32(p);

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (m == magics[i])
			return true;
	return false;
}

/* A raw ERF file has no header: accept it when the first record is one this tool dissects,
 * which rules out text and most other files. */
static bool looks_like_erf(const uint8_t *p, size_t len)
{
	struct uroce_erf e;

	if (len < UROCE_ERF_HDR_LEN || uroce_erf_decode_snap(&e, p, len) < 0)
		return false;
	return e.type == UROCE_ERF_TYPE_ETH || e.type == UROCE_ERF_TYPE_INFINIBAND ||
	       e.type == ERF_TYPE_IPV4 || e.type == ERF_TYPE_IPV6;
}

/* Where the wire dissector starts for a pcap link type. */
static const struct {
	int dlt;
	enum uroce_link link;
	unsigned hdr; /* bytes before it */
} dlt_table[] = {
	{DLT_EN10MB, UROCE_LINK_ETHERNET, 0},
	{DLT_INFINIBAND, UROCE_LINK_IB, 0},
	{DLT_RAW, UROCE_LINK_IP, 0},
	{DLT_IPV4, UROCE_LINK_IP, 0},
	{DLT_IPV6, UROCE_LINK_IP, 0},
	{DLT_LINUX_SLL, UROCE_LINK_IP, SLL_HDR_LEN},
	{DLT_LINUX_SLL2, UROCE_LINK_IP, SLL2_HDR_LEN},
	{DLT_ERF, UROCE_LINK_IB, 0}, /* per record: see erf_frame() */
};

static int dlt_index(int dlt)
{
	for (size_t i = 0; i < sizeof(dlt_table) / sizeof(dlt_table[0]); i++)
		if (dlt_table[i].dlt == dlt)
			return (int)i;
	return -1;
}

static int set_filter(struct dump_input *in, const char *filter, char *err, size_t errlen)
{
	pcap_t *pc = in->pc;

	if (!filter)
		return 0;
	if (!pc) /* a raw ERF file: its records are what DLT_ERF carries */
		pc = in->dead = pcap_open_dead(DLT_ERF, SNAPLEN);
	if (!pc || pcap_compile(pc, &in->prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errlen, "invalid filter '%s': %s", filter,
			 pc ? pcap_geterr(pc) : "out of memory");
		return -1;
	}
	in->have_prog = true;
	if (in->pc && pcap_setfilter(in->pc, &in->prog) < 0) {
		snprintf(err, errlen, "cannot apply filter '%s': %s", filter, pcap_geterr(in->pc));
		return -1;
	}
	return 0;
}

static int check_dlt(struct dump_input *in, const char *what, char *err, size_t errlen)
{
	in->dlt = pcap_datalink(in->pc);
	in->nano = pcap_get_tstamp_precision(in->pc) == PCAP_TSTAMP_PRECISION_NANO;
	int i = dlt_index(in->dlt);
	if (i >= 0) {
		in->link = dlt_table[i].link;
		in->link_hdr = dlt_table[i].hdr;
		return 0;
	}
	const char *name = pcap_datalink_val_to_name(in->dlt);
	snprintf(err, errlen, "%s: link type %d (%s) is not supported: uroce-dump reads Ethernet, "
		 "InfiniBand, ERF, raw IP and Linux cooked captures", what, in->dlt,
		 name ? name : "unknown");
	return -1;
}

/* ---- Pcap files read in place ----
 * libpcap reads a file with two freads per record, copying each through stdio: a fifth of
 * uroce-dump's time on a large capture. A regular file in the common form of the format
 * (version 2.4, in this host's byte order, no extended record headers) is mapped instead and
 * its records read where they lie. libpcap still opens it, and so checks the file header and
 * gives its link type and snap length. At the first record that is not plain (cut short,
 * longer than the snap length) libpcap takes over, so that such files get its own handling
 * and messages. */

static uint32_t host_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t host_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void map_close(struct dump_input *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	in->map = NULL;
}

/* Maps the pcap file f when it has the form the mapped reader takes; otherwise (or when the
 * mapping fails) libpcap reads it, with the same result. */
static void map_open(struct dump_input *in, FILE *f)
{
	uint32_t magic = host_u32(in->peek);
	struct stat st;
	void *m;

	if (f == stdin || in->peek_len < PCAP_FILE_HDR_LEN ||
	    (magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS) || host_u16(in->peek + 4) != 2 ||
	    host_u16(in->peek + 6) != 4 || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uintmax_t)st.st_size < PCAP_FILE_HDR_LEN || (uintmax_t)st.st_size > SIZE_MAX)
		return;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	if (m == MAP_FAILED)
		return;
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	in->map = m;
	in->map_len = (size_t)st.st_size;
	in->map_pos = PCAP_FILE_HDR_LEN;
	in->map_nano = magic == PCAP_MAGIC_NS;
	in->map_snaplen = (uint32_t)pcap_snapshot(in->pc);
}

/* libpcap takes over at the current record: it reads the records already delivered again
 * (its filter passes the same ones), then returns the next as pcap_next_ex does. */
static int map_hand_over(struct dump_input *in, struct pcap_pkthdr **h, const u_char **data)
{
	int rc = 1;

	map_close(in);
	for (uint64_t i = 0; i < in->number && rc == 1; i++)
		rc = pcap_next_ex(in->pc, h, data);
	return rc == 1 ? pcap_next_ex(in->pc, h, data) : rc;
}

/* The next record of a mapped file, with pcap_next_ex's results: 1 and the record in *h and
 * *data, PCAP_ERROR_BREAK at the end of the file; also 0 for a record the filter drops. */
static int map_next(struct dump_input *in, struct pcap_pkthdr **h, const u_char **data)
{
	const uint8_t *p = in->map + in->map_pos;
	size_t left = in->map_len - in->map_pos;
	uint32_t caplen;

	if (left == 0)
		return PCAP_ERROR_BREAK;
	if (left < PCAP_REC_HDR_LEN)
		return map_hand_over(in, h, data);
	caplen = host_u32(p + 8);
	if (caplen > in->map_snaplen || caplen > left - PCAP_REC_HDR_LEN)
		return map_hand_over(in, h, data);
	/* as libpcap fills it: the file's times are signed 32-bit, microseconds are scaled to
	 * the nanoseconds asked for */
	in->map_hdr.ts.tv_sec = (int32_t)host_u32(p);
	in->map_hdr.ts.tv_usec = (int32_t)host_u32(p + 4) * (in->map_nano ? 1L : 1000L);
	in->map_hdr.caplen = caplen;
	in->map_hdr.len = host_u32(p + 12);
	*h = &in->map_hdr;
	*data = p + PCAP_REC_HDR_LEN;
	in->map_pos += PCAP_REC_HDR_LEN + caplen;
	if (in->have_prog && !pcap_offline_filter(&in->prog, *h, *data))
		return 0;
	return 1;
}

struct dump_input *dump_input_open_file(const char *path, const char *filter, char *err,
					size_t errlen)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct dump_input *in = calloc(1, sizeof(*in));
	char perr[PCAP_ERRBUF_SIZE] = "";
	FILE *f = is_stdin ? stdin : fopen(path, "rb");

	if (!in || !f) {
		snprintf(err, errlen, "%s: %s", path, in ? strerror(errno) : "out of memory");
		goto fail_file;
	}
	in->peek_len = fread(in->peek, 1, PEEK_LEN, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail_file;
	}
	if (in->peek_len >= 4 && is_pcap_magic(in->peek)) {
		FILE *r = replay_open(f, in->peek, in->peek_len);
		if (!r) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto fail_file;
		}
		/* glibc takes a size only with a buffer; without one, stdio's default stays */
		in->file_buf = malloc(FILE_BUF_SIZE);
		if (in->file_buf)
			setvbuf(r, in->file_buf, _IOFBF, FILE_BUF_SIZE);
		/* libpcap owns r from here and closes it (and f) with the handle. */
		in->pc = pcap_fopen_offline_with_tstamp_precision(r, PCAP_TSTAMP_PRECISION_NANO, perr);
		if (!in->pc) {
			snprintf(err, errlen, "%s: %s", path, perr);
			fclose(r);
			goto fail;
		}
		if (check_dlt(in, path, err, errlen) < 0)
			goto fail;
	} else if (looks_like_erf(in->peek, in->peek_len)) {
		in->erf = f;
		in->rec = malloc(ERF_MAX_RECORD);
		if (!in->rec) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto fail;
		}
	} else {
		snprintf(err, errlen, "%s: %s", path,
			 in->peek_len ? "not a pcap, pcapng or ERF capture file"
				      : "empty file, not a capture");
		goto fail_file;
	}
	if (set_filter(in, filter, err, errlen) < 0)
		goto fail;
	if (in->pc)
		map_open(in, f);
	return in;

fail_file:
	if (f && f != stdin)
		fclose(f);
	free(in);
	return NULL;
fail:
	dump_input_close(in);
	return NULL;
}

struct dump_input *dump_input_open_live(const char *iface, const char *filter, char *err,
					size_t errlen)
{
	struct dump_input *in = calloc(1, sizeof(*in));
	char perr[PCAP_ERRBUF_SIZE] = "";
	int rc;

	if (!in) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	in->pc = pcap_create(iface, perr);
	if (!in->pc) {
		snprintf(err, errlen, "%s: %s", iface, perr);
		goto fail;
	}
	pcap_set_snaplen(in->pc, SNAPLEN);
	pcap_set_promisc(in->pc, 1);
	pcap_set_timeout(in->pc, LIVE_TIMEOUT_MS);
	/* Show each packet as it arrives rather than when a kernel buffer fills. */
	pcap_set_immediate_mode(in->pc, 1);
	pcap_set_tstamp_precision(in->pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(in->pc);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", iface,
			 rc == PCAP_ERROR ? pcap_geterr(in->pc) : pcap_statustostr(rc));
		goto fail;
	}
	if (rc > 0)
		fprintf(stderr, "uroce-dump: %s: %s\n", iface, pcap_statustostr(rc));
	if (check_dlt(in, iface, err, errlen) < 0 || set_filter(in, filter, err, errlen) < 0)
		goto fail;
	return in;
fail:
	dump_input_close(in);
	return NULL;
}

/* Linux cooked captures (`-i any`): the protocol field is an EtherType; IP is dissected, other
 * protocols are named only, since no Ethernet header exists to hand on. */
static void sll_frame(struct dump_input *in, struct dump_frame *f, unsigned hdr)
{
	uint16_t proto;
	const char *name;

	if (f->caplen < hdr) {
		f->undecoded = "Linux cooked capture header cut short";
		f->err = UROCE_ETRUNC;
		return;
	}
	proto = get_be16(f->data + (in->dlt == DLT_LINUX_SLL ? 14 : 0));
	f->data += hdr;
	f->caplen -= hdr;
	f->wirelen = f->wirelen > hdr ? f->wirelen - hdr : 0;
	if (proto == UROCE_ETHERTYPE_IPV4 || proto == UROCE_ETHERTYPE_IPV6)
		return;
	name = dump_ethertype_name(proto);
	snprintf(in->note, sizeof(in->note), "Linux cooked capture, protocol 0x%04x%s%s%s",
		 (unsigned)proto, name ? " (" : "", name ? name : "", name ? ")" : "");
	f->undecoded = in->note;
}

/* An ERF record, from a raw ERF file (whole) or a pcap DLT_ERF record (possibly cut at the
 * snap length). The ERF header's time and wire length are the packet's. */
static void erf_frame(struct dump_input *in, struct dump_frame *f, const uint8_t *rec,
		      size_t len)
{
	struct uroce_erf e;
	ssize_t n = uroce_erf_decode_snap(&e, rec, len);

	if (n < 0) {
		f->undecoded = "ERF record header broken";
		f->err = (int)n;
		return;
	}
	f->ts_ns = e.ts_ns;
	f->wirelen = e.wlen;
	f->data = rec + e.payload_off;
	f->caplen = (uint32_t)e.payload_len;
	switch (e.type) {
	case UROCE_ERF_TYPE_INFINIBAND:
		f->link = UROCE_LINK_IB;
		return;
	case UROCE_ERF_TYPE_ETH:
		f->link = UROCE_LINK_ETHERNET;
		return;
	case ERF_TYPE_IPV4:
	case ERF_TYPE_IPV6:
		/* the decoder leaves other types' record padding in: cut at the wire length */
		f->link = UROCE_LINK_IP;
		if (f->caplen > e.wlen)
			f->caplen = e.wlen;
		return;
	default:
		snprintf(in->note, sizeof(in->note), "ERF record type %u", (unsigned)e.type);
		f->undecoded = in->note;
		return;
	}
}

static int next_pcap(struct dump_input *in, struct dump_frame *f, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	do {
		if (in->stop)
			return 0;
		rc = in->map ? map_next(in, &h, &data) : pcap_next_ex(in->pc, &h, &data);
	} while (rc == 0); /* a live capture's timeout (look at the stop flag again), or a mapped
			    * record the filter drops */
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc < 0) {
		snprintf(err, errlen, "%s", pcap_geterr(in->pc));
		return -1;
	}
	*f = (struct dump_frame){
		.ts_ns = (uint64_t)h->ts.tv_sec * NS_PER_S +
			 (uint64_t)h->ts.tv_usec * (in->nano ? 1 : 1000),
		.caplen = h->caplen,
		.wirelen = h->len,
		.data = data,
		.link = in->link,
	};
	if (in->dlt == DLT_ERF)
		erf_frame(in, f, data, h->caplen);
	else if (in->dlt == DLT_LINUX_SLL || in->dlt == DLT_LINUX_SLL2)
		sll_frame(in, f, in->link_hdr);
	return 1;
}

/* Reads exactly len bytes of a raw ERF file, the bytes read to recognise it first. */
static bool erf_read(struct dump_input *in, uint8_t *buf, size_t len)
{
	size_t n = in->peek_len - in->peek_pos < len ? in->peek_len - in->peek_pos : len;

	memcpy(buf, in->peek + in->peek_pos, n);
	in->peek_pos += n;
	return n == len || fread(buf + n, 1, len - n, in->erf) == len - n;
}

static bool erf_at_end(struct dump_input *in)
{
	int c;

	if (in->peek_pos < in->peek_len)
		return false;
	c = getc(in->erf);
	if (c == EOF)
		return !ferror(in->erf);
	ungetc(c, in->erf);
	return false;
}

static int next_erf(struct dump_input *in, struct dump_frame *f, char *err, size_t errlen)
{
	size_t rlen;

	do {
		if (in->stop || erf_at_end(in))
			return 0;
		if (!erf_read(in, in->rec, UROCE_ERF_HDR_LEN))
			goto cut;
		rlen = get_be16(in->rec + 10);
		if (rlen < UROCE_ERF_HDR_LEN) {
			snprintf(err, errlen, "ERF record %llu: record length %zu is shorter than its "
				 "header", (unsigned long long)in->number + 1, rlen);
			return -1;
		}
		if (!erf_read(in, in->rec + UROCE_ERF_HDR_LEN, rlen - UROCE_ERF_HDR_LEN))
			goto cut;
	} while (in->have_prog &&
		 !pcap_offline_filter(&in->prog,
				      &(struct pcap_pkthdr){.caplen = (bpf_u_int32)rlen,
							    .len = (bpf_u_int32)rlen},
				      in->rec));
	*f = (struct dump_frame){.caplen = (uint32_t)rlen, .wirelen = (uint32_t)rlen};
	erf_frame(in, f, in->rec, rlen);
	return 1;
cut:
	if (ferror(in->erf))
		snprintf(err, errlen, "read error: %s", strerror(errno));
	else
		snprintf(err, errlen, "the file ends in the middle of ERF record %llu",
			 (unsigned long long)in->number + 1);
	return -1;
}

int dump_input_next(struct dump_input *in, struct dump_frame *f, char *err, size_t errlen)
{
	int rc = in->pc ? next_pcap(in, f, err, errlen) : next_erf(in, f, err, errlen);

	if (rc == 1)
		f->number = ++in->number;
	return rc;
}

void dump_input_break(struct dump_input *in)
{
	in->stop = 1;
	if (in->pc)
		pcap_breakloop(in->pc);
}

unsigned long dump_input_dropped(struct dump_input *in)
{
	struct pcap_stat st;

	if (!in->pc || pcap_file(in->pc) || pcap_stats(in->pc, &st) < 0)
		return 0;
	return st.ps_drop;
}

void dump_input_close(struct dump_input *in)
{
	if (!in)
		return;
	map_close(in);
	if (in->have_prog)
		pcap_freecode(&in->prog);
	if (in->pc)
		pcap_close(in->pc);
	free(in->file_buf);
	if (in->dead)
		pcap_close(in->dead);
	if (in->erf && in->erf != stdin)
		fclose(in->erf);
	free(in->rec);
	free(in);
}

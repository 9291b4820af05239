/* SPDX-License-Identifier: MIT */
/* uroce-dump: a RoCEv2, RoCE v1 and native InfiniBand dissector. Reads frames (input.c),
 * dissects each one (dissect.c), prints it in the chosen mode (print_*.c) and feeds the
 * --flows analysis (flows.c); the summary goes to standard error so that standard output
 * only ever holds the chosen format. See docs/uroce-dump.1. */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "flows.h"
#include "input.h"
#include "output.h"
#include "plot.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

enum mode {
	MODE_NONE,    /* nothing asked for: lines, or only the report with --flows */
	MODE_LINE,
	MODE_VERBOSE,
	MODE_JSON,
	MODE_FIELDS,
};

enum flows_fmt { FLOWS_OFF, FLOWS_AUTO, FLOWS_TEXT, FLOWS_JSON };

struct options {
	const char *file;
	const char *iface;
	const char *filter;
	uint64_t count;     /* 0: no limit */
	enum mode mode;
	enum flows_fmt flows;
	const char *series; /* --series FILE.csv */
	const char *plot;   /* --plot FILE.png */
	uint64_t step_ns;   /* --step MS */
	bool quiet;
	struct fields_out fields;
};

struct stats {
	uint64_t packets, ib, malformed;
	uint64_t icrc[UROCE_CRC_UNCHECKED + 1];
	uint64_t vcrc[UROCE_CRC_UNCHECKED + 1];
};

static struct dump_input *running; /* for the signal handler */

static void on_signal(int sig)
{
	(void)sig;
	if (running)
		dump_input_break(running);
}

static void usage(FILE *out)
{
	fputs("Usage: uroce-dump (-r FILE | -i IFACE) [-f FILTER] [-c COUNT] [-q]\n"
	      "                  [-V | -T text|json | -T fields -e FIELD... [-E OPTION]...]\n"
	      "                  [--flows[=text|json]] [--series=FILE.csv [--step=MS] [--plot=FILE.png]]\n"
	      "       uroce-dump -G fields\n"
	      "Dissects RoCEv2, RoCE v1 and native InfiniBand packets and checks their ICRC/VCRC.\n"
	      "  -r FILE        read a pcap, pcapng or ERF file ('-' for standard input)\n"
	      "  -i IFACE       capture live on IFACE ('any' for all interfaces)\n"
	      "  -f FILTER      BPF filter applied to the capture (pcap-filter(7) syntax)\n"
	      "  -c COUNT       stop after COUNT packets\n"
	      "  -V             show every header and field\n"
	      "  -T text        one line per packet (the default)\n"
	      "  -T json        one JSON object per packet (JSON Lines)\n"
	      "  -T fields      the fields named by -e, as tshark -T fields prints them\n"
	      "  -e FIELD       a field to print with -T fields (repeatable)\n"
	      "  -E OPTION      header=y|n, separator=/t|/s|C, occurrence=f|l|a|N, aggregator=C,\n"
	      "                 quote=d|s|n\n"
	      "  --flows[=FMT]  per-flow analysis after the capture (text or json)\n"
	      "  --series=FILE  each flow's rate, PSN, CE marks and CNPs over time, as CSV\n"
	      "  --step=MS      the series' step in milliseconds (default 10)\n"
	      "  --plot=FILE    draw the series as a PNG (gnuplot; with --series)\n"
	      "  -G fields      list every field: name, type, description\n"
	      "  -q             no summary on standard error\n"
	      "  -h, --help     this help\n"
	      "See uroce-dump(1).\n",
	      out);
}

/* -G fields: name, value type, label. */
static int list_group(void *ctx, const struct dump_field_group *g)
{
	static const char *const fmt_names[] = {
		[FLD_DEC] = "unsigned", [FLD_HEX] = "hex",       [FLD_BOOL] = "boolean",
		[FLD_IPV4] = "ipv4",    [FLD_IPV6] = "ipv6",     [FLD_BYTES] = "bytes",
		[FLD_STRING] = "string", [FLD_TIME] = "time",    [FLD_ETHER] = "ether",
	};

	(void)ctx;
	for (size_t i = 0; i < g->count; i++) {
		const struct dump_field *f = &g->fields[i];
		printf("%s\t%s\t%s\n", f->name, fmt_names[f->fmt], f->label);
	}
	return 0;
}

static int set_mode(struct options *o, enum mode m)
{
	if (o->mode != MODE_NONE && o->mode != m) {
		fputs("uroce-dump: choose one of -V, -T text, -T json, -T fields\n", stderr);
		return -1;
	}
	o->mode = m;
	return 0;
}

static int parse_count(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || v == 0)
		return -1;
	*out = v;
	return 0;
}

/* Returns -1 to exit with a usage error, 1 to exit successfully (help, field list), 0 to run. */
static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{"flows", optional_argument, NULL, 'F'},
		{"series", required_argument, NULL, 'S'},
		{"step", required_argument, NULL, 's'},
		{"plot", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char err[256];
	int c;

	fields_out_init(&o->fields);
	while ((c = getopt_long(argc, argv, "r:i:f:c:VT:e:E:G:qh", longs, NULL)) != -1) {
		switch (c) {
		case 'r':
			o->file = optarg;
			break;
		case 'i':
			o->iface = optarg;
			break;
		case 'f':
			o->filter = optarg;
			break;
		case 'c':
			if (parse_count(optarg, &o->count) < 0) {
				fprintf(stderr, "uroce-dump: -c needs a positive count, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'V':
			if (set_mode(o, MODE_VERBOSE) < 0)
				return -1;
			break;
		case 'T':
			if (strcmp(optarg, "fields") && strcmp(optarg, "json") && strcmp(optarg, "text")) {
				fprintf(stderr, "uroce-dump: unknown output format '%s' (text, json, fields)\n",
					optarg);
				return -1;
			}
			if (set_mode(o, optarg[0] == 'f' ? MODE_FIELDS : optarg[0] == 'j' ? MODE_JSON
											  : MODE_LINE) < 0)
				return -1;
			break;
		case 'e':
			if (fields_out_add(&o->fields, optarg) < 0) {
				fprintf(stderr, "uroce-dump: unknown field '%s' (uroce-dump -G fields lists "
					"them)\n", optarg);
				return -1;
			}
			break;
		case 'E':
			if (fields_out_option(&o->fields, optarg, err, sizeof(err)) < 0) {
				fprintf(stderr, "uroce-dump: %s\n", err);
				return -1;
			}
			break;
		case 'G':
			if (strcmp(optarg, "fields")) {
				fprintf(stderr, "uroce-dump: -G knows only 'fields'\n");
				return -1;
			}
			dump_field_each_group(list_group, NULL);
			return 1;
		case 'F':
			if (!optarg)
				o->flows = FLOWS_AUTO;
			else if (strcmp(optarg, "text") == 0)
				o->flows = FLOWS_TEXT;
			else if (strcmp(optarg, "json") == 0)
				o->flows = FLOWS_JSON;
			else {
				fprintf(stderr, "uroce-dump: --flows takes text or json, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'S':
			o->series = optarg;
			break;
		case 'P':
			o->plot = optarg;
			break;
		case 's': {
			char *end;
			double ms = strtod(optarg, &end);
			/* 1 us to 1 hour */
			if (end == optarg || *end || !(ms >= 0.001 && ms <= 3600000.0)) {
				fprintf(stderr, "uroce-dump: --step takes milliseconds from 0.001 to "
					"3600000, not '%s'\n", optarg);
				return -1;
			}
			o->step_ns = (uint64_t)(ms * 1e6 + 0.5);
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uroce-dump: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->file == !o->iface) {
		fputs("uroce-dump: give one of -r FILE or -i IFACE\n", stderr);
		usage(stderr);
		return -1;
	}
	if ((o->mode == MODE_FIELDS) != (o->fields.count > 0)) {
		fputs("uroce-dump: -T fields and -e FIELD go together\n", stderr);
		return -1;
	}
	if (o->plot && !o->series) {
		fputs("uroce-dump: --plot draws the time series: give --series=FILE.csv too\n", stderr);
		return -1;
	}
	if (o->step_ns && !o->series) {
		fputs("uroce-dump: --step is the step of --series\n", stderr);
		return -1;
	}
	if (o->plot && system("command -v gnuplot >/dev/null 2>&1")) {
		fputs("uroce-dump: --plot needs gnuplot (apt-get install gnuplot-nox)\n", stderr);
		return -1;
	}
	if (!o->step_ns)
		o->step_ns = 10000000; /* 10 ms */
	/* With --flows alone only the report is printed, and `--flows -T json` is the report as
	 * one JSON document (no packet lines before it, so that it parses); another mode asked
	 * for prints packets, then the text report. --series alone prints nothing either. */
	if (o->mode == MODE_NONE && o->flows == FLOWS_OFF && !o->series)
		o->mode = MODE_LINE;
	if (o->flows == FLOWS_AUTO && o->mode == MODE_JSON) {
		o->flows = FLOWS_JSON;
		o->mode = MODE_NONE;
	} else if (o->flows == FLOWS_AUTO) {
		o->flows = FLOWS_TEXT;
	}
	return 0;
}

static void stats_add(struct stats *st, const struct dump_pkt *d)
{
	st->packets++;
	st->ib += d->pkt.encap != UROCE_ENCAP_NONE;
	st->malformed += d->malformed;
	st->icrc[d->icrc_status]++;
	st->vcrc[d->vcrc_status]++;
}

static void stats_print(const struct stats *st, unsigned long dropped)
{
	fprintf(stderr,
		"uroce-dump: %" PRIu64 " packets, %" PRIu64 " RoCE/InfiniBand, %" PRIu64 " malformed; "
		"ICRC %" PRIu64 " ok, %" PRIu64 " bad, %" PRIu64 " unchecked; VCRC %" PRIu64 " ok, %"
		PRIu64 " bad",
		st->packets, st->ib, st->malformed, st->icrc[UROCE_CRC_OK], st->icrc[UROCE_CRC_BAD],
		st->icrc[UROCE_CRC_UNCHECKED], st->vcrc[UROCE_CRC_OK], st->vcrc[UROCE_CRC_BAD]);
	if (dropped)
		fprintf(stderr, "; %lu dropped by the kernel", dropped);
	fputc('\n', stderr);
}

static void print_packet(const struct options *o, struct outbuf *ob, const struct dump_pkt *d,
			 uint64_t t0)
{
	switch (o->mode) {
	case MODE_LINE:
		print_line(ob, d, t0);
		break;
	case MODE_VERBOSE:
		print_verbose(stdout, d);
		break;
	case MODE_JSON:
		print_json(stdout, d);
		break;
	case MODE_FIELDS:
		fields_out_packet(ob, &o->fields, d);
		break;
	case MODE_NONE:
		break;
	}
}

/* --series, and --plot from it. */
static int write_series(const struct options *o, struct flows *flows)
{
	struct flows_series_block *blocks;
	FILE *f = fopen(o->series, "w");
	int n, err;

	if (!f) {
		fprintf(stderr, "uroce-dump: cannot write %s: %m\n", o->series);
		return -1;
	}
	n = flows_series_csv(flows, f, &blocks);
	if (fclose(f) || n < 0) {
		fprintf(stderr, "uroce-dump: error writing %s\n", o->series);
		free(blocks);
		return -1;
	}
	err = o->plot ? series_plot(o->series, o->plot, blocks, n) : 0;
	free(blocks);
	if (err == UROCE_EINVAL)
		fprintf(stderr, "uroce-dump: nothing to plot: no flow carries requests or CNPs\n");
	else if (err)
		fprintf(stderr, "uroce-dump: gnuplot failed to draw %s\n", o->plot);
	return err ? -1 : 0;
}

static int run(const struct options *o, struct dump_input *in, struct flows *flows)
{
	struct stats st = {0};
	struct dump_frame frame;
	struct dump_pkt d;
	struct outbuf ob; /* the text of the line and fields modes, on its way to stdout */
	uint64_t t0 = 0;
	char err[512];
	int rc = 0;

	ob_init(&ob, stdout);
	if (o->mode == MODE_FIELDS && o->fields.header)
		fields_out_header(stdout, &o->fields);
	while (!o->count || st.packets < o->count) {
		rc = dump_input_next(in, &frame, err, sizeof(err));
		if (rc <= 0)
			break;
		if (st.packets == 0)
			t0 = frame.ts_ns;
		dump_dissect(&d, &frame);
		stats_add(&st, &d);
		if (flows)
			flows_add(flows, &d);
		print_packet(o, &ob, &d, t0);
		if (o->iface) /* live: each packet as it comes */
			ob_flush(&ob);
	}
	ob_flush(&ob);
	if (rc < 0)
		fprintf(stderr, "uroce-dump: %s: %s\n", o->file ? o->file : o->iface, err);
	if (flows && o->flows != FLOWS_OFF && flows_print(flows, stdout, o->flows == FLOWS_JSON) < 0)
		rc = -1;
	if (flows && o->series && write_series(o, flows) < 0)
		rc = -1;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("uroce-dump: error writing the output\n", stderr);
		rc = -1;
	}
	if (!o->quiet)
		stats_print(&st, dump_input_dropped(in));
	return rc < 0 ? EXIT_INPUT : 0;
}

int main(int argc, char **argv)
{
	struct options o = {0};
	struct dump_input *in;
	struct flows *flows = NULL;
	char err[512];
	int rc = parse_args(argc, argv, &o);

	if (rc != 0) {
		fields_out_free(&o.fields);
		return rc < 0 ? EXIT_USAGE : 0;
	}
	in = o.file ? dump_input_open_file(o.file, o.filter, err, sizeof(err))
		    : dump_input_open_live(o.iface, o.filter, err, sizeof(err));
	if (!in) {
		fprintf(stderr, "uroce-dump: %s\n", err);
		fields_out_free(&o.fields);
		return EXIT_INPUT;
	}
	if ((o.flows != FLOWS_OFF || o.series) && !(flows = flows_new())) {
		fputs("uroce-dump: out of memory\n", stderr);
		rc = EXIT_INPUT;
		goto out;
	}
	if (o.series && flows_series_enable(flows, o.step_ns)) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (o.iface) {
		/* Live: show packets as they come, and stop cleanly on ^C with the summary. */
		struct sigaction sa = {.sa_handler = on_signal};
		setvbuf(stdout, NULL, _IOLBF, 0);
		running = in;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	} else if (!isatty(STDOUT_FILENO)) {
		/* A file read into a file or a pipe: fewer, larger writes than stdio's 4 KiB (glibc
		 * takes a size only with a buffer). */
		static char out_buf[256 * 1024];
		setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	}
	rc = run(&o, in, flows);
	running = NULL;
out:
	if (flows)
		flows_free(flows);
	dump_input_close(in);
	fields_out_free(&o.fields);
	return rc;
}

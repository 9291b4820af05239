/* SPDX-License-Identifier: MIT */
/* uroce-sim: runs a congestion scenario (scenario.h) on the real engine in the simulated
 * fabric and prints what it measured; optionally the time series as CSV and its plot as PNG
 * (with gnuplot). docs/congestion.md shows its output; `uroce-sim --help` its keys. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "scenario.h"

static void usage(FILE *f)
{
	fputs("usage: uroce-sim [SCENARIO_FILE] [key=value ...] [--csv FILE] [--plot FILE.png] "
	      "[--fct FILE] [--quiet]\n"
	      "N flows on uroce's engines in a simulated fabric, on virtual time (same input, same\n"
	      "output). Topologies: N:1 incast through a switch whose port to the receiver is the\n"
	      "bottleneck (dumbbell); N flows over a chain of N switches, the first crossing every\n"
	      "link between them, each other one link (parking_lot); N flows from one leaf to\n"
	      "another through spine switches, each on the spine its UDP source port hashes to\n"
	      "(leaf_spine).\n"
	      "keys (a scenario file has one per line, key = value, # comments):\n"
	      "  topology=T          dumbbell, parking_lot or leaf_spine (dumbbell)\n"
	      "  senders=N           the flows, 1..64 (2; parking_lot: 2 or more)\n"
	      "  spines=S            leaf_spine: the spine switches, 1..16 (4)\n"
	      "  cc=SPEC             congestion control, UROCE_CC's syntax (dcqcn)\n"
	      "  link_gbps=G         the senders' and the receiver's links (25)\n"
	      "  bottleneck_gbps=G   the switch's port to the receiver; parking_lot: the links\n"
	      "                      between switches (10)\n"
	      "  latency_us=U        every link (1)\n"
	      "  queue_kb=K          each congested port's queue, tail drop past it (16000)\n"
	      "  pfc=XOFF,XON        PFC on the links into a switch, KB, for the flows' traffic\n"
	      "                      class (none)\n"
	      "  pfc_quanta=Q        a PAUSE's time in quanta of 512 bit times, refreshed at half\n"
	      "                      (65535)\n"
	      "  dscp=D              the flows' DSCP; their traffic class is D / 8, CNPs' 6 (26)\n"
	      "  victim=1            PFC's victim flow: the receiver behind a second switch over a\n"
	      "                      core link, and one more flow through the core link only\n"
	      "  core_gbps=G         the victim's core link; leaf_spine: leaf-spine links (100)\n"
	      "  red=KMIN,KMAX,PMAX  RED marking, KB, KB, probability (20,100,0.5)\n"
	      "  threshold_kb=K      step marking above K instead of RED\n"
	      "  duration_ms=M (60)  sample_us=U (100)  msg_kb=K (64)  seed=S (1)\n"
	      "  timeout=T           the QPs' local ACK timeout, 4.096 us x 2^T (14: 67 ms)\n"
	      "  starts_ms=A,B,...   when each sender starts (0)\n"
	      "  stops_ms=A,B,...    when each sender stops posting (0: at the end); its posted\n"
	      "                      WRITEs (16 x msg_kb) still leave\n"
	      "  sizes_kb=A,B,...    each sender's flow size, then it is done (0: no end); its\n"
	      "                      completion time is printed (and --fct writes them as CSV)\n"
	      "The figures are over the second half of the run; the fairness index counts the\n"
	      "senders that ran all of it; queue, utilisation, marks and drops are the congested\n"
	      "links' (the bottleneck; the parking lot's chain; the senders' leaf's uplinks).\n",
	      f);
}

/* The time series' plot: each flow's throughput and the bottleneck's queue over time. */
static int plot(const char *csv, const char *png, const struct scenario *s)
{
	FILE *g = popen("gnuplot 2>&1", "w");

	if (!g)
		return -1;
	fprintf(g, "set terminal png noenhanced size 1000,720\nset output '%s'\n"
		   "set datafile separator ','\nset key outside right\nset multiplot layout 2,1\n"
		   "set ylabel 'Gb/s sent'\nset xlabel 'time (us)'\nset grid\n",
		png);
	fprintf(g, "plot for [i=4:%u] '%s' using 1:i with lines title sprintf('flow %%d', i - 3)",
		3 + s->senders, csv);
	if (s->victim) /* its column follows the senders' */
		fprintf(g, ", '%s' using 1:%u with lines title 'victim flow'", csv, 4 + s->senders);
	fputc('\n', g);
	fprintf(g, "set ylabel 'queue (KB)'\nplot '%s' using 1:($2/1000) with lines title "
		   "'fullest congested queue'\nunset multiplot\n",
		csv);
	return pclose(g);
}

/* The flows' completion times as CSV: flow, size, start, completion time (empty: not done). */
static int write_fct(const char *path, const struct scenario *s, const struct scenario_result *r)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "flow,size_bytes,start_us,fct_us\n");
	for (uint32_t i = 0; i < s->senders; i++) {
		if (!s->size_bytes[i])
			continue;
		fprintf(f, "%u,%" PRIu64 ",%.1f,", i + 1, s->size_bytes[i], (double)s->start_ns[i] / 1e3);
		if (r->fct_ns[i])
			fprintf(f, "%.1f", (double)r->fct_ns[i] / 1e3);
		fputc('\n', f);
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct scenario s;
	struct scenario_result r;
	const char *csv_path = NULL, *png = NULL, *fct_path = NULL;
	bool quiet = false;
	char why[512];

	scenario_defaults(&s);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--csv") && i + 1 < argc) {
			csv_path = argv[++i];
		} else if (!strcmp(a, "--plot") && i + 1 < argc) {
			png = argv[++i];
		} else if (!strcmp(a, "--fct") && i + 1 < argc) {
			fct_path = argv[++i];
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
		} else if (a[0] == '-') {
			fprintf(stderr, "uroce-sim: unknown option %.64s\n", a);
			usage(stderr);
			return 2;
		} else if (eq) {
			char key[64];
			size_t n = (size_t)(eq - a);
			if (n >= sizeof(key)) {
				fprintf(stderr, "uroce-sim: key too long\n");
				return 2;
			}
			memcpy(key, a, n);
			key[n] = 0;
			if (!scenario_set(&s, key, eq + 1, why, sizeof(why))) {
				fprintf(stderr, "uroce-sim: %s\n", why);
				return 2;
			}
		} else if (!scenario_load(&s, a, why, sizeof(why))) {
			fprintf(stderr, "uroce-sim: %s\n", why);
			return 2;
		}
	}
	if (!scenario_check(&s, why, sizeof(why))) {
		fprintf(stderr, "uroce-sim: %s\n", why);
		return 2;
	}
	if (png && !csv_path) {
		fprintf(stderr, "uroce-sim: --plot draws the time series: give --csv FILE too\n");
		return 2;
	}
	if (png && system("command -v gnuplot >/dev/null 2>&1")) {
		fprintf(stderr, "uroce-sim: --plot needs gnuplot (apt-get install gnuplot-nox)\n");
		return 1;
	}
	FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
	if (csv_path && !csv) {
		perror(csv_path);
		return 1;
	}
	int err = scenario_run(&s, csv, !quiet && isatty(2), &r);
	if (csv && fclose(csv)) {
		perror(csv_path);
		return 1;
	}
	if (err) {
		fprintf(stderr, "uroce-sim: the scenario could not be set up: %s\n", uroce_strerror(err));
		return 1;
	}
	const char *cc = uroce_cc_algo_name(s.cc.algo);
	if (s.topology == SCENARIO_PARKING_LOT)
		printf("parking lot: %u flows, %u switches, links between them %.3g Gb/s, %s (queue %"
		       PRIu64 " KB, ", s.senders, s.senders, (double)s.bottleneck_bps / 1e9, cc,
		       s.queue_bytes / 1000);
	else if (s.topology == SCENARIO_LEAF_SPINE)
		printf("leaf-spine: %u flows leaf 1 -> leaf 2, %u spines, links %.3g Gb/s, ECMP on "
		       "the UDP source port, %s (queue %" PRIu64 " KB, ", s.senders, s.spines,
		       (double)s.core_bps / 1e9, cc, s.queue_bytes / 1000);
	else
		printf("%u sender%s -> 1 receiver, %s, bottleneck %.3g Gb/s (queue %" PRIu64 " KB, ",
		       s.senders, s.senders > 1 ? "s" : "", cc, (double)s.bottleneck_bps / 1e9,
		       s.queue_bytes / 1000);
	if (s.ce_kmax)
		printf("RED %" PRIu64 "/%" PRIu64 " KB %g %%", s.ce_kmin / 1000, s.ce_kmax / 1000,
		       s.ce_pmax * 100);
	else if (s.ce_threshold)
		printf("marking above %" PRIu64 " KB", s.ce_threshold / 1000);
	else
		printf("no marking");
	if (s.pfc_xoff)
		printf(", PFC XOFF %g KB XON %g KB", (double)s.pfc_xoff / 1000, (double)s.pfc_xon / 1000);
	printf("), %.3g ms, seed %" PRIu64 "\n", (double)s.duration_ns / 1e6, s.seed);
	printf("second half (%.3g to %.3g ms):\n", (double)s.duration_ns / 2e6,
	       (double)s.duration_ns / 1e6);
	for (uint32_t i = 0; i < s.senders; i++)
		printf("  flow %u: %.3f Gb/s\n", i + 1, r.gbps[i]);
	if (s.victim)
		printf("  victim flow: %.3f Gb/s (through the core link, not the bottleneck)\n",
		       r.victim_gbps);
	if (s.topology != SCENARIO_DUMBBELL)
		for (uint32_t k = 0; k < r.nlinks; k++)
			printf("  %s %u: %.3f Gb/s\n",
			       s.topology == SCENARIO_PARKING_LOT ? "link" : "uplink to spine", k + 1,
			       r.link_gbps[k]);
	printf("  Jain's index %.4f, utilisation %.3f, queue peak %" PRIu64 " B (whole run %" PRIu64
	       " B), mean %.0f B\n",
	       r.jain, r.utilisation, r.queue_peak, r.queue_peak_all, r.queue_mean);
	printf("whole run: %" PRIu64 " CNPs, %" PRIu64 " CE marks, %" PRIu64 " dropped, %" PRIu64
	       " resent, %" PRIu64 " completions (%" PRIu64 " errors)\n",
	       r.cnps, r.ce_marks, r.drops, r.resent, r.completions, r.errors);
	if (s.pfc_xoff)
		printf("PFC: %" PRIu64 " PAUSEs, links into the switches paused %.3f ms in all\n",
		       r.pauses, (double)r.paused_ns / 1e6);
	for (uint32_t i = 0; i < s.senders; i++) {
		if (!s.size_bytes[i])
			continue;
		if (r.fct_ns[i])
			printf("flow %u: %" PRIu64 " KB completed in %.1f us\n", i + 1,
			       s.size_bytes[i] / 1000, (double)r.fct_ns[i] / 1e3);
		else
			printf("flow %u: %" PRIu64 " KB not completed by the end\n", i + 1,
			       s.size_bytes[i] / 1000);
	}
	if (r.nevents) {
		printf("convergence (2 ms windows: Jain >= 0.95, the flows' sum within 10 %% of the link):");
		for (uint32_t k = 0; k < r.nevents; k++) {
			printf("%s after %.3g ms: ", k ? ";" : "", (double)r.event_ns[k] / 1e6);
			if (r.converged_ns[k] < 0)
				printf("never");
			else
				printf("%.2f ms", (double)r.converged_ns[k] / 1e6);
		}
		putchar('\n');
	}
	if (fct_path && write_fct(fct_path, &s, &r)) {
		perror(fct_path);
		return 1;
	}
	if (png && plot(csv_path, png, &s)) {
		fprintf(stderr, "uroce-sim: gnuplot failed to draw %s\n", png);
		return 1;
	}
	return r.errors ? 1 : 0;
}

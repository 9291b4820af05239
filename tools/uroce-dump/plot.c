/* SPDX-License-Identifier: MIT */
/* uroce-dump --plot: the time series of --series drawn by gnuplot (docs/flows.md "Time
 * series"): each flow's rate, its PSN over time (a stream graph: a flat stretch is a stall, a
 * step back does not show since only new PSNs count, retransmissions are their own column),
 * and the CE marks and CNPs per step. */
#include "plot.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/error.h"

enum { PLOTTED_MAX = 8 }; /* flows drawn per kind, the largest first: a legend stays legible */

static int by_bytes(const void *a, const void *b)
{
	const struct flows_series_block *x = *(const struct flows_series_block *const *)a;
	const struct flows_series_block *y = *(const struct flows_series_block *const *)b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : (int)x->flow_id - (int)y->flow_id;
}

/* Writes to g a plot command of the blocks listed in idx (indices into b), one curve each:
 * `using COLS`, drawn WITH, titled "flow N" and SUFFIX. */
static void curves(FILE *g, const char *csv, const struct flows_series_block *b,
		   const int *idx, int n, const char *cols, const char *with, const char *suffix,
		   bool first)
{
	for (int i = 0; i < n; i++)
		fprintf(g, "%s'%s' index %d using %s with %s title 'flow %u%s'", first && !i ? "plot " : ", ",
			csv, idx[i], cols, with, b[idx[i]].flow_id, suffix);
}

int series_plot(const char *csv, const char *png, const struct flows_series_block *b, int n)
{
	const struct flows_series_block **order = calloc(n ? (size_t)n : 1, sizeof(*order));
	int req[PLOTTED_MAX], cnp[PLOTTED_MAX], nreq = 0, ncnp = 0;
	bool marks = false;

	if (!order)
		return UROCE_ENOMEM;
	for (int i = 0; i < n; i++)
		order[i] = &b[i];
	qsort(order, (size_t)n, sizeof(*order), by_bytes);
	for (int i = 0; i < n; i++) {
		int k = (int)(order[i] - b);
		if (b[k].requests && nreq < PLOTTED_MAX)
			req[nreq++] = k;
		if (b[k].cnp && ncnp < PLOTTED_MAX)
			cnp[ncnp++] = k;
		marks |= b[k].ce || b[k].cnp;
	}
	free(order);
	if (!nreq && !ncnp)
		return UROCE_EINVAL;

	/* gnuplot's warnings go to standard error: standard output may hold the report */
	FILE *g = popen("gnuplot 1>&2", "w");
	if (!g)
		return UROCE_EIO;
	fprintf(g, "set terminal png noenhanced size 1000,960\nset output '%s'\n"
		   "set datafile separator ','\nset key outside right\nset grid\n"
		   "set xlabel 'time (s)'\nset multiplot layout 3,1\n",
		png);
	if (nreq) {
		fputs("set ylabel 'Mb/s'\n", g);
		curves(g, csv, b, req, nreq, "2:5", "steps", "", true);
		fputs("\nset ylabel 'new PSNs'\n", g);
		curves(g, csv, b, req, nreq, "2:9", "lines", "", true);
		fputc('\n', g);
	}
	/* a capture without marks draws an empty panel, not gnuplot's warning of an empty range */
	fprintf(g, "set ylabel 'per step'\nset yrange [0:%s]\n", marks ? "*" : "1");
	curves(g, csv, b, req, nreq, "2:6", "impulses", " CE", true);
	curves(g, csv, b, cnp, ncnp, "2:7", "points", " CNP", !nreq);
	fputs("\nunset multiplot\n", g);
	return pclose(g) ? UROCE_EIO : 0;
}

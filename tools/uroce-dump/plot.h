/* SPDX-License-Identifier: MIT */
/* uroce-dump --plot: draws the --series CSV as a PNG with gnuplot. */
#ifndef UROCE_DUMP_PLOT_H
#define UROCE_DUMP_PLOT_H

#include "flows.h"

/* Plots the n blocks of the CSV file csv (as flows_series_csv wrote them, with b describing
 * them) into png: the rate and the PSN of the flows that carry requests, the CE marks and
 * CNPs per step; the 8 largest flows of each kind. 0, UROCE_EINVAL when no flow carries
 * requests or CNPs, UROCE_EIO when gnuplot failed, UROCE_ENOMEM. */
int series_plot(const char *csv, const char *png, const struct flows_series_block *b, int n);

#endif

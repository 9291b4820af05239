/* SPDX-License-Identifier: MIT */
/* Prints statistics pages: the table and the JSON of uroce-stat, and UROCE_STATS=1's report
 * at exit (docs/stat.md). */
#ifndef UROCE_STAT_REPORT_H
#define UROCE_STAT_REPORT_H

#include <stdio.h>

#include "page.h"

/* prev: the same process's earlier sample, for rates per second (NULL: no rates). all:
 * every counter; otherwise the table leaves zeros out (the JSON always has them all). */
void uroce_stat_print_table(FILE *f, const struct uroce_stat_snapshot *s,
			    const struct uroce_stat_snapshot *prev, bool all);
/* One JSON object (no newline after it). */
void uroce_stat_print_json(FILE *f, const struct uroce_stat_snapshot *s,
			   const struct uroce_stat_snapshot *prev);

#endif

/* SPDX-License-Identifier: MIT */
/* -V: every header of the packet and every field in it, straight from the field table, so
 * that it shows exactly what -T fields and -T json can select. */
#include "output.h"

struct verbose_ctx {
	FILE *out;
	const struct dump_pkt *d;
};

static int verbose_group(void *ctx, const struct dump_field_group *g)
{
	const struct verbose_ctx *vc = ctx;
	struct fld_val v[FLD_MAX_OCC];
	bool titled = false;
	char buf[128];

	for (size_t i = 0; i < g->count; i++) {
		const struct dump_field *f = &g->fields[i];
		int n;

		if (f->flags & FLD_F_RAW)
			continue;
		n = dump_field_get(f, vc->d, v);
		for (int k = 0; k < n; k++) {
			const char *meaning = f->meaning ? f->meaning(vc->d, &v[k], buf, sizeof(buf)) : NULL;

			if (!titled) {
				fprintf(vc->out, "%s\n", g->title);
				titled = true;
			}
			fprintf(vc->out, "    %s: ", f->label);
			dump_field_print(vc->out, f, &v[k]);
			if (meaning)
				fprintf(vc->out, " (%s)", meaning);
			fputc('\n', vc->out);
		}
	}
	return 0;
}

void print_verbose(FILE *out, const struct dump_pkt *d)
{
	struct verbose_ctx vc = {out, d};

	dump_field_each_group(verbose_group, &vc);
	fputc('\n', out);
}

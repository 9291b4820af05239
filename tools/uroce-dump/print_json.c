/* SPDX-License-Identifier: MIT */
/* -T json: JSON Lines, one object per frame, keyed by field name in field-table order. An
 * integer field is a JSON number when below 2^53 (what a double holds exactly), else a string
 * of its -T fields text; a boolean is true or false; every other value is the string -T fields
 * prints; a field with several occurrences is an array. */
#include <stdlib.h>
#include <string.h>

#include "output.h"

static void json_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7F) /* bytes above ASCII need not be valid UTF-8 */
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_value(FILE *out, const struct dump_field *f, const struct fld_val *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (f->fmt == FLD_BOOL) {
		fputs(v->u ? "true" : "false", out);
		return;
	}
	if (dump_field_is_number(f, v)) {
		fprintf(out, "%llu", (unsigned long long)v->u);
		return;
	}
	if (f->fmt == FLD_STRING) {
		const char *s = v->str ? v->str : "";
		json_string(out, s, strlen(s));
		return;
	}
	/* the -T fields text of the value: addresses, bytes, times, big integers */
	mem = open_memstream(&text, &len);
	if (mem) {
		dump_field_print(mem, f, v);
		fclose(mem);
	}
	json_string(out, text ? text : "", text ? len : 0);
	free(text);
}

struct json_ctx {
	FILE *out;
	const struct dump_pkt *d;
	bool first;
};

static int json_group(void *ctx, const struct dump_field_group *g)
{
	struct json_ctx *jc = ctx;
	struct fld_val v[FLD_MAX_OCC];

	for (size_t i = 0; i < g->count; i++) {
		const struct dump_field *f = &g->fields[i];
		int n = dump_field_get(f, jc->d, v);

		if (n == 0)
			continue;
		fputs(jc->first ? "{" : ",", jc->out);
		jc->first = false;
		json_string(jc->out, f->name, strlen(f->name));
		fputc(':', jc->out);
		if (n > 1)
			fputc('[', jc->out);
		for (int k = 0; k < n; k++) {
			if (k)
				fputc(',', jc->out);
			json_value(jc->out, f, &v[k]);
		}
		if (n > 1)
			fputc(']', jc->out);
	}
	return 0;
}

void print_json(FILE *out, const struct dump_pkt *d)
{
	struct json_ctx jc = {out, d, true};

	dump_field_each_group(json_group, &jc);
	fputs(jc.first ? "{}\n" : "}\n", out);
}

/* SPDX-License-Identifier: MIT */
/* -T fields, with tshark 4.0's -E options and defaults: tab between fields, ',' between the
 * occurrences of one field, all occurrences, no header, no quotes; an absent field is empty. */
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "output.h"

void fields_out_init(struct fields_out *fo)
{
	*fo = (struct fields_out){.separator = '\t', .aggregator = ',', .occurrence = FIELDS_OCC_ALL};
}

int fields_out_add(struct fields_out *fo, const char *name)
{
	const struct dump_field *f = dump_field_find(name);
	const struct dump_field **grown;

	if (!f)
		return -1;
	grown = realloc(fo->fields, (fo->count + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	fo->fields = grown;
	fo->fields[fo->count++] = f;
	return 0;
}

void fields_out_free(struct fields_out *fo)
{
	free(fo->fields);
	fo->fields = NULL;
	fo->count = 0;
}

/* tshark's spelling of a separator character: /t tab, /s space, else the character itself. */
static int parse_char(const char *v, char *out)
{
	if (strcmp(v, "/t") == 0)
		*out = '\t';
	else if (strcmp(v, "/s") == 0)
		*out = ' ';
	else if (v[0] && !v[1])
		*out = v[0];
	else
		return -1;
	return 0;
}

static int parse_occurrence(const char *v, int *out)
{
	char *end;
	long n;

	if (strcmp(v, "f") == 0)
		*out = FIELDS_OCC_FIRST;
	else if (strcmp(v, "l") == 0)
		*out = FIELDS_OCC_LAST;
	else if (strcmp(v, "a") == 0)
		*out = FIELDS_OCC_ALL;
	else {
		n = strtol(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || n > 1000000)
			return -1;
		*out = (int)n; /* tshark reads occurrence=0 as "all" too */
	}
	return 0;
}

static int parse_yes(const char *v, bool *out)
{
	if (strcmp(v, "y") == 0)
		*out = true;
	else if (strcmp(v, "n") == 0)
		*out = false;
	else
		return -1;
	return 0;
}

static int parse_quote(const char *v, char *out)
{
	static const char names[] = "dsn", quotes[] = {'"', '\'', 0};
	const char *p = v[0] ? strchr(names, v[0]) : NULL;

	if (!p || v[1])
		return -1;
	*out = quotes[p - names];
	return 0;
}

int fields_out_option(struct fields_out *fo, const char *opt, char *err, size_t errlen)
{
	const char *eq = strchr(opt, '=');
	size_t klen = eq ? (size_t)(eq - opt) : 0;
	const char *v = eq ? eq + 1 : "";
	int rc = -1;

	if (klen == 6 && strncmp(opt, "header", klen) == 0)
		rc = parse_yes(v, &fo->header);
	else if (klen == 9 && strncmp(opt, "separator", klen) == 0)
		rc = parse_char(v, &fo->separator);
	else if (klen == 10 && strncmp(opt, "aggregator", klen) == 0)
		rc = parse_char(v, &fo->aggregator);
	else if (klen == 10 && strncmp(opt, "occurrence", klen) == 0)
		rc = parse_occurrence(v, &fo->occurrence);
	else if (klen == 5 && strncmp(opt, "quote", klen) == 0)
		rc = parse_quote(v, &fo->quote);
	if (rc < 0)
		snprintf(err, errlen, "invalid -E option '%s' (header=y|n, separator=/t|/s|<char>, "
			 "occurrence=f|l|a|<n>, aggregator=,|/s|<char>, quote=d|s|n)", opt);
	return rc;
}

/* tshark quotes values, never the names in the header. */
void fields_out_header(FILE *out, const struct fields_out *fo)
{
	for (size_t i = 0; i < fo->count; i++) {
		if (i)
			fputc(fo->separator, out);
		fputs(fo->fields[i]->name, out);
	}
	fputc('\n', out);
}

static void quote(struct outbuf *ob, const struct fields_out *fo)
{
	if (fo->quote)
		ob_char(ob, fo->quote);
}

void fields_out_packet(struct outbuf *ob, const struct fields_out *fo, const struct dump_pkt *d)
{
	struct fld_val v[FLD_MAX_OCC];

	for (size_t i = 0; i < fo->count; i++) {
		const struct dump_field *f = fo->fields[i];
		int n = dump_field_get(f, d, v), first = 0, last = n - 1;

		if (i)
			ob_char(ob, fo->separator);
		if (fo->occurrence == FIELDS_OCC_FIRST)
			last = 0;
		else if (fo->occurrence == FIELDS_OCC_LAST)
			first = last;
		else if (fo->occurrence > 0)
			first = last = fo->occurrence - 1;
		if (n == 0 || first >= n)
			continue;
		quote(ob, fo);
		for (int k = first; k <= last; k++) {
			if (k > first)
				ob_char(ob, fo->aggregator);
			dump_field_format(ob, f, &v[k]);
		}
		quote(ob, fo);
	}
	ob_char(ob, '\n');
}

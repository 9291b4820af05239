/* SPDX-License-Identifier: MIT */
/* The field-table machinery: lookup, the generic (table-driven) getter and tshark 4.0's
 * `-T fields` value formats. */
#include "fields.h"

#include <string.h>

#include "outbuf.h"

/* Integers that JSON readers (IEEE doubles) hold exactly. */
#define JSON_MAX_INT (1ull << 53)

static const struct {
	const struct dump_field_group *groups;
	const size_t *count;
} group_sets[] = {
	{dump_core_groups, &dump_core_group_count},
	{dump_mgmt_groups, &dump_mgmt_group_count},
	{dump_tail_groups, &dump_tail_group_count},
};

int dump_field_each_group(int (*fn)(void *ctx, const struct dump_field_group *g), void *ctx)
{
	for (size_t s = 0; s < sizeof(group_sets) / sizeof(group_sets[0]); s++)
		for (size_t i = 0; i < *group_sets[s].count; i++) {
			int r = fn(ctx, &group_sets[s].groups[i]);
			if (r)
				return r;
		}
	return 0;
}

struct find_ctx {
	const char *name;
	const struct dump_field *found;
};

static int find_in_group(void *ctx, const struct dump_field_group *g)
{
	struct find_ctx *fc = ctx;

	for (size_t i = 0; i < g->count; i++)
		if (strcmp(g->fields[i].name, fc->name) == 0) {
			fc->found = &g->fields[i];
			return 1;
		}
	return 0;
}

const struct dump_field *dump_field_find(const char *name)
{
	struct find_ctx fc = {name, NULL};

	dump_field_each_group(find_in_group, &fc);
	return fc.found;
}

/* An unsigned integer of 1, 2, 4 or 8 bytes (bool counts as 1) at p. */
static uint64_t read_uint(const void *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static int table_get(const struct dump_field *f, const struct dump_pkt *d, struct fld_val *out)
{
	const uint8_t *base = (const uint8_t *)d + f->off;

	if ((d->pkt.layers & f->layers) != f->layers)
		return 0;
	if (f->ext && !(d->pkt.ext.present & f->ext))
		return 0;
	memset(out, 0, sizeof(*out));
	if (f->src == FLD_SRC_FRAME) {
		size_t off = (size_t)read_uint(base, sizeof(size_t));
		if (off > d->pkt.frame_len || d->pkt.frame_len - off < f->size)
			return 0;
		out->bytes = d->pkt.frame + off;
		out->len = f->size;
		return 1;
	}
	switch (f->fmt) {
	case FLD_IPV4:
	case FLD_IPV6:
	case FLD_ETHER:
	case FLD_BYTES:
		out->bytes = base;
		out->len = f->size;
		return 1;
	default:
		out->u = read_uint(base, f->size) >> f->shift;
		if (f->mask)
			out->u &= f->mask;
		return 1;
	}
}

int dump_field_get(const struct dump_field *f, const struct dump_pkt *d, struct fld_val *out)
{
	return f->get ? f->get(d, out) : table_get(f, d, out);
}

/* Text from the packet (a node description, say) may hold any byte: escape what could break
 * a line or a terminal, as tshark escapes tabs and newlines. */
static void format_text(struct outbuf *ob, const char *s)
{
	static const char esc_from[] = "\t\n\r\\", esc_to[] = "tnr\\";

	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		const char *e = strchr(esc_from, *c);
		if (e) {
			ob_char(ob, '\\');
			ob_char(ob, esc_to[e - esc_from]);
		} else if (*c < 0x20 || *c >= 0x7F) {
			ob_str(ob, "\\x");
			ob_hex(ob, *c, 2);
		} else {
			ob_char(ob, (char)*c);
		}
	}
}

void dump_field_format(struct outbuf *ob, const struct dump_field *f, const struct fld_val *v)
{
	switch (f->fmt) {
	case FLD_DEC:
		ob_dec(ob, v->u);
		break;
	case FLD_HEX:
		ob_str(ob, "0x");
		ob_hex(ob, v->u, f->width);
		break;
	case FLD_BOOL:
		ob_char(ob, v->u ? '1' : '0');
		break;
	case FLD_IPV4:
		if (v->len == 4)
			ob_ipv4(ob, v->bytes);
		break;
	case FLD_IPV6:
		if (v->len == 16)
			ob_ipv6(ob, v->bytes);
		break;
	case FLD_ETHER:
		for (size_t i = 0; i < v->len; i++) {
			if (i)
				ob_char(ob, ':');
			ob_hex(ob, v->bytes[i], 2);
		}
		break;
	case FLD_BYTES:
		ob_hex_bytes(ob, v->bytes, v->len);
		break;
	case FLD_STRING:
		format_text(ob, v->str ? v->str : "");
		break;
	case FLD_TIME:
		ob_dec(ob, v->u / 1000000000u);
		ob_char(ob, '.');
		ob_dec_pad(ob, v->u % 1000000000u, 9);
		break;
	}
}

void dump_field_print(FILE *out, const struct dump_field *f, const struct fld_val *v)
{
	struct outbuf ob;

	ob_init(&ob, out);
	dump_field_format(&ob, f, v);
	ob_flush(&ob);
}

bool dump_field_is_number(const struct dump_field *f, const struct fld_val *v)
{
	switch (f->fmt) {
	case FLD_DEC:
	case FLD_HEX:
		return v->u < JSON_MAX_INT;
	default:
		return false;
	}
}

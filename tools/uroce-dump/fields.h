/* SPDX-License-Identifier: MIT */
/* The field table: one entry per named field (tshark's names for the InfiniBand dissector,
 * `uroce.*` for what tshark lacks). The same table drives `-T fields`, `-T json` and `-V`, so
 * a field's name, value and meaning are defined once. */
#ifndef UROCE_DUMP_FIELDS_H
#define UROCE_DUMP_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect.h"

struct outbuf;

/* How a value prints, matching tshark 4.0's -T fields output for the field's type. */
enum fld_fmt {
	FLD_DEC,     /* unsigned decimal */
	FLD_HEX,     /* 0x + `width` zero-padded lower-case hex digits */
	FLD_BOOL,    /* 0 or 1 */
	FLD_IPV4,    /* dotted quad from 4 bytes */
	FLD_IPV6,    /* RFC 5952 text from 16 bytes */
	FLD_BYTES,   /* lower-case hex, no separators */
	FLD_STRING,  /* text */
	FLD_TIME,    /* seconds.nanoseconds */
	FLD_ETHER,   /* aa:bb:cc:dd:ee:ff from 6 bytes */
};

/* One occurrence of a field's value. */
struct fld_val {
	uint64_t u;          /* integers, booleans and FLD_TIME (ns) */
	const uint8_t *bytes; /* IPv4/IPv6/ETHER/BYTES */
	size_t len;
	const char *str;     /* FLD_STRING */
};

#define FLD_MAX_OCC 8

/* Getter helpers: one occurrence of an integer, or of a string (none when s is NULL). */
static inline int fld_one(struct fld_val *out, uint64_t u)
{
	*out = (struct fld_val){.u = u};
	return 1;
}

static inline int fld_one_bytes(struct fld_val *out, const uint8_t *p, size_t len)
{
	*out = (struct fld_val){.bytes = p, .len = len};
	return 1;
}

static inline int fld_one_str(struct fld_val *out, const char *s)
{
	*out = (struct fld_val){.str = s};
	return s ? 1 : 0;
}

/* Where a table-driven field (get == NULL) finds its value. */
enum fld_src {
	FLD_SRC_PKT,   /* the member of struct dump_pkt at `off`, `size` bytes (an integer, or
			* the bytes themselves for IPv4/IPv6/ETHER/BYTES) */
	FLD_SRC_FRAME, /* `size` frame bytes at the frame offset held in the size_t member at `off` */
};

/* Field flags. */
enum fld_flag {
	FLD_F_RAW = 1u << 0, /* a whole header as bytes: -T fields and -T json only, not -V */
};

struct dump_field {
	const char *name;   /* "infiniband.bth.opcode" */
	const char *label;  /* "Opcode", for -V */
	uint8_t fmt;        /* enum fld_fmt */
	uint8_t width;      /* FLD_HEX digits */
	/* Fills up to FLD_MAX_OCC occurrences; returns how many (0: absent in this packet).
	 * NULL: the field is table-driven, by the members below. */
	int (*get)(const struct dump_pkt *d, struct fld_val *out);
	/* Optional meaning for -V ("RC SEND First", "NAK: Remote Access Error"). */
	const char *(*meaning)(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			       size_t len);
	/* Table-driven access (get == NULL): the field is present when pkt.layers holds every
	 * bit of `layers` and, if `ext` is not 0, pkt.ext.present holds one of its bits; its value
	 * is read as `src` says, then shifted right by `shift` and masked with `mask` (0: no mask). */
	uint8_t src;        /* enum fld_src */
	uint8_t size;
	uint16_t off;
	uint32_t layers;    /* enum uroce_layer set */
	uint16_t ext;       /* enum uroce_exthdr_bit set */
	uint8_t shift;
	uint32_t mask;
	uint8_t flags;      /* enum fld_flag set */
};

/* A group of fields registered by one layer's file (fields_core.c, fields_mgmt.c). */
struct dump_field_group {
	const char *title; /* "Base Transport Header", for -V */
	const struct dump_field *fields;
	size_t count;
};

/* The groups, in -V order: the link, IP and InfiniBand transport headers (fields_core.c),
 * the management and IPoIB layers (fields_mgmt.c), then the payload and the CRCs that end
 * the packet (fields_core.c). */
extern const struct dump_field_group dump_core_groups[];
extern const size_t dump_core_group_count;
extern const struct dump_field_group dump_mgmt_groups[];
extern const size_t dump_mgmt_group_count;
extern const struct dump_field_group dump_tail_groups[];
extern const size_t dump_tail_group_count;

/* The field named `name`, or NULL. Groups are searched in -V order. */
const struct dump_field *dump_field_find(const char *name);
/* Calls fn for every group in -V order until fn returns non-zero, which it returns. */
int dump_field_each_group(int (*fn)(void *ctx, const struct dump_field_group *g), void *ctx);
/* The occurrences of f in d (0: absent); the only way callers read a field. */
int dump_field_get(const struct dump_field *f, const struct dump_pkt *d, struct fld_val *out);
/* Prints one value as tshark -T fields would. */
void dump_field_print(FILE *out, const struct dump_field *f, const struct fld_val *v);
/* The same, added to a packet's text. */
void dump_field_format(struct outbuf *ob, const struct dump_field *f, const struct fld_val *v);
/* Whether the value is a JSON number: an integer below 2^53, which a double holds exactly. */
bool dump_field_is_number(const struct dump_field *f, const struct fld_val *v);

#endif

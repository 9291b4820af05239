/* SPDX-License-Identifier: MIT */
/* The field table: one entry per named field (tshark's names for the InfiniBand dissector,
 * `uroce.*` for what tshark lacks). The same table drives `-T fields`, `-T json` and `-V`, so
 * a field's name, value and meaning are defined once. */
#ifndef UROCE_DUMP_FIELDS_H
#define UROCE_DUMP_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect.h"

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
};

/* One occurrence of a field's value. */
struct fld_val {
	uint64_t u;          /* integers and booleans */
	const uint8_t *bytes; /* IPv4/IPv6/BYTES */
	size_t len;
	const char *str;     /* FLD_STRING */
};

#define FLD_MAX_OCC 8

struct dump_field {
	const char *name;   /* "infiniband.bth.opcode" */
	const char *label;  /* "Opcode", for -V */
	uint8_t fmt;        /* enum fld_fmt */
	uint8_t width;      /* FLD_HEX digits */
	/* Fills up to FLD_MAX_OCC occurrences; returns how many (0: absent in this packet). */
	int (*get)(const struct dump_pkt *d, struct fld_val *out);
	/* Optional meaning for -V ("RC SEND First", "NAK: Remote Access Error"). */
	const char *(*meaning)(const struct dump_pkt *d, const struct fld_val *v, char *buf,
			       size_t len);
};

/* A group of fields registered by one layer's file (fields_ib.c, fields_mad.c, ...). */
struct dump_field_group {
	const char *title; /* "Base Transport Header", for -V */
	const struct dump_field *fields;
	size_t count;
};

/* The groups, in -V order: the link, IP and InfiniBand transport layers (fields_core.c),
 * then the management and IPoIB layers (fields_mgmt.c). */
extern const struct dump_field_group dump_core_groups[];
extern const size_t dump_core_group_count;
extern const struct dump_field_group dump_mgmt_groups[];
extern const size_t dump_mgmt_group_count;

const struct dump_field *dump_field_find(const char *name);
/* Prints one value as tshark -T fields would. */
void dump_field_print(FILE *out, const struct dump_field *f, const struct fld_val *v);

#endif

/* SPDX-License-Identifier: MIT */
/* Names of protocol values shared by the output modes (one line, -V meanings): each is one
 * table looked up by value. */
#ifndef UROCE_DUMP_NAMES_H
#define UROCE_DUMP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct outbuf;

struct dump_name {
	uint32_t value;
	const char *name;
};

/* The name of value in table[0..n), or NULL. */
const char *dump_name_find(const struct dump_name *table, size_t n, uint32_t value);

const char *dump_ethertype_name(uint16_t type); /* "IPv4", "ARP", "RoCE v1"; NULL if unknown */
const char *dump_ipproto_name(uint8_t proto);   /* "UDP", "ICMP"; NULL if unknown */
const char *dump_ecn_name(uint8_t ecn);         /* "Not-ECT", "ECT(1)", "ECT(0)", "CE" */
const char *dump_lnh_name(uint8_t lnh);
const char *dump_aeth_type_name(uint8_t type);  /* "ACK", "RNR NAK", "reserved", "NAK" */
/* "0.64 ms": an RNR NAK timer value as the time it stands for. */
const char *dump_rnr_text(uint8_t timer, char *buf, size_t len);
/* The opcode as "RC RDMA_WRITE_ONLY" ("CNP" for the CNP), or NULL when it is invalid. */
const char *dump_opcode_text(uint8_t opcode, char *buf, size_t len);
/* The same text after a space, added to ob; false (and nothing added) when it is invalid. */
bool dump_opcode_put(struct outbuf *ob, uint8_t opcode);

/* tshark shows a CRC as its wire bytes read big-endian, the byte swap of the CRC value (the
 * CRCs are stored least-significant byte first): uroce-dump prints CRCs in that same order so
 * that its values compare directly with tshark's. */
static inline uint32_t dump_crc32_shown(uint32_t crc)
{
	return crc >> 24 | (crc >> 8 & 0xFF00) | (crc << 8 & 0xFF0000) | crc << 24;
}
static inline uint16_t dump_crc16_shown(uint16_t crc) { return (uint16_t)(crc >> 8 | crc << 8); }

#endif

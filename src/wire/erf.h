/* SPDX-License-Identifier: MIT */
/* Endace ERF (Extensible Record Format) records: a raw .erf file is a plain sequence of them (no
 * file header), and pcap link type 197 (DLT_ERF) carries one per pcap record. Sources: the
 * Endace DAG card user guides (EDM01 "Data formats") and the Wireshark wiki page on ERF; checked
 * on ../shared/testdata/captures/ib-native.erf and ib-native-erf.pcap with tshark.
 *
 *   off len
 *    0   8  timestamp, little-endian 64-bit 32.32 fixed point: seconds since the Unix epoch
 *           in the high 32 bits, binary fraction of a second in the low 32
 *    8   1  type: bits 6..0 record type, bit 7 = extension headers present
 *    9   1  flags: bits 1..0 capture interface, 2 varying length, 3 truncated (deprecated),
 *           4 RX error, 5 DS error, 7..6 reserved
 *   10   2  rlen, big-endian: the whole record, this header included; the next record starts
 *           rlen bytes after this one
 *   12   2  lctr, big-endian: loss counter (the color for the COLOR_* types)
 *   14   2  wlen, big-endian: the packet's length on the wire
 *   16      extension headers, 8 bytes each, bit 7 of the first byte = another one follows
 *           then the type's own header: ETH (2) has 2 bytes (offset, pad) before the frame;
 *           INFINIBAND (21) has none, the packet starts at the LRH
 *           then the packet, then padding up to rlen
 *
 * The sample file has all records of type 21 with the varying-length flag, rlen = 16 + wlen
 * rounded up to a multiple of 8 (zero padding), and wlen = LRH through VCRC. The pcap version
 * of the same records keeps rlen but cuts each record at 16 + wlen (pcap caplen < rlen), which
 * is why a second, snapped decoder exists. */
#ifndef UROCE_WIRE_ERF_H
#define UROCE_WIRE_ERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UROCE_ERF_HDR_LEN 16
#define UROCE_ERF_EXT_LEN 8
#define UROCE_ERF_ETH_PAD 2
#define UROCE_ERF_ALIGN 8 /* what uroce_erf_encode pads records to */

#define UROCE_ERF_TYPE_ETH 2
#define UROCE_ERF_TYPE_INFINIBAND 21
#define UROCE_ERF_TYPE_EXT 0x80 /* type byte: extension headers present */

#define UROCE_ERF_FLAG_IFACE 0x03 /* capture interface 0..3 (A..D) */
#define UROCE_ERF_FLAG_VLEN 0x04  /* varying-length record */
#define UROCE_ERF_FLAG_TRUNC 0x08 /* truncated record (deprecated by Endace) */
#define UROCE_ERF_FLAG_RXERR 0x10 /* error on the wire */
#define UROCE_ERF_FLAG_DSERR 0x20 /* error inside the capture card */

/* What the record's payload is. */
enum uroce_erf_link {
	UROCE_ERF_LINK_UNSUPPORTED = 0, /* any other type: decoded, payload left uninterpreted */
	UROCE_ERF_LINK_IB,              /* type 21: an InfiniBand packet starting at the LRH */
	UROCE_ERF_LINK_ETH,             /* type 2: an Ethernet frame */
};

struct uroce_erf {
	uint64_t ts;       /* the raw 32.32 fixed-point timestamp */
	uint64_t ts_ns;    /* the same in nanoseconds since the epoch, rounded to nearest */
	uint8_t type;      /* 7 bits */
	bool ext;          /* type bit 7 */
	uint8_t flags;     /* UROCE_ERF_FLAG_* */
	uint16_t rlen;
	uint16_t lctr;     /* loss counter or color */
	uint16_t wlen;
	unsigned n_ext;    /* extension headers skipped */
	enum uroce_erf_link link;
	/* From the start of the record: the packet for IB/ETH (after the extension headers and
	 * the ETH pad); for an unsupported type, the bytes after the extension headers. */
	size_t payload_off;
	/* IB/ETH: the packet bytes present, min(wlen, end - payload_off) where end is rlen
	 * (or the snapped length), so record padding is excluded. Unsupported types: end -
	 * payload_off. */
	size_t payload_len;
	bool snapped;      /* uroce_erf_decode_snap only: the buffer ended before rlen */
};

/* Decodes one complete record at p. Returns rlen (the bytes to skip to the next record), or:
 *   UROCE_EINVAL   out or p is NULL;
 *   UROCE_ETRUNC   len < 16, or len < rlen;
 *   UROCE_EBADLEN  rlen < 16, or the extension headers or the ETH pad run past rlen.
 * Never reads outside p[0..min(len, rlen)). */
ssize_t uroce_erf_decode(struct uroce_erf *out, const uint8_t *p, size_t len);

/* Decodes a record that the capture may have cut short, as pcap DLT_ERF records are (pcap
 * caplen < rlen). Only the fixed header, the extension headers and the ETH pad must be present;
 * then the record is taken to end at end = min(len, rlen), out->snapped = len < rlen, and
 * payload_len counts the packet bytes present, up to wlen. Returns end, or:
 *   UROCE_EINVAL   out or p is NULL;
 *   UROCE_ETRUNC   len < 16, or the buffer ends inside the extension headers or the ETH pad;
 *   UROCE_EBADLEN  as for uroce_erf_decode.
 * A buffer holding the whole record gives the same result as uroce_erf_decode. */
ssize_t uroce_erf_decode_snap(struct uroce_erf *out, const uint8_t *p, size_t len);

/* Writes one record for the packet pkt[0..pkt_len): the 16-byte header from in->ts, type, flags,
 * lctr and wlen (rlen is computed, the extension bit left clear), the ETH pad (zeros) for
 * type 2, the packet, and zeros up to a multiple of 8, as DAG cards write them. in->type must
 * be UROCE_ERF_TYPE_ETH or UROCE_ERF_TYPE_INFINIBAND. Returns rlen, or:
 *   UROCE_EINVAL    a NULL pointer, another type, in->ext or in->n_ext set, in->wlen < pkt_len,
 *                   or a record longer than 65535 bytes;
 *   UROCE_ENOSPACE  len < rlen (nothing written). */
ssize_t uroce_erf_encode(const struct uroce_erf *in, const uint8_t *pkt, size_t pkt_len,
			 uint8_t *p, size_t len);

/* 32.32 fixed-point seconds <-> nanoseconds, both rounded to nearest. ns -> ts -> ns is exact
 * below 2^32 seconds (the year 2106), where the 32-bit seconds field ends. */
uint64_t uroce_erf_ts_to_ns(uint64_t ts);
uint64_t uroce_erf_ts_from_ns(uint64_t ns);

#endif

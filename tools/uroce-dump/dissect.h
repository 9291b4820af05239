/* SPDX-License-Identifier: MIT */
/* One captured frame as uroce-dump sees it: the wire-layer dissection plus the management
 * (MAD, SMP, SA, RMPP, CM) and IPoIB layers, and the CRC verdicts. */
#ifndef UROCE_DUMP_DISSECT_H
#define UROCE_DUMP_DISSECT_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/ipoib.h"
#include "wire/mad.h"
#include "wire/packet.h"

/* A frame as read from a capture. */
struct dump_frame {
	uint64_t number;     /* 1-based */
	uint64_t ts_ns;      /* capture time, ns since the epoch */
	uint32_t caplen;     /* bytes in data */
	uint32_t wirelen;    /* bytes on the wire */
	enum uroce_link link;
	const uint8_t *data;
	/* Set when the frame cannot be handed to the wire dissector: what it is ("ERF type 7",
	 * "Linux cooked capture, protocol 0x0806 (ARP)"). err is then a UROCE_E* code when the
	 * capture record itself is broken, else 0. */
	const char *undecoded;
	int err;
};

struct dump_pkt {
	const struct dump_frame *frame;
	struct uroce_pkt pkt;
	enum uroce_crc_status icrc_status;
	uint32_t icrc_computed;
	enum uroce_crc_status vcrc_status;
	uint16_t vcrc_computed;
	bool has_mgmt;          /* payload decoded as a MAD (DestQP 0 or 1) */
	struct uroce_mgmt mgmt;
	bool has_ipoib;         /* payload decoded as IPoIB (native IB UD/RC with an IPoIB header) */
	struct uroce_ipoib ipoib;
	bool malformed;         /* a header was cut short or inconsistent: see err */
	int err;                /* the first negative UROCE_E* code met: pkt.err, or the MAD or
				 * IPoIB decoder's */
	const char *err_where;  /* the layer that failed ("BTH", "MAD"), NULL when err is 0 */
};

/* Dissects frame into out (which keeps a pointer to frame). It sets each member of struct
 * dump_pkt itself rather than clearing the whole struct (see dissect.c): a member added here
 * must be set there too. mgmt and ipoib are valid only when has_mgmt and has_ipoib are. */
void dump_dissect(struct dump_pkt *out, const struct dump_frame *frame);

#endif

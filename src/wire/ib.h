/* SPDX-License-Identifier: MIT */
/* InfiniBand headers: LRH, GRH, BTH and every extended header (IBA Vol. 1 chapter 9; Annex A17
 * for RoCEv2). Decoders follow one contract: `ssize_t decode(out, p, len)` returns the bytes
 * consumed or a negative UROCE_E* code and never reads past p + len; encoders return the bytes
 * written or UROCE_ENOSPACE. Reserved fields are kept so that a decode/encode round trip is
 * byte-exact. */
#ifndef UROCE_WIRE_IB_H
#define UROCE_WIRE_IB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "opcode.h"

#define UROCE_LRH_LEN 8
#define UROCE_GRH_LEN 40
#define UROCE_BTH_LEN 12
#define UROCE_ICRC_LEN 4
#define UROCE_VCRC_LEN 2
#define UROCE_CNP_RSV_LEN 16
#define UROCE_ATOMIC_WRITE_LEN 8 /* the ATOMIC WRITE payload */
#define UROCE_ROCEV2_UDP_PORT 4791
#define UROCE_ROCEV1_ETHERTYPE 0x8915

/* LRH.LNH: what follows the LRH (IBA 7.7.1). */
enum uroce_lnh {
	UROCE_LNH_RAW = 0,       /* raw: a 4-byte RWH with an EtherType follows (e.g. raw IPv4) */
	UROCE_LNH_IP_NONIBA = 1, /* raw IPv6: an IPv6 header follows */
	UROCE_LNH_IBA_LOCAL = 2, /* BTH follows */
	UROCE_LNH_IBA_GLOBAL = 3, /* GRH, then BTH */
};

struct uroce_lrh {
	uint8_t vl;      /* 4 bits */
	uint8_t lver;    /* 4 bits */
	uint8_t sl;      /* 4 bits */
	uint8_t rsv2;    /* 2 reserved bits */
	uint8_t lnh;     /* 2 bits, enum uroce_lnh */
	uint16_t dlid;
	uint8_t rsv5;    /* 5 reserved bits */
	uint16_t pktlen; /* 11 bits, in 4-byte words from LRH through ICRC */
	uint16_t slid;
};

struct uroce_grh {
	uint8_t ipver;      /* 4 bits, 6 */
	uint8_t tclass;
	uint32_t flowlabel; /* 20 bits */
	uint16_t paylen;
	uint8_t nxthdr;     /* 0x1B: an IBA transport header follows */
	uint8_t hoplmt;
	uint8_t sgid[16];
	uint8_t dgid[16];
};

struct uroce_bth {
	uint8_t opcode;
	bool se;
	bool m;
	uint8_t padcnt; /* 2 bits */
	uint8_t tver;   /* 4 bits */
	uint16_t pkey;
	bool fecn;      /* byte 4 bit 7: native IB only, ignored by RoCEv2 (CA17-29) */
	bool becn;      /* byte 4 bit 6 */
	uint8_t rsv6;   /* byte 4 bits 5..0 */
	uint32_t destqp; /* 24 bits */
	bool ackreq;
	uint8_t rsv7;   /* byte 8 bits 6..0 */
	uint32_t psn;   /* 24 bits */
};

struct uroce_rdeth {
	uint8_t rsv;
	uint32_t eecnxt; /* 24 bits */
};

struct uroce_deth {
	uint32_t qkey;
	uint8_t rsv;
	uint32_t srcqp; /* 24 bits */
};

struct uroce_xrceth {
	uint8_t rsv;
	uint32_t xrcsrq; /* 24 bits */
};

/* FETH (IBA 1.5 FLUSH): selectivity level and placement type; Linux rxe_hdr.h FETH_SEL_MASK
 * 0x30, FETH_PLT_MASK 0x0f. */
struct uroce_feth {
	uint32_t rsv; /* bits 31..6 */
	uint8_t sel;  /* 2 bits */
	uint8_t plt;  /* 4 bits */
};

struct uroce_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
};

struct uroce_atomiceth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap;
	uint64_t cmp;
};

/* AETH syndrome: bit 7 reserved, bits 6..5 type, bits 4..0 value (facts.md section 7). */
enum uroce_aeth_type {
	UROCE_AETH_ACK = 0,
	UROCE_AETH_RNR_NAK = 1,
	UROCE_AETH_RESERVED = 2,
	UROCE_AETH_NAK = 3,
};

/* NAK codes (IBA 9.7.5.2.4, Table 44). */
#define UROCE_NAK_MAP(X)                                      \
	X(PSN_SEQ_ERR, 0, "PSN Sequence Error")               \
	X(INVALID_REQ, 1, "Invalid Request")                  \
	X(REMOTE_ACCESS, 2, "Remote Access Error")            \
	X(REMOTE_OP, 3, "Remote Operational Error")           \
	X(INVALID_RD_REQ, 4, "Invalid RD Request")

enum uroce_nak_code {
#define UROCE_NAK_ENUM(id, v, name) UROCE_NAK_##id = v,
	UROCE_NAK_MAP(UROCE_NAK_ENUM)
#undef UROCE_NAK_ENUM
};

#define UROCE_AETH_CREDIT_INVALID 31 /* ACK without credit information */

struct uroce_aeth {
	uint8_t syndrome;
	uint32_t msn; /* 24 bits */
};

static inline enum uroce_aeth_type uroce_aeth_type(uint8_t syndrome)
{
	return (enum uroce_aeth_type)((syndrome >> 5) & 3);
}
static inline uint8_t uroce_aeth_value(uint8_t syndrome) { return syndrome & 0x1F; }
static inline uint8_t uroce_aeth_syndrome(enum uroce_aeth_type type, uint8_t value)
{
	return (uint8_t)((unsigned)type << 5 | (value & 0x1F));
}

/* RNR NAK timer value (5 bits) to microseconds (IBA 9.7.5.2.8, Table 45); 0 is 655.36 ms. */
uint32_t uroce_rnr_timer_us(uint8_t timer);
/* ACK credit-count code (0..30) to the number of credits (IBA 9.7.7.2.5, Table 46);
 * returns -1 for 31 (no credit information). */
int32_t uroce_aeth_credits(uint8_t code);
/* Name of a NAK code, or NULL when the code is reserved. */
const char *uroce_nak_name(uint8_t code);
/* One-line meaning of a syndrome: "ACK (credits 32)", "RNR NAK (1.28 ms)", "NAK: Remote Access
 * Error". Writes into buf and returns it. */
const char *uroce_aeth_describe(uint8_t syndrome, char *buf, size_t len);

struct uroce_atomicacketh {
	uint64_t orig;
};

/* The extended headers of one packet; `present` holds the enum uroce_exthdr_bit set. */
struct uroce_ext {
	uint16_t present;
	struct uroce_rdeth rdeth;
	struct uroce_deth deth;
	struct uroce_xrceth xrceth;
	struct uroce_feth feth;
	struct uroce_reth reth;
	struct uroce_atomiceth atomiceth;
	struct uroce_aeth aeth;
	struct uroce_atomicacketh atomicacketh;
	uint32_t immdt;
	uint32_t ieth; /* the R_Key to invalidate */
	uint8_t cnp_rsv[UROCE_CNP_RSV_LEN];
};

ssize_t uroce_lrh_decode(struct uroce_lrh *out, const uint8_t *p, size_t len);
ssize_t uroce_lrh_encode(const struct uroce_lrh *in, uint8_t *p, size_t len);
ssize_t uroce_grh_decode(struct uroce_grh *out, const uint8_t *p, size_t len);
ssize_t uroce_grh_encode(const struct uroce_grh *in, uint8_t *p, size_t len);
ssize_t uroce_bth_decode(struct uroce_bth *out, const uint8_t *p, size_t len);
ssize_t uroce_bth_encode(const struct uroce_bth *in, uint8_t *p, size_t len);

/* Decodes the extended headers named by `headers` (an opcode's mask) in wire order. */
ssize_t uroce_ext_decode(struct uroce_ext *out, uint16_t headers, const uint8_t *p, size_t len);
/* Encodes the headers in in->present, in wire order. */
ssize_t uroce_ext_encode(const struct uroce_ext *in, uint8_t *p, size_t len);

#endif

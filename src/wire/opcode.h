/* SPDX-License-Identifier: MIT */
/* The BTH opcode table: one X-macro list drives the enum, the names and the header layout of
 * every opcode (IBA Vol. 1 9.2, Table 36 "OpCode field"; Annex A17.9.3 for the CNP; IBA 1.5
 * adds FLUSH 0x1C and ATOMIC WRITE 0x1D). The upper 3 bits select the transport, the lower 5
 * the operation. Any value not in the list is invalid for its transport and is reported as
 * such, never guessed. */
#ifndef UROCE_WIRE_OPCODE_H
#define UROCE_WIRE_OPCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Transports: the upper three opcode bits (IBA Table 36). */
#define UROCE_TRANSPORT_MAP(X)  \
	X(RC, 0x00, "RC")       \
	X(UC, 0x20, "UC")       \
	X(RD, 0x40, "RD")       \
	X(UD, 0x60, "UD")       \
	X(CNP, 0x80, "CNP")     \
	X(XRC, 0xA0, "XRC")     \
	X(RSV6, 0xC0, "RSV6")   \
	X(MFR, 0xE0, "MFR")

enum uroce_transport {
#define UROCE_TP_ENUM(tp, base, name) UROCE_TP_##tp = base,
	UROCE_TRANSPORT_MAP(UROCE_TP_ENUM)
#undef UROCE_TP_ENUM
};

/* Extended headers, in the order they follow the BTH (IBA 9.2 and Annex A17.9.3). A packet's
 * headers are exactly the set bits of its opcode's mask, walked from the lowest bit up. */
#define UROCE_EXTHDR_MAP(X)                                        \
	X(RDETH, 4, "RDETH", "Reliable Datagram ETH")              \
	X(DETH, 8, "DETH", "Datagram ETH")                         \
	X(XRCETH, 4, "XRCETH", "XRC ETH")                          \
	X(FETH, 4, "FETH", "Flush ETH")                            \
	X(RETH, 16, "RETH", "RDMA ETH")                            \
	X(ATOMICETH, 28, "AtomicETH", "Atomic ETH")                \
	X(AETH, 4, "AETH", "ACK ETH")                              \
	X(ATOMICACKETH, 8, "AtomicAckETH", "Atomic ACK ETH")       \
	X(IMMDT, 4, "ImmDt", "Immediate data")                     \
	X(IETH, 4, "IETH", "Invalidate ETH")                       \
	X(CNPRSV, 16, "CNP reserved", "CNP reserved bytes")

enum uroce_exthdr_index {
#define UROCE_EH_INDEX(id, size, name, desc) UROCE_EHI_##id,
	UROCE_EXTHDR_MAP(UROCE_EH_INDEX)
#undef UROCE_EH_INDEX
	UROCE_EHI_COUNT
};

enum uroce_exthdr_bit {
#define UROCE_EH_BIT(id, size, name, desc) UROCE_EH_##id = 1u << UROCE_EHI_##id,
	UROCE_EXTHDR_MAP(UROCE_EH_BIT)
#undef UROCE_EH_BIT
};

/* Size in bytes of one extended header, by index. */
extern const uint8_t uroce_exthdr_size[UROCE_EHI_COUNT];
extern const char *const uroce_exthdr_name[UROCE_EHI_COUNT];

/* Opcode flags. FIRST|LAST is an ONLY packet. */
enum uroce_op_flag {
	UROCE_OPF_PAYLOAD = 1u << 0, /* carries a payload (possibly empty for SEND/WRITE ONLY) */
	UROCE_OPF_FIRST = 1u << 1,   /* starts a message */
	UROCE_OPF_MIDDLE = 1u << 2,
	UROCE_OPF_LAST = 1u << 3,    /* ends a message */
	UROCE_OPF_REQ = 1u << 4,     /* sent by a requester */
	UROCE_OPF_RESP = 1u << 5,    /* sent by a responder */
	UROCE_OPF_ONLY = UROCE_OPF_FIRST | UROCE_OPF_LAST,
};

/* Kinds of operation, for message reconstruction and statistics. */
#define UROCE_OPKIND_MAP(X)      \
	X(SEND, "SEND")          \
	X(WRITE, "RDMA WRITE")   \
	X(READ_REQ, "RDMA READ request") \
	X(READ_RESP, "RDMA READ response") \
	X(ACK, "ACK")            \
	X(ATOMIC, "ATOMIC")      \
	X(ATOMIC_ACK, "ATOMIC ACK") \
	X(RESYNC, "RESYNC")      \
	X(FLUSH, "FLUSH")        \
	X(ATOMIC_WRITE, "ATOMIC WRITE") \
	X(CNP, "CNP")

enum uroce_opkind {
	UROCE_OPK_NONE = 0,
#define UROCE_OPK_ENUM(k, name) UROCE_OPK_##k,
	UROCE_OPKIND_MAP(UROCE_OPK_ENUM)
#undef UROCE_OPK_ENUM
};

/* Header sets used by the rows below. */
#define EH_RD_REQ (UROCE_EH_RDETH | UROCE_EH_DETH)
#define F_REQ_PAY (UROCE_OPF_REQ | UROCE_OPF_PAYLOAD)
#define F_RSP_PAY (UROCE_OPF_RESP | UROCE_OPF_PAYLOAD)

/* The operations common to RC, UC, RD and XRC, by their low 5 bits (IBA Table 36):
 * X(low5, NAME, kind, headers, flags). Transport-specific headers (RDETH/DETH for RD, XRCETH
 * for XRC requests) are added by the transport rows in UROCE_OPCODE_MAP. */
#define UROCE_OPS_SEND(X, T, EH)                                                                \
	X(T, 0x00, SEND_FIRST, SEND, EH, F_REQ_PAY | UROCE_OPF_FIRST)                           \
	X(T, 0x01, SEND_MIDDLE, SEND, EH, F_REQ_PAY | UROCE_OPF_MIDDLE)                         \
	X(T, 0x02, SEND_LAST, SEND, EH, F_REQ_PAY | UROCE_OPF_LAST)                             \
	X(T, 0x03, SEND_LAST_WITH_IMMEDIATE, SEND, EH | UROCE_EH_IMMDT, F_REQ_PAY | UROCE_OPF_LAST) \
	X(T, 0x04, SEND_ONLY, SEND, EH, F_REQ_PAY | UROCE_OPF_ONLY)                             \
	X(T, 0x05, SEND_ONLY_WITH_IMMEDIATE, SEND, EH | UROCE_EH_IMMDT, F_REQ_PAY | UROCE_OPF_ONLY)

#define UROCE_OPS_WRITE(X, T, EH)                                                               \
	X(T, 0x06, RDMA_WRITE_FIRST, WRITE, EH | UROCE_EH_RETH, F_REQ_PAY | UROCE_OPF_FIRST)    \
	X(T, 0x07, RDMA_WRITE_MIDDLE, WRITE, EH, F_REQ_PAY | UROCE_OPF_MIDDLE)                  \
	X(T, 0x08, RDMA_WRITE_LAST, WRITE, EH, F_REQ_PAY | UROCE_OPF_LAST)                      \
	X(T, 0x09, RDMA_WRITE_LAST_WITH_IMMEDIATE, WRITE, EH | UROCE_EH_IMMDT, F_REQ_PAY | UROCE_OPF_LAST) \
	X(T, 0x0A, RDMA_WRITE_ONLY, WRITE, EH | UROCE_EH_RETH, F_REQ_PAY | UROCE_OPF_ONLY)      \
	X(T, 0x0B, RDMA_WRITE_ONLY_WITH_IMMEDIATE, WRITE, EH | UROCE_EH_RETH | UROCE_EH_IMMDT,  \
	  F_REQ_PAY | UROCE_OPF_ONLY)

/* READ, responses and atomics: EH is added to requests, RSP to responses. */
#define UROCE_OPS_READ_ATOMIC(X, T, EH, RSP)                                                    \
	X(T, 0x0C, RDMA_READ_REQUEST, READ_REQ, EH | UROCE_EH_RETH, UROCE_OPF_REQ | UROCE_OPF_ONLY) \
	X(T, 0x0D, RDMA_READ_RESPONSE_FIRST, READ_RESP, RSP | UROCE_EH_AETH, F_RSP_PAY | UROCE_OPF_FIRST) \
	X(T, 0x0E, RDMA_READ_RESPONSE_MIDDLE, READ_RESP, RSP, F_RSP_PAY | UROCE_OPF_MIDDLE)     \
	X(T, 0x0F, RDMA_READ_RESPONSE_LAST, READ_RESP, RSP | UROCE_EH_AETH, F_RSP_PAY | UROCE_OPF_LAST) \
	X(T, 0x10, RDMA_READ_RESPONSE_ONLY, READ_RESP, RSP | UROCE_EH_AETH, F_RSP_PAY | UROCE_OPF_ONLY) \
	X(T, 0x11, ACKNOWLEDGE, ACK, RSP | UROCE_EH_AETH, UROCE_OPF_RESP | UROCE_OPF_ONLY)      \
	X(T, 0x12, ATOMIC_ACKNOWLEDGE, ATOMIC_ACK, RSP | UROCE_EH_AETH | UROCE_EH_ATOMICACKETH, \
	  UROCE_OPF_RESP | UROCE_OPF_ONLY)                                                      \
	X(T, 0x13, CMP_SWAP, ATOMIC, EH | UROCE_EH_ATOMICETH, UROCE_OPF_REQ | UROCE_OPF_ONLY)   \
	X(T, 0x14, FETCH_ADD, ATOMIC, EH | UROCE_EH_ATOMICETH, UROCE_OPF_REQ | UROCE_OPF_ONLY)

/* SEND with Invalidate (IBA 1.2.1+), FLUSH and ATOMIC WRITE (IBA 1.5 Memory Placement
 * Extensions; Linux rxe_opcode.c: FLUSH = FETH then RETH, ATOMIC WRITE = RETH + 8-byte payload). */
#define UROCE_OPS_EXTENDED(X, T, EH)                                                            \
	X(T, 0x16, SEND_LAST_WITH_INVALIDATE, SEND, EH | UROCE_EH_IETH, F_REQ_PAY | UROCE_OPF_LAST) \
	X(T, 0x17, SEND_ONLY_WITH_INVALIDATE, SEND, EH | UROCE_EH_IETH, F_REQ_PAY | UROCE_OPF_ONLY) \
	X(T, 0x1C, FLUSH, FLUSH, EH | UROCE_EH_FETH | UROCE_EH_RETH, UROCE_OPF_REQ | UROCE_OPF_ONLY) \
	X(T, 0x1D, ATOMIC_WRITE, ATOMIC_WRITE, EH | UROCE_EH_RETH, F_REQ_PAY | UROCE_OPF_ONLY)

/* Every valid opcode: X(transport, low5, NAME, kind, headers, flags). */
#define UROCE_OPCODE_MAP(X)                                                                     \
	UROCE_OPS_SEND(X, RC, 0)                                                                \
	UROCE_OPS_WRITE(X, RC, 0)                                                               \
	UROCE_OPS_READ_ATOMIC(X, RC, 0, 0)                                                      \
	UROCE_OPS_EXTENDED(X, RC, 0)                                                            \
	UROCE_OPS_SEND(X, UC, 0)                                                                \
	UROCE_OPS_WRITE(X, UC, 0)                                                               \
	UROCE_OPS_SEND(X, RD, EH_RD_REQ)                                                        \
	UROCE_OPS_WRITE(X, RD, EH_RD_REQ)                                                       \
	UROCE_OPS_READ_ATOMIC(X, RD, EH_RD_REQ, UROCE_EH_RDETH)                                 \
	X(RD, 0x15, RESYNC, RESYNC, EH_RD_REQ, UROCE_OPF_REQ | UROCE_OPF_ONLY)                  \
	X(UD, 0x04, SEND_ONLY, SEND, UROCE_EH_DETH, F_REQ_PAY | UROCE_OPF_ONLY)                 \
	X(UD, 0x05, SEND_ONLY_WITH_IMMEDIATE, SEND, UROCE_EH_DETH | UROCE_EH_IMMDT,             \
	  F_REQ_PAY | UROCE_OPF_ONLY)                                                           \
	X(CNP, 0x01, CNP, CNP, UROCE_EH_CNPRSV, 0)                                              \
	UROCE_OPS_SEND(X, XRC, UROCE_EH_XRCETH)                                                 \
	UROCE_OPS_WRITE(X, XRC, UROCE_EH_XRCETH)                                                \
	UROCE_OPS_READ_ATOMIC(X, XRC, UROCE_EH_XRCETH, 0)                                       \
	UROCE_OPS_EXTENDED(X, XRC, UROCE_EH_XRCETH)

enum uroce_opcode {
#define UROCE_OP_ENUM(tp, low5, name, kind, eh, fl) UROCE_OP_##tp##_##name = UROCE_TP_##tp | (low5),
	UROCE_OPCODE_MAP(UROCE_OP_ENUM)
#undef UROCE_OP_ENUM
};

struct uroce_opcode_info {
	const char *name;      /* "RC_SEND_FIRST"; NULL for an invalid opcode */
	const char *op_name;   /* "SEND_FIRST" */
	uint16_t headers;      /* enum uroce_exthdr_bit set */
	uint8_t flags;         /* enum uroce_op_flag set */
	uint8_t kind;          /* enum uroce_opkind */
};

/* The entry for any of the 256 values; ->name is NULL when the opcode is not valid for its
 * transport. */
const struct uroce_opcode_info *uroce_opcode_info(uint8_t opcode);
static inline bool uroce_opcode_valid(uint8_t opcode) { return uroce_opcode_info(opcode)->name; }
static inline enum uroce_transport uroce_opcode_transport(uint8_t opcode)
{
	return (enum uroce_transport)(opcode & 0xE0);
}
/* Total size of the extended headers in a mask. */
size_t uroce_exthdr_len(uint16_t headers);
const char *uroce_transport_name(enum uroce_transport tp);
const char *uroce_opkind_name(enum uroce_opkind kind);

#endif

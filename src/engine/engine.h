/* SPDX-License-Identifier: MIT */
/* The InfiniBand transport engine (IBA Vol. 1 chapters 9-11) for RoCEv2 (Annex A17), without
 * I/O (the ngtcp2 model, design.md): it never reads a clock, touches a socket, sleeps, starts
 * a thread or draws random numbers. Its inputs are received datagrams, posted work requests
 * and the passing of time (uroce_dev_on_timer); its outputs are datagrams appended to the
 * caller's transmit batch, work completions in CQs, asynchronous events and the next
 * deadline. Time is a uint64_t count of nanoseconds chosen by the caller.
 *
 * The objects and calls follow libibverbs one to one (PD, MR, CQ, AH, SRQ, QP, post_send,
 * post_recv, poll_cq, modify_qp), and enum values equal their ibv_* counterparts wherever
 * verbs defines one, so that the verbs layer is glue. docs/engine.md describes the model.
 *
 * Not thread-safe by design: one progress thread owns a device and everything in it, with
 * two exceptions that let applications hand work over without a lock: posting
 * (uroce_post_send, uroce_post_recv, uroce_post_srq_recv; the queues are single-producer
 * single-consumer rings, and the posters of one queue take turns) and polling a CQ
 * (uroce_cq_poll). Errors are negative UROCE_E* codes (common/error.h). */
#ifndef UROCE_ENGINE_ENGINE_H
#define UROCE_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "io/io.h"

#define UROCE_NEVER UINT64_MAX     /* no deadline */
#define UROCE_MAX_GIDS 16          /* entries of a device's GID table */
#define UROCE_MAX_RD_ATOMIC 128    /* max_rd_atomic / max_dest_rd_atomic limit: rxe's
                                   * RXE_MAX_QP_RD_ATOM, since perftest asks for the peer's */
#define UROCE_MAX_INLINE 512       /* max_inline_data limit */
#define UROCE_MAX_SGE 32           /* max_send_sge / max_recv_sge limit */
#define UROCE_MAX_WR 16384         /* queue depth limit */
/* CQ depth limit: an RDMA NIC's (mlx5's max_cqe, (1 << log_max_cq_sz) - 1, is 2^22 - 1 on
 * ConnectX NICs). libfabric's ofi_rxm sizes its verbs CQ for the whole job, 4096 + 128 x
 * FI_UNIVERSE_SIZE (1024 by default: rxm_ep.c rxm_ep_msg_cq_open, RXM_MSG_SRX_SIZE,
 * RXM_MSG_RXTX_SIZE), so 65536 failed it. The ring is allocated with the CQ: 56 bytes and a
 * 4-byte counter per entry, rounded up to a power of two (rxm's: 15 MiB). */
#define UROCE_MAX_CQE 4194303
/* Multicast limits, Linux rxe's but for the groups (rxe_param.h: 8192 groups, 56 QPs per
 * group, 0x70000 attachments): a group costs the UDP backend a socket, a descriptor. */
#define UROCE_MAX_MCAST_GRP 256          /* groups with attached QPs, per device */
#define UROCE_MAX_MCAST_QP_ATTACH 56     /* QPs attached to one group */
#define UROCE_MAX_TOTAL_MCAST_QP_ATTACH (UROCE_MAX_MCAST_GRP * UROCE_MAX_MCAST_QP_ATTACH)
#define UROCE_UD_GRH_LEN 40        /* network-header area at the start of a UD receive buffer */
/* The largest datagram the engine writes: IPv6 + UDP + BTH + the largest extended headers +
 * a 4096-byte payload + ICRC. Transmit buffers must hold this many bytes. */
#define UROCE_MAX_DATAGRAM (40 + 8 + 12 + 28 + 4096 + 4)

struct uroce_dev;
struct uroce_pd;
struct uroce_mr;
struct uroce_cq;
struct uroce_ah;
struct uroce_srq;
struct uroce_qp;

/* IBA 10.2.4: a Q_Key with this bit set is controlled. Only a privileged consumer may give
 * one to a QP (the verbs layer checks who asks); in a UD send request it means "send the
 * QP's own Q_Key". */
#define UROCE_QKEY_CONTROLLED 0x80000000u

/* ---- Enumerations (values as in <infiniband/verbs.h>) ---- */

enum uroce_qp_type {
	/* The General Services Interface of the port, QP1 (IBA 13.5.1): UD semantics, QP number
	 * 1, one per device, its Q_Key fixed to the well-known 0x80010000 (UROCE_GSI_QKEY in
	 * wire/mad.h). libibverbs has no such type (the kernel's MAD layer owns QP1): the value
	 * is the kernel's IB_QPT_GSI. */
	UROCE_QPT_GSI = 1,
	UROCE_QPT_RC = 2,
	UROCE_QPT_UC = 3,
	UROCE_QPT_UD = 4,
};

/* QP states (IBA 10.3.1, Figure "QP state diagram"). */
#define UROCE_QP_STATES(X) \
	X(RESET, 0)        \
	X(INIT, 1)         \
	X(RTR, 2)          \
	X(RTS, 3)          \
	X(SQD, 4)          \
	X(SQE, 5)          \
	X(ERR, 6)

enum uroce_qp_state {
#define UROCE_QPS_ENUM(name, v) UROCE_QPS_##name = v,
	UROCE_QP_STATES(UROCE_QPS_ENUM)
#undef UROCE_QPS_ENUM
	UROCE_QPS_COUNT
};

/* Path MTU codes (IBA 9.6.2 / ibv_mtu): 256 << (code - 1). */
enum uroce_mtu {
	UROCE_MTU_256 = 1,
	UROCE_MTU_512 = 2,
	UROCE_MTU_1024 = 3,
	UROCE_MTU_2048 = 4,
	UROCE_MTU_4096 = 5,
};

/* Access rights of an MR and of a QP's responder (IBA 10.6.3.1 / ibv_access_flags). */
enum uroce_access {
	UROCE_ACCESS_LOCAL_WRITE = 1u << 0,
	UROCE_ACCESS_REMOTE_WRITE = 1u << 1,
	UROCE_ACCESS_REMOTE_READ = 1u << 2,
	UROCE_ACCESS_REMOTE_ATOMIC = 1u << 3,
	/* uroce: the MR may be invalidated by LOCAL_INV or SEND_WITH_INV (what IBA allows only
	 * for fast-registered regions and type 2 windows, 10.6.5). */
	UROCE_ACCESS_INVALIDATE = 1u << 16,
};

/* The attribute mask of uroce_qp_modify (bit positions of ibv_qp_attr_mask; alternate paths,
 * path migration and capability changes are not supported). */
#define UROCE_QP_ATTRS(X)                        \
	X(STATE, 0, "state")                     \
	X(CUR_STATE, 1, "cur_state")             \
	X(EN_SQD_ASYNC_NOTIFY, 2, "en_sqd_async_notify") \
	X(ACCESS_FLAGS, 3, "access_flags")       \
	X(PKEY_INDEX, 4, "pkey_index")           \
	X(PORT, 5, "port")                       \
	X(QKEY, 6, "qkey")                       \
	X(AV, 7, "av")                           \
	X(PATH_MTU, 8, "path_mtu")               \
	X(TIMEOUT, 9, "timeout")                 \
	X(RETRY_CNT, 10, "retry_cnt")            \
	X(RNR_RETRY, 11, "rnr_retry")            \
	X(RQ_PSN, 12, "rq_psn")                  \
	X(MAX_QP_RD_ATOMIC, 13, "max_rd_atomic") \
	X(MIN_RNR_TIMER, 15, "min_rnr_timer")    \
	X(SQ_PSN, 16, "sq_psn")                  \
	X(MAX_DEST_RD_ATOMIC, 17, "max_dest_rd_atomic") \
	X(DEST_QPN, 20, "dest_qpn")

enum uroce_qp_attr_mask {
#define UROCE_QPA_ENUM(name, bit, str) UROCE_QPA_##name = 1u << (bit),
	UROCE_QP_ATTRS(UROCE_QPA_ENUM)
#undef UROCE_QPA_ENUM
};

/* Work request opcodes (IBA 11.4.1.1 / ibv_wr_opcode). */
enum uroce_wr_opcode {
	UROCE_WR_RDMA_WRITE = 0,
	UROCE_WR_RDMA_WRITE_WITH_IMM = 1,
	UROCE_WR_SEND = 2,
	UROCE_WR_SEND_WITH_IMM = 3,
	UROCE_WR_RDMA_READ = 4,
	UROCE_WR_ATOMIC_CMP_AND_SWP = 5,
	UROCE_WR_ATOMIC_FETCH_AND_ADD = 6,
	UROCE_WR_LOCAL_INV = 7,
	UROCE_WR_SEND_WITH_INV = 9,
	UROCE_WR_ATOMIC_WRITE = 15, /* IBA 1.5: 8 bytes stored at once at wr.rdma.remote_addr */
	UROCE_WR_OPCODE_MAX = 16
};

enum uroce_send_flag {
	UROCE_SEND_FENCE = 1u << 0,     /* wait for earlier READ/atomics to complete (10.8.3.3) */
	UROCE_SEND_SIGNALED = 1u << 1,  /* a completion even when the QP is not sq_sig_all */
	UROCE_SEND_SOLICITED = 1u << 2, /* BTH SE on the last packet */
	UROCE_SEND_INLINE = 1u << 3,    /* the data is copied at post time; lkeys are ignored */
};

/* Work completion statuses (IBA 11.4.2.1 / ibv_wc_status). */
#define UROCE_WC_STATUSES(X)              \
	X(SUCCESS, 0)                     \
	X(LOC_LEN_ERR, 1)                 \
	X(LOC_QP_OP_ERR, 2)               \
	X(LOC_EEC_OP_ERR, 3)              \
	X(LOC_PROT_ERR, 4)                \
	X(WR_FLUSH_ERR, 5)                \
	X(MW_BIND_ERR, 6)                 \
	X(BAD_RESP_ERR, 7)                \
	X(LOC_ACCESS_ERR, 8)              \
	X(REM_INV_REQ_ERR, 9)             \
	X(REM_ACCESS_ERR, 10)             \
	X(REM_OP_ERR, 11)                 \
	X(RETRY_EXC_ERR, 12)              \
	X(RNR_RETRY_EXC_ERR, 13)          \
	X(LOC_RDD_VIOL_ERR, 14)           \
	X(REM_INV_RD_REQ_ERR, 15)         \
	X(REM_ABORT_ERR, 16)              \
	X(INV_EECN_ERR, 17)               \
	X(INV_EEC_STATE_ERR, 18)          \
	X(FATAL_ERR, 19)                  \
	X(RESP_TIMEOUT_ERR, 20)           \
	X(GENERAL_ERR, 21)

enum uroce_wc_status {
#define UROCE_WC_ENUM(name, v) UROCE_WC_##name = v,
	UROCE_WC_STATUSES(UROCE_WC_ENUM)
#undef UROCE_WC_ENUM
	UROCE_WC_STATUS_COUNT
};

/* ibv_wc_opcode */
enum uroce_wc_opcode {
	UROCE_WC_SEND = 0,
	UROCE_WC_RDMA_WRITE = 1,
	UROCE_WC_RDMA_READ = 2,
	UROCE_WC_COMP_SWAP = 3,
	UROCE_WC_FETCH_ADD = 4,
	UROCE_WC_LOCAL_INV = 6,
	UROCE_WC_ATOMIC_WRITE = 9,
	UROCE_WC_RECV = 128,
	UROCE_WC_RECV_RDMA_WITH_IMM = 129,
};

/* ibv_wc_flags */
enum uroce_wc_flag {
	UROCE_WC_F_GRH = 1u << 0,      /* UD: the first 40 bytes hold the network header */
	UROCE_WC_F_WITH_IMM = 1u << 1,
	UROCE_WC_F_WITH_INV = 1u << 3,
};

/* Asynchronous events (IBA 11.6.3 / ibv_event_type). */
#define UROCE_EVENTS(X)               \
	X(CQ_ERR, 0)                  \
	X(QP_FATAL, 1)                \
	X(QP_REQ_ERR, 2)              \
	X(QP_ACCESS_ERR, 3)           \
	X(COMM_EST, 4)                \
	X(SQ_DRAINED, 5)              \
	X(PORT_ACTIVE, 9)             \
	X(PORT_ERR, 10)               \
	X(SRQ_LIMIT_REACHED, 15)      \
	X(QP_LAST_WQE_REACHED, 16)

enum uroce_event_type {
#define UROCE_EV_ENUM(name, v) UROCE_EVENT_##name = v,
	UROCE_EVENTS(UROCE_EV_ENUM)
#undef UROCE_EV_ENUM
};

/* ---- Structures ---- */

/* Congestion control (docs/congestion.md): the algorithm each QP's requester runs as a
 * reaction point, the notification point's CNPs, and their parameters. Zero values take the
 * defaults documented beside them (cc.c says where each comes from). */
#define UROCE_CC_ALGOS(X)                                                                     \
	X(NONE, "none")   /* no rate control; packets not ECN-capable (CA17-14) */                \
	X(DCQCN, "dcqcn") /* Zhu et al., SIGCOMM 2015, as its authors' simulator runs it */

enum uroce_cc_algo {
#define UROCE_CC_ENUM(name, str) UROCE_CC_##name,
	UROCE_CC_ALGOS(UROCE_CC_ENUM)
#undef UROCE_CC_ENUM
	UROCE_CC_COUNT
};

struct uroce_cc_cfg {
	enum uroce_cc_algo algo;
	uint8_t ecn;               /* the ECN codepoint of sent packets under an algorithm:
				    * 2 ECT(0) or 1 ECT(1); 0: ECT(0) */
	bool np_off;               /* true: CE-marked packets get no CNP */
	uint8_t cnp_dscp;          /* DSCP of CNPs; 0: 48 (ConnectX); 64 and up: 0 */
	uint8_t cnp_prio;          /* 802.1p priority of CNPs (mlx5's cnp_802p_prio), 0-7; 0:
				    * none set (docs/congestion.md says why not mlx5's 6) */
	uint64_t min_time_between_cnps_ns; /* one CNP per QP per this; 0: 50 us (the paper) */
	/* DCQCN's reaction point (mlx5's names in docs/congestion.md); rates in bits/s */
	uint64_t line_rate;        /* the starting and highest rate; 0: 25 Gb/s (the port's EDR 1X) */
	uint64_t min_rate;         /* 0: 1 Mb/s (rpg_min_rate) */
	uint64_t ai_rate;          /* additive increase; 0: 40 Mb/s (the paper's R_AI) */
	uint64_t hai_rate;         /* hyper increase; 0: 400 Mb/s */
	uint32_t g_shift;          /* alpha's gain g = 2^-g_shift; 0: 8 (g = 1/256, the paper) */
	uint64_t alpha_period_ns;  /* alpha decays once per this without CNPs; 0: 55 us */
	uint64_t time_reset_ns;    /* the increase timer T; 0: 55 us (the paper) */
	uint64_t byte_reset;       /* the byte counter B; 0: 10 MB (the paper) */
	uint32_t threshold;        /* F, increase events of fast recovery; 0: 5 (the paper) */
};

/* Parses UROCE_CC's syntax into *out (from all zero, left untouched on error): the
 * algorithm's name ("none", "dcqcn") and key=value items, keys the fields of struct
 * uroce_cc_cfg without their _ns; rates take k, m, g (bits/s), times ns, us, ms, s (plain:
 * ns), byte counts k, m, g (powers of 1000). Returns 0 or UROCE_EINVAL with a one-line explanation in msg. */
int uroce_cc_parse(const char *spec, struct uroce_cc_cfg *out, char *msg, size_t msglen);
/* "none", "dcqcn", ...; NULL past the last. */
const char *uroce_cc_algo_name(int algo);

/* A device: one RoCEv2 port. Zero limits take the defaults documented beside them. */
struct uroce_dev_cfg {
	struct uroce_io_addr gid[UROCE_MAX_GIDS]; /* RoCEv2 GIDs: the device's IP addresses */
	uint32_t ngids;                           /* at least 1 */
	enum uroce_mtu port_mtu;                  /* active MTU, UD's limit; 0: 4096 */
	uint32_t max_qp;                          /* 0: 256 */
	uint32_t max_mr;                          /* 0: 1024 */
	uint32_t max_unacked_pkts;  /* RC requester window in packets; 0: 128 (rxe's limit) */
	uint32_t ack_req_interval;  /* AckReq at least every this many packets; 0: 64 (rxe) */
	/* Where QP numbering starts (16..0xFFFFFF); numbers then run cyclically over the whole
	 * 24-bit space but 0xFFFFFF, the multicast QPN, which is skipped (and a start there
	 * starts at 16), so that neither this device nor the next one opened on the same
	 * address reuses a number a peer may still hold packets for. 0: QPN 16 (what the
	 * simulator's tests see); the verbs layer passes a random one. */
	uint32_t first_qpn;
	/* The range numbering is confined to (both included), for processes that share an
	 * address: each numbers its QPs in its own slot (docs/multiprocess.md). 0, 0: the
	 * whole space above. It must hold max_qp numbers and first_qpn. */
	uint32_t qpn_lo, qpn_hi;
	struct uroce_cc_cfg cc;
};

struct uroce_dev_attr {
	uint32_t max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr, max_pd, max_srq,
		max_srq_wr, max_qp_rd_atom, max_qp_init_rd_atom, max_inline_data, max_mcast_grp,
		max_mcast_qp_attach, max_total_mcast_qp_attach;
	enum uroce_mtu port_mtu;
	bool port_active;
};

/* An address vector (ibv_ah_attr for RoCEv2). */
struct uroce_ah_attr {
	struct uroce_io_addr dgid; /* the peer's IP address */
	uint8_t sgid_index;        /* the source GID in the device's table */
	uint8_t traffic_class;     /* IPv4 TOS / IPv6 traffic class */
	uint8_t hop_limit;         /* TTL; 0 means 64 */
	uint32_t flow_label;       /* IPv6 only, 20 bits */
	uint8_t port_num;          /* 1 */
};

struct uroce_qp_cap {
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;
};

/* Which ring a block of queue memory holds (struct uroce_mem). */
enum uroce_mem_use {
	UROCE_MEM_SQ = 1,  /* a QP's send queue: WQEs, their SGEs and inline data */
	UROCE_MEM_RQ = 2,  /* a QP's own receive queue: WQEs and their SGEs */
	UROCE_MEM_SRQ = 3, /* a shared receive queue's */
};
/* What uroce_mem.alloc returns to have the engine allocate the block itself. */
#define UROCE_MEM_DEFAULT ((void *)(intptr_t)-1)
/* Where the work-request rings of a QP or an SRQ live: the allocators of a parent domain
 * (ibv_alloc_parent_domain(3)). Each ring is one block: alloc returns size bytes, zeroed and
 * aligned to align, NULL when it cannot (the creation fails with UROCE_ENOMEM), or
 * UROCE_MEM_DEFAULT; free takes back what alloc gave, when the QP or SRQ is destroyed (not
 * when uroce_dev_free finds it still there: the allocator may be gone by then). Both are
 * called from within the create and destroy calls. */
struct uroce_mem {
	void *(*alloc)(void *ctx, size_t size, size_t align, enum uroce_mem_use use);
	void (*free)(void *ctx, void *ptr, enum uroce_mem_use use);
	void *ctx;
};

struct uroce_qp_init_attr {
	struct uroce_cq *send_cq, *recv_cq;
	struct uroce_srq *srq; /* NULL: the QP has its own receive queue */
	struct uroce_qp_cap cap;
	enum uroce_qp_type qp_type;
	bool sq_sig_all;
	const struct uroce_mem *mem; /* NULL: the engine allocates the rings */
};

/* ibv_qp_attr: the fields named by a mask of enum uroce_qp_attr_mask. */
struct uroce_qp_attr {
	enum uroce_qp_state qp_state, cur_qp_state;
	enum uroce_mtu path_mtu;
	uint32_t qkey, rq_psn, sq_psn, dest_qp_num;
	unsigned qp_access_flags; /* UROCE_ACCESS_REMOTE_* */
	struct uroce_ah_attr ah_attr;
	uint16_t pkey_index;
	bool en_sqd_async_notify;
	bool sq_draining;         /* query only */
	uint8_t max_rd_atomic, max_dest_rd_atomic, min_rnr_timer, port_num, timeout, retry_cnt,
		rnr_retry;
	struct uroce_qp_cap cap; /* query only */
};

struct uroce_sge {
	uint64_t addr;   /* in the MR's iova space */
	uint32_t length;
	uint32_t lkey;
};

struct uroce_send_wr {
	uint64_t wr_id;
	struct uroce_send_wr *next;
	struct uroce_sge *sg_list;
	int num_sge;
	enum uroce_wr_opcode opcode;
	unsigned send_flags;      /* enum uroce_send_flag set */
	uint32_t imm_data;        /* host order; carried big-endian in ImmDt */
	uint32_t invalidate_rkey; /* SEND_WITH_INV, LOCAL_INV */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct uroce_ah *ah;
			uint32_t remote_qpn;
			/* High bit set: use the QP's own Q_Key (10.2.4). A GSI QP's own is
			 * 0x80010000, so it can answer another port's QP1; a UD QP reaches
			 * a QP1 only if its own Q_Key was set to 0x80010000 (a privileged
			 * consumer). The BTH P_Key is always the one P_Key, index 0. */
			uint32_t remote_qkey;
		} ud;
	} wr;
};

struct uroce_recv_wr {
	uint64_t wr_id;
	struct uroce_recv_wr *next;
	struct uroce_sge *sg_list;
	int num_sge;
};

struct uroce_wc {
	uint64_t wr_id;
	enum uroce_wc_status status;
	enum uroce_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;        /* host order; with UROCE_WC_F_WITH_IMM */
	uint32_t invalidated_rkey; /* with UROCE_WC_F_WITH_INV */
	struct uroce_qp *qp;
	uint32_t qp_num;
	uint32_t src_qp;          /* UD */
	unsigned wc_flags;        /* enum uroce_wc_flag set */
	uint16_t pkey_index;
	bool ipv6;                /* UD receive: the packet came over IPv6, else IPv4 (A17.4.5.1) */
};

struct uroce_srq_attr {
	uint32_t max_wr, max_sge;
	uint32_t srq_limit; /* 0: disarmed; else SRQ_LIMIT_REACHED when fewer WQEs remain */
	const struct uroce_mem *mem; /* creation only (NULL: the engine allocates the ring) */
};

enum uroce_srq_attr_mask {
	UROCE_SRQ_MAX_WR = 1u << 0, /* resizing is not supported: UROCE_EINVAL */
	UROCE_SRQ_LIMIT = 1u << 1,
};

struct uroce_async_event {
	enum uroce_event_type type;
	union {
		struct uroce_qp *qp;
		struct uroce_cq *cq;
		struct uroce_srq *srq;
		int port_num;
	} element;
};

/* A transmit batch: the caller owns the descriptors and their buffers (each at least
 * UROCE_MAX_DATAGRAM bytes in cap); uroce_dev_write appends packets at pkts[n]. The batch maps
 * onto uroce_io_send(io, pkts, n), i.e. one sendmmsg. */
struct uroce_txbatch {
	struct uroce_io_pkt *pkts;
	size_t max;
	size_t n;
};

/* ---- Device ---- */

/* Creates a device; UROCE_EINVAL (no GID, a bad MTU, a mixed or zero address), UROCE_ENOMEM. */
int uroce_dev_new(const struct uroce_dev_cfg *cfg, struct uroce_dev **out);
/* Frees the device and every object still in it. */
void uroce_dev_free(struct uroce_dev *dev);
void uroce_dev_query(const struct uroce_dev *dev, struct uroce_dev_attr *attr);

/* Handles one received datagram (starting at the IP header) at time now. Never fails: a
 * packet that is not accepted is dropped and counted under a drop_* counter. */
void uroce_dev_recv(struct uroce_dev *dev, const struct uroce_io_pkt *pkt, uint64_t now);
/* Appends packets to tx until it is full or nothing is left to send now; returns the
 * number appended. Responses (ACK, NAK, READ responses) go before new requests, QPs take
 * turns. Call it after every recv, post and on_timer, until it returns 0. */
size_t uroce_dev_write(struct uroce_dev *dev, struct uroce_txbatch *tx, uint64_t now);
/* Appends only requests (new and resent request packets), QPs taking turns as above, and
 * leaves responses for uroce_dev_write. For a caller about to send what an application
 * just posted: its request then goes on the wire before the ACKs written with it. */
size_t uroce_dev_write_requests(struct uroce_dev *dev, struct uroce_txbatch *tx, uint64_t now);
/* The ACK rule (docs/engine.md "The ACK rule"): completions are staged, and this call makes
 * them visible to uroce_cq_poll, each once its QP has written every response it owed when
 * the completion was pushed, including the one its own packet asks for (the ACK of a SEND,
 * a READ response before it). Call it when every packet uroce_dev_write and
 * uroce_dev_write_requests have produced so far has been handed to the network: after
 * sending each batch, and after calls that complete work without writing (flushes). */
void uroce_dev_publish(struct uroce_dev *dev);
/* Takes in the work posted since the last call: schedules it, or flushes it on a QP in ERR
 * (in SQE, the send queue). uroce_dev_write and uroce_dev_write_requests call it first, and
 * destroying a QP does; a caller that only wants flush completions may call it alone. */
void uroce_dev_take_posted(struct uroce_dev *dev);
/* Runs every timer due at or before now (retransmission, RNR wait). */
void uroce_dev_on_timer(struct uroce_dev *dev, uint64_t now);
/* The earliest timer, or UROCE_NEVER. Cheap to ask again while nothing happened: the answer
 * is kept until a call that can move a timer. */
uint64_t uroce_dev_next_deadline(struct uroce_dev *dev);
/* Takes the oldest asynchronous event: 1, or 0 when there is none. Destroying a QP, CQ or
 * SRQ drops its events not yet taken. */
int uroce_dev_get_async_event(struct uroce_dev *dev, struct uroce_async_event *ev);
/* Port up or down (the I/O backend's link state); down counts link_downed. Either raises
 * PORT_ACTIVE / PORT_ERR. */
void uroce_dev_set_port_active(struct uroce_dev *dev, bool active);
const union uroce_counters *uroce_dev_counters(const struct uroce_dev *dev);

/* ---- Protection domains, memory regions, address handles ---- */

/* UROCE_ENOMEM. */
int uroce_pd_alloc(struct uroce_dev *dev, struct uroce_pd **out);
/* UROCE_EBUSY while an MR, AH, SRQ or QP uses it. */
int uroce_pd_dealloc(struct uroce_pd *pd);

/* Registers [addr, addr + length) of this process, seen by the network and by SGEs as
 * [iova, iova + length). lkey and rkey are equal: a 24-bit table index and an 8-bit key
 * part that changes on every registration of the slot (IBA 10.6.3.2). Returns
 * UROCE_EINVAL (unknown access bits, REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE
 * (10.6.3.1), addr NULL with a nonzero length, iova + length beyond 2^64) or UROCE_ENOMEM
 * (the table is full). */
int uroce_mr_reg(struct uroce_pd *pd, void *addr, uint64_t length, uint64_t iova,
		 unsigned access, struct uroce_mr **out);
/* Re-registers mr (ibv_rereg_mr(3): conceptually a deregistration followed by a
 * registration, keeping the object): every attribute is replaced by the given one at once
 * and the region becomes valid again; the keys stay, so that they reach the new range with
 * the new rights and PD. Returns UROCE_EINVAL, with mr unchanged, for attributes
 * uroce_mr_reg would refuse or a PD of another device. */
int uroce_mr_rereg(struct uroce_mr *mr, struct uroce_pd *pd, void *addr, uint64_t length,
		   uint64_t iova, unsigned access);
/* Always succeeds; later accesses with its keys fail. */
int uroce_mr_dereg(struct uroce_mr *mr);
uint32_t uroce_mr_lkey(const struct uroce_mr *mr);
uint32_t uroce_mr_rkey(const struct uroce_mr *mr);
/* False once invalidated by LOCAL_INV or SEND_WITH_INV. */
bool uroce_mr_valid(const struct uroce_mr *mr);

/* UROCE_EINVAL (unknown sgid_index, address families differ, port not 1), UROCE_ENOMEM. */
int uroce_ah_create(struct uroce_pd *pd, const struct uroce_ah_attr *attr, struct uroce_ah **out);
int uroce_ah_destroy(struct uroce_ah *ah);

/* ---- Completion queues ---- */

/* A ring of depth entries (1..UROCE_MAX_CQE). A completion that finds the ring full is lost
 * and raises CQ_ERR once (IBA 11.4.2.1 "CQ overrun"); the CQ stays in error. UROCE_EINVAL,
 * UROCE_ENOMEM. */
int uroce_cq_create(struct uroce_dev *dev, uint32_t depth, struct uroce_cq **out);
/* UROCE_EBUSY while a QP uses it. */
int uroce_cq_destroy(struct uroce_cq *cq);
/* Gives the ring room for depth entries (IBA 11.2.7.3 Resize CQ), keeping every completion
 * not yet polled, published or staged, in its place in the order. UROCE_EINVAL for a depth
 * outside 1..UROCE_MAX_CQE or below the number of completions it holds, UROCE_ENOMEM; the
 * CQ is unchanged then. An overrun CQ stays in error. Acts as the consumer too: the caller
 * keeps pollers of this CQ out, as well as the engine. */
int uroce_cq_resize(struct uroce_cq *cq, uint32_t depth);
/* Takes up to n published completions (uroce_dev_publish), oldest first; returns how many,
 * or UROCE_EIO after an overrun once the ring is empty (ibv_poll_cq returns an error then).
 * May run on another thread while the device's owner runs the engine: the CQ is a
 * single-producer single-consumer ring (pollers of one CQ must still take turns). */
int uroce_cq_poll(struct uroce_cq *cq, struct uroce_wc *wc, int n);
/* Removes qp's completions that no poll has taken yet, published or staged, as rdma-core's
 * providers clean their CQs when a QP moves to RESET or is destroyed (mlx5_cq_clean, and
 * mlx4's, mthca's, hns's): a QP that starts again, or a new QP with its number, is not
 * blamed for the old one's completions. Completions of receives from an SRQ stay: each
 * took one of the SRQ's WQEs, whose buffer the application learns is free from it alone.
 * Acts as the consumer: the caller keeps pollers of this CQ out, as well as the engine. */
void uroce_cq_drop_qp(struct uroce_cq *cq, const struct uroce_qp *qp);
/* Completions published since creation (a free-running count: compare for change; dropping
 * staged completions moves it too). Thread-safe like uroce_cq_poll. */
uint32_t uroce_cq_pushed(const struct uroce_cq *cq);
/* Published completions waiting to be polled. Thread-safe like uroce_cq_poll. */
uint32_t uroce_cq_count(const struct uroce_cq *cq);
/* A pointer for the caller's own object (the verbs layer's ibv_cq). */
void uroce_cq_set_user(struct uroce_cq *cq, void *user);
void *uroce_cq_user(const struct uroce_cq *cq);

/* ---- Shared receive queues ---- */

/* UROCE_EINVAL (max_wr 0 or above UROCE_MAX_WR, max_sge above UROCE_MAX_SGE), UROCE_ENOMEM. */
int uroce_srq_create(struct uroce_pd *pd, const struct uroce_srq_attr *attr,
		     struct uroce_srq **out);
/* UROCE_EBUSY while a QP uses it. */
int uroce_srq_destroy(struct uroce_srq *srq);
/* Only UROCE_SRQ_LIMIT; UROCE_EINVAL otherwise or for a limit above max_wr. */
int uroce_srq_modify(struct uroce_srq *srq, const struct uroce_srq_attr *attr, unsigned mask);
void uroce_srq_query(const struct uroce_srq *srq, struct uroce_srq_attr *attr);
/* A pointer for the caller's own object (the verbs layer's ibv_srq). */
void uroce_srq_set_user(struct uroce_srq *srq, void *user);
void *uroce_srq_user(const struct uroce_srq *srq);
/* As uroce_post_recv. */
int uroce_post_srq_recv(struct uroce_srq *srq, const struct uroce_recv_wr *wr,
			const struct uroce_recv_wr **bad_wr);

/* ---- Queue pairs ---- */

/* A QP in RESET. UROCE_EINVAL (CQs missing or of another device, capabilities above the
 * limits, an SRQ of another PD), UROCE_EBUSY (a GSI QP while the device has one),
 * UROCE_ENOMEM (no QP number left or no memory). A GSI QP is QP1 and moves through the UD
 * states; the Q_Key its transitions take must be UROCE_GSI_QKEY (the kernel's MAD layer
 * passes exactly that, IB_QP1_QKEY). */
int uroce_qp_create(struct uroce_pd *pd, const struct uroce_qp_init_attr *attr,
		    struct uroce_qp **out);
/* Frees the QP without completions. UROCE_EBUSY while it is attached to a multicast group
 * (the kernel's uverbs refuses to destroy such a QP the same way). */
int uroce_qp_destroy(struct uroce_qp *qp);
uint32_t uroce_qp_num(const struct uroce_qp *qp);
/* The rate congestion control lets the QP's requester send at, in bits/s (the line rate when
 * unconstrained); UINT64_MAX without congestion control. */
uint64_t uroce_qp_cc_rate(const struct uroce_qp *qp);
/* A fixed rate the QP's requests are paced to (ibv_modify_qp_rate_limit), in bits/s, under
 * congestion control's rate when there is one; 0 removes it. UROCE_EINVAL for QP1. A reset
 * of the QP removes it too. */
int uroce_qp_set_rate_limit(struct uroce_qp *qp, uint64_t bps);
/* A pointer for the caller's own object (the verbs layer's ibv_qp), e.g. for async events. */
void uroce_qp_set_user(struct uroce_qp *qp, void *user);
void *uroce_qp_user(const struct uroce_qp *qp);
enum uroce_qp_state uroce_qp_state(const struct uroce_qp *qp);
/* Applies the attributes named by mask (IBA 11.2.4.2 Modify QP): the transition from the
 * current state to attr->qp_state (or the same state without UROCE_QPA_STATE) must be
 * legal, every attribute the transition requires for this QP type present, none outside
 * required + optional, and every value in range; otherwise nothing changes and
 * UROCE_EINVAL is returned (UROCE_EBUSY: SQD -> SQD with attributes before the send queue
 * has drained). Moving to ERR flushes both queues (WR_FLUSH_ERR); to RESET empties them
 * without completions. */
int uroce_qp_modify(struct uroce_qp *qp, const struct uroce_qp_attr *attr, unsigned mask);
void uroce_qp_query(const struct uroce_qp *qp, struct uroce_qp_attr *attr,
		    struct uroce_qp_init_attr *init);
const union uroce_counters *uroce_qp_counters(const struct uroce_qp *qp);

/* What an observer (uroce-stat, docs/stat.md) shows of a QP: its transport position, not
 * its configuration (uroce_qp_query gives that). */
struct uroce_qp_info {
	uint32_t qpn, dest_qpn;
	enum uroce_qp_type type;
	enum uroce_qp_state state;
	struct uroce_io_addr peer; /* RC/UC: the address vector's; UD: zero */
	uint32_t sq_psn;           /* the next PSN the requester sends */
	uint32_t una;              /* the oldest PSN not acknowledged */
	uint32_t epsn;             /* the PSN the responder expects */
	uint32_t send_outstanding; /* send WRs posted and not completed */
	uint32_t recv_posted;      /* receive WRs posted and not consumed (0 with an SRQ) */
	uint64_t pace_bps;         /* the rate its requests are paced to (congestion control's,
				    * or a rate limit's), bit/s; 0: unpaced */
};
/* The QP after *cursor (0 to begin, QP1 first): fills *info and the QP's counters, moves
 * *cursor on and returns true; false past the last. For the owner of the engine. */
bool uroce_dev_qp_next(const struct uroce_dev *dev, uint32_t *cursor, struct uroce_qp_info *info,
		       union uroce_counters *cnt);

/* Posts a chain of send work requests. On failure *bad_wr is the first one not posted:
 * UROCE_EINVAL (QP in RESET, INIT or RTR; opcode not valid for the QP type; too many SGEs;
 * inline data too long; an atomic or ATOMIC WRITE whose SGEs (or inline data, which for an
 * ATOMIC WRITE max_inline_data does not limit) do not hold exactly 8 bytes; a message over
 * 2^31 bytes; UD without an AH of the QP's PD), UROCE_EFULL (the send queue is full). In
 * ERR, and in SQE, the requests complete with WR_FLUSH_ERR when the engine takes them in
 * (uroce_dev_take_posted). May run on another thread while the engine runs. With
 * UROCE_SEND_INLINE the SGE addresses are host addresses, read during the call. Local
 * errors (a bad L_Key, a range outside its MR) are found when the request starts and
 * reported in its completion, as IBA 10.8 has it. */
int uroce_post_send(struct uroce_qp *qp, const struct uroce_send_wr *wr,
		    const struct uroce_send_wr **bad_wr);
/* Posts receive work requests: UROCE_EINVAL (QP in RESET, or attached to an SRQ; too many
 * SGEs), UROCE_EFULL. In ERR they complete with WR_FLUSH_ERR when the engine takes them in
 * (uroce_dev_take_posted). May run on another thread while the engine runs. */
int uroce_post_recv(struct uroce_qp *qp, const struct uroce_recv_wr *wr,
		    const struct uroce_recv_wr **bad_wr);

/* ---- Multicast (docs/engine.md "Multicast") ---- */

/* Attaches a UD QP to the IP multicast group `group` (uroce_io_addr_is_multicast: an IPv4
 * 224.0.0.0/4 or IPv6 ff00::/8 address, the MGID's): the QP gets a copy of every datagram
 * the device receives for the group with destination QP 0xFFFFFF that its state and Q_Key
 * accept. Returns 1 when the group is new to the device (the caller then joins it on its
 * network, uroce_io_join), 0 when it was not (attaching the same QP twice included: it
 * still gets one copy), UROCE_EINVAL (not a UD QP, not a multicast address) or
 * UROCE_ENOMEM (UROCE_MAX_MCAST_GRP groups, or UROCE_MAX_MCAST_QP_ATTACH QPs in the group,
 * or no memory). Any QP state. */
int uroce_mcast_attach(struct uroce_qp *qp, const struct uroce_io_addr *group);
/* Detaches it: returns 1 when no QP of the device is attached to the group any more (the
 * caller leaves it), 0 when some are, or UROCE_EINVAL (not a UD QP, not a multicast
 * address, not attached to that group). */
int uroce_mcast_detach(struct uroce_qp *qp, const struct uroce_io_addr *group);

/* ---- Names ---- */

const char *uroce_qp_state_name(enum uroce_qp_state s); /* "RTS", or NULL */
const char *uroce_wc_status_name(enum uroce_wc_status s); /* "WR_FLUSH_ERR", or NULL */
const char *uroce_wr_opcode_name(enum uroce_wr_opcode op); /* "SEND_WITH_IMM", or NULL */
const char *uroce_event_name(enum uroce_event_type e);     /* "CQ_ERR", or NULL */
const char *uroce_qp_attr_name(enum uroce_qp_attr_mask bit); /* "sq_psn", or NULL */

#endif

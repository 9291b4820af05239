/* SPDX-License-Identifier: MIT */
/* One engine fed hand-built packets, for the tests that need every byte and every
 * nanosecond under control: a device with one QP in RTS whose peer is a fake QP
 * (INJ_PEER_QPN at 10.0.0.1, or fd00::1). A packet is built with uroce_rocev2_build into
 * inj.pkt, may then be edited byte by byte (inj_fixup recomputes the IPv4 header checksum
 * and the ICRC, or not), and is handed to uroce_dev_recv; the device's answers are taken a
 * few at a time (as a slow line would) and dissected. Header-only, as harness.h. */
#ifndef UROCE_TEST_ENGINE_INJECT_H
#define UROCE_TEST_ENGINE_INJECT_H

#include "harness.h"

#include "wire/build.h"
#include "wire/bytes.h"
#include "wire/icrc.h"
#include "wire/ip.h"

#define INJ_PEER_QPN 0x99
#define INJ_SQ_PSN 0x500
#define INJ_MAX_OUT 64
#define INJ_QKEY 0x11111111u /* h_qp_rts gives UD QPs this Q_Key */

struct inj_opts {
	enum uroce_qp_type type;   /* 0: RC */
	enum uroce_mtu mtu;        /* 0: 256 */
	bool ipv6;
	uint32_t epsn;             /* the PSN the QP expects */
	uint8_t max_rd_atomic, min_rnr_timer;
	uint8_t max_dest_rd_atomic; /* as in h_qp_opts */
	uint8_t timeout;           /* 0: 10 */
	uint8_t retry_cnt, rnr_retry;
	struct uroce_cc_cfg cc;    /* the device's congestion control */
};

struct inj {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp;
	struct uroce_io_addr me, peer;
	uint32_t mtu;
	uint64_t now;
	uint8_t pkt[UROCE_MAX_DATAGRAM]; /* the packet being injected */
	size_t len;
	uint8_t out[INJ_MAX_OUT][UROCE_MAX_DATAGRAM];
	struct uroce_pkt o[INJ_MAX_OUT]; /* the answers of the last inj_out */
	uint8_t oprio[INJ_MAX_OUT];       /* ... and the 802.1p priority each asked for */
	int nout;
};

static inline struct inj *inj_new(const struct inj_opts *o)
{
	struct inj *t = calloc(1, sizeof(*t));
	struct uroce_dev_cfg cfg = {.ngids = 1};
	enum uroce_qp_type type = o->type ? o->type : UROCE_QPT_RC;

	assert_non_null(t);
	t->me = h_addr(1, o->ipv6);
	t->peer = h_addr(0, o->ipv6);
	cfg.gid[0] = t->me;
	cfg.port_mtu = o->mtu ? o->mtu : UROCE_MTU_256;
	cfg.cc = o->cc;
	assert_int_equal(uroce_dev_new(&cfg, &t->dev), 0);
	assert_int_equal(uroce_pd_alloc(t->dev, &t->pd), 0);
	assert_int_equal(uroce_cq_create(t->dev, 1024, &t->cq), 0);
	struct uroce_qp_init_attr init = {.send_cq = t->cq, .recv_cq = t->cq, .qp_type = type,
					  .cap = {.max_send_wr = 64, .max_recv_wr = 64,
						  .max_send_sge = 2, .max_recv_sge = 2}};
	assert_int_equal(uroce_qp_create(t->pd, &init, &t->qp), 0);
	struct h_qp_opts ho = {.type = type, .mtu = cfg.port_mtu, .timeout = o->timeout,
			       .retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
			       .min_rnr_timer = o->min_rnr_timer, .max_rd_atomic = o->max_rd_atomic,
			       .max_dest_rd_atomic = o->max_dest_rd_atomic};
	/* h_qp_rts connects to node 0 of a network: this fake one has the peer there. */
	struct h_net net = {0};
	net.node[0].addr = t->peer;
	h_qp_rts(&net, t->qp, 1, 0, INJ_PEER_QPN, &ho, INJ_SQ_PSN, o->epsn);
	t->mtu = 128u << cfg.port_mtu;
	return t;
}

static inline void inj_free(struct inj *t)
{
	uroce_dev_free(t->dev);
	free(t);
}

/* A registered buffer of the device (iova = host address), filled from seed. */
static inline struct h_buf inj_buf(struct inj *t, size_t len, uint32_t seed)
{
	struct h_net n = {0};
	n.node[0].pd = t->pd;
	return h_buf_new(&n, 0, len, H_ALL_ACCESS, seed);
}

/* One packet; zero fields take the defaults. */
struct inj_hdr {
	uint8_t opcode;
	uint32_t psn;
	bool ackreq;
	uint8_t tver;
	uint16_t pkey;               /* 0: 0xFFFF */
	uint8_t tclass;              /* IP TOS / traffic class: DSCP << 2 | ECN */
	uint32_t destqp;             /* 0: the QP */
	const struct uroce_io_addr *src, *dst; /* NULL: the peer, the device */
	struct uroce_ext ext;        /* ext.present is filled from the opcode */
	const uint8_t *payload;
	size_t len;
};

/* Builds the packet into t->pkt (from the IP header on, as a UDP socket gives it). */
static inline size_t inj_build(struct inj *t, const struct inj_hdr *h)
{
	const struct uroce_io_addr *src = h->src ? h->src : &t->peer;
	const struct uroce_io_addr *dst = h->dst ? h->dst : &t->me;
	struct uroce_rocev2_net net = {.ipv6 = src->ipv6, .hop_limit = 64, .sport = 0xC123,
				       .tclass = h->tclass};
	struct uroce_bth bth = {.opcode = h->opcode, .pkey = h->pkey ? h->pkey : 0xFFFF,
				.destqp = h->destqp ? h->destqp : uroce_qp_num(t->qp),
				.ackreq = h->ackreq, .psn = h->psn & 0xFFFFFF, .tver = h->tver};
	struct uroce_ext e = h->ext;

	memcpy(net.src, src->ip, 16);
	memcpy(net.dst, dst->ip, 16);
	e.present = uroce_opcode_info(h->opcode)->headers;
	ssize_t n = uroce_rocev2_build(t->pkt, sizeof(t->pkt), NULL, &net, &bth, &e, h->payload,
				       h->len);
	assert_true(n > 0);
	return t->len = (size_t)n;
}

/* Offsets in t->pkt. */
static inline size_t inj_ip_len(const struct inj *t) { return t->pkt[0] >> 4 == 6 ? 40 : 20; }
static inline size_t inj_bth_off(const struct inj *t) { return inj_ip_len(t) + 8; }

/* After an edit: the IPv4 header checksum and the ICRC made right again, each when asked. */
static inline void inj_fixup(struct inj *t, bool ip_csum, bool icrc)
{
	size_t ip = inj_ip_len(t);
	uint32_t crc;

	if (ip_csum && ip == 20) {
		put_be16(t->pkt + 10, 0);
		put_be16(t->pkt + 10, uroce_ipv4_checksum(t->pkt, 20));
	}
	if (icrc) {
		assert_int_equal(uroce_icrc(ip == 20 ? UROCE_ICRC_ROCEV2_IPV4 : UROCE_ICRC_ROCEV2_IPV6,
					    t->pkt, ip + 8, t->len - 4, &crc),
				 0);
		put_le32(t->pkt + t->len - 4, crc);
	}
}

/* Hands t->pkt to the device at t->now, with the backend's flags (UROCE_IO_PKT_*). */
static inline void inj_deliver_flags(struct inj *t, uint32_t flags)
{
	struct uroce_io_pkt io = {.data = t->pkt, .len = (uint32_t)t->len, .cap = sizeof(t->pkt),
				  .flags = flags, .ts_ns = t->now};
	uroce_dev_recv(t->dev, &io, t->now);
	uroce_dev_publish(t->dev); /* nothing written is left unsent here: inj_out takes it all */
}

static inline void inj_deliver(struct inj *t) { inj_deliver_flags(t, 0); }

static inline void inj_send(struct inj *t, const struct inj_hdr *h)
{
	inj_build(t, h);
	inj_deliver(t);
}

/* Takes up to max packets the device sends at t->now (a line that takes few at a time),
 * each checked (a whole RoCEv2 packet with a good ICRC, to the peer) and dissected. */
static inline int inj_out_n(struct inj *t, int max)
{
	struct uroce_io_pkt io[INJ_MAX_OUT];
	struct uroce_txbatch tx = {.pkts = io, .max = (size_t)max};

	for (int i = 0; i < max; i++) {
		io[i].data = t->out[i];
		io[i].cap = UROCE_MAX_DATAGRAM;
		io[i].prio = 0xFF; /* the engine sets it */
	}
	t->nout = (int)uroce_dev_write(t->dev, &tx, t->now);
	uroce_dev_publish(t->dev); /* what was written is taken: on the line */
	for (int i = 0; i < t->nout; i++) {
		assert_int_equal(uroce_pkt_dissect(&t->o[i], UROCE_LINK_IP, t->out[i], io[i].len), 0);
		assert_int_equal(uroce_pkt_icrc_check(&t->o[i], NULL), UROCE_CRC_OK);
		assert_int_equal(t->o[i].bth.destqp, INJ_PEER_QPN);
		t->oprio[i] = io[i].prio;
	}
	return t->nout;
}

static inline int inj_out(struct inj *t) { return inj_out_n(t, INJ_MAX_OUT); }

static inline void inj_expect_ack(const struct uroce_pkt *p, uint8_t syndrome, uint32_t psn)
{
	assert_int_equal(p->bth.opcode, UROCE_OP_RC_ACKNOWLEDGE);
	assert_int_equal(p->ext.aeth.syndrome, syndrome);
	assert_int_equal(p->bth.psn, psn & 0xFFFFFF);
}

static inline uint64_t inj_qp_counter(const struct inj *t, enum uroce_counter c)
{
	return uroce_qp_counters(t->qp)->v[c];
}

#endif

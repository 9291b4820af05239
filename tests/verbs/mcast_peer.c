/* SPDX-License-Identifier: MIT */
/* mcast_peer: one process of the verbs multicast test (tests/verbs/test_mcast.sh), through
 * the standard <infiniband/verbs.h> API only, on the first device (uroce's, with UROCE_IP or
 * UROCE_XDP naming its addresses); it sends from the first GID of the group's family. GROUP is an IPv4 or IPv6 multicast address; its MGID is
 * the address as a GID, IPv4-mapped for IPv4 (as rdma_cm forms RoCEv2 MGIDs).
 *
 *   mcast_peer recv GROUP COUNT QPS   QPS UD QPs with Q_Key 0x11111111 attached to the group,
 *                                     one attached with Q_Key 0x22222222, one not attached;
 *                                     prints "ready", then waits until each of the QPS got
 *                                     COUNT messages, each once, whole, its header area
 *                                     naming the group; the other two must get none.
 *   mcast_peer send GROUP COUNT LOOP  sends COUNT messages to the group (destination QP
 *                                     0xFFFFFF); LOOP 1: a QP of its own, attached, must get
 *                                     them all back (the host's multicast loopback).
 *   mcast_peer idle GROUP DONEFILE    a UD QP with the group's Q_Key, not attached: prints
 *                                     "ready", and once DONEFILE exists must have got nothing.
 *   mcast_peer rules GROUP            what ibv_attach_mcast and ibv_detach_mcast accept and
 *                                     refuse, and the limits ibv_query_device reports.
 *
 * Prints "PASS ..." and exits 0, or "FAIL ..." and exits 1; a guard of 30 s ends a run that
 * stops making progress (a failure, not a measurement). */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define QKEY 0x11111111u
#define OTHER_QKEY 0x22222222u
#define MCAST_QPN 0xFFFFFFu
#define GRH 40
#define MAX_MSG 1000 /* below the smallest active MTU uroce reports over Ethernet (1024) */
#define SLOT (GRH + MAX_MSG)
#define MAX_COUNT 4096
#define MAX_QPS 8
#define GUARD_S 30

static const char *mode;

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", mode);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Message seq: 4 bytes of seq, then bytes that derive from it, 16 to MAX_MSG long. */
static uint32_t msg_len(uint32_t seq) { return 16 + seq * 37 % (MAX_MSG - 15); }
static uint8_t msg_byte(uint32_t seq, uint32_t k) { return (uint8_t)(seq * 31 + k * 7 + 1); }

static void msg_fill(uint8_t *p, uint32_t seq)
{
	uint32_t be = htonl(seq);
	memcpy(p, &be, 4);
	for (uint32_t k = 4; k < msg_len(seq); k++)
		p[k] = msg_byte(seq, k);
}

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint8_t *buf;
	struct ibv_mr *mr;
	union ibv_gid mgid;
	bool v6;
	uint8_t group[16]; /* the group's address as it appears in an IP header */
};

static void dev_open(struct dev *d, const char *group, size_t buflen, int cqe)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	memset(d, 0, sizeof(*d));
	if (!list || !list[0])
		fail("no verbs device");
	if (!(d->ctx = ibv_open_device(list[0])))
		fail("ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);
	if (inet_pton(AF_INET, group, d->group) == 1) {
		d->mgid.raw[10] = d->mgid.raw[11] = 0xff;
		memcpy(d->mgid.raw + 12, d->group, 4);
	} else if (inet_pton(AF_INET6, group, d->group) == 1) {
		d->v6 = true;
		memcpy(d->mgid.raw, d->group, 16);
	} else {
		fail("%s is not an IP address", group);
	}
	if (!(d->pd = ibv_alloc_pd(d->ctx)) || !(d->cq = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0)))
		fail("ibv_alloc_pd / ibv_create_cq: %s", strerror(errno));
	if (!(d->buf = calloc(1, buflen)) ||
	    !(d->mr = ibv_reg_mr(d->pd, d->buf, buflen, IBV_ACCESS_LOCAL_WRITE)))
		fail("ibv_reg_mr: %s", strerror(errno));
}

static void dev_close(struct dev *d)
{
	if (ibv_dereg_mr(d->mr) || ibv_destroy_cq(d->cq) || ibv_dealloc_pd(d->pd) ||
	    ibv_close_device(d->ctx))
		fail("releasing the device: %s", strerror(errno));
	free(d->buf);
}

/* A QP of type t in RTS (UD: with Q_Key qkey). */
static struct ibv_qp *qp_new(struct dev *d, enum ibv_qp_type t, uint32_t qkey, int depth)
{
	struct ibv_qp_init_attr ia = {.send_cq = d->cq, .recv_cq = d->cq, .qp_type = t,
				      .cap = {.max_send_wr = (uint32_t)depth,
					      .max_recv_wr = (uint32_t)depth,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey};

	if (!qp)
		fail("ibv_create_qp: %s", strerror(errno));
	if (t != IBV_QPT_UD)
		return qp;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		fail("to INIT: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		fail("to RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		fail("to RTS: %s", strerror(errno));
	return qp;
}

static void post_recv(struct dev *d, struct ibv_qp *qp, uint64_t slot)
{
	struct ibv_sge sge = {.addr = (uintptr_t)(d->buf + slot * SLOT), .length = SLOT,
			      .lkey = d->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		fail("ibv_post_recv: %s", strerror(errno));
}

/* Checks a receive completion's message: whole, once, its header area naming the group.
 * Returns its sequence number. */
static uint32_t check_recv(struct dev *d, const struct ibv_wc *wc, uint8_t *seen, uint32_t count)
{
	const uint8_t *p = d->buf + wc->wr_id * SLOT;
	uint32_t seq;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV)
		fail("QP %#x: completion status %s, opcode %d", wc->qp_num,
		     ibv_wc_status_str(wc->status), wc->opcode);
	if (!(wc->wc_flags & IBV_WC_GRH))
		fail("QP %#x: no GRH flag", wc->qp_num);
	memcpy(&seq, p + GRH, 4);
	seq = ntohl(seq);
	if (seq >= count || wc->byte_len != GRH + msg_len(seq))
		fail("QP %#x: message %u of %u bytes", wc->qp_num, seq, wc->byte_len);
	if (seen[seq]++)
		fail("QP %#x: message %u twice", wc->qp_num, seq);
	for (uint32_t k = 4; k < msg_len(seq); k++)
		if (p[GRH + k] != msg_byte(seq, k))
			fail("QP %#x: message %u, byte %u differs", wc->qp_num, seq, k);
	/* The IP header: IPv6 in the whole area, IPv4 in its second half (Annex A17.4.5.2). */
	if (memcmp(d->v6 ? p + 24 : p + 36, d->group, d->v6 ? 16 : 4))
		fail("QP %#x: the header area's destination is not the group", wc->qp_num);
	return seq;
}

static int attach(struct ibv_qp *qp, const struct dev *d)
{
	return ibv_attach_mcast(qp, &d->mgid, 0);
}

/* ---- recv ---- */

static int run_recv(const char *group, uint32_t count, int nqps)
{
	struct dev d;
	struct ibv_qp *qp[MAX_QPS + 2];
	static uint8_t seen[MAX_QPS + 2][MAX_COUNT];
	uint32_t got[MAX_QPS + 2] = {0}, done = 0;
	int all = nqps + 2; /* then the other Q_Key's, then the one not attached */
	int depth = (int)count + 4;
	double guard = now_s() + GUARD_S;

	dev_open(&d, group, (size_t)all * (size_t)depth * SLOT, all * depth);
	for (int q = 0; q < all; q++) {
		qp[q] = qp_new(&d, IBV_QPT_UD, q == nqps ? OTHER_QKEY : QKEY, depth);
		for (int k = 0; k < depth; k++)
			post_recv(&d, qp[q], (uint64_t)q * (uint64_t)depth + (uint64_t)k);
		if (q < all - 1 && attach(qp[q], &d))
			fail("ibv_attach_mcast: %s", strerror(errno));
	}
	printf("ready\n");
	fflush(stdout);
	while (done < (uint32_t)nqps) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(d.cq, 16, wc);
		if (n < 0)
			fail("ibv_poll_cq");
		if (!n) {
			if (now_s() > guard)
				fail("after %d s: %u of %d QPs have all %u messages", GUARD_S, done,
				     nqps, count);
			usleep(200);
			continue;
		}
		for (int i = 0; i < n; i++) {
			int q = 0;
			while (q < all && qp[q]->qp_num != wc[i].qp_num)
				q++;
			if (q >= nqps)
				fail("QP %#x (%s) got a message", wc[i].qp_num,
				     q == nqps ? "another Q_Key" : "not attached");
			check_recv(&d, &wc[i], seen[q], count);
			if (++got[q] == count)
				done++;
		}
	}
	/* What reached the good QPs reached the other two in the same rounds. */
	struct ibv_wc wc;
	if (ibv_poll_cq(d.cq, 1, &wc))
		fail("QP %#x got a message after all were in", wc.qp_num);
	for (int q = 0; q < all; q++) {
		if (q < all - 1 && ibv_detach_mcast(qp[q], &d.mgid, 0))
			fail("ibv_detach_mcast: %s", strerror(errno));
		if (ibv_destroy_qp(qp[q]))
			fail("ibv_destroy_qp: %s", strerror(errno));
	}
	dev_close(&d);
	printf("PASS recv %s: %d QPs got each of %u messages once; the QP with another Q_Key and "
	       "the one not attached got none\n", group, nqps, count);
	return 0;
}

/* ---- send ---- */

/* The first GID of the group's family, the source of what goes to it: GID 0 with UROCE_IP,
 * and with UROCE_XDP, whose GIDs are the interface's addresses, IPv4 ones first. */
static uint8_t sgid_of_family(const struct dev *d)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff}, zero[16];
	struct ibv_port_attr pa;
	union ibv_gid gid;

	if (ibv_query_port(d->ctx, 1, &pa))
		fail("ibv_query_port: %s", strerror(errno));
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid(d->ctx, 1, i, &gid) || !memcmp(gid.raw, zero, 16))
			continue;
		bool ipv4 = !memcmp(gid.raw, mapped, 12);
		if (ipv4 != d->v6)
			return (uint8_t)i;
	}
	fail("no GID of the group's family");
	return 0;
}

static int run_send(const char *group, uint32_t count, bool loop)
{
	struct dev d;
	const int depth = 64;
	double guard = now_s() + GUARD_S;
	uint8_t seen[MAX_COUNT] = {0};
	uint32_t posted = 0, sent = 0, looped = 0;

	/* send slots first, then the loopback QP's receive slots */
	dev_open(&d, group, (size_t)(depth + count + 4) * SLOT, 2 * depth + (int)count + 4);
	struct ibv_qp *qp = qp_new(&d, IBV_QPT_UD, QKEY, depth);
	struct ibv_qp *lq = NULL;
	if (loop) {
		lq = qp_new(&d, IBV_QPT_UD, QKEY, (int)count + 4);
		for (uint32_t k = 0; k < count; k++)
			post_recv(&d, lq, (uint64_t)depth + k);
		if (attach(lq, &d))
			fail("ibv_attach_mcast: %s", strerror(errno));
	}
	struct ibv_ah_attr aa = {.is_global = 1, .port_num = 1,
				 .grh = {.dgid = d.mgid, .sgid_index = sgid_of_family(&d),
					 .hop_limit = 8}};
	struct ibv_ah *ah = ibv_create_ah(d.pd, &aa);
	if (!ah)
		fail("ibv_create_ah: %s", strerror(errno));
	while (sent < count || (loop && looped < count)) {
		while (posted < count && posted - sent < (uint32_t)depth) {
			uint8_t *p = d.buf + (posted % (uint32_t)depth) * SLOT;
			struct ibv_sge sge = {.addr = (uintptr_t)p, .length = msg_len(posted),
					      .lkey = d.mr->lkey};
			struct ibv_send_wr wr = {.wr_id = posted, .sg_list = &sge, .num_sge = 1,
						 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
						 .wr.ud = {.ah = ah, .remote_qpn = MCAST_QPN,
							   .remote_qkey = QKEY}};
			struct ibv_send_wr *bad;
			msg_fill(p, posted);
			if (ibv_post_send(qp, &wr, &bad))
				fail("ibv_post_send: %s", strerror(errno));
			posted++;
		}
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(d.cq, 16, wc);
		if (n < 0)
			fail("ibv_poll_cq");
		if (!n) {
			if (now_s() > guard)
				fail("after %d s: %u of %u sent, %u looped back", GUARD_S, sent,
				     count, looped);
			usleep(200);
			continue;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].qp_num == qp->qp_num) {
				if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_SEND ||
				    wc[i].wr_id != sent)
					fail("send completion %" PRIu64 ": %s", (uint64_t)wc[i].wr_id,
					     ibv_wc_status_str(wc[i].status));
				sent++;
				continue;
			}
			if (!lq || wc[i].qp_num != lq->qp_num)
				fail("a completion of QP %#x", wc[i].qp_num);
			if (wc[i].src_qp != qp->qp_num)
				fail("looped message from QP %#x, not %#x", wc[i].src_qp, qp->qp_num);
			check_recv(&d, &wc[i], seen, count);
			looped++;
		}
	}
	if (lq && (ibv_detach_mcast(lq, &d.mgid, 0) || ibv_destroy_qp(lq)))
		fail("detaching / destroying: %s", strerror(errno));
	if (ibv_destroy_ah(ah) || ibv_destroy_qp(qp))
		fail("ibv_destroy_ah / ibv_destroy_qp: %s", strerror(errno));
	dev_close(&d);
	printf("PASS send %s: %u messages sent%s\n", group, count,
	       loop ? ", each looped back once to the sender's own attached QP" : "");
	return 0;
}

/* ---- idle ---- */

static int run_idle(const char *group, const char *donefile)
{
	struct dev d;
	double guard = now_s() + 2 * GUARD_S;
	struct ibv_wc wc;

	dev_open(&d, group, 8 * SLOT, 16);
	struct ibv_qp *qp = qp_new(&d, IBV_QPT_UD, QKEY, 8);
	for (int k = 0; k < 8; k++)
		post_recv(&d, qp, (uint64_t)k);
	printf("ready\n");
	fflush(stdout);
	for (bool last = false;; usleep(1000)) {
		/* The last poll comes after DONEFILE appeared: by then the group's datagrams
		 * have reached the members of this host, and so this device if they were to. */
		if (ibv_poll_cq(d.cq, 1, &wc))
			fail("QP %#x, not attached, got a message from QP %#x", wc.qp_num, wc.src_qp);
		if (last)
			break;
		last = access(donefile, F_OK) == 0;
		if (now_s() > guard)
			fail("%s never appeared", donefile);
	}
	if (ibv_destroy_qp(qp))
		fail("ibv_destroy_qp: %s", strerror(errno));
	dev_close(&d);
	printf("PASS idle %s: a UD QP not attached got nothing\n", group);
	return 0;
}

/* ---- rules ---- */

static void expect(const char *what, int got, int want)
{
	if (got != want)
		fail("%s: returned %d (%s), not %d", what, got, got ? strerror(got) : "success", want);
}

static int run_rules(const char *group)
{
	struct dev d;
	struct ibv_device_attr da;
	union ibv_gid unicast;

	dev_open(&d, group, SLOT, 16);
	struct ibv_qp *ud = qp_new(&d, IBV_QPT_UD, QKEY, 4);
	struct ibv_qp *rc = qp_new(&d, IBV_QPT_RC, 0, 4);
	if (ibv_query_gid(d.ctx, 1, 0, &unicast))
		fail("ibv_query_gid: %s", strerror(errno));
	/* ibv_attach_mcast(3): only UD QPs; the GID must be a multicast one. */
	expect("attaching an RC QP", ibv_attach_mcast(rc, &d.mgid, 0), EINVAL);
	expect("attaching to a unicast GID", ibv_attach_mcast(ud, &unicast, 0), EINVAL);
	expect("detaching a QP never attached", ibv_detach_mcast(ud, &d.mgid, 0), EINVAL);
	/* Twice is one membership; the MLID is ignored on RoCE (Annex A17.5.6). */
	expect("attaching", ibv_attach_mcast(ud, &d.mgid, 0), 0);
	expect("attaching again, another MLID", ibv_attach_mcast(ud, &d.mgid, 0xC001), 0);
	/* As the kernel's uverbs: an attached QP is not destroyed (and stays usable). */
	errno = 0;
	expect("destroying an attached QP", ibv_destroy_qp(ud), EBUSY);
	expect("errno after it", errno, EBUSY);
	expect("detaching", ibv_detach_mcast(ud, &d.mgid, 0), 0);
	expect("detaching again", ibv_detach_mcast(ud, &d.mgid, 0), EINVAL);
	expect("destroying the UD QP", ibv_destroy_qp(ud), 0);
	expect("destroying the RC QP", ibv_destroy_qp(rc), 0);
	if (ibv_query_device(d.ctx, &da))
		fail("ibv_query_device: %s", strerror(errno));
	expect("max_mcast_grp", da.max_mcast_grp, 256);
	expect("max_mcast_qp_attach", da.max_mcast_qp_attach, 56);
	expect("max_total_mcast_qp_attach", da.max_total_mcast_qp_attach, 256 * 56);
	dev_close(&d);
	printf("PASS rules %s: EINVAL for an RC QP, a unicast GID and a detach without attach; a "
	       "second attach is one; EBUSY to destroy an attached QP; the limits\n", group);
	return 0;
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "usage";
	if (argc == 5 && !strcmp(mode, "recv")) {
		uint32_t count = (uint32_t)atoi(argv[3]);
		int qps = atoi(argv[4]);
		if (count < 1 || count > MAX_COUNT || qps < 1 || qps > MAX_QPS)
			fail("COUNT 1..%d, QPS 1..%d", MAX_COUNT, MAX_QPS);
		return run_recv(argv[2], count, qps);
	}
	if (argc == 5 && !strcmp(mode, "send")) {
		uint32_t count = (uint32_t)atoi(argv[3]);
		if (count < 1 || count > MAX_COUNT)
			fail("COUNT 1..%d", MAX_COUNT);
		return run_send(argv[2], count, atoi(argv[4]) != 0);
	}
	if (argc == 4 && !strcmp(mode, "idle"))
		return run_idle(argv[2], argv[3]);
	if (argc == 3 && !strcmp(mode, "rules"))
		return run_rules(argv[2]);
	fprintf(stderr, "usage: mcast_peer recv GROUP COUNT QPS | send GROUP COUNT LOOP | "
			"idle GROUP DONEFILE | rules GROUP\n");
	return 2;
}

/* SPDX-License-Identifier: MIT */
/* The verbs side of one demo process: device, protection domain, completion queues, one RC
 * queue pair and one registered region, connected to the peer the way perftest and the
 * pingpong examples do it (INIT, RTR with a global route to the peer's GID, RTS). Only the
 * standard <infiniband/verbs.h> API is used: the same code runs on a real RDMA NIC. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"

#define DEMO_RETRY 7     /* retry_cnt and rnr_retry: 7 is the most, rnr_retry 7 forever */
#define DEMO_RNR_TIMER 12 /* 0.64 ms */

double demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer: every bit of the word depends on every bit of the input, so
	 * a byte written to the wrong offset or from the wrong message never matches. */
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void demo_fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = mix64(seed * 0x100000001b3ull + i / 8);
		memcpy(p + i, &w, len - i < 8 ? len - i : 8);
	}
}

long demo_check(const uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = mix64(seed * 0x100000001b3ull + i / 8);
		size_t n = len - i < 8 ? len - i : 8;
		if (memcmp(p + i, &w, n)) {
			const uint8_t *e = (const uint8_t *)&w;
			for (size_t k = 0; k < n; k++)
				if (p[i + k] != e[k])
					return (long)(i + k);
		}
	}
	return -1;
}

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

void demo_layout_init(struct demo_layout *l, size_t bulk_len)
{
	size_t off = 0;

	/* Areas start on 4 KiB boundaries: the atomic word must be 8-byte aligned, and a
	 * page-aligned buffer is what applications usually register. */
	l->slot_len = DEMO_SEND_LEN;
	l->slots = off;
	off = align_up(off + (size_t)DEMO_NSLOTS * l->slot_len, 4096);
	l->send = off;
	off = align_up(off + DEMO_SEND_LEN, 4096);
	l->wr_area = off;
	off = align_up(off + DEMO_RDMA_LEN, 4096);
	l->rd_area = off;
	off = align_up(off + DEMO_RDMA_LEN, 4096);
	l->atomic = off;
	off = align_up(off + 8 * (DEMO_FETCH_ADDS + 2), 4096);
	l->bulk = off;
	l->bulk_len = bulk_len;
	l->total = align_up(off + bulk_len, 4096);
}

int demo_post_slot(struct demo_ep *ep, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(ep->buf + ep->lay.slots + (size_t)i * ep->lay.slot_len),
		.length = (uint32_t)ep->lay.slot_len,
		.lkey = ep->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad;

	return ibv_post_recv(ep->qp, &wr, &bad);
}

int demo_wait(struct ibv_cq *cq, struct ibv_wc *wc, double timeout_s)
{
	double deadline = demo_now() + timeout_s;
	unsigned spins = 0;
	int n;

	/* A plain busy poll, as perftest does: uroce moves packets inside ibv_poll_cq when the
	 * queue is empty. Yielding here made the round trip 4 to 8 times longer on a 2-vCPU VM
	 * (the progress thread then runs instead, through context switches). */
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
		if (++spins >= 256) {
			spins = 0;
			if (demo_now() > deadline)
				return 0;
		}
	}
}

int demo_post_send(struct demo_ep *ep, struct ibv_send_wr *wr, struct ibv_wc *wc_out,
		   int *ncomp)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int err;

	if (ncomp)
		*ncomp = 0;
	while ((err = ibv_post_send(ep->qp, wr, &bad)) == ENOMEM) {
		/* The send queue is full: one completion makes room. */
		if (demo_wait(ep->scq, &wc, 30.0) != 1)
			return -1;
		if (wc_out)
			*wc_out = wc;
		if (ncomp)
			++*ncomp;
		if (wc.status != IBV_WC_SUCCESS)
			return EIO;
	}
	return err;
}

static int fail(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "%s: %s", what, strerror(e ? e : EINVAL));
	return -1;
}

int demo_ep_open(struct demo_ep *ep, size_t bulk_len, char *err, size_t errlen)
{
	struct ibv_device **list;
	struct ibv_port_attr port;
	struct ibv_device_attr dev;
	union ibv_gid gid;
	Dl_info dli;
	int n;

	memset(ep, 0, sizeof(*ep));
	demo_layout_init(&ep->lay, bulk_len);
	/* Which libibverbs.so.1 the loader picked: the report shows it, since the system's
	 * would find no device here. */
	if (dladdr((void *)(uintptr_t)ibv_get_device_list, &dli) && dli.dli_fname)
		snprintf(ep->libpath, sizeof(ep->libpath), "%s", dli.dli_fname);
	if (!(list = ibv_get_device_list(&n)))
		return fail(err, errlen, "ibv_get_device_list", errno);
	if (n < 1) {
		ibv_free_device_list(list);
		snprintf(err, errlen, "no RDMA device (libibverbs: %s)",
			 ep->libpath[0] ? ep->libpath : "?");
		return -1;
	}
	ep->ctx = ibv_open_device(list[0]);
	n = errno;
	ibv_free_device_list(list);
	if (!ep->ctx)
		return fail(err, errlen, "ibv_open_device", n);
	if ((n = ibv_query_device(ep->ctx, &dev)))
		return fail(err, errlen, "ibv_query_device", n);
	if ((n = ibv_query_port(ep->ctx, 1, &port)))
		return fail(err, errlen, "ibv_query_port", n);
	if ((n = ibv_query_gid(ep->ctx, 1, 0, &gid)))
		return fail(err, errlen, "ibv_query_gid", n);
	if (!(ep->pd = ibv_alloc_pd(ep->ctx)))
		return fail(err, errlen, "ibv_alloc_pd", errno);
	if (!(ep->scq = ibv_create_cq(ep->ctx, 2 * DEMO_SQ_DEPTH, NULL, NULL, 0)) ||
	    !(ep->rcq = ibv_create_cq(ep->ctx, 2 * DEMO_NSLOTS, NULL, NULL, 0)))
		return fail(err, errlen, "ibv_create_cq", errno);
	if (!(ep->buf = aligned_alloc(4096, ep->lay.total)))
		return fail(err, errlen, "memory", ENOMEM);
	memset(ep->buf, 0, ep->lay.total);
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, ep->lay.total,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!ep->mr)
		return fail(err, errlen, "ibv_reg_mr", errno);

	struct ibv_qp_init_attr qa = {
		.send_cq = ep->scq,
		.recv_cq = ep->rcq,
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = DEMO_SQ_DEPTH, .max_recv_wr = DEMO_NSLOTS,
			.max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = DEMO_PING_LEN},
	};
	/* Pings go inline when the device can (as ib_send_lat does); a device that cannot
	 * gets a second try without. */
	if (!(ep->qp = ibv_create_qp(ep->pd, &qa)) && errno == EINVAL) {
		qa.cap.max_inline_data = 0;
		ep->qp = ibv_create_qp(ep->pd, &qa);
	}
	if (!ep->qp) {
		if (errno != EADDRINUSE)
			return fail(err, errlen, "ibv_create_qp", errno);
		/* uroce binds UDP port 4791 on the address with the first QP. */
		snprintf(err, errlen, "ibv_create_qp: %s (another process uses this address: "
			 "give each process its own, --client-ip/--server-ip)", strerror(errno));
		return -1;
	}
	ep->self.qpn = ep->qp->qp_num;
	ep->self.psn = (uint32_t)(mix64((uint64_t)getpid() ^ (uint64_t)time(NULL)) & 0xffffff);
	memcpy(ep->self.gid, gid.raw, 16);
	ep->self.rkey = ep->mr->rkey;
	ep->self.mtu = port.active_mtu;
	ep->self.addr = (uintptr_t)ep->buf;
	ep->self.pid = (int32_t)getpid();
	ep->self.inline_max = qa.cap.max_inline_data;
	/* max_rd_atomic on both sides: as many READs and atomics in flight as the device
	 * allows, up to 16. */
	ep->rd_atom = (uint8_t)(dev.max_qp_rd_atom < 16 ? dev.max_qp_rd_atom : 16);
	return 0;
}

int demo_ep_connect(struct demo_ep *ep, char *err, size_t errlen)
{
	struct ibv_qp_attr a;
	int e;

	ep->path_mtu = (enum ibv_mtu)(ep->self.mtu < ep->peer.mtu ? ep->self.mtu : ep->peer.mtu);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if ((e = ibv_modify_qp(ep->qp, &a,
			       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				       IBV_QP_ACCESS_FLAGS)))
		return fail(err, errlen, "ibv_modify_qp(INIT)", e);
	/* Receives can be posted from INIT on, and must be before the peer may send. */
	for (uint32_t i = 0; i < DEMO_NSLOTS; i++)
		if ((e = demo_post_slot(ep, i)))
			return fail(err, errlen, "ibv_post_recv", e);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = ep->path_mtu;
	a.dest_qp_num = ep->peer.qpn;
	a.rq_psn = ep->peer.psn;
	a.max_dest_rd_atomic = ep->rd_atom;
	a.min_rnr_timer = DEMO_RNR_TIMER;
	/* RoCE has no LIDs: the address is the peer's GID (an IPv4-mapped address), reached
	 * from our GID index 0. */
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, ep->peer.gid, 16);
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if ((e = ibv_modify_qp(ep->qp, &a,
			       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER)))
		return fail(err, errlen, "ibv_modify_qp(RTR)", e);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = DEMO_QP_TIMEOUT;
	a.retry_cnt = DEMO_RETRY;
	a.rnr_retry = DEMO_RETRY;
	a.sq_psn = ep->self.psn;
	a.max_rd_atomic = ep->rd_atom;
	if ((e = ibv_modify_qp(ep->qp, &a,
			       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)))
		return fail(err, errlen, "ibv_modify_qp(RTS)", e);
	return 0;
}

void demo_ep_close(struct demo_ep *ep)
{
	if (ep->qp)
		ibv_destroy_qp(ep->qp);
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	if (ep->scq)
		ibv_destroy_cq(ep->scq);
	if (ep->rcq)
		ibv_destroy_cq(ep->rcq);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->ctx)
		ibv_close_device(ep->ctx);
	free(ep->buf);
	memset(ep, 0, sizeof(*ep));
}

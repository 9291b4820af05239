/* SPDX-License-Identifier: MIT */
/* The verbs API of liburoce in one process: queries, misuse and the errors the man pages
 * promise, and real traffic between QPs of the same device over UDP on a loopback address
 * (SEND/RECV, WRITE with immediate, READ, atomics, the ibv_wr_* interface, UD with the
 * 40-byte header area, its IPv4/IPv6 flag in sl and ibv_create_ah_from_wc, addresses with
 * 32-bit flow labels, completion channels, flush on error, posting from several threads at
 * once), asynchronous events and the destroys that wait for their acknowledgement, and the
 * privilege a controlled Q_Key needs. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#define TEST_IP "127.0.4.1"
#define BUF 65536

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static struct env E;

static int setup(void **state)
{
	struct ibv_device **list;
	int n;

	(void)state;
	setenv("UROCE_IP", TEST_IP, 1);
	list = ibv_get_device_list(&n);
	if (!list || n != 1)
		return -1;
	E.ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!E.ctx)
		return -1;
	E.pd = ibv_alloc_pd(E.ctx);
	E.ch = ibv_create_comp_channel(E.ctx);
	E.cq = ibv_create_cq(E.ctx, 256, &E, E.ch, 0);
	E.buf = aligned_alloc(4096, BUF);
	E.mr = ibv_reg_mr(E.pd, E.buf, BUF,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_RELAXED_ORDERING);
	return E.pd && E.ch && E.cq && E.buf && E.mr ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(ibv_dereg_mr(E.mr), 0);
	assert_int_equal(ibv_destroy_cq(E.cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(E.ch), 0);
	assert_int_equal(ibv_dealloc_pd(E.pd), 0);
	assert_int_equal(ibv_close_device(E.ctx), 0);
	free(E.buf);
	return 0;
}

/* Waits for one completion (bounded by a generous number of polls, never by time). */
static struct ibv_wc wait_wc(void)
{
	struct ibv_wc wc;
	long i;

	for (i = 0; i < 2000000000L; i++) {
		int n = ibv_poll_cq(E.cq, 1, &wc);
		assert_true(n >= 0);
		if (n == 1)
			return wc;
	}
	fail_msg("no completion");
	return wc;
}

static void test_queries(void **state)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_gid_entry ge;
	union ibv_gid gid;
	__be16 pkey;
	static const uint8_t want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 4, 1};

	(void)state;
	assert_string_equal(ibv_get_device_name(E.ctx->device), "uroce0");
	assert_int_equal(ibv_query_device(E.ctx, &da), 0);
	assert_int_equal(da.vendor_id, 0xffffff);
	assert_int_equal(da.vendor_part_id, 0);
	assert_true(da.max_qp_rd_atom > 0);
	assert_int_equal(da.phys_port_cnt, 1);
	assert_int_equal(ibv_query_port(E.ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.active_mtu, IBV_MTU_4096); /* lo: MTU 65536 */
	assert_int_not_equal(ibv_query_port(E.ctx, 2, &pa), 0);
	assert_int_equal(ibv_query_gid(E.ctx, 1, 0, &gid), 0);
	assert_memory_equal(gid.raw, want, 16);
	assert_int_equal(ibv_query_gid_ex(E.ctx, 1, 0, &ge, 0), 0);
	assert_int_equal(ge.gid_type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(ibv_query_gid_ex(E.ctx, 1, 1, &ge, 0), ENODATA);
	assert_int_equal(ibv_query_pkey(E.ctx, 1, 0, &pkey), 0);
	assert_int_equal(ntohs(pkey), 0xffff);
	assert_true(E.ctx->num_comp_vectors >= 1);
	assert_string_equal(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR), "Work Request Flushed Error");
}

static struct ibv_qp *make_qp(enum ibv_qp_type type, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = E.cq;
	a.cap.max_send_wr = 64;
	a.cap.max_recv_wr = 64;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_sge = 2;
	a.cap.max_inline_data = 64;
	a.qp_type = type;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = E.pd;
	if (send_ops) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = send_ops;
	}
	return ibv_create_qp_ex(E.ctx, &a);
}

static void ah_to_self(struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.hop_limit = 64;
	assert_int_equal(ibv_query_gid(E.ctx, 1, 0, &ah->grh.dgid), 0);
}

/* RESET -> INIT -> RTR -> RTS towards the peer QP number. */
static void connect_rc(struct ibv_qp *qp, uint32_t peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer;
	a.rq_psn = 0x123;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	ah_to_self(&a.ah_attr);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						       IBV_QP_MAX_DEST_RD_ATOMIC |
						       IBV_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x123;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						       IBV_QP_MAX_QP_RD_ATOMIC), 0);
	assert_int_equal(qp->state, IBV_QPS_RTS);
}

static void post_recv(struct ibv_qp *qp, uint64_t off, uint32_t len, uint64_t id)
{
	struct ibv_sge sge = {(uintptr_t)E.buf + off, len, E.mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = 1}, *bad;
	assert_int_equal(ibv_post_recv(qp, &wr, &bad), 0);
}

static void test_misuse(void **state)
{
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	struct ibv_sge sge = {(uintptr_t)E.buf, 8, 0};
	struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND}, *bad = NULL;
	struct ibv_recv_wr rwr = {.sg_list = &sge, .num_sge = 1}, *rbad;
	struct ibv_ah_attr aa;
	int i, err = 0;

	(void)state;
	sge.lkey = E.mr->lkey;
	errno = 0;
	assert_null(ibv_create_cq(E.ctx, 0, NULL, NULL, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(ibv_reg_mr(E.pd, E.buf, 64, IBV_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	memset(&aa, 0, sizeof(aa));
	assert_null(ibv_create_ah(E.pd, &aa)); /* no GRH: no RoCE address */
	assert_int_equal(errno, EINVAL);

	assert_non_null(qp = make_qp(IBV_QPT_RC, 0));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL); /* RESET -> RTS */
	assert_int_equal(ibv_post_send(qp, &wr, &bad), EINVAL);        /* in RESET */
	assert_ptr_equal(bad, &wr);
	assert_int_equal(ibv_dealloc_pd(E.pd), EBUSY);
	assert_int_equal(ibv_destroy_cq(E.cq), EBUSY);
	assert_int_equal(ibv_destroy_comp_channel(E.ch), EBUSY);

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS), 0);
	for (i = 0; i < 100 && !err; i++)
		err = ibv_post_recv(qp, &rwr, &rbad);
	assert_int_equal(err, ENOMEM); /* the receive queue holds 64 */
	assert_int_equal(i, 65);

	/* To ERR: the 64 receives flush. */
	a.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	for (i = 0; i < 64; i++) {
		struct ibv_wc wc = wait_wc();
		assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
		assert_int_equal(wc.qp_num, qp->qp_num);
	}
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

/* An RC QP in INIT on cq with one receive posted, moved to ERR with cq armed: the flushed
 * receive raises a completion event, which is then polled off the CQ without reading the
 * event, as an application that re-armed its CQ and polled the last completions does. */
static struct ibv_qp *raise_unread_event(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 1, .max_recv_wr = 1,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};
	struct ibv_sge sge = {(uintptr_t)E.buf, 8, E.mr->lkey};
	struct ibv_recv_wr rwr = {.sg_list = &sge, .num_sge = 1}, *rbad;
	struct ibv_qp *qp = ibv_create_qp(E.pd, &ia);
	struct ibv_wc wc;
	long i;

	assert_non_null(qp);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS), 0);
	assert_int_equal(ibv_post_recv(qp, &rwr, &rbad), 0);
	assert_int_equal(ibv_req_notify_cq(cq, 0), 0);
	a.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	for (i = 0; i < 2000000000L && ibv_poll_cq(cq, 1, &wc) != 1; i++) {
	}
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	return qp;
}

/* ibv_destroy_cq waits for the acknowledgement of the events ibv_get_cq_event handed out,
 * not of those still unread in the channel (the kernel drops those: ib_uverbs_release_ucq).
 * ibv_srq_pingpong -e ends with such an event and hung in its destroy. The channel then
 * skips the destroyed CQ's event, and frees what is left of it when the event is read or
 * the channel destroyed (ASan checks both). */
static void test_unread_event_of_destroyed_cq(void **state)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(E.ctx);
	struct ibv_cq *cq1, *cq2, *cq3, *ev_cq;
	struct ibv_qp *qp;
	void *ev_ctx;

	(void)state;
	assert_non_null(ch);
	assert_non_null(cq1 = ibv_create_cq(E.ctx, 4, NULL, ch, 0));
	assert_non_null(cq2 = ibv_create_cq(E.ctx, 4, &E, ch, 0));
	qp = raise_unread_event(cq1);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	alarm(60); /* a watchdog: the old destroy waited for ever */
	assert_int_equal(ibv_destroy_cq(cq1), 0);
	alarm(0);

	/* The next event read is cq2's: cq1's is dropped on the way. */
	qp = raise_unread_event(cq2);
	assert_int_equal(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	assert_ptr_equal(ev_cq, cq2);
	assert_ptr_equal(ev_ctx, &E);
	ibv_ack_cq_events(ev_cq, 1);
	errno = 0;
	assert_int_equal(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq2), 0);

	/* A destroyed CQ whose event is never read goes with its channel. */
	assert_non_null(cq3 = ibv_create_cq(E.ctx, 4, NULL, ch, 0));
	qp = raise_unread_event(cq3);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	alarm(60);
	assert_int_equal(ibv_destroy_cq(cq3), 0);
	alarm(0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
}

static void test_rc_traffic(void **state)
{
	struct ibv_qp *a = make_qp(IBV_QPT_RC, 0), *b = make_qp(IBV_QPT_RC, 0);
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	uint64_t *atom = (uint64_t *)(E.buf + 8192);
	int i;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	connect_rc(a, b->qp_num);
	connect_rc(b, a->qp_num);
	for (i = 0; i < 4096; i++)
		E.buf[i] = (uint8_t)(i * 7 + 1);

	/* SEND with immediate, 3000 bytes (three 1024-byte packets), with a completion event. */
	post_recv(b, 16384, 4096, 77);
	assert_int_equal(ibv_req_notify_cq(E.cq, 0), 0);
	sge = (struct ibv_sge){(uintptr_t)E.buf, 3000, E.mr->lkey};
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(0xabcdef01);
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	assert_int_equal(ibv_get_cq_event(E.ch, &ev_cq, &ev_ctx), 0);
	assert_ptr_equal(ev_cq, E.cq);
	assert_ptr_equal(ev_ctx, &E);
	ibv_ack_cq_events(ev_cq, 1);
	for (i = 0; i < 2; i++) {
		wc = wait_wc();
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		if (wc.opcode == IBV_WC_RECV) {
			assert_int_equal(wc.wr_id, 77);
			assert_int_equal(wc.byte_len, 3000);
			assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
			assert_int_equal(ntohl(wc.imm_data), 0xabcdef01);
			assert_int_equal(wc.qp_num, b->qp_num);
		} else {
			assert_int_equal(wc.opcode, IBV_WC_SEND);
			assert_int_equal(wc.wr_id, 1);
		}
	}
	assert_memory_equal(E.buf + 16384, E.buf, 3000);

	/* RDMA WRITE of 4096 bytes to offset 20480, then READ it back to 32768. */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr_id = 2;
	sge.length = 4096;
	wr.wr.rdma.remote_addr = (uintptr_t)E.buf + 20480;
	wr.wr.rdma.rkey = E.mr->rkey;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc();
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_WRITE);
	assert_memory_equal(E.buf + 20480, E.buf, 4096);

	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr_id = 3;
	sge.addr = (uintptr_t)E.buf + 32768;
	wr.wr.rdma.remote_addr = (uintptr_t)E.buf + 20480;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc();
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_READ);
	assert_int_equal(wc.byte_len, 4096);
	assert_memory_equal(E.buf + 32768, E.buf, 4096);

	/* Atomics on an 8-byte word; the old value lands in the local buffer. */
	atom[0] = 40;
	sge = (struct ibv_sge){(uintptr_t)(atom + 1), 8, E.mr->lkey};
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)atom;
	wr.wr.atomic.rkey = E.mr->rkey;
	wr.wr.atomic.compare_add = 2;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc();
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_FETCH_ADD);
	assert_int_equal(atom[1], 40);
	assert_int_equal(atom[0], 42);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc();
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(atom[1], 42);
	assert_int_equal(atom[0], 7);

	/* A bad rkey: remote access error, and the QP goes to ERR. */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.rkey = E.mr->rkey ^ 0x80;
	sge.addr = (uintptr_t)E.buf;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc();
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);

	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	while (ibv_poll_cq(E.cq, 1, &wc) == 1) {
	}
}

/* Posting from several threads while the progress thread and a poller run: three threads
 * post SENDs on one QP (they take turns on its send queue), a third posts the receives on the
 * peer, the main thread polls. Every message arrives once, each sender's in its order, into
 * the receive buffer it was given; every send completes. */
#define CP_SENDERS 3
#define CP_PER_SENDER 3000
#define CP_SLOTS 64 /* receive buffers, reused in order: RC receive queues complete in order */
#define CP_BUF_OFF 40960

struct cp {
	struct ibv_qp *a, *b;
	_Atomic int outstanding; /* receives posted and not yet checked by the poller */
	_Atomic bool stop;
	_Atomic int errors;
};

struct cp_sender {
	struct cp *cp;
	uint64_t id;
};

static void *cp_send(void *arg)
{
	struct cp_sender *s = arg;
	struct cp *cp = s->cp;

	for (uint64_t i = 0; i < CP_PER_SENDER && !atomic_load(&cp->stop); i++) {
		uint64_t v = s->id << 32 | i;
		struct ibv_sge sge = {(uintptr_t)&v, sizeof(v), 0};
		struct ibv_send_wr wr = {.wr_id = v, .sg_list = &sge, .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE},
				   *bad;
		int err;
		while ((err = ibv_post_send(cp->a, &wr, &bad)) == ENOMEM && !atomic_load(&cp->stop))
			sched_yield(); /* the send queue is full until the poller takes completions */
		if (err && err != ENOMEM)
			atomic_fetch_add(&cp->errors, 1);
	}
	return NULL;
}

static void *cp_recv(void *arg)
{
	struct cp *cp = arg;

	for (uint64_t n = 0; n < CP_SENDERS * CP_PER_SENDER && !atomic_load(&cp->stop); n++) {
		while (atomic_load(&cp->outstanding) == CP_SLOTS && !atomic_load(&cp->stop))
			sched_yield();
		atomic_fetch_add(&cp->outstanding, 1);
		struct ibv_sge sge = {(uintptr_t)E.buf + CP_BUF_OFF + (n % CP_SLOTS) * 8, 8,
				      E.mr->lkey};
		struct ibv_recv_wr wr = {.wr_id = n, .sg_list = &sge, .num_sge = 1}, *bad;
		if (ibv_post_recv(cp->b, &wr, &bad))
			atomic_fetch_add(&cp->errors, 1);
	}
	return NULL;
}

static void test_concurrent_posting(void **state)
{
	struct cp cp = {.a = make_qp(IBV_QPT_RC, 0), .b = make_qp(IBV_QPT_RC, 0)};
	struct cp_sender senders[CP_SENDERS];
	pthread_t th[CP_SENDERS + 1];
	uint64_t next_recv[CP_SENDERS] = {0}, next_send[CP_SENDERS] = {0}, next_wr = 0;
	const long total = 2L * CP_SENDERS * CP_PER_SENDER;
	long done = 0, idle = 0;
	struct ibv_wc wc[16];
	int i, k;

	(void)state;
	assert_non_null(cp.a);
	assert_non_null(cp.b);
	connect_rc(cp.a, cp.b->qp_num);
	connect_rc(cp.b, cp.a->qp_num);
	assert_int_equal(pthread_create(&th[0], NULL, cp_recv, &cp), 0);
	for (i = 0; i < CP_SENDERS; i++) {
		senders[i] = (struct cp_sender){&cp, (uint64_t)i};
		assert_int_equal(pthread_create(&th[i + 1], NULL, cp_send, &senders[i]), 0);
	}
	/* Until everything arrived, or a long run of empty polls: stuck (a count, not a time). */
	while (done < total && idle < 20000000L) {
		int n = ibv_poll_cq(E.cq, 16, wc);
		if (n < 0)
			break;
		idle = n ? 0 : idle + 1;
		for (k = 0; k < n; k++, done++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				atomic_fetch_add(&cp.errors, 1);
				continue;
			}
			uint64_t t = wc[k].wr_id >> 32, i2 = wc[k].wr_id & 0xffffffffu;
			if (wc[k].opcode == IBV_WC_SEND) {
				if (t >= CP_SENDERS || i2 != next_send[t]++)
					atomic_fetch_add(&cp.errors, 1);
				continue;
			}
			/* A receive: completions in the order the WQEs were posted, and its
			 * buffer holds a sender's next message. */
			uint64_t v;
			memcpy(&v, E.buf + CP_BUF_OFF + (wc[k].wr_id % CP_SLOTS) * 8, 8);
			t = v >> 32;
			i2 = v & 0xffffffffu;
			if (wc[k].opcode != IBV_WC_RECV || wc[k].wr_id != next_wr++ ||
			    wc[k].byte_len != 8 || t >= CP_SENDERS || i2 != next_recv[t]++)
				atomic_fetch_add(&cp.errors, 1);
			atomic_fetch_sub(&cp.outstanding, 1);
		}
	}
	atomic_store(&cp.stop, true);
	for (i = 0; i <= CP_SENDERS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(atomic_load(&cp.errors), 0);
	assert_int_equal(done, total);
	for (i = 0; i < CP_SENDERS; i++) {
		assert_int_equal(next_send[i], CP_PER_SENDER);
		assert_int_equal(next_recv[i], CP_PER_SENDER);
	}
	assert_int_equal(ibv_destroy_qp(cp.a), 0);
	assert_int_equal(ibv_destroy_qp(cp.b), 0);
}

static void test_wr_api(void **state)
{
	uint64_t ops = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND;
	struct ibv_qp *a = make_qp(IBV_QPT_RC, ops), *b = make_qp(IBV_QPT_RC, 0);
	struct ibv_qp_ex *x;
	struct ibv_wc wc;
	int i;

	(void)state;
	assert_non_null(a);
	assert_non_null(x = ibv_qp_to_qp_ex(a));
	assert_null(ibv_qp_to_qp_ex(b)); /* created without send_ops_flags */
	connect_rc(a, b->qp_num);
	connect_rc(b, a->qp_num);
	memset(E.buf + 40000, 0, 2048);
	post_recv(b, 48000, 64, 9);

	ibv_wr_start(x);
	x->wr_id = 11;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, E.mr->rkey, (uintptr_t)E.buf + 40000);
	ibv_wr_set_sge(x, E.mr->lkey, (uintptr_t)E.buf, 2048);
	x->wr_id = 12;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, "inline!", 8);
	assert_int_equal(ibv_wr_complete(x), 0);
	for (i = 0; i < 3; i++) {
		wc = wait_wc();
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
	}
	assert_memory_equal(E.buf + 40000, E.buf, 2048);
	assert_string_equal((char *)E.buf + 48000, "inline!");

	/* A setter without a builder is an error reported by ibv_wr_complete. */
	ibv_wr_start(x);
	ibv_wr_set_sge(x, E.mr->lkey, (uintptr_t)E.buf, 8);
	assert_int_equal(ibv_wr_complete(x), EINVAL);

	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
}

/* UD: a SEND with the 40-byte header area in the receive buffer, and an AH made from its
 * completion. A message longer than the port's active MTU sends nothing and completes
 * successfully (C10-93.1.1, docs/engine.md "UC and UD"), through ibv_post_send and through
 * ibv_wr_*: the receive posted next takes the short message that follows (had the long one
 * been sent, it would not have fitted and completed with LOC_LEN_ERR). */
static void test_ud(void **state)
{
	struct ibv_qp *a = make_qp(IBV_QPT_UD, IBV_QP_EX_WITH_SEND), *b = make_qp(IBV_QPT_UD, 0);
	struct ibv_qp_attr at;
	struct ibv_ah_attr aa;
	struct ibv_ah *ah, *back;
	struct ibv_sge sge = {(uintptr_t)E.buf, 100, 0};
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	struct ibv_qp *q[2] = {a, b};
	int i;

	(void)state;
	sge.lkey = E.mr->lkey;
	for (i = 0; i < 2; i++) {
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qkey = 0x11111111;
		assert_int_equal(ibv_modify_qp(q[i], &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
							       IBV_QP_PORT | IBV_QP_QKEY), 0);
		at.qp_state = IBV_QPS_RTR;
		assert_int_equal(ibv_modify_qp(q[i], &at, IBV_QP_STATE), 0);
		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = 5;
		assert_int_equal(ibv_modify_qp(q[i], &at, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	}
	post_recv(b, 50000, 40 + 1024, 5);
	ah_to_self(&aa);
	assert_non_null(ah = ibv_create_ah(E.pd, &aa));
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	for (i = 0; i < 2; i++) {
		wc = wait_wc();
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		if (wc.opcode == IBV_WC_RECV)
			break;
	}
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, 40 + 100);
	assert_true(wc.wc_flags & IBV_WC_GRH);
	assert_int_equal(wc.src_qp, a->qp_num);
	assert_int_equal(wc.sl, 2); /* came over IPv4, in mlx5's encoding (cq.c, wc_from_engine) */
	assert_int_equal(E.buf[50000 + 20] >> 4, 4); /* the IPv4 header at bytes 20..39 */
	assert_memory_equal(E.buf + 50040, E.buf, 100);
	assert_non_null(back = ibv_create_ah_from_wc(E.pd, &wc, (struct ibv_grh *)(E.buf + 50000), 1));
	assert_int_equal(ibv_destroy_ah(back), 0);
	while (ibv_poll_cq(E.cq, 1, &wc) == 1) {
	}

	struct ibv_port_attr pa;
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(a);
	assert_int_equal(ibv_query_port(E.ctx, 1, &pa), 0);
	uint32_t mtu = 128u << pa.active_mtu;
	for (i = 0; i < 2; i++) {
		post_recv(b, 50000, 40 + 1024, 20 + (uint64_t)i);
		wr.wr_id = 30 + (uint64_t)i;
		sge.length = mtu + 1;
		if (i == 0) {
			assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
		} else {
			ibv_wr_start(x);
			x->wr_id = wr.wr_id;
			x->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(x);
			ibv_wr_set_ud_addr(x, ah, b->qp_num, 0x11111111);
			ibv_wr_set_sge(x, E.mr->lkey, (uintptr_t)E.buf, mtu + 1);
			assert_int_equal(ibv_wr_complete(x), 0);
		}
		wc = wait_wc();
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.opcode, IBV_WC_SEND);
		assert_int_equal(wc.wr_id, 30 + (uint64_t)i);
		sge.length = 100;
		wr.wr_id = 40;
		assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
		for (int k = 0; k < 2; k++) {
			wc = wait_wc();
			assert_int_equal(wc.status, IBV_WC_SUCCESS);
			if (wc.opcode == IBV_WC_RECV)
				break;
		}
		assert_int_equal(wc.opcode, IBV_WC_RECV);
		assert_int_equal(wc.wr_id, 20 + (uint64_t)i);
		assert_int_equal(wc.byte_len, 40 + 100);
	}
	assert_int_equal(ibv_destroy_ah(ah), 0);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	while (ibv_poll_cq(E.cq, 1, &wc) == 1) {
	}
}

/* ibv_ah_attr's flow label is 32 bits, the GRH's and IPv6's 20: as the kernel and the NICs
 * do, the verbs take any value and keep the low 20 bits. UCX sets flow_label to ~0 and dlid
 * to 0xC000 in every RoCE address it makes (its AHs and RC QPs failed with EINVAL before).
 * The AH works, and an RC QP takes such an address and reports the 20 bits it kept. */
static void test_ah_wide_flow_label(void **state)
{
	struct ibv_qp *ud = make_qp(IBV_QPT_UD, 0), *rc = make_qp(IBV_QPT_RC, 0);
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	struct ibv_sge sge = {(uintptr_t)E.buf, 64, E.mr->lkey};
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	int i;

	(void)state;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qkey = 0x1ee7a330;
	assert_int_equal(ibv_modify_qp(ud, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
							IBV_QP_QKEY), 0);
	at.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(ud, &at, IBV_QP_STATE), 0);
	at.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(ud, &at, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	ah_to_self(&aa);
	aa.dlid = 0xC000;
	aa.grh.flow_label = ~0u;
	assert_non_null(ah = ibv_create_ah(E.pd, &aa));
	post_recv(ud, 50000, 40 + 64, 3);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud->qp_num;
	wr.wr.ud.remote_qkey = 0x1ee7a330;
	assert_int_equal(ibv_post_send(ud, &wr, &bad), 0);
	for (i = 0; i < 2; i++) {
		wc = wait_wc();
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		if (wc.opcode == IBV_WC_RECV)
			break;
	}
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, 40 + 64);
	assert_int_equal(ibv_destroy_ah(ah), 0);

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	assert_int_equal(ibv_modify_qp(rc, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
							IBV_QP_ACCESS_FLAGS), 0);
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = rc->qp_num;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 1;
	at.ah_attr = aa;
	assert_int_equal(ibv_modify_qp(rc, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
							IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
							IBV_QP_MAX_DEST_RD_ATOMIC |
							IBV_QP_MIN_RNR_TIMER), 0);
	memset(&at, 0, sizeof(at));
	assert_int_equal(ibv_query_qp(rc, &at, IBV_QP_AV, &ia), 0);
	assert_int_equal(at.ah_attr.grh.flow_label, 0xFFFFF);
	assert_int_equal(ibv_destroy_qp(rc), 0);
	assert_int_equal(ibv_destroy_qp(ud), 0);
	while (ibv_poll_cq(E.cq, 1, &wc) == 1) {
	}
}

struct destroyer {
	struct ibv_qp *qp;
	atomic_bool done;
	int rc;
};

static void *destroy_qp_thread(void *arg)
{
	struct destroyer *d = arg;

	d->rc = ibv_destroy_qp(d->qp);
	atomic_store(&d->done, true);
	return NULL;
}

/* ibv_get_async_event(3): "destroying an object (CQ, SRQ or QP) will wait for all affiliated
 * events for the object to be acknowledged". Two QPs on an SRQ reach their last WQE when
 * moved to ERR (IBA 11.6.3.1). The first is destroyed with its event still queued: the event
 * goes with it (async_fd no longer readable, a non-blocking get finds nothing). The second's
 * event is taken: its destroy, on another thread, waits until the event is acknowledged
 * (UCX acknowledges from its own thread while it destroys QPs; the ack wrote into freed
 * memory before). */
static void test_async_events_and_destroy(void **state)
{
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 8, .max_sge = 1}};
	struct ibv_qp_init_attr qa;
	struct ibv_qp_attr at = {.qp_state = IBV_QPS_ERR};
	struct ibv_async_event ev;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	struct pollfd pfd = {.fd = E.ctx->async_fd, .events = POLLIN};
	struct destroyer d = {0};
	pthread_t t;
	int fl;

	(void)state;
	assert_non_null(srq = ibv_create_srq(E.pd, &sa));
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = E.cq;
	qa.srq = srq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_send_sge = 1;
	assert_non_null(a = ibv_create_qp(E.pd, &qa));
	assert_non_null(b = ibv_create_qp(E.pd, &qa));
	assert_int_equal(poll(&pfd, 1, 0), 0);

	assert_int_equal(ibv_modify_qp(a, &at, IBV_QP_STATE), 0);
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	fl = fcntl(E.ctx->async_fd, F_GETFL);
	assert_int_equal(fcntl(E.ctx->async_fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	assert_int_equal(ibv_get_async_event(E.ctx, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(fcntl(E.ctx->async_fd, F_SETFL, fl), 0);

	assert_int_equal(ibv_modify_qp(b, &at, IBV_QP_STATE), 0);
	assert_int_equal(ibv_get_async_event(E.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, b);
	d.qp = b;
	assert_int_equal(pthread_create(&t, NULL, destroy_qp_thread, &d), 0);
	usleep(100000);
	assert_false(atomic_load(&d.done)); /* waiting for the acknowledgement */
	ibv_ack_async_event(&ev);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(atomic_load(&d.done));
	assert_int_equal(d.rc, 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	while (ibv_poll_cq(E.cq, 1, &(struct ibv_wc){0}) == 1) {
	}
}

/* Capabilities are per thread: capget/capset with pid 0 read and change the calling
 * thread's sets only (glibc has no wrapper; libcap is not needed for one bit). */
static bool net_raw(bool *permitted, bool *effective)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned i = CAP_TO_INDEX(CAP_NET_RAW);

	if (syscall(SYS_capget, &hdr, d) != 0)
		return false;
	*permitted = d[i].permitted & CAP_TO_MASK(CAP_NET_RAW);
	*effective = d[i].effective & CAP_TO_MASK(CAP_NET_RAW);
	return true;
}

/* Puts CAP_NET_RAW in or out of this thread's effective set; the permitted set keeps it, so
 * it can come back. */
static bool set_net_raw(bool on)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned i = CAP_TO_INDEX(CAP_NET_RAW);

	if (syscall(SYS_capget, &hdr, d) != 0)
		return false;
	if (on)
		d[i].effective |= CAP_TO_MASK(CAP_NET_RAW);
	else
		d[i].effective &= ~CAP_TO_MASK(CAP_NET_RAW);
	return syscall(SYS_capset, &hdr, d) == 0;
}

static uint32_t qkey_of(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	assert_int_equal(ibv_query_qp(qp, &a, IBV_QP_QKEY, &ia), 0);
	return a.qkey;
}

/* IBA 10.2.4: a Q_Key with the high bit set (QP1's 0x80010000, for one) is controlled. As
 * Linux's uverbs modify_qp does, ibv_modify_qp refuses it with EPERM to a caller without
 * CAP_NET_RAW in its effective set, and changes nothing. The test thread drops the
 * capability (the progress thread keeps its own); as root it takes it back and the same
 * call succeeds. Without the capability in the permitted set only the refusal is seen. */
static void test_controlled_qkey(void **state)
{
	const int to_init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
	struct ibv_qp *qp = make_qp(IBV_QPT_UD, 0);
	struct ibv_qp_attr at;
	bool permitted = false, effective = true;

	(void)state;
	assert_non_null(qp);
	assert_true(net_raw(&permitted, &effective));
	assert_true(set_net_raw(false));
	assert_true(net_raw(&permitted, &effective));
	assert_false(effective);

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qkey = 0x80010000;
	assert_int_equal(ibv_modify_qp(qp, &at, to_init), EPERM);
	assert_int_equal(qp->state, IBV_QPS_RESET);
	at.qkey = 0x7fffffff; /* the highest uncontrolled key */
	assert_int_equal(ibv_modify_qp(qp, &at, to_init), 0);
	assert_int_equal(qp->state, IBV_QPS_INIT);
	at.qkey = 0x80000000;
	assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_QKEY), EPERM);
	assert_int_equal(qkey_of(qp), 0x7fffffff);

	if (permitted) {
		assert_true(set_net_raw(true));
		at.qkey = 0x80010000;
		assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_QKEY), 0);
		assert_int_equal(qkey_of(qp), 0x80010000);
	}
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

/* ---- Issue 15's regressions ---- */

/* rdma-core's test suite names IBV_QP_INIT_ATTR_CREATE_FLAGS with 0 for every QP: a field
 * that asks for nothing is accepted; create flags, XRC and unknown fields are refused. */
static void test_create_qp_ex_fields(void **state)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = E.cq;
	a.cap = (struct ibv_qp_cap){.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				    .max_recv_sge = 1};
	a.qp_type = IBV_QPT_RC;
	a.pd = E.pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
		      IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	assert_non_null(qp = ibv_create_qp_ex(E.ctx, &a));
	assert_int_equal(ibv_destroy_qp(qp), 0);

	a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	errno = 0;
	assert_null(ibv_create_qp_ex(E.ctx, &a));
	assert_int_equal(errno, EOPNOTSUPP);
	a.create_flags = 0;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD;
	errno = 0;
	assert_null(ibv_create_qp_ex(E.ctx, &a));
	assert_int_equal(errno, EOPNOTSUPP);
	a.comp_mask = IBV_QP_INIT_ATTR_PD | (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS << 1);
	errno = 0;
	assert_null(ibv_create_qp_ex(E.ctx, &a));
	assert_int_equal(errno, EINVAL);
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.qp_type = IBV_QPT_XRC_SEND;
	errno = 0;
	assert_null(ibv_create_qp_ex(E.ctx, &a));
	assert_int_equal(errno, EOPNOTSUPP);
}

/* ibv_modify_qp_rate_limit and IBV_QP_RATE_LIMIT (docs/congestion.md: the pacer), as the
 * packet pacing capabilities announce them; a comp_mask it does not know is refused. (The
 * pacing itself is tests/engine/test_cc.c's, on virtual time.) */
static void test_rate_limit(void **state)
{
	struct ibv_device_attr_ex ax;
	struct ibv_qp_rate_limit_attr rl = {.rate_limit = 1000, .max_burst_sz = 4096,
					    .typical_pkt_sz = 1024};
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .rate_limit = 5000};
	struct ibv_qp *qp;

	(void)state;
	assert_int_equal(ibv_query_device_ex(E.ctx, NULL, &ax), 0);
	assert_int_equal(ax.packet_pacing_caps.qp_rate_limit_min, 1);
	assert_true(ax.packet_pacing_caps.qp_rate_limit_max >= 25000000);
	assert_int_equal(ax.packet_pacing_caps.supported_qpts,
			 1u << IBV_QPT_RC | 1u << IBV_QPT_UC | 1u << IBV_QPT_UD);
	assert_non_null(qp = make_qp(IBV_QPT_RC, 0));
	assert_int_equal(ibv_modify_qp_rate_limit(qp, &rl), 0);
	rl.rate_limit = 0; /* no limit */
	assert_int_equal(ibv_modify_qp_rate_limit(qp, &rl), 0);
	rl.comp_mask = 1;
	assert_int_equal(ibv_modify_qp_rate_limit(qp, &rl), EINVAL);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS | IBV_QP_RATE_LIMIT), 0);
	assert_int_equal(qp->state, IBV_QPS_INIT);
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

/* The extended query says what the basic one says; the limits it reports are the ones
 * ibv_modify_qp enforces. */
static void test_device_attrs_consistent(void **state)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr da;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;

	(void)state;
	assert_int_equal(ibv_query_device(E.ctx, &da), 0);
	assert_int_equal(ibv_query_device_ex(E.ctx, NULL, &ax), 0);
	assert_memory_equal(&ax.orig_attr, &da, sizeof(da));
	assert_int_equal(ax.phys_port_cnt_ex, 1);
	assert_int_equal(da.phys_port_cnt, 1);
	/* The same flags, and Linux's IB_UVERBS_DEVICE_ATOMIC_WRITE (bit 40, unnamed in rdma-core
	 * 44's verbs.h): ATOMIC WRITE is executed. */
	assert_int_equal(ax.device_cap_flags_ex,
			 (uint64_t)(uint32_t)da.device_cap_flags | 1ULL << 40);

	/* max_qp_rd_atom and max_qp_init_rd_atom are what an RC QP may be given: the responder's
	 * resources on the way to RTR, the requester's on the way to RTS. */
	assert_true(da.max_qp_rd_atom > 0 && da.max_qp_init_rd_atom > 0);
	assert_non_null(qp = make_qp(IBV_QPT_RC, 0));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS), 0);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = (uint8_t)(da.max_qp_rd_atom + 1);
	ah_to_self(&a.ah_attr);
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	errno = 0;
	assert_int_equal(ibv_modify_qp(qp, &a, mask), EINVAL);
	assert_int_equal(errno, EINVAL); /* qperf prints errno */
	a.max_dest_rd_atomic = (uint8_t)da.max_qp_rd_atom;
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = (uint8_t)(da.max_qp_init_rd_atom + 1);
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	errno = 0;
	assert_int_equal(ibv_modify_qp(qp, &a, mask), EINVAL);
	assert_int_equal(errno, EINVAL);
	a.max_rd_atomic = (uint8_t)da.max_qp_init_rd_atom;
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
	assert_int_equal(ibv_query_qp(qp, &a, IBV_QP_MAX_QP_RD_ATOMIC, NULL), 0);
	assert_int_equal(a.max_rd_atomic, da.max_qp_init_rd_atom);
	assert_int_equal(a.max_dest_rd_atomic, da.max_qp_rd_atom);
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

/* ---- ibv_rereg_mr(3) with real traffic ---- */

/* An RDMA WRITE of 64 bytes from E.buf to [addr, +64) through rkey, on a fresh connected
 * pair (a failure moves both QPs to ERR): the requester's completion status. */
static enum ibv_wc_status write_through(uint32_t rkey, uint64_t addr)
{
	struct ibv_qp *a = make_qp(IBV_QPT_RC, 0), *b = make_qp(IBV_QPT_RC, 0);
	struct ibv_sge sge = {(uintptr_t)E.buf, 64, E.mr->lkey};
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	assert_non_null(a);
	assert_non_null(b);
	connect_rc(a, b->qp_num);
	connect_rc(b, a->qp_num);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	wc = wait_wc();
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	while (ibv_poll_cq(E.cq, 1, &(struct ibv_wc){0}) == 1) {
	}
	return wc.status;
}

/* Input errors leave the MR as it was (IBV_REREG_MR_ERR_INPUT); a new range, new rights and
 * a new PD take effect for the network at once, and the keys stay (as mlx5 and rxe keep
 * them: rdma-core's test_mr_rereg_access writes with the key it had before): the key a
 * peer holds reaches the new range only. */
static void test_rereg_mr(void **state)
{
	uint8_t *m1 = aligned_alloc(4096, 8192), *m2 = aligned_alloc(4096, 8192);
	struct ibv_pd *pd2 = ibv_alloc_pd(E.ctx);
	struct ibv_mr *mr;
	uint32_t key1;

	(void)state;
	assert_non_null(m1);
	assert_non_null(m2);
	assert_non_null(pd2);
	for (int i = 0; i < 64; i++)
		E.buf[i] = (uint8_t)(0xa0 + i);
	mr = ibv_reg_mr(E.pd, m1, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	key1 = mr->rkey;

	static const struct {
		int flags, access, err;
		bool addr;
		size_t len;
	} bad_input[] = {
		{0, 0, EINVAL, false, 0},                                   /* nothing to change */
		{1 << 3, 0, EINVAL, false, 0},                              /* unknown flag */
		{IBV_REREG_MR_CHANGE_TRANSLATION, 0, EINVAL, false, 4096},  /* no address */
		{IBV_REREG_MR_CHANGE_TRANSLATION, 0, EINVAL, true, 0},      /* no length */
		{IBV_REREG_MR_CHANGE_TRANSLATION, IBV_ACCESS_LOCAL_WRITE, EINVAL, true, 4096},
		{IBV_REREG_MR_CHANGE_ACCESS, IBV_ACCESS_REMOTE_WRITE, EINVAL, false, 0}, /* 10.6.3.1 */
		{IBV_REREG_MR_CHANGE_ACCESS, IBV_ACCESS_MW_BIND, EOPNOTSUPP, false, 0},
		{IBV_REREG_MR_CHANGE_PD, 0, EINVAL, false, 0},              /* no PD */
	};
	for (size_t i = 0; i < sizeof(bad_input) / sizeof(bad_input[0]); i++) {
		errno = 0;
		assert_int_equal(ibv_rereg_mr(mr, bad_input[i].flags, NULL,
					      bad_input[i].addr ? m2 : NULL, bad_input[i].len,
					      bad_input[i].access),
				 IBV_REREG_MR_ERR_INPUT);
		assert_int_equal(errno, bad_input[i].err);
		assert_int_equal(mr->rkey, key1);
		assert_ptr_equal(mr->addr, m1);
		assert_ptr_equal(mr->pd, E.pd);
	}
	assert_int_equal(write_through(key1, (uintptr_t)m1), IBV_WC_SUCCESS);
	assert_memory_equal(m1, E.buf, 64);

	/* Another range: its own address, the same keys, the old range refused. */
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, m2 + 4096, 4096,
				      0),
			 0);
	assert_ptr_equal(mr->addr, m2 + 4096);
	assert_int_equal(mr->length, 4096);
	assert_int_equal(mr->rkey, key1);
	assert_int_equal(mr->lkey, key1);
	assert_int_equal(write_through(key1, (uintptr_t)m2 + 4096), IBV_WC_SUCCESS);
	assert_memory_equal(m2 + 4096, E.buf, 64);
	assert_int_equal(write_through(key1, (uintptr_t)m2), IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(write_through(key1, (uintptr_t)m1), IBV_WC_REM_ACCESS_ERR);

	/* Rights taken away, then given back: the same key is refused, then reaches it again. */
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE),
			 0);
	assert_int_equal(mr->rkey, key1);
	assert_int_equal(write_through(key1, (uintptr_t)m2 + 4096), IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
			 0);
	assert_int_equal(write_through(key1, (uintptr_t)m2 + 4096), IBV_WC_SUCCESS);

	/* Another PD: the QPs of the first no longer reach it, whatever the rights. */
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS, pd2,
				      NULL, 0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
			 0);
	assert_ptr_equal(mr->pd, pd2);
	assert_int_equal(write_through(mr->rkey, (uintptr_t)m2 + 4096), IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_pd(pd2), EBUSY);
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, E.pd, NULL, 0, 0), 0);
	assert_int_equal(ibv_dealloc_pd(pd2), 0);
	assert_int_equal(write_through(mr->rkey, (uintptr_t)m2 + 4096), IBV_WC_SUCCESS);

	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(m1);
	free(m2);
}

static void to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
}

/* The next completion of E.cq has this wr_id and QP, and none follows (nothing else is in
 * flight: a round that finds nothing more ends the wait). */
static void expect_only(uint64_t wr_id, const struct ibv_qp *qp)
{
	struct ibv_wc wc = wait_wc();

	assert_int_equal(wc.wr_id, wr_id);
	assert_int_equal(wc.qp_num, qp->qp_num);
	assert_int_equal(ibv_poll_cq(E.cq, 1, &wc), 0);
}

/* A QP moved to RESET, or destroyed, takes its completions not yet polled out of its CQs, as
 * the providers of RDMA NICs do (mlx5_cq_clean): rdma-core's test_mr_rereg_pd and
 * test_mr_rereg_addr restart QPs that were in ERR and then expect their next completion to
 * be new, not an old flush. Other QPs' completions stay, and so does a receive completion
 * from an SRQ (it tells that the SRQ's buffer was used). */
static void test_reset_drops_completions(void **state)
{
	struct ibv_qp *a = make_qp(IBV_QPT_RC, 0), *b = make_qp(IBV_QPT_RC, 0);
	struct ibv_qp *c = make_qp(IBV_QPT_RC, 0), *d;
	(void)state;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	connect_rc(a, b->qp_num);
	connect_rc(b, a->qp_num);
	connect_rc(c, b->qp_num); /* receive requests need INIT or later */
	post_recv(a, 0, 64, 10);
	post_recv(a, 0, 64, 11);
	post_recv(c, 0, 64, 30);
	to_error(a); /* flushes 10 and 11 */
	to_error(c); /* flushes 30 */
	struct ibv_qp_attr reset = {.qp_state = IBV_QPS_RESET};
	assert_int_equal(ibv_modify_qp(a, &reset, IBV_QP_STATE), 0);
	expect_only(30, c);

	/* Connected again, a starts afresh: its next completion is a new one. */
	connect_rc(a, b->qp_num);
	assert_int_equal(ibv_modify_qp(b, &reset, IBV_QP_STATE), 0);
	connect_rc(b, a->qp_num);
	post_recv(b, 0, 64, 21);
	struct ibv_sge sge = {(uintptr_t)E.buf + 4096, 64, E.mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 12, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED}, *bad;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	struct ibv_wc wc[2];
	for (int got = 0; got < 2; got += ibv_poll_cq(E.cq, 2 - got, wc + got)) {
	}
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
	assert_int_equal(wc[0].wr_id + wc[1].wr_id, 12 + 21);

	/* Destroyed with a completion unpolled: it goes too. */
	d = make_qp(IBV_QPT_RC, 0);
	assert_non_null(d);
	connect_rc(d, b->qp_num);
	assert_int_equal(ibv_modify_qp(c, &reset, IBV_QP_STATE), 0);
	connect_rc(c, b->qp_num);
	post_recv(c, 0, 64, 31);
	post_recv(d, 0, 64, 40);
	to_error(c);
	to_error(d);
	assert_int_equal(ibv_destroy_qp(c), 0);
	expect_only(40, d);

	/* A receive from an SRQ completed, then its QP reset: the completion stays. */
	struct ibv_srq_init_attr si = {.attr = {.max_wr = 4, .max_sge = 1}};
	struct ibv_srq *srq = ibv_create_srq(E.pd, &si);
	struct ibv_cq *cq2 = ibv_create_cq(E.ctx, 16, NULL, NULL, 0);
	assert_non_null(srq);
	assert_non_null(cq2);
	struct ibv_qp_init_attr qi = {.send_cq = E.cq, .recv_cq = E.cq, .srq = srq,
				      .cap = {.max_send_wr = 4, .max_send_sge = 1},
				      .qp_type = IBV_QPT_RC};
	struct ibv_qp *s = ibv_create_qp(E.pd, &qi);
	qi.srq = NULL;
	qi.send_cq = qi.recv_cq = cq2;
	qi.cap.max_recv_wr = qi.cap.max_recv_sge = 1;
	struct ibv_qp *x = ibv_create_qp(E.pd, &qi);
	assert_non_null(s);
	assert_non_null(x);
	connect_rc(s, x->qp_num);
	connect_rc(x, s->qp_num);
	struct ibv_recv_wr rwr = {.wr_id = 50, .sg_list = &sge, .num_sge = 1}, *rbad;
	assert_int_equal(ibv_post_srq_recv(srq, &rwr, &rbad), 0);
	wr.wr_id = 60;
	assert_int_equal(ibv_post_send(x, &wr, &bad), 0);
	while (ibv_poll_cq(cq2, 1, wc) == 0) { /* acknowledged: s has received it */
	}
	assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
	assert_int_equal(ibv_modify_qp(s, &reset, IBV_QP_STATE), 0);
	expect_only(50, s);

	assert_int_equal(ibv_destroy_qp(s), 0);
	assert_int_equal(ibv_destroy_qp(x), 0);
	assert_int_equal(ibv_destroy_cq(cq2), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	assert_int_equal(ibv_destroy_qp(d), 0);
}

/* ibv_resize_cq(3): the CQ keeps what it holds and takes as many more as it now may; a size
 * below what it holds is refused (EINVAL), counting completions of work already posted
 * (rdma-core's test_resize_cq fills a CQ, then shrinks it at once). */
static void test_resize_cq(void **state)
{
	struct ibv_cq *cq = ibv_create_cq(E.ctx, 2, NULL, NULL, 0);
	struct ibv_qp_init_attr qi = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 1, .max_recv_wr = 16,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp;
	struct ibv_wc wc[16];
	int got = 0;
	(void)state;

	assert_non_null(cq);
	assert_non_null(qp = ibv_create_qp(E.pd, &qi));
	connect_rc(qp, qp->qp_num);
	to_error(qp);
	post_recv(qp, 0, 64, 1);
	post_recv(qp, 0, 64, 2); /* flushed by the next round */
	assert_int_equal(ibv_resize_cq(cq, 1), EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(cq->cqe, 2);
	assert_int_equal(ibv_resize_cq(cq, 0), EINVAL);
	assert_int_equal(ibv_resize_cq(cq, 8), 0);
	assert_int_equal(cq->cqe, 8);
	for (uint64_t id = 3; id <= 8; id++)
		post_recv(qp, 0, 64, id);
	while (got < 8) {
		int n = ibv_poll_cq(cq, 16, wc + got);
		assert_true(n >= 0); /* not overrun */
		got += n;
	}
	for (int i = 0; i < 8; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)i + 1);
		assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
	assert_int_equal(ibv_poll_cq(cq, 16, wc), 0);
	assert_int_equal(ibv_resize_cq(cq, 1), 0); /* empty now */
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

/* A parent domain's allocator that records what it is asked. The callbacks run inside
 * verbs calls, under the library's locks: they count what is wrong instead of failing. */
struct pd_rec {
	int alloc[4], freed[4];
	uint64_t types;     /* the resource types seen, as bits */
	bool use_default;
	struct ibv_pd *pd;  /* the parent domain it was called with */
	void *live[8];      /* blocks given and not yet taken back */
	int wrong;          /* calls with unexpected arguments */
};

static void *rec_alloc(struct ibv_pd *pd, void *pd_context, size_t size, size_t alignment,
		       uint64_t resource_type)
{
	struct pd_rec *r = pd_context;
	void *p;

	if (pd != r->pd || resource_type < 1 || resource_type > 3 || alignment != 64) {
		r->wrong++; /* uroce's types: 1 send queue, 2 receive queue, 3 SRQ */
		return NULL;
	}
	r->types |= 1ull << resource_type;
	if (r->use_default)
		return IBV_ALLOCATOR_USE_DEFAULT;
	for (int i = 0; i < 8; i++)
		if (!r->live[i] && (p = aligned_alloc(alignment, (size + 63) / 64 * 64))) {
			memset(p, 0, size);
			r->live[i] = p;
			r->alloc[resource_type]++;
			return p;
		}
	r->wrong++;
	return NULL;
}

static void rec_free(struct ibv_pd *pd, void *pd_context, void *ptr, uint64_t resource_type)
{
	struct pd_rec *r = pd_context;

	for (int i = 0; i < 8; i++)
		if (ptr && r->live[i] == ptr && pd == r->pd && resource_type >= 1 &&
		    resource_type <= 3) {
			r->live[i] = NULL;
			r->freed[resource_type]++;
			free(ptr);
			return;
		}
	r->wrong++;
}

/* ibv_alloc_parent_domain(3): the parent domain stands for its protection domain anywhere
 * (MRs of one work with QPs of the other), and the rings of its QPs and SRQs come from its
 * allocators, which get it and its pd_context; IBV_ALLOCATOR_USE_DEFAULT leaves them to
 * uroce. Each domain stays while the other or its QPs and SRQs need it (EBUSY); no thread
 * domains (ibv_alloc_td: EOPNOTSUPP). */
static void test_parent_domain(void **state)
{
	struct pd_rec r = {0};
	struct ibv_parent_domain_init_attr pa = {
		.pd = E.pd, .comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = rec_alloc, .free = rec_free, .pd_context = &r};
	struct ibv_td_init_attr ta = {0};
	struct ibv_pd *par;
	(void)state;

	errno = 0;
	assert_null(ibv_alloc_td(E.ctx, &ta));
	assert_int_equal(errno, EOPNOTSUPP);
	pa.td = (struct ibv_td *)&ta; /* no thread domain is uroce's */
	assert_null(ibv_alloc_parent_domain(E.ctx, &pa));
	assert_int_equal(errno, EINVAL);
	pa.td = NULL;
	pa.comp_mask |= 1u << 7;
	assert_null(ibv_alloc_parent_domain(E.ctx, &pa));
	assert_int_equal(errno, EINVAL);
	pa.comp_mask &= ~(1u << 7);
	assert_non_null(par = ibv_alloc_parent_domain(E.ctx, &pa));
	r.pd = par;
	assert_ptr_equal(par->context, E.ctx);
	pa.pd = par; /* a parent of a parent */
	assert_null(ibv_alloc_parent_domain(E.ctx, &pa));
	assert_int_equal(errno, EINVAL);

	/* Two RC QPs of the parent domain, traffic with the protection domain's MR. */
	struct ibv_qp_init_attr_ex qa = {.send_cq = E.cq, .recv_cq = E.cq, .qp_type = IBV_QPT_RC,
					 .cap = {8, 8, 1, 1, 0}, .comp_mask = IBV_QP_INIT_ATTR_PD,
					 .pd = par};
	struct ibv_qp *a = ibv_create_qp_ex(E.ctx, &qa), *b = ibv_create_qp_ex(E.ctx, &qa);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_equal(a->pd, par);
	assert_int_equal(r.alloc[1], 2); /* send queues */
	assert_int_equal(r.alloc[2], 2); /* receive queues */
	connect_rc(a, b->qp_num);
	connect_rc(b, a->qp_num);
	for (int i = 0; i < 64; i++)
		E.buf[i] = (uint8_t)(i + 3);
	post_recv(b, 4096, 64, 5);
	struct ibv_sge sge = {(uintptr_t)E.buf, 64, E.mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 6, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED}, *bad;
	assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
	struct ibv_wc wc = wait_wc(), wc2 = wait_wc();
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc2.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id + wc2.wr_id, 5 + 6);
	assert_memory_equal(E.buf + 4096, E.buf, 64);

	/* An SRQ of the parent domain; an MR registered with it is the protection domain's. */
	struct ibv_srq_init_attr si = {.attr = {.max_wr = 4, .max_sge = 1}};
	struct ibv_srq *srq = ibv_create_srq(par, &si);
	assert_non_null(srq);
	assert_int_equal(r.alloc[3], 1);
	struct ibv_mr *mr = ibv_reg_mr(par, E.buf, 64, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(ibv_dereg_mr(mr), 0);

	/* Neither domain goes while needed. */
	assert_int_equal(ibv_dealloc_pd(E.pd), EBUSY);
	assert_int_equal(ibv_dealloc_pd(par), EBUSY);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	assert_int_equal(r.freed[1], 2);
	assert_int_equal(r.freed[2], 2);
	assert_int_equal(ibv_dealloc_pd(par), EBUSY);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(r.freed[3], 1);
	assert_int_equal(r.types, 0xEull);
	assert_int_equal(r.wrong, 0);
	assert_int_equal(ibv_dealloc_pd(par), 0);

	/* USE_DEFAULT: asked, then uroce's own memory. */
	memset(&r, 0, sizeof(r));
	r.use_default = true;
	pa.pd = E.pd;
	assert_non_null(par = ibv_alloc_parent_domain(E.ctx, &pa));
	r.pd = par;
	qa.pd = par;
	assert_non_null(a = ibv_create_qp_ex(E.ctx, &qa));
	assert_int_equal(r.types, 0x6ull);
	assert_int_equal(r.alloc[1] + r.alloc[2], 0);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(r.freed[1] + r.freed[2], 0);
	assert_int_equal(r.wrong, 0);
	assert_int_equal(ibv_dealloc_pd(par), 0);
	while (ibv_poll_cq(E.cq, 1, &wc) == 1) {
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_rc_traffic),
		cmocka_unit_test(test_concurrent_posting),
		cmocka_unit_test(test_unread_event_of_destroyed_cq),
		cmocka_unit_test(test_wr_api),
		cmocka_unit_test(test_ud),
		cmocka_unit_test(test_ah_wide_flow_label),
		cmocka_unit_test(test_async_events_and_destroy),
		cmocka_unit_test(test_controlled_qkey),
		cmocka_unit_test(test_create_qp_ex_fields),
		cmocka_unit_test(test_device_attrs_consistent),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_rereg_mr),
		cmocka_unit_test(test_reset_drops_completions),
		cmocka_unit_test(test_resize_cq),
		cmocka_unit_test(test_parent_domain),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: MIT */
/* The rest of rdma-core 44's libibverbs ABI in uroce's library (issue 15): the IBVERBS_1.0
 * versions driven the way a program linked against libibverbs 1.0 drives them (RC SEND,
 * WRITE and atomics, a completion channel, UD with an address handle, an SRQ, bad_wr, all
 * through the 1.0 structures and ops table); the IBVERBS_PRIVATE_34 node (kernel commands
 * fail with EOPNOTSUPP, a provider registration is ignored, what needs no kernel works, the
 * log); ibv_get_sysfs_path and ibv_read_sysfs_file; the rate conversions; the path-record
 * copies; fork; the imports and dma-buf; data-in-order; ibv_resolve_eth_l2_from_gid. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/sa.h>
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#include <infiniband/verbs.h>

#define TEST_IP "127.0.4.2"
#define BUF 65536

extern char **environ;

/* ---- IBVERBS_1.0, as a program built against libibverbs 1.0 sees it ---- */

struct dev10 {
	void *obsolete[2];
	struct ibv_device *real;
	void *ops[2];
};
struct ctx10;
struct cq10 {
	struct ctx10 *context;
	void *cq_context;
	uint32_t handle;
	int cqe;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed, async_events_completed;
};
struct pd10 {
	struct ctx10 *context;
	uint32_t handle;
};
struct mr10 {
	struct ctx10 *context;
	struct pd10 *pd;
	uint32_t handle, lkey, rkey;
};
struct ah10;
struct srq10 {
	struct ctx10 *context;
	void *srq_context;
	struct pd10 *pd;
	uint32_t handle;
};
struct qp10 {
	struct ctx10 *context;
	void *qp_context;
	struct pd10 *pd;
	struct cq10 *send_cq, *recv_cq;
	struct srq10 *srq;
	uint32_t handle, qp_num;
	enum ibv_qp_state state;
	enum ibv_qp_type qp_type;
};
struct qp_init10 {
	void *qp_context;
	struct cq10 *send_cq, *recv_cq;
	struct srq10 *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;
};
struct send_wr10 {
	struct send_wr10 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
	enum ibv_wr_opcode opcode;
	int send_flags;
	__be32 imm_data;
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr, compare_add, swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct ah10 *ah;
			uint32_t remote_qpn, remote_qkey;
		} ud;
	} wr;
};
struct recv_wr10 {
	struct recv_wr10 *next;
	uint64_t wr_id;
	struct ibv_sge *sg_list;
	int num_sge;
};
struct ctx10 {
	struct dev10 *device;
	struct {
		void *slot0[7];
		int (*poll_cq)(struct cq10 *, int, struct ibv_wc *);
		int (*req_notify_cq)(struct cq10 *, int);
		void *slot9[7];
		int (*post_srq_recv)(struct srq10 *, struct recv_wr10 *, struct recv_wr10 **);
		void *slot17[4];
		int (*post_send)(struct qp10 *, struct send_wr10 *, struct send_wr10 **);
		int (*post_recv)(struct qp10 *, struct recv_wr10 *, struct recv_wr10 **);
		void *slot23[4];
	} ops;
	int cmd_fd, async_fd, num_comp_vectors;
};

/* The 1.0 entry points, looked up by version as the dynamic loader binds them. */
static struct {
	struct dev10 **(*get_device_list)(int *);
	void (*free_device_list)(struct dev10 **);
	const char *(*get_device_name)(struct dev10 *);
	__be64 (*get_device_guid)(struct dev10 *);
	struct ctx10 *(*open_device)(struct dev10 *);
	int (*close_device)(struct ctx10 *);
	int (*query_device)(struct ctx10 *, struct ibv_device_attr *);
	int (*query_port)(struct ctx10 *, uint8_t, struct ibv_port_attr *);
	int (*query_gid)(struct ctx10 *, uint8_t, int, union ibv_gid *);
	int (*query_pkey)(struct ctx10 *, uint8_t, int, __be16 *);
	struct pd10 *(*alloc_pd)(struct ctx10 *);
	int (*dealloc_pd)(struct pd10 *);
	struct mr10 *(*reg_mr)(struct pd10 *, void *, size_t, int);
	int (*dereg_mr)(struct mr10 *);
	struct cq10 *(*create_cq)(struct ctx10 *, int, void *, struct ibv_comp_channel *, int);
	int (*destroy_cq)(struct cq10 *);
	int (*get_cq_event)(struct ibv_comp_channel *, struct cq10 **, void **);
	void (*ack_cq_events)(struct cq10 *, unsigned int);
	struct srq10 *(*create_srq)(struct pd10 *, struct ibv_srq_init_attr *);
	int (*query_srq)(struct srq10 *, struct ibv_srq_attr *);
	int (*destroy_srq)(struct srq10 *);
	struct qp10 *(*create_qp)(struct pd10 *, struct qp_init10 *);
	int (*query_qp)(struct qp10 *, struct ibv_qp_attr *, int, struct qp_init10 *);
	int (*modify_qp)(struct qp10 *, struct ibv_qp_attr *, int);
	int (*destroy_qp)(struct qp10 *);
	struct ah10 *(*create_ah)(struct pd10 *, struct ibv_ah_attr *);
	int (*destroy_ah)(struct ah10 *);
} V;

static void *v10(const char *name)
{
	void *f = dlvsym(RTLD_DEFAULT, name, "IBVERBS_1.0");

	if (!f)
		fail_msg("%s@IBVERBS_1.0 is not exported", name);
	return f;
}

static void load_1_0(void)
{
	*(void **)&V.get_device_list = v10("ibv_get_device_list");
	*(void **)&V.free_device_list = v10("ibv_free_device_list");
	*(void **)&V.get_device_name = v10("ibv_get_device_name");
	*(void **)&V.get_device_guid = v10("ibv_get_device_guid");
	*(void **)&V.open_device = v10("ibv_open_device");
	*(void **)&V.close_device = v10("ibv_close_device");
	*(void **)&V.query_device = v10("ibv_query_device");
	*(void **)&V.query_port = v10("ibv_query_port");
	*(void **)&V.query_gid = v10("ibv_query_gid");
	*(void **)&V.query_pkey = v10("ibv_query_pkey");
	*(void **)&V.alloc_pd = v10("ibv_alloc_pd");
	*(void **)&V.dealloc_pd = v10("ibv_dealloc_pd");
	*(void **)&V.reg_mr = v10("ibv_reg_mr");
	*(void **)&V.dereg_mr = v10("ibv_dereg_mr");
	*(void **)&V.create_cq = v10("ibv_create_cq");
	*(void **)&V.destroy_cq = v10("ibv_destroy_cq");
	*(void **)&V.get_cq_event = v10("ibv_get_cq_event");
	*(void **)&V.ack_cq_events = v10("ibv_ack_cq_events");
	*(void **)&V.create_srq = v10("ibv_create_srq");
	*(void **)&V.query_srq = v10("ibv_query_srq");
	*(void **)&V.destroy_srq = v10("ibv_destroy_srq");
	*(void **)&V.create_qp = v10("ibv_create_qp");
	*(void **)&V.query_qp = v10("ibv_query_qp");
	*(void **)&V.modify_qp = v10("ibv_modify_qp");
	*(void **)&V.destroy_qp = v10("ibv_destroy_qp");
	*(void **)&V.create_ah = v10("ibv_create_ah");
	*(void **)&V.destroy_ah = v10("ibv_destroy_ah");
}

struct env10 {
	struct ctx10 *ctx;
	struct cq10 *cq;
	uint8_t *buf;
	struct mr10 *mr;
};

static struct ibv_wc wait10(struct env10 *e)
{
	struct ibv_wc wc;

	for (long i = 0; i < 2000000000L; i++) {
		int n = e->ctx->ops.poll_cq(e->cq, 1, &wc);
		assert_true(n >= 0);
		if (n == 1)
			return wc;
	}
	fail_msg("no completion");
	return wc;
}

static struct qp10 *qp10_new(struct pd10 *pd, struct cq10 *cq, enum ibv_qp_type type,
			     struct srq10 *srq, void *qp_context)
{
	struct qp_init10 ia = {.qp_context = qp_context, .send_cq = cq, .recv_cq = cq, .srq = srq,
			       .cap = {8, 8, 2, 2, 0}, .qp_type = type};
	struct qp10 *qp = V.create_qp(pd, &ia);

	assert_non_null(qp);
	assert_ptr_equal(qp->qp_context, qp_context);
	assert_ptr_equal(qp->send_cq, cq);
	assert_int_equal(qp->qp_type, type);
	assert_true(qp->qp_num > 0);
	assert_true(ia.cap.max_send_wr >= 8);
	return qp;
}

static void ah_attr_to_self(struct ctx10 *ctx, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.hop_limit = 64;
	assert_int_equal(V.query_gid(ctx, 1, 0, &ah->grh.dgid), 0);
}

static void connect10(struct ctx10 *ctx, struct qp10 *qp, uint32_t peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	assert_int_equal(V.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						     IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer;
	a.max_dest_rd_atomic = 1;
	ah_attr_to_self(ctx, &a.ah_attr);
	assert_int_equal(V.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
			 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	assert_int_equal(V.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						     IBV_QP_MAX_QP_RD_ATOMIC), 0);
	assert_int_equal(qp->state, IBV_QPS_RTS);
}

/* Both completions of one exchange (the send's and the receive's), in whichever order. */
static void wait_pair10(struct env10 *e, struct ibv_wc *send, struct ibv_wc *recv)
{
	for (int i = 0; i < 2; i++) {
		struct ibv_wc wc = wait10(e);

		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		*(wc.opcode & IBV_WC_RECV ? recv : send) = wc;
	}
}

static void test_ibverbs_1_0(void **state)
{
	struct env10 E10 = {0}, *e = &E10;
	struct dev10 **list;
	struct pd10 *pd;
	struct ibv_comp_channel *ch;
	struct ibv_device_attr da;
	struct ibv_port_attr pa; /* 1.0 fills it up to port_cap_flags2 */
	struct ibv_wc swc, rwc;
	__be16 pkey;
	int n, cookie;

	(void)state;
	load_1_0();
	assert_non_null(list = V.get_device_list(&n));
	assert_int_equal(n, 1);
	assert_null(list[1]);
	assert_string_equal(V.get_device_name(list[0]), "uroce0");
	assert_true(V.get_device_guid(list[0]) == ibv_get_device_guid(list[0]->real));
	assert_non_null(e->ctx = V.open_device(list[0]));
	assert_ptr_equal(e->ctx->device, list[0]);
	assert_true(e->ctx->num_comp_vectors >= 1);
	assert_int_equal(V.query_device(e->ctx, &da), 0);
	assert_int_equal(da.phys_port_cnt, 1);
	assert_int_equal(V.query_port(e->ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(V.query_pkey(e->ctx, 1, 0, &pkey), 0);
	assert_int_equal(ntohs(pkey), 0xffff);

	assert_non_null(pd = V.alloc_pd(e->ctx));
	assert_ptr_equal(pd->context, e->ctx);
	e->buf = aligned_alloc(4096, BUF);
	assert_non_null(e->buf);
	e->mr = V.reg_mr(pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
						 IBV_ACCESS_REMOTE_ATOMIC);
	assert_non_null(e->mr);
	assert_ptr_equal(e->mr->pd, pd);
	/* A 1.0 program makes its channel with its own context. */
	assert_non_null(ch = ibv_create_comp_channel((struct ibv_context *)(void *)e->ctx));
	assert_non_null(e->cq = V.create_cq(e->ctx, 64, &cookie, ch, 0));
	assert_ptr_equal(e->cq->cq_context, &cookie);
	assert_true(e->cq->cqe >= 64);

	/* RC: SEND with a completion event, then WRITE and FETCH_ADD through the 1.0 layout. */
	struct qp10 *a = qp10_new(pd, e->cq, IBV_QPT_RC, NULL, &n);
	struct qp10 *b = qp10_new(pd, e->cq, IBV_QPT_RC, NULL, NULL);
	connect10(e->ctx, a, b->qp_num);
	connect10(e->ctx, b, a->qp_num);
	for (int i = 0; i < 4096; i++)
		e->buf[i] = (uint8_t)(i * 3 + 5);
	struct ibv_sge rsge = {(uintptr_t)e->buf + 8192, 4096, e->mr->lkey};
	struct recv_wr10 rwr = {.wr_id = 21, .sg_list = &rsge, .num_sge = 1}, *rbad;
	assert_int_equal(e->ctx->ops.post_recv(b, &rwr, &rbad), 0);
	assert_int_equal(e->ctx->ops.req_notify_cq(e->cq, 0), 0);
	struct ibv_sge sge = {(uintptr_t)e->buf, 3000, e->mr->lkey};
	struct send_wr10 wr = {.wr_id = 11, .sg_list = &sge, .num_sge = 1,
			       .opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
			       .imm_data = htonl(0x1234)},
			 *bad;
	assert_int_equal(e->ctx->ops.post_send(a, &wr, &bad), 0);
	struct cq10 *ev_cq;
	void *ev_ctx;
	assert_int_equal(V.get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	assert_ptr_equal(ev_cq, e->cq);
	assert_ptr_equal(ev_ctx, &cookie);
	V.ack_cq_events(ev_cq, 1);
	wait_pair10(e, &swc, &rwc);
	assert_int_equal(swc.wr_id, 11);
	assert_int_equal(rwc.wr_id, 21);
	assert_int_equal(rwc.byte_len, 3000);
	assert_int_equal(ntohl(rwc.imm_data), 0x1234);
	assert_memory_equal(e->buf + 8192, e->buf, 3000);

	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr_id = 12;
	sge.length = 2048;
	wr.wr.rdma.remote_addr = (uintptr_t)e->buf + 16384;
	wr.wr.rdma.rkey = e->mr->rkey;
	assert_int_equal(e->ctx->ops.post_send(a, &wr, &bad), 0);
	swc = wait10(e);
	assert_int_equal(swc.status, IBV_WC_SUCCESS);
	assert_int_equal(swc.wr_id, 12);
	assert_memory_equal(e->buf + 16384, e->buf, 2048);

	uint64_t *atom = (uint64_t *)(void *)(e->buf + 24576);
	atom[0] = 100;
	sge = (struct ibv_sge){(uintptr_t)(atom + 1), 8, e->mr->lkey};
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)atom;
	wr.wr.atomic.rkey = e->mr->rkey;
	wr.wr.atomic.compare_add = 5;
	assert_int_equal(e->ctx->ops.post_send(a, &wr, &bad), 0);
	swc = wait10(e);
	assert_int_equal(swc.status, IBV_WC_SUCCESS);
	assert_int_equal(atom[0], 105);
	assert_int_equal(atom[1], 100);

	/* A chain whose second request is refused: bad_wr names it, the first was posted. */
	struct send_wr10 second = wr;
	sge = (struct ibv_sge){(uintptr_t)e->buf, 64, e->mr->lkey};
	wr = (struct send_wr10){.wr_id = 13, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
				.next = &second};
	wr.wr.rdma.remote_addr = (uintptr_t)e->buf + 32768;
	wr.wr.rdma.rkey = e->mr->rkey;
	second.num_sge = 100;
	assert_int_not_equal(e->ctx->ops.post_send(a, &wr, &bad), 0);
	assert_ptr_equal(bad, &second);
	swc = wait10(e);
	assert_int_equal(swc.wr_id, 13);
	assert_int_equal(swc.status, IBV_WC_SUCCESS);

	struct ibv_qp_attr qa;
	struct qp_init10 qi;
	memset(&qi, 0xff, sizeof(qi));
	assert_int_equal(V.query_qp(a, &qa, IBV_QP_STATE, &qi), 0);
	assert_int_equal(qa.qp_state, IBV_QPS_RTS);
	assert_ptr_equal(qi.qp_context, &n);
	assert_ptr_equal(qi.send_cq, e->cq);
	assert_null(qi.srq);
	assert_int_equal(qi.qp_type, IBV_QPT_RC);
	assert_int_equal(V.destroy_qp(a), 0);
	assert_int_equal(V.destroy_qp(b), 0);

	/* UD through a 1.0 address handle, received through a 1.0 SRQ. */
	struct ibv_srq_init_attr si = {.srq_context = &cookie, .attr = {16, 1, 0}};
	struct srq10 *srq = V.create_srq(pd, &si);
	assert_non_null(srq);
	assert_ptr_equal(srq->srq_context, &cookie);
	struct ibv_srq_attr sa;
	assert_int_equal(V.query_srq(srq, &sa), 0);
	assert_true(sa.max_wr >= 16);
	struct qp10 *ua = qp10_new(pd, e->cq, IBV_QPT_UD, NULL, NULL);
	struct qp10 *ub = qp10_new(pd, e->cq, IBV_QPT_UD, srq, NULL);
	struct qp10 *uq[2] = {ua, ub};
	for (int i = 0; i < 2; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_INIT;
		qa.port_num = 1;
		qa.qkey = 0x5555;
		assert_int_equal(V.modify_qp(uq[i], &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
							       IBV_QP_PORT | IBV_QP_QKEY), 0);
		qa.qp_state = IBV_QPS_RTR;
		assert_int_equal(V.modify_qp(uq[i], &qa, IBV_QP_STATE), 0);
		qa.qp_state = IBV_QPS_RTS;
		assert_int_equal(V.modify_qp(uq[i], &qa, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	}
	rsge = (struct ibv_sge){(uintptr_t)e->buf + 40960, 40 + 512, e->mr->lkey};
	rwr = (struct recv_wr10){.wr_id = 31, .sg_list = &rsge, .num_sge = 1};
	assert_int_equal(e->ctx->ops.post_srq_recv(srq, &rwr, &rbad), 0);
	struct ibv_ah_attr aa;
	ah_attr_to_self(e->ctx, &aa);
	struct ah10 *ah = V.create_ah(pd, &aa);
	assert_non_null(ah);
	sge = (struct ibv_sge){(uintptr_t)e->buf, 200, e->mr->lkey};
	wr = (struct send_wr10){.wr_id = 32, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED};
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ub->qp_num;
	wr.wr.ud.remote_qkey = 0x5555;
	assert_int_equal(e->ctx->ops.post_send(ua, &wr, &bad), 0);
	wait_pair10(e, &swc, &rwc);
	assert_int_equal(rwc.wr_id, 31);
	assert_int_equal(rwc.byte_len, 40 + 200);
	assert_int_equal(rwc.src_qp, ua->qp_num);
	assert_memory_equal(e->buf + 40960 + 40, e->buf, 200);

	assert_int_equal(V.destroy_ah(ah), 0);
	assert_int_equal(V.destroy_qp(ua), 0);
	assert_int_equal(V.destroy_qp(ub), 0);
	assert_int_equal(V.destroy_srq(srq), 0);
	assert_int_equal(V.destroy_cq(e->cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
	assert_int_equal(V.dereg_mr(e->mr), 0);
	assert_int_equal(V.dealloc_pd(pd), 0);
	assert_int_equal(V.close_device(e->ctx), 0);
	V.free_device_list(list);
	free(e->buf);
}

/* ---- IBVERBS_PRIVATE_34 ---- */

/* rdma-core 44's declarations (libibverbs/driver.h); the library's types are opaque here. */
struct ibv_alloc_pd;
struct ib_uverbs_alloc_pd_resp;
struct ibv_command_buffer;
struct verbs_device_ops;
struct verbs_sysfs_dev;
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, struct ibv_command_buffer *link);
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
				    struct verbs_context *context_offset, uint32_t driver_id);
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...);
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...);
extern bool verbs_allow_disassociate_destroy;
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		       int *type);

/* cmd_ioctl.h's layout of a command buffer, as a provider fills one: the header's
 * attributes follow it, in the room the union gives. */
struct cmdbuf {
	struct cmdbuf *next;
	struct ib_uverbs_attr *next_attr, *last_attr;
	uint8_t idx[4];
	uint8_t flags;
	struct ib_uverbs_ioctl_hdr hdr;
};
union cmdbuf_room {
	struct cmdbuf b;
	uint8_t bytes[sizeof(struct cmdbuf) + 8 * sizeof(struct ib_uverbs_attr)];
};

static void test_private_34(void **state)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_cq cq;
	struct ibv_wc wc;
	struct ibv_pd *pd;
	char buf[16];
	int n, type;

	(void)state;
	/* A provider's registration changes nothing: the list still holds uroce0 alone. */
	static char fake_ops[64];
	verbs_register_driver_34((const struct verbs_device_ops *)(void *)fake_ops);
	assert_non_null(list = ibv_get_device_list(&n));
	assert_int_equal(n, 1);
	assert_string_equal(list[0]->name, "uroce0");

	/* verbs_open_device opens the device as ibv_open_device does. */
	assert_non_null(ctx = verbs_open_device(list[0], fake_ops));
	assert_non_null(pd = ibv_alloc_pd(ctx));
	assert_int_equal(ibv_query_gid_type(ctx, 1, 0, &type), 0);
	assert_int_equal(type, 1); /* RoCE v2 */

	/* No kernel: every command fails cleanly, in the return value and in errno. */
	errno = 0;
	assert_int_equal(ibv_cmd_alloc_pd(ctx, pd, NULL, 0, NULL, 0), EOPNOTSUPP);
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_int_equal(ibv_cmd_destroy_qp(NULL), EOPNOTSUPP);
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_int_equal(ibv_cmd_poll_cq(NULL, 1, &wc), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(ibv_cmd_req_notify_cq(NULL, 0), EOPNOTSUPP);
	union cmdbuf_room rcb, rlink;
	struct cmdbuf *cb = &rcb.b, *link = &rlink.b;
	memset(&rcb, 0, sizeof(rcb));
	memset(&rlink, 0, sizeof(rlink));
	assert_int_equal(execute_ioctl(ctx, (struct ibv_command_buffer *)(void *)cb), EOPNOTSUPP);
	errno = 0;
	assert_null(_verbs_init_and_alloc_context(list[0], -1, 4096, NULL, 0));
	assert_int_equal(errno, EOPNOTSUPP);

	/* __ioctl_final_num_attrs counts the attributes filled in every linked buffer. */
	cb->next_attr = &cb->hdr.attrs[3];
	link->next_attr = &link->hdr.attrs[2];
	cb->next = link;
	assert_int_equal(__ioctl_final_num_attrs(1, (struct ibv_command_buffer *)(void *)cb), 6);
	assert_int_equal(__ioctl_final_num_attrs(4, NULL), 4);

	/* verbs_init_cq: the generic fields of a provider's CQ, the channel's reference. */
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	assert_non_null(ch);
	memset(&cq, 0xa5, sizeof(cq));
	verbs_init_cq(&cq, ctx, ch, &n);
	assert_ptr_equal(cq.context, ctx);
	assert_ptr_equal(cq.channel, ch);
	assert_ptr_equal(cq.cq_context, &n);
	assert_int_equal(cq.comp_events_completed, 0);
	assert_int_equal(cq.async_events_completed, 0);
	assert_int_equal(ch->refcnt, 1);
	assert_int_equal(ibv_destroy_comp_channel(ch), EBUSY);
	ch->refcnt--;
	assert_int_equal(ibv_destroy_comp_channel(ch), 0);
	pthread_mutex_destroy(&cq.mutex);
	pthread_cond_destroy(&cq.cond);

	errno = 0;
	assert_int_equal(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), NULL, "ports/%d", 1), -1);
	assert_int_equal(errno, EINVAL);

	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
	ibv_free_device_list(list);
}

/* The log and the settings are read when the library loads: a child process of this test,
 * started with them set, reports (see main). */
static int run_child(const char *mode, char *const env[])
{
	char self[4096], arg[16];
	char *argv[] = {self, arg, NULL};
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pid_t pid;
	int status;

	assert_true(len > 0);
	self[len] = 0;
	snprintf(arg, sizeof(arg), "%s", mode);
	assert_int_equal(posix_spawn(&pid, self, NULL, NULL, argv, env), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int child(const char *mode)
{
	if (!strcmp(mode, "log")) {
		__verbs_log(NULL, 2, "warning %d\n", 2);
		__verbs_log(NULL, 4, "debug %d\n", 4);
		return 0;
	}
	if (!strcmp(mode, "disassoc"))
		return verbs_allow_disassociate_destroy ? 1 : 0;
	return 99;
}

static void test_log_and_settings(void **state)
{
	char path[] = "/tmp/uroce-test-abi-XXXXXX";
	char file_env[64], got[256] = {0};
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	snprintf(file_env, sizeof(file_env), "VERBS_LOG_FILE=%s", path);
	char *with_level[] = {"VERBS_LOG_LEVEL=2", file_env, NULL};
	assert_int_equal(run_child("log", with_level), 0);
	char *no_file[] = {"VERBS_LOG_LEVEL=4", NULL};
	assert_int_equal(run_child("log", no_file), 0);
	assert_true(read(fd, got, sizeof(got) - 1) >= 0);
	close(fd);
	unlink(path);
	assert_string_equal(got, "warning 2\n"); /* the debug message is above the level */

	char *set[] = {"RDMAV_ALLOW_DISASSOC_DESTROY=1", NULL};
	char *zero[] = {"RDMAV_ALLOW_DISASSOC_DESTROY=0", NULL};
	char *none[] = {NULL};
	assert_int_equal(run_child("disassoc", set), 1);
	assert_int_equal(run_child("disassoc", zero), 0);
	assert_int_equal(run_child("disassoc", none), 0);
}

/* ---- Helpers librdmacm and providers use ---- */

/* Exported for them; no public header declares these (rdma-core's driver.h does). */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

static void test_sysfs(void **state)
{
	char dir[] = "/tmp/uroce-test-abi-XXXXXX", path[128], buf[8];
	int fd;

	(void)state;
	/* Read once, as rdma-core does: set before the first call, trailing slashes gone. */
	setenv("SYSFS_PATH", "/tmp/sysfs-test//", 1);
	assert_string_equal(ibv_get_sysfs_path(), "/tmp/sysfs-test");
	setenv("SYSFS_PATH", "/elsewhere", 1);
	assert_string_equal(ibv_get_sysfs_path(), "/tmp/sysfs-test");
	unsetenv("SYSFS_PATH");

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0);
	assert_int_equal(write(fd, "1234\n", 5), 5);
	close(fd);
	assert_int_equal(ibv_read_sysfs_file(dir, "a", buf, sizeof(buf)), 4);
	assert_string_equal(buf, "1234");
	assert_int_equal(ibv_read_sysfs_file(dir, "a", buf, 5), 4); /* the newline made room */
	assert_int_equal(ibv_read_sysfs_file(dir, "a", buf, 4), -1); /* "1234" does not fit */
	assert_int_equal(ibv_read_sysfs_file(dir, "missing", buf, sizeof(buf)), -1);
	unlink(path);
	rmdir(dir);
}

static void test_rates(void **state)
{
	(void)state;
	for (int r = IBV_RATE_2_5_GBPS; r <= IBV_RATE_1200_GBPS; r++) {
		int mbps = ibv_rate_to_mbps((enum ibv_rate)r), mult = ibv_rate_to_mult((enum ibv_rate)r);

		assert_true(mbps > 0);
		assert_int_equal(mbps_to_ibv_rate(mbps), r);
		if (mult > 0)
			assert_int_equal(mult_to_ibv_rate(mult), r);
	}
	assert_int_equal(ibv_rate_to_mbps(IBV_RATE_25_GBPS), 25781);
	assert_int_equal(mbps_to_ibv_rate(25000), IBV_RATE_MAX); /* not a data rate */
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_25_GBPS), -1); /* not a multiple of 2.5 */
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_800_GBPS), 320);
	assert_int_equal(mult_to_ibv_rate(40), IBV_RATE_MAX);
	assert_int_equal(mbps_to_ibv_rate(0), IBV_RATE_MAX);
}

void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst, struct ibv_sa_path_rec *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst, struct ib_user_path_rec *src);

static void test_path_rec_copies(void **state)
{
	struct ibv_sa_path_rec p, back;
	struct ib_user_path_rec k;

	(void)state;
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < 16; i++) {
		p.dgid.raw[i] = (uint8_t)i;
		p.sgid.raw[i] = (uint8_t)(0x80 + i);
	}
	p.dlid = htons(0x1234);
	p.slid = htons(0x5678);
	p.raw_traffic = 1;
	p.flow_label = htonl(0xabcde);
	p.hop_limit = 64;
	p.traffic_class = 0x28;
	p.reversible = 1;
	p.numb_path = 2;
	p.pkey = htons(0xffff);
	p.sl = 3;
	p.mtu_selector = 2;
	p.mtu = IBV_MTU_4096;
	p.rate_selector = 2;
	p.rate = IBV_RATE_100_GBPS;
	p.packet_life_time_selector = 2;
	p.packet_life_time = 18;
	p.preference = 1;
	memset(&k, 0, sizeof(k));
	ibv_copy_path_rec_to_kern(&k, &p);
	assert_memory_equal(k.dgid, p.dgid.raw, 16);
	assert_int_equal(k.dlid, p.dlid);
	assert_int_equal(k.packet_life_time, 18);
	memset(&back, 0, sizeof(back));
	ibv_copy_path_rec_from_kern(&back, &k);
	assert_memory_equal(&back, &p, sizeof(p));
}

/* ---- Verbs with a context ---- */

static struct ibv_context *open_ctx(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n;

	assert_non_null(list = ibv_get_device_list(&n));
	assert_int_equal(n, 1);
	assert_non_null(ctx = ibv_open_device(list[0]));
	ibv_free_device_list(list);
	return ctx;
}

/* What needs a kernel object uroce does not have fails as the man pages say; fork is safe
 * without ibv_fork_init; no operation writes its data in order. The context's cmd_fd is a
 * real descriptor that carries nothing: a program can duplicate it to share the context, as
 * ibv_import_device(3) describes (rdma-core's test_shared_pd does), and the import is what
 * fails. */
static void test_unsupported_and_answers(void **state)
{
	struct ibv_context *ctx = open_ctx();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				      .cap = {1, 1, 1, 1, 0}};
	struct ibv_qp *qp;
	char c;
	int fd = dup(ctx->cmd_fd);

	(void)state;
	assert_non_null(pd);
	assert_non_null(cq);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(ctx->cmd_fd, F_GETFD), FD_CLOEXEC);
	assert_int_equal(read(fd, &c, 1), 0);
	errno = 0;
	assert_int_equal(write(fd, "x", 1), -1);
	assert_int_equal(errno, EPERM);
	errno = 0;
	assert_null(ibv_import_device(fd));
	assert_int_equal(errno, EOPNOTSUPP);
	close(fd);
	errno = 0;
	assert_null(ibv_import_pd(ctx, pd->handle));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_import_mr(pd, 1));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_import_dm(ctx, 1));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 0, IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EOPNOTSUPP);

	assert_int_equal(ibv_fork_init(), 0);
	assert_int_equal(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);

	assert_non_null(qp = ibv_create_qp(pd, &ia));
	assert_int_equal(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE, 0), 0);
	assert_int_equal(ibv_query_qp_data_in_order(qp, IBV_WR_SEND, 0), 0);
	assert_int_equal(ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_READ, 0), 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	assert_int_equal(ibv_close_device(ctx), 0);
}

int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid);

/* On lo (GID 0 is TEST_IP): the host's own address, lo's all-zero MAC, no VLAN. The cases
 * that need other interfaces are in test_netif (uroce_netif_l2). */
static void test_resolve_eth_l2(void **state)
{
	struct ibv_context *ctx = open_ctx();
	struct ibv_ah_attr ah = {.is_global = 1, .port_num = 1};
	uint8_t mac[6];
	uint16_t vid = 0;
	static const uint8_t zero[6];

	(void)state;
	assert_int_equal(ibv_query_gid(ctx, 1, 0, &ah.grh.dgid), 0);
	memset(mac, 0xff, sizeof(mac));
	assert_int_equal(ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, &vid), 0);
	assert_memory_equal(mac, zero, 6);
	assert_int_equal(vid, 0xffff);
	assert_int_equal(ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, NULL), 0);
	ah.grh.sgid_index = 5; /* the table holds one entry */
	errno = 0;
	assert_int_equal(ibv_resolve_eth_l2_from_gid(ctx, &ah, mac, &vid), -EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ibv_close_device(ctx), 0);
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return child(argv[1]);
	setenv("UROCE_IP", TEST_IP, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibverbs_1_0),
		cmocka_unit_test(test_private_34),
		cmocka_unit_test(test_log_and_settings),
		cmocka_unit_test(test_sysfs),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_path_rec_copies),
		cmocka_unit_test(test_unsupported_and_answers),
		cmocka_unit_test(test_resolve_eth_l2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

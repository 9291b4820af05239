/* SPDX-License-Identifier: MIT */
/* fork after the device is in use (docs/verbs.md "fork"): the child's copy of the parent's
 * port (engine, sockets, slot, statistics page) stays the parent's. A device the child opens
 * gets a port of its own, with its own slot (so its own QP numbers) and progress thread, and
 * carries traffic; the child's exit, which runs the library's exit handlers, takes nothing
 * from the parent: its statistics page stays, and its QPs keep working.
 *
 * The process shares its address with its child, as any two processes of a user may
 * (docs/multiprocess.md), in a runtime directory of the test's own. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#define IP "127.0.35.1"
#define BUF 4096
#define MSG 64

/* A device on IP, a PD, a CQ, a registered buffer, and two RC QPs connected to each other. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp[2];
	uint8_t *buf;
};

static int qp_to_rts(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					  IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
				 .dest_qp_num = dest, .rq_psn = 1, .min_rnr_timer = 12,
				 .ah_attr = {.is_global = 1, .port_num = 1,
					     .grh = {.dgid = *gid, .hop_limit = 64}}};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .sq_psn = 1, .timeout = 14,
				 .retry_cnt = 7, .rnr_retry = 7};
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
					     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					     IBV_QP_MAX_QP_RD_ATOMIC);
}

static int side_open(struct side *s)
{
	struct ibv_qp_init_attr ia = {.qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 4, .max_recv_wr = 4,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_device **list;
	union ibv_gid gid;
	int n;

	if (!(list = ibv_get_device_list(&n)) || n != 1)
		return -1;
	s->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!s->ctx || !(s->pd = ibv_alloc_pd(s->ctx)) ||
	    !(s->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0)) ||
	    !(s->buf = aligned_alloc(4096, BUF)) ||
	    !(s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE)) ||
	    ibv_query_gid(s->ctx, 1, 0, &gid))
		return -1;
	ia.send_cq = ia.recv_cq = s->cq;
	for (int i = 0; i < 2; i++)
		if (!(s->qp[i] = ibv_create_qp(s->pd, &ia)))
			return -1;
	for (int i = 0; i < 2; i++)
		if (qp_to_rts(s->qp[i], s->qp[1 - i]->qp_num, &gid))
			return -1;
	return 0;
}

/* One SEND of MSG bytes from qp[0] to qp[1], checked byte for byte: 0 on success. Polls a
 * bounded number of times, never against a clock. */
static int side_send(struct side *s, uint8_t fill)
{
	struct ibv_sge rs = {.addr = (uintptr_t)(s->buf + BUF / 2), .length = MSG,
			     .lkey = s->mr->lkey};
	struct ibv_sge ss = {.addr = (uintptr_t)s->buf, .length = MSG, .lkey = s->mr->lkey};
	struct ibv_recv_wr rwr = {.wr_id = 2, .sg_list = &rs, .num_sge = 1}, *rbad;
	struct ibv_send_wr swr = {.wr_id = 1, .sg_list = &ss, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED}, *sbad;
	struct ibv_wc wc[2];
	int got = 0;

	memset(s->buf, fill, MSG);
	memset(s->buf + BUF / 2, 0, MSG);
	if (ibv_post_recv(s->qp[1], &rwr, &rbad) || ibv_post_send(s->qp[0], &swr, &sbad))
		return -1;
	for (long i = 0; got < 2 && i < 200000000L; i++) {
		int n = ibv_poll_cq(s->cq, 2 - got, wc + got);
		if (n < 0)
			return -1;
		got += n;
	}
	if (got != 2 || wc[0].status != IBV_WC_SUCCESS || wc[1].status != IBV_WC_SUCCESS)
		return -1;
	for (int i = 0; i < MSG; i++)
		if (s->buf[BUF / 2 + i] != fill)
			return -1;
	return 0;
}

static void side_close(struct side *s)
{
	for (int i = 0; i < 2; i++)
		ibv_destroy_qp(s->qp[i]);
	ibv_dereg_mr(s->mr);
	ibv_destroy_cq(s->cq);
	ibv_dealloc_pd(s->pd);
	ibv_close_device(s->ctx);
	free(s->buf);
}

static int page_exists(const char *dir, pid_t pid)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d.stat", dir, (int)pid);
	return stat(path, &st) == 0;
}

/* The child's verdict, as its exit status. */
enum { CHILD_OK, CHILD_OPEN, CHILD_SLOT, CHILD_SEND };

static int child(const struct side *parent)
{
	struct side s = {0};

	alarm(60); /* a child whose device never moves a packet dies of SIGALRM */
	if (side_open(&s))
		return CHILD_OPEN;
	/* its own slot among the address's processes: the top byte of its QP numbers */
	if (s.qp[0]->qp_num >> 16 == parent->qp[0]->qp_num >> 16)
		return CHILD_SLOT;
	if (side_send(&s, 0xC1))
		return CHILD_SEND;
	side_close(&s);
	/* the parent's context, inherited: closing it leaves the parent's port alone */
	ibv_close_device(parent->ctx);
	return CHILD_OK;
}

/* The parent's side: a global, so that what the child inherits of it is no leak to
 * LeakSanitizer at the child's exit. */
static struct side s;

static void test_fork_child_has_its_own_port(void **state)
{
	char dir[] = "/tmp/uroce-test-fork-XXXXXX";
	int st;
	(void)state;

	assert_non_null(mkdtemp(dir));
	setenv("UROCE_RUNTIME_DIR", dir, 1);
	setenv("UROCE_IP", IP, 1);
	assert_int_equal(side_open(&s), 0);
	assert_int_equal(side_send(&s, 0xA1), 0);
	assert_true(page_exists(dir, getpid()));

	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		exit(child(&s)); /* exit: the library's exit handlers run in the child */
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), CHILD_OK);

	/* the parent's port is whole: its page, its QPs */
	assert_true(page_exists(dir, getpid()));
	assert_int_equal(side_send(&s, 0xA2), 0);
	assert_false(page_exists(dir, pid)); /* the child's own page went with it */

	side_close(&s);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_child_has_its_own_port),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

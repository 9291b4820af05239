/* SPDX-License-Identifier: MIT */
/* What the network is owed never waits on the application (design.md "Runtime model",
 * docs/verbs.md "The ACK rule"): a responder that sees the completion of its peer's last
 * message and then leaves at once, without destroying anything, has already answered it.
 *
 * Each run starts a responder process (this program again, `--responder OP WAY`) on its own
 * address, connects an RC QP to it and sends OP: a SEND, a WRITE with immediate, a READ
 * followed by a SEND, or a FETCH_ADD followed by a SEND. The responder polls the receive
 * completion of the last message and leaves by WAY: exit(0), return from main, _exit(0) or
 * SIGKILL. On a NIC the device answers whatever the program does next, so every requester
 * completion must be a success, with the right data: a lost ACK shows as RETRY_EXC_ERR.
 *
 * OP "write" is an RDMA WRITE without immediate that the responder sees by watching its
 * memory, with no completion: the library's exit handler sends its ACK when the responder
 * leaves by exit or a return from main. After _exit or SIGKILL nothing runs in the process,
 * so that case is not promised (docs/verbs.md "The ACK rule").
 * UROCE_EXIT_RUNS sets the runs per (OP, WAY), 100 by default. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/verbs.h>

#define REQUESTER_IP "127.0.31.1"
#define RESPONDER_IP "127.0.31.2"
#define BUF 4096
#define ATOMIC_START 42u
#define WRITE_MARK 0x5A
#define RESPONDER_FAILED 3 /* the responder's exit status when its own side went wrong */

enum op { OP_SEND, OP_WRITE_IMM, OP_READ, OP_ATOMIC, OP_WRITE, NOPS };
enum way { WAY_EXIT, WAY_RETURN, WAY__EXIT, WAY_SIGKILL, NWAYS };

static const char *const op_names[NOPS] = {"send", "write_imm", "read", "atomic", "write"};
static const char *const way_names[NWAYS] = {"exit", "return", "_exit", "sigkill"};

/* One side: a device on UROCE_IP, a PD, a CQ, a registered buffer. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* What a side tells the other about its QP. */
struct peer {
	uint32_t qpn, psn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

static int side_open(struct side *s)
{
	struct ibv_device **list;
	int n;

	if (!(list = ibv_get_device_list(&n)) || n != 1)
		return -1;
	s->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!s->ctx || !(s->pd = ibv_alloc_pd(s->ctx)) ||
	    !(s->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0)) ||
	    !(s->buf = aligned_alloc(4096, BUF)))
		return -1;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	return s->mr ? 0 : -1;
}

static struct ibv_qp *qp_new(struct side *s, struct peer *me, uint32_t psn)
{
	struct ibv_qp_init_attr ia = {.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
				      .cap = {.max_send_wr = 4, .max_recv_wr = 4,
					      .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1,
				.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
						   IBV_ACCESS_REMOTE_ATOMIC};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);

	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						  IBV_QP_ACCESS_FLAGS) ||
	    ibv_query_gid(s->ctx, 1, 0, &me->gid))
		return NULL;
	me->qpn = qp->qp_num;
	me->psn = psn;
	me->rkey = s->mr->rkey;
	me->addr = (uintptr_t)s->buf;
	return qp;
}

/* INIT -> RTR -> RTS towards peer. The local ACK timeout 16 (268 ms) and 7 retries: a lost
 * ACK ends in RETRY_EXC_ERR after about 2 s. A responder that has left never answers, so
 * the budget decides nothing about a lost ACK; it only has to outlast a responder slowed
 * by a busy machine: with timeout 12, 0.13 s in all, one run in 400 failed on a machine
 * busy with other work, which a responder not scheduled for 0.13 s after the SEND came
 * would do. */
static int qp_connect(struct ibv_qp *qp, const struct peer *me, const struct peer *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = peer->qpn,
		.rq_psn = peer->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = {.is_global = 1, .port_num = 1,
			    .grh = {.dgid = peer->gid, .sgid_index = 0, .hop_limit = 64}}};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .sq_psn = me->psn, .timeout = 16,
				 .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1};
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
					     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					     IBV_QP_MAX_QP_RD_ATOMIC);
}

static void peer_write(FILE *f, const struct peer *p)
{
	fprintf(f, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64, p->qpn, p->psn, p->rkey, p->addr);
	for (int i = 0; i < 16; i++)
		fprintf(f, " %u", p->gid.raw[i]);
	fputc('\n', f);
	fflush(f);
}

static int peer_read(FILE *f, struct peer *p)
{
	unsigned g;

	if (fscanf(f, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu64, &p->qpn, &p->psn, &p->rkey,
		   &p->addr) != 4)
		return -1;
	for (int i = 0; i < 16; i++) {
		if (fscanf(f, "%u", &g) != 1 || g > 255)
			return -1;
		p->gid.raw[i] = (uint8_t)g;
	}
	return 0;
}

/* Polls until n completions arrived (a failing QP also completes everything, flushed), or
 * a bound on the number of polls, never on time, runs out. Returns how many arrived. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0;

	for (long i = 0; got < n && i < 4000000000L; i++) {
		int r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return got;
		got += r;
	}
	return got;
}

/* ---- the responder process ---- */

static int responder(const char *opname, const char *wayname)
{
	/* Static: the handles it leaves open on purpose stay reachable once main has returned
	 * (WAY_RETURN), as a program's globals would, so that LeakSanitizer does not count them. */
	static struct side s;
	struct peer me, peer;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int way, op;

	alarm(60); /* an orphan (its requester failed) must not poll for ever */
	for (way = 0; way < NWAYS && strcmp(wayname, way_names[way]); way++)
		;
	for (op = 0; op < NOPS && strcmp(opname, op_names[op]); op++)
		;
	if (way == NWAYS || op == NOPS || side_open(&s))
		return RESPONDER_FAILED;
	for (unsigned i = 0; i < BUF; i++)
		s.buf[i] = (uint8_t)(0xA5 ^ i);
	uint64_t start = ATOMIC_START;
	memcpy(s.buf + BUF - 8, &start, 8);
	struct ibv_sge sge = {.addr = (uintptr_t)s.buf, .length = 256, .lkey = s.mr->lkey};
	struct ibv_recv_wr rwr = {.sg_list = &sge, .num_sge = 1}, *bad;
	if (!(qp = qp_new(&s, &me, 0x123456)) || ibv_post_recv(qp, &rwr, &bad))
		return RESPONDER_FAILED;
	peer_write(stdout, &me);
	if (peer_read(stdin, &peer) || qp_connect(qp, &me, &peer))
		return RESPONDER_FAILED;
	puts("ready");
	fflush(stdout);
	if (op == OP_WRITE) {
		/* The last byte of the WRITE lands last (packets in order, bytes in order). */
		volatile uint8_t *last = s.buf + 1024 + 63;
		while (*last != WRITE_MARK)
			;
	} else {
		int got = poll_n(s.cq, &wc, 1);
		if (got != 1 || wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "responder %s %s: %d completions, status %s\n", opname,
				wayname, got, got == 1 ? ibv_wc_status_str(wc.status) : "-");
			return RESPONDER_FAILED;
		}
	}
	/* Leave at once, with the QP, the CQ and the device still open. */
	switch (way) {
	case WAY_EXIT:
		exit(0);
	case WAY__EXIT:
		_exit(0);
	case WAY_SIGKILL:
		raise(SIGKILL);
		return RESPONDER_FAILED;
	default:
		return 0; /* WAY_RETURN: main returns it */
	}
}

/* ---- the requester: this process ---- */

static struct side R;
static const char *self;
static pid_t child; /* the responder of a run that failed half-way, still to be reaped */

static void reap_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	child = 0;
}

static int setup(void **state)
{
	(void)state;
	setenv("UROCE_IP", REQUESTER_IP, 1);
	return side_open(&R);
}

static int teardown(void **state)
{
	(void)state;
	reap_child();
	ibv_dereg_mr(R.mr);
	ibv_destroy_cq(R.cq);
	ibv_dealloc_pd(R.pd);
	ibv_close_device(R.ctx);
	free(R.buf);
	return 0;
}

/* Posts OP's requests; returns how many completions they make. */
static int post_op(struct ibv_qp *qp, enum op op, const struct peer *peer)
{
	struct ibv_sge sge[2] = {{.addr = (uintptr_t)R.buf, .length = 64, .lkey = R.mr->lkey},
				 {.addr = (uintptr_t)(R.buf + 2048), .length = 8, .lkey = R.mr->lkey}};
	struct ibv_send_wr wr[2] = {0}, *bad;
	int n = 1;

	wr[0].sg_list = &sge[0];
	wr[0].num_sge = 1;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case OP_SEND:
		wr[0].opcode = IBV_WR_SEND;
		break;
	case OP_WRITE_IMM:
	case OP_WRITE:
		if (op == OP_WRITE_IMM) {
			wr[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr[0].imm_data = htonl(7);
		} else {
			wr[0].opcode = IBV_WR_RDMA_WRITE;
			memset(R.buf, WRITE_MARK, 64);
		}
		wr[0].wr.rdma.remote_addr = peer->addr + 1024;
		wr[0].wr.rdma.rkey = peer->rkey;
		break;
	case OP_READ:
	case OP_ATOMIC:
		if (op == OP_READ) {
			wr[0].opcode = IBV_WR_RDMA_READ;
			wr[0].wr.rdma.remote_addr = peer->addr + 512;
			wr[0].wr.rdma.rkey = peer->rkey;
		} else {
			sge[0].length = 8;
			wr[0].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr[0].wr.atomic.remote_addr = peer->addr + BUF - 8;
			wr[0].wr.atomic.rkey = peer->rkey;
			wr[0].wr.atomic.compare_add = 1;
		}
		wr[0].next = &wr[1];
		wr[1].opcode = IBV_WR_SEND;
		wr[1].sg_list = &sge[1];
		wr[1].num_sge = 1;
		wr[1].send_flags = IBV_SEND_SIGNALED;
		n = 2;
		break;
	default:
		return -1;
	}
	return ibv_post_send(qp, wr, &bad) ? -1 : n;
}

/* The data a READ or FETCH_ADD brought back is what the responder held. */
static bool data_ok(enum op op)
{
	uint64_t orig;

	if (op == OP_READ) {
		for (unsigned i = 0; i < 64; i++)
			if (R.buf[i] != (uint8_t)(0xA5 ^ (512 + i)))
				return false;
	} else if (op == OP_ATOMIC) {
		memcpy(&orig, R.buf, 8);
		return orig == ATOMIC_START;
	}
	return true;
}

/* One run: returns 0 when every completion was a success with the right data, 1 when the
 * requester saw an error (the failure this test is about); fails the test when the responder
 * itself could not do its part. */
static int run_once(enum op op, enum way way)
{
	int to_child[2], from_child[2], status, n;
	struct peer me, peer;
	struct ibv_wc wc[2];
	struct ibv_qp *qp;
	FILE *in, *out;
	char line[16];
	pid_t pid;

	reap_child();
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		close(to_child[1]);
		close(from_child[0]);
		setenv("UROCE_IP", RESPONDER_IP, 1);
		execl(self, self, "--responder", op_names[op], way_names[way], (char *)NULL);
		_exit(127);
	}
	child = pid;
	close(to_child[0]);
	close(from_child[1]);
	in = fdopen(from_child[0], "r");
	out = fdopen(to_child[1], "w");
	assert_non_null(in);
	assert_non_null(out);
	memset(R.buf, 0, 64);
	qp = qp_new(&R, &me, 0x654321);
	assert_non_null(qp);
	assert_int_equal(peer_read(in, &peer), 0);
	peer_write(out, &me);
	assert_int_equal(qp_connect(qp, &me, &peer), 0);
	assert_int_equal(fscanf(in, "%15s", line), 1);
	assert_string_equal(line, "ready");
	n = post_op(qp, op, &peer);
	assert_true(n > 0);
	assert_int_equal(poll_n(R.cq, wc, n), n);
	bool ok = true;
	for (int i = 0; i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS;
	ok = ok && data_ok(op);
	if (!ok)
		for (int i = 0; i < n; i++)
			printf("  %s %s: the requester's completion %d of %d: %s (QP 0x%06x to "
			       "0x%06x)\n",
			       op_names[op], way_names[way], i + 1, n,
			       ibv_wc_status_str(wc[i].status), me.qpn, peer.qpn);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	child = 0;
	bool as_told = way == WAY_SIGKILL ? WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL
					  : WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!as_told)
		fail_msg("%s %s: the responder %s %d", op_names[op], way_names[way],
			 WIFEXITED(status) ? "exited with" : "was killed by signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	assert_int_equal(ibv_destroy_qp(qp), 0);
	fclose(in);
	fclose(out);
	return ok ? 0 : 1;
}

static void run_op(enum op op, int nways)
{
	const char *s = getenv("UROCE_EXIT_RUNS");
	int runs = s ? atoi(s) : 100, total = 0;

	assert_true(runs > 0);
	for (int way = 0; way < nways; way++) {
		int errors = 0;
		for (int i = 0; i < runs; i++)
			errors += run_once(op, (enum way)way);
		printf("%-9s %-7s: %d of %d runs ended with a requester error\n", op_names[op],
		       way_names[way], errors, runs);
		total += errors;
	}
	assert_int_equal(total, 0);
}

static void test_send(void **state) { (void)state; run_op(OP_SEND, NWAYS); }
static void test_write_imm(void **state) { (void)state; run_op(OP_WRITE_IMM, NWAYS); }
static void test_read(void **state) { (void)state; run_op(OP_READ, NWAYS); }
static void test_atomic(void **state) { (void)state; run_op(OP_ATOMIC, NWAYS); }
/* exit and return only: the ways that run the library's exit handler. */
static void test_write_seen_in_memory(void **state) { (void)state; run_op(OP_WRITE, WAY__EXIT); }

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send),
		cmocka_unit_test(test_write_imm),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_atomic),
		cmocka_unit_test(test_write_seen_in_memory),
	};

	if (argc == 4 && !strcmp(argv[1], "--responder"))
		return responder(argv[2], argv[3]);
	self = "/proc/self/exe";
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}

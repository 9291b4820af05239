/* SPDX-License-Identifier: MIT */
/* The statistics page of a running device (docs/stat.md) shows what the transport did: two RC
 * QPs of one device connected to each other, a SEND to one without a receive posted, so that
 * its responder sends RNR NAKs and the requester waits and retries until a receive arrives.
 * The page, read with uroce-stat's reader while the QPs live, must list both QPs connected
 * and count the RNR NAKs on both sides, per QP and for the device. */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "stat/page.h"

#define TEST_IP "127.0.4.7"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static char buf[4096];

static struct ibv_qp *make_qp(void)
{
	struct ibv_qp_init_attr a = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				     .cap = {.max_send_wr = 4, .max_recv_wr = 4,
					     .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	assert_non_null(qp);
	return qp;
}

static void connect_rc(struct ibv_qp *qp, uint32_t peer)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};

	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1; /* 0.01 ms: the requester retries at once */
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	assert_int_equal(ibv_query_gid(ctx, 1, 0, &a.ah_attr.grh.dgid), 0);
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						       IBV_QP_MAX_DEST_RD_ATOMIC |
						       IBV_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7; /* forever */
	a.max_rd_atomic = 1;
	assert_int_equal(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						       IBV_QP_MAX_QP_RD_ATOMIC), 0);
}

/* This process's page, read as uroce-stat reads it: 0 or a negative errno. */
static int read_page(struct uroce_stat_snapshot *s)
{
	char dir[256], path[300];
	void *m;
	int fd, r;

	assert_int_equal(uroce_stat_dir(dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/%d.stat", dir, (int)getpid());
	if ((fd = open(path, O_RDONLY)) < 0)
		return -errno;
	m = mmap(NULL, sizeof(struct uroce_stat_page), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(m != MAP_FAILED);
	r = uroce_stat_read(m, sizeof(struct uroce_stat_page), s);
	munmap(m, sizeof(struct uroce_stat_page));
	return r;
}

static int counter(const struct uroce_stat_snapshot *s, const char *name, const uint64_t *v,
		   uint32_t n, const char (*names)[UROCE_STAT_NAME_MAX])
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)(v[i] > 0x7fffffff ? 0x7fffffff : v[i]);
	(void)s;
	fail_msg("no counter %s", name);
	return -1;
}

static const struct uroce_stat_qp *find_qp(const struct uroce_stat_snapshot *s, uint32_t qpn)
{
	for (uint32_t i = 0; i < s->dyn.nqps; i++)
		if (s->dyn.qps[i].qpn == qpn)
			return &s->dyn.qps[i];
	return NULL;
}

static void test_rnr_in_page(void **state)
{
	struct uroce_stat_snapshot *s = calloc(1, sizeof(*s));
	struct ibv_qp *req, *resp;
	struct ibv_sge sge;
	struct ibv_send_wr swr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED}, *sbad;
	struct ibv_recv_wr rwr = {.wr_id = 2, .sg_list = &sge, .num_sge = 1}, *rbad;
	const struct uroce_stat_qp *qreq, *qresp;
	struct ibv_wc wc;
	int got = 0, rnr = 0;
	long i;
	(void)state;

	assert_non_null(s);
	req = make_qp();
	resp = make_qp();
	connect_rc(req, resp->qp_num);
	connect_rc(resp, req->qp_num);
	sge = (struct ibv_sge){(uintptr_t)buf, 64, mr->lkey};
	assert_int_equal(ibv_post_send(req, &swr, &sbad), 0);
	/* RNR NAKs until the page has counted a few (bounded by reads, never by time) */
	for (i = 0; i < 2000000 && rnr < 3; i++) {
		assert_int_equal(ibv_poll_cq(cq, 1, &wc), 0); /* nothing completes without a receive */
		if (read_page(s) == 0)
			rnr = counter(s, "rcvd_rnr_err", s->dyn.counters, s->hdr.ncounters,
				      s->hdr.counter_names);
	}
	assert_true(rnr >= 3);
	assert_string_equal(s->hdr.device, "uroce0");
	assert_string_equal(s->hdr.addrs, TEST_IP);
	assert_true(counter(s, "send_rnr_err", s->dyn.counters, s->hdr.ncounters,
			    s->hdr.counter_names) >= 3);
	qreq = find_qp(s, req->qp_num);
	qresp = find_qp(s, resp->qp_num);
	assert_non_null(qreq);
	assert_non_null(qresp);
	assert_int_equal(qreq->dest_qpn, resp->qp_num);
	assert_int_equal(qresp->dest_qpn, req->qp_num);
	assert_int_equal(qreq->send_outstanding, 1); /* the SEND waits */
	assert_int_equal(qresp->recv_posted, 0);
	assert_true(counter(s, "rcvd_rnr_err", qreq->cnt, s->hdr.nqp_counters,
			    s->hdr.qp_counter_names) >= 1);
	assert_int_equal(counter(s, "rcvd_rnr_err", qresp->cnt, s->hdr.nqp_counters,
				 s->hdr.qp_counter_names), 0);
	assert_true(counter(s, "send_rnr_err", qresp->cnt, s->hdr.nqp_counters,
			    s->hdr.qp_counter_names) >= 1);

	assert_int_equal(ibv_post_recv(resp, &rwr, &rbad), 0);
	for (i = 0; i < 2000000000L && got < 2; i++) {
		int n = ibv_poll_cq(cq, 1, &wc);

		assert_true(n >= 0);
		if (n) {
			assert_int_equal(wc.status, IBV_WC_SUCCESS);
			got++;
		}
	}
	assert_int_equal(got, 2);
	/* the page follows: the SEND is no longer outstanding */
	for (i = 0; i < 2000000; i++) {
		if (read_page(s) == 0 && (qreq = find_qp(s, req->qp_num)) &&
		    qreq->send_outstanding == 0)
			break;
	}
	assert_non_null(qreq);
	assert_int_equal(qreq->send_outstanding, 0);
	assert_int_equal(ibv_destroy_qp(req), 0);
	assert_int_equal(ibv_destroy_qp(resp), 0);
	free(s);
}

static int setup(void **state)
{
	struct ibv_device **list;
	char dir[] = "/tmp/uroce-test-stat-rnr.XXXXXX";
	int n;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	setenv("UROCE_RUNTIME_DIR", dir, 1);
	setenv("UROCE_IP", TEST_IP, 1);
	list = ibv_get_device_list(&n);
	if (!list || n != 1)
		return -1;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!ctx || !(pd = ibv_alloc_pd(ctx)) || !(cq = ibv_create_cq(ctx, 16, NULL, NULL, 0)))
		return -1;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	return mr ? 0 : -1;
}

static int teardown(void **state)
{
	char dir[256], path[300];

	(void)state;
	assert_int_equal(uroce_stat_dir(dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/%d.stat", dir, (int)getpid());
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	assert_int_equal(ibv_close_device(ctx), 0);
	assert_int_equal(access(path, F_OK), -1); /* closing removed the page */
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_rnr_in_page)};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: MIT */
/* Step 1 of the engine: protection domains, memory regions (access rules, keys, the
 * overflow-safe range check), CQs (overrun as an asynchronous error, a QP's completions
 * taken out, resizing), queue memory from a caller's allocator, SRQs, and the QP
 * state machine of IBA 10.3.1 with the attribute rules of 11.2.4.2, for RC, UC and UD: every
 * (from, to) pair is tried, legal ones with exactly their required attributes, each
 * required attribute left out in turn, a foreign attribute added, and bad values. */
#include "inject.h"

#include "engine/mr.h"

static struct uroce_dev *dev_new(void)
{
	struct uroce_dev_cfg cfg = {.ngids = 1, .gid = {h_addr(0, false)}};
	struct uroce_dev *dev;
	assert_int_equal(uroce_dev_new(&cfg, &dev), 0);
	return dev;
}

static void test_dev_cfg_checked(void **state)
{
	struct uroce_dev_cfg cfg = {0};
	struct uroce_dev *dev;
	(void)state;

	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL); /* no GID */
	cfg.ngids = 1;
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL); /* 0.0.0.0 */
	cfg.gid[0] = h_addr(0, false);
	cfg.port_mtu = 6;
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	cfg.port_mtu = UROCE_MTU_1024;
	assert_int_equal(uroce_dev_new(&cfg, &dev), 0);
	struct uroce_dev_attr attr;
	uroce_dev_query(dev, &attr);
	assert_int_equal(attr.port_mtu, UROCE_MTU_1024);
	assert_int_equal(attr.max_qp_rd_atom, UROCE_MAX_RD_ATOMIC);
	assert_true(attr.port_active);
	/* Port events and the link_downed counter. */
	struct uroce_async_event ev;
	uroce_dev_set_port_active(dev, false);
	uroce_dev_set_port_active(dev, true);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_PORT_ERR);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_PORT_ACTIVE);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 0);
	assert_int_equal(uroce_dev_counters(dev)->link_downed, 1);
	uroce_dev_free(dev);
}

/* QP numbers run cyclically from the configured first one over the 24-bit space, skip
 * 0xFFFFFF (the multicast QPN), wrap to 16 (0 and 1 are the special QPs), skip numbers whose
 * table slot is live, and are not reused at once. */
static void test_qpn_cyclic(void **state)
{
	struct uroce_dev_cfg cfg = {.ngids = 1, .gid = {h_addr(0, false)}, .max_qp = 4};
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp[5];
	(void)state;

	cfg.first_qpn = 5;
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	cfg.first_qpn = 0x1000000;
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	struct uroce_qp_init_attr init = {.qp_type = UROCE_QPT_UD,
					  .cap = {.max_send_wr = 1, .max_recv_wr = 1}};
	/* A start at the multicast QPN starts at 16. */
	cfg.first_qpn = 0xFFFFFF;
	assert_int_equal(uroce_dev_new(&cfg, &dev), 0);
	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_cq_create(dev, 16, &cq), 0);
	init.send_cq = init.recv_cq = cq;
	assert_int_equal(uroce_qp_create(pd, &init, &qp[0]), 0);
	assert_int_equal(uroce_qp_num(qp[0]), 16);
	uroce_dev_free(dev);

	cfg.first_qpn = 0xFFFFFE;
	assert_int_equal(uroce_dev_new(&cfg, &dev), 0);
	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_cq_create(dev, 16, &cq), 0);
	init.send_cq = init.recv_cq = cq;
	/* 0xFFFFFE has slot 2 of the 4; 16, 17 slots 0 and 1; 18 would share 0xFFFFFE's. */
	const uint32_t want[4] = {0xFFFFFE, 16, 17, 19};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(uroce_qp_create(pd, &init, &qp[i]), 0);
		assert_int_equal(uroce_qp_num(qp[i]), want[i]);
	}
	assert_int_equal(uroce_qp_create(pd, &init, &qp[4]), UROCE_ENOMEM);
	/* 16 freed: the next is 20, in its slot, not 16 again. */
	assert_int_equal(uroce_qp_destroy(qp[1]), 0);
	assert_int_equal(uroce_qp_create(pd, &init, &qp[1]), 0);
	assert_int_equal(uroce_qp_num(qp[1]), 20);
	for (int i = 0; i < 4; i++)
		assert_int_equal(uroce_qp_destroy(qp[i]), 0);
	assert_int_equal(uroce_cq_destroy(cq), 0);
	assert_int_equal(uroce_pd_dealloc(pd), 0);
	uroce_dev_free(dev);
}

/* A device confined to a range of numbers (one slot of a shared address,
 * docs/multiprocess.md) hands out only those, cyclically from its first one. */
static void test_qpn_range(void **state)
{
	struct uroce_dev_cfg cfg = {.ngids = 1, .gid = {h_addr(0, false)}, .max_qp = 4,
				    .qpn_lo = 0x20000, .qpn_hi = 0x20003, .first_qpn = 0x20002};
	struct uroce_qp_init_attr init = {.qp_type = UROCE_QPT_RC,
					  .cap = {.max_send_wr = 1, .max_recv_wr = 1}};
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp[5];
	(void)state;

	cfg.max_qp = 5; /* more QPs than numbers */
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	cfg.max_qp = 4;
	cfg.first_qpn = 0x20004; /* outside */
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	cfg.first_qpn = 0x20002;
	cfg.qpn_lo = 15; /* QP numbers below 16 are not handed out */
	assert_int_equal(uroce_dev_new(&cfg, &dev), UROCE_EINVAL);
	cfg.qpn_lo = 0x20000;
	assert_int_equal(uroce_dev_new(&cfg, &dev), 0);
	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_cq_create(dev, 16, &cq), 0);
	init.send_cq = init.recv_cq = cq;
	const uint32_t want[4] = {0x20002, 0x20003, 0x20000, 0x20001};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(uroce_qp_create(pd, &init, &qp[i]), 0);
		assert_int_equal(uroce_qp_num(qp[i]), want[i]);
	}
	assert_int_equal(uroce_qp_create(pd, &init, &qp[4]), UROCE_ENOMEM);
	assert_int_equal(uroce_qp_destroy(qp[1]), 0);
	assert_int_equal(uroce_qp_create(pd, &init, &qp[1]), 0);
	assert_int_equal(uroce_qp_num(qp[1]), 0x20003);
	for (int i = 0; i < 4; i++)
		assert_int_equal(uroce_qp_destroy(qp[i]), 0);
	assert_int_equal(uroce_cq_destroy(cq), 0);
	assert_int_equal(uroce_pd_dealloc(pd), 0);
	uroce_dev_free(dev);
}

/* IBA 10.6.3.1: remote write and remote atomic need local write; keys change with every
 * registration of a slot (10.6.3.2); a region may not wrap past 2^64. */
static void test_IBA10_6_3_mr_registration(void **state)
{
	struct uroce_dev *dev = dev_new();
	struct uroce_pd *pd, *pd2;
	struct uroce_mr *mr, *mr2;
	static uint8_t buf[4096];
	(void)state;

	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_mr_reg(pd, buf, sizeof(buf), 0x1000, UROCE_ACCESS_REMOTE_WRITE, &mr),
			 UROCE_EINVAL);
	assert_int_equal(uroce_mr_reg(pd, buf, sizeof(buf), 0x1000, UROCE_ACCESS_REMOTE_ATOMIC, &mr),
			 UROCE_EINVAL);
	assert_int_equal(uroce_mr_reg(pd, buf, sizeof(buf), 0x1000, 1u << 30, &mr), UROCE_EINVAL);
	assert_int_equal(uroce_mr_reg(pd, NULL, 16, 0x1000, 0, &mr), UROCE_EINVAL);
	/* The last byte may be at 2^64 - 1, not beyond. */
	assert_int_equal(uroce_mr_reg(pd, buf, 17, UINT64_MAX - 15, 0, &mr), UROCE_EINVAL);
	assert_int_equal(uroce_mr_reg(pd, buf, 16, UINT64_MAX - 15, 0, &mr), 0);
	assert_int_equal(uroce_mr_dereg(mr), 0);
	assert_int_equal(uroce_mr_reg(pd, buf, sizeof(buf), 0x1000,
				      UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE, &mr),
			 0);
	assert_int_equal(uroce_mr_lkey(mr), uroce_mr_rkey(mr));
	assert_true(uroce_mr_valid(mr));
	uint32_t key = uroce_mr_rkey(mr);
	assert_ptr_equal(mr_find(dev, key), mr);
	assert_null(mr_find(dev, key ^ 1));  /* another key part */
	assert_null(mr_find(dev, 0));
	/* A PD with an MR cannot go. */
	assert_int_equal(uroce_pd_dealloc(pd), UROCE_EBUSY);
	assert_int_equal(uroce_mr_dereg(mr), 0);
	assert_null(mr_find(dev, key));
	/* The slot is reused with a new key part: the old key reaches nothing. */
	assert_int_equal(uroce_mr_reg(pd, buf, sizeof(buf), 0x1000, 0, &mr), 0);
	assert_int_equal(uroce_mr_rkey(mr) >> 8, key >> 8);
	assert_int_not_equal(uroce_mr_rkey(mr), key);
	assert_null(mr_find(dev, key));
	/* Accesses: PD, rights and range. */
	assert_int_equal(uroce_pd_alloc(dev, &pd2), 0);
	assert_int_equal(uroce_mr_reg(pd2, buf, sizeof(buf), 0x1000, H_ALL_ACCESS, &mr2), 0);
	uint32_t k2 = uroce_mr_rkey(mr2);
	assert_ptr_equal(mr_access(dev, pd2, k2, 0x1000, 4096, UROCE_ACCESS_REMOTE_READ), buf);
	assert_ptr_equal(mr_access(dev, pd2, k2, 0x1FFF, 1, UROCE_ACCESS_REMOTE_WRITE), buf + 4095);
	assert_ptr_equal(mr_access(dev, pd2, k2, 0x2000, 0, UROCE_ACCESS_REMOTE_WRITE), buf + 4096);
	assert_null(mr_access(dev, pd, k2, 0x1000, 1, 0));          /* another PD */
	assert_null(mr_access(dev, pd2, k2, 0x0FFF, 1, 0));         /* before */
	assert_null(mr_access(dev, pd2, k2, 0x1FFF, 2, 0));         /* past the end */
	assert_null(mr_access(dev, pd2, uroce_mr_rkey(mr), 0x1000, 1, UROCE_ACCESS_REMOTE_READ));
	/* Invalidation needs the right and the PD. */
	assert_int_equal(mr_invalidate(dev, pd2, k2), UROCE_EINVAL);
	assert_int_equal(uroce_mr_dereg(mr2), 0);
	assert_int_equal(uroce_mr_reg(pd2, buf, sizeof(buf), 0x1000,
				      UROCE_ACCESS_INVALIDATE | UROCE_ACCESS_REMOTE_READ, &mr2),
			 0);
	k2 = uroce_mr_rkey(mr2);
	assert_int_equal(mr_invalidate(dev, pd, k2), UROCE_EINVAL);
	assert_int_equal(mr_invalidate(dev, pd2, k2), 0);
	assert_false(uroce_mr_valid(mr2));
	assert_null(mr_access(dev, pd2, k2, 0x1000, 1, UROCE_ACCESS_REMOTE_READ));
	uroce_dev_free(dev); /* frees what is left */
}

/* Re-registration (ibv_rereg_mr(3)) replaces every attribute at once and keeps the keys, as
 * mlx5 and rxe do: the key reaches the new range with the new rights through the new PD,
 * and no longer the old range or PD. The PD reference moves; refused attributes leave the
 * MR untouched. */
static void test_mr_rereg(void **state)
{
	struct uroce_dev *dev = dev_new();
	struct uroce_pd *pd, *pd2;
	struct uroce_mr *mr;
	static uint8_t a[4096], b[8192];
	(void)state;

	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_pd_alloc(dev, &pd2), 0);
	assert_int_equal(uroce_mr_reg(pd, a, sizeof(a), 0x1000, UROCE_ACCESS_REMOTE_READ, &mr), 0);
	uint32_t k1 = uroce_mr_rkey(mr);
	/* Refused: the MR keeps its keys, PD and range. */
	assert_int_equal(uroce_mr_rereg(mr, pd2, b, sizeof(b), 0x8000, UROCE_ACCESS_REMOTE_WRITE),
			 UROCE_EINVAL); /* remote write without local write (10.6.3.1) */
	assert_int_equal(uroce_mr_rereg(mr, pd2, NULL, 16, 0x8000, 0), UROCE_EINVAL);
	assert_int_equal(uroce_mr_rereg(mr, pd2, b, 17, UINT64_MAX - 15, 0), UROCE_EINVAL);
	assert_int_equal(uroce_mr_rkey(mr), k1);
	assert_ptr_equal(mr_access(dev, pd, k1, 0x1000, 4096, UROCE_ACCESS_REMOTE_READ), a);
	assert_int_equal(uroce_pd_dealloc(pd), UROCE_EBUSY); /* still held by the MR */
	assert_int_equal(uroce_pd_dealloc(pd2), 0);          /* never taken */
	assert_int_equal(uroce_pd_alloc(dev, &pd2), 0);

	/* Another range, PD and rights: the same keys reach the new region only. */
	assert_int_equal(uroce_mr_rereg(mr, pd2, b, sizeof(b), 0x8000, H_ALL_ACCESS), 0);
	assert_int_equal(uroce_mr_rkey(mr), k1);
	assert_int_equal(uroce_mr_lkey(mr), k1);
	assert_ptr_equal(mr_find(dev, k1), mr);
	assert_null(mr_access(dev, pd, k1, 0x8000, 1, 0)); /* the old PD */
	assert_ptr_equal(mr_access(dev, pd2, k1, 0x8000, 8192, UROCE_ACCESS_REMOTE_WRITE), b);
	assert_null(mr_access(dev, pd2, k1, 0x1000, 1, 0)); /* the old range */
	/* Rights taken away take effect at once. */
	assert_int_equal(uroce_mr_rereg(mr, pd2, b, sizeof(b), 0x8000, UROCE_ACCESS_LOCAL_WRITE), 0);
	assert_null(mr_access(dev, pd2, k1, 0x8000, 1, UROCE_ACCESS_REMOTE_WRITE));
	assert_ptr_equal(mr_access(dev, pd2, k1, 0x8000, 1, UROCE_ACCESS_LOCAL_WRITE), b);
	/* The old PD is free to go, the new one is held. */
	assert_int_equal(uroce_pd_dealloc(pd2), UROCE_EBUSY);
	assert_int_equal(uroce_pd_dealloc(pd), 0);

	/* An invalidated region is valid again once re-registered. */
	assert_int_equal(uroce_mr_rereg(mr, pd2, b, sizeof(b), 0x8000,
					UROCE_ACCESS_INVALIDATE | UROCE_ACCESS_REMOTE_READ), 0);
	assert_int_equal(mr_invalidate(dev, pd2, uroce_mr_rkey(mr)), 0);
	assert_false(uroce_mr_valid(mr));
	assert_int_equal(uroce_mr_rereg(mr, pd2, b, sizeof(b), 0x8000, UROCE_ACCESS_REMOTE_READ), 0);
	assert_true(uroce_mr_valid(mr));
	assert_ptr_equal(mr_access(dev, pd2, uroce_mr_rkey(mr), 0x8000, 1, UROCE_ACCESS_REMOTE_READ),
			 b);
	assert_int_equal(uroce_mr_dereg(mr), 0);
	assert_int_equal(uroce_pd_dealloc(pd2), 0);
	uroce_dev_free(dev);
}

/* [va, va + len) inside [base, base + size) without wrapping (facts.md section 3: Linux
 * rxe's check let va + len wrap past 2^64 and pass). */
static void test_range_check_overflow_safe(void **state)
{
	(void)state;
	assert_true(range_inside(0x1000, 0x1000, 0x1000, 0x1000));
	assert_true(range_inside(0x1000, 0x1000, 0x1800, 0x800));
	assert_false(range_inside(0x1000, 0x1000, 0x1800, 0x801));
	assert_false(range_inside(0x1000, 0x1000, 0xFFF, 1));
	/* The wrap: va + len = 8, "inside" for a naive va + len <= base + size. */
	assert_false(range_inside(0x1000, 0x1000, UINT64_MAX - 7, 16));
	assert_false(range_inside(0, UINT64_MAX, 1, UINT64_MAX));
	assert_true(range_inside(0, UINT64_MAX, 1, UINT64_MAX - 1));
	/* A region ending at the top of the address space. */
	assert_true(range_inside(UINT64_MAX - 15, 16, UINT64_MAX - 7, 8));
	assert_false(range_inside(UINT64_MAX - 15, 16, UINT64_MAX - 7, 9));
	assert_false(range_inside(0x1000, 0x1000, 0x1001, UINT64_MAX));
	assert_true(range_inside(0x1000, 0x1000, 0x2000, 0));
	assert_false(range_inside(0x1000, 0x1000, 0x2001, 0));
}

/* A CQ overrun loses the completion and raises CQ_ERR once (IBA 11.6.3); later polls
 * report the error once the ring is empty. */
static void test_IBA11_6_3_cq_overrun(void **state)
{
	struct uroce_dev *dev = dev_new();
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_qp *qp;
	struct uroce_wc wc[4];
	struct uroce_async_event ev;
	(void)state;

	assert_int_equal(uroce_cq_create(dev, 0, &cq), UROCE_EINVAL);
	assert_int_equal(uroce_cq_create(dev, 2, &cq), 0);
	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	struct uroce_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = UROCE_QPT_RC,
					  .cap = {.max_send_wr = 4, .max_recv_wr = 4}};
	assert_int_equal(uroce_qp_create(pd, &init, &qp), 0);
	assert_int_equal(uroce_cq_destroy(cq), UROCE_EBUSY);
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_ERR};
	assert_int_equal(uroce_qp_modify(qp, &a, UROCE_QPA_STATE), 0);
	/* Receive requests posted in ERR complete with a flush error when the engine takes them
	 * in. */
	struct uroce_recv_wr r[3] = {{.wr_id = 1, .next = &r[1]}, {.wr_id = 2, .next = &r[2]},
				     {.wr_id = 3}};
	const struct uroce_recv_wr *bad;
	assert_int_equal(uroce_post_recv(qp, r, &bad), 0);
	assert_int_equal(uroce_cq_count(cq), 0);
	uroce_dev_take_posted(dev);
	uroce_dev_publish(dev);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, cq);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 0);
	assert_int_equal(uroce_cq_poll(cq, wc, 4), 2);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[0].status, UROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(wc[1].wr_id, 2);
	assert_int_equal(uroce_cq_poll(cq, wc, 4), UROCE_EIO);
	assert_int_equal(uroce_qp_destroy(qp), 0);
	assert_int_equal(uroce_cq_destroy(cq), 0);
	assert_int_equal(uroce_pd_dealloc(pd), 0);
	uroce_dev_free(dev);
}

/* n receive requests posted to a QP in ERR, from wr_id first on, flushed at once. */
static void post_flushed(struct uroce_qp *qp, uint64_t first, int n)
{
	for (int i = 0; i < n; i++) {
		struct uroce_recv_wr r = {.wr_id = first + (uint64_t)i};
		const struct uroce_recv_wr *bad;
		assert_int_equal(uroce_post_recv(qp, &r, &bad), 0);
	}
	uroce_dev_take_posted(qp->dev);
	uroce_dev_publish(qp->dev);
}

static struct uroce_qp *qp_in_error(struct uroce_pd *pd, struct uroce_cq *cq)
{
	struct uroce_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = UROCE_QPT_RC,
					  .cap = {.max_send_wr = 8, .max_recv_wr = 8}};
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_ERR};
	struct uroce_qp *qp;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), 0);
	assert_int_equal(uroce_qp_modify(qp, &a, UROCE_QPA_STATE), 0);
	return qp;
}

/* uroce_cq_drop_qp takes a QP's completions out of a CQ, published ones and staged ones
 * (waiting for the ACK their QP owes), and keeps every other completion in its order and
 * its visibility; the counts only move forward, and the ring is reused across its end. */
static void test_cq_drop_qp(void **state)
{
	struct inj_opts o = {.epsn = 10};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 256, 1);
	static const uint8_t data[16];
	struct uroce_wc wc[8];
	(void)state;

	h_post_recv(t->qp, 100, &b, 0, 256);
	struct uroce_qp *q = qp_in_error(t->pd, t->cq);
	post_flushed(q, 1, 2);                         /* published: q1 q2 */
	struct inj_hdr h = {.opcode = UROCE_OP_RC_SEND_ONLY, .psn = 10, .ackreq = true,
			    .payload = data, .len = sizeof(data)};
	inj_send(t, &h);                               /* staged: t's, its ACK unsent */
	post_flushed(q, 3, 1);                         /* staged behind it: q3 */
	assert_int_equal(uroce_cq_count(t->cq), 2);
	uint32_t pushed = uroce_cq_pushed(t->cq);

	/* t's staged completion goes; q3 stays staged, and shows once published. */
	uroce_cq_drop_qp(t->cq, t->qp);
	assert_int_equal(uroce_cq_count(t->cq), 2);
	assert_int_equal(uroce_cq_pushed(t->cq), pushed + 1);
	uroce_dev_publish(t->dev);
	assert_int_equal(uroce_cq_poll(t->cq, wc, 8), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)i + 1);
		assert_ptr_equal(wc[i].qp, q);
	}
	/* The ACK is still owed and sent: dropping a completion answers nothing. */
	assert_int_equal(inj_out(t), 1);
	inj_expect_ack(&t->o[0], 0x1F, 10);
	assert_int_equal(uroce_cq_poll(t->cq, wc, 8), 0);

	/* A ring of 4 used across its end: q4 r1 | q5 r2 q6 r3, polled up to the bar. */
	struct uroce_cq *cq;
	assert_int_equal(uroce_cq_create(t->dev, 4, &cq), 0);
	struct uroce_qp *q2 = qp_in_error(t->pd, cq), *r = qp_in_error(t->pd, cq);
	post_flushed(q2, 4, 1);
	post_flushed(r, 11, 1);
	assert_int_equal(uroce_cq_poll(cq, wc, 2), 2);
	post_flushed(q2, 5, 1);
	post_flushed(r, 12, 1);
	post_flushed(q2, 6, 1);
	post_flushed(r, 13, 1);
	uroce_cq_drop_qp(cq, q2);
	assert_int_equal(uroce_cq_count(cq), 2);
	/* Room for two more: the ring holds 4. */
	post_flushed(r, 14, 2);
	assert_int_equal(uroce_cq_poll(cq, wc, 8), 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)i + 12);
		assert_int_equal(wc[i].qp_num, uroce_qp_num(r));
	}
	assert_int_equal(uroce_cq_poll(cq, wc, 0), 0); /* no overrun */
	h_buf_free(&b);
	inj_free(t);
}

/* uroce_cq_resize keeps every completion it holds, published or staged, in its order and
 * visibility, across the ring's end; it refuses a depth below what it holds, and the new
 * depth is the one the overrun test uses. */
static void test_IBA11_2_7_3_cq_resize(void **state)
{
	struct inj_opts o = {.epsn = 10};
	struct inj *t = inj_new(&o);
	struct h_buf b = inj_buf(t, 256, 1);
	static const uint8_t data[16];
	struct uroce_wc wc[8];
	(void)state;

	h_post_recv(t->qp, 100, &b, 0, 256);
	struct uroce_qp *q = qp_in_error(t->pd, t->cq);
	post_flushed(q, 1, 2);
	struct inj_hdr h = {.opcode = UROCE_OP_RC_SEND_ONLY, .psn = 10, .ackreq = true,
			    .payload = data, .len = sizeof(data)};
	inj_send(t, &h);       /* staged until its ACK leaves */
	post_flushed(q, 3, 1); /* staged behind it */
	assert_int_equal(uroce_cq_resize(t->cq, 3), UROCE_EINVAL); /* holds 4 */
	assert_int_equal(uroce_cq_resize(t->cq, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cq_resize(t->cq, UROCE_MAX_CQE + 1), UROCE_EINVAL);
	assert_int_equal(uroce_cq_resize(t->cq, 4), 0);
	assert_int_equal(uroce_cq_count(t->cq), 2);
	assert_int_equal(inj_out(t), 1);
	assert_int_equal(uroce_cq_poll(t->cq, wc, 8), 4);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[1].wr_id, 2);
	assert_int_equal(wc[2].wr_id, 100);
	assert_int_equal(wc[3].wr_id, 3);

	/* A ring of 4 used across its end, then grown to 6 and filled. */
	struct uroce_cq *cq;
	assert_int_equal(uroce_cq_create(t->dev, 4, &cq), 0);
	struct uroce_qp *r = qp_in_error(t->pd, cq);
	post_flushed(r, 1, 3);
	assert_int_equal(uroce_cq_poll(cq, wc, 2), 2);
	post_flushed(r, 4, 3); /* 3 to 6 in slots 2, 3, 0, 1: full */
	assert_int_equal(uroce_cq_resize(cq, 3), UROCE_EINVAL);
	assert_int_equal(uroce_cq_resize(cq, 6), 0);
	post_flushed(r, 7, 2);
	assert_int_equal(uroce_cq_poll(cq, wc, 0), 0); /* no overrun */
	assert_int_equal(uroce_cq_poll(cq, wc, 8), 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(wc[i].wr_id, (uint64_t)i + 3);
	/* Shrunk to 2: the third completion overruns it. */
	assert_int_equal(uroce_cq_resize(cq, 2), 0);
	post_flushed(r, 9, 3);
	assert_int_equal(uroce_cq_poll(cq, wc, 8), 2);
	assert_int_equal(uroce_cq_poll(cq, wc, 8), UROCE_EIO);
	h_buf_free(&b);
	inj_free(t);
}

/* A recording allocator: the blocks it gave and took back, by use. */
struct rec_mem {
	int given[4], taken[4];
	size_t size[4];
	void *block[4];
	bool use_default, fail;
};

static void *rec_alloc(void *ctx, size_t size, size_t align, enum uroce_mem_use use)
{
	struct rec_mem *m = ctx;

	assert_int_equal(align, 64);
	if (m->fail)
		return NULL;
	if (m->use_default)
		return UROCE_MEM_DEFAULT;
	void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
	assert_non_null(p);
	memset(p, 0, size);
	m->given[use]++;
	m->size[use] = size;
	m->block[use] = p;
	return p;
}

static void rec_free(void *ctx, void *ptr, enum uroce_mem_use use)
{
	struct rec_mem *m = ctx;

	assert_ptr_equal(ptr, m->block[use]);
	m->taken[use]++;
	free(ptr);
}

/* The rings of a QP (send queue, own receive queue) and of an SRQ come from the allocator
 * given at creation, one block each, and go back to it at destroy; UROCE_MEM_DEFAULT makes
 * the engine allocate, NULL fails the creation; objects the device still has at its end are
 * not given back (their allocator may be gone). Work goes through rings of either kind. */
static void test_queue_memory(void **state)
{
	struct h_net *net = h_net_new(1, 2, false, NULL);
	struct uroce_pd *pd = net->node[0].pd;
	struct uroce_cq *cq = net->node[0].cq;
	struct rec_mem m = {0};
	struct uroce_mem mem = {rec_alloc, rec_free, &m};
	struct uroce_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = UROCE_QPT_RC,
					  .cap = {.max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 2,
						  .max_recv_sge = 3, .max_inline_data = 64},
					  .mem = &mem};
	struct uroce_qp *qp, *qp2;
	struct uroce_srq *srq;
	(void)state;

	assert_int_equal(uroce_qp_create(pd, &init, &qp), 0);
	assert_int_equal(m.given[UROCE_MEM_SQ], 1);
	assert_int_equal(m.given[UROCE_MEM_RQ], 1);
	assert_true(m.size[UROCE_MEM_SQ] >= 8 * (2 * sizeof(struct uroce_sge) + 64));
	assert_true(m.size[UROCE_MEM_RQ] >= 4 * 3 * sizeof(struct uroce_sge));
	struct uroce_srq_attr sa = {.max_wr = 4, .max_sge = 1, .mem = &mem};
	assert_int_equal(uroce_srq_create(pd, &sa, &srq), 0);
	assert_int_equal(m.given[UROCE_MEM_SRQ], 1);

	/* Traffic both ways through custom rings: qp (its own receive queue) and a QP on
	 * node 1. */
	struct h_qp_opts o = {.type = UROCE_QPT_RC};
	struct h_buf b0 = h_buf_new(net, 0, 4096, H_ALL_ACCESS, 1);
	struct h_buf b1 = h_buf_new(net, 1, 4096, H_ALL_ACCESS, 2);
	struct uroce_qp *peer = h_qp_create(net, 1, &o, NULL);
	h_qp_rts(net, qp, 0, 1, uroce_qp_num(peer), &o, 0, 0);
	h_qp_rts(net, peer, 1, 0, uroce_qp_num(qp), &o, 0, 0);
	struct uroce_wc wc;
	h_post_recv(peer, 7, &b1, 0, 256);
	h_post_send(qp, UROCE_WR_SEND, 1, &b0, 0, 64, 0, 0, UROCE_SEND_INLINE);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 1, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 7, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	assert_memory_equal(b1.p, b0.p, 64);
	h_post_recv(qp, 8, &b0, 1024, 256);
	h_post_send(peer, UROCE_WR_SEND, 2, &b1, 512, 256, 0, 0, 0);
	h_run(net, UINT64_MAX);
	wc = h_poll1(net, 0);
	h_expect_wc(&wc, 8, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	wc = h_poll1(net, 1);
	h_expect_wc(&wc, 2, UROCE_WC_SUCCESS, UROCE_WC_SEND);
	assert_memory_equal(b0.p + 1024, b1.p + 512, 256);
	assert_int_equal(uroce_qp_destroy(peer), 0);

	assert_int_equal(uroce_qp_destroy(qp), 0);
	assert_int_equal(m.taken[UROCE_MEM_SQ], 1);
	assert_int_equal(m.taken[UROCE_MEM_RQ], 1);
	assert_int_equal(uroce_srq_destroy(srq), 0);
	assert_int_equal(m.taken[UROCE_MEM_SRQ], 1);

	/* The engine's own memory on request; a failing allocator fails the creation. */
	m.use_default = true;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), 0);
	assert_int_equal(uroce_qp_destroy(qp), 0);
	m.use_default = false;
	m.fail = true;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), UROCE_ENOMEM);
	assert_int_equal(uroce_srq_create(pd, &sa, &srq), UROCE_ENOMEM);
	m.fail = false;
	assert_int_equal(m.given[UROCE_MEM_SQ], 1);
	assert_int_equal(m.taken[UROCE_MEM_SQ], 1);

	/* Left to the device's end: not given back. */
	assert_int_equal(uroce_qp_create(pd, &init, &qp2), 0);
	void *left = m.block[UROCE_MEM_SQ], *left_rq = m.block[UROCE_MEM_RQ];
	h_buf_free(&b0);
	h_buf_free(&b1);
	h_net_free(net);
	assert_int_equal(m.taken[UROCE_MEM_SQ], 1);
	assert_int_equal(m.taken[UROCE_MEM_RQ], 1);
	free(left);
	free(left_rq);
}

/* Destroying an object drops its events not yet taken (as the kernel's verbs do): nobody is
 * handed a pointer to it afterwards. Two QPs on one SRQ reach the last WQE (IBA 11.6.3.1)
 * and a CQ overruns; the first QP and then the CQ go before the events are taken. */
static void test_IBA11_6_3_destroyed_objects_lose_their_events(void **state)
{
	struct uroce_dev *dev = dev_new();
	struct uroce_pd *pd;
	struct uroce_cq *cq, *small;
	struct uroce_srq *srq;
	struct uroce_qp *a, *b, *c;
	struct uroce_async_event ev;
	(void)state;

	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_cq_create(dev, 16, &cq), 0);
	assert_int_equal(uroce_cq_create(dev, 1, &small), 0);
	struct uroce_srq_attr sa = {.max_wr = 8, .max_sge = 1};
	assert_int_equal(uroce_srq_create(pd, &sa, &srq), 0);
	struct uroce_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .srq = srq,
					  .qp_type = UROCE_QPT_RC, .cap = {.max_send_wr = 4}};
	assert_int_equal(uroce_qp_create(pd, &init, &a), 0);
	assert_int_equal(uroce_qp_create(pd, &init, &b), 0);
	init = (struct uroce_qp_init_attr){.send_cq = small, .recv_cq = small,
					   .qp_type = UROCE_QPT_RC,
					   .cap = {.max_send_wr = 4, .max_recv_wr = 4}};
	assert_int_equal(uroce_qp_create(pd, &init, &c), 0);
	struct uroce_qp_attr err = {.qp_state = UROCE_QPS_ERR};
	assert_int_equal(uroce_qp_modify(a, &err, UROCE_QPA_STATE), 0);
	assert_int_equal(uroce_qp_modify(b, &err, UROCE_QPA_STATE), 0);
	assert_int_equal(uroce_qp_modify(c, &err, UROCE_QPA_STATE), 0);
	struct uroce_recv_wr r[3] = {{.wr_id = 1, .next = &r[1]}, {.wr_id = 2, .next = &r[2]},
				     {.wr_id = 3}};
	const struct uroce_recv_wr *bad;
	assert_int_equal(uroce_post_recv(c, r, &bad), 0);
	uroce_dev_take_posted(dev);
	uroce_dev_publish(dev); /* 3 flushed receives in a CQ of 1 (2 slots): CQ_ERR */

	assert_int_equal(uroce_qp_destroy(a), 0);
	assert_int_equal(uroce_qp_destroy(c), 0);
	assert_int_equal(uroce_cq_destroy(small), 0);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, b);
	assert_int_equal(uroce_dev_get_async_event(dev, &ev), 0);
	assert_int_equal(uroce_qp_destroy(b), 0);
	assert_int_equal(uroce_srq_destroy(srq), 0);
	assert_int_equal(uroce_cq_destroy(cq), 0);
	assert_int_equal(uroce_pd_dealloc(pd), 0);
	uroce_dev_free(dev);
}

static void test_objects_in_use(void **state)
{
	struct uroce_dev *dev = dev_new();
	struct uroce_pd *pd, *pd2;
	struct uroce_cq *cq;
	struct uroce_srq *srq;
	struct uroce_ah *ah;
	struct uroce_qp *qp;
	(void)state;

	assert_int_equal(uroce_pd_alloc(dev, &pd), 0);
	assert_int_equal(uroce_pd_alloc(dev, &pd2), 0);
	assert_int_equal(uroce_cq_create(dev, 16, &cq), 0);
	struct uroce_srq_attr sa = {.max_wr = 8, .max_sge = 2, .srq_limit = 9};
	assert_int_equal(uroce_srq_create(pd, &sa, &srq), UROCE_EINVAL); /* limit > max_wr */
	sa.srq_limit = 0;
	sa.max_wr = 0;
	assert_int_equal(uroce_srq_create(pd, &sa, &srq), UROCE_EINVAL);
	sa.max_wr = 8;
	assert_int_equal(uroce_srq_create(pd, &sa, &srq), 0);
	struct uroce_ah_attr aa = {.dgid = h_addr(1, false), .port_num = 1};
	assert_int_equal(uroce_ah_create(pd, &aa, &ah), 0);
	aa.dgid = h_addr(1, true); /* IPv6 peer from an IPv4 GID */
	struct uroce_ah *bad_ah;
	assert_int_equal(uroce_ah_create(pd, &aa, &bad_ah), UROCE_EINVAL);
	aa.dgid = h_addr(1, false);
	aa.sgid_index = 1;
	assert_int_equal(uroce_ah_create(pd, &aa, &bad_ah), UROCE_EINVAL);
	/* An SRQ of another PD, a missing CQ, capabilities over the limits. */
	struct uroce_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .srq = srq,
					  .qp_type = UROCE_QPT_RC, .cap = {.max_send_wr = 4}};
	assert_int_equal(uroce_qp_create(pd2, &init, &qp), UROCE_EINVAL);
	init.recv_cq = NULL;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), UROCE_EINVAL);
	init.recv_cq = cq;
	init.cap.max_inline_data = UROCE_MAX_INLINE + 1;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), UROCE_EINVAL);
	init.cap.max_inline_data = 0;
	/* 0 would be the SMI (QP0: no subnet management over RoCEv2, CA17-33), 7 is no type. */
	init.qp_type = 0;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), UROCE_EINVAL);
	init.qp_type = 7;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), UROCE_EINVAL);
	init.qp_type = UROCE_QPT_RC;
	assert_int_equal(uroce_qp_create(pd, &init, &qp), 0);
	assert_true(uroce_qp_num(qp) >= 16 && uroce_qp_num(qp) <= 0xFFFFFF);
	assert_int_equal(uroce_qp_state(qp), UROCE_QPS_RESET);
	assert_int_equal(uroce_srq_destroy(srq), UROCE_EBUSY);
	assert_int_equal(uroce_cq_destroy(cq), UROCE_EBUSY);
	assert_int_equal(uroce_pd_dealloc(pd), UROCE_EBUSY);
	/* A QP on an SRQ takes no receive requests of its own. */
	struct uroce_recv_wr rwr = {.wr_id = 1};
	const struct uroce_recv_wr *rbad;
	assert_int_equal(uroce_post_recv(qp, &rwr, &rbad), UROCE_EINVAL);
	assert_int_equal(uroce_qp_destroy(qp), 0);
	assert_int_equal(uroce_srq_destroy(srq), 0);
	assert_int_equal(uroce_ah_destroy(ah), 0);
	assert_int_equal(uroce_pd_dealloc(pd), 0);
	assert_int_equal(uroce_cq_destroy(cq), 0);
	uroce_dev_free(dev);
}

/* ---- the QP state machine ---- */

#define S(x) UROCE_QPS_##x
#define M(x) UROCE_QPA_##x

/* IBA 11.2.4.2, restated here independently of src/engine/qp.c: every legal transition and
 * the attributes it requires, per type (RC, UC, UD). */
struct legal {
	enum uroce_qp_state from, to;
	unsigned types; /* bit 0 RC, 1 UC, 2 UD */
	unsigned req[3];
};

static const struct legal legal[] = {
	{S(RESET), S(RESET), 7, {0}},
	{S(RESET), S(INIT), 7,
	 {M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
	  M(PKEY_INDEX) | M(PORT) | M(QKEY)}},
	{S(INIT), S(INIT), 7, {0}},
	{S(INIT), S(RTR), 7,
	 {M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
	  M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN), 0}},
	{S(RTR), S(RTS), 7,
	 {M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC), M(SQ_PSN),
	  M(SQ_PSN)}},
	{S(RTS), S(RTS), 7, {0}},
	{S(RTS), S(SQD), 7, {0}},
	{S(SQD), S(RTS), 7, {0}},
	{S(SQD), S(SQD), 7, {0}},
	{S(SQE), S(RTS), 6, {0}},
};

static const unsigned qp_types[3] = {UROCE_QPT_RC, UROCE_QPT_UC, UROCE_QPT_UD};

static bool is_legal(enum uroce_qp_state from, enum uroce_qp_state to, int t, unsigned *req)
{
	*req = 0;
	if (to == S(RESET) || to == S(ERR))
		return from != S(SQE) || t != 0; /* RC never is in SQE */
	for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
		if (legal[i].from == from && legal[i].to == to && legal[i].types & 1u << t) {
			*req = legal[i].req[t];
			return true;
		}
	return false;
}

/* Valid values for every attribute. */
static struct uroce_qp_attr good_attr(void)
{
	struct uroce_qp_attr a = {0};
	a.qkey = 0x1234;
	a.qp_access_flags = UROCE_ACCESS_REMOTE_WRITE;
	a.port_num = 1;
	a.ah_attr.dgid = h_addr(1, false);
	a.ah_attr.port_num = 1;
	a.path_mtu = UROCE_MTU_1024;
	a.dest_qp_num = 0x123456;
	a.rq_psn = 0xABCDEF;
	a.sq_psn = 0x123;
	a.max_dest_rd_atomic = 4;
	a.max_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return a;
}

struct qp_env {
	struct uroce_dev *dev;
	struct uroce_pd *pd;
	struct uroce_cq *cq;
	struct uroce_mr *mr;
	uint8_t buf[64];
};

static struct uroce_qp *qp_new(struct qp_env *e, int t)
{
	struct uroce_qp_init_attr init = {.send_cq = e->cq, .recv_cq = e->cq, .qp_type = qp_types[t],
					  .cap = {.max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1}};
	struct uroce_qp *qp;
	assert_int_equal(uroce_qp_create(e->pd, &init, &qp), 0);
	return qp;
}

static void go(struct uroce_qp *qp, int t, enum uroce_qp_state to)
{
	unsigned req;
	struct uroce_qp_attr a = good_attr();
	assert_true(is_legal(uroce_qp_state(qp), to, t, &req));
	a.qp_state = to;
	assert_int_equal(uroce_qp_modify(qp, &a, M(STATE) | req), 0);
	assert_int_equal(uroce_qp_state(qp), to);
}

/* A fresh QP of type t brought to state s the way a consumer would. */
static struct uroce_qp *qp_in(struct qp_env *e, int t, enum uroce_qp_state s)
{
	struct uroce_qp *qp = qp_new(e, t);
	static const enum uroce_qp_state path[] = {S(INIT), S(RTR), S(RTS)};

	if (s == S(RESET))
		return qp;
	if (s == S(ERR)) {
		go(qp, t, S(ERR));
		return qp;
	}
	for (int i = 0; i < 3; i++) {
		go(qp, t, path[i]);
		if (path[i] == s)
			return qp;
	}
	if (s == S(SQD)) {
		go(qp, t, S(SQD));
		return qp;
	}
	/* SQE: a UC/UD send that fails locally (here: an L_Key that names nothing). */
	struct uroce_sge sge = {.addr = 0x1000, .length = 8, .lkey = 0x777};
	struct uroce_send_wr wr = {.wr_id = 9, .sg_list = &sge, .num_sge = 1,
				   .opcode = UROCE_WR_SEND};
	struct uroce_ah *ah = NULL;
	struct uroce_ah_attr aa = {.dgid = h_addr(1, false), .port_num = 1};
	const struct uroce_send_wr *bad;
	if (qp_types[t] == UROCE_QPT_UD) {
		assert_int_equal(uroce_ah_create(e->pd, &aa, &ah), 0);
		wr.wr.ud.ah = ah;
	}
	assert_int_equal(uroce_post_send(qp, &wr, &bad), 0);
	uint8_t pkt[UROCE_MAX_DATAGRAM];
	struct uroce_io_pkt io = {.data = pkt, .cap = sizeof(pkt)};
	struct uroce_txbatch tx = {.pkts = &io, .max = 1};
	assert_int_equal(uroce_dev_write(e->dev, &tx, 0), 0);
	uroce_dev_publish(e->dev);
	assert_int_equal(uroce_qp_state(qp), S(SQE));
	struct uroce_wc wc;
	assert_int_equal(uroce_cq_poll(e->cq, &wc, 1), 1);
	h_expect_wc(&wc, 9, UROCE_WC_LOC_PROT_ERR, UROCE_WC_SEND);
	if (ah)
		uroce_ah_destroy(ah);
	return qp;
}

/* Every (from, to) pair for every type: legal ones succeed with exactly their required
 * attributes and fail without any one of them or with one attribute too many; illegal ones
 * fail even with everything; a failed modify changes nothing. */
static void test_IBA11_2_4_2_every_transition(void **state)
{
	struct qp_env e = {0};
	unsigned tried_legal = 0, tried_illegal = 0;
	(void)state;

	e.dev = dev_new();
	assert_int_equal(uroce_pd_alloc(e.dev, &e.pd), 0);
	assert_int_equal(uroce_cq_create(e.dev, 64, &e.cq), 0);
	for (int t = 0; t < 3; t++) {
		for (int from = 0; from < UROCE_QPS_COUNT; from++) {
			if (from == S(SQE) && t == 0)
				continue; /* unreachable for RC */
			for (int to = 0; to < UROCE_QPS_COUNT; to++) {
				unsigned req;
				bool ok = is_legal(from, to, t, &req);
				struct uroce_qp_attr a = good_attr();
				struct uroce_qp *qp = qp_in(&e, t, from);
				a.qp_state = to;
				if (!ok) {
					/* Everything, to be sure the state pair is what fails. */
					assert_int_equal(uroce_qp_modify(qp, &a, M(STATE) | req),
							 UROCE_EINVAL);
					for (unsigned bit = 1; bit; bit <<= 1)
						if (uroce_qp_attr_name(bit))
							assert_int_equal(
								uroce_qp_modify(qp, &a, M(STATE) | bit),
								UROCE_EINVAL);
					assert_int_equal(uroce_qp_state(qp), from);
					tried_illegal++;
					uroce_qp_destroy(qp);
					continue;
				}
				/* Each required attribute left out. */
				for (unsigned bit = 1; bit; bit <<= 1) {
					if (!(req & bit))
						continue;
					assert_int_equal(uroce_qp_modify(qp, &a, M(STATE) | (req & ~bit)),
							 UROCE_EINVAL);
					assert_int_equal(uroce_qp_state(qp), from);
				}
				/* An attribute no transition of this type accepts here: DEST_QPN
				 * is only ever accepted at INIT -> RTR. */
				if (!(from == S(INIT) && to == S(RTR))) {
					assert_int_equal(uroce_qp_modify(qp, &a, M(STATE) | req |
										 M(DEST_QPN)),
							 UROCE_EINVAL);
					assert_int_equal(uroce_qp_state(qp), from);
				}
				assert_int_equal(uroce_qp_modify(qp, &a, M(STATE) | req), 0);
				assert_int_equal(uroce_qp_state(qp), to);
				tried_legal++;
				uroce_qp_destroy(qp);
			}
		}
	}
	/* 3 types x 7 x 7 pairs, less RC's SQE row: 140; legal ones: RC 20, UC and UD 23
	 * (the SQE row). */
	assert_int_equal(tried_legal + tried_illegal, 3 * 49 - 7);
	assert_int_equal(tried_legal, 20 + 23 + 23);
	uroce_dev_free(e.dev);
}

/* Optional attributes that depend on the type, and values out of range. */
static void test_IBA11_2_4_2_attribute_values(void **state)
{
	struct qp_env e = {0};
	struct uroce_qp_attr a;
	unsigned rtr_rc = M(STATE) | M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
			  M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER);
	unsigned rts_rc = M(STATE) | M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
			  M(MAX_QP_RD_ATOMIC);
	(void)state;

	e.dev = dev_new();
	assert_int_equal(uroce_pd_alloc(e.dev, &e.pd), 0);
	assert_int_equal(uroce_cq_create(e.dev, 64, &e.cq), 0);

	/* Q_Key belongs to UD, access flags to RC/UC. */
	struct uroce_qp *rc = qp_new(&e, 0), *ud = qp_new(&e, 2), *uc;
	a = good_attr();
	a.qp_state = S(INIT);
	assert_int_equal(uroce_qp_modify(rc, &a, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(QKEY)),
			 UROCE_EINVAL);
	assert_int_equal(uroce_qp_modify(ud, &a, M(STATE) | M(PKEY_INDEX) | M(PORT) |
							 M(ACCESS_FLAGS)),
			 UROCE_EINVAL);
	/* Values: P_Key index, port, access bits. */
	a.pkey_index = 1;
	assert_int_equal(uroce_qp_modify(rc, &a, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS)),
			 UROCE_EINVAL);
	a = good_attr();
	a.qp_state = S(INIT);
	a.port_num = 2;
	assert_int_equal(uroce_qp_modify(rc, &a, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS)),
			 UROCE_EINVAL);
	a.port_num = 1;
	a.qp_access_flags = 1u << 20;
	assert_int_equal(uroce_qp_modify(rc, &a, M(STATE) | M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS)),
			 UROCE_EINVAL);
	/* cur_state must be the current state. */
	a = good_attr();
	a.qp_state = S(INIT);
	a.cur_qp_state = S(RTS);
	assert_int_equal(uroce_qp_modify(rc, &a, M(STATE) | M(CUR_STATE) | M(PKEY_INDEX) | M(PORT) |
							 M(ACCESS_FLAGS)),
			 UROCE_EINVAL); /* and CUR_STATE is not accepted at RESET -> INIT */
	assert_int_equal(uroce_qp_state(rc), S(RESET));
	go(rc, 0, S(INIT));

	/* INIT -> RTR value checks, one at a time. */
	struct uroce_qp_attr vals[10];
	for (int i = 0; i < 10; i++) {
		vals[i] = good_attr();
		vals[i].qp_state = S(RTR);
	}
	vals[0].path_mtu = 0;
	vals[1].path_mtu = 6;
	vals[2].dest_qp_num = 0x1000000;
	vals[3].rq_psn = 0x1000000;
	vals[4].max_dest_rd_atomic = UROCE_MAX_RD_ATOMIC + 1;
	vals[5].min_rnr_timer = 32;
	vals[6].ah_attr.sgid_index = 1;
	vals[7].ah_attr.dgid = h_addr(1, true);
	vals[8].ah_attr.port_num = 0;
	vals[9].ah_attr.flow_label = 0x100000;
	for (int i = 0; i < 10; i++) {
		assert_int_equal(uroce_qp_modify(rc, &vals[i], rtr_rc), UROCE_EINVAL);
		assert_int_equal(uroce_qp_state(rc), S(INIT));
	}
	a = good_attr();
	a.qp_state = S(RTR);
	assert_int_equal(uroce_qp_modify(rc, &a, rtr_rc), 0);

	/* RTR -> RTS value checks. */
	for (int i = 0; i < 5; i++) {
		vals[i] = good_attr();
		vals[i].qp_state = S(RTS);
	}
	vals[0].timeout = 32;
	vals[1].retry_cnt = 8;
	vals[2].rnr_retry = 8;
	vals[3].sq_psn = 0x1000000;
	vals[4].max_rd_atomic = UROCE_MAX_RD_ATOMIC + 1;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(uroce_qp_modify(rc, &vals[i], rts_rc), UROCE_EINVAL);
		assert_int_equal(uroce_qp_state(rc), S(RTR));
	}
	/* min_rnr_timer is optional at RTR -> RTS for RC, not for UC. */
	a = good_attr();
	a.qp_state = S(RTS);
	assert_int_equal(uroce_qp_modify(rc, &a, rts_rc | M(MIN_RNR_TIMER)), 0);
	struct uroce_qp_attr q;
	struct uroce_qp_init_attr qi;
	uroce_qp_query(rc, &q, &qi);
	assert_int_equal(q.qp_state, S(RTS));
	assert_int_equal(q.sq_psn, 0x123);
	assert_int_equal(q.rq_psn, 0xABCDEF);
	assert_int_equal(q.dest_qp_num, 0x123456);
	assert_int_equal(q.path_mtu, UROCE_MTU_1024);
	assert_int_equal(q.timeout, 14);
	assert_int_equal(qi.qp_type, UROCE_QPT_RC);
	assert_ptr_equal(qi.send_cq, e.cq);

	uc = qp_new(&e, 1);
	go(uc, 1, S(INIT));
	go(uc, 1, S(RTR));
	a = good_attr();
	a.qp_state = S(RTS);
	assert_int_equal(uroce_qp_modify(uc, &a, M(STATE) | M(SQ_PSN) | M(MIN_RNR_TIMER)),
			 UROCE_EINVAL);
	assert_int_equal(uroce_qp_modify(uc, &a, M(STATE) | M(SQ_PSN) | M(ACCESS_FLAGS)), 0);
	/* Posting: not before RTS. */
	struct uroce_qp *fresh = qp_new(&e, 0);
	struct uroce_send_wr wr = {.opcode = UROCE_WR_SEND};
	const struct uroce_send_wr *bad_wr;
	assert_int_equal(uroce_post_send(fresh, &wr, &bad_wr), UROCE_EINVAL);
	assert_ptr_equal(bad_wr, &wr);
	struct uroce_recv_wr rwr = {0};
	const struct uroce_recv_wr *bad_rwr;
	assert_int_equal(uroce_post_recv(fresh, &rwr, &bad_rwr), UROCE_EINVAL);
	go(fresh, 0, S(INIT));
	assert_int_equal(uroce_post_recv(fresh, &rwr, &bad_rwr), 0);
	assert_int_equal(uroce_post_send(fresh, &wr, &bad_wr), UROCE_EINVAL);
	/* Opcodes by type: READ and atomics are RC only, SEND_WITH_INV too. */
	wr.opcode = UROCE_WR_RDMA_READ;
	assert_int_equal(uroce_post_send(uc, &wr, &bad_wr), UROCE_EINVAL);
	wr.opcode = UROCE_WR_SEND_WITH_INV;
	assert_int_equal(uroce_post_send(uc, &wr, &bad_wr), UROCE_EINVAL);
	wr.opcode = 8; /* BIND_MW: not supported */
	assert_int_equal(uroce_post_send(rc, &wr, &bad_wr), UROCE_EINVAL);
	/* An atomic needs an 8-byte result buffer. */
	struct uroce_sge sge = {.addr = 0x1000, .length = 4, .lkey = 1};
	wr = (struct uroce_send_wr){.opcode = UROCE_WR_ATOMIC_FETCH_AND_ADD, .sg_list = &sge,
				    .num_sge = 1};
	assert_int_equal(uroce_post_send(rc, &wr, &bad_wr), UROCE_EINVAL);
	/* Too many SGEs, too much inline data. */
	struct uroce_sge sges[2] = {{.length = 1}, {.length = 1}};
	wr = (struct uroce_send_wr){.opcode = UROCE_WR_SEND, .sg_list = sges, .num_sge = 2};
	assert_int_equal(uroce_post_send(rc, &wr, &bad_wr), UROCE_EINVAL);
	uint8_t big[300];
	sges[0] = (struct uroce_sge){.addr = (uintptr_t)big, .length = sizeof(big)};
	wr = (struct uroce_send_wr){.opcode = UROCE_WR_SEND, .sg_list = sges, .num_sge = 1,
				    .send_flags = UROCE_SEND_INLINE};
	assert_int_equal(uroce_post_send(rc, &wr, &bad_wr), UROCE_EINVAL); /* max_inline_data 0 */
	/* The send queue holds max_send_wr requests. */
	wr = (struct uroce_send_wr){.opcode = UROCE_WR_SEND};
	struct uroce_send_wr chain[5];
	for (int i = 0; i < 5; i++) {
		chain[i] = wr;
		chain[i].wr_id = (uint64_t)i;
		chain[i].next = i < 4 ? &chain[i + 1] : NULL;
	}
	assert_int_equal(uroce_post_send(rc, chain, &bad_wr), UROCE_EFULL);
	assert_ptr_equal(bad_wr, &chain[4]);
	uroce_dev_free(e.dev);
}

/* RTS -> SQD: the SQ drains and SQ_DRAINED is raised when asked for (IBA 11.6.3.1);
 * attributes change in SQD only once drained. */
static void test_IBA10_3_1_sqd_drains(void **state)
{
	struct qp_env e = {0};
	struct uroce_async_event ev;
	(void)state;

	e.dev = dev_new();
	assert_int_equal(uroce_pd_alloc(e.dev, &e.pd), 0);
	assert_int_equal(uroce_cq_create(e.dev, 64, &e.cq), 0);
	struct uroce_qp *qp = qp_in(&e, 0, S(RTS));
	struct uroce_qp_attr a = good_attr();
	a.qp_state = S(SQD);
	a.en_sqd_async_notify = true;
	assert_int_equal(uroce_qp_modify(qp, &a, M(STATE) | M(EN_SQD_ASYNC_NOTIFY)), 0);
	/* Nothing was in flight: drained at once. */
	assert_int_equal(uroce_dev_get_async_event(e.dev, &ev), 1);
	assert_int_equal(ev.type, UROCE_EVENT_SQ_DRAINED);
	assert_ptr_equal(ev.element.qp, qp);
	uroce_qp_query(qp, &a, NULL);
	assert_false(a.sq_draining);
	a = good_attr();
	a.timeout = 3;
	assert_int_equal(uroce_qp_modify(qp, &a, M(TIMEOUT)), 0); /* SQD -> SQD */
	a.qp_state = S(RTS);
	assert_int_equal(uroce_qp_modify(qp, &a, M(STATE)), 0);
	uroce_qp_query(qp, &a, NULL);
	assert_int_equal(a.timeout, 3);
	uroce_dev_free(e.dev);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(uroce_qp_state_name(UROCE_QPS_RTS), "RTS");
	assert_string_equal(uroce_qp_state_name(UROCE_QPS_SQE), "SQE");
	assert_null(uroce_qp_state_name(UROCE_QPS_COUNT));
	assert_string_equal(uroce_wc_status_name(UROCE_WC_WR_FLUSH_ERR), "WR_FLUSH_ERR");
	assert_string_equal(uroce_wc_status_name(UROCE_WC_RNR_RETRY_EXC_ERR), "RNR_RETRY_EXC_ERR");
	assert_int_equal(UROCE_WC_RETRY_EXC_ERR, 12); /* ibv_wc_status values */
	assert_int_equal(UROCE_WC_REM_ACCESS_ERR, 10);
	assert_string_equal(uroce_wr_opcode_name(UROCE_WR_ATOMIC_FETCH_AND_ADD),
			    "ATOMIC_FETCH_AND_ADD");
	assert_null(uroce_wr_opcode_name(8));
	assert_string_equal(uroce_event_name(UROCE_EVENT_SRQ_LIMIT_REACHED), "SRQ_LIMIT_REACHED");
	assert_string_equal(uroce_qp_attr_name(UROCE_QPA_MAX_DEST_RD_ATOMIC), "max_dest_rd_atomic");
	assert_null(uroce_qp_attr_name(1u << 14));
	assert_string_equal(uroce_counter_name(UROCE_CNT_sent_pkts), "sent_pkts");
	assert_string_equal(uroce_counter_name(UROCE_CNT_rdma_recvs), "rdma_recvs");
	assert_null(uroce_counter_name(UROCE_NCOUNTERS));
	/* rxe's fifteen come first, in its order (facts.md section 3). */
	static const char *const rxe[] = {
		"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
		"send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
		"retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed",
		"rdma_sends", "rdma_recvs"};
	for (unsigned i = 0; i < sizeof(rxe) / sizeof(rxe[0]); i++)
		assert_string_equal(uroce_counter_name(i), rxe[i]);
	for (enum uroce_counter c = 0; c < UROCE_NCOUNTERS; c++)
		assert_non_null(uroce_counter_desc(c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_cfg_checked),
		cmocka_unit_test(test_IBA10_6_3_mr_registration),
		cmocka_unit_test(test_mr_rereg),
		cmocka_unit_test(test_range_check_overflow_safe),
		cmocka_unit_test(test_IBA11_6_3_cq_overrun),
		cmocka_unit_test(test_cq_drop_qp),
		cmocka_unit_test(test_IBA11_2_7_3_cq_resize),
		cmocka_unit_test(test_queue_memory),
		cmocka_unit_test(test_IBA11_6_3_destroyed_objects_lose_their_events),
		cmocka_unit_test(test_objects_in_use),
		cmocka_unit_test(test_qpn_cyclic),
		cmocka_unit_test(test_qpn_range),
		cmocka_unit_test(test_IBA11_2_4_2_every_transition),
		cmocka_unit_test(test_IBA11_2_4_2_attribute_values),
		cmocka_unit_test(test_IBA10_3_1_sqd_drains),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

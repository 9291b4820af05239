/* SPDX-License-Identifier: MIT */
/* uroce-demo: the live demonstration. One command forks; the child becomes the server on one
 * address (UROCE_IP, 127.0.0.2 by default), the parent the client on another (127.0.0.1).
 * They swap QP number, PSN, GID, rkey and address over a socket pair made before the fork,
 * connect one RC queue pair each through the standard verbs API, and the client drives the
 * steps: SEND/RECV, RDMA WRITE announced by a SEND with immediate, RDMA READ, FETCH_AND_ADD and
 * CMP_AND_SWAP, each checked byte for byte on the side that received the data, then the
 * throughput of RDMA WRITEs and the latency of a SEND ping-pong. The client prints one report
 * line per step with PASS or FAIL; the exit status is 0 when every step passed.
 *
 * The server does nothing on its own: it answers the client's commands on the socket (check
 * the next received message, check a memory area, answer pings) and replies with a verdict.
 * The passive side of WRITE, READ and the atomics needs no command at all: uroce's progress
 * thread answers, as a NIC would. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/echo.h"
#include "demo.h"
#include "io/impair.h"

enum { EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Pattern seeds: one per step, so that data from one step can never pass for another's. */
enum { SEED_SEND = 1, SEED_WRITE, SEED_READ, SEED_BULK, SEED_PING };

#define STEP_TIMEOUT 30.0 /* seconds any single completion may take, retries included */
#define WRITE_IMM 0x5eed0001u
#define CAS_SWAP UINT64_C(0xc0ffee0000c0ffee)
#define CAS_STALE UINT64_C(0xdeadbeef)

struct options {
	const char *server_ip, *client_ip;
	const char *capture;
	const char *impair;
	size_t size;          /* throughput RDMA WRITE size */
	long iters;           /* 0: throughput by time, latency DEFAULT_LAT_ITERS */
	double seconds;       /* throughput phase length when iters is 0 */
	bool dump;            /* run uroce-dump --flows on the capture */
};

#define DEFAULT_LAT_ITERS 10000

/* ---- The control channel ---- */

enum ctl_type {
	CTL_INFO = 1, /* both: info */
	CTL_READY,    /* server: connected, receive slots posted */
	CTL_ERROR,    /* either: setup failed (text) */
	CMD_SEND,     /* check the next received message: arg0 length, arg1 seed */
	CMD_WRITE,    /* a SEND with immediate arg2 announces arg0 bytes of seed arg1 */
	CMD_ATOMIC,   /* the word must hold arg0 */
	CMD_BULK,     /* the bulk area must hold arg0 bytes of seed arg1 */
	CMD_PONG,     /* answer arg0 pings */
	CMD_QUIT,
	CTL_RESULT,   /* server: ok, text */
};

struct ctl {
	uint32_t type;
	int32_t ok;
	uint64_t arg[4];
	struct demo_info info;
	char text[240];
};

static int ctl_send(int sock, const struct ctl *m)
{
	ssize_t n;

	do
		n = send(sock, m, sizeof(*m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* Waits up to timeout_s seconds (negative: forever). Returns 0, or -1 on timeout, end of
 * file (the peer died) or a short message. */
static int ctl_recv(int sock, struct ctl *m, double timeout_s)
{
	struct pollfd pfd = {.fd = sock, .events = POLLIN};
	ssize_t n;
	int r;

	do
		r = poll(&pfd, 1, timeout_s < 0 ? -1 : (int)(timeout_s * 1000));
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	n = recv(sock, m, sizeof(*m), 0);
	return n == (ssize_t)sizeof(*m) ? 0 : -1;
}

static void ctl_simple(int sock, uint32_t type, uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct ctl m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.arg[0] = a0, m.arg[1] = a1, m.arg[2] = a2;
	ctl_send(sock, &m);
}

/* Has the other process gone (its end of the socket closed)? Checked while waiting on a
 * completion queue, so that a crashed peer costs a message, not STEP_TIMEOUT. On the server,
 * any message at all interrupts the wait: the client only sends one mid-step when it gave
 * up. */
static bool peer_gone(int sock, bool any_message)
{
	struct pollfd pfd = {.fd = sock, .events = any_message ? POLLIN : 0};

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLIN));
}

/* One completion from cq, watching the peer: 1, 0 on timeout, -1 on a poll error, -2 when
 * the peer went away. */
static int wait_cq(struct ibv_cq *cq, struct ibv_wc *wc, int sock, bool server)
{
	double deadline = demo_now() + STEP_TIMEOUT;
	int r;

	for (;;) {
		if ((r = demo_wait(cq, wc, 0.05)) != 0)
			return r;
		if (peer_gone(sock, server))
			return -2;
		if (demo_now() > deadline)
			return 0;
	}
}

static void describe_wait(char *out, size_t len, const char *what, int r, const struct ibv_wc *wc)
{
	if (r == 1)
		snprintf(out, len, "%s: completion status %s (vendor error 0x%x)", what,
			 ibv_wc_status_str(wc->status), wc->vendor_err);
	else if (r == 0)
		snprintf(out, len, "%s: no completion within %.0f s", what, STEP_TIMEOUT);
	else if (r == -2)
		snprintf(out, len, "%s: the other process went away", what);
	else
		snprintf(out, len, "%s: ibv_poll_cq failed", what);
}

/* A receive flushed because the QP broke says nothing of why it broke: the cause, if any,
 * is the first send completion in error that is not itself a flush (RETRY_EXC_ERR when the
 * peer stopped answering, say). Describes that one when there is one, else the receive. */
static void describe_recv_wait(char *out, size_t len, struct demo_ep *ep, const char *what,
			       int r, const struct ibv_wc *wc)
{
	struct ibv_wc swc;

	if (r == 1 && wc->status == IBV_WC_WR_FLUSH_ERR)
		while (ibv_poll_cq(ep->scq, 1, &swc) == 1)
			if (swc.status != IBV_WC_SUCCESS && swc.status != IBV_WC_WR_FLUSH_ERR) {
				char cause[160];

				describe_wait(cause, sizeof(cause), "send", 1, &swc);
				snprintf(out, len, "%s flushed; the cause: %s", what, cause);
				return;
			}
	describe_wait(out, len, what, r, wc);
}

static struct ibv_sge sge_of(const struct demo_ep *ep, const uint8_t *p, uint32_t len)
{
	return (struct ibv_sge){.addr = (uintptr_t)p, .length = len, .lkey = ep->mr->lkey};
}

/* ---- The server ---- */

static void result(int sock, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void result(int sock, bool ok, const char *fmt, ...)
{
	struct ctl m;
	va_list ap;

	memset(&m, 0, sizeof(m));
	m.type = CTL_RESULT;
	m.ok = ok;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	ctl_send(sock, &m);
}

/* The next received message: its completion checked, its slot posted again. Returns the
 * slot's bytes, or NULL with the reason in err. */
static const uint8_t *server_recv(struct demo_ep *ep, int sock, struct ibv_wc *wc, char *err,
				  size_t errlen)
{
	int r = wait_cq(ep->rcq, wc, sock, true);
	uint32_t slot;

	if (r != 1 || wc->status != IBV_WC_SUCCESS) {
		describe_recv_wait(err, errlen, ep, "receive", r, wc);
		return NULL;
	}
	slot = (uint32_t)wc->wr_id;
	if (wc->opcode != IBV_WC_RECV || slot >= DEMO_NSLOTS) {
		snprintf(err, errlen, "receive completion with opcode %d, wr_id %" PRIu64,
			 wc->opcode, (uint64_t)wc->wr_id);
		return NULL;
	}
	/* Posting again before the bytes are read is safe: the slot fills only after the
	 * others, DEMO_NSLOTS - 1 messages later. */
	if ((r = demo_post_slot(ep, slot))) {
		snprintf(err, errlen, "ibv_post_recv: %s", strerror(r));
		return NULL;
	}
	return ep->buf + ep->lay.slots + (size_t)slot * ep->lay.slot_len;
}

static void server_check_send(struct demo_ep *ep, int sock, const struct ctl *cmd)
{
	char err[200];
	struct ibv_wc wc;
	const uint8_t *p = server_recv(ep, sock, &wc, err, sizeof(err));
	long bad;

	if (!p)
		return result(sock, false, "%s", err);
	if (wc.byte_len != cmd->arg[0])
		return result(sock, false, "received %u bytes, expected %" PRIu64, wc.byte_len,
			      cmd->arg[0]);
	if ((bad = demo_check(p, wc.byte_len, cmd->arg[1])) >= 0)
		return result(sock, false, "received byte %ld differs from what was sent", bad);
	result(sock, true, "%u bytes received intact", wc.byte_len);
}

static void server_check_write(struct demo_ep *ep, int sock, const struct ctl *cmd)
{
	char err[200];
	struct ibv_wc wc;
	long bad;

	if (!server_recv(ep, sock, &wc, err, sizeof(err)))
		return result(sock, false, "%s", err);
	if (!(wc.wc_flags & IBV_WC_WITH_IMM) || ntohl(wc.imm_data) != cmd->arg[2])
		return result(sock, false, "the notification carried %s 0x%08x, expected 0x%08x",
			      wc.wc_flags & IBV_WC_WITH_IMM ? "immediate" : "no immediate",
			      wc.wc_flags & IBV_WC_WITH_IMM ? ntohl(wc.imm_data) : 0,
			      (uint32_t)cmd->arg[2]);
	if ((bad = demo_check(ep->buf + ep->lay.wr_area, cmd->arg[0], cmd->arg[1])) >= 0)
		return result(sock, false, "byte %ld of the written area differs", bad);
	result(sock, true, "immediate 0x%08x, %" PRIu64 " bytes intact", ntohl(wc.imm_data),
	       cmd->arg[0]);
}

static void server_pong(struct demo_ep *ep, int sock, const struct ctl *cmd)
{
	uint8_t *out = ep->buf + ep->lay.send;
	struct ibv_sge sge = sge_of(ep, out, DEMO_PING_LEN);
	struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_wc wc[16];
	uint64_t seq, bad = 0;
	char err[200];
	int n, r;

	if (ep->self.inline_max >= DEMO_PING_LEN)
		wr.send_flags |= IBV_SEND_INLINE;
	for (uint64_t i = 0; i < cmd->arg[0]; i++) {
		const uint8_t *p = server_recv(ep, sock, wc, err, sizeof(err));
		if (!p)
			return result(sock, false, "ping %" PRIu64 ": %s", i, err);
		memcpy(&seq, p, 8);
		if (wc[0].byte_len != DEMO_PING_LEN || seq != i ||
		    demo_check(p + 8, DEMO_PING_LEN - 8, SEED_PING + i) >= 0)
			bad++;
		/* Answer with the same bytes: the client checks them too. */
		memcpy(out, p, DEMO_PING_LEN);
		r = demo_post_send(ep, &wr, wc, &n);
		if (r || (n && wc[0].status != IBV_WC_SUCCESS)) {
			describe_wait(err, sizeof(err), "pong", r < 0 ? 0 : 1, wc);
			return result(sock, false, "ping %" PRIu64 ": %s", i, err);
		}
		while ((n = ibv_poll_cq(ep->scq, 16, wc)) > 0)
			for (int k = 0; k < n; k++)
				if (wc[k].status != IBV_WC_SUCCESS) {
					describe_wait(err, sizeof(err), "pong", 1, &wc[k]);
					return result(sock, false, "%s", err);
				}
	}
	if (bad)
		return result(sock, false, "%" PRIu64 " of %" PRIu64 " pings arrived damaged", bad,
			      cmd->arg[0]);
	result(sock, true, "%" PRIu64 " pings intact", cmd->arg[0]);
}

static int server_main(int sock, const struct options *o)
{
	struct demo_ep ep;
	struct ctl m;
	char err[200];
	uint64_t word;
	long bad;
	bool quit = false;

	/* Before the first verbs call: the device takes its address from UROCE_IP once. */
	setenv("UROCE_IP", o->server_ip, 1);
	memset(&m, 0, sizeof(m));
	if (demo_ep_open(&ep, o->size, err, sizeof(err))) {
		m.type = CTL_ERROR;
		snprintf(m.text, sizeof(m.text), "server: %s", err);
		ctl_send(sock, &m);
		return EXIT_FAILED;
	}
	/* What the client will READ and the word its atomics work on. */
	demo_fill(ep.buf + ep.lay.rd_area, DEMO_RDMA_LEN, SEED_READ);
	word = DEMO_ATOMIC_INIT;
	memcpy(ep.buf + ep.lay.atomic, &word, 8);

	m.type = CTL_INFO;
	m.info = ep.self;
	if (ctl_send(sock, &m) || ctl_recv(sock, &m, -1) || m.type != CTL_INFO)
		goto out;
	ep.peer = m.info;
	memset(&m, 0, sizeof(m));
	if (demo_ep_connect(&ep, err, sizeof(err))) {
		m.type = CTL_ERROR;
		snprintf(m.text, sizeof(m.text), "server: %s", err);
	} else {
		m.type = CTL_READY;
	}
	ctl_send(sock, &m);

	while (!quit && ctl_recv(sock, &m, -1) == 0) {
		switch (m.type) {
		case CMD_SEND:
			server_check_send(&ep, sock, &m);
			break;
		case CMD_WRITE:
			server_check_write(&ep, sock, &m);
			break;
		case CMD_ATOMIC:
			memcpy(&word, ep.buf + ep.lay.atomic, 8);
			if (word == m.arg[0])
				result(sock, true, "the word holds 0x%" PRIx64, word);
			else
				result(sock, false, "the word holds 0x%" PRIx64
				       ", expected 0x%" PRIx64, word, m.arg[0]);
			break;
		case CMD_BULK:
			bad = demo_check(ep.buf + ep.lay.bulk, m.arg[0], m.arg[1]);
			if (bad >= 0)
				result(sock, false, "byte %ld of the target differs", bad);
			else
				result(sock, true, "target intact");
			break;
		case CMD_PONG:
			server_pong(&ep, sock, &m);
			break;
		default:
			quit = true;
			break;
		}
	}
out:
	demo_ep_close(&ep);
	return 0;
}

/* ---- The client: one function per step ---- */

struct step {
	const char *name;
	bool ok, skipped;
	char text[400];
};

static bool qp_broken; /* a step ended in an error completion: the QP is in the error state */

static void step_fail(struct step *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step_fail(struct step *s, const char *fmt, ...)
{
	va_list ap;

	s->ok = false;
	va_start(ap, fmt);
	vsnprintf(s->text, sizeof(s->text), fmt, ap);
	va_end(ap);
}

/* The server's verdict on the current step. */
static bool server_verdict(int sock, struct step *s)
{
	struct ctl m;

	if (ctl_recv(sock, &m, STEP_TIMEOUT + 5) || m.type != CTL_RESULT) {
		step_fail(s, "no answer from the server");
		qp_broken = true;
		return false;
	}
	if (!m.ok)
		step_fail(s, "server: %s", m.text);
	return m.ok;
}

/* Waits for the completion of the send request wr_id. */
static bool client_complete(struct demo_ep *ep, int sock, struct step *s, const char *what,
			    uint64_t wr_id)
{
	struct ibv_wc wc;
	char err[200];
	int r = wait_cq(ep->scq, &wc, sock, false);

	if (r == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id)
		return true;
	if (r == 1 && wc.status == IBV_WC_SUCCESS)
		snprintf(err, sizeof(err), "%s: completion of request %" PRIu64
			 ", expected %" PRIu64, what, (uint64_t)wc.wr_id, wr_id);
	else
		describe_wait(err, sizeof(err), what, r, &wc);
	step_fail(s, "%s", err);
	qp_broken = true;
	return false;
}

static bool post(struct demo_ep *ep, struct step *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int e = ibv_post_send(ep->qp, wr, &bad);

	if (e) {
		step_fail(s, "ibv_post_send: %s", strerror(e));
		qp_broken = true;
	}
	return !e;
}

static void step_send(struct demo_ep *ep, int sock, struct step *s)
{
	uint8_t *src = ep->buf + ep->lay.send;
	struct ibv_sge sge = sge_of(ep, src, DEMO_SEND_LEN);
	struct ibv_send_wr wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	unsigned mtu = 128u << ep->path_mtu;

	demo_fill(src, DEMO_SEND_LEN, SEED_SEND);
	ctl_simple(sock, CMD_SEND, DEMO_SEND_LEN, SEED_SEND, 0);
	if (!post(ep, s, &wr) || !client_complete(ep, sock, s, "SEND", 1))
		return;
	if (!server_verdict(sock, s))
		return;
	snprintf(s->text, sizeof(s->text),
		 "%u B in one SEND (%u packets), checked byte for byte by the server",
		 DEMO_SEND_LEN, (DEMO_SEND_LEN + mtu - 1) / mtu);
}

static void step_write(struct demo_ep *ep, int sock, struct step *s)
{
	uint8_t *src = ep->buf + ep->lay.wr_area;
	struct ibv_sge sge = sge_of(ep, src, DEMO_RDMA_LEN);
	struct ibv_send_wr note = {.wr_id = 3, .opcode = IBV_WR_SEND_WITH_IMM,
				   .send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(WRITE_IMM)};
	struct ibv_send_wr wr = {.wr_id = 2, .next = &note, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED};

	wr.wr.rdma.remote_addr = ep->peer.addr + ep->lay.wr_area;
	wr.wr.rdma.rkey = ep->peer.rkey;
	demo_fill(src, DEMO_RDMA_LEN, SEED_WRITE);
	ctl_simple(sock, CMD_WRITE, DEMO_RDMA_LEN, SEED_WRITE, WRITE_IMM);
	/* One chain: RC executes it in order, so the notification lands after the data. */
	if (!post(ep, s, &wr) || !client_complete(ep, sock, s, "RDMA WRITE", 2) ||
	    !client_complete(ep, sock, s, "SEND with immediate", 3))
		return;
	if (!server_verdict(sock, s))
		return;
	snprintf(s->text, sizeof(s->text),
		 "%u B into the server's memory, then a SEND with immediate 0x%08x; the server "
		 "found every byte",
		 DEMO_RDMA_LEN, WRITE_IMM);
}

static void step_read(struct demo_ep *ep, int sock, struct step *s)
{
	uint8_t *dst = ep->buf + ep->lay.rd_area;
	struct ibv_sge sge = sge_of(ep, dst, DEMO_RDMA_LEN);
	struct ibv_send_wr wr = {.wr_id = 4, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED};
	long bad;

	wr.wr.rdma.remote_addr = ep->peer.addr + ep->lay.rd_area;
	wr.wr.rdma.rkey = ep->peer.rkey;
	memset(dst, 0, DEMO_RDMA_LEN);
	if (!post(ep, s, &wr) || !client_complete(ep, sock, s, "RDMA READ", 4))
		return;
	if ((bad = demo_check(dst, DEMO_RDMA_LEN, SEED_READ)) >= 0)
		return step_fail(s, "byte %ld read differs from the server's", bad);
	snprintf(s->text, sizeof(s->text),
		 "%u B from the server's memory, every byte as the server wrote it", DEMO_RDMA_LEN);
}

static const char *op_name(unsigned i)
{
	return i < DEMO_FETCH_ADDS ? "FETCH_AND_ADD" : "CMP_AND_SWAP";
}

static void step_atomics(struct demo_ep *ep, int sock, struct step *s)
{
	uint8_t *res = ep->buf + ep->lay.atomic;
	struct ibv_sge sge[DEMO_FETCH_ADDS + 2];
	struct ibv_send_wr wr[DEMO_FETCH_ADDS + 2];
	uint64_t expect = DEMO_ATOMIC_INIT, got;
	unsigned i, n = DEMO_FETCH_ADDS + 2;

	memset(wr, 0, sizeof(wr));
	memset(res, 0xa5, 8 * n);
	for (i = 0; i < n; i++) {
		sge[i] = sge_of(ep, res + 8 * i, 8);
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].wr.atomic.remote_addr = ep->peer.addr + ep->lay.atomic;
		wr[i].wr.atomic.rkey = ep->peer.rkey;
		if (i < DEMO_FETCH_ADDS) {
			wr[i].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr[i].wr.atomic.compare_add = i + 1;
		} else {
			/* Swaps the sum for CAS_SWAP; the second, comparing with the stale sum,
			 * must leave the word alone and return CAS_SWAP. */
			wr[i].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr[i].wr.atomic.compare_add = DEMO_ATOMIC_INIT +
						      DEMO_FETCH_ADDS * (DEMO_FETCH_ADDS + 1) / 2;
			wr[i].wr.atomic.swap = i == DEMO_FETCH_ADDS ? CAS_SWAP : CAS_STALE;
		}
	}
	if (!post(ep, s, wr))
		return;
	for (i = 0; i < n; i++)
		if (!client_complete(ep, sock, s, op_name(i), 100 + i))
			return;
	for (i = 0; i < n; i++) {
		memcpy(&got, res + 8 * i, 8);
		if (got != expect)
			return step_fail(s, "%s #%u returned %" PRIu64 " (0x%" PRIx64
					 "), expected %" PRIu64,
					 op_name(i), i + 1, got, got, expect);
		expect = i < DEMO_FETCH_ADDS ? expect + i + 1 : CAS_SWAP;
	}
	ctl_simple(sock, CMD_ATOMIC, CAS_SWAP, 0, 0);
	if (!server_verdict(sock, s))
		return;
	snprintf(s->text, sizeof(s->text),
		 "%u FETCH_AND_ADD returned %u..%u in order; CMP_AND_SWAP swapped %u for 0x%" PRIx64
		 ", a stale one did not; the server's word holds it",
		 DEMO_FETCH_ADDS, DEMO_ATOMIC_INIT,
		 DEMO_ATOMIC_INIT + (DEMO_FETCH_ADDS - 1) * DEMO_FETCH_ADDS / 2,
		 DEMO_ATOMIC_INIT + DEMO_FETCH_ADDS * (DEMO_FETCH_ADDS + 1) / 2, CAS_SWAP);
}

static void fmt_size(char *out, size_t len, size_t v)
{
	if (v >= 1024 * 1024 && v % (1024 * 1024) == 0)
		snprintf(out, len, "%zu MiB", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(out, len, "%zu KiB", v >> 10);
	else
		snprintf(out, len, "%zu B", v);
}

static void step_bulk(struct demo_ep *ep, int sock, struct step *s, const struct options *o)
{
	size_t len = ep->lay.bulk_len;
	struct ibv_sge sge = sge_of(ep, ep->buf + ep->lay.bulk, (uint32_t)len);
	struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED};
	struct ibv_wc wc[32];
	uint64_t posted = 0, done = 0;
	unsigned outstanding = 0;
	double t0, t1, last = 0;
	char size[32], err[200];
	bool stop = false;
	int n;

	wr.wr.rdma.remote_addr = ep->peer.addr + ep->lay.bulk;
	wr.wr.rdma.rkey = ep->peer.rkey;
	demo_fill(ep->buf + ep->lay.bulk, len, SEED_BULK);
	t0 = demo_now();
	for (;;) {
		double now = demo_now();
		if (!stop)
			stop = o->iters ? posted >= (uint64_t)o->iters : now - t0 >= o->seconds;
		while (!stop && outstanding < DEMO_BULK_WINDOW) {
			wr.wr_id = posted;
			if (!post(ep, s, &wr))
				return;
			posted++, outstanding++;
			if (o->iters && posted >= (uint64_t)o->iters)
				stop = true;
		}
		if (stop && !outstanding)
			break;
		n = ibv_poll_cq(ep->scq, 32, wc);
		if (n < 0)
			return step_fail(s, "ibv_poll_cq failed");
		for (int k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				describe_wait(err, sizeof(err), "RDMA WRITE", 1, &wc[k]);
				qp_broken = true;
				return step_fail(s, "%s after %" PRIu64 " writes", err, done);
			}
			outstanding--, done++;
		}
		if (n) {
			last = now;
		} else if (last && now - last > STEP_TIMEOUT) {
			qp_broken = true;
			return step_fail(s, "no completion for %.0f s after %" PRIu64 " writes",
					 STEP_TIMEOUT, done);
		} else if (!last) {
			last = now;
		}
	}
	t1 = demo_now();
	ctl_simple(sock, CMD_BULK, len, SEED_BULK, 0);
	if (!server_verdict(sock, s))
		return;
	fmt_size(size, sizeof(size), len);
	double secs = t1 - t0, gbps = (double)done * (double)len * 8 / secs / 1e9;
	snprintf(s->text, sizeof(s->text),
		 "%s RDMA WRITEs, %u outstanding: %" PRIu64 " in %.3f s = %.2f Gbit/s, %.0f "
		 "messages/s; the server's copy is intact",
		 size, DEMO_BULK_WINDOW, done, secs, gbps, (double)done / secs);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void step_latency(struct demo_ep *ep, int sock, struct step *s, const struct options *o)
{
	long iters = o->iters ? o->iters : DEFAULT_LAT_ITERS;
	uint8_t *out = ep->buf + ep->lay.send;
	struct ibv_sge sge = sge_of(ep, out, DEMO_PING_LEN);
	struct ibv_send_wr wr = {.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED};
	double *rtt = calloc((size_t)iters, sizeof(*rtt));
	struct ibv_wc wc[16];
	long damaged = 0, sent_done = 0;
	char err[200];
	int n, r;

	if (!rtt)
		return step_fail(s, "out of memory");
	if (ep->self.inline_max >= DEMO_PING_LEN)
		wr.send_flags |= IBV_SEND_INLINE;
	ctl_simple(sock, CMD_PONG, (uint64_t)iters, 0, 0);
	for (long i = 0; i < iters; i++) {
		uint64_t seq = (uint64_t)i, got;
		double t0;
		const uint8_t *p;

		memcpy(out, &seq, 8);
		demo_fill(out + 8, DEMO_PING_LEN - 8, SEED_PING + seq);
		wr.wr_id = seq;
		t0 = demo_now();
		r = demo_post_send(ep, &wr, wc, &n);
		if (r || (n && wc[0].status != IBV_WC_SUCCESS)) {
			describe_wait(err, sizeof(err), "ping", r < 0 ? 0 : 1, wc);
			qp_broken = true;
			step_fail(s, "ping %ld: %s", i, err);
			goto out;
		}
		sent_done += n;
		r = wait_cq(ep->rcq, wc, sock, false);
		rtt[i] = demo_now() - t0;
		if (r != 1 || wc[0].status != IBV_WC_SUCCESS) {
			describe_recv_wait(err, sizeof(err), ep, "pong", r, wc);
			qp_broken = true;
			step_fail(s, "ping %ld: %s", i, err);
			goto out;
		}
		p = ep->buf + ep->lay.slots + (size_t)wc[0].wr_id * ep->lay.slot_len;
		memcpy(&got, p, 8);
		if (wc[0].byte_len != DEMO_PING_LEN || got != seq ||
		    demo_check(p + 8, DEMO_PING_LEN - 8, SEED_PING + seq) >= 0)
			damaged++;
		if ((r = demo_post_slot(ep, (uint32_t)wc[0].wr_id))) {
			qp_broken = true;
			step_fail(s, "ibv_post_recv: %s", strerror(r));
			goto out;
		}
		while ((n = ibv_poll_cq(ep->scq, 16, wc)) > 0)
			for (int k = 0; k < n; k++, sent_done++)
				if (wc[k].status != IBV_WC_SUCCESS) {
					describe_wait(err, sizeof(err), "ping", 1, &wc[k]);
					qp_broken = true;
					step_fail(s, "%s", err);
					goto out;
				}
	}
	/* The last pings' completions wait for their ACKs. */
	while (sent_done < iters) {
		r = wait_cq(ep->scq, wc, sock, false);
		if (r != 1 || wc[0].status != IBV_WC_SUCCESS) {
			describe_wait(err, sizeof(err), "ping", r, wc);
			qp_broken = true;
			step_fail(s, "%s", err);
			goto out;
		}
		sent_done++;
	}
	if (!server_verdict(sock, s))
		goto out;
	if (damaged) {
		step_fail(s, "%ld of %ld pongs arrived damaged", damaged, iters);
		goto out;
	}
	qsort(rtt, (size_t)iters, sizeof(*rtt), cmp_double);
	{
		/* Nearest rank: the smallest value with at least p of the samples at or below. */
		size_t p50 = ((size_t)iters + 1) / 2 - 1, p99 = ((size_t)iters * 99 + 99) / 100 - 1;
		snprintf(s->text, sizeof(s->text),
			 "%u B SEND ping-pong, %ld round trips: median %.1f us, p99 %.1f us "
			 "(one way, half of it: %.1f us, %.1f us)",
			 DEMO_PING_LEN, iters, rtt[p50] * 1e6, rtt[p99] * 1e6, rtt[p50] * 0.5e6,
			 rtt[p99] * 0.5e6);
	}
out:
	free(rtt);
}

static void gid_text(const uint8_t gid[16], char *out, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, out, (socklen_t)len))
		snprintf(out, len, "?");
}

/* uroce-dump next to this program in the build tree, else the one on PATH. */
static void find_dump(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			*slash = '\0';
			static const char rel[] = "/../uroce-dump/uroce-dump";
			size_t dl = strlen(self);
			if (dl + sizeof(rel) <= len) {
				memcpy(out, self, dl);
				memcpy(out + dl, rel, sizeof(rel));
			}
			if (dl + sizeof(rel) <= len && access(out, X_OK) == 0 &&
			    realpath(out, self) && strlen(self) < len) {
				memcpy(out, self, strlen(self) + 1);
				return;
			}
		}
	}
	snprintf(out, len, "uroce-dump");
}

/* After the demo: what was captured, and the uroce-dump command that explains it (run with
 * --dump). */
static void explain_capture(const struct options *o, uint64_t written, uint64_t dropped)
{
	char dump[PATH_MAX];
	int status;
	pid_t pid;

	find_dump(dump, sizeof(dump));
	printf("\ncapture: %s, %" PRIu64 " packets (%" PRIu64 " dropped by the kernel; "
	       "throughput-phase packets cut to their first %u bytes)\n",
	       o->capture, written, dropped, DEMO_CAPTURE_HEADERS);
	if (!o->dump) {
		printf("explain it: %s -r %s --flows\n", dump, o->capture);
		return;
	}
	printf("\n== %s -r %s --flows\n", dump, o->capture);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		execlp(dump, dump, "-r", o->capture, "--flows", (char *)NULL);
		fprintf(stderr, "uroce-demo: %s: %s\n", dump, strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

static int client_main(int sock, pid_t server, const struct options *o)
{
	struct step steps[] = {
		{.name = "SEND/RECV"}, {.name = "RDMA WRITE"}, {.name = "RDMA READ"},
		{.name = "ATOMICS"}, {.name = "THROUGHPUT"}, {.name = "LATENCY"},
	};
	const size_t nsteps = sizeof(steps) / sizeof(steps[0]);
	struct demo_capture *cap = NULL;
	struct demo_ep ep;
	struct ctl m;
	char err[200], gid_c[64], gid_s[64];
	uint64_t written = 0, dropped = 0;
	const char *impair = getenv("UROCE_IMPAIR");
	size_t passed = 0;
	int status = 0, rc = 0;

	memset(&ep, 0, sizeof(ep));
	setenv("UROCE_IP", o->client_ip, 1);
	/* Capture first: the server sends nothing before it has our connection details. */
	if (o->capture) {
		cap = demo_capture_open(o->capture, o->client_ip, o->server_ip, err, sizeof(err));
		if (!cap || demo_capture_start(cap)) {
			fprintf(stderr, "uroce-demo: %s\n", cap ? "cannot start the capture thread"
								: err);
			rc = EXIT_USAGE;
			goto close;
		}
	}
	if (demo_ep_open(&ep, o->size, err, sizeof(err))) {
		fprintf(stderr, "uroce-demo: client: %s\n", err);
		rc = EXIT_USAGE;
		goto close;
	}
	memset(&m, 0, sizeof(m));
	if (ctl_recv(sock, &m, 30) || (m.type != CTL_INFO && m.type != CTL_ERROR)) {
		fprintf(stderr, "uroce-demo: the server process did not start\n");
		rc = EXIT_USAGE;
		goto close;
	}
	if (m.type == CTL_ERROR) {
		fprintf(stderr, "uroce-demo: %s\n", m.text);
		rc = EXIT_USAGE;
		goto close;
	}
	ep.peer = m.info;
	if (demo_ep_connect(&ep, err, sizeof(err))) {
		fprintf(stderr, "uroce-demo: client: %s\n", err);
		rc = EXIT_USAGE;
		goto close;
	}
	memset(&m, 0, sizeof(m));
	m.type = CTL_INFO;
	m.info = ep.self;
	if (ctl_send(sock, &m) || ctl_recv(sock, &m, 30) || m.type != CTL_READY) {
		fprintf(stderr, "uroce-demo: %s\n",
			m.type == CTL_ERROR ? m.text : "the server did not connect");
		rc = EXIT_USAGE;
		goto close;
	}

	gid_text(ep.self.gid, gid_c, sizeof(gid_c));
	gid_text(ep.peer.gid, gid_s, sizeof(gid_s));
	printf("uroce-demo: two processes, one RC queue pair each, through the verbs API\n");
	printf("  libibverbs  %s\n", ep.libpath[0] ? ep.libpath : "?");
	printf("  client      pid %d, %s, GID %s (index 0), QPN 0x%06x, PSN 0x%06x\n",
	       ep.self.pid, ibv_get_device_name(ep.ctx->device), gid_c, ep.self.qpn, ep.self.psn);
	printf("  server      pid %d, GID %s, QPN 0x%06x, PSN 0x%06x, rkey 0x%x\n", ep.peer.pid,
	       gid_s, ep.peer.qpn, ep.peer.psn, ep.peer.rkey);
	printf("  path        MTU %u, retransmission timeout %.1f ms, inline sends up to %u B\n",
	       128u << ep.path_mtu, 4.096e-3 * (1u << DEMO_QP_TIMEOUT), ep.self.inline_max);
	struct uroce_echo e;
	printf("  impairment  %s\n", impair && *impair ? uroce_echo(&e, impair, (size_t)-1) : "none");
	if (cap)
		printf("  capture     lo -> %s\n", o->capture);
	printf("\n");
	fflush(stdout);

	for (size_t i = 0; i < nsteps; i++) {
		struct step *s = &steps[i];
		s->ok = true;
		if (qp_broken) {
			s->ok = false;
			s->skipped = true;
			snprintf(s->text, sizeof(s->text), "not run: the queue pair failed before");
		} else {
			switch (i) {
			case 0: step_send(&ep, sock, s); break;
			case 1: step_write(&ep, sock, s); break;
			case 2: step_read(&ep, sock, s); break;
			case 3: step_atomics(&ep, sock, s); break;
			case 4:
				if (cap)
					demo_capture_headers_only(cap);
				step_bulk(&ep, sock, s, o);
				if (cap)
					demo_capture_whole(cap);
				break;
			default: step_latency(&ep, sock, s, o); break;
			}
		}
		passed += s->ok;
		printf("%s  %-11s %s\n", s->skipped ? "SKIP" : s->ok ? "PASS" : "FAIL", s->name,
		       s->text);
		fflush(stdout);
	}
	printf("\n%zu of %zu steps passed\n", passed, nsteps);
	rc = passed == nsteps ? 0 : EXIT_FAILED;
close:
	ctl_simple(sock, CMD_QUIT, 0, 0, 0);
	demo_ep_close(&ep);
	/* The server ends on CMD_QUIT, or on end of file once this socket closes. */
	close(sock);
	for (int t = 0; t < 100; t++) {
		if (waitpid(server, &status, WNOHANG) == server)
			break;
		if (t == 99) {
			kill(server, SIGKILL);
			waitpid(server, &status, 0);
			fprintf(stderr, "uroce-demo: the server did not end; killed\n");
		}
		usleep(100000);
	}
	if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status))) {
		fprintf(stderr, "uroce-demo: the server process %s %d\n",
			WIFSIGNALED(status) ? "died of signal" : "exited with status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		if (!rc)
			rc = EXIT_FAILED;
	}
	if (cap) {
		/* Whatever is still on its way through lo. */
		usleep(50000);
		demo_capture_stop(cap, &written, &dropped);
		if (rc != EXIT_USAGE)
			explain_capture(o, written, dropped);
	}
	return rc;
}

/* ---- Options ---- */

static void usage(FILE *out)
{
	fputs("Usage: uroce-demo [--capture FILE [--dump]] [--impair SPEC] [--size BYTES]\n"
	      "                  [--iters N | --seconds S] [--server-ip ADDR] [--client-ip ADDR]\n"
	      "\n"
	      "Forks a server (UROCE_IP=ADDR, default 127.0.0.2) and a client (default 127.0.0.1)\n"
	      "that exchange SEND/RECV, RDMA WRITE, RDMA READ and atomics over one RC queue pair\n"
	      "each, check every byte, then measure RDMA WRITE throughput and SEND latency.\n"
	      "Exit status: 0 when every step passed, 1 when one failed, 2 on a usage or setup\n"
	      "error.\n"
	      "\n"
	      "  --capture FILE   capture the demo's RoCEv2 packets on lo into a pcap file\n"
	      "                   (needs root or CAP_NET_RAW); explain it with uroce-dump --flows\n"
	      "  --dump           then run uroce-dump -r FILE --flows\n"
	      "  --impair SPEC    UROCE_IMPAIR for both processes, e.g. loss=0.02,reorder=0.01\n"
	      "  --size BYTES     throughput RDMA WRITE size (K, M suffixes; default 64K)\n"
	      "  --iters N        N throughput WRITEs and N latency round trips (default: 1 s of\n"
	      "                   WRITEs and 10000 round trips)\n"
	      "  --seconds S      length of the throughput phase without --iters (default 1)\n"
	      "  --server-ip ADDR, --client-ip ADDR   the two local addresses\n",
	      out);
}

static bool parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v < 1 || v > (1ull << 30))
		return false;
	*out = (size_t)v;
	return true;
}

static bool valid_ip(const char *s)
{
	uint8_t a[16];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"capture", required_argument, NULL, 'w'},
		{"dump", no_argument, NULL, 'D'},
		{"impair", required_argument, NULL, 'I'},
		{"size", required_argument, NULL, 's'},
		{"iters", required_argument, NULL, 'n'},
		{"seconds", required_argument, NULL, 't'},
		{"server-ip", required_argument, NULL, 'S'},
		{"client-ip", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {
		.server_ip = "127.0.0.2",
		.client_ip = "127.0.0.1",
		.size = 65536,
		.seconds = 1.0,
	};
	struct uroce_impair_cfg icfg;
	char msg[160], *end;
	int c, sv[2];
	pid_t pid;

	while ((c = getopt_long(argc, argv, "w:DI:s:n:t:S:C:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w': o.capture = optarg; break;
		case 'D': o.dump = true; break;
		case 'I': o.impair = optarg; break;
		case 'S': o.server_ip = optarg; break;
		case 'C': o.client_ip = optarg; break;
		case 's':
			if (!parse_size(optarg, &o.size)) {
				fprintf(stderr, "uroce-demo: --size %s: 1 to 1G bytes\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			errno = 0;
			o.iters = strtol(optarg, &end, 10);
			if (errno || *end || o.iters < 1 || o.iters > 100000000) {
				fprintf(stderr, "uroce-demo: --iters %s: 1 to 100000000\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			o.seconds = strtod(optarg, &end);
			if (*end || !(o.seconds > 0 && o.seconds <= 3600)) {
				fprintf(stderr, "uroce-demo: --seconds %s: (0, 3600]\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc || (o.dump && !o.capture)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!valid_ip(o.server_ip) || !valid_ip(o.client_ip) ||
	    !strcmp(o.server_ip, o.client_ip)) {
		fprintf(stderr, "uroce-demo: --server-ip and --client-ip must be two different "
				"addresses of this host\n");
		return EXIT_USAGE;
	}
	if (o.impair) {
		/* Checked here for a clear message; the library parses it again in each
		 * process. */
		if (uroce_impair_parse(o.impair, &icfg, msg, sizeof(msg))) {
			fprintf(stderr, "uroce-demo: --impair: %s\n", msg);
			return EXIT_USAGE;
		}
		setenv("UROCE_IMPAIR", o.impair, 1);
	}
	/* A capture on lo sees a GSO send whole, before the kernel cuts it into the datagrams a
	 * wire would carry (docs/udp.md "GSO"): while capturing, both processes send every
	 * datagram on its own, so that the file shows the packets as they are. */
	if (o.capture)
		setenv("UROCE_GSO", "0", 1);
	/* A message-preserving socket pair: each control message arrives whole or not at all. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		perror("uroce-demo: socketpair");
		return EXIT_USAGE;
	}
	fflush(NULL);
	if ((pid = fork()) < 0) {
		perror("uroce-demo: fork");
		return EXIT_USAGE;
	}
	if (pid == 0) {
		close(sv[0]);
		/* Nobody would ever reap a server whose client died. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(EXIT_FAILED);
		int rc = server_main(sv[1], &o);
		close(sv[1]);
		fflush(NULL);
		exit(rc);
	}
	close(sv[1]);
	return client_main(sv[0], pid, &o);
}

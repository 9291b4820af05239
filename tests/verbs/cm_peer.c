/* SPDX-License-Identifier: MIT */
/* One side of a CM exchange over the port's QP1 (tests/verbs/test_qp1.sh runs two): a
 * program of <infiniband/verbs.h> that finds uroce's bridge through the device (bridge.h),
 * attaches a MAD service wrapping a CM of src/cm, and goes through the real UDP path.
 *
 *   cm_peer server       listens; answers a REQ with a REP, a DREQ with a DREP, a SIDR_REQ
 *                        with a SIDR_REP; stops when its standard input ends (the client is
 *                        done) and its connection has left timewait
 *   cm_peer client PEER  REQ/REP/RTU, DREQ/DREP, timewait, then SIDR_REQ/SIDR_REP to PEER
 *
 * Each side checks that a second attach on its port gets EBUSY, that every event is the one
 * expected with the values the other side put in its messages, and that QP1's counters and
 * the CM's agree: every MAD QP1 received went to the CM, every MAD the CM gave was sent,
 * nothing dropped. Prints "ok" and the counters; any failure is a line "FAIL ..." and exit
 * status 1. The local address is UROCE_IP's. */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cm/cm.h"
#include "verbs/bridge.h"

#define SID_CONN 0x0000000001060001ull
#define SID_SIDR 0x0000000001110002ull
#define CLIENT_QPN 0x000111u
#define SERVER_QPN 0x000222u
#define SIDR_QPN 0x000333u
#define SIDR_QKEY 0x11111111u
#define WAIT_ROUNDS 600 /* 100 ms polls: a hang guard only, never a judgement on speed */

struct svc {
	struct uroce_cm *cm;
	int efd; /* written when the CM may have new events */
};

static const struct uv_bridge *br;
static struct uv_bridge_port *port;
static struct svc S;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			fflush(stdout);                                    \
			_exit(1); /* the port lock may be held */          \
		}                                                          \
	} while (0)

static void wake(struct svc *s)
{
	uint64_t one = 1;

	if (write(s->efd, &one, sizeof(one)) < 0) {
		/* full: the waiter is awake anyway */
	}
}

static void s_recv(void *arg, const struct uroce_cm_mad *mad, uint64_t now)
{
	struct svc *s = arg;

	uroce_cm_recv(s->cm, mad, now);
	wake(s);
}

static void s_timer(void *arg, uint64_t now)
{
	struct svc *s = arg;

	uroce_cm_on_timer(s->cm, now);
	wake(s);
}

static int s_next(void *arg, struct uroce_cm_mad *out)
{
	return uroce_cm_next_mad(((struct svc *)arg)->cm, out);
}

static uint64_t s_deadline(void *arg)
{
	return uroce_cm_next_deadline(((struct svc *)arg)->cm);
}

static int next_event(struct uroce_cm_event *ev)
{
	int got;

	br->lock(port);
	got = uroce_cm_get_event(S.cm, ev);
	br->unlock_kick(port);
	return got;
}

/* Waits for the next event (fd, when not -1, ending its wait too: 0 then). */
static int wait_event(struct uroce_cm_event *ev, int fd)
{
	struct pollfd p[2] = {{.fd = S.efd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
	uint64_t v;

	for (int i = 0; i < WAIT_ROUNDS; i++) {
		if (next_event(ev)) {
			if (getenv("CM_PEER_TRACE"))
				fprintf(stderr, "event %s\n", uroce_cm_event_name(ev->type));
			return 1;
		}
		if (poll(p, fd >= 0 ? 2 : 1, 100) > 0) {
			if (p[0].revents && read(S.efd, &v, sizeof(v)) < 0) {
				/* another wake took it */
			}
			if (fd >= 0 && p[1].revents) {
				char c;
				if (read(fd, &c, 1) <= 0)
					return 0;
			}
		}
	}
	CHECK(0, "no event");
	return 0;
}

static void expect(struct uroce_cm_event *ev, enum uroce_cm_event_type type)
{
	wait_event(ev, -1);
	CHECK(ev->type == type, "event %s, expected %s", uroce_cm_event_name(ev->type),
	      uroce_cm_event_name(type));
}

static struct uroce_io_addr addr_of(const char *s)
{
	struct uroce_io_addr a = {0};

	if (inet_pton(AF_INET, s, a.ip) != 1) {
		a.ipv6 = true;
		CHECK(inet_pton(AF_INET6, s, a.ip) == 1, "address %s", s);
	}
	return a;
}

/* min_rx and min_tx: the messages of the exchange without loss, which loss only adds to. */
static void check_counters(const char *who, uint64_t min_rx, uint64_t min_tx)
{
	const union uroce_cm_counters *c;
	struct uv_mad_counters m;

	br->counters(port, &m);
	br->lock(port);
	c = uroce_cm_counters(S.cm);
	printf("%s: qp1 mads_rx %llu mads_tx %llu mads_rx_not_mad %llu mads_tx_dropped %llu "
	       "mads_no_buffer %llu; cm rx_mads %llu rx_handled %llu tx_mads %llu tx_retries %llu "
	       "dup_rep %llu dup_dreq %llu\n",
	       who, (unsigned long long)m.mads_rx, (unsigned long long)m.mads_tx,
	       (unsigned long long)m.mads_rx_not_mad, (unsigned long long)m.mads_tx_dropped,
	       (unsigned long long)m.mads_no_buffer, (unsigned long long)c->rx_mads,
	       (unsigned long long)c->rx_handled, (unsigned long long)c->tx_mads,
	       (unsigned long long)c->tx_retries, (unsigned long long)c->dup_rep,
	       (unsigned long long)c->dup_dreq);
	CHECK(m.mads_rx == c->rx_mads, "QP1 received %llu, the CM got %llu",
	      (unsigned long long)m.mads_rx, (unsigned long long)c->rx_mads);
	CHECK(m.mads_tx == c->tx_mads, "the CM gave %llu, QP1 sent %llu",
	      (unsigned long long)c->tx_mads, (unsigned long long)m.mads_tx);
	CHECK(m.mads_rx >= min_rx && c->rx_handled >= min_rx, "too few MADs handled");
	CHECK(m.mads_tx >= min_tx, "too few MADs sent");
	CHECK(!m.mads_rx_not_mad && !m.mads_tx_dropped && !m.mads_no_buffer, "drops");
	br->unlock_kick(port);
}

static struct uroce_cm_path_rec path_to(const struct uroce_io_addr *local,
					const struct uroce_io_addr *remote)
{
	struct uroce_cm_path_rec p = {.local = *local, .remote = *remote, .hop_limit = 64,
				      .mtu = 3, .packet_life_time = 8, .pkey = 0xFFFF};
	return p;
}

static void client(const struct uroce_io_addr *local, const struct uroce_io_addr *peer)
{
	struct uroce_cm_req_param rq = {.path = path_to(local, peer), .service_id = SID_CONN,
					.qpn = CLIENT_QPN, .transport = UROCE_CM_TRANSPORT_RC,
					.starting_psn = 0x1000, .responder_resources = 1,
					.initiator_depth = 1, .remote_cm_response_timeout = 14,
					.local_cm_response_timeout = 14, .retry_count = 7,
					.rnr_retry_count = 7, .max_cm_retries = 15,
					.private_data = "hello", .private_data_len = 5};
	struct uroce_cm_sidr_req_param sq = {.path = path_to(local, peer), .service_id = SID_SIDR,
					     .timeout_ns = 50000000, .max_cm_retries = 15};
	struct uroce_cm_id *id, *sid;
	struct uroce_cm_event ev;
	struct uroce_cm_conn conn;

	br->lock(port);
	CHECK(!uroce_cm_create_id(S.cm, NULL, &id), "create_id");
	CHECK(!uroce_cm_send_req(id, &rq, br->now(port)), "send_req");
	br->unlock_kick(port);

	expect(&ev, UROCE_CM_EV_REP_RECEIVED);
	CHECK(ev.id == id && uroce_io_addr_equal(&ev.peer, peer), "REP from the server");
	br->lock(port);
	CHECK(!uroce_cm_id_query(id, &conn), "query");
	CHECK(conn.remote_qpn == SERVER_QPN && conn.sq_psn == 0x2000, "REP's QPN %#x PSN %#x",
	      conn.remote_qpn, conn.sq_psn);
	CHECK(!uroce_cm_send_rtu(id, NULL, 0), "send_rtu");
	CHECK(uroce_cm_id_state(id) == UROCE_CM_ESTABLISHED, "established");
	CHECK(!uroce_cm_send_dreq(id, NULL, 0, br->now(port)), "send_dreq");
	br->unlock_kick(port);
	expect(&ev, UROCE_CM_EV_DREP_RECEIVED);
	expect(&ev, UROCE_CM_EV_TIMEWAIT_EXIT);
	CHECK(ev.id == id, "timewait of the connection");

	br->lock(port);
	uroce_cm_destroy_id(id, br->now(port));
	CHECK(!uroce_cm_create_id(S.cm, NULL, &sid), "create_id");
	CHECK(!uroce_cm_send_sidr_req(sid, &sq, br->now(port)), "send_sidr_req");
	br->unlock_kick(port);
	expect(&ev, UROCE_CM_EV_SIDR_REP_RECEIVED);
	CHECK(ev.id == sid && ev.msg.sidr_rep.status == UROCE_CM_SIDR_SUCCESS &&
		      ev.msg.sidr_rep.qpn == SIDR_QPN && ev.msg.sidr_rep.qkey == SIDR_QKEY,
	      "SIDR_REP status %u qpn %#x qkey %#x", ev.msg.sidr_rep.status, ev.msg.sidr_rep.qpn,
	      ev.msg.sidr_rep.qkey);
	br->lock(port);
	uroce_cm_destroy_id(sid, br->now(port));
	br->unlock_kick(port);
	check_counters("client", 3, 4); /* REP, DREP, SIDR_REP; REQ, RTU, DREQ, SIDR_REQ */
}

static void server(void)
{
	struct uroce_cm_id *lc, *ls, *conn_id = NULL;
	struct uroce_cm_event ev;
	struct uroce_cm_conn conn;
	bool stdin_open = true, left_timewait = false;
	unsigned established = 0, dreqs = 0, sidr = 0;

	br->lock(port);
	CHECK(!uroce_cm_create_id(S.cm, NULL, &lc) && !uroce_cm_listen(lc, SID_CONN, 0), "listen");
	CHECK(!uroce_cm_create_id(S.cm, NULL, &ls) && !uroce_cm_listen(ls, SID_SIDR, 0), "listen");
	br->unlock_kick(port);
	printf("ready\n");
	fflush(stdout);

	while (stdin_open || !left_timewait) {
		if (!wait_event(&ev, stdin_open ? 0 : -1)) {
			stdin_open = false;
			continue;
		}
		br->lock(port);
		uint64_t now = br->now(port);
		switch (ev.type) {
		case UROCE_CM_EV_REQ_RECEIVED: {
			struct uroce_cm_rep_param rp = {.qpn = SERVER_QPN, .starting_psn = 0x2000,
							.responder_resources = 1,
							.initiator_depth = 1, .rnr_retry_count = 7};
			CHECK(ev.listen_id == lc && !conn_id, "a REQ through the listener");
			CHECK(ev.msg.req.local_qpn == CLIENT_QPN &&
				      !memcmp(ev.msg.req.private_data, "hello", 5),
			      "the REQ's QPN %#x", ev.msg.req.local_qpn);
			conn_id = ev.id;
			CHECK(!uroce_cm_id_query(conn_id, &conn) && conn.remote_qpn == CLIENT_QPN,
			      "query");
			CHECK(!uroce_cm_send_rep(conn_id, &rp, now), "send_rep");
			break;
		}
		case UROCE_CM_EV_RTU_RECEIVED:
			CHECK(ev.id == conn_id, "RTU of the connection");
			established++;
			break;
		case UROCE_CM_EV_DREQ_RECEIVED:
			/* Without an RTU when it was lost: the DREQ establishes, as on Linux. */
			CHECK(ev.id == conn_id && !dreqs++, "one DREQ of the connection");
			CHECK(!uroce_cm_send_drep(conn_id, NULL, 0, now), "send_drep");
			break;
		case UROCE_CM_EV_TIMEWAIT_EXIT:
			CHECK(ev.id == conn_id, "timewait of the connection");
			left_timewait = true;
			uroce_cm_destroy_id(conn_id, now);
			break;
		case UROCE_CM_EV_SIDR_REQ_RECEIVED: {
			struct uroce_cm_sidr_rep_param sp = {.status = UROCE_CM_SIDR_SUCCESS,
							     .qpn = SIDR_QPN, .qkey = SIDR_QKEY};
			CHECK(ev.listen_id == ls, "a SIDR_REQ through its listener");
			CHECK(!uroce_cm_send_sidr_rep(ev.id, &sp), "send_sidr_rep");
			uroce_cm_destroy_id(ev.id, now);
			sidr++;
			break;
		}
		default:
			CHECK(0, "unexpected event %s", uroce_cm_event_name(ev.type));
		}
		br->unlock_kick(port);
	}
	CHECK(established <= 1 && dreqs == 1 && sidr >= 1, "RTU %u, DREQ %u, SIDR %u", established,
	      dreqs, sidr);
	check_counters("server", 4, 3); /* REQ, RTU, DREQ, SIDR_REQ; REP, DREP, SIDR_REP */
}

int main(int argc, char **argv)
{
	const char *ip = getenv("UROCE_IP");
	struct uv_mad_service svc = {.arg = &S, .recv = s_recv, .on_timer = s_timer,
				     .next_mad = s_next, .next_deadline = s_deadline};
	struct uv_bridge_port *second;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct uroce_cm_cfg cfg = {.tid_high = 2, .ack_delay = 15};
	struct uroce_io_addr local, peer;
	int n, err;

	if (argc < 2 || !ip || (strcmp(argv[1], "server") && (strcmp(argv[1], "client") || argc < 3))) {
		fprintf(stderr, "usage: UROCE_IP=<address> cm_peer server | client PEER\n");
		return 2;
	}
	local = addr_of(ip);
	CHECK(uv_bridge_of(NULL) == NULL, "no bridge without a device");
	list = ibv_get_device_list(&n);
	CHECK(list && n == 1, "one device");
	br = uv_bridge_of(list[0]);
	CHECK(br, "the device has uroce's bridge");
	ctx = ibv_open_device(list[0]);
	CHECK(ctx, "open: %s", strerror(errno));
	cfg.ca_guid = ibv_get_device_guid(list[0]);
	cfg.seed = (uint64_t)getpid();
	S.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(S.efd >= 0 && !uroce_cm_new(&cfg, &S.cm), "CM");
	CHECK(!(err = br->attach(ctx, &svc, &port)), "attach: %s", strerror(err));
	/* One service per port. */
	CHECK((err = br->attach(ctx, &svc, &second)) == EBUSY, "second attach: %d", err);

	if (!strcmp(argv[1], "server"))
		server();
	else {
		peer = addr_of(argv[2]);
		client(&local, &peer);
	}

	br->detach(port);
	/* Detached, the port takes another service. */
	CHECK(!br->attach(ctx, &svc, &second), "attach after detach");
	br->detach(second);
	uroce_cm_free(S.cm);
	close(S.efd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("%s ok\n", argv[1]);
	return 0;
}

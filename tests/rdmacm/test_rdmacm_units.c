/* SPDX-License-Identifier: MIT */
/* The parts of uroce's librdmacm that need no port (docs/rdmacm.md "Tests"): event names,
 * the CM-event to rdma_cm-event table, the port spaces, and the translation layer driven by
 * two in-process CMs that pass their MADs to each other (a listener's CONNECT_REQUEST with
 * the user's private data and the peer's values turned round, the MRA that answers a
 * repeated REQ while the application decides, CONNECT_RESPONSE, ESTABLISHED, REJECTED with
 * status 28 and the private data, DISCONNECTED once per side, UNREACHABLE after the REQ's
 * retries, SIDR's ESTABLISHED with the UD parameters), the event channel's fd (readable
 * exactly while events are queued; O_NONBLOCK honoured), the id's event accounting, and
 * rdma_migrate_id's moving of queued events. */
#include "testutil.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/error.h"
#include "rdmacm/priv.h"

#define SEC 1000000000ull

/* ---- Two CMs that talk to each other, without a port ---- */

static uint64_t t_now;

/* A device without a port: the translation layer never calls its bridge (callbacks are
 * handed the time); a call would crash the test. */
static const struct uv_bridge fake_bridge;

struct side {
	struct cma_dev dev;
	struct cma_channel *ch;
};

static struct side sides[2];
static uint16_t mads_sent[2][0x20]; /* by attribute ID, per side */
static uint32_t next_qpn;            /* A's QPs: 0x111, 0x112, ... */

static struct uroce_io_addr addr_of(int i)
{
	struct uroce_io_addr a = {0};

	a.ip[0] = 10;
	a.ip[3] = (uint8_t)(i + 1);
	return a;
}

static struct cma_channel *new_channel(void)
{
	struct cma_channel *ch = calloc(1, sizeof(*ch));

	assert_non_null(ch);
	ch->ch.fd = eventfd(0, EFD_CLOEXEC);
	assert_true(ch->ch.fd >= 0);
	pthread_mutex_init(&ch->mu, NULL);
	ch->tail = &ch->head;
	return ch;
}

static void side_init(int i)
{
	struct side *s = &sides[i];
	struct uroce_cm_cfg cfg = {.ca_guid = 0x1000 + (uint64_t)i, .seed = 7 + (uint64_t)i,
				   .tid_high = 2, .ack_delay = 15};

	memset(s, 0, sizeof(*s));
	assert_int_equal(uroce_cm_new(&cfg, &s->dev.cm), 0);
	s->dev.bridge = &fake_bridge;
	s->dev.ngids = 1;
	s->dev.gid[0].addr = addr_of(i);
	s->dev.mtu = IBV_MTU_1024;
	s->dev.max_init_depth = s->dev.max_resp_res = 16;
	s->ch = new_channel();
}

static int setup(void **state)
{
	(void)state;
	t_now = SEC;
	next_qpn = 0x111;
	memset(mads_sent, 0, sizeof(mads_sent));
	side_init(0);
	side_init(1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		uroce_cm_free(sides[i].dev.cm);
		rdma_destroy_event_channel(&sides[i].ch->ch);
	}
	return 0;
}

/* Delivers every queued MAD (lose: drop those from side `lose`, -1 none) until quiet, and
 * has each side translate its CM's events, as the port's round does. */
static void run(int lose)
{
	bool moved;

	do {
		moved = false;
		for (int i = 0; i < 2; i++) {
			struct uroce_cm_mad m;

			while (uroce_cm_next_mad(sides[i].dev.cm, &m)) {
				uint16_t attr = (uint16_t)(m.data[16] << 8 | m.data[17]);
				struct uroce_io_addr to = m.peer;

				/* Received: from the sender's address, to the receiver's. */
				m.peer = m.local;
				m.local = to;
				moved = true;
				mads_sent[i][attr & 0x1F]++;
				if (i == lose)
					continue;
				uroce_cm_recv(sides[!i].dev.cm, &m, t_now);
			}
			cma_dev_drain(&sides[i].dev, t_now);
		}
	} while (moved);
}

static void advance(uint64_t ns, int lose)
{
	t_now += ns;
	for (int i = 0; i < 2; i++) {
		uroce_cm_on_timer(sides[i].dev.cm, t_now);
		cma_dev_drain(&sides[i].dev, t_now);
	}
	run(lose);
}

static bool readable(const struct cma_channel *ch)
{
	struct pollfd p = {.fd = ch->ch.fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* The next event of a channel (nonblocking), which must be of this type. */
static struct rdma_cm_event *take(struct cma_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = NULL;

	fcntl(ch->ch.fd, F_SETFL, O_NONBLOCK);
	assert_true(readable(ch));
	assert_int_equal(rdma_get_cm_event(&ch->ch, &ev), 0);
	assert_string_equal(rdma_event_str(ev->event), rdma_event_str(type));
	return ev;
}

static void assert_empty(struct cma_channel *ch)
{
	struct rdma_cm_event *ev;

	fcntl(ch->ch.fd, F_SETFL, O_NONBLOCK);
	assert_false(readable(ch));
	errno = 0;
	assert_int_equal(rdma_get_cm_event(&ch->ch, &ev), -1);
	assert_int_equal(errno, EAGAIN);
}

static struct cma_id *new_id(int side, enum rdma_port_space ps)
{
	struct cma_id *c = cma_id_alloc(&sides[side].ch->ch, NULL, ps,
					ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC);

	assert_non_null(c);
	cma_id_set_dev(c, &sides[side].dev, 0);
	return c;
}

static void release(struct cma_id *c)
{
	/* The application's rdma_destroy_id without the port lock (there is no port). */
	if (c->cm_id)
		uroce_cm_destroy_id(c->cm_id, t_now);
	cma_id_free(c);
}

#define PORT_B 7471
#define PORT_A 40000

static struct cma_id *listener(enum rdma_port_space ps)
{
	struct cma_id *l = new_id(1, ps);
	struct uroce_cm_id *lid;

	assert_int_equal(uroce_cm_create_id(sides[1].dev.cm, l, &lid), 0);
	assert_int_equal(uroce_cm_listen(lid, uroce_rdma_service_id((uint16_t)ps, PORT_B), 0), 0);
	l->listen_cm[0] = lid;
	l->state = CMA_LISTEN;
	return l;
}

/* A's connect as rdma_connect sends it: the IP CM header, then the user's data. */
static struct cma_id *connect_a(const char *user, uint8_t retries)
{
	struct cma_id *a = new_id(0, RDMA_PS_TCP);
	struct uroce_io_addr sa = addr_of(0), da = addr_of(1);
	uint8_t pd[UROCE_CM_REQ_PRIVATE_LEN];
	struct uroce_cm_req_param r = {0};
	ssize_t len = uroce_rdma_hdr_encode(pd, sizeof(pd), &sa, PORT_A, &da, user, strlen(user));

	assert_true(len > 0);
	uroce_rdma_iboe_path(&a->path, &sa, PORT_A, &da, PORT_B, 0, 64, IBV_MTU_1024, 0, 0);
	r.path = a->path;
	r.service_id = uroce_rdma_service_id(RDMA_PS_TCP, PORT_B);
	r.qpn = next_qpn++;
	r.transport = UROCE_CM_TRANSPORT_RC;
	r.starting_psn = 0x1234;
	r.responder_resources = 3;
	r.initiator_depth = 5;
	r.remote_cm_response_timeout = UROCE_RDMA_CM_RESPONSE_TIMEOUT;
	r.local_cm_response_timeout = UROCE_RDMA_CM_RESPONSE_TIMEOUT;
	r.retry_count = 6;
	r.rnr_retry_count = 4;
	r.max_cm_retries = retries;
	r.private_data = pd;
	r.private_data_len = (uint8_t)len;
	assert_int_equal(uroce_cm_create_id(sides[0].dev.cm, a, &a->cm_id), 0);
	assert_int_equal(uroce_cm_send_req(a->cm_id, &r, t_now), 0);
	a->state = CMA_CONNECT;
	return a;
}

/* ---- Tests ---- */

static void test_event_str(void **state)
{
	(void)state;
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_ADDR_RESOLVED),
			    "RDMA_CM_EVENT_ADDR_RESOLVED");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_CONNECT_REQUEST),
			    "RDMA_CM_EVENT_CONNECT_REQUEST");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_REJECTED), "RDMA_CM_EVENT_REJECTED");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_MULTICAST_JOIN),
			    "RDMA_CM_EVENT_MULTICAST_JOIN");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_TIMEWAIT_EXIT),
			    "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	assert_string_equal(rdma_event_str((enum rdma_cm_event_type)16), "UNKNOWN EVENT");
	assert_string_equal(rdma_event_str((enum rdma_cm_event_type)-1), "UNKNOWN EVENT");
}

static void test_event_table(void **state)
{
	struct uroce_cm_event ev;
	int st;

	(void)state;
	memset(&ev, 0, sizeof(ev));
	ev.type = UROCE_CM_EV_REJ_RECEIVED;
	ev.msg.rej.reason = UROCE_CM_REJ_CONSUMER_DEFINED;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_REJECTED);
	assert_int_equal(st, 28);
	ev.type = UROCE_CM_EV_REQ_ERROR;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(st, -ETIMEDOUT);
	ev.type = UROCE_CM_EV_REP_ERROR;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_UNREACHABLE);
	ev.type = UROCE_CM_EV_MRA_RECEIVED;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), -1);
	ev.type = UROCE_CM_EV_LAP_RECEIVED;
	assert_int_equal(cma_event_type(&ev, CMA_ESTABLISHED, &st), -1);
	ev.type = UROCE_CM_EV_USER_ESTABLISHED;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_ESTABLISHED);
	/* DISCONNECTED once: not after the first. */
	ev.type = UROCE_CM_EV_DREQ_RECEIVED;
	assert_int_equal(cma_event_type(&ev, CMA_ESTABLISHED, &st), RDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(cma_event_type(&ev, CMA_DISCONNECT, &st), -1);
	ev.type = UROCE_CM_EV_DREQ_ERROR;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_DISCONNECTED);
	ev.type = UROCE_CM_EV_TIMEWAIT_EXIT;
	assert_int_equal(cma_event_type(&ev, CMA_DISCONNECT, &st), RDMA_CM_EVENT_TIMEWAIT_EXIT);
	ev.type = UROCE_CM_EV_SIDR_REP_RECEIVED;
	ev.msg.sidr_rep.qkey = RDMA_UDP_QKEY;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_ESTABLISHED);
	assert_int_equal(st, 0);
	ev.msg.sidr_rep.qkey = 0x80010000;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(st, -EINVAL);
	ev.msg.sidr_rep.status = UROCE_CM_SIDR_UNSUPPORTED;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), RDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(st, UROCE_CM_SIDR_UNSUPPORTED);
	ev.type = (enum uroce_cm_event_type)UROCE_CM_NEVENTS;
	assert_int_equal(cma_event_type(&ev, CMA_CONNECT, &st), -1);
}

static void test_ports(void **state)
{
	int o1, o2, o3;
	uint16_t p = 0, q = 0, r;

	(void)state;
	cma_ports_seed(12345);
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &p, false, &o1), 0);
	assert_true(p >= 32768 && p <= 60999);
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &q, false, &o2), 0);
	assert_int_not_equal(p, q);
	/* The same port: in use, unless both ask for reuse and neither listens. */
	r = p;
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &r, false, &o3), -EADDRINUSE);
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &r, true, &o3), -EADDRINUSE);
	/* Another port space is another table. */
	assert_int_equal(cma_port_get(RDMA_PS_UDP, &r, false, &o3), 0);
	cma_port_put(RDMA_PS_UDP, r, &o3);
	cma_port_put(RDMA_PS_TCP, p, &o1);
	r = p;
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &r, true, &o1), 0);
	r = p;
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &r, true, &o3), 0);
	assert_int_equal(cma_port_listen(RDMA_PS_TCP, p, &o1), -EADDRINUSE);
	cma_port_put(RDMA_PS_TCP, p, &o3);
	assert_int_equal(cma_port_listen(RDMA_PS_TCP, p, &o1), 0);
	r = p;
	assert_int_equal(cma_port_get(RDMA_PS_TCP, &r, true, &o3), -EADDRINUSE);
	cma_port_put(RDMA_PS_TCP, p, &o1);
	cma_port_put(RDMA_PS_TCP, q, &o2);
	r = 0;
	assert_int_equal(cma_port_get(RDMA_PS_IB, &r, false, &o1), 0);
	cma_port_put(RDMA_PS_IB, r, &o1);
}

/* Socket addresses to the CM's and back: ports in network order, an IPv4-mapped IPv6 address
 * taken as the IPv4 address (a GID's form), IPv6 kept. */
static void test_addresses(void **state)
{
	struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(7471)};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(18515)};
	struct sockaddr_storage ss;
	struct uroce_io_addr a;
	uint16_t port;

	(void)state;
	inet_pton(AF_INET, "127.0.0.2", &s4.sin_addr);
	cma_addr_from_sa(&a, &port, (struct sockaddr *)&s4);
	assert_false(a.ipv6);
	assert_int_equal(port, 7471);
	assert_memory_equal(a.ip, "\x7f\0\0\x02", 4);
	cma_sa_from_addr(&ss, &a, port);
	assert_memory_equal(&ss, &s4, sizeof(s4));
	inet_pton(AF_INET6, "::ffff:10.0.0.9", &s6.sin6_addr);
	cma_addr_from_sa(&a, &port, (struct sockaddr *)&s6);
	assert_false(a.ipv6);
	assert_int_equal(port, 18515);
	assert_memory_equal(a.ip, "\x0a\0\0\x09", 4);
	inet_pton(AF_INET6, "fd00::2", &s6.sin6_addr);
	cma_addr_from_sa(&a, NULL, (struct sockaddr *)&s6);
	assert_true(a.ipv6);
	assert_memory_equal(a.ip, &s6.sin6_addr, 16);
	cma_sa_from_addr(&ss, &a, 18515);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_memory_equal(&((struct sockaddr_in6 *)&ss)->sin6_addr, &s6.sin6_addr, 16);
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 18515);
}

static void test_ps(void **state)
{
	(void)state;
	assert_true(cma_ps_ok(RDMA_PS_TCP));
	assert_true(cma_ps_ok(RDMA_PS_UDP));
	assert_true(cma_ps_ok(RDMA_PS_IB));
	assert_false(cma_ps_ok(RDMA_PS_IPOIB));
	assert_false(cma_ps_ok((enum rdma_port_space)0x1234));
}

static void test_connect_request_accept_disconnect(void **state)
{
	struct cma_id *l = listener(RDMA_PS_TCP), *a, *b;
	struct rdma_cm_event *ev;
	struct uroce_cm_rep_param rep = {.qpn = 0x222, .starting_psn = 0x5678,
					 .responder_resources = 5, .initiator_depth = 3,
					 .rnr_retry_count = 7, .private_data = "rep!",
					 .private_data_len = 4};

	(void)state;
	assert_empty(sides[1].ch);
	a = connect_a("hello", 15);
	run(-1);
	ev = take(sides[1].ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->listen_id, &l->id);
	b = cma_id_of(ev->id);
	assert_ptr_not_equal(b, l);
	assert_int_equal(ev->status, 0);
	/* The user's data after the 36-byte header, 56 bytes of it (cma_format_req_event). */
	assert_int_equal(ev->param.conn.private_data_len, UROCE_CM_REQ_PRIVATE_LEN - 36);
	assert_memory_equal(ev->param.conn.private_data, "hello", 5);
	/* The peer's view turned round. */
	assert_int_equal(ev->param.conn.initiator_depth, 3);
	assert_int_equal(ev->param.conn.responder_resources, 5);
	assert_int_equal(ev->param.conn.retry_count, 6);
	assert_int_equal(ev->param.conn.rnr_retry_count, 4);
	assert_int_equal(ev->param.conn.qp_num, 0x111);
	/* The new id: addresses from the header and the MAD, the device's GID, the path. */
	assert_ptr_equal(b->dev, &sides[1].dev);
	assert_int_equal(b->state, CMA_CONNECT);
	assert_int_equal(ntohs(rdma_get_src_port(&b->id)), PORT_B);
	assert_int_equal(ntohs(rdma_get_dst_port(&b->id)), PORT_A);
	assert_int_equal(b->id.route.num_paths, 1);
	assert_int_equal(b->id.route.path_rec->hop_limit, 64);
	assert_int_equal(be16toh(b->id.route.path_rec->pkey), 0xFFFF);
	assert_empty(sides[1].ch);

	/* A repeated REQ while the application decides gets an MRA (CMA_CM_MRA_SETTING). */
	assert_int_equal(mads_sent[1][UROCE_CM_ATTR_MRA], 0);
	advance(uroce_cm_time_ns(UROCE_RDMA_CM_RESPONSE_TIMEOUT) * 2, -1);
	assert_int_equal(mads_sent[0][UROCE_CM_ATTR_REQ], 2);
	assert_int_equal(mads_sent[1][UROCE_CM_ATTR_MRA], 1);
	assert_empty(sides[0].ch); /* MRA_RECEIVED is not an rdma_cm event */
	assert_empty(sides[1].ch);

	/* Accepted: A's CONNECT_RESPONSE (no QP: the application sends the RTU). */
	assert_int_equal(uroce_cm_send_rep(b->cm_id, &rep, t_now), 0);
	rdma_ack_cm_event(ev);
	run(-1);
	ev = take(sides[0].ch, RDMA_CM_EVENT_CONNECT_RESPONSE);
	assert_ptr_equal(ev->id, &a->id);
	assert_int_equal(ev->param.conn.qp_num, 0x222);
	assert_int_equal(ev->param.conn.initiator_depth, 5);
	assert_int_equal(ev->param.conn.responder_resources, 3);
	assert_memory_equal(ev->param.conn.private_data, "rep!", 4);
	assert_int_equal(a->reported, 1);
	rdma_ack_cm_event(ev);
	assert_int_equal(a->completed, 1);
	assert_int_equal(uroce_cm_send_rtu(a->cm_id, NULL, 0), 0);
	run(-1);
	ev = take(sides[1].ch, RDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, &b->id);
	assert_int_equal(b->state, CMA_ESTABLISHED);
	rdma_ack_cm_event(ev);
	a->state = CMA_ESTABLISHED;

	/* B disconnects: one DISCONNECTED each side, then timewait's end on both. */
	assert_int_equal(uroce_cm_send_dreq(b->cm_id, NULL, 0, t_now), 0);
	run(-1);
	ev = take(sides[0].ch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	assert_int_equal(uroce_cm_send_drep(a->cm_id, NULL, 0, t_now), 0);
	run(-1);
	ev = take(sides[1].ch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_ack_cm_event(ev);
	assert_empty(sides[0].ch);
	assert_empty(sides[1].ch);
	advance(10 * SEC, -1);
	rdma_ack_cm_event(take(sides[0].ch, RDMA_CM_EVENT_TIMEWAIT_EXIT));
	rdma_ack_cm_event(take(sides[1].ch, RDMA_CM_EVENT_TIMEWAIT_EXIT));
	assert_empty(sides[0].ch);
	release(a);
	release(b);
	l->cm_id = l->listen_cm[0];
	release(l);
}

static void test_reject_private_data(void **state)
{
	struct cma_id *l = listener(RDMA_PS_TCP), *a, *b;
	struct rdma_cm_event *ev;

	(void)state;
	a = connect_a("x", 15);
	run(-1);
	ev = take(sides[1].ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	b = cma_id_of(ev->id);
	/* rdma_reject: REJ "consumer defined" with the private data. */
	assert_int_equal(uroce_cm_send_rej(b->cm_id, UROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0,
					   "go away", 7, t_now),
			 0);
	rdma_ack_cm_event(ev);
	run(-1);
	ev = take(sides[0].ch, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, 28);
	assert_int_equal(ev->param.conn.private_data_len, UROCE_CM_REJ_PRIVATE_LEN);
	assert_memory_equal(ev->param.conn.private_data, "go away", 7);
	assert_int_equal(((struct cma_event *)ev)->post, CMA_POST_REJECTED);
	rdma_ack_cm_event(ev);
	release(a);
	release(b);
	l->cm_id = l->listen_cm[0];
	release(l);
}

static void test_no_listener_and_unreachable(void **state)
{
	struct cma_id *a;
	struct rdma_cm_event *ev;

	(void)state;
	/* No listener: the peer's CM rejects (invalid Service ID). */
	a = connect_a("", 15);
	run(-1);
	ev = take(sides[0].ch, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, UROCE_CM_REJ_INVALID_SERVICE_ID);
	rdma_ack_cm_event(ev);
	release(a);
	/* Nobody answers: UNREACHABLE -ETIMEDOUT after the retries, never a hang. */
	a = connect_a("", 2);
	run(0);
	for (int i = 0; i < 10; i++)
		advance(10 * SEC, 0);
	ev = take(sides[0].ch, RDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(ev->status, -ETIMEDOUT);
	rdma_ack_cm_event(ev);
	assert_int_equal(mads_sent[0][UROCE_CM_ATTR_REQ], 1 + 1 + 2);
	assert_empty(sides[0].ch);
	release(a);
}

static void test_sidr(void **state)
{
	struct cma_id *l = listener(RDMA_PS_UDP), *a = new_id(0, RDMA_PS_UDP), *b;
	struct uroce_io_addr sa = addr_of(0), da = addr_of(1);
	uint8_t pd[UROCE_CM_SIDR_REQ_PRIVATE_LEN];
	struct uroce_cm_sidr_req_param r = {0};
	struct uroce_cm_sidr_rep_param rep = {.status = UROCE_CM_SIDR_SUCCESS, .qpn = 0x333,
					      .qkey = RDMA_UDP_QKEY};
	struct rdma_cm_event *ev;
	union ibv_gid dgid;

	(void)state;
	uroce_rdma_iboe_path(&a->path, &sa, PORT_A, &da, PORT_B, 0, 64, IBV_MTU_1024, 0, 0);
	r.path = a->path;
	r.service_id = uroce_rdma_service_id(RDMA_PS_UDP, PORT_B);
	r.timeout_ns = SEC;
	r.max_cm_retries = 3;
	r.private_data = pd;
	r.private_data_len = (uint8_t)uroce_rdma_hdr_encode(pd, sizeof(pd), &sa, PORT_A, &da,
							    "ud", 2);
	assert_int_equal(uroce_cm_create_id(sides[0].dev.cm, a, &a->cm_id), 0);
	assert_int_equal(uroce_cm_send_sidr_req(a->cm_id, &r, t_now), 0);
	a->state = CMA_CONNECT;
	run(-1);
	ev = take(sides[1].ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	b = cma_id_of(ev->id);
	assert_int_equal(ev->param.ud.private_data_len, UROCE_CM_SIDR_REQ_PRIVATE_LEN - 36);
	assert_memory_equal(ev->param.ud.private_data, "ud", 2);
	assert_int_equal(mads_sent[1][UROCE_CM_ATTR_MRA], 0); /* no MRA for SIDR */
	assert_int_equal(uroce_cm_send_sidr_rep(b->cm_id, &rep), 0);
	rdma_ack_cm_event(ev);
	run(-1);
	ev = take(sides[0].ch, RDMA_CM_EVENT_ESTABLISHED);
	assert_int_equal(ev->param.ud.qp_num, 0x333);
	assert_int_equal(ev->param.ud.qkey, RDMA_UDP_QKEY);
	assert_int_equal(ev->param.ud.ah_attr.is_global, 1);
	assert_int_equal(ev->param.ud.ah_attr.port_num, 1);
	assert_int_equal(ev->param.ud.ah_attr.grh.hop_limit, 64);
	uroce_cm_gid_from_addr(dgid.raw, &da);
	assert_memory_equal(ev->param.ud.ah_attr.grh.dgid.raw, dgid.raw, 16);
	rdma_ack_cm_event(ev);
	release(a);
	release(b);
	l->cm_id = l->listen_cm[0];
	release(l);
}

/* A listener destroyed with requests it never handed out: their ids are destroyed (their
 * REQs rejected), nothing is left on the channel, and the fd is no longer readable. */
static void test_unqueue(void **state)
{
	struct cma_id *l = listener(RDMA_PS_TCP), *a1, *a2, *kids[4];
	struct rdma_cm_event *ev;
	int n;

	(void)state;
	a1 = connect_a("1", 15);
	a2 = connect_a("2", 15);
	run(-1);
	assert_true(readable(sides[1].ch));
	uroce_cm_destroy_id(l->listen_cm[0], t_now);
	cma_unqueue(l, kids, &n, 4);
	assert_int_equal(n, 2);
	assert_false(readable(sides[1].ch));
	for (int i = 0; i < n; i++) {
		assert_ptr_equal(kids[i]->parent, l);
		release(kids[i]);
	}
	run(-1);
	ev = take(sides[0].ch, RDMA_CM_EVENT_REJECTED);
	rdma_ack_cm_event(ev);
	ev = take(sides[0].ch, RDMA_CM_EVENT_REJECTED);
	rdma_ack_cm_event(ev);
	assert_empty(sides[1].ch);
	release(a1);
	release(a2);
	cma_id_free(l);
}

/* rdma_migrate_id: the id's queued events follow it to the new channel, the old one's fd is
 * no longer readable, the new one's is; events of other ids stay. */
static void test_migrate(void **state)
{
	struct cma_id *a = new_id(0, RDMA_PS_TCP), *other = new_id(0, RDMA_PS_TCP);
	struct cma_channel *nw = new_channel();
	struct rdma_cm_event *ev;

	(void)state;
	cma_enqueue(cma_event_new(a, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	cma_enqueue(cma_event_new(other, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	cma_enqueue(cma_event_new(a, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	assert_int_equal(rdma_migrate_id(&a->id, &nw->ch), 0);
	assert_ptr_equal(a->id.channel, &nw->ch);
	ev = take(nw, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_ptr_equal(ev->id, &a->id);
	rdma_ack_cm_event(ev);
	rdma_ack_cm_event(take(nw, RDMA_CM_EVENT_ROUTE_RESOLVED));
	assert_empty(nw);
	ev = take(sides[0].ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_ptr_equal(ev->id, &other->id);
	rdma_ack_cm_event(ev);
	assert_empty(sides[0].ch);
	assert_int_equal(a->reported, 2);
	assert_int_equal(a->completed, 2);
	release(a);
	release(other);
	rdma_destroy_event_channel(&nw->ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_str),
		cmocka_unit_test(test_event_table),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_ps),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test_setup_teardown(test_connect_request_accept_disconnect, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reject_private_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_listener_and_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sidr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unqueue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

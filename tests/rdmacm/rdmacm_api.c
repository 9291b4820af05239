/* SPDX-License-Identifier: MIT */
/* The rdma_cm API of uroce's librdmacm.so.1 in one process on one address (run by
 * tests/rdmacm/test_api.sh in a network namespace of its own, UROCE_IP=127.0.0.1): what
 * needs a device and its port but no second program. Each check prints "ok NAME" or
 * "FAIL NAME: why"; the exit code is the number of failures.
 *  - rdma_getaddrinfo: numeric, a name through the resolver, RAI_PASSIVE, the service's
 *    port, the default port space and QP type, a name that does not resolve.
 *  - rdma_get_devices; rdma_create_id's port spaces; the channel fd with O_NONBLOCK (EAGAIN).
 *  - rdma_bind_addr: port 0 picks one; the same port again: EADDRINUSE, also for listen;
 *    an address that is not the device's: EADDRNOTAVAIL; a loopback address that is not
 *    the device's: bound without a device, as a wildcard.
 *  - rdma_resolve_addr to an address no route leads to: ADDR_ERROR, not a hang.
 *  - A connection to a port with no listener: REJECTED.
 *  - perftest -R's client retrying after a REQ that came before the listen (REJECTED, 8):
 *    with a new channel, rdma_addrinfo and id, it connects once the server listens.
 *  - rdma_reject with private data: the peer's REJECTED, status 28, the data.
 *  - A connection accepted, data over it, rdma_disconnect: DISCONNECTED on both sides.
 *  - ECE: EOPNOTSUPP; rsocket of a type or protocol rsockets do not have: EPROTONOSUPPORT
 *    (stream rsockets: rsocket_api.c, datagram ones: rsocket_dgram.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"


/* The next event, within 20 s (never a hang). */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch)
{
	struct pollfd p = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev;

	if (poll(&p, 1, 20000) != 1)
		return NULL;
	return rdma_get_cm_event(ch, &ev) ? NULL : ev;
}

static void test_getaddrinfo(void)
{
	struct rdma_addrinfo hints = {0}, *res = NULL;
	struct sockaddr_in *s;
	int rc;

	rc = rdma_getaddrinfo("127.0.0.1", "7471", NULL, &res);
	CHECK("getaddrinfo numeric", !rc && res && res->ai_dst_addr && !res->ai_src_addr &&
		      res->ai_port_space == RDMA_PS_TCP && res->ai_qp_type == IBV_QPT_RC,
	      "rc %d", rc);
	if (!rc) {
		s = (struct sockaddr_in *)res->ai_dst_addr;
		CHECK("getaddrinfo port", s->sin_family == AF_INET && ntohs(s->sin_port) == 7471 &&
			      s->sin_addr.s_addr == htonl(0x7F000001),
		      "family %d port %u", s->sin_family, ntohs(s->sin_port));
		rdma_freeaddrinfo(res);
	}
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_UDP;
	rc = rdma_getaddrinfo("localhost", "7472", &hints, &res);
	CHECK("getaddrinfo passive name", !rc && res && res->ai_src_addr && !res->ai_dst_addr &&
		      res->ai_qp_type == IBV_QPT_UD && res->ai_port_space == RDMA_PS_UDP,
	      "rc %d", rc);
	if (!rc)
		rdma_freeaddrinfo(res);
	hints.ai_flags = RAI_NUMERICHOST;
	rc = rdma_getaddrinfo("localhost", "7472", &hints, &res);
	CHECK("getaddrinfo RAI_NUMERICHOST refuses a name", rc != 0, "rc %d", rc);
	rc = rdma_getaddrinfo("no-such-host.invalid", "1", NULL, &res);
	CHECK("getaddrinfo unknown name", rc != 0, "rc 0");
}

static void test_basics(struct rdma_event_channel *ch)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	struct ibv_context **devs;
	int n = 0;

	devs = rdma_get_devices(&n);
	CHECK("rdma_get_devices", devs && n >= 1 && devs[0] && !devs[n] &&
		      !strncmp(ibv_get_device_name(devs[0]->device), "uroce", 5),
	      "%d devices", n);
	rdma_free_devices(devs);
	errno = 0;
	CHECK("create_id IPOIB", rdma_create_id(ch, &id, NULL, RDMA_PS_IPOIB) && errno == EINVAL,
	      "errno %d", errno);
	CHECK("create_id IB", !rdma_create_id(ch, &id, NULL, RDMA_PS_IB), "errno %d", errno);
	rdma_destroy_id(id);
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	errno = 0;
	CHECK("channel O_NONBLOCK", rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN,
	      "errno %d", errno);
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) & ~O_NONBLOCK);
	CHECK("ECE", !rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) &&
		      rdma_set_local_ece(id, &(struct ibv_ece){.vendor_id = 1}) == -1 &&
		      errno == EOPNOTSUPP,
	      "errno %d", errno);
	rdma_destroy_id(id);
	errno = 0;
	CHECK("rsocket SOCK_RAW EPROTONOSUPPORT", rsocket(AF_INET, SOCK_RAW, 0) == -1 &&
	      errno == EPROTONOSUPPORT, "errno %d", errno);
	errno = 0;
	CHECK("rsocket SOCK_DGRAM with TCP EPROTONOSUPPORT",
	      rsocket(AF_INET, SOCK_DGRAM, IPPROTO_TCP) == -1 && errno == EPROTONOSUPPORT, "errno %d",
	      errno);
}

static void test_ports(struct rdma_event_channel *ch)
{
	struct rdma_cm_id *a, *b;
	struct sockaddr_in s = sin4("127.0.0.1", 0);
	uint16_t port = 0;
	int one = 1;

	rdma_create_id(ch, &a, NULL, RDMA_PS_TCP);
	rdma_create_id(ch, &b, NULL, RDMA_PS_TCP);
	CHECK("bind port 0", !rdma_bind_addr(a, (struct sockaddr *)&s) &&
		      (port = ntohs(rdma_get_src_port(a))) != 0 && a->verbs,
	      "errno %d", errno);
	CHECK("listen", !rdma_listen(a, 8), "errno %d", errno);
	s.sin_port = rdma_get_src_port(a);
	errno = 0;
	CHECK("bind a port in use", rdma_bind_addr(b, (struct sockaddr *)&s) == -1 &&
		      errno == EADDRINUSE,
	      "errno %d", errno);
	rdma_destroy_id(b);
	rdma_create_id(ch, &b, NULL, RDMA_PS_TCP);
	rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one));
	errno = 0;
	CHECK("reuseaddr on a listening port", rdma_bind_addr(b, (struct sockaddr *)&s) == -1 &&
		      errno == EADDRINUSE,
	      "errno %d", errno);
	rdma_destroy_id(b);
	rdma_create_id(ch, &b, NULL, RDMA_PS_UDP);
	CHECK("another port space", !rdma_bind_addr(b, (struct sockaddr *)&s), "errno %d", errno);
	rdma_destroy_id(b);
	rdma_create_id(ch, &b, NULL, RDMA_PS_TCP);
	s = sin4("10.11.12.13", 0);
	errno = 0;
	CHECK("bind an address not ours", rdma_bind_addr(b, (struct sockaddr *)&s) == -1 &&
		      errno == EADDRNOTAVAIL,
	      "errno %d", errno);
	rdma_destroy_id(b);
	/* A loopback address that is no GID of ours binds as a wildcard, as in Linux
	 * (cma_any_addr): no device. libfabric's verbs provider binds "localhost" so. */
	rdma_create_id(ch, &b, NULL, RDMA_PS_TCP);
	s = sin4("127.0.0.9", 0);
	CHECK("bind a loopback address not ours: no device",
	      !rdma_bind_addr(b, (struct sockaddr *)&s) && !b->verbs && rdma_get_src_port(b),
	      "errno %d", errno);
	rdma_destroy_id(b);
	rdma_destroy_id(a);
	/* The port is free again. */
	rdma_create_id(ch, &a, NULL, RDMA_PS_TCP);
	s = sin4("127.0.0.1", port);
	CHECK("port free after destroy", !rdma_bind_addr(a, (struct sockaddr *)&s) &&
		      !rdma_listen(a, 1),
	      "errno %d", errno);
	rdma_destroy_id(a);
}

static void test_unreachable(struct rdma_event_channel *ch)
{
	struct rdma_cm_id *id;
	struct sockaddr_in d = sin4("192.0.2.1", 7000); /* TEST-NET-1: no route here */
	struct rdma_cm_event *ev;

	rdma_create_id(ch, &id, NULL, RDMA_PS_TCP);
	CHECK("resolve_addr unreachable returns", !rdma_resolve_addr(id, NULL, (struct sockaddr *)&d,
								     2000),
	      "errno %d", errno);
	ev = next_event(ch);
	CHECK("resolve_addr unreachable: ADDR_ERROR", ev && ev->event == RDMA_CM_EVENT_ADDR_ERROR &&
		      ev->status < 0,
	      "%s", ev ? rdma_event_str(ev->event) : "no event in 20 s");
	if (ev)
		rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
}

/* A client id to dst (from src, NULL: the route's) with a QP, up to rdma_connect. */
static struct rdma_cm_id *client_to(struct rdma_event_channel *ch, struct sockaddr *src,
				    struct sockaddr *dst, const char *pd)
{
	struct ibv_qp_init_attr qa = {.cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
					      .max_recv_sge = 1, .max_inline_data = 64},
				      .qp_type = IBV_QPT_RC};
	struct rdma_conn_param cp = {.private_data = pd, .private_data_len = (uint8_t)strlen(pd),
				     .responder_resources = 1, .initiator_depth = 1,
				     .retry_count = 7, .rnr_retry_count = 7};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) || rdma_resolve_addr(id, src, dst, 2000))
		return NULL;
	ev = next_event(ch);
	if (!ev || ev->event != RDMA_CM_EVENT_ADDR_RESOLVED)
		return NULL;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(id, 2000))
		return NULL;
	ev = next_event(ch);
	if (!ev || ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return NULL;
	rdma_ack_cm_event(ev);
	if (rdma_create_qp(id, NULL, &qa) || rdma_connect(id, &cp))
		return NULL;
	return id;
}

/* A client id to 127.0.0.1:port with a QP, up to rdma_connect. */
static struct rdma_cm_id *client(struct rdma_event_channel *ch, uint16_t port, const char *pd)
{
	struct sockaddr_in d = sin4("127.0.0.1", port);

	return client_to(ch, NULL, (struct sockaddr *)&d, pd);
}

static void test_connections(struct rdma_event_channel *sch, struct rdma_event_channel *cch)
{
	struct sockaddr_in s = sin4("127.0.0.1", 0);
	struct rdma_cm_id *l, *c, *a;
	struct rdma_cm_event *ev;
	struct ibv_qp_init_attr qa = {.cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
					      .max_recv_sge = 1, .max_inline_data = 64},
				      .qp_type = IBV_QPT_RC};
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char buf[64] = "";
	struct timespec t0, t1;
	uint16_t port;
	int n;

	rdma_create_id(sch, &l, NULL, RDMA_PS_TCP);
	if (rdma_bind_addr(l, (struct sockaddr *)&s) || rdma_listen(l, 4)) {
		CHECK("listener", 0, "errno %d", errno);
		return;
	}
	port = ntohs(rdma_get_src_port(l));

	/* No listener on port + 1: the peer's CM rejects (invalid Service ID). */
	c = client(cch, (uint16_t)(port + 1), "");
	ev = c ? next_event(cch) : NULL;
	CHECK("connect without a listener: REJECTED", ev && ev->event == RDMA_CM_EVENT_REJECTED,
	      "%s", ev ? rdma_event_str(ev->event) : "no event");
	if (ev)
		rdma_ack_cm_event(ev);
	if (c) {
		rdma_destroy_qp(c);
		rdma_destroy_id(c);
	}

	/* Rejected with private data. */
	c = client(cch, port, "reject me");
	ev = c ? next_event(sch) : NULL;
	CHECK("CONNECT_REQUEST", ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
		      ev->listen_id == l && !memcmp(ev->param.conn.private_data, "reject me", 9),
	      "%s", ev ? rdma_event_str(ev->event) : "no event");
	if (ev) {
		a = ev->id;
		CHECK("rdma_reject", !rdma_reject(a, "no, thanks", 10), "errno %d", errno);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(a);
		ev = next_event(cch);
		CHECK("REJECTED 28 with the data", ev && ev->event == RDMA_CM_EVENT_REJECTED &&
			      ev->status == 28 && ev->param.conn.private_data_len >= 10 &&
			      !memcmp(ev->param.conn.private_data, "no, thanks", 10),
		      "%s status %d", ev ? rdma_event_str(ev->event) : "no event",
		      ev ? ev->status : 0);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	if (c) {
		rdma_destroy_qp(c);
		rdma_destroy_id(c);
	}

	/* Accepted: a SEND over it, then disconnected from the client. The time from the
	 * address resolution to the client's ESTABLISHED is printed (not judged). */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c = client(cch, port, "hi");
	ev = c ? next_event(sch) : NULL;
	if (!ev || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		CHECK("second CONNECT_REQUEST", 0, "%s", ev ? rdma_event_str(ev->event) : "none");
		return;
	}
	a = ev->id;
	rdma_ack_cm_event(ev);
	mr = NULL;
	if (!rdma_create_qp(a, NULL, &qa) && (mr = rdma_reg_msgs(a, buf, sizeof(buf))) &&
	    !rdma_post_recv(a, NULL, buf, sizeof(buf), mr)) {
		struct rdma_conn_param cp = {.responder_resources = 1, .initiator_depth = 1,
					     .rnr_retry_count = 7};

		CHECK("rdma_accept", !rdma_accept(a, &cp), "errno %d", errno);
	} else {
		CHECK("server QP", 0, "errno %d", errno);
	}
	ev = next_event(cch);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK("client ESTABLISHED", ev && ev->event == RDMA_CM_EVENT_ESTABLISHED, "%s",
	      ev ? rdma_event_str(ev->event) : "no event");
	printf("connection set-up (resolve_addr to the client's ESTABLISHED, one process): %ld us\n",
	       (long)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000));
	if (ev)
		rdma_ack_cm_event(ev);
	ev = next_event(sch);
	CHECK("server ESTABLISHED", ev && ev->event == RDMA_CM_EVENT_ESTABLISHED && ev->id == a,
	      "%s", ev ? rdma_event_str(ev->event) : "no event");
	if (ev)
		rdma_ack_cm_event(ev);
	n = -1;
	if (!rdma_post_send(c, NULL, "ping over rdma_cm", 18, NULL, IBV_SEND_INLINE | IBV_SEND_SIGNALED))
		n = rdma_get_send_comp(c, &wc);
	CHECK("send completes", n == 1 && wc.status == IBV_WC_SUCCESS, "n %d status %d", n,
	      wc.status);
	n = rdma_get_recv_comp(a, &wc);
	CHECK("data received", n == 1 && wc.status == IBV_WC_SUCCESS && !strcmp(buf, "ping over rdma_cm"),
	      "n %d '%s'", n, buf);
	CHECK("rdma_disconnect", !rdma_disconnect(c), "errno %d", errno);
	ev = next_event(sch);
	CHECK("server DISCONNECTED", ev && ev->event == RDMA_CM_EVENT_DISCONNECTED, "%s",
	      ev ? rdma_event_str(ev->event) : "no event");
	if (ev)
		rdma_ack_cm_event(ev);
	rdma_disconnect(a);
	ev = next_event(cch);
	CHECK("client DISCONNECTED", ev && ev->event == RDMA_CM_EVENT_DISCONNECTED, "%s",
	      ev ? rdma_event_str(ev->event) : "no event");
	if (ev)
		rdma_ack_cm_event(ev);
	if (mr)
		rdma_dereg_mr(mr);
	rdma_destroy_qp(a);
	rdma_destroy_id(a);
	rdma_destroy_qp(c);
	rdma_destroy_id(c);
	rdma_destroy_id(l);
}

/* One client attempt as perftest's -R makes it (_rdma_cm_client_connection): an event
 * channel, rdma_getaddrinfo for the server's address and port, an id, rdma_resolve_addr with
 * the result's ai_src_addr (NULL) and ai_dst_addr, then a QP and rdma_connect. The id, or
 * NULL; the channel and address information in *ch and *rai. */
static struct rdma_cm_id *perftest_attempt(const char *service, struct rdma_event_channel **ch,
					   struct rdma_addrinfo **rai)
{
	struct rdma_addrinfo hints = {.ai_family = AF_INET, .ai_port_space = RDMA_PS_TCP};

	*rai = NULL;
	*ch = rdma_create_event_channel();
	if (!*ch || rdma_getaddrinfo("127.0.0.1", service, &hints, rai))
		return NULL;
	return client_to(*ch, (*rai)->ai_src_addr, (*rai)->ai_dst_addr, "");
}

/* The attempt's end, in perftest's order (rdma_cm_destroy_cma): the id, the channel, the
 * address information. */
static void perftest_teardown(struct rdma_cm_id *c, struct rdma_event_channel *ch,
			      struct rdma_addrinfo *rai)
{
	if (c) {
		rdma_destroy_qp(c);
		rdma_destroy_id(c);
	}
	if (ch)
		rdma_destroy_event_channel(ch);
	if (rai)
		rdma_freeaddrinfo(rai);
}

/* perftest's -R client rejected because its REQ reached the server before the server listened
 * (the kernel's CM rejects such a REQ at once: invalid Service ID, 8), then retrying with every
 * object made again (perftest 4.5 retries with the ids, channel and rdma_addrinfo it has just
 * destroyed, its own bug: docs/rdmacm.md "Open"): the retry connects once the server listens,
 * so the rejected attempt left nothing behind on either side. */
static void test_retry_after_reject(struct rdma_event_channel *sch)
{
	struct sockaddr_in s = sin4("127.0.0.1", 0);
	struct ibv_qp_init_attr qa = {.cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
					      .max_recv_sge = 1},
				      .qp_type = IBV_QPT_RC};
	struct rdma_conn_param cp = {.responder_resources = 1, .initiator_depth = 1,
				     .rnr_retry_count = 7};
	struct rdma_event_channel *ch;
	struct rdma_addrinfo *rai;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *l, *c, *a = NULL;
	char service[8];

	/* The server's port is bound, its listen not made yet. */
	rdma_create_id(sch, &l, NULL, RDMA_PS_TCP);
	if (rdma_bind_addr(l, (struct sockaddr *)&s)) {
		CHECK("retry: bind", 0, "errno %d", errno);
		rdma_destroy_id(l);
		return;
	}
	snprintf(service, sizeof(service), "%u", ntohs(rdma_get_src_port(l)));
	c = perftest_attempt(service, &ch, &rai);
	ev = c ? next_event(ch) : NULL;
	CHECK("retry: a REQ before the listen: REJECTED, invalid Service ID (8)",
	      ev && ev->event == RDMA_CM_EVENT_REJECTED && ev->status == 8, "%s status %d",
	      ev ? rdma_event_str(ev->event) : "no event", ev ? ev->status : 0);
	if (ev)
		rdma_ack_cm_event(ev);
	perftest_teardown(c, ch, rai);

	CHECK("retry: listen", !rdma_listen(l, 1), "errno %d", errno);
	c = perftest_attempt(service, &ch, &rai);
	ev = c ? next_event(sch) : NULL;
	CHECK("retry: CONNECT_REQUEST at the server", ev &&
		      ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && ev->listen_id == l,
	      "%s", ev ? rdma_event_str(ev->event) : "no event");
	if (ev && ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		a = ev->id;
		CHECK("retry: accept", !rdma_create_qp(a, NULL, &qa) && !rdma_accept(a, &cp),
		      "errno %d", errno);
	}
	if (ev)
		rdma_ack_cm_event(ev);
	ev = c ? next_event(ch) : NULL;
	CHECK("retry: the client ESTABLISHED", ev && ev->event == RDMA_CM_EVENT_ESTABLISHED, "%s",
	      ev ? rdma_event_str(ev->event) : "no event");
	if (ev)
		rdma_ack_cm_event(ev);
	if (a) {
		ev = next_event(sch);
		CHECK("retry: the server ESTABLISHED", ev && ev->event == RDMA_CM_EVENT_ESTABLISHED &&
			      ev->id == a,
		      "%s", ev ? rdma_event_str(ev->event) : "no event");
		if (ev)
			rdma_ack_cm_event(ev);
		rdma_disconnect(c);
		ev = next_event(sch);
		if (ev)
			rdma_ack_cm_event(ev);
		rdma_destroy_qp(a);
		rdma_destroy_id(a);
		ev = next_event(ch);
		if (ev)
			rdma_ack_cm_event(ev);
	}
	perftest_teardown(c, ch, rai);
	rdma_destroy_id(l);
}

struct late_call {
	struct rdma_event_channel *ch;
	int rc, err;
	int done;
};

static void *late_event_thread(void *arg)
{
	struct late_call *late = arg;
	struct rdma_cm_event *ev;

	late->rc = rdma_get_cm_event(late->ch, &ev);
	late->err = errno;
	__atomic_store_n(&late->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* rdma_get_cm_event on channels already destroyed (by this thread, A and B). */
static void test_destroyed_channel(struct rdma_event_channel *a, struct rdma_event_channel *b)
{
	struct rdma_cm_event *ev = NULL;
	int rc = rdma_get_cm_event(a, &ev);

	/* the destroying thread's own mistake: EBADF, as from the kernel's closed file */
	CHECK("rdma_get_cm_event on a channel this thread destroyed: -1, EBADF",
	      rc == -1 && errno == EBADF, "rc %d errno %d", rc, errno);

	/* rping's event thread loops back to rdma_get_cm_event while its main thread destroys
	 * the channel, and exits 255 if the call fails: it stays blocked, as it would in the
	 * kernel's read had it got there first (it is never joined) */
	static struct late_call late; /* the thread outlives this frame */
	pthread_t t;
	int i;

	late.ch = b;
	if (pthread_create(&t, NULL, late_event_thread, &late)) {
		CHECK("pthread_create", 0, "%s", strerror(errno));
		return;
	}
	for (i = 0; i < 50 && !__atomic_load_n(&late.done, __ATOMIC_ACQUIRE); i++)
		nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
	CHECK("rdma_get_cm_event on a channel another thread destroyed: stays blocked",
	      !__atomic_load_n(&late.done, __ATOMIC_ACQUIRE), "returned %d errno %d", late.rc,
	      late.err);
	pthread_detach(t);
}

int main(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel(), *ch2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!ch) {
		printf("FAIL rdma_create_event_channel: %s\n", strerror(errno));
		return 1;
	}
	ch2 = rdma_create_event_channel();
	test_getaddrinfo();
	test_basics(ch);
	test_ports(ch);
	test_unreachable(ch);
	test_connections(ch, ch2);
	test_retry_after_reject(ch);
	rdma_destroy_event_channel(ch2);
	rdma_destroy_event_channel(ch);
	test_destroyed_channel(ch, ch2);
	printf("%d failures\n", fails);
	return fails;
}

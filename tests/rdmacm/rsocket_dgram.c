/* SPDX-License-Identifier: MIT */
/* Datagram rsockets of uroce's librdmacm.so.1, server and client (run by
 * tests/rdmacm/test_rsocket_dgram.sh: "rsocket_dgram s PORT" and "rsocket_dgram c PORT",
 * both with UROCE_IP=127.0.0.1, one address two processes share). Each check prints "ok NAME"
 * or "FAIL NAME: why"; the last line is "N failures", the exit code N.
 *  - the server: SO_RCVBUF doubled, rbind and rgetsockname, rrecvfrom EAGAIN on a nonblocking
 *    socket with nothing sent, rpoll POLLIN for the client's first datagram, whose address
 *    rrecvfrom reports (its port sent back, for the client to compare with its
 *    rgetsockname); then it echoes every datagram to its sender with rsendto, MSG_PEEK first once, into two
 *    iovecs by rrecvmsg once, until "bye";
 *  - the client: rsendto from an unbound socket binds it (rgetsockname has a port), an
 *    answer's address is the server's; rsend before rconnect EDESTADDRREQ; rconnect and
 *    rgetpeername; 200 datagrams of 1 byte up to the largest, by rsend and rwritev (two
 *    pieces), each echoed and checked byte by byte (so that none is lost to a full receive
 *    queue, one at a time); one byte more than the largest EMSGSIZE; rlisten, raccept and
 *    riomap EOPNOTSUPP. */
#include <sys/mman.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rsocket.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "check.h"

/* the largest datagram over IPv4: a 2 KiB slot less the 16-byte header of the first way
 * (docs/rdmacm.md "Datagram rsockets") */
enum { MAX_DGRAM = 2048 - 16, ROUNDS = 200 };

static int server(uint16_t port)
{
	struct sockaddr_in a = sin4("127.0.0.1", port), from, self;
	uint8_t buf[4096], peek[8];
	socklen_t len;
	struct pollfd p;
	int s, v = 65536, r, echoed = 0;
	bool peeked = false, scattered = false;

	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	CHECK("server rsocket", s >= 0, "errno %d", errno);
	if (s < 0)
		return 1;
	CHECK("SO_RCVBUF", !rsetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)), "errno %d", errno);
	len = sizeof(v);
	CHECK("SO_RCVBUF doubled", !rgetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &len) && v == 131072,
	      "%d", v);
	CHECK("rbind", !rbind(s, (struct sockaddr *)&a, sizeof(a)), "errno %d", errno);
	len = sizeof(self);
	CHECK("rgetsockname", !rgetsockname(s, (struct sockaddr *)&self, &len) &&
	      self.sin_addr.s_addr == a.sin_addr.s_addr && self.sin_port == a.sin_port,
	      "errno %d", errno);
	CHECK("O_NONBLOCK", !rfcntl(s, F_SETFL, O_NONBLOCK) && rfcntl(s, F_GETFL) == O_NONBLOCK,
	      "errno %d", errno);
	errno = 0;
	r = (int)rrecvfrom(s, buf, sizeof(buf), 0, NULL, NULL);
	CHECK("rrecvfrom EAGAIN", r == -1 && errno == EAGAIN, "ret %d errno %d", r, errno);
	printf("listening\n");
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	r = rpoll(&p, 1, 30000);
	CHECK("rpoll POLLIN", r == 1 && (p.revents & POLLIN), "ret %d revents %#x", r, p.revents);
	len = sizeof(from);
	r = (int)rrecvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);
	CHECK("rrecvfrom hello", r == 5 && !memcmp(buf, "hello", 5), "ret %d errno %d", r, errno);
	CHECK("the sender's address", len == sizeof(from) && from.sin_family == AF_INET &&
	      from.sin_addr.s_addr == a.sin_addr.s_addr && from.sin_port, "%s:%u",
	      inet_ntoa(from.sin_addr), ntohs(from.sin_port));
	CHECK("blocking again", !rfcntl(s, F_SETFL, 0), "errno %d", errno);
	r = snprintf((char *)buf, sizeof(buf), "port %u", ntohs(from.sin_port));
	CHECK("rsendto the port back", rsendto(s, buf, (size_t)r, 0, (struct sockaddr *)&from, len) == r,
	      "errno %d", errno);

	for (;;) {
		struct iovec iov[2] = { { buf, 100 }, { buf + 100, sizeof(buf) - 100 } };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = iov,
				    .msg_iovlen = 2 };

		if (!peeked && echoed == 10) {
			r = (int)rrecvfrom(s, peek, sizeof(peek), MSG_PEEK, NULL, NULL);
			CHECK("MSG_PEEK", r > 0, "ret %d errno %d", r, errno);
			peeked = true;
		}
		if (!scattered && echoed == 20) {
			r = (int)rrecvmsg(s, &m, 0);
			CHECK("rrecvmsg into two iovecs", r > 100, "ret %d errno %d", r, errno);
			scattered = true;
		} else {
			len = sizeof(from);
			r = (int)rrecvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);
		}
		if (r == 3 && !memcmp(buf, "bye", 3))
			break;
		if (r <= 0 || rsendto(s, buf, (size_t)r, 0, (struct sockaddr *)&from, sizeof(from)) != r) {
			CHECK("echo", 0, "ret %d errno %d after %d", r, errno, echoed);
			break;
		}
		echoed++;
	}
	CHECK("echoed every datagram", echoed == ROUNDS, "%d", echoed);
	CHECK("rclose", !rclose(s), "errno %d", errno);
	return 0;
}

static void client_rounds(int s)
{
	static uint8_t out[MAX_DGRAM + 1], in[4096];
	int bad = 0;

	for (int i = 0; i < ROUNDS && !bad; i++) {
		size_t n = 1 + (size_t)i * (MAX_DGRAM - 1) / (ROUNDS - 1);
		ssize_t r;

		for (size_t j = 0; j < n; j++)
			out[j] = pattern(j, (unsigned)i);
		if (i % 2) {
			struct iovec iov[2] = { { out, n / 2 }, { out + n / 2, n - n / 2 } };

			r = rwritev(s, iov, 2);
		} else {
			r = rsend(s, out, n, 0);
		}
		if (r != (ssize_t)n) {
			CHECK("send", 0, "round %d: ret %zd errno %d", i, r, errno);
			bad++;
			break;
		}
		memset(in, 0, sizeof(in));
		r = rrecv(s, in, sizeof(in), 0);
		if (r != (ssize_t)n || mismatches(in, n, (unsigned)i)) {
			CHECK("echo", 0, "round %d: %zu bytes out, %zd back, %zu wrong", i, n, r,
			      r > 0 ? mismatches(in, (size_t)r, (unsigned)i) : 0);
			bad++;
		}
	}
	CHECK("200 datagrams of 1 to 2032 bytes echoed", !bad, "see above");
	errno = 0;
	CHECK("a datagram too large EMSGSIZE", rsend(s, out, MAX_DGRAM + 1, 0) == -1 &&
	      errno == EMSGSIZE, "errno %d", errno);
}

static int client(uint16_t port)
{
	struct sockaddr_in a = sin4("127.0.0.1", port), self, peer;
	char want[16], in[16];
	socklen_t len;
	int s, r;

	s = rsocket(AF_INET, SOCK_DGRAM, 0);
	CHECK("client rsocket", s >= 0, "errno %d", errno);
	if (s < 0)
		return 1;
	errno = 0;
	CHECK("rsend unconnected EDESTADDRREQ", rsend(s, "x", 1, 0) == -1 && errno == EDESTADDRREQ,
	      "errno %d", errno);
	r = (int)rsendto(s, "hello", 5, 0, (struct sockaddr *)&a, sizeof(a));
	CHECK("rsendto from an unbound socket", r == 5, "ret %d errno %d", r, errno);
	len = sizeof(self);
	CHECK("bound by rsendto", !rgetsockname(s, (struct sockaddr *)&self, &len) && self.sin_port,
	      "errno %d", errno);
	len = sizeof(peer);
	memset(in, 0, sizeof(in));
	r = (int)rrecvfrom(s, in, sizeof(in) - 1, 0, (struct sockaddr *)&peer, &len);
	snprintf(want, sizeof(want), "port %u", ntohs(self.sin_port));
	CHECK("the server saw the port rgetsockname says", r > 0 && !strcmp(in, want),
	      "ret %d errno %d: %s, not %s", r, errno, in, want);
	CHECK("the server's address", peer.sin_addr.s_addr == a.sin_addr.s_addr &&
	      peer.sin_port == a.sin_port, "%s:%u", inet_ntoa(peer.sin_addr), ntohs(peer.sin_port));
	CHECK("rconnect", !rconnect(s, (struct sockaddr *)&a, sizeof(a)), "errno %d", errno);
	len = sizeof(peer);
	CHECK("rgetpeername", !rgetpeername(s, (struct sockaddr *)&peer, &len) &&
	      peer.sin_port == a.sin_port, "errno %d", errno);
	client_rounds(s);
	errno = 0;
	CHECK("rlisten EOPNOTSUPP", rlisten(s, 1) == -1 && errno == EOPNOTSUPP, "errno %d", errno);
	errno = 0;
	CHECK("raccept EOPNOTSUPP", raccept(s, NULL, NULL) == -1 && errno == EOPNOTSUPP, "errno %d",
	      errno);
	errno = 0;
	CHECK("riomap EOPNOTSUPP", riomap(s, in, sizeof(in), PROT_WRITE, 0, -1) == -1 &&
	      errno == EOPNOTSUPP, "errno %d", errno);
	CHECK("rsend bye", rsend(s, "bye", 3, 0) == 3, "errno %d", errno);
	CHECK("rclose", !rclose(s), "errno %d", errno);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (argv[1][0] != 's' && argv[1][0] != 'c')) {
		fprintf(stderr, "usage: rsocket_dgram s|c PORT\n");
		return 2;
	}
	if (argv[1][0] == 's')
		server((uint16_t)atoi(argv[2]));
	else
		client((uint16_t)atoi(argv[2]));
	printf("%d failures\n", fails);
	return fails;
}

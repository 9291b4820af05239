/* SPDX-License-Identifier: MIT */
/* Stream rsockets of uroce's librdmacm.so.1, server and client (run by
 * tests/rdmacm/test_rsocket.sh: "rsocket_api s PORT" with UROCE_IP=127.0.0.1, "rsocket_api c
 * PORT" with UROCE_IP=127.0.0.2). Each check prints "ok NAME" or "FAIL NAME: why"; the last
 * line is "N failures", the exit code N.
 *  - a nonblocking listener: raccept EAGAIN, rpoll POLLIN once the client connects;
 *  - the names: rgetpeername and rgetsockname are the two addresses;
 *  - SO_RCVBUF: twice the value set, as rdma-core's;
 *  - a nonblocking connected socket: rrecv EAGAIN with nothing sent, rpoll 0 for POLLIN and
 *    POLLOUT at once;
 *  - 1 MiB each way (rwritev/rreadv, rsend/rrecv), every byte checked, the server reading
 *    through rpoll on a nonblocking socket;
 *  - iomaps (both sides ask for 2 slots with RDMA_IOMAPSIZE; 1000 rounds to 768 as in
 *    rdma-core): the server maps 64 KiB at offset 4096 with riomap and says so by rsend; the
 *    client riowrites 64 KiB there (checked byte by byte by the server after the client's
 *    next message), and 0 bytes where nothing is mapped; the server's third riomap finds no
 *    free slot (ENOMEM), PROT_READ is EINVAL, riounmap of what is not mapped EINVAL;
 *  - the client's rclose: the server's rpoll reports POLLHUP, rrecv 0 (end of stream), rsend
 *    EPIPE. */
#include <sys/mman.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rsocket.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "check.h"

enum { BIG = 1 << 20, WIN = 1 << 16, WIN_OFF = 4096, SLOTS = 2 };


static const char *ip_of(const struct sockaddr_in *s, char *buf)
{
	return inet_ntop(AF_INET, &s->sin_addr, buf, INET_ADDRSTRLEN);
}

static void ask_slots(int s)
{
	int n = SLOTS, got = -1;
	socklen_t len = sizeof(got);

	CHECK("RDMA_IOMAPSIZE", !rsetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &n, sizeof(n)) &&
	      !rgetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &got, &len) && got == SLOTS,
	      "errno %d, %d slots", errno, got);
}

/* The server's end of the iomap checks (the header comment). */
static void server_iomap(int s, uint8_t *win)
{
	static uint8_t other[2][64];
	char msg[6];
	off_t o;
	int r;

	memset(win, 0, WIN);
	o = riomap(s, win, WIN, PROT_WRITE, 0, WIN_OFF);
	CHECK("riomap", o == WIN_OFF, "ret %jd errno %d", (intmax_t)o, errno);
	CHECK("rsend mapped", rsend(s, "mapped", 6, 0) == 6, "errno %d", errno);
	r = (int)rrecv(s, msg, 6, MSG_WAITALL);
	CHECK("rrecv wrote", r == 6 && !memcmp(msg, "wrote!", 6), "ret %d errno %d", r, errno);
	CHECK("64 KiB in by the peer's riowrite", !mismatches(win, WIN, 3), "%zu wrong",
	      mismatches(win, WIN, 3));
	o = riomap(s, other[0], 64, PROT_WRITE, 0, -1);
	CHECK("riomap at the buffer's address", o == (off_t)(uintptr_t)other[0], "ret %jd errno %d",
	      (intmax_t)o, errno);
	errno = 0;
	o = riomap(s, other[1], 64, PROT_WRITE, 0, 0);
	CHECK("riomap with no free slot ENOMEM", o == -1 && errno == ENOMEM, "ret %jd errno %d",
	      (intmax_t)o, errno);
	errno = 0;
	o = riomap(s, other[1], 64, PROT_READ, 0, 0);
	CHECK("riomap PROT_READ EINVAL", o == -1 && errno == EINVAL, "ret %jd errno %d",
	      (intmax_t)o, errno);
	CHECK("riounmap", !riounmap(s, win, WIN) && !riounmap(s, other[0], 64), "errno %d", errno);
	errno = 0;
	r = riounmap(s, win, WIN);
	CHECK("riounmap of nothing EINVAL", r == -1 && errno == EINVAL, "ret %d errno %d", r, errno);
}

/* The client's end: write the server's window once it is mapped. */
static void client_iomap(int s, uint8_t *buf)
{
	char msg[6];
	size_t w;
	int r;

	r = (int)rrecv(s, msg, 6, MSG_WAITALL);
	CHECK("rrecv mapped", r == 6 && !memcmp(msg, "mapped", 6), "ret %d errno %d", r, errno);
	for (size_t i = 0; i < WIN; i++)
		buf[i] = pattern(i, 3);
	w = riowrite(s, buf, WIN, WIN_OFF, 0);
	CHECK("riowrite 64 KiB", w == WIN, "ret %zd errno %d", (ssize_t)w, errno);
	w = riowrite(s, buf, 16, WIN_OFF + WIN, 0);
	CHECK("riowrite where nothing is mapped: 0 bytes", w == 0, "ret %zd errno %d", (ssize_t)w,
	      errno);
	CHECK("rsend wrote", rsend(s, "wrote!", 6, 0) == 6, "errno %d", errno);
}

static int server(uint16_t port, uint8_t *buf)
{
	struct sockaddr_in a = sin4("127.0.0.1", port), peer, self;
	socklen_t len;
	struct pollfd p;
	char ip[INET_ADDRSTRLEN];
	int l, s, one = 1, r;
	size_t got = 0;

	l = rsocket(AF_INET, SOCK_STREAM, 0);
	CHECK("server rsocket", l >= 0, "errno %d", errno);
	if (l < 0)
		return 1;
	CHECK("SO_REUSEADDR", !rsetsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)),
	      "errno %d", errno);
	CHECK("rbind", !rbind(l, (struct sockaddr *)&a, sizeof(a)), "errno %d", errno);
	ask_slots(l); /* the accepted socket inherits them */
	CHECK("rlisten", !rlisten(l, 4), "errno %d", errno);
	CHECK("listener O_NONBLOCK", !rfcntl(l, F_SETFL, O_NONBLOCK) &&
	      rfcntl(l, F_GETFL) == O_NONBLOCK, "errno %d", errno);
	errno = 0;
	/* the client connects only after this server's port is up and it waited 0.5 s (lib.sh's
	 * cm_pair): nothing is pending yet */
	s = raccept(l, NULL, NULL);
	CHECK("raccept EAGAIN", s == -1 && errno == EAGAIN, "ret %d errno %d", s, errno);
	printf("listening\n");
	p = (struct pollfd){.fd = l, .events = POLLIN};
	r = rpoll(&p, 1, -1);
	CHECK("listener rpoll POLLIN", r == 1 && (p.revents & POLLIN), "ret %d revents %#x", r,
	      p.revents);
	len = sizeof(peer);
	s = raccept(l, (struct sockaddr *)&peer, &len);
	CHECK("raccept", s >= 0, "errno %d", errno);
	if (s < 0)
		return 1;
	CHECK("raccept's address", len == sizeof(peer) && peer.sin_family == AF_INET &&
	      !strcmp(ip_of(&peer, ip), "127.0.0.2"), "len %u %s", len, ip);
	len = sizeof(self);
	CHECK("rgetsockname", !rgetsockname(s, (struct sockaddr *)&self, &len) &&
	      !strcmp(ip_of(&self, ip), "127.0.0.1") && ntohs(self.sin_port) == port, "%s:%u", ip,
	      ntohs(self.sin_port));

	CHECK("O_NONBLOCK", !rfcntl(s, F_SETFL, O_NONBLOCK), "errno %d", errno);
	errno = 0;
	r = (int)rrecv(s, buf, 16, 0);
	CHECK("rrecv EAGAIN", r == -1 && errno == EAGAIN, "ret %d errno %d", r, errno);
	p = (struct pollfd){.fd = s, .events = POLLIN};
	r = rpoll(&p, 1, 0);
	CHECK("rpoll nothing to read", r == 0, "ret %d revents %#x", r, p.revents);
	p = (struct pollfd){.fd = s, .events = POLLOUT};
	r = rpoll(&p, 1, 0);
	CHECK("rpoll POLLOUT", r == 1 && p.revents == POLLOUT, "ret %d revents %#x", r, p.revents);
	CHECK("rsend go", rsend(s, "go", 2, 0) == 2, "errno %d", errno);

	/* 1 MiB from the client, through rpoll */
	while (got < BIG) {
		p = (struct pollfd){.fd = s, .events = POLLIN};
		r = rpoll(&p, 1, -1);
		if (r != 1 || !(p.revents & POLLIN))
			break;
		r = (int)rrecv(s, buf + got, BIG - got, 0);
		if (r <= 0 && !(r < 0 && errno == EAGAIN))
			break;
		if (r > 0)
			got += (size_t)r;
	}
	CHECK("1 MiB in by rpoll and rrecv", got == BIG && !mismatches(buf, BIG, 1),
	      "%zu bytes, %zu wrong", got, mismatches(buf, got, 1));

	CHECK("blocking again", !rfcntl(s, F_SETFL, 0), "errno %d", errno);
	for (size_t i = 0; i < BIG; i++)
		buf[i] = pattern(i, 2);
	r = (int)rsend(s, buf, BIG, 0);
	CHECK("1 MiB out by rsend", r == BIG, "ret %d errno %d", r, errno);
	server_iomap(s, buf);

	/* the client closes after reading */
	p = (struct pollfd){.fd = s, .events = POLLIN};
	r = rpoll(&p, 1, -1);
	CHECK("rpoll POLLHUP after the peer's rclose", r == 1 && (p.revents & POLLHUP),
	      "ret %d revents %#x", r, p.revents);
	r = (int)rrecv(s, buf, 16, 0);
	CHECK("rrecv 0 at the end", r == 0, "ret %d errno %d", r, errno);
	errno = 0;
	r = (int)rsend(s, "x", 1, 0);
	CHECK("rsend EPIPE after the end", r == -1 && errno == EPIPE, "ret %d errno %d", r, errno);
	CHECK("rclose", !rclose(s) && !rclose(l), "errno %d", errno);
	return 0;
}

static int client(uint16_t port, uint8_t *buf)
{
	struct sockaddr_in a = sin4("127.0.0.1", port), peer;
	struct iovec iov[2];
	socklen_t len;
	char ip[INET_ADDRSTRLEN], go[2];
	int s, v = 65536, r;
	size_t got = 0;

	s = rsocket(AF_INET, SOCK_STREAM, 0);
	CHECK("client rsocket", s >= 0, "errno %d", errno);
	if (s < 0)
		return 1;
	CHECK("SO_RCVBUF", !rsetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)), "errno %d", errno);
	len = sizeof(v);
	CHECK("SO_RCVBUF doubled", !rgetsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &len) && v == 131072,
	      "%d", v);
	v = 1000;
	len = sizeof(v);
	CHECK("RDMA_IOMAPSIZE 1000 is 768", !rsetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &v, sizeof(v)) &&
	      !rgetsockopt(s, SOL_RDMA, RDMA_IOMAPSIZE, &v, &len) && v == 768, "%d", v);
	ask_slots(s);
	CHECK("rconnect", !rconnect(s, (struct sockaddr *)&a, sizeof(a)), "errno %d", errno);
	len = sizeof(peer);
	CHECK("rgetpeername", !rgetpeername(s, (struct sockaddr *)&peer, &len) &&
	      !strcmp(ip_of(&peer, ip), "127.0.0.1") && ntohs(peer.sin_port) == port, "%s", ip);
	r = (int)rrecv(s, go, 2, 0);
	CHECK("rrecv go", r == 2 && !memcmp(go, "go", 2), "ret %d errno %d", r, errno);

	for (size_t i = 0; i < BIG; i++)
		buf[i] = pattern(i, 1);
	iov[0] = (struct iovec){.iov_base = buf, .iov_len = 1000};
	iov[1] = (struct iovec){.iov_base = buf + 1000, .iov_len = BIG - 1000};
	r = (int)rwritev(s, iov, 2);
	CHECK("1 MiB out by rwritev", r == BIG, "ret %d errno %d", r, errno);

	memset(buf, 0, BIG);
	while (got < BIG) {
		iov[0] = (struct iovec){.iov_base = buf + got, .iov_len = (BIG - got) / 2};
		iov[1] = (struct iovec){.iov_base = buf + got + (BIG - got) / 2,
					.iov_len = BIG - got - (BIG - got) / 2};
		r = (int)rreadv(s, iov, 2);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	CHECK("1 MiB in by rreadv", got == BIG && !mismatches(buf, BIG, 2), "%zu bytes, %zu wrong",
	      got, mismatches(buf, got, 2));
	client_iomap(s, buf);
	CHECK("rclose", !rclose(s), "errno %d", errno);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *buf = malloc(BIG);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (argv[1][0] != 's' && argv[1][0] != 'c') || !buf) {
		fprintf(stderr, "usage: rsocket_api s|c PORT\n");
		return 2;
	}
	if (argv[1][0] == 's')
		server((uint16_t)atoi(argv[2]), buf);
	else
		client((uint16_t)atoi(argv[2]), buf);
	free(buf);
	printf("%d failures\n", fails);
	return fails;
}

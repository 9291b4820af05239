/* SPDX-License-Identifier: MIT */
/* The rsocket API (rdma/rsocket.h): NOT IMPLEMENTED. rsocket is a protocol of its own over
 * rdma_cm and RC QPs (librdmacm/rsocket.c); it is exported here only so that programs linked
 * against Debian's librdmacm load. Every call fails with errno ENOSYS: -1, or for riowrite
 * (which returns a size_t) 0 bytes written. docs/rdmacm.md "Not implemented". */
#include <errno.h>
#include <rdma/rsocket.h>

static int nosys(void)
{
	errno = ENOSYS;
	return -1;
}

int rsocket(int domain, int type, int protocol)
{
	(void)domain;
	(void)type;
	(void)protocol;
	return nosys();
}

int rbind(int s, const struct sockaddr *a, socklen_t l)
{
	(void)s;
	(void)a;
	(void)l;
	return nosys();
}

int rlisten(int s, int backlog)
{
	(void)s;
	(void)backlog;
	return nosys();
}

int raccept(int s, struct sockaddr *a, socklen_t *l)
{
	(void)s;
	(void)a;
	(void)l;
	return nosys();
}

int rconnect(int s, const struct sockaddr *a, socklen_t l)
{
	(void)s;
	(void)a;
	(void)l;
	return nosys();
}

int rshutdown(int s, int how)
{
	(void)s;
	(void)how;
	return nosys();
}

int rclose(int s)
{
	(void)s;
	return nosys();
}

ssize_t rrecv(int s, void *b, size_t n, int f)
{
	(void)s;
	(void)b;
	(void)n;
	(void)f;
	return (ssize_t)nosys();
}

ssize_t rrecvfrom(int s, void *b, size_t n, int f, struct sockaddr *a, socklen_t *l)
{
	(void)s;
	(void)b;
	(void)n;
	(void)f;
	(void)a;
	(void)l;
	return (ssize_t)nosys();
}

ssize_t rrecvmsg(int s, struct msghdr *m, int f)
{
	(void)s;
	(void)m;
	(void)f;
	return (ssize_t)nosys();
}

ssize_t rsend(int s, const void *b, size_t n, int f)
{
	(void)s;
	(void)b;
	(void)n;
	(void)f;
	return (ssize_t)nosys();
}

ssize_t rsendto(int s, const void *b, size_t n, int f, const struct sockaddr *a, socklen_t l)
{
	(void)s;
	(void)b;
	(void)n;
	(void)f;
	(void)a;
	(void)l;
	return (ssize_t)nosys();
}

ssize_t rsendmsg(int s, const struct msghdr *m, int f)
{
	(void)s;
	(void)m;
	(void)f;
	return (ssize_t)nosys();
}

ssize_t rread(int s, void *b, size_t n)
{
	(void)s;
	(void)b;
	(void)n;
	return (ssize_t)nosys();
}

ssize_t rreadv(int s, const struct iovec *v, int n)
{
	(void)s;
	(void)v;
	(void)n;
	return (ssize_t)nosys();
}

ssize_t rwrite(int s, const void *b, size_t n)
{
	(void)s;
	(void)b;
	(void)n;
	return (ssize_t)nosys();
}

ssize_t rwritev(int s, const struct iovec *v, int n)
{
	(void)s;
	(void)v;
	(void)n;
	return (ssize_t)nosys();
}

int rpoll(struct pollfd *fds, nfds_t n, int timeout)
{
	(void)fds;
	(void)n;
	(void)timeout;
	return nosys();
}

int rselect(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	(void)n;
	(void)r;
	(void)w;
	(void)e;
	(void)t;
	return nosys();
}

int rgetpeername(int s, struct sockaddr *a, socklen_t *l)
{
	(void)s;
	(void)a;
	(void)l;
	return nosys();
}

int rgetsockname(int s, struct sockaddr *a, socklen_t *l)
{
	(void)s;
	(void)a;
	(void)l;
	return nosys();
}

int rsetsockopt(int s, int level, int name, const void *v, socklen_t l)
{
	(void)s;
	(void)level;
	(void)name;
	(void)v;
	(void)l;
	return nosys();
}

int rgetsockopt(int s, int level, int name, void *v, socklen_t *l)
{
	(void)s;
	(void)level;
	(void)name;
	(void)v;
	(void)l;
	return nosys();
}

int rfcntl(int s, int cmd, ...)
{
	(void)s;
	(void)cmd;
	return nosys();
}

off_t riomap(int s, void *b, size_t n, int prot, int f, off_t off)
{
	(void)s;
	(void)b;
	(void)n;
	(void)prot;
	(void)f;
	(void)off;
	return (off_t)nosys();
}

int riounmap(int s, void *b, size_t n)
{
	(void)s;
	(void)b;
	(void)n;
	return nosys();
}

size_t riowrite(int s, const void *b, size_t n, off_t off, int f)
{
	(void)s;
	(void)b;
	(void)n;
	(void)off;
	(void)f;
	nosys();
	return 0;
}

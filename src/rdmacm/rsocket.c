/* SPDX-License-Identifier: MIT */
/* The rsocket API (rdma/rsocket.h): the table of sockets by number and the calls, each
 * handed to its socket's kind, stream (rstream.c) or datagram (rdgram.c); rpoll and rselect
 * over rsockets and ordinary descriptors together. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rsocket.h>

#include "rsocket.h"

/* Sockets by number. */
static pthread_mutex_t tab_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rsock **tab;
static int tab_len;

int rsock_insert(struct rsock *k)
{
	int ret = 0;

	pthread_mutex_lock(&tab_mu);
	if (k->fd >= tab_len) {
		int n = k->fd + 64;
		struct rsock **t = realloc(tab, (size_t)n * sizeof(*t));

		if (!t) {
			ret = -1;
		} else {
			memset(t + tab_len, 0, (size_t)(n - tab_len) * sizeof(*t));
			tab = t;
			tab_len = n;
		}
	}
	if (!ret)
		tab[k->fd] = k;
	pthread_mutex_unlock(&tab_mu);
	if (ret)
		errno = ENOMEM;
	return ret;
}

void rsock_remove(struct rsock *k)
{
	pthread_mutex_lock(&tab_mu);
	tab[k->fd] = NULL;
	pthread_mutex_unlock(&tab_mu);
}

static struct rsock *rsock_find(int s)
{
	struct rsock *k = NULL;

	pthread_mutex_lock(&tab_mu);
	if (s >= 0 && s < tab_len)
		k = tab[s];
	pthread_mutex_unlock(&tab_mu);
	return k;
}

static struct rsock *rsock_get(int s)
{
	struct rsock *k = rsock_find(s);

	if (!k)
		errno = EBADF;
	return k;
}

bool rsock_nonblocking(const struct rsock *k, int flags)
{
	return (k->fd_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
}

int rsock_copy_addr(const struct sockaddr *src, struct sockaddr *a, socklen_t *l)
{
	socklen_t n = src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						   sizeof(struct sockaddr_in);

	memcpy(a, src, *l < n ? *l : n);
	*l = n;
	return 0;
}

size_t rsock_iov_len(const struct iovec *v, int cnt)
{
	size_t n = 0;

	for (int i = 0; i < cnt; i++)
		n += v[i].iov_len;
	return n;
}

static int unsupported(void)
{
	errno = EOPNOTSUPP;
	return -1;
}

/* ---- sockets ---- */

/* rdma-core's rsocket: SOCK_NONBLOCK in the type makes the socket nonblocking. */
int rsocket(int domain, int type, int protocol)
{
	int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rsock *k;

	if (domain != AF_INET && domain != AF_INET6) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (kind == SOCK_STREAM && (!protocol || protocol == IPPROTO_TCP))
		k = rstream_new(domain);
	else if (kind == SOCK_DGRAM && (!protocol || protocol == IPPROTO_UDP))
		k = rdgram_new(domain);
	else {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (!k)
		return -1;
	if (type & SOCK_NONBLOCK)
		k->fd_flags = O_NONBLOCK;
	return k->fd;
}

int rbind(int s, const struct sockaddr *a, socklen_t l)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->bind(k, a, l) : -1;
}

int rlisten(int s, int backlog)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	return k->ops->listen ? k->ops->listen(k, backlog) : unsupported();
}

int raccept(int s, struct sockaddr *a, socklen_t *l)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	return k->ops->accept ? k->ops->accept(k, a, l) : unsupported();
}

int rconnect(int s, const struct sockaddr *a, socklen_t l)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->connect(k, a, l) : -1;
}

int rshutdown(int s, int how)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->shutdown(k, how) : -1;
}

int rclose(int s)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	k->ops->close(k);
	return 0;
}

/* ---- data: every call is a vector, with or without an address ---- */

ssize_t rsend(int s, const void *b, size_t n, int f)
{
	return rsendto(s, b, n, f, NULL, 0);
}

ssize_t rsendto(int s, const void *b, size_t n, int f, const struct sockaddr *a, socklen_t l)
{
	struct iovec v = { .iov_base = (void *)(uintptr_t)b, .iov_len = n };
	struct rsock *k = rsock_get(s);

	return k ? k->ops->send(k, &v, 1, f, a, l) : -1;
}

ssize_t rsendmsg(int s, const struct msghdr *m, int f)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	if (m->msg_control && m->msg_controllen)
		return unsupported();
	return k->ops->send(k, m->msg_iov, (int)m->msg_iovlen, f, m->msg_name, m->msg_namelen);
}

ssize_t rwrite(int s, const void *b, size_t n)
{
	return rsendto(s, b, n, 0, NULL, 0);
}

ssize_t rwritev(int s, const struct iovec *v, int n)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->send(k, v, n, 0, NULL, 0) : -1;
}

ssize_t rrecv(int s, void *b, size_t n, int f)
{
	return rrecvfrom(s, b, n, f, NULL, NULL);
}

ssize_t rrecvfrom(int s, void *b, size_t n, int f, struct sockaddr *a, socklen_t *l)
{
	struct iovec v = { .iov_base = b, .iov_len = n };
	struct rsock *k = rsock_get(s);

	return k ? k->ops->recv(k, &v, 1, f, a, l) : -1;
}

ssize_t rrecvmsg(int s, struct msghdr *m, int f)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	if (m->msg_control && m->msg_controllen)
		return unsupported();
	m->msg_flags = 0;
	return k->ops->recv(k, m->msg_iov, (int)m->msg_iovlen, f, m->msg_name,
			    m->msg_name ? &m->msg_namelen : NULL);
}

ssize_t rread(int s, void *b, size_t n)
{
	return rrecvfrom(s, b, n, 0, NULL, NULL);
}

ssize_t rreadv(int s, const struct iovec *v, int n)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->recv(k, v, n, 0, NULL, NULL) : -1;
}

/* ---- poll and select ---- */

int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollfd *pf = calloc(nfds ? nfds : 1, sizeof(*pf));
	struct timespec t0;
	int ret;

	if (!pf)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec t1;
		int cnt = 0, wait;

		/* what is ready now; the rsockets are armed, then looked at again */
		for (int pass = 0; pass < 2 && !cnt; pass++) {
			for (nfds_t i = 0; i < nfds; i++) {
				struct rsock *k = rsock_find(fds[i].fd);

				fds[i].revents = 0;
				if (k) {
					if (pass)
						pf[i].fd = k->ops->arm(k);
					fds[i].revents = k->ops->revents(k, fds[i].events);
					pf[i].events = POLLIN;
				} else {
					pf[i] = fds[i];
					pf[i].revents = 0;
					if (fds[i].fd >= 0 && poll(&pf[i], 1, 0) == 1)
						fds[i].revents = pf[i].revents;
				}
				if (fds[i].revents)
					cnt++;
			}
		}
		if (cnt || !timeout) {
			ret = cnt;
			break;
		}
		wait = timeout;
		if (timeout > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			wait = timeout - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
					       (t1.tv_nsec - t0.tv_nsec) / 1000000);
			if (wait <= 0) {
				ret = 0;
				break;
			}
		}
		ret = poll(pf, nfds, wait);
		if (ret < 0)
			break;
		for (nfds_t i = 0; i < nfds; i++) {
			struct rsock *k = rsock_find(fds[i].fd);

			if (k && (pf[i].revents & POLLIN))
				k->ops->woken(k);
		}
	}
	free(pf);
	return ret;
}

int rselect(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t)
{
	struct pollfd *fds = calloc(n > 0 ? (size_t)n : 1, sizeof(*fds));
	int cnt = 0, ret;
	nfds_t k = 0;

	if (!fds)
		return -1;
	for (int fd = 0; fd < n; fd++) {
		short ev = (short)((r && FD_ISSET(fd, r) ? POLLIN : 0) |
				   (w && FD_ISSET(fd, w) ? POLLOUT : 0) |
				   (e && FD_ISSET(fd, e) ? POLLPRI : 0));
		if (ev) {
			fds[k].fd = fd;
			fds[k].events = ev;
			k++;
		}
	}
	ret = rpoll(fds, k, t ? (int)(t->tv_sec * 1000 + t->tv_usec / 1000) : -1);
	if (ret < 0) {
		free(fds);
		return -1;
	}
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (e)
		FD_ZERO(e);
	for (nfds_t i = 0; i < k; i++) {
		short re = fds[i].revents;

		if (r && (re & (POLLIN | POLLHUP | POLLERR)) && (fds[i].events & POLLIN)) {
			FD_SET(fds[i].fd, r);
			cnt++;
		}
		if (w && (re & (POLLOUT | POLLERR)) && (fds[i].events & POLLOUT)) {
			FD_SET(fds[i].fd, w);
			cnt++;
		}
		if (e && (re & POLLPRI)) {
			FD_SET(fds[i].fd, e);
			cnt++;
		}
	}
	free(fds);
	return cnt;
}

/* ---- names and options ---- */

int rgetpeername(int s, struct sockaddr *a, socklen_t *l)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->getpeername(k, a, l) : -1;
}

int rgetsockname(int s, struct sockaddr *a, socklen_t *l)
{
	struct rsock *k = rsock_get(s);

	return k ? k->ops->getsockname(k, a, l) : -1;
}

int rsetsockopt(int s, int level, int name, const void *v, socklen_t l)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	if (!v || l < sizeof(int)) {
		errno = EINVAL;
		return -1;
	}
	return k->ops->setsockopt(k, level, name, v, l);
}

int rgetsockopt(int s, int level, int name, void *v, socklen_t *l)
{
	struct rsock *k = rsock_get(s);
	int val;

	if (!k)
		return -1;
	if (!v || !l || *l < sizeof(int)) {
		errno = EINVAL;
		return -1;
	}
	if (k->ops->getsockopt(k, level, name, &val))
		return -1;
	memcpy(v, &val, sizeof(val));
	*l = sizeof(val);
	return 0;
}

int rfcntl(int s, int cmd, ...)
{
	struct rsock *k = rsock_get(s);
	va_list ap;
	int arg;

	if (!k)
		return -1;
	switch (cmd) {
	case F_GETFL:
		return k->fd_flags;
	case F_SETFL:
		va_start(ap, cmd);
		arg = va_arg(ap, int);
		va_end(ap);
		k->fd_flags = arg & O_NONBLOCK;
		return 0;
	default:
		errno = ENOSYS;
		return -1;
	}
}

/* ---- iomaps (stream sockets) ---- */

off_t riomap(int s, void *b, size_t n, int prot, int f, off_t off)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	return k->ops->iomap ? k->ops->iomap(k, b, n, prot, f, off) : unsupported();
}

int riounmap(int s, void *b, size_t n)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return -1;
	return k->ops->iounmap ? k->ops->iounmap(k, b, n) : unsupported();
}

size_t riowrite(int s, const void *b, size_t n, off_t off, int f)
{
	struct rsock *k = rsock_get(s);

	if (!k)
		return (size_t)-1;
	return k->ops->iowrite ? k->ops->iowrite(k, b, n, off, f) : (size_t)unsupported();
}

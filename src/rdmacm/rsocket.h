/* SPDX-License-Identifier: MIT */
/* The rsockets' common part: the socket every rsocket call takes (struct rsock), the
 * operations each kind of socket gives (stream: rstream.c, datagram: rdgram.c) and the
 * table of sockets by number (rsocket.c, which holds the public rsocket API). */
#ifndef UROCE_RDMACM_RSOCKET_H
#define UROCE_RDMACM_RSOCKET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

/* rdma-core 44 rsocket.c: RS_SNDLOWAT (a receive WR per 2 KiB of buffer, the largest
 * datagram), RS_QP_MIN_SIZE, RS_QP_MAX_SIZE, and the defaults def_sqsize, def_rqsize,
 * def_inline, def_mem (rbuf) and def_wmem (sbuf). */
enum {
	RS_SNDLOWAT = 2048,
	RS_QP_MIN_SIZE = 16,
	RS_QP_MAX_SIZE = 0xFFFE,
	RS_DEF_SQSIZE = 384,
	RS_DEF_RQSIZE = 384,
	RS_DEF_INLINE = 64,
	RS_DEF_BUF = 1 << 17,
};

/* The immediate's and the datagram header's op (rdma-core's enum order). */
enum { RS_OP_DATA = 0, RS_OP_WRITE = 2, RS_OP_SGL = 4, RS_OP_IOMAP_SGL = 6, RS_OP_CTRL = 7 };

struct rsock;

/* What a kind of socket does; NULL where it has no such call (EOPNOTSUPP). The data calls
 * take the whole message (rsend and rrecv are one-element vectors): a datagram is one
 * message however many elements it comes in. */
struct rsock_ops {
	int (*bind)(struct rsock *k, const struct sockaddr *a, socklen_t l);
	int (*listen)(struct rsock *k, int backlog);
	int (*accept)(struct rsock *k, struct sockaddr *a, socklen_t *l);
	int (*connect)(struct rsock *k, const struct sockaddr *a, socklen_t l);
	ssize_t (*send)(struct rsock *k, const struct iovec *v, int cnt, int flags,
			const struct sockaddr *to, socklen_t tolen);
	ssize_t (*recv)(struct rsock *k, const struct iovec *v, int cnt, int flags,
			struct sockaddr *from, socklen_t *fromlen);
	int (*shutdown)(struct rsock *k, int how);
	void (*close)(struct rsock *k);
	int (*getpeername)(struct rsock *k, struct sockaddr *a, socklen_t *l);
	int (*getsockname)(struct rsock *k, struct sockaddr *a, socklen_t *l);
	/* l is at least sizeof(int); an option the kind does not know fails with ENOPROTOOPT */
	int (*setsockopt)(struct rsock *k, int level, int name, const void *v, socklen_t l);
	int (*getsockopt)(struct rsock *k, int level, int name, int *val);
	/* rpoll: the events ready now; the descriptor to sleep on, its completions armed
	 * first (then revents is asked again); what to take when that descriptor fired */
	short (*revents)(struct rsock *k, short events);
	int (*arm)(struct rsock *k);
	void (*woken)(struct rsock *k);
	off_t (*iomap)(struct rsock *k, void *b, size_t n, int prot, int flags, off_t off);
	int (*iounmap)(struct rsock *k, void *b, size_t n);
	size_t (*iowrite)(struct rsock *k, const void *b, size_t n, off_t off, int flags);
};

struct rsock {
	const struct rsock_ops *ops;
	int fd;       /* the socket's number: a descriptor of its own, as rdma-core's */
	int domain;   /* AF_INET or AF_INET6 */
	int fd_flags; /* O_NONBLOCK (rfcntl) */
};

/* Enter k in the table under k->fd: 0, or -1 with ENOMEM. */
int rsock_insert(struct rsock *k);
void rsock_remove(struct rsock *k);
bool rsock_nonblocking(const struct rsock *k, int flags);
int rsock_copy_addr(const struct sockaddr *src, struct sockaddr *a, socklen_t *l);
size_t rsock_iov_len(const struct iovec *v, int cnt);

/* New sockets of each kind, entered in the table: NULL with errno. */
struct rsock *rstream_new(int domain);
struct rsock *rdgram_new(int domain);

#endif

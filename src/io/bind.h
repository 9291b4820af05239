/* SPDX-License-Identifier: MIT */
/* Binding a UDP socket to a free port of a range: a QP's send socket whose own port another
 * socket holds (udp.c), and a shared address's forwarding socket, which stays below the
 * QPs' ports (share.c). docs/udp.md "Sending". */
#ifndef UROCE_IO_BIND_H
#define UROCE_IO_BIND_H

#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* Binds fd to sa's address (an AF_INET or AF_INET6 address in a sockaddr_in6's room, len
 * bytes of it) and the first free port of first .. first + n - 1, trying first + start
 * (modulo n) first and going up. Returns the port; -1 with errno when every port is taken
 * (EADDRINUSE) or bind fails otherwise. sa's port is left at the one tried last. */
int uroce_bind_in_range(int fd, struct sockaddr_in6 *sa, socklen_t len, uint16_t first,
			uint32_t n, uint32_t start);

#endif

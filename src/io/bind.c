/* SPDX-License-Identifier: MIT */
#include "bind.h"

#include <errno.h>

int uroce_bind_in_range(int fd, struct sockaddr_in6 *sa, socklen_t len, uint16_t first,
			uint32_t n, uint32_t start)
{
	struct sockaddr_in *sa4 = (struct sockaddr_in *)(void *)sa;

	for (uint32_t i = 0; i < n; i++) {
		uint16_t port = (uint16_t)(first + (start + i) % n);
		if (sa->sin6_family == AF_INET6)
			sa->sin6_port = htons(port);
		else
			sa4->sin_port = htons(port);
		if (!bind(fd, (struct sockaddr *)sa, len))
			return port;
		if (errno != EADDRINUSE)
			return -1;
	}
	errno = EADDRINUSE;
	return -1;
}

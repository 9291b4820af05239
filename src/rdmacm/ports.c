/* SPDX-License-Identifier: MIT */
/* The port spaces (RDMA_PS_TCP, _UDP, _IB) of this process: which ids hold which port, as
 * Linux's cma.c keeps one table per port space (cma_alloc_port, cma_check_port).
 *
 * A port is the process's, whatever the address: two ids on one port and two different
 * addresses of the process are refused here where Linux allows them, because a CM listens
 * by Service ID alone (port space and port) and one process's CM would have to demultiplex
 * them (docs/rdmacm.md "Deviations"). Between processes, each owns its address (UROCE_IP) and
 * its CM; the kernel's table is not shared. */
#include <errno.h>
#include <stdlib.h>

#include "priv.h"

/* Linux's default ip_local_port_range, where cma_alloc_any_port draws from. */
#define EPHEMERAL_LO 32768
#define EPHEMERAL_HI 60999

struct port_entry {
	uint16_t ps, port;
	bool reuse, listening;
	const void *owner;
};

static struct port_entry *ports;
static size_t nports, cap;
static uint32_t next_rover;

void cma_ports_seed(uint32_t seed)
{
	pthread_mutex_lock(&cma_mu);
	next_rover = seed;
	pthread_mutex_unlock(&cma_mu);
}

/* cma_mu held. Whether an id (reuse given) may share port with those holding it. */
static bool port_free(uint16_t ps, uint16_t port, bool reuse, bool listen, const void *owner)
{
	for (size_t i = 0; i < nports; i++) {
		const struct port_entry *e = &ports[i];

		if (e->ps != ps || e->port != port || e->owner == owner)
			continue;
		if (!reuse || !e->reuse || listen || e->listening)
			return false;
	}
	return true;
}

int cma_port_get(uint16_t ps, uint16_t *port, bool reuse, const void *owner)
{
	struct port_entry *e;
	int err = 0;

	pthread_mutex_lock(&cma_mu);
	if (!*port) {
		uint32_t range = EPHEMERAL_HI - EPHEMERAL_LO + 1, i;

		for (i = 0; i < range; i++) {
			uint16_t p = (uint16_t)(EPHEMERAL_LO + (next_rover + i) % range);

			if (port_free(ps, p, false, false, owner)) {
				*port = p;
				next_rover += i + 1;
				break;
			}
		}
		if (i == range)
			err = -EADDRNOTAVAIL;
	} else if (!port_free(ps, *port, reuse, false, owner)) {
		err = -EADDRINUSE;
	}
	if (!err && nports == cap) {
		size_t ncap = cap ? 2 * cap : 16;
		struct port_entry *n = realloc(ports, ncap * sizeof(*n));

		if (!n)
			err = -ENOMEM;
		else {
			ports = n;
			cap = ncap;
		}
	}
	if (!err) {
		e = &ports[nports++];
		*e = (struct port_entry){.ps = ps, .port = *port, .reuse = reuse, .owner = owner};
	}
	pthread_mutex_unlock(&cma_mu);
	return err;
}

void cma_port_put(uint16_t ps, uint16_t port, const void *owner)
{
	pthread_mutex_lock(&cma_mu);
	for (size_t i = 0; i < nports; i++)
		if (ports[i].ps == ps && ports[i].port == port && ports[i].owner == owner) {
			ports[i] = ports[--nports];
			break;
		}
	pthread_mutex_unlock(&cma_mu);
}

int cma_port_listen(uint16_t ps, uint16_t port, const void *owner)
{
	int err = -EADDRINUSE;

	pthread_mutex_lock(&cma_mu);
	if (port_free(ps, port, true, true, owner))
		for (size_t i = 0; i < nports; i++)
			if (ports[i].ps == ps && ports[i].port == port && ports[i].owner == owner) {
				ports[i].listening = true;
				err = 0;
			}
	pthread_mutex_unlock(&cma_mu);
	return err;
}

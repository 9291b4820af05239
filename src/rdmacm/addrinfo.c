/* SPDX-License-Identifier: MIT */
/* rdma_getaddrinfo / rdma_freeaddrinfo: getaddrinfo(3) for RDMA endpoints, as rdma-core's
 * librdmacm/addrinfo.c answers on a RoCE host: the name and service resolved by the system
 * resolver (RAI_NUMERICHOST: numeric only), the first address only (ucma_convert_to_rai
 * converts one), with it as source for RAI_PASSIVE and as destination otherwise; the port space and QP type from the hints
 * (RDMA_PS_TCP and RC by default, RC <-> TCP, UD <-> UDP). There is no ib_acm: no route
 * (ai_route) is ever returned. */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
	}
}

static struct sockaddr *copy_sa(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr *s = malloc(len);

	if (s)
		memcpy(s, sa, len);
	return s;
}

/* The port space and QP type of a result (ucma_set_ps / ucma_set_qp_type). */
static int set_types(struct rdma_addrinfo *r, const struct rdma_addrinfo *hints)
{
	r->ai_port_space = hints ? hints->ai_port_space : 0;
	r->ai_qp_type = hints ? hints->ai_qp_type : 0;
	if (!r->ai_port_space)
		r->ai_port_space = r->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	if (!r->ai_qp_type)
		r->ai_qp_type = r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	if (!cma_ps_ok((enum rdma_port_space)r->ai_port_space))
		return EINVAL;
	return 0;
}

int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	struct addrinfo ah = {0}, *ai = NULL, *a;
	struct rdma_addrinfo *head = NULL, **tail = &head;
	int flags = hints ? hints->ai_flags : 0, rc;

	if (!res || (!node && !service && !hints))
		return cma_ret(EINVAL);
	if (cma_init())
		return -1;
	if (flags & ~(RAI_PASSIVE | RAI_NUMERICHOST | RAI_NOROUTE | RAI_FAMILY))
		return cma_ret(EINVAL);
	if (!node && !service) {
		/* Addresses given in the hints only. */
		struct rdma_addrinfo *r = calloc(1, sizeof(*r));

		if (!r)
			return cma_ret(ENOMEM);
		r->ai_flags = flags;
		r->ai_family = hints->ai_family;
		if (set_types(r, hints)) {
			free(r);
			return cma_ret(EINVAL);
		}
		if (hints->ai_src_addr) {
			r->ai_src_len = hints->ai_src_len;
			r->ai_src_addr = copy_sa(hints->ai_src_addr, hints->ai_src_len);
		}
		if (hints->ai_dst_addr) {
			r->ai_dst_len = hints->ai_dst_len;
			r->ai_dst_addr = copy_sa(hints->ai_dst_addr, hints->ai_dst_len);
		}
		*res = r;
		return 0;
	}
	ah.ai_flags = (flags & RAI_PASSIVE ? AI_PASSIVE : 0) |
		      (flags & RAI_NUMERICHOST ? AI_NUMERICHOST : 0);
	ah.ai_family = hints && (hints->ai_family == AF_INET || hints->ai_family == AF_INET6)
			       ? hints->ai_family
			       : AF_UNSPEC;
	ah.ai_socktype = hints && hints->ai_port_space == RDMA_PS_UDP ? SOCK_DGRAM : SOCK_STREAM;
	if (node && !(flags & RAI_NUMERICHOST))
		ah.ai_flags |= AI_CANONNAME;
	rc = getaddrinfo(node, service, &ah, &ai);
	if (rc)
		return rc; /* librdmacm returns getaddrinfo's EAI_* code as it is */
	for (a = ai; a && !head; a = a->ai_next) {
		struct rdma_addrinfo *r;

		if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
			continue;
		r = calloc(1, sizeof(*r));
		if (!r)
			goto nomem;
		*tail = r;
		tail = &r->ai_next;
		r->ai_flags = flags;
		r->ai_family = a->ai_family;
		if (set_types(r, hints)) {
			freeaddrinfo(ai);
			rdma_freeaddrinfo(head);
			return cma_ret(EINVAL);
		}
		if (flags & RAI_PASSIVE) {
			r->ai_src_len = a->ai_addrlen;
			r->ai_src_addr = copy_sa(a->ai_addr, a->ai_addrlen);
			if (!r->ai_src_addr)
				goto nomem;
			if (a->ai_canonname && !(r->ai_src_canonname = strdup(a->ai_canonname)))
				goto nomem;
		} else {
			r->ai_dst_len = a->ai_addrlen;
			r->ai_dst_addr = copy_sa(a->ai_addr, a->ai_addrlen);
			if (!r->ai_dst_addr)
				goto nomem;
			if (a->ai_canonname && !(r->ai_dst_canonname = strdup(a->ai_canonname)))
				goto nomem;
			if (hints && hints->ai_src_addr) {
				r->ai_src_len = hints->ai_src_len;
				r->ai_src_addr = copy_sa(hints->ai_src_addr, hints->ai_src_len);
				if (!r->ai_src_addr)
					goto nomem;
			}
		}
	}
	freeaddrinfo(ai);
	if (!head)
		return cma_ret(ENOENT);
	*res = head;
	return 0;
nomem:
	freeaddrinfo(ai);
	rdma_freeaddrinfo(head);
	return cma_ret(ENOMEM);
}

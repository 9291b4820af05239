/* SPDX-License-Identifier: MIT */
/* A stand-in for libefa.so.1, the Amazon EFA direct-verbs library, for the reason mlx5.c
 * gives: perftest (Debian 4.5-0.17) needs it at load time, the real one imports
 * IBVERBS_PRIVATE_34 internals that uroce's libibverbs.so.1 does not export (facts.md
 * section 5), and perftest calls it only for an Amazon device, which uroce's is not.
 *
 * Exported: what /usr/bin/ib_* import, in the version node of rdma-core's
 * providers/efa/libefa.map (efa.map); each fails as efadv_*(3) documents, the way the real
 * library answers for a device that is not EFA. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct efadv_device_attr;
struct efadv_qp_init_attr;
struct ibv_context;
struct ibv_qp;
struct ibv_qp_init_attr_ex;

/* The signatures of <infiniband/efadv.h>. */
int efadv_query_device(struct ibv_context *ibvctx, struct efadv_device_attr *attr,
		       uint32_t inlen);
struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx, struct ibv_qp_init_attr_ex *attr_ex,
				  struct efadv_qp_init_attr *efa_attr, uint32_t inlen);

/* efadv_query_device(3): 0, or the value of errno on failure. */
int efadv_query_device(struct ibv_context *ibvctx, struct efadv_device_attr *attr,
		       uint32_t inlen)
{
	(void)ibvctx;
	(void)attr;
	(void)inlen;
	return EOPNOTSUPP;
}

/* efadv_create_qp_ex(3): NULL if the request fails, with errno set as rdma-core does. */
struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx, struct ibv_qp_init_attr_ex *attr_ex,
				  struct efadv_qp_init_attr *efa_attr, uint32_t inlen)
{
	(void)ibvctx;
	(void)attr_ex;
	(void)efa_attr;
	(void)inlen;
	errno = EOPNOTSUPP;
	return NULL;
}

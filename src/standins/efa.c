/* SPDX-License-Identifier: MIT */
/* A stand-in for libefa.so.1, the direct-verbs library of Amazon's Elastic Fabric Adapter
 * (rdma-core 44, providers/efa; <infiniband/efadv.h>), for the reason mlx5.c gives: perftest,
 * libfabric (its efa provider is built into libfabric.so.1) and pyverbs import efadv_*
 * functions by version, and no device of uroce's is an EFA one.
 *
 * Every function Debian's libefa.so.1 exports is here, in the same version node (efa.map),
 * with the signature of <infiniband/efadv.h>. Each answers as rdma-core's libefa does for a
 * device that is not EFA (is_efa_dev() false, providers/efa/verbs.c): EOPNOTSUPP returned,
 * or NULL with errno EOPNOTSUPP. efadv_cq_from_ibv_cq_ex only converts a pointer to an EFA
 * CQ, which no CQ here is: NULL. */
#include <errno.h>
#include <stddef.h>

#include <infiniband/efadv.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NOT_MINE_PTR(type, name, params) type name params { errno = EOPNOTSUPP; return NULL; }
#define NOT_MINE_INT(name, params) int name params { return EOPNOTSUPP; }

/* EFA_1.0 */
NOT_MINE_PTR(struct ibv_qp *, efadv_create_driver_qp, (struct ibv_pd *ibvpd,
	struct ibv_qp_init_attr *attr, uint32_t driver_qp_type))

/* EFA_1.1 */
NOT_MINE_PTR(struct ibv_qp *, efadv_create_qp_ex, (struct ibv_context *ibvctx,
	struct ibv_qp_init_attr_ex *attr_ex, struct efadv_qp_init_attr *efa_attr, uint32_t inlen))
NOT_MINE_INT(efadv_query_ah, (struct ibv_ah *ibvah, struct efadv_ah_attr *attr, uint32_t inlen))
NOT_MINE_INT(efadv_query_device, (struct ibv_context *ibvctx, struct efadv_device_attr *attr,
	uint32_t inlen))

/* EFA_1.2 */
NOT_MINE_PTR(struct efadv_cq *, efadv_cq_from_ibv_cq_ex, (struct ibv_cq_ex *ibvcqx))
NOT_MINE_PTR(struct ibv_cq_ex *, efadv_create_cq, (struct ibv_context *ibvctx,
	struct ibv_cq_init_attr_ex *attr_ex, struct efadv_cq_init_attr *efa_attr, uint32_t inlen))

#pragma GCC diagnostic pop

/* SPDX-License-Identifier: MIT */
/* A stand-in for libmlx5.so.1, the Mellanox/NVIDIA direct-verbs library (facts.md section 5).
 *
 * Why it exists: perftest (Debian 4.5-0.17) names libmlx5.so.1 and libefa.so.1 as DT_NEEDED
 * libraries, so the dynamic loader must find them before main() runs. The real ones are
 * rdma-core provider libraries that import IBVERBS_PRIVATE_34 internals (verbs_*, ibv_cmd_*)
 * from libibverbs.so.1; uroce's libibverbs.so.1 exports only the public API, so next to it
 * the real libmlx5 fails to load and perftest with it. Shipped in the same directory as
 * uroce's libibverbs.so.1, this library satisfies the loader instead.
 *
 * perftest calls these functions only for a device whose vendor is Mellanox, and uroce's
 * reports vendor id 0xFFFFFF, part 0 (as rxe does), so none is expected to run; if one is,
 * it fails the way its man page documents (rdma-core 44, mlx5dv_*(3)), as the real library
 * does for a device that is not mlx5: NULL with errno set, or the errno value returned.
 *
 * Exported: exactly what /usr/bin/ib_* import (objdump -T), each in the version node where
 * rdma-core defines it (providers/mlx5/libmlx5.map), kept by mlx5.map;
 * tests/verbs/test_abi_imports.sh checks that the list is complete. No rdma-core header is
 * needed: only pointers to its structures cross this interface, so they stay opaque. */
#include <errno.h>
#include <stddef.h>

struct ibv_context;
struct ibv_device;
struct ibv_qp;
struct ibv_qp_ex;
struct ibv_qp_init_attr_ex;
struct mlx5dv_context_attr;
struct mlx5dv_crypto_login_attr;
struct mlx5dv_dek;
struct mlx5dv_dek_init_attr;
struct mlx5dv_mkey;
struct mlx5dv_mkey_init_attr;
struct mlx5dv_qp_ex;
struct mlx5dv_qp_init_attr;

/* The signatures of <infiniband/mlx5dv.h>. */
struct ibv_context *mlx5dv_open_device(struct ibv_device *device,
				       struct mlx5dv_context_attr *attr);
struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr,
				struct mlx5dv_qp_init_attr *mlx5_qp_attr);
struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp);
struct mlx5dv_mkey *mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *mkey_init_attr);
int mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey);
int mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen, void *out,
			    size_t outlen);
int mlx5dv_crypto_login(struct ibv_context *context, struct mlx5dv_crypto_login_attr *login_attr);
struct mlx5dv_dek *mlx5dv_dek_create(struct ibv_context *context,
				     struct mlx5dv_dek_init_attr *init_attr);
int mlx5dv_dek_destroy(struct mlx5dv_dek *dek);

/* mlx5dv_open_device(3): NULL if the request fails; rdma-core sets errno to EOPNOTSUPP for
 * a device that is not mlx5. */
struct ibv_context *mlx5dv_open_device(struct ibv_device *device,
				       struct mlx5dv_context_attr *attr)
{
	(void)device;
	(void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

/* mlx5dv_create_qp(3): NULL with errno set. */
struct ibv_qp *mlx5dv_create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_attr,
				struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	(void)context;
	(void)qp_attr;
	(void)mlx5_qp_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

/* mlx5dv_qp_ex_from_ibv_qp_ex(3) has no failure path in rdma-core (it only converts a
 * pointer to an mlx5 QP, which no uroce QP is); NULL is the one honest answer. */
struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qp)
{
	(void)qp;
	errno = EOPNOTSUPP;
	return NULL;
}

/* mlx5dv_create_mkey(3): NULL with errno set; destroy returns the errno value. */
struct mlx5dv_mkey *mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *mkey_init_attr)
{
	(void)mkey_init_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

int mlx5dv_destroy_mkey(struct mlx5dv_mkey *mkey)
{
	(void)mkey;
	return EOPNOTSUPP;
}

/* mlx5dv_devx_obj_create(3), general commands: 0 or the value of errno. */
int mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen, void *out,
			    size_t outlen)
{
	(void)context;
	(void)in;
	(void)inlen;
	(void)out;
	(void)outlen;
	return EOPNOTSUPP;
}

/* mlx5dv_crypto_login(3): 0 or the errno value. */
int mlx5dv_crypto_login(struct ibv_context *context, struct mlx5dv_crypto_login_attr *login_attr)
{
	(void)context;
	(void)login_attr;
	return EOPNOTSUPP;
}

/* mlx5dv_dek_create(3): NULL with errno set; destroy returns the errno value. */
struct mlx5dv_dek *mlx5dv_dek_create(struct ibv_context *context,
				     struct mlx5dv_dek_init_attr *init_attr)
{
	(void)context;
	(void)init_attr;
	errno = EOPNOTSUPP;
	return NULL;
}

int mlx5dv_dek_destroy(struct mlx5dv_dek *dek)
{
	(void)dek;
	return EOPNOTSUPP;
}

/* SPDX-License-Identifier: MIT */
/* Protection domains, memory regions and address handles. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct uv_port *port = port_of(ctx);
	struct uv_pd *pd = calloc(1, sizeof(*pd));
	int err;

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&port->lock);
	err = uroce_pd_alloc(port->eng, &pd->eng);
	pthread_mutex_unlock(&port->lock);
	if (err) {
		free(pd);
		errno = uv_errno(err);
		return NULL;
	}
	pd->ibv.context = ctx;
	return &pd->ibv;
}

/* A parent domain goes without its QPs and SRQs (EBUSY while it has any), a protection
 * domain without its parent domains (EBUSY), as libmlx5 counts them. */
int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct uv_pd *pd = (struct uv_pd *)ibpd;
	struct uv_port *port = port_of(ibpd->context);
	int err = 0;

	pthread_mutex_lock(&port->lock);
	if (pd->protection ? pd->users : pd->parents)
		err = EBUSY;
	else if (pd->protection)
		pd->protection->parents--;
	else
		err = uv_errno(uroce_pd_dealloc(pd->eng));
	pthread_mutex_unlock(&port->lock);
	if (err)
		return uv_fail(err);
	free(pd);
	return 0;
}

/* ---- Parent domains ---- */

/* The engine asks a parent domain's allocator for a ring: the answer passes through, with
 * rdma-core's "use the default" turned into the engine's. resource_type carries the ring
 * (UROCE_MEM_SQ 1, RQ 2, SRQ 3) in its low 32 bits; the high 32 bits, a kernel driver's id
 * elsewhere, are 0 (RDMA_DRIVER_UNKNOWN): uroce has no kernel driver. */
static void *pd_mem_alloc(void *ctx, size_t size, size_t align, enum uroce_mem_use use)
{
	struct uv_pd *pd = ctx;
	void *p = pd->alloc(&pd->ibv, pd->pd_context, size, align, (uint64_t)use);

	return p == IBV_ALLOCATOR_USE_DEFAULT ? UROCE_MEM_DEFAULT : p;
}

static void pd_mem_free(void *ctx, void *ptr, enum uroce_mem_use use)
{
	struct uv_pd *pd = ctx;

	pd->free(&pd->ibv, pd->pd_context, ptr, (uint64_t)use);
}

/* ibv_alloc_parent_domain(3). Thread domains do not exist here (ibv_alloc_td fails with
 * EOPNOTSUPP), so td must be NULL; allocators come as a pair. The allocators are called
 * inside ibv_create_qp and ibv_create_srq and their destroys, under the port lock: they must
 * not call verbs. */
struct ibv_pd *uv_alloc_parent_domain(struct ibv_context *ctx,
				      struct ibv_parent_domain_init_attr *attr)
{
	struct uv_pd *prot = (struct uv_pd *)attr->pd, *pd;
	struct uv_port *port = port_of(ctx);
	uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;

	if (!prot || prot->ibv.context != ctx || prot->protection || attr->td ||
	    attr->comp_mask & ~known ||
	    (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}
	if (!(pd = calloc(1, sizeof(*pd)))) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv.context = ctx;
	pd->ibv.handle = prot->ibv.handle;
	pd->eng = prot->eng;
	pd->protection = prot;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
		pd->mem = (struct uroce_mem){pd_mem_alloc, pd_mem_free, pd};
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	pthread_mutex_lock(&port->lock);
	prot->parents++;
	pthread_mutex_unlock(&port->lock);
	return &pd->ibv;
}

const struct uroce_mem *uv_pd_mem(struct ibv_pd *ibpd)
{
	struct uv_pd *pd = (struct uv_pd *)ibpd;

	return pd->mem.alloc ? &pd->mem : NULL;
}

void uv_pd_use(struct ibv_pd *ibpd, bool use)
{
	struct uv_pd *pd = (struct uv_pd *)ibpd;

	if (!pd->protection)
		return;
	if (use)
		pd->users++;
	else
		pd->users--;
}

/* The access bits uroce acts on; IBV_ACCESS_OPTIONAL_RANGE bits (relaxed ordering and its
 * kin) are hints a provider may ignore, and perftest sets them (facts.md section 5). */
#define UV_ACCESS_KNOWN                                                                   \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |      \
	 IBV_ACCESS_REMOTE_ATOMIC)

/* The access bits to give the engine, in *access: 0, or EOPNOTSUPP for memory windows,
 * zero-based, on-demand and huge-page regions, which are not supported. */
static int access_to_engine(unsigned *access)
{
	*access &= ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE;
	return *access & ~(unsigned)UV_ACCESS_KNOWN ? EOPNOTSUPP : 0;
}

static struct ibv_mr *reg_mr(struct ibv_pd *ibpd, void *addr, size_t length, uint64_t iova,
			     unsigned access)
{
	struct uv_pd *pd = (struct uv_pd *)ibpd;
	struct uv_port *port = port_of(ibpd->context);
	struct uv_mr *mr;
	int err;

	if ((err = access_to_engine(&access))) {
		errno = err;
		return NULL;
	}
	if (!(mr = calloc(1, sizeof(*mr)))) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&port->lock);
	err = uroce_mr_reg(pd->eng, addr, length, iova, access, &mr->eng);
	pthread_mutex_unlock(&port->lock);
	if (err) {
		free(mr);
		errno = uv_errno(err);
		return NULL;
	}
	mr->ibv.context = ibpd->context;
	mr->ibv.pd = ibpd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->ibv.lkey = uroce_mr_lkey(mr->eng);
	mr->ibv.rkey = uroce_mr_rkey(mr->eng);
	mr->ibv.handle = mr->ibv.lkey;
	mr->iova = iova;
	mr->access = access;
	return &mr->ibv;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			       int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned)access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

/* ibv_rereg_mr(3). The input checks are rdma-core 44's (libibverbs/verbs.c); then the engine
 * re-registers in place (uroce_mr_rereg), which refuses what it refuses without changing
 * the MR, so every failure here leaves the old MR valid: IBV_REREG_MR_ERR_INPUT with errno.
 * A new range is seen by the network at its own address (rdma-core passes addr as the
 * HCA virtual address). The keys stay (uroce_mr_rereg), as mlx5 and rxe keep them. Fork
 * needs nothing here (misc.c), so the fork error codes never occur. */
int ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *ibpd, void *addr, size_t length,
		 int access)
{
	struct uv_mr *mr = (struct uv_mr *)ibmr;
	struct uv_port *port = port_of(ibmr->context);
	struct ibv_pd *new_pd = ibmr->pd;
	void *new_addr = ibmr->addr;
	size_t new_length = ibmr->length;
	uint64_t new_iova = mr->iova;
	unsigned new_access = mr->access;
	int err;

	if (!flags || (unsigned)flags & ~(unsigned)IBV_REREG_MR_FLAGS_SUPPORTED ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!addr || !length)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS)) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && (!ibpd || ibpd->context != ibmr->context))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		new_pd = ibpd;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		new_addr = addr;
		new_length = length;
		new_iova = (uintptr_t)addr;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		new_access = (unsigned)access;
		if ((err = access_to_engine(&new_access))) {
			errno = err;
			return IBV_REREG_MR_ERR_INPUT;
		}
	}
	pthread_mutex_lock(&port->lock);
	err = uroce_mr_rereg(mr->eng, ((struct uv_pd *)new_pd)->eng, new_addr, new_length,
			     new_iova, new_access);
	pthread_mutex_unlock(&port->lock);
	if (err) {
		errno = uv_errno(err);
		return IBV_REREG_MR_ERR_INPUT;
	}
	ibmr->pd = new_pd;
	ibmr->addr = new_addr;
	ibmr->length = new_length;
	mr->iova = new_iova;
	mr->access = new_access;
	return 0;
}

/* A dma-buf is device memory exported by a kernel driver (a GPU's, mostly) for a NIC to
 * reach by DMA; uroce is not a kernel device and cannot map one: NULL with EOPNOTSUPP, what
 * rdma-core answers for a provider without the operation (rxe). */
struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				 uint64_t iova, int fd, int access)
{
	(void)pd, (void)offset, (void)length, (void)iova, (void)fd, (void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

/* Importing shares a kernel object between contexts through its handle (ibv_import_pd(3)).
 * uroce's objects live in one process and no kernel knows them: NULL with EOPNOTSUPP, as
 * rdma-core answers for a provider without import (rxe). Unimporting an object that cannot
 * have been imported has nothing to undo. */
struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context, (void)pd_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_pd(struct ibv_pd *pd) { (void)pd; }

struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd, (void)mr_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_mr(struct ibv_mr *mr) { (void)mr; }

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context, (void)dm_handle;
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm) { (void)dm; }

int ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct uv_mr *mr = (struct uv_mr *)ibmr;
	struct uv_port *port = port_of(ibmr->context);

	pthread_mutex_lock(&port->lock);
	uroce_mr_dereg(mr->eng);
	pthread_mutex_unlock(&port->lock);
	free(mr);
	return 0;
}

/* ---- Address handles ---- */

struct ibv_ah *ibv_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct uv_pd *pd = (struct uv_pd *)ibpd;
	struct uv_port *port = port_of(ibpd->context);
	struct uroce_ah_attr a;
	struct uv_ah *ah;
	int err;

	/* RoCE addresses are GIDs: an AH without a GRH names no one (rxe rejects it too). */
	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	if (!(ah = calloc(1, sizeof(*ah)))) {
		errno = ENOMEM;
		return NULL;
	}
	uv_ah_attr_to_engine(attr, &a);
	pthread_mutex_lock(&port->lock);
	err = uroce_ah_create(pd->eng, &a, &ah->eng);
	pthread_mutex_unlock(&port->lock);
	if (err) {
		free(ah);
		errno = uv_errno(err);
		return NULL;
	}
	ah->ibv.context = ibpd->context;
	ah->ibv.pd = ibpd;
	return &ah->ibv;
}

int ibv_destroy_ah(struct ibv_ah *ibah)
{
	struct uv_ah *ah = (struct uv_ah *)ibah;
	struct uv_port *port = port_of(ibah->context);
	int err;

	pthread_mutex_lock(&port->lock);
	err = uroce_ah_destroy(ah->eng);
	pthread_mutex_unlock(&port->lock);
	if (err)
		return uv_fail(uv_errno(err));
	free(ah);
	return 0;
}

/* The 40-byte network-header area of a UD receive buffer (Annex A17.4.5.2): RoCEv2 over IPv4
 * puts the IPv4 header in its last 20 bytes, over IPv6 the whole IPv6 header fills it. The
 * reply goes back to the source address from the GID of the local address it was sent to. */
int ibv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port_num, struct ibv_wc *wc,
			struct ibv_grh *grh, struct ibv_ah_attr *attr)
{
	struct uv_device *d = port_of(ctx)->dev;
	const uint8_t *h = (const uint8_t *)grh;
	struct uroce_ah_attr e = {.hop_limit = 0xff, .port_num = 1};
	struct uroce_io_addr dst;
	size_t i;

	memset(attr, 0, sizeof(*attr));
	if (!(wc->wc_flags & IBV_WC_GRH) || port_num != 1) {
		errno = EINVAL;
		return -1;
	}
	memset(&dst, 0, sizeof(dst));
	if ((h[20] >> 4) == 4) {
		memcpy(e.dgid.ip, h + 20 + 12, 4);
		memcpy(dst.ip, h + 20 + 16, 4);
		e.traffic_class = h[21];
	} else if ((h[0] >> 4) == 6) {
		e.dgid.ipv6 = dst.ipv6 = true;
		memcpy(e.dgid.ip, h + 8, 16);
		memcpy(dst.ip, h + 24, 16);
		e.traffic_class = (uint8_t)((h[0] << 4) | (h[1] >> 4));
		e.flow_label = ((uint32_t)(h[1] & 0xf) << 16) | (uint32_t)h[2] << 8 | h[3];
	} else {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < d->ngids; i++)
		if (uroce_io_addr_equal(&d->gid[i].addr, &dst))
			break;
	if (i == d->ngids) {
		errno = ENOENT;
		return -1;
	}
	e.sgid_index = (uint8_t)i;
	uv_ah_attr_from_engine(&e, attr);
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
				     uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

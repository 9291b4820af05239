/* SPDX-License-Identifier: MIT */
#include "mr.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define ACCESS_KNOWN (UROCE_ACCESS_LOCAL_WRITE | UROCE_ACCESS_REMOTE_WRITE | \
		      UROCE_ACCESS_REMOTE_READ | UROCE_ACCESS_REMOTE_ATOMIC | UROCE_ACCESS_INVALIDATE)

/* ---- protection domains ---- */

int uroce_pd_alloc(struct uroce_dev *dev, struct uroce_pd **out)
{
	struct uroce_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return UROCE_ENOMEM;
	pd->dev = dev;
	dev_obj_add(dev, &pd->obj, OBJ_PD);
	*out = pd;
	return 0;
}

int uroce_pd_dealloc(struct uroce_pd *pd)
{
	if (pd->refs)
		return UROCE_EBUSY;
	dev_obj_del(&pd->obj);
	free(pd);
	return 0;
}

/* ---- memory regions ---- */

/* The checks a registration's attributes must pass: 0 or UROCE_EINVAL. */
static int mr_attr_check(const void *addr, uint64_t length, uint64_t iova, unsigned access)
{
	if (access & ~ACCESS_KNOWN)
		return UROCE_EINVAL;
	/* IBA 10.6.3.1: remote write and remote atomic access need local write access. */
	if (access & (UROCE_ACCESS_REMOTE_WRITE | UROCE_ACCESS_REMOTE_ATOMIC) &&
	    !(access & UROCE_ACCESS_LOCAL_WRITE))
		return UROCE_EINVAL;
	/* The last byte, iova + length - 1, must not wrap; nor may the host range. */
	if (length && (!addr || iova > UINT64_MAX - (length - 1) ||
		       (uintptr_t)addr > UINTPTR_MAX - (length - 1)))
		return UROCE_EINVAL;
	return 0;
}

/* A new key part for every registration of a slot (IBA 10.6.3.2): a key kept from an
 * earlier registration does not reach the new region. */
static uint32_t mr_new_key(struct uroce_dev *dev, uint32_t idx)
{
	return idx << MR_KEY_BITS | ++dev->mr_key[idx];
}

int uroce_mr_reg(struct uroce_pd *pd, void *addr, uint64_t length, uint64_t iova,
		 unsigned access, struct uroce_mr **out)
{
	struct uroce_dev *dev = pd->dev;
	struct uroce_mr *mr;
	uint32_t idx;
	int err = mr_attr_check(addr, length, iova, access);

	if (err)
		return err;
	for (idx = 1; idx <= dev->cfg.max_mr && dev->mrs[idx]; idx++)
		;
	if (idx > dev->cfg.max_mr || !(mr = calloc(1, sizeof(*mr))))
		return UROCE_ENOMEM;
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->valid = true;
	mr->key = mr_new_key(dev, idx);
	dev->mrs[idx] = mr;
	pd->refs++;
	dev_obj_add(dev, &mr->obj, OBJ_MR);
	*out = mr;
	return 0;
}

void mr_release(struct uroce_mr *mr)
{
	mr->pd->dev->mrs[mr->key >> MR_KEY_BITS] = NULL;
	mr->pd->refs--;
	dev_obj_del(&mr->obj);
	free(mr);
}

int uroce_mr_rereg(struct uroce_mr *mr, struct uroce_pd *pd, void *addr, uint64_t length,
		   uint64_t iova, unsigned access)
{
	int err = mr_attr_check(addr, length, iova, access);

	if (err)
		return err;
	if (pd->dev != mr->pd->dev)
		return UROCE_EINVAL;
	mr->pd->refs--;
	pd->refs++;
	mr->pd = pd;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->valid = true;
	/* The keys stay (ibv_rereg_mr(3): resources are reused where possible): a peer keeps
	 * reaching the region with the key it was given, and from now on it finds the new
	 * range, PD and rights, as with mlx5 (which rewrites the same mkey) and Linux rxe
	 * (rxe_rereg_user_mr changes the PD and rights in place). */
	return 0;
}

int uroce_mr_dereg(struct uroce_mr *mr)
{
	mr_release(mr);
	return 0;
}

uint32_t uroce_mr_lkey(const struct uroce_mr *mr) { return mr->key; }
uint32_t uroce_mr_rkey(const struct uroce_mr *mr) { return mr->key; }
bool uroce_mr_valid(const struct uroce_mr *mr) { return mr->valid; }

struct uroce_mr *mr_find(struct uroce_dev *dev, uint32_t key)
{
	uint32_t idx = key >> MR_KEY_BITS;
	struct uroce_mr *mr;

	if (!idx || idx > dev->cfg.max_mr || !(mr = dev->mrs[idx]) || mr->key != key)
		return NULL;
	return mr;
}

uint8_t *mr_access(struct uroce_dev *dev, const struct uroce_pd *pd, uint32_t key,
			  uint64_t va, uint64_t len, unsigned access)
{
	struct uroce_mr *mr = mr_find(dev, key);

	if (!mr || !mr->valid || mr->pd != pd || (mr->access & access) != access ||
	    !range_inside(mr->iova, mr->length, va, len))
		return NULL;
	return mr->addr + (va - mr->iova);
}

/* The host address of a whole SGE (checked as one range, so that no offset into it can
 * wrap), or NULL. */
static uint8_t *sge_host(struct uroce_dev *dev, const struct uroce_pd *pd,
			 const struct uroce_sge *sge, unsigned access)
{
	return mr_access(dev, pd, sge->lkey, sge->addr, sge->length, access);
}

int sgl_check(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
	      uint32_t n, unsigned access)
{
	for (uint32_t i = 0; i < n; i++)
		if (sge[i].length && !sge_host(dev, pd, &sge[i], access))
			return UROCE_EINVAL;
	return 0;
}

/* Copies between a flat buffer and the list: from src into the list when src is set, else
 * from the list into dst. */
static int sgl_copy(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
		    uint32_t n, uint64_t off, uint8_t *dst, const uint8_t *src, uint32_t len,
		    unsigned access)
{
	for (uint32_t i = 0; i < n && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		uint32_t chunk = sge[i].length - (uint32_t)off;
		if (chunk > len)
			chunk = len;
		uint8_t *p = sge_host(dev, pd, &sge[i], access);
		if (!p)
			return UROCE_EINVAL;
		if (src) {
			dma_write(p + off, src, chunk);
			src += chunk;
		} else {
			memcpy(dst, p + off, chunk);
			dst += chunk;
		}
		len -= chunk;
		off = 0;
	}
	return len ? UROCE_ENOSPACE : 0;
}

int sgl_read(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
	     uint32_t n, uint64_t off, uint8_t *dst, uint32_t len)
{
	return sgl_copy(dev, pd, sge, n, off, dst, NULL, len, 0);
}

int sgl_write(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
	      uint32_t n, uint64_t off, const uint8_t *src, uint32_t len, unsigned access)
{
	return sgl_copy(dev, pd, sge, n, off, NULL, src, len, access);
}

const uint8_t *sgl_ptr(struct uroce_dev *dev, const struct uroce_pd *pd,
		       const struct uroce_sge *sge, uint32_t n, uint64_t off, uint32_t len)
{
	for (uint32_t i = 0; i < n; i++) {
		if (off < sge[i].length) {
			const uint8_t *p = sge_host(dev, pd, &sge[i], 0);
			return p && len <= sge[i].length - off ? p + off : NULL;
		}
		off -= sge[i].length;
	}
	return NULL;
}

int mr_invalidate(struct uroce_dev *dev, const struct uroce_pd *pd, uint32_t key)
{
	struct uroce_mr *mr = mr_find(dev, key);

	if (!mr || mr->pd != pd || !(mr->access & UROCE_ACCESS_INVALIDATE))
		return UROCE_EINVAL;
	mr->valid = false;
	return 0;
}

/* ---- address handles ---- */

int ah_check(const struct uroce_dev *dev, const struct uroce_ah_attr *attr)
{
	if (attr->sgid_index >= dev->cfg.ngids || attr->port_num != 1 ||
	    attr->dgid.ipv6 != dev->cfg.gid[attr->sgid_index].ipv6 ||
	    attr->flow_label > 0xFFFFF)
		return UROCE_EINVAL;
	return 0;
}

int uroce_ah_create(struct uroce_pd *pd, const struct uroce_ah_attr *attr, struct uroce_ah **out)
{
	struct uroce_ah *ah;
	int err = ah_check(pd->dev, attr);

	if (err)
		return err;
	if (!(ah = calloc(1, sizeof(*ah))))
		return UROCE_ENOMEM;
	ah->pd = pd;
	ah->attr = *attr;
	pd->refs++;
	dev_obj_add(pd->dev, &ah->obj, OBJ_AH);
	*out = ah;
	return 0;
}

int uroce_ah_destroy(struct uroce_ah *ah)
{
	ah->pd->refs--;
	dev_obj_del(&ah->obj);
	free(ah);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Protection domains, memory regions and address handles; every memory access the engine
 * makes goes through the checks here (design.md: rkey, PD, access flags, and the range
 * inside the MR with overflow-safe arithmetic). */
#ifndef UROCE_ENGINE_MR_H
#define UROCE_ENGINE_MR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "priv.h"

/* ThreadSanitizer builds only: its runtime defines these (docs/engine.md "Threads"). */
#if defined(__SANITIZE_THREAD__)
#define UROCE_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UROCE_TSAN_BUILD 1
#endif
#endif
#ifdef UROCE_TSAN_BUILD
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#endif

/* Writes into registered memory on behalf of the network, which a NIC makes by DMA: the
 * program synchronises with them through a completion, or not at all (ib_write_lat spins on
 * the last byte an RDMA WRITE lands, while it lands). ThreadSanitizer is told to ignore them,
 * so that it checks the library's own memory and not the RDMA contract. */
static inline void dma_write(void *dst, const void *src, size_t len)
{
#ifdef UROCE_TSAN_BUILD
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
#endif
	memcpy(dst, src, len);
#ifdef UROCE_TSAN_BUILD
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
#endif
}

/* The same for an ATOMIC WRITE: one 8-byte single-copy store at an aligned address, ordered
 * after every earlier write (release; Linux rxe uses smp_store_release). */
static inline void dma_store64(uint64_t *dst, uint64_t v)
{
#ifdef UROCE_TSAN_BUILD
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
#endif
	__atomic_store_n(dst, v, __ATOMIC_RELEASE);
#ifdef UROCE_TSAN_BUILD
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
#endif
}

/* True when [va, va + len) lies inside [base, base + size), computed without ever forming
 * va + len or base + size, which can wrap past 2^64 (the Linux rxe bug in facts.md
 * section 3). An empty range is inside when va is inside or at the end. */
static inline bool range_inside(uint64_t base, uint64_t size, uint64_t va, uint64_t len)
{
	return va >= base && len <= size && va - base <= size - len;
}

/* The MR named by a key (index and key part both matching), or NULL. */
struct uroce_mr *mr_find(struct uroce_dev *dev, uint32_t key);
/* The host address of [va, va + len) through key: a valid MR of pd that grants access and
 * holds the whole range (IBA 10.6.3: the L_Key/R_Key checks), or NULL when any check fails. */
uint8_t *mr_access(struct uroce_dev *dev, const struct uroce_pd *pd, uint32_t key, uint64_t va,
		   uint64_t len, unsigned access);
/* Checks a local SGE list: every nonempty entry names a valid MR of pd (L_Key) with access
 * (0 for reading) and lies inside it. Returns 0 or UROCE_EINVAL. */
int sgl_check(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
	      uint32_t n, unsigned access);
/* Copies len bytes from the SGE list at byte offset off into dst / from src into the list
 * (which needs access, e.g. LOCAL_WRITE). Every entry is checked again, as the MR may have
 * gone since sgl_check. Returns 0, UROCE_EINVAL (a check fails) or UROCE_ENOSPACE (the list
 * ends first). */
int sgl_read(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
	     uint32_t n, uint64_t off, uint8_t *dst, uint32_t len);
int sgl_write(struct uroce_dev *dev, const struct uroce_pd *pd, const struct uroce_sge *sge,
	      uint32_t n, uint64_t off, const uint8_t *src, uint32_t len, unsigned access);
/* The host address of [off, off + len) of the list when one entry holds it all, or NULL. */
const uint8_t *sgl_ptr(struct uroce_dev *dev, const struct uroce_pd *pd,
		       const struct uroce_sge *sge, uint32_t n, uint64_t off, uint32_t len);
/* Invalidates the MR named by key (LOCAL_INV, SEND_WITH_INV): it must be of pd and allow
 * invalidation. Returns 0 or UROCE_EINVAL. */
int mr_invalidate(struct uroce_dev *dev, const struct uroce_pd *pd, uint32_t key);
/* UROCE_EINVAL when an address vector cannot be used on the device. */
int ah_check(const struct uroce_dev *dev, const struct uroce_ah_attr *attr);
/* Frees the MR whatever uses it. */
void mr_release(struct uroce_mr *mr);

#endif

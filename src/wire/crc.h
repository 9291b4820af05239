/* SPDX-License-Identifier: MIT */
/* CRC-32 (IEEE 802.3, reflected, the zlib crc32() function) and the InfiniBand VCRC (CRC-16,
 * polynomial 0x100B). The fast CRC-32 comes from ISA-L (libisal, crc32_gzip_refl) when the
 * build finds it; a portable slicing-by-8 fallback is always built so that both can be tested
 * against each other. */
#ifndef UROCE_WIRE_CRC_H
#define UROCE_WIRE_CRC_H

#include <stddef.h>
#include <stdint.h>

/* zlib semantics: start with crc = 0, pass the previous result to continue. */
uint32_t uroce_crc32(uint32_t crc, const void *buf, size_t len);
/* The portable implementation, same results. */
uint32_t uroce_crc32_portable(uint32_t crc, const void *buf, size_t len);
/* "isa-l" or "portable": what uroce_crc32 uses. */
const char *uroce_crc32_impl(void);

/* The VCRC over buf (init 0xFFFF, reflected polynomial 0xD008, final xor 0xFFFF). */
uint16_t uroce_vcrc16(const void *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
#include "crc.h"

#include "bytes.h"
#include "crc_tables.h"

#ifdef UROCE_HAVE_ISAL
#include <isa-l/crc.h>
#endif

/* Words are assembled with get_le32 so the code depends neither on host byte order nor on
 * alignment (compilers turn it into one load on little-endian hosts). */

/* Slicing-by-8 / by-16 step: the register is xored into the first 4 input bytes, and each byte
 * is looked up in the table that accounts for the bytes still to follow it. */
static inline uint32_t crc32_slice8(uint32_t crc, const uint8_t *p)
{
	const uint32_t(*t)[256] = crc32_table;
	uint32_t a = get_le32(p) ^ crc;
	uint32_t b = get_le32(p + 4);

	return t[7][a & 0xFF] ^ t[6][(a >> 8) & 0xFF] ^ t[5][(a >> 16) & 0xFF] ^ t[4][a >> 24] ^
	       t[3][b & 0xFF] ^ t[2][(b >> 8) & 0xFF] ^ t[1][(b >> 16) & 0xFF] ^ t[0][b >> 24];
}

static inline uint32_t crc32_slice16(uint32_t crc, const uint8_t *p)
{
	const uint32_t(*t)[256] = crc32_table;
	uint32_t a = get_le32(p) ^ crc;
	uint32_t b = get_le32(p + 4);
	uint32_t c = get_le32(p + 8);
	uint32_t d = get_le32(p + 12);

	return t[15][a & 0xFF] ^ t[14][(a >> 8) & 0xFF] ^ t[13][(a >> 16) & 0xFF] ^ t[12][a >> 24] ^
	       t[11][b & 0xFF] ^ t[10][(b >> 8) & 0xFF] ^ t[9][(b >> 16) & 0xFF] ^ t[8][b >> 24] ^
	       t[7][c & 0xFF] ^ t[6][(c >> 8) & 0xFF] ^ t[5][(c >> 16) & 0xFF] ^ t[4][c >> 24] ^
	       t[3][d & 0xFF] ^ t[2][(d >> 8) & 0xFF] ^ t[1][(d >> 16) & 0xFF] ^ t[0][d >> 24];
}

/* The register advanced over (j + 1) x CRC32_LANE zero bytes. */
static inline uint32_t crc32_advance(unsigned j, uint32_t reg)
{
	const uint32_t(*t)[256] = crc32_shift[j];

	return t[0][reg & 0xFF] ^ t[1][(reg >> 8) & 0xFF] ^ t[2][(reg >> 16) & 0xFF] ^
	       t[3][reg >> 24];
}

/* One slicing chain waits on its own previous result, so it leaves the CPU idle between
 * loads: three lanes of CRC32_LANE bytes run side by side instead, the second and third from a
 * zero register, and are joined by linearity, reg(A B C) = adv2(reg(A)) ^ adv1(reg0(B)) ^
 * reg0(C). About 1.7x slicing-by-16 from 1 KiB up (bench/bench_crc), on par with zlib 1.2.13;
 * slicing-by-16 does the rest. */
uint32_t uroce_crc32_portable(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len >= 3 * CRC32_LANE) {
		uint32_t c0 = crc, c1 = 0, c2 = 0;
		for (size_t i = 0; i < CRC32_LANE; i += 8) {
			c0 = crc32_slice8(c0, p + i);
			c1 = crc32_slice8(c1, p + CRC32_LANE + i);
			c2 = crc32_slice8(c2, p + 2 * CRC32_LANE + i);
		}
		crc = crc32_advance(1, c0) ^ crc32_advance(0, c1) ^ c2;
		p += 3 * CRC32_LANE;
		len -= 3 * CRC32_LANE;
	}
	while (len >= CRC32_SLICES) {
		crc = crc32_slice16(crc, p);
		p += CRC32_SLICES;
		len -= CRC32_SLICES;
	}
	while (len--)
		crc = (crc >> 8) ^ crc32_table[0][(crc ^ *p++) & 0xFF];
	return ~crc;
}

#ifdef UROCE_HAVE_ISAL
/* crc32_gzip_refl inverts on entry and exit like zlib's crc32(), so the seed is the previous
 * result (0 to start) and it is a drop-in: checked by tests/wire/test_crc.c against zlib. */
uint32_t uroce_crc32(uint32_t crc, const void *buf, size_t len)
{
	return crc32_gzip_refl(crc, buf, len);
}

const char *uroce_crc32_impl(void)
{
	return "isa-l";
}
#else
uint32_t uroce_crc32(uint32_t crc, const void *buf, size_t len)
{
	return uroce_crc32_portable(crc, buf, len);
}

const char *uroce_crc32_impl(void)
{
	return "portable";
}
#endif

/* Bytewise: VCRCs cover at most one packet (LRH..ICRC, a few KiB), outside the hot path of
 * RoCE, which has no VCRC. */
uint16_t uroce_vcrc16(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint16_t crc = 0xFFFF;

	while (len--)
		crc = (uint16_t)((crc >> 8) ^ vcrc_table[(crc ^ *p++) & 0xFF]);
	return (uint16_t)~crc;
}

/* SPDX-License-Identifier: MIT */
/* CRC throughput: uroce_crc32 (ISA-L when built with it), the portable slicing-by-16 and zlib's
 * crc32() in the same run, plus the bytewise VCRC. Each cell runs about 0.2 s per repetition
 * and keeps the best of several repetitions; ratios are against zlib. Prints figures only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wire/crc.h"

#ifdef UROCE_HAVE_ZLIB
#include <zlib.h>
#endif

#define TARGET_NS 200000000ull /* one repetition */
#define REPS 5

static volatile uint32_t sink; /* keeps the compiler from dropping the calls */

typedef uint32_t (*crc_fn)(const uint8_t *buf, size_t len);

static uint32_t run_isal(const uint8_t *buf, size_t len)
{
	return uroce_crc32(0, buf, len);
}

static uint32_t run_portable(const uint8_t *buf, size_t len)
{
	return uroce_crc32_portable(0, buf, len);
}

#ifdef UROCE_HAVE_ZLIB
static uint32_t run_zlib(const uint8_t *buf, size_t len)
{
	return (uint32_t)crc32(0, buf, (uInt)len);
}
#endif

static uint32_t run_vcrc(const uint8_t *buf, size_t len)
{
	return uroce_vcrc16(buf, len);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Bytes per nanosecond = GB/s. The iteration count is calibrated so that one repetition takes
 * about TARGET_NS; the best repetition is kept (the least disturbed by the machine). */
static double measure(crc_fn fn, const uint8_t *buf, size_t len)
{
	uint64_t iters = 1, t0, dt;
	uint32_t acc = 0;

	for (;;) { /* calibrate */
		t0 = now_ns();
		for (uint64_t i = 0; i < iters; i++)
			acc ^= fn(buf, len);
		dt = now_ns() - t0;
		if (dt >= TARGET_NS / 10)
			break;
		iters *= 4;
	}
	iters = iters * TARGET_NS / (dt ? dt : 1) + 1;

	double best = 0;
	for (int r = 0; r < REPS; r++) {
		t0 = now_ns();
		for (uint64_t i = 0; i < iters; i++)
			acc ^= fn(buf, len);
		dt = now_ns() - t0;
		double gbs = (double)iters * (double)len / (double)(dt ? dt : 1);
		if (gbs > best)
			best = gbs;
	}
	sink = acc;
	return best;
}

int main(void)
{
	static const size_t sizes[] = {64, 1024, 4096, 1u << 20};
	static const char *const size_names[] = {"64 B", "1 KiB", "4 KiB", "1 MiB"};
	size_t max = sizes[sizeof(sizes) / sizeof(sizes[0]) - 1];
	uint8_t *buf = malloc(max);

	if (!buf)
		return 1;
	for (size_t i = 0; i < max; i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);

	printf("CRC throughput, GB/s (best of %d x ~%.1f s); uroce_crc32 = %s\n", REPS,
	       (double)TARGET_NS / 1e9, uroce_crc32_impl());
#ifdef UROCE_HAVE_ZLIB
	printf("%-6s %12s %8s %12s %8s %10s %10s\n", "size", "uroce_crc32", "x zlib", "portable",
	       "x zlib", "zlib", "vcrc16");
#else
	printf("%-6s %12s %12s %10s   (zlib not found: no baseline)\n", "size", "uroce_crc32",
	       "portable", "vcrc16");
#endif
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t len = sizes[s];
		double fast = measure(run_isal, buf, len);
		double port = measure(run_portable, buf, len);
		double vcrc = measure(run_vcrc, buf, len);
#ifdef UROCE_HAVE_ZLIB
		double zl = measure(run_zlib, buf, len);
		printf("%-6s %12.2f %8.2f %12.2f %8.2f %10.2f %10.2f\n", size_names[s], fast,
		       fast / zl, port, port / zl, zl, vcrc);
#else
		printf("%-6s %12.2f %12.2f %10.2f\n", size_names[s], fast, port, vcrc);
#endif
		fflush(stdout);
	}
	free(buf);
	return 0;
}

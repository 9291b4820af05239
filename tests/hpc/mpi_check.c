/* SPDX-License-Identifier: MIT */
/* An MPI program of the project's own, for MPI over uroce (tests/hpc): point-to-point,
 * collectives and one-sided communication between 2 or more ranks, every byte checked.
 *
 *   ping-pong     ranks 2k and 2k+1, messages of 0 bytes to 1 MiB (eager and rendezvous
 *                 protocols), each echoed back changed, both directions checked
 *   MPI_Allreduce sums and maxima of 1 and 65536 elements
 *   MPI_Alltoall  blocks of 1 and 40000 values naming their source, destination and index
 *   MPI_Put/Get   a window per rank: each rank puts a pattern into the next rank's window
 *                 and reads back what it put, in fence epochs (8 bytes and 256 KiB), then
 *                 under MPI_Win_lock
 *
 * Each rank also reports its UROCE_IP; rank 0 prints them ("rank R: UROCE_IP=...") and one
 * last line "mpi_check: PASS ..." when every check held. A mismatch prints what differed,
 * where, and ends the job with MPI_Abort(1). */
#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MSG (1u << 20)
#define RMA_LEN (256u * 1024)
#define A2A_BIG 40000
#define RED_BIG 65536
#define ADDR_LEN 64

static int me, np;
static uint64_t checked; /* bytes compared with what they should be */

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mpi_check: rank %d: FAIL: ", me);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* The byte at position i of the message a sender makes for (tag, size): depends on all of
 * them, so a misplaced, stale or truncated byte does not match. */
static uint8_t pat(uint32_t tag, uint32_t n, uint32_t i)
{
	uint32_t x = tag * 0x9E3779B1u ^ n * 0x85EBCA77u ^ i * 0xC2B2AE3Du;

	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	x ^= x >> 12;
	return (uint8_t)(x ^ (x >> 24));
}

static void fill(uint8_t *p, uint32_t n, uint32_t tag)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = pat(tag, n, i);
}

static void check(const uint8_t *p, uint32_t n, uint32_t tag, const char *what, int peer)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != pat(tag, n, i))
			fail("%s with rank %d: byte %" PRIu32 " of %" PRIu32 " is 0x%02x, not 0x%02x",
			     what, peer, i, n, p[i], pat(tag, n, i));
	checked += n;
}

static void pingpong(uint8_t *buf)
{
	static const uint32_t sizes[] = {0, 1, 63, 4096, 65536 + 7, MAX_MSG};
	int peer = me ^ 1;

	if (peer >= np) /* an odd rank count leaves the last rank out */
		return;
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (uint32_t it = 0; it < 5; it++) {
			uint32_t n = sizes[s], ping = 1000 * s + it, pong = ping + 500;
			MPI_Status st;
			int got;

			if (me < peer) {
				fill(buf, n, ping);
				MPI_Send(buf, (int)n, MPI_BYTE, peer, (int)ping, MPI_COMM_WORLD);
				memset(buf, 0xA5, n);
				MPI_Recv(buf, MAX_MSG, MPI_BYTE, peer, (int)pong, MPI_COMM_WORLD, &st);
				MPI_Get_count(&st, MPI_BYTE, &got);
				if ((uint32_t)got != n)
					fail("ping-pong reply of %d bytes, sent %" PRIu32, got, n);
				check(buf, n, pong, "ping-pong reply", peer);
			} else {
				memset(buf, 0x5A, n);
				MPI_Recv(buf, MAX_MSG, MPI_BYTE, peer, (int)ping, MPI_COMM_WORLD, &st);
				MPI_Get_count(&st, MPI_BYTE, &got);
				if ((uint32_t)got != n)
					fail("ping-pong message of %d bytes, expected %" PRIu32, got, n);
				check(buf, n, ping, "ping-pong message", peer);
				fill(buf, n, pong);
				MPI_Send(buf, (int)n, MPI_BYTE, peer, (int)pong, MPI_COMM_WORLD);
			}
		}
	}
}

static void allreduce(void)
{
	static const int counts[] = {1, RED_BIG};
	int64_t *in = malloc(RED_BIG * sizeof(*in)), *sum = malloc(RED_BIG * sizeof(*sum));
	int32_t *vin = malloc(RED_BIG * sizeof(*vin)), *max = malloc(RED_BIG * sizeof(*max));

	if (!in || !sum || !vin || !max)
		fail("out of memory");
	for (unsigned c = 0; c < 2; c++) {
		int n = counts[c];

		for (int i = 0; i < n; i++) {
			in[i] = (int64_t)(me + 1) * (i + 1) + ((int64_t)1 << 40);
			vin[i] = (me * 7919 + i) % 10007 - 5000;
		}
		MPI_Allreduce(in, sum, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(vin, max, n, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
		for (int i = 0; i < n; i++) {
			int64_t want = (int64_t)(i + 1) * np * (np + 1) / 2 + np * ((int64_t)1 << 40);
			int32_t wmax = INT32_MIN;

			for (int r = 0; r < np; r++) {
				int32_t v = (r * 7919 + i) % 10007 - 5000;
				wmax = v > wmax ? v : wmax;
			}
			if (sum[i] != want)
				fail("MPI_Allreduce(SUM) of %d: element %d is %" PRId64 ", not %" PRId64,
				     n, i, sum[i], want);
			if (max[i] != wmax)
				fail("MPI_Allreduce(MAX) of %d: element %d is %" PRId32 ", not %" PRId32,
				     n, i, max[i], wmax);
		}
		checked += (uint64_t)n * (sizeof(*sum) + sizeof(*max));
	}
	free(in), free(sum), free(vin), free(max);
}

static uint32_t a2a_val(int src, int dst, int k)
{
	return (uint32_t)src << 24 | (uint32_t)dst << 16 | ((uint32_t)k * 2654435761u >> 16);
}

static void alltoall(void)
{
	static const int counts[] = {1, A2A_BIG};
	size_t total = (size_t)np * A2A_BIG;
	uint32_t *out = malloc(total * sizeof(*out)), *in = malloc(total * sizeof(*in));

	if (!out || !in)
		fail("out of memory");
	for (unsigned c = 0; c < 2; c++) {
		int n = counts[c];

		for (int d = 0; d < np; d++)
			for (int k = 0; k < n; k++)
				out[(size_t)d * n + k] = a2a_val(me, d, k);
		memset(in, 0, total * sizeof(*in));
		MPI_Alltoall(out, n, MPI_UINT32_T, in, n, MPI_UINT32_T, MPI_COMM_WORLD);
		for (int s = 0; s < np; s++)
			for (int k = 0; k < n; k++)
				if (in[(size_t)s * n + k] != a2a_val(s, me, k))
					fail("MPI_Alltoall of %d: value %d from rank %d is 0x%08" PRIx32
					     ", not 0x%08" PRIx32, n, k, s, in[(size_t)s * n + k],
					     a2a_val(s, me, k));
		checked += (uint64_t)np * n * sizeof(*in);
	}
	free(out), free(in);
}

/* Each rank puts into the next rank's window, at the offset of its own rank, and gets back
 * from there what it put; the tags say who put what in which epoch. */
static void one_sided(void)
{
	static const uint32_t lens[] = {8, RMA_LEN};
	int next = (me + 1) % np, prev = (me + np - 1) % np;
	uint8_t *win_buf, *src = malloc(RMA_LEN), *back = malloc(RMA_LEN);
	MPI_Win win;

	if (!src || !back)
		fail("out of memory");
	MPI_Alloc_mem((MPI_Aint)np * RMA_LEN, MPI_INFO_NULL, &win_buf);
	memset(win_buf, 0, (size_t)np * RMA_LEN);
	MPI_Win_create(win_buf, (MPI_Aint)np * RMA_LEN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	for (unsigned e = 0; e < 3; e++) {
		uint32_t n = lens[e ? 1 : 0], tag = 70000 + e * 100 + (uint32_t)me;
		MPI_Aint off = (MPI_Aint)me * RMA_LEN;

		fill(src, n, tag);
		memset(back, 0xC3, n);
		if (e < 2) { /* active target: fences */
			MPI_Win_fence(0, win);
			MPI_Put(src, (int)n, MPI_BYTE, next, off, (int)n, MPI_BYTE, win);
			MPI_Win_fence(0, win);
			MPI_Get(back, (int)n, MPI_BYTE, next, off, (int)n, MPI_BYTE, win);
			MPI_Win_fence(0, win);
		} else { /* passive target */
			MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
			MPI_Put(src, (int)n, MPI_BYTE, next, off, (int)n, MPI_BYTE, win);
			MPI_Win_flush(next, win);
			MPI_Get(back, (int)n, MPI_BYTE, next, off, (int)n, MPI_BYTE, win);
			MPI_Win_unlock(next, win);
			MPI_Barrier(MPI_COMM_WORLD);
		}
		check(back, n, tag, e < 2 ? "MPI_Get after MPI_Put (fence)" :
			  "MPI_Get after MPI_Put (lock)", next);
		/* What the previous rank put here, seen in this rank's own memory. */
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
		check(win_buf + (size_t)prev * RMA_LEN, n, 70000 + e * 100 + (uint32_t)prev,
		      "window written by MPI_Put", prev);
		MPI_Win_unlock(me, win);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Win_free(&win);
	MPI_Free_mem(win_buf);
	free(src), free(back);
}

int main(int argc, char **argv)
{
	char addr[ADDR_LEN] = "", *all = NULL;
	uint8_t *buf;
	uint64_t total = 0;
	const char *ip = getenv("UROCE_IP");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	snprintf(addr, sizeof(addr), "%s", ip ? ip : "(unset)");
	if (me == 0 && !(all = malloc((size_t)np * ADDR_LEN)))
		fail("out of memory");
	MPI_Gather(addr, ADDR_LEN, MPI_CHAR, all, ADDR_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (me == 0)
		for (int r = 0; r < np; r++)
			printf("rank %d: UROCE_IP=%s\n", r, all + (size_t)r * ADDR_LEN);
	fflush(stdout);
	if (!(buf = malloc(MAX_MSG)))
		fail("out of memory");
	pingpong(buf);
	allreduce();
	alltoall();
	one_sided();
	free(buf);
	MPI_Reduce(&checked, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (me == 0) {
		printf("mpi_check: PASS: %d ranks, %" PRIu64 " bytes checked (ping-pong, "
		       "MPI_Allreduce, MPI_Alltoall, MPI_Put/MPI_Get)\n", np, total);
		fflush(stdout);
	}
	free(all);
	MPI_Finalize();
	return 0;
}

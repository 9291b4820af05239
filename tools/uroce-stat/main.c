/* SPDX-License-Identifier: MIT */
/* uroce-stat: the counters and QPs of the processes of this user that have a uroce device
 * open, read from the pages they publish in the runtime directory (docs/stat.md,
 * uroce-stat(1)). Exit status: 0 with at least one process listed, 1 with none, 2 on a usage
 * error or an unreadable directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stat/report.h"

#define MAX_PROCS 256

struct sample {
	long pid;
	struct uroce_stat_snapshot s;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uroce-stat [-j|--json] [-a|--all] [-p|--pid PID] [-w|--watch [SECONDS]]"
		   " [-c|--count N]\n");
}

/* A page whose writer is alive: that process holds an exclusive flock on it for its life, so a
 * shared lock we can take means the writer is gone (killed): the page goes. 1 read, 0 gone
 * or not a page, -1 unreadable. */
static int read_page(int dfd, const char *name, struct uroce_stat_snapshot *s)
{
	struct stat st;
	void *m;
	int fd, r;

	if ((fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0; /* removed since the listing: its process ended */
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		unlinkat(dfd, name, 0); /* a crashed process's */
		close(fd);
		return 0;
	}
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(struct uroce_stat_page)) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, sizeof(struct uroce_stat_page), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	r = uroce_stat_read(m, (size_t)st.st_size, s);
	munmap(m, sizeof(struct uroce_stat_page));
	if (r == -EAGAIN)
		fprintf(stderr, "uroce-stat: %s: its writer stopped in the middle of a copy\n", name);
	return r ? 0 : 1;
}

static int by_pid(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Reads every live page (of pid only, when nonzero) into out, sorted by pid. Returns the
 * count, or -1 when the directory cannot be read (a missing one holds no process). */
static int sample_all(const char *dir, long pid, struct sample *out)
{
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (!(d = opendir(dir)))
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) && n < MAX_PROCS) {
		char *end;
		long p = strtol(e->d_name, &end, 10);

		if (end == e->d_name || strcmp(end, ".stat") || (pid && p != pid))
			continue;
		out[n].pid = p;
		if (read_page(dirfd(d), e->d_name, &out[n].s) > 0)
			n++;
	}
	closedir(d);
	qsort(out, (size_t)n, sizeof(*out), by_pid);
	return n;
}

static const struct uroce_stat_snapshot *find(const struct sample *v, int n, long pid)
{
	for (int i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i].s;
	return NULL;
}

static void print(const struct sample *cur, int n, const struct sample *prev, int np, bool json,
		  bool all)
{
	if (json)
		fputs("{\"processes\":[", stdout);
	for (int i = 0; i < n; i++) {
		const struct uroce_stat_snapshot *p = prev ? find(prev, np, cur[i].pid) : NULL;

		if (json) {
			fputs(i ? "," : "", stdout);
			uroce_stat_print_json(stdout, &cur[i].s, p);
		} else {
			uroce_stat_print_table(stdout, &cur[i].s, p, all);
		}
	}
	if (json)
		fputs("]}\n", stdout);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},   {"all", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'}, {"watch", optional_argument, NULL, 'w'},
		{"count", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	struct sample *cur, *prev;
	double interval = 0;
	int ret;
	long pid = 0, count = 0;
	bool json = false, all = false;
	char dir[256], *end;
	int c, n, np = 0;

	while ((c = getopt_long(argc, argv, "jap:w::c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'a': all = true; break;
		case 'p':
			pid = strtol(optarg, &end, 10);
			if (*end || pid <= 0)
				goto bad;
			break;
		case 'w':
			/* -w 2 as well as -w2 / --watch=2: a separate number is the interval */
			if (!optarg && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
				optarg = argv[optind++];
			interval = optarg ? strtod(optarg, &end) : 1;
			if ((optarg && *end) || interval <= 0)
				goto bad;
			break;
		case 'c':
			count = strtol(optarg, &end, 10);
			if (*end || count <= 0)
				goto bad;
			break;
		case 'h': usage(stdout); return 0;
		default: goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (uroce_stat_dir(dir, sizeof(dir))) {
		fprintf(stderr, "uroce-stat: runtime directory name too long\n");
		return 2;
	}
	cur = calloc(MAX_PROCS, sizeof(*cur));
	prev = calloc(MAX_PROCS, sizeof(*prev));
	if (!cur || !prev) {
		fprintf(stderr, "uroce-stat: out of memory\n");
		ret = 2;
		goto out;
	}
	for (long round = 0;; round++) {
		if ((n = sample_all(dir, pid, cur)) < 0) {
			fprintf(stderr, "uroce-stat: %s: %s\n", dir, strerror(errno));
			ret = 2;
			goto out;
		}
		/* the first sample of a watch has no rates yet, so it is the plain report */
		print(cur, n, round ? prev : NULL, np, json, all);
		if (!interval || (count && round + 1 >= count)) {
			ret = n ? 0 : 1;
			goto out;
		}
		if (!json)
			fputc('\n', stdout);
		memcpy(prev, cur, (size_t)n * sizeof(*cur));
		np = n;
		struct timespec ts = {(time_t)interval,
				      (long)((interval - (double)(time_t)interval) * 1e9)};
		nanosleep(&ts, NULL);
	}
out:
	free(cur);
	free(prev);
	return ret;
bad:
	usage(stderr);
	return 2;
}

/* SPDX-License-Identifier: MIT */
/* A fuzz target without libFuzzer: runs it once on every file named on the command line (a
 * folder: each file in it, in name order), the way CTest replays the committed seeds and
 * regressions in every build with tests, with gcc and with the sanitizers
 * (fuzz/CMakeLists.txt). Each input is handed over in an allocation of exactly its length,
 * as libFuzzer does, after its LLVMFuzzerInitialize if it has one; an invariant violation
 * traps as it does under libFuzzer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_check.h"

/* libFuzzer calls it once before the inputs when the target defines it (fuzz_dump.c). */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "%s: cannot read\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	data = malloc(len ? (size_t)len : 1);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)len);
	free(data);
	return 0;
}

static int only_files(const struct dirent *d) { return d->d_name[0] != '.'; }

int main(int argc, char **argv)
{
	int inputs = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **names;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: no such file or folder\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]))
				return 1;
			inputs++;
			continue;
		}
		int n = scandir(argv[i], &names, only_files, alphasort);
		if (n < 0) {
			fprintf(stderr, "%s: cannot list\n", argv[i]);
			return 1;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			if (run_file(path))
				return 1;
			inputs++;
			free(names[k]);
		}
		free(names);
	}
	printf("%d inputs replayed\n", inputs);
	return 0;
}

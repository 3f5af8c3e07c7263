/*
 * driver.c - main() for the fuzz targets where libFuzzer is not linked in
 * (any compiler, any build): every argument that is a file is run once, a
 * directory runs its files in name order; arguments starting with '-'
 * (libFuzzer options such as -runs=0) are ignored. A target that crashes or
 * aborts on an input fails the run, so the corpora and the reproducers are
 * regression tests in every build (ctest fuzz_corpus_*).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static size_t run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		exit(2);
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		exit(2);
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 1;
}

static size_t run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		fprintf(stderr, "%s: no such file or directory\n", path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	size_t runs = 0;
	for (int i = 0; i < n; i++) {
		char sub[4096];
		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			runs += run_path(sub);
		}
		free(ents[i]);
	}
	free(n >= 0 ? ents : NULL);
	return runs;
}

int main(int argc, char **argv)
{
	size_t runs = 0;
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			runs += run_path(argv[i]);
	fprintf(stderr, "%s: %zu inputs run\n", argv[0], runs);
	return 0;
}

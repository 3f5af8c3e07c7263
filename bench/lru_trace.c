/*
 * lru_trace.c - swapsim-lru-trace: the trace of the side-by-side speed run
 * against libCacheSim (bench/lru_vs_libcachesim.sh). One task's zipf page
 * accesses (the library's zipf workload generator: rejection-inversion
 * sampling, ranks scattered over the region), written twice:
 *
 *   OUT.bin            native binary trace, for swapsim-replay --trace
 *   OUT.oracleGeneral  libCacheSim's binary oracleGeneral records (24 B:
 *                      u32 time, u64 object id = page number, u32 object
 *                      size = 4096, i64 next access = -1), for cachesim
 *
 *   swapsim-lru-trace OUT ACCESSES PAGES EXPONENT [SEED]
 *
 * Only ACCESS records are kept (the region's MMAP is implicit in a replay).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swapsim/swapsim.h>

static int fail(const char *what, const char *detail)
{
	fprintf(stderr, "swapsim-lru-trace: %s: %s\n", what, detail);
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *e;
	errno = 0;
	*v = strtoull(s, &e, 10);
	return errno || e == s || *e;
}

int main(int argc, char **argv)
{
	uint64_t accesses, pages, seed = 1;
	char *e;
	if (argc < 5 || argc > 6 || parse_u64(argv[2], &accesses) || !accesses || parse_u64(argv[3], &pages) ||
	    !pages || (argc == 6 && parse_u64(argv[5], &seed))) {
		fprintf(stderr, "usage: swapsim-lru-trace OUT ACCESSES PAGES EXPONENT [SEED]\n");
		return 2;
	}
	double s = strtod(argv[4], &e);
	if (*e || !(s > 0))
		return fail("EXPONENT", "expected a number > 0");
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_ZIPF, .bytes = pages * SWS_PAGE_SIZE, .nr_tasks = 1,
					 .nr_accesses = accesses, .zipf_s = s, .write_pct = 30, .seed = seed};
	struct sws_workload *wl;
	int rc = sws_workload_create(&wc, &wl);
	if (rc)
		return fail("workload", sws_strerror(rc));
	size_t n = strlen(argv[1]) + 32;
	char *bin = malloc(n), *ora = malloc(n);
	if (!bin || !ora)
		return fail("memory", strerror(ENOMEM));
	snprintf(bin, n, "%s.bin", argv[1]);
	snprintf(ora, n, "%s.oracleGeneral", argv[1]);
	struct sws_trace_writer_config tc = {.encoding = SWS_TRACE_BINARY};
	struct sws_trace_writer *w;
	char err[256];
	if (sws_trace_writer_open(bin, &tc, &w, err, sizeof(err)))
		return fail(bin, err);
	FILE *f = fopen(ora, "wb");
	if (!f)
		return fail(ora, strerror(errno));
	struct sws_replay_source src = sws_workload_source(wl);
	struct sws_trace_record rec;
	uint64_t written = 0;
	while ((rc = src.next(src.ctx, &rec)) == 1) {
		if (rec.op != SWS_TRACE_ACCESS)
			continue;
		unsigned char r[24] = {0};
		uint32_t t = (uint32_t)written, size = SWS_PAGE_SIZE;
		uint64_t id = rec.addr / SWS_PAGE_SIZE;
		int64_t next = -1;
		memcpy(r, &t, 4);
		memcpy(r + 4, &id, 8);
		memcpy(r + 12, &size, 4);
		memcpy(r + 16, &next, 8);
		if (fwrite(r, sizeof(r), 1, f) != 1)
			return fail(ora, strerror(errno));
		if ((rc = sws_trace_writer_write(w, &rec)) != 0)
			return fail(bin, sws_trace_writer_error(w));
		written++;
	}
	if (rc < 0)
		return fail("workload", sws_strerror(rc));
	if (fclose(f))
		return fail(ora, strerror(errno));
	if (sws_trace_writer_close(w, err, sizeof(err)))
		return fail(bin, err);
	printf("{\"accesses\":%" PRIu64 ",\"pages\":%" PRIu64 ",\"exponent\":%g,\"seed\":%" PRIu64
	       ",\"native\":\"%s\",\"oracle_general\":\"%s\"}\n",
	       written, pages, s, seed, bin, ora);
	sws_workload_destroy(wl);
	free(bin);
	free(ora);
	return 0;
}

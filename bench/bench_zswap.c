/*
 * bench_zswap.c - swapsim-bench-zswap: zswap store and load throughput per
 * compressor and content type, measured in the same run as the raw lz4/zstd
 * throughput on the same pages (ratio zswap/raw: the cost of the pool, tree,
 * LRU and accounting around the compressor), plus the shrinker-scheme
 * experiment (disk swap-ins with the old and the new scheme).
 *
 * Usage: swapsim-bench-zswap [--quick] [--pages N] [--reps N]   (JSON on stdout)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <swapsim/swapsim.h>

#include "mm/mm_internal.h"
#include "zswap/compress.h"
#include "zswap/zswap_internal.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "swapsim-bench-zswap: %s: %s\n", what, sws_strerror(rc));
	exit(1);
}

static int wb_begin(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint16_t memcg, uint64_t *t)
{
	(void)ctx, (void)cpu, (void)e, (void)memcg, (void)t;
	return SWS_ENOMEM; /* the benchmark never writes back */
}
static bool wb_end(void *ctx, struct sws_cpu *cpu, sws_entry_t e, uint64_t t, const void *p)
{
	(void)ctx, (void)cpu, (void)e, (void)t, (void)p;
	return false;
}
static void count_nop(void *ctx, struct sws_cpu *cpu, enum sws_mm_counter c, uint64_t n)
{
	(void)ctx, (void)cpu, (void)c, (void)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct result {
	double raw_c, raw_d, zs_store, zs_load; /* MB/s of pages */
	double ratio;                           /* original / compressed */
};

/* One compressor, one content class: raw and through zswap, median of @reps. */
static struct result measure(struct sws_mm *mm, const char *comp, enum sws_content cls, unsigned npages,
			     unsigned reps)
{
	static uint8_t out[SWS_PAGE_SIZE], back[SWS_PAGE_SIZE];
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type, rc;
	if ((rc = sws_sim_create(NULL, &sim)) || (rc = sws_cpu_attach(sim, &cpu)))
		die("sim", rc);
	struct sws_device_config dc = {.nr_slots = npages + 1024, .flags = SWS_SWP_SOLIDSTATE};
	if ((rc = sws_swapon(sim, &dc, &type)))
		die("swapon", rc);
	uint8_t *pages = malloc((size_t)npages * SWS_PAGE_SIZE);
	size_t *len = malloc(sizeof(size_t) * npages);
	uint8_t *comp_buf = malloc((size_t)npages * SWS_PAGE_SIZE);
	/* pages of one content class: seeds until the class matches */
	uint64_t seed = 1;
	for (unsigned i = 0; i < npages; i++) {
		while (sws__mm_content_class(mm, seed) != cls)
			seed++;
		sws_mm_page_content(mm, seed++, 0, pages + (size_t)i * SWS_PAGE_SIZE);
	}
	struct sws_zcomp_spec spec;
	struct sws_zcomp_ctx *ctx;
	if (sws__zcomp_parse(comp, &spec) || sws__zcomp_ctx_create(&sim->mem, &spec, &ctx))
		die("compressor", SWS_EINVAL);
	double v[4][16];
	uint64_t total = 0;
	for (unsigned r = 0; r < reps; r++) {
		double t0 = now_s();
		total = 0;
		for (unsigned i = 0; i < npages; i++) {
			len[i] = 0;
			uint8_t *dst = comp_buf + (size_t)i * SWS_PAGE_SIZE;
			if (sws__zcomp_compress(ctx, pages + (size_t)i * SWS_PAGE_SIZE, dst, SWS_PAGE_SIZE, &len[i])) {
				memcpy(dst, pages + (size_t)i * SWS_PAGE_SIZE, SWS_PAGE_SIZE); /* kept raw, as zswap */
				len[i] = SWS_PAGE_SIZE;
			}
			total += len[i];
		}
		double t1 = now_s();
		for (unsigned i = 0; i < npages; i++) {
			const uint8_t *src = comp_buf + (size_t)i * SWS_PAGE_SIZE;
			if (len[i] == SWS_PAGE_SIZE)
				memcpy(back, src, SWS_PAGE_SIZE);
			else if (sws__zcomp_decompress(ctx, src, len[i], back))
				die("decompress", SWS_EIO);
			/* both paths check what they read back, so both pay the same */
			if (memcmp(back, pages + (size_t)i * SWS_PAGE_SIZE, SWS_PAGE_SIZE))
				die("decompress: different bytes", SWS_ECORRUPT);
		}
		double t2 = now_s();
		/* zswap: a fresh pool each round (stores then loads every page) */
		struct sws_zswap *zs;
		struct sws_zswap_config zc = {.compressor = comp, .max_pool_percent = 100};
		struct sws_zswap_wb_ops wb = {.begin = wb_begin, .end = wb_end};
		if ((rc = sws__zswap_create(sim, &zc, (uint64_t)npages * 4, &wb, count_nop, NULL, &zs)))
			die("zswap", rc);
		double t3 = now_s();
		for (unsigned i = 0; i < npages; i++)
			if ((rc = sws__zswap_store(zs, cpu, sws_swp_entry((unsigned)type, i + 1), 0,
						   pages + (size_t)i * SWS_PAGE_SIZE)))
				die("store", rc);
		double t4 = now_s();
		for (unsigned i = 0; i < npages; i++) {
			if ((rc = sws__zswap_load(zs, cpu, sws_swp_entry((unsigned)type, i + 1), out)))
				die("load", rc);
			if (memcmp(out, pages + (size_t)i * SWS_PAGE_SIZE, SWS_PAGE_SIZE))
				die("load: different bytes", SWS_ECORRUPT);
		}
		double t5 = now_s();
		sws__zswap_destroy(zs);
		double mb = (double)npages * SWS_PAGE_SIZE / 1e6;
		v[0][r] = mb / (t1 - t0);
		v[1][r] = mb / (t2 - t1);
		v[2][r] = mb / (t4 - t3);
		v[3][r] = mb / (t5 - t4);
	}
	struct result res;
	double *fields[4] = {&res.raw_c, &res.raw_d, &res.zs_store, &res.zs_load};
	for (int k = 0; k < 4; k++) {
		qsort(v[k], reps, sizeof(double), cmp_double);
		*fields[k] = v[k][reps / 2];
	}
	res.ratio = (double)npages * SWS_PAGE_SIZE / (double)total;
	sws__zcomp_ctx_destroy(ctx);
	free(pages);
	free(len);
	free(comp_buf);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	return res;
}

/* The shrinker schemes on a hot set that does not fit: disk swap-ins. */
static uint64_t experiment(bool old_scheme, unsigned rounds)
{
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	int type, rc;
	if ((rc = sws_sim_create(NULL, &sim)) || (rc = sws_cpu_attach(sim, &cpu)))
		die("sim", rc);
	struct sws_device_config dc = {.nr_slots = 1 << 16, .flags = SWS_SWP_SOLIDSTATE};
	if ((rc = sws_swapon(sim, &dc, &type)))
		die("swapon", rc);
	struct sws_mm_config mc = {.ram_pages = 2048, .seed = 3, .content_weight = {0, 0, 1, 2, 0}};
	if ((rc = sws_mm_create(sim, &mc, &mm)))
		die("mm", rc);
	struct sws_zswap_config zc = {.max_pool_percent = 50, .accept_threshold_percent = 80,
				      .flags = SWS_ZSWAP_SHRINKER | (old_scheme ? SWS_ZSWAP_OLD_SCHEME : 0)};
	uint32_t asid;
	if ((rc = sws_mm_zswap_enable(mm, &zc)) || (rc = sws_mm_space_create(mm, 0, &asid)))
		die("zswap", rc);
	uint64_t s = 77, cold = 100000;
	for (unsigned round = 0; round < rounds; round++) {
		for (int i = 0; i < 2400; i++) { /* hot: 2800 pages over 2048 of RAM */
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			sws_mm_access(cpu, mm, asid, ((s >> 20) % 2800) << 12, (s >> 10) & 1);
		}
		for (int i = 0; i < 400; i++) /* cold: touched once */
			sws_mm_access(cpu, mm, asid, (cold++) << 12, true);
		sws_mm_kswapd(cpu, mm, 1024);
	}
	struct sws_mm_stats st;
	sws_mm_stats(mm, &st);
	sws_mm_destroy(mm);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	return st.counters[SWS_MM_pswpin];
}

int main(int argc, char **argv)
{
	unsigned npages = 4096, reps = 5, rounds = 60;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			npages = 256, reps = 1, rounds = 4;
		} else if (!strcmp(argv[i], "--pages") && i + 1 < argc) {
			npages = (unsigned)strtoul(argv[++i], NULL, 10);
			if (npages < 16 || npages > (1u << 20)) {
				fprintf(stderr, "swapsim-bench-zswap: --pages: expected 16..1048576\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = (unsigned)strtoul(argv[++i], NULL, 10);
			if (!reps || reps > 15) {
				fprintf(stderr, "swapsim-bench-zswap: --reps: expected 1..15\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: swapsim-bench-zswap [--quick] [--pages N] [--reps N]\n");
			return 2;
		}
	}
	/* A memory model only for its content generator. */
	struct sws_sim *sim;
	struct sws_mm *mm;
	struct sws_mm_config mc = {.ram_pages = 64, .content_weight = {1, 1, 1, 1, 1}};
	if (sws_sim_create(NULL, &sim) || sws_mm_create(sim, &mc, &mm))
		die("content model", SWS_ENOMEM);
	static const char *const comps[] = {"lz4", "zstd:1", "zstd:3"};
	static const char *const classes[] = {"zero", "same", "index", "text", "random"};
	printf("[");
	bool first = true;
	for (unsigned c = 0; c < 3; c++) {
		for (unsigned k = SWS_CONTENT_SAME; k < SWS_NR_CONTENT; k++) {
			struct result r = measure(mm, comps[c], (enum sws_content)k, npages, reps);
			printf("%s\n {\"compressor\":\"%s\",\"content\":\"%s\",\"pages\":%u,\"ratio\":%.2f,"
			       "\"raw_compress_mbps\":%.1f,\"zswap_store_mbps\":%.1f,\"store_vs_raw\":%.3f,"
			       "\"raw_decompress_mbps\":%.1f,\"zswap_load_mbps\":%.1f,\"load_vs_raw\":%.3f}",
			       first ? "" : ",", comps[c], classes[k], npages, r.ratio, r.raw_c, r.zs_store,
			       r.zs_store / r.raw_c, r.raw_d, r.zs_load, r.zs_load / r.raw_d);
			first = false;
		}
	}
	uint64_t old_in = experiment(true, rounds), new_in = experiment(false, rounds);
	printf(",\n {\"experiment\":\"shrinker_scheme\",\"old_scheme_pswpin\":%llu,\"new_scheme_pswpin\":%llu,"
	       "\"new_vs_old\":%.3f}\n]\n",
	       (unsigned long long)old_in, (unsigned long long)new_in,
	       old_in ? (double)new_in / (double)old_in : 0.0);
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
	return 0;
}

/*
 * bench_zswap.c - swapsim-bench-zswap: zswap store and load throughput per
 * compressor and content type, measured in the same run as the raw lz4/zstd
 * throughput on the same pages (ratio zswap/raw: the cost of the pool, tree,
 * LRU and accounting around the compressor), plus the zswap shrinker
 * experiment: the kbuild workload in a memcg under the three protection
 * schemes (old, second-chance, both), without and with cold data written
 * first, each row's disk swap-ins, writebacks, zswap loads and simulated time.
 *
 * Usage: swapsim-bench-zswap [--quick] [--shrinker-experiment] [--build-mb N] [--pages N]
 *        [--reps N]
 * (JSON on stdout; --shrinker-experiment prints the experiment's rows only; --build-mb
 * sizes its build, 2048 by default: the published 2 GB)
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
#include "swap/swap_internal.h"
#include "zswap/compress.h"
#include "zswap/zswap_mm.h"

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

/*
 * The zswap shrinker experiment (Nhat Pham, 2024: a kernel build in a 2 GB
 * memcg with the shrinker on; then the same build in a 3 GB memcg with 0.5 GB
 * of cold data written first), at its size by default: the kbuild workload (-j 8,
 * its jobs' heaps adding up to @memcg_mb MiB, the build's memcg) on 32 GiB of RAM,
 * zswap on (cgroup v2, the shrinker on), one NVMe device, one thread, under
 * each scheme, with lz4 and with zstd. The cold variant runs the same build in
 * a memcg 3/2 the size (3 GB against 2 GB) and writes a sixth of that memcg
 * (0.5 of 3 GB) of cold data first.
 */
struct exp_row {
	uint64_t pswpin, zswpwb, zswpin, zswpout, elapsed_ns, sys_ns;
};

/* The cold variant's memcg (3 GB for the build's 2 GB) and its cold data (0.5 GB of the 3 GB), in KiB. */
static uint64_t cold_memcg_kb(uint64_t memcg_mb) { return (memcg_mb << 10) * 3 / 2; }
static uint64_t cold_data_kb(uint64_t memcg_mb) { return cold_memcg_kb(memcg_mb) / 6; }

static struct exp_row experiment_run(const char *comp, uint32_t scheme_flags, uint64_t memcg_mb, bool cold)
{
	struct sws_replay_config cfg = {
		.version = SWS_REPLAY_CONFIG_VERSION,
		.threads = 1,
		.ram_pages = 1u << 23,
		.mem_limit_pages = cold ? cold_memcg_kb(memcg_mb) / 4 : memcg_mb << 8,
		.seed = 1,
		.flags = SWS_REPLAY_ZSWAP,
		.zswap = {.flags = SWS_ZSWAP_SHRINKER | scheme_flags, .compressor = comp},
	};
	struct sws_workload_config wc = {.kind = SWS_WORKLOAD_KBUILD, .bytes = memcg_mb << 20, .nr_tasks = 8,
					 .seed = 1, .cold_bytes = cold ? cold_data_kb(memcg_mb) << 10 : 0};
	struct sws_workload *wl;
	struct sws_replay *r;
	int rc;
	if ((rc = sws_workload_create(&wc, &wl)))
		die("workload", rc);
	sws_workload_content(wl, cfg.content_weight);
	if ((rc = sws_replay_create(&cfg, &r)))
		die("replay", rc);
	struct sws_replay_source src = sws_workload_source(wl);
	if ((rc = sws_replay_run(r, &src)))
		die("replay run", rc);
	struct sws_replay_report rep;
	sws_replay_report_get(r, &rep);
	if (rep.errors)
		die("replay: the model refused accesses", rep.first_error);
	struct exp_row row = {rep.mm.counters[SWS_MM_pswpin], rep.mm.counters[SWS_MM_zswpwb],
			      rep.mm.counters[SWS_MM_zswpin], rep.mm.counters[SWS_MM_zswpout],
			      rep.time.elapsed_ns, rep.time.sys_ns};
	sws_replay_destroy(r);
	sws_workload_destroy(wl);
	return row;
}

/* Both experiments under the three schemes with compressor @comp: JSON rows after @first. */
static bool shrinker_experiment(const char *comp, uint64_t memcg_mb, bool first)
{
	static const struct {
		const char *name;
		uint32_t flags;
	} schemes[] = {{"old", SWS_ZSWAP_OLD_SCHEME}, {"second-chance", SWS_ZSWAP_SECOND_CHANCE_ONLY}, {"both", 0}};
	for (int cold = 0; cold < 2; cold++) {
		for (unsigned k = 0; k < 3; k++) {
			struct exp_row row = experiment_run(comp, schemes[k].flags, memcg_mb, cold);
			printf("%s\n {\"experiment\":\"%s\",\"scheme\":\"%s\",\"compressor\":\"%s\",\"build_mb\":%llu,"
			       "\"memcg_kb\":%llu,\"cold_kb\":%llu,"
			       "\"pswpin\":%llu,\"zswpwb\":%llu,\"zswpin\":%llu,\"zswpout\":%llu,\"elapsed_ns\":%llu,"
			       "\"sys_ns\":%llu}",
			       first ? "" : ",", cold ? "cold" : "build", schemes[k].name, comp,
			       (unsigned long long)memcg_mb,
			       (unsigned long long)(cold ? cold_memcg_kb(memcg_mb) : memcg_mb << 10),
			       (unsigned long long)(cold ? cold_data_kb(memcg_mb) : 0), (unsigned long long)row.pswpin,
			       (unsigned long long)row.zswpwb, (unsigned long long)row.zswpin,
			       (unsigned long long)row.zswpout, (unsigned long long)row.elapsed_ns,
			       (unsigned long long)row.sys_ns);
			fflush(stdout);
			first = false;
		}
	}
	return first;
}

/* The experiment with lz4 (the model's default) and zstd (--quick: lz4 only). */
static void shrinker_experiments(uint64_t memcg_mb, bool quick, bool first)
{
	first = shrinker_experiment("lz4", memcg_mb, first);
	if (!quick)
		shrinker_experiment("zstd", memcg_mb, first);
}

int main(int argc, char **argv)
{
	unsigned npages = 4096, reps = 5;
	uint64_t memcg_mb = 2048;
	bool only_experiment = false, quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			npages = 256, reps = 1, memcg_mb = 8, quick = true;
		} else if (!strcmp(argv[i], "--build-mb") && i + 1 < argc) {
			char *end;
			memcg_mb = strtoull(argv[++i], &end, 10);
			if (*end || memcg_mb < 8 || memcg_mb > 8192) {
				fprintf(stderr, "swapsim-bench-zswap: --build-mb: expected 8..8192\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--shrinker-experiment")) {
			only_experiment = true;
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
			fprintf(stderr, "usage: swapsim-bench-zswap [--quick] [--shrinker-experiment] [--build-mb N] "
					"[--pages N] [--reps N]\n");
			return 2;
		}
	}
	if (only_experiment) {
		printf("[");
		shrinker_experiments(memcg_mb, quick, true);
		printf("\n]\n");
		return 0;
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
	shrinker_experiments(memcg_mb, quick, false);
	printf("\n]\n");
	sws_mm_destroy(mm);
	sws_sim_destroy(sim);
	return 0;
}

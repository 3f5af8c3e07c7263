/*
 * swapsim-calibrate - measure this machine's primitive costs and write them as
 * a cost file for the modelled clock (swapsim-replay --costs FILE;
 * docs/modelled-time.md, docs/benchmarks.md "The cost table").
 *
 * Each primitive is timed in a loop of many operations, 7 times; the fastest
 * run is kept (what else runs on the machine only ever adds time). What is measured:
 *   syscall        getppid() through syscall(2): a kernel entry and exit
 *   lock           an uncontended test-and-set lock and its release
 *   atomic         an uncontended atomic add
 *   line_transfer  two threads on two CPUs passing a cache line back and forth
 *                  (half a round trip)
 *   load_hit       a dependent load in a 16 KiB random cycle
 *   load_miss      a dependent load in a 256 MiB random cycle (huge pages asked
 *                  for: the kernel's direct map has no 4K TLB misses either)
 *   page_zero/copy memset / memcpy of 4 KiB pages streaming over 64 MiB
 *   meta_alloc/free malloc(4096) and free()
 *   tlb_shootdown  mprotect() taking write permission away, with a second
 *                  thread of the process running on another CPU, less the same
 *                  without it: the IPI and its wait
 *   compress_* / decompress_*  lz4 (LZ4_compress_default) and zstd (level 3,
 *                  the kernel's) on pages of each content class of the model
 * and llc_bytes from sysfs. Classes with a formula are derived from these.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <lz4.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <swapsim/swapsim.h>

#include "cli_output.h"

#define REPS 7

static const char usage[] =
	"usage: swapsim-calibrate [--quick] [--out FILE]\n"
	"\n"
	"Measure this machine's primitive costs (a lock, an atomic, a cache-line transfer\n"
	"between two CPUs, cache-hit and cache-miss loads, zeroing and copying a page, a\n"
	"system call, a TLB shootdown, lz4 and zstd on each content class) and write them\n"
	"as a cost file for swapsim-replay --costs (stdout without --out; the file is\n"
	"written beside its name and renamed into place, docs/tools.md \"Output files\").\n"
	"--quick: fewer operations\n"
	"(seconds instead of about a minute; noisier). Classes with a formula (see the\n"
	"file) are derived from the measured ones.\n";

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The fastest of @n runs. */
static double fastest(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[0];
}

static unsigned scale = 1; /* --quick: 1/8 of the operations */

/* ps per operation of @fn(@n, @ctx), the fastest of REPS runs. */
static uint64_t time_ps(double (*fn)(uint64_t n, void *ctx), uint64_t n, void *ctx)
{
	double v[REPS];
	n /= scale;
	if (!n)
		n = 1;
	for (unsigned r = 0; r < REPS; r++)
		v[r] = fn(n, ctx) * 1000.0 / (double)n;
	double m = fastest(v, REPS);
	return m < 1 ? 1 : (uint64_t)(m + 0.5);
}

/* ---- the primitives --------------------------------------------------------------------- */

static volatile long sink;

static double t_syscall(uint64_t n, void *ctx)
{
	(void)ctx;
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		sink += syscall(SYS_getppid);
	return now_ns() - t0;
}

static double t_lock(uint64_t n, void *ctx)
{
	atomic_uint *l = ctx;
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		while (atomic_fetch_or_explicit(l, 1, memory_order_acquire) & 1)
			;
		atomic_store_explicit(l, 0, memory_order_release);
	}
	return now_ns() - t0;
}

static double t_atomic(uint64_t n, void *ctx)
{
	_Atomic uint64_t *a = ctx;
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		atomic_fetch_add_explicit(a, 1, memory_order_relaxed);
	return now_ns() - t0;
}

/* A random cycle through @bytes of 64-byte lines. */
static void **make_cycle(size_t bytes, bool huge)
{
	void **buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	if (huge)
		madvise(buf, bytes, MADV_HUGEPAGE);
	size_t lines = bytes / 64, stride = 64 / sizeof(void *);
	size_t *order = malloc(lines * sizeof(*order));
	if (!order) {
		munmap(buf, bytes);
		return NULL;
	}
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	for (size_t i = lines - 1; i > 0; i--) { /* Fisher-Yates with a xorshift */
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		size_t j = s % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		buf[order[i] * stride] = &buf[order[(i + 1) % lines] * stride];
	free(order);
	return buf;
}

static double t_chase(uint64_t n, void *ctx)
{
	void **p = ctx;
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		p = *p;
	sink += (long)(uintptr_t)p;
	return now_ns() - t0;
}

struct pages {
	uint8_t *dst, *src;
	size_t n; /* pages in each */
};

static double t_zero(uint64_t n, void *ctx)
{
	struct pages *pg = ctx;
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		memset(pg->dst + (i % pg->n) * 4096, 0, 4096);
	sink += pg->dst[0];
	return now_ns() - t0;
}

static double t_copy(uint64_t n, void *ctx)
{
	struct pages *pg = ctx;
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		memcpy(pg->dst + (i % pg->n) * 4096, pg->src + ((i * 7) % pg->n) * 4096, 4096);
	sink += pg->dst[0];
	return now_ns() - t0;
}

struct allocs {
	void **p;
	bool free_only;
};

static double t_alloc(uint64_t n, void *ctx)
{
	struct allocs *a = ctx;
	double t0 = now_ns(), t1;
	for (uint64_t i = 0; i < n; i++)
		a->p[i] = malloc(4096);
	t1 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		free(a->p[i]);
	double t2 = now_ns();
	return a->free_only ? t2 - t1 : t1 - t0;
}

/* ---- two CPUs: the cache line and the shootdown ----------------------------------------- */

struct pingpong {
	_Atomic uint64_t line __attribute__((aligned(64)));
	atomic_bool stop, spinning;
	uint64_t rounds;
	int cpu;
};

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *pong(void *arg)
{
	struct pingpong *pp = arg;
	pin(pp->cpu);
	for (uint64_t i = 0; i < pp->rounds; i++) {
		while (atomic_load_explicit(&pp->line, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&pp->line, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

/* Two CPUs of this process's affinity: @a and @b. @return false with fewer. */
static bool two_cpus(int *a, int *b)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	*a = *b = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			if (*a < 0)
				*a = c;
			else if (*b < 0)
				*b = c;
		}
	return *b >= 0;
}

static uint64_t line_transfer_ps(int a, int b)
{
	double v[REPS];
	for (unsigned r = 0; r < REPS; r++) {
		struct pingpong pp = {.rounds = 200000 / scale, .cpu = b};
		pthread_t t;
		pin(a);
		if (pthread_create(&t, NULL, pong, &pp))
			return 0;
		double t0 = now_ns();
		for (uint64_t i = 0; i < pp.rounds; i++) {
			atomic_store_explicit(&pp.line, 2 * i + 1, memory_order_release);
			while (atomic_load_explicit(&pp.line, memory_order_acquire) != 2 * i + 2)
				;
		}
		v[r] = (now_ns() - t0) * 1000.0 / (double)(2 * pp.rounds); /* two transfers a round */
		pthread_join(t, NULL);
	}
	return (uint64_t)fastest(v, REPS);
}

static void *spin(void *arg)
{
	struct pingpong *pp = arg;
	pin(pp->cpu);
	atomic_store(&pp->spinning, true);
	while (!atomic_load_explicit(&pp->stop, memory_order_relaxed))
		atomic_fetch_add_explicit(&pp->line, 1, memory_order_relaxed);
	return NULL;
}

/* mprotect() away the write permission of a written page, and back: ns a pair. */
static double mprotect_pair_ns(uint8_t *page, uint64_t n)
{
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		page[0] = (uint8_t)i; /* the TLB holds a writable entry */
		mprotect(page, 4096, PROT_READ);
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
	}
	return now_ns() - t0;
}

static uint64_t shootdown_ps(int a, int b)
{
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 0;
	uint64_t n = 20000 / scale;
	double alone[REPS], with[REPS];
	pin(a);
	for (unsigned r = 0; r < REPS; r++)
		alone[r] = mprotect_pair_ns(page, n);
	struct pingpong pp = {.cpu = b};
	pthread_t t;
	if (pthread_create(&t, NULL, spin, &pp)) {
		munmap(page, 4096);
		return 0;
	}
	while (!atomic_load(&pp.spinning))
		;
	for (unsigned r = 0; r < REPS; r++)
		with[r] = mprotect_pair_ns(page, n);
	atomic_store(&pp.stop, true);
	pthread_join(t, NULL);
	munmap(page, 4096);
	double d = (fastest(with, REPS) - fastest(alone, REPS)) * 1000.0 / (double)n;
	return d > 0 ? (uint64_t)d : 0;
}

/* ---- compression of the model's content classes ----------------------------------------- */

struct zpages {
	uint8_t *pages, *out, *back;
	unsigned n;
	bool zstd, decompress;
	size_t *clen;
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

static double t_zcomp(uint64_t n, void *ctx)
{
	struct zpages *z = ctx;
	size_t cap = LZ4_compressBound(4096) > (int)ZSTD_compressBound(4096) ? (size_t)LZ4_compressBound(4096)
									   : ZSTD_compressBound(4096);
	double t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		unsigned k = (unsigned)(i % z->n);
		const uint8_t *src = z->pages + (size_t)k * 4096;
		uint8_t *dst = z->out + (size_t)k * cap;
		if (!z->decompress && !z->zstd)
			z->clen[k] = (size_t)LZ4_compress_default((const char *)src, (char *)dst, 4096, (int)cap);
		else if (!z->decompress)
			z->clen[k] = ZSTD_compressCCtx(z->cctx, dst, cap, src, 4096, 3);
		else if (!z->zstd)
			sink += LZ4_decompress_safe((const char *)dst, (char *)z->back, (int)z->clen[k], 4096);
		else
			sink += (long)ZSTD_decompressDCtx(z->dctx, z->back, 4096, dst, z->clen[k]);
	}
	return now_ns() - t0;
}

/* ps per byte of each (compressor, direction, content class), in SWS_COST_LIST order. */
static int compression(struct sws_costs *c)
{
	enum { PAGES = 256 };
	size_t cap = 2 * 4096;
	struct zpages z = {.n = PAGES};
	z.pages = malloc((size_t)PAGES * 4096);
	z.out = malloc((size_t)PAGES * cap);
	z.back = malloc(4096);
	z.clen = calloc(PAGES, sizeof(*z.clen));
	z.cctx = ZSTD_createCCtx();
	z.dctx = ZSTD_createDCtx();
	int rc = -1;
	if (!z.pages || !z.out || !z.back || !z.clen || !z.cctx || !z.dctx)
		goto out;
	for (unsigned cls = 0; cls < SWS_NR_CONTENT; cls++) {
		/* A small machine whose content mix is this class alone makes the pages. */
		struct sws_sim *sim;
		struct sws_mm *mm;
		struct sws_sim_config sc = {0};
		struct sws_mm_config mc = {.ram_pages = 1024, .seed = 7};
		mc.content_weight[cls] = 1;
		if (sws_sim_create(&sc, &sim))
			goto out;
		if (sws_mm_create(sim, &mc, &mm)) {
			sws_sim_destroy(sim);
			goto out;
		}
		for (unsigned k = 0; k < PAGES; k++)
			sws_mm_page_content(mm, 0x1000 + k * 0x9e37ull, 0, z.pages + (size_t)k * 4096);
		sws_mm_destroy(mm);
		sws_sim_destroy(sim);
		for (unsigned zstd = 0; zstd < 2; zstd++)
			for (unsigned dec = 0; dec < 2; dec++) {
				z.zstd = zstd;
				z.decompress = dec;
				if (dec) { /* the pages compressed once, for the decompression */
					z.decompress = false;
					t_zcomp(PAGES, &z);
					z.decompress = true;
				}
				uint64_t page_ps = time_ps(t_zcomp, 16 * PAGES, &z);
				unsigned k = SWS_COST_compress_lz4_zero + zstd * 2 * SWS_NR_CONTENT + dec * SWS_NR_CONTENT + cls;
				c->ps[k] = (page_ps + 2048) / 4096;
				if (!c->ps[k])
					c->ps[k] = 1;
			}
	}
	rc = 0;
out:
	free(z.pages);
	free(z.out);
	free(z.back);
	free(z.clen);
	ZSTD_freeCCtx(z.cctx);
	ZSTD_freeDCtx(z.dctx);
	return rc;
}

/* The last-level cache's size (sysfs), 0 when unknown. */
static uint64_t llc_bytes(void)
{
	uint64_t best = 0;
	for (int i = 0; i < 8; i++) {
		char path[96], buf[32];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			char *e;
			uint64_t v = strtoull(buf, &e, 10);
			v *= *e == 'K' ? 1024 : *e == 'M' ? 1024 * 1024 : 1;
			if (v > best)
				best = v;
		}
		fclose(f);
	}
	return best;
}

static void cpu_model(char *buf, size_t len)
{
	snprintf(buf, len, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			char *v = strchr(line, ':');
			if (v) {
				v += 1 + (v[1] == ' ');
				v[strcspn(v, "\n")] = 0;
				snprintf(buf, len, "%s", v);
			}
			break;
		}
	fclose(f);
}

static int put(void *ctx, const char *text, size_t len) { return fwrite(text, 1, len, ctx) == len ? 0 : -1; }

/* The command line: --quick, --out FILE, --help, --version. @return -1 to
 * measure, else the exit status (--help, --version, a bad option). */
static int parse_options(int argc, char **argv, const char **out)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			scale = 8;
		} else if (!strcmp(argv[i], "--out")) {
			if (i + 1 == argc || !argv[i + 1][0]) {
				fprintf(stderr, "swapsim-calibrate: --out: needs a file name (try --help)\n");
				return 2;
			}
			*out = argv[++i];
		} else if (!strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("swapsim-calibrate %s\n", SWS_TOOLS_VERSION);
			return 0;
		} else {
			fprintf(stderr, "swapsim-calibrate: %s: unknown option (try --help)\n", argv[i]);
			return 2;
		}
	}
	return -1;
}

/* Loads that hit and miss the caches, page zero and copy, allocation and
 * free. @return 0, or 1 said on stderr. */
static int measure_memory(struct sws_costs *c)
{
	void **hit = make_cycle(16 << 10, false), **miss = make_cycle(256u << 20, true);
	if (!hit || !miss) {
		fprintf(stderr, "swapsim-calibrate: cannot map the load buffers: %s\n", strerror(errno));
		return 1;
	}
	c->ps[SWS_COST_load_hit] = time_ps(t_chase, 20000000, hit);
	c->ps[SWS_COST_load_miss] = time_ps(t_chase, 4000000, miss);
	munmap(hit, 16 << 10);
	munmap(miss, 256u << 20);
	struct pages pg = {.n = (64u << 20) / 4096};
	pg.dst = malloc(64u << 20);
	pg.src = malloc(64u << 20);
	struct allocs al = {.p = malloc(100000 * sizeof(void *))};
	if (!pg.dst || !pg.src || !al.p) {
		fprintf(stderr, "swapsim-calibrate: out of memory\n");
		return 1;
	}
	memset(pg.src, 0x5a, 64u << 20);
	memset(pg.dst, 0, 64u << 20);
	c->ps[SWS_COST_page_zero] = time_ps(t_zero, 200000, &pg);
	c->ps[SWS_COST_page_copy] = time_ps(t_copy, 200000, &pg);
	free(pg.dst);
	free(pg.src);
	c->ps[SWS_COST_meta_alloc] = time_ps(t_alloc, 100000, &al);
	al.free_only = true;
	c->ps[SWS_COST_meta_free] = time_ps(t_alloc, 100000, &al);
	free(al.p);
	return 0;
}

/* A cache line's transfer and a TLB shootdown between two CPUs, when this
 * process may run on two; how, for the header, in @how. */
static void measure_two_cpus(struct sws_costs *c, char *how, size_t len)
{
	int a, b;
	snprintf(how, len, "default kept: this process may run on one CPU only");
	if (!two_cpus(&a, &b))
		return;
	uint64_t lt = line_transfer_ps(a, b), sd = shootdown_ps(a, b);
	if (lt)
		c->ps[SWS_COST_line_transfer] = lt;
	if (sd)
		c->ps[SWS_COST_tlb_shootdown] = sd;
	snprintf(how, len, "measured between CPUs %d and %d", a, b);
}

/* The cost file's header: the machine, the date, how it was measured. */
static void make_header(char *header, size_t len, const char *two_cpus_how, uint64_t llc)
{
	char model[160], date[32];
	struct utsname u;
	time_t t = time(NULL);
	uname(&u);
	cpu_model(model, sizeof(model));
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&t));
	snprintf(header, len,
		 "swapsim-calibrate%s on %s, %ld CPUs, kernel %s, %s\n"
		 "line_transfer and tlb_shootdown %s; llc_bytes from sysfs%s\n"
		 "picoseconds per unit; the fastest of %d runs; swapsim-replay --costs reads this file",
		 scale > 1 ? " --quick" : "", model, sysconf(_SC_NPROCESSORS_ONLN), u.release, date, two_cpus_how,
		 llc ? "" : " (not found: default kept)", REPS);
}

/* The cost file to @out, or standard output when NULL. @return 0, or 1 said. */
static int write_costs(const struct sws_costs *c, const char *header, const char *out)
{
	if (!out) /* standard output: checked at exit (main) */
		return sws_costs_print(c, header, put, stdout) ? 1 : 0;
	/* Written whole or not at all, the mode an existing file had kept, a
	 * symbolic link followed (cli_output.h). */
	struct cli_output o;
	int rc = cli_output_open(&o, out);
	if (!rc) {
		sws_costs_print(c, header, put, o.f);
		rc = cli_output_commit(&o); /* a write that failed fails it */
	}
	if (rc) {
		fprintf(stderr, "swapsim-calibrate: --out %s: %s\n", out, cli_output_strerror(errno));
		return 1;
	}
	return 0;
}

static int calibrate_main(int argc, char **argv)
{
	const char *out = NULL;
	int rc = parse_options(argc, argv, &out);
	if (rc >= 0)
		return rc;
	/* A file that cannot be written fails now, not after a minute of measuring:
	 * its temporary is made and dropped again (the final name is not touched). */
	struct cli_output o;
	if (out) {
		if (cli_output_open(&o, out)) {
			fprintf(stderr, "swapsim-calibrate: --out %s: %s\n", out, cli_output_strerror(errno));
			return 1;
		}
		cli_output_abort(&o);
	}
	struct sws_costs c;
	sws_costs_default(&c);
	atomic_uint lock = 0;
	_Atomic uint64_t counter = 0;
	c.ps[SWS_COST_syscall] = time_ps(t_syscall, 2000000, NULL);
	c.ps[SWS_COST_lock] = time_ps(t_lock, 20000000, &lock);
	c.ps[SWS_COST_atomic] = time_ps(t_atomic, 20000000, &counter);
	if (measure_memory(&c))
		return 1;
	char how[96], header[1024];
	measure_two_cpus(&c, how, sizeof(how));
	if (compression(&c)) {
		fprintf(stderr, "swapsim-calibrate: cannot set up the compression measurement\n");
		return 1;
	}
	uint64_t llc = llc_bytes();
	if (llc)
		c.llc_bytes = llc;
	sws_costs_derive(&c);
	make_header(header, sizeof(header), how, llc);
	return write_costs(&c, header, out);
}

int main(int argc, char **argv)
{
	/* The cost file goes to standard output without --out: a write that failed is an error. */
	cli_stdout_init();
	return cli_stdout_close("swapsim-calibrate", calibrate_main(argc, argv));
}

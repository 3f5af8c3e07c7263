/*
 * swapsim-overhead - the swap metadata every per-slot design needs for one
 * device at given usage points, measured from what the model allocated
 * (sws_sim_memory_usage(): every byte the library allocates is charged to a
 * class), never from a formula. docs/designs.md, "Memory".
 *
 * For each design: swap on one device of --size (metadata only), then fill
 * it to each usage point with swapped-out pages, and snapshot the metadata
 * classes after the deferred work (sws_swap_do_deferred_work(): a virtual
 * device gives its free tail back) and every deferred free have run
 * (sws_sim_quiesce()):
 *
 *   dense   pages are allocated in order: clusters fill one after another;
 *           the points are reached by filling further
 *   random  the device is filled, then pages are freed in a random order
 *           (seeded): every cluster keeps some pages; the points are
 *           reached by freeing further
 *
 * A swapped-out page is what reclaim leaves: a slot with swap count 1 (one
 * PTE), no folio, a workingset shadow; under vswap the page was written to
 * the device, so its virtual slot has a physical one (sws_swap_io_target).
 * With --store zswap the pages go through the memory model into zswap
 * instead, so the designs that keep zswap's tree pay for it and vswap, which
 * keeps zswap's entries in its descriptors, does not.
 *
 * A thin program over the public API. Exit status: 0, 1 a run failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swapsim/swapsim.h>

#include "cli_designs.h"
#include "cli_options.h"
#include "cli_output.h"
#include "cli_parse.h"

#define MAX_POINTS 16
/* The largest device (the kernel's own limit is far above), and the most
 * pages a run swaps out: each GiB filled costs the run about 0.7 s and 16 MB
 * of the host per design (64G: some 45 s and 1 GB each), while an empty
 * device costs only its static tables (1T: 0.1 s). */
#define MAX_SIZE (4ull << 40)
#define MAX_FILL (64ull << 30)
#define MAX_ROWS (CLI_MAX_RUNS * MAX_POINTS)
_Static_assert(CLI_NR_DESIGNS <= CLI_MAX_RUNS, "the default, every design, is one run each");

#define USAGE_HEAD                                                                                   \
	"usage: swapsim-overhead --size SIZE [--usage P1,P2,...] [--placement dense|random]\n"            \
	"                        [--report table|json] [--designs D1,D2,...] [--store disk|zswap]\n"       \
	"                        [--memcg on|off] [--seed N]\n"                                            \
	"\n"                                                                                             \
	"Print the swap metadata (static and dynamic bytes, by class) of every per-slot design\n"         \
	"for one swap device of SIZE filled to each usage point, measured from what the\n"               \
	"simulation allocated.\n"                                                                         \
	"\n"

struct opts {
	uint64_t size;
	unsigned usage[MAX_POINTS], nusage;
	int random, json, zswap, memcg_off; /* --placement, --report, --store, --memcg: the choice's index */
	const char *json_out;
	enum sws_backend designs[CLI_MAX_RUNS];
	unsigned ndesigns;
	uint64_t seed;
};

struct row {
	enum sws_backend design;
	unsigned usage;
	uint64_t inuse;
	struct sws_memory_usage mu;
};

#define bad(...) cli_bad("swapsim-overhead", __VA_ARGS__)

static int fail(enum sws_backend d, const char *what, int rc)
{
	fprintf(stderr, "swapsim-overhead: %s: %s: %s\n", sws_backend_name(d), what, sws_strerror(rc));
	return 1;
}

static int set_size(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char hint[160];
	if (cli_parse_size(v, &o->size))
		return bad(name, "'%s': %s", v, cli_size_hint(v, hint, sizeof(hint)));
	if (o->size < 2 * SWS_PAGE_SIZE)
		return bad(name, "'%s': expected a size from 8K to 4T, like 32G", v);
	if (o->size > MAX_SIZE)
		return bad(name, "'%s': above the limit of 4T", v);
	return 0;
}

static int set_usage(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char *copy = strdup(v);
	int rc = copy ? 0 : bad(name, "out of memory");
	o->nusage = 0;
	for (char *save = NULL, *s = copy ? strtok_r(copy, ",", &save) : NULL; s && !rc; s = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long p = strtoul(s, &end, 10);
		if (*end || end == s || p > 100)
			rc = bad(name, "'%s': expected percentages 0..100, like 0,25,50,75,100", s);
		else if (o->nusage == MAX_POINTS)
			rc = bad(name, "at most %d points", MAX_POINTS);
		else
			o->usage[o->nusage++] = (unsigned)p;
	}
	free(copy);
	return rc ? rc : o->nusage ? 0 : bad(name, "no usage point");
}

static int set_designs(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	o->ndesigns = 0;
	for (const char *s = v; *s;) {
		char d[64];
		size_t n = strcspn(s, ",");
		snprintf(d, sizeof(d), "%.*s", (int)n, s);
		s += n + (s[n] == ',');
		if (!n)
			continue;
		if (o->ndesigns == CLI_MAX_RUNS)
			return bad(name, "at most %d designs", CLI_MAX_RUNS);
		if (sws_backend_parse(d, &o->designs[o->ndesigns]))
			return bad(name, "'%s': expected %s", d, cli_design_list((char[256]){0}, 256, ", ", " or "));
		o->ndesigns++;
	}
	return o->ndesigns ? 0 : bad(name, "no design");
}

/* --designs' help: its default, every design of the registry. */
static const char *designs_help(char *buf, size_t len)
{
	char names[256];
	snprintf(buf, len, "designs (default %s)", cli_design_list(names, sizeof(names), ",", ","));
	return buf;
}

static int set_seed(void *opts, const char *name, const char *v)
{
	struct opts *o = opts;
	char *end;
	o->seed = strtoull(v, &end, 0);
	if (*end || end == v)
		return bad(name, "'%s': expected a number", v);
	return 0;
}

#define O struct opts
static const struct cli_option options[] = {
	CLI_OPT_CALL("--size", "SIZE", set_size,
		     "the device (K, M, G suffixes, binary, or p for 4 KiB\n"
		     "pages), 8K to 4T, e.g. 32G; a bare number is bytes, at least 4096;\n"
		     "the pages filled (SIZE x the largest usage point; the whole\n"
		     "device with --placement random) at most 64G"),
	CLI_OPT_CALL("--usage", "P1,P2,...", set_usage,
		     "usage points in percent of the device (default 0,25,50,75,100)"),
	CLI_OPT_CHOICE("--placement", "dense|random", O, random, "dense|random",
		       "pages in allocation order, or freed at random from a full\n"
		       "device (default dense)"),
	CLI_OPT_CHOICE("--report", "table|json", O, json, "table|json",
		       "output (default table); JSON is\n"
		       "{\"rows\":[{\"design\",\"usage_pct\",\"static_bytes\",\n"
		       "\"dynamic_bytes\",\"by_class\":{...}, ...}]}"),
	{.kind = CLI_CALL, .name = "--designs", .arg = "D1,D2,...", .set = set_designs, .help_fn = designs_help},
	CLI_OPT_CHOICE("--store", "disk|zswap", O, zswap, "disk|zswap",
		       "where the pages are: on the device (default), or in zswap\n"
		       "through the memory model (includes zswap's trees; slower)"),
	CLI_OPT_CHOICE("--memcg", "on|off", O, memcg_off, "on|off",
		       "off: as booted with cgroup_disable=memory: no swap_cgroup\n"
		       "map, no memcg tables (default on)"),
	CLI_OPT_CALL("--seed", "N", set_seed, "the random placement's seed (default 1)"),
	CLI_OPT_STRING("--json-out", "FILE", O, json_out, "also write the JSON report to FILE"),
	CLI_OPT_HELP("this text"),
	CLI_OPT_VERSION("the program's version"),
	{0},
};
#undef O

static const struct cli_program program = {
	.name = "swapsim-overhead",
	.usage = USAGE_HEAD,
	.options = options,
};

/* The most pages the run swaps out: up to the largest usage point, or the
 * whole device (less its header) for --placement random. */
static uint64_t fill_pages(const struct opts *o)
{
	uint64_t pages = o->size / SWS_PAGE_SIZE - 1;
	unsigned most = 0;
	for (unsigned k = 0; k < o->nusage; k++)
		most = o->usage[k] > most ? o->usage[k] : most;
	return o->random ? pages : pages * most / 100;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
	static const unsigned points[] = {0, 25, 50, 75, 100};
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	int rc = cli_options_parse(&program, o, argc, argv, 1);
	if (rc)
		return rc;
	if (!o->size)
		return bad("--size", "is required (e.g. --size 32G)");
	if (!o->nusage) {
		memcpy(o->usage, points, sizeof(points));
		o->nusage = sizeof(points) / sizeof(points[0]);
	}
	if (!o->ndesigns) {
		memcpy(o->designs, cli_designs, sizeof(cli_designs));
		o->ndesigns = CLI_NR_DESIGNS;
	}
	if (fill_pages(o) > MAX_FILL / SWS_PAGE_SIZE)
		return bad(o->random ? "--placement" : "--usage",
			   "fills %llu MiB of pages, above the limit of 64G (each GiB filled costs the run about "
			   "0.7 s and 16 MB per design; the bytes per slot are the same at 32G)",
			   (unsigned long long)(fill_pages(o) * SWS_PAGE_SIZE >> 20));
	return 0;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One swapped-out page: allocate, map once (count 1), write (vswap: a
 * physical slot), evict with a shadow. */
static int swap_out(struct sws_cpu *cpu, uint64_t pfn, sws_entry_t *e)
{
	int rc = sws_folio_alloc_swap(cpu, pfn, 0, e);
	if (!rc)
		rc = sws_swap_dup(cpu, *e, 1);
	sws_entry_t target;
	if (!rc)
		rc = sws_swap_io_target(cpu, *e, 1, true, &target);
	if (!rc)
		rc = sws_swap_cache_del(cpu, *e, 1, pfn, (pfn & 0xffffff) + 1);
	return rc;
}

static void snapshot(struct sws_sim *sim, int type, enum sws_backend d, unsigned usage, struct row *r)
{
	for (int k = 0; k < 64 && sws_swap_do_deferred_work(sim, UINT32_MAX); k++)
		; /* discards, extendable devices' shrink: nothing else runs, so it ends */
	sws_sim_quiesce(sim);
	struct sws_device_info di;
	r->design = d;
	r->usage = usage;
	r->inuse = sws_device_info_get(sim, type, &di) ? 0 : di.inuse_pages;
	sws_sim_memory_usage(sim, &r->mu);
}

static int cmp_desc(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_asc(const void *a, const void *b) { return -cmp_desc(a, b); }

/* The row of usage point @p: the points are visited sorted, printed as given. */
static struct row *row_of(const struct opts *o, struct row *rows, unsigned p)
{
	unsigned k = 0;
	while (k < o->nusage - 1 && o->usage[k] != p)
		k++;
	return &rows[k];
}

/* The swap-level fill: the pages on the device. */
static int run_disk(const struct opts *o, enum sws_backend d, struct row *rows)
{
	struct sws_sim_config sc = {.backend = d, .max_cpus = 1, .flags = o->memcg_off ? SWS_SIM_MEMCG_OFF : 0};
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type, rc = sws_sim_create(&sc, &sim);
	if (rc)
		return fail(d, "sws_sim_create", rc);
	if ((rc = sws_cpu_attach(sim, &cpu)) != 0) {
		sws_sim_destroy(sim);
		return fail(d, "sws_cpu_attach", rc);
	}
	struct sws_device_config dc = {.flags = SWS_SWP_SOLIDSTATE, .nr_slots = o->size / SWS_PAGE_SIZE};
	uint64_t pages = dc.nr_slots - 1;
	sws_entry_t *held = malloc(sizeof(*held) * (fill_pages(o) + 1));
	rc = held ? sws_swapon(sim, &dc, &type) : SWS_ENOMEM;
	unsigned pts[MAX_POINTS];
	memcpy(pts, o->usage, sizeof(pts));
	qsort(pts, o->nusage, sizeof(pts[0]), o->random ? cmp_desc : cmp_asc);
	uint64_t n = 0, rng = o->seed;
	if (!rc && o->random) { /* full, then freed in a random order */
		for (; n < pages && !rc; n++)
			rc = swap_out(cpu, n + 1, &held[n]);
		for (uint64_t i = pages; i > 1 && !rc; i--) {
			uint64_t j = rng_next(&rng) % i;
			sws_entry_t t = held[i - 1];
			held[i - 1] = held[j];
			held[j] = t;
		}
	}
	for (unsigned k = 0; k < o->nusage && !rc; k++) {
		uint64_t want = pages * pts[k] / 100;
		for (; n < want && !rc; n++)
			rc = swap_out(cpu, n + 1, &held[n]);
		for (; n > want && !rc; n--)
			rc = sws_swap_put(cpu, held[n - 1], 1);
		if (!rc)
			snapshot(sim, type, d, pts[k], row_of(o, rows, pts[k]));
	}
	if (rc)
		fail(d, "filling the device", rc);
	for (; n > 0 && !rc; n--) /* empty again: swapoff frees what swapon made */
		rc = sws_swap_put(cpu, held[n - 1], 1);
	free(held);
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	return rc ? 1 : 0;
}

/* The memory model of a zswap fill: one device of --size, zswap with all of
 * RAM for its pool, one task with the device's size mapped. */
struct zswap_machine {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_mm *mm;
	int type;
	uint32_t asid;
	bool have_space;
	uint64_t pages; /* the device's, less its header */
};

static int zswap_machine_create(const struct opts *o, enum sws_backend d, struct zswap_machine *z)
{
	struct sws_sim_config sc = {.backend = d, .max_cpus = 1, .flags = o->memcg_off ? SWS_SIM_MEMCG_OFF : 0};
	memset(z, 0, sizeof(*z));
	int rc = sws_sim_create(&sc, &z->sim);
	if (rc) {
		z->sim = NULL;
		return fail(d, "sws_sim_create", rc);
	}
	rc = sws_cpu_attach(z->sim, &z->cpu);
	struct sws_device_config dc = {.flags = SWS_SWP_SOLIDSTATE, .nr_slots = o->size / SWS_PAGE_SIZE};
	z->pages = dc.nr_slots - 1;
	if (!rc)
		rc = sws_swapon(z->sim, &dc, &z->type);
	/* RAM for the pool: same-filled pages compress to a few bytes each. */
	struct sws_mm_config mc = {.ram_pages = 1u << 18, .seed = o->seed};
	mc.content_weight[SWS_CONTENT_SAME] = 1;
	if (!rc)
		rc = sws_mm_create(z->sim, &mc, &z->mm);
	struct sws_zswap_config zc = {.max_pool_percent = 100};
	if (!rc)
		rc = sws_mm_zswap_enable(z->mm, &zc);
	if (!rc)
		rc = sws_mm_space_create(z->mm, 0, &z->asid);
	z->have_space = !rc;
	if (!rc)
		rc = sws_mm_mmap(z->mm, z->asid, 0, z->pages * SWS_PAGE_SIZE, 0);
	return rc;
}

static void zswap_machine_destroy(struct zswap_machine *z)
{
	if (z->have_space)
		sws_mm_exit(z->cpu, z->mm, z->asid);
	if (z->mm)
		sws_mm_destroy(z->mm);
	sws_cpu_detach(z->cpu);
	sws_sim_destroy(z->sim);
}

/* The pages 0..@pages-1 in a random order from @seed (--placement random).
 * @return the array (free() it), or NULL when out of memory. */
static uint64_t *shuffled_pages(uint64_t pages, uint64_t seed)
{
	uint64_t *order = malloc(sizeof(*order) * pages), rng = seed;
	for (uint64_t i = 0; order && i < pages; i++)
		order[i] = i;
	for (uint64_t i = pages; order && i > 1; i--) {
		uint64_t j = rng_next(&rng) % i, t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	return order;
}

/* Write pages @*n.. up to @want, reclaiming as it goes, then reclaim what is
 * resident beyond a small working set. */
static int zswap_write_to(struct zswap_machine *z, uint64_t *n, uint64_t want)
{
	int rc = 0;
	for (; *n < want && !rc; (*n)++) {
		rc = sws_mm_access(z->cpu, z->mm, z->asid, *n * SWS_PAGE_SIZE, true);
		if (rc > 0)
			rc = 0;
		if (!rc && *n % 256 == 255)
			sws_mm_reclaim(z->cpu, z->mm, 0, 256);
	}
	if (!rc)
		sws_mm_reclaim(z->cpu, z->mm, 0, UINT64_MAX);
	return rc;
}

/* The memory-model fill: pages written by a task, reclaimed into zswap. */
static int run_zswap(const struct opts *o, enum sws_backend d, struct row *rows)
{
	struct zswap_machine z;
	int rc = zswap_machine_create(o, d, &z);
	if (rc && !z.sim)
		return rc; /* said */
	unsigned pts[MAX_POINTS];
	memcpy(pts, o->usage, sizeof(pts));
	qsort(pts, o->nusage, sizeof(pts[0]), o->random ? cmp_desc : cmp_asc);
	uint64_t *order = !rc && o->random ? shuffled_pages(z.pages, o->seed) : NULL;
	uint64_t n = 0, done = 0;
	if (!rc && o->random && !order)
		rc = SWS_ENOMEM;
	for (unsigned k = 0; k < o->nusage && !rc; k++) {
		rc = zswap_write_to(&z, &n, o->random ? z.pages : z.pages * pts[k] / 100);
		if (o->random) { /* free pages at random down to the point */
			uint64_t keep = z.pages * pts[k] / 100;
			for (; !rc && z.pages - done > keep; done++)
				rc = sws_mm_madvise(z.cpu, z.mm, z.asid, order[done] * SWS_PAGE_SIZE, SWS_PAGE_SIZE,
						    SWS_MADV_DONTNEED);
		}
		if (!rc)
			snapshot(z.sim, z.type, d, pts[k], row_of(o, rows, pts[k]));
	}
	if (rc)
		fail(d, "filling zswap", rc);
	free(order);
	zswap_machine_destroy(&z);
	return rc ? 1 : 0;
}

static bool metadata_class(enum sws_mem_class c)
{
	return sws_mem_class_kind(c) != SWS_MEM_KIND_OTHER;
}

static void print_json(FILE *f, const struct opts *o, const struct row *rows, unsigned n)
{
	fprintf(f, "{\"size_bytes\":%llu,\"placement\":\"%s\",\"store\":\"%s\",\"memcg\":\"%s\",\"rows\":[",
	       (unsigned long long)o->size, o->random ? "random" : "dense", o->zswap ? "zswap" : "disk",
	       o->memcg_off ? "off" : "on");
	for (unsigned i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s{\"design\":\"%s\",\"usage_pct\":%u,\"inuse_pages\":%llu,\"static_bytes\":%llu,"
		       "\"dynamic_bytes\":%llu,\"by_class\":{",
		       i ? "," : "", sws_backend_name(r->design), r->usage, (unsigned long long)r->inuse,
		       (unsigned long long)r->mu.static_bytes, (unsigned long long)r->mu.dynamic_bytes);
		bool first = true;
		for (int c = 0; c < SWS_NR_MEM_CLASSES; c++) {
			if (!metadata_class((enum sws_mem_class)c))
				continue;
			fprintf(f, "%s\"%s\":%llu", first ? "" : ",", sws_mem_class_name((enum sws_mem_class)c),
			       (unsigned long long)r->mu.bytes[c]);
			first = false;
		}
		fprintf(f, "}}");
	}
	fprintf(f, "]}\n");
}

static void print_table(const struct opts *o, const struct row *rows, unsigned n)
{
	uint64_t slots = o->size / SWS_PAGE_SIZE;
	printf("device %llu MiB (%llu slots), %s placement, pages %s%s\n",
	       (unsigned long long)(o->size >> 20), (unsigned long long)slots, o->random ? "random" : "dense",
	       o->zswap ? "in zswap" : "on the device", o->memcg_off ? ", memcg off" : "");
	printf("%-8s %6s %14s %14s %14s %10s  %s\n", "design", "usage", "static", "dynamic", "total", "B/slot",
	       "largest classes");
	for (unsigned i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		uint64_t total = r->mu.static_bytes + r->mu.dynamic_bytes;
		printf("%-8s %5u%% %14llu %14llu %14llu %10.3f  ", sws_backend_name(r->design), r->usage,
		       (unsigned long long)r->mu.static_bytes, (unsigned long long)r->mu.dynamic_bytes,
		       (unsigned long long)total, (double)total / (double)slots);
		/* the three biggest classes */
		int shown[3] = {-1, -1, -1};
		for (int k = 0; k < 3; k++) {
			uint64_t best = 0;
			for (int c = 0; c < SWS_NR_MEM_CLASSES; c++) {
				if (!metadata_class((enum sws_mem_class)c) || c == shown[0] || c == shown[1] ||
				    r->mu.bytes[c] <= best)
					continue;
				best = r->mu.bytes[c];
				shown[k] = c;
			}
			if (shown[k] >= 0)
				printf("%s%s %llu", k ? ", " : "", sws_mem_class_name((enum sws_mem_class)shown[k]),
				       (unsigned long long)best);
		}
		printf("\n");
	}
}

static int overhead_main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(&o, argc, argv);
	if (rc)
		return rc;
	static struct row rows[MAX_ROWS];
	unsigned n = 0;
	for (unsigned i = 0; i < o.ndesigns; i++) {
		rc = o.zswap ? run_zswap(&o, o.designs[i], rows + n) : run_disk(&o, o.designs[i], rows + n);
		if (rc)
			return rc;
		n += o.nusage;
	}
	if (o.json)
		print_json(stdout, &o, rows, n);
	else
		print_table(&o, rows, n);
	if (o.json_out) {
		struct cli_output jo; /* written whole or not at all (cli_output.h) */
		int jrc = cli_output_open(&jo, o.json_out);
		if (!jrc) {
			print_json(jo.f, &o, rows, n);
			jrc = cli_output_commit(&jo); /* a write that failed fails it */
		}
		if (jrc) {
			fprintf(stderr, "swapsim-overhead: --json-out %s: %s\n", o.json_out,
				cli_output_strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* The report goes to standard output: a write that failed is an error. */
	cli_stdout_init();
	return cli_stdout_close("swapsim-overhead", overhead_main(argc, argv));
}

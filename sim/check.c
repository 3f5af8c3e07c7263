/*
 * check.c - swapsim-replay --check (check.h): reads a swapsim-record
 * recording's kernel.txt, turns its setup into the machine to replay on, and
 * prints the kernel's counters next to the simulator's.
 *
 * Which kernel counter stands beside which model counter is the table
 * `counters` below: each row names the model's counter and the places the
 * kernel's figure is looked for, best first. The memcg's own statistics
 * come first where the memcg has the counter (they count the recorded
 * command only); /proc/vmstat's deltas are the whole machine's over the run.
 */
#define _GNU_SOURCE
#include "check.h"
#include "cli_designs.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEC_SETUP "setup"
#define SEC_VMSTAT "/proc/vmstat deltas"
#define SEC_MEMCG "memcg memory.stat"
#define SEC_EVENTS "memcg events"
#define SEC_ZSWAP "zswap debugfs deltas"
#define SEC_MTHP "mthp stats deltas"
#define MAX_FILE (16u << 20)

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_integer(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* FNV-1a of "section\0key". */
static uint32_t key_hash(const char *section, const char *key)
{
	uint32_t h = 2166136261u;
	for (const char *p = section; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

/* The slot of (@section, @key) in rec->index: the one holding it, or the empty one it would go in. */
static unsigned *slot_of(const struct check_recording *rec, const char *section, const char *key)
{
	unsigned mask = rec->index_cap - 1, j = key_hash(section, key) & mask;
	while (rec->index[j]) {
		const struct check_entry *e = &rec->e[rec->index[j] - 1];
		if (!strcmp(e->key, key) && !strcmp(e->section, section))
			break;
		j = (j + 1) & mask;
	}
	return &rec->index[j];
}

static const struct check_entry *find(const struct check_recording *rec, const char *section,
				      const char *key)
{
	if (!rec->index_cap)
		return NULL;
	unsigned i = *slot_of(rec, section, key);
	return i ? &rec->e[i - 1] : NULL;
}

/* Index entry rec->n - 1, growing the index to keep it at most half full. @return 0 or -1 (memory). */
static int index_add(struct check_recording *rec)
{
	if ((rec->n) * 2 > rec->index_cap) {
		unsigned cap = rec->index_cap ? rec->index_cap * 2 : 1024;
		unsigned *old = rec->index, old_cap = rec->index_cap;
		rec->index = calloc(cap, sizeof(*rec->index));
		if (!rec->index) {
			rec->index = old;
			return -1;
		}
		rec->index_cap = cap;
		for (unsigned j = 0; j < old_cap; j++)
			if (old[j]) {
				const struct check_entry *e = &rec->e[old[j] - 1];
				*slot_of(rec, e->section, e->key) = old[j];
			}
		free(old);
	}
	const struct check_entry *e = &rec->e[rec->n - 1];
	*slot_of(rec, e->section, e->key) = rec->n;
	return 0;
}

static bool has_section(const struct check_recording *rec, const char *section)
{
	for (unsigned i = 0; i < rec->n; i++)
		if (!strcmp(rec->e[i].section, section))
			return true;
	return false;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

/* @rec->text split into entries in place. */
static int parse(struct check_recording *rec, size_t size, char *err, size_t errlen,
		 const volatile sig_atomic_t *stop)
{
	const char *section = NULL;
	unsigned cap = 0, line = 0;
	char *p = rec->text, *end = rec->text + size;
	const char *nul = memchr(rec->text, 0, size);
	if (nul) {
		unsigned at = 1;
		for (const char *q = rec->text; q < nul; q++)
			at += *q == '\n';
		return fail(err, errlen, "%s:%u: not a text file (a NUL byte)", rec->path, at);
	}
	while (p < end) {
		if (stop && *stop && !(line & 1023))
			return fail(err, errlen, "%s: interrupted at line %u", rec->path, line);
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *s = p;
		if (nl)
			*nl = 0;
		p = nl ? nl + 1 : end;
		line++;
		s = trim(s);
		if (!*s || (s[0] == '#' && s[1] != '#'))
			continue;
		if (s[0] == '#') { /* "## TITLE" */
			section = trim(s + 2);
			if (!*section)
				return fail(err, errlen, "%s:%u: a section header without a title",
					    rec->path, line);
			continue;
		}
		if (!section)
			return fail(
			    err, errlen,
			    "%s:%u: '%.40s': a line before the first section (\"## setup\")",
			    rec->path, line, s);
		char *v = s + strcspn(s, " \t");
		if (*v)
			*v++ = 0;
		v = trim(v);
		if (!*v)
			return fail(err, errlen, "%s:%u: '%.40s': expected KEY VALUE", rec->path,
				    line, s);
		if (strcmp(section, SEC_SETUP) && !is_integer(v))
			return fail(err, errlen,
				    "%s:%u: %.40s: '%.40s' is not a number (section \"%s\")",
				    rec->path, line, s, v, section);
		if (strcmp(section, SEC_SETUP)) {
			errno = 0;
			(void)strtoll(v, NULL, 10);
			if (errno == ERANGE)
				return fail(err, errlen,
					    "%s:%u: %.40s: %.40s is out of range (a counter is a number from "
					    "%lld to %lld; section \"%s\")",
					    rec->path, line, s, v, LLONG_MIN, LLONG_MAX, section);
		}
		const struct check_entry *twice = find(rec, section, s);
		if (twice)
			return fail(err, errlen,
				    "%s:%u: %.40s given twice in section \"%s\" (first on line %u)",
				    rec->path, line, s, section, twice->line);
		if (rec->n == cap) {
			cap = cap ? cap * 2 : 256;
			struct check_entry *e = realloc(rec->e, cap * sizeof(*e));
			if (!e)
				return fail(err, errlen, "%s: out of memory", rec->path);
			rec->e = e;
		}
		rec->e[rec->n++] =
		    (struct check_entry){.section = section, .key = s, .value = v, .line = line};
		if (index_add(rec))
			return fail(err, errlen, "%s: out of memory", rec->path);
	}
	return 0;
}

int check_recording_load(const char *arg, const char *trace, bool accesses, struct check_recording *rec, char *err,
			 size_t errlen,
			 const volatile sig_atomic_t *stop)
{
	struct stat st;
	memset(rec, 0, sizeof(*rec));
	if (stat(arg, &st))
		return fail(err, errlen, "%s: %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (snprintf(rec->path, sizeof(rec->path), "%s/kernel.txt", arg) >=
		    (int)sizeof(rec->path))
			return fail(err, errlen, "%s: path too long", arg);
		if (stat(rec->path, &st))
			return fail(
			    err, errlen,
			    "%s: no kernel.txt in this folder (%s); swapsim-record writes one", arg,
			    strerror(errno));
	} else if (snprintf(rec->path, sizeof(rec->path), "%s", arg) >= (int)sizeof(rec->path)) {
		return fail(err, errlen, "%s: path too long", arg);
	}
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, "%s: not a regular file", rec->path);
	if (st.st_size > (off_t)MAX_FILE)
		return fail(err, errlen, "%s: %lld bytes, too large for a kernel.txt (at most %u)",
			    rec->path, (long long)st.st_size, MAX_FILE);
	FILE *f = fopen(rec->path, "r");
	if (!f)
		return fail(err, errlen, "%s: %s", rec->path, strerror(errno));
	rec->text = malloc((size_t)st.st_size + 1);
	size_t got = rec->text ? fread(rec->text, 1, (size_t)st.st_size, f) : 0;
	int rerr = ferror(f);
	fclose(f);
	if (!rec->text || rerr)
		return fail(err, errlen, "%s: %s", rec->path,
			    rec->text ? "read error" : "out of memory");
	rec->text[got] = 0;
	if (parse(rec, got, err, errlen, stop))
		return -1;
	if (!has_section(rec, SEC_SETUP))
		return fail(err, errlen,
			    "%s: no \"## setup\" section (is it a swapsim-record kernel.txt?)",
			    rec->path);
	if (!has_section(rec, SEC_VMSTAT))
		return fail(err, errlen, "%s: no \"## %s\" section: no kernel counters to compare",
			    rec->path, SEC_VMSTAT);
	/* The trace: --trace's, else the setup's "trace", beside kernel.txt unless absolute. */
	if (trace) {
		if (snprintf(rec->trace, sizeof(rec->trace), "%s", trace) >= (int)sizeof(rec->trace))
			return fail(err, errlen, "--trace: the path is too long");
		return 0;
	}
	/* --accesses: the lackey stream swapsim-record --accesses stored */
	const struct check_entry *t = find(rec, SEC_SETUP, accesses ? "accesses" : "trace");
	if (accesses && !t)
		return fail(err, errlen,
			    "%s: --accesses: the setup names no access stream (record with swapsim-record --accesses)",
			    rec->path);
	rec->accesses = accesses;
	const char *name = t ? t->value : "perf.txt";
	const char *slash = strrchr(rec->path, '/');
	int dn = slash ? (int)(slash - rec->path) : 1;
	const char *dir = slash ? rec->path : ".";
	if (name[0] == '/')
		snprintf(rec->trace, sizeof(rec->trace), "%s", name);
	else if (snprintf(rec->trace, sizeof(rec->trace), "%.*s/%s", dn, dir, name) >=
		 (int)sizeof(rec->trace))
		return fail(err, errlen, "%s: the trace's path is too long", rec->path);
	if (access(rec->trace, R_OK)) {
		if (t)
			return fail(err, errlen, "%s:%u: %s %s: %s: %s", rec->path, t->line,
				    accesses ? "accesses" : "trace", name, rec->trace, strerror(errno));
		return fail(err, errlen,
			    "%s: no trace: %s: %s (the setup names none: perf.txt beside it)",
			    rec->path, rec->trace, strerror(errno));
	}
	return 0;
}

void check_recording_free(struct check_recording *rec)
{
	free(rec->text);
	free(rec->e);
	free(rec->index);
	memset(rec, 0, sizeof(*rec));
}

/* ---- the machine ----------------------------------------------------------------- */

/* Setup value @key as an integer in [@min, @max]: 1 found, 0 absent, -1 bad (@err set). */
static int setup_int(const struct check_recording *rec, const char *key, long long min,
		     long long max, long long *out, char *err, size_t errlen)
{
	const struct check_entry *e = find(rec, SEC_SETUP, key);
	char *end;
	if (!e)
		return 0;
	errno = 0;
	long long v = strtoll(e->value, &end, 10);
	if (*end || errno || v < min || v > max)
		return fail(err, errlen, "%s:%u: %s '%s': expected a number in %lld..%lld",
			    rec->path, e->line, key, e->value, min, max);
	*out = v;
	return 1;
}

static int setup_yn(const struct check_recording *rec, const char *key, bool *out, char *err,
		    size_t errlen)
{
	const struct check_entry *e = find(rec, SEC_SETUP, key);
	if (!e)
		return 0;
	if (!strcmp(e->value, "Y") || !strcmp(e->value, "1"))
		*out = true;
	else if (!strcmp(e->value, "N") || !strcmp(e->value, "0"))
		*out = false;
	else
		return fail(err, errlen, "%s:%u: %s '%s': expected Y or N", rec->path, e->line, key,
			    e->value);
	return 1;
}

/* A registry kernel version ("6.18", "~7.1": expected there) as major *
 * 100 + minor in *@v; false for a patch series ("vswap v3-v5"). */
static bool kernel_version(const char *kernel, unsigned *v)
{
	unsigned maj, min;
	if (*kernel == '~')
		kernel++;
	if (sscanf(kernel, "%u.%u", &maj, &min) != 2)
		return false;
	*v = maj * 100 + min;
	return true;
}

/*
 * The design of a kernel release, from the registry's kernel versions
 * (SWS_DESIGN_LIST, docs/designs.md): the newest design whose version
 * @release reaches, or the oldest for a release older than them all. A
 * patch series is no release's design.
 */
static void design_of(const char *release, struct check_machine *m)
{
	unsigned maj, min;
	if (!release || sscanf(release, "%u.%u", &maj, &min) != 2) {
		m->backend = SWS_DESIGN_ST_P4;
		snprintf(m->backend_why, sizeof(m->backend_why),
			 "st-p4, the default: no kernel version to go by (--backend chooses)");
		return;
	}
	unsigned v = maj * 100 + min, best_v = 0, oldest_v = UINT_MAX;
	enum sws_design best = SWS_DESIGN_DEFAULT, oldest = SWS_DESIGN_DEFAULT;
	for (size_t k = 0; k < CLI_NR_DESIGNS; k++) {
		unsigned dv;
		if (!kernel_version(sws_design_kernel(cli_designs[k]), &dv))
			continue;
		if (dv < oldest_v) {
			oldest_v = dv;
			oldest = cli_designs[k];
		}
		if (dv <= v && dv >= best_v) {
			best_v = dv;
			best = cli_designs[k];
		}
	}
	m->backend = best ? best : oldest;
	const char *kernel = sws_design_kernel(m->backend);
	snprintf(m->backend_why, sizeof(m->backend_why), "%s, the design of Linux %u.%u (%s%s: %s)",
		 sws_design_name(m->backend), maj, min, kernel, *kernel == '~' ? " expected" : "",
		 sws_design_help(m->backend));
}

/* RAM and the memcg's limit (cgroup v2's "max", or v1's number near 2^63: none). */
static int machine_memory(const struct check_recording *rec, struct check_machine *m, char *err,
			  size_t errlen)
{
	long long v;
	int r;
	if ((r = setup_int(rec, "ram_kb", 256, 4LL << 30, &v, err, errlen)) < 0)
		return -1;
	if (r)
		m->ram_pages = (uint64_t)v / 4;
	const struct check_entry *lim = find(rec, SEC_SETUP, "memcg_limit_bytes");
	if (!lim)
		return fail(err, errlen, "%s: the setup has no memcg_limit_bytes", rec->path);
	if (!strcmp(lim->value, "max")) /* cgroup v2's "max": no limit */
		return 0;
	if ((r = setup_int(rec, "memcg_limit_bytes", 1, LLONG_MAX, &v, err, errlen)) < 0)
		return -1;
	/* v1's "no limit" is a number near 2^63: above any machine */
	if ((uint64_t)v / 4096 > SWS_MM_MAX_RAM_PAGES)
		return 0;
	if ((uint64_t)v < 64 * 4096)
		return fail(err, errlen,
			    "%s:%u: memcg_limit_bytes %lld: below 256K, the smallest the replay models",
			    rec->path, lim->line, v);
	m->mem_limit_pages = (uint64_t)v / 4096;
	return 0;
}

/* Swap device @i (from 1): swap.I.size_kb, swap.I.kind and swap.I.priority. */
static int machine_swap_device(const struct check_recording *rec, unsigned i, struct sws_replay_swap *s,
			       char *err, size_t errlen)
{
	long long v;
	int r;
	char key[64];
	snprintf(key, sizeof(key), "swap.%u.size_kb", i);
	if ((r = setup_int(rec, key, 4, 1LL << 42, &v, err, errlen)) <= 0)
		return r < 0 ? -1 : fail(err, errlen, "%s: the setup has no %s", rec->path, key);
	s->pages = (uint64_t)v / 4 + 1; /* /proc/swaps leaves the header page out */
	snprintf(key, sizeof(key), "swap.%u.kind", i);
	const struct check_entry *k = find(rec, SEC_SETUP, key);
	if (!k)
		return fail(err, errlen, "%s: the setup has no %s", rec->path, key);
	if (sws_replay_swap_kind_parse(k->value, &s->kind) || s->kind == SWS_REPLAY_SWAP_XSWAP)
		return fail(err, errlen, "%s:%u: %s '%s': expected zram, nvme, ssd, sata, hdd or pmem",
			    rec->path, k->line, key, k->value);
	snprintf(key, sizeof(key), "swap.%u.priority", i);
	s->prio = -1;
	if ((r = setup_int(rec, key, -32768, 32767, &v, err, errlen)) < 0)
		return -1;
	if (r && v >= 0)
		s->prio = (int32_t)v; /* negative: the kernel's own, as none here */
	return 0;
}

static int machine_swap(const struct check_recording *rec, struct check_machine *m, char *err, size_t errlen)
{
	long long v;
	int r;
	if ((r = setup_int(rec, "swap_devices", 1, SWS_REPLAY_MAX_SWAP, &v, err, errlen)) <= 0)
		return r < 0 ? -1 : fail(err, errlen, "%s: the setup has no swap_devices", rec->path);
	m->nswap = (unsigned)v;
	for (unsigned i = 0; i < m->nswap; i++)
		if (machine_swap_device(rec, i + 1, &m->swap[i], err, errlen))
			return -1;
	return 0;
}

/* page-cluster, the CPUs and the cgroup version. */
static int machine_cpus_and_cgroup(const struct check_recording *rec, struct check_machine *m, char *err,
				   size_t errlen)
{
	long long v;
	int r;
	if ((r = setup_int(rec, "page_cluster", 0, 10, &v, err, errlen)) < 0)
		return -1;
	if (r)
		m->page_cluster = (uint32_t)v + 1;
	if ((r = setup_int(rec, "cpus", 1, 1 << 20, &v, err, errlen)) < 0)
		return -1;
	if (r) /* a bigger machine: as many as the model has */
		m->cpus = v > SWS_REPLAY_MAX_CPUS ? SWS_REPLAY_MAX_CPUS : (uint32_t)v;
	const struct check_entry *cg = find(rec, SEC_SETUP, "cgroup");
	if (!cg)
		return 0;
	if (strcmp(cg->value, "v1") && strcmp(cg->value, "v2"))
		return fail(err, errlen, "%s:%u: cgroup '%s': expected v1 or v2", rec->path, cg->line,
			    cg->value);
	m->cgroup = cg->value[1] == '1' ? SWS_ZSWAP_CGROUP_V1 : SWS_ZSWAP_CGROUP_V2;
	return 0;
}

/* zswap's parameters, when it was enabled; a compressor the simulator lacks runs as lz4. */
static int machine_zswap(const struct check_recording *rec, struct check_machine *m, char *err, size_t errlen)
{
	long long v;
	int r;
	if (setup_yn(rec, "zswap.enabled", &m->zswap, err, errlen) < 0)
		return -1;
	if (!m->zswap)
		return 0;
	const struct check_entry *c = find(rec, SEC_SETUP, "zswap.compressor");
	const char *kc = c ? c->value : "lz4";
	if (!strcmp(kc, "zstd") || !strcmp(kc, "lz4")) {
		snprintf(m->zswap_compressor, sizeof(m->zswap_compressor), "%s", kc);
	} else {
		snprintf(m->zswap_compressor, sizeof(m->zswap_compressor), "lz4");
		snprintf(m->zswap_note, sizeof(m->zswap_note),
			 "the kernel's %.32s as lz4 (the simulator has lz4 and zstd)", kc);
	}
	if ((r = setup_int(rec, "zswap.max_pool_percent", 1, 100, &v, err, errlen)) < 0)
		return -1;
	if (r)
		m->zswap_max_pool_percent = (uint32_t)v;
	if ((r = setup_int(rec, "zswap.accept_threshold_percent", 1, 100, &v, err, errlen)) < 0)
		return -1;
	if (r)
		m->zswap_accept_threshold = (uint32_t)v;
	return setup_yn(rec, "zswap.shrinker_enabled", &m->zswap_shrinker, err, errlen) < 0 ? -1 : 0;
}

/* memory.high (v2), unless "max" or above any machine. */
static int machine_mem_high(const struct check_recording *rec, struct check_machine *m, char *err,
			    size_t errlen)
{
	long long v;
	const struct check_entry *high = find(rec, SEC_SETUP, "memcg_high_bytes");
	if (!high || !strcmp(high->value, "max"))
		return 0;
	if (setup_int(rec, "memcg_high_bytes", 4096, LLONG_MAX, &v, err, errlen) < 0)
		return -1;
	if ((uint64_t)v / 4096 <= SWS_MM_MAX_RAM_PAGES)
		m->mem_high_pages = (uint64_t)v / 4096;
	return 0;
}

/* anon mTHP: each size's policy, "inherit" taking transparent_hugepage/
 * enabled's ("always" or "madvise"); "madvise" sizes apply where the trace
 * madvise()d MADV_HUGEPAGE */
static void machine_mthp(const struct check_recording *rec, struct check_machine *m)
{
	char key[64];
	const struct check_entry *thp = find(rec, SEC_SETUP, "thp.enabled");
	const char *top = thp ? thp->value : "never";
	for (unsigned o = 1; o < SWS_NR_ORDERS; o++) {
		snprintf(key, sizeof(key), "mthp.%ukB.enabled", 4u << o);
		const struct check_entry *e = find(rec, SEC_SETUP, key);
		const char *v = !e ? "never" : !strcmp(e->value, "inherit") ? top : e->value;
		if (!strcmp(v, "always"))
			m->anon_orders |= 1u << o;
		else if (!strcmp(v, "madvise"))
			m->anon_orders_madvise |= 1u << o;
	}
	const struct check_entry *defrag = find(rec, SEC_SETUP, "thp.defrag");
	for (unsigned d = 0; defrag && d < SWS_THP_DEFRAG_NR; d++)
		if (!strcmp(defrag->value, sws_thp_defrag_name((enum sws_thp_defrag)d)))
			m->thp_defrag = d;
}

int check_machine_get(const struct check_recording *rec, struct check_machine *m, char *err,
		      size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (machine_memory(rec, m, err, errlen) || machine_swap(rec, m, err, errlen) ||
	    machine_cpus_and_cgroup(rec, m, err, errlen) || machine_zswap(rec, m, err, errlen) ||
	    machine_mem_high(rec, m, err, errlen))
		return -1;
	machine_mthp(rec, m);
	/* the perf trace tells page cache writes from others (a device, O_DIRECT) */
	const struct check_entry *ev = find(rec, SEC_SETUP, "perf_events");
	m->dirty_events = !rec->accesses && ev && strstr(ev->value, "writeback:writeback_dirty_folio");
	const struct check_entry *kv = find(rec, SEC_SETUP, "kernel");
	design_of(kv ? kv->value : NULL, m);
	return 0;
}

/* ---- the comparison -------------------------------------------------------------- */

struct place {
	const char *section, *key, *label;
};

/* Kernel counter beside model counter; @core rows are shown even when both are 0. */
/* clang-format off */
#define VM(k) {SEC_VMSTAT, k, "vmstat"}
#define MC(k) {SEC_MEMCG, k, "memcg"}
#define ZS(k) {SEC_ZSWAP, k, "zswap"}
/* the memcg's own figure where it has one, else the machine's */
#define EITHER(k, model, core) {k, SWS_MM_##model, core, {MC(k), VM(k)}, 0}
/* an anon figure: the model's count of both types less its page cache's */
#define ANON(k, model) {k, SWS_MM_##model, false, {MC(k), VM(k)}, SWS_MM_##model##_file + 1}
static const struct counter_row {
	const char *name;
	enum sws_mm_counter model;
	bool core;
	struct place from[3];
	unsigned less; /* the model counter + 1 subtracted from it; 0: none */
} counters[] = {
	{"pswpin", SWS_MM_pswpin, true, {VM("pswpin")}, 0},
	{"pswpout", SWS_MM_pswpout, true, {VM("pswpout")}, 0},
	{"swap_ra", SWS_MM_swap_ra, true, {VM("swap_ra")}, 0},
	{"swap_ra_hit", SWS_MM_swap_ra_hit, true, {VM("swap_ra_hit")}, 0},
	EITHER("pgmajfault", pgmajfault, true),
	EITHER("pgfault", pgfault, true),
	EITHER("swpin_zero", swpin_zero, false),
	EITHER("swpout_zero", swpout_zero, false),
	EITHER("zswpout", zswpout, false),
	EITHER("zswpin", zswpin, false),
	EITHER("zswpwb", zswpwb, false),
	EITHER("workingset_refault_anon", workingset_refault, false),
	EITHER("workingset_activate_anon", workingset_activate, false),
	ANON("pgscan_anon", pgscan),
	ANON("pgsteal_anon", pgsteal),
	EITHER("pgscan_file", pgscan_file, false),
	EITHER("pgsteal_file", pgsteal_file, false),
	EITHER("workingset_refault_file", workingset_refault_file, false),
	EITHER("workingset_activate_file", workingset_activate_file, false),
	EITHER("thp_swpout", thp_swpout, false),
	EITHER("thp_swpout_fallback", thp_swpout_fallback, false),
	{"memcg_high", SWS_MM_memcg_high, false, {{SEC_EVENTS, "events.high", "memcg"}}, 0},
	{"oom_kill", SWS_MM_oom_kill, false,
	 {{SEC_EVENTS, "events.oom_kill", "memcg"}, {SEC_EVENTS, "oom_control.oom_kill", "memcg"},
	  VM("oom_kill")}, 0},
	{"written_back_pages", SWS_MM_written_back_pages, false, {ZS("written_back_pages")}, 0},
	{"pool_limit_hit", SWS_MM_pool_limit_hit, false, {ZS("pool_limit_hit")}, 0},
	{"reject_compress_poor", SWS_MM_reject_compress_poor, false, {ZS("reject_compress_poor")}, 0},
	{"reject_reclaim_fail", SWS_MM_reject_reclaim_fail, false, {ZS("reject_reclaim_fail")}, 0},
};
#undef EITHER
#undef ANON
#undef ZS
#undef MC
#undef VM
/* clang-format on */

struct row {
	char name[40];
	const char *source;
	long long kernel;
	uint64_t sim;
	bool have_diff;
	double diff;
};

/* Fill @r from kernel entry @e and the model's @sim: false when both are 0 and
 * the row is no @core one (not printed). */
static bool add_row(struct row *r, const char *name, const char *source, const struct check_entry *e,
		    uint64_t sim, bool core)
{
	*r = (struct row){.source = source, .kernel = strtoll(e->value, NULL, 10), .sim = sim};
	snprintf(r->name, sizeof(r->name), "%s", name);
	if (!core && !r->kernel && !r->sim)
		return false;
	if (r->kernel > 0 || (!r->kernel && !r->sim)) {
		r->have_diff = true;
		r->diff = r->kernel ? ((double)r->sim - (double)r->kernel) * 100.0 / (double)r->kernel : 0;
	}
	return true;
}

/* The rows to print: every counter the recording has (both 0: core ones only). */
static unsigned rows_of(const struct check_recording *rec, const struct sws_replay_report *rep,
			struct row *rows)
{
	unsigned n = 0;
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		const struct counter_row *c = &counters[i];
		const struct check_entry *e = NULL;
		const char *label = NULL;
		for (unsigned k = 0; k < 3 && c->from[k].section && !e; k++)
			if ((e = find(rec, c->from[k].section, c->from[k].key)))
				label = c->from[k].label;
		if (!e)
			continue;
		uint64_t sim = rep->mm.counters[c->model] - (c->less ? rep->mm.counters[c->less - 1] : 0);
		if (add_row(&rows[n], c->name, label, e, sim, c->core))
			n++;
	}
	/* mTHP's per-size counters (6.8+): 64kB.swpout beside the model's order-4 swpout */
	for (unsigned o = 1; o < SWS_NR_ORDERS; o++) {
		static const char *const stat[] = {"anon_fault_alloc", "anon_fault_fallback",
						   "anon_fault_fallback_charge", "swpout", "swpout_fallback",
						   "swpin", "swpin_fallback", "swpin_fallback_charge"};
		const uint64_t sim[] = {rep->mm.anon_fault_alloc[o], rep->mm.anon_fault_fallback[o],
					rep->mm.anon_fault_fallback_charge[o], rep->mm.swpout[o],
					rep->mm.swpout_fallback[o], rep->mm.swpin[o], rep->mm.swpin_fallback[o],
					rep->mm.swpin_fallback_charge[o]};
		for (unsigned k = 0; k < sizeof(stat) / sizeof(stat[0]); k++) {
			char key[40];
			snprintf(key, sizeof(key), "%ukB.%s", 4u << o, stat[k]);
			const struct check_entry *e = find(rec, SEC_MTHP, key);
			if (e && add_row(&rows[n], key, "mthp", e, sim[k], false))
				n++;
		}
	}
	return n;
}

static const char *setup_str(const struct check_recording *rec, const char *key, const char *dflt)
{
	const struct check_entry *e = find(rec, SEC_SETUP, key);
	return e ? e->value : dflt;
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* @kib as "N MiB" where whole, else "N KiB". */
static const char *kib_str(uint64_t kib, char *buf, size_t len)
{
	if (kib && !(kib % 1024))
		snprintf(buf, len, "%llu MiB", (unsigned long long)kib / 1024);
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)kib);
	return buf;
}

static void print_machine(const struct check_recording *rec, const struct check_machine *m,
			  FILE *out)
{
	fprintf(out, "%-12s Linux %s, %s CPUs, RAM %s kB, cgroup %s\n", "kernel",
		setup_str(rec, "kernel", "?"), setup_str(rec, "cpus", "?"),
		setup_str(rec, "ram_kb", "?"), setup_str(rec, "cgroup", "?"));
	char b[40];
	if (m->mem_limit_pages)
		fprintf(out, "%-12s memcg limit %s", "machine",
			kib_str(m->mem_limit_pages * 4, b, sizeof(b)));
	else
		fprintf(out, "%-12s no memcg limit", "machine");
	for (unsigned i = 0; i < m->nswap; i++) {
		char key[48];
		snprintf(key, sizeof(key), "swap.%u.path", i + 1);
		fprintf(out, "; swap %s %s %s", setup_str(rec, key, "?"),
			sws_replay_swap_kind_name(m->swap[i].kind),
			kib_str(m->swap[i].pages * 4, b, sizeof(b)));
		if (m->swap[i].prio >= 0)
			fprintf(out, " prio %d", m->swap[i].prio);
	}
	if (m->page_cluster)
		fprintf(out, "; page-cluster %u", m->page_cluster - 1);
	if (m->mem_high_pages)
		fprintf(out, "; memory.high %s", kib_str(m->mem_high_pages * 4, b, sizeof(b)));
	if (m->anon_orders) {
		fprintf(out, "; mTHP");
		for (unsigned k = SWS_NR_ORDERS; k-- > 1;)
			if (m->anon_orders & 1u << k)
				fprintf(out, " %s", kib_str(4ull << k, b, sizeof(b)));
	}
	if (m->anon_orders_madvise) {
		fprintf(out, "; mTHP madvise");
		for (unsigned k = SWS_NR_ORDERS; k-- > 1;)
			if (m->anon_orders_madvise & 1u << k)
				fprintf(out, " %s", kib_str(4ull << k, b, sizeof(b)));
	}
	if (m->thp_defrag) /* the default, madvise, unsaid */
		fprintf(out, "; THP defrag %s", sws_thp_defrag_name((enum sws_thp_defrag)m->thp_defrag));
	if (m->zswap)
		fprintf(out, "; zswap %s%s%s", m->zswap_compressor, *m->zswap_note ? ": " : "",
			m->zswap_note);
	else
		fprintf(out, "; zswap off");
	fputc('\n', out);
}

/*
 * The run's times: the recorded command's CPU time (user and system, from
 * its cgroup: swapsim-record's cpu_user_us and cpu_system_us) and elapsed
 * time (duration_s) against the replay's (the clock its report names).
 */
struct time_row {
	const char *name;
	double kernel_s, sim_s;
	bool have_kernel;
};

static unsigned time_rows(const struct check_recording *rec, const struct sws_replay_report *rep,
			  struct time_row *t)
{
	static const struct {
		const char *name, *key;
		double scale; /* the recorded value in seconds */
	} keys[] = {{"system time (s)", "cpu_system_us", 1e-6},
		    {"user time (s)", "cpu_user_us", 1e-6},
		    {"elapsed time (s)", "duration_s", 1}};
	const double sim[] = {(double)rep->time.sys_ns / 1e9, (double)rep->time.user_ns / 1e9,
			      (double)rep->time.elapsed_ns / 1e9};
	for (unsigned i = 0; i < 3; i++) {
		const char *v = setup_str(rec, keys[i].key, NULL);
		char *e = NULL;
		double k = v ? strtod(v, &e) : 0;
		t[i] = (struct time_row){keys[i].name, k * keys[i].scale, sim[i], v && e != v && !*e && k >= 0};
	}
	return 3;
}

static void time_diff(const struct time_row *t, char *buf, size_t len)
{
	if (t->have_kernel && t->kernel_s > 0)
		snprintf(buf, len, "%+.1f%%", 100 * (t->sim_s / t->kernel_s - 1));
	else
		snprintf(buf, len, "n/a");
}

/* The comparison as a table: the recording, the machine, then counters and times. */
static void print_table(const struct check_recording *rec, const struct check_machine *m, const char *cmdline,
			const struct sws_replay_report *rep, const struct row *rows, unsigned n, FILE *out)
{
	fprintf(out, "%-12s %s\n%-12s %s%s\n", "recording", rec->path, "trace", rec->trace,
		rec->accesses ? " (every access, valgrind lackey)" : "");
	print_machine(rec, m, out);
	fprintf(out, "%-12s %s\n", "design", m->backend_why);
	fprintf(out, "%-12s %s\n", "replayed as", cmdline);
	if (rep->errors)
		fprintf(out,
			"%-12s %llu records the model refused (first: %s; the report: "
			"--report json)\n",
			"errors", (unsigned long long)rep->errors,
			sws_error_name(rep->first_error));
	int w = 26; /* the name column: 26 wide, or the longest name's */
	for (unsigned i = 0; i < n; i++)
		if ((int)strlen(rows[i].name) > w)
			w = (int)strlen(rows[i].name);
	fprintf(out, "\n%-*s %-7s %14s %14s %9s\n", w, "counter", "source", "kernel", "simulator", "diff");
	for (unsigned i = 0; i < n; i++) {
		char d[32];
		if (rows[i].have_diff)
			snprintf(d, sizeof(d), "%+.1f%%", rows[i].diff);
		else
			snprintf(d, sizeof(d), "n/a");
		fprintf(out, "%-*s %-7s %14lld %14llu %9s\n", w, rows[i].name, rows[i].source,
			rows[i].kernel, (unsigned long long)rows[i].sim, d);
	}
	fprintf(out, "(kernel: the recording's deltas; memcg: the recorded command's own, "
		     "vmstat: the whole "
		     "machine's)\n");
	struct time_row t[3];
	unsigned nt = time_rows(rec, rep, t);
	fprintf(out, "\n%-*s %-7s %14s %14s %9s\n", w, "time", "clock", "kernel", "simulator", "diff");
	for (unsigned i = 0; i < nt; i++) {
		char k[32], d[32];
		if (t[i].have_kernel)
			snprintf(k, sizeof(k), "%.6f", t[i].kernel_s);
		else
			snprintf(k, sizeof(k), "n/a");
		time_diff(&t[i], d, sizeof(d));
		fprintf(out, "%-*s %-7s %14s %14.6f %9s\n", w, t[i].name, sws_replay_clock_name(rep->clock), k,
			t[i].sim_s, d);
	}
	fprintf(out, "(kernel: the recorded command's cgroup CPU time and its run under perf, "
		     "which adds its own cost to every fault; n/a: not recorded)\n");
}

/* The comparison as one JSON object, the replay's own report under "report". */
static void print_json(const struct check_recording *rec, const struct check_machine *m, const char *cmdline,
		       const struct sws_replay_report *rep, const struct row *rows, unsigned n,
		       const char *report_json, FILE *out)
{
	fprintf(out, "{\"swapsim_check\":{\"recording\":");
	json_str(out, rec->path);
	fprintf(out, ",\"trace\":");
	json_str(out, rec->trace);
	fprintf(out, ",\"accesses\":%s", rec->accesses ? "true" : "false");
	fprintf(out, ",\"setup\":{");
	bool first = true;
	for (unsigned i = 0; i < rec->n; i++) {
		if (strcmp(rec->e[i].section, SEC_SETUP))
			continue;
		fprintf(out, first ? "" : ",");
		first = false;
		json_str(out, rec->e[i].key);
		fputc(':', out);
		if (is_integer(rec->e[i].value) && strlen(rec->e[i].value) < 16)
			fprintf(out, "%s", rec->e[i].value);
		else
			json_str(out, rec->e[i].value);
	}
	fprintf(out, "},\"design\":\"%s\",\"design_reason\":", sws_backend_name(rep->backend));
	json_str(out, m->backend_why);
	fprintf(out, ",\"replayed_as\":");
	json_str(out, cmdline);
	fprintf(out, ",\"errors\":%llu,\"first_error\":\"%s\",\"counters\":[",
		(unsigned long long)rep->errors,
		rep->first_error ? sws_error_name(rep->first_error) : "");
	for (unsigned i = 0; i < n; i++) {
		fprintf(out,
			"%s{\"name\":\"%s\",\"source\":\"%s\",\"kernel\":%lld,\"simulator\":%llu,"
			"\"diff_pct\":",
			i ? "," : "", rows[i].name, rows[i].source, rows[i].kernel,
			(unsigned long long)rows[i].sim);
		if (rows[i].have_diff)
			fprintf(out, "%.2f}", rows[i].diff);
		else
			fprintf(out, "null}");
	}
	struct time_row t[3];
	unsigned nt = time_rows(rec, rep, t);
	fprintf(out, "],\"clock\":\"%s\",\"times\":[", sws_replay_clock_name(rep->clock));
	for (unsigned i = 0; i < nt; i++) {
		fprintf(out, "%s{\"name\":\"%s\",\"kernel_s\":", i ? "," : "", t[i].name);
		if (t[i].have_kernel)
			fprintf(out, "%.6f", t[i].kernel_s);
		else
			fprintf(out, "null");
		fprintf(out, ",\"simulator_s\":%.6f,\"diff_pct\":", t[i].sim_s);
		if (t[i].have_kernel && t[i].kernel_s > 0)
			fprintf(out, "%.2f}", 100 * (t[i].sim_s / t[i].kernel_s - 1));
		else
			fprintf(out, "null}");
	}
	fprintf(out, "]},\"report\":%s}\n", report_json ? report_json : "null");
}

int check_print(const struct check_recording *rec, const struct check_machine *m,
		const char *cmdline, const struct sws_replay_report *rep, bool json,
		const char *report_json, FILE *out)
{
	struct row rows[sizeof(counters) / sizeof(counters[0]) + 8 * SWS_NR_ORDERS];
	unsigned n = rows_of(rec, rep, rows);
	if (json)
		print_json(rec, m, cmdline, rep, rows, n, report_json, out);
	else
		print_table(rec, m, cmdline, rep, rows, n, out);
	return ferror(out) ? -1 : 0;
}

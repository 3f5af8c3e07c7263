/*
 * machine.c - the machine a replay runs on, built from its configuration: a
 * simulation with the chosen backend, the swap devices (one table below
 * describes every device kind: its flags and latency), the memory model, the
 * workload's memcg, zswap and xswap devices; and its teardown.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay_internal.h"

#define DEFAULT_RAM_PAGES (1ull << 18)
#define DEFAULT_DEFERRED 1024
#define DEFAULT_KSWAPD 1024
#define DEFAULT_QUEUE 4096
#define DEFAULT_PROGRESS 65536
#define MAX_THREADS 128

/*
 * Device kinds: name, the kernel flags they swap on with, latency per page
 * (service time), and the modelled clock's queue depth: the requests the
 * device serves at once, read as its 4 KiB random IOPS at queue depth 32
 * times its latency (an NVMe drive of ~1M IOPS at ~25 us: 32; a SATA SSD of
 * ~90K IOPS at ~60-100 us: 8; a disk: one at a time). pmem and zram have no
 * queue: the CPU that submits does the copy or the compression.
 */
static const struct swap_kind {
	const char *name;
	uint32_t flags;
	uint64_t read_ns, write_ns;
	uint32_t queue;
} kinds[SWS_REPLAY_NR_SWAP_KINDS] = {
	[SWS_REPLAY_SWAP_SSD] = {"ssd", SWS_SWP_SOLIDSTATE, 20000, 25000, 32},
	[SWS_REPLAY_SWAP_HDD] = {"hdd", 0, 5000000, 5000000, 1},
	[SWS_REPLAY_SWAP_ZRAM] = {"zram", SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO, 2000, 3000, 0},
	[SWS_REPLAY_SWAP_PMEM] = {"pmem", SWS_SWP_SOLIDSTATE | SWS_SWP_SYNCHRONOUS_IO, 1000, 2000, 0},
	[SWS_REPLAY_SWAP_SATA] = {"sata", SWS_SWP_SOLIDSTATE, 100000, 60000, 8},
	[SWS_REPLAY_SWAP_XSWAP] = {"xswap", 0, 0, 0, 0}, /* sws_mm_xswap_create(): no storage */
};

uint32_t sws_replay_swap_kind_queue(enum sws_replay_swap_kind kind)
{
	return (unsigned)kind < SWS_REPLAY_NR_SWAP_KINDS ? kinds[kind].queue : 0;
}

const char *sws_replay_clock_name(enum sws_replay_clock c)
{
	return c == SWS_REPLAY_CLOCK_MODEL ? "model" : c == SWS_REPLAY_CLOCK_HOST ? "host" : "";
}

const char *sws_replay_swap_kind_name(enum sws_replay_swap_kind kind)
{
	return (unsigned)kind < SWS_REPLAY_NR_SWAP_KINDS ? kinds[kind].name : "";
}

int sws_replay_swap_kind_parse(const char *name, enum sws_replay_swap_kind *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	if (!strcmp(name, "nvme")) {
		*out = SWS_REPLAY_SWAP_SSD;
		return 0;
	}
	for (unsigned k = 0; k < SWS_REPLAY_NR_SWAP_KINDS; k++) {
		if (!strcmp(name, kinds[k].name)) {
			*out = (enum sws_replay_swap_kind)k;
			return 0;
		}
	}
	return SWS_EINVAL;
}

/* zswap's defaults (swapsim/zswap.h): what a zero field of sws_zswap_config means. */
#define ZSWAP_DEFAULT_COMPRESSOR "lz4"
#define ZSWAP_DEFAULT_POOL_PERCENT 20
#define ZSWAP_DEFAULT_ACCEPT_PERCENT 90
#define DEFAULT_PAGE_CLUSTER 3 /* vm.page-cluster's default (sws_mm_config) */

void sws__replay_setup(const struct sws_replay *r, struct sws_replay_setup *out)
{
	const struct sws_replay_config *c = &r->cfg;
	memset(out, 0, sizeof(*out));
	out->clock = c->clock;
	out->cpus = r->nthreads;
	out->ram_pages = c->ram_pages;
	out->mem_limit_pages = c->mem_limit_pages;
	out->cgroup = c->zswap.cgroup == SWS_ZSWAP_CGROUP_V1 ? 1 : 2;
	out->page_cluster = c->page_cluster ? c->page_cluster - 1 : DEFAULT_PAGE_CLUSTER;
	out->anon_orders = c->anon_orders;
	out->anon_orders_madvise = c->anon_orders_madvise;
	out->mem_high_pages = c->mem_high_pages;
	out->memcg_swap_tiers = c->memcg_swap_tiers;
	out->thp_defrag = c->thp_defrag;
	out->policy = c->policy;
	out->flags = c->flags;
	out->seed = c->seed;
	out->user_bandwidth = c->user_bandwidth;
	memcpy(out->content_weight, c->content_weight, sizeof(out->content_weight));
	out->swapoff_device = c->swapoff_device;
	out->nr_swap = c->nr_swap;
	for (uint32_t i = 0; i < c->nr_swap; i++) {
		struct sws_replay_swap *sw = &out->swap[i];
		*sw = c->swap[i];
		if (sw->kind == SWS_REPLAY_SWAP_XSWAP)
			continue; /* sized by RAM, no storage */
		if (!sw->pages)
			sw->pages = 2 * c->ram_pages;
		if (!sw->read_ns)
			sw->read_ns = kinds[sw->kind].read_ns;
		if (!sw->write_ns)
			sw->write_ns = kinds[sw->kind].write_ns;
	}
	if (c->flags & SWS_REPLAY_ZSWAP) {
		snprintf(out->zswap_compressor, sizeof(out->zswap_compressor), "%s",
			 c->zswap.compressor ? c->zswap.compressor : ZSWAP_DEFAULT_COMPRESSOR);
		out->zswap_max_pool_percent = c->zswap.max_pool_percent ? c->zswap.max_pool_percent
									 : ZSWAP_DEFAULT_POOL_PERCENT;
		out->zswap_accept_threshold_percent = c->zswap.accept_threshold_percent
							      ? c->zswap.accept_threshold_percent
							      : ZSWAP_DEFAULT_ACCEPT_PERCENT;
		out->zswap_flags = c->zswap.flags;
	}
}

uint64_t sws__replay_now(const struct sws_replay *r)
{
	if (r->has_env && r->env.clock_ns)
		return r->env.clock_ns(r->env.clock_ctx);
	return sws_default_clock_ns();
}

static void create_error(const struct sws_replay_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void create_error(const struct sws_replay_config *cfg, const char *fmt, ...)
{
	if (!cfg->errbuf || !cfg->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cfg->errbuf, cfg->errlen, fmt, ap);
	va_end(ap);
}

static bool swap_ok(const struct sws_replay_swap *sw)
{
	if ((unsigned)sw->kind >= SWS_REPLAY_NR_SWAP_KINDS || (sw->swap_flags & ~SWS_REPLAY_SWAP_DISCARD) ||
	    ((sw->swap_flags & SWS_REPLAY_SWAP_DISCARD) && !(kinds[sw->kind].flags & SWS_SWP_SOLIDSTATE)) ||
	    (sw->file_flags & ~(SWS_BACKING_REUSE | SWS_BACKING_FOLLOW | SWS_BACKING_UNLINK)) ||
	    sw->prio < -1 ||
	    sw->prio > 32767 || sw->pages == 1)
		return false;
	if (sw->kind == SWS_REPLAY_SWAP_XSWAP) /* sized by RAM, no storage; no tier */
		return !sw->pages && !sw->path && !sw->read_ns && !sw->write_ns && !sw->tier;
	return !sw->limit_pages;
}

static int check_config(const struct sws_replay_config *cfg)
{
	const uint32_t flags = SWS_REPLAY_VERIFY | SWS_REPLAY_ZSWAP | SWS_REPLAY_READ_POPULATES |
			       SWS_REPLAY_MEMCG_PER_TASK | SWS_REPLAY_MEMCG_OFF | SWS_REPLAY_USER_RAM |
			       SWS_REPLAY_TRACE_ORDER;
	if (cfg->version > SWS_REPLAY_CONFIG_VERSION ||
	    (cfg->env && cfg->env->version > SWS_ENV_VERSION))
		return SWS_EVERSION;
	if (cfg->threads > MAX_THREADS || cfg->cpus > SWS_REPLAY_MAX_CPUS ||
	    (unsigned)cfg->clock > SWS_REPLAY_CLOCK_HOST || (cfg->ram_pages && cfg->ram_pages < 64) ||
	    (cfg->queue_depth && cfg->queue_depth < 64) || cfg->nr_swap > SWS_REPLAY_MAX_SWAP ||
	    (cfg->sample && !cfg->sample_every) || (cfg->flags & ~flags) ||
	    ((cfg->flags & SWS_REPLAY_MEMCG_PER_TASK) && !cfg->mem_limit_pages) ||
	    ((cfg->flags & SWS_REPLAY_MEMCG_OFF) && (cfg->mem_limit_pages || cfg->mem_high_pages)) ||
	    (cfg->memcg_swap_tiers && !cfg->mem_limit_pages && !cfg->mem_high_pages))
		return SWS_EINVAL;
	for (uint32_t i = 0; i < cfg->nr_swap; i++)
		if (!swap_ok(&cfg->swap[i]) || cfg->swap[i].queue_depth > SWS_DEVICE_MAX_QUEUE)
			return SWS_EINVAL;
	uint32_t nsw = cfg->nr_swap ? cfg->nr_swap : 1;
	if (cfg->swapoff_device > nsw ||
	    (cfg->swapoff_device && cfg->nr_swap && cfg->swap[cfg->swapoff_device - 1].kind == SWS_REPLAY_SWAP_XSWAP))
		return SWS_EINVAL; /* no such device, or an xswap one (destroyed by its own interface) */
	return 0;
}

unsigned sws__replay_tiers(const struct sws_replay_swap *swap, uint32_t n,
			   const char *names[SWS_SWAP_NR_TIERS])
{
	unsigned nt = 0;
	for (uint32_t i = 0; i < n; i++) {
		unsigned k = 0;
		while (swap[i].tier && k < nt && strcmp(names[k], swap[i].tier))
			k++;
		if (swap[i].tier && k == nt && nt < SWS_SWAP_NR_TIERS)
			names[nt++] = swap[i].tier;
	}
	return nt;
}

/* The swap tiers of the devices (sws_swap_tier_add(), in order of first
 * mention), and memcg_swap_tiers as a mask of them. */
static int add_tiers(struct sws_replay *r)
{
	const char *names[SWS_SWAP_NR_TIERS];
	unsigned nt = sws__replay_tiers(r->cfg.swap, r->cfg.nr_swap, names), id;
	for (unsigned k = 0; k < nt; k++) {
		int err = sws_swap_tier_add(r->sim, names[k], &id);
		if (err) {
			create_error(&r->cfg, "swap tier '%s': %s", names[k], sws_strerror(err));
			return err;
		}
	}
	const char *s = r->cfg.memcg_swap_tiers;
	while (s && *s) {
		size_t len = strcspn(s, ",");
		char name[SWS_SWAP_TIER_NAME_MAX];
		int t = SWS_ENOENT;
		if (len < sizeof(name)) {
			memcpy(name, s, len);
			name[len] = 0;
			t = sws_swap_tier_lookup(r->sim, name);
		}
		if (t < 0) {
			create_error(&r->cfg, "memcg_swap_tiers: '%.*s' is no device's swap tier", (int)len, s);
			return SWS_EINVAL;
		}
		r->memcg_tiers |= 1u << t;
		s += len + (s[len] == ',');
	}
	return 0;
}

/* Swap on device @i of the configuration (not xswap: it comes after zswap). */
static int swapon_one(struct sws_replay *r, uint32_t i)
{
	const struct sws_replay_swap *sw = &r->cfg.swap[i];
	const struct swap_kind *k = &kinds[sw->kind];
	int tier = sw->tier ? sws_swap_tier_lookup(r->sim, sw->tier) : 0;
	struct sws_device_config dc = {
		.version = SWS_DEVICE_CONFIG_VERSION,
		.flags = k->flags | (sw->prio >= 0 ? SWS_SWAP_FLAG_PREFER : 0) |
			 (sw->swap_flags & SWS_REPLAY_SWAP_DISCARD ? SWS_SWP_PAGE_DISCARD : 0),
		.nr_slots = sw->pages ? sw->pages : 2 * r->cfg.ram_pages,
		.prio = sw->prio >= 0 ? sw->prio : 0,
		.backing = sw->path ? SWS_BACKING_FILE
				    : (r->cfg.flags & SWS_REPLAY_VERIFY) ? SWS_BACKING_MEMORY : SWS_BACKING_NONE,
		.path = sw->path,
		/* A file the replay creates is scratch: removed at swapoff, which
		 * sws_replay_destroy() and every failure of sws_replay_create() reach. */
		.backing_flags = sw->file_flags | SWS_BACKING_UNLINK,
		.tier = tier > 0 ? (uint32_t)tier : SWS_SWAP_TIER_NONE};
	int err = tier < 0 ? SWS_EINVAL : sws_swapon(r->sim, &dc, &r->types[i]);
	if (err)
		create_error(&r->cfg, "swap device %u: %s", i + 1,
			     *sws_sim_error(r->sim) ? sws_sim_error(r->sim) : sws_strerror(err));
	return err;
}

static void set_latency(struct sws_replay *r, uint32_t i)
{
	const struct sws_replay_swap *sw = &r->cfg.swap[i];
	const struct swap_kind *k = &kinds[sw->kind];
	sws_mm_set_latency(r->mm, r->types[i], sw->read_ns ? sw->read_ns : k->read_ns,
			   sw->write_ns ? sw->write_ns : k->write_ns);
	if (r->model)
		sws_device_set_queue(r->sim, r->types[i], sw->queue_depth ? sw->queue_depth : k->queue);
	if (sw->kind == SWS_REPLAY_SWAP_ZRAM)
		sws_mm_set_zram(r->mm, r->types[i]);
}

static int xswap_one(struct sws_replay *r, uint32_t i)
{
	const struct sws_replay_swap *sw = &r->cfg.swap[i];
	int err = sws_mm_xswap_create(r->mm, sw->prio, &r->types[i]);
	if (!err && sw->limit_pages)
		err = sws_xswap_limit_set(r->sim, r->types[i], sw->limit_pages);
	if (err)
		create_error(&r->cfg, "swap device %u (xswap): %s", i + 1, sws_strerror(err));
	return err;
}

static void worker_init(struct sws_replay *r, struct sws__worker *w, unsigned idx)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
	w->idx = idx;
}

/* The configuration with every default filled in. */
static void set_defaults(struct sws_replay *r)
{
	struct sws_replay_config *c = &r->cfg;
	r->model = c->clock == SWS_REPLAY_CLOCK_MODEL;
	r->nthreads = c->threads ? c->threads : 1;
	if (r->model) { /* the workers are the simulated CPUs */
		r->nthreads = c->cpus ? c->cpus : r->nthreads;
		if (c->costs)
			r->costs = *c->costs;
		else
			sws_costs_default(&r->costs);
		c->costs = &r->costs;
		if (!c->sync_quantum_ns)
			c->sync_quantum_ns = SWS_REPLAY_SYNC_QUANTUM_NS;
		else if (c->sync_quantum_ns == UINT64_MAX)
			c->sync_quantum_ns = 0;
	}
	if (!c->ram_pages)
		c->ram_pages = DEFAULT_RAM_PAGES;
	if (!c->deferred_every)
		c->deferred_every = DEFAULT_DEFERRED;
	if (!c->kswapd_budget)
		c->kswapd_budget = DEFAULT_KSWAPD;
	if (!c->queue_depth)
		c->queue_depth = DEFAULT_QUEUE;
	if (!c->progress_every)
		c->progress_every = DEFAULT_PROGRESS;
	if (!c->user_bandwidth)
		c->user_bandwidth = SWS_REPLAY_USER_BANDWIDTH;
	r->user_ns_per_page = (uint64_t)SWS_PAGE_SIZE * 1000000000ull / c->user_bandwidth;
	if (!c->nr_swap) {
		c->nr_swap = 1;
		c->swap[0] = (struct sws_replay_swap){.kind = SWS_REPLAY_SWAP_SSD, .prio = -1};
	}
}

/* Everything after the simulation exists: devices, the memory model, memcg, zswap, xswap. */
static int build(struct sws_replay *r)
{
	const struct sws_replay_config *cfg = &r->cfg;
	int err;
	if ((err = add_tiers(r)))
		return err;
	for (uint32_t i = 0; i < cfg->nr_swap; i++)
		if (cfg->swap[i].kind != SWS_REPLAY_SWAP_XSWAP && (err = swapon_one(r, i)))
			return err;
	struct sws_mm_config mc = {.version = SWS_MM_CONFIG_VERSION,
				   .policy = cfg->policy,
				   .ram_pages = cfg->ram_pages,
				   .page_cluster = cfg->page_cluster,
				   .flags = ((cfg->flags & SWS_REPLAY_VERIFY) ? SWS_MM_VERIFY : 0) |
					    ((cfg->flags & SWS_REPLAY_READ_POPULATES) ? SWS_MM_READ_POPULATES : 0) |
					    ((cfg->flags & SWS_REPLAY_USER_RAM) ? 0 : SWS_MM_KERNEL_RAM),
				   .seed = cfg->seed,
				   .anon_orders = cfg->anon_orders,
				   .anon_orders_madvise = cfg->anon_orders_madvise,
				   .thp_defrag = cfg->thp_defrag};
	memcpy(mc.content_weight, cfg->content_weight, sizeof(mc.content_weight));
	if ((err = sws_mm_create(r->sim, &mc, &r->mm))) {
		create_error(&r->cfg, "memory model: %s", sws_strerror(err));
		return err;
	}
	for (uint32_t i = 0; i < cfg->nr_swap; i++)
		if (cfg->swap[i].kind != SWS_REPLAY_SWAP_XSWAP)
			set_latency(r, i);
	/* The workload's memcg (with SWS_REPLAY_MEMCG_PER_TASK each process makes
	 * its own as it starts: the ids that follow). */
	if ((cfg->mem_limit_pages || cfg->mem_high_pages) && !(cfg->flags & SWS_REPLAY_MEMCG_PER_TASK) &&
	    ((err = sws_mm_memcg_create(r->mm, cfg->mem_limit_pages, &r->memcg)) ||
	     (err = sws_mm_memcg_set_high(r->mm, r->memcg, cfg->mem_high_pages)) ||
	     (err = sws_mm_memcg_set_swap_tiers(r->mm, r->memcg, r->memcg_tiers))))
		return err;
	if ((cfg->flags & SWS_REPLAY_ZSWAP) && (err = sws_mm_zswap_enable(r->mm, &cfg->zswap))) {
		create_error(&r->cfg, "zswap: %s", sws_strerror(err));
		return err;
	}
	for (uint32_t i = 0; i < cfg->nr_swap; i++) /* xswap devices live in zswap */
		if (cfg->swap[i].kind == SWS_REPLAY_SWAP_XSWAP && (err = xswap_one(r, i)))
			return err;
	return 0;
}

int sws_replay_create(const struct sws_replay_config *cfg, struct sws_replay **out)
{
	struct sws_mem tmp;
	struct sws_replay *r;
	int err;

	if (!cfg || !out)
		return SWS_EINVAL;
	*out = NULL;
	if (cfg->errbuf && cfg->errlen)
		cfg->errbuf[0] = 0;
	if ((err = check_config(cfg))) {
		create_error(cfg, "invalid replay configuration (threads, RAM, queue, devices or flags)");
		return err;
	}
	sws__mem_init(&tmp, cfg->env ? &cfg->env->allocator : NULL);
	r = sws__mem_zalloc(&tmp, SWS_MEM_sim, sizeof(*r), 64);
	if (!r)
		return SWS_ENOMEM;
	sws__mem_init(&r->mem, cfg->env ? &cfg->env->allocator : NULL);
	atomic_store(&r->mem.bytes[SWS_MEM_sim], (int64_t)sizeof(*r));
	r->cfg = *cfg;
	if (cfg->env) {
		r->env = *cfg->env;
		r->cfg.env = &r->env;
		r->has_env = true;
	}
	pthread_mutex_init(&r->peaks.lock, NULL);
	set_defaults(r);
	r->workers = sws__mem_zalloc(&r->mem, SWS_MEM_sim, r->nthreads * sizeof(*r->workers), 64);
	if (!r->workers) {
		err = SWS_ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < r->nthreads; i++)
		worker_init(r, &r->workers[i], i);
	worker_init(r, &r->disp, r->nthreads);
	struct sws_sim_config scfg = {.version = SWS_SIM_CONFIG_VERSION,
				      .backend = cfg->backend,
				      .max_cpus = r->nthreads + 2,
				      .flags = cfg->flags & SWS_REPLAY_MEMCG_OFF ? SWS_SIM_MEMCG_OFF : 0,
				      .env = cfg->env};
	if ((err = sws_sim_create(&scfg, &r->sim)) || (err = build(r)))
		goto fail;
	*out = r;
	return 0;
fail:
	sws_replay_destroy(r);
	return err;
}

void sws_replay_destroy(struct sws_replay *r)
{
	if (!r)
		return;
	sws__stop_workers(r);
	sws_mm_destroy(r->mm);
	sws_sim_destroy(r->sim);
	if (r->workers) {
		for (unsigned i = 0; i < r->nthreads; i++) {
			struct sws__worker *w = &r->workers[i];
			if (w->ring) {
				sws__mem_free(&r->mem, SWS_MEM_sim, w->ring, w->nslots * sizeof(*w->ring));
				pthread_mutex_destroy(&w->lock);
				pthread_cond_destroy(&w->not_empty);
				pthread_cond_destroy(&w->not_full);
				pthread_cond_destroy(&w->idle);
			}
		}
		sws__mem_free(&r->mem, SWS_MEM_sim, r->workers, r->nthreads * sizeof(*r->workers));
	}
	sws__tasks_free(r);
	pthread_mutex_destroy(&r->peaks.lock);
	struct sws_mem m = {.a = r->mem.a};
	sws__mem_free(&m, SWS_MEM_sim, r, sizeof(*r));
}

struct sws_sim *sws_replay_sim(struct sws_replay *r) { return r ? r->sim : NULL; }
struct sws_mm *sws_replay_mm(struct sws_replay *r) { return r ? r->mm : NULL; }
const char *sws_replay_error(const struct sws_replay *r) { return r ? r->errmsg : ""; }

/*
 * space.c - the memory model's root: create/destroy, memcgs, address spaces
 * and their regions (VMAs), counters and the device latency model.
 */
#include <string.h>

#include "../xswap/xswap.h"
#include "../zswap/zswap_internal.h"
#include "mm_internal.h"

#define IMPLICIT_REGION (2ull << 20) /* a first touch outside regions maps 2 MiB */

const char *sws_mm_counter_name(enum sws_mm_counter c)
{
	static const char *const names[] = {
#define SWS__MMNAME(name, desc) #name,
		SWS_MM_COUNTER_LIST(SWS__MMNAME)
#undef SWS__MMNAME
	};
	return (unsigned)c < SWS_MM_NR_COUNTERS ? names[c] : "";
}

void sws__mm_default_latency(struct sws_mm *mm, unsigned type, const struct sws_device *d)
{
	mm->io_is_cpu[type] = d->flags & SWS_SWP_SYNCHRONOUS_IO;
	if (d->flags & SWS_SWP_XSWAP) {
		mm->read_ns[type] = 0, mm->write_ns[type] = 0; /* no device I/O: pages live in zswap */
	} else if (d->flags & SWS_SWP_SYNCHRONOUS_IO) {
		mm->read_ns[type] = 2000, mm->write_ns[type] = 3000; /* zram/pmem-like */
	} else if (d->flags & SWS_SWP_SOLIDSTATE) {
		mm->read_ns[type] = 20000, mm->write_ns[type] = 25000; /* NVMe */
	} else {
		mm->read_ns[type] = 5000000, mm->write_ns[type] = 5000000; /* HDD */
	}
}

int sws__mm_device_added(void *ctx, struct sws_device *dev)
{
	struct sws_mm *mm = ctx;
	unsigned t = (unsigned)dev->type;
	sws__mm_default_latency(mm, t, dev);
	mm->slot_seed[t] = sws__cluster_array_create(dev, &mm->seed_array[t], sizeof(uint64_t) * SWS_CLUSTER_SLOTS,
						     SWS_MEM_mm, 64);
	if (!mm->slot_seed[t])
		return SWS_ENOMEM;
	mm->slot_seed_len[t] = dev->max;
	int rc = mm->zswap ? sws__zswap_swapon(mm->zswap, t, dev->max) : 0;
	if (rc)
		sws__mm_device_removed(mm, dev);
	return rc;
}

void sws__mm_device_removed(void *ctx, struct sws_device *dev)
{
	struct sws_mm *mm = ctx;
	unsigned t = (unsigned)dev->type;
	if (mm->zswap)
		sws__zswap_swapoff(mm->zswap, t);
	sws__cluster_array_destroy(dev, &mm->seed_array[t]);
	mm->slot_seed[t] = NULL;
	mm->slot_seed_len[t] = 0;
}

int sws_mm_set_latency(struct sws_mm *mm, int type, uint64_t read_ns, uint64_t write_ns)
{
	if (!mm || type < 0 || !sws__device(mm->sim, (unsigned)type))
		return SWS_ENODEV;
	mm->read_ns[type] = read_ns;
	mm->write_ns[type] = write_ns;
	return 0;
}

int sws_mm_create(struct sws_sim *sim, const struct sws_mm_config *cfg, struct sws_mm **out)
{
	if (!sim || !cfg || !out)
		return SWS_EINVAL;
	if (cfg->version > SWS_MM_CONFIG_VERSION)
		return SWS_EVERSION;
	if (cfg->ram_pages < 64 || cfg->ram_pages > (1u << 30) || cfg->policy > SWS_RECLAIM_CLOCK ||
	    cfg->page_cluster > 32 ||
	    (cfg->flags & ~(SWS_MM_VERIFY | SWS_MM_NO_VMA_RA | SWS_MM_READ_POPULATES)))
		return SWS_EINVAL;
	struct sws_mem *mem = &sim->mem;
	struct sws_mm *mm = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm), 64);
	if (!mm)
		return SWS_ENOMEM;
	mm->sim = sim;
	mm->cfg = *cfg;
	mm->page_cluster = cfg->page_cluster ? cfg->page_cluster - 1 : 3;
	for (int c = 0; c < SWS_NR_CONTENT; c++)
		mm->content_total += (mm->content_weight[c] = cfg->content_weight[c]);
	if (!mm->content_total)
		mm->content_total = mm->content_weight[SWS_CONTENT_INDEX] = 1;
	if (!mm->cfg.wmark_low)
		mm->cfg.wmark_low = cfg->ram_pages / 50 > 16 ? cfg->ram_pages / 50 : 16;
	if (!mm->cfg.wmark_high || mm->cfg.wmark_high < mm->cfg.wmark_low)
		mm->cfg.wmark_high = mm->cfg.wmark_low * 2;
	mm->nr_pfn = (uint32_t)cfg->ram_pages + 65; /* PFN 0 is "none"; 64 for the reserves */
	atomic_init(&mm->free_pages, (int64_t)cfg->ram_pages);
	atomic_init(&mm->ra_hits, 4); /* the kernel starts with 4 readahead hits */
	sws_spin_init(&mm->pfn_lock);
	sws_spin_init(&mm->lru_lock);
	sws_spin_init(&mm->spaces_lock);
	mm->folios = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm->folios) * mm->nr_pfn, 64);
	mm->free_pfns = sws__mem_alloc(mem, SWS_MEM_mm, sizeof(*mm->free_pfns) * mm->nr_pfn, 0);
	mm->cap_memcgs = SWS_MM_MAX_MEMCGS;
	mm->memcgs = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm->memcgs) * mm->cap_memcgs, 64);
	mm->pcpu = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm->pcpu) * sim->max_cpus, 64);
	mm->spare_cpu = sws__cpu_alloc(sim); /* teardown must not depend on an allocation */
	int rc = mm->folios && mm->free_pfns && mm->memcgs && mm->pcpu && mm->spare_cpu ? 0 : SWS_ENOMEM;
	/* Our state for every device there is and every one to come. */
	sws_spin_lock(&sim->swap_lock);
	if (!rc && sim->device_added)
		rc = SWS_EBUSY; /* one memory model per simulation */
	for (unsigned t = 0; t < SWS_MAX_SWAPFILES && !rc; t++) {
		struct sws_device *d = sws__device(sim, t);
		if (d)
			rc = sws__mm_device_added(mm, d);
	}
	if (!rc) {
		sim->device_ctx = mm;
		sim->device_added = sws__mm_device_added;
		sim->device_removed = sws__mm_device_removed;
	}
	sws_spin_unlock(&sim->swap_lock);
	if (rc) {
		sws_mm_destroy(mm);
		return rc;
	}
	for (unsigned c = 0; c < sim->max_cpus; c++)
		mm->pcpu[c].current = SWS__MM_NO_ASID;
	for (uint32_t p = mm->nr_pfn - 1; p >= 1; p--) {
		mm->folios[p].flags = PG_free;
		mm->free_pfns[mm->nr_free_pfns++] = p; /* PFN 1 is handed out first */
	}
	mm->nr_memcgs = 1; /* the root */
	*out = mm;
	return 0;
}

int sws_mm_memcg_create(struct sws_mm *mm, uint64_t limit_pages, uint16_t *id)
{
	if (!mm || !id)
		return SWS_EINVAL;
	sws_spin_lock(&mm->lru_lock);
	int rc = SWS_ENOMEM; /* the array is fixed: readers index it without a lock */
	if (mm->nr_memcgs < mm->cap_memcgs) {
		mm->memcgs[mm->nr_memcgs].limit = limit_pages;
		*id = (uint16_t)mm->nr_memcgs++;
		rc = 0;
	}
	sws_spin_unlock(&mm->lru_lock);
	return rc;
}

struct sws_space *sws__mm_space(struct sws_mm *mm, uint32_t asid)
{
	sws_spin_lock(&mm->spaces_lock);
	struct sws_space *sp = asid < mm->nr_spaces ? mm->spaces[asid] : NULL;
	sws_spin_unlock(&mm->spaces_lock);
	return sp;
}

int sws__mm_space_new(struct sws_mm *mm, uint16_t memcg, uint32_t *asid, struct sws_space **out);
int sws__mm_space_new(struct sws_mm *mm, uint16_t memcg, uint32_t *asid, struct sws_space **out)
{
	if (memcg >= mm->nr_memcgs)
		return SWS_EINVAL;
	struct sws_space *sp = sws__mem_zalloc(&mm->sim->mem, SWS_MEM_mm, sizeof(*sp), 64);
	if (!sp)
		return SWS_ENOMEM;
	sws_spin_init(&sp->ptl);
	sp->memcg = memcg;
	sp->alive = true;
	sws_spin_lock(&mm->spaces_lock);
	if (mm->nr_spaces == mm->cap_spaces) {
		uint32_t cap = mm->cap_spaces ? mm->cap_spaces * 2 : 16;
		struct sws_space **n = sws__mem_zalloc(&mm->sim->mem, SWS_MEM_mm, sizeof(*n) * cap, 0);
		if (!n) {
			sws_spin_unlock(&mm->spaces_lock);
			sws__mem_free(&mm->sim->mem, SWS_MEM_mm, sp, sizeof(*sp));
			return SWS_ENOMEM;
		}
		if (mm->spaces)
			memcpy(n, mm->spaces, sizeof(*n) * mm->nr_spaces);
		sws__mem_free(&mm->sim->mem, SWS_MEM_mm, mm->spaces, sizeof(*n) * mm->cap_spaces);
		mm->spaces = n;
		mm->cap_spaces = cap;
	}
	*asid = mm->nr_spaces;
	sp->seed = mm_mix(mm->cfg.seed ^ mm_mix(*asid + 1));
	mm->spaces[mm->nr_spaces++] = sp;
	sws_spin_unlock(&mm->spaces_lock);
	*out = sp;
	return 0;
}

int sws_mm_space_create(struct sws_mm *mm, uint16_t memcg, uint32_t *asid)
{
	struct sws_space *sp;
	if (!mm || !asid)
		return SWS_EINVAL;
	return sws__mm_space_new(mm, memcg, asid, &sp);
}

bool sws_mm_oom_killed(struct sws_mm *mm, uint32_t asid)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	return sp && atomic_load(&sp->oom_killed);
}

/* ---- regions (ptl held) --------------------------------------------------------------- */

struct sws_region *sws__mm_region(struct sws_space *sp, uint64_t vaddr)
{
	uint32_t lo = 0, hi = sp->nr_regions;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		struct sws_region *r = &sp->regions[mid];
		if (vaddr < r->start)
			hi = mid;
		else if (vaddr >= r->end)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

int sws__mm_region_insert(struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end, unsigned order);
int sws__mm_region_insert(struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end, unsigned order)
{
	uint32_t at = 0;
	while (at < sp->nr_regions && sp->regions[at].start < start)
		at++;
	if ((at > 0 && sp->regions[at - 1].end > start) || (at < sp->nr_regions && sp->regions[at].start < end))
		return SWS_EINVAL;
	if (sp->nr_regions == sp->cap_regions) {
		uint32_t cap = sp->cap_regions ? sp->cap_regions * 2 : 8;
		struct sws_region *n = sws__mem_zalloc(&mm->sim->mem, SWS_MEM_mm, sizeof(*n) * cap, 0);
		if (!n)
			return SWS_ENOMEM;
		if (sp->regions)
			memcpy(n, sp->regions, sizeof(*n) * sp->nr_regions);
		sws__mem_free(&mm->sim->mem, SWS_MEM_mm, sp->regions, sizeof(*n) * sp->cap_regions);
		sp->regions = n;
		sp->cap_regions = cap;
	}
	memmove(&sp->regions[at + 1], &sp->regions[at], sizeof(*sp->regions) * (sp->nr_regions - at));
	sp->regions[at] = (struct sws_region){.start = start, .end = end, .order = (uint8_t)order};
	sp->nr_regions++;
	return 0;
}

void sws_mm_mmap_locked_implicit(struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr)
{
	uint64_t start = vaddr & ~(IMPLICIT_REGION - 1), end = start + IMPLICIT_REGION;
	for (uint32_t i = 0; i < sp->nr_regions; i++) { /* clip against neighbours */
		struct sws_region *r = &sp->regions[i];
		if (r->end <= vaddr && r->end > start)
			start = r->end;
		if (r->start > vaddr && r->start < end)
			end = r->start;
	}
	sws__mm_region_insert(mm, sp, start, end, 0); /* on ENOMEM: no region, order 0 anyway */
}

int sws_mm_mmap(struct sws_mm *mm, uint32_t asid, uint64_t addr, uint64_t len, uint32_t flags)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	unsigned order = SWS_MM_MAP_ORDER(flags);
	if (!sp || !sp->alive || !len || (addr | len) & (SWS_PAGE_SIZE - 1) || addr + len < addr ||
	    (addr + len) >> 48 || order >= SWS_NR_ORDERS || (flags & ~0xfu))
		return SWS_EINVAL;
	sws_spin_lock(&sp->ptl);
	int rc = sws__mm_region_insert(mm, sp, addr, addr + len, order);
	sws_spin_unlock(&sp->ptl);
	return rc;
}

/* ---- stats ------------------------------------------------------------------------------ */

void sws_mm_cpu_time(const struct sws_mm *mm, const struct sws_cpu *cpu, struct sws_mm_cpu_time *out)
{
	const struct sws_mm_pcpu *p = &mm->pcpu[sws_cpu_id(cpu)];
	out->sys_ns = sws_load_relaxed(&p->sys_ns);
	out->sys_modelled_ns = sws_load_relaxed(&p->sys_modelled_ns);
	out->iowait_ns = sws_load_relaxed(&p->iowait_ns);
	out->background_ns = sws_load_relaxed(&p->background_ns);
}

void sws_mm_stats(struct sws_mm *mm, struct sws_mm_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned c = 0; c < mm->sim->max_cpus; c++) {
		struct sws_mm_pcpu *p = &mm->pcpu[c];
		for (int k = 0; k < SWS_MM_NR_COUNTERS; k++)
			st->counters[k] += sws_load_relaxed(&p->ctr[k]);
		for (int o = 0; o < SWS_NR_ORDERS; o++) {
			st->swpout[o] += sws_load_relaxed(&p->swpout[o]);
			st->swpout_fallback[o] += sws_load_relaxed(&p->swpout_fallback[o]);
		}
	}
	for (unsigned c = 0; c < mm->sim->max_cpus; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			st->zswpout_order[o] += sws_load_relaxed(&mm->pcpu[c].zswpout_order[o]);
	for (unsigned c = 0; c < mm->sim->max_cpus; c++) {
		struct sws_mm_pcpu *p = &mm->pcpu[c];
		for (int b = 0; b < SWS_MM_LAT_BUCKETS; b++)
			st->reclaim_lat[b] += sws_load_relaxed(&p->reclaim_lat[b]);
		st->reclaim_count += sws_load_relaxed(&p->reclaim_count);
		st->reclaim_sum_ns += sws_load_relaxed(&p->reclaim_sum_ns);
		uint64_t mx = sws_load_relaxed(&p->reclaim_max_ns);
		if (mx > st->reclaim_max_ns)
			st->reclaim_max_ns = mx;
		st->time.sys_ns += sws_load_relaxed(&p->sys_ns);
		st->time.sys_modelled_ns += sws_load_relaxed(&p->sys_modelled_ns);
		st->time.iowait_ns += sws_load_relaxed(&p->iowait_ns);
		st->time.background_ns += sws_load_relaxed(&p->background_ns);
	}
	if (mm->zswap)
		sws__zswap_stats(mm->zswap, st);
	st->ram_pages = mm->cfg.ram_pages;
	int64_t fp = atomic_load(&mm->free_pages);
	st->free_pages = fp > 0 ? (uint64_t)fp : 0;
	st->anon_pages = st->ram_pages - st->free_pages;
	struct sws_stats ss;
	sws_stats_snapshot(mm->sim, &ss);
	st->swapcache_pages = ss.nr_swapcache;
	st->nr_spaces = mm->nr_spaces;
}

/* ---- xswap devices (swapsim/xswap.h) -------------------------------------------------- */

/* Pages on an xswap device live in zswap: it needs zswap on this memory
 * model. Our per-device state comes with the device (sws__mm_device_added());
 * both calls run under sim->ext_mutex, so they exclude each other, limit
 * writes and the shrink. */
int sws_mm_xswap_create(struct sws_mm *mm, int prio, int *type)
{
	if (!mm || !type)
		return SWS_EINVAL;
	if (!mm->zswap)
		return SWS_EOPNOTSUPP;
	struct sws_sim *sim = mm->sim;
	int t;
	pthread_mutex_lock(&sim->ext_mutex);
	int rc = sws__xswap_create(sim, prio, mm->cfg.ram_pages, &t);
	if (!rc) {
		sws__device_enable(sws__device(sim, (unsigned)t));
		*type = t;
	}
	pthread_mutex_unlock(&sim->ext_mutex);
	return rc;
}

int sws_mm_xswap_destroy(struct sws_mm *mm, int type)
{
	if (!mm)
		return SWS_EINVAL;
	pthread_mutex_lock(&mm->sim->ext_mutex);
	int rc = sws__xswap_destroy(mm->sim, type);
	pthread_mutex_unlock(&mm->sim->ext_mutex);
	return rc;
}

/*
 * mm_init.c - the memory model's root: create and destroy, the per-device
 * state a swapon or swapoff brings (slot seeds, the latency model, zswap's
 * trees: the core's device_added/removed hooks), the latency model, and xswap
 * devices' creation and destruction through the model.
 * Callers: the replay's machine set-up, library users.
 */
#include "../xswap/xswap.h"
#include "../zswap/zswap_mm.h"
#include "mm_internal.h"

void sws__mm_default_latency(struct sws_mm *mm, unsigned type, const struct sws_device *d)
{
	uint32_t flags = sws__device_flags(d);
	mm->io_is_cpu[type] = flags & SWS_SWP_SYNCHRONOUS_IO;
	if (flags & SWS_SWP_XSWAP) {
		mm->read_ns[type] = 0, mm->write_ns[type] = 0; /* no device I/O: pages live in zswap */
	} else if (flags & SWS_SWP_SYNCHRONOUS_IO) {
		mm->read_ns[type] = 2000, mm->write_ns[type] = 3000; /* zram/pmem-like */
	} else if (flags & SWS_SWP_SOLIDSTATE) {
		mm->read_ns[type] = 20000, mm->write_ns[type] = 25000; /* NVMe */
	} else {
		mm->read_ns[type] = 5000000, mm->write_ns[type] = 5000000; /* HDD */
	}
}

int sws__mm_device_added(void *ctx, struct sws_device *dev)
{
	struct sws_mm *mm = ctx;
	unsigned t = sws__device_type(dev);
	sws__mm_default_latency(mm, t, dev);
	int rc = sws__mm_slot_seeds_create(mm, dev);
	if (rc)
		return rc;
	rc = mm->zswap ? sws__zswap_swapon(mm->zswap, t, sws__device_max(dev)) : 0;
	if (rc)
		sws__mm_device_removed(mm, dev);
	return rc;
}

void sws__mm_device_removed(void *ctx, struct sws_device *dev)
{
	struct sws_mm *mm = ctx;
	unsigned t = sws__device_type(dev);
	if (mm->zswap)
		sws__zswap_swapoff(mm->zswap, t);
	sws__mm_slot_seeds_destroy(mm, dev);
}

int sws_mm_set_latency(struct sws_mm *mm, int type, uint64_t read_ns, uint64_t write_ns)
{
	if (!mm || type < 0 || !sws__get_swap_device(mm->sim, (unsigned)type))
		return SWS_ENODEV;
	mm->read_ns[type] = read_ns;
	mm->write_ns[type] = write_ns;
	return 0;
}

int sws_mm_set_zram(struct sws_mm *mm, int type)
{
	if (!mm || type < 0 || !sws__get_swap_device(mm->sim, (unsigned)type))
		return SWS_ENODEV;
	mm->io_zram[type] = true;
	return 0;
}

int sws_mm_create(struct sws_sim *sim, const struct sws_mm_config *cfg, struct sws_mm **out)
{
	if (!sim || !cfg || !out)
		return SWS_EINVAL;
	if (cfg->version > SWS_MM_CONFIG_VERSION)
		return SWS_EVERSION;
	if (cfg->ram_pages < 64 || cfg->ram_pages > SWS_MM_MAX_RAM_PAGES || cfg->policy > SWS_RECLAIM_CLOCK ||
	    cfg->page_cluster > 32 ||
	    (cfg->flags & ~(SWS_MM_VERIFY | SWS_MM_NO_VMA_RA | SWS_MM_READ_POPULATES | SWS_MM_KERNEL_RAM)) ||
	    ((cfg->anon_orders | cfg->anon_orders_madvise) & ~((1u << SWS_NR_ORDERS) - 2)) ||
	    cfg->thp_defrag >= SWS_THP_DEFRAG_NR)
		return SWS_EINVAL;
	struct sws_mem *mem = sws__sim_mem(sim);
	struct sws_mm *mm = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm), 64);
	if (!mm)
		return SWS_ENOMEM;
	mm->sim = sim;
	mm->nr_pfn = (uint32_t)cfg->ram_pages + 65; /* PFN 0 is "none"; 64 for the reserves */
	mm->pfn_hwm = 1; /* PFN 1 is handed out first */
	mm->cfg = *cfg;
	mm->page_cluster = cfg->page_cluster ? cfg->page_cluster - 1 : 3;
	mm->file_read_ns = 20000, mm->file_write_ns = 25000; /* NVMe, as a SOLIDSTATE swap device */
	for (int c = 0; c < SWS_NR_CONTENT; c++)
		mm->content_total += (mm->content_weight[c] = cfg->content_weight[c]);
	if (!mm->content_total)
		mm->content_total = mm->content_weight[SWS_CONTENT_INDEX] = 1;
	if (!mm->cfg.wmark_low)
		mm->cfg.wmark_low = cfg->ram_pages / 50 > 16 ? cfg->ram_pages / 50 : 16;
	if (!mm->cfg.wmark_high || mm->cfg.wmark_high < mm->cfg.wmark_low)
		mm->cfg.wmark_high = mm->cfg.wmark_low * 2;
	atomic_init(&mm->free_pages, (int64_t)cfg->ram_pages);
	atomic_init(&mm->ra_hits, 4); /* the kernel starts with 4 readahead hits */
	sws_spin_init(&mm->pfn_lock);
	sws_spin_init(&mm->ram_lock);
	sws_spin_init(&mm->memcg_lock);
	sws_spin_init(&mm->spaces_lock);
	sws_spin_init(&mm->ra_lock);
	for (unsigned i = 0; i < SWS__MM_RMAP_LOCKS; i++)
		sws_spin_init(&mm->rmap_locks[i].l);
	mm->cap_memcgs = SWS_MM_MAX_MEMCGS;
	mm->memcgs = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm->memcgs) * mm->cap_memcgs, 64);
	mm->nr_cpus = sws__sim_max_cpus(sim);
	mm->pcpu = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*mm->pcpu) * mm->nr_cpus, 64);
	mm->spare_cpu = sws__cpu_alloc(sim); /* teardown must not depend on an allocation */
	/* Descriptors are mapped as PFNs are claimed (page_alloc.c): nothing here
	 * costs memory or time by the size of RAM. */
	int rc = mm->memcgs && mm->pcpu && mm->spare_cpu ? sws__mm_folio_map_init(mm) : SWS_ENOMEM;
	for (uint32_t i = 0; !rc && i < mm->cap_memcgs; i++)
		sws_spin_init(&mm->memcgs[i].lru_lock);
	/* Our state for every device there is and every one to come. */
	static const struct sws_device_hooks hooks = {
		sws__mm_device_added, sws__mm_device_removed, sws__mm_slot_seeds_cluster_freed};
	if (!rc)
		rc = sws__sim_hook_devices(sim, &hooks, mm); /* SWS_EBUSY: one memory model per simulation */
	if (rc) {
		sws_mm_destroy(mm);
		return rc;
	}
	for (unsigned c = 0; c < mm->nr_cpus; c++)
		mm->pcpu[c].current = mm->pcpu[c].loaded = SWS__MM_NO_ASID;
	mm->nr_memcgs = 1; /* the root */
	*out = mm;
	return 0;
}

/* ---- xswap devices (swapsim/xswap.h) -------------------------------------------------- */

/* Pages on an xswap device live in zswap: it needs zswap on this memory
 * model. Our per-device state comes with the device (sws__mm_device_added());
 * both calls run under the simulation's ext_mutex (sws__sim_ext_lock()), so
 * they exclude each other, limit writes and the shrink. */
int sws_mm_xswap_create(struct sws_mm *mm, int prio, int *type)
{
	if (!mm || !type)
		return SWS_EINVAL;
	if (!mm->zswap)
		return SWS_EOPNOTSUPP;
	struct sws_sim *sim = mm->sim;
	int t;
	sws__sim_ext_lock(sim);
	int rc = sws__xswap_create(sim, prio, mm->cfg.ram_pages, &t);
	if (!rc) {
		sws__device_enable(sws__get_swap_device(sim, (unsigned)t));
		*type = t;
	}
	sws__sim_ext_unlock(sim);
	return rc;
}

int sws_mm_xswap_destroy(struct sws_mm *mm, int type)
{
	if (!mm)
		return SWS_EINVAL;
	sws__sim_ext_lock(mm->sim);
	int rc = sws__xswap_destroy(mm->sim, type);
	sws__sim_ext_unlock(mm->sim);
	return rc;
}

/* ---- teardown --------------------------------------------------------------------------- */

/* sws_mm_destroy(): our state of device @dev goes, if it has any. */
static void device_teardown(void *ctx, struct sws_device *dev)
{
	struct sws_mm *mm = ctx;
	if (mm->slot_seed[sws__device_type(dev)])
		sws__mm_device_removed(mm, dev);
}

void sws_mm_destroy(struct sws_mm *mm)
{
	if (!mm)
		return;
	struct sws_mem *mem = sws__sim_mem(mm->sim);
	struct sws_cpu *cpu = NULL;
	if (mm->spare_cpu && sws__cpu_attach_mem(mm->sim, mm->spare_cpu, &cpu) != 0)
		cpu = NULL; /* every CPU slot taken (the memory went with the refusal) */
	for (uint32_t a = 0; cpu && a < mm->nr_spaces; a++)
		if (mm->spaces[a] && mm->spaces[a]->alive)
			sws_mm_exit(cpu, mm, a);
	/* Folios still in the swap cache (read ahead, or kept clean) go too. */
	for (uint32_t p = 1; cpu && p < mm->pfn_hwm; p++) {
		struct sws_folio *f = mm_folio(mm, p);
		if (folio_test(f, PG_free))
			continue;
		if (folio_test(f, PG_swapcache))
			sws_swap_cache_del(cpu, f->swap, 1u << f->order, p, 0);
		sws__mm_lru_del(mm, p);
		sws__mm_folio_free(cpu, mm, p);
	}
	sws_cpu_detach(cpu);
	sws__mm_zswap_destroy(mm);
	sws__mm_filemap_destroy(mm);
	for (uint32_t a = 0; a < mm->nr_spaces; a++)
		if (mm->spaces[a])
			sws__mem_free(mem, SWS_MEM_mm, mm->spaces[a], sizeof(struct sws_space));
	sws__mem_free(mem, SWS_MEM_mm, mm->spaces, sizeof(*mm->spaces) * mm->cap_spaces);
	sws__mem_free(mem, SWS_MEM_mm, mm->trimmed_killed, sizeof(*mm->trimmed_killed) * mm->trimmed_words);
	for (uint32_t p = 1; p < mm->pfn_hwm; p++) {
		struct sws_folio *f = mm_folio(mm, p);
		sws__mem_free(mem, SWS_MEM_mm, f->rmaps, sizeof(struct sws_rmap) * f->cap_rmap);
		if (f->page_seed)
			sws__mem_free(mem, SWS_MEM_mm, f->page_seed, sizeof(uint64_t) << f->page_seed_order);
	}
	sws__mm_folio_map_fini(mm);
	sws__mem_free(mem, SWS_MEM_mm, mm->memcgs, sizeof(*mm->memcgs) * mm->cap_memcgs);
	sws__mem_free(mem, SWS_MEM_mm, mm->pcpu, sizeof(*mm->pcpu) * mm->nr_cpus);
	sws__sim_unhook_devices(mm->sim, mm, device_teardown); /* no device comes or goes meanwhile */
	sws__mem_free(mem, SWS_MEM_mm, mm, sizeof(*mm));
}

/*
 * filemap.c - the page cache (mm/filemap.c: filemap_read,
 * generic_perform_write, filemap_add_folio, __remove_mapping's page cache
 * side; mm/swap.c: folio_mark_accessed). Files are numbered; each file's
 * i_pages maps a page index to its folio or, once reclaim evicted the page,
 * to a workingset shadow (workingset.c packs it). Files are read and written
 * through read(2)/write(2) only: page cache folios are never mapped, and
 * they stay cached after the task that read them exits.
 *
 * Entries: 0 none, pfn << 2 | 1 a folio, shadow << 2 | 2 a shadow.
 * Locks: folio lock -> a file's lock (i_pages) -> a memcg's lru_lock. The
 * read and write paths allocate a folio with no lock held and re-check the
 * entry; the file's own tables grow under its lock.
 * Callers: sws_mm_file_io (the replay's FILE records), vmscan.c (eviction),
 * mm_init.c (teardown).
 */
#include <string.h>

#include "mm_internal.h"

#define CHUNK_SHIFT 9
#define CHUNK_ENTRIES (1u << CHUNK_SHIFT)

static inline bool entry_is_folio(uint64_t v) { return (v & 3) == 1; }
static inline bool entry_is_shadow(uint64_t v) { return (v & 3) == 2; }

/* *@p, or when NULL and @create a new zeroed object of @size put there
 * (another CPU's, if it came first). NULL: none, or no memory. */
static void *get_or_make(struct sws_mm *mm, void *_Atomic *p, size_t size, bool create)
{
	void *v = atomic_load_explicit(p, memory_order_acquire);
	if (v || !create)
		return v;
	void *n = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_mm, size, 64);
	if (!n)
		return NULL;
	if (atomic_compare_exchange_strong(p, &v, n))
		return n;
	sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, n, size);
	return v;
}

/* The file of @id; a new one when @create. NULL: none (or no memory). */
static struct sws_file *file_get(struct sws_mm *mm, uint32_t id, bool create)
{
	struct sws_file_dir *dir = get_or_make(mm, (void *_Atomic *)&mm->files, sizeof(*dir), create);
	if (!dir)
		return NULL;
	struct sws_file_table *tab = get_or_make(mm, (void *_Atomic *)&dir->table[id / SWS__MM_FILE_DIR],
						 sizeof(*tab), create);
	if (!tab)
		return NULL;
	return get_or_make(mm, (void *_Atomic *)&tab->file[id % SWS__MM_FILE_DIR], sizeof(struct sws_file),
			   create);
}

/* @fl's lock held: the entry of page @index; with @create its chunk is made
 * (NULL: no memory), without it NULL means none. */
static uint64_t *__file_slot(struct sws_mm *mm, struct sws_file *fl, uint64_t index, bool create)
{
	SWS_ASSERT_HELD(&fl->lock);
	uint64_t c = index >> CHUNK_SHIFT;
	if (c >= fl->nr_chunks) {
		if (!create)
			return NULL;
		uint64_t n = fl->nr_chunks ? fl->nr_chunks : 8;
		while (n <= c)
			n *= 2;
		uint64_t **a = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_mm, sizeof(*a) * n, 0);
		if (!a)
			return NULL;
		if (fl->nr_chunks)
			memcpy(a, fl->chunk, sizeof(*a) * fl->nr_chunks);
		sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, fl->chunk, sizeof(*a) * fl->nr_chunks);
		fl->chunk = a;
		fl->nr_chunks = n;
	}
	if (!fl->chunk[c]) {
		if (!create)
			return NULL;
		fl->chunk[c] = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_mm, sizeof(uint64_t) * CHUNK_ENTRIES, 64);
		if (!fl->chunk[c])
			return NULL;
	}
	return &fl->chunk[c][index & (CHUNK_ENTRIES - 1)];
}

/* The page cache's I/O: the backing store is busy @ns; with @wait the task waits. */
static void file_io(struct sws_mm *mm, struct sws_cpu *cpu, uint64_t ns, bool wait)
{
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	mm_time_add(&p->ctr[SWS_MM_modelled_io_ns], ns);
	if (!wait)
		return;
	mm_time_add(&p->iowait_ns, ns);
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	if (vc) { /* the file's device has no queue in the model: the read's latency */
		sws__vt_idle(vc, ns * 1000);
		vc->io_wait += ns * 1000;
	}
}

/*
 * @fl's lock held: folio_mark_accessed() of cached @pfn. The kernel policy:
 * a first access sets PG_referenced, a second one while inactive activates
 * (folio_activate(); one in this CPU's add batch goes to the active list as
 * the batch drains, __lru_cache_activate_folio(); one off every list, in
 * another CPU's batch or isolated, stays where it is), clears PG_referenced
 * and ages the workingset clock (workingset_activation()), whichever it was. The exact-LRU and clock
 * policies treat it as a mapped page's access.
 */
static void __folio_mark_accessed(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_file *fl, uint64_t pfn)
{
	SWS_ASSERT_HELD(&fl->lock);
	struct sws_folio *f = mm_folio(mm, pfn);
	if (mm->cfg.policy != SWS_RECLAIM_KERNEL) {
		sws__mm_mark_accessed(mm, pfn);
		return;
	}
	if (!folio_test(f, PG_referenced)) {
		folio_set(f, PG_referenced);
		return;
	}
	if (folio_test(f, PG_active))
		return;
	if (folio_test(f, PG_lru))
		sws__mm_folio_activate(cpu, mm, pfn); /* pgactivate when the batch moves it */
	else /* in an add batch (active as this CPU's drains; another CPU's: not found) or isolated */
		sws__mm_lru_batch_activate(cpu, mm, pfn);
	folio_clear(f, PG_referenced);
	atomic_fetch_add(&mm->nonresident_age, 1); /* workingset_activation() */
}

/* One page of read(2)/write(2). @return 1 when it missed, 0 when cached, or an error. */
static int file_page(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg, uint32_t id, struct sws_file *fl,
		     uint64_t index, bool write)
{
	mm_lock(mm, &fl->lock, SWS_MM_lock_mm_other_contended);
	uint64_t *slot = __file_slot(mm, fl, index, false);
	uint64_t v = slot ? *slot : 0;
	if (entry_is_folio(v)) {
		struct sws_folio *f = mm_folio(mm, v >> 2);
		if (write && !(atomic_fetch_or(&f->flags, PG_dirty) & PG_dirty))
			mm_count(mm, cpu, SWS_MM_nr_dirtied, 1);
		if (!write) /* only reads activate (write_begin takes no FGP_ACCESSED) */
			__folio_mark_accessed(cpu, mm, fl, v >> 2);
		sws_spin_unlock(&fl->lock);
		return 0;
	}
	sws_spin_unlock(&fl->lock);
	/* A miss: a new folio, allocated (and charged, maybe reclaiming) unlocked. */
	uint64_t pfn;
	int rc = sws__mm_folio_alloc(cpu, mm, memcg, 0, &pfn);
	if (rc)
		return rc;
	struct sws_folio *f = mm_folio(mm, pfn);
	folio_set(f, PG_file | (write ? PG_dirty : 0));
	f->mapping.file = id;
	f->mapping.index = index;
	mm_lock(mm, &fl->lock, SWS_MM_lock_mm_other_contended);
	slot = __file_slot(mm, fl, index, true);
	v = slot ? *slot : 0;
	if (!slot || entry_is_folio(v)) { /* no memory, or another task added it meanwhile */
		sws_spin_unlock(&fl->lock);
		sws__mm_folio_free(cpu, mm, pfn);
		return slot ? file_page(cpu, mm, memcg, id, fl, index, write) : SWS_ENOMEM;
	}
	*slot = pfn << 2 | 1;
	sws_spin_unlock(&fl->lock);
	/* filemap_read() marks the folio it copies from, one it just read in too:
	 * the next read activates it. A write (write_begin) does not. */
	if (!write)
		folio_set(f, PG_referenced);
	atomic_store_explicit(&mm->file_used, true, memory_order_relaxed);
	bool active = false;
	if (entry_is_shadow(v)) {
		active = sws__mm_workingset_refault(cpu, mm, f, memcg, v >> 2);
		if (active)
			folio_set(f, PG_active);
	}
	if (write)
		mm_count(mm, cpu, SWS_MM_nr_dirtied, 1); /* a whole page written: nothing to read */
	else {
		mm_count(mm, cpu, SWS_MM_pgpgin_file, 1);
		file_io(mm, cpu, mm->file_read_ns, true);
	}
	sws__mm_folio_add_lru(cpu, mm, pfn, active);
	folio_unlock(f);
	return 1;
}

int64_t sws_mm_file_io(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint32_t file, uint64_t index,
		       uint64_t nr, bool write)
{
	struct sws_space *sp = mm && cpu ? mm_space(mm, cpu, asid) : NULL;
	if (!sp || !sp->alive || file >= SWS_MM_MAX_FILES || index > SWS_MM_MAX_FILE_PAGES ||
	    nr > SWS_MM_MAX_FILE_PAGES - index)
		return SWS_EINVAL;
	if (atomic_load_explicit(&sp->oom_killed, memory_order_relaxed)) {
		mm_count(mm, cpu, SWS_MM_oom_refused, 1);
		return SWS_EKILLED;
	}
	if (!nr)
		return 0;
	struct sws_file *fl = file_get(mm, file, true);
	if (!fl)
		return SWS_ENOMEM;
	uint32_t *current = &mm->pcpu[sws__cpu_id(cpu)].current;
	*current = asid;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	int64_t missed = 0;
	int rc = 0;
	for (uint64_t i = 0; i < nr && !rc; i++) {
		rc = file_page(cpu, mm, sp->memcg, file, fl, index + i, write);
		if (rc == 1) {
			missed++;
			rc = 0;
		}
		if (!rc && atomic_load_explicit(&sp->oom_killed, memory_order_relaxed))
			rc = SWS_EKILLED; /* killed by this call's own reclaim */
	}
	mm_kernel_exit(mm, cpu, t0);
	*current = SWS__MM_NO_ASID;
	if (rc == SWS_ENOMEM || rc == SWS_EKILLED)
		mm_count(mm, cpu, SWS_MM_oom, 1);
	return rc ? rc : missed;
}

int sws_mm_set_file_latency(struct sws_mm *mm, uint64_t read_ns, uint64_t write_ns)
{
	if (!mm)
		return SWS_EINVAL;
	mm->file_read_ns = read_ns;
	mm->file_write_ns = write_ns;
	return 0;
}

int sws__mm_filemap_evict(struct sws_cpu *cpu, struct sws_mm *mm, uint64_t pfn)
{
	struct sws_folio *f = mm_folio(mm, pfn);
	SWS_ASSERT_FOLIO_LOCKED(f);
	if (folio_test(f, PG_dirty)) { /* the flusher's write-back of it */
		folio_clear(f, PG_dirty);
		mm_count(mm, cpu, SWS_MM_nr_written, 1);
		file_io(mm, cpu, mm->file_write_ns, false);
	}
	struct sws_file *fl = file_get(mm, f->mapping.file, false);
	if (!fl)
		return SWS_EINVAL; /* cannot happen: the folio is in its file */
	mm_lock(mm, &fl->lock, SWS_MM_lock_mm_other_contended);
	uint64_t *slot = __file_slot(mm, fl, f->mapping.index, false);
	if (!slot || *slot != (pfn << 2 | 1) || folio_test(f, PG_dirty)) {
		sws_spin_unlock(&fl->lock);
		return SWS_EBUSY; /* written again meanwhile: it stays */
	}
	*slot = sws__mm_shadow_pack(mm, f->memcg, folio_test(f, PG_workingset)) << 2 | 2;
	sws_spin_unlock(&fl->lock);
	return 0;
}

void sws__mm_filemap_destroy(struct sws_mm *mm)
{
	struct sws_mem *mem = sws__sim_mem(mm->sim);
	struct sws_file_dir *dir = atomic_load(&mm->files);
	for (unsigned d = 0; dir && d < SWS__MM_FILE_DIR; d++) {
		struct sws_file_table *tab = atomic_load(&dir->table[d]);
		for (unsigned i = 0; tab && i < SWS__MM_FILE_DIR; i++) {
			struct sws_file *fl = atomic_load(&tab->file[i]);
			if (!fl)
				continue;
			for (uint64_t c = 0; c < fl->nr_chunks; c++)
				sws__mem_free(mem, SWS_MEM_mm, fl->chunk[c], sizeof(uint64_t) * CHUNK_ENTRIES);
			sws__mem_free(mem, SWS_MEM_mm, fl->chunk, sizeof(*fl->chunk) * fl->nr_chunks);
			sws__mem_free(mem, SWS_MEM_mm, fl, sizeof(*fl));
		}
		sws__mem_free(mem, SWS_MEM_mm, tab, sizeof(*tab));
	}
	sws__mem_free(mem, SWS_MEM_mm, dir, sizeof(*dir));
}

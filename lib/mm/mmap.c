/*
 * mmap.c - address spaces and their regions (VMAs): create, mmap (and the
 * implicit 2 MiB region a first touch outside every region maps), munmap,
 * exit (exit_mmap) and fork (dup_mmap; the page tables are copied by
 * memory.c's copy_page_range).
 * Callers: the replay (MMAP, MUNMAP, FORK, EXIT records), library users.
 */
#include <string.h>

#include "mm_internal.h"

#define IMPLICIT_REGION (2ull << 20) /* a first touch outside regions maps 2 MiB */

struct sws_space *sws__mm_space(struct sws_mm *mm, uint32_t asid)
{
	mm_lock(mm, &mm->spaces_lock, SWS_MM_lock_mm_other_contended);
	struct sws_space *sp = asid < mm->nr_spaces ? mm->spaces[asid] : NULL;
	sws_spin_unlock(&mm->spaces_lock);
	return sp;
}
int sws__mm_space_new(struct sws_mm *mm, uint16_t memcg, uint32_t *asid, struct sws_space **out)
{
	if (memcg >= mm->nr_memcgs)
		return SWS_EINVAL;
	struct sws_space *sp = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_mm, sizeof(*sp), 64);
	if (!sp)
		return SWS_ENOMEM;
	sws_spin_init(&sp->mmap_lock);
	for (unsigned i = 0; i < SWS__PTE_LOCKS; i++)
		sws_spin_init(&sp->ptlocks[i].l);
	sp->memcg = memcg;
	sp->alive = true;
	mm_lock(mm, &mm->spaces_lock, SWS_MM_lock_mm_other_contended);
	if (mm->nr_spaces == mm->cap_spaces) {
		uint32_t cap = mm->cap_spaces ? mm->cap_spaces * 2 : 16;
		struct sws_space **n = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_mm, sizeof(*n) * cap, 0);
		if (!n) {
			sws_spin_unlock(&mm->spaces_lock);
			sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, sp, sizeof(*sp));
			return SWS_ENOMEM;
		}
		if (mm->spaces)
			memcpy(n, mm->spaces, sizeof(*n) * mm->nr_spaces);
		sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, mm->spaces, sizeof(*n) * mm->cap_spaces);
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

void sws__mm_space_lock(struct sws_mm *mm, struct sws_space *sp)
{
	mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
	for (unsigned i = 0; i < SWS__PTE_LOCKS; i++)
		mm_lock(mm, &sp->ptlocks[i].l, SWS_MM_lock_ptl_contended);
}

void sws__mm_space_unlock(struct sws_space *sp)
{
	for (unsigned i = SWS__PTE_LOCKS; i-- > 0;)
		sws_spin_unlock(&sp->ptlocks[i].l);
	sws_spin_unlock(&sp->mmap_lock);
}

bool sws_mm_oom_killed(struct sws_mm *mm, uint32_t asid)
{
	if (!mm)
		return false;
	mm_lock(mm, &mm->spaces_lock, SWS_MM_lock_mm_other_contended);
	struct sws_space *sp = asid < mm->nr_spaces ? mm->spaces[asid] : NULL;
	bool killed = sp ? atomic_load(&sp->oom_killed)
			 : asid / 64 < mm->trimmed_words && ((mm->trimmed_killed[asid / 64] >> (asid % 64)) & 1);
	sws_spin_unlock(&mm->spaces_lock);
	return killed;
}

/*
 * An exited space keeps its descriptor (the page-table locks, a cache line
 * each: about 4.2 KiB) so that a pointer another CPU cached stays valid; a
 * run of many short-lived processes would keep them all. At a quiescent
 * point the caller says so, and the descriptors of exited spaces go: what
 * stays of each is one bit (whether the OOM killer took it) and its NULL
 * entry in the array (its asid is never reused).
 */
uint32_t sws_mm_spaces_trim(struct sws_mm *mm, uint32_t min)
{
	if (!mm || mm->nr_dead < (min ? min : 1))
		return 0;
	struct sws_mem *mem = sws__sim_mem(mm->sim);
	mm_lock(mm, &mm->spaces_lock, SWS_MM_lock_mm_other_contended);
	uint32_t words = (mm->nr_spaces + 63) / 64;
	if (words > mm->trimmed_words) {
		uint32_t cap = mm->trimmed_words ? mm->trimmed_words : 16;
		while (cap < words)
			cap *= 2;
		uint64_t *b = sws__mem_zalloc(mem, SWS_MEM_mm, sizeof(*b) * cap, 0);
		if (!b) { /* nothing is lost: the descriptors wait for the next trim */
			sws_spin_unlock(&mm->spaces_lock);
			return 0;
		}
		if (mm->trimmed_words)
			memcpy(b, mm->trimmed_killed, sizeof(*b) * mm->trimmed_words);
		sws__mem_free(mem, SWS_MEM_mm, mm->trimmed_killed, sizeof(*b) * mm->trimmed_words);
		mm->trimmed_killed = b;
		mm->trimmed_words = cap;
	}
	uint32_t freed = 0;
	for (uint32_t next = mm->dead_head; next;) {
		uint32_t a = next - 1;
		struct sws_space *sp = mm->spaces[a];
		next = sp->dead_next;
		if (atomic_load(&sp->oom_killed))
			mm->trimmed_killed[a / 64] |= 1ull << (a % 64);
		mm->spaces[a] = NULL;
		sws__mem_free(mem, SWS_MEM_mm, sp, sizeof(*sp));
		freed++;
	}
	mm->dead_head = 0;
	mm->nr_dead = 0;
	for (unsigned c = 0; c < mm->nr_cpus; c++)
		mm->pcpu[c].space = NULL; /* no cached pointer may outlive its descriptor */
	sws_spin_unlock(&mm->spaces_lock);
	return freed;
}

/* The space @asid exited: its descriptor waits for a trim. */
static void space_dead(struct sws_mm *mm, uint32_t asid, struct sws_space *sp)
{
	mm_lock(mm, &mm->spaces_lock, SWS_MM_lock_mm_other_contended);
	sp->dead_next = mm->dead_head;
	mm->dead_head = asid + 1;
	mm->nr_dead++;
	sws_spin_unlock(&mm->spaces_lock);
}


/* ---- regions (the space's mmap_lock held) --------------------------------------------- */

struct sws_region *sws___mm_region(struct sws_space *sp, uint64_t vaddr)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
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
int sws___mm_region_insert(struct sws_mm *mm, struct sws_space *sp, uint64_t start, uint64_t end, unsigned orders)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	uint32_t at = 0;
	while (at < sp->nr_regions && sp->regions[at].start < start)
		at++;
	if ((at > 0 && sp->regions[at - 1].end > start) || (at < sp->nr_regions && sp->regions[at].start < end))
		return SWS_EINVAL;
	if (sp->nr_regions == sp->cap_regions) {
		uint32_t cap = sp->cap_regions ? sp->cap_regions * 2 : 8;
		struct sws_region *n = sws__mem_zalloc(sws__sim_mem(mm->sim), SWS_MEM_mm, sizeof(*n) * cap, 0);
		if (!n)
			return SWS_ENOMEM;
		if (sp->regions)
			memcpy(n, sp->regions, sizeof(*n) * sp->nr_regions);
		sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, sp->regions, sizeof(*n) * sp->cap_regions);
		sp->regions = n;
		sp->cap_regions = cap;
	}
	memmove(&sp->regions[at + 1], &sp->regions[at], sizeof(*sp->regions) * (sp->nr_regions - at));
	sp->regions[at] = (struct sws_region){.start = start, .end = end, .orders = (uint16_t)orders};
	sp->nr_regions++;
	return 0;
}

void sws___mm_mmap_implicit(struct sws_mm *mm, struct sws_space *sp, uint64_t vaddr)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	uint64_t start = vaddr & ~(IMPLICIT_REGION - 1), end = start + IMPLICIT_REGION;
	for (uint32_t i = 0; i < sp->nr_regions; i++) { /* clip against neighbours */
		struct sws_region *r = &sp->regions[i];
		if (r->end <= vaddr && r->end > start)
			start = r->end;
		if (r->start > vaddr && r->start < end)
			end = r->start;
	}
	/* the policy's orders (on ENOMEM: no region, order 0) */
	sws___mm_region_insert(mm, sp, start, end, mm->cfg.anon_orders);
}

/* mmap_lock of @sp held: no region left in [@addr, @end) (those across an
 * edge keep their part outside). */
static void regions_cut(struct sws_mm *mm, struct sws_space *sp, uint64_t addr, uint64_t end)
{
	SWS_ASSERT_HELD(&sp->mmap_lock);
	for (uint32_t i = 0; i < sp->nr_regions; i++) {
		struct sws_region *r = &sp->regions[i];
		if (r->end <= addr || r->start >= end)
			continue;
		if (r->start >= addr && r->end <= end) {
			memmove(r, r + 1, sizeof(*r) * (sp->nr_regions - i - 1));
			sp->nr_regions--;
			i--;
		} else if (r->start < addr && r->end > end) {
			struct sws_region tail = *r;
			r->end = addr;
			tail.start = end;
			sws___mm_region_insert(mm, sp, tail.start, tail.end, tail.orders);
		} else if (r->start < addr) {
			r->end = addr;
		} else {
			r->start = end;
		}
	}
}

int sws_mm_mmap(struct sws_mm *mm, uint32_t asid, uint64_t addr, uint64_t len, uint32_t flags)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	unsigned order = SWS_MM_MAP_ORDER(flags);
	if (!sp || !sp->alive || !len || (addr | len) & (SWS_PAGE_SIZE - 1) || addr + len < addr ||
	    (addr + len) >> 48 || order >= SWS_NR_ORDERS || (flags & ~0xfu))
		return SWS_EINVAL;
	mm_lock(mm, &sp->mmap_lock, SWS_MM_lock_mm_other_contended);
	/* Over mapped ranges the new region takes their place and their pages
	 * stay: a trace reports a VMA again whole when it grows, merges or has
	 * its protection changed (perf's MMAP2), and the kernel returns no
	 * mapped range to a plain mmap, so what is there is the same mapping or
	 * the model's implicit guess around earlier faults. */
	regions_cut(mm, sp, addr, addr + len);
	/* MAP_ORDER(o): every order up to o; the policy's orders besides */
	unsigned orders = order ? ((2u << order) - 1) & ~1u : 0;
	atomic_fetch_or_explicit(&mm->swapin_orders_any, orders, memory_order_relaxed);
	int rc = sws___mm_region_insert(mm, sp, addr, addr + len, orders | mm->cfg.anon_orders);
	sws_spin_unlock(&sp->mmap_lock);
	return rc;
}

int sws__mm_range_ok(struct sws_space *sp, uint64_t addr, uint64_t len)
{
	return sp && sp->alive && len && !((addr | len) & (SWS_PAGE_SIZE - 1)) && addr + len > addr &&
	       !((addr + len - 1) >> 48);
}

int sws_mm_munmap(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, uint64_t addr, uint64_t len)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !sws__mm_range_ok(sp, addr, len))
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu), end = addr + len;
	enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_free);
	sws__mm_lru_add_drain(cpu, mm); /* unmap_region() */
	sws__mm_split_edges(cpu, mm, sp, addr, end);
	sws__mm_space_lock(mm, sp);
	sws___mm_zap_range(cpu, mm, asid, sp, addr, end);
	regions_cut(mm, sp, addr, end);
	sws__mm_space_unlock(sp);
	sws__cpu_work_enter(cpu, wc);
	mm_kernel_exit(mm, cpu, t0);
	return 0;
}

int sws_mm_exit(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, asid) : NULL;
	if (!cpu || !sp || !sp->alive)
		return SWS_EINVAL;
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_free);
	sws__mm_lru_add_drain(cpu, mm); /* exit_mmap() */
	sws__mm_space_lock(mm, sp);
	sp->alive = false;
	sws___mm_zap_range(cpu, mm, asid, sp, 0, 1ull << 48);
	sws___pgtable_free(mm, sp);
	sws__mem_free(sws__sim_mem(mm->sim), SWS_MEM_mm, sp->regions, sizeof(*sp->regions) * sp->cap_regions);
	sp->regions = NULL;
	sp->nr_regions = sp->cap_regions = 0;
	sws__mm_space_unlock(sp);
	sws__cpu_work_enter(cpu, wc);
	mm_kernel_exit(mm, cpu, t0);
	space_dead(mm, asid, sp);
	return 0;
}

/* dup_mmap(): the child's regions and page tables (copy_page_range), the
 * parent whole and then the child whole (the child's locks are uncontended
 * until its first rmap is added: a reclaim that finds it takes its ptl). */
static int dup_mmap(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_space *sp, uint32_t *child)
{
	struct sws_space *cp;
	int rc = sws__mm_space_new(mm, sp->memcg, child, &cp);
	if (rc)
		return rc;
	sws__mm_space_lock(mm, sp);
	sws__mm_space_lock(mm, cp);
	for (uint32_t i = 0; i < sp->nr_regions && !rc; i++)
		rc = sws___mm_region_insert(mm, cp, sp->regions[i].start, sp->regions[i].end,
					    sp->regions[i].orders);
	if (!rc)
		rc = sws___mm_copy_page_range(cpu, mm, sp, cp, *child);
	sws__mm_space_unlock(cp);
	sws__mm_space_unlock(sp);
	if (rc) { /* undo: the child goes as a whole */
		sws_mm_exit(cpu, mm, *child);
		return rc;
	}
	return 0;
}

int sws_mm_fork(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t parent, uint32_t *child)
{
	struct sws_space *sp = mm ? sws__mm_space(mm, parent) : NULL;
	if (!cpu || !sp || !sp->alive || !child)
		return SWS_EINVAL;
	if (atomic_load(&sp->oom_killed))
		return SWS_EKILLED; /* a dying task does not fork */
	uint64_t t0 = mm_kernel_enter(mm, cpu);
	int rc = dup_mmap(cpu, mm, sp, child);
	mm_kernel_exit(mm, cpu, t0);
	return rc;
}

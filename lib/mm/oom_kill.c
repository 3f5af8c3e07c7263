/*
 * oom_kill.c - the OOM killer (mm/oom_kill.c): when a charge finds no memory
 * and reclaim made no progress MAX_RECLAIM_RETRIES times (memcontrol.c), the task
 * with the largest footprint in the memcg that is over its limit (or in the
 * whole machine, for a RAM shortage) is killed and its memory reaped at once.
 *
 * oom_badness(): resident pages + swap entries + page-table pages, as the
 * kernel's get_mm_rss() + MM_SWAPENTS + mm_pgtables_bytes() / PAGE_SIZE.
 * select_bad_process() walks the address spaces in creation order and, like
 * the kernel's oom_evaluate_task() (which passes over a task only when it
 * scores below the chosen one), lets a tie replace the chosen task: among
 * equal scores the last (newest) space is the victim. Tasks already killed
 * are skipped (they are reaped at once: the kernel's MMF_OOM_SKIP); a space
 * that maps nothing is no victim.
 *
 * Killing is the oom_reaper's work (__oom_reap_task_mm) done synchronously,
 * its time measured apart as background time (the kthread's, no task's:
 * mm_untimed_begin), its swap work counted in the free context:
 * every PTE of the victim is zapped (its folios and swap slots freed through
 * the ordinary free path); its page tables stay, as the reaper leaves them,
 * until its owner exits (sws_mm_exit frees them, as exit_mmap does), so a
 * fault of the victim in flight on another CPU, which keeps a PTE pointer
 * across a dropped ptl, finds a zapped entry, never freed memory. Every later
 * access or fork of the space fails with SWS_EKILLED. A victim that is the
 * allocating task sees SWS_EKILLED from the charge; any other task's charge
 * retries with the memory the kill returned. This bounds the work of a
 * workload that does not fit: without the kill, every further fault would
 * rescan the whole LRU in vain.
 *
 * Callers hold no lock (charges happen with the ptl dropped); the victim's
 * ptl is taken here, one space at a time.
 */
#include "mm_internal.h"

struct badness {
	uint64_t points;
};

static void count_pte(void *ctx, uint64_t vaddr, uint64_t *pte)
{
	(void)vaddr;
	struct badness *b = ctx;
	if (!(*pte & PTE_ZEROPAGE))
		b->points++; /* a resident page, or a swap entry */
}

/* oom_badness() of a live space (the whole space locked here). */
static uint64_t oom_badness(struct sws_mm *mm, struct sws_space *sp)
{
	struct badness b = {0};
	sws__mm_space_lock(mm, sp);
	if (sp->alive && !atomic_load(&sp->oom_killed)) {
		sws___pte_walk(sp, 0, 1ull << 48, count_pte, &b);
		b.points += atomic_load_explicit(&sp->nr_tables, memory_order_relaxed);
	}
	sws__mm_space_unlock(sp);
	return b.points;
}

/* select_bad_process(): @return the victim's asid, or SWS__MM_NO_ASID. */
static uint32_t select_bad_process(struct sws_mm *mm, uint16_t memcg)
{
	uint32_t victim = SWS__MM_NO_ASID;
	uint64_t best = 0;
	mm_lock(mm, &mm->spaces_lock, SWS_MM_lock_mm_other_contended);
	uint32_t n = mm->nr_spaces;
	sws_spin_unlock(&mm->spaces_lock);
	for (uint32_t a = 0; a < n; a++) {
		struct sws_space *sp = sws__mm_space(mm, a);
		if (!sp || (memcg && sp->memcg != memcg))
			continue;
		uint64_t points = oom_badness(mm, sp);
		if (points && points >= best) { /* oom_evaluate_task(): a tie replaces */
			best = points;
			victim = a;
		}
	}
	return victim;
}

/* __oom_reap_task_mm(): unmap everything the victim maps, now; the page
 * tables stay until it exits. @return false when another CPU killed it, or it
 * exited, since it was chosen. */
static bool oom_reap(struct sws_cpu *cpu, struct sws_mm *mm, uint32_t asid, struct sws_space *sp)
{
	/* The oom_reaper kthread's work, not the allocating task's: background time. */
	uint64_t t0 = mm_untimed_begin(mm, cpu, true);
	sws__mm_space_lock(mm, sp);
	bool reap = sp->alive && !atomic_exchange(&sp->oom_killed, true);
	if (reap) {
		enum sws_work_ctx wc = sws__cpu_work_enter(cpu, SWS_WCTX_free);
		sws___mm_zap_range(cpu, mm, asid, sp, 0, 1ull << 48);
		sws__cpu_work_enter(cpu, wc);
	}
	sws__mm_space_unlock(sp);
	mm_untimed_end(mm, cpu, t0, true);
	return reap;
}

int sws__mm_out_of_memory(struct sws_cpu *cpu, struct sws_mm *mm, uint16_t memcg)
{
	uint32_t victim = select_bad_process(mm, memcg);
	if (victim == SWS__MM_NO_ASID)
		return SWS_ENOMEM; /* nothing killable: the charge fails */
	if (oom_reap(cpu, mm, victim, sws__mm_space(mm, victim)))
		mm_count(mm, cpu, SWS_MM_oom_kill, 1);
	return victim == sws__mm_current(mm, cpu) ? SWS_EKILLED : 0; /* else: retry the charge */
}

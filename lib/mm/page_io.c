/*
 * page_io.c - reading and writing a page of a slot (mm/page_io.c:
 * swap_read_folio, swap_writeout): the zero flag, zswap (load and store), the
 * device's latency model and, in verify mode, its store, byte for byte.
 * Callers: swap_state.c and memory.c (reads), vmscan.c (writes).
 */
#include <string.h>

#include "../zswap/zswap_mm.h"
#include "mm_internal.h"

/* ---- reading a slot ------------------------------------------------------------------ */

/* A large folio read from the slots from @e on: its seed is its first page's
 * unmixed, and where the slots hold pages of separate folios (their seeds are
 * not the ones derived from it) each page keeps its own (PG_page_seed; the
 * room came with the folio: sws__mm_swapin_folio_alloc()). */
static void folio_seeds_read(struct sws_mm *mm, struct sws_folio *f, sws_entry_t e)
{
	const unsigned nr = 1u << f->order;
	assert(f->page_seed && f->page_seed_order >= f->order);
	uint64_t own = 0;
	f->seed = mm_unmix(sws__mm_slot_seed_get(mm, e));
	for (unsigned i = 0; i < nr; i++)
		own |= f->page_seed[i] = sws__mm_slot_seed_get(mm, e + i) ^ mm_mix(f->seed + i);
	if (own)
		folio_set(f, PG_page_seed);
}

/* swap_read_folio() for the pages of locked folio @f from slot @e on (a large
 * folio's seeds: folio_seeds_read()).
 * @sync: the fault waits for this read (a read-ahead one is asynchronous). */
int sws__mm_swap_read_folio(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t e,
			    bool sync, struct sws_device *si)
{
	SWS_ASSERT_FOLIO_LOCKED(f);
	const unsigned nr = 1u << f->order;
	unsigned type = sws_swp_type(e);
	if (f->order)
		folio_seeds_read(mm, f, e);
	else
		f->seed = sws__mm_slot_seed_get(mm, e);
	if (sws_swap_test_zero(cpu, e)) { /* swap_read_folio_zeromap(): the whole folio */
		mm_count(mm, cpu, SWS_MM_swpin_zero, nr);
		return 0;
	}
	if (mm->zswap && !f->order) { /* a large folio is read only while zswap was never on */
		uint8_t page[SWS_PAGE_SIZE], want[SWS_PAGE_SIZE];
		int rc = sws__zswap_load(mm->zswap, cpu, e, page);
		if (rc == 0) {
			sws__mm_cost_zcomp(cpu, mm, f->seed, true);
			/* Exclusive load: the folio owns the only copy now, it must be
			 * written again should it be reclaimed. */
			folio_set(f, PG_dirty);
			if (!(mm->cfg.flags & SWS_MM_VERIFY))
				return 0;
			uint64_t t0 = mm_untimed_begin(mm, cpu, false); /* verifying: the simulator's */
			sws_mm_page_content(mm, f->seed, 0, want);
			bool same = !memcmp(page, want, SWS_PAGE_SIZE);
			mm_untimed_end(mm, cpu, t0, false);
			mm_count(mm, cpu, same ? SWS_MM_verify_ok : SWS_MM_verify_fail, 1);
			return same ? 0 : SWS_ECORRUPT;
		}
		if (rc != SWS_ENOENT)
			return rc; /* the kernel fails the read: SIGBUS */
		/* A miss that goes to the device: maybe zswap wrote back something hot. */
		sws__zswap_disk_swapin(mm->zswap, f->memcg);
		mm_count(mm, cpu, SWS_MM_nr_disk_swapins, 1);
	}
	sws_entry_t t; /* vswap: the physical slot behind the virtual entry */
	if (mm_io_target(cpu, mm, e, nr, false, &t))
		return SWS_EIO; /* no copy anywhere: the kernel's swap_read_folio() fails it */
	type = sws_swp_type(t);
	/* one read of the whole folio: pswpin and the tier count pages, mTHP swpin the folio */
	mm_count(mm, cpu, SWS_MM_pswpin, nr);
	sws__mm_count_tier(mm, cpu, type, false, nr);
	if (f->order)
		sws__mm_count_swpin(mm, cpu, f->order, SWS__SWPIN);
	mm_io(mm, cpu, type, mm->read_ns[type] * nr, sync, false, f->seed);
	if (!(mm->cfg.flags & SWS_MM_VERIFY))
		return 0;
	if (!si || sws__device_type(si) != type) /* vswap: the backend moved since the fault looked */
		si = sws__get_swap_device(mm->sim, type);
	if (!si || !sws__device_backed(si))
		return 0;
	/* The store's host I/O (the device time is the latency model's, above) and
	 * the check are the simulator's work: untimed. */
	uint8_t got[SWS_PAGE_SIZE], want[SWS_PAGE_SIZE];
	uint64_t t0 = mm_untimed_begin(mm, cpu, false);
	int rc = 0;
	for (unsigned i = 0; i < nr && !rc; i++) {
		rc = sws_swap_readpage(cpu, t + i, got) != 0 ? SWS_EIO : 0;
		if (!rc) {
			sws_mm_page_content(mm, folio_page_seed(f, i), 0, want);
			rc = memcmp(got, want, SWS_PAGE_SIZE) ? SWS_ECORRUPT : 0;
		}
	}
	mm_untimed_end(mm, cpu, t0, false);
	if (rc != SWS_EIO) /* per page checked */
		mm_count(mm, cpu, rc ? SWS_MM_verify_fail : SWS_MM_verify_ok, rc ? 1 : nr);
	return rc;
}

/*
 * A page I/O under the modelled clock. On a SYNCHRONOUS_IO device (zram,
 * pmem) the submitting CPU does the work: @ns of its time when it waits
 * (sys; read-ahead costs nothing here, as with the host clock). Elsewhere the
 * request goes through the device's queue: a read the task waits for ends its
 * wait at the request's end; a write is asynchronous and holds the writer only
 * while every queue slot is taken (reclaim throttled on writeback).
 */
void sws__mm_io_model(struct sws_mm *mm, struct sws_cpu *cpu, unsigned type, uint64_t ns, bool wait, bool write,
		      uint64_t seed)
{
	struct sws_vcpu *vc = sws__cpu_vcpu(cpu);
	struct sws_mm_pcpu *p = &mm->pcpu[sws__cpu_id(cpu)];
	if (mm->io_zram[type]) {
		/* zram_write_page(): compress, then copy into zsmalloc; a read the reverse */
		if (!wait)
			return;
		uint64_t t0 = sws__vt_busy(vc);
		uint64_t per_page = write ? mm->write_ns[type] : mm->read_ns[type];
		unsigned pages = (unsigned)(ns / (per_page ? per_page : 1));
		unsigned c = (write ? SWS_COST_compress_lz4_zero : SWS_COST_decompress_lz4_zero) +
			     sws__mm_content_class(mm, seed);
		sws__vt_charge(vc, (enum sws_cost)c, (uint64_t)SWS_PAGE_SIZE * (pages ? pages : 1));
		sws__vt_charge(vc, SWS_COST_page_copy, pages ? pages : 1);
		mm_time_add(&p->sys_modelled_ns, (sws__vt_busy(vc) - t0) / 1000);
		return;
	}
	if (mm->io_is_cpu[type]) {
		if (!wait)
			return;
		vc->now += ns * 1000;
		vc->device_cpu += ns * 1000;
		mm_time_add(&p->sys_modelled_ns, ns);
		return;
	}
	uint64_t start, end = sws__device_submit(cpu, type, ns * 1000, &start);
	uint64_t until = write ? start : wait ? end : vc->now;
	if (until > vc->now) {
		uint64_t waited = until - vc->now;
		sws__vt_idle(vc, waited);
		vc->io_wait += waited;
		mm_time_add(&p->iowait_ns, waited / 1000);
	}
}

/* ---- pageout -------------------------------------------------------------------------- */

void sws__mm_count_order(struct sws_mm *mm, struct sws_cpu *cpu, _Atomic uint64_t *arr)
{
	(void)mm;
	(void)cpu;
	sws_store_relaxed(arr, sws_load_relaxed(arr) + 1);
}

/*
 * swap_writeout(): flag zero pages (no I/O), else zswap, else the device.
 * @return 0, or SWS_EBUSY: zswap refused and this memcg may not write back,
 * so the folio stays (in the swap cache, activated), as the kernel does (or
 * the simulator had no memory for the slots' seeds).
 */
int sws__mm_swap_writeout(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t entry)
{
	SWS_ASSERT_FOLIO_LOCKED(f);
	const unsigned nr = 1u << f->order;
	bool zero = true;
	for (unsigned i = 0; i < nr && zero; i++)
		zero = sws__mm_content_is_zero(mm, folio_page_seed(f, i));
	for (unsigned i = 0; i < nr; i++)
		if (sws__mm_slot_seed_set(mm, entry + i, folio_page_seed(f, i)))
			return SWS_EBUSY; /* no memory to remember its contents: the folio stays */
	sws_swap_set_zero(cpu, entry, nr, zero);
	if (zero) {
		mm_count(mm, cpu, SWS_MM_swpout_zero, nr);
		return 0;
	}
	if (mm->zswap) {
		if (sws__mm_zswap_store_folio(cpu, mm, f, entry) == 0)
			return 0;
		if (!sws__zswap_writeback_allowed(mm->zswap, f->memcg))
			return SWS_EBUSY;
	}
	/* vswap: the virtual entry gets a physical run now (vswap_alloc_swap_slot());
	 * with none free, swap_writeout() says "activate": the folio stays in RAM. */
	sws_entry_t target;
	if (mm_io_target(cpu, mm, entry, nr, true, &target))
		return SWS_EBUSY;
	struct sws_device *dev = sws__get_swap_device(mm->sim, sws_swp_type(target));
	if (dev && (sws__device_flags(dev) & SWS_SWP_XSWAP)) {
		/* xswap: zswap refused it and there is nowhere else to write, so
		 * swap_writeout() says "activate": the folio stays in RAM. */
		mm_count(mm, cpu, SWS_MM_xswap_reject_activate, nr);
		return SWS_EBUSY;
	}
	/* the write failed: keep the page (re-dirtied) */
	return sws__mm_swap_writepage(cpu, mm, f, target, nr, NULL) ? SWS_EBUSY : 0;
}

int sws__mm_swap_writepage(struct sws_cpu *cpu, struct sws_mm *mm, struct sws_folio *f, sws_entry_t target,
			   unsigned nr, const void *page)
{
	unsigned type = sws_swp_type(target), order = (unsigned)__builtin_ctz(nr);
	struct sws_device *dev = sws__get_swap_device(mm->sim, type);
	if (dev && sws__device_backed(dev)) {
		/* The page's bytes and the store's host I/O are the simulator's work
		 * (the device time is the latency model's, below): untimed. */
		uint8_t buf[SWS_PAGE_SIZE];
		int rc = 0;
		uint64_t t0 = mm_untimed_begin(mm, cpu, false);
		for (unsigned i = 0; i < nr && !rc; i++) {
			if (!page)
				sws_mm_page_content(mm, folio_page_seed(f, i), 0, buf);
			rc = sws_swap_writepage(cpu, target + i, page ? page : buf);
		}
		mm_untimed_end(mm, cpu, t0, false);
		if (rc)
			return rc;
	}
	/* count_swpout_vm_event() */
	mm_count(mm, cpu, SWS_MM_pswpout, nr);
	sws__mm_count_tier(mm, cpu, type, true, nr);
	mm_io(mm, cpu, type, mm->write_ns[type] * nr, true, true, f->seed); /* the writer waits for the write */
	sws__mm_count_order(mm, cpu, &mm->pcpu[sws__cpu_id(cpu)].swpout[order]);
	if (order == SWS_NR_ORDERS - 1)
		mm_count(mm, cpu, SWS_MM_thp_swpout, 1);
	return 0;
}

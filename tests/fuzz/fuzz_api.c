/*
 * fuzz_api.c - a fuzz target for the per-slot API (swapsim/swap.h): the input
 * is a sequence of calls, valid and invalid, in any order, run on every design
 * of a group at once. What lib/swap/design.h promises is checked after every
 * call:
 *
 *   - the designs of a group agree: the same return code and the same outputs
 *     (entries, counts, PFNs, shadows, zero flags, per-slot states), as
 *     tests/unit/test_backends.c has them for seeded sequences;
 *   - a refused call changes nothing: every slot it named is as it was;
 *   - sws_swap_check() finds every invariant of section 9.2 kept (a pinned
 *     slot included), every CHECK_EVERY calls and at the end (a broken
 *     invariant stays broken: the report names a call at most CHECK_EVERY
 *     after the one that broke it);
 *   - nothing crashes or leaks under the sanitizers, and destroying a
 *     simulation with slots still allocated gives everything back.
 *
 * Input: byte 0 the group: 0 the five lockstep designs (st-p4, xarray,
 * st-p1, st-p2, st-p3) on an SSD, no pin; 1 the designs with the
 * SYNCHRONOUS_IO bypass (xarray, st-p1) on a pmem-like device, pins and
 * unpins among the calls; 2 vswap's variants (vswap, vswap-v3) on a
 * pmem-like device (their entries are virtual: compared with each other, as
 * only their free paths' work differs). Then 4 bytes
 * a call (at most 256): the call, which entry, how many slots (1, 2, 4, 8 or
 * a range that crosses a cluster), and a value (order, PFN choice, shadow,
 * memcg, zero flag).
 */
#include <string.h>

#include <swapsim/swapsim.h>

#include "fuzz.h"

#define MAX_CALLS 256
#define MAX_SIMS 5
#define NR_SLOTS (2 * SWS_CLUSTER_SLOTS)
#define CHECK_EVERY 8
#define MAX_KNOWN 32

struct world {
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
};

static const enum sws_backend groups[3][MAX_SIMS] = {
	{SWS_BACKEND_ST_P4, SWS_BACKEND_XARRAY, SWS_BACKEND_ST_P1, SWS_BACKEND_ST_P2, SWS_BACKEND_ST_P3},
	{SWS_BACKEND_XARRAY, SWS_BACKEND_ST_P1},
	{SWS_BACKEND_VSWAP, SWS_DESIGN_VSWAP_V3},
};
static const unsigned group_size[3] = {5, 2, 2};

/* A call's outputs, compared across the group. */
struct out {
	int rc;
	sws_entry_t entry;
	uint64_t u64;
	uint32_t u32;
	bool flag;
	uint64_t only_cache[SWS_CLUSTER_SLOTS / 64];
};

static bool same_state(const struct sws_slot_state *a, const struct sws_slot_state *b)
{
	return a->allocated == b->allocated && a->bad == b->bad && a->cached == b->cached && a->zero == b->zero &&
	       a->memcg == b->memcg && a->count == b->count && a->pfn == b->pfn && a->shadow == b->shadow;
}

/* The state of @nr slots from @e (slots beyond the device or of no device read as an error code). */
static void states(struct world *w, sws_entry_t e, unsigned nr, struct sws_slot_state *st, int *rc)
{
	for (unsigned i = 0; i < nr && i < 2 * SWS_CLUSTER_SLOTS; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		rc[i] = sws_swap_slot_state(w->sim, e + i, &st[i]);
	}
}

/* One call on one world. */
static void call(struct world *w, unsigned op, sws_entry_t e, unsigned nr, uint8_t v, uint64_t pfn,
		 uint64_t pfn2, struct out *o)
{
	memset(o, 0, sizeof(*o));
	switch (op) {
	case 0:
		o->rc = sws_folio_alloc_swap(w->cpu, pfn, v % 4, &o->entry);
		break;
	case 1:
		o->rc = sws_swap_dup(w->cpu, e, nr);
		break;
	case 2:
		o->rc = sws_swap_put(w->cpu, e, nr);
		break;
	case 3:
		o->rc = sws_swap_put_entries_direct(w->cpu, e, nr, o->only_cache);
		break;
	case 4:
		o->rc = sws_swap_cache_add(w->cpu, e, nr, pfn, &o->u64);
		break;
	case 5:
		o->rc = sws_swap_cache_del(w->cpu, e, nr, pfn2, v);
		break;
	case 6:
		o->rc = sws_swap_cache_replace(w->cpu, e, nr, pfn2, pfn);
		break;
	case 7:
		o->rc = sws_swapin_bypass_start(w->cpu, e, nr, &o->u64);
		break;
	case 8:
		o->rc = sws_swapin_bypass_done(w->cpu, e, nr);
		break;
	case 9:
		o->rc = sws_swap_set_zero(w->cpu, e, nr, v & 1);
		break;
	case 10:
		o->rc = sws_swap_set_memcg(w->cpu, e, nr, v);
		break;
	case 11:
		o->rc = sws_swap_count(w->cpu, e, &o->u32);
		o->u64 = sws_swap_cache_lookup(w->cpu, e);
		o->flag = sws_swap_test_zero(w->cpu, e);
		break;
	case 12:
		o->rc = sws_swap_cache_get_shadow(w->cpu, e, &o->u64);
		break;
	case 13:
		o->rc = sws_swap_io_target(w->cpu, e, nr, v & 1, &o->entry);
		break;
	default:
		sws_swap_do_deferred_work(w->sim, v);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned g = data[0] % 3, n = group_size[g];
	uint32_t flags = SWS_SWP_SOLIDSTATE | (g ? SWS_SWP_SYNCHRONOUS_IO : 0);
	struct world w[MAX_SIMS];
	for (unsigned s = 0; s < n; s++) {
		struct sws_sim_config sc = {.backend = groups[g][s], .max_cpus = 1};
		FUZZ_CHECK(sws_sim_create(&sc, &w[s].sim) == 0, "sim create");
		FUZZ_CHECK(sws_cpu_attach(w[s].sim, &w[s].cpu) == 0, "cpu attach");
		struct sws_device_config dc = {.nr_slots = NR_SLOTS, .flags = flags};
		FUZZ_CHECK(sws_swapon(w[s].sim, &dc, &w[s].type) == 0, "swapon");
	}
	/* Entries the allocations gave (the same on every design of a group but
	 * vswap, whose are its own), the folios they hold, and a PFN counter. */
	sws_entry_t known[MAX_KNOWN] = {0};
	uint64_t folio[MAX_KNOWN] = {0};
	unsigned nknown = 0;
	uint64_t next_pfn = 1;
	static struct sws_slot_state before[MAX_SIMS][2 * SWS_CLUSTER_SLOTS], after[2 * SWS_CLUSTER_SLOTS];
	static int brc[MAX_SIMS][2 * SWS_CLUSTER_SLOTS], arc[2 * SWS_CLUSTER_SLOTS];
	for (size_t i = 1; i + 4 <= size && i / 4 < MAX_CALLS; i += 4) {
		const uint8_t *b = data + i;
		unsigned op = b[0] % 16;
		if (!g && (op == 7 || op == 8))
			op = 11; /* group 0 runs designs without the bypass beside ones with it */
		/* The entry: a known one (shifted a little), the header, past the end,
		 * another type, or 0. */
		unsigned k = b[1];
		sws_entry_t e;
		if (k < 200 && nknown)
			e = known[k % nknown] + (k / 32 % 4 == 3 ? (uint64_t)(k % 3) : 0);
		else if (k < 240)
			e = sws_swp_entry((unsigned)w[0].type, 1 + (uint64_t)k * 9 % (NR_SLOTS + 8));
		else if (k < 248)
			e = sws_swp_entry((unsigned)w[0].type, 0);
		else if (k < 252)
			e = sws_swp_entry((unsigned)w[0].type + 1 + k % 3, 1);
		else
			e = 0;
		static const unsigned nrs[] = {1, 1, 1, 2, 4, 8, 16, SWS_CLUSTER_SLOTS + 1};
		unsigned nr = nrs[b[2] % 8];
		uint8_t v = b[3];
		unsigned ki = nknown ? k % nknown : 0;
		uint64_t pfn = op == 0 || op == 4 || op == 6 ? next_pfn++ : 0;
		uint64_t pfn2 = (v & 0x80) || !nknown ? 1u + v % 64u : folio[ki];
		if (op == 4 && (v & 0x40))
			pfn = 0; /* refused: no PFN */
		struct out o[MAX_SIMS];
		for (unsigned s = 0; s < n; s++) {
			states(&w[s], e, nr, before[s], brc[s]);
			call(&w[s], op, e, nr, v, pfn, pfn2, &o[s]);
		}
		for (unsigned s = 0; s < n; s++) {
			/* A refused call changes nothing. */
			if (o[s].rc && op != 15) {
				states(&w[s], e, nr, after, arc);
				for (unsigned j = 0; j < nr && j < 2 * SWS_CLUSTER_SLOTS; j++)
					FUZZ_CHECK(arc[j] == brc[s][j] && same_state(&after[j], &before[s][j]),
						   "%s: call %u (op %u) refused with %s changed slot %u of %u",
						   sws_backend_name(groups[g][s]), (unsigned)(i / 4), op,
						   sws_error_name(o[s].rc), j, nr);
			}
			char msg[256];
			bool last = i + 8 > size || (i + 4) / 4 >= MAX_CALLS;
			if (i / 4 % CHECK_EVERY == CHECK_EVERY - 1 || last)
				FUZZ_CHECK(sws_swap_check(w[s].sim, msg, sizeof(msg)) == 0,
					   "%s: after call %u (op %u) or one of the %u before: %s",
					   sws_backend_name(groups[g][s]), (unsigned)(i / 4), op, CHECK_EVERY - 1, msg);
			if (s == 0)
				continue;
			/* The designs of a group agree. */
			FUZZ_CHECK(o[s].rc == o[0].rc && o[s].entry == o[0].entry && o[s].u64 == o[0].u64 &&
					   o[s].u32 == o[0].u32 && o[s].flag == o[0].flag &&
					   !memcmp(o[s].only_cache, o[0].only_cache, sizeof(o[0].only_cache)),
				   "call %u (op %u, %u slots): %s gives %s, %s gives %s", (unsigned)(i / 4), op, nr,
				   sws_backend_name(groups[g][0]), sws_error_name(o[0].rc),
				   sws_backend_name(groups[g][s]), sws_error_name(o[s].rc));
			states(&w[s], e, nr, after, arc);
			states(&w[0], e, nr, before[0], brc[0]);
			for (unsigned j = 0; j < nr && j < 2 * SWS_CLUSTER_SLOTS; j++)
				FUZZ_CHECK(arc[j] == brc[0][j] && same_state(&after[j], &before[0][j]),
					   "call %u (op %u): slot %u differs between %s and %s", (unsigned)(i / 4), op,
					   j, sws_backend_name(groups[g][0]), sws_backend_name(groups[g][s]));
		}
		if (op == 0 && !o[0].rc) { /* remember the allocation */
			unsigned slot = nknown < MAX_KNOWN ? nknown++ : (unsigned)(pfn % MAX_KNOWN);
			known[slot] = o[0].entry;
			folio[slot] = pfn;
		} else if ((op == 4 || op == 6) && !o[0].rc && nknown) {
			folio[ki] = pfn; /* the slots hold this folio now (when e was known[ki]) */
		}
	}
	for (unsigned s = 0; s < n; s++) {
		sws_cpu_detach(w[s].cpu);
		sws_sim_destroy(w[s].sim);
	}
	return 0;
}

/*
 * test_backends.c - randomized differential test of the two per-slot backends.
 *
 * One seeded sequence of operations runs on two simulations with identical
 * devices, one on the swap table backend and one on the XArray backend. The
 * slot allocator is shared and, with one CPU, deterministic, so both must
 * hand out the same entries; every per-slot call must return the same code
 * and the same outputs on both. The test also keeps its own model of every
 * slot (reference 9.1: FREE, CACHED with a count, SHADOW with a count) and of
 * every live folio, predicts each result from the contract in
 * lib/cache/cache_ops.h, and compares.
 *
 * Most operations are plausible (a folio is allocated, unmapped, evicted,
 * swapped in, migrated or split, its references dropped); about one in eight
 * is invalid on purpose: a put on a free slot, an add over a cached folio, a
 * delete with the wrong folio, ranges crossing a cluster or the device end,
 * the header slot, unknown types, bad PFNs and shadows.
 *
 * Every CHECK_EVERY operations and at the end: every slot's state on both
 * simulations against each other and the model, the device lists, the
 * counters, sws_swap_check() (reference 9.2), and invariant 3 (a folio's slots
 * lie in one cluster, aligned, all holding its PFN) from the model. At the
 * end everything is freed and the dynamic memory must be back to the figure
 * taken right after swapon; after swapoff of every device it must be 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The backend compared against the swap table (a build may pass another to test the test). */
#ifndef SWS_DIFF_OTHER_BACKEND
#define SWS_DIFF_OTHER_BACKEND SWS_BACKEND_XARRAY
#endif

#define NSIM 2
#define NDEV 3
#define OPS_PER_SEED 20000
#define CHECK_EVERY 1000
#define QUIESCE_EVERY 5000 /* memory figures of the swap table (needs an RCU barrier) */
#define LOG_LINES 48
#define SHADOW_MASK ((1ull << SWS_SHADOW_BITS) - 1)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum mstate { M_FREE = 0, M_CACHED, M_SHADOW };

struct mslot {
	uint8_t state;
	bool zero;
	uint16_t memcg;
	uint32_t count;
	uint64_t pfn;    /* M_CACHED */
	uint64_t shadow; /* M_SHADOW */
	int32_t aidx;    /* allocation record holding this slot, -1 when free */
	int32_t fidx;    /* folio record, -1 unless cached */
};

struct mdev {
	int type;
	uint64_t max;
	uint64_t inuse;
	struct mslot *slots; /* [max] */
};

/* An allocation (2^k slots handed out at once) or a folio in the swap cache. */
struct range {
	sws_entry_t e;
	unsigned nr;
	uint64_t pfn;  /* folios */
	unsigned live; /* allocations: slots not yet free */
};

struct vec {
	struct range *v;
	unsigned n, cap;
};

/* Counters the model predicts. */
struct mctr {
	uint64_t add, del, find, find_ok, replace, dup, put, freed;
	uint64_t alloc[SWS_NR_ORDERS], alloc_fail[SWS_NR_ORDERS];
};

struct diff {
	uint64_t seed, rng;
	unsigned op;
	enum sws_backend backend[NSIM];
	struct sws_sim *sim[NSIM];
	struct sws_cpu *cpu[NSIM];
	struct mdev dev[NDEV];
	struct mdev *by_type[SWS_MAX_SWAPFILES];
	struct vec allocs, folios;
	uint64_t next_pfn;
	uint64_t total, cached; /* model: usable slots, slots holding a folio */
	struct mctr m;
	uint64_t base_dynamic[NSIM], base_static[NSIM];
	unsigned enospc0_with_free; /* order-0 ENOSPC while the model had free slots */
	struct {
		unsigned calls, errors, alloc_large, enospc, add, del, replace, split;
		uint32_t max_count;
	} cov; /* what a seed exercised, printed at its end */
	char log[LOG_LINES][160];
	unsigned nlog;
};

/* ---- failure reporting ------------------------------------------------------------- */

static const char *ent(sws_entry_t e, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%llu", sws_swp_type(e), (unsigned long long)sws_swp_offset(e));
	return buf;
}

static void oplog(struct diff *d, const char *fmt, ...)
{
	va_list ap;
	char *line = d->log[d->nlog++ % LOG_LINES];
	int n = snprintf(line, sizeof(d->log[0]), "#%u ", d->op);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(d->log[0]) - (size_t)n, fmt, ap);
	va_end(ap);
}

static void dump_log(struct diff *d)
{
	print_error("seed %llu, op %u (%s vs %s); last operations:\n", (unsigned long long)d->seed, d->op,
		    sws_backend_name(d->backend[0]), sws_backend_name(d->backend[1]));
	unsigned first = d->nlog > LOG_LINES ? d->nlog - LOG_LINES : 0;
	for (unsigned i = first; i < d->nlog; i++)
		print_error("  %s\n", d->log[i % LOG_LINES]);
}

#define DFAIL(d, ...)                   \
	do {                            \
		dump_log(d);            \
		fail_msg(__VA_ARGS__);  \
	} while (0)

/* Run @call on both simulations: cpu_ and s_ name the CPU and the index. */
#define ON_BOTH(d, r, call)                                      \
	do {                                                     \
		for (int s_ = 0; s_ < NSIM; s_++) {              \
			struct sws_cpu *cpu_ = (d)->cpu[s_];     \
			(void)cpu_;                              \
			(r)[s_] = (call);                        \
		}                                                \
	} while (0)

static void check_rc(struct diff *d, const char *what, sws_entry_t e, unsigned nr, const int *r, int want)
{
	char b[40];
	oplog(d, "%s %s nr %u -> %s", what, ent(e, b, sizeof(b)), nr, sws_error_name(r[0]));
	d->cov.calls++;
	d->cov.errors += r[0] != 0;
	if (r[0] != r[1])
		DFAIL(d, "%s(%s, nr %u): %s returned %s, %s returned %s", what, b, nr,
		      sws_backend_name(d->backend[0]), sws_error_name(r[0]), sws_backend_name(d->backend[1]),
		      sws_error_name(r[1]));
	if (r[0] != want)
		DFAIL(d, "%s(%s, nr %u): both returned %s, the contract says %s", what, b, nr,
		      sws_error_name(r[0]), sws_error_name(want));
}

static uint64_t rnd(struct diff *d, uint64_t n) { return n ? sws_test_rand(&d->rng) % n : 0; }

/* ---- model ----------------------------------------------------------------------- */

static void vec_push(struct vec *v, struct range r)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->v = realloc(v->v, sizeof(*v->v) * v->cap);
		assert_non_null(v->v);
	}
	v->v[v->n++] = r;
}

static struct mslot *ms(struct diff *d, sws_entry_t e) { return &d->by_type[sws_swp_type(e)]->slots[sws_swp_offset(e)]; }

/* resolve() of swap_ops.c: which entries and ranges reach a backend at all. */
static int m_resolve(struct diff *d, sws_entry_t e, unsigned nr)
{
	if (!nr || nr > SWS_CLUSTER_SLOTS)
		return SWS_EINVAL;
	unsigned t = sws_swp_type(e);
	struct mdev *md = t < SWS_MAX_SWAPFILES ? d->by_type[t] : NULL;
	uint64_t off = sws_swp_offset(e);
	if (!md || off == 0 || off >= md->max || off + nr > md->max)
		return SWS_EBADENTRY;
	if (off / SWS_CLUSTER_SLOTS != (off + nr - 1) / SWS_CLUSTER_SLOTS)
		return SWS_EINVAL;
	return 0;
}

static bool pfn_ok(uint64_t pfn) { return pfn && !(pfn >> SWS_PFN_BITS); }

/* Swap-remove record @i of @v, fixing the slot back-pointers of the moved record. */
static void vec_remove(struct diff *d, struct vec *v, unsigned i, bool folio)
{
	unsigned last = --v->n;
	if (i == last)
		return;
	v->v[i] = v->v[last];
	for (unsigned k = 0; k < v->v[i].nr; k++) {
		struct mslot *m = ms(d, v->v[i].e + k);
		int32_t *idx = folio ? &m->fidx : &m->aidx;
		if (*idx == (int32_t)last)
			*idx = (int32_t)i;
	}
}

static void m_slot_free(struct diff *d, sws_entry_t e)
{
	struct mslot *m = ms(d, e);
	int32_t a = m->aidx;
	if (m->state == M_CACHED)
		d->cached--;
	*m = (struct mslot){.state = M_FREE, .aidx = -1, .fidx = -1};
	d->by_type[sws_swp_type(e)]->inuse--;
	d->m.freed++;
	if (a >= 0 && --d->allocs.v[a].live == 0)
		vec_remove(d, &d->allocs, (unsigned)a, false);
}

static void m_folio_add(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn)
{
	vec_push(&d->folios, (struct range){.e = e, .nr = nr, .pfn = pfn});
	for (unsigned k = 0; k < nr; k++)
		ms(d, e + k)->fidx = (int32_t)d->folios.n - 1;
}

/* The folio record covering exactly @e..@e+@nr, or -1. */
static int whole_folio(struct diff *d, sws_entry_t e, unsigned nr)
{
	if (m_resolve(d, e, nr))
		return -1;
	struct mslot *m = ms(d, e);
	if (m->state != M_CACHED || m->fidx < 0)
		return -1;
	struct range *f = &d->folios.v[m->fidx];
	return f->e == e && f->nr == nr ? m->fidx : -1;
}

/* A power-of-two range aligned to its size: the shape of a folio (invariant 3). */
static bool folio_shaped(sws_entry_t e, unsigned nr)
{
	return nr && !(nr & (nr - 1)) && sws_swp_offset(e) % nr == 0;
}

/* ---- predictions (the contract of lib/cache/cache_ops.h) ----------------------------- */

static int p_dup(struct diff *d, sws_entry_t e, unsigned nr)
{
	int rc = m_resolve(d, e, nr);
	if (rc)
		return rc;
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->state == M_FREE)
			return SWS_ENOENT;
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->count + 1 > SWS_SWAP_COUNT_MAX)
			return SWS_EOVERFLOW;
	return 0;
}

static int p_put(struct diff *d, sws_entry_t e, unsigned nr)
{
	int rc = m_resolve(d, e, nr);
	if (rc)
		return rc;
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->state == M_FREE)
			return SWS_EFREE;
	for (unsigned k = 0; k < nr; k++)
		if (!ms(d, e + k)->count)
			return SWS_ERANGE;
	return 0;
}

static int p_allocated(struct diff *d, sws_entry_t e, unsigned nr)
{
	int rc = m_resolve(d, e, nr);
	if (rc)
		return rc;
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->state == M_FREE)
			return SWS_ENOENT;
	return 0;
}

static int p_add(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn)
{
	if (!pfn_ok(pfn))
		return SWS_EINVAL;
	int rc = m_resolve(d, e, nr);
	if (rc)
		return rc;
	unsigned nfree = 0, ncached = 0;
	bool differ = false;
	struct mslot *first = ms(d, e);
	for (unsigned k = 0; k < nr; k++) {
		struct mslot *m = ms(d, e + k);
		nfree += m->state == M_FREE;
		ncached += m->state == M_CACHED;
		if (m->state == M_SHADOW && first->state == M_SHADOW)
			differ |= m->zero != first->zero || m->memcg != first->memcg;
	}
	if (nfree == nr)
		return SWS_ENOENT;
	if (ncached)
		return SWS_EEXIST;
	if (nfree || differ)
		return SWS_EBUSY;
	return 0;
}

static int p_cached(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn)
{
	int rc = m_resolve(d, e, nr);
	if (rc)
		return rc;
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->state != M_CACHED)
			return SWS_ENOTCACHED;
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->pfn != pfn)
			return SWS_EMISMATCH;
	return 0;
}

static int p_del(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn, uint64_t shadow)
{
	if (!pfn_ok(pfn) || shadow >> SWS_SHADOW_BITS)
		return SWS_EINVAL;
	return p_cached(d, e, nr, pfn);
}

static int p_replace(struct diff *d, sws_entry_t e, unsigned nr, uint64_t old_pfn, uint64_t new_pfn)
{
	if (!pfn_ok(old_pfn) || !pfn_ok(new_pfn))
		return SWS_EINVAL;
	return p_cached(d, e, nr, old_pfn);
}

static int p_one(struct diff *d, sws_entry_t e)
{
	int rc = m_resolve(d, e, 1);
	if (rc)
		return rc;
	return ms(d, e)->state == M_FREE ? SWS_ENOENT : 0;
}

/* ---- operations on both simulations ------------------------------------------------- */

static void op_alloc(struct diff *d, uint64_t pfn, unsigned order)
{
	sws_entry_t e[NSIM] = {0, 0};
	int r[NSIM];
	char b[40], b2[40];
	ON_BOTH(d, r, sws_folio_alloc_swap(cpu_, pfn, order, &e[s_]));
	oplog(d, "alloc pfn %llu order %u -> %s %s", (unsigned long long)pfn, order, sws_error_name(r[0]),
	      r[0] ? "" : ent(e[0], b, sizeof(b)));
	if (r[0] != r[1])
		DFAIL(d, "alloc order %u: %s vs %s", order, sws_error_name(r[0]), sws_error_name(r[1]));
	if (order >= SWS_NR_ORDERS || !pfn_ok(pfn)) {
		if (r[0] != SWS_EINVAL)
			DFAIL(d, "alloc order %u pfn %llu: %s, want SWS_EINVAL", order, (unsigned long long)pfn,
			      sws_error_name(r[0]));
		return;
	}
	if (r[0] == SWS_ENOSPC) {
		d->m.alloc_fail[order]++;
		d->cov.enospc++;
		if (!order && d->total - (d->dev[0].inuse + d->dev[1].inuse + d->dev[2].inuse))
			d->enospc0_with_free++;
		if (order) /* the kernel splits the folio and swaps out its pages one by one */
			op_alloc(d, pfn, 0);
		return;
	}
	if (r[0])
		DFAIL(d, "alloc order %u: unexpected %s", order, sws_error_name(r[0]));
	if (e[0] != e[1])
		DFAIL(d, "alloc order %u: %s got %s, %s got %s", order, sws_backend_name(d->backend[0]),
		      ent(e[0], b, sizeof(b)), sws_backend_name(d->backend[1]), ent(e[1], b2, sizeof(b2)));
	unsigned nr = 1u << order;
	/* Invariant 3 at birth: in range, aligned, inside one cluster, every slot free before. */
	if (m_resolve(d, e[0], nr) || sws_swp_offset(e[0]) % nr)
		DFAIL(d, "alloc order %u returned %s: not an aligned range of one cluster", order,
		      ent(e[0], b, sizeof(b)));
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e[0] + k)->state != M_FREE)
			DFAIL(d, "alloc order %u returned %s: slot +%u is in use", order, ent(e[0], b, sizeof(b)), k);
	vec_push(&d->allocs, (struct range){.e = e[0], .nr = nr, .live = nr});
	for (unsigned k = 0; k < nr; k++)
		*ms(d, e[0] + k) = (struct mslot){.state = M_CACHED, .pfn = pfn, .aidx = (int32_t)d->allocs.n - 1,
						   .fidx = -1};
	m_folio_add(d, e[0], nr, pfn);
	d->by_type[sws_swp_type(e[0])]->inuse += nr;
	d->cached += nr;
	d->m.alloc[order]++;
	d->m.add++;
	d->cov.alloc_large += order > 0;
}

static int op_dup(struct diff *d, sws_entry_t e, unsigned nr)
{
	int want = p_dup(d, e, nr), r[NSIM];
	ON_BOTH(d, r, sws_swap_dup(cpu_, e, nr));
	check_rc(d, "dup", e, nr, r, want);
	if (!want) {
		for (unsigned k = 0; k < nr; k++)
			if (++ms(d, e + k)->count > d->cov.max_count)
				d->cov.max_count = ms(d, e + k)->count;
		d->m.dup += nr;
	}
	return want;
}

static int op_put(struct diff *d, sws_entry_t e, unsigned nr)
{
	int want = p_put(d, e, nr), r[NSIM];
	ON_BOTH(d, r, sws_swap_put(cpu_, e, nr));
	check_rc(d, "put", e, nr, r, want);
	if (!want) {
		for (unsigned k = 0; k < nr; k++) {
			struct mslot *m = ms(d, e + k);
			if (--m->count == 0 && m->state == M_SHADOW)
				m_slot_free(d, e + k);
		}
		d->m.put += nr;
	}
	return want;
}

static void op_count(struct diff *d, sws_entry_t e)
{
	int want = p_one(d, e), r[NSIM];
	uint32_t c[NSIM] = {0, 0};
	ON_BOTH(d, r, sws_swap_count(cpu_, e, &c[s_]));
	check_rc(d, "count", e, 1, r, want);
	if (!want && (c[0] != ms(d, e)->count || c[1] != c[0]))
		DFAIL(d, "count: %u and %u, the model says %u", c[0], c[1], ms(d, e)->count);
}

static void op_get_shadow(struct diff *d, sws_entry_t e)
{
	int want = p_one(d, e), r[NSIM];
	uint64_t sh[NSIM] = {0, 0};
	ON_BOTH(d, r, sws_swap_cache_get_shadow(cpu_, e, &sh[s_]));
	check_rc(d, "get_shadow", e, 1, r, want);
	if (!want) {
		uint64_t exp = ms(d, e)->state == M_SHADOW ? ms(d, e)->shadow : 0;
		if (sh[0] != exp || sh[1] != exp)
			DFAIL(d, "get_shadow: %llu and %llu, the model says %llu", (unsigned long long)sh[0],
			      (unsigned long long)sh[1], (unsigned long long)exp);
	}
}

static void op_lookup(struct diff *d, sws_entry_t e)
{
	uint64_t p[NSIM];
	char b[40];
	ON_BOTH(d, p, sws_swap_cache_lookup(cpu_, e));
	uint64_t exp = 0;
	unsigned t = sws_swp_type(e);
	if (t < SWS_MAX_SWAPFILES && d->by_type[t] && sws_swp_offset(e) < d->by_type[t]->max &&
	    sws_swp_offset(e) && ms(d, e)->state == M_CACHED)
		exp = ms(d, e)->pfn;
	oplog(d, "lookup %s -> %llu", ent(e, b, sizeof(b)), (unsigned long long)p[0]);
	if (p[0] != exp || p[1] != exp)
		DFAIL(d, "lookup %s: %llu and %llu, the model says %llu", b, (unsigned long long)p[0],
		      (unsigned long long)p[1], (unsigned long long)exp);
	d->m.find++;
	d->m.find_ok += exp != 0;
}

static int op_add(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn)
{
	int want = p_add(d, e, nr, pfn), r[NSIM];
	uint64_t sh[NSIM] = {~0ull, ~0ull};
	uint64_t exp = !want ? ms(d, e)->shadow : 0;
	ON_BOTH(d, r, sws_swap_cache_add(cpu_, e, nr, pfn, &sh[s_]));
	check_rc(d, "cache_add", e, nr, r, want);
	if (want)
		return want;
	if (sh[0] != exp || sh[1] != exp)
		DFAIL(d, "cache_add: shadows %llu and %llu, the model says %llu", (unsigned long long)sh[0],
		      (unsigned long long)sh[1], (unsigned long long)exp);
	if (!folio_shaped(e, nr))
		DFAIL(d, "test bug: cache_add of a range that is not folio shaped succeeded");
	for (unsigned k = 0; k < nr; k++) {
		struct mslot *m = ms(d, e + k);
		m->state = M_CACHED;
		m->pfn = pfn;
		m->shadow = 0;
	}
	m_folio_add(d, e, nr, pfn);
	d->cached += nr;
	d->m.add++;
	d->cov.add++;
	return 0;
}

static int op_del(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn, uint64_t shadow)
{
	int want = p_del(d, e, nr, pfn, shadow), r[NSIM];
	ON_BOTH(d, r, sws_swap_cache_del(cpu_, e, nr, pfn, shadow));
	check_rc(d, "cache_del", e, nr, r, want);
	if (want)
		return want;
	int fi = whole_folio(d, e, nr);
	if (fi < 0)
		DFAIL(d, "test bug: cache_del of part of a folio succeeded");
	vec_remove(d, &d->folios, (unsigned)fi, true);
	for (unsigned k = 0; k < nr; k++) {
		struct mslot *m = ms(d, e + k);
		m->fidx = -1;
		if (!m->count) {
			m_slot_free(d, e + k);
		} else {
			m->state = M_SHADOW;
			m->pfn = 0;
			m->shadow = shadow;
			d->cached--;
		}
	}
	d->m.del++;
	d->cov.del++;
	return 0;
}

static int op_replace(struct diff *d, sws_entry_t e, unsigned nr, uint64_t old_pfn, uint64_t new_pfn)
{
	int want = p_replace(d, e, nr, old_pfn, new_pfn), r[NSIM];
	ON_BOTH(d, r, sws_swap_cache_replace(cpu_, e, nr, old_pfn, new_pfn));
	check_rc(d, "replace", e, nr, r, want);
	if (want)
		return want;
	int fi = whole_folio(d, e, nr);
	if (fi < 0)
		DFAIL(d, "test bug: replace of part of a folio succeeded");
	d->folios.v[fi].pfn = new_pfn;
	for (unsigned k = 0; k < nr; k++)
		ms(d, e + k)->pfn = new_pfn;
	d->m.replace++;
	d->cov.replace++;
	return 0;
}

static int op_set_zero(struct diff *d, sws_entry_t e, unsigned nr, bool zero)
{
	int want = p_allocated(d, e, nr), r[NSIM];
	ON_BOTH(d, r, sws_swap_set_zero(cpu_, e, nr, zero));
	check_rc(d, zero ? "set_zero(1)" : "set_zero(0)", e, nr, r, want);
	for (unsigned k = 0; k < nr && !want; k++)
		ms(d, e + k)->zero = zero;
	return want;
}

static int op_set_memcg(struct diff *d, sws_entry_t e, unsigned nr, uint16_t id)
{
	int want = p_allocated(d, e, nr), r[NSIM];
	ON_BOTH(d, r, sws_swap_set_memcg(cpu_, e, nr, id));
	check_rc(d, "set_memcg", e, nr, r, want);
	for (unsigned k = 0; k < nr && !want; k++)
		ms(d, e + k)->memcg = id;
	return want;
}

static void op_deferred(struct diff *d, unsigned budget)
{
	unsigned left[NSIM];
	for (int s = 0; s < NSIM; s++)
		left[s] = sws_swap_do_deferred_work(d->sim[s], budget);
	oplog(d, "deferred work budget %u -> %u left", budget, left[0]);
	if (left[0] != left[1])
		DFAIL(d, "deferred work left %u vs %u", left[0], left[1]);
}

/* ---- picking targets ---------------------------------------------------------------- */

static uint64_t shadow_value(struct diff *d)
{
	switch (rnd(d, 8)) {
	case 0: return 0;
	case 1: return SHADOW_MASK;
	default: return sws_test_rand(&d->rng) & SHADOW_MASK;
	}
}

static uint16_t memcg_value(struct diff *d)
{
	switch (rnd(d, 4)) {
	case 0: return 0;
	case 1: return 65535;
	default: return (uint16_t)(1 + rnd(d, 5));
	}
}

/* A random aligned power-of-two part of a random live allocation. */
static bool pick_alloc_range(struct diff *d, sws_entry_t *e, unsigned *nr)
{
	if (!d->allocs.n)
		return false;
	struct range *a = &d->allocs.v[rnd(d, d->allocs.n)];
	unsigned order = (unsigned)__builtin_ctz(a->nr);
	unsigned sub = 1u << rnd(d, order + 1);
	*e = a->e + sub * rnd(d, a->nr / sub);
	*nr = sub;
	return true;
}

static struct range *pick_folio(struct diff *d)
{
	return d->folios.n ? &d->folios.v[rnd(d, d->folios.n)] : NULL;
}

static struct mdev *pick_dev(struct diff *d) { return &d->dev[rnd(d, NDEV)]; }

/* A slot of a live allocation, or (one time in four) any offset of any device, header included. */
static sws_entry_t pick_slot(struct diff *d)
{
	sws_entry_t e;
	unsigned nr;
	if (rnd(d, 4) && pick_alloc_range(d, &e, &nr))
		return e + rnd(d, nr);
	struct mdev *md = pick_dev(d);
	return sws_swp_entry((unsigned)md->type, rnd(d, md->max));
}

/* A free slot (header excluded), or 0 when the random probes found none. */
static sws_entry_t pick_free_slot(struct diff *d)
{
	for (int tries = 0; tries < 16; tries++) {
		struct mdev *md = pick_dev(d);
		uint64_t off = 1 + rnd(d, md->max - 1);
		if (md->slots[off].state == M_FREE)
			return sws_swp_entry((unsigned)md->type, off);
	}
	return 0;
}

/* ---- plausible operations ----------------------------------------------------------- */

/* Reclaim: unmap (dup) the folio's slots one time in two, then evict it leaving a shadow. */
static void do_evict(struct diff *d)
{
	struct range *f = pick_folio(d);
	if (!f)
		return;
	sws_entry_t e = f->e;
	unsigned nr = f->nr;
	uint64_t pfn = f->pfn;
	if (rnd(d, 2) && ms(d, e)->count < 1000)
		op_dup(d, e, nr);
	op_del(d, e, nr, pfn, shadow_value(d));
}

/* Swap-in: a new folio over SHADOW slots; a single slot if the range does not fit. */
static void do_swapin(struct diff *d)
{
	sws_entry_t e;
	unsigned nr;
	if (!pick_alloc_range(d, &e, &nr))
		return;
	uint64_t pfn = d->next_pfn++;
	if (p_add(d, e, nr, pfn) && rnd(d, 4)) {
		for (unsigned k = 0; k < nr; k++) {
			if (ms(d, e + k)->state == M_SHADOW) {
				e += k;
				nr = 1;
				break;
			}
		}
	}
	op_add(d, e, nr, pfn); /* aligned powers of two: a success is a well-formed folio */
}

/* Migration (same size, new PFN) or split into smaller folios with new PFNs. */
static void do_replace(struct diff *d)
{
	struct range *f = pick_folio(d);
	if (!f)
		return;
	sws_entry_t e = f->e;
	unsigned nr = f->nr;
	uint64_t pfn = f->pfn;
	if (nr == 1 || rnd(d, 2)) {
		op_replace(d, e, nr, pfn, d->next_pfn++);
		return;
	}
	/* Split: the folio becomes 2^j-slot folios, each then migrated to its own PFN. */
	unsigned chunk = 1u << rnd(d, (unsigned)__builtin_ctz(nr));
	vec_remove(d, &d->folios, (unsigned)(f - d->folios.v), true);
	for (unsigned k = 0; k < nr; k += chunk)
		m_folio_add(d, e + k, chunk, pfn);
	d->cov.split++;
	oplog(d, "split folio pfn %llu nr %u into %u-slot folios", (unsigned long long)pfn, nr, chunk);
	for (unsigned k = 0; k < nr; k += chunk)
		if (op_replace(d, e + k, chunk, pfn, d->next_pfn++))
			DFAIL(d, "split: replace of a part failed");
}

static void do_dup(struct diff *d)
{
	sws_entry_t e;
	unsigned nr;
	if (pick_alloc_range(d, &e, &nr))
		op_dup(d, e, nr);
}

/* A put; where the range would fail, most of the time one slot that holds a reference. */
static void do_put(struct diff *d)
{
	sws_entry_t e;
	unsigned nr;
	if (!pick_alloc_range(d, &e, &nr))
		return;
	if (p_put(d, e, nr) && rnd(d, 4)) {
		for (unsigned k = 0; k < nr; k++) {
			if (ms(d, e + k)->state != M_FREE && ms(d, e + k)->count) {
				e += k;
				nr = 1;
				break;
			}
		}
	}
	op_put(d, e, nr);
}

/* Counts beyond the inline maxima: 14 in the swap table, 62 in swap_map. */
static void do_burst(struct diff *d)
{
	sws_entry_t e = pick_slot(d);
	if (m_resolve(d, e, 1) || ms(d, e)->state == M_FREE)
		return;
	if (rnd(d, 2)) {
		for (uint64_t n = 10 + rnd(d, 70); n; n--)
			op_dup(d, e, 1);
	} else {
		for (uint64_t n = 1 + rnd(d, ms(d, e)->count + 1); n && ms(d, e)->state != M_FREE && ms(d, e)->count; n--)
			op_put(d, e, 1);
	}
}

/* Drop a whole allocation: evict every folio on it, then drop every reference. */
static void do_free_allocation(struct diff *d)
{
	if (!d->allocs.n)
		return;
	struct range a = d->allocs.v[rnd(d, d->allocs.n)];
	for (unsigned k = 0; k < a.nr; k++) {
		struct mslot *m = ms(d, a.e + k);
		if (m->state == M_CACHED) {
			struct range f = d->folios.v[m->fidx];
			op_del(d, f.e, f.nr, f.pfn, shadow_value(d));
		}
	}
	if (!p_put(d, a.e, a.nr) && rnd(d, 2))
		op_put(d, a.e, a.nr);
	for (unsigned k = 0; k < a.nr; k++)
		while (ms(d, a.e + k)->state == M_SHADOW)
			op_put(d, a.e + k, 1);
}

/* ---- invalid operations, on purpose -------------------------------------------------- */

static void do_invalid(struct diff *d)
{
	struct mdev *md = pick_dev(d);
	unsigned t = (unsigned)md->type;
	struct range *f = pick_folio(d);
	sws_entry_t e;
	unsigned nr;
	uint64_t pfn = d->next_pfn++;

	switch (rnd(d, 16)) {
	case 0: /* put and dup of a free slot */
		if ((e = pick_free_slot(d))) {
			op_put(d, e, 1);
			op_dup(d, e, 1);
			op_set_zero(d, e, 1, true);
			op_count(d, e);
			op_get_shadow(d, e);
		}
		break;
	case 1: /* add over a cached folio */
		if (f)
			op_add(d, f->e, f->nr, pfn);
		break;
	case 2: /* delete and replace naming the wrong folio */
		if (f) {
			sws_entry_t fe = f->e;
			unsigned fnr = f->nr;
			uint64_t wrong = f->pfn + 1 + rnd(d, 3);
			op_del(d, fe, fnr, wrong, shadow_value(d));
			op_replace(d, fe, fnr, wrong, pfn);
		}
		break;
	case 3: /* delete, replace, put of a range that is not cached or only partly */
		if (pick_alloc_range(d, &e, &nr)) {
			uint64_t p = ms(d, e)->state == M_CACHED ? ms(d, e)->pfn : pfn;
			if (p_del(d, e, nr, p, 0) || whole_folio(d, e, nr) >= 0)
				op_del(d, e, nr, p, 0);
			if (p_replace(d, e, nr, p, pfn) || whole_folio(d, e, nr) >= 0)
				op_replace(d, e, nr, p, pfn);
		}
		break;
	case 4: { /* ranges crossing a cluster boundary */
		uint32_t ncl = (uint32_t)((md->max + SWS_CLUSTER_SLOTS - 1) / SWS_CLUSTER_SLOTS);
		uint64_t bound = SWS_CLUSTER_SLOTS * (1 + rnd(d, ncl - 1));
		unsigned before = 1 + (unsigned)rnd(d, 8), after = 1 + (unsigned)rnd(d, 8);
		e = sws_swp_entry(t, bound - before);
		nr = before + after;
		op_dup(d, e, nr);
		op_put(d, e, nr);
		op_add(d, e, nr, pfn);
		op_del(d, e, nr, pfn, 0);
		op_replace(d, e, nr, pfn, pfn + 1);
		op_set_zero(d, e, nr, false);
		op_set_memcg(d, e, nr, 1);
		break;
	}
	case 5: /* the header slot */
		e = sws_swp_entry(t, 0);
		nr = 1 + (unsigned)rnd(d, 4);
		op_dup(d, e, nr);
		op_put(d, e, nr);
		op_add(d, e, nr, pfn);
		op_del(d, e, 1, pfn, 0);
		op_set_memcg(d, e, 1, 3);
		op_count(d, e);
		op_get_shadow(d, e);
		op_lookup(d, e);
		break;
	case 6: /* past the end of the device, and ranges running over it */
		e = sws_swp_entry(t, md->max - 1);
		op_dup(d, e, 2);
		op_set_zero(d, e, 3, true);
		e = sws_swp_entry(t, md->max + rnd(d, 600));
		op_put(d, e, 1);
		op_count(d, e);
		op_get_shadow(d, e);
		op_lookup(d, e);
		break;
	case 7: /* types with no device */
		e = sws_swp_entry(NDEV + (unsigned)rnd(d, 64 - NDEV), 1 + rnd(d, 100));
		op_dup(d, e, 1);
		op_put(d, e, 1);
		op_add(d, e, 1, pfn);
		op_count(d, e);
		op_lookup(d, e);
		break;
	case 8: /* nr 0 and nr beyond a cluster */
		if (pick_alloc_range(d, &e, &nr)) {
			op_dup(d, e, 0);
			op_put(d, e, SWS_CLUSTER_SLOTS + 1);
			op_set_memcg(d, e, 0, 1);
		}
		break;
	case 9: /* bad PFNs and shadows */
		if (f) {
			sws_entry_t fe = f->e;
			unsigned fnr = f->nr;
			uint64_t fp = f->pfn;
			op_del(d, fe, fnr, fp, 1ull << SWS_SHADOW_BITS);
			op_del(d, fe, fnr, 0, 0);
			op_replace(d, fe, fnr, fp, 1ull << SWS_PFN_BITS);
			op_replace(d, fe, fnr, 0, pfn);
		}
		if (pick_alloc_range(d, &e, &nr)) {
			op_add(d, e, nr, 0);
			op_add(d, e, nr, 1ull << SWS_PFN_BITS);
		}
		op_alloc(d, 0, 0);
		op_alloc(d, 1ull << SWS_PFN_BITS, 0);
		op_alloc(d, pfn, SWS_NR_ORDERS);
		break;
	case 10: /* put of a cache-only slot (count 0) */
		if (f) {
			for (unsigned k = 0; k < f->nr; k++) {
				if (!ms(d, f->e + k)->count) {
					op_put(d, f->e + k, 1);
					break;
				}
			}
		}
		break;
	case 11: { /* an add over a random range: free, mixed, differing zero flags or memcgs */
		uint64_t off = 1 + rnd(d, md->max - 1);
		nr = 1u << rnd(d, 6);
		e = sws_swp_entry(t, off & ~(uint64_t)(nr - 1));
		if (p_add(d, e, nr, pfn) || folio_shaped(e, nr))
			op_add(d, e, nr, pfn);
		break;
	}
	case 12: { /* benign calls over arbitrary ranges (may succeed) */
		uint64_t off = rnd(d, md->max + 8);
		nr = 1 + (unsigned)rnd(d, 40);
		e = sws_swp_entry(t, off);
		op_dup(d, e, nr);
		op_set_zero(d, e, nr, rnd(d, 2));
		op_set_memcg(d, e, nr, memcg_value(d));
		op_put(d, e, nr);
		break;
	}
	case 13: /* a shadow range with one slot's zero flag or memcg changed, then swapped in */
		if (pick_alloc_range(d, &e, &nr) && nr > 1) {
			if (rnd(d, 2))
				op_set_zero(d, e + nr - 1, 1, !ms(d, e + nr - 1)->zero);
			else
				op_set_memcg(d, e + nr - 1, 1, (uint16_t)(ms(d, e + nr - 1)->memcg + 1));
			if (p_add(d, e, nr, pfn) || folio_shaped(e, nr))
				op_add(d, e, nr, pfn);
		}
		break;
	case 14: /* double delete */
		if (f) {
			sws_entry_t fe = f->e;
			unsigned fnr = f->nr;
			uint64_t fp = f->pfn;
			op_del(d, fe, fnr, fp, shadow_value(d));
			op_del(d, fe, fnr, fp, 0);
		}
		break;
	default: /* double put to free */
		if ((e = pick_slot(d)) && !m_resolve(d, e, 1) && ms(d, e)->state == M_SHADOW) {
			while (ms(d, e)->state == M_SHADOW)
				op_put(d, e, 1);
			op_put(d, e, 1);
		}
		break;
	}
}

/* ---- whole-state checks -------------------------------------------------------------- */

static void expect_slot(struct diff *d, struct mdev *md, uint64_t off, int s, const struct sws_slot_state *st)
{
	struct sws_slot_state w = {0};
	if (off == 0) {
		w.bad = w.allocated = true;
	} else {
		const struct mslot *m = &md->slots[off];
		w.allocated = m->state != M_FREE;
		w.cached = m->state == M_CACHED;
		w.zero = m->zero;
		w.memcg = m->memcg;
		w.count = m->count;
		w.pfn = m->state == M_CACHED ? m->pfn : 0;
		w.shadow = m->state == M_SHADOW ? m->shadow : 0;
	}
	if (st->allocated != w.allocated || st->bad != w.bad || st->cached != w.cached || st->zero != w.zero ||
	    st->memcg != w.memcg || st->count != w.count || st->pfn != w.pfn || st->shadow != w.shadow)
		DFAIL(d,
		      "slot %d:%llu on %s: got alloc %d bad %d cached %d zero %d memcg %u count %u pfn %llu "
		      "shadow %llu; model: alloc %d bad %d cached %d zero %d memcg %u count %u pfn %llu shadow %llu",
		      md->type, (unsigned long long)off, sws_backend_name(d->backend[s]), st->allocated, st->bad,
		      st->cached, st->zero, st->memcg, st->count, (unsigned long long)st->pfn,
		      (unsigned long long)st->shadow, w.allocated, w.bad, w.cached, w.zero, w.memcg, w.count,
		      (unsigned long long)w.pfn, (unsigned long long)w.shadow);
}

static void check_slots(struct diff *d)
{
	for (int i = 0; i < NDEV; i++) {
		struct mdev *md = &d->dev[i];
		for (uint64_t off = 0; off <= md->max; off++) {
			sws_entry_t e = sws_swp_entry((unsigned)md->type, off);
			for (int s = 0; s < NSIM; s++) {
				struct sws_slot_state st;
				int rc = sws_swap_slot_state(d->sim[s], e, &st);
				if (off == md->max) {
					if (rc != SWS_EBADENTRY)
						DFAIL(d, "slot_state past the end: %s", sws_error_name(rc));
					continue;
				}
				if (rc)
					DFAIL(d, "slot_state %d:%llu: %s", md->type, (unsigned long long)off,
					      sws_error_name(rc));
				expect_slot(d, md, off, s, &st);
			}
		}
	}
}

/* Invariant 3, and the model's own bookkeeping. */
static void check_folios(struct diff *d)
{
	char b[40];
	for (unsigned i = 0; i < d->folios.n; i++) {
		struct range *f = &d->folios.v[i];
		uint64_t off = sws_swp_offset(f->e);
		if (!folio_shaped(f->e, f->nr) || off / SWS_CLUSTER_SLOTS != (off + f->nr - 1) / SWS_CLUSTER_SLOTS)
			DFAIL(d, "folio %s nr %u: not aligned or not inside one cluster", ent(f->e, b, sizeof(b)), f->nr);
		for (unsigned k = 0; k < f->nr; k++) {
			struct mslot *m = ms(d, f->e + k);
			if (m->state != M_CACHED || m->pfn != f->pfn || m->fidx != (int32_t)i)
				DFAIL(d, "test bug: model folio %u does not own slot +%u", i, k);
			for (int s = 0; s < NSIM; s++) {
				struct sws_slot_state st;
				assert_sws(0, sws_swap_slot_state(d->sim[s], f->e + k, &st));
				if (!st.cached || st.pfn != f->pfn)
					DFAIL(d, "folio pfn %llu at %s nr %u: slot +%u on %s holds pfn %llu",
					      (unsigned long long)f->pfn, ent(f->e, b, sizeof(b)), f->nr, k,
					      sws_backend_name(d->backend[s]), (unsigned long long)st.pfn);
			}
		}
	}
	for (unsigned i = 0; i < d->allocs.n; i++) {
		struct range *a = &d->allocs.v[i];
		unsigned live = 0;
		for (unsigned k = 0; k < a->nr; k++)
			live += ms(d, a->e + k)->aidx == (int32_t)i;
		if (live != a->live || !live)
			DFAIL(d, "test bug: allocation %u counts %u live slots, has %u", i, a->live, live);
	}
}

static void check_devices(struct diff *d)
{
	for (int i = 0; i < NDEV; i++) {
		struct sws_device_info di[NSIM];
		for (int s = 0; s < NSIM; s++)
			assert_sws(0, sws_device_info(d->sim[s], d->dev[i].type, &di[s]));
		const struct sws_device_info *a = &di[0], *b = &di[1];
		bool same = a->type == b->type && a->prio == b->prio && a->flags == b->flags && a->max == b->max &&
			    a->pages == b->pages && a->inuse_pages == b->inuse_pages &&
			    a->nr_clusters == b->nr_clusters && a->nr_free == b->nr_free &&
			    a->nr_full == b->nr_full && a->nr_discard == b->nr_discard &&
			    !memcmp(a->nr_nonfull, b->nr_nonfull, sizeof(a->nr_nonfull)) &&
			    !memcmp(a->nr_frag, b->nr_frag, sizeof(a->nr_frag));
		if (!same)
			DFAIL(d,
			      "device %d differs: inuse %llu/%llu free %u/%u full %u/%u discard %u/%u "
			      "nonfull0 %u/%u frag0 %u/%u",
			      a->type, (unsigned long long)a->inuse_pages, (unsigned long long)b->inuse_pages,
			      a->nr_free, b->nr_free, a->nr_full, b->nr_full, a->nr_discard, b->nr_discard,
			      a->nr_nonfull[0], b->nr_nonfull[0], a->nr_frag[0], b->nr_frag[0]);
		if (a->inuse_pages != d->dev[i].inuse)
			DFAIL(d, "device %d: inuse_pages %llu, the model has %llu", a->type,
			      (unsigned long long)a->inuse_pages, (unsigned long long)d->dev[i].inuse);
	}
}

static void check_counters(struct diff *d)
{
	static const enum sws_counter same[] = {
		SWS_CTR_swap_cache_add_total,  SWS_CTR_swap_cache_del_total,   SWS_CTR_swap_cache_find_total,
		SWS_CTR_swap_cache_find_success, SWS_CTR_swap_cache_replace_total, SWS_CTR_swap_dup_total,
		SWS_CTR_swap_put_total,        SWS_CTR_swap_free_slots,        SWS_CTR_swap_alloc_fastpath,
		SWS_CTR_swap_alloc_slowpath,   SWS_CTR_swap_alloc_order0_steal, SWS_CTR_cluster_free_to_frag,
		SWS_CTR_swap_writepage,        SWS_CTR_swap_readpage,          SWS_CTR_swap_discard,
	};
	struct sws_stats st[NSIM];
	for (int s = 0; s < NSIM; s++)
		sws_stats_snapshot(d->sim[s], &st[s]);
	for (unsigned i = 0; i < ARRAY_LEN(same); i++)
		if (st[0].counters[same[i]] != st[1].counters[same[i]])
			DFAIL(d, "counter %s: %llu vs %llu", sws_counter_name(same[i]),
			      (unsigned long long)st[0].counters[same[i]], (unsigned long long)st[1].counters[same[i]]);
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			if (st[0].order_counters[c][o] != st[1].order_counters[c][o])
				DFAIL(d, "counter %s[%d]: %llu vs %llu", sws_order_counter_name((enum sws_order_counter)c),
				      o, (unsigned long long)st[0].order_counters[c][o],
				      (unsigned long long)st[1].order_counters[c][o]);
	uint64_t inuse = d->dev[0].inuse + d->dev[1].inuse + d->dev[2].inuse;
	for (int s = 0; s < NSIM; s++) {
		const struct sws_stats *x = &st[s];
		const uint64_t *c = x->counters;
		struct {
			const char *name;
			uint64_t got, want;
		} m[] = {
			{"total_swap_pages", x->total_swap_pages, d->total},
			{"nr_swap_pages", x->nr_swap_pages, d->total - inuse},
			{"nr_swapcache", x->nr_swapcache, d->cached},
			{"nr_devices", x->nr_devices, NDEV},
			{"swap_cache_add_total", c[SWS_CTR_swap_cache_add_total], d->m.add},
			{"swap_cache_del_total", c[SWS_CTR_swap_cache_del_total], d->m.del},
			{"swap_cache_find_total", c[SWS_CTR_swap_cache_find_total], d->m.find},
			{"swap_cache_find_success", c[SWS_CTR_swap_cache_find_success], d->m.find_ok},
			{"swap_cache_replace_total", c[SWS_CTR_swap_cache_replace_total], d->m.replace},
			{"swap_dup_total", c[SWS_CTR_swap_dup_total], d->m.dup},
			{"swap_put_total", c[SWS_CTR_swap_put_total], d->m.put},
			{"swap_free_slots", c[SWS_CTR_swap_free_slots], d->m.freed},
		};
		for (unsigned i = 0; i < ARRAY_LEN(m); i++)
			if (m[i].got != m[i].want)
				DFAIL(d, "%s on %s: %llu, the model says %llu", m[i].name,
				      sws_backend_name(d->backend[s]), (unsigned long long)m[i].got,
				      (unsigned long long)m[i].want);
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			if (x->order_counters[SWS_OCTR_swap_alloc][o] != d->m.alloc[o] ||
			    x->order_counters[SWS_OCTR_swap_alloc_fail][o] != d->m.alloc_fail[o])
				DFAIL(d, "swap_alloc[%d] %llu fail %llu on %s, the model says %llu and %llu", o,
				      (unsigned long long)x->order_counters[SWS_OCTR_swap_alloc][o],
				      (unsigned long long)x->order_counters[SWS_OCTR_swap_alloc_fail][o],
				      sws_backend_name(d->backend[s]), (unsigned long long)d->m.alloc[o],
				      (unsigned long long)d->m.alloc_fail[o]);
	}
}

/* Swap table backend: a cluster has its 4 KiB table and 1 KiB memcg table iff it is in use. */
static void check_table_memory(struct diff *d)
{
	for (int s = 0; s < NSIM; s++) {
		if (d->backend[s] != SWS_BACKEND_SWAP_TABLE)
			continue;
		sws_sim_quiesce(d->sim[s]);
		uint64_t used = 0;
		for (int i = 0; i < NDEV; i++) {
			struct sws_device_info di;
			assert_sws(0, sws_device_info(d->sim[s], d->dev[i].type, &di));
			used += di.nr_clusters - di.nr_free - di.nr_discard;
		}
		struct sws_memory_usage mu;
		sws_sim_memory_usage(d->sim[s], &mu);
		if (mu.bytes[SWS_MEM_swap_table] != used * SWS_CLUSTER_SLOTS * 8 ||
		    mu.bytes[SWS_MEM_memcg_table] != used * SWS_CLUSTER_SLOTS * 2)
			DFAIL(d, "swap table memory: %llu table and %llu memcg bytes for %llu clusters in use",
			      (unsigned long long)mu.bytes[SWS_MEM_swap_table],
			      (unsigned long long)mu.bytes[SWS_MEM_memcg_table], (unsigned long long)used);
	}
}

static void check_all(struct diff *d)
{
	char msg[256];
	for (int s = 0; s < NSIM; s++)
		if (sws_swap_check(d->sim[s], msg, sizeof(msg)))
			DFAIL(d, "invariant violated on %s: %s", sws_backend_name(d->backend[s]), msg);
	check_devices(d);
	check_counters(d);
	check_slots(d);
	check_folios(d);
}

/* swapoff of a device in use fails on both and changes nothing. */
static void try_swapoff_busy(struct diff *d)
{
	struct mdev *md = pick_dev(d);
	if (!md->inuse)
		return;
	int r[NSIM];
	for (int s = 0; s < NSIM; s++)
		r[s] = sws_swapoff(d->sim[s], md->type);
	check_rc(d, "swapoff(busy)", sws_swp_entry((unsigned)md->type, 0), 0, r, SWS_EBUSY);
}

/* ---- setup and the run -------------------------------------------------------------- */

static const struct sws_device_config dev_configs[NDEV] = {
	/* SSD, highest priority, discards freed clusters; 12 clusters + 37 slots. */
	{.flags = SWS_SWP_SOLIDSTATE | SWS_SWP_PAGE_DISCARD | SWS_SWAP_FLAG_PREFER, .prio = 10,
	 .nr_slots = 12 * SWS_CLUSTER_SLOTS + 37},
	/* SSD, lower priority: 8 clusters + 200 slots. */
	{.flags = SWS_SWP_SOLIDSTATE | SWS_SWAP_FLAG_PREFER, .prio = 5, .nr_slots = 8 * SWS_CLUSTER_SLOTS + 200},
	/* Rotational, default priority (-1): 4 clusters + 99 slots. */
	{.flags = 0, .nr_slots = 4 * SWS_CLUSTER_SLOTS + 99},
};

static void diff_open(struct diff *d, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->seed = d->rng = seed;
	d->next_pfn = 1;
	d->backend[0] = SWS_BACKEND_SWAP_TABLE;
	d->backend[1] = SWS_DIFF_OTHER_BACKEND;
	for (int s = 0; s < NSIM; s++) {
		struct sws_sim_config cfg = {.backend = d->backend[s]};
		assert_sws(0, sws_sim_create(&cfg, &d->sim[s]));
		assert_sws(0, sws_cpu_attach(d->sim[s], &d->cpu[s]));
	}
	for (int i = 0; i < NDEV; i++) {
		int type[NSIM];
		for (int s = 0; s < NSIM; s++)
			assert_sws(0, sws_swapon(d->sim[s], &dev_configs[i], &type[s]));
		assert_int_equal(type[0], type[1]);
		struct mdev *md = &d->dev[i];
		md->type = type[0];
		md->max = dev_configs[i].nr_slots;
		md->slots = calloc(md->max, sizeof(*md->slots));
		assert_non_null(md->slots);
		for (uint64_t off = 0; off < md->max; off++)
			md->slots[off].aidx = md->slots[off].fidx = -1;
		d->by_type[md->type] = md;
		d->total += md->max - 1;
	}
	for (int s = 0; s < NSIM; s++) {
		struct sws_memory_usage mu;
		sws_sim_quiesce(d->sim[s]);
		sws_sim_memory_usage(d->sim[s], &mu);
		d->base_dynamic[s] = mu.dynamic_bytes;
		d->base_static[s] = mu.static_bytes;
	}
}

static void diff_close(struct diff *d)
{
	for (int s = 0; s < NSIM; s++) {
		sws_cpu_detach(d->cpu[s]);
		sws_sim_destroy(d->sim[s]);
	}
	for (int i = 0; i < NDEV; i++)
		free(d->dev[i].slots);
	free(d->allocs.v);
	free(d->folios.v);
}

static void step(struct diff *d)
{
	uint64_t inuse = d->dev[0].inuse + d->dev[1].inuse + d->dev[2].inuse;
	unsigned r = (unsigned)rnd(d, 1000);
	sws_entry_t e;
	unsigned nr;

	/* Under pressure, processes exit more often than they fault. */
	if (r < 170 && inuse * 100 > d->total * 85 && rnd(d, 2)) {
		do_free_allocation(d);
		return;
	}
	if (r < 170)
		op_alloc(d, d->next_pfn++, rnd(d, 2) ? 0 : (unsigned)rnd(d, SWS_NR_ORDERS));
	else if (r < 260)
		do_dup(d);
	else if (r < 380)
		do_put(d);
	else if (r < 500)
		do_evict(d);
	else if (r < 600)
		do_swapin(d);
	else if (r < 640)
		do_replace(d);
	else if (r < 680) {
		if (pick_alloc_range(d, &e, &nr))
			op_set_zero(d, e, nr, rnd(d, 3) != 0);
	} else if (r < 720) {
		if (pick_alloc_range(d, &e, &nr))
			op_set_memcg(d, e, nr, memcg_value(d));
	} else if (r < 750)
		op_count(d, pick_slot(d));
	else if (r < 780)
		op_get_shadow(d, pick_slot(d));
	else if (r < 840)
		op_lookup(d, pick_slot(d));
	else if (r < 850)
		op_deferred(d, (unsigned)rnd(d, 3));
	else if (r < 860)
		do_burst(d);
	else if (r < 875)
		do_free_allocation(d);
	else
		do_invalid(d);
}

/* A seed and the run in progress (the teardown frees it when a check failed). */
struct seed_state {
	uint64_t seed;
	struct diff *d;
};

static void run_seed(struct seed_state *ss, unsigned nops)
{
	uint64_t seed = ss->seed;
	struct diff *d = calloc(1, sizeof(*d));
	assert_non_null(d);
	ss->d = d;
	diff_open(d, seed);

	for (d->op = 1; d->op <= nops; d->op++) {
		step(d);
		if (d->op % CHECK_EVERY == 0) {
			check_all(d);
			try_swapoff_busy(d);
		}
		if (d->op % QUIESCE_EVERY == 0)
			check_table_memory(d);
	}
	check_all(d);
	check_table_memory(d);

	/* Free everything: evict every folio, then drop every reference. */
	while (d->folios.n) {
		struct range f = d->folios.v[d->folios.n - 1];
		op_del(d, f.e, f.nr, f.pfn, shadow_value(d));
	}
	while (d->allocs.n) {
		struct range a = d->allocs.v[d->allocs.n - 1];
		if (!p_put(d, a.e, a.nr)) {
			op_put(d, a.e, a.nr);
			continue;
		}
		for (unsigned k = 0; k < a.nr; k++)
			if (ms(d, a.e + k)->state != M_FREE)
				op_put(d, a.e + k, 1);
	}
	op_deferred(d, UINT32_MAX);
	check_all(d);
	assert_int_equal(d->cached, 0);
	for (int s = 0; s < NSIM; s++) {
		uint64_t total, free_slots;
		sws_swap_totals(d->sim[s], &total, &free_slots);
		assert_int_equal(total, d->total);
		assert_int_equal(free_slots, total);
		assert_false(sws_swap_full(d->sim[s]));
	}

	/*
	 * Memory: back to what swapon left (XArray continuation pages stay until
	 * swapoff, as in the kernel). A difference is reported after swapoff, so
	 * both backends and the swapoff figures are seen in one run.
	 */
	char leak[2][512] = {"", ""};
	for (int s = 0; s < NSIM; s++) {
		struct sws_memory_usage mu;
		sws_sim_quiesce(d->sim[s]);
		sws_sim_memory_usage(d->sim[s], &mu);
		uint64_t dyn = mu.dynamic_bytes - mu.bytes[SWS_MEM_swap_cont];
		if (dyn == d->base_dynamic[s] && mu.static_bytes == d->base_static[s])
			continue;
		int n = snprintf(leak[s], sizeof(leak[s]),
				 "%s: dynamic %llu (swap_cont %llu) static %llu after freeing all, %llu and %llu after "
				 "swapon; by class:",
				 sws_backend_name(d->backend[s]), (unsigned long long)mu.dynamic_bytes,
				 (unsigned long long)mu.bytes[SWS_MEM_swap_cont], (unsigned long long)mu.static_bytes,
				 (unsigned long long)d->base_dynamic[s], (unsigned long long)d->base_static[s]);
		for (int c = 0; c < SWS_NR_MEM_CLASSES && n > 0 && (size_t)n < sizeof(leak[s]); c++)
			if (c != SWS_MEM_sim && mu.bytes[c])
				n += snprintf(leak[s] + n, sizeof(leak[s]) - (size_t)n, " %s %llu",
					      sws_mem_class_name((enum sws_mem_class)c), (unsigned long long)mu.bytes[c]);
	}
	for (int i = 0; i < NDEV; i++)
		for (int s = 0; s < NSIM; s++)
			assert_sws(0, sws_swapoff(d->sim[s], d->dev[i].type));
	for (int s = 0; s < NSIM; s++) {
		struct sws_memory_usage mu;
		sws_sim_quiesce(d->sim[s]);
		sws_sim_memory_usage(d->sim[s], &mu);
		for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
			if (c != SWS_MEM_sim && mu.bytes[c])
				DFAIL(d, "%s: %llu bytes of %s left after swapoff of every device",
				      sws_backend_name(d->backend[s]), (unsigned long long)mu.bytes[c],
				      sws_mem_class_name((enum sws_mem_class)c));
		assert_int_equal(mu.dynamic_bytes, 0);
		assert_int_equal(mu.static_bytes, 0);
	}
	print_message("seed %llu: %u calls (%u refused), %u large folios, %u ENOSPC (%u at order 0 with free "
		      "slots), %u swap-ins, %u evictions, %u replacements (%u splits), counts up to %u\n",
		      (unsigned long long)seed, d->cov.calls, d->cov.errors, d->cov.alloc_large, d->cov.enospc,
		      d->enospc0_with_free, d->cov.add, d->cov.del, d->cov.replace, d->cov.split, d->cov.max_count);
	if (leak[0][0] || leak[1][0])
		DFAIL(d, "dynamic memory not back to the baseline: %s%s%s", leak[0], leak[0][0] ? "; " : "", leak[1]);
	ss->d = NULL;
	diff_close(d);
	free(d);
}

static struct seed_state seeds[] = {{1, NULL}, {2, NULL}, {3, NULL}, {0x5eed5eedull, NULL}, {20260101, NULL}};

static void test_differential(void **state) { run_seed(*state, OPS_PER_SEED); }

static int teardown(void **state)
{
	struct seed_state *ss = *state;
	if (ss->d) { /* a check failed half way: release what the run held */
		diff_close(ss->d);
		free(ss->d);
		ss->d = NULL;
	}
	return 0;
}

#define SEED(i) cmocka_unit_test_prestate_setup_teardown(test_differential, NULL, teardown, &seeds[i])

int main(void)
{
	const struct CMUnitTest tests[] = {SEED(0), SEED(1), SEED(2), SEED(3), SEED(4)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

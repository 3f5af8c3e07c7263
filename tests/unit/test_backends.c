/*
 * test_backends.c - randomized differential test of the per-slot designs.
 *
 * Every seed runs once per group of designs (groups[] below).
 *
 * The groups hold every design of the registry (SWS_DESIGN_LIST), by its
 * traits (traits_of(), which a new design needs an entry in).
 *
 * The lockstep group (every design but vswap: st-p4, the default, then
 * xarray, st-p1, st-p2, st-p3 in the registry's order): one seeded sequence of operations runs in lockstep on one
 * simulation per design, all with identical devices. The slot allocator is
 * shared and, with one CPU, deterministic, so all must hand out the same
 * entries; every per-slot call must return the same code and the same
 * outputs on every design as on simulation 0.
 *
 * The vswap groups (the virtual designs, one group each: vswap and
 * vswap-v3; lib/design/vswap/): vswap hands out the
 * entries of its own virtual device (made at sws_sim_create: extendable,
 * 2^32 slots reserved, mapped chunk by chunk), not of the devices
 * swapped on, so it cannot run in lockstep with the others: it runs its own
 * sequence (same seed) against the model alone. The devices swapped on are
 * physical there: one of their slots holds data only once a virtual range
 * was written (sws_swap_io_target(write), swap_writeout()'s physical
 * allocation) and until the virtual slot is freed or becomes a zero page.
 * The model has the virtual device's slots (an array per 512-slot cluster,
 * made on first touch) and, for each physical slot, the virtual slot it
 * backs (the reverse map); totals and nr_swap_pages are physical. About one
 * operation in ten is page I/O (a folio written out, a range read, a written
 * folio found zero-filled), and one surge of large folios maps the virtual
 * device well beyond its first chunk and fills the physical devices (the
 * chunks are unmapped again once all is free). Per-slot calls on a physical
 * entry are refused (SWS_EBADENTRY): entries are virtual.
 *
 * In both groups the test keeps its own model of every slot (reference
 * 9.1: FREE, CACHED with a count, SHADOW with a count) and of every live
 * folio, predicts each result from the contract in lib/swap/design.h, and
 * compares. A failure names the designs that disagree.
 *
 * Most operations are plausible (a folio is allocated, unmapped, evicted,
 * swapped in, migrated or split, its references dropped); about one in eight
 * is invalid on purpose: a put on a free slot, an add over a cached folio, a
 * delete with the wrong folio, ranges crossing a cluster or the device end,
 * the header slot, unknown types, bad PFNs and shadows.
 *
 * Every CHECK_EVERY operations and at the end: every slot's state on every
 * simulation against simulation 0 and the model, the device lists, the
 * counters (those every design shares across simulations; the design's own
 * ones, such as swap_free_fallback, against what the design must show),
 * sws_swap_check() (docs/design.md's invariants), and invariant 3 (a folio's slots lie in
 * one cluster, aligned, all holding its PFN) from the model. Every
 * QUIESCE_EVERY operations: each design's memory classes against its layout
 * (check_table_memory()). At the end everything is freed and each design's
 * dynamic memory must be back to the figure taken right after swapon
 * (swap_map continuation pages excepted: they stay until swapoff); after
 * swapoff of every device it must be what sws_sim_create left (nothing but
 * the simulation itself; vswap: its virtual device, see run_seed()), and
 * after sws_sim_destroy nothing allocated through the simulation's
 * allocator may be live.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_SIM 8 /* simulations in one group */

/* Designs that run one seed in lockstep (the run's parameter); simulation 0
 * is the reference the others are compared with. groups_fill() fills them. */
struct group {
	const char *name;
	enum sws_design designs[MAX_SIM];
	int n;
};

static struct group groups[] = {{"lockstep", {0}, 0}, {"vswap", {0}, 0}, {"vswap-v3", {0}, 0}, {"vswap-st", {0}, 0}};

#define NDEV 3
#define OPS_PER_SEED 20000
#define CHECK_EVERY 1000
#define QUIESCE_EVERY 5000 /* memory figures of every design (needs an RCU barrier) */
#define LOG_LINES 48
#define SHADOW_MASK ((1ull << SWS_SHADOW_BITS) - 1)
#define TABLE_BYTES 4096u  /* a swap table: 512 8-byte words */
#define MEMCG_BYTES 1024u  /* a phase IV memcg table: 512 2-byte ids */
#define EXTEND_BYTES 4096u /* an extend table: 512 unsigned longs, as posted */
#define EXTEND_MIN 15u     /* phases III, IV: counts from 15 up live in the extend table */
#define DESC_BYTES (SWS_CLUSTER_SLOTS * 24u) /* vswap: a virtual cluster's descriptors, 24 B each */
#define RMAP_BYTES (SWS_CLUSTER_SLOTS * 8u)  /* vswap: a used physical cluster's reverse map */
#define VTABLE_BYTES (SWS_CLUSTER_SLOTS * 8u) /* vswap-st: a used ghost cluster's virtual table */
#define RMAP_PTR_BYTES 8u                    /* vswap: a physical device's reverse-map pointer per cluster */
#define IO_PERMILLE 100                      /* vswap: operations that are page I/O, per mille */
#define SURGE_CHUNKS 3 /* vswap: the surge maps the virtual device to 3 times its first clusters */
#define P_ALLOC 1      /* p_io(): a write that allocates a physical run (0 or SWS_ENOSPC) */

/* What a design's memory layout and free path are (swap_table.h, xarray.c). */
struct traits {
	bool swap_map;    /* swap_map bytes, continuation pages kept until swapoff: xarray, st-p1, st-p2 */
	bool static_maps; /* static swap_cgroup and zeromap: every design before st-p4 */
	bool swap_table;  /* per-cluster swap tables, present iff the cluster is in use: st-p1..st-p4 */
	bool memcg_table; /* per-cluster memcg tables beside them: st-p4 */
	bool extend;      /* counts in the table word, overflow in extend tables: st-p3, st-p4 */
	bool xarray;      /* the XArray swap cache: address spaces and tree nodes */
	bool fallback;    /* a multi-slot put that is not a uniform count-1 run counts swap_free_fallback */
	bool vswap;       /* virtual entries; descriptors, physical bitmaps and reverse maps: vswap */
	bool vst;         /* vswap's virtual entries on phase IV tables: a ghost device whose clusters
			   * carry virtual tables, physical devices whose tables are the reverse
			   * map; no XArray, no descriptors, no bitmaps: vswap-st */
};

static struct traits traits_of(enum sws_backend b)
{
	switch (b) {
	case SWS_BACKEND_XARRAY:
		return (struct traits){.swap_map = true, .static_maps = true, .xarray = true, .fallback = true};
	case SWS_BACKEND_ST_P1:
		return (struct traits){.swap_map = true, .static_maps = true, .swap_table = true, .fallback = true};
	case SWS_BACKEND_ST_P2:
		return (struct traits){.swap_map = true, .static_maps = true, .swap_table = true};
	case SWS_BACKEND_ST_P3:
		return (struct traits){.static_maps = true, .swap_table = true, .extend = true};
	case SWS_BACKEND_ST_P4:
		return (struct traits){.swap_table = true, .memcg_table = true, .extend = true};
	case SWS_DESIGN_VSWAP_V3:
	case SWS_BACKEND_VSWAP:
		return (struct traits){.vswap = true};
	case SWS_DESIGN_VSWAP_ST:
		return (struct traits){.vswap = true, .vst = true, .swap_table = true, .memcg_table = true, .extend = true};
	default:
		fail_msg("test_backends: no traits for design %s (%d)", sws_backend_name(b), (int)b);
		return (struct traits){0};
	}
}

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
	sws_entry_t phys; /* vswap: the physical slot backing it, 0: none */
};

/*
 * A device of the model. A regular one has a slot array. Under vswap the
 * virtual device (virt) has one array per 512-slot cluster, made on first
 * touch, and max is the bound its mapped clusters give (it grows and
 * shrinks: vmap_refresh()); a physical one (phys) has no entries, only the
 * virtual slot each of its slots backs.
 */
struct mdev {
	int type;
	bool virt, phys;
	uint64_t max;
	uint64_t inuse;      /* physical: slots backing a virtual one */
	struct mslot *slots; /* [max]: regular */
	struct mslot **cl;   /* [ncl]: virtual */
	uint32_t ncl;
	sws_entry_t *owner;  /* [max]: physical, the virtual slot each backs (0: none) */
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
	uint64_t fallback; /* swap_free_fallback on the designs that have the fallback */
	uint64_t phys_alloc, phys_free; /* vswap: physical slots given to and taken from virtual ones */
	uint64_t alloc[SWS_NR_ORDERS], alloc_fail[SWS_NR_ORDERS];
};

struct diff {
	uint64_t seed, rng;
	unsigned op;
	const struct group *g;
	int nsim;
	bool vswap; /* the vswap group: virtual entries, the devices swapped on are physical */
	enum sws_backend backend[MAX_SIM];
	struct traits tr[MAX_SIM];
	struct sws_sim *sim[MAX_SIM];
	struct sws_cpu *cpu[MAX_SIM];
	struct sws_test_alloc ta[MAX_SIM]; /* each simulation's allocator */
	struct mdev dev[NDEV];             /* the devices swapped on (physical under vswap) */
	struct mdev vdev;                  /* vswap: the virtual device */
	struct mdev *edev[NDEV];           /* the devices entries come from: dev[], or vdev */
	int nedev;
	struct mdev *all[NDEV + 1]; /* every device of the simulations */
	int nall;
	struct mdev *by_type[SWS_MAX_SWAPFILES];
	unsigned no_dev_type; /* the lowest type with no device */
	uint32_t vmap0;       /* vswap: clusters the virtual device mapped at first */
	struct vec allocs, folios;
	uint64_t next_pfn;
	uint64_t total, cached; /* model: usable slots (physical), slots holding a folio */
	struct mctr m;
	uint64_t base_dynamic[MAX_SIM], base_static[MAX_SIM];
	uint64_t base[MAX_SIM][SWS_NR_MEM_CLASSES]; /* memory right after swapon */
	uint64_t created[MAX_SIM][SWS_NR_MEM_CLASSES]; /* memory right after sws_sim_create */
	uint64_t created_dynamic[MAX_SIM], created_static[MAX_SIM];
	unsigned enospc0_with_free; /* order-0 ENOSPC while the model had free slots */
	struct {
		unsigned calls, errors, alloc_large, enospc, add, del, replace, split;
		uint32_t max_count;
		/* vswap: writes and reads (io_target), runs allocated, physical ENOSPC (of one
		 * slot with physical slots free), EBUSY (mixed backing), runs released by a zero
		 * page, mapped clusters */
		unsigned writes, reads, runs, busy, phys_enospc, phys_enospc0_with_free, zero_release;
		uint32_t max_vclusters;
		uint64_t max_phys; /* vswap: physical slots in use at most */
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

static const char *dname(const struct diff *d, int s) { return sws_backend_name(d->backend[s]); }

static void dump_log(struct diff *d)
{
	char names[128];
	int n = 0;
	names[0] = 0;
	for (int s = 0; s < d->nsim && n >= 0 && (size_t)n < sizeof(names); s++)
		n += snprintf(names + n, sizeof(names) - (size_t)n, "%s%s", s ? ", " : "", dname(d, s));
	print_error("seed %llu, op %u (%s group: designs %s); last operations:\n", (unsigned long long)d->seed,
		    d->op, d->g->name, names);
	unsigned first = d->nlog > LOG_LINES ? d->nlog - LOG_LINES : 0;
	for (unsigned i = first; i < d->nlog; i++)
		print_error("  %s\n", d->log[i % LOG_LINES]);
}

#define DFAIL(d, ...)                   \
	do {                            \
		dump_log(d);            \
		fail_msg(__VA_ARGS__);  \
	} while (0)

/* Run @call on every simulation (there is at least one): cpu_ and s_ name the CPU and the index. */
#define ON_ALL(d, r, call)                                       \
	do {                                                     \
		int s_ = 0;                                      \
		do {                                             \
			struct sws_cpu *cpu_ = (d)->cpu[s_];     \
			(void)cpu_;                              \
			(r)[s_] = (call);                        \
		} while (++s_ < (d)->nsim);                      \
	} while (0)

/*
 * Per-design values for a failure message: "st-p4 X, xarray X, st-p1 Y
 * [st-p1 differs from st-p4]". @fmt prints value @s into a buffer.
 */
typedef void (*fmt_fn)(const void *vals, int s, char *buf, size_t len);

static const char *fmt_all(const struct diff *d, const void *vals, const bool *differs, fmt_fn fmt, char *out,
			   size_t len)
{
	size_t n = 0;
	out[0] = 0;
	for (int s = 0; s < d->nsim && n < len; s++) {
		char v[64];
		fmt(vals, s, v, sizeof(v));
		n += (size_t)snprintf(out + n, len - n, "%s%s %s", s ? ", " : "", dname(d, s), v);
	}
	bool any = false;
	for (int s = 1; s < d->nsim && n < len; s++) {
		if (!differs[s])
			continue;
		n += (size_t)snprintf(out + n, len - n, "%s%s", any ? ", " : " [", dname(d, s));
		any = true;
	}
	if (any && n < len)
		snprintf(out + n, len - n, " differ from %s]", dname(d, 0));
	return out;
}

static void fmt_rc(const void *vals, int s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", sws_error_name(((const int *)vals)[s]));
}

static void fmt_u64(const void *vals, int s, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)((const uint64_t *)vals)[s]);
}

static void fmt_u32(const void *vals, int s, char *buf, size_t len)
{
	snprintf(buf, len, "%u", ((const uint32_t *)vals)[s]);
}

static void fmt_ent(const void *vals, int s, char *buf, size_t len)
{
	sws_entry_t e = ((const sws_entry_t *)vals)[s];
	snprintf(buf, len, "%u:%llu", sws_swp_type(e), (unsigned long long)sws_swp_offset(e));
}

/* Do all simulations agree with simulation 0? @differs[s] says which do not. */
static bool same_rc(const int *v, int n, bool *differs)
{
	bool same = true;
	for (int s = 0; s < n; s++)
		same &= !(differs[s] = v[s] != v[0]);
	return same;
}

static bool same_u64(const uint64_t *v, int n, bool *differs)
{
	bool same = true;
	for (int s = 0; s < n; s++)
		same &= !(differs[s] = v[s] != v[0]);
	return same;
}

static bool same_u32(const uint32_t *v, int n, bool *differs)
{
	bool same = true;
	for (int s = 0; s < n; s++)
		same &= !(differs[s] = v[s] != v[0]);
	return same;
}

static void check_rc(struct diff *d, const char *what, sws_entry_t e, unsigned nr, const int *r, int want)
{
	char b[40], all[512];
	bool differs[MAX_SIM];
	oplog(d, "%s %s nr %u -> %s", what, ent(e, b, sizeof(b)), nr, sws_error_name(r[0]));
	d->cov.calls++;
	d->cov.errors += r[0] != 0;
	if (!same_rc(r, d->nsim, differs))
		DFAIL(d, "%s(%s, nr %u): designs disagree: %s", what, b, nr,
		      fmt_all(d, r, differs, fmt_rc, all, sizeof(all)));
	if (r[0] != want)
		DFAIL(d, "%s(%s, nr %u): every design returned %s, the contract says %s", what, b, nr,
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

/* The model's slots of virtual cluster @c, made (all FREE) on first touch. */
static struct mslot *vcluster(struct mdev *md, uint64_t c)
{
	if (c >= md->ncl) {
		uint32_t n = md->ncl ? md->ncl : 64;
		while (n <= c)
			n *= 2;
		md->cl = realloc(md->cl, n * sizeof(*md->cl));
		assert_non_null(md->cl);
		memset(md->cl + md->ncl, 0, (n - md->ncl) * sizeof(*md->cl));
		md->ncl = n;
	}
	if (!md->cl[c]) {
		struct mslot *a = calloc(SWS_CLUSTER_SLOTS, sizeof(*a));
		assert_non_null(a);
		for (unsigned i = 0; i < SWS_CLUSTER_SLOTS; i++)
			a[i].aidx = a[i].fidx = -1;
		md->cl[c] = a;
	}
	return md->cl[c];
}

/* Slot @off of a device with entries, or NULL for a virtual slot never touched (FREE). */
static const struct mslot *ms_peek(const struct mdev *md, uint64_t off)
{
	if (!md->virt)
		return &md->slots[off];
	uint64_t c = off / SWS_CLUSTER_SLOTS;
	return c < md->ncl && md->cl[c] ? &md->cl[c][off % SWS_CLUSTER_SLOTS] : NULL;
}

static struct mslot *ms(struct diff *d, sws_entry_t e)
{
	struct mdev *md = d->by_type[sws_swp_type(e)];
	uint64_t off = sws_swp_offset(e);
	if (md->virt)
		return &vcluster(md, off / SWS_CLUSTER_SLOTS)[off % SWS_CLUSTER_SLOTS];
	if (md->phys)
		DFAIL(d, "test bug: the model of physical entry %u:%llu", sws_swp_type(e), (unsigned long long)off);
	return &md->slots[off];
}

/* Slots in use on the devices entries come from, and on the devices in the totals. */
static uint64_t entry_inuse(const struct diff *d)
{
	uint64_t n = 0;
	for (int i = 0; i < d->nedev; i++)
		n += d->edev[i]->inuse;
	return n;
}

static uint64_t phys_inuse(const struct diff *d)
{
	uint64_t n = 0;
	for (int i = 0; i < NDEV; i++)
		n += d->dev[i].inuse;
	return n;
}

/*
 * vswap: the virtual device's bound is what its mapped clusters cover now
 * (the allocator maps more when it needs them, the deferred work unmaps a
 * free tail): it is the model's geometry, read from the simulation after
 * every call that may move it. Only free clusters may go.
 */
static void vmap_refresh(struct diff *d)
{
	struct mdev *md = &d->vdev;
	struct sws_device_info di;
	if (!d->vswap)
		return;
	assert_sws(0, sws_device_info_get(d->sim[0], md->type, &di));
	uint64_t mapped = (uint64_t)di.nr_clusters * SWS_CLUSTER_SLOTS;
	if (mapped > di.max)
		mapped = di.max;
	for (uint64_t c = mapped / SWS_CLUSTER_SLOTS; c < md->ncl && c * SWS_CLUSTER_SLOTS < md->max; c++)
		for (unsigned i = 0; md->cl[c] && i < SWS_CLUSTER_SLOTS; i++)
			if (md->cl[c][i].state != M_FREE)
				DFAIL(d, "the virtual device maps %u clusters now, but slot %llu is in use",
				      di.nr_clusters, (unsigned long long)(c * SWS_CLUSTER_SLOTS + i));
	md->max = mapped;
	if (di.nr_clusters > d->cov.max_vclusters)
		d->cov.max_vclusters = di.nr_clusters;
}

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

/*
 * vswap: virtual slot @e (model @m) gives its physical slot back. The call
 * that did it has returned: the physical slot must be free and back nothing
 * at once (the device's use is checked with the others).
 */
static void m_phys_release(struct diff *d, sws_entry_t e, struct mslot *m)
{
	sws_entry_t p = m->phys;
	char b[40], pb[40], vb[40];
	if (!p)
		return;
	struct mdev *pd = d->by_type[sws_swp_type(p)];
	uint64_t po = sws_swp_offset(p);
	if (pd->owner[po] != e)
		DFAIL(d, "test bug: physical slot %s does not back %s", ent(p, pb, sizeof(pb)), ent(e, b, sizeof(b)));
	pd->owner[po] = 0;
	pd->inuse--;
	d->m.phys_free++;
	m->phys = 0;
	struct sws_slot_state st;
	int rc = sws_swap_slot_state(d->sim[0], p, &st);
	sws_entry_t v = sws_swap_rmap(d->cpu[0], p);
	if (rc || st.allocated || v)
		DFAIL(d, "%s gave physical slot %s back: slot_state %s allocated %d, rmap %s (want free, 0)",
		      ent(e, b, sizeof(b)), ent(p, pb, sizeof(pb)), sws_error_name(rc), st.allocated,
		      ent(v, vb, sizeof(vb)));
}

static void m_slot_free(struct diff *d, sws_entry_t e)
{
	struct mslot *m = ms(d, e);
	int32_t a = m->aidx;
	m_phys_release(d, e, m); /* vswap: the physical slot goes with it */
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

/* ---- predictions (the contract of lib/swap/design.h) ----------------------------- */

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

/*
 * vswap's io_target (design.h: io_slot): only virtual entries; any FREE ->
 * ENOENT; backed by anything but one run (some backed, some not, or
 * physical slots not in a row) -> EBUSY; one run -> it, for a read or a
 * write; none: a read -> ENOENT, a write of a range that is not folio
 * shaped -> EINVAL, else a new run (P_ALLOC: 0, or ENOSPC when the physical
 * devices have no room for it). *run gets the run.
 */
static int p_io(struct diff *d, sws_entry_t e, unsigned nr, bool write, sws_entry_t *run)
{
	int rc = m_resolve(d, e, nr);
	*run = 0;
	if (rc)
		return rc;
	if (!d->by_type[sws_swp_type(e)]->virt)
		return SWS_EBADENTRY; /* a physical entry is not an entry */
	for (unsigned k = 0; k < nr; k++)
		if (ms(d, e + k)->state == M_FREE)
			return SWS_ENOENT;
	sws_entry_t first = ms(d, e)->phys;
	for (unsigned k = 0; k < nr; k++) {
		sws_entry_t p = ms(d, e + k)->phys;
		if ((first != 0) != (p != 0) || (first && p != first + k))
			return SWS_EBUSY;
	}
	*run = first;
	if (first)
		return 0;
	if (!write)
		return SWS_ENOENT;
	return folio_shaped(e, nr) ? P_ALLOC : SWS_EINVAL;
}

/* ---- operations on every simulation ------------------------------------------------ */

/* An output every design returned for @e: all equal to simulation 0's, and to the model's @exp. */
static void check_u64s(struct diff *d, const char *what, sws_entry_t e, const uint64_t *v, uint64_t exp)
{
	char b[40], all[512];
	bool differs[MAX_SIM];
	if (!same_u64(v, d->nsim, differs))
		DFAIL(d, "%s %s: designs disagree: %s (the model says %llu)", what, ent(e, b, sizeof(b)),
		      fmt_all(d, v, differs, fmt_u64, all, sizeof(all)), (unsigned long long)exp);
	if (v[0] != exp)
		DFAIL(d, "%s %s: every design says %llu, the model says %llu", what, ent(e, b, sizeof(b)),
		      (unsigned long long)v[0], (unsigned long long)exp);
}

static void op_alloc(struct diff *d, uint64_t pfn, unsigned order)
{
	sws_entry_t e[MAX_SIM] = {0};
	int r[MAX_SIM];
	char b[40], all[512];
	bool differs[MAX_SIM];
	ON_ALL(d, r, sws_folio_alloc_swap(cpu_, pfn, order, &e[s_]));
	oplog(d, "alloc pfn %llu order %u -> %s %s", (unsigned long long)pfn, order, sws_error_name(r[0]),
	      r[0] ? "" : ent(e[0], b, sizeof(b)));
	if (!same_rc(r, d->nsim, differs))
		DFAIL(d, "alloc pfn %llu order %u: designs disagree: %s", (unsigned long long)pfn, order,
		      fmt_all(d, r, differs, fmt_rc, all, sizeof(all)));
	if (order >= SWS_NR_ORDERS || !pfn_ok(pfn)) {
		if (r[0] != SWS_EINVAL)
			DFAIL(d, "alloc order %u pfn %llu: %s, want SWS_EINVAL", order, (unsigned long long)pfn,
			      sws_error_name(r[0]));
		return;
	}
	if (r[0] == SWS_ENOSPC && d->vswap)
		DFAIL(d, "alloc order %u: SWS_ENOSPC from a virtual device of 2^32 slots with %llu in use", order,
		      (unsigned long long)entry_inuse(d));
	if (r[0] == SWS_ENOSPC) {
		d->m.alloc_fail[order]++;
		d->cov.enospc++;
		if (!order && d->total - entry_inuse(d))
			d->enospc0_with_free++;
		if (order) /* the kernel splits the folio and swaps out its pages one by one */
			op_alloc(d, pfn, 0);
		return;
	}
	if (r[0])
		DFAIL(d, "alloc order %u: unexpected %s", order, sws_error_name(r[0]));
	if (!same_u64(e, d->nsim, differs))
		DFAIL(d, "alloc pfn %llu order %u: designs got different entries: %s", (unsigned long long)pfn, order,
		      fmt_all(d, e, differs, fmt_ent, all, sizeof(all)));
	unsigned nr = 1u << order;
	vmap_refresh(d); /* vswap: the allocation may have mapped more of the virtual device */
	unsigned t = sws_swp_type(e[0]);
	if (t >= SWS_MAX_SWAPFILES || !d->by_type[t] || d->by_type[t]->phys)
		DFAIL(d, "alloc order %u returned %s: not an entry of a device entries come from", order,
		      ent(e[0], b, sizeof(b)));
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
	int want = p_dup(d, e, nr), r[MAX_SIM];
	ON_ALL(d, r, sws_swap_dup(cpu_, e, nr));
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
	int want = p_put(d, e, nr), r[MAX_SIM];
	/* Every other put says which slots it left cache-only (the free path's
	 * swap_put_entries_direct()): count 0 with a folio in the swap cache. */
	bool direct = (sws_swp_offset(e) ^ nr) & 1;
	uint64_t oc[MAX_SIM][SWS_CLUSTER_SLOTS / 64];
	if (direct)
		ON_ALL(d, r, sws_swap_put_entries_direct(cpu_, e, nr, oc[s_]));
	else
		ON_ALL(d, r, sws_swap_put(cpu_, e, nr));
	check_rc(d, "put", e, nr, r, want);
	for (unsigned k = 0; direct && !want && k < nr; k++) {
		const struct mslot *m = ms(d, e + k);
		bool only = m->count == 1 && m->state == M_CACHED;
		for (int s = 0; s < d->nsim; s++)
			if (((oc[s][k / 64] >> (k % 64)) & 1) != only) {
				char b[40];
				DFAIL(d, "put %s nr %u: %s says slot +%u is%s left cache-only, the model says%s",
				      ent(e, b, sizeof(b)), nr, dname(d, s), k, only ? " not" : "", only ? " so" : " not");
			}
	}
	if (!want && nr > 1) {
		/* swap_is_last_map(): a batch only when every slot has count 1 and the
		 * same SWAP_HAS_CACHE (cached or not); else one entry at a time. */
		bool uniform = true;
		for (unsigned k = 0; k < nr && uniform; k++)
			uniform = ms(d, e + k)->count == 1 && ms(d, e + k)->state == ms(d, e)->state;
		d->m.fallback += !uniform;
	}
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
	int want = p_one(d, e), r[MAX_SIM];
	uint32_t c[MAX_SIM] = {0};
	char b[40], all[512];
	bool differs[MAX_SIM];
	ON_ALL(d, r, sws_swap_count(cpu_, e, &c[s_]));
	check_rc(d, "count", e, 1, r, want);
	if (want)
		return;
	if (!same_u32(c, d->nsim, differs))
		DFAIL(d, "count %s: designs disagree: %s (the model says %u)", ent(e, b, sizeof(b)),
		      fmt_all(d, c, differs, fmt_u32, all, sizeof(all)), ms(d, e)->count);
	if (c[0] != ms(d, e)->count)
		DFAIL(d, "count %s: every design says %u, the model says %u", ent(e, b, sizeof(b)), c[0],
		      ms(d, e)->count);
}

static void op_get_shadow(struct diff *d, sws_entry_t e)
{
	int want = p_one(d, e), r[MAX_SIM];
	uint64_t sh[MAX_SIM] = {0};
	ON_ALL(d, r, sws_swap_cache_get_shadow(cpu_, e, &sh[s_]));
	check_rc(d, "get_shadow", e, 1, r, want);
	if (!want)
		check_u64s(d, "get_shadow", e, sh, ms(d, e)->state == M_SHADOW ? ms(d, e)->shadow : 0);
}

static void op_lookup(struct diff *d, sws_entry_t e)
{
	uint64_t p[MAX_SIM];
	char b[40];
	ON_ALL(d, p, sws_swap_cache_lookup(cpu_, e));
	uint64_t exp = 0;
	unsigned t = sws_swp_type(e);
	const struct mdev *md = t < SWS_MAX_SWAPFILES ? d->by_type[t] : NULL;
	uint64_t off = sws_swp_offset(e);
	if (md && md->phys)
		DFAIL(d, "test bug: lookup of physical entry %s", ent(e, b, sizeof(b)));
	const struct mslot *m = md && off && off < md->max ? ms_peek(md, off) : NULL;
	if (m && m->state == M_CACHED)
		exp = m->pfn;
	oplog(d, "lookup %s -> %llu", ent(e, b, sizeof(b)), (unsigned long long)p[0]);
	check_u64s(d, "lookup", e, p, exp);
	d->m.find++;
	d->m.find_ok += exp != 0;
}

static int op_add(struct diff *d, sws_entry_t e, unsigned nr, uint64_t pfn)
{
	int want = p_add(d, e, nr, pfn), r[MAX_SIM];
	uint64_t sh[MAX_SIM];
	uint64_t exp = !want ? ms(d, e)->shadow : 0;
	for (int s = 0; s < d->nsim; s++)
		sh[s] = ~0ull;
	ON_ALL(d, r, sws_swap_cache_add(cpu_, e, nr, pfn, &sh[s_]));
	check_rc(d, "cache_add", e, nr, r, want);
	if (want)
		return want;
	check_u64s(d, "cache_add's shadow", e, sh, exp);
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
	int want = p_del(d, e, nr, pfn, shadow), r[MAX_SIM];
	ON_ALL(d, r, sws_swap_cache_del(cpu_, e, nr, pfn, shadow));
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
	int want = p_replace(d, e, nr, old_pfn, new_pfn), r[MAX_SIM];
	ON_ALL(d, r, sws_swap_cache_replace(cpu_, e, nr, old_pfn, new_pfn));
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

/*
 * vswap: page I/O of @nr virtual slots from @e (sws_swap_io_target). A write
 * that gives the range a new physical run must find @nr free physical slots,
 * aligned, in one cluster; afterwards the reverse map names the virtual slots
 * and the run is the target of a second write and of a read. A new run also
 * clears the zero flag (the descriptor is backed by the device now: a page
 * written out is no zero page).
 */
static int op_io(struct diff *d, sws_entry_t e, unsigned nr, bool write)
{
	sws_entry_t run, p = 0;
	int want = p_io(d, e, nr, write, &run);
	int r = sws_swap_io_target(d->cpu[0], e, nr, write, &p);
	const char *what = write ? "io_target(write)" : "io_target(read)";
	char b[40], pb[40], rb[40];
	oplog(d, "%s %s nr %u -> %s %s", what, ent(e, b, sizeof(b)), nr, sws_error_name(r),
	      r ? "" : ent(p, pb, sizeof(pb)));
	d->cov.calls++;
	d->cov.errors += r != 0;
	if (write)
		d->cov.writes++;
	else
		d->cov.reads++;
	if (want != P_ALLOC) {
		if (r != want)
			DFAIL(d, "%s(%s, nr %u): %s, the model says %s", what, b, nr, sws_error_name(r),
			      sws_error_name(want));
		if (!r && p != run)
			DFAIL(d, "%s(%s, nr %u): run %s, the model has %s", what, b, nr, ent(p, pb, sizeof(pb)),
			      ent(run, rb, sizeof(rb)));
		d->cov.busy += r == SWS_EBUSY;
		return r;
	}
	if (r == SWS_ENOSPC) {
		d->cov.phys_enospc++;
		d->cov.phys_enospc0_with_free += nr == 1 && d->total > phys_inuse(d);
		return r;
	}
	if (r)
		DFAIL(d, "%s(%s, nr %u): %s, the model says a new physical run or SWS_ENOSPC", what, b, nr,
		      sws_error_name(r));
	unsigned pt = sws_swp_type(p);
	struct mdev *pd = pt < SWS_MAX_SWAPFILES ? d->by_type[pt] : NULL;
	uint64_t po = sws_swp_offset(p);
	if (!pd || !pd->phys || !po || po + nr > pd->max || po % nr ||
	    po / SWS_CLUSTER_SLOTS != (po + nr - 1) / SWS_CLUSTER_SLOTS)
		DFAIL(d, "%s(%s, nr %u) gave run %s: not an aligned run of one physical cluster", what, b, nr,
		      ent(p, pb, sizeof(pb)));
	for (unsigned k = 0; k < nr; k++)
		if (pd->owner[po + k])
			DFAIL(d, "%s(%s, nr %u) gave run %s: its slot +%u backs %s already", what, b, nr,
			      ent(p, pb, sizeof(pb)), k, ent(pd->owner[po + k], rb, sizeof(rb)));
	for (unsigned k = 0; k < nr; k++) {
		struct mslot *m = ms(d, e + k);
		m->phys = p + k;
		m->zero = false;
		pd->owner[po + k] = e + k;
	}
	pd->inuse += nr;
	d->m.phys_alloc += nr;
	d->cov.runs++;
	if (phys_inuse(d) > d->cov.max_phys)
		d->cov.max_phys = phys_inuse(d);
	for (unsigned k = 0; k < nr; k++) {
		struct sws_slot_state st;
		sws_entry_t v = sws_swap_rmap(d->cpu[0], p + k);
		int rc = sws_swap_slot_state(d->sim[0], p + k, &st);
		if (v != e + k || rc || !st.allocated)
			DFAIL(d, "%s(%s, nr %u) gave run %s: slot +%u maps back to %s, slot_state %s allocated %d",
			      what, b, nr, ent(p, pb, sizeof(pb)), k, ent(v, rb, sizeof(rb)), sws_error_name(rc),
			      st.allocated);
	}
	sws_entry_t again = 0;
	int r2 = sws_swap_io_target(d->cpu[0], e, nr, true, &again);
	if (r2 || again != p)
		DFAIL(d, "a second write of %s nr %u: %s %s, the first gave %s", b, nr, sws_error_name(r2),
		      ent(again, rb, sizeof(rb)), ent(p, pb, sizeof(pb)));
	r2 = sws_swap_io_target(d->cpu[0], e, nr, false, &again);
	if (r2 || again != p)
		DFAIL(d, "a read of %s nr %u after its write: %s %s, the write gave %s", b, nr, sws_error_name(r2),
		      ent(again, rb, sizeof(rb)), ent(p, pb, sizeof(pb)));
	return 0;
}

/* vswap: the reverse map of any entry: the virtual slot a physical one backs, else 0. */
static void op_rmap(struct diff *d, sws_entry_t p)
{
	unsigned t = sws_swp_type(p);
	const struct mdev *pd = t < SWS_MAX_SWAPFILES ? d->by_type[t] : NULL;
	uint64_t off = sws_swp_offset(p);
	sws_entry_t exp = pd && pd->phys && off && off < pd->max ? pd->owner[off] : 0;
	sws_entry_t v = sws_swap_rmap(d->cpu[0], p);
	char b[40], vb[40], xb[40];
	oplog(d, "rmap %s -> %s", ent(p, b, sizeof(b)), ent(v, vb, sizeof(vb)));
	d->cov.calls++;
	if (v != exp)
		DFAIL(d, "rmap %s: %s, the model says %s", b, vb, ent(exp, xb, sizeof(xb)));
}

/* vswap: a zero page needs no physical slot: setting the flag gives the run back. */
static int op_set_zero(struct diff *d, sws_entry_t e, unsigned nr, bool zero)
{
	int want = p_allocated(d, e, nr), r[MAX_SIM];
	ON_ALL(d, r, sws_swap_set_zero(cpu_, e, nr, zero));
	check_rc(d, zero ? "set_zero(1)" : "set_zero(0)", e, nr, r, want);
	for (unsigned k = 0; k < nr && !want; k++) {
		struct mslot *m = ms(d, e + k);
		m->zero = zero;
		if (zero && m->phys) {
			m_phys_release(d, e + k, m);
			d->cov.zero_release++;
			op_io(d, e + k, 1, false); /* SWS_ENOENT now */
		}
	}
	return want;
}

static int op_set_memcg(struct diff *d, sws_entry_t e, unsigned nr, uint16_t id)
{
	int want = p_allocated(d, e, nr), r[MAX_SIM];
	ON_ALL(d, r, sws_swap_set_memcg(cpu_, e, nr, id));
	check_rc(d, "set_memcg", e, nr, r, want);
	for (unsigned k = 0; k < nr && !want; k++)
		ms(d, e + k)->memcg = id;
	return want;
}

static void op_deferred(struct diff *d, unsigned budget)
{
	uint32_t left[MAX_SIM];
	for (int s = 0; s < d->nsim; s++)
		left[s] = sws_swap_do_deferred_work(d->sim[s], budget);
	char all[512];
	bool differs[MAX_SIM];
	oplog(d, "deferred work budget %u -> %u left", budget, left[0]);
	if (!same_u32(left, d->nsim, differs))
		DFAIL(d, "deferred work (budget %u): designs disagree on what is left: %s", budget,
		      fmt_all(d, left, differs, fmt_u32, all, sizeof(all)));
	vmap_refresh(d); /* vswap: it may have unmapped a free tail of the virtual device */
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

static struct mdev *pick_dev(struct diff *d) { return d->edev[rnd(d, (uint64_t)d->nedev)]; }

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
		const struct mslot *m = ms_peek(md, off);
		if (!m || m->state == M_FREE)
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
static void free_allocation(struct diff *d, struct range a)
{
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

static void do_free_allocation(struct diff *d)
{
	if (d->allocs.n)
		free_allocation(d, d->allocs.v[rnd(d, d->allocs.n)]);
}

/*
 * vswap: page I/O. Reclaim writes a cached folio out (swap_writeout(): its
 * first write gives it a physical run); a read finds the run of part of an
 * allocation, or none, or a mixed one; parts of an allocation are written on
 * their own, or a folio's two halves one after the other (runs that need not
 * join: the whole is then backed but by no single run); a folio written out
 * and then found zero-filled gives its run back.
 */
static void do_io(struct diff *d)
{
	struct range *f = pick_folio(d);
	sws_entry_t e;
	unsigned nr;
	switch (rnd(d, 9)) {
	case 0:
	case 1:
	case 2:
	case 3:
		if (f)
			op_io(d, f->e, f->nr, true);
		break;
	case 7:
		if (f && f->nr > 1) {
			sws_entry_t fe = f->e;
			unsigned half = f->nr / 2;
			op_io(d, fe, half, true);
			op_io(d, fe + half, half, true);
			op_io(d, fe, 2 * half, rnd(d, 2) != 0);
		}
		break;
	case 4:
		if (pick_alloc_range(d, &e, &nr))
			op_io(d, e, nr, false);
		break;
	case 5:
		if (pick_alloc_range(d, &e, &nr))
			op_io(d, e, nr, true);
		break;
	case 6:
		if (f) {
			sws_entry_t fe = f->e;
			unsigned fnr = f->nr, sub = 1u << rnd(d, (unsigned)__builtin_ctz(f->nr) + 1);
			if (!op_io(d, fe, fnr, true))
				op_set_zero(d, fe + sub * rnd(d, fnr / sub), sub, true);
		}
		break;
	default:
		op_io(d, pick_slot(d), 1, false);
		break;
	}
}

/*
 * vswap: a surge of order-9 folios maps the virtual device to SURGE_CHUNKS
 * times the clusters it had at first (the allocator grows it), and reclaim
 * writes half of them out: more than the physical devices hold (ENOSPC for
 * whole clusters, then for single slots). Its allocations go as any others
 * do; when everything is freed at the end the deferred work unmaps the free
 * tail again.
 */
static void do_surge(struct diff *d)
{
	struct sws_device_info di;
	oplog(d, "surge to %u clusters", SURGE_CHUNKS * d->vmap0);
	for (int n = 0;; n++) {
		assert_sws(0, sws_device_info_get(d->sim[0], d->vdev.type, &di));
		if (di.nr_clusters >= SURGE_CHUNKS * d->vmap0)
			break;
		if (n == 4 * (int)(SURGE_CHUNKS * d->vmap0))
			DFAIL(d, "the virtual device maps %u clusters after %d order-9 allocations", di.nr_clusters, n);
		op_alloc(d, d->next_pfn++, SWS_NR_ORDERS - 1);
		if (rnd(d, 2)) {
			const struct range *a = &d->allocs.v[d->allocs.n - 1];
			op_io(d, a->e, a->nr, true);
		}
	}
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

	switch (rnd(d, d->vswap ? 18 : 16)) {
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
		e = sws_swp_entry(d->no_dev_type + (unsigned)rnd(d, 64 - d->no_dev_type), 1 + rnd(d, 100));
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
	case 16: { /* vswap: page I/O and the reverse map of what is no virtual range */
		struct mdev *pd = &d->dev[rnd(d, NDEV)];
		sws_entry_t pe = sws_swp_entry((unsigned)pd->type, rnd(d, pd->max + 8));
		op_io(d, pe, 1, rnd(d, 2) != 0); /* a physical entry: SWS_EBADENTRY */
		op_rmap(d, pe);
		op_io(d, sws_swp_entry(d->no_dev_type, 1), 1, true);
		op_io(d, sws_swp_entry(t, 0), 1, true);
		op_io(d, sws_swp_entry(t, md->max + rnd(d, 600)), 1, false);
		if (pick_alloc_range(d, &e, &nr)) {
			op_rmap(d, e); /* a virtual entry backs nothing */
			op_io(d, e, 0, true);
			op_io(d, e, SWS_CLUSTER_SLOTS + 1, false);
			if (nr > 2)
				op_io(d, e + 1, nr - 1, true); /* not folio shaped */
		}
		if ((e = pick_free_slot(d))) {
			op_io(d, e, 1, true);
			op_io(d, e, 1, false);
		}
		if (pe && sws_swp_offset(pe) && sws_swp_offset(pe) < pd->max) {
			int r[MAX_SIM];
			uint32_t c;
			uint64_t sh;
			ON_ALL(d, r, sws_swap_dup(cpu_, pe, 1));
			check_rc(d, "dup(physical)", pe, 1, r, SWS_EBADENTRY);
			ON_ALL(d, r, sws_swap_put(cpu_, pe, 1));
			check_rc(d, "put(physical)", pe, 1, r, SWS_EBADENTRY);
			ON_ALL(d, r, sws_swap_count(cpu_, pe, &c));
			check_rc(d, "count(physical)", pe, 1, r, SWS_EBADENTRY);
			ON_ALL(d, r, sws_swap_cache_add(cpu_, pe, 1, pfn, &sh));
			check_rc(d, "cache_add(physical)", pe, 1, r, SWS_EBADENTRY);
			ON_ALL(d, r, sws_swap_set_zero(cpu_, pe, 1, true));
			check_rc(d, "set_zero(physical)", pe, 1, r, SWS_EBADENTRY);
			if (sws_swap_cache_lookup(d->cpu[0], pe))
				DFAIL(d, "lookup of a physical entry found a folio");
			d->m.find++;
		}
		break;
	}
	case 17: { /* vswap: its virtual device goes with the simulation only */
		int r[MAX_SIM];
		for (int s = 0; s < d->nsim; s++)
			r[s] = sws_swapoff(d->sim[s], d->vdev.type);
		check_rc(d, "swapoff(virtual)", sws_swp_entry((unsigned)d->vdev.type, 0), 0, r, SWS_EINVAL);
		break;
	}
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

static bool slot_eq(const struct sws_slot_state *a, const struct sws_slot_state *b)
{
	return a->allocated == b->allocated && a->bad == b->bad && a->cached == b->cached && a->zero == b->zero &&
	       a->memcg == b->memcg && a->count == b->count && a->pfn == b->pfn && a->shadow == b->shadow;
}

static const char *fmt_slot(const struct sws_slot_state *st, char *buf, size_t len)
{
	snprintf(buf, len, "alloc %d bad %d cached %d zero %d memcg %u count %u pfn %llu shadow %llu", st->allocated,
		 st->bad, st->cached, st->zero, st->memcg, st->count, (unsigned long long)st->pfn,
		 (unsigned long long)st->shadow);
	return buf;
}

/* What the model says slot @off of @md looks like. */
static struct sws_slot_state model_slot(const struct mdev *md, uint64_t off)
{
	struct sws_slot_state w = {0};
	if (off == 0) {
		w.bad = w.allocated = true;
		return w;
	}
	const struct mslot *m = ms_peek(md, off);
	if (!m)
		return w; /* a virtual slot never touched: FREE */
	w.allocated = m->state != M_FREE;
	w.cached = m->state == M_CACHED;
	w.zero = m->zero;
	w.memcg = m->memcg;
	w.count = m->count;
	w.pfn = m->state == M_CACHED ? m->pfn : 0;
	w.shadow = m->state == M_SHADOW ? m->shadow : 0;
	return w;
}

/* One slot on every simulation: against simulation 0, then against the model. */
static void expect_slot(struct diff *d, struct mdev *md, uint64_t off, const struct sws_slot_state *st)
{
	char g[160], g0[160], gw[160], names[128];
	struct sws_slot_state w = model_slot(md, off);
	size_t n = 0;
	int first = -1;
	names[0] = 0;
	for (int s = 1; s < d->nsim; s++) {
		if (slot_eq(&st[s], &st[0]))
			continue;
		if (first < 0)
			first = s;
		if (n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", dname(d, s));
	}
	if (first >= 0)
		DFAIL(d, "slot %d:%llu: designs disagree: %s has %s; %s has %s (%s differ from %s); model: %s", md->type,
		      (unsigned long long)off, dname(d, 0), fmt_slot(&st[0], g0, sizeof(g0)), dname(d, first),
		      fmt_slot(&st[first], g, sizeof(g)), names, dname(d, 0), fmt_slot(&w, gw, sizeof(gw)));
	if (!slot_eq(&st[0], &w))
		DFAIL(d, "slot %d:%llu on every design: got %s; model: %s", md->type, (unsigned long long)off,
		      fmt_slot(&st[0], g0, sizeof(g0)), fmt_slot(&w, g, sizeof(g)));
}

/*
 * vswap: a physical slot is allocated iff it backs a virtual slot (slot_state
 * has nothing more of it: the data is the virtual slot's), and the reverse
 * map names that slot.
 */
static void expect_phys_slot(struct diff *d, struct mdev *md, uint64_t off, const struct sws_slot_state *st)
{
	char g[160], gw[160], vb[40], wb[40];
	struct sws_slot_state w = {0};
	sws_entry_t want = off ? md->owner[off] : 0, p = sws_swp_entry((unsigned)md->type, off);
	w.bad = !off;
	w.allocated = !off || want;
	if (!slot_eq(st, &w))
		DFAIL(d, "physical slot %d:%llu: got %s; model: %s (backs %s)", md->type, (unsigned long long)off,
		      fmt_slot(st, g, sizeof(g)), fmt_slot(&w, gw, sizeof(gw)), ent(want, wb, sizeof(wb)));
	sws_entry_t v = sws_swap_rmap(d->cpu[0], p);
	if (v != want)
		DFAIL(d, "rmap of physical slot %d:%llu: %s, the model says %s", md->type, (unsigned long long)off,
		      ent(v, vb, sizeof(vb)), ent(want, wb, sizeof(wb)));
	const struct mslot *m = want ? ms_peek(&d->vdev, sws_swp_offset(want)) : NULL;
	if (want && (!m || m->phys != p))
		DFAIL(d, "test bug: physical slot %d:%llu backs %s, which has another", md->type,
		      (unsigned long long)off, ent(want, wb, sizeof(wb)));
}

/* vswap: the target of a read of an allocated virtual slot: its physical slot, or none. */
static void expect_virt_io(struct diff *d, struct mdev *md, uint64_t off)
{
	const struct mslot *m = ms_peek(md, off);
	if (!m || m->state == M_FREE)
		return;
	sws_entry_t e = sws_swp_entry((unsigned)md->type, off), p = 0;
	char b[40], pb[40], wb[40];
	int rc = sws_swap_io_target(d->cpu[0], e, 1, false, &p);
	if (rc != (m->phys ? 0 : SWS_ENOENT) || (!rc && p != m->phys))
		DFAIL(d, "io_target(read) %s: %s %s, the model has %s", ent(e, b, sizeof(b)), sws_error_name(rc),
		      rc ? "" : ent(p, pb, sizeof(pb)), m->phys ? ent(m->phys, wb, sizeof(wb)) : "none (SWS_ENOENT)");
}

static void check_slots(struct diff *d)
{
	for (int i = 0; i < d->nall; i++) {
		struct mdev *md = d->all[i];
		for (uint64_t off = md->type ? 0 : 1; off <= md->max; off++) { /* entry 0: "no entry" */
			sws_entry_t e = sws_swp_entry((unsigned)md->type, off);
			struct sws_slot_state st[MAX_SIM];
			for (int s = 0; s < d->nsim; s++) {
				int rc = sws_swap_slot_state(d->sim[s], e, &st[s]);
				if (off == md->max) {
					if (rc != SWS_EBADENTRY)
						DFAIL(d, "slot_state past the end on %s: %s", dname(d, s),
						      sws_error_name(rc));
					continue;
				}
				if (rc)
					DFAIL(d, "slot_state %d:%llu on %s: %s", md->type, (unsigned long long)off,
					      dname(d, s), sws_error_name(rc));
			}
			if (off == md->max)
				continue;
			if (md->phys) {
				expect_phys_slot(d, md, off, st);
				continue;
			}
			expect_slot(d, md, off, st);
			if (md->virt)
				expect_virt_io(d, md, off);
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
			for (int s = 0; s < d->nsim; s++) {
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

static bool dev_info_eq(const struct sws_device_info *a, const struct sws_device_info *b)
{
	return a->type == b->type && a->prio == b->prio && a->flags == b->flags && a->max == b->max &&
	       a->pages == b->pages && a->inuse_pages == b->inuse_pages && a->nr_clusters == b->nr_clusters &&
	       a->nr_free == b->nr_free && a->nr_full == b->nr_full && a->nr_discard == b->nr_discard &&
	       !memcmp(a->nr_nonfull, b->nr_nonfull, sizeof(a->nr_nonfull)) &&
	       !memcmp(a->nr_frag, b->nr_frag, sizeof(a->nr_frag));
}

static void check_devices(struct diff *d)
{
	for (int i = 0; i < d->nall; i++) {
		const struct mdev *md = d->all[i];
		struct sws_device_info di[MAX_SIM];
		for (int s = 0; s < d->nsim; s++)
			assert_sws(0, sws_device_info_get(d->sim[s], md->type, &di[s]));
		const struct sws_device_info *a = &di[0];
		for (int s = 1; s < d->nsim; s++) {
			const struct sws_device_info *b = &di[s];
			if (!dev_info_eq(a, b))
				DFAIL(d,
				      "device %d differs (%s/%s): inuse %llu/%llu free %u/%u full %u/%u discard %u/%u "
				      "nonfull0 %u/%u frag0 %u/%u",
				      a->type, dname(d, 0), dname(d, s), (unsigned long long)a->inuse_pages,
				      (unsigned long long)b->inuse_pages, a->nr_free, b->nr_free, a->nr_full, b->nr_full,
				      a->nr_discard, b->nr_discard, a->nr_nonfull[0], b->nr_nonfull[0], a->nr_frag[0],
				      b->nr_frag[0]);
		}
		/* vswap: virtual slots in use on the virtual device, slots backing them on a physical one. */
		if (a->inuse_pages != md->inuse)
			DFAIL(d, "device %d: inuse_pages %llu on every design, the model has %llu", a->type,
			      (unsigned long long)a->inuse_pages, (unsigned long long)md->inuse);
		bool virt = a->flags & SWS_SWP_VIRTUAL;
		bool geometry = a->max == SWS_DEVICE_MAX_SLOTS && a->pages == SWS_DEVICE_MAX_SLOTS - 1 &&
				(uint64_t)a->nr_clusters * SWS_CLUSTER_SLOTS == md->max;
		if (virt != md->virt || (virt && !geometry))
			DFAIL(d, "device %d: flags %#x max %llu pages %llu, %u clusters mapped; the model has %s, "
				 "bound %llu",
			      a->type, a->flags, (unsigned long long)a->max, (unsigned long long)a->pages,
			      a->nr_clusters, md->virt ? "the virtual device" : "a device swapped on",
			      (unsigned long long)md->max);
	}
}

static void check_counters(struct diff *d)
{
	/* Counters every design must show alike (the core's, and the contract's). */
	static const enum sws_counter same[] = {
		SWS_CTR_swap_cache_add_total,  SWS_CTR_swap_cache_del_total,   SWS_CTR_swap_cache_find_total,
		SWS_CTR_swap_cache_find_success, SWS_CTR_swap_cache_replace_total, SWS_CTR_swap_dup_total,
		SWS_CTR_swap_put_total,        SWS_CTR_swap_free_slots,        SWS_CTR_swap_alloc_fastpath,
		SWS_CTR_swap_alloc_slowpath,   SWS_CTR_swap_alloc_order0_steal, SWS_CTR_cluster_free_to_frag,
		SWS_CTR_swap_writepage,        SWS_CTR_swap_readpage,          SWS_CTR_swap_discard,
	};
	struct sws_stats st[MAX_SIM];
	char all[512];
	bool differs[MAX_SIM];
	uint64_t v[MAX_SIM];
	for (int s = 0; s < d->nsim; s++)
		sws_stats_snapshot(d->sim[s], &st[s]);
	for (unsigned i = 0; i < ARRAY_LEN(same); i++) {
		for (int s = 0; s < d->nsim; s++)
			v[s] = st[s].counters[same[i]];
		if (!same_u64(v, d->nsim, differs))
			DFAIL(d, "counter %s: designs disagree: %s", sws_counter_name(same[i]),
			      fmt_all(d, v, differs, fmt_u64, all, sizeof(all)));
	}
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++) {
			for (int s = 0; s < d->nsim; s++)
				v[s] = st[s].order_counters[c][o];
			if (!same_u64(v, d->nsim, differs))
				DFAIL(d, "counter %s[%d]: designs disagree: %s",
				      sws_order_counter_name((enum sws_order_counter)c), o,
				      fmt_all(d, v, differs, fmt_u64, all, sizeof(all)));
		}
	uint64_t inuse = phys_inuse(d); /* the devices in the totals: physical ones under vswap */
	for (int s = 0; s < d->nsim; s++) {
		const struct sws_stats *x = &st[s];
		const uint64_t *c = x->counters;
		const struct traits *tr = &d->tr[s];
		struct {
			const char *name;
			uint64_t got, want;
		} m[] = {
			{"total_swap_pages", x->total_swap_pages, d->total},
			{"nr_swap_pages", x->nr_swap_pages, d->total - inuse},
			{"nr_swapcache", x->nr_swapcache, d->cached},
			{"nr_devices", x->nr_devices, NDEV + d->vswap}, /* vswap: and its virtual device */
			{"swap_cache_add_total", c[SWS_CTR_swap_cache_add_total], d->m.add},
			{"swap_cache_del_total", c[SWS_CTR_swap_cache_del_total], d->m.del},
			{"swap_cache_find_total", c[SWS_CTR_swap_cache_find_total], d->m.find},
			{"swap_cache_find_success", c[SWS_CTR_swap_cache_find_success], d->m.find_ok},
			{"swap_cache_replace_total", c[SWS_CTR_swap_cache_replace_total], d->m.replace},
			{"swap_dup_total", c[SWS_CTR_swap_dup_total], d->m.dup},
			{"swap_put_total", c[SWS_CTR_swap_put_total], d->m.put},
			{"swap_free_slots", c[SWS_CTR_swap_free_slots], d->m.freed}, /* vswap: virtual slots */
			{"vswap_phys_alloc", c[SWS_CTR_vswap_phys_alloc], d->m.phys_alloc},
			{"vswap_phys_free", c[SWS_CTR_vswap_phys_free], d->m.phys_free},
			/* The design's own counters: what it has not got stays 0. */
			{"swap_free_fallback", c[SWS_CTR_swap_free_fallback], tr->fallback ? d->m.fallback : 0},
			{"swap_cache_bypass", c[SWS_CTR_swap_cache_bypass], 0}, /* no swap-in here bypasses */
		};
		for (unsigned i = 0; i < ARRAY_LEN(m); i++)
			if (m[i].got != m[i].want)
				DFAIL(d, "%s on %s: %llu, the model says %llu", m[i].name, dname(d, s),
				      (unsigned long long)m[i].got, (unsigned long long)m[i].want);
		struct {
			const char *name;
			uint64_t got;
			bool may;
		} own[] = {
			{"swap_table_alloc", c[SWS_CTR_swap_table_alloc], tr->swap_table},
			{"swap_table_free", c[SWS_CTR_swap_table_free], tr->swap_table},
			{"swap_extend_table_alloc", c[SWS_CTR_swap_extend_table_alloc], tr->extend},
			{"swap_cont_alloc", c[SWS_CTR_swap_cont_alloc], tr->swap_map},
			/* vswap: its cluster map is an XArray */
			{"xa_node_alloc", c[SWS_CTR_xa_node_alloc], tr->xarray || (tr->vswap && !tr->vst)},
			{"xa_node_free", c[SWS_CTR_xa_node_free], tr->xarray || (tr->vswap && !tr->vst)},
			{"vswap_cluster_alloc", c[SWS_CTR_vswap_cluster_alloc], tr->vswap && !tr->vst},
			{"vswap_cluster_free", c[SWS_CTR_vswap_cluster_free], tr->vswap && !tr->vst},
			{"ext_grow", c[SWS_CTR_ext_grow], tr->vswap},
			{"ext_shrink", c[SWS_CTR_ext_shrink], tr->vswap && !tr->vst}, /* vswap-st's ghost only grows */
		};
		for (unsigned i = 0; i < ARRAY_LEN(own); i++)
			if (own[i].got && !own[i].may)
				DFAIL(d, "%s on %s: %llu, but the design has no such structure", own[i].name,
				      dname(d, s), (unsigned long long)own[i].got);
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			if (x->order_counters[SWS_OCTR_swap_alloc][o] != d->m.alloc[o] ||
			    x->order_counters[SWS_OCTR_swap_alloc_fail][o] != d->m.alloc_fail[o])
				DFAIL(d, "swap_alloc[%d] %llu fail %llu on %s, the model says %llu and %llu", o,
				      (unsigned long long)x->order_counters[SWS_OCTR_swap_alloc][o],
				      (unsigned long long)x->order_counters[SWS_OCTR_swap_alloc_fail][o], dname(d, s),
				      (unsigned long long)d->m.alloc[o], (unsigned long long)d->m.alloc_fail[o]);
	}
}

/*
 * Every design's memory classes against its layout (quiesced: RCU frees
 * done). Swap table phases: a cluster has its 4 KiB table iff it is in use
 * (st-p4: and its 1 KiB memcg table), and swap_table_alloc - swap_table_free
 * counts those tables; st-p3/st-p4: a 4 KiB extend table iff some slot of the
 * cluster has a count >= 15. xarray, st-p1, st-p2: swap_map, one byte per
 * slot. Every design before st-p4: swap_cgroup (two 2-byte ids per 4-byte
 * word) and the zeromap (one bit per slot in 8-byte words). Classes a design
 * has not got hold nothing.
 */
static void check_table_memory(struct diff *d)
{
	uint64_t map = 0, cgroup = 0, zeromap = 0, extended = 0, bitmap = 0;
	for (int i = 0; i < d->nedev && !d->vswap; i++) {
		const struct mdev *md = d->edev[i];
		map += md->max;
		cgroup += (md->max + 1) / 2 * 4;
		zeromap += (md->max + 63) / 64 * 8;
		for (uint64_t base = 0; base < md->max; base += SWS_CLUSTER_SLOTS) {
			bool ext = false;
			for (uint64_t off = base; off < base + SWS_CLUSTER_SLOTS && off < md->max && !ext; off++)
				ext = md->slots[off].count >= EXTEND_MIN;
			extended += ext;
		}
	}
	for (int i = 0; i < NDEV && d->vswap; i++)
		bitmap += 2 * ((d->dev[i].max + 63) / 64 * 8); /* allocated and bad, 1 bit per slot each */
	for (int s = 0; s < d->nsim; s++) {
		const struct traits *tr = &d->tr[s];
		sws_sim_quiesce(d->sim[s]);
		/* clusters in use: with entries; physical (vswap); a cluster waiting
		 * for its discard keeps its tables until then */
		uint64_t used = 0, pused = 0, pclusters = 0;
		for (int i = 0; i < d->nedev; i++) {
			struct sws_device_info di;
			assert_sws(0, sws_device_info_get(d->sim[s], d->edev[i]->type, &di));
			used += di.nr_clusters - di.nr_free;
		}
		for (int i = 0; i < NDEV && d->vswap; i++) {
			struct sws_device_info di;
			assert_sws(0, sws_device_info_get(d->sim[s], d->dev[i].type, &di));
			pused += di.nr_clusters - di.nr_free;
			pclusters += di.nr_clusters;
		}
		struct sws_memory_usage mu;
		sws_sim_memory_usage(d->sim[s], &mu);
		const uint64_t *by = mu.bytes;
		/* vswap-st: the physical clusters in use have a table too (no memcg table) */
		uint64_t tables = used + (tr->vst ? pused : 0);
		if (by[SWS_MEM_swap_table] != (tr->swap_table ? tables * TABLE_BYTES : 0) ||
		    by[SWS_MEM_memcg_table] != (tr->memcg_table ? used * MEMCG_BYTES : 0))
			DFAIL(d, "%s: %llu swap_table and %llu memcg_table bytes for %llu clusters in use", dname(d, s),
			      (unsigned long long)by[SWS_MEM_swap_table], (unsigned long long)by[SWS_MEM_memcg_table],
			      (unsigned long long)used);
		if (tr->swap_table) {
			struct sws_stats st;
			sws_stats_snapshot(d->sim[s], &st);
			uint64_t live = st.counters[SWS_CTR_swap_table_alloc] - st.counters[SWS_CTR_swap_table_free];
			if (live != tables)
				DFAIL(d, "%s: swap_table_alloc %llu - swap_table_free %llu, %llu clusters in use",
				      dname(d, s), (unsigned long long)st.counters[SWS_CTR_swap_table_alloc],
				      (unsigned long long)st.counters[SWS_CTR_swap_table_free], (unsigned long long)used);
		}
		if (tr->vswap && !tr->vst) {
			struct sws_stats st;
			sws_stats_snapshot(d->sim[s], &st);
			uint64_t got = st.counters[SWS_CTR_vswap_cluster_alloc],
				 gone = st.counters[SWS_CTR_vswap_cluster_free];
			if (got - gone != used)
				DFAIL(d, "%s: vswap_cluster_alloc %llu - vswap_cluster_free %llu, %llu virtual "
					 "clusters in use",
				      dname(d, s), (unsigned long long)got, (unsigned long long)gone,
				      (unsigned long long)used);
		}
		/*
		 * vswap: 12 KiB of descriptors per virtual cluster in use (cluster 0,
		 * the header's, included), a 4 KiB reverse map per physical cluster in
		 * use (clusters holding bad slots keep theirs), two bitmaps and an
		 * 8-byte reverse-map pointer per cluster on each physical device;
		 * cluster headers and the cluster map (vswap_cluster) are not sized
		 * here. No swap_map, swap_cgroup, zeromap, swap table, XArray swap
		 * cache or zswap tree. vswap-st: a 4 KiB virtual table per ghost
		 * cluster in use (counted as vswap_desc), no bitmaps, no reverse
		 * maps of their own (the physical tables are), its counts' extend
		 * tables follow the virtual slots (not modelled here).
		 */
		struct {
			enum sws_mem_class c;
			uint64_t want;
			bool check; /* false: the size follows history (kept until swapoff) */
		} w[] = {
			{SWS_MEM_swap_map, tr->swap_map ? map : 0, true},
			{SWS_MEM_swap_cont, 0, !tr->swap_map},
			{SWS_MEM_swap_cgroup, tr->static_maps ? cgroup : 0, true},
			{SWS_MEM_zeromap, tr->static_maps ? zeromap : 0, true},
			{SWS_MEM_extend_table, tr->extend ? extended * EXTEND_BYTES : 0, !tr->vst},
			{SWS_MEM_cluster_tables, tr->vswap ? pclusters * RMAP_PTR_BYTES : 0, !tr->swap_table},
			{SWS_MEM_xa_spaces, 0, !tr->xarray},
			{SWS_MEM_xa_node, 0, !tr->xarray},
			{SWS_MEM_swap_bitmap, tr->vswap && !tr->vst ? bitmap : 0, true},
			{SWS_MEM_vswap_desc, tr->vswap ? used * (tr->vst ? VTABLE_BYTES : DESC_BYTES) : 0, true},
			{SWS_MEM_vswap_cluster, 0, !tr->vswap},
			{SWS_MEM_swap_rmap, tr->vswap && !tr->vst ? pused * RMAP_BYTES : 0, true},
			{SWS_MEM_zswap_trees, 0, tr->vswap},
			{SWS_MEM_zswap_tree, 0, tr->vswap},
		};
		for (unsigned i = 0; i < ARRAY_LEN(w); i++)
			if (w[i].check && by[w[i].c] != w[i].want)
				DFAIL(d, "%s: %llu bytes of %s, its layout says %llu", dname(d, s),
				      (unsigned long long)by[w[i].c], sws_mem_class_name(w[i].c),
				      (unsigned long long)w[i].want);
	}
}

/*
 * Every design but vswap: an entry is its own slot for page I/O and for the
 * reverse map (swap.h), whatever state it is in.
 */
static void check_io_identity(struct diff *d)
{
	char b[40], tb[40];
	for (unsigned i = 0; i < d->allocs.n && i < 64; i++) {
		const struct range *a = &d->allocs.v[i];
		for (int s = 0; s < d->nsim; s++) {
			sws_entry_t t = 0;
			int rc = sws_swap_io_target(d->cpu[s], a->e, a->nr, i & 1, &t);
			if (rc || t != a->e)
				DFAIL(d, "io_target(%s) %s nr %u on %s: %s %s, want the entry itself",
				      i & 1 ? "write" : "read", ent(a->e, b, sizeof(b)), a->nr, dname(d, s),
				      sws_error_name(rc), ent(t, tb, sizeof(tb)));
			t = sws_swap_rmap(d->cpu[s], a->e);
			if (t != a->e)
				DFAIL(d, "rmap %s on %s: %s, want the entry itself", ent(a->e, b, sizeof(b)),
				      dname(d, s), ent(t, tb, sizeof(tb)));
		}
	}
}

static void check_all(struct diff *d)
{
	char msg[256];
	vmap_refresh(d);
	for (int s = 0; s < d->nsim; s++)
		if (sws_swap_check(d->sim[s], msg, sizeof(msg)))
			DFAIL(d, "invariant violated on %s: %s", sws_backend_name(d->backend[s]), msg);
	check_devices(d);
	check_counters(d);
	check_slots(d);
	check_folios(d);
	if (!d->vswap)
		check_io_identity(d);
}

/* swapoff of a device in use fails on every design and changes nothing (vswap: a physical device). */
static void try_swapoff_busy(struct diff *d)
{
	struct mdev *md = d->vswap ? &d->dev[rnd(d, NDEV)] : pick_dev(d);
	if (!md->inuse)
		return;
	int r[MAX_SIM];
	for (int s = 0; s < d->nsim; s++)
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

static void mem_snapshot(struct sws_sim *sim, struct sws_memory_usage *mu)
{
	sws_sim_quiesce(sim);
	sws_sim_memory_usage(sim, mu);
}

/*
 * What sws_sim_create leaves: the simulation's own structures only; under
 * vswap also its virtual device, whose cluster 0 (the header's) is in use
 * for life: that cluster's descriptors, its header and the cluster map
 * (vswap_cluster, not sized here); under vswap-st that cluster's tables
 * (its table pointers not sized here).
 */
static void check_created(struct diff *d, int s)
{
	const uint64_t *by = d->created[s];
	bool vst = d->tr[s].vst; /* vswap-st: cluster 0's phase IV tables and virtual table */
	for (int c = 0; c < SWS_NR_MEM_CLASSES; c++) {
		uint64_t want = c == SWS_MEM_vswap_desc && d->vswap ? (vst ? VTABLE_BYTES : DESC_BYTES) : 0;
		if (vst && c == SWS_MEM_swap_table)
			want = TABLE_BYTES;
		if (vst && c == SWS_MEM_memcg_table)
			want = MEMCG_BYTES;
		if (c == SWS_MEM_sim || (c == SWS_MEM_vswap_cluster && d->vswap) || (vst && c == SWS_MEM_cluster_tables))
			continue;
		if (by[c] != want)
			fail_msg("%s: %llu bytes of %s after sws_sim_create, want %llu", dname(d, s),
				 (unsigned long long)by[c], sws_mem_class_name((enum sws_mem_class)c),
				 (unsigned long long)want);
	}
	if (d->vswap && !by[SWS_MEM_vswap_cluster])
		fail_msg("%s: no vswap_cluster bytes after sws_sim_create (its cluster 0)", dname(d, s));
}

/* vswap: the virtual device sws_sim_create made, the only device before any swapon. */
static void find_virtual(struct diff *d)
{
	int found = -1;
	for (int t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device_info di;
		if (sws_device_info_get(d->sim[0], t, &di))
			continue;
		if (found >= 0 || !(di.flags & SWS_SWP_VIRTUAL))
			fail_msg("vswap: device %d (flags %#x) after sws_sim_create, want one virtual device", t,
				 di.flags);
		found = t;
		d->vmap0 = di.nr_clusters;
	}
	if (found < 0)
		fail_msg("vswap: no virtual device after sws_sim_create");
	struct mdev *md = &d->vdev;
	md->type = found;
	md->virt = true;
	d->by_type[found] = md;
	vmap_refresh(d);
	if (!d->vmap0 || md->max < SWS_CLUSTER_SLOTS)
		fail_msg("vswap: the virtual device maps %u clusters", d->vmap0);
}

static void diff_open(struct diff *d, uint64_t seed, const struct group *g)
{
	memset(d, 0, sizeof(*d));
	d->seed = d->rng = seed;
	d->next_pfn = 1;
	d->g = g;
	d->nsim = g->n;
	for (int s = 0; s < d->nsim; s++) {
		d->backend[s] = g->designs[s];
		d->tr[s] = traits_of(g->designs[s]);
		if (d->tr[s].vswap != d->tr[0].vswap)
			fail_msg("group %s: %s and %s cannot run in lockstep (virtual entries)", g->name, dname(d, 0),
				 dname(d, s));
		sws_test_alloc_init(&d->ta[s]);
		struct sws_env env = {.allocator = d->ta[s].a};
		struct sws_sim_config cfg = {.backend = d->backend[s], .env = &env};
		assert_sws(0, sws_sim_create(&cfg, &d->sim[s]));
		assert_sws(0, sws_cpu_attach(d->sim[s], &d->cpu[s]));
	}
	d->vswap = d->tr[0].vswap;
	for (int s = 0; s < d->nsim; s++) {
		struct sws_memory_usage mu;
		mem_snapshot(d->sim[s], &mu);
		memcpy(d->created[s], mu.bytes, sizeof(d->created[s]));
		d->created_dynamic[s] = mu.dynamic_bytes;
		d->created_static[s] = mu.static_bytes;
		check_created(d, s);
	}
	if (d->vswap)
		find_virtual(d);
	for (int i = 0; i < NDEV; i++) {
		int type[MAX_SIM];
		for (int s = 0; s < d->nsim; s++)
			assert_sws(0, sws_swapon(d->sim[s], &dev_configs[i], &type[s]));
		for (int s = 1; s < d->nsim; s++)
			if (type[s] != type[0])
				fail_msg("swapon of device %d: type %d on %s, %d on %s", i, type[0], dname(d, 0), type[s],
					 dname(d, s));
		struct mdev *md = &d->dev[i];
		md->type = type[0];
		md->max = dev_configs[i].nr_slots;
		if (md->type < 0 || md->type >= SWS_MAX_SWAPFILES || d->by_type[md->type])
			fail_msg("swapon of device %d: type %d", i, md->type);
		if (d->vswap) {
			md->phys = true;
			md->owner = calloc(md->max, sizeof(*md->owner));
			assert_non_null(md->owner);
		} else {
			md->slots = calloc(md->max, sizeof(*md->slots));
			assert_non_null(md->slots);
			for (uint64_t off = 0; off < md->max; off++)
				md->slots[off].aidx = md->slots[off].fidx = -1;
		}
		d->by_type[md->type] = md;
		d->total += md->max - 1;
		if ((unsigned)md->type + 1 > d->no_dev_type)
			d->no_dev_type = (unsigned)md->type + 1;
	}
	if (d->vswap) {
		d->edev[d->nedev++] = &d->vdev;
		d->all[d->nall++] = &d->vdev;
	}
	for (int i = 0; i < NDEV; i++) {
		if (!d->vswap)
			d->edev[d->nedev++] = &d->dev[i];
		d->all[d->nall++] = &d->dev[i];
	}
	for (int s = 0; s < d->nsim; s++) {
		struct sws_memory_usage mu;
		mem_snapshot(d->sim[s], &mu);
		memcpy(d->base[s], mu.bytes, sizeof(d->base[s]));
		d->base_dynamic[s] = mu.dynamic_bytes;
		d->base_static[s] = mu.static_bytes;
	}
}

static void diff_destroy_sims(struct diff *d)
{
	for (int s = 0; s < d->nsim; s++) {
		sws_cpu_detach(d->cpu[s]);
		d->cpu[s] = NULL;
		sws_sim_destroy(d->sim[s]);
		d->sim[s] = NULL;
	}
}

static void diff_close(struct diff *d)
{
	diff_destroy_sims(d);
	for (int i = 0; i < NDEV; i++) {
		free(d->dev[i].slots);
		free(d->dev[i].owner);
	}
	for (uint32_t c = 0; c < d->vdev.ncl; c++)
		free(d->vdev.cl[c]);
	free(d->vdev.cl);
	free(d->allocs.v);
	free(d->folios.v);
}

static void step(struct diff *d)
{
	uint64_t inuse = entry_inuse(d);
	sws_entry_t e;
	unsigned nr;

	if (d->vswap && rnd(d, 1000) < IO_PERMILLE) {
		do_io(d);
		return;
	}
	unsigned r = (unsigned)rnd(d, 1000);
	/* Under pressure, processes exit more often than they fault. The virtual
	 * device never fills: vswap keeps its entries to what the physical
	 * devices hold (more only in the surge). */
	if (r < 170 && ((inuse * 100 > d->total * 85 && rnd(d, 2)) || (d->vswap && inuse > d->total))) {
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

/* A seed, its group, and the run in progress (the teardown frees it when a check failed). */
struct seed_state {
	uint64_t seed;
	const struct group *g;
	struct diff *d;
};

static void run_seed(struct seed_state *ss, unsigned nops)
{
	uint64_t seed = ss->seed;
	struct diff *d = calloc(1, sizeof(*d));
	assert_non_null(d);
	ss->d = d;
	diff_open(d, seed, ss->g);

	for (d->op = 1; d->op <= nops; d->op++) {
		step(d);
		if (d->vswap && d->op == nops / 3)
			do_surge(d);
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
	op_deferred(d, UINT32_MAX); /* vswap: and the virtual device's free tail is unmapped */
	check_all(d);
	assert_int_equal(d->cached, 0);
	assert_int_equal(entry_inuse(d), 0);
	assert_int_equal(phys_inuse(d), 0);
	for (int s = 0; s < d->nsim; s++) {
		uint64_t total, free_slots;
		sws_swap_totals(d->sim[s], &total, &free_slots);
		assert_int_equal(total, d->total);
		assert_int_equal(free_slots, total);
		assert_false(sws_swap_full(d->sim[s]));
	}

	/* vswap: with every slot free, the surge's clusters are unmapped again. */
	uint32_t vmapped = (uint32_t)(d->vdev.max / SWS_CLUSTER_SLOTS);
	bool vshrunk = !d->vswap || d->tr[0].vst || vmapped <= 2 * d->vmap0; /* vswap-st's ghost only grows */
	if (!vshrunk)
		DFAIL(d, "vswap: every slot free, the deferred work done, and the virtual device maps %u clusters "
			 "(%u at first, %u at most): its free tail did not go back",
		      vmapped, d->vmap0, d->cov.max_vclusters);

	/*
	 * Memory: back to what swapon left (swap_map continuation pages stay until
	 * swapoff, as in the kernel, on the designs that have swap_map; on the
	 * others swap_cont counts like any class). A difference is reported after
	 * swapoff, so every design and the swapoff figures are seen in one run.
	 * vswap: vswap_cluster holds the virtual device's per-cluster arrays,
	 * mapped as far as it grew; they are compared only when it shrank back.
	 */
	check_table_memory(d);
	char leak[MAX_SIM][512];
	bool leaked = false;
	for (int s = 0; s < d->nsim; s++) {
		struct sws_memory_usage mu;
		leak[s][0] = 0;
		mem_snapshot(d->sim[s], &mu);
		uint64_t dyn = mu.dynamic_bytes - (d->tr[s].swap_map ? mu.bytes[SWS_MEM_swap_cont] : 0);
		/* vswap-st's ghost device only grows: its cluster headers stay */
		const uint64_t hdr = mu.bytes[SWS_MEM_vswap_cluster], hdr0 = d->base[s][SWS_MEM_vswap_cluster];
		if (d->tr[s].vst && hdr > hdr0)
			dyn -= hdr - hdr0;
		if (dyn == d->base_dynamic[s] && mu.static_bytes == d->base_static[s])
			continue;
		leaked = true;
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
		for (int s = 0; s < d->nsim; s++)
			assert_sws(0, sws_swapoff(d->sim[s], d->dev[i].type));
	/*
	 * After swapoff of every device: what sws_sim_create left (check_created():
	 * nothing but the simulation itself). Under vswap the virtual device is
	 * no device one swaps off (sws_swapoff refuses it); it stays until
	 * sws_sim_destroy, with its cluster 0 (the header's) in use and so its
	 * descriptors, header and cluster map: the figures right after
	 * sws_sim_create, and only those.
	 */
	for (int s = 0; s < d->nsim; s++) {
		struct sws_memory_usage mu;
		if (d->vswap)
			assert_sws(SWS_EINVAL, sws_swapoff(d->sim[s], d->vdev.type));
		mem_snapshot(d->sim[s], &mu);
		/* vswap-st's ghost device only grows: its cluster headers
		 * (vswap_cluster) and table pointers (cluster_tables) stay as far
		 * as it grew, never below what sws_sim_create mapped */
		uint64_t grown[SWS_NR_MEM_CLASSES] = {0};
		if (d->tr[s].vst)
			for (int c = SWS_MEM_cluster_tables; c <= SWS_MEM_vswap_cluster; c += SWS_MEM_vswap_cluster -
											  SWS_MEM_cluster_tables)
				if (mu.bytes[c] >= d->created[s][c])
					grown[c] = mu.bytes[c] - d->created[s][c];
		for (int c = 0; c < SWS_NR_MEM_CLASSES; c++)
			if (c != SWS_MEM_sim && mu.bytes[c] != d->created[s][c] + grown[c])
				DFAIL(d, "%s: %llu bytes of %s left after swapoff of every device, %llu after "
					 "sws_sim_create",
				      sws_backend_name(d->backend[s]), (unsigned long long)mu.bytes[c],
				      sws_mem_class_name((enum sws_mem_class)c), (unsigned long long)d->created[s][c]);
		assert_int_equal(mu.dynamic_bytes, d->created_dynamic[s] + grown[SWS_MEM_vswap_cluster]);
		assert_int_equal(mu.static_bytes, d->created_static[s] + grown[SWS_MEM_cluster_tables]);
	}
	print_message("seed %llu (%s): %u calls (%u refused), %u large folios, %u ENOSPC (%u at order 0 with free "
		      "slots), %u swap-ins, %u evictions, %u replacements (%u splits), counts up to %u, %llu put "
		      "fallbacks\n",
		      (unsigned long long)seed, d->g->name, d->cov.calls, d->cov.errors, d->cov.alloc_large,
		      d->cov.enospc, d->enospc0_with_free, d->cov.add, d->cov.del, d->cov.replace, d->cov.split,
		      d->cov.max_count, (unsigned long long)d->m.fallback);
	if (d->vswap) {
		struct sws_stats st;
		sws_stats_snapshot(d->sim[0], &st);
		print_message("  vswap: %u writes (%u new runs, %llu physical slots, up to %llu of %llu in use; "
			      "%u ENOSPC, %u of one slot with physical slots free), %u reads, %u mixed (EBUSY), "
			      "%u runs released by a zero page, up to %u virtual clusters mapped (%llu grows, "
			      "%llu shrinks; %u with every slot free, %u at first%s)\n",
			      d->cov.writes, d->cov.runs, (unsigned long long)d->m.phys_alloc,
			      (unsigned long long)d->cov.max_phys, (unsigned long long)d->total,
			      d->cov.phys_enospc, d->cov.phys_enospc0_with_free, d->cov.reads, d->cov.busy,
			      d->cov.zero_release, d->cov.max_vclusters,
			      (unsigned long long)st.counters[SWS_CTR_ext_grow],
			      (unsigned long long)st.counters[SWS_CTR_ext_shrink], vmapped, d->vmap0,
			      vshrunk ? "" : ": not shrunk");
	}
	if (leaked) {
		char all[MAX_SIM * 512 + 16];
		size_t n = 0;
		all[0] = 0;
		for (int s = 0; s < d->nsim && n < sizeof(all); s++)
			if (leak[s][0])
				n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", n ? "; " : "", leak[s]);
		DFAIL(d, "dynamic memory not back to the baseline: %s", all);
	}
	/* sws_sim_destroy (vswap: the virtual device with it) frees all the rest. */
	diff_destroy_sims(d);
	for (int s = 0; s < d->nsim; s++)
		if (d->ta[s].live_bytes)
			DFAIL(d, "%s: %lld bytes still allocated after sws_sim_destroy", dname(d, s),
			      (long long)d->ta[s].live_bytes);
	ss->d = NULL;
	diff_close(d);
	free(d);
}

#define SEEDS(g) {{1, g, NULL}, {2, g, NULL}, {3, g, NULL}, {0x5eed5eedull, g, NULL}, {20260101, g, NULL}}
static struct seed_state lockstep_seeds[] = SEEDS(&groups[0]);
static struct seed_state vswap_seeds[] = SEEDS(&groups[1]);
static struct seed_state vswap_v3_seeds[] = SEEDS(&groups[2]);
static struct seed_state vswap_st_seeds[] = SEEDS(&groups[3]);

static void test_lockstep(void **state) { run_seed(*state, OPS_PER_SEED); }
static void test_vswap(void **state) { run_seed(*state, OPS_PER_SEED); }

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

#define SEED(f, a, i) cmocka_unit_test_prestate_setup_teardown(f, NULL, teardown, &(a)[i])

/* Every design of the registry into its group (vswap's entries differ from
 * the others': its own group); the default design first, the reference. */
static void groups_fill(void)
{
	static const enum sws_design all[] = {
#define DESIGN_ID(id, num, name, kernel, ops, help) SWS_DESIGN_##id,
		SWS_DESIGN_LIST(DESIGN_ID)
#undef DESIGN_ID
	};
	for (size_t i = 0; i <= ARRAY_LEN(all); i++) {
		enum sws_design d = i ? all[i - 1] : SWS_DESIGN_ST_P4;
		if (i && d == SWS_DESIGN_ST_P4)
			continue;
		/* vswap's page I/O runs on one simulation: a group per variant */
		struct group *g = &groups[d == SWS_DESIGN_VSWAP_V3 ? 2 : traits_of(d).vst ? 3 : traits_of(d).vswap];
		if (g->n == MAX_SIM) {
			fprintf(stderr, "test_backends: more than %d designs in group %s\n", MAX_SIM, g->name);
			exit(1);
		}
		g->designs[g->n++] = d;
	}
}

int main(void)
{
	groups_fill();
	const struct CMUnitTest tests[] = {
		SEED(test_lockstep, lockstep_seeds, 0), SEED(test_vswap, vswap_seeds, 0),
		SEED(test_lockstep, lockstep_seeds, 1), SEED(test_vswap, vswap_seeds, 1),
		SEED(test_lockstep, lockstep_seeds, 2), SEED(test_vswap, vswap_seeds, 2),
		SEED(test_lockstep, lockstep_seeds, 3), SEED(test_vswap, vswap_seeds, 3),
		SEED(test_lockstep, lockstep_seeds, 4), SEED(test_vswap, vswap_seeds, 4),
		SEED(test_vswap, vswap_v3_seeds, 0),    SEED(test_vswap, vswap_v3_seeds, 1),
		SEED(test_vswap, vswap_v3_seeds, 2),    SEED(test_vswap, vswap_v3_seeds, 3),
		SEED(test_vswap, vswap_v3_seeds, 4),    SEED(test_vswap, vswap_st_seeds, 0),
		SEED(test_vswap, vswap_st_seeds, 1),    SEED(test_vswap, vswap_st_seeds, 2),
		SEED(test_vswap, vswap_st_seeds, 3),    SEED(test_vswap, vswap_st_seeds, 4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

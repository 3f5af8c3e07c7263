/*
 * workload.c - synthetic workloads as record generators: usemem, memhog,
 * zipf, uniform, bgsave and kbuild produce the same struct sws_trace_record
 * stream a trace reader does, one record per next() call, in O(tasks) memory.
 * This file is the one list of them and what they share: the configuration's
 * checks, the values every workload derives from it, the record stream.
 *
 * Per-task streams: the access phase of usemem, memhog, zipf and uniform is
 * generated per task from the task's own state (the workload's task_next),
 * read either round robin through next() or as one stream per task
 * (streams(), stream(): the same records of each task; their time_ns is the
 * task's own count, where next() numbers the records it returns itself).
 * bgsave and kbuild never split.
 *
 * Random numbers: splitmix64 from the seed (zipf and uniform: one stream per
 * task, task 0's the seed's).
 */
#include <string.h>

#include "workload.h"

/* In the order of enum sws_workload_kind. */
static const struct sws__workload_ops *const workloads[] = {
	&sws__workload_usemem, &sws__workload_memhog, &sws__workload_zipf,
	&sws__workload_uniform, &sws__workload_bgsave, &sws__workload_kbuild,
};
#define NR_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

static const struct sws__workload_ops *workload_ops(enum sws_workload_kind kind)
{
	for (size_t i = 0; i < NR_WORKLOADS; i++)
		if (workloads[i]->kind == kind)
			return workloads[i];
	return NULL;
}

const char *sws_workload_name(enum sws_workload_kind kind)
{
	const struct sws__workload_ops *ops = workload_ops(kind);
	return ops ? ops->name : "unknown";
}

const struct sws_workload_param *sws_workload_params(enum sws_workload_kind kind)
{
	const struct sws__workload_ops *ops = workload_ops(kind);
	return ops ? ops->params : NULL;
}

const char *sws_workload_help(enum sws_workload_kind kind)
{
	const struct sws__workload_ops *ops = workload_ops(kind);
	return ops ? ops->help : NULL;
}

int sws_workload_parse(const char *name, enum sws_workload_kind *out)
{
	for (size_t i = 0; name && i < NR_WORKLOADS; i++)
		if (!strcmp(name, workloads[i]->name)) {
			*out = workloads[i]->kind;
			return 0;
		}
	return SWS_EINVAL;
}

/* ---- the record stream ---------------------------------------------------------------- */

static int wl_next(void *ctx, struct sws_trace_record *rec)
{
	struct sws_workload *wl = ctx;
	while (!wl->npend) {
		if (wl->phase == PH_DONE)
			return 0;
		wl->ops->gen(wl);
	}
	*rec = wl->pend[wl->pend_head];
	wl->pend_head = (wl->pend_head + 1) % 8;
	wl->npend--;
	wl->emitted++;
	return 1;
}

/* The access phase of a workload with per-task streams is one stream per
 * task, from where next() stands (nothing generated and not yet returned). */
static uint32_t wl_streams(void *ctx)
{
	struct sws_workload *wl = ctx;
	if (!wl->ops->task_next || wl->phase != PH_ACCESS || wl->npend ||
	    atomic_load_explicit(&wl->nfinished, memory_order_relaxed) == wl->ntasks)
		return 0;
	return wl->ntasks;
}

/* Stream @s: task @s's records, time_ns its own count. */
static int wl_stream(void *ctx, uint32_t s, struct sws_trace_record *rec)
{
	struct sws_workload *wl = ctx;
	if (s >= wl->ntasks || wl->phase != PH_ACCESS || !wl->ops->task_next(wl, s, rec))
		return 0;
	rec->time_ns = ++wl->ts[s].nrec;
	return 1;
}

struct sws_replay_source sws_workload_source(struct sws_workload *wl)
{
	struct sws_replay_source s = {
		.next = wl_next, .error = NULL, .ctx = wl, .streams = wl_streams, .stream = wl_stream};
	return s;
}

uint64_t sws_workload_total(const struct sws_workload *wl) { return wl ? wl->total : 0; }

/* ---- create and destroy ----------------------------------------------------------------- */

static int check_config(const struct sws_workload_config *cfg, const struct sws__workload_ops *ops)
{
	if (cfg->version > SWS_WORKLOAD_CONFIG_VERSION)
		return SWS_EVERSION;
	if (!ops || !cfg->bytes || (cfg->cold_bytes && !ops->cold_bytes) ||
	    ((cfg->zswap_writeback_bytes || cfg->zswap_writeback_every) && !ops->zswap_writeback) ||
	    cfg->zswap_writeback_bytes > SWS_WORKLOAD_MAX_BYTES ||
	    cfg->cold_bytes > SWS_WORKLOAD_MAX_BYTES || cfg->write_pct > 100 || cfg->zipf_s < 0 ||
	    cfg->reserved || (cfg->step && cfg->step < 8) || cfg->bytes > SWS_WORKLOAD_MAX_BYTES ||
	    cfg->nr_accesses > SWS_WORKLOAD_MAX_ACCESSES ||
	    (cfg->env && cfg->env->version > SWS_ENV_VERSION))
		return SWS_EINVAL;
	return 0;
}

/* What every workload derives from its configuration. */
static void derive(struct sws_workload *wl, const struct sws_workload_config *cfg)
{
	wl->pages = (cfg->bytes + SWS_PAGE_SIZE - 1) / SWS_PAGE_SIZE;
	wl->rng = cfg->seed ^ 0x5eed5eed5eedull;
	uint32_t repeat = cfg->repeat ? cfg->repeat : 1;
	if (!wl->cfg.step)
		wl->cfg.step = 8;
	if (wl->ops->config)
		wl->ops->config(wl);
	/* touches at 0, step, 2 x step, ... below the size (pages x 4 KiB <= 2^50 + 4 KiB:
	 * no overflow, whatever the step; idx x step stays below the size) */
	wl->touch_pages = wl->cfg.step >= SWS_PAGE_SIZE ? (wl->pages * SWS_PAGE_SIZE - 1) / wl->cfg.step + 1
							: wl->pages;
	wl->write_passes = (wl->cfg.flags & SWS_USEMEM_READONLY) ? 0 : repeat;
	wl->passes = repeat + ((wl->cfg.flags & SWS_USEMEM_READ_AGAIN) ? 1 : 0);
	if (!wl->cfg.nr_accesses)
		wl->cfg.nr_accesses = (wl->ops->accesses_per_page ? wl->ops->accesses_per_page : 4) * wl->pages;
	wl->perm_mask = 1;
	while (wl->perm_mask < wl->pages)
		wl->perm_mask = wl->perm_mask * 2 + 1;
	uint64_t ks = cfg->seed ^ 0xa5a5a5a5deadbeefull;
	for (unsigned i = 0; i < 3; i++)
		wl->perm_key[i] = sws__rand(&ks);
}

int sws_workload_create(const struct sws_workload_config *cfg, struct sws_workload **out)
{
	if (!cfg || !out)
		return SWS_EINVAL;
	*out = NULL;
	const struct sws__workload_ops *ops = workload_ops(cfg->kind);
	int rc = check_config(cfg, ops);
	if (rc)
		return rc;
	struct sws_mem tmp;
	sws__mem_init(&tmp, cfg->env ? &cfg->env->allocator : NULL);
	uint32_t ntasks = ops->tasks            ? ops->tasks
			  : cfg->nr_tasks       ? cfg->nr_tasks
			  : ops->default_tasks  ? ops->default_tasks
						: 1;
	if (ntasks > 65536)
		return SWS_EINVAL;
	struct sws_workload *wl = sws__mem_zalloc(&tmp, SWS_MEM_sim, sizeof(*wl), 0);
	if (!wl)
		return SWS_ENOMEM;
	wl->mem.a = tmp.a;
	wl->ops = ops;
	wl->ntasks = ntasks;
	wl->ts = sws__mem_zalloc(&tmp, SWS_MEM_sim, ntasks * sizeof(*wl->ts), SWS_CACHELINE);
	if (ops->priv_size)
		wl->priv = sws__mem_zalloc(&tmp, SWS_MEM_sim, ops->priv_size, 0);
	if (!wl->ts || (ops->priv_size && !wl->priv)) {
		sws_workload_destroy(wl);
		return SWS_ENOMEM;
	}
	wl->cfg = *cfg;
	wl->cfg.env = NULL;
	derive(wl, cfg);
	if ((rc = ops->setup(wl, cfg))) {
		sws_workload_destroy(wl);
		return rc;
	}
	if (cfg->flags & SWS_WORKLOAD_KEEP) /* no MUNMAP and EXIT at the end */
		wl->total -= 2ull * (ops->exiting_tasks ? ops->exiting_tasks : ntasks);
	*out = wl;
	return 0;
}

void sws_workload_destroy(struct sws_workload *wl)
{
	if (!wl)
		return;
	struct sws_mem m = {.a = wl->mem.a};
	if (wl->priv) {
		if (wl->ops->destroy)
			wl->ops->destroy(wl);
		sws__mem_free(&m, SWS_MEM_sim, wl->priv, wl->ops->priv_size);
	}
	if (wl->ts)
		sws__mem_free(&m, SWS_MEM_sim, wl->ts, wl->ntasks * sizeof(*wl->ts));
	sws__mem_free(&m, SWS_MEM_sim, wl, sizeof(*wl));
}

/* ---- what a workload adds to a replay ----------------------------------------------------- */

int sws_workload_content(const struct sws_workload *wl, uint32_t weight[SWS_NR_CONTENT])
{
	uint32_t any = 0;
	for (unsigned c = 0; wl && c < SWS_NR_CONTENT; c++)
		any |= wl->ops->content[c];
	if (!any)
		return 0;
	memcpy(weight, wl->ops->content, SWS_NR_CONTENT * sizeof(weight[0]));
	return 1;
}

int sws_workload_print_results(const struct sws_workload *wl, const struct sws_replay *r,
			       int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	if (!wl || !r || !write)
		return SWS_EINVAL;
	struct sws__out o = {write, ctx, 0};
	if (wl->ops->print_results)
		wl->ops->print_results(wl, r, &o);
	return o.err;
}

int sws_workload_figures(const struct sws_workload *wl, const struct sws_replay *r,
			 struct sws_replay_report *rep)
{
	if (!wl || !r || !rep)
		return SWS_EINVAL;
	memset(&rep->workload, 0, sizeof(rep->workload));
	if (wl->ops->figures)
		wl->ops->figures(wl, r, rep);
	return 0;
}

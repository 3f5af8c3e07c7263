/*
 * bgsave.c - shaped like Redis' BGSAVE: the parent (task 0) writes its data
 * set, forks the child (task 1), then for each page the child reads (the
 * snapshot), the parent writes its share of nr_accesses random pages
 * (copy-on-write of still-shared pages); the child exits, the parent frees.
 */
#include "workload.h"

static void bgsave_gen(struct sws_workload *wl)
{
	uint64_t n = wl->pages, w = wl->cfg.nr_accesses;
	switch (wl->phase) {
	case PH_MAP:
		sws__wl_push(wl, SWS_TRACE_MMAP, 0, BASE_ADDR, sws__wl_region_len(wl), 0, 0);
		wl->phase = PH_ACCESS;
		return;
	case PH_ACCESS:
		if (wl->count < n) { /* the parent fills its data set */
			sws__wl_push(wl, SWS_TRACE_ACCESS, 0, BASE_ADDR + wl->count++ * SWS_PAGE_SIZE, 0,
			     SWS_TRACE_F_WRITE, 0);
			if (wl->count == n)
				sws__wl_push(wl, SWS_TRACE_FORK, 0, 0, 0, 0, PID0 + 1);
			return;
		}
		if (wl->count < 2 * n) {
			uint64_t k = wl->count++ - n;
			sws__wl_push(wl, SWS_TRACE_ACCESS, 1, BASE_ADDR + k * SWS_PAGE_SIZE, 0, 0, 0);
			/* Parent writes spread evenly over the child's pass. */
			uint64_t nw = (uint64_t)((unsigned __int128)(k + 1) * w / n - (unsigned __int128)k * w / n);
			for (uint64_t i = 0; i < nw && i < 6; i++)
				sws__wl_push(wl, SWS_TRACE_ACCESS, 0,
				     BASE_ADDR + (sws__rand(&wl->rng) % n) * SWS_PAGE_SIZE, 0,
				     SWS_TRACE_F_WRITE, 0);
			return;
		}
		sws__wl_push(wl, SWS_TRACE_EXIT, 1, 0, 0, 0, 0);
		wl->phase = PH_FREE;
		return;
	case PH_FREE:
		sws__wl_push_free(wl, 0);
		wl->phase = PH_DONE;
		return;
	case PH_DONE:
		return;
	}
}

static int bgsave_setup(struct sws_workload *wl, const struct sws_workload_config *cfg)
{
	(void)cfg;
	/* Parent writes per child read are capped at 6 (see bgsave_gen): the
	 * share of read k is floor((k+1)a/n) - floor(ka/n), each floor(a/n)
	 * or one more, so all are at most 6 when a <= 6n (w = a) and all at
	 * least 6 otherwise (w = 6n). No loop over the pages. */
	uint64_t n = wl->pages, a = wl->cfg.nr_accesses;
	uint64_t w = a <= 6 * n ? a : 6 * n;
	wl->total = 2 * n + w + 5;
	return 0;
}

/* bgsave's options: the parent's writes after the fork. */
static const struct sws_workload_param bgsave_params[] = {
	SWS__WL_ACCESSES("PARENT_WRITES"),
	SWS__WL_SEED("--seed"),
	SWS__WL_KEEP,
	{0},
};

SWS__WORKLOAD(sws__workload_bgsave,
	      .kind = SWS_WORKLOAD_BGSAVE,
	      .name = "bgsave",
	      .tasks = 2,
	      .exiting_tasks = 1, /* the child exits whatever --keep says */
	      .accesses_per_page = 1,
	      .setup = bgsave_setup,
	      .gen = bgsave_gen,
	      .params = bgsave_params,
	      .help = "write, fork, child reads all, parent keeps writing (copy-on-write)");

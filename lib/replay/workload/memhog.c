/*
 * memhog.c - numactl's memhog: one task fills its region page by page (a
 * 0xff fill: every page the same content), -r times; usemem's passes
 * (usemem.c) with a step of one page and none of usemem's flags.
 */
#include "workload.h"

static void memhog_config(struct sws_workload *wl)
{
	wl->cfg.step = SWS_PAGE_SIZE;
	wl->cfg.flags = 0;
}

/* numactl memhog's options: -r passes; and the proactive zswap writeback between them. */
static const struct sws_workload_param memhog_params[] = {
	SWS__WL_COUNT("-r", "--repeat", "N", repeat, 1, 1000000, "a repeat count >= 1"),
	SWS__WL_ZSWAP_WRITEBACK,
	SWS__WL_KEEP,
	{0},
};

SWS__WORKLOAD(sws__workload_memhog,
	      .kind = SWS_WORKLOAD_MEMHOG,
	      .name = "memhog",
	      .tasks = 1,
	      .zswap_writeback = true,
	      .config = memhog_config,
	      .setup = sws__wl_passes_setup,
	      .gen = sws__wl_passes_gen,
	      .task_next = sws__wl_passes_task_next,
	      .content = {[SWS_CONTENT_SAME] = 1},
	      .params = memhog_params,
	      .help = "sequential 0xff fill (numactl memhog)");

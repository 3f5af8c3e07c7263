/*
 * designs.c - the table of every per-slot metadata design (docs/designs.md)
 * and sws_sim_create(), which picks one: the one place that knows the
 * designs by name. The swap core below only ever calls the chosen table.
 */
#include <string.h>

#include "designs.h"

static const struct {
	const char *name;
	const struct sws_design_ops *ops;
} designs[SWS_NR_BACKENDS] = {
	[SWS_BACKEND_SWAP_TABLE] = {"st-p4", &sws__st_p4_ops},
	[SWS_BACKEND_XARRAY] = {"xarray", &sws__xarray_ops},
	[SWS_BACKEND_ST_P1] = {"st-p1", &sws__st_p1_ops},
	[SWS_BACKEND_ST_P2] = {"st-p2", &sws__st_p2_ops},
	[SWS_BACKEND_ST_P3] = {"st-p3", &sws__st_p3_ops},
	[SWS_BACKEND_VSWAP] = {"vswap", &sws__vswap.ops},
};

const char *sws_backend_name(enum sws_backend backend)
{
	if (backend == SWS_BACKEND_DEFAULT)
		backend = SWS_BACKEND_ST_P4;
	return (unsigned)backend < SWS_NR_BACKENDS && designs[backend].name ? designs[backend].name : "unknown";
}

int sws_backend_parse(const char *name, enum sws_backend *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	if (!strcmp(name, "table") || !strcmp(name, "swap_table")) {
		*out = SWS_BACKEND_ST_P4;
		return 0;
	}
	for (unsigned b = 1; b < SWS_NR_BACKENDS; b++) {
		if (designs[b].name && !strcmp(name, designs[b].name)) {
			*out = (enum sws_backend)b;
			return 0;
		}
	}
	return SWS_EINVAL;
}

int sws_sim_create(const struct sws_sim_config *cfg, struct sws_sim **out)
{
	static const struct sws_sim_config defaults = {0};
	if (!out)
		return SWS_EINVAL;
	*out = NULL;
	if (!cfg)
		cfg = &defaults;
	enum sws_backend b = cfg->backend ? cfg->backend : SWS_BACKEND_ST_P4;
	if ((unsigned)b >= SWS_NR_BACKENDS || !designs[b].ops)
		return SWS_EINVAL;
	return sws__sim_create(cfg, designs[b].ops, out);
}

/*
 * designs.c - the library's side of the registry of per-slot metadata
 * designs (SWS_DESIGN_LIST in include/swapsim/sim.h; docs/designs.md): each
 * design's name, kernel, help line and ops table by number, generated from
 * the list, and sws_sim_create(), which picks one. The swap core below only
 * ever calls the chosen table.
 */
#include <string.h>

#include "designs.h"

static const struct design {
	const char *name, *kernel, *help;
	const struct sws_design_ops *ops;
} designs[SWS_NR_DESIGNS] = {
#define DESIGN_ENTRY(id, num, name, kernel, ops, help) [SWS_DESIGN_##id] = {name, kernel, help, &ops},
	SWS_DESIGN_LIST(DESIGN_ENTRY)
#undef DESIGN_ENTRY
};

/* The list's numbers run from 1 to SWS_NR_DESIGNS - 1 (a number twice is a
 * duplicate initializer, which -Werror refuses). */
#define DESIGN_IN_RANGE(id, num, name, kernel, ops, help)                                   \
	static_assert(num >= 1 && num < SWS_NR_DESIGNS, "SWS_DESIGN_" #id ": a number from 1 " \
							"to the number of designs");
SWS_DESIGN_LIST(DESIGN_IN_RANGE)
#undef DESIGN_IN_RANGE

static const struct design *design_get(enum sws_design d)
{
	if (d == SWS_DESIGN_DEFAULT)
		d = SWS_DESIGN_ST_P4;
	return (unsigned)d < SWS_NR_DESIGNS && designs[d].ops ? &designs[d] : NULL;
}

const char *sws_design_name(enum sws_design design)
{
	const struct design *d = design_get(design);
	return d ? d->name : "unknown";
}

const char *sws_design_kernel(enum sws_design design)
{
	const struct design *d = design_get(design);
	return d ? d->kernel : "";
}

const char *sws_design_help(enum sws_design design)
{
	const struct design *d = design_get(design);
	return d ? d->help : "";
}

int sws_design_parse(const char *name, enum sws_design *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	if (!strcmp(name, "table") || !strcmp(name, "swap_table")) {
		*out = SWS_DESIGN_ST_P4;
		return 0;
	}
	for (unsigned d = 1; d < SWS_NR_DESIGNS; d++) {
		if (designs[d].name && !strcmp(name, designs[d].name)) {
			*out = (enum sws_design)d;
			return 0;
		}
	}
	return SWS_EINVAL;
}

enum sws_design sws_sim_design(const struct sws_sim *sim) { return sim->backend; }

/* deprecated names */
const char *sws_backend_name(enum sws_design design) { return sws_design_name(design); }
int sws_backend_parse(const char *name, enum sws_design *out) { return sws_design_parse(name, out); }

int sws_sim_create(const struct sws_sim_config *cfg, struct sws_sim **out)
{
	static const struct sws_sim_config defaults = {0};
	if (!out)
		return SWS_EINVAL;
	*out = NULL;
	if (!cfg)
		cfg = &defaults;
	const struct design *d = design_get(cfg->design);
	if (!d)
		return SWS_EINVAL;
	return sws__sim_create(cfg, d->ops, out);
}

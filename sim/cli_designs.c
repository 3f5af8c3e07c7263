/*
 * cli_designs.c - the registry's designs in order, and their names joined
 * for messages and --help, and which have a virtual device (cli_designs.h).
 */
#include <stdio.h>

#include "cli_designs.h"

#define CLI__DESIGN_ID(id, num, name, kernel, ops, help) SWS_DESIGN_##id,
const enum sws_design cli_designs[CLI_NR_DESIGNS] = {SWS_DESIGN_LIST(CLI__DESIGN_ID)};
#undef CLI__DESIGN_ID

const char *cli_design_list(char *buf, size_t len, const char *sep, const char *last)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < CLI_NR_DESIGNS && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", !i ? "" : i + 1 < CLI_NR_DESIGNS ? sep : last,
				       sws_design_name(cli_designs[i]));
	return buf;
}

bool cli_design_virtual(enum sws_design design)
{
	struct sws_sim *sim;
	if (sws_sim_create(&(struct sws_sim_config){.design = design}, &sim))
		return false;
	bool virt = false;
	struct sws_device_info info;
	for (int type = 0; type < SWS_MAX_SWAPFILES && !virt; type++)
		virt = !sws_device_info_get(sim, type, &info) && (info.flags & SWS_SWP_VIRTUAL);
	sws_sim_destroy(sim);
	return virt;
}

/* The obsolete names of the calls renamed for C++ (sws_device_info() is now
 * sws_device_info_get(), ...) still build and link in C, with a deprecation
 * warning (tests/install/run.sh checks both). */
#include <stdio.h>
#include <swapsim/swapsim.h>

int main(void)
{
	struct sws_sim_config cfg = {0};
	struct sws_sim *sim;
	struct sws_device_info di;
	struct sws_xswap_info xi;
	struct sws_device_config dev = {.nr_slots = 1024};
	int type = -1;
	if (sws_sim_create(&cfg, &sim))
		return 1;
	int bad = sws_swapon(sim, &dev, &type) || sws_device_info(sim, type, &di) || di.pages == 0 ||
		  sws_xswap_info(sim, type, &xi) != SWS_EINVAL;
	sws_sim_destroy(sim);
	puts(bad ? "old names: failed" : "old names: ok");
	return bad;
}

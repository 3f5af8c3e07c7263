// The public headers from C++: every struct is declared by its bare name (no
// function of the same name hides it), and the calls link
// (tests/install/run.sh builds it with -Wall -Wextra -Werror against the
// installed library).
#include <cstdio>
#include <swapsim/swapsim.h>

int main()
{
	sws_mm_stats st = {};
	sws_mm_cpu_time t = {};
	sws_replay_report rep = {};
	sws_replay_task task = {};
	sws_device_info di = {};
	sws_trace_reader_stats ts = {};
	sws_xswap_info xi = {};
	(void)st, (void)t, (void)rep, (void)task, (void)ts, (void)xi;
	sws_sim_config cfg = {};
	sws_sim *sim = nullptr;
	if (sws_sim_create(&cfg, &sim)) {
		std::puts("cxx consumer: sws_sim_create failed");
		return 1;
	}
	sws_device_config dev = {};
	dev.nr_slots = 1024;
	int type = -1;
	int bad = sws_swapon(sim, &dev, &type) || sws_device_info_get(sim, type, &di) || di.pages == 0 ||
		  sws_device_info_get(sim, type + 1, &di) != SWS_ENODEV;
	sws_sim_destroy(sim);
	std::puts(bad ? "cxx consumer: failed" : "cxx consumer: ok");
	return bad;
}

/* The README's example, against the installed headers and library. */
#include <stdio.h>
#include <swapsim/swapsim.h>

int main(void)
{
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	int type;
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_XARRAY};
	struct sws_device_config dev = {.nr_slots = 1 << 16, .flags = SWS_SWP_SOLIDSTATE};
	sws_entry_t e;
	if (sws_sim_create(&cfg, &sim) || sws_cpu_attach(sim, &cpu) || sws_swapon(sim, &dev, &type) ||
	    sws_folio_alloc_swap(cpu, 42, 4, &e) || sws_swap_dup(cpu, e, 16) ||
	    sws_swap_cache_del(cpu, e, 16, 42, 7) || sws_swap_cache_lookup(cpu, e) != 0) {
		fprintf(stderr, "consumer: unexpected result\n");
		return 1;
	}
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	puts("consumer: ok");
	return 0;
}

/* The README's library example (ctest readme_example checks that the README
 * shows this file; tests/install/run.sh builds it against the installed library). */
#include <stdio.h>
#include <swapsim/swapsim.h>

/* A failed call: say which and why. */
static int failed(int rc, const char *call)
{
	if (rc < 0)
		fprintf(stderr, "%s: %s (%s)\n", call, sws_strerror(rc), sws_error_name(rc));
	return rc < 0;
}

int main(void)
{
	struct sws_sim *sim;
	struct sws_cpu *cpu;
	struct sws_sim_config cfg = {.backend = SWS_BACKEND_XARRAY}; /* zero: defaults (st-p4) */
	if (failed(sws_sim_create(&cfg, &sim), "sws_sim_create"))
		return 1;
	if (failed(sws_cpu_attach(sim, &cpu), "sws_cpu_attach")) { /* this thread is a CPU */
		sws_sim_destroy(sim);
		return 1;
	}
	int type = -1;
	sws_entry_t e = 0;
	struct sws_device_config dev = {.nr_slots = 1 << 16, .flags = SWS_SWP_SOLIDSTATE};
	int bad = failed(sws_swapon(sim, &dev, &type), "sws_swapon") ||
		  /* a 16-page folio (PFN 42) gets 16 slots and enters the swap cache */
		  failed(sws_folio_alloc_swap(cpu, 42, 4, &e), "sws_folio_alloc_swap") ||
		  /* unmapped: 16 PTEs hold the entries */
		  failed(sws_swap_dup(cpu, e, 16), "sws_swap_dup") ||
		  /* written out and evicted, leaving a shadow */
		  failed(sws_swap_cache_del(cpu, e, 16, 42, 7), "sws_swap_cache_del");
	if (!bad && sws_swap_cache_lookup(cpu, e) != 0) { /* a miss now */
		fprintf(stderr, "sws_swap_cache_lookup: the folio is still cached\n");
		bad = 1;
	}
	if (!bad) /* the PTEs go (munmap): the slots are free */
		bad = failed(sws_swap_put(cpu, e, 16), "sws_swap_put");
	if (type >= 0 && failed(sws_swapoff(sim, type), "sws_swapoff"))
		bad = 1;
	sws_cpu_detach(cpu);
	sws_sim_destroy(sim);
	puts(bad ? "consumer: failed" : "consumer: ok");
	return bad;
}

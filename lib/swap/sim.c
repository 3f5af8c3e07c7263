/*
 * sim.c - the simulation root and its CPUs (attached caller threads).
 *
 * The one piece of per-thread state in lib/ lives here: a nesting count of
 * this thread's liburcu registration, because liburcu's registration is itself
 * per thread and process-wide (several simulations may share a thread).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "design.h"
#include "swap_internal.h"
#include "swap_vtime.h"

static _Thread_local unsigned rcu_thread_depth;

void sws__rcu_thread_get(void)
{
	if (rcu_thread_depth++ == 0)
		urcu_memb_register_thread();
}

void sws__rcu_thread_put(void)
{
	if (rcu_thread_depth && --rcu_thread_depth == 0)
		urcu_memb_unregister_thread();
}

int sws__sim_create(const struct sws_sim_config *cfg, const struct sws_design_ops *ops, struct sws_sim **out)
{
	if (!out || !cfg || !ops)
		return SWS_EINVAL;
	*out = NULL;
	if (cfg->version > SWS_SIM_CONFIG_VERSION || (cfg->env && cfg->env->version > SWS_ENV_VERSION))
		return SWS_EVERSION;
	if ((cfg->flags & ~SWS_SIM_MEMCG_OFF) || (cfg->env && cfg->env->reserved) || cfg->max_cpus > 4096)
		return SWS_EINVAL;
	if (ops->version != SWS_DESIGN_OPS_VERSION)
		return SWS_EVERSION;

	if (!cfg->env || !cfg->env->clock_ns)
		sws__clock_init(); /* calibrate the default clock before any read */
	struct sws_mem mem;
	sws__mem_init(&mem, cfg->env ? &cfg->env->allocator : NULL);
	struct sws_sim *sim = mem.a.alloc(mem.a.ctx, sizeof(*sim), SWS_CACHELINE);
	if (!sim)
		return SWS_ENOMEM;
	memset(sim, 0, sizeof(*sim));
	sim->magic = SWS__SIM_LIVE;
	sws__mem_init(&sim->mem, &mem.a);
	atomic_fetch_add(&sim->mem.bytes[SWS_MEM_sim], (int64_t)sizeof(*sim));
	if (cfg->env)
		sim->env = *cfg->env;
	sim->ops = ops;
	sim->h.design_flags = ops->flags;
	sim->memcg_off = cfg->flags & SWS_SIM_MEMCG_OFF;
	sim->backend = cfg->backend ? cfg->backend : SWS_BACKEND_ST_P4;
	sim->max_cpus = cfg->max_cpus ? cfg->max_cpus : 256;
	sws_spin_init(&sim->swap_lock);
	sws_spin_init(&sim->avail_lock);
	sws_spin_init(&sim->cpu_lock);
	pthread_mutex_init(&sim->ext_mutex, NULL);
	for (unsigned sp = 0; sp < SWS_NR_SPACES; sp++)
		sws_list_init(&sim->avail_head[sp]);
	sim->cpus = sws__mem_zalloc(&sim->mem, SWS_MEM_sim, sizeof(*sim->cpus) * sim->max_cpus, 0);
	if (!sim->cpus) {
		mem.a.free(mem.a.ctx, sim, sizeof(*sim));
		return SWS_ENOMEM;
	}
	int rc = ops->sim_init ? ops->sim_init(sim) : 0;
	if (rc) {
		sws_sim_destroy(sim);
		return rc;
	}
	*out = sim;
	return 0;
}

/* A caller broke the API's contract in a way that would corrupt memory: say
 * so on stderr and abort, in every build (the library has no error to return). */
static void misuse(const char *msg)
{
	ssize_t n = write(STDERR_FILENO, msg, strlen(msg));
	(void)n;
	abort();
}

void sws_sim_destroy(struct sws_sim *sim)
{
	if (!sim)
		return;
	if (sim->magic != SWS__SIM_LIVE)
		misuse(sim->magic == SWS__SIM_DEAD
			       ? "libswapsim: sws_sim_destroy: this simulation was destroyed already\n"
			       : "libswapsim: sws_sim_destroy: not a simulation (destroyed already, or a bad pointer)\n");
	unsigned attached = 0;
	for (unsigned i = 0; i < sim->max_cpus; i++)
		attached += sim->cpus[i] != NULL;
	assert(!attached && "sws_sim_destroy: a CPU is still attached (sws_cpu_detach() first)");
	(void)attached;
	if (sim->ops->sim_fini)
		sim->ops->sim_fini(sim);
	for (int t = 0; t < SWS_MAX_SWAPFILES; t++)
		if (sws__device(sim, (unsigned)t))
			sws__device_remove(sim, t, true);
	sws_rcu_barrier();
	for (unsigned i = 0; i < sim->max_cpus; i++)
		if (sim->cpus[i])
			sws__mem_free(&sim->mem, SWS_MEM_sim, sim->cpus[i], sizeof(struct sws_cpu));
	sws__mem_free(&sim->mem, SWS_MEM_sim, sim->cpus, sizeof(*sim->cpus) * sim->max_cpus);
	pthread_mutex_destroy(&sim->ext_mutex);
	sim->magic = SWS__SIM_DEAD;
	struct sws_allocator a = sim->mem.a;
	a.free(a.ctx, sim, sizeof(*sim));
}

void sws_sim_quiesce(struct sws_sim *sim)
{
	(void)sim;
	sws_rcu_barrier();
}

enum sws_backend sws_sim_backend(const struct sws_sim *sim) { return sim->backend; }

void sws__sim_set_error(struct sws_sim *sim, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sim->errmsg, sizeof(sim->errmsg), fmt, ap);
	va_end(ap);
}

const char *sws_sim_error(const struct sws_sim *sim) { return sim ? sim->errmsg : ""; }

int sws_cpu_attach(struct sws_sim *sim, struct sws_cpu **out)
{
	if (!sim || !out)
		return SWS_EINVAL;
	struct sws_cpu *cpu = sws__cpu_alloc(sim);
	if (!cpu)
		return SWS_ENOMEM;
	return sws__cpu_attach_mem(sim, cpu, out);
}

struct sws_cpu *sws__cpu_alloc(struct sws_sim *sim)
{
	return sws__mem_alloc(&sim->mem, SWS_MEM_sim, sizeof(struct sws_cpu), SWS_CACHELINE);
}

int sws__cpu_attach_mem(struct sws_sim *sim, struct sws_cpu *cpu, struct sws_cpu **out)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->h.sim = sim;
	for (unsigned sp = 0; sp < SWS_NR_SPACES; sp++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			cpu->pcp[sp][o].type = -1;
	sws_spin_lock(&sim->cpu_lock);
	unsigned id = sim->max_cpus;
	for (unsigned i = 0; i < sim->max_cpus; i++) {
		if (!sim->cpus[i]) {
			id = i;
			break;
		}
	}
	if (id == sim->max_cpus) {
		sws_spin_unlock(&sim->cpu_lock);
		sws__mem_free(&sim->mem, SWS_MEM_sim, cpu, sizeof(*cpu));
		return SWS_ENOCPU;
	}
	cpu->h.id = id;
	sim->cpus[id] = cpu;
	sws_spin_unlock(&sim->cpu_lock);
	sws__rcu_thread_get();
	*out = cpu;
	return 0;
}

void sws_cpu_detach(struct sws_cpu *cpu)
{
	if (!cpu)
		return;
	struct sws_sim *sim = cpu->h.sim;
	sws_spin_lock(&sim->cpu_lock);
	for (int c = 0; c < SWS_NR_COUNTERS; c++)
		atomic_fetch_add(&sim->ctr[c], atomic_load(&cpu->ctr[c]));
	for (int c = 0; c < SWS_NR_ORDER_COUNTERS; c++)
		for (int o = 0; o < SWS_NR_ORDERS; o++)
			atomic_fetch_add(&sim->octr[c][o], atomic_load(&cpu->octr[c][o]));
	for (int x = 0; x < SWS_NR_WORK_CTX; x++)
		for (int w = 0; w < SWS_NR_WORK; w++)
			atomic_fetch_add(&sim->work[x][w], atomic_load(&cpu->work[x][w]));
	atomic_fetch_add(&sim->nr_swapcache, atomic_load(&cpu->nr_swapcache));
	sim->cpus[cpu->h.id] = NULL;
	sws_spin_unlock(&sim->cpu_lock);
	sws__mem_free(&sim->mem, SWS_MEM_sim, cpu, sizeof(*cpu));
	sws__rcu_thread_put();
}

unsigned sws_cpu_id(const struct sws_cpu *cpu) { return cpu->h.id; }

void sws__cpu_set_vcpu(struct sws_cpu *cpu, struct sws_vcpu *vc) { cpu->h.vc = vc; }

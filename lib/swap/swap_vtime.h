/*
 * swap_vtime.h - what the modelled clock's event loop (lib/replay/sched.c)
 * needs of the core: binding a simulated CPU's virtual clock to a CPU of the
 * simulation, so that the core and every layer above it charge it.
 */
#ifndef SWS_SWAP_VTIME_H
#define SWS_SWAP_VTIME_H

#include <swapsim/sim.h>

#include "../common/vtime.h"

/* @cpu charges @vc from now on (NULL: back to the host clock). */
void sws__cpu_set_vcpu(struct sws_cpu *cpu, struct sws_vcpu *vc);

#endif

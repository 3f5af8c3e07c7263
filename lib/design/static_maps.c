/* static_maps.c - swap_cgroup and the zeromap: allocated whole at swapon (static_maps.h). */
#include "static_maps.h"

int sws__swap_cgroup_init(struct swap_cgroup *sc, struct sws_mem *mem, uint64_t max, bool memcg_off)
{
	if (memcg_off) { /* swap_cgroup_swapon() allocates nothing with memcg disabled */
		sc->words = 0;
		sc->ids = NULL;
		return 0;
	}
	sc->words = SWS_DIV_ROUND_UP(max, 2);
	sc->ids = sws__mem_zalloc(mem, SWS_MEM_swap_cgroup, sizeof(*sc->ids) * sc->words, 0);
	return sc->ids ? 0 : SWS_ENOMEM;
}

void sws__swap_cgroup_fini(struct swap_cgroup *sc, struct sws_mem *mem)
{
	sws__mem_free(mem, SWS_MEM_swap_cgroup, (void *)sc->ids, sizeof(*sc->ids) * sc->words);
	sc->ids = NULL;
}

int sws__zeromap_init(struct zeromap *z, struct sws_mem *mem, uint64_t max)
{
	z->words = SWS_DIV_ROUND_UP(max, 64);
	z->bits = sws__mem_zalloc(mem, SWS_MEM_zeromap, sizeof(*z->bits) * z->words, 0);
	return z->bits ? 0 : SWS_ENOMEM;
}

void sws__zeromap_fini(struct zeromap *z, struct sws_mem *mem)
{
	sws__mem_free(mem, SWS_MEM_zeromap, (void *)z->bits, sizeof(*z->bits) * z->words);
	z->bits = NULL;
}

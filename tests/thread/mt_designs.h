/*
 * mt_designs.h - the per-slot designs the thread tests run on: every one of
 * enum sws_backend (docs/designs.md), each as its own cmocka test named
 * "fn/design" whose state points at the design.
 *
 *   const struct CMUnitTest tests[] = {ALL_DESIGNS(test_x), ...};
 *   enum sws_backend b = *(enum sws_backend *)*state;
 *
 * Under vswap, vswap-v3 and vswap-st the entries folio_alloc_swap() hands out are
 * virtual (type mt_virtual_type()), the devices a test swaps on are
 * physical, and the swap totals count the physical devices only.
 */
#ifndef SWS_MT_DESIGNS_H
#define SWS_MT_DESIGNS_H

#include "testutil.h"

static enum sws_backend mt_design_xarray __attribute__((unused)) = SWS_BACKEND_XARRAY;
static enum sws_backend mt_design_st_p1 __attribute__((unused)) = SWS_BACKEND_ST_P1;
static enum sws_backend mt_design_st_p2 __attribute__((unused)) = SWS_BACKEND_ST_P2;
static enum sws_backend mt_design_st_p3 __attribute__((unused)) = SWS_BACKEND_ST_P3;
static enum sws_backend mt_design_st_p4 __attribute__((unused)) = SWS_BACKEND_ST_P4;
static enum sws_backend mt_design_vswap_v3 __attribute__((unused)) = SWS_DESIGN_VSWAP_V3;
static enum sws_backend mt_design_vswap __attribute__((unused)) = SWS_BACKEND_VSWAP;
static enum sws_backend mt_design_vswap_st __attribute__((unused)) = SWS_DESIGN_VSWAP_ST;

/* Every design, for loops inside one test. */
static const enum sws_backend mt_all_designs[] __attribute__((unused)) = {SWS_BACKEND_XARRAY, SWS_BACKEND_ST_P1, SWS_BACKEND_ST_P2,
						  SWS_BACKEND_ST_P3, SWS_BACKEND_ST_P4, SWS_DESIGN_VSWAP_V3,
						  SWS_BACKEND_VSWAP, SWS_DESIGN_VSWAP_ST};
#define MT_NDESIGNS (sizeof(mt_all_designs) / sizeof(mt_all_designs[0]))
_Static_assert(sizeof(mt_all_designs) / sizeof(mt_all_designs[0]) == SWS_NR_BACKENDS - 1,
	       "a design is missing from the thread tests' list");

#define MT_DESIGN_TEST(fn, d) {#fn "/" #d, fn, NULL, NULL, &mt_design_##d}
#define ALL_DESIGNS(fn)                                                                           \
	MT_DESIGN_TEST(fn, xarray), MT_DESIGN_TEST(fn, st_p1), MT_DESIGN_TEST(fn, st_p2),         \
	    MT_DESIGN_TEST(fn, st_p3), MT_DESIGN_TEST(fn, st_p4), MT_DESIGN_TEST(fn, vswap_v3),  \
	    MT_DESIGN_TEST(fn, vswap), MT_DESIGN_TEST(fn, vswap_st)

/* Is @b a virtual design (vswap's variants, vswap-st)? */
static inline bool mt_design_virtual(enum sws_backend b)
{
	return b == SWS_DESIGN_VSWAP || b == SWS_DESIGN_VSWAP_V3 || b == SWS_DESIGN_VSWAP_ST;
}

/* The type of vswap's virtual device (the design makes it at sws_sim_create), -1 on any other design. */
static inline int mt_virtual_type(struct sws_sim *sim)
{
	for (int t = 0; t < SWS_MAX_SWAPFILES; t++) {
		struct sws_device_info di;
		if (sws_device_info_get(sim, t, &di) == 0 && (di.flags & SWS_SWP_VIRTUAL))
			return t;
	}
	return -1;
}

#endif

/*
 * zipf.c - zipf and uniform: every task maps the region, the tasks make
 * nr_accesses random page accesses between them (write_pct percent writes),
 * round robin one access a turn, then every task frees. Task i makes
 * accesses i, i + n, ... from a random stream of its own (task 0's is the
 * workload's seed stream). Ranks are scattered over the region by the seeded
 * permutation, so hot pages are not neighbours.
 *
 * zipf samples by rejection-inversion (Hormann and Derflinger, as Apache
 * Commons' ZipfRejectionInversionSampler), with the library's own log/exp so
 * libswapsim needs no libm.
 */
#include "workload.h"

/* zipf's constants (uniform keeps none). */
struct zipf {
	double zs, hx1, hn, ss;
};

/* ---- math without libm ------------------------------------------------------------- */

#define LN2 0.6931471805599453

static double wl_log(double x)
{
	union {
		double d;
		uint64_t u;
	} v = {x};
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	v.u = (v.u & ((1ull << 52) - 1)) | (1023ull << 52); /* mantissa in [1, 2) */
	double m = v.d;
	if (m > 1.4142135623730951) {
		m *= 0.5;
		e++;
	}
	/* log(m) = 2 atanh(z), z = (m-1)/(m+1), |z| < 0.172: z (1 + z^2/3 + z^4/5 + ...),
	 * summed by Horner's rule to the z^23 term (the next is below 1e-18 of the sum). */
	static const double inv_odd[] = {1.0,      1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
					 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
	double z = (m - 1) / (m + 1), z2 = z * z, sum = inv_odd[11];
	for (int k = 10; k >= 0; k--)
		sum = sum * z2 + inv_odd[k];
	return 2 * z * sum + e * LN2;
}

/* e^x as 2^k e^r, |r| <= ln2/2, e^r by Horner's rule to the r^16 term (the next
 * is below 1e-20). */
static double wl_exp(double x)
{
	static const double inv_fact[] = {
		1.0,
		1.0,
		1.0 / 2,
		1.0 / 6,
		1.0 / 24,
		1.0 / 120,
		1.0 / 720,
		1.0 / 5040,
		1.0 / 40320,
		1.0 / 362880,
		1.0 / 3628800,
		1.0 / 39916800,
		1.0 / 479001600,
		1.0 / 6227020800.0,
		1.0 / 87178291200.0,
		1.0 / 1307674368000.0,
		1.0 / 20922789888000.0,
	};
	if (x < -700)
		return 0;
	if (x > 700)
		x = 700;
	double kf = x / LN2;
	int k = (int)(kf < 0 ? kf - 0.5 : kf + 0.5);
	double r = x - k * LN2, sum = inv_fact[16];
	for (int i = 15; i >= 0; i--)
		sum = sum * r + inv_fact[i];
	union {
		double d;
		uint64_t u;
	} v;
	v.u = (uint64_t)(k + 1023) << 52;
	return sum * v.d;
}

static double helper1(double x) /* log1p(x)/x */
{
	if (x > 1e-8 || x < -1e-8)
		return wl_log(1 + x) / x;
	return 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x) /* expm1(x)/x */
{
	if (x > 1e-8 || x < -1e-8)
		return (wl_exp(x) - 1) / x;
	return 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

static double zh(const struct zipf *z, double x) { return wl_exp(-z->zs * wl_log(x)); }

static double zH(const struct zipf *z, double x)
{
	double lx = wl_log(x);
	return helper2((1 - z->zs) * lx) * lx;
}

static double zHinv(const struct zipf *z, double x)
{
	double t = x * (1 - z->zs);
	if (t < -1)
		t = -1;
	return wl_exp(helper1(t) * x);
}

/* A zipf rank in [1, pages], from the random stream @rng. */
static uint64_t zipf_sample(const struct sws_workload *wl, uint64_t *rng)
{
	const struct zipf *z = wl->priv;
	double n = (double)wl->pages;
	for (;;) {
		double u = z->hn + sws__wl_rand01(rng) * (z->hx1 - z->hn);
		double x = zHinv(z, u);
		double kd = x + 0.5;
		uint64_t k = kd < 1 ? 1 : kd > n ? wl->pages : (uint64_t)kd;
		if ((double)k - x <= z->ss || u >= zH(z, (double)k + 0.5) - zh(z, (double)k))
			return k;
	}
}

/* ---- the random accesses ------------------------------------------------------------ */

/* Task @ti's next access, its page from @sample on its own random stream. */
static inline int random_next(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec,
			      uint64_t (*sample)(const struct sws_workload *, uint64_t *))
{
	struct task_state *t = &wl->ts[ti];
	if (t->k == t->quota)
		return 0;
	uint64_t idx = sample(wl, &t->rng);
	/* Scatter ranks over the region: hot pages are not neighbours. */
	uint64_t page = sws__wl_permute(wl, idx, wl->pages, 0);
	bool write = sws__rand(&t->rng) % 100 < wl->cfg.write_pct;
	sws__wl_fill(rec, SWS_TRACE_ACCESS, ti, BASE_ADDR + page * SWS_PAGE_SIZE, 0,
		     write ? SWS_TRACE_F_WRITE : 0, 0);
	if (++t->k == t->quota)
		atomic_fetch_add_explicit(&wl->nfinished, 1, memory_order_relaxed);
	return 1;
}

static uint64_t zipf_rank(const struct sws_workload *wl, uint64_t *rng) { return zipf_sample(wl, rng) - 1; }
static uint64_t uniform_rank(const struct sws_workload *wl, uint64_t *rng) { return sws__rand(rng) % wl->pages; }

static int zipf_task_next(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec)
{
	return random_next(wl, ti, rec, zipf_rank);
}

static int uniform_task_next(struct sws_workload *wl, uint32_t ti, struct sws_trace_record *rec)
{
	return random_next(wl, ti, rec, uniform_rank);
}

/* zipf and uniform: every task maps, random accesses round robin, every task frees. */
static void random_gen(struct sws_workload *wl) { sws__wl_gen_tasks(wl, false); }

static int random_setup(struct sws_workload *wl, const struct sws_workload_config *cfg)
{
	(void)cfg;
	wl->total = 3ull * wl->ntasks + wl->cfg.nr_accesses;
	for (uint32_t i = 0; i < wl->ntasks; i++) {
		struct task_state *t = &wl->ts[i];
		t->quota = wl->cfg.nr_accesses / wl->ntasks + (i < wl->cfg.nr_accesses % wl->ntasks);
		uint64_t s = wl->rng ^ ((uint64_t)i * 0xd1b54a32d192ed03ull);
		t->rng = i ? sws__rand(&s) : wl->rng;
		if (!t->quota)
			wl->nfinished++;
	}
	return 0;
}

static int zipf_setup(struct sws_workload *wl, const struct sws_workload_config *cfg)
{
	struct zipf *z = wl->priv;
	random_setup(wl, cfg);
	z->zs = cfg->zipf_s > 0 ? cfg->zipf_s : 0.99;
	z->hx1 = zH(z, 1.5) - 1;
	z->hn = zH(z, (double)wl->pages + 0.5);
	z->ss = 2 - zHinv(z, zH(z, 2.5) - zh(z, 2));
	return 0;
}

/* zipf's and uniform's options: tasks, accesses, (zipf) the exponent, the writes' share. */
#define RANDOM_PARAMS                                                                    \
	SWS__WL_COUNT("-n", NULL, "TASKS", nr_tasks, 1, 65536, "1..65536 tasks"),          \
	SWS__WL_ACCESSES("ACCESSES"),                                                      \
	{.name = "-w", .arg = "WRITE_PCT", .kind = SWS_WORKLOAD_PARAM_COUNT, SWS__WL_FIELD(write_pct), \
	 .max = 100, .start = 30, .expect = "a percentage 0..100"},                        \
	SWS__WL_SEED("--seed"), SWS__WL_KEEP
static const struct sws_workload_param zipf_params[] = {
	RANDOM_PARAMS,
	{.name = "-s", .arg = "EXPONENT", .kind = SWS_WORKLOAD_PARAM_REAL, SWS__WL_FIELD(zipf_s), .max = 100,
	 .expect = "an exponent in (0, 100]"},
	{0},
};
static const struct sws_workload_param uniform_params[] = {RANDOM_PARAMS, {0}};

SWS__WORKLOAD(sws__workload_zipf,
	      .kind = SWS_WORKLOAD_ZIPF,
	      .name = "zipf",
	      .priv_size = sizeof(struct zipf),
	      .setup = zipf_setup,
	      .gen = random_gen,
	      .task_next = zipf_task_next,
	      .params = zipf_params,
	      .help = "zipf-distributed random accesses over SIZE per task");

SWS__WORKLOAD(sws__workload_uniform,
	      .kind = SWS_WORKLOAD_UNIFORM,
	      .name = "uniform",
	      .setup = random_setup,
	      .gen = random_gen,
	      .task_next = uniform_task_next,
	      .params = uniform_params,
	      .help = "uniform random accesses over SIZE per task");

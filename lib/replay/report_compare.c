/*
 * report_compare.c - replay reports in the layouts kernel memory-management
 * developers read comparisons in, so that a simulated comparison sits beside
 * a measured one:
 *
 *   mmtests' compare-kernels (bin/compare-mmtests.pl): per key, the statistic
 *   rows Min, Amean (Hmean for rates), Stddev, CoeffVar and Max; the first
 *   configuration is the baseline, "(   0.00%)", each other its difference
 *   "( -x.xx%)" signed so that a positive figure is better (for a time: lower);
 *   on the mean row the difference is "*  x.xx%*" where mmtests marks it
 *   significant (the means' 95% intervals, mean +- 1.96 stddev, do not
 *   cover the difference; without spread on either side, any difference);
 *   then "Duration" and "Ops", each of the whole benchmark as mmtests reads
 *   them before and after it: the repeats' times and vmstat counters summed
 *   (mmtests' names for the counters where it has them; swapsim.NAME for the
 *   model's counters /proc/vmstat has not).
 *
 *   lkp-tests' compare (lib/compare.rb): one row per figure, the first
 *   configuration's mean "± stddev%" (population stddev, shown over 2%), each
 *   other's "%change" and mean "± stddev%", then the figure's name; the
 *   counters as proc-vmstat.NAME (the memory model's that /proc/vmstat has,
 *   under the kernel's name: pgsteal_anon for pgsteal) and swapsim.NAME (the
 *   model's others and the swap core's).
 *
 * Written from the layouts of those tools' output (docs/replay.md has a
 * sample of each); no code of theirs.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay_internal.h"

/* Figure @key of run @r in the table's unit (s, MB/s, us); 0 where it has none. */
static double fig(const struct sws_replay_report *r, const char *key)
{
	double v = 0;
	sws__figure_get(r, key, &v);
	return v;
}

/* A compared figure: its key in each layout, the report's figure, its direction. */
static const struct key {
	const char *mmtests; /* + "-TASKS" */
	const char *lkp;     /* + after "NAME." */
	const char *figure;  /* the report's (sws__figure_get) */
	bool higher_better;  /* a rate: mmtests takes its harmonic mean */
	bool nonzero;        /* shown only where some run has it above 0 */
} keys[] = {
	{"user", "time.user_time", "user_ns", false, false},
	{"syst", "time.system_time", "sys_ns", false, false},
	{"elsp", "time.elapsed_time", "elapsed_ns", false, false},
	{"kswp", "time.kswapd_time", "kswapd_ns", false, true},
	{"tput", "throughput", "throughput_kbs", true, false},
	{"tput1", "throughput_per_task", "task_throughput_kbs", true, false},
	{"freelat", "free_latency_us", "free_latency_us", false, false},
	{"faultlat", "fault_latency_us", "fault_mean_ns", false, false},
};
#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

/* Shown: every run has the figure (usemem's only usemem's), and, where asked, not 0 in all. */
static bool key_shown(const struct key *k, const struct sws_replay_series *s, unsigned n)
{
	bool nonzero = false;
	for (unsigned i = 0; i < n; i++)
		for (unsigned r = 0; r < s[i].nr_repeats; r++) {
			double v;
			if (sws__figure_get(s[i].repeats[r], k->figure, &v))
				return false;
			nonzero |= v != 0;
		}
	return !k->nonzero || nonzero;
}

static const char *bench_name(const struct sws_replay_print_config *pc)
{
	return pc->input_name ? pc->input_name : "replay";
}

/* ---- mmtests ---------------------------------------------------------------------------- */

/* A statistic of one key over a configuration's repeats; NaN where mmtests has none. */
struct mstat {
	double min, mean, max, stddev, coeffvar;
	bool have_stddev;
};

static struct mstat mstat_of(const struct sws_replay_series *s, const struct key *k)
{
	struct mstat m = {0};
	unsigned n = s->nr_repeats;
	double sum = 0, inv = 0, sq = 0;
	for (unsigned r = 0; r < n; r++) {
		double v = fig(s->repeats[r], k->figure);
		if (!r || v < m.min)
			m.min = v;
		if (!r || v > m.max)
			m.max = v;
		sum += v;
		inv += v ? 1 / v : 0;
	}
	/* Amean, or for a rate Hmean (n / sum of 1/x) */
	m.mean = k->higher_better ? (inv ? n / inv : 0) : sum / n;
	if (n > 1) {
		for (unsigned r = 0; r < n; r++) {
			double v = fig(s->repeats[r], k->figure);
			if (k->higher_better)
				sq += v && m.mean ? (1 / v - 1 / m.mean) * (1 / v - 1 / m.mean) : 0;
			else
				sq += (v - m.mean) * (v - m.mean);
		}
		/* mmtests' Stddev: the sample's; HStddev: sqrt(sum (1/x - 1/H)^2 H^4 / n) */
		m.stddev = k->higher_better ? sws__sqrt(sq * m.mean * m.mean * m.mean * m.mean / n)
					    : sws__sqrt(sq / (n - 1));
		m.have_stddev = true;
		m.coeffvar = m.mean ? m.stddev * 100 / m.mean : 0;
	}
	return m;
}

/* mmtests' pdiff (higher is better) and pndiff (lower is better): positive = better. */
static double pdiff(double v, double base)
{
	if (v == base || v == 0)
		return 0;
	if (base == 0)
		return 100;
	return v * 100 / base - 100;
}

static double pndiff(double v, double base)
{
	if (v == base)
		return 0;
	if (v == 0)
		return 100;
	if (base == 0)
		return -99;
	return 100 - v * 100 / base;
}

/*
 * mmtests' significance: the difference exceeds the two means' 95%
 * half-intervals. Where neither configuration varies (every repeat the same,
 * as the modelled clock gives them for a seed-independent input), mmtests'
 * cidiff compares the bare difference with 1, meant for small integer counts:
 * in seconds or MB/s that would mark a difference or not by its unit. A
 * difference without spread on either side is exact, so any is significant.
 */
static bool significant(const struct mstat *a, const struct mstat *b)
{
	const double z = 1.959963984540054; /* qnorm(0.975) */
	if (!a->have_stddev || !b->have_stddev)
		return false;
	double cisum = z * a->stddev + z * b->stddev, diff = a->mean - b->mean;
	return cisum ? sws__absd(diff / cisum) > 1 : diff != 0;
}

enum { ST_MIN, ST_MEAN, ST_STDDEV, ST_COEFFVAR, ST_MAX, NR_ST };

static const char *stat_name(unsigned st, const struct key *k)
{
	static const char *const names[NR_ST] = {"Min", "Amean", "Stddev", "CoeffVar", "Max"};
	static const char *const hnames[NR_ST] = {"Min", "Hmean", "HStddev", "HCoeffVar", "Max"};
	return k->higher_better ? hnames[st] : names[st];
}

static bool stat_value(const struct mstat *m, unsigned st, double *v)
{
	switch (st) {
	case ST_MIN: *v = m->min; return true;
	case ST_MEAN: *v = m->mean; return true;
	case ST_STDDEV: *v = m->stddev; return m->have_stddev;
	case ST_COEFFVAR: *v = m->coeffvar; return m->have_stddev;
	default: *v = m->max; return true;
	}
}

/* The /proc/vmstat name of memory-model counter @c, or NULL for one the
 * kernel keeps elsewhere or not at all (the model's own: cow_fault, verify_ok,
 * lock waits, zswap's debugfs counters, ...). */
static const char *vmstat_name(unsigned c)
{
	switch (c) {
	case SWS_MM_pgsteal: return "pgsteal_anon";
	case SWS_MM_pgscan: return "pgscan_anon";
	case SWS_MM_workingset_refault: return "workingset_refault_anon";
	case SWS_MM_workingset_activate: return "workingset_activate_anon";
	case SWS_MM_pgfault: case SWS_MM_pgmajfault: case SWS_MM_pswpin: case SWS_MM_pswpout:
	case SWS_MM_swpin_zero: case SWS_MM_swpout_zero: case SWS_MM_swap_ra: case SWS_MM_swap_ra_hit:
	case SWS_MM_pgactivate: case SWS_MM_pglazyfree: case SWS_MM_pglazyfreed: case SWS_MM_pgdeactivate:
	case SWS_MM_pgscan_file: case SWS_MM_pgsteal_file: case SWS_MM_workingset_refault_file:
	case SWS_MM_workingset_activate_file: case SWS_MM_nr_dirtied: case SWS_MM_nr_written:
	case SWS_MM_thp_swpout: case SWS_MM_thp_swpout_fallback: case SWS_MM_oom_kill:
	case SWS_MM_zswpin: case SWS_MM_zswpout: case SWS_MM_zswpwb:
		return sws_mm_counter_name((enum sws_mm_counter)c);
	default: return NULL;
	}
}

/* The mmtests name of a counter ("Ops %s"): its vmstat one (mmtests' own for
 * four), else swapsim.NAME, no vmstat counter. */
static const char *ops_name(unsigned c, char *buf, size_t len)
{
	switch (c) {
	case SWS_MM_pgfault: return "Minor Faults"; /* pgfault less pgmajfault */
	case SWS_MM_pgmajfault: return "Major Faults";
	case SWS_MM_pswpin: return "Swap Ins";
	case SWS_MM_pswpout: return "Swap Outs";
	}
	if (vmstat_name(c))
		return vmstat_name(c);
	snprintf(buf, len, "swapsim.%s", sws_mm_counter_name((enum sws_mm_counter)c));
	return buf;
}

static uint64_t ops_value(const struct sws_replay_report *r, unsigned c)
{
	const uint64_t *m = r->mm.counters;
	return c == SWS_MM_pgfault ? m[SWS_MM_pgfault] - m[SWS_MM_pgmajfault] : m[c];
}

/* Counter @c over the whole benchmark: every repeat's, summed. */
static double ops_total(const struct sws_replay_series *s, unsigned c)
{
	double sum = 0;
	for (unsigned r = 0; r < s->nr_repeats; r++)
		sum += (double)ops_value(s->repeats[r], c);
	return sum;
}

/* The configurations' names over their columns, right-aligned. */
static void header_row(struct sws__out *o, unsigned lead, unsigned width, const struct sws_replay_series *s,
		       unsigned n)
{
	sws__pr(o, "%*s", (int)lead, "");
	for (unsigned i = 0; i < n; i++)
		sws__pr(o, "%*.*s", (int)width, (int)width - 1, sws__series_label(&s[i]));
	sws__pr(o, "\n");
}

void sws__print_mmtests(struct sws__out *o, const struct sws_replay_print_config *pc,
			const struct sws_replay_series *s, unsigned n)
{
	const unsigned cmpw = 7; /* mmtests' _CompareLength */
	unsigned tasks = (unsigned)s[0].repeats[0]->nr_tasks;
	unsigned statw = 0, keyw = 0, fieldw = 12, prec = 2;
	char name[32], num[64];
	bool shown[NR_KEYS];
	/* Widths: the longest statistic and key names; values in %FIELD.PRECf. */
	for (unsigned k = 0; k < NR_KEYS; k++) {
		shown[k] = key_shown(&keys[k], s, n);
		if (!shown[k])
			continue;
		int len = snprintf(name, sizeof(name), "%s-%u", keys[k].mmtests, tasks);
		keyw = (unsigned)len > keyw ? (unsigned)len : keyw;
		for (unsigned st = 0; st < NR_ST; st++)
			statw = strlen(stat_name(st, &keys[k])) > statw ? (unsigned)strlen(stat_name(st, &keys[k])) : statw;
		for (unsigned i = 0; i < n; i++) {
			struct mstat m = mstat_of(&s[i], &keys[k]);
			/* times below a second keep four digits (mmtests' _Precision) */
			if (!keys[k].higher_better && m.mean && m.mean < 1)
				prec = 4;
			len = snprintf(num, sizeof(num), "%.4f", m.max);
			fieldw = (unsigned)len + 2 > fieldw ? (unsigned)len + 2 : fieldw;
		}
	}
	sws__pr(o, "%s\n", bench_name(pc));
	header_row(o, statw + 1 + keyw, fieldw + cmpw + 4, s, n);
	for (unsigned st = 0; st < NR_ST; st++) {
		for (unsigned k = 0; k < NR_KEYS; k++) {
			if (!shown[k])
				continue;
			const struct key *key = &keys[k];
			struct mstat base = mstat_of(&s[0], key);
			snprintf(name, sizeof(name), "%s-%u", key->mmtests, tasks);
			sws__pr(o, "%-*s %-*s", (int)statw, stat_name(st, key), (int)keyw, name);
			for (unsigned i = 0; i < n; i++) {
				struct mstat m = i ? mstat_of(&s[i], key) : base;
				double v, bv;
				bool have = stat_value(&m, st, &v), bhave = stat_value(&base, st, &bv);
				if (have)
					sws__pr(o, "%*.*f", (int)fieldw, (int)prec, v);
				else
					sws__pr(o, "%*s", (int)fieldw, "NaN");
				if (!have || !bhave) {
					sws__pr(o, " (%*s%%)", (int)cmpw, "NaN");
					continue;
				}
				/* Stddev and CoeffVar: lower is better; the others as the key */
				bool lower = st == ST_STDDEV || st == ST_COEFFVAR || !key->higher_better;
				double d = lower ? pndiff(v, bv) : pdiff(v, bv);
				bool sig = st == ST_MEAN && i && significant(&m, &base);
				sws__pr(o, sig ? " *%*.2f%%*" : " (%*.2f%%)", (int)cmpw, d);
			}
			sws__pr(o, "\n");
		}
	}
	/* Duration: the repeats' simulated times, summed, per configuration. */
	static const char *const dur[] = {"User", "System", "Elapsed"};
	static const char *const dfig[] = {"user_ns", "sys_ns", "elapsed_ns"};
	sws__pr(o, "\n");
	header_row(o, 16, 12, s, n);
	for (unsigned d = 0; d < 3; d++) {
		sws__pr(o, "Duration %-7s", dur[d]);
		for (unsigned i = 0; i < n; i++) {
			double sum = 0;
			for (unsigned r = 0; r < s[i].nr_repeats; r++)
				sum += fig(s[i].repeats[r], dfig[d]);
			sws__pr(o, "%12.2f", sum);
		}
		sws__pr(o, "\n");
	}
	/* Ops: the vmstat counters of the whole benchmark (the repeats' summed, as
	 * Duration's times), those 0 everywhere left out. */
	unsigned opsw = 0;
	char nb[64];
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		if (sws__row_shown(s, n, pc->flags, ops_value, c) && strlen(ops_name(c, nb, sizeof(nb))) > opsw)
			opsw = (unsigned)strlen(ops_name(c, nb, sizeof(nb)));
	sws__pr(o, "\n");
	header_row(o, 4 + opsw, 15, s, n);
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++) {
		if (!sws__row_shown(s, n, pc->flags, ops_value, c))
			continue;
		sws__pr(o, "Ops %-*s", (int)opsw, ops_name(c, nb, sizeof(nb)));
		for (unsigned i = 0; i < n; i++)
			sws__pr(o, "%15.2f", ops_total(&s[i], c));
		sws__pr(o, "\n");
	}
}

/* ---- lkp ------------------------------------------------------------------------------ */

#define ABS_WIDTH 10 /* lkp's column widths */
#define REL_WIDTH 10
#define ERR_WIDTH 6

/* The mean and population standard deviation (lkp's; -1: one value) of @get over @s. */
static void lkp_stat(const struct sws_replay_series *s, double (*get)(const struct sws_replay_report *, unsigned),
		     unsigned idx, double *avg, double *stddev)
{
	unsigned n = s->nr_repeats;
	double sum = 0, sq = 0;
	for (unsigned r = 0; r < n; r++)
		sum += get(s->repeats[r], idx);
	*avg = sum / n;
	for (unsigned r = 0; r < n; r++)
		sq += (get(s->repeats[r], idx) - *avg) * (get(s->repeats[r], idx) - *avg);
	*stddev = n > 1 ? sws__sqrt(sq / n) : -1;
}

/* One value and its relative spread, as lkp prints them. */
static void lkp_value(struct sws__out *o, double avg, double stddev)
{
	if (sws__absd(avg) < 1000)
		sws__pr(o, "%*.2f", ABS_WIDTH, avg);
	else if (sws__absd(avg) > 100000000)
		sws__pr(o, "%*.4g", ABS_WIDTH, avg);
	else
		sws__pr(o, "%*lld", ABS_WIDTH, (long long)avg);
	if (avg)
		stddev = 100 * stddev / avg;
	if (stddev > 2)
		sws__pr(o, " ±%*d%%", ERR_WIDTH - 3, (int)stddev);
	else
		sws__pr(o, "%*s", ERR_WIDTH, "");
}

static void lkp_row(struct sws__out *o, const struct sws_replay_series *s, unsigned n,
		    double (*get)(const struct sws_replay_report *, unsigned), unsigned idx, const char *name,
		    const char *sub)
{
	double avg0, sd0;
	lkp_stat(&s[0], get, idx, &avg0, &sd0);
	lkp_value(o, avg0, sd0);
	for (unsigned i = 1; i < n; i++) {
		double avg, sd, base = avg0 ? avg0 : 1e-100;
		lkp_stat(&s[i], get, idx, &avg, &sd);
		double p = 100.0 * (avg - base) / base;
		if (sws__absd(p) < 100000)
			sws__pr(o, "%+*.1f%% ", REL_WIDTH, p);
		else
			sws__pr(o, "%+*.2g%% ", REL_WIDTH, p);
		lkp_value(o, avg, sd);
	}
	sws__pr(o, "  %s%s\n", name, sub);
}


static double lkp_fig(const struct sws_replay_report *r, unsigned k) { return fig(r, keys[k].figure); }
static double lkp_mm(const struct sws_replay_report *r, unsigned c) { return (double)r->mm.counters[c]; }
static double lkp_swap(const struct sws_replay_report *r, unsigned c) { return (double)r->swap.counters[c]; }
static uint64_t mm_ctr(const struct sws_replay_report *r, unsigned c) { return r->mm.counters[c]; }
static uint64_t swap_ctr(const struct sws_replay_report *r, unsigned c) { return r->swap.counters[c]; }

void sws__print_lkp(struct sws__out *o, const struct sws_replay_print_config *pc,
		    const struct sws_replay_series *s, unsigned n)
{
	const unsigned first = ABS_WIDTH + ERR_WIDTH, width = first + REL_WIDTH + 1;
	char line[1024], name[96];
	/* The group header: the common axes (the machine), then the compared one. */
	sws__setup_line(&s[0], line, sizeof(line));
	sws__pr(o, "=========================================================================================\n");
	sws__pr(o, "testcase/machine:\n  %s/%s\n\n", bench_name(pc), line);
	sws__pr(o, "design: \n");
	for (unsigned i = 0; i < n; i++)
		sws__pr(o, "  %s\n", sws__series_label(&s[i]));
	sws__pr(o, "\n%*.*s ", (int)first, (int)first, sws__series_label(&s[0]));
	for (unsigned i = 1; i < n; i++)
		sws__pr(o, "%*.*s ", (int)width, (int)width, sws__series_label(&s[i]));
	sws__pr(o, "\n%.*s ", (int)first, "--------------------------------");
	for (unsigned i = 1; i < n; i++)
		sws__pr(o, "%.*s ", (int)width, "--------------------------------");
	sws__pr(o, "\n         %%stddev");
	for (unsigned i = 1; i < n; i++)
		sws__pr(o, "     %%change         %%stddev");
	sws__pr(o, "\n             \\  ");
	for (unsigned i = 1; i < n; i++)
		sws__pr(o, "        |                \\  ");
	sws__pr(o, "\n");
	for (unsigned k = 0; k < NR_KEYS; k++) {
		if (!key_shown(&keys[k], s, n))
			continue;
		snprintf(name, sizeof(name), "%s.", bench_name(pc));
		lkp_row(o, s, n, lkp_fig, k, name, keys[k].lkp);
	}
	for (unsigned c = 0; c < SWS_MM_NR_COUNTERS; c++)
		if (sws__row_shown(s, n, pc->flags, mm_ctr, c))
			lkp_row(o, s, n, lkp_mm, c, vmstat_name(c) ? "proc-vmstat." : "swapsim.",
				vmstat_name(c) ? vmstat_name(c) : sws_mm_counter_name((enum sws_mm_counter)c));
	for (unsigned c = 0; c < SWS_NR_COUNTERS; c++)
		if (sws__row_shown(s, n, pc->flags, swap_ctr, c))
			lkp_row(o, s, n, lkp_swap, c, "swapsim.", sws_counter_name((enum sws_counter)c));
	sws__pr(o, "\n");
}

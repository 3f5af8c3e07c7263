/*
 * cli_parse.c - the command line's value grammar, shared by the programs in
 * sim/ and their tests: sizes (K/M/G/T suffixes, or pages with "p"), swap
 * device specs, content mixes and each synthetic workload's own options, read
 * from the workload's table (sws_workload_params(): usemem's vm-scalability
 * flags, ...). Public API only (swapsim/replay.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli_parse.h"

static int fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t len, const char *fmt, ...)
{
	if (msg && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return SWS_EINVAL;
}

/* Decimal digits only, no sign, no overflow. */
static int parse_u64(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	if (*s < '0' || *s > '9')
		return SWS_EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return SWS_EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*end = s;
	*out = v;
	return 0;
}

/* A size in any unit, a bare number too (bytes). */
static int parse_bytes(const char *s, uint64_t *bytes)
{
	const char *e;
	uint64_t v, mul = 1;
	if (!s || !bytes || parse_u64(s, &e, &v))
		return SWS_EINVAL;
	switch (*e) {
	case 0: break;
	case 'p': case 'P': mul = SWS_PAGE_SIZE; e++; break;
	case 'k': case 'K': mul = 1ull << 10; e++; break;
	case 'm': case 'M': mul = 1ull << 20; e++; break;
	case 'g': case 'G': mul = 1ull << 30; e++; break;
	case 't': case 'T': mul = 1ull << 40; e++; break;
	default: return SWS_EINVAL;
	}
	if (mul > 1 && mul != SWS_PAGE_SIZE) { /* optional B or iB after a binary suffix */
		if (!strcasecmp(e, "ib"))
			e += 2;
		else if (!strcasecmp(e, "b"))
			e += 1;
	}
	if (*e || (v && mul > UINT64_MAX / v))
		return SWS_EINVAL;
	*bytes = v * mul;
	return 0;
}

/* Digits only: a size without a unit. */
static bool bare_number(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s);
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v;
	if (parse_bytes(s, &v))
		return SWS_EINVAL;
	if (bare_number(s) && v < SWS_PAGE_SIZE)
		return SWS_EINVAL; /* 64 for 64M: cli_size_hint() says so */
	*bytes = v;
	return 0;
}

const char *cli_trace_format_list(char *buf, size_t len, int with_auto)
{
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned f = with_auto ? SWS_TRACE_FORMAT_AUTO : 1; f < SWS_TRACE_NR_FORMATS && at < len; f++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       f == (with_auto ? SWS_TRACE_FORMAT_AUTO : 1u) ? ""
				       : f + 1 < SWS_TRACE_NR_FORMATS                ? ", "
										     : " or ",
				       sws_trace_format_name((enum sws_trace_format)f));
	return buf;
}

const char *cli_size_hint(const char *s, char *buf, size_t len)
{
	/* A decimal fraction: say the whole number of a smaller unit it is. */
	static const char units[] = "KMGT";
	const char *dot = s ? strchr(s, '.') : NULL;
	uint64_t bytes;
	if (bare_number(s) && !parse_bytes(s, &bytes) && bytes < SWS_PAGE_SIZE) {
		snprintf(buf, len, "%s bytes is less than one page: add a unit or p (%sM, %sK, or %sp for %s pages "
				   "of 4 KiB)", s, s, s, s, s);
		return buf;
	}
	const char *u = dot ? strpbrk(dot, "kKmMgGtT") : NULL;
	if (dot && u && dot > s && dot[1] >= '0' && dot[1] <= '9') {
		char *e;
		double v = strtod(s, &e);
		unsigned ui = (unsigned)(strchr(units, toupper((unsigned char)*u)) - units);
		if (e == u && v > 0) {
			/* In K, M, G below the given unit, the first whole number. */
			double x = v;
			for (unsigned k = ui; k-- > 0;) {
				x *= 1024;
				/* below 1e15 first: a double beyond 2^64 has no uint64_t (undefined) */
				if (x < 1e15 && x == (double)(uint64_t)x) {
					snprintf(buf, len, "sizes are whole numbers: %s is %llu%c", s,
						 (unsigned long long)x, units[k]);
					return buf;
				}
			}
			if (ui)
				snprintf(buf, len, "sizes are whole numbers: %s is about %.0f%c", s, v * 1024,
					 units[ui - 1]);
			else
				snprintf(buf, len, "sizes are whole numbers: %s is %s%.0f (bytes)", s,
					 v * 1024 < 1e15 && v * 1024 == (double)(uint64_t)(v * 1024) ? "" : "about ",
					 v * 1024);
			return buf;
		}
	}
	snprintf(buf, len, "a size is a whole number with K, M, G or T (binary) or p (4 KiB pages): "
			   "512M, 2G, 65536p");
	return buf;
}

/* One key=value of a swap device spec (@val: after the '='). */
static int swap_key(const char *kv, const char *val, struct sws_replay_swap *out, char *msg, size_t msg_len)
{
	uint64_t v;
	const char *e;
	char hint[160];
	if (!strcmp(kv, "size")) {
		if (cli_parse_size(val, &v))
			return fail(msg, msg_len, "size=%s: %s", val, cli_size_hint(val, hint, sizeof(hint)));
		if (v < 2 * SWS_PAGE_SIZE)
			return fail(msg, msg_len, "size=%s: below the smallest device, 2 pages (8K)", val);
		out->pages = v / SWS_PAGE_SIZE;
	} else if (!strcmp(kv, "type")) {
		if (sws_replay_swap_kind_parse(val, &out->kind))
			return fail(msg, msg_len, "type=%s: expected ssd (nvme), sata, hdd, zram, pmem or xswap", val);
	} else if (!strcmp(kv, "prio")) {
		if (parse_u64(val, &e, &v) || *e || v > 32767)
			return fail(msg, msg_len, "prio=%s: expected 0..32767", val);
		out->prio = (int32_t)v;
	} else if (!strcmp(kv, "file")) {
		if (!*val)
			return fail(msg, msg_len, "file=: empty path");
		out->path = val;
	} else if (!strcmp(kv, "rlat") || !strcmp(kv, "wlat")) {
		if (parse_u64(val, &e, &v) || *e || !v)
			return fail(msg, msg_len, "%s=%s: expected nanoseconds > 0", kv, val);
		*(kv[0] == 'r' ? &out->read_ns : &out->write_ns) = v;
	} else if (!strcmp(kv, "limit")) {
		if (parse_u64(val, &e, &v) || *e || !v)
			return fail(msg, msg_len, "limit=%s: expected pages > 0", val);
		out->limit_pages = v;
	} else if (!strcmp(kv, "tier")) {
		size_t n = strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!*val || val[n] || n >= SWS_SWAP_TIER_NAME_MAX)
			return fail(msg, msg_len, "tier=%s: expected a name of 1..%u letters, digits or _", val,
				    SWS_SWAP_TIER_NAME_MAX - 1);
		out->tier = val;
	} else if (!strcmp(kv, "qd")) {
		if (parse_u64(val, &e, &v) || *e || !v || v > SWS_DEVICE_MAX_QUEUE)
			return fail(msg, msg_len, "qd=%s: expected a queue depth in 1..%u", val, SWS_DEVICE_MAX_QUEUE);
		out->queue_depth = (uint32_t)v;
	} else {
		return fail(msg, msg_len,
			    "unknown key '%s' (size, type, prio, file, rlat, wlat, qd, limit, tier, reuse, follow, "
			    "discard)", kv);
	}
	return 0;
}

/* A word of a spec without '=': reuse, follow, discard. */
static int swap_word(const char *kv, struct sws_replay_swap *out, char *msg, size_t msg_len)
{
	uint64_t v;
	if (!strcmp(kv, "reuse") || !strcmp(kv, "follow"))
		out->file_flags |= kv[0] == 'r' ? SWS_BACKING_REUSE : SWS_BACKING_FOLLOW;
	else if (!strcmp(kv, "discard"))
		out->swap_flags |= SWS_REPLAY_SWAP_DISCARD;
	else if (!cli_parse_size(kv, &v))
		return fail(msg, msg_len,
			    "'%s' is a size, not a device spec: write size=%s (SPEC is key=value "
			    "pairs, e.g. size=%s,type=ssd)", kv, kv, kv);
	else
		return fail(msg, msg_len, "'%s': expected key=value (or reuse, follow, discard)", kv);
	return 0;
}

/* The keys of a whole spec that do not go together. */
static int swap_check(const struct sws_replay_swap *out, char *msg, size_t msg_len)
{
	bool xswap = out->kind == SWS_REPLAY_SWAP_XSWAP;
	if (xswap && (out->pages || out->path || out->read_ns || out->write_ns))
		return fail(msg, msg_len, "type=xswap is sized by RAM and has no storage: "
					  "no size, file, rlat or wlat (limit=PAGES sets its limit)");
	if ((out->swap_flags & SWS_REPLAY_SWAP_DISCARD) && (xswap || out->kind == SWS_REPLAY_SWAP_HDD))
		return fail(msg, msg_len, "discard needs a non-rotational device with storage (not hdd or xswap)");
	if (out->queue_depth && (xswap || out->kind == SWS_REPLAY_SWAP_PMEM || out->kind == SWS_REPLAY_SWAP_ZRAM))
		return fail(msg, msg_len, "qd= is for devices with a queue (ssd, nvme, sata, hdd): pmem and zram work on the CPU");
	if (!xswap && out->limit_pages)
		return fail(msg, msg_len, "limit= is for type=xswap devices (use size= for others)");
	if (xswap && out->tier)
		return fail(msg, msg_len, "tier= is for devices with storage (not type=xswap)");
	if (out->file_flags && !out->path)
		return fail(msg, msg_len, "reuse and follow are about file=PATH, which is missing");
	return 0;
}

int cli_parse_swap(char *s, struct sws_replay_swap *out, char *msg, size_t msg_len)
{
	if (!s || !out)
		return fail(msg, msg_len, "missing device spec");
	memset(out, 0, sizeof(*out));
	out->prio = -1;
	char *save = NULL;
	for (char *kv = strtok_r(s, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *val = strchr(kv, '=');
		int rc;
		if (val)
			*val++ = 0;
		if ((rc = val ? swap_key(kv, val, out, msg, msg_len) : swap_word(kv, out, msg, msg_len)))
			return rc;
	}
	return swap_check(out, msg, msg_len);
}

static const char *const content_names[SWS_NR_CONTENT] = {"zero", "same", "index", "text",
							   "random"};

int cli_parse_content(const char *s, uint32_t weight[SWS_NR_CONTENT], char *msg,
			     size_t msg_len)
{
	uint32_t w[SWS_NR_CONTENT] = {0};
	uint64_t sum = 0;
	if (!s || !*s)
		return fail(msg, msg_len, "empty content mix");
	while (*s) {
		size_t n = strcspn(s, "=,");
		unsigned k;
		for (k = 0; k < SWS_NR_CONTENT; k++)
			if (strlen(content_names[k]) == n && !strncmp(s, content_names[k], n))
				break;
		if (k == SWS_NR_CONTENT)
			return fail(msg, msg_len, "unknown content '%.*s' (zero, same, index, text, random)",
				    (int)n, s);
		s += n;
		uint64_t v = 1;
		if (*s == '=') {
			const char *e;
			if (parse_u64(s + 1, &e, &v) || v > 1000000)
				return fail(msg, msg_len, "%s: weight must be 0..1000000",
					    content_names[k]);
			s = e;
		}
		w[k] = (uint32_t)v;
		sum += v;
		if (*s == ',')
			s++;
		else if (*s)
			return fail(msg, msg_len, "junk '%s' in content mix", s);
	}
	if (!sum)
		return fail(msg, msg_len, "content weights are all zero");
	memcpy(weight, w, sizeof(w));
	return 0;
}

/* ---- the workloads' own options, read from their table (sws_workload_params()) ---- */

/* @p's value @v into @cfg's field (its size says its type). */
static void wl_store(struct sws_workload_config *cfg, const struct sws_workload_param *p, uint64_t n, double d)
{
	char *field = (char *)cfg + p->offset;
	if (p->kind == SWS_WORKLOAD_PARAM_REAL)
		memcpy(field, &d, sizeof(d));
	else if (p->size == sizeof(uint32_t))
		*(uint32_t *)field = (uint32_t)n;
	else
		*(uint64_t *)field = n;
}

/* A decimal exponent, digits[.digits], read without strtod's locale. @return
 * 0 with *@out, or -1. */
static int parse_decimal(const char *v, double *out)
{
	const char *e;
	uint64_t ip, fp = 0, scale = 1;
	if (parse_u64(v, &e, &ip))
		return -1;
	if (*e == '.') {
		const char *f = e + 1;
		if (parse_u64(f, &e, &fp) || e - f > 12)
			return -1;
		for (const char *c = f; c < e; c++)
			scale *= 10;
	}
	*out = (double)ip + (double)fp / (double)scale;
	return *e ? -1 : 0;
}

/* @n bytes in the largest binary unit that divides it ("1P"). */
static const char *bytes_name(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = -1;
	while (n && !(n % 1024) && u < 5) {
		n /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)n, units[u]);
	return buf;
}

/* Workload @wl's option @p with value @v (NULL: missing) into @cfg. */
static int wl_param(struct sws_workload_config *cfg, const char *wl, const struct sws_workload_param *p,
		    const char *v, char *msg, size_t len)
{
	char expect[96], hint[160];
	uint64_t n = 0;
	double d = 0;
	const char *e;
	if (!p->expect)
		snprintf(expect, sizeof(expect), "a count from %llu to %llu", (unsigned long long)p->min,
			 (unsigned long long)p->max);
	switch (p->kind) {
	case SWS_WORKLOAD_PARAM_SEED:
		if (!v || parse_u64(v, &e, &n) || *e)
			return fail(msg, len, "%s %s: expected a number", wl, p->name);
		break;
	case SWS_WORKLOAD_PARAM_SIZE:
		if (!v)
			return fail(msg, len, "%s %s: expected a size (K/M/G or pages with p)", wl, p->name);
		if (cli_parse_size(v, &n))
			return fail(msg, len, "%s %s: '%s': %s", wl, p->name, v, cli_size_hint(v, hint, sizeof(hint)));
		if (n > p->max)
			return fail(msg, len, "%s %s: size '%s' is above the limit of %s", wl, p->name, v,
				    bytes_name(p->max, hint, sizeof(hint)));
		break;
	default:
		if (!v)
			return fail(msg, len, "%s %s: missing value", wl, p->name);
		bool bad = p->kind == SWS_WORKLOAD_PARAM_BYTES ? parse_bytes(v, &n) != 0
			   : p->kind == SWS_WORKLOAD_PARAM_REAL ? parse_decimal(v, &d) || d <= 0 || d > (double)p->max
								 : parse_u64(v, &e, &n) || *e;
		if (bad || (p->kind != SWS_WORKLOAD_PARAM_REAL && (n < p->min || n > p->max)))
			return fail(msg, len, "%s %s %s: expected %s", wl, p->name, v, p->expect ? p->expect : expect);
	}
	wl_store(cfg, p, n, d);
	return 0;
}

/* The option of @params that word @a names: by name or alias, or a one-letter
 * option with its value glued (-n4, -n=4: *@glued is the value). */
static const struct sws_workload_param *wl_find(const struct sws_workload_param *params, const char *a,
						const char **glued)
{
	*glued = NULL;
	for (const struct sws_workload_param *p = params; p->name; p++)
		if (!strcmp(a, p->name) || (p->alias && !strcmp(a, p->alias)))
			return p;
	for (const struct sws_workload_param *p = params; p->name; p++)
		if (p->kind != SWS_WORKLOAD_PARAM_FLAG && strlen(p->name) == 2 && !strncmp(a, p->name, 2)) {
			*glued = a + 2 + (a[2] == '=');
			return p;
		}
	return NULL;
}

/* The one word that is not an option: the workload's SIZE. */
static int wl_size(struct sws_workload_config *cfg, const char *wl, const char *a, bool *have_size, char *msg,
		   size_t len)
{
	char hint[160];
	uint64_t n;
	if (*have_size)
		return fail(msg, len, "%s: unexpected argument '%s'", wl, a);
	if (cli_parse_size(a, &n))
		return fail(msg, len, "%s: bad size '%s': %s", wl, a, cli_size_hint(a, hint, sizeof(hint)));
	if (!n)
		return fail(msg, len, "%s: bad size '%s': want more than 0", wl, a);
	if (n > SWS_WORKLOAD_MAX_BYTES)
		return fail(msg, len, "%s: size '%s' is above the limit of %s", wl, a,
			    bytes_name(SWS_WORKLOAD_MAX_BYTES, hint, sizeof(hint)));
	cfg->bytes = n;
	*have_size = true;
	return 0;
}

int cli_parse_workload_args(struct sws_workload_config *cfg, int argc, char *const *argv,
			    char *msg, size_t msg_len)
{
	enum sws_workload_kind kind = cfg->kind;
	const char *name = sws_workload_name(kind);
	const struct sws_workload_param *params = sws_workload_params(kind);
	bool have_size = false;
	if (!params)
		return fail(msg, msg_len, "unknown workload");
	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = kind;
	for (const struct sws_workload_param *p = params; p->name; p++)
		if (p->start)
			wl_store(cfg, p, p->start, (double)p->start);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v;
		const struct sws_workload_param *p = wl_find(params, a, &v);
		int rc;
		if (!p && a[0] == '-' && a[1])
			return fail(msg, msg_len, "%s: unknown option '%s'", name, a);
		if (!p)
			rc = wl_size(cfg, name, a, &have_size, msg, msg_len);
		else if (p->kind == SWS_WORKLOAD_PARAM_FLAG) {
			cfg->flags |= p->flag;
			rc = 0;
		} else
			rc = wl_param(cfg, name, p, v ? v : i + 1 < argc ? argv[++i] : NULL, msg, msg_len);
		if (rc)
			return rc;
	}
	if (!have_size)
		return fail(msg, msg_len, "%s: missing SIZE", name);
	if (cfg->step > cfg->bytes)
		return fail(msg, msg_len, "%s -j %llu: a step beyond the size (%llu bytes) touches the first "
				"page alone: at most the size", name, (unsigned long long)cfg->step,
			    (unsigned long long)cfg->bytes);
	return 0;
}

int cli_bad(const char *prog, const char *opt, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: %s: ", prog, opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(try --help)\n");
	return 2;
}

int cli_read_costs(const char *path, struct sws_costs *c, char *msg, size_t msg_len)
{
	enum { MAX = 1 << 20 }; /* a cost file is a few KiB */
	FILE *f = fopen(path, "r");
	if (!f)
		return fail(msg, msg_len, "%s: %s", path, strerror(errno));
	char *text = malloc(MAX + 1);
	errno = 0;
	size_t n = text ? fread(text, 1, MAX + 1, f) : 0;
	int err = ferror(f) ? (errno ? errno : EIO) : 0; /* a folder: EISDIR */
	fclose(f);
	if (!text)
		return fail(msg, msg_len, "%s: out of memory", path);
	if (err || n > MAX) {
		free(text);
		return fail(msg, msg_len, "%s: %s", path, err ? strerror(err) : "longer than 1 MiB: not a cost file");
	}
	char why[192];
	sws_costs_default(c);
	int rc = sws_costs_parse(c, text, n, why, sizeof(why));
	free(text);
	return rc ? fail(msg, msg_len, "%s: %s", path, why) : 0;
}

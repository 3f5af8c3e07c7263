/*
 * cost.c - the cost table of modelled time (swapsim/cost.h): its names,
 * defaults and derivations, and the cost file's reader and writer.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <swapsim/cost.h>
#include <swapsim/error.h>

static const char *const cost_names[] = {
#define SWS__COST_NAME(name, unit, ps, derive) #name,
	SWS_COST_LIST(SWS__COST_NAME)
#undef SWS__COST_NAME
};

static const char *const cost_units[] = {
#define SWS__COST_UNIT(name, unit, ps, derive) unit,
	SWS_COST_LIST(SWS__COST_UNIT)
#undef SWS__COST_UNIT
};

static const uint64_t cost_defaults[] = {
#define SWS__COST_PS(name, unit, ps, derive) ps,
	SWS_COST_LIST(SWS__COST_PS)
#undef SWS__COST_PS
};

static const char *const cost_derive[] = {
#define SWS__COST_DERIVE(name, unit, ps, derive) derive,
	SWS_COST_LIST(SWS__COST_DERIVE)
#undef SWS__COST_DERIVE
};

static const char *const lock_class_names[] = {
#define SWS__LOCK_NAME(name, desc) #name,
	SWS_LOCK_CLASS_LIST(SWS__LOCK_NAME)
#undef SWS__LOCK_NAME
};

const char *sws_lock_class_name(enum sws_lock_class c)
{
	return (unsigned)c < SWS_NR_LOCK_CLASSES ? lock_class_names[c] : "";
}

const char *sws_cost_name(enum sws_cost c) { return (unsigned)c < SWS_NR_COSTS ? cost_names[c] : ""; }
const char *sws_cost_unit(enum sws_cost c) { return (unsigned)c < SWS_NR_COSTS ? cost_units[c] : ""; }
const char *sws_cost_derivation(enum sws_cost c)
{
	return (unsigned)c < SWS_NR_COSTS ? cost_derive[c] : "";
}

static int cost_lookup(const char *name, size_t len, enum sws_cost *out)
{
	for (unsigned c = 0; c < SWS_NR_COSTS; c++)
		if (strlen(cost_names[c]) == len && !memcmp(cost_names[c], name, len)) {
			*out = (enum sws_cost)c;
			return 0;
		}
	return SWS_EINVAL;
}

int sws_cost_parse(const char *name, enum sws_cost *out)
{
	if (!name || !out)
		return SWS_EINVAL;
	return cost_lookup(name, strlen(name), out);
}

/* One term of a formula: "[K*]name". @return its value in ps, or UINT64_MAX. */
static uint64_t term(const struct sws_costs *c, const char *s, size_t len)
{
	uint64_t k = 1;
	const char *star = memchr(s, '*', len);
	if (star) {
		k = 0;
		for (const char *p = s; p < star; p++)
			k = k * 10 + (uint64_t)(*p - '0');
		len -= (size_t)(star + 1 - s);
		s = star + 1;
	}
	enum sws_cost from;
	if (cost_lookup(s, len, &from))
		return UINT64_MAX;
	return k * c->ps[from];
}

/* The value of class @i's formula over @c (the list orders every derived
 * class after what it derives from). */
static uint64_t derive_one(const struct sws_costs *c, unsigned i)
{
	const char *f = cost_derive[i], *plus = strchr(f, '+');
	size_t first = plus ? (size_t)(plus - f) : strlen(f);
	uint64_t v = term(c, f, first);
	if (plus)
		v += term(c, plus + 1, strlen(plus + 1));
	return v;
}

void sws_costs_derive(struct sws_costs *c)
{
	for (unsigned i = 0; i < SWS_NR_COSTS; i++)
		if (cost_derive[i][0])
			c->ps[i] = derive_one(c, i);
}

void sws_costs_default(struct sws_costs *c)
{
	memcpy(c->ps, cost_defaults, sizeof(c->ps));
	c->llc_bytes = SWS_COST_LLC_BYTES_DEFAULT;
	sws_costs_derive(c);
}

/* Parse an unsigned decimal in [s, e). @return 0 or -1. */
static int parse_u64(const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0;
	if (s == e)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int bad(char *err, size_t errlen, unsigned line, const char *what, const char *s, size_t n)
{
	if (err && errlen)
		snprintf(err, errlen, "line %u: %s '%.*s'", line, what, (int)(n > 64 ? 64 : n), s);
	return SWS_EINVAL;
}

int sws_costs_parse(struct sws_costs *c, const char *text, size_t len, char *err, size_t errlen)
{
	if (!c || (!text && len))
		return SWS_EINVAL;
	bool set[SWS_NR_COSTS] = {0}, llc_set = false;
	const char *p = text, *end = text + len;
	for (unsigned line = 1; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *hash = memchr(p, '#', (size_t)(eol - p)), *q = hash ? hash : eol;
		while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
			q--;
		while (p < q && (*p == ' ' || *p == '\t'))
			p++;
		if (p < q) {
			const char *name = p;
			while (p < q && *p != ' ' && *p != '\t')
				p++;
			size_t nlen = (size_t)(p - name);
			while (p < q && (*p == ' ' || *p == '\t'))
				p++;
			uint64_t v;
			if (parse_u64(p, q, &v))
				return bad(err, errlen, line, "expected 'name picoseconds', got", name,
					   (size_t)(q - name));
			enum sws_cost k;
			if (nlen == 9 && !memcmp(name, "llc_bytes", 9)) {
				if (llc_set)
					return bad(err, errlen, line, "given twice:", name, nlen);
				if (!v)
					return bad(err, errlen, line, "must be at least 1:", name, nlen);
				llc_set = true;
				c->llc_bytes = v;
			} else if (cost_lookup(name, nlen, &k)) {
				return bad(err, errlen, line, "unknown cost class", name, nlen);
			} else if (set[k]) {
				return bad(err, errlen, line, "given twice:", name, nlen);
			} else if (v > SWS_COST_MAX_PS) {
				return bad(err, errlen, line,
					   "above the limit of 1000000000 ps (1 ms) a unit, where the run's times could wrap:",
					   name, (size_t)(q - name));
			} else {
				set[k] = true;
				c->ps[k] = v;
			}
		}
		p = eol + 1;
	}
	/* Derived classes the file left out follow its values. */
	for (unsigned i = 0; i < SWS_NR_COSTS; i++)
		if (cost_derive[i][0] && !set[i])
			c->ps[i] = derive_one(c, i);
	return 0;
}

int sws_costs_print(const struct sws_costs *c, const char *header,
		    int (*write)(void *ctx, const char *text, size_t len), void *ctx)
{
	char buf[512];
	int rc, n;
	for (const char *h = header; h && *h;) {
		const char *eol = strchr(h, '\n');
		size_t l = eol ? (size_t)(eol - h) : strlen(h);
		n = snprintf(buf, sizeof(buf), "# %.*s\n", (int)(l > 400 ? 400 : l), h);
		if ((rc = write(ctx, buf, (size_t)n)))
			return rc;
		h += l + (eol ? 1 : 0);
	}
	n = snprintf(buf, sizeof(buf), "%-24s %12llu  # the modelled last-level cache, bytes\n", "llc_bytes",
		     (unsigned long long)c->llc_bytes);
	if ((rc = write(ctx, buf, (size_t)n)))
		return rc;
	for (unsigned i = 0; i < SWS_NR_COSTS; i++) {
		n = snprintf(buf, sizeof(buf), "%-24s %12llu  # ps %s%s%s\n", cost_names[i],
			     (unsigned long long)c->ps[i], cost_units[i], cost_derive[i][0] ? "; derived: " : "",
			     cost_derive[i]);
		if ((rc = write(ctx, buf, (size_t)n)))
			return rc;
	}
	return 0;
}

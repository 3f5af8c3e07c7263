/*
 * check.h - swapsim-replay --check: a recording of a kernel run (the folder
 * swapsim-record writes, or its kernel.txt), the machine it describes as a
 * replay configuration, and the kernel's counters printed next to the
 * simulator's. Only swapsim-replay.c calls this module.
 *
 * kernel.txt (docs/trace-format.md, "Recording a kernel run"): "# " comment
 * lines, "## TITLE" section headers, and "KEY VALUE" lines under them. The
 * setup section's values are text (the rest of the line); the counter
 * sections' values are integers (negative for a gauge that fell).
 */
#ifndef SWAPSIM_CHECK_H
#define SWAPSIM_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <swapsim/swapsim.h>

#define CHECK_PATH_MAX 4096

struct check_entry {
	const char *section; /* the title after "## " */
	const char *key;
	const char *value; /* the rest of the line, trimmed */
	unsigned line;
};

struct check_recording {
	char path[CHECK_PATH_MAX];  /* kernel.txt */
	char trace[CHECK_PATH_MAX]; /* the trace its setup names, beside it */
	bool accesses;		    /* trace is the recording's access stream (lackey) */
	char *text;		    /* the file's bytes; the entries point into it */
	struct check_entry *e;
	unsigned n;
	unsigned *index;	    /* open addressing over (section, key): entry + 1, 0 empty */
	unsigned index_cap;	    /* a power of two, at least twice n */
};

/**
 * Read @arg: a folder holding kernel.txt, or such a file (at most 16 MiB).
 * Checks the layout (a setup section, KEY VALUE lines, integers in the
 * counter sections within a long long, no key twice in a section) and that
 * the trace it names is there (@trace, --trace, non-NULL: that one instead,
 * the recorded one neither looked for nor needed; with @accesses, the access
 * stream its setup's "accesses" names, swapsim-record --accesses' lackey
 * file). The work is linear in the file (a hash of
 * the keys); a nonzero *@stop (a signal's flag) ends it early.
 * @return 0, or -1 with a message naming the file (and the line) in @err.
 */
int check_recording_load(const char *arg, const char *trace, bool accesses, struct check_recording *rec, char *err,
			 size_t errlen, const volatile sig_atomic_t *stop);
void check_recording_free(struct check_recording *rec);

/* The recorded machine as swapsim-replay options (sizes in pages). */
struct check_machine {
	uint64_t ram_pages; /* 0: not recorded */
	uint64_t mem_limit_pages;
	uint64_t mem_high_pages;  /* memory.high (v2); 0: none or not recorded */
	unsigned nswap;
	struct sws_replay_swap swap[SWS_REPLAY_MAX_SWAP];
	uint32_t page_cluster;	   /* page-cluster + 1 (sws_mm_config's); 0: not recorded */
	uint32_t cgroup;	   /* SWS_ZSWAP_CGROUP_V1 / _V2; 0: not recorded */
	bool zswap;		   /* zswap was enabled */
	char zswap_compressor[24]; /* the simulator's (lz4 or zstd) */
	char zswap_note[96];	   /* how the kernel's compressor maps, or "" */
	uint32_t zswap_max_pool_percent, zswap_accept_threshold; /* 0: not recorded */
	bool zswap_shrinker;
	uint32_t cpus;            /* the recorded machine's CPUs; 0: not recorded */
	uint32_t anon_orders;     /* anon mTHP "always" (or "inherit" under THP "always"): bit k,
				   * folios of 2^k pages (sws_replay_config.anon_orders) */
	uint32_t anon_orders_madvise; /* "madvise" (or "inherit" under THP "madvise") */
	uint32_t thp_defrag;      /* thp.defrag (enum sws_thp_defrag; 0: madvise, or not recorded) */
	enum sws_backend backend; /* the design of the kernel's version */
	char backend_why[160];
	bool dirty_events;        /* the perf trace has writeback:writeback_dirty_folio */
};

/** The machine of @rec. @return 0, or -1 with a message naming the file and line. */
int check_machine_get(const struct check_recording *rec, struct check_machine *m, char *err,
		      size_t errlen);

/**
 * Print the comparison: the recording, the configuration replayed (@cmdline:
 * the equivalent swapsim-replay command), then one row per counter the
 * kernel recorded that the model has, kernel against simulator with the
 * difference in percent. @json: one JSON object instead, with the replay's
 * own JSON report (@report_json, "{\"runs\": ...}") under "report".
 * @return 0, or -1 when writing failed.
 */
int check_print(const struct check_recording *rec, const struct check_machine *m,
		const char *cmdline, const struct sws_replay_report *rep, bool json,
		const char *report_json, FILE *out);

#endif

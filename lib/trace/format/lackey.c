/*
 * lackey.c - the valgrind lackey importer (valgrind --tool=lackey
 * --trace-mem=yes [--trace-syscalls=yes]): one access per instruction,
 * load, store or modify line, at the configured default pid; with
 * --trace-syscalls, the memory-map calls in their place in the stream
 * (mmap, munmap, brk, mremap, madvise); "==" banners, valgrind's "--PID--"
 * messages and other system calls are skipped (docs/trace-format.md).
 *
 * One process per stream. With --trace-children=yes valgrind writes every
 * process it follows into one stream: lackey's access lines carry no pid, so
 * they cannot be told apart. The stream is read as its first process's (the
 * first pid a banner, message or SYSCALL line names); at the first line of
 * another pid a reader warning says so (sws_trace_reader_warning()), that
 * pid's memory-map calls are skipped (they are another address space's), and
 * from then on a line that is no lackey line is skipped too: valgrind writes a
 * SYSCALL line in pieces, and another process's lines land between them.
 */
#include <string.h>

#include "../trace_internal.h"

/* Blocked calls waiting for their result line: one per thread, at most this
 * many threads at once (a later one is skipped). */
#define LACKEY_ASYNC_MAX 64

struct lackey_async {
	uint32_t tid; /* valgrind's thread id (from 1); 0: a free slot */
	uint64_t nr;  /* the system call's number */
	struct sws_trace_record rec;
};

struct lackey_state {
	struct sws_trace_record held; /* the second record of one line */
	int has_held;
	int brk_known;
	uint64_t brk; /* the program break the last brk() returned */
	uint32_t pid; /* the stream's process: the first pid a line names (0: none yet) */
	int mixed;    /* a line of another pid came (and the warning was set) */
	/* calls valgrind let block ("--> [async] ..."), their records waiting for
	 * the "SYSCALL[P,T](N) ... [async] --> Success" line of the same thread */
	struct lackey_async async[LACKEY_ASYNC_MAX];
};

/* "I  04001234,3" or " S 1fff000608,8": @return the op letter, or 0. Fills addr/size. */
static int lackey_parse(const char *line, uint64_t *addr, uint64_t *size)
{
	const char *p = line;
	while (*p == ' ')
		p++;
	char op = *p;
	if (op != 'I' && op != 'L' && op != 'S' && op != 'M')
		return 0;
	if (p - line > 1 || (op == 'I' && p != line) || !sws__is_space(p[1]))
		return 0;
	p = sws__skip_space((char *)p + 1);
	const char *comma = strchr(p, ',');
	if (!comma)
		return 0;
	const char *e = comma + 1;
	while (*e >= '0' && *e <= '9')
		e++;
	const char *t = sws__skip_space((char *)e);
	if (*t)
		return 0;
	if (sws__parse_u64(p, (size_t)(comma - p), 1, addr) ||
	    sws__parse_u64(comma + 1, (size_t)(e - comma - 1), 0, size))
		return 0;
	return op;
}

/* A number as valgrind prints a system call's argument: 0x hex, else decimal
 * (a negative one, as %ld prints -1, wraps). @return 0 or -1. */
static int arg_num(const char *s, size_t n, uint64_t *out)
{
	if (n > 2 && s[0] == '0' && s[1] == 'x')
		return sws__parse_u64(s + 2, n - 2, 1, out);
	if (n > 1 && s[0] == '-') {
		if (sws__parse_u64(s + 1, n - 1, 0, out))
			return -1;
		*out = -*out;
		return 0;
	}
	return sws__parse_u64(s, n, 0, out);
}

/* "SYSCALL[P,T](N) sys_NAME ( A, B, ... )... --> ... Success(0xR)": the name
 * (NUL-terminated in place), up to @max arguments and the result; *@async set
 * (and no result) for a call valgrind let block, whose "--> [async] ..." line
 * has its result on a later "SYSCALL[P,T](N) ... [async] --> " line. @return
 * the number of arguments, or -1 when the line is not one with a result or
 * async (a failed call or another shape). */
static int syscall_parse(char *line, const char **name, uint64_t *args, int max, uint64_t *ret, int *async)
{
	char *p = strchr(line, ')'); /* after "SYSCALL[P,T](N" */
	if (!p || strncmp(p, ") sys_", 6))
		return -1;
	*name = p + 6;
	char *open = strstr(*name, " ( ");
	char *ok = strstr(*name, "Success(0x");
	char *blocked = strstr(*name, "--> [async] ...");
	*async = !ok && blocked;
	if (!open || (!ok && !blocked))
		return -1;
	*open = 0;
	char *close = strchr(open + 3, ')');
	char *end = ok ? ok : blocked;
	if (!close || close > end || (ok && arg_num(ok + 8, strcspn(ok + 8, ")"), ret)))
		return -1;
	int n = 0;
	for (char *a = sws__skip_space(open + 3); a < close && n < max; n++, a = sws__skip_space(a)) {
		size_t len = strcspn(a, ", )");
		if (!len || arg_num(a, len, &args[n]))
			return -1;
		a += len;
		a += *a == ',';
	}
	return n;
}

static void rec_range(struct sws_trace_record *rec, uint32_t op, uint64_t addr, uint64_t len, uint32_t pid)
{
	memset(rec, 0, sizeof(*rec));
	rec->op = op;
	rec->addr = addr;
	rec->len = len;
	rec->pid = rec->tid = pid;
	rec->cpu = SWS_TRACE_CPU_ANY;
}

/* The record(s) of memory-map call @name with its @n arguments @a and result
 * @ret: 1 with @rec (and st->held) filled, 0 when it changes nothing the model
 * holds. */
static int syscall_record(struct lackey_state *st, uint32_t pid, const char *name, int n, const uint64_t *a,
			  uint64_t ret, struct sws_trace_record *rec)
{
	if (!strcmp(name, "mmap") && n == 6) {
		uint64_t flags = a[3];
		bool anon = (flags & SWS__MAP_ANONYMOUS) && (flags & SWS__MAP_TYPE) == SWS__MAP_PRIVATE &&
			    !(flags & SWS__MAP_HUGETLB);
		/* MAP_FIXED replaces what was there; a file or shared mapping is not
		 * modelled (its pages are touched as anonymous ones) */
		if (flags & SWS__MAP_FIXED) {
			rec_range(rec, SWS_TRACE_MUNMAP, ret, a[1], pid);
			if (anon) {
				rec_range(&st->held, SWS_TRACE_MMAP, ret, a[1], pid);
				st->has_held = 1;
			}
			return 1;
		}
		if (!anon)
			return 0;
		rec_range(rec, SWS_TRACE_MMAP, ret, a[1], pid);
		return 1;
	}
	if (!strcmp(name, "munmap") && n == 2) {
		rec_range(rec, SWS_TRACE_MUNMAP, a[0], a[1], pid);
		return 1;
	}
	if (!strcmp(name, "brk") && n == 1) {
		/* a break moved down frees the pages above it */
		uint64_t old = st->brk;
		int known = st->brk_known;
		st->brk = ret;
		st->brk_known = 1;
		if (!known || ret >= old)
			return 0;
		rec_range(rec, SWS_TRACE_MUNMAP, ret, old - ret, pid);
		return 1;
	}
	if (!strcmp(name, "mremap") && n >= 3) {
		/* shrunk in place: the tail goes; moved: the old range goes (its pages
		 * are not carried to the new one: see docs/trace-format.md) */
		if (ret == a[0] && a[2] < a[1])
			rec_range(rec, SWS_TRACE_MUNMAP, a[0] + a[2], a[1] - a[2], pid);
		else if (ret != a[0])
			rec_range(rec, SWS_TRACE_MUNMAP, a[0], a[1], pid);
		else
			return 0;
		return 1;
	}
	if (!strcmp(name, "madvise") && n == 3) {
		uint32_t op = sws__madvise_op(a[2]);
		if (!op || !a[1])
			return 0;
		rec_range(rec, op, a[0], a[1], pid);
		return 1;
	}
	return 0;
}

/* "SYSCALL[P,T](N": @return what follows the ')' with *@pid, *@tid and *@nr
 * filled, or NULL when the line does not start so (valgrind's thread ids
 * start at 1). */
static char *syscall_tag(char *line, uint32_t *pid, uint32_t *tid, uint64_t *nr)
{
	char *p = line + 8, *comma = strchr(p, ','), *close = strchr(p, ']');
	uint64_t v[3];
	if (!comma || !close || comma > close || close[1] != '(')
		return NULL;
	char *end = strchr(close + 2, ')');
	if (!end || sws__parse_u64(p, (size_t)(comma - p), 0, &v[0]) || v[0] > UINT32_MAX ||
	    sws__parse_u64(comma + 1, (size_t)(close - comma - 1), 0, &v[1]) || !v[1] || v[1] > UINT32_MAX ||
	    sws__parse_u64(close + 2, (size_t)(end - close - 2), 0, &v[2]))
		return NULL;
	*pid = (uint32_t)v[0];
	*tid = (uint32_t)v[1];
	*nr = v[2];
	return end;
}

/* A memory-map call of --trace-syscalls of the stream's process (@tag_end:
 * the ')' after "SYSCALL[P,T](N"): 1 with @rec (and st->held) filled, 0 when
 * it changes nothing the model holds. A call valgrind let block (madvise)
 * prints "--> [async] ..." and its result on a later line of the same
 * "SYSCALL[P,T](N" tag, other threads' and processes' lines possibly between:
 * its record waits in its thread's slot for a Success there (a
 * result-independent call only). */
static int lackey_syscall(struct sws_trace_reader *r, char *line, char *tag_end, uint32_t tid, uint64_t nr,
			  struct sws_trace_record *rec)
{
	struct lackey_state *st = r->state;
	uint32_t pid = r->cfg.default_pid;
	struct lackey_async *slot = NULL, *free_slot = NULL;
	for (int i = 0; i < LACKEY_ASYNC_MAX && !slot; i++) {
		if (st->async[i].tid == tid)
			slot = &st->async[i];
		else if (!st->async[i].tid && !free_slot)
			free_slot = &st->async[i];
	}
	if (!strncmp(tag_end, ") ... [async] --> ", 18)) {
		if (!slot || slot->nr != nr)
			return 0;
		slot->tid = 0;
		if (strncmp(tag_end + 18, "Success(", 8))
			return 0;
		*rec = slot->rec;
		return 1;
	}
	const char *name;
	uint64_t a[6], ret = 0;
	int async;
	int n = syscall_parse(line, &name, a, 6, &ret, &async);
	if (n < 0)
		return 0;
	if (!async)
		return syscall_record(st, pid, name, n, a, ret, rec);
	/* a thread has one call at a time: one still in its slot never returned */
	slot = slot ? slot : free_slot;
	int result_free = (!strcmp(name, "madvise") && n == 3) || (!strcmp(name, "munmap") && n == 2);
	if (!slot || !result_free || !syscall_record(st, pid, name, n, a, 0, &slot->rec)) {
		if (slot)
			slot->tid = 0;
		return 0;
	}
	slot->tid = tid;
	slot->nr = nr;
	return 0;
}

/* "==P== ...", "--P-- ..." or "SYSCALL[P,...": @return P, 0 when the line names no pid. */
static uint32_t line_pid(const char *line)
{
	const char *p = line + (strncmp(line, "SYSCALL[", 8) ? 2 : 8);
	if (p == line + 2 && strncmp(line, "==", 2) && strncmp(line, "--", 2))
		return 0;
	size_t n = strspn(p, "0123456789");
	uint64_t v;
	if (!n || n > 10 || sws__parse_u64(p, n, 0, &v) || v > UINT32_MAX)
		return 0;
	if (p == line + 8 ? p[n] != ',' : strncmp(p + n, line, 2))
		return 0;
	return (uint32_t)v;
}

/* @return 1 when line @pid names another process than the stream's (the first
 * time: the warning). */
static int lackey_other_process(struct sws_trace_reader *r, uint32_t pid)
{
	struct lackey_state *st = r->state;
	if (!st->pid)
		st->pid = pid;
	if (pid == st->pid)
		return 0;
	if (!st->mixed && !r->warning[0])
		snprintf(r->warning, sizeof(r->warning),
			 "%s:%llu: a line of pid %u in the lackey stream of pid %u: valgrind "
			 "--trace-children=yes wrote several processes into it and lackey's access lines "
			 "carry no pid, so all their accesses are read as one address space (pid %u); "
			 "the memory-map calls of pids other than %u and lines torn between processes are "
			 "skipped (one process per stream: --log-file=NAME.%%p)",
			 r->path, (unsigned long long)r->line, pid, st->pid, r->cfg.default_pid, st->pid);
	st->mixed = 1;
	return 1;
}

/* Valgrind's own lines: "==P== ..." banners, "--P-- ..." messages, a system
 * call's line and the " --> ..." result of one that blocked. */
static int lackey_valgrind_line(const char *line)
{
	return !strncmp(line, "==", 2) || !strncmp(line, "--", 2) || !strncmp(line, "SYSCALL[", 8) ||
	       !strncmp(line, " --> ", 5);
}

/* A lackey line or one of valgrind's. */
static int lackey_detect(const struct sws_trace_reader *r, const char *line)
{
	(void)r;
	uint64_t a, s;
	return !strncmp(line, "==", 2) || !strncmp(line, "SYSCALL[", 8) || lackey_parse(line, &a, &s);
}

static int lackey_next(struct sws_trace_reader *r, struct sws_trace_record *rec)
{
	struct lackey_state *st = r->state;
	if (st->has_held) {
		*rec = st->held;
		st->has_held = 0;
		return 1;
	}
	for (;;) {
		char *line;
		size_t len;
		int rc = sws__stream_line(r, &line, &len);
		if (rc <= 0)
			return rc;
		uint64_t addr, size;
		int op = lackey_parse(line, &addr, &size);
		if (!op) {
			uint32_t pid = line_pid(line), tid;
			uint64_t nr;
			char *tag_end;
			if (pid && !lackey_other_process(r, pid) && !strncmp(line, "SYSCALL[", 8) &&
			    (tag_end = syscall_tag(line, &pid, &tid, &nr)) &&
			    lackey_syscall(r, line, tag_end, tid, nr, rec))
				return 1;
			if (lackey_valgrind_line(line) || !*sws__skip_space(line) || st->mixed) {
				r->st.skipped_lines++;
				continue;
			}
			return sws__trace_err_line(r, SWS_EFORMAT,
						   "not a lackey line (want \"I  ADDR,SIZE\" or "
						   "\" L|S|M ADDR,SIZE\" with ADDR in hex)");
		}
		uint32_t flags = op == 'I' ? SWS_TRACE_F_IFETCH
			       : (op == 'S' || op == 'M') ? SWS_TRACE_F_WRITE
							  : 0;
		uint32_t pid = r->cfg.default_pid;
		sws__rec_access(rec, addr, size, flags, pid, pid, SWS_TRACE_CPU_ANY, 0);
		return 1;
	}
}

SWS__TRACE_FORMAT(sws__trace_lackey,
		  .id = SWS_TRACE_FORMAT_LACKEY,
		  .name = "lackey",
		  .state_size = sizeof(struct lackey_state),
		  .detect = lackey_detect,
		  .next = lackey_next);

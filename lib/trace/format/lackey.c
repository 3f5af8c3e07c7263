/*
 * lackey.c - the valgrind lackey importer (valgrind --tool=lackey
 * --trace-mem=yes [--trace-syscalls=yes]): one access per instruction,
 * load, store or modify line, at the configured default pid; with
 * --trace-syscalls, the memory-map calls in their place in the stream
 * (mmap, munmap, brk, mremap, madvise); "==" banners, valgrind's "--PID--"
 * messages and other system calls are skipped (docs/trace-format.md).
 */
#include <string.h>

#include "../trace_internal.h"


struct lackey_state {
	struct sws_trace_record held; /* the second record of one line */
	int has_held;
	int brk_known;
	uint64_t brk; /* the program break the last brk() returned */
	/* a call valgrind let block ("--> [async] ..."): its record, waiting for
	 * the "SYSCALL[P,T](N) ... [async] --> Success" line of the same tag */
	struct sws_trace_record async;
	char async_tag[48];
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

/* A memory-map call of --trace-syscalls: 1 with @rec (and st->held) filled,
 * 0 when it changes nothing the model holds. A call valgrind let block
 * (madvise) prints "--> [async] ..." and its result on a later line of the
 * same "SYSCALL[P,T](N" tag, other threads' lines possibly between: its record
 * waits for a Success there (a result-independent call only). */
static int lackey_syscall(struct sws_trace_reader *r, char *line, struct sws_trace_record *rec)
{
	struct lackey_state *st = r->state;
	uint32_t pid = r->cfg.default_pid;
	char *tag_end = strchr(line, ')');
	size_t tag_len = tag_end ? (size_t)(tag_end - line) : 0;
	if (tag_end && !strncmp(tag_end, ") ... [async] --> ", 18)) {
		if (!st->async_tag[0] || tag_len != strlen(st->async_tag) || strncmp(line, st->async_tag, tag_len))
			return 0;
		st->async_tag[0] = 0;
		if (strncmp(tag_end + 18, "Success(", 8))
			return 0;
		*rec = st->async;
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
	int result_free = (!strcmp(name, "madvise") && n == 3) || (!strcmp(name, "munmap") && n == 2);
	if (!result_free || tag_len >= sizeof(st->async_tag) || !syscall_record(st, pid, name, n, a, 0, &st->async))
		return 0;
	memcpy(st->async_tag, line, tag_len);
	st->async_tag[tag_len] = 0;
	return 0;
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
			if (!strncmp(line, "SYSCALL[", 8) && lackey_syscall(r, line, rec))
				return 1;
			if (lackey_valgrind_line(line) || !*sws__skip_space(line)) {
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

/*
 * cli_output.c - output files written whole or not at all, never over an
 * input, standard output checked (the rules are in cli_output.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_output.h"

int cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int input_of(const struct stat *st, const char *const *inputs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct stat si;
		if (!inputs[i] || !strcmp(inputs[i], "-") || stat(inputs[i], &si))
			continue;
		if (si.st_dev == st->st_dev && si.st_ino == st->st_ino)
			return (int)i;
	}
	return -1;
}

int cli_output_is_input(const char *path, const char *const *inputs, unsigned n)
{
	struct stat st;
	return path && !stat(path, &st) ? input_of(&st, inputs, n) : -1;
}

int cli_stdout_is_input(const char *const *inputs, unsigned n)
{
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) || !S_ISREG(st.st_mode))
		return -1; /* a terminal, a pipe, /dev/null: not a file anything reads */
	return input_of(&st, inputs, n);
}

/* Random letters for the temporary's name (they decide nothing else). */
static void tmp_letters(char *p, size_t n, unsigned attempt)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t rnd[16];
	if (getrandom(rnd, n, GRND_NONBLOCK) != (ssize_t)n) {
		uint64_t x = ((uint64_t)getpid() << 20) ^ ((uint64_t)(uintptr_t)p << 3) ^ attempt;
		for (size_t i = 0; i < n; i++) {
			x = x * 0x9e3779b97f4a7c15ull + 1;
			rnd[i] = (uint8_t)(x >> 56);
		}
	}
	for (size_t i = 0; i < n; i++)
		p[i] = abc[rnd[i] % (sizeof(abc) - 1)];
}

int cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;
	o->f = NULL;
	o->path = path;
	o->tmp[0] = '\0';
	if (snprintf(o->final, sizeof(o->final), "%s", path) >= (int)sizeof(o->final)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	bool exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return -1;
	if (exists && S_ISLNK(st.st_mode)) {
		char resolved[PATH_MAX];
		if (realpath(path, resolved) && !stat(resolved, &st)) {
			snprintf(o->final, sizeof(o->final), "%s", resolved); /* replaced there, the link stays */
		} else if (stat(path, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
			/* A link to nothing; /proc/self/fd/1 on a pipe ("pipe:[N]") resolves to
			 * no path yet opens, and is written in place below. */
			errno = ELOOP;
			return -1;
		}
	}
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) { /* a FIFO or a device: written in place */
		o->f = fopen(o->final, "w");
		return o->f ? 0 : -1;
	}
	/* Replacing a file this process could not write would lift its protection. */
	if (exists && faccessat(AT_FDCWD, o->final, W_OK, AT_EACCESS))
		return -1;
	const char *slash = strrchr(o->final, '/');
	size_t dn = slash ? (size_t)(slash - o->final) + 1 : 0;
	if (snprintf(o->tmp, sizeof(o->tmp), "%.*s.%.200s.XXXXXX", (int)dn, o->final, o->final + dn) >=
	    (int)sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	char *letters = o->tmp + strlen(o->tmp) - 6;
	int fd = -1;
	for (unsigned i = 0; i < 64 && fd < 0; i++) {
		tmp_letters(letters, 6, i);
		/* 0666: open() takes the umask off, as for any new file */
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		o->tmp[0] = '\0';
		return -1;
	}
	if (exists && fchmod(fd, st.st_mode & 07777)) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		errno = e;
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		errno = e;
		return -1;
	}
	return 0;
}

/* fsync() the directory holding @file, so that the rename is durable too. */
static int sync_dir(const char *file)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	size_t n = !slash ? 1 : slash == file ? 1 : (size_t)(slash - file);
	memcpy(dir, slash ? file : ".", n);
	dir[n] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	/* Some file systems cannot sync a directory: the data is safe anyway. */
	errno = e;
	return rc && e != EINVAL && e != EROFS ? -1 : 0;
}

int cli_output_commit(struct cli_output *o)
{
	int e = 0;
	if (!o->f) {
		errno = EBADF;
		return -1;
	}
	bool failed = ferror(o->f);
	/* After a failed write stdio keeps what it could not write: the flush
	 * tries again and says why (ENOSPC, EIO, EPIPE). */
	if (fflush(o->f))
		e = errno;
	else if (failed)
		e = EIO;
	if (!e && o->tmp[0] && fsync(fileno(o->f)))
		e = errno;
	if (fclose(o->f) && !e)
		e = errno;
	o->f = NULL;
	if (o->tmp[0]) {
		if (!e && rename(o->tmp, o->final))
			e = errno;
		if (e)
			unlink(o->tmp);
		else if (sync_dir(o->final))
			e = errno; /* the file is complete under its name; its entry may not be durable */
		o->tmp[0] = '\0';
	}
	errno = e;
	return e ? -1 : 0;
}

const char *cli_output_strerror(int err)
{
	if (err == ELOOP)
		return "a symbolic link that names no file (a link is followed: the file it names is written)";
	return strerror(err);
}

void cli_output_abort(struct cli_output *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}

static int stdout_errno; /* why a write to standard output failed first; 0: none did */

static ssize_t stdout_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!stdout_errno)
				stdout_errno = n < 0 ? errno : EIO;
			errno = stdout_errno;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

void cli_stdout_init(void)
{
	cookie_io_functions_t io = {.write = stdout_write};
	FILE *f = fopencookie(NULL, "w", io);
	if (!f)
		return; /* the plain stream: its errors are still seen, errno perhaps not */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	fflush(stdout);
	stdout = f;
}

int cli_stdout_close(const char *prog, int status)
{
	bool failed = ferror(stdout);
	int e = 0;
	if (fflush(stdout))
		e = stdout_errno ? stdout_errno : errno;
	else if (failed)
		e = stdout_errno ? stdout_errno : EIO;
	if (fclose(stdout) && !e && errno != EBADF)
		e = errno;
	if (!e && close(STDOUT_FILENO) && errno != EBADF)
		e = errno; /* a close can report a delayed write error (NFS) */
	if (!e)
		return status;
	fprintf(stderr, "%s: standard output: %s\n", prog, strerror(e));
	return status ? status : 1;
}

void cli_catch_stop_signals(void (*fn)(int))
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = fn;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/*
 * cli_output.c - output files written whole or not at all (cli_output.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
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

int cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;
	o->path = path;
	o->tmp[0] = '\0';
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w"); /* a pipe or a device: it cannot be replaced */
		return o->f ? 0 : -1;
	}
	char dir[4096];
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dirname(dir), basename((char *)path)) >=
	    (int)sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		o->tmp[0] = '\0';
		return -1;
	}
	fchmod(fd, 0666 & ~(mode_t)umask(umask(0)));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int cli_output_commit(struct cli_output *o)
{
	int rc = fflush(o->f) || (o->tmp[0] && fsync(fileno(o->f))) ? -1 : 0;
	int e = errno;
	if (fclose(o->f) && !rc) {
		rc = -1;
		e = errno;
	}
	o->f = NULL;
	if (o->tmp[0]) {
		if (!rc && rename(o->tmp, o->path)) {
			rc = -1;
			e = errno;
		}
		if (rc)
			unlink(o->tmp);
	}
	errno = e;
	return rc;
}

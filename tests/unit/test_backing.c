/*
 * test_backing.c - backing files: swapon never destroys a file it was not
 * asked to (an existing file, a symbolic link, something that is not a
 * regular file), names the path and the errno when it fails, removes at
 * swapoff (SWS_BACKING_UNLINK) only a file it created and only while the
 * path still names that file, and a device
 * whose page writes fail records the error and, after a streak of failures,
 * takes no new slots (end_swap_bio_write's bookkeeping, with a limit).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static const char keep[] = "the user's precious data\n";

static void write_file(const char *path)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, keep, sizeof(keep) - 1), (ssize_t)(sizeof(keep) - 1));
	close(fd);
}

static void assert_intact(const char *path)
{
	char buf[64] = {0};
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), (ssize_t)(sizeof(keep) - 1));
	close(fd);
	assert_string_equal(buf, keep);
}

static int swapon_file(struct sws_sim *sim, const char *path, uint32_t bflags, int *type)
{
	struct sws_device_config dc = {.nr_slots = 1024, .flags = SWS_SWP_SOLIDSTATE,
				       .backing = SWS_BACKING_FILE, .path = path, .backing_flags = bflags};
	return sws_swapon(sim, &dc, type);
}

/* An existing file is refused and left as it was; reuse must be asked for. */
static void test_existing_file(void **state)
{
	(void)state;
	char path[256];
	struct sws_sim *sim;
	int type;
	sws_test_path(path, sizeof(path), "backing-existing");
	write_file(path);
	assert_sws(0, sws_sim_create(NULL, &sim));
	assert_sws(SWS_EFILEEXIST, swapon_file(sim, path, 0, &type));
	assert_non_null(strstr(sws_sim_error(sim), path));
	assert_intact(path);
	/* Asked: the file is reused, emptied and sized for the device. */
	assert_sws(0, swapon_file(sim, path, SWS_BACKING_REUSE, &type));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1024 * SWS_PAGE_SIZE);
	assert_true(st.st_blocks < 8); /* sparse: the old bytes are gone */
	assert_sws(0, sws_swapoff(sim, type));
	/* The file swapon made stays after swapoff, so a second swapon needs reuse. */
	assert_int_equal(stat(path, &st), 0);
	sws_sim_destroy(sim);
	unlink(path);
}

/* A symbolic link is never followed unless asked: neither to create nor to reuse. */
static void test_symlink(void **state)
{
	(void)state;
	char target[256], link[256];
	struct sws_sim *sim;
	int type;
	sws_test_path(target, sizeof(target), "backing-target");
	sws_test_path(link, sizeof(link), "backing-link");
	write_file(target);
	unlink(link);
	assert_int_equal(symlink(target, link), 0);
	assert_sws(0, sws_sim_create(NULL, &sim));
	assert_sws(SWS_EFILEEXIST, swapon_file(sim, link, 0, &type));
	assert_sws(SWS_EIO, swapon_file(sim, link, SWS_BACKING_REUSE, &type));
	assert_non_null(strstr(sws_sim_error(sim), "symbolic link"));
	assert_intact(target);
	/* A dangling link is not created through either. */
	unlink(target);
	assert_sws(SWS_EFILEEXIST, swapon_file(sim, link, 0, &type));
	assert_int_equal(access(target, F_OK), -1);
	write_file(target);
	assert_sws(0, swapon_file(sim, link, SWS_BACKING_REUSE | SWS_BACKING_FOLLOW, &type));
	assert_sws(0, sws_swapoff(sim, type));
	sws_sim_destroy(sim);
	unlink(link);
	unlink(target);
}

/* SWS_BACKING_UNLINK removes at swapoff (or sim destroy) the file swapon created, and
 * nothing else: not a reused file, not whatever took the path meanwhile. */
static void test_unlink(void **state)
{
	(void)state;
	char path[256], other[256];
	struct sws_sim *sim;
	int type;
	struct stat st;
	sws_test_path(path, sizeof(path), "backing-scratch");
	sws_test_path(other, sizeof(other), "backing-other");
	unlink(path);
	assert_sws(0, sws_sim_create(NULL, &sim));
	/* Created, asked: gone at swapoff. */
	assert_sws(0, swapon_file(sim, path, SWS_BACKING_UNLINK, &type));
	assert_int_equal(stat(path, &st), 0);
	assert_sws(0, sws_swapoff(sim, type));
	assert_int_equal(lstat(path, &st), -1);
	/* Created, asked, the sim destroyed without a swapoff: gone too. */
	assert_sws(0, swapon_file(sim, path, SWS_BACKING_UNLINK, &type));
	sws_sim_destroy(sim);
	assert_int_equal(lstat(path, &st), -1);
	assert_sws(0, sws_sim_create(NULL, &sim));
	/* Reused (swapon did not create it): it stays. */
	write_file(path);
	assert_sws(0, swapon_file(sim, path, SWS_BACKING_REUSE | SWS_BACKING_UNLINK, &type));
	assert_sws(0, sws_swapoff(sim, type));
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	/* Created, then the path replaced by another file (renamed over it): that one stays. */
	assert_sws(0, swapon_file(sim, path, SWS_BACKING_UNLINK, &type));
	write_file(other);
	assert_int_equal(rename(other, path), 0);
	assert_sws(0, sws_swapoff(sim, type));
	assert_intact(path);
	unlink(path);
	/* Created, then the path replaced by a symbolic link to a file: neither is touched. */
	assert_sws(0, swapon_file(sim, path, SWS_BACKING_UNLINK, &type));
	write_file(other);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(other, path), 0);
	assert_sws(0, sws_swapoff(sim, type));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_intact(other);
	unlink(path);
	unlink(other);
	/* Without the flag the created file stays (the default). */
	assert_sws(0, swapon_file(sim, path, 0, &type));
	assert_sws(0, sws_swapoff(sim, type));
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
	sws_sim_destroy(sim);
}

/* Not a regular file (a directory here; a block device alike) is refused, untouched. */
static void test_not_regular(void **state)
{
	(void)state;
	char dir[256];
	struct sws_sim *sim;
	int type;
	sws_test_path(dir, sizeof(dir), "backing-dir");
	rmdir(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_sws(0, sws_sim_create(NULL, &sim));
	int rc = swapon_file(sim, dir, SWS_BACKING_REUSE, &type);
	assert_true(rc == SWS_EINVAL || rc == SWS_EIO); /* EISDIR from open(O_RDWR), or fstat */
	assert_non_null(strstr(sws_sim_error(sim), dir));
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* A file in a directory that does not exist: the path and the errno are named. */
	assert_sws(SWS_EIO, swapon_file(sim, "/nonexistent-dir/swapfile", 0, &type));
	assert_non_null(strstr(sws_sim_error(sim), "/nonexistent-dir/swapfile"));
	assert_non_null(strstr(sws_sim_error(sim), strerror(ENOENT)));
	sws_sim_destroy(sim);
	rmdir(dir);
}

/*
 * Writes that fail (the file may not grow past RLIMIT_FSIZE: EFBIG, as a full
 * file system gives ENOSPC) are recorded; after SWS_DEVICE_WRITE_FAIL_LIMIT of
 * them in a row the device takes no new slots; a write that works in between
 * ends the streak.
 */
static void test_write_errors(void **state)
{
	enum sws_backend b = *(enum sws_backend *)*state;
	char path[256];
	struct sws_sim_config cfg = {.backend = b};
	struct sws_fixture f;
	static unsigned char page[SWS_PAGE_SIZE];
	sws_test_path(path, sizeof(path), "backing-fsize");
	unlink(path);
	assert_sws(0, sws_sim_create(&cfg, &f.sim));
	assert_sws(0, sws_cpu_attach(f.sim, &f.cpu));
	assert_sws(0, swapon_file(f.sim, path, 0, &f.type));
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 8 * SWS_PAGE_SIZE; /* slots 1..7 can be written, not beyond */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);

	sws_entry_t low, e[SWS_DEVICE_WRITE_FAIL_LIMIT + 2];
	assert_sws(0, sws_folio_alloc_swap(f.cpu, 1, 0, &low)); /* slot 1 */
	for (unsigned i = 0; i < 64; i++) { /* move on past the writable range */
		sws_entry_t x;
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 100 + i, 0, &x));
	}
	for (unsigned i = 0; i < SWS_DEVICE_WRITE_FAIL_LIMIT + 2; i++)
		assert_sws(0, sws_folio_alloc_swap(f.cpu, 1000 + i, 0, &e[i]));
	for (unsigned i = 0; i < SWS_DEVICE_WRITE_FAIL_LIMIT - 1; i++)
		assert_sws(SWS_EIO, sws_swap_writepage(f.cpu, e[i], page));
	assert_sws(0, sws_swap_writepage(f.cpu, low, page)); /* works: the streak ends */
	struct sws_device_info di;
	assert_sws(0, sws_device_info_get(f.sim, f.type, &di));
	assert_int_equal(di.write_errors, SWS_DEVICE_WRITE_FAIL_LIMIT - 1);
	assert_int_equal(di.write_errno, EFBIG);
	assert_false(di.write_failed);
	for (unsigned i = 0; i < SWS_DEVICE_WRITE_FAIL_LIMIT; i++)
		assert_sws(SWS_EIO, sws_swap_writepage(f.cpu, e[i], page));
	assert_sws(0, sws_device_info_get(f.sim, f.type, &di));
	assert_true(di.write_failed);
	assert_int_equal(di.write_errors, 2 * SWS_DEVICE_WRITE_FAIL_LIMIT - 1);
	/* Given up: no new slots, and no more I/O even where it would work. */
	sws_entry_t none;
	assert_sws(SWS_ENOSPC, sws_folio_alloc_swap(f.cpu, 5000, 0, &none));
	assert_sws(SWS_EIO, sws_swap_writepage(f.cpu, low, page));
	assert_sws(0, sws_swap_readpage(f.cpu, low, page)); /* what was written stays readable */
	struct sws_stats st;
	sws_stats_snapshot(f.sim, &st);
	assert_int_equal(st.counters[SWS_CTR_swap_writepage_error], 2 * SWS_DEVICE_WRITE_FAIL_LIMIT - 1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_consistent(f.sim);
	sws_cpu_detach(f.cpu);
	sws_sim_destroy(f.sim);
	unlink(path);
}

static enum sws_backend backend_table = SWS_BACKEND_SWAP_TABLE;
static enum sws_backend backend_xarray = SWS_BACKEND_XARRAY;

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_existing_file),
		cmocka_unit_test(test_symlink),
		cmocka_unit_test(test_unlink),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test_prestate(test_write_errors, &backend_table),
		cmocka_unit_test_prestate(test_write_errors, &backend_xarray),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

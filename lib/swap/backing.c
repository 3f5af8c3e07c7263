/*
 * backing.c - where a device's page contents live: nowhere (metadata only), in
 * memory (one 2 MiB buffer per cluster, allocated on first write and dropped
 * by discard), or in a real sparse file (pread/pwrite of 4 KiB at
 * slot * 4096; discard punches the cluster's 2 MiB out of the file).
 * Page I/O is swap_writepage()/swap_read_folio() of mm/page_io.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swap_internal.h"

#define CLUSTER_BYTES ((size_t)SWS_CLUSTER_SLOTS * SWS_PAGE_SIZE)

/*
 * Remove @path if it still names the file @st describes (same st_dev and
 * st_ino, by lstat: a symbolic link put there meanwhile is not the file).
 * Called while the file is still open, so its inode number cannot have been
 * given to another file in between; a path replaced after the lstat is the
 * one race left, as for any rm.
 */
static void remove_if_same(const char *path, uint64_t dev, uint64_t ino)
{
	struct stat now;
	if (lstat(path, &now) == 0 && (uint64_t)now.st_dev == dev && (uint64_t)now.st_ino == ino)
		unlink(path);
}

/*
 * Open (create) the backing file. New by default: O_CREAT | O_EXCL never
 * follows a symbolic link and never touches an existing file. With
 * SWS_BACKING_REUSE an existing regular file is opened instead and emptied
 * (O_NOFOLLOW unless SWS_BACKING_FOLLOW). A file swapon created is removed
 * again if swapon fails after creating it, and with SWS_BACKING_UNLINK at
 * swapoff (sws__backing_close), each time only if the path still names it.
 */
static int open_file(struct sws_sim *sim, struct sws_device *dev, const struct sws_device_config *cfg)
{
	const char *path = cfg->path;
	bool reuse = cfg->backing_flags & SWS_BACKING_REUSE;
	int flags = O_RDWR | O_CLOEXEC | ((cfg->backing_flags & SWS_BACKING_FOLLOW) ? 0 : O_NOFOLLOW);
	bool created = true;
	int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST && reuse) {
		created = false;
		fd = open(path, flags);
	}
	if (fd < 0) {
		int e = errno;
		if (e == EEXIST) {
			sws__sim_set_error(sim, "%s: the file exists (reuse it only when asked: SWS_BACKING_REUSE, "
				      "',reuse' in a --swap spec); it was left as it is", path);
			return SWS_EFILEEXIST;
		}
		if (e == ELOOP) {
			sws__sim_set_error(sim, "%s: is a symbolic link, not followed unless asked "
				      "(SWS_BACKING_FOLLOW, ',follow')", path);
			return SWS_EIO;
		}
		sws__sim_set_error(sim, "%s: cannot %s the backing file: %s (errno %d)", path,
			      created ? "create" : "open", strerror(e), e);
		return SWS_EIO;
	}
	struct stat st;
	int rc = 0;
	bool known = fstat(fd, &st) == 0; /* st describes the open file */
	if (!known) {
		sws__sim_set_error(sim, "%s: fstat: %s (errno %d)%s", path, strerror(errno), errno,
				   created ? "; the file swapon created was left there" : "");
		rc = SWS_EIO;
	} else if (!S_ISREG(st.st_mode)) {
		sws__sim_set_error(sim, "%s: not a regular file: a backing file must be one", path);
		rc = SWS_EINVAL;
	} else if ((!created && ftruncate(fd, 0) != 0) ||
		   ftruncate(fd, (off_t)(dev->max * SWS_PAGE_SIZE)) != 0) {
		sws__sim_set_error(sim, "%s: cannot size the backing file to %llu bytes: %s (errno %d)", path,
			      (unsigned long long)(dev->max * SWS_PAGE_SIZE), strerror(errno), errno);
		rc = SWS_EIO;
	} else if (created && (cfg->backing_flags & SWS_BACKING_UNLINK)) {
		size_t len = strlen(path) + 1;
		dev->backing.path = sws__mem_alloc(&sim->mem, SWS_MEM_sim, len, 0);
		if (dev->backing.path) {
			memcpy(dev->backing.path, path, len);
			dev->backing.path_len = len;
			dev->backing.st_dev = (uint64_t)st.st_dev;
			dev->backing.st_ino = (uint64_t)st.st_ino;
		} else {
			rc = SWS_ENOMEM;
		}
	}
	if (rc) {
		if (created && known)
			remove_if_same(path, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
		close(fd);
		return rc;
	}
	dev->backing.fd = fd;
	return 0;
}

int sws__backing_open(struct sws_sim *sim, struct sws_device *dev, const struct sws_device_config *cfg)
{
	dev->backing.kind = cfg->backing;
	dev->backing.fd = -1;
	if (cfg->backing == SWS_BACKING_MEMORY) {
		dev->backing.chunks = sws__mem_zalloc(&sim->mem, SWS_MEM_sim,
						      sizeof(*dev->backing.chunks) * dev->nr_clusters, 0);
		return dev->backing.chunks ? 0 : SWS_ENOMEM;
	}
	if (cfg->backing != SWS_BACKING_FILE)
		return 0;
	return open_file(sim, dev, cfg);
}

void sws__backing_close(struct sws_device *dev)
{
	struct sws_sim *sim = dev->sim;
	if (dev->backing.chunks) {
		for (uint32_t i = 0; i < dev->nr_clusters; i++)
			sws__mem_free(&sim->mem, SWS_MEM_backing, atomic_load(&dev->backing.chunks[i]),
				      CLUSTER_BYTES);
		sws__mem_free(&sim->mem, SWS_MEM_sim, dev->backing.chunks,
			      sizeof(*dev->backing.chunks) * dev->nr_clusters);
		dev->backing.chunks = NULL;
	}
	if (dev->backing.path) { /* SWS_BACKING_UNLINK: a scratch file swapon created */
		remove_if_same(dev->backing.path, dev->backing.st_dev, dev->backing.st_ino);
		sws__mem_free(&sim->mem, SWS_MEM_sim, dev->backing.path, dev->backing.path_len);
		dev->backing.path = NULL;
	}
	if (dev->backing.fd >= 0)
		close(dev->backing.fd);
	dev->backing.fd = -1;
}

void sws__backing_discard(struct sws_device *dev, uint32_t idx)
{
	if (dev->backing.chunks) {
		uint8_t *chunk = atomic_exchange(&dev->backing.chunks[idx], NULL);
		sws__mem_free(&dev->sim->mem, SWS_MEM_backing, chunk, CLUSTER_BYTES);
	} else if (dev->backing.fd >= 0) {
		/* A failed punch only loses the discard's effect, never data. */
		(void)fallocate(dev->backing.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)idx * (off_t)CLUSTER_BYTES, (off_t)CLUSTER_BYTES);
	}
}

/* Get (allocating on first use) the buffer of a memory-backed cluster. */
static uint8_t *memory_chunk(struct sws_device *dev, uint32_t idx, bool create)
{
	uint8_t *chunk = atomic_load_explicit(&dev->backing.chunks[idx], memory_order_acquire);
	if (chunk || !create)
		return chunk;
	uint8_t *fresh = sws__mem_zalloc(&dev->sim->mem, SWS_MEM_backing, CLUSTER_BYTES, 4096);
	if (!fresh)
		return NULL;
	if (!atomic_compare_exchange_strong(&dev->backing.chunks[idx], &chunk, fresh)) {
		sws__mem_free(&dev->sim->mem, SWS_MEM_backing, fresh, CLUSTER_BYTES);
		return chunk;
	}
	return fresh;
}

/* One page at byte @off; @return 0 or SWS_EIO with the errno in *err. */
static int full_pio(int fd, void *buf, uint64_t off, bool write, int *err)
{
	size_t done = 0;
	while (done < SWS_PAGE_SIZE) {
		ssize_t n = write ? pwrite(fd, (const char *)buf + done, SWS_PAGE_SIZE - done,
					   (off_t)(off + done))
				  : pread(fd, (char *)buf + done, SWS_PAGE_SIZE - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = errno;
			return SWS_EIO;
		}
		if (n == 0) { /* read past the end of a file someone truncated */
			*err = ENOSPC; /* a write that makes no progress: the file system is full */
			if (write)
				return SWS_EIO;
			memset((char *)buf + done, 0, SWS_PAGE_SIZE - done);
			return 0;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * end_swap_bio_write()'s bookkeeping: a failed write is recorded on the
 * device; after SWS_DEVICE_WRITE_FAIL_LIMIT in a row the device takes no new
 * slots. A write that works ends the streak.
 */
static void write_done(struct sws_cpu *cpu, struct sws_device *dev, int err)
{
	struct sws_backing_store *b = &dev->backing;
	if (!err) {
		if (sws_load_relaxed(&b->fail_streak))
			sws_store_relaxed(&b->fail_streak, 0);
		return;
	}
	sws__count(cpu, SWS_CTR_swap_writepage_error, 1);
	atomic_fetch_add(&b->write_errors, 1);
	atomic_store(&b->write_errno, err);
	if (atomic_fetch_add(&b->fail_streak, 1) + 1 >= SWS_DEVICE_WRITE_FAIL_LIMIT &&
	    !atomic_exchange(&b->write_failed, true))
		sws__device_stop_writes(dev);
}

/*
 * Page I/O on one allocated slot. The slot is checked under its cluster lock;
 * memory copies happen under that lock too, so a racing free cannot drop the
 * cluster's buffer mid-copy. File I/O runs unlocked (pread/pwrite of a slot
 * being freed meanwhile touches only that slot's bytes).
 */
static int page_io(struct sws_cpu *cpu, sws_entry_t entry, void *page, bool write)
{
	if (!cpu || !page)
		return SWS_EINVAL;
	uint64_t off = sws_swp_offset(entry);
	int rc = 0;
	sws_rcu_read_lock();
	struct sws_device *dev = sws__device(cpu->h.sim, sws_swp_type(entry));
	if (!dev || off == 0 || !sws__offset_mapped(dev, off)) {
		rc = SWS_EBADENTRY;
		goto out;
	}
	if (dev->backing.kind == SWS_BACKING_NONE) {
		rc = SWS_ENOBACKING;
		goto out;
	}
	if (write && atomic_load_explicit(&dev->backing.write_failed, memory_order_relaxed)) {
		rc = SWS_EIO; /* the device gave up: no more I/O to it */
		goto out;
	}
	struct sws_slot_state st;
	struct sws_cluster *ci = sws__offset_cluster(dev, off);
	sws__cluster_lock(cpu, ci);
	sws___slot_state(dev, ci, off, &st);
	if (!st.allocated) {
		rc = SWS_ENOENT;
	} else if (dev->backing.kind == SWS_BACKING_MEMORY) {
		uint8_t *chunk = memory_chunk(dev, (uint32_t)(off / SWS_CLUSTER_SLOTS), write);
		uint8_t *at = chunk ? chunk + (off % SWS_CLUSTER_SLOTS) * SWS_PAGE_SIZE : NULL;
		if (write && !chunk)
			rc = SWS_ENOMEM;
		else if (write)
			memcpy(at, page, SWS_PAGE_SIZE);
		else if (at)
			memcpy(page, at, SWS_PAGE_SIZE);
		else
			memset(page, 0, SWS_PAGE_SIZE);
	}
	sws__cluster_unlock(ci);
	int err = 0;
	if (!rc && dev->backing.kind == SWS_BACKING_FILE)
		rc = full_pio(dev->backing.fd, page, off * SWS_PAGE_SIZE, write, &err);
	if (!rc)
		sws__count(cpu, write ? SWS_CTR_swap_writepage : SWS_CTR_swap_readpage, 1);
	if (write && dev->backing.kind == SWS_BACKING_FILE)
		write_done(cpu, dev, rc ? err : 0);
out:
	sws_rcu_read_unlock();
	return rc;
}

int sws_swap_writepage(struct sws_cpu *cpu, sws_entry_t entry, const void *page)
{
	return page_io(cpu, entry, (void *)page, true);
}

int sws_swap_readpage(struct sws_cpu *cpu, sws_entry_t entry, void *page)
{
	return page_io(cpu, entry, page, false);
}

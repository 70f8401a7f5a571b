/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file client for the fork's KUnit suites: they write and read files
 * of tracefs and debugfs through the file operations a shell uses, so
 * they check what userspace sees.
 *
 * Those file operations copy from and to user memory, so the test's
 * kthread borrows an address space with one buffer mapped in it.  The
 * kthread's exit releases the address space, also when an assertion
 * ends the test early.
 */
#ifndef _KUNIT_KFORK_FS_KUNIT_H
#define _KUNIT_KFORK_FS_KUNIT_H

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define KFORK_TEST_BUF_SIZE	(32 * 1024)

struct kfork_test_fs {
	struct vfsmount *mnt;	/* the suite's own file system, if any */
	char __user *ubuf;	/* KFORK_TEST_BUF_SIZE bytes of user memory */
	char *buf;		/* the file read last, NUL-terminated */
};

/* An empty user address space for this kthread, as a new process has. */
static inline int kfork_test_use_mm(void)
{
	struct mm_struct *mm;

	if (current->mm)
		return 0;
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(mm);
	return 0;
}

/* A private mount of FSTYPE ("tracefs", "debugfs"), as mount(8) makes. */
static inline struct vfsmount *kfork_test_mount(const char *fstype)
{
	struct file_system_type *type = get_fs_type(fstype);
	struct vfsmount *mnt;

	if (!type)
		return ERR_PTR(-ENODEV);
	mnt = vfs_kern_mount(type, 0, fstype, NULL);
	put_filesystem(type);
	return mnt;
}

/* The buffers of FS, freed with the test; FS->mnt is left to the caller. */
static inline void kfork_test_fs_buffers(struct kunit *test, struct kfork_test_fs *fs)
{
	unsigned long addr;

	fs->buf = kunit_kzalloc(test, KFORK_TEST_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fs->buf);
	KUNIT_ASSERT_EQ(test, kfork_test_use_mm(), 0);
	addr = vm_mmap(NULL, 0, KFORK_TEST_BUF_SIZE, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "vm_mmap: %ld", (long)addr);
	fs->ubuf = (char __user *)addr;
}

/* Open PATH of the file system mounted at MNT. */
static inline struct file *kfork_test_open_at(struct kunit *test, struct vfsmount *mnt,
					      const char *path, int flags)
{
	struct file *file = file_open_root_mnt(mnt, path, flags, 0);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open %s: %ld", path, PTR_ERR(file));
	return file;
}

/* Close now, not from a delayed work: the next command sees its effect. */
static inline void kfork_test_close(struct file *file)
{
	__fput_sync(file);
}

/*
 * Write TEXT to the file PATH of MNT in one write(2), as echo >> does.
 * Returns what write returned: the length, or the command's error.
 */
static inline ssize_t kfork_test_write_at(struct kunit *test, struct kfork_test_fs *fs,
					  struct vfsmount *mnt, const char *path,
					  const char *text)
{
	size_t len = strlen(text);
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;

	KUNIT_ASSERT_LT(test, len, (size_t)KFORK_TEST_BUF_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(fs->ubuf, text, len), 0);
	file = kfork_test_open_at(test, mnt, path, O_WRONLY | O_APPEND);
	ret = vfs_write(file, fs->ubuf, len, &pos);
	kfork_test_close(file);
	return ret;
}

/* Read the whole file PATH of MNT into fs->buf; returns its length. */
static inline size_t kfork_test_read_at(struct kunit *test, struct kfork_test_fs *fs,
					struct vfsmount *mnt, const char *path)
{
	struct file *file = kfork_test_open_at(test, mnt, path, O_RDONLY);
	size_t len = 0;
	loff_t pos = 0;
	ssize_t got;

	do {
		got = vfs_read(file, fs->ubuf + len, KFORK_TEST_BUF_SIZE - 1 - len, &pos);
		if (got > 0)
			len += got;
	} while (got > 0 && len < KFORK_TEST_BUF_SIZE - 1);
	kfork_test_close(file);
	KUNIT_ASSERT_GE_MSG(test, got, 0, "read %s", path);
	KUNIT_ASSERT_LT_MSG(test, len, (size_t)KFORK_TEST_BUF_SIZE - 1,
			    "%s does not fit the test's buffer", path);
	KUNIT_ASSERT_EQ(test, copy_from_user(fs->buf, fs->ubuf, len), 0);
	fs->buf[len] = '\0';
	return len;
}

static inline int kfork_test_debugfs_mount(struct kunit_resource *res, void *unused)
{
	struct vfsmount *mnt = kfork_test_mount("debugfs");

	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	res->data = mnt;
	return 0;
}

static inline void kfork_test_debugfs_unmount(struct kunit_resource *res)
{
	mntput(res->data);
}

static inline bool kfork_test_is_debugfs(struct kunit *test, struct kunit_resource *res,
					 void *unused)
{
	return res->free == kfork_test_debugfs_unmount;
}

/*
 * debugfs, mounted at a case's first use and unmounted when the case
 * ends.  On SMP a mount has per-CPU counters, freed a grace period
 * after its last mntput: a case that counts per-CPU allocations must
 * not mount and unmount debugfs between its two counts.
 */
static inline struct vfsmount *kfork_test_debugfs(struct kunit *test)
{
	struct kunit_resource *res = kunit_find_resource(test, kfork_test_is_debugfs, NULL);
	struct vfsmount *mnt;

	if (res) {
		mnt = res->data;
		kunit_put_resource(res);
		return mnt;
	}
	mnt = kunit_alloc_resource(test, kfork_test_debugfs_mount, kfork_test_debugfs_unmount,
				   GFP_KERNEL, NULL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, mnt, "mount debugfs");
	return mnt;
}

/*
 * For a case that looks for leaks: skipped in a boot without kmemleak
 * (tools/kunit run --kmemleak), where writing "stack=on" (its default)
 * is refused with EPERM.
 */
static inline void kfork_test_kmemleak_begin(struct kunit *test, struct kfork_test_fs *fs)
{
	if (kfork_test_write_at(test, fs, kfork_test_debugfs(test), "kmemleak", "stack=on") < 0)
		kunit_skip(test, "kmemleak is off in this boot (tools/kunit run --kmemleak)");
}

/*
 * kmemleak finds no object that nothing points to, of all this boot
 * allocated so far.  It reports an object only once it is
 * MSECS_MIN_AGE (5 s) old, hence the wait, and only when its contents
 * are what the scan before saw (kmemleak_scan() takes an object whose
 * checksum changed for one still being written): the first scan of a
 * boot sees every object change and reports nothing, hence two.
 */
static inline void kfork_test_expect_no_leaks(struct kunit *test, struct kfork_test_fs *fs)
{
	struct vfsmount *debugfs = kfork_test_debugfs(test);
	size_t len;

	msleep(6000);
	KUNIT_EXPECT_GT(test, kfork_test_write_at(test, fs, debugfs, "kmemleak", "scan"),
			(ssize_t)0);
	KUNIT_EXPECT_GT(test, kfork_test_write_at(test, fs, debugfs, "kmemleak", "scan"),
			(ssize_t)0);
	len = kfork_test_read_at(test, fs, debugfs, "kmemleak");
	KUNIT_EXPECT_EQ_MSG(test, len, (size_t)0, "kmemleak:\n%.2000s", fs->buf);
}

/*
 * How many per-CPU allocations are live (nr_cur_alloc in debugfs'
 * percpu_stats), or -1 in a kernel without CONFIG_PERCPU_STATS.
 * kmemleak never reports a per-CPU object as a leak, so a case that
 * makes and frees per-CPU memory compares this before and after.
 */
static inline long kfork_test_percpu_live(struct kunit *test, struct kfork_test_fs *fs)
{
	struct vfsmount *debugfs;
	unsigned long live;
	const char *at;

	if (!IS_ENABLED(CONFIG_PERCPU_STATS))
		return -1;
	debugfs = kfork_test_debugfs(test);
	kfork_test_read_at(test, fs, debugfs, "percpu_stats");
	at = strstr(fs->buf, "nr_cur_alloc");
	KUNIT_ASSERT_TRUE_MSG(test, at && sscanf(at, "nr_cur_alloc : %lu", &live) == 1,
			      "percpu_stats:\n%.1000s", fs->buf);
	return live;
}

/*
 * No more per-CPU allocations are live than BEFORE, what
 * kfork_test_percpu_live() said when the case began (nothing to check
 * if it said -1).  Not equal: memory freed after an RCU grace period
 * may still go away meanwhile.
 */
static inline void kfork_test_expect_percpu_freed(struct kunit *test, struct kfork_test_fs *fs,
						  long before)
{
	if (before >= 0)
		KUNIT_EXPECT_LE_MSG(test, kfork_test_percpu_live(test, fs), before,
				    "per-CPU allocations outlived what made them");
}

/* Slab allocations can be made to fail, and the knobs are in debugfs. */
#define KFORK_TEST_FAILSLAB	(IS_ENABLED(CONFIG_FAILSLAB) && \
				 IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS))

#if KFORK_TEST_FAILSLAB
/*
 * Allocation failures on demand.  current->fail_nth is what
 * /proc/self/task/TID/fail-nth sets: the Nth slab allocation of this
 * task from now fails, and only that one.  failslab leaves GFP_KERNEL
 * allocations alone unless ignore-gfp-wait is off, and with verbose at
 * 0 it does not print a stack for each failure; a sweep sets both and
 * puts back the defaults after (if it stops half-way, they stay: with
 * no fail_nth and a probability of 0, nothing fails).  Per-CPU and page
 * allocations are not slab ones and never fail here.
 */
static inline void kfork_test_failslab(struct kunit *test, struct kfork_test_fs *fs, bool on)
{
	struct vfsmount *debugfs = kfork_test_debugfs(test);

	KUNIT_EXPECT_EQ(test, kfork_test_write_at(test, fs, debugfs, "failslab/ignore-gfp-wait",
						  on ? "N" : "Y"), 1);
	KUNIT_EXPECT_EQ(test, kfork_test_write_at(test, fs, debugfs, "failslab/verbose",
						  on ? "0" : "2"), 1);
}

static inline void kfork_test_fail_nth(unsigned int nth)
{
	WRITE_ONCE(current->fail_nth, nth);
}

/* Stop failing; whether the Nth allocation came (and failed). */
static inline bool kfork_test_fail_nth_end(void)
{
	bool injected = !READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return injected;
}
#endif /* KFORK_TEST_FAILSLAB */

#endif /* _KUNIT_KFORK_FS_KUNIT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the fork's probe-event KUnit suites share: a tracefs client
 * inside the kernel (kunit/kfork_fs_kunit.h).  A suite writes commands
 * to kprobe_events and uprobe_events and reads error_log and the
 * events' format files through the file operations a shell uses, so
 * it checks what userspace sees and runs unchanged against the fork's
 * probe core and the distro's.
 */
#ifndef _KERNEL_TRACE_PROBE_KUNIT_H
#define _KERNEL_TRACE_PROBE_KUNIT_H

#include <kunit/kfork_fs_kunit.h>
#include <kunit/test.h>
#include <linux/trace.h>

/*
 * A function of this name in each suite that includes this file: a
 * symbol that is not unique, which kprobe events refuse by name.
 */
static noinline __used int probe_test_twin(int x)
{
	return x + 1;
}

/*
 * trace_dynevent.c's lock, which the probe core's error log wants held;
 * for suites that call the parser directly.  The distro's headers do
 * not declare it.
 */
extern struct mutex dyn_event_ops_mutex;

static inline struct kfork_test_fs *probe_test_fs(struct kunit *test)
{
	return test->priv;
}

/* A formatted string freed with the test. */
static inline __printf(2, 3) char *probe_test_printf(struct kunit *test, const char *fmt, ...)
{
	va_list args;
	char *str;
	int len;

	va_start(args, fmt);
	len = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	str = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, str);
	va_start(args, fmt);
	vsnprintf(str, len + 1, fmt, args);
	va_end(args);
	return str;
}

/* For a suite's init: tracefs, and the buffers to talk to it through. */
static inline int probe_test_fs_init(struct kunit *test)
{
	struct kfork_test_fs *fs = kunit_kzalloc(test, sizeof(*fs), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fs);
	kfork_test_fs_buffers(test, fs);
	fs->mnt = kfork_test_mount("tracefs");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(fs->mnt), "mount tracefs: %ld",
			       PTR_ERR(fs->mnt));
	test->priv = fs;
	return 0;
}

static inline void probe_test_fs_exit(struct kunit *test)
{
	struct kfork_test_fs *fs = probe_test_fs(test);

	if (fs && !IS_ERR_OR_NULL(fs->mnt))
		mntput(fs->mnt);
}

/* Open PATH of tracefs. */
static inline struct file *probe_test_open(struct kunit *test, const char *path,
					   int flags)
{
	return kfork_test_open_at(test, probe_test_fs(test)->mnt, path, flags);
}

/* Write TEXT to the tracefs file PATH in one write(2), as echo >> does. */
static inline ssize_t probe_test_write(struct kunit *test, const char *path,
				       const char *text)
{
	struct kfork_test_fs *fs = probe_test_fs(test);

	return kfork_test_write_at(test, fs, fs->mnt, path, text);
}

/* Read the whole tracefs file PATH into fs->buf; returns its length. */
static inline size_t probe_test_read(struct kunit *test, const char *path)
{
	struct kfork_test_fs *fs = probe_test_fs(test);

	return kfork_test_read_at(test, fs, fs->mnt, path);
}

#if KFORK_TEST_FAILSLAB
/*
 * A command of FILE (kprobe_events, uprobe_events, dynamic_events)
 * with each of its allocations failing in turn, after BEFORE.  It
 * either fails with -ENOMEM and leaves FILE's listing as it was before
 * it, or, where
 * the failure is one the kernel works around (an event's tracefs
 * files, which only warn), is done as if nothing failed: FILE lists
 * AFTER.
 */
struct probe_test_sweep_case {
	const char *file;
	const char *before;	/* defined first, or NULL */
	const char *cmd;
	const char *after;
};

static inline void probe_test_alloc_sweep_desc(const struct probe_test_sweep_case *c,
					       char *desc)
{
	strscpy(desc, c->cmd, KUNIT_PARAM_DESC_SIZE);
}

/* Write CMD to PATH with its NTH allocation failing; whether that one came. */
static inline ssize_t probe_test_write_failing(struct kunit *test, const char *path,
					       const char *cmd, unsigned int nth, bool *injected)
{
	struct kfork_test_fs *fs = probe_test_fs(test);
	struct file *file;
	loff_t pos = 0;
	ssize_t ret;

	KUNIT_ASSERT_EQ(test, copy_to_user(fs->ubuf, cmd, strlen(cmd)), 0);
	file = probe_test_open(test, path, O_WRONLY | O_APPEND);
	kfork_test_fail_nth(nth);
	ret = vfs_write(file, fs->ubuf, strlen(cmd), &pos);
	*injected = kfork_test_fail_nth_end();
	kfork_test_close(file);
	return ret;
}

static inline void probe_test_expect_listing(struct kunit *test, const char *path,
					     const char *listing, unsigned int nth)
{
	probe_test_read(test, path);
	KUNIT_EXPECT_STREQ_MSG(test, probe_test_fs(test)->buf, listing, "allocation %u", nth);
}

/*
 * Run C for N = 1, 2, ... until its command makes fewer than N
 * allocations, writing REMOVE to its file after each.  What REMOVE
 * removed takes its per-CPU hit counters along, on the failure paths
 * too.
 */
static inline void probe_test_alloc_sweep(struct kunit *test, const struct probe_test_sweep_case *c,
					  const char *remove)
{
	const long percpu = kfork_test_percpu_live(test, probe_test_fs(test));
	const ssize_t len = strlen(c->cmd);
	unsigned int nth, worked_around = 0;
	bool injected = true;
	const char *listing;
	ssize_t ret = 0;

	kfork_test_failslab(test, probe_test_fs(test), true);
	for (nth = 1; injected && nth < 100000; nth++) {
		if (c->before)
			KUNIT_ASSERT_EQ(test, probe_test_write(test, c->file, c->before),
					(ssize_t)strlen(c->before));
		probe_test_read(test, c->file);
		listing = probe_test_printf(test, "%s", probe_test_fs(test)->buf);
		ret = probe_test_write_failing(test, c->file, c->cmd, nth, &injected);
		if (ret == len) {
			probe_test_expect_listing(test, c->file, c->after, nth);
			worked_around += injected;
		} else {
			if (ret != -ENOMEM) {
				probe_test_read(test, "error_log");
				KUNIT_FAIL(test, "allocation %u: %zd, not -ENOMEM; error_log:\n%s",
					   nth, ret, probe_test_fs(test)->buf);
			}
			probe_test_expect_listing(test, c->file, listing, nth);
		}
		probe_test_write(test, c->file, remove);
	}
	kfork_test_failslab(test, probe_test_fs(test), false);
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_EQ(test, ret, len);
	kfork_test_expect_percpu_freed(test, probe_test_fs(test), percpu);
	kunit_info(test, "%u allocations, %u of their failures worked around\n", nth - 2,
		   worked_around);
}
#endif

/* Empty error_log, as "echo > error_log" does. */
static inline void probe_test_clear_errors(struct kunit *test)
{
	kfork_test_close(probe_test_open(test, "error_log", O_WRONLY | O_TRUNC));
}

/* What the error_log shows of one error: its text, command and caret. */
struct probe_test_error {
	const char *where;	/* "trace_kprobe", "trace_uprobe", ... */
	int where_len;
	const char *text;
	int text_len;
	const char *cmd;
	int cmd_len;
	int caret;		/* offset into the command */
};

/*
 * Parse the error_log entry at ENTRY, in text read into fs->buf:
 *   "[   sec.usec] LOC: error: TEXT\n  Command: CMD\n" SPACES "^\n"
 * where the caret stands under the offending character of CMD.
 * Returns false when the entry is not of that shape.
 */
static inline bool probe_test_parse_error(const char *entry, struct probe_test_error *err)
{
	static const char cmd_prefix[] = "  Command: ";
	const char *line, *next;

	line = strchr(entry, ']');
	next = line ? strstr(line, ": error: ") : NULL;
	if (!next || line[1] != ' ')
		return false;
	err->where = line + 2;
	err->where_len = next - err->where;
	err->text = next + strlen(": error: ");
	line = strchr(err->text, '\n');
	if (!line || !str_has_prefix(line + 1, cmd_prefix))
		return false;
	err->text_len = line - err->text;
	err->cmd = line + 1 + strlen(cmd_prefix);
	line = strchr(err->cmd, '\n');
	if (!line)
		return false;
	err->cmd_len = line - err->cmd;
	next = strchr(line + 1, '^');
	if (!next || next[1] != '\n')
		return false;
	err->caret = next - (line + 1) - (int)strlen(cmd_prefix);
	return true;
}

/* The error_log entry after ENTRY, or NULL after the last. */
static inline char *probe_test_next_error(char *entry)
{
	char *next = strstr(entry, "\n[");

	return next ? next + 1 : NULL;
}

/* Read error_log and parse its last entry; false when it is empty. */
static inline bool probe_test_last_error(struct kunit *test,
					 struct probe_test_error *err)
{
	char *entry, *next;

	probe_test_read(test, "error_log");
	entry = probe_test_fs(test)->buf;
	for (next = probe_test_next_error(entry); next; next = probe_test_next_error(entry))
		entry = next;
	return probe_test_parse_error(entry, err);
}

/*
 * An empty regular file at PATH, for uprobes to name.  From a suite's
 * init, which runs in init's task rather than a kthread, so the close
 * is left to fput()'s task work.
 */
static inline int probe_test_create_file(const char *path)
{
	struct file *file = filp_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0755);

	if (IS_ERR(file))
		return PTR_ERR(file);
	fput(file);
	return 0;
}

/* An empty directory at PATH, which no uprobe can name. */
static inline int probe_test_create_dir(const char *path)
{
	struct path parent;
	struct dentry *dentry = kern_path_create(AT_FDCWD, path, &parent, LOOKUP_DIRECTORY);
	int ret;

	if (IS_ERR(dentry))
		return PTR_ERR(dentry);
	ret = vfs_mkdir(&init_user_ns, d_inode(parent.dentry), dentry, 0755);
	done_path_create(&parent, dentry);
	return ret;
}

/* Remove what PATH names: a file or an empty directory. */
static inline void probe_test_remove_file(const char *path)
{
	struct path parent;
	struct dentry *dentry = kern_path_locked(path, &parent);

	if (IS_ERR(dentry))
		return;
	if (d_is_dir(dentry))
		vfs_rmdir(&init_user_ns, d_inode(parent.dentry), dentry);
	else if (d_is_positive(dentry))
		vfs_unlink(&init_user_ns, d_inode(parent.dentry), dentry, NULL);
	dput(dentry);
	inode_unlock(d_inode(parent.dentry));
	path_put(&parent);
}

/*
 * The trace instance the firing suites enable their events in.  Making
 * one creates a directory for every event of the kernel, and destroying
 * it removes them: seconds of TCG each.  So it is made by the first
 * suite that asks, in a boot, and kept: a suite only drops its
 * reference, and each case empties the trace before it fires and
 * disables what it enabled.
 */
#define PROBE_TEST_INSTANCE	"kfork_test"
#define PROBE_TEST_TRACE	"instances/" PROBE_TEST_INSTANCE "/trace"

static inline struct trace_array *probe_test_instance_get(void)
{
	return trace_array_get_by_name(PROBE_TEST_INSTANCE);
}

#endif /* _KERNEL_TRACE_PROBE_KUNIT_H */

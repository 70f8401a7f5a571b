// SPDX-License-Identifier: GPL-2.0-only
/*
 * White-box KUnit suite for what a kprobe hit reads of kernel strings:
 * trace_kprobe.c includes this file at its end, so the suite calls
 * kprobe_strlen(), the sizing pass's reader, on strings it lays out
 * itself, and the sizing pass, kprobe_strings_size(), on an event's
 * arguments, and checks their exact results, which the records only
 * show in part (an overcount is zero-filled, a fault prints as one).  The
 * fork's trace_kprobe.c only: the distro's includes nothing
 * (probe_fetch fires strings on both builds).
 *
 * Each string lies in a vmalloc area of its own, whose page after the
 * last is a guard page that is never mapped.
 */

#include <kunit/test.h>
#include <linux/vmalloc.h>

#include "trace_probe_kunit.h"

struct strlen_case {
	const char *name;
	unsigned int pages;	/* of the area */
	unsigned int start;	/* where the string starts, from the area's end */
	unsigned int chars;	/* 'y's from there */
	bool terminated;	/* a NUL after them */
	int len;		/* what kprobe_strlen() returns */
};

static const struct strlen_case strlen_cases[] = {
	/* the bytes and the NUL */
	{ "five", 1, 6, 5, true, 6 },
	{ "empty", 1, 1, 0, true, 1 },
	/* across a page boundary, both mapped: 3 + 6 bytes and the NUL */
	{ "across_pages", 2, PAGE_SIZE + 3, 9, true, 10 },
	{ "3000", 1, 3001, 3000, true, 3001 },
	/* MAX_STRING_SIZE (4096) bytes without a NUL among them: all of them */
	{ "no_nul_in_max", 2, 5001, 5000, true, MAX_STRING_SIZE },
	{ "max_less_one", 2, MAX_STRING_SIZE, MAX_STRING_SIZE - 1, true, MAX_STRING_SIZE },
	/* the read runs into the guard page, or starts there */
	{ "into_guard", 1, 5, 5, false, -EFAULT },
	{ "at_guard", 1, 0, 0, false, -EFAULT },
};

static void strlen_desc(const struct strlen_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(strlen, strlen_cases, strlen_desc);

static void strlen_of_laid_out(struct kunit *test)
{
	const struct strlen_case *c = test->param_value;
	size_t size = c->pages * PAGE_SIZE;
	char *area = vmalloc(size);
	char *str;

	KUNIT_ASSERT_NOT_NULL(test, area);
	str = area + size - c->start;
	memset(str, 'y', c->chars);
	if (c->terminated)
		str[c->chars] = '\0';
	KUNIT_EXPECT_EQ(test, kprobe_strlen((unsigned long)str), c->len);
	vfree(area);
}

#ifdef CONFIG_X86_64
/*
 * Bit 63 set and bit 62 clear: above every user address but not
 * canonical, so copy_from_kernel_nofault_allowed() refuses it before
 * any read.
 */
static void strlen_not_canonical(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kprobe_strlen(0x8000000000000000UL), -ERANGE);
}
#endif

/*
 * An event's string arguments on registers made up to point at
 * { vfs_read, "hello", 16 }: each symstr takes what %pS prints of the
 * function and its NUL, a string its bytes and NUL, and a string whose
 * read faults (at 16, never mapped) takes nothing.  The event is on
 * vfs_read (this file's functions are notrace, which kprobes refuse)
 * and never fires.
 */
struct size_case {
	const char *args;
	unsigned int symbols;	/* symstr arguments */
	int bytes;		/* what the other arguments take */
};

static const struct size_case size_cases[] = {
	{ "a=+0(%di):symstr", 1, 0 },
	{ "a=+0(+8(%di)):string", 0, sizeof("hello") },
	{ "a=+0(+16(%di)):string", 0, 0 },
	{ "a=+0(%di):symstr b=+0(+8(%di)):string c=+0(+16(%di)):string d=+0(%di):symstr",
	  2, sizeof("hello") },
};

static void size_desc(const struct size_case *c, char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(size, size_cases, size_desc);

static void strings_sized(struct kunit *test)
{
	const struct size_case *c = test->param_value;
	const void *obj[] = { vfs_read, "hello", (void *)16 };
	struct pt_regs regs = { .di = (unsigned long)obj };
	char sym[KSYM_SYMBOL_LEN];
	struct trace_kprobe *tk;
	char *cmd;
	int got;

	cmd = probe_test_printf(test, "p:kfork/kf_size vfs_read %s", c->args);
	KUNIT_ASSERT_EQ(test, kprobe_events_command(cmd), 0);
	mutex_lock(&event_mutex);
	tk = kprobe_find("kf_size", "kfork");
	got = tk ? kprobe_strings_size(tk, &regs) : -ENOENT;
	mutex_unlock(&event_mutex);
	KUNIT_EXPECT_EQ(test, kprobe_events_command("-:kfork/kf_size"), 0);
	KUNIT_EXPECT_EQ(test, got,
			c->symbols * (snprintf(sym, sizeof(sym), "%pS", vfs_read) + 1) + c->bytes);
}

static struct kunit_case kprobe_fetch_test_cases[] = {
	KUNIT_CASE_PARAM(strlen_of_laid_out, strlen_gen_params),
	KUNIT_CASE_PARAM(strings_sized, size_gen_params),
#ifdef CONFIG_X86_64
	KUNIT_CASE(strlen_not_canonical),
#endif
	{}
};

static struct kunit_suite kprobe_fetch_test_suite = {
	.name = "kprobe_fetch",
	.test_cases = kprobe_fetch_test_cases,
};

kunit_test_suite(kprobe_fetch_test_suite);

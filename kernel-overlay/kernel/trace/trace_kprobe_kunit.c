// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_events: the life of a kprobe event as userspace sees it, on
 * functions of this file.  A case defines events through
 * kprobe_events, enables them in the test instance, calls the
 * functions and reads back what the records, the filters on their
 * head fields, kprobe_profile and the listing say.  The arguments'
 * values are probe_fetch's subject; here it is the probe: where it
 * fired, what returned, how often, and which probes of an event did.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>

#include "trace_probe_kunit.h"

#define EVENT		"kfork/kf"
#define EVENT_DIR	"instances/" PROBE_TEST_INSTANCE "/events/kfork/kf/"

/*
 * Where a probe at a function's entry sits: 6.1's kprobes core moves
 * it past the function's ENDBR when the kernel has IBT.
 */
#ifdef CONFIG_X86_KERNEL_IBT
#define ENTRY_OFFSET	ENDBR_INSN_SIZE
#define ENTRY_PLACE	"+0x4/"
#else
#define ENTRY_OFFSET	0
#define ENTRY_PLACE	"+0x0/"
#endif

/*
 * The probed functions: never inlined nor cloned by the compiler
 * ("kprobe_test_call.isra.0"), so each is found and shown by its name.
 */
static noinline __noclone int kprobe_test_target(int a, int b)
{
	return a * 10 + b;
}

static noinline __noclone int kprobe_test_other(int a, int b)
{
	return a * 100 + b;
}

/*
 * The caller the return probes return to.  The pointer keeps the
 * compiler from seeing which function it calls, and the barrier after
 * the call keeps it a call rather than a jump: the return address is
 * in here.
 */
static noinline __noclone int kprobe_test_call(int (*fn)(int, int), int a, int b)
{
	int ret;

	OPTIMIZER_HIDE_VAR(fn);
	ret = fn(a, b);
	barrier();
	return ret;
}

static struct trace_array *kprobe_instance;

/*
 * A kretprobe defined without MAXACTIVE gets the kprobes core's
 * default when it is registered, max(10, 2 * possible CPUs), and the
 * listing shows that.
 */
static unsigned int default_maxactive(void)
{
	return max(10U, 2 * num_possible_cpus());
}

static bool ends_with(const char *str, const char *suffix)
{
	size_t len = strlen(str), n = strlen(suffix);

	return len >= n && !strcmp(str + len - n, suffix);
}

static void define(struct kunit *test, const char *cmd)
{
	KUNIT_ASSERT_EQ_MSG(test, probe_test_write(test, "kprobe_events", cmd),
			    (ssize_t)strlen(cmd), "%s", cmd);
}

static void enable(struct kunit *test, bool on)
{
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(kprobe_instance, "kfork", "kf", on), 0);
}

static void clear_trace(struct kunit *test)
{
	probe_test_close(probe_test_open(test, PROBE_TEST_TRACE, O_WRONLY | O_TRUNC));
}

/* The records of kf in the instance's trace, each from " kf: (" to its line's end. */
static int records(struct kunit *test, const char **lines, int max)
{
	char *at, *end;
	int n = 0;

	probe_test_read(test, PROBE_TEST_TRACE);
	for (at = probe_test_fs(test)->buf; (at = strstr(at, " kf: (")); at = end + 1) {
		end = strchr(at, '\n');
		KUNIT_ASSERT_NOT_NULL(test, end);
		*end = '\0';
		if (n < max)
			lines[n] = at + 1;
		n++;
	}
	return n;
}

/* The one record of kf. */
static const char *record(struct kunit *test)
{
	const char *line = NULL;

	KUNIT_ASSERT_EQ_MSG(test, records(test, &line, 1), 1, "%s", probe_test_fs(test)->buf);
	return line;
}

/*
 * An entry record shows where it fired, as %pS shows it: the function,
 * the entry's offset and its size (which depends on the build, so the line is
 * compared up to it).  __probe_ip holds the address: a filter on it
 * passes the record for the function's address and no other.
 */
static void kprobe_entry_record(struct kunit *test)
{
	unsigned long ip = (unsigned long)kprobe_test_target + ENTRY_OFFSET;
	const char *line;
	char *filter;

	define(test, "p:" EVENT " kprobe_test_target a=$arg1:s32 b=$arg2:s32");
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	line = record(test);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(line, "kf: (kprobe_test_target" ENTRY_PLACE),
			      "%s", line);
	KUNIT_EXPECT_TRUE_MSG(test, ends_with(line, ") a=4 b=-5"), "%s", line);

	filter = probe_test_printf(test, "__probe_ip == 0x%lx", ip);
	KUNIT_ASSERT_GE(test, probe_test_write(test, EVENT_DIR "filter", filter), 0);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	KUNIT_EXPECT_EQ(test, records(test, NULL, 0), 1);

	filter = probe_test_printf(test, "__probe_ip == 0x%lx", ip + 1);
	KUNIT_ASSERT_GE(test, probe_test_write(test, EVENT_DIR "filter", filter), 0);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	KUNIT_EXPECT_EQ(test, records(test, NULL, 0), 0);
	enable(test, false);
}

/*
 * A return record shows where the function returned to, in the caller
 * (offset and size depend on the build), then the function, and the
 * return value: 4 * 10 + -5 = 35.  __probe_func holds the function's
 * address.
 */
static void kprobe_return_record(struct kunit *test)
{
	unsigned long func = (unsigned long)kprobe_test_target;
	const char *line;
	char *filter;

	define(test, "r:" EVENT " kprobe_test_target ret=$retval:s32");
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	line = record(test);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(line, "kf: (kprobe_test_call+0x"), "%s", line);
	KUNIT_EXPECT_TRUE_MSG(test, ends_with(line, " <- kprobe_test_target) ret=35"),
			      "%s", line);

	filter = probe_test_printf(test, "__probe_func == 0x%lx", func);
	KUNIT_ASSERT_GE(test, probe_test_write(test, EVENT_DIR "filter", filter), 0);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	KUNIT_EXPECT_EQ(test, records(test, NULL, 0), 1);

	filter = probe_test_printf(test, "__probe_func == 0x%lx", func + 1);
	KUNIT_ASSERT_GE(test, probe_test_write(test, EVENT_DIR "filter", filter), 0);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	KUNIT_EXPECT_EQ(test, records(test, NULL, 0), 0);
	enable(test, false);
}

/* "%return" on an entry probe's place makes it a return probe, listed as one. */
static void kprobe_return_suffix(struct kunit *test)
{
	char *listed = probe_test_printf(test, "r%u:kfork/kf kprobe_test_target ret=$retval:s32\n",
					 default_maxactive());

	define(test, "p:" EVENT " kprobe_test_target%return ret=$retval:s32");
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, listed);
	enable(test, true);
	clear_trace(test);
	/* 7 * 10 + 1 */
	kprobe_test_call(kprobe_test_target, 7, 1);
	KUNIT_EXPECT_TRUE_MSG(test, ends_with(record(test), " ret=71"), "%s", record(test));
	enable(test, false);
}

/*
 * At a function's entry the stack pointer points at the return address:
 * $stack0 is an address inside the caller, and $stack that stack
 * pointer, so +0($stack) reads the same word.
 */
static void kprobe_stack_at_entry(struct kunit *test)
{
	const char *line;

	define(test, "p:" EVENT " kprobe_test_target a=$stack0:symbol b=+0($stack):symbol");
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 1, 2);
	line = strchr(record(test), ')');
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(line, ") a=kprobe_test_call+0x"), "%s", line);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(line, " b=kprobe_test_call+0x"), "%s", line);
	enable(test, false);
}

/*
 * Two probes of one event record under its name, each its own place;
 * one may go while the event is enabled (its unregistration waits for
 * its handlers), and the other goes on recording.
 */
static void kprobe_multiprobe(struct kunit *test)
{
	const char *lines[2], *line;

	define(test, "p:" EVENT " kprobe_test_target a=$arg1:s32");
	define(test, "p:" EVENT " kprobe_test_other a=$arg1:s32");
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 1, 0);
	kprobe_test_call(kprobe_test_other, 2, 0);
	KUNIT_ASSERT_EQ(test, records(test, lines, 2), 2);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(lines[0], "kf: (kprobe_test_target" ENTRY_PLACE));
	KUNIT_EXPECT_TRUE(test, ends_with(lines[0], ") a=1"));
	KUNIT_EXPECT_TRUE(test, str_has_prefix(lines[1], "kf: (kprobe_test_other" ENTRY_PLACE));
	KUNIT_EXPECT_TRUE(test, ends_with(lines[1], ") a=2"));

	define(test, "-:" EVENT " kprobe_test_other a=$arg1:s32");
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 1, 0);
	kprobe_test_call(kprobe_test_other, 2, 0);
	line = record(test);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(line, "kf: (kprobe_test_target" ENTRY_PLACE));
	enable(test, false);
}

/* The last probe of an enabled event cannot go: -EBUSY, and it stays listed. */
static void kprobe_busy_event(struct kunit *test)
{
	static const char *const listed = "p:kfork/kf kprobe_test_target\n";

	define(test, "p:" EVENT " kprobe_test_target");
	enable(test, true);
	KUNIT_EXPECT_EQ(test, probe_test_write(test, "kprobe_events", "-:" EVENT), -EBUSY);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, listed);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 1, 0);
	KUNIT_EXPECT_EQ(test, records(test, NULL, 0), 1);
	enable(test, false);
	define(test, "-:" EVENT);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "");
}

/* Find kf's line of kprobe_profile: "  NAME HITS MISSES". */
static void profile(struct kunit *test, unsigned long *hits, unsigned long *misses)
{
	char name[8];
	int n;

	probe_test_read(test, "kprobe_profile");
	n = sscanf(probe_test_fs(test)->buf, " %7s %lu %lu", name, hits, misses);
	KUNIT_ASSERT_EQ_MSG(test, n, 3, "%s", probe_test_fs(test)->buf);
	KUNIT_EXPECT_STREQ(test, name, "kf");
}

/*
 * kprobe_profile counts the hits of an enabled event: three calls
 * while enabled; the two after it is disabled do not count, as the
 * probe is disarmed.  A plain kprobe misses none.
 */
static void kprobe_profile_counts(struct kunit *test)
{
	unsigned long hits, misses;
	int i;

	define(test, "p:" EVENT " kprobe_test_target");
	profile(test, &hits, &misses);
	KUNIT_EXPECT_EQ(test, hits, 0UL);
	enable(test, true);
	for (i = 0; i < 3; i++)
		kprobe_test_call(kprobe_test_target, i, 0);
	enable(test, false);
	for (i = 0; i < 2; i++)
		kprobe_test_call(kprobe_test_target, i, 0);
	profile(test, &hits, &misses);
	KUNIT_EXPECT_EQ(test, hits, 3UL);
	KUNIT_EXPECT_EQ(test, misses, 0UL);
}

/*
 * The profile's columns: two spaces, the name left-aligned in 44
 * characters, then hits and misses right-aligned in 15 each after a
 * space: 2 + 44 + 16 + 16 characters and the newline.
 */
static void kprobe_profile_format(struct kunit *test)
{
	static const char line[] =
		"  kf                                                         0               0\n";

	define(test, "p:" EVENT " kprobe_test_target");
	probe_test_read(test, "kprobe_profile");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, line);
}

/*
 * A probe on a module that is not loaded is accepted and waits for it:
 * listed as written, it can be enabled (there is nothing to arm) and
 * records nothing, and it goes again.
 */
static void kprobe_module_not_loaded(struct kunit *test)
{
	define(test, "p:" EVENT " kfork_no_such_module:some_function");
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   "p:kfork/kf kfork_no_such_module:some_function\n");
	enable(test, true);
	enable(test, false);
	define(test, "-:" EVENT);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "");
}

/*
 * The default event name: "p_" or "r_", the symbol with what a name
 * cannot hold turned into '_', and the offset in decimal.
 */
static void kprobe_default_names(struct kunit *test)
{
	char *listed = probe_test_printf(test,
		"p:kprobes/p_kfork_no_such_module_some_function_16 kfork_no_such_module:some_function+16\n"
		"r%u:kprobes/r_kprobe_test_target_0 kprobe_test_target\n", default_maxactive());

	define(test, "p kfork_no_such_module:some_function+16");
	define(test, "r kprobe_test_target");
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, listed);
	define(test, "-:kprobes/p_kfork_no_such_module_some_function_16");
	define(test, "-:kprobes/r_kprobe_test_target_0");
}

static int kprobe_test_init(struct kunit *test)
{
	probe_test_fs_init(test);
	probe_test_write(test, "kprobe_events", "-:" EVENT);
	return 0;
}

/*
 * Leave no event behind, enabled or not, even after a failed assertion
 * (its filter goes with it).  Nothing here may assert: an exit runs
 * after the case's thread is gone.
 */
static void kprobe_test_exit(struct kunit *test)
{
	trace_array_set_clr_event(kprobe_instance, "kfork", "kf", false);
	probe_test_write(test, "kprobe_events", "-:" EVENT);
	probe_test_fs_exit(test);
}

static int kprobe_suite_init(struct kunit_suite *suite)
{
	kprobe_instance = probe_test_instance_get();
	return kprobe_instance ? 0 : -ENOMEM;
}

static void kprobe_suite_exit(struct kunit_suite *suite)
{
	trace_array_put(kprobe_instance);
	kprobe_instance = NULL;
}

static struct kunit_case kprobe_test_cases[] = {
	KUNIT_CASE(kprobe_entry_record),
	KUNIT_CASE(kprobe_return_record),
	KUNIT_CASE(kprobe_return_suffix),
	KUNIT_CASE(kprobe_stack_at_entry),
	KUNIT_CASE(kprobe_multiprobe),
	KUNIT_CASE(kprobe_busy_event),
	KUNIT_CASE(kprobe_profile_counts),
	KUNIT_CASE(kprobe_profile_format),
	KUNIT_CASE(kprobe_module_not_loaded),
	KUNIT_CASE(kprobe_default_names),
	{}
};

static struct kunit_suite kprobe_test_suite = {
	.name = "kprobe_events",
	.init = kprobe_test_init,
	.exit = kprobe_test_exit,
	.suite_init = kprobe_suite_init,
	.suite_exit = kprobe_suite_exit,
	.test_cases = kprobe_test_cases,
};

kunit_test_suites(&kprobe_test_suite);

MODULE_LICENSE("GPL");

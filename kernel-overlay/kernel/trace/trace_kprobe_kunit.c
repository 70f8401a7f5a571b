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
#include <linux/bpf.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>

#include "trace_probe.h"
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
	kfork_test_close(probe_test_open(test, PROBE_TEST_TRACE, O_WRONLY | O_TRUNC));
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
 * Call kprobe_test_target with 1, then kprobe_test_other with 2: an
 * event with a probe at each entry records both calls, in order.
 */
static void expect_each_probe_records(struct kunit *test)
{
	const char *lines[2];

	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 1, 0);
	kprobe_test_call(kprobe_test_other, 2, 0);
	KUNIT_ASSERT_EQ(test, records(test, lines, 2), 2);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(lines[0], "kf: (kprobe_test_target" ENTRY_PLACE));
	KUNIT_EXPECT_TRUE(test, ends_with(lines[0], ") a=1"));
	KUNIT_EXPECT_TRUE(test, str_has_prefix(lines[1], "kf: (kprobe_test_other" ENTRY_PLACE));
	KUNIT_EXPECT_TRUE(test, ends_with(lines[1], ") a=2"));
}

/*
 * Two probes of one event record under its name, each its own place;
 * one may go while the event is enabled (its unregistration waits for
 * its handlers), and the other goes on recording.
 */
static void kprobe_multiprobe(struct kunit *test)
{
	const char *line;

	define(test, "p:" EVENT " kprobe_test_target a=$arg1:s32");
	define(test, "p:" EVENT " kprobe_test_other a=$arg1:s32");
	enable(test, true);
	expect_each_probe_records(test);

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

/* The probes whose hits kprobe_profile counts: an entry probe and a return probe. */
static const char *const profile_probes[] = {
	"p:" EVENT " kprobe_test_target",
	"r:" EVENT " kprobe_test_target",
};

static void profile_probe_desc(const char *const *cmd, char *desc)
{
	strscpy(desc, *cmd, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(profile_probe, profile_probes, profile_probe_desc);

/*
 * kprobe_profile counts the hits of an enabled event, a return probe's
 * as it returns: three calls while enabled; the two after it is
 * disabled do not count, as the probe is disarmed.  A kprobe misses
 * none, nor a kretprobe with room for every call in flight.
 */
static void kprobe_profile_counts(struct kunit *test)
{
	const char *const *cmd = test->param_value;
	unsigned long hits, misses;
	int i;

	define(test, *cmd);
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
static const char kf_profile_line[] =
	"  kf                                                         0               0\n";

static void kprobe_profile_format(struct kunit *test)
{
	define(test, "p:" EVENT " kprobe_test_target");
	probe_test_read(test, "kprobe_profile");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, kf_profile_line);
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

/* The last error_log entry says TEXT, its caret at offset CARET of the command. */
static void expect_error(struct kunit *test, const char *text, int caret)
{
	struct probe_test_error err;

	KUNIT_ASSERT_TRUE_MSG(test, probe_test_last_error(test, &err), "%s",
			      probe_test_fs(test)->buf);
	KUNIT_EXPECT_EQ(test, err.text_len, (int)strlen(text));
	KUNIT_EXPECT_EQ_MSG(test, strncmp(err.text, text, err.text_len), 0, "%.*s",
			    err.text_len, err.text);
	KUNIT_EXPECT_EQ(test, err.caret, caret);
}

/* kf's event call, looked up in the top instance and let go at once: the case owns kf. */
static struct trace_event_call *kf_call(struct kunit *test)
{
	struct trace_event_file *file = trace_get_event_file(NULL, "kfork", "kf");
	struct trace_event_call *call;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "%ld", PTR_ERR(file));
	call = file->event_call;
	trace_put_event_file(file);
	return call;
}

/*
 * A probe by address is listed as "0x" and the address as %p prints it
 * (hashed unless the boot asks otherwise), and it fires where a probe
 * on the function's name does.  Its arguments are registers: $argN is
 * for a probe by name at a function's entry.
 */
static void kprobe_address_probe(struct kunit *test)
{
	void *addr = (void *)kprobe_test_target + ENTRY_OFFSET;
	const char *line;

	define(test, probe_test_printf(test, "p:" EVENT " 0x%lx a=%%di:s32", (unsigned long)addr));
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   probe_test_printf(test, "p:kfork/kf 0x%p a=%%di:s32\n", addr));
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 3, 0);
	line = record(test);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(line, "kf: (kprobe_test_target" ENTRY_PLACE));
	KUNIT_EXPECT_TRUE(test, ends_with(line, ") a=3"));
	enable(test, false);
}

/*
 * Project behaviour: a return probe by address fetches $retval as one by
 * symbol does, and is listed by its address with the MAXACTIVE the
 * kretprobe was given, as in kprobe_return_suffix.  4 * 10 + -5 = 35,
 * as in kprobe_return_record.  (6.1 sets the return flag of the
 * arguments for a place given by symbol only, so it refuses the command
 * with "$retval is not available".)
 */
static void kprobe_address_return_retval(struct kunit *test)
{
	unsigned long func = (unsigned long)kprobe_test_target;
	const char *line;

	define(test, probe_test_printf(test, "r:" EVENT " 0x%lx ret=$retval:s32", func));
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   probe_test_printf(test, "r%u:kfork/kf 0x%p ret=$retval:s32\n",
					     default_maxactive(), (void *)func));
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 4, -5);
	line = record(test);
	KUNIT_EXPECT_TRUE_MSG(test, ends_with(line, " <- kprobe_test_target) ret=35"),
			      "%s", line);
	enable(test, false);
}

/* Unnamed, a probe by address is "p_0x" or "r_0x" and the address as %p prints it. */
static void kprobe_address_default_name(struct kunit *test)
{
	void *addr = (void *)kprobe_test_target + ENTRY_OFFSET;
	char *name = probe_test_printf(test, "kprobes/p_0x%p", addr);

	define(test, probe_test_printf(test, "p 0x%lx", (unsigned long)addr));
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   probe_test_printf(test, "p:%s 0x%p\n", name, addr));
	define(test, probe_test_printf(test, "-:%s", name));
}

/*
 * The same address twice in one event is the same probe: refused with
 * -EEXIST and "There is already the exact same probe event", the
 * event left as it was.
 */
static void kprobe_address_same_probe(struct kunit *test)
{
	unsigned long addr = (unsigned long)kprobe_test_target + ENTRY_OFFSET;
	char *cmd = probe_test_printf(test, "p:" EVENT " 0x%lx a=%%di:s32", addr);
	char *listed;

	define(test, cmd);
	probe_test_read(test, "kprobe_events");
	listed = probe_test_printf(test, "%s", probe_test_fs(test)->buf);
	probe_test_clear_errors(test);
	KUNIT_EXPECT_EQ(test, probe_test_write(test, "kprobe_events", cmd), -EEXIST);
	expect_error(test, "There is already the exact same probe event", 0);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, listed);
}

/*
 * Two addresses in one event are two places: both probes register and
 * each records its own hits.  (6.1 compares probes by symbol and
 * offset only, so two address probes both look like "unknown+0" and
 * the second is refused as the same probe.)
 */
static void kprobe_address_multiprobe(struct kunit *test)
{
	define(test, probe_test_printf(test, "p:" EVENT " 0x%lx a=%%di:s32",
				       (unsigned long)kprobe_test_target + ENTRY_OFFSET));
	define(test, probe_test_printf(test, "p:" EVENT " 0x%lx a=%%di:s32",
				       (unsigned long)kprobe_test_other + ENTRY_OFFSET));
	enable(test, true);
	expect_each_probe_records(test);
	enable(test, false);
}

/*
 * A MAXACTIVE of up to 63 characters is read as a number (base 0: a
 * leading 0 makes it octal, so 62 zeros and a 1 are 1); at 64 it is
 * refused as "Invalid maxactive number" before it is read.
 */
static void kprobe_maxactive_length(struct kunit *test)
{
	char digits[65], *cmd;

	memset(digits, '0', 62);
	strcpy(digits + 62, "1");
	define(test, probe_test_printf(test, "r%s:" EVENT " kprobe_test_target", digits));
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "r1:kfork/kf kprobe_test_target\n");
	define(test, "-:" EVENT);

	memset(digits, '0', 63);
	strcpy(digits + 63, "1");
	probe_test_clear_errors(test);
	cmd = probe_test_printf(test, "r%s:" EVENT " kprobe_test_target", digits);
	KUNIT_EXPECT_EQ(test, probe_test_write(test, "kprobe_events", cmd), -EINVAL);
	/* under the first digit */
	expect_error(test, "Invalid maxactive number", 1);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "");
}

/*
 * What BPF's override asks of an event: is it at a function's entry?
 * The entry place is; the next instruction, after the fentry call
 * (MCOUNT_INSN_SIZE bytes), is not; nor is a probe on a module that is
 * not loaded, whose symbol does not resolve.
 */
static void kprobe_at_func_entry(struct kunit *test)
{
	define(test, "p:" EVENT " kprobe_test_target");
	KUNIT_EXPECT_TRUE(test, trace_kprobe_on_func_entry(kf_call(test)));
	define(test, "-:" EVENT);
	define(test, probe_test_printf(test, "p:" EVENT " kprobe_test_target+%d",
				       ENTRY_OFFSET + MCOUNT_INSN_SIZE));
	KUNIT_EXPECT_FALSE(test, trace_kprobe_on_func_entry(kf_call(test)));
	define(test, "-:" EVENT);
	define(test, "p:" EVENT " kfork_no_such_module:some_function");
	KUNIT_EXPECT_FALSE(test, trace_kprobe_on_func_entry(kf_call(test)));
}

/*
 * And may it override the function's return?  Only where the function
 * is on the error injection list: every system call's entry is
 * (SYSCALL_DEFINE marks __x64_sys_* with ALLOW_ERROR_INJECTION), a
 * function of this file is not, nor a probe whose module is not loaded.
 */
static void kprobe_injectable(struct kunit *test)
{
	define(test, "p:" EVENT " __x64_sys_getpid");
	KUNIT_EXPECT_TRUE(test, trace_kprobe_error_injectable(kf_call(test)));
	define(test, "-:" EVENT);
	define(test, "p:" EVENT " kprobe_test_target");
	KUNIT_EXPECT_FALSE(test, trace_kprobe_error_injectable(kf_call(test)));
	define(test, "-:" EVENT);
	define(test, "p:" EVENT " kfork_no_such_module:some_function");
	KUNIT_EXPECT_FALSE(test, trace_kprobe_error_injectable(kf_call(test)));
}

struct kprobe_info {
	u32 fd_type;
	const char *symbol;
	u64 offset;
	u64 addr;
};

/*
 * BPF_TASK_FD_QUERY's answer for a perf event on kf: the event is found
 * by its call (a kprobe PMU event) or by its name (a tracepoint event),
 * and both ways must give the same.
 */
static void kprobe_info(struct kunit *test, struct kprobe_info *info)
{
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct kprobe_info by_name;

	KUNIT_ASSERT_NOT_NULL(test, event);
	event->tp_event = kf_call(test);
	KUNIT_ASSERT_EQ(test, bpf_get_kprobe_info(event, &info->fd_type, &info->symbol,
						  &info->offset, &info->addr, false), 0);
	KUNIT_ASSERT_EQ(test, bpf_get_kprobe_info(event, &by_name.fd_type, &by_name.symbol,
						  &by_name.offset, &by_name.addr, true), 0);
	KUNIT_EXPECT_EQ(test, by_name.fd_type, info->fd_type);
	KUNIT_EXPECT_PTR_EQ(test, by_name.symbol, info->symbol);
	KUNIT_EXPECT_EQ(test, by_name.offset, info->offset);
	KUNIT_EXPECT_EQ(test, by_name.addr, info->addr);
}

/*
 * A probe by symbol is known by the symbol and offset as written, with
 * no address; a probe by address by the address alone; a return
 * probe's type is KRETPROBE.
 */
static void kprobe_bpf_info(struct kunit *test)
{
	unsigned long addr = (unsigned long)kprobe_test_target + ENTRY_OFFSET;
	struct kprobe_info info;

	define(test, probe_test_printf(test, "p:" EVENT " kprobe_test_target+%d",
				       ENTRY_OFFSET + MCOUNT_INSN_SIZE));
	kprobe_info(test, &info);
	KUNIT_EXPECT_EQ(test, info.fd_type, (u32)BPF_FD_TYPE_KPROBE);
	KUNIT_EXPECT_STREQ(test, info.symbol, "kprobe_test_target");
	KUNIT_EXPECT_EQ(test, info.offset, (u64)(ENTRY_OFFSET + MCOUNT_INSN_SIZE));
	KUNIT_EXPECT_EQ(test, info.addr, 0ULL);
	define(test, "-:" EVENT);

	define(test, "r:" EVENT " kprobe_test_target");
	kprobe_info(test, &info);
	KUNIT_EXPECT_EQ(test, info.fd_type, (u32)BPF_FD_TYPE_KRETPROBE);
	KUNIT_EXPECT_STREQ(test, info.symbol, "kprobe_test_target");
	define(test, "-:" EVENT);

	define(test, probe_test_printf(test, "p:" EVENT " 0x%lx", addr));
	kprobe_info(test, &info);
	KUNIT_EXPECT_EQ(test, info.fd_type, (u32)BPF_FD_TYPE_KPROBE);
	KUNIT_EXPECT_NULL(test, info.symbol);
	KUNIT_EXPECT_EQ(test, info.offset, 0ULL);
	KUNIT_EXPECT_EQ(test, info.addr, (u64)addr);
}

/* What a perf event of kf last received: its raw record, as perf copies it out. */
static struct {
	int samples;
	u32 size;
	u8 raw[64];
} kprobe_perf_seen;

static void kprobe_perf_sample(struct perf_event *event, struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	u32 size;

	kprobe_perf_seen.samples++;
	if (!data->raw)
		return;
	size = data->raw->frag.size;
	kprobe_perf_seen.size = size;
	memcpy(kprobe_perf_seen.raw, data->raw->frag.data, min_t(u32, size, 64));
}

/* The layout of a return probe's record: 6.1's kretprobe_trace_entry_head and one s32. */
struct kprobe_ret_record {
	struct trace_entry ent;
	unsigned long func;
	unsigned long ret_ip;
	s32 ret;
	u8 one;
} __packed;

/*
 * A return probe's record through perf (what perf record -e reads):
 * the event's type, the function, the return address in the caller,
 * the value (4 * 10 + -5 = 35) and the immediate 1.  The record is
 * 8 + 16 + 4 + 1 = 29 bytes; perf puts a u32 size before it and keeps
 * the two u64-aligned, so it is ALIGN(29 + 4, 8) - 4 = 36 bytes, and
 * the 7 bytes past the record are zero, not what an older record left.
 */
static void kprobe_perf_return_record(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
	};
	struct kprobe_ret_record *rec = (void *)kprobe_perf_seen.raw;
	unsigned long size, offset;
	struct perf_event *event;
	int i;

	define(test, "r:" EVENT " kprobe_test_target ret=$retval:s32 one=\\1:u8");
	attr.config = kf_call(test)->event.type;
	memset(&kprobe_perf_seen, 0xaa, sizeof(kprobe_perf_seen));
	kprobe_perf_seen.samples = 0;
	event = perf_event_create_kernel_counter(&attr, -1, current, kprobe_perf_sample, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event), "%ld", PTR_ERR(event));
	kprobe_test_call(kprobe_test_target, 4, -5);
	perf_event_release_kernel(event);

	KUNIT_ASSERT_EQ(test, kprobe_perf_seen.samples, 1);
	KUNIT_ASSERT_EQ(test, kprobe_perf_seen.size, 36U);
	KUNIT_EXPECT_EQ(test, rec->ent.type, (unsigned short)attr.config);
	KUNIT_EXPECT_EQ(test, rec->func, (unsigned long)kprobe_test_target);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(rec->ret_ip, &size, &offset));
	KUNIT_EXPECT_EQ(test, rec->ret_ip - offset, (unsigned long)kprobe_test_call);
	KUNIT_EXPECT_EQ(test, rec->ret, 35);
	KUNIT_EXPECT_EQ(test, rec->one, 1);
	for (i = sizeof(*rec); i < 36; i++)
		KUNIT_EXPECT_EQ_MSG(test, kprobe_perf_seen.raw[i], 0, "byte %d", i);
}

/*
 * A probe by name and one by the same address are two probes of one
 * event (their places compare unequal): both fire on one call, so the
 * call leaves two records, each at the function's entry.
 */
static void kprobe_address_and_name(struct kunit *test)
{
	const char *lines[3];
	int i;

	define(test, "p:" EVENT " kprobe_test_target a=%di:s32");
	define(test, probe_test_printf(test, "p:" EVENT " 0x%lx a=%%di:s32",
				       (unsigned long)kprobe_test_target + ENTRY_OFFSET));
	enable(test, true);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 6, 0);
	KUNIT_ASSERT_EQ(test, records(test, lines, 3), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE(test, str_has_prefix(lines[i],
						       "kf: (kprobe_test_target" ENTRY_PLACE));
		KUNIT_EXPECT_TRUE(test, ends_with(lines[i], ") a=6"));
	}
	enable(test, false);
}

/*
 * A return probe waiting for its module has no MAXACTIVE yet (the
 * kprobes core sets the default when it registers): listed as "r:".
 */
static void kprobe_return_not_loaded(struct kunit *test)
{
	define(test, "r:" EVENT " kfork_no_such_module:some_function");
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   "r:kfork/kf kfork_no_such_module:some_function\n");
}

/*
 * A module name longer than a module's can be is accepted and waits:
 * no module of that name can come.
 */
static void kprobe_module_name_too_long(struct kunit *test)
{
	const int len = MODULE_NAME_LEN;	/* a size_t: 64 less a pointer's size */
	char *cmd = probe_test_printf(test, "p:" EVENT " %0*d:some_function", len, 0);

	define(test, cmd);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   probe_test_printf(test, "p:kfork/kf %0*d:some_function\n", len, 0));
}

/*
 * A removal names the event's group and, when it gives them, its place
 * and arguments: another group or another place matches nothing
 * (-ENOENT), and the event stays.
 */
static void kprobe_remove_mismatch(struct kunit *test)
{
	static const char *const listed = "p:kfork/kf kprobe_test_target\n";

	define(test, "p:" EVENT " kprobe_test_target");
	KUNIT_EXPECT_EQ(test, probe_test_write(test, "kprobe_events", "-:kfork_other/kf"), -ENOENT);
	KUNIT_EXPECT_EQ(test, probe_test_write(test, "kprobe_events",
					       "-:" EVENT " kprobe_test_other"), -ENOENT);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, listed);
}

/*
 * An event something holds a reference to (a perf event, a trigger, a
 * hist of another event) cannot go: -EBUSY until the reference goes.
 */
static void kprobe_busy_by_reference(struct kunit *test)
{
	struct trace_event_file *file;
	ssize_t busy;

	define(test, "p:" EVENT " kprobe_test_target");
	file = trace_get_event_file(NULL, "kfork", "kf");
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	busy = probe_test_write(test, "kprobe_events", "-:" EVENT);
	trace_put_event_file(file);
	KUNIT_EXPECT_EQ(test, busy, (ssize_t)-EBUSY);
	define(test, "-:" EVENT);
}

/*
 * Other dynamic events (here a synthetic one) are in the same list:
 * kprobe_events and kprobe_profile show the kprobe events alone.
 */
static void kprobe_listing_skips_others(struct kunit *test)
{
	KUNIT_ASSERT_GE(test, probe_test_write(test, "synthetic_events", "kfork_syn u64 a"), 0);
	define(test, "p:" EVENT " kprobe_test_target");
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "p:kfork/kf kprobe_test_target\n");
	probe_test_read(test, "kprobe_profile");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, kf_profile_line);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "synthetic_events", "!kfork_syn"), 0);
}

/*
 * The in-kernel command API: a return probe built with a field,
 * created in the API's group, "kprobes", fired (7 * 10 + 3 = 73); and
 * the commands it refuses with -EINVAL: no place, or a command of
 * another type.
 */
static void kprobe_gen_cmd(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, MAX_DYNEVENT_CMD_LEN, GFP_KERNEL);
	struct dynevent_cmd cmd;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	kprobe_event_cmd_init(&cmd, buf, MAX_DYNEVENT_CMD_LEN);
	KUNIT_ASSERT_EQ(test, kretprobe_event_gen_cmd_start(&cmd, "kf", "kprobe_test_target"), 0);
	KUNIT_ASSERT_EQ(test, kprobe_event_add_fields(&cmd, "ret=$retval:s32"), 0);
	KUNIT_ASSERT_EQ(test, kprobe_event_gen_cmd_end(&cmd), 0);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(kprobe_instance, "kprobes", "kf", true), 0);
	clear_trace(test);
	kprobe_test_call(kprobe_test_target, 7, 3);
	KUNIT_EXPECT_TRUE_MSG(test, ends_with(record(test), " ret=73"), "%s", record(test));
	trace_array_set_clr_event(kprobe_instance, "kprobes", "kf", false);
	KUNIT_EXPECT_EQ(test, kprobe_event_delete("kf"), 0);

	kprobe_event_cmd_init(&cmd, buf, MAX_DYNEVENT_CMD_LEN);
	KUNIT_EXPECT_EQ(test, kprobe_event_gen_cmd_start(&cmd, "kf2", NULL), -EINVAL);
	synth_event_cmd_init(&cmd, buf, MAX_DYNEVENT_CMD_LEN);
	KUNIT_EXPECT_EQ(test, kprobe_event_gen_cmd_start(&cmd, "kf2", "kprobe_test_target"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kprobe_event_add_fields(&cmd, "a=%di"), -EINVAL);
}

/*
 * The command API writes into the caller's buffer, and a step that does
 * not fit is -E2BIG: "p:kprobes/kf" is 12 characters and needs 13 with
 * its NUL; " kprobe_test_target " (each word with a space before and
 * after) needs 20 more, and the buffer one byte besides; " a=%di " 7.
 * A 129th field is -EINVAL: MAX_TRACE_ARGS is 128.
 */
static void kprobe_gen_cmd_limits(struct kunit *test)
{
	static const char written[] = "p:kprobes/kf kprobe_test_target ";
	static const struct {
		unsigned int size;
		int ret;
		unsigned int kept;	/* of WRITTEN, the steps that fit */
	} steps[] = {
		{ 12, -E2BIG, 0 },	/* the head */
		{ 13, -E2BIG, 12 },	/* the place */
		{ 32, -E2BIG, 12 },
		{ 33, -E2BIG, 32 },	/* the field */
		{ 39, -E2BIG, 32 },
		{ 40, 0, 32 },
	};
	char *buf = kunit_kzalloc(test, MAX_DYNEVENT_CMD_LEN, GFP_KERNEL);
	struct dynevent_cmd cmd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		memset(buf, 0, MAX_DYNEVENT_CMD_LEN);
		kprobe_event_cmd_init(&cmd, buf, steps[i].size);
		KUNIT_EXPECT_EQ_MSG(test, kprobe_event_gen_cmd_start(&cmd, "kf",
								     "kprobe_test_target",
								     "a=%di"),
				    steps[i].ret, "a buffer of %u bytes", steps[i].size);
		KUNIT_EXPECT_EQ_MSG(test, strncmp(buf, written, steps[i].kept), 0,
				    "a buffer of %u bytes: %s", steps[i].size, buf);
	}

	kprobe_event_cmd_init(&cmd, buf, MAX_DYNEVENT_CMD_LEN);
	KUNIT_ASSERT_EQ(test, kprobe_event_gen_cmd_start(&cmd, "kf", "kprobe_test_target"), 0);
	for (i = 0; i < MAX_TRACE_ARGS; i++)
		KUNIT_ASSERT_EQ(test, kprobe_event_add_fields(&cmd, "a=%di"), 0);
	KUNIT_EXPECT_EQ(test, kprobe_event_add_fields(&cmd, "a=%di"), -EINVAL);
}

#ifdef CONFIG_PERF_EVENTS
/*
 * perf's kprobe PMU makes local events: by a symbol, which must name
 * one function (-ENOENT for none, -EADDRNOTAVAIL for two), or by an
 * address; entry or return.  (The symbol is a char *: a copy of the
 * test's own.)  Each has the print format of a tracefs event of its
 * kind without arguments (Documentation/trace/kprobetrace.rst).
 */
static void kprobe_local_events(struct kunit *test)
{
	struct trace_event_call *call;

	call = create_local_trace_kprobe(probe_test_printf(test, "kfork_no_such_function"),
					 NULL, 0, false);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(call), -ENOENT);
	call = create_local_trace_kprobe(probe_test_printf(test, "probe_test_twin"),
					 NULL, 0, false);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(call), -EADDRNOTAVAIL);

	call = create_local_trace_kprobe(NULL, (void *)kprobe_test_target + ENTRY_OFFSET, 0, false);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(call), "%ld", PTR_ERR(call));
	KUNIT_EXPECT_TRUE(test, trace_kprobe_on_func_entry(call));
	KUNIT_EXPECT_STREQ(test, call->print_fmt, "\"(%lx)\", REC->__probe_ip");
	destroy_local_trace_kprobe(call);

	call = create_local_trace_kprobe(probe_test_printf(test, "kprobe_test_target"),
					 NULL, 0, true);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(call), "%ld", PTR_ERR(call));
	KUNIT_EXPECT_STREQ(test, call->print_fmt,
			   "\"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip");
	destroy_local_trace_kprobe(call);
}
#endif

#if KFORK_TEST_FAILSLAB
/*
 * An argument of each kind: register, array, bitfield, $comm, @SYM,
 * string, @SYM inside a dereference, immediate string.
 */
#define EVERY_KIND_1	"a=$arg1:s32 b=+0(%sp):x8[4] c=+8(%sp):b4@4/8"
#define EVERY_KIND_2	"d=$comm e=@kprobe_instance:x64 f=+0(+0(%sp)):string"
#define EVERY_KIND_3	"g=+0(@kprobe_instance):x64 h=\\\"s\""
#define EVERY_KIND	EVERY_KIND_1 " " EVERY_KIND_2 " " EVERY_KIND_3

/*
 * Each allocation of a definition, a second probe and a removal failing
 * in turn: -ENOMEM and the listing as it was, or done.
 */
static const struct probe_test_sweep_case alloc_failure_cases[] = {
	{ "kprobe_events", NULL, "p:" EVENT " kprobe_test_target " EVERY_KIND,
	  "p:kfork/kf kprobe_test_target " EVERY_KIND "\n" },
	{ "kprobe_events", NULL, "r5:" EVENT " kprobe_test_target ret=$retval",
	  "r5:kfork/kf kprobe_test_target ret=$retval\n" },
	{ "kprobe_events", NULL, "p:" EVENT " kfork_no_such_module:kfork_func",
	  "p:kfork/kf kfork_no_such_module:kfork_func\n" },
	{ "kprobe_events", "p:" EVENT " kprobe_test_target a=$arg1:s32",
	  "p:" EVENT " kprobe_test_other a=$arg1:s32",
	  "p:kfork/kf kprobe_test_target a=$arg1:s32\np:kfork/kf kprobe_test_other a=$arg1:s32\n" },
	{ "kprobe_events", "p:" EVENT " kprobe_test_target", "-:" EVENT, "" },
};

KUNIT_ARRAY_PARAM(alloc_failure, alloc_failure_cases, probe_test_alloc_sweep_desc);

static void kprobe_alloc_failures(struct kunit *test)
{
	probe_test_alloc_sweep(test, test->param_value, "-:" EVENT);
}

#ifdef CONFIG_PERF_EVENTS
/* perf's local return probe, with its Nth allocation failing, for each N in turn */
static void kprobe_local_alloc_failures(struct kunit *test)
{
	char *symbol = probe_test_printf(test, "kprobe_test_target");
	const long percpu = kfork_test_percpu_live(test, probe_test_fs(test));
	struct trace_event_call *call = NULL;
	bool injected = true;
	unsigned int nth;

	kfork_test_failslab(test, probe_test_fs(test), true);
	for (nth = 1; injected && nth < 100000; nth++) {
		kfork_test_fail_nth(nth);
		call = create_local_trace_kprobe(symbol, NULL, 0, true);
		injected = kfork_test_fail_nth_end();
		if (IS_ERR(call)) {
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(call), -ENOMEM, "allocation %u", nth);
			continue;
		}
		KUNIT_EXPECT_TRUE(test, trace_kprobe_on_func_entry(call));
		destroy_local_trace_kprobe(call);
	}
	kfork_test_failslab(test, probe_test_fs(test), false);
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_FALSE(test, IS_ERR(call));
	kfork_test_expect_percpu_freed(test, probe_test_fs(test), percpu);
}
#endif

#endif

/*
 * The suite's last case: nothing the cases before it allocated outlives
 * their events, on the failure paths of the allocation sweeps too.
 */
static void kprobe_no_leaks(struct kunit *test)
{
	struct kfork_test_fs *fs = probe_test_fs(test);

	kfork_test_kmemleak_begin(test, fs);
	kfork_test_expect_no_leaks(test, fs);
}

static int kprobe_test_init(struct kunit *test)
{
	probe_test_fs_init(test);
	probe_test_write(test, "kprobe_events", "-:" EVENT);
	return 0;
}

/*
 * Leave no event behind, enabled or not, even after a failed assertion
 * (its filter goes with it).  After one, exit runs in the runner's
 * task, not the case's kthread: nothing here may assert, nor close a
 * file synchronously or copy through the case's user buffer, so the
 * event goes through the in-kernel command API rather than tracefs.
 */
static void kprobe_test_exit(struct kunit *test)
{
	trace_array_set_clr_event(kprobe_instance, "kfork", "kf", false);
	trace_array_set_clr_event(kprobe_instance, "kprobes", "kf", false);
	/* "-:kf": kf of any group, kprobe_gen_cmd's kprobes/kf too */
	kprobe_event_delete("kf");
	synth_event_delete("kfork_syn");
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
	KUNIT_CASE_PARAM(kprobe_profile_counts, profile_probe_gen_params),
	KUNIT_CASE(kprobe_profile_format),
	KUNIT_CASE(kprobe_module_not_loaded),
	KUNIT_CASE(kprobe_default_names),
	KUNIT_CASE(kprobe_address_probe),
	KUNIT_CASE(kprobe_address_return_retval),
	KUNIT_CASE(kprobe_address_default_name),
	KUNIT_CASE(kprobe_address_same_probe),
	KUNIT_CASE(kprobe_address_multiprobe),
	KUNIT_CASE(kprobe_maxactive_length),
	KUNIT_CASE(kprobe_at_func_entry),
	KUNIT_CASE(kprobe_injectable),
	KUNIT_CASE(kprobe_bpf_info),
	KUNIT_CASE(kprobe_perf_return_record),
	KUNIT_CASE(kprobe_address_and_name),
	KUNIT_CASE(kprobe_return_not_loaded),
	KUNIT_CASE(kprobe_module_name_too_long),
	KUNIT_CASE(kprobe_remove_mismatch),
	KUNIT_CASE(kprobe_busy_by_reference),
	KUNIT_CASE(kprobe_listing_skips_others),
	KUNIT_CASE(kprobe_gen_cmd),
	KUNIT_CASE(kprobe_gen_cmd_limits),
#ifdef CONFIG_PERF_EVENTS
	KUNIT_CASE(kprobe_local_events),
#endif
#if KFORK_TEST_FAILSLAB
	KUNIT_CASE_PARAM(kprobe_alloc_failures, alloc_failure_gen_params),
#ifdef CONFIG_PERF_EVENTS
	KUNIT_CASE(kprobe_local_alloc_failures),
#endif
#endif
	KUNIT_CASE(kprobe_no_leaks),
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

// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_fetch: what a kprobe event records when it fires.  Each case
 * puts a kprobe event with its arguments on probe_fetch_target(),
 * enables it in a trace instance of its own, calls the function with
 * an object of known contents and reads the record back from the
 * instance's trace file, where each argument is printed by its type.
 *
 * The object's contents are chosen so that every way of reading it
 * gives a different value: dereference chains, sign extension,
 * bitfields, arrays, strings (also across a page boundary and from
 * user memory) and reads that fault anywhere in a chain.  Every
 * expected value is worked out in the comment beside it.
 */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/vmalloc.h>

#include "trace_probe_kunit.h"

#define EVENT		"kfork/kf"

struct probe_fetch_obj {
	u64 word;				/* +0 */
	u32 flags;				/* +8 */
	s16 neg;				/* +12 */
	u8 bytes[2];				/* +14 */
	const char *name;			/* +16 */
	struct probe_fetch_obj *next;		/* +24 */
	const char *names[3];			/* +32 */
	const void *bad;			/* +56 */
	const char *edge;			/* +64 */
	void *func;				/* +72 */
};

/* The offsets the commands below are written with. */
static_assert(offsetof(struct probe_fetch_obj, flags) == 8);
static_assert(offsetof(struct probe_fetch_obj, neg) == 12);
static_assert(offsetof(struct probe_fetch_obj, bytes) == 14);
static_assert(offsetof(struct probe_fetch_obj, name) == 16);
static_assert(offsetof(struct probe_fetch_obj, next) == 24);
static_assert(offsetof(struct probe_fetch_obj, names) == 32);
static_assert(offsetof(struct probe_fetch_obj, bad) == 56);
static_assert(offsetof(struct probe_fetch_obj, edge) == 64);
static_assert(offsetof(struct probe_fetch_obj, func) == 72);
static_assert(sizeof(struct probe_fetch_obj) == 80);

/* Read by @probe_fetch_global (a data symbol: CONFIG_KALLSYMS_ALL). */
static u32 probe_fetch_global[2] = { 0xcafe, 0xbeef };

/*
 * The probed function: never inlined, so the probe finds it by name in
 * kallsyms, and it uses its arguments so they reach it in registers.
 */
static noinline int probe_fetch_target(struct probe_fetch_obj *obj, long a2,
				       unsigned long a3, int a4)
{
	return READ_ONCE(obj->flags) + a2 + a3 + a4 + READ_ONCE(probe_fetch_global[0]);
}

/*
 * Call it through a pointer the compiler cannot see through, so it
 * cannot specialise the function for these arguments under another name.
 */
static void probe_fetch_call(struct probe_fetch_obj *obj, long a2, unsigned long a3, int a4)
{
	int (*target)(struct probe_fetch_obj *, long, unsigned long, int) = probe_fetch_target;

	OPTIMIZER_HIDE_VAR(target);
	target(obj, a2, a3, a4);
}

struct fetch_case {
	const char *args;
	const char *shown;	/* what the record's line shows after the probe point */
};

/*
 * The call: probe_fetch_target(&first, -2, <user buffer>, 7), with
 *   first  = { .word = 0x0123456789abcdef, .flags = 0xdeadbeef,
 *              .neg = -2, .bytes = { 0x81, 0x82 }, .name = "hello",
 *              .next = &second, .names = { "a", "bc", "def" },
 *              .bad = (void *)16, .edge = "crossing" ending past a
 *              page boundary, .func = probe_fetch_target }
 *   second = { .word = 42, .next = &first, .name = NULL }
 * and the user buffer holding "user" then the bytes 1, 2, 3 (and, from
 * +16, pointers to the user strings "ab" and "cd").
 * On x86_64, $arg1..$arg4 are %di, %si, %dx and %cx at the entry.
 */
static const struct fetch_case fetch_cases[] = {
	/* registers and immediates */
	{ "a=$arg4:s32", " a=7" },
	{ "a=$arg2:s64", " a=-2" },
	/* -2 is 0xff..fe: the low byte is 254 unsigned, -2 signed */
	{ "a=$arg2:u8 b=$arg2:s8 c=$arg2:x8", " a=254 b=-2 c=0xfe" },
	{ "a=$arg2:x32 b=$arg2:s16", " a=0xfffffffe b=-2" },
	{ "a=%cx:u16", " a=7" },
	{ "a=\\42:u8 b=\\-1:s8 c=\\0x10", " a=42 b=-1 c=0x10" },
	{ "a=\\\"imm\"", " a=\"imm\"" },
	/* memory of every width */
	{ "a=+0(%di):x64", " a=0x123456789abcdef" },
	{ "a=+0(%di):u64", " a=81985529216486895" },
	{ "a=+8(%di):x32 b=+8(%di):x16 c=+8(%di):x8", " a=0xdeadbeef b=0xbeef c=0xef" },
	/* neg: -2 in 16 bits, 0xfffe; with the two bytes above it, 0x8281fffe */
	{ "a=+12(%di):s16 b=+12(%di):u16 c=+12(%di):s8", " a=-2 b=65534 c=-2" },
	{ "a=+12(%di):u32 b=+12(%di):s32", " a=2189557758 b=-2105409538" },
	{ "a=+14(%di):x8 b=+15(%di):s8", " a=0x81 b=-126" },
	/* a negative offset: second lies right after first, 80 bytes on */
	{ "a=-80(+24(%di)):x64", " a=0x123456789abcdef" },
	/* dereference chains: first.next = &second, second.next = &first */
	{ "a=+0(+24(%di)):u64", " a=42" },
	{ "a=+0(+24(+24(%di))):x64", " a=0x123456789abcdef" },
	{ "a=+8(+24(+24(+24(+24(%di))))):x32", " a=0xdeadbeef" },
	/* symbols */
	{ "a=@probe_fetch_global:x32 b=@probe_fetch_global+4:x32", " a=0xcafe b=0xbeef" },
	/* both words at once, little-endian */
	{ "a=@probe_fetch_global:x64", " a=0xbeef0000cafe" },
	/* bitfields of 0xdeadbeef: (v >> offset) & (2^width - 1) */
	{ "a=+8(%di):b4@4/32", " a=14" },		/* 0xe */
	{ "a=+8(%di):b8@24/32", " a=222" },		/* 0xde */
	{ "a=+8(%di):b12@20/32", " a=3562" },		/* 0xdea */
	{ "a=+8(%di):b1@0/32 b=+8(%di):b3@29/32", " a=1 b=6" },
	{ "a=+8(%di):b32@0/32", " a=3735928559" },
	/* 13 digits of width 4, offset 4 in hex: as many digits as given */
	{ "a=+8(%di):b0000000000004@0x000000004/32", " a=14" },
	/* byte 1 of 0xdeadbeef is 0xbe: bits 1..3 are 0b111 */
	{ "a=+9(%di):b3@1/8", " a=7" },
	/* arrays: bytes ef be ad de, and their high nibbles */
	{ "a=+8(%di):x8[4]", " a={0xef,0xbe,0xad,0xde}" },
	{ "a=+8(%di):b4@4/8[4]", " a={14,11,10,13}" },
	{ "a=+14(%di):s8[2]", " a={-127,-126}" },
	{ "a=+0(%di):x32[2]", " a={0x89abcdef,0x1234567}" },
	/* strings */
	{ "a=+0(+16(%di)):string", " a=\"hello\"" },
	{ "a=+0(+16(%di)):string b=+0(+16(+24(+24(%di)))):string",
	  " a=\"hello\" b=\"hello\"" },
	{ "a=+32(%di):string[3]", " a={\"a\",\"bc\",\"def\"}" },
	{ "a=+0(+64(%di)):string", " a=\"crossing\"" },
	/* "hello" + 5 is empty: its NUL takes a byte, and the next its own */
	{ "a=+5(+16(%di)):string b=+0(+16(%di)):string", " a=\"\" b=\"hello\"" },
	{ "a=$comm", " a=\"kunit_try_catch\"" },
	/* user memory, through the 'u' dereference */
	{ "a=+u0(%dx):ustring", " a=\"user\"" },
	/* an array of pointers to user strings, in user memory */
	{ "a=+u16(%dx):string[2]", " a={\"ab\",\"cd\"}" },
	{ "a=+u5(%dx):u8 b=+u6(%dx):x8", " a=1 b=0x2" },
	/* without the 'u' too: x86 keeps user addresses below the kernel's */
	{ "a=+5(%dx):u8", " a=1" },
	/* faults: bad points into the first page, which is never mapped */
	{ "a=+0(+56(%di)):string", " a=(fault)" },
	{ "a=+0(+16(+24(%di))):string", " a=(fault)" },
	{ "a=+0(+56(%di)):string b=+0(+16(%di)):string", " a=(fault) b=\"hello\"" },
};

/*
 * The fork's fixes (kunit/project-behaviour).  6.1 refuses an array
 * after a user dereference, with "String accepts only memory
 * argument".  When a string's chain faults before its store, 6.1
 * leaves the field pointing at the string area, so it shows the next
 * string argument's text instead of (fault).
 */
static const struct fetch_case fetch_fix_cases[] = {
	{ "b=+u5(%dx):x8[3]", " b={0x1,0x2,0x3}" },
	/* +0(+56): reads the pointer 16, +0(16) faults before the store */
	{ "a=+0(+0(+56(%di))):string b=+0(+16(%di)):string", " a=(fault) b=\"hello\"" },
};

/*
 * Another fix: a number whose read faults records 0.  6.1 leaves the
 * field unwritten, so it shows what an older event left at that place
 * in the ring buffer.  Each case first records PRIME, a command of the
 * same layout whose reads succeed, clears the buffer (which keeps the
 * pages) and then records ARGS in the same place.
 */
struct fetch_fault_case {
	const char *prime;
	const char *primed;	/* what PRIME shows */
	const char *args;	/* the same fields, read through bad (16) */
	const char *shown;
};

static const struct fetch_fault_case fetch_fault_cases[] = {
	/* +0(+56): reads the pointer 16, then +0(16) faults in the chain */
	{ "a=+0(%di):x64", " a=0x123456789abcdef", "a=+0(+0(+56(%di))):x64", " a=0x0" },
	/* +8(+56): the store's own read, at 24, faults */
	{ "a=+8(%di):x32", " a=0xdeadbeef", "a=+8(+56(%di)):x32", " a=0x0" },
	/* flags 0xdeadbeef is the u16s 0xbeef, 0xdead; each read at 16, 18 faults */
	{ "a=+8(%di):x16[2]", " a={0xbeef,0xdead}", "a=+0(+56(%di)):x16[2]", " a={0x0,0x0}" },
	/* bits 4 to 7 of the byte 0xef: 0xe */
	{ "a=+8(%di):b4@4/8", " a=14", "a=+0(+0(+56(%di))):b4@4/8", " a=0" },
	/* an array of strings through names (+32); through bad, +0(16) faults */
	{ "a=+32(%di):string[2]", " a={\"a\",\"bc\"}", "a=+0(+56(%di)):string[2]",
	  " a={(fault),(fault)}" },
	/*
	 * The same array after a string: the fields are a's data_loc, then
	 * b's two, then a's text.  Clearing b stays inside b's field, so a
	 * keeps its text.
	 */
	{ "a=+0(+16(%di)):string b=+32(%di):string[2]", " a=\"hello\" b={\"a\",\"bc\"}",
	  "a=+0(+16(%di)):string b=+0(+56(%di)):string[2]", " a=\"hello\" b={(fault),(fault)}" },
	/* user memory: "user" is 0x72657375; through bad, the user read at 16 faults */
	{ "a=+u0(%dx):x32", " a=0x72657375", "a=+u0(+56(%di)):x32", " a=0x0" },
};

static void fetch_desc(const struct fetch_case *c, char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fetch, fetch_cases, fetch_desc);
KUNIT_ARRAY_PARAM(fetch_fix, fetch_fix_cases, fetch_desc);

static void fetch_fault_desc(const struct fetch_fault_case *c, char *desc)
{
	strscpy(desc, c->args, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fetch_fault, fetch_fault_cases, fetch_fault_desc);

struct fetch_env {
	struct probe_fetch_obj first, second;	/* second at first + 80 */
	unsigned long edge_pages;	/* two pages, "crossing" across them */
	char __user *ubuf;
};

static_assert(offsetof(struct fetch_env, second) == 80);

static struct trace_array *fetch_instance;

static void fetch_env_init(struct kunit *test, struct fetch_env *env)
{
	static const char edge[] = "crossing";
	static const u8 user[] = "user\0\1\2\3";
	char __user *ptrs[2];
	char *at;

	env->edge_pages = __get_free_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NE(test, env->edge_pages, 0UL);
	at = (char *)env->edge_pages + PAGE_SIZE - 3;
	memcpy(at, edge, sizeof(edge));

	env->first = (struct probe_fetch_obj) {
		.word = 0x0123456789abcdefULL, .flags = 0xdeadbeef, .neg = -2,
		.bytes = { 0x81, 0x82 }, .name = "hello", .next = &env->second,
		.names = { "a", "bc", "def" }, .bad = (void *)16, .edge = at,
		.func = probe_fetch_target,
	};
	env->second = (struct probe_fetch_obj) { .word = 42, .next = &env->first };

	/* the user buffer: the test's own mapping, past the tracefs buffer */
	env->ubuf = probe_test_fs(test)->ubuf + KFORK_TEST_BUF_SIZE - PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, copy_to_user(env->ubuf, user, sizeof(user)), 0);
	/* at +16 two pointers, to "ab" at +32 and "cd" at +35 */
	ptrs[0] = env->ubuf + 32;
	ptrs[1] = env->ubuf + 35;
	KUNIT_ASSERT_EQ(test, copy_to_user(env->ubuf + 16, ptrs, sizeof(ptrs)), 0);
	KUNIT_ASSERT_EQ(test, copy_to_user(env->ubuf + 32, "ab\0cd", 6), 0);
}

/* The part of the one record of EVENT that follows "kf: (place)". */
static const char *recorded_args(struct kunit *test)
{
	char *line, *end;

	probe_test_read(test, PROBE_TEST_TRACE);
	line = strstr(probe_test_fs(test)->buf, " kf: (");
	KUNIT_ASSERT_NOT_NULL_MSG(test, line, "no record in:\n%s", probe_test_fs(test)->buf);
	KUNIT_EXPECT_NULL_MSG(test, strstr(line + 1, " kf: ("), "more than one record");
	end = strchr(line, '\n');
	KUNIT_ASSERT_NOT_NULL(test, end);
	*end = '\0';
	line = strchr(line + strlen(" kf: ("), ')');
	KUNIT_ASSERT_NOT_NULL(test, line);
	return line + 1;
}

static void fire(struct kunit *test, const char *args, struct fetch_env *env)
{
	char *cmd = probe_test_printf(test, "p:" EVENT " probe_fetch_target %s", args);

	KUNIT_ASSERT_EQ_MSG(test, probe_test_write(test, "kprobe_events", cmd),
			    (ssize_t)strlen(cmd), "%s", cmd);
	kfork_test_close(probe_test_open(test, PROBE_TEST_TRACE, O_WRONLY | O_TRUNC));
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(fetch_instance, "kfork", "kf", true), 0);
	probe_fetch_call(&env->first, -2, (unsigned long)env->ubuf, 7);
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(fetch_instance, "kfork", "kf", false), 0);
}

static void fetch(struct kunit *test)
{
	const struct fetch_case *c = test->param_value;
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, env);
	fetch_env_init(test, env);
	fire(test, c->args, env);
	KUNIT_EXPECT_STREQ(test, recorded_args(test), c->shown);
	free_pages(env->edge_pages, 1);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
}

static void fetch_fixes(struct kunit *test)
{
	fetch(test);
}

static void fetch_faults_read_zero(struct kunit *test)
{
	const struct fetch_fault_case *c = test->param_value;
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, env);
	fetch_env_init(test, env);
	/* both records on one CPU's buffer, where the second reuses the first's place */
	migrate_disable();
	fire(test, c->prime, env);
	KUNIT_EXPECT_STREQ(test, recorded_args(test), c->primed);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
	fire(test, c->args, env);
	migrate_enable();
	KUNIT_EXPECT_STREQ(test, recorded_args(test), c->shown);
	free_pages(env->edge_pages, 1);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
}

/*
 * symbol prints the address as %pS does: the function, the offset
 * into it and its size, which depends on the build, so only the part
 * up to the size is compared.
 */
static void fetch_symbol(struct kunit *test)
{
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	const char *shown;

	KUNIT_ASSERT_NOT_NULL(test, env);
	fetch_env_init(test, env);
	fire(test, "a=+72(%di):symbol", env);
	shown = recorded_args(test);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(shown, " a=probe_fetch_target+0x0/"),
			      "%s", shown);
	free_pages(env->edge_pages, 1);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
}

/*
 * symstr records the text symbol shows, as a string, and a string
 * after it starts after its NUL: each symstr prints as %pS prints the
 * address, the string as it is.  A fork's fix (project behaviour):
 * 6.1 starts the next string on the symbol's NUL, so the symbol shows
 * that string's text too.
 */
static void fetch_symstr(struct kunit *test)
{
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, env);
	fetch_env_init(test, env);
	fire(test, "a=+72(%di):symstr b=+0(+16(%di)):string c=+72(%di):symstr", env);
	KUNIT_EXPECT_STREQ(test, recorded_args(test),
			   probe_test_printf(test, " a=\"%pS\" b=\"hello\" c=\"%pS\"",
					     probe_fetch_target, probe_fetch_target));
	free_pages(env->edge_pages, 1);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
}

/*
 * A string read through edge (+64) from a page of its own, at the end of
 * a vmalloc area: the page after it is the area's guard, never mapped.
 * FILL bytes of 'y' end at the page's end, followed by NUL if TERMINATED.
 */
static char *fetch_vmalloc_string(struct kunit *test, struct fetch_env *env, size_t fill,
				  bool terminated)
{
	char *page = vmalloc(PAGE_SIZE);
	char *str;

	KUNIT_ASSERT_NOT_NULL(test, page);
	str = page + PAGE_SIZE - fill - terminated;
	memset(str, 'y', fill);
	if (terminated)
		str[fill] = '\0';
	env->first.edge = str;
	return page;
}

/* 3000 characters: every byte up to the NUL is counted and copied. */
static void fetch_string_long(struct kunit *test)
{
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	char *shown = kunit_kzalloc(test, 3000 + sizeof(" a=\"\""), GFP_KERNEL);
	char *page;

	KUNIT_ASSERT_NOT_NULL(test, env);
	KUNIT_ASSERT_NOT_NULL(test, shown);
	fetch_env_init(test, env);
	page = fetch_vmalloc_string(test, env, 3000, true);
	fire(test, "a=+0(+64(%di)):string", env);
	strcpy(shown, " a=\"");
	memset(shown + 4, 'y', 3000);
	strcpy(shown + 3004, "\"");
	KUNIT_EXPECT_STREQ(test, recorded_args(test), shown);
	vfree(page);
	free_pages(env->edge_pages, 1);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
}

/*
 * Five bytes and no NUL before the guard page: the read faults in the
 * middle of the string, which shows as (fault), alone and before a
 * string that reads well, whose place and text stay its own.
 */
static void fetch_string_into_guard_page(struct kunit *test)
{
	static const struct fetch_case cases[] = {
		{ "a=+0(+64(%di)):string", " a=(fault)" },
		{ "a=+0(+64(%di)):string b=+0(+16(%di)):string", " a=(fault) b=\"hello\"" },
	};
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	char *page;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, env);
	fetch_env_init(test, env);
	page = fetch_vmalloc_string(test, env, 5, false);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fire(test, cases[i].args, env);
		KUNIT_EXPECT_STREQ_MSG(test, recorded_args(test), cases[i].shown, "%s",
				       cases[i].args);
		KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
	}
	vfree(page);
	free_pages(env->edge_pages, 1);
}

static int fetch_test_init(struct kunit *test)
{
	probe_test_fs_init(test);
	probe_test_write(test, "kprobe_events", "-:" EVENT);
	return 0;
}

static int fetch_suite_init(struct kunit_suite *suite)
{
	fetch_instance = probe_test_instance_get();
	return fetch_instance ? 0 : -ENOMEM;
}

static void fetch_suite_exit(struct kunit_suite *suite)
{
	trace_array_put(fetch_instance);
	fetch_instance = NULL;
}

/*
 * probe_fetch_bench: what a hit of a kprobe event costs with 6
 * arguments (a dereference chain, a bitfield, a string, a sign-extended
 * register, a symbol and a short) and without any; the difference is
 * what running the fetch programs and storing their values costs.  Each
 * argument is also timed alone, so that a difference between the
 * builds can be traced to the fetch method it comes from.  A
 * benchmark, not a test: tools/kunit bench runs it with
 * trace_probe_fetch_kunit.bench=1.  A figure is the best of
 * BENCH_ROUNDS rounds of BENCH_CALLS calls.  A round lasts a tenth of
 * a second or more, so that the steps of the guest's clock under TCG
 * weigh little: with 2000 calls, upstream's best rounds came out at
 * exactly 12 and 24 ms.
 */
#define BENCH_ROUNDS	5
#define BENCH_CALLS	20000

struct bench_arg {
	const char *figure;	/* probe.fetch_<figure>_ns */
	const char *arg;
};

static const struct bench_arg bench_args[] = {
	{ "deref2", "a=+0(+24(%di)):u64" },
	{ "bitfield", "b=+8(%di):b12@20/32" },
	{ "string", "c=+0(+16(%di)):string" },
	{ "reg_s64", "d=$arg2:s64" },
	{ "mem_s16", "e=+12(%di):s16" },
	{ "symbol", "f=@probe_fetch_global:x32" },
};

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "run the probe_fetch_bench benchmark (tools/kunit bench)");

/* ns per call of probe_fetch_target() with an enabled probe of ARGS on it */
static u64 bench_hit_ns(struct kunit *test, struct fetch_env *env, const char *args)
{
	char *cmd = probe_test_printf(test, "p:" EVENT " probe_fetch_target %s", args);
	u64 best = U64_MAX, start;
	int round, i;

	KUNIT_ASSERT_EQ_MSG(test, probe_test_write(test, "kprobe_events", cmd),
			    (ssize_t)strlen(cmd), "%s", cmd);
	KUNIT_ASSERT_EQ(test, trace_array_set_clr_event(fetch_instance, "kfork", "kf", true), 0);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		start = ktime_get_ns();
		for (i = 0; i < BENCH_CALLS; i++)
			probe_fetch_call(&env->first, -2, (unsigned long)env->ubuf, 7);
		best = min(best, ktime_get_ns() - start);
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(fetch_instance, "kfork", "kf", false), 0);
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:" EVENT), 0);
	return div_u64(best, BENCH_CALLS);
}

static void fetch_bench_run(struct kunit *test)
{
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	char *all = "";
	u64 bare, six, one;
	int i;

	if (!bench)
		kunit_skip(test, "a benchmark: tools/kunit bench runs it");
	KUNIT_ASSERT_NOT_NULL(test, env);
	fetch_env_init(test, env);
	bare = bench_hit_ns(test, env, "");
	for (i = 0; i < ARRAY_SIZE(bench_args); i++) {
		one = bench_hit_ns(test, env, bench_args[i].arg);
		kunit_info(test, "kfork-bench: probe.fetch_%s_ns %llu\n", bench_args[i].figure,
			   one > bare ? one - bare : 0);
		all = probe_test_printf(test, "%s %s", all, bench_args[i].arg);
	}
	six = bench_hit_ns(test, env, all);
	free_pages(env->edge_pages, 1);
	kunit_info(test, "kfork-bench: probe.hit_ns %llu\n", bare);
	kunit_info(test, "kfork-bench: probe.hit_6args_ns %llu\n", six);
	kunit_info(test, "kfork-bench: probe.fetch_6args_ns %llu\n", six > bare ? six - bare : 0);
}

static struct kunit_case fetch_bench_cases[] = {
	KUNIT_CASE(fetch_bench_run),
	{}
};

static struct kunit_suite fetch_bench_suite = {
	.name = "probe_fetch_bench",
	.init = fetch_test_init,
	.exit = probe_test_fs_exit,
	.suite_init = fetch_suite_init,
	.suite_exit = fetch_suite_exit,
	.test_cases = fetch_bench_cases,
};

static struct kunit_case fetch_test_cases[] = {
	KUNIT_CASE_PARAM(fetch, fetch_gen_params),
	KUNIT_CASE(fetch_symbol),
	KUNIT_CASE(fetch_symstr),
	KUNIT_CASE(fetch_string_long),
	KUNIT_CASE(fetch_string_into_guard_page),
	KUNIT_CASE_PARAM(fetch_fixes, fetch_fix_gen_params),
	KUNIT_CASE_PARAM(fetch_faults_read_zero, fetch_fault_gen_params),
	{}
};

static struct kunit_suite fetch_test_suite = {
	.name = "probe_fetch",
	.suite_init = fetch_suite_init,
	.suite_exit = fetch_suite_exit,
	.init = fetch_test_init,
	.exit = probe_test_fs_exit,
	.test_cases = fetch_test_cases,
};

kunit_test_suites(&fetch_test_suite, &fetch_bench_suite);

MODULE_LICENSE("GPL");

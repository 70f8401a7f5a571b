// SPDX-License-Identifier: GPL-2.0-only
/*
 * White-box KUnit suite for what a uprobe hit fetches: trace_uprobe.c
 * includes this file at its end, so the suite runs an event's fetch
 * programs through uprobe_fetch_args() and uprobe_fetch_fast() on
 * registers it makes up and on user memory it maps itself, then reads
 * the bytes they stored.  The fork's trace_uprobe.c only: the distro's
 * includes nothing (the guest uprobe suite fires the same methods on
 * both builds, from real programs).
 *
 * Every expected value is one the suite put there: the registers of
 * fetch_test_init() and the user memory of fetch_layout().  Two cases
 * hit on two CPUs, to see that hit counts and fetch areas are per CPU.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>

#include "trace_probe_fuzz_kunit.h"
#include "trace_probe_kunit.h"

#define FETCH_MAX_ARGS	8
/* user memory: two pages mapped, then one unmapped, so reads past fault */
#define FETCH_MAPPED	(2 * PAGE_SIZE)
#define FETCH_STACK	0x100	/* the user stack pointer, from the memory's start */
#define FETCH_HELLO	0x80	/* "hello" */
#define FETCH_ARRAY	0x200	/* u32 10, 20, 30, 40 */
#define FETCH_LONG	0x400	/* FETCH_LONG_LEN 'a's and a NUL */
#define FETCH_LONG_LEN	2000

#define FETCH_SI	0x1122334455667788UL
#define FETCH_IP	0x400123UL
#define FETCH_AX	0xabcdefUL
#define FETCH_RET_ADDR	0x401000UL

/* an event on an empty file of the initramfs root */
#define FETCH_EVENT	"kfork/kf_refused"
#define FETCH_TARGET	"/kf_fetch_target"

struct fetch_env {
	struct trace_uprobe *tu;	/* room for FETCH_MAX_ARGS arguments */
	struct pt_regs regs;
	struct uprobe_hit hit;
	char __user *umem;
	void *buf;			/* a record's arguments: UPROBE_ARGS_MAX bytes */
	void *fast;			/* the same, fetched the fast way */
	bool areas;			/* holds the per-CPU fetch areas */
};

static struct fetch_env *fetch_env(struct kunit *test)
{
	return test->priv;
}

static unsigned long fetch_umem(struct kunit *test)
{
	return (unsigned long)fetch_env(test)->umem;
}

static void fetch_put(struct kunit *test, unsigned long off, const void *val, size_t len)
{
	KUNIT_ASSERT_EQ(test, copy_to_user(fetch_env(test)->umem + off, val, len), 0UL);
}

static void fetch_put_u64(struct kunit *test, unsigned long off, u64 val)
{
	fetch_put(test, off, &val, sizeof(val));
}

/*
 *   0x00  u64 0x0123456789abcdef
 *   0x08  u64 the address of 0x40
 *   0x10  u32 0xdeadbeef
 *   0x40  u64 0x4242
 *   0x48  u64 the address of FETCH_HELLO
 *   0x78  u64 0x7878
 *   FETCH_HELLO  "hello"
 *   FETCH_STACK  u64 FETCH_RET_ADDR, 77, 88 (the return address, $arg7, $arg8)
 *   FETCH_ARRAY  u32 10, 20, 30, 40
 *   FETCH_LONG   FETCH_LONG_LEN 'a's
 */
static void fetch_layout(struct kunit *test)
{
	static const u32 array[] = { 10, 20, 30, 40 };
	static const u32 beef = 0xdeadbeef;
	char *text;

	fetch_put_u64(test, 0x00, 0x0123456789abcdefULL);
	fetch_put_u64(test, 0x08, fetch_umem(test) + 0x40);
	fetch_put(test, 0x10, &beef, sizeof(beef));
	fetch_put_u64(test, 0x40, 0x4242);
	fetch_put_u64(test, 0x48, fetch_umem(test) + FETCH_HELLO);
	fetch_put_u64(test, 0x78, 0x7878);
	fetch_put(test, FETCH_HELLO, "hello", 6);
	fetch_put_u64(test, FETCH_STACK, FETCH_RET_ADDR);
	fetch_put_u64(test, FETCH_STACK + 8, 77);
	fetch_put_u64(test, FETCH_STACK + 16, 88);
	fetch_put(test, FETCH_ARRAY, array, sizeof(array));
	text = kunit_kmalloc(test, FETCH_LONG_LEN + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, text);
	memset(text, 'a', FETCH_LONG_LEN);
	text[FETCH_LONG_LEN] = '\0';
	fetch_put(test, FETCH_LONG, text, FETCH_LONG_LEN + 1);
}

/*
 * The event's arguments, parsed as uprobe_parse_args() parses them for
 * an entry probe or, with TPARG_FL_RETURN, a return probe.  Each text
 * is a format given the user address AT (most ignore it).
 */
static void fetch_define(struct kunit *test, unsigned int flags, const char *const *fmts,
			 int argc, unsigned long at)
{
	struct trace_uprobe *tu = fetch_env(test)->tu;
	const char *argv[FETCH_MAX_ARGS];
	int i, ret = 0;

	KUNIT_ASSERT_LE(test, argc, FETCH_MAX_ARGS);
	for (i = 0; i < argc; i++)
		argv[i] = probe_test_printf(test, fmts[i], fetch_umem(test) + at);
	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init("trace_uprobe", argc, argv);
	for (i = 0; i < argc && !ret; i++) {
		trace_probe_log_set_index(i);
		ret = traceprobe_parse_probe_arg(&tu->tp, i, argv[i], flags);
	}
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "parsing %s", argv[i - 1]);
}

static void fetch_define_one(struct kunit *test, const char *fmt, unsigned long at)
{
	fetch_define(test, TPARG_FL_FENTRY, &fmt, 1, at);
}

/* A hit: the arguments fetched into the buffer, the bytes they took. */
static int fetch_hit(struct kunit *test)
{
	struct fetch_env *env = fetch_env(test);

	return uprobe_fetch_args(env->tu, &env->hit, env->buf);
}

/* The first SIZE bytes of argument I's field, as a number. */
static u64 fetch_value(struct kunit *test, int i, unsigned int size)
{
	struct fetch_env *env = fetch_env(test);
	u64 val = 0;

	memcpy(&val, env->buf + env->tu->tp.args[i].offset, size);
	return val;
}

/* Argument I's string: its text, or NULL where the record says it faulted. */
static const char *fetch_string(struct kunit *test, int i)
{
	struct fetch_env *env = fetch_env(test);
	void *field = env->buf + env->tu->tp.args[i].offset;
	void *base = env->buf - uprobe_head_size(env->tu);
	u32 loc = *(u32 *)field;
	const char *text = get_loc_data(field, base);

	if (!get_loc_len(loc))
		return NULL;
	KUNIT_ASSERT_GE(test, (long)(text - (char *)env->buf), (long)env->tu->tp.size);
	KUNIT_ASSERT_LE(test, (long)(text + get_loc_len(loc) - (char *)env->buf),
			(long)UPROBE_ARGS_MAX);
	KUNIT_ASSERT_EQ_MSG(test, text[get_loc_len(loc) - 1], '\0', "string %d unterminated", i);
	return text;
}

/*
 * One argument, one number: the field's first SIZE bytes.  UMEM: the
 * value is an offset into the user memory, whose address is added.
 */
struct fetch_value_case {
	const char *arg;
	unsigned long at;	/* the user address a "%#lx" of ARG stands for */
	unsigned int size;
	u64 value;
	bool umem;
};

static const struct fetch_value_case fetch_value_cases[] = {
	{ "%%di", 0, 8, 0, true },
	{ "%%si:x64", 0, 8, FETCH_SI },
	{ "%%si:u8", 0, 1, 0x88 },
	{ "%%si:s16", 0, 2, 0x7788 },
	{ "%%ip", 0, 8, FETCH_IP },
	{ "+0(%%di):x64", 0, 8, 0x0123456789abcdefULL },
	{ "+8(%%di)", 0, 8, 0x40, true },
	{ "+0(+8(%%di)):u64", 0, 8, 0x4242 },
	{ "+16(%%di):u32", 0, 4, 0xdeadbeef },
	{ "+18(%%di):u16", 0, 2, 0xdead },
	/* bits 4 to 7 of 0xdeadbeef */
	{ "+16(%%di):b4@4/32", 0, 4, 0xe },
	/* 0x80 - 8 */
	{ "-8(+0x48(%%di)):x64", 0, 8, 0x7878 },
	{ "+8(%%sp):u64", 0, 8, 77 },
	{ "$stack", 0, 8, FETCH_STACK, true },
	{ "$stack0", 0, 8, FETCH_RET_ADDR },
	{ "$stack1", 0, 8, 77 },
	{ "$stack2:u32", 0, 4, 88 },
	{ "@%#lx:u32", 0x10, 4, 0xdeadbeef },
	{ "@%#lx", 0x48, 8, FETCH_HELLO, true },
	/* the hit's file_base is the memory's start */
	{ "@+16:u32", 0, 4, 0xdeadbeef },
	{ "+0(@+8):u64", 0, 8, 0x4242 },
	{ "\\1234", 0, 8, 1234 },
	{ "\\-1:s8", 0, 1, 0xff },
	/* a read of address 3 faults: the field holds 0 */
	{ "+0(%%dx):u64", 0, 8, 0 },
	/* System V: $arg1..$arg6 in di, si, dx, cx, r8, r9; then the stack */
	{ "$arg1", 0, 8, 0, true },
	{ "$arg2", 0, 8, FETCH_SI },
	{ "$arg3", 0, 8, 3 },
	{ "$arg4:s32", 0, 4, 0xfffffffe },
	{ "$arg5", 0, 8, 8 },
	{ "$arg6", 0, 8, 9 },
	{ "$arg7", 0, 8, 77 },
	{ "$arg8:u8", 0, 1, 88 },
	{ "+16($arg1):x32", 0, 4, 0xdeadbeef },
};

static void fetch_value_case_desc(const struct fetch_value_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, c->arg, 0UL);
}

KUNIT_ARRAY_PARAM(fetch_value, fetch_value_cases, fetch_value_case_desc);

static void fetch_values(struct kunit *test)
{
	const struct fetch_value_case *c = test->param_value;
	u64 want = (c->value + (c->umem ? fetch_umem(test) : 0)) & GENMASK_ULL(c->size * 8 - 1, 0);

	fetch_define_one(test, c->arg, c->at);
	KUNIT_ASSERT_EQ(test, fetch_hit(test), (int)fetch_env(test)->tu->tp.size);
	KUNIT_EXPECT_EQ(test, fetch_value(test, 0, c->size), want);
}

/*
 * $argN in a 32-bit task (a hit in compat mode, cs __USER32_CS): the
 * i386 cdecl convention, argument N in the 4-byte stack slot N above
 * the return address, zero-extended to the fetch's 64 bits.  The slots
 * are written over FETCH_STACK's words: slot 1 0xfffffff0, slot 2
 * 0x11223344, slot 3 0x55667788; what x86-64 would read ($arg1 is di,
 * $arg7 the word at sp + 8) is elsewhere, and so is the 8-byte word at
 * sp + 4, 0x11223344fffffff0, which a read of unsigned long would take.
 * Slot 1 sits in the last mapped bytes when sp is 8 bytes below the
 * unmapped page: slot 2 faults and records 0.
 */
struct fetch_compat_case {
	const char *arg;
	unsigned long sp;	/* from the memory's start */
	unsigned int size;
	u64 value;
};

static const struct fetch_compat_case fetch_compat_cases[] = {
	{ "$arg1:x64", FETCH_STACK, 8, 0xfffffff0 },
	{ "$arg1:s32", FETCH_STACK, 4, 0xfffffff0 },
	{ "$arg2", FETCH_STACK, 8, 0x11223344 },
	{ "$arg3:u16", FETCH_STACK, 2, 0x7788 },
	{ "$arg8", FETCH_STACK, 8, 0 },		/* 32 bytes up: FETCH_STACK's zeroes */
	{ "$arg1:u32", FETCH_MAPPED - 8, 4, 0xfffffff0 },
	{ "$arg2:u32", FETCH_MAPPED - 8, 4, 0 },
};

static void fetch_compat_case_desc(const struct fetch_compat_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, sp %#lx", c->arg, c->sp);
}

KUNIT_ARRAY_PARAM(fetch_compat, fetch_compat_cases, fetch_compat_case_desc);

static void fetch_compat_args(struct kunit *test)
{
	static const u32 slots[] = { FETCH_RET_ADDR, 0xfffffff0, 0x11223344, 0x55667788 };
	const struct fetch_compat_case *c = test->param_value;
	struct fetch_env *env = fetch_env(test);

	fetch_put(test, FETCH_STACK, slots, sizeof(slots));
	fetch_put(test, FETCH_MAPPED - 8, slots, 8);
	env->regs.cs = __USER32_CS;
	env->regs.sp = fetch_umem(test) + c->sp;
	fetch_define_one(test, c->arg, 0);
	KUNIT_ASSERT_EQ(test, fetch_hit(test), (int)env->tu->tp.size);
	KUNIT_EXPECT_EQ(test, fetch_value(test, 0, c->size), c->value);
}

/*
 * A bitfield is read and written back at its container's width, and no
 * wider: each is the only argument, fetched into a buffer of exactly
 * that many bytes, where KASAN reports a byte touched past the field.
 * The u32 at 0x10 is 0xdeadbeef (bytes ef be ad de) and the u64 at 0
 * 0x0123456789abcdef; the value is (v >> offset) & (2^width - 1).
 */
struct fetch_bitfield_case {
	const char *arg;
	unsigned long at;
	unsigned int size;
	u64 value;
};

static const struct fetch_bitfield_case fetch_bitfield_cases[] = {
	{ "@%#lx:b4@4/8", 0x10, 1, 0xe },	/* 0xef */
	{ "@%#lx:b4@12/16", 0x10, 2, 0xb },	/* 0xbeef */
	{ "@%#lx:b4@28/32", 0x10, 4, 0xd },	/* 0xdeadbeef */
	{ "@%#lx:b4@52/64", 0, 8, 0x2 },	/* 0x0123456789abcdef */
};

static void fetch_bitfield_case_desc(const struct fetch_bitfield_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, c->arg, c->at);
}

KUNIT_ARRAY_PARAM(fetch_bitfield, fetch_bitfield_cases, fetch_bitfield_case_desc);

static void fetch_bitfield_in_place(struct kunit *test)
{
	const struct fetch_bitfield_case *c = test->param_value;
	struct fetch_env *env = fetch_env(test);
	void *field = kunit_kmalloc(test, c->size, GFP_KERNEL);
	u64 got = 0;

	KUNIT_ASSERT_NOT_NULL(test, field);
	fetch_define_one(test, c->arg, c->at);
	KUNIT_ASSERT_EQ(test, env->tu->tp.size, c->size);
	KUNIT_EXPECT_EQ(test, uprobe_fetch_args(env->tu, &env->hit, field), (int)c->size);
	memcpy(&got, field, c->size);
	KUNIT_EXPECT_EQ(test, got, c->value);
}

/*
 * One argument, one string, or NULL for a read that faults: the field
 * says so with a length of 0 ("(fault)").  "COMM": current->comm.
 */
struct fetch_string_case {
	const char *arg;
	unsigned long at;
	const char *text;
};

static const struct fetch_string_case fetch_string_cases[] = {
	{ "+0x80(%%di):string", 0, "hello" },
	{ "+0(+0x48(%%di)):string", 0, "hello" },
	{ "+u0x80(%%di):string", 0, "hello" },
	{ "+0x80(%%di):ustring", 0, "hello" },
	{ "@%#lx:string", FETCH_HELLO, "hello" },
	{ "+0(@+0x48):string", 0, "hello" },
	{ "\\\"imm\"", 0, "imm" },
	{ "$comm", 0, "COMM" },
	{ "+0(%%si):string", 0, NULL },
	{ "+0(%%dx):string", 0, NULL },
	/* three bytes before the second page, four after (fetch_strings) */
	{ "@%#lx:string", PAGE_SIZE - 3, "abcdefg" },
	/* "wxyz" to the end of the second page, then the unmapped one */
	{ "@%#lx:string", FETCH_MAPPED - 4, NULL },
};

static void fetch_string_case_desc(const struct fetch_string_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, c->arg, c->at);
}

KUNIT_ARRAY_PARAM(fetch_string, fetch_string_cases, fetch_string_case_desc);

static void fetch_strings(struct kunit *test)
{
	const struct fetch_string_case *c = test->param_value;
	const char *want = c->text && !strcmp(c->text, "COMM") ? current->comm : c->text;
	const char *got;
	int len;

	fetch_put(test, PAGE_SIZE - 3, "abcdefg", 8);
	fetch_put(test, FETCH_MAPPED - 4, "wxyz", 4);
	fetch_define_one(test, c->arg, c->at);
	len = fetch_hit(test);
	got = fetch_string(test, 0);
	if (!want) {
		KUNIT_EXPECT_NULL_MSG(test, got, "read %s", got);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_STREQ(test, got, want);
	KUNIT_EXPECT_EQ(test, len, (int)(fetch_env(test)->tu->tp.size + strlen(want) + 1));
}

/*
 * A read of the unmapped page after the memory (bx points there) from
 * each instruction that reads user memory, at each store size: the
 * sleeping way records the fault value, 0 in each of SIZE bytes of a
 * number field or "(fault)" in each of STRINGS string fields, over a
 * buffer filled with 0xa5 first; the fast way misses, so that a hit
 * goes the sleeping way rather than record a page merely not present.
 */
struct fetch_fault_case {
	const char *arg;
	unsigned long at;
	unsigned int size;
	unsigned int strings;
};

/*
 * The hole is 8192 bytes from the memory's start, the file base of
 * "@+", and 992 words above the stack pointer at FETCH_STACK.
 */
static_assert(FETCH_MAPPED == 8192 && FETCH_MAPPED - FETCH_STACK == 992 * sizeof(long));

static const struct fetch_fault_case fetch_fault_cases[] = {
	{ "+0(%%bx):u8", 0, 1 },
	{ "+0(%%bx):s16", 0, 2 },
	{ "+0(%%bx):x32", 0, 4 },
	{ "+0(%%bx):u64", 0, 8 },
	{ "+u0(%%bx):u8", 0, 1 },
	{ "+u0(%%bx):u16", 0, 2 },
	{ "+u0(%%bx):u32", 0, 4 },
	{ "+u0(%%bx):u64", 0, 8 },
	{ "+0(%%bx):b4@4/32", 0, 4 },
	{ "+0(%%bx):u32[4]", 0, 16 },
	/* the dereference faults, before the store */
	{ "+0(+0(%%bx)):u32", 0, 4 },
	{ "+u0(+u0(%%bx)):u64", 0, 8 },
	{ "+0(+0(%%bx)):u16[3]", 0, 6 },
	{ "+0(+0(%%bx)):b3@1/8", 0, 1 },
	{ "@%#lx:u64", FETCH_MAPPED, 8 },
	{ "@+8192:u16", 0, 2 },
	{ "$stack992", 0, 8 },
	{ "$stack992:u8", 0, 1 },
	/* entry 998 - 6 above the return address: $stack992 */
	{ "$arg998", 0, 8 },
	{ "$arg998:s32", 0, 4 },
	{ "+0(%%bx):string", 0, 0, 1 },
	{ "+0(%%bx):ustring", 0, 0, 1 },
	{ "+u0(%%bx):string", 0, 0, 1 },
	{ "@%#lx:string", FETCH_MAPPED, 0, 1 },
	{ "+0(+0(%%bx)):string", 0, 0, 1 },
	{ "+0(+0(%%bx)):string[3]", 0, 0, 3 },
	{ "+0($stack992):string", 0, 0, 1 },
};

static void fetch_fault_case_desc(const struct fetch_fault_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, c->arg, c->at);
}

KUNIT_ARRAY_PARAM(fetch_fault, fetch_fault_cases, fetch_fault_case_desc);

/*
 * A hit the fast way, with page faults off, into the CPU's area: the
 * bytes it took, copied to the env's fast buffer, or -EFAULT where a
 * read missed and the hit would go the sleeping way.
 */
static int fetch_hit_fast(struct kunit *test)
{
	struct fetch_env *env = fetch_env(test);
	struct uprobe_fetch_area *area;
	int len;

	preempt_disable();
	area = this_cpu_ptr(uprobe_fetch_areas);
	len = uprobe_fetch_fast(env->tu, &env->hit, area);
	if (len >= 0)
		memcpy(env->fast, area->fast, len);
	preempt_enable();
	return len;
}

/*
 * The hit again the fast way, with page faults off, as a uprobe hit
 * first tries it: the suite's pages are all present, so it must store
 * exactly what the sleeping way stored (SLOW bytes in the buffer), or
 * miss (-EFAULT) where a read faults, for the hit to go the sleeping
 * way.  True if it missed.
 */
static bool fetch_fast_agrees(struct kunit *test, int slow, const char *arg)
{
	struct fetch_env *env = fetch_env(test);
	int len = fetch_hit_fast(test);
	bool same = len == slow && !memcmp(env->fast, env->buf, slow);

	if (len == -EFAULT)
		return true;
	KUNIT_EXPECT_TRUE_MSG(test, same, "%s: %d bytes the fast way, %d the sleeping way%s",
			      arg, len, slow, len == slow ? ", not the same" : "");
	return false;
}

static void fetch_faults(struct kunit *test)
{
	const struct fetch_fault_case *c = test->param_value;
	struct fetch_env *env = fetch_env(test);
	const u8 *field;
	unsigned int i;

	fetch_define_one(test, c->arg, c->at);
	memset(env->buf, 0xa5, UPROBE_ARGS_MAX);
	fetch_hit(test);
	field = env->buf + env->tu->tp.args[0].offset;
	for (i = 0; i < c->size; i++)
		KUNIT_EXPECT_EQ_MSG(test, field[i], 0, "byte %u", i);
	for (i = 0; i < c->strings; i++) {
		u32 loc = ((u32 *)field)[i];

		KUNIT_EXPECT_EQ_MSG(test, get_loc_len(loc), 0U, "string %u", i);
	}
	KUNIT_EXPECT_EQ(test, fetch_hit_fast(test), -EFAULT);
}

/*
 * An array of strings whose pointers run into the hole: the first, at
 * 0x1ff8 (FETCH_MAPPED - 8, the word before the hole), points at
 * "hello"; reading the second faults, and its string alone shows
 * "(fault)".
 */
static void fetch_string_array_into_hole(struct kunit *test)
{
	struct fetch_env *env = fetch_env(test);
	const char *got;

	fetch_put_u64(test, FETCH_MAPPED - 8, fetch_umem(test) + FETCH_HELLO);
	fetch_define_one(test, "+0x1ff8(%%di):string[2]", 0);
	memset(env->buf, 0xa5, UPROBE_ARGS_MAX);
	KUNIT_EXPECT_EQ(test, fetch_hit(test), (int)(env->tu->tp.size + sizeof("hello")));
	got = fetch_string(test, 0);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_STREQ(test, got, "hello");
	KUNIT_EXPECT_EQ(test, get_loc_len(((u32 *)(env->buf + env->tu->tp.args[0].offset))[1]),
			0U);
	KUNIT_EXPECT_EQ(test, fetch_hit_fast(test), -EFAULT);
}

/* An array: "+0x200(%di):u32[4]" holds the four numbers, in order. */
static void fetch_array(struct kunit *test)
{
	struct fetch_env *env = fetch_env(test);
	const u32 *field;
	int i;

	fetch_define_one(test, "+0x200(%%di):u32[4]", 0);
	KUNIT_ASSERT_EQ(test, fetch_hit(test), 16);
	field = env->buf + env->tu->tp.args[0].offset;
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, field[i], 10U * (i + 1));
}

/* A return probe's $retval is the return register, ax on x86-64. */
static void fetch_retval(struct kunit *test)
{
	static const char *const args[] = { "$retval", "r=$retval:s8" };

	fetch_define(test, TPARG_FL_RETURN, args, ARRAY_SIZE(args), 0);
	fetch_hit(test);
	KUNIT_EXPECT_EQ(test, fetch_value(test, 0, 8), (u64)FETCH_AX);
	KUNIT_EXPECT_EQ(test, fetch_value(test, 1, 1), (u64)(FETCH_AX & 0xff));
}

/*
 * Strings past a page stay in the page: four of FETCH_LONG_LEN + 1
 * bytes each after 16 bytes of fields.  The first two take 4002 of the
 * 4080 bytes left, the third what remains, 78 bytes (77 'a's and the
 * NUL: a cut string keeps what fits before its NUL), the fourth none,
 * as a fault.  The buffer is exactly UPROBE_ARGS_MAX bytes, so a byte
 * written past it is a KASAN report.
 */
static void fetch_strings_stay_in_buffer(struct kunit *test)
{
	static const char *const args[] = {
		"@%#lx:string", "@%#lx:string", "@%#lx:string", "@%#lx:string",
	};
	const unsigned long room = UPROBE_ARGS_MAX - 4 * sizeof(u32);
	const unsigned long whole = FETCH_LONG_LEN + 1;
	const char *got;
	int i;

	fetch_define(test, TPARG_FL_FENTRY, args, ARRAY_SIZE(args), FETCH_LONG);
	KUNIT_ASSERT_EQ(test, fetch_env(test)->tu->tp.size, 16U);
	KUNIT_EXPECT_EQ(test, fetch_hit(test), (int)UPROBE_ARGS_MAX);
	for (i = 0; i < 2; i++) {
		got = fetch_string(test, i);
		KUNIT_ASSERT_NOT_NULL(test, got);
		KUNIT_EXPECT_EQ(test, strlen(got), (size_t)FETCH_LONG_LEN);
	}
	got = fetch_string(test, 2);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_EQ(test, strlen(got), (size_t)(room - 2 * whole - 1));
	KUNIT_EXPECT_EQ(test, strspn(got, "a"), strlen(got));
	KUNIT_EXPECT_NULL(test, fetch_string(test, 3));
	KUNIT_EXPECT_FALSE(test, fetch_fast_agrees(test, UPROBE_ARGS_MAX, "four long strings"));
}

/*
 * A kernel string (an immediate one here) cut by the room left at the
 * buffer's end keeps its NUL inside the room.  FIRST 'c's and a NUL at
 * 0x1000 leave 5 of the bytes after the two data_locs, so "0123456789"
 * gets "0123" and its NUL, and the hit fills the buffer exactly.
 */
static void fetch_kernel_string_cut(struct kunit *test)
{
	static const char *const args[] = { "@%#lx:string", "\\\"0123456789\"" };
	const size_t first = UPROBE_ARGS_MAX - 2 * sizeof(u32) - 5 - 1;
	char *text = kunit_kmalloc(test, first + 1, GFP_KERNEL);
	const char *got;

	KUNIT_ASSERT_NOT_NULL(test, text);
	KUNIT_ASSERT_LE(test, 0x1000 + first + 1, (size_t)FETCH_MAPPED);
	memset(text, 'c', first);
	text[first] = '\0';
	fetch_put(test, 0x1000, text, first + 1);
	fetch_define(test, TPARG_FL_FENTRY, args, ARRAY_SIZE(args), 0x1000);
	KUNIT_ASSERT_EQ(test, fetch_env(test)->tu->tp.size, 8U);
	KUNIT_EXPECT_EQ(test, fetch_hit(test), (int)UPROBE_ARGS_MAX);
	got = fetch_string(test, 0);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_EQ(test, strlen(got), first);
	got = fetch_string(test, 1);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_STREQ(test, got, "0123");
	KUNIT_EXPECT_FALSE(test, fetch_fast_agrees(test, UPROBE_ARGS_MAX, "a cut immediate"));
}

/*
 * 6.1 sizes a string longer than MAX_STRING_SIZE as nothing, so the
 * room it then gets is what the strings after it sized: "hello" sizes
 * 6 bytes, which the long string fills with 5 'b's and its NUL, and
 * "hello" finds none left ("(fault)").  The fast way reads no sizes
 * first; it must still record the same.
 */
static void fetch_string_past_max_size(struct kunit *test)
{
	static const char *const args[] = { "@%#lx:string", "+0x80(%%di):string" };
	const unsigned long at = 0xc00;
	char *text = kunit_kmalloc(test, MAX_STRING_SIZE + 2, GFP_KERNEL);
	int len;

	KUNIT_ASSERT_NOT_NULL(test, text);
	memset(text, 'b', MAX_STRING_SIZE + 1);
	text[MAX_STRING_SIZE + 1] = '\0';
	KUNIT_ASSERT_LE(test, at + MAX_STRING_SIZE + 2, (unsigned long)FETCH_MAPPED);
	fetch_put(test, at, text, MAX_STRING_SIZE + 2);
	fetch_define(test, TPARG_FL_FENTRY, args, ARRAY_SIZE(args), at);
	len = fetch_hit(test);
	KUNIT_EXPECT_EQ(test, len, (int)(fetch_env(test)->tu->tp.size + 6));
	KUNIT_EXPECT_STREQ(test, fetch_string(test, 0), "bbbbb");
	KUNIT_EXPECT_NULL(test, fetch_string(test, 1));
	KUNIT_EXPECT_FALSE(test, fetch_fast_agrees(test, len, "a string past MAX_STRING_SIZE"));
}

/*
 * The fast way reads with page faults off: a page not yet brought in
 * misses (-EFAULT, and the hit goes the sleeping way), a present one
 * reads.  A fresh anonymous page is absent until touched; reading it
 * the sleeping way maps the zero page, and writing it gives it data.
 */
static void fetch_fast_needs_present_pages(struct kunit *test)
{
	struct fetch_env *env = fetch_env(test);
	unsigned long fresh;
	int len;

	fresh = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(fresh));
	fetch_define_one(test, "@%#lx:u64", fresh - fetch_umem(test));

	KUNIT_EXPECT_EQ(test, fetch_hit_fast(test), -EFAULT);
	KUNIT_EXPECT_EQ(test, fetch_hit(test), 8);
	KUNIT_EXPECT_EQ(test, fetch_value(test, 0, 8), 0ULL);
	KUNIT_ASSERT_EQ(test, put_user(0x5555ULL, (u64 __user *)fresh), 0);
	len = fetch_hit_fast(test);
	KUNIT_EXPECT_EQ(test, len, 8);
	if (len == 8)
		KUNIT_EXPECT_EQ(test, *(u64 *)(env->fast + env->tu->tp.args[0].offset), 0x5555ULL);
	vm_munmap(fresh, PAGE_SIZE);
}

/*
 * An enable the uprobes core refuses gives back what it took.  The
 * probe's offset, 0x10, lies past the end of its empty file, so
 * uprobe_register_refctr() fails (-EINVAL): the fetch areas' count is
 * back to the suite's own reference, and the event, not enabled, can
 * be removed.  A count left raised would keep the areas' pages for as
 * long as the kernel runs.
 */
static void fetch_refused_enable_puts_areas(struct kunit *test)
{
	struct trace_uprobe *tu;
	unsigned int users;
	int ret;

	KUNIT_ASSERT_EQ(test, probe_test_create_file(FETCH_TARGET), 0);
	ret = dyn_event_create("p:" FETCH_EVENT " " FETCH_TARGET ":0x10", &trace_uprobe_ops);
	KUNIT_ASSERT_EQ(test, ret, 0);

	mutex_lock(&event_mutex);
	users = uprobe_fetch_users;
	tu = uprobe_find("kf_refused", "kfork");
	ret = tu ? uprobe_event_enable(trace_probe_event_call(&tu->tp), NULL, NULL) : -ENOENT;
	if (!ret)
		uprobe_event_disable(trace_probe_event_call(&tu->tp), NULL);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, uprobe_fetch_users, users);
	KUNIT_EXPECT_FALSE(test, tu && trace_probe_is_enabled(&tu->tp));
	mutex_unlock(&event_mutex);

	KUNIT_EXPECT_EQ(test, dyn_event_release("-:" FETCH_EVENT, &trace_uprobe_ops), 0);
	probe_test_remove_file(FETCH_TARGET);
}

/*
 * Two online CPUs, for the cases that hit on each: skipped on one
 * (every kernel tools/kunit boots has two, kunit/smp.config).
 */
static void fetch_two_cpus(struct kunit *test, int cpus[2])
{
	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	if (cpus[1] >= nr_cpu_ids)
		kunit_skip(test, "one CPU online: the case needs two");
}

struct fetch_on_cpu {
	struct trace_uprobe *tu;
	struct pt_regs regs;
	unsigned int hits;
	unsigned int flags;	/* the consumers uprobe_record_hit() serves */
};

/* On the CPU work_on_cpu() runs it: HITS hits, counted or recorded. */
static long fetch_hit_here(void *data)
{
	struct fetch_on_cpu *on = data;
	struct uprobe_hit hit = { .regs = &on->regs };
	unsigned int i;

	for (i = 0; i < on->hits; i++) {
		if (on->flags)
			uprobe_record_hit(on->tu, &hit, on->flags);
		else
			uprobe_entry_handler(&on->tu->consumer, &on->regs);
	}
	return 0;
}

/*
 * Hits are counted on the CPU they happen on and summed when
 * uprobe_profile is read: 3 hits on one CPU and 5 on another are 3 and
 * 5 in their CPUs' counters, 8 in all.  A counter shared by the CPUs
 * would show 8 in one slot (or lose some when hits race).
 */
static void fetch_hits_counted_per_cpu(struct kunit *test)
{
	struct trace_uprobe *tu = fetch_env(test)->tu;
	struct fetch_on_cpu on = { .tu = tu, .regs = fetch_env(test)->regs };
	int cpus[2];

	fetch_two_cpus(test, cpus);
	tu->nhit = alloc_percpu(unsigned long);
	KUNIT_ASSERT_NOT_NULL(test, tu->nhit);
	on.hits = 3;
	KUNIT_EXPECT_EQ(test, work_on_cpu(cpus[0], fetch_hit_here, &on), 0L);
	on.hits = 5;
	KUNIT_EXPECT_EQ(test, work_on_cpu(cpus[1], fetch_hit_here, &on), 0L);
	KUNIT_EXPECT_EQ(test, *per_cpu_ptr(tu->nhit, cpus[0]), 3UL);
	KUNIT_EXPECT_EQ(test, *per_cpu_ptr(tu->nhit, cpus[1]), 5UL);
	KUNIT_EXPECT_EQ(test, uprobe_hits(tu), 8UL);
	free_percpu(tu->nhit);
	tu->nhit = NULL;
}

/*
 * A hit fetches into its own CPU's area: %si of a hit on each CPU is
 * in that CPU's area afterwards, each CPU's value in its own.  An area
 * shared by the CPUs would hold the last hit's value in both places.
 */
static void fetch_area_is_the_hitting_cpus(struct kunit *test)
{
	static const unsigned long si[2] = { 0x1111111111111111UL, 0x2222222222222222UL };
	struct fetch_on_cpu on = {
		.tu = fetch_env(test)->tu, .regs = fetch_env(test)->regs,
		.hits = 1, .flags = TP_FLAG_TRACE,
	};
	struct uprobe_fetch_area *area;
	int cpus[2], i;

	fetch_two_cpus(test, cpus);
	fetch_define_one(test, "%%si", 0);
	for (i = 0; i < 2; i++) {
		on.regs.si = si[i];
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpus[i], fetch_hit_here, &on), 0L);
	}
	for (i = 0; i < 2; i++) {
		area = per_cpu_ptr(uprobe_fetch_areas, cpus[i]);
		KUNIT_EXPECT_EQ_MSG(test, *(unsigned long *)area->fast, si[i],
				    "CPU %d's area", cpus[i]);
	}
}

/* Free the event's arguments, for the next definition. */
static void fetch_forget_args(struct trace_uprobe *tu)
{
	int i;

	for (i = 0; i < tu->tp.nr_args; i++)
		traceprobe_free_probe_arg(&tu->tp.args[i]);
	memset(tu->tp.args, 0, tu->tp.nr_args * sizeof(*tu->tp.args));
	tu->tp.nr_args = 0;
	tu->tp.size = 0;
}

/* ARG as the event's one argument, as KIND's command would parse it. */
static int fetch_parse(struct kunit *test, const struct probe_kind *kind, const char *arg)
{
	const char *argv[3] = { kind->words[0], kind->words[1], arg };
	int ret;

	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init(kind->subsystem, ARRAY_SIZE(argv), argv);
	trace_probe_log_set_index(2);
	ret = traceprobe_parse_probe_arg(&fetch_env(test)->tu->tp, 0, arg, kind->flags);
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);
	return ret;
}

/* The fetched argument as the trace file prints it: " NAME=VALUE", VALUE well formed. */
static void fetch_check_printed(struct kunit *test, struct trace_seq *seq, const char *arg)
{
	struct fetch_env *env = fetch_env(test);
	struct probe_arg *parg = &env->tu->tp.args[0];
	struct arg_shape shape = { parg->type->name, parg->count };
	char *text = seq->buffer, *value, prefix[MAX_ARG_NAME_LEN + 4];
	size_t len;

	trace_seq_init(seq);
	KUNIT_ASSERT_EQ(test, print_probe_args(seq, parg, 1, env->buf,
					       env->buf - uprobe_head_size(env->tu)), 0);
	len = trace_seq_used(seq);
	KUNIT_ASSERT_LT(test, len, sizeof(seq->buffer));
	text[len] = '\0';
	snprintf(prefix, sizeof(prefix), " %s=", parg->name);
	KUNIT_ASSERT_TRUE_MSG(test, str_has_prefix(text, prefix), "%s printed as %.200s",
			      arg, text);
	value = text + strlen(prefix);
	KUNIT_EXPECT_TRUE_MSG(test, fire_field_ok(value, text + len, &shape),
			      "%s, %s[%u], printed as %.200s", arg, shape.type, shape.count, value);
}

static bool fuzz_full;
module_param(fuzz_full, bool, 0444);
MODULE_PARM_DESC(fuzz_full, "uprobe_fetch: fetch all of probe_fuzz's strings, not a fiftieth");

static const int fetch_fuzz_runs[FUZZ_RUNS] = { 0, 1, 2, 3 };

static void fetch_fuzz_run_desc(const int *run, char *desc)
{
	fuzz_run_desc(*run, fuzz_full, desc);
}

KUNIT_ARRAY_PARAM(fetch_fuzz_run, fetch_fuzz_runs, fetch_fuzz_run_desc);

/*
 * probe_fuzz's strings, the same ones (its generator, seeds and sample,
 * from trace_probe_fuzz_kunit.h): each that a uprobe kind accepts is
 * defined alone on the event, fetched on this suite's registers and
 * memory as a hit would, and printed as the trace file prints it:
 * one well-formed field and no checker report; then fetched the fast
 * way, which must agree or miss.  probe_fuzz itself
 * fires what the kprobe kinds accept; a kthread has no user code a
 * real uprobe could hit.
 */
static void fetch_fuzz(struct kunit *test)
{
	struct trace_seq *seq = kunit_kmalloc(test, sizeof(*seq), GFP_KERNEL);
	struct trace_uprobe *tu = fetch_env(test)->tu;
	const int *run = test->param_value;
	unsigned int fired = 0, missed = 0;
	const struct probe_kind *kind;
	struct rnd_state rnd;
	struct fuzz_str s;
	int i, len;

	KUNIT_ASSERT_NOT_NULL(test, seq);
	prandom_seed_state(&rnd, FUZZ_SEED + *run);
	for (i = 0; i < fuzz_run_length(fuzz_full); i++) {
		kind = fuzz_draw(&s, &rnd);
		if (strcmp(kind->subsystem, "trace_uprobe"))
			continue;
		if (!fetch_parse(test, kind, s.buf)) {
			len = fetch_hit(test);
			fetch_check_printed(test, seq, s.buf);
			missed += fetch_fast_agrees(test, len, s.buf);
			fired++;
		}
		fetch_forget_args(tu);
		cond_resched();
	}
	kunit_info(test, "%u accepted uprobe arguments fetched and printed, %u missed the fast way\n",
		   fired, missed);
	/* both ways of the fast fetch were taken: it agreed, and it missed */
	KUNIT_EXPECT_GT(test, fired - missed, 0U);
	KUNIT_EXPECT_GT(test, missed, 0U);
}

/*
 * A uprobe event of our own, never registered, user memory of
 * FETCH_MAPPED bytes with the page after it unmapped, registers
 * pointing into it (di the memory, sp FETCH_STACK into it), and the
 * per-CPU fetch areas, held as an enabled event holds them.
 */
static int fetch_test_init(struct kunit *test)
{
	struct fetch_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	unsigned long addr;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, env);
	test->priv = env;
	env->tu = kunit_kzalloc(test, struct_size(env->tu, tp.args, FETCH_MAX_ARGS), GFP_KERNEL);
	env->buf = kunit_kzalloc(test, UPROBE_ARGS_MAX, GFP_KERNEL);
	env->fast = kunit_kzalloc(test, UPROBE_ARGS_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->tu);
	KUNIT_ASSERT_NOT_NULL(test, env->buf);
	KUNIT_ASSERT_NOT_NULL(test, env->fast);
	KUNIT_ASSERT_EQ(test, trace_probe_init(&env->tu->tp, "fetch", "kfork", false), 0);
	KUNIT_ASSERT_EQ(test, kfork_test_use_mm(), 0);
	addr = vm_mmap(NULL, 0, FETCH_MAPPED + PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_EQ(test, vm_munmap(addr + FETCH_MAPPED, PAGE_SIZE), 0);
	env->umem = (char __user *)addr;
	fetch_layout(test);

	env->regs.di = addr;
	env->regs.si = FETCH_SI;
	env->regs.bx = addr + FETCH_MAPPED;
	env->regs.dx = 3;
	env->regs.cx = -2UL;
	env->regs.r8 = 8;
	env->regs.r9 = 9;
	env->regs.ax = FETCH_AX;
	env->regs.sp = addr + FETCH_STACK;
	env->regs.ip = FETCH_IP;
	env->regs.cs = __USER_CS;	/* a 64-bit task's hit */
	env->hit = (struct uprobe_hit) { .regs = &env->regs, .file_base = addr };

	mutex_lock(&event_mutex);
	ret = uprobe_fetch_areas_get();
	mutex_unlock(&event_mutex);
	KUNIT_ASSERT_EQ(test, ret, 0);
	env->areas = true;
	return 0;
}

static void fetch_test_exit(struct kunit *test)
{
	struct fetch_env *env = fetch_env(test);

	if (!env)
		return;
	if (env->areas) {
		mutex_lock(&event_mutex);
		uprobe_fetch_areas_put();
		mutex_unlock(&event_mutex);
	}
	/* the mappings go with the test thread's mm, which exit may not run in */
	if (env->tu && env->tu->tp.event)
		trace_probe_cleanup(&env->tu->tp);
}

static struct kunit_case fetch_test_cases[] = {
	KUNIT_CASE_PARAM(fetch_values, fetch_value_gen_params),
	KUNIT_CASE_PARAM(fetch_compat_args, fetch_compat_gen_params),
	KUNIT_CASE_PARAM(fetch_bitfield_in_place, fetch_bitfield_gen_params),
	KUNIT_CASE_PARAM(fetch_strings, fetch_string_gen_params),
	KUNIT_CASE_PARAM(fetch_faults, fetch_fault_gen_params),
	KUNIT_CASE(fetch_string_array_into_hole),
	KUNIT_CASE(fetch_array),
	KUNIT_CASE(fetch_retval),
	KUNIT_CASE(fetch_strings_stay_in_buffer),
	KUNIT_CASE(fetch_kernel_string_cut),
	KUNIT_CASE(fetch_string_past_max_size),
	KUNIT_CASE(fetch_fast_needs_present_pages),
	KUNIT_CASE(fetch_refused_enable_puts_areas),
	KUNIT_CASE(fetch_hits_counted_per_cpu),
	KUNIT_CASE(fetch_area_is_the_hitting_cpus),
	KUNIT_CASE_PARAM(fetch_fuzz, fetch_fuzz_run_gen_params),
	{}
};

static struct kunit_suite fetch_test_suite = {
	.name = "uprobe_fetch",
	.init = fetch_test_init,
	.exit = fetch_test_exit,
	.test_cases = fetch_test_cases,
};

kunit_test_suite(fetch_test_suite);

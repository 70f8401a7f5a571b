// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_parse: what the probe-event parser makes of a command, seen the
 * way userspace sees it.  A valid command is written to kprobe_events
 * and judged by the format file of the event it creates: one field per
 * argument, of the type, offset, size and signedness its fetch type
 * implies, and a print format that shows it.  An invalid command must
 * fail and leave one error_log entry with the message of its cause and
 * the caret under the character that caused it.
 *
 * Expected values come from Documentation/trace/kprobetrace.rst and the
 * rules restated next to each table, not from a run: a field is named
 * after its argument (argN when unnamed), arguments are laid out in
 * order without padding after the probe's own fields, and each type
 * keeps the field type, size and format its description gives.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe_kunit.h"

#define EVENT		"kfork/kf"
#define FORMAT		"events/" EVENT "/format"
/* created by the suite on the initramfs root: uprobes need a regular file */
#define TARGET		"/kf_probe_target"
/* and a directory, which they refuse */
#define TARGET_DIR	"/kf_probe_dir"

/* One line of a format file: declaration, offset, size, signedness. */
#define FIELD(decl, off, size, sign)					\
	"\tfield:" decl ";\toffset:" #off ";\tsize:" #size ";\tsigned:" #sign ";\n"

/*
 * The probe core prints 64-bit values with the L length modifier,
 * which checkpatch flags in any string literal: those formats are
 * built from a lone percent sign.
 */
#define PERCENT		"%"
#define U64_FMT		PERCENT "Lu"
#define S64_FMT		PERCENT "Ld"
#define X64_FMT		"0x" PERCENT "Lx"

/* "+0...0": an offset of 0 written in 58 characters, for bodies at the length limit */
#define OFFSET_OF_58	"+000000000000000000000000000000000000000000000000000000000"

/* 31 and 32 characters, to build names at and past the limits */
#define CHARS31		"abcdefghijklmnopqrstuvwxyz01234"
#define CHARS32		CHARS31 "5"

struct parse_ok_case {
	const char *file;	/* kprobe_events or uprobe_events */
	const char *cmd;
	const char *tail;	/* the format file from the probe's own fields on */
};

/*
 * After the 8 bytes of common fields, an entry probe records where it
 * hit, and a return probe the function and the return address, each an
 * unsigned long; the arguments follow, at 16 or at 24.
 */
#define ENTRY_CASE(_file, _cmd, fields, fmt, recs) {			\
	.file = _file, .cmd = _cmd,					\
	.tail = FIELD("unsigned long __probe_ip", 8, 8, 0)		\
		fields "\nprint fmt: \"(%lx)" fmt			\
		"\", REC->__probe_ip" recs "\n",			\
}

#define RETURN_CASE(_file, _cmd, fields, fmt, recs) {			\
	.file = _file, .cmd = _cmd,					\
	.tail = FIELD("unsigned long __probe_func", 8, 8, 0)		\
		FIELD("unsigned long __probe_ret_ip", 16, 8, 0)		\
		fields "\nprint fmt: \"(%lx <- %lx)" fmt			\
		"\", REC->__probe_func, REC->__probe_ret_ip" recs "\n",	\
}

/* Kprobes on vfs_read, at its entry and its return. */
#define KPROBE(args, fields, fmt, recs)					\
	ENTRY_CASE("kprobe_events", "p:" EVENT " vfs_read " args, fields, fmt, recs)
#define KRETPROBE(args, fields, fmt, recs)				\
	RETURN_CASE("kprobe_events", "r:" EVENT " vfs_read " args, fields, fmt, recs)

/*
 * The types, on a register: uN and sN are fields of their own name,
 * N/8 bytes, printed %u/%d (with the L modifier at 64 bits); xN is a
 * uN field printed in hex; the default is x64 (an unsigned long on x86_64).
 * symbol is an address printed %pS; the string types are a __data_loc
 * of char (signed on x86), 4 bytes in the entry, printed with
 * __get_str().  A bitfield b<width>@<offset>/<container> is a field of
 * the container's unsigned type.
 */
static const struct parse_ok_case parse_type_cases[] = {
	KPROBE("a=%ax:u8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	KPROBE("a=%ax:u16", FIELD("u16 a", 16, 2, 0), " a=%u", ", REC->a"),
	KPROBE("a=%ax:u32", FIELD("u32 a", 16, 4, 0), " a=%u", ", REC->a"),
	KPROBE("a=%ax:u64", FIELD("u64 a", 16, 8, 0), " a=" U64_FMT, ", REC->a"),
	KPROBE("a=%ax:s8", FIELD("s8 a", 16, 1, 1), " a=%d", ", REC->a"),
	KPROBE("a=%ax:s16", FIELD("s16 a", 16, 2, 1), " a=%d", ", REC->a"),
	KPROBE("a=%ax:s32", FIELD("s32 a", 16, 4, 1), " a=%d", ", REC->a"),
	KPROBE("a=%ax:s64", FIELD("s64 a", 16, 8, 1), " a=" S64_FMT, ", REC->a"),
	KPROBE("a=%ax:x8", FIELD("u8 a", 16, 1, 0), " a=0x%x", ", REC->a"),
	KPROBE("a=%ax:x16", FIELD("u16 a", 16, 2, 0), " a=0x%x", ", REC->a"),
	KPROBE("a=%ax:x32", FIELD("u32 a", 16, 4, 0), " a=0x%x", ", REC->a"),
	KPROBE("a=%ax:x64", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=%ax", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=%ax:symbol", FIELD("u64 a", 16, 8, 0), " a=%pS", ", REC->a"),
	KPROBE("a=%ax:symstr", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=+0(%si):string", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=+0(%si):ustring", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=%ax:b4@2/32", FIELD("u32 a", 16, 4, 0), " a=%u", ", REC->a"),
	KPROBE("a=%ax:b1@0/8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	/* the widest that fits: width + offset = container */
	KPROBE("a=%ax:b4@4/8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	KPROBE("a=%ax:b16@0/16", FIELD("u16 a", 16, 2, 0), " a=%u", ", REC->a"),
	KPROBE("a=%ax:b1@63/64", FIELD("u64 a", 16, 8, 0), " a=" U64_FMT, ", REC->a"),
	KPROBE("a=%ax:b64@0/64", FIELD("u64 a", 16, 8, 0), " a=" U64_FMT, ", REC->a"),
};

/*
 * The fetch methods, with the default type unless the method implies
 * one: $comm and an immediate string are strings.
 */
static const struct parse_ok_case parse_method_cases[] = {
	KPROBE("a=%di", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=%r15", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=%ip", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=%flags", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=@jiffies", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=@jiffies+8", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=@jiffies-8", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=@0xffffffff81000000", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=$stack", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=$stack0", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=$stack31:u32", FIELD("u32 a", 16, 4, 0), " a=%u", ", REC->a"),
	KPROBE("a=$arg1", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=$arg4:s32", FIELD("s32 a", 16, 4, 1), " a=%d", ", REC->a"),
	KPROBE("a=$comm", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=$comm:string", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=\\1234", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=\\0x10:u8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	KPROBE("a=\\-1:s16", FIELD("s16 a", 16, 2, 1), " a=%d", ", REC->a"),
	KPROBE("a=\\\"hello\"", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=+8(%di)", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=-8(%di):u16", FIELD("u16 a", 16, 2, 0), " a=%u", ", REC->a"),
	KPROBE("a=+0x10(+8(%di)):s8", FIELD("s8 a", 16, 1, 1), " a=%d", ", REC->a"),
	KPROBE("a=+0(@jiffies)", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	KPROBE("a=+u0(%si):u32", FIELD("u32 a", 16, 4, 0), " a=%u", ", REC->a"),
	KPROBE("a=+u0(%si):ustring", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	KPROBE("a=+0(+0(+0(+0(%di)))):x32", FIELD("u32 a", 16, 4, 0), " a=0x%x", ", REC->a"),
	KRETPROBE("a=$retval", FIELD("u64 a", 24, 8, 0), " a=" X64_FMT, ", REC->a"),
	KRETPROBE("a=$retval:s32", FIELD("s32 a", 24, 4, 1), " a=%d", ", REC->a"),
	KRETPROBE("a=+0($retval):u8", FIELD("u8 a", 24, 1, 0), " a=%u", ", REC->a"),
	KRETPROBE("a=%ax b=$comm", FIELD("u64 a", 24, 8, 0)
		  FIELD("__data_loc char[] b", 32, 4, 1),
		  " a=" X64_FMT " b=\\\"%s\\\"", ", REC->a, __get_str(b)"),
};

/*
 * Arrays (memory fetches only): a field of N elements of the type,
 * printed in braces; an array of strings is N __data_loc entries.  The
 * format file shows "name[]": the probe core defines the field with
 * trace_define_field(), which records no element count, and
 * trace_events.c prints a count only when one was recorded; the size
 * says how many.
 */
static const struct parse_ok_case parse_array_cases[] = {
	KPROBE("a=+0(%di):u32[4]", FIELD("u32 a[]", 16, 16, 0),
	       " a={%u,%u,%u,%u}", ", REC->a[0], REC->a[1], REC->a[2], REC->a[3]"),
	KPROBE("a=+0(%di):x8[2]", FIELD("u8 a[]", 16, 2, 0),
	       " a={0x%x,0x%x}", ", REC->a[0], REC->a[1]"),
	KPROBE("a=+0(%di):s64[1]", FIELD("s64 a[]", 16, 8, 1), " a={" S64_FMT "}", ", REC->a[0]"),
	KPROBE("a=+0(%di):string[2]", FIELD("__data_loc char[][2] a", 16, 8, 1),
	       " a={\\\"%s\\\",\\\"%s\\\"}", ", __get_str(a[0]), __get_str(a[1])"),
	KPROBE("a=+0(%di):b4@4/16[3]", FIELD("u16 a[]", 16, 6, 0),
	       " a={%u,%u,%u}", ", REC->a[0], REC->a[1], REC->a[2]"),
};

/*
 * Several arguments: packed in order without padding, unnamed ones
 * called argN after their position.
 */
static const struct parse_ok_case parse_layout_cases[] = {
	KPROBE("%ax %bx", FIELD("u64 arg1", 16, 8, 0) FIELD("u64 arg2", 24, 8, 0),
	       " arg1=" X64_FMT " arg2=" X64_FMT, ", REC->arg1, REC->arg2"),
	KPROBE("a=%ax:u8 b=%bx:u32 c=%cx:s16",
	       FIELD("u8 a", 16, 1, 0) FIELD("u32 b", 17, 4, 0) FIELD("s16 c", 21, 2, 1),
	       " a=%u b=%u c=%d", ", REC->a, REC->b, REC->c"),
	KPROBE("%ax:u8 b=%bx %cx:u16",
	       FIELD("u8 arg1", 16, 1, 0) FIELD("u64 b", 17, 8, 0) FIELD("u16 arg3", 25, 2, 0),
	       " arg1=%u b=" X64_FMT " arg3=%u", ", REC->arg1, REC->b, REC->arg3"),
	KPROBE("s=+0(%si):string n=%dx:u32",
	       FIELD("__data_loc char[] s", 16, 4, 1) FIELD("u32 n", 20, 4, 0),
	       " s=\\\"%s\\\" n=%u", ", __get_str(s), REC->n"),
	KPROBE("_x=%ax A_9=%bx:u8", FIELD("u64 _x", 16, 8, 0) FIELD("u8 A_9", 24, 1, 0),
	       " _x=" X64_FMT " A_9=%u", ", REC->_x, REC->A_9"),
	/* a name of MAX_ARG_NAME_LEN (32) characters */
	KPROBE(CHARS32 "=%ax:u8", FIELD("u8 " CHARS32, 16, 1, 0),
	       " " CHARS32 "=%u", ", REC->" CHARS32),
};

/*
 * Uprobes on TARGET record the same fields as kprobes.  They fetch from
 * user registers and memory: @ADDR is a user address, @+OFFS an offset
 * into the probed file, $stackN has no limit (the user stack has no
 * fixed size), and the 'u' of +uOFFS changes nothing (all memory is
 * user memory).
 */
#define UPROBE(place, args, fields, fmt, recs)				\
	ENTRY_CASE("uprobe_events", "p:" EVENT " " TARGET ":" place args, fields, fmt, recs)
#define URETPROBE(place, args, fields, fmt, recs)			\
	RETURN_CASE("uprobe_events", "r:" EVENT " " TARGET ":" place args, fields, fmt, recs)

static const struct parse_ok_case parse_uprobe_cases[] = {
	UPROBE("0x10", "", "", "", ""),
	UPROBE("0x10(0x20)", "", "", "", ""),
	UPROBE("16", " a=%ax:u32", FIELD("u32 a", 16, 4, 0), " a=%u", ", REC->a"),
	UPROBE("0x10", " a=%ip", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	UPROBE("0x10", " a=@0x601040:s16", FIELD("s16 a", 16, 2, 1), " a=%d", ", REC->a"),
	UPROBE("0x10", " a=@+0x1040:u8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	UPROBE("0x10", " a=$stack", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	UPROBE("0x10", " a=$stack3:x16", FIELD("u16 a", 16, 2, 0), " a=0x%x", ", REC->a"),
	UPROBE("0x10", " a=$stack100000", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	UPROBE("0x10", " a=$comm", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	UPROBE("0x10", " a=\\7:u8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	UPROBE("0x10", " a=\\\"hi\"", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	UPROBE("0x10", " a=+0(%di):string", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	UPROBE("0x10", " a=+u0(%di):ustring", FIELD("__data_loc char[] a", 16, 4, 1),
	       " a=\\\"%s\\\"", ", __get_str(a)"),
	UPROBE("0x10", " a=+4(+8(%sp)):s32", FIELD("s32 a", 16, 4, 1), " a=%d", ", REC->a"),
	UPROBE("0x10", " a=+0(%di):u16[3]", FIELD("u16 a[]", 16, 6, 0),
	       " a={%u,%u,%u}", ", REC->a[0], REC->a[1], REC->a[2]"),
	UPROBE("0x10", " a=%ax:b3@5/8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
	UPROBE("0x10", " %di:u8 %si", FIELD("u8 arg1", 16, 1, 0) FIELD("u64 arg2", 17, 8, 0),
	       " arg1=%u arg2=" X64_FMT, ", REC->arg1, REC->arg2"),
	URETPROBE("0x10", " a=$retval", FIELD("u64 a", 24, 8, 0), " a=" X64_FMT, ", REC->a"),
	URETPROBE("0x10", " a=+0($retval):string", FIELD("__data_loc char[] a", 24, 4, 1),
		  " a=\\\"%s\\\"", ", __get_str(a)"),
	/* "p ...%return" is the other spelling of a return probe */
	RETURN_CASE("uprobe_events", "p:" EVENT " " TARGET ":0x10%return a=$retval:u8",
		    FIELD("u8 a", 24, 1, 0), " a=%u", ", REC->a"),
};

static void parse_ok_desc(const struct parse_ok_case *c, char *desc)
{
	strscpy(desc, c->cmd, KUNIT_PARAM_DESC_SIZE);
}

/*
 * An eprobe records nothing of its own after the 8 bytes of common
 * fields: its arguments start at 8, typed as given or x64.
 */
#define EPROBE(args, fields) {						\
	.file = "dynamic_events",					\
	.cmd = "e:" EVENT " sched.sched_switch " args, .tail = fields,	\
}

static const struct parse_ok_case parse_eprobe_cases[] = {
	EPROBE("a=$prev_pid:s32", FIELD("s32 a", 8, 4, 1)),
	EPROBE("a=$next_pid:u16 b=$prev_state", FIELD("u16 a", 8, 2, 0) FIELD("u64 b", 10, 8, 0)),
	EPROBE("a=\\7:u8 b=+0($prev_comm):x32", FIELD("u8 a", 8, 1, 0) FIELD("u32 b", 9, 4, 0)),
};

KUNIT_ARRAY_PARAM(parse_type, parse_type_cases, parse_ok_desc);
KUNIT_ARRAY_PARAM(parse_eprobe, parse_eprobe_cases, parse_ok_desc);
KUNIT_ARRAY_PARAM(parse_method, parse_method_cases, parse_ok_desc);
KUNIT_ARRAY_PARAM(parse_array, parse_array_cases, parse_ok_desc);
KUNIT_ARRAY_PARAM(parse_layout, parse_layout_cases, parse_ok_desc);
KUNIT_ARRAY_PARAM(parse_uprobe, parse_uprobe_cases, parse_ok_desc);

/*
 * $argN on uprobes, which 6.1 refuses ("Invalid $-variable
 * specified"): an entry probe records it like any other value, by the
 * type written or as x64.
 */
static const struct parse_ok_case parse_uprobe_arg_cases[] = {
	UPROBE("0x10", " a=$arg1", FIELD("u64 a", 16, 8, 0), " a=" X64_FMT, ", REC->a"),
	UPROBE("0x10", " a=$arg6:s32", FIELD("s32 a", 16, 4, 1), " a=%d", ", REC->a"),
	UPROBE("0x10", " a=$arg7:u16", FIELD("u16 a", 16, 2, 0), " a=%u", ", REC->a"),
	UPROBE("0x10", " a=+8($arg2):x8[2]", FIELD("u8 a[]", 16, 2, 0),
	       " a={0x%x,0x%x}", ", REC->a[0], REC->a[1]"),
	UPROBE("0x10", " s=+0($arg9):string",
	       FIELD("__data_loc char[] s", 16, 4, 1), " s=\\\"%s\\\"", ", __get_str(s)"),
	/* the largest number, 2^32 - 1, as for $stackN on uprobes */
	UPROBE("0x10", " a=$arg4294967295:b3@1/8", FIELD("u8 a", 16, 1, 0), " a=%u", ", REC->a"),
};

KUNIT_ARRAY_PARAM(parse_uprobe_arg, parse_uprobe_arg_cases, parse_ok_desc);

/* The format file of EVENT from its first __probe field to the end. */
static const char *event_format_tail(struct kunit *test)
{
	const char *tail;

	probe_test_read(test, FORMAT);
	tail = strstr(probe_test_fs(test)->buf, "\tfield:unsigned long __probe");
	KUNIT_ASSERT_NOT_NULL_MSG(test, tail, "%s", probe_test_fs(test)->buf);
	return tail;
}

static void delete_event(struct kunit *test, const char *file)
{
	KUNIT_EXPECT_GE(test, probe_test_write(test, file, "-:" EVENT), 0);
}

static void expect_event(struct kunit *test)
{
	const struct parse_ok_case *c = test->param_value;
	ssize_t ret = probe_test_write(test, c->file, c->cmd);

	KUNIT_ASSERT_EQ_MSG(test, ret, (ssize_t)strlen(c->cmd), "%s", c->cmd);
	KUNIT_EXPECT_STREQ(test, event_format_tail(test), c->tail);
	delete_event(test, c->file);
}

/* The format file of EVENT, an eprobe, from the field after the common ones. */
static const char *eprobe_fields(struct kunit *test)
{
	const char *fields;

	probe_test_read(test, FORMAT);
	/* a blank line ends the common fields */
	fields = strstr(probe_test_fs(test)->buf, "\tfield:int common_pid;");
	fields = fields ? strstr(fields, "\n\n") : NULL;
	KUNIT_ASSERT_NOT_NULL_MSG(test, fields, "%s", probe_test_fs(test)->buf);
	return fields + 2;
}

static void parse_eprobes(struct kunit *test)
{
	const struct parse_ok_case *c = test->param_value;
	ssize_t ret = probe_test_write(test, c->file, c->cmd);
	const char *fields;

	KUNIT_ASSERT_EQ_MSG(test, ret, (ssize_t)strlen(c->cmd), "%s", c->cmd);
	fields = eprobe_fields(test);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(fields, c->tail), "%s", fields);
	delete_event(test, c->file);
}

static void parse_types(struct kunit *test)
{
	expect_event(test);
}

static void parse_methods(struct kunit *test)
{
	expect_event(test);
}

static void parse_arrays(struct kunit *test)
{
	expect_event(test);
}

static void parse_layouts(struct kunit *test)
{
	expect_event(test);
}

static void parse_uprobes(struct kunit *test)
{
	expect_event(test);
}

static void parse_uprobe_args(struct kunit *test)
{
	expect_event(test);
}

/*
 * Invalid commands, written as ftracetest's kprobe_syntax_errors.tc
 * writes them: the caret '^' marks the character error_log must point
 * at, and is not part of the command.  The caret goes under the token
 * at fault: the argument, or the part of it the parser rejected.
 */
struct parse_err_case {
	const char *file;
	const char *where;	/* error_log's location prefix */
	const char *cmd;	/* with '^' at the error */
	const char *err;	/* the message of trace_probe.h's ERRORS */
};

#define KPROBE_ERR(_cmd, _err) {					\
	.file = "kprobe_events", .where = "trace_kprobe",		\
	.cmd = _cmd, .err = _err,					\
}

static const struct parse_err_case parse_err_cases[] = {
	/* the probe point and the event name */
	KPROBE_ERR("p^100 vfs_read", "Maxactive is not for kprobe"),
	KPROBE_ERR("r^1a111 vfs_read", "Invalid maxactive number"),
	KPROBE_ERR("r^0 vfs_read", "Invalid maxactive number"),
	KPROBE_ERR("r^100000 vfs_read", "Maxactive is too big"),
	KPROBE_ERR("p ^non_exist_func", "Invalid probed address or symbol"),
	KPROBE_ERR("p ^hoge-fuga", "Invalid probed address or symbol"),
	/* the offset: a long, from 0 to UINT_MAX */
	KPROBE_ERR("p ^vfs_read-1", "Invalid probed address or symbol"),
	KPROBE_ERR("p ^vfs_read+4294967296", "Invalid probed address or symbol"),
	/* a '/' without a ':' is no uprobe's place, and no symbol either */
	KPROBE_ERR("p ^foo/bar", "Invalid probed address or symbol"),
	KPROBE_ERR("r ^vfs_read+10", "Retprobe address must be an function entry"),
	KPROBE_ERR("p vfs_read^%hoge", "Invalid probed address suffix"),
	/* a static function of trace_probe_kunit.h: one in each suite's object */
	KPROBE_ERR("p ^probe_test_twin", "The symbol is not unique"),
	KPROBE_ERR("r ^probe_test_twin", "The symbol is not unique"),
	/*
	 * vfs_read begins with the 5-byte call to __fentry__ (-mfentry), so
	 * +1 is inside it; the kprobes core answers -EILSEQ.
	 */
	KPROBE_ERR("p ^vfs_read+1", "Probe point is not an instruction boundary"),
	/*
	 * kernel/trace is built without the ftrace flags (its Makefile), so
	 * ftrace cannot trace its functions, and kprobe events refuse them
	 * (CONFIG_KPROBE_EVENTS_ON_NOTRACE is off); so do return probes.
	 */
	KPROBE_ERR("p ^tracing_is_on", "Failed to register probe event"),
	KPROBE_ERR("r ^tracing_is_on", "Failed to register probe event"),
	KPROBE_ERR("p:^/bar vfs_read", "Group name is not specified"),
	KPROBE_ERR("p:^foo.1/bar vfs_read",
		   "Group name must follow the same rules as C identifiers"),
	KPROBE_ERR("p:^ vfs_read", "Event name is not specified"),
	KPROBE_ERR("p:foo/^bar.1 vfs_read",
		   "Event name must follow the same rules as C identifiers"),
	/* names: MAX_EVENT_NAME_LEN is 64 with its NUL, so 64 characters are too many */
	KPROBE_ERR("p:^" CHARS32 CHARS32 "/bar vfs_read",
		   "Group name is too long"),
	KPROBE_ERR("p:foo/^" CHARS32 CHARS32 " vfs_read",
		   "Event name is too long"),
	/* $-variables */
	KPROBE_ERR("p vfs_read ^$retval", "$retval is not available on probe"),
	KPROBE_ERR("p vfs_read ^$stack10000000", "Invalid stack number"),
	/* "stack" then not a number is no variable at all */
	KPROBE_ERR("p vfs_read ^$stackx", "Invalid $-variable specified"),
	KPROBE_ERR("p vfs_read ^$arg0", "Invalid argument number"),
	KPROBE_ERR("p vfs_read ^$arg10000000", "Invalid argument number"),
	KPROBE_ERR("p vfs_read ^$none_var", "Invalid $-variable specified"),
	KPROBE_ERR("r vfs_read ^$arg1", "Invalid $-variable specified"),
	/* registers, memory, immediates */
	KPROBE_ERR("p vfs_read ^%none_reg", "Invalid register name"),
	KPROBE_ERR("p vfs_read ^@12345678abcde", "Invalid memory address"),
	KPROBE_ERR("p vfs_read ^@+10", "File offset is not available with kprobe"),
	KPROBE_ERR("p vfs_read arg1=\\^x", "Invalid immediate value"),
	KPROBE_ERR("p vfs_read arg1=\\\"abcd^", "String is not closed with '\"'"),
	/* dereference */
	KPROBE_ERR("p vfs_read ^+0@0)", "Dereference needs a brace"),
	KPROBE_ERR("p vfs_read ^+0ab1(@0)", "Invalid dereference offset"),
	KPROBE_ERR("p vfs_read +0(+0(@0^)", "Dereference brace is not closed"),
	KPROBE_ERR("p vfs_read +0(^$comm)", "$comm can not be dereferenced"),
	KPROBE_ERR("p vfs_read ^&1", "Invalid fetch argument"),
	/* FETCH_INSN_MAX (16) instructions: one load, fifteen dereferences, a store */
	KPROBE_ERR("p vfs_read +0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))",
		   "Dereference is too much nested"),
	/* arrays */
	KPROBE_ERR("p vfs_read +0(@11):u8[10^", "Array is not closed"),
	KPROBE_ERR("p vfs_read +0(@11):u8[10]^a", "Array has wrong suffix"),
	KPROBE_ERR("p vfs_read +0(@11):u8[^10a]", "Invalid array size"),
	KPROBE_ERR("p vfs_read +0(@11):u8[^0]", "Invalid array size"),
	KPROBE_ERR("p vfs_read +0(@11):u8[^65]", "Array number is too big"),
	KPROBE_ERR("p vfs_read +0(@11):u8[^256]", "Array number is too big"),
	/* types */
	KPROBE_ERR("p vfs_read @11:^unknown_type", "Unknown type is specified"),
	KPROBE_ERR("p vfs_read %ax:^u24", "Unknown type is specified"),
	KPROBE_ERR("p vfs_read $stack0:^string", "String accepts only memory argument"),
	KPROBE_ERR("p vfs_read %ax:^string", "String accepts only memory argument"),
	KPROBE_ERR("p vfs_read @11:^b10@a/16", "Invalid bitfield"),
	KPROBE_ERR("p vfs_read %ax:^b0@0/8", "Invalid bitfield"),
	KPROBE_ERR("p vfs_read %ax:^b5@4/8", "Invalid bitfield"),
	/* the container names a type, and there is no u12 */
	KPROBE_ERR("p vfs_read %ax:^b4@0/12", "Unknown type is specified"),
	KPROBE_ERR("p vfs_read %ax:^b65@0/64", "Invalid bitfield"),
	/* numbers as C writes them: no sign, and 0x needs a hex digit */
	KPROBE_ERR("p vfs_read %ax:^b+4@0/8", "Invalid bitfield"),
	KPROBE_ERR("p vfs_read %ax:^b4@+0/8", "Invalid bitfield"),
	KPROBE_ERR("p vfs_read %ax:^b4@0x/8", "Invalid bitfield"),
	/* argument names and bodies */
	KPROBE_ERR("p vfs_read ^" CHARS32 "6=@11", "Argument name is too long"),
	KPROBE_ERR("p vfs_read ^=@11", "Argument name is not specified"),
	KPROBE_ERR("p vfs_read ^var.1=@11",
		   "Argument name must follow the same rules as C identifiers"),
	KPROBE_ERR("p vfs_read ^1var=@11",
		   "Argument name must follow the same rules as C identifiers"),
	KPROBE_ERR("p vfs_read var1=@11 ^var1=@12", "This argument name is already used"),
	KPROBE_ERR("p vfs_read %ax ^arg1=%bx", "This argument name is already used"),
	/* the common fields and the probe's own are taken too */
	KPROBE_ERR("p vfs_read ^common_pid=%ax", "This argument name is already used"),
	KPROBE_ERR("p vfs_read ^__probe_ip=%ax", "This argument name is already used"),
	KPROBE_ERR("p vfs_read arg1=^", "No argument expression"),
	/* MAX_ARGSTR_LEN (63): this body has 64 characters */
	KPROBE_ERR("p vfs_read a=^" OFFSET_OF_58 "0(%ax)",
		   "Argument expression is too long"),
};

#define UPROBE_ERR(_cmd, _err) {					\
	.file = "uprobe_events", .where = "trace_uprobe",		\
	.cmd = _cmd, .err = _err,					\
}

static const struct parse_err_case parse_uprobe_err_cases[] = {
	UPROBE_ERR("p ^/non_exist_file:100", "Failed to find the given file"),
	UPROBE_ERR("p ^/:100", "Not a regular file"),
	UPROBE_ERR("p " TARGET ":^10a", "Invalid uprobe offset"),
	UPROBE_ERR("p " TARGET ":10(^1a)", "Invalid reference counter offset"),
	UPROBE_ERR("p " TARGET ":10(10^", "Reference counter brace is not closed"),
	UPROBE_ERR("p " TARGET ":10(10)^a", "Reference counter has wrong suffix"),
	UPROBE_ERR("p " TARGET ":10(10)^%return", "Reference counter has wrong suffix"),
	UPROBE_ERR("p " TARGET ":10^%hoge", "Invalid probed address suffix"),
	UPROBE_ERR("p " TARGET ":10 ^@+ab", "Invalid file offset value"),
	UPROBE_ERR("p " TARGET ":10 ^@symbol", "Symbol is not available with uprobe"),
	UPROBE_ERR("p " TARGET ":10 ^$retval", "$retval is not available on probe"),
	UPROBE_ERR("p " TARGET ":10 +0(^$comm)", "$comm can not be dereferenced"),
	UPROBE_ERR("p " TARGET ":10 %ax:^string", "String accepts only memory argument"),
	UPROBE_ERR("p " TARGET ":10 ^%none_reg", "Invalid register name"),
	UPROBE_ERR("p " TARGET ":10 a=%ax ^a=%bx", "This argument name is already used"),
};

/*
 * Eprobes, written to dynamic_events, on sched.sched_switch: $NAME is a
 * field of that event, and there are no registers.  A name the event
 * lacks is refused after the parser, at the start of the argument.
 */
#define EPROBE_ERR(_cmd, _err) {					\
	.file = "dynamic_events", .where = "event_probe",		\
	.cmd = _cmd, .err = _err,					\
}

static const struct parse_err_case parse_eprobe_err_cases[] = {
	EPROBE_ERR("e:" EVENT " sched.sched_switch a=^dfd", "Invalid fetch argument"),
	EPROBE_ERR("e:" EVENT " sched.sched_switch ^a=$foo",
		   "Attached event does not have this field"),
	/* 6.1 logs "Invalid $-variable specified" here first, then this */
	EPROBE_ERR("e:" EVENT " sched.sched_switch a=^%ax", "Invalid fetch argument"),
	EPROBE_ERR("e:" EVENT " sched.sched_switch a=$prev_pid:^u3", "Unknown type is specified"),
	EPROBE_ERR("e ^sched.no_such_event", "Attached event does not exist"),
	EPROBE_ERR("e ^sched.", "This requires both group and event name to attach"),
};

static void parse_err_desc(const struct parse_err_case *c, char *desc)
{
	strscpy(desc, c->cmd, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse_err, parse_err_cases, parse_err_desc);
KUNIT_ARRAY_PARAM(parse_uprobe_err, parse_uprobe_err_cases, parse_err_desc);
KUNIT_ARRAY_PARAM(parse_eprobe_err, parse_eprobe_err_cases, parse_err_desc);

/*
 * Run CMD (caret removed) against FILE and check that it fails with
 * ERR logged at the caret.  A command that unexpectedly succeeds is
 * undone by emptying FILE, which removes every probe of its kind.
 */
static void expect_parse_error(struct kunit *test, const char *file, const char *where,
			       const char *marked, const char *err)
{
	const char *caret = strchr(marked, '^');
	struct probe_test_error log;
	char *cmd;
	ssize_t ret;
	int pos;

	KUNIT_ASSERT_NOT_NULL(test, caret);
	pos = caret - marked;
	cmd = probe_test_printf(test, "%.*s%s", pos, marked, caret + 1);

	probe_test_clear_errors(test);
	ret = probe_test_write(test, file, cmd);
	if (ret >= 0) {
		kfork_test_close(probe_test_open(test, file, O_WRONLY | O_TRUNC));
		KUNIT_FAIL(test, "accepted: %s", cmd);
		return;
	}
	KUNIT_ASSERT_TRUE_MSG(test, probe_test_last_error(test, &log),
			      "no error logged for %s (returned %zd): %s", cmd, ret,
			      probe_test_fs(test)->buf);
	KUNIT_EXPECT_EQ(test, log.where_len, (int)strlen(where));
	KUNIT_EXPECT_EQ(test, strncmp(log.where, where, log.where_len), 0);
	KUNIT_EXPECT_EQ_MSG(test, log.text_len, (int)strlen(err), "logged: %.*s",
			    log.text_len, log.text);
	KUNIT_EXPECT_EQ_MSG(test, strncmp(log.text, err, log.text_len), 0,
			    "logged: %.*s", log.text_len, log.text);
	KUNIT_EXPECT_EQ(test, log.cmd_len, (int)strlen(cmd));
	KUNIT_EXPECT_EQ(test, strncmp(log.cmd, cmd, log.cmd_len), 0);
	KUNIT_EXPECT_EQ_MSG(test, log.caret, pos, "%s", cmd);
}

/* A command of COUNT copies of ARG after HEAD, built at run time. */
static char *repeat_args(struct kunit *test, const char *head, const char *arg, int count)
{
	size_t len = strlen(head) + count * (strlen(arg) + 1) + 1;
	char *cmd = kunit_kzalloc(test, len, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	strscpy(cmd, head, len);
	for (i = 0; i < count; i++) {
		strlcat(cmd, " ", len);
		strlcat(cmd, arg, len);
	}
	return cmd;
}

static void expect_error_case(struct kunit *test)
{
	const struct parse_err_case *c = test->param_value;

	expect_parse_error(test, c->file, c->where, c->cmd, c->err);
}

/*
 * A refused kprobe command leaves nothing behind and takes nothing
 * away: an event defined before it is the only one listed after it.
 */
static void parse_errors(struct kunit *test)
{
	static const char bystander[] = "p:kfork_keep/keep vfs_write";

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "kprobe_events", bystander),
			(ssize_t)strlen(bystander));
	expect_error_case(test);
	probe_test_read(test, "kprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "p:kfork_keep/keep vfs_write\n");
	KUNIT_EXPECT_GE(test, probe_test_write(test, "kprobe_events", "-:kfork_keep/keep"), 0);
}

static void parse_uprobe_errors(struct kunit *test)
{
	expect_error_case(test);
}

/*
 * A probe written under the name of an existing uprobe event joins it
 * (a multiprobe event) if it is of the same kind and records the same
 * arguments, by name, type and count, and is not the same probe again.
 * The causes are shown under the command's first word, or under the
 * first argument that differs.
 */
struct parse_append_case {
	const char *second;	/* with '^' at the error, if refused */
	const char *err;	/* NULL: it joins, at OFFSET reading REG */
	unsigned int offset;
	const char *reg;
};

#define UPROBE_FIRST	"p:" EVENT " " TARGET ":0x10 a=%ax"
#define UPROBE_LINE	"p:" EVENT " " TARGET ":0x%016x a=%s\n"

static const struct parse_append_case parse_uprobe_append_cases[] = {
	{ "p:" EVENT " " TARGET ":0x20 a=%ax", NULL, 0x20, "%ax" },
	{ "p:" EVENT " " TARGET ":0x10 a=%bx", NULL, 0x10, "%bx" },
	{ "^r:" EVENT " " TARGET ":0x20 a=%ax", "Probe type is different from existing probe" },
	{ "p:" EVENT " " TARGET ":0x20 ^b=%ax",
	  "Argument type or name is different from existing probe" },
	{ "p:" EVENT " " TARGET ":0x20 ^a=%ax:u8",
	  "Argument type or name is different from existing probe" },
	/* one argument more: the first past the event's is at fault */
	{ "p:" EVENT " " TARGET ":0x20 a=%ax ^c=%bx",
	  "Argument type or name is different from existing probe" },
	{ "^" UPROBE_FIRST, "There is already the exact same probe event" },
};

static void parse_append_desc(const struct parse_append_case *c, char *desc)
{
	strscpy(desc, c->second, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse_uprobe_append, parse_uprobe_append_cases, parse_append_desc);

static void parse_uprobe_appends(struct kunit *test)
{
	const struct parse_append_case *c = test->param_value;
	char *both;

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "uprobe_events", UPROBE_FIRST),
			(ssize_t)strlen(UPROBE_FIRST));
	if (c->err) {
		expect_parse_error(test, "uprobe_events", "trace_uprobe", c->second, c->err);
	} else {
		KUNIT_ASSERT_EQ(test, probe_test_write(test, "uprobe_events", c->second),
				(ssize_t)strlen(c->second));
		/* the listing shows each probe, the offset in 16 hex digits */
		both = probe_test_printf(test, UPROBE_LINE UPROBE_LINE, 0x10, "%ax",
					 c->offset, c->reg);
		probe_test_read(test, "uprobe_events");
		KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, both);
	}
	KUNIT_EXPECT_GE(test, probe_test_write(test, "uprobe_events", "-:" EVENT), 0);
}

/*
 * A removal may name, after the event, the probe's place as the listing
 * shows it (the offset in 16 hex digits) and then its arguments as they
 * were written: every word given must match, and only trailing ones
 * may be left off.  A removal that matches nothing is -ENOENT and
 * leaves the event.  The event is UPROBE_FIRST.
 */
struct parse_removal_case {
	const char *cmd;
	bool removes;
};

#define UPROBE_FIRST_PLACE	TARGET ":0x0000000000000010"

static const struct parse_removal_case parse_uprobe_removal_cases[] = {
	{ "-:" EVENT " " UPROBE_FIRST_PLACE, true },
	{ "-:" EVENT " " UPROBE_FIRST_PLACE " a=%ax", true },
	/* not the place as listed */
	{ "-:" EVENT " " TARGET ":0x10", false },
	{ "-:" EVENT " " TARGET ":0x0000000000000020", false },
	{ "-:" EVENT " /kf_other:0x0000000000000010", false },
	{ "-:" EVENT " a=%ax", false },
	/* not its arguments */
	{ "-:" EVENT " " UPROBE_FIRST_PLACE " a=%bx", false },
	{ "-:" EVENT " " UPROBE_FIRST_PLACE " a=%ax b=%bx", false },
};

static void parse_removal_desc(const struct parse_removal_case *c, char *desc)
{
	strscpy(desc, c->cmd, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse_uprobe_removal, parse_uprobe_removal_cases, parse_removal_desc);

static void parse_uprobe_removals(struct kunit *test)
{
	const struct parse_removal_case *c = test->param_value;
	ssize_t ret;

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "uprobe_events", UPROBE_FIRST),
			(ssize_t)strlen(UPROBE_FIRST));
	ret = probe_test_write(test, "uprobe_events", c->cmd);
	probe_test_read(test, "uprobe_events");
	if (c->removes) {
		KUNIT_EXPECT_EQ(test, ret, (ssize_t)strlen(c->cmd));
		KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "");
	} else {
		KUNIT_EXPECT_EQ(test, ret, (ssize_t)-ENOENT);
		KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
				   "p:" EVENT " " UPROBE_FIRST_PLACE " a=%ax\n");
	}
	probe_test_write(test, "uprobe_events", "-:" EVENT);
}

/*
 * A directory is refused, and the parser puts the path it looked up
 * once: the dentry's count is as it was.  TARGET_DIR is the suite's
 * own, so nothing else takes or drops a reference meanwhile.
 */
static void parse_uprobe_on_directory(struct kunit *test)
{
	struct path dir;
	unsigned int before;

	KUNIT_ASSERT_EQ(test, kern_path(TARGET_DIR, 0, &dir), 0);
	before = d_count(dir.dentry);
	expect_parse_error(test, "uprobe_events", "trace_uprobe", "p ^" TARGET_DIR ":100",
			   "Not a regular file");
	KUNIT_EXPECT_EQ(test, d_count(dir.dentry), before);
	path_put(&dir);
}

/*
 * An unnamed uprobe goes in the group "uprobes", named after its file's
 * base name up to the first '.', '-' or '_' and after its offset: TARGET
 * at 0x10 is "p_kf_0x10".  The 'p' is there for a return probe too.
 */
static void parse_uprobe_default_names(struct kunit *test)
{
	static const char *const defines[] = { "p " TARGET ":0x10", "r " TARGET ":0x20" };
	static const char *const removals[] = { "-:uprobes/p_kf_0x10", "-:uprobes/p_kf_0x20" };
	unsigned int i;

	/* what an aborted run of this case left */
	for (i = 0; i < ARRAY_SIZE(removals); i++)
		probe_test_write(test, "uprobe_events", removals[i]);
	for (i = 0; i < ARRAY_SIZE(defines); i++)
		KUNIT_ASSERT_EQ(test, probe_test_write(test, "uprobe_events", defines[i]),
				(ssize_t)strlen(defines[i]));
	probe_test_read(test, "uprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf,
			   "p:uprobes/p_kf_0x10 " TARGET ":0x0000000000000010\n"
			   "r:uprobes/p_kf_0x20 " TARGET ":0x0000000000000020\n");
	KUNIT_EXPECT_GT(test, probe_test_read(test, "events/uprobes/p_kf_0x20/format"), (size_t)0);
	for (i = 0; i < ARRAY_SIZE(removals); i++)
		KUNIT_EXPECT_EQ(test, probe_test_write(test, "uprobe_events", removals[i]),
				(ssize_t)strlen(removals[i]));
	probe_test_read(test, "uprobe_events");
	KUNIT_EXPECT_STREQ(test, probe_test_fs(test)->buf, "");
}

#if KFORK_TEST_FAILSLAB
/* the uprobe argument of each kind: register, array, bitfield, $comm, string */
#define UPROBE_KINDS	"a=%ax b=+0(%sp):x8[4] c=+8(%sp):b4@4/8 d=$comm f=+0(+0(%sp)):string"
#define UPROBE_AT(off)	"p:" EVENT " " TARGET ":0x" #off
#define UPROBE_LISTED(off) "p:" EVENT " " TARGET ":0x00000000000000" #off
/* an eprobe with a field and a dereferenced one */
#define EPROBE_FIELDS	"e:" EVENT " sched.sched_switch a=$prev_pid:s32 b=+0($prev_state):u8"

/*
 * Each allocation of a uprobe or eprobe definition, a second probe and
 * a removal failing in turn: -ENOMEM and the listing as it was, or done.
 */
static const struct probe_test_sweep_case parse_alloc_failure_cases[] = {
	{ "uprobe_events", NULL, UPROBE_AT(10) " " UPROBE_KINDS,
	  UPROBE_LISTED(10) " " UPROBE_KINDS "\n" },
	{ "uprobe_events", NULL, "r:" EVENT " " TARGET ":0x10 ret=$retval",
	  "r:" EVENT " " TARGET ":0x0000000000000010 ret=$retval\n" },
	{ "uprobe_events", UPROBE_AT(10) " a=%ax", UPROBE_AT(20) " a=%ax",
	  UPROBE_LISTED(10) " a=%ax\n" UPROBE_LISTED(20) " a=%ax\n" },
	{ "uprobe_events", UPROBE_AT(10), "-:" EVENT, "" },
	{ "dynamic_events", NULL, EPROBE_FIELDS, EPROBE_FIELDS "\n" },
};

KUNIT_ARRAY_PARAM(parse_alloc_failure, parse_alloc_failure_cases, probe_test_alloc_sweep_desc);

static void parse_alloc_failures(struct kunit *test)
{
	probe_test_alloc_sweep(test, test->param_value, "-:" EVENT);
}
#endif

static void parse_eprobe_errors(struct kunit *test)
{
	expect_error_case(test);
}

/*
 * The fork's fixes, each a test of kunit/project-behaviour.  The
 * distro's 6.1 accepts every one of these commands.
 */

/*
 * A uprobe's values are user addresses: printing them as kernel symbols
 * (symbol) or looking them up in kallsyms (symstr) means nothing.
 */
static const struct parse_err_case parse_uprobe_type_cases[] = {
	UPROBE_ERR("p " TARGET ":10 %ax:^symbol", "Unknown type is specified"),
	UPROBE_ERR("p " TARGET ":10 a=+0(%sp):^symstr", "Unknown type is specified"),
};

KUNIT_ARRAY_PARAM(parse_uprobe_type, parse_uprobe_type_cases, parse_err_desc);

/*
 * $comm and an immediate string are single strings; 6.1 refuses another
 * type or an array for them without logging any error.
 */
static const struct parse_err_case parse_string_type_cases[] = {
	KPROBE_ERR("p vfs_read $comm:^u8", "Unknown type is specified"),
	KPROBE_ERR("p vfs_read a=$comm:^string[2]", "Unknown type is specified"),
	KPROBE_ERR("p vfs_read a=\\\"abc\":^x32", "Unknown type is specified"),
};

/*
 * $argN on uprobes: a return probe runs when the argument registers
 * hold something else, and $arg0 or a number past 32 bits names no
 * argument.  6.1 says "Invalid $-variable specified" to each.
 */
static const struct parse_err_case parse_uprobe_arg_err_cases[] = {
	UPROBE_ERR("r " TARGET ":10 ^$arg1", "$argN is not available on return probe"),
	UPROBE_ERR("p " TARGET ":10%return a=%ax ^$arg2:u8",
		   "$argN is not available on return probe"),
	UPROBE_ERR("p " TARGET ":10 ^$arg0", "Invalid argument number"),
	UPROBE_ERR("p " TARGET ":10 ^$arg4294967296", "Invalid argument number"),
};

KUNIT_ARRAY_PARAM(parse_uprobe_arg_err, parse_uprobe_arg_err_cases, parse_err_desc);

static void parse_uprobe_arg_errors(struct kunit *test)
{
	expect_error_case(test);
}

KUNIT_ARRAY_PARAM(parse_string_type, parse_string_type_cases, parse_err_desc);

static void parse_string_type_logged(struct kunit *test)
{
	expect_error_case(test);
}

static void parse_uprobe_no_symbols(struct kunit *test)
{
	expect_error_case(test);
}

/*
 * An array of strings reads each string through the next pointer of an
 * array of pointers, so it needs a dereference before the type.  6.1
 * takes one from an immediate or an eprobe's field, then writes only
 * the first data_loc word of the record: printing it follows the
 * others into whatever the ring buffer held (KASAN: use-after-free in
 * string()).  The fork refuses it with the message 6.1 gives an array
 * of any other value that is not memory.
 */
static const struct parse_err_case parse_string_array_cases[] = {
	KPROBE_ERR("p vfs_read a=\\0x1000:^string[2]", "String accepts only memory argument"),
	KPROBE_ERR("p vfs_read a=\\7:^string[3]", "String accepts only memory argument"),
	KPROBE_ERR("r vfs_read a=\\7:^ustring[2]", "String accepts only memory argument"),
	UPROBE_ERR("p " TARGET ":10 a=\\0x1000:^ustring[2]",
		   "String accepts only memory argument"),
	EPROBE_ERR("e:" EVENT " sched.sched_switch a=$prev_comm:^string[2]",
		   "String accepts only memory argument"),
	EPROBE_ERR("e:" EVENT " sched.sched_switch a=\\7:^string[2]",
		   "String accepts only memory argument"),
};

KUNIT_ARRAY_PARAM(parse_string_array, parse_string_array_cases, parse_err_desc);

static void parse_string_array_needs_pointers(struct kunit *test)
{
	expect_error_case(test);
}

/*
 * Numbers the parser keeps in fewer bits than it reads.  A dereference
 * keeps a 32-bit offset: 6.1 parses a long and silently keeps its low
 * 32 bits, so +0x100000000 reads at +0.  $stackN keeps 32 bits: 6.1 reads
 * $stack4294967296 on a uprobe (no stack limit there) as $stack0.  A
 * bitfield's width plus offset wraps in 6.1: a width of 2^64 - 1 at
 * offset 2 passes as 1 bit.
 */
static const struct parse_err_case parse_number_overflow_cases[] = {
	UPROBE_ERR("p " TARGET ":10 ^$stack4294967296", "Invalid stack number"),
	KPROBE_ERR("p vfs_read %ax:^b18446744073709551615@2/8", "Invalid bitfield"),
	KPROBE_ERR("p vfs_read ^+0x80000000(%ax)", "Invalid dereference offset"),
	KPROBE_ERR("p vfs_read ^-0x80000001(%ax)", "Invalid dereference offset"),
	KPROBE_ERR("p vfs_read ^+0x100000000(%ax)", "Invalid dereference offset"),
	KPROBE_ERR("p vfs_read +0(^+0x7fffffffffffffff(%ax))", "Invalid dereference offset"),
	UPROBE_ERR("p " TARGET ":10 ^-0x100000000(%sp)", "Invalid dereference offset"),
};

KUNIT_ARRAY_PARAM(parse_number_overflow, parse_number_overflow_cases, parse_err_desc);

static void parse_number_overflow(struct kunit *test)
{
	expect_error_case(test);
}

/*
 * One argument past MAX_TRACE_ARGS (128), on each probe kind: 6.1
 * parses the first 128 and drops the rest without a word.  The error
 * stands at the first argument too many.
 */
struct too_many_args_case {
	const char *file;
	const char *where;
	const char *head;	/* the command up to its arguments */
	const char *arg;	/* repeated; unnamed, so each is argN */
};

static const struct too_many_args_case too_many_args_cases[] = {
	{ "kprobe_events", "trace_kprobe", "p vfs_read", "%ax" },
	{ "kprobe_events", "trace_kprobe", "r vfs_read", "$retval" },
	{ "uprobe_events", "trace_uprobe", "p " TARGET ":10", "%ax" },
	{ "dynamic_events", "event_probe", "e:kfork/kf sched.sched_switch", "$prev_pid" },
};

static void too_many_args_desc(const struct too_many_args_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", c->head, c->arg);
}

KUNIT_ARRAY_PARAM(too_many_args, too_many_args_cases, too_many_args_desc);

static void parse_too_many_args(struct kunit *test)
{
	const struct too_many_args_case *c = test->param_value;
	char *limit = repeat_args(test, c->head, c->arg, 128);

	expect_parse_error(test, c->file, c->where,
			   probe_test_printf(test, "%s ^%s", limit, c->arg),
			   "Too many arguments are specified");
}

/* The edges of the 32-bit offset are accepted. */
static void parse_offset_limits(struct kunit *test)
{
	static const char *cmd = "p:" EVENT " vfs_read +0x7fffffff(%ax) -0x80000000(%ax)";

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "kprobe_events", cmd), (ssize_t)strlen(cmd));
	delete_event(test, "kprobe_events");
}

/*
 * Group and event names of up to 63 characters (MAX_EVENT_NAME_LEN with
 * its NUL); either separated by '/' or, without one, by '.'.
 */
static void parse_name_limits(struct kunit *test)
{
	static const char * const cmds[][2] = {
		{ "p:" CHARS32 CHARS31 "/kf vfs_read", "-:" CHARS32 CHARS31 "/kf" },
		{ "p:kfork/" CHARS32 CHARS31 " vfs_read", "-:kfork/" CHARS32 CHARS31 },
		{ "p:kfork.kf vfs_read", "-:kfork/kf" },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		KUNIT_EXPECT_EQ_MSG(test, probe_test_write(test, "kprobe_events", cmds[i][0]),
				    (ssize_t)strlen(cmds[i][0]), "%s", cmds[i][0]);
		KUNIT_EXPECT_EQ_MSG(test, probe_test_write(test, "kprobe_events", cmds[i][1]),
				    (ssize_t)strlen(cmds[i][1]), "%s", cmds[i][1]);
	}
}

/* MAX_TRACE_ARGS (128) arguments: the last is arg128 at 16 + 127 * 8. */
static void parse_max_args(struct kunit *test)
{
	char *cmd = repeat_args(test, "p:" EVENT " vfs_read", "%ax", 128);

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "kprobe_events", cmd), (ssize_t)strlen(cmd));
	KUNIT_EXPECT_NOT_NULL(test, strstr(event_format_tail(test),
					   FIELD("u64 arg128", 1032, 8, 0) "\n"));
	delete_event(test, "kprobe_events");
}

/*
 * MAX_PROBE_EVENT_SIZE (3072) bytes of arguments: 48 arrays of 64 bytes
 * fill it exactly; one more byte is refused at the argument that
 * brings it.
 */
static void parse_event_size(struct kunit *test)
{
	char *full = repeat_args(test, "p:" EVENT " vfs_read", "+0(%di):u8[64]", 48);
	char *over = probe_test_printf(test, "%s ^%%ax:u8", full);

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "kprobe_events", full), (ssize_t)strlen(full));
	delete_event(test, "kprobe_events");
	expect_parse_error(test, "kprobe_events", "trace_kprobe", over,
			   "Event too big (too many fields?)");
}

/*
 * $stackN reaches the whole kernel stack: N up to THREAD_SIZE over the
 * size of a long.
 */
static void parse_stack_limit(struct kunit *test)
{
	unsigned long last = THREAD_SIZE / sizeof(unsigned long);
	char *ok = probe_test_printf(test, "p:" EVENT " vfs_read $stack%lu", last);
	char *bad = probe_test_printf(test, "p:" EVENT " vfs_read ^$stack%lu",
				    last + 1);

	KUNIT_ASSERT_EQ(test, probe_test_write(test, "kprobe_events", ok), (ssize_t)strlen(ok));
	delete_event(test, "kprobe_events");
	expect_parse_error(test, "kprobe_events", "trace_kprobe", bad, "Invalid stack number");
}

/* MAX_ARGSTR_LEN (63) characters of body are accepted. */
static void parse_argstr_limit(struct kunit *test)
{
	static const char *cmd = "p:" EVENT " vfs_read " OFFSET_OF_58 "(%ax)";

	KUNIT_ASSERT_EQ(test, strlen(strrchr(cmd, ' ') + 1), (size_t)63);
	KUNIT_ASSERT_EQ(test, probe_test_write(test, "kprobe_events", cmd), (ssize_t)strlen(cmd));
	delete_event(test, "kprobe_events");
}

/*
 * Every type, every fetch method and every argument error on every
 * probe kind.  The tables above spell out examples; the cases below are
 * built from the same rules, so that no kind misses a type, a method or
 * an error.  Each kind brings the head of its command, the fields and
 * print format it records before the arguments, and two fetches: one of
 * a value (a register, $retval or a field of the attached event) and one
 * from memory.  In a method or an error, "{v}" stands for the value.
 */
enum {
	KIND_KPROBE	= BIT(0),
	KIND_KRETPROBE	= BIT(1),
	KIND_UPROBE	= BIT(2),
	KIND_URETPROBE	= BIT(3),
	KIND_EPROBE	= BIT(4),
};

#define KINDS_KERNEL	(KIND_KPROBE | KIND_KRETPROBE)
#define KINDS_USER	(KIND_UPROBE | KIND_URETPROBE)
#define KINDS_ENTRY	(KIND_KPROBE | KIND_UPROBE)
#define KINDS_RETURN	(KIND_KRETPROBE | KIND_URETPROBE)
/* the kinds with registers: all but eprobes */
#define KINDS_REGS	(KINDS_KERNEL | KINDS_USER)
#define KINDS_ALL	(KINDS_REGS | KIND_EPROBE)

struct probe_kind {
	unsigned int bit;
	const char *file;
	const char *where;	/* error_log's location prefix */
	const char *head;	/* the command up to its arguments */
	int first;		/* the offset of the first argument */
	const char *own;	/* the probe's own fields; NULL: an eprobe's */
	const char *fmt;	/* the print format up to the arguments */
	const char *recs;	/* the values the print format starts with */
	const char *value;
	const char *memory;
	bool value_is_field;	/* the value may be read as a string */
};

#define ENTRY_OWN	FIELD("unsigned long __probe_ip", 8, 8, 0)
#define RETURN_OWN	(FIELD("unsigned long __probe_func", 8, 8, 0)	\
			 FIELD("unsigned long __probe_ret_ip", 16, 8, 0))

static const struct probe_kind probe_kinds[] = {
	{ KIND_KPROBE, "kprobe_events", "trace_kprobe", "p:" EVENT " vfs_read",
	  16, ENTRY_OWN, "(%lx)", ", REC->__probe_ip", "%ax", "+0(%di)" },
	{ KIND_KRETPROBE, "kprobe_events", "trace_kprobe", "r:" EVENT " vfs_read",
	  24, RETURN_OWN, "(%lx <- %lx)", ", REC->__probe_func, REC->__probe_ret_ip",
	  "$retval", "+8(%sp)" },
	{ KIND_UPROBE, "uprobe_events", "trace_uprobe", "p:" EVENT " " TARGET ":0x10",
	  16, ENTRY_OWN, "(%lx)", ", REC->__probe_ip", "%ax", "@0x601040" },
	{ KIND_URETPROBE, "uprobe_events", "trace_uprobe", "r:" EVENT " " TARGET ":0x10",
	  24, RETURN_OWN, "(%lx <- %lx)", ", REC->__probe_func, REC->__probe_ret_ip",
	  "%ax", "+0($retval)" },
	/* a field of the attached event is a value an eprobe may read as a string */
	{ KIND_EPROBE, "dynamic_events", "event_probe", "e:" EVENT " sched.sched_switch",
	  8, NULL, NULL, NULL, "$prev_pid", "+0($prev_comm)", true },
};

/*
 * What a type records, by the rules over parse_type_cases: the field's
 * type, its size and signedness, and the conversion that prints it.
 */
struct type_rule {
	const char *name;	/* as written after ':'; "" for none */
	const char *decl;
	int size;
	int sign;
	const char *fmt;
	unsigned int flags;
};

#define TYPE_DATA_LOC	BIT(0)	/* a string, recorded as a __data_loc */
#define TYPE_MEMORY	BIT(1)	/* read from memory (or an eprobe's field) only */
#define TYPE_KERNEL	BIT(2)	/* a kernel address: not on uprobes */
#define TYPE_NO_ARRAY	BIT(3)

#define STRING_TYPE(_name, _flags)					\
	{ _name, "__data_loc char[]", 4, 1, "\\\"%s\\\"", TYPE_DATA_LOC | (_flags) }

static const struct type_rule type_rules[] = {
	{ "u8", "u8", 1, 0, "%u" },
	{ "u16", "u16", 2, 0, "%u" },
	{ "u32", "u32", 4, 0, "%u" },
	{ "u64", "u64", 8, 0, U64_FMT },
	{ "s8", "s8", 1, 1, "%d" },
	{ "s16", "s16", 2, 1, "%d" },
	{ "s32", "s32", 4, 1, "%d" },
	{ "s64", "s64", 8, 1, S64_FMT },
	{ "x8", "u8", 1, 0, "0x%x" },
	{ "x16", "u16", 2, 0, "0x%x" },
	{ "x32", "u32", 4, 0, "0x%x" },
	{ "x64", "u64", 8, 0, X64_FMT },
	/* an array needs a type to count */
	{ "", "u64", 8, 0, X64_FMT, TYPE_NO_ARRAY },
	{ "symbol", "u64", 8, 0, "%pS", TYPE_KERNEL },
	/* symstr looks a value up; an array of them is refused */
	STRING_TYPE("symstr", TYPE_KERNEL | TYPE_NO_ARRAY),
	STRING_TYPE("string", TYPE_MEMORY),
	STRING_TYPE("ustring", TYPE_MEMORY),
	{ "b1@0/8", "u8", 1, 0, "%u" },
	{ "b3@5/8", "u8", 1, 0, "%u" },
	{ "b9@7/16", "u16", 2, 0, "%u" },
	{ "b11@21/32", "u32", 4, 0, "%u" },
	{ "b1@63/64", "u64", 8, 0, U64_FMT },
	{ "b64@0/64", "u64", 8, 0, U64_FMT },
};

static const struct type_rule *type_rule_of(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(type_rules); i++)
		if (!strcmp(type_rules[i].name, name))
			return &type_rules[i];
	return NULL;
}

/*
 * The fetch methods, without a type, on the kinds that have them:
 * registers and $stack on all but eprobes, @SYM on kprobes, @+FOFFS on
 * uprobes, $argN at a function's entry, $retval at its return, a field
 * on eprobes.  Each records the default type ("") or, for $comm and an
 * immediate string, a string; except on eprobes, where 6.1 gives every
 * argument the type written or x64.
 */
struct arg_rule {
	const char *arg;	/* "{v}" stands for the kind's value */
	unsigned int kinds;	/* the kinds it applies to */
	const char *result;	/* a method: the type it implies; an error: its message */
};

static const struct arg_rule method_rules[] = {
	{ "a=%di", KINDS_REGS, "" },
	{ "a=%r15", KINDS_REGS, "" },
	{ "a=%ip", KINDS_REGS, "" },
	{ "a=%flags", KINDS_REGS, "" },
	{ "a=@4096", KINDS_ALL, "" },
	{ "a=@jiffies", KINDS_KERNEL, "" },
	{ "a=@jiffies+8", KINDS_KERNEL, "" },
	{ "a=@jiffies-8", KINDS_KERNEL, "" },
	{ "a=@+0x1040", KINDS_USER, "" },
	{ "a=@+0", KINDS_USER, "" },
	{ "a=$stack", KINDS_REGS, "" },
	{ "a=$stack0", KINDS_REGS, "" },
	{ "a=$stack8", KINDS_REGS, "" },
	{ "a=$arg1", KIND_KPROBE, "" },
	{ "a=$arg6", KIND_KPROBE, "" },
	{ "a=$retval", KINDS_RETURN, "" },
	{ "a=$comm", KINDS_ALL, "string" },
	{ "a=$COMM", KINDS_ALL, "string" },
	{ "a=\\\"hi\"", KINDS_ALL, "string" },
	{ "a=\\\"\"", KINDS_ALL, "string" },
	{ "a=\\1234", KINDS_ALL, "" },
	{ "a=\\0x10", KINDS_ALL, "" },
	{ "a=\\-5", KINDS_ALL, "" },
	{ "a=\\+7", KINDS_ALL, "" },
	{ "a=$prev_pid", KIND_EPROBE, "" },
	{ "a=$next_prio", KIND_EPROBE, "" },
	{ "a=$prev_state", KIND_EPROBE, "" },
	{ "a=+8({v})", KINDS_ALL, "" },
	{ "a=-8({v})", KINDS_ALL, "" },
	{ "a=+0x10(+8({v}))", KINDS_ALL, "" },
	{ "a=+u4({v})", KINDS_ALL, "" },
	{ "a=-u4(+0({v}))", KINDS_ALL, "" },
};

/*
 * Argument errors, the caret under the character error_log points at,
 * with the kinds they apply to.  Most are the parser's own and the same
 * on every kind; the rest follow the method rules above.
 */
static const struct arg_rule arg_err_rules[] = {
	/* methods a kind lacks */
	{ "^$retval", KINDS_ENTRY, "$retval is not available on probe" },
	{ "^$arg1", KIND_KRETPROBE, "Invalid $-variable specified" },
	{ "^$arg0", KIND_KPROBE, "Invalid argument number" },
	{ "^$arg10000000", KIND_KPROBE, "Invalid argument number" },
	{ "^$stack10000000", KINDS_KERNEL, "Invalid stack number" },
	{ "^@+10", KINDS_KERNEL, "File offset is not available with kprobe" },
	{ "^@+ab", KINDS_USER, "Invalid file offset value" },
	{ "^@jiffies", KINDS_USER, "Symbol is not available with uprobe" },
	/* registers and $-variables */
	{ "^%none_reg", KINDS_REGS, "Invalid register name" },
	{ "^%", KINDS_REGS, "Invalid register name" },
	{ "^$none_var", KINDS_REGS, "Invalid $-variable specified" },
	{ "^$stackx", KINDS_REGS, "Invalid $-variable specified" },
	{ "^$stack-1", KINDS_REGS, "Invalid $-variable specified" },
	{ "^$", KINDS_REGS, "Invalid $-variable specified" },
	/* memory and immediates */
	{ "^@12345678abcde", KINDS_ALL, "Invalid memory address" },
	{ "a=\\^x", KINDS_ALL, "Invalid immediate value" },
	{ "a=\\^", KINDS_ALL, "Invalid immediate value" },
	{ "a=\\\"abcd^", KINDS_ALL, "String is not closed with '\"'" },
	{ "a=\\\"^", KINDS_ALL, "String is not closed with '\"'" },
	{ "^&1", KINDS_ALL, "Invalid fetch argument" },
	{ "a=^dfd", KINDS_ALL, "Invalid fetch argument" },
	/* dereference */
	{ "^+0@0)", KINDS_ALL, "Dereference needs a brace" },
	{ "^-8", KINDS_ALL, "Dereference needs a brace" },
	{ "^+0ab1(@0)", KINDS_ALL, "Invalid dereference offset" },
	{ "^+(@0)", KINDS_ALL, "Invalid dereference offset" },
	{ "+0(+0(@0^)", KINDS_ALL, "Dereference brace is not closed" },
	{ "+0({v}^", KINDS_ALL, "Dereference brace is not closed" },
	{ "+0(^$comm)", KINDS_REGS, "$comm can not be dereferenced" },
	{ "+0(^\\\"ab\")", KINDS_ALL, "$comm can not be dereferenced" },
	{ "+0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))", KINDS_ALL,
	  "Dereference is too much nested" },
	/* arrays */
	{ "+0(@11):u8[10^", KINDS_ALL, "Array is not closed" },
	{ "+0(@11):u8[10]^a", KINDS_ALL, "Array has wrong suffix" },
	{ "+0(@11):u8[^10a]", KINDS_ALL, "Invalid array size" },
	{ "+0(@11):u8[^0]", KINDS_ALL, "Invalid array size" },
	{ "+0(@11):u8[^]", KINDS_ALL, "Invalid array size" },
	{ "+0(@11):u8[^65]", KINDS_ALL, "Array number is too big" },
	/* an array, like a string, is read from memory */
	{ "{v}:^u8[2]", KINDS_ALL, "String accepts only memory argument" },
	{ "\\1:^u8[2]", KINDS_ALL, "String accepts only memory argument" },
	{ "@11:^symstr[2]", KINDS_KERNEL | KIND_EPROBE, "String accepts only memory argument" },
	/* types */
	{ "@11:^unknown_type", KINDS_ALL, "Unknown type is specified" },
	{ "{v}:^u24", KINDS_ALL, "Unknown type is specified" },
	{ "{v}:^s128", KINDS_ALL, "Unknown type is specified" },
	{ "{v}:^", KINDS_ALL, "Unknown type is specified" },
	{ "{v}:^string", KINDS_REGS, "String accepts only memory argument" },
	{ "{v}:^ustring", KINDS_REGS, "String accepts only memory argument" },
	{ "$stack:^string", KINDS_REGS, "String accepts only memory argument" },
	{ "\\1:^symstr", KINDS_KERNEL, "Symbol String doesn't accept data/userdata" },
	{ "$stack:^symstr", KINDS_KERNEL, "Symbol String doesn't accept data/userdata" },
	{ "+u0(%di):^symstr", KINDS_KERNEL, "Symbol String doesn't accept data/userdata" },
	/* bitfields */
	{ "{v}:^b10@a/16", KINDS_ALL, "Invalid bitfield" },
	{ "{v}:^b0@0/8", KINDS_ALL, "Invalid bitfield" },
	{ "{v}:^b5@4/8", KINDS_ALL, "Invalid bitfield" },
	{ "{v}:^b65@0/64", KINDS_ALL, "Invalid bitfield" },
	{ "{v}:^b4/8", KINDS_ALL, "Invalid bitfield" },
	{ "{v}:^b4@4", KINDS_ALL, "Unknown type is specified" },
	{ "{v}:^b4@0/12", KINDS_ALL, "Unknown type is specified" },
	/* argument names and bodies */
	{ "^" CHARS32 "6=@11", KINDS_ALL, "Argument name is too long" },
	{ "^=@11", KINDS_ALL, "Argument name is not specified" },
	{ "^var.1=@11", KINDS_ALL, "Argument name must follow the same rules as C identifiers" },
	{ "^1var=@11", KINDS_ALL, "Argument name must follow the same rules as C identifiers" },
	{ "^a-b=@11", KINDS_ALL, "Argument name must follow the same rules as C identifiers" },
	{ "var1=@11 ^var1=@12", KINDS_ALL, "This argument name is already used" },
	{ "{v} ^arg1={v}", KINDS_REGS, "This argument name is already used" },
	{ "^common_pid={v}", KINDS_ALL, "This argument name is already used" },
	{ "^common_type={v}", KINDS_ALL, "This argument name is already used" },
	{ "^__probe_ip={v}", KINDS_ALL, "This argument name is already used" },
	{ "^__probe_func={v}", KINDS_ALL, "This argument name is already used" },
	{ "^__probe_ret_ip={v}", KINDS_ALL, "This argument name is already used" },
	{ "a=^", KINDS_ALL, "No argument expression" },
	/* MAX_ARGSTR_LEN (63): this body has 64 characters */
	{ "a=^" OFFSET_OF_58 "0(@11)", KINDS_ALL, "Argument expression is too long" },
};

/*
 * The crosses: each rule of a table on each probe kind it applies to,
 * in as many variants as the table has.  They take about 20 s of TCG
 * in full (make check: the module parameter "full"); otherwise each
 * rule and variant runs on the first kind it applies to, so every rule
 * is still tried once.
 */
static bool full;
module_param(full, bool, 0444);
MODULE_PARM_DESC(full, "probe_parse: every rule on every probe kind, not once each");

/* A case of a cross: which kind, rule and variant, and its command. */
struct cross_case {
	const struct arg_rule *rules;	/* of a method or error cross */
	int kind;
	int rule;
	int variant;
	char cmd[224];
};

/*
 * A cross: its table's size, which cases it has and how a command is
 * written.  Its generator hands out addresses in @slots, one for each
 * (kind, rule, variant) in that order of nesting, so the case is the
 * address's index and no state is kept between calls.
 */
struct cross {
	const u8 *slots;
	const struct arg_rule *rules;
	int nr_rules;
	int variants;
	bool (*valid)(const struct cross_case *c);
	void (*build)(struct cross_case *c);
};

static int cross_slots(const struct cross *x)
{
	return ARRAY_SIZE(probe_kinds) * x->nr_rules * x->variants;
}

/* The kind, rule and variant of SLOT, without its command. */
static void cross_locate(const struct cross *x, const u8 *slot, struct cross_case *c)
{
	int i = slot - x->slots;

	c->rules = x->rules;
	c->variant = i % x->variants;
	c->rule = i / x->variants % x->nr_rules;
	c->kind = i / x->variants / x->nr_rules;
}

/* Whether C runs: its rule applies, and in full or on its first kind. */
static bool cross_runs(const struct cross *x, struct cross_case *c)
{
	int kind = c->kind;
	bool first = true;

	if (!x->valid(c))
		return false;
	for (c->kind = 0; c->kind < kind && first; c->kind++)
		first = !x->valid(c);
	c->kind = kind;
	return full || first;
}

/* The case of SLOT, with its command. */
static void cross_case_at(const struct cross *x, const void *slot, struct cross_case *c)
{
	cross_locate(x, slot, c);
	x->build(c);
}

static const void *cross_next(const struct cross *x, const void *prev, char *desc)
{
	const u8 *slot = prev ? (const u8 *)prev + 1 : x->slots;
	struct cross_case c;

	for (; slot < x->slots + cross_slots(x); slot++) {
		cross_locate(x, slot, &c);
		if (!cross_runs(x, &c))
			continue;
		x->build(&c);
		strscpy(desc, c.cmd, KUNIT_PARAM_DESC_SIZE);
		return slot;
	}
	return NULL;
}

/* Copy TMPL to BUF with each "{v}" replaced by VALUE. */
static void expand_value(char *buf, size_t size, const char *tmpl, const char *value)
{
	const char *v;
	size_t pos = 0;

	while ((v = strstr(tmpl, "{v}"))) {
		pos += scnprintf(buf + pos, size - pos, "%.*s%s", (int)(v - tmpl), tmpl, value);
		tmpl = v + 3;
	}
	scnprintf(buf + pos, size - pos, "%s", tmpl);
}

/*
 * Write CMD and check the one argument it records, "a": FIELD is its
 * line in the format file, FMT and RECS its part of the print format.
 * An eprobe's print format is its own, so only its field is checked.
 */
static void expect_one_arg(struct kunit *test, const struct probe_kind *kind,
			   const char *cmd, const char *field, const char *fmt,
			   const char *recs)
{
	ssize_t ret = probe_test_write(test, kind->file, cmd);
	const char *tail;

	KUNIT_ASSERT_EQ_MSG(test, ret, (ssize_t)strlen(cmd), "%s", cmd);
	if (kind->own) {
		tail = probe_test_printf(test, "%s%s\nprint fmt: \"%s a=%s\"%s, %s\n",
					 kind->own, field, kind->fmt, fmt, kind->recs, recs);
		KUNIT_EXPECT_STREQ(test, event_format_tail(test), tail);
	} else {
		tail = eprobe_fields(test);
		KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(tail, field), "%s", tail);
	}
	delete_event(test, kind->file);
}

/*
 * Types: each on the kind's value, from its memory and as an array from
 * its memory (3 elements, 2 of a string).
 */
enum { ON_VALUE, ON_MEMORY, AS_ARRAY, TYPE_VARIANTS };

static bool type_cross_valid(const struct cross_case *c)
{
	const struct probe_kind *kind = &probe_kinds[c->kind];
	const struct type_rule *type = &type_rules[c->rule];

	if ((type->flags & TYPE_KERNEL) && (kind->bit & KINDS_USER))
		return false;
	if (c->variant == ON_VALUE)
		return !(type->flags & TYPE_MEMORY) || kind->value_is_field;
	return c->variant == ON_MEMORY || !(type->flags & TYPE_NO_ARRAY);
}

static int type_cross_count(const struct cross_case *c)
{
	if (c->variant != AS_ARRAY)
		return 0;
	return type_rules[c->rule].flags & TYPE_DATA_LOC ? 2 : 3;
}

static void type_cross_build(struct cross_case *c)
{
	const struct probe_kind *kind = &probe_kinds[c->kind];
	const struct type_rule *type = &type_rules[c->rule];
	int count = type_cross_count(c);

	snprintf(c->cmd, sizeof(c->cmd), "%s a=%s%s%s", kind->head,
		 c->variant == ON_VALUE ? kind->value : kind->memory,
		 *type->name ? ":" : "", type->name);
	if (count)
		snprintf(c->cmd + strlen(c->cmd), sizeof(c->cmd) - strlen(c->cmd),
			 "[%d]", count);
}

static const u8 type_slots[ARRAY_SIZE(probe_kinds) * ARRAY_SIZE(type_rules) * TYPE_VARIANTS];

static const struct cross type_cross = {
	.slots = type_slots, .nr_rules = ARRAY_SIZE(type_rules), .variants = TYPE_VARIANTS,
	.valid = type_cross_valid, .build = type_cross_build,
};

static const void *type_cross_gen(const void *prev, char *desc)
{
	return cross_next(&type_cross, prev, desc);
}

/*
 * Argument "a" of TYPE, COUNT elements of it (0: a single value), laid
 * out by the rules over parse_type_cases and parse_array_cases as the
 * kind's first argument.
 */
static void expect_typed_arg(struct kunit *test, const struct probe_kind *kind,
			     const char *cmd, const struct type_rule *type, int count)
{
	bool data_loc = type->flags & TYPE_DATA_LOC;
	const char *decl, *fmt, *recs;
	int i;

	if (!count) {
		decl = probe_test_printf(test, "%s a", type->decl);
		fmt = type->fmt;
		recs = data_loc ? "__get_str(a)" : "REC->a";
	} else {
		decl = data_loc ? probe_test_printf(test, "%s[%d] a", type->decl, count) :
				  probe_test_printf(test, "%s a[]", type->decl);
		fmt = probe_test_printf(test, "{%s", type->fmt);
		recs = data_loc ? "__get_str(a[0])" : "REC->a[0]";
		for (i = 1; i < count; i++) {
			fmt = probe_test_printf(test, "%s,%s", fmt, type->fmt);
			recs = probe_test_printf(test, data_loc ? "%s, __get_str(a[%d])" :
						 "%s, REC->a[%d]", recs, i);
		}
		fmt = probe_test_printf(test, "%s}", fmt);
	}
	expect_one_arg(test, kind, cmd,
		       probe_test_printf(test, "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
					 decl, kind->first, type->size * (count ?: 1),
					 type->sign),
		       fmt, recs);
}

static void parse_every_type(struct kunit *test)
{
	struct cross_case c;

	cross_case_at(&type_cross, test->param_value, &c);
	expect_typed_arg(test, &probe_kinds[c.kind], c.cmd, &type_rules[c.rule],
			 type_cross_count(&c));
}

/*
 * Methods and errors: an argument of a rule table on each kind the rule
 * names.
 */
static bool arg_cross_valid(const struct cross_case *c)
{
	return c->rules[c->rule].kinds & probe_kinds[c->kind].bit;
}

static void arg_cross_build(struct cross_case *c)
{
	const struct probe_kind *kind = &probe_kinds[c->kind];
	char arg[128];

	expand_value(arg, sizeof(arg), c->rules[c->rule].arg, kind->value);
	snprintf(c->cmd, sizeof(c->cmd), "%s %s", kind->head, arg);
}

static const u8 method_slots[ARRAY_SIZE(probe_kinds) * ARRAY_SIZE(method_rules)];
static const u8 err_slots[ARRAY_SIZE(probe_kinds) * ARRAY_SIZE(arg_err_rules)];

static const struct cross method_cross = {
	.slots = method_slots, .rules = method_rules, .nr_rules = ARRAY_SIZE(method_rules),
	.variants = 1, .valid = arg_cross_valid, .build = arg_cross_build,
};

static const struct cross err_cross = {
	.slots = err_slots, .rules = arg_err_rules, .nr_rules = ARRAY_SIZE(arg_err_rules),
	.variants = 1, .valid = arg_cross_valid, .build = arg_cross_build,
};

static const void *method_cross_gen(const void *prev, char *desc)
{
	return cross_next(&method_cross, prev, desc);
}

static const void *err_cross_gen(const void *prev, char *desc)
{
	return cross_next(&err_cross, prev, desc);
}

/* An eprobe records every argument as the type written, or x64. */
static void parse_every_method(struct kunit *test)
{
	const struct probe_kind *kind;
	struct cross_case c;
	const char *type;

	cross_case_at(&method_cross, test->param_value, &c);
	kind = &probe_kinds[c.kind];
	type = kind->bit == KIND_EPROBE ? "" : method_rules[c.rule].result;
	expect_typed_arg(test, kind, c.cmd, type_rule_of(type), 0);
}

static void parse_every_error(struct kunit *test)
{
	const struct probe_kind *kind;
	struct cross_case c;

	cross_case_at(&err_cross, test->param_value, &c);
	kind = &probe_kinds[c.kind];
	expect_parse_error(test, kind->file, kind->where, c.cmd, arg_err_rules[c.rule].result);
}

/*
 * The suite's last case: no event the cases before it defined and
 * removed, through each file and on the failure paths of the allocation
 * sweeps, left anything behind (in a boot with kmemleak on).
 */
static void parse_no_leaks(struct kunit *test)
{
	struct kfork_test_fs *fs = probe_test_fs(test);

	kfork_test_kmemleak_begin(test, fs);
	kfork_test_expect_no_leaks(test, fs);
}

static int parse_test_init(struct kunit *test)
{
	probe_test_fs_init(test);
	/* a leftover of an aborted case would make the next one EVENT_EXIST */
	probe_test_write(test, "kprobe_events", "-:" EVENT);
	probe_test_write(test, "uprobe_events", "-:" EVENT);
	probe_test_write(test, "dynamic_events", "-:" EVENT);
	return 0;
}

static int parse_suite_init(struct kunit_suite *suite)
{
	return probe_test_create_file(TARGET) ?: probe_test_create_dir(TARGET_DIR);
}

static void parse_suite_exit(struct kunit_suite *suite)
{
	probe_test_remove_file(TARGET_DIR);
	probe_test_remove_file(TARGET);
}

static struct kunit_case parse_test_cases[] = {
	KUNIT_CASE_PARAM(parse_types, parse_type_gen_params),
	KUNIT_CASE_PARAM(parse_methods, parse_method_gen_params),
	KUNIT_CASE_PARAM(parse_arrays, parse_array_gen_params),
	KUNIT_CASE_PARAM(parse_layouts, parse_layout_gen_params),
	KUNIT_CASE_PARAM(parse_uprobes, parse_uprobe_gen_params),
	KUNIT_CASE_PARAM(parse_errors, parse_err_gen_params),
	KUNIT_CASE_PARAM(parse_uprobe_errors, parse_uprobe_err_gen_params),
	KUNIT_CASE_PARAM(parse_uprobe_appends, parse_uprobe_append_gen_params),
	KUNIT_CASE_PARAM(parse_uprobe_removals, parse_uprobe_removal_gen_params),
	KUNIT_CASE(parse_uprobe_on_directory),
	KUNIT_CASE(parse_uprobe_default_names),
#if KFORK_TEST_FAILSLAB
	KUNIT_CASE_PARAM(parse_alloc_failures, parse_alloc_failure_gen_params),
#endif
	KUNIT_CASE_PARAM(parse_eprobes, parse_eprobe_gen_params),
	KUNIT_CASE_PARAM(parse_eprobe_errors, parse_eprobe_err_gen_params),
	KUNIT_CASE(parse_name_limits),
	KUNIT_CASE(parse_max_args),
	KUNIT_CASE(parse_event_size),
	KUNIT_CASE(parse_stack_limit),
	KUNIT_CASE(parse_argstr_limit),
	KUNIT_CASE(parse_offset_limits),
	KUNIT_CASE_PARAM(parse_uprobe_no_symbols, parse_uprobe_type_gen_params),
	KUNIT_CASE_PARAM(parse_string_type_logged, parse_string_type_gen_params),
	KUNIT_CASE_PARAM(parse_string_array_needs_pointers, parse_string_array_gen_params),
	KUNIT_CASE_PARAM(parse_uprobe_args, parse_uprobe_arg_gen_params),
	KUNIT_CASE_PARAM(parse_uprobe_arg_errors, parse_uprobe_arg_err_gen_params),
	KUNIT_CASE_PARAM(parse_number_overflow, parse_number_overflow_gen_params),
	KUNIT_CASE_PARAM(parse_too_many_args, too_many_args_gen_params),
	KUNIT_CASE_PARAM(parse_every_type, type_cross_gen),
	KUNIT_CASE_PARAM(parse_every_method, method_cross_gen),
	KUNIT_CASE_PARAM(parse_every_error, err_cross_gen),
	KUNIT_CASE(parse_no_leaks),
	{}
};

static struct kunit_suite parse_test_suite = {
	.name = "probe_parse",
	.suite_init = parse_suite_init,
	.suite_exit = parse_suite_exit,
	.init = parse_test_init,
	.exit = probe_test_fs_exit,
	.test_cases = parse_test_cases,
};

kunit_test_suite(parse_test_suite);

MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_compile: the argument compiler alone.  Included at the end of
 * trace_probe.c (fork only), it calls probe_compile_arg() directly with
 * a body and a probe kind's flags, and compares the fetch program it
 * returns, instruction by instruction, with the one the row spells
 * out, or the error it returns with its cause and caret.  No tracefs,
 * no error log, no event: one compile per row.
 *
 * How each program is built is the language's own rule, stated once
 * here and derived in the rows from it:
 *  - a load (register, stack, argument, immediate, file offset,
 *    symbol, $comm, field) comes first, "@X" adds a dereference at
 *    offset 0, and each "+|-OFFS(...)" adds one at OFFS, innermost first;
 *  - a number is stored by turning a final kernel (user) dereference
 *    into ST_MEM (ST_UMEM) at its offset, or else by ST_RAW after it;
 *  - a string is stored the same way from a final dereference, and by
 *    an ST_STRING at offset 0 after an address the load yields itself;
 *  - a bitfield b<w>@<o>/<c> shifts the c-bit container left by
 *    c - (o + w) and right by c - w;
 *  - an array repeats the store, then FETCH_OP_END closes the program.
 * Carets count characters from the start of the body.
 */
#include <kunit/test.h>

/* The probe kinds, by the flags their parsers pass. */
#define KP	(TPARG_FL_KERNEL | TPARG_FL_FENTRY)	/* kprobe at a function */
#define KI	TPARG_FL_KERNEL				/* kprobe inside one */
#define KR	(KP | TPARG_FL_RETURN)			/* kretprobe */
#define UP	TPARG_FL_FENTRY				/* uprobe */
#define UR	TPARG_FL_RETURN				/* uretprobe */
#define EP	(TPARG_FL_KERNEL | TPARG_FL_TPOINT)	/* eprobe */

static const char *compile_kind_name(unsigned int flags)
{
	switch (flags) {
	case KP: return "kprobe";
	case KI: return "kprobe+off";
	case KR: return "kretprobe";
	case UP: return "uprobe";
	case UR: return "uretprobe";
	case EP: return "eprobe";
	}
	return "?";
}

/* A case's name: the probe kind, then the body. */
static void compile_describe(unsigned int flags, const char *body, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s", compile_kind_name(flags), body);
}

/* The instructions a row expects, by what each one carries. */
#define I_REG(r)	{ .op = FETCH_OP_REG, .param = offsetof(struct pt_regs, r) }
#define I_STACK(n)	{ .op = FETCH_OP_STACK, .param = (n) }
#define I_STACKP	{ .op = FETCH_OP_STACKP }
#define I_RETVAL	{ .op = FETCH_OP_RETVAL }
#define I_IMM(v)	{ .op = FETCH_OP_IMM, .immediate = (v) }
#define I_COMM		{ .op = FETCH_OP_COMM }
#define I_ARG(n)	{ .op = FETCH_OP_ARG, .param = (n) }
#define I_FOFFS(v)	{ .op = FETCH_OP_FOFFS, .immediate = (v) }
#define I_DATA(s)	{ .op = FETCH_OP_DATA, .data = (s) }
#define I_FIELD(s)	{ .op = FETCH_OP_TP_ARG, .data = (s) }
#define I_SYM(s)	{ .op = FETCH_NOP_SYMBOL, .data = (s) }
#define I_DEREF(o)	{ .op = FETCH_OP_DEREF, .offset = (o) }
#define I_UDEREF(o)	{ .op = FETCH_OP_UDEREF, .offset = (o) }
#define I_ST(kind, sz, o) { .op = FETCH_OP_ST_##kind, .size = (sz), .offset = (o) }
#define I_BF(c, l, r)	{ .op = FETCH_OP_MOD_BF, .basesize = (c), .lshift = (l), .rshift = (r) }
#define I_ARRAY(n)	{ .op = FETCH_OP_LP_ARRAY, .param = (n) }
#define I_END		{ .op = FETCH_OP_END }

/* 14 and 15 dereferences around a register, 13 and 14 around "@1". */
#define DEREF14(x)	"+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(" x "))))))))))))))"
#define DEREF13(x)	"+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(" x ")))))))))))))"

static void compile_expect_insn(struct kunit *test, const struct fetch_insn *got,
				const struct fetch_insn *want, int i)
{
	KUNIT_EXPECT_EQ_MSG(test, got->op, want->op, "instruction %d", i);
	if (got->op != want->op)
		return;
	switch (want->op) {
	case FETCH_OP_REG:
	case FETCH_OP_STACK:
	case FETCH_OP_ARG:
	case FETCH_OP_LP_ARRAY:
		KUNIT_EXPECT_EQ_MSG(test, got->param, want->param, "instruction %d", i);
		break;
	case FETCH_OP_IMM:
	case FETCH_OP_FOFFS:
		KUNIT_EXPECT_EQ_MSG(test, got->immediate, want->immediate, "instruction %d", i);
		break;
	case FETCH_OP_DEREF:
	case FETCH_OP_UDEREF:
		KUNIT_EXPECT_EQ_MSG(test, got->offset, want->offset, "instruction %d", i);
		break;
	case FETCH_OP_ST_RAW:
	case FETCH_OP_ST_MEM:
	case FETCH_OP_ST_UMEM:
	case FETCH_OP_ST_STRING:
	case FETCH_OP_ST_USTRING:
	case FETCH_OP_ST_SYMSTR:
		KUNIT_EXPECT_EQ_MSG(test, got->size, want->size, "instruction %d", i);
		KUNIT_EXPECT_EQ_MSG(test, got->offset, want->offset, "instruction %d", i);
		break;
	case FETCH_OP_MOD_BF:
		KUNIT_EXPECT_EQ_MSG(test, got->basesize, want->basesize, "instruction %d", i);
		KUNIT_EXPECT_EQ_MSG(test, got->lshift, want->lshift, "instruction %d", i);
		KUNIT_EXPECT_EQ_MSG(test, got->rshift, want->rshift, "instruction %d", i);
		break;
	case FETCH_OP_DATA:
	case FETCH_OP_TP_ARG:
	case FETCH_NOP_SYMBOL:
		KUNIT_EXPECT_STREQ_MSG(test, (const char *)got->data, (const char *)want->data,
				       "instruction %d", i);
		break;
	default:
		break;
	}
}

/* Compare PARG's program with WANT, which ends with I_END. */
static void compile_expect_code(struct kunit *test, const struct probe_arg *parg,
				const struct fetch_insn *want)
{
	int i;

	for (i = 0; i < FETCH_INSN_MAX; i++) {
		compile_expect_insn(test, &parg->code[i], &want[i], i);
		if (want[i].op == FETCH_OP_END || parg->code[i].op != want[i].op)
			return;
	}
	KUNIT_FAIL(test, "the expected program has no END");
}

/* ------------------------------------------------------------------ */
/* Programs                                                            */

struct compile_program {
	const char *body;
	unsigned int flags;
	const char *type;	/* the type's name */
	unsigned int count;	/* array elements */
	struct fetch_insn code[FETCH_INSN_MAX];
};

static const struct compile_program compile_programs[] = {
	/* no type: an unsigned long in hex */
	{ "%ax", KP, "x64", 0, { I_REG(ax), I_ST(RAW, 8, 0), I_END } },
	{ "%di:u32", KP, "u32", 0, { I_REG(di), I_ST(RAW, 4, 0), I_END } },
	{ "%r15:s8", KI, "s8", 0, { I_REG(r15), I_ST(RAW, 1, 0), I_END } },
	{ "%ip:x16", KR, "x16", 0, { I_REG(ip), I_ST(RAW, 2, 0), I_END } },
	{ "%sp:symbol", KP, "symbol", 0, { I_REG(sp), I_ST(RAW, 8, 0), I_END } },
	{ "%flags", UP, "x64", 0, { I_REG(flags), I_ST(RAW, 8, 0), I_END } },
	{ "%r8:s64", UR, "s64", 0, { I_REG(r8), I_ST(RAW, 8, 0), I_END } },

	/* the stack: the pointer, and entries counted from it */
	{ "$stack", KP, "x64", 0, { I_STACKP, I_ST(RAW, 8, 0), I_END } },
	{ "$stack0", KP, "x64", 0, { I_STACK(0), I_ST(RAW, 8, 0), I_END } },
	{ "$stack12:u16", KI, "u16", 0, { I_STACK(12), I_ST(RAW, 2, 0), I_END } },
	{ "$stack", UP, "x64", 0, { I_STACKP, I_ST(RAW, 8, 0), I_END } },
	/* a user stack is bounded only by the 32-bit parameter */
	{ "$stack4294967295", UP, "x64", 0, { I_STACK(4294967295U), I_ST(RAW, 8, 0), I_END } },
	{ "$stack3", UR, "x64", 0, { I_STACK(3), I_ST(RAW, 8, 0), I_END } },

	/* $retval on return probes */
	{ "$retval", KR, "x64", 0, { I_RETVAL, I_ST(RAW, 8, 0), I_END } },
	{ "$retval:s32", UR, "s32", 0, { I_RETVAL, I_ST(RAW, 4, 0), I_END } },

	/* $argN counts from 1, the program's parameter from 0 */
	{ "$arg1", KP, "x64", 0, { I_ARG(0), I_ST(RAW, 8, 0), I_END } },
	{ "$arg6:u8", KP, "u8", 0, { I_ARG(5), I_ST(RAW, 1, 0), I_END } },
	{ "$arg1", UP, "x64", 0, { I_ARG(0), I_ST(RAW, 8, 0), I_END } },
	{ "$arg7", UP, "x64", 0, { I_ARG(6), I_ST(RAW, 8, 0), I_END } },
	{ "$arg4294967295", UP, "x64", 0, { I_ARG(4294967294U), I_ST(RAW, 8, 0), I_END } },

	/* immediates: decimal, hex, signed (two's complement in the long) */
	{ "\\1234", KP, "x64", 0, { I_IMM(1234), I_ST(RAW, 8, 0), I_END } },
	{ "\\0x10:u8", UP, "u8", 0, { I_IMM(16), I_ST(RAW, 1, 0), I_END } },
	{ "\\-1:s32", KI, "s32", 0, { I_IMM(-1UL), I_ST(RAW, 4, 0), I_END } },
	{ "\\+5", UR, "x64", 0, { I_IMM(5), I_ST(RAW, 8, 0), I_END } },
	{ "\\017", KP, "x64", 0, { I_IMM(15), I_ST(RAW, 8, 0), I_END } },

	/* @ADDR: the address, then the read at it becomes the store */
	{ "@0x1000", KP, "x64", 0, { I_IMM(0x1000), I_ST(MEM, 8, 0), I_END } },
	{ "@4096:u16", UP, "u16", 0, { I_IMM(4096), I_ST(MEM, 2, 0), I_END } },
	{ "@+0x40", UP, "x64", 0, { I_FOFFS(0x40), I_ST(MEM, 8, 0), I_END } },
	{ "@+0:s8", UR, "s8", 0, { I_FOFFS(0), I_ST(MEM, 1, 0), I_END } },
	/* a symbol, resolved into the IMM after it once the kernel is known */
	{ "@jiffies", KP, "x64", 0, { I_SYM("jiffies"), I_IMM(0), I_ST(MEM, 8, 0), I_END } },
	{ "@jiffies+8:u32", KI, "u32", 0,
	  { I_SYM("jiffies+8"), I_IMM(0), I_ST(MEM, 4, 0), I_END } },

	/* dereferences: the final one becomes the store, with its offset */
	{ "+8(%ax)", KP, "x64", 0, { I_REG(ax), I_ST(MEM, 8, 8), I_END } },
	{ "-8(%ax):u32", KP, "u32", 0, { I_REG(ax), I_ST(MEM, 4, -8), I_END } },
	{ "+0x7fffffff(%bx)", KI, "x64", 0, { I_REG(bx), I_ST(MEM, 8, 0x7fffffff), I_END } },
	{ "-0x80000000(%bx)", KI, "x64", 0, { I_REG(bx), I_ST(MEM, 8, INT_MIN), I_END } },
	{ "+u8(%si):u16", KP, "u16", 0, { I_REG(si), I_ST(UMEM, 2, 8), I_END } },
	{ "-u4(%si)", UP, "x64", 0, { I_REG(si), I_ST(UMEM, 8, -4), I_END } },
	{ "+0(+8(%ax))", KP, "x64", 0, { I_REG(ax), I_DEREF(8), I_ST(MEM, 8, 0), I_END } },
	{ "+4(@0x1000)", KP, "x64", 0, { I_IMM(0x1000), I_DEREF(0), I_ST(MEM, 8, 4), I_END } },
	{ "+4(@+0x40):u32", UP, "u32", 0,
	  { I_FOFFS(0x40), I_DEREF(0), I_ST(MEM, 4, 4), I_END } },
	{ "+0($stack1)", KI, "x64", 0, { I_STACK(1), I_ST(MEM, 8, 0), I_END } },
	{ "+16($retval):u8", KR, "u8", 0, { I_RETVAL, I_ST(MEM, 1, 16), I_END } },
	{ "+8($arg2)", UP, "x64", 0, { I_ARG(1), I_ST(MEM, 8, 8), I_END } },
	{ "+u0(+8(%di))", KP, "x64", 0, { I_REG(di), I_DEREF(8), I_ST(UMEM, 8, 0), I_END } },
	{ "+0(+u8(%di))", KP, "x64", 0, { I_REG(di), I_UDEREF(8), I_ST(MEM, 8, 0), I_END } },
	{ "+8(\\0x1000)", KP, "x64", 0, { I_IMM(0x1000), I_ST(MEM, 8, 8), I_END } },
	/* the longest chain: REG, 13 DEREFs and the store leave END the last slot */
	{ DEREF14("%ax"), KP, "x64", 0,
	  { [0] = I_REG(ax), [1 ... 13] = I_DEREF(0), [14] = I_ST(MEM, 8, 0), [15] = I_END } },

	/* strings: the final dereference or an address the load yields */
	{ "+0(%ax):string", KP, "string", 0, { I_REG(ax), I_ST(STRING, 4, 0), I_END } },
	{ "+8(%ax):string", KP, "string", 0, { I_REG(ax), I_ST(STRING, 4, 8), I_END } },
	{ "+0(%ax):ustring", KP, "ustring", 0, { I_REG(ax), I_ST(USTRING, 4, 0), I_END } },
	{ "+u0(%ax):string", KP, "string", 0, { I_REG(ax), I_ST(USTRING, 4, 0), I_END } },
	{ "+0(%di):string", UP, "string", 0, { I_REG(di), I_ST(STRING, 4, 0), I_END } },
	{ "@0x1000:string", KI, "string", 0, { I_IMM(0x1000), I_ST(STRING, 4, 0), I_END } },
	{ "\\0x1000:string", KP, "string", 0,
	  { I_IMM(0x1000), I_ST(STRING, 4, 0), I_END } },
	{ "@+0x40:string", UP, "string", 0, { I_FOFFS(0x40), I_ST(STRING, 4, 0), I_END } },
	{ "$comm", KP, "string", 0, { I_COMM, I_ST(STRING, 4, 0), I_END } },
	{ "$COMM", UR, "string", 0, { I_COMM, I_ST(STRING, 4, 0), I_END } },
	{ "$comm:string", UP, "string", 0, { I_COMM, I_ST(STRING, 4, 0), I_END } },
	{ "\\\"kfork\"", KR, "string", 0, { I_DATA("kfork"), I_ST(STRING, 4, 0), I_END } },
	{ "\\\"a b\"", UP, "string", 0, { I_DATA("a b"), I_ST(STRING, 4, 0), I_END } },
	/* symstr: the symbol name of a value, in a store after it */
	{ "%ax:symstr", KP, "symstr", 0, { I_REG(ax), I_ST(SYMSTR, 4, 0), I_END } },
	{ "+8(%ax):symstr", KP, "symstr", 0,
	  { I_REG(ax), I_DEREF(8), I_ST(SYMSTR, 4, 0), I_END } },
	{ "@0x10:symstr", KI, "symstr", 0,
	  { I_IMM(0x10), I_DEREF(0), I_ST(SYMSTR, 4, 0), I_END } },
	{ "$retval:symstr", KR, "symstr", 0, { I_RETVAL, I_ST(SYMSTR, 4, 0), I_END } },
	{ "$stack2:symstr", KI, "symstr", 0, { I_STACK(2), I_ST(SYMSTR, 4, 0), I_END } },
	{ "$arg3:symstr", KP, "symstr", 0, { I_ARG(2), I_ST(SYMSTR, 4, 0), I_END } },

	/* bitfields: left by c - (o + w), right by c - w */
	{ "%ax:b4@2/32", KP, "u32", 0,				/* 32-6, 32-4 */
	  { I_REG(ax), I_ST(RAW, 4, 0), I_BF(4, 26, 28), I_END } },
	{ "+0(%ax):b1@7/8", KP, "u8", 0,			/* 8-8, 8-1 */
	  { I_REG(ax), I_ST(MEM, 1, 0), I_BF(1, 0, 7), I_END } },
	{ "+0(%ax):b64@0/64", KP, "u64", 0,			/* 64-64, 64-64 */
	  { I_REG(ax), I_ST(MEM, 8, 0), I_BF(8, 0, 0), I_END } },
	{ "+2(%ax):b3@0/16", UP, "u16", 0,			/* 16-3, 16-3 */
	  { I_REG(ax), I_ST(MEM, 2, 2), I_BF(2, 13, 13), I_END } },
	{ "+u4(%ax):b10@20/32", UP, "u32", 0,			/* 32-30, 32-10 */
	  { I_REG(ax), I_ST(UMEM, 4, 4), I_BF(4, 2, 22), I_END } },
	{ "%ax:b0x8@0x8/0x20", KP, "u32", 0,			/* 32-16, 32-8 */
	  { I_REG(ax), I_ST(RAW, 4, 0), I_BF(4, 16, 24), I_END } },

	/* arrays: the store repeated */
	{ "+0(%ax):u32[4]", KP, "u32", 4,
	  { I_REG(ax), I_ST(MEM, 4, 0), I_ARRAY(4), I_END } },
	{ "+0(%ax):u8[64]", KP, "u8", 64,
	  { I_REG(ax), I_ST(MEM, 1, 0), I_ARRAY(64), I_END } },
	{ "@0x1000:x16[0x2]", KI, "x16", 2,
	  { I_IMM(0x1000), I_ST(MEM, 2, 0), I_ARRAY(2), I_END } },
	{ "+u8(%di):s64[3]", UP, "s64", 3,
	  { I_REG(di), I_ST(UMEM, 8, 8), I_ARRAY(3), I_END } },
	{ "+0(%ax):b2@1/8[3]", KP, "u8", 3,			/* 8-3, 8-2 */
	  { I_REG(ax), I_ST(MEM, 1, 0), I_BF(1, 5, 6), I_ARRAY(3), I_END } },
	/* an array of strings keeps the dereference to redo per pointer */
	{ "+0(%ax):string[2]", KP, "string", 2,
	  { I_REG(ax), I_DEREF(0), I_ST(STRING, 4, 0), I_ARRAY(2), I_END } },
	{ "+8(%di):ustring[3]", UP, "ustring", 3,
	  { I_REG(di), I_DEREF(8), I_ST(USTRING, 4, 0), I_ARRAY(3), I_END } },
	{ "+u0(%di):string[2]", KP, "string", 2,
	  { I_REG(di), I_UDEREF(0), I_ST(USTRING, 4, 0), I_ARRAY(2), I_END } },

	/* eprobes: $NAME is a field of the event, $comm too */
	{ "$field", EP, "x64", 0, { I_FIELD("field"), I_ST(RAW, 8, 0), I_END } },
	{ "$comm", EP, "x64", 0, { I_FIELD("comm"), I_ST(RAW, 8, 0), I_END } },
	{ "$arg1:u32", EP, "u32", 0, { I_FIELD("arg1"), I_ST(RAW, 4, 0), I_END } },
	{ "$retval", EP, "x64", 0, { I_FIELD("retval"), I_ST(RAW, 8, 0), I_END } },
	{ "$field:string", EP, "string", 0, { I_FIELD("field"), I_ST(STRING, 4, 0), I_END } },
	{ "$field:symstr", EP, "symstr", 0, { I_FIELD("field"), I_ST(SYMSTR, 4, 0), I_END } },
	{ "+8($field):u32", EP, "u32", 0, { I_FIELD("field"), I_ST(MEM, 4, 8), I_END } },
	{ "+0(+8($f)):string", EP, "string", 0,
	  { I_FIELD("f"), I_DEREF(8), I_ST(STRING, 4, 0), I_END } },
	{ "\\3:u8", EP, "u8", 0, { I_IMM(3), I_ST(RAW, 1, 0), I_END } },
	{ "@0x1000", EP, "x64", 0, { I_IMM(0x1000), I_ST(MEM, 8, 0), I_END } },
};

static void compile_program_desc(const struct compile_program *row, char *desc)
{
	compile_describe(row->flags, row->body, desc);
}

KUNIT_ARRAY_PARAM(compile_programs, compile_programs, compile_program_desc);

/* A body compiles to the row's type and program; the argument is fixed up. */
static void compile_program(struct kunit *test)
{
	const struct compile_program *row = test->param_value;
	struct probe_compile_error error;
	struct probe_arg parg = {};
	ssize_t size = 0;
	int ret;

	ret = probe_compile_arg("arg1", row->body, row->flags, &size, &parg, &error);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, error.cause, TP_ERR_MAX);
	if (!ret) {
		KUNIT_EXPECT_STREQ(test, parg.type->name, row->type);
		KUNIT_EXPECT_EQ(test, parg.count, row->count);
		KUNIT_EXPECT_EQ(test, parg.dynamic, parg.type->is_string);
		KUNIT_EXPECT_STREQ(test, parg.comm, row->body);
		KUNIT_EXPECT_EQ(test, size, parg.type->size * (row->count ? row->count : 1));
		compile_expect_code(test, &parg, row->code);
	}
	traceprobe_free_probe_arg(&parg);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

struct compile_failure {
	const char *body;
	unsigned int flags;
	enum trace_probe_error cause;
	int caret;
};

static const struct compile_failure compile_failures[] = {
	{ "", KP, TP_ERR_NO_ARG_BODY, 0 },
	/* 64 characters, one past MAX_ARGSTR_LEN */
	{ "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%axx)))))))))))))))", KP,
	  TP_ERR_ARG_TOO_LONG, 0 },

	/* variables */
	{ "$retval", KP, TP_ERR_RETVAL_ON_PROBE, 0 },
	{ "$retval", UP, TP_ERR_RETVAL_ON_PROBE, 0 },
	{ "$retval", KI, TP_ERR_RETVAL_ON_PROBE, 0 },
	/* past any kernel stack (PARAM_MAX_STACK is at most a few thousand) */
	{ "$stack99999", KP, TP_ERR_BAD_STACK_NUM, 0 },
	{ "$stack4294967296", UP, TP_ERR_BAD_STACK_NUM, 0 },
	{ "$stackx", KP, TP_ERR_BAD_VAR, 0 },
	{ "$stack1x", UP, TP_ERR_BAD_VAR, 0 },
	{ "$arg0", KP, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$arg0", UP, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$arg99999", KP, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$arg4294967296", UP, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$argx", UP, TP_ERR_BAD_VAR, 0 },
	/* not at an entry: the arguments are not where the convention put them */
	{ "$arg1", KI, TP_ERR_BAD_VAR, 0 },
	{ "$arg1", KR, TP_ERR_BAD_VAR, 0 },
	/* the fork's message for a uretprobe */
	{ "$arg1", UR, TP_ERR_ARGS_ON_RETPROBE, 0 },
	{ "$arg12", UR, TP_ERR_ARGS_ON_RETPROBE, 0 },
	{ "$argv", UR, TP_ERR_BAD_VAR, 0 },
	{ "$foo", KP, TP_ERR_BAD_VAR, 0 },
	{ "$", UP, TP_ERR_BAD_VAR, 0 },

	/* registers */
	{ "%zz", KP, TP_ERR_BAD_REG_NAME, 0 },
	{ "%", UP, TP_ERR_BAD_REG_NAME, 0 },
	{ "%ax", EP, TP_ERR_BAD_FETCH_ARG, 0 },

	/* memory */
	{ "@0xzz", KP, TP_ERR_BAD_MEM_ADDR, 0 },
	{ "@1x", UP, TP_ERR_BAD_MEM_ADDR, 0 },
	{ "@+0x10", KP, TP_ERR_FILE_ON_KPROBE, 0 },
	{ "@+0x10", EP, TP_ERR_FILE_ON_KPROBE, 0 },
	{ "@+zz", UP, TP_ERR_BAD_FILE_OFFS, 0 },
	{ "@+", UR, TP_ERR_BAD_FILE_OFFS, 0 },
	{ "@jiffies", UP, TP_ERR_SYM_ON_UPROBE, 0 },

	/* immediates: the caret after the backslash, or after the text */
	{ "\\\"abc", KP, TP_ERR_IMMSTR_NO_CLOSE, 5 },
	{ "\\\"", UP, TP_ERR_IMMSTR_NO_CLOSE, 2 },
	{ "\\zz", KP, TP_ERR_BAD_IMM, 1 },
	{ "\\", UP, TP_ERR_BAD_IMM, 1 },
	{ "\\12z", KI, TP_ERR_BAD_IMM, 1 },

	/* dereferences: the caret of what is inside is at its start */
	{ "+8", KP, TP_ERR_DEREF_NEED_BRACE, 0 },
	{ "+zz(%ax)", KP, TP_ERR_BAD_DEREF_OFFS, 0 },
	{ "+0x80000000(%ax)", KP, TP_ERR_BAD_DEREF_OFFS, 0 },	/* past s32 */
	{ "-0x80000001(%ax)", UP, TP_ERR_BAD_DEREF_OFFS, 0 },
	{ "+8(%ax", KP, TP_ERR_DEREF_OPEN_BRACE, 6 },		/* 3 + strlen("%ax") */
	{ "+0($comm)", KP, TP_ERR_COMM_CANT_DEREF, 3 },
	{ "+0(\\\"ab\")", UP, TP_ERR_COMM_CANT_DEREF, 3 },
	{ "+0(+8(%zz))", KP, TP_ERR_BAD_REG_NAME, 6 },
	/* the distro's caret inside "+u" is one early: 4 - 1 */
	{ "+u8(%zz)", KP, TP_ERR_BAD_REG_NAME, 3 },
	{ "+8($retval)", KP, TP_ERR_RETVAL_ON_PROBE, 3 },

	/* anything else */
	{ "ax", KP, TP_ERR_BAD_FETCH_ARG, 0 },
	{ "=1", UP, TP_ERR_BAD_FETCH_ARG, 0 },

	/* types and arrays: carets in "%ax:u32[4": '[' at 7, its text at 8 */
	{ "%ax:u32[4", KP, TP_ERR_ARRAY_NO_CLOSE, 9 },
	{ "%ax:u32[4]x", KP, TP_ERR_BAD_ARRAY_SUFFIX, 10 },
	{ "+0(%ax):u32[0]", KP, TP_ERR_BAD_ARRAY_NUM, 12 },
	{ "+0(%ax):u32[x]", UP, TP_ERR_BAD_ARRAY_NUM, 12 },
	{ "+0(%ax):u32[65]", KP, TP_ERR_ARRAY_TOO_BIG, 12 },	/* MAX_ARRAY_LEN 64 */
	{ "%ax:foo", KP, TP_ERR_BAD_TYPE, 4 },
	{ "%ax:", KP, TP_ERR_BAD_TYPE, 4 },
	{ "%ax:symbol", UP, TP_ERR_BAD_TYPE, 4 },
	{ "+0(%ax):symstr", UR, TP_ERR_BAD_TYPE, 8 },
	{ "%ax:b4@2/7", KP, TP_ERR_BAD_TYPE, 4 },		/* container not a power of 2 */
	{ "%ax:b4@2/128", KP, TP_ERR_BAD_TYPE, 4 },
	{ "$comm:u32", KP, TP_ERR_BAD_TYPE, 6 },
	{ "$comm:string[2]", KP, TP_ERR_BAD_TYPE, 6 },
	{ "\\\"ab\":x8", UP, TP_ERR_BAD_TYPE, 6 },
	/* a string needs an address */
	{ "%ax:string", KP, TP_ERR_BAD_STRING, 4 },
	{ "$stack:ustring", UP, TP_ERR_BAD_STRING, 7 },
	{ "$retval:string", KR, TP_ERR_BAD_STRING, 8 },
	{ "\\1:symstr", KP, TP_ERR_BAD_SYMSTRING, 3 },
	{ "$comm:symstr", KP, TP_ERR_BAD_TYPE, 6 },
	/* an array needs memory to step through */
	{ "%ax:u32[2]", KP, TP_ERR_BAD_STRING, 4 },
	{ "\\1:u8[2]", UP, TP_ERR_BAD_STRING, 3 },
	/* the fork's: one address is not an array of them */
	{ "\\0x1000:string[2]", KP, TP_ERR_BAD_STRING, 8 },
	{ "$f:string[2]", EP, TP_ERR_BAD_STRING, 3 },
	/* bitfields: the caret at the type */
	{ "%ax:b4@30/32", KP, TP_ERR_BAD_BITFIELD, 4 },		/* 30 + 4 > 32 */
	{ "%ax:b0@0/8", KP, TP_ERR_BAD_BITFIELD, 4 },
	{ "%ax:b9@0/8", UP, TP_ERR_BAD_BITFIELD, 4 },
	{ "%ax:b4/32", KP, TP_ERR_BAD_BITFIELD, 4 },
	/* '/' before '@': the container "8@1" is no number */
	{ "%ax:b/8@1", KP, TP_ERR_BAD_TYPE, 4 },
	{ "%ax:bx@1/8", KP, TP_ERR_BAD_BITFIELD, 4 },

	/* FETCH_INSN_MAX: the failing dereference's inside starts at 3 */
	{ DEREF14("+0(%ax)"), KP, TP_ERR_TOO_MANY_OPS, 3 },
	{ DEREF14("@1"), UP, TP_ERR_TOO_MANY_OPS, 3 },
	/* IMM, DEREF and 13 more fill the loads; the array or symstr store has no room */
	{ DEREF13("@1") ":u8[2]", KP, TP_ERR_TOO_MANY_OPS, 0 },
	{ DEREF13("@1") ":symstr", KP, TP_ERR_TOO_MANY_OPS, 0 },
	/* nor the bitfield: its caret is the type's, after 54 characters and ':' */
	{ DEREF13("@1") ":b1@0/8", KP, TP_ERR_BAD_BITFIELD, 55 },
};

static void compile_failure_desc(const struct compile_failure *row, char *desc)
{
	compile_describe(row->flags, row->body, desc);
}

KUNIT_ARRAY_PARAM(compile_failures, compile_failures, compile_failure_desc);

/* A body is refused with the row's cause, its caret where the row says. */
static void compile_failure(struct kunit *test)
{
	const struct compile_failure *row = test->param_value;
	struct probe_compile_error error;
	struct probe_arg parg = {};
	ssize_t size = 0;
	int ret;

	ret = probe_compile_arg("arg1", row->body, row->flags, &size, &parg, &error);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, error.cause, row->cause);
	KUNIT_EXPECT_EQ(test, error.pos, row->caret);
	KUNIT_EXPECT_LE(test, error.pos, (int)strlen(row->body));
	KUNIT_EXPECT_NULL(test, parg.code);
	traceprobe_free_probe_arg(&parg);
}

/* ------------------------------------------------------------------ */
/* Every fetch method with every number type                           */

/*
 * Each method's loads, as the rule in the head comment builds them; the
 * store is derived from the last one in compile_cross_expect().
 */
struct compile_method {
	const char *body;
	unsigned int flags;
	int nr_loads;
	struct fetch_insn loads[4];
};

static const struct compile_method compile_methods[] = {
	{ "%ax", KP, 1, { I_REG(ax) } },
	{ "%r8", KI, 1, { I_REG(r8) } },
	{ "%ip", KR, 1, { I_REG(ip) } },
	{ "$stack", KP, 1, { I_STACKP } },
	{ "$stack0", KP, 1, { I_STACK(0) } },
	{ "$stack7", KI, 1, { I_STACK(7) } },
	{ "$arg1", KP, 1, { I_ARG(0) } },
	{ "$arg3", KP, 1, { I_ARG(2) } },
	{ "$retval", KR, 1, { I_RETVAL } },
	{ "\\1", KP, 1, { I_IMM(1) } },
	{ "\\-1", KI, 1, { I_IMM(-1UL) } },
	{ "\\0xff", KP, 1, { I_IMM(0xff) } },
	{ "@0x1000", KP, 2, { I_IMM(0x1000), I_DEREF(0) } },
	{ "@jiffies", KP, 3, { I_SYM("jiffies"), I_IMM(0), I_DEREF(0) } },
	{ "@jiffies-8", KI, 3, { I_SYM("jiffies-8"), I_IMM(0), I_DEREF(0) } },
	{ "+8(%di)", KP, 2, { I_REG(di), I_DEREF(8) } },
	{ "-8(%di)", KI, 2, { I_REG(di), I_DEREF(-8) } },
	{ "+u8(%di)", KP, 2, { I_REG(di), I_UDEREF(8) } },
	{ "+0(+8(%di))", KP, 3, { I_REG(di), I_DEREF(8), I_DEREF(0) } },
	{ "+4(@0x1000)", KP, 3, { I_IMM(0x1000), I_DEREF(0), I_DEREF(4) } },
	{ "+0($stack1)", KI, 2, { I_STACK(1), I_DEREF(0) } },
	{ "+8($arg2)", KP, 2, { I_ARG(1), I_DEREF(8) } },
	{ "+8($retval)", KR, 2, { I_RETVAL, I_DEREF(8) } },
	{ "+u0(+0(%si))", KP, 3, { I_REG(si), I_DEREF(0), I_UDEREF(0) } },
	{ "%ax", UP, 1, { I_REG(ax) } },
	{ "$stack", UP, 1, { I_STACKP } },
	{ "$stack2", UP, 1, { I_STACK(2) } },
	{ "$arg1", UP, 1, { I_ARG(0) } },
	{ "$arg7", UP, 1, { I_ARG(6) } },
	{ "@0x400000", UP, 2, { I_IMM(0x400000), I_DEREF(0) } },
	{ "@+0x40", UP, 2, { I_FOFFS(0x40), I_DEREF(0) } },
	{ "+8(%di)", UP, 2, { I_REG(di), I_DEREF(8) } },
	{ "+0(+8(%sp))", UP, 3, { I_REG(sp), I_DEREF(8), I_DEREF(0) } },
	{ "+4(@+0x40)", UP, 3, { I_FOFFS(0x40), I_DEREF(0), I_DEREF(4) } },
	{ "$retval", UR, 1, { I_RETVAL } },
	{ "+0($retval)", UR, 2, { I_RETVAL, I_DEREF(0) } },
	{ "$stack1", UR, 1, { I_STACK(1) } },
	{ "$field", EP, 1, { I_FIELD("field") } },
	{ "+8($field)", EP, 2, { I_FIELD("field"), I_DEREF(8) } },
};

/* A number type: its suffix (NULL for none), name and size. */
struct compile_number {
	const char *suffix;
	const char *name;
	unsigned int size;
	bool kernel_only;	/* reads kernel symbols */
};

static const struct compile_number compile_numbers[] = {
	{ NULL, "x64", 8 },
	{ "u8", "u8", 1 }, { "u16", "u16", 2 }, { "u32", "u32", 4 }, { "u64", "u64", 8 },
	{ "s8", "s8", 1 }, { "s16", "s16", 2 }, { "s32", "s32", 4 }, { "s64", "s64", 8 },
	{ "x8", "x8", 1 }, { "x16", "x16", 2 }, { "x32", "x32", 4 }, { "x64", "x64", 8 },
	{ "symbol", "symbol", sizeof(long), true },
};

/*
 * The generator hands out addresses in this array, one per pair, so the
 * pair is the address's index and no state is kept between calls.
 */
static const u8 compile_pairs[ARRAY_SIZE(compile_methods) * ARRAY_SIZE(compile_numbers)];

static const struct compile_method *compile_pair_method(const u8 *pair)
{
	return &compile_methods[(pair - compile_pairs) / ARRAY_SIZE(compile_numbers)];
}

static const struct compile_number *compile_pair_number(const u8 *pair)
{
	return &compile_numbers[(pair - compile_pairs) % ARRAY_SIZE(compile_numbers)];
}

/* "BODY[:SUFFIX]" for PAIR, in BUF of MAX_ARGSTR_LEN + 1. */
static void compile_pair_body(const u8 *pair, char *buf)
{
	const struct compile_number *num = compile_pair_number(pair);
	const char *body = compile_pair_method(pair)->body;

	if (num->suffix)
		snprintf(buf, MAX_ARGSTR_LEN + 1, "%s:%s", body, num->suffix);
	else
		snprintf(buf, MAX_ARGSTR_LEN + 1, "%s", body);
}

static const void *compile_pairs_gen(const void *prev, char *desc)
{
	const u8 *pair = prev ? (const u8 *)prev + 1 : compile_pairs;
	char body[MAX_ARGSTR_LEN + 1];

	if (pair >= compile_pairs + ARRAY_SIZE(compile_pairs))
		return NULL;
	compile_pair_body(pair, body);
	compile_describe(compile_pair_method(pair)->flags, body, desc);
	return pair;
}

/*
 * The program of METHOD stored as NUM: a final dereference becomes the
 * store at its offset, anything else gets an ST_RAW after it.
 */
static void compile_cross_expect(const struct compile_method *method,
				 const struct compile_number *num, struct fetch_insn *code)
{
	struct fetch_insn *last = &code[method->nr_loads - 1];

	memcpy(code, method->loads, method->nr_loads * sizeof(*code));
	if (last->op == FETCH_OP_DEREF || last->op == FETCH_OP_UDEREF) {
		last->op = last->op == FETCH_OP_DEREF ? FETCH_OP_ST_MEM : FETCH_OP_ST_UMEM;
		last->size = num->size;
	} else {
		*++last = (struct fetch_insn)I_ST(RAW, num->size, 0);
	}
	*++last = (struct fetch_insn)I_END;
}

/* Each method with each number type; symbols are refused on user kinds. */
static void compile_cross(struct kunit *test)
{
	const struct compile_method *method = compile_pair_method(test->param_value);
	const struct compile_number *num = compile_pair_number(test->param_value);
	struct fetch_insn want[FETCH_INSN_MAX] = {};
	char body[MAX_ARGSTR_LEN + 1];
	struct probe_compile_error error;
	struct probe_arg parg = {};
	ssize_t size = 0;
	int ret;

	compile_pair_body(test->param_value, body);
	ret = probe_compile_arg("arg1", body, method->flags, &size, &parg, &error);
	if (num->kernel_only && !(method->flags & TPARG_FL_KERNEL)) {
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, error.cause, TP_ERR_BAD_TYPE);
		KUNIT_EXPECT_EQ(test, error.pos, (int)strlen(method->body) + 1);
	} else {
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, size, num->size);
		if (!ret) {
			KUNIT_EXPECT_STREQ(test, parg.type->name, num->name);
			compile_cross_expect(method, num, want);
			compile_expect_code(test, &parg, want);
		}
	}
	traceprobe_free_probe_arg(&parg);
}

/* ------------------------------------------------------------------ */
/* The event's size                                                    */

/* The field goes after the arguments before it, which it adds to. */
static void compile_offset_follows(struct kunit *test)
{
	struct probe_compile_error error;
	struct probe_arg parg = {};
	ssize_t size = 100;

	KUNIT_EXPECT_EQ(test, probe_compile_arg("arg1", "+0(%ax):u16[3]", KP, &size, &parg,
						&error), 0);
	KUNIT_EXPECT_EQ(test, parg.offset, 100);
	KUNIT_EXPECT_EQ(test, size, 106);	/* 100 + 3 * 2 */
	KUNIT_EXPECT_STREQ(test, parg.fmt, "u16[3]");
	traceprobe_free_probe_arg(&parg);
}

/*
 * The name, the text and an array's format are copied after the
 * program, in its allocation: traceprobe_free_probe_arg() frees only
 * parg->code.  The longest format, "__data_loc char[][64]", is whole.
 */
static void compile_strings_after_program(struct kunit *test)
{
	const char *text = "+0(%di):string[64]";
	struct probe_compile_error error;
	struct probe_arg parg = {};
	struct fetch_insn *end;
	ssize_t size = 0;

	KUNIT_ASSERT_EQ(test, probe_compile_arg("names", text, KP, &size, &parg, &error), 0);
	KUNIT_EXPECT_STREQ(test, parg.name, "names");
	KUNIT_EXPECT_STREQ(test, parg.comm, text);
	KUNIT_EXPECT_STREQ(test, parg.fmt, "__data_loc char[][64]");
	for (end = parg.code; end->op != FETCH_OP_END; end++)
		;
	KUNIT_EXPECT_PTR_EQ(test, (void *)parg.name, (void *)(end + 1));
	KUNIT_EXPECT_PTR_EQ(test, parg.comm, parg.name + strlen("names") + 1);
	KUNIT_EXPECT_PTR_EQ(test, parg.fmt, parg.comm + strlen(text) + 1);
	KUNIT_EXPECT_LE(test, (size_t)(parg.fmt + strlen(parg.fmt) + 1 - (char *)parg.code),
			ksize(parg.code));
	traceprobe_free_probe_arg(&parg);
}

/* MAX_PROBE_EVENT_SIZE (3072) bytes of arguments fit, one more does not. */
static void compile_event_size_limit(struct kunit *test)
{
	struct probe_compile_error error;
	struct probe_arg fits = {}, over = {};
	ssize_t size = MAX_PROBE_EVENT_SIZE - 8;

	KUNIT_EXPECT_EQ(test, probe_compile_arg("arg1", "%ax", KP, &size, &fits, &error), 0);
	KUNIT_EXPECT_EQ(test, size, MAX_PROBE_EVENT_SIZE);
	size = MAX_PROBE_EVENT_SIZE - 7;
	KUNIT_EXPECT_EQ(test, probe_compile_arg("arg1", "%ax", KP, &size, &over, &error), -E2BIG);
	KUNIT_EXPECT_EQ(test, error.cause, TP_ERR_EVENT_TOO_BIG);
	KUNIT_EXPECT_EQ(test, error.pos, 0);
	traceprobe_free_probe_arg(&fits);
	traceprobe_free_probe_arg(&over);
}

/*
 * Not the compiler but the other parser the kinds share: the group of
 * "GROUP/EVENT" is copied into the caller's buffer and must end there,
 * whatever the buffer held (a caller reusing one, or a stack not
 * zeroed by CONFIG_INIT_STACK_ALL_ZERO).
 */
static void compile_group_name_ends_in_buffer(struct kunit *test)
{
	const char *event = "grp/ev", *group = NULL;
	char buf[MAX_EVENT_NAME_LEN];

	memset(buf, 'x', sizeof(buf));
	KUNIT_ASSERT_EQ(test, traceprobe_parse_event_name(&event, &group, buf, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, group, (const char *)buf);
	KUNIT_EXPECT_STREQ(test, group, "grp");
	KUNIT_EXPECT_STREQ(test, event, "ev");
}

static struct kunit_case probe_compile_cases[] = {
	KUNIT_CASE_PARAM(compile_program, compile_programs_gen_params),
	KUNIT_CASE_PARAM(compile_failure, compile_failures_gen_params),
	KUNIT_CASE_PARAM(compile_cross, compile_pairs_gen),
	KUNIT_CASE(compile_offset_follows),
	KUNIT_CASE(compile_event_size_limit),
	KUNIT_CASE(compile_strings_after_program),
	KUNIT_CASE(compile_group_name_ends_in_buffer),
	{}
};

static struct kunit_suite probe_compile_suite = {
	.name = "probe_compile",
	.test_cases = probe_compile_cases,
};

kunit_test_suite(probe_compile_suite);

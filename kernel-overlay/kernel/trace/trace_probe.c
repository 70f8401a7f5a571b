// SPDX-License-Identifier: GPL-2.0
/*
 * The probe-event core: the fetch-argument language of kprobe, uprobe
 * and eprobe events compiled into fetch programs, the types an argument
 * can be recorded as, the event's fields and print format, the error
 * log, and the event objects the probes of one event share.
 *
 * The language is Documentation/trace/kprobetrace.rst's; what each kind
 * of probe may use is given by the TPARG_FL_* flags it parses with.  A
 * command that fails logs one error in error_log, with the caret under
 * the character at fault.
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/security.h>
#include <linux/stdarg.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

/* $stackN and $argN reach at most one stack's worth of words. */
#define PARAM_MAX_STACK	(THREAD_SIZE / sizeof(unsigned long))

/* error_log's texts, by TP_ERR_*: userspace greps for them */
static const char *probe_error_text[TP_ERR_MAX] = {
	[TP_ERR_FILE_NOT_FOUND]		= "Failed to find the given file",
	[TP_ERR_NO_REGULAR_FILE]	= "Not a regular file",
	[TP_ERR_BAD_REFCNT]		= "Invalid reference counter offset",
	[TP_ERR_REFCNT_OPEN_BRACE]	= "Reference counter brace is not closed",
	[TP_ERR_BAD_REFCNT_SUFFIX]	= "Reference counter has wrong suffix",
	[TP_ERR_BAD_UPROBE_OFFS]	= "Invalid uprobe offset",
	[TP_ERR_MAXACT_NO_KPROBE]	= "Maxactive is not for kprobe",
	[TP_ERR_BAD_MAXACT]		= "Invalid maxactive number",
	[TP_ERR_MAXACT_TOO_BIG]		= "Maxactive is too big",
	[TP_ERR_BAD_PROBE_ADDR]		= "Invalid probed address or symbol",
	[TP_ERR_NON_UNIQ_SYMBOL]	= "The symbol is not unique",
	[TP_ERR_BAD_RETPROBE]		= "Retprobe address must be an function entry",
	[TP_ERR_BAD_ADDR_SUFFIX]	= "Invalid probed address suffix",
	[TP_ERR_NO_GROUP_NAME]		= "Group name is not specified",
	[TP_ERR_GROUP_TOO_LONG]		= "Group name is too long",
	[TP_ERR_BAD_GROUP_NAME]		= "Group name must follow the same rules as C identifiers",
	[TP_ERR_NO_EVENT_NAME]		= "Event name is not specified",
	[TP_ERR_EVENT_TOO_LONG]		= "Event name is too long",
	[TP_ERR_BAD_EVENT_NAME]		= "Event name must follow the same rules as C identifiers",
	[TP_ERR_EVENT_EXIST]		= "Given group/event name is already used by another event",
	[TP_ERR_RETVAL_ON_PROBE]	= "$retval is not available on probe",
	[TP_ERR_BAD_STACK_NUM]		= "Invalid stack number",
	[TP_ERR_BAD_ARG_NUM]		= "Invalid argument number",
	[TP_ERR_BAD_VAR]		= "Invalid $-variable specified",
	[TP_ERR_BAD_REG_NAME]		= "Invalid register name",
	[TP_ERR_BAD_MEM_ADDR]		= "Invalid memory address",
	[TP_ERR_BAD_IMM]		= "Invalid immediate value",
	[TP_ERR_IMMSTR_NO_CLOSE]	= "String is not closed with '\"'",
	[TP_ERR_FILE_ON_KPROBE]		= "File offset is not available with kprobe",
	[TP_ERR_BAD_FILE_OFFS]		= "Invalid file offset value",
	[TP_ERR_SYM_ON_UPROBE]		= "Symbol is not available with uprobe",
	[TP_ERR_TOO_MANY_OPS]		= "Dereference is too much nested",
	[TP_ERR_DEREF_NEED_BRACE]	= "Dereference needs a brace",
	[TP_ERR_BAD_DEREF_OFFS]		= "Invalid dereference offset",
	[TP_ERR_DEREF_OPEN_BRACE]	= "Dereference brace is not closed",
	[TP_ERR_COMM_CANT_DEREF]	= "$comm can not be dereferenced",
	[TP_ERR_BAD_FETCH_ARG]		= "Invalid fetch argument",
	[TP_ERR_ARRAY_NO_CLOSE]		= "Array is not closed",
	[TP_ERR_BAD_ARRAY_SUFFIX]	= "Array has wrong suffix",
	[TP_ERR_BAD_ARRAY_NUM]		= "Invalid array size",
	[TP_ERR_ARRAY_TOO_BIG]		= "Array number is too big",
	[TP_ERR_BAD_TYPE]		= "Unknown type is specified",
	[TP_ERR_BAD_STRING]		= "String accepts only memory argument",
	[TP_ERR_BAD_SYMSTRING]		= "Symbol String doesn't accept data/userdata",
	[TP_ERR_BAD_BITFIELD]		= "Invalid bitfield",
	[TP_ERR_ARG_NAME_TOO_LONG]	= "Argument name is too long",
	[TP_ERR_NO_ARG_NAME]		= "Argument name is not specified",
	[TP_ERR_BAD_ARG_NAME]		=
		"Argument name must follow the same rules as C identifiers",
	[TP_ERR_USED_ARG_NAME]		= "This argument name is already used",
	[TP_ERR_ARG_TOO_LONG]		= "Argument expression is too long",
	[TP_ERR_NO_ARG_BODY]		= "No argument expression",
	[TP_ERR_BAD_INSN_BNDRY]		= "Probe point is not an instruction boundary",
	[TP_ERR_FAIL_REG_PROBE]		= "Failed to register probe event",
	[TP_ERR_DIFF_PROBE_TYPE]	= "Probe type is different from existing probe",
	[TP_ERR_DIFF_ARG_TYPE]		= "Argument type or name is different from existing probe",
	[TP_ERR_SAME_PROBE]		= "There is already the exact same probe event",
	[TP_ERR_NO_EVENT_INFO]		= "This requires both group and event name to attach",
	[TP_ERR_BAD_ATTACH_EVENT]	= "Attached event does not exist",
	[TP_ERR_BAD_ATTACH_ARG]		= "Attached event does not have this field",
	[TP_ERR_NO_EP_FILTER]		= "No filter rule after 'if'",
	[TP_ERR_EVENT_TOO_BIG]		= "Event too big (too many fields?)",
	[TP_ERR_TOO_MANY_ARGS]		= "Too many arguments are specified",
	[TP_ERR_ARGS_ON_RETPROBE]	= "$argN is not available on return probe",
};

/* ------------------------------------------------------------------ */
/* Types                                                              */

/*
 * How a value of each type is shown in the trace.  The format file
 * shows the same with the 'L' modifier at 64 bits (struct fetch_type
 * .fmt), which tools that read the format file expect.
 */
static __printf(2, 3) int probe_print_value(struct trace_seq *s, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	trace_seq_vprintf(s, fmt, args);
	va_end(args);
	return !trace_seq_has_overflowed(s);
}

static int probe_print_u8(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%u", *(u8 *)data);
}

static int probe_print_u16(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%u", *(u16 *)data);
}

static int probe_print_u32(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%u", *(u32 *)data);
}

static int probe_print_u64(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%llu", *(u64 *)data);
}

static int probe_print_s8(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%d", *(s8 *)data);
}

static int probe_print_s16(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%d", *(s16 *)data);
}

static int probe_print_s32(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%d", *(s32 *)data);
}

static int probe_print_s64(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "%lld", *(s64 *)data);
}

static int probe_print_x8(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "0x%x", *(u8 *)data);
}

static int probe_print_x16(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "0x%x", *(u16 *)data);
}

static int probe_print_x32(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "0x%x", *(u32 *)data);
}

static int probe_print_x64(struct trace_seq *s, void *data, void *ent)
{
	return probe_print_value(s, "0x%llx", *(u64 *)data);
}

static int probe_print_symbol(struct trace_seq *s, void *data, void *ent)
{
	trace_seq_printf(s, "%pS", (void *)*(unsigned long *)data);
	return !trace_seq_has_overflowed(s);
}

/* A string's data_loc: a length of 0 means it could not be read. */
static int probe_print_string(struct trace_seq *s, void *data, void *ent)
{
	if (!get_loc_len(*(u32 *)data))
		trace_seq_puts(s, FAULT_STRING);
	else
		trace_seq_printf(s, "\"%s\"", (const char *)get_loc_data(data, ent));
	return !trace_seq_has_overflowed(s);
}

/* The format file's 64-bit conversions, with the L modifier. */
#define FMT_L(conv)	"%L" #conv

/* A number of type _name, stored as the C type _ctype. */
#define PROBE_NUMBER(_name, _ctype, _fmt) {				\
	.name = #_name, .size = sizeof(_ctype),				\
	.is_signed = is_signed_type(_ctype),				\
	.print = probe_print_##_name, .fmt = _fmt, .fmttype = #_ctype,	\
}

#define PROBE_STRING(_name) {						\
	.name = _name, .size = sizeof(u32), .is_signed = true,		\
	.is_string = true, .print = probe_print_string,			\
	.fmt = "\\\"%s\\\"", .fmttype = "__data_loc char[]",		\
}

/*
 * Each type once: trace_probe_compare_arg_type() compares them by
 * address.  xN is stored as uN and only printed in hex; a string is
 * signed because char is on the architectures the format file serves.
 */
static const struct fetch_type probe_types[] = {
	PROBE_STRING("string"),
	PROBE_STRING("ustring"),
	PROBE_STRING("symstr"),
	PROBE_NUMBER(u8, u8, "%u"),
	PROBE_NUMBER(u16, u16, "%u"),
	PROBE_NUMBER(u32, u32, "%u"),
	PROBE_NUMBER(u64, u64, FMT_L(u)),
	PROBE_NUMBER(s8, s8, "%d"),
	PROBE_NUMBER(s16, s16, "%d"),
	PROBE_NUMBER(s32, s32, "%d"),
	PROBE_NUMBER(s64, s64, FMT_L(d)),
	PROBE_NUMBER(x8, u8, "0x%x"),
	PROBE_NUMBER(x16, u16, "0x%x"),
	PROBE_NUMBER(x32, u32, "0x%x"),
	PROBE_NUMBER(x64, u64, "0x" FMT_L(x)),
	{
		.name = "symbol", .size = sizeof(long), .print = probe_print_symbol,
		.fmt = "%pS", .fmttype = "u" __stringify(BITS_PER_LONG),
	},
};

static const struct fetch_type *probe_type_named(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(probe_types); i++)
		if (!strcmp(probe_types[i].name, name))
			return &probe_types[i];
	return NULL;
}

/*
 * The type written after ':' (NULL: none, an unsigned long in hex).  A
 * bitfield b<width>@<offset>/<container> is stored as its container's
 * unsigned type.  symbol and symstr read kernel symbols, so a probe on
 * user space (!TPARG_FL_KERNEL) has no use for them.
 */
static const struct fetch_type *probe_find_type(const char *name, unsigned int flags)
{
	const struct fetch_type *type;
	char container[4];
	unsigned int bits;

	if (!name)
		return probe_type_named("x" __stringify(BITS_PER_LONG));
	if (name[0] == 'b') {
		name = strchr(name, '/');
		if (!name || kstrtouint(name + 1, 0, &bits) || bits > 64 || !is_power_of_2(bits) ||
		    bits < 8)
			return NULL;
		snprintf(container, sizeof(container), "u%u", bits);
		return probe_type_named(container);
	}
	type = probe_type_named(name);
	if (type && !(flags & TPARG_FL_KERNEL) &&
	    (type->print == probe_print_symbol || !strcmp(type->name, "symstr")))
		return NULL;
	return type;
}

/* ------------------------------------------------------------------ */
/* The error log                                                      */

/* The command being parsed, word by word, and the word being parsed. */
struct probe_log_state {
	const char *subsystem;
	const char **argv;
	int argc;
	int index;
};

static struct probe_log_state probe_log;

void trace_probe_log_init(const char *subsystem, int argc, const char **argv)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	probe_log = (struct probe_log_state) {
		.subsystem = subsystem, .argv = argv, .argc = argc,
	};
}

void trace_probe_log_clear(void)
{
	trace_probe_log_init(NULL, 0, NULL);
}

/* Word INDEX of the command is parsed from now on. */
void trace_probe_log_set_index(int index)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	probe_log.index = index;
}

/*
 * Log ERR with the command rebuilt from its words, one space apart,
 * and the caret OFFSET characters into the current word.  A current
 * word past the last stands for what is missing after the command: the
 * caret goes one space past its end.
 */
void __trace_probe_log_err(int offset, int err)
{
	size_t len = 0, used = 0;
	int i, pos = 0;
	char *cmd;

	lockdep_assert_held(&dyn_event_ops_mutex);
	if (!probe_log.argv || !probe_log.argc)
		return;

	for (i = 0; i < probe_log.argc; i++) {
		if (i == probe_log.index)
			pos = len + offset;
		len += strlen(probe_log.argv[i]) + 1;
	}
	if (probe_log.index >= probe_log.argc)
		pos = len;

	cmd = kmalloc(len, GFP_KERNEL);
	if (!cmd)
		return;
	for (i = 0; i < probe_log.argc; i++)
		used += scnprintf(cmd + used, len - used, "%s%s", i ? " " : "",
				  probe_log.argv[i]);
	tracing_log_err(NULL, probe_log.subsystem, cmd, probe_error_text, err, pos);
	kfree(cmd);
}

/* ------------------------------------------------------------------ */
/* Names                                                              */

/* Cut "SYM+OFFS" or "SYM-OFFS" at the sign; *OFFSET takes the number. */
int traceprobe_split_symbol_offset(char *symbol, long *offset)
{
	char *sign = strpbrk(symbol, "+-");
	long value = 0;

	if (!offset)
		return -EINVAL;
	if (sign) {
		int err = kstrtol(sign, 0, &value);

		if (err)
			return err;
		*sign = '\0';
	}
	*offset = value;
	return 0;
}

/*
 * "[GROUP/]EVENT" or "GROUP.EVENT" at *PEVENT, OFFSET characters into
 * the current word.  The group is copied into BUF (MAX_EVENT_NAME_LEN
 * bytes) and *PGROUP pointed at it; *PEVENT is left at the event name,
 * or NULL for "GROUP/" alone.
 */
int traceprobe_parse_event_name(const char **pevent, const char **pgroup,
				char *buf, int offset)
{
	const char *name = *pevent;
	const char *sep = strchr(name, '/');
	size_t len;

	if (!sep)
		sep = strchr(name, '.');
	if (sep) {
		len = sep - name;
		if (!len) {
			trace_probe_log_err(offset, NO_GROUP_NAME);
			return -EINVAL;
		}
		if (len >= MAX_EVENT_NAME_LEN) {
			trace_probe_log_err(offset, GROUP_TOO_LONG);
			return -EINVAL;
		}
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (!is_good_system_name(buf)) {
			trace_probe_log_err(offset, BAD_GROUP_NAME);
			return -EINVAL;
		}
		/* the event name follows the separator */
		*pgroup = buf;
		name = sep + 1;
		offset += len + 1;
		*pevent = name;
	}

	len = strlen(name);
	if (!len) {
		if (sep) {
			*pevent = NULL;
			return 0;
		}
		trace_probe_log_err(offset, NO_EVENT_NAME);
		return -EINVAL;
	}
	if (len >= MAX_EVENT_NAME_LEN) {
		trace_probe_log_err(offset, EVENT_TOO_LONG);
		return -EINVAL;
	}
	if (!is_good_name(name)) {
		trace_probe_log_err(offset, BAD_EVENT_NAME);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Compiling an argument                                              */

/*
 * Why compiling an argument failed: the error_log cause, and where its
 * caret goes, in characters from the start of the argument's body.
 */
struct probe_compile_error {
	enum trace_probe_error cause;
	int pos;
};

/*
 * A program under construction: at most FETCH_INSN_MAX instructions, the
 * last always FETCH_OP_END.  @cur is the instruction filled last.  The
 * compiler writes nothing global: an error goes to @error, and the
 * caller decides where to log it.
 */
struct probe_prog {
	struct fetch_insn *insn;
	struct fetch_insn *cur;
	unsigned int flags;
	struct probe_compile_error *error;
};

/* Note that compiling failed with CAUSE at POS; the error to return. */
static int probe_fail(struct probe_prog *prog, int pos, enum trace_probe_error cause)
{
	prog->error->cause = cause;
	prog->error->pos = pos;
	return -EINVAL;
}

/* The next instruction, or NULL when only the END slot is left. */
static struct fetch_insn *probe_prog_next(struct probe_prog *prog)
{
	if (prog->cur + 1 >= prog->insn + FETCH_INSN_MAX - 1)
		return NULL;
	return ++prog->cur;
}

/* The next instruction, or NULL with TOO_MANY_OPS noted at POS. */
static struct fetch_insn *probe_prog_append(struct probe_prog *prog, int pos)
{
	struct fetch_insn *insn = probe_prog_next(prog);

	if (!insn)
		probe_fail(prog, pos, TP_ERR_TOO_MANY_OPS);
	return insn;
}

/* Free what the instructions of a program that never ran own. */
static void probe_prog_free_data(struct fetch_insn *insn, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (insn[i].op == FETCH_NOP_SYMBOL || insn[i].op == FETCH_OP_DATA ||
		    insn[i].op == FETCH_OP_TP_ARG)
			kfree(insn[i].data);
}

/*
 * Where $argN can be read: at a function's entry, where the calling
 * convention put the arguments.  Kernel probes read them with the
 * arch's regs_get_kernel_argument(); uprobes with the x86-64 System V
 * convention (trace_uprobe.c), and they cannot tell an entry from any
 * other offset, so they take $argN at every entry probe.
 */
static bool probe_has_args(unsigned int flags)
{
	if ((flags & (TPARG_FL_FENTRY | TPARG_FL_RETURN | TPARG_FL_TPOINT)) != TPARG_FL_FENTRY)
		return false;
	if (flags & TPARG_FL_KERNEL)
		return IS_ENABLED(CONFIG_HAVE_FUNCTION_ARG_ACCESS_API);
	return IS_ENABLED(CONFIG_X86_64);
}

/* "$NAME" at POS; NAME is what follows the '$'. */
static int parse_var(struct probe_prog *prog, const char *name, int pos)
{
	struct fetch_insn *insn = prog->cur;
	unsigned long n;
	size_t len;

	if (prog->flags & TPARG_FL_TPOINT) {
		/* an eprobe's $NAME is a field of the event it attaches to */
		insn->data = kstrdup(name, GFP_KERNEL);
		if (!insn->data)
			return -ENOMEM;
		insn->op = FETCH_OP_TP_ARG;
		return 0;
	}
	if (!strcmp(name, "retval")) {
		if (!(prog->flags & TPARG_FL_RETURN))
			return probe_fail(prog, pos, TP_ERR_RETVAL_ON_PROBE);
		insn->op = FETCH_OP_RETVAL;
		return 0;
	}
	if (!strcmp(name, "comm") || !strcmp(name, "COMM")) {
		insn->op = FETCH_OP_COMM;
		return 0;
	}
	len = str_has_prefix(name, "stack");
	if (len && !name[len]) {
		insn->op = FETCH_OP_STACKP;
		return 0;
	}
	if (len && isdigit(name[len])) {
		if (kstrtoul(name + len, 10, &n))
			goto bad_var;
		/* a user stack has no fixed size, so only kernel ones are bounded */
		if (n > UINT_MAX || ((prog->flags & TPARG_FL_KERNEL) && n > PARAM_MAX_STACK))
			return probe_fail(prog, pos, TP_ERR_BAD_STACK_NUM);
		insn->op = FETCH_OP_STACK;
		insn->param = n;
		return 0;
	}
	len = str_has_prefix(name, "arg");
	if (len && probe_has_args(prog->flags)) {
		if (kstrtoul(name + len, 10, &n))
			goto bad_var;
		/* like $stackN, a user function's arguments are bounded by nothing */
		if (!n || n > ((prog->flags & TPARG_FL_KERNEL) ? PARAM_MAX_STACK : UINT_MAX))
			return probe_fail(prog, pos, TP_ERR_BAD_ARG_NUM);
		insn->op = FETCH_OP_ARG;
		insn->param = n - 1;
		return 0;
	}
	/* a uretprobe runs after the function: its argument registers are gone */
	if (len && isdigit(name[len]) &&
	    (prog->flags & (TPARG_FL_KERNEL | TPARG_FL_RETURN)) == TPARG_FL_RETURN)
		return probe_fail(prog, pos, TP_ERR_ARGS_ON_RETPROBE);
bad_var:
	return probe_fail(prog, pos, TP_ERR_BAD_VAR);
}

/* "@ADDR", "@+FILE_OFFSET" or "@SYM[+|-OFFS]" at POS: a load, then a read. */
static int parse_memory(struct probe_prog *prog, const char *arg, int pos)
{
	struct fetch_insn *insn = prog->cur;
	unsigned long addr;
	long foffs;

	if (isdigit(arg[1])) {
		if (kstrtoul(arg + 1, 0, &addr))
			return probe_fail(prog, pos, TP_ERR_BAD_MEM_ADDR);
		insn->op = FETCH_OP_IMM;
		insn->immediate = addr;
	} else if (arg[1] == '+') {
		if (prog->flags & TPARG_FL_KERNEL)
			return probe_fail(prog, pos, TP_ERR_FILE_ON_KPROBE);
		if (kstrtol(arg + 2, 0, &foffs))
			return probe_fail(prog, pos, TP_ERR_BAD_FILE_OFFS);
		insn->op = FETCH_OP_FOFFS;
		insn->immediate = foffs;
	} else {
		if (!(prog->flags & TPARG_FL_KERNEL))
			return probe_fail(prog, pos, TP_ERR_SYM_ON_UPROBE);
		/* resolved into the IMM after it by traceprobe_update_arg() */
		insn->data = kstrdup(arg + 1, GFP_KERNEL);
		if (!insn->data)
			return -ENOMEM;
		insn->op = FETCH_NOP_SYMBOL;
		insn = probe_prog_append(prog, pos);
		if (!insn)
			return -EINVAL;
		insn->op = FETCH_OP_IMM;
	}
	insn = probe_prog_append(prog, pos);
	if (!insn)
		return -EINVAL;
	insn->op = FETCH_OP_DEREF;
	insn->offset = 0;
	return 0;
}

/* "\IMM" or "\"STRING\"" at POS. */
static int parse_immediate(struct probe_prog *prog, const char *arg, int pos)
{
	struct fetch_insn *insn = prog->cur;
	const char *num = arg + 1;
	size_t len;
	long value;
	int ret;

	if (arg[1] == '"') {
		len = strlen(arg + 2);
		if (!len || arg[2 + len - 1] != '"')
			return probe_fail(prog, pos + 2 + len, TP_ERR_IMMSTR_NO_CLOSE);
		insn->data = kstrndup(arg + 2, len - 1, GFP_KERNEL);
		if (!insn->data)
			return -ENOMEM;
		insn->op = FETCH_OP_DATA;
		return 0;
	}

	if (isdigit(num[0]))
		ret = kstrtoul(num, 0, &insn->immediate);
	else if (num[0] == '-' || num[0] == '+')
		ret = kstrtol(num, 0, &value);
	else
		ret = -EINVAL;
	if (ret)
		return probe_fail(prog, pos + 1, TP_ERR_BAD_IMM);
	if (!isdigit(num[0]))
		insn->immediate = value;
	insn->op = FETCH_OP_IMM;
	return 0;
}

static int parse_fetch(struct probe_prog *prog, char *arg, int pos);

/*
 * "[+|-][u]OFFS(ARG)" at POS: ARG's value plus OFFS read from kernel
 * memory, or with the 'u' from user memory.  The offset is kept in 32
 * bits, so a wider one is refused rather than cut.
 */
static int parse_deref(struct probe_prog *prog, char *arg, int pos)
{
	enum fetch_op op = FETCH_OP_DEREF;
	char *num = arg, *open, *close;
	struct fetch_insn *insn;
	char sign = arg[0];
	long offset;
	int inner, ret;

	if (arg[1] == 'u') {
		op = FETCH_OP_UDEREF;
		num = arg + 1;
	}
	open = strchr(num, '(');
	if (!open)
		return probe_fail(prog, pos, TP_ERR_DEREF_NEED_BRACE);
	*open = '\0';
	/* kstrtol() takes the sign but not "+u" or "-u" */
	if (op == FETCH_OP_UDEREF)
		*num = sign;
	if (kstrtol(num, 0, &offset) || offset != (int)offset)
		return probe_fail(prog, pos, TP_ERR_BAD_DEREF_OFFS);
	/*
	 * The distro places the caret of what is inside a "+u" or "-u"
	 * one character early; error_log keeps its positions.
	 */
	inner = pos + (open + 1 - arg) - (op == FETCH_OP_UDEREF);
	close = strrchr(open + 1, ')');
	if (!close)
		return probe_fail(prog, inner + strlen(open + 1), TP_ERR_DEREF_OPEN_BRACE);
	*close = '\0';
	ret = parse_fetch(prog, open + 1, inner);
	if (ret)
		return ret;
	if (prog->cur->op == FETCH_OP_COMM || prog->cur->op == FETCH_OP_DATA)
		return probe_fail(prog, inner, TP_ERR_COMM_CANT_DEREF);
	insn = probe_prog_append(prog, inner);
	if (!insn)
		return -EINVAL;
	insn->op = op;
	insn->offset = offset;
	return 0;
}

/* Compile the fetch expression ARG, POS characters into the word. */
static int parse_fetch(struct probe_prog *prog, char *arg, int pos)
{
	int reg;

	switch (arg[0]) {
	case '$':
		return parse_var(prog, arg + 1, pos);
	case '%':
		/* an eprobe has the event's fields, not registers */
		if (prog->flags & TPARG_FL_TPOINT)
			return probe_fail(prog, pos, TP_ERR_BAD_FETCH_ARG);
		reg = regs_query_register_offset(arg + 1);
		if (reg < 0)
			return probe_fail(prog, pos, TP_ERR_BAD_REG_NAME);
		prog->cur->op = FETCH_OP_REG;
		prog->cur->param = reg;
		return 0;
	case '@':
		return parse_memory(prog, arg, pos);
	case '+':
	case '-':
		return parse_deref(prog, arg, pos);
	case '\\':
		return parse_immediate(prog, arg, pos);
	default:
		return probe_fail(prog, pos, TP_ERR_BAD_FETCH_ARG);
	}
}

/*
 * The ":TYPE[N]" after an expression.  *TYPE is left at TYPE (NULL if
 * none) and the array's size in PARG->count.  BODY is the argument's
 * body; carets count from its start, as every caret of the compiler does.
 */
static int parse_type_suffix(struct probe_prog *prog, char *body, char **type,
			     struct probe_arg *parg)
{
	char *colon = strchr(body, ':');
	char *open, *close;

	*type = NULL;
	if (!colon)
		return 0;
	*colon = '\0';
	*type = colon + 1;
	open = strchr(*type, '[');
	if (!open)
		return 0;
	*open++ = '\0';
	close = strchr(open, ']');
	if (!close)
		return probe_fail(prog, (open - body) + strlen(open), TP_ERR_ARRAY_NO_CLOSE);
	if (close[1])
		return probe_fail(prog, close + 1 - body, TP_ERR_BAD_ARRAY_SUFFIX);
	*close = '\0';
	if (kstrtouint(open, 0, &parg->count) || !parg->count)
		return probe_fail(prog, open - body, TP_ERR_BAD_ARRAY_NUM);
	if (parg->count > MAX_ARRAY_LEN)
		return probe_fail(prog, open - body, TP_ERR_ARRAY_TOO_BIG);
	return 0;
}

/*
 * Store the value as a string: from the address it holds (a dereference
 * becomes the store) or, for an address the load gives itself ($comm,
 * an immediate, a field) or an array of pointers, from a store after it.
 * symstr stores the symbol name of a value.
 */
static int compile_string_store(struct probe_prog *prog, const struct fetch_type *type,
				struct probe_arg *parg, int type_pos)
{
	enum fetch_op load = prog->cur->op;
	bool symstr = !strcmp(type->name, "symstr");
	bool user = !strcmp(type->name, "ustring") || load == FETCH_OP_UDEREF;
	struct fetch_insn *st = prog->cur;

	if (symstr) {
		if (load != FETCH_OP_REG && load != FETCH_OP_STACK &&
		    load != FETCH_OP_RETVAL && load != FETCH_OP_ARG &&
		    load != FETCH_OP_DEREF && load != FETCH_OP_TP_ARG)
			return probe_fail(prog, type_pos, TP_ERR_BAD_SYMSTRING);
	} else if (load != FETCH_OP_DEREF && load != FETCH_OP_UDEREF &&
		   load != FETCH_OP_IMM && load != FETCH_OP_COMM &&
		   load != FETCH_OP_DATA && load != FETCH_OP_TP_ARG) {
		return probe_fail(prog, type_pos, TP_ERR_BAD_STRING);
	}

	if (symstr || parg->count || (load != FETCH_OP_DEREF && load != FETCH_OP_UDEREF)) {
		st = probe_prog_append(prog, 0);
		if (!st)
			return -EINVAL;
		st->offset = 0;
	}
	st->op = symstr ? FETCH_OP_ST_SYMSTR :
		 user ? FETCH_OP_ST_USTRING : FETCH_OP_ST_STRING;
	st->size = type->size;
	parg->dynamic = true;
	return 0;
}

/*
 * Store a number: a final dereference reads it, anything else is it.
 * A store that finds no room has its caret, like the program's, at the
 * start of the body.
 */
static int compile_number_store(struct probe_prog *prog, const struct fetch_type *type)
{
	struct fetch_insn *st = prog->cur;

	if (st->op == FETCH_OP_DEREF) {
		st->op = FETCH_OP_ST_MEM;
	} else if (st->op == FETCH_OP_UDEREF) {
		st->op = FETCH_OP_ST_UMEM;
	} else {
		st = probe_prog_append(prog, 0);
		if (!st)
			return -EINVAL;
		st->op = FETCH_OP_ST_RAW;
	}
	st->size = type->size;
	return 0;
}

/*
 * A bitfield's width or offset: digits as C writes them (decimal, 0x
 * hex, 0 octal), as many as given, but no sign and no wrap.
 */
static bool bitfield_number(const char *s, unsigned int *val)
{
	return isdigit(*s) && !kstrtouint(s, 0, val);
}

/*
 * "b<width>@<offset>/<container>": keep WIDTH bits from bit OFFSET of
 * the container just stored.  SPEC is the argument's own copy, cut up
 * here.
 */
static int compile_bitfield(struct probe_prog *prog, char *spec,
			    const struct fetch_type *type, int type_pos)
{
	unsigned int bits = type->size * BITS_PER_BYTE;
	unsigned int width, offset;
	struct fetch_insn *bf;
	char *at = strchr(spec, '@');
	char *slash = at ? strchr(at, '/') : NULL;

	if (!slash)
		goto bad;
	*at = '\0';
	*slash = '\0';
	if (!bitfield_number(spec + 1, &width) || !width ||
	    !bitfield_number(at + 1, &offset))
		goto bad;
	if (width > bits || offset > bits - width)
		goto bad;
	bf = probe_prog_next(prog);
	if (!bf)
		goto bad;
	bf->op = FETCH_OP_MOD_BF;
	bf->basesize = type->size;
	bf->lshift = bits - (width + offset);
	bf->rshift = bits - width;
	return 0;
bad:
	return probe_fail(prog, type_pos, TP_ERR_BAD_BITFIELD);
}

/*
 * Can the store ST be repeated as an array?  Numbers are read from
 * consecutive addresses.  Strings are read through consecutive
 * pointers, so the store needs a dereference before it to redo one
 * pointer further on: an immediate, $comm or an eprobe's field holds
 * one address, not an array of them, and 6.1 took "\0x1000:string[2]"
 * only to record data_loc words it never wrote.
 */
static bool probe_array_storable(const struct fetch_insn *st)
{
	switch (st->op) {
	case FETCH_OP_ST_MEM:
	case FETCH_OP_ST_UMEM:
		return true;
	case FETCH_OP_ST_STRING:
	case FETCH_OP_ST_USTRING:
		return st[-1].op == FETCH_OP_DEREF || st[-1].op == FETCH_OP_UDEREF;
	default:
		return false;
	}
}

/* The longest array format: "__data_loc char[][64]". */
#define MAX_ARRAY_FMT_LEN	32

/*
 * The finished argument is one allocation, at parg->code: the program of
 * N instructions with its FETCH_OP_END, then the strings that point into
 * it, NAME, TEXT and for an array its print format.  One allocation and
 * one kfree() for what would be four: parsing is mostly allocation.
 */
static int probe_arg_commit(struct probe_arg *parg, const struct fetch_insn *insn, int n,
			    const char *name, const char *text)
{
	size_t code_len = n * sizeof(*insn), name_len = strlen(name) + 1;
	size_t text_len = strlen(text) + 1, fmt_len = 0;
	char fmt[MAX_ARRAY_FMT_LEN];
	char *p;

	if (parg->count)
		fmt_len = scnprintf(fmt, sizeof(fmt), "%s[%u]", parg->type->fmttype,
				    parg->count) + 1;
	p = kmalloc(code_len + name_len + text_len + fmt_len, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	parg->code = memcpy(p, insn, code_len);
	p += code_len;
	parg->name = memcpy(p, name, name_len);
	p += name_len;
	parg->comm = memcpy(p, text, text_len);
	p += text_len;
	if (fmt_len)
		parg->fmt = memcpy(p, fmt, fmt_len);
	return 0;
}

/*
 * Compile TEXT, an argument's body (after "NAME="), for a probe kind with
 * TPARG_FL_* FLAGS, into PARG, the field NAME: its type, array count,
 * field offset and fetch program.  *SIZE is the size of the arguments
 * before it and grows by this one's.  Nothing global is read or
 * written: on -EINVAL or -E2BIG, *ERROR says why and where (from the
 * start of TEXT); on -ENOMEM its cause is TP_ERR_MAX.  What PARG holds
 * afterwards, even on failure, is freed by traceprobe_free_probe_arg().
 *
 * The body's copy and the program under construction are both bounded
 * (MAX_ARGSTR_LEN, FETCH_INSN_MAX), so they live on the stack: only
 * the finished argument is allocated.
 */
static int probe_compile_arg(const char *name, const char *text, unsigned int flags,
			     ssize_t *size, struct probe_arg *parg,
			     struct probe_compile_error *error)
{
	struct fetch_insn insn[FETCH_INSN_MAX] = {};
	struct probe_prog prog = {
		.insn = insn, .cur = insn, .flags = flags, .error = error,
	};
	char body[MAX_ARGSTR_LEN + 1];
	const struct fetch_type *type;
	struct fetch_insn *st, *loop;
	bool implied_string;
	int type_pos, n, ret;
	char *tname;

	error->cause = TP_ERR_MAX;
	if (strscpy(body, text, sizeof(body)) < 0)
		return probe_fail(&prog, 0, TP_ERR_ARG_TOO_LONG);
	if (!body[0])
		return probe_fail(&prog, 0, TP_ERR_NO_ARG_BODY);

	ret = parse_type_suffix(&prog, body, &tname, parg);
	if (ret)
		return ret;
	type_pos = tname ? tname - body : 0;

	/* $comm and an immediate string are strings, and single ones */
	implied_string = !(flags & TPARG_FL_TPOINT) &&
		(!strcmp(body, "$comm") || !strcmp(body, "$COMM") ||
		 str_has_prefix(body, "\\\""));
	if (implied_string && (parg->count || (tname && strcmp(tname, "string"))))
		type = NULL;
	else if (implied_string)
		type = probe_type_named("string");
	else
		type = probe_find_type(tname, flags);
	if (!type)
		return probe_fail(&prog, type_pos, TP_ERR_BAD_TYPE);
	parg->type = type;
	parg->offset = *size;
	*size += type->size * (parg->count ? parg->count : 1);
	if (*size > MAX_PROBE_EVENT_SIZE) {
		probe_fail(&prog, 0, TP_ERR_EVENT_TOO_BIG);
		return -E2BIG;
	}

	ret = parse_fetch(&prog, body, 0);
	if (ret)
		goto fail;
	if (type->is_string)
		ret = compile_string_store(&prog, type, parg, type_pos);
	else
		ret = compile_number_store(&prog, type);
	if (ret)
		goto fail;
	st = prog.cur;
	if (tname && tname[0] == 'b') {
		ret = compile_bitfield(&prog, tname, type, type_pos);
		if (ret)
			goto fail;
	}
	if (parg->count) {
		if (!probe_array_storable(st)) {
			ret = probe_fail(&prog, type_pos, TP_ERR_BAD_STRING);
			goto fail;
		}
		loop = probe_prog_append(&prog, 0);
		if (!loop) {
			ret = -EINVAL;
			goto fail;
		}
		loop->op = FETCH_OP_LP_ARRAY;
		loop->param = parg->count;
	}
	n = prog.cur - prog.insn + 1;
	prog.insn[n].op = FETCH_OP_END;
	ret = probe_arg_commit(parg, prog.insn, n + 1, name, text);
	if (!ret)
		return 0;
fail:
	probe_prog_free_data(prog.insn, FETCH_INSN_MAX);
	return ret;
}

/* Names a field of the event may not take. */
static const char *const probe_reserved_names[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"common_tgid", FIELD_STRING_IP, FIELD_STRING_RETIP, FIELD_STRING_FUNC,
};

/* Why NAME cannot name the field after ARGS[0..N), or TP_ERR_MAX. */
static enum trace_probe_error probe_arg_name_error(const char *name,
						   struct probe_arg *args, int n)
{
	int i;

	if (!is_good_name(name))
		return TP_ERR_BAD_ARG_NAME;
	for (i = 0; i < ARRAY_SIZE(probe_reserved_names); i++)
		if (!strcmp(probe_reserved_names[i], name))
			return TP_ERR_USED_ARG_NAME;
	for (i = 0; i < n; i++)
		if (!strcmp(args[i].name, name))
			return TP_ERR_USED_ARG_NAME;
	return TP_ERR_MAX;
}

/*
 * A probe takes at most MAX_TRACE_ARGS arguments: refuse NR_ARGS more,
 * at the first one too many.  The arguments start at word FIRST_WORD.
 */
int traceprobe_check_nr_args(int nr_args, int first_word)
{
	if (nr_args <= MAX_TRACE_ARGS)
		return 0;
	trace_probe_log_set_index(first_word + MAX_TRACE_ARGS);
	trace_probe_log_err(0, TOO_MANY_ARGS);
	return -E2BIG;
}

/*
 * Event probes (the distro's trace_eprobe.c) parse at most
 * MAX_TRACE_ARGS arguments and drop the rest without a word.  The log
 * holds the whole command, so their first argument counts the words
 * from itself to the end or to the "if" of a filter.
 */
static int probe_log_check_eprobe_args(void)
{
	int end = probe_log.index;

	while (end < probe_log.argc && strcmp(probe_log.argv[end], "if"))
		end++;
	return traceprobe_check_nr_args(end - probe_log.index, probe_log.index);
}

/*
 * Parse "[NAME=]FETCHARG[:TYPE]" into TP's argument I.  nr_args counts
 * it even on failure, so trace_probe_cleanup() frees what it holds.
 */
int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *arg,
			       unsigned int flags)
{
	struct probe_arg *parg = &tp->args[i];
	const char *eq = strchr(arg, '=');
	const char *body = eq ? eq + 1 : arg;
	struct probe_compile_error error;
	char name[MAX_ARG_NAME_LEN + 1];
	enum trace_probe_error err;
	int ret;

	if (i == 0 && (flags & TPARG_FL_TPOINT)) {
		ret = probe_log_check_eprobe_args();
		if (ret)
			return ret;
	}
	tp->nr_args++;
	if (eq) {
		if (eq - arg > MAX_ARG_NAME_LEN) {
			trace_probe_log_err(0, ARG_NAME_TOO_LONG);
			return -EINVAL;
		}
		if (eq == arg) {
			trace_probe_log_err(0, NO_ARG_NAME);
			return -EINVAL;
		}
		strscpy(name, arg, eq - arg + 1);
	} else {
		snprintf(name, sizeof(name), "arg%d", i + 1);
	}
	err = probe_arg_name_error(name, tp->args, i);
	if (err != TP_ERR_MAX) {
		__trace_probe_log_err(0, err);
		return -EINVAL;
	}
	ret = probe_compile_arg(name, body, flags, &tp->size, parg, &error);
	if (ret && error.cause != TP_ERR_MAX)
		__trace_probe_log_err(body - arg + error.pos, error.cause);
	return ret;
}

/* Resolve each "@SYM[+|-OFFS]" of ARG into the address it names. */
int traceprobe_update_arg(struct probe_arg *arg)
{
	struct fetch_insn *insn;
	char name[KSYM_NAME_LEN];
	unsigned long addr;
	const char *sign;
	long offset;
	size_t len;

	for (insn = arg->code; insn && insn->op != FETCH_OP_END; insn++) {
		if (insn->op != FETCH_NOP_SYMBOL)
			continue;
		offset = 0;
		if (insn[1].op != FETCH_OP_IMM)
			return -EINVAL;
		sign = strpbrk(insn->data, "+-");
		if (sign && kstrtol(sign, 0, &offset))
			return -EINVAL;
		len = sign ? sign - (char *)insn->data : strlen(insn->data);
		if (len >= sizeof(name))
			return -E2BIG;
		memcpy(name, insn->data, len);
		name[len] = '\0';
		addr = kallsyms_lookup_name(name);
		if (!addr)
			return -ENOENT;
		insn[1].immediate = addr + offset;
	}
	return 0;
}

void traceprobe_free_probe_arg(struct probe_arg *arg)
{
	struct fetch_insn *insn;

	/* an eprobe's resolved TP_ARG points at a field it does not own */
	for (insn = arg->code; insn && insn->op != FETCH_OP_END; insn++)
		if (insn->op == FETCH_NOP_SYMBOL || insn->op == FETCH_OP_DATA)
			kfree(insn->data);
	/* name, comm and fmt share the program's allocation */
	kfree(arg->code);
}

/* ------------------------------------------------------------------ */
/* The event's format                                                 */

/* Text that grows by formatted pieces; without a buffer, only counts. */
struct probe_text {
	char *buf;
	size_t size;
	size_t len;
};

static __printf(2, 3) void probe_text_add(struct probe_text *t, const char *fmt, ...)
{
	size_t room = t->len < t->size ? t->size - t->len : 0;
	va_list args;

	va_start(args, fmt);
	t->len += vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, args);
	va_end(args);
}

/*
 * The print format: "PREFIX name=FMT ...", then the probe's own fields
 * and each argument's value, an array element by element.
 */
static void probe_print_fmt(struct trace_probe *tp, enum probe_print_type ptype,
			    struct probe_text *t)
{
	static const char * const prefix[] = {
		[PROBE_PRINT_NORMAL] = "(%lx)",
		[PROBE_PRINT_RETURN] = "(%lx <- %lx)",
		[PROBE_PRINT_EVENT] = "",
	};
	static const char * const own[] = {
		[PROBE_PRINT_NORMAL] = ", REC->" FIELD_STRING_IP,
		[PROBE_PRINT_RETURN] = ", REC->" FIELD_STRING_FUNC ", REC->" FIELD_STRING_RETIP,
		[PROBE_PRINT_EVENT] = "",
	};
	int i, j;

	probe_text_add(t, "\"%s", prefix[ptype]);
	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *arg = &tp->args[i];

		probe_text_add(t, " %s=%s", arg->name, arg->count ? "{" : "");
		for (j = 0; j < (arg->count ? arg->count : 1); j++)
			probe_text_add(t, "%s%s", j ? "," : "", arg->type->fmt);
		if (arg->count)
			probe_text_add(t, "}");
	}
	probe_text_add(t, "\"%s", own[ptype]);
	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *arg = &tp->args[i];
		const char *open = arg->type->is_string ? "__get_str(" : "REC->";
		const char *close = arg->type->is_string ? ")" : "";

		if (!arg->count) {
			probe_text_add(t, ", %s%s%s", open, arg->name, close);
			continue;
		}
		for (j = 0; j < arg->count; j++)
			probe_text_add(t, ", %s%s[%d]%s", open, arg->name, j, close);
	}
}

int traceprobe_set_print_fmt(struct trace_probe *tp, enum probe_print_type ptype)
{
	struct probe_text t = {};

	if (WARN_ON_ONCE(ptype > PROBE_PRINT_EVENT))
		return -EINVAL;
	probe_print_fmt(tp, ptype, &t);
	t.size = t.len + 1;
	t.buf = kmalloc(t.size, GFP_KERNEL);
	if (!t.buf)
		return -ENOMEM;
	t.len = 0;
	probe_print_fmt(tp, ptype, &t);
	trace_probe_event_call(tp)->print_fmt = t.buf;
	return 0;
}

/* Drop the field names and types a previous definition left. */
static void probe_event_free_field_strings(struct trace_probe_event *tpe)
{
	while (tpe->nr_field_strings)
		kfree(tpe->field_strings[--tpe->nr_field_strings]);
	kfree(tpe->field_strings);
	tpe->field_strings = NULL;
}

/* A copy of S the event keeps for its fields, or NULL. */
static const char *probe_event_keep(struct trace_probe_event *tpe, const char *s)
{
	char *copy = kstrdup(s, GFP_KERNEL);

	if (copy)
		tpe->field_strings[tpe->nr_field_strings++] = copy;
	return copy;
}

/*
 * A field per argument, OFFSET bytes into the record.  A field keeps
 * pointers to its name and type; they are copies owned by the event,
 * which may outlive TP when other probes share it.  A failed earlier
 * call may have left copies: the definition starts over.
 */
int traceprobe_define_arg_fields(struct trace_event_call *event_call,
				 size_t offset, struct trace_probe *tp)
{
	struct trace_probe_event *tpe = trace_probe_event_from_call(event_call);
	int i, ret;

	probe_event_free_field_strings(tpe);
	if (!tp->nr_args)
		return 0;
	tpe->field_strings = kcalloc(2 * tp->nr_args, sizeof(char *), GFP_KERNEL);
	if (!tpe->field_strings)
		return -ENOMEM;

	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *arg = &tp->args[i];
		const char *name = probe_event_keep(tpe, arg->name);
		const char *type = probe_event_keep(tpe, arg->fmt ? arg->fmt : arg->type->fmttype);

		if (!name || !type)
			return -ENOMEM;
		ret = trace_define_field(event_call, type, name, offset + arg->offset,
					 arg->type->size * (arg->count ? arg->count : 1),
					 arg->type->is_signed, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * All the fields of a kprobe or uprobe event: after the common header,
 * the probed address as __probe_ip, or for a return probe the function
 * as __probe_func and the address it returned to as __probe_ret_ip,
 * each an unsigned long; then TP's arguments.
 */
int traceprobe_define_probe_fields(struct trace_event_call *call, bool is_return,
				   struct trace_probe *tp)
{
	static const char *const entry[] = { FIELD_STRING_IP };
	static const char *const ret[] = { FIELD_STRING_FUNC, FIELD_STRING_RETIP };
	const char *const *names = is_return ? ret : entry;
	int i, n = is_return ? ARRAY_SIZE(ret) : ARRAY_SIZE(entry);
	size_t offset = sizeof(struct trace_entry);
	int err;

	for (i = 0; i < n; i++, offset += sizeof(unsigned long)) {
		err = trace_define_field(call, "unsigned long", names[i], offset,
					 sizeof(unsigned long), 0, FILTER_OTHER);
		if (err)
			return err;
	}
	return traceprobe_define_arg_fields(call, offset, tp);
}

/* ------------------------------------------------------------------ */
/* Events and their probes                                            */

/* Everything the event owns, then the event. */
static void trace_probe_event_free(struct trace_probe_event *tpe)
{
	kfree(tpe->call.print_fmt);
	kfree(tpe->call.name);
	kfree(tpe->class.system);
	probe_event_free_field_strings(tpe);
	kfree(tpe);
}

/*
 * Give TP, alone on its event, an event named GROUP/EVENT of its own;
 * a uprobe event also gets room for its filter.
 */
int trace_probe_init(struct trace_probe *tp, const char *event,
		     const char *group, bool alloc_filter)
{
	struct trace_probe_event *tpe;

	if (!event || !group)
		return -EINVAL;
	tpe = kzalloc(struct_size(tpe, filter, alloc_filter ? 1 : 0), GFP_KERNEL);
	if (!tpe)
		return -ENOMEM;
	INIT_LIST_HEAD(&tpe->files);
	INIT_LIST_HEAD(&tpe->class.fields);
	INIT_LIST_HEAD(&tpe->probes);
	tpe->call.class = &tpe->class;
	tpe->call.name = kstrdup(event, GFP_KERNEL);
	tpe->class.system = kstrdup(group, GFP_KERNEL);
	tp->event = tpe;
	INIT_LIST_HEAD(&tp->list);
	list_add(&tp->list, &tpe->probes);
	if (!tpe->call.name || !tpe->class.system) {
		trace_probe_cleanup(tp);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The first probe of the event CALL belongs to, if any.  Out of line:
 * it is not on a hit's path, and its callers in four files need one
 * copy of it, not one each.
 */
struct trace_probe *trace_probe_primary_from_call(struct trace_event_call *call)
{
	return list_first_entry_or_null(&trace_probe_event_from_call(call)->probes,
					struct trace_probe, list);
}

/* Take TP off its event; the last probe of an event takes it along. */
void trace_probe_unlink(struct trace_probe *tp)
{
	struct trace_probe_event *tpe = tp->event;

	tp->event = NULL;
	list_del_init(&tp->list);
	if (list_empty(&tpe->probes))
		trace_probe_event_free(tpe);
}

void trace_probe_cleanup(struct trace_probe *tp)
{
	struct probe_arg *arg;

	for (arg = tp->args; arg < tp->args + tp->nr_args; arg++)
		traceprobe_free_probe_arg(arg);
	if (tp->event)
		trace_probe_unlink(tp);
}

/* Were A and B written with the same arguments?  Their types match. */
static bool probe_same_arg_text(struct trace_probe *a, struct trace_probe *b)
{
	int i;

	for (i = 0; i < a->nr_args; i++)
		if (strcmp(a->args[i].comm, b->args[i].comm))
			return false;
	return true;
}

/*
 * Why TP cannot join the event of TO (TP_ERR_MAX if it can), and the
 * word of the command to show it under: a probe of another kind (entry
 * or return), arguments that differ in number, name or type, or the
 * same probe again, at the same place with the same arguments.
 */
static enum trace_probe_error
probe_join_conflict(struct trace_probe *tp, struct trace_probe *to, bool same_kind,
		    bool (*same_place)(struct trace_probe *, struct trace_probe *), int *word)
{
	struct trace_probe *each;
	int differs;

	*word = 0;
	if (!same_kind)
		return TP_ERR_DIFF_PROBE_TYPE;
	differs = trace_probe_compare_arg_type(tp, to);
	if (differs) {
		/* argument N (from 1) is word N + 1 */
		*word = differs + 1;
		return TP_ERR_DIFF_ARG_TYPE;
	}
	list_for_each_entry(each, trace_probe_probe_list(to), list)
		if (same_place(each, tp) && probe_same_arg_text(each, tp))
			return TP_ERR_SAME_PROBE;
	return TP_ERR_MAX;
}

/*
 * May TP, parsed from the command in the error log, join the event of
 * TO?  0 if so; -EEXIST, with the cause logged, if not.  SAME_KIND: both
 * are entry or both return probes; SAME_PLACE compares two probes'
 * places, as their kind knows them.
 */
int trace_probe_check_join(struct trace_probe *tp, struct trace_probe *to, bool same_kind,
			   bool (*same_place)(struct trace_probe *, struct trace_probe *))
{
	enum trace_probe_error why;
	int word;

	why = probe_join_conflict(tp, to, same_kind, same_place, &word);
	if (why == TP_ERR_MAX)
		return 0;
	trace_probe_log_set_index(word);
	__trace_probe_log_err(0, why);
	return -EEXIST;
}

/* Move TP, alone on its event, onto the event of TO. */
int trace_probe_append(struct trace_probe *tp, struct trace_probe *to)
{
	if (trace_probe_has_sibling(tp))
		return -EBUSY;
	/* alone on its event, TP takes the event along as it leaves */
	trace_probe_unlink(tp);
	tp->event = to->event;
	list_add_tail(&tp->list, &to->event->probes);
	return 0;
}

static bool probe_event_name_used(const char *group, const char *event)
{
	struct trace_event_call *call;

	list_for_each_entry(call, &ftrace_events, list) {
		const char *name = trace_event_name(call);

		if (call->class->system && !strcmp(call->class->system, group) &&
		    name && !strcmp(name, event))
			return true;
	}
	return false;
}

/* Give TP's event a type and its tracefs files, under a name still free. */
int trace_probe_register_event_call(struct trace_probe *tp)
{
	struct trace_event_call *call = &tp->event->call;
	int err;

	lockdep_assert_held(&event_mutex);
	if (probe_event_name_used(call->class->system, trace_event_name(call)))
		return -EEXIST;
	/* register_trace_event() returns the event's type, 0 on failure */
	if (!register_trace_event(&call->event))
		return -ENODEV;
	err = trace_add_event_call(call);
	if (!err)
		return 0;
	/* no files for it in tracefs: its output type goes back as well */
	unregister_trace_event(&call->event);
	return err;
}

/* Record TP's hits in FILE too; readers walk the list under RCU. */
int trace_probe_add_file(struct trace_probe *tp, struct trace_event_file *file)
{
	struct event_file_link *link = kmalloc(sizeof(*link), GFP_KERNEL);

	if (!link)
		return -ENOMEM;
	*link = (struct event_file_link) { .file = file };
	list_add_tail_rcu(&link->list, &tp->event->files);
	trace_probe_set_flag(tp, TP_FLAG_TRACE);
	return 0;
}

struct event_file_link *trace_probe_get_file_link(struct trace_probe *tp,
						  struct trace_event_file *file)
{
	struct event_file_link *link;

	list_for_each_entry(link, &tp->event->files, list) {
		if (link->file == file)
			return link;
	}
	return NULL;
}

int trace_probe_remove_file(struct trace_probe *tp, struct trace_event_file *file)
{
	struct event_file_link *link = trace_probe_get_file_link(tp, file);

	if (!link)
		return -ENOENT;
	list_del_rcu(&link->list);
	if (list_empty(&tp->event->files))
		trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	/* a probe may still be walking past it: free after a grace period */
	kvfree_rcu_mightsleep(link);
	return 0;
}

/*
 * 0 if A and B record the same arguments (names, types, array sizes),
 * else the position (from 1) of the first that differs.
 */
int trace_probe_compare_arg_type(struct trace_probe *a, struct trace_probe *b)
{
	int i;

	if (a->nr_args != b->nr_args)
		return min(a->nr_args, b->nr_args) + 1;
	for (i = 0; i < a->nr_args; i++)
		if (a->args[i].type != b->args[i].type ||
		    a->args[i].count != b->args[i].count ||
		    strcmp(a->args[i].name, b->args[i].name))
			return i + 1;
	return 0;
}

/* Do TP's first ARGC arguments read "NAME=BODY" as ARGV says? */
bool trace_probe_match_command_args(struct trace_probe *tp, int argc, const char **argv)
{
	int i;

	if (tp->nr_args < argc)
		return false;
	for (i = 0; i < argc; i++) {
		const char *name = tp->args[i].name;
		size_t len = strlen(name);

		if (strncmp(argv[i], name, len) || argv[i][len] != '=' ||
		    strcmp(argv[i] + len + 1, tp->args[i].comm))
			return false;
	}
	return true;
}

/*
 * A line written to a probe kind's own file (kprobe_events,
 * uprobe_events): "-:[GRP/]EVENT ..." removes, anything else defines a
 * probe of the kind OPS.  A line that is no command of the kind is
 * -EINVAL there; dynamic_events would offer it to the next kind.
 */
int trace_probe_kind_command(const char *raw_command, struct dyn_event_operations *ops)
{
	int ret;

	if (raw_command[0] == '-')
		return dyn_event_release(raw_command, ops);
	ret = dyn_event_create(raw_command, ops);
	return ret == -ECANCELED ? -EINVAL : ret;
}

/*
 * Open a probe kind's listing (kprobe_events, uprobe_events, their
 * profiles) as a seq_file of OPS.  With CLEARS, the kind's file: an
 * open that truncates it for writing first removes the kind's events,
 * and fails if one of them is busy.
 */
int trace_probe_list_open(struct file *file, const struct seq_operations *ops,
			  struct dyn_event_operations *clears)
{
	int ret = security_locked_down(LOCKDOWN_TRACEFS);

	if (!ret && clears && (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC))
		ret = dyn_events_release_all(clears);
	return ret ? ret : seq_open(file, ops);
}

/* Split RAW_COMMAND into words and hand them to CREATEFN. */
int trace_probe_create(const char *raw_command, int (*createfn)(int, const char **))
{
	int argc = 0, ret = 0;
	char **argv = argv_split(GFP_KERNEL, raw_command, &argc);

	if (!argv)
		return -ENOMEM;
	if (argc)
		ret = createfn(argc, (const char **)argv);
	argv_free(argv);
	return ret;
}

/* The compiler's white-box suite: it calls the static functions above. */
#if IS_ENABLED(CONFIG_KFORK_KUNIT_TESTS)
#include "trace_probe_compile_kunit.c"
#endif

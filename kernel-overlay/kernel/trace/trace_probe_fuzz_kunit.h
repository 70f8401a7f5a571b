/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The probe fuzz's strings and checks, shared by probe_fuzz (both
 * builds) and the fork's uprobe_fetch suite, which fires the strings
 * the uprobe kinds accept on its own registers and memory: the probe
 * kinds and how each calls the parser, the seeded string generator,
 * and what a printed field of each type looks like.
 */
#ifndef _KERNEL_TRACE_PROBE_FUZZ_KUNIT_H
#define _KERNEL_TRACE_PROBE_FUZZ_KUNIT_H

#include <linux/ctype.h>
#include <linux/prandom.h>
#include <linux/string.h>

/* after trace_probe.h, which has no include guard on 6.1 */
#include "trace_probe_kunit.h"

#define FUZZ_SEED		0x6b666f726bULL	/* "kfork" */
#define FUZZ_STRINGS		100000
/*
 * In runs of 25,000, each from a seed of its own, so that each stays
 * well inside KUnit's 300 s for a case also with kmemleak on, where
 * every allocation costs many times more.
 */
#define FUZZ_RUNS		4
/*
 * The full runs take minutes under TCG: make check asks for them with
 * the suites' module parameters.  Otherwise a run is its first
 * fiftieth, the same strings, as the generator is drawn in order.
 */
#define FUZZ_SAMPLE		50
/* past MAX_ARGSTR_LEN (63), so that the parser's length check is reached */
#define FUZZ_MAX_LEN		95

/* How one probe kind calls the parser. */
struct probe_kind {
	const char *subsystem;	/* whom error_log names */
	const char *words[2];	/* the command's words before the argument */
	unsigned int flags;
};

/*
 * The flags are those trace_kprobe.c, trace_uprobe.c and trace_eprobe.c
 * pass: a kprobe at a function's entry also takes $argN, one inside it
 * does not; the fork's uprobes take it at every entry probe (6.1's
 * parser ignores the flag without TPARG_FL_KERNEL).
 */
static const struct probe_kind probe_kinds[] = {
	{ "trace_kprobe", { "p:kfork/fuzz", "vfs_read" }, TPARG_FL_KERNEL | TPARG_FL_FENTRY },
	{ "trace_kprobe", { "r:kfork/fuzz", "vfs_read" },
	  TPARG_FL_KERNEL | TPARG_FL_FENTRY | TPARG_FL_RETURN },
	{ "trace_kprobe", { "p:kfork/fuzz", "vfs_read+4" }, TPARG_FL_KERNEL },
	{ "trace_uprobe", { "p:kfork/fuzz", "/bin/sh:0x10" }, TPARG_FL_FENTRY },
	{ "trace_uprobe", { "r:kfork/fuzz", "/bin/sh:0x10" }, TPARG_FL_RETURN },
	{ "event_probe", { "e:kfork/fuzz", "sched.sched_switch" },
	  TPARG_FL_KERNEL | TPARG_FL_TPOINT },
};

/* What an accepted argument prints as. */
struct arg_shape {
	const char *type;	/* its fetch type's name */
	unsigned int count;	/* array elements, 0 for one value */
};

/*
 * Parse ARG as the one argument of a fresh probe of KIND, with the
 * error log holding the command (the argument is its third word), then
 * free the probe.  TP has room for one argument.  Returns what the
 * parser returned, and if it took the argument and SHAPE is not NULL,
 * what the argument prints as there.
 */
static inline int parse_one(struct trace_probe *tp, const struct probe_kind *kind,
			    const char *arg, struct arg_shape *shape)
{
	const char *argv[3] = { kind->words[0], kind->words[1], arg };
	struct fetch_insn *code;
	int ret;

	memset(tp, 0, struct_size(tp, args, 1));
	ret = trace_probe_init(tp, "fuzz", "kfork", false);
	if (ret)
		return ret;
	mutex_lock(&dyn_event_ops_mutex);
	trace_probe_log_init(kind->subsystem, ARRAY_SIZE(argv), argv);
	trace_probe_log_set_index(2);
	ret = traceprobe_parse_probe_arg(tp, 0, arg, kind->flags);
	trace_probe_log_clear();
	mutex_unlock(&dyn_event_ops_mutex);
	/*
	 * An eprobe owns the field name the parser leaves in a TP_ARG and
	 * frees it when it looks the field up, found or not.
	 */
	code = tp->args[0].code;
	if (!ret && code && code->op == FETCH_OP_TP_ARG) {
		kfree(code->data);
		code->data = NULL;
	}
	if (!ret && shape)
		*shape = (struct arg_shape) { tp->args[0].type->name, tp->args[0].count };
	trace_probe_cleanup(tp);
	return ret;
}

static inline struct trace_probe *alloc_probe(struct kunit *test)
{
	struct trace_probe *tp = kunit_kzalloc(test, struct_size(tp, args, 1), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	return tp;
}

/* Arguments the parser accepts on some probe kind: what mutations start from. */
static const char *const fuzz_seeds[] = {
	"%ax", "%di:u8", "%sp:s16", "%ip:x32", "a=%bx:s64", "%r15:symbol",
	"@jiffies", "@jiffies+8:u32", "@0x1000:x16", "@+0x40:u8",
	"$stack", "$stack3:s32", "$retval", "+0($retval):string", "$comm",
	"$comm:string", "$arg2:x64", "$prev_pid", "+0($prev_comm):u8",
	"\\1234", "\\-1:s8", "\\\"str\"", "+8(%di)", "-0x10(%si):u16",
	"+u0(%si):ustring", "+0(+8(+16(%di))):x8", "+0(%di):string",
	"+0(%di):u32[4]", "+0(%di):string[2]", "%ax:b3@4/32",
	"+0(%di):b4@4/16[3]", "+0(%ax):symstr", "name=+4(%sp):s32",
};

/* What mutations put in: syntax, names, and numbers at and past the limits. */
static const char *const fuzz_tokens[] = {
	"+", "-", "(", ")", "@", "$", "%", ":", "\\", "\"", "[", "]", "/", "=",
	"u", "0", "1", "0x", "64", "65", "128", "4294967296", "0x7fffffffffffffff",
	"18446744073709551615", "99999999999999999999", "-9223372036854775808",
	"+0(", "+u0(", "-8(", "%ax", "%sp", "%nonreg", "$stack", "$stack99999",
	"$retval", "$comm", "$arg", "$arg0", "$arg9999", "@", "@+", "@jiffies",
	":u8", ":s64", ":x32", ":string", ":ustring", ":symbol", ":symstr",
	":b", ":b0@0/8", ":b9@0/8", ":b64@1/64", ":bad", "[0]", "[64]", "[65]",
	"[99999999999]", "name=", "common_pid=",
};

struct fuzz_str {
	char buf[FUZZ_MAX_LEN + 1];
	size_t len;
};

static inline u32 fuzz_below(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/* Any character but white space, which never reaches the parser in a word. */
static inline char fuzz_char(struct rnd_state *rnd)
{
	return '!' + fuzz_below(rnd, '~' - '!' + 1);
}

static inline const char *fuzz_token(struct rnd_state *rnd)
{
	return fuzz_tokens[fuzz_below(rnd, ARRAY_SIZE(fuzz_tokens))];
}

/* Put N bytes of TEXT at POS, as many as fit. */
static inline void fuzz_insert(struct fuzz_str *s, size_t pos, const char *text, size_t n)
{
	n = min(n, FUZZ_MAX_LEN - s->len);
	memmove(s->buf + pos + n, s->buf + pos, s->len - pos);
	memcpy(s->buf + pos, text, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static inline void fuzz_append(struct fuzz_str *s, const char *text)
{
	fuzz_insert(s, s->len, text, strlen(text));
}

/* One random edit: something put in, changed, cut out, repeated or cut off. */
static inline void fuzz_mutate(struct fuzz_str *s, struct rnd_state *rnd)
{
	size_t pos = fuzz_below(rnd, s->len + 1);
	size_t n = fuzz_below(rnd, s->len - pos + 1);
	char run[FUZZ_MAX_LEN + 1];
	const char *token;
	char c;

	switch (fuzz_below(rnd, 6)) {
	case 0:
		token = fuzz_token(rnd);
		fuzz_insert(s, pos, token, strlen(token));
		break;
	case 1:
		c = fuzz_char(rnd);
		fuzz_insert(s, pos, &c, 1);
		break;
	case 2:
		if (pos < s->len)
			s->buf[pos] = fuzz_char(rnd);
		break;
	case 3:
		memmove(s->buf + pos, s->buf + pos + n, s->len - pos - n + 1);
		s->len -= n;
		break;
	case 4:
		memcpy(run, s->buf + pos, n);
		fuzz_insert(s, pos, run, n);
		break;
	default:
		s->len = pos;
		s->buf[pos] = '\0';
		break;
	}
}

/*
 * The next string: a fifth random characters, a fifth random tokens, a
 * tenth a seed nested in up to 16 dereferences (past the limit of
 * instructions a program may have), a tenth a seed as it is, and the
 * rest a seed with one to four edits.
 */
static inline void fuzz_next(struct fuzz_str *s, struct rnd_state *rnd)
{
	u32 how = fuzz_below(rnd, 10);
	u32 i, n;
	char c;

	s->len = 0;
	s->buf[0] = '\0';
	if (how < 2) {
		n = fuzz_below(rnd, FUZZ_MAX_LEN + 1);
		for (i = 0; i < n; i++) {
			c = fuzz_char(rnd);
			fuzz_insert(s, s->len, &c, 1);
		}
		return;
	}
	if (how < 4) {
		n = 1 + fuzz_below(rnd, 8);
		for (i = 0; i < n; i++)
			fuzz_append(s, fuzz_token(rnd));
		return;
	}
	fuzz_append(s, fuzz_seeds[fuzz_below(rnd, ARRAY_SIZE(fuzz_seeds))]);
	if (how == 4) {
		n = 1 + fuzz_below(rnd, 16);
		for (i = 0; i < n; i++) {
			fuzz_insert(s, 0, "+0(", 3);
			fuzz_append(s, ")");
		}
	} else if (how > 5) {
		n = 1 + fuzz_below(rnd, 4);
		for (i = 0; i < n; i++)
			fuzz_mutate(s, rnd);
	}
}

/* How many strings a run draws. */
static inline int fuzz_run_length(bool full)
{
	return FUZZ_STRINGS / FUZZ_RUNS / (full ? 1 : FUZZ_SAMPLE);
}

/* "strings FIRST to LAST, seed S": RUN's place in the 100,000. */
static inline void fuzz_run_desc(int run, bool full, char *desc)
{
	int first = run * (FUZZ_STRINGS / FUZZ_RUNS);

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "strings %d to %d, seed %#llx", first + 1,
		 first + fuzz_run_length(full), FUZZ_SEED + run);
}

/* The next string, and the probe kind to parse it as. */
static inline const struct probe_kind *fuzz_draw(struct fuzz_str *s, struct rnd_state *rnd)
{
	fuzz_next(s, rnd);
	return &probe_kinds[fuzz_below(rnd, ARRAY_SIZE(probe_kinds))];
}

static inline const char *fire_skip_digits(const char *p, bool hex)
{
	while (hex ? isxdigit(*p) : isdigit(*p))
		p++;
	return p;
}

/* P past the character C, or NULL if P is NULL or not at C. */
static inline const char *fire_char(const char *p, char c)
{
	return p && *p == c ? p + 1 : NULL;
}

/* "0x" and hex digits, as "0x%x" and %pS of an unknown address print. */
static inline const char *fire_hex(const char *p)
{
	const char *end;

	if (!p || strncmp(p, "0x", 2))
		return NULL;
	end = fire_skip_digits(p + 2, true);
	return end > p + 2 ? end : NULL;
}

/* %pS of a known address: name+0xOFFSET/0xSIZE, and " [module]" if any. */
static inline const char *fire_symbol(const char *p)
{
	const char *name = p;

	while (isalnum(*p) || *p == '_' || *p == '.')
		p++;
	if (p == name)
		return NULL;
	p = fire_hex(fire_char(fire_hex(fire_char(p, '+')), '/'));
	if (p && *p == ' ' && p[1] == '[') {
		p = strchr(p, ']');
		return p ? p + 1 : NULL;
	}
	return p;
}

/*
 * A string: "(fault)", or its text in quotes. The text is whatever
 * memory held, quotes included, so its end is the last quote before
 * END (one value) or the first one followed by ',' or '}' (an array
 * element; a string read from the test's own object holds neither).
 */
static inline const char *fire_string(const char *p, const char *end, bool element)
{
	const char *q;

	if (!strncmp(p, "(fault)", 7))
		return p + 7;
	if (*p != '"')
		return NULL;
	if (!element) {
		for (q = end - 1; q > p && *q != '"'; q--)
			;
		return q > p ? q + 1 : NULL;
	}
	for (q = p + 1; q < end; q++)
		if (*q == '"' && (q[1] == ',' || q[1] == '}'))
			return q + 1;
	return NULL;
}

/*
 * One value of the type named TYPE at P, as the type's print function
 * writes it: where it ends, or NULL if it is not one.
 */
static inline const char *fire_value(const char *p, const char *end, const char *type, bool element)
{
	if (!strcmp(type, "string") || !strcmp(type, "ustring") || !strcmp(type, "symstr"))
		return fire_string(p, end, element);
	if (!strcmp(type, "symbol"))
		return fire_hex(p) ?: fire_symbol(p);
	switch (type[0]) {
	case 'x':
		return fire_hex(p);
	case 's':
		if (*p == '-')
			p++;
		fallthrough;
	case 'u':
		return isdigit(*p) ? fire_skip_digits(p, false) : NULL;
	}
	return NULL;
}

/* Whether [P, END) is what an argument of SHAPE prints: a value or {v,...}. */
static inline bool fire_field_ok(const char *p, const char *end, const struct arg_shape *shape)
{
	unsigned int i;

	if (!shape->count)
		return fire_value(p, end, shape->type, false) == end;
	if (*p++ != '{')
		return false;
	for (i = 0; i < shape->count; i++) {
		p = fire_value(p, end, shape->type, true);
		if (!p || *p++ != (i + 1 < shape->count ? ',' : '}'))
			return false;
	}
	return p == end;
}

#endif /* _KERNEL_TRACE_PROBE_FUZZ_KUNIT_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe_fuzz: the probe-event argument parser against 100,000 random
 * and mutated argument strings, the same ones on every run (a fixed
 * seed).  Each string is parsed as the one argument of a fresh probe of
 * one of the probe kinds, the way that kind's file calls the parser,
 * and the probe is freed again.  The parser must not crash or trip
 * KASAN or UBSAN (the run fails on their reports); every error_log
 * entry it makes must have its caret inside the string, and the fork
 * makes exactly one for each refused string and none for an accepted
 * one; and nothing it allocates may outlive the probe, which kmemleak
 * checks in boots that turn it on (tools/kunit --kmemleak).
 *
 * The parser is called directly rather than through kprobe_events: each
 * accepted string would otherwise register a probe, and 100,000 of
 * those take minutes under TCG.  The calls are the interface the probe
 * kinds use, so the suite runs against either implementation.
 *
 * probe_parse_bench times the same calls on arguments of every kind:
 * a benchmark, not a test (tools/kunit bench).
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "trace_probe.h"
#include "trace_probe_kunit.h"

#define FUZZ_SEED		0x6b666f726bULL	/* "kfork" */
#define FUZZ_STRINGS		100000
/*
 * In runs of 25,000, each from a seed of its own, so that each stays
 * well inside KUnit's 300 s for a case also with kmemleak on, where
 * every allocation costs many times more.
 */
#define FUZZ_RUNS		4
/* past MAX_ARGSTR_LEN (63), so that the parser's length check is reached */
#define FUZZ_MAX_LEN		95
/*
 * error_log keeps its last 8 entries (TRACING_LOG_ERRS_MAX): it is read
 * after 4 refusals, room for two entries each, or 16 strings.
 */
#define FUZZ_BATCH_REFUSALS	4
#define FUZZ_BATCH		16

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

/*
 * Parse ARG as the one argument of a fresh probe of KIND, with the
 * error log holding the command (the argument is its third word), then
 * free the probe.  TP has room for one argument.  Returns what the
 * parser returned.
 */
static int parse_one(struct trace_probe *tp, const struct probe_kind *kind, const char *arg)
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
	trace_probe_cleanup(tp);
	return ret;
}

static struct trace_probe *alloc_probe(struct kunit *test)
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

static u32 fuzz_below(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/* Any character but white space, which never reaches the parser in a word. */
static char fuzz_char(struct rnd_state *rnd)
{
	return '!' + fuzz_below(rnd, '~' - '!' + 1);
}

static const char *fuzz_token(struct rnd_state *rnd)
{
	return fuzz_tokens[fuzz_below(rnd, ARRAY_SIZE(fuzz_tokens))];
}

/* Put N bytes of TEXT at POS, as many as fit. */
static void fuzz_insert(struct fuzz_str *s, size_t pos, const char *text, size_t n)
{
	n = min(n, FUZZ_MAX_LEN - s->len);
	memmove(s->buf + pos + n, s->buf + pos, s->len - pos);
	memcpy(s->buf + pos, text, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static void fuzz_append(struct fuzz_str *s, const char *text)
{
	fuzz_insert(s, s->len, text, strlen(text));
}

/* One random edit: something put in, changed, cut out, repeated or cut off. */
static void fuzz_mutate(struct fuzz_str *s, struct rnd_state *rnd)
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
static void fuzz_next(struct fuzz_str *s, struct rnd_state *rnd)
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

/* A string parsed since error_log was read last, kept until it is checked. */
struct fuzz_parsed {
	const struct probe_kind *kind;
	struct fuzz_str arg;
	bool refused;
};

/* What the runs of fuzz_parse saw, for the cases after it. */
struct fuzz_outcome {
	unsigned int runs;
	unsigned int accepted, refused;
	/* strings refused without one entry, or accepted with one */
	unsigned int odd;
	char first_odd[FUZZ_MAX_LEN + 64];
};

static struct fuzz_outcome fuzz_outcome;

/* Whether ERR is an entry of the string P: its subsystem and command. */
static bool fuzz_entry_of(const struct probe_test_error *err, const struct fuzz_parsed *p)
{
	char cmd[3 * (FUZZ_MAX_LEN + 1)];
	int len = scnprintf(cmd, sizeof(cmd), "%s %s %s", p->kind->words[0],
			    p->kind->words[1], p->arg.buf);

	return err->where_len == (int)strlen(p->kind->subsystem) &&
	       !strncmp(err->where, p->kind->subsystem, err->where_len) &&
	       err->cmd_len == len && !strncmp(err->cmd, cmd, len);
}

static void fuzz_note_odd(const struct fuzz_parsed *p, int entries)
{
	if (fuzz_outcome.odd++)
		return;
	snprintf(fuzz_outcome.first_odd, sizeof(fuzz_outcome.first_odd), "%s with %d entries: %s",
		 p->refused ? "refused" : "accepted", entries, p->arg.buf);
}

/*
 * Match the strings of a batch, no two of one command, with the entries
 * of error_log, in order: the entries of a string are those that
 * follow with its command.  The caret of each must stand inside the
 * argument, or just past its end, where an error about something
 * missing points.  A string refused without exactly one entry, or
 * accepted with any, is counted (fuzz_one_entry_per_refusal judges the
 * count).  An entry left over belongs to no string.
 */
static void fuzz_check_batch(struct kunit *test, const struct fuzz_parsed *batch, int n)
{
	struct probe_test_error err;
	char *entry;
	int i, start, entries;

	probe_test_read(test, "error_log");
	entry = probe_test_fs(test)->buf;
	if (!*entry)
		entry = NULL;
	for (i = 0; i < n; i++) {
		const struct fuzz_parsed *p = &batch[i];

		start = strlen(p->kind->words[0]) + strlen(p->kind->words[1]) + 2;
		for (entries = 0; entry && probe_test_parse_error(entry, &err) &&
		     fuzz_entry_of(&err, p); entries++) {
			KUNIT_ASSERT_TRUE_MSG(test, err.caret >= start &&
					      err.caret <= start + p->arg.len,
					      "%.*s: caret at %d, the argument is %d..%zu of: %.*s",
					      err.text_len, err.text, err.caret, start,
					      start + p->arg.len, err.cmd_len, err.cmd);
			entry = probe_test_next_error(entry);
		}
		if (entries != (p->refused ? 1 : 0))
			fuzz_note_odd(p, entries);
	}
	KUNIT_ASSERT_NULL_MSG(test, entry, "an error_log entry of no string: %s", entry);
	probe_test_clear_errors(test);
}

static bool fuzz_in_batch(const struct fuzz_parsed *batch, int n,
			  const struct probe_kind *kind, const struct fuzz_str *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (batch[i].kind == kind && !strcmp(batch[i].arg.buf, s->buf))
			return true;
	return false;
}

static const int fuzz_runs[FUZZ_RUNS] = { 0, 1, 2, 3 };

static void fuzz_run_desc(const int *run, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "strings %d to %d, seed %#llx",
		 *run * (FUZZ_STRINGS / FUZZ_RUNS) + 1, (*run + 1) * (FUZZ_STRINGS / FUZZ_RUNS),
		 FUZZ_SEED + *run);
}

KUNIT_ARRAY_PARAM(fuzz_run, fuzz_runs, fuzz_run_desc);

static void fuzz_parse(struct kunit *test)
{
	struct fuzz_parsed *batch = kunit_kcalloc(test, FUZZ_BATCH, sizeof(*batch), GFP_KERNEL);
	struct trace_probe *tp = alloc_probe(test);
	const int *run = test->param_value;
	unsigned int accepted = fuzz_outcome.accepted;
	const struct probe_kind *kind;
	struct rnd_state rnd;
	struct fuzz_str s;
	int i, n = 0, refusals = 0, ret;

	KUNIT_ASSERT_NOT_NULL(test, batch);
	if (*run == 0)
		fuzz_outcome = (struct fuzz_outcome) {};
	KUNIT_ASSERT_EQ_MSG(test, fuzz_outcome.runs, (unsigned int)*run, "a run before failed");
	prandom_seed_state(&rnd, FUZZ_SEED + *run);
	probe_test_clear_errors(test);
	for (i = 0; i < FUZZ_STRINGS / FUZZ_RUNS; i++) {
		fuzz_next(&s, &rnd);
		kind = &probe_kinds[fuzz_below(&rnd, ARRAY_SIZE(probe_kinds))];
		/* whose entries are which would be ambiguous for a command twice */
		if (fuzz_in_batch(batch, n, kind, &s)) {
			fuzz_check_batch(test, batch, n);
			n = 0;
			refusals = 0;
		}
		ret = parse_one(tp, kind, s.buf);
		KUNIT_ASSERT_NE_MSG(test, ret, -ENOMEM, "%s", s.buf);
		if (ret)
			fuzz_outcome.refused++;
		else
			fuzz_outcome.accepted++;
		batch[n++] = (struct fuzz_parsed) { .kind = kind, .arg = s, .refused = ret };
		refusals += !!ret;
		if (n == FUZZ_BATCH || refusals == FUZZ_BATCH_REFUSALS) {
			fuzz_check_batch(test, batch, n);
			n = 0;
			refusals = 0;
		}
		cond_resched();
	}
	fuzz_check_batch(test, batch, n);
	/* a fuzzer that only ever hits one side tests nothing of the other */
	accepted = fuzz_outcome.accepted - accepted;
	KUNIT_ASSERT_GT(test, accepted, (unsigned int)FUZZ_STRINGS / FUZZ_RUNS / 20);
	KUNIT_ASSERT_LT(test, accepted, (unsigned int)FUZZ_STRINGS / FUZZ_RUNS / 2);
	if (++fuzz_outcome.runs == FUZZ_RUNS)
		kunit_info(test, "%d strings: %u accepted, %u refused; %u logged otherwise than one entry per refusal (%s)\n",
			   FUZZ_STRINGS, fuzz_outcome.accepted, fuzz_outcome.refused,
			   fuzz_outcome.odd, fuzz_outcome.odd ? fuzz_outcome.first_odd : "none");
}

/*
 * A fix of the fork (kunit/project-behaviour): one error_log entry for
 * each refused string and none for an accepted one.  6.1 refuses $comm
 * or an immediate string with another type without an entry, and logs
 * two for some eprobe arguments.
 */
static void fuzz_one_entry_per_refusal(struct kunit *test)
{
	if (fuzz_outcome.runs != FUZZ_RUNS)
		kunit_skip(test, "fuzz_parse did not run to its end");
	KUNIT_EXPECT_EQ_MSG(test, fuzz_outcome.odd, 0U, "the first: %s", fuzz_outcome.first_odd);
}

/*
 * What the parser allocated for the strings is freed with the probes:
 * kmemleak finds no object nothing points to.  It reports an object
 * only once it is MSECS_MIN_AGE (5 s) old, hence the wait.  Writing
 * "stack=on" (its default) is refused with EPERM when kmemleak is off.
 */
static void fuzz_no_leaks(struct kunit *test)
{
	struct vfsmount *debugfs;
	size_t len;

	if (fuzz_outcome.runs != FUZZ_RUNS)
		kunit_skip(test, "fuzz_parse did not run to its end");
	debugfs = probe_test_mount("debugfs");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(debugfs), "mount debugfs: %ld", PTR_ERR(debugfs));
	if (probe_test_write_at(test, debugfs, "kmemleak", "stack=on") < 0) {
		mntput(debugfs);
		kunit_skip(test, "kmemleak is off in this boot (tools/kunit run --kmemleak)");
	}
	msleep(6000);
	KUNIT_EXPECT_GT(test, probe_test_write_at(test, debugfs, "kmemleak", "scan"), (ssize_t)0);
	len = probe_test_read_at(test, debugfs, "kmemleak");
	mntput(debugfs);
	KUNIT_EXPECT_EQ_MSG(test, len, (size_t)0, "kmemleak:\n%.2000s", probe_test_fs(test)->buf);
}

static int fuzz_test_init(struct kunit *test)
{
	return probe_test_fs_init(test);
}

static struct kunit_case fuzz_test_cases[] = {
	KUNIT_CASE_PARAM(fuzz_parse, fuzz_run_gen_params),
	KUNIT_CASE(fuzz_one_entry_per_refusal),
	KUNIT_CASE(fuzz_no_leaks),
	{}
};

static struct kunit_suite fuzz_test_suite = {
	.name = "probe_fuzz",
	.init = fuzz_test_init,
	.exit = probe_test_fs_exit,
	.test_cases = fuzz_test_cases,
};

/*
 * probe_parse_bench: the time to parse one argument into a fresh probe
 * and free it, over arguments of every method, on the probe kinds that
 * take them.  The figure is the best of BENCH_ROUNDS rounds, each
 * parsing every argument BENCH_LAPS times: the round least disturbed
 * by the host.
 */
#define BENCH_ROUNDS	5
#define BENCH_LAPS	200

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "run the probe_parse_bench benchmark (tools/kunit bench)");

struct bench_arg {
	int kind;	/* into probe_kinds */
	const char *arg;
};

static const struct bench_arg bench_args[] = {
	{ 0, "%di" }, { 0, "a=+8(%si):u32" }, { 0, "$stack2:s16" }, { 0, "@jiffies" },
	{ 0, "name=+0(%di):string" }, { 0, "%ax:b4@2/16" }, { 0, "$comm" },
	{ 0, "\\123:u8" }, { 0, "$arg1" }, { 0, "+0(+8(+16(%di))):x64[4]" },
	{ 1, "$retval:s32" }, { 3, "+u0(%sp):ustring" }, { 3, "@+0x40:u8" },
	{ 5, "+0($prev_comm):u8" },
};

static void parse_bench_run(struct kunit *test)
{
	struct trace_probe *tp = alloc_probe(test);
	u64 best = U64_MAX, start, ns;
	int round, lap, i;

	if (!bench)
		kunit_skip(test, "a benchmark: tools/kunit bench runs it");
	for (i = 0; i < ARRAY_SIZE(bench_args); i++)
		KUNIT_ASSERT_EQ_MSG(test, parse_one(tp, &probe_kinds[bench_args[i].kind],
						    bench_args[i].arg), 0,
				    "%s", bench_args[i].arg);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		start = ktime_get_ns();
		for (lap = 0; lap < BENCH_LAPS; lap++)
			for (i = 0; i < ARRAY_SIZE(bench_args); i++)
				parse_one(tp, &probe_kinds[bench_args[i].kind], bench_args[i].arg);
		ns = ktime_get_ns() - start;
		best = min(best, ns);
		cond_resched();
	}
	kunit_info(test, "kfork-bench: probe.parse_arg_ns %llu\n",
		   div_u64(best, BENCH_LAPS * ARRAY_SIZE(bench_args)));
}

static struct kunit_case parse_bench_cases[] = {
	KUNIT_CASE(parse_bench_run),
	{}
};

static struct kunit_suite parse_bench_suite = {
	.name = "probe_parse_bench",
	.test_cases = parse_bench_cases,
};

kunit_test_suites(&fuzz_test_suite, &parse_bench_suite);

MODULE_LICENSE("GPL");

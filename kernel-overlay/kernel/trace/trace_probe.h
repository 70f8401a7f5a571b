/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe-event core shared by kprobe, uprobe and eprobe events.
 *
 * An event argument is written in the fetch-argument language
 * (Documentation/trace/kprobetrace.rst) and compiled into a short
 * program of fetch instructions: one load from the probe's context,
 * any number of dereferences, one store into the event record, then
 * optionally a bitfield extraction and an array loop.  The load is run
 * by each probe kind (process_fetch_insn() in trace_kprobe.c,
 * trace_uprobe.c, trace_eprobe.c); everything after it by
 * process_fetch_insn_bottom() in trace_probe_tmpl.h.
 *
 * The names, structures and constants below are what those files and
 * trace_event_perf.c, bpf_trace.c and trace_probe_kernel.h use.
 */
#ifndef _TRACE_PROBE_H
#define _TRACE_PROBE_H

#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/tracefs.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/bitsperlong.h>

#include "trace.h"
#include "trace_output.h"

/* Limits of the language; userspace sees each one as an error. */
#define MAX_TRACE_ARGS		128
#define MAX_ARGSTR_LEN		63
#define MAX_ARRAY_LEN		64
#define MAX_ARG_NAME_LEN	32
#define MAX_STRING_SIZE		PATH_MAX
#define MAX_PROBE_EVENT_SIZE	3072

/* The probe's own fields, ahead of the arguments in every record. */
#define FIELD_STRING_IP		"__probe_ip"
#define FIELD_STRING_RETIP	"__probe_ret_ip"
#define FIELD_STRING_FUNC	"__probe_func"

/* Who the event is enabled for: ftrace files, perf or both. */
#define TP_FLAG_TRACE		1
#define TP_FLAG_PROFILE		2

/*
 * A string is stored past the fixed part of the record; the field holds
 * a data_loc: its length in the high 16 bits, its offset from the start
 * of the record in the low 16 bits.
 */
#define make_data_loc(len, offs)	\
	(((u32)(len) << 16) | ((u32)(offs) & 0xffff))
#define get_loc_len(dl)		((u32)(dl) >> 16)
#define get_loc_offs(dl)	((u32)(dl) & 0xffff)

static nokprobe_inline void *get_loc_data(u32 *dl, void *ent)
{
	return (u8 *)ent + get_loc_offs(*dl);
}

/* The data_loc of what is left of an area after CONSUMED bytes. */
static nokprobe_inline u32 update_data_loc(u32 loc, int consumed)
{
	return make_data_loc(get_loc_len(loc) - consumed,
			     get_loc_offs(loc) + consumed);
}

typedef int (*print_type_func_t)(struct trace_seq *, void *, void *);

enum fetch_op {
	FETCH_OP_NOP = 0,
	/* load, run by the probe kind */
	FETCH_OP_REG,		/* register at .param (pt_regs offset) */
	FETCH_OP_STACK,		/* stack entry .param */
	FETCH_OP_STACKP,	/* the stack pointer */
	FETCH_OP_RETVAL,	/* the return value */
	FETCH_OP_IMM,		/* .immediate */
	FETCH_OP_COMM,		/* current->comm */
	FETCH_OP_ARG,		/* function argument .param (from 0) */
	FETCH_OP_FOFFS,		/* file offset .immediate, as a user address */
	FETCH_OP_DATA,		/* .data, owned by the instruction */
	/* dereference */
	FETCH_OP_DEREF,		/* kernel memory at value + .offset */
	FETCH_OP_UDEREF,	/* user memory at value + .offset */
	/* store into the record */
	FETCH_OP_ST_RAW,	/* the value itself, .size bytes */
	FETCH_OP_ST_MEM,	/* .size bytes of kernel memory at value + .offset */
	FETCH_OP_ST_UMEM,	/* the same from user memory */
	FETCH_OP_ST_STRING,	/* kernel string at value + .offset */
	FETCH_OP_ST_USTRING,	/* user string at value + .offset */
	FETCH_OP_ST_SYMSTR,	/* the symbol name of value + .offset */
	/* modify what was stored */
	FETCH_OP_MOD_BF,	/* bitfield: .basesize, .lshift, .rshift */
	/* repeat the store */
	FETCH_OP_LP_ARRAY,	/* .param elements */
	FETCH_OP_TP_ARG,	/* eprobe: the field named .data */
	FETCH_OP_END,
	FETCH_NOP_SYMBOL,	/* .data: the symbol the next IMM resolves */
};

struct fetch_insn {
	enum fetch_op op;
	union {
		unsigned int param;
		struct {
			unsigned int size;
			int offset;
		};
		struct {
			unsigned char basesize;
			unsigned char lshift;
			unsigned char rshift;
		};
		unsigned long immediate;
		void *data;
	};
};

/* load, dereferences, store, bitfield, array and end all fit in this */
#define FETCH_INSN_MAX	16
/* what a uprobe's $comm load yields: the store copies current->comm */
#define FETCH_TOKEN_COMM	(-ECOMM)

/* A type of the language: how it is stored, printed and declared. */
struct fetch_type {
	const char		*name;		/* as written after ':' */
	size_t			size;		/* bytes in the record */
	bool			is_signed;
	bool			is_string;	/* stored as a data_loc */
	print_type_func_t	print;
	const char		*fmt;		/* printf format of one value */
	const char		*fmttype;	/* the type in the format file */
};

#ifdef CONFIG_KPROBE_EVENTS
bool trace_kprobe_on_func_entry(struct trace_event_call *call);
bool trace_kprobe_error_injectable(struct trace_event_call *call);
#else
static inline bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	return false;
}

static inline bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	return false;
}
#endif /* CONFIG_KPROBE_EVENTS */

/* One argument of an event; its strings live in code's allocation. */
struct probe_arg {
	struct fetch_insn	*code;	/* its program, ending in FETCH_OP_END */
	bool			dynamic;/* stores a string past the fixed part */
	unsigned int		offset;	/* of its field, from the first argument */
	unsigned int		count;	/* array elements, 0 if not an array */
	const char		*name;
	const char		*comm;	/* the argument as written */
	char			*fmt;	/* field type of an array, "u8[4]" */
	const struct fetch_type	*type;
};

struct trace_uprobe_filter {
	rwlock_t		rwlock;
	int			nr_systemwide;
	struct list_head	perf_events;
};

/* What the probes of one event share: its call, class, files. */
struct trace_probe_event {
	unsigned int			flags;	/* TP_FLAG_* */
	struct trace_event_class	class;
	struct trace_event_call		call;
	struct list_head		files;	/* event_file_link */
	struct list_head		probes;	/* trace_probe */
	/* the field names and types, owned by the event (see define_arg_fields) */
	char				**field_strings;
	int				nr_field_strings;
	struct trace_uprobe_filter	filter[];
};

struct trace_probe {
	struct list_head		list;	/* in event->probes */
	struct trace_probe_event	*event;
	ssize_t				size;	/* of the arguments' fixed part */
	unsigned int			nr_args;
	struct probe_arg		args[];
};

struct event_file_link {
	struct trace_event_file		*file;
	struct list_head		list;
};

/*
 * A probe handler reads the flags without a lock: it must see the
 * event's files (or perf events) set up before the flag that says so.
 */
static inline unsigned int trace_probe_load_flag(struct trace_probe *tp)
{
	/* pairs with smp_store_release() in trace_probe_set_flag() */
	return smp_load_acquire(&tp->event->flags);
}

static inline bool trace_probe_test_flag(struct trace_probe *tp, unsigned int flag)
{
	return trace_probe_load_flag(tp) & flag;
}

static inline void trace_probe_set_flag(struct trace_probe *tp, unsigned int flag)
{
	/* pairs with smp_load_acquire() in trace_probe_load_flag() */
	smp_store_release(&tp->event->flags, tp->event->flags | flag);
}

static inline void trace_probe_clear_flag(struct trace_probe *tp, unsigned int flag)
{
	tp->event->flags &= ~flag;
}

static inline bool trace_probe_is_enabled(struct trace_probe *tp)
{
	return trace_probe_test_flag(tp, TP_FLAG_TRACE | TP_FLAG_PROFILE);
}

static inline struct trace_event_call *trace_probe_event_call(struct trace_probe *tp)
{
	return &tp->event->call;
}

static inline const char *trace_probe_name(struct trace_probe *tp)
{
	return trace_event_name(trace_probe_event_call(tp));
}

static inline const char *trace_probe_group_name(struct trace_probe *tp)
{
	return tp->event->call.class->system;
}

static inline struct trace_probe_event *
trace_probe_event_from_call(struct trace_event_call *event_call)
{
	return container_of(event_call, struct trace_probe_event, call);
}

struct trace_probe *trace_probe_primary_from_call(struct trace_event_call *call);

static inline struct list_head *trace_probe_probe_list(struct trace_probe *tp)
{
	return &tp->event->probes;
}

/* Does another probe share TP's event?  TP itself is on the list. */
static inline bool trace_probe_has_sibling(struct trace_probe *tp)
{
	struct list_head *probes = trace_probe_probe_list(tp);

	return probes->next != probes->prev;
}

/* trace_remove_event_call() also unregisters the event. */
static inline int trace_probe_unregister_event_call(struct trace_probe *tp)
{
	return trace_remove_event_call(trace_probe_event_call(tp));
}

static inline bool trace_probe_has_single_file(struct trace_probe *tp)
{
	return list_is_singular(&tp->event->files);
}

int trace_probe_init(struct trace_probe *tp, const char *event,
		     const char *group, bool alloc_filter);
void trace_probe_cleanup(struct trace_probe *tp);
int trace_probe_check_join(struct trace_probe *tp, struct trace_probe *to, bool same_kind,
			   bool (*same_place)(struct trace_probe *, struct trace_probe *));
int trace_probe_append(struct trace_probe *tp, struct trace_probe *to);
void trace_probe_unlink(struct trace_probe *tp);
int trace_probe_register_event_call(struct trace_probe *tp);
int trace_probe_add_file(struct trace_probe *tp, struct trace_event_file *file);
int trace_probe_remove_file(struct trace_probe *tp,
			    struct trace_event_file *file);
struct event_file_link *trace_probe_get_file_link(struct trace_probe *tp,
						  struct trace_event_file *file);
int trace_probe_compare_arg_type(struct trace_probe *a, struct trace_probe *b);
bool trace_probe_match_command_args(struct trace_probe *tp,
				    int argc, const char **argv);
int trace_probe_create(const char *raw_command, int (*createfn)(int, const char **));
struct dyn_event_operations;
int trace_probe_kind_command(const char *raw_command, struct dyn_event_operations *ops);
int trace_probe_list_open(struct file *file, const struct seq_operations *ops,
			  struct dyn_event_operations *clears);

#define trace_probe_for_each_link(pos, tp)	\
	list_for_each_entry(pos, &(tp)->event->files, list)
#define trace_probe_for_each_link_rcu(pos, tp)	\
	list_for_each_entry_rcu(pos, &(tp)->event->files, list)

/* What kind of probe an argument is parsed for. */
#define TPARG_FL_RETURN BIT(0)	/* a return probe: $retval */
#define TPARG_FL_KERNEL BIT(1)	/* kernel memory and symbols */
#define TPARG_FL_FENTRY BIT(2)	/* at a function entry: $argN */
#define TPARG_FL_TPOINT BIT(3)	/* an eprobe: $FIELD names a field */
#define TPARG_FL_MASK	GENMASK(3, 0)

int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *argv,
			       unsigned int flags);
int traceprobe_check_nr_args(int nr_args, int first_word);
int traceprobe_update_arg(struct probe_arg *arg);
void traceprobe_free_probe_arg(struct probe_arg *arg);
int traceprobe_split_symbol_offset(char *symbol, long *offset);
int traceprobe_parse_event_name(const char **pevent, const char **pgroup,
				char *buf, int offset);

enum probe_print_type {
	PROBE_PRINT_NORMAL,
	PROBE_PRINT_RETURN,
	PROBE_PRINT_EVENT,
};

int traceprobe_set_print_fmt(struct trace_probe *tp, enum probe_print_type ptype);
int traceprobe_define_arg_fields(struct trace_event_call *event_call,
				 size_t offset, struct trace_probe *tp);
int traceprobe_define_probe_fields(struct trace_event_call *call, bool is_return,
				   struct trace_probe *tp);

#ifdef CONFIG_PERF_EVENTS
struct trace_event_call *create_local_trace_kprobe(char *func, void *addr,
						   unsigned long offs, bool is_return);
void destroy_local_trace_kprobe(struct trace_event_call *event_call);

struct trace_event_call *create_local_trace_uprobe(char *name, unsigned long offs,
						   unsigned long ref_ctr_offset,
						   bool is_return);
void destroy_local_trace_uprobe(struct trace_event_call *event_call);
#endif

/*
 * The causes error_log names, TP_ERR_<cause> for trace_probe_log_err().
 * Their texts are in trace_probe.c; userspace sees them, so they keep
 * the distro's wording.
 */
enum trace_probe_error {
	TP_ERR_FILE_NOT_FOUND,
	TP_ERR_NO_REGULAR_FILE,
	TP_ERR_BAD_REFCNT,
	TP_ERR_REFCNT_OPEN_BRACE,
	TP_ERR_BAD_REFCNT_SUFFIX,
	TP_ERR_BAD_UPROBE_OFFS,
	TP_ERR_MAXACT_NO_KPROBE,
	TP_ERR_BAD_MAXACT,
	TP_ERR_MAXACT_TOO_BIG,
	TP_ERR_BAD_PROBE_ADDR,
	TP_ERR_NON_UNIQ_SYMBOL,
	TP_ERR_BAD_RETPROBE,
	TP_ERR_BAD_ADDR_SUFFIX,
	TP_ERR_NO_GROUP_NAME,
	TP_ERR_GROUP_TOO_LONG,
	TP_ERR_BAD_GROUP_NAME,
	TP_ERR_NO_EVENT_NAME,
	TP_ERR_EVENT_TOO_LONG,
	TP_ERR_BAD_EVENT_NAME,
	TP_ERR_EVENT_EXIST,
	TP_ERR_RETVAL_ON_PROBE,
	TP_ERR_BAD_STACK_NUM,
	TP_ERR_BAD_ARG_NUM,
	TP_ERR_BAD_VAR,
	TP_ERR_BAD_REG_NAME,
	TP_ERR_BAD_MEM_ADDR,
	TP_ERR_BAD_IMM,
	TP_ERR_IMMSTR_NO_CLOSE,
	TP_ERR_FILE_ON_KPROBE,
	TP_ERR_BAD_FILE_OFFS,
	TP_ERR_SYM_ON_UPROBE,
	TP_ERR_TOO_MANY_OPS,
	TP_ERR_DEREF_NEED_BRACE,
	TP_ERR_BAD_DEREF_OFFS,
	TP_ERR_DEREF_OPEN_BRACE,
	TP_ERR_COMM_CANT_DEREF,
	TP_ERR_BAD_FETCH_ARG,
	TP_ERR_ARRAY_NO_CLOSE,
	TP_ERR_BAD_ARRAY_SUFFIX,
	TP_ERR_BAD_ARRAY_NUM,
	TP_ERR_ARRAY_TOO_BIG,
	TP_ERR_BAD_TYPE,
	TP_ERR_BAD_STRING,
	TP_ERR_BAD_SYMSTRING,
	TP_ERR_BAD_BITFIELD,
	TP_ERR_ARG_NAME_TOO_LONG,
	TP_ERR_NO_ARG_NAME,
	TP_ERR_BAD_ARG_NAME,
	TP_ERR_USED_ARG_NAME,
	TP_ERR_ARG_TOO_LONG,
	TP_ERR_NO_ARG_BODY,
	TP_ERR_BAD_INSN_BNDRY,
	TP_ERR_FAIL_REG_PROBE,
	TP_ERR_DIFF_PROBE_TYPE,
	TP_ERR_DIFF_ARG_TYPE,
	TP_ERR_SAME_PROBE,
	TP_ERR_NO_EVENT_INFO,
	TP_ERR_BAD_ATTACH_EVENT,
	TP_ERR_BAD_ATTACH_ARG,
	TP_ERR_NO_EP_FILTER,
	TP_ERR_EVENT_TOO_BIG,
	/* the fork's: 6.1 dropped arguments past MAX_TRACE_ARGS silently */
	TP_ERR_TOO_MANY_ARGS,
	/* the fork's: 6.1 has no $argN on uprobes */
	TP_ERR_ARGS_ON_RETPROBE,
	TP_ERR_MAX
};

/* Held by every caller of the log, in trace_dynevent.c. */
extern struct mutex dyn_event_ops_mutex;

/*
 * The command being parsed, as the words of its line, so an error can
 * be shown under the word at fault.  Callers hold dyn_event_ops_mutex.
 */
void trace_probe_log_init(const char *subsystem, int argc, const char **argv);
void trace_probe_log_set_index(int index);
void trace_probe_log_clear(void);
void __trace_probe_log_err(int offset, int err);

/* Log error ERR OFFS characters into the current word. */
#define trace_probe_log_err(offs, err)	\
	__trace_probe_log_err(offs, TP_ERR_##err)

#endif /* _TRACE_PROBE_H */

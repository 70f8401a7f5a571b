/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a fetch program, for each probe kind that includes this file.
 *
 * A program (see trace_probe.h) is: a load, which the including file
 * runs in its process_fetch_insn() since only it knows the context;
 * then DEREF or UDEREF steps; one store; an optional MOD_BF; an
 * optional LP_ARRAY; END.  process_fetch_insn_bottom() runs everything
 * after the load.  The including file provides the memory and string
 * accessors declared below, for kernel or user memory as it needs.
 *
 * All of it runs in probe context: no sleeping, no tracing, and every
 * read of memory through the accessors, which never fault.
 *
 * process_fetch_insn() is one function out of line, not inlined into
 * each place that runs a program (sizing the strings; storing, for the
 * trace and for perf): inlined, trace_kprobe.o carried four copies of
 * the interpreter, 9.5 KB of text, and a hit with six arguments was no
 * faster for it (tools/kunit bench, probe.hit_6args_ns).
 */

static int process_fetch_insn(struct fetch_insn *code, void *rec, void *dest, void *base);
static nokprobe_inline int fetch_store_strlen(unsigned long addr);
static nokprobe_inline int fetch_store_string(unsigned long addr, void *dest, void *base);
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr);
static nokprobe_inline int fetch_store_string_user(unsigned long addr, void *dest, void *base);
static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size);
static nokprobe_inline int probe_mem_read_user(void *dest, void *src, size_t size);

/*
 * The bytes "symbol+0x.../0x..." needs, with its NUL.  sprint_symbol()
 * writes at least the address, never fails.
 */
static nokprobe_inline int fetch_store_symstrlen(unsigned long addr)
{
	char namebuf[KSYM_SYMBOL_LEN];

	return sprint_symbol(namebuf, addr) + 1;
}

/*
 * Write the symbol of ADDR where the data_loc at DEST points, and say
 * what it took, NUL included, as a string store does: in the data_loc
 * and in what it returns, so that the next string starts after it.
 */
static nokprobe_inline int fetch_store_symstring(unsigned long addr, void *dest, void *base)
{
	u32 loc = *(u32 *)dest;
	int len;

	if (unlikely(!get_loc_len(loc)))
		return -ENOMEM;
	len = sprint_symbol(get_loc_data(dest, base), addr) + 1;
	*(u32 *)dest = make_data_loc(len, get_loc_offs(loc));
	return len;
}

/* A field of the record: 1, 2, 4 or 8 bytes wide. */
union fetch_slot {
	u8 u8;
	u16 u16;
	u32 u32;
	u64 u64;
};

static nokprobe_inline u64 fetch_get_value(unsigned int size, const void *src)
{
	const union fetch_slot *slot = src;

	return size == 1 ? slot->u8 : size == 2 ? slot->u16 :
	       size == 4 ? slot->u32 : slot->u64;
}

/* Store the low SIZE bytes of VAL. */
static nokprobe_inline void fetch_put_value(u64 val, unsigned int size, void *dest)
{
	union fetch_slot *slot = dest;

	if (size == 1)
		slot->u8 = val;
	else if (size == 2)
		slot->u16 = val;
	else if (size == 4)
		slot->u32 = val;
	else
		slot->u64 = val;
}

/*
 * Keep bits [offset, offset + width) of the container just stored at
 * DEST, moved down to bit 0.  In 64 bits: shift the field's top bit to
 * bit 63, then its bottom bit to bit 0.  lshift is the container's bits
 * above the field, rshift its bits outside the field.
 */
static nokprobe_inline void fetch_extract_bitfield(const struct fetch_insn *bf, void *dest)
{
	unsigned int unused = 64 - bf->basesize * BITS_PER_BYTE;
	u64 v = fetch_get_value(bf->basesize, dest);

	v = (v << (unused + bf->lshift)) >> (unused + bf->rshift);
	fetch_put_value(v, bf->basesize, dest);
}

static nokprobe_inline bool fetch_is_string_store(enum fetch_op op)
{
	return op == FETCH_OP_ST_STRING || op == FETCH_OP_ST_USTRING ||
	       op == FETCH_OP_ST_SYMSTR;
}

static nokprobe_inline bool fetch_is_deref(enum fetch_op op)
{
	return op == FETCH_OP_DEREF || op == FETCH_OP_UDEREF;
}

/*
 * Run the dereferences in [FROM, TO), replacing *VAL with what each
 * reads.  *BASE is left as the value the last one read from, before
 * its offset: where an array of pointers starts.
 */
static nokprobe_inline int
fetch_follow_derefs(struct fetch_insn *from, struct fetch_insn *to, unsigned long *val,
		    unsigned long *base)
{
	struct fetch_insn *step;
	int ret;

	for (step = from; step < to; step++) {
		void *addr = (void *)(*val + step->offset);

		*base = *val;
		if (step->op == FETCH_OP_DEREF)
			ret = probe_mem_read(val, addr, sizeof(*val));
		else
			ret = probe_mem_read_user(val, addr, sizeof(*val));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One element: the string length a store will need (DEST NULL), or the
 * store itself.  Returns what a string consumed of the dynamic area.
 */
static nokprobe_inline int
fetch_store_element(struct fetch_insn *st, unsigned long val, void *dest, void *base)
{
	unsigned long addr = val + st->offset;

	if (!dest) {
		switch (st->op) {
		case FETCH_OP_ST_STRING:
			return fetch_store_strlen(addr);
		case FETCH_OP_ST_USTRING:
			return fetch_store_strlen_user(addr);
		case FETCH_OP_ST_SYMSTR:
			return fetch_store_symstrlen(addr);
		default:
			return -EILSEQ;
		}
	}

	switch (st->op) {
	case FETCH_OP_ST_RAW:
		fetch_put_value(val, st->size, dest);
		return 0;
	case FETCH_OP_ST_MEM:
		if (probe_mem_read(dest, (void *)addr, st->size))
			memset(dest, 0, st->size);
		return 0;
	case FETCH_OP_ST_UMEM:
		if (probe_mem_read_user(dest, (void *)addr, st->size))
			memset(dest, 0, st->size);
		return 0;
	case FETCH_OP_ST_STRING:
		return fetch_store_string(addr, dest, base);
	case FETCH_OP_ST_USTRING:
		return fetch_store_string_user(addr, dest, base);
	case FETCH_OP_ST_SYMSTR:
		return fetch_store_symstring(addr, dest, base);
	default:
		return -EILSEQ;
	}
}

/* A string field whose address could not be read: shown as (fault). */
static nokprobe_inline void fetch_mark_fault(void *dest)
{
	*(u32 *)dest = make_data_loc(0, get_loc_offs(*(u32 *)dest));
}

/*
 * A field whose chain faulted: each string shows (fault), numbers read
 * 0.  The record comes straight from the ring buffer, so anything left
 * unwritten would show what an older event left in that place.
 */
static nokprobe_inline void fetch_clear_faulted(struct fetch_insn *st, unsigned int count,
						void *dest)
{
	u32 *loc = dest;
	unsigned int i;

	if (!fetch_is_string_store(st->op)) {
		memset(dest, 0, st->size * count);
		return;
	}
	fetch_mark_fault(dest);
	for (i = 1; i < count; i++)
		loc[i] = loc[0];
}

/*
 * Run the program from CODE, the step after the load, on VAL.  With
 * DEST, store into the record whose start is BASE and return the bytes
 * of strings stored; without, return the bytes strings will need.
 *
 * An array repeats the store.  Numbers and bitfields are read from
 * consecutive addresses.  Strings are read through consecutive
 * pointers: the last dereference is redone one pointer further on for
 * each, and each string's data_loc starts where the previous one ended.
 */
static nokprobe_inline int
process_fetch_insn_bottom(struct fetch_insn *code, unsigned long val, void *dest, void *base)
{
	struct fetch_insn *st, *bf = NULL, *next;
	unsigned long ptrs = val;	/* for strings: where the pointers are */
	unsigned int i, count = 1;
	int ret, used, total = 0;
	bool strings;
	u32 area = 0;

	for (st = code; fetch_is_deref(st->op); st++)
		;
	ret = fetch_follow_derefs(code, st, &val, &ptrs);
	next = st + 1;
	if (next->op == FETCH_OP_MOD_BF)
		bf = next++;
	if (next->op == FETCH_OP_LP_ARRAY)
		count = (next++)->param;
	if (next->op != FETCH_OP_END)
		return -EILSEQ;
	if (ret) {
		if (dest)
			fetch_clear_faulted(st, count, dest);
		return ret;
	}
	strings = fetch_is_string_store(st->op);
	if (count == 1) {
		ret = fetch_store_element(st, val, dest, base);
		if (dest && bf)
			fetch_extract_bitfield(bf, dest);
		return ret;
	}
	/*
	 * An array of strings has a dereference to redo before its store;
	 * the parser refuses one without, and the record must not keep
	 * data_loc words nobody wrote.
	 */
	if (strings && st == code) {
		if (dest)
			fetch_clear_faulted(st, count, dest);
		return -EILSEQ;
	}

	if (dest && strings)
		area = *(u32 *)dest;
	for (i = 0; i < count; i++) {
		bool fault = false;

		if (i && strings) {
			unsigned long unused;

			val = ptrs + i * sizeof(char *);
			fault = fetch_follow_derefs(st - 1, st, &val, &unused) != 0;
		} else if (i) {
			val += st->size;
		}
		if (dest && strings)
			*(u32 *)dest = area;
		used = 0;
		if (fault) {
			if (dest)
				fetch_mark_fault(dest);
		} else {
			used = max(fetch_store_element(st, val, dest, base), 0);
		}
		if (dest && bf)
			fetch_extract_bitfield(bf, dest);
		if (dest && strings)
			area = update_data_loc(area, used);
		if (dest)
			dest += strings ? sizeof(u32) : st->size;
		total += used;
	}
	return total;
}

/* The bytes all string arguments of TP need for the hit REC. */
static nokprobe_inline int __get_data_size(struct trace_probe *tp, void *rec)
{
	int i, len, total = 0;

	for (i = 0; i < tp->nr_args; i++) {
		if (likely(!tp->args[i].dynamic))
			continue;
		/* a fault (< 0) takes no room */
		len = process_fetch_insn(tp->args[i].code, rec, NULL, NULL);
		total += max(len, 0);
	}
	return total;
}

/*
 * Fill the arguments' part of a record: DATA is its start, HEADER_SIZE
 * bytes into the record, and MAXLEN bytes follow for strings.  Each
 * string takes the room left and the next starts where it ended: the
 * bytes the strings took.
 */
static nokprobe_inline int
store_trace_args(void *data, struct trace_probe *tp, void *rec, int header_size, int maxlen)
{
	void *base = data - header_size;
	void *strings = data + tp->size;
	int i, used;

	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *arg = &tp->args[i];
		u32 *field = data + arg->offset;

		if (unlikely(arg->dynamic))
			*field = make_data_loc(maxlen, strings - base);
		used = process_fetch_insn(arg->code, rec, field, base);
		if (unlikely(arg->dynamic) && likely(used > 0)) {
			strings += used;
			maxlen -= used;
		}
	}
	return strings - (data + tp->size);
}

/* " name=value" for each argument, an array as "{v,v,...}". */
static inline int
print_probe_args(struct trace_seq *s, struct probe_arg *args, int nr_args, u8 *data, void *field)
{
	int i, j;

	for (i = 0; i < nr_args; i++) {
		struct probe_arg *arg = &args[i];
		u8 *value = data + arg->offset;
		unsigned int n = arg->count ? arg->count : 1;

		trace_seq_printf(s, " %s=", arg->name);
		if (arg->count)
			trace_seq_putc(s, '{');
		for (j = 0; j < n; j++, value += arg->type->size) {
			if (!arg->type->print(s, value, field))
				return -ENOMEM;
			if (arg->count)
				trace_seq_putc(s, j + 1 < n ? ',' : '}');
		}
	}
	return 0;
}

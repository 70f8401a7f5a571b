// SPDX-License-Identifier: GPL-2.0-only
/*
 * tools/uprobe: uprobe events by symbol name.
 *
 * uprobe_events takes a place as PATH:FILE_OFFSET, and @+ fetches as an
 * offset from the base the probed text implies (the probe's address
 * less its file offset).  This resolves FUNC[+OFF] and @+VAR[+OFF] from
 * the ELF's .symtab, else .dynsym, through the program header that
 * maps them, prints the definition and writes it to tracefs.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CANDIDATES	16
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *tracefs_dir;

static const char usage[] =
	"usage: tools/uprobe [--tracefs DIR] VERB ...\n"
	"\n"
	"Define uprobe events by symbol name instead of file offset.\n"
	"\n"
	"verbs:\n"
	"  add [--dry-run] 'p|r[:[GRP/]EVENT] PATH:FUNC[+OFF][%return] [FETCHARGS]'\n"
	"        resolve FUNC (from .symtab, else .dynsym) to its file offset\n"
	"        and every @+VAR[+OFF] in FETCHARGS to the offset @+ expects,\n"
	"        print the definition and write it to uprobe_events\n"
	"        (--dry-run: print only). A place already given as an offset\n"
	"        is kept as it is.\n"
	"  list  the uprobe events defined (uprobe_events)\n"
	"  del [GRP/]EVENT\n"
	"        remove an event\n"
	"\n"
	"--tracefs DIR: tracefs is at DIR (default /sys/kernel/tracing, then\n"
	"/sys/kernel/debug/tracing). Errors are one line each, and nothing is\n"
	"written when there is one: the exit status is then 1 (2 for usage).\n";

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("uprobe: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- the ELF ---- */

struct elf_file {
	const char *path;
	int fd;
	Elf *elf;
};

static void elf_open(struct elf_file *f, const char *path)
{
	GElf_Ehdr ehdr;

	f->path = path;
	f->fd = open(path, O_RDONLY);
	if (f->fd < 0)
		fail("%s: %s", path, strerror(errno));
	if (elf_version(EV_CURRENT) == EV_NONE)
		fail("libelf: %s", elf_errmsg(-1));
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		fail("%s: not an ELF file", path);
	if (!gelf_getehdr(f->elf, &ehdr))
		fail("%s: %s", path, elf_errmsg(-1));
	if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_machine != EM_X86_64)
		fail("%s: not an x86-64 ELF file (machine %u, class %u)", path,
		     ehdr.e_machine, ehdr.e_ident[EI_CLASS]);
}

struct symbol {
	GElf_Addr value;
	GElf_Xword size;
	unsigned char type;
};

/* Symbols named NAME in the table of type SHT; distinct addresses only. */
static int symbols_named(struct elf_file *f, Elf64_Word sht, const char *name,
			 struct symbol *out, int max)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, count;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != sht || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		count = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; data && i < count; i++) {
			GElf_Sym sym;
			const char *sname;
			int j;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			sname = elf_strptr(f->elf, shdr.sh_link, sym.st_name);
			if (!sname || strcmp(sname, name))
				continue;
			for (j = 0; j < found; j++)
				if (out[j].value == sym.st_value)
					break;
			if (j < found || found == max)
				continue;
			out[found].value = sym.st_value;
			out[found].size = sym.st_size;
			out[found].type = GELF_ST_TYPE(sym.st_info);
			found++;
		}
	}
	return found;
}

/* The one symbol NAME, from .symtab or else .dynsym; FUNC: a function is wanted. */
static struct symbol find_symbol(struct elf_file *f, const char *name, bool func)
{
	struct symbol cand[MAX_CANDIDATES];
	char list[MAX_CANDIDATES * 24] = "";
	int n, i;

	n = symbols_named(f, SHT_SYMTAB, name, cand, MAX_CANDIDATES);
	if (!n)
		n = symbols_named(f, SHT_DYNSYM, name, cand, MAX_CANDIDATES);
	if (!n)
		fail("%s: no symbol %s (stripped?)", f->path, name);
	if (n > 1) {
		for (i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%#lx",
				 i ? ", " : "", (unsigned long)cand[i].value);
		fail("%s: %s is ambiguous, %d symbols at %s", f->path, name, n, list);
	}
	if (func && cand[0].type != STT_FUNC && cand[0].type != STT_GNU_IFUNC)
		fail("%s: %s is not a function but %s", f->path, name,
		     cand[0].type == STT_OBJECT ? "a data object" : "a symbol of another type");
	return cand[0];
}

/* The loadable segment whose file bytes hold VADDR; EXEC: it must be executable. */
static GElf_Phdr segment_of(struct elf_file *f, GElf_Addr vaddr, bool exec)
{
	size_t i, count;
	GElf_Phdr phdr;

	if (elf_getphdrnum(f->elf, &count))
		fail("%s: %s", f->path, elf_errmsg(-1));
	for (i = 0; i < count; i++) {
		if (!gelf_getphdr(f->elf, i, &phdr) || phdr.p_type != PT_LOAD)
			continue;
		if (vaddr >= phdr.p_vaddr && vaddr < phdr.p_vaddr + phdr.p_filesz) {
			if (exec && !(phdr.p_flags & PF_X))
				break;
			return phdr;
		}
	}
	fail("%s: %#lx is in no %sloadable segment", f->path, (unsigned long)vaddr,
	     exec ? "executable " : "");
	return phdr;	/* not reached */
}

/*
 * Where @+ counts from when the probe is at file offset OFFSET: the
 * link address less the file offset of the text that maps it.
 */
static GElf_Addr text_base(struct elf_file *f, GElf_Off offset)
{
	size_t i, count;
	GElf_Phdr phdr;

	if (elf_getphdrnum(f->elf, &count))
		fail("%s: %s", f->path, elf_errmsg(-1));
	for (i = 0; i < count; i++)
		if (gelf_getphdr(f->elf, i, &phdr) && phdr.p_type == PT_LOAD &&
		    (phdr.p_flags & PF_X) && offset >= phdr.p_offset &&
		    offset < phdr.p_offset + phdr.p_filesz)
			return phdr.p_vaddr - phdr.p_offset;
	fail("%s: file offset %#lx is in no executable segment", f->path, (unsigned long)offset);
	return 0;	/* not reached */
}

/* "NAME[+OFF]" or "NAME[-OFF]": NAME into NAME, OFF returned. */
static long split_offset(const char *text, char *name, size_t size)
{
	size_t len = strcspn(text, "+-");
	char *end;
	long off = 0;

	if (len >= size)
		fail("symbol name too long: %s", text);
	memcpy(name, text, len);
	name[len] = '\0';
	if (text[len]) {
		errno = 0;
		off = strtol(text + len, &end, 0);
		if (errno || *end || end == text + len + 1)
			fail("bad offset in %s", text);
	}
	return off;
}

/* ---- the definition ---- */

struct definition {
	char *text;		/* what goes to uprobe_events */
	size_t len, cap;
};

static void append(struct definition *d, const char *s, size_t len)
{
	if (d->len + len + 1 > d->cap) {
		d->cap = 2 * (d->len + len + 1);
		d->text = realloc(d->text, d->cap);
		if (!d->text)
			fail("out of memory");
	}
	memcpy(d->text + d->len, s, len);
	d->len += len;
	d->text[d->len] = '\0';
}

static void appendf(struct definition *d, const char *fmt, ...)
{
	char buf[PATH_MAX + 64];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(buf))
		fail("definition too long");
	append(d, buf, len);
}

static bool is_name_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The place PATH:FUNC[+OFF][%return]: PATH absolute, FUNC as its file offset. */
static GElf_Addr resolve_place(struct definition *d, struct elf_file *f, const char *word)
{
	const char *colon = strrchr(word, ':');
	static char abs[PATH_MAX];
	char path[PATH_MAX], func[256], spec[256];
	const char *ret;
	struct symbol sym;
	GElf_Phdr seg;
	long off;

	if (!colon || colon == word || !colon[1])
		fail("%s: the place must be PATH:FUNC[+OFF][%%return]", word);
	if ((size_t)(colon - word) >= sizeof(path))
		fail("path too long: %s", word);
	memcpy(path, word, colon - word);
	path[colon - word] = '\0';
	ret = strstr(colon + 1, "%return");
	if (snprintf(spec, sizeof(spec), "%.*s", (int)(ret ? ret - colon - 1 : (long)strlen(colon + 1)),
		     colon + 1) >= (int)sizeof(spec))
		fail("place too long: %s", word);
	if (ret && strcmp(ret, "%return"))
		fail("%s: nothing may follow %%return", word);

	if (!realpath(path, abs))
		fail("%s: %s", path, strerror(errno));
	elf_open(f, abs);
	if (!is_name_start(spec[0])) {
		/* already an offset: the kernel judges it */
		appendf(d, "%s:%s%s", abs, spec, ret ? "%return" : "");
		return text_base(f, strtoul(spec, NULL, 0));
	}
	off = split_offset(spec, func, sizeof(func));
	sym = find_symbol(f, func, true);
	if (off < 0 || (sym.size && (GElf_Xword)off >= sym.size))
		fail("%s: %s is past the end of %s (%#lx bytes)", f->path, spec, func,
		     (unsigned long)sym.size);
	seg = segment_of(f, sym.value + off, true);
	appendf(d, "%s:%#lx%s", abs, (unsigned long)(sym.value + off - seg.p_vaddr + seg.p_offset),
		ret ? "%return" : "");
	/* @+ counts from the probe's address less its file offset */
	return seg.p_vaddr - seg.p_offset;
}

/* One fetch argument, each @+VAR[+OFF] in it as @+FILE_OFFSET. */
static void resolve_fetcharg(struct definition *d, struct elf_file *f, GElf_Addr base,
			     const char *arg)
{
	const char *at;

	while ((at = strstr(arg, "@+"))) {
		char name[256], var[256];
		size_t len;
		long off;
		struct symbol sym;

		append(d, arg, at + 2 - arg);
		arg = at + 2;
		if (!is_name_start(*arg))
			continue;
		len = strspn(arg, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.");
		if (arg[len] == '+' || arg[len] == '-')
			len += 1 + strspn(arg + len + 1, "0123456789abcdefABCDEFx");
		if (len >= sizeof(name))
			fail("symbol name too long: %s", arg);
		memcpy(name, arg, len);
		name[len] = '\0';
		off = split_offset(name, var, sizeof(var));
		sym = find_symbol(f, var, false);
		appendf(d, "%#lx", (unsigned long)(sym.value + off - base));
		arg += len;
	}
	append(d, arg, strlen(arg));
}

/* ---- tracefs ---- */

static const char *tracefs(void)
{
	static const char *const known[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	static char path[PATH_MAX];
	size_t i;

	if (tracefs_dir) {
		snprintf(path, sizeof(path), "%s/uprobe_events", tracefs_dir);
		if (access(path, F_OK))
			fail("no tracefs: %s has no uprobe_events", tracefs_dir);
		return tracefs_dir;
	}
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		snprintf(path, sizeof(path), "%s/uprobe_events", known[i]);
		if (!access(path, F_OK))
			return known[i];
	}
	fail("no tracefs: mount it (mount -t tracefs nodev /sys/kernel/tracing)");
	return NULL;
}

/* One write of LINE to uprobe_events; the kernel's refusal, with where to read why. */
static void write_events(const char *line)
{
	const char *dir = tracefs();
	char path[PATH_MAX];
	size_t len = strlen(line);
	int fd;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		fail("%s: %s%s", path, strerror(errno), errno == EACCES ? " (run as root)" : "");
	if (write(fd, line, len) != (ssize_t)len)
		fail("%s refused \"%s\": %s (the reason is in %s/error_log)", path, line,
		     strerror(errno), dir);
	close(fd);
}

/* ---- the verbs ---- */

static int add(int argc, char **argv)
{
	struct definition d = {};
	struct elf_file f = {};
	bool dry_run = false;
	char *words[160], *text, *kind;
	int n = 0, i;
	GElf_Addr base;

	if (argc && !strcmp(argv[0], "--dry-run")) {
		dry_run = true;
		argc--;
		argv++;
	}
	if (!argc) {
		fputs(usage, stderr);
		return 2;
	}
	/* one definition, in one argument or several */
	for (i = 0; i < argc; i++) {
		text = argv[i];
		for (char *w = strtok(text, " \t"); w; w = strtok(NULL, " \t")) {
			if (n == (int)ARRAY_SIZE(words))
				fail("too many words in the definition");
			words[n++] = w;
		}
	}
	kind = words[0];
	if ((kind[0] != 'p' && kind[0] != 'r') || (kind[1] && kind[1] != ':') || n < 2)
		fail("a definition is 'p|r[:[GRP/]EVENT] PATH:FUNC[+OFF][%%return] [FETCHARGS]'");
	append(&d, kind, strlen(kind));
	append(&d, " ", 1);
	base = resolve_place(&d, &f, words[1]);
	for (i = 2; i < n; i++) {
		append(&d, " ", 1);
		resolve_fetcharg(&d, &f, base, words[i]);
	}
	if (!dry_run)
		write_events(d.text);
	puts(d.text);
	free(d.text);
	return 0;
}

static int list(void)
{
	char path[PATH_MAX], buf[4096];
	size_t got;
	FILE *in;

	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs());
	in = fopen(path, "r");
	if (!in)
		fail("%s: %s", path, strerror(errno));
	while ((got = fread(buf, 1, sizeof(buf), in)))
		fwrite(buf, 1, got, stdout);
	fclose(in);
	return 0;
}

static int del(int argc, char **argv)
{
	char line[512];

	if (argc != 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (snprintf(line, sizeof(line), "-:%s", argv[0]) >= (int)sizeof(line))
		fail("event name too long: %s", argv[0]);
	write_events(line);
	return 0;
}

int main(int argc, char **argv)
{
	argc--;
	argv++;
	if (argc >= 2 && !strcmp(argv[0], "--tracefs")) {
		tracefs_dir = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (!argc || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		fputs(usage, argc ? stdout : stderr);
		return argc ? 0 : 2;
	}
	if (!strcmp(argv[0], "add"))
		return add(argc - 1, argv + 1);
	if (!strcmp(argv[0], "list") && argc == 1)
		return list();
	if (!strcmp(argv[0], "del"))
		return del(argc - 1, argv + 1);
	fputs(usage, stderr);
	return 2;
}

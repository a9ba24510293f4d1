// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin that counts the instructions guest A's
 * vCPUs execute, per kernel function, between marks the guest sets.
 *
 * Why instructions: TCG's wall time and CPU time move by 30-50% from one
 * boot to the next on this bed, so they cannot tell what batching costs
 * or saves per packet; the guest's own instruction count can.
 *
 * Buckets: user space, each text symbol of the kernel's System.map (an
 * instruction belongs to the symbol at or below its address; names at
 * one address share a bucket, printed "a,b"), and kernel addresses no
 * text symbol covers (modules, BPF JIT, trampolines: the map's other
 * symbols bound the text ones). A translated block is counted whole each
 * time it starts, split by bucket at translation time (a block may run
 * past the end of a function). An exception in the middle of a block
 * counts the block's tail all the same: counts are exact for straight-line
 * code and may be a few instructions high per fault.
 *
 * Marks: the guest executes "nopl 0x5ab1c001(%rax)" to begin a run and
 * "nopl 0x5ab1c002(%rax)" to end it (insn-count/mark.c; a NOP on any x86
 * CPU). At an end mark the plugin appends one line to out=FILE:
 *   run SEQ total N user N kernel N tx N
 * (instructions since the last begin mark, all vCPUs together; tx sums
 * the functions named in tx=FILE) and the run's nonzero kernel functions
 * to fns=FILE as "SEQ COUNT NAME" lines. The vCPU that executes the mark
 * writes both before the guest goes on, so the guest can read its line
 * from a shared directory right after the mark.
 *
 * Arguments: map=System.map tx=FILE out=FILE [fns=FILE]. The kernel must
 * boot with nokaslr: the map's addresses are taken as they are.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_START	0xffff800000000000ULL
#define MARK_LEN	7
#define MARK_BEGIN	1
#define MARK_END	2

enum { B_USER, B_KERNEL_OTHER, B_FIRST_SYM };

struct sym {
	uint64_t addr;
	char *name;	/* the names at this address, comma-separated */
	int text;
	int tx;
};

/* A translated block's instructions, counted per bucket */
struct tb_part {
	uint32_t bucket;
	uint32_t n;
};

struct tb_parts {
	uint32_t nparts;
	struct tb_part part[];
};

/*
 * The buckets of a kernel block, by its address and length: QEMU
 * retranslates blocks (new processes, a full code cache) and the kernel's
 * text does not move, so each is computed once. Open addressing, grown at
 * half full; user blocks need none (one bucket, B_USER).
 */
struct tb_key {
	uint64_t vaddr;
	size_t n;
	struct tb_parts *parts;
};

static struct tb_key *tb_cache;
static size_t tb_cache_size, tb_cache_used;
static pthread_mutex_t tb_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tb_parts *user_parts[1024];

static struct sym *syms;
static size_t nsyms;
static size_t nbuckets;
static int nvcpus;
/* nvcpus rows of nbuckets counters; each row written by its vCPU only */
static uint64_t *counts;
static uint64_t *base;
static pthread_mutex_t mark_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seq;
static int begun;
static FILE *out, *fns;

/* nopl 0x5ab1c0NN(%rax): opcode, ModRM, then the displacement's bytes */
static const unsigned char mark_insn[MARK_LEN] = {
	0x0f, 0x1f, 0x80, 0x00 /* NN */, 0xc0, 0xb1, 0x5a
};

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "insn-count: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * merge_aliases: one entry per address, its names joined in name order;
 * text and tx if any of the names is
 */
static void merge_aliases(void)
{
	size_t i, j = 0;

	for (i = 0; i < nsyms; i++) {
		struct sym *d = j ? &syms[j - 1] : NULL;
		char *name;

		if (d && d->addr == syms[i].addr) {
			name = malloc(strlen(d->name) + strlen(syms[i].name) + 2);
			if (!name)
				fail("out of memory%s", "");
			sprintf(name, "%s,%s", d->name, syms[i].name);
			free(d->name);
			free(syms[i].name);
			d->name = name;
			d->text |= syms[i].text;
			d->tx |= syms[i].tx;
			continue;
		}
		syms[j++] = syms[i];
	}
	nsyms = j;
}

/*
 * load_map: the kernel symbols of a System.map, sorted by address. The
 * text ones get buckets; the others end the text symbol before them.
 */
static void load_map(const char *path)
{
	size_t cap = 1 << 16;
	char line[512], name[256];
	unsigned long long addr;
	FILE *f;
	char t;

	f = fopen(path, "r");
	if (!f)
		fail("cannot open map %s", path);
	syms = malloc(cap * sizeof(*syms));
	while (syms && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &t, name) != 3)
			fail("not a System.map line: %s", line);
		if (addr < KERNEL_START)
			continue;
		if (nsyms == cap) {
			cap *= 2;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				break;
		}
		syms[nsyms].addr = addr;
		syms[nsyms].name = strdup(name);
		syms[nsyms].text = t == 't' || t == 'T' || t == 'w' || t == 'W';
		syms[nsyms].tx = 0;
		if (!syms[nsyms].name)
			fail("out of memory reading %s", path);
		nsyms++;
	}
	fclose(f);
	if (!syms)
		fail("out of memory reading %s", path);
	if (nsyms < 1000)
		fail("%s has too few kernel text symbols: not a System.map?",
		     path);
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);
}

/*
 * load_tx: mark the functions named in FILE (one per line, # comments, a
 * trailing * for a prefix; NAME also matches GCC's clones NAME.*) as the
 * transmit path. Names the map lacks (inlined, or absent from this
 * kernel) are listed in the out file's header.
 */
static void load_tx(const char *path)
{
	size_t i, found, len;
	char line[256], name[256];
	FILE *f;
	int prefix;

	f = fopen(path, "r");
	if (!f)
		fail("cannot open tx list %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s", name) != 1 || name[0] == '#')
			continue;
		len = strlen(name);
		prefix = name[len - 1] == '*';
		if (prefix)
			len--;
		found = 0;
		for (i = 0; i < nsyms; i++) {
			const char *n = syms[i].name;

			/* GCC's clones (.isra.0, .part.0, .cold) are the
			 * function too
			 */
			if (syms[i].text && !strncmp(n, name, len) &&
			    (prefix || !n[len] || n[len] == '.')) {
				syms[i].tx = 1;
				found++;
			}
		}
		if (!found)
			fprintf(out, "# tx function not in the map: %s\n", name);
	}
	fclose(f);
}

static uint32_t bucket_of(uint64_t vaddr)
{
	size_t lo = 0, hi = nsyms;

	if (vaddr < KERNEL_START)
		return B_USER;
	if (vaddr < syms[0].addr)
		return B_KERNEL_OTHER;
	/* the last symbol at or below vaddr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	/* past a text symbol's end (the map's next symbol is data, or
	 * there is none): modules, JIT, fixmap
	 */
	if (!syms[lo].text || lo == nsyms - 1)
		return B_KERNEL_OTHER;
	return B_FIRST_SYM + lo;
}

static uint64_t *row(unsigned int vcpu)
{
	return counts + (size_t)vcpu * nbuckets;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_parts *p = udata;
	uint64_t *c;
	uint32_t i;

	if (vcpu >= (unsigned int)nvcpus)
		fail("%s", "a vCPU index beyond the maximum");
	c = row(vcpu);
	for (i = 0; i < p->nparts; i++) {
		uint64_t *v = &c[p->part[i].bucket];

		__atomic_store_n(v, *v + p->part[i].n, __ATOMIC_RELAXED);
	}
}

static uint64_t bucket_sum(size_t b)
{
	uint64_t s = 0;
	int v;

	for (v = 0; v < nvcpus; v++)
		s += __atomic_load_n(&row(v)[b], __ATOMIC_RELAXED);
	return s;
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	uint64_t total = 0, kernel = 0, tx = 0, d;
	size_t b;

	pthread_mutex_lock(&mark_lock);
	if ((uintptr_t)udata == MARK_BEGIN) {
		for (b = 0; b < nbuckets; b++)
			base[b] = bucket_sum(b);
		begun = 1;
		goto out;
	}
	if (!begun) {
		fprintf(out, "# end mark without a begin mark\n");
		goto out;
	}
	seq++;
	for (b = 0; b < nbuckets; b++) {
		d = bucket_sum(b) - base[b];
		total += d;
		if (b == B_USER || !d)
			continue;
		kernel += d;
		if (b < B_FIRST_SYM)
			continue;
		tx += syms[b - B_FIRST_SYM].tx ? d : 0;
		if (fns)
			fprintf(fns, "%" PRIu64 " %" PRIu64 " %s\n", seq, d,
				syms[b - B_FIRST_SYM].name);
	}
	if (fns)
		fprintf(fns, "%" PRIu64 " %" PRIu64 " [kernel, no symbol]\n",
			seq, bucket_sum(B_KERNEL_OTHER) - base[B_KERNEL_OTHER]);
	fprintf(out, "run %" PRIu64 " total %" PRIu64 " user %" PRIu64
		" kernel %" PRIu64 " tx %" PRIu64 "\n",
		seq, total, total - kernel, kernel, tx);
	begun = 0;
	if (fns)
		fflush(fns);
out:
	fflush(out);
	pthread_mutex_unlock(&mark_lock);
}

static int mark_kind(const unsigned char *p, size_t len)
{
	if (len != MARK_LEN || memcmp(p, mark_insn, 3) ||
	    memcmp(p + 4, mark_insn + 4, MARK_LEN - 4))
		return 0;
	return p[3] == MARK_BEGIN || p[3] == MARK_END ? p[3] : 0;
}

static struct tb_parts *parts_new(struct qemu_plugin_tb *tb, size_t n)
{
	struct tb_parts *p;
	size_t i;

	p = malloc(sizeof(*p) + n * sizeof(p->part[0]));
	if (!p)
		fail("out of memory%s", "");
	p->nparts = 0;
	for (i = 0; i < n; i++) {
		uint32_t b = bucket_of(qemu_plugin_insn_vaddr(
					qemu_plugin_tb_get_insn(tb, i)));

		if (p->nparts && p->part[p->nparts - 1].bucket == b) {
			p->part[p->nparts - 1].n++;
		} else {
			p->part[p->nparts].bucket = b;
			p->part[p->nparts].n = 1;
			p->nparts++;
		}
	}
	return p;
}

static size_t tb_hash(uint64_t vaddr, size_t n, size_t size)
{
	/* Fibonacci hashing: the product's high bits are the mixed ones */
	return (((vaddr ^ n) * 0x9e3779b97f4a7c15ULL) >> 32) & (size - 1);
}

static void tb_cache_grow(void)
{
	struct tb_key *old = tb_cache;
	size_t i, osize = tb_cache_size;

	tb_cache_size = osize ? 2 * osize : 1 << 16;
	tb_cache = calloc(tb_cache_size, sizeof(*tb_cache));
	if (!tb_cache)
		fail("out of memory%s", "");
	for (i = 0; i < osize; i++) {
		size_t h;

		if (!old[i].parts)
			continue;
		h = tb_hash(old[i].vaddr, old[i].n, tb_cache_size);
		while (tb_cache[h].parts)
			h = (h + 1) & (tb_cache_size - 1);
		tb_cache[h] = old[i];
	}
	free(old);
}

/* parts_of: the buckets of a block, computed once per address and length */
static struct tb_parts *parts_of(struct qemu_plugin_tb *tb, size_t n)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct tb_parts *p;
	size_t h;

	if (vaddr < KERNEL_START && n < sizeof(user_parts) / sizeof(user_parts[0])) {
		pthread_mutex_lock(&tb_cache_lock);
		if (!user_parts[n])
			user_parts[n] = parts_new(tb, n);
		p = user_parts[n];
		pthread_mutex_unlock(&tb_cache_lock);
		return p;
	}
	pthread_mutex_lock(&tb_cache_lock);
	if (2 * (tb_cache_used + 1) > tb_cache_size)
		tb_cache_grow();
	h = tb_hash(vaddr, n, tb_cache_size);
	while (tb_cache[h].parts &&
	       (tb_cache[h].vaddr != vaddr || tb_cache[h].n != n))
		h = (h + 1) & (tb_cache_size - 1);
	if (!tb_cache[h].parts) {
		tb_cache[h].vaddr = vaddr;
		tb_cache[h].n = n;
		tb_cache[h].parts = parts_new(tb, n);
		tb_cache_used++;
	}
	p = tb_cache[h].parts;
	pthread_mutex_unlock(&tb_cache_lock);
	return p;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int kind = mark_kind(qemu_plugin_insn_data(insn),
				     qemu_plugin_insn_size(insn));

		if (kind)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)kind);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     parts_of(tb, n));
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL, *txf = NULL, *outf = NULL, *fnsf = NULL;
	int i;

	if (!info->system_emulation)
		fail("%s", "system emulation only");
	for (i = 0; i < argc; i++) {
		char *v = strchr(argv[i], '=');

		if (!v)
			fail("argument %s is not key=value", argv[i]);
		*v++ = '\0';
		if (!strcmp(argv[i], "map"))
			map = v;
		else if (!strcmp(argv[i], "tx"))
			txf = v;
		else if (!strcmp(argv[i], "out"))
			outf = v;
		else if (!strcmp(argv[i], "fns"))
			fnsf = v;
		else
			fail("unknown argument %s (map, tx, out, fns)", argv[i]);
	}
	if (!map || !txf || !outf)
		fail("%s", "needs map=System.map tx=FILE out=FILE");
	out = fopen(outf, "a");
	if (!out)
		fail("cannot write %s", outf);
	if (fnsf) {
		fns = fopen(fnsf, "a");
		if (!fns)
			fail("cannot write %s", fnsf);
	}
	load_map(map);
	load_tx(txf);
	merge_aliases();
	nvcpus = info->system.max_vcpus;
	nbuckets = B_FIRST_SYM + nsyms;
	counts = calloc((size_t)nvcpus * nbuckets, sizeof(*counts));
	base = calloc(nbuckets, sizeof(*base));
	if (!counts || !base)
		fail("out of memory%s", "");
	fprintf(out, "# insn-count: %zu kernel symbol addresses from %s, %d vCPUs\n",
		nsyms, map, nvcpus);
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}

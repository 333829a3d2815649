// SPDX-License-Identifier: GPL-2.0
/*
 * Machine files of the virtual-time machine (machines/NAME.conf).  One
 * setting a line, `key value`, '#' starts a comment line.  Every latency
 * and cost is `key value | source`: the number's public source (or how it
 * was measured) is part of the file and required.
 *
 *	name            e5-2690v3-2s
 *	desc            2x Xeon E5-2690 v3 ...
 *	sockets         2
 *	l3_per_socket   1       (CCXs per socket on AMD)
 *	cores_per_l3    12
 *	smt             1       (hardware threads per core: 1 or 2)
 *	lat.smt|l3|socket|remote  NS | SOURCE   one line transfer at that distance
 *	cost.hit|rmw|mem|block|pause NS | SOURCE
 *	line.order      fifo|far-first|near-first | SOURCE   (optional, default
 *	                fifo) which queued request of a contended line goes next
 *	syscall         NS | SOURCE   (optional) the rest of pread(2) for refcount-scale
 *	l1d.lat         NS | SOURCE   (optional, with the hierarchy) an L1 hit's load-to-use
 *	                latency, paid by a load whose address a recent load produced
 *	tlb.flush       NS | SOURCE   (optional) a TLB flush of a few user pages, waited
 *	                for (reclaim-large's --tlb-flush-ns auto)
 *	tlb.tlbi        NS | SOURCE   (optional) an arm64 TLBI issued without waiting
 *	                (reclaim-large's --tlbi-ns auto)
 *	sched.wake      NS | SOURCE   (optional) from a wake-up to the woken task running:
 *	                what a sleeper woken by a release write waits (default: one transfer)
 *	rmw.overlap     yes|no|SHARE | SOURCE   (optional, default no) a locked RMW on a line
 *	                the CPU holds completes beside the code after it; SHARE (0..1): it
 *	                stalls the CPU, and that share of the code up to the next event ran
 *	                under it (at most cost.rmw of it)
 *	rmw.drain       yes|no | SOURCE   (optional, default the opposite of rmw.overlap)
 *	                a locked RMW waits for the misses in flight before it
 *	core.sb         N | SOURCE   (optional, with the hierarchy) store-buffer entries a
 *	                core has: a store that misses waits there, the core goes on
 *	core.mispredict NS | SOURCE  (optional) a mispredicted branch's refill: each CPU
 *	                predicts the kernel model's branches (vt_bpred.c)
 *	core.insn       NS | SOURCE  (optional) a cycle over the instructions the core
 *	                dispatches a cycle: a basic block costs the larger of cost.block
 *	                and its instructions times this
 *	core.fall       yes|no | SOURCE  (optional, with core.insn, default no) a block
 *	                fallen into from the one before costs its instructions alone:
 *	                cost.block is then the front end's taken-branch rate
 *	pf.span         KIB | SOURCE (optional, with the hierarchy, default 4) how far a
 *	                prefetch stream may run: 4, it stops at each 4 KiB page
 *	pf.stride       BYTES | SOURCE (optional, with the hierarchy) the largest stride
 *	                a core's per-instruction stride prefetcher follows
 *	pf.ahead        N | SOURCE   (optional, with pf.stride, default 1) how many
 *	                strides ahead of a load it fetches
 *	mem.first_touch NS | SOURCE  (optional, with mem.backing) the first write to a
 *	                page of RAM nothing beneath the machine has backed yet: a
 *	                guest's EPT violation and host fault, its zeroing left out
 *	                (migrate-fork's --first-touch-ns machine)
 *	mem.backing     4K|2M | SOURCE  (with mem.first_touch) the page one such
 *	                touch backs (migrate-fork's --host-page machine)
 *	calibrated      yes|no  (optional, default yes)
 *	seed.EXPERIMENT.VARIANT[.COUNTER]  POINT:VALUE|POINT:LO..HI ... | SOURCE
 *	                (optional, repeatable) a seed's measurements on this machine,
 *	                of the metric or of COUNTER, at each value of the experiment's
 *	                point axis, for reports only
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <machine/vt.h>

#define VT_FILE_MAX	(1 << 20)	/* bytes a machine file may have */
#define VT_LINE_MAX	1023		/* bytes a line may have */
#define VT_MAX_KEYS	128

static int fail(char *err, size_t len, const char *path, int line, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, len, "machine file %s, line %d: %s", path, line, why);
	else
		snprintf(err, len, "machine file %s: %s", path, why);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_int(const char *v, int lo, int hi, int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < lo || x > hi)
		return -1;
	*out = (int)x;
	return 0;
}

/*
 * "NS | SOURCE": the number into @ns, the source into @src.  A value that is
 * not a number, or is out of @lo..@hi, gets @bad in *@why.
 */
static int parse_sourced_in(char *v, double *ns, char *src, double lo, double hi, const char *bad,
			    const char **why)
{
	char *bar = strchr(v, '|'), *end, *num;

	if (!bar) {
		*why = "needs 'NS | SOURCE' (every number names its source)";
		return -1;
	}
	*bar = '\0';
	num = trim(v);
	errno = 0;
	*ns = strtod(num, &end);
	if (!*num || *end || errno || !isfinite(*ns) || *ns < lo || *ns > hi) {
		*why = bad;
		return -1;
	}
	snprintf(src, VT_SRC_LEN, "%s", trim(bar + 1));
	if (!src[0]) {
		*why = "empty SOURCE";
		return -1;
	}
	return 0;
}

static int parse_sourced(char *v, double *ns, char *src, const char **why)
{
	return parse_sourced_in(v, ns, src, 0, 1e6, "NS is not a number in 0..1000000", why);
}

/* "N | SOURCE" with N an integer in @lo..@hi into *@out; else *@why says @range. */
static void parse_sourced_int(char *v, int *out, char *src, int lo, int hi, const char *range,
			      const char **why)
{
	double n;

	if (parse_sourced(v, &n, src, why))
		return;
	if (n != floor(n) || n < lo || n > hi)
		*why = range;
	else
		*out = (int)n;
}

/*
 * "WORD | SOURCE" with WORD one of the @n @words: its index into *@which and
 * the source into @src; else *@why says @need (no source) or @valid.
 */
static int parse_sourced_word(char *v, const char *const *words, int n, int *which, char *src,
			      const char *need, const char *valid, const char **why)
{
	char *bar = strchr(v, '|'), *word;
	int k;

	if (!bar || !*trim(bar + 1)) {
		*why = need;
		return -1;
	}
	*bar = '\0';
	word = trim(v);
	for (k = 0; k < n && strcmp(word, words[k]); k++)
		;
	if (k == n) {
		*why = valid;
		return -1;
	}
	*which = k;
	snprintf(src, VT_SRC_LEN, "%s", trim(bar + 1));
	return 0;
}

/* "fifo|far-first|near-first | SOURCE" into m->line_order. */
static int parse_order(struct vt_machine *m, char *v, const char **why)
{
	int k;

	if (parse_sourced_word(v, vt_order_names, VT_NR_ORDER, &k, m->line_order_src,
			       "needs 'fifo|far-first|near-first | SOURCE' (every setting names its source)",
			       "valid: fifo, far-first, near-first", why))
		return -1;
	m->line_order = k;
	return 0;
}

/*
 * rmw.overlap: "yes|no | SOURCE", or "F | SOURCE", the share of the code
 * after a locked RMW that runs under it, F in 0..1.
 */
static int parse_overlap(char *v, struct vt_machine *m, const char **why)
{
	static const char range[] = "valid: yes, no, or the share of the code after it that runs under "
				    "it, 0..1";
	char *bar = strchr(v, '|'), *word, *end;
	double f;

	if (!bar || !*trim(bar + 1)) {
		*why = "needs 'yes|no|SHARE | SOURCE' (every setting names its source)";
		return -1;
	}
	*bar = '\0';
	word = trim(v);
	m->rmw_hide_given = false;
	if (!strcmp(word, "yes") || !strcmp(word, "no")) {
		m->rmw_overlap = !strcmp(word, "yes");
	} else {
		errno = 0;
		f = strtod(word, &end);
		if (end == word || *end || errno || !(f >= 0 && f <= 1)) {
			*why = range;
			return -1;
		}
		m->rmw_hide = f;
		m->rmw_hide_given = true;
		m->rmw_overlap = f > 0.5;
	}
	snprintf(m->rmw_overlap_src, VT_SRC_LEN, "%s", trim(bar + 1));
	return 0;
}

/* "yes|no | SOURCE" into *@yes and @src (rmw.drain). */
static int parse_yes_no(char *v, bool *yes, char *src, const char **why)
{
	static const char *const words[] = { "no", "yes" };
	int k;

	if (parse_sourced_word(v, words, 2, &k, src, "needs 'yes|no | SOURCE' (every setting names its source)",
			       "valid: yes, no", why))
		return -1;
	*yes = k == 1;
	return 0;
}

/* mem.backing: "4K|2M | SOURCE" into m->backing_order and its source. */
static int parse_backing(struct vt_machine *m, char *v, const char **why)
{
	static const char *const words[] = { "4K", "2M" };
	int k;

	if (parse_sourced_word(v, words, 2, &k, m->backing_src,
			       "needs '4K|2M | SOURCE' (every setting names its source)",
			       "valid: 4K, 2M (the page one first touch backs)", why))
		return -1;
	m->backing_order = k ? 9 : 0;
	return 0;
}

/* "F | SOURCE" into m->line_window, F in 0..VT_WINDOW_MAX. */
static int parse_window(struct vt_machine *m, char *v, const char **why)
{
	double f;

	if (parse_sourced(v, &f, m->line_window_src, why)) {
		*why = "needs 'F | SOURCE', F a fraction of a transfer in 0..2 (every setting names its source)";
		return -1;
	}
	if (f > VT_WINDOW_MAX) {
		*why = "F is a fraction of a transfer in 0..2";
		return -1;
	}
	m->line_window = f;
	return 0;
}

/* A change series (VT_SEED_CHANGE): its values are signed. */
static bool seed_is_change(const char *counter)
{
	return !strcmp(counter, VT_SEED_CHANGE) || !strncmp(counter, VT_SEED_CHANGE_OVER,
							     strlen(VT_SEED_CHANGE_OVER));
}

/* "seed.EXPERIMENT.VARIANT[.COUNTER]" and "P:V P:LO..HI ... | SOURCE" into the next series. */
static int parse_seed(struct vt_machine *m, const char *key, char *v, const char **why)
{
	const char *exp = key + 5, *dot = strchr(exp, '.'), *var, *dot2;
	struct vt_seed_series *s;
	char *bar = strchr(v, '|'), *tok, *save;
	bool change;

	if (m->nr_seed == VT_MAX_SEED_SERIES) {
		*why = "too many seed series (at most 8)";
		return -1;
	}
	s = &m->seed[m->nr_seed];
	memset(s, 0, sizeof(*s));
	var = dot ? dot + 1 : NULL;
	dot2 = var ? strchr(var, '.') : NULL;
	if (!dot || dot == exp || !*var || dot2 == var || (dot2 && !dot2[1]) ||
	    dot - exp >= (long)sizeof(s->experiment) ||
	    (dot2 ? dot2 - var : (long)strlen(var)) >= (long)sizeof(s->variant) ||
	    (dot2 && strlen(dot2 + 1) >= sizeof(s->counter)) || (dot2 && strchr(dot2 + 1, '.'))) {
		*why = "a seed series is named seed.EXPERIMENT.VARIANT or seed.EXPERIMENT.VARIANT.COUNTER "
		       "(COUNTER at most 47 characters)";
		return -1;
	}
	if (dot2 && !strcmp(dot2 + 1, VT_SEED_CHANGE_OVER)) {
		*why = "a change over another variant is change_pct_over_VARIANT, VARIANT not empty";
		return -1;
	}
	if (!bar || !*trim(bar + 1)) {
		*why = "needs 'POINT:VALUE ... | SOURCE' (every number names its source)";
		return -1;
	}
	*bar = '\0';
	snprintf(s->experiment, sizeof(s->experiment), "%.*s", (int)(dot - exp), exp);
	snprintf(s->variant, sizeof(s->variant), "%.*s", (int)(dot2 ? dot2 - var : (long)strlen(var)), var);
	if (dot2)
		snprintf(s->counter, sizeof(s->counter), "%s", dot2 + 1);
	change = seed_is_change(s->counter);
	snprintf(s->src, sizeof(s->src), "%s", trim(bar + 1));
	for (tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(tok, ':'), *range, *end;
		double lo, hi;

		if (s->nr == VT_MAX_SEED_POINTS) {
			*why = "too many points in a seed series (at most 32)";
			return -1;
		}
		if (!colon) {
			*why = "a seed point is POINT:VALUE or POINT:LO..HI";
			return -1;
		}
		*colon = '\0';
		range = strstr(colon + 1, "..");
		if (range)
			*range = '\0';
		errno = 0;
		lo = strtod(colon + 1, &end);
		if (!*end && range) {
			hi = strtod(range + 2, &end);
		} else {
			hi = lo;
		}
		if (!*tok || strlen(tok) >= sizeof(s->point[0]) || !colon[1] || *end ||
		    (range && !range[2]) || errno || !isfinite(lo) || !isfinite(hi) ||
		    (lo < 0 && !change) || hi < lo) {
			*why = change ? "a seed point is POINT:VALUE or POINT:LO..HI, POINT the experiment's "
					"point (at most 47 characters), LO <= HI, a change in per cent"
				      : "a seed point is POINT:VALUE or POINT:LO..HI, POINT the experiment's "
					"point (at most 47 characters), 0 <= LO <= HI";
			return -1;
		}
		snprintf(s->point[s->nr], sizeof(s->point[0]), "%s", tok);
		s->lo[s->nr] = lo;
		s->hi[s->nr++] = hi;
	}
	if (!s->nr) {
		*why = "a seed series needs at least one POINT:VALUE";
		return -1;
	}
	m->nr_seed++;
	return 0;
}

static int hier_key(const char *key)
{
	for (int k = 0; k < VT_NR_HIER; k++)
		if (!strcmp(key, vt_hier_keys[k].name))
			return k;
	return -1;
}

/* NULL if @v is a valid value of @hk, else why not (a static buffer). */
static const char *hier_check(const struct vt_hier_key *hk, double v)
{
	static char why[160];

	if (v >= hk->lo && v <= hk->hi && (!hk->integer || v == (long)v))
		return NULL;
	snprintf(why, sizeof(why), "%s (%s) is %s in %.10g..%.10g", hk->name, hk->what,
		 hk->integer ? "an integer" : "a number", hk->lo, hk->hi);
	return why;
}

/*
 * "N | SOURCE" of hierarchy key @k into @m: a value that is not a number,
 * or one out of the key's range (l3.size's reaches past the 1000000 of
 * other settings), gets the key's own range in *@why.
 */
static void parse_hier(struct vt_machine *m, int k, char *v, const char **why)
{
	const struct vt_hier_key *hk = &vt_hier_keys[k];
	double n;

	if (!parse_sourced_in(v, &n, m->hier_src[k], hk->lo, hk->hi, hier_check(hk, NAN), why) &&
	    !(*why = hier_check(hk, n)))	/* the range held: is it an integer where it must be? */
		m->hier_val[k] = n;
}

bool vt_whole_sets(double kib, double ways)
{
	double lines = kib * 1024 / 64;

	return lines >= ways && lines / ways == (long)(lines / ways);
}

/*
 * The hierarchy's settings come all together (m->hier) or not at all (the
 * coherence model alone, every other access free): 0, or -1 with @err.
 */
static int hier_complete(struct vt_machine *m, const bool *have, const char *path,
			 char *err, size_t len)
{
	static const int sizes[][2] = {
		{ VT_H_L1D_SIZE, VT_H_L1D_WAYS }, { VT_H_L2_SIZE, VT_H_L2_WAYS },
		{ VT_H_L3_SIZE, VT_H_L3_WAYS },
	};
	int given = 0;

	for (int k = 0; k < VT_NR_HIER; k++)
		given += have[k];
	if (!given)
		return 0;
	for (int k = 0; k < VT_NR_HIER; k++)
		if (!have[k])
			return fail(err, len, path, 0, "no '%s N | SOURCE' (%s): the memory hierarchy's "
				    "settings come all together or not at all", vt_hier_keys[k].name,
				    vt_hier_keys[k].what);
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!vt_whole_sets(m->hier_val[sizes[i][0]], m->hier_val[sizes[i][1]]))
			return fail(err, len, path, 0, "%s %g KiB with %s %g is not a whole number of "
				    "64-byte sets", vt_hier_keys[sizes[i][0]].name, m->hier_val[sizes[i][0]],
				    vt_hier_keys[sizes[i][1]].name, m->hier_val[sizes[i][1]]);
	m->hier = true;
	return 0;
}

/* @in with its non-printable bytes as \xNN, into @out (at most @n bytes). */
static const char *escaped(char *out, size_t n, const char *in)
{
	size_t o = 0;

	for (; *in && o + 5 < n; in++) {
		unsigned char c = (unsigned char)*in;

		if (c < 0x20 || c >= 0x7f)
			o += snprintf(out + o, n - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return out;
}

/* The first byte of @line that no text file has (a control byte other than tab), or -1. */
static int binary_byte(const char *line, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
			return c;
	}
	return -1;
}

/* @path is a regular file of at most VT_FILE_MAX bytes: its stream, or NULL with @err. */
static FILE *machine_open(const char *path, char *err, size_t len)
{
	struct stat st;
	FILE *f;

	if (stat(path, &st)) {
		fail(err, len, path, 0, "%s", strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		fail(err, len, path, 0, "is a directory; valid: a machine file (machines/NAME.conf)");
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(err, len, path, 0, "not a regular file (a FIFO, a device or a socket); valid: a machine file");
		return NULL;
	}
	if (st.st_size > VT_FILE_MAX) {
		fail(err, len, path, 0, "%lld bytes, more than a machine file's %d", (long long)st.st_size,
		     VT_FILE_MAX);
		return NULL;
	}
	if (!(f = fopen(path, "r")))
		fail(err, len, path, 0, "%s", strerror(errno));
	return f;
}

/* A key seen before at a line (repeated keys are refused): 0, or the earlier line. */
struct seen_key {
	char key[64];
	int line;
};

static int seen_before(struct seen_key *seen, int *nr, const char *key, int line)
{
	for (int i = 0; i < *nr; i++)
		if (!strcmp(seen[i].key, key))
			return seen[i].line;
	if (*nr < VT_MAX_KEYS) {
		snprintf(seen[*nr].key, sizeof(seen[*nr].key), "%s", key);
		seen[(*nr)++].line = line;
	}
	return 0;
}

int vt_machine_load(struct vt_machine *m, const char *path, char *err, size_t len)
{
	bool have_lat[VT_NR_DIST] = { 0 }, have_cost[VT_NR_COST] = { 0 }, have_hier[VT_NR_HIER] = { 0 };
	struct seen_key seen[VT_MAX_KEYS];
	int lineno = 0, nr_seen = 0;
	char buf[VT_LINE_MAX + 2], esc[160];
	FILE *f = machine_open(path, err, len);

	if (!f)
		return -1;
	memset(m, 0, sizeof(*m));
	m->calibrated = true;
	snprintf(m->line_order_src, VT_SRC_LEN, "the default");
	m->line_window = VT_WINDOW_DEFAULT;
	snprintf(m->line_window_src, VT_SRC_LEN, "the default");
	m->tlb_flush_ns = -1;
	m->tlbi_ns = -1;
	m->first_touch_ns = -1;
	while (fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(buf);
		char *line, *key, *val;
		const char *why = NULL;
		int bad;
		int k, prev;

		lineno++;
		if (n == sizeof(buf) - 1 && buf[n - 1] != '\n') {
			fclose(f);
			return fail(err, len, path, lineno, "longer than %d bytes", VT_LINE_MAX);
		}
		if (lineno == 1 && !strncmp(buf, "\xef\xbb\xbf", 3))
			memmove(buf, buf + 3, (n -= 3) + 1);	/* a UTF-8 byte order mark */
		if ((bad = binary_byte(buf, n)) >= 0) {
			fclose(f);
			return fail(err, len, path, lineno, "byte 0x%02x: not a text file", bad);
		}
		line = trim(buf);
		if (!*line || *line == '#')
			continue;
		key = line;
		val = key + strcspn(key, " \t");
		if (*val)
			*val++ = '\0';
		val = trim(val);
		if ((prev = seen_before(seen, &nr_seen, key, lineno))) {
			fclose(f);
			return fail(err, len, path, lineno, "'%s' given twice, on lines %d and %d",
				    escaped(esc, sizeof(esc), key), prev, lineno);
		}
		if (!strcmp(key, "name")) {
			if (strlen(val) >= sizeof(m->name))
				why = "name: at most 63 characters";
			else
				snprintf(m->name, sizeof(m->name), "%s", val);
		} else if (!strcmp(key, "desc")) {
			snprintf(m->desc, sizeof(m->desc), "%s", val);
		} else if (!strcmp(key, "sockets")) {
			if (parse_int(val, 1, 8, &m->sockets))
				why = "sockets: an integer in 1..8";
		} else if (!strcmp(key, "l3_per_socket")) {
			if (parse_int(val, 1, 64, &m->l3_per_socket))
				why = "l3_per_socket: an integer in 1..64";
		} else if (!strcmp(key, "cores_per_l3")) {
			if (parse_int(val, 1, 256, &m->cores_per_l3))
				why = "cores_per_l3: an integer in 1..256";
		} else if (!strcmp(key, "smt")) {
			if (parse_int(val, 1, 2, &m->smt))
				why = "smt: 1 or 2";
		} else if (!strcmp(key, "calibrated")) {
			if (!strcmp(val, "yes") || !strcmp(val, "no"))
				m->calibrated = !strcmp(val, "yes");
			else
				why = "calibrated: yes or no";
		} else if (!strcmp(key, "line.order")) {
			parse_order(m, val, &why);
		} else if (!strcmp(key, "line.window")) {
			parse_window(m, val, &why);
		} else if (!strcmp(key, "syscall")) {
			parse_sourced(val, &m->syscall_ns, m->syscall_src, &why);
		} else if (!strcmp(key, "l1d.lat")) {
			if (!parse_sourced(val, &m->l1_lat_ns, m->l1_lat_src, &why) &&
			    (m->l1_lat_ns < 0.01 || m->l1_lat_ns > 100))
				why = "NS out of range; valid: 0.01..100 (an L1 hit's load-to-use latency)";
		} else if (!strcmp(key, "tlb.flush")) {
			if (!parse_sourced(val, &m->tlb_flush_ns, m->tlb_flush_src, &why) &&
			    (m->tlb_flush_ns < 0 || m->tlb_flush_ns > 1000000))
				why = "NS out of range; valid: 0..1000000 (a TLB flush waited for)";
		} else if (!strcmp(key, "tlb.tlbi")) {
			if (!parse_sourced(val, &m->tlbi_ns, m->tlbi_src, &why) &&
			    (m->tlbi_ns < 0 || m->tlbi_ns > 100000))
				why = "NS out of range; valid: 0..100000 (a TLBI issued without waiting)";
		} else if (!strcmp(key, "sched.wake")) {
			if (!parse_sourced(val, &m->wake_ns, m->wake_src, &why) &&
			    (m->wake_ns < 0 || m->wake_ns > 1000000))
				why = "NS out of range; valid: 0..1000000 (a wake-up until the woken task runs)";
		} else if (!strcmp(key, "rmw.overlap")) {
			parse_overlap(val, m, &why);
		} else if (!strcmp(key, "rmw.drain")) {
			parse_yes_no(val, &m->rmw_drain, m->rmw_drain_src, &why);
		} else if (!strcmp(key, "pf.span")) {
			double n;

			if (!parse_sourced(val, &n, m->pf_span_src, &why)) {
				if (n != floor(n) || n < 4 || n > 4096 || ((long)n & ((long)n - 1)))
					why = "KIB out of range; valid: a power of two in 4..4096 (KiB a prefetch stream may run through)";
				else
					m->pf_span_kib = (int)n;
			}
		} else if (!strcmp(key, "pf.stride")) {
			parse_sourced_int(val, &m->pf_stride, m->pf_stride_src, 128, 8192, "BYTES out of range; "
					  "valid: an integer in 128..8192 (the largest stride followed)", &why);
		} else if (!strcmp(key, "pf.ahead")) {
			parse_sourced_int(val, &m->pf_ahead, m->pf_ahead_src, 1, 64, "N out of range; valid: an "
					  "integer in 1..64 (strides fetched ahead)", &why);
		} else if (!strcmp(key, "core.mispredict")) {
			parse_sourced_in(val, &m->mispredict_ns, m->mispredict_src, 0.01, 100,
					 "NS out of range; valid: 0.01..100 (a mispredicted branch's refill)", &why);
		} else if (!strcmp(key, "core.insn")) {
			parse_sourced_in(val, &m->insn_ns, m->insn_src, 0.001, 10,
					 "NS out of range; valid: 0.001..10 (a cycle over the instructions dispatched a cycle)", &why);
		} else if (!strcmp(key, "core.fall")) {
			parse_yes_no(val, &m->fall, m->fall_src, &why);
		} else if (!strcmp(key, "mem.first_touch")) {
			parse_sourced_in(val, &m->first_touch_ns, m->first_touch_src, 0, 10000000,
					 "NS out of range; valid: 0..10000000 (a first touch's fault path)", &why);
		} else if (!strcmp(key, "mem.backing")) {
			parse_backing(m, val, &why);
		} else if (!strcmp(key, "core.sb")) {
			parse_sourced_int(val, &m->sb_entries, m->sb_src, 1, 1024, "N out of range; valid: an "
					  "integer in 1..1024 (store-buffer entries a core)", &why);
		} else if (!strncmp(key, "lat.", 4)) {
			for (k = 0; k < VT_NR_DIST && strcmp(key + 4, vt_dist_names[k]); k++)
				;
			if (k == VT_NR_DIST)
				why = "unknown latency; valid: lat.smt, lat.l3, lat.socket, lat.remote";
			else if (!parse_sourced(val, &m->lat_ns[k], m->lat_src[k], &why))
				have_lat[k] = true;
		} else if ((k = hier_key(key)) >= 0) {
			parse_hier(m, k, val, &why);
			have_hier[k] = !why;
		} else if (!strncmp(key, "seed.", 5)) {
			parse_seed(m, key, val, &why);
		} else if (!strncmp(key, "cost.", 5)) {
			for (k = 0; k < VT_NR_COST && strcmp(key + 5, vt_cost_names[k]); k++)
				;
			if (k == VT_NR_COST && !strcmp(key, "cost.gap"))
				why = "cost.gap (per event) is now cost.block: NS per basic block of plain code";
			else if (k == VT_NR_COST)
				why = "unknown cost; valid: cost.hit, cost.rmw, cost.mem, cost.block, cost.pause";
			else if (!parse_sourced(val, &m->cost_ns[k], m->cost_src[k], &why))
				have_cost[k] = true;
		} else {
			why = "unknown key; valid: name, desc, sockets, l3_per_socket, cores_per_l3, smt, "
			      "lat.*, cost.*, l1d.*, l2.*, l3.*, mem.remote, core.*, pf.degree, smt.share, "
			      "line.order, line.window, syscall, l1d.lat, tlb.flush, tlb.tlbi, sched.wake, rmw.overlap, rmw.drain, core.sb, core.mispredict, core.insn, core.fall, pf.span, pf.stride, pf.ahead, "
			      "mem.first_touch, mem.backing, calibrated, seed.*";
		}
		if (why) {
			fclose(f);
			return fail(err, len, path, lineno, "'%s': %s", escaped(esc, sizeof(esc), key), why);
		}
	}
	fclose(f);
	if (!m->name[0])
		return fail(err, len, path, 0, "no 'name'");
	if (!m->sockets || !m->l3_per_socket || !m->cores_per_l3 || !m->smt)
		return fail(err, len, path, 0, "needs sockets, l3_per_socket, cores_per_l3 and smt");
	for (int k = 0; k < VT_NR_DIST; k++)
		if (!have_lat[k])
			return fail(err, len, path, 0, "no 'lat.%s NS | SOURCE'", vt_dist_names[k]);
	for (int k = 0; k < VT_NR_COST; k++)
		if (!have_cost[k])
			return fail(err, len, path, 0, "no 'cost.%s NS | SOURCE'", vt_cost_names[k]);
	if (m->cost_ns[VT_C_BLOCK] < VT_MIN_BLOCK_NS)
		return fail(err, len, path, 0, "cost.block %g: a basic block must cost time, or a timed "
			    "loop never ends; valid: %g..1000000 ns", m->cost_ns[VT_C_BLOCK], VT_MIN_BLOCK_NS);
	if (hier_complete(m, have_hier, path, err, len))
		return -1;
	if (m->l1_lat_ns > 0 && !m->hier)
		return fail(err, len, path, 0, "l1d.lat needs the memory hierarchy's settings (l1d.size and the rest)");
	if (m->pf_span_kib > 0 && !m->hier)
		return fail(err, len, path, 0, "pf.span needs the memory hierarchy's settings (l1d.size and the rest)");
	if (m->sb_entries > 0 && !m->hier)
		return fail(err, len, path, 0, "core.sb needs the memory hierarchy's settings (l1d.size and the rest)");
	if (m->pf_stride > 0 && !m->hier)
		return fail(err, len, path, 0, "pf.stride needs the memory hierarchy's settings (l1d.size and the rest)");
	if (m->pf_ahead > 0 && !m->pf_stride)
		return fail(err, len, path, 0, "pf.ahead needs pf.stride (the stride prefetcher it sets the distance of)");
	if (m->fall_src[0] && !(m->insn_ns > 0))
		return fail(err, len, path, 0, "core.fall needs core.insn (the instructions a block falling through costs)");
	if ((m->first_touch_ns >= 0) != (m->backing_src[0] != '\0'))
		return fail(err, len, path, 0, "mem.first_touch and mem.backing go together: %s without %s",
			    m->first_touch_ns >= 0 ? "mem.first_touch" : "mem.backing",
			    m->first_touch_ns >= 0 ? "mem.backing 4K|2M | SOURCE" : "mem.first_touch NS | SOURCE");
	if (!m->rmw_drain_src[0])	/* not given: as rmw.overlap says */
		m->rmw_drain = !m->rmw_overlap;
	m->nr_cpus = m->sockets * m->l3_per_socket * m->cores_per_l3 * m->smt;
	if (m->nr_cpus > VT_MAX_CPUS)
		return fail(err, len, path, 0, "%d CPUs, more than the %d a simulated machine may have",
			    m->nr_cpus, VT_MAX_CPUS);
	return 0;
}

/* A source that says its number was fitted to a result: "fit: ...". */
static bool is_fit(const char *src)
{
	return !strncmp(src, "fit:", 4);
}

static int add_fitted(char *buf, size_t len, size_t *at, const char *key, double v, const char *src)
{
	int n;

	if (!is_fit(src))
		return 0;
	n = snprintf(buf + *at, len - *at, "%s%s %g (%s)", *at ? "; " : "", key, v, src + 4 + (src[4] == ' '));
	*at += n > 0 && (size_t)n < len - *at ? (size_t)n : 0;
	return 1;
}

int vt_machine_fitted(const struct vt_machine *m, char *buf, size_t len)
{
	char key[32];
	size_t at = 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	for (int k = 0; k < VT_NR_DIST; k++) {
		snprintf(key, sizeof(key), "lat.%s", vt_dist_names[k]);
		n += add_fitted(buf, len, &at, key, m->lat_ns[k], m->lat_src[k]);
	}
	for (int k = 0; k < VT_NR_COST; k++) {
		snprintf(key, sizeof(key), "cost.%s", vt_cost_names[k]);
		n += add_fitted(buf, len, &at, key, m->cost_ns[k], m->cost_src[k]);
	}
	for (int k = 0; m->hier && k < VT_NR_HIER; k++)
		n += add_fitted(buf, len, &at, vt_hier_keys[k].name, m->hier_val[k], m->hier_src[k]);
	if (m->syscall_ns > 0)
		n += add_fitted(buf, len, &at, "syscall", m->syscall_ns, m->syscall_src);
	if (m->l1_lat_ns > 0)
		n += add_fitted(buf, len, &at, "l1d.lat", m->l1_lat_ns, m->l1_lat_src);
	if (m->tlb_flush_ns >= 0)
		n += add_fitted(buf, len, &at, "tlb.flush", m->tlb_flush_ns, m->tlb_flush_src);
	if (m->tlbi_ns >= 0)
		n += add_fitted(buf, len, &at, "tlb.tlbi", m->tlbi_ns, m->tlbi_src);
	if (m->wake_ns > 0)
		n += add_fitted(buf, len, &at, "sched.wake", m->wake_ns, m->wake_src);
	if (m->rmw_overlap_src[0])
		n += add_fitted(buf, len, &at, "rmw.overlap", m->rmw_hide_given ? m->rmw_hide : m->rmw_overlap,
				m->rmw_overlap_src);
	if (m->rmw_drain_src[0])
		n += add_fitted(buf, len, &at, "rmw.drain", m->rmw_drain, m->rmw_drain_src);
	if (m->sb_entries > 0)
		n += add_fitted(buf, len, &at, "core.sb", m->sb_entries, m->sb_src);
	if (m->mispredict_ns > 0)
		n += add_fitted(buf, len, &at, "core.mispredict", m->mispredict_ns, m->mispredict_src);
	if (m->insn_ns > 0)
		n += add_fitted(buf, len, &at, "core.insn", m->insn_ns, m->insn_src);
	if (m->fall_src[0])
		n += add_fitted(buf, len, &at, "core.fall", m->fall, m->fall_src);
	if (m->pf_span_kib > 0)
		n += add_fitted(buf, len, &at, "pf.span", m->pf_span_kib, m->pf_span_src);
	if (m->pf_stride > 0)
		n += add_fitted(buf, len, &at, "pf.stride", m->pf_stride, m->pf_stride_src);
	if (m->pf_ahead > 0)
		n += add_fitted(buf, len, &at, "pf.ahead", m->pf_ahead, m->pf_ahead_src);
	if (m->first_touch_ns >= 0)
		n += add_fitted(buf, len, &at, "mem.first_touch", m->first_touch_ns, m->first_touch_src);
	return n;
}

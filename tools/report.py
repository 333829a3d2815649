#!/usr/bin/env python3
"""Turn one run's results into a report.

    tools/report.py results/<run-id>

Reads every <experiment>.json that `mmlab run --json` wrote there and
writes report.md (per experiment: seed, description, the kernel each
variant's baseline stands for, parameters, the seed-style table with host
noise marks, ratios with their 95% intervals, mmtests-style rows,
counters, checks, machine) and one <experiment>.png per experiment.  A
variant is compared with its own baseline (the comparison marked
own_baseline; vanilla unless it names another) and, where that is not
vanilla, with vanilla too.  An experiment with several metrics
(results with different "metric" values) gets the tables and a plot per
metric.
"""
import copy
import json
import re
import math
import os
import statistics
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import EngFormatter, MaxNLocator  # noqa: E402

BASELINE = "vanilla"
SEEDS_README = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..", "shared", "seeds", "README.md")
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")


# --- formatting ----------------------------------------------------------------

def fmt_value(v):
    """A median as the C tables show it: an integer when large or integral."""
    if v is None or not math.isfinite(v):
        return "n/a"
    if abs(v) >= 1000 or v == int(v):
        return "%.0f" % v
    return "%.4g" % v


def fmt_size(b):
    for shift, suffix in ((40, "T"), (30, "G"), (20, "M"), (10, "K")):
        if b and b % (1 << shift) == 0 and b >> shift < 10000:
            return "%d%s" % (b >> shift, suffix)
    for shift, suffix in ((40, "T"), (30, "G"), (20, "M"), (10, "K")):
        if b >= 1 << shift:
            return "%.1f%s" % (b / (1 << shift), suffix)
    return str(b)


def point_key(point):
    return json.dumps(point, sort_keys=True)


def point_label(point):
    if len(point) == 1:
        return str(next(iter(point.values())))
    return ", ".join("%s=%s" % kv for kv in point.items())


def md_table(header, rows, align=None):
    """A Markdown table; align is a string of 'l'/'r' per column."""
    align = align or "l" + "r" * (len(header) - 1)
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(":---" if a == "l" else "---:" for a in align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def hmean(xs):
    if any(x < 0 for x in xs):
        return float("nan")
    if any(x == 0 for x in xs):
        return 0.0
    return statistics.harmonic_mean(xs)


def change_pct(base, cand, higher_is_better):
    if base == 0:
        return 0.0 if cand == 0 else float("nan")
    diff = cand - base if higher_is_better else base - cand
    return diff / abs(base) * 100


def seed_series(seed_file):
    """The series title and headline for a seed file, from shared/seeds/README.md."""
    try:
        with open(SEEDS_README) as f:
            for line in f:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) >= 4 and cells[0] == seed_file:
                    return cells[1], cells[-1]
    except OSError:
        pass
    return None, None


def backticked(cell):
    return cell.split("`")[1::2]


def baseline_kernels(experiment):
    """{baseline variant: (base of the seed's numbers, what it is here)}, from the README's
    table "What `vanilla` stands for"."""
    out, inside = {}, False
    try:
        with open(README) as f:
            for line in f:
                if line.startswith("#"):
                    inside = "What `vanilla` stands for" in line
                    continue
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if not inside or len(cells) < 4 or experiment not in backticked(cells[0]):
                    continue
                names = backticked(cells[1])
                if names:
                    out[names[0]] = (cells[2], cells[3])
    except OSError:
        pass
    return out


# --- one experiment's data ---------------------------------------------------------

class Run:
    """One experiment's results, seen through one metric at a time (the first by default)."""

    def __init__(self, data):
        self.d = data
        self.name = data["experiment"]
        machine = data.get("machine", {})
        if machine.get("time") == "virtual":
            # A run on a simulated machine is its own section: refcount-scale@e5-2690v3-2s.
            self.name += "@" + machine.get("name", "virtual")
        self.variants = list(data["params"].get("variant", []))
        self.points = []
        self.cells = {}
        self.metrics = []       # (name, unit, higher_is_better), in the results' order
        for r in data["results"]:
            k = point_key(r["point"])
            if k not in [point_key(p) for p in self.points]:
                self.points.append(r["point"])
            if r["variant"] not in self.variants:
                self.variants.append(r["variant"])
            m = r.get("metric", "value")
            if m not in [x[0] for x in self.metrics]:
                self.metrics.append((m, r.get("unit", ""), r.get("higher_is_better", True)))
            self.cells[(m, r["variant"], k)] = r
        if not self.metrics:
            self.metrics.append(("value", "", True))
        # own: against the variant's own baseline; vs: against vanilla besides
        self.cmps, self.vcmps, self.bases = {}, {}, {}
        for c in data.get("comparisons", []):
            key = (c.get("metric", self.metrics[0][0]), c["variant"], point_key(c["point"]))
            if c.get("own_baseline", True):
                self.cmps[key] = c
                self.bases[c["variant"]] = c["baseline"]
            else:
                self.vcmps[key] = c
        self.metric, self.unit, self.higher = self.metrics[0]
        self.base = BASELINE if BASELINE in self.variants else None

    def multi(self):
        return len(self.metrics) > 1

    def for_metric(self, metric):
        """The same run with cell(), cmp(), metric, unit and higher of @metric."""
        view = copy.copy(self)
        view.metric, view.unit, view.higher = next(m for m in self.metrics if m[0] == metric)
        return view

    def views(self):
        return [self.for_metric(m[0]) for m in self.metrics]

    def cell(self, variant, point):
        return self.cells.get((self.metric, variant, point_key(point)))

    def cmp(self, variant, point):
        return self.cmps.get((self.metric, variant, point_key(point)))

    def vcmp(self, variant, point):
        return self.vcmps.get((self.metric, variant, point_key(point)))

    def base_of(self, variant):
        """The variant's own baseline, None for a baseline itself or one not run."""
        return self.bases.get(variant)

    def compared(self, variant):
        return self.base_of(variant) is not None

    def also_vanilla(self, variant):
        return any(k[1] == variant for k in self.vcmps)

    def flagged(self, variant, point):
        c = self.cell(variant, point)
        return bool(c and c.get("host_noise", {}).get("flagged_samples"))

    def all_cmps(self):
        return [c for (m, _, _), c in self.cmps.items() if m == self.metric]

    def header_name(self):
        keys = {k for p in self.points for k in p}
        return "#" + "/".join(sorted(keys)) if keys else "point"


# --- Markdown sections ----------------------------------------------------------------

def section_params(run):
    rows = []
    for k, v in run.d["params"].items():
        if k == "mem":
            v = "%s (%d bytes)" % (fmt_size(v), v)
        elif isinstance(v, list):
            v = ", ".join(str(x) for x in v)
        rows.append(("`%s`" % k, v))
    return ["### Parameters", ""] + md_table(["parameter", "value"], rows, "ll")


def section_baselines(run):
    """Which kernel each baseline stands for, and which variants are compared with it."""
    kernels = baseline_kernels(run.name)
    against = {}
    for v in run.variants:
        if run.compared(v):
            against.setdefault(run.base_of(v), []).append(v)
    rows = []
    for b in [v for v in run.variants if v in against or v == run.base]:
        base, here = kernels.get(b, ("not stated in README.md", ""))
        rows.append(("`%s`" % b, ", ".join("`%s`" % v for v in against.get(b, [])) or "none",
                     base, here))
    if not rows:
        return ["### Baselines", "", "%s was not run: no comparisons." % BASELINE]
    out = ["### Baselines", "",
           "Each variant is compared with the kernel before its series at the base it was "
           "measured on; a variant whose base is not vanilla's is compared with vanilla too.", ""]
    return out + md_table(["baseline", "compared with it", "base of the seed's numbers",
                           "the baseline here"], rows, "llll")


def fmt_ratio(cmp):
    """"1.023 [1.011, 1.036]": the ratio and its interval, as the C tables print it."""
    if cmp is None or cmp.get("ratio") is None:
        return "n/a"
    lo, hi = cmp.get("ci95_low"), cmp.get("ci95_high")
    if lo is None or hi is None:
        return "%.3f [no interval]" % cmp["ratio"]
    return "%.3f [%.3f, %.3f]" % (cmp["ratio"], lo, hi)


def section_ratios(run):
    header, cols = [run.header_name()], []
    for v in run.variants:
        if run.compared(v):
            b = run.base_of(v)
            header.append(v if b == BASELINE else "%s/%s" % (v, b))
            cols.append((v, run.cmp))
        if run.also_vanilla(v):
            header.append("%s/%s" % (v, BASELINE))
            cols.append((v, run.vcmp))
    if not cols:
        return []
    rows = [[point_label(p)] + [fmt_ratio(get(v, p)) for v, get in cols] for p in run.points]
    return (["", "Ratio of the medians, variant/baseline (a/b: to b), as measured, with its "
             "distribution-free 95% interval (from the Mann-Whitney test; none with fewer than "
             "4 samples per side).", ""] + md_table(header, rows))


def section_medians(run):
    header = [run.header_name()]
    for v in run.variants:
        header.append(v)
        if run.compared(v):
            b = run.base_of(v)
            header.append("boost (%)" if b == BASELINE else "boost vs %s (%%)" % b)
    rows = []
    for p in run.points:
        row = [point_label(p)]
        for v in run.variants:
            c = run.cell(v, p)
            row.append(fmt_value(c["median"]) + ("!" if run.flagged(v, p) else "") if c else "")
            if run.compared(v):
                cmp = run.cmp(v, p)
                if cmp is None or cmp["change_pct"] is None:
                    row.append("n/a")
                else:
                    row.append("%+.1f%s" % (cmp["change_pct"], "\\*" if cmp["significant"] else ""))
        rows.append(row)
    spread_rows = []
    for p in run.points:
        row = [point_label(p)]
        for v in run.variants:
            c = run.cell(v, p)
            if not c or not c["median"]:
                row.append("n/a")
                continue
            lo = (c["min"] - c["median"]) / abs(c["median"]) * 100
            hi = (c["max"] - c["median"]) / abs(c["median"]) * 100
            prec = 2 if abs(lo) < 1 and abs(hi) < 1 else 1
            row.append("%+.*f..%+.*f" % (prec, lo, prec, hi))
        spread_rows.append(row)
    test = next(iter(run.all_cmps()), {}).get("test", "no comparison")
    if run.cmps:
        others = any(b != BASELINE for b in run.bases.values())
        versus = ("Boost is against %s, positive = better; `*` = significant (%s)."
                  % ("each variant's baseline" if others else BASELINE, test))
    else:
        versus = "%s was not run: no comparisons." % BASELINE
    flag = next((c["host_noise"]["flag_steal_pct"] for c in run.d["results"]
                 if c.get("host_noise", {}).get("flagged_samples")), None)
    if flag is not None:
        versus += (" `!`: a sample of this median ran while the host stole >= %g%% of the "
                   "CPU time." % flag)
    title = "%s: medians, seed-style" % run.metric if run.multi() else "Medians, seed-style"
    out = ["### " + title, "",
           "Median %s (%s) of %d samples per cell; %s is better.  %s"
           % (run.metric, run.unit, run.d["params"].get("repeat", 0),
              "higher" if run.higher else "lower", versus), ""]
    out += md_table(header, rows)
    out += section_ratios(run)
    out += ["", "Spread of the samples: min..max as % of the median.", ""]
    out += md_table([run.header_name()] + run.variants, spread_rows)
    return out


def section_mmtests(run):
    kind = "Hmean" if run.higher else "Amean"
    mean = hmean if run.higher else statistics.mean

    def sample_mean(samples):
        xs = [x for x in samples if x is not None]     # null: a failed sample's missing value
        return mean(xs) if xs else float("nan")

    means = {(v, point_key(p)): sample_mean(run.cell(v, p)["samples"])
             for p in run.points for v in run.variants if run.cell(v, p)}
    width = max([10] + [len("%.2f" % m) for m in means.values()])
    col = width + (11 if run.cmps else 0)
    label = run.metric if run.multi() else run.unit
    labels = ["%s %s-%s" % (kind, label, point_label(p).replace(" ", "_")) for p in run.points]
    lw = max(len(lab) for lab in labels) if labels else 0
    lines = [" " * lw + "".join("  %*s" % (col, v) for v in run.variants)]
    for p, lab in zip(run.points, labels):
        line = "%-*s" % (lw, lab)
        for v in run.variants:
            m = means.get((v, point_key(p)), float("nan"))
            line += "  %*.2f" % (width, m)
            if run.cmps:
                b = run.base_of(v)
                base = means.get((b, point_key(p)), float("nan"))
                pct = 0.0 if b is None else change_pct(base, m, run.higher)
                cmp = run.cmp(v, p)
                sig = cmp is not None and cmp["significant"]
                line += " %s%7.2f%%%s" % ("*" if sig else "(", pct, "*" if sig else ")")
        lines.append(line)
    return ["### %smmtests-style" % ("%s: " % run.metric if run.multi() else ""), "",
            "%s of the samples; `*...*` marks a significant change, positive = better." % kind,
            "", "```"] + lines + ["```"]


def section_counters(run):
    names = []
    for r in run.d["results"]:
        for k in r.get("counters", {}):
            if k not in names:
                names.append(k)
    if not names:
        return ["### Counters", "", "None recorded."]
    rows = []
    for p in run.points:
        for v in run.variants:
            c = run.cell(v, p)
            if not c:
                continue
            row = [point_label(p), v]
            for n in names:
                x = c.get("counters", {}).get(n)
                if x is None:
                    row.append("")
                elif isinstance(x, (int, float)):
                    row.append(fmt_value(x) if abs(x) >= 1 or x == 0 else "%.3g" % x)
                else:
                    row.append("`%s`" % json.dumps(x)[:40])
            rows.append(row)
    return (["### Counters", "",
             "Median over the samples that carry the counter.", ""]
            + md_table([run.header_name(), "variant"] + names, rows, "ll" + "r" * len(names)))


def section_checks(run):
    checks = run.d.get("checks", {})
    verdicts = []
    for view in run.views():
        where = " in %s" % view.metric if run.multi() else ""
        for v in view.variants:
            for get in (view.cmp, view.vcmp):
                got = [get(v, p) for p in view.points]
                got = [c for c in got if c]
                if not got:
                    continue
                up = sum(c["verdict"] == "improvement" for c in got)
                down = sum(c["verdict"] == "regression" for c in got)
                verdicts.append("- `%s` against %s%s: %d improvement%s, %d regression%s, "
                                "%d without a significant change"
                                % (v, got[0]["baseline"], where, up, "" if up == 1 else "s", down,
                                   "" if down == 1 else "s", len(got) - up - down))
    return (["### Checks and verdicts", "",
             "Invariants: **%s**; data: **%s**." % (checks.get("invariants", "?"), checks.get("data", "?")),
             ""] + verdicts)


SEED_CHANGE = "change_pct"
SEED_CHANGE_OVER = "change_pct_over_"


def seed_points(run):
    """The seed's own measurements on the simulated machine:
    {(variant, counter or None): (source, {point: (lo, hi)})}; a point is the run's point as
    point_text() names it ("12", "on", "fix_size_alloc_test/512/1"), a single value has
    lo == hi."""
    out = {}
    for sp in run.d.get("machine", {}).get("seed_points", []):
        pts = {}
        for x, v in sp["points"].items():
            pts[x] = (v[0], v[1]) if isinstance(v, list) else (v, v)
        out[(sp["variant"], sp.get("counter"))] = (sp.get("source", ""), pts)
    return out


def point_text(point):
    """A point as a seed line names it: its axis' value, or its axes' values joined by '/'
    in the experiment's order."""
    return "/".join(str(v) for v in point.values())


def seed_change_base(run, variant, counter):
    """The variant a change series is over: the variant's own baseline for change_pct, the
    named one for change_pct_over_NAME; None for a series of values."""
    if counter == SEED_CHANGE:
        return run.base_of(variant)
    if counter and counter.startswith(SEED_CHANGE_OVER):
        return counter[len(SEED_CHANGE_OVER):]
    return None


def is_seed_change(counter):
    return counter == SEED_CHANGE or bool(counter and counter.startswith(SEED_CHANGE_OVER))


def seed_model_value(run, variant, point, counter):
    """The model's value of a seed series' quantity at @point, and whether higher is better:
    the run's metric (counter None), another of its metrics (readseq's lat_p50_us), or a
    counter of the metric's cell (None where the run has no such value)."""
    if counter is None or counter in [m[0] for m in run.metrics]:
        view = run if counter is None else run.for_metric(counter)
        c = view.cell(variant, point)
        return (c["median"] if c else None), view.higher
    c = run.cell(variant, point)
    v = c.get("counters", {}).get(counter) if c else None
    return (v if isinstance(v, (int, float)) else None), run.higher


def boost_interval(run, variant, point, base=None):
    """ " [lo, hi]": the 95% interval of a boost over @base (vanilla by default), in per
    cent, where the run compares the two (virtual time's repetitions are interleavings: it
    says how much the prediction depends on them); "" otherwise."""
    c = run.cmp(variant, point)
    if not c or c.get("baseline") != (base or run.base) or c.get("ci95_low") is None \
            or c.get("ci95_high") is None:
        return ""
    lo, hi = (c["ci95_low"] - 1) * 100, (c["ci95_high"] - 1) * 100
    if not run.higher:
        lo, hi = -hi, -lo
    return " [%+.1f, %+.1f]" % (lo, hi)


def fmt_range(lo, hi):
    return fmt_value(lo) if lo == hi else "%s..%s" % (fmt_value(lo), fmt_value(hi))


def range_error(x, lo, hi):
    """The model's error against a seed value or range: 0 inside it, else from its nearer end."""
    if lo <= x <= hi:
        return "inside" if lo != hi else "+0%"
    end = lo if x < lo else hi
    return "%+.0f%%" % ((x - end) / end * 100) if end else "n/a"


def change_error(x, lo, hi):
    """A predicted change against the seed's, in percentage points: inside its range, or
    from its nearer end."""
    if lo <= x <= hi and lo != hi:
        return "inside"
    return "%+.1f" % (round(x - (lo if x < lo else hi), 1) + 0.0)   # + 0.0: no "-0.0"


def fitted_settings(run):
    """[(key, value, source)] of the machine file's settings whose source says they were
    fitted ("fit: ..."): a seed's number they were fitted to is not a prediction."""
    out = []
    for line in run.d.get("machine", {}).get("machine_file", "").splitlines():
        if "|" not in line or line.lstrip().startswith("#"):
            continue
        head, src = line.split("|", 1)
        parts = head.split()
        if len(parts) >= 2 and src.strip().lower().startswith("fit"):
            out.append((parts[0], parts[1], src.strip()))
    return out


def is_fit(seed_text, fits):
    """Whether a seed's number is one a fitted setting's source names (its digits whole)."""
    return any(re.search(r"(?<![\d.])%s(?![\d.])" % re.escape(seed_text), src) for _, _, src in fits)


def seed_value_rows(run, seed):
    rows = []
    fits = fitted_settings(run)
    order = sorted(seed.items(), key=lambda kv: (kv[0][1] or "", kv[0][0] != run.base))
    for p in run.points:
        x = point_text(p)
        for (v, counter), (_, pts) in order:
            if is_seed_change(counter) or x not in pts:
                continue
            model, higher = seed_model_value(run, v, p, counter)
            if model is None:
                continue
            lo, hi = pts[x]
            seed_txt = fmt_range(lo, hi)
            err = "fit" if lo == hi and is_fit(seed_txt, fits) else range_error(model, lo, hi)
            row = [x, v, counter or run.metric, fmt_value(model), seed_txt, err]
            bseed = seed.get((run.base, counter))
            bmodel = seed_model_value(run, run.base, p, counter)[0] if run.base else None
            # A boost of a share (restore_pct) says nothing: none for counters in per cent.
            if v != run.base and bmodel is not None and bseed and x in bseed[1] and \
                    not (counter or "").endswith("_pct"):
                mb = change_pct(bmodel, model, higher)
                sb = change_pct(sum(bseed[1][x]) / 2, (lo + hi) / 2, higher)
                row += ["%+.1f%s" % (mb, boost_interval(run, v, p) if counter is None else ""),
                        "%+.1f" % sb, "%+.1f" % (mb - sb)]
            else:
                row += ["", "", ""]
            rows.append(row)
    return rows


def seed_change_rows(run, seed):
    rows = []
    for p in run.points:
        x = point_text(p)
        for (v, counter), (_, pts) in sorted(seed.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            base = seed_change_base(run, v, counter)
            if not base or x not in pts:
                continue
            c, b = run.cell(v, p), run.cell(base, p)
            if not c or not b:
                continue
            model = change_pct(b["median"], c["median"], run.higher)
            lo, hi = pts[x]
            seed_txt = "%+.1f" % lo if lo == hi else "%+.1f..%+.1f" % (lo, hi)
            rows.append([x, v, base, "%+.1f%s" % (model, boost_interval(run, v, p, base)), seed_txt,
                         change_error(model, lo, hi)])
    return rows


def section_seed(run):
    """Side by side with the seed's table: the model's prediction, the seed, the error, and
    each design's boost over vanilla in both.  The seed's number may be a range (the runs it
    reports), may be one of the experiment's counters or other metrics rather than its
    metric, and may be a change over a baseline where the seed gives only ratios."""
    seed = seed_points(run)
    if not seed or not run.points:
        return []
    axis = "/".join(run.points[0].keys())
    m = run.d["machine"]
    srcs = "; ".join(sorted({src for src, _ in seed.values()}))
    out = []
    rows = seed_value_rows(run, seed)
    if rows:
        out += (["### Against the seed's own table (%s, virtual time)" % m.get("name", "?"), "",
                 "The model's medians are predictions; the seed's numbers were measured on that "
                 "machine (%s). A range is the runs the seed reports (error: inside it, or from its "
                 "nearer end). Boosts are over %s, in percentage points of each column (a range's "
                 "midpoint for the seed); the model's with its 95%% interval over the repetitions "
                 "(in virtual time, interleavings)." % (srcs, run.base or "the baseline"), ""] +
                md_table([axis, "variant", "quantity", "model", "seed", "error", "model boost",
                          "seed boost", "boost error (pp)"], rows, "rllrrrrrr"))
        fits = [f for f in fitted_settings(run) if any(r[5] == "fit" for r in rows)]
        if fits:
            out += ["", "Fitted, not predicted: the row whose error reads \"fit\" is the seed's "
                    "number the machine file's %s was fitted to (%s); the other rows are "
                    "predictions." % (", ".join("`%s` %s" % (k, v) for k, v, _ in fits),
                                      "; ".join(src for _, _, src in fits))]
    rows = seed_change_rows(run, seed)
    if rows:
        out += ([""] if out else []) + \
               (["### Against the seed's own gains (%s, virtual time)" % m.get("name", "?"), "",
                 "Where the seed gives a design's change over a baseline rather than values: %s "
                 "of each design over the variant named, in per cent, positive better, the model's "
                 "a prediction from the medians (with its 95%% interval where the run compares the "
                 "two), the seed's measured on that machine (%s); error in percentage points, "
                 "inside a range the seed states." % (run.metric, srcs), ""] +
                md_table([axis, "variant", "over", "model", "seed", "error (pp)"], rows, "rlllrr"))
    return out


def section_machine(run):
    m, lab = run.d.get("machine", {}), run.d.get("mmlab", {})
    return ["### Machine", "",
            "%s CPUs (%s), %s of memory; mmlab %s at %s."
            % (m.get("cpus", "?"), m.get("cpu_model", "?"), fmt_size(m.get("mem_bytes", 0)),
               lab.get("version", "?"), lab.get("git", "?"))]


def section(run, png):
    seed = run.d.get("seed", "")
    series, headline = seed_series(seed)
    out = ["## %s" % run.name, "",
           ("Seed: `%s`%s." % (seed, " (%s)" % series if series else "") if seed else
            "Seed: none (an experiment of its own)."), "",
           run.d.get("description", ""), ""]
    if headline:
        out += ["Headline result in the thread: %s." % headline.rstrip("."), ""]
    if png:
        out += ["![%s](%s)" % (run.name, png), ""]
    out += section_baselines(run) + [""]
    out += section_params(run) + [""]
    for view in run.views():
        out += section_medians(view) + [""] + section_mmtests(view) + [""]
    seed = section_seed(run)
    if seed:
        out += seed + [""]
    for part in (section_counters, section_checks, section_machine):
        out += part(run) + [""]
    return out


# --- plots -------------------------------------------------------------------------------

def plot_threads(run, ax):
    """Median against threads with min..max bars, and vanilla's linear scaling."""
    def others(p):
        return tuple(sorted((k, v) for k, v in p.items() if k != "threads"))

    groups = []
    for p in run.points:
        if others(p) not in groups:
            groups.append(others(p))
    top = 0
    for g in groups:
        pts = sorted((p for p in run.points if others(p) == g), key=lambda p: p["threads"])
        suffix = " (%s)" % ", ".join("%s=%s" % kv for kv in g) if g else ""
        for v in run.variants:
            cells = [(p["threads"], run.cell(v, p)) for p in pts if run.cell(v, p)]
            if not cells:
                continue
            x = [t for t, _ in cells]
            y = [c["median"] for _, c in cells]
            err = [[c["median"] - c["min"] for _, c in cells], [c["max"] - c["median"] for _, c in cells]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=v + suffix)
            top = max([top] + [c["max"] for _, c in cells])
        base = [(p["threads"], run.cell(run.base, p)) for p in pts] if run.base else []
        base = [(t, c) for t, c in base if c and t > 0]
        if base:
            t0, c0 = base[0]
            per_thread = c0["median"] / t0
            xs = [p["threads"] for p in pts]
            ax.plot(xs, [per_thread * t for t in xs], "k--", linewidth=1,
                    label="linear scaling of %s%s" % (BASELINE, suffix))
    # The seed's own measurements on the simulated machine, where the run has them.
    # (Drawn where the seed gives this panel's metric at numeric points: the plot's axis is
    # threads; the run's first metric is its series without a counter.)
    for (v, counter), (src, pts) in seed_points(run).items():
        if not all(t.isdigit() for t in pts):
            continue
        if counter == run.metric or (counter is None and run.metric == run.metrics[0][0]):
            xs = sorted(pts, key=int)
            mids = [sum(pts[t]) / 2 for t in xs]
            ax.plot([int(t) for t in xs], mids, linestyle=":", marker="s", fillstyle="none",
                    label="seed: %s (measured)" % v)
            top = max([top] + [hi for _, hi in pts.values()])
    ax.set_xlabel("virtual CPUs (threads)" if run.d.get("machine", {}).get("time") == "virtual"
                  else "threads")
    threads = sorted({p["threads"] for p in run.points})
    if len(threads) <= 16:
        ax.set_xticks(threads)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if top > 0:
        ax.set_ylim(0, top * 1.15)


def plot_bars(run, ax):
    """Grouped bars: one group per point, one bar per variant, min..max bars."""
    n = len(run.variants)
    width = 0.8 / max(n, 1)
    for i, v in enumerate(run.variants):
        xs, ys, lo, hi = [], [], [], []
        for j, p in enumerate(run.points):
            c = run.cell(v, p)
            if not c:
                continue
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(c["median"])
            lo.append(c["median"] - c["min"])
            hi.append(c["max"] - c["median"])
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=v)
    ax.set_xticks(range(len(run.points)))
    ax.set_xticklabels([point_label(p) for p in run.points], rotation=30 if len(run.points) > 6 else 0)
    ax.set_xlabel(run.header_name().lstrip("#"))


def plot(run, path):
    """One panel per metric, stacked."""
    views = run.views()
    fig, axes = plt.subplots(len(views), 1, figsize=(9, 5.5 * len(views)), squeeze=False)
    for view, ax in zip(views, axes[:, 0]):
        if view.points and all("threads" in p for p in view.points):
            plot_threads(view, ax)
        else:
            plot_bars(view, ax)
        ax.set_ylabel("%s (%s)" % (view.metric, view.unit))
        ax.yaxis.set_major_formatter(EngFormatter())
        ax.set_title("%s: median %s, %s is better (bars: min..max of %d samples)"
                     % (view.name, view.metric, "higher" if view.higher else "lower",
                        view.d["params"].get("repeat", 0)), fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    try:
        write_whole(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    finally:
        plt.close(fig)


def write_whole(path, write):
    """write(tmp) to a temporary name beside path, then rename it into place: a reader sees
    the old file or the whole new one, never a part (docs/INTERFACE.md, "Files")."""
    d, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix="." + base + ".", dir=d or ".")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def run_id(outdir):
    """The run id of results/<run-id>/, also while tools/run-all.sh writes it as
    results/.<run-id>.partial/."""
    name = os.path.basename(os.path.normpath(outdir))
    if name.startswith(".") and name.endswith(".partial"):
        name = name[1:-len(".partial")]
    return name


# --- main --------------------------------------------------------------------------------

def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: tools/report.py results/<run-id>", file=sys.stderr)
        return 2
    outdir = argv[1]
    runs, failed = [], 0
    for name in sorted(os.listdir(outdir)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(outdir, name)) as f:
                runs.append(Run(json.load(f)))
        except (OSError, ValueError, KeyError, IndexError) as e:
            print("report: skipping %s: %s" % (name, e), file=sys.stderr)
            failed += 1

    lines = ["# mmlab results: %s" % run_id(outdir), ""]
    if runs:
        lines += md_table(["experiment", "seed", "checks"],
                          [("[%s](#%s)" % (r.name, r.name), "`%s`" % r.d["seed"] if r.d.get("seed") else "none",
                            "invariants %s, data %s" % (r.d.get("checks", {}).get("invariants", "?"),
                                                        r.d.get("checks", {}).get("data", "?")))
                           for r in runs], "lll") + [""]
    else:
        lines += ["No results.", ""]
    for run in runs:
        png = run.name + ".png"
        try:
            plot(run, os.path.join(outdir, png))
        except Exception as e:  # a plot must not cost the report
            print("report: no plot for %s: %s" % (run.name, e), file=sys.stderr)
            png, failed = None, failed + 1
        lines += section(run, png)
    def write_report(tmp):
        with open(tmp, "w") as f:
            f.write("\n".join(lines).rstrip() + "\n")
    write_whole(os.path.join(outdir, "report.md"), write_report)
    print("report: %s" % os.path.join(outdir, "report.md"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

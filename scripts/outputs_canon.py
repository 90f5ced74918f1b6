#!/usr/bin/env python3
"""Canonical, comparable form of the outputs scripts/check_outputs.sh collects.

A run directory holds cmd/NAME.{json,rc} (one subcommand example: stdout, exit status) and
bench/NAME/ (one scenario: stdout.json, rc, NAME.json, NAME.csv, *.map). Every value in them
becomes a record (scope, path, value); the fields listed in IGNORE (times, bandwidths, rates,
residuals, dates, hosts, versions and what is computed from them) are dropped, and the rest is
written as one line per value (one per row for CSV files and lists of numbers), so a unified
diff of two runs reads as "which field of which output changed".

  outputs_canon.py compare RUN_A RUN_B   unified diff of the canonical forms; exit 1 if any
                                         (NT_CHECK_DIFF_LINES: diff lines shown per output,
                                         default 40, 0 = all)
  outputs_canon.py changed RUN_A RUN_B   (same binary twice) every field whose value differs,
                                         marked ignored or NOT IGNORED; exit 1 if one is not
  outputs_canon.py canon RUN OUT [--all] write the canonical form to OUT (--all: ignore nothing)
Python 3 standard library only.
"""
import csv
import difflib
import fnmatch
import itertools
import json
import os
import re
import sys

# What is left out, as (scope, under, key, reason): a value is dropped when its output's scope
# (its path in the run directory: cmd/redist-move.json, bench/migrate/migrate.csv, ...) matches
# the glob, its path (summary.rows[3].ratio; CSV cells are row[i].COLUMN) starts with `under`,
# and a key on that path (an object key or a CSV column) matches the regular expression in
# full. Derived by running one binary twice (`scripts/check_outputs.sh --stability BIN` lists
# every field that changed) and checked against what each field is computed from, since a
# field derived from a time can come out equal twice (a best tile size, a target met).
IGNORE = [
    # Times, and rates of times, wherever they appear.
    ("*", "", r"(.*_)?seconds(_.*)?", "wall-clock time (and its median/min/max, per 1e6 tiles)"),
    ("*", "", r"(.*_)?gbs(_.*)?", "bandwidth, GB/s"),
    ("*", "", r"(.*_)?gflops(_.*)?", "GFLOP/s"),
    ("*", "", r"ns_per_tile", "planning time per tile"),
    ("*", "", r"loadavg_(start|end)", "load average around a scenario"),
    # Rounding errors: whether a check passed (verify) is compared, its residual is not.
    ("*", "", r"residual_(qr|orth)", "QR residuals ||A-QR||, ||Q^TQ-I||"),
    ("bench/kernels/*", "", r"(gemm|qr)_check", "GEMM/QR residuals (multithreaded BLIS)"),
    # Ratios of times or bandwidths, and what is decided from them.
    ("cmd/redist-*", "", r"ratio", "bandwidth / same-run copy bound"),
    ("bench/migrate/*", "", r"ratio(_min|_max)?|(.*_)?target_met|copy_over_loop",
     "bandwidth / copy bound, whether a bandwidth or time target was met, copy / loop"),
    ("bench/cao-categories/*", "", r"ratio(_min|_max)?|cao_reference_met",
     "bandwidth / copy bound, whether it met Cao's reference"),
    ("bench/guo-tables/*", "", r"naive_over_(plan|sets)|(plan|sets)_speedup_(min|max)",
     "time of the naive walk / time of the plan or of the sets"),
    ("bench/match/*", "", r"(steps|lex)_over_volume", "matching time / volume-matching time"),
    ("bench/match/*", "", r"inner", "solves per timed sample, sized from a first timing"),
    ("bench/herrmann-table1/*", "", r"improvement_pct", "total time saved against owner, %"),
    ("bench/lambert-partition/*", "", r"time_ratio", "measured time hetero / bc2d"),
    ("bench/scalapack/*", "", r"copy_over_bound(_min|_max)?|speedup_(total|copy|pool)",
     "copy / same-run bound, pdgemr2d time / numatile time"),
    ("bench/scalapack/*", "", r"rss_peak_bytes", "peak resident set, varies with the allocator"),
    ("bench/scalapack/*", "parameters", r"peer", "where the pdgemr2d peer was found"),
    ("bench/scalapack/*", "summary", r"peer_absent", "why no peer: names where it was sought"),
    ("bench/scalapack/*", "summary.targets", r"values|met",
     "this run's medians against issue 12's targets, and how many reached them"),
    ("bench/kernels/*", "summary", r".*ratio.*|(gemm_|qr_)?nb|.*_baseline_threads",
     "tiled / flat GFLOP/s, the fastest tile size, the faster flat baseline's threads"),
    ("bench/calibrate/*", "", r"date", "when the profile was measured"),
    ("bench/migrate/*", "", r"copy_total_over_inplace_total", "copy time / in-place time"),
    ("bench/mpi-redist/*", "", r"(pdgemr2d|numatile|alltoallv|floor)_(min|max)|floor_ratio|"
     r"speedup(_ceiling)?", "times of each library under mpirun, and their ratios"),
    ("bench/advise/*", "", r"(redist|kernel|total)_(predicted|measured)|chosen|choice|"
     r"best_seconds|spearman.*|within_10pct.*|profile_date",
     "the advisor's predictions rest on a profile calibrated in the same run: its times, the "
     "choices and rank correlations drawn from them"),
    ("bench/adopt/*", "", r"sec_(min|max)|ratio_bound|(in_place_)?over_out_of_place|"
     r"out_of_place_ratio_bound|met", "times of the conversions and of the copy bound, their "
     "ratios, and issue 39's target met from them"),
    ("bench/advise/advise.csv", "", r"candidate|redistribute",
     "rows in the order of the predicted totals, which rest on this run's profile"),
    ("bench/cao-categories/*", "summary.geometries", r"inplace_peak_fraction",
     "the in-place peak of the submatrix geometry depends on the order tasks finish (the "
     "binary before the layout change gives 0.3027 or 0.3223 from run to run)"),
    ("cmd/topo*", "", r"memory_limits",
     "what the machine has free at the moment (new in Hardening 2: the limits and the binding "
     "one)"),
    ("bench/kernels/*", "", r"(gemm|qr)_best_flat_(lib|threads|peer)",
     "the faster flat baseline, decided by timing"),
    ("*", "", r"paper_data|platforms_data|thesis_data|openblas_peer",
     "paths of data files and peer programs: where the binary was built"),
    # The JSON envelope (docs/json.md): which build printed it and the libraries it loaded.
    ("*", "", r"tool|libraries", "the build and the run-time library versions"),
    # --sched omp: any thread takes any task, so which domain ran a task is not reproducible.
    ("cmd/gemm-omp.json", "", r"owner_fraction|tasks_run", "where the tasks happened to run"),
]
IGNORE_RE = [(scope, under, re.compile(key), why) for scope, under, key, why in IGNORE]

# Parts of a scenario's NAME.json compared (machine, command line, start date, its own run
# time, notices about the load are not): the parameters it ran with and its summary.
SCENARIO_PARTS = ("parameters", "labels", "summary")


class Raw(str):
    """Text kept as the tool printed it: a JSON number (no float round trip), an exit status,
    a line of a file."""


def load_json(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text, parse_float=Raw, parse_int=Raw)
    except ValueError:
        return None


def text(value):
    """One value as it appears in a canonical line."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(k + ": " + text(v) for k, v in value.items()) + "}"
    return json.dumps(value)


def is_flat(value):
    """A list printed on one line: numbers, strings, booleans, or empty."""
    return isinstance(value, list) and not any(isinstance(v, (list, dict)) for v in value)


def walk(value, path):
    """(path, value) of every leaf; lists of scalars and lists of such lists (tile maps,
    distance matrices) stay whole, one line per row."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from walk(v, path + (k,))
    elif isinstance(value, list) and value and not is_flat(value):
        for i, v in enumerate(value):
            yield from walk(v, path + (i,))
    else:
        yield path, value


def path_text(path):
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + p
    return out


def ignored(scope, path):
    """The reason a value is left out, or None."""
    keys = [p for p in path if isinstance(p, str)]
    for glob, under, rx, why in IGNORE_RE:
        if fnmatch.fnmatchcase(scope, glob) and path_text(path).startswith(under) \
                and any(rx.fullmatch(k) for k in keys):
            return why
    return None


def read_csv(path):
    """(header, rows) with the cells as printed."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return (rows[0], rows[1:]) if rows else ([], [])


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# What a scenario's --json output adds to its summary (docs/json.md, schema 2 and later).
ENVELOPE = ("schema", "tool", "command", "machine", "libraries", "parameters", "scenario",
            "notices")


def summary_part(out):
    """The summary's fields of a scenario's --json output (all of it before schema 2)."""
    if not isinstance(out, dict) or "schema" not in out:
        return out
    return {k: v for k, v in out.items() if k not in ENVELOPE}


def scenario_records(run, name):
    """Records of bench/NAME/: exit status, whether stdout is the summary, the parameters and
    summary of NAME.json, the CSV cell by cell, the tile-map files line by line."""
    d = os.path.join(run, "bench", name)
    scope = "bench/%s/" % name
    yield scope + "rc", ("exit",), Raw(read_text(os.path.join(d, "rc")).strip())
    doc_path = os.path.join(d, name + ".json")
    doc = load_json(doc_path) if os.path.exists(doc_path) else None
    if not isinstance(doc, dict):
        doc = {}
        yield scope + name + ".json", ("missing or not JSON",), True
    out = load_json(os.path.join(d, "stdout.json"))
    yield scope + "stdout.json", ("stdout is the summary",), out is not None and \
        summary_part(out) == doc.get("summary")
    for part in SCENARIO_PARTS:
        for path, v in walk(doc.get(part), (part,)):
            yield scope + name + ".json", path, v
    csv_path = os.path.join(d, name + ".csv")
    if os.path.exists(csv_path):
        header, rows = read_csv(csv_path)
        yield scope + name + ".csv", ("columns",), Raw(",".join(header))
        for i, row in enumerate(rows):
            for j, (col, cell) in enumerate(itertools.zip_longest(header, row)):
                yield scope + name + ".csv", ("row", i, col or "column%d" % j), \
                    Raw("<absent>" if cell is None else cell)
    for f in sorted(os.listdir(d)):
        if f.endswith(".map"):
            for i, line in enumerate(read_text(os.path.join(d, f)).splitlines()):
                yield scope + f, ("line", i), Raw(line)


def command_records(run, name):
    """Records of one subcommand example: exit status and the JSON it printed (or its lines,
    when stdout is not JSON)."""
    base = os.path.join(run, "cmd", name)
    scope = "cmd/%s.json" % name
    yield scope, ("exit",), Raw(read_text(base + ".rc").strip())
    out = load_json(base + ".json")
    if out is None:
        for i, line in enumerate(read_text(base + ".json").splitlines()):
            yield scope, ("stdout line", i), Raw(line)
        return
    yield from ((scope, path, v) for path, v in walk(out, ()))


def records(run):
    """Every (scope, path, value) of a run directory, in a stable order."""
    cmd = os.path.join(run, "cmd")
    if os.path.isdir(cmd):
        for f in sorted(os.listdir(cmd)):
            if f.endswith(".rc"):
                yield from command_records(run, f[:-3])
    bench = os.path.join(run, "bench")
    if os.path.isdir(bench):
        for name in sorted(os.listdir(bench)):
            if os.path.isdir(os.path.join(bench, name)):
                yield from scenario_records(run, name)


def canonical(run, keep_all=False):
    """{scope: [lines]}: the kept values, a CSV row per line (columns named)."""
    out = {}
    csv_row = {}
    for scope, path, v in records(run):
        if not keep_all and ignored(scope, path):
            continue
        lines = out.setdefault(scope, [])
        if scope.endswith(".csv") and path[0] == "row":
            key = (scope, path[1])
            if key not in csv_row:
                csv_row[key] = len(lines)
                lines.append("row[%d]" % path[1])
            lines[csv_row[key]] += " %s=%s" % (path[2], json.dumps(v) if " " in v else v)
        else:
            lines.append("%s = %s" % (path_text(path), text(v)))
    return out


def compare(run_a, run_b, limit):
    """Unified diff per output that differs, at most `limit` diff lines each (0: all)."""
    a, b = canonical(run_a), canonical(run_b)
    scopes = sorted(set(a) | set(b))
    differ = []
    for scope in scopes:
        la, lb = a.get(scope, []), b.get(scope, [])
        if la == lb:
            continue
        diff = list(difflib.unified_diff([x + "\n" for x in la], [x + "\n" for x in lb],
                                         "old/" + scope, "new/" + scope, n=2))
        changed_lines = sum(1 for x in diff[2:] if x[:1] in "+-")
        differ.append((scope, changed_lines))
        shown = diff if not limit or len(diff) <= limit + 2 else diff[:limit + 2]
        sys.stdout.writelines(shown)
        if len(shown) < len(diff):
            print("... %d more diff lines (NT_CHECK_DIFF_LINES=0 shows all)"
                  % (len(diff) - len(shown)))
    if differ:
        print("check-outputs: %d of %d outputs differ (- old, + new):" % (len(differ),
                                                                         len(scopes)))
        for scope, n in differ:
            print("  %-60s %5d lines changed" % (scope, n))
        return 1
    print("check-outputs: %d outputs, %d compared lines: equal"
          % (len(scopes), sum(len(v) for v in a.values())))
    return 0


def general(scope, path):
    """A field with its indices (array positions, CSV rows) written as [*]."""
    return scope + ": " + path_text(tuple(-1 if isinstance(p, int) else p for p in path)) \
        .replace("[-1]", "[*]")


def changed(run_a, run_b):
    """Fields whose values differ between two runs of the same binary."""
    a, b = {}, {}
    for dst, run in ((a, run_a), (b, run_b)):
        for scope, path, v in records(run):
            dst[(scope, path)] = text(v)
    fields = {}
    for key in sorted(set(a) | set(b), key=lambda k: (k[0], path_text(k[1]))):
        if a.get(key) != b.get(key):
            g = general(*key)
            n, why = fields.get(g, (0, ignored(*key)))
            fields[g] = (n + 1, why)
    bad = 0
    for g, (n, why) in sorted(fields.items()):
        if why is None:
            bad += 1
        print("%-13s %4d x  %s%s" % ("NOT IGNORED" if why is None else "ignored", n, g,
                                     "" if why is None else "   (" + why + ")"))
    print("check-outputs: %d fields changed between the two runs, %d not in the ignore list"
          % (len(fields), bad))
    return 1 if bad else 0


def write_canon(run, out, keep_all):
    for scope, lines in canonical(run, keep_all).items():
        path = os.path.join(out, scope + ".txt")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(x + "\n" for x in lines)
    return 0


def main(argv):
    if len(argv) == 3 and argv[0] == "compare":
        return compare(argv[1], argv[2], int(os.environ.get("NT_CHECK_DIFF_LINES", "40")))
    if len(argv) == 3 and argv[0] == "changed":
        return changed(argv[1], argv[2])
    if len(argv) in (3, 4) and argv[0] == "canon" and argv[3:] in ([], ["--all"]):
        return write_canon(argv[1], argv[2], argv[3:] == ["--all"])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

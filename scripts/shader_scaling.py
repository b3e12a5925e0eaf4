#!/usr/bin/env python3
"""Real shaders by invocations: run, table, plot.

Four compute shaders of ../shared/corpus/real-shaders, each checked for
races at 1 x N and 2 x N invocations (N invocations per workgroup, one or
two workgroups) for N = 1, 2, 4, 8, by vkmm's search with its defaults
("new") and by the reference enumeration (`--engine reference`, "old"):

  hello-sync    wgpu-hello-synchronization/shaders.wgsl, patient_main: a
                workgroup barrier between a store and the reads of it.
  wgsl-lock     wgsl-loop/loop.wgsl, loop_break: a spin lock on a
                workgroup variable around a counter.
  linkedlist    vello-linkedlist-69b66320/linkedlist.comp (N_ITER=2):
                atomic bump allocation and list insertion by exchange.
  vello-prefix  vello-prefix-76a6f1fe/prefix.comp (ATOMIC;VKMM,
                N_ROWS=1, LG_WG_SIZE = log2 N): the decoupled look-back
                prefix sum.

Each check is one row of a one-row manifest written under
target/shader-scaling/ (the corpus file named by its absolute path), with
its inputs sized for the dispatch the way tests/fixtures/real-shaders/
inputs.toml sizes the corpus rows. The verdict is whatever vkmm answers at
that dispatch (the manifest's expected verdict holds for its own
dispatch only); what is measured is the CPU time (user + system of the
child) to a complete answer, with the evaluation limit lifted
(--max-executions 1000000000) so that the CPU budget is the only bound. A series stops at its first dispatch that
does not finish within the budget.

Usage (python3, standard library only):

  scripts/shader_scaling.py run [--budget S] [--shaders a,b] [--engines new,old]
                                  results in target/shader-scaling/results.json
                                  (budget: CPU seconds per check, default 60)
  scripts/shader_scaling.py report
                                  docs/shader-scaling.svg and the markdown
                                  table (stdout) from the results
"""

import csv
import json
import math
import os
import resource
import subprocess
import sys
import time

import scaling  # the chart's frame, shared with the scaling families

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "shader-scaling")
CORPUS = os.path.abspath(os.path.join(ROOT, "..", "shared", "corpus", "real-shaders"))
VKMM = os.environ.get("VKMM", os.path.join(ROOT, "target", "release", "vkmm"))
NS = (1, 2, 4, 8)
WORKGROUPS = (1, 2)
ENGINES = {"new": [], "old": ["--engine", "reference"]}
# The evaluation limit lifted, so that the CPU budget is the only bound.
LIFTED = ["--max-executions", "1000000000"]


def zero(length):
    return '{ length = %d, fill = "zero" }' % length


def hello_sync(n, w):
    return {"set": "", "inputs": {"output": zero(w)}}


def wgsl_lock(n, w):
    return {"set": "", "inputs": {}}


def linkedlist(n, w):
    # The buckets (65536 words) and 2 words per allocation, N_ITER = 2 per
    # invocation.
    return {"set": "N_ITER=2", "inputs": {"MemBuf": zero(65536 + 2 * 2 * n * w)}}


def vello_prefix(n, w):
    # WG_SIZE = N, N_ROWS = 1: one element per invocation, one partition
    # per workgroup; the project's test fills the input with 0, 1, 2, ...
    cells = n * w
    return {
        "set": "LG_WG_SIZE=%d;N_ROWS=1" % int(math.log2(n)),
        "inputs": {
            "InBuf": "{ length = %d, values = [%s] }" % (cells, ", ".join(str(i) for i in range(cells))),
            "OutBuf": "{ length = %d }" % cells,
            "StateBuf": zero(w),
        },
    }


# name: (file, entry, defines, inputs and constants for (n, w))
SHADERS = {
    "hello-sync": ("wgpu-hello-synchronization/shaders.wgsl", "patient_main", "", hello_sync),
    "wgsl-lock": ("wgsl-loop/loop.wgsl", "loop_break", "", wgsl_lock),
    "linkedlist": ("vello-linkedlist-69b66320/linkedlist.comp", "main", "", linkedlist),
    "vello-prefix": ("vello-prefix-76a6f1fe/prefix.comp", "main", "ATOMIC;VKMM", vello_prefix),
}
COLOURS = {"hello-sync": "#1f77b4", "wgsl-lock": "#d62728", "linkedlist": "#2ca02c",
           "vello-prefix": "#9467bd"}


def header():
    with open(os.path.join(CORPUS, "manifest.csv"), newline="") as f:
        return next(csv.reader(f))


def write_row(name, n, w):
    """The one-row manifest and inputs file of `name` at n x w: their paths."""
    path, entry, defines, sizes = SHADERS[name]
    spec = sizes(n, w)
    fields = header()
    row = {k: "" for k in fields}
    row.update({
        "file": os.path.join(CORPUS, path),
        "language": "WGSL" if path.endswith(".wgsl") else "GLSL",
        "entry": entry,
        "local_size": "%d,1,1" % n,
        "workgroups": "%d,1,1" % w,
        "defines": defines,
        "set": spec["set"],
        "property": "races",
        "expected": "race-free",
    })
    base = os.path.join(OUT, "%s-%dx%d" % (name, w, n))
    with open(base + ".csv", "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=fields)
        out.writeheader()
        out.writerow(row)
    with open(base + ".toml", "w") as f:
        f.write('[[shader]]\nfile = "%s"\n[shader.inputs]\n' % row["file"])
        for buf, value in spec["inputs"].items():
            f.write("%s = %s\n" % (buf, value))
    return base + ".csv", base + ".toml"


def run_one(name, n, w, engine, budget):
    manifest, inputs = write_row(name, n, w)
    args = [VKMM, "suite", "--manifest", manifest, "--inputs", inputs, "--format", "json",
            "-j", "1", "--timeout", str(int(budget * 4))] + LIFTED + ENGINES[engine]

    def limit():
        cap = int(math.ceil(budget)) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 1))

    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
    out, _ = proc.communicate()
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    row = {"shader": name, "n": n, "workgroups": w, "engine": engine, "exit": proc.returncode,
           "wall": round(wall, 3), "cpu": round(cpu - run_one.spent, 3)}
    run_one.spent = cpu
    try:
        rec = json.loads(out)["records"][0]
    except (ValueError, KeyError, IndexError):
        row.update(finished=False, reason="killed or no JSON (exit %s)" % proc.returncode)
        return row
    row.update({
        "answer": rec.get("actual"),
        "complete": rec.get("complete"),
        "executions": rec.get("executions"),
        "cut_paths": rec.get("cut_paths"),
        "detail": rec.get("detail"),
    })
    # A verdict (the row passed or failed against the placeholder
    # expectation); an undecided row has none.
    row["finished"] = rec.get("status") in ("passed", "failed") and row["cpu"] <= budget
    if not row["finished"]:
        row["reason"] = rec.get("detail") or "over budget"
    row["complete"] = rec.get("complete")
    return row


run_one.spent = 0.0


def cmd_run(argv):
    budget, shaders, engines = 60.0, list(SHADERS), list(ENGINES)
    i = 0
    while i < len(argv):
        if argv[i] == "--budget":
            budget = float(argv[i + 1])
        elif argv[i] == "--shaders":
            shaders = argv[i + 1].split(",")
        elif argv[i] == "--engines":
            engines = argv[i + 1].split(",")
        else:
            sys.exit("unknown option %s" % argv[i])
        i += 2
    os.makedirs(OUT, exist_ok=True)
    results_path = os.path.join(OUT, "results.json")
    results = {}
    if os.path.exists(results_path):
        with open(results_path) as f:
            results = json.load(f)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    for name in shaders:
        for engine in engines:
            for w in WORKGROUPS:
                key = "%s/%s/%d" % (name, engine, w)
                rows = []
                for n in NS:
                    r = run_one(name, n, w, engine, budget)
                    r["commit"] = commit
                    rows.append(r)
                    print("%-12s %-3s %dx%d: %s %.2f s CPU %s" % (
                        name, engine, w, n, r.get("answer"), r["cpu"],
                        "" if r["finished"] else "(%s)" % r.get("reason")), flush=True)
                    if not r["finished"]:
                        break
                results[key] = {"budget": budget, "rows": rows,
                                "date": time.strftime("%Y-%m-%d")}
                with open(results_path, "w") as f:
                    json.dump(results, f, indent=1)


def plot(results):
    """CPU time against invocations (log-log): one colour per shader, solid
    new, dashed old; circles one workgroup, squares two."""
    w, h, left, right, top, bottom = 820, 480, 70, 230, 30, 50
    pts = [r for s in results.values() for r in s["rows"] if r["finished"]]
    budget = max([s["budget"] for s in results.values()] + [1])
    lo = min([max(r["cpu"], 0.001) for r in pts] + [budget])
    lo_exp, hi_exp = math.floor(math.log10(lo)), math.ceil(math.log10(budget))
    pw, ph = w - left - right, h - top - bottom
    max_inv = 16

    def x(inv):
        return left + math.log2(inv) / math.log2(max_inv) * pw

    def y(t):
        t = max(t, 10 ** lo_exp)
        return top + (hi_exp - math.log10(t)) / (hi_exp - lo_exp) * ph

    out = scaling.frame((w, h, left, top, pw, ph), "Real shaders: CPU time of the race check "
                        "against invocations (log-log)", "invocations in the dispatch (log scale)",
                        (1, 2, 4, 8, 16), x, y, (lo_exp, hi_exp), budget)
    ly = top + 10
    for name in SHADERS:
        c = COLOURS[name]
        for engine, dash in (("new", ""), ("old", ' stroke-dasharray="6,4"')):
            for wg in WORKGROUPS:
                s = results.get("%s/%s/%d" % (name, engine, wg))
                rows = [r for r in (s["rows"] if s else []) if r["finished"]]
                if not rows:
                    continue
                line = " ".join("%.1f,%.1f" % (x(r["n"] * wg), y(r["cpu"])) for r in rows)
                out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                           % (line, c, dash))
                for r in rows:
                    xx, yy = x(r["n"] * wg), y(r["cpu"])
                    if wg == 1:
                        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (xx, yy, c))
                    else:
                        out.append('<rect x="%.1f" y="%.1f" width="6" height="6" fill="%s"/>'
                                   % (xx - 3, yy - 3, c))
            lx = left + pw + 12
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                       % (lx, ly, lx + 24, ly, c, dash))
            out.append('<text x="%d" y="%d">%s, %s</text>' % (lx + 30, ly + 4, name, engine))
            ly += 18
    for text in ("solid: vkmm's search (defaults)", "dashed: reference enumeration",
                 "circles: 1 workgroup", "squares: 2 workgroups"):
        out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (left + pw + 12, ly + 10, text))
        ly += 16
    out.append("</svg>")
    return "\n".join(out) + "\n"


def cmd_report():
    with open(os.path.join(OUT, "results.json")) as f:
        results = json.load(f)
    with open(os.path.join(ROOT, "docs", "shader-scaling.svg"), "w") as f:
        f.write(plot(results))
    print("| shader | engine | dispatch | answer | CPU | note |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in SHADERS:
        for engine in ENGINES:
            for wg in WORKGROUPS:
                s = results.get("%s/%s/%d" % (name, engine, wg))
                for r in (s["rows"] if s else []):
                    note = "" if r["finished"] else "not complete within %g s: %s" % (
                        s["budget"], (r.get("reason") or "")[:120])
                    print("| %s | %s | %d x %d | %s | %.2f s | %s |" % (
                        name, engine, wg, r["n"], r.get("answer") if r["finished"] else "undecided",
                        r["cpu"], note))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("run", "report"):
        sys.exit(__doc__)
    if sys.argv[1] == "run":
        cmd_run(sys.argv[2:])
    else:
        cmd_report()


if __name__ == "__main__":
    main()

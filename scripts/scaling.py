#!/usr/bin/env python3
"""Scaling families of issue 11: generate, run, plot.

Parameterised litmus tests in the Vulkan dialect of Dat3M
(docs/format-vulkan-litmus.md), generated for N = 2, 3, ... threads:

  mp-chain-N       N threads pass a flag down a chain (release/acquire,
                   device scope); the last one reads the first one's data.
  iriw-N           the IRIW generalisation: N//2 writers, the others
                   readers, each reading the written locations in a rotated
                   order (acquire loads, device scope).
  barrier-flags-N  N threads in N workgroups meet at a device barrier built
                   from an atomic counter and a flag; each stores before and
                   reads its neighbour's location after.
  barrier-flags-wg-N  the same at workgroup scope, the N threads in N
                   subgroups of one workgroup.
  ticketlock-N     N threads increment a plain counter under a ticket lock.
  taslock-N        the same under a test-and-set lock (an exchange in a
                   spin loop, as tests/fixtures/litmus-vulkan/spinlock-device.litmus).
  caslock-N        the same under a compare-exchange lock, as SPIR-V
                   assembly (`.spvasm`: the Vulkan litmus dialect has no
                   compare-exchange): OpAtomicCompareExchange of 0 -> 1
                   in a loop, one invocation per workgroup.

Every file states its expected answer in its comment and condition.

Usage (python3, standard library only):

  scripts/scaling.py gen [N ...]        write target/scaling/FAMILY-N.litmus
  scripts/scaling.py tests              (re)write tests/fixtures/litmus-scaling/ (N = 2, 3)
  scripts/scaling.py run [--budget S] [--max-n N] [--families a,b]
                         [--engines old,new] [--jobs J]
                                        run both engines, N = 2, 3, ... until a
                                        listing does not finish within the
                                        budget (CPU seconds, default 10);
                                        results in target/scaling/results.json;
                                        --jobs J passes -j J to vkmm (default:
                                        vkmm's, one thread per core; the CPU
                                        time is summed over the threads)
  scripts/scaling.py report             docs/scaling.svg and the markdown table
                                        (stdout) from target/scaling/results.json

The new engine is `vkmm check FILE` with its defaults; the old one adds
--engine reference (every search lever off: the reference enumeration; for
a listing the same as --no-spin-reduction --no-rmw-filter --no-specialise). Both run with the evaluation and order limits lifted
(--max-executions 1000000000 --max-writes 12, its largest value) so that the CPU budget is
the only bound. Time is the child's user+system CPU time (getrusage).
"""

import json
import math
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "scaling")
TESTS = os.path.join(ROOT, "tests", "fixtures", "litmus-scaling")
VKMM = os.environ.get("VKMM", os.path.join(ROOT, "target", "release", "vkmm"))

FAMILIES = ["mp-chain", "iriw", "barrier-flags", "barrier-flags-wg", "ticketlock", "taslock",
            "caslock"]

# The families written as SPIR-V assembly; the others are Vulkan litmus.
SPIRV = {"caslock"}
ENGINES = {
    "new": [],
    "old": ["--engine", "reference"],
}
LIFTED = ["--max-executions", "1000000000", "--max-writes", "12"]

ACQ = "ld.atom.acq.dv.sc0.semsc0"
REL = "st.atom.rel.dv.sc0.semsc0"


def layout(name, comment, init, threads, condition, one_workgroup=False):
    """A Vulkan-dialect litmus file: one workgroup per thread (or, with
    one_workgroup, one subgroup per thread in workgroup 0), columns padded."""
    n = len(threads)
    if one_workgroup:
        heads = ["P%d@sg %d, wg 0, qf 0" % (i, i) for i in range(n)]
    else:
        heads = ["P%d@sg 0, wg %d, qf 0" % (i, i) for i in range(n)]
    rows = max(len(t) for t in threads)
    cols = [[heads[i]] + threads[i] + [""] * (rows - len(threads[i])) for i in range(n)]
    width = [max(len(c) for c in col) for col in cols]
    lines = ["VULKAN %s" % name, '"' + comment.strip() + '"', "{"]
    lines.append(" ".join("%s=0;" % v for v in init))
    lines.append("}")
    for r in range(rows + 1):
        cells = [cols[i][r].ljust(width[i]) for i in range(n)]
        lines.append(" " + " | ".join(cells) + " ;")
    lines.append(condition)
    return "\n".join(lines) + "\n"


def mp_chain(n):
    threads = [["st.av.dv.sc0 x, 1", "%s f1, 1" % REL]]
    for i in range(1, n):
        t = ["L%d:" % i, "%s r0, f%d" % (ACQ, i), "beq r0, 0, L%d" % i]
        t.append("%s f%d, 1" % (REL, i + 1) if i < n - 1 else "ld.vis.dv.sc0 r1, x")
        threads.append(t)
    comment = """Message passing down a chain of %d threads, one per workgroup
 (generated by scripts/scaling.py). P0 stores x (MakePointerAvailable,
 device) and release-stores f1; each next thread spins on its flag with a
 device-scope acquire load, then release-stores the next flag; the last one
 reads x (MakePointerVisible, device).
 Expected: Always, no data race. Each acquire load that exits a spin loop
 reads 1 from the release store of the previous flag, so it
 synchronizes-with it; with program order in each thread this gives a
 happens-before chain from the store of x to the read of x, and the
 availability and visibility operations at device scope make the store
 visible to the read, which cannot read the initial value.""" % n
    flags = ["f%d" % i for i in range(1, n)]
    return layout("mp-chain-%d" % n, comment, ["x"] + flags, threads,
                  "forall (P%d:r1 == 1)" % (n - 1))


def iriw(n):
    w = max(1, n // 2)
    k = max(w, 2)
    threads = [["st.atom.rel.dv.sc0.semsc0 x%d, 1" % i] for i in range(w)]
    conj = []
    for j in range(n - w):
        p = w + j
        reads = ["%s r%d, x%d" % (ACQ, m, (j + m) % w) for m in range(k)]
        threads.append(reads)
        conj.append("P%d:r0 == 1 /\\ P%d:r%d == 0" % (p, p, k - 1))
    if w == 1:
        expect = """Never: with one writer every reader reads x0 twice, and seeing
 1 then 0 would make the second acquire load read a write that is
 location-ordered before the one its earlier load read (coherence of
 atomics at one location: read-read coherence)."""
    else:
        expect = """Sometimes (the IRIW shape): the Vulkan memory model has no
 sequentially consistent semantics and no multi-copy atomicity axiom;
 acquire loads order only the reader's own later accesses and the writes
 are unrelated, so readers may see the independent writes in
 disagreeing orders."""
    comment = """IRIW generalised to %d threads, one per workgroup (generated by
 scripts/scaling.py): %d writer(s) each release-store 1 to their own
 location; each of the %d readers reads %d locations with device-scope
 acquire loads, starting at a rotated index. The condition asks that every
 reader reads 1 first and 0 last.
 Expected: %s No data race (all accesses atomic).""" % (n, w, n - w, k, expect)
    return layout("iriw-%d" % n, comment, ["x%d" % i for i in range(w)], threads,
                  "exists (" + " /\\ ".join(conj) + ")")


def flag_barrier_threads(n, scope):
    threads = []
    for i in range(n):
        threads.append([
            "st.av.%s.sc0 x%d, 1" % (scope, i),
            "rmw.atom.acq_rel.%s.sc0.semsc0.add r0, count, 1" % scope,
            "bne r0, %d, W" % (n - 1),
            "st.atom.rel.%s.sc0.semsc0 flag, 1" % scope,
            "goto D",
            "W:",
            "ld.atom.acq.%s.sc0.semsc0 r1, flag" % scope,
            "beq r1, 0, W",
            "D:",
            "ld.vis.%s.sc0 r2, x%d" % (scope, (i + 1) % n),
        ])
    return threads


def barrier_flags_wg(n):
    comment = """A workgroup barrier for %d threads, each in its own subgroup of one
 workgroup, built from an atomic counter and a flag at workgroup scope
 (generated by scripts/scaling.py): barrier-flags-N with every scope
 `wg` (the stores MakePointerAvailable and the reads MakePointerVisible at
 workgroup scope). Expected: Always, no data race, for the reasons of
 barrier-flags-N: the adds read 0, 1, ..., N-1 in their modification order
 and each synchronizes-with the next; the last one happens-before the flag
 store, which synchronizes-with every waiter's exiting load (all the
 atomics are mutually in scope: one workgroup instance); so every store of
 x happens-before every read after the barrier and is available and
 visible in the workgroup's instance domain, which holds every thread.""" % n
    cond = " /\\ ".join("P%d:r2 == 1" % i for i in range(n))
    return layout("barrier-flags-wg-%d" % n, comment,
                  ["count", "flag"] + ["x%d" % i for i in range(n)],
                  flag_barrier_threads(n, "wg"), "forall (" + cond + ")",
                  one_workgroup=True)


def barrier_flags(n):
    threads = flag_barrier_threads(n, "dv")
    comment = """A device-wide barrier for %d threads, one per workgroup, built from
 an atomic counter and a flag (generated by scripts/scaling.py). Each thread
 stores its x (MakePointerAvailable, device), increments the counter with a
 device-scope acquire-release add; the one that reads N-1 (the last to
 arrive) release-stores the flag, the others spin on it with acquire loads.
 After the barrier each thread reads its neighbour's x (MakePointerVisible).
 Expected: Always, no data race. The adds are atomic on one location, so
 they read 0, 1, ..., N-1 in their modification order and each
 synchronizes-with the next one (an acquire RMW reading a release RMW, or an
 RMW of its release sequence); so every arrival happens-before the last
 add, which happens-before the flag store, which synchronizes-with every
 waiter's exiting load. Every store of x therefore happens-before every
 read after the barrier, and is available and visible at device scope.""" % n
    cond = " /\\ ".join("P%d:r2 == 1" % i for i in range(n))
    return layout("barrier-flags-%d" % n, comment,
                  ["count", "flag"] + ["x%d" % i for i in range(n)], threads,
                  "forall (" + cond + ")")


def counter_tail():
    return ["ld.nonpriv.sc0 r2, c", "add r2, r2, 1", "st.nonpriv.sc0 c, r2"]


def ticketlock(n):
    t = (["rmw.atom.dv.sc0.add r0, next, 1",
          "L:",
          "ld.atom.acq.dv.sc0.semsc0.semvis r1, serving",
          "bne r1, r0, L"]
         + counter_tail()
         + ["add r3, r0, 1", "st.atom.rel.dv.sc0.semsc0.semav serving, r3"])
    comment = """A ticket lock around a plain counter, %d threads, one per workgroup
 (generated by scripts/scaling.py). Each thread takes a ticket with a
 relaxed device-scope fetch-add on `next`, spins with device-scope acquire
 loads (MakeVisible) until `serving` equals its ticket, increments the
 non-private counter c with a plain read and write, and hands the lock on
 with a release store (MakeAvailable) of ticket+1 to `serving`.
 Expected: Always (c == N), no data race. The fetch-adds are atomic, so
 the tickets are 0..N-1, each once; the holder of ticket k > 0 exits its
 loop reading k from the release store of the holder of ticket k-1 (the
 only write of k to `serving`) and synchronizes-with it, so the
 increments happen one after the other, each made available and visible
 at device scope: the k-th reads k-1 and writes k.""" % n
    return layout("ticketlock-%d" % n, comment, ["next", "serving", "c"],
                  [list(t) for _ in range(n)], "forall (c == %d)" % n)


def taslock(n):
    t = (["L:",
          "rmw.atom.acq.dv.sc0.semsc0.semvis r0, l, 1",
          "bne r0, 0, L"]
         + counter_tail()
         + ["st.atom.rel.dv.sc0.semsc0.semav l, 0"])
    comment = """A test-and-set spin lock around a plain counter, %d threads, one
 per workgroup (generated by scripts/scaling.py; the shape of
 tests/fixtures/litmus-vulkan/spinlock-device.litmus). Each thread exchanges 1 into
 the lock word with device-scope acquire semantics (MakeVisible) until it
 reads 0, increments the non-private counter c with a plain read and write,
 and releases the lock with a release store of 0 (MakeAvailable). The
 dialect has no compare-exchange: this is the lock family that stands in
 for the CAS lock.
 Expected: Always (c == N), no data race. An exchange that reads 0 reads
 the initial value or a release store of 0, and two exchanges cannot read
 the same write (an RMW comes immediately after the write it reads in the
 modification order), so the holders follow one another, each acquiring
 from the previous release; the increments are ordered, available and
 visible at device scope. A failed exchange writes back the 1 it read,
 so its iteration can be dropped: the loop runs as an await (MODELS.md,
 "Read-modify-write spin loops") and the answer is complete; with
 --no-spin-reduction it is unrolled and paths are cut at the bound.""" % n
    return layout("taslock-%d" % n, comment, ["l", "c"], [list(t) for _ in range(n)],
                  "forall (c == %d)" % n)


def caslock(n):
    # Semantics 66 = Acquire (0x2) | UniformMemory (0x40), 68 = Release
    # (0x4) | UniformMemory; scope 1 = Device.
    return """; caslock-%(n)d: a compare-exchange spin lock around a plain counter, %(n)d
; invocations, one per workgroup (generated by scripts/scaling.py). Each
; compares the lock word with 0 and exchanges 1 (device scope, acquire on
; success, relaxed on failure) until it reads 0, increments the counter with
; a plain load (MakePointerVisible, device) and store (MakePointerAvailable,
; device), and releases the lock with an atomic release store of 0.
; Expected: Always (ctr == N), no data race. OpAtomicCompareExchange stores
; its value "only if Original Value equaled Comparator" (SPIR-V): a failed
; one writes nothing, so its iteration can be dropped (the loop runs as an
; await, MODELS.md "Read-modify-write spin loops"); two successful ones
; cannot read the same write ("If A is a write and B is a read-modify-write
; and B reads the value written by A, then B comes immediately after A in
; A's scoped modification order"), so each reads 0 from the initial value or
; a release store, the holders follow one another, each acquiring from the
; previous release, and the increments are ordered, available and visible
; at device scope: the k-th reads k-1 and writes k.
; @Input: %%lock = {{0}}
; @Input: %%ctr = {{0}}
; @Output: forall (%%ctr[0] == %(n)d)
; @Config: 1, 1, %(n)d
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %%main "main" %%lock %%ctr
               OpExecutionMode %%main LocalSize 1 1 1
               OpDecorate %%buf Block
               OpMemberDecorate %%buf 0 Offset 0
               OpDecorate %%lock DescriptorSet 0
               OpDecorate %%lock Binding 0
               OpDecorate %%ctr DescriptorSet 0
               OpDecorate %%ctr Binding 1
       %%void = OpTypeVoid
         %%fn = OpTypeFunction %%void
       %%uint = OpTypeInt 32 0
       %%bool = OpTypeBool
        %%buf = OpTypeStruct %%uint
       %%pbuf = OpTypePointer StorageBuffer %%buf
      %%puint = OpTypePointer StorageBuffer %%uint
       %%lock = OpVariable %%pbuf StorageBuffer
        %%ctr = OpVariable %%pbuf StorageBuffer
     %%uint_0 = OpConstant %%uint 0
     %%uint_1 = OpConstant %%uint 1
     %%device = OpConstant %%uint 1
        %%acq = OpConstant %%uint 66
        %%rel = OpConstant %%uint 68
        %%rlx = OpConstant %%uint 0
       %%main = OpFunction %%void None %%fn
      %%entry = OpLabel
         %%pl = OpAccessChain %%puint %%lock %%uint_0
         %%pc = OpAccessChain %%puint %%ctr %%uint_0
               OpBranch %%loop
       %%loop = OpLabel
        %%old = OpAtomicCompareExchange %%uint %%pl %%device %%acq %%rlx %%uint_1 %%uint_0
        %%got = OpIEqual %%bool %%old %%uint_0
               OpLoopMerge %%crit %%loop None
               OpBranchConditional %%got %%crit %%loop
       %%crit = OpLabel
          %%v = OpLoad %%uint %%pc MakePointerVisible|NonPrivatePointer %%device
         %%v1 = OpIAdd %%uint %%v %%uint_1
               OpStore %%pc %%v1 MakePointerAvailable|NonPrivatePointer %%device
               OpAtomicStore %%pl %%device %%rel %%uint_0
               OpReturn
               OpFunctionEnd
""" % {"n": n}


GEN = {
    "mp-chain": mp_chain,
    "iriw": iriw,
    "barrier-flags": barrier_flags,
    "barrier-flags-wg": barrier_flags_wg,
    "ticketlock": ticketlock,
    "taslock": taslock,
    "caslock": caslock,
}


def write(family, n, directory):
    os.makedirs(directory, exist_ok=True)
    ext = "spvasm" if family in SPIRV else "litmus"
    path = os.path.join(directory, "%s-%d.%s" % (family, n, ext))
    with open(path, "w") as f:
        f.write(GEN[family](n))
    return path


def run_one(path, engine, budget, jobs=None):
    """One `vkmm check --format json` under a CPU limit: a result row.
    `jobs`: the `-j` given to vkmm (None: its default, the machine's cores)."""
    args = [VKMM, "check", path, "--format", "json", "--timeout", str(int(budget * 20))]
    args += LIFTED + ENGINES[engine]
    if jobs is not None:
        args += ["-j", str(jobs)]

    def limit():
        cap = int(math.ceil(budget)) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 1))

    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limit)
    out, err = proc.communicate()
    wall = time.monotonic() - start
    # getrusage of the children: the only child that ended since the last call.
    row = {"engine": engine, "exit": proc.returncode, "wall": round(wall, 3), "jobs": jobs}
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    row["cpu"] = round(cpu - run_one.spent, 3)
    run_one.spent = cpu
    try:
        res = json.loads(out)["results"][0]
    except (ValueError, KeyError, IndexError):
        row.update(finished=False, reason="killed or no JSON (exit %s)" % proc.returncode)
        return row
    row.update({
        "executions": res.get("executions"),
        "consistent": res.get("consistent"),
        "partial": res.get("partial_evaluations"),
        "states": len(res.get("states", [])),
        "cut_paths": res.get("cut_paths"),
        "truncated": res.get("truncated"),
        "observation": res.get("observation"),
        "race_free": res.get("race_free"),
        "stopped_by": res.get("stopped_by"),
    })
    done = not res.get("truncated") and row["cpu"] <= budget
    row["finished"] = done
    if not done:
        row["reason"] = ("truncated: %s" % res.get("stopped_by")) if res.get("truncated") else "over budget"
    return row


run_one.spent = 0.0


def cmd_run(argv):
    budget, max_n, families, jobs = 10.0, 16, FAMILIES, None
    engines = list(ENGINES)
    i = 0
    while i < len(argv):
        if argv[i] == "--budget":
            budget = float(argv[i + 1])
        elif argv[i] == "--max-n":
            max_n = int(argv[i + 1])
        elif argv[i] == "--families":
            families = argv[i + 1].split(",")
        elif argv[i] == "--engines":
            engines = argv[i + 1].split(",")
        elif argv[i] == "--jobs":
            jobs = int(argv[i + 1])
        else:
            sys.exit("unknown option " + argv[i])
        i += 2
    results_path = os.path.join(OUT, "results.json")
    results = {}
    if os.path.exists(results_path):
        with open(results_path) as f:
            results = json.load(f)
    results["budget"] = budget
    # One unmeasured start of the binary, so that the first row does not
    # pay for a cold page cache.
    subprocess.run([VKMM, "--help"], stdout=subprocess.DEVNULL)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_one.spent = usage.ru_utime + usage.ru_stime
    runs = results.setdefault("runs", {})
    for fam in families:
        for eng in engines:
            rows = []
            for n in range(2, max_n + 1):
                path = write(fam, n, OUT)
                row = run_one(path, eng, budget, jobs)
                row["n"] = n
                rows.append(row)
                print("%-14s %-3s N=%-2d cpu %7.2f s  %s" % (
                    fam, eng, n, row["cpu"],
                    "ok" if row["finished"] else row.get("reason")),
                    {k: row.get(k) for k in ("executions", "partial", "states", "cut_paths")},
                    flush=True)
                if not row["finished"]:
                    break
            runs.setdefault(fam, {})[eng] = rows
            with open(results_path, "w") as f:
                json.dump(results, f, indent=1)


def largest(rows):
    ok = [r for r in rows if r["finished"]]
    return ok[-1] if ok else None


def cmd_report():
    with open(os.path.join(OUT, "results.json")) as f:
        results = json.load(f)
    runs = results["runs"]
    budget = results["budget"]
    print("| family | old: largest N | CPU | executions + partial | new: largest N | CPU | executions + partial | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for fam in FAMILIES:
        if fam not in runs:
            continue
        cells, ns = [], []
        for eng in ("old", "new"):
            best = largest(runs[fam].get(eng, []))
            if best is None:
                cells += ["none", "", ""]
                ns.append(0)
                continue
            cut = " (paths cut)" if best.get("cut_paths") else ""
            cells += ["%d%s" % (best["n"], cut), "%.2f s" % best["cpu"],
                      "{:,} + {:,}".format(best["executions"], best["partial"])]
            ns.append(best["n"])
        ratio = "%.1fx" % (ns[1] / ns[0]) if ns[0] else "-"
        print("| %s | %s | %s |" % (fam, " | ".join(cells), ratio))
    print()
    print("Per N (CPU seconds; executions + partial evaluations; states; `x` = not finished within %g s):" % budget)
    print()
    for fam in FAMILIES:
        if fam not in runs:
            continue
        for eng in ("old", "new"):
            rows = runs[fam].get(eng, [])
            parts = []
            for r in rows:
                if r["finished"]:
                    parts.append("N=%d %.2f s (%s + %s, %s states%s)" % (
                        r["n"], r["cpu"], r["executions"], r["partial"], r["states"],
                        ", cut" if r.get("cut_paths") else ""))
                else:
                    parts.append("N=%d x (%s)" % (r["n"], r.get("reason")))
            print("- %s, %s: %s" % (fam, eng, "; ".join(parts)))
    svg = plot(runs, budget)
    with open(os.path.join(ROOT, "docs", "scaling.svg"), "w") as f:
        f.write(svg)


COLOURS = {
    "mp-chain": "#1f77b4",
    "iriw": "#ff7f0e",
    "barrier-flags": "#2ca02c",
    "ticketlock": "#d62728",
    "taslock": "#9467bd",
    "caslock": "#8c564b",
    "barrier-flags-wg": "#17becf",
}


def frame(box, title, x_label, ticks, x, y, exps, budget):
    """The start of a log-log chart's SVG, as a list of lines: the title,
    a grid line per power of ten of seconds (`exps`: the least and the
    greatest exponent) and per tick of the x axis (`x`, `y`: data to
    picture coordinates), the budget's dashed line and the frame of the
    plotting area (`box`: width, height, left, top, plot width, plot
    height)."""
    w, h, left, top, pw, ph = box
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="14">%s</text>' % (left, title)]
    for e in range(exps[0], exps[1] + 1):
        yy = y(10 ** e)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (left, yy, left + pw, yy))
        label = ("%g s" % (10 ** e)) if e >= 0 else ("%g ms" % (10 ** (e + 3)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 6, yy + 4, label))
    for n in ticks:
        xx = x(n)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (xx, top, xx, top + ph))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (xx, top + ph + 16, n))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (left + pw / 2, h - 10, x_label))
    yb = y(budget)
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black" stroke-dasharray="2,3"/>'
               % (left, yb, left + pw, yb))
    out.append('<text x="%d" y="%.1f" text-anchor="end">budget</text>' % (left + pw - 2, yb - 4))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>' % (left, top, pw, ph))
    return out


def plot(runs, budget):
    """Line chart: CPU time against N (both logarithmic), one colour per family, solid = new."""
    w, h, left, right, top, bottom = 800, 460, 70, 210, 30, 50
    pts = [r for fam in runs.values() for rows in fam.values() for r in rows if r["finished"]]
    max_n = max([r["n"] for r in pts] + [4])
    lo = min([max(r["cpu"], 0.001) for r in pts] + [budget])
    lo_exp = math.floor(math.log10(lo))
    hi_exp = math.ceil(math.log10(budget))
    pw, ph = w - left - right, h - top - bottom

    def x(n):
        return left + math.log(n / 2) / math.log(max_n / 2) * pw

    def y(t):
        t = max(t, 10 ** lo_exp)
        return top + (hi_exp - math.log10(t)) / (hi_exp - lo_exp) * ph

    ticks = [n for n in (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 20, 24, 32, 40, 48, 64) if n <= max_n]
    out = frame((w, h, left, top, pw, ph), "Scaling families: CPU time of the full listing "
                "against threads N (log-log)", "N (threads, log scale)", ticks, x, y,
                (lo_exp, hi_exp), budget)
    ly = top + 10
    for fam in FAMILIES:
        if fam not in runs:
            continue
        c = COLOURS[fam]
        for eng, dash in (("new", ""), ("old", ' stroke-dasharray="6,4"')):
            rows = [r for r in runs[fam].get(eng, []) if r["finished"]]
            if rows:
                line = " ".join("%.1f,%.1f" % (x(r["n"]), y(r["cpu"])) for r in rows)
                out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>' % (line, c, dash))
                for r in rows:
                    shape = ('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' if eng == "new"
                             else '<rect x="%.1f" y="%.1f" width="6" height="6" fill="%s"/>')
                    if eng == "new":
                        out.append(shape % (x(r["n"]), y(r["cpu"]), c))
                    else:
                        out.append(shape % (x(r["n"]) - 3, y(r["cpu"]) - 3, c))
            lx = left + pw + 12
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                       % (lx, ly, lx + 24, ly, c, dash))
            out.append('<text x="%d" y="%d">%s, %s</text>' % (lx + 30, ly + 4, fam, eng))
            ly += 18
    out.append('<text x="%d" y="%d" fill="#555">solid: new engine (defaults)</text>' % (left + pw + 12, ly + 10))
    out.append('<text x="%d" y="%d" fill="#555">dashed: old (reference levers)</text>' % (left + pw + 12, ly + 26))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    cmd, rest = argv[0], argv[1:]
    if cmd == "gen":
        ns = [int(a) for a in rest] or list(range(2, 10))
        for fam in FAMILIES:
            for n in ns:
                print(write(fam, n, OUT))
    elif cmd == "tests":
        for fam in FAMILIES:
            for n in (2, 3):
                print(write(fam, n, TESTS))
    elif cmd == "run":
        cmd_run(rest)
    elif cmd == "report":
        cmd_report()
    else:
        sys.exit("unknown command %s (gen, tests, run, report)" % cmd)


if __name__ == "__main__":
    main()

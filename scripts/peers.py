#!/usr/bin/env python3
"""vkmm beside the peers of the field, on the same files, back to back.

    python3 scripts/peers.py [--vkmm target/release/vkmm]
                             [--alloy target/peers/alloy] [--herd target/peers/herd-legacy]
                             [--timeout 60]

Runs, for each suite, vkmm and whichever peer is set up (the setup scripts
are in ../shared/peers: see its README), and prints per suite the answers
that agree with the expected ones, the answers the tools agree on, both
times and their ratio:

- the Khronos `.test` suite (172 queries): vkmm `suite -j1` (one process),
  the Khronos Alloy model (`../shared/peers/alloy/run.sh`: one JVM);
- Dat3M's OpenCL litmus tests, converted to the legacy herd dialect by the
  herd setup: vkmm `check` and legacy herd with the POPL 2016
  `opencl_scopedsc.cat`, one process per file for both (herd has no batch
  mode), each with `--timeout` seconds; vkmm with `--local-memory shared`,
  herd's and Dat3M's reading of `local` variables.

A peer that is not set up is reported as such and skipped. The script
only reads the corpus; it writes nothing. Exit code 1 when vkmm disagrees
with an expected answer a peer gets right (vkmm's lead must hold on every
line), else 0.
"""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def timed(cmd, timeout=None, cwd=None):
    """(stdout, seconds, timed_out) of a command."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.stdout, time.monotonic() - start, False
    except subprocess.TimeoutExpired:
        return "", time.monotonic() - start, True


def ratio(peer, vkmm):
    return f"{peer / vkmm:.0f}x" if vkmm > 0 else "-"


def khronos(args):
    corpus = os.path.join(SHARED, "corpus", "khronos-alloy")
    out, t_vkmm, _ = timed([args.vkmm, "suite", corpus, "-j", "1", "--format", "json"])
    records = json.loads(out)["records"]
    # query index within its file, in line order (as litmus.cpp numbers them)
    by_file = {}
    for r in records:
        line = int(re.match(r"line (\d+)", r["query"]).group(1))
        by_file.setdefault(os.path.basename(r["file"]), []).append((line, r))
    vkmm = {}
    for f, rs in by_file.items():
        for i, (_, r) in enumerate(sorted(rs, key=lambda x: x[0])):
            vkmm[(f, i)] = (r["actual"], r["expected"])
    right = sum(1 for a, e in vkmm.values() if a == e)
    print(f"khronos-alloy, {len(vkmm)} queries")
    print(f"  vkmm  suite -j1       {right}/{len(vkmm)} as expected   {t_vkmm:8.2f} s (whole process)")
    alloy = args.alloy
    if not os.path.isdir(os.path.join(alloy, "build")):
        print(f"  Alloy                 not set up ({alloy}; bash ../shared/peers/alloy/setup.sh)")
        return True
    run = os.path.join(SHARED, "peers", "alloy", "run.sh")
    out, t_alloy, timed_out = timed(["bash", run, alloy])
    answers = {}
    for row in csv.reader(out.splitlines(), delimiter="\t"):
        if len(row) >= 3 and row[0] != "TOTAL":
            name = os.path.basename(row[0]).replace(".test.gen", ".test")
            answers[(name, int(row[1]))] = row[2]
    alloy_right = sum(1 for k, a in answers.items() if k in vkmm and a == vkmm[k][1])
    agree = sum(1 for k, a in answers.items() if k in vkmm and a == vkmm[k][0])
    print(f"  Alloy one JVM         {alloy_right}/{len(answers)} as expected   {t_alloy:8.2f} s{' (TIMED OUT)' if timed_out else ''}")
    print(f"  agree {agree}/{len(vkmm)}; Alloy/vkmm time {ratio(t_alloy, t_vkmm)}")
    lead_lost = [k for k, a in answers.items() if k in vkmm and a == vkmm[k][1] and vkmm[k][0] != vkmm[k][1]]
    for k in lead_lost:
        print(f"  vkmm wrong where Alloy is right: {k[0]} query {k[1]}")
    return not lead_lost


def herd_verdict(text):
    """Whether the condition holds (herd prints `Ok` or `No` after the states)."""
    for line in text.splitlines():
        if line.strip() == "Ok":
            return True
        if line.strip() == "No":
            return False
    return None


def opencl(args):
    corpus = os.path.join(SHARED, "corpus", "dat3m-opencl")
    herd = args.herd
    conv = os.path.join(herd, "conv")
    binary = os.path.join(herd, "herdtools", "herd", "herd.native")
    expected = {}
    with open(os.path.join(corpus, "OPENCL-expected.csv")) as f:
        for row in csv.reader(f):
            if len(row) >= 2 and row[0].endswith(".litmus"):
                expected[row[0]] = row[1].strip()
    if os.path.isdir(conv) and os.path.exists(binary):
        files = sorted(
            os.path.relpath(os.path.join(d, f), conv)
            for d, _, fs in os.walk(conv) for f in fs if f.endswith(".litmus")
        )
    else:
        files = sorted(
            os.path.relpath(os.path.join(d, f), corpus)
            for d, _, fs in os.walk(corpus) for f in fs if f.endswith(".litmus")
        )
    vkmm, t_vkmm = {}, 0.0
    for f in files:
        # `local` variables as herd and Dat3M read them: one location for
        # every work-group (vkmm's default is one per work-group, as the
        # specification says; docs/format-opencl.md).
        out, t, timed_out = timed(
            [args.vkmm, "check", "--local-memory", "shared", "--format", "json", os.path.join(corpus, f)],
            args.timeout)
        t_vkmm += t
        try:
            vkmm[f] = None if timed_out else json.loads(out)["results"][0].get("condition_holds")
        except (ValueError, KeyError, IndexError):
            vkmm[f] = None
    # Dat3M's CSV: 1 = the assertion (the condition) holds.
    def right(answers):
        return sum(1 for f, h in answers.items() if f in expected and h is not None and h == (expected[f] == "1"))
    known = [f for f in files if f in expected]
    print(f"dat3m-opencl, {len(files)} files ({len(known)} with an expected condition verdict)")
    print(f"  vkmm  check per file  {right(vkmm)}/{len(known)} as expected   {t_vkmm:8.2f} s ({sum(v is None for v in vkmm.values())} undecided)")
    if not (os.path.isdir(conv) and os.path.exists(binary)):
        print(f"  legacy herd           not set up ({herd}; bash ../shared/peers/herd-legacy/setup.sh GIT_DIR)")
        return True
    cats = os.path.join(herd, "opencl-cats")
    answers, t_herd, timeouts = {}, 0.0, []
    for f in files:
        out, t, timed_out = timed(
            [binary, "-initwrites", "true", "-model", "opencl_scopedsc.cat", os.path.join(conv, f)],
            args.timeout, cwd=cats)
        t_herd += t
        answers[f] = None if timed_out else herd_verdict(out)
        if timed_out:
            timeouts.append(f)
    agree = sum(1 for f in files if answers[f] is not None and answers[f] == vkmm[f])
    print(f"  legacy herd per file  {right(answers)}/{len(known)} as expected   {t_herd:8.2f} s ({len(timeouts)} timed out at {args.timeout} s: {', '.join(timeouts) or 'none'})")
    print(f"  agree {agree}/{len(files)}; herd/vkmm time {ratio(t_herd, t_vkmm)}")
    for f in files:
        if answers[f] is not None and vkmm[f] is not None and answers[f] != vkmm[f]:
            print(f"  differ: {f}: vkmm {vkmm[f]}, herd {answers[f]} (expected {expected.get(f, '?')})")
    lead_lost = [f for f in known if answers[f] is not None and answers[f] == (expected[f] == "1") and vkmm[f] != answers[f]]
    for f in lead_lost:
        print(f"  vkmm wrong where herd is right: {f}")
    return not lead_lost


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vkmm", default=os.path.join(ROOT, "target", "release", "vkmm"))
    p.add_argument("--alloy", default=os.path.join(ROOT, "target", "peers", "alloy"))
    p.add_argument("--herd", default=os.path.join(ROOT, "target", "peers", "herd-legacy"))
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per file (OpenCL)")
    p.add_argument("--suites", default="khronos,opencl", help="which: khronos, opencl (comma-separated)")
    args = p.parse_args()
    if not os.path.exists(args.vkmm):
        sys.exit(f"{args.vkmm}: not built (cargo build --release)")
    suites = args.suites.split(",")
    ok = True
    if "khronos" in suites:
        ok = khronos(args) and ok
    if "opencl" in suites:
        ok = opencl(args) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Every real-shader manifest row at twice its invocations: run, table.

The programs-search target: each row of ../shared/corpus/real-shaders/
manifest.csv answered completely at twice its invocations in under 60 s
of one core. This script writes that manifest (target/twice/manifest.csv,
rows in the corpus's order, so row K here is row K there) and the inputs
sized for it (target/twice/inputs.toml), then checks each row in its own
process under a CPU budget with the evaluation limit lifted, and prints
the table BENCHMARKS.md records.

How a row is doubled:

  - rows of two or more workgroups: twice the workgroups (the issue's
    "4 x 2" for a 2 x 2 row), every buffer sized per workgroup doubled
    (partitions, tiles, per-workgroup reductions);
  - rows of one workgroup whose sharing is within the workgroup (the WGSL
    spin locks, the hello-synchronization counter, the linked list, rts's
    single-workgroup spine scan) and SPD's rows (a source image for four
    workgroups would pass the 65,536 cells a variable may hold): twice the
    invocations of each workgroup, with the constant that names the
    workgroup's size doubled with it.

The answer at the doubled dispatch is whatever vkmm says (the manifest's
verdicts hold for its own dispatch only; an assertion such as
`output[0] == 2` may change its answer with the count): what is measured
is whether the check completes within the budget, and its CPU time.

Usage (python3, standard library only):

With `--per-workgroup` (results under target/twice/per-workgroup/), every
row is doubled by its invocations per workgroup instead, the workgroup
size constants (LG_WG_SIZE, BLOCK_DIM) with them.

  scripts/twice.py write [--per-workgroup]   the manifest and inputs only
  scripts/twice.py run [--per-workgroup] [--budget S] [--rows 1,2,...]
                                         each row, results in
                                         target/twice/results.json
  scripts/twice.py report [--per-workgroup]  the markdown table (stdout)
"""

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "twice")
CORPUS = os.path.abspath(os.path.join(ROOT, "..", "shared", "corpus", "real-shaders"))
VKMM = os.environ.get("VKMM", os.path.join(ROOT, "target", "release", "vkmm"))
LIFTED = ["--max-executions", "1000000000"]
# `--per-workgroup`: every row doubled by its invocations per workgroup
# (results under OUT/per-workgroup).
PER_WORKGROUP = False


def zero(n):
    return '{ length = %d, fill = "zero" }' % n


def counting(n):
    return "{ length = %d, values = [%s] }" % (n, ", ".join(str(i) for i in range(n)))


def vello_prefix(row):
    # 4 workgroups x 2 (LG_WG_SIZE=1, N_ROWS=1): 8 elements, 4 partitions;
    # or 2 x 4 (LG_WG_SIZE=2): 8 elements, 2 partitions.
    if PER_WORKGROUP:
        return ({"local_size": "4,1,1", "set": "LG_WG_SIZE=2;N_ROWS=1"},
                {"InBuf": counting(8), "OutBuf": "{ length = 8 }", "StateBuf": zero(2)})
    return {"workgroups": "4,1,1"}, {"InBuf": counting(8), "OutBuf": "{ length = 8 }",
                                     "StateBuf": zero(4)}


def linkedlist(row):
    # 1 workgroup x 4, N_ITER=2: the buckets and 2 words per allocation.
    return {"local_size": "4,1,1"}, {"MemBuf": zero(65536 + 2 * 2 * 4)}


def piet_prefix(row):
    # 4 workgroups (tiles): work_buf holds the tile counter and 4 words
    # per tile; one element per invocation.
    size, _, sub = row["local_size"].partition(" ")
    size = int(size.split(",")[0])
    if PER_WORKGROUP:
        n = size * 2 * 2
        return ({"local_size": "%d,1,1 %s" % (size * 2, sub)},
                {"InBuf": counting(n), "OutBuf": "{ length = %d }" % n, "WorkBuf": zero(1 + 4 * 2)})
    n = size * 4
    return {"workgroups": "4,1,1"}, {"InBuf": counting(n), "OutBuf": "{ length = %d }" % n,
                                     "WorkBuf": zero(1 + 4 * 4)}


def wgsl_loop(row):
    return {"local_size": "4,1,1"}, {}


def hello_sync(row):
    return {"local_size": "4,1,1"}, {"output": zero(1)}


def prefix_sums(row):
    # GPUPrefixSums: BLOCK_DIM * 4 vec4s per partition, one partition per
    # workgroup.
    block = int(row["set"].split("=")[1].rstrip("u"))
    entry = row["entry"]
    if entry == "spine_scan":
        # One workgroup scanning the partitions' reductions: twice its
        # invocations, the block size with them.
        block *= 2
        info = "{ size = %d, vec_size = %d, thread_blocks = 2 }" % (block * 16 * 2, block * 4 * 2)
        return ({"local_size": "%d,1,1 sg=4" % block, "set": "BLOCK_DIM=%du" % block},
                {"info": info, "reduction": "{ length = 2, values = [5, 7] }"})
    change, blocks = {"workgroups": "4,1,1"}, 4
    if PER_WORKGROUP:
        block *= 2
        change = {"local_size": "%d,1,1 sg=4" % block, "set": "BLOCK_DIM=%du" % block}
        blocks = 2
    vecs = block * 4 * blocks
    info = "{ size = %d, vec_size = %d, thread_blocks = %d }" % (vecs * 4, vecs, blocks)
    inputs = {"info": info, "scan_in": zero(vecs)}
    if entry != "reduce":
        inputs["scan_out"] = "{ length = %d }" % vecs
    if entry == "downsweep":
        values = [0, 5, 12, 20][:blocks]
        inputs["reduction"] = "{ length = %d, values = %s }" % (blocks, values)
    else:
        inputs["reduction"] = zero(blocks)
    return change, inputs


def spd(row):
    # Twice the invocations of each of the 2 workgroups (a 4-workgroup
    # dispatch needs a source wider than a variable's 65,536 cells): a
    # 128 x 64 source as in the corpus rows, x and y up to 3 at 8
    # invocations, so the last workgroup's mips 6 and 7 read imgDst6 up
    # to 16 x 16 and write mip 7 up to 8 x 8.
    n = int(row["local_size"].split(",")[0]) * 2
    sub = " sg=4" if "sg=" in row["local_size"] else ""
    inputs = {"spdConstants": "{ mips = 7, numWorkGroups = 2, workGroupOffset = [0, 0] }",
              "spdGlobalAtomic": '"zero"'}
    for k in range(6):
        inputs['"imgDst[%d]"' % k] = "{ extent = [%d, %d, 1] }" % (128 >> k, max(64 >> k, 1))
    inputs['"imgDst[7]"'] = "{ extent = [8, 8, 1] }"
    for k in range(8, 13):
        inputs['"imgDst[%d]"' % k] = "{ extent = [1, 1, 1] }"
    inputs["imgDst6"] = "{ extent = [16, 16, 1] }"
    return {"local_size": "%d,1,1%s" % (n, sub)}, inputs


# How each corpus shader is doubled, by the start of its manifest path.
DOUBLINGS = (
    ("vello-prefix", vello_prefix),
    ("vello-linkedlist", linkedlist),
    ("piet-gpu-hal-prefix", piet_prefix),
    ("wgsl-loop", wgsl_loop),
    ("wgpu-hello-synchronization", hello_sync),
    ("gpuprefixsums", prefix_sums),
    ("fidelityfx-spd", spd),
)


def doubling(row):
    for prefix, double in DOUBLINGS:
        if row["file"].startswith(prefix):
            return double(row)
    sys.exit("no doubling known for %s" % row["file"])


def rows():
    with open(os.path.join(CORPUS, "manifest.csv"), newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def cmd_write():
    os.makedirs(OUT, exist_ok=True)
    fields, data = rows()
    toml = []
    for i, row in enumerate(data, 1):
        change, inputs = doubling(row)
        row.update(change)
        row["file"] = os.path.join(CORPUS, row["file"])
        toml.append('[[shader]]\nfile = "%s"\nentry = "%s"\nrows = [%d]\n[shader.inputs]\n'
                    % (row["file"], row["entry"], i))
        toml.extend("%s = %s\n" % kv for kv in inputs.items())
        toml.append("\n")
    with open(os.path.join(OUT, "manifest.csv"), "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=fields)
        out.writeheader()
        out.writerows(data)
    with open(os.path.join(OUT, "inputs.toml"), "w") as f:
        f.write("".join(toml))
    return data


def run_row(k, total, budget):
    args = [VKMM, "suite", "--manifest", os.path.join(OUT, "manifest.csv"),
            "--inputs", os.path.join(OUT, "inputs.toml"), "--format", "json", "-j", "1",
            "--shard", "%d/%d" % (k, total), "--timeout", str(int(budget * 4))] + LIFTED

    def limit():
        cap = int(budget) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 1))

    out_path = os.path.join(OUT, "row-%d.json" % k)
    start = time.monotonic()
    with open(out_path, "w") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.DEVNULL, preexec_fn=limit)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    with open(out_path) as f:
        stdout = f.read()
    code = os.waitstatus_to_exitcode(status)
    result = {"row": k, "exit": code, "wall": round(wall, 2), "cpu": round(cpu, 2),
              "peak_mb": round(usage.ru_maxrss / 1024)}
    try:
        rec = json.loads(stdout)["records"][0]
    except (ValueError, KeyError, IndexError):
        why = "over the CPU budget" if code == -24 else "no JSON (exit %s)" % code
        result.update(answer=None, finished=False, reason=why)
        return result
    result.update(answer=rec.get("actual"), detail=rec.get("detail"))
    result["finished"] = rec.get("status") in ("passed", "failed") and cpu <= budget
    if not result["finished"]:
        result["reason"] = rec.get("detail") or "over budget"
    return result


def cmd_run(budget, only):
    data = cmd_write()
    path = os.path.join(OUT, "results.json")
    results = {}
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    for k in range(1, len(data) + 1):
        if only and k not in only:
            continue
        r = run_row(k, len(data), budget)
        r.update(commit=commit, budget=budget, dispatch="%s x %s" % (
            data[k - 1]["workgroups"].split(",")[0], data[k - 1]["local_size"].split(",")[0]))
        results[str(k)] = r
        print(json.dumps(r), flush=True)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


def cmd_report():
    with open(os.path.join(OUT, "results.json")) as f:
        results = json.load(f)
    _, data = rows()
    print("| row | shader | property | doubled dispatch | answer | CPU | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in sorted(results, key=int):
        r = results[k]
        row = data[int(k) - 1]
        answer = r.get("answer") if r.get("finished") else "no answer (%s)" % r.get("reason")
        print("| %s | %s [%s] | %s | %s | %s | %.1f s | %d MB |" % (
            k, row["file"], row["entry"], row["property"], r["dispatch"], answer, r["cpu"],
            r["peak_mb"]))


def main():
    global OUT, PER_WORKGROUP
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("write", "run", "report"))
    parser.add_argument("--per-workgroup", action="store_true")
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--rows", type=lambda text: {int(x) for x in text.split(",")})
    args = parser.parse_args()
    if args.per_workgroup:
        PER_WORKGROUP = True
        OUT = os.path.join(OUT, "per-workgroup")
    if args.command == "write":
        cmd_write()
    elif args.command == "run":
        cmd_run(args.budget, args.rows)
    else:
        cmd_report()


if __name__ == "__main__":
    main()

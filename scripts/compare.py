#!/usr/bin/env python3
"""Two commits of vkmm side by side: the scaling families and the litmus
corpora, run by both binaries in one run, workload by workload.

    python3 scripts/compare.py OLD [NEW] [--new-binary PATH] [--repeat R]
                               [--jobs J] [--only scaling,alloy,dat3m,opencl,liveness]

OLD and NEW are commits (anything `git rev-parse` takes; NEW defaults to
HEAD). Each is checked out with `git worktree add --detach` under
target/compare/src/SHA and built with `cargo build --release` into
target/compare/target (a target folder of its own, so that the checkout's
target/release/vkmm is never overwritten; seed it with
`cp -a target/release target/compare/target/` to reuse the compiled
dependencies). The binary is kept as target/compare/bin/vkmm-SHA and
reused by later runs. `--new-binary PATH` takes an already built binary
for NEW instead (e.g. target/release/vkmm of a working tree; one built
elsewhere may start a fraction of a millisecond slower or faster than
the script's own build, which shows on the corpora's small files: for
figures to keep, let the script build both).

For each workload the two binaries run alternately, R times each
(default 3), so that the load of a shared machine falls on both alike;
the table gives the fastest wall time of each and their ratio, the least
CPU time (user + system) of each and their ratio (steadier than the wall
on a loaded machine, where a run waits for a core), and checks that both
give the same answers (the exit code and the output with its times taken
out). Workloads:

- scaling: every family of scripts/scaling.py at one N each (FAMILY_N
  below), `vkmm check --format json` with the evaluation and order limits
  lifted as scaling.py lifts them;
- alloy: `vkmm suite` over the Khronos Alloy `.test` files;
- dat3m: the four Dat3M Vulkan CSVs (condition and races, with and
  without chains);
- opencl: the two Dat3M OpenCL CSVs;
- liveness: the five Dat3M liveness CSVs (termination; slow: not run
  unless named in --only).

The corpora are read from ../shared/corpus beside the repository (or
$VKMM_CORPUS). The table is printed as markdown on stdout; exit code 1
when the two binaries disagree on an answer.
"""

import os
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "compare")
CORPUS = os.environ.get("VKMM_CORPUS", os.path.join(os.path.dirname(ROOT), "shared", "corpus"))
if not os.path.isdir(CORPUS):
    CORPUS = "/work/shared/corpus"

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import scaling  # noqa: E402  (the families' generators)

# One N per family: near the largest N the default search lists within a
# few seconds (BENCHMARKS.md, Scaling families).
FAMILY_N = {
    "mp-chain": 40,
    "iriw": 7,
    "barrier-flags": 8,
    "barrier-flags-wg": 8,
    "ticketlock": 12,
    "taslock": 16,
    "caslock": 16,
}


def git(*args):
    return subprocess.run(["git", "-C", ROOT] + list(args), check=True,
                          capture_output=True, text=True).stdout.strip()


def build(rev):
    """The binary of commit `rev`, built once and kept."""
    sha = git("rev-parse", "--verify", rev + "^{commit}")
    short = sha[:7]
    binary = os.path.join(OUT, "bin", "vkmm-" + short)
    if os.path.exists(binary):
        return short, binary
    src = os.path.join(OUT, "src", short)
    if not os.path.isdir(src):
        git("worktree", "add", "--detach", src, sha)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(OUT, "target"))
    print("building %s in %s" % (short, src), file=sys.stderr)
    subprocess.run(["cargo", "build", "--release", "--bin", "vkmm"], cwd=src, env=env,
                   check=True)
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    built = os.path.join(OUT, "target", "release", "vkmm")
    with open(built, "rb") as f, open(binary, "wb") as g:
        g.write(f.read())
    os.chmod(binary, 0o755)
    return short, binary


# Times in the output ("Time 12 ms", "time_ms": 12, "in 1.2 s") differ
# from run to run; the answers around them must not.
TIMES = [
    re.compile(r'"[a-z_]*(time|_ms|_us|seconds|elapsed)[a-z_]*"\s*:\s*[0-9.eE+-]+'),
    re.compile(r"\b[0-9]+(\.[0-9]+)?\s*(ms|µs|us|s|min)\b"),
    re.compile(r"\btime\b[^\n]*", re.IGNORECASE),
]


def answers(text):
    for pattern in TIMES:
        text = pattern.sub("<t>", text)
    return text


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(binary, args):
    """Wall and CPU seconds of one run, its exit code and its answers."""
    cpu = cpu_of_children()
    start = time.monotonic()
    proc = subprocess.run([binary] + args, capture_output=True, text=True)
    wall = time.monotonic() - start
    return wall, cpu_of_children() - cpu, proc.returncode, answers(proc.stdout)


def workloads(only, jobs):
    j = ["-j", str(jobs)]
    out = []
    if "scaling" in only:
        directory = os.path.join(OUT, "scaling")
        for family, n in FAMILY_N.items():
            path = scaling.write(family, n, directory)
            out.append(("scaling", "%s-%d" % (family, n),
                        ["check", path, "--format", "json"] + scaling.LIFTED + j))
    if "alloy" in only:
        out.append(("corpus", "khronos-alloy (suite)",
                    ["suite", os.path.join(CORPUS, "khronos-alloy")] + j))
    if "dat3m" in only:
        d = os.path.join(CORPUS, "dat3m-vulkan")
        for csv, model, prop in [("VULKAN-expected", "vulkan", "condition"),
                                 ("VULKAN-NOCHAINS-expected", "vulkan-nochains", "condition"),
                                 ("VULKAN-DR-expected", "vulkan", "races"),
                                 ("VULKAN-DR-NOCHAINS-expected", "vulkan-nochains", "races")]:
            out.append(("corpus", "dat3m-vulkan " + csv,
                        ["suite", d, "--expected", os.path.join(d, csv + ".csv"),
                         "--model", model, "--property", prop] + j))
    if "opencl" in only:
        d = os.path.join(CORPUS, "dat3m-opencl")
        for csv, prop in [("OPENCL-expected", "condition"), ("OPENCL-DR-expected", "races")]:
            out.append(("corpus", "dat3m-opencl " + csv,
                        ["suite", d, "--expected", os.path.join(d, csv + ".csv"),
                         "--model", "opencl", "--local-memory", "shared",
                         "--property", prop] + j))
    if "liveness" in only:
        d = os.path.join(CORPUS, "dat3m-vulkan-liveness")
        for p, name in [("FAIR", "Fair"), ("OBE", "OBE"), ("HSA", "HSA"),
                        ("HSA_OBE", "HSA_OBE"), ("LOBE", "LOBE")]:
            csv = os.path.join(d, "VULKAN-Liveness-%s-expected.csv" % name)
            out.append(("corpus", "dat3m-liveness " + name,
                        ["suite", d, "--expected", csv, "--property", "termination",
                         "--progress", p, "--unroll", "2", "--max-writes", "12",
                         "--max-executions", "20000"] + j))
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    positional, new_binary, repeat, jobs = [], None, 3, 1
    only = {"scaling", "alloy", "dat3m", "opencl"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--new-binary":
            new_binary = argv[i + 1]
            i += 1
        elif a == "--repeat":
            repeat = int(argv[i + 1])
            i += 1
        elif a == "--jobs":
            jobs = int(argv[i + 1])
            i += 1
        elif a == "--only":
            only = set(argv[i + 1].split(","))
            i += 1
        elif a.startswith("-"):
            sys.exit("unknown option " + a)
        else:
            positional.append(a)
        i += 1
    if not 1 <= len(positional) <= 2:
        sys.exit("usage: scripts/compare.py OLD [NEW] [options] (see --help)")
    old, old_bin = build(positional[0])
    if new_binary:
        new, new_bin = "binary " + new_binary, new_binary
    else:
        new, new_bin = build(positional[1] if len(positional) > 1 else "HEAD")

    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print("date: %s; old: %s; new: %s; %d runs each, fastest wall and least CPU shown; -j %d; load %s"
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), old, new, repeat, jobs, load))
    print()
    print("| kind | workload | old wall | new wall | new/old | old CPU | new CPU | new/old"
          " | same answers |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    differ = False
    for kind, name, args in workloads(only, jobs):
        walls = {"old": [], "new": []}
        cpus = {"old": [], "new": []}
        seen = {}
        for _ in range(repeat):
            for side, binary in (("old", old_bin), ("new", new_bin)):
                wall, cpu, code, text = run(binary, args)
                walls[side].append(wall)
                cpus[side].append(cpu)
                seen[side] = (code, text)
        same = seen["old"] == seen["new"]
        differ |= not same
        o, n = min(walls["old"]), min(walls["new"])
        co, cn = min(cpus["old"]), min(cpus["new"])
        print("| %s | %s | %.2f s | %.2f s | %.2f | %.2f s | %.2f s | %.2f | %s |"
              % (kind, name, o, n, n / o if o else float("nan"),
                 co, cn, cn / co if co else float("nan"),
                 "yes" if same else "NO (exit %s vs %s)" % (seen["old"][0], seen["new"][0])),
              flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

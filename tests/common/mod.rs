//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Models, Property, TestOutcome, check_program, expected};

pub mod mutate;
mod skip;
#[allow(unused_imports)]
pub use skip::{corpus_or_skip, in_ci, skip, skip_part, tool_or_skip};

/// Where a property test keeps the cases it once failed on: one file per
/// test under `proptest-regressions/tests/` (`name`: the test file's name,
/// `differential-NAME` for a module of the differential binary). Cargo runs
/// tests in the package's root, which the path is relative to.
pub fn regressions(name: &str) -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    let path: &'static str =
        Box::leak(format!("proptest-regressions/tests/{name}.txt").into_boxed_str());
    Some(Box::new(
        proptest::test_runner::FileFailurePersistence::Direct(path),
    ))
}

/// How many generated cases a property test runs: `full` in the full tier
/// (the `slow-tests` feature, which CI turns on), an eighth of it (at least
/// 8) in `cargo test --release`'s sample.
pub const fn cases(full: u32) -> u32 {
    if cfg!(feature = "slow-tests") {
        full
    } else if full / 8 > 8 {
        full / 8
    } else {
        8
    }
}

/// Where a property test's random cases start: one fixed seed in
/// `cargo test --release`'s sample, so the quick tier runs the same cases
/// (and takes the same time) on every run; a fresh seed each run in the
/// full tier (`slow-tests`), which CI runs, so the full tier keeps finding
/// new cases. A failure prints its case either way, and the regressions
/// file keeps it.
pub const fn seed() -> proptest::test_runner::RngSeed {
    if cfg!(feature = "slow-tests") {
        proptest::test_runner::RngSeed::Random
    } else {
        proptest::test_runner::RngSeed::Fixed(0x766b_6d6d)
    }
}

/// The built-in OpenCL models.
pub const OPENCL_MODELS: [&str; 4] = [
    "opencl",
    "opencl-totalsc",
    "opencl-nothinair",
    "opencl-groupsync",
];

pub fn models() -> Models {
    Models::builtin("vulkan").expect("the built-in models parse")
}

pub fn check_text(name: &str, text: &str, models: &Models) -> TestOutcome {
    let program = vkmm::frontend::alloy_test::parse(name, text)
        .unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
    check_program(name, &program, models, Limits::default())
        .unwrap_or_else(|e| panic!("{name} cannot be checked: {e}"))
}

pub fn check_path(path: &Path, models: &Models) -> Result<TestOutcome, String> {
    let program = vkmm::frontend::load(path).map_err(|e| e.to_string())?;
    check_program(
        &path.display().to_string(),
        &program,
        models,
        Limits::default(),
    )
    .map_err(|e| e.to_string())
}

/// The outcome of a `.litmus` check (panics on any other answer).
pub fn litmus(checked: vkmm::analysis::Checked) -> vkmm::analysis::LitmusOutcome {
    match checked {
        vkmm::analysis::Checked::Litmus(o) => *o,
        _ => panic!("a litmus test"),
    }
}

/// `../shared/corpus/<sub>` relative to the crate, if present (a test that
/// cannot do without it takes [`corpus_or_skip`]).
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(sub);
    p.is_dir().then_some(p)
}

pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
        .collect();
    out.sort();
    out
}

/// Checks every `.test` file; returns the number of queries and a line per
/// query whose answer differs from its expectation (or per file that fails).
pub fn check_queries(files: &[PathBuf], models: &Models) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut failures = Vec::new();
    for f in files {
        match check_path(f, models) {
            Ok(o) => {
                for q in &o.queries {
                    total += 1;
                    if !q.passed {
                        failures.push(format!(
                            "{}:{}: `{}` expected {} got {}",
                            f.display(),
                            q.line,
                            q.query,
                            q.expected,
                            q.actual
                        ));
                    }
                }
            }
            Err(e) => failures.push(e),
        }
    }
    (total, failures)
}

/// vkmm's own OpenCL rule tests (tests/fixtures/litmus-opencl): every expected verdict
/// under `model`, as (file, property, holds). `opencl-totalsc` takes the
/// `opencl` rows, replaced by those of `expected-condition-totalsc.csv`.
pub fn opencl_own_expectations(model: &str) -> Vec<(PathBuf, Property, bool)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-opencl");
    let rows = |csv: &str| {
        let text = std::fs::read_to_string(dir.join(csv)).unwrap();
        vkmm::analysis::expected::parse(csv, &text, &dir).unwrap()
    };
    let overrides = match model {
        "opencl" => Vec::new(),
        "opencl-totalsc" => rows("expected-condition-totalsc.csv"),
        other => panic!("no own OpenCL expectations for model {other}"),
    };
    let mut out = Vec::new();
    for row in rows("expected-condition.csv") {
        let holds = overrides
            .iter()
            .find(|o| o.path == row.path)
            .map_or(row.holds, |o| o.holds);
        out.push((row.path, Property::Condition, holds));
    }
    for o in &overrides {
        assert!(
            out.iter().any(|(p, _, _)| *p == o.path),
            "{} is in expected-condition-totalsc.csv only",
            o.path.display()
        );
    }
    for row in rows("expected-races.csv") {
        out.push((row.path, Property::Races, row.holds));
    }
    out
}

/// Every `.litmus` and `.test` file below `dir`, sorted, except those `skip`
/// names (the differential tests' sampling).
pub fn litmus_files_below(dir: &Path, skip: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    files_below_with(dir, &["litmus", "test"], skip, out);
}

/// Every file below `dir` whose extension is one of `exts`, sorted,
/// except those `skip` names.
pub fn files_below_with(
    dir: &Path,
    exts: &[&str],
    skip: &dyn Fn(&Path) -> bool,
    out: &mut Vec<PathBuf>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_below_with(&p, exts, skip, out);
        } else if p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)) && !skip(&p) {
            out.push(p);
        }
    }
}

/// The lines `compare` gives for each of `files`, run on two threads (the
/// machine has two cores).
pub fn on_two_threads(
    files: &[PathBuf],
    compare: &(dyn Fn(&Path) -> Vec<String> + Sync),
) -> Vec<String> {
    let (left, right): (Vec<_>, Vec<_>) = files.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let run = |part: Vec<(usize, &PathBuf)>| {
        part.into_iter()
            .flat_map(|(_, p)| compare(p))
            .collect::<Vec<String>>()
    };
    std::thread::scope(|s| {
        let h = s.spawn(|| run(right));
        let mut out = run(left);
        out.extend(h.join().unwrap());
        out
    })
}

/// The text of a generated Vulkan litmus test named `gen`: `init` inside
/// the braces, one `header` cell and one column of `code` per thread,
/// then `condition`.
pub fn vulkan_litmus(
    init: &str,
    header: &[String],
    code: &[Vec<String>],
    condition: &str,
) -> String {
    let rows = code.iter().map(Vec::len).max().unwrap_or(0);
    let mut text = format!("VULKAN gen\n{{ {init} }}\n {} ;\n", header.join(" | "));
    for r in 0..rows {
        let cells: Vec<&str> = code
            .iter()
            .map(|c| c.get(r).map_or("", String::as_str))
            .collect();
        text.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    text.push_str(condition);
    text.push('\n');
    text
}

/// (file name, property, expected verdict) for every row of the two CSVs
/// of a folder of own litmus tests (`expected-condition.csv`,
/// `expected-races.csv`).
pub fn csv_rows(dir: &Path) -> Vec<(String, Property, bool)> {
    let mut out = Vec::new();
    for (csv, property) in [
        ("expected-condition.csv", Property::Condition),
        ("expected-races.csv", Property::Races),
    ] {
        let text = std::fs::read_to_string(dir.join(csv)).unwrap();
        for row in expected::parse(csv, &text, dir).unwrap() {
            let file = row.path.file_name().unwrap().to_str().unwrap().to_string();
            out.push((file, property, row.holds));
        }
    }
    out
}

/// The built-in model file `top` (e.g. `vulkan.cat`) with the files of
/// `replaced` (`(file name, text)`, `top` itself possibly among them) in
/// place of the embedded ones (mutation tests).
pub fn mutant(top: &str, replaced: &[(&str, &str)]) -> vkmm::model::LoadedModel {
    let resolve = |name: &str| -> Option<(String, String)> {
        match replaced.iter().find(|(f, _)| *f == name) {
            Some((_, text)) => Some((format!("mutant/{name}"), text.to_string())),
            None => vkmm::model::embedded(name).map(|t| (name.to_string(), t.to_string())),
        }
    };
    let (_, top_source) = resolve(top).unwrap_or_else(|| panic!("no built-in model file {top}"));
    let cat = vkmm::testing::cat::Model::parse(top, &top_source, &resolve)
        .unwrap_or_else(|e| panic!("mutant does not parse: {e}"));
    vkmm::model::LoadedModel::new(&format!("mutant of {top}"), cat)
        .unwrap_or_else(|e| panic!("mutant's profile: {e}"))
}

/// The model `vulkan` with `vulkan-rules.cat` replaced by `rules` and, when
/// given, `vulkan-spec-readings.cat` by `readings` (mutation tests).
pub fn vulkan_mutant(rules: &str, readings: Option<&str>) -> vkmm::model::LoadedModel {
    let mut replaced = vec![("vulkan-rules.cat", rules)];
    if let Some(r) = readings {
        replaced.push(("vulkan-spec-readings.cat", r));
    }
    mutant("vulkan.cat", &replaced)
}

/// The CSV rows of `dir` (see [`csv_rows`]) whose verdict under `model`
/// differs from the expected one, as `file (Property): got ...`.
pub fn csv_mismatches(dir: &Path, model: &vkmm::model::LoadedModel) -> Vec<String> {
    csv_rows(dir)
        .into_iter()
        .filter_map(|(file, property, holds)| {
            let program = vkmm::frontend::load(&dir.join(&file)).unwrap();
            let got = vkmm::analysis::check_litmus(&file, &program, model, Limits::default(), None)
                .map(|o| o.holds(property))
                .ok()
                .flatten();
            (got != Some(holds)).then(|| format!("{file} ({property:?}): got {got:?}"))
        })
        .collect()
}

/// Asserts every CSV row of `dir` (at least `min` of them) under the
/// built-in `vulkan` model, both decided early (stopping at the first
/// witness) and fully enumerated.
pub fn assert_csv_verdicts(dir: &Path, min: usize) {
    let model = vkmm::model::load("vulkan").unwrap();
    let rows = csv_rows(dir);
    assert!(rows.len() >= min, "both CSVs list the tests");
    for (file, property, holds) in rows {
        let program = vkmm::frontend::load(&dir.join(&file)).unwrap();
        for decide in [Some(property), None] {
            let o =
                vkmm::analysis::check_litmus(&file, &program, &model, Limits::default(), decide)
                    .unwrap();
            assert_eq!(
                o.holds(property),
                Some(holds),
                "{file} ({property:?}, {decide:?})"
            );
        }
    }
}

/// Runs the `vkmm` binary in the repository: exit code, stdout, stderr.
pub fn vkmm(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs vkmm with `args` as [`vkmm`] does and asserts that it ends
/// undecided (exit 3), its standard output holding each of `out_has` and
/// its standard error each of `err_has` (both shown when one is not);
/// returns (stdout, stderr) for what else the caller asserts.
pub fn vkmm_undecided(args: &[&str], out_has: &[&str], err_has: &[&str]) -> (String, String) {
    let (code, out, err) = vkmm(args);
    assert_eq!(
        code, 3,
        "{args:?}: exit {code}, not 3 (undecided)\n{out}{err}"
    );
    for (stream, text, wanted) in [("stdout", &out, out_has), ("stderr", &err, err_has)] {
        for w in wanted {
            assert!(
                text.contains(w),
                "{args:?}: no `{w}` on {stream}:\n{out}{err}"
            );
        }
    }
    (out, err)
}

/// The `missing:` line of `vkmm explain`'s race diagnosis of the test at
/// `path` (relative to the repository).
pub fn missing_line(path: &str) -> String {
    let (code, out, err) = vkmm(&["explain", path]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .find(|l| l.trim_start().starts_with("missing:"))
        .unwrap_or_else(|| panic!("{path}: no missing line in\n{out}"))
        .to_string()
}

/// Everything a whole search reports, minus the times: the final states
/// with their execution counts, the verdicts, the racing pairs, the numbers
/// of executions, partial evaluations and consistent executions, cut paths
/// and the limit that stopped it; a `.test` file's answers; a termination
/// verdict. Two searches that must be identical compare these.
pub fn search_summary(c: &vkmm::analysis::Checked) -> String {
    use vkmm::analysis::Checked;
    match c {
        Checked::Litmus(o) => format!(
            "states {:?}\ncondition {:?} race-free {:?}\nraces {:?}\ndivergence {:?} stalls {:?}\n\
             executions {} partial {} consistent {} cut {} truncated {} stopped {:?}",
            o.states,
            o.condition_holds,
            o.race_free,
            o.races
                .iter()
                .map(|r| format!("{} / {} @ {}", r.first, r.second, r.location))
                .collect::<Vec<_>>(),
            o.barrier_divergence,
            o.barrier_stalls,
            o.executions,
            o.partial_evaluations,
            o.consistent,
            o.cut_paths,
            o.truncated,
            o.stopped_by,
        ),
        Checked::Queries(o) => o
            .queries
            .iter()
            .map(|q| format!("line {}: {:?}\n", q.line, q.actual))
            .collect(),
        Checked::Termination(o) => format!("{:?}", o.verdict),
    }
}

/// `path` checked by the `reference` and the `other` session: nothing when
/// the two searches report the same ([`search_summary`]) or fail with the
/// same error, else one line naming the file and both reports.
pub fn same_search(
    path: &Path,
    reference: (&str, &vkmm::Session),
    other: (&str, &vkmm::Session),
) -> Vec<String> {
    let name = path.display().to_string();
    match (reference.1.check_file(path), other.1.check_file(path)) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (search_summary(&a), search_summary(&b));
            if a == b {
                Vec::new()
            } else {
                vec![format!("{name}:\n{}:\n{a}\n{}:\n{b}", reference.0, other.0)]
            }
        }
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Vec::new(),
        (a, b) => vec![format!(
            "{name}: {:?} / {:?}",
            a.err().map(|e| e.to_string()),
            b.err().map(|e| e.to_string())
        )],
    }
}

/// The DOT text `vkmm show` draws for the repository's file `rel`.
pub fn show_dot(rel: &str) -> String {
    let name = rel.replace('/', "-");
    let dot = std::env::temp_dir().join(format!("vkmm-show-{}-{name}.dot", std::process::id()));
    let (code, _, err) = vkmm(&["show", rel, "--dot", dot.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&dot).unwrap();
    let _ = std::fs::remove_file(&dot);
    text
}

/// Asserts that the `reference` and the `other` session report the same
/// whole search ([`same_search`]) on the repository's own tests and
/// examples and on the corpora dat3m-vulkan, khronos-alloy and
/// dat3m-opencl (those present), except the files `skip` names.
pub fn assert_same_searches_everywhere(
    reference: (&str, fn() -> vkmm::Session),
    other: (&str, fn() -> vkmm::Session),
    skip: &dyn Fn(&Path) -> bool,
) {
    assert_no_differences_everywhere(
        &|p| same_search(p, (reference.0, &reference.1()), (other.0, &other.1())),
        skip,
    );
}

/// `compare` (the differences it finds in one file, none when it agrees)
/// run on every own test and example and on the dat3m-vulkan,
/// khronos-alloy and dat3m-opencl corpora (those present), except the
/// files `skip` names; fails with every difference found.
pub fn assert_no_differences_everywhere(
    compare: &(dyn Fn(&Path) -> Vec<String> + Sync),
    skip: &dyn Fn(&Path) -> bool,
) {
    let check = |files: &[PathBuf]| {
        let diffs = on_two_threads(files, compare);
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    };
    let own = own_litmus_files(skip);
    assert!(own.len() > 200, "{} files", own.len());
    check(&own);
    for sub in ["dat3m-vulkan", "khronos-alloy", "dat3m-opencl"] {
        let Some(dir) = corpus_or_skip(sub) else {
            continue;
        };
        let mut files = Vec::new();
        litmus_files_below(&dir, skip, &mut files);
        assert!(!files.is_empty());
        check(&files);
    }
}

/// Every `.litmus` and `.test` file of the repository's own test
/// directories (`tests/fixtures/litmus*`) and of `examples/`, except those `skip`
/// names.
pub fn own_litmus_files(skip: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in own_test_dirs() {
        litmus_files_below(&d, skip, &mut files);
    }
    litmus_files_below(&root.join("examples"), skip, &mut files);
    files
}

/// The repository's own test folders (`tests/fixtures/litmus*`), sorted.
pub fn own_test_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("tests/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("litmus"))
        })
        .collect();
    dirs.sort();
    dirs
}

/// (condition holds, race-free) of the test at `path` under `vulkan`.
pub fn vulkan_verdicts(path: &Path) -> (bool, bool) {
    let model = vkmm::model::load("vulkan").unwrap();
    let program = vkmm::frontend::load(path).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    let o = vkmm::analysis::check_litmus(name, &program, &model, Default::default(), None).unwrap();
    (
        o.holds(Property::Condition).unwrap(),
        o.holds(Property::Races).unwrap(),
    )
}

/// `text` read as a SPIR-V assembly file `t.spvasm`; the error as printed.
pub fn parse_spvasm(text: &str) -> Result<vkmm::ir::Program, String> {
    vkmm::frontend::parse_text(
        "t.spvasm",
        text,
        vkmm::frontend::Format::Spirv,
        Default::default(),
    )
    .map_err(|e| e.to_string())
}

/// The line (1-based) of `text` that starts with `prefix`.
pub fn line_starting(text: &str, prefix: &str) -> usize {
    text.lines().position(|l| l.starts_with(prefix)).unwrap() + 1
}

/// What the outcome-directed verdict walk (`directed`) and the full walk
/// (`full`), both asked for the condition only, disagree on
/// (tests/engine/condition_directed.rs): the directed walk must be on (a
/// quantified condition), give the full walk's verdict wherever the full
/// walk decides, be complete wherever it is, cut the same paths, and
/// evaluate no more candidates.
pub fn directed_differences(
    name: &str,
    full: &vkmm::analysis::LitmusOutcome,
    directed: &vkmm::analysis::LitmusOutcome,
) -> Vec<String> {
    let mut out = Vec::new();
    // A walk the clock stopped proves nothing either way.
    let timeout = Some(vkmm::LimitKind::Timeout);
    if full.stopped_by == timeout || directed.stopped_by == timeout {
        return out;
    }
    if directed.condition_only != full.quantifier.is_some() || full.condition_only {
        out.push(format!(
            "{name}: condition_only {} / {} with quantifier {:?}",
            full.condition_only, directed.condition_only, full.quantifier
        ));
    }
    let (f, d) = (
        full.holds(Property::Condition),
        directed.holds(Property::Condition),
    );
    if (f.is_some() || !full.truncated) && f != d {
        out.push(format!(
            "{name}: condition: full walk {f:?}, directed {d:?} (full truncated: {}, directed truncated: {})",
            full.truncated, directed.truncated
        ));
    }
    if !full.truncated && directed.truncated {
        out.push(format!(
            "{name}: the directed walk is truncated, the full one is not"
        ));
    }
    if full.cut_paths != directed.cut_paths {
        out.push(format!(
            "{name}: cut paths {} / {}",
            full.cut_paths, directed.cut_paths
        ));
    }
    if directed.executions + directed.partial_evaluations
        > full.executions + full.partial_evaluations
    {
        out.push(format!(
            "{name}: {} + {} evaluations, the full walk {} + {}",
            directed.executions,
            directed.partial_evaluations,
            full.executions,
            full.partial_evaluations
        ));
    }
    out
}

/// `text` (a generated litmus test ending in an `exists` line) with each
/// of the three quantifiers, both walks asked for the condition only
/// under `session` (the limits of the generator's test): what they
/// disagree on ([`directed_differences`]).
pub fn directed_agrees_on_quantifiers(text: &str, session: &vkmm::Session) -> Vec<String> {
    let Some(at) = text.rfind("exists") else {
        return vec![format!("no exists line:\n{text}")];
    };
    let mut out = Vec::new();
    for q in ["exists", "~exists", "forall"] {
        let variant = format!("{}{q}{}", &text[..at], &text[at + "exists".len()..]);
        let run = |directed: bool| {
            // Only the outcome-directed lever differs: the directed walk
            // never factors observation reads (it skips candidates one by
            // one), so the full walk it is measured against does not
            // either (factored, the full walk can take fewer evaluations
            // than the directed one: 1 + 9 against 7 + 6 on a generated
            // lock program).
            let s = session
                .with_decide(Some(Property::Condition))
                .reduction(vkmm::Reduction::OutcomeDirected, directed)
                .reduction(vkmm::Reduction::ReadFactoring, false);
            match s.check_text("generated.litmus", &variant) {
                Ok(vkmm::Checked::Litmus(o)) => *o,
                Ok(_) => panic!("not a litmus test:\n{variant}"),
                Err(e) => panic!("{e}\n{variant}"),
            }
        };
        let (full, directed) = (run(false), run(true));
        for d in directed_differences(&format!("generated ({q})"), &full, &directed) {
            out.push(format!("{d}\n{variant}"));
        }
    }
    out
}

/// The thread table of a generated Vulkan litmus test: the header of one
/// thread per `(workgroup, code lines)` (subgroup 0, queue family 0), then
/// the code row by row, each line ended by ` ;`.
pub fn vulkan_thread_table(threads: &[(usize, Vec<String>)]) -> String {
    let mut text = String::new();
    let header: Vec<String> = threads
        .iter()
        .enumerate()
        .map(|(i, (wg, _))| format!("P{i}@sg 0, wg {wg}, qf 0"))
        .collect();
    text.push_str(&header.join(" | "));
    text.push_str(" ;\n");
    let rows = threads.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    for row in 0..rows {
        let cells: Vec<&str> = threads
            .iter()
            .map(|(_, c)| c.get(row).map(String::as_str).unwrap_or(""))
            .collect();
        text.push_str(&cells.join(" | "));
        text.push_str(" ;\n");
    }
    text
}

/// The difference between two checks of `path` (`a` by the setting named
/// `names.0`, `b` by `names.1`) as `answers` summarises them: nothing when
/// they agree, when `answers` leaves either out, or when both fail alike.
pub fn differing_answers(
    path: &Path,
    names: (&str, &str),
    (a, b): (
        Result<vkmm::analysis::Checked, vkmm::Error>,
        Result<vkmm::analysis::Checked, vkmm::Error>,
    ),
    answers: &dyn Fn(&vkmm::analysis::Checked) -> Option<String>,
) -> Vec<String> {
    match (a, b) {
        (Ok(a), Ok(b)) => match (answers(&a), answers(&b)) {
            (Some(a), Some(b)) if a != b => {
                vec![format!(
                    "{}:\n{}:\n{a}\n{}:\n{b}",
                    path.display(),
                    names.0,
                    names.1
                )]
            }
            _ => Vec::new(),
        },
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Vec::new(),
        (a, b) => vec![format!(
            "{}: {:?} / {:?}",
            path.display(),
            a.err().map(|e| e.to_string()),
            b.err().map(|e| e.to_string())
        )],
    }
}

/// [`search_summary`] without the numbers of candidates and partial
/// evaluations (what a lever that skips inconsistent candidates changes),
/// and with the number of cut paths only as "some" when `cut_as_flag` (a
/// lever that makes fewer paths changes it). `None` for a truncated search,
/// and with `cut_as_flag` for one stopped by a limit (also its walk over
/// executions stopping at the bound): under a budget two walks see
/// different executions.
pub fn answers_of(c: &vkmm::analysis::Checked, cut_as_flag: bool) -> Option<String> {
    let prefix_stopped = |o: &vkmm::analysis::LitmusOutcome| {
        o.prefix_walk
            .as_ref()
            .is_some_and(|p| p.stopped_by.is_some())
    };
    if let vkmm::analysis::Checked::Litmus(o) = c
        && (o.truncated || (cut_as_flag && (o.stopped_by.is_some() || prefix_stopped(o))))
    {
        return None;
    }
    let text = search_summary(c);
    Some(
        text.lines()
            .map(|l| match l.strip_prefix("executions ") {
                Some(tail) => {
                    let rest = tail.split_once("consistent ").map_or("", |(_, t)| t);
                    if !cut_as_flag {
                        return format!("consistent {rest}");
                    }
                    // "N cut C truncated T stopped S": C only as "some".
                    let words: Vec<&str> = rest.split_whitespace().collect();
                    let cut = words.get(2).is_some_and(|c| *c != "0");
                    format!(
                        "consistent {} cut {cut} {}",
                        words.first().copied().unwrap_or(""),
                        words.get(3..).map(|r| r.join(" ")).unwrap_or_default()
                    )
                }
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// What an outcome listing answers (states with counts, verdict, counts,
/// races as a sorted set: a lever may meet them in another order); `None`
/// when a limit stopped the search.
pub fn listing_answers(o: &vkmm::analysis::LitmusOutcome) -> Option<String> {
    if o.truncated
        || o.stopped_by.is_some()
        || o.prefix_walk.is_some_and(|p| p.stopped_by.is_some())
    {
        return None;
    }
    // (Where the threads of a race's witness stop at the bound is the
    // witness's: the first execution met that shows the pair, which the
    // walk order picks. `races_stopping_at_the_bound_name_their_image`
    // checks it where only one witness exists.)
    let mut races: Vec<String> = o
        .races
        .iter()
        .map(|r| format!("{} / {} @ {}", r.first, r.second, r.location))
        .collect();
    races.sort();
    Some(format!(
        "states {:?}\ncondition {:?} positive {} negative {} consistent {}\n\
         race-free {:?} races {races:?}\ndivergence {:?} stalls {:?} cut {}",
        o.states,
        o.condition_holds,
        o.positive,
        o.negative,
        o.consistent,
        o.race_free,
        o.barrier_divergence,
        o.barrier_stalls,
        o.cut_paths > 0,
    ))
}

/// Whether `glslangValidator` can run (Debian `glslang-tools`); without
/// it the caller returns after [`skip`] (a failure under CI, which installs
/// it).
pub fn glslang() -> bool {
    tool_or_skip("glslangValidator", "--version", "glslang-tools")
}

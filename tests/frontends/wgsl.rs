//! WGSL compute shaders (`.wgsl`, docs/format-wgsl.md): compiled by naga in
//! process, then lowered as a SPIR-V module. Small shaders of tests/fixtures/wgsl/
//! with verdicts derived by hand (each test says how), the error cases,
//! and the WGSL rows of the real-shader corpus
//! (../shared/corpus/real-shaders/manifest.csv).
//!
//! naga writes `OpMemoryModel GLSL450`. Under vkmm's literal reading of
//! such a module, a plain workgroup access is private and is not ordered
//! by barriers with other invocations' accesses; the GLSL reading
//! (workgroup memory implicitly coherent) orders it. The zero-
//! initialisation store naga adds for every workgroup variable is such a
//! plain access, so a verdict about a workgroup variable depends on the
//! reading even in a shader that only uses atomics on it. The fixtures
//! here that must not depend on it use storage buffers only; the tests
//! that do depend on it say so.

use crate::common;
use common::glslang;

use std::path::{Path, PathBuf};
use vkmm::analysis::LitmusOutcome;
use vkmm::analysis::termination::{Progress, Verdict};
use vkmm::frontend::ShaderOptions;
use vkmm::ir::{Condition, OpKind, Quantifier, Stmt};
use vkmm::{Checked, Error, Session};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wgsl")
        .join(name)
}

fn text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

fn entry(name: &str) -> ShaderOptions {
    ShaderOptions {
        entry: Some(name.into()),
        ..ShaderOptions::default()
    }
}

fn litmus(session: Session, name: &str, source: &str) -> LitmusOutcome {
    match session.check_text(name, source) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{name}: {other:?}"),
    }
}

fn termination(session: Session, progress: &str, name: &str, source: &str) -> Verdict {
    let p: Progress = progress.parse().unwrap();
    match session.termination(Some(p)).check_text(name, source) {
        Ok(Checked::Termination(o)) => o.verdict,
        other => panic!("{name}: {other:?}"),
    }
}

fn input_error(session: Session, name: &str, source: &str) -> String {
    match session.load_text(name, source) {
        Err(e @ Error::Input(_)) => e.to_string(),
        other => panic!("{name}: expected an input error, got {other:?}"),
    }
}

// ----- Synchronisation ------------------------------------------------------

/// mp-storage.wgsl: invocation 0 does atomicStore(&flag, 1) (relaxed),
/// then storageBarrier() = OpControlBarrier(Workgroup, Workgroup,
/// AcquireRelease|UniformMemory); invocation 1 passes the barrier and
/// loads flag. The barrier synchronises the two, so the store happens
/// before the load, and coherence forbids reading the older initial 0:
/// out[0] == 1 in every execution. Atomics only: race-free. Without the
/// barrier nothing orders them, so the load may read 0.
#[test]
fn storage_barrier_passes_the_message_and_its_absence_does_not() {
    let source = text("mp-storage.wgsl");
    let o = litmus(Session::new(), "mp-storage.wgsl", &source);
    assert_eq!(o.condition_holds, Some(true), "{o:?}");
    assert_eq!(o.race_free, Some(true), "{o:?}");
    let without = source.replace("    storageBarrier();\n", "\n");
    assert_ne!(without, source);
    let o = litmus(Session::new(), "mp-storage.wgsl", &without);
    assert_eq!(o.condition_holds, Some(false), "{o:?}");
    assert_eq!(o.race_free, Some(true), "{o:?}");
}

/// spin.wgsl: a lock taken by atomicExchange in a `loop`. HSA guarantees
/// progress only to the lowest-numbered unfinished invocation: invocation
/// 1 can take the lock and never run again, and invocation 0 then spins
/// forever. Under OBE, invocation 1 has executed a step, so it is
/// scheduled fairly, releases the lock, and invocation 0 takes it. The
/// HSA verdict needs the loop to be a plain loop: naga's loop-bounding
/// counter (off in vkmm) would end it after 2^64 iterations. The OBE
/// verdict is complete: an iteration whose exchange read 1 wrote 1 back,
/// so the loop is an await and no path is cut.
///
/// spin-workgroup.wgsl holds the lock in a workgroup variable, which naga
/// zero-initialises with a plain store by invocation 0 followed by a
/// workgroup barrier: the barrier orders that store before every exchange,
/// so it cannot race with one and the loop is still an await (same
/// verdicts, complete).
#[test]
fn a_wgsl_spin_lock_may_spin_forever_under_hsa_and_terminates_under_obe() {
    for name in ["spin.wgsl", "spin-workgroup.wgsl"] {
        let source = text(name);
        assert_eq!(
            termination(Session::new(), "HSA", name, &source),
            Verdict::NonTerminating,
            "{name}"
        );
        let p: Progress = "OBE".parse().unwrap();
        match Session::new()
            .termination(Some(p))
            .check_text(name, &source)
        {
            Ok(Checked::Termination(o)) => {
                assert_eq!(o.verdict, Verdict::Terminates, "{name}");
                assert!(o.complete(), "{name}: {o:?}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// look-back-subgroup.wgsl (the verdicts are derived in the file): a
/// group instruction makes the lowering number each loop's iterations.
/// The edges into the loop's header do that (the entry edge saves the key,
/// a back edge counts), not a flag the header tests, so an iteration that
/// reads 0 arrives back at the head in the state it left it and repeats:
/// at unroll 0 HSA and OBE find the one-iteration witness, and FAIR ends
/// with no path cut. With a back-edge flag live at the head the first
/// iteration never repeats the state at the loop's entry: the witness
/// needs unroll 1 and FAIR's spin is cut.
#[test]
fn a_look_back_spin_beside_a_subgroup_operation_repeats_at_unroll_0() {
    let name = "look-back-subgroup.wgsl";
    let source = text(name);
    for (progress, verdict) in [
        ("HSA", Verdict::NonTerminating),
        ("OBE", Verdict::NonTerminating),
        ("FAIR", Verdict::Terminates),
    ] {
        let p: Progress = progress.parse().unwrap();
        match Session::new()
            .unroll(0)
            .termination(Some(p))
            .check_text(name, &source)
        {
            Ok(Checked::Termination(o)) => {
                assert_eq!(o.verdict, verdict, "{progress}: {o:?}");
                assert!(o.complete(), "{progress}: {o:?}");
                assert_eq!(o.unroll, 0, "{progress}: {o:?}");
            }
            other => panic!("{progress}: {other:?}"),
        }
    }
}

/// bounded-spin.wgsl and reset-spin.wgsl (the verdicts are derived in the
/// files): a loop whose test compares a counter with a constant. Every
/// iteration of bounded-spin's loop that goes round again adds one to the
/// counter, so the unrolling bound counts none of them and the answer is
/// complete at every bound (counted, the path reading 0 three times is cut
/// at unroll 2 and the answer only holds within the bound). reset-spin's
/// iterations that set the counter back are counted: its spin on 1 is
/// found, and the walk ends.
#[test]
fn a_spin_bounded_by_its_counter_terminates_at_every_bound() {
    for unroll in [0, 1, 2] {
        for progress in ["FAIR", "HSA", "OBE"] {
            let p: Progress = progress.parse().unwrap();
            for (name, verdict) in [
                ("bounded-spin.wgsl", Verdict::Terminates),
                ("reset-spin.wgsl", Verdict::NonTerminating),
            ] {
                match Session::new()
                    .unroll(unroll)
                    .termination(Some(p.clone()))
                    .check_text(name, &text(name))
                {
                    Ok(Checked::Termination(o)) => {
                        assert_eq!(o.verdict, verdict, "{name} {progress} u{unroll}: {o:?}");
                        assert!(o.complete(), "{name} {progress} u{unroll}: {o:?}");
                    }
                    other => panic!("{name} {progress} u{unroll}: {other:?}"),
                }
            }
        }
    }
}

/// long-loop.wgsl and long-loop-over.wgsl (the verdicts are derived in
/// the files): a loop with a constant trip count of 200 runs whole at
/// every unrolling bound (its iterations past the 64 free ones move the
/// counter towards the bound), and the counter's 200 values settle in the
/// value-domain fixpoint (one round per increment); at 1,100 iterations,
/// past what a path may run uncounted, the path is cut and the answer is
/// not a verdict.
#[test]
fn a_loop_with_a_constant_trip_count_runs_whole() {
    for unroll in [0, 2] {
        let o = litmus(
            Session::new().unroll(unroll),
            "long-loop.wgsl",
            &text("long-loop.wgsl"),
        );
        assert_eq!(o.cut_paths, 0, "u{unroll}: {o:?}");
        assert!(!o.truncated, "u{unroll}: {o:?}");
        assert_eq!(o.race_free, Some(true), "u{unroll}: {o:?}");
        let values: Vec<Option<i64>> = o.states.iter().map(|(s, _)| s.get("out[0]")).collect();
        assert_eq!(values, [Some(200)], "u{unroll}: {o:?}");
    }
    let o = litmus(
        Session::new(),
        "long-loop-over.wgsl",
        &text("long-loop-over.wgsl"),
    );
    assert!(o.cut_paths > 0, "{o:?}");
    assert_eq!(o.race_free, None, "{o:?}");
}

/// count-invocations.wgsl (the verdicts are derived in the file): N
/// invocations' increments in N! orders. At 20 the count is exact; at 24
/// it passes 2^64 - 1 and the outcome says it is saturated (the count
/// stays at 2^64 - 1, a lower bound) instead of a wrapped sum.
#[test]
fn execution_counts_past_64_bits_are_saturated_and_said_to_be() {
    let source = text("count-invocations.wgsl");
    for (n, consistent, saturated) in [
        (20, 2_432_902_008_176_640_000u64, false),
        (24, u64::MAX, true),
    ] {
        let session = Session::new().shader(ShaderOptions {
            local_size: Some([n, 1, 1]),
            ..ShaderOptions::default()
        });
        let o = litmus(session, "count-invocations.wgsl", &source);
        assert_eq!(o.race_free, Some(true), "{n}: {o:?}");
        assert_eq!(o.consistent, consistent, "{n}: {o:?}");
        assert_eq!(o.counts_saturated, saturated, "{n}: {o:?}");
        let states: Vec<(Option<i64>, u64)> = o
            .states
            .iter()
            .map(|(s, c)| (s.get("out[0]"), *c))
            .collect();
        assert_eq!(states, [(Some(i64::from(n)), consistent)], "{n}: {o:?}");
        let report = vkmm::report::text::litmus(&o);
        assert_eq!(
            report.contains("Counts: some pass 2^64 - 1"),
            saturated,
            "{n}: {report}"
        );
    }
}

/// spin-beside-others.wgsl (the verdicts are derived in the file): the
/// termination search walks the blocks of endings with the fewest
/// finished invocations first, so under HSA the witness it reports leaves
/// the invocations it need not schedule unstarted; under FAIR they are
/// scheduled fairly and finish.
#[test]
fn the_first_witness_has_the_fewest_finished_invocations() {
    let name = "spin-beside-others.wgsl";
    let source = text(name);
    for (progress, others) in [("HSA", "never started"), ("FAIR", "finished")] {
        let p: Progress = progress.parse().unwrap();
        match Session::new()
            .termination(Some(p))
            .check_text(name, &source)
        {
            Ok(Checked::Termination(o)) => {
                assert_eq!(o.verdict, Verdict::NonTerminating, "{progress}: {o:?}");
                let w = o.witness.as_ref().expect("a witness");
                let fates: Vec<&str> = w.threads.iter().map(|f| f.fate.as_str()).collect();
                assert_eq!(fates, ["stuck", others, others], "{progress}: {o:?}");
            }
            other => panic!("{progress}: {other:?}"),
        }
    }
}

/// clamp.wgsl: `out` has one element and invocation i writes out[i] = i+1.
/// naga's Restrict policy clamps index 1 to 0 (wgpu's choice for WGSL's
/// out-of-bounds rule), so invocation 1 writes 2 to out[0]: the outcome
/// out[0] == 2 exists, and the two plain stores to out[0] race. Were the
/// access undefined instead, it would write nothing and 2 would never be
/// stored.
#[test]
fn an_index_past_the_end_is_clamped_to_the_last_element() {
    let o = litmus(Session::new(), "clamp.wgsl", &text("clamp.wgsl"));
    assert_eq!(o.condition_holds, Some(true), "{o:?}");
    assert_eq!(o.race_free, Some(false), "{o:?}");
}

/// length.wgsl: `out` is `array<u32>` with 3 elements from its @Input.
/// arrayLength (OpArrayLength) is 3, which invocation 0 stores in out[0];
/// invocation 1's out[7] is clamped to out[2] = 5 (naga clamps a runtime
/// array's index to arrayLength - 1); out[1] keeps its 0.
#[test]
fn array_length_is_the_runtime_arrays_input_length() {
    let o = litmus(Session::new(), "length.wgsl", &text("length.wgsl"));
    assert_eq!(o.condition_holds, Some(true), "{o:?}");
    assert_eq!(o.race_free, Some(true), "{o:?}");
    // Four elements: the length is 4, and out[7] lands on out[3].
    let four = text("length.wgsl")
        .replace("{{0, 0, 0}}", "{{0, 0, 0, 0}}")
        .replace(
            "%out[0][0] == 3 and %out[0][1] == 0 and %out[0][2] == 5",
            "%out[0][0] == 4 and %out[0][2] == 0 and %out[0][3] == 5",
        );
    let o = litmus(Session::new(), "length.wgsl", &four);
    assert_eq!(o.condition_holds, Some(true), "{o:?}");
}

/// zero-init.wgsl never writes `w`: every invocation reads WGSL's zero.
/// naga's polyfill is part of the program: local invocation 0 stores 0 to
/// `w` at the line of `fn main` (7), and every invocation then passes a
/// workgroup control barrier before the body. Whether that plain store
/// races with invocation 1's plain load of `w` depends on the memory-model
/// reading of GLSL450 modules (see the file comment); its presence and
/// place do not.
#[test]
fn workgroup_memory_is_zero_initialised_by_invocation_0_before_a_barrier() {
    let source = text("zero-init.wgsl");
    let o = litmus(Session::new(), "zero-init.wgsl", &source);
    assert_eq!(o.condition_holds, Some(true), "{o:?}");
    let p = Session::new().load_text("zero-init.wgsl", &source).unwrap();
    // Each invocation's accesses and barriers: ('S' store, 'L' load,
    // 'B' control barrier, with the source line).
    let ops = |t: usize| -> Vec<(char, usize)> {
        p.threads[t]
            .code
            .iter()
            .filter_map(|s| match s {
                Stmt::Op(i) => match i.kind {
                    OpKind::Store => Some(('S', i.source.line)),
                    OpKind::Load => Some(('L', i.source.line)),
                    OpKind::ControlBarrier { .. } => Some(('B', i.source.line)),
                    _ => None,
                },
                Stmt::Goto { source, .. } => Some(('G', source.line)),
                Stmt::Branch { source, .. } => Some(('J', source.line)),
                _ => None,
            })
            .collect()
    };
    // ('G' a jump, 'J' a conditional one: the branch on the invocation
    // index is folded per invocation.) Invocation 0: the store of zero at
    // line 7, then the barrier, then the body's load of `w` and its store
    // to out[0] at line 8.
    assert_eq!(ops(0), [('S', 7), ('B', 7), ('L', 8), ('S', 8)]);
    // Invocation 1 never reaches the store of zero: its block is not
    // lowered for it (docs/format-spirv.md, "Values known per invocation").
    assert_eq!(ops(1), [('B', 7), ('L', 8), ('S', 8)]);
}

// ----- Entry points, constants and errors -----------------------------------

/// entries.wgsl has two compute entry points: without --entry, an error
/// listing both and naming --entry; with one, that entry point alone.
/// `first` writes out[i] = 1 (distinct cells: race-free), `second` writes
/// out[0] = i from both invocations (a race).
#[test]
fn several_entry_points_need_entry_and_only_the_chosen_one_is_checked() {
    let source = text("entries.wgsl");
    let e = input_error(Session::new(), "entries.wgsl", &source);
    assert!(
        e.contains("2 @compute entry points (`first`, `second`)") && e.contains("--entry NAME"),
        "{e}"
    );
    let o = litmus(
        Session::new().shader(entry("first")),
        "entries.wgsl",
        &source,
    );
    assert_eq!(o.race_free, Some(true), "{o:?}");
    let o = litmus(
        Session::new().shader(entry("second")),
        "entries.wgsl",
        &source,
    );
    assert_eq!(o.race_free, Some(false), "{o:?}");
    let e = input_error(
        Session::new().shader(entry("third")),
        "entries.wgsl",
        &source,
    );
    assert!(
        e.contains("--entry third") && e.contains("`first`, `second`"),
        "{e}"
    );
}

/// consts.wgsl: invocation 1 writes out[0] = N * 1000 + K and out[1] =
/// helper() (its own N, 100). As written N = 4, K = 9: 4009 and 100.
/// `--set N=2u` replaces the module's const (not the comment's, not the
/// function's), `--set K=3` sets the override: 2003 and 100.
#[test]
fn set_gives_a_module_const_or_an_override_another_value() {
    let source = text("consts.wgsl");
    let check = |set: &[(&str, &str)], expect: &str| {
        let shader = ShaderOptions {
            set: set
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            ..ShaderOptions::default()
        };
        let with = format!("{source}// @Output: forall ({expect})\n");
        let o = litmus(Session::new().shader(shader), "consts.wgsl", &with);
        assert_eq!(o.condition_holds, Some(true), "{set:?}: {o:?}");
    };
    check(&[], "%out[0][0] == 4009 and %out[0][1] == 100");
    check(
        &[("N", "2u"), ("K", "3")],
        "%out[0][0] == 2003 and %out[0][1] == 100",
    );
    // The array has N elements: at N = 2 there is no out[3].
    let shader = ShaderOptions {
        set: vec![("N".into(), "2u".into())],
        ..ShaderOptions::default()
    };
    let with = format!("{source}// @Output: forall (%out[0][3] == 0)\n");
    let e = input_error(Session::new().shader(shader), "consts.wgsl", &with);
    assert!(e.contains("%out[0][3]"), "{e}");
}

#[test]
fn set_of_an_unknown_name_is_an_error_naming_it() {
    let shader = ShaderOptions {
        set: vec![("BLOCK_DIM".into(), "8u".into())],
        ..ShaderOptions::default()
    };
    let e = input_error(
        Session::new().shader(shader),
        "consts.wgsl",
        &text("consts.wgsl"),
    );
    assert!(
        e.contains("--set BLOCK_DIM")
            && e.contains("no module-scope `const BLOCK_DIM` or `override BLOCK_DIM`"),
        "{e}"
    );
}

#[test]
fn defines_on_a_wgsl_shader_are_an_error() {
    let shader = ShaderOptions {
        defines: vec![("X".into(), Some("1".into()))],
        ..ShaderOptions::default()
    };
    let e = input_error(
        Session::new().shader(shader),
        "spin.wgsl",
        &text("spin.wgsl"),
    );
    assert!(e.contains("-D X") && e.contains("no preprocessor"), "{e}");
}

/// naga's parse errors at the line and column of their span, with naga's
/// message; validation errors likewise.
#[test]
fn naga_errors_carry_their_line_and_column() {
    let e = input_error(
        Session::new(),
        "bad.wgsl",
        "@compute @workgroup_size(1)\nfn main() {\n    let x = ;\n}\n",
    );
    assert!(e.starts_with("bad.wgsl:3:13: naga: "), "{e}");
    let e = input_error(
        Session::new(),
        "bad.wgsl",
        "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = 1.5;\n}\n",
    );
    assert!(e.starts_with("bad.wgsl:3:"), "{e}");
    let e = input_error(Session::new(), "bad.wgsl", "fn f() {}\n");
    assert!(e.contains("no @compute entry point"), "{e}");
}

/// Every prefix of every fixture, and byte-level mutants of them (spans
/// deleted, duplicated, replaced by WGSL tokens; a seeded xorshift), is a
/// shader or an error, never a panic of naga or of the lowering: a panic
/// inside naga is caught and reported as an error naming naga, and one
/// anywhere else fails this test.
#[test]
fn no_prefix_or_mutant_of_a_fixture_panics() {
    const TOKENS: [&str; 12] = [
        "{",
        "}",
        "(",
        ")",
        ";",
        "loop",
        "atomicAdd(&",
        "workgroupBarrier();",
        "array<u32, 0>",
        "var<workgroup>",
        "@compute",
        "0xffffffffu",
    ];
    let mut state: u64 = 0x5eed_0000_0000_0017;
    let mut next = |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1) as u64) as usize
    };
    let session = || Session::new().max_executions(20).unroll(1);
    for name in [
        "spin.wgsl",
        "consts.wgsl",
        "mp-storage.wgsl",
        "zero-init.wgsl",
    ] {
        let source = text(name);
        for end in (0..source.len()).step_by(7) {
            let _ = session().check_text(name, &source[..end]);
        }
        for _ in 0..150 {
            let mut t = source.clone().into_bytes();
            for _ in 0..1 + next(3) {
                let a = next(t.len());
                let b = (a + next(12)).min(t.len());
                match next(3) {
                    0 => {
                        t.drain(a..b);
                    }
                    1 => {
                        let span = t[a..b].to_vec();
                        t.splice(a..a, span);
                    }
                    _ => {
                        let tok = TOKENS[next(TOKENS.len())].as_bytes().to_vec();
                        t.splice(a..b, tok);
                    }
                }
            }
            let t = String::from_utf8_lossy(&t).into_owned();
            let _ = session().check_text(name, &t);
        }
    }
}

// ----- The real-shader corpus ------------------------------------------------

/// `file` of ../shared/corpus/real-shaders, or None after
/// [`common::skip`] (a failure under CI) where it is missing.
fn corpus(file: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/real-shaders")
        .join(file);
    if path.exists() {
        return Some(path);
    }
    common::skip(&format!("../shared/corpus/real-shaders/{file} is missing"));
    None
}

/// Checks the shader file at `path`, as written, for `forall (expr)` (the
/// manifest's assertion rows), the condition given as `--outcome` is.
fn assertion(session: Session, path: &Path, expr: &str) -> LitmusOutcome {
    let mut program = session.load_file(path).unwrap();
    let parsed = vkmm::frontend::parse_outcome(&program, expr).unwrap();
    program.condition = Some(Condition {
        quantifier: Some(Quantifier::Forall),
        expr: parsed,
        filter: None,
        text: format!("forall ({expr})"),
    });
    match session.check_program(&path.display().to_string(), &program) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{path:?}: {other:?}"),
    }
}

fn dispatch(name: &str, local: [u32; 3], groups: [u32; 3]) -> ShaderOptions {
    ShaderOptions {
        entry: Some(name.into()),
        local_size: Some(local),
        workgroups: Some(groups),
        ..ShaderOptions::default()
    }
}

/// wgsl-loop/loop.wgsl, its 12 manifest rows (local size 2, 1 workgroup):
/// each entry point takes a workgroup spin lock with atomicOr and does a
/// plain ctr++ on a storage buffer. WGSL atomics are relaxed, so the lock
/// orders nothing and the two ctr++ race (a storage buffer: no reading of
/// workgroup memory involved). HSA: invocation 1 can take the lock and
/// never run again while invocation 0 repeats its atomicOr forever. OBE:
/// the lock holder, having run, is scheduled fairly and releases it
/// (within the unrolling bound, as for spin.wgsl).
#[test]
fn wgsl_loop_rows() {
    let Some(path) = corpus("wgsl-loop/loop.wgsl") else {
        return;
    };
    let source = std::fs::read_to_string(&path).unwrap();
    let name = path.display().to_string();
    for e in [
        "loop_continue",
        "loop_break",
        "while_other_has_lock",
        "while_self_has_not_lock",
    ] {
        let session = || Session::new().shader(dispatch(e, [2, 1, 1], [1, 1, 1]));
        let o = litmus(session(), &name, &source);
        assert_eq!(o.race_free, Some(false), "{e}: races: {o:?}");
        assert_eq!(
            termination(session(), "HSA", &name, &source),
            Verdict::NonTerminating,
            "{e}: HSA"
        );
        assert_eq!(
            termination(session(), "OBE", &name, &source),
            Verdict::Terminates,
            "{e}: OBE"
        );
    }
}

/// wgpu-hello-synchronization/shaders.wgsl, hasty_main's assertion row:
/// no barrier between invocation 1's atomicAdd (line 26) and invocation
/// 0's atomicLoad (line 28), so invocation 0 can add and load before
/// invocation 1 adds: output[0] == 1 is reachable, output[0] == 2 fails
/// in some execution. This holds under either reading of workgroup memory
/// (the zero-initialisation store, if unordered, only adds outcomes).
#[test]
fn hello_synchronization_hasty_may_read_one() {
    let Some(path) = corpus("wgpu-hello-synchronization/shaders.wgsl") else {
        return;
    };
    let o = assertion(
        Session::new().shader(dispatch("hasty_main", [2, 1, 1], [1, 1, 1])),
        &path,
        "%output[0][0] == 2",
    );
    assert_eq!(o.condition_holds, Some(false), "{o:?}");
}

/// patient_main's rows and hasty_main's races row: race-free, and
/// output[0] == 2 in every execution after the barrier. These need the
/// GLSL reading of naga's GLSL450 module: under the literal reading the
/// zero-initialisation store of `count` (plain, by invocation 0, before
/// the polyfill's barrier) is not location-ordered with invocation 1's
/// atomicAdd, so it races and can overwrite the increment.
#[test]

fn hello_synchronization_patient_reads_two_and_neither_races() {
    let Some(path) = corpus("wgpu-hello-synchronization/shaders.wgsl") else {
        return;
    };
    let o = assertion(
        Session::new().shader(dispatch("patient_main", [2, 1, 1], [1, 1, 1])),
        &path,
        "%output[0][0] == 2",
    );
    assert_eq!(o.condition_holds, Some(true), "{o:?}");
    assert_eq!(o.race_free, Some(true), "{o:?}");
    let o = assertion(
        Session::new().shader(dispatch("hasty_main", [2, 1, 1], [1, 1, 1])),
        &path,
        "%output[0][0] == 2",
    );
    assert_eq!(o.race_free, Some(true), "{o:?}");
}

// ----- HLSL -----------------------------------------------------------------

/// race.hlsl through glslang's HLSL front end: invocation i writes
/// buf[0].a[i] (distinct cells: race-free); with -D SAME both write
/// buf[0].a[0], plain and unordered: a race, at line 8. Without --entry,
/// an error naming it; a compile error at its line.
#[test]
fn hlsl_compiles_with_its_entry_point_and_defines() {
    if !glslang() {
        return;
    }
    let source = text("race.hlsl");
    let o = litmus(Session::new().shader(entry("cs")), "race.hlsl", &source);
    assert_eq!(o.race_free, Some(true), "{o:?}");
    let same = ShaderOptions {
        entry: Some("cs".into()),
        defines: vec![("SAME".into(), None)],
        ..ShaderOptions::default()
    };
    let o = litmus(Session::new().shader(same), "race.hlsl", &source);
    assert_eq!(o.race_free, Some(false), "{o:?}");
    assert!(
        o.races.iter().any(|r| r.first.contains("line 8:")),
        "{:?}",
        o.races
    );
    // Without --entry, the one function with [numthreads] is the entry
    // point: the same race-free answer.
    let o = litmus(Session::new(), "race.hlsl", &source);
    assert_eq!(o.race_free, Some(true), "{o:?}");
    let bad = source.replace("id.x] = 1;", "id.x] = undeclared;");
    let e = input_error(Session::new().shader(entry("cs")), "race.hlsl", &bad);
    assert!(e.starts_with("race.hlsl:10:"), "{e}");
}

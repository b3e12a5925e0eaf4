//! A bound reached inside the front end (the search for the cells of a
//! large buffer, docs/checking-your-shader.md "Large buffers") leaves the
//! answer undecided (exit 3) with what the check covered: never an error,
//! never a verdict. The fixture is tests/fixtures/shader-limits/chase.comp. These
//! tests need glslangValidator: without it they fail under CI and print
//! SKIPPED elsewhere.

use crate::common;
use common::{glslang, vkmm};

const CHASE: &str = "tests/fixtures/shader-limits/chase.comp";

/// `vkmm check --property races` on the chase at `steps` steps, unrolled
/// to 8, the buffer 65536 words long (more than 4096: sparse).
fn chase(steps: &str, extra: &[&str]) -> (i32, String, String) {
    let define = format!("STEPS={steps}");
    let mut args = vec![
        "check",
        "--property",
        "races",
        "--unroll",
        "8",
        "-D",
        &define,
        "--length",
        "Mem=65536",
    ];
    args.extend_from_slice(extra);
    args.push(CHASE);
    vkmm(&args)
}

#[test]
fn the_cell_search_completes_and_finds_the_race() {
    if !glslang() {
        return;
    }
    // Two steps, by hand: the four invocations add to mem[0] and get 0,
    // 1, 2, 3 (RMW atomicity), so step 0 leads them to four distinct slots
    // 4096 + 1000 * (v % 4); each is visited once, so step 1's add returns
    // 0 everywhere and leads every invocation to 4096 + 1000 * 1 = 5096.
    // The invocation that stood on 5096 after step 0 adds to it (atomic)
    // while the others store to it (plain), unordered: racy. Only the
    // path walk finds 5096 (it is an index held in a register).
    let (code, out, err) = chase("2", &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: yes"), "{out}");
    assert!(out.contains("[5096]"), "{out}");
    assert!(!err.contains("undecided"), "{err}");
}

#[test]
fn a_cell_search_stopped_by_the_timeout_is_undecided() {
    if !glslang() {
        return;
    }
    // Six steps unrolled to 8: every add splits a path over every value
    // its slot can hold, and the slots' values grow each round of the
    // search, far past what three seconds walk. (Three, not one: on a
    // loaded machine compiling and lowering the shader can take a second,
    // and the limit then stops the check before the search starts.)
    let (code, out, err) = chase("6", &["--timeout", "3"]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        err.contains("undecided: the search for the cells a large buffer's accesses reach did not finish: stopped at the time limit (--timeout)"),
        "{err}"
    );
    assert!(out.contains("Data races: undecided"), "{out}");
    assert!(!err.contains("error"), "{err}");
}

#[test]
fn a_cell_search_stopped_by_the_path_bound_is_undecided() {
    if !glslang() {
        return;
    }
    // Deterministic: at 6 steps one invocation has more than 50 paths in
    // the first rounds of the search (each add splits over 4 values).
    let (code, out, err) = chase("6", &["--max-paths", "50"]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(err.contains("did not finish"), "{err}");
    assert!(err.contains("(--max-paths)"), "{err}");
    assert!(out.contains("Data races: undecided"), "{out}");
}

#[test]
fn a_program_the_front_end_left_part_built_gives_no_verdict_whatever_the_check_covers() {
    if !glslang() {
        return;
    }
    // The front end called outside a session has no path walk: the search
    // stops at once, the accesses at register-held indices get no cell and
    // are marked out of bounds, and the program carries the limit. The
    // check itself then runs to the end (two steps: a few hundred
    // executions) and lists what it saw, yet neither answer is a verdict.
    use vkmm::frontend::inputs::{Contents, Input};
    use vkmm::frontend::{Options, ShaderOptions};
    let options = Options {
        shader: ShaderOptions {
            defines: vec![("STEPS".into(), Some("2".into()))],
            inputs: vec![Input {
                target: "Mem".into(),
                contents: Contents::Default,
                length: Some(65536),
                extent: None,
                origin: None,
            }],
            ..ShaderOptions::default()
        },
        ..Options::default()
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHASE);
    let program = vkmm::frontend::load_with(&path, options).expect("loads");
    let limit = program.front_end_limit.clone().expect("a limit");
    assert!(limit.contains("no path walk outside a request"), "{limit}");
    let checked = vkmm::Session::new()
        .check_program(CHASE, &program)
        .expect("checks");
    assert!(!checked.complete());
    let o = common::litmus(checked);
    assert!(!o.states.is_empty(), "the states covered are listed");
    assert!(!o.truncated, "the check itself ran to the end");
    assert_eq!(o.race_free, None);
    assert_eq!(o.holds(vkmm::Property::Races), None);
    assert_eq!(o.front_end_limit.as_deref(), Some(limit.as_str()));
}

#[test]
fn explain_gives_no_verdict_on_a_program_the_front_end_left_part_built() {
    if !glslang() {
        return;
    }
    // The chase at two steps, loaded outside a session (no path walk: the
    // front end stops at once and the program carries the limit, as in
    // the test above). Every invocation runs a bounded loop, so built
    // whole the program terminates under any progress model, and its
    // own condition-less outcome explanation would list what the walk
    // saw; part built, neither is the shader's answer: both undecided.
    use vkmm::analysis::explain::Verdict as Explained;
    use vkmm::analysis::termination::{Progress, Verdict};
    use vkmm::frontend::inputs::{Contents, Input};
    use vkmm::frontend::{Options, ShaderOptions};
    let options = Options {
        shader: ShaderOptions {
            defines: vec![("STEPS".into(), Some("2".into()))],
            inputs: vec![Input {
                target: "Mem".into(),
                contents: Contents::Default,
                length: Some(65536),
                extent: None,
                origin: None,
            }],
            ..ShaderOptions::default()
        },
        ..Options::default()
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHASE);
    let program = vkmm::frontend::load_with(&path, options).expect("loads");
    assert!(program.front_end_limit.is_some());
    for progress in ["FAIR", "HSA"] {
        let session = vkmm::Session::new().termination(Some(progress.parse::<Progress>().unwrap()));
        let x = session
            .explain_termination(&program, None)
            .expect("explains");
        assert_eq!(x.outcome.verdict, Verdict::Undecided, "{progress}");
        assert!(x.outcome.witness.is_none(), "{progress}");
        assert!(!x.outcome.complete(), "{progress}");
        // The report names the front end's bound, not the search's.
        let text = vkmm::report::text::termination(&x.outcome);
        assert!(
            text.contains("UNDECIDED: the front end stopped before it built the whole program")
                && text.contains("no path walk outside a request"),
            "{progress}: {text}"
        );
        assert!(!text.contains("stopped at a limit"), "{progress}: {text}");
    }
    // Its own outcome (no condition: every execution): a witness of the
    // part-built program is no witness of the shader.
    let session = vkmm::Session::new();
    let x = session.explain(&program, None, None).expect("explains");
    assert_eq!(x.verdict, Explained::Undecided);
    assert!(x.witness.is_none());
    assert!(x.test_races.as_ref().is_none_or(|t| t.race_free.is_none()));
    let text = vkmm::report::text::explanation(&x);
    assert!(
        text.contains("is UNDECIDED (the front end stopped before it built the whole program")
            && text.contains("no path walk outside a request"),
        "{text}"
    );
    assert!(!text.contains("stopped at a limit"), "{text}");
}

#[test]
fn explain_names_the_front_end_bound_that_stopped_it() {
    if !glslang() {
        return;
    }
    // As `a_cell_search_stopped_by_the_path_bound_is_undecided`: at six
    // steps the cell search passes 50 paths in its third round. The
    // explanation's verdict line says so: what the front end covered
    // (round, cells located) and the option that stopped it.
    for property in [&[][..], &["--property", "termination"]] {
        let mut args = vec![
            "explain",
            "--unroll",
            "8",
            "-D",
            "STEPS=6",
            "--length",
            "Mem=65536",
            "--max-paths",
            "50",
        ];
        args.extend_from_slice(property);
        args.push(CHASE);
        let (code, out, err) = vkmm(&args);
        assert_eq!(code, 3, "{out}\n{err}");
        let line = out
            .lines()
            .find(|l| l.contains("UNDECIDED"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            line.contains("the front end stopped before it built the whole program")
                && line.contains("(--max-paths)")
                && line.contains("cells located"),
            "{line}"
        );
        assert!(!line.contains("stopped at a limit"), "{line}");
    }
}

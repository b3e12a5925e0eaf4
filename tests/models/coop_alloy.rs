//! Cooperative matrix loads and stores in the Alloy `.test` format (issue
//! 16; docs/format-alloy-test.md, "Cooperative matrix loads and stores"):
//! the twins in tests/fixtures/alloy-coopmat of tests/fixtures/litmus-coopmat and
//! tests/fixtures/litmus-coopmat-open give the same answers (each file quotes its
//! sentence), open attributions are united per query, and bad input gives
//! located errors.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Answer, Models, check_program};
use vkmm::ir::{OpKind, Program, Stmt};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/alloy-coopmat")
}

fn load(file: &str) -> Program {
    vkmm::frontend::load(&dir().join(file)).unwrap()
}

fn parse_err(text: &str) -> String {
    match vkmm::frontend::alloy_test::parse("t.test", text) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// The answers of `program`'s queries, in order.
fn answers(program: &Program, models: &Models) -> Vec<Answer> {
    check_program("t.test", program, models, Limits::default())
        .unwrap()
        .queries
        .iter()
        .map(|q| q.actual)
        .collect()
}

#[test]
fn twins_give_their_hand_derived_answers() {
    let files = common::files_with_ext(&dir(), "test");
    // One twin per test of tests/fixtures/litmus-coopmat (6) and
    // tests/fixtures/litmus-coopmat-open (4).
    assert_eq!(files.len(), 10);
    for f in &files {
        let stem = f.file_stem().unwrap().to_str().unwrap();
        let twin = [
            "tests/fixtures/litmus-coopmat",
            "tests/fixtures/litmus-coopmat-open",
        ]
        .iter()
        .any(|d| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(d)
                .join(format!("{stem}.litmus"))
                .is_file()
        });
        assert!(twin, "{stem}.test has no litmus twin");
    }
    let (total, failures) = common::check_queries(&files, &common::models());
    assert_eq!(total, 17);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Stated attributions become the threads' ordinary accesses, tagged.
#[test]
fn stated_accesses_are_the_performing_threads() {
    let p = load("load-two-loaders.test");
    assert!(p.attributions.is_empty());
    let per_thread: Vec<Vec<(String, Option<i64>)>> = p
        .threads
        .iter()
        .map(|t| {
            t.instructions()
                .map(|i| {
                    assert_eq!(i.kind, OpKind::Load);
                    assert!(i.coop.is_some() && !i.atomic);
                    (
                        p.references[i.reference.unwrap()].name.clone(),
                        i.read_value,
                    )
                })
                .collect()
        })
        .collect();
    assert_eq!(
        per_thread,
        [
            vec![("x".to_string(), Some(0))],
            vec![("x".to_string(), Some(0)), ("y".to_string(), Some(0))]
        ]
    );
    let p = load("store-own-element.test");
    let stores: Vec<(usize, Option<i64>)> = p
        .threads
        .iter()
        .enumerate()
        .flat_map(|(k, t)| {
            t.code.iter().filter_map(move |s| match s {
                Stmt::Op(i) if i.kind == OpKind::Store => Some((k, i.write_value)),
                _ => None,
            })
        })
        .collect();
    assert_eq!(stores, [(0, Some(1)), (1, Some(1))]);
}

/// The newer rendering lets several invocations load one element; the
/// AsciiDoc rendering's variant (`vulkan-coopmat-single`) does not, so the
/// twin of load-two-loaders loses its execution there, as the litmus test
/// does (tests/models/coop_matrix.rs).
#[test]
fn two_loaders_have_no_execution_under_the_single_loader_variant() {
    let p = load("load-two-loaders.test");
    let single = Models::builtin("vulkan-coopmat-single").unwrap();
    assert_eq!(
        answers(&p, &single),
        [Answer::NoSolution, Answer::NoSolution]
    );
    assert_eq!(
        answers(&p, &common::models()),
        [Answer::Satisfiable, Answer::NoSolution]
    );
}

/// load-open: the loader sets {0}, {1}, {0,1}; only {1} is race-free, and
/// it is not the first attribution, so the race-free answer needs the
/// union. store-open: no attribution is race-free and consistent.
#[test]
fn open_answers_are_the_union_over_attributions() {
    let models = common::models();
    let p = load("load-open.test");
    assert_eq!(p.attributions.built(), 3);
    assert_eq!(p.attributions.total, 3);
    let mut first = p.clone();
    first.attributions.others.clear();
    first.attributions.total = 1;
    assert_eq!(
        answers(&first, &models),
        [Answer::Satisfiable, Answer::NoSolution]
    );
    assert_eq!(
        answers(&p, &models),
        [Answer::Satisfiable, Answer::Satisfiable]
    );
    let p = load("store-open.test");
    assert_eq!(p.attributions.built(), 2);
    assert_eq!(
        answers(&p, &models),
        [Answer::Satisfiable, Answer::NoSolution]
    );
    // With an attribution missing (past the bound), "no solution" is not
    // known any more; a satisfiable answer still is.
    let mut cut = p.clone();
    cut.attributions.total = 3;
    assert_eq!(
        answers(&cut, &models),
        [Answer::Satisfiable, Answer::Undecided]
    );
}

#[test]
fn bad_input_gives_located_errors() {
    let head = "NEWWG\nNEWSG\nNEWTHREAD\n";
    let cases: &[(&str, &str)] = &[
        (
            "cmld.sc0 0 x : x\n",
            "t.test:4:1: missing scope: `cmld` names the matrix's scope",
        ),
        (
            "cmld.scopedev.sc0 0 x : x\n",
            "t.test:4:6: the matrix's scope is Subgroup or Workgroup",
        ),
        (
            "cmst.atom.scopesg.sc0 0 1 x : x\n",
            "t.test:4:6: `atom` does not apply to `cmst`",
        ),
        (
            "cmld.scopesg.sc0\n",
            "t.test:4:17: expected the instruction's instance number",
        ),
        (
            "cmst.scopesg.sc0 0\n",
            "t.test:4:17: expected the stored value",
        ),
        (
            "cmld.scopesg.sc0 0 :\n",
            "t.test:4:21: expected the matrix's elements",
        ),
        (
            "cmld.scopesg.sc0 0 x x\n",
            "t.test:4:22: element `x` is listed twice",
        ),
        (
            "cmld.scopesg.sc0 0 x : y\n",
            "t.test:4:24: `y` is not an element of this `cmld`",
        ),
        (
            "cmld.scopesg.sc0 0 x : x=a\n",
            "t.test:4:24: expected `x=V`",
        ),
        (
            "cmld.scopesg.sc0 0 x : x x\n",
            "t.test:4:26: element `x` is accessed twice by thread 0",
        ),
        (
            "cmld.scopesg.sc0 0 x, : x\n",
            "t.test:4:20: expected an element (a variable name) or `:`",
        ),
        // Whole-program rules (shared with the litmus dialect).
        (
            "cmst.scopesg.sc0 0 1 x : x\nNEWTHREAD\nld.sc0 y\n",
            "t.test:4:1: thread 1 is in the Subgroup instance of thread 0 but does not execute instance 0",
        ),
        (
            "cmst.scopesg.sc0 0 1 x : x\nNEWTHREAD\ncmst.scopesg.sc0 0 1 x : x\n",
            "t.test:6:26: element `x` of instance 0 is stored by thread 0 and thread 1",
        ),
        (
            "cmst.scopesg.sc0 0 1 x : x\nNEWTHREAD\ncmst.scopesg.sc0 0 2 x\n",
            "t.test:6:1: instance 0 differs from thread 0's (line 4)",
        ),
        (
            "cmst.scopesg.sc0 0 1 x\nNEWTHREAD\ncmst.scopesg.sc0 0 1 x : x\n",
            "t.test:6:1: instance 0 states the element accesses after `:` and thread 0's (line 4) omits them",
        ),
        (
            "cmld.scopesg.sc0 0 x\nNEWSG\nNEWTHREAD\ncmld.scopesg.sc0 0 x\n",
            "t.test:7:1: thread 1 executes instance 0 but is not in the Subgroup instance of thread 0",
        ),
        (
            "cmld.scopesg.sc0 0 x\nSIZE x 8\n",
            "t.test:4:1: element `x` of instance 0 is a sized variable",
        ),
    ];
    for (body, want) in cases {
        let text = format!("{head}{body}");
        let e = parse_err(&text);
        assert!(e.starts_with(want), "{body}: got {e}, want {want}");
    }
}

#[test]
fn the_cli_exits_2_on_bad_input() {
    let dir = std::env::temp_dir().join(format!("vkmm-coop-alloy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.test");
    std::fs::write(&f, "NEWWG\nNEWSG\nNEWTHREAD\ncmld.scopesg.sc0 0 x : y\n").unwrap();
    let (code, _, err) = common::vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.test:4:24:"), "{err}");
    let (code, out, err) = common::vkmm(&["check", "tests/fixtures/alloy-coopmat/load-open.test"]);
    assert_eq!(code, 0, "{out}{err}");
    // The loader sets {0}, {1}, {0,1}: the report says the answers are the
    // union over three attributions, as a litmus report does.
    assert!(
        out.contains("Attributions: 3 (the cooperative matrix element accesses the test leaves to the implementation; the answers are their union)"),
        "{out}"
    );
    let (_, json, _) = common::vkmm(&[
        "check",
        "--format",
        "json",
        "tests/fixtures/alloy-coopmat/load-open.test",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["results"][0]["attributions"],
        serde_json::json!({"explored": 3, "total": 3}),
        "{json}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every cut of every `cmld`/`cmst` line of the twins (the line ends at
/// each character, or loses one word) parses or gives an error located on
/// a line of the file; none panics.
#[test]
fn cut_coop_lines_never_panic() {
    let mut cuts = 0;
    for f in common::files_with_ext(&dir(), "test") {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (k, line) in lines.iter().enumerate() {
            if !line.starts_with("cm") {
                continue;
            }
            let words: Vec<&str> = line.split(' ').collect();
            let mut variants: Vec<String> = (0..line.len())
                .filter(|&i| line.is_char_boundary(i))
                .map(|i| line[..i].to_string())
                .collect();
            for w in 0..words.len() {
                let mut ws = words.clone();
                ws.remove(w);
                variants.push(ws.join(" "));
            }
            for v in variants {
                let mut edited = lines.clone();
                edited[k] = &v;
                let t = edited.join("\n");
                if let Err(e) = vkmm::frontend::alloy_test::parse("t.test", &t) {
                    assert!(
                        (1..=lines.len()).contains(&e.line) && e.column >= 1,
                        "{v}: {e}"
                    );
                }
                cuts += 1;
            }
        }
    }
    assert!(cuts > 300, "{cuts}");
}

//! The library facade: `vkmm::check`, `Session` entry points, typed errors,
//! and honest answers at the execution limit.

use std::path::Path;
use vkmm::analysis::Answer;
use vkmm::analysis::explain::Verdict;
use vkmm::{Checked, Error, Property, Session};

fn root(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

#[test]
fn check_dispatches_on_what_the_test_asks() {
    match vkmm::check(root("examples/mp.test")).unwrap() {
        Checked::Queries(o) => assert!(o.passed() && o.queries.len() == 2),
        other => panic!("a .test file has queries: {other:?}"),
    }
    match vkmm::check(root("examples/opencl-mp.litmus")).unwrap() {
        Checked::Litmus(o) => assert_eq!(o.model, "opencl", "the dialect's default model"),
        other => panic!("a litmus file has a condition: {other:?}"),
    }
}

#[test]
fn bad_input_is_a_typed_error_with_its_position() {
    let text = "VULKAN bad\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n frob x, 1 ;\nexists (x == 1)\n";
    match Session::new().check_text("bad.litmus", text) {
        Err(Error::Input(e)) => {
            assert_eq!((e.file.as_str(), e.line), ("bad.litmus", 4), "{e}");
            assert!(e.column > 0, "{e}");
        }
        other => panic!("expected an input error, got {other:?}"),
    }
    match Session::new()
        .model("no-such-model")
        .check_file(root("examples/mp.test"))
    {
        Err(Error::Model(e)) => assert!(e.to_string().contains("no-such-model"), "{e}"),
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn refused_features_are_check_errors() {
    // Vulkan has no sequentially consistent semantics.
    let r = Session::new()
        .model("vulkan")
        .check_file(root("examples/opencl-sb-sc.litmus"));
    match r {
        Err(Error::Check { error, .. }) => {
            assert!(
                error.to_string().contains("SequentiallyConsistent"),
                "{error}"
            )
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn an_answer_cut_by_the_execution_limit_is_undecided_everywhere() {
    let s = Session::new().max_executions(1);
    // litmus: truncated, so the condition is not decided
    let Checked::Litmus(o) = s.check_file(root("examples/mp.litmus")).unwrap() else {
        panic!()
    };
    assert!(o.truncated && o.holds(Property::Condition).is_none());
    // explain of an outcome no execution produces: undecided, not unreachable
    let p = s.load_file(root("examples/mp.litmus")).unwrap();
    let x = s.explain(&p, Some("P1:r1 == 0"), None).unwrap();
    assert_eq!(x.verdict, Verdict::Undecided);
    assert!(
        vkmm::report::dot::explanation(&x, &[]).is_err(),
        "nothing to draw"
    );
    // .test: a NOSOLUTION query is undecided before every candidate is seen
    let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nst.sc0 x = 2\nNEWWG\nNEWSG\nNEWTHREAD\nld.sc0 x\nld.sc0 x\nNOSOLUTION consistent[X] && #dr>100\n";
    let Checked::Queries(q) = Session::new()
        .max_executions(1)
        .check_text("many.test", text)
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(q.queries[0].actual, Answer::Undecided);
    assert!(!q.queries[0].passed);
    let Checked::Queries(q) = Session::new().check_text("many.test", text).unwrap() else {
        panic!()
    };
    assert_eq!(q.queries[0].actual, Answer::NoSolution);
}

#[test]
fn explain_finds_witnesses_with_pruning_and_forbidden_reasons_without() {
    let s = Session::new();
    let p = s.load_file(root("examples/mp.litmus")).unwrap();
    // the condition is a forall: its negation is explained (forbidden)
    let negation = s.explain(&p, None, None).unwrap();
    assert_eq!(negation.verdict, Verdict::Forbidden);
    assert_eq!(negation.condition.as_ref().unwrap().holds, Some(true));
    let allowed = s.explain(&p, Some("P1:r1 == 1"), None).unwrap();
    assert_eq!(allowed.verdict, Verdict::Allowed);
    assert!(allowed.witness.is_some() && allowed.rejections.is_empty());
    let forbidden = s.explain(&p, Some("P1:r1 == 0"), None).unwrap();
    assert_eq!(forbidden.verdict, Verdict::Forbidden);
    assert!(forbidden.rejections_complete && forbidden.rejected.is_some());
    assert_eq!(forbidden.consistent, 0);
    assert!(forbidden.candidates > 0);
}

#[test]
fn suites_run_from_the_library() {
    let s = Session::new()
        .suite(
            root("tests/fixtures/litmus-vulkan"),
            Some(&root("tests/fixtures/litmus-vulkan/expected-races.csv")),
            Property::Races,
        )
        .unwrap();
    assert!(s.total > 0 && s.passed == s.total, "{s:?}");
    assert_eq!(s.exit_code(), 0);
}

#[test]
fn a_state_space_limit_gives_an_undecided_answer_not_an_error() {
    let mp = root("examples/mp.litmus");
    let checked = Session::new()
        .reduction(vkmm::Reduction::SpinReduction, false)
        .max_paths(2)
        .check_file(&mp)
        .unwrap();
    let Checked::Litmus(o) = &checked else {
        panic!("a litmus outcome")
    };
    assert!(!checked.complete());
    assert_eq!(o.condition_holds, None);
    assert_eq!(o.stopped_by, Some(vkmm::LimitKind::MaxPaths));
    // three paths fit
    let checked = Session::new()
        .reduction(vkmm::Reduction::SpinReduction, false)
        .max_paths(3)
        .check_file(&mp)
        .unwrap();
    let Checked::Litmus(o) = &checked else {
        panic!("a litmus outcome")
    };
    assert_eq!(o.stopped_by, None);
    assert!(!o.truncated);
}

/// Every entry point of the facade, asked with a deadline that has
/// already passed, answers undecided: never an error (a limit is not an
/// error of the input or of the model) and never a verdict. The program
/// is read first, without the deadline (read under it, it is the same
/// program or a limit, checked last). `mp.litmus` is decided in
/// well under a second without the deadline (the controls of the other
/// tests); with it, no search evaluates a candidate, so nothing is
/// settled: the check incomplete, the explanation `Undecided`, the
/// termination answer incomplete, the comparison and the refinement
/// undecided, and the generators (diff, family, mutants, mapping) not
/// complete, with nothing found.
#[test]
fn a_deadline_already_passed_leaves_every_entry_point_undecided() {
    use vkmm::analysis::diff::{DiffBounds, Vocabulary};
    use vkmm::analysis::family::{FamilyBounds, Outcomes};
    use vkmm::analysis::mapping::MappingBounds;
    use vkmm::analysis::refines::RefinesAnswer;
    let path = root("examples/mp.litmus");
    let program = Session::new().load_file(&path).unwrap();
    let past = web_time::Instant::now();
    std::thread::sleep(std::time::Duration::from_millis(2));
    let late = Session::new().deadline(Some(past));
    let file = "examples/mp.litmus";
    match late.check_program(file, &program) {
        Ok(Checked::Litmus(o)) => {
            assert!(!o.complete(), "{o:?}");
            assert_eq!(o.holds(Property::Condition), None);
        }
        other => panic!("an undecided litmus outcome: {other:?}"),
    }
    let x = late.explain(&program, None, None).unwrap();
    assert_eq!(x.verdict, Verdict::Undecided);
    let t = late.explain_termination(&program, None).unwrap();
    assert!(!t.outcome.complete());
    let c = late
        .compare(file, &program, &["vulkan", "vulkan-nochains"])
        .unwrap();
    assert!(!c.complete && !c.differs);
    let r = late
        .refines(file, &program, "vulkan", "vulkan-nochains")
        .unwrap();
    assert_eq!(r.answer, RefinesAnswer::Undecided);
    let bounds = DiffBounds {
        threads: 2,
        events: 2,
        locations: 2,
        vocabulary: Vocabulary::default(),
        max_tests: 1,
        deadline: None,
        engine: Default::default(),
    };
    let d = late.diff("vulkan", "vulkan-nochains", &bounds).unwrap();
    assert!(!d.complete && d.witnesses.is_empty());
    let models = ["vulkan".to_string(), "vulkan-nochains".to_string()];
    let fam = FamilyBounds {
        threads: 2,
        events: 2,
        locations: 2,
        vocabulary: Vocabulary::default(),
        outcomes: Outcomes::Forbidden,
        deadline: None,
    };
    let f = late.family(&models, &fam).unwrap();
    assert!(!f.complete && f.tests.is_empty());
    let text = std::fs::read_to_string(root(
        "tests/fixtures/litmus-vulkan/mp-storage-class-4.litmus",
    ))
    .unwrap();
    let m = late
        .mutants(&models[..1], &[("mp-storage-class-4.litmus".into(), text)])
        .unwrap();
    assert!(!m.complete);
    let mapping = MappingBounds {
        threads: 2,
        events: 2,
        locations: 2,
        deadline: None,
        engine: Default::default(),
    };
    let k = late
        .check_mapping(
            "vulkan",
            "opencl",
            &root("examples/mappings/opencl-vulkan.toml"),
            &mapping,
        )
        .unwrap();
    assert!(!k.complete && k.violations.is_empty());
    // Reading under it: the program (a reader asks the clock every 4,096
    // rows, and mp.litmus has fewer), or a limit named as such; never
    // another error.
    match late.load_file(&path) {
        Ok(p) => assert_eq!(p.threads.len(), 2),
        Err(Error::Limit { message, .. }) => {
            assert!(message.contains("time limit"), "{message}")
        }
        Err(e) => panic!("a limit or the program: {e}"),
    }
}

use super::*;
use crate::engine::Limits;
use crate::frontend::alloy_test::parse;

fn models() -> Models {
    Models::builtin("vulkan").expect("the built-in models parse")
}

#[test]
fn queries_run_under_their_variant_and_compare_with_expectations() {
    // mp3transitive-like: needs an availability chain
    let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.av.scopewg.sc0 x = 1\nst.atom.rel.scopewg.sc1.semsc0.semsc1 y = 1\nNEWSG\nNEWTHREAD\nld.atom.acq.scopewg.sc1.semsc0.semsc1 y = 1\nst.atom.rel.scopedev.sc1.semsc0.semsc1.semav z = 1\nNEWWG\nNEWSG\nNEWTHREAD\nld.atom.acq.scopedev.sc1.semsc0.semsc1 z = 1\nld.vis.scopedev.sc0 x\nSATISFIABLE consistent[X] && #dr=0\nSATISFIABLE NOCHAINS consistent[X] && #dr=0\n";
    let p = parse("chain.test", text).unwrap();
    let o = check_program("chain.test", &p, &models(), Limits::default()).unwrap();
    assert_eq!(o.queries.len(), 2);
    assert_eq!(o.queries[0].model, "vulkan");
    assert!(o.queries[0].passed);
    assert_eq!(o.queries[1].model, "vulkan-nochains");
    assert_eq!(o.queries[1].actual, crate::analysis::Answer::NoSolution);
    assert!(!o.queries[1].passed);
    assert!(!o.passed());
}

#[test]
fn counting_an_unbound_name_is_an_error() {
    let p = parse("t.test", "NEWTHREAD\nst.sc0 x = 1\nSATISFIABLE #nosuch>0\n").unwrap();
    match check_program("t.test", &p, &models(), Limits::default()) {
        Err(CheckError::UnknownCount { line, name, .. }) => {
            assert_eq!((line, name.as_str()), (3, "nosuch"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn count_predicates_count_pairs() {
    let p = parse(
        "t.test",
        "NEWWG\nNEWTHREAD\nst.sc0 x = 1\nNEWWG\nNEWTHREAD\nst.sc0 x = 2\nSATISFIABLE #dr=2\nNOSOLUTION #dr=1\nSATISFIABLE #dr>=2 && #dr<=2 && #dr!=3\n",
    )
    .unwrap();
    let o = check_program("t.test", &p, &models(), Limits::default()).unwrap();
    assert!(o.passed(), "{o:?}");
}

#[test]
fn vulkan_models_reject_sequentially_consistent_operations() {
    let mut p = parse(
        "t.test",
        "NEWTHREAD\nst.atom.scopedev.sc0 x = 1\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    if let crate::ir::Stmt::Op(i) = &mut p.threads[0].code[0] {
        i.semantics.seq_cst = true;
    }
    match check_program("t.test", &p, &models(), Limits::default()) {
        Err(CheckError::Unsupported(m)) => {
            assert!(
                m.contains("SequentiallyConsistent memory semantics is not supported"),
                "{m}"
            )
        }
        other => panic!("{other:?}"),
    }
}

/// A suite row left undecided names every reason that holds: the limit
/// that stopped the search and the paths the unrolling bound cut (a
/// termination search the time limit stopped while the bound had cut
/// paths named the paths alone).
#[test]
fn an_undecided_row_names_the_limit_and_the_cut_paths() {
    use crate::engine::LimitKind;
    let why = suite::undecided_why;
    assert_eq!(
        why(4, true, Some(LimitKind::Timeout)),
        "stopped at the time limit (--timeout); 4 thread paths cut by the unrolling bound (raise --unroll)"
    );
    assert_eq!(
        why(0, true, Some(LimitKind::MaxMemory)),
        "stopped at the memory bound (--max-memory)"
    );
    assert_eq!(
        why(2, false, None),
        "2 thread paths cut by the unrolling bound (raise --unroll)"
    );
    assert_eq!(
        why(1, false, None),
        "1 thread path cut by the unrolling bound (raise --unroll)"
    );
    assert_eq!(
        why(0, true, None),
        "a limit (executions, time or memory) stopped the search"
    );
}

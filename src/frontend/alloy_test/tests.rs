use super::parse;
use crate::ir::{Cmp, Expectation, OpKind, Order, Pred, Scope, StorageClass};

const MP: &str = "// message passing
NEWWG
NEWSG
NEWTHREAD
st.av.scopedev.sc0 x = 1
st.atom.rel.scopewg.sc0.semsc0 y = 1
NEWSG
NEWTHREAD
ld.atom.acq.scopewg.sc0.semsc0 y = 1
ld.vis.scopedev.sc0 x
SATISFIABLE consistent[X] && #dr=0
NOSOLUTION NOCHAINS consistent[X] && (#dr>0)
";

fn instr(p: &crate::ir::Program, t: usize, i: usize) -> &crate::ir::Instruction {
    p.threads[t].instructions().nth(i).unwrap()
}

fn err(text: &str) -> (usize, usize, String) {
    let e = parse("t.test", text).expect_err("should be rejected");
    assert_eq!(e.file, "t.test");
    (e.line, e.column, e.message)
}

#[test]
fn parses_message_passing() {
    let p = parse("dir/mp.test", MP).unwrap();
    assert_eq!(p.name, "mp");
    assert_eq!(p.threads.len(), 2);
    assert_eq!(p.threads[0].workgroup, p.threads[1].workgroup);
    assert_ne!(p.threads[0].subgroup, p.threads[1].subgroup);
    let st = &instr(&p, 0, 0);
    assert_eq!(st.kind, OpKind::Store);
    assert!(st.make_pointer_available && st.non_private && !st.atomic);
    assert_eq!(st.scope, Some(Scope::Device));
    assert_eq!(st.storage_class, Some(StorageClass(0)));
    assert_eq!(st.write_value, Some(1));
    let rel = &instr(&p, 0, 1);
    assert!(rel.atomic && rel.make_pointer_available && !rel.make_pointer_visible);
    assert_eq!(rel.semantics.order, Order::Release);
    assert!(rel.semantics.storage_classes.contains(&StorageClass(0)));
    let acq = &instr(&p, 1, 0);
    assert_eq!(acq.semantics.order, Order::Acquire);
    assert!(acq.make_pointer_visible);
    assert_eq!(acq.read_value, Some(1));
    let ld = &instr(&p, 1, 1);
    assert_eq!(ld.read_value, None);
    assert_eq!(p.locations, vec!["x".to_string(), "y".to_string()]);
    assert_eq!(p.queries.len(), 2);
    assert_eq!(p.queries[0].expect, Expectation::Satisfiable);
    assert!(!p.queries[0].no_chains);
    assert_eq!(
        p.queries[0].pred,
        Pred::And(vec![
            Pred::Consistent,
            Pred::Count {
                name: "dr".into(),
                cmp: Cmp::Eq,
                value: 0
            }
        ])
    );
    assert!(p.queries[1].no_chains);
    assert_eq!(p.queries[1].expect, Expectation::NoSolution);
}

#[test]
fn crlf_and_trailing_spaces_are_accepted() {
    let text = MP.replace('\n', " \r\n");
    let p = parse("mp.test", &text).unwrap();
    assert_eq!(p.threads.len(), 2);
    assert_eq!(p.queries.len(), 2);
}

#[test]
fn hierarchy_new_queue_family_opens_new_groups() {
    let p = parse(
        "q.test",
        "NEWQF\nNEWWG\nNEWSG\nNEWTHREAD\nmembar.rel.scopeqf.semsc0\nNEWQF\nNEWTHREAD\nmembar.acq.scopeqf.semsc0\nNEWWG\nNEWTHREAD\nmembar.acq.scopeqf.semsc0\n",
    )
    .unwrap();
    let t = &p.threads;
    assert_ne!(t[0].queue_family, t[1].queue_family);
    assert_ne!(t[0].workgroup, t[1].workgroup);
    assert_ne!(t[0].subgroup, t[1].subgroup);
    assert_eq!(t[1].queue_family, t[2].queue_family);
    assert_ne!(t[1].workgroup, t[2].workgroup);
    // same subgroup when only NEWTHREAD separates threads
    let p = parse(
        "s.test",
        "NEWTHREAD\nmembar.rel.scopesg.semsc0\nNEWTHREAD\nmembar.acq.scopesg.semsc0\n",
    )
    .unwrap();
    assert_eq!(p.threads[0].subgroup, p.threads[1].subgroup);
}

#[test]
fn thread_numbers_ssw_and_sloc() {
    let p = parse(
        "s.test",
        "NEWTHREAD 3\nst.sc0 x = 1\nNEWTHREAD\nld.sc1 y\nSSW 3 4\nSLOC x y\n",
    )
    .unwrap();
    assert_eq!(p.threads[0].id, 3);
    assert_eq!(p.threads[1].id, 4);
    assert_eq!(p.ssw, vec![(0, 1)]);
    assert_eq!(p.locations.len(), 1);
    assert_eq!(p.references.len(), 2);
    assert_eq!(p.references[0].location, p.references[1].location);
}

#[test]
fn rmw_forms_and_control_barriers() {
    let p = parse(
        "r.test",
        "NEWTHREAD\nst.ld.atom.scopewg.sc0 y = 2 3\nrmw.acq.rel.scopedev.sc0.semsc0 y = 1 2\ncbar.acq.rel.scopewg.semsc0 7\ncbar.scopesg 8\n",
    )
    .unwrap();
    let i: Vec<_> = p.threads[0].instructions().collect();
    assert_eq!(i[0].kind, OpKind::Rmw);
    assert!(i[0].atomic && i[0].make_pointer_available && i[0].make_pointer_visible);
    assert_eq!((i[0].read_value, i[0].write_value), (Some(2), Some(3)));
    assert_eq!(i[1].semantics.order, Order::AcquireRelease);
    assert_eq!(i[2].kind, OpKind::control_barrier(7, Scope::Workgroup));
    assert_eq!(i[3].semantics.order, Order::Relaxed);
}

#[test]
fn unknown_token_is_located() {
    let (l, c, m) = err("NEWTHREAD\nst.av.scopedv.sc0 x = 1\n");
    assert_eq!((l, c), (2, 7));
    assert!(m.contains("unknown token `scopedv`"), "{m}");
}

#[test]
fn missing_scope_and_storage_class() {
    let (l, _, m) = err("NEWTHREAD\nst.atom.sc0 x = 1\n");
    assert_eq!(l, 2);
    assert!(m.contains("missing scope"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nld.atom.scopewg x\n");
    assert!(m.contains("missing storage class"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0\n");
    assert!(m.contains("expected a variable name"), "{m}");
}

#[test]
fn barrier_errors() {
    let (_, _, m) = err("NEWTHREAD\ncbar.scopewg\n");
    assert!(m.contains("instance number"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nmembar.scopewg\n");
    assert!(m.contains("acq and/or rel"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nmembar.rel.scopewg\n");
    assert!(m.contains("storage class in the semantics"), "{m}");
    let (_, _, m) = err("NEWTHREAD\ncbar.scopewg 1\ncbar.scopewg 1\n");
    assert!(m.contains("reached twice"), "{m}");
}

#[test]
fn semantic_errors() {
    let (_, _, m) = err("NEWTHREAD\nst.atom.acq.scopewg.sc0.semsc0 x = 1\n");
    assert!(m.contains("acquire applies"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nld.atom.rel.scopewg.sc0.semsc0 x\n");
    assert!(m.contains("release applies"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.atom.rel.semvis.scopewg.sc0.semsc0 x = 1\n");
    assert!(m.contains("semvis"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0.sc1 x = 1\n");
    assert!(m.contains("second storage class"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.atom.scopewg.scopedev.sc0 x = 1\n");
    assert!(m.contains("second scope"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nld.membar.scopewg.sc0 x\n");
    assert!(m.contains("exactly one of"), "{m}");
}

#[test]
fn value_errors() {
    let (l, c, m) = err("NEWTHREAD\nrmw.scopewg.sc0 x = 1\n");
    assert_eq!((l, c), (2, 19));
    assert!(m.contains("two values"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x = 1 2\n");
    assert!(m.contains("second value"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x = one\n");
    assert!(m.contains("integer value"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x 1\n");
    assert!(m.contains("expected `= value`"), "{m}");
}

#[test]
fn directive_errors() {
    let (_, _, m) = err("st.sc0 x = 1\n");
    assert!(m.contains("before the first instruction"), "{m}");
    let (_, _, m) = err("NEWTHREAD 1\nNEWTHREAD 1\n");
    assert!(m.contains("declared twice"), "{m}");
    let (l, _, m) = err("NEWTHREAD\nst.sc0 x = 1\nSSW 0 5\n");
    assert_eq!(l, 3);
    assert!(m.contains("thread 5"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x = 1\nSLOC x q\n");
    assert!(m.contains("`q`"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x = 1\nSSW 0\n");
    assert!(m.contains("two thread numbers"), "{m}");
    let (_, _, m) = err("");
    assert!(m.contains("no thread"), "{m}");
}

#[test]
fn query_errors_are_located() {
    let (l, c, m) = err("NEWTHREAD\nst.sc0 x = 1\nSATISFIABLE consistent[X] && #dr=\n");
    assert_eq!(l, 3);
    assert_eq!(c, 34);
    assert!(m.contains("expected a number"), "{m}");
    let (_, c, m) = err("NEWTHREAD\nst.sc0 x = 1\nNOSOLUTION consistent[Y]\n");
    assert!(m.contains("consistent[X]"), "{m}");
    assert!(c > 11);
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x = 1\nNOSOLUTION #dr ~ 1\n");
    assert!(m.contains("comparison"), "{m}");
    let (_, _, m) = err("NEWTHREAD\nst.sc0 x = 1\nNOSOLUTION (consistent[X]\n");
    assert!(m.contains("`)`"), "{m}");
}

mod never_panics {
    use super::parse;
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "NEWQF",
        "NEWWG",
        "NEWSG",
        "NEWTHREAD",
        "SLOC",
        "SSW",
        "SATISFIABLE",
        "NOSOLUTION",
        "NOCHAINS",
        "st",
        "ld",
        "rmw",
        "atom",
        "membar",
        "cbar",
        "acq",
        "rel",
        "sc0",
        "sc1",
        "semsc0",
        "semav",
        "semvis",
        "scopewg",
        "scopedev",
        "av",
        "vis",
        "nonpriv",
        "avdevice",
        "visdevice",
        "x",
        "y",
        "=",
        "0",
        "1",
        "2",
        "-3",
        "99999999999999999999",
        ".",
        "..",
        "consistent[X]",
        "&&",
        "#dr",
        ">",
        "=0",
        "(",
        ")",
        "//",
        "\t",
        "é",
    ];

    fn line() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (
                prop::sample::select(WORDS),
                prop::sample::select(&["", ".", " "][..]),
            ),
            0..8,
        )
        .prop_map(|ws| ws.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn token_soup(lines in prop::collection::vec(line(), 0..12)) {
            let text = lines.join("\n");
            if let Ok(p) = parse("soup.test", &text) {
                // whatever parses can be enumerated without panicking
                let _ = crate::engine::Explorer::new(&p, crate::engine::Limits::default());
            }
        }

        #[test]
        fn arbitrary_text(text in "\\PC{0,200}") {
            let _ = parse("any.test", &text);
        }
    }
}

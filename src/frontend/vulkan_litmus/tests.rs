//! Tests of the Vulkan `.litmus` front end: the whole Dat3M corpus, spot
//! checks of what it produces, one test per construct and per error (with
//! its line and column), and never-panics properties.

use super::parse;
use crate::ir::{
    ArithOp, Cmp, CondExpr, Instruction, OpKind, Operand, Order, Program, Quantifier, RmwOp, Scope,
    Stmt, StorageClass, Term,
};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m-vulkan")
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable corpus folder")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "litmus") {
            out.push(p);
        }
    }
}

/// Parses a corpus file, or returns None (loudly) when the corpus is missing.
fn corpus(rel: &str) -> Option<Program> {
    let path = corpus_dir().join(rel);
    if !corpus_dir().is_dir() {
        eprintln!(
            "SKIPPED: corpus folder {} is missing",
            corpus_dir().display()
        );
        return None;
    }
    let text = std::fs::read_to_string(&path).expect("corpus file");
    Some(parse(&path.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn every_corpus_file_parses() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!("SKIPPED: corpus folder {} is missing", dir.display());
        return;
    }
    let mut files = Vec::new();
    litmus_files(&dir, &mut files);
    assert!(
        files.len() >= 200,
        "only {} .litmus files found",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("corpus file");
        match parse(&f.display().to_string(), &text) {
            Ok(p) => {
                assert!(!p.threads.is_empty(), "{}", f.display());
                assert!(p.condition.is_some(), "{}: no condition", f.display());
                assert!(p.queries.is_empty());
                assert_eq!(p.initial_values.len(), p.locations.len());
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn instr(p: &Program, t: usize, i: usize) -> &Instruction {
    p.threads[t].instructions().nth(i).expect("instruction")
}

fn reg(thread: usize, r: &str) -> Term {
    Term::Reg {
        thread,
        reg: r.into(),
    }
}

fn eq(a: Term, b: Term) -> CondExpr {
    CondExpr::Eq(a, b)
}

fn and(a: CondExpr, b: CondExpr) -> CondExpr {
    CondExpr::And(Box::new(a), Box::new(b))
}

fn or(a: CondExpr, b: CondExpr) -> CondExpr {
    CondExpr::Or(Box::new(a), Box::new(b))
}

/// Header, initial state and a two-thread declaration (lines 1-3); rows
/// and conditions follow on line 4.
const HEAD: &str =
    "VULKAN t\n{ x=0; y=0; P0:r9=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n";

fn ok(text: &str) -> Program {
    parse("dir/t.litmus", text).unwrap_or_else(|e| panic!("{e}"))
}

fn with_head(rest: &str) -> Program {
    ok(&format!("{HEAD}{rest}"))
}

fn err(text: &str) -> (usize, usize, String) {
    let e = parse("t.litmus", text).expect_err("should be rejected");
    assert_eq!(e.file, "t.litmus");
    (e.line, e.column, e.message)
}

fn err_head(rest: &str) -> (usize, usize, String) {
    err(&format!("{HEAD}{rest}"))
}

/// Asserts an error's line, column and a fragment of its message.
#[track_caller]
fn assert_err(got: (usize, usize, String), line: usize, col: usize, fragment: &str) {
    assert_eq!((got.0, got.1), (line, col), "{}", got.2);
    assert!(got.2.contains(fragment), "`{}` lacks `{fragment}`", got.2);
}

// ----- corpus spot checks ----------------------------------------------------

#[test]
fn corpus_mp_placement_attributes_and_condition() {
    let Some(p) = corpus("Kronos-Group/mp.litmus") else {
        return;
    };
    assert_eq!(p.name, "mp");
    assert_eq!(p.threads.len(), 2);
    let (t0, t1) = (&p.threads[0], &p.threads[1]);
    assert_eq!((t0.id, t1.id), (0, 1));
    assert_eq!(t0.workgroup, t1.workgroup);
    assert_ne!(t0.subgroup, t1.subgroup);
    assert_eq!(t0.queue_family, t1.queue_family);
    assert_eq!(p.locations, vec!["x".to_string(), "y".to_string()]);
    assert_eq!(p.initial_values, vec![0, 0]);
    assert_eq!(
        t1.registers,
        vec![("r0".to_string(), 0), ("r1".to_string(), 0)]
    );
    let st = instr(&p, 0, 0);
    assert_eq!(st.kind, OpKind::Store);
    assert!(!st.atomic && st.make_pointer_available && st.non_private);
    assert!(!st.make_pointer_visible);
    assert_eq!(st.scope, Some(Scope::Device));
    assert_eq!(st.storage_class, Some(StorageClass(0)));
    assert_eq!(st.operand, Some(Operand::Const(1)));
    assert_eq!(p.location_of(st), Some(0));
    assert_eq!((st.read_value, st.write_value), (None, None));
    assert_eq!(st.source.line, 10);
    assert_eq!(st.source.text, "st.av.dv.sc0 x, 1");
    let rel = instr(&p, 0, 1);
    assert!(rel.atomic && rel.make_pointer_available && rel.non_private);
    assert_eq!(rel.semantics.order, Order::Release);
    assert_eq!(rel.scope, Some(Scope::Workgroup));
    assert!(rel.semantics.storage_classes.contains(&StorageClass(0)));
    let acq = instr(&p, 1, 0);
    assert_eq!(acq.kind, OpKind::Load);
    assert_eq!(acq.semantics.order, Order::Acquire);
    assert!(acq.make_pointer_visible && !acq.make_pointer_available);
    assert_eq!(acq.dest.as_deref(), Some("r0"));
    assert_eq!(p.location_of(acq), Some(1));
    let vis = instr(&p, 1, 1);
    assert!(vis.make_pointer_visible && vis.non_private && !vis.atomic);
    let c = p.condition.as_ref().unwrap();
    assert_eq!(c.quantifier, Some(Quantifier::Exists));
    assert_eq!(c.expr, eq(reg(1, "r0"), Term::Const(1)));
    assert_eq!(c.filter, None);
    assert_eq!(c.text, "exists (P1:r0 == 1)");
    assert!(p.queries.is_empty());
}

#[test]
fn corpus_groups_get_globally_unique_ids() {
    // Four threads, each `sg 0` of its own workgroup: four subgroups.
    let Some(p) = corpus("Kronos-Group/asmo.litmus") else {
        return;
    };
    let sgs: Vec<usize> = p.threads.iter().map(|t| t.subgroup).collect();
    let wgs: Vec<usize> = p.threads.iter().map(|t| t.workgroup).collect();
    assert_eq!(sgs, vec![0, 1, 2, 3]);
    assert_eq!(wgs, vec![0, 1, 2, 3]);
    // Same `wg 0` numbers in different queue families are different workgroups.
    let p = corpus("Kronos-Group/qfmpfail.litmus").unwrap();
    assert_ne!(p.threads[0].queue_family, p.threads[1].queue_family);
    assert_ne!(p.threads[0].workgroup, p.threads[1].workgroup);
    assert_ne!(p.threads[0].subgroup, p.threads[1].subgroup);
    // Two threads of one subgroup.
    let p = corpus("Kronos-Group/test6.litmus").unwrap();
    let t = &p.threads;
    assert_eq!(t[0].subgroup, t[1].subgroup);
    assert_eq!(t[2].subgroup, t[3].subgroup);
    assert_ne!(t[1].subgroup, t[2].subgroup);
    assert!(t.iter().all(|x| x.workgroup == t[0].workgroup));
}

#[test]
fn corpus_aliases_and_ssw() {
    let Some(p) = corpus("Kronos-Group/atomwrongsc.litmus") else {
        return;
    };
    assert_eq!(p.locations, vec!["x".to_string(), "y".to_string()]);
    let z = p.references.iter().position(|r| r.name == "z").unwrap();
    let x = p.references.iter().position(|r| r.name == "x").unwrap();
    assert_ne!(z, x);
    assert_eq!(p.references[z].location, p.references[x].location);
    assert_eq!(instr(&p, 1, 1).reference, Some(z));
    assert_eq!(instr(&p, 0, 0).reference, Some(x));

    let p = corpus("Kronos-Group/ssw1.litmus").unwrap();
    assert_eq!(p.ssw, vec![(0, 1), (1, 2)]);
    assert_eq!(instr(&p, 1, 0).kind, OpKind::AvailabilityDevice);
    assert_eq!(instr(&p, 1, 1).kind, OpKind::VisibilityDevice);
    assert_eq!(p.locations.len(), 1);
    assert_eq!(p.location_of(instr(&p, 2, 0)), Some(0));
    let c = p.condition.clone().unwrap();
    assert_eq!(c.text, "exists (P2:r0 == 1)");

    let p = corpus("Kronos-Group/ssw3.litmus").unwrap();
    assert_eq!(p.ssw, vec![(0, 1)]);
    assert_eq!(p.condition.unwrap().expr, eq(Term::Loc(0), Term::Const(1)));
}

#[test]
fn corpus_loops_labels_branches_and_arithmetic() {
    let Some(p) = corpus("Manual/MP-mesa-fence-loop.litmus") else {
        return;
    };
    let code = &p.threads[0].code;
    assert!(!p.threads[0].is_straight_line());
    assert!(p.threads[1].is_straight_line());
    assert!(matches!(&code[0], Stmt::Label { name, .. } if name == "LC00"));
    match &code[3] {
        Stmt::Branch {
            cmp, a, b, label, ..
        } => {
            assert_eq!(*cmp, Cmp::Ne);
            assert_eq!(*a, Operand::Reg("r1".into()));
            assert_eq!(*b, Operand::Const(0));
            assert_eq!(label, "LC01");
        }
        s => panic!("expected a branch, got {s:?}"),
    }
    assert!(matches!(&code[4], Stmt::Goto { label, .. } if label == "LC00"));
    match &code[7] {
        Stmt::Assign {
            dest,
            op,
            a,
            b,
            source,
        } => {
            assert_eq!(dest, "r3");
            assert_eq!(*op, ArithOp::Add);
            assert_eq!((a, b), (&Operand::Const(1), &Operand::Const(0)));
            assert_eq!(source.text, "add r3, 1, 0");
        }
        s => panic!("expected an assignment, got {s:?}"),
    }
    assert_eq!(
        p.threads[0].registers,
        vec![("r0".to_string(), 0), ("r3".to_string(), 0)]
    );
    let c = p.condition.clone().unwrap();
    assert_eq!(
        c.expr,
        and(
            eq(reg(0, "r3"), Term::Const(1)),
            CondExpr::Ne(reg(0, "r2"), Term::Const(1))
        )
    );
}

#[test]
fn corpus_rmw_forms() {
    let Some(p) = corpus("Manual/ticketlock-same-wg.litmus") else {
        return;
    };
    let rmw = instr(&p, 0, 0);
    assert_eq!(rmw.kind, OpKind::Rmw);
    assert_eq!(rmw.rmw_op, RmwOp::Add);
    assert!(rmw.atomic && rmw.make_pointer_available && rmw.make_pointer_visible);
    assert_eq!(rmw.dest.as_deref(), Some("r1"));
    assert_eq!(rmw.operand, Some(Operand::Const(1)));
    assert_eq!(rmw.semantics.order, Order::Acquire);
    let c = p.condition.clone().unwrap();
    let mut terms = Vec::new();
    c.expr.terms(&mut terms);
    assert_eq!(terms[0], &reg(0, "r1"));
    assert_eq!(terms[1], &reg(0, "r2"));
    // No operation token: an exchange.
    let p = corpus("Kronos-Group/mp3acqrel.litmus").unwrap();
    let rmw = instr(&p, 1, 0);
    assert_eq!(rmw.rmw_op, RmwOp::Exchange);
    assert_eq!(rmw.semantics.order, Order::AcquireRelease);
    assert_eq!(rmw.operand, Some(Operand::Const(2)));
}

#[test]
fn corpus_filters_and_quantifiers() {
    let Some(p) = corpus("Data-Race/mp-filter.litmus") else {
        return;
    };
    let c = p.condition.clone().unwrap();
    assert_eq!(c.quantifier, None);
    assert_eq!(c.expr, CondExpr::True);
    assert_eq!(c.filter, Some(eq(reg(1, "r0"), Term::Const(1))));
    assert_eq!(c.text, "filter (P1:r0 == 1)");

    let p = corpus("Manual/storage-class-1.litmus").unwrap();
    let c = p.condition.clone().unwrap();
    assert_eq!(c.quantifier, Some(Quantifier::Forall));
    let clause = |t| {
        or(
            eq(reg(t, "r0"), Term::Const(0)),
            eq(reg(t, "r1"), Term::Const(1)),
        )
    };
    assert_eq!(c.expr, and(and(clause(1), clause(2)), clause(3)));
    assert_eq!(instr(&p, 0, 3).storage_class, Some(StorageClass(3)));

    let p = corpus("Manual/PC-bar-atom.litmus").unwrap();
    // Multi-line quoted comment; `P0:r0=0` without `;` before `}`.
    assert_eq!(p.name, "PC-bar-atom");
    assert_eq!(p.threads[0].registers, vec![("r0".to_string(), 0)]);
    let c = p.condition.clone().unwrap();
    assert_eq!(c.quantifier, Some(Quantifier::NotExists));
    assert_eq!(c.text, "~exists (P0:r0 == 1)");
    let cbar = instr(&p, 0, 1);
    assert_eq!(cbar.kind, OpKind::control_barrier(0, Scope::Workgroup));
    assert_eq!(cbar.semantics.order, Order::Relaxed);
    assert!(cbar.semantics.storage_classes.is_empty());
    assert_eq!(cbar.scope, Some(Scope::Workgroup));
}

#[test]
fn corpus_barriers_comments_and_implicit_locations() {
    let Some(p) = corpus("Manual/xf-barrier.litmus") else {
        return;
    };
    assert_eq!(p.threads.len(), 6);
    // `cbar.acq_rel.wg.semsc0 00` is instance 0.
    let cbar = p.threads[0]
        .instructions()
        .find(|i| matches!(i.kind, OpKind::ControlBarrier { .. }))
        .unwrap();
    assert_eq!(cbar.kind, OpKind::control_barrier(0, Scope::Workgroup));
    assert_eq!(cbar.semantics.order, Order::AcquireRelease);
    let c = p.condition.clone().unwrap();
    assert_eq!(c.quantifier, Some(Quantifier::Forall));
    assert!(
        c.text.starts_with("forall( P0:r0 == 1 /\\ P0:r1 == 1"),
        "{}",
        c.text
    );
    let mut terms = Vec::new();
    c.expr.terms(&mut terms);
    assert_eq!(terms.len(), 72);

    // A `cbar.dv`: Device memory scope, Workgroup execution scope (Dat3M's
    // dialect: the token is the memory scope).
    let p = corpus("Manual/counter-plain-store-rmw.litmus").unwrap();
    assert_eq!(
        instr(&p, 0, 1).kind,
        OpKind::control_barrier(0, Scope::Workgroup)
    );
    assert_eq!(instr(&p, 0, 1).scope, Some(Scope::Device));

    // `d` is not in the initial state: created on first use, initially 0.
    let p = corpus("Kronos-Group/test4.litmus").unwrap();
    let d = p.locations.iter().position(|l| l == "d").unwrap();
    assert_eq!(p.initial_value(d), 0);
    assert_eq!(p.locations.len(), 4);

    // Quotes nested inside a quoted comment.
    let p = corpus("Kronos-Group/corr.litmus").unwrap();
    assert_eq!(p.name, "corr");
    assert_eq!(p.threads.len(), 4);
}

// ----- constructs ------------------------------------------------------------

#[test]
fn header_name_case_and_file_stem() {
    let p = ok("vulkan\n{ x=0; }\nP0@sg 0, wg 0, qf 0;\nst.sc0 x, 1;\n");
    assert_eq!(p.name, "t");
    let p = ok("Vulkan my-test \"doc\"\n{}\nP0@sg 0, wg 0, qf 0;\n");
    assert_eq!(p.name, "my-test");
    assert!(p.condition.is_none());
    assert!(p.threads[0].code.is_empty());
}

#[test]
fn init_block_spacing_and_forms() {
    let p = ok(
        "VULKAN t\n{\nP0: r0=0; P1:r1 = -3;\n x = 5 ; y=0;z=-1\n;0:r2=7\n};\n\
                P0@sg 0,wg 0, qf 0|P1@sg 0,wg 0,qf 0;\n",
    );
    assert_eq!(p.locations, vec!["x", "y", "z"]);
    assert_eq!(p.initial_values, vec![5, 0, -1]);
    assert_eq!(
        p.threads[0].registers,
        vec![("r0".to_string(), 0), ("r2".to_string(), 7)]
    );
    assert_eq!(p.threads[1].registers, vec![("r1".to_string(), -3)]);
    assert_eq!(p.threads[0].subgroup, p.threads[1].subgroup);
}

#[test]
fn aliases_share_a_location() {
    let p = with_head("st.sc0 z, 1 | ld.sc1 r0, w ;\n");
    assert_eq!(p.locations, vec!["x", "y", "z", "w"]);
    let p = ok(
        "VULKAN t\n{ x=1; y aliases x; z aliases y; }\nP0@sg 0, wg 0, qf 0;\n\
                ld.sc0 r0, z;\nlocations [y;]\n",
    );
    assert_eq!(p.locations, vec!["x"]);
    assert_eq!(p.initial_values, vec![1]);
    let names: Vec<&str> = p.references.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["x", "y", "z"]);
    assert!(p.references.iter().all(|r| r.location == 0));
    assert_eq!(instr(&p, 0, 0).reference, Some(2));
    assert_eq!(p.shown_locations, vec![0]);
}

#[test]
fn ssw_block_forms() {
    let p =
        ok("VULKAN t\n{}\n{ ssw P0 P1; ssw 1 0 };\nP0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 1;\n");
    assert_eq!(p.ssw, vec![(0, 1), (1, 0)]);
    assert_eq!(p.threads[0].queue_family, 0);
    assert_eq!(p.threads[1].queue_family, 1);
}

#[test]
fn rows_cells_and_sources() {
    let p = with_head(
        "  | ld.sc0 r0, x ;\nst.sc0 x, 1 |  ; st.sc0 y, r9 | ;\n\n  |ld.nonpriv.sc0 r1, y;\n",
    );
    let t0: Vec<&str> = p.threads[0]
        .code
        .iter()
        .map(|s| s.source().text.as_str())
        .collect();
    assert_eq!(t0, vec!["st.sc0 x, 1", "st.sc0 y, r9"]);
    let lines: Vec<usize> = p.threads[0].code.iter().map(|s| s.source().line).collect();
    assert_eq!(lines, vec![5, 5]);
    assert_eq!(instr(&p, 0, 1).operand, Some(Operand::Reg("r9".into())));
    let t1: Vec<usize> = p.threads[1].code.iter().map(|s| s.source().line).collect();
    assert_eq!(t1, vec![4, 7]);
    let ld = instr(&p, 1, 1);
    assert!(ld.non_private && !ld.atomic && !ld.make_pointer_visible);
    let plain = instr(&p, 1, 0);
    assert!(!plain.non_private && plain.scope.is_none());
}

#[test]
fn every_rmw_operation() {
    for (tok, op) in [
        ("", RmwOp::Exchange),
        (".add", RmwOp::Add),
        (".sub", RmwOp::Sub),
        (".and", RmwOp::And),
        (".or", RmwOp::Or),
        (".xor", RmwOp::Xor),
        (".min", RmwOp::Min),
        (".max", RmwOp::Max),
    ] {
        let p = with_head(&format!("rmw.atom.dv.sc0{tok} r0, x, r9 | ;\n"));
        let i = instr(&p, 0, 0);
        assert_eq!(i.rmw_op, op, "{tok}");
        assert_eq!(i.operand, Some(Operand::Reg("r9".into())));
        // The operation token may come anywhere among the attributes.
        let p = with_head(&format!("rmw{tok}.atom.dv.sc0 r0, x, -4 | ;\n"));
        assert_eq!(instr(&p, 0, 0).rmw_op, op, "{tok}");
        assert_eq!(instr(&p, 0, 0).operand, Some(Operand::Const(-4)));
    }
}

#[test]
fn barriers_and_device_operations() {
    let p = with_head(
        "membar.acq_rel.qf.semsc0.semsc2 | cbar.acq.rel.sg.semsc1.semav.semvis 7 ;\n\
         avdevice | visdevice ;\nmembar.rel.wg.semsc0.semav | cbar.wg 00 ;\n",
    );
    let m = instr(&p, 0, 0);
    assert_eq!(m.kind, OpKind::MemoryBarrier);
    assert_eq!(m.semantics.order, Order::AcquireRelease);
    assert_eq!(m.scope, Some(Scope::QueueFamily));
    let classes: Vec<StorageClass> = m.semantics.storage_classes.iter().copied().collect();
    assert_eq!(classes, vec![StorageClass(0), StorageClass(2)]);
    assert!(!m.non_private && m.storage_class.is_none());
    let c = instr(&p, 1, 0);
    assert_eq!(c.kind, OpKind::control_barrier(7, Scope::Workgroup));
    assert_eq!(c.scope, Some(Scope::Subgroup));
    assert_eq!(c.semantics.order, Order::AcquireRelease);
    assert!(c.semantics.make_available && c.semantics.make_visible);
    assert_eq!(instr(&p, 0, 1).kind, OpKind::AvailabilityDevice);
    assert_eq!(instr(&p, 1, 1).kind, OpKind::VisibilityDevice);
    assert!(instr(&p, 0, 2).semantics.make_available);
    assert_eq!(
        instr(&p, 1, 2).kind,
        OpKind::control_barrier(0, Scope::Workgroup)
    );
}

#[test]
fn av_vis_and_attribute_order() {
    // Attribute tokens in any order; av/vis imply non-private.
    let p = with_head(
        "st.sc1.dv.av x, 1 | ld.sc0.wg.vis r0, x ;\nst.dv.rel.sc0.semsc0.atom y, 2 | ;\n",
    );
    let st = instr(&p, 0, 0);
    assert!(st.make_pointer_available && st.non_private && !st.make_pointer_visible);
    assert_eq!(st.scope, Some(Scope::Device));
    assert_eq!(st.storage_class, Some(StorageClass(1)));
    let ld = instr(&p, 1, 0);
    assert!(ld.make_pointer_visible && ld.non_private);
    assert_eq!(ld.scope, Some(Scope::Workgroup));
    let rel = instr(&p, 0, 1);
    assert!(rel.atomic && rel.non_private && rel.make_pointer_available);
    assert_eq!(rel.semantics.order, Order::Release);
}

#[test]
fn local_arithmetic_and_branches() {
    let mut rows = String::new();
    for (op, _) in [
        ("add", ArithOp::Add),
        ("sub", ArithOp::Sub),
        ("mul", ArithOp::Mul),
        ("and", ArithOp::And),
        ("or", ArithOp::Or),
        ("xor", ArithOp::Xor),
    ] {
        rows.push_str(&format!("{op} r1, r9, -2 | ;\n"));
    }
    for b in ["beq", "bne", "blt", "ble", "bgt", "bge"] {
        rows.push_str(&format!("{b} r1, 3, L1 | ;\n"));
    }
    rows.push_str("L1: | ;\ngoto L1 | ;\n");
    let p = with_head(&rows);
    let code = &p.threads[0].code;
    let ops: Vec<ArithOp> = code
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign { op, dest, a, b, .. } => {
                assert_eq!(dest, "r1");
                assert_eq!(*a, Operand::Reg("r9".into()));
                assert_eq!(*b, Operand::Const(-2));
                Some(*op)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        ops,
        vec![
            ArithOp::Add,
            ArithOp::Sub,
            ArithOp::Mul,
            ArithOp::And,
            ArithOp::Or,
            ArithOp::Xor
        ]
    );
    let cmps: Vec<Cmp> = code
        .iter()
        .filter_map(|s| match s {
            Stmt::Branch { cmp, label, b, .. } => {
                assert_eq!(label, "L1");
                assert_eq!(*b, Operand::Const(3));
                Some(*cmp)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        cmps,
        vec![Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]
    );
    assert!(matches!(&code[12], Stmt::Label { name, source } if name == "L1" && source.line == 16));
    assert!(matches!(&code[13], Stmt::Goto { label, .. } if label == "L1"));
}

#[test]
fn condition_expressions() {
    let c = |cond: &str| {
        with_head(&format!("ld.sc0 r1, x | ld.sc0 r2, y ;\n{cond}\n"))
            .condition
            .unwrap()
    };
    // `=` is `==`; herd's `0:r1`; locations; negative integers; precedence.
    let e = c("exists (0:r1 = 1 \\/ P1:r2 == -1 /\\ x != y)").expr;
    assert_eq!(
        e,
        or(
            eq(reg(0, "r1"), Term::Const(1)),
            and(
                eq(reg(1, "r2"), Term::Const(-1)),
                CondExpr::Ne(Term::Loc(0), Term::Loc(1))
            )
        )
    );
    let e = c("forall ~(P0:r1 == 1) /\\ not true \\/ (false)").expr;
    assert_eq!(
        e,
        or(
            and(
                CondExpr::Not(Box::new(eq(reg(0, "r1"), Term::Const(1)))),
                CondExpr::Not(Box::new(CondExpr::True))
            ),
            CondExpr::False
        )
    );
    // Registers given only an initial value count as defined.
    assert_eq!(
        c("exists P0:r9 == 0").expr,
        eq(reg(0, "r9"), Term::Const(0))
    );
    // filter before or after the quantifier; trailing `;`.
    let cond = c("filter (P0:r1 == 1);\n~ exists\n  (x == 1);");
    assert_eq!(cond.quantifier, Some(Quantifier::NotExists));
    assert_eq!(cond.filter, Some(eq(reg(0, "r1"), Term::Const(1))));
    assert_eq!(cond.expr, eq(Term::Loc(0), Term::Const(1)));
    assert_eq!(cond.text, "filter (P0:r1 == 1) ~ exists (x == 1)");
    let cond = c("exists (x == 1) filter (y == 0)");
    assert_eq!(cond.quantifier, Some(Quantifier::Exists));
    assert!(cond.filter.is_some());
    let cond = c("not exists (x == 1)");
    assert_eq!(cond.quantifier, Some(Quantifier::NotExists));
}

#[test]
fn locations_clause_and_no_condition() {
    let p = with_head("ld.sc0 r1, x | st.sc0 q, 1 ;\nlocations [q; x;]\n");
    assert_eq!(p.shown_locations, vec![2, 0]);
    assert!(p.condition.is_none());
    let p = with_head("ld.sc0 r1, x | ;\nlocations [y] exists (P0:r1 == 0)\n");
    assert_eq!(p.shown_locations, vec![1]);
    assert!(p.condition.is_some());
}

#[test]
fn comments_and_crlf() {
    let text = "(* lead *) VULKAN t\r\n\"doc\r\n more\" (* c *)\r\n{ x=0; (* in init *) }\r\n\
         P0@sg 0, wg 0, qf 0 ;\r\n(* between rows *)\r\nld.sc0 r0, x ;\r\nexists (* here *) (P0:r0 == 0)\r\n";
    // The architecture word comes first.
    assert!(parse("t.litmus", text).is_err());
    let text = text.replacen("(* lead *) ", "", 1);
    let p = ok(&text);
    assert_eq!(p.threads[0].code.len(), 1);
    assert_eq!(p.threads[0].code[0].source().text, "ld.sc0 r0, x");
    assert_eq!(p.condition.unwrap().text, "exists (* here *) (P0:r0 == 0)");
}

#[test]
fn control_barrier_instance_may_repeat_across_exclusive_paths() {
    // Straight-line code reaching one instance twice is rejected (below);
    // with branches the two barriers may sit on exclusive paths.
    let p = with_head(
        "beq r9, 0, L0 | cbar.wg 1 ;\ncbar.wg 1 | ;\ngoto L1 | ;\nL0: | ;\ncbar.wg 1 | ;\nL1: | ;\n",
    );
    assert_eq!(p.threads[0].instructions().count(), 2);
}

#[test]
fn load_dispatches_litmus_files() {
    use crate::frontend::{Format, load};
    assert_eq!(
        Format::of_path(Path::new("a/b.litmus")),
        Some(Format::VulkanLitmus)
    );
    assert_eq!(
        Format::of_path(Path::new("a/b.test")),
        Some(Format::AlloyTest)
    );
    let dir = std::env::temp_dir().join(format!("vkmm-litmus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.litmus");
    std::fs::write(
        &good,
        format!("{HEAD}ld.sc0 r0, x | ;\nexists (P0:r0 == 0)\n"),
    )
    .unwrap();
    let p = load(&good).unwrap();
    assert_eq!(p.name, "t");
    let arm = dir.join("arm.litmus");
    std::fs::write(&arm, "\n  AArch64 MP\n{}\n").unwrap();
    let e = load(&arm).unwrap_err();
    assert_eq!((e.line, e.column), (2, 3));
    assert_eq!(
        e.message,
        "unsupported litmus architecture `AArch64`: vkmm reads VULKAN and OPENCL litmus tests"
    );
    let alloy = dir.join("mp.test");
    std::fs::write(&alloy, "NEWTHREAD\nst.sc0 x = 1\n").unwrap();
    assert_eq!(load(&alloy).unwrap().threads.len(), 1);
    let other = dir.join("x.txt");
    std::fs::write(&other, "").unwrap();
    assert!(load(&other).unwrap_err().message.contains("`.litmus`"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ----- errors ------------------------------------------------------------------

#[test]
fn architecture_errors() {
    assert_err(
        err("OpenCL t\n{}\n"),
        1,
        1,
        "unsupported litmus architecture `OpenCL`",
    );
    assert_err(err("  \n \n"), 1, 1, "empty file");
}

#[test]
fn header_and_block_errors() {
    assert_err(err("VULKAN t\n\"doc\nx=0;\n"), 2, 1, "unterminated string");
    assert_err(
        err("VULKAN t\nx=0;\n}\n"),
        2,
        1,
        "expected `{` to open the initial state",
    );
    assert_err(
        err("VULKAN t\n\"doc\"\n"),
        2,
        6,
        "expected the initial state",
    );
    assert_err(
        err("VULKAN t\n{ x=0;\n"),
        2,
        1,
        "unterminated initial state",
    );
    assert_err(
        err("VULKAN t\n{}\n{ ssw 0 1;\n"),
        3,
        1,
        "unterminated ssw block",
    );
    assert_err(
        err("VULKAN t\n{}\n{ sw 0 1; }\n"),
        3,
        3,
        "expected `ssw i j;`",
    );
    assert_err(
        err("VULKAN t\n{}\n{ ssw 0 x; }\n"),
        3,
        9,
        "expected a thread",
    );
    assert_err(err("VULKAN t\n(* open\n{}\n"), 2, 1, "unterminated comment");
    assert_err(
        err("VULKAN t\n{}\n"),
        2,
        3,
        "expected the thread declaration row",
    );
    assert_err(
        err("VULKAN t\n{}\nexists (x == 1)\n"),
        3,
        1,
        "expected the thread declaration row",
    );
}

#[test]
fn malformed_init_entries() {
    let e = |entry: &str| err(&format!("VULKAN t\n{{ {entry} }}\nP0@sg 0, wg 0, qf 0;\n"));
    assert_err(e("x=;"), 2, 5, "expected an integer value");
    assert_err(
        e("x 0;"),
        2,
        5,
        "expected `=`, `:` (a size in bytes) or `aliases` after `x`",
    );
    assert_err(
        e("x=0 y=1;"),
        2,
        7,
        "expected `;` after an initial-state entry",
    );
    assert_err(e("P0:r0=x;"), 2, 9, "must be an integer");
    assert_err(e("x=&y;"), 2, 5, "must be an integer");
    assert_err(e("P0:=1;"), 2, 6, "expected a register name");
    assert_err(e("5=1;"), 2, 3, "expected a location name or `Pn:register`");
    assert_err(e("= 1;"), 2, 3, "expected an initial-state entry");
    assert_err(e("x=99999999999999999999;"), 2, 5, "out of range");
    assert_err(
        e("x=1; x=2;"),
        2,
        8,
        "already has an initial value (line 2)",
    );
    assert_err(
        e("y aliases x;"),
        2,
        13,
        "`x` is not a location declared earlier",
    );
    assert_err(e("x=0; x aliases x;"), 2, 8, "`x` is already declared");
    assert_err(
        e("x=0; y aliases x; y=1;"),
        2,
        21,
        "location `x` already has",
    );
    assert_err(
        e("P3:r0=0;"),
        2,
        3,
        "names thread P3, but the test declares only P0",
    );
    assert_err(e("P0:r0=0; P0:r0=1;"), 2, 15, "P0:r0 is initialised twice");
}

#[test]
fn thread_declaration_errors() {
    let e = |decl: &str| err(&format!("VULKAN t\n{{}}\n{decl}\n"));
    assert_err(
        e("P1@sg 0, wg 0, qf 0 | P0@sg 0, wg 0, qf 0;"),
        3,
        1,
        "expected P0: threads are numbered",
    );
    assert_err(
        e("P0 sg 0, wg 0, qf 0;"),
        3,
        4,
        "expected `@` after the thread name",
    );
    assert_err(e("P0@wg 0, sg 0, qf 0;"), 3, 4, "expected `sg`");
    assert_err(e("P0@sg x, wg 0, qf 0;"), 3, 7, "expected the sg number");
    assert_err(e("P0@sg 0 wg 0, qf 0;"), 3, 9, "expected `,` before `wg`");
    assert_err(e("P0@sg 0, wg 0, qf 0 x;"), 3, 21, "unexpected `x`");
    assert_err(
        e("P0@sg 0, wg 0, qf 0 | ;"),
        3,
        23,
        "expected a thread declaration",
    );
    assert_err(
        e("P0@sg 0, wg 0, qf 0"),
        3,
        20,
        "expected `;` at the end of the row",
    );
    assert_err(
        err("VULKAN t\n{}\n{ ssw 0 2; }\nP0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0;\n"),
        3,
        9,
        "ssw names thread P2, but the test declares P0..P1",
    );
}

#[test]
fn row_errors() {
    assert_err(
        err_head("ld.sc0 r0, x | st.sc0 x, 1 | st.sc0 y, 1 ;\n"),
        4,
        30,
        "row has 3 columns, the declaration row has 2 threads",
    );
    assert_err(
        err_head("ld.sc0 r0, x ;\n"),
        4,
        14,
        "row has 1 columns, the declaration row has 2 threads",
    );
    assert_err(
        err_head("ld.sc0 r0, x | st.sc0 x, 1\nexists (x == 1)\n"),
        4,
        27,
        "expected `;` at the end of the row",
    );
}

#[test]
fn instruction_syntax_errors() {
    let e = |cell: &str| err_head(&format!("{cell} | ;\n"));
    assert_err(e("foo r0, x"), 4, 1, "unknown instruction `foo`");
    assert_err(e("  ld.atom.wgg.sc0 r0, x"), 4, 11, "unknown token `wgg`");
    assert_err(e("ld..sc0 r0, x"), 4, 4, "expected an attribute after `.`");
    assert_err(
        e("ld.sc0 r0 x"),
        4,
        11,
        "expected `,` after the destination register",
    );
    assert_err(e("ld.sc0 r0, 5"), 4, 12, "expected a location name");
    assert_err(
        e("ld.sc0 r0, x, y"),
        4,
        13,
        "unexpected `,` after the location",
    );
    assert_err(e("st.sc0 x, ="), 4, 11, "expected a register or an integer");
    assert_err(e("st.sc0 x"), 4, 9, "expected `,` after the location");
    assert_err(
        e("rmw.atom.dv.sc0 r0, x"),
        4,
        22,
        "expected `,` after the location",
    );
    assert_err(
        e("cbar.wg"),
        4,
        8,
        "expected the control barrier's instance number",
    );
    assert_err(
        e("cbar.wg r9"),
        4,
        9,
        "expected the control barrier's instance number",
    );
    assert_err(e("cbar.wg 99999999999"), 4, 9, "out of range");
    assert_err(
        e("membar.rel.wg.semsc0 x"),
        4,
        22,
        "`membar` takes no operand",
    );
    assert_err(e("avdevice 1"), 4, 10, "`avdevice` takes no operand");
    assert_err(e("div r1, r9, 2"), 4, 1, "`div` is not supported");
    assert_err(e("goto 5"), 4, 6, "expected a label after `goto`");
    assert_err(
        e("bne r9, 0"),
        4,
        10,
        "expected `,` before the branch target",
    );
    assert_err(e("add r1, r9"), 4, 11, "expected `,` between the operands");
    assert_err(e("L0: x"), 4, 5, "unexpected `x` after the label");
    assert_err(e("5"), 4, 1, "expected ld, st, rmw");
    assert_err(e("st.sc0 x, 99999999999999999999"), 4, 11, "out of range");
}

#[test]
fn attribute_errors() {
    let e = |cell: &str| err_head(&format!("{cell} | ;\n"));
    assert_err(e("ld.atom.sc0 r0, x"), 4, 1, "missing scope");
    assert!(
        e("ld.atom.sc0 r0, x")
            .2
            .contains("sg, wg, fi, qf, dv, inv, cd")
    );
    assert_err(e("membar.rel.semsc0"), 4, 1, "missing scope");
    assert_err(e("cbar 1"), 4, 1, "missing scope");
    assert_err(e("st.av.sc0 x, 1"), 4, 1, "missing scope");
    assert_err(e("ld.vis.sc0 r0, x"), 4, 1, "missing scope");
    assert_err(e("ld.atom.wg r0, x"), 4, 1, "missing storage class");
    assert_err(e("st x, 1"), 4, 1, "missing storage class");
    assert_err(
        e("st.acq.sc0 x, 1"),
        4,
        4,
        "acquire applies to atomic reads and barriers",
    );
    assert_err(e("st.atom.acq.wg.sc0.semsc0 x, 1"), 4, 9, "acquire applies");
    assert_err(
        e("ld.atom.rel.wg.sc0.semsc0 r0, x"),
        4,
        9,
        "release applies",
    );
    assert_err(e("membar.wg"), 4, 1, "a membar needs acq and/or rel");
    assert_err(
        e("membar.acq.wg"),
        4,
        1,
        "at least one storage class in the semantics",
    );
    assert_err(e("ld.atom.wg.sc0.semsc0 r0, x"), 4, 1, "need acq or rel");
    assert_err(
        e("st.atom.wg.sc0.semav x, 1"),
        4,
        16,
        "semav) needs release",
    );
    assert_err(
        e("ld.atom.wg.sc0.semvis r0, x"),
        4,
        16,
        "semvis) needs acquire",
    );
    assert_err(e("ld.atom.wg.dv.sc0 r0, x"), 4, 12, "second scope `dv`");
    assert_err(e("ld.sc0.sc1 r0, x"), 4, 8, "second storage class `sc1`");
    assert_err(e("ld.atom.atom.wg.sc0 r0, x"), 4, 9, "`atom` given twice");
    assert_err(
        e("membar.acq.acq_rel.wg.semsc0"),
        4,
        12,
        "`acq_rel` repeats `acq`",
    );
    assert_err(
        e("membar.rel.wg.semsc0.semsc0"),
        4,
        22,
        "`semsc0` given twice",
    );
    assert_err(e("rmw.dv.sc0 r0, x, 1"), 4, 1, "must be atomic");
    assert_err(e("ld.add.sc0 r0, x"), 4, 4, "only applies to rmw");
    assert_err(
        e("rmw.atom.add.sub.dv.sc0 r0, x, 1"),
        4,
        14,
        "already has `add`",
    );
    assert_err(
        e("rmw.atom.mul.dv.sc0 r0, x, 1"),
        4,
        10,
        "unsupported read-modify-write",
    );
    assert_err(e("ld.av.dv.sc0 r0, x"), 4, 4, "applies to writes");
    assert_err(e("st.vis.dv.sc0 x, 1"), 4, 4, "applies to reads");
    assert_err(e("avdevice.dv"), 4, 1, "take no other token");
    assert_err(
        e("membar.atom.rel.wg.semsc0"),
        4,
        8,
        "`atom` applies to ld, st and rmw",
    );
    assert_err(
        e("membar.sc0.rel.wg.semsc0"),
        4,
        8,
        "only memory accesses have a storage class",
    );
    assert_err(
        e("cbar.nonpriv.wg 1"),
        4,
        6,
        "only applies to memory accesses",
    );
}

#[test]
fn register_errors() {
    // Read by a store, an rmw, a branch, an assignment, before any definition.
    assert_err(
        err_head("st.sc0 x, r5 | ;\n"),
        4,
        11,
        "register `r5` is read by P0 but never written by it nor initialised",
    );
    assert_err(
        err_head(" | rmw.atom.dv.sc0 r0, x, r3 ;\n"),
        4,
        27,
        "register `r3` is read by P1",
    );
    assert_err(
        err_head("L: | ;\nbne r1, 0, L | ;\n"),
        5,
        5,
        "`r1` is read by P0",
    );
    assert_err(err_head("add r1, 2, r7 | ;\n"), 4, 12, "`r7` is read by P0");
    // Written anywhere in the thread (even later) is enough; P0's r9 is initialised.
    with_head("L: | ;\nst.sc0 x, r1 | ;\nld.sc0 r1, x | ;\nbne r9, 0, L | ;\n");
    // Another thread's register does not count.
    assert_err(
        err_head("ld.sc0 r2, x | st.sc0 x, r2 ;\n"),
        4,
        26,
        "`r2` is read by P1",
    );
    // The first problem in the file is reported.
    assert_err(
        err_head("st.sc0 x, r5 | goto L9 ;\nst.sc0 x, r6 | ;\n"),
        4,
        11,
        "`r5`",
    );
}

#[test]
fn label_errors() {
    assert_err(
        err_head("goto L9 | ;\n"),
        4,
        6,
        "label `L9` is not defined in P0",
    );
    assert_err(
        err_head("L1: | ;\n | beq 2, 1, L1 ;\n"),
        5,
        14,
        "label `L1` is not defined in P1",
    );
    assert_err(
        err_head("L1: | ;\nL1: | ;\n"),
        5,
        1,
        "label `L1` is defined twice in P0 (first at line 4)",
    );
}

#[test]
fn control_barrier_instance_reached_twice() {
    assert_err(
        err_head("cbar.wg 1 | ;\n  cbar.wg 1 | ;\n"),
        5,
        3,
        "control barrier instance 1 is reached twice by P0 (first at line 4)",
    );
}

#[test]
fn condition_errors() {
    let e = |cond: &str| err_head(&format!("ld.sc0 r1, x | ;\n{cond}\n"));
    assert_err(
        e("exists (P2:r0 == 1)"),
        5,
        9,
        "the condition names thread P2, but the test declares P0..P1",
    );
    assert_err(
        e("exists (P0:r0 == 1)"),
        5,
        12,
        "P0 has no register `r0`: P0:r0 is neither declared, initialised nor written by thread P0",
    );
    assert_err(
        e("exists (P1:r1 == 1)"),
        5,
        12,
        "P1:r1 is neither declared, initialised nor written",
    );
    assert_err(e("exists (q == 1)"), 5, 9, "unknown location `q`");
    assert_err(e("exists (x <= )"), 5, 14, "expected a register");
    assert_err(e("exists (x 1)"), 5, 11, "expected a comparison");
    assert_err(
        e("exists (x == 1"),
        5,
        15,
        "expected `)` to close the `(` at 5:8",
    );
    assert_err(
        e("exists"),
        5,
        7,
        "expected a register `P0:r0`, a location or an integer",
    );
    assert_err(
        e("exists (x == 1) exists (x == 0)"),
        5,
        17,
        "one final condition",
    );
    assert_err(
        e("filter (x == 1) filter (x == 0)"),
        5,
        17,
        "at most one `filter`",
    );
    assert_err(e("~forall (x == 1)"), 5, 2, "expected `exists` after `~`");
    assert_err(
        e("final (x == 1)"),
        5,
        1,
        "expected `exists`, `~exists`, `forall`",
    );
    assert_err(e("exists (x == 1) junk"), 5, 17, "expected `exists`");
    assert_err(
        e("locations [x; P0:r1;]"),
        5,
        15,
        "expected a location name",
    );
    assert_err(e("locations [q]"), 5, 12, "unknown location `q`");
    assert_err(e("locations [x;"), 5, 11, "unterminated `locations [`");
    assert_err(e("locations x"), 5, 11, "expected `[` after `locations`");
    assert_err(
        e("exists (x == 99999999999999999999)"),
        5,
        14,
        "out of range",
    );
    let deep = format!("exists {}x == 1", "(".repeat(1000));
    let nesting = format!(
        "nesting deeper than {} levels",
        crate::frontend::MAX_NESTING
    );
    assert!(e(&deep).2.contains(&nesting));
}

mod never_panics {
    //! Whatever the input, the parser returns; it never panics.

    use super::{HEAD, parse};
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "VULKAN",
        "Vulkan",
        "OpenCL",
        "{",
        "}",
        ";",
        "|",
        "@",
        ",",
        ":",
        ".",
        "=",
        "==",
        "!=",
        "-",
        "~",
        "(",
        ")",
        "[",
        "]",
        "\"",
        "(*",
        "*)",
        "&",
        "/\\",
        "\\/",
        "\n",
        "\r\n",
        "\t",
        "P0",
        "P1",
        "P7",
        "0",
        "1",
        "00",
        "-3",
        "99999999999999999999",
        "x",
        "y",
        "r0",
        "r1",
        "sg",
        "wg",
        "qf",
        "dv",
        "P0@sg 0, wg 0, qf 0",
        "P1@sg 1,wg 0, qf 0",
        "x=0",
        "P0:r0=0",
        "P1:r1 = 2",
        "y aliases x",
        "ssw 0 1",
        "ld",
        "st",
        "rmw",
        "membar",
        "cbar",
        "avdevice",
        "visdevice",
        "atom",
        "acq",
        "rel",
        "acq_rel",
        "sc0",
        "sc1",
        "semsc0",
        "semav",
        "semvis",
        "nonpriv",
        "av",
        "vis",
        "add",
        "sub",
        "mul",
        "div",
        "min",
        "and",
        "xor",
        "ld.atom.acq.wg.sc0.semsc0 r0, x",
        "st.av.dv.sc0 x, 1",
        "st.sc0 y, r1",
        "rmw.atom.dv.sc0.add r1, x, 2",
        "cbar.acq_rel.wg.semsc0 0",
        "membar.rel.dv.semsc0",
        "LC00:",
        "goto LC00",
        "bne r0, 0, LC00",
        "add r1, r0, 1",
        "exists",
        "~exists",
        "forall",
        "filter",
        "not",
        "true",
        "locations [x;]",
        "P0:r0 == 1",
        "0:r1",
        "é",
        "\u{0}",
    ];

    fn soup() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (
                prop::sample::select(WORDS),
                prop::sample::select(&["", " ", "\n", ".", ";"][..]),
            ),
            0..60,
        )
        .prop_map(|ws| ws.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
    }

    /// A valid test exercising most constructs.
    fn template() -> String {
        format!(
            "{HEAD}{}",
            "LC00: | ld.atom.acq.wg.sc0.semsc0 r0, y ;\n\
             ld.atom.dv.sc0 r1, x | rmw.atom.dv.sc0.add r2, x, r0 ;\n\
             bne r1, 0, LC00 | cbar.acq_rel.wg.semsc0 3 ;\n\
             add r3, r1, r9 | membar.rel.dv.semsc0.semav ;\n\
             st.av.dv.sc0 y, r3 | avdevice ;\n\
             locations [x; y;]\nfilter (P0:r1 == 1)\n\
             exists (P1:r0 == 1 /\\ ~(x != y) \\/ 0:r3 = -1)\n"
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn token_soup(body in soup(), vulkan in any::<bool>()) {
            let text = if vulkan { format!("VULKAN t\n{body}") } else { body };
            let _ = parse("soup.litmus", &text);
        }

        #[test]
        fn arbitrary_text(text in "\\PC{0,300}") {
            let _ = parse("any.litmus", &text);
            let _ = parse("any.litmus", &format!("VULKAN {text}"));
        }

        #[test]
        fn mutated_valid_test(
            cut in 0usize..2000,
            len in 0usize..12,
            word in prop::sample::select(WORDS),
        ) {
            let chars: Vec<char> = template().chars().collect();
            let at = cut % (chars.len() + 1);
            let end = (at + len).min(chars.len());
            let deleted: String = chars[..at].iter().chain(&chars[end..]).collect();
            let _ = parse("m.litmus", &deleted);
            let inserted: String = chars[..at]
                .iter()
                .copied()
                .chain(word.chars())
                .chain(chars[at..].iter().copied())
                .collect();
            let _ = parse("m.litmus", &inserted);
        }
    }

    #[test]
    fn template_is_valid() {
        let p = parse("m.litmus", &template()).unwrap();
        assert_eq!(p.threads[1].code.len(), 5);
    }
}

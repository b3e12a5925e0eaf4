use super::*;
use crate::ir::{CondExpr, Quantifier, Term};
use std::path::{Path, PathBuf};

fn ok(text: &str) -> Program {
    parse("t.litmus", text).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> FrontendError {
    parse("t.litmus", text).expect_err("expected an error")
}

fn assert_err(e: FrontendError, line: usize, column: usize, needle: &str) {
    assert_eq!((e.line, e.column), (line, column), "{e}");
    assert!(
        e.message.contains(needle),
        "`{}` lacks `{needle}`",
        e.message
    );
    assert_eq!(e.file, "t.litmus");
}

fn ops(p: &Program, t: usize) -> Vec<&Instruction> {
    p.threads[t].instructions().collect()
}

// ----- corpus ----------------------------------------------------------------

/// Corpus files vkmm rejects on purpose, with the reason (checked to fail).
const KNOWN_UNSUPPORTED: &[(&str, &str)] = &[
    // `y` is local memory of two workgroups (one instance each, as the
    // specification says); the condition names `y`. It parses with
    // `--local-memory shared` (see `thinair_parses_with_shared_local_memory`).
    ("herd/thinair.litmus", "one instance per workgroup"),
];

fn corpus_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m-opencl");
    d.is_dir().then_some(d)
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            litmus_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_parses() {
    let Some(dir) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-opencl is missing");
        return;
    };
    let mut files = Vec::new();
    litmus_files(&dir, &mut files);
    files.sort();
    assert!(files.len() >= 150, "only {} files", files.len());
    let mut parsed = 0;
    for f in &files {
        let rel = f
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let r = crate::frontend::load(f);
        match KNOWN_UNSUPPORTED.iter().find(|k| k.0 == rel) {
            Some((_, why)) => {
                let e = r.expect_err(&rel);
                assert!(e.message.contains(why), "{rel}: {e}");
                assert!(e.line > 0 && e.column > 0, "{rel}: {e}");
            }
            None => {
                let p = r.unwrap_or_else(|e| panic!("{e}"));
                assert!(!p.threads.is_empty(), "{rel}");
                assert!(p.condition.is_some(), "{rel}");
                parsed += 1;
            }
        }
    }
    assert_eq!(parsed + KNOWN_UNSUPPORTED.len(), files.len());
}

#[test]
fn thinair_parses_with_shared_local_memory() {
    let Some(dir) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-opencl is missing");
        return;
    };
    let opts = Options {
        local_memory: LocalMemory::Shared,
        ..Options::default()
    };
    let p = crate::frontend::load_with(&dir.join("herd/thinair.litmus"), opts).unwrap();
    assert_eq!(p.locations, ["x", "y"]);
}

// ----- spot checks -------------------------------------------------------------

const MP: &str = "OPENCL MP
(* a comment *)
{ [x]=0; [y]=3; }
P0@wg 0, dev 0 (global int* x, global atomic_int* y) {
  *x = 1; // plain store
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group);
}
P1@wg 1, dev 1 (global int* x, global atomic_int* y) {
  int r0 = atomic_load(y);
  int r1 = -1;
  if (1 == r0) {
    r1 = *x;
  } else {
    r1 = r0 + 2;
  }
}
exists (1:r0=1 /\\ P1:r1=0 \\/ ~(x=1))
";

#[test]
fn placement_and_locations() {
    let p = ok(MP);
    assert_eq!(p.name, "MP");
    assert_eq!(p.locations, vec!["x", "y"]);
    assert_eq!(p.initial_values, vec![0, 3]);
    let t: Vec<_> = p
        .threads
        .iter()
        .map(|t| (t.id, t.subgroup, t.workgroup, t.queue_family, t.device))
        .collect();
    assert_eq!(t, vec![(0, 0, 0, 0, 0), (1, 1, 1, 0, 1)]);
}

#[test]
fn atomics_orders_and_scopes() {
    let p = ok(MP);
    let a = ops(&p, 0);
    assert_eq!(a[0].kind, OpKind::Store);
    assert!(!a[0].atomic && a[0].non_private);
    assert_eq!(a[0].operand, Some(Operand::Const(1)));
    assert_eq!(a[0].storage_class, Some(OPENCL_GLOBAL));
    assert!(a[1].atomic && a[1].non_private && a[1].make_pointer_available);
    assert_eq!(a[1].scope, Some(Scope::Workgroup));
    assert_eq!(a[1].semantics.order, Order::Release);
    assert!(!a[1].semantics.seq_cst && a[1].semantics.make_available);
    let b = ops(&p, 1);
    // atomic_load defaults: seq_cst, device scope.
    assert_eq!(b[0].kind, OpKind::Load);
    assert_eq!(b[0].dest.as_deref(), Some("r0"));
    assert_eq!(b[0].scope, Some(Scope::Device));
    assert_eq!(b[0].semantics.order, Order::Acquire);
    assert!(b[0].semantics.seq_cst && b[0].make_pointer_visible);
    assert_eq!(b[1].kind, OpKind::Load);
    assert!(!b[1].atomic);
    assert_eq!(b[1].dest.as_deref(), Some("r1"));
    assert!(!p.threads[1].is_straight_line());
    let branches = p.threads[1]
        .code
        .iter()
        .filter(|s| matches!(s, Stmt::Branch { cmp: Cmp::Ne, .. }))
        .count();
    assert_eq!(branches, 1);
}

#[test]
fn rmw_and_seq_cst() {
    let p = ok("OPENCL t
{}
P0@wg 0, dev 0 (global atomic_int* x, local atomic_int* y) {
  int a = atomic_fetch_add_explicit(x, 2, memory_order_seq_cst, memory_scope_all_svm_devices);
  atomic_exchange(y, a);
  int b = atomic_fetch_max_explicit(y, 5, memory_order_acq_rel);
}
exists (0:a=0 /\\ y=5)
");
    let a = ops(&p, 0);
    assert_eq!(a[0].kind, OpKind::Rmw);
    assert_eq!(a[0].rmw_op, RmwOp::Add);
    assert_eq!(a[0].scope, Some(Scope::CrossDevice));
    assert_eq!(a[0].semantics.order, Order::AcquireRelease);
    assert!(a[0].semantics.seq_cst);
    assert_eq!(a[1].rmw_op, RmwOp::Exchange);
    assert_eq!(a[1].operand, Some(Operand::Reg("a".into())));
    assert_eq!(a[1].dest, None);
    assert_eq!(a[1].storage_class, Some(OPENCL_LOCAL));
    assert_eq!(a[2].rmw_op, RmwOp::Max);
    assert!(!a[2].semantics.seq_cst);
    assert_eq!(p.locations, vec!["x", "y@wg0"]);
    let c = p.condition.unwrap();
    assert_eq!(
        c.expr,
        CondExpr::And(
            Box::new(CondExpr::Eq(
                Term::Reg {
                    thread: 0,
                    reg: "a".into()
                },
                Term::Const(0)
            )),
            Box::new(CondExpr::Eq(Term::Loc(1), Term::Const(5)))
        )
    );
    assert_eq!(c.quantifier, Some(Quantifier::Exists));
}

#[test]
fn fences() {
    let p = ok("OPENCL t
{}
P0@wg 0, dev 0 (global atomic_int* x) {
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_work_group);
  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
}
~exists (x=1)
");
    let a = ops(&p, 0);
    assert_eq!(a[0].kind, OpKind::MemoryBarrier);
    assert_eq!(a[0].scope, Some(Scope::Workgroup));
    assert_eq!(
        a[0].semantics.storage_classes,
        [OPENCL_GLOBAL, OPENCL_LOCAL].into_iter().collect()
    );
    assert_eq!(a[1].semantics.order, Order::AcquireRelease);
    assert!(a[1].semantics.seq_cst);
    assert_eq!(
        a[1].semantics.storage_classes,
        [OPENCL_LOCAL].into_iter().collect()
    );
    assert_eq!(p.condition.unwrap().quantifier, Some(Quantifier::NotExists));
}

#[test]
fn barrier_instances() {
    let p = ok("OPENCL t
{}
P0@wg 0, dev 0 (global int* x) { B1: barrier(CLK_GLOBAL_MEM_FENCE); barrier(CLK_LOCAL_MEM_FENCE); }
P1@wg 0, dev 0 (global int* x) { barrier(CLK_GLOBAL_MEM_FENCE); work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_device); }
P2@wg 1, dev 0 (global int* x) { barrier(CLK_GLOBAL_MEM_FENCE); }
P3@wg 1, dev 0 (global int* x) { barrier(CLK_GLOBAL_MEM_FENCE); }
exists (x=0)
");
    let inst = |t: usize| -> Vec<u32> {
        ops(&p, t)
            .iter()
            .map(|i| match i.kind {
                OpKind::ControlBarrier {
                    instance,
                    execution_scope,
                    ..
                } => {
                    assert_eq!(execution_scope, Scope::Workgroup);
                    assert_eq!(i.semantics.order, Order::AcquireRelease);
                    instance
                }
                _ => panic!("not a barrier"),
            })
            .collect()
    };
    assert_eq!(inst(0), vec![0, 1]);
    assert_eq!(inst(1), vec![0, 1]);
    assert_eq!(inst(2), vec![2]);
    assert_eq!(inst(3), vec![2]);
    assert_eq!(ops(&p, 1)[1].scope, Some(Scope::Device));
    assert_eq!(
        ops(&p, 0)[1].semantics.storage_classes,
        [OPENCL_LOCAL].into_iter().collect()
    );
    assert_eq!(p.threads[2].workgroup, 1);
}

#[test]
fn local_memory_instances() {
    let p = ok("OPENCL t
{ [y]=7; }
P0@wg 0, dev 0 (local int* y) { *y = 1; }
P1@wg 1, dev 0 (local int* y) { int r = *y; }
P2@wg 0, dev 2 (local int* y) { *y = 2; }
exists (y@wg0=1 /\\ y@dev2.wg0=2 /\\ 1:r=7)
");
    assert_eq!(p.locations, vec!["y@wg0", "y@wg1", "y@dev2.wg0"]);
    assert_eq!(p.initial_values, vec![7, 7, 7]);
    assert_eq!(ops(&p, 1)[0].reference, Some(1));
    assert_eq!(p.threads[2].workgroup, 2);
    let e = err("OPENCL t
{}
P0@wg 0, dev 0 (local int* y) { *y = 1; }
P1@wg 1, dev 0 (local int* y) { *y = 2; }
exists (y=1)
");
    assert_err(e, 5, 9, "one instance per workgroup (y@wg0, y@wg1)");
}

#[test]
fn loops_and_arithmetic() {
    let p = ok("OPENCL t
{}
P0@wg 0, dev 0 (global atomic_int* x, global int* y) {
  int t = atomic_load_explicit(x, memory_order_acquire) + *y;
  while (atomic_load(x) != 1 && !t) { t = t * 2 - 1; }
}
forall (0:t=1) filter (x=1)
");
    let c = &p.threads[0].code;
    assert!(c.iter().any(|s| matches!(s, Stmt::Goto { .. })));
    assert!(c.iter().any(|s| matches!(
        s,
        Stmt::Assign {
            op: ArithOp::Mul,
            ..
        }
    )));
    let cond = p.condition.unwrap();
    assert_eq!(cond.quantifier, Some(Quantifier::Forall));
    assert!(cond.filter.is_some());
    assert_eq!(cond.text, "forall ( 0 : t = 1 ) filter ( x = 1 )");
}

#[test]
fn load_dispatches_on_architecture() {
    let dir = std::env::temp_dir().join(format!("vkmm-opencl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("mp.litmus");
    std::fs::write(&f, MP.replacen("OPENCL", "OpenCL", 1)).unwrap();
    assert_eq!(crate::frontend::load(&f).unwrap().threads.len(), 2);
    assert_eq!(
        crate::frontend::Format::of_litmus_text("\n opencl x"),
        crate::frontend::Format::OpenClLitmus
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ----- errors ------------------------------------------------------------------

#[test]
fn errors_have_positions() {
    assert_err(err(""), 1, 1, "empty file");
    assert_err(err("VULKAN t\n"), 1, 1, "expected the litmus header");
    assert_err(err("OPENCL t\n{}\n"), 3, 1, "expected a thread");
    let head = "OPENCL t\n{}\nP0@wg 0, dev 0 (global int* x, global atomic_int* a) {\n";
    let with = |body: &str| format!("{head}{body}\n}}\nexists (x=0)\n");
    assert_err(err(&with("  int r = a;")), 4, 11, "`a` is a pointer");
    assert_err(
        err(&with("  atomic_store(r, 1);")),
        4,
        16,
        "not a parameter",
    );
    assert_err(err(&with("  r = 1;")), 4, 3, "undeclared register `r`");
    assert_err(
        err(&with("  for (;;) {}")),
        4,
        3,
        "unsupported C construct `for`",
    );
    assert_err(err(&with("  *x = 1")), 5, 1, "expected `;`");
    assert_err(err(&with("  foo(x);")), 4, 3, "unknown function `foo`");
    assert_err(
        err(&with(
            "  int r = atomic_load_explicit(a, memory_order_release);",
        )),
        4,
        35,
        "not a valid order for a load",
    );
    assert_err(
        err(&with("  atomic_compare_exchange_strong(a, 1, 1);")),
        4,
        37,
        "expected a pointer parameter as the `expected` argument",
    );
    assert_err(
        err(&with("  int r = atomic_store(a, 1);")),
        4,
        11,
        "returns no value",
    );
    assert_err(
        err(&with(
            "  atomic_work_item_fence(7, memory_order_acquire, memory_scope_device);",
        )),
        4,
        26,
        "fence flags",
    );
    assert_err(
        err(&with("  int r = 1 # 2;")),
        4,
        13,
        "unexpected character `#`",
    );
    assert_err(
        err(&format!("{head}  *x = 1;\n}}\nexists (9:r=0)\n")),
        6,
        9,
        "the condition names thread P9, but the test declares only P0",
    );
    assert_err(
        err(&format!("{head}  *x = 1;\n}}\nexists (0:r=0)\n")),
        6,
        11,
        "no register `r`",
    );
    assert_err(
        err(&format!("{head}  *x = 1;\n}}\nexists (z=0)\n")),
        6,
        9,
        "unknown location `z`",
    );
    assert_err(err(&format!("{head}  *x = 1;\n")), 3, 54, "unclosed `{`");
    assert_err(
        err("OPENCL t\n{}\nP1@wg 0, dev 0 () {}\n"),
        3,
        1,
        "expected thread P0",
    );
    assert_err(err("OPENCL t\n(* open\n"), 2, 1, "unterminated comment");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const SOUP: &[&str] = &[
        "OPENCL",
        "t",
        "\n",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        ":",
        "=",
        "*",
        "-",
        "+",
        "P0",
        "P1",
        "@wg",
        "0",
        "1",
        ", dev",
        "global",
        "local",
        "int",
        "atomic_int",
        "x",
        "y",
        "r0",
        "atomic_load",
        "atomic_store_explicit",
        "atomic_fetch_add",
        "memory_order_seq_cst",
        "memory_scope_work_group",
        "atomic_work_item_fence",
        "CLK_GLOBAL_MEM_FENCE",
        "|",
        "barrier",
        "if",
        "else",
        "while",
        "exists",
        "~",
        "/\\",
        "\\/",
        "0:r0",
        "(*",
        "*)",
        "//",
        "==",
        "!",
        "&&",
        "filter",
        "forall",
        "9223372036854775807",
        "-",
        "@",
        ".",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn token_soup_never_panics(toks in proptest::collection::vec(0..SOUP.len(), 0..60)) {
            let mut text = String::from("OPENCL t\n");
            for i in toks {
                text.push_str(SOUP[i]);
                text.push(' ');
            }
            let _ = parse("soup.litmus", &text);
        }

        #[test]
        fn valid_prefix_soup_never_panics(toks in proptest::collection::vec(0..SOUP.len(), 0..40)) {
            let mut text = String::from(
                "OPENCL t\n{}\nP0@wg 0, dev 0 (global atomic_int* x, local int* y) {\n",
            );
            for i in toks {
                text.push_str(SOUP[i]);
                text.push(' ');
            }
            let _ = parse("soup.litmus", &text);
        }
    }
}

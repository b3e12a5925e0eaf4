//! The condition grammar of the skeleton: each construct it accepts, each
//! it rejects (with the column of the offending token), in both dialects.

use crate::frontend::{FrontendError, MAX_NESTING, opencl_litmus, parse_outcome, vulkan_litmus};
use crate::ir::{Cmp, CondExpr, Program, Quantifier, Term};

const VULKAN: &str = "VULKAN t
\"a comment\"
{ x=0; y aliases x; z=0; }
 P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;
 st.sc0 x, 1         | ld.sc0 r0, z        ;
exists (P1:r0 == 1)
";

const OPENCL: &str = "OPENCL t
{ [x]=0; }
P0@wg 0, dev 0 (global atomic_int* x, local int* y) {
  int r0 = atomic_load(x);
  *y = 1;
}
P1@wg 1, dev 0 (global atomic_int* x, local int* y) {
  *y = 2;
}
exists (0:r0=1)
";

fn vulkan() -> Program {
    vulkan_litmus::parse("t.litmus", VULKAN).unwrap()
}

fn opencl() -> Program {
    opencl_litmus::parse("t.litmus", OPENCL).unwrap()
}

fn loc(p: &Program, name: &str) -> Term {
    match p.symbols.lookup(name) {
        Some([l]) => Term::Loc(*l),
        other => panic!("{name}: {other:?}"),
    }
}

fn eq(a: Term, b: i64) -> CondExpr {
    CondExpr::Eq(a, Term::Const(b))
}

fn not(e: CondExpr) -> CondExpr {
    CondExpr::Not(Box::new(e))
}

fn and(a: CondExpr, b: CondExpr) -> CondExpr {
    CondExpr::And(Box::new(a), Box::new(b))
}

fn or(a: CondExpr, b: CondExpr) -> CondExpr {
    CondExpr::Or(Box::new(a), Box::new(b))
}

fn reg(thread: usize, r: &str) -> Term {
    Term::Reg {
        thread,
        reg: r.into(),
    }
}

fn rejects(p: &Program, outcome: &str, column: usize, message: &str) {
    let e: FrontendError = parse_outcome(p, outcome).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("--outcome", 1, column),
        "{outcome}: {e}"
    );
    assert!(
        e.message.contains(message),
        "{outcome}: `{e}` lacks `{message}`"
    );
}

#[test]
fn symbols_of_both_dialects() {
    let v = vulkan();
    assert_eq!(v.symbols.threads[1].name, "P1");
    assert_eq!(v.symbols.threads[1].registers, ["r0"]);
    assert_eq!(v.symbols.lookup("y"), v.symbols.lookup("x"));
    let o = opencl();
    assert_eq!(o.symbols.threads[0].registers, ["r0"]);
    let both = o.symbols.lookup("y").unwrap();
    assert_eq!(both.len(), 2);
    assert_eq!(o.symbols.lookup("y@wg0").unwrap(), &both[..1]);
    assert_eq!(o.symbols.lookup("y@wg1").unwrap(), &both[1..]);
    let a = crate::frontend::alloy_test::parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nld.sc0 y\nSLOC x y\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    assert_eq!(a.symbols.threads[0].name, "0");
    assert_eq!(a.symbols.lookup("x"), a.symbols.lookup("y"));
}

#[test]
fn accepted_constructs() {
    let p = vulkan();
    let (x, z) = (loc(&p, "x"), loc(&p, "z"));
    let r0 = reg(1, "r0");
    let cases: Vec<(&str, CondExpr)> = vec![
        ("true", CondExpr::True),
        ("false", CondExpr::False),
        ("x == 1", eq(x.clone(), 1)),
        ("x = 1", eq(x.clone(), 1)),
        ("x != 1", CondExpr::Ne(x.clone(), Term::Const(1))),
        // Dat3M's assertionCompare: `>=`, `<=`, `<`, `>` too.
        ("x < 1", CondExpr::Cmp(Cmp::Lt, x.clone(), Term::Const(1))),
        ("x <= 1", CondExpr::Cmp(Cmp::Le, x.clone(), Term::Const(1))),
        ("x>1", CondExpr::Cmp(Cmp::Gt, x.clone(), Term::Const(1))),
        (
            "-1 >= P1:r0",
            CondExpr::Cmp(Cmp::Ge, Term::Const(-1), r0.clone()),
        ),
        ("~x >= z", not(CondExpr::Cmp(Cmp::Ge, x.clone(), z.clone()))),
        ("1 == x", CondExpr::Eq(Term::Const(1), x.clone())),
        ("y == -1", eq(x.clone(), -1)),
        ("x == z", CondExpr::Eq(x.clone(), z.clone())),
        ("[x] == 1", eq(x.clone(), 1)),
        ("P1:r0 == 1", eq(r0.clone(), 1)),
        ("1:r0 == 1", eq(r0.clone(), 1)),
        ("~x == 1", not(eq(x.clone(), 1))),
        ("not x == 1", not(eq(x.clone(), 1))),
        ("~(x == 1)", not(eq(x.clone(), 1))),
        ("((x == 1))", eq(x.clone(), 1)),
        (
            "x == 1 (* c *) /\\ z == 0",
            and(eq(x.clone(), 1), eq(z.clone(), 0)),
        ),
        (
            "x == 1 \\/ z == 0 /\\ true",
            or(eq(x.clone(), 1), and(eq(z.clone(), 0), CondExpr::True)),
        ),
        (
            "x == 1 /\\ z == 0 /\\ false",
            and(and(eq(x.clone(), 1), eq(z.clone(), 0)), CondExpr::False),
        ),
        (
            "x == 1 => z == 0",
            or(not(eq(x.clone(), 1)), eq(z.clone(), 0)),
        ),
        // herd: `=>` binds tighter than `/\` and associates to the right.
        (
            "true /\\ x == 1 => z == 0",
            and(CondExpr::True, or(not(eq(x.clone(), 1)), eq(z.clone(), 0))),
        ),
        (
            "x == 1 => z == 0 => false",
            or(
                not(eq(x.clone(), 1)),
                or(not(eq(z.clone(), 0)), CondExpr::False),
            ),
        ),
        (
            "~x == 1 /\\ true",
            and(not(eq(x.clone(), 1)), CondExpr::True),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_outcome(&p, text), Ok(expected), "{text}");
    }
    let o = opencl();
    let cases: Vec<(&str, CondExpr)> = vec![
        ("0:r0=1", eq(reg(0, "r0"), 1)),
        ("P0:r0==1", eq(reg(0, "r0"), 1)),
        ("!x=1", not(eq(loc(&o, "x"), 1))),
        (
            "y@wg0=1 /\\ y@wg1=2",
            and(eq(loc(&o, "y@wg0"), 1), eq(loc(&o, "y@wg1"), 2)),
        ),
        ("x=1 // comment", eq(loc(&o, "x"), 1)),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_outcome(&o, text), Ok(expected), "{text}");
    }
}

#[test]
fn rejected_constructs() {
    let nesting = format!("nesting deeper than {MAX_NESTING} levels");
    let deep = format!("{}x == 1", "(".repeat(300));
    let negations = format!("{}x == 1", "~".repeat(300));
    let implications = "x == 1 => ".repeat(300) + "true";
    let p = vulkan();
    let vulkan_cases: &[(&str, usize, &str)] = &[
        ("x =< 1", 4, "expected a register `P0:r0`, a location"),
        ("x < ", 4, "found the end of the input"),
        ("x >> 1", 4, "expected a register `P0:r0`, a location"),
        (
            "x 1",
            3,
            "expected a comparison (==, =, !=, <, <=, > or >=), found",
        ),
        ("x[1] == 1", 2, "expected a comparison"),
        ("*x == 1", 1, "expected a register `P0:r0`, a location"),
        ("!x == 1", 1, "expected a register `P0:r0`, a location"),
        ("y@wg0 == 1", 2, "expected a comparison"),
        ("fault(P0, x)", 1, "unknown location `fault`"),
        ("q == 1", 1, "unknown location `q`"),
        (
            "P5:r0 == 1",
            1,
            "names thread P5, but the test declares P0..P1",
        ),
        ("P1:r7 == 1", 4, "P1 has no register `r7`"),
        ("P0:r0 == 1", 4, "P0 has no register `r0`"),
        ("x == 1 junk", 8, "expected the end of the outcome"),
        ("(x == 1", 8, "expected `)` to close the `(` at 1:1"),
        ("[x == 1", 4, "expected `]`"),
        ("x == 1 /\\", 10, "expected a register"),
        ("", 1, "found the end of the input"),
        ("x == 99999999999999999999", 6, "out of range"),
        ("x == 1 (* open", 8, "unterminated comment"),
        (deep.as_str(), MAX_NESTING + 1, &nesting),
        (negations.as_str(), MAX_NESTING + 1, &nesting),
        (implications.as_str(), MAX_NESTING * 10 + 1, &nesting),
    ];
    for (text, column, message) in vulkan_cases {
        rejects(&p, text, *column, message);
    }
    let o = opencl();
    let opencl_cases: &[(&str, usize, &str)] = &[
        (
            "y=1",
            1,
            "`y` is local memory with one instance per workgroup (y@wg0, y@wg1)",
        ),
        ("y@wg7=1", 1, "unknown location `y@wg7`"),
        ("x<=", 4, "found the end of the input"),
        ("0:r0=0x1", 6, "`0x1` is not a decimal integer"),
    ];
    for (text, column, message) in opencl_cases {
        rejects(&o, text, *column, message);
    }
}

/// The final section, in a file of each dialect.
#[test]
fn final_sections() {
    let vulkan_with = |fin: &str| VULKAN.replace("exists (P1:r0 == 1)\n", fin);
    let p = vulkan_litmus::parse("t.litmus", &vulkan_with("not exists (x == 1)\n")).unwrap();
    assert_eq!(p.condition.unwrap().quantifier, Some(Quantifier::NotExists));
    let p = vulkan_litmus::parse("t.litmus", &vulkan_with("locations [y; z;]\n")).unwrap();
    assert_eq!(p.shown_locations.len(), 2);
    let e = vulkan_litmus::parse("t.litmus", &vulkan_with("final (x == 1)\n")).unwrap_err();
    assert_eq!((e.line, e.column), (6, 1));
    assert!(e.message.contains("`final ... with`"), "{e}");
    let opencl_with = |fin: &str| OPENCL.replace("exists (0:r0=1)\n", fin);
    let o =
        opencl_litmus::parse("t.litmus", &opencl_with("locations [y; x]\nforall (x=0)\n")).unwrap();
    assert_eq!(o.shown_locations.len(), 3);
    assert_eq!(o.condition.unwrap().text, "forall ( x = 0 )");
    let e = opencl_litmus::parse("t.litmus", &opencl_with("~forall (x=0)\n")).unwrap_err();
    assert_eq!((e.line, e.column), (10, 2));
    let e = opencl_litmus::parse("t.litmus", &opencl_with("locations [0:r0]\n")).unwrap_err();
    assert_eq!((e.line, e.column), (10, 12));
    assert!(e.message.contains("registers are always shown"), "{e}");
}

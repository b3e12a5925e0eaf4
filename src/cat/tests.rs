//! Tests of the cat parser and interpreter: syntax and precedence, every
//! operator, checks, `let rec`, functions, includes, error positions,
//! staging, and property tests (no panics on arbitrary input; evaluation of
//! random expressions agrees with direct relation algebra).

use super::parser::{MAX_DEPTH, parse_expr};
use super::*;
use crate::relation::{EventSet, Relation};
use proptest::prelude::*;
use std::collections::HashMap;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn no_include(_: &str) -> Option<(String, String)> {
    None
}

fn parse(src: &str) -> Result<Model, CatError> {
    Model::parse("t.cat", src, &no_include)
}

fn show_expr(src: &str) -> String {
    match parse_expr("e.cat", src) {
        Ok(e) => e.to_string(),
        Err(e) => panic!("cannot parse {src:?}: {e}"),
    }
}

fn rel(n: usize, pairs: &[(usize, usize)]) -> Relation {
    Relation::from_pairs(n, pairs.iter().copied())
}

fn set(n: usize, elems: &[usize]) -> EventSet {
    EventSet::from_iter(n, elems.iter().copied())
}

/// A 4-event environment: W = {0, 1}, R = {2, 3}, po = 0->1->2->3 (transitive),
/// r = 0->1->2, s = 1->3, 2->0.
fn env4() -> Env {
    let mut e = Env::new(4);
    e.set("W", set(4, &[0, 1]));
    e.set("R", set(4, &[2, 3]));
    e.set("A", set(4, &[0, 2]));
    e.rel(
        "po",
        rel(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]),
    );
    e.rel("r", rel(4, &[(0, 1), (1, 2)]));
    e.rel("s", rel(4, &[(1, 3), (2, 0)]));
    e
}

/// Runs `src` fully statically on `env` and returns the evaluation.
fn run(src: &str, env: &Env) -> Evaluation {
    let m = parse(src).unwrap_or_else(|e| panic!("parse error: {e}"));
    let p = m
        .prepare(env, &[])
        .unwrap_or_else(|e| panic!("prepare error: {e}"));
    p.evaluate(&Env::new(env.universe()))
        .unwrap_or_else(|e| panic!("evaluate error: {e}"))
}

/// Evaluates the expression `e` on `env4()`.
fn val(e: &str) -> Value {
    let ev = run(&format!("let it = {e}"), &env4());
    ev.lookup("it").cloned().expect("bound")
}

fn val_rel(e: &str) -> Relation {
    match val(e) {
        Value::Rel(r) => r,
        other => panic!("{e}: expected a relation, got {other:?}"),
    }
}

fn val_set(e: &str) -> EventSet {
    match val(e) {
        Value::Set(s) => s,
        other => panic!("{e}: expected a set, got {other:?}"),
    }
}

/// The error of running `src` (parse, prepare or evaluate) on `env4()`.
fn err(src: &str) -> CatError {
    let r = parse(src).and_then(|m| m.prepare(&env4(), &[])?.evaluate(&Env::new(4)));
    match r {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(e) => e,
    }
}

fn assert_err_at(src: &str, line: usize, col: usize, kind: CatErrorKind, needle: &str) {
    let e = err(src);
    assert_eq!(
        (e.line, e.col, e.kind),
        (line, col, kind),
        "wrong error position/kind for {src:?}: {e}"
    );
    assert!(
        e.message.contains(needle),
        "message of {e} lacks {needle:?}"
    );
    assert_eq!(e.file, "t.cat");
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

#[test]
fn precedence() {
    assert_eq!(show_expr("a | b ; c"), "(a | (b ; c))");
    assert_eq!(show_expr("a ; b | c"), "((a ; b) | c)");
    assert_eq!(show_expr("a ; b \\ c"), "(a ; (b \\ c))");
    assert_eq!(show_expr("a \\ b & c"), "(a \\ (b & c))");
    assert_eq!(show_expr("a & b * c"), "(a & (b * c))");
    assert_eq!(show_expr("~a * b"), "((~a) * b)");
    assert_eq!(show_expr("~a+"), "(~(a+))");
    assert_eq!(show_expr("~~a"), "(~(~a))");
    assert_eq!(
        show_expr("a | b ; c \\ d & e * f"),
        "(a | (b ; (c \\ (d & (e * f)))))"
    );
    assert_eq!(show_expr("(a | b) ; c"), "((a | b) ; c)");
    assert_eq!(show_expr("[W] ; po ; [R]"), "([W] ; po ; [R])");
}

#[test]
fn left_associativity() {
    assert_eq!(show_expr("a | b | c"), "(a | b | c)");
    assert_eq!(show_expr("a \\ b \\ c"), "(a \\ b \\ c)");
    assert_eq!(show_expr("a ; b ; c"), "(a ; b ; c)");
    // `a \ b \ c` means `(a \ b) \ c`: check by evaluation.
    assert_eq!(val_rel("po \\ r \\ s"), val_rel("(po \\ r) \\ s"));
    assert_ne!(val_rel("po \\ (po \\ r)"), val_rel("po \\ po \\ r"));
}

#[test]
fn star_disambiguation() {
    assert_eq!(show_expr("W * R"), "(W * R)");
    assert_eq!(show_expr("r* ; s"), "((r*) ; s)");
    assert_eq!(show_expr("r*"), "(r*)");
    assert_eq!(show_expr("r* | s"), "((r*) | s)");
    assert_eq!(show_expr("(r)*"), "(r*)");
    assert_eq!(show_expr("W * (R | A)"), "(W * (R | A))");
    assert_eq!(show_expr("_ * W"), "(_ * W)");
    assert_eq!(show_expr("W * _"), "(W * _)");
    assert_eq!(show_expr("W * ~R"), "(W * (~R))");
    assert_eq!(show_expr("W * [R]"), "(W * [R])");
    assert_eq!(show_expr("W * {}"), "(W * {})");
    assert_eq!(show_expr("W * 0"), "(W * 0)");
    assert_eq!(show_expr("r**"), "((r*)*)");
    assert_eq!(show_expr("r* * W"), "((r*) * W)");
    assert_eq!(show_expr("(r*)"), "(r*)");
    // A postfix star before the next statement.
    let m = parse("let a = r*\nlet b = W * R\nacyclic a*").unwrap();
    assert_eq!(m.free_names(), vec!["r", "W", "R"]);
}

#[test]
fn postfix_operators() {
    assert_eq!(show_expr("r+"), "(r+)");
    assert_eq!(show_expr("r?"), "(r?)");
    assert_eq!(show_expr("r^-1"), "(r^-1)");
    assert_eq!(show_expr("r^+"), "(r+)");
    assert_eq!(show_expr("r^*"), "(r*)");
    assert_eq!(show_expr("r^-1 ; s"), "((r^-1) ; s)");
    assert_eq!(show_expr("r+?^-1"), "(((r+)?)^-1)");
    assert_eq!(show_expr("[W]+"), "([W]+)");
}

#[test]
fn atoms_and_functions() {
    assert_eq!(show_expr("0"), "0");
    assert_eq!(show_expr("{}"), "{}");
    assert_eq!(show_expr("_"), "_");
    assert_eq!(show_expr("id"), "id");
    assert_eq!(show_expr("f(a, b | c)"), "f(a, (b | c))");
    assert_eq!(show_expr("f()"), "f()");
    assert_eq!(show_expr("f(a)(b)"), "f(a)(b)");
    assert_eq!(show_expr("domain(r)+"), "(domain(r)+)");
    assert_eq!(show_expr("fun x -> x | a"), "(fun (x) -> (x | a))");
    assert_eq!(show_expr("fun (x, _) -> x ; y"), "(fun (x, _) -> (x ; y))");
    assert_eq!(
        show_expr("let x = a and y = b in x ; y"),
        "(let x = a and y = b in (x ; y))"
    );
    assert_eq!(show_expr("a.b_c1"), "a.b_c1");
}

#[test]
fn comments() {
    assert_eq!(
        show_expr("(* c *) a (* (* nested *) still *) | b"),
        "(a | b)"
    );
    assert_eq!(show_expr("a // comment | c\n | b"), "(a | b)");
    assert_eq!(show_expr("a (**) | b (* a * ) *)"), "(a | b)");
    let e = parse("let x = a\n  (* open (* nested *) \n").unwrap_err();
    assert_eq!((e.line, e.col, e.kind), (2, 3, CatErrorKind::Syntax));
    assert!(e.message.contains("unterminated comment"));
}

#[test]
fn statements_and_title() {
    let src = r#""My model"
(* header *)
let a = r
let f(x, y) = x | y
let g(x) = x
let rec p = a | (p ; a) and q = p
let u = a and v = s
show a, f as shown
unshow a
show p
acyclic po as sc-per-loc
irreflexive r
empty 0 as nothing_2
~empty r as some-thing
flag ~empty r as data-race
flag acyclic r
"#;
    let m = parse(src).unwrap();
    assert_eq!(m.title(), Some("My model"));
    assert_eq!(
        m.check_names(),
        vec![
            "sc-per-loc",
            "irreflexive-2",
            "nothing_2",
            "some-thing",
            "data-race",
            "acyclic-6"
        ]
    );
    assert_eq!(m.free_names(), vec!["r", "s", "po"]);
    assert_eq!(parse("let a = r").unwrap().title(), None);
    // herd ignores an `in` after a top-level let.
    assert!(parse("let a = r in\nacyclic a").is_ok());
}

#[test]
fn check_names_need_adjacent_dashes() {
    let m = parse("acyclic r as a-b-1\nempty r as x").unwrap();
    assert_eq!(m.check_names(), vec!["a-b-1", "x"]);
    // a `-` separated by a space is not part of the name
    let e = parse("acyclic r as a - b").unwrap_err();
    assert_eq!((e.line, e.col), (1, 16));
    let e = parse("acyclic r as").unwrap_err();
    assert!(e.message.contains("a name after `as`"), "{e}");
}

// ---------------------------------------------------------------------------
// Evaluation of operators
// ---------------------------------------------------------------------------

#[test]
fn set_operators() {
    let n = 4;
    assert_eq!(val_set("W | A"), set(n, &[0, 1, 2]));
    assert_eq!(val_set("W & A"), set(n, &[0]));
    assert_eq!(val_set("W \\ A"), set(n, &[1]));
    assert_eq!(val_set("~W"), set(n, &[2, 3]));
    assert_eq!(val_set("_"), set(n, &[0, 1, 2, 3]));
    assert_eq!(val_set("{}"), set(n, &[]));
    assert_eq!(val_set("emptyset"), set(n, &[]));
    assert_eq!(val_set("domain(r)"), set(n, &[0, 1]));
    assert_eq!(val_set("range(r)"), set(n, &[1, 2]));
    assert_eq!(val_set("~{}"), set(n, &[0, 1, 2, 3]));
}

#[test]
fn relation_operators() {
    let n = 4;
    let r = rel(n, &[(0, 1), (1, 2)]);
    let s = rel(n, &[(1, 3), (2, 0)]);
    assert_eq!(val_rel("r | s"), r.union(&s));
    assert_eq!(val_rel("po & r"), rel(n, &[(0, 1), (1, 2)]));
    assert_eq!(
        val_rel("po \\ r"),
        rel(n, &[(0, 2), (0, 3), (1, 3), (2, 3)])
    );
    assert_eq!(val_rel("r ; s"), rel(n, &[(0, 3), (1, 0)]));
    assert_eq!(val_rel("~r"), r.complement());
    assert_eq!(val_rel("r+"), rel(n, &[(0, 1), (1, 2), (0, 2)]));
    assert_eq!(val_rel("r^+"), val_rel("r+"));
    assert_eq!(val_rel("r*"), r.reflexive_transitive_closure());
    assert_eq!(val_rel("r^*"), val_rel("r*"));
    assert_eq!(val_rel("r?"), r.reflexive_closure());
    assert_eq!(val_rel("r^-1"), rel(n, &[(1, 0), (2, 1)]));
    assert_eq!(val_rel("[W]"), rel(n, &[(0, 0), (1, 1)]));
    assert_eq!(val_rel("W * R"), rel(n, &[(0, 2), (0, 3), (1, 2), (1, 3)]));
    assert_eq!(
        val_rel("[W] ; po ; [R]"),
        rel(n, &[(0, 2), (0, 3), (1, 2), (1, 3)])
    );
    assert_eq!(val_rel("id"), Relation::identity(n));
    assert_eq!(val_rel("0"), Relation::empty(n));
    assert_eq!(val_rel("~0"), Relation::full(n));
    assert_eq!(val_rel("(r | s)+ & id"), rel(n, &[(0, 0), (1, 1), (2, 2)]));
}

#[test]
fn polymorphic_empty() {
    let n = 4;
    assert_eq!(val_set("0 | W"), set(n, &[0, 1]));
    assert_eq!(val_set("W | 0"), set(n, &[0, 1]));
    assert_eq!(val_rel("{} | r"), rel(n, &[(0, 1), (1, 2)]));
    assert_eq!(val_set("W & 0"), set(n, &[]));
    assert_eq!(val_set("W \\ {}"), set(n, &[0, 1]));
    assert_eq!(val_rel("0 ; r"), Relation::empty(n));
    assert_eq!(val_rel("0*"), Relation::identity(n));
    assert_eq!(val_rel("[{}]"), Relation::empty(n));
    assert_eq!(val_set("domain(0)"), set(n, &[]));
    assert_eq!(val_rel("{} * W"), Relation::empty(n));
    // A `let`-bound `0` stays polymorphic.
    let ev = run("let z = 0\nlet a = z | W\nlet b = z | r", &env4());
    assert_eq!(ev.lookup("z"), Some(&Value::Rel(Relation::empty(n))));
    assert_eq!(ev.lookup("a"), Some(&Value::Set(set(n, &[0, 1]))));
    assert_eq!(ev.lookup("b"), Some(&Value::Rel(rel(n, &[(0, 1), (1, 2)]))));
}

#[test]
fn checks_negation_and_flags() {
    let src = "acyclic po as a1
acyclic po | po^-1 as a2
irreflexive r as i1
irreflexive id as i2
empty r as e1
empty {} as e2
empty W \\ W as e3
~empty r as n1
~acyclic po as n2
flag ~empty r as f1
flag empty r as f2
";
    let ev = run(src, &env4());
    let got: Vec<(&str, bool, bool, bool)> = ev
        .checks
        .iter()
        .map(|c| (c.name.as_str(), c.passed, c.negated, c.flag))
        .collect();
    assert_eq!(
        got,
        vec![
            ("a1", true, false, false),
            ("a2", false, false, false),
            ("i1", true, false, false),
            ("i2", false, false, false),
            ("e1", false, false, false),
            ("e2", true, false, false),
            ("e3", true, false, false),
            ("n1", true, true, false),
            ("n2", false, true, false),
            ("f1", true, true, true),
            ("f2", false, false, true),
        ]
    );
    assert_eq!(ev.checks[0].kind, CheckKind::Acyclic);
    assert_eq!(ev.checks[2].kind, CheckKind::Irreflexive);
    assert_eq!(ev.checks[4].kind, CheckKind::Empty);
    assert_eq!(ev.checks[3].line, 4);
    assert_eq!(ev.checks[3].file, "t.cat");
    assert!(!ev.consistent());
    assert_eq!(
        ev.flags().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        vec!["f1"]
    );

    // Flags never make an execution inconsistent.
    let ev = run(
        "acyclic po\nflag ~empty r as race\nflag acyclic r | r^-1",
        &env4(),
    );
    assert!(ev.consistent());
    assert_eq!(ev.flags().count(), 1);
}

#[test]
fn let_rec_fixpoint() {
    let ev = run(
        "let rec tc = r | (tc ; r)
let direct = r+
let rec even = id | (odd ; r) and odd = even ; r
let rec reach = A | range([reach] ; (r | s))
let rec z = z | 0",
        &env4(),
    );
    assert_eq!(ev.lookup("tc"), ev.lookup("direct"));
    let r = rel(4, &[(0, 1), (1, 2)]);
    let even = Relation::identity(4).union(&r.compose(&r));
    assert_eq!(ev.lookup("even"), Some(&Value::Rel(even)));
    assert_eq!(ev.lookup("odd"), Some(&Value::Rel(r.clone())));
    // A = {0, 2}; r|s reaches 1, 2, 3, 0 from there.
    assert_eq!(ev.lookup("reach"), Some(&Value::Set(set(4, &[0, 1, 2, 3]))));
    assert_eq!(ev.lookup("z"), Some(&Value::Rel(Relation::empty(4))));

    // A larger transitive closure over a multi-word universe.
    let n = 70;
    let mut e = Env::new(n);
    e.rel("r", Relation::from_pairs(n, (0..n - 1).map(|i| (i, i + 1))));
    let ev = run("let rec tc = r | (tc ; tc)\nlet d = r+", &e);
    assert_eq!(ev.lookup("tc"), ev.lookup("d"));
}

#[test]
fn let_rec_non_monotone_is_an_error() {
    let e = err("let x = r\nlet rec y = ~y");
    assert_eq!((e.line, e.col, e.kind), (2, 1, CatErrorKind::Eval));
    assert!(e.message.contains("fixpoint"), "{e}");
}

#[test]
fn functions_and_closures() {
    let n = 4;
    let ev = run(
        "let f(x) = x | s
let a = f(r)
let fencerel(B) = (po & (_ * B)) ; po
let b = fencerel(W)
let both(x, y) = x ; y
let c = both(r, s)
let mk(x) = fun y -> x ; y
let d = mk(r)(s)
let twice(g, x) = g(g(x))
let e = twice(fun z -> z ; r, r)
let k = fun () -> W
let kk = k()
let ign(_, y) = y
let i = ign(r, s)
let dom = domain
let ds = dom(r)
",
        &env4(),
    );
    let get = |x: &str| ev.lookup(x).cloned().unwrap();
    assert_eq!(
        get("a"),
        Value::Rel(rel(n, &[(0, 1), (1, 2), (1, 3), (2, 0)]))
    );
    // po ; [W] ; po restricted: (0,1) in po&(_*W), then po from 1: 2, 3.
    assert_eq!(get("b"), Value::Rel(rel(n, &[(0, 2), (0, 3)])));
    assert_eq!(get("c"), Value::Rel(rel(n, &[(0, 3), (1, 0)])));
    assert_eq!(get("d"), get("c"));
    let r = rel(n, &[(0, 1), (1, 2)]);
    assert_eq!(get("e"), Value::Rel(r.compose(&r).compose(&r)));
    assert_eq!(get("kk"), Value::Set(set(n, &[0, 1])));
    assert_eq!(get("i"), Value::Rel(rel(n, &[(1, 3), (2, 0)])));
    assert_eq!(get("ds"), Value::Set(set(n, &[0, 1])));
    match get("f") {
        Value::Func(f) => {
            assert_eq!(f.name(), "f");
            assert_eq!(f.arity(), 1);
        }
        other => panic!("expected a function, got {other:?}"),
    }
}

#[test]
fn lexical_scoping_and_shadowing() {
    let n = 4;
    let ev = run(
        "let a = r
let f(x) = x | a
let a = s
let g = f(0)
let h(a) = a ; a
let hh = h(r)
let x = let a = W in a | R
let y = a
let cap(x) = let x2 = x ; x in fun z -> x2 | z
let c = cap(r)(s)
",
        &env4(),
    );
    // f saw the first `a`.
    assert_eq!(ev.lookup("g"), Some(&Value::Rel(rel(n, &[(0, 1), (1, 2)]))));
    // the last `a` wins at the end
    assert_eq!(ev.lookup("a"), Some(&Value::Rel(rel(n, &[(1, 3), (2, 0)]))));
    assert_eq!(ev.lookup("y"), ev.lookup("a"));
    // parameters shadow top-level bindings
    assert_eq!(ev.lookup("hh"), Some(&Value::Rel(rel(n, &[(0, 2)]))));
    assert_eq!(ev.lookup("x"), Some(&Value::Set(set(n, &[0, 1, 2, 3]))));
    assert_eq!(
        ev.lookup("c"),
        Some(&Value::Rel(rel(n, &[(0, 2), (1, 3), (2, 0)])))
    );
}

#[test]
fn recursive_functions() {
    // A recursive function over a decreasing argument terminates.
    let ev = run(
        "let rec f(x) = x
let a = f(r)
let rec walk(x) = x",
        &env4(),
    );
    assert_eq!(ev.lookup("a"), Some(&Value::Rel(rel(4, &[(0, 1), (1, 2)]))));
    // Infinite recursion is an error, not a stack overflow.
    let e = err("let rec loop(x) = loop(x ; x)\nlet a = loop(r)");
    assert_eq!(e.kind, CatErrorKind::Eval);
    assert!(e.message.contains("recursion too deep"), "{e}");
}

#[test]
fn builtins_can_be_shadowed() {
    let ev = run(
        "let id = r\nlet a = id\nlet domain(x) = x\nlet b = domain(s)",
        &env4(),
    );
    assert_eq!(ev.lookup("a"), Some(&Value::Rel(rel(4, &[(0, 1), (1, 2)]))));
    assert_eq!(ev.lookup("b"), Some(&Value::Rel(rel(4, &[(1, 3), (2, 0)]))));
    assert_eq!(
        parse("let a = id | domain(r) | emptyset")
            .unwrap()
            .free_names(),
        vec!["r"]
    );
}

// ---------------------------------------------------------------------------
// Includes
// ---------------------------------------------------------------------------

fn files(list: &[(&str, &str)]) -> HashMap<String, String> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn include_resolution() {
    let fs = files(&[
        (
            "stdlib.cat",
            "\"Standard library\"\nlet fr = r^-1 ; s\ninclude \"deep.cat\"",
        ),
        (
            "deep.cat",
            "let deep = fr | r\n\nacyclic deep as deep-check",
        ),
    ]);
    let resolve = |name: &str| fs.get(name).map(|s| (format!("lib/{name}"), s.clone()));
    let m = Model::parse(
        "main.cat",
        "\"Main\"\ninclude \"stdlib.cat\"\nlet x = deep ; fr\nempty x as main-check",
        &resolve,
    )
    .unwrap();
    assert_eq!(m.title(), Some("Main"));
    assert_eq!(m.free_names(), vec!["r", "s"]);
    let ev = m
        .prepare(&env4(), &[])
        .unwrap()
        .evaluate(&Env::new(4))
        .unwrap();
    assert!(ev.lookup("fr").is_some());
    assert_eq!(ev.checks[0].name, "deep-check");
    assert_eq!(ev.checks[0].file, "lib/deep.cat");
    assert_eq!(ev.checks[0].line, 3);
    assert_eq!(ev.checks[1].file, "main.cat");
    assert_eq!(ev.checks[1].line, 4);
}

#[test]
fn include_errors() {
    let fs = files(&[
        ("a.cat", "let a = r\ninclude \"b.cat\""),
        ("b.cat", "\n  include \"a.cat\""),
        ("bad.cat", "let x = (r"),
    ]);
    let resolve = |name: &str| fs.get(name).map(|s| (name.to_string(), s.clone()));
    let e = Model::parse("main.cat", "let z = r\ninclude \"a.cat\"", &resolve).unwrap_err();
    assert_eq!(e.kind, CatErrorKind::Include);
    assert_eq!((e.file.as_str(), e.line, e.col), ("b.cat", 2, 3));
    assert!(e.message.contains("a.cat -> b.cat -> a.cat"), "{e}");

    let e = Model::parse("main.cat", "\n include \"missing.cat\"", &resolve).unwrap_err();
    assert_eq!(e.kind, CatErrorKind::Include);
    assert_eq!((e.file.as_str(), e.line, e.col), ("main.cat", 2, 2));
    assert!(e.message.contains("missing.cat"));

    // Errors inside an included file carry that file's name.
    let e = Model::parse("main.cat", "include \"bad.cat\"", &resolve).unwrap_err();
    assert_eq!((e.file.as_str(), e.line, e.col), ("bad.cat", 1, 11));

    // A file including itself.
    let selfish = |_: &str| Some(("main.cat".to_string(), "include \"x\"".to_string()));
    let e = Model::parse("main.cat", "include \"x\"", &selfish).unwrap_err();
    assert_eq!(e.kind, CatErrorKind::Include);
    // Unbounded distinct includes stop at a depth limit.
    let counter = std::cell::Cell::new(0);
    let endless = |_: &str| {
        counter.set(counter.get() + 1);
        Some((
            format!("f{}.cat", counter.get()),
            "include \"next\"".to_string(),
        ))
    };
    let e = Model::parse("main.cat", "include \"next\"", &endless).unwrap_err();
    assert!(e.message.contains("nested too deeply"), "{e}");
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[test]
fn syntax_error_positions() {
    use CatErrorKind::Syntax;
    assert_err_at(
        "let x = r |",
        1,
        12,
        Syntax,
        "expected an expression, found end of file",
    );
    assert_err_at("let x = r\nlet y = (r ; s", 2, 15, Syntax, "expected `)`");
    assert_err_at("let x + r", 1, 7, Syntax, "expected `=`, found `+`");
    assert_err_at("let x = r\n  foo", 2, 3, Syntax, "expected a statement");
    assert_err_at("let = r", 1, 5, Syntax, "expected a name to bind");
    assert_err_at("acyclic", 1, 8, Syntax, "expected an expression");
    assert_err_at(
        "~foo r",
        1,
        2,
        Syntax,
        "expected `acyclic`, `irreflexive` or `empty`",
    );
    assert_err_at("let x = r ^ 2", 1, 13, Syntax, "after `^`");
    assert_err_at("let x = r $ s", 1, 11, Syntax, "unexpected character `$`");
    assert_err_at("let x = 5", 1, 9, Syntax, "unexpected number `5`");
    assert_err_at("\"title\"\n\"again\"", 2, 1, Syntax, "expected a statement");
    assert_err_at("let x = \"abc", 1, 9, Syntax, "unterminated string");
    assert_err_at("include foo", 1, 9, Syntax, "quoted file name");
    assert_err_at("let f(x = r", 1, 9, Syntax, "expected `,` or `)`");
    assert_err_at("let x = é", 1, 9, Syntax, "unexpected character `é`");
    // columns count characters, not bytes
    assert_err_at(
        "(* é *) let x = r |",
        1,
        20,
        Syntax,
        "expected an expression",
    );
}

#[test]
fn unsupported_constructs() {
    use CatErrorKind::Unsupported;
    for (src, line, col, what) in [
        ("let x = match r with _ -> r end", 1, 9, "match"),
        ("let x = if r then s else r", 1, 9, "if"),
        ("let x = try r with s", 1, 9, "try"),
        ("enum Scopes = 'wg || 'dv", 1, 1, "enum"),
        ("procedure p(x) = acyclic x end", 1, 1, "procedure"),
        ("call p(r)", 1, 1, "call"),
        ("forall x in r do empty x end", 1, 1, "forall"),
        ("with co from orders(r)", 1, 1, "with"),
        ("let x = (r, s)", 1, 9, "tuple"),
        ("let x = ()", 1, 9, "()"),
        ("let x = {r}", 1, 9, "explicit set"),
        ("let (a, b) = r", 1, 5, "tuple pattern"),
        ("let x = let rec y = r in y", 1, 9, "let rec ... in"),
        ("let x = r ++ s", 1, 11, "++"),
        ("let x = 'tag", 1, 9, "'tag"),
        ("requires acyclic r", 1, 1, "requires"),
        ("let rec x = r when empty r", 1, 15, "when"),
        (
            "let f x = x",
            1,
            7,
            "function definition without parentheses",
        ),
        ("instructions R[r]", 1, 1, "instructions"),
        ("acyclic begin r end", 1, 9, "begin"),
    ] {
        let e = err(src);
        assert_eq!(
            (e.line, e.col, e.kind),
            (line, col, Unsupported),
            "for {src:?}: {e}"
        );
        assert!(
            e.message
                .contains(&format!("unsupported cat construct `{what}")),
            "for {src:?}: {e}"
        );
    }
}

#[test]
fn unknown_identifiers() {
    assert_err_at(
        "let x = r\nlet y = x | nope",
        2,
        13,
        CatErrorKind::Unbound,
        "`nope`",
    );
    assert_err_at(
        "acyclic  missing",
        1,
        10,
        CatErrorKind::Unbound,
        "unknown identifier `missing`",
    );
    // Inside a function body: reported when the body runs, at the use.
    assert_err_at(
        "let f(x) = x | ghost\nlet y = f(r)",
        1,
        16,
        CatErrorKind::Unbound,
        "`ghost`",
    );
    // An uncalled function body is never evaluated.
    assert!(
        parse("let f(x) = ghost")
            .unwrap()
            .prepare(&env4(), &[])
            .is_ok()
    );
    // A name used before its definition is a free name.
    let m = parse("let a = b\nlet b = r").unwrap();
    assert_eq!(m.free_names(), vec!["b", "r"]);
    assert_eq!(
        m.prepare(&env4(), &[]).unwrap_err().kind,
        CatErrorKind::Unbound
    );
}

#[test]
fn type_errors() {
    use CatErrorKind::Type;
    assert_err_at(
        "let x = W | r",
        1,
        11,
        Type,
        "`|` needs two sets or two relations, found a set and a relation",
    );
    assert_err_at("let x = r & W", 1, 11, Type, "`&`");
    assert_err_at("let x = r\n\\ W", 2, 1, Type, "`\\`");
    assert_err_at(
        "let x = r ; W",
        1,
        11,
        Type,
        "`;` needs relations, found a set on the right",
    );
    assert_err_at("let x = W ; r", 1, 11, Type, "found a set on the left");
    assert_err_at(
        "let x = W * r",
        1,
        11,
        Type,
        "needs sets, found a relation on the right",
    );
    assert_err_at(
        "let x = W+",
        1,
        10,
        Type,
        "`+` needs a relation, found a set",
    );
    assert_err_at("let x = W^-1", 1, 10, Type, "`^-1` needs a relation");
    assert_err_at("let x = W*", 1, 10, Type, "`*` needs a relation");
    assert_err_at("let x = W?", 1, 10, Type, "`?` needs a relation");
    assert_err_at(
        "let x = [r]",
        1,
        9,
        Type,
        "`[...]` needs a set, found a relation",
    );
    assert_err_at(
        "let x = domain(W)",
        1,
        9,
        Type,
        "`domain` needs a relation, found a set",
    );
    assert_err_at(
        "let x = range(r, s)",
        1,
        9,
        Type,
        "`range` expects 1 argument",
    );
    assert_err_at(
        "let x = r(s)",
        1,
        9,
        Type,
        "`r` is a relation, not a function",
    );
    assert_err_at(
        "let f(x) = x\nlet y = f(r, s)",
        2,
        9,
        Type,
        "`f` expects 1 argument(s), got 2",
    );
    assert_err_at(
        "let f(x) = x\nlet y = f | r",
        2,
        11,
        Type,
        "found a function and a relation",
    );
    assert_err_at(
        "let f(x) = x\nlet y = ~f",
        2,
        9,
        Type,
        "`~` needs a set or a relation",
    );
    assert_err_at(
        "acyclic W",
        1,
        1,
        Type,
        "`acyclic` needs a relation, found a set",
    );
    assert_err_at(
        "\n  irreflexive W",
        2,
        3,
        Type,
        "`irreflexive` needs a relation",
    );
    assert_err_at(
        "let f(x) = x\nempty f",
        2,
        1,
        Type,
        "`empty` needs a set or a relation",
    );
}

#[test]
fn error_display() {
    let e = err("let x = r\nlet y = x ;; s");
    assert_eq!(
        e.to_string(),
        "t.cat:2:12: expected an expression, found `;`"
    );
}

#[test]
fn universe_mismatch_is_an_error() {
    let mut base = Env::new(4);
    base.rel("r", Relation::empty(5));
    let m = parse("let a = r").unwrap();
    let e = m.prepare(&base, &[]).unwrap_err();
    assert_eq!((e.line, e.col, e.kind), (1, 9, CatErrorKind::Eval));
    assert!(e.message.contains("over 5 events"), "{e}");
    // Same for dynamic values.
    let m = parse("let a = rf").unwrap();
    let p = m.prepare(&Env::new(4), &["rf"]).unwrap();
    let mut d = Env::new(3);
    d.rel("rf", Relation::empty(3));
    assert_eq!(p.evaluate(&d).unwrap_err().kind, CatErrorKind::Eval);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for src in [
        format!("let x = {}r{}", "(".repeat(5000), ")".repeat(5000)),
        format!("let x = {}r", "~".repeat(5000)),
        format!("let x = r{}", "?".repeat(5000)),
        format!("let x = {}r{}", "[".repeat(5000), "]".repeat(5000)),
        format!("let x = {}r{}", "f(".repeat(5000), ")".repeat(5000)),
        format!("let x = {}r", "fun x -> ".repeat(5000)),
    ] {
        let e = parse(&src).unwrap_err();
        assert!(e.message.contains("nested too deeply"), "{e}");
    }
    // Long flat chains are fine.
    let chain = vec!["r"; 5000].join(" | ");
    assert_eq!(val_rel(&chain), rel(4, &[(0, 1), (1, 2)]));
    // The deepest accepted nesting evaluates without trouble.
    let d = MAX_DEPTH - 2;
    let src = format!("{}r{}", "(r | ".repeat(d), ")".repeat(d));
    assert_eq!(val_rel(&src), rel(4, &[(0, 1), (1, 2)]));
}

// ---------------------------------------------------------------------------
// Staging
// ---------------------------------------------------------------------------

const STAGED: &str = "\"staged\"
let ppo = po & (W * R)
let f(x) = x | ppo
let com = rf | co
let hb = f(com)
let g(x) = x ; rf
let static2 = f(0)
let dyn2 = g(po)
acyclic po as static-check
acyclic hb as dynamic-check
flag ~empty rf as has-rf
";

fn dyn_env(rf: &[(usize, usize)], co: &[(usize, usize)]) -> Env {
    let mut d = Env::new(4);
    d.rel("rf", rel(4, rf));
    d.rel("co", rel(4, co));
    d
}

#[test]
fn staging_splits_static_and_dynamic() {
    let m = parse(STAGED).unwrap();
    assert_eq!(m.free_names(), vec!["po", "W", "R", "rf", "co"]);
    // `rf` and `co` are absent from the base environment: fine, they are dynamic.
    let p = m.prepare(&env4(), &["rf", "co"]).unwrap();
    assert_eq!(p.universe(), 4);
    assert_eq!(p.is_static("ppo"), Some(true));
    assert_eq!(p.is_static("f"), Some(true));
    assert_eq!(p.is_static("static2"), Some(true));
    assert_eq!(p.is_static("com"), Some(false));
    assert_eq!(p.is_static("hb"), Some(false));
    assert_eq!(p.is_static("g"), Some(false));
    assert_eq!(p.is_static("dyn2"), Some(false));
    assert_eq!(p.is_static("nope"), None);
    // com, hb, g, dyn2 and two checks.
    assert_eq!(p.dynamic_statements(), 6);

    let ev = p.evaluate(&dyn_env(&[(1, 2)], &[])).unwrap();
    assert!(ev.consistent());
    assert_eq!(ev.checks.len(), 3);
    assert!(ev.checks.iter().all(|c| c.passed));
    assert_eq!(
        ev.lookup("ppo"),
        Some(&Value::Rel(rel(4, &[(0, 2), (0, 3), (1, 2), (1, 3)])))
    );
    assert_eq!(
        ev.lookup("hb"),
        Some(&Value::Rel(rel(4, &[(0, 2), (0, 3), (1, 2), (1, 3)])))
    );
    assert_eq!(ev.lookup("dyn2"), Some(&Value::Rel(rel(4, &[(0, 2)]))));
    assert_eq!(ev.lookup("W"), Some(&Value::Set(set(4, &[0, 1]))));
    assert_eq!(ev.lookup("rf"), None);

    // Another execution of the same prepared model: a cycle through rf.
    let ev = p.evaluate(&dyn_env(&[(3, 0)], &[])).unwrap();
    assert!(!ev.consistent());
    assert_eq!(ev.checks[1].name, "dynamic-check");
    assert!(!ev.checks[1].passed);
    assert!(ev.checks[0].passed);
    // Flag with an empty rf is not raised.
    let ev = p.evaluate(&dyn_env(&[], &[(0, 1)])).unwrap();
    assert!(ev.consistent());
    assert_eq!(ev.flags().count(), 0);
}

#[test]
fn static_statements_are_evaluated_once() {
    // A static check's result comes from `prepare`: values supplied to
    // `evaluate` under static names are ignored.
    let m = parse("acyclic po as static\nacyclic rf as dynamic").unwrap();
    let p = m.prepare(&env4(), &["rf"]).unwrap();
    assert_eq!(p.dynamic_statements(), 1);
    let mut d = Env::new(4);
    d.rel("rf", Relation::empty(4));
    d.rel("po", Relation::full(4));
    let ev = p.evaluate(&d).unwrap();
    assert!(ev.consistent());
    // A static error surfaces once, in prepare; an error in a dynamic
    // statement surfaces in evaluate.
    let m = parse("let bad = W ; W\nlet d = rf").unwrap();
    assert_eq!(
        m.prepare(&env4(), &["rf"]).unwrap_err().kind,
        CatErrorKind::Type
    );
    let m = parse("let ok = po\nlet bad = rf ; W").unwrap();
    let p = m.prepare(&env4(), &["rf"]).unwrap();
    assert_eq!(p.evaluate(&d).unwrap_err().kind, CatErrorKind::Type);
}

#[test]
fn missing_dynamic_name_at_evaluate() {
    let m = parse("let x = po\nlet y = x | rf").unwrap();
    let p = m.prepare(&env4(), &["rf"]).unwrap();
    let e = p.evaluate(&Env::new(4)).unwrap_err();
    assert_eq!((e.line, e.col, e.kind), (2, 13, CatErrorKind::Unbound));
    assert!(
        e.message.contains("`rf`") && e.message.contains("dynamic"),
        "{e}"
    );
}

#[test]
fn dynamic_names_override_base() {
    // A name listed as dynamic is read from the per-execution environment
    // even if the base environment also has it.
    let m = parse("let x = r").unwrap();
    let p = m.prepare(&env4(), &["r"]).unwrap();
    let mut d = Env::new(4);
    d.rel("r", rel(4, &[(3, 3)]));
    let ev = p.evaluate(&d).unwrap();
    assert_eq!(ev.lookup("x"), Some(&Value::Rel(rel(4, &[(3, 3)]))));
}

#[test]
fn dynamic_let_rec_and_functions() {
    let m = parse(
        "let rec hb = rf | (hb ; po) | (po ; hb)
let rec path(x) = x
let p = path(hb)
acyclic hb as hb-acyclic",
    )
    .unwrap();
    let p = m.prepare(&env4(), &["rf"]).unwrap();
    assert_eq!(p.is_static("path"), Some(true));
    assert_eq!(p.is_static("hb"), Some(false));
    let ev = p.evaluate(&dyn_env(&[(3, 0)], &[])).unwrap();
    assert!(!ev.consistent());
    let ev = p.evaluate(&dyn_env(&[(1, 2)], &[])).unwrap();
    assert!(ev.consistent());
    assert_eq!(ev.lookup("p"), ev.lookup("hb"));
}

#[test]
fn prepared_is_thread_safe() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Prepared>();
    assert_send_sync::<Model>();
    assert_send_sync::<Evaluation>();
    let p = parse(STAGED)
        .unwrap()
        .prepare(&env4(), &["rf", "co"])
        .unwrap();
    std::thread::scope(|sc| {
        for k in 0..4 {
            let p = p.clone();
            sc.spawn(move || {
                let ev = p.evaluate(&dyn_env(&[(k, (k + 1) % 4)], &[])).unwrap();
                assert_eq!(ev.checks.len(), 3);
            });
        }
    });
}

#[test]
fn env_api() {
    let mut e = Env::new(3);
    assert_eq!(e.universe(), 3);
    e.set("S", set(3, &[1]));
    e.rel("r", rel(3, &[(0, 1)]));
    assert_eq!(e.get("S").and_then(Value::as_set), Some(&set(3, &[1])));
    assert_eq!(e.get("r").and_then(Value::as_rel), Some(&rel(3, &[(0, 1)])));
    assert!(e.get("S").and_then(Value::as_rel).is_none());
    assert_eq!(e.get("nope"), None);
    let mut names: Vec<&str> = e.names().collect();
    names.sort();
    assert_eq!(names, vec!["S", "r"]);
    assert_eq!(Env::default().universe(), 0);
}

#[test]
fn empty_universe_and_empty_model() {
    let m = parse("").unwrap();
    let ev = m
        .prepare(&Env::new(0), &[])
        .unwrap()
        .evaluate(&Env::new(0))
        .unwrap();
    assert!(ev.consistent());
    assert!(ev.checks.is_empty());
    let ev = run("let a = _ * _\nacyclic ~id & a\nempty ~0", &Env::new(0));
    assert!(ev.consistent());
}

// ---------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------

/// Cat fragments to build random (mostly ill-formed) programs from.
const VOCAB: &[&str] = &[
    "let ",
    "rec ",
    "and ",
    "in ",
    "=",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    "|",
    ";",
    "\\",
    "&",
    "*",
    "+",
    "?",
    "~",
    "^-1",
    "^",
    "-",
    "->",
    "fun ",
    "_",
    "0",
    "1",
    "r",
    "s",
    "W",
    "R",
    "x",
    "f",
    "id",
    "domain",
    "range",
    "acyclic ",
    "irreflexive ",
    "empty ",
    "flag ",
    "as ",
    "include ",
    "\"inc\"",
    "show ",
    "unshow ",
    "match ",
    "(*",
    "*)",
    "//",
    "\n",
    " ",
    "'",
    "f(x)",
    "f(x, y)",
    "let f(x) = ",
    "let rec x = ",
    "let x = ",
    "x ; x",
    "emptyset",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..40).prop_map(|v| v.concat())
}

fn small_env() -> Env {
    let mut e = Env::new(3);
    e.set("W", set(3, &[0]));
    e.set("R", set(3, &[1, 2]));
    e.rel("r", rel(3, &[(0, 1), (1, 2)]));
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let src = String::from_utf8_lossy(&bytes);
        let _ = parse(&src);
        let _ = parse_expr("e.cat", &src);
    }

    #[test]
    fn random_programs_never_panic(src in token_soup()) {
        let inc = |_: &str| Some(("inc".to_string(), "let x = r".to_string()));
        if let Ok(m) = Model::parse("t.cat", &src, &inc) {
            let _ = m.free_names();
            for dynamic in [&[][..], &["s"][..], &["r", "x", "f"][..]] {
                if let Ok(p) = m.prepare(&small_env(), dynamic) {
                    let mut d = Env::new(3);
                    d.rel("s", rel(3, &[(2, 0)]));
                    d.rel("r", rel(3, &[(0, 1)]));
                    if let Ok(ev) = p.evaluate(&d) {
                        let _ = ev.consistent();
                        let _ = ev.lookup("x");
                    }
                }
            }
        }
    }
}

fn leaf_rel() -> BoxedStrategy<String> {
    prop::sample::select(vec!["r", "s", "id", "0", "po"])
        .prop_map(String::from)
        .boxed()
}

fn leaf_set() -> BoxedStrategy<String> {
    prop::sample::select(vec!["W", "R", "A", "_", "{}"])
        .prop_map(String::from)
        .boxed()
}

/// Random relation-valued expressions, printed with explicit parentheses.
fn rel_expr() -> impl Strategy<Value = String> {
    let set_leaf = leaf_set();
    leaf_rel().prop_recursive(4, 24, 2, move |inner| {
        let set_e = prop_oneof![
            set_leaf.clone(),
            (set_leaf.clone(), set_leaf.clone(), 0..3usize)
                .prop_map(|(a, b, k)| { format!("({a}) {} ({b})", ["|", "&", "\\"][k]) }),
            inner.clone().prop_map(|r| format!("domain({r})")),
            inner.clone().prop_map(|r| format!("range({r})")),
            set_leaf.clone().prop_map(|a| format!("~({a})")),
        ];
        prop_oneof![
            (inner.clone(), inner.clone(), 0..4usize)
                .prop_map(|(a, b, k)| { format!("({a}) {} ({b})", ["|", ";", "\\", "&"][k]) }),
            (inner.clone(), 0..5usize)
                .prop_map(|(a, k)| { format!("({a}){}", ["+", "*", "?", "^-1", "^+"][k]) }),
            inner.clone().prop_map(|a| format!("~({a})")),
            set_e.clone().prop_map(|s| format!("[{s}]")),
            (set_e.clone(), set_e).prop_map(|(a, b)| format!("({a}) * ({b})")),
        ]
    })
}

/// A reference value, computed by folding the parsed tree with direct
/// `Relation`/`EventSet` calls (no interpreter involved).
enum Folded {
    Rel(Relation),
    Set(EventSet),
}

fn fold(e: &ast::Expr) -> Folded {
    use ast::{BinOp, ExprKind, UnOp};
    let env = env4();
    let n = 4;
    let as_rel = |f: Folded| match f {
        Folded::Rel(r) => r,
        Folded::Set(_) => panic!("expected relation"),
    };
    let as_set = |f: Folded| match f {
        Folded::Set(s) => s,
        Folded::Rel(_) => panic!("expected set"),
    };
    match &e.kind {
        ExprKind::Var(x) => match x.as_str() {
            "id" => Folded::Rel(Relation::identity(n)),
            _ => match env.get(x) {
                Some(Value::Rel(r)) => Folded::Rel(r.clone()),
                Some(Value::Set(s)) => Folded::Set(s.clone()),
                _ => panic!("unknown {x}"),
            },
        },
        ExprKind::Zero => Folded::Rel(Relation::empty(n)),
        ExprKind::EmptySet => Folded::Set(EventSet::empty(n)),
        ExprKind::Universe => Folded::Set(EventSet::full(n)),
        ExprKind::Bin { op, first, rest } => {
            let mut acc = fold(first);
            for (_, x) in rest {
                let b = fold(x);
                acc = match (op, acc, b) {
                    (BinOp::Union, Folded::Rel(a), Folded::Rel(b)) => Folded::Rel(a.union(&b)),
                    (BinOp::Inter, Folded::Rel(a), Folded::Rel(b)) => Folded::Rel(a.inter(&b)),
                    (BinOp::Diff, Folded::Rel(a), Folded::Rel(b)) => Folded::Rel(a.diff(&b)),
                    (BinOp::Union, Folded::Set(a), Folded::Set(b)) => Folded::Set(a.union(&b)),
                    (BinOp::Inter, Folded::Set(a), Folded::Set(b)) => Folded::Set(a.inter(&b)),
                    (BinOp::Diff, Folded::Set(a), Folded::Set(b)) => Folded::Set(a.diff(&b)),
                    (BinOp::Seq, a, b) => Folded::Rel(as_rel(a).compose(&as_rel(b))),
                    (BinOp::Cart, a, b) => Folded::Rel(Relation::product(&as_set(a), &as_set(b))),
                    _ => panic!("ill-typed"),
                };
            }
            acc
        }
        ExprKind::Un(op, x) => match (op, fold(x)) {
            (UnOp::Compl, Folded::Rel(r)) => Folded::Rel(r.complement()),
            (UnOp::Compl, Folded::Set(s)) => Folded::Set(s.complement()),
            (UnOp::Plus, r) => Folded::Rel(as_rel(r).transitive_closure()),
            (UnOp::Star, r) => Folded::Rel(as_rel(r).reflexive_transitive_closure()),
            (UnOp::Opt, r) => Folded::Rel(as_rel(r).reflexive_closure()),
            (UnOp::Inv, r) => Folded::Rel(as_rel(r).inverse()),
        },
        ExprKind::Bracket(x) => Folded::Rel(Relation::identity_on(&as_set(fold(x)))),
        ExprKind::App(f, args) => {
            let r = as_rel(fold(&args[0]));
            match &f.kind {
                ExprKind::Var(g) if g == "domain" => Folded::Set(r.domain()),
                ExprKind::Var(g) if g == "range" => Folded::Set(r.range()),
                _ => panic!("unknown function"),
            }
        }
        _ => panic!("not generated"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_expressions_match_relation_algebra(src in rel_expr()) {
        let tree = parse_expr("p.cat", &src).expect("generated expressions parse");
        match (val(&src), fold(&tree)) {
            (Value::Rel(a), Folded::Rel(b)) => prop_assert_eq!(a, b),
            (Value::Set(a), Folded::Set(b)) => prop_assert_eq!(a, b),
            (got, _) => prop_assert!(false, "{} evaluated to {:?}", src, got),
        }
    }
}

/// The worst inputs the depth limits allow stay within a 1 MiB stack even
/// unoptimized (rayon and test threads have 2 MiB).
#[test]
fn depth_limits_fit_in_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            let e = err("let rec loop(x) = loop(x ; x)\nlet a = loop(r)");
            assert!(e.message.contains("recursion too deep"), "{e}");
            let e = err("let rec loop(x) = loop(loop(x))\nlet a = loop(r)");
            assert!(e.message.contains("recursion too deep"), "{e}");
            let d = MAX_DEPTH - 2;
            let src = format!("{}r{}", "(r | ".repeat(d), ")".repeat(d));
            assert_eq!(val_rel(&src), rel(4, &[(0, 1), (1, 2)]));
            let src = format!("{}W{}", "[~domain(".repeat(d / 3), ")]".repeat(d / 3));
            if let Err(e) = parse(&format!("let x = {src}")) {
                panic!("{e}");
            }
            for open in ["(", "[", "~", "f(", "fun x -> ", "let x = r in "] {
                let src = format!("let x = {}r", open.repeat(5000));
                assert!(parse(&src).is_err());
            }
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow");
}

/// Random statement sequences that usually parse, mixing sets, relations,
/// functions, `let rec` (monotone or not), dynamic names and type errors.
fn program() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(vec![
        "r", "s", "rf", "W", "R", "_", "0", "{}", "id", "x", "y", "f", "g", "x2",
    ]);
    let expr = atom
        .prop_map(String::from)
        .prop_recursive(3, 16, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone(), 0..5usize).prop_map(|(a, b, k)| {
                    format!("({a}) {} ({b})", ["|", ";", "\\", "&", "*"][k])
                }),
                (inner.clone(), 0..6usize)
                    .prop_map(|(a, k)| { format!("({a}){}", ["+", "*", "?", "^-1", "", ""][k]) }),
                inner.clone().prop_map(|a| format!("~({a})")),
                inner.clone().prop_map(|a| format!("[{a}]")),
                inner.clone().prop_map(|a| format!("domain({a})")),
                inner.clone().prop_map(|a| format!("f({a})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("g({a}, {b})")),
                inner
                    .clone()
                    .prop_map(|a| format!("(let h = fun z -> z | {a} in h(r))")),
                (inner.clone(), inner).prop_map(|(a, b)| format!("let x2 = {a} in {b}")),
            ]
        });
    let stmt = (expr.clone(), expr, 0..9usize).prop_map(|(a, b, k)| match k {
        0 => format!("let x = {a}"),
        1 => format!("let y = {a} and x = {b}"),
        2 => format!("let f(x) = {a}"),
        3 => format!("let g(x, y) = {a}"),
        4 => format!("let rec x = {a} and y = {b}"),
        5 => format!("let rec f(x) = {a}"),
        6 => format!("acyclic {a} as c"),
        7 => format!("flag ~empty {a} as d"),
        _ => format!("irreflexive {a}"),
    });
    prop::collection::vec(stmt, 1..6).prop_map(|v| {
        format!(
            "let f(x) = x\nlet g(x, y) = x | y\nlet x = r\nlet y = W\n{}",
            v.join("\n")
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_valid_programs_never_panic(src in program()) {
        let m = parse(&src);
        prop_assert!(m.is_ok(), "{}: {:?}", src, m.err());
        let m = m.unwrap();
        for dynamic in [&[][..], &["rf"][..], &["rf", "s"][..]] {
            let mut base = small_env();
            base.rel("s", rel(3, &[(2, 0)]));
            base.rel("rf", rel(3, &[(1, 1)]));
            if let Ok(p) = m.prepare(&base, dynamic) {
                let mut d = Env::new(3);
                d.rel("rf", rel(3, &[(0, 2)]));
                d.rel("s", rel(3, &[(2, 1)]));
                if let Ok(ev) = p.evaluate(&d) {
                    let _ = ev.consistent();
                    for name in ["x", "y", "f"] {
                        let _ = ev.lookup(name);
                    }
                }
            }
        }
    }
}

/// Calls with equal arguments are memoised within a statement; the results
/// must be those of separate calls, also for closures re-created in `let rec`
/// iterations and for calls whose arguments differ only by value.
#[test]
fn memoised_calls_agree_with_separate_calls() {
    let env = env4();
    let po = val_rel("po");
    let r = val_rel("r");
    let s = val_rel("s");
    let twice = run(
        "let f(x) = x ; x\nlet a = f(po) | f(po)\nlet b = f(r) | f(s) | f(r)",
        &env,
    );
    assert_eq!(twice.lookup("a"), Some(&Value::Rel(po.compose(&po))));
    assert_eq!(
        twice.lookup("b"),
        Some(&Value::Rel(r.compose(&r).union(&s.compose(&s))))
    );
    // a let rec whose body calls a function on the changing variable
    let fix = run(
        "let step(x) = x | (x ; r)\nlet rec c = r | step(c)\nlet expect = r+",
        &env,
    );
    assert_eq!(fix.lookup("c"), fix.lookup("expect"));
    // closures created afresh (capturing different values) are never confused
    let lam = run(
        "let mk(y) = fun x -> x ; y\nlet g = mk(r)\nlet h = mk(s)\nlet d = g(po) | h(po)\nlet e = (po ; r) | (po ; s)",
        &env,
    );
    assert_eq!(lam.lookup("d"), lam.lookup("e"));
}

/// `plan_for` keeps exactly what the wanted checks need, and
/// `evaluate_only` gives those checks the results `evaluate` gives.
#[test]
fn a_plan_runs_only_what_the_wanted_checks_need() {
    let src =
        "let a = d | r\nlet b = d ; s\nlet c = b ; b\nacyclic a as first\nempty c as second\n";
    let m = parse(src).unwrap();
    let stat = env4();
    let mut base = Env::new(4);
    for name in ["W", "R", "A", "po", "s"] {
        match stat.get(name).unwrap() {
            Value::Set(x) => base.set(name, x.clone()),
            Value::Rel(x) => base.rel(name, x.clone()),
            _ => unreachable!(),
        }
    }
    base.rel("r", rel(4, &[(0, 1), (1, 2)]));
    let p = m.prepare(&base, &["d"]).unwrap();
    // `a` and the first check; not `b`, `c` nor the second check
    let plan = p.plan_for(&[true, false]);
    assert_eq!(plan.len(), 2, "{plan:?}");
    assert_eq!(p.plan_for(&[false, true]).len(), 3);
    for d in [rel(4, &[]), rel(4, &[(2, 0)]), rel(4, &[(2, 1), (3, 1)])] {
        let mut dy = Env::new(4);
        dy.rel("d", d);
        let full = p.evaluate(&dy).unwrap();
        let part = p.evaluate_only(&dy, &plan).unwrap();
        assert_eq!(full.checks[0].passed, part.checks[0].passed);
    }
    // the cycle 0 -> 1 -> 2 -> 0 fails the first check in both
    let mut dy = Env::new(4);
    dy.rel("d", rel(4, &[(2, 0)]));
    assert!(!p.evaluate_only(&dy, &plan).unwrap().checks[0].passed);
}

/// `lazy_stages` orders the checks cheapest first and `evaluate_lazily`
/// stops at the first that fails: the costlier check and the flag are then
/// not evaluated, bindings nothing reads never are, and a consistent
/// candidate gets the same checks, flags and read bindings as `evaluate`.
#[test]
fn a_lazy_evaluation_stops_at_the_cheapest_failing_check() {
    // `costly` (three statements) comes first in the model, `cheap` (one)
    // second; `unread` is read by nothing, `f` by the flag only.
    let src = "let b = d ; s\nlet c = b ; b\nlet e = c | b\nempty e as costly\n\
               let unread = d ; d\nlet f = d & po\nirreflexive d as cheap\n\
               flag ~empty f as flagged\n";
    let m = parse(src).unwrap();
    let mut base = Env::new(4);
    for name in ["W", "R", "A", "po", "s"] {
        match env4().get(name).unwrap() {
            Value::Set(x) => base.set(name, x.clone()),
            Value::Rel(x) => base.rel(name, x.clone()),
            _ => unreachable!(),
        }
    }
    let p = m.prepare(&base, &["d"]).unwrap();
    let stages = p.lazy_stages(&["c"]).expect("c is bound");
    // A self-loop fails `cheap`: nothing of `costly` runs.
    let mut dy = Env::new(4);
    dy.rel("d", rel(4, &[(3, 3), (1, 3)]));
    let lazy = p.evaluate_lazily(&dy, &stages).unwrap();
    let full = p.evaluate(&dy).unwrap();
    assert!(!lazy.consistent() && !full.consistent());
    assert!(!lazy.checks[1].passed);
    assert!(
        full.checks[0].passed,
        "costly holds: d ; s ; ... is empty here"
    );
    assert!(!lazy.checks[0].passed, "costly was not evaluated");
    assert!(lazy.lookup("b").is_none() && lazy.lookup("c").is_none());
    assert!(full.checks[2].passed && !lazy.checks[2].passed);
    // A consistent candidate: the same checks, flags and read bindings;
    // `unread` is never computed.
    dy.rel("d", rel(4, &[(1, 3)]));
    let lazy = p.evaluate_lazily(&dy, &stages).unwrap();
    let full = p.evaluate(&dy).unwrap();
    assert!(lazy.consistent() && full.consistent());
    let results = |e: &Evaluation| e.checks.iter().map(|c| c.passed).collect::<Vec<_>>();
    assert_eq!(results(&lazy), results(&full));
    assert_eq!(lazy.lookup("c"), full.lookup("c"));
    assert!(full.lookup("unread").is_some() && lazy.lookup("unread").is_none());
    // A name the model does not bind: no lazy stages (a full evaluation
    // reports the question's own error).
    assert!(p.lazy_stages(&["nowhere"]).is_none());
}

//! Inputs nested (or chained) deeply enough
//! to overflow the stack of a recursive parser, or of the recursion over
//! what it builds. Each runs on a thread with a small stack (1 MiB in
//! release builds, as `cargo test --release` runs them; debug frames are
//! larger), so the result does not depend on the main thread's 8 MiB.

use super::{FrontendError, MAX_NESTING, alloy_test, opencl_litmus, parse_outcome, vulkan_litmus};
use crate::ir::{CondExpr, Program};

fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let size = if cfg!(debug_assertions) {
        16 << 20
    } else {
        1 << 20
    };
    std::thread::Builder::new()
        .stack_size(size)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn too_deep(r: Result<Program, FrontendError>) -> FrontendError {
    let e = r.unwrap_err();
    assert!(
        e.message
            .contains(&format!("nesting deeper than {MAX_NESTING} levels")),
        "{e}"
    );
    e
}

/// An OpenCL test whose thread 0 runs `body`, with a final clause.
fn opencl(body: &str, fin: &str) -> String {
    format!(
        "OPENCL t\n{{ [x]=0; }}\nP0@wg 0, dev 0 (global atomic_int* x) {{\n  int r0 = 0;\n{body}\n}}\n{fin}\n"
    )
}

fn height(e: &CondExpr) -> usize {
    match e {
        CondExpr::Not(a) => 1 + height(a),
        CondExpr::And(a, b) | CondExpr::Or(a, b) => 1 + height(a).max(height(b)),
        _ => 1,
    }
}

#[test]
fn opencl_nested_if() {
    // Overflowed from ~4300 levels (~1070 on a rayon worker).
    let n = 5000;
    let body = format!("{}*x = 1;", "if (r0 == 0) ".repeat(n));
    let e = small_stack(move || too_deep(opencl_litmus::parse("t", &opencl(&body, ""))));
    // Statements and the expressions in them share the count: the second
    // operand of the 254th condition is three levels deeper than its `if`.
    assert_eq!((e.line, e.column), (5, 13 * (MAX_NESTING - 3) + 11));
}

#[test]
fn opencl_nested_braces() {
    // Overflowed from ~8000 levels.
    let n = 10_000;
    let body = format!("{}*x = 1;{}", "{".repeat(n), "}".repeat(n));
    let e = small_stack(move || too_deep(opencl_litmus::parse("t", &opencl(&body, ""))));
    assert_eq!((e.line, e.column), (5, MAX_NESTING + 1));
}

#[test]
fn opencl_parentheses_in_a_c_expression() {
    // Overflowed from ~9700 levels.
    let n = 12_000;
    let body = format!("  r0 = {}1{};", "(".repeat(n), ")".repeat(n));
    let e = small_stack(move || too_deep(opencl_litmus::parse("t", &opencl(&body, ""))));
    assert_eq!(e.line, 5);
}

#[test]
fn opencl_unary_chain_and_flat_c_chain() {
    let body = format!("  r0 = {}1;", "- ".repeat(20_000));
    small_stack(move || too_deep(opencl_litmus::parse("t", &opencl(&body, ""))));
    // A flat `1 + 1 + ...` parses in a loop but builds a tree as tall as
    // the chain, which lowering recurses over: it is refused at the
    // operator that makes it too tall.
    let body = format!("  r0 = 1{};", " + 1".repeat(100_000));
    let e = small_stack(move || opencl_litmus::parse("t", &opencl(&body, "")).unwrap_err());
    assert!(e.message.contains("expression nesting deeper than"), "{e}");
    assert_eq!((e.line, e.column), (5, 10 + 4 * (MAX_NESTING - 1)));
}

#[test]
fn opencl_condition_parentheses() {
    // Overflowed from ~11600 levels.
    let n = 12_000;
    let fin = format!("exists {}x=1{}", "(".repeat(n), ")".repeat(n));
    let e = small_stack(move || too_deep(opencl_litmus::parse("t", &opencl("", &fin))));
    assert_eq!((e.line, e.column), (7, 8 + MAX_NESTING));
}

#[test]
fn vulkan_condition_parentheses_and_negations() {
    let head = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n st.sc0 x, 1 ;\n";
    for opener in ["(", "~", "not "] {
        let fin = format!("exists {}x == 1", opener.repeat(20_000));
        let text = format!("{head}{fin}\n");
        small_stack(move || too_deep(vulkan_litmus::parse("t", &text)));
    }
}

#[test]
fn flat_condition_chains_make_shallow_trees() {
    // Overflowed from ~130000 terms (~33000 on a suite worker): the parse
    // loop was flat, but the left-nested tree it built was not.
    let n = 200_000;
    let chain = |sep: &str| vec!["x == 1"; n].join(sep);
    let (and, or) = (chain(" /\\ "), chain(" \\/ "));
    small_stack(move || {
        let text = format!(
            "VULKAN t\n{{ x=0; }}\n P0@sg 0, wg 0, qf 0 ;\n st.sc0 x, 1 ;\nexists ({and})\n"
        );
        let p = vulkan_litmus::parse("t", &text).unwrap();
        let c = p.condition.as_ref().unwrap();
        assert!(height(&c.expr) <= 2 * 18, "{}", height(&c.expr));
        assert!(c.expr.eval(&|_| 1));
        let mut terms = Vec::new();
        c.expr.terms(&mut terms);
        assert_eq!(terms.len(), 2 * n);
        let e = parse_outcome(&p, &or).unwrap();
        assert!(height(&e) <= 2 * 18);
        let text = opencl("", &format!("exists ({})", or.replace(" == ", "=")));
        let o = opencl_litmus::parse("t", &text).unwrap();
        assert!(height(&o.condition.unwrap().expr) <= 2 * 18);
        drop(p);
    });
}

#[test]
fn short_chains_keep_their_left_nesting() {
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n st.sc0 x, 1 ;\nexists (x == 1 /\\ x == 2 /\\ x == 3)\n";
    let p = vulkan_litmus::parse("t", text).unwrap();
    let CondExpr::And(a, _) = p.condition.unwrap().expr else {
        panic!("not a conjunction")
    };
    assert!(matches!(*a, CondExpr::And(..)));
}

#[test]
fn alloy_query_parentheses() {
    // Overflowed from ~21000 levels.
    let n = 25_000;
    let text = format!(
        "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nSATISFIABLE {}consistent[X]{}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let e = small_stack(move || too_deep(alloy_test::parse("t.test", &text)));
    assert_eq!((e.line, e.column), (5, 13 + MAX_NESTING));
}

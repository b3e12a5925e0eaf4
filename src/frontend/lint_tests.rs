//! The lints of every front end (docs/format-*.md, "Lints"), did-you-mean
//! suggestions, the C constructs the OpenCL dialect refuses by name, and
//! located errors for inputs that once panicked or were misread.

use super::{FrontendError, FrontendWarning, alloy_test, opencl_litmus, vulkan_litmus};
use crate::ir::Program;
use std::time::{Duration, Instant};

fn opencl(body: &str) -> Result<Program, FrontendError> {
    let text = format!(
        "OPENCL t\n{{ }}\nP0@wg 0, dev 0 (global atomic_int* a, global int* p, local atomic_int* l, const global int* c) {{\n  {body}\n}}\nexists (a=1)\n"
    );
    opencl_litmus::parse("t.litmus", &text)
}

/// The error of an OpenCL body (line 4 of the test), checked for its column
/// and message.
fn opencl_err(body: &str, column: usize, needle: &str) {
    let e = opencl(body).expect_err(body);
    assert_eq!((e.line, e.column), (4, column), "{e}");
    assert!(e.message.contains(needle), "{e}");
}

fn warnings(p: &Program) -> Vec<(usize, usize, &str)> {
    p.warnings
        .iter()
        .map(|w| (w.line, w.column, w.message.as_str()))
        .collect()
}

// ----- OpenCL lints --------------------------------------------------------------

#[test]
fn atomic_function_on_a_plain_int_is_a_warning() {
    let p = opencl("atomic_store_explicit(p, 1, memory_order_relaxed);").unwrap();
    let w = warnings(&p);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].0, w[0].1), (4, 25));
    assert!(
        w[0].2.contains("declared `int*`, not `atomic_int*`"),
        "{w:?}"
    );
    // still an atomic access (SPIR-V's reading)
    assert!(p.threads[0].instructions().next().unwrap().atomic);
    // an atomic type: no warning
    let p = opencl("atomic_store_explicit(a, 1, memory_order_relaxed);").unwrap();
    assert!(p.warnings.is_empty());
}

#[test]
fn local_object_at_a_scope_wider_than_work_group_is_a_warning() {
    // the default scope is memory_scope_device
    let p = opencl("int r0 = atomic_load(l);").unwrap();
    let w = warnings(&p);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].2.contains("scopes wider than WorkGroup are invalid"),
        "{w:?}"
    );
    let p = opencl("atomic_store_explicit(l, 1, memory_order_release, memory_scope_work_group);")
        .unwrap();
    assert!(p.warnings.is_empty());
}

#[test]
fn writes_through_const_are_errors() {
    opencl_err("*c = 1;", 4, "pointer to `const`");
    opencl_err("atomic_store(c, 1);", 16, "pointer to `const`");
    opencl_err("int r0 = atomic_fetch_add(c, 1);", 29, "pointer to `const`");
    // `expected` is written on failure
    opencl_err(
        "int r0 = atomic_compare_exchange_strong(a, c, 1);",
        46,
        "pointer to `const`",
    );
    // reading is fine
    assert!(opencl("int r0 = *c;").is_ok());
}

#[test]
fn volatile_is_accepted_and_changes_nothing() {
    let text =
        "OPENCL t\n{ }\nP0@wg 0, dev 0 (volatile global int* x) {\n  *x = 1;\n}\nexists (x=1)\n";
    let plain = text.replace("volatile ", "");
    let a = opencl_litmus::parse("t.litmus", text).unwrap();
    let b = opencl_litmus::parse("t.litmus", &plain).unwrap();
    assert_eq!(format!("{:?}", a.threads), format!("{:?}", b.threads));
    assert!(a.warnings.is_empty());
}

#[test]
fn unsupported_c_constructs_are_named() {
    // (body, column, message)
    let cases: &[(&str, usize, &str)] = &[
        // Arrays and pointer arithmetic: `a` is no array here.
        (
            "int r0 = a[1];",
            12,
            "index 1 is outside `a`, which is not an array",
        ),
        ("int r0[2];", 9, "arrays are not supported yet"),
        (
            "int r0 = *(a + 1);",
            14,
            "index 1 is outside `a`, which is not an array",
        ),
        ("int r0 = atomic_load(&a);", 24, "`&` takes an element"),
        ("int r0 = sizeof(a);", 12, "`sizeof` is not supported"),
        ("int r0 = (int) 1;", 12, "casts are not supported"),
        ("struct s q;", 3, "structs are not supported yet"),
        (
            "int r0 = 0; r0++;",
            17,
            "`++` (increment and compound assignment)",
        ),
        ("int r0 = 0; r0 += 1;", 18, "`+=`"),
        ("int r0 = 1 / 2;", 14, "`/` is not supported"),
        ("int r0 = 1 % 2;", 14, "`%` is not supported"),
        ("int* q;", 6, "pointer variables are not supported"),
        ("float r0;", 3, "floating-point types are not supported"),
    ];
    for (body, column, needle) in cases {
        opencl_err(body, *column, needle);
    }
}

#[test]
fn opencl_did_you_mean() {
    opencl_err(
        "int r0 = atomic_lod_explicit(a, memory_order_relaxed);",
        12,
        "(did you mean `atomic_load_explicit`?)",
    );
    opencl_err(
        "int r0 = atomic_load_explicit(a, memory_order_aquire);",
        36,
        "(did you mean `memory_order_acquire`?)",
    );
    opencl_err(
        "int r0 = atomic_load_explicit(a, memory_order_relaxed, memory_scope_workgroup);",
        58,
        "(did you mean `memory_scope_work_group`?)",
    );
    let e = opencl_litmus::parse(
        "t.litmus",
        "OPENCL t\nP0@wg 0, dev 0 (golbal int* x) {\n}\n",
    )
    .unwrap_err();
    assert!(e.message.contains("(did you mean `global`?)"), "{e}");
    // nothing near: no guess
    let e = opencl("int r0 = frobnicate(a);").unwrap_err();
    assert!(!e.message.contains("did you mean"), "{e}");
}

// ----- Vulkan litmus ---------------------------------------------------------------

const MP: &str = "VULKAN t\n{ x=0; flag=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n";

#[test]
fn undeclared_location_is_a_warning_with_a_guess() {
    let text = format!("{MP} st.av.dv.sc0 x, 1 | ld.vis.dv.sc0 r0, falg ;\nexists (P1:r0 == 0)\n");
    let p = vulkan_litmus::parse("t.litmus", &text).unwrap();
    let w = warnings(&p);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].0, w[0].1), (4, 40));
    assert!(w[0].2.contains("location `falg` is not declared"), "{w:?}");
    assert!(w[0].2.contains("(did you mean `flag`?)"), "{w:?}");
    // one warning per location, not per access
    let text = format!("{MP} st.av.dv.sc0 z, 1 | ld.vis.dv.sc0 r0, z ;\nexists (P1:r0 == 0)\n");
    assert_eq!(
        vulkan_litmus::parse("t.litmus", &text)
            .unwrap()
            .warnings
            .len(),
        1
    );
}

#[test]
fn vulkan_did_you_mean() {
    let text = format!(
        "{MP} st.atom.rle.dv.sc0.semsc0 x, 1 | ld.vis.dv.sc0 r0, x ;\nexists (P1:r0 == 0)\n"
    );
    let e = vulkan_litmus::parse("t.litmus", &text).unwrap_err();
    assert_eq!((e.line, e.column), (4, 10), "{e}");
    assert!(e.message.contains("(did you mean `rel`?)"), "{e}");
    let text = format!("{MP} stt.av.dv.sc0 x, 1 | ld.vis.dv.sc0 r0, x ;\nexists (P1:r0 == 0)\n");
    let e = vulkan_litmus::parse("t.litmus", &text).unwrap_err();
    assert!(e.message.contains("unknown instruction `stt`"), "{e}");
    assert!(e.message.contains("(did you mean `st`?)"), "{e}");
}

#[test]
fn any_storage_class_number_is_accepted() {
    // Storage classes are data: the front ends take any class number and
    // the model decides (MODELS.md, "Storage classes").
    let text = format!("{MP} st.av.dv.sc4 x, 1 | ld.vis.dv.sc0 r0, x ;\nexists (P1:r0 == 0)\n");
    let p = vulkan_litmus::parse("t.litmus", &text).unwrap();
    assert!(p.storage_classes().contains(&crate::ir::StorageClass(4)));
    let p = alloy_test::parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.atom.rel.scopewg.sc0.semsc7 x = 1\n",
    )
    .unwrap();
    assert!(p.storage_classes().contains(&crate::ir::StorageClass(7)));
    // Past a byte, the token is not a storage class.
    let text = format!("{MP} st.av.dv.sc256 x, 1 | ld.vis.dv.sc0 r0, x ;\nexists (P1:r0 == 0)\n");
    let e = vulkan_litmus::parse("t.litmus", &text).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
}

#[test]
fn unused_locations_cost_linear_time_and_memory() {
    // 40 000 declared, unused locations: once quadratic (the symbol table's
    // lookups and one provenance vector per location per location: 2.7 GB
    // and 3.4 s for 20 000).
    let mut text = String::from("VULKAN big\n{\n");
    for i in 0..40_000 {
        text.push_str(&format!("u{i}=0;\n"));
    }
    text.push_str("x=0;\n}\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n");
    text.push_str(" st.dv.sc0 x, 1 | ld.dv.sc0 r0, x ;\nexists (P1:r0 == 1)\n");
    let start = Instant::now();
    let checked = crate::Session::new().check_text("big.litmus", &text);
    assert!(checked.is_ok());
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

// ----- Alloy .test ------------------------------------------------------------------

#[test]
fn negative_ssw_thread_is_an_error() {
    let e = alloy_test::parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nSSW -1 0\n",
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (5, 5), "{e}");
    assert!(e.message.contains("thread numbers are not negative"), "{e}");
}

#[test]
fn long_lines_parse_in_linear_time() {
    // 400 KB of words on one line took 4.4 s (columns counted from the line
    // start for every word).
    let line = "x ".repeat(200_000);
    let text = format!("NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 {line}\n");
    let start = Instant::now();
    let e = alloy_test::parse("t.test", &text).unwrap_err();
    assert_eq!((e.line, e.column), (4, 10), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    let query = vec!["consistent[X]"; 30_000].join(" && ");
    let text = format!("NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nSATISFIABLE {query}\n");
    let start = Instant::now();
    assert!(alloy_test::parse("t.test", &text).is_ok());
    assert!(start.elapsed() < Duration::from_secs(1));
}

#[test]
fn alloy_did_you_mean() {
    let e = alloy_test::parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.atom.rle.scopewg.sc0.semsc0 x = 1\n",
    )
    .unwrap_err();
    assert!(e.message.contains("(did you mean `rel`?)"), "{e}");
    let e =
        alloy_test::parse("t.test", "NEWWG\nNEWSG\nNEWTHREAD\nst.scopedv.sc0 x = 1\n").unwrap_err();
    assert!(e.message.contains("(did you mean `scopedev`?)"), "{e}");
}

#[test]
fn unknown_count_is_located_at_its_name() {
    let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\n  SATISFIABLE consistent[X] && #dx=0\n";
    let Err(crate::Error::Input(e)) = crate::Session::new().check_text("t.test", text) else {
        panic!("expected a located input error");
    };
    assert_eq!((e.line, e.column), (5, 32), "{e}");
    assert!(e.message.contains("binds no `dx`"), "{e}");
}

// ----- positions ----------------------------------------------------------------------

#[test]
fn non_utf8_files_are_located_at_the_first_bad_byte() {
    let dir = std::env::temp_dir().join(format!("vkmm-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.test");
    std::fs::write(&f, b"NEWWG\nNEWSG\n  \xc3\xa9\xff st.sc0 x\n").unwrap();
    let e = super::load(&f).unwrap_err();
    assert_eq!((e.line, e.column), (3, 4), "{e}");
    assert!(e.message.contains("invalid byte 0xff"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_without_a_position_do_not_invent_one() {
    let e = super::load(std::path::Path::new("no/such/file.litmus")).unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with("no/such/file.litmus: cannot read file: "),
        "{shown}"
    );
    let w = FrontendWarning {
        file: "f.litmus".into(),
        line: 3,
        column: 7,
        message: "m".into(),
    };
    assert_eq!(w.to_string(), "f.litmus:3:7: warning: m");
}

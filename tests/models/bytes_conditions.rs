//! Final-state conditions on sized variables (issue 16, item 6;
//! docs/format-vulkan-litmus.md, "Memory locations as bytes"): `x == v` on
//! a variable accessed in parts and `x[a..b] == v` assemble the bytes
//! little-endian from the chunks holding them; the final states, JSON and
//! herd output list the variable as declared; `explain` names the bytes of
//! each piece of a split access. The verdicts of the files are in
//! tests/fixtures/litmus-bytes/*.csv (tests/models/bytes.rs); these tests check the
//! listing, the names and the errors.

use std::path::{Path, PathBuf};
use std::process::Command;
use vkmm::Limits;
use vkmm::frontend::{Format, Options};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-bytes")
        .join(name)
}

fn parse(text: &str) -> Result<vkmm::ir::Program, String> {
    vkmm::frontend::parse_text("t.litmus", text, Format::VulkanLitmus, Options::default())
        .map_err(|e| e.to_string())
}

/// The final states of `text` under `vulkan`, each sorted, with the
/// condition verdict.
fn states(text: &str) -> (Vec<Vec<(String, i64)>>, Option<bool>) {
    let p = parse(text).unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    let o = vkmm::analysis::check_litmus("t", &p, &model, Limits::default(), None).unwrap();
    let mut s: Vec<Vec<(String, i64)>> = o.states.iter().map(|(s, _)| s.to_pairs()).collect();
    s.sort();
    (s, o.condition_holds)
}

fn test(init: &str, rows: &[&str], cond: &str) -> String {
    let mut t = format!("VULKAN t\n{{ {init} }}\n P0@sg 0, wg 0, qf 0 ;\n");
    for r in rows {
        t.push_str(&format!(" {r} ;\n"));
    }
    t.push_str(cond);
    t.push('\n');
    t
}

fn named(v: &[(&str, i64)]) -> Vec<(String, i64)> {
    v.iter().map(|(n, x)| (n.to_string(), *x)).collect()
}

#[test]
fn a_variable_written_in_parts_is_listed_and_compared_as_declared() {
    // Bytes 0..2 written with 0x0102 = 258, bytes 2..4 keep the initial
    // value's bytes (x:4 = 0x7f000000 = 2130706432: bytes 2..4 hold 0x7f00).
    let t = test(
        "x:4=2130706432;",
        &["st.sc0 x[0..2], 258"],
        "forall (x == 2130706690 /\\ x[2..4] == 32512 /\\ x[1..3] == 1)",
    );
    let (s, holds) = states(&t);
    assert_eq!(s, vec![named(&[("x", 2130706690)])]);
    assert_eq!(holds, Some(true));
    // The same value compared with what a big-endian assembly would give:
    // 0x0201007f read back to front is not the final value.
    let t = test(
        "x:4=2130706432;",
        &["st.sc0 x[0..2], 258"],
        "exists (x == 33620095)",
    );
    assert_eq!(states(&t).1, Some(false));
    // The top part is read signed: bytes 2..4 = 0xffff.
    let t = test(
        "x:4=0;",
        &["st.sc0 x[2..4], -1", "st.sc0 x[0..2], 1"],
        "forall (x == -65535 /\\ x[2..4] == -1 /\\ x[0..2] == 1)",
    );
    assert_eq!(states(&t).1, Some(true));
}

#[test]
fn aliases_locations_lists_and_wide_variables() {
    // `y aliases x`: the condition may name either; `locations [y]` lists
    // the variable once, by the name the test declares first.
    let t = test(
        "x:8=0; y aliases x;",
        &["st.sc0 y[4..8], 1"],
        "locations [y]\nforall (y == 4294967296 /\\ x[4..8] == 1)",
    );
    let (s, holds) = states(&t);
    assert_eq!(holds, Some(true));
    assert_eq!(s, vec![named(&[("x", 4294967296)])]);
    // A variable of more than 8 bytes has no one value: listed by chunks.
    let t = test(
        "x:16=0;",
        &["st.sc0 x[0..4], -1", "st.sc0 x[12..16], 3"],
        "locations [x]\nforall (x[0..8] == 4294967295 /\\ x[10..14] == 196608)",
    );
    let (s, holds) = states(&t);
    assert_eq!(holds, Some(true));
    assert_eq!(
        s,
        vec![named(&[("x[0..4]", -1), ("x[4..12]", 0), ("x[12..16]", 3)])]
    );
    // A sized variable accessed whole stays one location, its range
    // readable in conditions.
    let t = test("x:4=0;", &["st.sc0 x, 772"], "forall (x[1..2] == 3)");
    let (s, holds) = states(&t);
    assert_eq!(holds, Some(true));
    assert_eq!(s, vec![named(&[("x", 772)])]);
}

#[test]
fn bad_condition_ranges_are_located_errors() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "x:16=0;",
            "exists (x == 0)",
            "t.litmus:5:9: `x` has 16 bytes: a condition compares at most 8",
        ),
        (
            "x:8=0;",
            "exists (x[4..12] == 0)",
            "t.litmus:5:11: `x[4..12]` is not a range of `x`, which has 8 bytes",
        ),
        (
            "x:8=0;",
            "exists (x[4..4] == 0)",
            "t.litmus:5:11: `x[4..4]` is not a range of `x`",
        ),
        (
            "x:8=0;",
            "exists (x[0..4 == 0)",
            "t.litmus:5:16: expected `]` to close the byte range",
        ),
    ];
    for (init, cond, want) in cases {
        let e = parse(&test(init, &["st.sc0 x[0..4], 1"], cond)).unwrap_err();
        assert!(e.starts_with(want), "{cond}: got {e}");
    }
}

fn vkmm(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn outputs_name_the_variable_and_the_bytes_of_each_piece() {
    let f = own("final-torn.litmus");
    let f = f.to_str().unwrap();
    // The listing: `x`, not `x[0..4]` and `x[4..8]`.
    let (code, out) = vkmm(&["check", f]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(":> x=-4294967296;") && out.contains(":> x=-1;"),
        "{out}"
    );
    let (_, herd) = vkmm(&["check", "--format", "herd", f]);
    assert!(
        herd.contains("\nx=-4294967296;") && !herd.contains("x[4..8]="),
        "{herd}"
    );
    let (_, json) = vkmm(&["check", "--format", "json", f]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let states = v["results"][0]["states"].as_array().expect("states");
    assert_eq!(states.len(), 2);
    assert!(
        states
            .iter()
            .all(|s| s["values"].as_object().unwrap().keys().eq(["x"])),
        "{states:?}"
    );
    // explain: each piece of the 8-byte store says which bytes it writes;
    // an outcome names the variable as declared.
    let (code, out) = vkmm(&["explain", f, "--outcome", "x == 4294967295"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("is UNREACHABLE"), "{out}");
    let (_, out) = vkmm(&["explain", f, "--outcome", "x == -4294967296"]);
    assert!(out.contains("ALLOWED"), "{out}");
    assert!(
        out.contains("st.sc0 x, -1 [bytes x[0..4]] [writes -1]")
            && out.contains("st.sc0 x, -1 [bytes x[4..8]] [writes -1]")
            && out.contains("st.sc0 x[0..4], 0 [bytes x[0..4]] [writes 0]"),
        "{out}"
    );
}

#[test]
fn print_back_device_runs_and_host_threads_refuse_sized_variables() {
    let text = std::fs::read_to_string(own("final-torn.litmus")).unwrap();
    let p = parse(&text).unwrap();
    // Print-back: the declaration and the ranges are lowered away.
    let e = vkmm::frontend::vulkan_litmus::print::try_to_litmus(&p).unwrap_err();
    assert!(
        e.message.starts_with("`x` is a sized variable")
            && e.message.contains("cannot be printed back"),
        "{}",
        e.message
    );
    // A test without sizes still prints back.
    let plain = parse(&test("x=0;", &["st.sc0 x, 1"], "exists (x == 1)")).unwrap();
    assert!(vkmm::frontend::vulkan_litmus::print::try_to_litmus(&plain).is_ok());
    // `vkmm run`: refused before any device is touched.
    let Err(e) = vkmm::device::plan(&p) else {
        panic!("a device run of a sized variable is refused")
    };
    assert_eq!(e.reason, vkmm::device::Reason::Values);
    assert!(
        e.detail.starts_with("`x` is a sized variable"),
        "{}",
        e.detail
    );
    // Host threads: refused at the first statement, with the reason.
    let host = "VULKAN h\n{\nx:8=0;\nmapped x coherent;\n}\n P0@host      | P1@queue 0   | P2@sg 0, wg 0, qf 0 ;\n submit P1    | dispatch P2  | st.sc0 x[0..4], 1   ;\n ld r0, x     |              |                     ;\nexists (P0:r0 == 0)\n";
    let e = parse(host).unwrap_err();
    assert!(
        e.starts_with("t.litmus:7:")
            && e.contains("sized variables are not supported together with host threads"),
        "{e}"
    );
}

//! Final states show a shader's values as their types read them (a `u32`
//! unsigned, a float as its value), and conditions compare float cells
//! with float literals (docs/reading-output.md, "Values";
//! docs/format-spirv.md, "Floating point"). Fixture:
//! tests/fixtures/value-kinds/kinds.wgsl, each stored value derived in
//! its header; its inputs (kinds.toml) are float literals.

use crate::common::vkmm;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/value-kinds/kinds.wgsl"
);
const DISPATCH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/value-kinds/kinds.toml"
);

fn check(extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["check", "--dispatch", DISPATCH];
    args.extend_from_slice(extra);
    args.push(FILE);
    vkmm(&args)
}

#[test]
fn the_listing_shows_each_cell_as_its_type_reads_it() {
    let (code, out, err) = check(&[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(":> u[0]=4294967295; i[0]=-3; f[0]=1.5; f[1]=-0.0; f[2]=inf;"),
        "{out}"
    );
}

#[test]
fn json_values_are_numbers_of_the_cells_types() {
    let (code, out, err) = check(&["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let values = &v["results"][0]["states"][0]["values"];
    assert_eq!(values["u[0]"], serde_json::json!(4294967295u64), "{values}");
    assert_eq!(values["i[0]"], serde_json::json!(-3), "{values}");
    assert_eq!(values["f[0]"], serde_json::json!(1.5), "{values}");
    // An infinity is no JSON number: its text.
    assert_eq!(values["f[2]"], serde_json::json!("inf"), "{values}");
}

/// `--assert`'s verdict in JSON, or the error.
fn holds(condition: &str) -> Result<bool, String> {
    let (code, out, err) = check(&["--format", "json", "--assert", condition]);
    if code == 2 {
        // The error is in the JSON's summary.
        return Err(format!("{out}{err}"));
    }
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| format!("{e}: {err}"))?;
    v["results"][0]["condition_holds"]
        .as_bool()
        .ok_or_else(|| format!("no verdict: {out}"))
}

#[test]
fn a_float_literal_is_compared_at_the_cells_width() {
    assert_eq!(holds("f[0] == 1.5"), Ok(true));
    assert_eq!(holds("f[0] == 1.0"), Ok(false));
    // Rounded to the nearest f32 first: 1.50000001 is 1.5.
    assert_eq!(holds("f[0] == 1.50000001"), Ok(true));
    // -0.0 and 0.0 have different bits; conditions compare bits.
    assert_eq!(holds("f[1] == -0.0"), Ok(true));
    assert_eq!(holds("f[1] == 0.0"), Ok(false));
    assert_eq!(holds("f[2] == inf"), Ok(true));
    assert_eq!(holds("f[2] == -inf"), Ok(false));
    // An integer is the cell's bits, as before: 0x3FC00000.
    assert_eq!(holds("f[0] == 1069547520"), Ok(true));
    // An unsigned cell's value or its signed reading: one set of bits.
    assert_eq!(holds("u[0] == 4294967295"), Ok(true));
    assert_eq!(holds("u[0] == -1"), Ok(true));
    assert_eq!(
        holds("u[0] == 4294967295 and i[0] == -3 and f[0] == 1.5"),
        Ok(true)
    );
}

#[test]
fn a_float_literal_needs_a_float_cell_and_floats_are_not_ordered() {
    let e = holds("i[0] == 1.5").unwrap_err();
    assert!(
        e.contains("`1.5` is a float, but the location holds an integer"),
        "{e}"
    );
    let e = holds("f[0] < 2.0").unwrap_err();
    assert!(e.contains("on a float location (f32)"), "{e}");
}

#[test]
fn the_outcome_a_race_suggests_reads_back() {
    // Every invocation stores `x` to its own cell and invocation 1 reads
    // cell 0, which invocation 0 writes, unordered: a race, whose state
    // the report offers to explain, floats written as floats.
    let dir = std::env::temp_dir().join(format!("vkmm-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("race.wgsl");
    std::fs::write(
        &file,
        "@group(0) @binding(0) var<storage, read_write> v: array<f32, 2>;\n@compute @workgroup_size(2)\nfn main(@builtin(local_invocation_index) i: u32) {\n    v[i] = v[0] + 0.5;\n}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (_, out, _) = vkmm(&["check", f]);
    let outcome = out
        .lines()
        .find_map(|l| l.split("--outcome '").nth(1))
        .and_then(|rest| rest.strip_suffix('\''))
        .unwrap_or_else(|| panic!("no outcome offered: {out}"));
    assert!(outcome.contains(".5"), "{outcome}");
    let (code, out, err) = vkmm(&["explain", f, "--outcome", outcome]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("is ALLOWED"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn inputs_take_float_literals_at_the_cells_width() {
    // The same inputs on the command line, as float literals and as the
    // bits of 1.0 (0x3F800000): both give f[2] = 1.0 / 0.0 = inf.
    for given in ["ins=1.0,0.0", "ins=1065353216,0"] {
        let (code, out, err) = vkmm(&["check", "--input", given, FILE]);
        assert_eq!(code, 0, "{given}: {out}{err}");
        assert!(out.contains("f[2]=inf;"), "{given}: {out}");
    }
    // 2.0 / 0.5 = 4.0.
    let (_, out, _) = vkmm(&["check", "--input", "ins=2.0,0.5", FILE]);
    assert!(out.contains("f[2]=4.0;"), "{out}");
    // A float literal for an integer cell is an error naming the cell.
    let (code, _, err) = vkmm(&["check", "--dispatch", DISPATCH, "--input", "i=1.5", FILE]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("input `i` (`--input i=1.5`): cell 0: `1.5` is a float, but the location holds an integer (i32)"),
        "{err}"
    );
}

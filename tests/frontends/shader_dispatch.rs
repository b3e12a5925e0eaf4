//! Shaders checked as written, with the dispatch, constants and inputs on
//! the command line or in a manifest (docs/checking-your-shader.md). The
//! fixtures are in tests/fixtures/shader-dispatch/, each row's verdict derived by
//! hand in its manifest's `reasoning` column. They need glslangValidator:
//! without it they fail under CI and print SKIPPED elsewhere.

use crate::common;
use common::{glslang, vkmm};

use std::path::Path;

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

#[test]
fn the_manifest_rows_get_their_hand_derived_verdicts() {
    if !glslang() {
        return;
    }
    let (code, out, err) = vkmm(&[
        "suite",
        "--manifest",
        &root("tests/fixtures/shader-dispatch/manifest.csv"),
        "--inputs",
        &root("tests/fixtures/shader-dispatch/inputs.toml"),
        "--format",
        "json",
        "-j",
        "1",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let records = v["records"].as_array().expect("records");
    assert_eq!(records.len(), 8, "{out}");
    let expected = [
        "holds",
        "fails",
        "racy",
        "race-free",
        "race-free",
        "racy",
        "race-free",
        "racy",
    ];
    for (r, e) in records.iter().zip(expected) {
        assert_eq!(r["status"], "passed", "{r}");
        assert_eq!(r["expected"], e, "{r}");
        assert_eq!(r["actual"], e, "{r}");
    }
}

#[test]
fn a_wrong_expectation_fails_the_suite() {
    if !glslang() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("vkmm-dispatch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = root("tests/fixtures/shader-dispatch/sized.comp");
    let csv = dir.join("m.csv");
    std::fs::write(
        &csv,
        format!(
            "file,entry,local_size,workgroups,defines,set,inputs,property,expected\n\
             {shader},main,\"2,1,1\",\"1,1,1\",,LG_N=1,zero,races,race-free\n"
        ),
    )
    .unwrap();
    let toml = dir.join("in.toml");
    std::fs::write(
        &toml,
        format!("[[shader]]\nfile = \"{shader}\"\n[shader.inputs]\nOut = {{ length = 3 }}\n"),
    )
    .unwrap();
    let (code, out, err) = vkmm(&[
        "suite",
        "--manifest",
        &csv.display().to_string(),
        "--inputs",
        &toml.display().to_string(),
        "--format",
        "json",
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 1, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["records"][0]["status"], "failed");
    assert_eq!(v["records"][0]["actual"], "racy");
}

#[test]
fn the_declared_workgroup_size_runs_without_a_dispatch() {
    if !glslang() {
        return;
    }
    let (code, out, err) = vkmm(&[
        "check",
        &root("tests/fixtures/shader-dispatch/last-one.comp"),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    // Two invocations: the states show the buffer as the shader names
    // it (`b.count`, `b.done`, not the module's `%b[0]`, `%b[1]`): two increments leave count at 2, and the one
    // whose increment returns 1 then reads 2 into done (one invocation
    // alone would leave count at 1 and done at 0).
    assert!(out.contains(":> b.count=2; b.done=2;"), "{out}");
    assert!(!out.contains("P0:"), "registers are not shown: {out}");
}

#[test]
fn a_size_too_large_names_local_size() {
    if !glslang() {
        return;
    }
    let (code, _, err) = vkmm(&["check", &root("tests/fixtures/shader-dispatch/big.comp")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("512 invocations") && err.contains("--local-size"),
        "{err}"
    );
    let (code, out, err) = vkmm(&[
        "check",
        "--local-size",
        "2",
        &root("tests/fixtures/shader-dispatch/big.comp"),
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
}

#[test]
fn bad_dispatch_arguments_are_named() {
    if !glslang() {
        return;
    }
    let big = root("tests/fixtures/shader-dispatch/big.comp");
    let cases: [(&[&str], &str); 5] = [
        (
            &["--entry", "nope"],
            "no entry point named nope (its entry points: main)",
        ),
        (&["--set", "NOPE=1"], "no `#define NOPE` line"),
        (
            &["--local-size", "2", "--input", "nope=0"],
            "the shader's: b (block B, 0.0)",
        ),
        (
            &["--local-size", "2", "--input", "b.y=0"],
            "no member `y` (members: x)",
        ),
        (
            &["--local-size", "3", "--subgroup-size", "2"],
            "--subgroup-size",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        all.push(&big);
        let (code, _, err) = vkmm(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let (code, _, err) = vkmm(&["check", "--local-size", "0", &big]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("X[,Y[,Z]]"), "{err}");
}

#[test]
fn a_dispatch_file_gives_the_dispatch_and_the_command_line_wins() {
    if !glslang() {
        return;
    }
    let shader = root("tests/fixtures/shader-dispatch/sized.comp");
    let file = root("tests/fixtures/shader-dispatch/sized.dispatch.toml");
    // The file: two invocations, N = 2: invocation 1 reads out_buf[0]
    // while invocation 0 writes it.
    let (code, out, err) = vkmm(&["check", "--property", "races", "--dispatch", &file, &shader]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: yes"), "{out}");
    // The command line's --set wins: N = 256, invocation 255 does not
    // exist at two invocations, nobody reads.
    let (code, out, err) = vkmm(&[
        "check",
        "--property",
        "races",
        "--dispatch",
        &file,
        "--set",
        "LG_N=8",
        "--length",
        "Out=257",
        &shader,
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: none"), "{out}");
    // A bad file is named with its line.
    let dir = std::env::temp_dir().join(format!("vkmm-dispatch-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "local_size = 2\ncolour = 1\n").unwrap();
    let (code, _, err) = vkmm(&["check", "--dispatch", &bad.display().to_string(), &shader]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown key `colour`"), "{err}");
}

#[test]
fn a_large_buffer_costs_the_cells_the_accesses_reach() {
    if !glslang() {
        return;
    }
    // 65540 words, more than a variable may have located cells: only the
    // cells the accesses reach get locations (docs/format-spirv.md,
    // "Large buffers"). Race-free: the atomic add returns 0, 1, 2, 3 to
    // the four iterations (RMW atomicity), so every plain store goes to a
    // slot of its own, 65536 to 65539; mem[0] is only accessed atomically.
    let shader = root("tests/fixtures/shader-dispatch/bump.comp");
    let run = |racy: bool| {
        let mut args = vec!["check", "--property", "races", "--length", "Mem=65540"];
        if racy {
            args.extend(["-D", "RACY"]);
        }
        args.push(&shader);
        vkmm(&args)
    };
    let (code, out, err) = run(false);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: none"), "{out}");
    assert!(!out.contains("out-of-bounds"), "{out}");
    // Racy: both invocations read 0 from mem[1], which nobody writes, and
    // store to mem[65536] with nothing ordering the two stores. A search
    // that missed the slot would drop the stores and find no race.
    let (code, out, err) = run(true);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: yes"), "{out}");
    assert!(out.contains("[65536]: P0"), "{out}");
}

/// `vkmm check --property races FILE ARGS`: (exit code, stdout, stderr).
fn races(file: &str, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["check", "--property", "races"];
    all.extend_from_slice(args);
    all.push(file);
    vkmm(&all)
}

#[test]
fn memory_nobody_initialises_starts_at_zero_in_every_format() {
    if !glslang() {
        return;
    }
    // One shader in each format (tests/fixtures/shader-dispatch/uninit.*; the
    // `.spvasm` is the GLSL one compiled and disassembled, the `.spv` that
    // text assembled): two invocations store to the output only when the
    // input word is not 0. Nobody initialises it, so it is 0
    // (docs/checking-your-shader.md, "Inputs"): no store, race-free. Given
    // any other value, both store, unordered: racy (which shows the
    // input is read at all).
    let dir = std::env::temp_dir().join(format!("vkmm-uninit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spvasm = root("tests/fixtures/shader-dispatch/uninit.spvasm");
    let spv = dir.join("uninit.spv");
    let assembled = std::process::Command::new("spirv-as")
        .args(["--target-env", "vulkan1.3", &spvasm, "-o"])
        .arg(&spv)
        .status()
        .is_ok_and(|s| s.success());
    let mut files = vec![
        (root("tests/fixtures/shader-dispatch/uninit.comp"), "inb"),
        (root("tests/fixtures/shader-dispatch/uninit.wgsl"), "flag"),
        (root("tests/fixtures/shader-dispatch/uninit.hlsl"), "0.0"),
        (spvasm.clone(), "inb"),
    ];
    if assembled {
        files.push((spv.display().to_string(), "inb"));
    } else {
        common::skip("spirv-as is not installed (Debian `spirv-tools`): the .spv is left out");
    }
    for (file, input) in &files {
        // HLSL names its entry point.
        let entry: &[&str] = if file.ends_with(".hlsl") {
            &["--entry", "main"]
        } else {
            &[]
        };
        let (code, out, err) = races(file, entry);
        assert_eq!(code, 0, "{file}: {out}\n{err}");
        assert!(out.contains("Data races: none"), "{file}: {out}");
        let given = format!("{input}=1");
        let mut args = entry.to_vec();
        args.extend(["--input", &given]);
        let (code, out, err) = races(file, &args);
        assert_eq!(code, 0, "{file}: {out}\n{err}");
        assert!(out.contains("Data races: yes"), "{file}: {out}");
    }
    // The same `.spvasm` with a Dat3M header is one of Dat3M's tests,
    // read as Dat3M reads it: the word is undefined, may be nonzero, and
    // the stores race.
    let text = std::fs::read_to_string(&spvasm).unwrap();
    let dat3m = dir.join("uninit-dat3m.spvasm");
    std::fs::write(&dat3m, format!("; @Config: 2, 1, 1\n{text}")).unwrap();
    let (code, out, err) = races(&dat3m.display().to_string(), &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: yes"), "{out}");
}

#[test]
fn a_dispatch_file_beside_the_shader_applies_under_the_command_line() {
    if !glslang() {
        return;
    }
    // sized.comp with sized.comp.dispatch.toml beside it (a copy of
    // tests/fixtures/shader-dispatch/sized.dispatch.toml: two invocations, LG_N =
    // 1, where invocation 1 reads out_buf[0] while invocation 0 writes
    // it: racy).
    let dir = std::env::temp_dir().join(format!("vkmm-beside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = dir.join("sized.comp");
    std::fs::copy(root("tests/fixtures/shader-dispatch/sized.comp"), &shader).unwrap();
    let beside = dir.join("sized.comp.dispatch.toml");
    std::fs::copy(
        root("tests/fixtures/shader-dispatch/sized.dispatch.toml"),
        &beside,
    )
    .unwrap();
    let shader = shader.display().to_string();
    let (code, out, err) = races(&shader, &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: yes"), "{out}");
    // The output says which file applied.
    let said = format!(
        "the dispatch file {} beside the shader applies",
        beside.display()
    );
    assert!(out.contains(&said) || err.contains(&said), "{out}\n{err}");
    // The command line wins: N = 256, invocation 255 does not exist at
    // two invocations, nobody reads.
    let (code, out, err) = races(&shader, &["--set", "LG_N=8", "--length", "Out=257"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: none"), "{out}");
    // A file named with --dispatch replaces it: one invocation, no race.
    let other = dir.join("one.toml");
    std::fs::write(
        &other,
        "local_size = 1\nset = { LG_N = 1 }\n[inputs]\nOut = { length = 3 }\n",
    )
    .unwrap();
    let (code, out, err) = races(&shader, &["--dispatch", &other.display().to_string()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Data races: none"), "{out}");
    assert!(
        !out.contains("beside the shader") && !err.contains("beside the shader"),
        "{out}\n{err}"
    );
    // A bad file beside the shader is an error naming it.
    std::fs::write(&beside, "colour = 1\n").unwrap();
    let (code, _, err) = races(&shader, &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("sized.comp.dispatch.toml") && err.contains("unknown key `colour`"),
        "{err}"
    );
}

/// A manifest of one row in a fresh folder (`vkmm-NAME-PID` under the
/// temporary folder): last-one.comp at 2 invocations, asserting `b[1] ==
/// 2`, which holds. Returns the folder, the shader's path and the
/// manifest's.
fn one_row_manifest(name: &str) -> (std::path::PathBuf, String, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("vkmm-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = root("tests/fixtures/shader-dispatch/last-one.comp");
    let manifest = dir.join("manifest.csv");
    std::fs::write(
        &manifest,
        format!(
            "file,entry,local_size,workgroups,property,expected\n{shader},main,\"2,1,1\",\"1,1,1\",assertion: b[1] == 2 in every execution,holds\n"
        ),
    )
    .unwrap();
    (dir, shader, manifest)
}

/// Every error in a suite's inputs file names the file, the line and
/// column of the value at fault (of the key, where the key is unknown; of
/// the `[[shader]]` table, where a key it needs is missing) and the key;
/// exit 2. An input or condition the shader refuses names them too.
#[test]
fn an_inputs_file_names_the_line_column_and_key_of_each_error() {
    let (dir, shader, manifest) = one_row_manifest("inputs-file");
    let inputs = dir.join("inputs.toml");
    let shown = inputs.display().to_string();
    let run = |text: &str| {
        std::fs::write(&inputs, text).unwrap();
        vkmm(&[
            "suite",
            "--manifest",
            &manifest.display().to_string(),
            "--inputs",
            &shown,
        ])
    };
    // Read before any shader: no compiler needed.
    for (text, says) in [
        (
            "[[shader]]\nfile = \"x\"\n[shader.inputs]\nb = { length = 0 }\n",
            format!("{shown}:4:16: shader 1 (x): `inputs.b.length`: expected 1 to 1048576"),
        ),
        (
            "[[shader]]\nfile = \"x\"\n\n[[shader]]\nentry = 3\nfile = \"y\"\n",
            format!("{shown}:5:9: shader 2 (y): `entry`: expected a string"),
        ),
        (
            "[[shader]]\nfile = \"y\"\nrows = [1, \"a\"]\n",
            format!("{shown}:3:8: shader 1 (y): `rows`: expected row numbers"),
        ),
        (
            "[[shader]]\nfile = \"x\"\n\n[[shader]]\nentry = \"main\"\n",
            format!("{shown}:4:1: shader 2: expected `file = \"...\"`"),
        ),
        (
            "colour = 1\n",
            format!("{shown}:1:1: unknown key `colour`: expected [[shader]] tables"),
        ),
        (
            "[[shader]]\nfile = \"x\"\n  colour = 1\n",
            format!("{shown}:3:3: shader 1 (x): unknown key `colour`: expected local_size"),
        ),
        (
            "[[shader]]\nfile = \"x\"\n[shader.inputs]\nb = { length = 2, x = 1 }\n",
            format!(
                "{shown}:4:19: shader 1 (x): `inputs.b.x`: a member beside length/fill/values/extent"
            ),
        ),
        (
            "[[shader]]\nfile = \"x\"\n[shader.inputs]\nb = { fill = \"some\" }\n",
            format!(
                "{shown}:4:14: shader 1 (x): `inputs.b.fill`: expected \"zero\" or \"arbitrary\""
            ),
        ),
        (
            "[[shader]]\nfile = \"x\"\n[shader.inputs]\nb.c = { values = [1, \"a\"] }\n",
            format!("{shown}:4:18: shader 1 (x): `inputs.b.c.values`: expected numbers"),
        ),
        (
            "[[shader]]\nfile = \"x\"\n[shader.extent]\nimg = \"2y3\"\n",
            format!("{shown}:4:7: shader 1 (x): `extent.img`: expected an extent WxH[xD...]"),
        ),
        (
            "[[shader]]\nfile = \"x\"\nlocal_size = [2,\n",
            format!("{shown}:3:17: "),
        ),
    ] {
        let (code, out, err) = run(text);
        assert_eq!(code, 2, "{text}: {out}{err}");
        assert!(err.contains(&says), "{text}: {err}");
    }
    if glslang() {
        // Read against the shader: the input and the condition name the
        // file, line, column and key they are written at.
        let (code, out, err) = run(&format!(
            "[[shader]]\nfile = {shader:?}\n[shader.inputs]\nnope = 1\n"
        ));
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            out.contains(&format!(
                "input `nope` ({shown}:4:8, key `inputs.nope` of [[shader]] 1): no buffer"
            )),
            "{out}"
        );
        let (code, out, err) = run(&format!(
            "[[shader]]\nfile = {shader:?}\ncondition = \"b[1] === 2\"\n"
        ));
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            out.contains(&format!(
                "{shown}:3:13: condition of [[shader]] 1 `b[1] === 2`: column 8: expected"
            )),
            "{out}"
        );
        // A `set` the shader has no place for: at its key, not as an
        // option the command line never gave.
        let (code, out, err) = run(&format!(
            "[[shader]]\nfile = {shader:?}\nset = {{ NOPE = 3 }}\n"
        ));
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            out.contains(&format!(
                "{shown}:3:16, key `set.NOPE` of [[shader]] 1: set NOPE=3: the shader has no `#define NOPE`"
            )),
            "{out}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `rows` number of an inputs file that names no row of the manifest
/// (0, or past its data rows) is an error at the number's line and column
/// naming the manifest's row count, exit 2; the table still applies to
/// the rows it does name, and they run (docs/checking-your-shader.md,
/// "Manifests": `rows` are "data rows, from 1").
#[test]
fn a_row_number_the_manifest_lacks_is_an_error_at_its_place() {
    // By hand: without inputs `b.done` ends 2 (the second add sees 1); with
    // `b.count` starting at 5 no add sees 1 and `b.done` keeps its 7, so
    // the row passes only under the table's inputs and condition.
    let (dir, shader, manifest) = one_row_manifest("inputs-rows");
    let inputs = dir.join("inputs.toml");
    std::fs::write(
        &inputs,
        format!(
            "[[shader]]\nfile = {shader:?}\nrows = [1,\n  2, 0]\ncondition = \"b[1] == 7\"\n[shader.inputs]\nb.count = 5\nb.done = 7\n"
        ),
    )
    .unwrap();
    let shown = inputs.display().to_string();
    let (code, out, err) = vkmm(&[
        "suite",
        "--manifest",
        &manifest.display().to_string(),
        "--inputs",
        &shown,
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 2, "{out}{err}");
    for (place, n) in [("4:3", 2), ("4:6", 0)] {
        let says = format!(
            "ERROR {shown}:{place}: shader 1 ({shader}): `rows`: no row {n}: {} has 1 data row",
            manifest.display()
        );
        assert!(out.contains(&says), "{says}\n{out}");
    }
    if glslang() {
        assert!(out.contains("1 passed, 0 failed"), "{out}");
    }
}

/// A dispatch file's `set` the shader has no place for is named at the
/// file's line, column and key; the same name given again on the command
/// line (which wins) is named as the option.
#[test]
fn a_dispatch_files_set_is_named_at_its_key_unless_the_command_line_replaced_it() {
    if !glslang() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("vkmm-dispatch-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("run.toml");
    std::fs::write(&file, "local_size = 2\nset = { NOPE = 1 }\n").unwrap();
    let shown = file.display().to_string();
    let shader = root("tests/fixtures/shader-dispatch/last-one.comp");
    let (code, _, err) = vkmm(&["check", "--dispatch", &shown, &shader]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{shown}:2:16, key `set.NOPE`: set NOPE=1: the shader has no `#define NOPE`"
        )),
        "{err}"
    );
    let (code, _, err) = vkmm(&["check", "--dispatch", &shown, "--set", "NOPE=2", &shader]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--set NOPE=2: the shader has no `#define NOPE`") && !err.contains(&shown),
        "{err}"
    );
}

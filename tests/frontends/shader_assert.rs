//! `vkmm check --assert CONDITION`: a final condition for a shader in
//! any format, in the words of a manifest's assertion column
//! (docs/checking-your-shader.md, "A condition on the final memory"). The
//! fixtures are tests/fixtures/shader-dispatch/uninit.* (one shader per format) and
//! examples/shaders/counter.wgsl. They need glslangValidator: without it
//! they fail under CI and print SKIPPED elsewhere.

use crate::common;
use common::{glslang, vkmm};

/// `vkmm check --format json ARGS FILE`: the exit code, the first
/// result's `condition`, `condition_holds`, and stderr.
fn assert_json(file: &str, args: &[&str]) -> (i32, String, Option<bool>, String) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    all.push(file);
    let (code, out, err) = vkmm(&all);
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&out) else {
        return (code, String::new(), None, err);
    };
    let r = &v["results"][0];
    (
        code,
        r["condition"].as_str().unwrap_or_default().to_string(),
        r["condition_holds"].as_bool(),
        err,
    )
}

#[test]
fn a_condition_in_the_manifest_words_for_every_format() {
    if !glslang() {
        return;
    }
    // uninit.*: two invocations each store their local id (0, 1) to one
    // output word when the input word is nonzero. Given 1, both store, in
    // either coherence order: the word ends 0 in some execution and 1 in
    // another, so `== 1 in some execution` holds and `== 0 in every
    // execution` fails. Left at 0 (nobody initialises it), nobody stores:
    // the word keeps its 0, and `== 0 in every execution` holds.
    let dir = std::env::temp_dir().join(format!("vkmm-assert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spvasm = "tests/fixtures/shader-dispatch/uninit.spvasm";
    let spv = dir.join("uninit.spv");
    let assembled = std::process::Command::new("spirv-as")
        .args(["--target-env", "vulkan1.3", spvasm, "-o"])
        .arg(&spv)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .is_ok_and(|s| s.success());
    // (file, the input's name, the output word's name as the shader
    // spells it, the entry option)
    let mut files: Vec<(String, &str, &str, &[&str])> = vec![
        (
            "tests/fixtures/shader-dispatch/uninit.comp".into(),
            "inb",
            "outb.v",
            &[],
        ),
        (
            "tests/fixtures/shader-dispatch/uninit.wgsl".into(),
            "flag",
            "out",
            &[],
        ),
        (
            "tests/fixtures/shader-dispatch/uninit.hlsl".into(),
            "0.0",
            "outb[0]",
            &["--entry", "main"],
        ),
        (spvasm.into(), "inb", "outb.v", &[]),
    ];
    if assembled {
        files.push((spv.display().to_string(), "inb", "outb.v", &[]));
    } else {
        common::skip("spirv-as is not installed (Debian `spirv-tools`): the .spv is left out");
    }
    for (file, input, word, entry) in &files {
        let one = format!("{input}=1");
        let run = |condition: String, given: bool| {
            let mut args = entry.to_vec();
            if given {
                args.extend(["--input", &one]);
            }
            args.extend(["--assert", &condition]);
            assert_json(file, &args)
        };
        let (code, text, holds, err) = run(format!("{word} == 1 in some execution"), true);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(text.starts_with("exists ("), "{file}: {text}");
        assert_eq!(holds, Some(true), "{file}: {text}");
        let (code, text, holds, err) = run(format!("{word} == 0 in every execution"), true);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(text.starts_with("forall ("), "{file}: {text}");
        assert_eq!(holds, Some(false), "{file}: {text}");
        // Dat3M's spelling reads the same.
        let (code, _, holds, err) = run(format!("forall ({word} == 0)"), true);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(holds, Some(false), "{file}");
        let (code, _, holds, err) = run(format!("{word} == 0 in every execution"), false);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(holds, Some(true), "{file}");
        let (code, _, holds, err) = run(format!("{word} == 1 in no execution"), false);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(holds, Some(true), "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_wgsl_array_is_named_as_the_shader_names_it() {
    if !glslang() {
        return;
    }
    // counter.wgsl at two invocations: both add 1 to the workgroup
    // counter before workgroupBarrier, which orders the adds before
    // invocation 0's load (WGSL: "workgroupBarrier ... affects memory and
    // atomic operations in the workgroup address space"), so out[0] is 2
    // in every execution. naga wraps `out` in a struct: the cell is
    // `%out[0][0]`, named `out[0]` as in the shader.
    let file = "examples/shaders/counter.wgsl";
    let args = ["--local-size", "2", "--length", "out=1", "--assert"];
    let mut every = args.to_vec();
    every.push("out[0] == 2 in every execution");
    let (code, text, holds, err) = assert_json(file, &every);
    assert_eq!(code, 0, "{err}");
    assert_eq!(text, "forall (out[0] == 2)");
    assert_eq!(holds, Some(true));
    let mut one = args.to_vec();
    one.push("out[0] == 1 in some execution");
    let (_, _, holds, _) = assert_json(file, &one);
    assert_eq!(holds, Some(false));
}

#[test]
fn a_bad_condition_names_the_option_and_the_column() {
    if !glslang() {
        return;
    }
    let file = "examples/shaders/counter.wgsl";
    let check = |condition: &str| {
        vkmm(&[
            "check",
            "--local-size",
            "2",
            "--length",
            "out=1",
            "--assert",
            condition,
            file,
        ])
    };
    // `===`: the second `=` at column 10 starts no operand.
    let (code, _, err) = check("out[0] === 2");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--assert `out[0] === 2`: column 10: expected"),
        "{err}"
    );
    // A name the shader does not have, at column 17.
    let (code, _, err) = check("out[0] == 2 and nothing == 1 in every execution");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("column 17: unknown location `%nothing`"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // A litmus test states its own condition.
    let (code, _, err) = vkmm(&[
        "check",
        "--assert",
        "x == 1",
        "tests/fixtures/litmus-bound/atomic-in-cut-loop.litmus",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--assert gives a shader"), "{err}");
}

/// A copy of counter.wgsl in a fresh folder of its own, with `dispatch`
/// beside it as `counter.wgsl.dispatch.toml` (none when empty).
fn counter_with(tag: &str, dispatch: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vkmm-assert-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("counter.wgsl");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shaders/counter.wgsl"),
        &file,
    )
    .unwrap();
    if !dispatch.is_empty() {
        std::fs::write(dir.join("counter.wgsl.dispatch.toml"), dispatch).unwrap();
    }
    file
}

#[test]
fn a_dispatch_file_carries_the_condition_and_the_command_line_wins() {
    if !glslang() {
        return;
    }
    // counter.wgsl at two invocations: out[0] is 2 in every execution
    // (both adds come before workgroupBarrier, which orders them before
    // invocation 0's load; a_wgsl_array_is_named_as_the_shader_names_it).
    // The dispatch file beside it asks for 3: the condition fails.
    let dispatch = "local_size = [2, 1, 1]\nassert = \"out[0] == 3 in every execution\"\n\n[inputs]\nout = { length = 1 }\n";
    let file = counter_with("beside", dispatch);
    let shader = file.display().to_string();
    let (code, text, holds, err) = assert_json(&shader, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(text, "forall (out[0] == 3)");
    assert_eq!(holds, Some(false));
    // `--assert` replaces the file's condition (the file's dispatch and
    // inputs still apply): 2 holds.
    let (code, text, holds, err) =
        assert_json(&shader, &["--assert", "out[0] == 2 in every execution"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(text, "forall (out[0] == 2)");
    assert_eq!(holds, Some(true));
    // A file named with --dispatch carries it the same way: 2 in some
    // execution holds.
    let dir = file.parent().unwrap();
    let named = dir.join("other.toml");
    std::fs::write(
        &named,
        "local_size = 2\nassert = \"exists (out[0] == 2)\"\n[inputs]\nout = { length = 1 }\n",
    )
    .unwrap();
    let (code, text, holds, err) =
        assert_json(&shader, &["--dispatch", &named.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(text, "exists (out[0] == 2)");
    assert_eq!(holds, Some(true));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bad_condition_in_a_dispatch_file_names_the_file() {
    if !glslang() {
        return;
    }
    let file = counter_with(
        "bad",
        "local_size = 2\nassert = \"out[0] === 2\"\n[inputs]\nout = { length = 1 }\n",
    );
    let shader = file.display().to_string();
    let (code, _, err) = vkmm(&["check", &shader]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("counter.wgsl.dispatch.toml:2:10: assert `out[0] === 2`: column 10: expected"),
        "{err}"
    );
    // Not a string: the key is named.
    std::fs::write(
        file.with_file_name("counter.wgsl.dispatch.toml"),
        "local_size = 2\nassert = 3\n",
    )
    .unwrap();
    let (code, _, err) = vkmm(&["check", &shader]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("counter.wgsl.dispatch.toml")
            && err.contains("`assert`: expected a condition in a string"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(file.parent().unwrap()).unwrap();
}

#[test]
fn dispatch_and_inputs_files_read_assert_and_condition_alike() {
    if !glslang() {
        return;
    }
    // counter.wgsl at two invocations: out[0] is 2 in every execution
    // (a_dispatch_file_carries_the_condition_and_the_command_line_wins).
    // A dispatch file's `condition` is its `assert`: 3 fails, 2 holds.
    for (asked, holds) in [("3", false), ("2", true)] {
        let head = format!(
            "local_size = [2, 1, 1]\ncondition = \"out[0] == {asked} in every execution\"\n"
        );
        let inputs = "[inputs]\nout = { length = 1 }\n";
        let file = counter_with(&format!("condition{asked}"), &format!("{head}{inputs}"));
        let (code, text, got, err) = assert_json(&file.display().to_string(), &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(text, format!("forall (out[0] == {asked})"));
        assert_eq!(got, Some(holds), "{asked}");
        // Both names at once: one key given twice, an error naming both.
        std::fs::write(
            file.with_file_name("counter.wgsl.dispatch.toml"),
            format!("{head}assert = \"out[0] == 2 in every execution\"\n{inputs}"),
        )
        .unwrap();
        let (code, _, err) = vkmm(&["check", &file.display().to_string()]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("`assert` and `condition` are the same key"),
            "{err}"
        );
        std::fs::remove_dir_all(file.parent().unwrap()).unwrap();
    }
    // A suite's inputs file reads `assert` as it reads `condition`: the
    // manifest's words ask for 5 (fails), the inputs file's key replaces
    // them with 2 (holds), under either name.
    for key in ["condition", "assert"] {
        let file = counter_with(&format!("suite-{key}"), "");
        let dir = file.parent().unwrap();
        std::fs::write(
            dir.join("m.csv"),
            "file,entry,local_size,workgroups,defines,set,inputs,property,expected\n\
             counter.wgsl,main,\"2,1,1\",\"1,1,1\",,,out: zero,assertion: out[0] == 5 in every execution,holds\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("in.toml"),
            format!(
                "[[shader]]\nfile = \"counter.wgsl\"\n{key} = \"out[0] == 2 in every execution\"\n[shader.inputs]\nout = {{ length = 1 }}\n"
            ),
        )
        .unwrap();
        let (code, out, err) = vkmm(&[
            "suite",
            "--manifest",
            &dir.join("m.csv").display().to_string(),
            "--inputs",
            &dir.join("in.toml").display().to_string(),
        ]);
        assert_eq!(code, 0, "{key}: {out}\n{err}");
        assert!(out.contains("1 passed, 0 failed"), "{key}: {out}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

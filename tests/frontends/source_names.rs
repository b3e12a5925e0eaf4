//! A compiled shader's memory named as its source names it, in final
//! states, races, conditions and `explain --outcome`; the warnings for
//! buffers and images left at their default size; `--extent` and the
//! image size queries that read it (docs/reading-output.md, "Names";
//! docs/checking-your-shader.md). Fixtures: tests/fixtures/source-names/.
//! They need glslangValidator: without it they fail under CI and print
//! SKIPPED elsewhere.

use crate::common;
use common::{glslang, vkmm};

use std::path::Path;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/source-names")
        .join(name)
        .display()
        .to_string()
}

/// `vkmm check FILE ARGS`: exit code, stdout, stderr.
fn check(file: &str, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["check", file];
    all.extend_from_slice(args);
    vkmm(&all)
}

/// The final states' lines (`1        :> a=1; b=2;`), their memory part.
fn states(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.split_once(":> ").map(|(_, s)| s.trim().to_string()))
        .collect()
}

/// The condition that a state `a=1; b=2;` describes: `a == 1 and b == 2`.
fn condition_of(state: &str) -> String {
    state
        .split(';')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| c.replacen('=', " == ", 1))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Checks that the one final state of `file` is `expected` (names and
/// values derived by hand in each caller), and that `--assert` takes the
/// same names back: the state as a condition holds in every execution,
/// and with its first value changed it holds in none.
fn named_state(file: &str, args: &[&str], expected: &str) {
    let (code, out, err) = check(file, args);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(states(&out), [expected], "{out}");
    let cond = condition_of(expected);
    let mut with = args.to_vec();
    let every = format!("{cond} in every execution");
    with.extend(["--assert", &every]);
    let (code, out, err) = check(file, &with);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Always"), "{every}: {out}");
    // The condition as reported: the names as written.
    assert!(out.contains(&format!("Condition forall ({cond})")), "{out}");
    let (first, rest) = cond.split_once(" and ").unwrap_or((&cond, ""));
    let (name, value) = first.split_once(" == ").unwrap();
    let changed: i64 = value.parse::<i64>().unwrap() + 100;
    let wrong = if rest.is_empty() {
        format!("{name} == {changed} in some execution")
    } else {
        format!("{name} == {changed} and {rest} in some execution")
    };
    let mut with = args.to_vec();
    with.extend(["--assert", &wrong]);
    let (code, out, err) = check(file, &with);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Never"), "{wrong}: {out}");
}

#[test]
fn glsl_blocks_are_named_by_instance_block_type_and_member() {
    if !glslang() {
        return;
    }
    // blocks.comp at 2 workgroups of 2: invocation i (global) writes
    // buf.data[i] = i + 1; invocation 0 of workgroup w writes seen = 5 + w
    // and, after the barrier, invocation l of it writes state[i].b =
    // seen + l: 5, 6 in workgroup 0 and 6, 7 in workgroup 1; invocation 0
    // sets flag. Nothing races, so one state. The anonymous block is
    // named by its type, StateBuf; `.a` is never written, so not shown.
    let args = [
        "--workgroups",
        "2",
        "--length",
        "buf=4",
        "--length",
        "StateBuf=4",
    ];
    named_state(
        &fixture("blocks.comp"),
        &args,
        "buf.data[0]=1; buf.data[1]=2; buf.data[2]=3; buf.data[3]=4; StateBuf.flag=1; StateBuf.state[0].b=5; StateBuf.state[1].b=6; StateBuf.state[2].b=6; StateBuf.state[3].b=7;",
    );
    // A workgroup's instance, and the module's spelling kept working
    // (`%buf[0][3]`: the block's member 0, element 3).
    let mut with = args.to_vec();
    with.extend([
        "--assert",
        "seen@wg1 == 6 and seen@wg0 == 5 and %buf[0][3] == 4",
    ]);
    let (code, out, err) = check(&fixture("blocks.comp"), &with);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Condition forall (seen@wg1 == 6 and seen@wg0 == 5 and buf.data[3] == 4)"),
        "{out}"
    );
    assert!(out.contains("Always"), "{out}");
    // `explain --outcome` reads the same names.
    let blocks = fixture("blocks.comp");
    let mut explain = vec!["explain", blocks.as_str()];
    explain.extend(args);
    explain.extend(["--outcome", "StateBuf.state[3].b == 7 and seen@wg1 == 6"]);
    let (code, out, err) = vkmm(&explain);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("outcome `StateBuf.state[3].b == 7 and seen@wg1 == 6` is ALLOWED"),
        "{out}"
    );
}

#[test]
fn a_wgsl_binding_is_named_without_nagas_wrapper() {
    if !glslang() {
        return;
    }
    // names.wgsl, one workgroup of 2: invocation l writes tile[l] = l + 10,
    // then after the barrier out[l] = tile[1 - l] (11, 10) and
    // totals.sum[l] = l + 1; invocation 0 sets totals.count = 2.
    named_state(
        &fixture("names.wgsl"),
        &["--length", "out=2"],
        "out[0]=11; out[1]=10; totals.count=2; totals.sum[0]=1; totals.sum[1]=2;",
    );
    let (code, out, err) = check(
        &fixture("names.wgsl"),
        &["--length", "out=2", "--assert", "tile[1] == 11"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Always"), "{out}");
}

#[test]
fn an_hlsl_structured_buffer_is_named_by_its_resource() {
    if !glslang() {
        return;
    }
    // rw.hlsl, 2 invocations: outb[i] = i + 1, pairs[i].b = 3.
    named_state(
        &fixture("rw.hlsl"),
        &["--length", "outb=2", "--length", "pairs=2"],
        "outb[0]=1; outb[1]=2; pairs[0].b=3; pairs[1].b=3;",
    );
    // A race is reported under the same names: both invocations write
    // outb[0] when every index is 0.
    let racy = std::env::temp_dir().join(format!("vkmm-names-{}.hlsl", std::process::id()));
    let text = std::fs::read_to_string(fixture("rw.hlsl"))
        .unwrap()
        .replace("outb[id.x] = id.x + 1;", "outb[0] = id.x + 1;");
    std::fs::write(&racy, text).unwrap();
    let (code, out, err) = check(
        &racy.display().to_string(),
        &["--length", "outb=2", "--length", "pairs=2"],
    );
    std::fs::remove_file(&racy).unwrap();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("race on outb[0]:"), "{out}");
}

#[test]
fn buffers_and_images_left_at_their_default_size_are_named() {
    if !glslang() {
        return;
    }
    // blocks.comp declares buf at line 8 (`buf` at column 66) and the
    // anonymous StateBuf at line 9; both end with runtime arrays (one
    // invocation: every index it takes is in the default length).
    let (code, _, err) = check(&fixture("blocks.comp"), &["--local-size", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("blocks.comp:8:66: warning: `buf` (binding 0.0) ends with a runtime-sized array that no input gives a length: vkmm checks it at 1 element; give the length the host binds with `--length buf=N`"),
        "{err}"
    );
    assert!(
        err.contains(
            "blocks.comp:9:45: warning: `StateBuf` (binding 0.1) ends with a runtime-sized array"
        ) && err.contains("`--length StateBuf=N`"),
        "{err}"
    );
    // Given one length, only the other is named.
    let (_, _, err) = check(&fixture("blocks.comp"), &["--length", "buf=2"]);
    assert!(!err.contains("`buf` (binding"), "{err}");
    assert!(err.contains("`StateBuf` (binding 0.1)"), "{err}");
    // names.wgsl declares `out` at line 6, column 48.
    let (_, _, err) = check(&fixture("names.wgsl"), &[]);
    assert!(
        err.contains(
            "names.wgsl:6:48: warning: `out` (binding 0.0) ends with a runtime-sized array"
        ),
        "{err}"
    );
    // An image without an extent, in each language, at its declaration.
    for (file, at) in [
        ("size.comp", "size.comp:5:54"),
        ("size.wgsl", "size.wgsl:3:27"),
        ("size.hlsl", "size.hlsl:3:19"),
    ] {
        let (code, _, err) = check(&fixture(file), &[]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains(&format!("{at}: warning: `img` (binding 0.0) is an image that no input gives an extent: vkmm checks it at 1 texel per coordinate; give the size the host creates with `--extent img=WxH`")),
            "{file}: {err}"
        );
        let (_, _, err) = check(&fixture(file), &["--extent", "img=2x3"]);
        assert!(!err.contains("no input gives an extent"), "{file}: {err}");
    }
}

#[test]
fn the_extent_option_sizes_an_image_and_its_size_query() {
    if !glslang() {
        return;
    }
    // size.*: invocation i stores i + 3 at texel (i, 1); invocation 0
    // writes the image's size query into o.w, o.h. At 2x3: (0,1) and
    // (1,1) are in the image, and the query says 2, 3.
    for (file, out) in [
        ("size.comp", "img[0][1]=3; img[1][1]=4; o.w=2; o.h=3;"),
        ("size.wgsl", "img[0][1]=3; img[1][1]=4; o.w=2; o.h=3;"),
        ("size.hlsl", "img[0][1]=3; img[1][1]=4; o[0].w=2; o[0].h=3;"),
    ] {
        named_state(&fixture(file), &["--extent", "img=2x3"], out);
    }
    // Without it the image is 1x1: both stores fall outside it and the
    // query says 1, 1.
    let (code, out, _) = check(&fixture("size.comp"), &[]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(states(&out), ["o.w=1; o.h=1;"], "{out}");
    // The dispatch file's spelling, beside the other settings; the
    // command line wins over it.
    let dir = std::env::temp_dir().join(format!("vkmm-extent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("size.toml");
    std::fs::write(&file, "extent = { img = \"4x2\" }\n").unwrap();
    let dispatch = file.display().to_string();
    let (code, out, err) = check(&fixture("size.comp"), &["--dispatch", &dispatch]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        states(&out),
        ["img[0][1]=3; img[1][1]=4; o.w=4; o.h=2;"],
        "{out}"
    );
    let (_, out, _) = check(
        &fixture("size.comp"),
        &["--dispatch", &dispatch, "--extent", "img=2x3"],
    );
    assert_eq!(states(&out), ["img[0][1]=3; img[1][1]=4; o.w=2; o.h=3;"]);
    // Errors name the option or key and what was expected; exit 2.
    let (code, _, err) = check(&fixture("size.comp"), &["--extent", "img=2y3"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("'--extent <TARGET=WxH[xD]>': expected an extent WxH[xD...]: 1 to 4 sizes from 1 to 65536, one per image coordinate, found `2y3`"),
        "{err}"
    );
    let (code, _, err) = check(&fixture("size.comp"), &["--extent", "img=2x3x4"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("input `img` (`--extent img=2x3x4`): the image has 2 coordinates")
            && err.contains("the extent gives 3"),
        "{err}"
    );
    let (code, _, err) = check(&fixture("size.comp"), &["--extent", "o=2"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "input `o` (`--extent o=2`): an extent is an image's size, and this is not an image"
        ),
        "{err}"
    );
    std::fs::write(&file, "extent = { img = \"0x2\" }\n").unwrap();
    let (code, _, err) = check(&fixture("size.comp"), &["--dispatch", &dispatch]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`extent.img`: expected an extent"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn extent_errors_name_the_option_or_the_file_key_and_what_was_expected() {
    if !glslang() {
        return;
    }
    let size = fixture("size.comp");
    let expected =
        "expected an extent WxH[xD...]: 1 to 4 sizes from 1 to 65536, one per image coordinate";
    // The command line: each bad form names `--extent` (clap's part for
    // the forms read before the shader; the input's own for the rest) and
    // what was expected; exit 2.
    for (arg, says) in [
        (
            "img2x3",
            "'--extent <TARGET=WxH[xD]>': expected TARGET=WxH[xD] (an image, `=`, then one size per image coordinate), found `img2x3` without `=`".to_string(),
        ),
        (
            "img=2xy",
            format!("'--extent <TARGET=WxH[xD]>': {expected}, found `y` (not a whole number) in `2xy`"),
        ),
        (
            "img=0x2",
            format!("'--extent <TARGET=WxH[xD]>': {expected}, found a size of 0 (an image has at least one texel per coordinate) in `0x2`"),
        ),
        (
            "img=2x70000",
            format!("'--extent <TARGET=WxH[xD]>': {expected}, found a size of 70000 (more than 65536) in `2x70000`"),
        ),
        (
            "img=1x1x1x1x1",
            format!("'--extent <TARGET=WxH[xD]>': {expected}, found 5 sizes (an image has at most 4 coordinates"),
        ),
        (
            "img=",
            format!("'--extent <TARGET=WxH[xD]>': {expected}, found nothing after `=`"),
        ),
        // size.comp's `img` is a 2D image: two coordinates.
        (
            "img=2x3x4",
            "size.comp: input `img` (`--extent img=2x3x4`): the image has 2 coordinates".to_string(),
        ),
        (
            "nope=2x3",
            "size.comp: input `nope` (`--extent nope=2x3`): no buffer, uniform, push constant or workgroup variable is named so (the shader's: img (0.0); o (block Out, 0.1))".to_string(),
        ),
        (
            "o=2",
            "size.comp: input `o` (`--extent o=2`): an extent is an image's size, and this is not an image".to_string(),
        ),
    ] {
        let (code, _, err) = check(&size, &["--extent", arg]);
        assert_eq!(code, 2, "{arg}: {err}");
        assert!(err.contains(&says), "{arg}: {err}");
    }
    // A dispatch file: the file, the line and column of the value, the
    // key (`extent.img`, `inputs.img.extent`) and what was expected.
    let dir = std::env::temp_dir().join(format!("vkmm-extent-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("size.toml");
    let shown = file.display().to_string();
    for (text, says) in [
        (
            "local_size = 2\nextent = { img = \"0x2\" }\n",
            format!(
                "{shown}:2:18: `extent.img`: {expected}, found a size of 0 (an image has at least one texel per coordinate) in `0x2`"
            ),
        ),
        (
            "[extent]\nimg = [2, \"3\"]\n",
            format!(
                "{shown}:2:7: `extent.img`: expected a list of 1 to 4 sizes from 1 to 65536, one per image coordinate (`[4, 4]` or \"4x4\"), found a string where a whole number goes"
            ),
        ),
        (
            "[extent]\nimg = [1, 1, 1, 1, 1]\n",
            format!(
                "{shown}:2:7: `extent.img`: expected a list of 1 to 4 sizes from 1 to 65536, one per image coordinate (`[4, 4]` or \"4x4\"), found 5 sizes"
            ),
        ),
        (
            "[inputs]\nimg = { extent = \"2y3\" }\n",
            format!(
                "{shown}:2:18: `inputs.img.extent`: {expected}, found `2y3` (not a whole number)"
            ),
        ),
        (
            "extent = 3\n",
            format!("{shown}:1:10: `extent`: expected a table IMAGE = \"WxH\" (or [W, H])"),
        ),
        // Read against the shader: the input names where it is written.
        (
            "\nextent = { img = [2, 3, 4] }\n",
            format!(
                "size.comp: input `img` ({shown}:2:18, key `extent.img`): the image has 2 coordinates"
            ),
        ),
        (
            "[extent]\nnope = \"2x3\"\n",
            format!(
                "size.comp: input `nope` ({shown}:2:8, key `extent.nope`): no buffer, uniform, push constant or workgroup variable is named so"
            ),
        ),
        // Under [inputs], what the shader refuses of a table's extent is
        // named at the extent's key, of its values at theirs.
        (
            "[inputs]\no = { extent = [2] }\n",
            format!(
                "size.comp: input `o` ({shown}:2:16, key `inputs.o.extent`): an extent is an image's size, and this is not an image"
            ),
        ),
        (
            "[inputs.img]\nfill = \"zero\"\nextent = [2, 3, 4]\n",
            format!(
                "size.comp: input `img` ({shown}:3:10, key `inputs.img.extent`): the image has 2 coordinates"
            ),
        ),
        (
            "[inputs]\nimg = { extent = [2, 2], values = [1, 2, 3] }\n",
            format!(
                "size.comp: input `img` ({shown}:2:35, key `inputs.img.values`): 3 values for 4 cells"
            ),
        ),
    ] {
        std::fs::write(&file, text).unwrap();
        let (code, _, err) = check(&size, &["--dispatch", &shown]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(&says), "{text}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_input_names_one_workgroups_copy_of_shared_memory() {
    if !glslang() {
        return;
    }
    // copies.comp: each of 2 workgroups writes o.v[0] (its id + 1) when
    // its own copy of the shared `flag` is 1.
    let file = fixture("copies.comp");
    let run = |args: &[&str]| {
        let mut all = vec!["--workgroups", "2"];
        all.extend_from_slice(args);
        check(&file, &all)
    };
    // Every copy 1: both write, a race, either value last.
    let (code, out, err) = run(&["--input", "flag=1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Data races: yes"), "{out}");
    assert_eq!(states(&out), ["o.v[0]=1;", "o.v[0]=2;"], "{out}");
    // Only workgroup 1's copy 1: it alone writes, no race.
    let (code, out, err) = run(&["--input", "flag@wg1=1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Data races: none"), "{out}");
    assert_eq!(states(&out), ["o.v[0]=2;"], "{out}");
    // A copy's entry applies over the plain one: workgroup 0's copy 0.
    let (_, out, _) = run(&["--input", "flag=1", "--input", "flag@wg0=0"]);
    assert!(out.contains("Data races: none"), "{out}");
    assert_eq!(states(&out), ["o.v[0]=2;"], "{out}");
    // The dispatch file's spelling: the copy's name as a quoted key.
    let dir = std::env::temp_dir().join(format!("vkmm-copies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let toml = dir.join("copies.toml");
    let shown = toml.display().to_string();
    std::fs::write(
        &toml,
        "workgroups = 2\n[inputs]\nflag = 1\n\"flag@wg1\" = { values = [0] }\n",
    )
    .unwrap();
    let (code, out, err) = check(&file, &["--dispatch", &shown]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Data races: none"), "{out}");
    assert_eq!(states(&out), ["o.v[0]=1;"], "{out}");
    // Errors name the input and where it is written; exit 2.
    std::fs::write(&toml, "workgroups = 2\n[inputs]\n\"flag@wg2\" = 1\n").unwrap();
    let (code, _, err) = check(&file, &["--dispatch", &shown]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("copies.comp: input `flag@wg2` ({shown}:3:14, key `inputs.\"flag@wg2\"`): the dispatch has no workgroup 2: it has 2 (copies `@wg0` to `@wg1`")),
        "{err}"
    );
    for (arg, says) in [
        (
            "o@wg1=1",
            "input `o@wg1` (`--input o@wg1=1`): `@wg1` names a workgroup's copy, and only workgroup (shared) memory has one per workgroup",
        ),
        (
            "flag@1=1",
            "`flag@1` is not a target: expected `@wgK` after `@` (the copy of workgroup K, from 0), found `@1`",
        ),
        (
            "flag@wg1=1,2",
            "input `flag@wg1` (`--input flag@wg1=1,2`): 2 values for 1 cells",
        ),
    ] {
        let (code, _, err) = run(&["--input", arg]);
        assert_eq!(code, 2, "{arg}: {err}");
        assert!(err.contains(says), "{arg}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A condition names a byte range of a cell that mixed-size accesses cut
/// (`wb.w[0][1..2]`, the spelling races print), and a SPIR-V module's
/// header condition names cells as its source does (`wb.w[0]`,
/// `seen[1]@wg1`) beside the module's `%` names its states print: every
/// name vkmm prints can be pasted back.
#[test]
fn conditions_take_byte_ranges_and_a_modules_headers_take_source_names() {
    if !glslang() {
        return;
    }
    // bytes.comp at 2 workgroups of 1: workgroup g writes seen[1] = 5 + g
    // and copies it to wb.w[1 + g]; workgroup 0 writes wb.w[0] =
    // 0x01020304, then 9 into its byte 1 through the byte view: 0x01020904
    // = 16910596, byte 0 is 4, bytes 2..4 are 0x0102 = 258.
    let file = fixture("bytes.comp");
    let args = ["--workgroups", "2"];
    named_state(&file, &args, "wb.w[0]=16910596; wb.w[1]=5; wb.w[2]=6;");
    let bytes = "wb.w[0][0..1] == 4 and wb.w[0][1..2] == 9 and wb.w[0][2..4] == 258 and seen[1]@wg1 == 6 and seen[1]@wg0 == 5";
    for (cond, says) in [
        (bytes.to_string(), "Always"),
        (bytes.replace("[1..2] == 9", "[1..2] == 8"), "Never"),
        (bytes.replace("[2..4] == 258", "[2..4] == 2"), "Never"),
    ] {
        let (code, out, err) = check(&file, &["--workgroups", "2", "--assert", &cond]);
        assert_eq!(code, 0, "{cond}: {out}{err}");
        assert!(out.contains(says), "{cond}: {out}");
        assert!(out.contains(&format!("Condition forall ({cond})")), "{out}");
    }
    // The same shader as a binary module, its condition in
    // `bytes.spv.headers`: its states print the module's names, and both
    // spellings are read back.
    let dir = std::env::temp_dir().join(format!("vkmm-spv-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("bytes.spv");
    let compiled = std::process::Command::new("glslangValidator")
        .args(["-V", &file, "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(compiled.status.success(), "{compiled:?}");
    let shown = spv.display().to_string();
    let with_headers = |condition: &str| {
        std::fs::write(
            dir.join("bytes.spv.headers"),
            format!("; @Output: forall ({condition})\n"),
        )
        .unwrap();
        check(&shown, &args)
    };
    let (code, out, err) = with_headers(bytes);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\nOk\n"), "{out}");
    assert_eq!(
        states(&out),
        ["%wb[0][0]=16910596; %seen[1]@wg1=6; %seen[1]@wg0=5;"],
        "{out}"
    );
    // The printed state pasted back, and changed.
    let printed = condition_of(&states(&out)[0]);
    let (code, out, err) = with_headers(&printed);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\nOk\n"), "{printed}: {out}");
    let (code, out, err) = with_headers(&printed.replace("16910596", "16910597"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\nNo\n"), "{out}");
    let (code, out, err) = with_headers("wb.w[0][1..2] == 8 or seen[1]@wg1 == 5");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\nNo\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

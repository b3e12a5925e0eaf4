//! OpenCL images and pipes (issue 16, docs/coverage-opencl.md "3.2 images,
//! pipes"). The SPIR-V memory model document gives image data no ordering
//! ("Image Memory (Input, Output, Image Storage Class): A region of memory
//! contained within image objects. Orderings on image data are not involved
//! in the happens-before orders of the memory model.") and pipes no rule
//! between work-items (a pipe links kernel instances: "At any one time, only
//! one kernel instance may write into a pipe, and only one kernel instance
//! may read from a pipe"), so the OpenCL litmus dialect refuses both with a
//! located error quoting the sentence: each spelling below fails at the
//! word, and the same test without it parses (the refusal is not a parse
//! failure of the surrounding text).

fn parse(text: &str) -> Result<vkmm::ir::Program, String> {
    let format = vkmm::frontend::Format::OpenClLitmus;
    vkmm::frontend::parse_text("t.litmus", text, format, Default::default())
        .map_err(|e| e.to_string())
}

const IMAGE: &str =
    "Orderings on image data are not involved in the happens-before orders of the memory model.";
const PIPE: &str = "only one kernel instance may write into a pipe";

/// A one-work-item test with `params` as P0's parameters and `body` as its
/// code; line 3 is P0's header, line 4 its body.
fn test(init: &str, params: &str, body: &str) -> String {
    format!("OPENCL t\n{{ {init} }}\nP0@wg 0, dev 0 ({params}) {{\n  {body}\n}}\nexists (0:r0=0)\n")
}

#[test]
fn images_and_pipes_are_refused_where_they_are_written() {
    let ok = test("x = 0;", "global int* x", "int r0 = *x;");
    assert!(parse(&ok).is_ok(), "{:?}", parse(&ok).err());
    // (init block, parameters, body, location, sentence, word)
    let cases: &[(&str, &str, &str, &str, &str, &str)] = &[
        (
            "x = 0;",
            "global int* x",
            "int r0 = *x; atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);",
            "t.litmus:4:",
            IMAGE,
            "`CLK_IMAGE_MEM_FENCE`",
        ),
        (
            "x = 0;",
            "global int* x",
            "int r0 = *x; barrier(CLK_GLOBAL_MEM_FENCE | CLK_IMAGE_MEM_FENCE);",
            "t.litmus:4:",
            IMAGE,
            "`CLK_IMAGE_MEM_FENCE`",
        ),
        (
            "x = 0;",
            "read_only image2d_t img, global int* x",
            "int r0 = *x;",
            "t.litmus:3:17",
            IMAGE,
            "`read_only`",
        ),
        (
            "x = 0;",
            "global int* x",
            "int r0 = read_imagei(x, 0);",
            "t.litmus:4:",
            IMAGE,
            "`read_imagei`",
        ),
        (
            "x = 0;",
            "global int* x",
            "int r0 = *x; write_imagef(x, 0, 1);",
            "t.litmus:4:",
            IMAGE,
            "`write_imagef`",
        ),
        (
            "image2d_t x = 0;",
            "global int* x",
            "int r0 = *x;",
            "t.litmus:2:3",
            IMAGE,
            "`image2d_t`",
        ),
        (
            "x = 0;",
            "pipe int p, global int* x",
            "int r0 = *x;",
            "t.litmus:3:17",
            PIPE,
            "`pipe`",
        ),
        (
            "x = 0;",
            "global int* x",
            "int r0 = read_pipe(x, 0);",
            "t.litmus:4:",
            PIPE,
            "`read_pipe`",
        ),
        (
            "x = 0;",
            "global int* x",
            "int r0 = *x; int r1 = reserve_write_pipe(x, 1);",
            "t.litmus:4:",
            PIPE,
            "`reserve_write_pipe`",
        ),
    ];
    for (init, params, body, at, sentence, word) in cases {
        let text = test(init, params, body);
        let e = parse(&text).expect_err(&text);
        assert!(e.contains(at), "{e}\n(expected at {at})");
        assert!(e.contains(sentence), "{e}");
        assert!(e.contains(word), "{e}");
    }
}

/// The refusals are errors of the front end (exit code 2 from the CLI), not
/// panics: the same holds through `frontend::load` on a file.
#[test]
fn the_cli_exits_with_2_on_an_image_fence() {
    let dir = std::env::temp_dir().join(format!("vkmm-opencl-image-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("image-fence.litmus");
    std::fs::write(
        &file,
        test(
            "x = 0;",
            "global int* x",
            "int r0 = *x; barrier(CLK_IMAGE_MEM_FENCE);",
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("image-fence.litmus:4:"), "{err}");
    assert!(err.contains(IMAGE), "{err}");
}

//! Binary SPIR-V modules (`.spv`, docs/format-spirv.md "Binary modules"):
//! the same lowering as the `.spvasm` text, so a module assembled from a
//! text file gives the text's answer. The bundled example needs no tool;
//! the corpus comparison assembles Dat3M's `basic/` programs with
//! `spirv-as` (Debian `spirv-tools`) at test time and skips, saying so,
//! when it or the corpus is absent.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use vkmm::{Checked, Error, Session};

fn root(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vkmm-spv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The text report without times, source lines and numeric ids (a binary
/// names ids without an `OpName` by number, the text by its own names).
fn report(r: Result<Checked, Error>) -> String {
    let text = match r {
        Ok(Checked::Litmus(o)) => vkmm::report::text::litmus(&o),
        Ok(other) => format!("{other:?}"),
        // The binary error adds the instruction; positions differ.
        Err(e) => {
            let m = e.to_string();
            let m = m.split(" (instruction").next().unwrap_or(&m).to_string();
            m.split_once(": ").map_or(m.clone(), |(_, rest)| {
                rest.split_once(": ")
                    .map_or(rest.to_string(), |(_, r)| r.to_string())
            })
        }
    };
    text.lines()
        .filter(|l| !l.starts_with("Time ") && !l.starts_with("Test ") && !l.contains(" line "))
        .map(|l| {
            // %12 -> %N
            let mut out = String::new();
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                out.push(c);
                if c == '%' && chars.peek().is_some_and(char::is_ascii_digit) {
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                    out.push('N');
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn bundled_binary_module_reads_its_headers_file() {
    // examples/spirv/mp.spv is examples/glsl/mp.comp compiled by
    // glslangValidator; its headers are in mp.spv.headers. Release/acquire
    // message passing: when the reader sees the flag it sees the data.
    let r = Session::new()
        .check_file(root("examples/spirv/mp.spv"))
        .unwrap();
    let Checked::Litmus(o) = r else {
        panic!("a module with an @Output has a condition")
    };
    let text = vkmm::report::text::litmus(&o);
    assert!(text.contains("Observation mp Always 2 0"), "{text}");
    assert!(text.contains("%buf[2]=1; %buf[3]=1;"), "{text}");
    assert!(!text.contains("%buf[2]=1; %buf[3]=0;"), "{text}");
    assert!(text.contains("Data races: none"), "{text}");
}

#[test]
fn binary_without_headers_runs_its_declared_size() {
    // mp.comp declares `local_size_x = 2`: without @Config (nor a
    // dispatch on the command line) both invocations run.
    let d = scratch("noheaders");
    std::fs::copy(root("examples/spirv/mp.spv"), d.join("mp.spv")).unwrap();
    let p = vkmm::frontend::load(&d.join("mp.spv")).unwrap();
    assert_eq!(p.threads.len(), 2);
    assert!(p.condition.is_none());
    // Ids are named by their OpName: the buffer is `%buf`.
    assert!(
        p.locations.iter().any(|l| l == "%buf[1]"),
        "{:?}",
        p.locations
    );
}

#[test]
fn bad_binaries_are_located_errors() {
    let d = scratch("bad");
    let bytes = std::fs::read(root("examples/spirv/mp.spv")).unwrap();
    // Not SPIR-V at all.
    std::fs::write(d.join("text.spv"), b"OpCapability Shader\n").unwrap();
    let e = vkmm::frontend::load(&d.join("text.spv")).unwrap_err();
    assert!(e.message.contains("not a SPIR-V binary"), "{e}");
    // Cut in the middle of an instruction (an OpLoad of 4 words with only
    // two): the error names the instruction after the last whole one.
    let whole = vkmm::frontend::load(&root("examples/spirv/mp.spv")).unwrap();
    assert!(!whole.threads.is_empty());
    let mut cut = bytes.clone();
    for w in [0x0004_003du32, 7] {
        cut.extend(w.to_le_bytes());
    }
    std::fs::write(d.join("cut.spv"), &cut).unwrap();
    let e = vkmm::frontend::load(&d.join("cut.spv")).unwrap_err();
    let instructions = std::process::Command::new("spirv-dis")
        .args(["--no-header", "--raw-id"])
        .arg(root("examples/spirv/mp.spv"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().count());
    assert!(e.message.contains("cannot decode"), "{e}");
    if let Some(n) = instructions {
        // Line N is the Nth instruction, as spirv-dis prints them.
        assert_eq!(e.line, n + 1, "{e}");
    }
    // Every truncation and every flipped byte: an error or a program, never
    // a panic.
    for n in (0..bytes.len()).step_by(4) {
        std::fs::write(d.join("t.spv"), &bytes[..n]).unwrap();
        let _ = vkmm::frontend::load(&d.join("t.spv"));
    }
    for mask in [0x5a, 0xff, 0x01, 0x80] {
        for k in 20..bytes.len() {
            let mut b = bytes.clone();
            b[k] ^= mask;
            let _ = vkmm::frontend::spirv::parse_binary("f.spv", &b, None);
        }
    }
    // A headers file line that is not a header comment.
    std::fs::write(d.join("h.spv"), &bytes).unwrap();
    std::fs::write(d.join("h.spv.headers"), "; @Config: 2, 1, 1\n@Output: x\n").unwrap();
    let e = vkmm::frontend::load(&d.join("h.spv")).unwrap_err();
    assert!(e.file.ends_with("h.spv.headers"), "{e}");
    assert_eq!((e.line, e.column), (2, 1), "{e}");
    // A header naming an unknown location: at its line and column in the
    // headers file.
    std::fs::write(
        d.join("h.spv.headers"),
        "; @Config: 2, 1, 1\n; @Output: forall (%nothing == 1)\n",
    )
    .unwrap();
    let e = vkmm::frontend::load(&d.join("h.spv")).unwrap_err();
    assert!(e.file.ends_with("h.spv.headers"), "{e}");
    assert_eq!((e.line, e.column), (2, 20), "{e}");
    // The CLI: exit 2, file:line:col.
    let out = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(["check", &d.join("cut.spv").display().to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cut.spv:") && err.contains("cannot decode"),
        "{err}"
    );
}

fn spirv_as() -> bool {
    Command::new("spirv-as")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Assembles `src` into `dir/NAME.spv` with its header comments in
/// `NAME.spv.headers`. spirv-as keeps numeric ids (`--preserve-numeric-ids`)
/// but turns names into numbers: an `OpName` is added for every named id
/// the headers mention, so the binary keeps the name.
fn assemble(src: &Path, dir: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(src).unwrap();
    let name = src.file_stem().unwrap().to_string_lossy().to_string();
    let mut headers = String::new();
    let mut named = std::collections::BTreeSet::new();
    for l in text.lines().filter(|l| l.trim_start().starts_with(';')) {
        headers.push_str(l);
        headers.push('\n');
        for part in l.split('%').skip(1) {
            let id: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            if !id.is_empty() && !id.chars().all(|c| c.is_ascii_digit()) {
                named.insert(id);
            }
        }
    }
    let mut asm: String = named
        .iter()
        .map(|id| format!("OpName %{id} \"{id}\"\n"))
        .collect();
    asm.push_str(&text);
    let asm_path = dir.join(format!("{name}.spvasm.in"));
    std::fs::write(&asm_path, asm).unwrap();
    let out = dir.join(format!("{name}.spv"));
    let run = Command::new("spirv-as")
        .args(["--preserve-numeric-ids", "--target-env", "spv1.6", "-o"])
        .arg(&out)
        .arg(&asm_path)
        .output()
        .map_err(|e| e.to_string())?;
    if !run.status.success() {
        return Err(String::from_utf8_lossy(&run.stderr).into_owned());
    }
    std::fs::write(dir.join(format!("{name}.spv.headers")), headers).unwrap();
    Ok(out)
}

#[test]
fn assembled_corpus_programs_give_the_text_answers() {
    let Some(corpus) = common::corpus_or_skip("dat3m-spirv") else {
        return;
    };
    if !spirv_as() {
        common::skip("spirv-as is not installed (Debian `spirv-tools`)");
        return;
    }
    let d = scratch("corpus");
    // A deterministic bound (a time limit would stop the two searches at
    // different points on a loaded machine).
    let session = Session::new().max_executions(20_000);
    let mut compared = 0;
    let mut decided = 0;
    let mut differences = Vec::new();
    for src in common::files_with_ext(&corpus.join("basic"), "spvasm") {
        let Ok(bin) = assemble(&src, &d) else {
            continue; // not valid SPIR-V as written (spirv-as refuses it)
        };
        // A `.spvasm` variable with no Initializer and no @Input starts
        // undefined (Dat3M's reading), a binary module's at 0 (the host
        // fills its buffers: docs/format-spirv.md, "Undefined initial
        // values"): the binary is compared with the text read that way
        // (tests/frontends/spirv_undefined.rs tests the undefined reading).
        let text = match session.load_file(&src) {
            Ok(mut p) if !p.undefined.is_empty() => {
                p.undefined.clear();
                report(session.check_program(&src.display().to_string(), &p))
            }
            _ => report(session.check_file(&src)),
        };
        let binary = report(session.check_file(&bin));
        compared += 1;
        if text.contains("Observation") {
            decided += 1;
        }
        if text != binary {
            differences.push(format!(
                "{}:\n--- text\n{text}\n--- binary\n{binary}",
                src.display()
            ));
        }
    }
    println!("{compared} assembled programs compared, {decided} with an answer");
    assert!(compared >= 40, "only {compared} programs assembled");
    assert!(decided >= 30, "only {decided} answers");
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

/// The image, sampled image and tensor tests (tests/fixtures/litmus-spirv-image)
/// assembled into binary modules give the text's answers: the binary reader
/// spells the enumerants (Dim, Image Format, Image and Tensor Operands) as
/// numbers, which the image front end reads alike. A `spirv-as` older than
/// SPV_ARM_tensors (Debian 12's 2023.1) cannot assemble the tensor tests:
/// those are skipped, saying so; every other file must assemble.
#[test]
fn assembled_image_and_tensor_tests_give_the_text_answers() {
    if !spirv_as() {
        common::skip("spirv-as is not installed (Debian `spirv-tools`)");
        return;
    }
    let d = scratch("images");
    let session = Session::new();
    let mut compared = Vec::new();
    let mut differences = Vec::new();
    for src in common::files_with_ext(&root("tests/fixtures/litmus-spirv-image"), "spvasm") {
        let name = src.file_stem().unwrap().to_string_lossy().to_string();
        let bin = match assemble(&src, &d) {
            Ok(bin) => bin,
            Err(e) if e.contains("Tensor") => {
                common::skip_part(&format!(
                    "{name}: this spirv-as does not know SPV_ARM_tensors ({})",
                    e.trim()
                ));
                continue;
            }
            Err(e) => panic!("{name}: spirv-as refused it: {e}"),
        };
        // The `see one: vkmm explain FILE ...` line names each file's own
        // path; everything else must be the same.
        let unnamed = |r: String| -> String {
            r.lines()
                .filter(|l| !l.trim_start().starts_with("see one: vkmm explain"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let text = unnamed(report(session.check_file(&src)));
        let binary = unnamed(report(session.check_file(&bin)));
        assert!(text.contains("Observation"), "{name}: {text}");
        if text != binary {
            differences.push(format!("{name}:\n--- text\n{text}\n--- binary\n{binary}"));
        }
        compared.push(name);
    }
    println!(
        "{} image tests compared: {}",
        compared.len(),
        compared.join(", ")
    );
    for must in [
        "image-mp",
        "sampled-fetch-mp",
        "sampled-fetch-mp-no-flags",
        "fetch-forms",
    ] {
        assert!(
            compared.iter().any(|c| c == must),
            "{must} was not compared"
        );
    }
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

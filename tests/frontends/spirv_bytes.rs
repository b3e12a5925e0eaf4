//! SPIR-V byte offsets (issue 16 item 6; docs/format-spirv.md, "Byte
//! offsets"; src/frontend/spirv/lower/bytes.rs, src/frontend/spirv/layout.rs):
//! accesses whose bytes are not one cell of the layout (views of one
//! binding, a 64-bit access over two 32-bit members, a byte of a word) are
//! lowered onto `ir::bytes`. Hand-derived verdicts in
//! tests/fixtures/litmus-spirv-bytes (each file quotes its sentences), the twins of
//! tests/fixtures/litmus-bytes with the same verdicts, located errors, and a check
//! that whole-scalar programs are not cut.

use crate::common;

use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-spirv-bytes")
}

#[test]
fn spirv_byte_tests_give_their_hand_derived_verdicts() {
    common::assert_csv_verdicts(&dir(), 14);
}

/// Each SPIR-V test and the Vulkan litmus test it spells give the same
/// verdicts.
#[test]
fn each_spirv_test_agrees_with_its_litmus_twin() {
    let litmus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-bytes");
    for name in [
        "mixed-size-mp",
        "half-overlap-read",
        "partial-overwrite",
        "partial-overwrite-stale",
        "race-one-byte",
        "neighbours-no-race",
        "per-byte-visibility",
        "final-halves",
        "final-overwrite-subset",
        "final-torn",
    ] {
        let a = common::vulkan_verdicts(&dir().join(format!("{name}.spvasm")));
        let b = common::vulkan_verdicts(&litmus.join(format!("{name}.litmus")));
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn cells_are_cut_only_where_an_access_reaches_part_of_them() {
    let p = vkmm::frontend::load(&dir().join("race-one-byte.spvasm")).unwrap();
    // P1's 16-bit store at bytes 3..5 cuts x0 at 3 and x1 at 1 (byte 4).
    for name in [
        "%w[0][0][0..3]",
        "%w[0][0][3..4]",
        "%w[0][1][0..1]",
        "%w[0][1][1..4]",
    ] {
        assert!(
            p.locations.iter().any(|l| l == name),
            "{name}: {:?}",
            p.locations
        );
    }
    // The flag and the result cells are whole.
    assert!(p.locations.iter().any(|l| l == "%w[1]"));
    // A 64-bit access over two whole words cuts nothing.
    let p = vkmm::frontend::load(&dir().join("mixed-size-mp.spvasm")).unwrap();
    assert!(
        !p.locations.iter().any(|l| l.contains("..")),
        "{:?}",
        p.locations
    );
    assert!(p.sizes.is_empty());
}

/// Whole-scalar programs are not cut: every program of the Dat3M SPIR-V
/// corpus that loads has no chunk location (their answers are those of the
/// ratchet, tests/conformance/conformance_spirv.rs).
#[test]
fn whole_scalar_corpus_programs_are_not_cut() {
    let Some(corpus) = common::corpus_or_skip("dat3m-spirv") else {
        return;
    };
    let mut loaded = 0;
    for sub in ["basic", "alignment"] {
        let Ok(entries) = std::fs::read_dir(corpus.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "spvasm") {
                continue;
            }
            if let Ok(p) = vkmm::frontend::load(&path) {
                loaded += 1;
                assert!(
                    !p.locations.iter().any(|l| l.contains("..")),
                    "{}: {:?}",
                    path.display(),
                    p.locations
                );
            }
        }
    }
    assert!(loaded > 20, "{loaded}");
}

fn load_err(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!(
        "vkmm-spirv-bytes-{}-{name}.spvasm",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    let e = vkmm::frontend::load(&path).unwrap_err().to_string();
    let _ = std::fs::remove_file(&path);
    e.replace(&path.display().to_string(), "t.spvasm")
}

/// A test's text with P0's body replaced.
fn with_p0(p0: &str, consts: &str) -> String {
    let text = std::fs::read_to_string(dir().join("final-halves.spvasm")).unwrap();
    let text = text.replace(
        "OpStore %x0 %c1 MakePointerAvailable|NonPrivatePointer %dev\n",
        p0,
    );
    text.replace("%main = OpFunction", &format!("{consts}%main = OpFunction"))
}

#[test]
fn mixed_size_atomics_and_bad_views_are_located_errors() {
    let line_of =
        |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // A 64-bit atomic over the two 32-bit cells of %w.
    let text = with_p0(
        "%a = OpAtomicIAdd %ulong %x %dev %c0 %one\n",
        "%one = OpConstant %ulong 1\n",
    );
    let e = load_err("atomic-two-cells", &text);
    let at = format!("t.spvasm:{}:", line_of(&text, "%a = OpAtomicIAdd"));
    assert!(e.starts_with(&at), "{e}");
    assert!(
        e.contains("They access the same set of memory locations"),
        "{e}"
    );
    assert!(e.contains("mixed-size atomics are not supported"), "{e}");
    // A 32-bit atomic on a word a byte store cuts: refused by
    // ir::bytes::lower at the atomic's line.
    let text = with_p0(
        "%a = OpAtomicIAdd %uint %x0 %dev %c0 %c1\n%pb1 = OpAccessChain %pc %b %c0 %c1\nOpStore %pb1 %seven\n",
        "%seven = OpConstant %uchar 7\n",
    );
    let e = load_err("atomic-cut", &text);
    let at = format!("t.spvasm:{}:", line_of(&text, "%a = OpAtomicIAdd"));
    assert!(e.starts_with(&at), "{e}");
    assert!(e.contains("mixed-size atomics are not supported"), "{e}");
    // Bytes past the binding's cells (the view %b reaches the memory of
    // %w, 24 bytes).
    let text = with_p0(
        "%pb = OpAccessChain %pc %b %c0 %c100\nOpStore %pb %seven\n",
        "%seven = OpConstant %uchar 7\n%c100 = OpConstant %uint 100\n",
    );
    let e = load_err("outside", &text);
    let at = format!("t.spvasm:{}:", line_of(&text, "OpStore %pb %seven"));
    assert!(e.starts_with(&at), "{e}");
    assert!(
        e.contains("bytes 100..101 are not all in the variable `%w`"),
        "{e}"
    );
    // An @Input on a view of another variable's memory.
    let text = std::fs::read_to_string(dir().join("final-halves.spvasm"))
        .unwrap()
        .replace("; @Input: %w = {{0, 0}, 0, 0, 0}", "; @Input: %q = {5}");
    let e = load_err("input-alias", &text);
    let at = format!("t.spvasm:{}:11:", line_of(&text, "@Input: %q"));
    assert!(e.starts_with(&at), "{e}");
    assert!(e.contains("shares its memory with `%w`"), "{e}");
}

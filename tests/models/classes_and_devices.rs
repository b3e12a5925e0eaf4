//! Storage classes are data, and scope instances respect devices
//! (MODELS.md, "Storage classes and devices").
//!
//! - Renaming the storage classes of a test (sc0 -> sc4, sc1 -> sc9, and the
//!   same in the semantics) changes no answer of the Khronos suite and no
//!   verdict or final state of the Dat3M Vulkan suite under `vulkan`.
//! - A program whose semantics name a fifth storage class is refused with
//!   the appendix's sentence, never run with a class silently ignored.
//! - tests/fixtures/devices: OpenCL-format tests run under `vulkan` (the only format
//!   with devices), hand-derived verdicts in each file's comment.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::compare::compare;
use vkmm::analysis::{CheckError, Property, check_litmus};

/// Storage class tokens renamed: 0 -> 4, 1 -> 9, 2 -> 17, 3 -> 200.
fn rename_classes(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("sc") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let digits: String = tail[2..].chars().take_while(char::is_ascii_digit).collect();
        // a class token is `.scN` / `.semscN` (never a variable name)
        let token = head.ends_with('.') || head.ends_with(".sem");
        match (token, digits.as_str()) {
            (true, "0") => out.push_str("sc4"),
            (true, "1") => out.push_str("sc9"),
            (true, "2") => out.push_str("sc17"),
            (true, "3") => out.push_str("sc200"),
            _ => out.push_str(&tail[..2 + digits.len()]),
        }
        rest = &tail[2 + digits.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn renaming_is_what_it_says() {
    assert_eq!(
        rename_classes("st.atom.rel.scopewg.sc0.semsc0.semsc1 x = 1\nld.sc3 r0, sc1"),
        "st.atom.rel.scopewg.sc4.semsc4.semsc9 x = 1\nld.sc200 r0, sc1"
    );
}

/// The answers of `file` under `vulkan`, then of the same test with its
/// storage classes renamed, as `vkmm compare` rows.
/// `vkmm compare` rows: (what, one answer per model).
type Rows = Vec<(String, Vec<String>)>;

fn answers(file: &Path) -> (Rows, Rows) {
    let text = std::fs::read_to_string(file).unwrap();
    let ext = file.extension().unwrap().to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("vkmm-classes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let renamed = dir.join(format!(
        "{}.{ext}",
        file.file_stem().unwrap().to_str().unwrap()
    ));
    std::fs::write(&renamed, rename_classes(&text)).unwrap();
    let models = [vkmm::model::load("vulkan").unwrap()];
    let run = |p: &Path| {
        let program = vkmm::frontend::load(p).unwrap_or_else(|e| panic!("{e}"));
        compare("t", &program, &models, Limits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .rows
    };
    (run(file), run(&renamed))
}

#[test]
fn renamed_storage_classes_give_the_same_answers() {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(d) = common::corpus_or_skip("khronos-alloy") {
        files.extend(common::files_with_ext(&d, "test"));
    }
    if let Some(d) = common::corpus_or_skip("dat3m-vulkan") {
        files.extend(common::files_with_ext(&d.join("Kronos-Group"), "litmus"));
    }
    files.extend(common::files_with_ext(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus"),
        "test",
    ));
    assert!(files.len() >= 30);
    let mut bad = Vec::new();
    for f in &files {
        let (before, after) = answers(f);
        if before != after {
            bad.push(format!("{}:\n{before:?}\n{after:?}", f.display()));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_fifth_storage_class_in_semantics_is_refused() {
    let text = "VULKAN five\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n \
        membar.rel.dv.semsc0.semsc1.semsc2.semsc3 ;\n \
        membar.acq.dv.semsc7 ;\nexists (x == 0)\n";
    let program =
        vkmm::frontend::vulkan_litmus::parse("five.litmus", text).unwrap_or_else(|e| panic!("{e}"));
    let model = vkmm::model::load("vulkan").unwrap();
    match check_litmus("five", &program, &model, Limits::default(), None) {
        Err(CheckError::Unsupported(why)) => {
            assert!(why.starts_with("line 5: "), "{why}");
            assert!(why.contains("storage class 7"), "{why}");
            assert!(why.contains("fifth"), "{why}");
            assert!(
                why.contains("UniformMemory, WorkgroupMemory, ImageMemory, OutputMemory"),
                "{why}"
            );
        }
        other => panic!("not refused: {other:?}"),
    }
    // four named classes, whatever their numbers, are fine
    let four = text.replace("semsc7", "semsc200").replace(".semsc3 ", " ");
    let program = vkmm::frontend::vulkan_litmus::parse("four.litmus", &four).unwrap();
    assert!(check_litmus("four", &program, &model, Limits::default(), None).is_ok());
}

#[test]
fn scope_instances_respect_devices() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/devices");
    let model = vkmm::model::load("vulkan").unwrap();
    // (file, condition holds, race-free): hand-derived in each file
    let expected = [
        ("mp-device-scope-two-devices.litmus", true, false),
        ("mp-device-scope-one-device.litmus", false, true),
        ("mp-cross-device-two-devices.litmus", true, true),
    ];
    assert_eq!(common::files_with_ext(&dir, "litmus").len(), expected.len());
    for (file, condition, race_free) in expected {
        let program = vkmm::frontend::load(&dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
        let o = check_litmus(file, &program, &model, Limits::default(), None).unwrap();
        assert_eq!(o.holds(Property::Condition), Some(condition), "{file}");
        assert_eq!(o.holds(Property::Races), Some(race_free), "{file}");
    }
}

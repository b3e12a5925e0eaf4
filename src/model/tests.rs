//! Model profiles: the built-in models' declarations, inheritance through
//! includes, renamed copies, user declarations and malformed ones; and the
//! guard that no Rust code outside this registry compares model names.

use super::profile::{Feature, Profile, Resolved, SearchProfile};
use super::{LoadedModel, default_for, load};
use crate::cat::{CatErrorKind, Model};
use crate::ir::Dialect;

/// Parses `main` with `files` as includes and declared files.
fn profile(main: &str, files: &[(&str, &str)]) -> Result<Profile, String> {
    let find = |name: &str| files.iter().find(|(f, _)| *f == name);
    let resolve = |name: &str| find(name).map(|(f, s)| (f.to_string(), s.to_string()));
    let declared = |_: &str, name: &str| {
        find(name).map(|(f, s)| Resolved {
            spec: f.to_string(),
            file: f.to_string(),
            text: s.to_string(),
        })
    };
    let model = Model::parse("main.cat", main, &resolve).map_err(|e| e.to_string())?;
    Profile::of(&model, &declared).map_err(|e| {
        assert_eq!(e.kind, CatErrorKind::Profile);
        e.to_string()
    })
}

#[test]
fn builtin_profiles() {
    let vulkan = load("vulkan").unwrap().profile;
    assert_eq!(vulkan.nochains.as_deref(), Some("vulkan-nochains"));
    assert_eq!(vulkan.refusals.len(), 1);
    assert_eq!(vulkan.refusals[0].feature, Feature::SeqCst);
    assert_eq!(
        vulkan.explain.as_ref().map(|f| f.file.as_str()),
        Some("<builtin>/vulkan.explain")
    );
    assert_eq!(vulkan.races.as_deref(), Some("dr"));
    assert_eq!(vulkan.final_order.as_deref(), Some("locord"));
    assert_eq!(vulkan.program_order.as_deref(), Some("po"));
    assert_eq!(vulkan.default_for, vec![Dialect::Vulkan]);

    let nochains = load("vulkan-nochains").unwrap().profile;
    assert_eq!(nochains.nochains, None, "its own companion");
    assert_eq!(
        nochains.refusals, vulkan.refusals,
        "inherited from vulkan-rules.cat"
    );
    assert_eq!(nochains.explain, vulkan.explain);
    assert!(nochains.default_for.is_empty());

    // Dat3M's reading: its own companion without chains, the rest inherited.
    let dat3m = load("vulkan-dat3m").unwrap().profile;
    assert_eq!(dat3m.nochains.as_deref(), Some("vulkan-dat3m-nochains"));
    assert_eq!(dat3m.refusals, vulkan.refusals);
    assert_eq!(dat3m.explain, vulkan.explain);
    assert!(dat3m.default_for.is_empty());

    for name in ["opencl", "opencl-totalsc"] {
        let p = load(name).unwrap().profile;
        assert!(p.refusals.is_empty(), "{name}");
        assert_eq!(
            p.explain.as_ref().map(|f| f.file.as_str()),
            Some("<builtin>/opencl.explain")
        );
        assert_eq!(p.races.as_deref(), Some("dr"));
    }
    assert_eq!(default_for(Dialect::Vulkan), "vulkan");
    assert_eq!(default_for(Dialect::OpenCl), "opencl");
}

#[test]
fn renamed_copy_has_the_same_profile() {
    let dir = std::env::temp_dir().join(format!("vkmm-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("my-gpu.cat");
    std::fs::write(&copy, super::embedded("vulkan.cat").unwrap()).unwrap();
    let loaded = load(copy.to_str().unwrap()).unwrap();
    assert_eq!(loaded.profile, load("vulkan").unwrap().profile);
    // An embedded file by its display name loads too.
    let rules = load("<builtin>/vulkan-nochains.cat").unwrap();
    assert_eq!(rules.profile, load("vulkan-nochains").unwrap().profile);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn includer_overrides_and_inherits() {
    let rules = "(*@ refuse seq_cst \"R\" \"rules say no\"\n    races dr\n    edge-style rf red solid *)\nlet dr = 0\nlet hb = po\n";
    let p = profile("include \"rules.cat\"\n", &[("rules.cat", rules)]).unwrap();
    assert_eq!(p.refusals[0].who, "R");
    assert_eq!(p.races.as_deref(), Some("dr"));

    // The including file's declarations win, wherever they stand.
    let main = "(*@ races hb\n    accept seq_cst\n    edge-style rf blue dashed *)\ninclude \"rules.cat\"\n";
    let p = profile(main, &[("rules.cat", rules)]).unwrap();
    assert!(p.refusals.is_empty());
    assert_eq!(p.races.as_deref(), Some("hb"));
    assert_eq!(p.edge_styles.len(), 1);
    assert_eq!(p.edge_styles[0].colour, "blue");

    // Base names count as bindings; plain comments and strings are not declarations.
    let p = profile(
        "(* (*@ races nothing *) *)\n\"(*@ races nothing *)\"\n(*@ program-order po *)\nlet x = po\n",
        &[],
    )
    .unwrap();
    assert_eq!(p.program_order.as_deref(), Some("po"));
    assert_eq!(p.races, None);
}

#[test]
fn latest_own_write_is_withdrawn_by_the_including_file() {
    // Each file's declarations come after those of its includes.
    let rules = "(*@ latest-own-write *)\nlet dr = 0\n";
    let p = profile("include \"rules.cat\"\n", &[("rules.cat", rules)]).unwrap();
    assert!(p.latest_own_write);
    let main = "(*@ latest-own-write off *)\ninclude \"rules.cat\"\n";
    let p = profile(main, &[("rules.cat", rules)]).unwrap();
    assert!(!p.latest_own_write);
    // Storage classes narrow it.
    let p = profile("(*@ latest-own-write sc0 sc3 *)\nlet dr = 0\n", &[]).unwrap();
    assert!(p.latest_own_write);
    assert_eq!(p.latest_own_write_classes, 0b1001);
}

#[test]
fn po_coherence_takes_atomic_classes_or_off() {
    let p = profile("(*@ po-coherence atomic *)\nlet dr = 0\n", &[]).unwrap();
    assert_eq!((p.po_coherence, p.po_coherence_atomic), (u64::MAX, true));
    let p = profile("(*@ po-coherence sc0 sc1 *)\nlet dr = 0\n", &[]).unwrap();
    assert_eq!((p.po_coherence, p.po_coherence_atomic), (0b11, false));
    let rules = "(*@ po-coherence *)\nlet dr = 0\n";
    let main = "(*@ po-coherence off *)\ninclude \"rules.cat\"\n";
    let p = profile(main, &[("rules.cat", rules)]).unwrap();
    assert_eq!(p.po_coherence, 0);
    assert!(profile("(*@ po-coherence atomic scx *)\nlet dr = 0\n", &[]).is_err());
}

#[test]
fn user_declarations() {
    let main = "(*@ refuse seq_cst \"my GPU\" \"no SC\"\n    explain \"mine.explain\"\n    default-for opencl *)\nlet dr = 0\n";
    let p = profile(main, &[("mine.explain", "check x dr\n")]).unwrap();
    assert_eq!(p.refusals[0].sentence, "no SC");
    assert_eq!(p.explain.unwrap().text, "check x dr\n");
    assert_eq!(p.default_for, vec![Dialect::OpenCl]);
}

#[test]
fn malformed_declarations_have_positions() {
    let cases: &[(&str, &str)] = &[
        (
            "(*@ racez dr *)",
            "main.cat:1:5: unknown declaration `racez`",
        ),
        ("(*@ races *)", "main.cat:1:5: `races` takes a binding"),
        (
            "(*@ latest-own-write on *)",
            "main.cat:1:22: `latest-own-write` takes nothing (every storage class), `off`, or storage classes `sc0 sc1 ...`",
        ),
        (
            "(*@ latest-own-write sc0 scx *)",
            "main.cat:1:26: `latest-own-write` takes nothing (every storage class), `off`, or storage classes `sc0 sc1 ...`",
        ),
        (
            "(*@ races dr dr *)",
            "main.cat:1:5: `races` takes a binding",
        ),
        (
            "(*@ races nope *)",
            "main.cat:1:11: the model binds no `nope`",
        ),
        (
            "(*@\n  refuse sc \"a\" \"b\" *)",
            "main.cat:2:10: unknown feature `sc` (known: seq_cst, shading_rate_interlock)",
        ),
        ("(*@ accept *)", "main.cat:1:5: `accept` takes a feature"),
        (
            "(*@ explain \"missing.explain\" *)",
            "main.cat:1:13: cannot find \"missing.explain\"",
        ),
        (
            "(*@ nochains missing.cat *)",
            "main.cat:1:14: cannot find \"missing.cat\"",
        ),
        (
            "(*@ edge-style rf red wavy *)",
            "main.cat:1:23: unknown line style `wavy`",
        ),
        (
            "(*@ edge-style rf re\"d solid *)",
            "main.cat:1:21: unterminated string",
        ),
        (
            "(*@ edge-style rf r;d solid *)",
            "main.cat:1:19: `r;d` is not a colour",
        ),
        (
            "(*@ default-for cuda *)",
            "main.cat:1:17: unknown dialect `cuda` (known: vulkan, opencl)",
        ),
        (
            "let x = 0 (*@ refuse seq_cst \"a\" *)",
            "main.cat:1:15: `refuse` takes a feature",
        ),
    ];
    for (src, want) in cases {
        let got = profile(&format!("{src}\nlet dr = 0\n"), &[]).unwrap_err();
        assert!(got.starts_with(want), "{src:?}: {got}");
    }
}

#[test]
fn loaded_model_new_reads_the_profile() {
    let cat = Model::parse("t.cat", "(*@ races dr *)\nlet dr = 0\n", &|_| None).unwrap();
    let m = LoadedModel::new("t", cat).unwrap();
    assert_eq!(m.name, "t");
    assert_eq!(m.profile.races.as_deref(), Some("dr"));
}

/// No Rust code outside the model registry compares a model's name: what a
/// model needs is in its profile. (The front ends' litmus headers name
/// dialects, not models.)
#[test]
fn no_model_name_comparisons_outside_the_registry() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if rel != "frontend" {
                    stack.push(path);
                }
                continue;
            }
            if rel == "model/mod.rs" || rel == "model/tests.rs" || !rel.ends_with(".rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                if compares_model_name(line) {
                    offenders.push(format!("src/{rel}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "model names compared in Rust:\n{}",
        offenders.join("\n")
    );
}

/// Whether a line compares a string against a model name: a `"vulkan...`
/// or `"opencl...` literal on a line with a comparison, or as a match
/// pattern (before `=>`).
fn compares_model_name(line: &str) -> bool {
    const COMPARISONS: &[&str] = &[
        "==",
        "!=",
        "starts_with",
        "ends_with",
        "strip_prefix",
        "contains(",
        "eq_ignore_ascii_case",
    ];
    ["\"vulkan", "\"opencl"].iter().any(|name| {
        line.match_indices(name).any(|(at, _)| {
            COMPARISONS.iter().any(|c| line.contains(c)) || line[at..].contains("=>")
        })
    })
}

#[test]
fn the_guard_catches_name_checks() {
    assert!(compares_model_name(
        r#"if !model_name.starts_with("vulkan") {"#
    ));
    assert!(compares_model_name(
        r#"None if name == "vulkan" => "vulkan-nochains","#
    ));
    assert!(compares_model_name(
        r#""opencl" | "opencl-totalsc" => ("opencl.explain", X),"#
    ));
    assert!(!compares_model_name(r#"Dialect::Vulkan => "vulkan","#));
}

/// `default_for` reads only the top files' annotations: for every dialect
/// it gives the first built-in model whose full profile (includes followed)
/// declares `default-for` it. (Models that include a default model inherit
/// its declaration but come after it.)
#[test]
fn default_for_agrees_with_the_full_profiles() {
    for dialect in Dialect::ALL {
        let full = super::BUILTIN
            .iter()
            .find(|(n, _, _)| load(n).unwrap().profile.default_for.contains(dialect))
            .map_or(super::BUILTIN[0].0, |(n, _, _)| n);
        assert_eq!(default_for(*dialect), full, "{dialect:?}");
    }
}

/// The search profile is read once, when the model loads. Expected values
/// by hand from the model files: `vulkan` names `ilo`
/// (vulkan-spec-readings.cat, `let interlock_order = ilo`) but neither `co`
/// (only an `edge-style` declaration) nor `sco`, and declares the five
/// argument-less facts in vulkan-rules.cat, `po-coherence atomic` for every
/// class there, plus `latest-own-write` for every class in
/// vulkan-spec-readings.cat; `vulkan-fr-asmo` withdraws
/// `latest-own-write`; `opencl` names `co` (opencl-rules.cat), declares
/// `latest-own-write sc0 sc1`, `co-write-write-coherence sc0 sc1` and
/// `po-coherence sc0 sc1`, and
/// none of the Vulkan facts; `opencl-totalsc` adds `sco`.
#[test]
fn search_profiles_are_read_when_the_model_loads() {
    let vulkan = SearchProfile {
        total_co: false,
        sc_order: false,
        interlock_order: true,
        rmw_atomicity: true,
        read_write_coherence: true,
        write_write_coherence: true,
        co_write_write_coherence: 0,
        await_extension: true,
        location_local_reads: true,
        latest_own_write: u64::MAX,
        po_coherence: u64::MAX,
        po_coherence_atomic: true,
    };
    assert_eq!(load("vulkan").unwrap().search, vulkan);
    assert_eq!(
        load("vulkan-fr-asmo").unwrap().search,
        SearchProfile {
            latest_own_write: 0,
            ..vulkan
        }
    );
    let opencl = SearchProfile {
        total_co: true,
        sc_order: false,
        interlock_order: false,
        rmw_atomicity: false,
        read_write_coherence: false,
        write_write_coherence: false,
        co_write_write_coherence: 0b11,
        await_extension: false,
        location_local_reads: false,
        latest_own_write: 0b11,
        po_coherence: 0b11,
        po_coherence_atomic: false,
    };
    assert_eq!(load("opencl").unwrap().search, opencl);
    assert_eq!(
        load("opencl-totalsc").unwrap().search,
        SearchProfile {
            sc_order: true,
            ..opencl
        }
    );
    // A search's limits take the loaded model's profile.
    let limits = crate::engine::Limits::default().for_model(&load("opencl").unwrap());
    assert_eq!(limits.profile, opencl);
}

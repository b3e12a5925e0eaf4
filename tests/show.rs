//! `vkmm show`: Graphviz pictures of executions, checked by structure (not
//! bytes), and rendered when the `dot` program is installed.

mod common;

use std::path::Path;
use std::process::Command;

fn show(file: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("show")
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The clusters enclosing each event node, outermost first.
fn nesting(dot: &str) -> Vec<(String, Vec<String>)> {
    let mut stack: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in dot.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("subgraph ") {
            stack.push(rest.split_whitespace().next().unwrap().to_string());
        } else if l == "}" {
            stack.pop();
        } else if l.starts_with('e') && l.contains("[label=") && !l.contains("->") {
            out.push((
                l.split_whitespace().next().unwrap().to_string(),
                stack.clone(),
            ));
        }
    }
    out
}

#[test]
fn forbidden_mp_picture_has_nested_clusters_cycle_and_legend() {
    let Some(d) = common::corpus("dat3m-vulkan") else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-vulkan is missing");
        return;
    };
    let dot = show(
        &d.join("Kronos-Group/mp.litmus"),
        &["--outcome", "P1:r0 == 1 /\\ P1:r1 == 0"],
    );
    assert!(dot.starts_with("digraph vkmm {"));
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
    let nodes = nesting(&dot);
    assert_eq!(nodes.len(), 4, "{nodes:?}");
    for (node, clusters) in &nodes {
        let kinds: Vec<&str> = clusters
            .iter()
            .map(|c| {
                c.trim_start_matches("cluster_")
                    .trim_end_matches(char::is_numeric)
            })
            .collect();
        assert_eq!(kinds, vec!["qf", "wg", "sg", "t"], "{node}: {clusters:?}");
    }
    // P0 and P1: same workgroup, different subgroups
    assert_eq!(nodes[0].1[1], nodes[2].1[1]);
    assert_ne!(nodes[0].1[2], nodes[2].1[2]);
    // the rejecting cycle: from-reads and location order, bold
    let bold: Vec<&str> = dot.lines().filter(|l| l.contains("penwidth=3")).collect();
    assert_eq!(bold.len(), 2, "{bold:?}");
    assert!(bold.iter().any(|l| l.contains("label=\"fr (cycle)\"")));
    assert!(
        bold.iter()
            .any(|l| l.contains("locord_workgroup_domain (cycle)"))
    );
    assert!(dot.contains("legend [shape=none"));
    for rel in ["rf", "fr", "hb", "sw_atom_atom"] {
        assert!(dot.contains(&format!("{rel}</font>")), "legend lacks {rel}");
    }
}

#[test]
fn relations_option_filters_edges() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/litmus-vulkan/race-plain-mp.litmus");
    let dot = show(&f, &["--relations", "rf"]);
    let edges: Vec<&str> = dot
        .lines()
        .filter(|l| l.contains("->") && !l.contains("gray80") && !l.contains("legend"))
        .collect();
    assert!(!edges.is_empty());
    assert!(
        edges.iter().all(|l| l.contains("label=\"rf\"")),
        "{edges:?}"
    );
}

#[test]
fn renders_svg_when_graphviz_is_installed() {
    if Command::new("dot").arg("-V").output().is_err() {
        eprintln!("SKIPPED: Graphviz `dot` is not installed (CI installs it)");
        return;
    }
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/litmus-vulkan/spin-loop-mp.litmus");
    let svg = std::env::temp_dir().join(format!("vkmm-show-{}.svg", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("show")
        .arg(&f)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("</svg>"));
    assert!(text.contains("P1"));
}

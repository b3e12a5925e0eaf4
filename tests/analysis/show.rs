//! `vkmm show`: Graphviz pictures of executions, checked by structure (not
//! bytes), and rendered when the `dot` program is installed.

use crate::common;

use std::path::Path;
use std::process::Command;

fn run_show(file: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("show")
        .arg(file)
        .args(extra)
        .output()
        .unwrap()
}

fn show(file: &Path, extra: &[&str]) -> String {
    let out = run_show(file, extra);
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

/// Asserts that every event sits in clusters of these kinds, outermost first.
fn cluster_kinds(nodes: &[(String, Vec<String>)], expected: &[&str]) {
    for (node, clusters) in nodes {
        let kinds: Vec<&str> = clusters
            .iter()
            .map(|c| {
                c.trim_start_matches("cluster_")
                    .trim_end_matches(char::is_numeric)
            })
            .collect();
        assert_eq!(kinds, expected, "{node}: {clusters:?}");
    }
}

#[test]
fn forbidden_mp_picture_has_nested_clusters_cycle_and_legend() {
    let Some(d) = common::corpus_or_skip("dat3m-vulkan") else {
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
    cluster_kinds(&nodes, &["qf", "wg", "sg", "t"]);
    // P0 and P1: same workgroup, different subgroups
    assert_eq!(nodes[0].1[1], nodes[2].1[1]);
    assert_ne!(nodes[0].1[2], nodes[2].1[2]);
    // the rejecting cycle: from-reads and location order, bold
    let bold: Vec<&str> = dot.lines().filter(|l| l.contains("penwidth=3")).collect();
    assert_eq!(bold.len(), 2, "{bold:?}");
    assert!(bold.iter().any(|l| l.contains(">fr</font>")));
    assert!(bold.iter().any(|l| l.contains(">locord</font>")));
    assert!(dot.contains("legend [shape=none"));
    // default relations: reads-from, from-reads, synchronizes-with and the
    // cycle; program order in the legend; no happens-before
    for rel in ["po", "rf", "fr", "sw_atom_atom", "locord_workgroup_domain"] {
        assert!(
            dot.contains(&format!(" {rel}</font>")),
            "legend lacks {rel}"
        );
    }
    assert!(!dot.contains(" hb</font>"), "{dot}");
    let all = show(
        &d.join("Kronos-Group/mp.litmus"),
        &[
            "--outcome",
            "P1:r0 == 1 /\\ P1:r1 == 0",
            "--relations",
            "hb,rf",
        ],
    );
    assert!(all.contains(" hb</font>") && !all.contains(" sw_atom_atom</font>"));
}

/// Thread clusters (`P0`, `P1`...) in the order the DOT text writes them.
fn thread_clusters(dot: &str) -> Vec<String> {
    dot.lines()
        .filter_map(|l| l.trim().strip_prefix("subgraph cluster_t"))
        .map(|r| r.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// Runs a Graphviz program on `input` (`None` without Graphviz).
fn graphviz(program: &str, args: &[&str], input: &str) -> Option<String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    use std::io::Write;
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    String::from_utf8(out.stdout).ok()
}

/// The x position of each event node, as `vkmm show --svg` lays the picture
/// out (two passes: vkmm::report::dot::split_relations), `None` without
/// Graphviz.
fn positions(dot: &str) -> Option<Vec<(usize, f64)>> {
    let (layout, edges) = vkmm::report::dot::split_relations(dot);
    let placed = graphviz("dot", &["-Tdot"], &layout)?;
    let picture = vkmm::report::dot::with_relations(&placed, &edges);
    let text = graphviz("neato", &["-n2", "-Tplain"], &picture)?;
    Some(
        text.lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let id = f.get(1)?.strip_prefix('e')?.parse().ok()?;
                (f[0] == "node").then(|| (id, f[2].parse().unwrap()))
            })
            .collect(),
    )
}

/// The x of each thread's first event, in thread order.
fn first_event_xs(dot: &str, xs: &[(usize, f64)]) -> Vec<f64> {
    let mut firsts: Vec<(usize, usize)> = Vec::new();
    for line in dot.lines() {
        let Some(rest) = line.trim().strip_prefix('e') else {
            continue;
        };
        let Some((id, label)) = rest.split_once(" [label=\"") else {
            continue;
        };
        let Ok(id) = id.parse::<usize>() else {
            continue;
        };
        let thread: usize = label
            .split_once(": P")
            .and_then(|(_, r)| r.split_whitespace().next())
            .and_then(|t| t.parse().ok())
            .unwrap();
        if !firsts.iter().any(|&(t, _)| t == thread) {
            firsts.push((thread, id));
        }
    }
    firsts.sort_unstable();
    firsts
        .iter()
        .map(|&(_, id)| xs.iter().find(|(i, _)| *i == id).unwrap().1)
        .collect()
}

#[test]
fn threads_read_left_to_right_in_litmus_order() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/scope-mismatch-race.litmus");
    let dot = show(&f, &[]);
    // P0 in workgroup 0, P1 in workgroup 1: one cluster each
    assert_eq!(thread_clusters(&dot).len(), 2);
    let Some(xs) = positions(&dot) else {
        common::skip("Graphviz `dot` is not installed (Debian `graphviz`)");
        return;
    };
    let x = |e: usize| xs.iter().find(|(i, _)| *i == e).unwrap().1;
    // e0, e1 are P0's; e2, e3 P1's
    assert!(x(0) < x(2) && x(1) < x(3), "{xs:?}");
    let mp = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mp.litmus");
    let xs = positions(&show(&mp, &[])).unwrap();
    let first = |t: &str| {
        let dot = show(&mp, &[]);
        let line = dot
            .lines()
            .find(|l| l.contains(&format!("{t} line")))
            .unwrap()
            .trim()
            .to_string();
        let id: usize = line[1..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        xs.iter().find(|(i, _)| *i == id).unwrap().1
    };
    assert!(first("P0") < first("P1"), "{xs:?}");
    // Six threads in three workgroups with many rf/fr edges between them:
    // a single-pass layout put them in the order P4 P5 P2 P3 P0 P1.
    if let Some(corpus) = common::corpus_or_skip("dat3m-vulkan") {
        let xf = corpus.join("Manual/xf-barrier-cbar-rlx-2.litmus");
        let dot = show(&xf, &[]);
        let xs = first_event_xs(&dot, &positions(&dot).unwrap());
        assert_eq!(xs.len(), 6);
        assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
    }
}

#[test]
fn opencl_pictures_have_device_and_work_group_clusters_only() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/opencl-mp.litmus");
    let dot = show(&f, &[]);
    let nodes = nesting(&dot);
    assert!(!nodes.is_empty());
    cluster_kinds(&nodes, &["dev", "wg", "t"]);
    assert!(dot.contains("label=\"device 0\"") && dot.contains("label=\"work-group 0\""));
    assert!(!dot.contains("queue family") && !dot.contains("subgroup"));
}

#[test]
fn unknown_relations_are_an_error_listing_the_valid_names() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mp.test");
    let out = run_show(&f, &["--relations", "rf,foo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown relation `foo`"), "{err}");
    for name in ["rf", "fr", "sw", "sw_atom_atom", "locord", "hb", "po"] {
        assert!(
            err.contains(&format!(" {name},")) || err.contains(&format!(" {name}\n")),
            "{name}: {err}"
        );
    }
    // the OpenCL wording's names
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/opencl-mp.litmus");
    let out = run_show(&f, &["--relations", "sw"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gsw"));
}

#[test]
fn relations_option_filters_edges() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/race-plain-mp.litmus");
    let dot = show(&f, &["--relations", "rf"]);
    let edges: Vec<&str> = dot
        .lines()
        .filter(|l| l.contains("->") && l.contains("taillabel"))
        .collect();
    assert!(!edges.is_empty());
    assert!(
        edges
            .iter()
            .all(|l| l.contains("taillabel=<<font color=\"red\">rf</font>>")),
        "{edges:?}"
    );
}

#[test]
fn renders_svg_when_graphviz_is_installed() {
    if !common::tool_or_skip("dot", "-V", "graphviz") {
        return;
    }
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/spin-loop-mp.litmus");
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

/// Each relation family in a picture has its own colour (the OpenCL models
/// declare theirs in models/opencl-rules.cat; families a model does not
/// declare get distinct colours too).
#[test]
fn relation_families_have_distinct_colours() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, extra) in [
        ("examples/opencl-mp.litmus", vec![]),
        (
            "examples/mp.litmus",
            vec!["--relations", "rf,fr,sw,hb,asmo"],
        ),
    ] {
        let dot = show(&root.join(file), &extra);
        let mut seen: Vec<(String, String)> = Vec::new();
        for part in dot.split("<font color=\"").skip(1) {
            let (colour, rest) = part.split_once("\">").unwrap();
            // a label (`rf`) or a legend entry (`&#9472;&#9472;&#9658; rf`)
            let name = rest.split('<').next().unwrap().rsplit(' ').next().unwrap();
            let family = name.split('_').next().unwrap().trim().to_string();
            if family.is_empty() || family == "po" {
                continue;
            }
            if !seen.iter().any(|(f, _)| *f == family) {
                seen.push((family, colour.to_string()));
            }
        }
        assert!(seen.len() >= 3, "{file}: {seen:?}");
        for (i, (f, c)) in seen.iter().enumerate() {
            for (g, d) in &seen[i + 1..] {
                assert!(c != d, "{file}: {f} and {g} share the colour {c}");
            }
        }
    }
}

/// Arrows leaving one event put their tail labels at different angles, so
/// that the labels do not print over each other.
#[test]
fn tail_labels_of_one_event_fan_out() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/dat3m-opencl/overhauling/IRIW_sc_dev.litmus");
    let (f, relations) = if f.exists() {
        (f, "rf,fr,co,mo,gsw,ghb")
    } else {
        let mp = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mp.litmus");
        (mp, "rf,fr,asmo,sw,hb")
    };
    let dot = show(&f, &["--relations", relations]);
    let mut by_tail: Vec<(String, String)> = Vec::new();
    for line in dot.lines().filter(|l| l.contains("taillabel")) {
        let tail = line.trim().split(" -> ").next().unwrap().to_string();
        let angle = line
            .split("labelangle=")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .to_string();
        assert!(
            !by_tail.contains(&(tail.clone(), angle.clone())),
            "two labels of {tail} at angle {angle}:\n{dot}"
        );
        by_tail.push((tail, angle));
    }
    assert!(by_tail.len() >= 3, "{dot}");
}

/// Four invocations over two pixels (two primitives per pixel), the
/// quick tier's sample of the six-invocation picture below: the same
/// layout, from a witness search a small fraction of that one's.
const TWO_PIXELS_FOUR: &str = "VULKAN two-pixels-four
\"Four overlapping invocations over two pixels (two per pixel), unordered
mode: each pixel's counter ends at 2 and its two reads differ.\"
{
interlock pixel unordered;
a=0; b=0;
}
 P0@sg 0, wg 0, qf 0, prim 0, pixel 0 | P1@sg 0, wg 1, qf 0, prim 1, pixel 0 | P2@sg 0, wg 2, qf 0, prim 0, pixel 1 | P3@sg 0, wg 3, qf 0, prim 1, pixel 1 ;
 beginil             | beginil             | beginil             | beginil             ;
 ld.vis.fi.sc0 r0, a | ld.vis.fi.sc0 r0, a | ld.vis.fi.sc0 r0, b | ld.vis.fi.sc0 r0, b ;
 add r1, r0, 1       | add r1, r0, 1       | add r1, r0, 1       | add r1, r0, 1       ;
 st.av.fi.sc0 a, r1  | st.av.fi.sc0 a, r1  | st.av.fi.sc0 b, r1  | st.av.fi.sc0 b, r1  ;
 endil               | endil               | endil               | endil               ;
forall (a == 2 /\\ b == 2 /\\ ~(P0:r0 == P1:r0) /\\ ~(P2:r0 == P3:r0))
";

/// The clusters of an interlock picture: each event inside its pixel, its
/// primitive and its invocation; `firsts` are (event, pixel, primitive,
/// invocation) of some events, `invocation` one invocation's label.
fn assert_interlock_picture(
    dot: &str,
    invocations: usize,
    firsts: &[(&str, usize, usize, usize)],
    invocation: &str,
) {
    let nodes = nesting(dot);
    assert_eq!(nodes.len(), 4 * invocations, "invocations of four events");
    cluster_kinds(&nodes, &["px", "prim", "t"]);
    let place = |node: &str| {
        nodes
            .iter()
            .find(|(n, _)| n == node)
            .map(|(_, c)| c.clone())
            .unwrap()
    };
    for &(event, px, prim, t) in firsts {
        assert_eq!(
            place(event),
            [
                format!("cluster_px{px}"),
                format!("cluster_prim{prim}"),
                format!("cluster_t{t}")
            ],
            "{event}"
        );
    }
    for label in [
        "pixel 0",
        "pixel 1",
        "primitive 1 (rasterization order)",
        invocation,
    ] {
        assert!(dot.contains(&format!("label=\"{label}\"")), "{label}");
    }
    assert!(!dot.contains("workgroup") && !dot.contains("queue family"));
    // End of P0 (e3) synchronizes with Begin of P1 (e4) in interlock order.
    assert!(
        dot.lines()
            .any(|l| l.trim_start().starts_with("e3 -> e4") && l.contains(">sw<")),
        "{dot}"
    );
    assert!(dot.contains("interlock order (End -&gt; Begin)"));
}

/// Fragment invocations are drawn by pixel, then by primitive in
/// rasterization order, each invocation saying which samples it covers;
/// the interlock's synchronizes-with edges (End -> Begin) are labelled.
/// P0-P1 cover pixel 0 (primitives 0, 1), P2-P3 pixel 1.
#[test]
fn interlock_pictures_group_fragment_invocations_by_pixel() {
    let f = std::env::temp_dir().join(format!(
        "vkmm-show-{}-two-pixels-four.litmus",
        std::process::id()
    ));
    std::fs::write(&f, TWO_PIXELS_FOUR).unwrap();
    let dot = show(&f, &[]);
    let _ = std::fs::remove_file(&f);
    assert_interlock_picture(
        &dot,
        4,
        &[
            ("e0", 0, 0, 0),
            ("e4", 0, 1, 1),
            ("e8", 1, 0, 2),
            ("e12", 1, 1, 3),
        ],
        "P3 (samples 0)",
    );
}

/// The same picture of six invocations, three per pixel (the full tier:
/// its witness search is the slowest of the `show` tests).
#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn interlock_pictures_of_six_invocations_group_them_by_pixel() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-interlock/two-pixels-six.litmus");
    // P0-P2 cover pixel 0 (primitives 0, 1, 2), P3-P5 pixel 1.
    assert_interlock_picture(
        &show(&f, &[]),
        6,
        &[("e0", 0, 0, 0), ("e8", 0, 2, 2), ("e12", 1, 0, 3)],
        "P4 (samples 0)",
    );
}

/// Scope instances are labelled as the file numbers them (`P1@sg 0, wg 1`
/// is in "subgroup 0" of "workgroup 1", not in the engine's internal
/// subgroup 1); a `.test` file, which does not number them, starts at 0.
#[test]
fn scope_instances_are_numbered_as_the_file_numbers_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dot = show(
        &root.join("tests/fixtures/litmus-vulkan/scope-mismatch-race.litmus"),
        &[],
    );
    assert!(dot.contains("label=\"workgroup 0\""), "{dot}");
    assert!(dot.contains("label=\"workgroup 1\""), "{dot}");
    assert_eq!(dot.matches("label=\"subgroup 0\"").count(), 2, "{dot}");
    assert!(!dot.contains("label=\"subgroup 1\""), "{dot}");
    let dot = show(&root.join("examples/mp.test"), &[]);
    assert!(dot.contains("label=\"workgroup 0\""), "{dot}");
    assert!(!dot.contains("label=\"workgroup 1\""), "{dot}");
    assert!(dot.contains("label=\"subgroup 1\""), "{dot}");
}

/// A racy witness draws its races: a two-headed arrow per racing pair,
/// labelled with the location and the scope mismatch that leaves the pair
/// unordered (the release and acquire on `f` are in different workgroups
/// with workgroup scope), and a legend row.
#[test]
fn a_racy_witness_draws_its_races() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dot = show(
        &root.join("tests/fixtures/litmus-vulkan/scope-mismatch-race.litmus"),
        &[],
    );
    let races: Vec<&str> = dot.lines().filter(|l| l.contains("dir=both")).collect();
    assert_eq!(races.len(), 2, "{dot}");
    assert!(races[0].starts_with("  e0 -> e3 "), "{}", races[0]);
    assert!(
        races[0].contains("race on x (scope mismatch)"),
        "{}",
        races[0]
    );
    assert!(
        races[1].contains("race on f (scope mismatch)"),
        "{}",
        races[1]
    );
    assert!(dot.contains("a data race in this execution"), "{dot}");
    // A race-free witness draws none.
    let dot = show(
        &root.join("examples/mp.litmus"),
        &["--outcome", "P1:r1 == 1"],
    );
    assert!(!dot.contains("dir=both"), "{dot}");
}

/// The legend sits below the threads (the picture grows in height, not in
/// width): laid out by Graphviz, its node is lower than every event.
#[test]
fn the_legend_is_below_the_threads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dot = show(
        &root.join("tests/fixtures/litmus-vulkan/scope-mismatch-race.litmus"),
        &[],
    );
    let (layout, _) = vkmm::report::dot::split_relations(&dot);
    let Some(plain) = graphviz("dot", &["-Tplain"], &layout) else {
        crate::common::skip("Graphviz `dot` is not installed (Debian `graphviz`)");
        return;
    };
    let y = |name: &str| -> Vec<f64> {
        plain
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.first() == Some(&"node") && f.get(1).is_some_and(|n| n.starts_with(name)))
                    .then(|| f[3].parse().unwrap())
            })
            .collect()
    };
    let legend = y("legend");
    let events = y("e");
    assert_eq!(legend.len(), 1, "{plain}");
    assert_eq!(events.len(), 4, "{plain}");
    // -Tplain's y grows upwards.
    assert!(events.iter().all(|&e| e > legend[0]), "{plain}");
}

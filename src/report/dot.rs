//! Graphviz (DOT) pictures of an execution: one cluster per thread nested in
//! subgroup, workgroup and queue-family clusters, events labelled with their
//! instruction and values, immediate edges coloured per relation family, a
//! legend, and (for a forbidden outcome) the rejecting cycle drawn bold.

use crate::analysis::explain::{Edge, Witness};
use crate::model::profile::{EdgeStyle, family};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Colour and line style of a relation's family (the binding name before
/// its first `_`), as the model's profile declares it (`edge-style`).
fn style<'w>(styles: &'w [EdgeStyle], relation: &str) -> (&'w str, &'w str) {
    let f = family(relation);
    styles
        .iter()
        .find(|s| s.family == f)
        .map_or(("brown", "dotted"), |s| {
            (s.colour.as_str(), s.line.as_str())
        })
}

fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Options for [`to_dot`].
#[derive(Clone, Debug, Default)]
pub struct DotOptions {
    /// Only draw these relation families / bindings (empty: all).
    pub relations: Vec<String>,
    pub title: String,
}

/// The DOT text of an execution. `cycle` edges (a forbidden outcome's
/// rejecting cycle) are drawn bold and listed in the legend.
pub fn to_dot(w: &Witness, cycle: &[Edge], opts: &DotOptions) -> String {
    let keep = |rel: &str| {
        opts.relations.is_empty()
            || opts
                .relations
                .iter()
                .any(|r| r == rel || rel.split('_').next() == Some(r.as_str()))
    };
    let mut s = String::new();
    let _ = writeln!(s, "digraph vkmm {{");
    let _ = writeln!(s, "  label=\"{}\";", escape(&opts.title));
    let _ = writeln!(s, "  labelloc=t; rankdir=TB; compound=true;");
    let _ = writeln!(
        s,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    let _ = writeln!(s, "  edge [fontname=\"monospace\", fontsize=9];");
    // queue family -> workgroup -> subgroup -> thread -> events
    type Tree = BTreeMap<usize, BTreeMap<usize, BTreeMap<usize, BTreeMap<usize, Vec<usize>>>>>;
    let mut tree: Tree = BTreeMap::new();
    for (i, e) in w.graph_events.iter().enumerate() {
        tree.entry(e.queue_family)
            .or_default()
            .entry(e.workgroup)
            .or_default()
            .entry(e.subgroup)
            .or_default()
            .entry(e.thread)
            .or_default()
            .push(i);
    }
    for (qf, wgs) in &tree {
        let _ = writeln!(
            s,
            "  subgraph cluster_qf{qf} {{ label=\"queue family {qf}\"; style=rounded; color=gray70;"
        );
        for (wg, sgs) in wgs {
            let _ = writeln!(
                s,
                "    subgraph cluster_wg{wg} {{ label=\"workgroup {wg}\"; style=rounded; color=gray50;"
            );
            for (sg, threads) in sgs {
                let _ = writeln!(
                    s,
                    "      subgraph cluster_sg{sg} {{ label=\"subgroup {sg}\"; style=dashed; color=gray60;"
                );
                for (t, evs) in threads {
                    let _ = writeln!(
                        s,
                        "        subgraph cluster_t{t} {{ label=\"P{t}\"; style=solid; color=black;"
                    );
                    for &i in evs {
                        let e = &w.graph_events[i];
                        let text = e.text.split_once(' ').map(|(_, r)| r).unwrap_or(&e.text);
                        let _ = writeln!(
                            s,
                            "          e{} [label=\"e{}: {}\"];",
                            e.id,
                            e.id,
                            escape(text)
                        );
                    }
                    // program order, immediate, as invisible layout edges plus thin arrows
                    for pair in evs.windows(2) {
                        let (a, b) = (w.graph_events[pair[0]].id, w.graph_events[pair[1]].id);
                        let _ = writeln!(
                            s,
                            "          e{a} -> e{b} [color=gray80, arrowsize=0.5, weight=10];"
                        );
                    }
                    let _ = writeln!(s, "        }}");
                }
                let _ = writeln!(s, "      }}");
            }
            let _ = writeln!(s, "    }}");
        }
        let _ = writeln!(s, "  }}");
    }
    let mut used: BTreeMap<String, (String, &str, &str)> = BTreeMap::new();
    for e in &w.edges {
        let in_cycle = cycle
            .iter()
            .any(|c| c.from_id == e.from_id && c.to_id == e.to_id && c.relation == e.relation);
        if !keep(&e.relation) || in_cycle {
            continue;
        }
        let (color, st) = style(&w.styles, &e.relation);
        used.entry(e.relation.clone())
            .or_insert((e.label.clone(), color, st));
        let _ = writeln!(
            s,
            "  e{} -> e{} [color={color}, style={st}, label=\"{}\", fontcolor={color}, constraint=false];",
            e.from_id,
            e.to_id,
            escape(&e.relation)
        );
    }
    for e in cycle {
        let (color, _) = style(&w.styles, &e.relation);
        let _ = writeln!(
            s,
            "  e{} -> e{} [color={color}, penwidth=3, label=\"{} (cycle)\", fontcolor={color}, constraint=false];",
            e.from_id,
            e.to_id,
            escape(&e.relation)
        );
        used.entry(e.relation.clone())
            .or_insert((e.label.clone(), color, "solid"));
    }
    // legend: one compact table node
    let _ = writeln!(
        s,
        "  subgraph cluster_legend {{ label=\"legend\"; style=solid; color=gray80;"
    );
    let mut rows = String::new();
    for (rel, (label, color, st)) in &used {
        let line = if *st == "solid" {
            "&#9472;&#9472;&#9658;"
        } else {
            "- - &#9658;"
        };
        let _ = write!(
            rows,
            "<tr><td align=\"left\"><font color=\"{color}\">{line} {}</font></td><td align=\"left\">{}</td></tr>",
            html(rel),
            html(label)
        );
    }
    if !cycle.is_empty() {
        rows.push_str("<tr><td align=\"left\"><b>bold</b></td><td align=\"left\">the cycle that rejects this execution</td></tr>");
    }
    let _ = writeln!(
        s,
        "    legend [shape=none, fontsize=9, label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"2\">{rows}</table>>];"
    );
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    s
}

/// The picture of an explanation: the witness of an allowed outcome, or the
/// first rejected execution with its cycle for a forbidden one. An outcome
/// that is unreachable or undecided has nothing honest to draw: the error
/// says why.
pub fn explanation(
    x: &crate::analysis::explain::Explanation,
    relations: &[String],
) -> Result<String, String> {
    use crate::analysis::explain::Verdict;
    let (drawn, cycle, what) = match (x.verdict, &x.witness, &x.rejected) {
        (Verdict::Allowed, Some(w), _) => (w, &[][..], "a witness execution (allowed)"),
        (Verdict::Forbidden, _, Some((w, c))) => {
            (w, &c[..], "a rejected execution and its cycle (forbidden)")
        }
        (Verdict::Undecided, _, _) => {
            return Err(format!(
                "outcome ({}) is undecided: the search stopped at the execution limit before finding a consistent execution producing it (raise --max-executions); nothing to draw",
                x.outcome
            ));
        }
        _ => {
            return Err(format!(
                "no candidate execution produces the outcome ({}): nothing to draw",
                x.outcome
            ));
        }
    };
    let opts = DotOptions {
        relations: relations.to_vec(),
        title: format!("{}: {} — {what}", x.test, x.outcome),
    };
    Ok(to_dot(drawn, cycle, &opts))
}

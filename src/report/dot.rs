//! Graphviz (DOT) pictures of an execution: one cluster per thread nested in
//! subgroup, workgroup and queue-family clusters, events labelled with their
//! instruction and values, immediate edges coloured per relation family, a
//! legend, and (for a forbidden outcome) the rejecting cycle drawn bold.

use crate::analysis::explain::{Edge, GraphEvent, Witness};
use crate::ir::Dialect;
use crate::ir::host::Agent;
use crate::model::profile::{EdgeStyle, family};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Colours for families the profile declares no style for, dotted: a
/// family keeps its colour from picture to picture (chosen by its name).
const UNDECLARED: &[&str] = &[
    "brown",
    "deeppink",
    "olivedrab",
    "steelblue",
    "goldenrod",
    "sienna",
    "cadetblue",
];

/// Colour and line style of a relation's family (the binding name before
/// its first `_`), as the model's profile declares it (`edge-style`), else
/// a colour of [`UNDECLARED`], dotted.
fn style<'w>(styles: &'w [EdgeStyle], relation: &str) -> (&'w str, &'w str) {
    let f = family(relation);
    styles.iter().find(|s| s.family == f).map_or_else(
        || {
            let h = f
                .bytes()
                .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
            (UNDECLARED[h % UNDECLARED.len()], "dotted")
        },
        |s| (s.colour.as_str(), s.line.as_str()),
    )
}

fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One level of scope instances drawn as clusters.
struct Level {
    id: &'static str,
    name: &'static str,
    style: &'static str,
    key: fn(&GraphEvent) -> usize,
    /// The cluster's label, when not `name` and the key.
    label: Option<fn(&GraphEvent) -> String>,
    /// Whether only invocations are in its instances (a picture with host
    /// threads draws no such cluster around a host thread or submission).
    device_only: bool,
    /// Which of an event's source scope numbers (`sg`, `wg`, `qf`:
    /// [`GraphEvent::scope_numbers`]) labels the level's instances; without
    /// one, instances are numbered in order of appearance within their
    /// parent from 0, not by the engine's internal ids.
    numbered: Option<usize>,
}

/// The levels of a picture of fragment invocations: one cluster per pixel
/// (and subpass), inside it one per primitive in rasterization order (the
/// order of the interlock's ordered modes), then the invocations.
fn fragment_levels() -> Vec<Level> {
    fn pixel_key(e: &GraphEvent) -> usize {
        // distinct for pixels below 65536 (usize is 32 bits on wasm32)
        e.fragment.map_or(usize::MAX, |f| {
            (f.subpass as usize)
                .wrapping_mul(1 << 16)
                .wrapping_add(f.pixel as usize)
        })
    }
    vec![
        Level {
            id: "px",
            name: "pixel",
            style: "style=rounded; color=gray50",
            key: pixel_key,
            label: Some(|e| match e.fragment {
                Some(f) if f.subpass == 0 => format!("pixel {}", f.pixel),
                Some(f) => format!("pixel {}, subpass {}", f.pixel, f.subpass),
                None => "not fragment invocations".to_string(),
            }),
            device_only: false,
            numbered: None,
        },
        Level {
            id: "prim",
            name: "primitive",
            style: "style=dashed; color=gray60",
            key: |e| e.fragment.map_or(usize::MAX, |f| f.primitive as usize),
            label: Some(|e| match e.fragment {
                Some(f) => format!("primitive {} (rasterization order)", f.primitive),
                None => "-".to_string(),
            }),
            device_only: false,
            numbered: None,
        },
    ]
}

/// The scope instances a dialect has, outermost first: Vulkan queue
/// families, workgroups and subgroups; OpenCL devices and work-groups.
fn levels(dialect: Dialect) -> Vec<Level> {
    const OUTER: &str = "style=rounded; color=gray70";
    const MIDDLE: &str = "style=rounded; color=gray50";
    let level = |id, name, style, key, numbered| Level {
        id,
        name,
        style,
        key,
        label: None,
        device_only: false,
        numbered,
    };
    match dialect {
        Dialect::Vulkan => vec![
            level("qf", "queue family", OUTER, |e| e.queue_family, Some(2)),
            level("wg", "workgroup", MIDDLE, |e| e.workgroup, Some(1)),
            level(
                "sg",
                "subgroup",
                "style=dashed; color=gray60",
                |e| e.subgroup,
                Some(0),
            ),
        ],
        Dialect::OpenCl => vec![
            level("dev", "device", OUTER, |e| e.device, None),
            level("wg", "work-group", MIDDLE, |e| e.workgroup, None),
        ],
    }
}

/// The levels of a picture with host threads and queue submissions
/// (docs/host.md): the host threads in one cluster, each queue's
/// submissions in one, the invocations by queue family, workgroup and
/// subgroup (levels whose label is empty for an event draw no cluster
/// around it). An OpenCL test says it in the OpenCL API's words: each
/// command-queue's enqueued commands in one cluster, the work-items by
/// device and work-group.
fn host_levels(dialect: Dialect) -> Vec<Level> {
    fn agent_key(e: &GraphEvent) -> usize {
        match e.agent {
            Agent::Host => 0,
            Agent::Submission { queue } => queue.saturating_add(1),
            Agent::Invocation => usize::MAX,
        }
    }
    let agents = Level {
        id: "agent",
        name: "agents",
        style: "style=bold; color=gray40",
        key: agent_key,
        label: Some(match dialect {
            Dialect::Vulkan => |e| match e.agent {
                Agent::Host => "host threads".to_string(),
                Agent::Submission { queue } => format!("queue {queue} (submissions)"),
                Agent::Invocation => "device (shader invocations)".to_string(),
            },
            Dialect::OpenCl => |e| match (e.agent, &e.host_label) {
                (Agent::Host, _) => "host threads".to_string(),
                (_, Some(l)) => l.queue.clone(),
                (Agent::Submission { queue }, None) => format!("command-queue {queue}"),
                (Agent::Invocation, _) => "devices (work-items)".to_string(),
            },
        }),
        device_only: false,
        numbered: None,
    };
    // The dialect's scope instances, around invocations only.
    let mut all = vec![agents];
    all.extend(levels(dialect).into_iter().map(|l| Level {
        device_only: true,
        ..l
    }));
    all
}

/// The clusters of `events` (indices into the witness's events, sorted by
/// level keys, thread and id) from `depth` down: one per instance of the
/// level, threads innermost with their events and program order.
fn clusters(
    s: &mut String,
    w: &Witness,
    opts: &DotOptions,
    levels: &[Level],
    events: &[usize],
    depth: usize,
) {
    let indent = "  ".repeat(depth + 1);
    let ev = |i: usize| &w.graph_events[i];
    // Graphviz (dot 2.43) lays sibling clusters nested in a cluster out
    // right to left in the order they are written, top-level ones left to
    // right: nested siblings are written last first, so that they read
    // left to right (tests/analysis/show.rs checks the rendered positions). Other
    // Graphviz builds keep the written order (`DotOptions::written_order`:
    // the playground's Viz.js tries both and keeps the one that reads
    // left to right).
    let mut groups: Vec<&[usize]> = Vec::new();
    let mut rest = events;
    while let Some(&first) = rest.first() {
        let same = |i: &usize| match levels.get(depth) {
            Some(l) => (l.key)(ev(*i)) == (l.key)(ev(first)),
            None => ev(*i).thread == ev(first).thread,
        };
        let n = rest.iter().take_while(|i| same(i)).count();
        let (group, tail) = rest.split_at(n);
        groups.push(group);
        rest = tail;
    }
    let mut groups: Vec<(usize, &[usize])> = groups.into_iter().enumerate().collect();
    if depth > 0 && !opts.written_order {
        groups.reverse();
    }
    for (appearance, group) in groups {
        let first = group[0];
        let (key, what) = match levels.get(depth) {
            Some(l) => ((l.key)(ev(first)), l),
            None => (ev(first).thread, &THREAD),
        };
        let label = if depth == levels.len() {
            // A fragment invocation says which samples it covers.
            let samples = ev(first).fragment.map(|f| {
                let list: Vec<String> = (0..64)
                    .filter(|k| f.samples >> k & 1 == 1)
                    .map(|k| k.to_string())
                    .collect();
                format!("samples {}", list.join(","))
            });
            // An OpenCL command says what it is (`enqueued kernel (P1);
            // event k1`).
            let command = ev(first).host_label.as_ref().map(|l| escape(&l.command));
            let notes: Vec<String> = samples
                .into_iter()
                .chain(command)
                .chain(opts.thread_notes.get(&key).map(|n| escape(n)))
                .collect();
            if notes.is_empty() {
                format!("P{key}")
            } else {
                format!("P{key} ({})", notes.join("; "))
            }
        } else if what.device_only && ev(first).agent != Agent::Invocation {
            String::new()
        } else if let Some(l) = what.label {
            escape(&l(ev(first)))
        } else {
            let number = what
                .numbered
                .and_then(|k| ev(first).scope_numbers.map(|n| n[k]))
                .unwrap_or(appearance);
            format!("{} {number}", what.name)
        };
        // A level with nothing to say about these events draws no cluster.
        if depth < levels.len() && label.is_empty() {
            clusters(s, w, opts, levels, group, depth + 1);
            continue;
        }
        let _ = writeln!(
            s,
            "{indent}subgraph cluster_{}{key} {{ label=\"{label}\"; {};",
            what.id, what.style
        );
        if depth < levels.len() {
            clusters(s, w, opts, levels, group, depth + 1);
        } else {
            for &i in group {
                let e = ev(i);
                let text = e.text.split_once(' ').map(|(_, r)| r).unwrap_or(&e.text);
                let fill = opts
                    .marks
                    .iter()
                    .find(|(id, _)| *id == e.id)
                    .map_or(String::new(), |(_, colour)| {
                        format!(", style=filled, fillcolor={colour}")
                    });
                let _ = writeln!(
                    s,
                    "{indent}  e{} [label=\"e{}: {}\"{fill}];",
                    e.id,
                    e.id,
                    escape(text)
                );
            }
            // program order, immediate: thin gray arrows that keep the
            // thread's events in a column
            for pair in group.windows(2) {
                let _ = writeln!(
                    s,
                    "{indent}  e{} -> e{} [color={PO_COLOUR}, arrowsize=0.5, weight=10];",
                    ev(pair[0]).id,
                    ev(pair[1]).id
                );
            }
        }
        let _ = writeln!(s, "{indent}}}");
    }
}

/// The innermost cluster: one per thread.
const THREAD: Level = Level {
    id: "t",
    name: "P",
    style: "style=solid; color=black",
    key: |e| e.thread,
    label: None,
    device_only: false,
    numbered: None,
};

/// Program order's colour (threads draw it between consecutive events).
const PO_COLOUR: &str = "gray60";

/// The colour of racing pairs.
const RACE_COLOUR: &str = "red3";

/// Options for [`to_dot`].
#[derive(Clone, Debug, Default)]
pub struct DotOptions {
    /// Only draw these relation families / bindings (empty: all).
    pub relations: Vec<String>,
    pub title: String,
    /// Events drawn filled: (event id, fill colour).
    pub marks: Vec<(usize, &'static str)>,
    /// What each fill colour means (legend rows).
    pub mark_legend: Vec<(&'static str, String)>,
    /// Words after a thread's cluster label, by thread number (`P0 (stuck)`).
    pub thread_notes: BTreeMap<usize, String>,
    /// Write nested sibling clusters in litmus order (default: last first,
    /// which dot 2.43 lays out left to right; see `clusters`).
    pub written_order: bool,
    /// Draw the execution's racing pairs ([`Witness::races`]).
    pub races: bool,
    /// The label of each racing pair of the drawn execution
    /// ([`Witness::races`]), `race on x (scope mismatch)`; a pair without
    /// one reads `data race`.
    pub race_labels: BTreeMap<(usize, usize), String>,
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
    let _ = writeln!(
        s,
        "  labelloc=t; rankdir=TB; compound=true; ranksep=0.9; nodesep=0.5;"
    );
    let _ = writeln!(
        s,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    let _ = writeln!(s, "  edge [fontname=\"monospace\", fontsize=9];");
    // The scope instances as nested clusters (the dialect's levels), then
    // the threads, in litmus order left to right.
    // Fragment invocations are drawn by pixel and primitive instead; host
    // threads and queue submissions in clusters of their own.
    let levels = if w.graph_events.iter().any(|e| e.fragment.is_some()) {
        fragment_levels()
    } else if w.graph_events.iter().any(|e| e.agent != Agent::Invocation) {
        host_levels(w.dialect)
    } else {
        levels(w.dialect)
    };
    let mut order: Vec<usize> = (0..w.graph_events.len()).collect();
    order.sort_by_key(|&i| {
        let e = &w.graph_events[i];
        (
            levels.iter().map(|l| (l.key)(e)).collect::<Vec<_>>(),
            e.thread,
            e.id,
        )
    });
    clusters(&mut s, w, opts, &levels, &order, 0);
    // One arrow per pair of events: parallel colours for the relations
    // joining them, bold when it is part of the rejecting cycle, labelled
    // near its tail (labels at the middle of crossing arrows collide) with
    // the relation families; the legend names the bindings.
    let mut used: BTreeMap<String, (String, &str, &str)> = BTreeMap::new();
    let mut arrows: BTreeMap<(usize, usize), Vec<(&Edge, bool)>> = BTreeMap::new();
    for e in cycle {
        arrows
            .entry((e.from_id, e.to_id))
            .or_default()
            .push((e, true));
    }
    for e in &w.edges {
        let in_cycle = cycle
            .iter()
            .any(|c| c.from_id == e.from_id && c.to_id == e.to_id && c.relation == e.relation);
        if keep(&e.relation) && !in_cycle {
            arrows
                .entry((e.from_id, e.to_id))
                .or_default()
                .push((e, false));
        }
    }
    // Arrows leaving one event fan their tail labels out (alternating
    // sides, further each time) so that they do not print over each other.
    let mut leaving: BTreeMap<usize, usize> = BTreeMap::new();
    for ((a, b), list) in &arrows {
        let k = leaving.entry(*a).or_insert(0);
        let angle = if k.is_multiple_of(2) { 30 } else { -30 } * (1 + *k as i64 / 2);
        let distance = 2.5 + 0.6 * (*k / 2) as f64;
        *k += 1;
        let mut colours: Vec<&str> = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        let mut dashed = true;
        for (e, in_cycle) in list {
            let (colour, st) = style(&w.styles, &e.relation);
            let st = if *in_cycle { "solid" } else { st };
            used.entry(e.relation.clone())
                .or_insert((e.label.clone(), colour, st));
            dashed &= st != "solid";
            if !colours.contains(&colour) {
                colours.push(colour);
                labels.push(format!(
                    "<font color=\"{colour}\">{}</font>",
                    html(family(&e.relation))
                ));
            }
        }
        let bold = list.iter().any(|(_, c)| *c);
        let _ = writeln!(
            s,
            "  e{a} -> e{b} [color=\"{}\", style={}, penwidth={}, taillabel=<{}>, labeldistance={distance}, labelangle={angle}, constraint=false];",
            colours.join(":"),
            if dashed { "dashed" } else { "solid" },
            if bold { 3 } else { 1 },
            labels.join(" ")
        );
    }
    // The execution's data races: a red two-headed arrow per racing pair,
    // labelled with the location and what orders them too little.
    for &(a, b) in w.races.iter().filter(|_| opts.races) {
        let label = opts
            .race_labels
            .get(&(a, b))
            .map_or("data race", String::as_str);
        let _ = writeln!(
            s,
            "  e{a} -> e{b} [dir=both, color=\"{RACE_COLOUR}\", style=\"dashed,bold\", penwidth=2, labeldistance=5, labelangle=-20, taillabel=<<font color=\"{RACE_COLOUR}\">{}</font>>, constraint=false];",
            html(label)
        );
    }
    // legend: one compact table node, below the threads (an invisible
    // edge from each thread's last event puts it on a lower rank) so that
    // the picture grows in height, not width
    let _ = writeln!(
        s,
        "  subgraph cluster_legend {{ label=\"legend\"; style=solid; color=gray80;"
    );
    let mut rows = format!(
        "<tr><td align=\"left\"><font color=\"{PO_COLOUR}\">&#9472;&#9472;&#9658; {}</font></td><td align=\"left\">program order (down each thread)</td></tr>",
        html(w.program_order.as_deref().unwrap_or("po"))
    );
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
    for (colour, meaning) in &opts.mark_legend {
        let _ = write!(
            rows,
            "<tr><td align=\"left\" bgcolor=\"{colour}\">event</td><td align=\"left\">{}</td></tr>",
            html(meaning)
        );
    }
    if !cycle.is_empty() {
        rows.push_str("<tr><td align=\"left\"><b>bold</b></td><td align=\"left\">the cycle that rejects this execution</td></tr>");
    }
    if opts.races && !w.races.is_empty() {
        let _ = write!(
            rows,
            "<tr><td align=\"left\"><font color=\"{RACE_COLOUR}\">&#9668;- - &#9658; race</font></td><td align=\"left\">a data race in this execution: conflicting accesses the model leaves unordered</td></tr>"
        );
    }
    let _ = writeln!(
        s,
        "    legend [shape=none, fontsize=9, label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"2\">{rows}</table>>];"
    );
    let _ = writeln!(s, "  }}");
    // One invisible edge, from the last event of the thread with the most
    // events (the lowest rank: the layout pass ranks program order only);
    // an edge from every thread would take part in ordering the threads'
    // clusters and pull them out of litmus order.
    let mut per_thread: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for e in &w.graph_events {
        let entry = per_thread.entry(e.thread).or_insert((0, e.id));
        *entry = (entry.0 + 1, e.id);
    }
    if let Some((_, id)) = per_thread.values().max_by_key(|(n, _)| *n) {
        let _ = writeln!(s, "  e{id} -> legend [style=invis];");
    }
    let _ = writeln!(s, "}}");
    s
}

/// Whether every name `--relations` lists is a binding or family the
/// model's wording labels; the error lists the valid names.
pub fn check_relations(
    x: &crate::analysis::explain::Explanation,
    relations: &[String],
) -> Result<(), String> {
    check_names(&x.relation_names, &x.model, relations)
}

fn check_names(names: &[String], model: &str, relations: &[String]) -> Result<(), String> {
    let unknown: Vec<&str> = relations
        .iter()
        .filter(|r| !names.contains(r))
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(format!(
        "--relations: unknown relation{} `{}` for {}; valid names (bindings and families its wording labels): {}",
        if unknown.len() == 1 { "" } else { "s" },
        unknown.join("`, `"),
        model,
        names.join(", ")
    ))
}

/// The picture of an explanation: the witness of an allowed outcome, or the
/// first rejected execution with its cycle for a forbidden one. An outcome
/// that is unreachable or undecided has nothing honest to draw: the error
/// says why.
pub fn explanation(
    x: &crate::analysis::explain::Explanation,
    relations: &[String],
) -> Result<String, String> {
    explanation_in(x, relations, false)
}

/// [`explanation`], nested sibling clusters written in litmus order when
/// `written_order` (for Graphviz builds that keep it: [`DotOptions::written_order`]).
pub fn explanation_in(
    x: &crate::analysis::explain::Explanation,
    relations: &[String],
    written_order: bool,
) -> Result<String, String> {
    use crate::analysis::explain::Verdict;
    let (drawn, cycle, what) = match (x.verdict, &x.witness, &x.rejected) {
        (Verdict::Allowed, Some(w), _) => (w, &[][..], "a witness execution (allowed)"),
        (Verdict::Forbidden, _, Some((w, c))) => {
            (w, &c[..], "a rejected execution and its cycle (forbidden)")
        }
        (Verdict::Undecided, _, _) => {
            return Err(format!(
                "outcome ({}) is undecided: the search stopped {} before finding a consistent execution producing it (raise {}); nothing to draw",
                x.outcome,
                crate::engine::stopped_at(x.coverage.stopped_by),
                x.coverage
                    .stopped_by
                    .map_or("the limit", crate::engine::LimitKind::option)
            ));
        }
        _ => {
            return Err(format!(
                "no candidate execution produces the outcome ({}): nothing to draw",
                x.outcome
            ));
        }
    };
    check_relations(x, relations)?;
    let opts = DotOptions {
        // by default what the wording's `picture` line names
        relations: if relations.is_empty() {
            x.picture.clone()
        } else {
            relations.to_vec()
        },
        title: format!("{}: {} — {what}", x.test, x.outcome),
        written_order,
        // races are drawn unless `--relations` chose what to draw
        races: relations.is_empty(),
        race_labels: race_labels(x, drawn),
        ..DotOptions::default()
    };
    Ok(to_dot(drawn, cycle, &opts))
}

/// Labels of the drawn execution's racing pairs from the explanation's
/// race diagnoses (matched by instruction): the location, and the scope
/// mismatch or the first missing link that leaves the pair unordered.
fn race_labels(
    x: &crate::analysis::explain::Explanation,
    w: &Witness,
) -> BTreeMap<(usize, usize), String> {
    let instruction =
        |i: usize| crate::analysis::explain::strip_id(w.events.get(i).map_or("", String::as_str));
    let mut out = BTreeMap::new();
    for &(a, b) in &w.races {
        let (ia, ib) = (instruction(a), instruction(b));
        let Some(d) = x
            .races
            .iter()
            .find(|d| (d.first == ia && d.second == ib) || (d.first == ib && d.second == ia))
        else {
            continue;
        };
        let why = if d.missing.iter().any(|m| m.starts_with("scope mismatch")) {
            " (scope mismatch)".to_string()
        } else {
            d.missing
                .first()
                .map(|m| {
                    let link = m.split([':', '(']).next().unwrap_or(m).trim();
                    format!(" (no {link})")
                })
                .unwrap_or_default()
        };
        out.insert((a, b), format!("race on {}{why}", d.location));
    }
    out
}

/// The picture of an explained termination check: the witness execution
/// of a program that can run forever, its threads labelled with their
/// fate, the iterations that repeat forever filled (and those that match
/// them, lighter). A program that terminates (or an undecided search) has
/// nothing to draw: the error says why.
pub fn termination(
    x: &crate::TerminationExplanation,
    relations: &[String],
) -> Result<String, String> {
    use crate::analysis::termination::Verdict;
    let o = &x.outcome;
    let (w, drawn) = match (&o.verdict, &o.witness) {
        (Verdict::NonTerminating, Some(w)) => match &w.execution {
            Some(d) => (w, d),
            None => {
                return Err("the witness was not drawn (use Session::explain_termination)".into());
            }
        },
        (Verdict::Terminates, _) => {
            return Err(format!(
                "{} terminates under progress {}{}: no execution runs forever, nothing to draw",
                o.name,
                o.progress,
                if o.cut_paths > 0 {
                    format!(" (within unroll {})", o.unroll)
                } else {
                    String::new()
                }
            ));
        }
        _ => {
            return Err(format!(
                "termination of {} is undecided: the search stopped {} before finding a witness (raise {}); nothing to draw",
                o.name,
                crate::engine::stopped_at(o.stopped_by),
                o.stopped_by
                    .map_or("the limit", crate::engine::LimitKind::option)
            ));
        }
    };
    check_names(&x.relation_names, &o.model, relations)?;
    let mut marks = Vec::new();
    for l in &w.loops {
        marks.extend(l.suffix_events.iter().map(|&e| (e, SUFFIX_FILL)));
        marks.extend(l.infix_events.iter().map(|&e| (e, INFIX_FILL)));
    }
    let mut mark_legend = vec![(SUFFIX_FILL, "repeats forever".to_string())];
    if w.loops.iter().any(|l| !l.infix_events.is_empty()) {
        mark_legend.push((INFIX_FILL, "matches the repetition".to_string()));
    }
    let thread_notes = w
        .threads
        .iter()
        .filter_map(|f| {
            let n: usize = f.thread.strip_prefix('P')?.parse().ok()?;
            let fair = if f.fair { "fair" } else { "not fair" };
            Some((n, format!("{}, {fair}", f.fate)))
        })
        .collect();
    let opts = DotOptions {
        relations: if relations.is_empty() {
            x.picture.clone()
        } else {
            relations.to_vec()
        },
        title: format!(
            "{}: runs forever under progress {} — a witness (filled events repeat){}",
            o.name,
            o.progress,
            // Invocations with no event have no cluster: the title says
            // what became of them.
            w.threads
                .iter()
                .filter(|f| f.events == 0)
                .map(|f| format!(
                    "; {} {}, {}",
                    f.thread,
                    f.fate,
                    if f.fair { "fair" } else { "not fair" }
                ))
                .collect::<String>()
        ),
        marks,
        mark_legend,
        thread_notes,
        written_order: false,
        races: false,
        race_labels: BTreeMap::new(),
    };
    Ok(to_dot(drawn, &[], &opts))
}

/// Fill of the events that repeat forever in a termination witness.
const SUFFIX_FILL: &str = "lightpink";
/// Fill of the iterations matching them.
const INFIX_FILL: &str = "mistyrose";

/// A picture split for a two-pass rendering: the DOT text without its
/// relation edges, and those edges (the lines drawn with
/// `constraint=false`). Graphviz orders sibling clusters by crossing
/// minimisation over every edge, so on dense pictures (six threads in
/// three workgroups) the rf/fr edges pulled threads out of litmus order;
/// laid out without them (only scope instances and program order), the
/// threads stay left to right, and the edges are then routed over the
/// fixed positions (`neato -n2`). The `vkmm` binary renders `--svg` and
/// `--png` this way.
pub fn split_relations(dot: &str) -> (String, Vec<String>) {
    let mut layout = String::new();
    let mut edges = Vec::new();
    for line in dot.lines() {
        if line.contains("constraint=false") {
            edges.push(line.to_string());
        } else {
            layout.push_str(line);
            layout.push('\n');
        }
    }
    (layout, edges)
}

/// Adds the relation edges of [`split_relations`] to a picture Graphviz has
/// laid out (`dot -Tdot`), asking for edges routed around the placed nodes.
pub fn with_relations(laid_out: &str, edges: &[String]) -> String {
    let body = laid_out.trim_end();
    let body = body.strip_suffix('}').unwrap_or(body);
    let mut s = String::from(body);
    s.push_str("\tsplines=true;\n");
    for e in edges {
        s.push_str(e);
        s.push('\n');
    }
    s.push_str("}\n");
    s
}

//! diy-style test generation: a Vulkan litmus test from a cycle of
//! relations with GPU annotations, e.g. `Rfe.dv.rel-acq PodRR Fre.wg`
//! (docs/synthesis.md, "Tests from a cycle").
//!
//! Each edge of the cycle goes from one event to the next, the last back to
//! the first. Communication edges (`Rfe`, `Fre`, `Coe`: reads-from,
//! from-reads, coherence between two threads) change thread and keep the
//! location; program-order edges (`PodXY`, `PosXY`, X and Y each `R` or
//! `W`) keep the thread, `Pod` changing location and `Pos` keeping it. The
//! test's condition asks for the execution in which every edge of the cycle
//! holds, which a model forbids when the cycle is one of its ordering
//! constraints.
//!
//! Annotations after a communication edge: a scope, `.sg`, `.wg` or `.dv`,
//! places the two threads in one subgroup, in one workgroup (different
//! subgroups) or in different workgroups, and is the scope of the edge's
//! atomics; an access mode, `.rlx` (relaxed atomics), `.rel-acq` (release
//! write, acquire read), `.av-vis` (`st.av`/`ld.vis`), applies to the
//! edge's two events (default: non-atomic). After a program-order edge,
//! `.membar` puts an acquire-release barrier at Device scope between its
//! events.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Comm {
    Rf,
    Fr,
    Co,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Edge {
    /// A communication edge between threads, with its scope and mode.
    Comm {
        kind: Comm,
        scope: &'static str,
        mode: &'static str,
    },
    /// A program-order edge: from-direction, to-direction (true: write),
    /// whether the location changes, whether a barrier sits between.
    Po {
        from_write: bool,
        to_write: bool,
        different: bool,
        membar: bool,
    },
}

impl Edge {
    /// (the source event writes, the target event writes)
    fn directions(&self) -> (bool, bool) {
        match self {
            Edge::Comm { kind, .. } => match kind {
                Comm::Rf => (true, false),
                Comm::Fr => (false, true),
                Comm::Co => (true, true),
            },
            Edge::Po {
                from_write,
                to_write,
                ..
            } => (*from_write, *to_write),
        }
    }
}

fn parse_edge(word: &str) -> Result<Edge, String> {
    let mut parts = word.split('.');
    let head = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    let dir = |c: u8| match c {
        b'R' => Ok(false),
        b'W' => Ok(true),
        _ => Err(format!(
            "`{word}`: a program-order edge ends in two directions, R or W (PodWR)"
        )),
    };
    if let Some(d) = head
        .strip_prefix("Pod")
        .or_else(|| head.strip_prefix("Pos"))
    {
        if d.len() != 2 {
            return Err(format!(
                "`{word}`: expected two directions after {}, e.g. {}WR",
                &head[..3],
                &head[..3]
            ));
        }
        let mut membar = false;
        for a in &rest {
            match *a {
                "membar" => membar = true,
                other => {
                    return Err(format!(
                        "`{word}`: unknown annotation `{other}` on a program-order edge (expected membar)"
                    ));
                }
            }
        }
        return Ok(Edge::Po {
            from_write: dir(d.as_bytes()[0])?,
            to_write: dir(d.as_bytes()[1])?,
            different: head.starts_with("Pod"),
            membar,
        });
    }
    let kind = match head {
        "Rfe" => Comm::Rf,
        "Fre" => Comm::Fr,
        "Coe" => Comm::Co,
        _ => {
            return Err(format!(
                "unknown edge `{word}`: expected Rfe, Fre, Coe, PodXY or PosXY (X, Y: R or W)"
            ));
        }
    };
    let mut scope = "dv";
    let mut mode = "";
    for a in &rest {
        match *a {
            "sg" => scope = "sg",
            "wg" => scope = "wg",
            "dv" => scope = "dv",
            "rlx" => mode = "rlx",
            "rel-acq" => mode = "rel-acq",
            "av-vis" => mode = "av-vis",
            other => {
                return Err(format!(
                    "`{word}`: unknown annotation `{other}` (expected sg, wg, dv, rlx, rel-acq or av-vis)"
                ));
            }
        }
    }
    Ok(Edge::Comm { kind, scope, mode })
}

/// One event of the generated test.
#[derive(Clone, Debug)]
struct Event {
    thread: usize,
    write: bool,
    loc: usize,
    /// Attribute tokens from the communication edges at the event.
    attrs: String,
    /// A barrier to put before the event.
    membar_before: bool,
}

/// A generated test: its name and Vulkan-dialect text.
#[derive(Clone, Debug)]
pub struct Generated {
    pub name: String,
    pub text: String,
}

/// The test of `cycle` (edges separated by spaces).
pub fn from_cycle(cycle: &str) -> Result<Generated, String> {
    let words: Vec<&str> = cycle.split_whitespace().collect();
    if words.is_empty() {
        return Err("the cycle names no edge".into());
    }
    let edges: Vec<Edge> = words
        .iter()
        .map(|w| parse_edge(w))
        .collect::<Result<_, _>>()?;
    let n = edges.len();
    // Start right after a communication edge, so that threads are the runs
    // of program-order edges.
    let Some(last_comm) = edges.iter().rposition(|e| matches!(e, Edge::Comm { .. })) else {
        return Err(
            "the cycle has no communication edge (Rfe, Fre, Coe): it stays in one thread".into(),
        );
    };
    let order: Vec<usize> = (0..n).map(|i| (last_comm + 1 + i) % n).collect();
    let edges: Vec<Edge> = order.iter().map(|&i| edges[i].clone()).collect();
    let words: Vec<&str> = order.iter().map(|&i| words[i]).collect();
    // Event i is the target of edge i-1 and the source of edge i.
    let mut events = Vec::with_capacity(n);
    let changes = edges
        .iter()
        .filter(|e| {
            matches!(
                e,
                Edge::Po {
                    different: true,
                    ..
                }
            )
        })
        .count()
        .max(1);
    if edges
        .iter()
        .filter(|e| {
            matches!(
                e,
                Edge::Po {
                    different: true,
                    ..
                }
            )
        })
        .count()
        == 1
    {
        return Err("the cycle has one Pod edge: it changes location once and cannot come back to the first (use Pos, or two Pod edges)".into());
    }
    let (mut thread, mut loc) = (0, 0);
    for i in 0..n {
        let into = &edges[(i + n - 1) % n];
        let out = &edges[i];
        let (w_in, w_out) = (into.directions().1, out.directions().0);
        if w_in != w_out {
            return Err(format!(
                "`{}` ends at a {} but `{}` starts at a {}",
                words[(i + n - 1) % n],
                if w_in { "write" } else { "read" },
                words[i],
                if w_out { "write" } else { "read" }
            ));
        }
        if i > 0 {
            match into {
                Edge::Comm { .. } => thread += 1,
                Edge::Po { different, .. } => {
                    if *different {
                        loc = (loc + 1) % changes;
                    }
                }
            }
        }
        let mut attrs = String::new();
        for e in [into, out] {
            if let Edge::Comm { scope, mode, .. } = e {
                let token = match (*mode, w_in) {
                    ("rlx", _) => format!(".atom.{scope}"),
                    ("rel-acq", true) => format!(".atom.rel.{scope}.semsc0"),
                    ("rel-acq", false) => format!(".atom.acq.{scope}.semsc0"),
                    ("av-vis", true) => format!(".av.{scope}"),
                    ("av-vis", false) => format!(".vis.{scope}"),
                    _ => String::new(),
                };
                // The stronger of the two edges' annotations wins.
                if token.len() > attrs.len() {
                    attrs = token;
                }
            }
        }
        events.push(Event {
            thread,
            write: w_in,
            loc,
            attrs,
            membar_before: matches!(into, Edge::Po { membar: true, .. }) && i > 0,
        });
    }
    let threads = thread + 1;
    if threads < 2 {
        return Err(
            "the cycle needs two communication edges to leave a thread and come back".into(),
        );
    }
    // The last edge must come back to the first thread through a
    // communication edge and keep the location.
    if events[n - 1].loc != events[0].loc {
        return Err("the cycle's locations do not close: the number of Pod edges leaves the last event on another location than the first".into());
    }
    // Placements: a communication edge's scope relates its two threads.
    let mut place: Vec<(usize, usize)> = vec![(0, 0)];
    for t in 1..threads {
        let i = events.iter().position(|e| e.thread == t).unwrap();
        let scope = match &edges[i - 1] {
            Edge::Comm { scope, .. } => *scope,
            _ => "dv",
        };
        let (wg, sg) = place[t - 1];
        place.push(match scope {
            "sg" => (wg, sg),
            "wg" => (
                wg,
                place
                    .iter()
                    .filter(|p| p.0 == wg)
                    .map(|p| p.1)
                    .max()
                    .unwrap_or(0)
                    + 1,
            ),
            _ => (place.iter().map(|p| p.0).max().unwrap_or(0) + 1, 0),
        });
    }
    // Values: writes store 1, 2, ... in cycle order. Coherence per
    // location: Coe edges and Fre edges whose read reads from a write of
    // the cycle order writes; otherwise cycle order.
    let mut value = vec![0i64; n];
    let mut next = 0;
    for (i, e) in events.iter().enumerate() {
        if e.write {
            next += 1;
            value[i] = next;
        }
    }
    let rf_source = |r: usize| -> Option<usize> {
        let i = (r + n - 1) % n;
        matches!(edges[i], Edge::Comm { kind: Comm::Rf, .. }).then_some(i)
    };
    let mut conds = Vec::new();
    let mut regs = vec![0usize; threads];
    let mut reg_of = vec![String::new(); n];
    for (i, e) in events.iter().enumerate() {
        if !e.write {
            reg_of[i] = format!("r{}", regs[e.thread]);
            regs[e.thread] += 1;
        }
    }
    let mut final_writes: Vec<(usize, i64)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.write {
            continue;
        }
        let read = match (rf_source(i), &edges[i]) {
            (Some(w), _) => value[w],
            // A from-read: the read sees the write's coherence predecessor,
            // the initial value in a cycle with one write per location
            // before it.
            (None, Edge::Comm { kind: Comm::Fr, .. }) => 0,
            _ => continue,
        };
        conds.push(format!("P{}:{} == {read}", e.thread, reg_of[i]));
    }
    // Coe W1 -> W2: W2 is coherence-after W1; with two writes to the
    // location, the final value is W2's.
    for (i, e) in edges.iter().enumerate() {
        if let Edge::Comm { kind: Comm::Co, .. } = e {
            let to = (i + 1) % n;
            final_writes.push((events[to].loc, value[to]));
        }
    }
    const LOCS: &[&str] = &["x", "y", "z", "w", "v", "u"];
    if changes > LOCS.len() {
        return Err(format!(
            "the cycle uses {changes} locations; at most {} are named",
            LOCS.len()
        ));
    }
    for (l, v) in final_writes {
        conds.push(format!("{} == {v}", LOCS[l]));
    }
    // The text.
    let mut cols: Vec<Vec<String>> = (0..threads)
        .map(|t| vec![format!("P{t}@sg {}, wg {}, qf 0", place[t].1, place[t].0)])
        .collect();
    for (i, e) in events.iter().enumerate() {
        let col = &mut cols[e.thread];
        if e.membar_before {
            col.push("membar.acq_rel.dv.semsc0".into());
        }
        let x = LOCS[e.loc];
        col.push(if e.write {
            format!("st{}.sc0 {x}, {}", e.attrs, value[i])
        } else {
            format!("ld{}.sc0 {}, {x}", e.attrs, reg_of[i])
        });
    }
    let name = words.join("+").replace('.', "-");
    let mut text = format!("VULKAN {name}\n\"Generated by vkmm gen from the cycle {cycle}.\"\n");
    super::diff::push_litmus_body(&mut text, LOCS.iter().take(changes).copied(), &cols);
    text.push_str(&format!("exists ({})\n", conds.join(" /\\ ")));
    Ok(Generated { name, text })
}

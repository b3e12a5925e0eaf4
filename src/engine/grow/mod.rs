//! The execution-graph search (docs/design-programs-search.md, "Step 1:
//! what is built"): executions grown event by event in program order, each
//! thread run with concrete values (`interp`), a read choosing its write
//! as it is added, a later write revisiting earlier reads (`graph`).
//!
//! Each complete graph is one path per thread with its reads-from fixed:
//! it is handed to the driver as a [`Skeleton`] whose reads have one
//! choice each, so the model is evaluated by the same code as for the
//! path-combining search, under every coherence (and SC) order the
//! skeleton lists. Consistency is checked on complete graphs only.
//!
//! What it leaves out: executions in which program order and reads-from
//! together have a cycle (load buffering), control barriers, group
//! functions, host and interlock operations, undefined initial values and
//! termination questions (refused with an error naming the first
//! statement it cannot run).

mod graph;
mod interp;

use super::driver::{self, CheckError, Coverage, ProgressFn, Visitor};
use super::limits::{ExecError, LimitKind, Limits};
use super::skeleton::Skeleton;
use super::trace::BarrierValues;
use super::trace::{Ending, Path, PathEvent, ReadValue, RegValue};
use crate::ir::Program;
use crate::model::LoadedModel;
use graph::{Access, Graph, Id};
use interp::{Proposed, Step};
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;

/// What one search did, beside the executions it handed on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Complete graphs handed to the driver.
    pub complete: u64,
    /// Complete graphs produced again (only counted, and dropped, when the
    /// search checks for them: [`Options::check_duplicates`]).
    pub duplicates: u64,
    /// Graphs that ended with a thread waiting forever at a read of
    /// another value than the test pins (no execution).
    pub blocked: u64,
    /// Graphs that ended with a thread cut at the unrolling bound.
    pub cut: u64,
    /// Revisits made.
    pub revisits: u64,
    /// Revisits the maximality condition refused.
    pub refused: u64,
}

/// How the search runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Keep every complete graph's key and count (and drop) one produced
    /// twice ([`Stats::duplicates`]): the check the differential tests
    /// make of the maximality condition. Memory grows with the graphs.
    pub check_duplicates: bool,
}

/// A complete graph's place in the walk: what the visitor of
/// [`search`] is handed.
struct Complete<'g> {
    graph: &'g Graph,
    registers: Vec<Vec<(String, i64)>>,
}

/// The search over `program`'s graphs within `limits` (the unrolling
/// bound, the deadline, the memory bound), calling `visit` with each
/// complete graph until it breaks. The limit that stopped it, if one did.
fn search(
    program: &Program,
    limits: &Limits,
    options: Options,
    stats: &mut Stats,
    visit: &mut dyn FnMut(Complete) -> Result<ControlFlow<()>, CheckError>,
) -> Result<Option<LimitKind>, CheckError> {
    let unroll = limits.bounds.unroll;
    let initial = |l: usize| program.initial_value(l);
    let n = program.threads.len();
    let started = web_time::Instant::now();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut stack = vec![Graph::new(n)];
    let mut steps = 0u64;
    while let Some(g) = stack.pop() {
        steps += 1;
        if steps.is_multiple_of(256) {
            if limits.bounds.expired(started) {
                return Ok(Some(LimitKind::Timeout));
            }
            if crate::memory::over(limits.bounds.max_memory) {
                return Ok(Some(LimitKind::MaxMemory));
            }
        }
        // The next event: of the first thread that has one.
        let mut next = None;
        let mut finished = Vec::with_capacity(n);
        let (mut blocked, mut cut) = (false, false);
        for t in 0..n {
            if g.blocked(t, &initial) {
                blocked = true;
                continue;
            }
            match step(program, &g, t, unroll)? {
                Step::Finished(regs) => finished.push(regs),
                Step::Cut => cut = true,
                Step::Event { stmt, proposed } => {
                    next = Some((t, stmt, proposed));
                    break;
                }
            }
        }
        let Some((t, stmt, proposed)) = next else {
            if blocked {
                stats.blocked += 1;
            } else if cut {
                stats.cut += 1;
            } else {
                if options.check_duplicates && !seen.insert(g.key()) {
                    stats.duplicates += 1;
                    continue;
                }
                stats.complete += 1;
                let flow = visit(Complete {
                    graph: &g,
                    registers: finished,
                })?;
                if flow.is_break() {
                    return Ok(None);
                }
            }
            continue;
        };
        match proposed {
            Proposed::Read { loc, pinned } => {
                // One graph per write of the location (and the initial
                // value); the read is added maximally when it reads the
                // latest write.
                let latest = g.latest_write(loc);
                let sources: Vec<Option<Id>> = std::iter::once(None)
                    .chain(g.writes_of(loc).into_iter().map(Some))
                    .collect();
                for rf in sources {
                    let mut g2 = g.clone();
                    g2.push(t, stmt, Access::Read { loc, rf, pinned }, rf == latest);
                    after_read(program, g2, t, unroll, stats, &mut stack)?;
                }
            }
            Proposed::Write { loc, value, rmw } => {
                add_write(
                    program,
                    g,
                    t,
                    stmt,
                    (loc, value, rmw),
                    unroll,
                    stats,
                    &mut stack,
                )?;
            }
            Proposed::Other => {
                let mut g2 = g;
                g2.push(t, stmt, Access::Other, true);
                stack.push(g2);
            }
        }
    }
    Ok(None)
}

/// Where thread `t` of `g` stops next.
fn step(program: &Program, g: &Graph, t: usize, unroll: usize) -> Result<Step, ExecError> {
    let initial = |l: usize| program.initial_value(l);
    let read = |k: usize| {
        g.value_read(
            Id {
                thread: t as u32,
                index: k as u32,
            },
            &initial,
        )
    };
    interp::run(program, t, g.threads[t].len(), &read, unroll)
}

/// After thread `t` of `g` got a read: a read-modify-write's write part
/// follows at once (so that it revisits as a write added with its read),
/// else the graph goes on the stack.
fn after_read(
    program: &Program,
    g: Graph,
    t: usize,
    unroll: usize,
    stats: &mut Stats,
    stack: &mut Vec<Graph>,
) -> Result<(), ExecError> {
    if !g.blocked(t, &|l| program.initial_value(l))
        && let Step::Event {
            stmt,
            proposed:
                Proposed::Write {
                    loc,
                    value,
                    rmw: true,
                },
        } = step(program, &g, t, unroll)?
    {
        return add_write(
            program,
            g,
            t,
            stmt,
            (loc, value, true),
            unroll,
            stats,
            stack,
        );
    }
    stack.push(g);
    Ok(())
}

/// Adds a write as thread `t`'s next event: the graph with it, and each
/// revisit of an earlier read of its location the maximality condition
/// allows ([`Graph::revisit`]).
#[allow(clippy::too_many_arguments)]
fn add_write(
    program: &Program,
    g: Graph,
    t: usize,
    stmt: usize,
    (loc, value, rmw): (usize, Option<i64>, bool),
    unroll: usize,
    stats: &mut Stats,
    stack: &mut Vec<Graph>,
) -> Result<(), ExecError> {
    let mut g = g;
    let a = g.push(t, stmt, Access::Write { loc, value, rmw }, true);
    for r in g.reads_of(loc) {
        if r.thread == a.thread {
            // Program order puts it before `a`: `a`'s prefix holds it.
            continue;
        }
        match g.revisit(r, a) {
            Some(g2) => {
                stats.revisits += 1;
                after_read(program, g2, r.thread as usize, unroll, stats, stack)?;
            }
            None => stats.refused += 1,
        }
    }
    stack.push(g);
    Ok(())
}

/// The skeleton of a complete graph: one path per thread (its events, its
/// final registers), each read's one reads-from choice the write it reads
/// in the graph, the orders listed. `Ok(None)`: too many writes to a
/// location to list their orders (`--max-writes`), with the limit.
fn skeleton_of(
    program: &Program,
    c: &Complete,
    limits: &Limits,
    shapes: &super::base::ShapeCache,
) -> Result<Result<Skeleton, LimitKind>, ExecError> {
    let g = c.graph;
    // Per thread, per node: its event's index among the skeleton's events
    // (a read-modify-write's two nodes are one event).
    let mut event_of: Vec<Vec<usize>> = Vec::with_capacity(g.threads.len());
    let mut paths: Vec<Path> = Vec::with_capacity(g.threads.len());
    let mut offset = 0;
    for (t, nodes) in g.threads.iter().enumerate() {
        let mut events: Vec<PathEvent> = Vec::with_capacity(nodes.len());
        let mut index = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            let id = Id {
                thread: t as u32,
                index: i as u32,
            };
            let mut event = PathEvent {
                stmt: node.stmt,
                read: None,
                write: None,
                derived: None,
                write_prov: None,
                writes: false,
                barrier: BarrierValues::default(),
            };
            match node.access {
                Access::Read { pinned, .. } => {
                    let v = pinned.or_else(|| g.value_read(id, &|l| program.initial_value(l)));
                    event.read = Some(v.map_or(ReadValue::Symbolic, ReadValue::Concrete));
                }
                Access::Write {
                    value, rmw: true, ..
                } => {
                    let last = events
                        .last_mut()
                        .expect("a write part follows its read part");
                    last.write = value;
                    last.writes = true;
                    index.push(offset + events.len() - 1);
                    continue;
                }
                Access::Write { value, .. } => {
                    event.write = value;
                    event.writes = true;
                }
                Access::Other => {}
            }
            events.push(event);
            index.push(offset + events.len() - 1);
        }
        offset += events.len();
        event_of.push(index);
        paths.push(Path {
            events,
            registers: c.registers[t]
                .iter()
                .map(|(r, v)| (r.clone(), RegValue::Const(*v)))
                .collect(),
            awaits: Vec::new(),
            ending: Ending::Finished,
            exprs: Vec::new(),
        });
    }
    let refs: Vec<&Path> = paths.iter().collect();
    let no_pins = vec![HashSet::new(); program.threads.len()];
    // Graphs with the same events share their static relations (and the
    // driver the model prepared for them: `Skeleton::shape`).
    let shapes = Some(shapes);
    let mut sk = match Skeleton::build_unlisted(program, &refs, *limits, None, &no_pins, shapes) {
        Ok(sk) => sk,
        Err(ExecError {
            limit: Some(kind), ..
        }) => return Ok(Err(kind)),
        Err(e) => return Err(e),
    };
    // The one reads-from choice of each read: the graph's.
    let mut source: BTreeMap<usize, Option<usize>> = BTreeMap::new();
    for id in g.ids() {
        if let Access::Read { rf, .. } = g.node(id).access {
            let e = event_of[id.thread as usize][id.index as usize];
            source.insert(e, rf.map(|w| event_of[w.thread as usize][w.index as usize]));
        }
    }
    for (k, &e) in sk.reads.iter().enumerate() {
        let Some(&w) = source.get(&e) else {
            return Err(ExecError::new(format!(
                "event {e} is a read of the skeleton but not of the graph"
            )));
        };
        sk.rf_choices[k] = vec![w];
    }
    // No read is factored: each has one choice.
    sk.observation = Vec::new();
    match sk.list_orders(None) {
        Ok(()) => Ok(Ok(sk)),
        Err(ExecError {
            limit: Some(kind), ..
        }) => Ok(Err(kind)),
        Err(e) => Err(e),
    }
}

/// Why the search refuses `program` under `limits`, if it does.
fn refused(program: &Program, limits: &Limits) -> Option<String> {
    if limits.endings {
        return Some("the execution-graph search does not answer termination questions yet".into());
    }
    if limits.undefined_values && !program.undefined.is_empty() {
        return Some(
            "the execution-graph search does not run programs with undefined initial values yet"
                .into(),
        );
    }
    if !program.host.is_empty() {
        return Some("the execution-graph search does not run host threads yet".into());
    }
    interp::unsupported(program)
}

/// The walk over `program`'s consistent executions under `loaded`, grown
/// as graphs, each complete graph handed to `visitor` through the driver
/// (`driver::explore_produced`). What [`super::explore`] does, for the
/// programs this search runs (others: an error saying why).
pub fn explore(
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Coverage, CheckError> {
    explore_with_stats(
        program,
        loaded,
        limits,
        visitor,
        progress,
        Options::default(),
    )
    .map(|(c, _)| c)
}

/// [`explore`] with `options`, saying what the search did.
pub fn explore_with_stats(
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
    options: Options,
) -> Result<(Coverage, Stats), CheckError> {
    let limits = limits.for_model(loaded);
    if let Some(why) = refused(program, &limits) {
        return Err(CheckError::Exec(ExecError::new(why)));
    }
    let mut stats = Stats::default();
    let shapes = super::base::ShapeCache::default();
    let coverage = driver::explore_produced(loaded, limits, visitor, progress, &mut |hand| {
        let mut skipped = None;
        let stopped = search(
            program,
            &limits,
            options,
            &mut stats,
            &mut |c| match skeleton_of(program, &c, &limits, &shapes)? {
                Ok(sk) => hand(sk),
                Err(kind) => {
                    skipped.get_or_insert(kind);
                    Ok(ControlFlow::Continue(()))
                }
            },
        )?;
        Ok(driver::Produced {
            cut: usize::try_from(stats.cut).unwrap_or(usize::MAX),
            stopped_by: stopped.or(skipped),
        })
    })?;
    Ok((coverage, stats))
}

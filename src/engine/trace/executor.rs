//! The per-thread executor: one thread's code run on its own, path by
//! path, splitting where a value must be concrete.

use super::budget::Budget;
use super::coherence;
use super::counters;
use super::dispatch;
use super::domains::{Domains, Reads, group_key, group_size, operand_prov, step_group, term_provs};
use super::lockstep;
use super::own::{latest_own_derived, latest_own_derived_event, latest_own_write};
use super::path::*;
use super::shared::{CowVec, Names};
use super::spin::{Labels, SpinLoop, label_map, successor_table};
use super::state::{MAX_FREE_ITERATIONS, Regs, State, location, reg_prov};
use super::trip;
use crate::engine::limits::{ExecError, LimitKind, Limits};
use crate::ir::{Instruction, OpKind, Operand, Program, RmwOp, Stmt, Thread};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The loops of `t`'s code for the unrolling bound: head statement ->
/// the statements of the loop (`head..=back`, `back` its last backward
/// jump to the head). A statement's runs are counted per entry into the
/// innermost loop holding it: arriving at a head from a statement outside
/// its loop starts the count of the loop's statements afresh, so an inner
/// loop runs its body up to `unroll + 1` times in each iteration of the
/// outer one, as Dat3M unrolls a nested loop (`bound` copies of the inner
/// loop in each copy of the outer one). Only when the loops nest (any two
/// are disjoint or one holds the other); otherwise none is given and runs
/// are counted along the whole path. Either way the walk ends: a loop is
/// entered again only through a statement outside it, whose own runs are
/// bounded per entry into the loop around it, and a statement outside
/// every loop runs once (running it twice takes a backward jump over it,
/// which makes a loop holding it).
pub(super) fn loop_ranges(t: &Thread, labels: &Labels) -> HashMap<usize, usize> {
    let mut back: HashMap<usize, usize> = HashMap::new();
    for (j, stmt) in t.code.iter().enumerate() {
        let label = match stmt {
            Stmt::Goto { label, .. } | Stmt::Branch { label, .. } => label,
            _ => continue,
        };
        if let Some(&head) = labels.get(label.as_str())
            && head <= j
        {
            let end = back.entry(head).or_insert(j);
            *end = (*end).max(j);
        }
    }
    let ranges: Vec<(usize, usize)> = back.iter().map(|(h, b)| (*h, *b)).collect();
    let nested = ranges.iter().all(|&(h1, b1)| {
        ranges
            .iter()
            .all(|&(h2, b2)| b1 < h2 || b2 < h1 || (h1 <= h2 && b2 <= b1) || (h2 <= h1 && b1 <= b2))
    });
    if nested { back } else { HashMap::new() }
}

/// The labels of `t` that a jump at or after them targets (`head <= j`,
/// as [`loop_ranges`] reads a backward jump), whether or not the loops
/// nest.
pub(super) fn back_targets(t: &Thread, labels: &Labels) -> HashSet<usize> {
    t.code
        .iter()
        .enumerate()
        .filter_map(|(j, stmt)| match stmt {
            Stmt::Goto { label, .. } | Stmt::Branch { label, .. } => labels
                .get(label.as_str())
                .copied()
                .filter(|&head| head <= j),
            _ => None,
        })
        .collect()
}

/// The immediate post-dominator of each statement of `t` (`t.code.len()`:
/// the end of the thread; `usize::MAX`: none, the statement cannot reach
/// the end): where the paths from a branch meet again. The iterative
/// algorithm of Cooper, Harvey and Kennedy on the reversed control-flow
/// graph, written here because it runs on the IR's flat statement list.
pub(super) fn post_dominators(t: &Thread, succs: &[[Option<usize>; 2]]) -> Vec<usize> {
    let n = t.code.len();
    let succ = |k: usize| succs[k];
    // Predecessors in the reversed graph are successors in the program.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for k in 0..n {
        for x in succ(k).into_iter().flatten() {
            preds[x.min(n)].push(k);
        }
    }
    // Postorder of the reversed graph from the end (node n).
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(n, 0usize)];
    seen[n] = true;
    while let Some((v, i)) = stack.pop() {
        if let Some(&p) = preds[v].get(i) {
            stack.push((v, i + 1));
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            order.push(v);
        }
    }
    let mut rank = vec![usize::MAX; n + 1];
    for (i, &v) in order.iter().enumerate() {
        rank[v] = i;
    }
    let mut idom = vec![usize::MAX; n + 1];
    idom[n] = n;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = idom[a];
            }
            while rank[b] < rank[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev() {
            if v == n {
                continue;
            }
            let mut new = usize::MAX;
            for x in succ(v).into_iter().flatten() {
                let x = x.min(n);
                if idom[x] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    x
                } else {
                    intersect(&idom, new, x)
                };
            }
            if new != usize::MAX && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    idom.truncate(n);
    idom
}

/// The registers the statements between the branch `pc` and `meet` (its
/// immediate post-dominator) assign, on either side.
pub(super) fn region_assigns(
    t: &Thread,
    succs: &[[Option<usize>; 2]],
    pc: usize,
    meet: usize,
) -> Vec<String> {
    let n = t.code.len();
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let succ = |k: usize| succs[k];
    stack.extend(succ(pc).into_iter().flatten());
    let mut out: HashSet<&str> = HashSet::new();
    while let Some(k) = stack.pop() {
        if k >= n || k == meet || seen[k] {
            continue;
        }
        seen[k] = true;
        let dest = match &t.code[k] {
            Stmt::Assign { dest, .. } => Some(dest),
            Stmt::Op(ins) => ins.dest.as_ref(),
            _ => None,
        };
        if let Some(d) = dest {
            out.insert(d);
        }
        stack.extend(succ(k).into_iter().flatten());
    }
    out.into_iter().map(str::to_string).collect()
}

/// Whether the operand is a register holding a value from memory.
pub(super) fn reads_memory(s: &State, op: &Operand) -> bool {
    matches!(op, Operand::Reg(r) if s.from_memory.contains_key(r))
}

/// `dest = a op b`: `dest` holds a value from memory when `a` or `b` does.
/// Inside a region a branch on memory opened, the path is one side of the
/// branch and the value is that side's; where the sides meet again the
/// registers either side assigns take the taint ([`close_regions`]).
pub(super) fn taint(s: &mut State, dest: &str, a: &Operand, b: &Operand) {
    if reads_memory(s, a) || reads_memory(s, b) {
        s.from_memory.insert(dest, ());
    } else {
        s.from_memory.remove(dest);
    }
}

/// At `s.pc`: closes the regions that meet there ([`State::control`]). A
/// register either side of such a region's branch assigns holds, from
/// here on, a value the branch chose: it counts as a value from memory.
fn close_regions(
    s: &mut State,
    t: &Thread,
    succs: &[[Option<usize>; 2]],
    ipdom: &[usize],
    regions: &mut HashMap<usize, Vec<String>>,
) {
    let pc = s.pc;
    if !s.control.iter().any(|&(d, _, _)| d == pc) {
        return;
    }
    for &(d, _, branch) in &s.control {
        if d == pc {
            let assigned = regions
                .entry(branch)
                .or_insert_with(|| region_assigns(t, succs, branch, ipdom[branch]));
            for r in assigned.iter() {
                s.from_memory.insert(r, ());
            }
        }
    }
    s.control.retain(|&(d, _, _)| d != pc);
}

/// At the head `s.pc` of a loop, arrived at by a jump back: whether the
/// iteration just run went round again whatever memory held: every branch
/// on a value from memory it took has met its other side again
/// ([`post_dominators`]) before the jump back (an `if` in the body, not
/// the loop's test or an `if (c) break;`), and the path has iterations
/// left that the unrolling bound does not count, or the loop's `test`
/// compares a counter with a constant and the iteration moved it towards
/// the bound ([`trip::counted_down`]). Such an iteration is counted free.
pub(super) fn free_iteration(s: &mut State, t: &Thread, test: Option<&trip::CounterTest>) -> bool {
    let mark = s
        .head_marks
        .iter()
        .find(|(h, _)| *h == s.pc)
        .map(|&(_, m)| m);
    let Some(mark) = mark else {
        return false;
    };
    if s.control.iter().any(|&(_, k, _)| k >= mark) {
        return false;
    }
    if s.free_iterations < MAX_FREE_ITERATIONS {
        s.free_iterations += 1;
        return true;
    }
    test.is_some_and(|test| trip::counted_down(s, t, test))
}

/// At the head `s.pc` of a loop, arrived at by a jump back: whether the
/// iteration just run repeats the one before it, so that the path goes on
/// from where it was at the iteration's start. It does when the iteration
/// only loaded (no store, read-modify-write, barrier or other operation),
/// each load from a location no write can race with it on (the spin-loop
/// condition, [`super::spin::load_cannot_race`]), left every register as it
/// found it (the registers whose value the rest of the path can use:
/// [`live_at_heads`]), and made no read before it concrete. Such an
/// iteration is dropped: the path as it was at the iteration's start
/// continues the same way, and the argument that dropping an await's
/// looping iteration loses no execution (MODELS.md, spin loops) holds for
/// it. This catches the spinning iterations of loops the static await
/// analysis ([`super::spin::spin_loops`]) cannot take whole: a look-back
/// loop whose other branches change registers or memory.
pub(super) fn repeats(
    s: &State,
    program: &Program,
    t: &Thread,
    live: &HashMap<usize, HashSet<String>>,
    race_free: &mut HashMap<usize, bool>,
) -> bool {
    let (Some((_, first, regs, fixed)), Some(live)) = (head_here(s), live.get(&s.pc)) else {
        return false;
    };
    if *fixed < *first || s.forced.is_some() {
        return false;
    }
    if live
        .iter()
        .zip(regs)
        .any(|(r, v)| s.regs.get(r) != v.as_ref())
    {
        return false;
    }
    s.events[*first..].iter().all(|e| {
        let Stmt::Op(i) = &t.code[e.stmt] else {
            return false;
        };
        i.kind == OpKind::Load
            && !e.writes
            && *race_free
                .entry(e.stmt)
                .or_insert_with(|| super::spin::load_cannot_race(program, t, i))
    })
}

/// The registers live at each loop head of `t` (`loops`' keys): those
/// whose value at the head can reach an event (an operand of a memory
/// access, a barrier's id or quorum, a group function's operands), a
/// branch, or a final state the reports show. Liveness is the strong kind:
/// a register read only to compute registers that are not live is not live
/// itself, so the front ends' bookkeeping (a subgroup tangle key hashed
/// once per iteration and reset where the loop is left) does not keep two
/// iterations apart. A backward fixpoint over the statements, written here
/// because it runs on the IR's flat statement list.
pub(super) fn live_at_heads(
    program: &Program,
    t: &Thread,
    succs: &[[Option<usize>; 2]],
    loops: &HashMap<usize, usize>,
) -> HashMap<usize, HashSet<String>> {
    if loops.is_empty() {
        return HashMap::new();
    }
    // Registers by number, sets of them as bit sets.
    let mut names: Vec<&str> = Vec::new();
    let mut number: HashMap<&str, usize> = HashMap::new();
    fn id<'a>(r: &'a str, names: &mut Vec<&'a str>, number: &mut HashMap<&'a str, usize>) -> usize {
        *number.entry(r).or_insert_with(|| {
            names.push(r);
            names.len() - 1
        })
    }
    // Per statement: the register it defines, the registers it reads
    // always (branches, events), and those it reads only to define `def`.
    let mut def: Vec<Option<usize>> = Vec::with_capacity(t.code.len());
    let mut uses: Vec<Vec<usize>> = Vec::with_capacity(t.code.len());
    let mut feeds: Vec<Vec<usize>> = Vec::with_capacity(t.code.len());
    for st in &t.code {
        let (mut u, d) = super::spin::registers_of(st);
        let mut f = Vec::new();
        match st {
            Stmt::Assign { .. } => std::mem::swap(&mut u, &mut f),
            Stmt::Op(i) => {
                fn reg(o: &Operand) -> Option<&str> {
                    match o {
                        Operand::Reg(r) => Some(r.as_str()),
                        Operand::Const(_) => None,
                    }
                }
                if let OpKind::ControlBarrier { id, quorum, .. } = &i.kind {
                    u.extend(id.iter().chain(quorum).filter_map(reg));
                }
                if let Some(g) = &i.group {
                    u.extend(g.local_id.iter().filter_map(reg));
                }
            }
            _ => {}
        }
        def.push(d.map(|r| id(r, &mut names, &mut number)));
        uses.push(
            u.into_iter()
                .map(|r| id(r, &mut names, &mut number))
                .collect(),
        );
        feeds.push(
            f.into_iter()
                .map(|r| id(r, &mut names, &mut number))
                .collect(),
        );
    }
    // The registers the final states show: the condition's, else every
    // register a memory access writes (`analysis::litmus::shown_terms`).
    let shown = super::spin::shown_registers(program, t);
    let words = names.len().div_ceil(64).max(1);
    let mut at_end = vec![0u64; words];
    for (k, st) in t.code.iter().enumerate() {
        let Some(d) = def[k] else { continue };
        let show = match &shown {
            Some(shown) => shown.contains(names[d]),
            None => matches!(st, Stmt::Op(_)),
        };
        if show {
            at_end[d / 64] |= 1 << (d % 64);
        }
    }
    if let Some(shown) = &shown {
        for r in shown {
            if let Some(&d) = number.get(r.as_str()) {
                at_end[d / 64] |= 1 << (d % 64);
            }
        }
    }
    let live_in = live_before(t, succs, &def, &uses, &feeds, &at_end);
    loops
        .keys()
        .map(|&h| {
            let set = &live_in[h];
            let live = (0..names.len())
                .filter(|&r| set[r / 64] >> (r % 64) & 1 == 1)
                .map(|r| names[r].to_string())
                .collect();
            (h, live)
        })
        .collect()
}

/// The registers live before each statement of `t`, as bit sets over
/// register numbers: a backward fixpoint over the jumps. `def[k]`: the
/// register statement `k` assigns; `uses[k]`: those it reads always;
/// `feeds[k]`: those it reads only to compute `def[k]`, live only where
/// that register is live after it (strong liveness); `at_end`: those live
/// past the end.
pub(super) fn live_before(
    t: &Thread,
    succs: &[[Option<usize>; 2]],
    def: &[Option<usize>],
    uses: &[Vec<usize>],
    feeds: &[Vec<usize>],
    at_end: &[u64],
) -> Vec<Vec<u64>> {
    let n = t.code.len();
    let words = at_end.len();
    let mut live_in: Vec<Vec<u64>> = vec![vec![0u64; words]; n];
    let mut out = vec![0u64; words];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..n).rev() {
            out.iter_mut().for_each(|w| *w = 0);
            for next in succs[k].into_iter().flatten() {
                let from = if next >= n { at_end } else { &live_in[next] };
                for (o, f) in out.iter_mut().zip(from) {
                    *o |= f;
                }
            }
            let has = |set: &[u64], r: usize| set[r / 64] >> (r % 64) & 1 == 1;
            if let Some(d) = def[k] {
                let used = has(&out, d);
                out[d / 64] &= !(1 << (d % 64));
                if used {
                    for &r in &feeds[k] {
                        out[r / 64] |= 1 << (r % 64);
                    }
                }
            }
            for &r in &uses[k] {
                out[r / 64] |= 1 << (r % 64);
            }
            if out != live_in[k] {
                live_in[k].copy_from_slice(&out);
                changed = true;
            }
        }
    }
    live_in
}

/// Notes the path as it is at the loop head `s.pc` ([`State::heads`]):
/// the values of the registers live there (`live`, in its order).
pub(super) fn note_head(s: &mut State, live: &HashMap<usize, HashSet<String>>) {
    let regs: Vec<Option<RegValue>> = live
        .get(&s.pc)
        .map(|l| l.iter().map(|r| s.regs.get(r).copied()).collect())
        .unwrap_or_default();
    let snapshot = (s.pc, s.events.len(), regs, usize::MAX);
    match s.heads.iter_mut().find(|(h, ..)| *h == s.pc) {
        Some(entry) => *entry = snapshot,
        None => s.heads.push(snapshot),
    }
}

/// The note [`note_head`] made at the loop head `s.pc`.
fn head_here(s: &State) -> Option<&(usize, usize, Vec<Option<RegValue>>, usize)> {
    s.heads.iter().find(|(h, ..)| *h == s.pc)
}

/// The path `s` stopped at the loop head it repeats an iteration at
/// ([`repeats`]), as the prefix of an execution in which the thread spins
/// there forever: the events before the repeated iteration (its loads
/// cannot race), the registers there.
pub(super) fn spinning_prefix(s: &State) -> Path {
    let first = head_here(s).map_or(s.events.len(), |h| h.1);
    prefix_before(s, first, s.pc)
}

/// The path `s` cut before its event `first` (the first event of a loop
/// iteration that spins forever) and marked as spinning at statement
/// `stmt`: the expressions made before that event (those after name
/// reads of the iteration, which the prefix does not hold), and the
/// registers that name only what the prefix holds.
fn prefix_before(s: &State, first: usize, stmt: usize) -> Path {
    let kept = exprs_made_before(&s.exprs, first);
    let holds = |v: &RegValue| match v {
        RegValue::Read(e) => *e < first,
        RegValue::Expr(k) => *k < kept,
        RegValue::Const(_) => true,
    };
    let mut registers: Vec<(String, RegValue)> = s
        .regs
        .iter()
        .filter(|(_, v)| s.registers && holds(v))
        .map(|(r, v)| (r.clone(), *v))
        .collect();
    registers.sort_by(|a, b| a.0.cmp(&b.0));
    Path {
        events: s.events[..first].to_vec(),
        registers,
        awaits: s.awaits.clone(),
        ending: Ending::Cut {
            stmt,
            spinning: true,
            waiting: false,
        },
        exprs: s.exprs[..kept].to_vec(),
    }
}

/// Notes, at the loop head `s.pc`, how many regions decided by memory the
/// path has opened so far.
pub(super) fn mark_head(s: &mut State) {
    let (pc, m) = (s.pc, s.opened);
    match s.head_marks.iter_mut().find(|(h, _)| *h == pc) {
        Some(entry) => entry.1 = m,
        None => s.head_marks.push((pc, m)),
    }
}

/// What [`explore_thread`] reads of a thread's code, the same in every
/// round of the value domains: computed once per thread.
pub(super) struct Code<'t> {
    labels: Labels<'t>,
    /// Each statement's successors ([`successor_table`]), looked up once.
    succs: Vec<[Option<usize>; 2]>,
    loops: HashMap<usize, usize>,
    ipdom: Vec<usize>,
    live: HashMap<usize, HashSet<String>>,
    steering: std::collections::BTreeSet<String>,
    chains: HashMap<usize, dispatch::Chain>,
    /// The labels some jump at or after them goes back to: the only heads
    /// a path ending stuck can have ([`push_stuck_loop`] cuts a path into
    /// iterations at its arrivals at the head its last backward jump
    /// went to), so the only labels whose arrivals a path records.
    back_targets: HashSet<usize>,
    /// The registers the code assigns, numbered for the paths' [`Regs`].
    names: Arc<Names>,
    /// Per branch on memory met so far, the registers its region assigns
    /// ([`region_assigns`]): kept across the rounds of the value domains.
    regions: std::cell::RefCell<HashMap<usize, Vec<String>>>,
    /// How often the thread's reads of each location can change value
    /// (empty unless [`crate::engine::trace::PathPlan::coherence_cuts`]).
    coherence: coherence::Bounds,
    /// The RMWs whose reads stay symbolic (`PathPlan::commuting_rmws`):
    /// [`commuting_rmws`].
    commuting: HashSet<usize>,
    /// The loops whose test compares a counter with a constant
    /// ([`trip`]).
    trips: HashMap<usize, trip::CounterTest>,
}

impl<'t> Code<'t> {
    /// Whether some RMW of the thread keeps its read symbolic
    /// ([`commuting_rmws`]).
    pub(super) fn has_commuting(&self) -> bool {
        !self.commuting.is_empty()
    }

    pub(super) fn of(
        program: &Program,
        t: &'t Thread,
        limits: &Limits,
        plan: PathPlan,
        coherence: coherence::Bounds,
    ) -> Code<'t> {
        let labels = label_map(t);
        let loops = loop_ranges(t, &labels);
        let succs = successor_table(t, &labels);
        let ipdom = post_dominators(t, &succs);
        let live = if plan.awaits || limits.endings {
            live_at_heads(program, t, &succs, &loops)
        } else {
            HashMap::new()
        };
        let commuting = if plan.commuting_rmws && plan.symbolic_stores {
            commuting_rmws(program, t)
        } else {
            HashSet::new()
        };
        Code {
            commuting,
            steering: counters::steering(t),
            chains: dispatch::chains(t),
            back_targets: back_targets(t, &labels),
            names: Arc::new(Names::of(t)),
            regions: Default::default(),
            coherence,
            trips: trip::counter_tests(t, &labels, &loops),
            labels,
            succs,
            loops,
            ipdom,
            live,
        }
    }
}

/// The statements of `t` that are atomic RMWs of a commuting kind
/// ([`crate::ir::RmwOp::commuting_class`]) whose result nothing reads: no
/// destination register, or one that no statement of the thread reads and
/// no final state shows (the condition's registers; every register where
/// a test without a condition shows them all). Their reads may stay
/// symbolic ([`PathPlan::commuting_rmws`]).
pub(super) fn commuting_rmws(program: &Program, t: &Thread) -> HashSet<usize> {
    if !program.queries.is_empty() {
        return HashSet::new();
    }
    let index = program.threads.iter().position(|x| std::ptr::eq(x, t));
    let mut shown: HashSet<&str> = HashSet::new();
    let all_shown = match &program.condition {
        Some(c) => {
            let mut terms = Vec::new();
            c.expr.terms(&mut terms);
            if let Some(f) = &c.filter {
                f.terms(&mut terms);
            }
            for term in terms {
                if let crate::ir::Term::Reg { thread, reg } = term
                    && Some(*thread) == index
                {
                    shown.insert(reg);
                }
            }
            false
        }
        None => !program.registers_internal,
    };
    let read = t.read_registers();
    t.code
        .iter()
        .enumerate()
        .filter_map(|(k, st)| match st {
            Stmt::Op(i)
                if i.atomic
                    && i.is_read()
                    && i.is_write()
                    && i.rmw_op.commuting_class().is_some()
                    && i.operand.is_some()
                    && i.read_value.is_none()
                    && i.write_value.is_none()
                    && i.expected.is_none()
                    && i.group.is_none()
                    && i.dest
                        .as_deref()
                        .is_none_or(|d| !all_shown && !read.contains(d) && !shown.contains(d)) =>
            {
                Some(k)
            }
            _ => None,
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub(super) fn explore_thread(
    program: &Program,
    t: &Thread,
    limits: &Limits,
    plan: PathPlan,
    spins: &[SpinLoop],
    (own, written, counters): (&HashSet<usize>, &[bool], &counters::Counters),
    code: &Code,
    domain: &Domains,
    budget: &Budget,
    (derive, domains_walk, registers): (bool, bool, bool),
) -> Result<ThreadPaths, ExecError> {
    let (unroll, endings) = (limits.bounds.unroll, limits.endings);
    let max_paths = limits.bounds.max_paths;
    let Code {
        labels,
        succs,
        loops,
        ipdom,
        live,
        steering,
        chains,
        back_targets,
        names,
        regions,
        coherence,
        commuting,
        trips,
    } = code;
    // Looping alternatives of each await instance.
    let mut looping: HashMap<usize, Vec<Vec<ReadValue>>> = HashMap::new();
    let mut instances = 0usize;
    let mut regs = Regs::new(names);
    for (r, v) in &t.registers {
        regs.insert(r, RegValue::Const(*v));
    }
    let start = State {
        pc: 0,
        regs,
        events: Vec::new(),
        runs: CowVec::filled(t.code.len(), 0),
        last: usize::MAX,
        forced: None,
        prov: Regs::new(names),
        dead: false,
        awaiting: Vec::new(),
        awaits: Vec::new(),
        arrivals: Vec::new(),
        exprs: Vec::new(),
        derive,
        domains: derive && domains_walk,
        expr_provs: Vec::new(),
        forward: derive && plan.own_forwarding && !domains_walk,
        forwarded: Vec::new(),
        from_memory: Regs::new(names),
        control: Vec::new(),
        opened: 0,
        head_marks: Vec::new(),
        free_iterations: 0,
        trip_iterations: 0,
        trips: Vec::new(),
        heads: Vec::new(),
        pending: false,
        registers,
    };
    let stutters = plan.awaits;
    let mut race_free: HashMap<usize, bool> = HashMap::new();
    let mut out = ThreadPaths::default();
    // Partial paths the unrolling bound stopped (their prefixes are stopped
    // paths when exploring endings).
    let mut stopped_at_bound: Vec<Vec<PathEvent>> = Vec::new();
    // Per await instance that dropped an iteration, the path stopped at
    // the await's head (kept when no path leaves that instance).
    let mut spinning: BTreeMap<usize, Path> = BTreeMap::new();
    let reads = Reads {
        counters: Some(counters),
        ..Reads::new(program, t, domain)
    };
    let mut stack = vec![start];
    let walking = || format!("enumerating the paths of thread P{}", t.id);
    while let Some(mut s) = stack.pop() {
        loop {
            budget.step(&walking)?;
            if s.dead {
                break;
            }
            if s.pending {
                out.pending.push(s.events);
                if out.pending.len() > max_paths {
                    return Err(more_paths_than(t, max_paths));
                }
                break;
            }
            if !s.control.is_empty() {
                close_regions(&mut s, t, succs, ipdom, &mut regions.borrow_mut());
            }
            enter_or_leave_awaits(&mut s, spins, &mut instances);
            if s.pc >= t.code.len() {
                end_path(
                    s,
                    Ending::Finished,
                    (program, t, limits),
                    coherence,
                    &reads,
                    &mut out,
                )?;
                break;
            }
            if let Some(&back) = loops.get(&s.pc) {
                let from_body = (s.pc..=back).contains(&s.last);
                if stutters {
                    if from_body && repeats(&s, program, t, live, &mut race_free) {
                        out.dropped_iterations += 1;
                        if endings {
                            push_stuck_repeat(&s, &mut out);
                        }
                        if limits.prefix_races && !endings && out.cut_prefixes.len() < max_paths {
                            out.cut_prefixes.push(spinning_prefix(&s));
                        }
                        break;
                    }
                    note_head(&mut s, live);
                }
                // Entering the loop starts its count afresh; so does an
                // iteration no branch on a value from memory decided (it
                // runs the same in every execution, `MAX_FREE_ITERATIONS`).
                let test = trips.get(&s.pc);
                let fresh = !from_body || free_iteration(&mut s, t, test);
                if fresh {
                    s.runs.fill(s.pc..=back, 0);
                }
                // An iteration that moved a counter towards its loop's
                // bound is not counted either ([`trip`]).
                if let Some(test) = trips.get(&s.pc) {
                    trip::arrive(&mut s, t, test, back, fresh);
                }
                mark_head(&mut s);
            }
            s.last = s.pc;
            s.runs[s.pc] += 1;
            if s.runs[s.pc] > unroll + 1 {
                if coherence.exceeded(program, t, &s.events) {
                    // No execution has this prefix (`coherence`): its
                    // writes still join the value domains, as a cut
                    // path's do.
                    out.unrealisable += 1;
                    keep_prefix_writes(&s, &reads, &mut out)?;
                    break;
                }
                out.cut += 1;
                // Where the thread goes on, without an event, to a control
                // barrier, its arrival there counts (`lockstep`), and while
                // endings are listed its path blocked there is listed.
                let ahead = lockstep::barrier_ahead(t, labels, s.pc, &|r| match known(
                    &s,
                    s.regs.get(r).copied().unwrap_or(RegValue::Const(0)),
                ) {
                    RegValue::Const(v) => Some(v),
                    _ => None,
                });
                let known = if out.cut_points.len() < MAX_CUT_STATES {
                    steering
                        .iter()
                        .filter_map(|r| match known(&s, *s.regs.get(r)?) {
                            RegValue::Const(v) => Some((r.clone(), v)),
                            _ => None,
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                out.cut_points.insert((s.pc, known));
                if endings
                    && let Some(b) = ahead
                    && let Stmt::Op(ins) = &t.code[b]
                    && let OpKind::ControlBarrier {
                        instance,
                        execution_scope,
                        ..
                    } = ins.kind
                {
                    out.paths.push(Path {
                        events: s.events.clone(),
                        registers: Vec::new(),
                        awaits: Vec::new(),
                        ending: Ending::Blocked {
                            stmt: b,
                            key: (instance, barrier_arrivals(t, &s.events, instance) + 1),
                            scope: execution_scope,
                            values: BarrierValues::default(),
                        },
                        exprs: Vec::new(),
                    });
                }
                *out.cut_barriers
                    .entry(lockstep::arrivals(t, &s.events, ahead))
                    .or_default() += 1;
                keep_prefix_writes(&s, &reads, &mut out)?;
                if endings {
                    stopped_at_bound.push(s.events);
                } else if limits.prefix_races && out.cut_prefixes.len() < max_paths {
                    keep_cut_prefix(s, &mut out);
                }
                break;
            }
            let pc = s.pc;
            match &t.code[pc] {
                Stmt::Label { .. } => {
                    if endings && back_targets.contains(&pc) {
                        s.arrivals.push((pc, s.events.len(), s.regs.clone()));
                    }
                    s.pc += 1
                }
                Stmt::Goto { label, .. } => {
                    s.pc = target(labels, label, t)?;
                    if after_jump(&mut s, pc, endings, live, &mut looping, &mut out) {
                        keep_prefix_writes(&s, &reads, &mut out)?;
                        note_spinning(&s, limits.prefix_races && !endings, &mut spinning);
                        break;
                    }
                }
                Stmt::Assign { dest, op, a, b, .. } => {
                    // Arithmetic on a symbolic read stays symbolic: an
                    // expression the candidate executions evaluate.
                    let (ta, tb) = (term_of(&s, a), term_of(&s, b));
                    if s.derive
                        && (!matches!(ta, RegValue::Const(_)) || !matches!(tb, RegValue::Const(_)))
                    {
                        s.exprs.push(ValueExpr {
                            op: *op,
                            a: ta,
                            b: tb,
                        });
                        s.regs.insert(dest, RegValue::Expr(s.exprs.len() - 1));
                        // The provenance of the expression's constant part
                        // (its reads' join it once they are concrete).
                        let prov = prov_max(&reg_prov(&s, a), &reg_prov(&s, b));
                        if s.domains {
                            s.expr_provs.push((prov.clone(), None));
                        }
                        s.prov.insert(dest, prov);
                        taint(&mut s, dest, a, b);
                        s.pc += 1;
                        continue;
                    }
                    let Some((va, vb)) = concretize2(&mut s, &mut stack, a, b, &reads) else {
                        continue;
                    };
                    let prov = prov_max(&reg_prov(&s, a), &reg_prov(&s, b));
                    s.regs.insert(dest, RegValue::Const(op.apply(va, vb)));
                    s.prov.insert(dest, prov);
                    taint(&mut s, dest, a, b);
                    s.pc += 1;
                }
                Stmt::Branch {
                    cmp, a, b, label, ..
                } => {
                    // A dispatch chain on a register whose value is known
                    // and not from memory (so no branch of it opens a
                    // region): straight to the branch that holds, or past
                    // the chain, each statement passed counted as the
                    // walk one by one counts it (none can pass the bound
                    // before the first: each runs at most as often).
                    if let Some(chain) = chains.get(&pc)
                        && !reads_memory(&s, &chain.reg)
                        && let RegValue::Const(v) = term_of(&s, &chain.reg)
                    {
                        let to = chain.lands(v);
                        let last = to.unwrap_or(chain.end - 1);
                        for k in pc + 1..=last {
                            s.runs[k] += 1;
                        }
                        s.last = last;
                        s.pc = match (to, &t.code[last]) {
                            (Some(_), Stmt::Branch { label, .. }) => target(labels, label, t)?,
                            _ => chain.end,
                        };
                        if after_jump(&mut s, last, endings, live, &mut looping, &mut out) {
                            keep_prefix_writes(&s, &reads, &mut out)?;
                            note_spinning(&s, limits.prefix_races && !endings, &mut spinning);
                            break;
                        }
                        continue;
                    }
                    let Some((va, vb)) = concretize2(&mut s, &mut stack, a, b, &reads) else {
                        continue;
                    };
                    if reads_memory(&s, a) || reads_memory(&s, b) {
                        // What runs until the paths meet again depends on
                        // memory (one region per meeting point, the latest
                        // opening kept).
                        let k = s.opened;
                        s.opened += 1;
                        s.control.push((ipdom[pc], k, pc));
                    }
                    s.pc = if cmp.holds(va, vb) {
                        target(labels, label, t)?
                    } else {
                        pc + 1
                    };
                    if after_jump(&mut s, pc, endings, live, &mut looping, &mut out) {
                        keep_prefix_writes(&s, &reads, &mut out)?;
                        note_spinning(&s, limits.prefix_races && !endings, &mut spinning);
                        break;
                    }
                }
                Stmt::Op(ins) => {
                    // Listing the barrier prefixes: the path ends before
                    // its k-th control barrier, waiting there (after the
                    // bound's check: where the bound cuts the path at the
                    // barrier, the complete listing's path stops there
                    // too).
                    if let Some(k) = plan.stop_at_barrier
                        && is_control_barrier(t, pc)
                        && reaches_barrier(t, &s, k)
                    {
                        let ending = Ending::Cut {
                            stmt: pc,
                            spinning: false,
                            waiting: true,
                        };
                        s.registers = false;
                        end_path(s, ending, (program, t, limits), coherence, &reads, &mut out)?;
                        break;
                    }
                    // A control barrier's id and quorum, made concrete
                    // first (a split re-runs the statement).
                    let mut values = BarrierValues::default();
                    if let OpKind::ControlBarrier { id, quorum, .. } = &ins.kind {
                        let mut concrete = |op: &Option<Operand>| match op {
                            Some(op) => value_of(&mut s, &mut stack, op, &reads).map(Some),
                            None => Some(None),
                        };
                        let Some(id) = concrete(id) else {
                            continue;
                        };
                        let Some(quorum) = concrete(quorum) else {
                            continue;
                        };
                        if let Some(q) = quorum
                            && q < 1
                        {
                            return Err(ExecError::new(format!(
                                "line {}: the quorum of `{}` is {q} on some path of P{}: expected a positive integer (how many invocations must arrive before any passes)",
                                ins.source.line, ins.source.text, t.id
                            )));
                        }
                        values = BarrierValues {
                            id,
                            quorum,
                            ..BarrierValues::default()
                        };
                    }
                    // A group function's contribution and broadcast local
                    // id, made concrete likewise (3.6.3: "a work item that
                    // provides a value to an OpGroup* builtin function must
                    // behave as if it generates that value before beginning
                    // execution of that builtin").
                    if let Some(g) = &ins.group {
                        let op = ins.operand.clone().unwrap_or(Operand::Const(0));
                        let Some(v) = value_of(&mut s, &mut stack, &op, &reads) else {
                            continue;
                        };
                        values.contribution = Some(v);
                        if let Some(id) = &g.local_id {
                            let Some(k) = value_of(&mut s, &mut stack, id, &reads) else {
                                continue;
                            };
                            // A local id naming no work-item of the group:
                            // undefined behaviour ("Behavior is undefined
                            // when local_id is greater or equal to the
                            // work-group size"); the path ends here, as at
                            // an array index outside the array.
                            // A non-uniform instruction's id naming no
                            // invocation of the tangle gives an undefined
                            // result instead (SPIR-V,
                            // OpGroupNonUniformShuffle: "The resulting
                            // value is undefined if Id is an inactive
                            // invocation, or is greater than or equal to
                            // the size of the group").
                            if !g.nonuniform
                                && usize::try_from(k)
                                    .map_or(true, |k| k >= group_size(program, t, ins))
                            {
                                s.pc = t.code.len();
                                continue;
                            }
                            values.local_id = Some(k);
                        }
                    }
                    // A non-uniform instruction waits for no one: its
                    // tangle is whoever reaches it with the same key.
                    if endings
                        && !ins.group.as_ref().is_some_and(|g| g.nonuniform)
                        && let OpKind::ControlBarrier {
                            instance,
                            execution_scope,
                            ..
                        } = ins.kind
                    {
                        let reached = barrier_arrivals(t, &s.events, instance);
                        out.paths.push(Path {
                            events: s.events.clone(),
                            registers: Vec::new(),
                            awaits: Vec::new(),
                            ending: Ending::Blocked {
                                stmt: pc,
                                key: (instance, reached + 1),
                                scope: execution_scope,
                                values,
                            },
                            exprs: Vec::new(),
                        });
                    }
                    if ins.group.is_some() {
                        step_group(&mut s, ins, values);
                    } else if !step_op(
                        &mut s,
                        &mut stack,
                        ins,
                        (program, t, own, written, counters, commuting),
                        &reads,
                        &mut out.write_stmts,
                    )? {
                        continue;
                    }
                    if let Some(e) = s.events.last_mut() {
                        e.barrier = values;
                    }
                    s.pc += 1;
                }
            }
        }
    }
    keep_spinning(spinning, max_paths, &mut out);
    for p in out.paths.iter_mut().chain(&mut out.cut_prefixes) {
        for a in &mut p.awaits {
            a.looping = looping.get(&a.instance).cloned().unwrap_or_default();
        }
    }
    if endings {
        add_stopped_prefixes(&mut out, stopped_at_bound);
    }
    Ok(out)
}

/// How many events of `events` (a path of `t`) are control barriers of
/// static instance `instance`.
fn barrier_arrivals(t: &Thread, events: &[PathEvent], instance: u32) -> usize {
    events
        .iter()
        .filter(|e| {
            matches!(&t.code[e.stmt], Stmt::Op(i)
                if matches!(i.kind, OpKind::ControlBarrier { instance: k, .. } if k == instance))
        })
        .count()
}

/// At the statement `s.pc` is about to run: the awaits whose loop it
/// leaves (a forward exit, or the back jump not taken; innermost first,
/// an exit may leave several) are passed, and arriving at the head of a
/// spin loop that is not under way starts an await (inside the ones under
/// way when it is an inner loop of theirs).
pub(super) fn enter_or_leave_awaits(s: &mut State, spins: &[SpinLoop], instances: &mut usize) {
    while let Some(&(l, first, instance)) = s.awaiting.last()
        && !l.holds(s.pc)
    {
        s.awaits.push(Await {
            header: l.header,
            events: first..s.events.len(),
            instance,
            looping: Vec::new(),
        });
        s.awaiting.pop();
    }
    if !s.awaiting.iter().any(|(l, _, _)| l.header == s.pc)
        && let Some(l) = spins.iter().find(|l| l.header == s.pc)
    {
        s.awaiting.push((*l, s.events.len(), *instances));
        *instances += 1;
    }
}

/// Ends the path `s` as `ending` (it finished, or waits at the barrier
/// the listing stops at), kept among `out`'s paths unless no execution has
/// it (`coherence`); an error names the path or memory limit it passes.
fn end_path(
    s: State,
    ending: Ending,
    (program, t, limits): (&Program, &Thread, &Limits),
    coherence: &coherence::Bounds,
    reads: &Reads,
    out: &mut ThreadPaths,
) -> Result<(), ExecError> {
    let (max_paths, max_memory) = (limits.bounds.max_paths, limits.bounds.max_memory);
    if coherence.exceeded(program, t, &s.events) {
        // No execution has this path (`coherence`).
        out.unrealisable += 1;
        return keep_prefix_writes(&s, reads, out);
    }
    if s.domains {
        derived_writes(&s, reads, out)?;
    }
    out.paths.push(path_of(s, ending));
    if out.paths.len() > max_paths {
        return Err(more_paths_than(t, max_paths));
    }
    if crate::memory::over(max_memory) {
        return Err(ExecError::limit(
            LimitKind::MaxMemory,
            format!(
                "the paths of thread P{} exceed the memory bound (--max-memory)",
                t.id
            ),
        ));
    }
    Ok(())
}

/// The error of thread `t` passing the path limit `max_paths`.
fn more_paths_than(t: &Thread, max_paths: usize) -> ExecError {
    ExecError::limit(
        LimitKind::MaxPaths,
        format!(
            "thread P{} has more than {max_paths} paths (--max-paths): lower --unroll",
            t.id
        ),
    )
}

/// Whether the control barrier the path `s` of `t` is at is the `k`-th
/// it reaches (it passed `k - 1` before).
fn reaches_barrier(t: &Thread, s: &State, k: usize) -> bool {
    s.events
        .iter()
        .filter(|e| is_control_barrier(t, e.stmt))
        .count()
        + 1
        == k
}

/// The path `s` has walked, ending as `ending`: its events, the awaits it
/// passed and its registers (sorted by name: the out-of-bounds markers are
/// found by bisection).
pub(super) fn path_of(s: State, ending: Ending) -> Path {
    let mut registers: Vec<(String, RegValue)> = if s.registers {
        s.regs.iter().map(|(r, v)| (r.clone(), *v)).collect()
    } else {
        Vec::new()
    };
    registers.sort_by(|a, b| a.0.cmp(&b.0));
    Path {
        events: s.events,
        registers,
        awaits: s.awaits,
        ending,
        exprs: s.exprs,
    }
}

/// Notes (when `on`) the path `s` whose await iteration was just dropped
/// as stopped at the await's head (the events before the await), once per
/// await instance.
pub(super) fn note_spinning(s: &State, on: bool, spinning: &mut BTreeMap<usize, Path>) {
    let Some(&(l, first, instance)) = s.awaiting.last().filter(|_| on) else {
        return;
    };
    spinning
        .entry(instance)
        .or_insert_with(|| prefix_before(s, first, l.header));
}

/// The paths stopped at an await instance whose iterations looped (some
/// were dropped), as prefixes ([`ThreadPaths::cut_prefixes`]): the thread
/// spins there forever, after its events before the loop. Also when some
/// path leaves the instance: leaving may need a value no other thread
/// writes (a generated program awaiting a value only the condition names
/// had no execution at all and was answered race-free, where the reference
/// enumeration, which unrolls the loop and cuts it at the bound, found the
/// race before the loop). Not cut paths: the answers on complete
/// executions are as before; only races among the events run before the
/// loop are looked for (the unrolled loop of the reference enumeration is
/// cut there and its prefix is walked too).
pub(super) fn keep_spinning(
    spinning: BTreeMap<usize, Path>,
    max_paths: usize,
    out: &mut ThreadPaths,
) {
    for p in spinning.into_values() {
        if out.cut_prefixes.len() < max_paths {
            out.cut_prefixes.push(p);
        }
    }
}

/// Keeps the path `s` the unrolling bound just cut, before the statement
/// at `s.pc` that would exceed it, as a prefix ([`ThreadPaths::cut_prefixes`])
/// with its registers there.
pub(super) fn keep_cut_prefix(s: State, out: &mut ThreadPaths) {
    let stmt = s.pc;
    out.cut_prefixes.push(path_of(
        s,
        Ending::Cut {
            stmt,
            spinning: false,
            waiting: false,
        },
    ));
}

/// A path ending in the await under way, whose iteration just jumped back:
/// that iteration alone repeats.
pub(super) fn push_stuck_await(s: &State, out: &mut ThreadPaths) {
    if let Some(&(l, first, _)) = s.awaiting.last() {
        out.paths.push(Path {
            events: s.events.clone(),
            registers: Vec::new(),
            awaits: Vec::new(),
            ending: Ending::Stuck(Stuck {
                header: l.header,
                back: l.back,
                iterations: std::iter::once(first..s.events.len()).collect(),
                side_effect_free: true,
                registers: Vec::new(),
            }),
            exprs: Vec::new(),
        });
    }
}

/// The path `s` at the loop head it has just come back to, ending stuck
/// there with the iteration it just ran repeating forever ([`repeats`]:
/// it only loaded, and left the live registers as it found them, so it can
/// run again the same way, reading the same writes).
pub(super) fn push_stuck_repeat(s: &State, out: &mut ThreadPaths) {
    let Some((_, first, ..)) = head_here(s) else {
        return;
    };
    out.paths.push(Path {
        events: s.events.clone(),
        registers: Vec::new(),
        awaits: Vec::new(),
        ending: Ending::Stuck(Stuck {
            header: s.pc,
            back: s.last,
            iterations: std::iter::once(*first..s.events.len()).collect(),
            side_effect_free: true,
            registers: Vec::new(),
        }),
        exprs: Vec::new(),
    });
}

/// A path ending at the backward jump at `back` that `s` just took (to
/// `s.pc`): its iterations are the stretches of the path between its
/// arrivals at the loop's head. Each is a cycle of the control flow from
/// the head back to it, whatever statements it passes through (the cycle
/// of `CADP/2_threads_4_instructions/132_simple`'s P0 jumps back twice, to
/// two heads, and leaves the statement range of either loop), so any of
/// them may repeat when its values allow (`analysis::termination`).
pub(super) fn push_stuck_loop(
    s: &State,
    back: usize,
    live: Option<&HashSet<String>>,
    out: &mut ThreadPaths,
) {
    let header = s.pc;
    // Only the registers live at the head tell whether an iteration can
    // repeat ([`live_at_heads`]): a dead one (a subgroup tangle key hashed
    // per iteration) differs between iterations that run the same.
    let known = |regs: &Regs<RegValue>| {
        let mut known = known_registers(s, regs);
        if let Some(live) = live {
            known.retain(|(r, _)| live.contains(r));
        }
        known
    };
    let starts: Vec<(usize, &Regs<RegValue>)> = s
        .arrivals
        .iter()
        .filter(|(stmt, _, _)| *stmt == header)
        .map(|(_, e, regs)| (*e, regs))
        .collect();
    let end = s.events.len();
    let mut iterations = Vec::new();
    let mut registers = vec![known(&s.regs)];
    let mut next = end;
    for &(start, regs) in starts.iter().rev() {
        iterations.push(start..next);
        registers.push(known(regs));
        next = start;
    }
    if iterations.is_empty() {
        return;
    }
    iterations.reverse();
    registers.reverse();
    out.paths.push(Path {
        events: s.events.clone(),
        registers: Vec::new(),
        awaits: Vec::new(),
        ending: Ending::Stuck(Stuck {
            header,
            back,
            iterations,
            side_effect_free: false,
            registers,
        }),
        exprs: Vec::new(),
    });
}

/// Registers as far as the path `s` knows them: constants, and reads the
/// path made concrete since (`None`: a read still symbolic), by name.
pub(super) fn known_registers(s: &State, regs: &Regs<RegValue>) -> Vec<(String, RegValue)> {
    let mut out: Vec<(String, RegValue)> = regs
        .iter()
        .map(|(r, v)| {
            let value = known(s, *v);
            (r.clone(), value)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Adds every prefix of the thread's paths (and of the partial paths the
/// unrolling bound stopped) as a stopped path, once each.
pub(super) fn add_stopped_prefixes(out: &mut ThreadPaths, stopped_at_bound: Vec<Vec<PathEvent>>) {
    type Key = (usize, Option<ReadValue>, Option<i64>, bool, BarrierValues);
    // The prefixes seen, as a trie: (the prefix's node, its next event) to
    // the longer prefix's node; node 0 is the empty prefix. Each event of
    // each path is one lookup, where hashing each prefix whole would cost
    // the square of the path's length.
    let mut trie: rustc_hash::FxHashMap<(u32, Key), u32> = Default::default();
    let mut empty_seen = false;
    let mut stopped = Vec::new();
    let sources = out
        .paths
        .iter()
        .map(|p| p.events.as_slice())
        .chain(stopped_at_bound.iter().map(|e| e.as_slice()));
    let mut stop = |events: &[PathEvent]| {
        stopped.push(Path {
            events: events.to_vec(),
            registers: Vec::new(),
            awaits: Vec::new(),
            ending: Ending::Stopped,
            exprs: Vec::new(),
        })
    };
    for events in sources {
        if !empty_seen {
            empty_seen = true;
            stop(&[]);
        }
        let mut node = 0u32;
        for (k, e) in events.iter().enumerate() {
            let next = trie.len() as u32 + 1;
            let key = (e.stmt, e.read, e.write, e.writes, e.barrier);
            node = match trie.entry((node, key)) {
                std::collections::hash_map::Entry::Occupied(o) => *o.get(),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(next);
                    stop(&events[..=k]);
                    next
                }
            };
        }
    }
    out.paths.extend(stopped);
}

/// Whether the statement at `pc` just sent `s` back to the head of the
/// innermost await under way (an iteration to drop). An outer await's back
/// jump lies after the body of every loop inside it, so the inner awaits
/// were passed before it runs.
pub(super) fn jumps_back(s: &State, pc: usize) -> bool {
    s.awaiting
        .last()
        .is_some_and(|(l, _, _)| pc == l.back && s.pc == l.header)
}

/// After the jump at `pc` (to `s.pc`): an await's iteration that jumps
/// back is dropped (true: the state ends), and, exploring endings, a path
/// ending stuck there is listed (a spin loop's, or any backward jump's).
pub(super) fn after_jump(
    s: &mut State,
    pc: usize,
    endings: bool,
    live: &HashMap<usize, HashSet<String>>,
    looping: &mut HashMap<usize, Vec<Vec<ReadValue>>>,
    out: &mut ThreadPaths,
) -> bool {
    if jumps_back(s, pc) {
        if !iteration_changes_memory(s) {
            if endings {
                push_stuck_await(s, out);
            }
            drop_iteration(s, looping, out);
            return true;
        }
        // A read-modify-write of this iteration changed memory: the
        // iteration stays (an ordinary one, under the unrolling bound) and
        // the next arrival at the head starts a new await (an await around
        // it sees the change in its own iteration).
        s.awaiting.pop();
    }
    if endings && s.pc <= pc {
        push_stuck_loop(s, pc, live.get(&s.pc), out);
    }
    false
}

/// Whether the await's iteration under way wrote a value other than the one
/// it read (a read-modify-write that succeeded; [`rmw_may_be_dropped`](super::spin::rmw_may_be_dropped)).
pub(super) fn iteration_changes_memory(s: &State) -> bool {
    let Some(&(_, first, _)) = s.awaiting.last() else {
        return false;
    };
    s.events[first..].iter().any(|e| {
        e.writes
            && match (e.read, e.write) {
                (Some(ReadValue::Concrete(old)), Some(new)) => old != new,
                _ => true,
            }
    })
}

/// Drops the iteration `s` is in: its values go to the await's looping
/// alternatives.
pub(super) fn drop_iteration(
    s: &State,
    looping: &mut HashMap<usize, Vec<Vec<ReadValue>>>,
    out: &mut ThreadPaths,
) {
    if let Some(&(_, first, instance)) = s.awaiting.last() {
        let values = s.events[first..].iter().filter_map(|e| e.read).collect();
        looping.entry(instance).or_default().push(values);
    }
    out.dropped_iterations += 1;
}

pub(super) fn target(labels: &Labels, label: &str, t: &Thread) -> Result<usize, ExecError> {
    labels
        .get(label)
        .copied()
        .ok_or_else(|| ExecError::new(format!("thread {}: label `{label}` is not defined", t.id)))
}

/// Executes one instruction; returns false when the state was split and the
/// instruction must run again (with the value now fixed).
pub(super) fn step_op(
    s: &mut State,
    stack: &mut Vec<State>,
    ins: &Instruction,
    (program, t, own, written, counters, commuting): (
        &Program,
        &Thread,
        &HashSet<usize>,
        &[bool],
        &counters::Counters,
        &HashSet<usize>,
    ),
    reads: &Reads,
    write_stmts: &mut std::collections::BTreeSet<usize>,
) -> Result<bool, ExecError> {
    let domain = reads.domain;
    let pc = s.pc;
    // A store of a value computed from symbolic reads keeps it symbolic
    // ([`Reduction::SymbolicStores`]): the candidate executions give it.
    let derived = match &ins.operand {
        Some(op)
            if s.derive
                && ins.is_write()
                && !ins.is_read()
                && ins.write_value.is_none()
                && ins.group.is_none() =>
        {
            Some(term_of(s, op)).filter(|v| !matches!(v, RegValue::Const(_)))
        }
        _ => None,
    };
    // The operand and a compare-exchange's expected value, made concrete
    // (a split re-runs the instruction).
    let mut concrete = |op: &Option<Operand>| match op {
        Some(op) => value_of(s, stack, op, reads).map(Some),
        None => Some(None),
    };
    let Some(operand) = (if derived.is_some() {
        Some(None)
    } else {
        concrete(&ins.operand)
    }) else {
        return Ok(false);
    };
    let Some(expected) = concrete(&ins.expected) else {
        return Ok(false);
    };
    let mut read = if ins.is_read() {
        Some(match (s.forced.take(), ins.read_value) {
            (Some(v), _) | (None, Some(v)) => ReadValue::Concrete(v),
            (None, None) => ReadValue::Symbolic,
        })
    } else {
        None
    };
    // A read of a location only this thread writes: its latest earlier
    // write, or the initial value (see `own_locations`).
    let mut own_prov = None;
    // When that write is derived (a function of symbolic reads), a plain
    // read takes its term instead ([`Reduction::OwnForwarding`]): the same
    // argument says the read's value is the write's in every consistent
    // execution, and the read is made concrete once the term is.
    let mut forwarded = None;
    if read == Some(ReadValue::Symbolic)
        && let Some(loc) = program.location_of(ins)
        && own.contains(&loc)
    {
        if let Some((v, prov)) = latest_own_write(s, program, t, loc) {
            read = Some(ReadValue::Concrete(v));
            own_prov = Some(prov);
        } else if s.domains
            && let Some(w) = latest_own_derived_event(s, program, t, loc)
        {
            let term = known(s, s.events[w].derived.unwrap_or(RegValue::Const(0)));
            if ins.is_write() {
                // A read-modify-write: the latest write's value made
                // concrete first (a split re-runs it, which then finds it).
                if value_of_term(s, stack, term, reads).is_none() {
                    return Ok(false);
                }
            } else {
                // The write's term, through an expression that counts the
                // write in the provenance (`State::expr_provs`).
                let mut base = s.events[w].write_prov.clone().unwrap_or_default();
                base.uncount(loc);
                s.exprs.push(ValueExpr {
                    op: crate::ir::ArithOp::Add,
                    a: term,
                    b: RegValue::Const(0),
                });
                s.expr_provs.push((base, Some(loc)));
                forwarded = Some(RegValue::Expr(s.exprs.len() - 1));
            }
        } else if s.forward && !ins.is_write() {
            forwarded = latest_own_derived(s, program, t, loc).map(|term| known(s, term));
        }
    }
    // An RMW whose result nothing reads, of a kind whose effects commute
    // ([`Reduction::CommutingRmws`]): its read stays symbolic and its write
    // is the operation applied to it, as a derived store's.
    let mut derived = derived;
    if s.derive
        && read == Some(ReadValue::Symbolic)
        && commuting.contains(&pc)
        && let Some(op) = &ins.operand
    {
        let width = ins.width.unwrap_or(64);
        s.exprs.push(ValueExpr {
            op: crate::ir::ArithOp::Num(crate::ir::numeric::NumOp::Int(
                crate::ir::numeric::IntOp::Rmw(ins.rmw_op),
                width,
            )),
            a: RegValue::Read(s.events.len()),
            b: term_of(s, op),
        });
        if s.domains {
            s.expr_provs.push((reg_prov(s, op), None));
        }
        derived = Some(RegValue::Expr(s.exprs.len() - 1));
    }
    if derived.is_none()
        && ins.is_write()
        && ins.is_read()
        && ins.write_value.is_none()
        && ins.rmw_op.uses_old()
        && read == Some(ReadValue::Symbolic)
        && let Some(loc) = program.location_of(ins)
    {
        // The value written depends on the value read: fix it now, one
        // alternative per value of the location (an increment of a counter:
        // per value an increment can read, `counters`).
        let values: Vec<i64> = domain[loc]
            .keys()
            .copied()
            .filter(|&v| counters.may_read(loc, v))
            .collect();
        if values.is_empty() {
            // No value this increment can read: no execution takes this path.
            s.dead = true;
            return Ok(false);
        }
        for &v in values.iter().skip(1) {
            let mut other = s.clone();
            other.runs[pc] -= 1;
            other.forced = Some(v);
            stack.push(other);
        }
        read = Some(ReadValue::Concrete(values[0]));
    }
    let loc = program.location_of(ins);
    // Provenance of the value read (when concrete) and of the value written.
    let read_prov: Prov = match (own_prov, read, loc) {
        (Some(p), _, _) => p,
        (None, Some(ReadValue::Concrete(v)), Some(l)) => {
            domain[l].get(&v).cloned().unwrap_or_default()
        }
        _ => Prov::new(),
    };
    let operand_prov: Prov = match &ins.operand {
        Some(op) => reg_prov(s, op),
        None => Prov::new(),
    };
    // A compare-exchange writes only when the value read equals the expected one.
    let writes = ins.is_write()
        && match (ins.rmw_op, read, expected) {
            (RmwOp::CompareExchange, Some(ReadValue::Concrete(old)), Some(exp)) => old == exp,
            _ => true,
        };
    let write = if writes && derived.is_none() {
        match (ins.write_value, operand) {
            (Some(v), _) => Some(v),
            (None, Some(op)) => Some(match read {
                Some(ReadValue::Concrete(old)) => ins.rmw_op.apply_at(old, op, ins.width),
                _ => op, // a store, or an exchange
            }),
            (None, None) => None,
        }
    } else {
        None
    };
    let write_prov = match (write.or(derived.map(|_| 0)), loc) {
        (Some(_), Some(l)) => {
            let mut p =
                if ins.is_read() && ins.rmw_op.uses_old() && ins.rmw_op != RmwOp::CompareExchange {
                    prov_max(&read_prov, &operand_prov)
                } else {
                    operand_prov
                };
            p.count(l);
            Some(p)
        }
        _ => None,
    };
    let index = s.events.len();
    if let Some(term) = forwarded {
        s.forwarded.push((index, term));
    }
    if let (Some(dest), Some(r)) = (&ins.dest, read) {
        s.regs.insert(
            dest,
            match r {
                ReadValue::Concrete(v) => RegValue::Const(v),
                ReadValue::Symbolic => forwarded.unwrap_or(RegValue::Read(index)),
            },
        );
        s.prov.insert(dest, read_prov);
        // A plain read of a location no instruction writes (a uniform, an
        // input buffer) holds its initial value in every execution: a loop
        // bounded by it waits for no one. An atomic read is synchronisation
        // and always counts as memory.
        if ins.atomic || loc.is_none_or(|l| written.get(l).copied().unwrap_or(true)) {
            s.from_memory.insert(dest, ());
        } else {
            s.from_memory.remove(dest);
        }
    }
    if ins.is_write() {
        write_stmts.insert(pc);
    }
    s.events.push(PathEvent {
        stmt: pc,
        read,
        write,
        write_prov,
        writes,
        barrier: BarrierValues::default(),
        derived,
    });
    Ok(true)
}

/// The concrete value of an operand; when it is a symbolic read, splits the
/// state (one alternative per value of the read's domain pushed on the stack,
/// the first kept in `s`) and returns `None` so the caller re-runs the statement.
pub(super) fn value_of(
    s: &mut State,
    stack: &mut Vec<State>,
    op: &Operand,
    reads: &Reads,
) -> Option<i64> {
    match op {
        Operand::Const(v) => Some(*v),
        Operand::Reg(_) => value_of_term(s, stack, term_of(s, op), reads),
    }
}

/// [`value_of`] for a term of the path (a register's value).
pub(super) fn value_of_term(
    s: &mut State,
    stack: &mut Vec<State>,
    term: RegValue,
    reads: &Reads,
) -> Option<i64> {
    let index = match term {
        RegValue::Const(v) => return Some(v),
        RegValue::Read(index) => index,
        // An expression: its first symbolic read made concrete (again
        // until none is left).
        RegValue::Expr(k) => first_symbolic(s, k)?,
    };
    let values = match reads.domain_of(&s.events, index) {
        Some(d) => d,
        // A group function's result no round has computed yet: the path
        // waits (`ThreadPaths::pending`) rather than guess one.
        None if group_key(reads.t, &s.events, index).is_some() => {
            s.pending = true;
            return None;
        }
        None => return Some(0), // unreachable: reads always access a location
    };
    s.runs[s.pc] -= 1; // the statement runs again in each alternative
    let mut values = values.iter();
    let (v0, p0) = values.next().expect("domains hold the initial value");
    for (v, p) in values {
        let mut other = s.clone();
        fix_read(&mut other, index, *v, p, reads);
        stack.push(other);
    }
    fix_read(s, index, *v0, p0, reads);
    None
}

/// What an operand stands for on the path `s`: a constant (also a read
/// made concrete since, and an expression all of whose reads are), or a
/// symbolic read or expression.
pub(super) fn term_of(s: &State, op: &Operand) -> RegValue {
    match op {
        Operand::Const(v) => RegValue::Const(*v),
        Operand::Reg(r) => known(s, s.regs.get(r).copied().unwrap_or(RegValue::Const(0))),
    }
}

/// `v` as far as the path `s` knows it (see [`term_of`]).
pub(super) fn known(s: &State, v: RegValue) -> RegValue {
    let read = |e: usize| match s.events[e].read {
        Some(ReadValue::Concrete(c)) => Some(c),
        _ => None,
    };
    match term_value(&expr_values(&s.exprs, &read), v, &read) {
        Some(c) => RegValue::Const(c),
        None => v,
    }
}

/// The first read (in event order) expression `k` depends on that the path
/// has not made concrete.
pub(super) fn first_symbolic(s: &State, k: usize) -> Option<usize> {
    let mut leaves = Vec::new();
    let mut todo = vec![k];
    let mut seen = HashSet::new();
    while let Some(k) = todo.pop() {
        if !seen.insert(k) {
            continue;
        }
        for t in [s.exprs[k].a, s.exprs[k].b] {
            match t {
                RegValue::Read(e) if !matches!(s.events[e].read, Some(ReadValue::Concrete(_))) => {
                    leaves.push(e)
                }
                RegValue::Expr(j) => todo.push(j),
                _ => {}
            }
        }
    }
    leaves.into_iter().min()
}

/// Makes the symbolic read at `index` concrete everywhere it flowed (its
/// value `v` from its domain, with provenance `prov`).
pub(super) fn fix_read(s: &mut State, index: usize, v: i64, prov: &Prov, reads: &Reads) {
    s.events[index].read = Some(ReadValue::Concrete(v));
    for h in &mut s.heads {
        h.3 = h.3.min(index);
    }
    let prov_map = &mut s.prov;
    s.regs.update(|name, val| {
        (*val == RegValue::Read(index)).then(|| {
            prov_map.insert(name, prov.clone());
            RegValue::Const(v)
        })
    });
    if s.exprs.is_empty() && s.events.iter().all(|e| e.derived.is_none()) && s.forwarded.is_empty()
    {
        return;
    }
    // Expressions and derived stores all of whose reads are now concrete
    // become constants.
    let read = |e: usize| match s.events[e].read {
        Some(ReadValue::Concrete(c)) => Some(c),
        _ => None,
    };
    let values = expr_values(&s.exprs, &read);
    let konst = |v: RegValue| term_value(&values, v, &read);
    let mut regs = s.regs.clone();
    regs.update(|name, val| {
        if let RegValue::Expr(_) = val
            && let Some(c) = konst(*val)
        {
            if s.domains {
                // The constant part's provenance joined by the term's.
                let leaf = |r: usize| match s.events[r].read {
                    Some(ReadValue::Concrete(x)) => reads.prov_of(&s.events, r, x),
                    _ => Prov::new(),
                };
                let provs = term_provs((&s.exprs, &s.expr_provs), &leaf);
                let p = prov_max(
                    &s.prov.get(name).cloned().unwrap_or_default(),
                    &operand_prov(&provs, *val, &leaf),
                );
                s.prov.insert(name, p);
            }
            return Some(RegValue::Const(c));
        }
        None
    });
    let fixed: Vec<(usize, i64)> = s
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, konst(e.derived?)?)))
        .collect();
    // The provenance of a derived write made concrete, as a path with
    // every read concrete gives it.
    let fixed_provs: Vec<Option<Prov>> = fixed
        .iter()
        .map(|&(i, c)| {
            s.domains
                .then(|| {
                    reads
                        .derived_values(&s.events, (&s.exprs, &s.expr_provs), i)
                        .ok()
                        .flatten()
                })
                .flatten()
                .and_then(|mut d| d.remove(&c))
        })
        .collect();
    s.regs = regs;
    // Reads that took a derived write's term ([`Reduction::OwnForwarding`]).
    let mut resolved = Vec::new();
    s.forwarded.retain(|&(i, term)| match konst(term) {
        Some(c) => {
            resolved.push((i, c));
            false
        }
        None => true,
    });
    for (i, c) in resolved {
        s.events[i].read = Some(ReadValue::Concrete(c));
    }
    for ((i, c), p) in fixed.into_iter().zip(fixed_provs) {
        s.events[i].write = Some(c);
        s.events[i].derived = None;
        if let Some(p) = p {
            s.events[i].write_prov = Some(p);
        }
    }
}

pub(super) fn concretize2(
    s: &mut State,
    stack: &mut Vec<State>,
    a: &Operand,
    b: &Operand,
    reads: &Reads,
) -> Option<(i64, i64)> {
    let va = value_of(s, stack, a, reads)?;
    let vb = value_of(s, stack, b, reads)?;
    Some((va, vb))
}

/// Keeps the values a path abandoned before its end (cut by the bound, or
/// an await iteration dropped) wrote: see [`ThreadPaths::cut_writes`].
/// While the value domains are computed with symbolic reads, a derived
/// write stands for each value its term can have
/// ([`Reads::derived_values`]).
fn keep_prefix_writes(s: &State, reads: &Reads, out: &mut ThreadPaths) -> Result<(), ExecError> {
    let (program, t) = (reads.program, reads.t);
    let mut own: BTreeMap<usize, u32> = BTreeMap::new();
    for (i, e) in s.events.iter().enumerate() {
        let derived = s.domains && e.writes && e.derived.is_some();
        let Some(l) = location(program, t, e.stmt).filter(|_| e.write.is_some() || derived) else {
            continue;
        };
        *own.entry(l).or_default() += 1;
        let values: BTreeMap<i64, Prov> = match (e.write, &e.write_prov) {
            (Some(v), Some(prov)) => BTreeMap::from([(v, prov.clone())]),
            _ if derived => match reads.derived_values(&s.events, (&s.exprs, &s.expr_provs), i)? {
                Some(values) => values,
                None => {
                    out.unresolved = true;
                    continue;
                }
            },
            _ => continue,
        };
        for (v, prov) in values {
            match out.cut_writes.get_mut(&(l, v)) {
                // Several prefixes wrote it: the least provenance and the
                // most own writes (a looser bound only lets more values in).
                Some((p, o)) => {
                    *p = prov_min(p, &prov);
                    for (&k, &n) in &own {
                        let m = o.entry(k).or_default();
                        *m = (*m).max(n);
                    }
                }
                None => {
                    out.cut_writes.insert((l, v), (prov, own.clone()));
                }
            }
        }
    }
    Ok(())
}

/// Adds the values the derived writes of the complete path `s` can have
/// to [`ThreadPaths::derived_writes`] (while the value domains are
/// computed with symbolic reads).
fn derived_writes(s: &State, reads: &Reads, out: &mut ThreadPaths) -> Result<(), ExecError> {
    for (i, e) in s.events.iter().enumerate() {
        if !e.writes || e.derived.is_none() {
            continue;
        }
        let Some(l) = location(reads.program, reads.t, e.stmt) else {
            continue;
        };
        match reads.derived_values(&s.events, (&s.exprs, &s.expr_provs), i)? {
            Some(values) => {
                for (v, prov) in values {
                    match out.derived_writes.get_mut(&(l, v)) {
                        Some(p) => *p = prov_min(p, &prov),
                        None => {
                            out.derived_writes.insert((l, v), prov);
                        }
                    }
                }
            }
            None => out.unresolved = true,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(stmt: usize, write: Option<i64>) -> PathEvent {
        PathEvent {
            stmt,
            read: None,
            write,
            derived: None,
            write_prov: None,
            writes: write.is_some(),
            barrier: BarrierValues::default(),
        }
    }

    fn finished(events: Vec<PathEvent>) -> Path {
        Path {
            events,
            registers: Vec::new(),
            awaits: Vec::new(),
            ending: Ending::Finished,
            exprs: Vec::new(),
        }
    }

    /// Every prefix of the listed paths and of the paths the bound stopped
    /// is added once as a stopped path: the empty one, and each longer one
    /// the first time a path has it, whichever path that is.
    #[test]
    fn each_prefix_is_stopped_once() {
        let (a, b, c) = (event(0, Some(1)), event(1, None), event(1, Some(2)));
        let mut out = ThreadPaths {
            paths: vec![
                finished(vec![a.clone(), b.clone()]),
                finished(vec![a.clone(), c.clone()]),
            ],
            ..Default::default()
        };
        // Its first two events are a path's; the third is new.
        let at_bound = vec![vec![a.clone(), b.clone(), c.clone()]];
        add_stopped_prefixes(&mut out, at_bound);
        let stopped: Vec<Vec<PathEvent>> = out.paths[2..]
            .iter()
            .inspect(|p| assert_eq!(p.ending, Ending::Stopped))
            .map(|p| p.events.clone())
            .collect();
        assert_eq!(
            stopped,
            vec![
                vec![],
                vec![a.clone()],
                vec![a.clone(), b.clone()],
                vec![a.clone(), c.clone()],
                vec![a, b, c],
            ]
        );
        // No paths: no prefix, not even the empty one.
        let mut none = ThreadPaths::default();
        add_stopped_prefixes(&mut none, Vec::new());
        assert!(none.paths.is_empty());
    }
}

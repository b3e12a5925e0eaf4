//! The static spin-loop analysis: which loops run as awaits.

use crate::ir::{Instruction, OpKind, Operand, Program, Stmt, Thread};
use std::collections::{HashMap, HashSet};

/// A loop that paths run as an await (see [`spin_loops`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpinLoop {
    /// The label statement the back jump targets.
    pub header: usize,
    /// The jump back (a `goto`, or a branch whose taken side is the head).
    pub back: usize,
    /// The statements of `header..back` from which `back` cannot be
    /// reached, `(start, end)` for `start..end` (empty when none): the
    /// code a structured loop runs before leaving (`if (..) { continue; }
    /// work; break;`), which only the leaving iteration runs. A path
    /// entering it has left the await.
    pub exit: (usize, usize),
}

impl SpinLoop {
    /// Whether statement `k` is in the loop's iterations that may jump
    /// back: inside `header..=back` and not in its exit region.
    pub fn holds(&self, k: usize) -> bool {
        (self.header..=self.back).contains(&k) && !(self.exit.0..self.exit.1).contains(&k)
    }
}

/// The side-effect-free loops of thread `t` that can run as awaits.
///
/// A backward jump at statement `back` to the label at `header` makes a
/// loop `header..=back` that qualifies when:
///
/// 1. its body holds only loads (plain or atomic), atomic
///    read-modify-writes that `rmw_may_be_dropped` accepts, memory
///    barriers (`membar`: a fence writes nothing, and dropping one only
///    removes happens-before edges), local arithmetic, and jumps forward,
///    out of the loop or inside the body (an `if` in the body: the SPIR-V
///    front end lowers a selection, and an `OpPhi`, to such jumps and
///    assignments) — no store, control barrier (dropping one would change
///    which invocations meet at a barrier instance) or availability /
///    visibility operation. A loop with a read-modify-write (a
///    compare-exchange lock loop, a test-and-set or exchange loop) is an
///    await only on the paths whose iteration that jumps back writes
///    nothing or writes back the value it read (checked per path: a failed
///    compare-exchange, an exchange of 1 that read 1); an iteration that
///    changes memory and jumps back is an ordinary iteration, counted by
///    the unrolling bound. Statements of `header..back` from which `back`
///    cannot be reached ([`SpinLoop::exit`], one contiguous stretch: a
///    structured loop's `if (..) { continue; } work; break;`) are not
///    part of the iterations that jump back: they may hold anything, and
///    the conditions below read them as code after the loop;
/// 2. no register is read in the body before the body writes it and is
///    also written in the body: every iteration then computes the same
///    function of the values it reads (Dat3M's "side-effect free" check);
/// 3. a register written after an exit (so that an iteration leaving
///    there keeps a previous iteration's value) is not read outside the
///    loop and not shown in the final states (named by the condition, or
///    every register when there is no condition);
/// 4. no load of the body can be in a data race: every write to its
///    location in another thread is atomic, through the same reference and
///    mutually in scope with it (so both are mutually-ordered atomics /
///    inclusive-scope atomics), or ordered before the loop by a control
///    barrier (`barrier_orders`: a workgroup variable's zero
///    initialisation), and every write to it in the same thread uses the
///    same reference (program order location-orders them).
///
/// With `listing` (the outcome listing; not the termination search, see
/// below), the body may also hold inner loops that qualify themselves
/// (their back jump is the only backward jump in the body besides `back`,
/// and a label in the body is the target of jumps from the body only). A
/// test-and-test-and-set lock is such a loop when written with an inner
/// await (`do { while (load(l) != 0); } while (exchange(l, 1) != 0)`); as
/// one loop with a branch (`while (!(load(l) == 0 && exchange(l, 1) ==
/// 0));`, the shape clspv emits) it qualifies in both. Conditions 2 and 3
/// are read along the body's paths: a register is read "before the body
/// writes it" when some path from the head reaches the read without
/// writing it, and is "written after an exit" when some exit (a jump out
/// of the loop, or `back` not taken) is reached on a path that has not
/// written it (see `body_registers_ok`). The inner loop's iterations
/// that jump back are dropped on their own (the inner loop is an await);
/// an outer iteration on a path that survives them holds one pass through
/// the inner loop, the one that leaves it, so the outer body's paths are
/// those of the body with the inner back jumps removed, an acyclic graph
/// whose edges all go forward.
///
/// Dropping an iteration that jumps back removes only reads, fences and
/// read-modify-writes that wrote nothing or wrote back what they read (the
/// inner loop's included: its dropped iterations were dropped already, its
/// leaving iteration is part of the outer one): no write that changes
/// memory, no register the rest of the path sees (2, 3: on every path
/// through the body), and no access that could race (4, and the
/// read-modify-writes' own condition). Every execution with dropped
/// iterations keeps its final state in the execution without them, whose
/// relations are restrictions of its own (fewer happens-before edges), which
/// assumes the model's checks are monotone in those relations;
/// `tests/differential/spin.rs` compares the reduction with the reference
/// enumeration.
///
/// The termination search keeps no inner loops: its stuck awaits
/// ([`Stuck::side_effect_free`](super::path::Stuck::side_effect_free)) stand for a loop whose last iteration
/// repeats forever, and `analysis::termination` asks whether that
/// iteration's reads can keep returning their values (a read-modify-write
/// of it that writes back what it read makes no earlier write stale); an
/// outer iteration would carry the inner await's leaving iteration, whose
/// values leave the inner loop, into that question, which nothing there
/// has been checked against.
pub fn spin_loops(program: &Program, t: &Thread, listing: bool) -> Vec<SpinLoop> {
    spin_loops_with(program, t, listing, &written_locations(program))
}

/// What `load_cannot_race`'s answer depends on besides the thread: the
/// location, reference, atomicity and scope of the load, and whether it
/// comes after the thread's leading control barrier ([`barrier_orders`]).
type LoadKey = (usize, Option<usize>, bool, Option<crate::ir::Scope>, bool);

/// [`spin_loops`] given the program's written locations
/// ([`written_locations`], computed once per exploration,
/// not per thread).
pub(super) fn spin_loops_with(
    program: &Program,
    t: &Thread,
    listing: bool,
    written: &[bool],
) -> Vec<SpinLoop> {
    let labels = label_map(t);
    let jump_target = |s: &Stmt| match s {
        Stmt::Goto { label, .. } | Stmt::Branch { label, .. } => {
            labels.get(label.as_str()).copied()
        }
        _ => None,
    };
    // Each label statement, with the statements that jump to it.
    let mut jumps_to: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, s) in t.code.iter().enumerate() {
        if let Some(x) = jump_target(s) {
            jumps_to.entry(x).or_default().push(k);
        }
    }
    let shown = shown_registers(program, t);
    // `load_cannot_race` scans every thread's code; a loop body of many
    // loads (a runtime index into a large buffer) asks it the same
    // question per cell, so its answers are kept per (location, reference,
    // atomic, scope, side of the leading barrier), and a location nothing
    // writes answers at once.
    let leading = leading_barrier(t).map(|(b, ..)| b);
    let race_free: std::cell::RefCell<HashMap<LoadKey, bool>> = Default::default();
    let cannot_race = |k: usize, i: &crate::ir::Instruction| {
        let Some(loc) = program.location_of(i) else {
            return false;
        };
        if !written.get(loc).copied().unwrap_or(true) {
            return true;
        }
        let after = leading.is_some_and(|b| k > b);
        let key = (loc, i.reference, i.atomic, i.scope, after);
        if let Some(&known) = race_free.borrow().get(&key) {
            return known;
        }
        let answer = load_cannot_race(program, t, i);
        race_free.borrow_mut().insert(key, answer);
        answer
    };
    // Inner loops first: a loop's body may hold qualifying loops only.
    let mut candidates: Vec<(usize, usize)> = t
        .code
        .iter()
        .enumerate()
        .filter_map(|(back, s)| jump_target(s).filter(|h| *h < back).map(|h| (h, back)))
        .collect();
    candidates.sort_by_key(|&(h, b)| (b - h, b));
    let mut out: Vec<SpinLoop> = Vec::new();
    for (header, back) in candidates {
        let Some(exit) = exit_region(t, &jump_target, header, back) else {
            continue;
        };
        let inside = |k: usize| header < k && k <= back;
        let inner = |k: usize, x: usize| {
            listing
                && out
                    .iter()
                    .any(|l| l.back == k && l.header == x && inside(x))
        };
        // 1. A body of loads, read-modify-writes that may be dropped and
        // arithmetic; jumps forward, out of the loop or inside the body
        // (with `listing`, qualifying inner loops too).
        let shape_ok = (header + 1..back).all(|k| match &t.code[k] {
            _ if exit.contains(&k) && !matches!(t.code[k], Stmt::Label { .. }) => true,
            Stmt::Label { .. } => jumps_to
                .get(&k)
                .is_none_or(|from| from.iter().all(|&j| inside(j) && (listing || j < k))),
            Stmt::Goto { .. } | Stmt::Branch { .. } => match jump_target(&t.code[k]) {
                Some(x) if x > k => true,
                Some(x) => inner(k, x),
                None => false,
            },
            Stmt::Assign { .. } => true,
            Stmt::Op(i) => match i.kind {
                OpKind::Load => cannot_race(k, i),
                OpKind::MemoryBarrier => true,
                OpKind::Rmw => rmw_may_be_dropped(program, t, i),
                _ => false,
            },
        });
        // 2 and 3, along the body's paths.
        if shape_ok && body_registers_ok(t, (header, back), &exit, &jump_target, shown.as_ref()) {
            out.push(SpinLoop {
                header,
                back,
                exit: (exit.start, exit.end),
            });
        }
    }
    out.sort_by_key(|l| (l.back, l.header));
    out
}

/// The statements of the body `header+1..back` from which `back` cannot be
/// reached inside the loop ([`SpinLoop::exit`]), as one range (empty when
/// every statement can reach it); `None` when they are not contiguous
/// (the loop does not qualify).
fn exit_region(
    t: &Thread,
    jump_target: &dyn Fn(&Stmt) -> Option<usize>,
    header: usize,
    back: usize,
) -> Option<std::ops::Range<usize>> {
    // reach[k - header]: `back` is reachable from statement k without
    // leaving header..=back (backward jumps of inner loops included: a
    // fixpoint, each pass settling one more level of nesting).
    let mut reach = vec![false; back - header + 1];
    reach[back - header] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for k in (header + 1..back).rev() {
            if reach[k - header] {
                continue;
            }
            let falls = !matches!(t.code[k], Stmt::Goto { .. });
            let to = jump_target(&t.code[k]);
            let via = |x: usize| (header..=back).contains(&x) && reach[x - header];
            if (falls && via(k + 1)) || to.is_some_and(via) {
                reach[k - header] = true;
                changed = true;
            }
        }
    }
    let off: Vec<usize> = (header + 1..back).filter(|&k| !reach[k - header]).collect();
    match (off.first(), off.last()) {
        (Some(&a), Some(&b)) if b - a + 1 == off.len() => Some(a..b + 1),
        (Some(_), _) => None,
        _ => Some(0..0),
    }
}

/// Conditions 2 and 3 of [`spin_loops`] for the loop `header..=back`,
/// whose jumps inside the body all go forward except the back jumps of
/// inner loops (which are ignored: see [`spin_loops`]).
///
/// A forward pass over the body computes, before each statement, the
/// registers written on every path from the head to it (the intersection
/// over the statements that lead to it: the one before when it falls
/// through, and the forward jumps to it). A read of a register not in that
/// set is *exposed* (some iteration reads the value an earlier iteration,
/// or the code before the loop, left); condition 2 fails when an exposed
/// register is written anywhere in the body. At each exit (a jump past
/// `back`, or `back` itself when it is a branch, not taken) the registers
/// the body writes but that path need not have written are *late*;
/// condition 3 fails when a late register is read outside the loop or
/// shown. On a straight-line body this is the reading of the conditions in
/// program order: the intersection is what the statements before wrote,
/// and the late registers are those written after the first exit.
pub(super) fn body_registers_ok(
    t: &Thread,
    (header, back): (usize, usize),
    exit: &std::ops::Range<usize>,
    jump_target: &dyn Fn(&Stmt) -> Option<usize>,
    shown: Option<&HashSet<String>>,
) -> bool {
    // Registers written on every path from the head: `into` is the set
    // falling through into the statement about to run (None: the one
    // before does not fall through), `joins[k]` the meet over the forward
    // jumps to `k`. Straight-line statements update one set in place, so
    // the pass costs a copy per jump, not per statement.
    fn meet<'a>(slot: &mut Option<HashSet<&'a str>>, w: &HashSet<&'a str>) {
        match slot {
            Some(s) => s.retain(|r| w.contains(r)),
            None => *slot = Some(w.clone()),
        }
    }
    let mut joins: HashMap<usize, Option<HashSet<&str>>> = HashMap::new();
    let mut into: Option<HashSet<&str>> = Some(HashSet::new());
    let mut written: HashSet<&str> = HashSet::new();
    let mut exposed: HashSet<&str> = HashSet::new();
    let mut at_exits: Option<HashSet<&str>> = None;
    for k in header + 1..=back {
        if exit.contains(&k) {
            // Outside the iterations: reaching it is leaving the loop.
            if let Some(w) = into.take() {
                meet(&mut at_exits, &w);
            }
            if let Some(j) = joins.remove(&k).flatten() {
                meet(&mut at_exits, &j);
            }
            continue;
        }
        // An unreachable statement: read as if nothing were written.
        let mut w = match (into.take(), joins.remove(&k).flatten()) {
            (Some(mut c), Some(j)) => {
                c.retain(|r| j.contains(r));
                c
            }
            (Some(c), None) => c,
            (None, Some(j)) => j,
            (None, None) => HashSet::new(),
        };
        let (reads, write) = registers_of(&t.code[k]);
        exposed.extend(reads.into_iter().filter(|r| !w.contains(r)));
        if let Some(r) = write {
            written.insert(r);
            w.insert(r);
        }
        let target = jump_target(&t.code[k]);
        match target {
            Some(x) if x > back || exit.contains(&x) => meet(&mut at_exits, &w),
            Some(x) if x > k => meet(joins.entry(x).or_default(), &w),
            _ => {}
        }
        let falls_through = !matches!(t.code[k], Stmt::Goto { .. });
        if k == back {
            if falls_through {
                meet(&mut at_exits, &w);
            }
        } else if falls_through {
            into = Some(w);
        }
    }
    // 2. Registers read before written are never written.
    if exposed.iter().any(|r| written.contains(r)) {
        return false;
    }
    // 3. Registers an exit leaves stale are dead after the loop.
    let at_exits = at_exits.unwrap_or_default();
    let outside: HashSet<&str> = t
        .code
        .iter()
        .enumerate()
        .filter(|(k, _)| *k <= header || *k > back || exit.contains(k))
        .flat_map(|(_, s)| registers_of(s).0)
        .collect();
    let read_outside = |r: &str| outside.contains(r);
    !written
        .iter()
        .filter(|r| !at_exits.contains(*r))
        .any(|r| read_outside(r) || shown.is_none_or(|s| s.contains(*r)))
}

/// The registers of `t` final states show, or `None` when they show all of
/// them (no condition).
pub(super) fn shown_registers(program: &Program, t: &Thread) -> Option<HashSet<String>> {
    use crate::ir::Term;
    let c = program.condition.as_ref()?;
    let mut terms = Vec::new();
    c.expr.terms(&mut terms);
    if let Some(f) = &c.filter {
        f.terms(&mut terms);
    }
    let me = program.threads.iter().position(|x| std::ptr::eq(x, t));
    Some(
        terms
            .into_iter()
            .filter_map(|term| match term {
                Term::Reg { thread, reg } if Some(*thread) == me => Some(reg.clone()),
                _ => None,
            })
            .collect(),
    )
}

/// The registers a statement reads, and the one it writes.
pub(super) fn registers_of(s: &Stmt) -> (Vec<&str>, Option<&str>) {
    fn reg(o: &Operand) -> Option<&str> {
        match o {
            Operand::Reg(r) => Some(r.as_str()),
            Operand::Const(_) => None,
        }
    }
    match s {
        Stmt::Assign { dest, a, b, .. } => (
            reg(a).into_iter().chain(reg(b)).collect(),
            Some(dest.as_str()),
        ),
        Stmt::Branch { a, b, .. } => (reg(a).into_iter().chain(reg(b)).collect(), None),
        Stmt::Op(i) => (
            i.operand
                .iter()
                .chain(&i.expected)
                .filter_map(reg)
                .collect(),
            i.dest.as_deref(),
        ),
        Stmt::Label { .. } | Stmt::Goto { .. } => (Vec::new(), None),
    }
}

/// Whether a read-modify-write in a loop body lets [`spin_loops`] run the
/// loop as an await: atomic, without release semantics, and with every
/// access of its location in other threads a mutually-ordered atomic (same
/// reference, each in the other's scope instance), in its own thread
/// through the same reference.
///
/// Why an iteration whose RMW `F` wrote back the value `v` it read (or,
/// a failed compare-exchange, wrote nothing: SPIR-V's OpAtomicCompareExchange
/// stores only when the original value equals the comparator) can be
/// dropped: `F` read `v` from a write `W`, and the appendix puts `F`
/// "immediately after" `W` in the scoped modification order ("If A is a
/// write and B is a read-modify-write and B reads the value written by A,
/// then B comes immediately after A in A's scoped modification order"). In
/// the execution without `F`, a read of `F` reads `W` instead: the same
/// value, the same writes after it in the order, and the same release
/// sequences (a release sequence holds "atomic read-modify-write operations
/// on M by any agent" after its head: one through `F` runs through `W`
/// already). With no release semantics `F` heads no release sequence, so
/// every synchronizes-with edge of the execution without `F` is one of the
/// execution with it: its relations are restrictions of the original's
/// (fewer happens-before edges), as for dropped loads, and no access can
/// race with `F` (the location's accesses are mutually-ordered atomics).
/// The final value of the location is unchanged (`F` wrote what `W` did).
pub(super) fn rmw_may_be_dropped(program: &Program, t: &Thread, rmw: &Instruction) -> bool {
    let Some(loc) = program.location_of(rmw) else {
        return false;
    };
    if !rmw.atomic
        || rmw.semantics.order.is_release()
        || rmw
            .failure_semantics
            .as_ref()
            .is_some_and(|s| s.order.is_release())
    {
        return false;
    }
    no_race_with(program, t, rmw, loc, |_| true)
}

/// Condition 4 of [`spin_loops`]: no write of the program can race with
/// the load `load` of thread `t`.
pub(super) fn load_cannot_race(program: &Program, t: &Thread, load: &Instruction) -> bool {
    let Some(loc) = program.location_of(load) else {
        return false;
    };
    no_race_with(program, t, load, loc, Instruction::is_write)
}

/// Whether every access of location `loc` that `which` selects is, in
/// another thread, a mutually-ordered atomic with the atomic `access` of
/// thread `t` (same reference, each in the other's scope instance), and in
/// `t` itself an access through the same reference.
pub(super) fn no_race_with(
    program: &Program,
    t: &Thread,
    access: &Instruction,
    loc: usize,
    which: impl Fn(&Instruction) -> bool,
) -> bool {
    let me = program.threads.iter().position(|x| std::ptr::eq(x, t));
    let at = t
        .code
        .iter()
        .position(|st| matches!(st, Stmt::Op(i) if std::ptr::eq(i, access)));
    program.threads.iter().enumerate().all(|(ti, other)| {
        other
            .code
            .iter()
            .enumerate()
            .filter_map(|(k, st)| match st {
                Stmt::Op(a) if which(a) && program.location_of(a) == Some(loc) => Some((k, a)),
                _ => None,
            })
            .all(|(k, a)| {
                if let (Some(me), Some(at)) = (me, at)
                    && Some(ti) != Some(me)
                    && barrier_orders(program, (ti, k), (me, at))
                {
                    return true;
                }
                let same_ref = a.reference == access.reference;
                if Some(ti) == me {
                    return same_ref;
                }
                let (Some(me), Some(sx), Some(sa)) = (me, access.scope, a.scope) else {
                    return false;
                };
                same_ref
                    && access.atomic
                    && a.atomic
                    && crate::engine::instances::thread_in_instance(program, ti, sx, me)
                    && crate::engine::instances::thread_in_instance(program, me, sa, ti)
            })
    })
}

/// The first control barrier of `t` (statement, instance, execution scope,
/// instruction) when no label or jump comes before it: every path of the
/// thread passes it.
fn leading_barrier(t: &Thread) -> Option<(usize, u32, crate::ir::Scope, &Instruction)> {
    t.code.iter().enumerate().find_map(|(k, st)| match st {
        Stmt::Op(i) => match i.kind {
            OpKind::ControlBarrier {
                instance,
                execution_scope,
                id: None,
                quorum: None,
            } => Some(Some((k, instance, execution_scope, i))),
            _ => None,
        },
        Stmt::Assign { .. } => None,
        // A label or a jump before the barrier: some path may not pass it.
        _ => Some(None),
    })?
}

/// Whether a control barrier orders statement `w` of one thread before
/// statement `a` of another in every execution that runs `a`: both threads
/// have the same leading barrier instance ([`leading_barrier`]: every path
/// passes it), `w` comes before it and `a` after it, both threads are
/// in one instance of its execution scope, and its memory semantics
/// (acquire and release, on the storage class of `w`'s location) make the
/// release of the writer's side synchronise with the acquire of the
/// reader's. The Vulkan appendix: "If A and B are both control barriers
/// [...] A and B are in the same dynamic instance [...] then A
/// synchronizes-with B" when the semantics include acquire and release,
/// so `w` happens before `a` and the two cannot race. This is how a
/// workgroup variable's zero initialisation (one invocation stores, then a
/// workgroup barrier) reaches the loops after it.
fn barrier_orders(program: &Program, (tw, w): (usize, usize), (ta, a): (usize, usize)) -> bool {
    let (Some((bw, iw, sw, barrier)), Some((ba, ia, _, _))) = (
        leading_barrier(&program.threads[tw]),
        leading_barrier(&program.threads[ta]),
    ) else {
        return false;
    };
    let Stmt::Op(write) = &program.threads[tw].code[w] else {
        return false;
    };
    let sem = &barrier.semantics;
    iw == ia
        && w < bw
        && a > ba
        && crate::engine::instances::same_instance(program, tw, sw, ta)
        && sem.order.is_acquire()
        && sem.order.is_release()
        && write
            .storage_class
            .is_some_and(|c| sem.storage_classes.contains(&c))
}

/// Per location: whether some instruction of the program writes it.
pub(super) fn written_locations(program: &Program) -> Vec<bool> {
    let mut written = vec![false; program.locations.len()];
    for ins in program.threads.iter().flat_map(|t| t.instructions()) {
        if ins.is_write()
            && let Some(l) = program.location_of(ins)
            && let Some(w) = written.get_mut(l)
        {
            *w = true;
        }
    }
    written
}

/// A thread's labels with the index of each one's statement. FxHash, not
/// SipHash: the path walk looks a jump's label up at every jump it runs.
pub(super) type Labels<'t> = rustc_hash::FxHashMap<&'t str, usize>;

/// Each label of the thread's code with the index of its statement.
pub(super) fn label_map(t: &Thread) -> Labels<'_> {
    t.code
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Stmt::Label { name, .. } => Some((name.as_str(), i)),
            _ => None,
        })
        .collect()
}

/// Every statement's [`successors`], in statement order: the table the
/// backward and forward walks over a thread's code index instead of
/// looking a label up at each step.
pub(super) fn successor_table(t: &Thread, labels: &Labels) -> Vec<[Option<usize>; 2]> {
    (0..t.code.len())
        .map(|k| successors(t, labels, k))
        .collect()
}

/// The statements control may go to after statement `k` of `t` (a jump's
/// target, the next statement; `t.code.len()` past the end).
pub(super) fn successors(t: &Thread, labels: &Labels, k: usize) -> [Option<usize>; 2] {
    match &t.code[k] {
        Stmt::Goto { label, .. } => [labels.get(label.as_str()).copied(), None],
        Stmt::Branch { label, .. } => [labels.get(label.as_str()).copied(), Some(k + 1)],
        _ => [Some(k + 1), None],
    }
}

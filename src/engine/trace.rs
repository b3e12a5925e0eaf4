//! Per-thread paths: each thread's code run on its own, with loops unrolled
//! to a bound, branching wherever the value of a read decides something.
//!
//! A read's value is left *symbolic* (any value a write to its location can
//! have) until something needs it concretely: a branch, a stored value, a
//! read-modify-write operand, local arithmetic. Only then does the path split,
//! once per value of the location's value domain. So a read whose value only
//! ends up in a final register never multiplies the paths; its value is
//! fixed later by the reads-from choice.
//!
//! Side-effect-free spin loops are run as *awaits* ([`spin_loops`]): a path
//! keeps only the iteration that leaves the loop; an iteration whose values
//! send it back to the loop's head is dropped (recorded on the sibling paths
//! as a looping alternative, [`Await::looping`]), so such loops never hit the
//! unrolling bound. In the outcome listing an await's body may branch and
//! hold inner awaits (test-and-test-and-set locks): the awaits under way
//! form a stack, innermost last.

use super::{ExecError, LimitKind, Limits};
use crate::ir::{Instruction, OpKind, Operand, Program, RmwOp, Stmt, Thread};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The time limit (`--timeout`) and the memory bound (`--max-memory`),
/// read while the paths are enumerated and the value domains computed: the
/// driver reads them between candidate executions only, and a path-heavy
/// thread could run far past its limit before the first candidate.
pub(crate) struct Budget {
    start: web_time::Instant,
    timeout: Option<std::time::Duration>,
    max_memory: Option<usize>,
    steps: std::cell::Cell<u64>,
}

/// The budget is read once every this many steps of the path walk.
pub(crate) const BUDGET_EVERY: u64 = 1024;

impl Budget {
    pub(crate) fn new(limits: &Limits) -> Budget {
        Budget {
            start: web_time::Instant::now(),
            timeout: limits.timeout,
            max_memory: limits.max_memory,
            steps: std::cell::Cell::new(0),
        }
    }

    /// One step of the walk; every [`BUDGET_EVERY`] steps, an error naming
    /// the limit if the time or memory is spent (`what`: what was being
    /// computed, for the message).
    pub(crate) fn step(&self, what: &dyn Fn() -> String) -> Result<(), ExecError> {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n.is_multiple_of(BUDGET_EVERY) {
            self.check(what)
        } else {
            Ok(())
        }
    }

    /// [`Budget::step`] without the counter.
    fn check(&self, what: &dyn Fn() -> String) -> Result<(), ExecError> {
        if let Some(t) = self.timeout
            && self.start.elapsed() >= t
        {
            return Err(ExecError::limit(
                LimitKind::Timeout,
                format!("stopped at the time limit (--timeout) while {}", what()),
            ));
        }
        if crate::memory::over(self.max_memory) {
            return Err(ExecError::limit(
                LimitKind::MaxMemory,
                format!(
                    "stopped at the memory bound (--max-memory) while {}",
                    what()
                ),
            ));
        }
        Ok(())
    }
}

/// The value a read returns on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadValue {
    /// Fixed on this path: the read must read a write of this value (or the
    /// initial value, if equal).
    Concrete(i64),
    /// Not needed by the path: any write to the location (or the initial value).
    Symbolic,
}

/// One event of a path: an executed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct PathEvent {
    /// Index of the statement in the thread's code.
    pub stmt: usize,
    /// Value read, for reads.
    pub read: Option<ReadValue>,
    /// Value written, for writes (`None`: unknown, only in Alloy `.test` files
    /// where a store names no value, or `derived`).
    pub write: Option<i64>,
    /// A store whose value is a function of symbolic reads
    /// ([`Limits::symbolic_stores`]): a [`RegValue::Read`] or
    /// [`RegValue::Expr`] of the path, its value known once a candidate
    /// execution says what those reads read (`write` is `None`).
    pub derived: Option<RegValue>,
    /// Provenance of the value written (value-domain computation only).
    pub write_prov: Option<Vec<u32>>,
    /// Whether the event writes: the instruction is a write, and not a
    /// compare-exchange that failed.
    pub writes: bool,
    /// A named control barrier's id and quorum values on this path.
    pub barrier: BarrierValues,
}

/// The values of a control barrier's id and quorum operands on a path
/// (`None` when the barrier has no such operand), and of a group
/// function's operands ([`crate::ir::Instruction::group`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarrierValues {
    pub id: Option<i64>,
    pub quorum: Option<i64>,
    /// The value a group function's work-item contributes.
    pub contribution: Option<i64>,
    /// A broadcast's local id.
    pub local_id: Option<i64>,
}

/// A register's final value on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegValue {
    Const(i64),
    /// The value read by the path's event at this index (a symbolic read).
    Read(usize),
    /// The value of the path's expression at this index
    /// ([`Path::exprs`]): local arithmetic on symbolic reads, computed
    /// once a candidate execution says what they read
    /// ([`Limits::symbolic_stores`]).
    Expr(usize),
}

/// Local arithmetic whose operands include a symbolic read
/// ([`RegValue::Expr`]): `a op b`, each operand a constant, a symbolic read
/// or an earlier expression of the same path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueExpr {
    pub op: crate::ir::ArithOp,
    pub a: RegValue,
    pub b: RegValue,
}

/// One path of a thread: complete (it reaches the end of the code), or, when
/// exploring for termination ([`Limits::endings`]), one that ends stuck in a
/// loop or stops part-way.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub events: Vec<PathEvent>,
    /// Final registers (complete paths only; empty for the others).
    pub registers: Vec<(String, RegValue)>,
    /// The spin loops the path ran as awaits, in program order.
    pub awaits: Vec<Await>,
    /// How the path ends.
    pub ending: Ending,
    /// The expressions [`RegValue::Expr`] names (registers and derived
    /// stores; empty without [`Limits::symbolic_stores`]).
    pub exprs: Vec<ValueExpr>,
}

/// How a path ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It runs to the end of the thread's code.
    Finished,
    /// It has just jumped back to a loop's head and ends there: the loop may
    /// go on forever if its last iterations can repeat (see
    /// `analysis::termination`).
    Stuck(Stuck),
    /// It stops after its events, without finishing: a thread the scheduler
    /// no longer runs (no event at all: it never started).
    Stopped,
    /// It waits at a control barrier (the statement `stmt`, its `key`-th
    /// dynamic instance: static instance number and how many times the path
    /// reached it, with its id and quorum `values`) that does not open: too
    /// few invocations of its execution-`scope` instance arrive (see
    /// [`super::barrier`]).
    Blocked {
        stmt: usize,
        key: (u32, usize),
        scope: crate::ir::Scope,
        values: BarrierValues,
    },
    /// It stops where the unrolling bound cut it: running statement `stmt`
    /// once more would exceed the bound; or (`spinning`) it spins forever
    /// in the await whose head is `stmt`: no value of the domains lets
    /// it leave (every iteration was dropped). Only in
    /// [`ThreadPaths::cut_prefixes`], for races within the bound
    /// ([`super::Limits::prefix_races`]).
    Cut { stmt: usize, spinning: bool },
}

/// A loop a path ends in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck {
    /// The loop's head (the label statement the back jump targets).
    pub header: usize,
    /// The jump back.
    pub back: usize,
    /// The loop's iterations on the path since it entered the loop, oldest
    /// first, as ranges of event indices (the last one ends the path).
    pub iterations: Vec<std::ops::Range<usize>>,
    /// A spin loop run as an await: its last iteration alone repeats (it
    /// writes nothing and leaves the registers as it found them).
    pub side_effect_free: bool,
    /// The registers at the start of each iteration, then (last) at the end
    /// of the path, back at the loop's head (loops that are not awaits):
    /// a register's value, or the read (event index) whose value it holds
    /// when nothing on the path made that value concrete (it then depends
    /// on the candidate execution).
    pub registers: Vec<Vec<(String, RegValue)>>,
}

/// One pass of a path through a spin loop run as an await: its events are
/// those of the iteration that leaves the loop. What would keep the loop
/// spinning is kept for forward-progress questions (an await whose looping
/// values can be read forever may spin forever); nothing uses it yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Await {
    /// The loop's head (the label statement the back jump targets).
    pub header: usize,
    /// The events of the leaving iteration: indices into the path's events.
    pub events: std::ops::Range<usize>,
    /// Paths of the thread with the same `instance` went through the same
    /// entry into the loop (they split on the values read inside it).
    pub instance: usize,
    /// The iterations dropped at this entry because their values make the
    /// loop jump back: for each, the values its reads returned, in order
    /// (a read the branch did not need stays symbolic).
    pub looping: Vec<Vec<ReadValue>>,
}

/// All paths of one thread.
#[derive(Clone, Debug, Default)]
pub struct ThreadPaths {
    pub paths: Vec<Path>,
    /// Paths abandoned because a statement would run more than the bound allows.
    pub cut: usize,
    /// The values the paths abandoned before their end wrote (cut by the
    /// bound, or an await's iteration dropped because every value of the
    /// domain loops), per `(location, value)` with the least provenance:
    /// such a prefix can be the prefix of a path within the bound (the
    /// thread reads its own earlier write, then leaves the loop), so its
    /// writes join the value domains ([`explore`]).
    /// With each, the prefix's own writes per location up to that write
    /// (sparse), which bound the provenance instead of this thread's
    /// complete paths when they write more.
    pub cut_writes: BTreeMap<(usize, i64), (Prov, BTreeMap<usize, u32>)>,
    /// Spin-loop iterations dropped because they jump back (not cut: the
    /// iteration that leaves the loop stands for them).
    pub dropped_iterations: usize,
    /// With [`super::Limits::prefix_races`] (and not exploring endings):
    /// the paths the unrolling bound cut, each as the prefix it ran before
    /// the statement that would exceed the bound ([`Ending::Cut`]), with
    /// its registers there. Dat3M's unrolled program ends a thread at its
    /// bound event, so these are the thread's executions that stop at the
    /// bound. Kept apart from `paths`: no final state, condition or
    /// execution count sees them. At most `max_paths` of them (past it the
    /// rest are not kept: fewer races may be found, none is invented).
    pub cut_prefixes: Vec<Path>,
}

/// A loop that paths run as an await (see [`spin_loops`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpinLoop {
    /// The label statement the back jump targets.
    pub header: usize,
    /// The jump back (a `goto`, or a branch whose taken side is the head).
    pub back: usize,
}

/// The side-effect-free loops of thread `t` that can run as awaits.
///
/// A backward jump at statement `back` to the label at `header` makes a
/// loop `header..=back` that qualifies when:
///
/// 1. its body is straight-line: between the two, only loads (plain or
///    atomic), memory barriers (`membar`: a fence writes nothing, and
///    dropping one only removes happens-before edges), local arithmetic,
///    labels no jump targets, and branches forward out of the loop
///    (targets after `back`) — no store, read-modify-write, control barrier
///    (dropping one would change which invocations meet at a barrier
///    instance) or availability / visibility operation;
/// 2. no register is read in the body before the body writes it and is
///    also written in the body: every iteration then computes the same
///    function of the values it reads (Dat3M's "side-effect free" check);
/// 3. a register written after the first exit branch (so that an iteration
///    leaving there keeps a previous iteration's value) is not read outside
///    the loop and not shown in the final states (named by the condition,
///    or every register when there is no condition);
/// 4. no load of the body can be in a data race: every write to its
///    location in another thread is atomic, through the same reference and
///    mutually in scope with it (so both are mutually-ordered atomics /
///    inclusive-scope atomics), and every write to it in the same thread
///    uses the same reference (program order location-orders them).
///
/// With `listing` (the outcome listing; not the termination search, whose
/// stuck awaits assume loops of reads), two relaxations:
///
/// - condition 1 also admits atomic read-modify-writes that
///   [`rmw_may_be_dropped`] accepts: a compare-exchange lock loop, a
///   test-and-set or exchange loop. Such a loop is an await only on the
///   paths whose iteration that jumps back writes nothing or writes back
///   the value it read (checked per path: a failed compare-exchange, an
///   exchange of 1 that read 1); an iteration that changes memory and jumps
///   back is an ordinary iteration, counted by the unrolling bound;
/// - the body need not be straight-line: it may branch and jump forward
///   inside itself (an `if` in the body: the SPIR-V front end lowers a
///   selection, and an `OpPhi`, to such jumps and assignments), and it may
///   hold inner loops that qualify themselves (their back jump is the only
///   backward jump in the body besides `back`, and a label in the body is
///   the target of jumps from the body only). A test-and-test-and-set lock
///   is such a loop, whether written with an inner await (`do { while
///   (load(l) != 0); } while (exchange(l, 1) != 0)`) or as one loop with a
///   branch (`while (!(load(l) == 0 && exchange(l, 1) == 0));`, the shape
///   clspv emits). Conditions 2 and 3 are then read along the body's
///   paths: a register is read "before the body writes it" when some path
///   from the head reaches the read without writing it, and is "written
///   after an exit" when some exit (a jump out of the loop, or `back` not
///   taken) is reached on a path that has not written it (see
///   [`body_registers_ok`]). The inner loop's iterations that jump back are
///   dropped on their own (the inner loop is an await); an outer iteration
///   on a path that survives them holds one pass through the inner loop,
///   the one that leaves it, so the outer body's paths are those of the
///   body with the inner back jumps removed, an acyclic graph whose edges
///   all go forward.
///
/// Dropping an iteration that jumps back removes only reads, fences and
/// read-modify-writes that wrote nothing or wrote back what they read (the
/// inner loop's included: its dropped iterations were dropped already, its
/// leaving iteration is part of the outer one): no write that changes
/// memory, no register the rest of the path sees (2, 3: on every path
/// through the body), and no access that could race (4, and the
/// read-modify-writes' own condition). Every execution with dropped
/// iterations keeps its final state in the execution without them, whose
/// relations are restrictions of its own (fewer happens-before edges); see
/// `tests/differential.rs` and BENCHMARKS.md for what that assumes of the
/// model.
///
/// The termination search keeps the straight-line bodies: its stuck
/// awaits ([`Stuck::side_effect_free`]) stand for a loop whose last
/// iteration repeats forever, and `analysis::termination` asks whether
/// that iteration's reads can keep returning their values; an outer
/// iteration would carry the inner await's leaving iteration, whose
/// values leave the inner loop, into that question, which nothing there
/// has been checked against. Without read-modify-writes (also off there)
/// a test-and-test-and-set lock is no await anyway.
pub fn spin_loops(program: &Program, t: &Thread, listing: bool) -> Vec<SpinLoop> {
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
        let inside = |k: usize| header < k && k <= back;
        let inner = |k: usize, x: usize| {
            listing
                && out
                    .iter()
                    .any(|l| l.back == k && l.header == x && inside(x))
        };
        // 1. A body of loads and arithmetic; exits forward (with `listing`,
        // forward jumps inside the body and qualifying inner loops too).
        let shape_ok = (header + 1..back).all(|k| match &t.code[k] {
            Stmt::Label { .. } => jumps_to
                .get(&k)
                .is_none_or(|from| listing && from.iter().all(|&j| inside(j))),
            Stmt::Goto { .. } | Stmt::Branch { .. } => {
                let goto = matches!(t.code[k], Stmt::Goto { .. });
                match jump_target(&t.code[k]) {
                    Some(x) if x > back => listing || !goto,
                    Some(x) if x > k => listing,
                    Some(x) => inner(k, x),
                    None => false,
                }
            }
            Stmt::Assign { .. } => true,
            Stmt::Op(i) => match i.kind {
                OpKind::Load => load_cannot_race(program, t, i),
                OpKind::MemoryBarrier => true,
                OpKind::Rmw => listing && rmw_may_be_dropped(program, t, i),
                _ => false,
            },
        });
        // 2 and 3, along the body's paths.
        if shape_ok && body_registers_ok(t, header, back, &jump_target, shown.as_ref()) {
            out.push(SpinLoop { header, back });
        }
    }
    out.sort_by_key(|l| (l.back, l.header));
    out
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
fn body_registers_ok(
    t: &Thread,
    header: usize,
    back: usize,
    jump_target: &dyn Fn(&Stmt) -> Option<usize>,
    shown: Option<&HashSet<String>>,
) -> bool {
    // `before[k - header - 1]`: registers written on every path from the
    // head to statement k (None: no path reaches it yet).
    let n = back - header;
    let mut before: Vec<Option<HashSet<&str>>> = vec![None; n];
    before[0] = Some(HashSet::new());
    fn meet<'a>(slot: &mut Option<HashSet<&'a str>>, w: &HashSet<&'a str>) {
        match slot {
            Some(s) => s.retain(|r| w.contains(r)),
            None => *slot = Some(w.clone()),
        }
    }
    let mut written: HashSet<&str> = HashSet::new();
    let mut exposed: HashSet<&str> = HashSet::new();
    let mut at_exits: Option<HashSet<&str>> = None;
    for k in header + 1..=back {
        // An unreachable statement: read as if nothing were written.
        let mut w = before[k - header - 1].clone().unwrap_or_default();
        let (reads, write) = registers_of(&t.code[k]);
        exposed.extend(reads.into_iter().filter(|r| !w.contains(r)));
        if let Some(r) = write {
            written.insert(r);
            w.insert(r);
        }
        let target = jump_target(&t.code[k]);
        match target {
            Some(x) if x > back => meet(&mut at_exits, &w),
            Some(x) if x > k => meet(&mut before[x - header - 1], &w),
            _ => {}
        }
        let falls_through = !matches!(t.code[k], Stmt::Goto { .. });
        if k == back {
            if falls_through {
                meet(&mut at_exits, &w);
            }
        } else if falls_through {
            meet(&mut before[k - header], &w);
        }
    }
    // 2. Registers read before written are never written.
    if exposed.iter().any(|r| written.contains(r)) {
        return false;
    }
    // 3. Registers an exit leaves stale are dead after the loop.
    let at_exits = at_exits.unwrap_or_default();
    let read_outside = |r: &str| {
        t.code
            .iter()
            .enumerate()
            .filter(|(k, _)| *k <= header || *k > back)
            .any(|(_, s)| registers_of(s).0.contains(&r))
    };
    !written
        .iter()
        .filter(|r| !at_exits.contains(*r))
        .any(|r| read_outside(r) || shown.is_none_or(|s| s.contains(*r)))
}

/// The registers of `t` final states show, or `None` when they show all of
/// them (no condition).
fn shown_registers(program: &Program, t: &Thread) -> Option<HashSet<String>> {
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
fn registers_of(s: &Stmt) -> (Vec<&str>, Option<&str>) {
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
fn rmw_may_be_dropped(program: &Program, t: &Thread, rmw: &Instruction) -> bool {
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
fn load_cannot_race(program: &Program, t: &Thread, load: &Instruction) -> bool {
    let Some(loc) = program.location_of(load) else {
        return false;
    };
    no_race_with(program, t, load, loc, Instruction::is_write)
}

/// Whether every access of location `loc` that `which` selects is, in
/// another thread, a mutually-ordered atomic with the atomic `access` of
/// thread `t` (same reference, each in the other's scope instance), and in
/// `t` itself an access through the same reference.
fn no_race_with(
    program: &Program,
    t: &Thread,
    access: &Instruction,
    loc: usize,
    which: impl Fn(&Instruction) -> bool,
) -> bool {
    let me = program.threads.iter().position(|x| std::ptr::eq(x, t));
    program.threads.iter().enumerate().all(|(ti, other)| {
        other
            .instructions()
            .filter(|a| which(a) && program.location_of(a) == Some(loc))
            .all(|a| {
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
                    && super::base::thread_in_instance(program, ti, sx, me)
                    && super::base::thread_in_instance(program, me, sa, ti)
            })
    })
}

/// The locations whose reads in thread `t` can return only the thread's
/// latest earlier write there (the initial value when there is none), under
/// a model declaring `latest-own-write` ([`super::Orders::latest_own_write`],
/// with [`Limits::own_write_filter`]): no other thread has a write (a store
/// or read-modify-write) to the location, no thread deallocates it, its
/// initial value is defined, and every access of `t` to it goes through one
/// reference.
///
/// Why, in the Vulkan appendix's words. Let `R` be such a read, `W*` the
/// latest write to the location program-ordered before it. "Operation A
/// happens-before operation B if and only if any of the following is true:
/// A is program-ordered before B, ..." and "X is location-ordered before Y
/// for a location L in M if and only if any of the following is true: AX ==
/// AY and RX == RY and X→Y": `t`'s accesses of the location are
/// location-ordered in program order. "From-reads is a relation between
/// operations, where the first operation is a read, the second operation is
/// a write, and the first operation reads a value written earlier than the
/// second operation in the second operation's scoped modification order or
/// location order (or the first operation reads from the initial value, and
/// the second operation is any write to the same locations)", and "the
/// implementation must guarantee that no cycles exist in the union of the
/// following relations: location-ordered, scoped modification order (over
/// all atomic writes), reads-from, from-reads". Every write `R` could read
/// is `t`'s own (no other thread writes the location), or the initial value:
///
/// - a write program-ordered after `R`: it is location-ordered after `R`
///   and `R` reads from it, a cycle;
/// - a write program-ordered before `W*`: it is location-ordered before
///   `W*`, so `R` from-reads `W*`, which is location-ordered before `R`, a
///   cycle;
/// - the initial value while `W*` exists: `R` from-reads `W*`, the same
///   cycle.
///
/// So `R` reads `W*` (its value), or the initial value when there is no
/// `W*`. Dat3M's from-reads (`vulkan-dat3m`) keeps the second case, the
/// write read being location-ordered before `R`. The AsciiDoc rendering's
/// from-reads, without "or location order" (`vulkan-fr-asmo`), has none of
/// the second and third cycles for plain writes (reading one's own
/// overwritten plain store is allowed there): that model withdraws the
/// declaration. A location whose initial value is undefined is left out
/// (its initial value is a domain of its own, `engine::undefined`).
///
/// Two refinements: `classes` (a mask of storage classes, from the
/// model's declaration) leaves out a location with an access in another
/// class, and a location two accesses of one C expression reach in either
/// order (unsequenced operands, [`may_be_unsequenced`]) is left out: the
/// later one in program order need not come after the other (the OpenCL
/// models declare the filter for global and local objects, where their
/// sequenced-before is happens-before; opencl-rules.cat argues the same
/// three cycles there).
///
/// Every execution the filter drops closes one of those cycles, so the
/// consistent executions, and every answer drawn from them, are those of
/// the reference enumeration (`tests/differential_own_writes.rs`); what
/// changes is that paths reading a stale value of their own location (and
/// looping on it until the unrolling bound cuts them) are never walked.
pub fn own_locations(program: &Program, t: &Thread, classes: u64) -> HashSet<usize> {
    let me = program.threads.iter().position(|x| std::ptr::eq(x, t));
    let mut refs: HashMap<usize, Option<usize>> = HashMap::new();
    let mut mixed: HashSet<usize> = HashSet::new();
    let accesses: Vec<&crate::ir::Instruction> = t.instructions().collect();
    for (k, i) in accesses.iter().enumerate() {
        let Some(l) = program.location_of(i) else {
            continue;
        };
        // A storage class the model's declaration leaves out.
        let class = i.storage_class.map_or(0, |c| c.0);
        if class >= 64 || classes & (1 << class) == 0 {
            mixed.insert(l);
        }
        // Two accesses of one C expression whose order is unsequenced
        // (C11 6.5p2-3: OpenCL's `sb = po \ unseq`): the later one in
        // program order need not come after the other.
        if accesses[k + 1..].iter().any(|j| {
            program.location_of(j) == Some(l)
                && (i.is_write() || j.is_write())
                && may_be_unsequenced(i, j)
        }) {
            mixed.insert(l);
        }
        match refs.get(&l) {
            None => {
                refs.insert(l, i.reference);
            }
            Some(r) if *r != i.reference => {
                mixed.insert(l);
            }
            Some(_) => {}
        }
    }
    for (k, other) in program.threads.iter().enumerate() {
        for i in other.instructions() {
            let Some(l) = program.location_of(i) else {
                continue;
            };
            if matches!(i.kind, OpKind::Deallocate) || (Some(k) != me && i.is_write()) {
                mixed.insert(l);
            }
        }
    }
    refs.into_keys()
        .filter(|l| !mixed.contains(l) && !program.is_undefined(*l))
        .collect()
}

/// Per thread, the locations whose reads the latest-own-write filter
/// gives their thread's latest earlier write ([`own_locations`]): empty
/// sets when the filter is off ([`Limits::own_write_filter`]), the model
/// does not declare it, or endings are explored.
pub fn own_sets(program: &Program, limits: &Limits) -> Vec<HashSet<usize>> {
    program
        .threads
        .iter()
        .map(|t| {
            if limits.own_write_filter && limits.orders.latest_own_write != 0 && !limits.endings {
                own_locations(program, t, limits.orders.latest_own_write)
            } else {
                HashSet::new()
            }
        })
        .collect()
}

/// Whether two instructions of one thread can be operands of one C binary
/// expression, evaluated in either order (their operand positions first
/// differ inside the same expression): engine::base's `unseq`, for any of
/// their runs.
pub(crate) fn may_be_unsequenced(a: &crate::ir::Instruction, b: &crate::ir::Instruction) -> bool {
    a.operand_of
        .iter()
        .zip(&b.operand_of)
        .find(|(p, q)| p != q)
        .is_some_and(|(p, q)| p.0 == q.0)
}

/// The value a read of the own location `loc` ([`own_locations`]) returns
/// on the path `s`, with its provenance: the path's latest write to `loc`,
/// or the initial value; `None` when that write's value is unknown (an
/// Alloy `.test` store naming no value).
fn latest_own_write(s: &State, program: &Program, t: &Thread, loc: usize) -> Option<(i64, Prov)> {
    match s
        .events
        .iter()
        .rev()
        .find(|e| e.writes && location(program, t, e.stmt) == Some(loc))
    {
        Some(e) => Some((e.write?, e.write_prov.clone().unwrap_or_default())),
        None => Some((program.initial_value(loc), Prov::new())),
    }
}

/// The term of the thread's latest write to `loc` on the path `s` when that
/// write is derived ([`Limits::symbolic_stores`]): its value is a function
/// of the path's symbolic reads, not yet known. `None` when the latest
/// write has a value, or there is none (the initial value).
fn latest_own_derived(s: &State, program: &Program, t: &Thread, loc: usize) -> Option<RegValue> {
    s.events
        .iter()
        .rev()
        .find(|e| e.writes && location(program, t, e.stmt) == Some(loc))?
        .derived
}

/// Keeps the values a path abandoned before its end (cut by the bound, or
/// an await iteration dropped) wrote: see [`ThreadPaths::cut_writes`].
fn keep_prefix_writes(s: &State, program: &Program, t: &Thread, out: &mut ThreadPaths) {
    let mut own: BTreeMap<usize, u32> = BTreeMap::new();
    for e in &s.events {
        let Some(l) = location(program, t, e.stmt).filter(|_| e.write.is_some()) else {
            continue;
        };
        *own.entry(l).or_default() += 1;
        let (Some(v), Some(prov)) = (e.write, &e.write_prov) else {
            continue;
        };
        match out.cut_writes.get_mut(&(l, v)) {
            // Several prefixes wrote it: the least provenance and the most
            // own writes (a looser bound only lets more values in).
            Some((p, o)) => {
                *p = prov_min(p, prov);
                for (&k, &n) in &own {
                    let m = o.entry(k).or_default();
                    *m = (*m).max(n);
                }
            }
            None => {
                out.cut_writes.insert((l, v), (prov.clone(), own.clone()));
            }
        }
    }
}

/// The componentwise minimum of two provenances (an empty vector is all
/// zeros, so the minimum with it is empty).
fn prov_min(a: &Prov, b: &Prov) -> Prov {
    a.iter().zip(b).map(|(x, y)| *x.min(y)).collect()
}

/// Per location: each value a write to it can have, with the provenance of
/// that value (see [`explore`]).
type Domains = Vec<BTreeMap<i64, Prov>>;

/// How many writes to each location the chain of writes that produced a
/// value needs, at least. Componentwise minima keep it an under-estimate, so
/// discarding values whose provenance exceeds what one execution can write is
/// sound. An empty vector is all zeros (a value no write produced: initial
/// values, constants), so that locations nothing writes cost one empty
/// vector each, not one vector per location each (20 000 declared but
/// unused locations would otherwise take gigabytes).
type Prov = Vec<u32>;

fn prov_max(a: &Prov, b: &Prov) -> Prov {
    if a.is_empty() {
        return b.clone();
    }
    if b.is_empty() {
        return a.clone();
    }
    a.iter().zip(b).map(|(x, y)| *x.max(y)).collect()
}

/// Explores every thread of `program`, with loops unrolled so that no
/// statement runs more than `unroll + 1` times on a path per entry into its
/// innermost loop ([`loop_ranges`]: a loop body runs at most `unroll + 1`
/// times each time the loop is entered), and, with `limits.spin_reduction`, the loops
/// [`spin_loops`] finds run as awaits.
///
/// Reads that must be concrete range over a value domain per location,
/// computed as a fixpoint: start from the initial values, add every value a
/// path writes, until nothing changes. Each value carries its provenance, the
/// number of writes to each location its derivation used; a value needing
/// more writes to some location than one execution can perform (the sum over
/// threads of the most writes a path makes there) is unreachable and dropped.
/// This keeps counters such as `rmw.add` chains to the values an execution
/// can really produce.
pub fn explore(program: &Program, limits: &Limits) -> Result<Vec<ThreadPaths>, ExecError> {
    explore_with_domains(program, limits).map(|(paths, _)| paths)
}

/// [`explore`], with the value domain of each location (its possible
/// values, ascending). With [`Limits::symbolic_stores`] (and not exploring
/// endings), the domains are computed with every read a store or local
/// arithmetic needs made concrete, as without it, and the paths are then
/// explored once more over those domains keeping such reads symbolic: a
/// read whose value only flows into stores, registers and local
/// arithmetic no longer splits its path per value (a counter's plain
/// `read; add; write` in each thread: one path instead of one per value),
/// and the candidate executions give its value (`engine::values`).
pub fn explore_with_domains(
    program: &Program,
    limits: &Limits,
) -> Result<(Vec<ThreadPaths>, Vec<Vec<i64>>), ExecError> {
    let spins: Vec<Vec<SpinLoop>> = program
        .threads
        .iter()
        .map(|t| {
            if limits.spin_reduction {
                spin_loops(program, t, !limits.endings)
            } else {
                Vec::new()
            }
        })
        .collect();
    let own = own_sets(program, limits);
    let nloc = program.locations.len();
    // Location domains start with the initial value; group-function
    // domains (after them) with 0, until the rounds compute their results.
    // An undefined initial value (`Program::undefined`) may be any value
    // of `undefined::Domain`.
    let undefined = super::undefined::Domain::for_search(program, limits);
    let mut domain: Domains = (0..nloc)
        .map(|l| match &undefined {
            Some(u) if program.is_undefined(l) => u.values().map(|v| (v, Prov::new())).collect(),
            _ => BTreeMap::from([(program.initial_value(l), Prov::new())]),
        })
        .chain((0..group_slots(program)).map(|_| BTreeMap::from([(0, Prov::new())])))
        .collect();
    // Values the final condition names are possible too: a value that only
    // a cycle of reads-from can justify (out of thin air) is never produced
    // by the fixpoint below, yet an axiomatic model may allow it. Seeding the
    // condition's constants lets the search decide whether it does.
    // (Group functions' domains are not seeded: their results are computed
    // exactly from contributions, which the seeded locations feed.)
    for (loc, v) in condition_seeds(program) {
        for (l, d) in domain.iter_mut().take(nloc).enumerate() {
            if loc.is_none_or(|x| x == l) {
                d.entry(v).or_default();
            }
        }
    }
    let budget = Budget::new(limits);
    // Every thread's paths over the current domains (`derive`: keeping
    // reads symbolic through stores, see above).
    let explore_all = |domain: &Domains, derive: bool| -> Result<Vec<ThreadPaths>, ExecError> {
        program
            .threads
            .iter()
            .zip(&spins)
            .zip(&own)
            .map(|((t, spins), own)| {
                explore_thread(program, t, limits, spins, own, domain, &budget, derive)
            })
            .collect()
    };
    for round in 0..MAX_ROUNDS {
        let all = explore_all(&domain, false)?;
        budget.check(&|| format!("computing the value domains (round {})", round + 1))?;
        // The most writes one execution makes to each location.
        let mut most = vec![0u32; nloc];
        let mut thread_mosts = Vec::with_capacity(all.len());
        for (t, tp) in program.threads.iter().zip(&all) {
            let mut thread_most = vec![0u32; nloc];
            for p in &tp.paths {
                let mut counts = vec![0u32; nloc];
                for e in &p.events {
                    if let Some(l) = location(program, t, e.stmt)
                        && e.write.is_some()
                    {
                        counts[l] += 1;
                    }
                }
                for l in 0..nloc {
                    thread_most[l] = thread_most[l].max(counts[l]);
                }
            }
            for l in 0..nloc {
                most[l] += thread_most[l];
            }
            thread_mosts.push(thread_most);
        }
        let mut changed = false;
        // `extra(x)`: writes to `x` allowed beyond `most`.
        let mut add = |l: usize, v: i64, prov: &Prov, extra: &dyn Fn(usize) -> u32| {
            if prov
                .iter()
                .zip(&most)
                .enumerate()
                .any(|(x, (c, m))| *c > m + extra(x))
            {
                return;
            }
            match domain[l].get_mut(&v) {
                None => {
                    domain[l].insert(v, prov.clone());
                    changed = true;
                }
                Some(old) => {
                    let merged = prov_min(old, prov);
                    if merged != *old {
                        *old = merged;
                        changed = true;
                    }
                }
            }
        };
        for ((t, tp), thread_most) in program.threads.iter().zip(&all).zip(&thread_mosts) {
            for p in &tp.paths {
                for e in &p.events {
                    if let (Some(v), Some(l), Some(prov)) =
                        (e.write, location(program, t, e.stmt), &e.write_prov)
                    {
                        add(l, v, prov, &|_| 0);
                    }
                }
            }
            // A value a path writes before the bound cuts it: the path
            // may read it back later and leave its loop within the bound
            // (a thread exchanging 1 into a word until it reads 1 reads its
            // own first write), which no complete path shows until the
            // value is in the domain.
            // Its bound: the other threads' most writes, and this
            // thread's own writes on the prefix where they exceed its
            // complete paths' (a thread whose paths are all cut so far
            // would otherwise count for nothing).
            for (&(l, v), (prov, own)) in &tp.cut_writes {
                let extra = |x: usize| own.get(&x).map_or(0, |&n| n.saturating_sub(thread_most[x]));
                add(l, v, prov, &extra);
            }
        }
        changed |= group_domains(program, &all, nloc, &mut domain)?;
        if !changed {
            let values: Vec<Vec<i64>> = domain
                .iter()
                .take(nloc)
                .map(|d| d.keys().copied().collect())
                .collect();
            if limits.symbolic_stores && !limits.endings {
                return Ok((explore_all(&domain, true)?, values));
            }
            return Ok((all, values));
        }
    }
    Err(ExecError::limit(
        LimitKind::ValueDomains,
        format!("the value domains did not settle in {MAX_ROUNDS} rounds: lower --unroll"),
    ))
}

/// The constants the condition (and filter) compares with: `(Some(l), v)` for
/// a location `l` compared with `v`, `(None, v)` for a register compared
/// with `v` (any location may have produced it).
fn condition_seeds(program: &Program) -> Vec<(Option<usize>, i64)> {
    use crate::ir::{CondExpr, Term};
    fn go(e: &CondExpr, out: &mut Vec<(Option<usize>, i64)>) {
        match e {
            CondExpr::True | CondExpr::False => {}
            CondExpr::Eq(a, b) | CondExpr::Ne(a, b) => match (a, b) {
                (Term::Loc(l), Term::Const(v)) | (Term::Const(v), Term::Loc(l)) => {
                    out.push((Some(*l), *v))
                }
                (Term::Reg { .. }, Term::Const(v)) | (Term::Const(v), Term::Reg { .. }) => {
                    out.push((None, *v))
                }
                _ => {}
            },
            // An ordering comparison seeds the constant itself (`<=`,
            // `>=`) or its neighbour on the side that holds (`<`, `>`):
            // the nearest value satisfying it, as `==` seeds its constant.
            CondExpr::Cmp(o, a, b) => {
                use crate::ir::Cmp;
                let (term, c, o) = match (a, b) {
                    (t, Term::Const(c)) => (t, *c, *o),
                    (Term::Const(c), t) => (
                        t,
                        *c,
                        match o {
                            Cmp::Lt => Cmp::Gt,
                            Cmp::Le => Cmp::Ge,
                            Cmp::Gt => Cmp::Lt,
                            Cmp::Ge => Cmp::Le,
                            other => *other,
                        },
                    ),
                    _ => return,
                };
                let v = match o {
                    Cmp::Lt => c.saturating_sub(1),
                    Cmp::Gt => c.saturating_add(1),
                    _ => c,
                };
                match term {
                    Term::Loc(l) => out.push((Some(*l), v)),
                    Term::Reg { .. } => out.push((None, v)),
                    _ => {}
                }
            }
            CondExpr::Not(e) => go(e, out),
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                go(a, out);
                go(b, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Some(c) = &program.condition {
        go(&c.expr, &mut out);
        if let Some(f) = &c.filter {
            go(f, &mut out);
        }
    }
    out
}

/// Rounds of the value-domain fixpoint before giving up.
const MAX_ROUNDS: usize = 64;

fn location(program: &Program, t: &Thread, stmt: usize) -> Option<usize> {
    match &t.code[stmt] {
        Stmt::Op(i) => program.location_of(i),
        _ => None,
    }
}

/// The state of one path being explored.
#[derive(Clone)]
struct State {
    pc: usize,
    regs: HashMap<String, RegValue>,
    events: Vec<PathEvent>,
    runs: Vec<usize>,
    /// The statement run last (`usize::MAX` before the first): whether
    /// the path arrives at a loop's head from outside the loop.
    last: usize,
    /// The value the read at `pc` must return (set when a read-modify-write split).
    forced: Option<i64>,
    /// Provenance of the concrete register values that came from reads.
    prov: HashMap<String, Prov>,
    /// The awaits under way, innermost last (an await inside the body of
    /// another, [`spin_loops`]): the spin loop, its first event, its
    /// instance.
    awaiting: Vec<(SpinLoop, usize, usize)>,
    /// The awaits passed.
    awaits: Vec<Await>,
    /// Label statements run, with the number of events before each and
    /// the registers then (to find a loop's iterations and whether they can
    /// repeat; kept only when exploring endings).
    arrivals: Vec<(usize, usize, HashMap<String, RegValue>)>,
    /// The expressions [`RegValue::Expr`] names (see [`Path::exprs`]).
    exprs: Vec<ValueExpr>,
    /// Whether local arithmetic and stores keep symbolic reads symbolic
    /// ([`Limits::symbolic_stores`]; never while the value domains are
    /// computed).
    derive: bool,
    /// Whether a read of an own location whose latest own write is derived
    /// takes that write's term ([`Limits::own_forwarding`], with `derive`).
    forward: bool,
    /// The reads that took their latest own write's term (event index,
    /// term): each is made concrete when its term is ([`fix_read`]).
    forwarded: Vec<(usize, RegValue)>,
}

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
fn loop_ranges(t: &Thread, labels: &HashMap<&str, usize>) -> HashMap<usize, usize> {
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

fn label_map(t: &Thread) -> HashMap<&str, usize> {
    t.code
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Stmt::Label { name, .. } => Some((name.as_str(), i)),
            _ => None,
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn explore_thread(
    program: &Program,
    t: &Thread,
    limits: &Limits,
    spins: &[SpinLoop],
    own: &HashSet<usize>,
    domain: &Domains,
    budget: &Budget,
    derive: bool,
) -> Result<ThreadPaths, ExecError> {
    let (unroll, endings) = (limits.unroll, limits.endings);
    let (max_paths, max_memory) = (limits.max_paths, limits.max_memory);
    let labels = label_map(t);
    let loops = loop_ranges(t, &labels);
    // Looping alternatives of each await instance.
    let mut looping: HashMap<usize, Vec<Vec<ReadValue>>> = HashMap::new();
    let mut instances = 0usize;
    let start = State {
        pc: 0,
        regs: t
            .registers
            .iter()
            .map(|(r, v)| (r.clone(), RegValue::Const(*v)))
            .collect(),
        events: Vec::new(),
        runs: vec![0; t.code.len()],
        last: usize::MAX,
        forced: None,
        prov: HashMap::new(),
        awaiting: Vec::new(),
        awaits: Vec::new(),
        arrivals: Vec::new(),
        exprs: Vec::new(),
        derive,
        forward: derive && limits.own_forwarding,
        forwarded: Vec::new(),
    };
    let mut out = ThreadPaths::default();
    // Partial paths the unrolling bound stopped (their prefixes are stopped
    // paths when exploring endings).
    let mut stopped_at_bound: Vec<Vec<PathEvent>> = Vec::new();
    // Per await instance that dropped an iteration, the path stopped at
    // the await's head (kept when no path leaves that instance).
    let mut spinning: BTreeMap<usize, Path> = BTreeMap::new();
    let mut stack = vec![start];
    let walking = || format!("enumerating the paths of thread P{}", t.id);
    while let Some(mut s) = stack.pop() {
        loop {
            budget.step(&walking)?;
            enter_or_leave_awaits(&mut s, spins, &mut instances);
            if s.pc >= t.code.len() {
                out.paths.push(path_of(s, Ending::Finished));
                if out.paths.len() > max_paths {
                    return Err(ExecError::limit(
                        LimitKind::MaxPaths,
                        format!(
                            "thread P{} has more than {max_paths} paths (--max-paths): lower --unroll",
                            t.id
                        ),
                    ));
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
                break;
            }
            if let Some(&back) = loops.get(&s.pc)
                && !(s.pc..=back).contains(&s.last)
            {
                s.runs[s.pc..=back].fill(0);
            }
            s.last = s.pc;
            s.runs[s.pc] += 1;
            if s.runs[s.pc] > unroll + 1 {
                out.cut += 1;
                keep_prefix_writes(&s, program, t, &mut out);
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
                    if endings {
                        s.arrivals.push((pc, s.events.len(), s.regs.clone()));
                    }
                    s.pc += 1
                }
                Stmt::Goto { label, .. } => {
                    s.pc = target(&labels, label, t)?;
                    if after_jump(&mut s, pc, endings, &mut looping, &mut out) {
                        keep_prefix_writes(&s, program, t, &mut out);
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
                        s.regs
                            .insert(dest.clone(), RegValue::Expr(s.exprs.len() - 1));
                        s.prov.insert(dest.clone(), Prov::new());
                        s.pc += 1;
                        continue;
                    }
                    let Some((va, vb)) = concretize2(&mut s, &mut stack, a, b, program, t, domain)
                    else {
                        continue;
                    };
                    let prov = prov_max(&reg_prov(&s, a), &reg_prov(&s, b));
                    s.regs
                        .insert(dest.clone(), RegValue::Const(op.apply(va, vb)));
                    s.prov.insert(dest.clone(), prov);
                    s.pc += 1;
                }
                Stmt::Branch {
                    cmp, a, b, label, ..
                } => {
                    let Some((va, vb)) = concretize2(&mut s, &mut stack, a, b, program, t, domain)
                    else {
                        continue;
                    };
                    s.pc = if cmp.holds(va, vb) {
                        target(&labels, label, t)?
                    } else {
                        pc + 1
                    };
                    if after_jump(&mut s, pc, endings, &mut looping, &mut out) {
                        keep_prefix_writes(&s, program, t, &mut out);
                        note_spinning(&s, limits.prefix_races && !endings, &mut spinning);
                        break;
                    }
                }
                Stmt::Op(ins) => {
                    // A control barrier's id and quorum, made concrete
                    // first (a split re-runs the statement).
                    let mut values = BarrierValues::default();
                    if let OpKind::ControlBarrier { id, quorum, .. } = &ins.kind {
                        let mut concrete = |op: &Option<Operand>| match op {
                            Some(op) => {
                                value_of(&mut s, &mut stack, op, program, t, domain).map(Some)
                            }
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
                        let Some(v) = value_of(&mut s, &mut stack, &op, program, t, domain) else {
                            continue;
                        };
                        values.contribution = Some(v);
                        if let Some(id) = &g.local_id {
                            let Some(k) = value_of(&mut s, &mut stack, id, program, t, domain)
                            else {
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
                        let reached = s
                            .events
                            .iter()
                            .filter(|e| {
                                matches!(&t.code[e.stmt], Stmt::Op(i)
                                    if matches!(i.kind, OpKind::ControlBarrier { instance: k, .. } if k == instance))
                            })
                            .count();
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
                    } else if !step_op(&mut s, &mut stack, ins, (program, t, own), domain)? {
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

/// At the statement `s.pc` is about to run: the awaits whose loop it
/// leaves (a forward exit, or the back jump not taken; innermost first,
/// an exit may leave several) are passed, and arriving at the head of a
/// spin loop that is not under way starts an await (inside the ones under
/// way when it is an inner loop of theirs).
fn enter_or_leave_awaits(s: &mut State, spins: &[SpinLoop], instances: &mut usize) {
    while let Some(&(l, first, instance)) = s.awaiting.last()
        && !(l.header..=l.back).contains(&s.pc)
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

/// The path `s` has walked, ending as `ending`: its events, the awaits it
/// passed and its registers (sorted by name: the out-of-bounds markers are
/// found by bisection).
fn path_of(s: State, ending: Ending) -> Path {
    let mut registers: Vec<(String, RegValue)> = s.regs.into_iter().collect();
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
fn note_spinning(s: &State, on: bool, spinning: &mut BTreeMap<usize, Path>) {
    let Some(&(l, first, instance)) = s.awaiting.last().filter(|_| on) else {
        return;
    };
    spinning.entry(instance).or_insert_with(|| {
        // The expressions made before the loop (those after name reads
        // of the loop, which the prefix does not hold), and the registers
        // that name only what the prefix holds.
        let kept = s
            .exprs
            .iter()
            .position(|x| {
                [x.a, x.b]
                    .iter()
                    .any(|t| matches!(t, RegValue::Read(e) if *e >= first))
            })
            .unwrap_or(s.exprs.len());
        let holds = |v: &RegValue| match v {
            RegValue::Read(e) => *e < first,
            RegValue::Expr(k) => *k < kept,
            RegValue::Const(_) => true,
        };
        let mut registers: Vec<(String, RegValue)> = s
            .regs
            .iter()
            .filter(|(_, v)| holds(v))
            .map(|(r, v)| (r.clone(), *v))
            .collect();
        registers.sort_by(|a, b| a.0.cmp(&b.0));
        Path {
            events: s.events[..first].to_vec(),
            registers,
            awaits: s.awaits.clone(),
            ending: Ending::Cut {
                stmt: l.header,
                spinning: true,
            },
            exprs: s.exprs[..kept].to_vec(),
        }
    });
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
fn keep_spinning(spinning: BTreeMap<usize, Path>, max_paths: usize, out: &mut ThreadPaths) {
    for p in spinning.into_values() {
        if out.cut_prefixes.len() < max_paths {
            out.cut_prefixes.push(p);
        }
    }
}

/// Keeps the path `s` the unrolling bound just cut, before the statement
/// at `s.pc` that would exceed it, as a prefix ([`ThreadPaths::cut_prefixes`])
/// with its registers there.
fn keep_cut_prefix(s: State, out: &mut ThreadPaths) {
    let stmt = s.pc;
    out.cut_prefixes.push(path_of(
        s,
        Ending::Cut {
            stmt,
            spinning: false,
        },
    ));
}

/// A path ending in the await under way, whose iteration just jumped back:
/// that iteration alone repeats.
fn push_stuck_await(s: &State, out: &mut ThreadPaths) {
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

/// A path ending at the backward jump at `back` that `s` just took (to
/// `s.pc`): its iterations are the stretches of the path between its
/// arrivals at the loop's head. Each is a cycle of the control flow from
/// the head back to it, whatever statements it passes through (the cycle
/// of `CADP/2_threads_4_instructions/132_simple`'s P0 jumps back twice, to
/// two heads, and leaves the statement range of either loop), so any of
/// them may repeat when its values allow (`analysis::termination`).
fn push_stuck_loop(s: &State, back: usize, out: &mut ThreadPaths) {
    let header = s.pc;
    let starts: Vec<(usize, &HashMap<String, RegValue>)> = s
        .arrivals
        .iter()
        .filter(|(stmt, _, _)| *stmt == header)
        .map(|(_, e, regs)| (*e, regs))
        .collect();
    let end = s.events.len();
    let mut iterations = Vec::new();
    let mut registers = vec![known_registers(s, &s.regs)];
    let mut next = end;
    for &(start, regs) in starts.iter().rev() {
        iterations.push(start..next);
        registers.push(known_registers(s, regs));
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
fn known_registers(s: &State, regs: &HashMap<String, RegValue>) -> Vec<(String, RegValue)> {
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
fn add_stopped_prefixes(out: &mut ThreadPaths, stopped_at_bound: Vec<Vec<PathEvent>>) {
    type Key = (usize, Option<ReadValue>, Option<i64>, bool, BarrierValues);
    let key = |events: &[PathEvent]| -> Vec<Key> {
        events
            .iter()
            .map(|e| (e.stmt, e.read, e.write, e.writes, e.barrier))
            .collect()
    };
    let mut seen = HashSet::new();
    let mut stopped = Vec::new();
    let sources = out
        .paths
        .iter()
        .map(|p| p.events.as_slice())
        .chain(stopped_at_bound.iter().map(|e| e.as_slice()));
    for events in sources {
        for k in 0..=events.len() {
            if seen.insert(key(&events[..k])) {
                stopped.push(Path {
                    events: events[..k].to_vec(),
                    registers: Vec::new(),
                    awaits: Vec::new(),
                    ending: Ending::Stopped,
                    exprs: Vec::new(),
                });
            }
        }
    }
    out.paths.extend(stopped);
}

/// Whether the statement at `pc` just sent `s` back to the head of the
/// innermost await under way (an iteration to drop). An outer await's back
/// jump lies after the body of every loop inside it, so the inner awaits
/// were passed before it runs.
fn jumps_back(s: &State, pc: usize) -> bool {
    s.awaiting
        .last()
        .is_some_and(|(l, _, _)| pc == l.back && s.pc == l.header)
}

/// After the jump at `pc` (to `s.pc`): an await's iteration that jumps
/// back is dropped (true: the state ends), and, exploring endings, a path
/// ending stuck there is listed (a spin loop's, or any backward jump's).
fn after_jump(
    s: &mut State,
    pc: usize,
    endings: bool,
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
        push_stuck_loop(s, pc, out);
    }
    false
}

/// Whether the await's iteration under way wrote a value other than the one
/// it read (a read-modify-write that succeeded; [`rmw_may_be_dropped`]).
fn iteration_changes_memory(s: &State) -> bool {
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
fn drop_iteration(
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

fn target(labels: &HashMap<&str, usize>, label: &str, t: &Thread) -> Result<usize, ExecError> {
    labels
        .get(label)
        .copied()
        .ok_or_else(|| ExecError::new(format!("thread {}: label `{label}` is not defined", t.id)))
}

/// The work-items of the scope instance a group function of thread `t`
/// exchanges values with.
fn group_size(program: &Program, t: &Thread, ins: &Instruction) -> usize {
    let OpKind::ControlBarrier {
        execution_scope, ..
    } = ins.kind
    else {
        return 1;
    };
    let me = program
        .threads
        .iter()
        .position(|x| std::ptr::eq(x, t))
        .unwrap_or(0);
    (0..program.threads.len())
        .filter(|&u| super::base::thread_in_instance(program, u, execution_scope, me))
        .count()
}

/// The value domain a read or group function result ranges over: its
/// location's, or (a group function) the domain of its static instance,
/// after the locations'.
fn domain_slot(program: &Program, t: &Thread, stmt: usize) -> Option<usize> {
    match &t.code[stmt] {
        Stmt::Op(i) => match (&i.group, &i.kind) {
            (Some(_), OpKind::ControlBarrier { instance, .. }) => {
                Some(program.locations.len() + *instance as usize)
            }
            _ => program.location_of(i),
        },
        _ => None,
    }
}

/// The number of group-function domains: one per control barrier instance
/// number below the largest a group function has.
fn group_slots(program: &Program) -> usize {
    program
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter_map(|i| match (&i.group, &i.kind) {
            (Some(_), OpKind::ControlBarrier { instance, .. }) => Some(*instance as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Executes a group function: an event whose result, like a read's value,
/// stays symbolic until something needs it (then it ranges over the
/// instance's domain); the skeleton computes it exactly from the values
/// the work-items contribute and drops the combinations of paths whose
/// concrete results disagree (`super::barrier::group_results`).
fn step_group(s: &mut State, ins: &Instruction, values: BarrierValues) {
    let index = s.events.len();
    let prov = ins
        .operand
        .as_ref()
        .map(|op| reg_prov(s, op))
        .unwrap_or_default();
    if let Some(dest) = &ins.dest {
        s.regs.insert(dest.clone(), RegValue::Read(index));
        s.prov.insert(dest.clone(), Prov::new());
    }
    s.events.push(PathEvent {
        stmt: s.pc,
        read: Some(ReadValue::Symbolic),
        write: None,
        write_prov: Some(prov),
        writes: false,
        barrier: values,
        derived: None,
    });
}

/// Adds to the group-function domains (after the `nloc` location domains)
/// every result a group function can have, given the values each thread's
/// paths contribute to it: for a reduction or scan, the operation over any
/// subset of the threads, one value each (a superset of the results:
/// combinations of paths whose results disagree are dropped later); for a
/// broadcast any contributed value; for any/all 0 and 1. Returns whether a
/// domain grew.
fn group_domains(
    program: &Program,
    all: &[ThreadPaths],
    nloc: usize,
    domain: &mut Domains,
) -> Result<bool, ExecError> {
    use crate::ir::GroupOp;
    // instance -> (ops, per thread: value -> provenance)
    type Ops = Vec<(GroupOp, Option<u8>)>;
    let mut at: BTreeMap<usize, (Ops, BTreeMap<usize, ValueSet>)> = BTreeMap::new();
    for (ti, (t, tp)) in program.threads.iter().zip(all).enumerate() {
        for p in &tp.paths {
            for e in &p.events {
                let Stmt::Op(i) = &t.code[e.stmt] else {
                    continue;
                };
                let (Some(g), OpKind::ControlBarrier { instance, .. }, Some(v)) =
                    (&i.group, &i.kind, e.barrier.contribution)
                else {
                    continue;
                };
                let entry = at.entry(*instance as usize).or_default();
                if !entry.0.contains(&(g.op, g.width)) {
                    entry.0.push((g.op, g.width));
                }
                let prov = e.write_prov.clone().unwrap_or_default();
                merge_value(entry.1.entry(ti).or_default(), v, &prov);
            }
        }
    }
    let mut changed = false;
    for (k, (ops, per_thread)) in at {
        let mut results: BTreeMap<i64, Prov> = BTreeMap::new();
        for (op, width) in ops {
            match op {
                GroupOp::Any | GroupOp::All | GroupOp::Elect | GroupOp::AllEqual => {
                    merge_value(&mut results, 0, &Prov::new());
                    merge_value(&mut results, 1, &Prov::new());
                }
                GroupOp::Ballot(c) => {
                    // Each invocation's bit, set or not: every mask of
                    // the invocations of its 32-bit component.
                    let mut masks: BTreeMap<i64, Prov> = BTreeMap::from([(0, Prov::new())]);
                    for (&ti, vs) in &per_thread {
                        let bit = group_bit(program, ti, c);
                        if bit == 0 || !vs.keys().any(|&v| v != 0) {
                            continue;
                        }
                        let prov = vs.iter().filter(|(v, _)| **v != 0).map(|(_, p)| p);
                        let prov = prov.fold(None::<Prov>, |acc, p| {
                            Some(acc.map_or_else(|| p.clone(), |a| prov_min(&a, p)))
                        });
                        let prov = prov.unwrap_or_default();
                        let mut next = masks.clone();
                        for (m, pm) in &masks {
                            merge_value(
                                &mut next,
                                i64::from((*m as i32) | bit),
                                &prov_max(pm, &prov),
                            );
                        }
                        if next.len() > MAX_GROUP_VALUES {
                            return Err(ExecError::limit(
                                LimitKind::ValueDomains,
                                format!(
                                    "a ballot has more than {MAX_GROUP_VALUES} possible results: use a smaller subgroup"
                                ),
                            ));
                        }
                        masks = next;
                    }
                    for (v, p) in &masks {
                        merge_value(&mut results, *v, p);
                    }
                }
                GroupOp::Broadcast | GroupOp::BroadcastFirst | GroupOp::Lane(_) => {
                    for vs in per_thread.values() {
                        for (v, p) in vs {
                            merge_value(&mut results, *v, p);
                        }
                    }
                }
                GroupOp::Reduce(a)
                | GroupOp::ScanInclusive(a)
                | GroupOp::ScanExclusive(a)
                | GroupOp::Clustered(a, _) => {
                    let mut acc: BTreeMap<i64, Prov> =
                        BTreeMap::from([(a.identity_at(width), Prov::new())]);
                    for vs in per_thread.values() {
                        let mut next = acc.clone();
                        for (x, px) in &acc {
                            for (v, pv) in vs {
                                merge_value(
                                    &mut next,
                                    a.apply_at(*x, *v, width),
                                    &prov_max(px, pv),
                                );
                            }
                        }
                        if next.len() > MAX_GROUP_VALUES {
                            return Err(ExecError::limit(
                                LimitKind::ValueDomains,
                                format!(
                                    "a group function has more than {MAX_GROUP_VALUES} possible results: lower --unroll"
                                ),
                            ));
                        }
                        acc = next;
                    }
                    for (v, p) in &acc {
                        merge_value(&mut results, *v, p);
                    }
                }
            }
        }
        for (v, p) in &results {
            changed |= merge_value(&mut domain[nloc + k], *v, p);
        }
    }
    Ok(changed)
}

/// The bit thread `t` sets in component `c` of a ballot: `1 << k` for its
/// local id `32c + k` in its subgroup (0 when its id is in another
/// component).
fn group_bit(program: &Program, t: usize, c: u8) -> i32 {
    let me = (0..t)
        .filter(|&u| super::base::thread_in_instance(program, u, crate::ir::Scope::Subgroup, t))
        .count();
    match me.checked_sub(32 * usize::from(c)) {
        Some(k) if k < 32 => 1i32 << k,
        _ => 0,
    }
}

/// Values with their provenance (one location's or group function's domain).
type ValueSet = BTreeMap<i64, Prov>;

/// The most results one group function's domain may hold.
const MAX_GROUP_VALUES: usize = 4096;

/// Adds `v` with provenance `prov` to a domain (the componentwise minimum
/// with the provenance it has); returns whether the domain changed.
fn merge_value(d: &mut BTreeMap<i64, Prov>, v: i64, prov: &Prov) -> bool {
    match d.get_mut(&v) {
        None => {
            d.insert(v, prov.clone());
            true
        }
        Some(old) => {
            // (zip: the minimum with an empty, all-zero, vector is empty)
            let merged: Prov = old.iter().zip(prov).map(|(a, b)| *a.min(b)).collect();
            if merged != *old {
                *old = merged;
                true
            } else {
                false
            }
        }
    }
}

/// Executes one instruction; returns false when the state was split and the
/// instruction must run again (with the value now fixed).
fn step_op(
    s: &mut State,
    stack: &mut Vec<State>,
    ins: &Instruction,
    (program, t, own): (&Program, &Thread, &HashSet<usize>),
    domain: &Domains,
) -> Result<bool, ExecError> {
    let pc = s.pc;
    // A store of a value computed from symbolic reads keeps it symbolic
    // ([`Limits::symbolic_stores`]): the candidate executions give it.
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
        Some(op) => value_of(s, stack, op, program, t, domain).map(Some),
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
    // read takes its term instead ([`Limits::own_forwarding`]): the same
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
        } else if s.forward && !ins.is_write() {
            forwarded = latest_own_derived(s, program, t, loc).map(|term| known(s, term));
        }
    }
    if ins.is_write()
        && ins.is_read()
        && ins.write_value.is_none()
        && ins.rmw_op.uses_old()
        && read == Some(ReadValue::Symbolic)
        && let Some(loc) = program.location_of(ins)
    {
        // The value written depends on the value read: fix it now, one
        // alternative per value of the location.
        let values: Vec<i64> = domain[loc].keys().copied().collect();
        for &v in values.iter().skip(1) {
            let mut other = s.clone();
            other.runs[pc] -= 1;
            other.forced = Some(v);
            stack.push(other);
        }
        read = Some(ReadValue::Concrete(values[0]));
    }
    let loc = program.location_of(ins);
    let nloc = program.locations.len();
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
    let write_prov = match (write, loc) {
        (Some(_), Some(l)) => {
            let mut p =
                if ins.is_read() && ins.rmw_op.uses_old() && ins.rmw_op != RmwOp::CompareExchange {
                    prov_max(&read_prov, &operand_prov)
                } else {
                    operand_prov
                };
            if p.is_empty() {
                p = vec![0; nloc];
            }
            p[l] += 1;
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
            dest.clone(),
            match r {
                ReadValue::Concrete(v) => RegValue::Const(v),
                ReadValue::Symbolic => forwarded.unwrap_or(RegValue::Read(index)),
            },
        );
        s.prov.insert(dest.clone(), read_prov);
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
fn value_of(
    s: &mut State,
    stack: &mut Vec<State>,
    op: &Operand,
    program: &Program,
    t: &Thread,
    domain: &Domains,
) -> Option<i64> {
    match op {
        Operand::Const(v) => Some(*v),
        Operand::Reg(_) => {
            let index = match term_of(s, op) {
                RegValue::Const(v) => return Some(v),
                RegValue::Read(index) => index,
                // An expression: its first symbolic read made concrete
                // (again until none is left).
                RegValue::Expr(k) => first_symbolic(s, k)?,
            };
            let stmt = s.events[index].stmt;
            let Some(loc) = domain_slot(program, t, stmt) else {
                return Some(0); // unreachable: reads always access a location
            };
            s.runs[s.pc] -= 1; // the statement runs again in each alternative
            let mut values = domain[loc].iter();
            let (v0, p0) = values.next().expect("domains hold the initial value");
            for (v, p) in values {
                let mut other = s.clone();
                fix_read(&mut other, index, *v, p);
                stack.push(other);
            }
            fix_read(s, index, *v0, p0);
            None
        }
    }
}

/// What an operand stands for on the path `s`: a constant (also a read
/// made concrete since, and an expression all of whose reads are), or a
/// symbolic read or expression.
fn term_of(s: &State, op: &Operand) -> RegValue {
    match op {
        Operand::Const(v) => RegValue::Const(*v),
        Operand::Reg(r) => known(s, s.regs.get(r).copied().unwrap_or(RegValue::Const(0))),
    }
}

/// `v` as far as the path `s` knows it (see [`term_of`]).
fn known(s: &State, v: RegValue) -> RegValue {
    let read = |e: usize| match s.events[e].read {
        Some(ReadValue::Concrete(c)) => Some(c),
        _ => None,
    };
    match term_value(&expr_values(&s.exprs, &read), v, &read) {
        Some(c) => RegValue::Const(c),
        None => v,
    }
}

/// The value of each expression given the values `read` knows (`None`
/// where it depends on a read it does not know), in one pass: an
/// expression names only earlier ones.
pub fn expr_values(exprs: &[ValueExpr], read: &dyn Fn(usize) -> Option<i64>) -> Vec<Option<i64>> {
    let mut out: Vec<Option<i64>> = Vec::with_capacity(exprs.len());
    for x in exprs {
        let v = match (term_value(&out, x.a, read), term_value(&out, x.b, read)) {
            (Some(a), Some(b)) => Some(x.op.apply(a, b)),
            _ => None,
        };
        out.push(v);
    }
    out
}

/// The value of a term, given the expressions' values (`values`, from
/// [`expr_values`], possibly only those before the term) and the reads'.
pub fn term_value(
    values: &[Option<i64>],
    v: RegValue,
    read: &dyn Fn(usize) -> Option<i64>,
) -> Option<i64> {
    match v {
        RegValue::Const(c) => Some(c),
        RegValue::Read(e) => read(e),
        RegValue::Expr(k) => values.get(k).copied().flatten(),
    }
}

/// The first read (in event order) expression `k` depends on that the path
/// has not made concrete.
fn first_symbolic(s: &State, k: usize) -> Option<usize> {
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

/// Makes the symbolic read at `index` concrete everywhere it flowed.
fn fix_read(s: &mut State, index: usize, v: i64, prov: &Prov) {
    s.events[index].read = Some(ReadValue::Concrete(v));
    for (name, val) in s.regs.iter_mut() {
        if *val == RegValue::Read(index) {
            *val = RegValue::Const(v);
            s.prov.insert(name.clone(), prov.clone());
        }
    }
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
    let mut regs = std::mem::take(&mut s.regs);
    for val in regs.values_mut() {
        if let RegValue::Expr(_) = val
            && let Some(c) = konst(*val)
        {
            *val = RegValue::Const(c);
        }
    }
    let fixed: Vec<(usize, i64)> = s
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, konst(e.derived?)?)))
        .collect();
    s.regs = regs;
    // Reads that took a derived write's term ([`Limits::own_forwarding`]).
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
    for (i, c) in fixed {
        s.events[i].write = Some(c);
        s.events[i].derived = None;
    }
}

/// Provenance of an operand's value (constants and unread registers: none).
fn reg_prov(s: &State, op: &Operand) -> Prov {
    match op {
        Operand::Reg(r) => s.prov.get(r).cloned(),
        Operand::Const(_) => None,
    }
    .unwrap_or_default()
}

fn concretize2(
    s: &mut State,
    stack: &mut Vec<State>,
    a: &Operand,
    b: &Operand,
    program: &Program,
    t: &Thread,
    domain: &Domains,
) -> Option<(i64, i64)> {
    let va = value_of(s, stack, a, program, t, domain)?;
    let vb = value_of(s, stack, b, program, t, domain)?;
    Some((va, vb))
}

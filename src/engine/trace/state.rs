//! The state of one path while the executor walks it, and what the walk
//! reads off a statement.

use super::path::{Await, PathEvent, Prov, RegValue, ValueExpr};
use super::shared::CowVec;
pub(super) use super::shared::Regs;
use super::spin::SpinLoop;
use crate::ir::{Operand, Program, Stmt, Thread};

/// The most iterations one path may run, across its loops, without a
/// branch decided by a value from memory before the unrolling bound counts
/// them as it counts the others (`State::free_iterations`). Such a loop
/// (`for (k = 0; k < 4; k++)`, a loop over an invocation's cells) runs the
/// same number of times in every execution: cutting it at the bound would
/// only lose executions, never bound a spin. The cap bounds a loop that
/// never ends without reading memory (`while (true) {}`), which then meets
/// the bound as before.
pub const MAX_FREE_ITERATIONS: u32 = 64;

/// The most iterations one path may run, across its loops, past
/// [`MAX_FREE_ITERATIONS`] in loops no branch on a value from memory
/// decides and whose test compares a counter with a constant that each
/// of those iterations moves the counter towards (`for (i = 0u; i < 256u;
/// i++)`): such a loop ends after as many iterations as the counter's
/// distance from the bound, the same in every execution, so the bound on
/// it is the program's size, not a guard against a loop that never ends.
pub const MAX_TRIP_ITERATIONS: u32 = 1024;

/// The location statement `stmt` of `t` accesses, if it is a memory access.
pub(super) fn location(program: &Program, t: &Thread, stmt: usize) -> Option<usize> {
    match &t.code[stmt] {
        Stmt::Op(i) => program.location_of(i),
        _ => None,
    }
}

/// The state of one path being explored.
#[derive(Clone)]
pub(super) struct State {
    pub(super) pc: usize,
    /// Whether no execution takes this path (an increment left no value it
    /// can read, `counters`): it is dropped.
    pub(super) dead: bool,
    pub(super) regs: Regs<RegValue>,
    pub(super) events: Vec<PathEvent>,
    pub(super) runs: CowVec<usize>,
    /// The statement run last (`usize::MAX` before the first): whether
    /// the path arrives at a loop's head from outside the loop.
    pub(super) last: usize,
    /// The value the read at `pc` must return (set when a read-modify-write split).
    pub(super) forced: Option<i64>,
    /// Provenance of the concrete register values that came from reads.
    pub(super) prov: Regs<Prov>,
    /// The awaits under way, innermost last (an await inside the body of
    /// another, [`spin_loops`](super::spin::spin_loops)): the spin loop, its first event, its
    /// instance.
    pub(super) awaiting: Vec<(SpinLoop, usize, usize)>,
    /// The awaits passed.
    pub(super) awaits: Vec<Await>,
    /// Label statements run, with the number of events before each and
    /// the registers then (to find a loop's iterations and whether they can
    /// repeat; kept only when exploring endings).
    pub(super) arrivals: Vec<(usize, usize, Regs<RegValue>)>,
    /// The expressions [`RegValue::Expr`] names (see [`Path::exprs`](super::path::Path::exprs)).
    pub(super) exprs: Vec<ValueExpr>,
    /// The registers whose value comes from memory: the result of a read or
    /// a group function, or arithmetic on such a register.
    pub(super) from_memory: Regs<()>,
    /// The branches on a value from memory the path took whose sides have
    /// not met again yet: where they meet (`executor::post_dominators`),
    /// the branch's number on the path ([`State::opened`]) and its
    /// statement. An iteration jumping back with one opened during it went
    /// round again because of memory; where one closes, the registers its
    /// sides assign take the taint of memory.
    pub(super) control: Vec<(usize, u32, usize)>,
    /// Branches on a value from memory taken so far on the path.
    pub(super) opened: u32,
    /// Per loop head (statement index), `opened` when the path last
    /// arrived there.
    pub(super) head_marks: Vec<(usize, u32)>,
    /// Loop iterations the unrolling bound did not count: each jumped back
    /// to its head without a branch decided by memory since the last
    /// arrival there (at most [`MAX_FREE_ITERATIONS`]).
    pub(super) free_iterations: u32,
    /// Iterations of loops no memory decided, past
    /// [`MAX_FREE_ITERATIONS`], that moved the counter of their loop's test
    /// towards its constant bound (at most [`MAX_TRIP_ITERATIONS`];
    /// [`super::trip::counted_down`]).
    pub(super) trip_iterations: u32,
    /// Per loop head whose test compares a counter with a constant, the
    /// counter's distance from the bound at the last arrival and the
    /// loop's runs at the last counted one ([`super::trip`]).
    pub(super) trips: super::trip::Arrivals,
    /// Per loop head, the path as it was at its last arrival there: the
    /// number of events, the live registers' values
    /// (`executor::note_head`), and the earliest read made
    /// concrete since (`executor::fix_read`; an iteration that fixed an
    /// earlier read changed the path before it): to find an iteration that
    /// repeats the one before it (`executor::repeats`).
    pub(super) heads: Vec<(usize, usize, Vec<Option<RegValue>>, usize)>,
    /// Whether the path needs a group function's result no round of the
    /// value domains has computed yet ([`ThreadPaths::pending`](super::path::ThreadPaths::pending)).
    pub(super) pending: bool,
    /// Whether local arithmetic and stores keep symbolic reads symbolic
    /// ([`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores); never while the value domains are
    /// computed).
    pub(super) derive: bool,
    /// Whether a read of an own location whose latest own write is derived
    /// takes that write's term ([`Reduction::OwnForwarding`](crate::engine::Reduction::OwnForwarding), with `derive`).
    pub(super) forward: bool,
    /// Whether the walk computes the value domains with symbolic reads
    /// ([`PathPlan::symbolic_domains`](super::path::PathPlan::symbolic_domains)):
    /// registers and derived writes made concrete take the provenance of
    /// the reads they name, and a read of an own location whose latest
    /// write is derived makes that write concrete first, as the walk with
    /// every read concrete has it.
    pub(super) domains: bool,
    /// With `domains`, per expression (in [`State::exprs`]' order): the
    /// provenance of its constant part, and, for the term a read of an own
    /// location takes from its latest write, that write's location (the
    /// read's value counts the write, as the own write's value does on a
    /// path with every read concrete: `domains::Reads::derived_values`).
    pub(super) expr_provs: Vec<(Prov, Option<usize>)>,
    /// The reads that took their latest own write's term (event index,
    /// term): each is made concrete when its term is (`executor::fix_read`).
    pub(super) forwarded: Vec<(usize, RegValue)>,
    /// Whether the path lists its registers when it ends
    /// ([`Path::registers`](super::path::Path::registers)): not in the
    /// rounds that compute the value domains when a later walk lists the
    /// paths the search combines, since nothing reads them there.
    pub(super) registers: bool,
}

/// Provenance of an operand's value (constants and unread registers: none).
pub(super) fn reg_prov(s: &State, op: &Operand) -> Prov {
    match op {
        Operand::Reg(r) => s.prov.get(r).cloned(),
        Operand::Const(_) => None,
    }
    .unwrap_or_default()
}

//! The statements of one thread that some execution can run, found by
//! running the thread's code with the values every execution agrees on:
//! its initial registers (a shader invocation's ids), constants, the
//! arithmetic on them, and reads of locations no instruction writes (a
//! uniform: its initial value in every execution). Everything else a
//! read, a read-modify-write or a group function gives is unknown, and a
//! branch on an unknown value goes both ways.
//!
//! Why it covers every execution: a register the run knows holds that
//! value on every path of every execution reaching the same statement
//! by the same branches, so a branch the run decides goes the same way
//! there; a branch it cannot decide is followed both ways. So every
//! statement an execution runs, the run reaches.
//!
//! The run keeps, per label, up to [`EXACT_STATES`] distinct register
//! states it arrived with (a loop over a constant count stays exact for
//! that many iterations); past that, the states arriving there are
//! joined into one (a register two states disagree on is unknown), which
//! only grows towards unknown, so the run ends. Past [`MAX_WORK`], or
//! once the request's time or memory is spent (the caller's `stop`, read
//! every [`STOP_EVERY`] statements: the states kept per label are copies
//! of the register file, so a thread of thousands of registers holds
//! hundreds of mebibytes well within its work), the run gives up
//! (`None`): the caller then takes every statement as reachable.
//!
//! The register file is that of the registers that decide a branch
//! ([`Kept::Branching`], [`branch_registers`]): those a branch compares
//! and, through assignments, those their values are computed from. No
//! other register changes which statements run: an address is the
//! instruction's reference, fixed in the code (a runtime index is a chain
//! of branches on the index, whose registers are kept), a read's value
//! comes from memory, and an assignment to a register outside the set
//! feeds only registers outside it. So two states that agree on the kept
//! registers run the same statements from a label: while no label joins
//! its states and neither run passes its budget, the run over the kept
//! registers reaches exactly what the run over every register
//! ([`Kept::Every`], the oracle the differential tests compare it with)
//! reaches, and each is sound where it joins or gives up. With
//! fewer distinct states per label and smaller states, the run over the
//! kept registers joins later and passes its work budget later. At each
//! label the run also forgets the kept registers no statement from there
//! reads before assigning them (dead there: `live_at_labels`), so states
//! that differ only in values that decide nothing any more are one. On the
//! real shaders' threads (thousands of registers, few of them deciding a
//! branch) the states shrink by orders of magnitude.
//!
//! A state is held in chunks of [`CHUNK`] registers shared between the
//! states a branch makes ([`Regs`]): a branch the run cannot decide
//! copies the chunk pointers, not the register file, and a chunk is
//! copied when one of the states writes it. The values read and written
//! are those of a flat register file.

use super::spin::label_map;
use crate::ir::{Operand, Program, Stmt, Thread};
// FxHash, not SipHash: every statement run looks its registers up by name
// and every label hashes a whole register state.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A register state as a label keeps it: the values of the registers
/// live there (all of them without liveness), `None` where unknown.
type Key = Vec<Option<i64>>;

/// Registers per chunk of a [`Regs`]: one word of a liveness bit set.
const CHUNK: usize = 64;

/// [`CHUNK`] registers: which are known (a bit each), and their values.
#[derive(Clone, Debug)]
struct Chunk {
    known: u64,
    values: [i64; CHUNK],
}

/// A register state: each register's value, unknown where not known, in
/// chunks that clones share until one of them writes (copy on write).
#[derive(Clone, Debug)]
struct Regs {
    len: usize,
    chunks: Vec<std::rc::Rc<Chunk>>,
}

impl Regs {
    /// `len` registers holding `init` (the bits past `len` in the last
    /// chunk stay clear: unknown in every state, so no join sees them).
    fn new(len: usize, init: Option<i64>) -> Regs {
        let chunk = |known: u64| {
            std::rc::Rc::new(Chunk {
                known: if init.is_some() { known } else { 0 },
                values: [init.unwrap_or(0); CHUNK],
            })
        };
        let full = chunk(!0);
        let mut chunks = vec![full; len / CHUNK];
        if !len.is_multiple_of(CHUNK) {
            chunks.push(chunk((1 << (len % CHUNK)) - 1));
        }
        Regs { len, chunks }
    }

    fn get(&self, n: usize) -> Option<i64> {
        let c = &self.chunks[n / CHUNK];
        let k = n % CHUNK;
        (c.known & (1 << k) != 0).then_some(c.values[k])
    }

    /// Sets register `n`; its chunk is copied first when another state
    /// shares it and the value changes.
    fn set(&mut self, n: usize, v: Option<i64>) {
        if self.get(n) == v {
            return;
        }
        let c = std::rc::Rc::make_mut(&mut self.chunks[n / CHUNK]);
        let k = n % CHUNK;
        match v {
            Some(v) => {
                c.known |= 1 << k;
                c.values[k] = v;
            }
            None => c.known &= !(1 << k),
        }
    }

    /// Forgets (makes unknown) every register whose bit in `live` is
    /// clear, and returns the values of those whose bit is set, in order:
    /// a word per chunk and a step per live register, not per register.
    fn keep_live(&mut self, live: &[u64]) -> Key {
        let mut key = Vec::new();
        for (c, w) in self.chunks.iter_mut().zip(live) {
            if c.known & !w != 0 {
                std::rc::Rc::make_mut(c).known &= w;
            }
            let mut bits = *w;
            while bits != 0 {
                let k = bits.trailing_zeros() as usize;
                key.push((c.known & (1 << k) != 0).then_some(c.values[k]));
                bits &= bits - 1;
            }
        }
        key
    }

    /// Every register's value, in order.
    fn to_key(&self) -> Key {
        (0..self.len).map(|n| self.get(n)).collect()
    }

    /// Joins `other` into `self`: a register the two disagree on becomes
    /// unknown. Whether `self` changed.
    fn join(&mut self, other: &Regs) -> bool {
        let mut changed = false;
        for (mine, theirs) in self.chunks.iter_mut().zip(&other.chunks) {
            if std::rc::Rc::ptr_eq(mine, theirs) {
                continue;
            }
            // Known here and unknown there, or known in both with
            // different values.
            let mut differ = mine.known & !theirs.known;
            let mut both = mine.known & theirs.known;
            while both != 0 {
                let k = both.trailing_zeros() as usize;
                if mine.values[k] != theirs.values[k] {
                    differ |= 1 << k;
                }
                both &= both - 1;
            }
            if differ != 0 {
                std::rc::Rc::make_mut(mine).known &= !differ;
                changed = true;
            }
        }
        changed
    }
}

/// Distinct register states kept per label before they are joined.
const EXACT_STATES: usize = 64;

/// Work before the run gives up: a statement run counts 1, a register
/// state compared or stored at a label counts its registers (so a thread
/// with thousands of registers gives up after fewer labels, and the run
/// costs at most some tens of milliseconds per thread).
const MAX_WORK: usize = 20_000_000;

/// Statements run between two readings of the caller's `stop`.
const STOP_EVERY: usize = 1024;

/// Which registers the run tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kept {
    /// Every register the thread names.
    Every,
    /// Only the registers that decide a branch ([`branch_registers`]).
    Branching,
}

/// The registers of `t` whose values can decide a branch: those a
/// branch compares, and every register an assignment to one of them
/// reads, to a fixpoint.
pub(super) fn branch_registers(t: &Thread) -> HashSet<&str> {
    let mut sources: HashMap<&str, Vec<&str>> = HashMap::default();
    let mut todo: Vec<&str> = Vec::new();
    for s in &t.code {
        match s {
            Stmt::Assign { dest, a, b, .. } => sources
                .entry(dest.as_str())
                .or_default()
                .extend(regs([a, b])),
            Stmt::Branch { a, b, .. } => todo.extend(regs([a, b])),
            _ => {}
        }
    }
    let mut kept: HashSet<&str> = HashSet::default();
    while let Some(r) = todo.pop() {
        if kept.insert(r) {
            todo.extend(sources.get(r).into_iter().flatten().copied());
        }
    }
    kept
}

/// Per statement of `t`, the registers live before it: those (by the
/// numbers `number` gives; `None`: not tracked) some statement from it
/// reads before assigning them, as bit sets of `n` bits. A read counts
/// where the run reads: a branch's operands, an assignment's to a tracked
/// register; a tracked register is assigned by an assignment to it or a
/// read into it (`executor::live_before`, every read counted always).
fn live_at_labels(
    t: &Thread,
    labels: &super::spin::Labels,
    number: &dyn Fn(&str) -> Option<usize>,
    n: usize,
) -> Vec<Vec<u64>> {
    let tracked = |os: [&Operand; 2]| regs(os).filter_map(number).collect::<Vec<_>>();
    let mut def = Vec::with_capacity(t.code.len());
    let mut uses = Vec::with_capacity(t.code.len());
    for st in &t.code {
        let (d, u) = match st {
            Stmt::Assign { dest, a, b, .. } => match number(dest) {
                Some(d) => (Some(d), tracked([a, b])),
                None => (None, Vec::new()),
            },
            Stmt::Branch { a, b, .. } => (None, tracked([a, b])),
            Stmt::Op(i) => (i.dest.as_deref().and_then(number), Vec::new()),
            _ => (None, Vec::new()),
        };
        def.push(d);
        uses.push(u);
    }
    let feeds = vec![Vec::new(); t.code.len()];
    let succs = super::spin::successor_table(t, labels);
    super::executor::live_before(t, &succs, &def, &uses, &feeds, &vec![0; n.div_ceil(64)])
}

/// The registers among two operands.
fn regs(os: [&Operand; 2]) -> impl Iterator<Item = &str> {
    os.into_iter().filter_map(|o| match o {
        Operand::Reg(r) => Some(r.as_str()),
        Operand::Const(_) => None,
    })
}

/// Per statement of `t`, whether some execution can run it (see the module
/// doc), tracking the registers `kept` says; `written[l]`: whether some
/// instruction writes location `l`. `None` when the run passed its budget
/// or `stop` said to stop.
pub(super) fn reachable<'t>(
    program: &Program,
    t: &'t Thread,
    written: &[bool],
    kept: Kept,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<bool>> {
    if stop() {
        return None;
    }
    let labels = label_map(t);
    let branching = (kept == Kept::Branching).then(|| branch_registers(t));
    // Registers by number: the initial ones, then every name the code
    // assigns or reads (of those kept). A register left out is written
    // nowhere in the state, and no kept register or branch reads it.
    let mut number: HashMap<&'t str, usize> = HashMap::default();
    let mut add = |r: &'t str| {
        if branching.as_ref().is_none_or(|b| b.contains(r)) {
            let n = number.len();
            number.entry(r).or_insert(n);
        }
    };
    for (r, _) in &t.registers {
        add(r.as_str());
    }
    for s in &t.code {
        match s {
            Stmt::Assign { dest, a, b, .. } => {
                add(dest);
                for o in [a, b] {
                    if let Operand::Reg(r) = o {
                        add(r);
                    }
                }
            }
            Stmt::Branch { a, b, .. } => {
                for o in [a, b] {
                    if let Operand::Reg(r) = o {
                        add(r);
                    }
                }
            }
            Stmt::Op(i) => {
                if let Some(d) = &i.dest {
                    add(d);
                }
            }
            _ => {}
        }
    }
    // A register the code never assigns reads as 0, as on a path
    // (`executor::term_of`).
    let mut start = Regs::new(number.len(), Some(0));
    for (r, v) in &t.registers {
        if let Some(&n) = number.get(r.as_str()) {
            start.set(n, Some(*v));
        }
    }
    // A register left out is never read here: a branch and an assignment
    // to a kept register read only kept ones.
    let value = |regs: &Regs, o: &Operand| match o {
        Operand::Const(v) => Some(*v),
        Operand::Reg(r) => number.get(r.as_str()).and_then(|&n| regs.get(n)),
    };
    // Per label, the kept registers live there: a register no statement
    // from the label reads before assigning it holds a value that decides
    // nothing, so it is forgotten there, and states that differ only in
    // such registers are one.
    let live = branching
        .is_some()
        .then(|| live_at_labels(t, &labels, &|r: &str| number.get(r).copied(), number.len()));
    let mut reached = vec![false; t.code.len()];
    // Per label: the exact states seen, and the joined one past them.
    let mut seen: HashMap<usize, (HashSet<Key>, Option<Regs>)> = HashMap::default();
    let mut work: Vec<(usize, Regs)> = vec![(0, start)];
    let mut spent = 0usize;
    let mut steps = 0usize;
    while let Some((mut pc, mut regs)) = work.pop() {
        while pc < t.code.len() {
            spent += 1;
            steps += 1;
            if spent > MAX_WORK || (steps.is_multiple_of(STOP_EVERY) && stop()) {
                return None;
            }
            if let Stmt::Label { .. } = &t.code[pc] {
                // The state as the label keeps it: with liveness, the
                // values of the registers live there (the others
                // forgotten); else the whole register file.
                let key: Key = match &live {
                    Some(live) => regs.keep_live(&live[pc]),
                    None => regs.to_key(),
                };
                spent += key.len();
                let (exact, joined) = seen.entry(pc).or_default();
                if exact.contains(&key) {
                    break;
                }
                if exact.len() < EXACT_STATES {
                    exact.insert(key);
                } else {
                    match joined {
                        None => *joined = Some(regs.clone()),
                        Some(j) => {
                            if !j.join(&regs) {
                                break;
                            }
                            regs = j.clone();
                        }
                    }
                }
            }
            reached[pc] = true;
            match &t.code[pc] {
                Stmt::Label { .. } => pc += 1,
                Stmt::Goto { label, .. } => pc = *labels.get(label.as_str())?,
                Stmt::Assign { dest, op, a, b, .. } => {
                    if let Some(&n) = number.get(dest.as_str()) {
                        let v = match (value(&regs, a), value(&regs, b)) {
                            (Some(x), Some(y)) => Some(op.apply(x, y)),
                            _ => None,
                        };
                        regs.set(n, v);
                    }
                    pc += 1;
                }
                Stmt::Branch {
                    cmp, a, b, label, ..
                } => {
                    let to = *labels.get(label.as_str())?;
                    match (value(&regs, a), value(&regs, b)) {
                        (Some(x), Some(y)) => pc = if cmp.holds(x, y) { to } else { pc + 1 },
                        _ => {
                            work.push((to, regs.clone()));
                            pc += 1;
                        }
                    }
                }
                Stmt::Op(i) => {
                    if let Some(&n) = i.dest.as_ref().and_then(|d| number.get(d.as_str())) {
                        // A plain read of a location no instruction
                        // writes, with a defined initial value: that
                        // value in every execution. Anything else: unknown.
                        let known = match program.location_of(i) {
                            Some(l)
                                if i.is_read()
                                    && !i.is_write()
                                    && !i.atomic
                                    && i.group.is_none()
                                    && i.read_value.is_none()
                                    && !written.get(l).copied().unwrap_or(true)
                                    && !program.is_undefined(l) =>
                            {
                                Some(program.initial_value(l))
                            }
                            _ => None,
                        };
                        regs.set(n, known);
                    }
                    pc += 1;
                }
            }
        }
    }
    Some(reached)
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, Regs};

    /// A flat register file beside the chunked one: the same writes,
    /// clones, joins and forgetting give the same values, and a write
    /// to a clone leaves the state it was cloned from as it was.
    #[test]
    fn chunked_registers_read_as_a_flat_register_file() {
        let len = 3 * CHUNK + 5;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut states: Vec<(Regs, Vec<Option<i64>>)> =
            vec![(Regs::new(len, Some(0)), vec![Some(0); len])];
        for _ in 0..4000 {
            let k = (next() as usize) % states.len();
            match next() % 5 {
                0 | 1 => {
                    let n = (next() as usize) % len;
                    let v = match next() % 3 {
                        0 => None,
                        x => Some(x as i64 + (next() % 4) as i64),
                    };
                    let (regs, flat) = &mut states[k];
                    regs.set(n, v);
                    flat[n] = v;
                }
                2 if states.len() < 16 => {
                    let copy = states[k].clone();
                    states.push(copy);
                }
                3 => {
                    // A liveness word names registers below `len` only
                    // (`live_at_labels` numbers the registers tracked).
                    let mut live: Vec<u64> =
                        (0..len.div_ceil(64)).map(|_| next() | next()).collect();
                    if let Some(last) = live.last_mut() {
                        *last &= (1 << (len % 64)) - 1;
                    }
                    let (regs, flat) = &mut states[k];
                    let key = regs.keep_live(&live);
                    let mut want = Vec::new();
                    for (n, r) in flat.iter_mut().enumerate() {
                        if live[n / 64] & (1 << (n % 64)) == 0 {
                            *r = None;
                        } else {
                            want.push(*r);
                        }
                    }
                    assert_eq!(key, want);
                }
                _ => {
                    let j = (next() as usize) % states.len();
                    let (other, other_flat) = states[j].clone();
                    let (regs, flat) = &mut states[k];
                    let changed = regs.join(&other);
                    let mut want = false;
                    for (x, y) in flat.iter_mut().zip(&other_flat) {
                        if x.is_some() && *x != *y {
                            *x = None;
                            want = true;
                        }
                    }
                    assert_eq!(changed, want);
                }
            }
            for (regs, flat) in &states {
                assert_eq!(&regs.to_key(), flat);
            }
        }
    }
}

//! Skeletons known by what their candidate search reads, kept compactly
//! ([`SearchKeys`]): a search that meets the same skeleton again (the
//! termination search's deepening over the unrolling bound lists the paths
//! no bound cut again at every deeper bound) can tell it was searched.
//!
//! A skeleton's key is everything of it its candidate search reads, apart
//! from what is a function of that and the program (the static
//! environment, and the facts the orders are listed from: functions of the
//! program, the events with the read values they had when listed, the
//! barriers and the initial values, `base::static_env_bounded`,
//! `Skeleton::build_unlisted`). Most of a key's bytes are each thread's
//! events, final registers and ending (a stuck loop's registers at every
//! iteration), then the reads' reads-from choices and the barrier
//! instances, and those repeat across skeletons: a thread has a few dozen
//! paths and a skeleton is one path per thread; reads of one location
//! often have the same choices. So the key holds, per thread, the number
//! of that thread's part in a table of the distinct parts met (compared in
//! full when entered), per read the number of its choices, per barrier
//! instance its number, the numbers of the initial values and value
//! domains, each in a table of its own, and the rest (the reads, the read
//! values as listed, ...) itself. Two skeletons have equal keys exactly
//! when every field compared is equal: a table gives equal values one
//! number and unequal values different numbers.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use super::Skeleton;
use crate::engine::barrier::BarrierGroup;
use crate::engine::trace::{Ending, EventInfo, RegValue, ValueExpr};
use crate::relation::Relation;

/// How many bytes (counted as the private `Bytes` trait counts them) [`SearchKeys`] keeps
/// at most in its keys and tables: past it, no skeleton is entered, and a
/// skeleton met again is searched again (the answer is the same, only the
/// work is repeated), so the keys stay bounded whatever the program.
pub const MAX_SEARCH_KEY_BYTES: usize = 64 << 20;

/// The bytes a value holds, its own and on the heap, roughly (string and
/// vector contents by length, not capacity).
trait Bytes {
    fn bytes(&self) -> usize;
}

fn vec_bytes<T>(v: &[T]) -> usize {
    std::mem::size_of_val(v)
}

fn registers_bytes(regs: &[(String, RegValue)]) -> usize {
    vec_bytes(regs) + regs.iter().map(|(r, _)| r.len()).sum::<usize>()
}

impl Bytes for ThreadPart {
    fn bytes(&self) -> usize {
        let ending = match &self.ending {
            Ending::Stuck(st) => {
                vec_bytes(&st.iterations)
                    + st.registers
                        .iter()
                        .map(|r| std::mem::size_of_val(r) + registers_bytes(r))
                        .sum::<usize>()
            }
            _ => 0,
        };
        std::mem::size_of::<Self>()
            + vec_bytes(&self.events)
            + registers_bytes(&self.registers)
            + ending
    }
}

impl Bytes for Vec<i64> {
    fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + vec_bytes(self)
    }
}

impl Bytes for Vec<Vec<i64>> {
    fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.iter().map(Bytes::bytes).sum::<usize>()
    }
}

impl Bytes for Vec<Option<usize>> {
    fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + vec_bytes(self)
    }
}

impl Bytes for BarrierGroup {
    fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + vec_bytes(&self.members)
            + vec_bytes(&self.passed)
            + vec_bytes(&self.waiting)
    }
}

impl Bytes for SearchKey {
    fn bytes(&self) -> usize {
        let r = &self.rest;
        std::mem::size_of::<Self>()
            + vec_bytes(&self.threads)
            + vec_bytes(&r.listed_read_values)
            + vec_bytes(&r.sequenced_writes)
            + vec_bytes(&r.reads)
            + vec_bytes(&r.rf_choices)
            + r.ilo_choices.len() * std::mem::size_of::<Relation>()
            + vec_bytes(&r.barriers)
            + vec_bytes(&r.exprs)
            + r.derivation.as_ref().map_or(0, |d| vec_bytes(d))
            + vec_bytes(&r.observation)
    }
}

/// One thread's part of a skeleton: its events, final registers and how
/// its path ends. Event indices in it (reads named by registers, a stuck
/// loop's iterations) are the skeleton's, so equal parts of one thread in
/// two skeletons start at the same event when the threads before are
/// equal too, which the key asks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ThreadPart {
    events: Vec<EventInfo>,
    registers: Vec<(String, RegValue)>,
    ending: Ending,
}

/// [`ThreadPart`] borrowed from a skeleton (looked up without a copy).
#[derive(Hash)]
struct ThreadView<'a> {
    events: &'a [EventInfo],
    registers: &'a [(String, RegValue)],
    ending: &'a Ending,
}

impl ThreadView<'_> {
    fn is(&self, p: &ThreadPart) -> bool {
        self.events == p.events.as_slice()
            && self.registers == p.registers.as_slice()
            && *self.ending == p.ending
    }

    fn owned(&self) -> ThreadPart {
        ThreadPart {
            events: self.events.to_vec(),
            registers: self.registers.to_vec(),
            ending: self.ending.clone(),
        }
    }
}

/// What of a skeleton its search reads beyond the threads' parts, the
/// initial values and the value domains.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rest {
    /// The read values the events had before the group functions' results
    /// were put in (the listing of the orders reads those).
    listed_read_values: Vec<Option<i64>>,
    sequenced_writes: Vec<(usize, usize)>,
    reads: Vec<usize>,
    /// Each read's reads-from choices, numbered.
    rf_choices: Vec<u32>,
    ilo_choices: Vec<Relation>,
    /// Each barrier instance, numbered.
    barriers: Vec<u32>,
    exprs: Vec<ValueExpr>,
    /// The events' locations of the skeleton's `Derivation`, if it has one.
    derivation: Option<Vec<Option<usize>>>,
    observation: Vec<Option<usize>>,
    flags: [bool; 3],
    /// How many events, and how many threads' registers (the threads'
    /// parts cover them).
    counts: [usize; 2],
}

impl Hash for Rest {
    /// Every field but the expressions' operations (numeric operations
    /// have no hash; equal values still hash equal).
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.listed_read_values.hash(h);
        self.sequenced_writes.hash(h);
        self.reads.hash(h);
        self.rf_choices.hash(h);
        self.ilo_choices.hash(h);
        self.barriers.hash(h);
        for x in &self.exprs {
            (x.a, x.b).hash(h);
        }
        self.derivation.hash(h);
        self.observation.hash(h);
        self.flags.hash(h);
        self.counts.hash(h);
    }
}

/// A skeleton's key ([`SearchKeys::find`], [`SearchKeys::enter`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SearchKey {
    /// Each thread's part, numbered in [`SearchKeys`]' table.
    threads: Box<[u32]>,
    /// The initial values, numbered.
    initial: u32,
    /// The value domains of the skeleton's `Derivation`, numbered.
    domains: Option<u32>,
    rest: Rest,
}

#[cfg(test)]
impl SearchKey {
    /// Whether some thread has the same part in both keys.
    pub(crate) fn shares_a_thread_with(&self, other: &SearchKey) -> bool {
        self.threads.iter().zip(&other.threads).any(|(a, b)| a == b)
    }
}

/// Distinct values, each numbered once, found by a hash of their content
/// and compared in full.
struct Table<T> {
    values: Vec<T>,
    by_hash: HashMap<u64, Vec<u32>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            values: Vec::new(),
            by_hash: HashMap::new(),
        }
    }
}

/// A hash with the standard library's fixed keys (the same in every walk
/// of a process).
fn hash_of(v: &impl Hash) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

impl<T> Table<T> {
    /// The number of the value hashed `h` that `is` accepts, if entered.
    fn find(&self, h: u64, is: impl Fn(&T) -> bool) -> Option<u32> {
        self.by_hash
            .get(&h)?
            .iter()
            .copied()
            .find(|&i| is(&self.values[i as usize]))
    }

    /// [`Table::find`], entering `make()` when it is not there (its bytes
    /// added to `bytes`).
    fn enter(
        &mut self,
        h: u64,
        is: impl Fn(&T) -> bool,
        make: impl FnOnce() -> T,
        bytes: &mut usize,
    ) -> u32
    where
        T: Bytes,
    {
        if let Some(i) = self.find(h, is) {
            return i;
        }
        let i = u32::try_from(self.values.len()).expect("fewer than 2^32 distinct parts");
        let v = make();
        *bytes += v.bytes();
        self.values.push(v);
        self.by_hash.entry(h).or_default().push(i);
        i
    }
}

/// The keys of the skeletons a search has searched, and the tables their
/// parts are numbered in.
#[derive(Default)]
pub struct SearchKeys {
    threads: Table<ThreadPart>,
    initial: Table<Vec<i64>>,
    domains: Table<Vec<Vec<i64>>>,
    /// A read's reads-from choices (many reads of many skeletons have the
    /// same).
    choices: Table<Vec<Option<usize>>>,
    barriers: Table<BarrierGroup>,
    searched: HashSet<SearchKey>,
    /// The bytes of the tables and keys ([`Bytes`]).
    bytes: usize,
}

/// What of a skeleton its key reads that [`Skeleton::list_orders`] drops
/// ([`SearchKeys::listed`]).
pub struct Listed {
    read_value: Vec<Option<i64>>,
    sequenced_writes: Vec<(usize, usize)>,
}

/// A part of a skeleton numbered in one of [`SearchKeys`]' tables.
enum PartRef<'a> {
    Thread(ThreadView<'a>),
    Initial(&'a Vec<i64>),
    Domains(&'a Vec<Vec<i64>>),
    Choices(&'a Vec<Option<usize>>),
    Barrier(&'a BarrierGroup),
}

impl SearchKeys {
    /// What `sk`'s key needs that listing its orders drops, taken before
    /// [`Skeleton::list_orders`]; `None` after it, when a symmetry or
    /// rotation reduction stands the skeleton for others (what it stands
    /// for depends on the walk), or when its events are not thread by
    /// thread (a thread's part is a run of them): such a skeleton has no
    /// key, and is searched.
    pub fn listed(sk: &Skeleton) -> Option<Listed> {
        if sk.symmetry.is_some() || sk.rotation.is_some() {
            return None;
        }
        let (facts, _) = &**sk.unlisted.as_ref()?;
        if !sk.events.is_sorted_by_key(|e| e.thread) {
            return None;
        }
        Some(Listed {
            read_value: facts.read_value.clone(),
            sequenced_writes: facts.sequenced_writes.clone(),
        })
    }

    /// The key of `sk` if every part of it is in the tables already
    /// (`None`: some part is not, so no key kept is its).
    pub fn find(&self, sk: &Skeleton, listed: &Listed) -> Option<SearchKey> {
        key_with(sk, listed, |part| match part {
            PartRef::Thread(v) => self.threads.find(hash_of(&v), |p| v.is(p)),
            PartRef::Initial(v) => self.initial.find(hash_of(v), |p| p == v),
            PartRef::Domains(v) => self.domains.find(hash_of(v), |p| p == v),
            PartRef::Choices(v) => self.choices.find(hash_of(v), |p| p == v),
            PartRef::Barrier(v) => self.barriers.find(hash_of(v), |p| p == v),
        })
    }

    /// The key of `sk`, its parts entered in the tables; `None` once the
    /// keys hold [`MAX_SEARCH_KEY_BYTES`].
    pub fn enter(&mut self, sk: &Skeleton, listed: &Listed) -> Option<SearchKey> {
        if self.bytes >= MAX_SEARCH_KEY_BYTES {
            return None;
        }
        let b = &mut self.bytes;
        key_with(sk, listed, |part| {
            Some(match part {
                PartRef::Thread(v) => self
                    .threads
                    .enter(hash_of(&v), |p| v.is(p), || v.owned(), b),
                PartRef::Initial(v) => self.initial.enter(hash_of(v), |p| p == v, || v.clone(), b),
                PartRef::Domains(v) => self.domains.enter(hash_of(v), |p| p == v, || v.clone(), b),
                PartRef::Choices(v) => self.choices.enter(hash_of(v), |p| p == v, || v.clone(), b),
                PartRef::Barrier(v) => self.barriers.enter(hash_of(v), |p| p == v, || v.clone(), b),
            })
        })
    }

    /// Whether `key` was entered by [`SearchKeys::insert`].
    pub fn holds(&self, key: &SearchKey) -> bool {
        self.searched.contains(key)
    }

    /// Keeps `key`, unless the keys hold [`MAX_SEARCH_KEY_BYTES`] already.
    pub fn insert(&mut self, key: SearchKey) {
        if self.bytes < MAX_SEARCH_KEY_BYTES {
            self.bytes += key.bytes();
            self.searched.insert(key);
        }
    }

    /// How many keys are kept.
    pub fn len(&self) -> usize {
        self.searched.len()
    }

    /// The bytes the keys and their tables hold, roughly.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether no key is kept.
    pub fn is_empty(&self) -> bool {
        self.searched.is_empty()
    }
}

/// The key of `sk` with its parts numbered by `number` (`None` if it
/// numbers some part `None`).
fn key_with(
    sk: &Skeleton,
    listed: &Listed,
    mut number: impl FnMut(PartRef<'_>) -> Option<u32>,
) -> Option<SearchKey> {
    let threads = (0..sk.endings.len())
        .map(|t| number(PartRef::Thread(thread_view(sk, t))))
        .collect::<Option<_>>()?;
    let initial = number(PartRef::Initial(&sk.initial))?;
    let domains = match &sk.derivation {
        Some(d) => Some(number(PartRef::Domains(&d.domains))?),
        None => None,
    };
    let rf_choices = sk
        .rf_choices
        .iter()
        .map(|c| number(PartRef::Choices(c)))
        .collect::<Option<_>>()?;
    let barriers = sk
        .barriers
        .iter()
        .map(|g| number(PartRef::Barrier(g)))
        .collect::<Option<_>>()?;
    Some(SearchKey {
        threads,
        initial,
        domains,
        rest: Rest {
            listed_read_values: listed.read_value.clone(),
            sequenced_writes: listed.sequenced_writes.clone(),
            reads: sk.reads.clone(),
            rf_choices,
            ilo_choices: sk.ilo_choices.clone(),
            barriers,
            exprs: sk.exprs.clone(),
            derivation: sk.derivation.as_ref().map(|d| d.locations.clone()),
            observation: sk.observation.clone(),
            flags: [sk.rmw_filter, sk.order_pruning, sk.groups_agree],
            counts: [sk.events.len(), sk.registers.len()],
        },
    })
}

/// Thread `t`'s part of `sk` (its events are a run of `sk.events`, which
/// are thread by thread).
fn thread_view(sk: &Skeleton, t: usize) -> ThreadView<'_> {
    let start = sk.events.partition_point(|e| e.thread < t);
    let end = sk.events.partition_point(|e| e.thread <= t);
    ThreadView {
        events: &sk.events[start..end],
        registers: sk.registers.get(t).map_or(&[], Vec::as_slice),
        ending: &sk.endings[t],
    }
}

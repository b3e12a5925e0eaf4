//! Final states, compact (listings of hundreds of thousands of states).
//!
//! A listing shows the same names in every final state of a test: the
//! shown registers (`P0:r1`, in `super::litmus::shown_terms`'s order)
//! then the shown memory. Those names are made once per test, a
//! [`Schema`], and a state is the vector of its values under it.
//!
//! The states being recorded are held once, as rows of one block of bytes
//! (`Rows`: each value in as few bytes as the values so far need, in an
//! encoding that compares as the values do), indexed by a hash table of
//! row numbers (`StateCounts`): recording a state allocates nothing but
//! its row, and a racing pair names the states it races in by their row
//! numbers. The sorted listing is one such block too, which every
//! [`FinalState`] of it shares.
//!
//! [`FinalState`] orders, compares and hashes as the list of its
//! `(name, value)` pairs would (the representation the listing had
//! before), so that states of two tests (two schemas with the same names,
//! or different ones: `refines`, `device`, `compare`) still compare by
//! what they show.

use crate::engine::LimitKind;
use crate::ir::ValueKind;
use hashbrown::HashTable;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The names a test's final states give their values, in order: the
/// shown registers (`P1:r0`) then the shown memory (`x`), made once per
/// test and shared by its states; with what each value's bits mean to a
/// reader where the front end knows it (a shader's `uint` or `float`
/// cells, [`ValueKind`]; a signed integer otherwise).
#[derive(Clone, Debug, Default)]
pub struct Schema {
    names: Arc<[String]>,
    kinds: Option<Arc<[Option<ValueKind>]>>,
}

impl Schema {
    /// The schema with `kinds[i]` the kind of the `i`-th name's value
    /// (`None`: a signed integer). No kind at all keeps the schema plain.
    pub fn with_kinds(mut self, kinds: Vec<Option<ValueKind>>) -> Schema {
        self.kinds = kinds.iter().any(Option::is_some).then(|| kinds.into());
        self
    }

    /// What the `i`-th value's bits mean (`None`: a signed integer).
    pub fn kind(&self, i: usize) -> Option<ValueKind> {
        self.kinds
            .as_ref()
            .and_then(|k| k.get(i).copied().flatten())
    }

    /// Whether two schemas are one (shared) schema.
    fn same(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.names, &other.names)
    }
}

impl std::ops::Deref for Schema {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.names
    }
}

impl From<Vec<String>> for Schema {
    fn from(names: Vec<String>) -> Schema {
        Schema {
            names: names.into(),
            kinds: None,
        }
    }
}

impl FromIterator<String> for Schema {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Schema {
        names.into_iter().collect::<Vec<_>>().into()
    }
}

/// The fewest bytes (1, 2, 4 or 8) that hold `v` as a two's complement
/// integer.
fn width_of(v: i64) -> usize {
    if i8::try_from(v).is_ok() {
        1
    } else if i16::try_from(v).is_ok() {
        2
    } else if i32::try_from(v).is_ok() {
        4
    } else {
        8
    }
}

/// Appends `v` in `width` bytes: its two's complement with the sign bit
/// flipped, big-endian (so that the bytes of two values compare, as
/// unsigned strings, as the values do). `v` fits in `width` bytes.
fn encode(v: i64, width: usize, out: &mut Vec<u8>) {
    let flipped = (v as u64) ^ (1u64 << (8 * width - 1));
    out.extend_from_slice(&flipped.to_be_bytes()[8 - width..]);
}

/// The value [`encode`] wrote as `bytes` (its width their length).
fn decode(bytes: &[u8]) -> i64 {
    let bits = 8 * bytes.len() as u32;
    let x = bytes.iter().fold(0u64, |x, &b| x << 8 | u64::from(b)) ^ (1u64 << (bits - 1));
    // Sign-extended from `bits` bits.
    ((x << (64 - bits)) as i64) >> (64 - bits)
}

/// The hash of an encoded row: FxHash of its bytes, then mixed (the
/// finaliser of MurmurHash3's 64-bit hash). FxHash alone is a multiply:
/// its low bits depend only on the row's low bytes, and the index
/// (hashbrown) picks buckets by the low bits, so rows differing only in a
/// later value (`(k % 100, k / 100)`) would share a few hundred buckets and
/// every insert probe a long chain.
fn hash_row(bytes: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(bytes);
    let mut x = h.finish();
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Rows of `arity` integers each, in one block of bytes: each value in
/// `width` bytes (1, 2, 4 or 8: the fewest that hold every value pushed so
/// far; a wider value re-encodes the block, at most three times), as
/// [`encode`] writes it. Two rows of one block compare as byte strings
/// exactly as their value vectors compare (lexicographically, signed).
#[derive(Clone, Debug)]
pub(crate) struct Rows {
    arity: usize,
    width: usize,
    count: usize,
    bytes: Vec<u8>,
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::new(0)
    }
}

impl Rows {
    fn new(arity: usize) -> Rows {
        Rows {
            arity,
            width: 1,
            count: 0,
            bytes: Vec::new(),
        }
    }

    /// The bytes of a row.
    fn stride(&self) -> usize {
        self.arity * self.width
    }

    /// The encoded row `i`.
    fn row(&self, i: usize) -> &[u8] {
        let s = self.stride();
        &self.bytes[i * s..(i + 1) * s]
    }

    /// The values of row `i`.
    fn values(&self, i: usize) -> impl ExactSizeIterator<Item = i64> + Clone + '_ {
        self.row(i).chunks_exact(self.width).map(decode)
    }

    /// Re-encodes the block `width` bytes a value (wider than now).
    fn widen(&mut self, width: usize) {
        let mut bytes = Vec::with_capacity(self.count * self.arity * width);
        for chunk in self.bytes.chunks_exact(self.width) {
            encode(decode(chunk), width, &mut bytes);
        }
        self.bytes = bytes;
        self.width = width;
    }

    /// Appends a row of values (re-encoding the block if one is wider).
    fn push(&mut self, values: &[i64]) -> u32 {
        if self.count == 0 {
            self.arity = values.len();
        }
        let width = values.iter().map(|&v| width_of(v)).max().unwrap_or(1);
        if width > self.width {
            self.widen(width);
        }
        for &v in values {
            encode(v, self.width, &mut self.bytes);
        }
        self.count += 1;
        (self.count - 1) as u32
    }

    /// Appends an encoded row (of this block's width).
    fn push_encoded(&mut self, row: &[u8]) -> u32 {
        debug_assert_eq!(row.len(), self.stride());
        self.bytes.extend_from_slice(row);
        self.count += 1;
        (self.count - 1) as u32
    }
}

/// A final state: a value per name of its [`Schema`].
#[derive(Clone)]
pub struct FinalState {
    names: Schema,
    /// The block holding its values (shared by every state of a listing,
    /// and by the racing pairs naming them), and its row there.
    rows: Arc<Rows>,
    row: u32,
}

impl FinalState {
    /// The state giving `values[i]` to `names[i]`. The two have the same
    /// length (names past the values' end are not shown: the shorter
    /// decides).
    pub fn new(names: Schema, values: Box<[i64]>) -> FinalState {
        debug_assert_eq!(names.len(), values.len());
        let mut rows = Rows::new(values.len());
        rows.push(&values);
        FinalState {
            names,
            rows: Arc::new(rows),
            row: 0,
        }
    }

    /// A state from its `(name, value)` pairs, in order (its own schema).
    pub fn from_pairs<S: Into<String>>(pairs: impl IntoIterator<Item = (S, i64)>) -> FinalState {
        let (names, values): (Vec<String>, Vec<i64>) =
            pairs.into_iter().map(|(k, v)| (k.into(), v)).unzip();
        FinalState::new(names.into(), values.into())
    }

    /// The `(name, value)` pairs, in the schema's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, i64)> + Clone + '_ {
        self.names
            .iter()
            .zip(self.value_iter())
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The `(name, value)` pairs as owned strings.
    pub fn to_pairs(&self) -> Vec<(String, i64)> {
        self.iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    pub fn len(&self) -> usize {
        self.rows.arity.min(self.names.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `name` (the first, should two share it).
    pub fn get(&self, name: &str) -> Option<i64> {
        self.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// The values, in the schema's order.
    pub fn values(&self) -> Vec<i64> {
        self.value_iter().collect()
    }

    /// [`FinalState::values`] without collecting them.
    pub fn value_iter(&self) -> impl ExactSizeIterator<Item = i64> + Clone + '_ {
        self.rows.values(self.row as usize).take(self.len())
    }

    /// What the `i`-th value's bits mean to a reader (`None`: a signed
    /// integer).
    pub fn kind(&self, i: usize) -> Option<ValueKind> {
        self.names.kind(i)
    }

    /// The `i`-th value as a reader reads it (`4294967295` for a `uint`
    /// holding all ones, `1.5` for a `float`), in the spelling conditions
    /// accept.
    pub fn shown(&self, i: usize, v: i64) -> String {
        ValueKind::show_as(self.kind(i), v)
    }

    /// The names, in order.
    pub fn names(&self) -> &[String] {
        &self.names[..self.len()]
    }

    /// The encoded values (as long as the names: see [`FinalState::len`]).
    fn bytes(&self) -> &[u8] {
        &self.rows.row(self.row as usize)[..self.len() * self.rows.width]
    }

    /// Whether both states show the same names in the same order (then
    /// they compare by their values alone).
    fn same_names(&self, other: &FinalState) -> bool {
        self.names.same(&other.names) || self.names() == other.names()
    }
}

/// As the list of its pairs: `[("P0:r0", 1), ("x", 2)]`.
impl std::fmt::Debug for FinalState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for FinalState {
    fn eq(&self, other: &FinalState) -> bool {
        self.same_names(other)
            && if self.rows.width == other.rows.width {
                // One width: the encoding is one-to-one.
                self.bytes() == other.bytes()
            } else {
                self.value_iter().eq(other.value_iter())
            }
    }
}

impl Eq for FinalState {}

/// The order of the `(name, value)` lists: under one schema, that of the
/// value vectors (of the encoded rows, under one width).
impl Ord for FinalState {
    fn cmp(&self, other: &FinalState) -> Ordering {
        if !self.same_names(other) {
            self.iter().cmp(other.iter())
        } else if self.rows.width == other.rows.width {
            self.bytes().cmp(other.bytes())
        } else {
            self.value_iter().cmp(other.value_iter())
        }
    }
}

impl PartialOrd for FinalState {
    fn partial_cmp(&self, other: &FinalState) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The values only, as a slice of them hashes (equal states have equal
/// values; states of two schemas with equal values are told apart by
/// [`PartialEq`]).
impl Hash for FinalState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_usize(self.len());
        for v in self.value_iter() {
            v.hash(h);
        }
    }
}

/// Final states being recorded under one schema, each with a count and a
/// number (its row: numbers are dense, in the order the states were
/// met): the rows of one block ([`Rows`]) and a hash table of row numbers
/// hashed and compared by the encoded rows (no key allocated per state).
#[derive(Clone, Debug, Default)]
pub(crate) struct StateCounts {
    names: Schema,
    rows: Rows,
    counts: Vec<u64>,
    /// Per state: whether an execution reaching it satisfied the test's
    /// condition ([`HOLDS`]), and whether one did not ([`FAILS`]).
    verdicts: Vec<u8>,
    index: HashTable<u32>,
    /// The row being looked up, encoded (reused).
    scratch: Vec<u8>,
}

/// [`StateCounts::mark`]: an execution reaching the state satisfied the
/// condition.
const HOLDS: u8 = 1;
/// [`StateCounts::mark`]: an execution reaching the state did not.
const FAILS: u8 = 2;

/// A listing of final states sorted ([`StateCounts::into_sorted`]).
pub(crate) struct Sorted {
    /// The states with their counts, in the listing's order.
    pub(crate) listing: Vec<(FinalState, u64)>,
    /// Each state's place in `listing`, by its number.
    pub(crate) place: Vec<u32>,
}

/// A listing of at most this many states is built whatever the limits (a
/// few milliseconds); a longer one asks its `stop` every this many rows.
pub(crate) const UNCHECKED_ROWS: usize = 1 << 16;

impl StateCounts {
    pub(crate) fn new(names: Schema) -> StateCounts {
        StateCounts {
            rows: Rows::new(names.len()),
            names,
            ..StateCounts::default()
        }
    }

    /// The names of the states recorded.
    pub(crate) fn names(&self) -> &Schema {
        &self.names
    }

    /// Counts `n` more executions reaching the state of `values` (stored
    /// the first time only); returns the state's number.
    pub(crate) fn add(&mut self, values: &[i64], n: u64) -> u32 {
        if self.rows.count == 0 {
            self.rows.arity = values.len();
        }
        debug_assert_eq!(values.len(), self.rows.arity);
        let width = values.iter().map(|&v| width_of(v)).max().unwrap_or(1);
        if width > self.rows.width {
            self.widen(width);
        }
        let mut row = std::mem::take(&mut self.scratch);
        row.clear();
        for &v in values {
            encode(v, self.rows.width, &mut row);
        }
        let id = self.add_encoded(&row, n);
        self.scratch = row;
        id
    }

    /// [`StateCounts::add`] of a row encoded at this block's width.
    fn add_encoded(&mut self, row: &[u8], n: u64) -> u32 {
        let hash = hash_row(row);
        let rows = &self.rows;
        if let Some(&id) = self.index.find(hash, |&i| rows.row(i as usize) == row) {
            self.counts[id as usize] = self.counts[id as usize].saturating_add(n);
            return id;
        }
        let id = self.rows.push_encoded(row);
        self.counts.push(n);
        self.verdicts.push(0);
        let rows = &self.rows;
        self.index
            .insert_unique(hash, id, |&i| hash_row(rows.row(i as usize)));
        id
    }

    /// Re-encodes the rows `width` bytes a value, and indexes them again
    /// (their hashes are those of their bytes).
    fn widen(&mut self, width: usize) {
        self.rows.widen(width);
        self.index.clear();
        let rows = &self.rows;
        for i in 0..rows.count {
            let hash = hash_row(rows.row(i));
            self.index
                .insert_unique(hash, i as u32, |&k| hash_row(rows.row(k as usize)));
        }
    }

    /// Records that an execution reaching state `id` satisfied the
    /// condition (`holds`) or did not.
    pub(crate) fn mark(&mut self, id: u32, holds: bool) {
        self.verdicts[id as usize] |= if holds { HOLDS } else { FAILS };
    }

    /// How many states an execution satisfying the condition reaches, and
    /// how many one not satisfying it reaches ([`StateCounts::mark`]). The
    /// condition reads only what a state shows, so each state is counted
    /// once, in one of the two.
    pub(crate) fn condition_counts(&self) -> (usize, usize) {
        let holds = self.verdicts.iter().filter(|&&v| v & HOLDS != 0).count();
        let fails = self.verdicts.iter().filter(|&&v| v & FAILS != 0).count();
        (holds, fails)
    }

    /// How many distinct states.
    pub(crate) fn len(&self) -> usize {
        self.rows.count
    }

    /// Makes room in the index for `n` more states.
    pub(crate) fn reserve(&mut self, n: usize) {
        let rows = &self.rows;
        self.index.reserve(n, |&i| hash_row(rows.row(i as usize)));
        self.counts.reserve(n);
    }

    /// Adds another part's counts (recorded under the same names); returns
    /// the number here of each of `other`'s states, by its number there.
    /// The merge asks `stop` first with the bytes it may allocate (the
    /// part's rows, counts and index entries, and this block re-encoded
    /// when the part's values are wider), then every [`UNCHECKED_ROWS`]
    /// rows with 0, and ends with the limit `stop` names: the states
    /// merged so far stay, the rest of the part is not merged (the caller
    /// drops the listing).
    pub(crate) fn merge(
        &mut self,
        other: StateCounts,
        stop: &mut dyn FnMut(usize) -> Option<LimitKind>,
    ) -> Result<Vec<u32>, LimitKind> {
        debug_assert!(other.len() == 0 || *self.names == *other.names);
        if self.len() == 0 {
            // The part's block is taken whole: nothing is copied.
            let n = other.len() as u32;
            let names = std::mem::take(&mut self.names);
            *self = other;
            if self.names.is_empty() {
                self.names = names;
            }
            return Ok((0..n).collect());
        }
        let n = other.len();
        let widened = if other.rows.width > self.rows.width {
            self.len() * self.rows.arity * other.rows.width
        } else {
            0
        };
        // Per row: its bytes, its count, its index entry (a number and a
        // control byte, at most twice over while the table grows) and the
        // number returned.
        let stride = self.rows.arity * self.rows.width.max(other.rows.width);
        let bytes = n
            .saturating_mul(stride + 8 + 2 * 5 + 4)
            .saturating_add(widened);
        if let Some(kind) = stop(bytes) {
            return Err(kind);
        }
        let mut ids = Vec::with_capacity(n);
        if other.rows.width > self.rows.width {
            self.widen(other.rows.width);
        }
        let mut values = Vec::with_capacity(other.rows.arity);
        for (i, &c) in other.counts.iter().enumerate() {
            if i % UNCHECKED_ROWS == UNCHECKED_ROWS - 1
                && let Some(kind) = stop(0)
            {
                return Err(kind);
            }
            let id = if other.rows.width == self.rows.width {
                self.add_encoded(other.rows.row(i), c)
            } else {
                values.clear();
                values.extend(other.rows.values(i));
                self.add(&values, c)
            };
            self.verdicts[id as usize] |= other.verdicts[i];
            ids.push(id);
        }
        Ok(ids)
    }

    /// The states with their counts, in the order of their `(name, value)`
    /// lists (the listing's order), and each state's place in it. A
    /// listing longer than [`UNCHECKED_ROWS`] asks `stop` (with the bytes
    /// it is about to allocate, or 0) every [`UNCHECKED_ROWS`] rows sorted
    /// or copied and before each large allocation, and ends with the limit
    /// it names (the listing then not built).
    pub(crate) fn into_sorted(
        self,
        stop: &mut dyn FnMut(usize) -> Option<LimitKind>,
    ) -> Result<Sorted, LimitKind> {
        let StateCounts {
            names,
            rows,
            counts,
            verdicts,
            index,
            scratch,
        } = self;
        drop((verdicts, index, scratch));
        let n = rows.count;
        let checked = n > UNCHECKED_ROWS;
        let mut ask = |bytes: usize| match checked {
            true => stop(bytes).map_or(Ok(()), Err),
            false => Ok(()),
        };
        ask(8 * n)?;
        let order = sorted_order(&rows, &mut || ask(0))?;
        let listing_bytes = n * (std::mem::size_of::<(FinalState, u64)>() + rows.stride() + 4);
        ask(listing_bytes)?;
        let mut sorted = Rows::new(rows.arity);
        sorted.width = rows.width;
        sorted.bytes.reserve_exact(rows.bytes.len());
        let mut place = vec![0u32; n];
        for (k, &i) in order.iter().enumerate() {
            if k % UNCHECKED_ROWS == UNCHECKED_ROWS - 1 {
                ask(0)?;
            }
            sorted.push_encoded(rows.row(i as usize));
            place[i as usize] = k as u32;
        }
        drop(rows);
        let sorted = Arc::new(sorted);
        let mut listing = Vec::with_capacity(n);
        for (k, &i) in order.iter().enumerate() {
            if k % UNCHECKED_ROWS == UNCHECKED_ROWS - 1 {
                ask(0)?;
            }
            let state = FinalState {
                names: names.clone(),
                rows: sorted.clone(),
                row: k as u32,
            };
            listing.push((state, counts[i as usize]));
        }
        Ok(Sorted { listing, place })
    }
}

/// The order of the rows of `rows` by their value vectors (as `[i64]`
/// compares them: lexicographically, signed), as row numbers: the encoded
/// rows compared as byte strings (one `memcmp` each), sorted in runs of
/// [`UNCHECKED_ROWS`] merged pairwise, `stopped` asked before each run and
/// every [`UNCHECKED_ROWS`] rows merged (ending with its limit).
/// `sorted_order_by_values` is the plain sort it stands for, kept as the
/// tests' oracle.
fn sorted_order(
    rows: &Rows,
    stopped: &mut dyn FnMut() -> Result<(), LimitKind>,
) -> Result<Vec<u32>, LimitKind> {
    let n = rows.count;
    let key = |i: u32| rows.row(i as usize);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for run in order.chunks_mut(UNCHECKED_ROWS) {
        stopped()?;
        run.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
    }
    let mut out = vec![0u32; if n > UNCHECKED_ROWS { n } else { 0 }];
    let mut width = UNCHECKED_ROWS;
    let mut merged = 0usize;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut a, mut b) = (lo, mid);
            for slot in &mut out[lo..hi] {
                merged += 1;
                if merged.is_multiple_of(UNCHECKED_ROWS) {
                    stopped()?;
                }
                let take_a = b >= hi || (a < mid && key(order[a]) <= key(order[b]));
                if take_a {
                    *slot = order[a];
                    a += 1;
                } else {
                    *slot = order[b];
                    b += 1;
                }
            }
        }
        std::mem::swap(&mut order, &mut out);
        width *= 2;
    }
    Ok(order)
}

/// [`sorted_order`] by comparing the value vectors themselves.
#[cfg(test)]
fn sorted_order_by_values(rows: &Rows) -> Vec<u32> {
    let mut order: Vec<u32> = (0..rows.count as u32).collect();
    order.sort_by(|&a, &b| rows.values(a as usize).cmp(rows.values(b as usize)));
    order
}

/// Adds `from`'s counts into the sorted list `to` (the union of two
/// listings, e.g. two attributions' or two parts' undefined states),
/// keeping it sorted.
pub(crate) fn add_sorted(to: &mut Vec<(FinalState, u64)>, from: Vec<(FinalState, u64)>) {
    if from.is_empty() {
        return;
    }
    let mut all: Vec<(FinalState, u64)> = std::mem::take(to);
    all.extend(from);
    all.sort_by(|a, b| a.0.cmp(&b.0));
    for (st, n) in all {
        match to.last_mut() {
            Some((last, m)) if *last == st => *m = m.saturating_add(n),
            _ => to.push((st, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(names: &[&str]) -> Schema {
        names
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into()
    }

    /// The old representation: the list of `(name, value)` pairs.
    fn pairs(names: &[&str], values: &[i64]) -> Vec<(String, i64)> {
        names
            .iter()
            .zip(values)
            .map(|(k, &v)| (k.to_string(), v))
            .collect()
    }

    #[test]
    fn a_schema_of_several_threads_and_locations_names_each_value() {
        let names = ["P0:r0", "P0:r1", "P1:r0", "P10:r2", "x", "y"];
        let s = FinalState::new(schema(&names), vec![1, 0, 2, -3, 4, 5].into());
        assert_eq!(s.len(), 6);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [
                ("P0:r0", 1),
                ("P0:r1", 0),
                ("P1:r0", 2),
                ("P10:r2", -3),
                ("x", 4),
                ("y", 5)
            ]
        );
        assert_eq!(s.get("P10:r2"), Some(-3));
        assert_eq!(s.get("z"), None);
        assert_eq!(s.to_pairs(), pairs(&names, &[1, 0, 2, -3, 4, 5]));
        assert_eq!(
            s,
            FinalState::from_pairs(pairs(&names, &[1, 0, 2, -3, 4, 5]))
        );
    }

    /// The recorded states come out in the order the `(name, value)`
    /// lists had (what the listing printed before: a `BTreeMap` of them),
    /// every value position deciding, negative values before positive.
    #[test]
    fn recorded_states_keep_the_order_of_the_pair_lists() {
        let names = ["P0:r0", "P1:r0", "x"];
        let mut counts = StateCounts::new(schema(&names));
        let rows: [[i64; 3]; 7] = [
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [0, 0, -1],
            [1, 0, 0],
            [-2, 5, 5],
            [0, 1, 0],
        ];
        let mut old: std::collections::BTreeMap<Vec<(String, i64)>, u64> = Default::default();
        for r in &rows {
            counts.add(r, 2);
            *old.entry(pairs(&names, r)).or_insert(0) += 2;
        }
        assert_eq!(counts.len(), 5);
        let new: Vec<(Vec<(String, i64)>, u64)> = counts
            .into_sorted(&mut |_| None)
            .unwrap()
            .listing
            .into_iter()
            .map(|(s, n)| (s.to_pairs(), n))
            .collect();
        assert_eq!(new, old.into_iter().collect::<Vec<_>>());
    }

    /// Every value is part of the key: states differing in one position
    /// only (the last location, the first register) are counted apart,
    /// even when their hashes collide (the map compares keys in full).
    #[test]
    fn states_differing_in_one_value_are_counted_apart() {
        let names = ["P0:r0", "P0:r1", "x"];
        let mut counts = StateCounts::new(schema(&names));
        counts.add(&[0, 0, 0], 1);
        counts.add(&[0, 0, 1], 1);
        counts.add(&[1, 0, 0], 1);
        counts.add(&[0, 0, 1], 1);
        let rows = counts.into_sorted(&mut |_| None).unwrap().listing;
        let got: Vec<(Vec<i64>, u64)> = rows.iter().map(|(s, n)| (s.values(), *n)).collect();
        assert_eq!(
            got,
            [(vec![0, 0, 0], 1), (vec![0, 0, 1], 2), (vec![1, 0, 0], 1)]
        );
        // A hasher under which every key collides: still three states.
        #[derive(Default)]
        struct Constant;
        impl Hasher for Constant {
            fn finish(&self) -> u64 {
                7
            }
            fn write(&mut self, _: &[u8]) {}
        }
        let mut map: std::collections::HashMap<
            FinalState,
            u64,
            std::hash::BuildHasherDefault<Constant>,
        > = Default::default();
        for (s, n) in rows {
            *map.entry(s).or_insert(0) += n;
        }
        assert_eq!(map.len(), 3);
    }

    /// States of two schemas compare by their pairs: equal names and
    /// values are equal states whatever schema holds them; different
    /// names order as the pair lists do.
    #[test]
    fn states_of_two_schemas_compare_by_their_pairs() {
        let a = FinalState::new(schema(&["P0:r0", "x"]), vec![1, 2].into());
        let b = FinalState::new(schema(&["P0:r0", "x"]), vec![1, 2].into());
        assert_eq!(a, b);
        assert_eq!(a.cmp(&b), Ordering::Equal);
        let c = FinalState::new(schema(&["P0:r0", "y"]), vec![1, 0].into());
        assert_ne!(a, c);
        assert_eq!(
            a.cmp(&c),
            pairs(&["P0:r0", "x"], &[1, 2]).cmp(&pairs(&["P0:r0", "y"], &[1, 0]))
        );
        // Same values, other names: not equal, though they hash alike.
        let d = FinalState::new(schema(&["P0:r0", "y"]), vec![1, 2].into());
        assert_ne!(a, d);
        let mut set = std::collections::HashSet::new();
        set.insert(a.clone());
        set.insert(d);
        set.insert(b);
        assert_eq!(set.len(), 2);
    }

    fn rows(values: &[Vec<i64>]) -> Rows {
        let mut rows = Rows::default();
        for v in values {
            rows.push(v);
        }
        rows
    }

    /// The rows of `rows` in `order`, as value vectors.
    fn in_order(rows: &Rows, order: &[u32]) -> Vec<Vec<i64>> {
        order
            .iter()
            .map(|&i| rows.values(i as usize).collect())
            .collect()
    }

    /// The byte-key sort orders as the plain one (its oracle), at each key
    /// width, with negative values and the extremes of i64.
    #[test]
    fn the_byte_key_order_is_the_value_order() {
        for vs in [
            vec![vec![1, 0, 1], vec![0, 1, 1], vec![0, 0, 0], vec![1, 1, 0]],
            vec![vec![-1, 3], vec![-2, 300], vec![-1, -200], vec![5, 0]],
            vec![vec![70_000, -1], vec![-70_000, 2], vec![0, 0]],
            vec![vec![1 << 40, 1], vec![-(1 << 40), 0], vec![3, 3]],
            vec![
                vec![i64::MIN, i64::MAX],
                vec![i64::MAX, i64::MIN],
                vec![0, -1],
                vec![-1, 0],
            ],
            vec![vec![]],
        ] {
            let r = rows(&vs);
            let by_values = in_order(&r, &sorted_order_by_values(&r));
            let by_keys = in_order(&r, &sorted_order(&r, &mut || Ok(())).unwrap());
            assert_eq!(by_keys, by_values, "{vs:?}");
        }
    }

    proptest::proptest! {
        /// The same on generated rows (values around 0, or spread wide).
        #[test]
        fn generated_rows_sort_as_their_values(
            vs in proptest::collection::vec(proptest::collection::vec(-3i64..4, 5), 0..40),
            wide in proptest::collection::vec(proptest::collection::vec(proptest::num::i64::ANY, 3), 0..20),
        ) {
            for v in [vs, wide] {
                let r = rows(&v);
                let a = in_order(&r, &sorted_order_by_values(&r));
                let b = in_order(&r, &sorted_order(&r, &mut || Ok(())).unwrap());
                proptest::prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn parts_and_listings_add_up() {
        let names = schema(&["r", "x"]);
        let mut a = StateCounts::new(names.clone());
        a.add(&[0, 1], 1);
        let mut b = StateCounts::new(names.clone());
        b.add(&[0, 1], 2);
        b.add(&[1, 1], 1);
        a.merge(b, &mut |_| None).unwrap();
        a.merge(StateCounts::new(names.clone()), &mut |_| None)
            .unwrap();
        let mut rows = a.into_sorted(&mut |_| None).unwrap().listing;
        let got: Vec<(Vec<i64>, u64)> = rows.iter().map(|(s, n)| (s.values(), *n)).collect();
        assert_eq!(got, [(vec![0, 1], 3), (vec![1, 1], 1)]);
        add_sorted(
            &mut rows,
            vec![
                (FinalState::new(names.clone(), vec![0, 0].into()), 4),
                (FinalState::new(names.clone(), vec![1, 1].into()), 1),
            ],
        );
        let got: Vec<(Vec<i64>, u64)> = rows.iter().map(|(s, n)| (s.values(), *n)).collect();
        assert_eq!(got, [(vec![0, 0], 4), (vec![0, 1], 3), (vec![1, 1], 2)]);
    }

    /// A listing longer than one run ([`UNCHECKED_ROWS`]) is sorted in
    /// runs merged pairwise: the order is the plain sort's (its oracle),
    /// with values that widen the block part-way (1, then 2, then 8 bytes
    /// a value) and duplicates counted once; every state's place is where
    /// the listing has it.
    #[test]
    fn a_long_listing_sorts_in_runs_as_one_sort_would() {
        let names = schema(&["a", "b", "c"]);
        let mut counts = StateCounts::new(names);
        // A linear congruential sequence: reproducible, well spread.
        let mut x: u64 = 12345;
        let mut next = |m: i64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as i64 % m
        };
        let n = 3 * UNCHECKED_ROWS + 17;
        let mut rows = Vec::new();
        for k in 0..n {
            let spread = match k {
                _ if k < n / 3 => 100,
                _ if k < 2 * n / 3 => 30_000,
                _ => 1 << 40,
            };
            let row = [next(spread) - spread / 2, next(7), next(spread)];
            let id = counts.add(&row, 1) as usize;
            if id == rows.len() {
                rows.push(row.to_vec());
            }
        }
        let sorted = counts.into_sorted(&mut |_| None).unwrap();
        let mut want = rows.clone();
        want.sort();
        let got: Vec<Vec<i64>> = sorted.listing.iter().map(|(s, _)| s.values()).collect();
        assert!(got.len() > 2 * UNCHECKED_ROWS);
        assert_eq!(got, want);
        for (id, row) in rows.iter().enumerate() {
            let at = sorted.place[id] as usize;
            assert_eq!(&got[at], row);
        }
    }

    /// Sorting a long listing asks its `stop` and ends with the limit it
    /// names, the listing not built; a short one never asks.
    #[test]
    fn a_long_listing_stops_when_its_limit_is_reached() {
        let listing = |n: usize| {
            let mut counts = StateCounts::new(schema(&["a", "b"]));
            for k in 0..n as i64 {
                counts.add(&[k % 1000, k / 1000], 1);
            }
            counts
        };
        let mut asked = 0;
        let stopped = listing(4 * UNCHECKED_ROWS).into_sorted(&mut |_| {
            asked += 1;
            (asked > 3).then_some(LimitKind::Timeout)
        });
        assert!(matches!(stopped, Err(LimitKind::Timeout)));
        assert_eq!(asked, 4);
        // At the memory bound before the listing's blocks are allocated.
        let stopped = listing(UNCHECKED_ROWS + 1)
            .into_sorted(&mut |bytes| (bytes > 0).then_some(LimitKind::MaxMemory));
        assert!(matches!(stopped, Err(LimitKind::MaxMemory)));
        let short = listing(UNCHECKED_ROWS).into_sorted(&mut |_| Some(LimitKind::Timeout));
        assert_eq!(short.map(|s| s.listing.len()).ok(), Some(UNCHECKED_ROWS));
    }

    /// Merging a part asks `stop` first with the bytes it may take, then
    /// every [`UNCHECKED_ROWS`] rows, and ends with the limit it names.
    /// Listings of n = 3 x [`UNCHECKED_ROWS`] distinct states `(k % 100,
    /// k / 100 * scale)` for k from `from`: at scale 1 the values fit in 2
    /// bytes, at scale 1000 they need 4. A part starting at n/2 (scale 1)
    /// shares its first half with the listing from 0: asked to stop at
    /// the second ask (row [`UNCHECKED_ROWS`]), the merge ends there, the
    /// rows merged so far all shared (the listing still has n states);
    /// never stopped, it merges every state (n + n/2, the shared ones
    /// counted twice: 2n executions). A part at scale 1000 shares nothing
    /// and re-encodes this block at 4 bytes a value: the first ask names
    /// at least the part's rows and the block widened (2 x 4 bytes a row
    /// each), then one ask per run of rows (3).
    #[test]
    fn a_merge_of_parts_stops_when_its_limit_is_reached() {
        let n = 3 * UNCHECKED_ROWS as i64;
        let listing = |from: i64, scale: i64| {
            let mut counts = StateCounts::new(schema(&["a", "b"]));
            for k in from..from + n {
                counts.add(&[k % 100, k / 100 * scale], 1);
            }
            counts
        };
        let mut asked = Vec::new();
        let mut here = listing(0, 1);
        let stopped = here.merge(listing(n / 2, 1), &mut |bytes| {
            asked.push(bytes);
            (asked.len() > 1).then_some(LimitKind::Timeout)
        });
        assert_eq!(stopped, Err(LimitKind::Timeout));
        assert_eq!(asked.len(), 2);
        assert!(asked[0] >= 2 * 2 * n as usize && asked[1] == 0, "{asked:?}");
        assert_eq!(here.len(), n as usize);
        let mut here = listing(0, 1);
        here.merge(listing(n / 2, 1), &mut |_| None).unwrap();
        assert_eq!(here.len(), (n + n / 2) as usize);
        let sorted = here.into_sorted(&mut |_| None).unwrap();
        let total: u64 = sorted.listing.iter().map(|(_, c)| c).sum();
        assert_eq!(total, 2 * n as u64);
        let mut asked = Vec::new();
        let mut here = listing(0, 1);
        let ids = here
            .merge(listing(n / 2, 1000), &mut |bytes| {
                asked.push(bytes);
                None
            })
            .unwrap();
        assert_eq!(ids.len(), n as usize);
        assert_eq!(here.len(), 2 * n as usize);
        assert_eq!(asked.len(), 4);
        assert!(asked[0] >= 2 * (2 * 4 * n as usize), "{asked:?}");
    }

    /// Values round-trip through every width, the extremes included, and
    /// a state's values are those it was given.
    #[test]
    fn values_round_trip_at_every_width() {
        for v in [
            0,
            1,
            -1,
            127,
            -128,
            128,
            -129,
            32767,
            -32768,
            1 << 31,
            i64::MIN,
            i64::MAX,
        ] {
            for width in [1, 2, 4, 8] {
                if width < width_of(v) {
                    continue;
                }
                let mut b = Vec::new();
                encode(v, width, &mut b);
                assert_eq!(b.len(), width);
                assert_eq!(decode(&b), v, "{v} in {width} bytes");
            }
        }
        let s = FinalState::new(schema(&["a", "b"]), vec![-300, i64::MAX].into());
        assert_eq!(s.values(), [-300, i64::MAX]);
    }
}

//! What a path under way holds per register and per statement, shared
//! between the paths a split makes until one of them changes it.
//!
//! A shader's thread runs tens of thousands of statements and holds as
//! many registers, and the walk splits a path at every read whose value a
//! branch or an index needs. Copying every register name and statement
//! count at each split cost more than the rest of the walk (FidelityFX SPD,
//! piet-gpu-hal's prefix). Here both live in fixed-size chunks behind
//! reference counts: a split copies the chunk handles, and a path copies a
//! chunk the first time it writes into one another path still holds.

use crate::ir::{Stmt, Thread};
use std::ops::{Index, IndexMut, RangeInclusive};
use std::rc::Rc;
use std::sync::Arc;

/// Entries per chunk: small enough that a write after a split copies
/// little, large enough that a split copies few handles.
const CHUNK: usize = 64;

/// A vector whose chunks are shared between clones until written.
#[derive(Clone, Debug)]
pub(super) struct CowVec<T: Clone> {
    chunks: Vec<Rc<Vec<T>>>,
    len: usize,
}

impl<T: Clone> CowVec<T> {
    /// `len` copies of `value` (every chunk shared until written).
    pub(super) fn filled(len: usize, value: T) -> Self {
        let chunk = Rc::new(vec![value; CHUNK]);
        CowVec {
            chunks: vec![chunk; len.div_ceil(CHUNK)],
            len,
        }
    }

    /// Entry `i`, for a write: its chunk becomes this vector's own.
    fn slot(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} past the end ({})", self.len);
        &mut Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK]
    }

    /// The entries in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter()).take(self.len)
    }
}

impl<T: Clone + PartialEq> CowVec<T> {
    /// Sets the entries in `range` to `value`, copying only the chunks
    /// where some entry differs.
    pub(super) fn fill(&mut self, range: RangeInclusive<usize>, value: T) {
        let (start, end) = (*range.start(), *range.end());
        if start > end {
            return;
        }
        assert!(end < self.len, "index {end} past the end ({})", self.len);
        for c in start / CHUNK..=end / CHUNK {
            let lo = if c == start / CHUNK { start % CHUNK } else { 0 };
            let hi = if c == end / CHUNK {
                end % CHUNK
            } else {
                CHUNK - 1
            };
            if self.chunks[c][lo..=hi].iter().any(|x| *x != value) {
                Rc::make_mut(&mut self.chunks[c])[lo..=hi].fill(value.clone());
            }
        }
    }
}

impl<T: Clone> Index<usize> for CowVec<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} past the end ({})", self.len);
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T: Clone> IndexMut<usize> for CowVec<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.slot(i)
    }
}

/// The registers one thread's code can assign, numbered once per thread:
/// its initial registers and every destination in its code, in order of
/// first appearance.
#[derive(Debug, Default)]
pub(super) struct Names {
    index: rustc_hash::FxHashMap<String, u32>,
    names: Vec<String>,
}

impl Names {
    pub(super) fn of(t: &Thread) -> Names {
        let mut n = Names::default();
        let dests = t.code.iter().filter_map(|s| match s {
            Stmt::Assign { dest, .. } => Some(dest),
            Stmt::Op(i) => i.dest.as_ref(),
            _ => None,
        });
        for r in t.registers.iter().map(|(r, _)| r).chain(dests) {
            if !n.index.contains_key(r) {
                n.index.insert(r.clone(), n.names.len() as u32);
                n.names.push(r.clone());
            }
        }
        n
    }

    fn number(&self, r: &str) -> Option<usize> {
        self.index.get(r).map(|&i| i as usize)
    }
}

/// A path's registers by name, each holding a `V`. The names the thread's
/// [`Names`] numbers are kept in a [`CowVec`]; any other name (none the
/// executor assigns) in a map of its own.
#[derive(Clone, Debug)]
pub(super) struct Regs<V: Clone> {
    names: Arc<Names>,
    slots: CowVec<Option<V>>,
    extra: rustc_hash::FxHashMap<String, V>,
}

impl<V: Clone> Regs<V> {
    /// No register set.
    pub(super) fn new(names: &Arc<Names>) -> Self {
        Regs {
            names: Arc::clone(names),
            slots: CowVec::filled(names.names.len(), None),
            extra: Default::default(),
        }
    }

    pub(super) fn get(&self, r: &str) -> Option<&V> {
        match self.names.number(r) {
            Some(i) => self.slots[i].as_ref(),
            None => self.extra.get(r),
        }
    }

    pub(super) fn contains_key(&self, r: &str) -> bool {
        self.get(r).is_some()
    }

    pub(super) fn insert(&mut self, r: &str, v: V) {
        match self.names.number(r) {
            Some(i) => self.slots[i] = Some(v),
            None => {
                self.extra.insert(r.to_string(), v);
            }
        }
    }

    pub(super) fn remove(&mut self, r: &str) {
        match self.names.number(r) {
            Some(i) => {
                if self.slots[i].is_some() {
                    self.slots[i] = None;
                }
            }
            None => {
                self.extra.remove(r);
            }
        }
    }

    /// The registers set, with their values: numbered ones in their order,
    /// then the others.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        let numbered = self
            .slots
            .iter()
            .zip(&self.names.names)
            .filter_map(|(v, r)| Some((r, v.as_ref()?)));
        numbered.chain(self.extra.iter())
    }

    /// Replaces the value of each register for which `f` returns a new
    /// one, copying only the chunks written.
    pub(super) fn update(&mut self, mut f: impl FnMut(&str, &V) -> Option<V>) {
        let mut changed = Vec::new();
        for (i, (v, r)) in self.slots.iter().zip(&self.names.names).enumerate() {
            if let Some(v) = v
                && let Some(new) = f(r, v)
            {
                changed.push((i, new));
            }
        }
        for (i, new) in changed {
            self.slots[i] = Some(new);
        }
        for (r, v) in self.extra.iter_mut() {
            if let Some(new) = f(r, v) {
                *v = new;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_keeps_its_values_when_the_original_is_written() {
        let mut a = CowVec::filled(200, 0usize);
        a[3] = 7;
        a[150] = 9;
        let b = a.clone();
        a[3] += 1;
        a.fill(100..=199, 5);
        assert_eq!((b[3], b[150], b[120]), (7, 9, 0));
        assert_eq!((a[3], a[150], a[120], a[99]), (8, 5, 5, 0));
        assert_eq!(a.iter().filter(|&&x| x == 5).count(), 100);
        assert_eq!(b.iter().count(), 200);
    }

    #[test]
    fn registers_by_name_numbered_or_not() {
        let names = Arc::new(Names {
            index: [("x".to_string(), 0), ("y".to_string(), 1)]
                .into_iter()
                .collect(),
            names: vec!["x".into(), "y".into()],
        });
        let mut r = Regs::new(&names);
        r.insert("y", 2i64);
        r.insert("other", 3);
        let snapshot = r.clone();
        r.update(|_, v| Some(v * 10));
        r.remove("other");
        assert_eq!(
            snapshot
                .iter()
                .map(|(k, v)| (k.as_str(), *v))
                .collect::<Vec<_>>(),
            [("y", 2), ("other", 3)]
        );
        assert_eq!(r.get("y"), Some(&20));
        assert!(!r.contains_key("x") && !r.contains_key("other"));
        r.remove("y");
        assert_eq!(r.iter().count(), 0);
    }
}

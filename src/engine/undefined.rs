//! Undefined initial values ([`Program::undefined`]): the finite value
//! domain that stands for "any value", and the initial-value assignments
//! the walk gives each combination of paths.
//!
//! A read of an undefined initial value may return any value. vkmm
//! enumerates a finite domain instead of all integers:
//!
//! - the *known* values: every constant a branch of the program compares
//!   with, the initial values of the other locations, and the constants of
//!   the final condition and filter;
//! - *fresh* values, one per undefined location the walk may need to tell
//!   apart, all distinct from each other and greater than every known
//!   value: each stands for "some other value".
//!
//! Why this is enough: a condition compares final values with `==` / `!=`
//! (with constants or with each other). Two valuations of the undefined
//! locations that agree on which locations equal which known constant, and
//! on which locations equal each other, satisfy the same such comparisons;
//! every class of valuations has a member in the domain (a location equal
//! to no known value takes a fresh value, one fresh value per class of
//! equal locations). A condition comparing an undefined location with
//! another location compares it with that location's initial value or with
//! a value some write stores: the former is known, the latter is either
//! equal to the undefined value or not, and a fresh value is distinct from
//! every value a write stores unless the write copies it. The same holds
//! for branches that compare a value read
//! from an undefined location with a constant or another such value, and for
//! values only copied or stored. It is a sample, not a proof, where the
//! value goes through arithmetic first (`x + 1 == 5` needs `4`, which is not
//! known unless the program names it) or is compared by order (`<`, `>=`):
//! the fresh values lie above every known value, so an ordering comparison
//! sees values equal to each known one and above all, not those between or
//! below (docs/format-spirv.md, "Undefined initial values").
//!
//! Assignments are canonical in their fresh values (the first location
//! that takes a fresh value takes the first one, and so on: renaming fresh
//! values changes no comparison), so `forall (%v1 == %v2)` over two
//! undefined locations walks two assignments, equal and distinct.

use std::collections::BTreeSet;

use crate::ir::{CondExpr, Operand, Program, Stmt, Term};

/// The value domain of the undefined locations of a program.
#[derive(Clone, Debug, Default)]
pub struct Domain {
    /// The known values, ascending.
    pub known: Vec<i64>,
    /// The fresh values, ascending, all greater than every known value.
    pub fresh: Vec<i64>,
}

/// Where fresh values start: the first multiple of 1000 above every known
/// value, so that listings show them apart (e.g. `1000`, `1001`).
fn fresh_base(known: &[i64]) -> i64 {
    let top = known.iter().copied().max().unwrap_or(0).max(0);
    (top / 1000 + 1).saturating_mul(1000)
}

impl Domain {
    /// The domain of `program`'s undefined locations (`None` when it has
    /// none).
    pub fn of(program: &Program) -> Option<Domain> {
        if program.undefined.is_empty() {
            return None;
        }
        let mut known = BTreeSet::new();
        let constant = |o: Option<&Operand>| match o {
            Some(Operand::Const(c)) => Some(*c),
            _ => None,
        };
        for t in &program.threads {
            for s in &t.code {
                if let Stmt::Branch { a, b, .. } = s {
                    known.extend(constant(Some(a)));
                    known.extend(constant(Some(b)));
                }
            }
        }
        for l in 0..program.locations.len() {
            if !program.is_undefined(l) {
                known.insert(program.initial_value(l));
            }
        }
        if let Some(c) = &program.condition {
            let mut terms = Vec::new();
            c.expr.terms(&mut terms);
            if let Some(f) = &c.filter {
                f.terms(&mut terms);
            }
            known.extend(terms.iter().filter_map(|t| match t {
                Term::Const(v) => Some(*v),
                _ => None,
            }));
        }
        let known: Vec<i64> = known.into_iter().collect();
        let base = fresh_base(&known);
        let fresh = (0..program.undefined.len().min(MAX_FRESH) as i64)
            .map(|i| base + i)
            .collect();
        Some(Domain { known, fresh })
    }

    /// Every value an undefined location may start with.
    pub fn values(&self) -> impl Iterator<Item = i64> + '_ {
        self.known.iter().chain(&self.fresh).copied()
    }

    /// Whether `v` is one of the fresh values ("some other value").
    pub fn is_fresh(&self, v: i64) -> bool {
        self.fresh.contains(&v)
    }

    /// The initial-value assignments for a walk in which the undefined
    /// locations `relevant` matter (read, or named by the condition):
    /// each a full vector of initial values, one per location. Undefined
    /// locations outside `relevant` take the first fresh value. Canonical in
    /// the fresh values (see the module documentation).
    pub fn assignments(&self, program: &Program, relevant: &[usize]) -> Vec<Vec<i64>> {
        let first_fresh = self.fresh.first().copied().unwrap_or(0);
        let base: Vec<i64> = (0..program.locations.len())
            .map(|l| {
                if program.is_undefined(l) {
                    first_fresh
                } else {
                    program.initial_value(l)
                }
            })
            .collect();
        // (assignment, fresh values used so far)
        let mut out: Vec<(Vec<i64>, usize)> = vec![(base, 0)];
        for &l in relevant {
            let mut next = Vec::new();
            for (a, used) in out {
                for &k in &self.known {
                    let mut a2 = a.clone();
                    a2[l] = k;
                    next.push((a2, used));
                }
                for (j, &f) in self.fresh.iter().enumerate().take(used + 1) {
                    let mut a2 = a.clone();
                    a2[l] = f;
                    next.push((a2, used.max(j + 1)));
                }
            }
            out = next;
        }
        out.into_iter().map(|(a, _)| a).collect()
    }
}

/// At most this many fresh values: locations beyond it share them (the
/// equality patterns among more than this many undefined locations are
/// not all walked; docs/format-spirv.md says so).
pub const MAX_FRESH: usize = 4;

/// The undefined locations a condition names.
pub fn condition_locations(program: &Program) -> BTreeSet<usize> {
    fn go(e: &CondExpr, program: &Program, out: &mut BTreeSet<usize>) {
        let mut terms = Vec::new();
        e.terms(&mut terms);
        out.extend(terms.iter().filter_map(|t| match t {
            Term::Loc(l) if program.is_undefined(*l) => Some(*l),
            _ => None,
        }));
    }
    let mut out = BTreeSet::new();
    if let Some(c) = &program.condition {
        go(&c.expr, program, &mut out);
        if let Some(f) = &c.filter {
            go(f, program, &mut out);
        }
    }
    out
}

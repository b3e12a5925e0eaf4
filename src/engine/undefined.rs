//! Undefined initial values ([`Program::undefined`]): the finite value
//! domain that stands for "any value", and the initial-value assignments
//! the walk gives each combination of paths.
//!
//! Where undefined values come from. The Vulkan memory model appendix,
//! Allocation: "The values stored in newly allocated memory locations are
//! determined by a SPIR-V variable's initializer, if present, or else are
//! undefined"; SPIR-V, OpVariable: "If Initializer is present, it will be
//! the initial value of the variable's memory content". The `.spvasm`
//! front end marks the cells of variables with neither an Initializer nor
//! an `@Input` (docs/format-spirv.md, "Undefined initial values").
//! `OpUndef` (an undefined *intermediate* value, not memory) is not walked
//! over this domain: the front end lowers it as the constant 0 (one of the
//! values it may have; not done: a fresh location per use).
//!
//! A read of an undefined initial value may return any value. vkmm
//! enumerates a finite domain instead of all integers:
//!
//! - the *known* values `K`: every constant a branch of the program compares
//!   with, the initial values of the other locations, and the constants of
//!   the final condition and filter;
//! - *fresh* values, at most [`MAX_FRESH`], all distinct and greater than
//!   every known value: each stands for "some value outside `K`".
//!
//! **What the walk can and cannot get wrong.** Every assignment walked is a
//! concrete valuation of the undefined locations, so every execution the
//! walk finds is one the program has: a found `exists` witness, a `forall`
//! counterexample, a race, are real. The domain can only *miss*
//! valuations, so "no witness" (`exists` fails, `forall` holds, no race) is
//! certain only where the domain is complete.
//!
//! **Where it is complete.** Suppose the values read from undefined
//! locations are only copied (registers, stores, exchanges) and compared
//! with `==` / `!=` (branches, the condition, a compare-exchange's
//! comparison), against constants of `K` or against each other. Take any
//! bijection `pi` of the integers that fixes every value of `K`. Copying
//! commutes with `pi`, and `a == b` iff `pi(a) == pi(b)`, so the executions
//! under a valuation `s` and under `pi . s` are the same up to renaming the
//! values outside `K`. Every valuation is so renamed to one in the domain:
//! the values outside `K` to the fresh values, in the order the undefined
//! locations first take them (the assignments are canonical in that order,
//! [`Domain::assignments`]); at most [`MAX_FRESH`] distinct ones are
//! needed when at most that many locations are undefined, which the front
//! end guarantees (it leaves a program with more undefined cells at 0).
//!
//! **Where it is a sample, not a proof** (docs/format-spirv.md says so):
//!
//! - `K` holds the constants branches *compare* with, not the values
//!   stored or computed (nor a compare-exchange's expected value): a
//!   program that stores 5 to `x` and branches on
//!   `u == x` (`u` undefined) compares `u` with a value outside `K`, and the
//!   valuation `u = 5` is never walked. `pi` fixes only `K`, so it does not
//!   fix the stored 5 and the argument above does not apply.
//! - Arithmetic before a comparison: `u + 1 == 5` needs `u = 4`, outside
//!   `K` unless the program names it.
//! - Ordering comparisons (`<`, `<=`, `>`, `>=` in branches or in the
//!   condition): a bijection fixing `K` need not preserve order. The fresh
//!   values lie above every known value and are canonical in the order of
//!   first use, so values below or between the known ones, and undefined
//!   locations ordered against their first use, are not walked.
//!
//! **Programs without undefined locations** walk exactly as before:
//! [`Domain::of`] is `None`, so `Explorer::block` calls its body once with
//! no assignment, `Explorer::values_available` and `Skeleton::build_unlisted`
//! read the program's initial values, and `trace::explore` seeds the value
//! domains with them (`tests/differential/undefined.rs` compares whole
//! searches with the machinery bypassed, `Limits::undefined_values`).

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
    /// [`Domain::of`], or `None` when `limits` bypass undefined values
    /// ([`super::Limits::undefined_values`] off).
    pub fn for_search(program: &Program, limits: &super::limits::Limits) -> Option<Domain> {
        if limits.undefined_values {
            Domain::of(program)
        } else {
            None
        }
    }

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

/// At most this many fresh values ([`crate::ir::MAX_FRESH`], which the
/// front ends read too).
pub use crate::ir::MAX_FRESH;

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

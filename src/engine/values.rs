//! The values of a candidate execution whose paths keep some reads
//! symbolic through stores ([`super::Reduction::SymbolicStores`]).
//!
//! A path that reads a counter, adds one and writes it back does not split
//! per value of the read: the read stays symbolic, the store's value
//! is an expression of it ([`super::EventInfo::derived`]), and the
//! candidate execution's reads-from choices give the values. A read that
//! the path did fix (it branched on the value) may then read a derived
//! store only when the store's value in that candidate is the fixed one.
//!
//! Reads-from can close a cycle through derived stores (`r1 = x; y = r1 |
//! r2 = y; x = r2`): the values are then not determined by the choices.
//! The enumeration with concrete reads (the reference) gives such a read
//! each value of its location's domain and keeps the combinations that
//! agree around the cycle; so does [`resolve`]: it assumes each domain
//! value for a read on the cycle and keeps the assumptions that come back
//! unchanged, every read of such a candidate that the reference makes
//! concrete (its value reaches a derived store or an expression) inside
//! its location's domain, as the reference's concrete reads are. A read
//! whose value only reaches a register is symbolic in the reference too
//! and takes any value its write has: an assumed value may carry a write
//! past the domain (a fetch-add of the domain's largest value), and a later
//! load may read it. Without a cycle the values are
//! those of an acyclic chain of writes, which the domains contain already
//! (`trace::explore`: the domains are a fixpoint over every path's
//! writes).
//!
//! Written here because no crate evaluates this: it is the engine's own
//! representation of symbolic values.

use super::skeleton::Skeleton;
use super::trace::{RegValue, ValueExpr};
use std::ops::ControlFlow;

/// The value each event of a candidate reads and writes (`None`: not a
/// read, not a write, or an unknown value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    pub read: Vec<Option<i64>>,
    pub write: Vec<Option<i64>>,
    /// The value of each of the skeleton's expressions.
    pub exprs: Vec<Option<i64>>,
}

/// Whether some store of the skeleton is derived or some register an
/// expression: its candidates need [`resolve`].
pub fn needed(sk: &Skeleton) -> bool {
    !sk.exprs.is_empty() || sk.events.iter().any(|e| e.derived.is_some())
}

/// Calls `f` with the values of each candidate execution the reads-from
/// choices `rf_source` (one per read of `sk.reads`) make: one, none (a
/// read the path fixed reads a derived store of another value), or, on a
/// cycle of derived stores through reads-from, one per agreeing choice of
/// domain values (see the module doc).
pub fn resolve(
    sk: &Skeleton,
    rf_source: &[Option<usize>],
    f: &mut dyn FnMut(Values) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let n = sk.events.len();
    let mut source: Vec<Option<Option<usize>>> = vec![None; n];
    for (k, &r) in sk.reads.iter().enumerate() {
        source[r] = Some(rf_source[k]);
    }
    let Some(derivation) = sk.derivation.as_deref() else {
        return ControlFlow::Continue(());
    };
    let mut assumed: Vec<Option<i64>> = vec![None; n];
    solve(
        &Resolver {
            sk,
            source: &source,
            location: &derivation.locations,
            domains: &derivation.domains,
            concrete_in_reference: concrete_in_reference(sk),
        },
        &mut assumed,
        f,
    )
}

/// The value derived store `w` writes when only some reads have their
/// reads-from choice (`source`, per event: `Some(choice)` for an assigned
/// read): `None` when it depends on a read not assigned yet, or lies on a
/// cycle of derived stores. The reads-from search uses it to drop, as soon
/// as it is chosen, a read's choice of a derived store whose value its path
/// fixed otherwise ([`resolve`] would drop every candidate below).
pub fn partial_write_value(
    sk: &Skeleton,
    source: &[Option<Option<usize>>],
    w: usize,
) -> Option<i64> {
    let derivation = sk.derivation.as_deref()?;
    let r = Resolver {
        sk,
        source,
        location: &derivation.locations,
        domains: &derivation.domains,
        concrete_in_reference: Vec::new(),
    };
    let mut walk = Walk {
        r: &r,
        assumed: &[],
        read: vec![None; sk.events.len()],
        write: vec![None; sk.events.len()],
        expr: vec![None; sk.exprs.len()],
        busy: vec![false; sk.events.len()],
    };
    walk.write_value(w).ok().flatten()
}

struct Resolver<'a> {
    sk: &'a Skeleton,
    /// Per event: its reads-from choice, if it is a read.
    source: &'a [Option<Option<usize>>],
    location: &'a [Option<usize>],
    domains: &'a [Vec<i64>],
    /// Per event: whether the reference (the enumeration without
    /// [`super::Reduction::SymbolicStores`]) gives it a concrete value of
    /// its location's domain ([`concrete_in_reference`]).
    concrete_in_reference: Vec<bool>,
}

/// Per event: whether it is a read that the enumeration without symbolic
/// stores makes concrete, one path per value of its location's domain,
/// where this one keeps it symbolic: a read whose value reaches a derived
/// store or an expression (`trace::explore`: "A read's value is left
/// symbolic ... until something needs it concretely: a branch, a stored
/// value, a read-modify-write operand, local arithmetic"). A read the path
/// fixed is not one: its value is the path's, checked against its write.
fn concrete_in_reference(sk: &Skeleton) -> Vec<bool> {
    let mut used = vec![false; sk.events.len()];
    let mut mark = |t: RegValue| {
        if let RegValue::Read(e) = t
            && let Some(u) = used.get_mut(e)
        {
            *u = true;
        }
    };
    for e in &sk.events {
        if let Some(t) = e.derived {
            mark(t);
        }
    }
    for x in &sk.exprs {
        mark(x.a);
        mark(x.b);
    }
    for (u, e) in used.iter_mut().zip(&sk.events) {
        *u &= e.read_value.is_none();
    }
    used
}

/// The values under the assumptions made so far, or the first read found
/// on a cycle of derived stores (then assumed, one domain value at a time).
fn solve(
    r: &Resolver,
    assumed: &mut Vec<Option<i64>>,
    f: &mut dyn FnMut(Values) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut walk = Walk {
        r,
        assumed,
        read: vec![None; r.sk.events.len()],
        write: vec![None; r.sk.events.len()],
        expr: vec![None; r.sk.exprs.len()],
        busy: vec![false; r.sk.events.len()],
    };
    let cycle = (0..r.sk.events.len())
        .map(|e| {
            walk.read_value(e)?;
            walk.write_value(e)
        })
        .find_map(|x| x.err());
    let Walk { read, write, .. } = walk;
    if let Some(e) = cycle {
        let values = r.location[e].map_or(&[][..], |l| &r.domains[l][..]);
        for &v in values {
            assumed[e] = Some(v);
            let flow = solve(r, assumed, f);
            assumed[e] = None;
            flow?;
        }
        return ControlFlow::Continue(());
    }
    let read: Vec<Option<i64>> = read.into_iter().map(|v| v.flatten()).collect();
    let write: Vec<Option<i64>> = write.into_iter().map(|v| v.flatten()).collect();
    // A read's value is that of the write it reads: the paths' fixed values
    // and the assumptions must agree with it.
    let from_source = |e: usize| match r.source[e] {
        Some(None) => r.location[e].map(|l| r.sk.initial[l]),
        Some(Some(w)) => write[w],
        None => None,
    };
    let disagrees = (0..r.sk.events.len()).any(|e| {
        let fixed = r.sk.events[e].read_value.or(assumed[e]);
        r.source[e].is_some() && fixed.is_some_and(|v| from_source(e) != Some(v))
    });
    if disagrees {
        return ControlFlow::Continue(());
    }
    // Under an assumption, every read the reference makes concrete inside
    // its location's domain (the reference's concrete reads range over the
    // domains). A read the reference leaves symbolic too (its value only
    // reaches a final register, or a path fixed it) takes any value its
    // write has, inside the domain or not: an assumed value may let a
    // write leave the domain (an increment of the domain's largest value).
    let outside = |e: usize| match (read[e], r.location[e], r.source[e]) {
        (Some(v), Some(l), Some(_)) if r.concrete_in_reference[e] => {
            r.domains[l].binary_search(&v).is_err()
        }
        _ => false,
    };
    if assumed.iter().any(Option::is_some) && (0..r.sk.events.len()).any(outside) {
        return ControlFlow::Continue(());
    }
    let exprs = super::trace::expr_values(&r.sk.exprs, &|e| read[e]);
    f(Values { read, write, exprs })
}

/// One evaluation of the values under fixed assumptions: each read, write
/// and expression computed once (`Some(value)`; `Some(None)`: unknown).
struct Walk<'a, 'r> {
    r: &'a Resolver<'r>,
    assumed: &'a [Option<i64>],
    read: Vec<Option<Option<i64>>>,
    write: Vec<Option<Option<i64>>>,
    expr: Vec<Option<Option<i64>>>,
    /// Reads whose value is being computed: met again, a cycle.
    busy: Vec<bool>,
}

impl Walk<'_, '_> {
    /// The value event `e` reads; `Err(e)` when it lies on a cycle of
    /// derived stores.
    fn read_value(&mut self, e: usize) -> Result<Option<i64>, usize> {
        if let Some(v) = self.read[e] {
            return Ok(v);
        }
        let ev = &self.r.sk.events[e];
        let v = if let Some(v) = ev.read_value.or(self.assumed.get(e).copied().flatten()) {
            Some(v)
        } else {
            match self.r.source[e] {
                None => None,
                Some(None) => self.r.location[e].map(|l| self.r.sk.initial[l]),
                Some(Some(w)) => {
                    if self.busy[e] {
                        return Err(e);
                    }
                    self.busy[e] = true;
                    let v = self.write_value(w);
                    self.busy[e] = false;
                    v?
                }
            }
        };
        self.read[e] = Some(v);
        Ok(v)
    }

    /// The value event `w` writes.
    fn write_value(&mut self, w: usize) -> Result<Option<i64>, usize> {
        if let Some(v) = self.write[w] {
            return Ok(v);
        }
        let ev = &self.r.sk.events[w];
        let v = match (ev.write_value, ev.derived) {
            (Some(v), _) => Some(v),
            (None, Some(t)) => self.term(t)?,
            (None, None) => None,
        };
        self.write[w] = Some(v);
        Ok(v)
    }

    fn term(&mut self, t: RegValue) -> Result<Option<i64>, usize> {
        match t {
            RegValue::Const(c) => Ok(Some(c)),
            RegValue::Read(e) => self.read_value(e),
            RegValue::Expr(k) => {
                if let Some(v) = self.expr[k] {
                    return Ok(v);
                }
                let ValueExpr { op, a, b } = self.r.sk.exprs[k];
                let v = match (self.term(a)?, self.term(b)?) {
                    (Some(a), Some(b)) => Some(op.apply(a, b)),
                    _ => None,
                };
                self.expr[k] = Some(v);
                Ok(v)
            }
        }
    }
}

impl Values {
    /// The value of a register's term in the candidate (0 where unknown,
    /// as for a read of an unknown value).
    pub fn term(&self, t: RegValue) -> i64 {
        super::trace::term_value(&self.exprs, t, &|e| self.read[e]).unwrap_or(0)
    }
}

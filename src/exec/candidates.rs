//! The choices of a candidate execution: reads-from (constrained by the
//! values a test pins) and scoped modification orders over mutually-ordered
//! atomic writes; and the walk over their cartesian product.

use super::base::Facts;
use super::{EventRef, ExecError, Limits, Skeleton};
use crate::cat::Env;
use crate::program::Program;
use crate::relation::{EventSet, Relation};
use std::collections::HashSet;
use std::ops::ControlFlow;

/// One candidate execution.
pub struct Candidate {
    /// For each read of the skeleton (same order as `Skeleton::reads`): the
    /// write it reads from, `None` for the initial value.
    pub rf_source: Vec<Option<usize>>,
    /// The dynamic base names: `rf`, `asmo` (also as `co`), `RFINIT`.
    pub env: Env,
}

impl Candidate {
    pub fn rf(&self) -> Relation {
        match self.env.get("rf") {
            Some(crate::cat::Value::Rel(r)) => r.clone(),
            _ => unreachable!("candidates always bind rf"),
        }
    }
}

pub(crate) fn rf_choices(
    _program: &Program,
    events: &[EventRef],
    f: &Facts,
) -> (Vec<usize>, Vec<Vec<Option<usize>>>) {
    let n = events.len();
    let reads: Vec<usize> = (0..n).filter(|&e| f.is_read[e]).collect();
    let choices = reads
        .iter()
        .map(|&r| {
            let mut c: Vec<Option<usize>> = Vec::new();
            let init_ok = match f.read_value[r] {
                Some(v) => v == 0,
                None => true,
            };
            if init_ok {
                c.push(None);
            }
            for w in 0..n {
                if w != r
                    && f.is_write[w]
                    && f.location[w] == f.location[r]
                    && match f.read_value[r] {
                        Some(v) => f.write_value[w] == Some(v),
                        None => true,
                    }
                {
                    c.push(Some(w));
                }
            }
            c
        })
        .collect();
    (reads, choices)
}

pub(crate) fn asmo_choices(
    events: &[EventRef],
    f: &Facts,
    limits: Limits,
) -> Result<Vec<Vec<Relation>>, ExecError> {
    let n = events.len();
    let mut locations: Vec<usize> = (0..n)
        .filter(|&e| f.atomic[e] && f.is_write[e])
        .filter_map(|e| f.location[e])
        .collect();
    locations.sort_unstable();
    locations.dedup();
    let mut out = Vec::new();
    for loc in locations {
        let writes: Vec<usize> = (0..n)
            .filter(|&e| f.atomic[e] && f.is_write[e] && f.location[e] == Some(loc))
            .collect();
        if writes.len() > limits.max_writes_per_location {
            return Err(ExecError {
                message: format!(
                    "{} atomic writes to one location: more than the {} whose orders vkmm enumerates",
                    writes.len(),
                    limits.max_writes_per_location
                ),
            });
        }
        let mutually_ordered =
            |a: usize, b: usize| f.reference[a] == f.reference[b] && f.inscope.contains(a, b);
        let mut seen = HashSet::new();
        let mut orders = Vec::new();
        let mut perm = writes.clone();
        permutations(&mut perm, 0, &mut |p| {
            let mut r = Relation::empty(n);
            for i in 0..p.len() {
                for j in i + 1..p.len() {
                    if mutually_ordered(p[i], p[j]) {
                        r.insert(p[i], p[j]);
                    }
                }
            }
            if r.is_transitive() && seen.insert(r.clone()) {
                orders.push(r);
            }
        });
        out.push(orders);
    }
    Ok(out)
}

fn permutations(v: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
    if k == v.len() {
        f(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permutations(v, k + 1, f);
        v.swap(k, i);
    }
}

pub(crate) fn for_each(s: &Skeleton, mut f: impl FnMut(&Candidate) -> ControlFlow<()>) {
    let n = s.universe();
    if s.rf_choices.iter().any(|c| c.is_empty()) {
        return;
    }
    let dims: Vec<usize> = s
        .rf_choices
        .iter()
        .map(|c| c.len())
        .chain(s.asmo_choices.iter().map(|c| c.len()))
        .collect();
    let mut idx = vec![0usize; dims.len()];
    let nr = s.rf_choices.len();
    loop {
        let rf_source: Vec<Option<usize>> = (0..nr).map(|i| s.rf_choices[i][idx[i]]).collect();
        let mut rf = Relation::empty(n);
        let mut init = EventSet::empty(n);
        for (i, src) in rf_source.iter().enumerate() {
            match src {
                Some(w) => rf.insert(*w, s.reads[i]),
                None => init.insert(s.reads[i]),
            }
        }
        let mut asmo = Relation::empty(n);
        for (k, choices) in s.asmo_choices.iter().enumerate() {
            asmo.union_with(&choices[idx[nr + k]]);
        }
        let mut env = Env::new(n);
        env.rel("rf", rf);
        env.rel("co", asmo.clone());
        env.rel("asmo", asmo);
        env.set("RFINIT", init);
        if f(&Candidate { rf_source, env }).is_break() {
            return;
        }
        // odometer
        let mut d = 0;
        loop {
            if d == dims.len() {
                return;
            }
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
            d += 1;
        }
    }
}

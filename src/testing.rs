//! **Unstable**: the engine, the cat interpreter and the relation algebra,
//! for vkmm's own tests, benchmarks and the playground's tests, and the
//! counting of executions the differential tests compare searches by.
//! Nothing here is part of vkmm's interface: names move or change without
//! notice. Library users go through the facade ([`crate::Session`]) and
//! the public modules.
//!
//! It stands above the analyses and the engine and imports both: the
//! counting reads final values as the litmus analysis does, which the
//! engine, below the analyses, does not name.

use crate::analysis::litmus::{final_memory, reg_value};
use crate::cat::Evaluation;
use crate::engine::driver::{self, CheckError, Coverage, Visitor};
use crate::engine::{Candidate, Limits, Skeleton, grow};
use crate::ir::Program;
use crate::model::LoadedModel;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// The search over candidate executions (`crate::engine`'s public names).
pub mod engine {
    pub use crate::engine::*;
}
/// The cat language: parser, interpreter, values.
pub mod cat {
    pub use crate::cat::*;
}
/// Bit-matrix relations and sets.
pub mod relation {
    pub use crate::relation::*;
}

/// Test support: the consistent executions one search finds, counted by
/// what tells them apart — each thread's final registers, each shown or
/// written location's final values and the flags the model raises — with
/// how many executions have a cycle in program order and reads-from (and
/// are left out of the counts when `acyclic_only`). The differential
/// tests compare the execution-graph search (`grow`) with the reference
/// enumeration (`Limits::reference`) through it.
pub fn execution_counts(
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    grow: bool,
    acyclic_only: bool,
) -> Result<Counts, CheckError> {
    let mut v = Counter {
        program,
        acyclic_only,
        counts: Counts::default(),
    };
    let options = grow::Options {
        check_duplicates: true,
    };
    let coverage = if grow {
        let (c, s) = grow::explore_with_stats(program, loaded, limits, &mut v, None, options)?;
        v.counts.stats = Some(s);
        c
    } else {
        driver::enumerate(program, loaded, limits, &mut v, None)?
    };
    v.counts.coverage = coverage;
    Ok(v.counts)
}

/// What [`execution_counts`] found.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// The consistent executions, by final registers, final memory and
    /// flags raised.
    pub states: BTreeMap<String, u64>,
    /// Consistent executions with a cycle in program order and reads-from.
    pub cyclic: u64,
    /// How far the search went.
    pub coverage: Coverage,
    /// What the execution-graph search did (`None` for the reference).
    pub stats: Option<grow::Stats>,
}

/// The visitor of [`execution_counts`].
struct Counter<'p> {
    program: &'p Program,
    acyclic_only: bool,
    counts: Counts,
}

/// Whether program order and reads-from have a cycle in `c`.
fn porf_cyclic(sk: &Skeleton, c: &Candidate) -> bool {
    let n = sk.events.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for e in 1..n {
        if sk.events[e - 1].thread == sk.events[e].thread {
            succ[e - 1].push(e);
        }
    }
    for (k, &r) in sk.reads.iter().enumerate() {
        if let Some(w) = c.rf_source[k] {
            succ[w].push(r);
        }
    }
    // Kahn's algorithm: a cycle leaves events with predecessors.
    let mut preds = vec![0usize; n];
    for s in &succ {
        for &b in s {
            preds[b] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&e| preds[e] == 0).collect();
    let mut done = 0;
    while let Some(e) = ready.pop() {
        done += 1;
        for &b in &succ[e] {
            preds[b] -= 1;
            if preds[b] == 0 {
                ready.push(b);
            }
        }
    }
    done < n
}

impl Visitor for Counter<'_> {
    fn visit(
        &mut self,
        sk: &Skeleton,
        c: &Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        if !eval.consistent() {
            return Ok(ControlFlow::Continue(()));
        }
        if porf_cyclic(sk, c) {
            self.counts.cyclic += 1;
            if self.acyclic_only {
                return Ok(ControlFlow::Continue(()));
            }
        }
        let program = self.program;
        let mut key = String::new();
        for (t, regs) in sk.registers.iter().enumerate() {
            for (r, _) in regs {
                let v = reg_value(sk, c, t, r, program);
                key.push_str(&format!("{t}:{r}={v} "));
            }
        }
        let locations: Vec<usize> = (0..program.locations.len()).collect();
        let memory = final_memory(sk, c, eval, program, &locations, None);
        for (l, vals) in memory.iter().enumerate() {
            key.push_str(&format!("{}={vals:?} ", program.locations[l]));
        }
        for check in eval.checks.iter().filter(|k| k.flag && k.passed) {
            key.push_str(&format!("flag:{} ", check.name));
        }
        *self.counts.states.entry(key).or_default() += sk.multiplicity();
        Ok(ControlFlow::Continue(()))
    }
}

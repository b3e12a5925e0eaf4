//! Candidate executions of a program.
//!
//! A program's events are its instructions (one event per executed
//! instruction). [`Skeleton::build`] computes everything that does not depend
//! on the execution — the static base sets and relations handed to a model —
//! and the choices an execution makes: which write each read reads from (or
//! the initial value), allowed by the program's value constraints, and a
//! scoped modification order per location. [`Skeleton::for_each`] walks the
//! cartesian product of those choices.

mod base;
mod candidates;

pub use base::{EventRef, scope_set_name};
pub use candidates::Candidate;

use crate::cat::Env;
use crate::program::Program;
use crate::relation::Relation;
use std::ops::ControlFlow;

/// A program that cannot be turned into executions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    pub message: String,
}

/// Limits that keep enumeration bounded.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most atomic writes to one location whose orders are enumerated
    /// (orders grow as the factorial of this number).
    pub max_writes_per_location: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_writes_per_location: 8,
        }
    }
}

/// The execution-independent part of a program's executions.
pub struct Skeleton {
    /// Event `i` is instruction `events[i].index` of thread `events[i].thread`.
    pub events: Vec<EventRef>,
    /// The static base sets and relations (see MODELS.md).
    pub static_env: Env,
    /// Read events, in event order.
    pub reads: Vec<usize>,
    /// For each read (same order as `reads`): the writes it may read from,
    /// `None` standing for the initial value.
    pub rf_choices: Vec<Vec<Option<usize>>>,
    /// For each location with atomic writes: the possible scoped modification orders.
    pub asmo_choices: Vec<Vec<Relation>>,
}

impl Skeleton {
    /// Computes the static relations and the choices of `program`.
    pub fn build(program: &Program, limits: Limits) -> Result<Skeleton, ExecError> {
        let (events, static_env, facts) = base::static_env(program)?;
        let (reads, rf_choices) = candidates::rf_choices(program, &events, &facts);
        let asmo_choices = candidates::asmo_choices(&events, &facts, limits)?;
        Ok(Skeleton {
            events,
            static_env,
            reads,
            rf_choices,
            asmo_choices,
        })
    }

    /// Number of events.
    pub fn universe(&self) -> usize {
        self.events.len()
    }

    /// The number of candidate executions (product of the choices).
    pub fn candidate_count(&self) -> u128 {
        let rf: u128 = self.rf_choices.iter().map(|c| c.len() as u128).product();
        let mo: u128 = self.asmo_choices.iter().map(|c| c.len() as u128).product();
        rf.saturating_mul(mo)
    }

    /// Calls `f` on every candidate execution until it breaks.
    pub fn for_each(&self, f: impl FnMut(&Candidate) -> ControlFlow<()>) {
        candidates::for_each(self, f)
    }
}

#[cfg(test)]
mod tests;

//! What checking one file produced, whichever question was asked.

use super::litmus::LitmusOutcome;
use super::queries::{Answer, TestOutcome};
use super::termination;

/// What checking one file produced.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Checked {
    /// The answers to a `.test` file's queries.
    Queries(TestOutcome),
    /// The herd-style outcome of a litmus test.
    Litmus(Box<LitmusOutcome>),
    /// Whether a litmus test terminates under a progress model.
    Termination(Box<termination::TerminationOutcome>),
}

impl Checked {
    /// Whether every answer is decided: no walk stopped at a limit before
    /// listing every state, and no verdict depends on executions the loop
    /// unrolling bound cut (`cut_paths`) or the limit left unseen.
    pub fn complete(&self) -> bool {
        match self {
            Checked::Queries(o) => o.queries.iter().all(|q| q.actual != Answer::Undecided),
            Checked::Litmus(o) => o.complete(),
            Checked::Termination(o) => o.complete(),
        }
    }

    /// The limit that stopped the search, where one did and the answer
    /// names it.
    pub fn stopped_by(&self) -> Option<crate::engine::LimitKind> {
        match self {
            Checked::Queries(_) => None,
            Checked::Litmus(o) => o.stopped_by,
            Checked::Termination(o) => o.stopped_by,
        }
    }

    /// The front end's warnings about the file.
    pub fn warnings(&self) -> &[crate::frontend::FrontendWarning] {
        match self {
            Checked::Queries(o) => &o.warnings,
            Checked::Litmus(o) => &o.warnings,
            Checked::Termination(o) => &o.warnings,
        }
    }

    /// Attaches the front end's warnings about the file.
    pub fn with_warnings(mut self, w: &[crate::frontend::FrontendWarning]) -> Checked {
        let slot = match &mut self {
            Checked::Queries(o) => &mut o.warnings,
            Checked::Litmus(o) => &mut o.warnings,
            Checked::Termination(o) => &mut o.warnings,
        };
        slot.extend_from_slice(w);
        self
    }

    /// The file the result is about.
    pub fn file(&self) -> &str {
        match self {
            Checked::Queries(o) => &o.file,
            Checked::Litmus(o) => &o.file,
            Checked::Termination(o) => &o.file,
        }
    }
}

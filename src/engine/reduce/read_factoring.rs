//! [`Reduction::ReadFactoring`]: the reads-from choices of observation
//! reads are searched location by location and handed to a visitor that
//! takes them as a product (`choices::observation_reads`, which reads
//! are observation reads; MODELS.md, `location-local-reads`).
//!
//! It applies where the model declares `location-local-reads` and nothing
//! in the program lets a read's choice reach beyond its location: no
//! termination search (endings), no shader-to-shader writes, pipeline
//! stages, generated values, out-of-bounds sites, host threads or host
//! operations, fragment invocations (interlock) or group functions.

use super::hook::{CandidatePlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::ir::Program;

pub(super) struct ReadFactoringHook;

impl Hook for ReadFactoringHook {
    fn reduction(&self) -> Reduction {
        Reduction::ReadFactoring
    }

    fn on_candidates(&self, program: &Program, limits: &Limits, plan: &mut CandidatePlan) {
        plan.read_factoring = limits.profile.location_local_reads
            && !limits.endings
            && program.ssw.is_empty()
            && program.stages.is_empty()
            && program.generates.is_empty()
            && program.out_of_bounds.is_empty()
            && program.host.is_empty()
            && (0..program.threads.len()).all(|t| !program.host.agent(t).is_host())
            && program
                .threads
                .iter()
                .all(|t| t.fragment.is_none() && t.instructions().all(|i| !i.is_group_function()));
    }
}

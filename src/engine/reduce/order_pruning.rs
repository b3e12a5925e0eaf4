//! [`Reduction::OrderPruning`]: under each combination of coherence (and
//! SC) orders the checks monotone in `rf` are asked once with only the
//! forced reads assigned (for every model), and the orders the model's
//! declared coherence facts rule out are not listed
//! ([`crate::model::SearchProfile`]: `read-write-coherence`,
//! `write-write-coherence`, and `co-write-write-coherence` under a total
//! `co`; MODELS.md states each fact and the rule it rests on).

use super::hook::{Hook, OrderPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct OrderPruningHook;

impl Hook for OrderPruningHook {
    fn reduction(&self) -> Reduction {
        Reduction::OrderPruning
    }

    fn on_orders(&self, limits: &Limits, plan: &mut OrderPlan) {
        let p = &limits.profile;
        plan.order_pruning = true;
        plan.coherence_pairs = p.read_write_coherence;
        plan.write_pairs = p.write_write_coherence;
        plan.sequenced_writes = p.total_co && p.co_write_write_coherence != 0;
    }
}

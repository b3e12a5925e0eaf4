//! How far an RMW chain is from being closed, decided on partial
//! combinations of paths (the pruned walk over combinations,
//! `Explorer::block_pruned` in `explorer.rs`, asks [`ChainFlow::holds`]).
//!
//! On an RMW-chain location (`explorer::rmw_chain_locations`) each write,
//! and the initial value, is read by at most one RMW (the walk's
//! `PrunedWalk::rmw_chains` count, whose argument is there). Number the
//! (location, value) pairs some RMW of the block reads. For a combination
//! of paths let the *balance* of a pair be the writes of it plus one for
//! the initial value minus the RMWs reading it: every complete combination
//! with an execution has no negative balance. A partial combination (the
//! threads `t..` chosen) may have some; the threads still to choose must
//! then make them up, and on a location whose only writes (in every path
//! of the block) are RMWs reading a concrete value, they can only do so
//! with RMWs:
//!
//! An RMW reading pair `a` and writing the value of pair `b` is an edge
//! `a -> b`; it lowers `a`'s balance by one and raises `b`'s by one. Take
//! the edges F that the RMWs of a completion's threads still to choose
//! add. Decomposed into edge-disjoint paths and cycles (the standard
//! decomposition of a multigraph by its net flow), a pair whose balance
//! goes up by `d` ends at least `d` of those paths, and a path starts at a
//! pair whose balance goes down, which must have had a positive balance
//! already (it ends non-negative). Cycles change no balance. So a partial
//! combination has a completion only if, per such location:
//!
//! - every pair `v` of negative balance `-d` is reached from a pair of
//!   positive balance by edges of the block's RMWs (any thread's: a
//!   superset of the completion's), and the positive balances of the pairs
//!   reaching it add up to at least `d` (each path from `u` lowers `u`'s
//!   balance by one);
//! - the negative balances add up to no more than the positive balances of
//!   the pairs reaching some pair of negative balance;
//! - the sum over pairs of negative balance of `d` times the fewest edges
//!   from a pair of positive balance to it is at most the RMWs the threads
//!   still to choose can make on the location (each the most of any of its
//!   block paths): the paths are edge-disjoint, and each is an RMW.
//!
//! Each condition is necessary, so the walk drops only partial
//! combinations none of whose completions the complete test passes (the
//! same complete combinations reach the search; `tests.rs` checks that on
//! every partial combination of small programs). With the fetch-add chain
//! of an N-thread barrier or ticket lock (each RMW reading `v` writes
//! `v + 1`) a partial combination whose RMWs read `v` with `v - 1` neither
//! written nor the initial value needs one RMW per missing value below it,
//! and is dropped at the first thread whose choice makes that too many.

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::engine::trace::path::{PathEvent, ThreadPaths};
use crate::ir::Program;
use std::collections::HashMap;

/// The hook: the pruned walk checks the balances of RMW chains.
pub(super) struct ChainFlowHook;

impl Hook for ChainFlowHook {
    fn reduction(&self) -> Reduction {
        Reduction::ChainFlow
    }

    fn on_combinations(&self, _program: &Program, _limits: &Limits, plan: &mut CombinationPlan) {
        plan.chain_flow = true;
    }
}

/// Which events are RMWs on an RMW-chain location: the (location,
/// value) pair read (as the pruned walk numbers them).
pub(super) type RmwEvent<'a> = dyn Fn(usize, &PathEvent) -> Option<(usize, i64)> + 'a;

/// The RMW-chain locations whose balances the walk checks, for one block
/// ([`ChainFlow::of`]).
pub(in crate::engine) struct ChainFlow {
    /// Per checked location: its pairs (numbers of the pruned walk's RMW
    /// pairs).
    pairs: Vec<Vec<usize>>,
    /// Per pair, per pair: the fewest RMW edges leading from the first to
    /// the second (`u32::MAX`: none).
    dist: Vec<Vec<u32>>,
    /// Per level `t`, per checked location: the most RMWs on it the threads
    /// before `t` (those still to choose) can make.
    capacity: Vec<Vec<usize>>,
}

/// The most pairs of positive balance [`ChainFlow::holds`] keeps on the
/// stack per location; a location with more is decided by
/// `holds_plain` (the unit tests' oracle).
const POSITIVES: usize = 32;

impl ChainFlow {
    /// Whether every checked location's balances can still be made up by
    /// the threads before `t` (the module's conditions): `read`, `written`
    /// and `initial` per pair as the pruned walk counts them.
    ///
    /// The pairs of positive balance are listed once per location (on the
    /// stack), and each pair of negative balance looks only at them: the
    /// conditions of `holds_plain` (the unit tests' oracle), which scans every pair
    /// per pair (kept as the oracle of `tests::holds_agrees_with_plain`;
    /// it was 7% of barrier-flags-7's instructions).
    pub(in crate::engine) fn holds(
        &self,
        t: usize,
        read: &[usize],
        written: &[usize],
        initial: &[usize],
    ) -> bool {
        let balance = |p: usize| (written[p] + initial[p]) as isize - read[p] as isize;
        for (k, pairs) in self.pairs.iter().enumerate() {
            let mut positives = [(0usize, 0usize); POSITIVES];
            let mut count = 0;
            let mut negative = false;
            for &u in pairs {
                let b = balance(u);
                if b > 0 {
                    if count == POSITIVES {
                        if !self.location_holds(t, k, &balance) {
                            return false;
                        }
                        count = usize::MAX;
                        break;
                    }
                    positives[count] = (u, b as usize);
                    count += 1;
                } else if b < 0 {
                    negative = true;
                }
            }
            if count == usize::MAX || !negative {
                continue;
            }
            let positives = &positives[..count];
            // Which positives reach some pair of negative balance.
            let mut reaching = 0u64;
            let (mut cost, mut missing) = (0usize, 0usize);
            for &v in pairs {
                let b = balance(v);
                if b >= 0 {
                    continue;
                }
                let d = (-b) as usize;
                let mut nearest = u32::MAX;
                let mut supply = 0usize;
                for (i, &(u, s)) in positives.iter().enumerate() {
                    let dist = self.dist[u][v];
                    if dist != u32::MAX {
                        nearest = nearest.min(dist);
                        supply += s;
                        reaching |= 1 << i;
                    }
                }
                if nearest == u32::MAX || supply < d {
                    return false;
                }
                cost += d * nearest as usize;
                missing += d;
            }
            if cost > self.capacity[t][k] {
                return false;
            }
            let supply: usize = positives
                .iter()
                .enumerate()
                .filter(|&(i, _)| reaching & (1 << i) != 0)
                .map(|(_, &(_, s))| s)
                .sum();
            if missing > supply {
                return false;
            }
        }
        true
    }

    /// [`ChainFlow::holds`] by scanning every pair per pair of negative
    /// balance.
    #[cfg(test)]
    pub(in crate::engine) fn holds_plain(
        &self,
        t: usize,
        read: &[usize],
        written: &[usize],
        initial: &[usize],
    ) -> bool {
        let balance = |p: usize| (written[p] + initial[p]) as isize - read[p] as isize;
        (0..self.pairs.len()).all(|k| self.location_holds(t, k, &balance))
    }

    /// The conditions on location `k`, every pair scanned per pair of
    /// negative balance.
    fn location_holds(&self, t: usize, k: usize, balance: &dyn Fn(usize) -> isize) -> bool {
        let pairs = &self.pairs[k];
        let mut cost = 0usize;
        let mut missing = 0usize;
        let mut any = false;
        for &v in pairs {
            let b = balance(v);
            if b >= 0 {
                continue;
            }
            any = true;
            let d = (-b) as usize;
            let mut nearest = u32::MAX;
            let mut supply = 0usize;
            for &u in pairs {
                let s = balance(u);
                if s > 0 && self.dist[u][v] != u32::MAX {
                    nearest = nearest.min(self.dist[u][v]);
                    supply += s as usize;
                }
            }
            if nearest == u32::MAX || supply < d {
                return false;
            }
            cost += d * nearest as usize;
            missing += d;
        }
        if !any {
            return true;
        }
        if cost > self.capacity[t][k] {
            return false;
        }
        let supply: usize = pairs
            .iter()
            .filter(|&&u| {
                balance(u) > 0
                    && pairs
                        .iter()
                        .any(|&v| balance(v) < 0 && self.dist[u][v] != u32::MAX)
            })
            .map(|&u| balance(u) as usize)
            .sum();
        missing <= supply
    }
}

impl ChainFlow {
    /// The [`ChainFlow`] of `block` (per thread, the numbers of its paths in
    /// `threads` the walk combines), given the RMW pairs the walk numbered
    /// (`rmw_ids`) and which events are RMWs on an RMW-chain location
    /// (`rmw_event`: the pair read); `None` when no location qualifies
    /// (every write to it, in every path of the block, is such an RMW).
    pub(in crate::engine) fn of(
        program: &Program,
        threads: &[ThreadPaths],
        block: &[Vec<usize>],
        rmw_ids: &HashMap<(usize, i64), usize>,
        rmw_event: &RmwEvent,
    ) -> Option<ChainFlow> {
        if rmw_ids.is_empty() {
            return None;
        }
        let n = rmw_ids.len();
        // The checked locations: some pair is on them, and no other write.
        let mut checked: Vec<usize> = rmw_ids.keys().map(|&(l, _)| l).collect();
        checked.sort_unstable();
        checked.dedup();
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (t, ps) in block.iter().enumerate() {
            for &p in ps {
                for e in &threads[t].paths[p].events {
                    let Some(l) = e.location(program, t) else {
                        continue;
                    };
                    match rmw_event(t, e) {
                        Some(pair) => {
                            if let Some(&b) = e.write.and_then(|w| rmw_ids.get(&(l, w))) {
                                edges[rmw_ids[&pair]].push(b);
                            }
                        }
                        None if e.writes || e.write.is_some() || e.derived.is_some() => {
                            checked.retain(|&c| c != l);
                        }
                        None => {}
                    }
                }
            }
        }
        if checked.is_empty() {
            return None;
        }
        let mut pairs = vec![Vec::new(); checked.len()];
        for (&(l, _), &id) in rmw_ids {
            if let Ok(k) = checked.binary_search(&l) {
                pairs[k].push(id);
            }
        }
        for p in &mut pairs {
            p.sort_unstable();
        }
        // Breadth-first from each pair.
        let dist: Vec<Vec<u32>> = (0..n)
            .map(|a| {
                let mut d = vec![u32::MAX; n];
                d[a] = 0;
                let mut queue = std::collections::VecDeque::from([a]);
                while let Some(x) = queue.pop_front() {
                    for &y in &edges[x] {
                        if d[y] == u32::MAX {
                            d[y] = d[x] + 1;
                            queue.push_back(y);
                        }
                    }
                }
                d
            })
            .collect();
        let capacity = best_below(block.len(), checked.len(), |t| {
            block[t]
                .iter()
                .map(|&p| {
                    let mut here = vec![0usize; checked.len()];
                    for e in &threads[t].paths[p].events {
                        if let Some((l, _)) = rmw_event(t, e)
                            && let Ok(k) = checked.binary_search(&l)
                        {
                            here[k] += 1;
                        }
                    }
                    here
                })
                .collect()
        });
        Some(ChainFlow {
            pairs,
            dist,
            capacity,
        })
    }
}

/// Per level `t` of the pruned walk over a block (threads `..t` still to
/// choose), per key: the most the threads before `t` can make together,
/// each on its best path for that key. `paths(u)`: thread `u`'s count per
/// key on each of its block paths. (The walk's own count of RMW reads
/// uses it too.)
pub(in crate::engine) fn best_below(
    threads: usize,
    width: usize,
    mut paths: impl FnMut(usize) -> Vec<Vec<usize>>,
) -> Vec<Vec<usize>> {
    let mut below = vec![vec![0usize; width]; threads];
    for t in 1..threads {
        let mut most = below[t - 1].clone();
        let mut best = vec![0usize; width];
        for counts in paths(t - 1) {
            for (b, k) in best.iter_mut().zip(counts) {
                *b = (*b).max(k);
            }
        }
        for (m, b) in most.iter_mut().zip(best) {
            *m += b;
        }
        below[t] = most;
    }
    below
}

#[cfg(test)]
mod tests {
    use super::ChainFlow;

    /// `holds` against `holds_plain` on random flows: up to three
    /// locations of up to 90 pairs (beyond the 32 positives kept on the
    /// stack), random distances (a third unreachable), capacities and
    /// balances. Both answers occur.
    #[test]
    fn holds_agrees_with_plain() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        let (mut yes, mut no) = (0, 0);
        for _ in 0..20_000 {
            let locations = 1 + next(3);
            let mut pairs = Vec::new();
            let mut total = 0;
            for _ in 0..locations {
                let most = if next(10) == 0 { 90 } else { 8 };
                let n = 1 + next(most);
                pairs.push((total..total + n).collect::<Vec<_>>());
                total += n;
            }
            let dist: Vec<Vec<u32>> = (0..total)
                .map(|_| {
                    (0..total)
                        .map(|_| match next(3) {
                            0 => u32::MAX,
                            _ => 1 + next(4) as u32,
                        })
                        .collect()
                })
                .collect();
            let levels = 3;
            let capacity: Vec<Vec<usize>> = (0..levels)
                .map(|_| (0..locations).map(|_| next(12)).collect())
                .collect();
            let flow = ChainFlow {
                pairs,
                dist,
                capacity,
            };
            let read: Vec<usize> = (0..total).map(|_| next(3)).collect();
            let written: Vec<usize> = (0..total)
                .map(|_| {
                    let most = if next(4) == 0 { 4 } else { 2 };
                    next(most)
                })
                .collect();
            let initial: Vec<usize> = (0..total).map(|_| usize::from(next(5) == 0)).collect();
            let t = next(levels);
            let fast = flow.holds(t, &read, &written, &initial);
            assert_eq!(fast, flow.holds_plain(t, &read, &written, &initial));
            if fast {
                yes += 1;
            } else {
                no += 1;
            }
        }
        assert!(yes > 100 && no > 100, "{yes} hold, {no} do not");
    }
}

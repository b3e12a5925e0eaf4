//! The reductions by name ([`Reduction`]), what each needs of the model
//! ([`Requires`]), and sets of them ([`Reductions`]). A leaf: the limits a
//! search runs under hold a set, and every stage reads it through the
//! hooks ([`crate::engine::reduce::hook`]), each reduction's in its own
//! file of `crate::engine::reduce`.

use crate::model::SearchProfile;

/// One reduction of the search (`crate::engine::reduce` has what each
/// does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reduction {
    /// Side-effect-free spin loops run as awaits (only the iteration that
    /// leaves the loop: `trace::spin_loops`) instead of being unrolled.
    SpinReduction,
    /// The reads-from choices of an RMW that the model's declared
    /// atomicity forbids are skipped ([`SearchProfile::rmw_atomicity`]).
    RmwFilter,
    /// The termination search deepens the unrolling bound from 0 and lists
    /// only the orders memory fairness allows
    /// ([`crate::analysis::termination`]).
    TerminationShortcuts,
    /// The model's dynamic statements are partially evaluated for each
    /// test (`crate::cat::Model::prepare`).
    Specialise,
    /// Questions reading only consistency, flags and a few bindings
    /// evaluate the checks cheapest first, stopping at the first that
    /// fails, and no statement the question does not need.
    LazyChecks,
    /// Each evaluation starts from the previous one of the same walk: only
    /// the statements whose inputs changed run again
    /// (`crate::cat::Prepared::evaluate_lazily_from`).
    Incremental,
    /// A read of a location only its own thread writes takes only the
    /// thread's latest earlier write there, where the model declares
    /// `latest-own-write` ([`SearchProfile::latest_own_write`],
    /// `trace::own_locations`).
    OwnWriteFilter,
    /// With [`Reduction::OwnWriteFilter`] and [`Reduction::SymbolicStores`],
    /// such a read whose latest earlier write is derived takes that write's
    /// term as its value (`trace`, `fix_read`).
    OwnForwarding,
    /// With [`Reduction::OwnWriteFilter`], the run that finds which
    /// statements each thread can run (`trace::reach`) tracks only the
    /// registers whose values can decide a branch.
    BranchRegisters,
    /// Combinations of thread paths are chosen thread by thread, a partial
    /// one dropped as soon as a value one of its reads needs can come from
    /// nobody left (`Explorer::block_with`): the same combinations reach
    /// the search, by a shorter walk.
    PathPruning,
    /// In the pruned walk over executions stopping at the bound, a partial
    /// combination already holding more ordered writes to one location
    /// than the order limit is dropped (`Explorer::set_write_pruning`).
    WritePruning,
    /// The pruned walk checks the balances of RMW chains (`chains`): a
    /// partial combination whose RMW chains cannot close is dropped.
    ChainFlow,
    /// Under each combination of coherence (and SC) orders, the checks
    /// monotone in `rf` are asked once with only the forced reads assigned,
    /// and orders the declared coherence facts rule out are not listed.
    OrderPruning,
    /// Where only the final states or the condition's verdict are asked, a
    /// candidate whose final state is known before its evaluation is not
    /// evaluated when that cannot change the answer
    /// ([`crate::analysis::litmus`]).
    OutcomeDirected,
    /// A read whose value only flows into stores, registers and local
    /// arithmetic stays symbolic: one path where there was one per value
    /// (`trace::explore_with_domains`, [`crate::engine::values`]).
    SymbolicStores,
    /// One execution per orbit under the permutations of interchangeable
    /// threads (and the renamings of [`crate::engine::reduce::rotation`]), counted for its
    /// orbit ([`crate::engine::reduce::symmetry`]).
    Symmetry,
    /// After a finished complete walk, a combination whose stopped threads
    /// all spin forever at an await and extend to complete paths is not
    /// walked again for races (`Explorer::set_spin_extension`).
    SpinExtension,
    /// The reads-from choices of observation reads are searched location
    /// by location and handed to the visitor as a product
    /// (`choices::observation_reads`).
    ReadFactoring,
    /// An increment of a counter (a location every write of which is an
    /// atomic add of one constant outside every loop) never reads the
    /// value only the last increment writes: the paths never fix an
    /// increment's read to it (`trace::counters`).
    Counters,
    /// The termination search is offered only combinations of paths that
    /// can hold a witness: no stuck path whose loop cannot repeat, and the
    /// pruned walk drops a partial combination whose control barriers
    /// already cannot agree (`crate::engine::reduce::witness_pruning`).
    WitnessPruning,
    /// With [`Reduction::SymbolicStores`], the value domains are computed
    /// by paths that keep such reads symbolic too: a store's values are
    /// its term evaluated over the domains of the reads it names, not one
    /// path per combination of their values (`trace::explore_in_full`).
    SymbolicDomains,
    /// Where races are decided, the executions in which every thread waits
    /// at its `k`-th control barrier are walked first, `k = 1, 2, ...`,
    /// before the program's own paths are listed
    /// (`crate::engine::reduce::barrier_prefixes`).
    BarrierPrefixes,
    /// A path the unrolling bound cut is dropped, not counted as cut, when
    /// its reads of one location change value more often than the other
    /// threads can write the location: no execution has its prefix
    /// (`trace::coherence`, under a model declaring `po-coherence`).
    CoherenceCuts,
    /// With [`Reduction::SymbolicStores`], an integer atomic add, sub,
    /// and, or, xor, min or max whose result nothing reads keeps its read
    /// symbolic (its write derived from it), and a location whose every
    /// access is such an RMW of one commuting kind gets one coherence order
    /// where nothing in the execution acquires or releases, counted for
    /// the orders it stands for (`reduce::commuting_rmws`).
    CommutingRmws,
}

/// What a reduction needs the model to declare about itself before it
/// applies (it is inert otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requires {
    /// Nothing: it holds for every model.
    Nothing,
    /// `rmw-atomicity`.
    RmwAtomicity,
    /// `latest-own-write` for the read's storage class.
    LatestOwnWrite,
    /// `await-extension`.
    AwaitExtension,
    /// `location-local-reads`.
    LocationLocalReads,
    /// `po-coherence`.
    PoCoherence,
    /// `read-write-coherence`, `write-write-coherence` or
    /// `co-write-write-coherence` for the orders it leaves out (the
    /// monotone checks under forced reads hold for every model).
    Coherence,
}

impl Requires {
    /// Whether `profile` declares what this asks for (for
    /// [`Requires::Coherence`]: any of the three facts).
    pub fn holds(self, profile: &SearchProfile) -> bool {
        match self {
            Requires::Nothing => true,
            Requires::RmwAtomicity => profile.rmw_atomicity,
            Requires::LatestOwnWrite => profile.latest_own_write != 0,
            Requires::AwaitExtension => profile.await_extension,
            Requires::LocationLocalReads => profile.location_local_reads,
            Requires::PoCoherence => profile.po_coherence != 0,
            Requires::Coherence => {
                profile.read_write_coherence
                    || profile.write_write_coherence
                    || profile.co_write_write_coherence != 0
            }
        }
    }
}

impl Reduction {
    /// Every reduction, in the order `--help` and the tables list them.
    pub const ALL: [Reduction; 24] = [
        Reduction::SpinReduction,
        Reduction::RmwFilter,
        Reduction::TerminationShortcuts,
        Reduction::Specialise,
        Reduction::LazyChecks,
        Reduction::Incremental,
        Reduction::OwnWriteFilter,
        Reduction::OwnForwarding,
        Reduction::BranchRegisters,
        Reduction::PathPruning,
        Reduction::WritePruning,
        Reduction::ChainFlow,
        Reduction::OrderPruning,
        Reduction::OutcomeDirected,
        Reduction::SymbolicStores,
        Reduction::Symmetry,
        Reduction::SpinExtension,
        Reduction::ReadFactoring,
        Reduction::Counters,
        Reduction::WitnessPruning,
        Reduction::SymbolicDomains,
        Reduction::BarrierPrefixes,
        Reduction::CoherenceCuts,
        Reduction::CommutingRmws,
    ];

    /// The reduction's name: `--no NAME`, and the old `--no-NAME` switch.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::SpinReduction => "spin-reduction",
            Reduction::RmwFilter => "rmw-filter",
            Reduction::TerminationShortcuts => "termination-shortcuts",
            Reduction::Specialise => "specialise",
            Reduction::LazyChecks => "lazy-checks",
            Reduction::Incremental => "incremental",
            Reduction::OwnWriteFilter => "own-write-filter",
            Reduction::OwnForwarding => "own-forwarding",
            Reduction::BranchRegisters => "branch-registers",
            Reduction::PathPruning => "path-pruning",
            Reduction::WritePruning => "write-pruning",
            Reduction::ChainFlow => "chain-flow",
            Reduction::OrderPruning => "order-pruning",
            Reduction::OutcomeDirected => "outcome-directed",
            Reduction::SymbolicStores => "symbolic-stores",
            Reduction::Symmetry => "symmetry",
            Reduction::SpinExtension => "spin-extension",
            Reduction::ReadFactoring => "read-factoring",
            Reduction::Counters => "counters",
            Reduction::WitnessPruning => "witness-pruning",
            Reduction::SymbolicDomains => "symbolic-domains",
            Reduction::BarrierPrefixes => "barrier-prefixes",
            Reduction::CoherenceCuts => "coherence-cuts",
            Reduction::CommutingRmws => "commuting-rmws",
        }
    }

    /// One line saying what the reduction skips.
    pub fn doc(self) -> &'static str {
        match self {
            Reduction::SpinReduction => {
                "run side-effect-free spin loops as awaits; drop loop iterations that repeat the one before"
            }
            Reduction::RmwFilter => "skip RMW reads-from choices the declared atomicity forbids",
            Reduction::TerminationShortcuts => {
                "termination: deepen the bound from 0, list only fair orders"
            }
            Reduction::Specialise => "partially evaluate the model per test",
            Reduction::LazyChecks => "evaluate only the checks a question reads, cheapest first",
            Reduction::Incremental => "re-evaluate only the statements whose inputs changed",
            Reduction::OwnWriteFilter => "a read of a thread-own location reads its latest write",
            Reduction::OwnForwarding => "forward a derived own write's term to its later reads",
            Reduction::BranchRegisters => {
                "own locations: track only the registers that decide a branch"
            }
            Reduction::PathPruning => "choose paths thread by thread, dropping unsatisfiable ones",
            Reduction::WritePruning => "drop combinations past the order limit early",
            Reduction::ChainFlow => "drop combinations whose RMW chains cannot balance",
            Reduction::OrderPruning => "refute a coherence order once, before its reads-from",
            Reduction::OutcomeDirected => {
                "skip candidates whose known state cannot change the answer"
            }
            Reduction::SymbolicStores => "keep reads that only flow into stores symbolic",
            Reduction::Symmetry => "walk one execution per orbit of interchangeable threads",
            Reduction::SpinExtension => "skip spinning prefixes that extend to complete executions",
            Reduction::ReadFactoring => "factor observation reads' choices by location",
            Reduction::Counters => "an increment of a counter never reads the counter's last value",
            Reduction::WitnessPruning => {
                "termination: skip loops that cannot repeat and barriers that cannot agree"
            }
            Reduction::SymbolicDomains => {
                "compute the value domains with reads that only flow into stores symbolic"
            }
            Reduction::BarrierPrefixes => {
                "races: first walk the executions in which every thread waits at its k-th barrier"
            }
            Reduction::CoherenceCuts => {
                "drop cut paths whose reads change value more often than other threads write"
            }
            Reduction::CommutingRmws => {
                "keep unused RMW results symbolic; one order of RMWs that commute"
            }
        }
    }

    /// What the reduction needs the model to declare.
    pub fn requires(self) -> Requires {
        match self {
            Reduction::RmwFilter | Reduction::CommutingRmws => Requires::RmwAtomicity,
            Reduction::OwnWriteFilter | Reduction::OwnForwarding | Reduction::BranchRegisters => {
                Requires::LatestOwnWrite
            }
            Reduction::SpinExtension => Requires::AwaitExtension,
            Reduction::ReadFactoring => Requires::LocationLocalReads,
            Reduction::OrderPruning => Requires::Coherence,
            Reduction::CoherenceCuts => Requires::PoCoherence,
            _ => Requires::Nothing,
        }
    }

    /// The reduction named `name` ([`Reduction::name`]).
    pub fn from_name(name: &str) -> Option<Reduction> {
        Reduction::ALL.into_iter().find(|r| r.name() == name)
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Reduction {
    type Err = String;

    fn from_str(s: &str) -> Result<Reduction, String> {
        Reduction::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = Reduction::ALL.iter().map(|r| r.name()).collect();
            format!("no reduction `{s}`; the reductions: {}", names.join(", "))
        })
    }
}

/// A set of reductions.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reductions(u32);

impl Reductions {
    /// Every reduction (the default search).
    pub fn all() -> Reductions {
        Reduction::ALL
            .into_iter()
            .fold(Reductions(0), |s, r| s.with(r, true))
    }

    /// No reduction (the reference enumeration).
    pub fn none() -> Reductions {
        Reductions(0)
    }

    /// Whether `r` is in the set.
    pub fn has(self, r: Reduction) -> bool {
        self.0 & r.bit() != 0
    }

    /// The set with `r` in it (`on`) or not.
    pub fn with(self, r: Reduction, on: bool) -> Reductions {
        if on {
            Reductions(self.0 | r.bit())
        } else {
            Reductions(self.0 & !r.bit())
        }
    }

    /// The set without `r`.
    pub fn without(self, r: Reduction) -> Reductions {
        self.with(r, false)
    }

    /// The reductions in the set, in [`Reduction::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Reduction> {
        Reduction::ALL.into_iter().filter(move |r| self.has(*r))
    }
}

impl Default for Reductions {
    fn default() -> Self {
        Reductions::all()
    }
}

impl std::fmt::Debug for Reductions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

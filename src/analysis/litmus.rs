//! Herd-style results of a `.litmus` test: the reachable final states (with
//! how many consistent executions reach each), the final condition's verdict,
//! positive/negative witnesses, the Always/Sometimes/Never observation, and
//! data races (with the racing pair of instructions).

use crate::cat::{Evaluation, Value};
use crate::engine::{
    Candidate, CheckError, EventInfo, Limits, ProgressFn, RegValue, Skeleton, Split, Visitor,
    explore_split,
};
use crate::ir::{Program, Quantifier, Term};
use crate::model::LoadedModel;
use std::cell::Cell;
use std::ops::ControlFlow;
use std::time::Duration;
use web_time::Instant;

/// Which property of a test a verdict is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// The final condition (`exists`, `~exists`, `forall`, under `filter`).
    Condition,
    /// Data-race freedom: no consistent (filtered) execution has a race.
    Races,
    /// Termination: no execution the progress model allows runs forever
    /// (see [`crate::analysis::termination`]).
    Termination,
    /// The set of reachable final states, complete, one witness each
    /// (the outcome-directed listing): candidates whose final state
    /// is already known are not evaluated, so the counts are witnesses, not
    /// executions, and races are not checked.
    States,
}

impl std::str::FromStr for Property {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "condition" => Ok(Property::Condition),
            "races" => Ok(Property::Races),
            "termination" => Ok(Property::Termination),
            "states" => Ok(Property::States),
            _ => Err(format!(
                "unknown property `{s}`: expected `condition`, `races`, `termination` or `states`"
            )),
        }
    }
}

/// How often the condition's expression holds over consistent executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Observation {
    Always,
    Sometimes,
    Never,
}

/// Two instructions that race, by thread and source line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct RacePair {
    pub first: String,
    pub second: String,
    /// The file of the first access, where that is not the checked file's
    /// own: a header the shader includes (`first` names it too, `P0
    /// HEADER:7: text`). JSON: present only then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_file: Option<String>,
    /// The file of the second access, as `first_file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_file: Option<String>,
    pub location: String,
    /// The attribution of cooperative matrix element accesses under which
    /// the race happens, when the test leaves it to the implementation
    /// (src/ir/attribution.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
    /// When the race was found in an execution in which some threads stop
    /// where the unrolling bound cut their path (a race within the bound,
    /// [`crate::engine::Limits::prefix_races`]): where they stop, grouped
    /// by statement, as `P4, P5 stop at the bound before line 31: OpBranch %25`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stopped_at_bound: Vec<String>,
    /// The final states (of the listing's `states`) reached by the
    /// executions in which this pair races, sorted as the listing is: a
    /// pair may race only where, say, a flag read 0. Empty when the race
    /// was found only in executions stopping at the bound
    /// (`stopped_at_bound`), which reach no final state. At most
    /// [`RACE_STATES_LISTED`], the first in the listing's order
    /// (`state_count` says how many there are): a racing program may have
    /// hundreds of thousands of states and many pairs racing in each, and
    /// the report would grow as their product. JSON: a list of value
    /// objects, `[{"P1:r0": 0, "P1:r1": 0}, ...]`.
    #[serde(serialize_with = "ser_state_list")]
    pub states: Vec<FinalState>,
    /// How many final states the pair races in (all of them, listed in
    /// `states` or not).
    pub state_count: usize,
    /// `states` lists fewer than `state_count` (the cap,
    /// [`RACE_STATES_LISTED`]). JSON: present (true) only then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub states_cut: bool,
    /// Every state the pair races in, by its index in the outcome's
    /// listing (what joining two attributions' outcomes renumbers; not
    /// reported).
    #[serde(skip)]
    pub(crate) state_ids: StateSet,
}

/// The most final states a racing pair lists ([`RacePair::states`]).
pub const RACE_STATES_LISTED: usize = 100;

impl RacePair {
    /// Sets the states the pair races in to `ids` (indices into `listing`,
    /// ascending): the count, the ids, and the first
    /// [`RACE_STATES_LISTED`] states.
    fn set_states(&mut self, ids: StateSet, listing: &[(FinalState, u64)]) {
        self.state_count = ids.len();
        self.states_cut = self.state_count > RACE_STATES_LISTED;
        self.states = ids
            .iter()
            .take(RACE_STATES_LISTED)
            .map(|i| listing[i as usize].0.clone())
            .collect();
        self.state_ids = ids;
    }
}

fn ser_state_list<S: serde::Serializer>(states: &[FinalState], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(states.len()))?;
    let mut keys = KeyOrder::default();
    for state in states {
        seq.serialize_element(&StateObject {
            state,
            order: keys.of(state),
        })?;
    }
    seq.end()
}

/// A final state's values as a JSON object, written without building it:
/// the keys in the order a `serde_json::Map` has them (sorted by name; of
/// two values under one name, the last), so that the document is the one
/// a map of the pairs gives. A listing's JSON writes hundreds of
/// thousands of them.
struct StateObject<'a> {
    state: &'a FinalState,
    /// The indices of the state's names in key order ([`KeyOrder`]).
    order: &'a [usize],
}

impl serde::Serialize for StateObject<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let names = self.state.names();
        let values = self.state.values();
        let mut m = s.serialize_map(Some(self.order.len()))?;
        for &i in self.order {
            match self.state.kind(i) {
                Some(kind) => m.serialize_entry(&names[i], &kind.json(values[i]))?,
                None => m.serialize_entry(&names[i], &values[i])?,
            }
        }
        m.end()
    }
}

/// The key order of the states' names ([`StateObject`]), made once per
/// list of names (the states of a listing share theirs).
#[derive(Default)]
struct KeyOrder {
    names: Vec<String>,
    order: Vec<usize>,
}

impl KeyOrder {
    fn of(&mut self, state: &FinalState) -> &[usize] {
        let names = state.names();
        if self.names != names || self.order.is_empty() && !names.is_empty() {
            self.names = names.to_vec();
            self.order = (0..names.len()).collect();
            // By name, the later of two equal names first: `dedup` keeps it.
            self.order
                .sort_by(|&a, &b| names[a].cmp(&names[b]).then(b.cmp(&a)));
            self.order.dedup_by(|a, b| names[*a] == names[*b]);
        }
        &self.order
    }
}

/// One entry of a listing in JSON: `{"executions": n, "values": {...}}`
/// (the keys in a `serde_json::Map`'s order).
#[derive(serde::Serialize)]
struct StateRow<'a> {
    executions: u64,
    values: StateObject<'a>,
}

/// How many attributions of cooperative matrix element accesses a test
/// that leaves them open has, and how many were run (src/ir/attribution.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AttributionCount {
    /// Run (the answers are the union of theirs).
    pub explored: usize,
    /// In all; more than `explored` when the bound cut the list or the
    /// search stopped once the asked property was decided.
    pub total: u64,
}

use super::phrases::describe;
/// A final state: a value per shown name, registers as `P0:r1` then
/// locations (src/analysis/states.rs: the names are made once per test).
pub use super::states::FinalState;
use super::states::{Schema, Sorted, StateCounts, UNCHECKED_ROWS};
use crate::engine::{Bounds, LimitKind};

/// Undefined behaviour in the consistent filtered executions seen: the
/// executions that access out of bounds (a path through a site of
/// [`Program::out_of_bounds`]). SPIR-V, OpAccessChain, of each index: "if
/// indexing into a vector, array, or matrix, with the result type being a
/// logical pointer type, causes undefined behavior if not in bounds". Such
/// an execution promises nothing: the accesses vkmm lists for it are the
/// in-bounds ones, and a verdict that rests on it is no verdict
/// ([`LitmusOutcome::rests_on_undefined`]; docs/reading-output.md).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Undefined {
    /// Executions with an out-of-bounds access.
    pub executions: u64,
    /// Each out-of-bounds site some execution takes, in site order.
    pub out_of_bounds: Vec<OutOfBoundsAccess>,
    /// The final states such executions reach, with how many of them reach
    /// each (JSON as `states`).
    #[serde(serialize_with = "ser_states")]
    pub states: Vec<(FinalState, u64)>,
    /// Whether the condition's verdict rests on them (set with the
    /// verdicts: [`LitmusOutcome::rests_on_undefined`]).
    pub condition: bool,
    /// Whether the race verdict rests on them.
    pub races: bool,
    /// Executions without undefined behaviour satisfying / not satisfying
    /// the condition's expression, and whether one of them races: the
    /// witnesses that settle a verdict whatever the others do.
    #[serde(skip)]
    pub(crate) defined_positive: u64,
    #[serde(skip)]
    pub(crate) defined_negative: u64,
    #[serde(skip)]
    pub(crate) defined_racy: bool,
}

impl Undefined {
    pub fn is_empty(&self) -> bool {
        self.executions == 0
    }

    /// Adds another part's (or attribution's) counts.
    fn add(&mut self, other: Undefined) {
        self.executions += other.executions;
        for a in other.out_of_bounds {
            match self.out_of_bounds.iter_mut().find(|b| {
                (&b.variable, b.line, &b.instruction) == (&a.variable, a.line, &a.instruction)
            }) {
                Some(b) => {
                    b.executions += a.executions;
                    append_new(&mut b.threads, a.threads);
                }
                None => self.out_of_bounds.push(a),
            }
        }
        super::states::add_sorted(&mut self.states, other.states);
        self.defined_positive = self.defined_positive.saturating_add(other.defined_positive);
        self.defined_negative = self.defined_negative.saturating_add(other.defined_negative);
        self.defined_racy |= other.defined_racy;
    }
}

/// An out-of-bounds access some execution seen makes: the variable, the
/// instruction and its line, the invocations that make it (`P1 (wg 0,0,0
/// lid 1,0,0)`), and how many executions seen make it (in any of them).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OutOfBoundsAccess {
    pub variable: String,
    pub instruction: String,
    pub line: usize,
    /// The file of `line`, where that is not the checked file's own: a
    /// header the shader includes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub threads: Vec<String>,
    pub executions: u64,
}

fn ser_states<S: serde::Serializer>(states: &[(FinalState, u64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(states.len()))?;
    let mut keys = KeyOrder::default();
    for (state, n) in states {
        seq.serialize_element(&StateRow {
            executions: *n,
            values: StateObject {
                state,
                order: keys.of(state),
            },
        })?;
    }
    seq.end()
}

/// Everything vkmm found about a litmus test.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LitmusOutcome {
    pub file: String,
    pub name: String,
    pub model: String,
    /// The condition as written (`None` when the test has none).
    pub condition: Option<String>,
    /// How the condition quantifies (`None` without a quantifier).
    pub quantifier: Option<Quantifier>,
    /// Reachable final states of consistent, filtered executions, with counts
    /// (JSON: `[{"values": {"P0:r0": 1, "x": 2}, "executions": 3}, ...]`).
    #[serde(serialize_with = "ser_states")]
    pub states: Vec<(FinalState, u64)>,
    /// Consistent filtered executions satisfying / not satisfying the condition's expression.
    pub positive: u64,
    pub negative: u64,
    pub observation: Observation,
    /// Whether the final condition holds: `None` without a quantifier, and
    /// when a limit or the unrolling bound left it undecided (see
    /// [`LitmusOutcome::holds`]).
    pub condition_holds: Option<bool>,
    /// Racing pairs found in consistent filtered executions (distinct pairs).
    pub races: Vec<RacePair>,
    /// Whether every consistent filtered execution is race-free: `None`
    /// when no race was seen but a limit or the unrolling bound left
    /// executions unseen, and when races were not checked (`states_only`).
    pub race_free: Option<bool>,
    /// The listing asked for the states only ([`Property::States`]): one
    /// witness per state (the counts in `states`, `positive`, `negative`
    /// and `consistent` are witnesses, not executions) and no race check.
    /// Complete states when the search completes.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub states_only: bool,
    /// The walk asked only for the condition's verdict and was
    /// outcome-directed ([`crate::engine::Reduction::OutcomeDirected`]): a
    /// candidate whose final state was known before its evaluation was
    /// evaluated only when that state could decide the verdict (passes the
    /// filter and is a witness of `exists`/`~exists` or a counterexample of
    /// `forall`) and was not recorded yet. The verdict is that of the full
    /// walk; `states` lists only the states evaluated (one witness each:
    /// the counts in `states`, `positive`, `negative` and `consistent` are
    /// witnesses), and races are not checked.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub condition_only: bool,
    /// Control barriers passed in some consistent execution by an
    /// invocation while a member of its execution-scope instance never
    /// reaches them, or reaches them fewer times (undefined: see
    /// [`crate::analysis::barriers`]), as `P0 line 5: text (P1 never
    /// reaches it)` or `P0 line 5: text, time 2 (P1 reaches it 1 time)`.
    pub barrier_divergence: Vec<String>,
    /// Control barriers with a quorum that too few invocations reach on
    /// some combination of paths: those invocations wait forever, so the
    /// combination has no complete execution and adds no final state, as
    /// `P0 line 5: text waits forever: quorum 4, 3 arrive (P0, P1, P2)`.
    pub barrier_stalls: Vec<String>,
    /// Candidate executions evaluated.
    pub executions: u64,
    /// Partial candidates (reads-from assignments under way) the search
    /// evaluated to prune. With `executions`, what the execution limit bounds.
    pub partial_evaluations: u64,
    /// Of which consistent.
    pub consistent: u64,
    /// Whether a count (`consistent`, `positive`, `negative`, a state's
    /// executions) passed 2^64 - 1: such a count stays at that value and
    /// is a lower bound, not the number (symmetric invocations multiply
    /// counts by factorials: 21 interchangeable invocations pass it).
    /// JSON: present (and true) only then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub counts_saturated: bool,
    /// Thread paths cut by the unrolling bound (answers may be incomplete when > 0).
    pub cut_paths: usize,
    pub unroll: usize,
    /// True when the search stopped early because the asked property was decided.
    pub stopped_early: bool,
    /// True when the search stopped at the execution limit (candidate and
    /// partial evaluations together) before deciding: the verdicts then only
    /// cover the executions seen.
    pub truncated: bool,
    /// Which limit truncated the search (`max-executions`, `timeout`).
    pub stopped_by: Option<crate::engine::LimitKind>,
    /// The distinct final states the walk found that `states` does not
    /// list: a limit (`stopped_by`) was reached while the listing was built
    /// after the walk (sorted, its racing pairs' states attributed), and
    /// the listing was dropped rather than given in part (the counts and
    /// racing pairs stay; `undefined.states` is dropped too). 0 otherwise.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub states_unlisted: usize,
    /// What can be said of a listing that was not built (`states_unlisted`)
    /// when the walk saw every execution it lists (only the listing
    /// stopped): its figures are then complete. `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states_summary: Option<StatesSummary>,
    /// The limit in `stopped_by` stopped only the listing (`states_unlisted`):
    /// the walk itself ended, so `truncated` says the listing is missing,
    /// not that executions went unseen, and the verdicts and counts cover
    /// every execution the walk would have seen without the limit.
    /// JSON: present (true) only then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub listing_only: bool,
    #[serde(serialize_with = "crate::analysis::schema::ser_duration")]
    pub time: Duration,
    /// The front end's warnings about the file (set by the session).
    pub warnings: Vec<crate::frontend::FrontendWarning>,
    /// For a test leaving cooperative matrix attributions open: how many
    /// were run; the answers are the union over them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributions: Option<AttributionCount>,
    /// Executions seen with undefined behaviour (out-of-bounds accesses).
    #[serde(skip_serializing_if = "Undefined::is_empty")]
    pub undefined: Undefined,
    /// The executions in which threads stop where the unrolling bound cut
    /// them, walked for races only after the complete ones (when paths
    /// were cut, no race was found among the complete executions, and
    /// races are asked: [`crate::engine::Limits::prefix_races`]); none of
    /// the states and counts above include them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_walk: Option<PrefixWalk>,
    /// The threads the walk permuted by symmetry reduction (classes of
    /// interchangeable threads: identical code and paths, the same place
    /// in the scope tree, no register shown; [`crate::engine::symmetry`]).
    /// `executions` and `partial_evaluations` count the candidates
    /// evaluated, one per orbit; the states, `positive`, `negative` and
    /// `consistent` count every execution. 0: no reduction.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub symmetric_threads: usize,
    /// The order of the group of automorphisms renaming locations the walk
    /// was reduced by ([`crate::engine::rotation`]: threads and locations
    /// permuted together, the shown registers and locations mapped onto
    /// themselves). As with `symmetric_threads`, `executions` count one
    /// candidate per orbit and everything else every execution. 0: none.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub rotation_order: usize,
    /// Factored observation reads (MODELS.md): of the `executions`
    /// evaluated, those that stood for every combination of their
    /// observation reads' consistent choices, and how many combinations
    /// (executions) they stood for. Absent from JSON when none did.
    #[serde(skip_serializing_if = "Factored::is_empty")]
    pub factored: Factored,
    /// A bound stopped the front end part-way (`Program::front_end_limit`,
    /// in words): the program checked is what it built so far, so no
    /// answer is a verdict; the states and counts say what was covered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub front_end_limit: Option<String>,
}

/// The candidates of a walk that stood for a product of observation-read
/// choices ([`LitmusOutcome::factored`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Factored {
    /// Candidates evaluated once for all their combinations.
    pub candidates: u64,
    /// The combinations they stood for, together (saturating).
    pub combinations: u64,
}

impl Factored {
    pub fn is_empty(&self) -> bool {
        self.candidates == 0
    }

    /// Adds `other`'s candidates and combinations (saturating).
    pub fn add(&mut self, other: Factored) {
        self.candidates += other.candidates;
        self.combinations = self.combinations.saturating_add(other.combinations);
    }
}

fn is_zero_usize(n: &usize) -> bool {
    *n == 0
}

/// The walk over the executions in which threads stop where the
/// unrolling bound cut their paths ([`LitmusOutcome::prefix_walk`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PrefixWalk {
    /// Candidate executions evaluated.
    pub executions: u64,
    /// The limit that stopped it before it finished, if any.
    pub stopped_by: Option<crate::engine::LimitKind>,
    /// Combinations it skipped because they extend to complete executions
    /// the complete walk judged (`engine::Explorer::set_spin_extension`).
    #[serde(skip_serializing_if = "is_zero")]
    pub extended: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl PrefixWalk {
    /// What it saw, in words: `12 executions stopping at the unrolling
    /// bound`, and the limit that stopped it, if any.
    pub fn describe(&self) -> String {
        format!(
            "{} execution{} stopping at the unrolling bound{}",
            self.executions,
            if self.executions == 1 { "" } else { "s" },
            self.stopped_by.map_or(String::new(), |k| format!(
                " (that walk stopped {})",
                crate::engine::stopped_at(Some(k))
            ))
        )
    }
}

/// A listing of final states summed up instead of given
/// ([`LitmusOutcome::states_summary`]): every figure counts every
/// execution the listing would have shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StatesSummary {
    /// The distinct final states.
    pub states: usize,
    /// The consistent executions (passing the filter) reaching them.
    pub executions: u64,
    /// With a quantified condition: how many of the states satisfy it,
    /// and how many do not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_holds_in: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_fails_in: Option<usize>,
}

impl LitmusOutcome {
    /// Whether one of the counts is at 2^64 - 1, where the saturating
    /// sums and products stop ([`LitmusOutcome::counts_saturated`]).
    fn saturated(&self) -> bool {
        [self.consistent, self.positive, self.negative]
            .into_iter()
            .chain(self.states.iter().map(|(_, n)| *n))
            .any(|n| n == u64::MAX)
    }

    /// Whether the verdict on `property` rests on executions with
    /// undefined behaviour: a verdict every execution must uphold
    /// (`exists` fails, `~exists` or `forall` holds, race-free) when some
    /// execution seen has undefined behaviour (it promises nothing, so it
    /// may break the claim); a verdict a witness settles (`exists` holds,
    /// `~exists` or `forall` fails, a race) when every witness seen has
    /// it; an undecided verdict when some execution seen has it.
    pub fn rests_on_undefined(&self, property: Property) -> bool {
        let u = &self.undefined;
        if u.is_empty() {
            return false;
        }
        match (property, self.holds(property)) {
            (Property::Condition, Some(h)) => match (self.quantifier, h) {
                (Some(Quantifier::Exists), true) | (Some(Quantifier::NotExists), false) => {
                    u.defined_positive == 0
                }
                (Some(Quantifier::Forall), false) => u.defined_negative == 0,
                _ => true,
            },
            (Property::Races, Some(false)) => !u.defined_racy,
            _ => true,
        }
    }

    /// Whether every answer is decided: the walk listed every state (or a
    /// suite stopped it once its property was decided) and neither verdict
    /// depends on executions the unrolling bound cut or the limit left unseen.
    pub fn complete(&self) -> bool {
        (!self.truncated || self.stopped_early)
            && self
                .attributions
                .is_none_or(|a| self.stopped_early || a.explored as u64 >= a.total)
            && (self.quantifier.is_none() || self.holds(Property::Condition).is_some())
            && (self.states_only || self.condition_only || self.holds(Property::Races).is_some())
    }

    /// Why the list of final states may miss some, in words, or `None` when
    /// it is every reachable final state: a limit stopped the walk, the
    /// walk stopped once its property was decided, the unrolling bound cut
    /// paths, only some cooperative matrix attributions were run, or the
    /// walk looked for a verdict only (its states are witnesses). Every
    /// report that lists states or compares them (`--format herd`,
    /// `refines`, `compare`) follows this one rule.
    pub fn states_incomplete(&self) -> Option<String> {
        if let Some(limit) = &self.front_end_limit {
            return Some(limit.clone());
        }
        if self.states_unlisted > 0 {
            return Some(format!(
                "{} final states were found but not listed: the listing stopped {}",
                self.states_unlisted,
                crate::engine::stopped_at(self.stopped_by)
            ));
        }
        if self.truncated && !self.stopped_early {
            return Some(format!(
                "the search stopped {}",
                crate::engine::stopped_at(self.stopped_by)
            ));
        }
        if self.stopped_early || self.condition_only {
            return Some("the search stopped once its verdict was decided".into());
        }
        if self.cut_paths > 0 {
            return Some(format!(
                "the unrolling bound cut {} path{} (raise --unroll)",
                self.cut_paths,
                if self.cut_paths == 1 { "" } else { "s" }
            ));
        }
        if let Some(a) = self.attributions
            && (a.explored as u64) < a.total
        {
            return Some(format!(
                "{} of {} cooperative matrix attributions were run",
                a.explored, a.total
            ));
        }
        None
    }

    /// The verdict for a property: true when it holds; `None` when the test
    /// has no condition, or the search was truncated before deciding it.
    ///
    /// A truncated search still decides what the executions it saw settle
    /// for every completion (and so does one whose paths the unrolling
    /// bound cut): a witness for `exists` (holds) and `~exists`
    /// (fails), a counterexample for `forall` (fails), a race (not race-free).
    /// Paths cut by the unrolling bound leave unsettled answers undecided in
    /// the same way: executions needing more iterations were not seen.
    pub fn holds(&self, property: Property) -> Option<bool> {
        // A program the front end built only part of settles nothing.
        if self.front_end_limit.is_some() {
            return None;
        }
        // A listing stopped after a walk that ended (`listing_only`)
        // leaves the walk's verdicts whole.
        let complete = (!self.truncated || self.stopped_early || self.listing_only)
            && self.cut_paths == 0
            && self
                .attributions
                .is_none_or(|a| self.stopped_early || a.explored as u64 >= a.total);
        match property {
            Property::Condition => {
                let settled = complete
                    || match self.quantifier {
                        Some(Quantifier::Exists) | Some(Quantifier::NotExists) => self.positive > 0,
                        Some(Quantifier::Forall) => self.negative > 0,
                        None => false,
                    };
                self.condition_holds.filter(|_| settled)
            }
            // "No race" also needs the walk over executions in which a
            // thread stops part-way (spinning forever in an await no value
            // leaves: no path is cut, yet those executions are the
            // program's) to have finished.
            Property::Races => self.race_free.filter(|&free| {
                !free || (complete && self.prefix_walk.is_none_or(|w| w.stopped_by.is_none()))
            }),
            // Answered by a termination check, not by the outcome list.
            Property::Termination => None,
            // A listing, not a verdict.
            Property::States => None,
        }
    }
}

/// Value of a term in a candidate execution.
pub(crate) fn reg_value(
    sk: &Skeleton,
    cand: &Candidate,
    thread: usize,
    reg: &str,
    program: &Program,
) -> i64 {
    let Some((_, v)) = sk.registers[thread].iter().find(|(r, _)| r == reg) else {
        return 0;
    };
    match *v {
        RegValue::Const(c) => c,
        RegValue::Read(e) => read_value(sk, cand, e, program),
        RegValue::Expr(_) => cand.values.as_ref().map_or(0, |vals| vals.term(*v)),
    }
}

pub(crate) fn read_value(sk: &Skeleton, cand: &Candidate, e: usize, program: &Program) -> i64 {
    if let Some(vals) = &cand.values {
        return vals.read[e].unwrap_or(0);
    }
    let k = sk.reads.binary_search(&e).expect("a read event");
    read_from(sk, cand, e, k, || initial_of(sk, e, program))
}

/// The value read event `e` (the `k`th of `sk.reads`) reads in `cand`,
/// `initial` giving its location's initial value.
fn read_from(
    sk: &Skeleton,
    cand: &Candidate,
    e: usize,
    k: usize,
    initial: impl FnOnce() -> i64,
) -> i64 {
    if let Some(vals) = &cand.values {
        return vals.read[e].unwrap_or(0);
    }
    match cand.rf_source[k] {
        Some(w) => sk.events[w].write_value.unwrap_or(0),
        None => initial(),
    }
}

/// The initial value of the location event `e` accesses.
fn initial_of(sk: &Skeleton, e: usize, program: &Program) -> i64 {
    let loc = program
        .location_of(sk.events[e].instruction(program))
        .unwrap_or(0);
    sk.initial[loc]
}

/// The possible final values of each location: the values of the writes no
/// other write to the location follows (in `co`, program order, or the
/// model's final-memory order if its profile declares one). Several maximal
/// writes (unordered writes) give several possible final states.
pub(crate) fn final_memory(
    sk: &Skeleton,
    cand: &Candidate,
    eval: &crate::cat::Evaluation,
    program: &Program,
    locations: &[usize],
    final_order: Option<&str>,
) -> Vec<Vec<i64>> {
    let locord = match final_order.and_then(|b| eval.lookup(b)) {
        Some(Value::Rel(r)) => Some(r),
        _ => None,
    };
    let co = match cand.env.get("co") {
        Some(Value::Rel(r)) => Some(r),
        _ => None,
    };
    maximal_write_values(sk, cand.values.as_ref(), co, program, locations, locord)
        .into_iter()
        .map(|v| v.unwrap_or_else(|| vec![0]))
        .collect()
}

/// The values of the writes no other write follows in program order, `co`
/// (when given) and `locord` (the final order, when given). Without the final order this is a superset of the final
/// values the evaluation gives (it can only remove writes). `None` for a
/// location where such a write is a derived store and no candidate's
/// `values` say what it writes.
fn maximal_write_values(
    sk: &Skeleton,
    values: Option<&crate::engine::values::Values>,
    co: Option<&crate::relation::Relation>,
    program: &Program,
    locations: &[usize],
    locord: Option<&crate::relation::Relation>,
) -> Vec<Option<Vec<i64>>> {
    let loc_of = |e: &EventInfo| program.location_of(e.instruction(program));
    locations
        .iter()
        .map(|&l| {
            let writes: Vec<usize> = (0..sk.events.len())
                .filter(|&e| sk.events[e].writes && loc_of(&sk.events[e]) == Some(l))
                .collect();
            if writes.is_empty() {
                return Some(vec![sk.initial[l]]);
            }
            let after = |a: usize, b: usize| {
                (sk.events[a].thread == sk.events[b].thread && a < b)
                    || co.is_some_and(|r| r.contains(a, b))
                    || locord.is_some_and(|r| r.contains(a, b))
            };
            let mut vals: Vec<i64> = writes
                .iter()
                .filter(|&&w| !writes.iter().any(|&o| o != w && after(w, o)))
                .map(|&w| match values {
                    Some(v) => Some(v.write[w].unwrap_or(0)),
                    None if sk.events[w].derived.is_some() => None,
                    None => Some(sk.events[w].write_value.unwrap_or(0)),
                })
                .collect::<Option<_>>()?;
            vals.sort_unstable();
            vals.dedup();
            Some(vals)
        })
        .collect()
}

/// Every combination of possible final values of `locations` (one final
/// state each; usually exactly one).
pub(crate) fn memory_states(
    sk: &Skeleton,
    cand: &Candidate,
    eval: &crate::cat::Evaluation,
    program: &Program,
    locations: &[usize],
    final_order: Option<&str>,
) -> Vec<Vec<i64>> {
    let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
    for vals in final_memory(sk, cand, eval, program, locations, final_order) {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c2 = c.clone();
                    c2.push(*v);
                    c2
                })
            })
            .collect();
    }
    combos
}

/// The value of a condition term in a candidate execution, `mem` giving the
/// final values of `locations` (other locations keep their initial value).
pub(crate) fn term_value(
    sk: &Skeleton,
    cand: &Candidate,
    program: &Program,
    locations: &[usize],
    mem: &[i64],
    t: &Term,
) -> i64 {
    let location = |l: usize| {
        locations
            .iter()
            .position(|&x| x == l)
            .map(|i| mem[i])
            .unwrap_or_else(|| sk.initial[l])
    };
    match t {
        Term::Const(c) => *c,
        Term::Reg { thread, reg } => reg_value(sk, cand, *thread, reg, program),
        Term::Loc(l) => location(*l),
        Term::Bytes { parts, .. } => Term::bytes_value(parts, &location),
    }
}

/// What the final states of a litmus test show: the condition's registers
/// and locations (else every register, unless they are a compiler's
/// values: [`Program::registers_internal`]), and the `locations [...]`
/// list.
pub(crate) fn shown_terms(program: &Program) -> (Vec<(usize, String)>, Vec<usize>) {
    let mut shown_regs: Vec<(usize, String)> = Vec::new();
    let mut shown_locs: Vec<usize> = program.shown_locations.clone();
    if let Some(c) = program.condition.as_ref() {
        let mut terms = Vec::new();
        c.expr.terms(&mut terms);
        if let Some(f) = &c.filter {
            f.terms(&mut terms);
        }
        for t in terms {
            match t {
                Term::Reg { thread, reg } => {
                    if !shown_regs.contains(&(*thread, reg.clone())) {
                        shown_regs.push((*thread, reg.clone()))
                    }
                }
                Term::Loc(l) => {
                    if !shown_locs.contains(l) {
                        shown_locs.push(*l)
                    }
                }
                // Bytes of a sized variable: every chunk of it, shown as
                // the variable ([`shown_memory`]).
                Term::Bytes { parts, .. } => {
                    for p in parts {
                        let chunks = program
                            .symbols
                            .split_variable_of(p.loc)
                            .map_or(vec![p.loc], |v| v.locations.clone());
                        for l in chunks {
                            if !shown_locs.contains(&l) {
                                shown_locs.push(l)
                            }
                        }
                    }
                }
                Term::Const(_) => {}
            }
        }
    } else if !program.registers_internal {
        for (ti, t) in program.threads.iter().enumerate() {
            for s in &t.code {
                if let crate::ir::Stmt::Op(i) = s
                    && let Some(d) = &i.dest
                    && !shown_regs.contains(&(ti, d.clone()))
                {
                    shown_regs.push((ti, d.clone()));
                }
            }
        }
    }
    shown_regs.sort();
    (shown_regs, shown_locs)
}

/// How the final states list the memory of `shown_locs`: each location by
/// its name, except the chunks of a sized variable split into several
/// (src/ir/bytes.rs), listed once as the variable the test declares, its
/// bytes assembled (a variable of more than 8 bytes, which no value holds,
/// by its chunks).
pub(crate) fn shown_memory(program: &Program, shown_locs: &[usize]) -> Vec<(String, Term)> {
    let split: Vec<&crate::ir::LocationName> = program
        .symbols
        .names
        .iter()
        .filter(|n| n.bytes.len() > 1)
        .collect();
    let mut out: Vec<(String, Term)> = Vec::new();
    for &l in shown_locs {
        let var = split
            .iter()
            .find(|n| n.locations.contains(&l))
            .filter(|n| n.bytes.last().map_or(0, |c| c.end) <= crate::ir::bytes::MAX_ACCESS_BYTES);
        match var {
            Some(v) => {
                if !out.iter().any(|(n, _)| *n == v.name) {
                    let parts = v
                        .bytes
                        .iter()
                        .zip(&v.locations)
                        .map(|(c, &loc)| crate::ir::BytePart {
                            loc,
                            off: 0,
                            len: c.len(),
                        })
                        .collect();
                    let term = Term::Bytes {
                        name: v.name.clone(),
                        parts,
                    };
                    out.push((v.name.clone(), term));
                }
            }
            None => out.push((program.locations[l].clone(), Term::Loc(l))),
        }
    }
    out
}

impl Outcomes<'_> {
    /// The index of `pair` among the races seen, appended (with no states
    /// yet) when new.
    fn race_index(&mut self, pair: RacePair) -> usize {
        if let Some(&i) = self.race_texts.get(&pair) {
            return i;
        }
        self.race_texts.insert(pair.clone(), self.races.len());
        self.races.push(pair);
        self.race_states.push(Default::default());
        self.races.len() - 1
    }

    /// The final state of every candidate of `sk` (`cand`: of that
    /// candidate), as the register values and final values of
    /// `shown_locs` it is made of, when it is known before the model's
    /// evaluation: the registers' read values fixed (by the paths, or by
    /// `cand`'s reads-from), and one value among the writes of each shown
    /// location that no other write follows in program order (or in the
    /// candidate's `co`). The model's final order can only remove writes
    /// from those, so the evaluation gives this state or none.
    fn known_state(&self, sk: &Skeleton, cand: Option<&Candidate>) -> Option<(Vec<i64>, Vec<i64>)> {
        let program = self.program;
        let mut regs = Vec::with_capacity(self.shown_regs.len());
        for (t, r) in &self.shown_regs {
            regs.push(match cand {
                Some(c) => reg_value(sk, c, *t, r, program),
                None => match sk.registers[*t].iter().find(|(n, _)| n == r) {
                    None => 0,
                    Some((_, RegValue::Const(c))) => *c,
                    Some((_, RegValue::Read(e))) => sk.events[*e].read_value?,
                    // (An expression of a read the paths leave symbolic.)
                    Some((_, RegValue::Expr(_))) => return None,
                },
            });
        }
        let co = cand.and_then(|c| match c.env.get("co") {
            Some(Value::Rel(r)) => Some(r),
            _ => None,
        });
        let mut mem = Vec::with_capacity(self.shown_locs.len());
        let values = cand.and_then(|c| c.values.as_ref());
        for vals in maximal_write_values(sk, values, co, program, &self.shown_locs, None) {
            match vals.as_deref() {
                Some([v]) => mem.push(*v),
                _ => return None,
            }
        }
        Some((regs, mem))
    }

    /// Whether a final state known before the evaluation (registers and
    /// memory as [`Outcomes::known_state`] gives them) adds nothing the
    /// question needs: recorded already, or, for a verdict only
    /// (`condition_only`), unable to decide it.
    fn known(&self, st: &(Vec<i64>, Vec<i64>)) -> bool {
        self.seen.contains(st) || (self.condition_only && !self.could_decide(st))
    }

    /// Whether a consistent execution with this final state could decide
    /// the condition: it passes the filter and is a witness of `exists`
    /// (holds) or `~exists` (fails), or a counterexample of `forall`. The
    /// verdict is a function of the final states alone: `exists` holds
    /// when "some consistent execution satisfies the condition", `~exists`
    /// when none does, `forall` when every one does (counted over the
    /// executions passing the filter), and the filter and the condition
    /// read only the registers and locations of `shown_regs` and
    /// `shown_locs`, which the state holds. A term the state does not hold
    /// (none should) counts as "could decide".
    fn could_decide(&self, (regs, mem): &(Vec<i64>, Vec<i64>)) -> bool {
        let Some(c) = self.program.condition.as_ref() else {
            return true;
        };
        let missing = Cell::new(false);
        let location = |l: usize| match self.shown_locs.iter().position(|&x| x == l) {
            Some(i) => mem[i],
            None => {
                missing.set(true);
                0
            }
        };
        let value = |t: &Term| match t {
            Term::Const(c) => *c,
            Term::Reg { thread, reg } => {
                match self
                    .shown_regs
                    .iter()
                    .position(|(t, r)| t == thread && r == reg)
                {
                    Some(i) => regs[i],
                    None => {
                        missing.set(true);
                        0
                    }
                }
            }
            Term::Loc(l) => location(*l),
            Term::Bytes { parts, .. } => Term::bytes_value(parts, &location),
        };
        let passes = c.filter.as_ref().is_none_or(|f| f.eval(&value));
        let holds = c.expr.eval(&value);
        missing.get()
            || (passes
                && match c.quantifier {
                    Some(Quantifier::Exists) | Some(Quantifier::NotExists) => holds,
                    Some(Quantifier::Forall) => !holds,
                    None => true,
                })
    }

    /// Whether some candidate of `sk` could decide the condition, judged
    /// from what holds for all of them before any reads-from or order
    /// choice: each shown register's value when its path fixes it, and
    /// each shown location's final value among the values of the writes
    /// no write of their own thread follows (a superset of the final
    /// values any candidate has). No when the filter fails for every
    /// choice of those values, or the condition has the same value for
    /// every choice and it decides nothing (holds under `forall`, fails
    /// under `exists`/`~exists`): then the whole skeleton is skipped.
    fn skeleton_may_decide(&mut self, sk: &Skeleton) -> bool {
        let program = self.program;
        let Some(c) = program.condition.as_ref() else {
            return true;
        };
        let regs: Vec<Option<Vec<i64>>> = self
            .shown_regs
            .iter()
            .map(
                |(t, r)| match sk.registers[*t].iter().find(|(n, _)| n == r) {
                    None => Some(vec![0]),
                    Some((_, RegValue::Const(c))) => Some(vec![*c]),
                    Some((_, RegValue::Read(e))) => sk.events[*e].read_value.map(|v| vec![v]),
                    Some((_, RegValue::Expr(_))) => None,
                },
            )
            .collect();
        let mem = maximal_write_values(sk, None, None, program, &self.shown_locs, None);
        // Skeletons often share these values: judged once.
        let key = (regs, mem);
        if let Some(&may) = self.may_decide.get(&key) {
            return may;
        }
        let (regs, mem) = &key;
        let location = |l: usize| {
            let i = self.shown_locs.iter().position(|&x| x == l)?;
            mem[i].clone()
        };
        let value = |t: &Term| -> Option<Vec<i64>> {
            match t {
                Term::Const(c) => Some(vec![*c]),
                Term::Reg { thread, reg } => {
                    let i = self
                        .shown_regs
                        .iter()
                        .position(|(t, r)| t == thread && r == reg)?;
                    regs[i].clone()
                }
                Term::Loc(l) => location(*l),
                Term::Bytes { parts, .. } => {
                    // Every combination of the parts' values (a few).
                    let sets: Vec<(usize, Vec<i64>)> = parts
                        .iter()
                        .map(|p| Some((p.loc, location(p.loc)?)))
                        .collect::<Option<_>>()?;
                    let few = sets
                        .iter()
                        .try_fold(1usize, |n, (_, set)| n.checked_mul(set.len()))
                        .is_some_and(|n| n <= 256);
                    if !few {
                        return None;
                    }
                    let values: Vec<Vec<i64>> = sets.iter().map(|(_, set)| set.clone()).collect();
                    let combos = crate::engine::combinations(&values);
                    let mut out: Vec<i64> = combos
                        .iter()
                        .map(|combo| {
                            let at = |l: usize| {
                                sets.iter()
                                    .position(|(x, _)| *x == l)
                                    .map_or(0, |i| combo[i])
                            };
                            Term::bytes_value(parts, &at)
                        })
                        .collect();
                    out.sort_unstable();
                    out.dedup();
                    Some(out)
                }
            }
        };
        let may = c
            .filter
            .as_ref()
            .is_none_or(|f| f.eval_over(&value) != Some(false))
            && match c.quantifier {
                Some(Quantifier::Exists) | Some(Quantifier::NotExists) => {
                    c.expr.eval_over(&value) != Some(false)
                }
                Some(Quantifier::Forall) => c.expr.eval_over(&value) != Some(true),
                None => true,
            };
        self.may_decide.insert(key, may);
        may
    }

    /// Whether the current skeleton's barrier divergences and
    /// out-of-bounds sites are all recorded.
    fn divergence_recorded(&self) -> bool {
        self.divergent
            .iter()
            .all(|d| self.barrier_divergence.contains(d))
            && self
                .taken
                .iter()
                .all(|&k| self.site_executions.get(k).is_some_and(|&n| n > 0))
    }
}

/// A racing pair of instructions as `((thread, stmt), (thread, stmt))`,
/// in thread order.
type RaceKey = ((usize, usize), (usize, usize));

/// The values a skeleton allows: per shown register (`None`: not fixed by
/// the paths) and per shown location (`None`: a derived store).
type ValueSets = (Vec<Option<Vec<i64>>>, Vec<Option<Vec<i64>>>);

/// The visitor behind [`check_litmus`]: final states, witnesses, races.
struct Outcomes<'p> {
    program: &'p Program,
    /// The model's final-memory order and race bindings (its profile).
    final_order: Option<&'p str>,
    races_binding: Option<&'p str>,
    decide: Option<Property>,
    shown_regs: Vec<(usize, String)>,
    /// The shown register each register term of the condition and filter
    /// reads, by the term's address (of `program.condition`, which the
    /// walk does not change): `(address, index into shown_regs)`, sorted
    /// ([`condition_slots`]).
    cond_slots: std::sync::Arc<Vec<(usize, usize)>>,
    shown_locs: Vec<usize>,
    /// How the final states list memory ([`shown_memory`]).
    shown_memory: Vec<(String, Term)>,
    /// The final states recorded, under the names of `shown_regs` (`P1:r0`)
    /// then of `shown_memory`, made once (src/analysis/states.rs).
    states: StateCounts,
    /// The state being recorded: its values (reused, not reallocated).
    scratch: Vec<i64>,
    /// Factored candidates visited (consistent, in the walk over complete
    /// executions), and the combinations they stood for.
    factored: Factored,
    positive: u64,
    negative: u64,
    consistent: u64,
    races: Vec<RacePair>,
    /// The racing instruction pairs already in `races`, as `(thread, stmt)`
    /// pairs, with their index in `races`: a racy candidate names each
    /// pair once, however many executions show it (a map, so that many
    /// racing pairs stay linear).
    race_keys: std::collections::HashMap<RaceKey, usize>,
    /// Each text of `races` (without states) and its index.
    race_texts: std::collections::HashMap<RacePair, usize>,
    /// Per pair of `races`: the final states of the executions in which it
    /// races, by their number in `states` (a state racing pairs share is
    /// kept once, however many pairs race in it).
    race_states: Vec<StateSet>,
    /// The current candidate's racing executions' distinct final states,
    /// by the power of the location-renaming group whose image they are
    /// (index 0 without that reduction): [`Outcomes::record_races`] gives
    /// them to the candidate's racing pairs. A set, so that a factored
    /// candidate's many executions reaching few states cost few entries.
    racy_now: Vec<rustc_hash::FxHashSet<u32>>,
    /// The power of the location-renaming group whose image
    /// [`Outcomes::record_state`] is recording.
    image: usize,
    racy: bool,
    /// The current skeleton's divergent barriers (described).
    divergent: Vec<String>,
    /// [`Property::States`]: skip candidates whose final state is known.
    states_only: bool,
    /// The condition's verdict only, outcome-directed (with `states_only`):
    /// also skip candidates whose known final state cannot decide it.
    condition_only: bool,
    /// [`Outcomes::skeleton_may_decide`] by the value sets it judged.
    may_decide: std::collections::HashMap<ValueSets, bool>,
    /// The states recorded, as the register values and final values of
    /// `shown_locs` they come from (what the state and the filter are
    /// functions of), for `states_only`.
    seen: std::collections::HashSet<(Vec<i64>, Vec<i64>)>,
    /// The current skeleton's state when every candidate of it has the
    /// same one (read values fixed by the paths, one possible final value
    /// per shown location), for `states_only`.
    skeleton_state: Option<(Vec<i64>, Vec<i64>)>,
    barrier_divergence: Vec<String>,
    barrier_stalls: Vec<String>,
    /// The out-of-bounds sites the current skeleton's paths take (indices
    /// into [`Program::out_of_bounds`]).
    taken: Vec<usize>,
    /// Per site: the executions that take it.
    site_executions: Vec<u64>,
    /// Per site: its access (the sites of one instruction in every
    /// invocation are one access), and per access the executions that
    /// make it.
    access_of: std::sync::Arc<Vec<usize>>,
    access_executions: Vec<u64>,
    undefined: Undefined,
    /// The final states of executions with undefined behaviour.
    undefined_states: StateCounts,
    /// The walk is over executions in which threads stop where the
    /// unrolling bound cut them ([`Visitor::prefixes`]): races only.
    prefix: bool,
    /// In that walk, where the current skeleton's stopped threads stop.
    stops: Vec<String>,
    /// Under reduction by renaming locations ([`Skeleton::rotation`]):
    /// per power of the group, where each shown register's and each shown
    /// location's value goes in the image state ([`ImageSlots`]); made at
    /// the first skeleton that needs it (one group per walk).
    image_slots: Vec<ImageSlots>,
    /// The limit that stopped merging a part's final states
    /// ([`Split::merge`]): the listing is then dropped.
    listing_stopped: Option<LimitKind>,
}

/// Where the values of a state go in its image under one power of the
/// group of a walk reduced by renaming locations
/// ([`crate::engine::rotation`]): the image execution's register `r` of
/// thread `pi(t)` holds what `r` of `t` held, its location `lambda(x)`
/// what `x` held.
struct ImageSlots {
    /// Per index into `shown_regs`: the index its value takes.
    regs: Vec<usize>,
    /// Per index into `shown_locs`: the index its final value takes.
    locs: Vec<usize>,
}

/// Where the threads of an execution stopping at the bound stop
/// ([`crate::engine::Ending::Cut`]), grouped by place, in thread order: of
/// `sk`'s execution, or of its image under the thread permutation `perm`
/// (thread `u`'s ending is thread `perm[u]`'s; empty: the identity).
fn stops_text(program: &Program, sk: &Skeleton, perm: &[usize]) -> Vec<String> {
    use crate::engine::Ending;
    let n = sk.endings.len();
    let mut of = vec![0usize; n];
    for u in 0..n {
        of[perm.get(u).copied().unwrap_or(u)] = u;
    }
    // Why a thread stops: the bound, a spin no value leaves, or waiting at
    // the control barrier where the walk over barrier prefixes stops
    // every thread.
    #[derive(Clone, Copy, PartialEq)]
    enum Why {
        Bound,
        Spinning,
        Waiting,
        NotStarted,
    }
    let mut at: Vec<(&crate::ir::SourceSpan, Why, Vec<String>)> = Vec::new();
    for (v, &u) in of.iter().enumerate() {
        let Ending::Cut {
            stmt,
            spinning,
            waiting,
        } = &sk.endings[u]
        else {
            continue;
        };
        let t = &program.threads[v];
        let why = match (spinning, waiting) {
            (true, _) => Why::Spinning,
            (false, true) if *stmt == crate::engine::NOT_STARTED => Why::NotStarted,
            (false, true) => Why::Waiting,
            (false, false) => Why::Bound,
        };
        // A thread that has not started is named with the first statement.
        let src = t.code[if why == Why::NotStarted { 0 } else { *stmt }].source();
        match at.iter_mut().find(|(s, w, _)| {
            *w == why && (why == Why::NotStarted || (s.line == src.line && s.text == src.text))
        }) {
            Some((_, _, who)) => who.push(format!("P{}", t.id)),
            None => at.push((src, why, vec![format!("P{}", t.id)])),
        }
    }
    at.into_iter()
        .map(|(src, why, who)| {
            let one = who.len() == 1;
            let verb = match (why, one) {
                (Why::Bound, true) => "stops at the bound before",
                (Why::Bound, false) => "stop at the bound before",
                (Why::Spinning, true) => "spins forever (no value leaves the loop) at",
                (Why::Spinning, false) => "spin forever (no value leaves the loop) at",
                (Why::Waiting, true) => "waits at the control barrier of",
                (Why::Waiting, false) => "wait at the control barrier of",
                (Why::NotStarted, true) => "has not started",
                (Why::NotStarted, false) => "have not started",
            };
            if why == Why::NotStarted {
                return format!("{} {verb}", who.join(", "));
            }
            format!("{} {verb} {}: {}", who.join(", "), src.place(), src.text)
        })
        .collect()
}

/// Per site of [`Program::out_of_bounds`], its access: the first site of
/// the same variable and instruction (one per invocation that may make it).
fn accesses_of(program: &Program) -> Vec<usize> {
    let sites = &program.out_of_bounds;
    sites
        .iter()
        .map(|s| {
            sites
                .iter()
                .position(|o| o.variable == s.variable && o.source == s.source)
                .unwrap_or(0)
        })
        .collect()
}

/// The out-of-bounds sites (indices into [`Program::out_of_bounds`]) the
/// paths of `sk` take: their marker register is nonzero at the end.
///
/// A path's registers are sorted by name (`engine::trace`), so a thread's
/// marker registers are one run found by bisection: the check costs a
/// few comparisons per thread with sites, not a scan of every register.
pub(crate) fn out_of_bounds_taken(program: &Program, sk: &Skeleton) -> Vec<usize> {
    let sites = &program.out_of_bounds;
    if sites.is_empty() {
        return Vec::new();
    }
    let prefix = crate::ir::OutOfBounds::PREFIX;
    let mut taken = Vec::new();
    let mut thread = usize::MAX;
    let mut marked: &[(String, RegValue)] = &[];
    for (k, site) in sites.iter().enumerate() {
        if site.thread != thread {
            thread = site.thread;
            let regs = &sk.registers[thread];
            debug_assert!(regs.is_sorted_by(|a, b| a.0 <= b.0));
            let start = regs.partition_point(|(r, _)| r.as_str() < prefix);
            let len = regs[start..]
                .iter()
                .take_while(|(r, _)| r.starts_with(prefix))
                .count();
            marked = &regs[start..start + len];
        }
        if marked
            .iter()
            .any(|(r, v)| *r == site.register && !matches!(v, RegValue::Const(0)))
        {
            taken.push(k);
        }
    }
    taken
}

/// What the listing needs of the search ([`Visitor::needs`]), one part each.
impl Outcomes<'_> {
    /// Consistent candidates only: their flags (races), the race relation
    /// and the final-memory order of the profile.
    fn reads_needed(&self) -> Option<Vec<String>> {
        Some(
            [self.races_binding, self.final_order]
                .into_iter()
                .flatten()
                .map(str::to_string)
                .collect(),
        )
    }

    /// The listing's answers (final states over the shown registers and
    /// memory, the condition's verdict, races) are the same for every
    /// permutation of threads whose registers are not shown: those are
    /// kept fixed; counts are multiplied and racing pairs mapped
    /// ([`Outcomes::record_races`]).
    fn symmetry_needed(&self) -> Option<Vec<bool>> {
        let mut fixed = vec![false; self.program.threads.len()];
        for (t, _) in &self.shown_regs {
            fixed[*t] = true;
        }
        Some(fixed)
    }

    /// The listing's answers are functions of the final states over the
    /// shown registers and locations (the states, their counts, the
    /// condition's and filter's verdicts on them) and of the racing pairs:
    /// it records each execution's images ([`Outcomes::record`],
    /// [`Outcomes::record_races`]). Only for the full listing (not the
    /// outcome-directed walks, which skip by known states), when the
    /// states show memory location by location and the condition reads
    /// only constants, shown registers and shown locations.
    fn renaming_needed(&self) -> Option<crate::engine::rotation::Shown> {
        if self.states_only || self.condition_only || self.decide.is_some() {
            return None;
        }
        if !self
            .shown_memory
            .iter()
            .all(|(_, t)| matches!(t, Term::Loc(l) if self.shown_locs.contains(l)))
        {
            return None;
        }
        let mut terms = Vec::new();
        if let Some(c) = &self.program.condition {
            c.expr.terms(&mut terms);
            if let Some(f) = &c.filter {
                f.terms(&mut terms);
            }
        }
        let readable = terms.iter().all(|t| match t {
            Term::Const(_) => true,
            Term::Loc(l) => self.shown_locs.contains(l),
            Term::Reg { thread, reg } => {
                self.shown_regs.iter().any(|(u, r)| u == thread && r == reg)
            }
            Term::Bytes { .. } => false,
        });
        readable.then(|| crate::engine::rotation::Shown {
            registers: self.shown_regs.clone(),
            locations: self.shown_locs.clone(),
        })
    }

    /// When races are what the walk decides (a suite's races property):
    /// with paths cut, only a race can be answered, and the executions
    /// stopping at the bound are the smaller ones to search. The listing
    /// keeps the complete executions first (their races are reported as
    /// such).
    fn prefixes_first_needed(&self) -> bool {
        self.decide == Some(Property::Races)
    }

    /// The listing reads of a candidate its consistency, its flags, the
    /// race relation and the final-memory order (location order, which
    /// does not read the reads-from edges into observation reads), and
    /// the values its reads read: it takes factored candidates, except
    /// where only the condition's verdict is asked: that walk skips, one
    /// by one, the candidates whose known state cannot decide it, and
    /// ends at the first witness (a factored candidate is evaluated
    /// whatever its combinations' states: more evaluations there).
    fn factored_needed(&self) -> bool {
        !self.condition_only
    }
}

impl Visitor for Outcomes<'_> {
    fn needs(&self) -> crate::engine::Needs {
        crate::engine::Needs {
            reads: self.reads_needed(),
            factored: self.factored_needed(),
            symmetry: self.symmetry_needed(),
            renaming: self.renaming_needed(),
            prefixes_first: self.prefixes_first_needed(),
            constrains_orders: false,
            barriers_agree: false,
            // Each candidate counted `Skeleton::multiplicity` times; the
            // states show no register nothing reads.
            commuting_rmws: true,
        }
    }

    fn found(&self) -> Option<u64> {
        Some(self.states.len() as u64)
    }

    /// With `states_only`, a skeleton whose candidates all have one final
    /// state, already recorded, is skipped (unless it would record a new
    /// barrier divergence).
    fn wants(&mut self, sk: &Skeleton) -> bool {
        if self.prefix {
            return self.wants_prefix(sk);
        }
        self.divergent = super::barriers::describe_divergent(self.program, sk);
        self.taken = out_of_bounds_taken(self.program, sk);
        self.skeleton_state = None;
        if !self.states_only {
            return true;
        }
        self.skeleton_state = self.known_state(sk, None);
        if self.condition_only && self.divergence_recorded() && !self.skeleton_may_decide(sk) {
            return false;
        }
        !self.settled()
    }

    fn wants_candidate(&mut self, sk: &Skeleton, cand: &Candidate) -> bool {
        if !self.states_only || !self.divergence_recorded() {
            return true;
        }
        match &self.skeleton_state {
            Some(st) => !self.known(st),
            None => self
                .known_state(sk, Some(cand))
                .is_none_or(|st| !self.known(&st)),
        }
    }

    fn settled(&self) -> bool {
        self.states_only
            && self.divergence_recorded()
            && self
                .skeleton_state
                .as_ref()
                .is_some_and(|st| self.known(st))
    }

    /// Races judged on executions that stop at the bound: what such an
    /// execution is, and why its consistency is decided as a complete
    /// one's.
    ///
    /// It is an execution of the unrolled program as Dat3M runs it (its
    /// bound event ends the thread): the events run before the cut are
    /// the execution's and the model is evaluated on them alone, so a race
    /// found there is a race within the bound in Dat3M's sense, between
    /// instructions "actually executed" (Vulkan appendix, Data Race).
    ///
    /// The models judge such a prefix as they would the complete
    /// execution it begins. The walk keeps a prefix only when it is
    /// closed under program order (a thread stops at one point), under
    /// reads-from sources (a read's value must be written by a chosen
    /// event or be the initial value) and under barrier partners
    /// ([`Outcomes::wants_prefix`]), hence under happens-before
    /// predecessors: synchronizes-with goes from a write read (or a barrier
    /// instance passed) to the reader. So every relation the models build
    /// from po, rf, the orders and happens-before, restricted to the prefix,
    /// is the prefix's own. `vulkan` and its variants have one axiom, "no
    /// cycles exist in the union of the following relations:
    /// location-ordered, scoped modification order (over all atomic
    /// writes), reads-from, from-reads" (appendix; MODELS.md: "whose only
    /// axiom is the acyclicity of location order, asmo, rf and fr"), and a
    /// restriction of an acyclic relation is acyclic: a prefix of a
    /// consistent complete execution is consistent (prefix-closed), and a
    /// consistent prefix is judged by the same axiom on fewer events.
    /// OpenCL's visible-side-effect rule, not monotone in happens-before
    /// (MODELS.md, spin loops), reads only a read's happens-before
    /// predecessors, which such a prefix keeps. The exception is `imm(...)`
    /// of an order (release sequences: `imm(asmo)`): removing a write
    /// after a cut can make two writes adjacent; a read-modify-write after
    /// the removed write read from it under RMW atomicity
    /// (`vulkan-rules.cat` declares `rmw-atomicity`, `opencl-rules.cat`
    /// has it as an axiom), so such a prefix is not rf-closed and is
    /// never walked.
    fn prefixes(&mut self) -> bool {
        // Races asked (the listing, or a suite's races property), none
        // found yet among the executions without undefined behaviour, and
        // no filter: a filter speaks of final states, which an execution
        // stopping at the bound has not.
        self.prefix = !self.states_only
            && matches!(self.decide, None | Some(Property::Races))
            && self.races_binding.is_some()
            && !self.undefined.defined_racy
            && self
                .program
                .condition
                .as_ref()
                .is_none_or(|c| c.filter.is_none());
        self.prefix
    }

    fn prefixes_end(&mut self) {
        self.prefix = false;
        self.stops.clear();
        self.taken.clear();
    }

    fn stalled(&mut self, sk: &Skeleton) {
        if self.prefix {
            return;
        }
        let program = self.program;
        for (g, events) in super::barriers::stalled(sk) {
            let who: Vec<String> = g
                .passed
                .iter()
                .map(|(e, _)| format!("P{}", program.threads[sk.events[*e].thread].id))
                .collect();
            for e in events {
                let quorum = sk.events[e].barrier.quorum.unwrap_or(0);
                let d = format!(
                    "{}{} waits forever: quorum {quorum}, {} arrive{} ({})",
                    describe(program, &sk.events[e]),
                    super::barriers::pass_note(g.key.1),
                    who.len(),
                    if who.len() == 1 { "s" } else { "" },
                    who.join(", ")
                );
                if !self.barrier_stalls.contains(&d) {
                    self.barrier_stalls.push(d);
                }
            }
        }
    }

    /// Each combination a factored candidate stands for is one execution:
    /// its final state and condition are the combination's, its flags and
    /// races the evaluation's (every combination's, by the model's
    /// `location-local-reads`); in the walk over executions stopping at
    /// the bound, only races are recorded, once. An inconsistent
    /// evaluation of the first combination, whose every location was
    /// found consistent, contradicts the declaration: an error, not a
    /// silent answer.
    fn visit_factored(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        eval: &Evaluation,
        over: &dyn Fn() -> bool,
    ) -> Result<ControlFlow<()>, CheckError> {
        let Some(factors) = cand.factors.as_ref() else {
            return self.visit(sk, cand, eval);
        };
        if !eval.consistent() {
            return Err(CheckError::Unsupported(
                "the model declares `location-local-reads`, but a combination of observation reads consistent location by location is not consistent: the declaration does not hold for it (run with --no-read-factoring)".to_string(),
            ));
        }
        if self.prefix {
            return Ok(self.visit_prefix(sk, eval));
        }
        self.factored.add(Factored {
            candidates: 1,
            combinations: factors.combinations(),
        });
        // Room for the states they may add (at most one each; bounded).
        self.states
            .reserve(factors.combinations().min(RESERVE_STATES) as usize);
        // What the combinations share is computed once; each combination
        // adds its registers' values (and the filter and condition on them).
        let shared = Shared::of(self, sk, cand, eval);
        let (mut record, mut decided) = (false, false);
        // Past the budget the combinations stop unrecorded; the walk's
        // budget holds the limit, so the answer is undecided.
        let _ = factors.for_each(sk, cand, over, &mut |c| {
            if !self.wants_candidate(sk, c) {
                return ControlFlow::Continue(());
            }
            let (r, d) = self.record(sk, c, &shared);
            record |= r;
            decided = d;
            if d {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        Ok(self.after_visit(sk, eval, record, decided))
    }

    fn visit(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        if !eval.consistent() {
            return Ok(ControlFlow::Continue(()));
        }
        if self.prefix {
            return Ok(self.visit_prefix(sk, eval));
        }
        let shared = Shared::of(self, sk, cand, eval);
        let (record, decided) = self.record(sk, cand, &shared);
        Ok(self.after_visit(sk, eval, record, decided))
    }
}

/// Per register term of `program`'s condition and filter (by its
/// address): its index in `shown_regs`, sorted by address. The terms are
/// found by address while the walk evaluates the condition on each
/// execution (no name compared); a term not listed is evaluated by name.
fn condition_slots(program: &Program, shown_regs: &[(usize, String)]) -> Vec<(usize, usize)> {
    let mut terms = Vec::new();
    if let Some(c) = &program.condition {
        c.expr.terms(&mut terms);
        if let Some(f) = &c.filter {
            f.terms(&mut terms);
        }
    }
    let mut slots: Vec<(usize, usize)> = terms
        .into_iter()
        .filter_map(|t| match t {
            Term::Reg { thread, reg } => shown_regs
                .iter()
                .position(|(u, r)| u == thread && r == reg)
                .map(|i| (std::ptr::from_ref(t).addr(), i)),
            _ => None,
        })
        .collect();
    slots.sort_unstable();
    slots.dedup();
    slots
}

/// The most states a factored candidate reserves room for at once.
const RESERVE_STATES: u64 = 1 << 20;

/// What the executions a consistent candidate stands for share: the
/// combinations of its factored observation reads change only the values
/// those reads return ([`crate::engine::Factors`]: no derived store or
/// register expression reads them), so the writes, `co`, the final order
/// of the one evaluation, hence the final memory, are theirs all; and
/// their flags and races are the evaluation's (`location-local-reads`,
/// MODELS.md "Factored observation reads").
struct Shared {
    /// Each possible final memory of the shown locations (usually one).
    mem: Vec<Vec<i64>>,
    /// Where each shown register's final value comes from on the paths.
    regs: Vec<Slot>,
    /// Whether the evaluation flags a race.
    racy: bool,
    /// What the candidate stands for under symmetry reduction.
    multiplicity: u64,
}

/// Where a shown register's final value comes from ([`Shared::regs`]).
#[derive(Clone, Copy)]
enum Slot {
    Const(i64),
    /// The value read event `e` reads, the `k`th of the skeleton's reads,
    /// `initial` its location's initial value.
    Read {
        e: usize,
        k: usize,
        initial: i64,
    },
    /// Anything else, as [`reg_value`] computes it.
    Other(RegValue),
}

impl Shared {
    fn of(o: &Outcomes<'_>, sk: &Skeleton, cand: &Candidate, eval: &Evaluation) -> Shared {
        let program = o.program;
        Shared {
            mem: memory_states(sk, cand, eval, program, &o.shown_locs, o.final_order),
            regs: o
                .shown_regs
                .iter()
                .map(|(t, r)| {
                    match sk.registers[*t].iter().find(|(n, _)| n == r) {
                        // (Not set on the paths: 0, as [`reg_value`] has it.)
                        None => Slot::Const(0),
                        Some((_, RegValue::Const(c))) => Slot::Const(*c),
                        Some((_, RegValue::Read(e))) => match sk.reads.binary_search(e) {
                            Ok(k) => Slot::Read {
                                e: *e,
                                k,
                                initial: initial_of(sk, *e, program),
                            },
                            Err(_) => Slot::Other(RegValue::Read(*e)),
                        },
                        Some((_, v)) => Slot::Other(*v),
                    }
                })
                .collect(),
            racy: eval.flags().next().is_some(),
            multiplicity: sk.multiplicity(),
        }
    }
}

impl Outcomes<'_> {
    /// Records the execution `cand` (one combination of a factored
    /// candidate, or a candidate), under what its candidate's executions
    /// share: for each final memory passing the filter, its state, counts
    /// and condition. Returns whether one of them races and whether one
    /// decided the walk.
    fn record(&mut self, sk: &Skeleton, cand: &Candidate, shared: &Shared) -> (bool, bool) {
        let program = self.program;
        let nregs = self.shown_regs.len();
        let mut state = std::mem::take(&mut self.scratch);
        state.clear();
        state.extend(shared.regs.iter().map(|v| match *v {
            Slot::Const(c) => c,
            Slot::Read { e, k, initial } => read_from(sk, cand, e, k, || initial),
            Slot::Other(RegValue::Const(c)) => c,
            Slot::Other(RegValue::Read(e)) => read_value(sk, cand, e, program),
            Slot::Other(v @ RegValue::Expr(_)) => {
                cand.values.as_ref().map_or(0, |vals| vals.term(v))
            }
        }));
        let (mut record, mut decided) = (false, false);
        let Some(rotation) = &sk.rotation else {
            self.image = 0;
            for mem in &shared.mem {
                let (r, d) = self.record_state(sk, cand, shared, &mut state, mem);
                record |= r;
                decided = d;
                if decided {
                    break;
                }
            }
            self.scratch = state;
            return (record, decided);
        };
        // Under reduction by renaming locations: the execution and its
        // images under the powers `0..images` of the group, each one
        // execution, each with its own state and verdicts.
        if self.image_slots.is_empty() {
            self.image_slots = image_slots(&rotation.group, &self.shown_regs, &self.shown_locs);
        }
        let regs = state[..nregs].to_vec();
        let mut image_mem = Vec::new();
        'images: for k in 0..rotation.images {
            self.image = k;
            for mem in &shared.mem {
                let slots = &self.image_slots[k];
                state.truncate(nregs);
                for (j, &v) in regs.iter().enumerate() {
                    state[slots.regs[j]] = v;
                }
                image_mem.clear();
                image_mem.resize(mem.len(), 0);
                for (j, &v) in mem.iter().enumerate() {
                    image_mem[slots.locs[j]] = v;
                }
                let (r, d) = self.record_state(sk, cand, shared, &mut state, &image_mem);
                record |= r;
                decided = d;
                if decided {
                    break 'images;
                }
            }
        }
        self.scratch = state;
        (record, decided)
    }

    /// Records one execution's final state: its registers' values in
    /// `state[..shown_regs.len()]`, `mem` the final values of the shown
    /// locations (when it passes the filter: its state, counts and
    /// condition). Returns whether it races and whether it decided the
    /// walk.
    fn record_state(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        shared: &Shared,
        state: &mut Vec<i64>,
        mem: &[i64],
    ) -> (bool, bool) {
        let program = self.program;
        let cond = program.condition.as_ref();
        let quantifier = cond.and_then(|c| c.quantifier);
        let m = shared.multiplicity;
        let nregs = self.shown_regs.len();
        state.truncate(nregs);
        let value = |t: &Term| self.term_value(sk, cand, &state[..nregs], mem, t);
        if let Some(f) = cond.and_then(|c| c.filter.as_ref())
            && !f.eval(&value)
        {
            return (false, false);
        }
        let positive = cond.is_none_or(|c| c.expr.eval(&value));
        for (_, t) in &self.shown_memory {
            let v = term_value(sk, cand, program, &self.shown_locs, mem, t);
            state.push(v);
        }
        self.consistent = self.consistent.saturating_add(m);
        for d in &self.divergent {
            if !self.barrier_divergence.contains(d) {
                self.barrier_divergence.push(d.clone());
            }
        }
        if self.states_only {
            self.seen.insert((state[..nregs].to_vec(), mem.to_vec()));
        }
        let undefined = !self.taken.is_empty();
        if undefined {
            self.undefined.executions += 1;
            let n = program.out_of_bounds.len();
            self.site_executions.resize(n, 0);
            self.access_executions.resize(n, 0);
            for &k in &self.taken {
                self.site_executions[k] += 1;
            }
            let mut accesses: Vec<usize> = self.taken.iter().map(|&k| self.access_of[k]).collect();
            accesses.sort_unstable();
            accesses.dedup();
            for a in accesses {
                self.access_executions[a] += 1;
            }
            self.undefined_states.add(state, 1);
        }
        let id = self.states.add(state, m);
        self.states.mark(id, positive);
        if positive {
            self.positive = self.positive.saturating_add(m);
            if !undefined {
                self.undefined.defined_positive = self.undefined.defined_positive.saturating_add(m);
            }
        } else {
            self.negative = self.negative.saturating_add(m);
            if !undefined {
                self.undefined.defined_negative = self.undefined.defined_negative.saturating_add(m);
            }
        }
        let mut record = false;
        if shared.racy {
            self.racy = true;
            self.undefined.defined_racy |= !undefined;
            record = true;
            if self.racy_now.len() <= self.image {
                self.racy_now.resize_with(self.image + 1, Default::default);
            }
            // By its number in the listing (recorded just above).
            self.racy_now[self.image].insert(id);
        }
        // Only a witness without undefined behaviour settles a verdict
        // (one with it promises nothing: the walk goes on).
        let u = &self.undefined;
        let decided = match self.decide {
            Some(Property::Races) => u.defined_racy,
            Some(Property::Termination) | Some(Property::States) => false,
            Some(Property::Condition) => match quantifier {
                Some(Quantifier::Exists) | Some(Quantifier::NotExists) => u.defined_positive > 0,
                Some(Quantifier::Forall) => u.defined_negative > 0,
                None => false,
            },
            None => false,
        };
        (record, decided)
    }

    /// The value of a condition term in the execution whose shown
    /// registers have the values `regs` (in `shown_regs`' order) and
    /// shown locations the final values `mem`: a register term of the
    /// condition by its slot ([`condition_slots`]), anything else by
    /// [`term_value`].
    fn term_value(
        &self,
        sk: &Skeleton,
        cand: &Candidate,
        regs: &[i64],
        mem: &[i64],
        t: &Term,
    ) -> i64 {
        if let Term::Reg { .. } = t
            && let Ok(i) = self
                .cond_slots
                .binary_search_by_key(&std::ptr::from_ref(t).addr(), |&(a, _)| a)
        {
            return regs[self.cond_slots[i].1];
        }
        term_value(sk, cand, self.program, &self.shown_locs, mem, t)
    }

    /// After a candidate's executions are recorded: its racing pairs (the
    /// evaluation's, once) when one of them raced, and whether the walk
    /// goes on.
    fn after_visit(
        &mut self,
        sk: &Skeleton,
        eval: &Evaluation,
        record: bool,
        decided: bool,
    ) -> ControlFlow<()> {
        if record {
            self.record_races(sk, eval, Vec::new());
        }
        self.racy_now.iter_mut().for_each(|s| s.clear());
        if decided {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl Outcomes<'_> {
    /// Records the racing pairs of a consistent racy candidate's race
    /// relation (each pair of instructions once), with where the threads
    /// of an execution stopping at the bound stop (`stopped_at_bound`).
    ///
    /// Under symmetry reduction ([`Skeleton::multiplicity`]) the candidate
    /// stands for its images under the permutations of interchangeable
    /// threads, each racing between the permuted instructions: each pair
    /// is recorded with its images too (per pair of image threads, one
    /// permutation mapping the pair there, which also says where the
    /// threads of an execution stopping at the bound stop).
    fn record_races(&mut self, sk: &Skeleton, eval: &Evaluation, stopped_at_bound: Vec<String>) {
        let program = self.program;
        let Some(Value::Rel(dr)) = self.races_binding.and_then(|b| eval.lookup(b)) else {
            return;
        };
        let threads = program.threads.len();
        for (a, b) in dr.pairs().filter(|(a, b)| a < b) {
            let (ea, eb) = (&sk.events[a], &sk.events[b]);
            // Each image: its threads, the permutation, and under renaming
            // locations the power of the group it is.
            let images: Vec<(usize, usize, Vec<usize>, Option<usize>)> =
                match (&sk.symmetry, &sk.rotation) {
                    (Some(sym), _) => sym
                        .classes
                        .images(ea.thread, eb.thread, threads)
                        .into_iter()
                        .map(|(x, y, perm)| (x, y, perm, None))
                        .collect(),
                    // Renaming locations: the pair's image under each power
                    // (the location follows: it is the image instruction's).
                    (None, Some(r)) => (0..r.images)
                        .map(|k| {
                            let pi = r.group.thread_power(k);
                            (pi[ea.thread], pi[eb.thread], pi.to_vec(), Some(k))
                        })
                        .collect(),
                    (None, None) => vec![(ea.thread, eb.thread, Vec::new(), None)],
                };
            for (x, y, perm, power) in images {
                let (mut ex, mut ey) = (ea.clone(), eb.clone());
                ex.thread = x;
                ey.thread = y;
                // Thread order, as the events of a skeleton are.
                if (ex.thread, ex.stmt) > (ey.thread, ey.stmt) {
                    std::mem::swap(&mut ex, &mut ey);
                }
                // The states this image of the pair races in
                // ([`add_race_states`]): under renaming locations those of
                // the same power's image.
                let key = ((ex.thread, ex.stmt), (ey.thread, ey.stmt));
                if let Some(&i) = self.race_keys.get(&key) {
                    add_race_states(&mut self.race_states[i], &self.racy_now, power);
                    continue;
                }
                let loc = program
                    .location_of(ex.instruction(program))
                    .map(|l| program.locations[l].clone())
                    .unwrap_or_default();
                let stops = if perm.is_empty() || stopped_at_bound.is_empty() {
                    stopped_at_bound.clone()
                } else {
                    stops_text(program, sk, &perm)
                };
                let pair = RacePair {
                    first: describe(program, &ex),
                    second: describe(program, &ey),
                    first_file: ex
                        .instruction(program)
                        .source
                        .file
                        .clone()
                        .map(String::from),
                    second_file: ey
                        .instruction(program)
                        .source
                        .file
                        .clone()
                        .map(String::from),
                    location: loc,
                    attribution: program.attributions.this.clone(),
                    stopped_at_bound: stops,
                    states: Vec::new(),
                    state_count: 0,
                    states_cut: false,
                    state_ids: StateSet::default(),
                };
                // Two instructions on one source line may describe alike.
                let i = self.race_index(pair);
                self.race_keys.insert(key, i);
                add_race_states(&mut self.race_states[i], &self.racy_now, power);
            }
        }
    }

    /// [`Visitor::wants`] in the walk over executions stopping at the
    /// bound. Such an execution is the unrolled program's as Dat3M runs
    /// it: a thread ends at its bound event, the events before it are the
    /// execution's, and the model is evaluated on them; a race among them
    /// is between instructions that were "actually executed" (Vulkan
    /// appendix, Data Race: "Data races can only occur due to instructions
    /// that are actually executed"). Not wanted: a combination in which a
    /// thread stopping at the bound is missing from a barrier instance
    /// without a quorum (or a group function) that another member passes.
    /// The glossary: "A control barrier blocks some set of invocations
    /// from progressing until all of them reach the same point in the
    /// execution": the others cannot pass it, so it is no execution (not
    /// barrier divergence, which a complete path missing the barrier is).
    fn wants_prefix(&mut self, sk: &Skeleton) -> bool {
        use crate::engine::Ending;
        let program = self.program;
        let cut = |u: usize| matches!(sk.endings[u], Ending::Cut { .. });
        let blocked = sk
            .barriers
            .iter()
            .any(|g| !g.has_quorum() && !g.passed.is_empty() && g.absent(&sk.events).any(&cut));
        if blocked {
            return false;
        }
        self.taken = out_of_bounds_taken(program, sk);
        self.stops = stops_text(program, sk, &[]);
        true
    }

    /// [`Visitor::visit`] of a consistent candidate in the walk over
    /// executions stopping at the bound: its races only (no final state,
    /// no count). One with undefined behaviour (an out-of-bounds access
    /// before the bound) promises nothing: its races are not recorded.
    /// Breaks at the first race when races are what the walk decides.
    fn visit_prefix(&mut self, sk: &Skeleton, eval: &Evaluation) -> ControlFlow<()> {
        if eval.flags().next().is_none() || !self.taken.is_empty() {
            return ControlFlow::Continue(());
        }
        self.racy = true;
        self.undefined.defined_racy = true;
        self.record_races(sk, eval, self.stops.clone());
        if self.decide == Some(Property::Races) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// Adds to a racing pair's states those of the candidate's racing
/// executions `racy_now` it races in: all of them, or under renaming
/// locations (`power`) the image executions of that power (the pair's
/// image under it races in them). Under a permutation of interchangeable
/// threads the state stays: those threads show no register, and they run
/// the same code, so they write the same values.
fn add_race_states(
    to: &mut StateSet,
    racy_now: &[rustc_hash::FxHashSet<u32>],
    power: Option<usize>,
) {
    for (k, states) in racy_now.iter().enumerate() {
        if power.is_some_and(|p| p != k) {
            continue;
        }
        for &id in states {
            to.insert(id);
        }
    }
}

/// A set of state numbers (`StateCounts` rows), one bit each: the numbers
/// are dense, and a racing pair may race in hundreds of thousands of
/// states (a bit each, where a hash set of numbers takes about 5 bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct StateSet {
    words: Vec<u64>,
}

impl StateSet {
    fn insert(&mut self, id: u32) {
        let (w, b) = (id as usize / 64, id % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }

    /// How many numbers.
    fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The numbers of both.
    fn union_with(&mut self, other: &StateSet) {
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// The numbers, ascending.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits >> b & 1 == 1)
                .map(move |b| (w * 64 + b) as u32)
        })
    }
}

/// Per power of `group`: where the values of the shown registers and
/// locations go in a state's image ([`ImageSlots`]). The shown sets are
/// closed under the group ([`crate::engine::rotation::Shown`]).
fn image_slots(
    group: &crate::engine::rotation::Rotation,
    shown_regs: &[(usize, String)],
    shown_locs: &[usize],
) -> Vec<ImageSlots> {
    (0..group.order())
        .map(|k| {
            let (pi, lambda) = (group.thread_power(k), group.location_power(k));
            ImageSlots {
                regs: shown_regs
                    .iter()
                    .map(|(t, r)| {
                        shown_regs
                            .iter()
                            .position(|(u, q)| *u == pi[*t] && q == r)
                            .expect("the shown registers are closed under the group")
                    })
                    .collect(),
                locs: shown_locs
                    .iter()
                    .map(|&l| {
                        shown_locs
                            .iter()
                            .position(|&x| x == lambda[l])
                            .expect("the shown locations are closed under the group")
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Adds `from` to `to` item by item (the shorter one counts 0 past its end).
fn add_counts(to: &mut Vec<u64>, from: Vec<u64>) {
    if to.len() < from.len() {
        to.resize(from.len(), 0);
    }
    for (n, m) in to.iter_mut().zip(from) {
        *n = n.saturating_add(m);
    }
}

/// Appends to `to` the items of `from` it does not hold yet, in order.
fn append_new<T: PartialEq>(to: &mut Vec<T>, from: Vec<T>) {
    for x in from {
        if !to.contains(&x) {
            to.push(x);
        }
    }
}

/// The outcome listing splits ([`crate::engine::driver::explore_split`]):
/// what it asks the driver depends only on the skeleton, and it breaks
/// only at a consistent execution that decides the asked property by
/// itself (a witness of the condition, a race). Not with
/// [`Property::States`], which skips what earlier parts recorded.
impl<'p> Outcomes<'p> {
    /// A listing of `program` that found nothing yet, showing nothing,
    /// deciding nothing.
    fn empty(program: &'p Program) -> Outcomes<'p> {
        Outcomes {
            program,
            final_order: None,
            races_binding: None,
            decide: None,
            shown_regs: Vec::new(),
            cond_slots: Default::default(),
            shown_locs: Vec::new(),
            shown_memory: Vec::new(),
            states: StateCounts::default(),
            scratch: Vec::new(),
            factored: Factored::default(),
            positive: 0,
            negative: 0,
            consistent: 0,
            races: Vec::new(),
            race_keys: Default::default(),
            race_texts: Default::default(),
            race_states: Vec::new(),
            racy_now: Vec::new(),
            image: 0,
            racy: false,
            divergent: Vec::new(),
            states_only: false,
            condition_only: false,
            may_decide: Default::default(),
            seen: Default::default(),
            skeleton_state: None,
            barrier_divergence: Vec::new(),
            barrier_stalls: Vec::new(),
            taken: Vec::new(),
            // Sized at the first execution with undefined behaviour; the
            // accesses are computed once per listing ([`check_one`]) and
            // shared by its parts.
            site_executions: Vec::new(),
            access_of: Default::default(),
            access_executions: Vec::new(),
            undefined: Undefined::default(),
            undefined_states: StateCounts::default(),
            prefix: false,
            stops: Vec::new(),
            image_slots: Vec::new(),
            listing_stopped: None,
        }
    }

    /// What the walk found of undefined behaviour, its sites listed, and
    /// the limit `stop` named while its states were sorted (they are then
    /// not listed).
    fn take_undefined(
        &mut self,
        stop: &mut dyn FnMut(usize) -> Option<LimitKind>,
    ) -> (Undefined, Option<LimitKind>) {
        let mut u = std::mem::take(&mut self.undefined);
        let stopped = match std::mem::take(&mut self.undefined_states).into_sorted(stop) {
            Ok(sorted) => {
                u.states = sorted.listing;
                None
            }
            Err(kind) => Some(kind),
        };
        let program = self.program;
        for (a, &n) in self.access_executions.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let mut threads = Vec::new();
            let mut first = None;
            for (k, site) in program.out_of_bounds.iter().enumerate() {
                if self.access_of[k] != a || self.site_executions[k] == 0 {
                    continue;
                }
                first.get_or_insert(site);
                let id = program.threads[site.thread].id;
                threads.push(
                    match program
                        .symbols
                        .threads
                        .get(site.thread)
                        .and_then(|s| s.label.as_deref())
                    {
                        Some(label) => format!("P{id} ({label})"),
                        None => format!("P{id}"),
                    },
                );
            }
            if let Some(site) = first {
                u.out_of_bounds.push(OutOfBoundsAccess {
                    variable: site.variable.clone(),
                    instruction: site.source.text.to_string(),
                    line: site.source.line,
                    file: site.source.file.clone().map(String::from),
                    threads,
                    executions: n,
                });
            }
        }
        (u, stopped)
    }
}

impl Split for Outcomes<'_> {
    fn fork(&self) -> Option<Self> {
        if self.states_only {
            return None;
        }
        Some(Outcomes {
            final_order: self.final_order,
            races_binding: self.races_binding,
            decide: self.decide,
            shown_regs: self.shown_regs.clone(),
            cond_slots: self.cond_slots.clone(),
            shown_locs: self.shown_locs.clone(),
            shown_memory: self.shown_memory.clone(),
            states: StateCounts::new(self.states.names().clone()),
            undefined_states: StateCounts::new(self.states.names().clone()),
            access_of: self.access_of.clone(),
            ..Outcomes::empty(self.program)
        })
    }

    /// Counts add up; the races, barrier divergences and stalls keep the
    /// order in which the walk first met them (a race's text is a function
    /// of its pair of instructions, so the texts new to the part, in the
    /// part's order, are those the sequential walk appends there). The
    /// part's final states are merged under `stop` (the walk's deadline
    /// and memory bound): stopped there, the listing is dropped (it would
    /// be given in part), as is each racing pair's set of states; the
    /// counts and the pairs are merged all the same (executions the part
    /// saw), and the walk stops at that limit.
    fn merge(
        &mut self,
        part: Self,
        stop: &mut dyn FnMut(usize) -> Option<LimitKind>,
    ) -> Result<(), LimitKind> {
        // The part numbers its states itself: their numbers here.
        let renumbered = match self.listing_stopped {
            Some(_) => None,
            None => match self.states.merge(part.states, stop) {
                Ok(ids) => Some(ids),
                Err(kind) => {
                    self.listing_stopped = Some(kind);
                    None
                }
            },
        };
        self.factored.add(part.factored);
        self.positive = self.positive.saturating_add(part.positive);
        self.negative = self.negative.saturating_add(part.negative);
        self.consistent = self.consistent.saturating_add(part.consistent);
        self.racy |= part.racy;
        // The part's pairs by their index here, new ones appended.
        let mut here = Vec::with_capacity(part.races.len());
        for (pair, states) in part.races.into_iter().zip(part.race_states) {
            let i = self.race_index(pair);
            if let Some(renumbered) = &renumbered {
                for id in states.iter() {
                    self.race_states[i].insert(renumbered[id as usize]);
                }
            }
            here.push(i);
        }
        if renumbered.is_none() {
            self.race_states
                .iter_mut()
                .for_each(|s| *s = StateSet::default());
        }
        for (key, i) in part.race_keys {
            self.race_keys.entry(key).or_insert(here[i]);
        }
        append_new(&mut self.barrier_divergence, part.barrier_divergence);
        append_new(&mut self.barrier_stalls, part.barrier_stalls);
        add_counts(&mut self.site_executions, part.site_executions);
        add_counts(&mut self.access_executions, part.access_executions);
        self.undefined.add(part.undefined);
        if self.listing_stopped.is_none()
            && let Err(kind) = self.undefined_states.merge(part.undefined_states, stop)
        {
            self.listing_stopped = Some(kind);
        }
        match self.listing_stopped {
            Some(kind) => Err(kind),
            None => Ok(()),
        }
    }
}

/// Runs a litmus test. With `decide = Some(property)` the search stops as soon
/// as that property is decided (the state list is then partial); with `None`
/// every candidate execution is evaluated.
pub fn check_litmus(
    file: &str,
    program: &Program,
    model: &LoadedModel,
    limits: Limits,
    decide: Option<Property>,
) -> Result<LitmusOutcome, CheckError> {
    check_litmus_with_progress(file, program, model, limits, decide, None)
}

/// [`check_litmus`], reporting progress now and then.
///
/// A test leaving cooperative matrix attributions open runs once per
/// attribution (src/ir/attribution.rs): an outcome is allowed when some
/// attribution allows it, so the states, witnesses and races are the union
/// of the attributions' (each race names its attribution).
pub fn check_litmus_with_progress(
    file: &str,
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    decide: Option<Property>,
    progress: Option<ProgressFn<'_>>,
) -> Result<LitmusOutcome, CheckError> {
    let start = Instant::now();
    let mut o = check_one(file, program, loaded, limits, (decide, progress))?;
    if !program.attributions.is_empty() {
        let mut explored = 1;
        for alt in &program.attributions.others {
            if o.stopped_early {
                break;
            }
            let a = check_one(file, alt, loaded, limits, (decide, progress))?;
            o = join(o, a);
            explored += 1;
        }
        o.attributions = Some(AttributionCount {
            explored,
            total: program.attributions.total,
        });
        // The attributions' listings are united state by state: a summary
        // of one is not the union's.
        o.states_summary = None;
        o.time = start.elapsed();
    }
    // What the walk did not settle is undecided, not its value on the
    // executions seen.
    o.condition_holds = o.holds(Property::Condition);
    o.race_free = o.holds(Property::Races);
    o.undefined.condition = o.quantifier.is_some() && o.rests_on_undefined(Property::Condition);
    o.undefined.races = !o.states_only && o.rests_on_undefined(Property::Races);
    Ok(o)
}

/// The racing pairs with the final states they race in (`states`, per
/// pair, by the states' numbers), by their place in the sorted listing
/// (`sorted.place`, by number; every state a pair races in is in it,
/// recorded with it by [`Outcomes::record`]). A long attribution asks
/// `stop` every [`UNCHECKED_ROWS`] states and ends with the pairs without
/// their states ([`unlisted`]) and the limit it names.
fn with_states(
    mut races: Vec<RacePair>,
    states: &[StateSet],
    sorted: &Sorted,
    stop: &mut dyn FnMut(usize) -> Option<LimitKind>,
) -> Result<Vec<RacePair>, (Vec<RacePair>, LimitKind)> {
    let place = &sorted.place;
    let checked = place.len() > UNCHECKED_ROWS;
    let mut done = 0usize;
    let mut listed = Vec::with_capacity(races.len());
    for set in states {
        let mut ids = StateSet::default();
        for id in set.iter() {
            done += 1;
            if checked
                && done.is_multiple_of(UNCHECKED_ROWS)
                && let Some(kind) = stop(0)
            {
                return Err((unlisted(races, states), kind));
            }
            ids.insert(place[id as usize]);
        }
        listed.push(ids);
    }
    for (r, ids) in races.iter_mut().zip(listed) {
        r.set_states(ids, &sorted.listing);
    }
    Ok(races)
}

/// The racing pairs without their states (the listing was not built):
/// each with the number of states it races in, none listed.
fn unlisted(mut races: Vec<RacePair>, states: &[StateSet]) -> Vec<RacePair> {
    for (r, set) in races.iter_mut().zip(states) {
        r.state_count = set.len();
        r.states = Vec::new();
        r.states_cut = r.state_count > 0;
        r.state_ids = StateSet::default();
    }
    races
}

/// What stops the work after a walk (sorting its listing, attributing its
/// racing pairs' states): the walk's time limits ([`Bounds::expired`]
/// since `start`, the search's start), or the memory bound with `bytes`
/// more about to be allocated ([`Relation::fits`](crate::relation::Relation::fits)).
fn after_walk_limit(bounds: &Bounds, start: Instant, bytes: usize) -> Option<LimitKind> {
    if bounds.expired(start) {
        Some(LimitKind::Timeout)
    } else if crate::memory::over(bounds.max_memory)
        || !crate::relation::Relation::fits(bytes, bounds.max_memory)
    {
        Some(LimitKind::MaxMemory)
    } else {
        None
    }
}

/// `ids`, indices into the listing `from`, as indices into `to` (a
/// listing holding every state of `from`).
fn reindex(ids: &StateSet, from: &[FinalState], to: &[(FinalState, u64)]) -> StateSet {
    let mut out = StateSet::default();
    for i in ids.iter() {
        if let Ok(k) = to.binary_search_by(|(s, _)| s.cmp(&from[i as usize])) {
            out.insert(k as u32);
        }
    }
    out
}

/// The union of two attributions' raw outcomes (before [`LitmusOutcome::holds`]
/// made anything undecided).
fn join(mut o: LitmusOutcome, mut a: LitmusOutcome) -> LitmusOutcome {
    // A listing dropped under either attribution (`states_unlisted`):
    // the union cannot be listed, so neither listing is kept, and the
    // racing pairs keep no states. How many distinct states the union
    // has is not known (the two may share states): at least the larger
    // count, which is what it says.
    let dropped = (o.states_unlisted > 0 || a.states_unlisted > 0)
        .then(|| (o.states.len() + o.states_unlisted).max(a.states.len() + a.states_unlisted));
    if dropped.is_some() {
        for x in [&mut o, &mut a] {
            x.states.clear();
            x.undefined.states.clear();
            for r in &mut x.races {
                r.state_ids = StateSet::default();
            }
        }
    }
    // The walk of either cut by a limit (not only its listing).
    let walk_cut = (o.truncated && !o.listing_only) || (a.truncated && !a.listing_only);
    // The races name states by their index in each listing: renumbered
    // into the joined one.
    let (o_old, a_old): (Vec<FinalState>, Vec<FinalState>) = (
        o.states.iter().map(|(s, _)| s.clone()).collect(),
        a.states.iter().map(|(s, _)| s.clone()).collect(),
    );
    super::states::add_sorted(&mut o.states, std::mem::take(&mut a.states));
    for r in &mut o.races {
        let ids = reindex(&r.state_ids, &o_old, &o.states);
        r.set_states(ids, &o.states);
    }
    for r in &mut a.races {
        let ids = reindex(&r.state_ids, &a_old, &o.states);
        r.set_states(ids, &o.states);
    }
    o.positive = o.positive.saturating_add(a.positive);
    o.negative = o.negative.saturating_add(a.negative);
    o.observation = if o.positive > 0 && o.negative == 0 {
        Observation::Always
    } else if o.positive > 0 {
        Observation::Sometimes
    } else {
        Observation::Never
    };
    o.condition_holds = o.quantifier.map(|q| match q {
        Quantifier::Exists => o.positive > 0,
        Quantifier::NotExists => o.positive == 0,
        Quantifier::Forall => o.negative == 0,
    });
    for r in a.races {
        let same = |q: &&mut RacePair| {
            (
                &q.first,
                &q.second,
                &q.location,
                &q.attribution,
                &q.stopped_at_bound,
            ) == (
                &r.first,
                &r.second,
                &r.location,
                &r.attribution,
                &r.stopped_at_bound,
            )
        };
        match o.races.iter_mut().find(same) {
            Some(q) => {
                let mut ids = std::mem::take(&mut q.state_ids);
                ids.union_with(&r.state_ids);
                q.set_states(ids, &o.states);
            }
            None => o.races.push(r),
        }
    }
    o.race_free = match (o.race_free, a.race_free) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    };
    for d in a.barrier_divergence {
        if !o.barrier_divergence.contains(&d) {
            o.barrier_divergence.push(d);
        }
    }
    for d in a.barrier_stalls {
        if !o.barrier_stalls.contains(&d) {
            o.barrier_stalls.push(d);
        }
    }
    o.undefined.add(a.undefined);
    o.executions += a.executions;
    o.partial_evaluations += a.partial_evaluations;
    o.consistent = o.consistent.saturating_add(a.consistent);
    o.counts_saturated |= a.counts_saturated || o.saturated();
    o.cut_paths += a.cut_paths;
    o.symmetric_threads = o.symmetric_threads.max(a.symmetric_threads);
    o.rotation_order = o.rotation_order.max(a.rotation_order);
    o.factored.add(a.factored);
    o.unroll = o.unroll.max(a.unroll);
    o.stopped_early |= a.stopped_early;
    o.truncated |= a.truncated;
    o.listing_only = o.truncated && !walk_cut;
    o.stopped_by = o.stopped_by.or(a.stopped_by);
    if let Some(found) = dropped {
        o.states_unlisted = found;
        o.undefined.states.clear();
    }
    o.prefix_walk = match (o.prefix_walk, a.prefix_walk) {
        (Some(p), Some(q)) => Some(PrefixWalk {
            executions: p.executions + q.executions,
            stopped_by: p.stopped_by.or(q.stopped_by),
            extended: p.extended + q.extended,
        }),
        (p, q) => p.or(q),
    };
    o
}

/// What each value of a final state means to a reader: nothing for the
/// registers, the front end's kind for a shown location
/// ([`crate::ir::Symbols::kinds`]).
pub(crate) fn schema_kinds(
    program: &Program,
    registers: usize,
    shown_memory: &[(String, Term)],
) -> Vec<Option<crate::ir::ValueKind>> {
    std::iter::repeat_n(None, registers)
        .chain(shown_memory.iter().map(|(_, t)| match t {
            Term::Loc(l) => program.symbols.kinds.get(l).copied(),
            _ => None,
        }))
        .collect()
}

/// One program's raw outcome (the verdicts as the executions seen give them).
/// `how`: the property to decide, if any, and the progress callback.
fn check_one(
    file: &str,
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    how: (Option<Property>, Option<ProgressFn<'_>>),
) -> Result<LitmusOutcome, CheckError> {
    let (decide, progress) = how;
    let start = Instant::now();
    super::models::check_supported(program, loaded)?;
    let (shown_regs, shown_locs) = shown_terms(program);
    let shown_memory = shown_memory(program, &shown_locs);
    // The names of the final states, made once (src/analysis/states.rs).
    let schema: Schema = shown_regs
        .iter()
        .map(|(t, r)| format!("P{}:{r}", program.threads[*t].id))
        .chain(shown_memory.iter().map(|(name, _)| name.clone()))
        .collect::<Schema>()
        .with_kinds(schema_kinds(program, shown_regs.len(), &shown_memory));
    let mut v = Outcomes {
        program,
        final_order: loaded.profile.final_order.as_deref(),
        races_binding: loaded.profile.races.as_deref(),
        decide,
        states: StateCounts::new(schema.clone()),
        undefined_states: StateCounts::new(schema),
        cond_slots: std::sync::Arc::new(condition_slots(program, &shown_regs)),
        shown_regs,
        shown_memory,
        shown_locs,
        access_of: std::sync::Arc::new(accesses_of(program)),
        ..Outcomes::empty(program)
    };
    // Only the condition's verdict asked: the outcome-directed walk (a
    // listing, with the states that cannot decide the verdict skipped too),
    // which ends at the first witness or counterexample like the full one.
    v.condition_only = decide == Some(Property::Condition)
        && crate::engine::QuestionPlan::of(&limits).outcome_directed
        && program
            .condition
            .as_ref()
            .is_some_and(|c| c.quantifier.is_some());
    v.states_only = decide == Some(Property::States) || v.condition_only;
    let coverage = explore_split(program, loaded, limits, &mut v, progress)?;
    // The listing is built under the walk's limits: a limit reached while
    // it is sorted or its racing pairs' states are attributed drops it
    // (the counts stay) and stops the answer there.
    let bounds = limits.bounds;
    let mut stop = |bytes: usize| after_walk_limit(&bounds, start, bytes);
    let (undefined, undefined_stopped) = v.take_undefined(&mut stop);
    let cond = program.condition.as_ref();
    let (positive, negative) = (v.positive, v.negative);
    let observation = if positive > 0 && negative == 0 {
        Observation::Always
    } else if positive > 0 {
        Observation::Sometimes
    } else {
        Observation::Never
    };
    let condition_holds = cond.and_then(|c| c.quantifier).map(|q| match q {
        Quantifier::Exists => positive > 0,
        Quantifier::NotExists => positive == 0,
        Quantifier::Forall => negative == 0,
    });
    let found = v.states.len();
    let (holds_in, fails_in) = v.states.condition_counts();
    // A limit reached while the parts' states were merged dropped the
    // listing already.
    let (states, races, listing_stopped) = match undefined_stopped.or(v.listing_stopped) {
        Some(kind) => (Vec::new(), unlisted(v.races, &v.race_states), Some(kind)),
        None => match v.states.into_sorted(&mut stop) {
            Ok(sorted) => match with_states(v.races, &v.race_states, &sorted, &mut stop) {
                Ok(races) => (sorted.listing, races, None),
                Err((races, kind)) => (Vec::new(), races, Some(kind)),
            },
            Err(kind) => (Vec::new(), unlisted(v.races, &v.race_states), Some(kind)),
        },
    };
    let mut undefined = undefined;
    if listing_stopped.is_some() {
        undefined.states.clear();
    }
    let mut o = LitmusOutcome {
        file: file.to_string(),
        name: program.name.clone(),
        model: loaded.name.clone(),
        condition: cond.map(|c| c.text.clone()),
        quantifier: cond.and_then(|c| c.quantifier),
        races,
        states,
        positive,
        negative,
        observation,
        condition_holds,
        // One witness per state: a race seen is a race, but none seen
        // says nothing of the executions not evaluated.
        race_free: if v.racy {
            Some(false)
        } else if v.states_only {
            None
        } else {
            Some(true)
        },
        states_only: v.states_only && !v.condition_only,
        condition_only: v.condition_only,
        barrier_divergence: v.barrier_divergence,
        barrier_stalls: v.barrier_stalls,
        executions: coverage.executions,
        partial_evaluations: coverage.partial_evaluations,
        consistent: v.consistent,
        counts_saturated: false,
        cut_paths: coverage.cut_paths,
        unroll: coverage.unroll,
        stopped_early: coverage.stopped_early,
        truncated: coverage.truncated || listing_stopped.is_some(),
        stopped_by: coverage.stopped_by.or(listing_stopped),
        states_unlisted: if listing_stopped.is_some() { found } else { 0 },
        states_summary: None,
        listing_only: listing_stopped.is_some() && !coverage.truncated,
        time: start.elapsed(),
        warnings: Vec::new(),
        attributions: None,
        undefined,
        prefix_walk: coverage.prefix_walk.then_some(PrefixWalk {
            executions: coverage.prefix_executions,
            stopped_by: coverage.prefix_stopped_by,
            extended: coverage.prefix_extended,
        }),
        symmetric_threads: coverage.symmetric_threads,
        rotation_order: coverage.rotation_order,
        factored: v.factored,
        front_end_limit: program.front_end_limit.clone(),
    };
    o.counts_saturated = o.saturated();
    // A listing stopped after a walk that saw every execution it lists:
    // the walk's figures are complete (the rule of `states_incomplete`,
    // the listing's own stop aside).
    if listing_stopped.is_some() && !coverage.truncated {
        let stopped = (o.truncated, o.stopped_by, o.states_unlisted);
        (o.truncated, o.stopped_by, o.states_unlisted) = (false, None, 0);
        let complete = o.states_incomplete().is_none();
        (o.truncated, o.stopped_by, o.states_unlisted) = stopped;
        if complete {
            let quantified = o.quantifier.is_some();
            o.states_summary = Some(StatesSummary {
                states: found,
                executions: o.consistent,
                condition_holds_in: quantified.then_some(holds_in),
                condition_fails_in: quantified.then_some(fails_in),
            });
        }
    }
    Ok(o)
}

#[cfg(test)]
mod holds_tests {
    use super::*;

    fn outcome(q: Quantifier, positive: u64, negative: u64, race_free: bool) -> LitmusOutcome {
        let condition_holds = Some(match q {
            Quantifier::Exists => positive > 0,
            Quantifier::NotExists => positive == 0,
            Quantifier::Forall => negative == 0,
        });
        LitmusOutcome {
            file: "t.litmus".into(),
            name: "t".into(),
            model: "vulkan".into(),
            condition: None,
            quantifier: Some(q),
            states: Vec::new(),
            positive,
            negative,
            observation: Observation::Sometimes,
            condition_holds,
            races: Vec::new(),
            race_free: Some(race_free),
            states_only: false,
            condition_only: false,
            barrier_divergence: Vec::new(),
            barrier_stalls: Vec::new(),
            executions: 2,
            partial_evaluations: 0,
            consistent: positive + negative,
            counts_saturated: false,
            cut_paths: 0,
            unroll: 2,
            stopped_early: false,
            truncated: true,
            stopped_by: Some(crate::engine::LimitKind::MaxExecutions),
            states_unlisted: 0,
            states_summary: None,
            listing_only: false,
            time: Duration::ZERO,
            warnings: Vec::new(),
            attributions: None,
            undefined: Undefined::default(),
            prefix_walk: None,
            symmetric_threads: 0,
            rotation_order: 0,
            factored: Factored::default(),
            front_end_limit: None,
        }
    }

    /// Two cooperative matrix attributions' outcomes joined when one of
    /// them dropped its listing: `a` lists 3 states (x = 0, 1, 2), one
    /// pair racing in two of them; `b` found 5 states whose listing a
    /// limit dropped after a walk that ended. The union cannot be listed
    /// (3 of its states are known, at least 5 exist): no states, 5
    /// unlisted (the larger count; the sets may overlap, so not 8), the
    /// pair racing in no listed state (count 0, not 2 of a listing that
    /// is gone), the walk still whole (`listing_only`). In the other
    /// order the same. Two listed attributions stay listed (the control).
    #[test]
    fn a_dropped_listing_drops_the_union_of_attributions() {
        let state = |x: i64| FinalState::from_pairs([("x", x)]);
        let listed = || {
            let mut o = outcome(Quantifier::Exists, 1, 2, false);
            (o.truncated, o.stopped_by) = (false, None);
            o.states = (0..3).map(|x| (state(x), 1)).collect();
            let mut ids = StateSet::default();
            ids.insert(0);
            ids.insert(2);
            let mut r = RacePair {
                first: "P0 line 1: st x".into(),
                second: "P1 line 1: ld x".into(),
                first_file: None,
                second_file: None,
                location: "x".into(),
                attribution: None,
                stopped_at_bound: Vec::new(),
                states: Vec::new(),
                state_count: 0,
                states_cut: false,
                state_ids: StateSet::default(),
            };
            r.set_states(ids, &o.states);
            o.races = vec![r];
            o
        };
        let unlisted = || {
            let mut o = outcome(Quantifier::Exists, 1, 4, false);
            o.stopped_by = Some(crate::engine::LimitKind::MaxMemory);
            (o.states_unlisted, o.listing_only) = (5, true);
            o
        };
        assert_eq!(listed().races[0].state_count, 2);
        for j in [join(listed(), unlisted()), join(unlisted(), listed())] {
            assert!(j.states.is_empty());
            assert_eq!(j.states_unlisted, 5);
            assert!(j.truncated && j.listing_only);
            assert_eq!(j.races.len(), 1);
            assert_eq!(j.races[0].state_count, 0);
            assert!(j.races[0].states.is_empty());
            assert_eq!((j.positive, j.negative), (2, 6));
        }
        let j = join(listed(), listed());
        assert_eq!(j.states.len(), 3);
        assert_eq!(j.states_unlisted, 0);
        assert!(!j.truncated && !j.listing_only);
        assert_eq!(j.races[0].state_count, 2);
        // A walk cut by the limit in one attribution is cut in the union.
        let mut cut = unlisted();
        cut.listing_only = false;
        let j = join(listed(), cut);
        assert!(j.truncated && !j.listing_only);
    }

    #[test]
    fn a_truncated_search_decides_only_what_its_executions_settle() {
        use Quantifier::*;
        // a witness settles exists (holds) and ~exists (fails)
        assert_eq!(
            outcome(Exists, 1, 0, true).holds(Property::Condition),
            Some(true)
        );
        assert_eq!(
            outcome(NotExists, 1, 0, true).holds(Property::Condition),
            Some(false)
        );
        // no witness yet: undecided
        assert_eq!(outcome(Exists, 0, 3, true).holds(Property::Condition), None);
        assert_eq!(
            outcome(NotExists, 0, 3, true).holds(Property::Condition),
            None
        );
        // a counterexample settles forall (fails); none yet: undecided
        assert_eq!(
            outcome(Forall, 3, 1, true).holds(Property::Condition),
            Some(false)
        );
        assert_eq!(outcome(Forall, 3, 0, true).holds(Property::Condition), None);
        // a race settles race freedom (not race-free)
        assert_eq!(
            outcome(Exists, 0, 1, false).holds(Property::Races),
            Some(false)
        );
        assert_eq!(outcome(Exists, 0, 1, true).holds(Property::Races), None);
        // complete searches decide everything
        let mut o = outcome(Exists, 0, 3, true);
        o.truncated = false;
        assert_eq!(o.holds(Property::Condition), Some(false));
        assert_eq!(o.holds(Property::Races), Some(true));
    }
}

#[cfg(test)]
mod race_state_tests {
    use super::*;
    use crate::Checked;
    use crate::analysis::test_programs::{every_register, independent_reads};

    /// The payload read runs only where the relaxed flag read 1, and
    /// nothing orders it after the plain payload write then (no release,
    /// no acquire): the pair races in the executions ending in
    /// P1:r0=1, and in none ending in P1:r0=0 (which read no payload).
    /// Derived by hand; the walk meets a state of each kind, so a race
    /// credited to the executions of another candidate shows here.
    const GUARDED: &str = "VULKAN guard\n{ x=0; f=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n\
        st.nonpriv.sc0 x, 1 | ld.atom.dv.sc0 r0, f ;\n\
        st.atom.dv.sc0 f, 1 | beq r0, 0, END ;\n\
        | ld.nonpriv.sc0 r1, x ;\n\
        | END: ;\n\
        exists (P1:r0 == 1)\n";

    fn races(session: crate::Session) -> Vec<Vec<Vec<(String, i64)>>> {
        let Checked::Litmus(o) = session.check_text("guard.litmus", GUARDED).expect("checks")
        else {
            panic!("a litmus outcome")
        };
        assert_eq!(o.states.len(), 2, "{o:?}");
        o.races
            .iter()
            .map(|r| r.states.iter().map(|s| s.to_pairs()).collect())
            .collect()
    }

    #[test]
    fn a_race_names_only_the_states_of_its_racing_executions() {
        let want = vec![vec![vec![("P1:r0".to_string(), 1)]]];
        assert_eq!(races(crate::Session::new().threads(1)), want);
        // The same over parallel parts, and with every reduction off.
        assert_eq!(races(crate::Session::new().threads(4)), want);
        let none = crate::engine::Reductions::none();
        assert_eq!(races(crate::Session::new().reductions(none)), want);
    }

    /// P0 stores 1 to each of 17 locations, P1 loads each (non-atomic:
    /// each pair races). The locations are independent, so every
    /// combination of P1's reads (the initial 0 or P0's 1) is consistent:
    /// 2^17 = 131,072 final states, one execution each, each racing in
    /// every pair (a non-atomic store and load of one location in two
    /// workgroups, unordered). The condition (all 1) is one of them.
    fn many_states() -> String {
        let n = 17;
        let mut s = independent_reads("many-states", n, "st.av.dv.sc0", "ld.vis.dv.sc0");
        s.push_str(&format!("exists ({})\n", every_register(n, 1)));
        s
    }

    fn many(session: crate::Session) -> LitmusOutcome {
        match session
            .check_text("many.litmus", &many_states())
            .expect("checks")
        {
            Checked::Litmus(o) => *o,
            other => panic!("a litmus outcome: {other:?}"),
        }
    }

    /// The whole listing, sorted (the first state all 0, the last all 1),
    /// each racing pair in every state (the first 100 listed).
    #[test]
    fn a_listing_of_many_states_is_sorted_and_attributed() {
        let o = many(crate::Session::new().threads(1));
        assert_eq!(o.states.len(), 1 << 17);
        assert_eq!(o.states_unlisted, 0);
        assert!(o.states.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(o.states[0].0.value_iter().all(|v| v == 0));
        assert!(o.states[(1 << 17) - 1].0.value_iter().all(|v| v == 1));
        assert_eq!(o.races.len(), 17);
        for r in &o.races {
            assert_eq!(r.state_count, 1 << 17);
            assert!(r.states_cut);
            assert_eq!(
                r.states,
                o.states[..RACE_STATES_LISTED]
                    .iter()
                    .map(|(s, _)| s.clone())
                    .collect::<Vec<_>>()
            );
        }
        assert_eq!(o.holds(Property::Condition), Some(true));
    }

    /// The listing is built under the memory bound: without the counting
    /// allocator (a test binary), the bound is checked against the bytes
    /// the listing is about to take (131,072 states take several MiB), so
    /// at 1 MiB the walk completes (what the process holds is not counted
    /// here) and the listing stops: dropped, not given in part, its states
    /// counted, the pairs kept without states, the search truncated at the
    /// memory bound. The witness found still settles `exists`; the races
    /// are a verdict too (a race seen is a race).
    #[test]
    fn a_listing_stopped_at_the_memory_bound_is_dropped_not_given_in_part() {
        for threads in [1, 4] {
            let o = many(
                crate::Session::new()
                    .threads(threads)
                    .max_memory(Some(1 << 20)),
            );
            assert_eq!(o.states.len(), 0);
            assert_eq!(o.states_unlisted, 1 << 17);
            assert!(o.truncated);
            assert_eq!(o.stopped_by, Some(LimitKind::MaxMemory));
            assert_eq!(o.positive, 1);
            assert!(o.states_incomplete().unwrap().contains("not listed"));
            assert_eq!(o.races.len(), 17);
            assert!(
                o.races
                    .iter()
                    .all(|r| r.state_count == 1 << 17 && r.states.is_empty())
            );
            assert_eq!(o.holds(Property::Condition), Some(true));
            assert_eq!(o.holds(Property::Races), Some(false));
        }
    }

    /// Parts of a parallel search merge their states under the memory
    /// bound too. The 131,072 states, one execution each (read factoring
    /// off: every candidate evaluated, the skeleton cut into parts), at
    /// 256 KiB without the counting allocator (only the bytes about to be
    /// taken are counted, above the relations' 70 KiB over 34 events).
    /// Alone, the walk meets every state and the listing stops when it is
    /// sorted (8 bytes a state for its order: 1 MiB): all 131,072 unlisted,
    /// each racing pair in all of them. On 4 threads the first part is
    /// taken whole and the next part's merge asks for its rows (34 values
    /// of a byte each, with their counts and index entries: over 256 KiB
    /// for a part of more than 4,681 states) and stops there, at the
    /// memory bound: the listing is dropped with the first part's states
    /// counted (fewer than all), the racing pairs' states with it (no
    /// count given); the 17 pairs race in every execution, so they are
    /// all named.
    #[test]
    fn merging_parallel_parts_stops_at_the_memory_bound() {
        let session = |threads| {
            crate::Session::new()
                .threads(threads)
                .reduction(crate::engine::Reduction::ReadFactoring, false)
                .max_memory(Some(256 << 10))
        };
        let alone = many(session(1));
        assert_eq!(alone.states_unlisted, 1 << 17);
        assert_eq!(alone.stopped_by, Some(LimitKind::MaxMemory));
        assert!(alone.races.iter().all(|r| r.state_count == 1 << 17));
        let o = many(session(4));
        assert!(o.truncated);
        assert_eq!(o.stopped_by, Some(LimitKind::MaxMemory));
        assert!(o.states.is_empty());
        assert!(
            o.states_unlisted > 0 && o.states_unlisted < 1 << 17,
            "{}",
            o.states_unlisted
        );
        assert_eq!(o.races.len(), 17);
        assert!(
            o.races
                .iter()
                .all(|r| r.state_count == 0 && r.states.is_empty())
        );
        assert_eq!(o.holds(Property::Races), Some(false));
    }

    /// A listing's JSON is the document a `serde_json::Map` of each
    /// state's pairs gives (written without building the maps): keys
    /// sorted by name, of two values under one name the last, the states
    /// of two schemas each in its own order.
    #[test]
    fn a_listing_is_written_as_maps_of_its_pairs_would_be() {
        let states = vec![
            (
                FinalState::from_pairs([("x", 1), ("P1:r0", -2), ("A", 3), ("x", 4)]),
                2,
            ),
            (
                FinalState::from_pairs([("x", 5), ("P1:r0", 6), ("A", 7), ("x", 8)]),
                1,
            ),
            (FinalState::from_pairs([("b", 9), ("a", 10)]), 3),
            (FinalState::from_pairs(Vec::<(String, i64)>::new()), 1),
        ];
        let maps: Vec<serde_json::Value> = states
            .iter()
            .map(|(state, n)| {
                let values: serde_json::Map<String, serde_json::Value> = state
                    .iter()
                    .map(|(k, v)| (k.to_string(), serde_json::Value::from(v)))
                    .collect();
                serde_json::json!({ "values": values, "executions": n })
            })
            .collect();
        let mut got = Vec::new();
        ser_states(&states, &mut serde_json::Serializer::pretty(&mut got)).unwrap();
        let want = serde_json::to_string_pretty(&maps).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), want);
        let list: Vec<FinalState> = states.iter().map(|(s, _)| s.clone()).collect();
        let mut got = Vec::new();
        ser_state_list(&list, &mut serde_json::Serializer::new(&mut got)).unwrap();
        let want: Vec<serde_json::Value> = maps.iter().map(|m| m["values"].clone()).collect();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            serde_json::to_string(&want).unwrap()
        );
    }
}

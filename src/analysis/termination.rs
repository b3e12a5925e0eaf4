//! Termination under GPU progress models: can a program run forever?
//!
//! A GPU does not promise that every invocation is scheduled fairly. Sorensen,
//! Evrard and Donaldson ("GPU Schedulers: How Fair Is Fair Enough?", CONCUR
//! 2018) name the guarantees schedulers give: FAIR (every invocation that has
//! not finished runs again), OBE (occupancy-bound: an invocation that has
//! taken a step is scheduled fairly from then on), HSA (only the unfinished
//! invocation with the lowest id is), HSA_OBE (either grants it), LOBE
//! (linear OBE: once invocation *i* has started, it and every lower id are)
//! and UNFAIR (none beyond "someone runs"). Dat3M applies one of them at each
//! level of the thread hierarchy (device, queue family, workgroup, subgroup);
//! so does vkmm ([`Progress`]).
//!
//! ## The question, as a search over finite executions
//!
//! A program may run forever when some finite execution *fragment* can be
//! repeated forever, fairly and consistently. vkmm reads Dat3M's
//! non-termination encoding (its `NonTerminationEncoder` and
//! `ProgramEncoder.encodeForwardProgress`) as the following conditions on a
//! candidate execution, and searches for one that meets them all (the
//! engine lists, besides complete paths, paths that end stuck in a loop and
//! paths that stop part-way: [`crate::engine::Ending`]):
//!
//! 1. **Consistent** under the memory model.
//! 2. **Some invocation is stuck in a loop**: its path ends with a jump back
//!    to the loop's head. Its iterations of the loop are split into prefix,
//!    infix and suffix: the suffix ends the path; a side-effect-free spin
//!    loop (one the engine runs as an await) has no infix and a one-iteration
//!    suffix; any other loop has a non-empty infix whose iterations match,
//!    from the end, the suffix's last ones (`infix[s-i] ~ suffix[n-i]`).
//!    Matched iterations run the same instructions, read and write the same
//!    values, and the reads-from and coherence edges among infix events are
//!    those among their matches. The suffix can then be repeated forever.
//! 3. **The repetition stays fair and consistent** ("strong suffix"):
//!    no suffix write is coherence-before a prefix write; only suffix reads
//!    read suffix writes; a suffix read that reads a prefix write reads a
//!    coherence-maximal one (the initial value only when nothing writes the
//!    location) — memory fairness: a loop cannot spin forever on a stale
//!    value.
//! 4. **The schedule is allowed by the progress model.** Each invocation is
//!    finished, stuck, or stopped (it executed a prefix of its path, maybe
//!    nothing: never started). An invocation *with progress* is scheduled
//!    fairly: it is finished or stuck, never stopped. The root of the
//!    hierarchy has progress; a group with progress gives it to the children
//!    its model names (FAIR: all; HSA: the lowest-id unfinished child and
//!    every finished child before it; OBE: every child that started; LOBE:
//!    every child with a started child at its id or above; HSA_OBE: the
//!    union; UNFAIR: none); and a group with progress that has an unfinished
//!    invocation gives progress to at least one unfinished child (someone
//!    always runs).
//!
//! An execution meeting 1-4 is a **witness of non-termination**, reported
//! with each invocation's fate and the loop iterations that repeat. No
//! witness among the executions explored means the program terminates —
//! *within the unrolling bound* when the bound cut paths (an execution
//! whose repetition needs more iterations is not seen; Dat3M's verdicts
//! carry the same bound), and completely otherwise.
//!
//! Control barriers ([`super::barriers`]): an invocation waiting at a
//! barrier that does not open (too few invocations of its execution-scope
//! instance arrive) is *blocked*, which counts as not schedulable; passing
//! one needs it to open (no divergent or stalled barrier). A barrier in a
//! loop may repeat in a suffix only together with every invocation that
//! meets it there (each of them repeats it too).

use super::barriers;
use super::explain::ExplainSpec;
use crate::cat::{Evaluation, Value};
use crate::engine::Bounds;
use crate::engine::trace::{PathEvent, ThreadPaths};
use crate::engine::{
    Candidate, CheckError, Ending, LimitKind, Limits, Listed, OrderChoice, RegValue, SearchKey,
    SearchKeys, Skeleton, Visitor, explore,
};
use crate::ir::Program;
use crate::model::LoadedModel;
use crate::relation::Relation;
use serde::Serialize;
use std::fmt;
use std::ops::ControlFlow;
use std::time::Duration;
use web_time::Instant;

/// A scheduler's guarantee at one level of the thread hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ProgressModel {
    Fair,
    Hsa,
    Obe,
    HsaObe,
    Lobe,
    Unfair,
}

impl ProgressModel {
    /// Every model, in the order Dat3M lists them.
    pub const ALL: [ProgressModel; 6] = [
        ProgressModel::Fair,
        ProgressModel::Hsa,
        ProgressModel::Obe,
        ProgressModel::HsaObe,
        ProgressModel::Lobe,
        ProgressModel::Unfair,
    ];

    /// The model's name (`FAIR`, `HSA`, `OBE`, `HSA_OBE`, `LOBE`, `UNFAIR`).
    pub fn name(self) -> &'static str {
        match self {
            ProgressModel::Fair => "FAIR",
            ProgressModel::Hsa => "HSA",
            ProgressModel::Obe => "OBE",
            ProgressModel::HsaObe => "HSA_OBE",
            ProgressModel::Lobe => "LOBE",
            ProgressModel::Unfair => "UNFAIR",
        }
    }
}

impl std::str::FromStr for ProgressModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let norm = s.trim().to_ascii_uppercase().replace('-', "_");
        ProgressModel::ALL
            .into_iter()
            .find(|m| m.name() == norm)
            .ok_or_else(|| {
                let names: Vec<&str> = ProgressModel::ALL.iter().map(|m| m.name()).collect();
                format!(
                    "unknown progress model `{}`: expected one of {}",
                    s.trim(),
                    names.join(", ")
                )
            })
    }
}

/// A level of the thread hierarchy a progress model can be given for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// The groups of invocations on one device.
    Device,
    QueueFamily,
    Workgroup,
    Subgroup,
}

impl Level {
    const ALL: [Level; 4] = [
        Level::Device,
        Level::QueueFamily,
        Level::Workgroup,
        Level::Subgroup,
    ];

    /// The level's name in hierarchies (`device`, `queuefamily`, `workgroup`, `subgroup`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Device => "device",
            Level::QueueFamily => "queuefamily",
            Level::Workgroup => "workgroup",
            Level::Subgroup => "subgroup",
        }
    }

    fn parse(s: &str) -> Option<Level> {
        match s
            .trim()
            .to_ascii_lowercase()
            .replace(['-', '_'], "")
            .as_str()
        {
            "device" | "dv" => Some(Level::Device),
            "queuefamily" | "qf" => Some(Level::QueueFamily),
            "workgroup" | "wg" => Some(Level::Workgroup),
            "subgroup" | "sg" => Some(Level::Subgroup),
            _ => None,
        }
    }
}

/// Which progress model applies at each level of the hierarchy: one model
/// everywhere (`FAIR`), or a model per level with a default for the others
/// (`workgroup=OBE,subgroup=HSA,default=FAIR`; Dat3M writes the same in
/// brackets, which are accepted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub default: ProgressModel,
    /// Levels whose model differs from the default.
    pub levels: Vec<(Level, ProgressModel)>,
}

impl Default for Progress {
    fn default() -> Self {
        Progress::uniform(ProgressModel::Fair)
    }
}

impl Progress {
    /// The same model at every level.
    pub fn uniform(model: ProgressModel) -> Progress {
        Progress {
            default: model,
            levels: Vec::new(),
        }
    }

    /// The model of groups at `level` (`None`: the root, which takes the default).
    pub fn at(&self, level: Option<Level>) -> ProgressModel {
        level
            .and_then(|l| self.levels.iter().find(|(x, _)| *x == l).map(|(_, m)| *m))
            .unwrap_or(self.default)
    }
}

impl Progress {
    /// A hierarchy by the name Dat3M's SPIR-V liveness tests give it (the
    /// `progress=NAME` option of the six-column CSV): `fairUniform` is FAIR
    /// everywhere; otherwise `qf`/`wg`/`sg` followed by a model (`Obe`,
    /// `Hsa`, `HsaObe`, `Lobe`, `Unfair`, `Fair`), repeated, each naming the
    /// model of that level, FAIR elsewhere (`qfHsaSgUnfair`).
    pub fn from_dat3m_name(name: &str) -> Result<Progress, String> {
        let name = name.trim();
        if name == "fairUniform" {
            return Ok(Progress::default());
        }
        let bad = || {
            format!(
                "unknown progress hierarchy name `{name}` (Dat3M's names: fairUniform, qfObe, qfHsaSgUnfair, ...)"
            )
        };
        let mut parts = Vec::new();
        let mut rest = name;
        while !rest.is_empty() {
            let (level, tail) = [
                ("qf", Level::QueueFamily),
                ("wg", Level::Workgroup),
                ("sg", Level::Subgroup),
                ("Qf", Level::QueueFamily),
                ("Wg", Level::Workgroup),
                ("Sg", Level::Subgroup),
            ]
            .iter()
            .find_map(|(p, l)| rest.strip_prefix(p).map(|t| (*l, t)))
            .ok_or_else(bad)?;
            let (model, tail) = [
                ("HsaObe", ProgressModel::HsaObe),
                ("Hsa", ProgressModel::Hsa),
                ("Obe", ProgressModel::Obe),
                ("Lobe", ProgressModel::Lobe),
                ("Unfair", ProgressModel::Unfair),
                ("Fair", ProgressModel::Fair),
            ]
            .iter()
            .find_map(|(p, m)| tail.strip_prefix(p).map(|t| (*m, t)))
            .ok_or_else(bad)?;
            parts.push(format!("{}={}", level.name(), model.name()));
            rest = tail;
        }
        parts.join(",").parse()
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.levels.is_empty() {
            return f.write_str(self.default.name());
        }
        for (l, m) in &self.levels {
            write!(f, "{}={}, ", l.name(), m.name())?;
        }
        write!(f, "default={}", self.default.name())
    }
}

impl std::str::FromStr for Progress {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let inner = match t.strip_prefix('[') {
            Some(rest) => rest
                .strip_suffix(']')
                .ok_or_else(|| format!("progress hierarchy `{t}`: missing the closing `]`"))?,
            None if !t.contains('=') => return Ok(Progress::uniform(t.parse()?)),
            None => t,
        };
        let mut p = Progress::default();
        for part in inner.split(',').filter(|p| !p.trim().is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                format!(
                    "progress hierarchy `{t}`: expected `LEVEL=MODEL`, found `{}`",
                    part.trim()
                )
            })?;
            let model: ProgressModel = v.parse()?;
            if k.trim().eq_ignore_ascii_case("default") {
                p.default = model;
                continue;
            }
            let level = Level::parse(k).ok_or_else(|| {
                let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
                format!(
                    "progress hierarchy `{t}`: unknown level `{}`: expected one of {}, or default",
                    k.trim(),
                    names.join(", ")
                )
            })?;
            if p.levels.iter().any(|(l, _)| *l == level) {
                return Err(format!(
                    "progress hierarchy `{t}`: level `{}` given twice",
                    level.name()
                ));
            }
            p.levels.push((level, model));
        }
        let default = p.default;
        p.levels.retain(|(_, m)| *m != default);
        p.levels.sort_by_key(|(l, _)| *l);
        Ok(p)
    }
}

/// The answer to "does every allowed execution end?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No execution the progress model allows runs forever (within the
    /// unrolling bound when `cut_paths > 0`).
    Terminates,
    /// A witness shows an execution that runs forever.
    NonTerminating,
    /// A limit stopped the search before it found a witness.
    Undecided,
}

/// What became of one invocation in a witness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fate {
    /// `P0`, `P1`, ...
    pub thread: String,
    /// `finished`, `stuck`, `stopped` or `never started`.
    pub fate: String,
    /// Whether the progress model schedules it fairly in the witness.
    pub fair: bool,
    /// The events it executed.
    pub events: usize,
}

/// A loop an invocation spins in forever, in a witness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repetition {
    pub thread: String,
    /// Source lines of the loop's head and of the jump back.
    pub head_line: usize,
    pub back_line: usize,
    /// The file of those lines, where it is not the program's own: a
    /// header the shader includes ([`crate::ir::SourceSpan::file`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Iterations the witness ran, and how they split.
    pub iterations: usize,
    pub infix: usize,
    pub suffix: usize,
    /// What the suffix's reads return, and from where (`line 4: ld ... = 0 (initial value)`).
    pub reads: Vec<String>,
    /// The events of the iterations that repeat forever (ids of the drawn
    /// execution's events, [`Witness::execution`]).
    pub suffix_events: Vec<usize>,
    /// The events of the iterations before them that match them.
    pub infix_events: Vec<usize>,
}

/// A non-terminating execution: a finite fragment whose suffix repeats forever.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    pub threads: Vec<Fate>,
    pub loops: Vec<Repetition>,
    /// The finite execution itself, with its labelled edges, when it was
    /// asked for ([`explain_termination`]: `vkmm explain` and `vkmm show`
    /// with `--property termination`); `check` leaves it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<crate::analysis::explain::Witness>,
}

/// One line on a non-termination witness: each invocation's fate, and the
/// loops that repeat.
pub fn witness_line(w: &Witness) -> String {
    let fates: Vec<String> = w
        .threads
        .iter()
        .map(|f| {
            format!(
                "{} {}{}",
                f.thread,
                f.fate,
                if f.fair {
                    ""
                } else {
                    " (not scheduled fairly)"
                }
            )
        })
        .collect();
    let loops: Vec<String> = w.loops.iter().map(repetition).collect();
    format!("{}; {}", fates.join(", "), loops.join("; "))
}

/// `P0 spins forever in lines 8-10: the last 1 of 2 iterations repeat (the
/// 1 before them match them)`; a loop in an included header reads
/// `in HEADER:8-10`.
pub fn repetition(l: &Repetition) -> String {
    let lines = match &l.file {
        Some(f) => format!("{f}:"),
        None => "lines ".to_string(),
    };
    format!(
        "{} spins forever in {lines}{}-{}: the last {} of {} iterations repeat{}",
        l.thread,
        l.head_line,
        l.back_line,
        l.suffix,
        l.iterations,
        if l.infix > 0 {
            format!(" (the {} before them match them)", l.infix)
        } else {
            String::new()
        }
    )
}

/// The result of a termination check.
#[derive(Clone, Debug, Serialize)]
pub struct TerminationOutcome {
    pub file: String,
    pub name: String,
    pub model: String,
    /// The progress model (hierarchy) checked against.
    pub progress: String,
    pub verdict: Verdict,
    pub witness: Option<Witness>,
    /// Candidate executions evaluated.
    pub executions: u64,
    pub partial_evaluations: u64,
    /// Thread paths cut by the unrolling bound: a `terminates` verdict then
    /// holds within the bound only.
    pub cut_paths: usize,
    /// The unrolling bound the verdict was decided at: the search deepens
    /// from 0 up to [`max_unroll`](Self::max_unroll) and stops at the first
    /// bound that decides.
    pub unroll: usize,
    /// The unrolling bound asked for (`--unroll`).
    pub max_unroll: usize,
    pub truncated: bool,
    pub stopped_by: Option<LimitKind>,
    /// For an undecided answer: the deepest bound searched to the end
    /// without a witness (no execution repeats forever within it), when a
    /// limit stopped the search at a deeper bound (`unroll`, `stopped_by`).
    /// Bounds are searched from 0 up (iterative deepening); "terminates" is
    /// said only at the bound asked for, so a stop below it leaves the
    /// answer undecided.
    pub searched_within: Option<usize>,
    #[serde(serialize_with = "crate::analysis::schema::ser_duration")]
    pub time: Duration,
    /// The front end's warnings about the file (set by the session).
    pub warnings: Vec<crate::frontend::FrontendWarning>,
    /// The bound that stopped the front end before it built the whole
    /// program (`Program::front_end_limit`, set by the session); the
    /// verdict is then undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub front_end_limit: Option<String>,
}

impl TerminationOutcome {
    /// `Some(true)` when the program terminates (possibly within the
    /// unrolling bound only: see [`TerminationOutcome::bounded`]),
    /// `Some(false)` with a witness, `None` when undecided.
    pub fn terminates(&self) -> Option<bool> {
        match self.verdict {
            Verdict::Terminates => Some(true),
            Verdict::NonTerminating => Some(false),
            Verdict::Undecided => None,
        }
    }

    /// Whether a `terminates` verdict holds only within the unrolling bound.
    pub fn bounded(&self) -> bool {
        self.verdict == Verdict::Terminates && self.cut_paths > 0
    }

    /// Whether the verdict is decided without any bound.
    pub fn complete(&self) -> bool {
        match self.verdict {
            Verdict::NonTerminating => true,
            Verdict::Terminates => self.cut_paths == 0,
            Verdict::Undecided => false,
        }
    }
}

/// One node of the thread hierarchy.
struct Node {
    /// `None` for the root and for invocations.
    level: Option<Level>,
    /// The group's scope id, or the invocation's index.
    id: usize,
    /// The invocation (leaves only).
    thread: Option<usize>,
    children: Vec<Node>,
}

/// The hierarchy root > device > queue family > workgroup > subgroup >
/// invocation of `program`'s threads.
fn hierarchy(program: &Program) -> Node {
    fn group(program: &Program, threads: &[usize], depth: usize) -> Vec<Node> {
        if depth == Level::ALL.len() {
            return threads
                .iter()
                .map(|&t| Node {
                    level: None,
                    id: t,
                    thread: Some(t),
                    children: Vec::new(),
                })
                .collect();
        }
        let level = Level::ALL[depth];
        let id_of = |t: usize| {
            let th = &program.threads[t];
            match level {
                Level::Device => th.device,
                Level::QueueFamily => th.queue_family,
                Level::Workgroup => th.workgroup,
                Level::Subgroup => th.subgroup,
            }
        };
        let mut ids: Vec<usize> = threads.iter().map(|&t| id_of(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter()
            .map(|id| {
                let members: Vec<usize> = threads
                    .iter()
                    .copied()
                    .filter(|&t| id_of(t) == id)
                    .collect();
                Node {
                    level: Some(level),
                    id,
                    thread: None,
                    children: group(program, &members, depth + 1),
                }
            })
            .collect()
    }
    let all: Vec<usize> = (0..program.threads.len()).collect();
    Node {
        level: None,
        id: 0,
        thread: None,
        children: group(program, &all, 0),
    }
}

/// How a thread's path ends in a skeleton, for the progress rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
    Finished,
    Stuck,
    /// Waiting at a barrier that never completes: not schedulable, and a
    /// fairly scheduled thread may end there.
    Blocked,
    /// Stopped after this many events (0: never started).
    Stopped(usize),
}

impl Node {
    fn any(&self, runs: &[Run], f: &dyn Fn(Run) -> bool) -> bool {
        match self.thread {
            Some(t) => f(runs[t]),
            None => self.children.iter().any(|c| c.any(runs, f)),
        }
    }

    fn schedulable(&self, runs: &[Run]) -> bool {
        self.any(runs, &|r| r != Run::Finished && r != Run::Blocked)
    }

    fn started(&self, runs: &[Run]) -> bool {
        self.any(runs, &|r| r != Run::Stopped(0))
    }

    /// Whether this node can have progress (be scheduled fairly) given how
    /// the threads end, under `progress`; `fair` collects the invocations
    /// that then have it.
    fn can_progress(&self, runs: &[Run], progress: &Progress, fair: &mut Vec<usize>) -> bool {
        if let Some(t) = self.thread {
            // Fair scheduling runs a thread until it finishes or forever.
            if matches!(runs[t], Run::Stopped(_)) {
                return false;
            }
            fair.push(t);
            return true;
        }
        let mut children: Vec<&Node> = self.children.iter().collect();
        children.sort_by_key(|c| c.id);
        let n = children.len();
        let hsa = |i: usize| !children[..i].iter().any(|c| c.schedulable(runs));
        let obe = |i: usize| children[i].started(runs);
        let lobe = |i: usize| children[i..].iter().any(|c| c.started(runs));
        let required = |i: usize| match progress.at(self.level) {
            ProgressModel::Fair => true,
            ProgressModel::Hsa => hsa(i),
            ProgressModel::Obe => obe(i),
            ProgressModel::HsaObe => hsa(i) || obe(i),
            ProgressModel::Lobe => lobe(i),
            ProgressModel::Unfair => false,
        };
        let mut given = vec![false; n];
        for i in 0..n {
            if required(i) {
                if !children[i].can_progress(runs, progress, fair) {
                    return false;
                }
                given[i] = true;
            }
        }
        // Someone always runs: an unfinished child with progress.
        if self.schedulable(runs) && !(0..n).any(|i| given[i] && children[i].schedulable(runs)) {
            let found = (0..n).find(|&i| {
                if !children[i].schedulable(runs) {
                    return false;
                }
                let mark = fair.len();
                let ok = children[i].can_progress(runs, progress, fair);
                if !ok {
                    fair.truncate(mark);
                }
                ok
            });
            if found.is_none() {
                return false;
            }
        }
        true
    }
}

/// Where each event stands in a decomposition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    Prefix,
    Infix,
    Suffix,
}

/// One stuck thread's split of its loop iterations: `infix` and `suffix`
/// are ranges of iteration indices.
#[derive(Clone, Debug)]
struct Split {
    thread: usize,
    iterations: Vec<std::ops::Range<usize>>,
    infix: std::ops::Range<usize>,
    suffix: std::ops::Range<usize>,
    header: usize,
    back: usize,
    /// Register values (at the suffix's start, at its end) that depend on
    /// reads and must be equal in the candidate execution for the suffix to
    /// leave the registers as it found them.
    registers_equal: Vec<(RegValue, RegValue)>,
}

/// The splits a stuck loop allows (see the module doc, point 2).
fn splits(thread: usize, st: &crate::engine::Stuck) -> Vec<Split> {
    let n = st.iterations.len();
    let make = |infix: std::ops::Range<usize>, suffix: std::ops::Range<usize>| Split {
        thread,
        iterations: st.iterations.clone(),
        infix,
        suffix,
        header: st.header,
        back: st.back,
        registers_equal: Vec::new(),
    };
    if st.side_effect_free {
        return vec![make(n - 1..n - 1, n - 1..n)];
    }
    let mut out = Vec::new();
    for s in 1..n {
        // The suffix repeats only if it leaves the registers as it found
        // them (a counting loop does not: its counter grows).
        let Some(equal) = same_registers(&st.registers[s], &st.registers[n]) else {
            continue;
        };
        for k in 1..=s.min(n - s) {
            let mut split = make(s - k..s, s..n);
            split.registers_equal = equal.clone();
            out.push(split);
        }
    }
    out
}

/// Whether a stuck path's loop has a split whose matched iterations run
/// the same statements with the same writes ([`decompose`]'s test, on the
/// path alone; [`splits`] already asks that the suffix leave the registers
/// as it found them). A path without one is in no witness: every
/// combination holding it has no decomposition, and [`Search::wants`]
/// refuses it.
fn may_repeat(thread: usize, st: &crate::engine::Stuck, events: &[PathEvent]) -> bool {
    splits(thread, st).iter().any(|s| {
        s.infix.clone().rev().enumerate().all(|(k, i)| {
            let (a, b) = (&s.iterations[i], &s.iterations[s.iterations.len() - 1 - k]);
            a.len() == b.len()
                && a.clone().zip(b.clone()).all(|(x, y)| {
                    let (ex, ey) = (&events[x], &events[y]);
                    ex.stmt == ey.stmt && ex.writes == ey.writes && ex.write == ey.write
                })
        })
    })
}

/// Whether two register states agree: `None` when some register has two
/// different known values (a register not written yet is 0), else the
/// pairs of values that depend on the candidate execution (a read's value
/// nothing on the path made concrete) and must be equal in it.
fn same_registers(
    a: &[(String, RegValue)],
    b: &[(String, RegValue)],
) -> Option<Vec<(RegValue, RegValue)>> {
    let value = |regs: &[(String, RegValue)], r: &str| {
        regs.iter()
            .find(|(name, _)| name == r)
            .map_or(RegValue::Const(0), |(_, v)| *v)
    };
    let mut deferred = Vec::new();
    for (r, _) in a.iter().chain(b) {
        match (value(a, r), value(b, r)) {
            (RegValue::Const(x), RegValue::Const(y)) if x != y => return None,
            (RegValue::Const(_), RegValue::Const(_)) => {}
            (x, y) if x == y => {}
            (x, y) => deferred.push((x, y)),
        }
    }
    Some(deferred)
}

/// The search for a witness: a visitor of the driver.
struct Search<'a> {
    program: &'a Program,
    progress: &'a Progress,
    tree: Node,
    /// Locations of the current skeleton's events.
    locations: Vec<Option<usize>>,
    /// The invocations with progress in the current skeleton's schedule.
    fair: Vec<usize>,
    /// The current skeleton's combinations of splits (one per stuck
    /// thread) whose matched iterations run the same instructions and
    /// writes; narrowed per coherence order to `combos`.
    options: Vec<Decomposition>,
    combos: Vec<usize>,
    /// The decomposition (index into `options`) under which the current
    /// candidate repeats; described as a witness only if it is consistent.
    pending: Option<usize>,
    witness: Option<Witness>,
    /// Draw the witness execution with this wording (`explain`, `show`).
    draw: Option<(&'a ExplainSpec, &'a crate::model::Profile)>,
    /// [`crate::engine::Reduction::TerminationShortcuts`].
    shortcuts: bool,
    /// [`crate::engine::Reduction::WitnessPruning`]: a stuck path whose
    /// loop cannot repeat ([`may_repeat`]) goes in no block.
    pruning: bool,
    /// The keys of the skeletons the shallower bounds searched to the end
    /// without a witness (refused here), and the tables of their parts
    /// ([`SearchKeys`]). Whether a skeleton holds a witness depends on the
    /// skeleton alone (its candidates, their evaluations, and the
    /// conditions this search checks on them read nothing of the bound),
    /// so a skeleton one bound searched without a witness holds none at a
    /// deeper bound either, where the paths no bound cut come again.
    keys: SearchKeys,
    /// The keys of the skeletons this bound searched under some coherence
    /// order (kept once the bound is searched to the end).
    wanted: Vec<SearchKey>,
    /// What the current skeleton's key needs that listing its orders
    /// drops, until an order of it is searched (its key is then entered).
    listed: Option<Listed>,
}

/// A combination of splits with where each event stands.
struct Decomposition {
    splits: Vec<Split>,
    part: Vec<Part>,
    /// For each infix event, the suffix event it matches.
    matched: Vec<Option<usize>>,
}

fn run_of(e: &Ending, events: usize) -> Run {
    match e {
        Ending::Finished => Run::Finished,
        Ending::Stuck(_) => Run::Stuck,
        Ending::Stopped | Ending::Cut { .. } => Run::Stopped(events),
        Ending::Blocked { .. } => Run::Blocked,
    }
}

/// Where each event stands under `splits`, if matched iterations run the
/// same instructions with the same writes (what the paths fix).
fn decompose(splits: Vec<Split>, sk: &Skeleton) -> Option<Decomposition> {
    let n = sk.events.len();
    let mut part = vec![Part::Prefix; n];
    let mut matched: Vec<Option<usize>> = vec![None; n];
    for s in &splits {
        for i in s.suffix.clone() {
            for e in s.iterations[i].clone() {
                part[e] = Part::Suffix;
            }
        }
        // The infix's iterations match the suffix's last ones, from the end.
        for (k, i) in s.infix.clone().rev().enumerate() {
            let a = &s.iterations[i];
            let b = &s.iterations[s.iterations.len() - 1 - k];
            if a.len() != b.len() {
                return None;
            }
            for (x, y) in a.clone().zip(b.clone()) {
                let (ex, ey) = (&sk.events[x], &sk.events[y]);
                if ex.stmt != ey.stmt || ex.writes != ey.writes || ex.write_value != ey.write_value
                {
                    return None;
                }
                part[x] = Part::Infix;
                matched[x] = Some(y);
            }
        }
    }
    // A barrier passed in a repeating suffix is passed again each time the
    // suffix repeats: every invocation that meets it there must repeat it
    // too (Dat3M: "syncing barriers are in the suffix too"), and one passed
    // once must not meet a repeating one.
    let repeats = |e: usize| part[e] == Part::Suffix;
    if sk.barriers.iter().any(|g| {
        g.passed.iter().any(|&(e, _)| repeats(e)) && !g.passed.iter().all(|&(e, _)| repeats(e))
    }) {
        return None;
    }
    Some(Decomposition {
        splits,
        part,
        matched,
    })
}

impl Decomposition {
    fn infix(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.part.len()).filter(|&e| self.part[e] == Part::Infix)
    }

    fn image(&self, e: usize) -> usize {
        self.matched[e].unwrap_or(e)
    }

    /// The conditions on coherence alone: coherence among infix writes is
    /// that among their matches, and no suffix write is coherence-before a
    /// prefix write of its location.
    fn orders_ok(&self, co: &Relation, sk: &Skeleton, locations: &[Option<usize>]) -> bool {
        for x in self.infix() {
            for y in self.infix() {
                if co.contains(x, y) != co.contains(self.image(x), self.image(y)) {
                    return false;
                }
            }
        }
        let n = self.part.len();
        (0..n)
            .filter(|&e| self.part[e] == Part::Suffix && sk.events[e].writes)
            .all(|e| {
                !(0..n).any(|x| {
                    self.part[x] == Part::Prefix
                        && sk.events[x].writes
                        && locations[x] == locations[e]
                        && co.contains(e, x)
                })
            })
    }

    /// The conditions on reads-from: matched reads read the same values and
    /// reads-from among infix events is that among their matches; only
    /// suffix reads read suffix writes; a suffix read of a prefix write
    /// reads a maximal one (the initial value only if nothing writes there).
    fn reads_ok(&self, f: &Facts) -> bool {
        // (No expression: the termination search keeps no store symbolic,
        // `Reduction::SymbolicStores`.)
        let value = |v: &RegValue| match *v {
            RegValue::Const(c) => Some(c),
            RegValue::Read(e) => f.value[e],
            RegValue::Expr(_) => None,
        };
        if self
            .splits
            .iter()
            .flat_map(|s| &s.registers_equal)
            .any(|(a, b)| value(a) != value(b))
        {
            return false;
        }
        for x in self.infix() {
            if f.value[x] != f.value[self.image(x)] {
                return false;
            }
            for y in self.infix() {
                if f.rf(x, y) != f.rf(self.image(x), self.image(y)) {
                    return false;
                }
            }
        }
        let empty = Relation::empty(self.part.len());
        let of = OrderFacts {
            sk: f.sk,
            co: f.co.unwrap_or(&empty),
            location: f.location,
        };
        (0..self.part.len()).all(|e| f.source[e].is_none_or(|src| self.source_ok(e, src, &of)))
    }

    /// Whether `o` is a read-modify-write of the suffix that writes back
    /// the value it read (an await's iteration: the engine drops the
    /// others, `trace::spin_loops`). It comes immediately after the write
    /// it reads and leaves memory as it was, so the next repetition reads
    /// its write, of the same value: it makes no write it follows stale.
    fn idle(&self, o: usize, f: &OrderFacts) -> bool {
        let ev = &f.sk.events[o];
        self.part[o] == Part::Suffix && ev.read_value.is_some() && ev.read_value == ev.write_value
    }

    /// Whether read `e` may read from `src` (`None`: the initial value):
    /// only suffix reads read suffix writes; a suffix read of a prefix write
    /// reads a maximal one; of the initial value, only where nothing writes.
    fn source_ok(&self, e: usize, src: Option<usize>, f: &OrderFacts) -> bool {
        match src {
            Some(w) if self.part[w] == Part::Suffix => self.part[e] == Part::Suffix,
            Some(w) if self.part[e] == Part::Suffix && self.part[w] == Part::Prefix => {
                f.co_maximal_but(w, |o| self.idle(o, f))
            }
            None if self.part[e] == Part::Suffix => {
                !f.writes_location_but(f.location[e], |o| self.idle(o, f))
            }
            _ => true,
        }
    }
}

impl Search<'_> {
    fn runs(&self, sk: &Skeleton) -> Vec<Run> {
        (0..self.program.threads.len())
            .map(|t| {
                let n = sk.events.iter().filter(|e| e.thread == t).count();
                run_of(&sk.endings[t], n)
            })
            .collect()
    }

    fn describe(&self, sk: &Skeleton, facts: &Facts, splits: &[Split]) -> Witness {
        let program = self.program;
        let runs = self.runs(sk);
        let threads = program
            .threads
            .iter()
            .enumerate()
            .map(|(t, th)| {
                let events = sk.events.iter().filter(|e| e.thread == t).count();
                Fate {
                    thread: format!("P{}", th.id),
                    fate: match runs[t] {
                        Run::Finished => "finished",
                        Run::Stuck => "stuck",
                        Run::Blocked => "blocked at a barrier",
                        Run::Stopped(0) => "never started",
                        Run::Stopped(_) => "stopped",
                    }
                    .to_string(),
                    fair: self.fair.contains(&t),
                    events,
                }
            })
            .collect();
        let line = |t: usize, stmt: usize| program.threads[t].code[stmt].source().line;
        let place = |t: usize, stmt: usize| program.threads[t].code[stmt].source().place();
        let loops = splits
            .iter()
            .map(|s| {
                let suffix_events =
                    s.iterations[s.suffix.start].start..s.iterations[s.suffix.end - 1].end;
                let reads = suffix_events
                    .filter(|&e| facts.source[e].is_some())
                    .map(|e| {
                        let from = match facts.source[e].flatten() {
                            None => "the initial value".to_string(),
                            Some(w) => {
                                let ev = &sk.events[w];
                                format!(
                                    "P{} {}",
                                    program.threads[ev.thread].id,
                                    place(ev.thread, ev.stmt)
                                )
                            }
                        };
                        format!(
                            "{} reads {} from {from}",
                            super::phrases::describe(program, &sk.events[e]),
                            facts.value[e].unwrap_or(0)
                        )
                    })
                    .collect();
                let events = |r: &std::ops::Range<usize>| -> Vec<usize> {
                    if r.is_empty() {
                        return Vec::new();
                    }
                    (s.iterations[r.start].start..s.iterations[r.end - 1].end).collect()
                };
                Repetition {
                    thread: format!("P{}", program.threads[s.thread].id),
                    head_line: line(s.thread, s.header),
                    back_line: line(s.thread, s.back),
                    file: program.threads[s.thread].code[s.header]
                        .source()
                        .file
                        .clone()
                        .map(String::from),
                    iterations: s.iterations.len(),
                    infix: s.infix.len(),
                    suffix: s.suffix.len(),
                    reads,
                    suffix_events: events(&s.suffix),
                    infix_events: events(&s.infix),
                }
            })
            .collect();
        Witness {
            threads,
            loops,
            execution: None,
        }
    }
}

/// What the reads-from checks need of one candidate execution.
struct Facts<'a> {
    sk: &'a Skeleton,
    /// Per event: `Some(source)` for reads (`None` inside: the initial value).
    source: Vec<Option<Option<usize>>>,
    /// Per event: the value read, for reads.
    value: Vec<Option<i64>>,
    location: &'a [Option<usize>],
    co: Option<&'a Relation>,
}

impl<'a> Facts<'a> {
    fn new(
        program: &Program,
        sk: &'a Skeleton,
        cand: &'a Candidate,
        location: &'a [Option<usize>],
    ) -> Facts<'a> {
        let n = sk.events.len();
        let mut source = vec![None; n];
        let mut value = vec![None; n];
        for (k, &r) in sk.reads.iter().enumerate() {
            source[r] = Some(cand.rf_source[k]);
            value[r] = Some(crate::analysis::litmus::read_value(sk, cand, r, program));
        }
        let co = match cand.env.get("co") {
            Some(Value::Rel(r)) => Some(r),
            _ => None,
        };
        Facts {
            sk,
            source,
            value,
            location,
            co,
        }
    }

    fn rf(&self, w: usize, r: usize) -> bool {
        self.source[r] == Some(Some(w))
    }
}

/// What the reads-from conditions need of a coherence order.
struct OrderFacts<'a> {
    sk: &'a Skeleton,
    co: &'a Relation,
    location: &'a [Option<usize>],
}

impl OrderFacts<'_> {
    /// Whether `w` is a maximal write of its location: no write to it
    /// follows in coherence or program order.
    /// Writes `skip` names are not counted.
    fn co_maximal_but(&self, w: usize, skip: impl Fn(usize) -> bool) -> bool {
        let ev = &self.sk.events;
        (0..ev.len()).all(|o| {
            o == w
                || skip(o)
                || !ev[o].writes
                || self.location[o] != self.location[w]
                || !(self.co.contains(w, o) || (ev[o].thread == ev[w].thread && w < o))
        })
    }

    /// Whether some write of the skeleton, other than those `skip` names,
    /// writes location `l`.
    fn writes_location_but(&self, l: Option<usize>, skip: impl Fn(usize) -> bool) -> bool {
        (0..self.sk.events.len())
            .any(|o| self.sk.events[o].writes && self.location[o] == l && !skip(o))
    }
}

impl Visitor for Search<'_> {
    /// Only the combinations of path endings the progress model allows,
    /// with some thread stuck: the endings are grouped by kind, and each
    /// allowed assignment of kinds to threads is one block.
    fn blocks(&mut self, threads: &[ThreadPaths]) -> Option<Vec<Vec<Vec<usize>>>> {
        const KINDS: [Run; 5] = [
            Run::Finished,
            Run::Stuck,
            Run::Stopped(0),
            Run::Stopped(1),
            Run::Blocked,
        ];
        let kind = |p: &crate::engine::trace::Path| match (&p.ending, p.events.len()) {
            (Ending::Finished, _) => 0,
            (Ending::Stuck(_), _) => 1,
            (Ending::Stopped | Ending::Cut { .. }, 0) => 2,
            (Ending::Stopped | Ending::Cut { .. }, _) => 3,
            (Ending::Blocked { .. }, _) => 4,
        };
        // Per thread, per kind: the paths put in blocks (with witness
        // pruning, a stuck path whose loop cannot repeat is in none), and
        // how many paths of the kind there are, pruned or not.
        let (groups, counts): (Vec<[Vec<usize>; 5]>, Vec<[usize; 5]>) = threads
            .iter()
            .enumerate()
            .map(|(t, tp)| {
                let mut g: [Vec<usize>; 5] = Default::default();
                let mut n = [0usize; 5];
                for (i, p) in tp.paths.iter().enumerate() {
                    let k = kind(p);
                    n[k] += 1;
                    let repeats = match &p.ending {
                        Ending::Stuck(st) => !self.pruning || may_repeat(t, st, &p.events),
                        _ => true,
                    };
                    if repeats {
                        g[k].push(i);
                    }
                }
                (g, n)
            })
            .unzip();
        let n = threads.len();
        let mut blocks = Vec::new();
        let mut assign = vec![0usize; n];
        loop {
            let nonempty = (0..n).all(|t| !groups[t][assign[t]].is_empty());
            if nonempty && (assign.contains(&1) || assign.contains(&4)) {
                let runs: Vec<Run> = assign.iter().map(|&k| KINDS[k]).collect();
                if self
                    .tree
                    .can_progress(&runs, self.progress, &mut Vec::new())
                {
                    let block: Vec<Vec<usize>> =
                        (0..n).map(|t| groups[t][assign[t]].clone()).collect();
                    let count = |kind: usize| assign.iter().filter(|&&k| k == kind).count();
                    // The combinations the block has without witness
                    // pruning: the blocks are searched in the same order
                    // with the pruning and without it (below).
                    let size =
                        (0..n).fold(1u128, |a, t| a.saturating_mul(counts[t][assign[t]] as u128));
                    blocks.push(((count(0), count(3), size), block));
                }
            }
            let mut d = 0;
            loop {
                if d == n {
                    // The blocks most likely to hold a witness first,
                    // since the search stops at the first one: fewest
                    // finished threads (a thread that runs to its end
                    // writes what a spin waits for), then fewest threads
                    // stopped part-way (each has as many endings as its
                    // paths have prefixes), then fewest combinations. The
                    // order changes which witness is found first, not
                    // whether one is: without one every block is searched.
                    // The combinations are counted as if no path were
                    // pruned, so witness pruning keeps the order and
                    // drops only skeletons `wants` refuses, which cost no
                    // evaluation: the pruned search evaluates what the
                    // plain one does, in the same order, and a limit
                    // (`--max-executions` counts evaluations) stops it
                    // no earlier.
                    blocks.sort_by_key(|(key, _)| *key);
                    let blocks: Vec<Vec<Vec<usize>>> = blocks.into_iter().map(|(_, b)| b).collect();
                    return Some(blocks);
                }
                assign[d] += 1;
                if assign[d] < KINDS.len() {
                    break;
                }
                assign[d] = 0;
                d += 1;
            }
        }
    }

    fn wants(&mut self, sk: &Skeleton) -> bool {
        let runs = self.runs(sk);
        let mut fair = Vec::new();
        if !(runs.contains(&Run::Stuck) || runs.contains(&Run::Blocked))
            || !self.tree.can_progress(&runs, self.progress, &mut fair)
            || !barriers::agree(self.program, sk)
        {
            return false;
        }
        fair.sort_unstable();
        fair.dedup();
        self.fair = fair;
        let options: Vec<Vec<Split>> = sk
            .endings
            .iter()
            .enumerate()
            .filter_map(|(t, e)| match e {
                Ending::Stuck(st) => Some(splits(t, st)),
                _ => None,
            })
            .collect();
        // Every combination of one split per stuck thread.
        self.options = crate::engine::combinations(&options)
            .into_iter()
            .filter_map(|c| decompose(c, sk))
            .collect();
        if self.options.is_empty() {
            return false;
        }
        if self.shortcuts {
            self.listed = SearchKeys::listed(sk);
            if let Some(l) = &self.listed
                && self.keys.find(sk, l).is_some_and(|k| self.keys.holds(&k))
            {
                self.listed = None;
                return false;
            }
        }
        self.locations = sk
            .events
            .iter()
            .map(|e| self.program.location_of(e.instruction(self.program)))
            .collect();
        true
    }

    /// With the shortcuts, only the orders memory fairness allows
    /// ([`Visitor::may_precede`]).
    fn needs(&self) -> crate::engine::Needs {
        crate::engine::Needs {
            constrains_orders: self.shortcuts,
            // `wants` refuses the others (`barriers::agree`).
            barriers_agree: true,
            ..Default::default()
        }
    }

    /// Memory fairness (point 3 of the module doc): no suffix write is
    /// coherence-before a prefix write; a pair that every decomposition of
    /// the skeleton places so is never ordered that way round.
    fn may_precede(&self, a: usize, b: usize) -> bool {
        !self
            .options
            .iter()
            .all(|o| o.part[a] == Part::Suffix && o.part[b] == Part::Prefix)
    }

    /// Under `co`, the decompositions whose coherence conditions hold, and
    /// for each read the writes some of them lets it read (the reads-from
    /// conditions are per read: see [`Decomposition::source_ok`]).
    fn wants_orders(&mut self, sk: &Skeleton, co: &Relation) -> OrderChoice {
        self.combos = (0..self.options.len())
            .filter(|&i| self.options[i].orders_ok(co, sk, &self.locations))
            .collect();
        if self.combos.is_empty() {
            return OrderChoice::Skip;
        }
        if let Some(key) = self.listed.take().and_then(|l| self.keys.enter(sk, &l)) {
            self.wanted.push(key);
        }
        let facts = OrderFacts {
            sk,
            co,
            location: &self.locations,
        };
        OrderChoice::Restrict(
            sk.reads
                .iter()
                .zip(&sk.rf_choices)
                .map(|(&r, choices)| {
                    choices
                        .iter()
                        .copied()
                        .filter(|&src| {
                            self.combos
                                .iter()
                                .any(|&i| self.options[i].source_ok(r, src, &facts))
                        })
                        .collect()
                })
                .collect(),
        )
    }

    fn wants_candidate(&mut self, sk: &Skeleton, cand: &Candidate) -> bool {
        let facts = Facts::new(self.program, sk, cand, &self.locations);
        self.pending = self
            .combos
            .iter()
            .copied()
            .find(|&i| self.options[i].reads_ok(&facts));
        self.pending.is_some()
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
        match self.pending.take() {
            Some(i) => {
                let facts = Facts::new(self.program, sk, cand, &self.locations);
                let mut w = self.describe(sk, &facts, &self.options[i].splits);
                if let Some((spec, profile)) = self.draw {
                    w.execution = Some(crate::analysis::explain::witness(
                        self.program,
                        sk,
                        cand,
                        eval,
                        spec,
                        profile,
                    ));
                }
                self.witness = Some(w);
                Ok(ControlFlow::Break(()))
            }
            None => Ok(ControlFlow::Continue(())),
        }
    }
}

/// Checks whether `program` can run forever under `progress`, within
/// `limits` (the unrolling bound bounds the loop iterations a repetition
/// may take).
pub fn check_termination(
    file: &str,
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    progress: &Progress,
) -> Result<TerminationOutcome, CheckError> {
    search_termination(file, program, loaded, limits, progress, None)
}

/// [`check_termination`], drawing the witness: its
/// [`Witness::execution`] holds the execution's events and the edges
/// `spec` labels (what `vkmm explain` prints and `vkmm show` draws).
pub fn explain_termination(
    file: &str,
    program: &Program,
    loaded: &LoadedModel,
    spec: &ExplainSpec,
    limits: Limits,
    progress: &Progress,
) -> Result<TerminationOutcome, CheckError> {
    search_termination(
        file,
        program,
        loaded,
        limits,
        progress,
        Some((spec, &loaded.profile)),
    )
}

fn search_termination(
    file: &str,
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    progress: &Progress,
    draw: Option<(&ExplainSpec, &crate::model::Profile)>,
) -> Result<TerminationOutcome, CheckError> {
    let start = Instant::now();
    super::models::check_supported(program, loaded)?;
    if program.dialect == crate::ir::Dialect::OpenCl
        && progress.levels.iter().any(|(l, _)| *l == Level::Subgroup)
    {
        // The OpenCL front end puts each work-item in a subgroup of its
        // own: a subgroup model would schedule one invocation.
        return Err(CheckError::Unsupported(format!(
            "the progress hierarchy `{progress}` names the subgroup level, which an OpenCL test does not use (its work-groups' work-items are scheduled by the workgroup level)"
        )));
    }
    // Iterative deepening over the unrolling bound: a witness found with
    // fewer loop iterations is a witness (the conditions above do not
    // depend on the bound), and the searches of small bounds are cheap, so
    // bounds 0, 1, ..., `limits.bounds.unroll` are searched in turn until one
    // shows a witness or cuts no path (then "terminates" is complete).
    // Deeper bounds alone reach their witnesses later in the search (e.g.
    // CADP 2_threads_4_instructions/58_simple under FAIR: a witness at
    // once at bound 1, the execution limit first at bound 2). The
    // execution and time budgets are shared by all the bounds.
    let mut total = crate::engine::Coverage::default();
    let mut witness = None;
    // The deepest bound searched to the end (no limit stopped it), and the
    // limit that stopped the first bound past it, if any.
    let mut decided: Option<crate::engine::Coverage> = None;
    let mut stopped: Option<(usize, LimitKind)> = None;
    let mut found_at = 0;
    let plan = crate::engine::QuestionPlan::of(&limits);
    let shortcuts = plan.termination_shortcuts;
    let first = if shortcuts { 0 } else { limits.bounds.unroll };
    let mut keys = SearchKeys::default();
    for unroll in first..=limits.bounds.unroll {
        let used = total.executions + total.partial_evaluations;
        let remaining_time = limits
            .bounds
            .timeout
            .map(|t| t.saturating_sub(start.elapsed()));
        // A budget spent before this bound: the first bound a limit
        // stopped (this one or a shallower one) is the one reported.
        if used >= limits.bounds.max_executions {
            stopped = stopped.or(Some((unroll, LimitKind::MaxExecutions)));
            break;
        }
        if remaining_time.is_some_and(|t| t.is_zero()) {
            stopped = stopped.or(Some((unroll, LimitKind::Timeout)));
            break;
        }
        let mut search = Search {
            program,
            progress,
            tree: hierarchy(program),
            locations: Vec::new(),
            fair: Vec::new(),
            options: Vec::new(),
            combos: Vec::new(),
            pending: None,
            witness: None,
            draw,
            shortcuts,
            pruning: plan.witness_pruning,
            keys: std::mem::take(&mut keys),
            wanted: Vec::new(),
            listed: None,
        };
        let bound = Limits {
            endings: true,
            bounds: Bounds {
                unroll,
                max_executions: limits.bounds.max_executions - used,
                timeout: remaining_time,
                ..limits.bounds
            },
            ..limits
        };
        let coverage = explore(program, loaded, bound, &mut search)?;
        keys = std::mem::take(&mut search.keys);
        total.executions += coverage.executions;
        total.partial_evaluations += coverage.partial_evaluations;
        if search.witness.is_some() {
            witness = search.witness;
            found_at = unroll;
            break;
        }
        if coverage.truncated {
            // A limit stopped this bound: "terminates" cannot be said at
            // it, but a deeper bound may still show a witness (the order
            // limit skips only some path combinations), so the deepening
            // goes on unless time or memory ran out. Without a witness the
            // answer is the deepest bound searched to the end, if any.
            stopped = stopped.or(Some((
                unroll,
                coverage.stopped_by.unwrap_or(LimitKind::MaxExecutions),
            )));
            if matches!(
                coverage.stopped_by,
                Some(LimitKind::Timeout | LimitKind::MaxMemory)
            ) {
                break;
            }
            continue;
        }
        let complete = coverage.cut_paths == 0;
        // Every skeleton this bound wanted was searched to the end.
        for k in std::mem::take(&mut search.wanted) {
            keys.insert(k);
        }
        // A bound searched to the end covers every shallower one's
        // candidates (a path stuck after fewer iterations is one of its
        // paths too): earlier stops no longer matter.
        stopped = None;
        decided = Some(coverage);
        if complete {
            // Nothing cut: every execution was examined, whatever the bound.
            break;
        }
    }
    // A stop past the deepest bound searched to the end leaves the bound
    // asked for unanswered: "terminates within unroll k" for a smaller k is
    // not an answer to the question asked, so the verdict is undecided
    // (the report says how deep the search got).
    let verdict = match (&witness, &decided, stopped) {
        (Some(_), _, _) => Verdict::NonTerminating,
        (None, Some(_), None) => Verdict::Terminates,
        (None, _, _) => Verdict::Undecided,
    };
    let truncated = verdict == Verdict::Undecided;
    Ok(TerminationOutcome {
        file: file.to_string(),
        name: program.name.clone(),
        model: loaded.name.clone(),
        progress: progress.to_string(),
        verdict,
        witness,
        executions: total.executions,
        partial_evaluations: total.partial_evaluations,
        cut_paths: decided.map_or(0, |c| c.cut_paths),
        unroll: match verdict {
            Verdict::NonTerminating => found_at,
            Verdict::Terminates => decided.map_or(limits.bounds.unroll, |c| c.unroll),
            Verdict::Undecided => stopped.map_or(limits.bounds.unroll, |(u, _)| u),
        },
        max_unroll: limits.bounds.unroll,
        truncated,
        stopped_by: if truncated {
            stopped.map(|(_, k)| k)
        } else {
            None
        },
        searched_within: match verdict {
            Verdict::Undecided => decided.map(|c| c.unroll),
            _ => None,
        },
        time: start.elapsed(),
        warnings: Vec::new(),
        front_end_limit: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_hierarchies_parse() {
        assert_eq!(
            "fair".parse::<Progress>().unwrap(),
            Progress::uniform(ProgressModel::Fair)
        );
        assert_eq!(
            "HSA-OBE".parse::<Progress>().unwrap().default,
            ProgressModel::HsaObe
        );
        let p: Progress = "[wg=OBE, subgroup=HSA, default=LOBE]".parse().unwrap();
        assert_eq!(p.default, ProgressModel::Lobe);
        assert_eq!(p.at(Some(Level::Workgroup)), ProgressModel::Obe);
        assert_eq!(p.at(Some(Level::Subgroup)), ProgressModel::Hsa);
        assert_eq!(p.at(Some(Level::Device)), ProgressModel::Lobe);
        assert_eq!(p.at(None), ProgressModel::Lobe);
        assert_eq!(p.to_string(), "workgroup=OBE, subgroup=HSA, default=LOBE");
        // Dat3M's names for hierarchies (SpirvLivenessTest).
        assert_eq!(
            Progress::from_dat3m_name("qfHsaSgUnfair")
                .unwrap()
                .to_string(),
            "queuefamily=HSA, subgroup=UNFAIR, default=FAIR"
        );
        assert_eq!(
            Progress::from_dat3m_name("fairUniform").unwrap(),
            Progress::default()
        );
        assert!(
            Progress::from_dat3m_name("qfSometimes")
                .unwrap_err()
                .contains("qfSometimes")
        );
        // A level given the default's model is the default.
        let p: Progress = "qf=FAIR".parse().unwrap();
        assert_eq!(p, Progress::uniform(ProgressModel::Fair));
        for (bad, why) in [
            ("FAIRER", "unknown progress model `FAIRER`"),
            ("[wg=OBE", "missing the closing `]`"),
            ("cta=OBE", "unknown level `cta`"),
            ("wg=OBE,wg=HSA", "given twice"),
            ("wg", "unknown progress model `wg`"),
            ("wg=OBE,sg", "expected `LEVEL=MODEL`"),
        ] {
            let e = bad.parse::<Progress>().unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}

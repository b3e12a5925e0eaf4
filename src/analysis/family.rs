//! Families of tests: every test of a bound, written with each model's
//! verdict (`vkmm gen --family`, docs/synthesis.md, "Families").
//!
//! A family is a bound (threads, events per thread, locations) and an
//! instruction vocabulary (the one `vkmm diff` searches: access kinds,
//! scopes, semantics, storage classes, barriers, RMWs). Its skeletons are
//! `diff`'s: one per class of skeletons equal up to a permutation of the
//! threads and a renaming of the locations, every location accessed by at
//! least two events, the threads connected. Each skeleton's outcomes are
//! the final states of its candidate executions (every reads-from choice
//! and modification order, consistent or not, under no model): each read's
//! value and each location's final value. Every write stores its own value,
//! so an outcome names the writes the reads saw. Each outcome is a test
//! whose `exists` clause pins it, with each model's verdict: `Ok` when the
//! model's complete listing of reachable final states holds it, `No` when
//! the complete listing does not, undecided when a limit cut the listing.
//! A family stopped by a limit says what it covered and is never reported
//! as whole.

use super::diff::{DiffBounds, Op, Pinned, Shape, Vocabulary, pin, skeletons, stops_all};
use super::litmus::{Property, check_litmus};
use super::mapping::Halt;
use crate::engine::driver::CheckError;
use crate::engine::{Candidate, Limits, Skeleton};
use crate::engine::{Visitor, explore};
use crate::frontend::{Format, Options};
use crate::ir::Program;
use crate::model::LoadedModel;
use serde::Serialize;
use std::ops::ControlFlow;

/// Which outcomes of each skeleton become tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcomes {
    /// The outcomes some model forbids (the weak outcomes a test checks).
    Forbidden,
    /// Every outcome.
    All,
}

/// A family: the bound and the vocabulary.
#[derive(Clone, Debug)]
pub struct FamilyBounds {
    pub threads: usize,
    /// The most events per thread.
    pub events: usize,
    pub locations: usize,
    pub vocabulary: Vocabulary,
    pub outcomes: Outcomes,
    /// The instant the generation stops by (undecided past what it covered).
    pub deadline: Option<web_time::Instant>,
}

/// One model's verdict on a test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelVerdict {
    pub model: String,
    /// The `exists` clause: `Some(true)` Ok (allowed), `Some(false)` No
    /// (forbidden), `None` undecided.
    pub condition: Option<bool>,
    /// Race freedom: `Some(true)` race-free, `Some(false)` racy.
    pub race_free: Option<bool>,
}

impl ModelVerdict {
    /// The verdict as one line of a test's commentary:
    /// `vulkan: condition No (forbidden), racy`.
    pub fn line(&self) -> String {
        format!(
            "{}: condition {}, {}",
            self.model,
            match self.condition {
                Some(true) => "Ok (allowed)",
                Some(false) => "No (forbidden)",
                None => "undecided",
            },
            match self.race_free {
                Some(true) => "race-free",
                Some(false) => "racy",
                None => "races undecided",
            }
        )
    }

    /// Reads a line written by [`ModelVerdict::line`].
    pub fn parse(line: &str) -> Option<ModelVerdict> {
        // The last line of a commentary ends with its closing quote.
        let line = line.trim().trim_start_matches('"').trim_end_matches('"');
        let (model, rest) = line.split_once(": condition ")?;
        let (cond, race) = rest.rsplit_once(", ")?;
        let condition = match cond {
            "Ok (allowed)" => Some(true),
            "No (forbidden)" => Some(false),
            "undecided" => None,
            _ => return None,
        };
        let race_free = match race {
            "race-free" => Some(true),
            "racy" => Some(false),
            "races undecided" => None,
            _ => return None,
        };
        Some(ModelVerdict {
            model: model.to_string(),
            condition,
            race_free,
        })
    }
}

/// Every verdict line of a test's commentary.
pub fn verdicts_in(text: &str) -> Vec<ModelVerdict> {
    text.lines().filter_map(ModelVerdict::parse).collect()
}

/// A test of the family.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyTest {
    /// The test's name (its file stem).
    pub name: String,
    /// The test, its commentary holding the verdicts.
    pub text: String,
    /// Its `exists` clause.
    pub condition: String,
    pub events: usize,
    pub threads: usize,
    /// Each model's verdict, in the order of the models.
    pub verdicts: Vec<ModelVerdict>,
}

/// What the generation wrote and covered.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyReport {
    pub models: Vec<String>,
    pub vocabulary: String,
    pub threads: usize,
    pub events: usize,
    pub locations: usize,
    pub outcomes: Outcomes,
    pub tests: Vec<FamilyTest>,
    /// Skeletons walked, outcomes seen (written or not).
    pub skeletons: u64,
    pub outcomes_seen: u64,
    /// The largest total event count whose every skeleton was walked.
    pub covered_events: usize,
    /// Whether every skeleton of the bound was walked and every verdict
    /// decided.
    pub complete: bool,
    /// Skeletons whose candidates or listings a limit cut, and tests
    /// with an undecided verdict.
    pub cut: u64,
    pub undecided: u64,
    /// Why the generation stopped before the bound, when it did.
    pub stopped: Option<String>,
    pub notes: Vec<String>,
}

impl FamilyReport {
    /// The answer in one line.
    pub fn summary(&self) -> String {
        let bound = format!(
            "threads={} events={} locations={}, vocabulary {}",
            self.threads, self.events, self.locations, self.vocabulary
        );
        let what = format!(
            "{} test{} ({} of {} skeleton{})",
            self.tests.len(),
            if self.tests.len() == 1 { "" } else { "s" },
            match self.outcomes {
                Outcomes::Forbidden => "the outcomes some model forbids",
                Outcomes::All => "every outcome",
            },
            self.skeletons,
            if self.skeletons == 1 { "" } else { "s" }
        );
        if self.complete {
            format!("the whole family: {what} up to {bound}")
        } else {
            format!(
                "UNDECIDED: not the whole family: {what}; every skeleton of at most {} events walked; {}{} ({bound})",
                self.covered_events,
                self.stopped
                    .as_deref()
                    .unwrap_or("a limit cut some listings"),
                if self.undecided > 0 {
                    format!(", {} tests with an undecided verdict", self.undecided)
                } else {
                    String::new()
                }
            )
        }
    }
}

/// The models and how to read and check the tests.
pub struct Generator<'m> {
    pub models: Vec<&'m LoadedModel>,
    pub options: Options,
    pub limits: Limits,
    /// Write and read the tests in the OpenCL dialect (else Vulkan).
    pub opencl: bool,
}

/// Collects the pinned outcome of every candidate.
struct AllOutcomes<'a> {
    program: &'a Program,
    found: Vec<Pinned>,
}

impl Visitor for AllOutcomes<'_> {
    fn may_prune(&self) -> bool {
        false
    }

    fn visit(
        &mut self,
        skeleton: &Skeleton,
        candidate: &Candidate,
        eval: &crate::cat::Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        // The candidate's own coherence order gives the final values: no
        // model's reading is asked.
        let p = pin(self.program, None, skeleton, candidate, eval);
        if !self.found.iter().any(|f| f.all == p.all) {
            self.found.push(p);
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// A final state's clauses, sorted: what an outcome is compared by.
fn clauses(all: &str) -> Vec<String> {
    let mut v: Vec<String> = all.split(" /\\ ").map(|s| s.trim().to_string()).collect();
    v.sort();
    v
}

/// One model's reachable final states of a test, whole or not, and its
/// race verdict.
struct Listing {
    states: Vec<Vec<String>>,
    whole: bool,
    race_free: Option<bool>,
}

impl Generator<'_> {
    pub(super) fn parse(&self, name: &str, text: &str) -> Result<Program, String> {
        crate::frontend::parse_text(
            &format!("{name}.litmus"),
            text,
            if self.opencl {
                Format::OpenClLitmus
            } else {
                Format::VulkanLitmus
            },
            self.options.clone(),
        )
        .map_err(|e| format!("generated test {name} does not parse: {e}\n{text}"))
    }

    /// The test of `shape` in the generator's dialect.
    fn render(
        &self,
        shape: &Shape,
        name: &str,
        ops: &[Op],
        comment: &str,
        condition: Option<&Pinned>,
    ) -> Result<String, String> {
        if !self.opencl {
            return Ok(shape.render(name, ops, comment, condition));
        }
        render_opencl(shape, name, ops, comment, condition)
    }

    /// The outcomes of every candidate of `shape`, and whether a limit
    /// cut the walk; the time limit or the memory bound reached in it
    /// stops the family ([`Halt::Stopped`]).
    fn outcomes(&self, shape: &Shape, ops: &[Op]) -> Result<(Vec<Pinned>, bool), Halt> {
        let text = self.render(shape, "candidate", ops, "", None)?;
        let program = self.parse("candidate", &text)?;
        let m = self.models[0];
        let mut v = AllOutcomes {
            program: &program,
            found: Vec::new(),
        };
        let coverage = explore(&program, m, self.limits.reference().for_model(m), &mut v)
            .map_err(|e| e.to_string())?;
        if let Some(k) = stops_all(coverage.stopped_by) {
            return Err(Halt::Stopped(k));
        }
        let cut = coverage.truncated || coverage.stopped_by.is_some() || coverage.cut_paths > 0;
        Ok((v.found, cut))
    }

    /// A model's listing of the test `text` (its condition names every
    /// register and location, so its states show them all).
    fn listing(&self, m: &LoadedModel, text: &str) -> Result<Listing, Halt> {
        let program = self.parse("listing", text)?;
        let limits = self.limits.for_model(m);
        let run = |p: Property| match check_litmus("listing", &program, m, limits, Some(p)) {
            Ok(o) => match stops_all(o.stopped_by) {
                Some(k) => Err(Halt::Stopped(k)),
                None => Ok(Some(o)),
            },
            Err(CheckError::Unsupported(_)) => Ok(None),
            Err(e) => Err(Halt::Failed(format!("{}: {e}", m.name))),
        };
        let Some(states) = run(Property::States)? else {
            return Ok(Listing {
                states: Vec::new(),
                whole: false,
                race_free: None,
            });
        };
        let race_free = run(Property::Races)?.and_then(|o| o.holds(Property::Races));
        Ok(Listing {
            whole: states.states_incomplete().is_none(),
            states: states
                .states
                .iter()
                .map(|(s, _)| {
                    let mut v: Vec<String> = s.iter().map(|(k, v)| format!("{k} == {v}")).collect();
                    v.sort();
                    v
                })
                .collect(),
            race_free,
        })
    }
}

/// The family as far as it went when `h` stopped it (the limit named),
/// or its error.
fn halted(h: Halt, mut report: FamilyReport) -> Result<FamilyReport, String> {
    match h {
        Halt::Stopped(k) => {
            report.stopped = Some(format!("the {} stopped it", k.short()));
            Ok(report)
        }
        Halt::Failed(e) => Err(e),
    }
}

/// Generates the family `bounds` with each model's verdicts.
pub fn family(g: &Generator, bounds: &FamilyBounds) -> Result<FamilyReport, String> {
    if g.models.is_empty() {
        return Err("a family needs at least one model".into());
    }
    let db = DiffBounds {
        threads: bounds.threads,
        events: bounds.events,
        locations: bounds.locations,
        vocabulary: bounds.vocabulary.clone(),
        max_tests: 1,
        deadline: bounds.deadline,

        engine: super::diff::DiffEngine::Enumerate,
    };
    if bounds.locations == 0 || bounds.locations > super::diff::LOCATIONS.len() {
        return Err(format!(
            "--locations {}: expected 1 to {}",
            bounds.locations,
            super::diff::LOCATIONS.len()
        ));
    }
    let ops = bounds.vocabulary.ops();
    let mut report = FamilyReport {
        models: g.models.iter().map(|m| m.name.clone()).collect(),
        vocabulary: bounds.vocabulary.to_string(),
        threads: bounds.threads,
        events: bounds.events,
        locations: bounds.locations,
        outcomes: bounds.outcomes,
        tests: Vec::new(),
        skeletons: 0,
        outcomes_seen: 0,
        covered_events: 0,
        complete: false,
        cut: 0,
        undecided: 0,
        stopped: None,
        notes: Vec::new(),
    };
    if g.opencl {
        // Every instruction of the vocabulary must have an OpenCL form.
        for op in &ops {
            opencl_statement(op, "x", 1, "r0")?;
        }
        report.notes.push(
            "the models are OpenCL models: the family is written in the OpenCL dialect".into(),
        );
    } else {
        for m in &g.models {
            if is_opencl(m) {
                report.notes.push(format!(
                    "{} is an OpenCL model: the family is written in the Vulkan dialect, which it \
                     reads too, on the vocabulary the two dialects share",
                    m.name
                ));
            }
        }
    }
    let expired = || {
        bounds
            .deadline
            .is_some_and(|d| web_time::Instant::now() >= d)
    };
    let header = format!(
        "Generated by vkmm gen --family (threads {}, events {}, locations {}, vocabulary {}).",
        bounds.threads, bounds.events, bounds.locations, report.vocabulary
    );
    let mut index = 0usize;
    for n in 1..=bounds.threads * bounds.events {
        for shape in skeletons(&db, &ops, n) {
            if expired() {
                report.stopped = Some("the time limit stopped it".into());
                return Ok(report);
            }
            report.skeletons += 1;
            index += 1;
            let (mut outcomes, cut) = match g.outcomes(&shape, &ops) {
                Ok(x) => x,
                Err(h) => return halted(h, report),
            };
            if outcomes.is_empty() {
                report.cut += 1;
                continue;
            }
            let probe = g.render(&shape, "listing", &ops, "", Some(&outcomes[0]))?;
            let listings: Vec<Listing> = match g
                .models
                .iter()
                .map(|m| g.listing(m, &probe))
                .collect::<Result<_, _>>()
            {
                Ok(l) => l,
                Err(h) => return halted(h, report),
            };
            // A state a model reaches that no candidate showed (none
            // should) is an outcome too.
            for l in &listings {
                for s in &l.states {
                    if !outcomes.iter().any(|o| &clauses(&o.all) == s) {
                        outcomes.push(Pinned {
                            reads: String::new(),
                            all: s.join(" /\\ "),
                            filter: false,
                        });
                    }
                }
            }
            let cut = cut || listings.iter().any(|l| !l.whole);
            report.cut += u64::from(cut);
            for (k, o) in outcomes.iter().enumerate() {
                report.outcomes_seen += 1;
                let key = clauses(&o.all);
                let verdicts: Vec<ModelVerdict> = g
                    .models
                    .iter()
                    .zip(&listings)
                    .map(|(m, l)| ModelVerdict {
                        model: m.name.clone(),
                        condition: if l.states.contains(&key) {
                            Some(true)
                        } else if l.whole {
                            Some(false)
                        } else {
                            None
                        },
                        race_free: l.race_free,
                    })
                    .collect();
                let forbidden = verdicts.iter().any(|v| v.condition == Some(false));
                let undecided = verdicts.iter().any(|v| v.condition.is_none());
                if bounds.outcomes == Outcomes::Forbidden && !forbidden && !undecided {
                    continue;
                }
                report.undecided += u64::from(undecided);
                let name = format!("fam-{n}-{index:04}-{}", letters(k));
                let comment = std::iter::once(header.clone())
                    .chain(verdicts.iter().map(ModelVerdict::line))
                    .collect::<Vec<_>>()
                    .join("\n");
                report.tests.push(FamilyTest {
                    text: g.render(&shape, &name, &ops, &comment, Some(o))?,
                    name,
                    condition: o.all.clone(),
                    events: shape.events(),
                    threads: shape.threads.len(),
                    verdicts,
                });
            }
        }
        report.covered_events = n;
    }
    report.complete = report.cut == 0 && report.undecided == 0;
    if !report.complete {
        report.stopped = Some(format!(
            "a limit cut the listings of {} skeleton{} (raise --max-executions or --unroll)",
            report.cut,
            if report.cut == 1 { "" } else { "s" }
        ));
    }
    Ok(report)
}

/// `a`, `b`, ..., `z`, `aa`, ...: the outcome's letter in a test name.
fn letters(mut k: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (k % 26) as u8);
        if k < 26 {
            break;
        }
        k = k / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Whether `m` is an OpenCL model (one with OpenCL host rules, as every
/// built-in OpenCL model has).
pub fn is_opencl(m: &LoadedModel) -> bool {
    m.profile.host.contains(&crate::ir::host::HostApi::OpenCl)
}

/// The OpenCL C statement of a vocabulary instruction (docs/synthesis.md,
/// "Families"): the inverse of the rows of docs/opencl-vulkan-mapping.md.
/// Non-atomic accesses are `*x`; atomics `atomic_load_explicit`,
/// `atomic_store_explicit`, `atomic_exchange_explicit` with the memory
/// order and scope of their tokens; `membar` an `atomic_work_item_fence`
/// on global memory; a control barrier, an execution barrier only in the
/// Vulkan dialect, `barrier(0)` ("flags 0": a pure execution barrier).
/// Instructions OpenCL has no form of (availability and visibility
/// operations, queue-family and invocation scopes, storage classes other
/// than global memory) are an error.
fn opencl_statement(op: &Op, x: &str, v: i64, r: &str) -> Result<String, String> {
    use super::diff::Kind;
    let tokens: Vec<&str> = op.attrs.split('.').filter(|t| !t.is_empty()).collect();
    let (mut order, mut scope, mut atomic) = ("memory_order_relaxed", None, false);
    for t in &tokens {
        match *t {
            "atom" => atomic = true,
            "acq" => order = "memory_order_acquire",
            "rel" => order = "memory_order_release",
            "acq_rel" => order = "memory_order_acq_rel",
            "sg" => scope = Some("memory_scope_sub_group"),
            "wg" => scope = Some("memory_scope_work_group"),
            "dv" => scope = Some("memory_scope_device"),
            "semsc0" => {}
            other => {
                return Err(format!(
                    "the OpenCL dialect has no form of `{}` (its token `{other}`): OpenCL tests \
                     take the families plain, atomic, acqrel, rmw, membar and cbar at scopes \
                     sg, wg and dv with one storage class",
                    op.attrs
                ));
            }
        }
    }
    if op.class != 0 {
        return Err("the OpenCL dialect's tests use one storage class (global memory)".into());
    }
    let scope = scope.unwrap_or("memory_scope_device");
    Ok(match op.kind {
        Kind::Load if !atomic => format!("int {r} = *{x};"),
        Kind::Store if !atomic => format!("*{x} = {v};"),
        Kind::Load => format!("int {r} = atomic_load_explicit({x}, {order}, {scope});"),
        Kind::Store => format!("atomic_store_explicit({x}, {v}, {order}, {scope});"),
        Kind::Rmw => format!("int {r} = atomic_exchange_explicit({x}, {v}, {order}, {scope});"),
        Kind::Membar => {
            format!("atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, {order}, {scope});")
        }
        Kind::Cbar => "barrier(0);".into(),
        Kind::AvDevice | Kind::VisDevice => {
            return Err("the OpenCL dialect has no avdevice or visdevice".into());
        }
    })
}

/// The OpenCL-dialect test of `shape`: the Vulkan rendering's registers,
/// values and placements, each instruction as its OpenCL statement, the
/// commentary a `(* *)` comment, the condition in herd's C syntax.
fn render_opencl(
    shape: &Shape,
    name: &str,
    ops: &[Op],
    comment: &str,
    condition: Option<&Pinned>,
) -> Result<String, String> {
    let mut value = 0;
    let mut locs: Vec<usize> = Vec::new();
    let mut threads = Vec::new();
    for thread in &shape.threads {
        let mut body = Vec::new();
        let mut reg = 0;
        for &(o, l) in thread {
            let op = &ops[o];
            if op.has_location() && !locs.contains(&l) {
                locs.push(l);
            }
            let r = format!("r{reg}");
            let v = value + 1;
            if matches!(op.kind, super::diff::Kind::Load | super::diff::Kind::Rmw) {
                reg += 1;
            }
            if matches!(op.kind, super::diff::Kind::Store | super::diff::Kind::Rmw) {
                value += 1;
            }
            body.push(opencl_statement(op, super::diff::LOCATIONS[l], v, &r)?);
        }
        threads.push(body);
    }
    locs.sort();
    let names: Vec<&str> = locs.iter().map(|l| super::diff::LOCATIONS[*l]).collect();
    let text = super::mapping::render(
        super::mapping::Dialect::OpenCl,
        name,
        &shape.place,
        &threads,
        &names,
    );
    let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let mut out = head.to_string();
    out.push('\n');
    if !comment.is_empty() {
        out.push_str(&format!("(*\n{}\n*)\n", comment.replace("*)", "* )")));
    }
    out.push_str(rest);
    if let Some(c) = condition {
        let clauses: Vec<String> = c
            .all
            .split(" /\\ ")
            .map(|x| {
                let (k, v) = x.split_once(" == ").unwrap_or((x, ""));
                format!("{}={v}", k.trim().trim_start_matches('P'))
            })
            .collect();
        out.push_str(&format!("exists ({})\n", clauses.join(" /\\ ")));
    }
    Ok(out)
}

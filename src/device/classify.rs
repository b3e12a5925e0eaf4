//! What a device showed, judged by the model: each observed final state is
//! allowed (some consistent execution produces it), forbidden (a finding:
//! reported with `vkmm explain --outcome` of that state), unconstrained
//! (the test has a data race: "Applications must ensure that no data races
//! occur during the execution of their application", appendix, Data Race,
//! so the model promises nothing about its values) or undecided (a limit
//! stopped the model's search, or the unrolling bound cut paths, so that
//! "no execution produces it" is not known); and the allowed states never
//! seen.

use super::harness::Params;
use super::{DeviceInfo, Plan};
use crate::analysis::explain::Verdict;
use crate::analysis::litmus::FinalState;
use crate::{Checked, Error, Session};
use std::collections::{BTreeMap, BTreeSet};

/// The model's judgement of an observed state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Judgement {
    Allowed,
    Forbidden,
    /// The test races: the model gives its values no guarantee.
    Unconstrained,
    Undecided,
}

impl Judgement {
    pub fn name(self) -> &'static str {
        match self {
            Judgement::Allowed => "allowed",
            Judgement::Forbidden => "FORBIDDEN",
            Judgement::Unconstrained => "unconstrained (data race)",
            Judgement::Undecided => "undecided",
        }
    }
}

fn ser_state<S: serde::Serializer>(state: &FinalState, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(state.len()))?;
    for (k, v) in state.iter() {
        m.serialize_entry(k, &v)?;
    }
    m.end()
}

/// A final state as JSON (`{"P1:r0": 1, "x": 2}`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct State(#[serde(serialize_with = "ser_state")] pub FinalState);

/// One row of the histogram.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Observation {
    pub values: State,
    /// Instances that ended in this state.
    pub count: u64,
    pub judgement: Judgement,
    /// The state as an `--outcome` condition.
    pub outcome: String,
    /// For a state not in the model's list: `vkmm explain --outcome` of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

/// The model's side of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Classified {
    pub model: String,
    pub histogram: Vec<Observation>,
    /// Allowed final states no instance ended in.
    pub allowed_unseen: Vec<State>,
    /// Observations judged forbidden.
    pub findings: usize,
    /// The test has a data race under the model (for a `.test`: in the
    /// executions where its reads return the values it pins).
    pub racy: bool,
    /// For a `.test`: instances whose reads returned values other than the
    /// pinned ones (executions the test's queries do not speak of).
    pub unpinned_instances: u64,
    /// For a `.test`: some execution outside the pinned values races, so the
    /// model constrains none of its values.
    pub unpinned_racy: bool,
    /// The model's state list is complete (no limit, no cut path).
    pub model_complete: bool,
}

/// A state as a condition in the litmus syntax (`P1:r0 == 1 /\ x == 0`).
pub fn outcome_text(state: &FinalState) -> String {
    let parts: Vec<String> = state.iter().map(|(k, v)| format!("{k} == {v}")).collect();
    if parts.is_empty() {
        "true".into()
    } else {
        parts.join(" /\\ ")
    }
}

/// Judges a histogram of final states under the session's model.
pub fn classify(
    session: &Session,
    file: &str,
    plan: &Plan,
    observed: &BTreeMap<FinalState, u64>,
) -> Result<Classified, Error> {
    let checked = session.check_program(file, &plan.judged)?;
    let Checked::Litmus(o) = checked else {
        return Err(Error::Usage(format!("{file}: not a litmus test")));
    };
    let allowed: BTreeSet<&FinalState> = o.states.iter().map(|(s, _)| s).collect();
    // Races of every execution the device can show, and of the executions
    // the test speaks of: for a `.test`, those where each read returns the
    // value it pins (the queries' `ld ... y = 1`), as `vkmm check` judges it.
    let racy_any = o.race_free == Some(false);
    let racy = match &plan.pins {
        None => racy_any,
        Some(pins) => {
            let mut pinned = plan.judged.clone();
            pinned.condition = Some(crate::ir::Condition {
                quantifier: None,
                expr: crate::ir::CondExpr::True,
                filter: Some(pins.filter.clone()),
                text: String::new(),
            });
            match session.check_program(file, &pinned)? {
                Checked::Litmus(p) => p.race_free == Some(false),
                _ => racy_any,
            }
        }
    };
    let outside_pins = |state: &FinalState| plan.pins.as_ref().is_some_and(|p| !p.hold(state));
    let mut histogram = Vec::new();
    let mut findings = 0;
    for (state, &count) in observed {
        let outcome = outcome_text(state);
        let (judgement, explanation) = if allowed.contains(state) {
            (Judgement::Allowed, None)
        } else {
            match session.explain(&plan.judged, Some(&outcome), None) {
                Ok(x) => {
                    // "No execution produces it" is a claim about every
                    // execution: it holds only when the search saw them
                    // all (no path cut by the unrolling bound, no limit,
                    // the whole program built); otherwise an unseen
                    // execution may produce the state.
                    let complete = x.cut_paths == 0 && !x.truncated && x.front_end_limit.is_none();
                    let j = match x.verdict {
                        Verdict::Allowed => Judgement::Allowed,
                        Verdict::Forbidden | Verdict::Unreachable
                            if racy || (racy_any && outside_pins(state)) =>
                        {
                            Judgement::Unconstrained
                        }
                        Verdict::Forbidden | Verdict::Unreachable if complete => {
                            Judgement::Forbidden
                        }
                        Verdict::Forbidden | Verdict::Unreachable | Verdict::Undecided => {
                            Judgement::Undecided
                        }
                    };
                    (j, Some(crate::report::text::explanation(&x)))
                }
                // A state naming a front end's internal register (the
                // OpenCL compare-exchange's `%t0`) is no `--outcome`
                // condition: the state stays undecided, with the reason.
                Err(Error::Input(e)) => (
                    Judgement::Undecided,
                    Some(format!("cannot be explained as an outcome: {e}")),
                ),
                Err(e) => return Err(e),
            }
        };
        if judgement == Judgement::Forbidden {
            findings += 1;
        }
        histogram.push(Observation {
            values: State(state.clone()),
            count,
            judgement,
            outcome,
            explanation,
        });
    }
    histogram.sort_by(|a, b| b.count.cmp(&a.count).then(a.values.0.cmp(&b.values.0)));
    let allowed_unseen = o
        .states
        .iter()
        .filter(|(s, _)| !observed.contains_key(s))
        .map(|(s, _)| State(s.clone()))
        .collect();
    Ok(Classified {
        model: o.model.clone(),
        histogram,
        allowed_unseen,
        findings,
        racy,
        unpinned_instances: observed
            .iter()
            .filter(|(s, _)| outside_pins(s))
            .map(|(_, n)| n)
            .sum(),
        unpinned_racy: plan.pins.is_some() && racy_any && !racy,
        model_complete: !o.truncated && o.cut_paths == 0,
    })
}

/// Everything `vkmm run` reports about one file (JSON: one element of `runs`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunReport {
    pub file: String,
    pub name: String,
    /// The test's own condition, for reference.
    pub condition: Option<String>,
    pub device: DeviceInfo,
    pub parameters: Params,
    /// Translation choices that strengthen the test.
    pub notes: Vec<String>,
    pub iterations: u64,
    pub instances_per_iteration: usize,
    /// Instances counted in the histogram.
    pub instances: u64,
    /// Instances not counted: a thread stopped at the step cap (a spin loop
    /// whose partner did not run in time).
    pub cut: u64,
    pub seconds: f64,
    #[serde(flatten)]
    pub classified: Classified,
}

/// A file `vkmm run` did not run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Skipped {
    pub file: String,
    pub reason: super::Reason,
    pub detail: String,
}

/// The text report of one run.
pub fn text(r: &RunReport) -> String {
    let c = &r.classified;
    let mut s = format!(
        "Test {} ({}) on {} [{} {}], model {}\n",
        r.name, r.file, r.device.name, r.device.driver_name, r.device.driver_info, c.model
    );
    s += &format!(
        "  preset {:?}: {} iterations x {} instances = {} counted, {} cut by the step cap, {:.2} s\n",
        r.parameters.preset, r.iterations, r.instances_per_iteration, r.instances, r.cut, r.seconds
    );
    if r.cut > 0 {
        s += &format!(
            "  {} instance(s) not counted: a thread ran {} statements in a loop, waiting for a partner that had not run; --step-cap N raises the cap (it helps where the partner runs concurrently; a device that runs workgroups one after another, as lavapipe does, runs it only later)\n",
            r.cut, r.parameters.step_cap
        );
    }
    for n in &r.notes {
        s += &format!("  note: {n}\n");
    }
    if c.racy {
        s += "  the test has a data race: the model constrains no value it reads\n";
    }
    if c.unpinned_instances > 0 {
        s += &format!(
            "  {} instance(s) read values the test does not pin: outside its queries{}\n",
            c.unpinned_instances,
            if c.unpinned_racy {
                ", and racy there (the model constrains none of their values)"
            } else {
                ""
            }
        );
    }
    if !c.model_complete {
        s +=
            "  the model's search was bounded: states outside its list were explained one by one\n";
    }
    let width = c
        .histogram
        .iter()
        .map(|o| o.outcome.len())
        .max()
        .unwrap_or(0);
    for o in &c.histogram {
        s += &format!(
            "  {:<width$}  {:>10}  {}\n",
            o.outcome,
            o.count,
            o.judgement.name()
        );
    }
    if !c.allowed_unseen.is_empty() {
        s += "  allowed, never seen:\n";
        for u in &c.allowed_unseen {
            s += &format!("    {}\n", outcome_text(&u.0));
        }
    }
    if c.findings == 0 {
        s += "  no forbidden outcome observed\n";
    } else {
        s += &format!("  {} FORBIDDEN outcome(s) observed:\n", c.findings);
        for o in c
            .histogram
            .iter()
            .filter(|o| o.judgement == Judgement::Forbidden)
        {
            s += &format!("  finding: {} ({} instances)\n", o.outcome, o.count);
            if let Some(x) = &o.explanation {
                for line in x.lines() {
                    s += &format!("    {line}\n");
                }
            }
        }
    }
    s
}

/// Runs one loaded program on a device and judges what it shows: the
/// session's model, or the one the device's features call for.
#[cfg(all(feature = "device", not(target_arch = "wasm32")))]
pub fn run_program(
    session: &Session,
    gpu: &super::vk::Gpu,
    file: &str,
    program: &crate::ir::Program,
    params: &Params,
    breakage: Option<super::spirv::Breakage>,
    model_given: bool,
) -> Result<Result<RunReport, Skipped>, RunError> {
    let skipped = |u: super::Unsupported| Skipped {
        file: file.to_string(),
        reason: u.reason,
        detail: u.detail,
    };
    let plan = match super::plan(program) {
        Ok(p) => p,
        Err(u) => return Ok(Err(skipped(u))),
    };
    let observed = match gpu.run(&plan, params, breakage)? {
        Ok(o) => o,
        Err(u) => return Ok(Err(skipped(u))),
    };
    let owned;
    // An OpenCL test is judged on the original under its dialect's model
    // (the source semantics); a Vulkan test under the model the device's
    // features call for.
    let session = if model_given || plan.judged.dialect != crate::ir::Dialect::Vulkan {
        session
    } else {
        owned = session.with_decide(None).model(gpu.info.features.model());
        &owned
    };
    let classified = classify(session, file, &plan, &observed.histogram)?;
    Ok(Ok(RunReport {
        file: file.to_string(),
        name: plan.program.name.clone(),
        condition: plan.condition.clone(),
        device: gpu.info.clone(),
        parameters: params.clone(),
        notes: plan.notes.clone(),
        iterations: observed.iterations,
        instances_per_iteration: observed.instances_per_iteration,
        instances: observed.histogram.values().sum(),
        cut: observed.cut,
        seconds: observed.seconds,
        classified,
    }))
}

/// Why a run failed (not a test vkmm cannot express: that is [`Skipped`]).
#[cfg(all(feature = "device", not(target_arch = "wasm32")))]
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Device(#[from] super::vk::DeviceError),
    #[error(transparent)]
    Model(#[from] Error),
}

/// What `vkmm run` did with a batch of files (JSON: the `run` document).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Batch {
    pub device: DeviceInfo,
    pub parameters: Params,
    pub runs: Vec<RunReport>,
    pub skipped: Vec<Skipped>,
    /// Files that could not be read or checked (file:line:col and what was expected).
    pub errors: Vec<String>,
}

impl Batch {
    /// Observations judged forbidden, over all runs.
    pub fn findings(&self) -> usize {
        self.runs.iter().map(|r| r.classified.findings).sum()
    }

    /// 1 when a forbidden outcome was observed, else 2 when a file could
    /// not be read, else 0 (skipped files are reported, not failures).
    pub fn exit_code(&self) -> i32 {
        if self.findings() > 0 {
            1
        } else if !self.errors.is_empty() {
            2
        } else {
            0
        }
    }

    /// Skipped files counted by reason.
    pub fn skipped_by_reason(&self) -> BTreeMap<super::Reason, usize> {
        let mut m = BTreeMap::new();
        for s in &self.skipped {
            *m.entry(s.reason).or_insert(0) += 1;
        }
        m
    }
}

/// The text report of a batch.
pub fn batch_text(b: &Batch) -> String {
    let mut s = String::new();
    for r in &b.runs {
        s += &text(r);
    }
    for k in &b.skipped {
        s += &format!("{}: skipped, {}: {}\n", k.file, k.reason.name(), k.detail);
    }
    s += &format!(
        "{} ran, {} skipped, {} errors; {} forbidden observation(s)\n",
        b.runs.len(),
        b.skipped.len(),
        b.errors.len(),
        b.findings()
    );
    for (reason, n) in b.skipped_by_reason() {
        s += &format!("  skipped: {n} {}\n", reason.name());
    }
    s
}

/// Runs files on a device, one after another.
#[cfg(all(feature = "device", not(target_arch = "wasm32")))]
pub fn run_files(
    session: &Session,
    gpu: &super::vk::Gpu,
    files: &[std::path::PathBuf],
    params: &Params,
    model_given: bool,
    spirv_dir: Option<&std::path::Path>,
) -> Result<Batch, RunError> {
    let mut batch = Batch {
        device: gpu.info.clone(),
        parameters: params.clone(),
        runs: Vec::new(),
        skipped: Vec::new(),
        errors: Vec::new(),
    };
    for f in files {
        let name = f.display().to_string();
        let program = match session.load_file(f) {
            Ok(p) => p,
            Err(e) => {
                batch.errors.push(e.to_string());
                continue;
            }
        };
        if let Some(dir) = spirv_dir
            && let Ok(plan) = super::plan(&program)
        {
            let words = super::spirv::shader(
                &plan,
                &super::spirv::ShaderOptions {
                    workgroup_size: params.workgroup_size,
                    step_cap: params.step_cap,
                    breakage: None,
                },
            );
            let stem = f.file_stem().map_or("test".into(), |s| s.to_string_lossy());
            let out = dir.join(format!("{stem}.spv"));
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            if let Err(e) = std::fs::write(&out, bytes) {
                batch
                    .errors
                    .push(format!("{}: cannot write: {e}", out.display()));
            }
        }
        match run_program(session, gpu, &name, &program, params, None, model_given) {
            Ok(Ok(r)) => batch.runs.push(r),
            Ok(Err(s)) => batch.skipped.push(s),
            Err(RunError::Model(e)) => batch.errors.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    Ok(batch)
}

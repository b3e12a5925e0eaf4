//! vkmm in the browser: the playground's WebAssembly module.
//!
//! The plain-Rust API here ([`check`], [`explain`], [`models`]) takes a
//! test as text and options as JSON, runs the facade ([`vkmm::Session`])
//! and answers with one JSON value: `{"ok": true, ...}` or
//! `{"ok": false, "error": {...}}` with the file, line and column of a bad
//! input. The page's Web Worker calls it through the `wasm-bindgen`
//! bindings in [`bindings`] (they compile everywhere, but work only in the
//! browser); natively the same functions are tested by
//! `cargo test -p vkmm-web`. docs/playground.md describes the page.

use serde::Deserialize;
use serde_json::{Value, json};
use vkmm::ProgressCallback;
use vkmm::analysis::explain::Verdict;
use vkmm::analysis::litmus::LitmusOutcome;
use vkmm::frontend::LocalMemory;
use vkmm::{Checked, Error, Session};

pub mod bindings;

/// The name a pasted cat model runs under (in reports and errors).
pub const PASTED_MODEL: &str = "pasted.cat";

/// What the page lets one choose; every field may be left out (the CLI's
/// defaults then hold).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// A built-in model's name; `None` or `""`: the dialect's default.
    pub model: Option<String>,
    /// A pasted cat model: used instead of `model` when given.
    pub cat: Option<String>,
    pub unroll: Option<usize>,
    pub max_executions: Option<u64>,
    pub max_paths: Option<usize>,
    pub max_writes: Option<usize>,
    /// Wall-clock limit per search, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `false`: unroll side-effect-free spin loops too.
    pub spin_reduction: Option<bool>,
    /// `per-workgroup` (default) or `shared` (OpenCL `local` memory).
    pub local_memory: Option<String>,
    /// A shader's dispatch, as the command line's options spell it:
    /// `--local-size X[,Y[,Z]]`.
    pub local_size: Option<String>,
    /// `--workgroups X[,Y[,Z]]`.
    pub workgroups: Option<String>,
    /// `--subgroup-size N`.
    pub subgroup_size: Option<u32>,
    /// `-D NAME[=VALUE]`, one per entry.
    pub defines: Vec<String>,
    /// `--set NAME=VALUE`, one per entry.
    pub set: Vec<String>,
    /// `--entry NAME`.
    pub entry: Option<String>,
    /// `--input TARGET=VALUES`, one per entry.
    pub inputs: Vec<String>,
    /// `--length TARGET=N` (a runtime array's length), one per entry.
    pub lengths: Vec<String>,
    /// `--extent TARGET=WxH[xD]` (an image's size), one per entry.
    pub extents: Vec<String>,
}

impl Options {
    /// Reads options from JSON (`""` reads as no options).
    pub fn from_json(text: &str) -> Result<Options, String> {
        if text.trim().is_empty() {
            return Ok(Options::default());
        }
        serde_json::from_str(text).map_err(|e| format!("options: {e}"))
    }

    /// The session these options describe, reporting progress to `progress`.
    pub fn session(&self, progress: Option<ProgressCallback>) -> Result<Session, Error> {
        let mut s = Session::new();
        match (&self.cat, &self.model) {
            (Some(cat), _) if !cat.trim().is_empty() => s = s.model_text(PASTED_MODEL, cat)?,
            (_, Some(m)) if !m.is_empty() => s = s.model(m.clone()),
            _ => {}
        }
        if let Some(n) = self.unroll {
            s = s.unroll(n);
        }
        if let Some(n) = self.max_executions {
            s = s.max_executions(n);
        }
        if let Some(n) = self.max_paths {
            s = s.max_paths(n);
        }
        if let Some(n) = self.max_writes {
            s = s.max_writes(n);
        }
        if let Some(ms) = self.timeout_ms {
            s = s.timeout(Some(std::time::Duration::from_millis(ms)));
        }
        if let Some(on) = self.spin_reduction {
            s = s.reduction(vkmm::Reduction::SpinReduction, on);
        }
        match self.local_memory.as_deref() {
            None | Some("") | Some("per-workgroup") => {}
            Some("shared") => s = s.local_memory(LocalMemory::Shared),
            Some(other) => {
                return Err(Error::Usage(format!(
                    "local memory `{other}`: expected `per-workgroup` or `shared`"
                )));
            }
        }
        let shader = self.shader_options().map_err(Error::Usage)?;
        if shader != vkmm::frontend::ShaderOptions::default() {
            s = s.shader(shader);
        }
        if let Some(f) = progress {
            s = s.on_progress(f);
        }
        // No process-wide allocator counts memory in the browser: the tab's
        // own limit applies.
        Ok(s.max_memory(None))
    }
}

impl Options {
    /// The shader dispatch these options give, read as the command line
    /// reads `--local-size`, `--workgroups`, `--subgroup-size`, `-D`,
    /// `--set`, `--entry`, `--input`, `--length` and `--extent` (empty
    /// fields keep the shader's own choice).
    pub fn shader_options(&self) -> Result<vkmm::frontend::ShaderOptions, String> {
        use vkmm::frontend::ShaderOptions;
        let mut o = ShaderOptions::default();
        fn given(t: &Option<String>) -> Option<&str> {
            t.as_deref().map(str::trim).filter(|t| !t.is_empty())
        }
        if let Some(t) = given(&self.local_size) {
            o.local_size =
                Some(ShaderOptions::parse_dims(t).map_err(|e| format!("local size: {e}"))?);
        }
        if let Some(t) = given(&self.workgroups) {
            o.workgroups =
                Some(ShaderOptions::parse_dims(t).map_err(|e| format!("workgroups: {e}"))?);
        }
        if let Some(n) = self.subgroup_size {
            if n == 0 {
                return Err(
                    "subgroup size: expected a whole number of at least 1, found `0`".into(),
                );
            }
            o.subgroup_size = Some(n);
        }
        for d in self
            .defines
            .iter()
            .map(|d| d.trim())
            .filter(|d| !d.is_empty())
        {
            o.defines
                .push(ShaderOptions::parse_define(d).map_err(|e| format!("define: {e}"))?);
        }
        for a in self.set.iter().map(|a| a.trim()).filter(|a| !a.is_empty()) {
            o.set
                .push(ShaderOptions::parse_set(a).map_err(|e| format!("set: {e}"))?);
        }
        o.entry = given(&self.entry).map(str::to_string);
        use vkmm::frontend::inputs::Input;
        for i in self
            .inputs
            .iter()
            .map(|i| i.trim())
            .filter(|i| !i.is_empty())
        {
            o.inputs
                .push(Input::parse(i).map_err(|e| format!("input: {e}"))?);
        }
        for l in self
            .lengths
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
        {
            o.inputs
                .push(Input::parse_length(l).map_err(|e| format!("length: {e}"))?);
        }
        for x in self
            .extents
            .iter()
            .map(|x| x.trim())
            .filter(|x| !x.is_empty())
        {
            o.inputs
                .push(Input::parse_extent(x).map_err(|e| format!("extent: {e}"))?);
        }
        Ok(o)
    }
}

/// The built-in models: `[{"name", "description"}]`.
pub fn models() -> Value {
    vkmm::model::BUILTIN
        .iter()
        .map(|(name, _, description)| json!({"name": name, "description": description}))
        .collect()
}

/// An error as the page shows it: the message, and where it is when the
/// input (`"source": "test"`) or the pasted model (`"model"`) is at fault.
pub fn error(e: &Error) -> Value {
    let (source, line, column) = match e {
        Error::Input(f) => ("test", f.line, f.column),
        Error::Model(c) if c.file == PASTED_MODEL => ("model", c.line, c.col),
        Error::Model(_) => ("model", 0, 0),
        _ => ("", 0, 0),
    };
    let mut v = json!({"message": e.to_string()});
    if line > 0 {
        v["source"] = json!(source);
        v["line"] = json!(line);
        v["column"] = json!(column);
    }
    json!({"ok": false, "error": v})
}

fn failed(message: String) -> Value {
    json!({"ok": false, "error": {"message": message}})
}

/// The condition that picks one final state, in the litmus condition
/// syntax (`P1:r0 == 1 /\ x == 2`): what the page asks [`explain`] about.
pub fn state_condition(values: &serde_json::Map<String, Value>) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} == {v}"))
        .collect::<Vec<_>>()
        .join(" /\\ ")
}

/// Why a litmus answer is bounded, in words (`None`: complete).
fn litmus_bound(o: &LitmusOutcome) -> Option<String> {
    let mut why = Vec::new();
    if o.truncated && !o.stopped_early {
        why.push(format!(
            "the search stopped {} after {} candidate executions (raise {})",
            vkmm::report::text::stopped_at(o.stopped_by),
            o.executions,
            o.stopped_by.map_or("the limit", |k| k.option())
        ));
    }
    if o.cut_paths > 0 {
        why.push(format!(
            "BOUND HIT: {} thread paths needed more than unroll {} allows; answers cover only executions within the bound",
            o.cut_paths, o.unroll
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Checks a test given as text (`name`'s extension picks the dialect, as
/// [`Session::load_text`] does). The answer carries the text report, the
/// typed result (`result`, as `vkmm check --format json`), whether it is
/// complete and, when not, why (`bounded`); for a litmus test also the
/// outcome list with each state's condition for [`explain`].
pub fn check(
    name: &str,
    text: &str,
    options: &Options,
    progress: Option<ProgressCallback>,
) -> Value {
    let session = match options.session(progress) {
        Ok(s) => s,
        Err(e) => return error(&e),
    };
    let checked = match session.check_text(name, text) {
        Ok(c) => c,
        Err(e) => return error(&e),
    };
    let result = match serde_json::to_value(&checked) {
        Ok(v) => v,
        Err(e) => return failed(format!("cannot serialise the result: {e}")),
    };
    let mut answer = json!({
        "ok": true,
        "kind": result["kind"],
        "complete": checked.complete(),
        "report": vkmm::report::text::checked(&checked),
        "warnings": checked.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        "result": result,
    });
    match &checked {
        Checked::Litmus(o) => {
            answer["bounded"] = json!(litmus_bound(o));
            let outcomes: Vec<Value> = answer["result"]["states"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| {
                    let values = s["values"].as_object().cloned().unwrap_or_default();
                    json!({
                        "condition": state_condition(&values),
                        "values": values,
                        "executions": s["executions"],
                    })
                })
                .collect();
            answer["outcomes"] = json!(outcomes);
        }
        c if !c.complete() => {
            answer["bounded"] = json!(
                "some answers are undecided: a limit stopped the search before they were known"
            );
        }
        _ => answer["bounded"] = Value::Null,
    }
    answer
}

/// Explains an outcome of a litmus test (`None`: its own condition): the
/// verdict, the text explanation and, when there is an execution to draw
/// (a witness, or a rejected execution with its cycle), its DOT text;
/// otherwise `dot_error` says why there is none.
pub fn explain(name: &str, text: &str, options: &Options, outcome: Option<&str>) -> Value {
    let run = || -> Result<Value, Error> {
        let session = options.session(None)?;
        let program = session.load_text(name, text)?;
        let x = session.explain(&program, outcome, None)?;
        let (dot, dot_error) = match vkmm::report::dot::explanation(&x, &[]) {
            Ok(d) => (Some(d), None),
            Err(e) => (None, Some(e)),
        };
        // For the two-pass layout `vkmm show` uses (threads kept in litmus
        // order): the picture without its relation edges, and those edges.
        let (layout, edges) = match &dot {
            Some(d) => {
                let (l, e) = vkmm::report::dot::split_relations(d);
                (Some(l), e)
            }
            None => (None, Vec::new()),
        };
        // The same layout with nested clusters in written order, and each
        // drawn event's thread: Graphviz builds differ in how they order
        // nested sibling clusters; the page keeps the layout whose threads
        // read left to right.
        let layout_written = vkmm::report::dot::explanation_in(&x, &[], true)
            .ok()
            .map(|d| vkmm::report::dot::split_relations(&d).0);
        let drawn = match (&x.witness, &x.rejected) {
            (Some(w), _) => Some(w),
            (None, Some((w, _))) => Some(w),
            _ => None,
        };
        let event_threads: Vec<(usize, usize)> = drawn
            .map(|w| w.graph_events.iter().map(|e| (e.id, e.thread)).collect())
            .unwrap_or_default();
        Ok(json!({
            "ok": true,
            "verdict": format!("{:?}", x.verdict),
            // Complete only when every part printed is decided, as the
            // command line's exit status says.
            "complete": x.verdict != Verdict::Undecided && x.undecided.is_empty(),
            "undecided": x.undecided,
            "outcome": x.outcome,
            "model": x.model,
            "report": vkmm::report::text::explanation(&x),
            "dot": dot,
            "layout": layout,
            "layout_written": layout_written,
            "event_threads": event_threads,
            "edges": edges,
            "dot_error": dot_error,
        }))
    };
    run().unwrap_or_else(|e| error(&e))
}

/// What the page's "Compare two models" panel asks: two built-in
/// models and the bound of [`Session::diff`]'s search (`vkmm diff`'s
/// options; the page keeps the bound small: [`DIFF_MAX`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiffRequest {
    /// Two built-in models' names.
    pub models: Vec<String>,
    pub threads: usize,
    /// Events (instructions) per thread.
    pub events: usize,
    pub locations: usize,
    /// Instruction families, comma-separated (`vkmm diff --vocabulary`).
    pub vocabulary: String,
    /// Scopes, comma-separated (`--scopes`).
    pub scopes: String,
    /// Storage classes (`--classes`).
    pub classes: usize,
    /// Distinguishing tests of the smallest size to list (`--max-tests`).
    pub max_tests: usize,
}

impl Default for DiffRequest {
    /// `vkmm diff`'s defaults.
    fn default() -> Self {
        DiffRequest {
            models: Vec::new(),
            threads: 2,
            events: 2,
            locations: 2,
            vocabulary: "plain,atomic,acqrel,avvis".into(),
            scopes: "wg,dv".into(),
            classes: 1,
            max_tests: 1,
        }
    }
}

/// The largest bound the page searches (threads, events per thread,
/// locations, tests listed): searches past it take minutes, which the
/// command line's `vkmm diff` is for.
pub const DIFF_MAX: (usize, usize, usize, usize) = (3, 3, 3, 8);

/// The smallest tests on which two models disagree, up to the request's
/// bound ([`Session::diff`]): each test as a litmus file annotated with
/// both models' verdicts and explanations (as `vkmm diff --out` writes
/// it), and the search's summary. `complete` is false when a limit (the
/// timeout, the execution limit) stopped the search before the bound:
/// then "no difference" is not claimed (`bounded` says how far it got).
pub fn diff(request: &DiffRequest, options: &Options) -> Value {
    let [a, b] = request.models.as_slice() else {
        return failed(format!(
            "compare needs exactly two models (got {})",
            request.models.len()
        ));
    };
    let (threads, events, locations, tests) = DIFF_MAX;
    for (what, n, max) in [
        ("threads", request.threads, threads),
        ("events per thread", request.events, events),
        ("locations", request.locations, locations),
        ("tests", request.max_tests, tests),
    ] {
        if n == 0 || n > max {
            return failed(format!(
                "{what}: expected 1 to {max} in the page (found {n}); larger bounds: `vkmm diff` on the command line"
            ));
        }
    }
    let vocabulary = match vkmm::analysis::diff::Vocabulary::parse(
        &request.vocabulary,
        &request.scopes,
        request.classes,
    ) {
        Ok(v) => v,
        Err(e) => return failed(e),
    };
    let session = match options.session(None) {
        Ok(s) => s,
        Err(e) => return error(&e),
    };
    let bounds = vkmm::analysis::diff::DiffBounds {
        threads: request.threads,
        events: request.events,
        locations: request.locations,
        vocabulary,
        max_tests: request.max_tests,
        deadline: None,
        engine: Default::default(),
    };
    let report = match session.diff(a, b, &bounds) {
        Ok(r) => r,
        Err(e) => return error(&e),
    };
    let names = [a.clone(), b.clone()];
    let tests: Vec<Value> = report
        .witnesses
        .iter()
        .map(|w| {
            let reasons = session.diff_reasons(&names, w).map(|r| match r {
                Ok(x) => vkmm::report::text::explanation(&x),
                Err(e) => format!("(no explanation: {e})"),
            });
            json!({
                "name": w.name,
                "text": w.text,
                "annotated": vkmm::analysis::diff::annotated(w, &names, &reasons),
                "condition": w.condition,
                "difference": w.difference,
                "verdicts": w.verdicts,
                "events": w.events,
                "threads": w.threads,
            })
        })
        .collect();
    let complete = report.complete || !report.witnesses.is_empty();
    json!({
        "ok": true,
        "models": names,
        "summary": report.summary(),
        "complete": complete,
        "bounded": (!complete).then(|| report.stopped.clone().unwrap_or_else(|| "a limit stopped the search before the bound".into())),
        "tests": tests,
        "notes": report.notes,
        "skeletons": report.skeletons,
        "candidates": report.candidates,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    const MP: &str = include_str!("../../examples/mp.litmus");
    const MP_TEST: &str = include_str!("../../examples/mp.test");

    /// A test with thousands of candidate executions.
    const BUSY: &str = "VULKAN busy\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 3 | st.atom.dv.sc0 x, 5 ;\n st.atom.dv.sc0 x, 2 | st.atom.dv.sc0 x, 4 | st.atom.dv.sc0 x, 6 ;\n ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x ;\nexists (P0:r0 == 6)\n";

    fn opts(json: &str) -> Options {
        Options::from_json(json).unwrap()
    }

    #[test]
    fn lists_the_builtin_models() {
        let m = models();
        let names: Vec<&str> = m
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"vulkan") && names.contains(&"opencl"));
        assert_eq!(names.len(), vkmm::model::BUILTIN.len());
    }

    #[test]
    fn checks_a_litmus_test_with_its_outcome_list() {
        let a = check("mp.litmus", MP, &Options::default(), None);
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a["kind"], "litmus");
        assert_eq!(a["complete"], true);
        assert!(a["bounded"].is_null());
        let outcomes = a["outcomes"].as_array().unwrap();
        assert!(!outcomes.is_empty());
        // every state's condition names every value it shows
        for o in outcomes {
            let cond = o["condition"].as_str().unwrap();
            for (k, v) in o["values"].as_object().unwrap() {
                assert!(cond.contains(&format!("{k} == {v}")), "{cond}");
            }
        }
        assert!(a["report"].as_str().unwrap().contains("mp"));
    }

    /// The page's shader options are the command line's: consts.wgsl
    /// writes out[0] = N * 1000 + K (N = 4, K = 9 as written: 4009);
    /// `--set N=2u`, `--set K=3` make it 2003 (by hand), and a local size
    /// of 1 drops invocation 1, the writer (out[0] stays 0).
    #[test]
    fn checks_a_wgsl_shader_with_dispatch_options() {
        let source = include_str!("../../tests/fixtures/wgsl/consts.wgsl");
        let with = |cond: &str| format!("{source}// @Output: forall ({cond})\n");
        let holds = |o: &Options, cond: &str| {
            let a = check("consts.wgsl", &with(cond), o, None);
            assert_eq!(a["ok"], true, "{a}");
            a["result"]["condition_holds"].clone()
        };
        assert_eq!(holds(&Options::default(), "%out[0][0] == 4009"), true);
        let set = opts(r#"{"set": ["N=2u", " K=3 "]}"#);
        assert_eq!(holds(&set, "%out[0][0] == 2003"), true);
        assert_eq!(holds(&set, "%out[0][0] == 4009"), false);
        let one = opts(r#"{"local_size": "1", "workgroups": "1,1,1", "subgroup_size": 1}"#);
        assert_eq!(holds(&one, "%out[0][0] == 0"), true);
        // examples/shaders/counter.wgsl as its comment says to check it:
        // two invocations count themselves, the barrier orders the count
        // before invocation 0 publishes it: race-free, out[0] == 2.
        let counter = include_str!("../../examples/shaders/counter.wgsl");
        let counter = format!("{counter}// @Output: forall (%out[0][0] == 2)\n");
        let two = opts(r#"{"local_size": "2", "lengths": ["out=1"]}"#);
        let a = check("counter.wgsl", &counter, &two, None);
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a["result"]["race_free"], true, "{a}");
        assert_eq!(a["result"]["condition_holds"], true, "{a}");
        // Bad options are errors naming the option.
        for (json, what) in [
            (r#"{"local_size": "0"}"#, "local size"),
            (r#"{"workgroups": "a,b"}"#, "workgroups"),
            (r#"{"subgroup_size": 0}"#, "subgroup size"),
            (r#"{"defines": ["1X"]}"#, "define"),
            (r#"{"set": ["N"]}"#, "set"),
            (r#"{"lengths": ["out"]}"#, "length"),
        ] {
            let a = check("consts.wgsl", source, &opts(json), None);
            assert_eq!(a["ok"], false, "{json}: {a}");
            let m = a["error"]["message"].as_str().unwrap();
            assert!(m.contains(what), "{json}: {m}");
        }
    }

    /// The extent field is `--extent`: size.wgsl stores lid.x + 3 at texel
    /// (lid.x, 1) for two invocations and writes the image's size query
    /// into o.w, o.h. At 2x3 both stores land and the query says 2, 3 (by
    /// hand); without an extent the image is 1x1, no store lands and the
    /// query says 1, 1.
    #[test]
    fn checks_a_wgsl_shader_with_an_image_extent() {
        let source = include_str!("../../tests/fixtures/source-names/size.wgsl");
        let states = |o: &Options| {
            let a = check("size.wgsl", source, o, None);
            assert_eq!(a["ok"], true, "{a}");
            a["outcomes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["values"].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            states(&opts(r#"{"extents": [" img=2x3 "]}"#)),
            [json!({"img[0][1]": 3, "img[1][1]": 4, "o.w": 2, "o.h": 3})]
        );
        assert_eq!(states(&Options::default()), [json!({"o.w": 1, "o.h": 1})]);
        // Bad extents are errors naming the field or the option, and what
        // was expected.
        for (json, says) in [
            (
                r#"{"extents": ["img=0x2"]}"#,
                "extent: expected an extent WxH[xD...]: 1 to 4 sizes from 1 to 65536, one per image coordinate, found a size of 0",
            ),
            (r#"{"extents": ["img"]}"#, "extent: expected TARGET=WxH[xD]"),
            (
                r#"{"extents": ["img=2x3x4"]}"#,
                "input `img` (`--extent img=2x3x4`): the image has 2 coordinates",
            ),
        ] {
            let a = check("size.wgsl", source, &opts(json), None);
            assert_eq!(a["ok"], false, "{json}: {a}");
            let m = a["error"]["message"].as_str().unwrap();
            assert!(m.contains(says), "{json}: {m}");
        }
    }

    /// The outcome list carries each race's states: mp reading the
    /// payload whatever the flag races only where the flag read 0.
    #[test]
    fn races_name_their_states() {
        let text =
            include_str!("../../tests/fixtures/golden/inputs/mp-payload-unconditional.litmus");
        let a = check("mp.litmus", text, &Options::default(), None);
        let races = a["result"]["races"].as_array().unwrap();
        assert_eq!(races.len(), 1, "{a}");
        let states = races[0]["states"].as_array().unwrap();
        assert_eq!(states.len(), 2, "{a}");
        assert!(states.iter().all(|s| s["P1:r0"] == 0), "{a}");
    }

    #[test]
    fn checks_an_alloy_test_by_its_name() {
        let a = check("mp.test", MP_TEST, &Options::default(), None);
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a["kind"], "queries");
        assert_eq!(a["complete"], true);
    }

    #[test]
    fn a_bad_test_is_a_located_error() {
        let bad = MP.replacen("ld.atom", "ld.bogus", 1);
        let a = check("mp.litmus", &bad, &Options::default(), None);
        assert_eq!(a["ok"], false);
        assert_eq!(a["error"]["source"], "test");
        let line = a["error"]["line"].as_u64().unwrap() as usize;
        assert!(
            bad.lines().nth(line - 1).unwrap().contains("ld.bogus"),
            "{a}"
        );
        assert!(a["error"]["column"].as_u64().unwrap() > 0);
    }

    #[test]
    fn a_bad_pasted_model_is_a_located_error() {
        let o = Options {
            cat: Some("\"mine\"\nlet x =\n".into()),
            ..Options::default()
        };
        let a = check("mp.litmus", MP, &o, None);
        assert_eq!(a["ok"], false, "{a}");
        assert_eq!(a["error"]["source"], "model");
        assert!(a["error"]["line"].as_u64().unwrap() >= 2, "{a}");
        assert!(
            a["error"]["message"]
                .as_str()
                .unwrap()
                .contains(PASTED_MODEL)
        );
    }

    #[test]
    fn a_pasted_model_is_the_one_that_runs() {
        // The built-in model pasted under another name gives the same answer.
        let cat = vkmm::model::embedded("vulkan.cat").unwrap();
        let pasted = check(
            "mp.litmus",
            MP,
            &Options {
                cat: Some(cat.into()),
                ..Options::default()
            },
            None,
        );
        assert_eq!(pasted["ok"], true, "{pasted}");
        assert_eq!(pasted["result"]["model"], PASTED_MODEL);
        let builtin = check("mp.litmus", MP, &Options::default(), None);
        assert_eq!(pasted["outcomes"], builtin["outcomes"]);
        // A model with no axioms allows the stale read vulkan forbids.
        let weak = check(
            "mp.litmus",
            MP,
            &Options {
                cat: Some("\"anything goes\"\nlet dr = 0\n".into()),
                ..Options::default()
            },
            None,
        );
        assert_eq!(weak["ok"], true, "{weak}");
        assert!(
            weak["outcomes"].as_array().unwrap().len()
                > builtin["outcomes"].as_array().unwrap().len(),
            "{weak}"
        );
    }

    #[test]
    fn a_bound_is_said() {
        let a = check("mp.litmus", MP, &opts(r#"{"max_executions": 1}"#), None);
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a["complete"], false);
        assert!(
            a["bounded"].as_str().unwrap().contains("max-executions"),
            "{a}"
        );
    }

    #[test]
    fn options_are_checked() {
        assert!(Options::from_json(r#"{"unroll": 3}"#).is_ok());
        assert!(Options::from_json("").is_ok());
        let e = Options::from_json(r#"{"unrol": 3}"#).unwrap_err();
        assert!(e.contains("unrol"), "{e}");
        let a = check("mp.litmus", MP, &opts(r#"{"model": "nope"}"#), None);
        assert_eq!(a["ok"], false);
        assert!(
            a["error"]["message"].as_str().unwrap().contains("nope"),
            "{a}"
        );
        let a = check("mp.litmus", MP, &opts(r#"{"local_memory": "x"}"#), None);
        assert_eq!(a["ok"], false);
    }

    /// An explanation whose outcome is settled while another printed part
    /// is not (the races of sb-relaxed, with the search stopped at 3
    /// executions) is not complete, and names that part; the whole search
    /// decides every part.
    #[test]
    fn an_explanation_with_an_undecided_part_is_not_complete() {
        let sb = include_str!("../../docs/examples/sb-relaxed.litmus");
        let x = explain("sb.litmus", sb, &opts(r#"{"max_executions": 3}"#), None);
        assert_eq!(x["ok"], true, "{x}");
        assert_ne!(x["verdict"], "Undecided", "{x}");
        assert_eq!(x["complete"], false, "{x}");
        let parts = x["undecided"].as_array().unwrap();
        assert!(
            parts
                .iter()
                .any(|p| p.as_str().unwrap().starts_with("the test's races")),
            "{x}"
        );
        let x = explain("sb.litmus", sb, &Options::default(), None);
        assert_eq!(x["complete"], true, "{x}");
        assert_eq!(x["undecided"].as_array().map(Vec::len), Some(0), "{x}");
    }

    #[test]
    fn explains_a_chosen_outcome_with_its_picture() {
        let a = check("mp.litmus", MP, &Options::default(), None);
        let first = a["outcomes"][0]["condition"].as_str().unwrap().to_string();
        let x = explain("mp.litmus", MP, &Options::default(), Some(&first));
        assert_eq!(x["ok"], true, "{x}");
        assert_eq!(x["verdict"], "Allowed");
        let dot = x["dot"].as_str().unwrap();
        assert!(dot.starts_with("digraph"));
        // The two-pass pieces hold every line of the picture.
        let layout = x["layout"].as_str().unwrap();
        let edges = x["edges"].as_array().unwrap();
        assert!(!edges.is_empty());
        assert_eq!(layout.lines().count() + edges.len(), dot.lines().count());
        // The stale read: forbidden, drawn with the cycle that rejects it.
        let x = explain("mp.litmus", MP, &Options::default(), Some("P1:r1 == 0"));
        assert_eq!(x["verdict"], "Forbidden", "{x}");
        assert!(x["dot"].as_str().unwrap().contains("penwidth=3"));
        assert!(x["report"].as_str().unwrap().contains("FORBIDDEN"));
        // A condition that names nothing in the test: located.
        let x = explain("mp.litmus", MP, &Options::default(), Some("P9:r1 == 0"));
        assert_eq!(x["ok"], false, "{x}");
    }

    #[test]
    fn every_listed_outcome_of_the_examples_explains_as_allowed() {
        // The page explains a clicked outcome by its condition: for every
        // litmus example, each listed final state must parse back and be
        // allowed (a consistent execution produced it).
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("litmus") {
                continue;
            }
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let a = check(&name, &text, &Options::default(), None);
            assert_eq!(a["ok"], true, "{name}: {a}");
            for o in a["outcomes"].as_array().unwrap() {
                let cond = o["condition"].as_str().unwrap();
                let x = explain(&name, &text, &Options::default(), Some(cond));
                assert_eq!(x["verdict"], "Allowed", "{name}: {cond}: {x}");
                assert!(x["dot"].is_string(), "{name}: {cond}: {x}");
                seen += 1;
            }
        }
        assert!(seen >= 5, "{seen} outcomes explained");
    }

    #[test]
    fn progress_is_reported() {
        let calls = Arc::new(AtomicU64::new(0));
        let seen = calls.clone();
        let f: ProgressCallback = Arc::new(move |_| {
            seen.fetch_add(1, Ordering::Relaxed);
        });
        // Three threads writing one location twice and reading it twice:
        // thousands of coherence orders, enough for progress calls.
        let a = check("busy.litmus", BUSY, &Options::default(), Some(f));
        assert_eq!(a["ok"], true, "{a}");
        let evaluations = a["result"]["executions"].as_u64().unwrap()
            + a["result"]["partial_evaluations"].as_u64().unwrap();
        assert!(
            evaluations > vkmm::testing::engine::driver::PROGRESS_EVERY,
            "{a}"
        );
        assert!(calls.load(Ordering::Relaxed) > 0, "{a}");
    }

    fn diff_request(json: &str) -> DiffRequest {
        serde_json::from_str(json).unwrap()
    }

    /// vulkan and vulkan-dat3m on plain accesses at device scope: the
    /// smallest difference is a coherence test of 4 events (P0 reads x
    /// twice, P1 writes 1 then 2; the spec's reading forbids P0 seeing 2
    /// then 1 with 2 coherence-last, Dat3M's allows it: the CLI's
    /// `vkmm diff` finds the same). Both verdicts and both explanations
    /// come with it, and the annotated file reads back as a litmus test.
    #[test]
    fn compares_two_models_with_both_verdicts_and_explanations() {
        let r = diff_request(
            r#"{"models": ["vulkan", "vulkan-dat3m"], "vocabulary": "plain", "scopes": "dv"}"#,
        );
        let a = diff(&r, &Options::default());
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a["complete"], true, "{a}");
        let tests = a["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 1, "{a}");
        let t = &tests[0];
        assert_eq!(t["events"], 4);
        assert_eq!(t["verdicts"][0], "condition No (forbidden), racy", "{a}");
        assert_eq!(t["verdicts"][1], "condition Ok (allowed), racy", "{a}");
        let annotated = t["annotated"].as_str().unwrap();
        assert!(annotated.contains("Under vulkan:\n"), "{annotated}");
        assert!(annotated.contains("Under vulkan-dat3m:\n"), "{annotated}");
        let c = check("d.litmus", annotated, &opts(r#"{"model": "vulkan"}"#), None);
        assert_eq!(c["result"]["condition_holds"], false, "{c}");
        let c = check(
            "d.litmus",
            annotated,
            &opts(r#"{"model": "vulkan-dat3m"}"#),
            None,
        );
        assert_eq!(c["result"]["condition_holds"], true, "{c}");
    }

    /// A pair that agrees on the bound: "no difference" only when the
    /// search covered it; a search the execution limit stops says so (with
    /// control barriers in the vocabulary, which the symbolic search
    /// leaves to the enumeration of skeletons: the symbolic one evaluates
    /// no execution, so that limit never stops it).
    #[test]
    fn no_difference_is_claimed_only_for_a_complete_search() {
        let r = diff_request(
            r#"{"models": ["vulkan", "vulkan-dat3m"], "vocabulary": "atomic", "scopes": "dv"}"#,
        );
        let a = diff(&r, &Options::default());
        assert_eq!(a["complete"], true, "{a}");
        assert!(a["tests"].as_array().unwrap().is_empty(), "{a}");
        assert!(
            a["summary"].as_str().unwrap().starts_with("no difference"),
            "{a}"
        );
        // Plain accesses: the solver proposes the 4-event coherence
        // skeletons, whose candidates (two orders of two writes, each read
        // reading any of three values) the execution limit cuts.
        let r = diff_request(
            r#"{"models": ["vulkan", "vulkan-dat3m"], "vocabulary": "plain", "scopes": "dv"}"#,
        );
        let a = diff(&r, &opts(r#"{"max_executions": 3}"#));
        assert_eq!(a["ok"], true, "{a}");
        assert_eq!(a["complete"], false, "{a}");
        assert!(a["bounded"].is_string(), "{a}");
        assert!(
            !a["summary"].as_str().unwrap().starts_with("no difference"),
            "{a}"
        );
    }

    #[test]
    fn a_compare_request_past_the_page_bound_or_with_one_model_is_an_error() {
        let a = diff(
            &diff_request(r#"{"models": ["vulkan", "opencl"], "threads": 4}"#),
            &Options::default(),
        );
        assert_eq!(a["ok"], false);
        assert!(
            a["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("threads: expected 1 to 3 in the page"),
            "{a}"
        );
        let a = diff(
            &diff_request(r#"{"models": ["vulkan"]}"#),
            &Options::default(),
        );
        assert_eq!(a["ok"], false, "{a}");
        let a = diff(
            &diff_request(r#"{"models": ["vulkan", "vulkan-dat3m"], "vocabulary": "nope"}"#),
            &Options::default(),
        );
        assert!(
            a["error"]["message"]
                .as_str()
                .unwrap()
                .contains("unknown instruction family `nope`"),
            "{a}"
        );
    }
}

//! The facade: check, explain, compare and run suites on files or text.
//!
//! A [`Session`] holds the choices a run makes (model, loop bound, execution
//! limit, front-end readings) and caches the models it loads, so checking
//! many files parses each model once. Every entry point returns typed
//! results ([`Checked`], [`Explanation`], [`Comparison`], [`Summary`]) that
//! the reporters in [`crate::report`] print, or a typed [`Error`].
//!
//! ```
//! let session = vkmm::Session::new();
//! let checked = session.check_file("examples/mp.test").unwrap();
//! assert!(checked.complete());
//! ```

use crate::analysis::explain::{ExplainSpec, Explanation};
use crate::analysis::suite::{self, SuiteItem};
use crate::analysis::termination::Progress;
use crate::analysis::{
    CheckError, Checked, Comparison, FileError, Models, Property, Summary, check_program,
};
use crate::cat::CatError;
use crate::engine::{Limits, Reduction, Reductions};
use crate::frontend::{Format, FrontendError, LocalMemory, Options};
use crate::ir::{CondExpr, Program};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use web_time::Instant;

/// Why a request could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input could not be read or parsed (file, line, column, what was expected).
    #[error(transparent)]
    Input(#[from] FrontendError),
    /// A model could not be loaded (file, line, column for cat syntax errors).
    #[error(transparent)]
    Model(#[from] CatError),
    /// A model's `.explain` wording file is malformed.
    #[error(transparent)]
    Wording(#[from] crate::analysis::explain::SpecError),
    /// The program could not be checked under the model (a refused feature,
    /// a query naming an unknown count, a program the engine cannot run).
    #[error("{file}: {error}")]
    Check { file: String, error: CheckError },
    /// A request that makes no sense (e.g. `--outcome` on a `.test` file).
    #[error("{0}")]
    Usage(String),
    /// A limit (the request's `--timeout`) stopped the work before the
    /// program was read: undecided, not an error of the input.
    #[error("{file}: undecided: {message}")]
    Limit { file: String, message: String },
}

impl Error {
    fn check(file: &str, error: CheckError) -> Error {
        Error::Check {
            file: file.to_string(),
            error,
        }
    }
}

/// Checks a suite's items (in item order): in turn, or on a thread pool.
pub type SuiteRunner<'a> = dyn Fn(&Session, &[SuiteItem]) -> Vec<Result<Checked, FileError>> + 'a;

/// Loaded models by (model, no-chains model) as the session names them.
type ModelCache = BTreeMap<(String, Option<String>), Arc<Models>>;

/// A configured checker. Cheap to create; share one across threads to reuse
/// its loaded models (a clone shares them too).
#[derive(Clone)]
pub struct Session {
    model: Option<String>,
    nochains_model: Option<String>,
    limits: Limits,
    options: Options,
    decide: Option<Property>,
    /// Litmus tests answer "does it terminate under this progress model?"
    /// instead of listing outcomes.
    termination: Option<Progress>,
    progress: Option<ProgressCallback>,
    /// Models loaded so far, shared with the sessions [`Session::with_decide`]
    /// makes (a suite loads each model once).
    models: Arc<Mutex<ModelCache>>,
    /// The rows of the suite pass this session runs, when it runs one
    /// ([`Session::run_rows`]).
    rows: Option<Arc<RowsInFlight>>,
}

/// The rows of one suite pass that are running, and whether two ever ran
/// at once: the memory bound is the process's, so rows that run at once
/// share it.
#[derive(Default)]
struct RowsInFlight {
    running: std::sync::atomic::AtomicUsize,
    overlapped: std::sync::atomic::AtomicBool,
}

/// One row of a suite pass running: counted in [`RowsInFlight`] until dropped.
struct RowRunning<'a>(&'a RowsInFlight);

impl<'a> RowRunning<'a> {
    fn start(rows: &'a RowsInFlight) -> RowRunning<'a> {
        use std::sync::atomic::Ordering;
        if rows.running.fetch_add(1, Ordering::SeqCst) > 0 {
            rows.overlapped.store(true, Ordering::SeqCst);
        }
        RowRunning(rows)
    }
}

impl Drop for RowRunning<'_> {
    fn drop(&mut self) {
        self.0
            .running
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// What a session calls with the progress of a long check.
pub type ProgressCallback = Arc<dyn Fn(crate::engine::Progress) + Send + Sync>;

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

/// Checks one file with the default session (the dialect's default model,
/// default bounds).
///
/// ```
/// let checked = vkmm::check("examples/mp.litmus").unwrap();
/// let vkmm::Checked::Litmus(outcome) = checked else { panic!() };
/// assert_eq!(outcome.condition_holds, Some(true)); // `forall`: the message always arrives
/// ```
pub fn check(path: impl AsRef<Path>) -> Result<Checked, Error> {
    Session::new().check_file(path)
}

impl Session {
    /// A session with the default model per dialect and default limits.
    pub fn new() -> Session {
        Session {
            model: None,
            nochains_model: None,
            limits: Limits::default(),
            options: Options::default(),
            decide: None,
            termination: None,
            progress: None,
            models: Arc::new(Mutex::new(BTreeMap::new())),
            rows: None,
        }
    }

    /// The model every test runs under: a built-in name (`vulkan`,
    /// `vulkan-nochains`, `opencl`, ...: [`crate::model::BUILTIN`]) or a
    /// `.cat` file.
    /// Without it each test runs under its dialect's default model.
    pub fn model(mut self, model: impl Into<String>) -> Session {
        self.model = Some(model.into());
        self
    }

    /// The model every test runs under, given as cat text (a pasted model)
    /// named `name`: parsed now, so a syntax error is reported here (file
    /// `name`, line, column). Its includes resolve against the built-in
    /// models; `NOCHAINS` queries run under the companion it declares, else
    /// under it.
    ///
    /// ```
    /// let cat = "\"everything goes\"\nlet dr = 0\n";
    /// let session = vkmm::Session::new().model_text("mine.cat", cat).unwrap();
    /// let checked = session.check_file("examples/mp.litmus").unwrap();
    /// assert!(checked.complete());
    /// assert!(vkmm::Session::new().model_text("bad.cat", "let = 1").is_err());
    /// ```
    pub fn model_text(mut self, name: &str, source: &str) -> Result<Session, Error> {
        let chains = crate::model::load_text(name, source)?;
        let no_chains = match self
            .nochains_model
            .as_deref()
            .or(chains.profile.nochains.as_deref())
        {
            Some(companion) => crate::model::load_within(companion, self.input_bound())?,
            None => chains.clone(),
        };
        let key = (name.to_string(), self.nochains_model.clone());
        self.models
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, Arc::new(Models { chains, no_chains }));
        self.model = Some(name.to_string());
        Ok(self)
    }

    /// The model `.test` queries marked `NOCHAINS` run under (default: the
    /// model's declared companion).
    pub fn nochains_model(mut self, model: impl Into<String>) -> Session {
        self.nochains_model = Some(model.into());
        self
    }

    /// Loop unrolling: a statement runs at most `n + 1` times on a path.
    pub fn unroll(mut self, n: usize) -> Session {
        self.limits.bounds.unroll = n;
        self
    }

    /// The search with reduction `r` on (the default for every reduction)
    /// or off. Every reduction gives the same answers as the reference
    /// enumeration, which has them all off ([`Session::reductions`]).
    pub fn reduction(mut self, r: Reduction, on: bool) -> Session {
        self.limits.reductions = self.limits.reductions.with(r, on);
        self
    }

    /// The search with exactly these reductions (`Reductions::none()`: the
    /// reference enumeration, `--engine reference`).
    pub fn reductions(mut self, set: Reductions) -> Session {
        self.limits.reductions = set;
        self
    }

    /// Races judged also on the executions in which threads stop where
    /// the unrolling bound cut their paths (on by default; off: cut paths
    /// are dropped, see [`Limits::prefix_races`]).
    pub fn prefix_races(mut self, on: bool) -> Session {
        self.limits.prefix_races = on;
        self
    }

    /// Undefined initial values walked over their finite domain (on by
    /// default; off: every location starts at its listed initial value,
    /// see [`Limits::undefined_values`]).
    pub fn undefined_values(mut self, on: bool) -> Session {
        self.limits.undefined_values = on;
        self
    }

    /// The most model evaluations per test (candidates and partial ones).
    pub fn max_executions(mut self, n: u64) -> Session {
        self.limits.bounds.max_executions = n;
        self
    }

    /// The threads one search may use (default 1: sequential). More
    /// explores the parts of one search in parallel on the current rayon
    /// pool (the `parallel` feature), with the same answers
    /// ([`Limits::threads`]).
    pub fn threads(mut self, n: usize) -> Session {
        self.limits.threads = n.max(1);
        self
    }

    /// The most paths one thread may have (default 100 000); past it the
    /// answer is undecided.
    pub fn max_paths(mut self, n: usize) -> Session {
        self.limits.bounds.max_paths = n;
        self
    }

    /// The most writes to one location (and sequentially consistent
    /// operations) whose orders are enumerated (default 8); combinations
    /// with more are skipped and the answer is undecided.
    pub fn max_writes(mut self, n: usize) -> Session {
        self.limits.bounds.max_writes_per_location = n;
        self
    }

    /// The memory bound in bytes (default 4 GiB; `None`: no bound), enforced
    /// where [`crate::memory::CountingAllocator`] is the global allocator.
    /// The files this session's requests read (tests, shaders, models,
    /// CSVs) are held to it too; it is the session's own, so sessions with
    /// different bounds run side by side in one process.
    pub fn max_memory(mut self, bytes: Option<usize>) -> Session {
        self.limits.bounds.max_memory = bytes;
        self
    }

    /// All limits at once.
    pub fn limits(mut self, limits: Limits) -> Session {
        self.limits = limits;
        self
    }

    /// The bound this session's requests read files under: its memory
    /// bound (the front ends read it from the request's bounds,
    /// [`crate::frontend::clock::input_bound`]).
    fn input_bound(&self) -> Option<usize> {
        self.limits.bounds.max_memory
    }

    /// A model (a built-in name or a `.cat` file) with its files read
    /// under this session's bound.
    fn load_model(&self, model: &str) -> Result<crate::model::LoadedModel, CatError> {
        crate::model::load_within(model, self.input_bound())
    }

    /// How OpenCL `local` variables named by several workgroups are read.
    pub fn local_memory(mut self, reading: LocalMemory) -> Session {
        self.options.local_memory = reading;
        self
    }

    /// What a SPIR-V access whose runtime index names no cell does:
    /// undefined behaviour, reported (the default), or Dat3M's flat memory
    /// (docs/format-spirv.md, "Out-of-bounds accesses").
    pub fn out_of_bounds(mut self, reading: crate::frontend::OutOfBoundsReading) -> Session {
        self.options.out_of_bounds = reading;
        self
    }

    /// How a SPIR-V module under the GLSL450 (or Simple) memory model is
    /// read: as GLSL compilers and drivers read it (`Coherent`, the
    /// default: coherent and Workgroup variables get per-instruction
    /// availability and visibility) or literally (`Strict`)
    /// (docs/format-spirv.md, "The GLSL450 memory model").
    pub fn legacy_memory_model(mut self, reading: crate::frontend::LegacyMemoryModel) -> Session {
        self.options.legacy_memory_model = reading;
        self
    }

    /// How shaders are compiled and dispatched: workgroup size, workgroup
    /// count, subgroup size, defines, include folders, constants set,
    /// entry point (docs/checking-your-shader.md).
    pub fn shader(mut self, shader: crate::frontend::ShaderOptions) -> Session {
        self.options.shader = shader;
        self
    }

    /// Stop each litmus check as soon as `property` is decided (suites of
    /// expected verdicts; the state list is then partial).
    pub fn decide(mut self, property: Option<Property>) -> Session {
        self.decide = property;
        self
    }

    /// Check litmus tests for termination under `progress` (a progress
    /// model, or one per level of the thread hierarchy) instead of listing
    /// their outcomes: [`Checked::Termination`].
    ///
    /// ```
    /// use vkmm::analysis::termination::{Progress, Verdict};
    /// let text = "VULKAN spin\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.wg.sc0 x, 1 ;\n ld.atom.wg.sc0 r0, x | ;\n beq r0, 0, LC00 | ;\nexists (0==0)\n";
    /// let check = |p: &str| {
    ///     let s = vkmm::Session::new().termination(Some(p.parse::<Progress>().unwrap()));
    ///     let vkmm::Checked::Termination(o) = s.check_text("spin.litmus", text).unwrap() else { panic!() };
    ///     o.verdict
    /// };
    /// assert_eq!(check("FAIR"), Verdict::Terminates); // P1 runs: P0 reads 1 at last
    /// assert_eq!(check("HSA"), Verdict::NonTerminating); // P1 may never run
    /// ```
    pub fn termination(mut self, progress: Option<Progress>) -> Session {
        self.termination = progress;
        self
    }

    /// Wall-clock limit per request (a check stopped by it is undecided):
    /// each request (`check_file`, `check_text`, `check_program`,
    /// `compare`, `refines`, `explain`, a suite's row) makes its deadline
    /// this long after it starts, read by every phase of it and shared by
    /// every search it runs, unless [`Session::deadline`] fixed one.
    pub fn timeout(mut self, t: Option<std::time::Duration>) -> Session {
        self.limits.bounds.timeout = t;
        self
    }

    /// One deadline for every request of this session (a command made it
    /// when it started: `--timeout` bounds the whole command); `None`:
    /// each request makes its own from [`Session::timeout`].
    pub fn deadline(mut self, at: Option<web_time::Instant>) -> Session {
        self.limits.bounds.deadline = at;
        self
    }

    /// This session with its request's deadline made now when it has a
    /// timeout and no deadline yet (itself otherwise).
    fn started(&self) -> Cow<'_, Session> {
        if self.limits.bounds.deadline.is_some() || self.limits.bounds.timeout.is_none() {
            return Cow::Borrowed(self);
        }
        let mut s = self.with_decide(self.decide);
        s.limits.bounds = s.limits.bounds.starting_now();
        Cow::Owned(s)
    }

    /// Calls `f` now and then during long litmus checks (a terminal
    /// spinner, a browser's progress bar).
    pub fn on_progress(mut self, f: ProgressCallback) -> Session {
        self.progress = Some(f);
        self
    }

    /// The limits in force.
    pub fn current_limits(&self) -> Limits {
        self.limits
    }

    /// Reads and parses a test file (the format from its extension and,
    /// for `.litmus`, its architecture word).
    pub fn load_file(&self, path: impl AsRef<Path>) -> Result<Program, Error> {
        let path = path.as_ref();
        if path.is_dir() {
            return Err(Error::Usage(format!(
                "{}: is a folder: `vkmm suite {}` checks the tests below it",
                path.display(),
                path.display()
            )));
        }
        let this = self.started();
        let name = path.display().to_string();
        this.front_end(&name, Format::of_path(path), || {
            crate::frontend::load_with(path, this.options.clone())
        })
    }

    /// Runs a front end under the request's bounds, with the checker's
    /// path walk for the searches a front end runs itself
    /// ([`crate::frontend::clock::FrontEndClock`]): an error it returns
    /// because the time was spent, or because a compiler run in process
    /// reached the memory bound ([`crate::memory::MEMORY_IS_UP`]), is
    /// [`Error::Limit`]; a search a bound stopped leaves its fact on the
    /// program (`Program::front_end_limit`).
    fn front_end(
        &self,
        name: &str,
        format: Option<Format>,
        f: impl FnOnce() -> Result<Program, FrontendError>,
    ) -> Result<Program, Error> {
        let shader = matches!(
            format,
            Some(Format::Spirv | Format::SpirvBinary | Format::Glsl | Format::Wgsl | Format::Hlsl)
        );
        let b = self.limits.bounds;
        let bounds = crate::frontend::clock::FrontEndBounds {
            deadline: b.deadline,
            timeout: b.timeout,
            max_memory: b.max_memory,
            max_paths: Some(b.max_paths),
            unroll: Some(b.unroll),
        };
        let clock = crate::frontend::clock::FrontEndClock::start(bounds, Some(domain_walk));
        // A shader's request already past a bound (a tiny --max-memory,
        // the memory a suite's other rows hold) stops before the front
        // end's work: running a compiler and lowering the program would
        // only lead to a search that stops at its first look. (The litmus
        // readers look at the bounds as they read.)
        let read = match shader.then(crate::frontend::clock::bound_reached).flatten() {
            None => f(),
            Some(why) => Err(FrontendError {
                file: name.to_string(),
                line: 0,
                column: 0,
                message: format!("{why} before the program was read"),
            }),
        };
        if clock.stopped() {
            return Err(Error::Limit {
                file: name.to_string(),
                message:
                    "stopped at the time limit (--timeout) while reading and lowering the program"
                        .into(),
            });
        }
        // A compiler run in process stopped at the memory bound.
        if let Err(e) = &read
            && e.message.starts_with(crate::memory::MEMORY_IS_UP)
        {
            return Err(Error::Limit {
                file: name.to_string(),
                message: e.message.clone(),
            });
        }
        Ok(read?)
    }

    /// Parses a test given as text; `name` names it in errors and reports.
    /// A name ending in `.test` is read as an Alloy `.test` file; any other
    /// text is a litmus test if it opens with an architecture word
    /// (`VULKAN`, `OPENCL`), else a `.test` file.
    ///
    /// ```
    /// let session = vkmm::Session::new();
    /// let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nNEWWG\nNEWSG\nNEWTHREAD\nld.sc0 x = 1\nNOSOLUTION consistent[X] && #dr=0\n";
    /// let program = session.load_text("race.test", text).unwrap();
    /// assert_eq!(program.threads.len(), 2);
    /// ```
    pub fn load_text(&self, name: &str, text: &str) -> Result<Program, Error> {
        let format = Format::guess(name, text);
        let this = self.started();
        this.front_end(name, Some(format), || {
            crate::frontend::parse_text(name, text, format, this.options.clone())
        })
    }

    /// The models a program runs under: the session's, or its dialect's default.
    pub fn models_for(&self, program: &Program) -> Result<Arc<Models>, Error> {
        let name = self
            .model
            .clone()
            .unwrap_or_else(|| crate::model::default_for(program.dialect).to_string());
        let key = (name, self.nochains_model.clone());
        let mut cache = self.models.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = cache.get(&key) {
            return Ok(m.clone());
        }
        let loaded = Arc::new(Models::load_within(
            &key.0,
            key.1.as_deref(),
            self.input_bound(),
        )?);
        cache.insert(key, loaded.clone());
        Ok(loaded)
    }

    /// Loads every model a run will need before it starts (so a bad model
    /// is reported once, not per file).
    pub fn preload(&self) -> Result<(), Error> {
        let dialects = [crate::ir::Dialect::Vulkan, crate::ir::Dialect::OpenCl];
        for dialect in dialects {
            let p = Program {
                dialect,
                ..Program::default()
            };
            self.models_for(&p)?;
            if self.model.is_some() {
                break;
            }
        }
        Ok(())
    }

    /// Checks a loaded program: a `.test` file's queries, or a litmus
    /// test's outcome list, condition and races.
    pub fn check_program(&self, file: &str, program: &Program) -> Result<Checked, Error> {
        self.started()
            .check_program_inner(file, program)
            .map(|c| c.with_warnings(&program.warnings))
    }

    fn check_program_inner(&self, file: &str, program: &Program) -> Result<Checked, Error> {
        let models = self.models_for(program)?;
        let err = |e| Error::check(file, e);
        if let Some(progress) = &self.termination {
            if program.kind != crate::ir::TestKind::Litmus {
                return Err(Error::Usage(format!(
                    "{file}: termination is asked of litmus tests; this file holds Alloy-style queries"
                )));
            }
            if !program.attributions.is_empty() {
                return Err(Error::Usage(format!(
                    "{file}: termination is checked for one program; this test leaves cooperative matrix attributions open ({} of them): state the element accesses after `:`",
                    program.attributions.total
                )));
            }
            let o = crate::analysis::termination::check_termination(
                file,
                program,
                &models.chains,
                self.limits,
                progress,
            )
            .map_err(err)?;
            let mut o = o;
            // A program the front end built only part of settles nothing.
            if program.front_end_limit.is_some() {
                o.verdict = crate::analysis::termination::Verdict::Undecided;
                o.witness = None;
                o.front_end_limit.clone_from(&program.front_end_limit);
            }
            return Ok(Checked::Termination(Box::new(o)));
        }
        if program.kind == crate::ir::TestKind::Litmus {
            let o = crate::analysis::litmus::check_litmus_with_progress(
                file,
                program,
                &models.chains,
                self.limits,
                self.decide,
                self.progress.as_deref().map(|f| f as _),
            )
            .map_err(err)?;
            Ok(Checked::Litmus(Box::new(o)))
        } else {
            let checked = check_program(file, program, &models, self.limits);
            Ok(Checked::Queries(checked.map_err(|e| match e {
                // A count the model does not bind: located at its `#name`.
                CheckError::UnknownCount { line, name, model } => {
                    let query = program.queries.iter().find(|q| q.line == line);
                    let (line, column) = query.map_or((line, 1), |q| q.count_position(&name));
                    Error::Input(FrontendError {
                        file: file.to_string(),
                        line,
                        column,
                        message: format!(
                            "query counts `#{name}`, but the model `{model}` binds no `{name}`"
                        ),
                    })
                }
                e => err(e),
            })?))
        }
    }

    /// Reads and checks a file.
    pub fn check_file(&self, path: impl AsRef<Path>) -> Result<Checked, Error> {
        let path = path.as_ref();
        let this = self.started();
        let program = this.load_file(path)?;
        this.check_program(&path.display().to_string(), &program)
    }

    /// Parses and checks a test given as text (see [`Session::load_text`]).
    ///
    /// ```
    /// let text = "VULKAN MP\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.av.dv.sc0 x, 1 | ld.atom.acq.dv.sc0.semsc0 r0, y ;\n st.atom.rel.dv.sc0.semsc0 y, 1 | ld.vis.dv.sc0 r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    /// let checked = vkmm::Session::new().check_text("mp.litmus", text).unwrap();
    /// let vkmm::Checked::Litmus(o) = checked else { panic!() };
    /// assert_eq!(o.condition_holds, Some(false)); // the stale payload is never read
    /// ```
    pub fn check_text(&self, name: &str, text: &str) -> Result<Checked, Error> {
        let this = self.started();
        let program = this.load_text(name, text)?;
        this.check_program(name, &program)
    }

    /// Parses an outcome (`--outcome`) in the condition syntax of the
    /// program's dialect, against its threads, registers and locations.
    pub fn parse_outcome(&self, program: &Program, outcome: &str) -> Result<CondExpr, Error> {
        Ok(crate::frontend::parse_outcome(program, outcome)?)
    }

    /// Explains an outcome of a program (default: its own condition): a
    /// witness if allowed, the rejecting axioms and cycles if forbidden,
    /// race diagnoses. `wording` overrides the model's `.explain` file.
    ///
    /// ```
    /// let session = vkmm::Session::new();
    /// let program = session.load_file("examples/mp.litmus").unwrap();
    /// let x = session.explain(&program, Some("P1:r1 == 0"), None).unwrap();
    /// assert_eq!(x.verdict, vkmm::analysis::explain::Verdict::Forbidden);
    /// ```
    pub fn explain(
        &self,
        program: &Program,
        outcome: Option<&str>,
        wording: Option<ExplainSpec>,
    ) -> Result<Explanation, Error> {
        let models = self.models_for(program)?;
        let spec = match wording {
            Some(w) => w,
            None => ExplainSpec::of(&models.chains.profile)?,
        };
        let parsed = match outcome {
            Some(o) => Some((self.parse_outcome(program, o)?, o.to_string())),
            None => None,
        };
        crate::analysis::explain::explain(
            program,
            &models.chains,
            &spec,
            parsed.as_ref().map(|(e, t)| (e, t.clone())),
            self.started().limits,
        )
        .map_err(|e| Error::check(&program.name, e))
    }

    /// Explains a termination check (the session's progress model, FAIR
    /// when none was set): the verdict of [`Session::termination`], and for
    /// a program that can run forever the witness execution drawn (its
    /// events and labelled edges, [`crate::analysis::termination::Witness::execution`];
    /// the events that repeat are its loops' `suffix_events`). `wording`
    /// overrides the model's `.explain` file.
    ///
    /// ```
    /// use vkmm::analysis::termination::{Progress, Verdict};
    /// let s = vkmm::Session::new().termination(Some("HSA".parse::<Progress>().unwrap()));
    /// let program = s.load_file("examples/spin-wait.litmus").unwrap();
    /// let x = s.explain_termination(&program, None).unwrap();
    /// assert_eq!(x.outcome.verdict, Verdict::NonTerminating);
    /// let w = x.outcome.witness.unwrap();
    /// let drawn = w.execution.unwrap();
    /// // P0's one spinning read of the initial flag repeats forever.
    /// assert_eq!(w.loops[0].suffix_events, vec![0]);
    /// assert!(drawn.events[0].contains("flag [reads 0, initial]"));
    /// ```
    pub fn explain_termination(
        &self,
        program: &Program,
        wording: Option<ExplainSpec>,
    ) -> Result<TerminationExplanation, Error> {
        if program.kind != crate::ir::TestKind::Litmus {
            return Err(Error::Usage(format!(
                "{}: termination is asked of litmus tests; this file holds Alloy-style queries",
                program.name
            )));
        }
        let models = self.models_for(program)?;
        let spec = match wording {
            Some(w) => w,
            None => ExplainSpec::of(&models.chains.profile)?,
        };
        let progress = self.termination.clone().unwrap_or_default();
        let outcome = crate::analysis::termination::explain_termination(
            &program.name,
            program,
            &models.chains,
            &spec,
            self.started().limits,
            &progress,
        )
        .map_err(|e| Error::check(&program.name, e))?;
        let mut outcome = outcome;
        // As `check`: a program the front end built only part of settles
        // nothing.
        if program.front_end_limit.is_some() {
            outcome.verdict = crate::analysis::termination::Verdict::Undecided;
            outcome.witness = None;
            outcome.front_end_limit.clone_from(&program.front_end_limit);
        }
        outcome.warnings.extend_from_slice(&program.warnings);
        Ok(TerminationExplanation {
            outcome,
            relation_names: spec.relation_names(),
            picture: spec.picture.clone(),
        })
    }

    /// Runs a program under several models side by side.
    ///
    /// ```
    /// let session = vkmm::Session::new();
    /// let program = session.load_file("examples/mp.test").unwrap();
    /// let c = session.compare("mp.test", &program, &["vulkan", "vulkan-nochains"]).unwrap();
    /// assert_eq!(c.models.len(), 2);
    /// ```
    pub fn compare(
        &self,
        file: &str,
        program: &Program,
        models: &[&str],
    ) -> Result<Comparison, Error> {
        let loaded: Vec<crate::model::LoadedModel> = models
            .iter()
            .map(|m| self.load_model(m))
            .collect::<Result<_, CatError>>()?;
        // Every model's search shares the request's deadline.
        crate::analysis::compare::compare(file, program, &loaded, self.started().limits)
            .map_err(|e| Error::check(file, e))
    }

    /// Checks that every final state the implementation model `imp`
    /// allows for `program` is allowed by the specification model `spec`
    /// (docs/interlock.md, "POPS").
    ///
    /// ```
    /// let session = vkmm::Session::new();
    /// let program = session.load_file("tests/fixtures/litmus-interlock/counter-ordered.litmus").unwrap();
    /// let r = session.refines("counter-ordered", &program, "pops", "vulkan").unwrap();
    /// assert!(r.violations.is_empty());
    /// let r = session.refines("counter-ordered", &program, "pops-done-early", "vulkan").unwrap();
    /// assert!(!r.violations.is_empty());
    /// ```
    pub fn refines(
        &self,
        file: &str,
        program: &Program,
        imp: &str,
        spec: &str,
    ) -> Result<crate::analysis::refines::Refinement, Error> {
        let imp = self.load_model(imp)?;
        let spec = self.load_model(spec)?;
        // Both models' searches share the request's deadline.
        crate::analysis::refines::refines(file, program, &imp, &spec, self.started().limits)
            .map_err(|e| Error::check(file, e))
    }

    /// Searches for the smallest Vulkan litmus tests on which the models
    /// `a` and `b` (built-in names or `.cat` files) disagree, within
    /// `bounds` (docs/synthesis.md). The session's limits bound each
    /// check, its `--timeout` the whole search.
    ///
    /// ```
    /// use vkmm::analysis::diff::{DiffBounds, Vocabulary};
    /// let bounds = DiffBounds {
    ///     threads: 2, events: 2, locations: 1,
    ///     vocabulary: Vocabulary::parse("plain", "dv", 1).unwrap(),
    ///     ..DiffBounds::default()
    /// };
    /// let r = vkmm::Session::new().diff("vulkan", "vulkan-fr-asmo", &bounds).unwrap();
    /// assert!(r.complete);
    /// ```
    pub fn diff(
        &self,
        a: &str,
        b: &str,
        bounds: &crate::analysis::diff::DiffBounds,
    ) -> Result<crate::analysis::diff::DiffReport, Error> {
        let a = self.load_model(a)?;
        let b = self.load_model(b)?;
        let this = self.started();
        let mut bounds = bounds.clone();
        bounds.deadline = match (bounds.deadline, this.limits.bounds.deadline) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        let pair = crate::analysis::diff::Pair {
            a: &a,
            b: &b,
            options: this.options.clone(),
            limits: this.limits,
        };
        crate::analysis::diff::diff(&pair, &bounds).map_err(Error::Usage)
    }

    /// Why each of the two models gives a distinguishing test of
    /// [`Session::diff`] its verdict: the test explained under `models[0]`
    /// and under `models[1]` (its own condition; a witness or the
    /// rejected execution with its cycle). `vkmm diff` writes these
    /// beside each test, rendered as `explain` renders them.
    pub fn diff_reasons(
        &self,
        models: &[String; 2],
        w: &crate::analysis::diff::Witness,
    ) -> [Result<Explanation, Error>; 2] {
        models.clone().map(|m| {
            let s = self.clone().model(m);
            let program = s.load_text(&format!("{}.litmus", w.name), &w.text)?;
            s.explain(&program, None, None)
        })
    }

    /// Generates the family `bounds` with each model's verdicts
    /// (docs/synthesis.md, "Families").
    pub fn family(
        &self,
        models: &[String],
        bounds: &crate::analysis::family::FamilyBounds,
    ) -> Result<crate::analysis::family::FamilyReport, Error> {
        let loaded = models
            .iter()
            .map(|m| self.load_model(m))
            .collect::<Result<Vec<_>, _>>()?;
        let this = self.started();
        let mut bounds = bounds.clone();
        bounds.deadline = match (bounds.deadline, this.limits.bounds.deadline) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        let g = crate::analysis::family::Generator {
            models: loaded.iter().collect(),
            options: this.options.clone(),
            limits: this.limits,
            // OpenCL models only: their dialect.
            opencl: loaded.iter().all(crate::analysis::family::is_opencl),
        };
        crate::analysis::family::family(&g, &bounds).map_err(Error::Usage)
    }

    /// The mutants of each test (`(file, text)`, Vulkan litmus) whose
    /// `exists` outcome the first model forbids (docs/synthesis.md,
    /// "Mutants").
    pub fn mutants(
        &self,
        models: &[String],
        tests: &[(String, String)],
    ) -> Result<crate::analysis::mutants::MutantsReport, Error> {
        let loaded = models
            .iter()
            .map(|m| self.load_model(m))
            .collect::<Result<Vec<_>, _>>()?;
        let this = self.started();
        let g = crate::analysis::family::Generator {
            models: loaded.iter().collect(),
            options: this.options.clone(),
            limits: this.limits,
            opencl: false,
        };
        crate::analysis::mutants::mutants(&g, tests).map_err(Error::Usage)
    }

    /// Checks the compiler mapping in the file `mapping` on every test of
    /// the bound: each final state `imp` allows on a compiled test and
    /// `spec` forbids on its source is a violation (docs/mappings.md).
    pub fn check_mapping(
        &self,
        imp: &str,
        spec: &str,
        mapping: &Path,
        bounds: &crate::analysis::mapping::MappingBounds,
    ) -> Result<crate::analysis::mapping::MappingReport, Error> {
        let file = mapping.display().to_string();
        let text = crate::memory::read_input_text(mapping, self.input_bound())
            .map_err(|e| Error::Usage(format!("{file}: cannot read: {e}")))?;
        let this = self.started();
        let m = crate::analysis::mapping::read_mapping(&file, &text, &this.options)
            .map_err(Error::Usage)?;
        let imp = self.load_model(imp)?;
        let spec = self.load_model(spec)?;
        let mut bounds = bounds.clone();
        bounds.deadline = match (bounds.deadline, this.limits.bounds.deadline) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        crate::analysis::mapping::check_mapping(
            &m,
            &imp,
            &spec,
            &this.options,
            this.limits,
            &bounds,
        )
        .map_err(Error::Usage)
    }

    /// Checks one item of a suite (a failure to check is a row's error, not
    /// the suite's).
    pub fn suite_item(&self, item: &SuiteItem) -> Result<Checked, FileError> {
        let _running = self.rows.as_deref().map(RowRunning::start);
        // Each row has its own deadline (`--timeout` per row).
        let this = self.started();
        let this = &*this;
        let err = |e: Error| FileError {
            file: item.path.display().to_string(),
            error: e.to_string(),
        };
        if let Some(row) = &item.manifest {
            return this.manifest_row(row).map_err(err);
        }
        let Some(row) = &item.row else {
            return this.check_file(&item.path).map_err(err);
        };
        // A six-column row: its own property and bound.
        use crate::analysis::expected::RowProperty;
        let property = match row.property {
            RowProperty::Assertions => Property::Condition,
            RowProperty::Races => Property::Races,
            RowProperty::Termination => {
                let name = row
                    .options
                    .split(';')
                    .find_map(|o| o.trim().strip_prefix("progress="))
                    .unwrap_or("fairUniform");
                let progress = Progress::from_dat3m_name(name).map_err(|e| FileError {
                    file: item.path.display().to_string(),
                    error: e,
                })?;
                // Dat3M sees a spinning iteration of a side-effect-free loop
                // in one unrolling; a loop vkmm does not run as an await
                // shows its repetition in two iterations, so at least one
                // more unrolling (a larger bound: every answer it gives
                // still holds, and says which bound it used).
                return this
                    .with_decide(None)
                    .termination(Some(progress))
                    .unroll(row.unroll().max(1))
                    .check_file(&item.path)
                    .map_err(err);
            }
        };
        let session = this.with_decide(Some(property)).unroll(row.unroll());
        let mut program = session.load_file(&item.path).map_err(err)?;
        if !row.filter()
            && let Some(c) = &mut program.condition
        {
            c.filter = None;
        }
        session
            .check_program(&item.path.display().to_string(), &program)
            .map_err(err)
    }

    /// Checks one row of a shader manifest: its shader at its dispatch
    /// with its inputs, for its question.
    pub fn manifest_row(
        &self,
        row: &crate::analysis::manifest::ManifestRow,
    ) -> Result<Checked, Error> {
        use crate::analysis::manifest::Question;
        let mut shader = row.shader.clone();
        // The session's own inputs (the command line's) come first.
        let mut merged = self.options.shader.clone();
        merged.inputs.append(&mut shader.inputs);
        shader.inputs = merged.inputs;
        match &row.question {
            Question::Races => self
                .with_decide(Some(Property::Races))
                .shader(shader)
                .check_file(&row.path),
            Question::Termination(progress) => self
                .with_decide(None)
                .termination(Some(progress.clone()))
                .shader(shader)
                .check_file(&row.path),
            Question::Assertion(condition) => {
                // The front end reads the assertion as it reads `--assert`
                // (the cells it names get locations), in place of the
                // shader's own condition and filter.
                shader.assertion = Some(crate::frontend::assertion::Asserted {
                    text: condition.clone(),
                    origin: row
                        .condition_origin
                        .clone()
                        .unwrap_or_else(|| "the manifest's assertion".into()),
                });
                let session = self.with_decide(Some(Property::Condition)).shader(shader);
                let mut program = session.load_file(&row.path)?;
                if let Some(c) = &mut program.condition {
                    c.filter = None;
                }
                session.check_program(&row.path.display().to_string(), &program)
            }
        }
    }

    /// Runs a shader manifest's rows ([`crate::analysis::manifest`]), each
    /// checked by `run` (in order, or on a thread pool).
    pub fn manifest_suite(
        &self,
        manifest: &Path,
        inputs: Option<&Path>,
        shard: Option<(usize, usize)>,
        run: &SuiteRunner<'_>,
    ) -> Result<Summary, Error> {
        let start = Instant::now();
        let (mut items, bad_rows) =
            suite::plan_manifest(manifest, inputs, self.input_bound()).map_err(Error::Usage)?;
        let mut info = None;
        if let Some((k, n)) = shard {
            info = Some(suite::ShardInfo::of(&items, k, n, Property::Races));
            items = suite::shard(items, k, n);
        }
        let results = self.run_rows(&items, run);
        let mut summary = suite::score(&items, results, bad_rows, Property::Races, start.elapsed());
        summary.shard = info;
        Ok(summary)
    }

    /// Runs a suite in order: every `.test` file below `dir`, or the rows
    /// of an expected-verdicts CSV about `property`.
    ///
    /// ```
    /// let s = vkmm::Session::new().suite("tests/fixtures/litmus", None, vkmm::Property::Condition).unwrap();
    /// assert_eq!(s.passed, s.total);
    /// ```
    pub fn suite(
        &self,
        dir: impl AsRef<Path>,
        expected: Option<&Path>,
        property: Property,
    ) -> Result<Summary, Error> {
        self.suite_with(dir, expected, property, None, &|session, items| {
            items.iter().map(|i| session.suite_item(i)).collect()
        })
    }

    /// [`Session::suite`] for shard `k` of `n` (`shard`, see
    /// [`suite::shard`]), its items checked by `run` (in order, or on a
    /// thread pool: results in item order).
    pub fn suite_with(
        &self,
        dir: impl AsRef<Path>,
        expected: Option<&Path>,
        property: Property,
        shard: Option<(usize, usize)>,
        run: &SuiteRunner<'_>,
    ) -> Result<Summary, Error> {
        let start = Instant::now();
        let (mut items, bad_rows) =
            suite::plan_within(dir.as_ref(), expected, self.input_bound()).map_err(Error::Usage)?;
        let mut info = None;
        if let Some((k, n)) = shard {
            info = Some(suite::ShardInfo::of(&items, k, n, property));
            items = suite::shard(items, k, n);
        }
        let mut session = self.with_decide(expected.map(|_| property));
        if property == Property::Termination && session.termination.is_none() {
            session.termination = Some(Progress::default());
        }
        let results = session.run_rows(&items, run);
        let mut summary = suite::score(&items, results, bad_rows, property, start.elapsed());
        summary.shard = info;
        Ok(summary)
    }

    /// Checks a suite's `items` with `run`, then checks again, one at a
    /// time, each item the memory bound stopped in a pass where rows ran
    /// at once. The bound (`--max-memory`) is the process's: rows running
    /// at once share it, so a row stopped then may have been stopped by
    /// what its neighbours held. Run alone it has the whole bound, and its
    /// answer no longer depends on the number of jobs or on which rows it
    /// met.
    fn run_rows(
        &self,
        items: &[SuiteItem],
        run: &SuiteRunner<'_>,
    ) -> Vec<Result<Checked, FileError>> {
        let rows = Arc::new(RowsInFlight::default());
        let pass = Session {
            rows: Some(Arc::clone(&rows)),
            ..self.clone()
        };
        let mut results = run(&pass, items);
        if rows.overlapped.load(std::sync::atomic::Ordering::SeqCst) {
            for (item, result) in items.iter().zip(results.iter_mut()) {
                let at_memory_bound = match result {
                    Ok(c) => c.stopped_by() == Some(crate::engine::LimitKind::MaxMemory),
                    Err(e) => e.error.contains(crate::memory::MEMORY_IS_UP),
                };
                if at_memory_bound {
                    *result = self.suite_item(item);
                }
            }
        }
        results
    }

    /// A session like this one that decides `property` early (it shares
    /// only the cache of loaded models).
    pub fn with_decide(&self, decide: Option<Property>) -> Session {
        Session {
            model: self.model.clone(),
            nochains_model: self.nochains_model.clone(),
            limits: self.limits,
            options: self.options.clone(),
            decide,
            termination: self.termination.clone(),
            progress: self.progress.clone(),
            models: Arc::clone(&self.models),
            rows: None,
        }
    }
}

/// A termination check with its witness drawn ([`Session::explain_termination`]).
#[derive(Clone, Debug, serde::Serialize)]
pub struct TerminationExplanation {
    #[serde(flatten)]
    pub outcome: crate::analysis::termination::TerminationOutcome,
    /// Every binding and family the wording labels (what pictures may draw).
    #[serde(skip)]
    pub relation_names: Vec<String>,
    /// What pictures draw by default (the wording's `picture` line).
    #[serde(skip)]
    pub picture: Vec<String>,
}

/// The checker's per-thread path walk ([`crate::engine::trace::explore_with_domains`])
/// under a front end's bounds, giving each location's value domain: the
/// walk a front end's own search runs ([`crate::frontend::clock::DomainWalk`]).
fn domain_walk(
    program: &Program,
    bounds: &crate::frontend::clock::FrontEndBounds,
) -> Result<Vec<Vec<i64>>, crate::frontend::clock::WalkStop> {
    let mut limits = Limits::default();
    limits.bounds.deadline = bounds.deadline;
    limits.bounds.timeout = bounds.timeout;
    limits.bounds.max_memory = bounds.max_memory;
    if let Some(n) = bounds.max_paths {
        limits.bounds.max_paths = n;
    }
    if let Some(n) = bounds.unroll {
        limits.bounds.unroll = n;
    }
    let plan = crate::engine::PathPlan::of(&limits);
    crate::engine::trace::explore_with_domains(program, &limits, plan)
        .map(|(_, domains)| domains)
        .map_err(|e| match e.limit {
            Some(_) => crate::frontend::clock::WalkStop::Limit(e.message),
            None => crate::frontend::clock::WalkStop::Error(e.message),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each session reads files under its own memory bound, whatever other
    /// sessions of the process set. `examples/mp.litmus` has 808 bytes: a
    /// session bounded at 512 bytes refuses it (a file larger than the
    /// memory bound), one with the default bound (4 GiB) reads and checks
    /// it, complete (mp's `forall`: the message always arrives). Both
    /// sessions exist before either reads, the small bound made last (a
    /// bound kept by the process, the last one set, would make the
    /// default session refuse the file too), and they read at once on
    /// two threads, many times over.
    #[test]
    fn two_sessions_read_files_under_their_own_memory_bounds() {
        let path = "examples/mp.litmus";
        assert_eq!(std::fs::metadata(path).unwrap().len(), 808);
        let roomy = Session::new();
        let tight = Session::new().max_memory(Some(512));
        std::thread::scope(|s| {
            let refused = s.spawn(|| {
                for _ in 0..50 {
                    match tight.check_file(path) {
                        Err(Error::Input(e)) => {
                            assert!(e.message.contains("more than the memory bound"), "{e}")
                        }
                        other => panic!("refused at 512 bytes: {:?}", other.map(|c| c.complete())),
                    }
                }
            });
            let read = s.spawn(|| {
                for _ in 0..50 {
                    let Ok(Checked::Litmus(o)) = roomy.check_file(path) else {
                        panic!("read under the default bound");
                    };
                    assert!(!o.truncated);
                    assert_eq!(o.condition_holds, Some(true));
                }
            });
            refused.join().unwrap();
            read.join().unwrap();
        });
        // A request's bound holds only while its front end runs.
        assert_eq!(
            crate::frontend::clock::input_bound(),
            Some(crate::memory::DEFAULT_MAX_MEMORY)
        );
    }

    /// A suite pass over mp.test in which `runner` answers every row with
    /// `first` (as a row a bound stopped reads) and, when `neighbour`,
    /// keeps a second row running beside them. Returns whether the suite's
    /// one file ends decided.
    fn suite_pass(neighbour: bool, first: &str) -> bool {
        let dir = std::env::temp_dir().join(format!(
            "vkmm-rows-{}-{neighbour}-{}",
            std::process::id(),
            first.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy("examples/mp.test", dir.join("mp.test")).unwrap();
        let runner = |pass: &Session, items: &[SuiteItem]| {
            let rows = pass.rows.as_deref().expect("a suite pass counts its rows");
            let _beside = neighbour.then(|| RowRunning::start(rows));
            items
                .iter()
                .map(|i| {
                    let _row = RowRunning::start(rows);
                    Err(FileError {
                        file: i.path.display().to_string(),
                        error: first.to_string(),
                    })
                })
                .collect()
        };
        let summary = Session::new()
            .suite_with(&dir, None, Property::Condition, None, &runner)
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        summary.passed > 0 && summary.passed == summary.total
    }

    /// A row the memory bound stopped in a pass where rows ran at once
    /// runs again alone, under the whole bound, and is decided; a row that
    /// ran alone, or one another bound stopped, keeps its answer without
    /// a second run.
    #[test]
    fn rows_a_shared_memory_bound_stopped_run_again_alone() {
        let memory = format!(
            "{} while naga compiled the shader",
            crate::memory::MEMORY_IS_UP
        );
        let time = format!(
            "{} while naga compiled the shader",
            crate::frontend::clock::TIME_IS_UP
        );
        assert!(suite_pass(true, &memory));
        assert!(!suite_pass(false, &memory));
        assert!(!suite_pass(true, &time));
    }
}

//! The command line's arguments (clap).

use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use vkmm::{DEFAULT_MAX_EXECUTIONS, DEFAULT_UNROLL};
use vkmm::{Property, Reduction, Reductions, Session};

#[derive(Parser)]
#[command(
    name = "vkmm",
    version,
    about = "Executable GPU memory models: litmus test verdicts under the Vulkan and SPIR-V/OpenCL memory models"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// When the command started: `--timeout` counts from here.
pub fn started() -> web_time::Instant {
    static STARTED: std::sync::OnceLock<web_time::Instant> = std::sync::OnceLock::new();
    *STARTED.get_or_init(web_time::Instant::now)
}

impl Cli {
    /// The output format a command was asked for (JSON errors need it).
    pub fn format(&self) -> (OutputFormat, &'static str) {
        match &self.command {
            Command::Check { args, .. } => (args.format, "check"),
            Command::Explain { args, .. } => (args.format, "explain"),
            Command::Show { .. } => (OutputFormat::Text, "show"),
            Command::Compare { format, .. } => (*format, "compare"),
            Command::Diff { format, .. } => (*format, "diff"),
            Command::Gen { format, .. } => (*format, "gen"),
            Command::Refines { format, .. } => (*format, "refines"),
            Command::Suite { args, .. } => (args.format, "suite"),
            Command::Merge { format, .. } => (*format, "merge"),
            Command::Devices { format } => (*format, "devices"),
            Command::Run { args, .. } => (args.format, "run"),
        }
    }

    /// The `--timeout` of a command whose whole run it bounds, its report
    /// included (`suite` gives each row its own; `merge` has none).
    pub fn timeout(&self) -> Option<std::time::Duration> {
        match &self.command {
            Command::Check { args, .. }
            | Command::Explain { args, .. }
            | Command::Show { args, .. }
            | Command::Run { args, .. } => args.limits.timeout,
            Command::Compare { limits, .. }
            | Command::Refines { limits, .. }
            | Command::Diff { limits, .. }
            | Command::Gen { limits, .. } => limits.timeout,
            Command::Suite { .. } | Command::Merge { .. } | Command::Devices { .. } => None,
        }
    }
}

/// Which outcomes of a family's skeletons become tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutcomesArg {
    /// The outcomes some model forbids.
    Forbidden,
    /// Every outcome of every candidate execution.
    All,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OutputFormat {
    /// vkmm's text report.
    Text,
    /// JSON under the versioned schema of docs/json.md.
    Json,
    /// herd7's own output format (litmus tests of `check` only).
    Herd,
}

/// Which search `--engine` names.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Default)]
pub enum Engine {
    /// The search with its reductions on (`--no REDUCTION` turns one off).
    #[default]
    Default,
    /// Every reduction off (`Limits::reference`): the reference enumeration
    /// the differential tests compare with.
    Reference,
}

#[derive(clap::Args)]
pub struct ModelArgs {
    /// Model: a built-in name (vulkan, vulkan-nochains, vulkan-fr-asmo,
    /// vulkan-alloy-pre40, vulkan-tess-vmm, vulkan-host-device-atomics, vulkan-shcall-wide,
    /// vulkan-shcall-mid, vulkan-shcall-narrow, vulkan-coopmat-single,
    /// vulkan-dat3m, vulkan-dat3m-nochains, pops and its variants, opencl,
    /// opencl-totalsc, opencl-nothinair, opencl-groupsync, ptx (PTX, read
    /// from OpenCL litmus files); an unknown name lists them) or a .cat
    /// file. Default: opencl for OpenCL litmus
    /// files, vulkan for the others.
    #[arg(long, help_heading = "Model")]
    pub model: Option<String>,
    /// Model for `.test` queries marked NOCHAINS. Default: the model's
    /// declared companion (vulkan-nochains for vulkan), else the model itself.
    #[arg(long, help_heading = "Model")]
    pub nochains_model: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    pub format: OutputFormat,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Progress model for `--property termination`: FAIR, OBE, HSA, HSA_OBE,
    /// LOBE, UNFAIR, or one per level (`workgroup=OBE,subgroup=HSA,default=FAIR`).
    /// Default: FAIR.
    #[arg(long, value_name = "MODEL", help_heading = "Model")]
    pub progress: Option<vkmm::analysis::termination::Progress>,
}

/// Bounds on the enumeration and front-end readings.
#[derive(clap::Args)]
pub struct LimitArgs {
    /// Loop unrolling bound: a statement runs at most N+1 times on a path;
    /// executions needing more are cut, counted and reported. An iteration
    /// whose going round again does not depend on memory (a loop over a
    /// constant count or an invocation's cells), or that moves a counter
    /// towards the constant its loop's test compares it with, is not
    /// counted, up to 64 per path; past those, a loop no memory decides
    /// whose counter moves towards a constant bound runs up to 1,024 more
    /// iterations uncounted.
    #[arg(long, default_value_t = DEFAULT_UNROLL, value_parser = clap::value_parser!(u16).range(0..=1000).map(usize::from), help_heading = "Bounds")]
    pub unroll: usize,
    /// The most model evaluations per litmus test: candidate executions, and
    /// the partial ones the search evaluates to prune. Past it the result is
    /// reported as truncated.
    #[arg(long, default_value_t = DEFAULT_MAX_EXECUTIONS, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Bounds")]
    pub max_executions: u64,
    /// OpenCL `local` variables named by threads of several workgroups:
    /// `per-workgroup` (one instance per workgroup, as the specification
    /// says) or `shared` (one location, as herd7 and Dat3M read them).
    #[arg(long, default_value = "per-workgroup", help_heading = "Readings")]
    pub local_memory: vkmm::frontend::LocalMemory,
    /// What a SPIR-V access whose runtime index names no cell of its
    /// variable does: `undefined` (undefined behaviour, as SPIR-V says:
    /// the access is not made and reports name the executions taking it)
    /// or `flat` (Dat3M's byte-addressed memory: elements past the end are
    /// more locations of the variable, which other invocations meet).
    #[arg(long, default_value = "undefined", help_heading = "Readings")]
    pub out_of_bounds: vkmm::frontend::OutOfBoundsReading,
    /// How a SPIR-V module declaring the GLSL450 (or Simple) memory model
    /// is read: `coherent` (as GLSL compilers and drivers read it: accesses
    /// to `Coherent`/Workgroup variables carry availability and visibility,
    /// Device/Workgroup scope), `strict` (literally: every plain access
    /// is private, the `Coherent` decoration does nothing) or `wgsl` (the
    /// WGSL specification's mapping: storage and workgroup accesses
    /// non-private at Workgroup scope; what `coherent` means for a WGSL
    /// shader).
    #[arg(long, default_value = "coherent", help_heading = "Readings")]
    pub legacy_memory_model: vkmm::frontend::LegacyMemoryModel,
    #[command(flatten)]
    pub shader: ShaderArgs,
    /// Wall-clock limit, in seconds, on the whole command: reading,
    /// front end and lowering, paths, orders, relations, model evaluation
    /// and output, and every search of `compare` and `refines`, counted
    /// from the start of the command (for `suite`, from the start of each
    /// row: each row gets this long). A command stopped by it reports
    /// undecided (exit code 3).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Bounds")]
    pub timeout: Option<std::time::Duration>,
    /// `reference`: every reduction of the search off (the reference
    /// enumeration, the oracle of the differential tests). The same
    /// answers, more time.
    #[arg(long, value_enum, default_value_t = Engine::Default, long_help = engine_help(), help_heading = "Engine")]
    pub engine: Engine,
    /// Turn these reductions off (`--engine` lists them).
    #[arg(
        long = "no",
        value_name = "REDUCTION[,...]",
        value_delimiter = ',',
        hide = true
    )]
    pub no: Vec<Reduction>,
    /// Drop the thread paths the unrolling bound cuts, instead of also
    /// judging races on the executions in which such a thread stops at
    /// the bound (a race there is a race within the bound, as Dat3M's
    /// unrolled program finds it). Either way, a "no race" answer with
    /// cut paths is undecided.
    #[arg(long, hide = true)]
    pub no_prefix_races: bool,
    /// The most paths one thread may have; past it the answer is undecided
    /// (exit code 3).
    #[arg(long, value_name = "N", default_value_t = vkmm::DEFAULT_MAX_PATHS, value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize), help_heading = "Bounds")]
    pub max_paths: usize,
    /// The order limit: every order of a location with at most N ordered
    /// writes is listed (orders grow as the factorial of N); a location with
    /// more is listed when that takes at most as many steps as every order
    /// of min(N, 8) unconstrained writes (RMW chains and read-write
    /// coherence keep orders few); at most N sequentially consistent
    /// operations are ordered. Combinations of paths needing more are
    /// skipped and the answer is undecided (exit code 3).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=12).map(usize::from), help_heading = "Bounds")]
    pub max_writes: usize,
    /// Memory bound in MiB for the whole process (0: none); a search that
    /// reaches it stops and its answer is undecided (exit code 3).
    #[arg(long, value_name = "MIB", default_value_t = (vkmm::DEFAULT_MAX_MEMORY >> 20) as u64, value_parser = clap::value_parser!(u64).range(0..=(1 << 30)), help_heading = "Bounds")]
    pub max_memory: u64,
}

/// How shaders (GLSL, WGSL, HLSL, SPIR-V) are compiled and dispatched.
#[derive(clap::Args)]
#[command(next_help_heading = "Shader dispatch")]
pub struct ShaderArgs {
    /// Workgroup size to check at, in place of the shader's own
    /// (`local_size_x`, `@workgroup_size`, `LocalSize`): X[,Y[,Z]].
    /// Shaders are checked exhaustively, so keep it small (2 to 8).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = vkmm::frontend::ShaderOptions::parse_dims)]
    pub local_size: Option<[u32; 3]>,
    /// Number of workgroups to dispatch: X[,Y[,Z]]. Default: 1.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = vkmm::frontend::ShaderOptions::parse_dims)]
    pub workgroups: Option<[u32; 3]>,
    /// Invocations per subgroup (must divide the workgroup size).
    /// Default: the whole workgroup in one subgroup.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub subgroup_size: Option<u32>,
    /// Define a preprocessor macro (GLSL, HLSL), as the project's build does.
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]", value_parser = vkmm::frontend::ShaderOptions::parse_define)]
    pub defines: Vec<(String, Option<String>)>,
    /// Add a folder to the include path (after the shader's own folder).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Check the shader as if a constant it fixes in its own text had this
    /// value: a `#define` (GLSL, HLSL), a `const` or `override` (WGSL), a
    /// spec constant by name or SpecId (SPIR-V). Repeatable.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = vkmm::frontend::ShaderOptions::parse_set)]
    pub set: Vec<(String, String)>,
    /// Entry point to check, where the file has several.
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// What a buffer, uniform or push constant holds at the start: `zero`,
    /// `arbitrary`, or integers `a,b,c`. TARGET is the variable's name, its
    /// block's type name or SET.BINDING, then `.field` / `[i]` steps.
    /// Repeatable. Default: zero.
    #[arg(long = "input", value_name = "TARGET=VALUE", value_parser = vkmm::frontend::inputs::Input::parse)]
    pub inputs: Vec<vkmm::frontend::inputs::Input>,
    /// A dispatch file (TOML: local_size, workgroups, subgroup_size,
    /// defines, include, set, entry, assert, extent, [inputs]); the options above win over it.
    #[arg(long, value_name = "FILE.toml", value_parser = parse_dispatch_file)]
    pub dispatch: Option<vkmm::frontend::ShaderOptions>,
    /// The element count of the runtime array a buffer ends with.
    /// Repeatable. Default: 1.
    #[arg(long = "length", value_name = "TARGET=N", value_parser = vkmm::frontend::inputs::Input::parse_length)]
    pub lengths: Vec<vkmm::frontend::inputs::Input>,
    /// The size of an image (or of each image of an array of them), one
    /// extent per coordinate: x, y, z as its dimensionality has them, then
    /// the layer of an arrayed image, then the sample. Repeatable.
    /// Default: 1 per coordinate.
    #[arg(long = "extent", value_name = "TARGET=WxH[xD]", value_parser = vkmm::frontend::inputs::Input::parse_extent)]
    pub extents: Vec<vkmm::frontend::inputs::Input>,
    /// A condition on the final memory, in place of the shader's own: a
    /// manifest's assertion (`out[0] == 2 in every execution`, `... in some
    /// execution`, `... in no execution`) or `forall|exists|not exists
    /// (EXPR)`; names as in the shader (`out[0]`, `Buf.count`).
    #[arg(long = "assert", value_name = "CONDITION")]
    pub assertion: Option<String>,
}

impl ShaderArgs {
    /// The dispatch file's options, with the command line's on top.
    pub fn options(&self) -> vkmm::frontend::ShaderOptions {
        let mut o = self.dispatch.clone().unwrap_or_default();
        o.local_size = self.local_size.or(o.local_size);
        o.workgroups = self.workgroups.or(o.workgroups);
        o.subgroup_size = self.subgroup_size.or(o.subgroup_size);
        o.defines.extend(self.defines.iter().cloned());
        o.include_dirs.extend(self.include_dirs.iter().cloned());
        for (name, value) in &self.set {
            o.set.retain(|(n, _)| n != name);
            o.set.push((name.clone(), value.clone()));
        }
        o.entry = self.entry.clone().or(o.entry);
        o.inputs.extend(
            self.inputs
                .iter()
                .chain(&self.lengths)
                .chain(&self.extents)
                .cloned(),
        );
        if let Some(text) = &self.assertion {
            o.assertion = Some(vkmm::frontend::assertion::Asserted {
                text: text.clone(),
                origin: "--assert".into(),
            });
        }
        o
    }
}

/// Reads a dispatch file into the options it gives.
fn parse_dispatch_file(path: &str) -> Result<vkmm::frontend::ShaderOptions, String> {
    let mut o = vkmm::frontend::ShaderOptions::default();
    vkmm::frontend::inputs::read_dispatch_file(std::path::Path::new(path), &mut o)
        .map_err(|e| e.to_string())?;
    Ok(o)
}

impl LimitArgs {
    pub fn session(&self) -> Session {
        Session::new()
            .shader(self.shader.options())
            .unroll(self.unroll)
            .max_executions(self.max_executions)
            .local_memory(self.local_memory)
            .out_of_bounds(self.out_of_bounds)
            .legacy_memory_model(self.legacy_memory_model)
            .timeout(self.timeout)
            .deadline(self.timeout.map(|t| started() + t))
            .reductions(self.reductions())
            .prefix_races(!self.no_prefix_races)
            .max_paths(self.max_paths)
            .max_writes(self.max_writes)
            .max_memory((self.max_memory > 0).then_some((self.max_memory as usize) << 20))
    }

    /// The reductions the search may use: none under `--engine
    /// reference`, else all but those `--no` names.
    pub fn reductions(&self) -> Reductions {
        match self.engine {
            Engine::Reference => Reductions::none(),
            Engine::Default => self
                .no
                .iter()
                .fold(Reductions::all(), |set, r| set.without(*r)),
        }
    }
}

impl ModelArgs {
    pub fn session(&self) -> Session {
        let mut s = self.limits.session();
        if let Some(m) = &self.model {
            s = s.model(m);
        }
        if let Some(m) = &self.nochains_model {
            s = s.nochains_model(m);
        }
        s
    }

    /// [`ModelArgs::session`], checking termination when `property` asks for it.
    pub fn session_for(&self, property: Option<Property>) -> Session {
        let s = self.session();
        if property == Some(Property::Termination) || self.progress.is_some() {
            s.termination(Some(self.progress.clone().unwrap_or_default()))
        } else if matches!(property, Some(Property::States | Property::Races)) {
            s.decide(property)
        } else {
            s
        }
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Check litmus files: for `.test`, each query's expected and actual answer;
    /// for `.litmus`, the herd-style outcome list, condition verdict and races.
    #[command(
        after_help = "Examples:\n  vkmm check examples/mp.litmus\n  vkmm check --property races --local-size 2 --length out=1 examples/shaders/counter.wgsl"
    )]
    Check {
        /// The test files (`.test`, `.litmus`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
        /// `termination`: instead of the outcome list, whether every
        /// execution the progress model (--progress) allows ends, with a
        /// witness when one runs forever. `states`: the outcome list with
        /// one witness per final state (complete in its states, faster;
        /// the counts are witnesses, and races are reported only when a
        /// witness shows one).
        #[arg(long, help_heading = "Output")]
        property: Option<Property>,
        /// Threads one search may use: the parts of a test's search are
        /// explored in parallel, with the same answers (1: sequential).
        /// Default: one per core. The files are checked one after the
        /// other, each with these threads.
        #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024).map(usize::from), help_heading = "Bounds")]
        threads: Option<usize>,
    },
    /// Explain an outcome: a witness if it is allowed; if it is forbidden, the
    /// axiom rejecting each candidate execution and a shortest cycle with
    /// every edge named; and a diagnosis of each data race.
    #[command(
        after_help = "Examples:\n  vkmm explain examples/mp.litmus --outcome 'P1:r1 == 0'\n  vkmm explain --progress HSA examples/spin-wait.litmus"
    )]
    Explain {
        /// The test file.
        file: PathBuf,
        /// The outcome, in the condition syntax of the test (default: the
        /// test's own condition; `.test` files: any execution of their pinned values).
        #[arg(long)]
        outcome: Option<String>,
        /// Wording of the model's checks and relations (`.explain` file);
        /// default: the one the model declares.
        #[arg(long)]
        explain_spec: Option<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
        /// `termination`: explain whether the program can run forever under
        /// the progress model (--progress, which alone implies it): the
        /// witness execution with the iterations that repeat forever marked.
        #[arg(long, help_heading = "Output")]
        property: Option<Property>,
    },
    /// Draw an execution as Graphviz: the witness of an allowed outcome, or a
    /// rejected execution with its cycle for a forbidden one (with
    /// `--property termination`, the witness of a program that runs forever). Prints DOT to
    /// standard output unless --dot/--svg/--png name files.
    #[command(
        after_help = "Examples:\n  vkmm show examples/mp.litmus --outcome 'P1:r1 == 0' --svg mp.svg\n  vkmm show examples/mp.litmus --relations rf,asmo > mp.dot"
    )]
    Show {
        /// The test file.
        file: PathBuf,
        /// The outcome to draw (default: the test's condition).
        #[arg(long)]
        outcome: Option<String>,
        /// Wording of the model's checks and relations (`.explain` file).
        #[arg(long)]
        explain_spec: Option<PathBuf>,
        /// Write the DOT text here.
        #[arg(long)]
        dot: Option<PathBuf>,
        /// Render SVG with Graphviz `dot`.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Render PNG with Graphviz `dot`.
        #[arg(long)]
        png: Option<PathBuf>,
        /// Relations to draw (bindings or families: rf,fr,asmo,locord,sw,hb...; default all labelled).
        #[arg(long, value_delimiter = ',')]
        relations: Vec<String>,
        #[command(flatten)]
        args: ModelArgs,
        /// `termination`: draw the witness of a program that can run
        /// forever under the progress model (--progress, which alone implies
        /// it), the iterations that repeat forever filled.
        #[arg(long, help_heading = "Output")]
        property: Option<Property>,
    },
    /// Run tests under several models and show where they differ: for
    /// `.litmus` files the reachable final states side by side (and the
    /// condition and race verdicts), for `.test` files each query's answer.
    #[command(
        after_help = "Examples:\n  vkmm compare --models vulkan,vulkan-nochains examples/mp.litmus\n  vkmm compare --models vulkan,opencl examples/opencl-sb-sc.litmus examples/opencl-mp.litmus"
    )]
    Compare {
        /// The test files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Comma-separated models (built-in names or .cat files).
        #[arg(long, value_delimiter = ',', default_value = "vulkan,vulkan-nochains")]
        models: Vec<String>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
        /// Exit with status 1 when some test's answers differ between the models
        /// (default: 0, the comparison is information).
        #[arg(long)]
        fail_on_difference: bool,
    },
    /// Search for the smallest litmus tests on which two models disagree (an
    /// outcome one allows and the other forbids, or a race one reports and
    /// the other does not), exhaustively up to a bound, modulo symmetry
    /// (docs/synthesis.md). Each test found is confirmed by the ordinary
    /// check under both models and minimised. Exit 1 when the models
    /// differ, 0 when no test up to the bound tells them apart, 3 when a
    /// limit stopped the search first (undecided).
    #[command(
        after_help = "Examples:\n  vkmm diff --models vulkan,vulkan-dat3m --vocabulary plain --scopes dv --locations 1\n  vkmm diff --models vulkan,my.cat --threads 2 --events 2 --out found/"
    )]
    Diff {
        /// The two models (built-in names or .cat files), comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        models: Vec<String>,
        /// The most threads of a test.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4).map(usize::from), help_heading = "Search")]
        threads: usize,
        /// The most events (instructions) per thread.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=6).map(usize::from), help_heading = "Search")]
        events: usize,
        /// The most locations.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4).map(usize::from), help_heading = "Search")]
        locations: usize,
        /// Instruction families: plain, atomic, acqrel, avvis, semavvis, rmw,
        /// membar, cbar, device (comma-separated).
        #[arg(
            long,
            default_value = "plain,atomic,acqrel,avvis",
            help_heading = "Search"
        )]
        vocabulary: String,
        /// Scopes of atomics, barriers and av/vis accesses: sg, wg, qf, dv, inv.
        #[arg(long, default_value = "wg,dv", help_heading = "Search")]
        scopes: String,
        /// Storage classes (sc0 .. scN-1).
        #[arg(long, default_value_t = 1, help_heading = "Search")]
        classes: usize,
        /// Stop after this many distinguishing tests (all of the smallest size found).
        #[arg(long, default_value_t = 1, help_heading = "Search")]
        max_tests: usize,
        /// Write each test found, with both models' verdicts and explanations,
        /// as DIR/NAME.litmus.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Generate Vulkan litmus tests with each model's verdicts: from cycles
    /// of relations, diy-style (`vkmm gen "Rfe.dv.rel-acq PodRR Fre.dv"`),
    /// every test of a bound (`--family`), or the mutants of tests whose
    /// outcome a model forbids (`--mutants`) (docs/synthesis.md).
    #[command(
        after_help = "Examples:\n  vkmm gen 'Rfe.dv.rel-acq PodRR Fre.dv' 'PodWW Rfe.wg PodRR Fre.wg'\n  vkmm gen --models vulkan,vulkan-dat3m --out gen/ 'PosWW Rfe PosRR Fre'\n  vkmm gen --family --threads 2 --events 2 --locations 2 --vocabulary plain,acqrel --scopes dv --out fam/\n  vkmm gen --mutants fam/ --out mutants/"
    )]
    Gen {
        /// Cycles, each one argument: edges separated by spaces.
        #[arg(required_unless_present_any = ["family", "mutants"], conflicts_with_all = ["family", "mutants"])]
        cycles: Vec<String>,
        /// Every test of the bound (--threads, --events, --locations) over
        /// the vocabulary, one per outcome (--outcomes), modulo thread
        /// symmetry and location renaming.
        #[arg(long, conflicts_with = "mutants", help_heading = "Family")]
        family: bool,
        /// The mutants of each test of FILE or of every .litmus file below
        /// DIR whose `exists` outcome the first model forbids: the weakened variants (a scope
        /// narrowed, an acquire or release dropped, a barrier removed,
        /// av/vis dropped) that it allows.
        #[arg(long, value_name = "FILE|DIR", help_heading = "Family")]
        mutants: Option<PathBuf>,
        /// The most threads of a family's test.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4).map(usize::from), help_heading = "Family")]
        threads: usize,
        /// The most events (instructions) per thread.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=6).map(usize::from), help_heading = "Family")]
        events: usize,
        /// The most locations.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4).map(usize::from), help_heading = "Family")]
        locations: usize,
        /// Instruction families: plain, atomic, acqrel, avvis, semavvis, rmw,
        /// membar, cbar, device, or instruction forms (comma-separated).
        #[arg(
            long,
            default_value = "plain,atomic,acqrel,avvis",
            help_heading = "Family"
        )]
        vocabulary: String,
        /// Scopes of atomics, barriers and av/vis accesses: sg, wg, qf, dv, inv.
        #[arg(long, default_value = "wg,dv", help_heading = "Family")]
        scopes: String,
        /// Storage classes (sc0 .. scN-1).
        #[arg(long, default_value_t = 1, help_heading = "Family")]
        classes: usize,
        /// Which outcomes of each skeleton become tests: those some model
        /// forbids, or all.
        #[arg(long, value_enum, default_value = "forbidden", help_heading = "Family")]
        outcomes: OutcomesArg,
        /// The models whose verdicts the files record (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "vulkan")]
        models: Vec<String>,
        /// Write each test as DIR/NAME.litmus.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Check that an implementation model refines a specification model:
    /// every final state the implementation allows for a litmus test is one
    /// the specification allows; each one that is not is reported with a
    /// witness and the specification's explanation (docs/interlock.md).
    /// Exit 1 when some test has a violation.
    #[command(
        after_help = "Examples:\n  vkmm refines --impl pops --spec vulkan tests/fixtures/litmus-interlock/*.litmus"
    )]
    Refines {
        /// The litmus files.
        #[arg(required_unless_present = "mapping")]
        files: Vec<PathBuf>,
        /// A compiler mapping (TOML, docs/mappings.md): check it on every
        /// test of the bound (--threads, --events, --locations) over its
        /// source instructions, instead of on files.
        #[arg(
            long,
            value_name = "FILE",
            conflicts_with = "files",
            help_heading = "Mapping"
        )]
        mapping: Option<PathBuf>,
        /// The most threads of a mapped test.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4).map(usize::from), help_heading = "Mapping")]
        threads: usize,
        /// The most events (source instructions) per thread.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=6).map(usize::from), help_heading = "Mapping")]
        events: usize,
        /// The most locations.
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4).map(usize::from), help_heading = "Mapping")]
        locations: usize,
        /// The implementation model (e.g. pops, pops-done-early).
        #[arg(long = "impl", value_name = "MODEL")]
        implementation: String,
        /// The specification model.
        #[arg(long, default_value = "vulkan")]
        spec: String,
        #[command(flatten)]
        limits: LimitArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Check every litmus file below a folder, in parallel, and summarise.
    /// With --expected, check the rows of an expected-verdicts CSV instead;
    /// with --manifest, the rows of a shader manifest.
    #[command(
        after_help = "Examples:\n  vkmm suite tests/fixtures/litmus-vulkan -j 2\n  vkmm suite DIR --expected expected.csv --property races --junit results.xml"
    )]
    Suite {
        /// The folder (CSV paths are relative to it).
        dir: Option<PathBuf>,
        /// A shader manifest (CSV: file, entry, local_size, workgroups,
        /// defines, set, inputs, property, expected): each row's shader
        /// checked at its dispatch against its verdict (docs/checking-your-shader.md).
        #[arg(long, value_name = "MANIFEST.csv", conflicts_with = "expected")]
        manifest: Option<PathBuf>,
        /// The manifest rows' inputs in vkmm's spelling (TOML `[[shader]]`
        /// tables keyed by file, entry and rows).
        #[arg(long, value_name = "INPUTS.toml", requires = "manifest")]
        inputs: Option<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
        /// `path,verdict` CSV (paths relative to DIR; 1 = the property holds).
        #[arg(long)]
        expected: Option<PathBuf>,
        /// The property the CSV's verdicts are about: condition, races or
        /// termination (under --progress); `states` is refused (a listing,
        /// not a verdict).
        #[arg(long, default_value = "condition")]
        property: Property,
        /// Worker threads (default: one per core).
        #[arg(short = 'j', long, value_parser = clap::value_parser!(u16).range(1..=1024).map(usize::from))]
        jobs: Option<usize>,
        /// Also write the results as JUnit XML to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Run only shard K of N (K in 1..=N): every N-th item from the K-th.
        /// `vkmm merge` puts the shards' JSON back together.
        #[arg(long, value_name = "K/N", value_parser = parse_shard)]
        shard: Option<(usize, usize)>,
        /// How --junit reports an undecided check: `skip` (a skipped test
        /// case with the reason) or `fail` (a failure).
        #[arg(long, value_name = "POLICY", default_value = "skip", value_parser = ["skip", "fail"])]
        undecided: String,
    },
    /// List the Vulkan devices `vkmm run --device` can pick (index, name,
    /// driver, memory model features).
    #[command(after_help = "Example:\n  vkmm devices --format json")]
    Devices {
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Run litmus tests on a Vulkan device and judge every observed final
    /// state under the model (vulkan, or vulkan-nochains when the device
    /// lacks availability/visibility chains); a forbidden observation is a
    /// finding (exit 1), explained as `vkmm explain --outcome` would.
    #[command(
        after_help = "Examples:\n  vkmm run examples/mp.litmus\n  vkmm run --device 0 --preset heavy --iterations 1000 examples/mp.litmus"
    )]
    Run {
        /// The test files (Vulkan `.litmus`, Alloy `.test`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        device: DeviceArgs,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Merge the JSON of several `vkmm suite --format json` runs (e.g. shards
    /// from a CI matrix) into one summary, with the suite's exit code.
    #[command(
        after_help = "Example:\n  vkmm suite DIR --shard 1/2 --format json > s1.json   (and 2/2 > s2.json)\n  vkmm merge s1.json s2.json --junit results.xml"
    )]
    Merge {
        /// The JSON files written by `vkmm suite --format json`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
        /// Also write the merged results as JUnit XML to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// How --junit reports an undecided check: `skip` (a skipped test
        /// case with the reason) or `fail` (a failure).
        #[arg(long, value_name = "POLICY", default_value = "skip", value_parser = ["skip", "fail"])]
        undecided: String,
    },
}

/// `K/N` with 1 <= K <= N.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("expected K/N (e.g. 2/4), found `{s}`"))?;
    let num = |x: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("expected K/N with whole numbers, found `{s}`"))
    };
    let (k, n) = (num(k)?, num(n)?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard `{s}`: K must be between 1 and N"));
    }
    Ok((k, n))
}

/// A positive number of seconds.
fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() && x < 1e9 => Ok(std::time::Duration::from_secs_f64(x)),
        _ => Err(format!(
            "expected a positive number of seconds, found `{s}`"
        )),
    }
}

/// Device and harness parameters of `vkmm run` (docs/device.md).
#[derive(clap::Args)]
pub struct DeviceArgs {
    /// The device: its index in `vkmm devices` or a part of its name
    /// (default: the first with the Vulkan memory model).
    #[arg(long)]
    pub device: Option<String>,
    /// Harness preset: none (instances in order, no stress), light
    /// (shuffled placement and memory, stride, a little stress) or heavy.
    #[arg(long, default_value = "light", value_parser = ["none", "light", "heavy"])]
    pub preset: String,
    /// Dispatches; each runs every instance once (default 100).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: Option<u64>,
    /// Stop each test after this many seconds even if iterations remain.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_budget: Option<std::time::Duration>,
    /// Invocations per workgroup.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workgroup_size: Option<u32>,
    /// Real workgroups per litmus workgroup.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub testing_workgroups: Option<u32>,
    /// Workgroups that only hammer scratch memory.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=4096))]
    pub stress_workgroups: Option<u32>,
    /// Loop iterations of each stress invocation.
    #[arg(long)]
    pub stress_iterations: Option<u32>,
    /// Words between test locations.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub mem_stride: Option<u32>,
    /// Permute placement and memory each iteration: true or false.
    #[arg(long)]
    pub shuffle: Option<bool>,
    /// Align testing invocations with a spin barrier: true or false.
    #[arg(long)]
    pub start_barrier: Option<bool>,
    /// The most statements a thread with loops runs before its instance is
    /// not counted (default 4096).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub step_cap: Option<u32>,
    /// Seed of the permutations.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Also write each test's shader to DIR/NAME.spv (for spirv-dis,
    /// spirv-val, or a driver bug report).
    #[arg(long, value_name = "DIR")]
    pub spirv: Option<PathBuf>,
}

impl DeviceArgs {
    pub fn params(&self) -> vkmm::device::harness::Params {
        use vkmm::device::harness::{Params, Preset};
        let preset: Preset = self.preset.parse().unwrap_or(Preset::Light);
        let mut p = Params::preset(preset);
        p.iterations = self.iterations.unwrap_or(p.iterations);
        p.time_budget_secs = self.time_budget.map(|d| d.as_secs_f64());
        p.workgroup_size = self.workgroup_size.unwrap_or(p.workgroup_size);
        p.testing_workgroups = self.testing_workgroups.unwrap_or(p.testing_workgroups);
        p.stress_workgroups = self.stress_workgroups.unwrap_or(p.stress_workgroups);
        p.stress_iterations = self.stress_iterations.unwrap_or(p.stress_iterations);
        p.mem_stride = self.mem_stride.unwrap_or(p.mem_stride);
        p.shuffle = self.shuffle.unwrap_or(p.shuffle);
        p.start_barrier = self.start_barrier.unwrap_or(p.start_barrier);
        p.seed = self.seed.unwrap_or(p.seed);
        p.step_cap = self.step_cap.unwrap_or(p.step_cap);
        p
    }
}

/// `--engine`'s long help: what `reference` turns off, one line per
/// reduction, from [`Reduction::ALL`].
fn engine_help() -> String {
    let mut h = String::from(
        "`reference`: every reduction of the search off (the reference enumeration, the \
         oracle of the differential tests): the same answers, more time. The reductions \
         (`--no REDUCTION[,...]` turns some off):\n",
    );
    for r in Reduction::ALL {
        h.push_str(&format!("  {:<22} {}\n", r.name(), r.doc()));
    }
    h
}

/// The command line with each old `--no-NAME` switch of a reduction
/// spelled `--no=NAME` (the old spellings stay accepted, out of `--help`).
/// Arguments after `--` are left alone.
pub fn with_reduction_aliases(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    let mut rest = false;
    args.into_iter()
        .map(|a| {
            if rest {
                return a;
            }
            if a == "--" {
                rest = true;
                return a;
            }
            match a.to_str().and_then(|s| s.strip_prefix("--no-")) {
                Some(name) if Reduction::from_name(name).is_some() => format!("--no={name}").into(),
                _ => a,
            }
        })
        .collect()
}

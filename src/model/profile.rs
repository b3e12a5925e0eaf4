//! Model profiles: what a model needs besides its cat text, declared by the
//! model itself in `(*@ ... *)` comments (herd7 reads them as comments).
//!
//! One declaration per line of such a comment; arguments are words or
//! `"quoted strings"`. The declarations that let the search skip work
//! state what the model must forbid for that to be sound; MODELS.md,
//! "Model profiles", gives each argument in full:
//!
//! | declaration | meaning |
//! | --- | --- |
//! | `nochains FILE` | the model `.test` queries marked `NOCHAINS` run under |
//! | `refuse FEATURE "WHO" "SENTENCE"` | programs using `FEATURE` are refused, quoting the spec |
//! | `accept FEATURE` | drops an inherited refusal |
//! | `explain FILE` | the `.explain` wording file |
//! | `races BINDING` | the racing pairs |
//! | `final-order BINDING` | orders writes for final memory values |
//! | `happens-before BINDING`, `synchronizes-with BINDING`, `program-order BINDING` | relation families explanations know |
//! | `edge-style FAMILY COLOUR LINE` | how pictures draw a relation family |
//! | `default-for DIALECT` | the built-in model tests of `DIALECT` run under by default |
//! | `host API` | the model has rules for the host side of `API` (`vulkan`, `opencl`); a program with that API's operations is refused by a model without them |
//! | `rmw-atomicity` | an RMW may read only from its immediate `asmo` predecessor among the writes `asmo` relates to it; the others are skipped unevaluated |
//! | `read-write-coherence` | no modification order puts a write before one a read of the same thread, earlier through its reference, can only read (`engine::candidates::mo_choices`) |
//! | `write-write-coherence` | a thread's writes through one reference are `asmo`-ordered as in program order when mutually ordered (`engine::candidates::coherence_pairs`) |
//! | `co-write-write-coherence` | a thread's sequenced writes to one location are `co`-ordered as sequenced; `sc0 sc1` limits it to those storage classes, `off` withdraws it (`engine::candidates::sequenced_write_pairs`) |
//! | `await-extension` | an execution spinning forever at an await that extends to a complete one is skipped (`engine::Explorer::set_spin_extension`) |
//! | `location-local-reads` | observation reads' reads-from choices are searched location by location and their product listed (`engine::candidates::observation_reads`); `off` withdraws it |
//! | `latest-own-write` | a read of a location only its thread writes reads the thread's latest write there (`engine::trace::own_locations`); `sc0 sc1` limits it, `off` withdraws it |
//! | `po-coherence` | a thread's program-ordered accesses to one location are in coherence: a read reads the write its thread's previous access there read or wrote, or one after it in coherence, another thread's when the value differs (`engine::trace::coherence`); `atomic` limits it to locations whose every access is an atomic mutually ordered with every other one, `sc0 sc1` to those storage classes, `off` withdraws it |
//!
//! Files resolve like includes: next to the declaring file, then among the
//! embedded models. Declarations of included files are inherited; a file's
//! own declarations override those of the files it includes.

use crate::cat::{Annotation, CatError, CatErrorKind, Model, Pos};
use crate::ir::host::HostApi;
use crate::ir::{Dialect, Instruction, Program};

/// A program feature a model can refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Sequentially consistent memory semantics.
    SeqCst,
    /// Shading-rate fragment shader interlock (`ShadingRateInterlock*EXT`):
    /// the program's `OpBeginInvocationInterlockEXT` under that mode.
    ShadingRateInterlock,
}

impl Feature {
    pub const ALL: &[Feature] = &[Feature::SeqCst, Feature::ShadingRateInterlock];

    /// The feature's name in declarations.
    pub fn name(self) -> &'static str {
        match self {
            Feature::SeqCst => "seq_cst",
            Feature::ShadingRateInterlock => "shading_rate_interlock",
        }
    }

    /// What an instruction using it is, in messages ("`...` is sequentially consistent").
    pub fn description(self) -> &'static str {
        match self {
            Feature::SeqCst => "sequentially consistent",
            Feature::ShadingRateInterlock => {
                "the start of a critical section under shading-rate interlock (`ShadingRateInterlock*EXT`)"
            }
        }
    }

    /// Whether `instruction` of `program` uses the feature.
    pub fn used_by(self, program: &Program, instruction: &Instruction) -> bool {
        match self {
            Feature::SeqCst => instruction.semantics.seq_cst,
            Feature::ShadingRateInterlock => {
                instruction.kind == crate::ir::OpKind::BeginInterlock
                    && program.interlock.granularity == crate::ir::InterlockGranularity::ShadingRate
            }
        }
    }

    pub fn from_name(name: &str) -> Option<Feature> {
        Self::ALL.iter().copied().find(|f| f.name() == name)
    }
}

/// A refused feature, with who refuses it and the spec sentence saying so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub feature: Feature,
    /// "the Vulkan memory model"
    pub who: String,
    pub sentence: String,
}

/// The most storage classes the semantics of one program may name: a model
/// whose rules distinguish that many (`storage-classes N "WHO" "SENTENCE"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLimit {
    pub classes: usize,
    pub who: String,
    pub sentence: String,
}

/// How pictures draw the edges of a relation family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeStyle {
    /// A binding name before its first `_` (`sw` covers `sw_atom_atom`).
    pub family: String,
    /// A Graphviz colour name or `#rrggbb`.
    pub colour: String,
    /// `solid`, `dashed`, `dotted` or `bold`.
    pub line: String,
}

/// A file a declaration names, found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// How [`crate::model::load`] loads it (a model): a path or built-in name.
    pub spec: String,
    /// Its display name (in error messages).
    pub file: String,
    pub text: String,
}

/// Finds the file `name` a declaration in the file `declaring` names.
pub type Resolver<'r> = &'r dyn Fn(&str, &str) -> Option<Resolved>;

/// Everything a model declares about itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The model for `NOCHAINS` queries (a model spec); `None`: the model itself.
    pub nochains: Option<String>,
    pub refusals: Vec<Refusal>,
    /// Programs whose semantics name more storage classes are refused.
    pub storage_classes: Option<ClassLimit>,
    /// The `.explain` wording.
    pub explain: Option<Resolved>,
    pub races: Option<String>,
    pub final_order: Option<String>,
    pub happens_before: Option<String>,
    pub synchronizes_with: Option<String>,
    pub program_order: Option<String>,
    pub edge_styles: Vec<EdgeStyle>,
    pub default_for: Vec<Dialect>,
    /// `rmw-atomicity`: see the module table.
    pub rmw_atomicity: bool,
    /// `read-write-coherence`: see the module table.
    pub read_write_coherence: bool,
    /// `write-write-coherence`: see the module table.
    pub write_write_coherence: bool,
    /// `co-write-write-coherence` (`off` withdraws an included file's):
    /// the storage classes it is declared for, as a mask (every bit when it
    /// names none; 0 when off or absent). See the module table.
    pub co_write_write_coherence: u64,
    /// `await-extension`: see the module table.
    pub await_extension: bool,
    /// `location-local-reads` (`off` withdraws an included file's): see
    /// the module table.
    pub location_local_reads: bool,
    /// `latest-own-write` (`off` withdraws an included file's): see the
    /// module table.
    pub latest_own_write: bool,
    /// The storage classes it is declared for, as a mask (bit k: `sck`;
    /// every bit when it names none; 0 when off).
    pub latest_own_write_classes: u64,
    /// `po-coherence` (`off` withdraws an included file's): the storage
    /// classes it is declared for, as a mask (every bit when it names
    /// none; 0 when off or absent). See the module table.
    pub po_coherence: u64,
    /// `po-coherence atomic`: only for locations whose every access is an
    /// atomic mutually ordered with every other one.
    pub po_coherence_atomic: bool,
    /// `host API`: the host APIs (`vulkan`, `opencl`) the model has rules
    /// for; a program with another API's operations is refused.
    pub host: Vec<HostApi>,
}

/// The family of a binding: its name before the first `_`.
pub fn family(binding: &str) -> &str {
    binding.split('_').next().unwrap_or(binding)
}

const LINE_STYLES: &[&str] = &["solid", "dashed", "dotted", "bold"];

/// A word or quoted string of a declaration, with its position.
struct Arg {
    text: String,
    pos: Pos,
}

impl Profile {
    /// The profile `model` declares (its annotations, each file's after
    /// those of its includes); `resolve` finds the files declarations name.
    pub fn of(model: &Model, resolve: Resolver<'_>) -> Result<Profile, CatError> {
        let mut profile = Profile::default();
        for a in model.annotations() {
            for decl in split(a)? {
                profile.declare(model, &decl, resolve)?;
            }
        }
        Ok(profile)
    }

    fn declare(
        &mut self,
        model: &Model,
        decl: &[Arg],
        resolve: Resolver<'_>,
    ) -> Result<(), CatError> {
        let (key, args) = decl.split_first().expect("declarations are not empty");
        let wanted = |n: usize, shape: &str| {
            if args.len() == n {
                Ok(())
            } else {
                Err(error(&key.pos, format!("`{}` takes {shape}", key.text)))
            }
        };
        let binding = |a: &Arg| -> Result<Option<String>, CatError> {
            if model.binds(&a.text) || super::names::lookup(&a.text).is_some() {
                Ok(Some(a.text.clone()))
            } else {
                Err(error(&a.pos, format!("the model binds no `{}`", a.text)))
            }
        };
        let file = |a: &Arg| {
            resolve(&a.pos.file, &a.text)
                .ok_or_else(|| error(&a.pos, format!("cannot find \"{}\"", a.text)))
        };
        let feature = |a: &Arg| {
            Feature::from_name(&a.text).ok_or_else(|| {
                let known: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
                error(
                    &a.pos,
                    format!("unknown feature `{}` (known: {})", a.text, known.join(", ")),
                )
            })
        };
        match key.text.as_str() {
            "nochains" => {
                wanted(1, "a model file")?;
                self.nochains = Some(file(&args[0])?.spec);
            }
            "explain" => {
                wanted(1, "an .explain file")?;
                self.explain = Some(file(&args[0])?);
            }
            "refuse" => {
                wanted(3, "a feature, who refuses it and the spec's sentence")?;
                let feature = feature(&args[0])?;
                self.refusals.retain(|r| r.feature != feature);
                self.refusals.push(Refusal {
                    feature,
                    who: args[1].text.clone(),
                    sentence: args[2].text.clone(),
                });
            }
            "storage-classes" => {
                wanted(
                    3,
                    "a number of storage classes, who refuses more and the spec's sentence",
                )?;
                let classes = args[0].text.parse::<usize>().map_err(|_| {
                    error(
                        &args[0].pos,
                        format!(
                            "expected a number of storage classes, found `{}`",
                            args[0].text
                        ),
                    )
                })?;
                self.storage_classes = Some(ClassLimit {
                    classes,
                    who: args[1].text.clone(),
                    sentence: args[2].text.clone(),
                });
            }
            "accept" => {
                wanted(1, "a feature")?;
                let feature = feature(&args[0])?;
                self.refusals.retain(|r| r.feature != feature);
            }
            "races" | "final-order" | "happens-before" | "synchronizes-with" | "program-order" => {
                wanted(1, "a binding")?;
                let slot = match key.text.as_str() {
                    "races" => &mut self.races,
                    "final-order" => &mut self.final_order,
                    "happens-before" => &mut self.happens_before,
                    "synchronizes-with" => &mut self.synchronizes_with,
                    _ => &mut self.program_order,
                };
                *slot = binding(&args[0])?;
            }
            "edge-style" => {
                wanted(3, "a relation family, a colour and a line style")?;
                let (fam, colour, line) = (&args[0], &args[1], &args[2]);
                if !colour
                    .text
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '#')
                {
                    return Err(error(
                        &colour.pos,
                        format!("`{}` is not a colour", colour.text),
                    ));
                }
                if !LINE_STYLES.contains(&line.text.as_str()) {
                    return Err(error(
                        &line.pos,
                        format!(
                            "unknown line style `{}` (known: {})",
                            line.text,
                            LINE_STYLES.join(", ")
                        ),
                    ));
                }
                self.edge_styles.retain(|s| s.family != fam.text);
                self.edge_styles.push(EdgeStyle {
                    family: fam.text.clone(),
                    colour: colour.text.clone(),
                    line: line.text.clone(),
                });
            }
            "host" => {
                wanted(1, "a host API (vulkan or opencl)")?;
                let Some(api) = HostApi::from_word(&args[0].text) else {
                    let known: Vec<&str> = HostApi::ALL.iter().map(|a| a.word()).collect();
                    return Err(error(
                        &args[0].pos,
                        format!(
                            "unknown host API `{}` (known: {})",
                            args[0].text,
                            known.join(", ")
                        ),
                    ));
                };
                if !self.host.contains(&api) {
                    self.host.push(api);
                }
            }
            "rmw-atomicity" => {
                wanted(0, "nothing")?;
                self.rmw_atomicity = true;
            }
            "read-write-coherence" => {
                wanted(0, "nothing")?;
                self.read_write_coherence = true;
            }
            "write-write-coherence" => {
                wanted(0, "nothing")?;
                self.write_write_coherence = true;
            }
            "co-write-write-coherence" => {
                self.co_write_write_coherence = classes(key, args)?;
            }
            "await-extension" => {
                wanted(0, "nothing")?;
                self.await_extension = true;
            }
            "location-local-reads" => {
                self.location_local_reads = switch(key, args)?;
            }
            "latest-own-write" => {
                self.latest_own_write_classes = classes(key, args)?;
                self.latest_own_write = self.latest_own_write_classes != 0;
            }
            "po-coherence" => {
                (self.po_coherence, self.po_coherence_atomic) = po_coherence(key, args)?;
            }
            "default-for" => {
                wanted(1, "a dialect")?;
                let d = Dialect::from_name(&args[0].text).ok_or_else(|| {
                    let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                    error(
                        &args[0].pos,
                        format!(
                            "unknown dialect `{}` (known: {})",
                            args[0].text,
                            known.join(", ")
                        ),
                    )
                })?;
                if !self.default_for.contains(&d) {
                    self.default_for.push(d);
                }
            }
            other => {
                return Err(error(
                    &key.pos,
                    format!(
                        "unknown declaration `{other}`: expected nochains, refuse, accept, storage-classes, explain, races, final-order, happens-before, synchronizes-with, program-order, edge-style, rmw-atomicity, read-write-coherence, write-write-coherence, await-extension, location-local-reads, latest-own-write, po-coherence, default-for or host"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Why the model refuses `program` (the first instruction using a
    /// refused feature), if it does.
    pub fn refusal(&self, program: &Program) -> Option<String> {
        // Host API operations the model has no rules for: refused, not run
        // as if they were not there (docs/host.md).
        for t in &program.threads {
            for i in t.instructions() {
                if let crate::ir::OpKind::Api(op) = &i.kind
                    && !self.host.contains(&op.api())
                {
                    let api = op.api();
                    let article = if api == HostApi::OpenCl { "an" } else { "a" };
                    return Some(format!(
                        "line {}: `{}` is {article} {} host API operation ({}), and this model has no rules for the {} host side (its profile declares no `host {}`, MODELS.md \"Model profiles\"); choose a model that supports it (--model; --models for compare, --impl and --spec for refines)",
                        i.source.line,
                        i.source.text,
                        api.title(),
                        op.call(),
                        api.title(),
                        api.word()
                    ));
                }
            }
        }
        for t in &program.threads {
            for i in t.instructions() {
                if let Some(r) = self.refusals.iter().find(|r| r.feature.used_by(program, i)) {
                    return Some(format!(
                        "line {}: `{}` is {}, which {} does not support (\"{}\"); choose a model that supports it (--model; --models for compare, --impl and --spec for refines)",
                        i.source.line,
                        i.source.text,
                        r.feature.description(),
                        r.who,
                        r.sentence
                    ));
                }
            }
        }
        let limit = self.storage_classes.as_ref()?;
        let mut named = Vec::new();
        for t in &program.threads {
            for i in t.instructions() {
                let semantics = std::iter::once(&i.semantics).chain(i.failure_semantics.iter());
                for c in semantics.flat_map(|s| s.storage_classes.iter()) {
                    if named.contains(c) {
                        continue;
                    }
                    named.push(*c);
                    if named.len() > limit.classes {
                        return Some(format!(
                            "line {}: `{}` names storage class {} in its semantics, the {} distinct one the program's semantics name; {} distinguishes {} (\"{}\"); choose a model that supports it (--model; --models for compare, --impl and --spec for refines)",
                            i.source.line,
                            i.source.text,
                            c.0,
                            ordinal(named.len()),
                            limit.who,
                            limit.classes,
                            limit.sentence
                        ));
                    }
                }
            }
        }
        None
    }
}

/// "fifth", "6th"...
fn ordinal(n: usize) -> String {
    const WORDS: [&str; 10] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    WORDS
        .get(n.wrapping_sub(1))
        .map_or_else(|| format!("{n}th"), |w| w.to_string())
}

fn error(pos: &Pos, message: String) -> CatError {
    CatError::at(CatErrorKind::Profile, pos, message)
}

/// The declarations of an annotation: one per non-blank line, each a list
/// of words and quoted strings with their positions.
/// The dialects the `default-for` declarations of `annotations` name
/// (unknown dialects and malformed annotations are left to
/// [`Profile::of`] to report). For [`super::default_for`], which must not
/// parse every built-in model to find the defaults.
pub(crate) fn default_dialects(annotations: &[Annotation]) -> Vec<Dialect> {
    let mut out = Vec::new();
    for a in annotations {
        for decl in split(a).unwrap_or_default() {
            if let [key, arg] = decl.as_slice()
                && key.text == "default-for"
                && let Some(d) = Dialect::from_name(&arg.text)
                && !out.contains(&d)
            {
                out.push(d);
            }
        }
    }
    out
}

fn split(a: &Annotation) -> Result<Vec<Vec<Arg>>, CatError> {
    let mut decls = Vec::new();
    for (k, line) in a.text.split('\n').enumerate() {
        let (line_no, first_col) = if k == 0 {
            (a.pos.line, a.pos.col)
        } else {
            (a.pos.line + k, 1)
        };
        let pos_at = |byte: usize| {
            Pos::new(
                &a.pos.file,
                line_no,
                first_col + line[..byte].chars().count(),
            )
        };
        let mut args = Vec::new();
        let mut rest = line.char_indices().peekable();
        while let Some(&(start, c)) = rest.peek() {
            if c.is_whitespace() {
                rest.next();
            } else if c == '"' {
                rest.next();
                let end = loop {
                    match rest.next() {
                        Some((e, '"')) => break e,
                        Some(_) => {}
                        None => return Err(error(&pos_at(start), "unterminated string".into())),
                    }
                };
                args.push(Arg {
                    text: line[start + 1..end].to_string(),
                    pos: pos_at(start),
                });
            } else {
                let mut end = line.len();
                while let Some(&(e, c)) = rest.peek() {
                    if c.is_whitespace() || c == '"' {
                        end = e;
                        break;
                    }
                    rest.next();
                }
                args.push(Arg {
                    text: line[start..end].to_string(),
                    pos: pos_at(start),
                });
            }
        }
        if !args.is_empty() {
            decls.push(args);
        }
    }
    Ok(decls)
}

/// The value a `po-coherence` declaration sets: its storage classes as
/// [`classes`] reads them after an optional leading `atomic`, and whether
/// `atomic` is named.
fn po_coherence(key: &Arg, args: &[Arg]) -> Result<(u64, bool), CatError> {
    match args.split_first() {
        Some((a, rest)) if a.text == "atomic" => Ok((classes(key, rest)?, true)),
        _ => Ok((classes(key, args)?, false)),
    }
}

/// The value a `latest-own-write` declaration sets: on with no argument,
/// off with `off`.
fn classes(key: &Arg, args: &[Arg]) -> Result<u64, CatError> {
    match args {
        [] => Ok(u64::MAX),
        [a] if a.text == "off" => Ok(0),
        _ => {
            let mut mask = 0u64;
            for a in args {
                match a
                    .text
                    .strip_prefix("sc")
                    .and_then(|k| k.parse::<u32>().ok())
                {
                    Some(k) if k < 64 => mask |= 1 << k,
                    _ => {
                        return Err(error(
                            &a.pos,
                            format!(
                                "`{}` takes nothing (every storage class), `off`, or storage classes `sc0 sc1 ...`",
                                key.text
                            ),
                        ));
                    }
                }
            }
            Ok(mask)
        }
    }
}

/// What the model says about itself that the search reads: the order
/// relations it names, so that the engine enumerates only those (MODELS.md,
/// "Dynamic base names"), and the facts it declares that reductions rest
/// on. Computed once, when the model loads ([`super::LoadedModel::search`]),
/// and copied into each search's limits
/// ([`crate::engine::Limits::for_model`]); each reduction says which of
/// these facts it rests on ([`crate::engine::reduce::Requires`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchProfile {
    /// `co` is a strict total order of all writes to each location (herd's
    /// coherence order) and `asmo` its restriction to mutually-ordered atomic
    /// writes. When false, only the scoped modification orders `asmo` are
    /// enumerated and `co` is the same relation.
    pub total_co: bool,
    /// `sco` ranges over the strict total orders of the sequentially
    /// consistent operations. When false it is empty.
    pub sc_order: bool,
    /// `ilo` ranges over the interlock orders of the fragment invocations
    /// (docs/interlock.md). When false it is empty.
    pub interlock_order: bool,
    /// The model declares `rmw-atomicity`: an RMW reads only from its
    /// immediate `asmo` predecessor among the writes `asmo` relates to it,
    /// so the search skips its other reads-from choices under each order
    /// (with [`crate::engine::Reduction::RmwFilter`]).
    pub rmw_atomicity: bool,
    /// The model declares `read-write-coherence`: a write a read has as its
    /// only reads-from choice is `asmo`-before every write mutually ordered
    /// with it that the read precedes in program order through its
    /// reference; with [`crate::engine::Reduction::OrderPruning`] no order putting such a
    /// pair the other way round is listed.
    pub read_write_coherence: bool,
    /// The model declares `write-write-coherence`: a write is `asmo`-before
    /// every write mutually ordered with it that it precedes in program
    /// order through its reference; with [`crate::engine::Reduction::OrderPruning`] no
    /// order putting such a pair the other way round is listed.
    pub write_write_coherence: bool,
    /// The model declares `co-write-write-coherence`: a write is
    /// `co`-before every write of its location it is sequenced before in
    /// its thread, when both are in one of these storage classes (a mask,
    /// bit k: class k; 0: not declared); with [`crate::engine::Reduction::OrderPruning`]
    /// and a total `co` no order putting such a pair the other way round
    /// is listed (`candidates::sequenced_write_pairs`).
    pub co_write_write_coherence: u64,
    /// The model declares `await-extension`: reads appended after a
    /// thread's last event, each reading a maximal write of its location,
    /// keep a consistent execution consistent and its races
    /// ([`crate::engine::Explorer::set_spin_extension`]).
    pub await_extension: bool,
    /// The model declares `location-local-reads`: the reads-from choices of
    /// observation reads are independent from location to location and
    /// nothing but consistency reads them (with [`crate::engine::Reduction::ReadFactoring`]).
    pub location_local_reads: bool,
    /// The model declares `latest-own-write`: a read of a location that
    /// only its own thread writes, through the read's reference, reads the
    /// thread's latest earlier write there (the initial value when there is
    /// none); the per-thread paths then give such a read that value only
    /// (with [`crate::engine::Reduction::OwnWriteFilter`]). A mask of the storage classes
    /// it holds for (bit k: class k; 0: the model does not declare it;
    /// every bit: all classes).
    pub latest_own_write: u64,
    /// The model declares `po-coherence`: in each thread, the accesses to
    /// one location, in program order, are in coherence order (a read
    /// reads the write the previous access read or wrote, or one after it,
    /// another thread's when its value differs). The storage classes it
    /// holds for, as a mask (0: not declared); with
    /// [`SearchProfile::po_coherence_atomic`], only for locations whose
    /// every access is an atomic mutually ordered with every other one
    /// (with [`crate::engine::Reduction::CoherenceCuts`]).
    pub po_coherence: u64,
    /// `po-coherence atomic`: see [`SearchProfile::po_coherence`].
    pub po_coherence_atomic: bool,
}

impl Default for SearchProfile {
    fn default() -> Self {
        SearchProfile {
            total_co: false,
            sc_order: true,
            interlock_order: true,
            rmw_atomicity: false,
            read_write_coherence: false,
            write_write_coherence: false,
            co_write_write_coherence: 0,
            await_extension: false,
            location_local_reads: false,
            latest_own_write: 0,
            po_coherence: 0,
            po_coherence_atomic: false,
        }
    }
}

impl SearchProfile {
    /// The profile of a model: a total `co` if it names `co`, SC orders if
    /// it names `sco`, interlock orders if it names `ilo`, and the facts
    /// its declarations state.
    pub fn of(model: &Model) -> SearchProfile {
        let names = model.free_names();
        let uses = |n: &str| names.iter().any(|m| m == n);
        SearchProfile {
            total_co: uses(super::names::CO),
            sc_order: uses(super::names::SCO),
            interlock_order: uses(super::names::ILO),
            rmw_atomicity: declares_rmw_atomicity(model),
            read_write_coherence: declares_read_write_coherence(model),
            write_write_coherence: declares_write_write_coherence(model),
            co_write_write_coherence: declares_co_write_write_coherence(model),
            await_extension: declares_await_extension(model),
            location_local_reads: declares_location_local_reads(model),
            latest_own_write: declares_latest_own_write(model),
            po_coherence: declares_po_coherence(model).0,
            po_coherence_atomic: declares_po_coherence(model).1,
        }
    }

    /// What either of two models needs: the orders either names, the facts
    /// both declare.
    pub fn union(self, other: SearchProfile) -> SearchProfile {
        SearchProfile {
            total_co: self.total_co || other.total_co,
            sc_order: self.sc_order || other.sc_order,
            interlock_order: self.interlock_order || other.interlock_order,
            rmw_atomicity: self.rmw_atomicity && other.rmw_atomicity,
            read_write_coherence: self.read_write_coherence && other.read_write_coherence,
            write_write_coherence: self.write_write_coherence && other.write_write_coherence,
            co_write_write_coherence: self.co_write_write_coherence
                & other.co_write_write_coherence,
            await_extension: self.await_extension && other.await_extension,
            location_local_reads: self.location_local_reads && other.location_local_reads,
            latest_own_write: self.latest_own_write & other.latest_own_write,
            po_coherence: self.po_coherence & other.po_coherence,
            po_coherence_atomic: self.po_coherence_atomic || other.po_coherence_atomic,
        }
    }
}

/// Whether `model` declares `latest-own-write` (see the module table): the
/// last declaration wins, a file's own after those of its includes, so a
/// variant that binds another from-reads withdraws an included file's with
/// `latest-own-write off`. A malformed declaration counts as none (the
/// profile reports it).
pub fn declares_latest_own_write(model: &Model) -> u64 {
    declared_classes(model, "latest-own-write")
}

/// Whether `model` declares `po-coherence`: the storage classes and
/// whether `atomic` limits it (the last declaration wins, as for
/// `latest-own-write`; a malformed one counts as none).
pub fn declares_po_coherence(model: &Model) -> (u64, bool) {
    let mut on = (0, false);
    for a in model.annotations() {
        let Ok(decls) = split(a) else {
            return (0, false);
        };
        for d in decls {
            if let Some((key, args)) = d.split_first()
                && key.text == "po-coherence"
            {
                match po_coherence(key, args) {
                    Ok(v) => on = v,
                    Err(_) => return (0, false),
                }
            }
        }
    }
    on
}

/// Whether `model` declares `co-write-write-coherence`, as a mask of
/// storage classes (the last declaration wins, as for `latest-own-write`).
pub fn declares_co_write_write_coherence(model: &Model) -> u64 {
    declared_classes(model, "co-write-write-coherence")
}

/// The storage classes of the last declaration `name` taking classes
/// (`latest-own-write`, `co-write-write-coherence`); 0 when none or
/// malformed.
fn declared_classes(model: &Model, name: &str) -> u64 {
    let mut on = 0;
    for a in model.annotations() {
        let Ok(decls) = split(a) else {
            return 0;
        };
        for d in decls {
            if let Some((key, args)) = d.split_first()
                && key.text == name
            {
                match classes(key, args) {
                    Ok(v) => on = v,
                    Err(_) => return 0,
                }
            }
        }
    }
    on
}

/// Whether `model` (or a file it includes) declares `rmw-atomicity` (the
/// engine reads it without resolving the files other declarations name).
pub fn declares_rmw_atomicity(model: &Model) -> bool {
    declares(model, "rmw-atomicity")
}

/// Whether `model` (or a file it includes) declares `read-write-coherence`.
pub fn declares_read_write_coherence(model: &Model) -> bool {
    declares(model, "read-write-coherence")
}

/// Whether `model` (or a file it includes) declares `write-write-coherence`.
pub fn declares_write_write_coherence(model: &Model) -> bool {
    declares(model, "write-write-coherence")
}

/// Whether `model` (or a file it includes) declares `await-extension`.
pub fn declares_await_extension(model: &Model) -> bool {
    declares(model, "await-extension")
}

/// Whether `model` declares `location-local-reads`: the last declaration
/// read wins (annotations come each file's after those of its includes,
/// so a file's `location-local-reads off` withdraws an included file's).
pub fn declares_location_local_reads(model: &Model) -> bool {
    let mut on = false;
    for a in model.annotations() {
        let Ok(decls) = split(a) else { continue };
        for d in decls {
            if let Some((key, args)) = d.split_first()
                && key.text == "location-local-reads"
                && let Ok(v) = switch(key, args)
            {
                on = v;
            }
        }
    }
    on
}

/// The argument of a declaration that is on without one and withdrawn by
/// `off`.
fn switch(key: &Arg, args: &[Arg]) -> Result<bool, CatError> {
    match args {
        [] => Ok(true),
        [a] if a.text == "off" => Ok(false),
        _ => Err(error(
            &key.pos,
            format!("`{}` takes nothing or `off`", key.text),
        )),
    }
}

/// Whether `model` (or a file it includes) holds the argument-less
/// declaration `name`.
fn declares(model: &Model, name: &str) -> bool {
    model.annotations().iter().any(|a| {
        split(a).is_ok_and(|decls| {
            decls
                .iter()
                .any(|d| d.first().is_some_and(|w| w.text == name))
        })
    })
}

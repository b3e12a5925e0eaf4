//! An interpreter for the subset of herd7's cat language that memory models use.
//!
//! A model is parsed once ([`Model::parse`], which inlines `include`s and
//! resolves every name), prepared once per test ([`Model::prepare`]: every
//! binding and check that does not depend on a *dynamic* name such as `rf`
//! or `co` is evaluated there), then evaluated once per candidate execution
//! ([`Prepared::evaluate`]), which only re-runs the dynamic statements.
//!
//! Supported: `let`, `let rec ... and ...` (least fixpoints), functions
//! (`let f(x, y) = e`, `fun x -> e`, closures), `let ... in`, `include`,
//! `acyclic`/`irreflexive`/`empty` checks with `~`, `flag` and `as name`,
//! `show`/`unshow` (ignored), the operators `| ; \ & * ~ + * ? ^-1 [S]`, and
//! the builtins `_`, `0`, `{}`, `emptyset`, `id`, `domain`, `range`. Other
//! herd constructs (`match`, `if`, `procedure`, tags, tuples...) are
//! rejected with an "unsupported cat construct" error.
//!
//! Module map: `lexer` tokens; `ast` syntax tree; `parser` parsing and
//! includes; `compile` name resolution to the IR; `value` values and
//! environments; `interp` evaluation and staging; `symbolic` the model as
//! formulas over symbolic base relations (`vkmm diff`'s SAT search);
//! `polarity` monotonicity of checks in growing dynamic names (for
//! pruning); `error` errors.

pub mod ast;
mod compile;
pub mod error;
mod interp;
mod lexer;
pub mod parser;
mod polarity;
mod specialise;
mod symbolic;
mod value;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod incremental_tests;

pub use ast::{Annotation, CheckKind};
pub use error::{CatError, CatErrorKind, Pos};
pub use interp::{BoundsGuard, CheckResult, EvalBounds, Evaluation, LazyStages, Prepared};
pub use symbolic::{SymCheck, SymEvaluation, SymFunc, SymValue};
pub use value::{Env, Func, Value};

use compile::Program;
use std::sync::Arc;

/// A parsed model: statements with includes inlined and names resolved.
#[derive(Clone, Debug)]
pub struct Model {
    prog: Arc<Program>,
    /// The polarity analyses run on the model so far, shared by every
    /// test prepared from it.
    polarities: Arc<polarity::Cache>,
}

impl Model {
    /// Parses a model. `resolve` maps an include name (as written in
    /// `include "x.cat"`) to `(display file name, source text)`, or `None` if
    /// not found (then: a [`CatError`] at the include's position).
    pub fn parse(
        file_name: &str,
        source: &str,
        resolve: &dyn Fn(&str) -> Option<(String, String)>,
    ) -> Result<Model, CatError> {
        let parsed = parser::parse_model(file_name, source, resolve)?;
        Ok(Model {
            prog: Arc::new(compile::compile(parsed)),
            polarities: Arc::default(),
        })
    }

    /// Names of the free identifiers the model reads but never defines (the
    /// base names the engine must provide), excluding builtins, in order of
    /// first use.
    pub fn free_names(&self) -> Vec<String> {
        self.prog.base_names.clone()
    }

    /// How many polarity analyses the model keeps (one per question).
    #[cfg(test)]
    pub(crate) fn kept_polarity_analyses(&self) -> usize {
        self.polarities.lock().map_or(0, |c| c.len())
    }

    /// Checks the whole model once, before any test runs, so that a broken
    /// model is the same error for every test and every reduction setting
    /// (an identifier read only by a statement some test never reaches, or
    /// some reduction skips, would otherwise pass silently there).
    /// `kind_of` says what the engine provides for a free name: `Some(true)`
    /// a set, `Some(false)` a relation, `None` nothing. Every free name must
    /// be provided ("unknown identifier" at its first use otherwise); then
    /// every statement is evaluated once on an empty universe, each base
    /// name bound to an empty value of its kind, which meets every type
    /// error a statement can have (a set where a relation is needed, a
    /// function applied to the wrong number of arguments).
    pub fn check_whole(&self, kind_of: &dyn Fn(&str) -> Option<bool>) -> Result<(), CatError> {
        let mut env = Env::new(0);
        for (i, name) in self.prog.base_names.iter().enumerate() {
            match kind_of(name) {
                Some(true) => env.set(name, crate::relation::EventSet::empty(0)),
                Some(false) => env.rel(name, crate::relation::Relation::empty(0)),
                None => {
                    return Err(CatError::at(
                        CatErrorKind::Unbound,
                        &self.prog.base_pos[i],
                        format!(
                            "unknown identifier `{name}`: the model never defines it and the engine provides no base name of that name"
                        ),
                    ));
                }
            }
        }
        interp::prepare(&self.prog, &self.polarities, &env, &[], false).map(|_| ())
    }

    /// The model's title, if it started with a quoted string.
    pub fn title(&self) -> Option<&str> {
        self.prog.title.as_deref()
    }

    /// The `(*@ ... *)` comments of the model and its includes, each file's
    /// after those of the files it includes.
    pub fn annotations(&self) -> &[Annotation] {
        &self.prog.annotations
    }

    /// Whether the model binds `name` at its top level (after its last statement).
    pub fn binds(&self, name: &str) -> bool {
        self.prog.final_slots.contains_key(name)
    }

    /// The names of the model's checks, in order (defaults included).
    pub fn check_names(&self) -> Vec<&str> {
        self.prog.checks.iter().map(|c| c.name.as_str()).collect()
    }

    /// Stage 1: evaluates everything that does not depend (transitively) on
    /// any of the `dynamic` names, once per test. `base` holds every static
    /// base set/relation the engine provides (its universe is the test's).
    ///
    /// Statements that read a dynamic name are partially evaluated for this
    /// test (module `specialise`): their static parts are computed here,
    /// calls inlined, and a statement whose value turns out not to depend
    /// on the dynamic names at all (say `X ; [S]` with `S` empty) becomes
    /// static.
    pub fn prepare(&self, base: &Env, dynamic: &[&str]) -> Result<Prepared, CatError> {
        interp::prepare(&self.prog, &self.polarities, base, dynamic, true)
    }

    /// The model over the events of `universe` as formulas of the circuit
    /// `c` (`vkmm diff`'s symbolic search; [`SymSet::full`](crate::relation::symbolic::SymSet::full) for a fixed
    /// execution): `base(name)` gives each base name the model reads its
    /// symbolic value. A construct the symbolic
    /// compilation does not take (a `let rec` whose formulas do not
    /// settle) is an [`CatErrorKind::Unsupported`] error naming it.
    pub fn symbolic(
        &self,
        c: &mut crate::relation::symbolic::Circuit,
        universe: &crate::relation::symbolic::SymSet,
        base: &dyn Fn(&str) -> Option<SymValue>,
    ) -> Result<SymEvaluation, CatError> {
        symbolic::compile(&self.prog, c, universe, base)
    }

    /// [`Model::prepare`] without the partial evaluation: every statement
    /// that reads a dynamic name is evaluated as written for each
    /// execution. The reference for differential tests.
    pub fn prepare_unspecialised(
        &self,
        base: &Env,
        dynamic: &[&str],
    ) -> Result<Prepared, CatError> {
        interp::prepare(&self.prog, &self.polarities, base, dynamic, false)
    }
}

/// The `(*@ ... *)` comments of one cat file (its includes not followed),
/// without parsing it.
pub fn annotations_of(file: &str, src: &str) -> Result<Vec<Annotation>, CatError> {
    lexer::tokenize_annotated(&Arc::from(file), src).map(|(_, a)| a)
}

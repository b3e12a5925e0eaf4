//! Run-time values of the cat interpreter ([`Value`]: event sets, relations,
//! closures) and the name-to-value environments ([`Env`]) the engine fills
//! with the base sets and relations of a test or candidate execution.

use super::compile::{Builtin, Lambda};
use crate::relation::{EventSet, Relation};
use std::fmt;
use std::sync::Arc;

/// A cat value.
#[derive(Clone)]
pub enum Value {
    /// A set of events.
    Set(EventSet),
    /// A binary relation over events.
    Rel(Relation),
    /// A function (a closure over its definition environment, or a builtin).
    Func(Func),
}

impl Value {
    /// The set, if this is a set.
    pub fn as_set(&self) -> Option<&EventSet> {
        match self {
            Value::Set(s) => Some(s),
            _ => None,
        }
    }

    /// The relation, if this is a relation.
    pub fn as_rel(&self) -> Option<&Relation> {
        match self {
            Value::Rel(r) => Some(r),
            _ => None,
        }
    }

    /// The bytes the value's bits take (a set's words, a relation's rows;
    /// a function's closure is counted as nothing).
    pub fn bytes(&self) -> usize {
        match self {
            Value::Set(s) => s.universe().div_ceil(64) * 8,
            Value::Rel(r) => Relation::bytes_for(r.universe()),
            Value::Func(_) => 0,
        }
    }

    /// "a set", "a relation" or "a function".
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Set(_) => "a set",
            Value::Rel(_) => "a relation",
            Value::Func(_) => "a function",
        }
    }
}

impl PartialEq for Value {
    /// Sets and relations compare by content, functions by identity.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Set(a), Value::Set(b)) => a == b,
            (Value::Rel(a), Value::Rel(b)) => a == b,
            (Value::Func(a), Value::Func(b)) => Arc::ptr_eq(&a.0, &b.0),
            _ => false,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Set(s) => write!(f, "Set({s:?})"),
            Value::Rel(r) => write!(f, "Rel({r:?})"),
            Value::Func(g) => write!(f, "{g:?}"),
        }
    }
}

/// A function value. Opaque: only the interpreter creates and calls them.
#[derive(Clone)]
pub struct Func(pub(crate) Arc<FuncImpl>);

pub(crate) enum FuncImpl {
    Closure {
        lambda: Arc<Lambda>,
        /// Values of the captured locals, in `lambda.captures` order.
        captured: Vec<Cell>,
    },
    Builtin(Builtin),
}

impl Func {
    /// The name the function was defined with (`fun` for anonymous ones).
    pub fn name(&self) -> &str {
        match &*self.0 {
            FuncImpl::Closure { lambda, .. } => &lambda.name,
            FuncImpl::Builtin(b) => b.name(),
        }
    }

    /// Number of parameters.
    pub fn arity(&self) -> usize {
        match &*self.0 {
            FuncImpl::Closure { lambda, .. } => lambda.params.len(),
            FuncImpl::Builtin(_) => 1,
        }
    }
}

impl fmt::Debug for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<function {}/{}>", self.name(), self.arity())
    }
}

/// A stored binding: unset, a value, or a polymorphic empty value (`0`,
/// `{}`, or a `let rec` variable still at bottom) that coerces to the empty
/// set or relation as needed; the stored value is its default reading.
#[derive(Clone, Debug)]
pub(crate) enum Cell {
    Unset,
    Val(Value),
    Poly(Value),
}

impl Cell {
    pub(crate) fn value(&self) -> Option<&Value> {
        match self {
            Cell::Unset => None,
            Cell::Val(v) | Cell::Poly(v) => Some(v),
        }
    }
}

/// Names bound to base sets and relations, over a universe of events `0..n`.
#[derive(Clone, Default, Debug)]
pub struct Env {
    universe: usize,
    /// Fx-hashed: the engine builds and looks up environments per
    /// candidate execution, where SipHash showed in profiles.
    vars: rustc_hash::FxHashMap<String, Value>,
}

impl Env {
    /// An empty environment over `universe` events.
    pub fn new(universe: usize) -> Env {
        Env {
            universe,
            vars: rustc_hash::FxHashMap::default(),
        }
    }

    /// Number of events.
    pub fn universe(&self) -> usize {
        self.universe
    }

    /// Binds `name` to a set (replacing any previous binding).
    pub fn set(&mut self, name: &str, s: EventSet) {
        self.vars.insert(name.to_string(), Value::Set(s));
    }

    /// Binds `name` to a relation (replacing any previous binding).
    pub fn rel(&mut self, name: &str, r: Relation) {
        self.vars.insert(name.to_string(), Value::Rel(r));
    }

    /// The value bound to `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// Whether both environments bind the same names to equal sets and
    /// relations over the same universe (an environment binding a function
    /// is equal to none: functions are not compared).
    pub fn same_bindings(&self, other: &Env) -> bool {
        self.universe == other.universe
            && self.vars.len() == other.vars.len()
            && self.vars.iter().all(|(k, v)| match (v, other.vars.get(k)) {
                (Value::Set(a), Some(Value::Set(b))) => a == b,
                (Value::Rel(a), Some(Value::Rel(b))) => a == b,
                _ => false,
            })
    }

    /// The bytes the bound sets and relations take ([`Value::bytes`]).
    pub fn bytes(&self) -> usize {
        self.vars.values().map(Value::bytes).sum()
    }

    /// The bound names, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }
}

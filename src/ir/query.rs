//! Queries a litmus test asks about its executions: whether some candidate
//! execution satisfies a predicate over the model's results.

use std::fmt;

/// A comparison operator in a count predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// Whether `lhs cmp rhs` holds (counts in queries, values in branches).
    pub fn holds<T: Ord>(self, lhs: T, rhs: T) -> bool {
        match self {
            Cmp::Eq => lhs == rhs,
            Cmp::Ne => lhs != rhs,
            Cmp::Lt => lhs < rhs,
            Cmp::Le => lhs <= rhs,
            Cmp::Gt => lhs > rhs,
            Cmp::Ge => lhs >= rhs,
        }
    }
    /// The comparison that holds exactly when this one does not.
    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }

    /// The comparison with its sides exchanged: `a cmp b` holds exactly
    /// when `b cmp.mirrored() a` does.
    pub(crate) fn mirrored(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            other => other,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "=",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}

/// A predicate over one candidate execution.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Pred {
    /// Every (non-flag) check of the model passes: `consistent[X]`.
    Consistent,
    /// `#name op n`: the number of pairs (or events) of the model's binding `name`.
    Count {
        name: String,
        cmp: Cmp,
        value: usize,
    },
    And(Vec<Pred>),
}

impl Pred {
    /// The model bindings the predicate reads.
    pub fn counted_names(&self, out: &mut Vec<String>) {
        match self {
            Pred::Consistent => {}
            Pred::Count { name, .. } => {
                if !out.contains(name) {
                    out.push(name.clone())
                }
            }
            Pred::And(ps) => ps.iter().for_each(|p| p.counted_names(out)),
        }
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pred::Consistent => f.write_str("consistent[X]"),
            Pred::Count { name, cmp, value } => write!(f, "#{name}{}{value}", cmp.symbol()),
            Pred::And(ps) => {
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" && ")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }
        }
    }
}

/// What the test's author expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Expectation {
    /// Some candidate execution satisfies the predicate.
    Satisfiable,
    /// No candidate execution does.
    NoSolution,
}

impl fmt::Display for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expectation::Satisfiable => "SATISFIABLE",
            Expectation::NoSolution => "NOSOLUTION",
        })
    }
}

/// One query of a test.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Query {
    pub expect: Expectation,
    /// The device does not support availability/visibility chains
    /// (`vulkanMemoryModelAvailabilityVisibilityChains` is false).
    pub no_chains: bool,
    pub pred: Pred,
    /// Line of the query in the source file.
    pub line: usize,
    /// The query as written.
    pub text: String,
    /// The 1-based column where `text` starts on its line.
    #[serde(skip)]
    pub column: usize,
}

impl Query {
    /// The line and column of `#name` in the query (to locate an error
    /// about that count).
    pub fn count_position(&self, name: &str) -> (usize, usize) {
        let needle = format!("#{name}");
        let at = self.text.match_indices(&needle).find(|(i, _)| {
            let after = self.text[i + needle.len()..].chars().next();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        });
        let offset = at.map_or(0, |(i, _)| self.text[..i].chars().count());
        (self.line, self.column + offset)
    }
}

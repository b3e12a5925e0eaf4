//! `.explain` files: how explanations word a model's checks and relations.
//!
//! One directive per line, `#` comments:
//! `check NAME BINDING`, `edge BINDING LABEL...`, `race-pair BINDING TEXT...`,
//! `race-event SET TEXT...`, `race-from BINDING TEXT...`, `race-to BINDING TEXT...`,
//! `race-note TOPIC TEXT...` (a fact stated for every race: why the model
//! calls the pair a race), `expand BINDING ROLE | STEP | ROLE ...` (how an
//! edge of the binding arises: the events of a path through the steps),
//! `race-scope CASES SCOPE TEXT...` (a race the synchronizing cases would
//! order but for their scopes), `picture BINDING...` (what pictures draw by
//! default).
//! A race text starting with `!` marks a needed link (reported as missing
//! when its answer is no or none); `?` an order of links (reported, the
//! first that fails, only when no `!` link is missing).

/// A malformed `.explain` line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct SpecError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The parsed wording of a model.
#[derive(Clone, Debug, Default)]
pub struct ExplainSpec {
    /// check name -> binding that explains its failure
    pub checks: Vec<(String, String)>,
    /// (binding, label), most specific first
    pub edges: Vec<(String, String)>,
    pub race_pairs: Vec<(String, String)>,
    pub race_events: Vec<(String, String)>,
    pub race_from: Vec<(String, String)>,
    pub race_to: Vec<(String, String)>,
    /// (topic, text): stated first for every race.
    pub race_notes: Vec<(String, String)>,
    /// How edges of a binding arise, tried in order.
    pub expansions: Vec<Expansion>,
    /// Synchronisation blocked only by scopes, tested first for every race.
    pub race_scope: Option<RaceScope>,
    /// The bindings or families pictures draw by default (besides the
    /// rejecting cycle); empty: all.
    pub picture: Vec<String>,
}

/// `expand BINDING ROLE | STEP | ROLE | ... | ROLE`: an edge `a -> b` of
/// `BINDING` is explained by the events of a path `a -STEP-> x -STEP-> ...
/// -> b`, each named by its role. A step is `NAME&NAME...` (an
/// intersection of bindings; a set stands for the identity on it), `?` at
/// its end allowing the path to stay put; a role may start with
/// `[SET&SET...]`, the sets its event must belong to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    pub binding: String,
    /// `roles.len() == steps.len() + 1`.
    pub roles: Vec<String>,
    pub steps: Vec<String>,
}

/// `race-scope CASES SCOPE TEXT`: `CASES` (comma-separated bindings with
/// expansions) would order a racing pair through a pair of events their
/// expansions relate, which the cases leave out and `SCOPE` does not
/// relate: a scope mismatch, reported first among the missing links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceScope {
    pub cases: Vec<String>,
    pub scope: String,
    pub text: String,
}

impl ExplainSpec {
    pub fn parse(file: &str, text: &str) -> Result<ExplainSpec, SpecError> {
        let mut spec = ExplainSpec::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |column: usize, message: String| SpecError {
                file: file.to_string(),
                line: i + 1,
                column,
                message,
            };
            let mut words = line.splitn(3, char::is_whitespace);
            let directive = words.next().unwrap_or("");
            let (Some(name), Some(rest)) = (words.next(), words.next().map(str::trim)) else {
                return Err(err(1, format!("`{directive}` needs a name and a text")));
            };
            let entry = (name.to_string(), rest.to_string());
            match directive {
                "check" => spec.checks.push(entry),
                "edge" => spec.edges.push(entry),
                "race-pair" => spec.race_pairs.push(entry),
                "race-event" => spec.race_events.push(entry),
                "race-from" => spec.race_from.push(entry),
                "race-to" => spec.race_to.push(entry),
                "race-note" => spec.race_notes.push(entry),
                "picture" => {
                    spec.picture.push(entry.0);
                    spec.picture
                        .extend(entry.1.split_whitespace().map(str::to_string));
                }
                "expand" => {
                    let fields: Vec<String> =
                        entry.1.split('|').map(|f| f.trim().to_string()).collect();
                    if fields.len() < 3
                        || fields.len().is_multiple_of(2)
                        || fields.iter().any(String::is_empty)
                    {
                        return Err(err(
                            1,
                            "`expand BINDING ROLE | STEP | ROLE ...` needs roles and steps alternating, a role first and last".into(),
                        ));
                    }
                    let (roles, steps) = fields
                        .into_iter()
                        .enumerate()
                        .partition::<Vec<_>, _>(|(k, _)| k % 2 == 0);
                    spec.expansions.push(Expansion {
                        binding: entry.0,
                        roles: roles.into_iter().map(|(_, r)| r).collect(),
                        steps: steps.into_iter().map(|(_, r)| r).collect(),
                    });
                }
                "race-scope" => {
                    let Some((scope, text)) = entry.1.split_once(char::is_whitespace) else {
                        return Err(err(
                            1,
                            "`race-scope CASES SCOPE TEXT` needs a scope relation and a text"
                                .into(),
                        ));
                    };
                    spec.race_scope = Some(RaceScope {
                        cases: entry.0.split(',').map(str::to_string).collect(),
                        scope: scope.to_string(),
                        text: text.trim().to_string(),
                    });
                }
                other => {
                    return Err(err(
                        raw.find(other).map(|c| c + 1).unwrap_or(1),
                        format!(
                            "unknown directive `{other}`: expected check, edge, race-pair, race-event, race-from, race-to, race-note, race-scope, expand or picture"
                        ),
                    ));
                }
            }
        }
        Ok(spec)
    }

    /// The wording a model's profile declares (`explain FILE`); empty
    /// when it declares none.
    pub fn of(profile: &crate::model::Profile) -> Result<ExplainSpec, SpecError> {
        match &profile.explain {
            Some(f) => Self::parse(&f.file, &f.text),
            None => Ok(ExplainSpec::default()),
        }
    }

    /// Every binding the wording labels, and their families (what
    /// `--relations` may name), sorted.
    pub fn relation_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .edges
            .iter()
            .flat_map(|(b, _)| [b.clone(), crate::model::profile::family(b).to_string()])
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The binding that explains a failed check.
    pub fn check_relation(&self, check: &str) -> Option<&str> {
        self.checks
            .iter()
            .find(|(c, _)| c == check)
            .map(|(_, b)| b.as_str())
    }
}

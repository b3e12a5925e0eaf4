//! `.explain` files: how explanations word a model's checks and relations.
//!
//! One directive per line, `#` comments:
//! `check NAME BINDING`, `edge BINDING LABEL...`, `race-pair BINDING TEXT...`,
//! `race-event SET TEXT...`, `race-from BINDING TEXT...`, `race-to BINDING TEXT...`,
//! `race-note TOPIC TEXT...` (a fact stated for every race: why the model
//! calls the pair a race).
//! A race text starting with `!` marks a needed link (reported as missing
//! when its answer is no or none).

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
                other => {
                    return Err(err(
                        raw.find(other).map(|c| c + 1).unwrap_or(1),
                        format!(
                            "unknown directive `{other}`: expected check, edge, race-pair, race-event, race-from, race-to or race-note"
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

    /// The binding that explains a failed check.
    pub fn check_relation(&self, check: &str) -> Option<&str> {
        self.checks
            .iter()
            .find(|(c, _)| c == check)
            .map(|(_, b)| b.as_str())
    }
}

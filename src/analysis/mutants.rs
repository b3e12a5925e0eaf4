//! Mutants in the sense of MC Mutants (Levine et al., ASPLOS'23): a test
//! whose weak outcome the model forbids is a conformance test; weakening
//! one of its instructions so that the model allows the outcome simulates
//! an implementation bug, and a testing environment that observes the
//! outcome on the weakened test "kills" the mutant. The share of mutants an
//! environment kills scores it (docs/synthesis.md, "Mutants").
//!
//! The weakenings, each applied alone to one instruction of a Vulkan
//! litmus test's thread table:
//! - a scope narrowed (`dv` to `qf`, `wg` or `sg`; each narrower one);
//! - an acquire or release dropped (an atomic becomes relaxed, its
//!   semantics going with the ordering; an `acq_rel` RMW or barrier also
//!   keeps one half);
//! - a barrier removed (`membar`; a control barrier in every thread that
//!   names its instance; `avdevice`, `visdevice`);
//! - an availability or visibility operation dropped (`av`, `vis`,
//!   `semav`, `semvis`).
//!
//! A mutant is kept when the model allows the test's `exists` outcome on
//! it (its check complete): a weakening that leaves the outcome forbidden
//! simulates no bug a test of this outcome could see.

use super::family::{Generator, ModelVerdict};
use super::litmus::{Property, check_litmus};
use crate::engine::driver::CheckError;
use serde::Serialize;

/// One weakened variant of a test.
#[derive(Clone, Debug, Serialize)]
pub struct Mutant {
    pub name: String,
    /// What was weakened, in words (`P1 row 2: scope dv narrowed to wg`).
    pub mutation: String,
    /// The mutant, its commentary holding the verdicts.
    pub text: String,
    pub verdicts: Vec<ModelVerdict>,
}

/// A test and its mutants.
#[derive(Clone, Debug, Serialize)]
pub struct Mutated {
    pub file: String,
    pub name: String,
    /// Why the test has no mutants when it is not a conformance test (its
    /// outcome is not forbidden, it has no `exists` clause, ...).
    pub skipped: Option<String>,
    pub mutants: Vec<Mutant>,
    /// Weakenings tried whose outcome the model still forbids, and those
    /// whose check a limit left undecided.
    pub still_forbidden: usize,
    pub undecided: usize,
}

/// The answer of `vkmm gen --mutants`.
#[derive(Clone, Debug, Serialize)]
pub struct MutantsReport {
    pub models: Vec<String>,
    pub tests: Vec<Mutated>,
    /// Every check decided.
    pub complete: bool,
    /// Why the walk stopped before the last test, when it did (the tests
    /// listed are those it finished).
    pub stopped: Option<String>,
}

impl MutantsReport {
    pub fn summary(&self) -> String {
        let conf = self.tests.iter().filter(|t| t.skipped.is_none()).count();
        let mutants: usize = self.tests.iter().map(|t| t.mutants.len()).sum();
        let none = self
            .tests
            .iter()
            .filter(|t| t.skipped.is_none() && t.mutants.is_empty())
            .count();
        let undecided: usize = self.tests.iter().map(|t| t.undecided).sum();
        format!(
            "{}{mutants} mutant{} of {conf} test{} whose outcome {} forbids ({} test{} read; {none} with no mutant the model allows){}{}",
            if self.complete { "" } else { "UNDECIDED: " },
            if mutants == 1 { "" } else { "s" },
            if conf == 1 { "" } else { "s" },
            self.models.first().map_or("the model", String::as_str),
            self.tests.len(),
            if self.tests.len() == 1 { "" } else { "s" },
            if undecided > 0 {
                format!("; {undecided} weakenings undecided (a limit)")
            } else {
                String::new()
            },
            self.stopped
                .as_ref()
                .map_or(String::new(), |s| format!("; {s}"))
        )
    }
}

/// A Vulkan litmus test split around its thread table.
struct Table {
    /// The text from the initial state's `{` to the table.
    before: String,
    /// Per thread: its declaration, then its cells (empty ones dropped).
    cols: Vec<Vec<String>>,
    /// The clauses after the table.
    after: String,
}

const CLAUSES: &[&str] = &["locations", "filter", "exists", "~exists", "forall"];

fn split_table(text: &str) -> Result<Table, String> {
    let start = text.find('{').ok_or("no initial state block (`{ ... }`)")?;
    let body = &text[start..];
    let lines: Vec<&str> = body.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.trim_start().starts_with("P0"))
        .ok_or("no thread declaration row (`P0@...`)")?;
    let mut end = first;
    while end < lines.len() {
        let l = lines[end].trim();
        if l.is_empty() || !l.ends_with(';') || CLAUSES.iter().any(|c| l.starts_with(c)) {
            break;
        }
        end += 1;
    }
    let rows: Vec<Vec<String>> = lines[first..end]
        .iter()
        .map(|l| {
            l.trim()
                .trim_end_matches(';')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    let threads = rows[0].len();
    if rows.iter().any(|r| r.len() != threads) {
        return Err("the thread table's rows have different numbers of columns".into());
    }
    let cols = (0..threads)
        .map(|t| {
            rows.iter()
                .enumerate()
                .filter(|(i, r)| *i == 0 || !r[t].is_empty())
                .map(|(_, r)| r[t].clone())
                .collect()
        })
        .collect();
    Ok(Table {
        before: lines[..first].join("\n") + "\n",
        cols,
        after: lines[end..].join("\n") + "\n",
    })
}

impl Table {
    fn render(&self, header: &str) -> String {
        let mut text = header.to_string();
        text.push_str(&self.before);
        let rows = self.cols.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = self
            .cols
            .iter()
            .map(|c| c.iter().map(String::len).max().unwrap_or(0))
            .collect();
        for r in 0..rows {
            let cells: Vec<String> = self
                .cols
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!(" {:w$} ", c.get(r).map_or("", String::as_str), w = *w))
                .collect();
            text.push_str(&cells.join("|"));
            text.push_str(";\n");
        }
        text.push_str(&self.after);
        text
    }
}

/// Scopes from narrowest to widest, as the dialect spells them.
const SCOPES: &[&str] = &["sg", "wg", "qf", "dv"];

/// The weakenings of one table: (description, weakened table).
fn weakenings(table: &Table) -> Vec<(String, Vec<Vec<String>>)> {
    let mut out = Vec::new();
    for (t, col) in table.cols.iter().enumerate() {
        for (i, cell) in col.iter().enumerate().skip(1) {
            let (opcode, operands) = cell.split_once(' ').unwrap_or((cell, ""));
            let tokens: Vec<&str> = opcode.split('.').collect();
            let op = tokens[0];
            let at = format!("P{t} `{cell}`");
            let with = |new_opcode: String| -> Vec<Vec<String>> {
                let mut cols = table.cols.clone();
                cols[t][i] = if operands.is_empty() {
                    new_opcode
                } else {
                    format!("{new_opcode} {operands}")
                };
                cols
            };
            let without = || -> Vec<Vec<String>> {
                let mut cols = table.cols.clone();
                cols[t].remove(i);
                cols
            };
            let keep = |drop: &dyn Fn(&str) -> bool| -> String {
                tokens
                    .iter()
                    .filter(|x| !drop(x))
                    .copied()
                    .collect::<Vec<_>>()
                    .join(".")
            };
            match op {
                "ld" | "st" | "rmw" | "membar" => {}
                "avdevice" | "visdevice" => {
                    out.push((format!("{at}: {op} removed"), without()));
                    continue;
                }
                "cbar" => {
                    // Every thread's barrier of the instance goes.
                    let id = operands.trim();
                    let mut cols = table.cols.clone();
                    for c in cols.iter_mut() {
                        let mut k = 1;
                        while k < c.len() {
                            let (o, a) = c[k].split_once(' ').unwrap_or((&c[k], ""));
                            if o.split('.').next() == Some("cbar") && a.trim() == id {
                                c.remove(k);
                            } else {
                                k += 1;
                            }
                        }
                    }
                    out.push((format!("{at}: control barrier {id} removed"), cols));
                    continue;
                }
                _ => continue,
            }
            // A scope narrowed.
            for (k, tok) in tokens.iter().enumerate().skip(1) {
                if let Some(w) = SCOPES.iter().position(|s| s == tok) {
                    for narrower in &SCOPES[..w] {
                        let mut t2 = tokens.clone();
                        t2[k] = narrower;
                        out.push((
                            format!("{at}: scope {tok} narrowed to {narrower}"),
                            with(t2.join(".")),
                        ));
                    }
                }
            }
            let semantics = |x: &str| x.starts_with("semsc") || x == "semav" || x == "semvis";
            let ordering = tokens
                .iter()
                .find(|x| matches!(**x, "acq" | "rel" | "acq_rel"))
                .copied();
            if op == "membar" {
                out.push((format!("{at}: barrier removed"), without()));
            } else if let Some(o) = ordering {
                out.push((
                    format!(
                        "{at}: {} dropped (relaxed)",
                        match o {
                            "acq" => "acquire",
                            "rel" => "release",
                            _ => "acquire and release",
                        }
                    ),
                    with(keep(&|x| x == o || semantics(x))),
                ));
            }
            // An acquire-release fence or access weakened to each half.
            if ordering == Some("acq_rel") {
                for half in ["acq", "rel"] {
                    let t2: Vec<&str> = tokens
                        .iter()
                        .map(|x| if *x == "acq_rel" { half } else { x })
                        .filter(|x| {
                            !(half == "acq" && *x == "semav" || half == "rel" && *x == "semvis")
                        })
                        .collect();
                    out.push((
                        format!("{at}: acq_rel weakened to {half}"),
                        with(t2.join(".")),
                    ));
                }
            }
            // Availability and visibility dropped.
            for flag in ["av", "vis", "semav", "semvis"] {
                if tokens.contains(&flag) {
                    out.push((format!("{at}: {flag} dropped"), with(keep(&|x| x == flag))));
                }
            }
        }
    }
    out
}

/// Each model's verdict on `text` (decided or not), or `None` when the
/// test is refused by a model.
fn verdicts(g: &Generator, name: &str, text: &str) -> Result<Option<Vec<ModelVerdict>>, String> {
    let program = g.parse(name, text)?;
    let mut out = Vec::new();
    for m in &g.models {
        let o = match check_litmus(name, &program, m, g.limits.for_model(m), None) {
            Ok(o) => o,
            Err(CheckError::Unsupported(_)) => return Ok(None),
            Err(e) => return Err(format!("{name}: {e}")),
        };
        out.push(ModelVerdict {
            model: m.name.clone(),
            condition: o.holds(Property::Condition),
            race_free: o.holds(Property::Races),
        });
    }
    Ok(Some(out))
}

/// The mutants of each test (`(file, text)`), judged by the first model of
/// `g`, with every model's verdicts.
pub fn mutants(g: &Generator, tests: &[(String, String)]) -> Result<MutantsReport, String> {
    if g.models.is_empty() {
        return Err("mutants need a model".into());
    }
    let mut report = MutantsReport {
        models: g.models.iter().map(|m| m.name.clone()).collect(),
        tests: Vec::new(),
        complete: true,
        stopped: None,
    };
    let deadline = g.limits.bounds.deadline;
    for (file, text) in tests {
        if deadline.is_some_and(|d| web_time::Instant::now() >= d) {
            report.complete = false;
            report.stopped = Some(format!(
                "the time limit stopped it after {} of {} tests",
                report.tests.len(),
                tests.len()
            ));
            break;
        }
        let program = crate::frontend::parse_text(
            file,
            text,
            crate::frontend::Format::VulkanLitmus,
            g.options.clone(),
        )
        .map_err(|e| e.to_string())?;
        let name = program.name.clone();
        let mut t = Mutated {
            file: file.clone(),
            name: name.clone(),
            skipped: None,
            mutants: Vec::new(),
            still_forbidden: 0,
            undecided: 0,
        };
        let quantifier = program.condition.as_ref().and_then(|c| c.quantifier);
        if quantifier != Some(crate::ir::Quantifier::Exists) {
            t.skipped =
                Some("no `exists` clause: a mutant weakens a test of a forbidden outcome".into());
            report.tests.push(t);
            continue;
        }
        let original = match verdicts(g, &name, text)? {
            Some(v) => v,
            None => {
                t.skipped = Some(format!("{} refuses the test", g.models[0].name));
                report.tests.push(t);
                continue;
            }
        };
        match original[0].condition {
            Some(false) => {}
            Some(true) => {
                t.skipped = Some(format!("{} allows the outcome", g.models[0].name));
                report.tests.push(t);
                continue;
            }
            None => {
                t.skipped = Some(format!(
                    "{}'s verdict is undecided (a limit)",
                    g.models[0].name
                ));
                report.complete = false;
                report.tests.push(t);
                continue;
            }
        }
        let table = split_table(text).map_err(|e| format!("{file}: {e}"))?;
        for (what, cols) in weakenings(&table) {
            let weakened = Table {
                before: table.before.clone(),
                cols,
                after: table.after.clone(),
            };
            let mname = format!("{name}-mut{}", t.mutants.len() + 1);
            let probe = weakened.render(&format!("VULKAN {mname}\n"));
            // A weakening the dialect does not accept (a barrier that
            // needs the semantics dropped) is no mutant.
            let Ok(Some(v)) = verdicts(g, &mname, &probe) else {
                continue;
            };
            match v[0].condition {
                Some(true) => {
                    let comment = std::iter::once(format!(
                        "Mutant of {name} ({file}) by vkmm gen --mutants: {what}; {} forbids the original's outcome and allows it here.",
                        g.models[0].name
                    ))
                    .chain(v.iter().map(ModelVerdict::line))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .replace('"', "'");
                    t.mutants.push(Mutant {
                        text: weakened.render(&format!("VULKAN {mname}\n\"{comment}\"\n")),
                        name: mname,
                        mutation: what,
                        verdicts: v,
                    });
                }
                Some(false) => t.still_forbidden += 1,
                None => {
                    t.undecided += 1;
                    report.complete = false;
                }
            }
        }
        report.tests.push(t);
    }
    Ok(report)
}

//! Suites: which files a suite runs (every litmus file below a folder, or the
//! rows of an expected-verdicts CSV), and how their results are scored into
//! a [`Summary`]. Running the items is the caller's business (the facade
//! runs them in order; the command line runs them on a thread pool).

use super::checked::Checked;
use super::litmus::{LitmusOutcome, Property};
use super::queries::{Answer, TestOutcome};
use crate::frontend::Format;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A file that could not be checked.
#[derive(Clone, Debug, Serialize)]
pub struct FileError {
    pub file: String,
    pub error: String,
}

impl FileError {
    /// Whether a limit stopped the work before the file was read and
    /// lowered ([`crate::Error::Limit`], whose text is `FILE: undecided:
    /// WHY`): the file is undecided, not an input error. A suite counts it
    /// in `undecided` (docs/reading-output.md: "No report prints a verdict
    /// word for an answer such a search leaves open").
    pub fn is_limit(&self) -> bool {
        self.limit_reason().is_some()
    }

    /// What stopped the work, for an error [`FileError::is_limit`] says a
    /// limit caused (the text after `FILE: undecided: `).
    pub fn limit_reason(&self) -> Option<&str> {
        self.error
            .strip_prefix(self.file.as_str())?
            .strip_prefix(": undecided: ")
    }
}

/// A check whose answer differs from its expectation.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub file: String,
    pub detail: String,
}

/// How one check of a suite ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The answer matches the expectation.
    Passed,
    /// The answer differs from the expectation.
    Failed,
    /// No answer: a limit stopped the search before deciding.
    Undecided,
    /// The file could not be checked.
    Error,
    /// Checked, with no expectation to compare with (a litmus file of a
    /// folder suite without a CSV: its own verdict is recorded).
    Checked,
    /// Not checked: the row asks what vkmm cannot answer yet (termination)
    /// or the file uses a construct outside the IR (named in the detail).
    Unsupported,
    /// No verdict: it rests on executions with undefined behaviour (an
    /// out-of-bounds access, [`LitmusOutcome::rests_on_undefined`]); the
    /// detail names the accesses and the verdict on the in-bounds ones.
    Undefined,
}

/// One check of a suite: a CSV row, a `.test` query, or a litmus file.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Record {
    pub file: String,
    /// `condition` or `races` (CSV rows and litmus files).
    pub property: Option<Property>,
    /// The query, for `.test` files (`line N: text`).
    pub query: Option<String>,
    /// `1`/`0` (CSV rows) or `SATISFIABLE`/`NOSOLUTION` (queries).
    pub expected: Option<String>,
    /// `1`/`0`, `SATISFIABLE`/`NOSOLUTION`, `undecided`, or for a litmus
    /// file without expectation its verdict (`Ok`, `No`, `-` without quantifier).
    pub actual: String,
    pub status: Status,
    /// False when a limit stopped the search before the answer was known.
    pub complete: bool,
    /// Reachable final states found (litmus).
    pub states: usize,
    /// Racing pairs found (litmus).
    pub races: usize,
    /// Candidate executions evaluated.
    pub executions: u64,
    /// Thread paths cut by the unrolling bound.
    pub cut_paths: usize,
    /// Whether the execution limit stopped the search.
    pub truncated: bool,
    pub time_ms: f64,
    /// Why it failed, was undecided or could not be checked.
    pub detail: Option<String>,
    /// The CSV row is `annotated` (its verdict was never machine-checked by
    /// its authors): counted apart, never a failure of the suite.
    #[serde(default)]
    pub annotated: bool,
    /// `checked` or `annotated` (six-column rows).
    #[serde(default)]
    pub group: Option<String>,
    /// A limit (`--timeout`, `--max-memory`) stopped the check before its
    /// program was read: the summary's `unread` counts these records, so
    /// merged shards count them as one run would.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unread: bool,
}

/// The summary of a `suite` run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Checks with an expectation (CSV rows, `.test` queries).
    pub total: usize,
    pub passed: usize,
    pub failed: Vec<Failure>,
    /// Checks a limit left undecided (counted in `total`, not in `passed`).
    pub undecided: Vec<Failure>,
    /// Checks whose verdict rests on undefined behaviour (counted in
    /// `total`, not in `passed`; [`Status::Undefined`]).
    pub undefined_behaviour: Vec<Failure>,
    pub errors: Vec<FileError>,
    /// Rows not checked: termination rows, constructs outside the IR
    /// (not counted in `total`).
    pub unsupported: Vec<Failure>,
    /// Files checked (errors not included), or for a manifest its rows;
    /// those a limit stopped before their program was read count too.
    pub files: usize,
    /// Of `files`, those a limit (`--timeout`, `--max-memory`) stopped
    /// before their program was read: undecided, each with its reason.
    #[serde(skip_serializing_if = "is_zero")]
    pub unread: usize,
    /// Annotated CSV rows (not in `total`): how many, how many agree, and
    /// those that do not (or are undecided).
    pub annotated: usize,
    pub annotated_agree: usize,
    pub annotated_disagree: Vec<Failure>,
    #[serde(serialize_with = "super::schema::ser_duration")]
    pub time: Duration,
    /// Every check, in suite order.
    pub records: Vec<Record>,
    /// The front ends' warnings about the files checked, each once.
    pub warnings: Vec<crate::frontend::FrontendWarning>,
    /// Which shard of which run this is (`suite --shard K/N`); `vkmm
    /// merge` checks that every shard of the run is given once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
}

/// A shard's place in its run: shard `k` of `n` of the run `run`, a digest
/// of the whole suite's plan (every item's path and expectation, and the
/// property asked), the same for every shard of one suite wherever it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ShardInfo {
    pub k: usize,
    pub n: usize,
    pub run: String,
}

impl ShardInfo {
    /// Shard `k` of `n` of the suite of `items` (all of them, before
    /// sharding) asking `property`.
    pub fn of(items: &[SuiteItem], k: usize, n: usize, property: Property) -> ShardInfo {
        // FNV-1a, 64 bits: stable across platforms and releases.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
            h ^= 0xff;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        eat(format!("{property:?}").as_bytes());
        for it in items {
            eat(it.path.display().to_string().as_bytes());
            eat(format!("{:?} {:?}", it.expected, it.row).as_bytes());
            if let Some(m) = &it.manifest {
                eat(m.label().as_bytes());
            }
        }
        ShardInfo {
            k,
            n,
            run: format!("{h:016x}"),
        }
    }
}

impl Summary {
    /// The summary of checked `.test` files: one check per query.
    pub fn new(outcomes: &[TestOutcome], errors: Vec<FileError>, time: Duration) -> Summary {
        let mut s = Summary {
            total: 0,
            passed: 0,
            failed: Vec::new(),
            undecided: Vec::new(),
            undefined_behaviour: Vec::new(),
            errors: Vec::new(),
            unsupported: Vec::new(),
            files: outcomes.len(),
            unread: 0,
            annotated: 0,
            annotated_agree: 0,
            annotated_disagree: Vec::new(),
            time,
            records: Vec::new(),
            warnings: Vec::new(),
            shard: None,
        };
        for e in errors {
            s.add_error(e);
        }
        for o in outcomes {
            s.add_queries(o);
        }
        s
    }

    /// Keeps a file's front-end warnings (each once: a file checked for
    /// several CSV rows warns once).
    pub fn add_warnings(&mut self, warnings: &[crate::frontend::FrontendWarning]) {
        for w in warnings {
            if !self.warnings.contains(w) {
                self.warnings.push(w.clone());
            }
        }
    }

    /// Adds one check per query of a checked `.test` file.
    pub fn add_queries(&mut self, o: &TestOutcome) {
        for q in &o.queries {
            self.total += 1;
            let undecided = q.actual == Answer::Undecided;
            let mut detail = format!(
                "line {}: `{}` under {}: expected {}, got {}",
                q.line, q.query, q.model, q.expected, q.actual
            );
            if let Some(why) = &q.undecided {
                detail.push_str(&format!(" ({why})"));
            }
            let status = if q.passed {
                self.passed += 1;
                Status::Passed
            } else {
                let f = Failure {
                    file: o.file.clone(),
                    detail: detail.clone(),
                };
                if undecided {
                    self.undecided.push(f);
                    Status::Undecided
                } else {
                    self.failed.push(f);
                    Status::Failed
                }
            };
            self.records.push(Record {
                file: o.file.clone(),
                property: None,
                query: Some(format!("line {}: {}", q.line, q.query)),
                expected: Some(q.expected.to_string()),
                actual: q.actual.to_string(),
                status,
                complete: !undecided,
                states: 0,
                races: 0,
                executions: q.executions,
                cut_paths: 0,
                truncated: undecided,
                time_ms: q.time.as_secs_f64() * 1000.0,
                detail: (status != Status::Passed).then_some(detail),
                annotated: false,
                group: None,
                unread: false,
            });
        }
    }

    /// The summary of records (e.g. several shards' records put together):
    /// the counts and lists are recomputed from them.
    pub fn from_records(records: Vec<Record>, time: Duration) -> Summary {
        let mut s = Summary::new(&[], Vec::new(), time);
        let mut files: Vec<&str> = Vec::new();
        let mut unread: Vec<&str> = Vec::new();
        for r in &records {
            s.count(r);
            if r.status != Status::Error && !files.contains(&r.file.as_str()) {
                files.push(&r.file);
            }
            if r.unread && !unread.contains(&r.file.as_str()) {
                unread.push(&r.file);
            }
        }
        s.files = files.len();
        s.unread = unread.len();
        s.records = records;
        s
    }

    /// Counts one record into the totals and lists (not into `records`).
    fn count(&mut self, r: &Record) {
        let failure = || Failure {
            file: r.file.clone(),
            detail: r.detail.clone().unwrap_or_default(),
        };
        if r.status == Status::Unsupported {
            self.unsupported.push(failure());
            return;
        }
        if r.annotated && r.status != Status::Error {
            self.annotated += 1;
            match r.status {
                Status::Passed => self.annotated_agree += 1,
                _ => self.annotated_disagree.push(failure()),
            }
            return;
        }
        match r.status {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed.push(failure()),
            Status::Undecided => self.undecided.push(failure()),
            Status::Undefined => self.undefined_behaviour.push(failure()),
            Status::Error => self.errors.push(FileError {
                file: r.file.clone(),
                error: r.detail.clone().unwrap_or_default(),
            }),
            Status::Checked | Status::Unsupported => {}
        }
        if matches!(
            r.status,
            Status::Passed | Status::Failed | Status::Undecided | Status::Undefined
        ) {
            self.total += 1;
        }
    }

    /// Adds a file that could not be checked.
    pub fn add_error(&mut self, e: FileError) {
        self.records.push(Record {
            file: e.file.clone(),
            property: None,
            query: None,
            expected: None,
            actual: "error".into(),
            status: Status::Error,
            complete: false,
            states: 0,
            races: 0,
            executions: 0,
            cut_paths: 0,
            truncated: false,
            time_ms: 0.0,
            detail: Some(e.error.clone()),
            annotated: false,
            group: None,
            unread: false,
        });
        self.errors.push(e);
    }

    /// The process exit code: 2 when some input could not be checked, else
    /// 1 on a mismatch, else 3 when some answer is undecided or rests on
    /// undefined behaviour, else 0.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            2
        } else if !self.failed.is_empty() {
            1
        } else if !self.undecided.is_empty() || !self.undefined_behaviour.is_empty() {
            3
        } else {
            0
        }
    }
}

/// One file a suite checks, with the verdict its CSV row expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteItem {
    pub path: PathBuf,
    /// `Some(holds)` for a CSV row; `None` for a `.test` file (its queries
    /// carry their own expectations).
    pub expected: Option<bool>,
    /// The CSV row is `annotated` (see [`Record::annotated`]).
    pub annotated: bool,
    /// A six-column row's property, bound and three-valued verdict.
    pub row: Option<super::expected::RowSpec>,
    /// A shader manifest's row: its dispatch, inputs, question and verdict.
    pub manifest: Option<Box<super::manifest::ManifestRow>>,
}

/// The items of a suite: the rows of `expected` (paths relative to `dir`),
/// or every test file below `dir` (`.test` and `.litmus`). Bad CSV rows are
/// returned as errors; the good rows still run. The CSV is read under the
/// default memory bound ([`plan_within`] takes a request's).
pub fn plan(
    dir: &Path,
    expected: Option<&Path>,
) -> Result<(Vec<SuiteItem>, Vec<FileError>), String> {
    plan_within(dir, expected, Some(crate::memory::DEFAULT_MAX_MEMORY))
}

/// [`plan`] with the CSV read under `bound`, the memory bound of the
/// request running the suite (`None`: none).
pub fn plan_within(
    dir: &Path,
    expected: Option<&Path>,
    bound: Option<usize>,
) -> Result<(Vec<SuiteItem>, Vec<FileError>), String> {
    if let Some(csv) = expected {
        let text = crate::memory::read_input_text(csv, bound)
            .map_err(|e| format!("{}: {e}", csv.display()))?;
        let name = csv.display().to_string();
        let (rows, bad) = super::expected::parse_rows(&name, &text, dir);
        let items = rows
            .into_iter()
            .map(|r| SuiteItem {
                path: r.path,
                expected: Some(r.holds),
                annotated: r.annotated,
                row: r.spec,
                manifest: None,
            })
            .collect();
        let errors = bad
            .into_iter()
            .map(|error| FileError {
                file: name.clone(),
                error,
            })
            .collect();
        return Ok((items, errors));
    }
    let mut files = Vec::new();
    let mut seen = Vec::new();
    collect_tests(dir, &mut files, &mut seen)
        .map_err(|e| format!("{}: cannot read folder: {e}", dir.display()))?;
    if files.is_empty() {
        return Err(format!(
            "{}: no .test or .litmus files found below it",
            dir.display()
        ));
    }
    let items = files
        .into_iter()
        .map(|path| SuiteItem {
            path,
            expected: None,
            annotated: false,
            row: None,
            manifest: None,
        })
        .collect();
    Ok((items, Vec::new()))
}

/// The items of a shader manifest (`manifest`, with the inputs file
/// `inputs`): one per row; rows that cannot be read are errors naming
/// their CSV line, and row numbers of the inputs file that name no row
/// errors naming their line and column there. The files are read under `bound`, the memory bound of
/// the request running the suite (`None`: none).
pub fn plan_manifest(
    manifest: &Path,
    inputs: Option<&Path>,
    bound: Option<usize>,
) -> Result<(Vec<SuiteItem>, Vec<FileError>), String> {
    let (rows, bad) = super::manifest::read_within(manifest, inputs, bound)?;
    let items = rows
        .into_iter()
        .map(|r| SuiteItem {
            path: r.path.clone(),
            expected: Some(r.holds),
            annotated: false,
            row: None,
            manifest: Some(Box::new(r)),
        })
        .collect();
    let errors = bad
        .into_iter()
        .map(|b| FileError {
            error: format!("{}: {}", b.place, b.message),
            file: b.place,
        })
        .collect();
    Ok((items, errors))
}

/// Keeps the items of shard `k` of `n` (1-based: `k` in 1..=n): every
/// n-th item starting with the k-th, so shards are balanced across a
/// sorted suite and their union is the whole suite.
pub fn shard(items: Vec<SuiteItem>, k: usize, n: usize) -> Vec<SuiteItem> {
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| n > 0 && i % n == k.wrapping_sub(1))
        .map(|(_, it)| it)
        .collect()
}

/// Test files below `dir`, sorted, each folder read once (a symbolic link
/// back to a folder already read is skipped).
fn collect_tests(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    let canonical = std::fs::canonicalize(dir)?;
    if seen.contains(&canonical) {
        return Ok(());
    }
    seen.push(canonical);
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect_tests(&p, out, seen)?;
        } else if Format::of_path(&p).is_some() {
            out.push(p);
        }
    }
    Ok(())
}

/// Scores the results of a suite's items (same order) into a summary.
/// `errors` are the suite's own (bad CSV rows).
pub fn score(
    items: &[SuiteItem],
    results: Vec<Result<Checked, FileError>>,
    errors: Vec<FileError>,
    property: Property,
    time: Duration,
) -> Summary {
    let mut s = Summary::new(&[], errors, time);
    for (item, res) in items.iter().zip(results) {
        if let Ok(c) = &res {
            s.add_warnings(c.warnings());
        }
        if let Some(row) = &item.row {
            s.add_row(item, row, res);
            continue;
        }
        if let Some(row) = &item.manifest {
            s.add_manifest_row(item, row, res);
            continue;
        }
        let record = match res {
            Ok(Checked::Litmus(o)) => litmus_record(item, &o, property),
            Ok(Checked::Termination(o)) => termination_record(item, &o),
            Ok(Checked::Queries(o)) => {
                s.files += 1;
                s.add_queries(&o);
                continue;
            }
            Err(e) if e.is_limit() => {
                s.unread += 1;
                limit_record(item, property, &e)
            }
            Err(e) => {
                s.add_error(e);
                continue;
            }
        };
        s.files += 1;
        s.count(&record);
        s.records.push(record);
    }
    s
}

/// A CSV row's (or litmus file's) status: passed when `actual` is the
/// expectation, undecided when it is unknown because of a bound.
fn status_of(expected: Option<bool>, actual: Option<bool>, bounded: bool) -> Status {
    match (expected, actual) {
        (None, _) => Status::Checked,
        (Some(e), Some(a)) if e == a => Status::Passed,
        (Some(_), None) if bounded => Status::Undecided,
        _ => Status::Failed,
    }
}

/// The record of a CSV row (or litmus file) with what every kind shares.
fn row_record(item: &SuiteItem, property: Property, actual: String, status: Status) -> Record {
    Record {
        file: item.path.display().to_string(),
        property: Some(property),
        query: None,
        expected: item.expected.map(|e| u8::from(e).to_string()),
        actual,
        status,
        complete: false,
        states: 0,
        races: 0,
        executions: 0,
        cut_paths: 0,
        truncated: false,
        time_ms: 0.0,
        detail: None,
        annotated: item.annotated,
        group: None,
        unread: false,
    }
}

/// The record of a file a limit stopped before it was read and lowered
/// ([`FileError::is_limit`]): undecided, with why.
fn limit_record(item: &SuiteItem, property: Property, e: &FileError) -> Record {
    Record {
        truncated: true,
        unread: true,
        detail: Some(e.limit_reason().unwrap_or(&e.error).to_string()),
        ..row_record(item, property, "undecided".into(), Status::Undecided)
    }
}

fn litmus_record(item: &SuiteItem, o: &LitmusOutcome, property: Property) -> Record {
    let actual = o.holds(property);
    // Whatever left the answer open (a limit, the unrolling bound,
    // attributions left out) makes a missing verdict undecided, not wrong.
    let bounded = o.truncated || o.cut_paths > 0 || !o.complete();
    let mut status = status_of(item.expected, actual, bounded);
    let mut detail = item
        .expected
        .filter(|_| status != Status::Passed)
        .map(|e| mismatch_detail(o, property, e, actual));
    // A file checked without expectation is undecided exactly when `check`
    // on it is (its exit code 3): some answer of its report is open.
    if item.expected.is_none() && !o.complete() {
        status = Status::Undecided;
        detail = Some(
            o.states_incomplete()
                .unwrap_or_else(|| "the race verdict is open".into()),
        );
    }
    if o.rests_on_undefined(property) {
        status = Status::Undefined;
        detail = Some(undefined_detail(
            o,
            property,
            item.expected.map(|e| u8::from(e).to_string()),
        ));
    }
    let actual = match (actual, item.expected) {
        (Some(h), Some(_)) => u8::from(h).to_string(),
        (Some(true), None) => "Ok".into(),
        (Some(false), None) => "No".into(),
        (None, _) if bounded => "undecided".to_string(),
        (None, _) => "-".into(),
    };
    Record {
        complete: o.complete(),
        states: o.states.len(),
        races: o.races.len(),
        executions: o.executions,
        cut_paths: o.cut_paths,
        truncated: o.truncated,
        time_ms: o.time.as_secs_f64() * 1000.0,
        detail,
        ..row_record(item, property, actual, status)
    }
}

/// A termination row: `1` terminates, `0` runs forever. A `terminates`
/// found within the unrolling bound only is compared as Dat3M's bounded
/// verdicts are (its rows say which bound), and the record says it is not
/// complete; a witness needing more iterations than the bound is undecided.
fn termination_record(item: &SuiteItem, o: &super::termination::TerminationOutcome) -> Record {
    let actual = o.terminates();
    let mut status = status_of(item.expected, actual, o.truncated);
    if status == Status::Failed && o.bounded() {
        status = Status::Undecided;
    }
    if item.expected.is_none() && actual.is_none() {
        status = Status::Undecided;
    }
    let detail = (status != Status::Passed && status != Status::Checked).then(|| {
        let got = match o.verdict {
            super::termination::Verdict::Terminates if o.bounded() => format!(
                "no non-terminating execution within unroll {} ({} paths cut: raise --unroll)",
                o.unroll, o.cut_paths,
            ),
            super::termination::Verdict::Terminates => "terminates".into(),
            super::termination::Verdict::NonTerminating => {
                let w = o.witness.as_ref().map(super::termination::witness_line);
                format!("non-terminating: {}", w.unwrap_or_default())
            }
            super::termination::Verdict::Undecided => format!(
                "undecided ({} at unroll {}{})",
                o.stopped_by
                    .map_or("a limit", crate::engine::LimitKind::short),
                o.unroll,
                o.searched_within.map_or(String::new(), |u| format!(
                    "; no non-terminating execution within unroll {u}"
                ))
            ),
        };
        format!(
            "Termination under {}: expected {}, got {got}",
            o.progress,
            item.expected
                .map_or("-".into(), |e| u8::from(e).to_string())
        )
    });
    let actual = match (actual, item.expected) {
        (Some(h), Some(_)) => u8::from(h).to_string(),
        (Some(true), None) => "terminates".into(),
        (Some(false), None) => "non-terminating".into(),
        (None, _) => "undecided".into(),
    };
    Record {
        complete: o.complete(),
        executions: o.executions,
        cut_paths: o.cut_paths,
        truncated: o.truncated,
        time_ms: o.time.as_secs_f64() * 1000.0,
        detail,
        ..row_record(item, Property::Termination, actual, status)
    }
}

/// The marker of an error about a construct outside the IR (front ends
/// write `unsupported construct `OpX`: why`).
pub const UNSUPPORTED_CONSTRUCT: &str = "unsupported construct";

impl Summary {
    /// Scores a shader manifest's row: the expected and the actual verdict
    /// in the manifest's words (`racy`, `race-free`, `terminates`,
    /// `may-not-terminate`, `holds`, `fails`), or `undecided` with what
    /// stopped the search, never a verdict for an incomplete search.
    fn add_manifest_row(
        &mut self,
        item: &SuiteItem,
        row: &super::manifest::ManifestRow,
        res: Result<Checked, FileError>,
    ) {
        use super::manifest::Question;
        let property = match row.question {
            Question::Races => Property::Races,
            Question::Termination(_) => Property::Termination,
            Question::Assertion(_) => Property::Condition,
        };
        let mut record = Record {
            file: row.label(),
            query: Some(row.property.clone()),
            expected: Some(row.expected.clone()),
            ..row_record(item, property, String::new(), Status::Error)
        };
        // The first racing pair, where a race row fails on it: the places
        // of its two accesses (a header's file among them).
        let mut race = None;
        let actual = match res {
            Err(e) if e.is_limit() => {
                record.actual = "undecided".into();
                record.status = Status::Undecided;
                record.truncated = true;
                record.unread = true;
                record.detail = Some(e.limit_reason().unwrap_or(&e.error).to_string());
                // The row is one of the suite's, undecided: it counts
                // (as a row not read), not as nothing.
                self.files += 1;
                self.unread += 1;
                self.count(&record);
                self.records.push(record);
                return;
            }
            Err(e) => {
                record.actual = "error".into();
                record.detail = Some(e.error.clone());
                self.errors.push(FileError {
                    file: row.label(),
                    error: e.error,
                });
                self.records.push(record);
                return;
            }
            Ok(Checked::Queries(_)) => {
                record.actual = "error".into();
                record.detail = Some("a manifest row names a .test file".into());
                self.count(&record);
                self.records.push(record);
                return;
            }
            Ok(Checked::Termination(o)) => {
                record.complete = o.complete();
                record.executions = o.executions;
                record.cut_paths = o.cut_paths;
                record.truncated = o.truncated;
                record.time_ms = o.time.as_secs_f64() * 1000.0;
                let actual = if o.complete() { o.terminates() } else { None };
                if actual.is_none() {
                    record.detail = Some(format!(
                        "undecided under {}: {}",
                        o.progress,
                        undecided_why(o.cut_paths, o.truncated, o.stopped_by)
                    ));
                }
                actual
            }
            Ok(Checked::Litmus(o)) => {
                record.complete = o.complete();
                record.states = o.states.len();
                record.races = o.races.len();
                record.executions = o.executions;
                record.cut_paths = o.cut_paths;
                record.truncated = o.truncated;
                record.time_ms = o.time.as_secs_f64() * 1000.0;
                if o.rests_on_undefined(property) {
                    record.actual = "undefined".into();
                    record.status = Status::Undefined;
                    record.detail = Some("the verdict rests on undefined behaviour (an out-of-bounds access): check the inputs (runtime-array lengths)".into());
                    self.files += 1;
                    self.count(&record);
                    self.records.push(record);
                    return;
                }
                let actual = o.holds(property);
                race = o
                    .races
                    .first()
                    .filter(|_| property == Property::Races)
                    .map(|r| format!(": race on {}: {} <-> {}", r.location, r.first, r.second));
                if actual.is_none() {
                    record.detail = Some(if o.cut_paths > 0 || o.truncated {
                        format!(
                            "undecided: {}",
                            undecided_why(o.cut_paths, o.truncated, o.stopped_by)
                        )
                    } else {
                        "undecided".into()
                    });
                }
                actual
            }
        };
        self.files += 1;
        match actual {
            Some(h) => {
                record.actual = row.word(h).to_string();
                record.status = if h == row.holds {
                    Status::Passed
                } else {
                    Status::Failed
                };
                if record.status == Status::Failed {
                    record.detail = Some(format!(
                        "expected {}, got {}{}",
                        row.expected,
                        record.actual,
                        race.unwrap_or_default()
                    ));
                }
            }
            None => {
                record.actual = "undecided".into();
                record.status = Status::Undecided;
            }
        }
        self.count(&record);
        self.records.push(record);
    }

    /// Scores a six-column row: PASS / FAIL / UNKNOWN against its expectation.
    fn add_row(
        &mut self,
        item: &SuiteItem,
        row: &super::expected::RowSpec,
        res: Result<Checked, FileError>,
    ) {
        use super::expected::{RowProperty, Verdict};
        let file = item.path.display().to_string();
        let group = Some(if row.checked { "checked" } else { "annotated" }.to_string());
        let property = match row.property {
            RowProperty::Assertions => Property::Condition,
            RowProperty::Races => Property::Races,
            RowProperty::Termination => Property::Termination,
        };
        let mut record = Record {
            expected: Some(row.expected.name().to_string()),
            group,
            ..row_record(item, property, String::new(), Status::Unsupported)
        };
        match (property, res) {
            (_, Err(e)) if e.error.contains(UNSUPPORTED_CONSTRUCT) => {
                record.actual = "unsupported".into();
                record.detail = Some(e.error.clone());
            }
            (_, Err(e)) if e.is_limit() => {
                self.files += 1;
                self.unread += 1;
                record.actual = "undecided".into();
                record.status = Status::Undecided;
                record.truncated = true;
                record.unread = true;
                record.detail = Some(e.limit_reason().unwrap_or(&e.error).to_string());
            }
            (_, Err(e)) => {
                self.add_error(e);
                if let Some(r) = self.records.last_mut() {
                    r.group = record.group;
                }
                return;
            }
            (_, Ok(Checked::Termination(o))) => {
                self.files += 1;
                // Dat3M's bounded verdicts: no witness within the bound is PASS.
                let actual = Verdict::of(o.terminates());
                record.actual = actual.name().to_string();
                record.complete = o.complete();
                record.executions = o.executions;
                record.cut_paths = o.cut_paths;
                record.truncated = o.truncated;
                record.time_ms = o.time.as_secs_f64() * 1000.0;
                record.status = if actual == row.expected {
                    Status::Passed
                } else if actual == Verdict::Unknown
                    || (o.bounded() && row.expected == Verdict::Fail)
                {
                    Status::Undecided
                } else {
                    Status::Failed
                };
                if record.status != Status::Passed {
                    record.detail = Some(format!(
                        "bound {}, progress {}: expected {}, got {} ({})",
                        row.bound,
                        o.progress,
                        row.expected.name(),
                        actual.name(),
                        o.witness
                            .as_ref()
                            .map_or("no witness".into(), super::termination::witness_line)
                    ));
                }
            }
            (_, Ok(Checked::Queries(_))) => {
                self.add_error(FileError {
                    file,
                    error: "a six-column row names a .test file".into(),
                });
                return;
            }
            (p, Ok(Checked::Litmus(o))) => {
                self.files += 1;
                let actual = Verdict::of(o.holds(p));
                record.actual = actual.name().to_string();
                record.complete = o.complete();
                record.states = o.states.len();
                record.races = o.races.len();
                record.executions = o.executions;
                record.cut_paths = o.cut_paths;
                record.truncated = o.truncated;
                record.time_ms = o.time.as_secs_f64() * 1000.0;
                let detail = format!(
                    "bound {}: {}",
                    row.bound,
                    mismatch_detail(&o, p, row.expected == Verdict::Pass, o.holds(p))
                );
                record.status = if actual == row.expected {
                    Status::Passed
                } else if actual == Verdict::Unknown {
                    Status::Undecided
                } else {
                    Status::Failed
                };
                if record.status != Status::Passed {
                    record.detail = Some(detail);
                }
                if o.rests_on_undefined(p) {
                    record.status = Status::Undefined;
                    record.detail = Some(format!(
                        "bound {}: {}",
                        row.bound,
                        undefined_detail(&o, p, Some(row.expected.name().to_string()))
                    ));
                }
            }
        }
        self.count(&record);
        self.records.push(record);
    }
}

/// Why a check has no verdict: the out-of-bounds accesses its verdict
/// rests on (the first three, with how many executions take each), and
/// the verdict on the in-bounds accesses.
pub fn undefined_detail(o: &LitmusOutcome, property: Property, expected: Option<String>) -> String {
    let u = &o.undefined;
    let mut sites: Vec<String> = u
        .out_of_bounds
        .iter()
        .take(3)
        .map(|a| {
            format!(
                "{} at {}:{} (`{}`, {}) in {}",
                a.variable,
                a.file.as_deref().unwrap_or(&o.file),
                a.line,
                a.instruction,
                super::phrases::who(&a.threads),
                super::phrases::count(a.executions, "execution", "executions")
            )
        })
        .collect();
    if u.out_of_bounds.len() > 3 {
        sites.push(format!("{} more", u.out_of_bounds.len() - 3));
    }
    let verdict = match o.holds(property) {
        Some(true) if property == Property::Races => "race-free".to_string(),
        Some(false) if property == Property::Races => "races".to_string(),
        Some(h) => u8::from(h).to_string(),
        None => "undecided".to_string(),
    };
    format!(
        "{property:?}: undefined behaviour: out-of-bounds access to {} ({} of {} consistent executions{}); on the in-bounds accesses: {verdict}{}",
        sites.join("; "),
        u.executions,
        o.consistent,
        if o.stopped_early || o.truncated || o.cut_paths > 0 {
            ", of those seen"
        } else {
            ""
        },
        expected.map_or(String::new(), |e| format!(" (expected {e})"))
    )
}

/// Why a CSV row disagrees: the verdicts, the witnesses and the outcome list.
pub fn mismatch_detail(
    o: &LitmusOutcome,
    property: Property,
    expected: bool,
    actual: Option<bool>,
) -> String {
    let actual = match actual {
        Some(h) => u8::from(h).to_string(),
        None if o.truncated => format!(
            "undecided ({})",
            o.stopped_by
                .map_or("a limit", crate::engine::LimitKind::short)
        ),
        None if o.cut_paths > 0 => {
            "undecided (the loop unrolling bound cut paths: raise --unroll)".into()
        }
        None => "no condition".into(),
    };
    let mut states: Vec<String> = o
        .states
        .iter()
        .take(8)
        .map(|(s, n)| {
            let cells: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({n})", cells.join(" "))
        })
        .collect();
    if o.states.len() > 8 {
        states.push(format!("... {} more", o.states.len() - 8));
    }
    // The outcome-directed walk evaluates one witness per state, and only
    // states that could decide the condition: its counts are witnesses.
    let counted = if o.condition_only {
        " witnesses (condition only: states that could not decide were skipped)"
    } else if o.states_only {
        " witnesses"
    } else {
        ""
    };
    let mut d = format!(
        "{property:?}: expected {}, got {actual}; {} positive, {} negative{counted}; states: [{}]",
        u8::from(expected),
        o.positive,
        o.negative,
        states.join("; ")
    );
    if let Some(r) = o.races.first() {
        d.push_str(&format!(
            "; race on {}: {} <-> {}",
            r.location, r.first, r.second
        ));
    }
    if let Some(r) = o.races.first()
        && !r.stopped_at_bound.is_empty()
    {
        d.push_str(&format!(
            " (in the execution where {})",
            r.stopped_at_bound.join("; ")
        ));
    }
    if o.cut_paths > 0 {
        d.push_str(&format!("; bound hit ({} paths cut)", o.cut_paths));
    }
    if let Some(p) = o.prefix_walk
        && property == Property::Races
        && o.races.is_empty()
    {
        d.push_str(&format!("; no race among {}", p.describe()));
    }
    if o.stopped_early {
        d.push_str("; search stopped once decided");
    }
    d
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Why a row's answer is undecided, in the suite's words: the limit that
/// stopped the search, where one did, and the paths the unrolling bound
/// cut, where it cut some; both when both hold (a search the time limit
/// stops while the bound had cut paths is not undecided for the paths
/// alone).
pub(super) fn undecided_why(
    cut_paths: usize,
    truncated: bool,
    stopped_by: Option<crate::engine::LimitKind>,
) -> String {
    let stopped = match (truncated, stopped_by) {
        (true, Some(kind)) => Some(format!("stopped {}", kind.describe())),
        (true, None) => Some("a limit (executions, time or memory) stopped the search".into()),
        (false, _) => None,
    };
    let cut = (cut_paths > 0).then(|| {
        let paths = if cut_paths == 1 { "path" } else { "paths" };
        format!("{cut_paths} thread {paths} cut by the unrolling bound (raise --unroll)")
    });
    match (stopped, cut) {
        (Some(s), Some(c)) => format!("{s}; {c}"),
        (Some(s), None) => s,
        (None, Some(c)) => c,
        (None, None) => "a limit stopped the search".into(),
    }
}

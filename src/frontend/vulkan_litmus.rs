//! Parser for herd-style `.litmus` tests in the Vulkan dialect of the Dat3M
//! verifier (its `litmus/VULKAN/` suite).
//!
//! Owns everything about that format: the header and its quoted comments,
//! the initial state, the system-synchronizes-with block, the thread
//! declaration row, the instruction rows, and the final clauses. A test reads
//!
//! ```text
//! VULKAN name
//! "optional comments, possibly over several lines"
//! { x=0; P1:r0=0; y aliases x; }
//! { ssw 0 1; }                                  (optional)
//!  P0@sg 0, wg 0, qf 0   | P1@sg 1, wg 0, qf 0             ;
//!  st.av.dv.sc0 x, 1     | ld.atom.acq.wg.sc0.semsc0 r0, y ;
//!  ...
//! locations [x;]                                (optional)
//! filter (P1:r0 == 1)                           (optional)
//! exists (P1:r0 == 1 /\ P1:r1 == 0)             (or ~exists, forall; optional)
//! ```
//!
//! Each instruction row has one cell per thread, `|`-separated and ended by
//! `;`; the statements of thread `k` are the non-empty cells of column `k`.
//! Statements: `ld`, `st`, `rmw` (with an optional operation token), `membar`,
//! `cbar N`, `avdevice`, `visdevice`, local arithmetic `add r, a, b` (also
//! `sub`, `mul`, `and`, `or`, `xor`), labels `L:`, `goto L` and branches
//! `beq a, b, L` (also `bne`, `blt`, `ble`, `bgt`, `bge`). Attribute tokens
//! may come in any order; their meaning, the implicit attributes of atomics
//! and the validation rules are shared with the `.test` front end.
//!
//! Subgroups and workgroups are numbered within their workgroup and queue
//! family in the file; the IR compares plain numbers, so each distinct
//! (qf, wg, sg) triple gets a fresh subgroup id and each (qf, wg) pair a fresh
//! workgroup id.
//!
//! `(* ... *)` comments are skipped between tokens. Everything between the
//! header line and the `{` of the initial state is commentary (Dat3M skips
//! it too; `Kronos-Group/corr.litmus` nests quotes inside its comment).
//!
//! The tokenizer, the header and the final clauses (with the condition
//! grammar) are the herd litmus skeleton shared with the OpenCL dialect:
//! see [`super::litmus`]. This module parses the initial state, the ssw
//! block and the rows, and fills [`Program::symbols`] for the conditions.

use super::attributes::{Attrs, LITMUS};
use super::litmus::lexer::{Lexer, PErr, R, Src, Tok, Token, VULKAN, thread_name, thread_of};
use super::litmus::{Syntax, condition, header};
use super::{FrontendError, FrontendWarning, suggest};
use crate::ir::{
    ArithOp, Cmp, Dialect, Fragment, Instruction, InterlockGranularity, InterlockMode, OpKind,
    Operand, Program, Reference, RmwOp, SourceSpan, Stmt, Thread,
};
use std::collections::{HashMap, HashSet};

/// Parses the text of a Vulkan `.litmus` file. `file` is used in error
/// messages and (its stem) as the test name when the header has none.
pub fn parse(file: &str, text: &str) -> Result<Program, FrontendError> {
    super::check_litmus_architecture(file, text)?;
    let src = Src::new(text);
    let mut p = Parser::new(file, &src);
    p.run().map_err(|e| src.error(file, e))?;
    Ok(p.program)
}

/// How this dialect spells interlock, for the lints' messages.
const INTERLOCK: crate::ir::interlock::InterlockSpelling =
    crate::ir::interlock::InterlockSpelling {
        begin: "beginil",
        end: "endil",
        scope: "fi",
        placement: "`, prim N, pixel N` after `qf N` in its declaration",
    };

const FINAL_KEYWORDS: &[&str] = &["exists", "forall", "filter", "locations", "not", "final"];

const RMW_OPS: &[(&str, RmwOp)] = &[
    ("add", RmwOp::Add),
    ("sub", RmwOp::Sub),
    ("and", RmwOp::And),
    ("or", RmwOp::Or),
    ("xor", RmwOp::Xor),
    ("min", RmwOp::Min),
    ("max", RmwOp::Max),
];

const ARITH_OPS: &[(&str, ArithOp)] = &[
    ("add", ArithOp::Add),
    ("sub", ArithOp::Sub),
    ("mul", ArithOp::Mul),
    ("and", ArithOp::And),
    ("or", ArithOp::Or),
    ("xor", ArithOp::Xor),
];

const BRANCHES: &[(&str, Cmp)] = &[
    ("beq", Cmp::Eq),
    ("bne", Cmp::Ne),
    ("blt", Cmp::Lt),
    ("ble", Cmp::Le),
    ("bgt", Cmp::Gt),
    ("bge", Cmp::Ge),
];

/// How many statements pass between two readings of the request's
/// deadline and memory bound while a file is read.
const STATEMENTS_PER_CHECK: usize = 4096;

/// The message to stop reading with at the memory bound.
fn memory_is_up() -> String {
    format!(
        "{} while the Vulkan litmus file was read",
        crate::memory::MEMORY_IS_UP
    )
}

/// The message to stop with when the request's deadline has passed
/// ([`crate::frontend::clock::time_is_up`]) or the process holds more than
/// its memory bound ([`crate::memory::over_input_bound`]); the session
/// reports either as undecided.
fn out_of_bounds() -> Result<(), String> {
    if crate::frontend::clock::time_is_up() {
        return Err(crate::frontend::clock::TIME_IS_UP.into());
    }
    if crate::frontend::clock::over_input_memory() {
        return Err(memory_is_up());
    }
    Ok(())
}

/// The memory and barrier opcodes (and `goto`), space-separated.
const INSTRUCTIONS: &str =
    "ld st rmw membar cbar avdevice visdevice free beginil endil trace call report cmld cmst goto";

const UNKNOWN_INSTRUCTION: &str = "expected ld, st, rmw, membar, cbar, avdevice, visdevice, free, beginil, endil, trace, call, report, cmld, cmst, add, sub, mul, and, or, xor, beq, bne, blt, ble, bgt, bge, goto or a label `L:`";

/// What the parser learns about one thread's registers and labels.
#[derive(Default)]
struct ThreadInfo {
    /// `sg`, `wg` and `qf` as the declaration numbers them (invocations only).
    scope_numbers: Option<[usize; 3]>,
    /// Registers initialised or written (ld/rmw destinations, assignments).
    defined: HashSet<String>,
    /// Registers read, with where.
    reads: Vec<(String, usize)>,
    /// Labels defined, with where.
    labels: HashMap<String, usize>,
    /// Labels jumped to, with where.
    jumps: Vec<(String, usize)>,
    /// Control barrier instances, with where.
    barriers: Vec<(u32, usize)>,
    /// Where each statement of the thread's code starts.
    stmt_at: Vec<usize>,
}

/// A row: the character ranges of its cells (trimmed) and of its `;`.
struct Row {
    cells: Vec<(usize, usize)>,
    semi: usize,
}

struct Parser<'a> {
    file: &'a str,
    src: &'a Src,
    program: Program,
    /// Reference name -> reference index.
    refs: HashMap<String, usize>,
    /// Where each location's initial value was given.
    init_at: Vec<Option<usize>>,
    /// `Pn:reg=v` entries: thread, register, value, where the thread and
    /// the register were written.
    reg_inits: Vec<(usize, String, i64, usize, usize)>,
    /// `ssw a b` and `gen a b` entries with where a and b were written
    /// (the last field: `gen`).
    ssws: Vec<(usize, usize, usize, usize, bool)>,
    /// Cooperative matrix instructions, checked once every thread is read.
    coops: Vec<coop::CoopUse>,
    infos: Vec<ThreadInfo>,
    /// How many references the initial state declares (the first ones).
    declared: usize,
    /// Where the `interlock` entry was.
    interlock_at: Option<usize>,
    /// The API operations, with where they were written (docs/host.md).
    api_uses: Vec<host::ApiUse>,
    /// Transfer commands read but whose threads are not yet added.
    transfers: Vec<host::PendingTransfer>,
    /// How many threads, the last, are transfer threads (docs/host.md,
    /// "Transfer commands").
    transfer_threads: usize,
}

impl<'a> Parser<'a> {
    fn new(file: &'a str, src: &'a Src) -> Self {
        Parser {
            file,
            src,
            program: Program::default(),
            refs: HashMap::new(),
            init_at: Vec::new(),
            reg_inits: Vec::new(),
            ssws: Vec::new(),
            coops: Vec::new(),
            infos: Vec::new(),
            declared: 0,
            interlock_at: None,
            api_uses: Vec::new(),
            transfers: Vec::new(),
            transfer_threads: 0,
        }
    }

    fn lexer(&self, pos: usize) -> Lexer<'a> {
        Lexer::new(self.src, VULKAN, pos, self.src.chars.len())
    }

    fn run(&mut self) -> R<()> {
        let head = header::header(self.file, self.src);
        let mut lx = self.lexer(head.body(self.src, VULKAN)?);
        self.program.name = head.name;
        self.init_block(&mut lx)?;
        self.declared = self.program.references.len();
        if lx.peek()?.is_punct("{") {
            self.ssw_block(&mut lx)?;
        }
        let pos = self.program_rows(lx.pos)?;
        self.add_transfer_threads();
        self.check_program()?;
        // Cooperative matrix instructions whose attribution the test leaves
        // open: the program before lowering holds every element access.
        let open = self
            .coops
            .iter()
            .any(|c| c.open)
            .then(|| self.program.clone());
        // Sized variables: one location per chunk of bytes (src/ir/bytes.rs).
        let layout = match crate::ir::bytes::lower(&mut self.program) {
            Ok(layout) => layout,
            Err(e) => {
                let at = self
                    .infos
                    .get(e.thread)
                    .and_then(|i| i.stmt_at.get(e.stmt))
                    .copied()
                    .unwrap_or(0);
                return Err((at, e.message));
            }
        };
        self.final_section(pos, &layout)?;
        if let Some(full) = open {
            self.expand_attributions(&full)?;
        }
        Ok(())
    }

    /// Replaces the program by its first attribution, the others its
    /// alternatives (src/ir/attribution.rs). The elements of open
    /// instances are whole locations, so every attribution lowers the
    /// sized variables into the chunks the whole program has.
    fn expand_attributions(&mut self, full: &Program) -> R<()> {
        let (alternatives, total) = self.attribution_alternatives(full);
        let mut built: Vec<Program> = Vec::new();
        for (name, mut p) in alternatives {
            if let Err(e) = crate::ir::bytes::lower(&mut p) {
                let at = self.coops.iter().find(|c| c.open).map_or(0, |c| c.at);
                return Err((at, e.message));
            }
            p.symbols = self.program.symbols.clone();
            p.condition = self.program.condition.clone();
            p.shown_locations = self.program.shown_locations.clone();
            p.warnings = self.program.warnings.clone();
            p.attributions.this = Some(name);
            p.attributions.total = total;
            built.push(p);
        }
        let mut first = built.remove(0);
        first.attributions.others = built;
        self.program = first;
        Ok(())
    }

    // ----- initial state ---------------------------------------------------

    fn init_block(&mut self, lx: &mut Lexer<'_>) -> R<()> {
        let open = lx.expect("{", "to open the initial state")?;
        loop {
            let t = lx.next()?;
            match &t.tok {
                Tok::Punct("}") => break,
                Tok::Punct(";") => continue,
                Tok::Eof => {
                    return Err((
                        open.at,
                        "unterminated initial state: expected `}` to close this `{`".into(),
                    ));
                }
                Tok::Ident(_) | Tok::Int(_) => {
                    self.init_entry(lx, t)?;
                    let sep = lx.peek()?;
                    if !(sep.is_punct(";") || sep.is_punct("}")) {
                        return Err((
                            sep.at,
                            format!(
                                "expected `;` after an initial-state entry, found {}",
                                sep.show()
                            ),
                        ));
                    }
                }
                _ => {
                    return Err((
                        t.at,
                        format!(
                            "expected an initial-state entry (`x=0;`, `P0:r0=0;` or `y aliases x;`), found {}",
                            t.show()
                        ),
                    ));
                }
            }
        }
        if lx.peek()?.is_punct(";") {
            lx.next()?;
        }
        Ok(())
    }

    /// `x=undef;`: a location allocated without an initializer. The Vulkan
    /// memory model appendix, Allocation: "The values stored in newly
    /// allocated memory locations are determined by a SPIR-V variable's
    /// initializer, if present, or else are undefined" ([`Program::undefined`];
    /// the engine walks the finite domain of `engine::undefined`, at most
    /// [`crate::ir::MAX_FRESH`] such locations).
    fn undefined_entry(&mut self, lx: &mut Lexer<'_>, name: &str, at: usize) -> R<()> {
        let word = lx.next()?;
        let r = self.reference(name);
        let loc = self.program.references[r].location;
        if let Some(prev) = self.init_at[loc] {
            return Err((
                at,
                format!(
                    "location `{}` already has an initial value (line {})",
                    self.program.locations[loc],
                    self.src.line(prev)
                ),
            ));
        }
        if self.program.sizes.contains_key(&loc) {
            return Err((
                word.at,
                format!(
                    "`{name}` has a size in bytes: an undefined initial value is for a one-location variable (`{name}=undef;`)"
                ),
            ));
        }
        let max = crate::ir::MAX_FRESH;
        if self.program.undefined.len() >= max {
            return Err((
                word.at,
                format!(
                    "at most {max} locations may start undefined (each read of one splits over a value domain with one fresh value per such location)"
                ),
            ));
        }
        self.init_at[loc] = Some(at);
        self.program.undefined.insert(loc);
        Ok(())
    }

    fn init_entry(&mut self, lx: &mut Lexer<'_>, first: Token) -> R<()> {
        if let (Some(thread), true) = (thread_of(&first), lx.peek()?.is_punct(":")) {
            lx.next()?;
            let (reg, reg_at) = lx.ident("a register name")?;
            lx.expect("=", "after the register")?;
            let v = lx.peek()?;
            if v.is_punct("&") || matches!(v.tok, Tok::Ident(_)) {
                return Err((
                    v.at,
                    "a register's initial value must be an integer (registers holding addresses are not supported)".into(),
                ));
            }
            let (value, _) = lx.integer("an integer value")?;
            self.reg_inits.push((thread, reg, value, first.at, reg_at));
            return Ok(());
        }
        let Tok::Ident(name) = &first.tok else {
            return Err((
                first.at,
                format!(
                    "expected a location name or `Pn:register`, found {}",
                    first.show()
                ),
            ));
        };
        if name == "interlock" && matches!(lx.peek()?.tok, Tok::Ident(_)) {
            return self.interlock_entry(lx, first.at);
        }
        if name == "mapped" && matches!(lx.peek()?.tok, Tok::Ident(_)) {
            return self.mapped_entry(lx, first.at);
        }
        let mut t = lx.next()?;
        if t.is_punct(":") {
            // `x:N` or `x:N=v`: a variable of N bytes (docs/format-vulkan-litmus.md,
            // "Memory locations as bytes").
            let (size, size_at) = lx.integer("the variable's size in bytes")?;
            let max = crate::ir::bytes::MAX_VARIABLE_BYTES;
            let size = u32::try_from(size)
                .ok()
                .filter(|s| (1..=max).contains(s))
                .ok_or((
                    size_at,
                    format!("a variable has 1 to {max} bytes, found {size}"),
                ))?;
            let r = self.reference(name);
            let loc = self.program.references[r].location;
            if self.program.undefined.contains(&loc) {
                return Err((
                    first.at,
                    format!(
                        "`{name}` starts undefined: an undefined initial value is for a one-location variable"
                    ),
                ));
            }
            if self.program.sizes.insert(loc, size).is_some() {
                return Err((first.at, format!("`{name}` already has a size")));
            }
            if !lx.peek()?.is_punct("=") {
                return Ok(());
            }
            t = lx.next()?;
        }
        if t.is_punct("=") {
            let v = lx.peek()?;
            if v.is_ident("undef") {
                return self.undefined_entry(lx, name, first.at);
            }
            if v.is_punct("&") || matches!(v.tok, Tok::Ident(_)) {
                return Err((
                    v.at,
                    "a location's initial value must be an integer (use `y aliases x;` for two names of one location)".into(),
                ));
            }
            let (value, _) = lx.integer("an integer value")?;
            let r = self.reference(name);
            let loc = self.program.references[r].location;
            if let Some(prev) = self.init_at[loc] {
                return Err((
                    first.at,
                    format!(
                        "location `{}` already has an initial value (line {})",
                        self.program.locations[loc],
                        self.src.line(prev)
                    ),
                ));
            }
            self.init_at[loc] = Some(first.at);
            self.program.initial_values[loc] = value;
            Ok(())
        } else if t.is_ident("aliases") {
            let (target, target_at) = lx.ident("the name of a location")?;
            if self.refs.contains_key(name) {
                return Err((first.at, format!("`{name}` is already declared")));
            }
            let Some(&tr) = self.refs.get(&target) else {
                return Err((
                    target_at,
                    format!("`{target}` is not a location declared earlier in the initial state"),
                ));
            };
            let location = self.program.references[tr].location;
            self.refs
                .insert(name.clone(), self.program.references.len());
            self.program.references.push(Reference {
                name: name.clone(),
                location,
            });
            Ok(())
        } else {
            Err((
                t.at,
                format!(
                    "expected `=`, `:` (a size in bytes) or `aliases` after `{name}`, found {}",
                    t.show()
                ),
            ))
        }
    }

    /// `interlock pixel|sample|shadingrate ordered|unordered` (docs/interlock.md).
    fn interlock_entry(&mut self, lx: &mut Lexer<'_>, at: usize) -> R<()> {
        if let Some(prev) = self.interlock_at {
            return Err((
                at,
                format!(
                    "the interlock mode is declared twice (first at line {})",
                    self.src.line(prev)
                ),
            ));
        }
        self.interlock_at = Some(at);
        let (g, g_at) = lx.ident(InterlockGranularity::EXPECTED)?;
        let Some(granularity) = InterlockGranularity::from_keyword(&g) else {
            return Err((
                g_at,
                format!(
                    "expected {} (the interlock granularity) after `interlock`, found `{g}`",
                    InterlockGranularity::EXPECTED
                ),
            ));
        };
        let t = lx.next()?;
        let ordered = if t.is_ident("ordered") {
            true
        } else if t.is_ident("unordered") {
            false
        } else {
            return Err((
                t.at,
                format!(
                    "expected `ordered` or `unordered` after `interlock {g}`, found {}",
                    t.show()
                ),
            ));
        };
        self.program.interlock = InterlockMode {
            granularity,
            ordered,
        };
        Ok(())
    }

    /// The reference named `name`, created (with a new location) on first use.
    fn reference(&mut self, name: &str) -> usize {
        if let Some(&r) = self.refs.get(name) {
            return r;
        }
        let location = self.program.locations.len();
        self.program.locations.push(name.to_string());
        self.program.initial_values.push(0);
        self.init_at.push(None);
        let r = self.program.references.len();
        self.program.references.push(Reference {
            name: name.to_string(),
            location,
        });
        self.refs.insert(name.to_string(), r);
        r
    }

    /// The reference an instruction names at `at`. A name the initial state
    /// does not declare is created (starting at 0, as herd does) with a
    /// warning the first time: it is often a typo of a declared name.
    fn used(&mut self, name: &str, at: usize) -> usize {
        if let Some(&r) = self.refs.get(name) {
            return r;
        }
        let declared = self.program.references[..self.declared].iter();
        let hint = suggest::did_you_mean(name, declared.map(|r| r.name.as_str()));
        let (line, column) = self.src.line_col(at);
        self.program.warnings.push(FrontendWarning {
            file: self.file.to_string(),
            line,
            column,
            message: format!(
                "location `{name}` is not declared in the initial state: it starts at 0{hint}"
            ),
        });
        self.reference(name)
    }

    fn ssw_block(&mut self, lx: &mut Lexer<'_>) -> R<()> {
        let open = lx.expect("{", "to open the ssw block")?;
        loop {
            let t = lx.next()?;
            match &t.tok {
                Tok::Punct("}") => break,
                Tok::Punct(";") => continue,
                Tok::Eof => {
                    return Err((
                        open.at,
                        "unterminated ssw block: expected `}` to close this `{`".into(),
                    ));
                }
                Tok::Ident(s) if s == "ssw" || s == "gen" => {
                    let generates = s == "gen";
                    let mut ends = [(0, 0); 2];
                    for end in &mut ends {
                        let a = lx.next()?;
                        let Some(id) = thread_of(&a) else {
                            return Err((
                                a.at,
                                format!("expected a thread (`P0` or `0`), found {}", a.show()),
                            ));
                        };
                        *end = (id, a.at);
                    }
                    self.ssws
                        .push((ends[0].0, ends[1].0, ends[0].1, ends[1].1, generates));
                    let sep = lx.peek()?;
                    if !(sep.is_punct(";") || sep.is_punct("}")) {
                        return Err((
                            sep.at,
                            format!("expected `;` after `{s} i j`, found {}", sep.show()),
                        ));
                    }
                }
                _ => {
                    return Err((
                        t.at,
                        format!(
                            "expected `ssw i j;` (thread i system-synchronizes-with thread j) or `gen i j;` (thread i contributes to generating thread j: Shader I/O), found {}",
                            t.show()
                        ),
                    ));
                }
            }
        }
        if lx.peek()?.is_punct(";") {
            lx.next()?;
        }
        Ok(())
    }

    // ----- rows ------------------------------------------------------------

    /// Reads the row starting at `start`: cells up to the `;` that must end
    /// it on the same line.
    fn scan_row(&self, start: usize) -> R<Row> {
        let src = self.src;
        let trim = |a: usize, b: usize| {
            let (mut a, mut b) = (a, b);
            while a < b && src.chars[a].is_whitespace() {
                a += 1;
            }
            while b > a && src.chars[b - 1].is_whitespace() {
                b -= 1;
            }
            (a, b)
        };
        let mut cells = Vec::new();
        let mut cell_start = start;
        let mut i = start;
        loop {
            match src.get(i) {
                Some(';') => {
                    cells.push(trim(cell_start, i));
                    return Ok(Row { cells, semi: i });
                }
                Some('|') => {
                    cells.push(trim(cell_start, i));
                    cell_start = i + 1;
                }
                None | Some('\n') => {
                    let (_, end) = trim(start, i);
                    return Err((end, "expected `;` at the end of the row".into()));
                }
                Some(_) => {}
            }
            i += 1;
        }
    }

    /// Whether the next token starts the final clauses.
    fn at_final_section(lx: &Lexer<'_>) -> R<bool> {
        let t = lx.peek()?;
        Ok(match &t.tok {
            Tok::Ident(s) => FINAL_KEYWORDS.contains(&s.as_str()),
            Tok::Punct("~") | Tok::Eof => true,
            _ => false,
        })
    }

    /// The thread declaration row and the instruction rows; returns the
    /// index where the final clauses start.
    fn program_rows(&mut self, pos: usize) -> R<usize> {
        let mut lx = self.lexer(pos);
        lx.skip_ws()?;
        if Self::at_final_section(&lx)? {
            return Err((
                lx.peek()?.at,
                "expected the thread declaration row `P0@sg 0, wg 0, qf 0 | ... ;`".into(),
            ));
        }
        let decl = self.scan_row(lx.pos)?;
        self.declare_threads(&decl)?;
        lx.pos = decl.semi + 1;
        let mut code: Vec<Vec<Stmt>> = vec![Vec::new(); decl.cells.len()];
        // Statements read since the bounds were last read.
        let mut unchecked = 0usize;
        loop {
            lx.skip_ws()?;
            if Self::at_final_section(&lx)? {
                break;
            }
            let row = self.scan_row(lx.pos)?;
            // `--timeout` and `--max-memory` bound reading too: a file of
            // very many rows (or very wide ones) stops at the request's
            // deadline, or when what it holds outgrows the memory bound
            // (the session then reports it undecided).
            unchecked += row.cells.len().max(1);
            if unchecked >= STATEMENTS_PER_CHECK {
                unchecked = 0;
                out_of_bounds().map_err(|m| (lx.pos, m))?;
            }
            let n = self.program.threads.len();
            if row.cells.len() != n {
                let at = row.cells.get(n).map(|c| c.0).unwrap_or(row.semi);
                return Err((
                    at,
                    format!(
                        "row has {} columns, the declaration row has {} threads",
                        row.cells.len(),
                        n
                    ),
                ));
            }
            for (k, &(a, b)) in row.cells.iter().enumerate() {
                if a < b {
                    // A cooperative matrix instruction is one statement per
                    // element access the invocation performs (none or more).
                    let stmts = if coop::is_coop(self, a, b) {
                        self.coop_statement(k, a, b)?
                    } else {
                        vec![self.statement(k, a, b)?]
                    };
                    for stmt in stmts {
                        // A thread's statements double their buffer when
                        // it is full: the old and the new one are held at
                        // once while it is copied.
                        let full = &code[k];
                        if full.len() == full.capacity()
                            && !crate::frontend::clock::input_memory_leaves(
                                full.capacity().max(4) * std::mem::size_of::<Stmt>() * 2,
                            )
                        {
                            return Err((a, memory_is_up()));
                        }
                        self.infos[k].stmt_at.push(a);
                        code[k].push(stmt);
                    }
                }
            }
            lx.pos = row.semi + 1;
        }
        for (t, c) in self.program.threads.iter_mut().zip(code) {
            t.code = c;
        }
        Ok(lx.pos)
    }

    fn declare_threads(&mut self, row: &Row) -> R<()> {
        let mut subgroups: HashMap<(usize, usize, usize), usize> = HashMap::new();
        let mut workgroups: HashMap<(usize, usize), usize> = HashMap::new();
        let mut host_threads = Vec::new();
        for (k, &(a, b)) in row.cells.iter().enumerate() {
            let mut lx = Lexer::new(self.src, VULKAN, a, b);
            let t = lx.next()?;
            let id = match &t.tok {
                Tok::Ident(s) => thread_name(s),
                _ => None,
            };
            match id {
                Some(id) if id == k => {}
                Some(id) => {
                    return Err((
                        t.at,
                        format!(
                            "expected P{k}: threads are numbered 0, 1, 2, ... in column order, found P{id}"
                        ),
                    ));
                }
                None => {
                    return Err((
                        t.at,
                        format!(
                            "expected a thread declaration `P{k}@sg 0, wg 0, qf 0`, found {}",
                            t.show()
                        ),
                    ));
                }
            }
            lx.expect("@", "after the thread name")?;
            if self.host_placement(&mut lx, k)?.is_some() {
                // Host threads and submissions are in no subgroup,
                // workgroup or queue family of the invocations: each gets
                // ids of its own, after the invocations' (below).
                host_threads.push(k);
                self.program.threads.push(Thread {
                    id: k,
                    subgroup: 0,
                    workgroup: 0,
                    queue_family: 0,
                    device: 0,
                    code: Vec::new(),
                    registers: Vec::new(),
                    fragment: None,
                });
                self.infos.push(ThreadInfo::default());
                continue;
            }
            let mut ids = [0usize; 3];
            for (i, kw) in ["sg", "wg", "qf"].into_iter().enumerate() {
                if i > 0 {
                    lx.expect(",", &format!("before `{kw}`"))?;
                }
                let w = lx.next()?;
                if !w.is_ident(kw) {
                    return Err((
                        w.at,
                        format!(
                            "expected `{kw}`: a thread is placed by `sg N, wg N, qf N`, found {}",
                            w.show()
                        ),
                    ));
                }
                let v = lx.next()?;
                ids[i] = match &v.tok {
                    Tok::Int(d) => d
                        .parse()
                        .map_err(|_| (v.at, format!("number `{d}` is out of range")))?,
                    _ => {
                        return Err((
                            v.at,
                            format!("expected the {kw} number, found {}", v.show()),
                        ));
                    }
                };
            }
            // `, tesc`: the invocation's shader stage (docs/coverage.md).
            let mut ahead = lx.clone();
            if ahead.peek()?.is_punct(",") {
                ahead.next()?;
                let w = ahead.next()?;
                if let Some(&(_, stage)) = crate::ir::ShaderStage::TOKENS
                    .iter()
                    .find(|(tok, _)| w.is_ident(tok))
                {
                    self.program.stages.insert(k, stage);
                    lx = ahead;
                }
            }
            let fragment = if lx.peek()?.is_punct(",") {
                Some(fragment_placement(&mut lx)?)
            } else {
                None
            };
            lx.expect_end("after the thread declaration")?;
            let [sg, wg, qf] = ids;
            let next_sg = subgroups.len();
            let subgroup = *subgroups.entry((qf, wg, sg)).or_insert(next_sg);
            let next_wg = workgroups.len();
            let workgroup = *workgroups.entry((qf, wg)).or_insert(next_wg);
            self.program.threads.push(Thread {
                id: k,
                subgroup,
                workgroup,
                queue_family: qf,
                device: 0,
                code: Vec::new(),
                registers: Vec::new(),
                fragment,
            });
            self.infos.push(ThreadInfo {
                scope_numbers: Some(ids),
                ..ThreadInfo::default()
            });
        }
        for (i, k) in host_threads.into_iter().enumerate() {
            let t = &mut self.program.threads[k];
            t.subgroup = subgroups.len() + i;
            t.workgroup = workgroups.len() + i;
        }
        Ok(())
    }

    // ----- statements --------------------------------------------------------

    /// Parses the cell `a..b` of column `k`.
    fn statement(&mut self, k: usize, a: usize, b: usize) -> R<Stmt> {
        let source = SourceSpan {
            file: None,
            line: self.src.line(a),
            text: self.src.text(a, b).into(),
        };
        let mut lx = Lexer::new(self.src, VULKAN, a, b);
        let first = lx.next()?;
        let Tok::Ident(word) = &first.tok else {
            return Err((
                first.at,
                format!("{UNKNOWN_INSTRUCTION}, found {}", first.show()),
            ));
        };
        let word = word.clone();
        if lx.peek()?.is_punct(":") {
            lx.next()?;
            lx.expect_end("after the label")?;
            let info = &mut self.infos[k];
            if let Some(prev) = info.labels.get(&word) {
                return Err((
                    first.at,
                    format!(
                        "label `{word}` is defined twice in P{k} (first at line {})",
                        self.src.line(*prev)
                    ),
                ));
            }
            info.labels.insert(word.clone(), first.at);
            return Ok(Stmt::Label { name: word, source });
        }
        if word == "goto" {
            let (label, at) = lx.ident("a label after `goto`")?;
            lx.expect_end("after the label")?;
            self.infos[k].jumps.push((label.clone(), at));
            return Ok(Stmt::Goto { label, source });
        }
        if let Some(&(_, cmp)) = BRANCHES.iter().find(|(n, _)| *n == word) {
            let x = self.value(&mut lx, k)?;
            lx.expect(",", "between the operands of the branch")?;
            let y = self.value(&mut lx, k)?;
            lx.expect(",", "before the branch target")?;
            let (label, at) = lx.ident("a label (the branch target)")?;
            lx.expect_end("after the branch target")?;
            self.infos[k].jumps.push((label.clone(), at));
            return Ok(Stmt::Branch {
                cmp,
                a: x,
                b: y,
                label,
                source,
            });
        }
        if let Some(&(_, op)) = ARITH_OPS.iter().find(|(n, _)| *n == word) {
            let (dest, _) = lx.ident("a destination register")?;
            lx.expect(",", "after the destination register")?;
            let x = self.value(&mut lx, k)?;
            lx.expect(",", "between the operands")?;
            let y = self.value(&mut lx, k)?;
            lx.expect_end("after the operands")?;
            self.infos[k].defined.insert(dest.clone());
            return Ok(Stmt::Assign {
                dest,
                op,
                a: x,
                b: y,
                source,
            });
        }
        if let Some(s) = self.api_statement(&mut lx, k, &word, first.at, &source)? {
            return Ok(s);
        }
        // Shader calls: `trace Pk`, `call Pk`, `report Pk` (docs/format-vulkan-litmus.md).
        if let Some(&(_, call)) = crate::ir::CallKind::TOKENS.iter().find(|(n, _)| *n == word) {
            if lx.peek()?.is_punct(".") {
                return Err((
                    lx.peek()?.at,
                    format!(
                        "`{word}` takes no attribute: write `{word} Pk` (the invocation it creates)"
                    ),
                ));
            }
            let mut callees = Vec::new();
            loop {
                let t = lx.next()?;
                let callee = match &t.tok {
                    Tok::Ident(s) => thread_name(s),
                    _ => None,
                };
                let Some(callee) = callee else {
                    return Err((
                        t.at,
                        format!(
                            "expected the thread `{word}` creates (`{word} P1`), found {}",
                            t.show()
                        ),
                    ));
                };
                if callees.contains(&callee) {
                    return Err((t.at, format!("`{word}` names P{callee} twice")));
                }
                callees.push(callee);
                if !lx.peek()?.is_punct(",") {
                    break;
                }
                lx.next()?;
            }
            lx.end_or(|t| {
                format!(
                    "expected `,` and another thread or the end of `{word}`, found {}",
                    t.show()
                )
            })?;
            let kind = OpKind::ShaderCall { callees, call };
            return Ok(Stmt::Op(Instruction::new(kind, source)));
        }
        if word == "div" {
            return Err((
                first.at,
                "`div` is not supported: local arithmetic is add, sub, mul, and, or, xor".into(),
            ));
        }
        let kind = match word.as_str() {
            "ld" => OpKind::Load,
            "st" => OpKind::Store,
            "rmw" => OpKind::Rmw,
            "membar" => OpKind::MemoryBarrier,
            "cbar" => OpKind::control_barrier(0, crate::ir::Scope::Workgroup),
            "avdevice" => OpKind::AvailabilityDevice,
            "visdevice" => OpKind::VisibilityDevice,
            "free" => OpKind::Deallocate,
            "beginil" | "endil" => {
                if lx.peek()?.is_punct(".") {
                    return Err((
                        lx.peek()?.at,
                        format!(
                            "`{word}` takes no attribute: it has FragmentInterlock scope and UniformMemory|ImageMemory semantics by definition"
                        ),
                    ));
                }
                lx.end_or(|t| format!("`{word}` takes no operand, found {}", t.show()))?;
                return Ok(Stmt::Op(Instruction::interlock(word == "beginil", source)));
            }
            _ => {
                let words = INSTRUCTIONS
                    .split(' ')
                    .chain(ARITH_OPS.iter().map(|(n, _)| *n))
                    .chain(BRANCHES.iter().map(|(n, _)| *n));
                let hint = suggest::did_you_mean(&word, words);
                return Err((
                    first.at,
                    format!("unknown instruction `{word}`: {UNKNOWN_INSTRUCTION}{hint}"),
                ));
            }
        };
        self.instruction(&mut lx, k, first.at, &word, kind, source)
            .map(Stmt::Op)
    }

    fn instruction(
        &mut self,
        lx: &mut Lexer<'_>,
        k: usize,
        op_at: usize,
        word: &str,
        kind: OpKind,
        source: SourceSpan,
    ) -> R<Instruction> {
        let is_rmw = kind == OpKind::Rmw;
        let mut attrs = Attrs::default();
        let mut rmw_op: Option<(&'static str, RmwOp)> = None;
        while lx.peek()?.is_punct(".") {
            lx.next()?;
            let t = lx.next()?;
            let Tok::Ident(tok) = &t.tok else {
                return Err((
                    t.at,
                    format!("expected an attribute after `.`, found {}", t.show()),
                ));
            };
            if let Some(&(name, op)) = RMW_OPS.iter().find(|(n, _)| n == tok) {
                if !is_rmw {
                    return Err((
                        t.at,
                        format!("`{tok}` is a read-modify-write operation: it only applies to rmw"),
                    ));
                }
                if let Some((prev, _)) = rmw_op {
                    return Err((
                        t.at,
                        format!(
                            "second read-modify-write operation `{tok}`: the rmw already has `{prev}`"
                        ),
                    ));
                }
                rmw_op = Some((name, op));
                continue;
            }
            if is_rmw && (tok == "mul" || tok == "div") {
                return Err((
                    t.at,
                    format!(
                        "unsupported read-modify-write operation `{tok}`: expected add, sub, and, or, xor, min or max"
                    ),
                ));
            }
            if !attrs.token(tok, t.at, &LITMUS)? {
                let ops = if is_rmw {
                    " (or an rmw operation: add sub and or xor min max)"
                } else {
                    ""
                };
                let rmw_names = RMW_OPS.iter().filter(|_| is_rmw).map(|(n, _)| *n);
                let hint = suggest::did_you_mean(tok, LITMUS.tokens().chain(rmw_names));
                return Err((
                    t.at,
                    format!(
                        "unknown token `{tok}`: expected one of atom acq rel acq_rel sg wg fi qf dv inv cd shcall scN semscN av vis semav semvis nonpriv avtexel vistexel nonprivtexel avelem viselem nonprivelem output input callable incallable payload hitattr inpayload{ops}{hint}"
                    ),
                ));
            }
        }
        if is_rmw && attrs.atom.is_none() {
            return Err((
                op_at,
                "a read-modify-write must be atomic: write `rmw.atom...`".into(),
            ));
        }
        let mut ins = Instruction::new(kind, source);
        ins.atomic = attrs.atom.is_some();
        attrs.apply(&mut ins);
        // Positions are character indices; `attributes` hands them back as is.
        attrs.validate(&ins, op_at, &LITMUS)?;
        match ins.kind {
            OpKind::Load => {
                let (dest, _) = lx.ident("the destination register")?;
                lx.expect(",", "after the destination register")?;
                let (loc, loc_at) = lx.ident("a location name")?;
                ins.bytes = byte_range(lx)?;
                lx.expect_end("after the location")?;
                self.infos[k].defined.insert(dest.clone());
                ins.dest = Some(dest);
                ins.reference = Some(self.used(&loc, loc_at));
            }
            OpKind::Deallocate => {
                let (loc, loc_at) = lx.ident("the location freed")?;
                lx.expect_end("after the location")?;
                ins.reference = Some(self.used(&loc, loc_at));
            }
            OpKind::Store => {
                let (loc, loc_at) = lx.ident("a location name")?;
                ins.bytes = byte_range(lx)?;
                lx.expect(",", "after the location")?;
                let v = self.value(lx, k)?;
                lx.expect_end("after the stored value")?;
                ins.reference = Some(self.used(&loc, loc_at));
                ins.operand = Some(v);
            }
            OpKind::Rmw => {
                let (dest, _) = lx.ident("the destination register")?;
                lx.expect(",", "after the destination register")?;
                let (loc, loc_at) = lx.ident("a location name")?;
                ins.bytes = byte_range(lx)?;
                lx.expect(",", "after the location")?;
                let v = self.value(lx, k)?;
                lx.expect_end("after the operand")?;
                self.infos[k].defined.insert(dest.clone());
                ins.dest = Some(dest);
                ins.reference = Some(self.used(&loc, loc_at));
                ins.operand = Some(v);
                ins.rmw_op = rmw_op.map(|(_, op)| op).unwrap_or(RmwOp::Exchange);
            }
            OpKind::ControlBarrier { .. } => {
                let t = lx.next()?;
                let instance = match &t.tok {
                    Tok::Int(d) => d.parse::<u32>().map_err(|_| {
                        (
                            t.at,
                            format!("control barrier instance `{d}` is out of range"),
                        )
                    })?,
                    _ => {
                        return Err((
                            t.at,
                            format!(
                                "expected the control barrier's instance number, found {}",
                                t.show()
                            ),
                        ));
                    }
                };
                // A named barrier: `cbar... INSTANCE, ID[, QUORUM]`
                // (Dat3M's `LitmusVulkan.g4`, `barrierId` and
                // `barrierQuorum`: each a register or a constant).
                let mut id = None;
                let mut quorum = None;
                if lx.peek()?.is_punct(",") {
                    lx.next()?;
                    id = Some(self.value(lx, k)?);
                    if lx.peek()?.is_punct(",") {
                        lx.next()?;
                        let at = lx.peek()?.at;
                        let q = self.value(lx, k)?;
                        if let Operand::Const(v) = q
                            && v < 1
                        {
                            return Err((
                                at,
                                format!(
                                    "the barrier's quorum is {v}: expected a positive integer (how many invocations must arrive before any passes)"
                                ),
                            ));
                        }
                        quorum = Some(q);
                    }
                }
                lx.end_or(|t| {
                    format!(
                        "expected `,` and a barrier id or quorum, or the end of the instruction after the instance number, found {}",
                        t.show()
                    )
                })?;
                self.infos[k].barriers.push((instance, op_at));
                // Dat3M's dialect: the scope token of `cbar` is its memory
                // scope, and its execution scope is always Workgroup (its
                // `VisitorLitmusVulkan` builds every control barrier with
                // `Tag.Vulkan.WORK_GROUP` as execution scope and adds the
                // token as a tag, which `inscope` reads as the memory scope).
                ins.kind = OpKind::ControlBarrier {
                    instance,
                    execution_scope: crate::ir::Scope::Workgroup,
                    id,
                    quorum,
                };
            }
            _ => lx.end_or(|t| format!("`{word}` takes no operand, found {}", t.show()))?,
        }
        Ok(ins)
    }

    /// A register or an integer operand of thread `k`.
    fn value(&mut self, lx: &mut Lexer<'_>, k: usize) -> R<Operand> {
        let t = lx.peek()?;
        match &t.tok {
            Tok::Ident(r) => {
                lx.next()?;
                self.infos[k].reads.push((r.clone(), t.at));
                Ok(Operand::Reg(r.clone()))
            }
            Tok::Int(_) | Tok::Punct("-") => {
                Ok(Operand::Const(lx.integer("a register or an integer")?.0))
            }
            _ => Err((
                t.at,
                format!("expected a register or an integer, found {}", t.show()),
            )),
        }
    }

    // ----- whole-program checks --------------------------------------------

    fn check_program(&mut self) -> R<()> {
        let n = self.program.threads.len();
        let declared = if n == 1 {
            "the test declares only P0".to_string()
        } else {
            format!("the test declares P0..P{}", n - 1)
        };
        // Initial register values.
        for (thread, reg, value, t_at, r_at) in std::mem::take(&mut self.reg_inits) {
            if thread >= n {
                return Err((
                    t_at,
                    format!("the initial state names thread P{thread}, but {declared}"),
                ));
            }
            let th = &mut self.program.threads[thread];
            if th.registers.iter().any(|(r, _)| *r == reg) {
                return Err((
                    r_at,
                    format!("register P{thread}:{reg} is initialised twice"),
                ));
            }
            th.registers.push((reg.clone(), value));
            self.infos[thread].defined.insert(reg);
        }
        for &(a, b, a_at, b_at, generates) in &self.ssws {
            let word = if generates { "gen" } else { "ssw" };
            for (t, at) in [(a, a_at), (b, b_at)] {
                if t >= n {
                    return Err((at, format!("{word} names thread P{t}, but {declared}")));
                }
            }
            if generates {
                self.program.generates.push((a, b));
            } else {
                self.program.ssw.push((a, b));
            }
        }
        // Registers read but never defined, labels jumped to but never
        // defined: report the first in the file.
        let mut problems: Vec<PErr> = Vec::new();
        for (k, info) in self.infos.iter().enumerate() {
            for (reg, at) in &info.reads {
                if !info.defined.contains(reg) {
                    problems.push((
                        *at,
                        format!(
                            "register `{reg}` is read by P{k} but never written by it nor initialised (add `P{k}:{reg}=0;` to the initial state)"
                        ),
                    ));
                }
            }
            for (label, at) in &info.jumps {
                if !info.labels.contains_key(label) {
                    problems.push((*at, format!("label `{label}` is not defined in P{k}")));
                }
            }
        }
        // Control barrier instances: in straight-line code, each is reached
        // once. (With branches, two barriers with one instance may sit on
        // exclusive paths.)
        for (t, info) in self.program.threads.iter().zip(&self.infos) {
            if !t.is_straight_line() {
                continue;
            }
            let mut seen: HashMap<u32, usize> = HashMap::new();
            for &(instance, at) in &info.barriers {
                if let Some(prev) = seen.insert(instance, at) {
                    problems.push((
                        at,
                        format!(
                            "control barrier instance {instance} is reached twice by P{} (first at line {})",
                            t.id,
                            self.src.line(prev)
                        ),
                    ));
                }
            }
        }
        // Cooperative matrix instructions (docs/coverage.md).
        if let Err(e) = self.check_coops() {
            problems.push(e);
        }
        // Shader calls and the ShaderCallKHR scope (docs/coverage.md).
        if let Err(i) = crate::ir::shadercall::check(&self.program, &|t| format!("P{t}")) {
            problems.push((self.infos[i.thread].stmt_at[i.stmt], i.message));
        }
        // The host side (docs/host.md).
        problems.extend(self.check_host());
        // Fragment shader interlock (docs/interlock.md, "Lints").
        if let Err(i) = crate::ir::interlock::check(&self.program, &INTERLOCK) {
            problems.push((self.infos[i.thread].stmt_at[i.stmt], i.message));
        }
        match problems.into_iter().min_by_key(|(at, _)| *at) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    // ----- final clauses -------------------------------------------------

    fn final_section(&mut self, pos: usize, layout: &crate::ir::bytes::Layout) -> R<()> {
        let symbols = &mut self.program.symbols;
        for (k, info) in self.infos.iter().enumerate() {
            symbols.add_thread(format!("P{k}"), &info.defined);
            if let Some(t) = symbols.threads.last_mut() {
                t.scope_numbers = info.scope_numbers;
            }
        }
        // A sized variable is named as declared, `x` or `x[a..b]`, not by
        // its chunks (docs/format-vulkan-litmus.md, "Memory locations as
        // bytes").
        for (name, chunks) in layout {
            symbols.add_sized(name, chunks);
        }
        for r in &self.program.references {
            symbols.add_name(&r.name, vec![r.location]);
        }
        let mut lx = self.lexer(pos);
        let syntax = Syntax::of(Dialect::Vulkan);
        let f = condition::final_section(&mut lx, &syntax.cond, &self.program.symbols)?;
        self.program.condition = f.condition;
        self.program.shown_locations = f.shown_locations;
        Ok(())
    }
}

pub(crate) mod coop;
mod host;
pub mod print;
mod reuse;

#[cfg(test)]
mod tests;

/// An optional byte range after a location: `[start..end]`, half-open
/// (docs/format-vulkan-litmus.md, "Memory locations as bytes").
fn byte_range(lx: &mut Lexer<'_>) -> R<Option<crate::ir::ByteRange>> {
    if !lx.peek()?.is_punct("[") {
        return Ok(None);
    }
    lx.next()?;
    let bound = |lx: &mut Lexer<'_>, what: &str| -> R<u32> {
        let (v, at) = lx.integer(what)?;
        u32::try_from(v).map_err(|_| (at, format!("a byte offset is not negative, found {v}")))
    };
    let start = bound(lx, "the first byte of the range (`x[0..4]`)")?;
    lx.expect(".", "in `[start..end]`")?;
    lx.expect(".", "in `[start..end]`")?;
    let end_at = lx.peek()?.at;
    let end = bound(lx, "the end of the range (`x[0..4]`: bytes 0 to 3)")?;
    lx.expect("]", "to close the byte range")?;
    if end <= start {
        return Err((
            end_at,
            format!(
                "the byte range `[{start}..{end}]` is empty: it is `[start..end]`, end excluded, with start < end"
            ),
        ));
    }
    Ok(Some(crate::ir::ByteRange::new(start, end)))
}

/// The fragment placement after `qf N` in a thread declaration:
/// `, prim N, pixel N | pixels N N...[, area N N...][, samples S S...][,
/// subpass N]` (docs/interlock.md).
fn fragment_placement(lx: &mut Lexer<'_>) -> R<Fragment> {
    const WORDS: &str = "`prim`, `pixel`, `pixels`, `area`, `samples` or `subpass`";
    let mut prim = None;
    let mut subpass = None;
    let mut pixels: Option<Vec<u32>> = None;
    let mut area: Option<Vec<u32>> = None;
    let mut samples = None;
    let mut place_at = None;
    while lx.peek()?.is_punct(",") {
        lx.next()?;
        let (kw, kw_at) = lx.ident(WORDS)?;
        place_at.get_or_insert(kw_at);
        match kw.as_str() {
            "prim" | "subpass" | "pixel" => {
                let (v, v_at) = lx.integer(&format!("the {kw} number"))?;
                let v = u32::try_from(v)
                    .map_err(|_| (v_at, format!("{kw} number `{v}` is out of range")))?;
                let slot = match kw.as_str() {
                    "prim" => &mut prim,
                    "subpass" => &mut subpass,
                    _ => {
                        if pixels.is_some() {
                            return Err((kw_at, "the covered pixels are given twice".into()));
                        }
                        pixels = Some(vec![v]);
                        continue;
                    }
                };
                if slot.is_some() {
                    return Err((kw_at, format!("`{kw}` given twice")));
                }
                *slot = Some(v);
            }
            "pixels" | "area" => {
                let list = if kw == "pixels" {
                    &mut pixels
                } else {
                    &mut area
                };
                if list.is_some() {
                    return Err((
                        kw_at,
                        if kw == "pixels" {
                            "the covered pixels are given twice".to_string()
                        } else {
                            "`area` given twice".to_string()
                        },
                    ));
                }
                let mut v = Vec::new();
                while matches!(lx.peek()?.tok, Tok::Int(_)) {
                    let (p, p_at) = lx.integer("a pixel number")?;
                    v.push(
                        u32::try_from(p)
                            .map_err(|_| (p_at, format!("pixel number `{p}` is out of range")))?,
                    );
                }
                if v.is_empty() {
                    return Err((
                        kw_at,
                        format!("expected pixel numbers after `{kw}` (e.g. `{kw} 0 1`)"),
                    ));
                }
                *list = Some(v);
            }
            "samples" => {
                if samples.is_some() {
                    return Err((kw_at, "`samples` given twice".into()));
                }
                let mut mask = 0u64;
                while matches!(lx.peek()?.tok, Tok::Int(_)) {
                    let (k, k_at) = lx.integer("a sample number")?;
                    if !(0..64).contains(&k) {
                        return Err((
                            k_at,
                            format!("sample {k} is out of range: samples are numbered 0..63"),
                        ));
                    }
                    mask |= 1 << k;
                }
                if mask == 0 {
                    return Err((
                        kw_at,
                        "expected the covered sample numbers after `samples` (e.g. `samples 0 1`)"
                            .into(),
                    ));
                }
                samples = Some(mask);
            }
            _ => {
                return Err((
                    kw_at,
                    format!("expected {WORDS} (a fragment invocation's placement), found `{kw}`"),
                ));
            }
        }
    }
    let at = lx.peek()?.at;
    let (Some(primitive), Some(pixels)) = (prim, pixels) else {
        return Err((
            at,
            "a fragment invocation needs `prim N, pixel N` (its primitive in rasterization order and its pixel; `pixels N N...` for a fragment covering several)".into(),
        ));
    };
    Fragment::placed(
        primitive,
        &pixels,
        area.as_deref(),
        samples.unwrap_or(1),
        subpass.unwrap_or(0),
    )
    .map_err(|m| (place_at.unwrap_or(at), m))
}

//! herd's C-style OpenCL litmus tests (the dialect of the Dat3M `OPENCL`
//! suite):
//!
//! ```text
//! OPENCL MP
//! (* comment *)
//! { [x]=0; [y]=0; }
//! P0@wg 0, dev 0 (global int* x, global atomic_int* y) {
//!   *x = 1;
//!   atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group);
//! }
//! P1@wg 1, dev 0 (global int* x, global atomic_int* y) {
//!   int r0 = atomic_load_explicit(y, memory_order_acquire);
//!   int r1 = -1;
//!   if (r0 == 1) { r1 = *x; }
//! }
//! exists (1:r0=1 /\ 1:r1=0)
//! ```
//!
//! The tokenizer, the header (`OPENCL [name]`, quoted or `(* *)`
//! commentary) and the final clauses (`locations [...]`, `filter`,
//! `exists`/`~exists`/`forall` and the condition grammar, with `!` for
//! negation and `y@wg0` instance names) are the herd litmus skeleton shared
//! with the Vulkan dialect: see [`super::litmus`]. Statements, blocks and
//! expressions nest at most [`super::MAX_NESTING`] levels.
//!
//! Representation decisions:
//!
//! - A `global` parameter names one location shared by all threads, with
//!   storage class [`OPENCL_GLOBAL`]. A `local` parameter names one location
//!   per workgroup instance, named `y@wg0` (`y@dev1.wg0` off device 0), with
//!   storage class [`OPENCL_LOCAL`] (with [`LocalMemory::Shared`]: one
//!   location for all workgroups, as herd7 and Dat3M read it); the init
//!   block sets every instance. A condition may name an instance (`y@wg0`),
//!   or the bare name when there is exactly one instance. An unqualified
//!   pointer is generic ([`OPENCL_GENERIC`]). Each access takes the address
//!   space its own thread declares.
//! - `*x` is a non-atomic access and `atomic_*(x, ...)` an atomic one,
//!   whatever the parameter's `int`/`atomic_int` type (herd7 and Dat3M read
//!   the C11 ports' plain accesses to `atomic_int` objects this way); a
//!   location some atomic operation accesses is an atomic object.
//! - The memory accesses of the two operands of a binary expression are
//!   marked as unsequenced ([`Instruction::operand_of`]).
//! - Threads: workgroup = fresh id per `(dev, wg)`, subgroup = fresh id per
//!   `(dev, wg, sg)` (a thread without `sg` is its own subgroup), queue
//!   family 0, device = `dev`.
//! - `barrier`/`work_group_barrier` is a control barrier with execution
//!   scope WorkGroup (3.6.3: "synchronize the work-items within a single
//!   scope instance defined by the WorkGroup or SubGroup execution scope
//!   parameter") and memory scope `work_group_barrier`'s scope argument
//!   (default `memory_scope_work_group`), acquire-release semantics on the
//!   flags' storage classes; the k-th barrier (in program text) of each
//!   thread of a workgroup shares one instance id (a barrier in a loop: one
//!   dynamic instance per pass). `sub_group_barrier` likewise with
//!   execution scope SubGroup, per subgroup, memory scope default
//!   `memory_scope_sub_group`.
//! - `atomic_compare_exchange_*(obj, expected, desired, ...)`: a plain load
//!   of `*expected`, an atomic [`RmwOp::CompareExchange`] that writes only
//!   when it reads that value (failure order on failure), and on failure a
//!   plain store of the value read to `*expected`; the result is 1 or 0.
//! - For the Vulkan model, atomics carry `MakePointerAvailable`/`Visible`,
//!   and release (acquire) semantics carry `MakeAvailable` (`MakeVisible`).

use super::litmus::condition::MAX_NESTING;
use super::litmus::lexer::{self, Lexer, OPENCL, PErr, Src};
use super::litmus::{Syntax, condition, header};
use super::{FrontendError, FrontendWarning, LocalMemory, Options, suggest};
use crate::ir::{
    ArithOp, Cmp, Dialect, GroupArith, GroupFunction, GroupOp, Instruction, OPENCL_GENERIC,
    OPENCL_GLOBAL, OPENCL_LOCAL, OpKind, Operand, Order, Program, Reference, RmwOp, Scope,
    Semantics, SourceSpan, Stmt, StorageClass, Thread,
};
use std::collections::{BTreeSet, HashMap, HashSet};

/// An error position and message.
type E = (usize, usize, String);
type R<T> = Result<T, E>;

/// Parses an OpenCL litmus test (local memory per workgroup).
pub fn parse(file: &str, text: &str) -> Result<Program, FrontendError> {
    parse_with(file, text, Options::default())
}

/// Parses an OpenCL litmus test with front-end options.
pub fn parse_with(file: &str, text: &str, options: Options) -> Result<Program, FrontendError> {
    let src = Src::new(text);
    let located = |(at, message): PErr| src.error(file, (at, message));
    let err = |(line, column, message): E| FrontendError {
        file: file.to_string(),
        line,
        column,
        message,
    };
    let head = header::header(file, &src);
    match head.arch_at {
        None => {
            return Err(err((
                1,
                1,
                "empty file: expected a litmus header `OPENCL name`".into(),
            )));
        }
        Some(at) if !head.arch.eq_ignore_ascii_case("opencl") => {
            return Err(located((
                at,
                format!(
                    "expected the litmus header `OPENCL name`, found `{}`",
                    head.arch
                ),
            )));
        }
        Some(_) => {}
    }
    let body = head.body(&src, OPENCL).map_err(located)?;
    let toks = lex(text, &src, body).map_err(err)?;
    let mut p = Parser {
        file,
        src: &src,
        lines: text.lines().collect(),
        toks,
        pos: 0,
        depth: 0,
        program: Program {
            name: head.name,
            dialect: Dialect::OpenCl,
            ..Program::default()
        },
        init: Vec::new(),
        arrays: HashMap::new(),
        privates: HashSet::new(),
        locs: HashMap::new(),
        instances: HashMap::new(),
        classes: HashMap::new(),
        workgroups: HashMap::new(),
        subgroups: HashMap::new(),
        barriers: HashMap::new(),
        broadcast_ids: Vec::new(),
        thread_regs: Vec::new(),
        options,
        host: host::HostState::default(),
    };
    p.run().map_err(err)?;
    Ok(p.program)
}

// ----- lexer ---------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum K {
    Ident(String),
    Int(i64),
    Punct(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
struct Tok {
    k: K,
    line: usize,
    col: usize,
    /// Character index in the file.
    at: usize,
}

impl Tok {
    fn show(&self) -> String {
        match &self.k {
            K::Ident(s) => format!("`{s}`"),
            K::Int(v) => format!("`{v}`"),
            K::Punct(p) => format!("`{p}`"),
            K::Eof => "end of file".into(),
        }
    }
}

/// Lexes the body (from character `body`) with the skeleton's lexer: C
/// comments everywhere, `(* ... *)` outside braces and parentheses only
/// (inside code, `(*x` is a dereference).
fn lex(text: &str, src: &Src, body: usize) -> R<Vec<Tok>> {
    let mut lx = Lexer::new(src, OPENCL, body, src.chars.len());
    let located = |(at, message): PErr| {
        let (line, col) = src.line_col(at);
        (line, col, message)
    };
    let mut out = Vec::new();
    loop {
        let t = lx.next().map_err(located)?;
        let (line, col) = src.line_col(t.at);
        // `--timeout` and `--max-memory` bound reading too: a file of very
        // many statements stops at the request's deadline, or when its
        // tokens outgrow the memory bound (the session then reports it
        // undecided).
        if out.len() % TOKENS_PER_CHECK == TOKENS_PER_CHECK - 1 {
            out_of_bounds().map_err(|m| (line, col, m))?;
        }
        // The tokens' buffer doubles when full: the old and the new one
        // are held at once while it is copied.
        if out.len() == out.capacity()
            && !crate::frontend::clock::input_memory_leaves(
                out.capacity().max(4) * std::mem::size_of::<Tok>() * 2,
            )
        {
            return Err((
                line,
                col,
                format!(
                    "{} while the OpenCL litmus file was read",
                    crate::memory::MEMORY_IS_UP
                ),
            ));
        }
        let k = match t.tok {
            lexer::Tok::Eof => break,
            lexer::Tok::Ident(s) => K::Ident(s),
            lexer::Tok::Int(s) => K::Int(
                s.parse::<i64>()
                    .map_err(|_| (line, col, format!("bad integer `{s}`")))?,
            ),
            lexer::Tok::Punct(p) => K::Punct(p),
            lexer::Tok::Other(c) => {
                return Err((line, col, format!("unexpected character `{c}`")));
            }
            // The OpenCL dialect's lexer reads no float literals.
            lexer::Tok::Float(f) => {
                return Err((line, col, format!("unexpected float `{f}`")));
            }
        };
        out.push(Tok {
            k,
            line,
            col,
            at: t.at,
        });
    }
    out.push(Tok {
        k: K::Eof,
        line: text.lines().count().max(src.line(body)) + 1,
        col: 1,
        at: src.chars.len(),
    });
    Ok(out)
}

/// How many tokens (or statements) pass between two readings of the
/// request's deadline and memory bound while a file is read.
const TOKENS_PER_CHECK: usize = 4096;

/// The message to stop with when the request's deadline has passed
/// ([`crate::frontend::clock::time_is_up`]) or the process holds more than
/// its memory bound ([`crate::memory::over_input_bound`]); the session
/// reports either as undecided.
fn out_of_bounds() -> Result<(), String> {
    if crate::frontend::clock::time_is_up() {
        return Err(crate::frontend::clock::TIME_IS_UP.into());
    }
    if crate::frontend::clock::over_input_memory() {
        return Err(format!(
            "{} while the OpenCL litmus file was read",
            crate::memory::MEMORY_IS_UP
        ));
    }
    Ok(())
}

// ----- expressions -----------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Bin {
    Arith(ArithOp),
    Cmp(Cmp),
    And,
    Or,
}

#[derive(Clone, Debug)]
enum X {
    Int(i64),
    Name(String),
    /// `*p`, `p` a pointer expression.
    Deref(Box<Expr>),
    /// `y[i]`.
    Index(String, Box<Expr>),
    /// `&e`, `e` an element (`&y[i]`, `&*p`).
    AddrOf(Box<Expr>),
    Call(String, Vec<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(Bin, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug)]
struct Expr {
    x: X,
    line: usize,
    col: usize,
    /// The height of the expression tree (lowering recurses over it).
    height: usize,
}

fn binop(p: &str) -> Option<(u8, Bin)> {
    Some(match p {
        "||" => (1, Bin::Or),
        "&&" => (2, Bin::And),
        "|" => (3, Bin::Arith(ArithOp::Or)),
        "^" => (4, Bin::Arith(ArithOp::Xor)),
        "&" => (5, Bin::Arith(ArithOp::And)),
        "==" => (6, Bin::Cmp(Cmp::Eq)),
        "!=" => (6, Bin::Cmp(Cmp::Ne)),
        "<" => (7, Bin::Cmp(Cmp::Lt)),
        "<=" => (7, Bin::Cmp(Cmp::Le)),
        ">" => (7, Bin::Cmp(Cmp::Gt)),
        ">=" => (7, Bin::Cmp(Cmp::Ge)),
        "+" => (8, Bin::Arith(ArithOp::Add)),
        "-" => (8, Bin::Arith(ArithOp::Sub)),
        "*" => (9, Bin::Arith(ArithOp::Mul)),
        _ => return None,
    })
}

// ----- parser ----------------------------------------------------------------

/// A parameter of one thread.
#[derive(Clone, Copy)]
struct Param {
    class: StorageClass,
    /// The location of element 0; element `k` of an array is `reference + k`.
    reference: usize,
    /// How many elements it points to (1 for a scalar; an array's length,
    /// declared in the init block).
    len: usize,
    /// Declared with an atomic type (`atomic_int*`, `atomic_flag*`).
    atomic_type: bool,
    /// Why nothing may write through it, if nothing may.
    read_only: ReadOnly,
    /// A `private` parameter: the work-item's own variable, kept in the
    /// register of the same name.
    private: bool,
}

/// Why a parameter may not be written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ReadOnly {
    No,
    /// Declared `const`.
    Const,
    /// In the `constant` address space.
    ConstantSpace,
}

/// One thread being lowered.
struct Ctx {
    index: usize,
    workgroup: usize,
    subgroup: usize,
    /// `sub_group_barrier` calls lowered so far.
    sg_barriers: usize,
    params: HashMap<String, Param>,
    regs: HashSet<String>,
    code: Vec<Stmt>,
    temps: usize,
    labels: usize,
    barriers: usize,
    /// Binary expressions lowered so far (ids for `Instruction::operand_of`).
    expressions: u32,
    /// Initial values of the thread's registers (its `private` variables).
    registers: Vec<(String, i64)>,
    /// The label ending the thread, once an access with a register index
    /// needs it (an index outside the array ends the work-item's path).
    end: Option<String>,
    /// A host thread (`Pk@host`).
    host: bool,
    /// How many `if`/`while` bodies enclose the statement being read.
    conditional: usize,
}

impl Ctx {
    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("%t{}", self.temps - 1)
    }
    fn label(&mut self) -> String {
        self.labels += 1;
        format!("%L{}", self.labels - 1)
    }
}

struct Parser<'a> {
    file: &'a str,
    src: &'a Src,
    lines: Vec<&'a str>,
    toks: Vec<Tok>,
    pos: usize,
    /// How deeply the statement or expression being parsed nests.
    depth: usize,
    program: Program,
    /// Init block entries: name (`x`, or `y[k]` for an array element),
    /// value, position.
    init: Vec<(String, i64, usize, usize)>,
    /// Arrays the init block declares, and their lengths.
    arrays: HashMap<String, usize>,
    /// Names of `private` parameters (registers, not locations).
    privates: HashSet<String>,
    /// Location name -> location index.
    locs: HashMap<String, usize>,
    /// Base name of a `local` variable -> its instances (location indices).
    instances: HashMap<String, Vec<usize>>,
    /// Address space of each declared name (must agree across threads).
    classes: HashMap<String, StorageClass>,
    /// `(dev, wg)` -> workgroup id.
    workgroups: HashMap<(usize, usize), usize>,
    /// `(dev, wg, sg)` -> sub-group id (`Err(thread index)` for a thread
    /// placed in no named sub-group).
    subgroups: HashMap<(usize, usize, Result<usize, usize>), usize>,
    /// `(execution scope, group, ordinal)` -> control barrier instance: the
    /// k-th work-group barrier of each thread of a work-group, the k-th
    /// sub-group barrier of each thread of a sub-group.
    barriers: HashMap<(Scope, usize, usize), u32>,
    /// Constant local ids of broadcasts, checked once every thread is
    /// placed: (line, column, thread, execution scope, id, function).
    broadcast_ids: Vec<(usize, usize, usize, Scope, i64, String)>,
    /// Registers declared by each thread (for conditions).
    thread_regs: Vec<HashSet<String>>,
    options: Options,
    /// Host threads, commands and SVM (`opencl_litmus/host.rs`).
    host: host::HostState,
}

/// The SPIR-V memory model's sentence on image memory (3.1, "Memory
/// regions"): "Image Memory (Input, Output, Image Storage Class): A region
/// of memory contained within image objects. Orderings on image data are
/// not involved in the happens-before orders of the memory model." The
/// document gives image accesses and image fences no ordering, so the
/// dialect refuses them (docs/coverage-opencl.md, "3.2 images, pipes").
const IMAGE_REFUSAL: &str = "vkmm does not model images: the memory model gives image data no ordering (\"Image Memory (Input, Output, Image Storage Class): A region of memory contained within image objects. Orderings on image data are not involved in the happens-before orders of the memory model.\")";
/// The document's pipes: "Pipe: The pipe memory object conceptually is an
/// ordered sequence of data items. ... At any one time, only one kernel
/// instance may write into a pipe, and only one kernel instance may read
/// from a pipe." and (3.6.4) "Memory ordering rules in this section apply
/// to all memory objects (buffers, images and pipes)": a pipe links two
/// kernel instances through host commands; the document states no rule
/// for pipe packets between work-items, so the dialect refuses them.
const PIPE_REFUSAL: &str = "vkmm does not model pipes: the memory model defines a pipe only as a link between kernel instances (\"At any one time, only one kernel instance may write into a pipe, and only one kernel instance may read from a pipe\"), ordered by the host API's command rules (\"Memory ordering rules in this section apply to all memory objects (buffers, images and pipes)\"), with no rule for its packets between work-items";

/// The refusal for an OpenCL C image or pipe word (a type, an access
/// qualifier, a built-in function), if `w` is one.
fn image_or_pipe(w: &str) -> Option<&'static str> {
    let image = matches!(
        w,
        "read_only"
            | "write_only"
            | "read_write"
            | "__read_only"
            | "__write_only"
            | "__read_write"
            | "sampler_t"
    ) || (w.starts_with("image") && w.ends_with("_t"))
        || w.starts_with("read_image")
        || w.starts_with("write_image")
        || w.starts_with("get_image_");
    let pipe = w == "pipe"
        || w == "is_valid_reserve_id"
        || w.starts_with("get_pipe_")
        || ["read_pipe", "write_pipe"]
            .iter()
            .any(|p| w.ends_with(p) && (w.contains("reserve") || w.contains("commit") || w == *p));
    if image {
        Some(IMAGE_REFUSAL)
    } else if pipe {
        Some(PIPE_REFUSAL)
    } else {
        None
    }
}

/// The longest array the init block may declare.
const MAX_ARRAY: usize = 64;
/// The C type words an init-block declaration may start with.
const INIT_TYPE_WORDS: &[&str] = &[
    "int",
    "uint",
    "unsigned",
    "atomic_int",
    "atomic_uint",
    "atomic_flag",
    "volatile",
    "const",
    "global",
    "__global",
    "local",
    "__local",
    "constant",
    "__constant",
];
const UNSUPPORTED_STMT: &[&str] = &[
    "for", "do", "goto", "return", "switch", "break", "continue", "case", "default",
];
const TYPES: &[&str] = &["int", "uint", "long", "unsigned", "short", "char"];
/// The words of a parameter declaration.
const PARAM_WORDS: &[&str] = &[
    "global",
    "__global",
    "local",
    "__local",
    "volatile",
    "const",
    "int",
    "uint",
    "unsigned",
    "atomic_int",
    "atomic_uint",
];
/// Every function the dialect knows (for "did you mean").
const FUNCTIONS: &[&str] = &[
    "atomic_load",
    "atomic_store",
    "atomic_exchange",
    "atomic_fetch_add",
    "atomic_fetch_sub",
    "atomic_fetch_and",
    "atomic_fetch_or",
    "atomic_fetch_xor",
    "atomic_fetch_min",
    "atomic_fetch_max",
    "atomic_compare_exchange_strong",
    "atomic_compare_exchange_weak",
    "atomic_load_explicit",
    "atomic_store_explicit",
    "atomic_exchange_explicit",
    "atomic_fetch_add_explicit",
    "atomic_fetch_sub_explicit",
    "atomic_fetch_and_explicit",
    "atomic_fetch_or_explicit",
    "atomic_fetch_xor_explicit",
    "atomic_fetch_min_explicit",
    "atomic_fetch_max_explicit",
    "atomic_compare_exchange_strong_explicit",
    "atomic_compare_exchange_weak_explicit",
    "atomic_flag_test_and_set",
    "atomic_flag_test_and_set_explicit",
    "atomic_flag_clear",
    "atomic_flag_clear_explicit",
    "atomic_init",
    "atomic_work_item_fence",
    "barrier",
    "work_group_barrier",
    "sub_group_barrier",
    "work_group_broadcast",
    "work_group_any",
    "work_group_all",
    "work_group_reduce_add",
    "work_group_reduce_min",
    "work_group_reduce_max",
    "work_group_scan_inclusive_add",
    "work_group_scan_inclusive_min",
    "work_group_scan_inclusive_max",
    "work_group_scan_exclusive_add",
    "work_group_scan_exclusive_min",
    "work_group_scan_exclusive_max",
    "sub_group_broadcast",
    "sub_group_any",
    "sub_group_all",
    "sub_group_reduce_add",
    "sub_group_reduce_min",
    "sub_group_reduce_max",
    "sub_group_scan_inclusive_add",
    "sub_group_scan_inclusive_min",
    "sub_group_scan_inclusive_max",
    "sub_group_scan_exclusive_add",
    "sub_group_scan_exclusive_min",
    "sub_group_scan_exclusive_max",
];

/// The group function a name calls: its execution scope and operation
/// (OpenCL C 2.0 6.13.15, "Work-group Functions": `work_group_all`,
/// `work_group_any`, `work_group_broadcast`, `work_group_reduce_<op>`,
/// `work_group_scan_exclusive_<op>`, `work_group_scan_inclusive_<op>` with
/// `<op>` one of add, min, max; the `cl_khr_subgroups` extension's
/// `sub_group_` forms of each).
fn group_function(name: &str) -> Option<(Scope, GroupOp)> {
    let (scope, rest) = if let Some(r) = name.strip_prefix("work_group_") {
        (Scope::Workgroup, r)
    } else {
        (Scope::Subgroup, name.strip_prefix("sub_group_")?)
    };
    let arith = |s: &str| match s {
        "add" => Some(GroupArith::Add),
        "min" => Some(GroupArith::Min),
        "max" => Some(GroupArith::Max),
        _ => None,
    };
    let op = match rest {
        "broadcast" => GroupOp::Broadcast,
        "any" => GroupOp::Any,
        "all" => GroupOp::All,
        _ => {
            if let Some(a) = rest.strip_prefix("reduce_") {
                GroupOp::Reduce(arith(a)?)
            } else if let Some(a) = rest.strip_prefix("scan_inclusive_") {
                GroupOp::ScanInclusive(arith(a)?)
            } else {
                GroupOp::ScanExclusive(arith(rest.strip_prefix("scan_exclusive_")?)?)
            }
        }
    };
    Some((scope, op))
}
/// C words vkmm does not support, and what to say about them.
const UNSUPPORTED_WORDS: &[(&str, &str)] = &[
    ("sizeof", "`sizeof` is not supported"),
    ("struct", "structs are not supported yet"),
    ("union", "unions are not supported yet"),
    ("enum", "enums are not supported yet"),
    ("typedef", "`typedef` is not supported"),
    (
        "float",
        "floating-point types are not supported (only integers)",
    ),
    (
        "double",
        "floating-point types are not supported (only integers)",
    ),
];

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }
    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }
    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is(&self, p: &str) -> bool {
        matches!(&self.peek().k, K::Punct(q) if *q == p)
    }
    fn is_ident(&self, s: &str) -> bool {
        matches!(&self.peek().k, K::Ident(q) if q == s)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str, what: &str) -> R<Tok> {
        let t = self.next();
        if t.k == K::Punct(leak(p)) {
            Ok(t)
        } else {
            Err((
                t.line,
                t.col,
                format!("expected `{p}` {what}, found {}", t.show()),
            ))
        }
    }
    fn ident(&mut self, what: &str) -> R<(String, Tok)> {
        let t = self.next();
        match &t.k {
            K::Ident(s) => Ok((s.clone(), t)),
            _ => Err((
                t.line,
                t.col,
                format!("expected {what}, found {}", t.show()),
            )),
        }
    }
    fn int(&mut self, what: &str) -> R<i64> {
        let neg = self.eat("-");
        let t = self.next();
        match t.k {
            K::Int(v) => Ok(if neg { v.wrapping_neg() } else { v }),
            _ => Err((
                t.line,
                t.col,
                format!("expected {what}, found {}", t.show()),
            )),
        }
    }
    fn span(&self, line: usize) -> SourceSpan {
        SourceSpan {
            file: None,
            line,
            text: self
                .lines
                .get(line.wrapping_sub(1))
                .map(|l| l.trim().into())
                .unwrap_or_default(),
        }
    }

    fn run(&mut self) -> R<()> {
        if self.is("{") {
            self.init_block()?;
        }
        while let K::Ident(s) = &self.peek().k {
            if !is_thread_name(s) {
                break;
            }
            self.thread()?;
        }
        if self.program.threads.is_empty() {
            let t = self.peek();
            return Err((
                t.line,
                t.col,
                format!(
                    "expected a thread `P0@wg 0, dev 0 (...) {{`, found {}",
                    t.show()
                ),
            ));
        }
        self.check_broadcast_ids()?;
        self.finish_host()?;
        // Initialised names no thread declares are global locations.
        let init = std::mem::take(&mut self.init);
        for (name, _, _, _) in &init {
            if !self.classes.contains_key(name)
                && !self.locs.contains_key(name)
                && !self.instances.contains_key(name)
                && !self.privates.contains(name)
            {
                self.location(name.clone());
            }
        }
        for (name, v, _, _) in &init {
            if self.privates.contains(name) {
                continue;
            }
            let locs: Vec<usize> = match self.instances.get(name) {
                Some(v) => v.clone(),
                None => vec![self.locs[name]],
            };
            for l in locs {
                self.program.initial_values[l] = *v;
            }
        }
        self.final_section()
    }

    fn init_block(&mut self) -> R<()> {
        self.expect("{", "to open the init block")?;
        loop {
            if self.eat("}") {
                return Ok(());
            }
            if self.eat(";") {
                continue;
            }
            if self.host_declaration()? {
                if !self.is("}") {
                    self.expect(";", "after a declaration")?;
                }
                continue;
            }
            // An optional C type (`atomic_int y[2] = {0, 0};`, as Dat3M's
            // grammar allows): it declares nothing the parameters do not.
            while let K::Ident(w) = &self.peek().k {
                if let Some(why) = image_or_pipe(w) {
                    let t = self.peek();
                    return Err((t.line, t.col, format!("`{w}`: {why}")));
                }
                if !INIT_TYPE_WORDS.contains(&w.as_str()) {
                    break;
                }
                self.next();
            }
            let bracket = self.eat("[");
            let (name, t) = self.ident("a location name in the init block")?;
            if bracket {
                self.expect("]", "after the location name")?;
            }
            if !bracket && self.is("[") {
                self.array_init(name, &t)?;
            } else {
                self.expect("=", "after the location")?;
                let v = self.init_value()?;
                self.init_entry(name, v, &t)?;
            }
            if !self.is("}") {
                self.expect(";", "after an initial value")?;
            }
        }
    }

    /// Records the initial value of `name` (a scalar, or an element `y[k]`).
    fn init_entry(&mut self, name: String, v: i64, t: &Tok) -> R<()> {
        if self.init.iter().any(|i| i.0 == name) {
            return Err((t.line, t.col, format!("`{name}` is initialised twice")));
        }
        self.init.push((name, v, t.line, t.col));
        Ok(())
    }

    /// An initial value: an integer, `ATOMIC_VAR_INIT(v)` (OpenCL C's
    /// macro; `ATOMIC_INIT(v)` as Dat3M spells it) or `ATOMIC_FLAG_INIT`
    /// (a clear flag: 0).
    fn init_value(&mut self) -> R<i64> {
        if self.is_ident("ATOMIC_FLAG_INIT") {
            self.next();
            return Ok(0);
        }
        if self.is_ident("ATOMIC_VAR_INIT") || self.is_ident("ATOMIC_INIT") {
            self.next();
            self.expect("(", "after the initialisation macro")?;
            let v = self.int("an initial value")?;
            self.expect(")", "to close the initialisation macro")?;
            return Ok(v);
        }
        self.int("an initial value")
    }

    /// After `y`: `[N]`, `[N] = {v, ...}` or `[] = {v, ...}` declares the
    /// array `y` of N elements `y[0]`...; `[k] = v` sets one element of an
    /// array declared before.
    fn array_init(&mut self, name: String, t: &Tok) -> R<()> {
        let open = self.expect("[", "after the array name")?;
        let n = if self.is("]") {
            None
        } else {
            Some(self.int("an array length")?)
        };
        self.expect("]", "to close the array length")?;
        if let Some(&len) = self.arrays.get(&name) {
            // `y[k] = v`: one element of a declared array.
            let Some(k) = n else {
                return Err((open.line, open.col, format!("`{name}` is declared twice")));
            };
            if k < 0 || k as usize >= len {
                return Err((
                    open.line,
                    open.col,
                    format!("index {k} is outside the array `{name}` of {len} elements"),
                ));
            }
            self.expect("=", "after the array element")?;
            let v = self.init_value()?;
            return self.init_entry(format!("{name}[{k}]"), v, t);
        }
        let mut values = Vec::new();
        if self.eat("=") {
            let brace = self.expect("{", "to open the array's initial values")?;
            if !self.eat("}") {
                loop {
                    values.push(self.init_value()?);
                    if self.eat("}") {
                        break;
                    }
                    self.expect(",", "between initial values")?;
                }
            }
            if values.len() > MAX_ARRAY {
                return Err((
                    brace.line,
                    brace.col,
                    format!("an array of more than {MAX_ARRAY} elements"),
                ));
            }
        }
        let len = match n {
            Some(n) if n < 1 || n > MAX_ARRAY as i64 => {
                return Err((
                    open.line,
                    open.col,
                    format!("an array length must be 1 to {MAX_ARRAY}, found {n}"),
                ));
            }
            Some(n) => n as usize,
            None if values.is_empty() => {
                return Err((
                    open.line,
                    open.col,
                    format!("the array `{name}` needs a length or initial values"),
                ));
            }
            None => values.len(),
        };
        if values.len() > len {
            return Err((
                t.line,
                t.col,
                format!(
                    "{} initial values for the array `{name}` of {len} elements",
                    values.len()
                ),
            ));
        }
        if self.init.iter().any(|i| i.0 == name) {
            return Err((t.line, t.col, format!("`{name}` is initialised twice")));
        }
        // C11 6.7.9p21: elements without an initializer are initialized
        // like objects of static storage duration (to 0).
        values.resize(len, 0);
        self.arrays.insert(name.clone(), len);
        for (k, v) in values.into_iter().enumerate() {
            self.init_entry(format!("{name}[{k}]"), v, t)?;
        }
        Ok(())
    }

    fn location(&mut self, name: String) -> usize {
        if let Some(&l) = self.locs.get(&name) {
            return l;
        }
        let l = self.program.locations.len();
        self.program.locations.push(name.clone());
        self.program.initial_values.push(0);
        self.program.references.push(Reference {
            name: name.clone(),
            location: l,
        });
        self.locs.insert(name, l);
        l
    }

    fn thread(&mut self) -> R<()> {
        let (name, t) = self.ident("a thread name")?;
        let index = self.program.threads.len();
        if name[1..] != index.to_string() {
            return Err((
                t.line,
                t.col,
                format!("expected thread P{index} (threads are numbered in order), found `{name}`"),
            ));
        }
        let (mut wg, mut dev, mut sg) = (0usize, 0usize, None);
        // `Pk@host`: a host thread (docs/format-opencl-litmus.md, "Host
        // threads").
        let host = self.is("@") && self.peek_at(1).k == K::Ident("host".into());
        if host {
            self.next();
            self.next();
        }
        if !host && self.eat("@") {
            loop {
                let (key, kt) = self.ident("`sg`, `wg` or `dev`")?;
                let v = self.int("a number")?;
                let v = usize::try_from(v)
                    .map_err(|_| (kt.line, kt.col, format!("negative `{key}` number")))?;
                match key.as_str() {
                    "sg" => sg = Some(v),
                    "wg" => wg = v,
                    "dev" => dev = v,
                    _ => {
                        return Err((
                            kt.line,
                            kt.col,
                            format!("expected `sg`, `wg` or `dev`, found `{key}`"),
                        ));
                    }
                }
                if !self.eat(",") {
                    break;
                }
            }
        }
        if host {
            // A host thread is in no work-group or sub-group: fresh ids.
            dev = usize::MAX;
            wg = index;
        }
        self.host_thread(index, host, (t.line, t.col));
        let next_wg = self.workgroups.len();
        let workgroup = *self.workgroups.entry((dev, wg)).or_insert(next_wg);
        // 2.2: "Each work-group is decomposed into sub-groups": `sg N` names
        // a sub-group of the thread's work-group; a thread without `sg` is a
        // sub-group of its own (the placement before sub-groups were
        // spellable; its id is the thread's index when no thread names one).
        let next_sg = self.subgroups.len();
        let subgroup = *self
            .subgroups
            .entry((dev, wg, sg.ok_or(index)))
            .or_insert(next_sg);
        let mut ctx = Ctx {
            index,
            workgroup,
            subgroup,
            sg_barriers: 0,
            params: HashMap::new(),
            regs: HashSet::new(),
            code: Vec::new(),
            temps: 0,
            labels: 0,
            barriers: 0,
            expressions: 0,
            registers: Vec::new(),
            end: None,
            host,
            conditional: 0,
        };
        self.expect("(", "to open the parameter list")?;
        if !self.eat(")") {
            loop {
                let at = self.peek().clone();
                self.param(&mut ctx, wg, dev)?;
                // 3.6: "Kernels may access both kinds of memory while host
                // threads may only access global memory."
                if host
                    && ctx
                        .params
                        .values()
                        .any(|p| p.private || p.class != OPENCL_GLOBAL)
                {
                    return Err((
                        at.line,
                        at.col,
                        "a host thread's parameters are `global` (\"Kernels may access both kinds of memory while host threads may only access global memory\", 3.6)".into(),
                    ));
                }
                if self.eat(")") {
                    break;
                }
                self.expect(",", "between parameters")?;
            }
        }
        let open = self.expect("{", "to open the thread body")?;
        self.block_rest(&mut ctx, &open)?;
        if let Some(end) = ctx.end.take() {
            ctx.code.push(Stmt::Label {
                name: end,
                source: self.span(open.line),
            });
        }
        self.thread_regs.push(ctx.regs);
        self.program.threads.push(Thread {
            id: index,
            subgroup,
            workgroup,
            queue_family: 0,
            device: if host { 0 } else { dev },
            code: ctx.code,
            registers: ctx.registers,
            fragment: None,
        });
        Ok(())
    }

    fn param(&mut self, ctx: &mut Ctx, wg: usize, dev: usize) -> R<()> {
        let mut class = None;
        let mut atomic = None;
        let mut read_only = ReadOnly::No;
        let mut private = false;
        let first = self.peek().clone();
        loop {
            let (w, t) = self.ident("a parameter type such as `global atomic_int* x`")?;
            match w.as_str() {
                "global" | "__global" => class = Some(OPENCL_GLOBAL),
                "local" | "__local" => class = Some(OPENCL_LOCAL),
                // "Constant Memory (UniformConstant Storage Class): A region
                // of global memory that remains constant during the
                // execution of a kernel-instance. The host allocates and
                // initializes memory objects placed into constant memory."
                "constant" | "__constant" => {
                    class = Some(OPENCL_GLOBAL);
                    read_only = ReadOnly::ConstantSpace;
                }
                // "Private Memory ...: A region of memory private to a
                // work-item. Variables defined in one work-item's private
                // memory are not visible to another work-item."
                "private" | "__private" => private = true,
                // `volatile` changes nothing the model sees (SPIR-V memory
                // model 3.7: "Volatile has no effect on atomicity, or on
                // relative ordering between volatile and non-volatile memory
                // operations"); vkmm never combines, duplicates or reorders
                // accesses, which is what it asks of a compiler.
                "volatile" => {}
                "const" => {
                    if read_only == ReadOnly::No {
                        read_only = ReadOnly::Const;
                    }
                }
                "int" | "uint" | "unsigned" => atomic = Some(false),
                "atomic_int" | "atomic_uint" | "atomic_flag" => atomic = Some(true),
                _ if image_or_pipe(&w).is_some() => {
                    let why = image_or_pipe(&w).unwrap_or_default();
                    return Err((t.line, t.col, format!("`{w}`: {why}")));
                }
                _ => {
                    return Err((
                        t.line,
                        t.col,
                        format!(
                            "expected `global`, `local`, `constant`, `private`, `volatile`, `const`, `int`, `atomic_int` or `atomic_flag` in a parameter, found `{w}`{}",
                            suggest::did_you_mean(w.as_str(), PARAM_WORDS.iter().copied())
                        ),
                    ));
                }
            }
            if self.is("*") {
                break;
            }
        }
        let Some(atomic_type) = atomic else {
            return Err((
                first.line,
                first.col,
                "parameter without a type (`int` or `atomic_int`)".into(),
            ));
        };
        self.expect("*", "(parameters are pointers)")?;
        let (name, t) = self.ident("a parameter name")?;
        if ctx.params.contains_key(&name) {
            return Err((t.line, t.col, format!("parameter `{name}` declared twice")));
        }
        let len = self.arrays.get(&name).copied().unwrap_or(1);
        if private {
            if class.is_some() {
                return Err((
                    first.line,
                    first.col,
                    format!("`{name}` is declared in two address spaces"),
                ));
            }
            if self.arrays.contains_key(&name) {
                return Err((
                    t.line,
                    t.col,
                    format!("private arrays are not supported (`{name}`)"),
                ));
            }
            if self.locs.contains_key(&name) || self.classes.contains_key(&name) {
                return Err((
                    t.line,
                    t.col,
                    format!(
                        "`{name}` is private in P{} but shared in another thread",
                        ctx.index
                    ),
                ));
            }
            // The work-item's own variable: a register of the same name,
            // set from the init block.
            self.privates.insert(name.clone());
            if let Some((_, v, _, _)) = self.init.iter().find(|i| i.0 == name) {
                ctx.registers.push((name.clone(), *v));
            }
            ctx.regs.insert(name.clone());
            ctx.params.insert(
                name,
                Param {
                    class: OPENCL_GENERIC,
                    reference: 0,
                    len: 1,
                    atomic_type,
                    read_only,
                    private: true,
                },
            );
            return Ok(());
        }
        if self.privates.contains(&name) {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{name}` is shared in P{} but private in another thread",
                    ctx.index
                ),
            ));
        }
        // Unqualified pointers are generic: in neither memory region.
        let class = class.unwrap_or(OPENCL_GENERIC);
        self.classes.entry(name.clone()).or_insert(class);
        // An array's elements are consecutive locations (allocated together
        // the first time), `y[0]`, `y[1]`, ...
        let element = |k: usize| {
            if self.arrays.contains_key(&name) {
                format!("{name}[{k}]")
            } else {
                name.clone()
            }
        };
        let names: Vec<String> = (0..len).map(element).collect();
        let mut loc = 0;
        for (k, base) in names.into_iter().enumerate() {
            let l = if class == OPENCL_LOCAL
                && self.options.local_memory == LocalMemory::PerWorkgroup
            {
                let inst = if dev == 0 {
                    format!("{base}@wg{wg}")
                } else {
                    format!("{base}@dev{dev}.wg{wg}")
                };
                let known = self.locs.contains_key(&inst);
                let l = self.location(inst);
                if !known {
                    self.instances.entry(base).or_default().push(l);
                }
                l
            } else {
                self.location(base)
            };
            if k == 0 {
                loc = l;
            }
        }
        ctx.params.insert(
            name,
            Param {
                class,
                reference: loc,
                len,
                atomic_type,
                read_only,
                private: false,
            },
        );
        Ok(())
    }

    /// Statements up to the `}` closing `open`.
    fn block_rest(&mut self, ctx: &mut Ctx, open: &Tok) -> R<()> {
        let mut stmts = 0usize;
        loop {
            if self.eat("}") {
                return Ok(());
            }
            if self.peek().k == K::Eof {
                return Err((open.line, open.col, "unclosed `{`".into()));
            }
            stmts += 1;
            if stmts.is_multiple_of(TOKENS_PER_CHECK) {
                let t = self.peek();
                let (line, col) = (t.line, t.col);
                out_of_bounds().map_err(|m| (line, col, m))?;
            }
            self.stmt(ctx)?;
        }
    }

    fn stmt(&mut self, ctx: &mut Ctx) -> R<()> {
        self.nested(|p| p.stmt_inner(ctx))
    }

    fn stmt_inner(&mut self, ctx: &mut Ctx) -> R<()> {
        let t = self.peek().clone();
        match &t.k {
            K::Punct("{") => {
                self.next();
                self.block_rest(ctx, &t)
            }
            K::Punct(";") => {
                self.next();
                Ok(())
            }
            K::Punct("*") => self.store_stmt(ctx, &t),
            K::Ident(w) if host::is_api_word(w) && self.peek_at(1).k == K::Punct("(") => {
                let w = w.clone();
                self.host_call(ctx, &w)
            }
            K::Ident(_) if self.peek_at(1).k == K::Punct("[") => self.store_stmt(ctx, &t),
            K::Ident(w) if w == "if" || w == "while" => {
                let is_while = w == "while";
                self.next();
                self.expect("(", &format!("after `{w}`"))?;
                let cond = self.expr(0)?;
                self.expect(")", "to close the condition")?;
                if is_while {
                    let top = ctx.label();
                    let end = ctx.label();
                    ctx.code.push(Stmt::Label {
                        name: top.clone(),
                        source: self.span(t.line),
                    });
                    self.branch(ctx, &cond, false, &end)?;
                    ctx.conditional += 1;
                    self.stmt(ctx)?;
                    ctx.conditional -= 1;
                    ctx.code.push(Stmt::Goto {
                        label: top,
                        source: self.span(t.line),
                    });
                    ctx.code.push(Stmt::Label {
                        name: end,
                        source: self.span(t.line),
                    });
                    return Ok(());
                }
                let els = ctx.label();
                self.branch(ctx, &cond, false, &els)?;
                ctx.conditional += 1;
                self.stmt(ctx)?;
                ctx.conditional -= 1;
                if self.is_ident("else") {
                    let et = self.next();
                    let end = ctx.label();
                    ctx.code.push(Stmt::Goto {
                        label: end.clone(),
                        source: self.span(et.line),
                    });
                    ctx.code.push(Stmt::Label {
                        name: els,
                        source: self.span(et.line),
                    });
                    ctx.conditional += 1;
                    self.stmt(ctx)?;
                    ctx.conditional -= 1;
                    ctx.code.push(Stmt::Label {
                        name: end,
                        source: self.span(et.line),
                    });
                } else {
                    ctx.code.push(Stmt::Label {
                        name: els,
                        source: self.span(t.line),
                    });
                }
                Ok(())
            }
            K::Ident(w) if w == "else" => Err((t.line, t.col, "`else` without `if`".into())),
            K::Ident(w) if unsupported_word(w).is_some() => {
                Err((t.line, t.col, unsupported_word(w).unwrap_or_default()))
            }
            K::Punct(p @ ("++" | "--")) => Err((t.line, t.col, unsupported_update(p))),
            K::Ident(_) if matches!(self.peek_at(1).k, K::Punct("++" | "--" | "+=" | "-=")) => {
                let K::Punct(p) = self.peek_at(1).k else {
                    unreachable!("matched above")
                };
                let at = self.peek_at(1).clone();
                Err((at.line, at.col, unsupported_update(p)))
            }
            K::Ident(w) if UNSUPPORTED_STMT.contains(&w.as_str()) => Err((
                t.line,
                t.col,
                format!(
                    "unsupported C construct `{w}` (supported: declarations, assignments, stores, atomic calls, fences, barriers, `if`/`else`, `while`)"
                ),
            )),
            K::Ident(w) if TYPES.contains(&w.as_str()) => {
                self.next();
                while let K::Ident(w) = &self.peek().k {
                    if !TYPES.contains(&w.as_str()) {
                        break;
                    }
                    self.next();
                }
                if self.is("*") {
                    let at = self.peek();
                    return Err((
                        at.line,
                        at.col,
                        "pointer variables are not supported yet: shared variables are the thread's parameters".into(),
                    ));
                }
                loop {
                    let (name, nt) = self.ident("a register name")?;
                    if self.is("[") {
                        let at = self.peek();
                        return Err((at.line, at.col, "arrays are not supported yet".into()));
                    }
                    if ctx.params.contains_key(&name) {
                        return Err((
                            nt.line,
                            nt.col,
                            format!("register `{name}` shadows the parameter `{name}`"),
                        ));
                    }
                    if self.eat("=") {
                        let e = self.expr(0)?;
                        self.assign(ctx, &name, &e, nt.line)?;
                    }
                    ctx.regs.insert(name);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(";", "after a declaration")?;
                Ok(())
            }
            K::Ident(w)
                if w.starts_with("atomic_")
                    && w != "atomic_work_item_fence"
                    && !self.peek_at(1).k.eq(&K::Punct("(")) =>
            {
                Err((
                    t.line,
                    t.col,
                    format!(
                        "unsupported declaration of type `{w}` inside a thread (declare shared variables as parameters)"
                    ),
                ))
            }
            K::Ident(w) if self.peek_at(1).k == K::Punct(":") => {
                // A C label (herd names barriers `B1:`); nothing jumps to it.
                let _ = w;
                self.next();
                self.next();
                self.stmt(ctx)
            }
            K::Ident(w) if self.peek_at(1).k == K::Punct("=") => {
                let name = w.clone();
                self.next();
                self.next();
                if ctx.params.contains_key(&name) {
                    return Err((
                        t.line,
                        t.col,
                        format!(
                            "cannot assign to the pointer `{name}`: write `*{name} = v;` or use an atomic store"
                        ),
                    ));
                }
                if !ctx.regs.contains(&name) {
                    return Err((
                        t.line,
                        t.col,
                        format!("undeclared register `{name}` (declare it with `int {name}`)"),
                    ));
                }
                let e = self.expr(0)?;
                self.expect(";", "after an assignment")?;
                self.assign(ctx, &name, &e, t.line)
            }
            _ => {
                let e = self.expr(0)?;
                self.expect(";", "after a statement")?;
                match &e.x {
                    X::Call(name, args) => {
                        self.call(ctx, name, args, &e, None, false)?;
                        Ok(())
                    }
                    _ => Err((
                        e.line,
                        e.col,
                        "expected a statement (a declaration, an assignment, a store `*x = v;`, a call, `if` or `while`)".into(),
                    )),
                }
            }
        }
    }

    // ----- expressions -------------------------------------------------------

    /// Runs `f` one nesting level deeper, or fails at the next token past
    /// [`MAX_NESTING`] levels (statements, expressions and parentheses
    /// each nest).
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= MAX_NESTING {
            let t = self.peek();
            return Err((
                t.line,
                t.col,
                format!("nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// An expression, or an error where it grows taller than
    /// [`MAX_NESTING`] (a long flat chain `1 + 1 + ...` included).
    /// `at` is the operator (or the first token) of the expression,
    /// `(line, col)` where the expression starts.
    fn tall(at: &Tok, (line, col): (usize, usize), x: X, height: usize) -> R<Expr> {
        if height > MAX_NESTING {
            return Err((
                at.line,
                at.col,
                format!("expression nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(Expr {
            x,
            line,
            col,
            height,
        })
    }

    fn expr(&mut self, min: u8) -> R<Expr> {
        self.nested(|p| p.expr_inner(min))
    }

    fn expr_inner(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        loop {
            let t = self.peek().clone();
            let K::Punct(p) = t.k else { break };
            if p == "/" || p == "%" {
                return Err((
                    t.line,
                    t.col,
                    format!(
                        "`{p}` is not supported: division and remainder would need a meaning for 0 (supported: + - * & | ^)"
                    ),
                ));
            }
            let Some((prec, op)) = binop(p) else { break };
            if prec <= min {
                break;
            }
            self.next();
            let rhs = self.expr(prec)?;
            let height = 1 + lhs.height.max(rhs.height);
            let start = (lhs.line, lhs.col);
            lhs = Self::tall(&t, start, X::Bin(op, Box::new(lhs), Box::new(rhs)), height)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        self.nested(|p| p.unary_inner())
    }

    fn unary_inner(&mut self) -> R<Expr> {
        let t = self.next();
        let x = match &t.k {
            K::Int(v) => X::Int(*v),
            K::Punct("-") => X::Neg(Box::new(self.unary()?)),
            K::Punct("!") => X::Not(Box::new(self.unary()?)),
            K::Punct("*") => X::Deref(Box::new(self.unary()?)),
            K::Punct("&") => X::AddrOf(Box::new(self.unary()?)),
            K::Punct("(") if matches!(&self.peek().k, K::Ident(w) if TYPES.contains(&w.as_str()) || PARAM_WORDS.contains(&w.as_str())) =>
            {
                return Err((t.line, t.col, "casts are not supported".into()));
            }
            K::Ident(w) if unsupported_word(w).is_some() => {
                return Err((t.line, t.col, unsupported_word(w).unwrap_or_default()));
            }
            K::Punct("(") => {
                let e = self.expr(0)?;
                self.expect(")", "to close the parenthesis")?;
                return Ok(e);
            }
            K::Ident(name) => {
                if self.eat("(") {
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.expr(0)?);
                            if self.eat(")") {
                                break;
                            }
                            self.expect(",", "between arguments")?;
                        }
                    }
                    X::Call(name.clone(), args)
                } else if self.eat("[") {
                    let i = self.expr(0)?;
                    self.expect("]", "to close the index")?;
                    X::Index(name.clone(), Box::new(i))
                } else if self.is(".") {
                    let at = self.peek();
                    return Err((at.line, at.col, "structs are not supported yet".into()));
                } else {
                    X::Name(name.clone())
                }
            }
            _ => {
                return Err((
                    t.line,
                    t.col,
                    format!("expected an expression, found {}", t.show()),
                ));
            }
        };
        let height = 1 + match &x {
            X::Neg(e) | X::Not(e) | X::Deref(e) | X::AddrOf(e) | X::Index(_, e) => e.height,
            X::Call(_, args) => args.iter().map(|a| a.height).max().unwrap_or(0),
            _ => 0,
        };
        Self::tall(&t, (t.line, t.col), x, height)
    }

    /// `*p = e;` or `y[i] = e;`: a plain store.
    fn store_stmt(&mut self, ctx: &mut Ctx, t: &Tok) -> R<()> {
        let lhs = self.unary()?;
        if !matches!(lhs.x, X::Deref(_) | X::Index(..)) {
            return Err((
                lhs.line,
                lhs.col,
                "expected a statement (a declaration, an assignment, a store `*x = v;`, a call, `if` or `while`)".into(),
            ));
        }
        self.expect("=", "in a store `*x = v;`")?;
        let e = self.expr(0)?;
        self.expect(";", "after a statement")?;
        let pl = self.place(ctx, &lhs)?;
        Self::writable(&pl, "this store")?;
        let v = self.value(ctx, &e, None)?;
        let source = self.span(t.line);
        self.at_place(ctx, &pl, &mut |p, ctx, loc| {
            if pl.param.private {
                ctx.code.push(Stmt::Assign {
                    dest: pl.name.clone(),
                    op: ArithOp::Add,
                    a: v.clone(),
                    b: Operand::Const(0),
                    source: source.clone(),
                });
                return Ok(());
            }
            let _ = p;
            let mut i = Instruction::new(OpKind::Store, source.clone());
            access(&mut i, &pl.param, loc);
            i.operand = Some(v.clone());
            ctx.code.push(Stmt::Op(i));
            Ok(())
        })
    }

    /// Whether `e` is syntactically a pointer: a (non-register) parameter,
    /// `&e`, or a pointer plus or minus an integer.
    fn is_pointer(ctx: &Ctx, e: &Expr) -> bool {
        match &e.x {
            X::Name(n) => ctx.params.contains_key(n),
            X::AddrOf(_) => true,
            X::Bin(Bin::Arith(ArithOp::Add), a, b) => {
                Self::is_pointer(ctx, a) || Self::is_pointer(ctx, b)
            }
            X::Bin(Bin::Arith(ArithOp::Sub), a, _) => Self::is_pointer(ctx, a),
            _ => false,
        }
    }

    /// `a + b` (or `a - b`) of two indices, folded when both are constants.
    fn index_sum(
        &mut self,
        ctx: &mut Ctx,
        op: ArithOp,
        a: Operand,
        b: Operand,
        line: usize,
    ) -> Operand {
        if let (Operand::Const(x), Operand::Const(y)) = (&a, &b) {
            return Operand::Const(op.apply(*x, *y));
        }
        let d = ctx.temp();
        ctx.code.push(Stmt::Assign {
            dest: d.clone(),
            op,
            a,
            b,
            source: self.span(line),
        });
        Operand::Reg(d)
    }

    /// What a pointer expression points to: a parameter `y` (element 0),
    /// `y + i`, `i + y`, `y - i` (C11 6.5.6p8: "the result points to an
    /// element offset from the original element such that the difference
    /// of the subscripts of the resulting and original array elements
    /// equals the integer expression"), `&y[i]`, `&*p`, in parentheses.
    fn pointer(&mut self, ctx: &mut Ctx, e: &Expr) -> R<Place> {
        match &e.x {
            X::Name(n) if ctx.params.contains_key(n) => Ok(Place {
                param: ctx.params[n],
                name: n.clone(),
                index: Operand::Const(0),
                line: e.line,
                col: e.col,
            }),
            X::AddrOf(inner) if matches!(inner.x, X::Deref(_) | X::Index(..)) => {
                self.place(ctx, inner)
            }
            X::Bin(Bin::Arith(op @ (ArithOp::Add | ArithOp::Sub)), a, b) => {
                let (p, i) = if Self::is_pointer(ctx, a) {
                    (a, b)
                } else if *op == ArithOp::Add && Self::is_pointer(ctx, b) {
                    (b, a)
                } else {
                    return Err((
                        e.line,
                        e.col,
                        "expected a pointer: a parameter, `y + i` or `&y[i]`".into(),
                    ));
                };
                if Self::is_pointer(ctx, i) {
                    return Err((
                        i.line,
                        i.col,
                        "the sum or difference of two pointers is not supported".into(),
                    ));
                }
                let mut pl = self.pointer(ctx, p)?;
                let k = self.value(ctx, i, None)?;
                let base = std::mem::replace(&mut pl.index, Operand::Const(0));
                pl.index = self.index_sum(ctx, *op, base, k, e.line);
                Ok(pl)
            }
            X::AddrOf(_) => Err((
                e.line,
                e.col,
                "`&` takes an element (`&y[i]`, `&*p`); pass a parameter itself (`atomic_load(x)`)"
                    .into(),
            )),
            X::Name(n) if ctx.regs.contains(n) => Err((
                e.line,
                e.col,
                format!(
                    "`{n}` is a register, not a pointer: pointer variables are not supported; shared variables are the thread's parameters"
                ),
            )),
            X::Name(n) => Err((
                e.line,
                e.col,
                format!("`{n}` is not a parameter of P{}", ctx.index),
            )),
            _ => Err((
                e.line,
                e.col,
                "expected a pointer: a parameter, `y + i` or `&y[i]`".into(),
            )),
        }
    }

    /// The element an lvalue `*p` or `y[i]` (C11 6.5.2.1p2: "E1\[E2\] is
    /// identical to (*((E1)+(E2)))") designates.
    fn place(&mut self, ctx: &mut Ctx, e: &Expr) -> R<Place> {
        match &e.x {
            X::Deref(p) => self.pointer(ctx, p),
            X::Index(n, i) => {
                let Some(param) = ctx.params.get(n).copied() else {
                    return Err((
                        e.line,
                        e.col,
                        format!("`{n}` is not a parameter of P{}", ctx.index),
                    ));
                };
                let index = self.value(ctx, i, None)?;
                Ok(Place {
                    param,
                    name: n.clone(),
                    index,
                    line: e.line,
                    col: e.col,
                })
            }
            _ => Err((e.line, e.col, "expected `*p` or `y[i]`".into())),
        }
    }

    /// Runs `f` with the location of the element `pl` designates: directly
    /// for a constant index (refused outside the array), through one branch
    /// per element for a register index. An index outside the array is
    /// undefined behaviour (C11 6.5.6p8: "If both the pointer operand and
    /// the result point to elements of the same array object, or one past
    /// the last element of the array object, the evaluation shall not
    /// produce an overflow; otherwise, the behavior is undefined"): the
    /// work-item's path ends there, as at SPIR-V's OpUnreachable.
    fn at_place(
        &mut self,
        ctx: &mut Ctx,
        pl: &Place,
        f: &mut dyn FnMut(&mut Self, &mut Ctx, usize) -> R<()>,
    ) -> R<()> {
        let len = pl.param.len;
        match &pl.index {
            Operand::Const(k) => {
                if *k < 0 || *k as usize >= len {
                    let what = if self.arrays.contains_key(&pl.name) {
                        format!("the array `{}` of {len} elements", pl.name)
                    } else {
                        format!(
                            "`{}`, which is not an array (declare `int {}[N]` in the init block)",
                            pl.name, pl.name
                        )
                    };
                    return Err((pl.line, pl.col, format!("index {k} is outside {what}")));
                }
                f(self, ctx, pl.param.reference + *k as usize)
            }
            Operand::Reg(r) => {
                let source = self.span(pl.line);
                if ctx.end.is_none() {
                    ctx.end = Some(ctx.label());
                }
                let end = ctx.end.clone().unwrap_or_default();
                let done = ctx.label();
                let labels: Vec<String> = (0..len).map(|_| ctx.label()).collect();
                for (k, l) in labels.iter().enumerate() {
                    ctx.code.push(Stmt::Branch {
                        cmp: Cmp::Eq,
                        a: Operand::Reg(r.clone()),
                        b: Operand::Const(k as i64),
                        label: l.clone(),
                        source: source.clone(),
                    });
                }
                ctx.code.push(Stmt::Goto {
                    label: end,
                    source: source.clone(),
                });
                for (k, l) in labels.into_iter().enumerate() {
                    ctx.code.push(Stmt::Label {
                        name: l,
                        source: source.clone(),
                    });
                    f(self, ctx, pl.param.reference + k)?;
                    ctx.code.push(Stmt::Goto {
                        label: done.clone(),
                        source: source.clone(),
                    });
                }
                ctx.code.push(Stmt::Label { name: done, source });
                Ok(())
            }
        }
    }

    /// `reg = e`.
    fn assign(&mut self, ctx: &mut Ctx, reg: &str, e: &Expr, line: usize) -> R<()> {
        let v = self.value(ctx, e, Some(reg))?;
        if v != Operand::Reg(reg.to_string()) {
            ctx.code.push(Stmt::Assign {
                dest: reg.to_string(),
                op: ArithOp::Add,
                a: v,
                b: Operand::Const(0),
                source: self.span(line),
            });
        }
        Ok(())
    }

    /// Lowers a value; `hint` is the register the value is assigned to, if any.
    fn value(&mut self, ctx: &mut Ctx, e: &Expr, hint: Option<&str>) -> R<Operand> {
        let dest = |ctx: &mut Ctx| hint.map(str::to_string).unwrap_or_else(|| ctx.temp());
        match &e.x {
            X::Int(v) => Ok(Operand::Const(*v)),
            X::Name(n) => {
                if ctx.regs.contains(n) && !ctx.params.contains_key(n) {
                    Ok(Operand::Reg(n.clone()))
                } else if ctx.params.contains_key(n) {
                    Err((
                        e.line,
                        e.col,
                        format!("`{n}` is a pointer: read it with `*{n}` or an atomic load"),
                    ))
                } else {
                    Err((e.line, e.col, format!("undeclared register `{n}`")))
                }
            }
            X::Deref(_) | X::Index(..) => {
                let pl = self.place(ctx, e)?;
                let d = dest(ctx);
                let source = self.span(e.line);
                self.at_place(ctx, &pl, &mut |_, ctx, loc| {
                    if pl.param.private {
                        ctx.code.push(Stmt::Assign {
                            dest: d.clone(),
                            op: ArithOp::Add,
                            a: Operand::Reg(pl.name.clone()),
                            b: Operand::Const(0),
                            source: source.clone(),
                        });
                        return Ok(());
                    }
                    let mut i = Instruction::new(OpKind::Load, source.clone());
                    access(&mut i, &pl.param, loc);
                    i.dest = Some(d.clone());
                    ctx.code.push(Stmt::Op(i));
                    Ok(())
                })?;
                Ok(Operand::Reg(d))
            }
            X::AddrOf(_) => Err((
                e.line,
                e.col,
                "a pointer is not a value: pass it to an atomic function, or read it with `*`"
                    .into(),
            )),
            X::Call(name, args) => {
                let d = dest(ctx);
                self.call(ctx, name, args, e, Some(d.clone()), true)?;
                Ok(Operand::Reg(d))
            }
            X::Neg(inner) => {
                if let X::Int(v) = inner.x {
                    return Ok(Operand::Const(v.wrapping_neg()));
                }
                let v = self.value(ctx, inner, None)?;
                let d = dest(ctx);
                ctx.code.push(Stmt::Assign {
                    dest: d.clone(),
                    op: ArithOp::Sub,
                    a: Operand::Const(0),
                    b: v,
                    source: self.span(e.line),
                });
                Ok(Operand::Reg(d))
            }
            X::Bin(Bin::Arith(op), a, b) => {
                let start = ctx.code.len();
                let a = self.value(ctx, a, None)?;
                let mid = ctx.code.len();
                let b = self.value(ctx, b, None)?;
                mark_operands(ctx, start, mid);
                if let (Operand::Const(x), Operand::Const(y)) = (&a, &b) {
                    return Ok(Operand::Const(op.apply(*x, *y)));
                }
                let d = dest(ctx);
                ctx.code.push(Stmt::Assign {
                    dest: d.clone(),
                    op: *op,
                    a,
                    b,
                    source: self.span(e.line),
                });
                Ok(Operand::Reg(d))
            }
            X::Not(_) | X::Bin(..) => Err((
                e.line,
                e.col,
                "comparisons and logical operators are only supported as `if`/`while` conditions"
                    .into(),
            )),
        }
    }

    /// Jumps to `label` when `cond` evaluates to `when`.
    fn branch(&mut self, ctx: &mut Ctx, cond: &Expr, when: bool, label: &str) -> R<()> {
        let source = self.span(cond.line);
        match &cond.x {
            X::Not(inner) => self.branch(ctx, inner, !when, label),
            X::Bin(Bin::Cmp(c), a, b) => {
                let start = ctx.code.len();
                let a = self.value(ctx, a, None)?;
                let mid = ctx.code.len();
                let b = self.value(ctx, b, None)?;
                mark_operands(ctx, start, mid);
                ctx.code.push(Stmt::Branch {
                    cmp: if when { *c } else { c.negate() },
                    a,
                    b,
                    label: label.to_string(),
                    source,
                });
                Ok(())
            }
            X::Bin(op @ (Bin::And | Bin::Or), a, b) => {
                // `a && b` is true iff neither is false; `a || b` is false iff neither is true.
                let short = (*op == Bin::And) == when;
                if short {
                    let skip = ctx.label();
                    self.branch(ctx, a, !when, &skip)?;
                    self.branch(ctx, b, when, label)?;
                    ctx.code.push(Stmt::Label { name: skip, source });
                } else {
                    self.branch(ctx, a, when, label)?;
                    self.branch(ctx, b, when, label)?;
                }
                Ok(())
            }
            _ => {
                let v = self.value(ctx, cond, None)?;
                ctx.code.push(Stmt::Branch {
                    cmp: if when { Cmp::Ne } else { Cmp::Eq },
                    a: v,
                    b: Operand::Const(0),
                    label: label.to_string(),
                    source,
                });
                Ok(())
            }
        }
    }

    fn warn(&mut self, line: usize, column: usize, message: String) {
        self.program.warnings.push(FrontendWarning {
            file: self.file.to_string(),
            line,
            column,
            message,
        });
    }

    /// Refuses a write through a `const` or `constant` parameter (`what`
    /// writes it).
    fn writable(pl: &Place, what: &str) -> R<()> {
        let name = &pl.name;
        match pl.param.read_only {
            ReadOnly::No => Ok(()),
            ReadOnly::Const => Err((
                pl.line,
                pl.col,
                format!(
                    "{what} writes through `{name}`, a pointer to `const` (C11 6.5.16p2: \"An assignment operator shall have a modifiable lvalue as its left operand\"; the atomic functions that write take pointers to non-const objects)"
                ),
            )),
            ReadOnly::ConstantSpace => Err((
                pl.line,
                pl.col,
                format!(
                    "{what} writes to `{name}`, in the constant address space (\"Constant Memory (UniformConstant Storage Class): A region of global memory that remains constant during the execution of a kernel-instance. The host allocates and initializes memory objects placed into constant memory.\")"
                ),
            )),
        }
    }

    /// The warnings of an atomic operation `func` on the object `pl` at `scope`.
    fn atomic_lints(&mut self, pl: &Place, func: &str, scope: Scope) {
        let (p, name) = (&pl.param, &pl.name);
        if !p.atomic_type {
            self.warn(
                pl.line,
                pl.col,
                format!(
                    "`{func}` on `{name}`, which is declared `int*`, not `atomic_int*`: OpenCL C's atomic functions take pointers to atomic types; vkmm reads it as SPIR-V does (\"an atomic object M [is] a memory object that is touched at any point by an OpAtomic* SPIR-V operation\"), so every access to `{name}` is to an atomic object"
                ),
            );
        }
        if p.class == OPENCL_LOCAL && scope > Scope::Workgroup {
            self.warn(
                pl.line,
                pl.col,
                format!(
                    "`{func}` on the local object `{name}` at {scope} scope: \"When used on local memory, visibility is bounded by the work-group and, as a result, scopes wider than WorkGroup are invalid\" (give memory_scope_work_group)"
                ),
            );
        }
    }

    /// An atomic object argument: a pointer (`x`, `y + i`, `&y[i]`).
    fn atomic_param(
        &mut self,
        ctx: &mut Ctx,
        arg: Option<&Expr>,
        func: &str,
        call: &Expr,
    ) -> R<Place> {
        let Some(arg) = arg else {
            return Err((
                call.line,
                call.col,
                format!("`{func}` needs an atomic object argument"),
            ));
        };
        let pl = self.pointer(ctx, arg)?;
        if pl.param.private {
            // Atomic objects are shared: OpenCL C 2.0 6.13.11 allows the
            // atomic functions on global and local memory only.
            return Err((
                arg.line,
                arg.col,
                format!(
                    "`{func}` on `{}`, a private variable: atomic functions take objects in global or local memory (private memory is \"not visible to another work-item\")",
                    pl.name
                ),
            ));
        }
        Ok(pl)
    }

    /// A group function (`work_group_reduce_add(v)`, `sub_group_broadcast(v,
    /// id)`, ...): an unnamed control barrier of the group's execution
    /// scope that exchanges values ([`Instruction::group`]). It takes the
    /// place of the k-th work-group (sub-group) function of the work-item,
    /// counted together with `work_group_barrier` (`sub_group_barrier`):
    /// 2.4, "all Invocations in the work-group must encounter precisely the
    /// same work-group function"; a barrier and a group function at one
    /// position are a divergence, as two different group functions are.
    ///
    /// Memory: no semantics. 3.6.3 gives the OpGroup* instructions no
    /// ordering beyond sequenced-before ("The use of the OpGroup* implies
    /// sequenced-before relationships between statements within the
    /// execution of a single work-item in order to satisfy data
    /// dependencies"); the variant `opencl-groupsync` reads 2.4's "complete
    /// reads and writes to memory before any are allowed to continue" as
    /// synchronisation (models/opencl-groupsync.cat).
    fn group_call(
        &mut self,
        ctx: &mut Ctx,
        name: &str,
        (execution, op): (Scope, GroupOp),
        args: &[Expr],
        e: &Expr,
        dest: Option<String>,
    ) -> R<()> {
        let want = if op == GroupOp::Broadcast { 2 } else { 1 };
        if op == GroupOp::Broadcast && execution == Scope::Workgroup && matches!(args.len(), 3 | 4)
        {
            return Err((
                e.line,
                e.col,
                format!(
                    "the {}-dimensional form of `{name}` is not supported: litmus work-items have one-dimensional local ids (their place among the work-group's threads)",
                    args.len() - 1
                ),
            ));
        }
        if args.len() != want {
            return Err((
                e.line,
                e.col,
                format!(
                    "`{name}` takes {want} argument{}, found {}",
                    if want == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let value = self.value(ctx, &args[0], None)?;
        let local_id = match args.get(1) {
            Some(a) => {
                let id = self.value(ctx, a, None)?;
                if let Operand::Const(k) = id {
                    if k < 0 {
                        return Err((
                            a.line,
                            a.col,
                            format!("the local id {k} of `{name}` is negative"),
                        ));
                    }
                    self.broadcast_ids.push((
                        a.line,
                        a.col,
                        ctx.index,
                        execution,
                        k,
                        name.to_string(),
                    ));
                }
                Some(id)
            }
            None => None,
        };
        let instance = self.barrier_instance(ctx, execution);
        let mut i = Instruction::new(
            OpKind::control_barrier(instance, execution),
            self.span(e.line),
        );
        i.scope = Some(execution);
        i.operand = Some(value);
        i.dest = dest;
        i.group = Some(GroupFunction {
            op,
            local_id,
            nonuniform: false,
            width: None,
        });
        ctx.code.push(Stmt::Op(i));
        Ok(())
    }

    /// The control barrier instance of the work-item's next work-group
    /// (`execution` Workgroup) or sub-group function, barriers included:
    /// the k-th of each work-item of a work-group (sub-group) is one
    /// instance.
    fn barrier_instance(&mut self, ctx: &mut Ctx, execution: Scope) -> u32 {
        let key = if execution == Scope::Subgroup {
            ctx.sg_barriers += 1;
            (execution, ctx.subgroup, ctx.sg_barriers - 1)
        } else {
            ctx.barriers += 1;
            (execution, ctx.workgroup, ctx.barriers - 1)
        };
        let next = self.barriers.len() as u32;
        *self.barriers.entry(key).or_insert(next)
    }

    /// A constant broadcast local id must name a work-item of the group:
    /// OpenCL C, "Behavior is undefined when local_id is greater or equal to
    /// the work-group size" (likewise the sub-group size).
    fn check_broadcast_ids(&self) -> R<()> {
        let threads = &self.program.threads;
        for &(line, col, t, scope, k, ref name) in &self.broadcast_ids {
            let Some(me) = threads.get(t) else { continue };
            let size = threads
                .iter()
                .filter(|u| {
                    u.device == me.device
                        && if scope == Scope::Subgroup {
                            u.subgroup == me.subgroup
                        } else {
                            u.workgroup == me.workgroup
                        }
                })
                .count();
            if usize::try_from(k).map_or(true, |k| k >= size) {
                let group = if scope == Scope::Subgroup {
                    "sub-group"
                } else {
                    "work-group"
                };
                return Err((
                    line,
                    col,
                    format!(
                        "the local id {k} of `{name}` names no work-item: P{t}'s {group} has {size} (\"Behavior is undefined when local_id is greater or equal to the {group} size\")"
                    ),
                ));
            }
        }
        Ok(())
    }

    fn call(
        &mut self,
        ctx: &mut Ctx,
        name: &str,
        args: &[Expr],
        e: &Expr,
        dest: Option<String>,
        need_value: bool,
    ) -> R<()> {
        if !ctx.host {
            return self.call_inner(ctx, name, args, e, dest, need_value);
        }
        // A host thread: C11 atomics, at CrossDevice scope.
        if host::is_api_word(name) {
            return Err((
                e.line,
                e.col,
                format!(
                    "`{name}` is a host API call: write it as a statement of its own (`{name}(...);`), not in an expression"
                ),
            ));
        }
        if !host::host_function(name) {
            return Err((
                e.line,
                e.col,
                format!(
                    "`{name}` is not available to a host thread: it has plain accesses, C11 atomics (atomic_load, atomic_store, atomic_exchange, atomic_fetch_<op>, atomic_compare_exchange_*, atomic_flag_*, atomic_init, and their _explicit forms) and the host API calls"
                ),
            ));
        }
        for a in args {
            if let X::Name(n) = &a.x
                && n.starts_with("memory_scope_")
                && n != "memory_scope_all_svm_devices"
                && n != "memory_scope_all_devices"
            {
                return Err((
                    a.line,
                    a.col,
                    format!(
                        "`{n}` on the host: host atomics are C11 atomics at `memory_scope_all_svm_devices` (\"C11-compatible atomic operations in host code will synchronize at CrossDevice scope\", 3.6.1)"
                    ),
                ));
            }
        }
        let from = ctx.code.len();
        self.call_inner(ctx, name, args, e, dest, need_value)?;
        Self::host_atomics(ctx, from);
        Ok(())
    }

    fn call_inner(
        &mut self,
        ctx: &mut Ctx,
        name: &str,
        args: &[Expr],
        e: &Expr,
        dest: Option<String>,
        need_value: bool,
    ) -> R<()> {
        let (base, explicit) = match name.strip_suffix("_explicit") {
            Some(b) => (b, true),
            None => (name, false),
        };
        let arity = |lo: usize, hi: usize| -> R<()> {
            if args.len() < lo || args.len() > hi {
                let n = if lo == hi {
                    lo.to_string()
                } else {
                    format!("{lo} to {hi}")
                };
                Err((
                    e.line,
                    e.col,
                    format!("`{name}` takes {n} arguments, found {}", args.len()),
                ))
            } else {
                Ok(())
            }
        };
        let no_value = |what: &str| -> R<()> {
            if need_value {
                Err((e.line, e.col, format!("`{what}` returns no value")))
            } else {
                Ok(())
            }
        };
        let rmw = match base {
            "atomic_exchange" => Some(RmwOp::Exchange),
            "atomic_fetch_add" => Some(RmwOp::Add),
            "atomic_fetch_sub" => Some(RmwOp::Sub),
            "atomic_fetch_and" => Some(RmwOp::And),
            "atomic_fetch_or" => Some(RmwOp::Or),
            "atomic_fetch_xor" => Some(RmwOp::Xor),
            "atomic_fetch_min" => Some(RmwOp::Min),
            "atomic_fetch_max" => Some(RmwOp::Max),
            _ => None,
        };
        let source = self.span(e.line);
        match base {
            _ if base == "atomic_load"
                || base == "atomic_store"
                || base == "atomic_flag_test_and_set"
                || base == "atomic_flag_clear"
                || rmw.is_some() =>
            {
                // OpenCL C 2.0 6.13.11.8 (C11 7.17.8): `atomic_flag_test_and_set`
                // "Atomically sets the value pointed to by object to true"
                // and returns the value before, an exchange with 1;
                // `atomic_flag_clear` "Atomically sets the value pointed to
                // by object to false", a store of 0, whose order "shall not
                // be memory_order_acquire nor memory_order_acq_rel".
                let flag = base.starts_with("atomic_flag_");
                let kind = if base == "atomic_load" {
                    OpKind::Load
                } else if base == "atomic_store" || base == "atomic_flag_clear" {
                    OpKind::Store
                } else {
                    OpKind::Rmw
                };
                let fixed = if kind == OpKind::Load || flag { 1 } else { 2 };
                if explicit {
                    arity(fixed + 1, fixed + 2)?;
                } else {
                    arity(fixed, fixed)?;
                }
                if kind == OpKind::Store {
                    no_value(name)?;
                }
                let pl = self.atomic_param(ctx, args.first(), name, e)?;
                if kind != OpKind::Load {
                    Self::writable(&pl, &format!("`{name}`"))?;
                }
                let (order, seq_cst) = match args.get(fixed) {
                    Some(a) => order_arg(a, &kind)?,
                    None => (default_order(&kind), true),
                };
                let scope = match args.get(fixed + 1) {
                    Some(a) => scope_arg(a)?,
                    None => Scope::Device,
                };
                self.atomic_lints(&pl, name, scope);
                let operand = if base == "atomic_flag_test_and_set" {
                    Some(Operand::Const(1))
                } else if base == "atomic_flag_clear" {
                    Some(Operand::Const(0))
                } else {
                    match args.get(1).filter(|_| fixed == 2) {
                        Some(a) => Some(self.value(ctx, a, None)?),
                        None => None,
                    }
                };
                let class = pl.param.class;
                let rmw_op = rmw.unwrap_or_default();
                self.at_place(ctx, &pl, &mut |_, ctx, loc| {
                    let mut i = Instruction::new(kind.clone(), source.clone());
                    access(&mut i, &pl.param, loc);
                    i.atomic = true;
                    i.scope = Some(scope);
                    i.semantics = semantics(order, seq_cst, [class]);
                    i.make_pointer_available = kind != OpKind::Load;
                    i.make_pointer_visible = kind != OpKind::Store;
                    i.operand = operand.clone();
                    i.rmw_op = rmw_op;
                    if kind != OpKind::Store {
                        i.dest = dest.clone();
                    }
                    ctx.code.push(Stmt::Op(i));
                    Ok(())
                })
            }
            "atomic_init" => {
                // OpenCL C 2.0 6.13.11.5 (C11 7.17.2.2): "The atomic_init
                // function non-atomically initializes the atomic object
                // pointed to by obj to the value value." A plain store; the
                // object stays atomic (other atomic functions touch it).
                arity(2, 2)?;
                no_value(name)?;
                let pl = self.atomic_param(ctx, args.first(), name, e)?;
                Self::writable(&pl, &format!("`{name}`"))?;
                let v = self.value(ctx, &args[1], None)?;
                self.at_place(ctx, &pl, &mut |_, ctx, loc| {
                    let mut i = Instruction::new(OpKind::Store, source.clone());
                    access(&mut i, &pl.param, loc);
                    i.operand = Some(v.clone());
                    ctx.code.push(Stmt::Op(i));
                    Ok(())
                })
            }
            "atomic_compare_exchange_strong" | "atomic_compare_exchange_weak" => {
                // C11 7.17.7.4: compares `*obj` with `*expected`; if equal,
                // writes `desired` (a read-modify-write), else writes the value
                // read to `*expected` (the atomic access is then a read only).
                // (A weak compare-exchange is read as a strong one: vkmm does
                // not model spurious failures.)
                if explicit {
                    arity(5, 6)?;
                } else {
                    arity(3, 3)?;
                }
                let pl = self.atomic_param(ctx, args.first(), name, e)?;
                let exp = if Self::is_pointer(ctx, &args[1]) {
                    self.pointer(ctx, &args[1])?
                } else {
                    return Err((
                        args[1].line,
                        args[1].col,
                        format!(
                            "expected a pointer parameter as the `expected` argument of `{name}`"
                        ),
                    ));
                };
                if exp.param.private {
                    return Err((
                        args[1].line,
                        args[1].col,
                        format!(
                            "a private variable as the `expected` argument of `{name}` is not supported"
                        ),
                    ));
                }
                let kind = OpKind::Rmw;
                let (order, seq_cst) = match args.get(3) {
                    Some(a) => order_arg(a, &kind)?,
                    None => (default_order(&kind), true),
                };
                let (fail_order, fail_sc) = match args.get(4) {
                    // A failed compare-exchange writes nothing, so the
                    // release part of a failure order has no effect (C11
                    // forbids it; herd's tests use it).
                    Some(a) => match order_arg(a, &OpKind::Rmw)? {
                        (Order::Release, sc) => (Order::Relaxed, sc),
                        (Order::AcquireRelease, sc) => (Order::Acquire, sc),
                        other => other,
                    },
                    None => (Order::Acquire, true),
                };
                let scope = match args.get(5) {
                    Some(a) => scope_arg(a)?,
                    None => Scope::Device,
                };
                let what = format!("`{name}`");
                Self::writable(&pl, &what)?;
                // on failure it stores the value read to `*expected`
                Self::writable(&exp, &what)?;
                self.atomic_lints(&pl, name, scope);
                let desired_arg = &args[2];
                let ok = dest.unwrap_or_else(|| ctx.temp());
                self.at_place(ctx, &exp, &mut |p, ctx, exp_loc| {
                    p.at_place(ctx, &pl, &mut |p, ctx, loc| {
                        // expected value: a plain load of `*expected`
                        let expected = ctx.temp();
                        let mut load = Instruction::new(OpKind::Load, source.clone());
                        access(&mut load, &exp.param, exp_loc);
                        load.dest = Some(expected.clone());
                        ctx.code.push(Stmt::Op(load));
                        let desired = p.value(ctx, desired_arg, None)?;
                        let old = ctx.temp();
                        let mut i = Instruction::new(OpKind::Rmw, source.clone());
                        access(&mut i, &pl.param, loc);
                        i.atomic = true;
                        i.scope = Some(scope);
                        i.semantics = semantics(order, seq_cst, [pl.param.class]);
                        i.failure_semantics =
                            Some(semantics(fail_order, fail_sc, [pl.param.class]));
                        i.make_pointer_available = true;
                        i.make_pointer_visible = true;
                        i.operand = Some(desired);
                        i.expected = Some(Operand::Reg(expected.clone()));
                        i.rmw_op = RmwOp::CompareExchange;
                        i.dest = Some(old.clone());
                        ctx.code.push(Stmt::Op(i));
                        // success flag; on failure, `*expected = old`
                        let done = ctx.label();
                        let set = |dest: &str, v: i64| Stmt::Assign {
                            dest: dest.to_string(),
                            op: ArithOp::Add,
                            a: Operand::Const(v),
                            b: Operand::Const(0),
                            source: source.clone(),
                        };
                        ctx.code.push(set(&ok, 1));
                        ctx.code.push(Stmt::Branch {
                            cmp: Cmp::Eq,
                            a: Operand::Reg(old.clone()),
                            b: Operand::Reg(expected),
                            label: done.clone(),
                            source: source.clone(),
                        });
                        ctx.code.push(set(&ok, 0));
                        let mut store = Instruction::new(OpKind::Store, source.clone());
                        access(&mut store, &exp.param, exp_loc);
                        store.operand = Some(Operand::Reg(old));
                        ctx.code.push(Stmt::Op(store));
                        ctx.code.push(Stmt::Label {
                            name: done,
                            source: source.clone(),
                        });
                        Ok(())
                    })
                })
            }
            _ if name == "atomic_work_item_fence" => {
                arity(3, 3)?;
                no_value(name)?;
                let classes = flags_arg(&args[0])?;
                let (order, seq_cst) = order_arg(&args[1], &OpKind::MemoryBarrier)?;
                let scope = scope_arg(&args[2])?;
                let mut i = Instruction::new(OpKind::MemoryBarrier, source);
                i.scope = Some(scope);
                i.semantics = semantics(order, seq_cst, classes);
                ctx.code.push(Stmt::Op(i));
                Ok(())
            }
            _ if name == "barrier"
                || name == "work_group_barrier"
                || name == "sub_group_barrier" =>
            {
                if name == "barrier" {
                    arity(1, 1)?;
                } else {
                    arity(1, 2)?;
                }
                no_value(name)?;
                let classes = flags_arg(&args[0])?;
                // The execution scope: 3.6.3, "a single scope instance
                // defined by the WorkGroup or SubGroup execution scope
                // parameter". The memory scope defaults to the execution
                // scope (OpenCL C: `work_group_barrier(flags)` is
                // `work_group_barrier(flags, memory_scope_work_group)`, and
                // `sub_group_barrier(flags)` likewise at sub-group scope).
                let execution = if name == "sub_group_barrier" {
                    Scope::Subgroup
                } else {
                    Scope::Workgroup
                };
                let scope = match args.get(1) {
                    Some(a) => scope_arg(a)?,
                    None => execution,
                };
                let instance = self.barrier_instance(ctx, execution);
                let mut i = Instruction::new(OpKind::control_barrier(instance, execution), source);
                i.scope = Some(scope);
                i.semantics = semantics(Order::AcquireRelease, false, classes);
                ctx.code.push(Stmt::Op(i));
                Ok(())
            }
            _ if group_function(name).is_some() => {
                let (execution, op) =
                    group_function(name).unwrap_or((Scope::Workgroup, GroupOp::Any));
                self.group_call(ctx, name, (execution, op), args, e, dest)
            }
            _ if image_or_pipe(name).is_some() => Err((
                e.line,
                e.col,
                format!("`{name}`: {}", image_or_pipe(name).unwrap_or_default()),
            )),
            _ => Err((
                e.line,
                e.col,
                format!(
                    "unknown function `{name}` (supported: atomic_load/store/exchange, atomic_fetch_<op>, atomic_compare_exchange_*, atomic_flag_test_and_set/clear, their _explicit forms, atomic_init, atomic_work_item_fence, barrier, work_group_barrier, sub_group_barrier, and the group functions work_group_/sub_group_ broadcast, any, all, reduce_<op>, scan_inclusive_<op>, scan_exclusive_<op> with <op> add, min or max){}",
                    suggest::did_you_mean(name, FUNCTIONS.iter().copied())
                ),
            )),
        }
    }

    // ----- final clauses -----------------------------------------------------

    fn final_section(&mut self) -> R<()> {
        let symbols = &mut self.program.symbols;
        for (k, regs) in self.thread_regs.iter().enumerate() {
            symbols.add_thread(format!("P{k}"), regs);
        }
        let mut bases: Vec<(&String, &Vec<usize>)> = self.instances.iter().collect();
        bases.sort_by_key(|(_, ls)| ls.first().copied());
        for (base, ls) in bases {
            symbols.add_name(base, ls.clone());
        }
        let mut names: Vec<(&String, &usize)> = self.locs.iter().collect();
        names.sort_by_key(|(_, l)| **l);
        for (name, l) in names {
            symbols.add_name(name, vec![*l]);
        }
        let at = self.peek().at;
        let mut lx = Lexer::new(self.src, OPENCL, at, self.src.chars.len());
        let syntax = Syntax::of(Dialect::OpenCl);
        let f = condition::final_section(&mut lx, &syntax.cond, &self.program.symbols).map_err(
            |(at, message)| {
                let (line, col) = self.src.line_col(at);
                (line, col, message)
            },
        )?;
        self.program.condition = f.condition;
        self.program.shown_locations = f.shown_locations;
        Ok(())
    }
}

/// What to say about a C word vkmm does not support.
fn unsupported_word(w: &str) -> Option<String> {
    UNSUPPORTED_WORDS
        .iter()
        .find(|(n, _)| *n == w)
        .map(|(_, m)| (*m).to_string())
}

/// The message for `++`, `--`, `+=`, `-=`.
fn unsupported_update(p: &str) -> String {
    format!(
        "`{p}` (increment and compound assignment) is not supported yet: write `r = r + 1;`, or an atomic_fetch_* call for a shared variable"
    )
}

fn is_thread_name(s: &str) -> bool {
    s.len() > 1 && s.starts_with('P') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The `&'static str` of a punctuation spelling (for token comparison).
fn leak(p: &str) -> &'static str {
    OPENCL
        .punct2
        .iter()
        .chain(OPENCL.punct1)
        .find(|q| **q == p)
        .copied()
        .unwrap_or("")
}

/// Marks the instructions just emitted for the two operands of one binary
/// expression (`start..mid` the left, `mid..` the right) as its operands:
/// their evaluations are unsequenced (C11 6.5p2-3).
fn mark_operands(ctx: &mut Ctx, start: usize, mid: usize) {
    let id = ctx.expressions;
    ctx.expressions += 1;
    let end = ctx.code.len();
    for k in start..end {
        if let Stmt::Op(i) = &mut ctx.code[k] {
            i.operand_of.insert(0, (id, u8::from(k >= mid)));
        }
    }
}

/// The element of a parameter an access designates: the parameter, its
/// name, and the index (C11 6.5.2.1p2: "E1\[E2\] is identical to
/// (*((E1)+(E2)))").
struct Place {
    param: Param,
    name: String,
    index: Operand,
    line: usize,
    col: usize,
}

/// Sets the location attributes of a plain or atomic access to `loc`.
fn access(i: &mut Instruction, p: &Param, loc: usize) {
    i.reference = Some(loc);
    i.storage_class = Some(p.class);
    i.non_private = true;
}

fn semantics(
    order: Order,
    seq_cst: bool,
    classes: impl IntoIterator<Item = StorageClass>,
) -> Semantics {
    let relaxed = order == Order::Relaxed;
    Semantics {
        order,
        storage_classes: if relaxed {
            BTreeSet::new()
        } else {
            classes.into_iter().collect()
        },
        make_available: order.is_release(),
        make_visible: order.is_acquire(),
        seq_cst,
    }
}

fn default_order(kind: &OpKind) -> Order {
    match kind {
        OpKind::Load => Order::Acquire,
        OpKind::Store => Order::Release,
        _ => Order::AcquireRelease,
    }
}

const ORDERS: &[&str] = &[
    "memory_order_relaxed",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];

const SCOPES: &[&str] = &[
    "memory_scope_work_item",
    "memory_scope_sub_group",
    "memory_scope_work_group",
    "memory_scope_device",
    "memory_scope_all_svm_devices",
    "memory_scope_all_devices",
];

fn order_arg(a: &Expr, kind: &OpKind) -> R<(Order, bool)> {
    let X::Name(n) = &a.x else {
        return Err((a.line, a.col, "expected a memory_order_* argument".into()));
    };
    let (order, sc) = match n.as_str() {
        "memory_order_relaxed" => (Order::Relaxed, false),
        "memory_order_acquire" => (Order::Acquire, false),
        "memory_order_release" => (Order::Release, false),
        "memory_order_acq_rel" => (Order::AcquireRelease, false),
        "memory_order_seq_cst" => (default_order(kind), true),
        _ => {
            return Err((
                a.line,
                a.col,
                format!(
                    "expected a memory_order_* argument, found `{n}`{}",
                    suggest::did_you_mean(n, ORDERS.iter().copied())
                ),
            ));
        }
    };
    let bad = match kind {
        OpKind::Load => order.is_release(),
        OpKind::Store => order.is_acquire(),
        _ => false,
    };
    if bad && !sc {
        let what = if *kind == OpKind::Load {
            "a load"
        } else {
            "a store"
        };
        return Err((
            a.line,
            a.col,
            format!("`{n}` is not a valid order for {what}"),
        ));
    }
    Ok((order, sc))
}

fn scope_arg(a: &Expr) -> R<Scope> {
    let X::Name(n) = &a.x else {
        return Err((a.line, a.col, "expected a memory_scope_* argument".into()));
    };
    Ok(match n.as_str() {
        "memory_scope_work_item" => Scope::Invocation,
        "memory_scope_sub_group" => Scope::Subgroup,
        "memory_scope_work_group" => Scope::Workgroup,
        "memory_scope_device" => Scope::Device,
        "memory_scope_all_svm_devices" | "memory_scope_all_devices" => Scope::CrossDevice,
        _ => {
            return Err((
                a.line,
                a.col,
                format!(
                    "expected a memory_scope_* argument, found `{n}`{}",
                    suggest::did_you_mean(n, SCOPES.iter().copied())
                ),
            ));
        }
    })
}

/// `CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE` (or `0`).
fn flags_arg(a: &Expr) -> R<BTreeSet<StorageClass>> {
    let mut out = BTreeSet::new();
    fn go(a: &Expr, out: &mut BTreeSet<StorageClass>) -> R<()> {
        match &a.x {
            X::Bin(Bin::Arith(ArithOp::Or), l, r) => {
                go(l, out)?;
                go(r, out)
            }
            X::Int(0) => Ok(()),
            X::Name(n) if n == "CLK_GLOBAL_MEM_FENCE" => {
                out.insert(OPENCL_GLOBAL);
                Ok(())
            }
            X::Name(n) if n == "CLK_LOCAL_MEM_FENCE" => {
                out.insert(OPENCL_LOCAL);
                Ok(())
            }
            X::Name(n) if n == "CLK_IMAGE_MEM_FENCE" => Err((
                a.line,
                a.col,
                format!("`CLK_IMAGE_MEM_FENCE` orders image memory: {IMAGE_REFUSAL}"),
            )),
            _ => Err((
                a.line,
                a.col,
                "expected fence flags: CLK_GLOBAL_MEM_FENCE and/or CLK_LOCAL_MEM_FENCE".into(),
            )),
        }
    }
    go(a, &mut out)?;
    Ok(out)
}

mod host;
#[cfg(test)]
mod tests;

//! Memory locations as bytes: variables declared with a size, accesses to
//! byte ranges of them, and the lowering that gives each maximal common
//! chunk of bytes a location of its own.
//!
//! The Vulkan appendix, "Memory Location": "A memory location identifies
//! unique storage for 8 bits of data. Memory operations access a set of
//! memory locations consisting of one or more memory locations at a time,
//! e.g. an operation accessing a 32-bit integer in memory would read/write a
//! set of four memory locations." and "Two sets of memory locations overlap
//! if the intersection of their sets of memory locations is non-empty."
//!
//! Bytes that every access of a variable reads or writes together can never
//! be told apart, so the unit is the *chunk*: the variable's bytes cut at
//! every boundary of every access to it. [`lower`] makes each chunk of a
//! variable a location of the program and each access to several chunks one
//! access per chunk (a *piece*), in program order, with the instruction's
//! attributes. The per-location clauses of the appendix then hold per chunk,
//! which is per byte:
//!
//! - "X is location-ordered before Y for a location L in M": the pieces of
//!   X and Y at L;
//! - "If there does not exist a location-ordered relation between X and Y
//!   for each location in M, then there is a data race": a race between
//!   two pieces;
//! - "X is visible-to Y for memory locations M2" and "It is possible for
//!   there to be a write between X and Y that overwrites a subset of the
//!   memory locations, but the remaining memory locations (M2) will still be
//!   visible-to Y": each piece of Y reads from its own write.
//!
//! An atomic access must cover exactly one chunk (every access overlapping
//! it accesses the same bytes): "Two atomic operations A and B are
//! potentially-mutually-ordered if and only if ... They access the same set
//! of memory locations", and one atomic split into pieces would have one
//! scoped modification order per chunk where the specification has one per
//! operation. Such a program is refused ([`lower`]).
//!
//! Values are two's-complement integers of the access's width, little
//! endian: a `len`-byte piece holds the value's bytes at its offset, read
//! signed; a load of several pieces assembles them (the top piece signed).
//! A program without sizes is left exactly as it is.

use super::{ArithOp, Instruction, OpKind, Operand, Program, Reference, SourceSpan, Stmt};
use std::collections::{BTreeMap, BTreeSet};

/// The most bytes one access may cover: values are 64-bit integers.
pub const MAX_ACCESS_BYTES: u32 = 8;

/// The most bytes a variable may have.
pub const MAX_VARIABLE_BYTES: u32 = 64;

/// A half-open range of bytes of a variable: `x[start..end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct ByteRange {
    pub start: u32,
    pub end: u32,
}

impl ByteRange {
    pub fn new(start: u32, end: u32) -> ByteRange {
        ByteRange { start, end }
    }
    /// The number of bytes.
    pub fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// Whether the two ranges share a byte ("overlap").
    pub fn overlaps(self, other: ByteRange) -> bool {
        self.start < other.end && other.start < self.end
    }
    /// Whether `other` lies within this range.
    pub fn contains(self, other: ByteRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

impl std::fmt::Display for ByteRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}..{}]", self.start, self.end)
    }
}

/// A program the lowering refuses: the statement (thread index, index in
/// its code, both before lowering) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytesError {
    pub thread: usize,
    pub stmt: usize,
    pub message: String,
}

/// The `len`-byte piece at byte `off` of `value`, a two's-complement
/// integer (sign-extended past its 8 bytes), read signed.
pub fn piece_of(value: i64, off: u32, len: u32) -> i64 {
    let shifted = i128::from(value) >> (8 * off).min(127);
    let bits = 8 * len.clamp(1, 8);
    let keep = 128 - bits;
    ((shifted << keep) >> keep) as i64
}

/// The value of `pieces` (`(offset, len, value)` within the access, in
/// increasing offset, covering it), the top piece read signed.
pub fn assemble(pieces: &[(u32, u32, i64)]) -> i64 {
    let mut out: i64 = 0;
    for (k, &(off, len, v)) in pieces.iter().enumerate() {
        let top = k + 1 == pieces.len();
        let v = if top || len >= 8 {
            v
        } else {
            v & ((1i64 << (8 * len)) - 1)
        };
        out |= v.checked_shl(8 * off).unwrap_or(0);
    }
    out
}

/// The chunks of each sized variable after [`lower`]: per name the test
/// gives it (its aliases included, in reference order), its chunks (bytes,
/// location) in increasing address order. The front end adds them to the
/// symbol table, so that a condition names the variable as declared.
pub type Layout = Vec<(String, Vec<(ByteRange, usize)>)>;

/// The chunks of a variable of `size` bytes whose accesses cover `ranges`:
/// its bytes cut at every range boundary.
pub fn chunks(size: u32, ranges: impl IntoIterator<Item = ByteRange>) -> Vec<ByteRange> {
    let mut cuts: BTreeSet<u32> = [0, size].into_iter().collect();
    for r in ranges {
        cuts.insert(r.start.min(size));
        cuts.insert(r.end.min(size));
    }
    let cuts: Vec<u32> = cuts.into_iter().collect();
    cuts.windows(2)
        .map(|w| ByteRange::new(w[0], w[1]))
        .collect()
}

/// Gives each chunk of each sized variable a location of its own and splits
/// the accesses covering several chunks (module documentation). A program
/// without sized variables is unchanged. Afterwards `program.sizes` is
/// empty and every access covers one location.
pub fn lower(program: &mut Program) -> Result<Layout, BytesError> {
    if program.sizes.is_empty() {
        return check_unsized(program).map(|()| Layout::new());
    }
    if !program.host.is_empty() {
        let size_loc = *program.sizes.keys().next().expect("a sized variable");
        return Err(BytesError {
            thread: 0,
            stmt: 0,
            message: format!(
                "`{}` has a size: sized variables are not supported together with host threads and queue submissions",
                program.locations[size_loc]
            ),
        });
    }
    // The ranges each sized variable is accessed with, checked.
    let mut ranges: BTreeMap<usize, Vec<ByteRange>> = BTreeMap::new();
    for (t, thread) in program.threads.iter().enumerate() {
        for (s, stmt) in thread.code.iter().enumerate() {
            let Stmt::Op(i) = stmt else { continue };
            let err = |message: String| BytesError {
                thread: t,
                stmt: s,
                message,
            };
            let Some(loc) = program.location_of(i) else {
                continue;
            };
            let name = &program.locations[loc];
            let Some(&size) = program.sizes.get(&loc) else {
                if let Some(r) = i.bytes {
                    return Err(err(format!(
                        "`{name}{r}` names bytes of `{name}`, which has no size: declare it as `{name}:N` in the initial state"
                    )));
                }
                continue;
            };
            let r = i.bytes.unwrap_or(ByteRange::new(0, size));
            if r.is_empty() || r.end > size {
                return Err(err(format!(
                    "`{name}{r}` is out of bounds: `{name}` has {size} bytes (0..{size}), a range is `[start..end]` with start < end"
                )));
            }
            if i.kind == OpKind::Deallocate && i.bytes.is_some() {
                return Err(err(format!(
                    "a deallocation frees the whole variable: write `free {name}`, not a byte range"
                )));
            }
            if i.is_memory_access() && r.len() > MAX_ACCESS_BYTES {
                return Err(err(format!(
                    "`{name}{r}` covers {} bytes: an access covers at most {MAX_ACCESS_BYTES} (its value is a 64-bit integer)",
                    r.len()
                )));
            }
            ranges.entry(loc).or_default().push(r);
        }
    }
    let sizes = std::mem::take(&mut program.sizes);
    // Chunks, and the location of each: the first keeps the variable's.
    let mut chunk_locs: BTreeMap<usize, Vec<(ByteRange, usize)>> = BTreeMap::new();
    for (&loc, &size) in &sizes {
        let cs = chunks(size, ranges.get(&loc).into_iter().flatten().copied());
        let name = program.locations[loc].clone();
        let init = program.initial_value(loc);
        let split = cs.len() > 1;
        let mut out = Vec::new();
        for (k, c) in cs.into_iter().enumerate() {
            let l = if k == 0 {
                loc
            } else {
                program.locations.push(String::new());
                program.initial_values.push(0);
                program.locations.len() - 1
            };
            if split {
                program.locations[l] = format!("{name}{c}");
            }
            if program.initial_values.len() <= l {
                program.initial_values.resize(l + 1, 0);
            }
            program.initial_values[l] = piece_of(init, c.start, c.len());
            out.push((c, l));
        }
        chunk_locs.insert(loc, out);
    }
    // References: one per (reference, chunk), the first keeps its index.
    let mut piece_refs: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut layout = Layout::new();
    for r in 0..program.references.len() {
        let loc = program.references[r].location;
        let Some(cs) = chunk_locs.get(&loc) else {
            continue;
        };
        let name = program.references[r].name.clone();
        layout.push((name.clone(), cs.clone()));
        let split = cs.len() > 1;
        let mut out = Vec::new();
        for (k, &(c, l)) in cs.iter().enumerate() {
            let piece_name = if split {
                format!("{name}{c}")
            } else {
                name.clone()
            };
            if k == 0 {
                program.references[r].name = piece_name;
                out.push(r);
            } else {
                program.references.push(Reference {
                    name: piece_name,
                    location: l,
                });
                out.push(program.references.len() - 1);
            }
        }
        piece_refs.insert(r, out);
    }
    // The code.
    for t in 0..program.threads.len() {
        let code = std::mem::take(&mut program.threads[t].code);
        let mut out = Vec::with_capacity(code.len());
        let mut fresh = 0usize;
        for (s, stmt) in code.into_iter().enumerate() {
            let Stmt::Op(i) = stmt else {
                out.push(stmt);
                continue;
            };
            let Some(r) = i.reference.filter(|r| piece_refs.contains_key(r)) else {
                out.push(Stmt::Op(i));
                continue;
            };
            let loc = program.references[r].location;
            let size = sizes[&loc];
            let range = i.bytes.unwrap_or(ByteRange::new(0, size));
            let covered: Vec<(usize, ByteRange)> = chunk_locs[&loc]
                .iter()
                .enumerate()
                .filter(|(_, (c, _))| range.contains(*c))
                .map(|(k, &(c, _))| (piece_refs[&r][k], c))
                .collect();
            if i.atomic && covered.len() > 1 {
                let parts: Vec<String> = covered.iter().map(|(_, c)| c.to_string()).collect();
                return Err(BytesError {
                    thread: t,
                    stmt: s,
                    message: format!(
                        "this atomic access of {} bytes overlaps accesses of fewer bytes ({}): an atomic must access the same bytes as every access it overlaps (\"They access the same set of memory locations\", potentially-mutually-ordered); mixed-size atomics are not supported",
                        range.len(),
                        parts.join(", ")
                    ),
                });
            }
            split_access(&mut out, i, range, &covered, &mut fresh);
        }
        program.threads[t].code = out;
    }
    Ok(layout)
}

/// Refuses byte ranges in a program without sized variables.
fn check_unsized(program: &Program) -> Result<(), BytesError> {
    for (t, thread) in program.threads.iter().enumerate() {
        for (s, stmt) in thread.code.iter().enumerate() {
            if let Stmt::Op(i) = stmt
                && let (Some(r), Some(loc)) = (i.bytes, program.location_of(i))
            {
                let name = &program.locations[loc];
                return Err(BytesError {
                    thread: t,
                    stmt: s,
                    message: format!(
                        "`{name}{r}` names bytes of `{name}`, which has no size: declare it as `{name}:N` in the initial state"
                    ),
                });
            }
        }
    }
    Ok(())
}

fn assign(dest: &str, op: ArithOp, a: Operand, b: i64, source: &SourceSpan) -> Stmt {
    Stmt::Assign {
        dest: dest.to_string(),
        op,
        a,
        b: Operand::Const(b),
        source: source.clone(),
    }
}

/// The pieces of access `i` (covering `range`) at the chunks `covered`
/// (their references), with the register arithmetic that cuts a stored
/// register into pieces and assembles a loaded value. Hidden registers are
/// named `REG#k`, which no source name can be.
fn split_access(
    out: &mut Vec<Stmt>,
    i: Instruction,
    range: ByteRange,
    covered: &[(usize, ByteRange)],
    fresh: &mut usize,
) {
    let width = |len: u32| u8::try_from(8 * len).ok();
    if i.kind == OpKind::Deallocate {
        for &(r, _) in covered {
            let mut p = i.clone();
            p.reference = Some(r);
            p.bytes = None;
            out.push(Stmt::Op(p));
        }
        return;
    }
    // One chunk: the access itself, at the chunk's location, its value cut
    // to its width.
    if let [(r, c)] = covered {
        let mut p = i;
        p.reference = Some(*r);
        p.bytes = None;
        let len = c.len();
        if len < 8 {
            if p.kind == OpKind::Rmw && p.width.is_none() {
                p.width = width(len);
            }
            p.write_value = p.write_value.map(|v| piece_of(v, 0, len));
            p.read_value = p.read_value.map(|v| piece_of(v, 0, len));
            if p.kind == OpKind::Store {
                let source = p.source.clone();
                p.operand = p
                    .operand
                    .take()
                    .map(|o| cut(out, o, 0, len, &source, fresh));
            }
        }
        out.push(Stmt::Op(p));
        return;
    }
    // Several chunks (never atomic): one piece each, in increasing offset.
    let mut loaded: Vec<(u32, u32, String)> = Vec::new();
    for &(r, c) in covered {
        let off = c.start - range.start;
        let len = c.len();
        let mut p = i.clone();
        p.reference = Some(r);
        p.bytes = None;
        p.write_value = i.write_value.map(|v| piece_of(v, off, len));
        p.read_value = i.read_value.map(|v| piece_of(v, off, len));
        if p.kind == OpKind::Store {
            p.operand = i
                .operand
                .clone()
                .map(|o| cut(out, o, off, len, &i.source, fresh));
        }
        if let Some(dest) = &i.dest {
            *fresh += 1;
            let hidden = format!("{dest}#{}", *fresh);
            p.dest = Some(hidden.clone());
            loaded.push((off, len, hidden));
        }
        out.push(Stmt::Op(p));
    }
    // dest = top piece, then for each lower piece: dest = (dest << bits) |
    // (piece & mask).
    if let Some(dest) = &i.dest {
        let Some((top_off, _, top)) = loaded.last().cloned() else {
            return;
        };
        out.push(assign(dest, ArithOp::Add, Operand::Reg(top), 0, &i.source));
        let mut at = top_off;
        for (off, len, reg) in loaded.iter().rev().skip(1) {
            out.push(assign(
                dest,
                ArithOp::Shl,
                Operand::Reg(dest.clone()),
                i64::from(8 * (at - off)),
                &i.source,
            ));
            let mask = (1i64 << (8 * len)) - 1;
            out.push(assign(
                reg,
                ArithOp::And,
                Operand::Reg(reg.clone()),
                mask,
                &i.source,
            ));
            out.push(Stmt::Assign {
                dest: dest.clone(),
                op: ArithOp::Or,
                a: Operand::Reg(dest.clone()),
                b: Operand::Reg(reg.clone()),
                source: i.source.clone(),
            });
            at = *off;
        }
    }
}

/// The `len`-byte piece at byte `off` of a stored operand: a constant cut
/// now, a register cut by arithmetic into a hidden register.
fn cut(
    out: &mut Vec<Stmt>,
    o: Operand,
    off: u32,
    len: u32,
    source: &SourceSpan,
    fresh: &mut usize,
) -> Operand {
    match o {
        Operand::Const(v) => Operand::Const(piece_of(v, off, len)),
        Operand::Reg(r) if off == 0 && len >= 8 => Operand::Reg(r),
        Operand::Reg(r) => {
            *fresh += 1;
            let hidden = format!("{r}#{}", *fresh);
            let keep = i64::from(64 - 8 * len.min(8));
            out.push(assign(
                &hidden,
                ArithOp::Shr,
                Operand::Reg(r),
                i64::from(8 * off),
                source,
            ));
            if keep > 0 {
                out.push(assign(
                    &hidden,
                    ArithOp::Shl,
                    Operand::Reg(hidden.clone()),
                    keep,
                    source,
                ));
                out.push(assign(
                    &hidden,
                    ArithOp::Shr,
                    Operand::Reg(hidden.clone()),
                    keep,
                    source,
                ));
            }
            Operand::Reg(hidden)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_and_assembly_round_trip() {
        for v in [0i64, 1, -1, 0x0102_0304_0506_0708, i64::MIN, 255, 256, -256] {
            for cuts in [
                vec![0u32, 8],
                vec![0, 4, 8],
                vec![0, 1, 2, 4, 8],
                vec![0, 3, 8],
            ] {
                let pieces: Vec<(u32, u32, i64)> = cuts
                    .windows(2)
                    .map(|w| (w[0], w[1] - w[0], piece_of(v, w[0], w[1] - w[0])))
                    .collect();
                assert_eq!(assemble(&pieces), v, "{v:#x} cut at {cuts:?}");
            }
        }
        // A 4-byte value read signed.
        assert_eq!(piece_of(0xffff_ffff, 0, 4), -1);
        assert_eq!(piece_of(0x1_0000_0002, 4, 4), 1);
        assert_eq!(piece_of(-1, 8, 4), -1, "sign bytes past the eighth");
    }

    #[test]
    fn chunks_cut_at_every_boundary() {
        let c = chunks(8, [ByteRange::new(0, 4), ByteRange::new(2, 8)]);
        assert_eq!(
            c,
            vec![
                ByteRange::new(0, 2),
                ByteRange::new(2, 4),
                ByteRange::new(4, 8)
            ]
        );
        assert_eq!(chunks(4, []), vec![ByteRange::new(0, 4)]);
    }
}

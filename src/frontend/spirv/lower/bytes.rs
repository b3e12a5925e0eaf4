//! Byte offsets (docs/format-spirv.md, "Byte offsets"): an access whose
//! bytes are not exactly one cell of the variable's layout (an 8-bit load
//! of a 32-bit member through another view of the binding, a 64-bit access
//! over two 32-bit members) is one access per cell it overlaps; an access
//! to part of a cell names those bytes (`Instruction::bytes`) and the cell
//! gets a size (`Program::sizes`), so `ir::bytes::lower` cuts it into
//! chunks at every access boundary and location order, visible-to and
//! races hold per byte.
//!
//! The Vulkan appendix, "Memory Location": "Memory operations access a set
//! of memory locations consisting of one or more memory locations at a
//! time, e.g. an operation accessing a 32-bit integer in memory would
//! read/write a set of four memory locations." and "Two sets of memory
//! locations overlap if the intersection of their sets of memory locations
//! is non-empty."

use super::{Access, Gen, Ptr, R, Target, span};
use crate::frontend::spirv::module::unsupported;
use crate::frontend::spirv::syntax::Inst;
use crate::ir::{ArithOp, ByteRange, OpKind, Operand, Stmt, bytes::piece_of};

/// The most candidate offsets a runtime index adds for accesses of
/// another size than the cells.
const MAX_MIXED_CANDIDATES: usize = 1024;

/// The part of one cell an access reaches.
#[derive(Clone, Debug)]
pub(super) struct Piece {
    pub target: Target,
    /// The bytes of the cell (`None`: all of it).
    pub bytes: Option<ByteRange>,
    /// Where the piece starts within the access, and its length.
    pub off: u32,
    pub len: u32,
    /// The cell's size.
    pub cell: u32,
}

impl Piece {
    pub fn whole(target: Target, size: u32) -> Piece {
        Piece {
            target,
            bytes: None,
            off: 0,
            len: size,
            cell: size,
        }
    }
}

/// The pieces of the `size` bytes at `at` over `targets` (offset, size,
/// target), in increasing address order, if cells cover every byte.
pub(super) fn cover(targets: &[(i64, u32, Target)], at: i64, size: u32) -> Option<Vec<Piece>> {
    let end = at + i64::from(size);
    let mut cells: Vec<&(i64, u32, Target)> = targets
        .iter()
        .filter(|(c, s, _)| *c < end && at < c + i64::from(*s))
        .collect();
    cells.sort_by_key(|(c, _, _)| *c);
    let mut next = at;
    let mut out = Vec::new();
    for (c, s, t) in cells {
        if *c > next {
            return None;
        }
        let start = next.max(*c);
        let stop = end.min(c + i64::from(*s));
        if stop <= start {
            continue;
        }
        let whole = start == *c && stop == c + i64::from(*s);
        out.push(Piece {
            target: t.clone(),
            bytes: (!whole).then(|| ByteRange::new((start - c) as u32, (stop - c) as u32)),
            off: (start - at) as u32,
            len: (stop - start) as u32,
            cell: *s,
        });
        next = stop;
    }
    (next == end && !out.is_empty()).then_some(out)
}

/// The offsets a runtime index may give an access of `size` bytes besides
/// the cells of that size (`whole`): where the variable has cells of
/// another size, every multiple of `size` the cells cover.
pub(super) fn mixed_candidates(
    targets: &[(i64, u32, Target)],
    size: u32,
    whole: &[i64],
) -> Vec<(i64, Vec<Piece>)> {
    if targets.iter().all(|(_, s, _)| *s == size) || size == 0 {
        return Vec::new();
    }
    let extent = targets
        .iter()
        .map(|(c, s, _)| c + i64::from(*s))
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    let mut at = 0;
    while at + i64::from(size) <= extent && out.len() < MAX_MIXED_CANDIDATES {
        if !whole.contains(&at)
            && let Some(p) = cover(targets, at, size)
        {
            out.push((at, p));
        }
        at += i64::from(size);
    }
    out
}

impl Gen<'_> {
    pub(super) fn size_cell(&mut self, piece: &Piece) {
        if let (Some(_), Target::Loc(l)) = (piece.bytes, &piece.target) {
            self.sized.insert(*l, piece.cell);
        }
    }

    /// A load of `pieces` into `reg`: one load per piece, the pieces
    /// assembled little-endian (the top piece signed: the value is the
    /// signed reading of the access's bits, as every SPIR-V value).
    pub(super) fn load_pieces(
        &mut self,
        pieces: &[Piece],
        reg: &str,
        p: &Ptr,
        inst: &Inst,
        acc: &Access,
    ) -> R<()> {
        let src = span(inst);
        let single = pieces.len() == 1;
        let mut loaded: Vec<(u32, u32, String)> = Vec::new();
        for piece in pieces {
            let dest = if single {
                reg.to_string()
            } else {
                format!("{reg}#b{}", piece.off)
            };
            match &piece.target {
                Target::Loc(l) => {
                    self.size_cell(piece);
                    let mut ins = self.mem_instruction(OpKind::Load, *l, p, inst, acc);
                    ins.dest = Some(dest.clone());
                    ins.make_pointer_available = false;
                    ins.bytes = piece.bytes;
                    self.code.push(Stmt::Op(ins));
                }
                Target::Reg(r) if piece.bytes.is_none() => {
                    self.copy(&dest, Operand::Reg(r.clone()), &src)
                }
                Target::Reg(_) => {
                    return Err(unsupported(
                        inst,
                        "part of a cell of a per-invocation variable (mixed-size access)",
                    ));
                }
            }
            loaded.push((piece.off, piece.len, dest));
        }
        if single {
            return Ok(());
        }
        // reg = top piece; then for each lower piece, in decreasing
        // offset: reg = (reg << gap) | (piece & mask).
        let Some((mut at, _, top)) = loaded.last().cloned() else {
            return Ok(());
        };
        self.copy(reg, Operand::Reg(top), &src);
        for (off, len, piece) in loaded.iter().rev().skip(1) {
            let r = Operand::Reg(reg.to_string());
            self.assign(
                reg,
                ArithOp::Shl,
                r.clone(),
                Operand::Const(i64::from(8 * (at - off))),
                &src,
            );
            let mask = if *len >= 8 {
                -1
            } else {
                (1i64 << (8 * len)) - 1
            };
            self.assign(
                piece,
                ArithOp::And,
                Operand::Reg(piece.clone()),
                Operand::Const(mask),
                &src,
            );
            self.assign(reg, ArithOp::Or, r, Operand::Reg(piece.clone()), &src);
            at = *off;
        }
        Ok(())
    }

    /// A store of `o` over `pieces`: each piece stores its bytes of the
    /// value (little-endian), cut to its width.
    pub(super) fn store_pieces(
        &mut self,
        pieces: &[Piece],
        o: &Operand,
        p: &Ptr,
        inst: &Inst,
        acc: &Access,
    ) -> R<()> {
        let src = span(inst);
        let single = pieces.len() == 1;
        for piece in pieces {
            let value = if single {
                o.clone()
            } else {
                match o {
                    Operand::Const(v) => Operand::Const(piece_of(*v, piece.off, piece.len)),
                    Operand::Reg(r) => {
                        let hidden = format!("{r}#s{}", piece.off);
                        let keep = i64::from(64 - 8 * piece.len.min(8));
                        self.assign(
                            &hidden,
                            ArithOp::Shr,
                            Operand::Reg(r.clone()),
                            Operand::Const(i64::from(8 * piece.off)),
                            &src,
                        );
                        if keep > 0 {
                            let h = Operand::Reg(hidden.clone());
                            self.assign(
                                &hidden,
                                ArithOp::Shl,
                                h.clone(),
                                Operand::Const(keep),
                                &src,
                            );
                            self.assign(&hidden, ArithOp::Shr, h, Operand::Const(keep), &src);
                        }
                        Operand::Reg(hidden)
                    }
                }
            };
            match &piece.target {
                Target::Loc(l) => {
                    self.size_cell(piece);
                    let mut ins = self.mem_instruction(OpKind::Store, *l, p, inst, acc);
                    ins.operand = Some(value);
                    ins.make_pointer_visible = false;
                    ins.bytes = piece.bytes;
                    self.code.push(Stmt::Op(ins));
                }
                Target::Reg(r) if piece.bytes.is_none() => self.copy(r, value, &src),
                Target::Reg(_) => {
                    return Err(unsupported(
                        inst,
                        "part of a cell of a per-invocation variable (mixed-size access)",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The one cell (and its bytes) an atomic accesses. An atomic over
    /// several cells is refused: the appendix's "Two atomic operations A
    /// and B are potentially-mutually-ordered if and only if ... They
    /// access the same set of memory locations", and one atomic split into
    /// pieces would have one scoped modification order per cell where the
    /// specification has one per operation (as `ir::bytes::lower` refuses
    /// it in the litmus dialect).
    pub(super) fn atomic_piece(
        &mut self,
        pieces: &[Piece],
        size: u32,
        inst: &Inst,
    ) -> R<(usize, Option<ByteRange>)> {
        match pieces {
            [piece] => match &piece.target {
                Target::Loc(l) => {
                    self.size_cell(piece);
                    Ok((*l, piece.bytes))
                }
                Target::Reg(_) => Err(unsupported(inst, "atomics on per-invocation variables")),
            },
            _ => {
                let parts: Vec<String> = pieces
                    .iter()
                    .map(|p| format!("{}..{}", p.off, p.off + p.len))
                    .collect();
                Err(unsupported(
                    inst,
                    &format!(
                        "a {size}-byte atomic over {} cells (bytes {} of the access): an atomic must access the same bytes as every access it overlaps (\"They access the same set of memory locations\", potentially-mutually-ordered); mixed-size atomics are not supported",
                        pieces.len(),
                        parts.join(", ")
                    ),
                ))
            }
        }
    }
}

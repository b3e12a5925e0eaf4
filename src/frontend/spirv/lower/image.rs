//! Storage image accesses (docs/format-spirv.md, "Images"): `OpImageRead`
//! and `OpImageWrite` are a non-atomic load or store of one texel, a
//! memory location of the Image storage class, with the Image Operands
//! `MakeTexelAvailable`, `MakeTexelVisible` and `NonPrivateTexel` as the
//! IR's texel flags (`ir::AccessKind::Texel`); `OpImageTexelPointer` is a
//! pointer to one texel for the `OpAtomic*` instructions.
//!
//! The Vulkan memory model appendix gives the texel flags the pointer
//! flags' meaning: "A memory write instruction that includes
//! MakePointerAvailable, or an image write instruction that includes
//! MakeTexelAvailable, performs an availability operation whose source
//! scope includes the agent and reference used to perform the write and
//! the memory locations written by the instruction, and whose destination
//! scope is a set of memory domains selected by the Scope operand"; "A
//! memory read instruction that includes MakePointerVisible, or an image
//! read instruction that includes MakeTexelVisible, performs a visibility
//! operation whose source scope is a set of memory domains selected by the
//! Scope operand ..., and whose destination scope includes the agent and
//! reference used to perform the read and the memory locations read by the
//! instruction"; "Memory operations with the NonPrivatePointer/NonPrivateTexel
//! bit set are treated as non-private".

use super::{Access, Frame, Gen, Ptr, R, Val, leaves_of};
use crate::frontend::spirv::module::{Ty, unsupported};
use crate::frontend::spirv::syntax::Inst;
use crate::ir::AccessKind;
use ::spirv::Op;

/// Image Operands bits and their names (SPIR-V, Image Operands).
const OPERANDS: &[(&str, i64)] = &[
    ("None", 0),
    ("Bias", 0x1),
    ("Lod", 0x2),
    ("Grad", 0x4),
    ("ConstOffset", 0x8),
    ("Offset", 0x10),
    ("ConstOffsets", 0x20),
    ("Sample", 0x40),
    ("MinLod", 0x80),
    ("MakeTexelAvailable", 0x100),
    ("MakeTexelAvailableKHR", 0x100),
    ("MakeTexelVisible", 0x200),
    ("MakeTexelVisibleKHR", 0x200),
    ("NonPrivateTexel", 0x400),
    ("NonPrivateTexelKHR", 0x400),
    ("VolatileTexel", 0x800),
    ("VolatileTexelKHR", 0x800),
    ("SignExtend", 0x1000),
    ("ZeroExtend", 0x2000),
    ("Nontemporal", 0x4000),
    ("Offsets", 0x10000),
];

const AVAILABLE: i64 = 0x100;
const VISIBLE: i64 = 0x200;
const NON_PRIVATE: i64 = 0x400;
/// The bits vkmm reads; VolatileTexel ("This access cannot be eliminated,
/// duplicated, or combined with other accesses"), SignExtend, ZeroExtend
/// (texels are the sampled type's width, so no conversion) and Nontemporal
/// (a hint) change nothing here.
const READ: i64 = AVAILABLE | VISIBLE | NON_PRIVATE | 0x800 | 0x1000 | 0x2000 | 0x4000;

impl Gen<'_> {
    /// Whether operand 1 of `inst` (an `OpLoad`) points to a storage image.
    pub(super) fn is_image(&self, fr: &Frame, inst: &Inst) -> bool {
        matches!(self.val(fr, inst, 1), Ok(Val::Ptr(p)) if matches!(self.m.ty(&p.ty), Some(Ty::Image { .. })))
    }

    /// `OpImageRead`, `OpImageWrite`, `OpImageTexelPointer`.
    pub(super) fn image(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        match inst.op {
            Op::ImageRead => {
                // OpImageRead Result-Type Image Coordinate [Image-Operands]
                let p = self.texel(fr, inst, 1, 2)?;
                let acc = self.image_operands(fr, inst, 3, false)?;
                let name = self.reg_name(fr, inst.result_id()?);
                let v = self.load(&p, &p.ty.clone(), &name, inst, &acc)?;
                // Only the first channel is a texel's: the formats vkmm
                // reads have one (R32ui, ...). The other components of a
                // vector result are Vulkan's defaults for missing
                // channels (Textures, "Conversion to RGBA": G and B 0, A 1).
                let v = match self.m.ty(inst.id(0)?) {
                    Some(Ty::Vector { n, .. }) => Val::Comp(
                        (0..*n)
                            .map(|i| match i {
                                0 => v.clone(),
                                3 => Val::Int(1),
                                _ => Val::Int(0),
                            })
                            .collect(),
                    ),
                    Some(Ty::Int { .. }) => v,
                    _ => {
                        return Err(inst.err_at(
                            0,
                            "OpImageRead: vkmm reads texels into an integer scalar or vector"
                                .into(),
                        ));
                    }
                };
                self.bind(fr, inst, v)?;
            }
            Op::ImageWrite => {
                // OpImageWrite Image Coordinate Texel [Image-Operands]
                let p = self.texel(fr, inst, 0, 1)?;
                let acc = self.image_operands(fr, inst, 3, true)?;
                let mut values = Vec::new();
                leaves_of(&self.val(fr, inst, 2)?, &mut values);
                let Some(first) = values.into_iter().next() else {
                    return Err(inst.err_at(2, "OpImageWrite: expected a texel value".into()));
                };
                self.store(&p, &first, inst, &acc)?;
            }
            _ => {
                // OpImageTexelPointer Result-Type Image Coordinate Sample:
                // "Form a pointer to a texel of an image. Use of such a
                // pointer is limited to atomic operations." Image is a
                // pointer to the image variable.
                let p = self.texel(fr, inst, 1, 2)?;
                if !matches!(self.val(fr, inst, 3)?, Val::Int(0)) {
                    return Err(inst.err_at(
                        3,
                        "OpImageTexelPointer: Sample must be 0 (vkmm reads images that are not multisampled)".into(),
                    ));
                }
                self.bind(fr, inst, Val::Ptr(p))?;
            }
        }
        Ok(())
    }

    /// A pointer to the texel of the image at operand `image` and the
    /// coordinate at operand `coord`: texel `x` of a 1D image, texel
    /// `(x, y)` of a 2D image at index `x * height + y` (`%img[x][y]`).
    fn texel(&mut self, fr: &Frame, inst: &Inst, image: usize, coord: usize) -> R<Ptr> {
        let p = match self.val(fr, inst, image)? {
            Val::Ptr(p) => p,
            _ => return Err(inst.err_at(image, format!("{}: expected an image", inst.name))),
        };
        let Some(Ty::Image { elem, dims }) = self.m.ty(&p.ty).cloned() else {
            return Err(unsupported(
                inst,
                "vkmm reads storage images only (OpTypeImage with Sampled 2, Dim Buffer, 1D or 2D)",
            ));
        };
        let size = self.m.size_of(&elem).unwrap_or(4);
        let var = match &p.home {
            super::Home::Mem { var, instance } => (var.clone(), *instance),
            super::Home::Regs { .. } => return Err(unsupported(inst, "an image in registers")),
        };
        // The extent: the columns and their height, from the cells.
        let cells = self.mem.cells.get(&var).map_or(&[][..], |c| &c[..]);
        let width = cells
            .iter()
            .filter(|(c, _)| c.path.last() == Some(&0))
            .count()
            .max(1);
        let height = if dims == 2 {
            cells
                .iter()
                .filter(|(c, _)| c.path.first() == Some(&0))
                .count()
                .max(1)
        } else {
            1
        };
        let width = if dims == 2 { width } else { cells.len().max(1) };
        let mut coords = Vec::new();
        leaves_of(&self.val(fr, inst, coord)?, &mut coords);
        if coords.len() != dims {
            return Err(inst.err_at(
                coord,
                format!(
                    "{}: a {dims}D image takes {dims} integer coordinate{}, found {}",
                    inst.name,
                    if dims == 1 { "" } else { "s" },
                    coords.len()
                ),
            ));
        }
        let mut t = Ptr { ty: elem, ..p };
        for (k, (c, extent)) in coords.iter().zip([width, height]).enumerate() {
            if let Val::Int(v) = c
                && (*v < 0 || *v >= extent as i64)
            {
                return Err(inst.err_at(
                    coord,
                    format!(
                        "{}: coordinate {k} is {v}, outside the image `%{}` ({extent} texels that way; the extent is the variable's @Input)",
                        inst.name, var.0
                    ),
                ));
            }
            let stride = if k == 0 { size * height as i64 } else { size };
            self.add_index(&mut t, c, stride, inst, coord)?;
        }
        Ok(t)
    }

    /// The Image Operands from operand `i` on (absent: none).
    fn image_operands(&self, fr: &Frame, inst: &Inst, i: usize, write: bool) -> R<Access> {
        let mut a = Access {
            kind: AccessKind::Texel,
            ..Access::default()
        };
        let Some(bits) = super::mask_operand(inst, i, "image", OPERANDS)? else {
            return Ok(a);
        };
        if bits & !READ != 0 {
            let names: Vec<&str> = OPERANDS
                .iter()
                .filter(|(_, v)| bits & !READ & v != 0)
                .map(|(n, _)| *n)
                .collect();
            return Err(unsupported(
                inst,
                &format!(
                    "image operand {} (vkmm reads storage image accesses with MakeTexelAvailable, MakeTexelVisible, NonPrivateTexel, VolatileTexel, SignExtend, ZeroExtend, Nontemporal)",
                    names.join("|")
                ),
            ));
        }
        // SPIR-V, Image Operands, MakeTexelAvailable: "Perform an
        // availability operation on the texel locations after the store. A
        // following operand is the memory scope that controls the
        // availability operation. Requires NonPrivateTexel to also be set.
        // Only valid with OpImageWrite." MakeTexelVisible: "Perform a
        // visibility operation on the texel locations before the load. A
        // following operand is the memory scope that controls the
        // visibility operation. Requires NonPrivateTexel to also be set.
        // Only valid with OpImageRead and OpImageSparseRead."
        let mut next = i + 1;
        if bits & AVAILABLE != 0 {
            if !write {
                return Err(inst.err_at(
                    i,
                    "MakeTexelAvailable is \"Only valid with OpImageWrite\"".into(),
                ));
            }
            a.available = true;
            a.scope = Some(self.scope(fr, inst, next)?);
            next += 1;
        }
        if bits & VISIBLE != 0 {
            if write {
                return Err(inst.err_at(
                    i,
                    "MakeTexelVisible is \"Only valid with OpImageRead and OpImageSparseRead\""
                        .into(),
                ));
            }
            a.visible = true;
            a.scope = Some(self.scope(fr, inst, next)?);
        }
        // NonPrivateTexel: "The image access obeys inter-thread ordering,
        // as specified by the client API."
        a.non_private = bits & NON_PRIVATE != 0;
        if (a.available || a.visible) && !a.non_private {
            return Err(inst.err_at(
                i,
                format!(
                    "{} \"Requires NonPrivateTexel to also be set\"",
                    if a.available {
                        "MakeTexelAvailable"
                    } else {
                        "MakeTexelVisible"
                    }
                ),
            ));
        }
        Ok(a)
    }
}

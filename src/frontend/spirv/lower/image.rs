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

use super::{Access, Frame, Gen, Ptr, R, Val, leaves_of, span};
pub(super) use crate::frontend::spirv::image::is_sampling;
use crate::frontend::spirv::module::{Ty, unsupported};
use crate::frontend::spirv::syntax::Inst;
use crate::ir::{AccessKind, ArithOp, Cmp, Operand};
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

const LOD: i64 = 0x2;
const GRAD: i64 = 0x4;
const SAMPLE: i64 = 0x40;
const AVAILABLE: i64 = 0x100;
const VISIBLE: i64 = 0x200;
const NON_PRIVATE: i64 = 0x400;
/// The bits vkmm reads; VolatileTexel ("This access cannot be eliminated,
/// duplicated, or combined with other accesses"), SignExtend, ZeroExtend
/// (texels are the sampled type's width, so no conversion) and Nontemporal
/// (a hint) change nothing here.
const READ: i64 = SAMPLE | AVAILABLE | VISIBLE | NON_PRIVATE | 0x800 | 0x1000 | 0x2000 | 0x4000;

/// Tensor Operands (SPV_ARM_tensors): names (the grammar's, and the
/// binary reader's spelling of them) and bits.
const TENSOR_OPERANDS: &[(&str, i64)] = &[
    ("NoneARM", 0),
    ("NoneArm", 0),
    ("None", 0),
    ("NontemporalARM", 0x1),
    ("NontemporalArm", 0x1),
    ("OutOfBoundsValueARM", 0x2),
    ("OutOfBoundsValueArm", 0x2),
    ("MakeElementAvailableARM", 0x4),
    ("MakeElementAvailableArm", 0x4),
    ("MakeElementVisibleARM", 0x8),
    ("MakeElementVisibleArm", 0x8),
    ("NonPrivateElementARM", 0x10),
    ("NonPrivateElementArm", 0x10),
];

/// The value a loaded `OpTypeSampler` variable has: samplers hold no
/// memory location (`Val::Opaque`).
pub(super) const SAMPLER: &str = "sampler";

/// The most cells a variable may have for an image access whose
/// coordinate is known only at run time (each channel's access is a branch
/// per cell).
const MAX_RUNTIME_CELLS: usize = 4096;

/// An offset no cell has: the accesses of an out-of-bounds coordinate
/// reach no location.
const NOWHERE: i64 = -(1 << 40);

/// What an instruction accesses: a tensor, a storage image (Sampled 2:
/// `OpImageRead`, `OpImageWrite`, `OpImageTexelPointer`) or an image for
/// sampling (Sampled 1: `OpImageFetch`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Tensor,
    Storage,
    Fetch,
    /// Any image: a query of its size, levels or samples.
    Query,
}

/// A grid of texels or tensor elements: the variable, its extents (one
/// per coordinate), the scalar type and size, the channels of a texel.
struct Grid {
    base: Ptr,
    extents: Vec<usize>,
    elem: String,
    size: i64,
    channels: usize,
    ms: bool,
    /// A runtime index into an array of image descriptors: the index,
    /// the array's length and the stride between its elements.
    element: Option<(Operand, i64, i64)>,
    /// With such an index, each element's extents when they differ (the
    /// access then picks its element by a chain of branches); else empty.
    each: Vec<Vec<usize>>,
    /// Whether the image has levels of detail (Dim 1D, 2D, 3D or Cube, MS
    /// 0: where the Lod operand is valid).
    levels: bool,
    var: String,
    /// How the channels are stored when not as the Sampled Type.
    stored: Option<crate::frontend::spirv::image::Stored>,
}

/// The extents of a grid from its cells' index paths: one past the
/// greatest index of each of the first `dims` coordinates.
fn extents_of<'a>(paths: impl Iterator<Item = &'a [usize]> + Clone, dims: usize) -> Vec<usize> {
    (0..dims)
        .map(|k| {
            paths
                .clone()
                .filter_map(|p| p.get(k))
                .max()
                .map_or(1, |m| m + 1)
        })
        .collect()
}

impl Gen<'_> {
    /// Whether operand 1 of `inst` (an `OpLoad`) points to an image, a
    /// sampled image or a tensor.
    pub(super) fn is_image(&self, fr: &Frame, inst: &Inst) -> bool {
        matches!(self.val(fr, inst, 1), Ok(Val::Ptr(p)) if matches!(self.m.ty(&p.ty), Some(Ty::Image { .. } | Ty::SampledImage { .. } | Ty::Tensor { .. })))
    }

    /// The grid at operand `i`: a tensor, a storage image (Sampled 2) or
    /// an image `OpImageFetch` reads (Sampled 1), as `want` says; any other
    /// is an error at the operand quoting what the instruction requires.
    fn grid(&self, fr: &Frame, inst: &Inst, i: usize, want: Want) -> R<Grid> {
        let what = if want == Want::Tensor {
            "a tensor"
        } else {
            "an image"
        };
        let p = match self.val(fr, inst, i)? {
            Val::Ptr(p) => p,
            _ => return Err(inst.err_at(i, format!("{}: expected {what}", inst.name))),
        };
        self.grid_of(p, inst, i, want)
    }

    /// [`Gen::grid`] of the pointer `p`, the value of operand `i`.
    fn grid_of(&self, p: Ptr, inst: &Inst, i: usize, want: Want) -> R<Grid> {
        let name = inst.id(i)?;
        let op = &inst.name;
        let mut stored = None;
        let (elem, dims, channels, ms, levels) = match (self.m.ty(&p.ty).cloned(), want) {
            (Some(Ty::Tensor { elem, dims, .. }), Want::Tensor) => (elem, dims, 1, false, false),
            (_, Want::Tensor) => {
                return Err(inst.err_at(i, format!("{op}: expected a tensor (OpTypeTensorARM)")));
            }
            (
                Some(Ty::Image {
                    elem,
                    dims,
                    channels,
                    ms,
                    sampled,
                    dim,
                    stored: how,
                    ..
                }),
                _,
            ) => match want {
                // OpImageRead / OpImageWrite: "Image must be an object
                // whose type is OpTypeImage with a Sampled operand of 0 or
                // 2."
                Want::Storage if sampled => {
                    return Err(inst.err_at(
                        i,
                        format!("{op}: \"Image must be an object whose type is OpTypeImage with a Sampled operand of 0 or 2\": `%{name}` is an image of Sampled 1 (for sampling, read-only to vkmm: read its texels with OpImageFetch)"),
                    ));
                }
                // OpImageFetch: "Image must be an object whose type is
                // OpTypeImage. Its Dim operand cannot be Cube, and its
                // Sampled operand must be 1."
                Want::Fetch if !sampled || dim == "Cube" => {
                    return Err(inst.err_at(
                        i,
                        format!(
                            "{op}: \"Its Dim operand cannot be Cube, and its Sampled operand must be 1\": `%{name}` is {}",
                            if dim == "Cube" {
                                "a Cube image".to_string()
                            } else {
                                "a storage image (Sampled 2): read it with OpImageRead".to_string()
                            }
                        ),
                    ));
                }
                _ => {
                    stored = how;
                    (elem, dims, channels, ms, !ms && dim != "Buffer")
                }
            },
            (Some(Ty::SampledImage { .. }), _) => {
                return Err(inst.err_at(
                    i,
                    format!("{op}: \"Image must be an object whose type is OpTypeImage\": `%{name}` is a sampled image (OpTypeSampledImage); OpImage extracts its image"),
                ));
            }
            _ => {
                return Err(unsupported(
                    inst,
                    "vkmm reads images of integer texels (OpTypeImage with Sampled 1 or 2)",
                ));
            }
        };
        let size = self.m.size_of(&elem).unwrap_or(4);
        let var = match &p.home {
            super::Home::Mem { var, instance } => (var.clone(), *instance),
            super::Home::Regs { .. } => return Err(unsupported(inst, "an image in registers")),
        };
        let mut base = Ptr {
            ty: elem.clone(),
            ..p
        };
        let mut element = None;
        let mut each_extents = Vec::new();
        let extents = match self.image_array(&var.0, var.1, dims) {
            // One element of an array of image descriptors: a constant
            // index has that element's extents; a runtime index over
            // elements of one extent is checked against the array's length
            // and scaled like a coordinate; over elements of different
            // extents, each element's own extents bound its coordinates
            // (`Gen::locate`).
            Some((stride, each)) => {
                let len = each.len();
                match base.dynamic.as_slice() {
                    [] => {
                        let k = usize::try_from(base.offset / stride)
                            .ok()
                            .filter(|k| *k < len)
                            .ok_or_else(|| {
                                inst.err_at(i, format!("{op}: an element past the end of the array of {len} images `%{name}`"))
                            })?;
                        each[k].clone()
                    }
                    [(o, s)] if *s == stride && each.iter().all(|e| *e == each[0]) => {
                        element = Some((o.clone(), len as i64, stride));
                        base.dynamic.clear();
                        each[0].clone()
                    }
                    [(o, s)] if *s == stride => {
                        if inst.op == Op::ImageTexelPointer {
                            return Err(unsupported(
                                inst,
                                &format!(
                                    "a texel pointer into an array of images `%{}` indexed by a runtime value whose elements have different extents (give every element the same extent)",
                                    var.0
                                ),
                            ));
                        }
                        element = Some((o.clone(), len as i64, stride));
                        base.dynamic.clear();
                        let widest = (0..dims)
                            .map(|k| each.iter().map(|e| e[k]).max().unwrap_or(1))
                            .collect();
                        each_extents = each;
                        widest
                    }
                    _ => {
                        return Err(unsupported(
                            inst,
                            "an image reached by several runtime indices",
                        ));
                    }
                }
            }
            // The extents: one past the greatest index of each coordinate
            // among the cells (the @Input's lists are equally long per
            // level).
            None => {
                let cells = self.mem.cells.get(&var).map_or(&[][..], |c| &c[..]);
                extents_of(cells.iter().map(|(c, _)| &c.path[..]), dims)
            }
        };
        Ok(Grid {
            base,
            element,
            each: each_extents,
            extents,
            elem,
            size,
            channels,
            ms,
            levels,
            var: var.0.clone(),
            stored,
        })
    }

    /// The layout of the variable `var` (instance `instance`) when it is
    /// an array of image descriptors of `dims` coordinates: the stride
    /// between its elements and each element's extents (`Module::cells`
    /// lays the elements out at the stride of the largest).
    pub(super) fn image_array(
        &self,
        var: &str,
        instance: usize,
        dims: usize,
    ) -> Option<(i64, Vec<Vec<usize>>)> {
        let key = (var.to_string(), instance, dims);
        if let Some(known) = self.image_arrays.borrow().get(&key) {
            return known.clone();
        }
        let layout = self.image_array_of(var, instance, dims);
        self.image_arrays.borrow_mut().insert(key, layout.clone());
        layout
    }

    /// [`Gen::image_array`], computed.
    fn image_array_of(
        &self,
        var: &str,
        instance: usize,
        dims: usize,
    ) -> Option<(i64, Vec<Vec<usize>>)> {
        let g = self.m.globals.iter().find(|g| g.id == var)?;
        let Some(Ty::Array { elem, len }) = self.m.ty(&g.pointee) else {
            return None;
        };
        if !matches!(
            self.m.ty(elem),
            Some(Ty::Image { .. } | Ty::SampledImage { .. })
        ) {
            return None;
        }
        let cells = self.mem.cells.get(&(var.to_string(), instance))?;
        let each: Vec<Vec<usize>> = (0..*len)
            .map(|k| {
                extents_of(
                    cells
                        .iter()
                        .filter(|(c, _)| c.path.first() == Some(&k))
                        .map(|(c, _)| &c.path[1..]),
                    dims,
                )
            })
            .collect();
        let stride = cells
            .iter()
            .map(|(c, _)| c.offset + i64::from(c.size))
            .filter(|_| *len == 1)
            .max()
            .or_else(|| {
                cells
                    .iter()
                    .filter(|(c, _)| c.path.first() == Some(&1))
                    .map(|(c, _)| c.offset)
                    .min()
            })
            .unwrap_or(1)
            .max(1);
        Some((stride, each))
    }

    /// The coordinates at operand `i`: `n` integers (a scalar, a vector or
    /// an array), as operands.
    fn coords(&mut self, fr: &Frame, inst: &Inst, i: usize, n: usize) -> R<Vec<Operand>> {
        let mut vals = Vec::new();
        leaves_of(&self.val(fr, inst, i)?, &mut vals);
        if vals.len() != n {
            return Err(inst.err_at(
                i,
                format!(
                    "{}: this image or tensor takes {n} integer coordinate{}, found {}",
                    inst.name,
                    if n == 1 { "" } else { "s" },
                    vals.len()
                ),
            ));
        }
        vals.iter().map(|v| self.operand(v, inst, i)).collect()
    }

    /// A pointer to the texel or element at `coords` of `g`: `None` when a
    /// constant coordinate is outside the extent; a runtime coordinate
    /// outside it gives a pointer whose accesses reach no location (its
    /// offset is NOWHERE), never another texel. Vulkan, Image Coordinate
    /// Validation: "x < width, y < height, z < depth, layer < layers,
    /// sample < samples ... If any of these equations evaluates to false,
    /// the coordinate is considered out of bounds"; Tensor Element
    /// Coordinate Validation: "0 <= Coordinates\[i\] < Size\[i\]".
    fn locate(&mut self, g: &Grid, coords: &[Operand], inst: &Inst) -> R<Option<Ptr>> {
        // A coordinate known only at run time makes each channel's access
        // a chain of branches with a case per cell the coordinates' ranges
        // reach (`Gen::at_each`, `Ptr::window`): bounded, so that a large
        // image is a clear error rather than a program too large to build.
        let cells = match &g.base.home {
            super::Home::Mem { var, instance } => self
                .mem
                .cells
                .get(&(var.clone(), *instance))
                .map_or(0, Vec::len),
            super::Home::Regs { .. } => 0,
        };
        let too_many = |cells: usize| {
            unsupported(
                inst,
                &format!(
                    "a coordinate or image index known only at run time into `%{}`, which has {cells} texel channels within the coordinates' ranges: vkmm makes such an access a branch over every one of them and stops at {MAX_RUNTIME_CELLS}; give the image a smaller extent (an input's `extent = [...]`)",
                    g.var
                ),
            )
        };
        // In a block no path reaches (kept for the numbering of group
        // instructions), an access too large to lower is to no texel: it
        // never runs.
        let nowhere = || {
            let mut t = g.base.clone();
            t.dynamic.clear();
            t.offset = NOWHERE;
            t.runtime = true;
            t
        };
        if let (Some(e), false) = (&g.element, g.each.is_empty()) {
            if cells > MAX_RUNTIME_CELLS {
                if self.dead {
                    return Ok(Some(nowhere()));
                }
                return Err(too_many(cells));
            }
            return Ok(Some(self.locate_each(g, e.clone(), coords, inst)));
        }
        let texel = g.size * g.channels as i64;
        let mut t = g.base.clone();
        // The element index of an array of images is checked and scaled
        // like a coordinate: an index outside the array reaches no texel.
        let mut runtime: Vec<(Operand, i64, i64)> = g.element.iter().cloned().collect();
        for (k, c) in coords.iter().enumerate() {
            let extent = g.extents[k] as i64;
            let stride = texel * g.extents[k + 1..].iter().product::<usize>() as i64;
            match c {
                Operand::Const(v) if *v < 0 || *v >= extent => return Ok(None),
                Operand::Const(v) => t.offset += v * stride,
                Operand::Reg(_) => runtime.push((c.clone(), extent, stride)),
            }
        }
        if runtime.is_empty() {
            return Ok(Some(t));
        }
        // The texels the runtime terms can reach: each term a multiple of
        // its stride below extent * stride, so their sum a multiple of the
        // strides' gcd, at most the sum of the largest terms (a coordinate
        // outside its extent reaches no texel).
        let reach: i64 = runtime.iter().map(|(_, e, s)| (e - 1) * s).sum::<i64>() + texel;
        let step = runtime.iter().fold(0, |g, (_, _, s)| super::gcd(g, *s));
        let within = match &g.base.home {
            super::Home::Mem { var, instance } => self
                .mem
                .cells
                .get(&(var.clone(), *instance))
                .map_or(0, |cs| {
                    cs.iter()
                        .filter(|(c, _)| (t.offset..t.offset + reach).contains(&c.offset))
                        .count()
                }),
            super::Home::Regs { .. } => 0,
        };
        if within > MAX_RUNTIME_CELLS {
            if self.dead {
                return Ok(Some(nowhere()));
            }
            return Err(too_many(within));
        }
        let src = span(inst);
        let acc = self.fresh_reg();
        let out = self.fresh_label();
        let done = self.fresh_label();
        self.copy(&acc, Operand::Const(0), &src);
        for (c, extent, stride) in runtime {
            self.add_checked(&acc, c, extent, stride, &out, &src);
        }
        self.goto(&done, &src);
        self.label(&out, &src);
        self.copy(&acc, Operand::Const(NOWHERE), &src);
        self.label(&done, &src);
        t.dynamic.push((Operand::Reg(acc), 1));
        // A texel's channels are at offsets 0..texel of it.
        t.window = Some((reach, step.max(1)));
        Ok(Some(t))
    }

    /// [`Gen::locate`] in an array of images of different extents indexed
    /// by the runtime value `idx`: a branch per element, each bounding the
    /// coordinates by that element's extents; an index outside the array,
    /// like a coordinate outside its element, reaches no texel.
    /// `acc += c * stride` for a runtime coordinate `c`, after jumping to
    /// `out` when `c` is outside `0..extent`.
    fn add_checked(
        &mut self,
        acc: &str,
        c: Operand,
        extent: i64,
        stride: i64,
        out: &str,
        src: &crate::ir::SourceSpan,
    ) {
        self.branch(Cmp::Lt, c.clone(), Operand::Const(0), out, src);
        self.branch(Cmp::Ge, c.clone(), Operand::Const(extent), out, src);
        let m = self.fresh_reg();
        self.assign(&m, ArithOp::Mul, c, Operand::Const(stride), src);
        self.assign(
            acc,
            ArithOp::Add,
            Operand::Reg(acc.to_string()),
            Operand::Reg(m),
            src,
        );
    }

    fn locate_each(
        &mut self,
        g: &Grid,
        (idx, _, stride): (Operand, i64, i64),
        coords: &[Operand],
        inst: &Inst,
    ) -> Ptr {
        let texel = g.size * g.channels as i64;
        let src = span(inst);
        let acc = self.fresh_reg();
        let out = self.fresh_label();
        let done = self.fresh_label();
        for (k, ext) in g.each.iter().enumerate() {
            let next = self.fresh_label();
            self.branch(Cmp::Ne, idx.clone(), Operand::Const(k as i64), &next, &src);
            self.copy(&acc, Operand::Const(k as i64 * stride), &src);
            for (j, c) in coords.iter().enumerate() {
                let extent = ext[j] as i64;
                let step = texel * ext[j + 1..].iter().product::<usize>() as i64;
                match c {
                    Operand::Const(v) if *v < 0 || *v >= extent => {
                        self.goto(&out, &src);
                        break;
                    }
                    Operand::Const(v) => {
                        self.assign(
                            &acc,
                            ArithOp::Add,
                            Operand::Reg(acc.clone()),
                            Operand::Const(v * step),
                            &src,
                        );
                    }
                    Operand::Reg(_) => {
                        self.add_checked(&acc, c.clone(), extent, step, &out, &src);
                    }
                }
            }
            self.goto(&done, &src);
            self.label(&next, &src);
        }
        self.label(&out, &src);
        self.copy(&acc, Operand::Const(NOWHERE), &src);
        self.label(&done, &src);
        let mut t = g.base.clone();
        t.dynamic.push((Operand::Reg(acc), 1));
        t
    }

    /// `OpImageRead`, `OpImageWrite`, `OpImageTexelPointer`.
    pub(super) fn image(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        match inst.op {
            Op::ImageRead | Op::ImageFetch | Op::ImageSparseRead | Op::ImageSparseFetch => {
                // OpImageRead Result-Type Image Coordinate [Image-Operands];
                // OpImageFetch, the same: "Fetch a single texel from an
                // image whose Sampled operand is 1" by integer coordinates
                // ("Coordinate is an integer scalar or vector containing
                // (u[, v] ... [, array layer])"), no sampler and no
                // filtering: a read of that texel's locations.
                let fetch = matches!(inst.op, Op::ImageFetch | Op::ImageSparseFetch);
                let sparse = matches!(inst.op, Op::ImageSparseRead | Op::ImageSparseFetch);
                let want = if fetch { Want::Fetch } else { Want::Storage };
                let g = self.grid(fr, inst, 1, want)?;
                let (acc, sample, level) = self.image_operands(fr, inst, 3, &g)?;
                let coords = self.image_coords(fr, inst, &g, sample)?;
                // OpImageSparseRead / OpImageSparseFetch: "Result Type must
                // be an OpTypeStruct with two members. The first member's
                // type must be an integer type scalar. It holds a Residency
                // Code that can be passed to OpImageSparseTexelsResident.
                // The second member must be a scalar or vector of
                // floating-point type or integer type" (the fetch's "a
                // vector of four components"): the texel is read as the
                // non-sparse instruction reads it.
                let texel_ty = if sparse {
                    match self.m.ty(inst.id(0)?) {
                        Some(Ty::Struct { members })
                            if members.len() == 2
                                && matches!(self.m.ty(&members[0]), Some(Ty::Int { .. })) =>
                        {
                            members[1].clone()
                        }
                        _ => {
                            return Err(inst.err_at(
                                0,
                                format!(
                                    "{}: \"Result Type must be an OpTypeStruct with two members. The first member's type must be an integer type scalar\"",
                                    inst.name
                                ),
                            ));
                        }
                    }
                } else {
                    inst.id(0)?.to_string()
                };
                // OpImageFetch: "Result Type must be a vector of four
                // components of floating-point type or integer type."
                if fetch && !matches!(self.m.ty(&texel_ty), Some(Ty::Vector { n: 4, .. })) {
                    return Err(inst.err_at(
                        0,
                        format!("{}: \"Result Type must be a vector of four components of floating-point type or integer type\"", inst.name),
                    ));
                }
                let Some(t) = self.locate(&g, &coords, inst)? else {
                    return Err(self.out_of_bounds_read(inst, &g));
                };
                let name = self.reg_name(fr, inst.result_id()?);
                let skip = self.runtime_level(level, &g, inst, 3)?;
                // A sparse result's registers are its members' (`.0` the
                // code, `.1` the texel), apart from each other.
                let texel_name = if sparse {
                    format!("{name}.1")
                } else {
                    name.clone()
                };
                let channels = self.read_channels(&g, &t, &texel_name, inst, &acc)?;
                self.level_checked(skip, &g, inst);
                // Vulkan, Component Substitution: "If after conversion,
                // less than four of the (R,G,B,A) components are present,
                // missing components are substituted by the components of
                // (0,0,0,1) for missing (R,G,B,A) components, respectively."
                // The 1 of a float texel is 1.0's bits.
                let one = match self.float_width(&texel_ty) {
                    Some(w) => crate::ir::numeric::from_f64(1.0, w),
                    None => 1,
                };
                let v = match self.m.ty(&texel_ty) {
                    Some(Ty::Vector { n, .. }) => Val::Comp(
                        (0..*n)
                            .map(|i| match channels.get(i) {
                                Some(r) => Val::Reg(r.clone()),
                                None if i == 3 => Val::Int(one),
                                None => Val::Int(0),
                            })
                            .collect(),
                    ),
                    Some(Ty::Int { .. } | Ty::Float { .. }) => Val::Reg(channels[0].clone()),
                    _ => {
                        return Err(inst.err_at(
                            0,
                            format!(
                                "{}: vkmm reads texels into an integer or float scalar or vector",
                                inst.name
                            ),
                        ));
                    }
                };
                // The Residency Code: "Residency Code is a value returned
                // by a sparse image instruction", whose encoding is the
                // implementation's; its register holds 0 and its value is
                // not computed, as a sample's (`sampled.rs`: refused where
                // it decides a branch, an address or a write).
                let v = if sparse {
                    let code = format!("{name}.0");
                    self.copy(&code, Operand::Const(0), &span(inst));
                    Val::Comp(vec![Val::Reg(code), v])
                } else {
                    v
                };
                self.bind(fr, inst, v)?;
            }
            Op::ImageWrite => {
                // OpImageWrite Image Coordinate Texel [Image-Operands]
                let g = self.grid(fr, inst, 0, Want::Storage)?;
                let (acc, sample, _) = self.image_operands(fr, inst, 3, &g)?;
                let coords = self.image_coords(fr, inst, &g, sample)?;
                let mut values = Vec::new();
                leaves_of(&self.val(fr, inst, 2)?, &mut values);
                if values.len() < g.channels {
                    return Err(inst.err_at(
                        2,
                        format!(
                            "OpImageWrite: the image has {} channels, the texel {} component{}",
                            g.channels,
                            values.len(),
                            if values.len() == 1 { "" } else { "s" }
                        ),
                    ));
                }
                // Vulkan, Image Writes: "If the coordinates are out of
                // bounds, the write is discarded."
                let Some(t) = self.locate(&g, &coords, inst)? else {
                    return Ok(());
                };
                // The channels the format has; a vector's other components
                // have no channel to go to.
                for (c, v) in values.iter().take(g.channels).enumerate() {
                    let mut p = t.clone();
                    p.offset += g.size * c as i64;
                    let v = match g.stored {
                        // The channel's own encoding of the value.
                        Some(how) => {
                            let name = self.fresh_reg();
                            self.binop(v, &Val::Int(0), &name, ArithOp::Num(how.write()), inst)?
                        }
                        None => v.clone(),
                    };
                    self.store(&p, &v, inst, &acc)?;
                }
            }
            Op::SampledImage => {
                // OpSampledImage Result-Type Image Sampler: "Create a
                // sampled image, containing both a sampler and an image."
                // "Image is an object whose type is an OpTypeImage, whose
                // Sampled operand is 0 or 1, and whose Dim operand is not
                // SubpassData." "Sampler must be an object whose type is
                // OpTypeSampler." The sampled image is the image's texels
                // (the sampler chooses filtering, no memory location).
                let p = match self.val(fr, inst, 1)? {
                    Val::Ptr(p)
                        if matches!(self.m.ty(&p.ty), Some(Ty::Image { sampled: true, .. })) =>
                    {
                        p
                    }
                    _ => {
                        return Err(inst.err_at(
                            1,
                            "OpSampledImage: \"Image is an object whose type is an OpTypeImage, whose Sampled operand is 0 or 1\" (vkmm reads Sampled 1)".into(),
                        ));
                    }
                };
                if !matches!(self.val(fr, inst, 2)?, Val::Opaque(s) if s == SAMPLER) {
                    return Err(inst.err_at(
                        2,
                        "OpSampledImage: \"Sampler must be an object whose type is OpTypeSampler\""
                            .into(),
                    ));
                }
                let ty = inst.id(0)?.to_string();
                self.bind(fr, inst, Val::Ptr(Ptr { ty, ..p }))?;
            }
            Op::Image => {
                // OpImage Result-Type Sampled-Image: "Extract the image
                // from a sampled image." "Sampled Image must have type
                // OpTypeSampledImage whose Image Type is the same as Result
                // Type."
                let v = self.val(fr, inst, 1)?;
                let image = match &v {
                    Val::Ptr(p) => match self.m.ty(&p.ty) {
                        Some(Ty::SampledImage { image }) => Some(image.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                let (Val::Ptr(p), Some(ty)) = (v, image) else {
                    return Err(inst.err_at(
                        1,
                        "OpImage: \"Sampled Image must have type OpTypeSampledImage\"".into(),
                    ));
                };
                self.bind(fr, inst, Val::Ptr(Ptr { ty, ..p }))?;
            }
            _ => {
                // OpImageTexelPointer Result-Type Image Coordinate Sample:
                // "Form a pointer to a texel of an image. Use of such a
                // pointer is limited to atomic operations." Image is a
                // pointer to the image variable.
                let g = self.grid(fr, inst, 1, Want::Storage)?;
                if g.channels != 1 {
                    return Err(inst.err_at(
                        1,
                        "OpImageTexelPointer: atomics apply to images of one channel".into(),
                    ));
                }
                if g.stored.is_some() {
                    return Err(unsupported(
                        inst,
                        "atomics on an image whose format converts its channels (16-bit float, normalised)",
                    ));
                }
                let sample = self.val(fr, inst, 3)?;
                let ms = g.ms;
                let coords = self.image_coords(fr, inst, &g, ms.then_some(sample.clone()))?;
                if !ms && !matches!(sample, Val::Int(0)) {
                    return Err(inst.err_at(
                        3,
                        "OpImageTexelPointer: Sample must be 0 (the image is not multisampled)"
                            .into(),
                    ));
                }
                let Some(t) = self.locate(&g, &coords, inst)? else {
                    return Err(self.out_of_bounds_read(inst, &g));
                };
                self.bind(fr, inst, Val::Ptr(t))?;
            }
        }
        Ok(())
    }

    /// The image queries, answered from the extents the image's texels
    /// have (its input's `extent`): OpImageQuerySize, "Query the
    /// dimensions of Image, with no level of detail", and
    /// OpImageQuerySizeLod, "Query the dimensions of Image for mipmap level
    /// for Level of Detail": "Result Type must be an integer type scalar
    /// or vector. The number of components must be: 1 for the 1D and
    /// Buffer dimensionalities, 2 for the 2D, Cube, and Rect
    /// dimensionalities, 3 for the 3D dimensionality, plus 1 more if the
    /// image type is arrayed. This vector is filled in with (width [,
    /// height] [, elements]) where elements is the number of layers in an
    /// image array or the depth of a 3D image" (of a cube array, the
    /// cubes: its layers over 6). vkmm models an image's level 0 only, so
    /// OpImageQueryLevels, "Query the number of mipmap levels accessible
    /// through Image", is 1, and a size query names level 0 (another
    /// level is refused). OpImageQuerySamples, "Query the number of
    /// samples available per texel fetch in a multisample image", is the
    /// extent of the sample coordinate.
    pub(super) fn image_query(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let op = inst.name.clone();
        let ty = match self.val(fr, inst, 1)? {
            Val::Ptr(p) => self.m.ty(&p.ty).cloned(),
            _ => None,
        };
        let Some(Ty::Image {
            dim, arrayed, ms, ..
        }) = ty
        else {
            return Err(inst.err_at(
                1,
                format!("{op}: \"Image must be an object whose type is OpTypeImage\""),
            ));
        };
        let g = self.grid(fr, inst, 1, Want::Query)?;
        if !g.each.is_empty() {
            return Err(unsupported(
                inst,
                &format!(
                    "a query of an element of the array of images `%{}` chosen at run time, whose elements have different extents (give every element the same extent)",
                    g.var
                ),
            ));
        }
        let value = match inst.op {
            Op::ImageQueryLevels => {
                if !matches!(dim.as_str(), "1D" | "2D" | "3D" | "Cube") {
                    return Err(inst.err_at(
                        1,
                        format!("{op}: \"Its Dim operand must be one of 1D, 2D, 3D, or Cube\""),
                    ));
                }
                vec![1]
            }
            Op::ImageQuerySamples => {
                if !ms {
                    return Err(inst.err_at(
                        1,
                        format!("{op}: \"Its Dim operand must be 2D and MS must be 1\""),
                    ));
                }
                vec![*g.extents.last().unwrap_or(&1) as i64]
            }
            _ => {
                if inst.op == Op::ImageQuerySizeLod {
                    if ms || !matches!(dim.as_str(), "1D" | "2D" | "3D" | "Cube") {
                        return Err(inst.err_at(
                            1,
                            format!("{op}: \"Its Dim operand must be one of 1D, 2D, 3D, or Cube, and its MS must be 0\""),
                        ));
                    }
                    match self.val(fr, inst, 2)? {
                        Val::Int(0) => {}
                        Val::Int(lod) => {
                            return Err(inst.err_at(
                                2,
                                format!("{op}: Level of Detail {lod}: vkmm models an image's level 0 only (OpImageQueryLevels is 1), so level {lod} is one the image does not have"),
                            ));
                        }
                        level => {
                            let skip = self.runtime_level(Some(level), &g, inst, 2)?;
                            self.level_checked(skip, &g, inst);
                        }
                    }
                }
                let spatial = match dim.as_str() {
                    "1D" | "Buffer" => 1,
                    "3D" => 3,
                    _ => 2,
                };
                let mut v: Vec<i64> = g.extents.iter().take(spatial).map(|e| *e as i64).collect();
                if arrayed {
                    let layers = g.extents.get(spatial).copied().unwrap_or(1) as i64;
                    v.push(if dim == "Cube" { layers / 6 } else { layers });
                }
                v
            }
        };
        let n = match self.m.ty(inst.id(0)?) {
            Some(Ty::Int { .. }) => 1,
            Some(Ty::Vector { n, elem }) if matches!(self.m.ty(elem), Some(Ty::Int { .. })) => *n,
            _ => 0,
        };
        if n != value.len() {
            return Err(inst.err_at(
                0,
                format!(
                    "{op}: \"Result Type must be an integer type scalar or vector\" of {} component{} for this image",
                    value.len(),
                    if value.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        let v = if n == 1 {
            Val::Int(value[0])
        } else {
            Val::Comp(value.into_iter().map(Val::Int).collect())
        };
        self.bind(fr, inst, v)
    }

    /// Where a Level of Detail known only at run time (`level`, of operand
    /// `i`) is not 0, the only level vkmm models: a branch past the code
    /// that follows (the access, whose texels are level 0's) to a label
    /// returned for [`Gen::level_checked`] to place after it. The image
    /// has one level (OpImageQueryLevels is 1), and a level it does not
    /// have is undefined behaviour (Vulkan, "Texel Input Validation
    /// Operations": a Level of Detail not in `[baseLevel, levelCount)`
    /// fails instruction/sampler/image view validation, whose "texel
    /// value is undefined"; OpImageQuerySizeLod's result for it is
    /// undefined likewise): that path is marked as an out-of-bounds access
    /// to the image (`Program::out_of_bounds`).
    fn runtime_level(
        &mut self,
        level: Option<Val>,
        g: &Grid,
        inst: &Inst,
        i: usize,
    ) -> R<Option<String>> {
        let Some(level) = level else {
            return Ok(None);
        };
        if !g.levels {
            return Err(inst.err_at(
                i,
                "a Level of Detail of an image without levels (Dim 1D, 2D, 3D or Cube and MS 0 have them)".into(),
            ));
        }
        let l = self.operand(&level, inst, i)?;
        let other = self.fresh_label();
        self.branch(Cmp::Ne, l, Operand::Const(0), &other, &super::span(inst));
        Ok(Some(other))
    }

    /// Closes [`Gen::runtime_level`]'s branch: the access above is level
    /// 0's; the path at another level marks the image out of bounds.
    fn level_checked(&mut self, other: Option<String>, g: &Grid, inst: &Inst) {
        let Some(other) = other else { return };
        let src = super::span(inst);
        let after = self.fresh_label();
        self.goto(&after, &src);
        self.label(&other, &src);
        self.mark_out_of_bounds(&g.var, inst);
        self.label(&after, &src);
    }

    /// The coordinates of an image access: the Coordinate operand's, then
    /// the sample of a multisampled image (the Sample image operand).
    fn image_coords(
        &mut self,
        fr: &Frame,
        inst: &Inst,
        g: &Grid,
        sample: Option<Val>,
    ) -> R<Vec<Operand>> {
        let coord = if inst.op == Op::ImageWrite { 1 } else { 2 };
        let ms = g.ms;
        let n = g.extents.len() - usize::from(ms);
        let mut coords = self.coords(fr, inst, coord, n)?;
        match (ms, sample) {
            (true, Some(s)) => coords.push(self.operand(&s, inst, coord)?),
            (true, None) => {
                return Err(inst.err_at(
                    coord,
                    format!(
                        "{}: a multisampled image needs the Sample image operand (\"n is conditionally present and is taken from the Sample image operand\")",
                        inst.name
                    ),
                ));
            }
            (false, Some(_)) => {
                return Err(inst.err_at(
                    coord,
                    format!(
                        "{}: the Sample image operand needs a multisampled image (MS 1)",
                        inst.name
                    ),
                ));
            }
            (false, None) => {}
        }
        Ok(coords)
    }

    /// The error of a constant coordinate outside the image: Vulkan, Shader
    /// Out-of-Bounds Memory Access: "Applications must not execute
    /// operations that would access out of bounds memory locations unless
    /// some form of bounds checking is enabled".
    fn out_of_bounds_read(&self, inst: &Inst, g: &Grid) -> crate::frontend::spirv::syntax::Located {
        let coord = if inst.op == Op::ImageWrite { 1 } else { 2 };
        let extent: Vec<String> = g.extents.iter().map(|e| e.to_string()).collect();
        inst.err_at(
            coord,
            format!(
                "{}: the coordinate is outside the image `%{}` (extent {}, from its input: without one an image is one texel per coordinate; give its size as `extent = [X, Y, ...]` in the dispatch file's [inputs], or in a Dat3M `@Input`): an out-of-bounds image access is undefined behaviour (\"Applications must not execute operations that would access out of bounds memory locations\")",
                inst.name,
                g.var,
                extent.join(" x ")
            ),
        )
    }

    /// Loads the channels of the texel at `t` into fresh registers named
    /// after `name`, 0 first (what a runtime coordinate outside the image
    /// reads: no location; Vulkan leaves the value undefined without
    /// robustness, vkmm picks 0, the robustImageAccess2 value).
    fn read_channels(
        &mut self,
        g: &Grid,
        t: &Ptr,
        name: &str,
        inst: &Inst,
        acc: &Access,
    ) -> R<Vec<String>> {
        let src = span(inst);
        let mut regs = Vec::new();
        for c in 0..g.channels {
            let reg = if g.channels == 1 {
                name.to_string()
            } else {
                format!("{name}.{c}")
            };
            let raw = match g.stored {
                Some(_) => format!("{reg}.raw"),
                None => reg.clone(),
            };
            self.copy(&raw, Operand::Const(0), &src);
            let mut p = t.clone();
            p.offset += g.size * c as i64;
            let elem = g.elem.clone();
            let v = self.load(&p, &elem, &raw, inst, acc)?;
            let Val::Reg(r) = v else {
                return Err(unsupported(inst, "a texel of a non-scalar type"));
            };
            let r = match g.stored {
                // The channel's encoding read as a 32-bit float.
                Some(how) => {
                    self.assign(
                        &reg,
                        ArithOp::Num(how.read()),
                        Operand::Reg(r),
                        Operand::Const(0),
                        &src,
                    );
                    reg
                }
                None => r,
            };
            regs.push(r);
        }
        Ok(regs)
    }

    /// `OpTensorReadARM`, `OpTensorWriteARM`, `OpTensorQuerySizeARM`
    /// (SPV_ARM_tensors).
    pub(super) fn tensor(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        match inst.op {
            Op::TensorQuerySizeARM => {
                // "Query the size of 'Tensor' along 'Dimension'. ...
                // 'Dimension' ... must be less than the 'Rank' of 'Tensor'."
                let g = self.grid(fr, inst, 1, Want::Tensor)?;
                let d = self.int_const(fr, inst, 2, "Dimension")?;
                let Some(n) = usize::try_from(d).ok().and_then(|d| g.extents.get(d)) else {
                    return Err(inst.err_at(
                        2,
                        format!(
                            "OpTensorQuerySizeARM: 'Dimension' {d} \"must be less than the 'Rank' of 'Tensor'\" ({})",
                            g.extents.len()
                        ),
                    ));
                };
                self.bind(fr, inst, Val::Int(*n as i64))?;
            }
            Op::TensorReadARM => {
                // OpTensorReadARM Result-Type Tensor Coordinates
                // [Tensor-Operands]: "When 'Result Type' is an array of
                // scalar type, one element is read from 'Tensor' for each
                // element of the array. Elements are read consecutively
                // starting from 'Coordinates' along the innermost dimension
                // of the tensor."
                let g = self.grid(fr, inst, 1, Want::Tensor)?;
                let coords = self.coords(fr, inst, 2, g.extents.len())?;
                let (acc, oob) = self.tensor_operands(fr, inst, 3, false)?;
                let ty = inst.id(0)?.to_string();
                let n = self.tensor_count(inst, 0, &ty, &g)?;
                let name = self.reg_name(fr, inst.result_id()?);
                let src = span(inst);
                let mut out = Vec::new();
                for j in 0..n {
                    let reg = if n == 1 && !matches!(self.m.ty(&ty), Some(Ty::Array { .. })) {
                        name.clone()
                    } else {
                        format!("{name}.{j}")
                    };
                    // Tensor Element Replacement: "If the OpTensorReadARM
                    // instruction that caused an invalid tensor element to
                    // be accessed did not have a OutOfBoundsValueARM tensor
                    // operand present, then the value returned is the same
                    // as that produced by OpConstantNull for the type
                    // returned", else "the value provided using
                    // OutOfBoundsValueARM is returned".
                    self.copy(&reg, Operand::Const(oob), &src);
                    let c = self.shifted(&coords, j, inst);
                    if let Some(t) = self.locate(&g, &c, inst)? {
                        let elem = g.elem.clone();
                        self.load(&t, &elem, &reg, inst, &acc)?;
                    }
                    out.push(Val::Reg(reg));
                }
                let v = if matches!(self.m.ty(&ty), Some(Ty::Array { .. })) {
                    Val::Comp(out)
                } else {
                    out.remove(0)
                };
                self.bind(fr, inst, v)?;
            }
            _ => {
                // OpTensorWriteARM Tensor Coordinates Object
                // [Tensor-Operands]; Vulkan, Tensor Element Coordinate
                // Validation: "If the tensor element fails coordinate
                // validation, then the write has no effect."
                let g = self.grid(fr, inst, 0, Want::Tensor)?;
                let coords = self.coords(fr, inst, 1, g.extents.len())?;
                let (acc, _) = self.tensor_operands(fr, inst, 3, true)?;
                let mut values = Vec::new();
                leaves_of(&self.val(fr, inst, 2)?, &mut values);
                if values.is_empty() {
                    return Err(inst.err_at(2, "OpTensorWriteARM: expected an Object".into()));
                }
                for (j, v) in values.iter().enumerate() {
                    let c = self.shifted(&coords, j, inst);
                    if let Some(t) = self.locate(&g, &c, inst)? {
                        self.store(&t, v, inst, &acc)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// How many elements a tensor access of type `ty` (operand `i`) moves:
    /// 1 for a scalar, the length of an array ("'Result Type' must be a
    /// scalar type or array of scalar type. The scalar type must be the
    /// same as the 'Element Type' of 'Tensor'").
    fn tensor_count(&self, inst: &Inst, i: usize, ty: &str, g: &Grid) -> R<usize> {
        let (elem, n) = match self.m.ty(ty) {
            Some(Ty::Array { elem, len }) => (elem.as_str(), *len),
            Some(Ty::Int { .. } | Ty::Float { .. }) => (ty, 1),
            _ => ("", 0),
        };
        if n == 0 || self.m.ty(elem) != self.m.ty(&g.elem) {
            return Err(inst.err_at(
                i,
                format!(
                    "{}: \"'Result Type' must be a scalar type or array of scalar type. The scalar type must be the same as the 'Element Type' of 'Tensor'\"",
                    inst.name
                ),
            ));
        }
        Ok(n)
    }

    /// `coords` with `j` added to the innermost one.
    fn shifted(&mut self, coords: &[Operand], j: usize, inst: &Inst) -> Vec<Operand> {
        let mut c = coords.to_vec();
        if j == 0 {
            return c;
        }
        let last = c.len() - 1;
        c[last] = match &c[last] {
            Operand::Const(v) => Operand::Const(v + j as i64),
            r => {
                let d = self.fresh_reg();
                self.assign(
                    &d,
                    ArithOp::Add,
                    r.clone(),
                    Operand::Const(j as i64),
                    &span(inst),
                );
                Operand::Reg(d)
            }
        };
        c
    }

    /// The Tensor Operands from operand `i` on: the access's flags and the
    /// value an out-of-bounds read returns (0 without OutOfBoundsValueARM).
    fn tensor_operands(&self, fr: &Frame, inst: &Inst, i: usize, write: bool) -> R<(Access, i64)> {
        let mut a = Access {
            kind: AccessKind::ElementArm,
            ..Access::default()
        };
        let Some(bits) = super::mask_operand(inst, i, "tensor", TENSOR_OPERANDS)? else {
            return Ok((a, 0));
        };
        if bits & !0x1f != 0 {
            return Err(inst.err_at(
                i,
                format!("unknown tensor operand bits {:#x}", bits & !0x1f),
            ));
        }
        // The following operands come in the order of their bits.
        let mut next = i + 1;
        let mut oob = 0;
        if bits & 0x2 != 0 {
            // OutOfBoundsValueARM: "It must be a constant instruction of
            // the same type as the 'Element Type' of the accessed tensor.
            // Only valid with OpTensorReadARM."
            if write {
                return Err(inst.err_at(
                    i,
                    "OutOfBoundsValueARM is \"Only valid with OpTensorReadARM\"".into(),
                ));
            }
            oob = self.int_const(fr, inst, next, "OutOfBoundsValueARM")?;
            next += 1;
        }
        // MakeElementAvailableARM: "Perform an availability operation on
        // the tensor element locations after the store. A following operand
        // is the memory scope that controls the availability operation.
        // Requires NonPrivateElementARM to also be set. Only valid with
        // OpTensorWriteARM." MakeElementVisibleARM: the same, "a visibility
        // operation on the tensor element locations before the load ...
        // Only valid with OpTensorReadARM".
        if bits & 0x4 != 0 {
            if !write {
                return Err(inst.err_at(
                    i,
                    "MakeElementAvailableARM is \"Only valid with OpTensorWriteARM\"".into(),
                ));
            }
            a.available = true;
            a.scope = Some(self.scope(fr, inst, next)?);
            next += 1;
        }
        if bits & 0x8 != 0 {
            if write {
                return Err(inst.err_at(
                    i,
                    "MakeElementVisibleARM is \"Only valid with OpTensorReadARM\"".into(),
                ));
            }
            a.visible = true;
            a.scope = Some(self.scope(fr, inst, next)?);
        }
        // NonPrivateElementARM: "The tensor access obeys inter-thread
        // ordering, as specified by the client API."
        a.non_private = bits & 0x10 != 0;
        if (a.available || a.visible) && !a.non_private {
            return Err(inst.err_at(
                i,
                format!(
                    "{} \"Requires NonPrivateElementARM to also be set\"",
                    if a.available {
                        "MakeElementAvailableARM"
                    } else {
                        "MakeElementVisibleARM"
                    }
                ),
            ));
        }
        Ok((a, oob))
    }

    /// The Image Operands from operand `i` on (absent: none) of an access
    /// to `g` by `inst` (`OpImageRead`, `OpImageWrite`, `OpImageFetch`).
    fn image_operands(
        &self,
        fr: &Frame,
        inst: &Inst,
        i: usize,
        g: &Grid,
    ) -> R<(Access, Option<Val>, Option<Val>)> {
        let write = inst.op == Op::ImageWrite;
        let fetch = matches!(inst.op, Op::ImageFetch | Op::ImageSparseFetch);
        let mut a = Access {
            kind: AccessKind::Texel,
            ..Access::default()
        };
        let Some(bits) = super::mask_operand(inst, i, "image", OPERANDS)? else {
            return Ok((a, None, None));
        };
        // Lod: "Only valid with explicit-lod instructions": of these, the
        // fetch.
        let known = if fetch { READ | LOD } else { READ };
        if bits & !known != 0 {
            let names: Vec<&str> = OPERANDS
                .iter()
                .filter(|(_, v)| bits & !known & v != 0)
                .map(|(n, _)| *n)
                .collect();
            return Err(unsupported(
                inst,
                &format!(
                    "image operand {} (vkmm reads texel accesses with Sample, MakeTexelAvailable, MakeTexelVisible, NonPrivateTexel, VolatileTexel, SignExtend, ZeroExtend, Nontemporal, and Lod 0 on OpImageFetch)",
                    names.join("|")
                ),
            ));
        }
        let mut next = i + 1;
        let mut level = None;
        if bits & LOD != 0 {
            // Lod: "A following operand is the explicit level-of-detail
            // to use. ... For fetch operations, it must be a 32-bit integer
            // scalar. This must only be used with an OpTypeImage that has
            // a Dim operand of 1D, 2D, 3D, or Cube, and the MS operand must
            // be 0." vkmm's texels (the @Input) are the image's level 0.
            if !g.levels {
                return Err(inst.err_at(
                    i,
                    "Lod: \"This must only be used with an OpTypeImage that has a Dim operand of 1D, 2D, 3D, or Cube, and the MS operand must be 0\"".into(),
                ));
            }
            match self.val(fr, inst, next)? {
                Val::Int(0) => {}
                Val::Int(l) => {
                    return Err(inst.err_at(
                        next,
                        format!("OpImageFetch: Lod {l}: vkmm's texels (the @Input) are the image's level of detail 0, the only level it models; level {l} has texels it has no locations for"),
                    ));
                }
                // Known only at run time (naga's bounds check of
                // `textureLoad(t, c, level)` clamps it to the levels):
                // checked where the fetch runs (`Gen::runtime_level`).
                v => level = Some(v),
            }
            next += 1;
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
        // Sample: "A following operand is the sample number of the sample
        // to use. Only valid with multi-sampled images." Its operand comes
        // before the scopes (the operands follow in the order of the bits).
        let mut sample = None;
        if bits & SAMPLE != 0 {
            sample = Some(self.val(fr, inst, next)?);
            next += 1;
        }
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
            if inst.op != Op::ImageRead {
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
        Ok((a, sample, level))
    }
}

/// Whether the sampling instruction `op` reads no texel: the queries of
/// the level of detail and of the footprint compute from the coordinates
/// and the sampler only, and the residency query reads a sparse sample's
/// code.
fn reads_no_texel(op: Op) -> bool {
    matches!(
        op,
        Op::ImageQueryLod | Op::ImageSampleFootprintNV | Op::ImageSparseTexelsResident
    )
}

/// The operand index of a sampling instruction's Image Operands: after
/// the Result Type, the Sampled Image and the Coordinate, and after the
/// Dref or the Component where the instruction has one.
fn sampling_operands_at(op: Op) -> usize {
    match op {
        Op::ImageSampleDrefImplicitLod
        | Op::ImageSampleDrefExplicitLod
        | Op::ImageSampleProjDrefImplicitLod
        | Op::ImageSampleProjDrefExplicitLod
        | Op::ImageSparseSampleDrefImplicitLod
        | Op::ImageSparseSampleDrefExplicitLod
        | Op::ImageSparseSampleProjDrefImplicitLod
        | Op::ImageSparseSampleProjDrefExplicitLod
        | Op::ImageGather
        | Op::ImageDrefGather
        | Op::ImageSparseGather
        | Op::ImageSparseDrefGather => 4,
        // OpImageSampleFootprintNV: Granularity and Coarse come first.
        Op::ImageSampleFootprintNV => 5,
        _ => 3,
    }
}

impl Gen<'_> {
    /// A sampling instruction ([`is_sampling`]): a set of non-atomic reads
    /// of every texel the sample may read, and a value vkmm does not
    /// compute.
    ///
    /// The texels: Vulkan, Image Level(s) Selection, "d' = level_base +
    /// clamp(λ, 0, q)" with "q = levelCount - 1": vkmm's images have one
    /// level (OpImageQueryLevels is 1), so every level of detail, explicit
    /// (`Lod`, `Grad`) or implicit, selects level 0, and no level of
    /// detail is outside the image (unlike `OpImageFetch`'s integer Lod,
    /// which Texel Input Validation checks). Within the level, which
    /// texels a sample reads depends on the sampler the host binds, not on
    /// the module: Texel Filtering ("VK_FILTER_LINEAR filtering combines 8
    /// (for 3D), 4 (for 2D or Cube), or 2 (for 1D) texel values, together
    /// with their linear weights"; "The particular scheme for anisotropic
    /// texture filtering is implementation-dependent"), the Wrapping
    /// Operation ("i mod size" for repeat, so a coordinate at one edge
    /// reads the other; "Cube images ignore the wrap modes specified in the
    /// sampler" and filter across faces), and unnormalized or normalized
    /// coordinates. So even a coordinate known at compile time does not
    /// narrow the set: the sample reads every texel of the image (of every
    /// element of an array of images indexed at run time), a superset of
    /// the texels any sampler reads. Each read is a texel access with the
    /// sample's `NonPrivateTexel` (Image Operands: "The image access obeys
    /// inter-thread ordering, as specified by the client API"). Of an
    /// image no instruction of the module writes (a read-only texture,
    /// `Memory::written_images`), the sample makes no read: a race needs a
    /// write, and the value is not computed either way.
    ///
    /// The value: the filter's texels and weights (and a gather's texels,
    /// a comparison's reference, a sparse sample's residency code, the
    /// level of detail a query returns) are the implementation's, so the
    /// result is a value vkmm does not compute: its registers hold 0, and
    /// `sampled.rs` refuses, at the instruction, a module where such a
    /// value can decide a branch, an address or a compare-exchange, and a
    /// condition that reads memory it may reach.
    pub(super) fn sample(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let op = inst.name.clone();
        if !reads_no_texel(inst.op) || inst.op == Op::ImageQueryLod {
            // "Sampled Image must be an object whose type is
            // OpTypeSampledImage."
            let p = match self.val(fr, inst, 1)? {
                Val::Ptr(p) => match self.m.ty(&p.ty) {
                    Some(Ty::SampledImage { image }) => Some(Ptr {
                        ty: image.clone(),
                        ..p
                    }),
                    _ => None,
                },
                _ => None,
            };
            let Some(p) = p else {
                return Err(inst.err_at(
                    1,
                    format!(
                        "{op}: \"Sampled Image must be an object whose type is OpTypeSampledImage\""
                    ),
                ));
            };
            if let Some(Ty::Image { dim, .. }) = self.m.ty(&p.ty)
                && dim == "Buffer"
            {
                return Err(inst.err_at(
                    1,
                    format!("{op}: the image has Dim Buffer (OpTypeSampledImage: \"starting with version 1.6, it must not have a Dim of Buffer\"; read a texel buffer with OpImageFetch)"),
                ));
            }
            let g = self.grid_of(p, inst, 1, Want::Query)?;
            let acc = self.sampling_operands(inst)?;
            let written = self
                .mem
                .written_images
                .as_ref()
                .is_none_or(|w| w.contains(&g.var));
            if !reads_no_texel(inst.op) && !self.dead && written {
                self.read_every_texel(&g, inst, &acc)?;
            }
        }
        let ty = inst.id(0)?.to_string();
        let name = self.reg_name(fr, inst.result_id()?);
        let value = self.regs_like(&ty, &name, inst)?;
        let mut leaves = Vec::new();
        leaves_of(&value, &mut leaves);
        let src = span(inst);
        for leaf in &leaves {
            if let Val::Reg(r) = leaf {
                self.copy(r, Operand::Const(0), &src);
            }
        }
        self.bind(fr, inst, value)
    }

    /// The access a sampling instruction's Image Operands give its reads;
    /// operands that make no sense on a sample are errors at them.
    fn sampling_operands(&self, inst: &Inst) -> R<Access> {
        let mut a = Access {
            kind: AccessKind::Texel,
            ..Access::default()
        };
        let at = sampling_operands_at(inst.op);
        let bits = super::mask_operand(inst, at, "image", OPERANDS)?.unwrap_or(0);
        let explicit = inst.name.contains("ExplicitLod");
        // OpImageSampleExplicitLod: "Either Lod or Grad image operands
        // must be present."
        if explicit && bits & (LOD | GRAD) == 0 {
            return Err(inst.err_at(
                at.min(inst.operands.len().saturating_sub(1)),
                format!(
                    "{}: \"Either Lod or Grad image operands must be present\"",
                    inst.name
                ),
            ));
        }
        let wrong = [
            (
                AVAILABLE,
                "MakeTexelAvailable is \"Only valid with OpImageWrite\"",
            ),
            (
                VISIBLE,
                "MakeTexelVisible is \"Only valid with OpImageRead and OpImageSparseRead\"",
            ),
            (
                SAMPLE,
                "Sample is \"Only valid with multi-sampled images\", which are not sampled (\"MS must be 0\" where a level of detail applies)",
            ),
        ];
        for (bit, why) in wrong {
            if bits & bit != 0 {
                return Err(inst.err_at(at, format!("{}: {why}", inst.name)));
            }
        }
        a.non_private = bits & NON_PRIVATE != 0;
        Ok(a)
    }

    /// Non-atomic reads of every texel channel of `g` (of each element of
    /// an array of images when a runtime index picks the element), at most
    /// [`MAX_RUNTIME_CELLS`] of them.
    fn read_every_texel(&mut self, g: &Grid, inst: &Inst, acc: &Access) -> R<()> {
        let super::Home::Mem { var, instance } = &g.base.home else {
            return Err(unsupported(inst, "an image in registers"));
        };
        let texel = g.size * g.channels as i64;
        let (from, to) = if g.element.is_some() {
            (i64::MIN, i64::MAX)
        } else {
            let n = g.extents.iter().product::<usize>() as i64;
            (g.base.offset, g.base.offset + texel * n)
        };
        let offsets: Vec<i64> = self
            .mem
            .cells
            .get(&(var.clone(), *instance))
            .map_or(&[][..], |c| &c[..])
            .iter()
            .map(|(c, _)| c.offset)
            .filter(|o| (from..to).contains(o))
            .collect();
        if offsets.len() > MAX_RUNTIME_CELLS {
            return Err(unsupported(
                inst,
                &format!(
                    "a sample of `%{}`, which has {} texel channels: vkmm reads a sample as a read of every texel of the image (which ones a filter reads is the sampler's) and stops at {MAX_RUNTIME_CELLS}; give the image a smaller extent (an input's `extent = [...]`)",
                    g.var,
                    offsets.len()
                ),
            ));
        }
        let src = span(inst);
        for offset in offsets {
            let p = Ptr {
                offset,
                dynamic: Vec::new(),
                runtime: false,
                window: None,
                ty: g.elem.clone(),
                ..g.base.clone()
            };
            let reg = self.fresh_reg();
            self.copy(&reg, Operand::Const(0), &src);
            let elem = g.elem.clone();
            self.load(&p, &elem, &reg, inst, acc)?;
        }
        Ok(())
    }
}

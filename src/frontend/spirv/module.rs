//! The module-level declarations of a SPIR-V text: types with their memory
//! layout (`Offset`, `ArrayStride`), decorations, constants (spec constants
//! at their defaults, or from `@Config` for the workgroup size), global
//! variables, functions and the clspv reflection instructions.

use super::headers::Init;
use super::syntax::{Inst, Located, Tok};
pub(super) use super::types::{CVal, Class, MatrixLayout, Ty, unsupported};
use crate::ir::Interface;
use ::spirv::Op;
use std::collections::HashMap;

/// The most scalar cells with a location one variable may have: every
/// cell of a per-invocation, Output or image variable, the cells a shared
/// variable's accesses reach (`super::sparse`).
pub(super) const MAX_CELLS: usize = 1 << 16;

/// The most scalar cells the layout of one variable may have (a buffer as
/// long as the host binds it); the cells that get a location are bounded
/// by [`MAX_CELLS`].
pub(super) const MAX_LAYOUT: usize = 1 << 20;

/// The most scalars an OpConstantNull value is spelled out into: as many
/// as one variable's cells with a location ([`MAX_CELLS`]), since a store
/// of a larger value could not be lowered anyway.
const MAX_NULL_LEAVES: usize = MAX_CELLS;

/// A global variable.
#[derive(Clone, Debug)]
pub(super) struct Global {
    pub id: String,
    pub class: Class,
    pub class_name: String,
    pub pointee: String,
    pub init: Option<String>,
    pub line: usize,
    pub col: usize,
}

/// A function: the indices of its instructions (`OpFunction` to `OpFunctionEnd`).
#[derive(Clone, Debug)]
pub(super) struct Function {
    pub params: Vec<String>,
    pub body: std::ops::Range<usize>,
}

/// The invocation grid: `per_subgroup * subgroups` invocations per
/// workgroup, laid out as `local` (x fastest), and `workgroups` workgroups
/// laid out as `groups`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Grid {
    pub per_subgroup: usize,
    pub subgroups: usize,
    pub workgroups: usize,
    /// The workgroup's shape; its product is `per_subgroup * subgroups`.
    pub local: [usize; 3],
    /// The dispatch's shape; its product is `workgroups`.
    pub groups: [usize; 3],
}

impl Grid {
    /// A one-dimensional grid (`@Config: T, S, W`).
    pub fn flat(per_subgroup: usize, subgroups: usize, workgroups: usize) -> Grid {
        Grid {
            per_subgroup,
            subgroups,
            workgroups,
            local: [per_subgroup * subgroups, 1, 1],
            groups: [workgroups, 1, 1],
        }
    }

    pub fn workgroup_size(&self) -> usize {
        self.per_subgroup * self.subgroups
    }
    pub fn invocations(&self) -> usize {
        self.workgroup_size() * self.workgroups
    }
    /// The (x, y, z) of index `i` in `shape`, x fastest (Vulkan, "Compute
    /// Shaders": the local invocation index is "z * sx * sy + y * sx + x").
    pub fn unfold(&self, i: usize, shape: [usize; 3]) -> [usize; 3] {
        let [sx, sy, _] = shape.map(|d| d.max(1));
        [i % sx, (i / sx) % sy, i / (sx * sy)]
    }
}

/// One scalar cell of a variable's layout.
#[derive(Clone, Debug)]
pub(super) struct Cell {
    /// Byte offset from the start of the variable.
    pub offset: i64,
    pub size: u32,
    /// Indices from the variable's type down to the cell (`[0][2]`).
    pub path: Vec<usize>,
    pub init: i64,
    /// What its bits mean to a reader (its scalar type).
    pub kind: crate::ir::ValueKind,
}

/// The cells of `layout` (sorted by offset) that overlap the `size` bytes
/// at `at`.
pub(super) fn overlapping(layout: &[Cell], at: i64, size: u32) -> &[Cell] {
    let end = at + i64::from(size);
    // The first cell that ends after `at`.
    let first = layout.partition_point(|c| c.offset + i64::from(c.size) <= at);
    let last = layout.partition_point(|c| c.offset < end);
    &layout[first..last.max(first)]
}

/// The declarations of a module.
#[derive(Default)]
pub(super) struct Module {
    pub types: HashMap<String, Ty>,
    /// The integer types declared unsigned (`OpTypeInt` with Signedness
    /// 0, and the cells of unsigned normalised image formats): reports
    /// show their values unsigned. `Ty::Int` itself has no sign, as the
    /// instructions that use it say how they read it.
    pub unsigned: std::collections::HashSet<String>,
    pub decorations: HashMap<String, Vec<(String, Vec<Tok>)>>,
    pub member_offsets: HashMap<(String, usize), i64>,
    pub consts: HashMap<String, CVal>,
    pub globals: Vec<Global>,
    pub functions: HashMap<String, Function>,
    pub entry: Option<(String, usize, usize)>,
    /// Every `OpEntryPoint`: (execution model, function id, line, column
    /// of the function id).
    pub entries: Vec<(String, String, usize, usize)>,
    /// The name of each `OpEntryPoint`, in the order of `entries`.
    pub entry_names: Vec<String>,
    /// The entry point asked for by name (`--entry`), if any.
    pub wanted_entry: Option<String>,
    /// The workgroup's shape the grid gives (x, y, z).
    pub local: [i64; 3],
    /// Result type of every instruction with one.
    pub result_types: HashMap<String, String>,
    /// Extended instruction sets: id -> name.
    pub ext_sets: HashMap<String, String>,
    /// Push-constant byte offsets clspv's reflection fills:
    /// (offset, values of x, y, z).
    pub push_constants: Vec<(i64, [i64; 3])>,
    /// Spec ids of the workgroup size (x, y, z), from clspv's reflection.
    pub workgroup_size_spec_ids: Option<[i64; 3]>,
    /// The matrix decorations of struct members: (struct, member) ->
    /// (`MatrixStride`, whether `RowMajor`).
    pub member_matrix: HashMap<(String, usize), (Option<i64>, bool)>,
    /// The struct members decorated `NonWritable`: (struct, member).
    pub non_writable_members: std::collections::HashSet<(String, usize)>,
}

/// The most components vkmm reads in a vector (SPIR-V allows 16).
pub const MAX_VECTOR: usize = 64;

/// The most elements an `OpTypeArray` may have: each element is a
/// location of its own, and every location enters the search.
const MAX_ARRAY: i64 = 4096;

/// The most rows (and columns) vkmm reads in a cooperative matrix.
pub const MAX_COOP_DIM: usize = 16;

fn as_i64(inst: &Inst, n: i128, i: usize) -> Result<i64, Located> {
    i64::try_from(n).or_else(|_| {
        // 64-bit unsigned literals: keep the bits.
        u64::try_from(n)
            .map(|u| u as i64)
            .map_err(|_| inst.err_at(i, format!("{}: literal {n} out of range", inst.name)))
    })
}

impl Module {
    pub fn ty(&self, id: &str) -> Option<&Ty> {
        self.types.get(id)
    }

    /// The width of an integer or float type; 64 (values kept as they
    /// are) for any other type.
    /// What a scalar cell of type `ty` holds, for a reader: a float, an
    /// unsigned or a signed integer of its width (a boolean as an unsigned
    /// integer).
    pub fn kind_of(&self, ty: &str) -> crate::ir::ValueKind {
        use crate::ir::ValueKind;
        let w = |b: u32| u8::try_from(b).unwrap_or(64);
        match self.ty(ty) {
            Some(Ty::Float { width }) => ValueKind::Float(w(*width)),
            Some(Ty::Int { width }) if self.unsigned.contains(ty) => ValueKind::Unsigned(w(*width)),
            Some(Ty::Int { width }) => ValueKind::Signed(w(*width)),
            Some(Ty::Bool) => ValueKind::Unsigned(w(8 * self.size_of(ty).unwrap_or(4) as u32)),
            _ => ValueKind::Signed(w(8 * self.size_of(ty).unwrap_or(8) as u32)),
        }
    }

    pub fn int_width(&self, ty: &str) -> u32 {
        match self.ty(ty) {
            Some(Ty::Int { width } | Ty::Float { width }) => *width,
            _ => 64,
        }
    }

    pub fn decoration(&self, id: &str, name: &str) -> Option<&[Tok]> {
        self.decorations
            .get(id)?
            .iter()
            .find(|(d, _)| d == name)
            .map(|(_, p)| p.as_slice())
    }

    pub fn int_decoration(&self, id: &str, name: &str) -> Option<i64> {
        match self.decoration(id, name)?.first()? {
            Tok::Int(n) => i64::try_from(*n).ok(),
            _ => None,
        }
    }

    /// The builtin a variable or constant is decorated with.
    pub fn builtin(&self, id: &str) -> Option<&str> {
        match self.decoration(id, "BuiltIn")?.first()? {
            Tok::Word(w) => Some(w),
            _ => None,
        }
    }

    /// The byte size of a type (`None` for runtime arrays and opaque types).
    pub fn size_of(&self, ty: &str) -> Option<i64> {
        Some(match self.ty(ty)? {
            Ty::Bool => 4,
            Ty::Int { width } => i64::from(*width / 8).max(1),
            Ty::Float { width } => i64::from(*width / 8).max(1),
            Ty::Vector { elem, n } => self.size_of(elem)? * *n as i64,
            Ty::Strided { stride, n, .. } => stride * *n as i64,
            Ty::Matrix { col, cols, layout } => match (layout, self.ty(col)) {
                (
                    Some(MatrixLayout {
                        stride,
                        row_major: true,
                    }),
                    Some(Ty::Vector { n, .. }),
                ) => stride * *n as i64,
                (Some(MatrixLayout { stride, .. }), _) => stride * *cols as i64,
                (None, _) => self.size_of(col)? * *cols as i64,
            },
            Ty::Array { elem, len } => self.stride(ty, elem)? * *len as i64,
            Ty::Struct { members } => {
                let mut end = 0;
                for (i, m) in members.iter().enumerate() {
                    end = self.member_offset(ty, i, end) + self.size_of(m)?;
                }
                end
            }
            Ty::Pointer { .. } => 8,
            // A matrix kept in a Function or Private variable: the one
            // component every element of a matrix of one known value
            // holds (`cells`).
            Ty::CoopMatrix { elem, .. } => self.size_of(elem)?,
            _ => return None,
        })
    }

    /// The stride of an array type's elements.
    pub fn stride(&self, array: &str, elem: &str) -> Option<i64> {
        self.int_decoration(array, "ArrayStride")
            .or_else(|| self.size_of(elem))
    }

    /// The offset of member `i` of a struct (its `Offset` decoration, or
    /// `natural`, the end of the previous member).
    pub fn member_offset(&self, st: &str, i: usize, natural: i64) -> i64 {
        self.member_offsets
            .get(&(st.to_string(), i))
            .copied()
            .unwrap_or(natural)
    }

    /// The member offsets of a struct.
    pub fn member_offsets(&self, st: &str, members: &[String]) -> Option<Vec<i64>> {
        let mut out = Vec::new();
        let mut end = 0;
        for (i, m) in members.iter().enumerate() {
            let off = self.member_offset(st, i, end);
            out.push(off);
            end = off + self.size_of(m).unwrap_or(0);
        }
        Some(out)
    }

    /// The scalar cells of a value of type `ty` at `offset`, with initial
    /// values from `init` (0 where it gives none). A runtime array has as
    /// many elements as its initial value lists (one without).
    pub fn cells(
        &self,
        ty: &str,
        offset: i64,
        path: &mut Vec<usize>,
        init: Option<&Init>,
        out: &mut Vec<Cell>,
    ) -> Result<(), String> {
        if path.len() > 32 {
            return Err("types nest too deeply".into());
        }
        if out.len() > MAX_LAYOUT {
            return Err(format!("more than {MAX_LAYOUT} scalar cells"));
        }
        let list = |n: Option<usize>| -> Result<Option<&Vec<Init>>, String> {
            match init {
                Some(Init::List(items)) => {
                    if n.is_some_and(|n| items.len() != n) {
                        return Err(format!(
                            "the initial value lists {} elements where the type has {}",
                            items.len(),
                            n.unwrap_or(0)
                        ));
                    }
                    Ok(Some(items))
                }
                Some(Init::Num(_)) => Err("a number where the type wants a list `{...}`".into()),
                None => Ok(None),
            }
        };
        fn item(items: Option<&Vec<Init>>, i: usize) -> Option<&Init> {
            items.and_then(|v| v.get(i))
        }
        match self.ty(ty) {
            Some(Ty::Bool | Ty::Int { .. } | Ty::Float { .. }) => {
                let value = match init {
                    None => 0,
                    Some(Init::Num(v)) => *v,
                    Some(Init::List(v)) => match v.as_slice() {
                        [Init::Num(x)] => *x,
                        _ => return Err("a list where the type wants a number".into()),
                    },
                };
                out.push(Cell {
                    offset,
                    size: self.size_of(ty).unwrap_or(4) as u32,
                    path: path.clone(),
                    init: wrap_const(value, self.int_width(ty)),
                    kind: self.kind_of(ty),
                });
            }
            Some(Ty::Vector { elem, n }) => {
                let items = list(Some(*n))?;
                let size = self.size_of(elem).ok_or("a vector of an opaque type")?;
                for i in 0..*n {
                    path.push(i);
                    self.cells(elem, offset + size * i as i64, path, item(items, i), out)?;
                    path.pop();
                }
            }
            Some(Ty::Strided { elem, n, stride }) => {
                let items = list(Some(*n))?;
                for i in 0..*n {
                    path.push(i);
                    self.cells(elem, offset + stride * i as i64, path, item(items, i), out)?;
                    path.pop();
                }
            }
            Some(Ty::Matrix { col, cols, layout }) => {
                // The cells in column order (`m[c][r]`), each at the
                // offset the layout gives it.
                let items = list(Some(*cols))?;
                let Some(Ty::Vector { elem, n }) = self.ty(col) else {
                    return Err("a matrix whose column is not a vector".into());
                };
                let size = self.size_of(elem).ok_or("a matrix of an opaque type")?;
                for c in 0..*cols {
                    let column = match item(items, c) {
                        Some(Init::List(v)) if v.len() == *n => Some(v),
                        Some(Init::List(v)) => {
                            return Err(format!(
                                "the initial value lists {} components where a column has {n}",
                                v.len()
                            ));
                        }
                        Some(Init::Num(_)) => {
                            return Err("a number where the type wants a column `{...}`".into());
                        }
                        None => None,
                    };
                    path.push(c);
                    for r in 0..*n {
                        let at = match layout {
                            Some(MatrixLayout {
                                stride,
                                row_major: true,
                            }) => stride * r as i64 + size * c as i64,
                            Some(MatrixLayout { stride, .. }) => {
                                stride * c as i64 + size * r as i64
                            }
                            None => size * (c * *n + r) as i64,
                        };
                        path.push(r);
                        self.cells(elem, offset + at, path, item(column, r), out)?;
                        path.pop();
                    }
                    path.pop();
                }
            }
            Some(Ty::Array { elem, len })
                if matches!(
                    self.ty(elem),
                    Some(Ty::Image { .. } | Ty::SampledImage { .. })
                ) =>
            {
                // An array of image descriptors (`image2D img[13]`): each
                // element an image of its own extent (its @Input), laid
                // out one after the other at the stride of the largest, so
                // that a runtime index is a multiple of one stride
                // (`lower/image.rs`, `Gen::image_array`).
                let items = list(Some(*len))?;
                let mut each = Vec::new();
                for i in 0..*len {
                    let mut cs = Vec::new();
                    path.push(i);
                    self.cells(elem, 0, path, item(items, i), &mut cs)?;
                    path.pop();
                    if out.len() + cs.len() > MAX_CELLS {
                        return Err(format!("more than {MAX_CELLS} scalar cells"));
                    }
                    each.push(cs);
                }
                let stride = each
                    .iter()
                    .flat_map(|cs| cs.iter().map(|c| c.offset + i64::from(c.size)))
                    .max()
                    .unwrap_or(0);
                for (i, cs) in each.into_iter().enumerate() {
                    out.extend(cs.into_iter().map(|mut c| {
                        c.offset += offset + stride * i as i64;
                        c
                    }));
                }
            }
            Some(Ty::Array { elem, len }) => {
                let items = list(Some(*len))?;
                let stride = self.stride(ty, elem).ok_or("an array of an opaque type")?;
                for i in 0..*len {
                    path.push(i);
                    self.cells(elem, offset + stride * i as i64, path, item(items, i), out)?;
                    path.pop();
                }
            }
            Some(Ty::RuntimeArray { elem }) => {
                let items = list(None)?;
                let len = runtime_array_len(items);
                let stride = self.stride(ty, elem).ok_or("an array of an opaque type")?;
                for i in 0..len {
                    path.push(i);
                    self.cells(elem, offset + stride * i as i64, path, item(items, i), out)?;
                    path.pop();
                }
            }
            Some(Ty::SampledImage { image }) => {
                // The texels of the image it samples.
                self.cells(image, offset, path, init, out)?;
            }
            Some(
                Ty::Image {
                    elem,
                    dims,
                    channels,
                    ..
                }
                | Ty::Tensor {
                    elem,
                    dims,
                    channels,
                    ..
                },
            ) => {
                // The extent is the @Input's: nested lists, one level per
                // coordinate (`%img[x][y]` for coordinate (x, y), a
                // tensor's outermost dimension first), each level's lists
                // equally long; a texel of several channels is a list of
                // its components (`%img[x][c]`); one texel without (a
                // shaped tensor: its Shape; a Cube image: six faces).
                let size = self.size_of(elem).ok_or("an image of an opaque type")?;
                let whole = self.ty(ty).ok_or("an unknown image type")?;
                let defaults = super::image::default_extents(whole);
                let mut extents = Vec::new();
                let mut level = init;
                for default in defaults.iter().take(*dims) {
                    match level {
                        Some(Init::List(v)) => {
                            extents.push(v.len().max(1));
                            level = v.first();
                        }
                        Some(Init::Num(_)) => {
                            return Err(format!(
                                "the @Input of a {dims}-coordinate image or tensor nests {dims} lists `{{{{...}}, ...}}`"
                            ));
                        }
                        None => {
                            extents.push(*default);
                            level = None;
                        }
                    }
                }
                super::image::check_extents(whole, ty, &extents)?;
                self.grid_cells(elem, size, *channels, &extents, offset, path, init, out)?;
            }
            Some(Ty::Struct { members }) => {
                let items = list(Some(members.len()))?;
                let offsets = self.member_offsets(ty, members).unwrap_or_default();
                for (i, m) in members.iter().enumerate() {
                    path.push(i);
                    self.cells(m, offset + offsets[i], path, item(items, i), out)?;
                    path.pop();
                }
            }
            Some(Ty::Pointer { .. }) => return Err("variables holding pointers".into()),
            Some(Ty::CoopMatrix { elem, .. }) => {
                // "Cooperative matrix types (or types containing them) can
                // only be allocated in Function or Private storage
                // classes", whose cells are the invocation's registers: a
                // matrix is one cell of its component type. "The mapping
                // of components to invocations and indexes is
                // implementation-dependent", so vkmm computes a matrix
                // only while all its components hold one value (a
                // constant, `OpCompositeConstruct` of one value, arithmetic
                // on those); any other matrix is a value it does not
                // compute (`sampled.rs`), whatever this cell holds.
                self.cells(elem, offset, path, init, out)?;
            }
            Some(t) => return Err(format!("variables of type {t:?}")),
            None => return Err(format!("unknown type `%{ty}`")),
        }
        Ok(())
    }

    /// The cells of a grid of texels or tensor elements with `extents`
    /// (row-major: the last coordinate varies fastest), each texel
    /// `channels` scalars of type `elem` (`size` bytes each).
    #[allow(clippy::too_many_arguments)]
    fn grid_cells(
        &self,
        elem: &str,
        size: i64,
        channels: usize,
        extents: &[usize],
        offset: i64,
        path: &mut Vec<usize>,
        init: Option<&Init>,
        out: &mut Vec<Cell>,
    ) -> Result<(), String> {
        let Some((&n, rest)) = extents.split_first() else {
            if channels == 1 {
                let init = match init {
                    Some(Init::List(v)) if v.len() == 1 => v.first(),
                    Some(Init::List(_)) => {
                        return Err("a texel of one channel is a number".into());
                    }
                    other => other,
                };
                return self.cells(elem, offset, path, init, out);
            }
            let items = match init {
                None => None,
                Some(Init::List(v)) if v.len() == channels => Some(v),
                Some(_) => {
                    return Err(format!(
                        "a texel of {channels} channels is a list of {channels} numbers"
                    ));
                }
            };
            for c in 0..channels {
                path.push(c);
                let item = items.and_then(|v| v.get(c));
                self.cells(elem, offset + size * c as i64, path, item, out)?;
                path.pop();
            }
            return Ok(());
        };
        let items = match init {
            None => None,
            Some(Init::List(v)) if v.len() == n => Some(v),
            Some(Init::List(v)) => {
                return Err(format!(
                    "the lists of one level of an image's or tensor's @Input have one length: {} and {n}",
                    v.len()
                ));
            }
            Some(Init::Num(_)) => {
                return Err("a number where the image or tensor wants a list `{...}`".into());
            }
        };
        let stride = size * channels as i64 * rest.iter().product::<usize>() as i64;
        for i in 0..n {
            path.push(i);
            let item = items.and_then(|v| v.get(i));
            self.grid_cells(
                elem,
                size,
                channels,
                rest,
                offset + stride * i as i64,
                path,
                item,
                out,
            )?;
            path.pop();
        }
        Ok(())
    }

    /// The scalar leaves of a value of type `ty`: (byte offset, size).
    pub fn leaves(&self, ty: &str, offset: i64, out: &mut Vec<(i64, u32)>) -> Result<(), String> {
        let mut cells = Vec::new();
        if matches!(self.ty(ty), Some(Ty::RuntimeArray { .. })) {
            return Err("a load or store of a whole runtime array".into());
        }
        self.cells(ty, offset, &mut Vec::new(), None, &mut cells)?;
        out.extend(cells.iter().map(|c| (c.offset, c.size)));
        Ok(())
    }

    /// `OpTypeCooperativeMatrixKHR Component Scope Rows Columns Use`: "Declare
    /// a new cooperative matrix type with 'Rows' rows and 'Columns'
    /// columns, where all invocations in 'Scope' cooperate to compute and
    /// store the matrix" (SPV_KHR_cooperative_matrix). The Vulkan appendix
    /// speaks of "the matrix's scope" instance: vkmm reads Subgroup and
    /// Workgroup, as the litmus dialect's `cmld.sg` / `cmld.wg`.
    fn coop_matrix(&self, inst: &Inst) -> Result<Ty, Located> {
        let int = |i: usize, what: &str| -> Result<i64, Located> {
            match self.consts.get(inst.id(i)?) {
                Some(CVal::Int(n)) => Ok(*n),
                _ => Err(inst.err_at(
                    i,
                    format!("OpTypeCooperativeMatrixKHR: '{what}' must be a constant instruction with scalar 32-bit integer type"),
                )),
            }
        };
        let scope = int(1, "Scope")?;
        if scope != 2 && scope != 3 {
            return Err(inst.err_at(
                1,
                format!("the matrix's scope is Subgroup (3) or Workgroup (2), not {scope}: the instance of the matrix's scope is a subgroup or a workgroup"),
            ));
        }
        let dim = |i: usize, what: &str| -> Result<usize, Located> {
            usize::try_from(int(i, what)?)
                .ok()
                .filter(|n| (1..=MAX_COOP_DIM).contains(n))
                .ok_or_else(|| {
                    inst.err_at(
                        i,
                        format!("a cooperative matrix has 1 to {MAX_COOP_DIM} {what} (vkmm makes one access per element)"),
                    )
                })
        };
        Ok(Ty::CoopMatrix {
            elem: inst.id(0)?.to_string(),
            scope,
            rows: dim(2, "Rows")?,
            cols: dim(3, "Columns")?,
        })
    }

    /// Reads the declarations. `grid` sizes the workgroup.
    /// `spec` overrides spec constants (an `@Input` naming one).
    pub fn read(
        insts: &[Inst],
        grid: Grid,
        spec: &HashMap<String, i64>,
        entry: Option<&str>,
    ) -> Result<Module, Located> {
        let mut m = Module {
            wanted_entry: entry.map(str::to_string),
            local: grid.local.map(|d| i64::try_from(d).unwrap_or(1)),
            ..Module::default()
        };
        // The cell types of converted image formats (`image::Stored`).
        m.types
            .insert(super::image::HALF.into(), Ty::Float { width: 16 });
        m.types
            .insert(super::image::U8.into(), Ty::Int { width: 8 });
        m.types
            .insert(super::image::U16.into(), Ty::Int { width: 16 });
        m.types
            .insert(super::image::I8.into(), Ty::Int { width: 8 });
        m.types
            .insert(super::image::I16.into(), Ty::Int { width: 16 });
        m.unsigned.insert(super::image::U8.into());
        m.unsigned.insert(super::image::U16.into());
        // Decorations and reflection first: constants need SpecIds and BuiltIns.
        for inst in insts {
            match inst.op {
                Op::Decorate => {
                    let id = inst.id(0)?.to_string();
                    let deco = inst.word(1)?.to_string();
                    let params = inst.operands[2..].iter().map(|o| o.tok.clone()).collect();
                    m.decorations.entry(id).or_default().push((deco, params));
                }
                Op::MemberDecorate
                    if matches!(inst.word(2)?, "MatrixStride" | "RowMajor" | "ColMajor") =>
                {
                    let st = inst.id(0)?.to_string();
                    let member = usize::try_from(inst.int(1)?)
                        .map_err(|_| inst.err_at(1, "bad member index".into()))?;
                    let entry = m.member_matrix.entry((st, member)).or_default();
                    match inst.word(2)? {
                        "MatrixStride" => {
                            let stride = inst.int(3)?;
                            entry.0 = Some(
                                i64::try_from(stride)
                                    .ok()
                                    .filter(|s| (1..=1 << 16).contains(s))
                                    .ok_or_else(|| {
                                        inst.err_at(
                                            3,
                                            "MatrixStride: expected a stride from 1 to 65536 bytes"
                                                .into(),
                                        )
                                    })?,
                            );
                        }
                        "RowMajor" => entry.1 = true,
                        _ => entry.1 = false,
                    }
                }
                Op::MemberDecorate if inst.word(2)? == "NonWritable" => {
                    let st = inst.id(0)?.to_string();
                    let member = usize::try_from(inst.int(1)?)
                        .map_err(|_| inst.err_at(1, "bad member index".into()))?;
                    m.non_writable_members.insert((st, member));
                }
                Op::MemberDecorate if inst.word(2)? == "Offset" => {
                    let st = inst.id(0)?.to_string();
                    let member = inst.int(1)?;
                    let off = inst.int(3)?;
                    let member = usize::try_from(member)
                        .map_err(|_| inst.err_at(1, "bad member index".into()))?;
                    m.member_offsets.insert((st, member), as_i64(inst, off, 3)?);
                }
                Op::ExtInstImport => {
                    let name = match inst.operands.first().map(|o| &o.tok) {
                        Some(Tok::Str(s)) => s.clone(),
                        _ => String::new(),
                    };
                    m.ext_sets.insert(inst.result_id()?.to_string(), name);
                }
                _ => {}
            }
        }
        // clspv's `SpecConstantWorkgroupSize` comes after the functions,
        // but the spec constants it names are declared before them: read
        // it first (its operands are plain `OpConstant`s).
        for inst in insts {
            if inst.op == Op::ExtInst
                && inst.word(2).ok() == Some("SpecConstantWorkgroupSize")
                && inst.id(1).ok().is_some_and(|set| {
                    m.ext_sets
                        .get(set)
                        .is_some_and(|s| s.starts_with("NonSemantic.ClspvReflection"))
                })
            {
                let literal = |i: usize| -> Result<i64, Located> {
                    let id = inst.id(i)?;
                    insts
                        .iter()
                        .find(|c| {
                            c.op == Op::Constant && c.result.as_ref().is_some_and(|(r, _)| r == id)
                        })
                        .and_then(|c| c.int(1).ok())
                        .and_then(|n| i64::try_from(n).ok())
                        .ok_or_else(|| {
                            inst.err_at(
                                i,
                                "SpecConstantWorkgroupSize: expected an integer constant".into(),
                            )
                        })
                };
                m.workgroup_size_spec_ids = Some([literal(3)?, literal(4)?, literal(5)?]);
            }
        }
        let wg = i64::try_from(grid.workgroup_size()).unwrap_or(1);
        let nwg = i64::try_from(grid.workgroups).unwrap_or(1);
        let mut in_function: Option<(String, usize, Vec<String>)> = None;
        for (k, inst) in insts.iter().enumerate() {
            // The request's bounds, now and then and before the table of
            // result types grows (the module is still being read).
            let stop = if k % 4096 == 4095 {
                crate::frontend::clock::bound_reached()
            } else {
                None
            };
            if let Some(why) =
                stop.or_else(|| crate::frontend::clock::room_for_one_more(&m.result_types))
            {
                return Err((inst.line, inst.col, why.into()));
            }
            if let (Some((r, _)), Some(Tok::Id(t))) =
                (&inst.result, inst.operands.first().map(|o| &o.tok))
                && has_result_type(inst.op)
            {
                m.result_types.insert(r.clone(), t.clone());
            }
            if let Some((_, _, params)) = &mut in_function {
                match inst.op {
                    Op::FunctionParameter => params.push(inst.result_id()?.to_string()),
                    Op::FunctionEnd => {
                        if let Some((id, start, params)) = in_function.take() {
                            branch_targets_defined(&insts[start..k + 1])?;
                            m.functions.insert(
                                id,
                                Function {
                                    params,
                                    body: start..k + 1,
                                },
                            );
                        }
                    }
                    Op::Function => {
                        return Err(inst.err(
                            "OpFunction inside a function: expected OpFunctionEnd first".into(),
                        ));
                    }
                    _ => {}
                }
                continue;
            }
            m.declaration(inst, k, &mut in_function, wg, nwg)?;
            if let Some((r, _)) = &inst.result
                && let Some(v) = spec.get(r)
                && matches!(
                    inst.op,
                    Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
                )
            {
                let width = m.int_width(inst.id(0)?);
                m.consts.insert(r.clone(), CVal::Int(wrap_const(*v, width)));
            }
        }
        if let Some((id, start, _)) = in_function {
            let inst = &insts[start];
            return Err(inst.err(format!("function `%{id}` has no OpFunctionEnd")));
        }
        Ok(m)
    }

    fn declaration(
        &mut self,
        inst: &Inst,
        k: usize,
        in_function: &mut Option<(String, usize, Vec<String>)>,
        wg: i64,
        nwg: i64,
    ) -> Result<(), Located> {
        let result = inst.result.as_ref().map(|(r, _)| r.clone());
        let id_of = |i: usize| inst.id(i).map(str::to_string);
        let ty = match inst.op {
            Op::TypeVoid => Some(Ty::Void),
            Op::TypeBool => Some(Ty::Bool),
            Op::TypeInt => {
                if inst.int(1).is_ok_and(|signed| signed == 0)
                    && let Some(r) = &result
                {
                    self.unsigned.insert(r.clone());
                }
                Some(Ty::Int {
                    width: u32::try_from(inst.int(0)?).unwrap_or(32),
                })
            }
            Op::TypeFloat => {
                let width = inst.int(0)?;
                if !matches!(width, 16 | 32 | 64) || inst.operands.len() > 1 {
                    return Err(unsupported(
                        inst,
                        "vkmm reads IEEE-754 floats of 16, 32 or 64 bits (no other width or encoding)",
                    ));
                }
                Some(Ty::Float {
                    width: width as u32,
                })
            }
            // OpTypeVector: "Component Count is the number of components.
            // It must be at least 2" (8 and 16 with the Vector16
            // capability). Dat3M's corpus declares vectors of 1 and 24
            // components, whose meaning is plain (that many components,
            // packed): read, with a warning (`odd_vectors` in mod.rs).
            Op::TypeVector => Some(Ty::Vector {
                elem: id_of(0)?,
                n: usize::try_from(inst.int(1)?)
                    .ok()
                    .filter(|n| (1..=MAX_VECTOR).contains(n))
                    .ok_or_else(|| {
                        inst.err_at(
                            1,
                            format!("a vector has 1 to {MAX_VECTOR} components (SPIR-V: 2, 3, 4, 8 or 16)"),
                        )
                    })?,
            }),
            Op::TypeArray => {
                let len = match self.consts.get(inst.id(1)?) {
                    Some(CVal::Int(n)) if (0..=MAX_ARRAY).contains(n) => *n as usize,
                    Some(CVal::Int(n)) => {
                        return Err(inst.err_at(
                            1,
                            format!(
                                "an array of {n} elements: vkmm checks arrays of at most {MAX_ARRAY} elements (each element is a location of its own); where a size constant gives the length, check the shader with a smaller one: `--set NAME=N` replaces a `#define`, a WGSL `const` or `override`, a specialization constant"
                            ),
                        ));
                    }
                    _ => {
                        return Err(inst.err_at(
                            1,
                            format!("array length: expected an integer constant between 0 and {MAX_ARRAY}"),
                        ));
                    }
                };
                Some(Ty::Array {
                    elem: id_of(0)?,
                    len,
                })
            }
            Op::TypeRuntimeArray => Some(Ty::RuntimeArray { elem: id_of(0)? }),
            Op::TypeStruct => {
                let st = inst.result_id()?.to_string();
                let mut members: Vec<String> = (0..inst.operands.len())
                    .map(id_of)
                    .collect::<Result<_, _>>()?;
                for (k, member) in members.iter_mut().enumerate() {
                    if let Some(&(stride, row_major)) = self.member_matrix.get(&(st.clone(), k)) {
                        *member = self
                            .lay_out(member, stride, row_major, 0)
                            .map_err(|e| inst.err_at(k, e))?;
                    }
                }
                Some(Ty::Struct { members })
            }
            // OpTypeMatrix: "Column Type is the type of each column in the
            // matrix. It must be vector type. Column Count is the number
            // of columns in the new matrix type. It must be at least 2."
            Op::TypeMatrix => {
                let col = id_of(0)?;
                if !matches!(self.ty(&col), Some(Ty::Vector { elem, .. }) if matches!(self.ty(elem), Some(Ty::Float { .. })))
                {
                    return Err(inst.err_at(
                        0,
                        "OpTypeMatrix: 'Column Type' must be a vector of floats".into(),
                    ));
                }
                let cols = usize::try_from(inst.int(1)?)
                    .ok()
                    .filter(|n| (2..=MAX_VECTOR).contains(n))
                    .ok_or_else(|| {
                        inst.err_at(
                            1,
                            format!("OpTypeMatrix: 'Column Count' must be 2 to {MAX_VECTOR} (SPIR-V: at least 2)"),
                        )
                    })?;
                Some(Ty::Matrix {
                    col,
                    cols,
                    layout: None,
                })
            }
            Op::TypePointer => {
                let name = inst.word(0)?;
                Some(Ty::Pointer {
                    class: class_of(name),
                    pointee: id_of(1)?,
                })
            }
            Op::TypeFunction => Some(Ty::Function),
            Op::TypeCooperativeMatrixKHR => Some(self.coop_matrix(inst)?),
            // A storage image, or an image of integer or 32-bit float
            // texels: vkmm's to read (or refuse with the reason); another
            // image for sampling stays opaque (refused where used).
            Op::TypeImage
                if inst.int(5).ok() == Some(2)
                    || matches!(
                        self.ty(inst.id(0)?),
                        Some(Ty::Int { .. } | Ty::Float { width: 32 })
                    ) =>
            {
                Some(super::image::image_type(inst, self.ty(inst.id(0)?))?)
            }
            Op::TypeSampledImage => Some(sampled_image_type(inst, self)?),
            Op::TypeTensorARM => Some(tensor_type(inst, self)?),
            Op::TypeImage
            | Op::TypeSampler
            | Op::TypeOpaque
            | Op::TypeEvent
            | Op::TypeAccelerationStructureKHR => Some(Ty::Other(inst.name.clone())),
            _ => None,
        };
        if let Some(ty) = ty {
            self.types.insert(inst.result_id()?.to_string(), ty);
            return Ok(());
        }
        match inst.op {
            Op::Constant | Op::SpecConstant => {
                let r = inst.result_id()?.to_string();
                let float = match self.ty(inst.id(0)?) {
                    Some(Ty::Float { width }) => Some(*width as u8),
                    _ => None,
                };
                let mut v = match (inst.operands.get(1).map(|o| &o.tok), float) {
                    // A float literal (decimal or hexadecimal, as spirv-as
                    // reads it: `1` for a float type is 1.0), its bits
                    // rounded to nearest even at the type's width.
                    (Some(Tok::Int(n)), Some(w)) => CVal::Int(
                        crate::ir::numeric::parse_float(&n.to_string(), w).ok_or_else(|| {
                            inst.err_at(1, format!("{}: expected a float literal", inst.name))
                        })?,
                    ),
                    (Some(Tok::Float(text)), Some(w)) => {
                        CVal::Int(crate::ir::numeric::parse_float(text, w).ok_or_else(|| {
                            inst.err_at(
                                1,
                                format!("{}: `{text}` is not a float literal", inst.name),
                            )
                        })?)
                    }
                    (Some(Tok::Int(n)), None) => CVal::Int(as_i64(inst, *n, 1)?),
                    (Some(Tok::Float(_)), None) => {
                        return Err(inst.err_at(
                            1,
                            format!(
                                "{}: a float literal for a type that is not a float",
                                inst.name
                            ),
                        ));
                    }
                    _ => return Err(inst.err_at(1, format!("{}: expected a number", inst.name))),
                };
                // A spec constant keeps its default (SPIR-V, OpSpecConstant:
                // "Value is the bit pattern for the default value") unless
                // something specializes it: an @Input (applied by the
                // caller), or clspv's reflection naming its SpecId as a
                // workgroup-size id (`SpecConstantWorkgroupSize`: the
                // runtime sets it to the workgroup size). A SpecId alone
                // means nothing more: without that reflection, ids 0, 1, 2
                // are ordinary spec ids (basic/spec-id-integer).
                if inst.op == Op::SpecConstant
                    && let Some(ids) = self.workgroup_size_spec_ids
                    && let Some(spec) = self.int_decoration(&r, "SpecId")
                    && let Some(d) = ids.iter().position(|&i| i == spec)
                {
                    v = CVal::Int(self.local[d]);
                }
                // The literal's bits at the type's width, read as signed
                // (`OpConstant %uint 4294967295` is -1: docs/format-spirv.md,
                // "Integer values").
                if let CVal::Int(x) = v {
                    v = CVal::Int(wrap_const(x, self.int_width(inst.id(0)?)));
                }
                self.consts.insert(r, v);
            }
            Op::ConstantTrue | Op::SpecConstantTrue => {
                self.consts
                    .insert(inst.result_id()?.to_string(), CVal::Int(1));
            }
            Op::ConstantFalse | Op::SpecConstantFalse => {
                self.consts
                    .insert(inst.result_id()?.to_string(), CVal::Int(0));
            }
            Op::ConstantComposite
            | Op::SpecConstantComposite
            | Op::ConstantCompositeReplicateEXT => {
                let r = inst.result_id()?.to_string();
                let mut items = Vec::new();
                for i in 1..inst.operands.len() {
                    let id = inst.id(i)?;
                    let v = self.consts.get(id).cloned().ok_or_else(|| {
                        inst.err_at(
                            i,
                            format!("`%{id}` is not a constant defined before this line"),
                        )
                    })?;
                    items.push(v);
                }
                let v = if self.builtin(&r) == Some("WorkgroupSize") {
                    CVal::Comp(self.local.iter().map(|&d| CVal::Int(d)).collect())
                } else {
                    CVal::Comp(items)
                };
                self.consts.insert(r, v);
            }
            Op::ConstantNull => {
                let r = inst.result_id()?.to_string();
                let v = self.null_of(inst.id(0)?);
                self.consts.insert(r, v);
            }
            Op::Undef => {
                self.consts
                    .insert(inst.result_id()?.to_string(), CVal::Undef);
            }
            Op::SpecConstantOp => {
                let r = inst.result_id()?.to_string();
                let mut v = self.spec_op(inst)?;
                if let CVal::Int(x) = v {
                    v = CVal::Int(wrap_const(x, self.int_width(inst.id(0)?)));
                }
                self.consts.insert(r, v);
            }
            Op::Variable => {
                let r = inst.result_id()?.to_string();
                let Some(Ty::Pointer { class, pointee }) = self.ty(inst.id(0)?).cloned() else {
                    return Err(inst.err_at(0, "OpVariable: expected a pointer type".into()));
                };
                let init = if inst.operands.len() > 2 {
                    Some(inst.id(2)?.to_string())
                } else {
                    None
                };
                // An acceleration structure is an opaque handle: only
                // OpTraceRayKHR uses it, and vkmm does not read it
                // (docs/format-spirv.md, "Shader calls").
                let class = match self.ty(&pointee) {
                    Some(Ty::Other(t)) if t == "OpTypeAccelerationStructureKHR" => Class::Other,
                    // A sampler holds no memory the model knows: its
                    // filtering state is not a memory location.
                    Some(Ty::Other(t)) if t == "OpTypeSampler" => Class::Other,
                    Some(Ty::Image { .. } | Ty::SampledImage { .. } | Ty::Tensor { .. }) => {
                        Class::Image
                    }
                    // An array of image descriptors: its elements' texels.
                    Some(Ty::Array { elem, .. })
                        if matches!(
                            self.ty(elem),
                            Some(Ty::Image { .. } | Ty::SampledImage { .. })
                        ) =>
                    {
                        Class::Image
                    }
                    _ => class,
                };
                self.globals.push(Global {
                    id: r,
                    class,
                    class_name: inst.word(1)?.to_string(),
                    pointee,
                    init,
                    line: inst.line,
                    col: inst.col,
                });
            }
            Op::Function => {
                *in_function = Some((inst.result_id()?.to_string(), k, Vec::new()));
            }
            Op::EntryPoint => {
                let f = inst.id(1)?.to_string();
                let col = inst.operands[1].col;
                let name = match inst.operands.get(2).map(|o| &o.tok) {
                    Some(Tok::Str(s)) => s.clone(),
                    _ => String::new(),
                };
                // `--entry NAME`, else the module's first compute entry
                // point (GLCompute or Kernel: what a shader file is checked
                // for, as SPIRV-Cross's test modules put a fragment entry
                // beside it), else its first entry point (`@Shaders` then
                // says which invocation runs which).
                let chosen = self.wanted_entry.as_ref().is_none_or(|w| *w == name);
                let compute = |model: &str| model == "GLCompute" || model == "Kernel";
                let current_is_compute = self.entry.as_ref().is_some_and(|(g, _, _)| {
                    self.entries.iter().any(|e| e.1 == *g && compute(&e.0))
                });
                let better =
                    self.wanted_entry.is_none() && compute(inst.word(0)?) && !current_is_compute;
                if chosen && (self.entry.is_none() || better) {
                    self.entry = Some((f.clone(), inst.line, col));
                }
                self.entry_names.push(name);
                self.entries
                    .push((inst.word(0)?.to_string(), f, inst.line, col));
            }
            Op::ExtInst => self.reflection(inst, wg, nwg)?,
            Op::Label
            | Op::Load
            | Op::Store
            | Op::Branch
            | Op::BranchConditional
            | Op::Return
            | Op::ReturnValue
            | Op::FunctionParameter
            | Op::FunctionEnd => {
                return Err(inst.err(format!("{} outside a function", inst.name)));
            }
            _ => {}
        }
        let _ = result;
        Ok(())
    }

    /// The type a struct member of type `ty` decorated with a matrix
    /// layout has: `ty` itself unless it is a matrix or an array whose
    /// most basic element is a matrix ("MatrixStride ... Only valid on a
    /// matrix or array whose most basic element is a matrix"); then a
    /// copy of it, `ty#cmSTRIDE` or `ty#rmSTRIDE`, whose matrices carry
    /// the layout (an array's copy keeps its `ArrayStride`). Without a
    /// `MatrixStride`, the layout packs the columns (rows for `RowMajor`).
    fn lay_out(
        &mut self,
        ty: &str,
        stride: Option<i64>,
        row_major: bool,
        depth: usize,
    ) -> Result<String, String> {
        if depth > 32 {
            return Err("types nest too deeply".into());
        }
        let tag = |s: i64| format!("{ty}#{}m{s}", if row_major { 'r' } else { 'c' });
        match self.ty(ty).cloned() {
            Some(Ty::Matrix { col, cols, .. }) => {
                let Some(Ty::Vector { elem, n }) = self.ty(&col).cloned() else {
                    return Err("a matrix whose column is not a vector".into());
                };
                let size = self.size_of(&elem).unwrap_or(4);
                let stride = stride.unwrap_or(if row_major {
                    size * cols as i64
                } else {
                    size * n as i64
                });
                let id = tag(stride);
                if row_major {
                    // A column of a row-major matrix: its components a
                    // row's stride apart.
                    self.types
                        .insert(format!("{col}#s{stride}"), Ty::Strided { elem, n, stride });
                }
                self.types.insert(
                    id.clone(),
                    Ty::Matrix {
                        col,
                        cols,
                        layout: Some(MatrixLayout { stride, row_major }),
                    },
                );
                Ok(id)
            }
            Some(Ty::Array { elem, len }) => {
                let inner = self.lay_out(&elem, stride, row_major, depth + 1)?;
                let id = tag(stride.unwrap_or(0));
                self.copy_decorations(ty, &id);
                self.types
                    .insert(id.clone(), Ty::Array { elem: inner, len });
                Ok(id)
            }
            Some(Ty::RuntimeArray { elem }) => {
                let inner = self.lay_out(&elem, stride, row_major, depth + 1)?;
                let id = tag(stride.unwrap_or(0));
                self.copy_decorations(ty, &id);
                self.types
                    .insert(id.clone(), Ty::RuntimeArray { elem: inner });
                Ok(id)
            }
            _ => Ok(ty.to_string()),
        }
    }

    fn copy_decorations(&mut self, from: &str, to: &str) {
        if let Some(d) = self.decorations.get(from).cloned() {
            self.decorations.insert(to.to_string(), d);
        }
    }

    /// The type whose layout a load through a pointer to `pointee` of a
    /// value of type `ty` reads: `pointee` where it is `ty` laid out as a
    /// struct member's matrix decorations say (`ty#...`), `ty` otherwise.
    pub fn laid_out<'t>(&self, pointee: &'t str, ty: &'t str) -> &'t str {
        match pointee.split_once('#') {
            Some((base, _)) if base == ty => pointee,
            _ => ty,
        }
    }

    /// The value of OpConstantNull of a type: "The null value is zero"
    /// for scalars, and for composites "each component ... is the null
    /// value of its type" (SPIR-V, OpConstantNull), spelled out component
    /// by component so that a store of it (naga's zero-initialisation of
    /// a workgroup array, `OpStore %var %null`) writes every cell. A type
    /// of more than [`MAX_NULL_LEAVES`] scalars stays one zero, which
    /// initialises a variable but is no value a store can take.
    fn null_of(&self, ty: &str) -> CVal {
        if self.scalar_count(ty) > MAX_NULL_LEAVES {
            return CVal::Int(0);
        }
        match self.ty(ty) {
            Some(Ty::Matrix { col, cols, .. }) => CVal::Comp(vec![self.null_of(col); *cols]),
            Some(Ty::Vector { elem, n }) | Some(Ty::Array { elem, len: n }) => {
                CVal::Comp(vec![self.null_of(elem); *n])
            }
            Some(Ty::Struct { members }) => {
                CVal::Comp(members.iter().map(|m| self.null_of(m)).collect())
            }
            _ => CVal::Int(0),
        }
    }

    /// How many scalars a value of a type holds (saturating; 1 for a
    /// scalar or a type without components).
    fn scalar_count(&self, ty: &str) -> usize {
        match self.ty(ty) {
            Some(Ty::Matrix { col, cols, .. }) => self.scalar_count(col).saturating_mul(*cols),
            Some(Ty::Vector { elem, n }) | Some(Ty::Array { elem, len: n }) => {
                self.scalar_count(elem).saturating_mul(*n)
            }
            Some(Ty::Struct { members }) => members
                .iter()
                .fold(0usize, |a, m| a.saturating_add(self.scalar_count(m))),
            _ => 1,
        }
    }

    /// The bit width of a scalar type or of a vector's components (32
    /// for booleans and anything else).
    pub fn scalar_width(&self, ty: &str) -> u32 {
        match self.ty(ty) {
            Some(Ty::Int { width } | Ty::Float { width }) => *width,
            Some(Ty::Vector { elem, .. } | Ty::Strided { elem, .. }) => self.scalar_width(elem),
            Some(Ty::Matrix { col, .. }) => self.scalar_width(col),
            _ => 32,
        }
    }

    /// OpSpecConstantOp: "Declare a new specialization constant that
    /// results from doing an operation": the operations the SPIR-V
    /// specification lists for it (integer arithmetic, bitwise, logical
    /// and comparison operations, select, composite extract and insert,
    /// vector shuffle, SConvert/UConvert/FConvert, QuantizeToF16, and the
    /// Kernel ones on floats: conversions, FNegate, FAdd, FSub, FMul,
    /// FDiv, FRem, FMod), folded component-wise over the constants'
    /// values (spec constants at their defaults or `@Input`).
    fn spec_op(&self, inst: &Inst) -> Result<CVal, Located> {
        use crate::ir::numeric::{Conv, FBin, FUn, NumOp, zext};
        use crate::ir::{ArithOp, Cmp};
        let opname = inst.word(1).map(str::to_string).or_else(|_| {
            inst.int(1).map(|n| {
                ::spirv::Op::from_u32(n as u32)
                    .map(|o| format!("{o:?}"))
                    .unwrap_or_default()
            })
        })?;
        let get = |i: usize| -> Result<CVal, Located> {
            let id = inst.id(i)?;
            self.consts.get(id).cloned().ok_or_else(|| {
                inst.err_at(
                    i,
                    format!("`%{id}` is not a constant defined before this line"),
                )
            })
        };
        let width_of = |i: usize| -> u32 {
            inst.id(i)
                .ok()
                .and_then(|id| self.result_types.get(id))
                .map_or(32, |t| self.scalar_width(t))
        };
        let rw = self.scalar_width(inst.id(0)?);
        let wrap = |v: i64| wrap_const(v, rw);
        let index = |i: usize| -> Result<usize, Located> {
            usize::try_from(inst.int(i)?).map_err(|_| inst.err_at(i, "expected an index".into()))
        };
        match opname.as_str() {
            "CompositeExtract" => {
                let mut v = get(2)?;
                for i in 3..inst.operands.len() {
                    let k = index(i)?;
                    v = match v {
                        CVal::Comp(items) => items.get(k).cloned().unwrap_or(CVal::Undef),
                        _ => CVal::Undef,
                    };
                }
                return Ok(v);
            }
            "CompositeInsert" => {
                let obj = get(2)?;
                let mut comp = get(3)?;
                let mut slot = &mut comp;
                for i in 4..inst.operands.len() {
                    let k = index(i)?;
                    slot = match slot {
                        CVal::Comp(items) if k < items.len() => &mut items[k],
                        _ => return Err(inst.err_at(i, format!("index {k} out of range"))),
                    };
                }
                *slot = obj;
                return Ok(comp);
            }
            "VectorShuffle" => {
                let (a, b) = (get(2)?, get(3)?);
                let items = |v: &CVal| match v {
                    CVal::Comp(xs) => xs.clone(),
                    other => vec![other.clone()],
                };
                let (xa, xb) = (items(&a), items(&b));
                let mut out = Vec::new();
                for i in 4..inst.operands.len() {
                    let k = inst.int(i)?;
                    out.push(if k == 0xFFFF_FFFF {
                        CVal::Undef
                    } else {
                        let k = k as usize;
                        xa.get(k)
                            .or_else(|| xb.get(k.wrapping_sub(xa.len())))
                            .cloned()
                            .ok_or_else(|| inst.err_at(i, format!("component {k} out of range")))?
                    });
                }
                return Ok(CVal::Comp(out));
            }
            "Select" => {
                let (c, a, b) = (get(2)?, get(3)?, get(4)?);
                return Ok(match (c, a, b) {
                    (CVal::Comp(cs), CVal::Comp(xs), CVal::Comp(ys)) => CVal::Comp(
                        cs.into_iter()
                            .zip(xs.into_iter().zip(ys))
                            .map(|(c, (x, y))| if c == CVal::Int(0) { y } else { x })
                            .collect(),
                    ),
                    (c, x, y) => {
                        if c == CVal::Int(0) {
                            y
                        } else {
                            x
                        }
                    }
                });
            }
            _ => {}
        }
        let w1 = width_of(2);
        let w1u = w1.min(64) as u8;
        let rwu = rw.min(64) as u8;
        let un: Option<Box<dyn Fn(i64) -> i64>> = match opname.as_str() {
            "SNegate" => Some(Box::new(move |a: i64| wrap(a.wrapping_neg()))),
            "Not" => Some(Box::new(move |a: i64| wrap(!a))),
            "LogicalNot" => Some(Box::new(|a: i64| i64::from(a == 0))),
            // The value is already sign-extended (signed reading).
            "SConvert" => Some(Box::new(wrap)),
            "UConvert" => Some(Box::new(move |a: i64| wrap(zext(a, w1u) as i64))),
            "Bitcast" => Some(Box::new(wrap)),
            "FConvert" => Some(Box::new(move |a| {
                NumOp::Conv(Conv::FConvert { from: w1u, to: rwu }).apply(a, 0)
            })),
            "ConvertFToS" => Some(Box::new(move |a| {
                NumOp::Conv(Conv::FToS { from: w1u, to: rwu }).apply(a, 0)
            })),
            "ConvertFToU" => Some(Box::new(move |a| {
                NumOp::Conv(Conv::FToU { from: w1u, to: rwu }).apply(a, 0)
            })),
            "ConvertSToF" => Some(Box::new(move |a| {
                NumOp::Conv(Conv::SToF { from: w1u, to: rwu }).apply(a, 0)
            })),
            "ConvertUToF" => Some(Box::new(move |a| {
                NumOp::Conv(Conv::UToF { from: w1u, to: rwu }).apply(a, 0)
            })),
            "QuantizeToF16" => Some(Box::new(|a| NumOp::FUn(FUn::QuantizeToF16, 32).apply(a, 0))),
            "FNegate" => Some(Box::new(move |a| NumOp::FUn(FUn::Neg, rwu).apply(a, 0))),
            _ => None,
        };
        if let Some(f) = un {
            return Ok(map1(&get(2)?, &*f));
        }
        let arith = |op: ArithOp| -> Box<dyn Fn(i64, i64) -> i64> {
            Box::new(move |a, b| wrap(op.apply(a, b)))
        };
        let uarith = |op: ArithOp| -> Box<dyn Fn(i64, i64) -> i64> {
            Box::new(move |a, b| wrap(op.apply(zext(a, w1u) as i64, zext(b, w1u) as i64)))
        };
        let scmp = |c: Cmp| -> Box<dyn Fn(i64, i64) -> i64> {
            Box::new(move |a, b| i64::from(c.holds(a, b)))
        };
        let ucmp = |c: Cmp| -> Box<dyn Fn(i64, i64) -> i64> {
            Box::new(move |a, b| i64::from(c.holds(zext(a, w1u), zext(b, w1u))))
        };
        let fbin = |op: FBin| -> Box<dyn Fn(i64, i64) -> i64> {
            Box::new(move |a, b| NumOp::FBin(op, rwu).apply(a, b))
        };
        let f: Box<dyn Fn(i64, i64) -> i64> = match opname.as_str() {
            "IAdd" => arith(ArithOp::Add),
            "ISub" => arith(ArithOp::Sub),
            "IMul" => arith(ArithOp::Mul),
            "SDiv" => arith(ArithOp::Div),
            "SRem" => arith(ArithOp::Rem),
            "SMod" => arith(ArithOp::Mod),
            "UDiv" => uarith(ArithOp::Div),
            "UMod" => uarith(ArithOp::Rem),
            "BitwiseAnd" => arith(ArithOp::And),
            "BitwiseOr" => arith(ArithOp::Or),
            "BitwiseXor" => arith(ArithOp::Xor),
            "ShiftLeftLogical" => arith(ArithOp::Shl),
            "ShiftRightArithmetic" => arith(ArithOp::Shr),
            "ShiftRightLogical" => {
                Box::new(move |a, b| wrap(ArithOp::Shr.apply(zext(a, w1u) as i64, b)))
            }
            "LogicalAnd" => Box::new(|a, b| i64::from(a != 0 && b != 0)),
            "LogicalOr" => Box::new(|a, b| i64::from(a != 0 || b != 0)),
            "LogicalEqual" => Box::new(|a, b| i64::from((a != 0) == (b != 0))),
            "LogicalNotEqual" => Box::new(|a, b| i64::from((a != 0) != (b != 0))),
            "IEqual" => scmp(Cmp::Eq),
            "INotEqual" => scmp(Cmp::Ne),
            "SLessThan" => scmp(Cmp::Lt),
            "SLessThanEqual" => scmp(Cmp::Le),
            "SGreaterThan" => scmp(Cmp::Gt),
            "SGreaterThanEqual" => scmp(Cmp::Ge),
            "ULessThan" => ucmp(Cmp::Lt),
            "ULessThanEqual" => ucmp(Cmp::Le),
            "UGreaterThan" => ucmp(Cmp::Gt),
            "UGreaterThanEqual" => ucmp(Cmp::Ge),
            "FAdd" => fbin(FBin::Add),
            "FSub" => fbin(FBin::Sub),
            "FMul" => fbin(FBin::Mul),
            "FDiv" => fbin(FBin::Div),
            "FRem" => fbin(FBin::Rem),
            "FMod" => fbin(FBin::Mod),
            other => {
                return Err(inst.err_at(
                    1,
                    format!(
                        "unsupported construct `OpSpecConstantOp {other}`: not an operation OpSpecConstantOp allows, or one on pointers (AccessChain, pointer conversions) vkmm does not fold"
                    ),
                ));
            }
        };
        Ok(map2(&get(2)?, &get(3)?, &*f))
    }

    /// clspv reflection: the workgroup-size spec ids and the push constants
    /// it fills (global offset 0, global size, number of workgroups).
    fn reflection(&mut self, inst: &Inst, wg: i64, nwg: i64) -> Result<(), Located> {
        let set = inst.id(1)?;
        if !self
            .ext_sets
            .get(set)
            .is_some_and(|s| s.starts_with("NonSemantic.ClspvReflection"))
        {
            return Ok(());
        }
        let name = match inst.operands.get(2).map(|o| &o.tok) {
            Some(Tok::Word(w)) => w.clone(),
            _ => return Ok(()),
        };
        let arg = |i: usize| -> Result<i64, Located> {
            match inst.id(i).ok().and_then(|id| self.consts.get(id)) {
                Some(CVal::Int(v)) => Ok(*v),
                _ => Err(inst.err_at(i, format!("{name}: expected an integer constant"))),
            }
        };
        match name.as_str() {
            // Read before the declarations (`Module::read`).
            "SpecConstantWorkgroupSize" => {}
            "PushConstantGlobalSize" => self.push_constants.push((arg(3)?, [wg * nwg, 1, 1])),
            "PushConstantNumWorkgroups" => self.push_constants.push((arg(3)?, [nwg, 1, 1])),
            "PushConstantRegionOffset"
            | "PushConstantRegionGroupOffset"
            | "PushConstantGlobalOffset" => self.push_constants.push((arg(3)?, [0, 0, 0])),
            _ => {}
        }
        Ok(())
    }
}

/// The number of elements of a runtime array whose `@Input` lists
/// `items`: as many as it lists, 1 without one. The one place that
/// decides a runtime array's length (its cells, `OpArrayLength`).
pub(super) fn runtime_array_len(items: Option<&Vec<Init>>) -> usize {
    items.map_or(1, |v| v.len())
}

/// `f` on each component of a constant (Undef stays Undef).
fn map1(v: &CVal, f: &dyn Fn(i64) -> i64) -> CVal {
    match v {
        CVal::Int(a) => CVal::Int(f(*a)),
        CVal::Comp(xs) => CVal::Comp(xs.iter().map(|x| map1(x, f)).collect()),
        CVal::Undef => CVal::Undef,
    }
}

/// `f` on each pair of components of two constants of one shape.
fn map2(a: &CVal, b: &CVal, f: &dyn Fn(i64, i64) -> i64) -> CVal {
    match (a, b) {
        (CVal::Int(x), CVal::Int(y)) => CVal::Int(f(*x, *y)),
        (CVal::Comp(xs), CVal::Comp(ys)) => {
            CVal::Comp(xs.iter().zip(ys).map(|(x, y)| map2(x, y, f)).collect())
        }
        _ => CVal::Undef,
    }
}

/// Whether the first operand of an instruction with a result is its type.
fn has_result_type(op: Op) -> bool {
    !matches!(
        op,
        Op::Label
            | Op::ExtInstImport
            | Op::String
            | Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeStruct
            | Op::TypePointer
            | Op::TypeFunction
            | Op::TypeImage
            | Op::TypeSampler
            | Op::TypeSampledImage
            | Op::DecorationGroup
    )
}

/// The class of a storage class word.
pub(super) fn class_of(name: &str) -> Class {
    match name {
        "StorageBuffer"
        | "Uniform"
        | "PhysicalStorageBuffer"
        | "CrossWorkgroup"
        | "UniformConstant"
        // The appendix: "The UniformMemory storage class semantic applies
        // to accesses to memory in the PhysicalStorageBuffer,
        // ShaderRecordBufferKHR, Uniform and StorageBuffer storage classes."
        | "ShaderRecordBufferKHR"
        | "ShaderRecordBufferNV" => Class::Global,
        "Workgroup" => Class::Workgroup,
        "Output" => Class::Output,
        "Private" | "Function" | "Input" | "PushConstant" => Class::Invocation,
        "CallableDataKHR" | "CallableDataNV" => Class::Ray(Interface::CallableData),
        "IncomingCallableDataKHR" | "IncomingCallableDataNV" => {
            Class::Ray(Interface::IncomingCallableData)
        }
        "RayPayloadKHR" | "RayPayloadNV" => Class::Ray(Interface::RayPayload),
        "IncomingRayPayloadKHR" | "IncomingRayPayloadNV" => {
            Class::Ray(Interface::IncomingRayPayload)
        }
        "HitAttributeKHR" | "HitAttributeNV" => Class::Ray(Interface::HitAttribute),
        _ => Class::Other,
    }
}

/// Every branch target of a function's body is one of its labels:
/// "OpBranch ... Target Label must be the Result \<id\> of an OpLabel
/// instruction in the current function" (SPIR-V specification, OpBranch;
/// likewise OpBranchConditional and OpSwitch). An error at the operand, in
/// the source's own name (`%9`).
fn branch_targets_defined(body: &[Inst]) -> Result<(), Located> {
    let labels: std::collections::HashSet<&str> = body
        .iter()
        .filter(|x| x.op == Op::Label)
        .filter_map(|x| x.result.as_ref().map(|(r, _)| r.as_str()))
        .collect();
    for inst in body {
        let targets: Vec<usize> = match inst.op {
            Op::Branch => vec![0],
            Op::BranchConditional => vec![1, 2],
            Op::Switch => std::iter::once(1)
                .chain((3..inst.operands.len()).step_by(2))
                .collect(),
            _ => continue,
        };
        for i in targets {
            let to = inst.id(i)?;
            if !labels.contains(to) {
                return Err(inst.err_at(
                    i,
                    format!(
                        "{}: `%{to}` is not a label of this function (OpLabel)",
                        inst.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The signed reading of the low `width` bits of `v`.
pub(super) fn wrap_const(v: i64, width: u32) -> i64 {
    if width >= 64 || width == 0 {
        return v;
    }
    let shift = 64 - width;
    (v << shift) >> shift
}

/// `OpTypeSampledImage Image-Type`: SPIR-V, OpTypeSampledImage: "Declare a
/// sampled image type, the Result Type of OpSampledImage, or an externally
/// combined sampler and image." Its memory is the image's texels. A
/// sampled image of an image vkmm does not read (floating-point texels)
/// stays opaque: refused where it is used.
fn sampled_image_type(inst: &Inst, m: &Module) -> Result<Ty, Located> {
    let image = inst.id(0)?.to_string();
    Ok(match m.ty(&image) {
        Some(Ty::Image { .. }) => Ty::SampledImage { image },
        _ => Ty::Other(inst.name.clone()),
    })
}

/// `OpTypeTensorARM Element-Type [Rank [Shape]]` (SPV_ARM_tensors):
/// "'Element Type' is the type of the individual elements of the tensor.
/// It must be a scalar type. 'Rank' is the optional rank (i.e. number of
/// dimensions) of the tensor." OpTensorReadARM / OpTensorWriteARM: "'Tensor'
/// must be a 'Ranked Tensor'", so vkmm reads ranked tensors of integer
/// elements; each element is one memory location (the extent is the
/// variable's @Input, outermost dimension first). "'Shape' is the optional
/// shape of the tensor. 'Shape' must be a constant instruction of type
/// OpTypeArray whose 'Element Type' is an integer, interpreted as unsigned,
/// and whose 'Length' is equal to 'Rank'": read here, checked against the
/// @Input by `check_extents`.
fn tensor_type(inst: &Inst, m: &Module) -> Result<Ty, Located> {
    let elem = inst.id(0)?.to_string();
    if !matches!(m.ty(&elem), Some(Ty::Int { .. } | Ty::Float { .. })) {
        return Err(inst.err_at(
            0,
            "unsupported construct `OpTypeTensorARM`: vkmm reads tensors of integer or float elements (Element Type an OpTypeInt or OpTypeFloat)".into(),
        ));
    }
    if inst.operands.len() < 2 {
        return Err(inst.err(
            "unsupported construct `OpTypeTensorARM`: an unranked tensor; OpTensorReadARM and OpTensorWriteARM: \"'Tensor' must be a 'Ranked Tensor'\"".into(),
        ));
    }
    let rank = match m.consts.get(inst.id(1)?) {
        Some(CVal::Int(n)) if (1..=8).contains(n) => *n as usize,
        _ => {
            return Err(inst.err_at(
                1,
                "OpTypeTensorARM: 'Rank' must come from a constant instruction of scalar integer type (vkmm reads ranks 1 to 8)".into(),
            ));
        }
    };
    let shape = match inst.operands.get(2) {
        None => None,
        Some(_) => {
            let id = inst.id(2)?;
            let len_ok = matches!(
                inst_ty_of_const(m, id),
                Some(Ty::Array { len, .. }) if len == rank
            );
            match m.consts.get(id) {
                Some(CVal::Comp(items)) if len_ok => {
                    let mut shape = Vec::new();
                    for v in items {
                        match v {
                            CVal::Int(n) if (1..=4096).contains(n) => shape.push(*n as usize),
                            _ => {
                                return Err(inst.err_at(
                                    2,
                                    "OpTypeTensorARM: the Shape's extents are constants from 1 to 4096 (vkmm's bound on a grid)".into(),
                                ));
                            }
                        }
                    }
                    Some(shape)
                }
                _ => {
                    return Err(inst.err_at(
                        2,
                        format!("OpTypeTensorARM: \"'Shape' must be a constant instruction of type OpTypeArray whose 'Element Type' is an integer, interpreted as unsigned, and whose 'Length' is equal to 'Rank'\" ({rank})"),
                    ));
                }
            }
        }
    };
    Ok(Ty::Tensor {
        elem,
        dims: rank,
        channels: 1,
        shape,
    })
}

/// The type of the constant `id` (its result type), when known.
fn inst_ty_of_const(m: &Module, id: &str) -> Option<Ty> {
    m.result_types.get(id).and_then(|t| m.ty(t)).cloned()
}

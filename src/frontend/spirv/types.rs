//! The types and constant values of a SPIR-V module, and how the texels
//! of converted image formats are stored: what the module's declarations
//! ([`super::module`], which hands these names on) and the image types
//! ([`super::image`]) both build on.

use super::syntax::{Inst, Located};

/// A type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Void,
    Bool,
    Int {
        width: u32,
    },
    /// An IEEE-754 binary float of 16, 32 or 64 bits, kept as its bits
    /// (`crate::ir::numeric`).
    Float {
        width: u32,
    },
    Vector {
        elem: String,
        n: usize,
    },
    Array {
        elem: String,
        len: usize,
    },
    RuntimeArray {
        elem: String,
    },
    Struct {
        members: Vec<String>,
    },
    Pointer {
        class: Class,
        pointee: String,
    },
    Function,
    /// `OpTypeCooperativeMatrixKHR`: the component type, the scope (a
    /// Scope id, Subgroup or Workgroup), rows and columns.
    CoopMatrix {
        elem: String,
        scope: i64,
        rows: usize,
        cols: usize,
    },
    /// A storage image (Sampled 2) or an image for sampling (Sampled 1,
    /// read by `OpImageFetch` and sampled; `image.rs`): texels of `channels`
    /// scalars of the integer type `elem`, addressed by `dims` coordinates
    /// (x, y, z as the Dim has them, then the layer if arrayed, then the
    /// sample if multisampled).
    Image {
        elem: String,
        dims: usize,
        channels: usize,
        ms: bool,
        /// The Dim operand's name (`Buffer`, `1D`, `2D`, `3D`, `Cube`).
        dim: String,
        arrayed: bool,
        /// Sampled 1: compatible with sampling operations, not with
        /// `OpImageRead`/`OpImageWrite`.
        sampled: bool,
        /// A format whose channels are stored in another type than the
        /// Sampled Type (`elem` is then that type: `image::Stored`).
        stored: Option<Stored>,
    },
    /// `OpTypeSampledImage`: an image (`image`, an `Image` of Sampled 1)
    /// together with a sampler; its memory is the image's texels.
    SampledImage {
        image: String,
    },
    /// A ranked tensor (`OpTypeTensorARM`, `image.rs`): elements of the
    /// scalar type `elem`, `dims` (its Rank) coordinates, outermost first;
    /// `channels` is 1; `shape`, the Shape operand when present (one
    /// extent per dimension, outermost first).
    Tensor {
        elem: String,
        dims: usize,
        channels: usize,
        shape: Option<Vec<usize>>,
    },
    /// `OpTypeMatrix Column-Type Column-Count`: "Matrix columns are
    /// numbered consecutively, starting with 0"; `col` is the column's
    /// vector type. `layout` is the one the `MatrixStride` and
    /// `RowMajor`/`ColMajor` decorations of the struct member holding the
    /// matrix give (`Module::lay_out`); without one (a matrix in
    /// registers) the columns are packed one after the other.
    Matrix {
        col: String,
        cols: usize,
        layout: Option<MatrixLayout>,
    },
    /// A column of a `RowMajor` matrix in memory: `n` components of
    /// `elem`, `stride` bytes apart (the matrix's `MatrixStride`). Only
    /// an access chain into such a matrix makes one (`Module::lay_out`
    /// declares it beside the matrix).
    Strided {
        elem: String,
        n: usize,
        stride: i64,
    },
    /// Samplers and other types vkmm cannot compute with.
    Other(String),
}

/// The memory layout of a matrix in a struct member: SPIR-V, Decoration,
/// MatrixStride: "the stride of the rows in a RowMajor-decorated matrix
/// or columns in a ColMajor-decorated matrix"; RowMajor: "Indicates that
/// components within a row are contiguous in memory"; ColMajor:
/// "Indicates that components within a column are contiguous in memory".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MatrixLayout {
    pub stride: i64,
    pub row_major: bool,
}

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Class {
    /// StorageBuffer, Uniform, PhysicalStorageBuffer, CrossWorkgroup,
    /// UniformConstant: one instance for all invocations (`sc0`).
    Global,
    /// Workgroup: one instance per workgroup (`sc1`).
    Workgroup,
    /// Output: one instance per invocation, in memory (conditions name
    /// them; `sc3`, the OutputMemory class).
    Output,
    /// Private, Function, Input, PushConstant: one instance per
    /// invocation, kept in registers.
    Invocation,
    /// The ray tracing storage classes of shader calls (CallableDataKHR,
    /// IncomingCallableDataKHR, RayPayloadKHR, IncomingRayPayloadKHR,
    /// HitAttributeKHR): one instance per invocation, in memory; an
    /// invocation's incoming variable is its creator's variable
    /// (docs/format-spirv.md, "Shader calls").
    Ray(crate::ir::Interface),
    /// A UniformConstant variable of a storage image type: one instance,
    /// its texels in the Image storage class (`sc2`, the ImageMemory
    /// class: "The ImageMemory storage class semantic applies to accesses
    /// to memory in the Image storage class").
    Image,
    /// Other classes the IR cannot express.
    Other,
}

/// A constant value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum CVal {
    Int(i64),
    Comp(Vec<CVal>),
    Undef,
}

/// An error naming a construct the IR cannot express.
pub(super) fn unsupported(inst: &Inst, why: &str) -> Located {
    inst.err(format!("unsupported construct `{}`: {why}", inst.name))
}

/// How the texels of a format whose channels are not stored as the
/// Sampled Type are kept: each channel a cell of the format's own width
/// (a 16-bit float, an 8- or 16-bit normalised integer), converted to the
/// 32-bit float Sampled Type on a read and back on a write (Vulkan,
/// "Texel Input Operations" / "Texel Output Operations": a 16-bit float
/// channel widens exactly; a write rounds to nearest even; a normalised
/// channel is "f / (2^b - 1)" (unsigned) or "max(f / (2^(b-1) - 1), -1)"
/// (signed) on a read and "round(clamp(c, 0, 1) * (2^b - 1))" (unsigned)
/// or "round(clamp(c, -1, 1) * (2^(b-1) - 1))" (signed) on a write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stored {
    Half,
    Unorm(u8),
    Snorm(u8),
}

/// The types of the cells of [`Stored`] formats, which no instruction of
/// the module declares (`Module::read` adds them).
pub(super) const HALF: &str = "vkmm.half";
pub(super) const U8: &str = "vkmm.u8";
pub(super) const U16: &str = "vkmm.u16";
pub(super) const I8: &str = "vkmm.i8";
pub(super) const I16: &str = "vkmm.i16";

impl Stored {
    /// The type id of a channel's cell.
    pub fn elem(self) -> &'static str {
        match self {
            Stored::Half => HALF,
            Stored::Unorm(8) => U8,
            Stored::Snorm(8) => I8,
            Stored::Snorm(_) => I16,
            Stored::Unorm(_) => U16,
        }
    }
    /// A channel's bits to the 32-bit float read.
    pub fn read(self) -> crate::ir::numeric::NumOp {
        use crate::ir::numeric::{Conv, NumOp};
        match self {
            Stored::Half => NumOp::Conv(Conv::FConvert { from: 16, to: 32 }),
            Stored::Unorm(bits) => NumOp::Conv(Conv::FromNorm {
                signed: false,
                bits,
            }),
            Stored::Snorm(bits) => NumOp::Conv(Conv::FromNorm { signed: true, bits }),
        }
    }
    /// A 32-bit float written to a channel's bits.
    pub fn write(self) -> crate::ir::numeric::NumOp {
        use crate::ir::numeric::{Conv, NumOp};
        match self {
            Stored::Half => NumOp::Conv(Conv::FConvert { from: 32, to: 16 }),
            Stored::Unorm(bits) => NumOp::Conv(Conv::ToNorm {
                signed: false,
                bits,
            }),
            Stored::Snorm(bits) => NumOp::Conv(Conv::ToNorm { signed: true, bits }),
        }
    }
}

//! Storage images and tensors in SPIR-V (docs/format-spirv.md, "Images",
//! "Tensors"): the types vkmm reads. `OpTypeImage` with Sampled 2 (a
//! storage image) of Dim Buffer, 1D, 2D, 3D or Cube, arrayed or not,
//! multisampled or not, with integer channels, is a grid of texels, each
//! channel a memory location of the Image storage class (`sc2`); a ranked
//! `OpTypeTensorARM` of integer elements is a grid of elements in the same
//! class (MODELS.md, "Tensor elements are in the Image class"). The extent
//! is the variable's `@Input` (nested lists, one level per coordinate).
//! The accesses are in `lower/image.rs`.

use super::module::{Ty, unsupported};
use super::syntax::{Inst, Located, Tok};

/// The image formats vkmm reads and their channels: integer channels of
/// the sampled type's width, or Unknown (one channel). Each channel of a
/// texel is one scalar of the sampled type: its own memory locations ("A
/// memory location identifies unique storage for 8 bits of data. Memory
/// operations access a set of memory locations consisting of one or more
/// memory locations at a time, e.g. an operation accessing a 32-bit
/// integer in memory would read/write a set of four memory locations").
const FORMATS: &[(&str, usize)] = &[
    ("Unknown", 1),
    ("R32i", 1),
    ("R32ui", 1),
    ("R64i", 1),
    ("R64ui", 1),
    ("Rg32i", 2),
    ("Rg32ui", 2),
    ("Rgba32i", 4),
    ("Rgba32ui", 4),
];

/// An operand that is an enumerant: its name (the text spells words, a
/// binary module may spell numbers).
fn enumerant(inst: &Inst, i: usize, names: &[(i128, &'static str)]) -> Result<String, Located> {
    match inst.operands.get(i).map(|o| &o.tok) {
        Some(Tok::Word(w)) => Ok(w.clone()),
        Some(Tok::Int(n)) => Ok(names
            .iter()
            .find(|(v, _)| v == n)
            .map_or_else(|| n.to_string(), |(_, s)| s.to_string())),
        _ => Err(inst.err_at(i, format!("{}: expected an enumerant", inst.name))),
    }
}

/// `OpTypeImage Sampled-Type Dim Depth Arrayed MS Sampled Image-Format
/// [Access-Qualifier]`. SPIR-V, OpTypeImage: "Sampled indicates whether or
/// not this image is accessed in combination with a sampler, and must be
/// one of the following values: 0 indicates this is only known at run
/// time, not at compile time; 1 indicates an image compatible with
/// sampling operations; 2 indicates an image compatible with read/write
/// operations (a storage or subpass data image)." vkmm reads 2 only.
///
/// The coordinates (Vulkan, Integer Sampling Coordinates): "They are
/// extracted from the SPIR-V operand in order (i [,j] [,k] [,l] [,n]), with
/// j and k conditionally present based on the Dim of the image, and l
/// conditionally present based on the Arrayed property of the image. n is
/// conditionally present and is taken from the Sample image operand."
/// Buffer and 1D have x, 2D x and y, 3D x, y and z; a Cube image is read
/// with (x, y, layer), the layer the face ("For cube and cube array image
/// views, the layers of the image view starting at baseArrayLayer
/// correspond to faces in the order +X, -X, +Y, -Y, +Z, -Z. For cube
/// arrays, each set of six sequential layers is a single cube"), so a Cube
/// image has the layer coordinate arrayed or not; Arrayed 1 adds the layer
/// to the others; MS 1 adds the sample (the Sample image operand) last.
/// Each (x, y, z, layer, sample) names its own texel.
pub(super) fn image_type(inst: &Inst, sampled_elem: Option<&Ty>) -> Result<Ty, Located> {
    let elem = inst.id(0)?.to_string();
    if !matches!(sampled_elem, Some(Ty::Int { width: 32 | 64 })) {
        return Err(unsupported(
            inst,
            "vkmm reads storage images of 32- or 64-bit integer texels (Sampled Type an OpTypeInt); it has no floating point",
        ));
    }
    let dim = enumerant(
        inst,
        1,
        &[
            (0, "1D"),
            (1, "2D"),
            (2, "3D"),
            (3, "Cube"),
            (4, "Rect"),
            (5, "Buffer"),
            (6, "SubpassData"),
        ],
    )?;
    let flag = |i: usize, what: &str| -> Result<bool, Located> {
        match inst.int(i)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(inst.err_at(
                i,
                format!("unsupported construct `OpTypeImage`: {what} {v}; expected 0 or 1"),
            )),
        }
    };
    let arrayed = flag(3, "Arrayed")?;
    let ms = flag(4, "MS")?;
    let mut dims = match dim.as_str() {
        "1D" | "Buffer" => 1,
        "2D" => 2,
        "3D" => 3,
        "Cube" => 3,
        other => {
            return Err(inst.err_at(
                1,
                format!(
                    "unsupported construct `OpTypeImage`: Dim {other}; vkmm reads storage images of Dim Buffer, 1D, 2D, 3D or Cube"
                ),
            ));
        }
    };
    if arrayed && dim != "Cube" {
        dims += 1;
    }
    if ms {
        dims += 1;
    }
    if inst.int(5)? != 2 {
        return Err(inst.err_at(
            5,
            "unsupported construct `OpTypeImage`: vkmm reads storage images only (\"2 indicates an image compatible with read/write operations (a storage or subpass data image)\"); sampling is not modelled".into(),
        ));
    }
    let format = enumerant(
        inst,
        6,
        &[
            (0, "Unknown"),
            (21, "Rgba32i"),
            (24, "R32i"),
            (25, "Rg32i"),
            (30, "Rgba32ui"),
            (33, "R32ui"),
            (35, "Rg32ui"),
            (40, "R64ui"),
            (41, "R64i"),
        ],
    )?;
    let Some((_, channels)) = FORMATS.iter().find(|(f, _)| *f == format) else {
        let names: Vec<&str> = FORMATS.iter().map(|(f, _)| *f).collect();
        return Err(inst.err_at(
            6,
            format!(
                "unsupported construct `OpTypeImage`: Image Format {format}; vkmm reads integer texels of 32 or 64 bits a channel ({})",
                names.join(", ")
            ),
        ));
    };
    let width = match sampled_elem {
        Some(Ty::Int { width }) => *width,
        _ => 32,
    };
    if (format.contains("64") && width != 64) || (format.contains("32") && width != 32) {
        return Err(inst.err_at(
            6,
            format!(
                "unsupported construct `OpTypeImage`: Image Format {format} with a {width}-bit Sampled Type (vkmm reads a channel as one scalar of the Sampled Type)"
            ),
        ));
    }
    Ok(Ty::Image {
        elem,
        dims,
        channels: *channels,
        ms,
    })
}

/// `OpTypeTensorARM Element-Type [Rank [Shape]]` (SPV_ARM_tensors):
/// "'Element Type' is the type of the individual elements of the tensor.
/// It must be a scalar type. 'Rank' is the optional rank (i.e. number of
/// dimensions) of the tensor." OpTensorReadARM / OpTensorWriteARM: "'Tensor'
/// must be a 'Ranked Tensor'", so vkmm reads ranked tensors of integer
/// elements; each element is one memory location (the extent is the
/// variable's @Input, outermost dimension first; a Shape, when present,
/// must agree with it: checked at the accesses).
pub(super) fn tensor_type(inst: &Inst, m: &super::module::Module) -> Result<Ty, Located> {
    let elem = inst.id(0)?.to_string();
    if !matches!(m.ty(&elem), Some(Ty::Int { .. })) {
        return Err(inst.err_at(
            0,
            "unsupported construct `OpTypeTensorARM`: vkmm reads tensors of integer elements (Element Type an OpTypeInt); it has no floating point".into(),
        ));
    }
    if inst.operands.len() < 2 {
        return Err(inst.err(
            "unsupported construct `OpTypeTensorARM`: an unranked tensor; OpTensorReadARM and OpTensorWriteARM: \"'Tensor' must be a 'Ranked Tensor'\"".into(),
        ));
    }
    let rank = match m.consts.get(inst.id(1)?) {
        Some(super::module::CVal::Int(n)) if (1..=8).contains(n) => *n as usize,
        _ => {
            return Err(inst.err_at(
                1,
                "OpTypeTensorARM: 'Rank' must come from a constant instruction of scalar integer type (vkmm reads ranks 1 to 8)".into(),
            ));
        }
    };
    Ok(Ty::Tensor {
        elem,
        dims: rank,
        channels: 1,
    })
}

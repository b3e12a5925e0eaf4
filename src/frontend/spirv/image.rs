//! Images and tensors in SPIR-V (docs/format-spirv.md, "Images",
//! "Tensors"): the types vkmm reads. `OpTypeImage` with Sampled 2 (a
//! storage image) or Sampled 1 (an image for sampling, which vkmm reads by
//! `OpImageFetch` and the sampling instructions, [`is_sampling`]) of Dim
//! Buffer, 1D, 2D, 3D or Cube, arrayed or not, multisampled or not, with
//! integer channels, is a grid of texels,
//! each channel a memory location of the Image storage class (`sc2`);
//! `OpTypeSampledImage` is such an image with a sampler (the sampler holds
//! no memory location); a ranked `OpTypeTensorARM` of integer elements is a
//! grid of elements in the same class (MODELS.md, "Tensor elements are in
//! the Image class"). The extent is the variable's `@Input` (nested lists,
//! one level per coordinate), checked against a tensor's Shape and a Cube
//! image's faces. The accesses are in `lower/image.rs`; the declarations
//! that look up other declarations of the module (`OpTypeSampledImage`,
//! `OpTypeTensorARM`) are read in `module.rs`, and two views of one
//! descriptor are checked alike in `layout.rs`. The storage of converted
//! formats ([`Stored`]) is in `types.rs`, below both.

use super::syntax::{Inst, Located, Tok};
pub(super) use super::types::{HALF, I8, I16, Stored, U8, U16};
use super::types::{Ty, unsupported};
use ::spirv::Op;

/// The image formats vkmm reads and their channels: integer or 32-bit
/// float channels of the sampled type's width, or Unknown (one channel). Each channel of a
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
    ("R32f", 1),
    ("Rg32f", 2),
    ("Rgba32f", 4),
];

/// The formats whose channels are converted, their channels and storage.
const CONVERTED: &[(&str, usize, Stored)] = &[
    ("Rgba16f", 4, Stored::Half),
    ("Rg16f", 2, Stored::Half),
    ("R16f", 1, Stored::Half),
    ("Rgba8", 4, Stored::Unorm(8)),
    ("Rg8", 2, Stored::Unorm(8)),
    ("R8", 1, Stored::Unorm(8)),
    ("Rgba8Snorm", 4, Stored::Snorm(8)),
    ("Rgba16", 4, Stored::Unorm(16)),
    ("Rg16", 2, Stored::Unorm(16)),
    ("R16", 1, Stored::Unorm(16)),
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
/// operations (a storage or subpass data image)." vkmm reads 2 and 1 (an
/// image of Sampled 1 is read by `OpImageFetch` and sampled:
/// `lower/image.rs`); 0 leaves the kind of access to run time.
///
/// The coordinates (Vulkan, Integer Sampling Coordinates): "They are
/// extracted from the SPIR-V operand in order (`i [,j] [,k] [,l] [,n]`), with
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
    if !matches!(
        sampled_elem,
        Some(Ty::Int { width: 32 | 64 } | Ty::Float { width: 32 })
    ) {
        return Err(unsupported(
            inst,
            "vkmm reads images of 32- or 64-bit integer texels or 32-bit float texels (Sampled Type an OpTypeInt, or an OpTypeFloat 32)",
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
    let sampled = match inst.int(5)? {
        1 => true,
        2 => false,
        _ => {
            return Err(inst.err_at(
                5,
                "unsupported construct `OpTypeImage`: Sampled 0 (\"0 indicates this is only known at run time, not at compile time\"): vkmm reads images of Sampled 1 (\"compatible with sampling operations\", read by OpImageFetch) and 2 (\"compatible with read/write operations\")".into(),
            ));
        }
    };
    let format = enumerant(
        inst,
        6,
        &[
            (0, "Unknown"),
            (1, "Rgba32f"),
            (2, "Rgba16f"),
            (3, "R32f"),
            (4, "Rgba8"),
            (5, "Rgba8Snorm"),
            (6, "Rg32f"),
            (7, "Rg16f"),
            (9, "R16f"),
            (10, "Rgba16"),
            (13, "Rg16"),
            (14, "Rg8"),
            (15, "R16"),
            (16, "R8"),
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
    if let Some((_, channels, stored)) = CONVERTED.iter().find(|(f, _, _)| *f == format) {
        if !matches!(sampled_elem, Some(Ty::Float { width: 32 })) {
            return Err(inst.err_at(
                0,
                format!("unsupported construct `OpTypeImage`: Image Format {format} with a Sampled Type other than a 32-bit float (vkmm converts its channels to and from 32-bit floats)"),
            ));
        }
        return Ok(Ty::Image {
            elem: stored.elem().to_string(),
            dims,
            channels: *channels,
            ms,
            dim,
            arrayed,
            sampled,
            stored: Some(*stored),
        });
    }
    let Some((_, channels)) = FORMATS.iter().find(|(f, _)| *f == format) else {
        let names: Vec<&str> = FORMATS.iter().map(|(f, _)| *f).collect();
        return Err(inst.err_at(
            6,
            format!(
                "unsupported construct `OpTypeImage`: Image Format {format}; vkmm reads texels stored as the Sampled Type, integers of 32 or 64 bits or 32-bit floats a channel ({}), and the converted formats {}",
                names.join(", "),
                CONVERTED.iter().map(|(f, _, _)| *f).collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let width = match sampled_elem {
        Some(Ty::Int { width } | Ty::Float { width }) => *width,
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
        dim,
        arrayed,
        sampled,
        stored: None,
    })
}

/// The extent of each coordinate of an image or tensor without an `@Input`:
/// a shaped tensor's Shape; a Cube image's six faces ("the layers of the
/// image view starting at baseArrayLayer correspond to faces in the order
/// +X, -X, +Y, -Y, +Z, -Z"); else one.
pub(super) fn default_extents(ty: &Ty) -> Vec<usize> {
    match ty {
        Ty::Tensor {
            shape: Some(shape), ..
        } => shape.clone(),
        Ty::Image { dims, dim, .. } if dim == "Cube" => {
            (0..*dims).map(|k| if k == 2 { 6 } else { 1 }).collect()
        }
        Ty::Image { dims, .. } | Ty::Tensor { dims, .. } => vec![1; *dims],
        _ => Vec::new(),
    }
}

/// Checks the extents an `@Input` gives the image or tensor type `ty`
/// (named `name`).
///
/// A tensor's Shape (SPV_ARM_tensors, OpTypeTensorARM: "'Shape' is the
/// optional shape of the tensor"): the tensor the variable is bound to has
/// that shape, so the `@Input` (the bound tensor's contents) must have it.
///
/// A Cube image's layers (the third coordinate): Vulkan, Image Views:
/// "For cube and cube array image views, the layers of the image view
/// starting at baseArrayLayer correspond to faces in the order +X, -X, +Y,
/// -Y, +Z, -Z. For cube arrays, each set of six sequential layers is a
/// single cube", and VkImageViewCreateInfo: "If viewType is
/// VK_IMAGE_VIEW_TYPE_CUBE and subresourceRange.layerCount is not
/// VK_REMAINING_ARRAY_LAYERS, subresourceRange.layerCount must be 6", "If
/// viewType is VK_IMAGE_VIEW_TYPE_CUBE_ARRAY and subresourceRange.layerCount
/// is not VK_REMAINING_ARRAY_LAYERS, subresourceRange.layerCount must be a
/// multiple of 6". So a Cube image has 6 layers, a Cube Arrayed image a
/// multiple of 6.
pub(super) fn check_extents(ty: &Ty, name: &str, extents: &[usize]) -> Result<(), String> {
    let show = |e: &[usize]| {
        e.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(" x ")
    };
    match ty {
        Ty::Tensor {
            shape: Some(shape), ..
        } if shape.as_slice() != extents => Err(format!(
            "the @Input's extent {} is not the Shape {} of the tensor type `%{name}` (OpTypeTensorARM: \"'Shape' is the optional shape of the tensor\": the bound tensor has it)",
            show(extents),
            show(shape)
        )),
        Ty::Image {
            dim,
            arrayed: false,
            ..
        } if dim == "Cube" && extents[2] != 6 => Err(format!(
            "a Cube image has 6 layers, one per face; the @Input gives {} (Vulkan: \"If viewType is VK_IMAGE_VIEW_TYPE_CUBE and subresourceRange.layerCount is not VK_REMAINING_ARRAY_LAYERS, subresourceRange.layerCount must be 6\")",
            extents[2]
        )),
        Ty::Image {
            dim, arrayed: true, ..
        } if dim == "Cube" && !extents[2].is_multiple_of(6) => Err(format!(
            "a Cube Arrayed image has a multiple of 6 layers (\"each set of six sequential layers is a single cube\"); the @Input gives {} (Vulkan: \"If viewType is VK_IMAGE_VIEW_TYPE_CUBE_ARRAY and subresourceRange.layerCount is not VK_REMAINING_ARRAY_LAYERS, subresourceRange.layerCount must be a multiple of 6\")",
            extents[2]
        )),
        _ => Ok(()),
    }
}

/// The sampling instructions (docs/format-spirv.md, "Sampling"): the
/// instructions the Vulkan specification's "Image Operations" chapter
/// sends through its texel filtering or gathering ("Texel Filtering:
/// Performed by all OpImageSample* and OpImageSparseSample*
/// instructions"; "Texel Gathering: Performed by OpImage*Gather
/// instructions"), the LOD query ("OpImageQueryLod returns the LOD
/// parameters that would be used in a sampling instruction with the given
/// image and coordinates"), the footprint query and the residency query of
/// a sparse sample's code.
pub(super) fn is_sampling(op: Op) -> bool {
    matches!(
        op,
        Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageSparseSampleImplicitLod
            | Op::ImageSparseSampleExplicitLod
            | Op::ImageSparseSampleDrefImplicitLod
            | Op::ImageSparseSampleDrefExplicitLod
            | Op::ImageSparseSampleProjImplicitLod
            | Op::ImageSparseSampleProjExplicitLod
            | Op::ImageSparseSampleProjDrefImplicitLod
            | Op::ImageSparseSampleProjDrefExplicitLod
            | Op::ImageSparseGather
            | Op::ImageSparseDrefGather
            | Op::ImageQueryLod
            | Op::ImageSampleFootprintNV
            | Op::ImageSparseTexelsResident
    )
}

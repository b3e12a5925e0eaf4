//! Storage images in SPIR-V (docs/format-spirv.md, "Images"): the types
//! vkmm reads. `OpTypeImage` with Sampled 2 (a storage image) of Dim
//! Buffer, 1D or 2D, one integer channel, is a grid of texels, each one
//! memory location of the Image storage class (`sc2`); its extent is the
//! variable's `@Input` (a list of texels, or of columns for 2D). The
//! accesses are in `lower/image.rs`. Tensors (`OpTypeTensorARM`) are
//! refused here.

use super::module::{Ty, unsupported};
use super::syntax::{Inst, Located, Tok};

/// The image formats vkmm reads: one integer channel, or Unknown (the
/// format is the sampled type's). A texel is one scalar of the sampled
/// type.
const FORMATS: &[&str] = &["Unknown", "R32i", "R32ui", "R64i", "R64ui"];

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
/// operations (a storage or subpass data image)." vkmm reads 2 only, with
/// Dim Buffer, 1D or 2D, not arrayed, not multisampled.
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
        &[(0, "1D"), (1, "2D"), (2, "3D"), (3, "Cube"), (5, "Buffer")],
    )?;
    let dims = match dim.as_str() {
        "1D" | "Buffer" => 1,
        "2D" => 2,
        other => {
            return Err(inst.err_at(
                1,
                format!(
                    "unsupported construct `OpTypeImage`: Dim {other}; vkmm reads storage images of Dim Buffer, 1D or 2D"
                ),
            ));
        }
    };
    let lit = |i: usize, what: &str, want: i128| -> Result<(), Located> {
        let v = inst.int(i)?;
        if v != want {
            return Err(inst.err_at(
                i,
                format!(
                    "unsupported construct `OpTypeImage`: {what} {v}; vkmm reads {what} {want}"
                ),
            ));
        }
        Ok(())
    };
    lit(3, "Arrayed", 0)?;
    lit(4, "MS", 0)?;
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
            (33, "R32ui"),
            (24, "R32i"),
            (40, "R64ui"),
            (41, "R64i"),
        ],
    )?;
    if !FORMATS.contains(&format.as_str()) {
        return Err(inst.err_at(
            6,
            format!(
                "unsupported construct `OpTypeImage`: Image Format {format}; vkmm reads one-channel integer texels ({})",
                FORMATS.join(", ")
            ),
        ));
    }
    Ok(Ty::Image { elem, dims })
}

/// `OpTypeTensorARM` (SPV_ARM_tensors): refused, with the reason.
pub(super) fn tensor_type(inst: &Inst) -> Located {
    unsupported(
        inst,
        "vkmm does not lower SPIR-V tensors yet (a tensor's elements and their layout are the implementation's; OpTensorReadARM / OpTensorWriteARM are not lowered): write the accesses in the Vulkan litmus dialect with `avelem` `viselem` `nonprivelem` (\"a tensor write instruction that includes MakeElementAvailableARM\")",
    )
}

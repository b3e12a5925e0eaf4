//! Byte offsets across a module (docs/format-spirv.md, "Byte offsets"):
//! variables that share a descriptor binding are one memory, and cells
//! some access reaches only part of are cut into chunks by
//! `ir::bytes::lower` after every invocation is lowered.

use super::module::{Class, Global, Module, Ty};
use super::syntax::{Located, Tok};
use crate::ir::Program;
use std::collections::HashMap;

/// The variables that alias an earlier one: variable -> the first variable
/// declared with its `DescriptorSet` and `Binding` (StorageBuffer, Uniform,
/// UniformConstant), or the first `Aliased` Workgroup variable of a
/// `Block` type. Vulkan, Descriptor Set Interface (interfaces.adoc): "If
/// multiple shader variables are declared with the same set and binding
/// values, and with the same underlying descriptor type, they can all be
/// statically used within the same shader"; the appendix, Memory Location:
/// a reference is "The descriptor that a variable is bound to, for
/// variables in Image, Uniform, or StorageBuffer storage classes", and
/// "Variables with Workgroup storage class that are decorated with Aliased
/// and that point to a block-decorated type share a set of memory
/// locations". clspv spells byte-addressed views of one buffer so. vkmm
/// makes the later variable's accesses go to the first one's cells, at
/// their byte offsets. Image variables (storage images, images for
/// sampling, sampled images, tensors) alias so too: a storage image and a
/// sampled image bound to one descriptor are one image's texels, through
/// one reference (the descriptor); `mod.rs` checks that the views agree
/// on the texels.
pub(super) fn aliases(m: &Module) -> HashMap<String, String> {
    let int = |id: &str, d: &str| match m.decoration(id, d)?.first()? {
        Tok::Int(n) => Some(*n),
        _ => None,
    };
    let mut first: HashMap<(i128, i128), String> = HashMap::new();
    let mut out = HashMap::new();
    let mut workgroup: Option<String> = None;
    for g in &m.globals {
        if g.class == Class::Workgroup
            && m.decoration(&g.id, "Aliased").is_some()
            && m.decoration(&g.pointee, "Block").is_some()
        {
            match &workgroup {
                Some(a) => {
                    out.insert(g.id.clone(), a.clone());
                }
                None => workgroup = Some(g.id.clone()),
            }
            continue;
        }
        if g.class != Class::Global && g.class != Class::Image {
            continue;
        }
        let (Some(set), Some(binding)) = (int(&g.id, "DescriptorSet"), int(&g.id, "Binding"))
        else {
            continue;
        };
        match first.get(&(set, binding)) {
            Some(a) => {
                out.insert(g.id.clone(), a.clone());
            }
            None => {
                first.insert((set, binding), g.id.clone());
            }
        }
    }
    out
}

/// Whether no instruction may write the cell at a path of the variable
/// `var` (its first declared view), asked of each path: loads of it read
/// its initial value in every execution, so the lowering folds them
/// (`Gen::read_only_value`).
///
/// - A uniform buffer (Uniform storage class, a `Block` type): Vulkan,
///   Descriptor Types, Uniform Buffer: "a descriptor type associated with
///   a buffer resource directly, described in a shader as a structure with
///   various members that load operations can be performed on" (a storage
///   buffer's are "load, store, and atomic operations"). A `BufferBlock`
///   type in the Uniform storage class is a storage buffer, so not this.
/// - A variable, or a struct member, decorated `NonWritable`: SPIR-V,
///   Decoration: "Indicates the memory holding the variable is not
///   writable, and that this module does not write to it".
///
/// Every view of the binding must be read only so (a writable view's
/// stores reach the same cells); a member's decoration counts only where
/// the variable has one view. The lowering checks the answer: a write to
/// such a cell is an error at its instruction (`super::read_only_writes`).
pub(super) fn read_only<'m>(
    m: &'m Module,
    alias: &HashMap<String, String>,
    var: &str,
) -> impl Fn(&[usize]) -> bool + 'm {
    let whole = |id: &str| {
        m.globals.iter().find(|g| g.id == id).is_some_and(|g| {
            (g.class_name == "Uniform" && m.decoration(&g.pointee, "Block").is_some())
                || m.decoration(&g.id, "NonWritable").is_some()
        })
    };
    let views: Vec<&str> = alias
        .iter()
        .filter(|(_, first)| first.as_str() == var)
        .map(|(v, _)| v.as_str())
        .collect();
    let all = whole(var) && views.iter().all(|v| whole(v));
    // A member's decoration counts where the variable has one view.
    let block = (views.is_empty() && !all)
        .then(|| m.globals.iter().find(|g| g.id == var))
        .flatten()
        .map(|g| g.pointee.clone());
    move |path: &[usize]| {
        all || block.as_ref().is_some_and(|b| {
            path.first()
                .is_some_and(|k| m.non_writable_members.contains(&(b.clone(), *k)))
        })
    }
}

/// Cuts the cells in `program.sizes` into chunks (`ir::bytes::lower`): the
/// chunks get locations (their widths in `widths`, undefined when the cell
/// was), and a cell's name denotes its chunks, so a condition reads the
/// cell as declared.
pub(super) fn cut_cells(program: &mut Program, widths: &mut Vec<u32>) -> Result<(), Located> {
    if program.sizes.is_empty() {
        return Ok(());
    }
    let lines: Vec<Vec<usize>> = program
        .threads
        .iter()
        .map(|t| t.code.iter().map(|s| s.source().line).collect())
        .collect();
    let layout = crate::ir::bytes::lower(program).map_err(|e| {
        let line = lines
            .get(e.thread)
            .and_then(|l| l.get(e.stmt))
            .copied()
            .unwrap_or(1)
            .max(1);
        (line, 1, format!("unsupported construct: {}", e.message))
    })?;
    for (name, chunks) in &layout {
        let Some(&(_, first)) = chunks.first() else {
            continue;
        };
        let undefined = program.undefined.contains(&first);
        for (c, loc) in chunks {
            if widths.len() <= *loc {
                widths.resize(*loc + 1, 64);
            }
            widths[*loc] = c.len() * 8;
            if undefined {
                program.undefined.insert(*loc);
            }
        }
        if chunks.len() < 2 {
            continue;
        }
        if let Some(n) = program.symbols.names.iter_mut().find(|n| n.name == *name) {
            n.locations = chunks.iter().map(|c| c.1).collect();
            n.bytes = chunks.iter().map(|c| c.0).collect();
        }
    }
    Ok(())
}

/// The texels an image type addresses: (scalar type's width, coordinates,
/// channels, multisampled), through a sampled image to its image.
fn texels(m: &Module, ty: &str) -> Option<(Option<i64>, usize, usize, bool)> {
    match m.ty(ty)? {
        Ty::SampledImage { image } => texels(m, image),
        Ty::Image {
            elem,
            dims,
            channels,
            ms,
            ..
        } => Some((m.size_of(elem), *dims, *channels, *ms)),
        _ => None,
    }
}

/// A variable `g` that shares its descriptor (DescriptorSet and Binding)
/// with the earlier `first` (`layout::aliases`): when either is an image,
/// both are views of one image's texels (a storage image and the image a
/// sampler reads, say) and must address them alike: the same texel size,
/// coordinates, channels and samples. The appendix: a reference is "The
/// descriptor that a variable is bound to, for variables in Image,
/// Uniform, or StorageBuffer storage classes".
pub(super) fn check_view(
    m: &Module,
    g: &Global,
    first: &str,
) -> Result<(), (usize, usize, String)> {
    let Some(f) = m.globals.iter().find(|v| v.id == first) else {
        return Ok(());
    };
    let (a, b) = (texels(m, &g.pointee), texels(m, &f.pointee));
    let tensor = |v: &Global| matches!(m.ty(&v.pointee), Some(Ty::Tensor { .. }));
    if (a.is_none() && b.is_none() && !tensor(g) && !tensor(f)) || (a.is_some() && a == b) {
        return Ok(());
    }
    Err((
        g.line,
        g.col,
        format!(
            "`%{}` shares its descriptor (DescriptorSet and Binding) with `%{first}`, but not its texels: two views of one image have the same texel size, coordinates (Dim, Arrayed), channels (Image Format) and MS",
            g.id
        ),
    ))
}

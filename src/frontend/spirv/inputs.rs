//! The user's inputs ([`crate::frontend::inputs`]) resolved against a
//! module: each target to its variable and the cells under it, as the
//! initial contents the `@Input` header gives (an [`Init`] tree per
//! variable) and the cells whose value is arbitrary.

use super::headers::Init;
use super::module::{Class, MAX_LAYOUT, Module, Ty};
use super::syntax::{Inst, Located, Tok};
use crate::frontend::inputs::{Contents, Input, Number, Step, copy_of, steps};
use ::spirv::Op;
use std::collections::HashMap;

/// The inputs of a module.
#[derive(Default)]
pub(super) struct Resolved {
    /// Initial contents per variable id, nested like its type.
    pub inits: HashMap<String, Init>,
    /// Per variable id, the index paths whose cells start arbitrary (a cell
    /// is arbitrary when its path starts with one of them).
    pub arbitrary: HashMap<String, Vec<Vec<usize>>>,
    /// The variables an input gives the length of the runtime array they
    /// end with.
    pub lengths: std::collections::HashSet<String>,
    /// The variables an input gives an image extent (of the variable, or
    /// of an element of an array of images).
    pub extents: std::collections::HashSet<String>,
    /// Initial contents per workgroup variable id and workgroup, for the
    /// copies an input names (`seen@wg1`): the variable's plain contents
    /// with the copy's inputs over them. A copy not here starts as
    /// `inits` (or the default) says.
    pub copies: HashMap<(String, usize), Init>,
    /// The same for the cells a copy's input makes arbitrary.
    pub copy_arbitrary: HashMap<(String, usize), Vec<Vec<usize>>>,
}

impl Resolved {
    /// Whether the cell at `path` of the workgroup `instance`'s copy of
    /// variable `id` starts arbitrary (every copy's, or this copy's).
    pub fn is_arbitrary(&self, id: &str, instance: usize, path: &[usize]) -> bool {
        let under = |paths: Option<&Vec<Vec<usize>>>| {
            paths.is_some_and(|ps| ps.iter().any(|p| path.starts_with(p)))
        };
        under(self.arbitrary.get(id)) || under(self.copy_arbitrary.get(&(id.to_string(), instance)))
    }
}

/// Resolves `inputs` against the module. A target that names no variable,
/// no member or an element past the end is an error listing what there is.
///
/// `workgroups` is the dispatch's workgroup count: an input naming a
/// workgroup variable's copy (`seen@wg1`, [`crate::frontend::inputs::copy_of`])
/// names one of them, and applies over the variable's plain inputs.
pub(super) fn resolve(
    insts: &[Inst],
    m: &Module,
    inputs: &[Input],
    workgroups: usize,
) -> Result<Resolved, Located> {
    let mut out = Resolved::default();
    if inputs.is_empty() {
        return Ok(out);
    }
    let member_names = member_names(insts);
    let names = op_names(insts);
    // Lengths first: they shape the trees the contents then fill.
    let mut lengths: HashMap<String, usize> = HashMap::new();
    let mut resolved: Vec<(&Input, String, Vec<usize>, String)> = Vec::new();
    let mut copies: Vec<(&Input, String, Vec<usize>, String, usize)> = Vec::new();
    for input in inputs {
        let err = |m: String| (0, 0, format!("{}: {m}", named(input)));
        let (target, copy) = copy_of(&input.target).map_err(|e| (0, 0, e))?;
        let st = steps(target).map_err(|e| (0, 0, e))?;
        let (var, st) = variable_of(m, &names, &member_names, st).map_err(err)?;
        if let Some(k) = copy {
            if var.class != Class::Workgroup {
                return Err(err(format!(
                    "`@wg{k}` names a workgroup's copy, and only workgroup (shared) memory has one per workgroup: name the variable without `@wg{k}`"
                )));
            }
            if k >= workgroups {
                return Err(err(format!(
                    "the dispatch has no workgroup {k}: it has {workgroups} (copies `@wg0` to `@wg{}`; `--workgroups` or `workgroups` sets the count)",
                    workgroups - 1
                )));
            }
            if input.length.is_some() || input.extent.is_some() {
                return Err(err(
                    "a workgroup's copy takes values, `zero` or `arbitrary`: its size is the variable's".into(),
                ));
            }
            let (path, ty) = walk(m, &member_names, &var.pointee, &st[1..], None).map_err(err)?;
            copies.push((input, var.id.clone(), path, ty, k));
            continue;
        }
        let (path, ty) =
            walk(m, &member_names, &var.pointee, &st[1..], input.length).map_err(err)?;
        if let Some(n) = input.length {
            lengths.insert(var.id.clone(), n);
            out.lengths.insert(var.id.clone());
        }
        if input.extent.is_some() {
            out.extents.insert(var.id.clone());
        }
        resolved.push((input, var.id.clone(), path, ty));
    }
    // Extents first: they reshape the trees that values then fill.
    resolved.sort_by_key(|r| r.0.extent.is_none());
    for (input, id, path, ty) in resolved {
        let err = |m: String| (0, 0, format!("{}: {m}", named(input)));
        if input.extent.is_some() && !holds_image(m, &ty) {
            return Err(err(
                "an extent is an image's size, and this is not an image or an array of images (a buffer's runtime array takes `--length`)".into(),
            ));
        }
        let g = m
            .globals
            .iter()
            .find(|g| g.id == id)
            .expect("resolved above");
        let len = lengths.get(&id).copied().unwrap_or(1);
        if !out.inits.contains_key(&id) {
            let tree = skeleton(m, &g.pointee, len).map_err(err)?;
            out.inits.insert(id.clone(), tree);
        }
        let tree = out.inits.get_mut(&id).expect("inserted above");
        let sub = descend(tree, &path).map_err(err)?;
        // An image's extent reshapes its texel lists (every image under
        // the target: each element of an array of images).
        if let Some(extent) = &input.extent {
            *sub = grown(m, &ty, len, Some(extent)).map_err(err)?;
        }
        match &input.contents {
            Contents::Default => {}
            Contents::Zero => fill(sub, &mut std::iter::repeat(0)),
            Contents::Values(vals) => fill_values(m, &ty, sub, vals).map_err(err)?,
            Contents::Arbitrary => {
                if g.class == Class::Invocation {
                    return Err(err(
                        "an arbitrary push constant or private variable is not supported: give its values".into(),
                    ));
                }
                out.arbitrary
                    .entry(id.clone())
                    .or_default()
                    .push(path.clone());
            }
        }
    }
    // The copies: each starts as the variable's plain contents, then
    // takes its own inputs in order.
    for (input, id, path, ty, k) in copies {
        let err = |m: String| (0, 0, format!("{}: {m}", named(input)));
        let g = m
            .globals
            .iter()
            .find(|g| g.id == id)
            .expect("resolved above");
        let key = (id.clone(), k);
        if !out.copies.contains_key(&key) {
            let tree = match out.inits.get(&id) {
                Some(t) => t.clone(),
                None => skeleton(m, &g.pointee, 1).map_err(err)?,
            };
            out.copies.insert(key.clone(), tree);
        }
        let tree = out.copies.get_mut(&key).expect("inserted above");
        let sub = descend(tree, &path).map_err(err)?;
        match &input.contents {
            Contents::Default => {}
            Contents::Zero => fill(sub, &mut std::iter::repeat(0)),
            Contents::Values(vals) => fill_values(m, &ty, sub, vals).map_err(err)?,
            Contents::Arbitrary => out.copy_arbitrary.entry(key).or_default().push(path),
        }
    }
    Ok(out)
}

/// Fills `sub`, a value of type `ty`, with `vals`: one value for every
/// cell, or one per cell. A float literal takes the bits of its value at
/// the width of the float cell it fills (an integer cell refuses it).
fn fill_values(m: &Module, ty: &str, sub: &mut Init, vals: &[Number]) -> Result<(), String> {
    let leaves = count(sub);
    if vals.len() != 1 && vals.len() != leaves {
        return Err(format!(
            "{} values for {leaves} cells (give one value per cell, or one for all)",
            vals.len()
        ));
    }
    // The cells' kinds, in the order `fill` visits them, where a float
    // literal needs them.
    let kinds: Vec<crate::ir::ValueKind> = if vals.iter().any(|v| matches!(v, Number::Float(_))) {
        let mut cells = Vec::new();
        m.cells(ty, 0, &mut Vec::new(), Some(&*sub), &mut cells)?;
        cells.iter().map(|c| c.kind).collect()
    } else {
        Vec::new()
    };
    let mut bits = Vec::with_capacity(leaves);
    for i in 0..leaves {
        let v = if vals.len() == 1 { &vals[0] } else { &vals[i] };
        bits.push(match v {
            Number::Int(v) => *v,
            Number::Float(text) => kinds
                .get(i)
                .ok_or("a float value where vkmm cannot tell the cell's type")?
                .float_bits(text)
                .map_err(|e| format!("cell {i}: {e}"))?,
        });
    }
    fill(sub, &mut bits.into_iter());
    Ok(())
}

/// An input as errors about it name it: its target, and where it is
/// written (`input `img` (`--extent img=2x3x4`)`).
fn named(input: &Input) -> String {
    match &input.origin {
        Some(origin) => format!("input `{}` ({origin})", input.target),
        None => format!("input `{}`", input.target),
    }
}

/// The cell a name in a condition means, named as conditions name cells
/// (`%out[0][0]`): the name read as an input target (a variable's name,
/// its block type's name, then `.field` and `[i]` steps, into naga's
/// wrapper struct as an input goes), `None` where it names no variable or
/// no step fits (the name is then read as written).
pub(super) fn cell_of(insts: &[Inst], m: &Module, target: &str) -> Option<String> {
    let st = crate::frontend::inputs::steps(target).ok()?;
    let members = member_names(insts);
    let (var, st) = variable_of(m, &op_names(insts), &members, st).ok()?;
    // Any element: whether a cell is there is the condition's to say.
    let (mut path, mut ty) = walk(m, &members, &var.pointee, &st[1..], Some(usize::MAX)).ok()?;
    // A name that ends on a wrapper (WGSL's `var<storage> out: u32` is
    // `{ u32 }`) means its member.
    while let Some(Ty::Struct { members: ms }) = m.ty(&ty)
        && ms.len() == 1
        && members
            .get(&(ty.clone(), 0))
            .is_none_or(|n| n.is_empty() || n == "@data")
    {
        path.push(0);
        ty = ms[0].clone();
    }
    Some(super::lower::cell_name(&var.id, &path, 0))
}

/// `OpName` of each id.
pub(super) fn op_names(insts: &[Inst]) -> HashMap<String, String> {
    insts
        .iter()
        .filter(|i| i.op == Op::Name)
        .filter_map(|i| match i.operands.get(1).map(|o| &o.tok) {
            Some(Tok::Str(s)) => Some((i.id(0).ok()?.to_string(), s.clone())),
            _ => None,
        })
        .collect()
}

/// `OpMemberName`: (struct type id, member index) to name.
pub(super) fn member_names(insts: &[Inst]) -> HashMap<(String, usize), String> {
    insts
        .iter()
        .filter(|i| i.op == Op::MemberName)
        .filter_map(|i| {
            let k = usize::try_from(i.int(1).ok()?).ok()?;
            match i.operands.get(2).map(|o| &o.tok) {
                Some(Tok::Str(s)) => Some(((i.id(0).ok()?.to_string(), k), s.clone())),
                _ => None,
            }
        })
        .collect()
}

/// The variable a target's steps name (their first, as [`variable`] reads
/// it) and the steps, the first standing for the variable. A first name
/// no variable answers to may be a member of a block without an instance name, which the shader names
/// alone (GLSL's `buffer Pos { uint values[]; };` uses `values`; HLSL's
/// `cbuffer ubo { UBO params; }` uses `params`): where exactly one such
/// block has a member of that name, the steps start at that member.
fn variable_of<'m>(
    m: &'m Module,
    names: &HashMap<String, String>,
    members: &HashMap<(String, usize), String>,
    st: Vec<Step>,
) -> Result<(&'m super::module::Global, Vec<Step>), String> {
    let first = st.first().ok_or("an empty target")?;
    match variable(m, names, first) {
        Ok(g) => Ok((g, st)),
        Err(e) => {
            let Step::Name(n) = first.clone() else {
                return Err(e);
            };
            let mut blocks = m.globals.iter().filter(|g| {
                names.get(&g.id).is_none_or(String::is_empty)
                    && matches!(g.class, Class::Global | Class::Workgroup)
                    && m.builtin(&g.id).is_none()
                    && members
                        .iter()
                        .any(|((ty, _), name)| *ty == g.pointee && *name == n)
            });
            match (blocks.next(), blocks.next()) {
                // The member is the first step into the block.
                (Some(g), None) => {
                    let mut steps = vec![Step::Name(n.clone()), Step::Field(n)];
                    steps.extend(st.into_iter().skip(1));
                    Ok((g, steps))
                }
                _ => Err(e),
            }
        }
    }
}

/// The variable a target's first step names: by id or `OpName`, by its
/// block type's name, or by descriptor set and binding.
pub(super) fn variable<'m>(
    m: &'m Module,
    names: &HashMap<String, String>,
    step: &Step,
) -> Result<&'m super::module::Global, String> {
    let candidates = || {
        m.globals
            .iter()
            .filter(|g| {
                matches!(g.class, Class::Global | Class::Workgroup | Class::Image)
                    || g.class_name == "PushConstant"
            })
            .filter(|g| m.builtin(&g.id).is_none())
    };
    // `name (block Type, set.binding)`; a block without an instance name
    // (GLSL's anonymous blocks) is named by its type.
    let shown = |g: &super::module::Global| {
        let name = names.get(&g.id).filter(|n| !n.is_empty());
        let block = names.get(&g.pointee).filter(|n| !n.is_empty());
        let place = match (
            m.int_decoration(&g.id, "DescriptorSet"),
            m.int_decoration(&g.id, "Binding"),
        ) {
            (Some(s), Some(b)) => format!("{s}.{b}"),
            _ => g.class_name.clone(),
        };
        match (name, block) {
            (Some(n), Some(b)) => format!("{n} (block {b}, {place})"),
            (Some(n), None) => format!("{n} ({place})"),
            (None, Some(b)) => format!("{b} (a block without an instance name, {place})"),
            (None, None) => format!("%{} ({place})", g.id),
        }
    };
    let found: Vec<_> = candidates()
        .filter(|g| match step {
            Step::Name(n) => {
                g.id == *n
                    || names.get(&g.id) == Some(n)
                    || g.pointee == *n
                    || names.get(&g.pointee) == Some(n)
            }
            Step::Binding(s, b) => {
                m.int_decoration(&g.id, "DescriptorSet") == Some(i64::from(*s))
                    && m.int_decoration(&g.id, "Binding") == Some(i64::from(*b))
            }
            _ => false,
        })
        .collect();
    // A variable's own name wins over a block type's name: glslang gives
    // HLSL buffers of one element type one block type, named after the
    // first (`RWStructuredBuffer<uint4> b_scanIn, b_scanOut` are two
    // variables of block type `b_scanIn`), and `b_scanIn` is the variable.
    let own: Vec<_> = match step {
        Step::Name(n) if found.len() > 1 => found
            .iter()
            .copied()
            .filter(|g| g.id == *n || names.get(&g.id) == Some(n))
            .collect(),
        _ => Vec::new(),
    };
    if let [g] = own.as_slice() {
        return Ok(g);
    }
    match found.as_slice() {
        [g] => Ok(g),
        [] => {
            let all: Vec<String> = candidates().map(shown).collect();
            Err(format!(
                "no buffer, uniform, push constant or workgroup variable is named so (the shader's: {})",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join("; ")
                }
            ))
        }
        several => Err(format!(
            "names several variables ({}): name one by SET.BINDING",
            several
                .iter()
                .map(|g| shown(g))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// The index path of the steps into type `ty`.
fn walk(
    m: &Module,
    members: &HashMap<(String, usize), String>,
    ty: &str,
    steps: &[Step],
    length: Option<usize>,
) -> Result<(Vec<usize>, String), String> {
    let mut path = Vec::new();
    let mut ty = ty.to_string();
    // Inside an image: the index steps left (its coordinates, then the
    // channel of a texel of several), each any index: whether a texel is
    // there is the extent's to say.
    let mut texel: Option<usize> = None;
    for step in steps {
        if let Some(left) = texel {
            match step {
                Step::Index(i) if left > 0 => {
                    path.push(*i);
                    texel = Some(left - 1);
                    continue;
                }
                _ => {
                    return Err(
                        "a step past a texel: an image takes one `[i]` per coordinate, then one for the channel of a texel of several".into(),
                    );
                }
            }
        }
        // naga wraps a WGSL buffer's type in a struct of one unnamed member
        // (`var<storage> out: array<u32>` is `{ array<u32> }`), glslang an
        // HLSL structured buffer's in one named `@data`
        // (`RWStructuredBuffer<uint> b` is `{ uint @data[] }`): a step the
        // wrapper cannot take goes into its member.
        while let Some(Ty::Struct { members: ms }) = m.ty(&ty)
            && ms.len() == 1
            && !matches!(step, Step::Field(f) if members.get(&(ty.clone(), 0)) == Some(f))
            && members
                .get(&(ty.clone(), 0))
                .is_none_or(|n| n.is_empty() || n == "@data")
        {
            path.push(0);
            ty = ms[0].clone();
        }
        match (step, m.ty(&ty)) {
            (Step::Field(f), Some(Ty::Struct { members: ms })) => {
                let k = (0..ms.len())
                    .find(|&k| members.get(&(ty.clone(), k)) == Some(f))
                    .ok_or_else(|| {
                        let known: Vec<String> = (0..ms.len())
                            .map(|k| {
                                members
                                    .get(&(ty.clone(), k))
                                    .cloned()
                                    .unwrap_or_else(|| k.to_string())
                            })
                            .collect();
                        format!("no member `{f}` (members: {})", known.join(", "))
                    })?;
                path.push(k);
                ty = ms[k].clone();
            }
            (Step::Index(i), Some(Ty::Array { elem, len })) => {
                if i >= len {
                    return Err(format!("element {i} is past the end of an array of {len}"));
                }
                path.push(*i);
                ty = elem.clone();
            }
            (Step::Index(i), Some(Ty::Vector { elem, n })) => {
                if i >= n {
                    return Err(format!("element {i} is past the end of a vector of {n}"));
                }
                path.push(*i);
                ty = elem.clone();
            }
            (Step::Index(i), Some(Ty::Matrix { col, cols, .. })) => {
                if i >= cols {
                    return Err(format!("column {i} is past the end of a matrix of {cols}"));
                }
                path.push(*i);
                ty = col.clone();
            }
            (Step::Index(i), Some(Ty::RuntimeArray { elem })) => {
                let len = length.unwrap_or(1);
                if *i >= len {
                    return Err(format!(
                        "element {i} is past the end of the runtime array ({len} elements; give its length with --length)"
                    ));
                }
                path.push(*i);
                ty = elem.clone();
            }
            (
                Step::Index(i),
                Some(Ty::Image { .. } | Ty::SampledImage { .. } | Ty::Tensor { .. }),
            ) => {
                let image = match m.ty(&ty) {
                    Some(Ty::SampledImage { image }) => image.clone(),
                    _ => ty.clone(),
                };
                let (dims, channels, elem) = match m.ty(&image) {
                    Some(
                        Ty::Image {
                            dims,
                            channels,
                            elem,
                            ..
                        }
                        | Ty::Tensor {
                            dims,
                            channels,
                            elem,
                            ..
                        },
                    ) => (*dims, *channels, elem.clone()),
                    _ => return Err("a sampled image of something that is not an image".into()),
                };
                path.push(*i);
                texel = Some((dims + usize::from(channels > 1)).saturating_sub(1));
                // (No extent or length applies inside an image.)
                ty = elem;
            }
            (Step::Field(f), _) => {
                return Err(format!("`.{f}` steps into something that is not a struct"));
            }
            (Step::Index(i), _) => {
                return Err(format!("`[{i}]` steps into something that is not an array"));
            }
            _ => return Err("a variable step after the first".into()),
        }
    }
    Ok((path, ty))
}

/// A tree of zeros shaped like type `ty`, runtime arrays `len` long.
/// The tree is refused once it holds more scalar cells than a variable may
/// have, before it is built whole: `--length` up to 2^20 times an element
/// of 4096 x 4096 cells would not fit in memory.
fn skeleton(m: &Module, ty: &str, len: usize) -> Result<Init, String> {
    grown(m, ty, len, None)
}

/// [`skeleton`], its images of the given extent (else their default
/// extent, `image::default_extents`).
fn grown(m: &Module, ty: &str, len: usize, extent: Option<&[usize]>) -> Result<Init, String> {
    let mut budget = Budget {
        leaves: 0,
        nodes: 0,
        extent,
    };
    grow(m, ty, len, 0, &mut budget)
}

/// The cells and nodes a skeleton holds so far. Nodes are bounded too: a
/// type without scalars (an empty struct) still makes lists.
struct Budget<'e> {
    leaves: usize,
    nodes: usize,
    /// The extent of the images in the tree, when the input gives one.
    extent: Option<&'e [usize]>,
}

fn grow(m: &Module, ty: &str, len: usize, depth: usize, b: &mut Budget) -> Result<Init, String> {
    if depth > 32 {
        return Err("types nest too deeply".into());
    }
    // A variable of at most MAX_LAYOUT scalars, nested at most 33 deep,
    // has at most 34 nodes per scalar.
    b.nodes += 1;
    if b.leaves > MAX_LAYOUT || b.nodes > 34 * MAX_LAYOUT {
        return Err(format!("more than {MAX_LAYOUT} scalar cells"));
    }
    let list = |n: usize, elem: &str, b: &mut Budget| -> Result<Init, String> {
        (0..n)
            .map(|_| grow(m, elem, len, depth + 1, b))
            .collect::<Result<_, _>>()
            .map(Init::List)
    };
    Ok(match m.ty(ty) {
        Some(Ty::Bool | Ty::Int { .. } | Ty::Float { .. }) => {
            b.leaves += 1;
            Init::Num(0)
        }
        Some(Ty::Vector { elem, n }) => list(*n, elem, b)?,
        Some(Ty::Matrix { col, cols, .. }) => list(*cols, col, b)?,
        Some(Ty::Array { elem, len: n }) => list(*n, elem, b)?,
        Some(Ty::RuntimeArray { elem }) => list(len, elem, b)?,
        Some(Ty::Struct { members }) => Init::List(
            members
                .iter()
                .map(|t| grow(m, t, len, depth + 1, b))
                .collect::<Result<_, _>>()?,
        ),
        Some(Ty::SampledImage { image }) => grow(m, image, len, depth + 1, b)?,
        Some(whole @ Ty::Image { dims, channels, .. }) => {
            // Nested lists, one level per coordinate, then the channels
            // of a texel (`Module::cells` reads the extent from them).
            let extents = match b.extent {
                Some(e) if e.len() == *dims => e.to_vec(),
                Some(e) => {
                    return Err(format!(
                        "the image has {dims} coordinate{} (x, y, z as its Dim has them, then the layer if arrayed, then the sample if multisampled), the extent gives {}",
                        if *dims == 1 { "" } else { "s" },
                        e.len()
                    ));
                }
                None => super::image::default_extents(whole),
            };
            let cells = extents.iter().product::<usize>().saturating_mul(*channels);
            if b.leaves.saturating_add(cells) > MAX_LAYOUT {
                return Err(format!("more than {MAX_LAYOUT} scalar cells"));
            }
            fn level(rest: &[usize], channels: usize, b: &mut Budget) -> Init {
                match rest.split_first() {
                    None if channels == 1 => {
                        b.leaves += 1;
                        Init::Num(0)
                    }
                    None => {
                        b.leaves += channels;
                        Init::List(vec![Init::Num(0); channels])
                    }
                    Some((&n, rest)) => {
                        b.nodes += n;
                        Init::List((0..n).map(|_| level(rest, channels, b)).collect())
                    }
                }
            }
            level(&extents, *channels, b)
        }
        _ => {
            return Err(
                "its type holds no values vkmm can set (an opaque type: a sampler, an acceleration structure)".into(),
            );
        }
    })
}

fn descend<'a>(tree: &'a mut Init, path: &[usize]) -> Result<&'a mut Init, String> {
    let mut t = tree;
    for &k in path {
        t = match t {
            Init::List(items) => items.get_mut(k).ok_or("a step past the end")?,
            Init::Num(_) => return Err("a step into a number".into()),
        };
    }
    Ok(t)
}

fn count(t: &Init) -> usize {
    match t {
        Init::Num(_) => 1,
        Init::List(items) => items.iter().map(count).sum(),
    }
}

fn fill(t: &mut Init, vals: &mut dyn Iterator<Item = i64>) {
    match t {
        Init::Num(v) => *v = vals.next().unwrap_or(0),
        Init::List(items) => items.iter_mut().for_each(|i| fill(i, vals)),
    }
}

/// The warnings for buffers that end with a runtime-sized array no input
/// gives a length (`--length`, an inputs or dispatch file's `length`, an
/// `@Input` header's list), and for images no input gives an extent
/// (`--extent`, `extent`): vkmm checks such a buffer at one element
/// (`runtime_array_len`) and such an image at one texel per coordinate
/// (`image::default_extents`), which a shader indexing past them reads as
/// out of bounds. Only variables some instruction uses are named; each
/// warning is at the variable (its declaration in a compiled shader's
/// source) and names the option that sets the size, spelled as the
/// inputs take the variable.
pub(super) fn default_sizes(
    insts: &[Inst],
    m: &Module,
    given: &Resolved,
    headers: &[(String, Init, usize, usize)],
) -> Vec<(usize, usize, String)> {
    let names = op_names(insts);
    // A variable sharing its binding with an earlier one is sized as that
    // one is (the inputs go to the first).
    let aliases = super::layout::aliases(m);
    let mut out = Vec::new();
    for g in &m.globals {
        if aliases.contains_key(&g.id) {
            continue;
        }
        let buffer = g.class == Class::Global
            && !given.lengths.contains(&g.id)
            && ends_with_runtime_array(m, &g.pointee);
        let image = matches!(g.class, Class::Global | Class::Image)
            && !given.extents.contains(&g.id)
            && holds_image(m, &g.pointee);
        if !(buffer || image) || g.init.is_some() || headers.iter().any(|h| h.0 == g.id) {
            continue;
        }
        let used = insts.iter().any(|i| {
            !matches!(
                i.op,
                Op::Name | Op::Decorate | Op::EntryPoint | Op::MemberDecorate
            ) && i
                .operands
                .iter()
                .any(|o| matches!(&o.tok, Tok::Id(s) if *s == g.id))
        });
        if !used {
            continue;
        }
        let (target, binding) = input_target(m, &names, g);
        let place = binding.map_or_else(String::new, |b| format!(" (binding {b})"));
        // The target as a TOML key: quoted unless bare (`"0.1"`).
        let key = if target
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            target.clone()
        } else {
            format!("\"{target}\"")
        };
        let message = if buffer {
            format!(
                "`{target}`{place} ends with a runtime-sized array that no input gives a length: vkmm checks it at 1 element; give the length the host binds with `--length {target}=N` (in a dispatch or inputs file: `{key} = {{ length = N }}` under [inputs])"
            )
        } else {
            // One size per coordinate: `W`, `WxH`, `WxHxD`, ...
            let sizes = ["W", "H", "D", "S"][..image_dims(m, &g.pointee).clamp(1, 4)].join("x");
            format!(
                "`{target}`{place} is an image that no input gives an extent: vkmm checks it at 1 texel per coordinate; give the size the host creates with `--extent {target}={sizes}` (one size per coordinate; in a dispatch file: `extent = {{ {key} = \"{sizes}\" }}`)"
            )
        };
        out.push((g.line, g.col, message));
    }
    out
}

/// The coordinates of the images type `ty` holds (2 where unknown).
fn image_dims(m: &Module, ty: &str) -> usize {
    match m.ty(ty) {
        Some(Ty::Image { dims, .. } | Ty::Tensor { dims, .. }) => *dims,
        Some(Ty::SampledImage { image }) => image_dims(m, image),
        Some(Ty::Array { elem, .. } | Ty::RuntimeArray { elem }) => image_dims(m, elem),
        _ => 2,
    }
}

/// Whether type `ty` is an image, or an array of them.
fn holds_image(m: &Module, ty: &str) -> bool {
    match m.ty(ty) {
        Some(Ty::Image { .. } | Ty::SampledImage { .. } | Ty::Tensor { .. }) => true,
        Some(Ty::Array { elem, .. } | Ty::RuntimeArray { elem }) => holds_image(m, elem),
        _ => false,
    }
}

/// The name an input takes for the global variable `g`: the variable's,
/// its block's, else SET.BINDING (as `variable` resolves them); and its
/// SET.BINDING, when it has one.
pub(super) fn input_target(
    m: &Module,
    names: &HashMap<String, String>,
    g: &super::module::Global,
) -> (String, Option<String>) {
    let binding = match (
        m.int_decoration(&g.id, "DescriptorSet"),
        m.int_decoration(&g.id, "Binding"),
    ) {
        (Some(s), Some(b)) => Some(format!("{s}.{b}")),
        _ => None,
    };
    let unique =
        |n: &String| variable(m, names, &Step::Name(n.clone())).is_ok_and(|v| v.id == g.id);
    let target = names
        .get(&g.id)
        .filter(|n| !n.is_empty() && unique(n))
        .or_else(|| names.get(&g.pointee).filter(|n| !n.is_empty() && unique(n)))
        .cloned()
        .or(binding.clone())
        .unwrap_or_else(|| format!("%{}", g.id));
    (target, binding)
}

/// A constant index past the end of a buffer that ends with a
/// runtime-sized array: the words that name the buffer as the inputs do
/// and the option giving its length, for the error at that access.
pub(super) fn past_runtime_end(insts: &[Inst], m: &Module, var: &str) -> Option<String> {
    let g = m.globals.iter().find(|g| g.id == var)?;
    if !ends_with_runtime_array(m, &g.pointee) {
        return None;
    }
    let (target, _) = input_target(m, &op_names(insts), g);
    Some(format!(
        "`{target}`, which ends with a runtime-sized array as long as its input makes it (1 element unless given): give the length the host binds with `--length {target}=N`"
    ))
}

/// Whether a value of type `ty` ends with a runtime-sized array (a
/// runtime array, or a struct whose last member does).
fn ends_with_runtime_array(m: &Module, ty: &str) -> bool {
    let mut ty = ty.to_string();
    for _ in 0..34 {
        match m.ty(&ty) {
            Some(Ty::RuntimeArray { .. }) => return true,
            Some(Ty::Struct { members }) => match members.last() {
                Some(last) => ty = last.clone(),
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

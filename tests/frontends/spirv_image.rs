//! SPIR-V storage images (issue 16; docs/format-spirv.md, "Images";
//! src/frontend/spirv/image.rs, src/frontend/spirv/lower/image.rs):
//! `OpImageRead` / `OpImageWrite` are non-atomic texel accesses of the
//! Image storage class with the texel flags, `OpImageTexelPointer` a
//! pointer for atomics. Hand-derived verdicts in tests/fixtures/litmus-spirv-image
//! (each file quotes its sentences), the IR the instructions become, and
//! located errors.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::ir::{AccessKind, OpKind, StorageClass};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-spirv-image")
}

#[test]
fn spirv_image_tests_give_their_hand_derived_verdicts() {
    common::assert_csv_verdicts(&dir(), 26);
}

/// The appendix: "an image write instruction that includes
/// MakeTexelAvailable, performs an availability operation"; "Memory
/// operations with the NonPrivatePointer/NonPrivateTexel bit set are
/// treated as non-private"; "The ImageMemory storage class semantic
/// applies to accesses to memory in the Image storage class" (sc2, the
/// class ImageMemory semantics name).
/// The texel accesses of `p`'s invocations.
fn texels(p: &vkmm::ir::Program) -> Vec<&vkmm::ir::Instruction> {
    p.threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.access_kind == AccessKind::Texel)
        .collect()
}

#[test]
fn texel_accesses_carry_the_texel_flags_in_the_image_class() {
    let p = vkmm::frontend::load(&dir().join("image-mp.spvasm")).unwrap();
    let texel: Vec<_> = texels(&p);
    // The writer's write and the reader's read (each invocation's code
    // holds the branch it takes only: the other is unreached).
    assert_eq!(texel.len(), 2);
    for i in &texel {
        assert_eq!(i.storage_class, Some(StorageClass(2)));
        assert!(i.non_private);
        assert_eq!(i.scope, Some(vkmm::ir::Scope::Device));
        let loc = &p.locations[i.reference.unwrap()];
        assert_eq!(loc, "%img[1]");
    }
    let w = texel
        .iter()
        .find(|i| matches!(i.kind, OpKind::Store))
        .unwrap();
    assert!(w.make_pointer_available && !w.make_pointer_visible);
    let r = texel
        .iter()
        .find(|i| matches!(i.kind, OpKind::Load))
        .unwrap();
    assert!(r.make_pointer_visible && !r.make_pointer_available);
    // Without Image Operands: private texel accesses, no flag.
    let p = vkmm::frontend::load(&dir().join("image-mp-no-flags.spvasm")).unwrap();
    let texel: Vec<_> = texels(&p);
    assert_eq!(texel.len(), 2);
    assert!(texel.iter().all(|i| !i.non_private
        && !i.make_pointer_available
        && !i.make_pointer_visible
        && i.scope.is_none()));
}

/// OpImageTexelPointer: "Use of such a pointer is limited to atomic
/// operations": the atomic is a pointer access of texel (1, 0), named
/// `%img[1][0]`, in the Image class.
#[test]
fn a_texel_pointer_gives_the_atomic_its_texel() {
    let p = vkmm::frontend::load(&dir().join("image-atomic.spvasm")).unwrap();
    let atomics: Vec<_> = p
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.reference.is_some() && i.storage_class == Some(StorageClass(2)))
        .collect();
    assert_eq!(atomics.len(), 2, "one read-modify-write per invocation");
    for i in atomics {
        assert_eq!(p.locations[i.reference.unwrap()], "%img[1][0]");
        assert_eq!(i.access_kind, AccessKind::Pointer);
    }
}

// ----- located errors ------------------------------------------------------------

fn base(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

/// `name` with `from` replaced by `to` must fail with `message` at the line
/// starting with `at`, column `col`; the unchanged file parses.
fn error(name: &str, from: &str, to: &str, at: &str, col: usize, message: &str) {
    let t = base(name).replace(from, to);
    assert_ne!(t, base(name), "{from}");
    expect_error(name, &t, at, col, message);
}

/// `t` (a changed `name`) fails with `message` at the line starting with
/// `at`, column `col`; the unchanged file parses.
fn expect_error(name: &str, t: &str, at: &str, col: usize, message: &str) {
    let line = common::line_starting(t, at);
    assert_eq!(
        common::parse_spvasm(t).unwrap_err(),
        format!("t.spvasm:{line}:{col}: {message}")
    );
    assert!(common::parse_spvasm(&base(name)).is_ok());
}

#[test]
fn make_texel_available_without_non_private_texel_is_an_error_at_the_operands() {
    error(
        "image-mp.spvasm",
        "MakeTexelAvailable|NonPrivateTexel",
        "MakeTexelAvailable",
        "OpImageWrite",
        26,
        "MakeTexelAvailable \"Requires NonPrivateTexel to also be set\"",
    );
}

#[test]
fn make_texel_visible_on_a_write_is_an_error_at_the_operands() {
    error(
        "image-mp.spvasm",
        "MakeTexelAvailable|NonPrivateTexel",
        "MakeTexelVisible|NonPrivateTexel",
        "OpImageWrite",
        26,
        "MakeTexelVisible is \"Only valid with OpImageRead and OpImageSparseRead\"",
    );
}

/// Vulkan, Shader Out-of-Bounds Memory Access: "Applications must not
/// execute operations that would access out of bounds memory locations
/// unless some form of bounds checking is enabled": a read at a constant
/// coordinate outside the image is refused at the coordinate; a write there
/// is discarded ("If the coordinates are out of bounds, the write is
/// discarded"), so the program loads and its write is gone.
#[test]
fn a_coordinate_outside_the_extent_is_an_error_at_the_coordinate() {
    error(
        "image-mp.spvasm",
        "OpImageRead %v4uint %j %i1",
        "OpImageRead %v4uint %j %c2",
        "%t = OpImageRead",
        29,
        "OpImageRead: the coordinate is outside the image `%img` (extent 2, from its input: without one an image is one texel per coordinate; give its size as `extent = [X, Y, ...]` in the dispatch file's [inputs], or in a Dat3M `@Input`): an out-of-bounds image access is undefined behaviour (\"Applications must not execute operations that would access out of bounds memory locations\")",
    );
    let t = base("image-mp.spvasm").replace("OpImageWrite %i %i1", "OpImageWrite %i %c2");
    let p = common::parse_spvasm(&t).unwrap();
    let writes = p
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.access_kind == AccessKind::Texel && matches!(i.kind, OpKind::Store))
        .count();
    assert_eq!(writes, 0, "the out-of-bounds write is discarded");
}

#[test]
fn unsupported_dims_formats_and_sampled_images_are_refused_at_the_operand() {
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "Buffer 0 0 0 0 R32ui",
        "%imgT",
        40,
        "unsupported construct `OpTypeImage`: Sampled 0 (\"0 indicates this is only known at run time, not at compile time\"): vkmm reads images of Sampled 1 (\"compatible with sampling operations\", read by OpImageFetch) and 2 (\"compatible with read/write operations\")",
    );
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "SubpassData 0 0 0 2 R32ui",
        "%imgT",
        27,
        "unsupported construct `OpTypeImage`: Dim SubpassData; vkmm reads storage images of Dim Buffer, 1D, 2D, 3D or Cube",
    );
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "Buffer 0 0 0 2 Rgba8ui",
        "%imgT",
        42,
        "unsupported construct `OpTypeImage`: Image Format Rgba8ui; vkmm reads texels stored as the Sampled Type, integers of 32 or 64 bits or 32-bit floats a channel (Unknown, R32i, R32ui, R64i, R64ui, Rg32i, Rg32ui, Rgba32i, Rgba32ui, R32f, Rg32f, Rgba32f), and the converted formats Rgba16f, Rg16f, R16f, Rgba8, Rg8, R8, Rgba8Snorm, Rgba16, Rg16, R16",
    );
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "Buffer 0 0 0 2 R64ui",
        "%imgT",
        42,
        "unsupported construct `OpTypeImage`: Image Format R64ui with a 32-bit Sampled Type (vkmm reads a channel as one scalar of the Sampled Type)",
    );
}

/// A 3D image takes three coordinates; a multisampled image needs the
/// Sample image operand ("n is conditionally present and is taken from the
/// Sample image operand"), which an image that is not multisampled refuses.
#[test]
fn coordinates_and_samples_must_match_the_image() {
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "3D 0 0 0 2 R32ui",
        "; @Input",
        31,
        "variable `%img`: the @Input of a 3-coordinate image or tensor nests 3 lists `{{...}, ...}`",
    );
    error(
        "image-layers-samples.spvasm",
        "OpImageWrite %i %at %v56 Sample %i1",
        "OpImageWrite %i %at %v56",
        "OpImageWrite",
        17,
        "OpImageWrite: a multisampled image needs the Sample image operand (\"n is conditionally present and is taken from the Sample image operand\")",
    );
    error(
        "image-mp.spvasm",
        "OpImageWrite %i %i1 %v42 MakeTexelAvailable|NonPrivateTexel %dev",
        "OpImageWrite %i %i1 %v42 Sample %i0",
        "OpImageWrite",
        17,
        "OpImageWrite: the Sample image operand needs a multisampled image (MS 1)",
    );
    error(
        "image-layers-samples.spvasm",
        "%v56 = OpConstantComposite %v2uint %c5 %c6",
        "%v56 = OpConstant %uint 5",
        "OpImageWrite",
        21,
        "OpImageWrite: the image has 2 channels, the texel 1 component",
    );
}

/// The texel channels are separate locations named by their channel, in
/// the Image class; the sample and layer are coordinates.
#[test]
fn each_channel_of_each_sample_is_its_own_location() {
    let p = vkmm::frontend::load(&dir().join("image-layers-samples.spvasm")).unwrap();
    let mut names: Vec<&str> = p
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.access_kind == AccessKind::Texel)
        .map(|i| p.locations[i.reference.unwrap()].as_str())
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(
        names,
        [
            "%img[1][0][0][1][0]",
            "%img[1][0][0][1][1]",
            "%img[1][0][1][1][0]",
            "%img[1][0][1][1][1]"
        ]
    );
}

/// The appendix: "a tensor write instruction that includes
/// MakeElementAvailableARM", "a tensor read instruction that includes
/// MakeElementVisibleARM", "NonPrivateElementARM": the tensor accesses
/// carry the element flags (`ir::AccessKind::ElementArm`) in the Image
/// class (vkmm's reading, MODELS.md).
#[test]
fn tensor_accesses_carry_the_element_flags_in_the_image_class() {
    let p = vkmm::frontend::load(&dir().join("tensor-mp.spvasm")).unwrap();
    let elems: Vec<_> = p
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.access_kind == AccessKind::ElementArm)
        .collect();
    // The writer's write and the reader's read (each invocation lowers
    // the branch it takes only).
    assert_eq!(elems.len(), 2);
    for i in &elems {
        assert_eq!(i.storage_class, Some(StorageClass(2)));
        assert!(i.non_private);
        assert_eq!(i.scope, Some(vkmm::ir::Scope::Device));
        assert_eq!(p.locations[i.reference.unwrap()], "%ten[1]");
        match i.kind {
            OpKind::Store => assert!(i.make_pointer_available && !i.make_pointer_visible),
            _ => assert!(i.make_pointer_visible && !i.make_pointer_available),
        }
    }
}

#[test]
fn malformed_tensor_forms_are_errors_at_their_operand() {
    error(
        "tensor-mp.spvasm",
        "MakeElementAvailableARM|NonPrivateElementARM",
        "MakeElementAvailableARM",
        "OpTensorWriteARM",
        30,
        "MakeElementAvailableARM \"Requires NonPrivateElementARM to also be set\"",
    );
    error(
        "tensor-mp.spvasm",
        "%c42 MakeElementAvailableARM|NonPrivateElementARM",
        "%c42 MakeElementVisibleARM|NonPrivateElementARM",
        "OpTensorWriteARM",
        30,
        "MakeElementVisibleARM is \"Only valid with OpTensorReadARM\"",
    );
    error(
        "tensor-mp.spvasm",
        "%co MakeElementVisibleARM|NonPrivateElementARM %dev",
        "%co MakeElementAvailableARM|NonPrivateElementARM %dev",
        "%t0 = OpTensorReadARM",
        36,
        "MakeElementAvailableARM is \"Only valid with OpTensorWriteARM\"",
    );
    error(
        "tensor-mp.spvasm",
        "%c42 MakeElementAvailableARM|NonPrivateElementARM %dev",
        "%c42 OutOfBoundsValueARM %c0",
        "OpTensorWriteARM",
        30,
        "OutOfBoundsValueARM is \"Only valid with OpTensorReadARM\"",
    );
    error(
        "tensor-mp.spvasm",
        "%tenT = OpTypeTensorARM %uint %c1",
        "%tenT = OpTypeTensorARM %uint",
        "%tenT",
        9,
        "unsupported construct `OpTypeTensorARM`: an unranked tensor; OpTensorReadARM and OpTensorWriteARM: \"'Tensor' must be a 'Ranked Tensor'\"",
    );
    error(
        "tensor-mp.spvasm",
        "%co = OpConstantComposite %arr1 %i1",
        "%co = OpConstantComposite %v2int %i1 %i1",
        "OpTensorWriteARM",
        21,
        "OpTensorWriteARM: this image or tensor takes 1 integer coordinate, found 2",
    );
    error(
        "tensor-mp.spvasm",
        "%t0 = OpTensorReadARM %uint",
        "%t0 = OpTensorReadARM %v3uint",
        "%t0 = OpTensorReadARM",
        23,
        "OpTensorReadARM: \"'Result Type' must be a scalar type or array of scalar type. The scalar type must be the same as the 'Element Type' of 'Tensor'\"",
    );
    error(
        "tensor-mp.spvasm",
        "%i = OpLoad %tenT %ten",
        "%i = OpLoad %tenT %ten\n%q = OpTensorQuerySizeARM %uint %i %c1",
        "%q = OpTensorQuerySizeARM",
        36,
        "OpTensorQuerySizeARM: 'Dimension' 1 \"must be less than the 'Rank' of 'Tensor'\" (1)",
    );
}

/// OpTensorQuerySizeARM: "Query the size of 'Tensor' along 'Dimension'":
/// the extent of the @Input, a constant.
#[test]
fn tensor_query_size_is_the_extent() {
    let t = base("tensor-mp.spvasm").replace(
        "%i = OpLoad %tenT %ten\n",
        "%i = OpLoad %tenT %ten\n%q = OpTensorQuerySizeARM %uint %i %i0\nOpStore %r0p %q\n",
    );
    let t = t.replace("; @Filter: %buf[0][1] == 1\n", "");
    let t = t.replace(
        "; @Output: forall (%buf[0][2] == 42)",
        "; @Output: exists (%buf[0][1] == 2)",
    );
    std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let f = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tensor-query.spvasm");
    std::fs::write(&f, t).unwrap();
    let (code, out, err) = common::vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Observation tensor-query Sometimes"), "{out}");
}

// ----- sampled images (issue 16) -------------------------------------------------

/// OpImageFetch: "Fetch a single texel from an image whose Sampled operand
/// is 1": a texel read (`ir::AccessKind::Texel`) of the location the
/// storage view on the same descriptor writes (`%img[1][0]`, the first
/// variable's name), non-private with NonPrivateTexel and with no
/// visibility of its own (MakeTexelVisible is "Only valid with OpImageRead
/// and OpImageSparseRead"); without NonPrivateTexel it is private.
#[test]
fn a_fetch_is_a_texel_read_of_the_storage_views_location() {
    for (file, non_private) in [
        ("sampled-fetch-mp.spvasm", true),
        ("sampled-fetch-mp-private-fetch.spvasm", false),
    ] {
        let p = vkmm::frontend::load(&dir().join(file)).unwrap();
        let texel: Vec<_> = texels(&p);
        // The writer's write and the reader's fetch (each invocation
        // lowers the branch it takes only).
        assert_eq!(texel.len(), 2, "{file}");
        for i in &texel {
            assert_eq!(i.storage_class, Some(StorageClass(2)), "{file}");
            assert_eq!(p.locations[i.reference.unwrap()], "%img[1][0]", "{file}");
        }
        let fetch = texel
            .iter()
            .find(|i| matches!(i.kind, OpKind::Load))
            .unwrap();
        assert_eq!(fetch.non_private, non_private, "{file}");
        assert!(!fetch.make_pointer_visible && !fetch.make_pointer_available);
        assert_eq!(fetch.scope, None, "{file}");
    }
}

/// `name` with each (from, to) replaced must fail with `message` at the
/// line starting with `at`, at the column of `needle` on that line.
fn error_at(name: &str, subs: &[(&str, &str)], at: &str, needle: &str, message: &str) {
    let mut t = base(name);
    for (from, to) in subs {
        assert!(t.contains(from), "{from}");
        t = t.replace(from, to);
    }
    let line = common::line_starting(&t, at);
    let text = t.lines().nth(line - 1).unwrap();
    // A needle ending in `$` is its last occurrence on the line.
    let col = match needle.strip_suffix('$') {
        Some(n) => text.rfind(n),
        None => text.find(needle),
    }
    .unwrap_or_else(|| panic!("{needle} in {text}"))
        + 1;
    expect_error(name, &t, at, col, message);
}

/// OpImageWrite and OpImageRead: "Image must be an object whose type is
/// OpTypeImage with a Sampled operand of 0 or 2": an image of Sampled 1 is
/// read-only (the write is refused at its image operand); OpImageFetch:
/// "Its Dim operand cannot be Cube, and its Sampled operand must be 1", and
/// "Image must be an object whose type is OpTypeImage" (a sampled image
/// needs OpImage first).
#[test]
fn image_kinds_and_instructions_must_match() {
    error_at(
        "image-mp.spvasm",
        &[("Buffer 0 0 0 2 R32ui", "Buffer 0 0 0 1 R32ui")],
        "OpImageWrite",
        "%i ",
        "OpImageWrite: \"Image must be an object whose type is OpTypeImage with a Sampled operand of 0 or 2\": `%i` is an image of Sampled 1 (for sampling, read-only to vkmm: read its texels with OpImageFetch)",
    );
    error_at(
        "image-mp.spvasm",
        &[(
            "%t = OpImageRead %v4uint %j %i1 MakeTexelVisible|NonPrivateTexel %dev",
            "%t = OpImageFetch %v4uint %j %i1",
        )],
        "%t = OpImageFetch",
        "%j",
        "OpImageFetch: \"Its Dim operand cannot be Cube, and its Sampled operand must be 1\": `%j` is a storage image (Sampled 2): read it with OpImageRead",
    );
    error_at(
        "sampled-fetch-mp.spvasm",
        &[(
            "OpImageFetch %v4uint %j %at",
            "OpImageFetch %v4uint %si %at",
        )],
        "%t = OpImageFetch",
        "%si",
        "OpImageFetch: \"Image must be an object whose type is OpTypeImage\": `%si` is a sampled image (OpTypeSampledImage); OpImage extracts its image",
    );
    // A Cube image for sampling, with its six faces.
    error_at(
        "fetch-forms.spvasm",
        &[
            (
                "%texT = OpTypeImage %uint 2D 0 1 0 1 Rg32ui",
                "%texT = OpTypeImage %uint Cube 0 0 0 1 Rg32ui",
            ),
            (
                "%tex = {{{{1, 2}, {3, 4}}}, {{{5, 6}, {7, 8}}}}",
                "%tex = {{{{1, 2}, {3, 4}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {{{5, 6}, {7, 8}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}",
            ),
        ],
        "%f = OpImageFetch",
        "%t ",
        "OpImageFetch: \"Its Dim operand cannot be Cube, and its Sampled operand must be 1\": `%t` is a Cube image",
    );
    error_at(
        "fetch-forms.spvasm",
        &[(
            "%ms2 = OpSampledImage %msST %m %s",
            "%ms2 = OpSampledImage %msST %m %m",
        )],
        "%ms2 = OpSampledImage",
        "%m$",
        "OpSampledImage: \"Sampler must be an object whose type is OpTypeSampler\"",
    );
    error_at(
        "fetch-forms.spvasm",
        &[(
            "%ms2 = OpSampledImage %msST %m %s",
            "%ms2 = OpSampledImage %msST %c0 %s",
        )],
        "%ms2 = OpSampledImage",
        "%c0 ",
        "OpSampledImage: \"Image is an object whose type is an OpTypeImage, whose Sampled operand is 0 or 1\" (vkmm reads Sampled 1)",
    );
    error_at(
        "fetch-forms.spvasm",
        &[("%m2 = OpImage %msT %ms2", "%m2 = OpImage %msT %m")],
        "%m2 = OpImage",
        "%m$",
        "OpImage: \"Sampled Image must have type OpTypeSampledImage\"",
    );
}

/// The Image Operands of a fetch: Lod "For fetch operations, it must be a
/// 32-bit integer scalar. This must only be used with an OpTypeImage that
/// has a Dim operand of 1D, 2D, 3D, or Cube, and the MS operand must be 0";
/// vkmm models level 0 only (the @Input's texels), so another Lod is
/// refused with that reason; MakeTexelVisible is "Only valid with
/// OpImageRead and OpImageSparseRead"; the Result Type "must be a vector of
/// four components".
#[test]
fn fetch_operands_are_checked_at_the_operand() {
    error_at(
        "sampled-fetch-mp.spvasm",
        &[("Lod|NonPrivateTexel %i0", "Lod|NonPrivateTexel %i1")],
        "%t = OpImageFetch",
        "%i1",
        "OpImageFetch: Lod 1: vkmm's texels (the @Input) are the image's level of detail 0, the only level it models; level 1 has texels it has no locations for",
    );
    error_at(
        "sampled-fetch-mp.spvasm",
        &[(
            "Lod|NonPrivateTexel %i0",
            "Lod|MakeTexelVisible|NonPrivateTexel %i0 %dev",
        )],
        "%t = OpImageFetch",
        "Lod|",
        "MakeTexelVisible is \"Only valid with OpImageRead and OpImageSparseRead\"",
    );
    error_at(
        "fetch-forms.spvasm",
        &[("%origin Sample %i1", "%origin Lod|Sample %i0 %i1")],
        "%g = OpImageFetch",
        "Lod|",
        "Lod: \"This must only be used with an OpTypeImage that has a Dim operand of 1D, 2D, 3D, or Cube, and the MS operand must be 0\"",
    );
    error_at(
        "fetch-forms.spvasm",
        &[("%f = OpImageFetch %v4uint", "%f = OpImageFetch %uint")],
        "%f = OpImageFetch",
        "%uint",
        "OpImageFetch: \"Result Type must be a vector of four components of floating-point type or integer type\"",
    );
    // A fetch outside the image at a constant coordinate, as a read.
    error_at(
        "fetch-forms.spvasm",
        &[(
            "%f = OpImageFetch %v4uint %t %at",
            "%f = OpImageFetch %v4uint %t %face5",
        )],
        "%f = OpImageFetch",
        "%face5",
        "OpImageFetch: the coordinate is outside the image `%tex` (extent 2 x 1 x 2, from its input: without one an image is one texel per coordinate; give its size as `extent = [X, Y, ...]` in the dispatch file's [inputs], or in a Dat3M `@Input`): an out-of-bounds image access is undefined behaviour (\"Applications must not execute operations that would access out of bounds memory locations\")",
    );
}

/// Two views of one descriptor address the same texels alike.
#[test]
fn views_of_one_descriptor_must_agree_on_the_texels() {
    error_at(
        "sampled-fetch-mp.spvasm",
        &[("2D 0 0 0 1 Unknown", "2D 0 0 0 1 Rg32ui")],
        "%tex = OpVariable",
        "OpVariable",
        "`%tex` shares its descriptor (DescriptorSet and Binding) with `%img`, but not its texels: two views of one image have the same texel size, coordinates (Dim, Arrayed), channels (Image Format) and MS",
    );
}

/// Vulkan: "If viewType is VK_IMAGE_VIEW_TYPE_CUBE and
/// subresourceRange.layerCount is not VK_REMAINING_ARRAY_LAYERS,
/// subresourceRange.layerCount must be 6"; "If viewType is
/// VK_IMAGE_VIEW_TYPE_CUBE_ARRAY ..., subresourceRange.layerCount must be a
/// multiple of 6": an @Input with other layer counts is an error at it.
#[test]
fn cube_images_have_six_faces_per_cube() {
    error_at(
        "fetch-forms.spvasm",
        &[
            (
                "%cube = {{{0, 0, 0, 0, 40, 0}}}",
                "%cube = {{{0, 0, 0, 0, 40}}}",
            ),
            ("and %cube[0][0][5] == 5 ", ""),
        ],
        "; @Input",
        "%cube",
        "variable `%cube`: a Cube image has 6 layers, one per face; the @Input gives 5 (Vulkan: \"If viewType is VK_IMAGE_VIEW_TYPE_CUBE and subresourceRange.layerCount is not VK_REMAINING_ARRAY_LAYERS, subresourceRange.layerCount must be 6\")",
    );
    error_at(
        "fetch-forms.spvasm",
        &[(
            "%texT = OpTypeImage %uint 2D 0 1 0 1 Rg32ui",
            "%texT = OpTypeImage %uint Cube 0 1 0 1 Rg32ui",
        )],
        "; @Input",
        "%tex",
        "variable `%tex`: a Cube Arrayed image has a multiple of 6 layers (\"each set of six sequential layers is a single cube\"); the @Input gives 2 (Vulkan: \"If viewType is VK_IMAGE_VIEW_TYPE_CUBE_ARRAY and subresourceRange.layerCount is not VK_REMAINING_ARRAY_LAYERS, subresourceRange.layerCount must be a multiple of 6\")",
    );
    // Twelve layers (two cubes) are fine; without an @Input a Cube image
    // has its six faces.
    let t = base("fetch-forms.spvasm")
        .replace(
            "%cube = {{{0, 0, 0, 0, 40, 0}}}",
            "%cube = {{{0, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0}}}",
        )
        .replace(
            "%cubeT = OpTypeImage %uint Cube 0 0 0 2 R32ui",
            "%cubeT = OpTypeImage %uint Cube 0 1 0 2 R32ui",
        );
    assert!(common::parse_spvasm(&t).is_ok());
    let t = base("fetch-forms.spvasm")
        .replace(", %cube = {{{0, 0, 0, 0, 40, 0}}}", "")
        .replace(" and %cube[0][0][4] == 40", "");
    let p = common::parse_spvasm(&t).unwrap();
    let faces = p
        .locations
        .iter()
        .filter(|l| l.starts_with("%cube["))
        .count();
    assert_eq!(faces, 6);
}

/// SPV_ARM_tensors, OpTypeTensorARM: "'Shape' is the optional shape of the
/// tensor. 'Shape' must be a constant instruction of type OpTypeArray whose
/// 'Element Type' is an integer, interpreted as unsigned, and whose 'Length'
/// is equal to 'Rank'": the bound tensor has that shape, so an @Input of
/// another extent is an error at it; without an @Input the Shape is the
/// extent.
#[test]
fn a_tensor_shape_must_be_the_inputs_extent() {
    let shaped = |n: &str| {
        (
            "%tenT = OpTypeTensorARM %uint %c1\n",
            format!(
                "%shT = OpTypeArray %uint %c1\n%sh = OpConstantComposite %shT %c{n}\n%tenT = OpTypeTensorARM %uint %c1 %sh\n"
            ),
        )
    };
    let (from, to) = shaped("3");
    error_at(
        "tensor-mp.spvasm",
        &[(from, &to)],
        "; @Input",
        "%ten",
        "variable `%ten`: the @Input's extent 2 is not the Shape 3 of the tensor type `%tenT` (OpTypeTensorARM: \"'Shape' is the optional shape of the tensor\": the bound tensor has it)",
    );
    let (from, to) = shaped("2");
    let t = base("tensor-mp.spvasm").replace(from, &to);
    assert!(
        common::parse_spvasm(&t).is_ok(),
        "the Shape 2 is the @Input's"
    );
    let t = t.replace(", %ten = {0, 0}", "");
    let p = common::parse_spvasm(&t).unwrap();
    let elems = p
        .locations
        .iter()
        .filter(|l| l.starts_with("%ten["))
        .count();
    assert_eq!(elems, 2, "without an @Input the Shape is the extent");
    error_at(
        "tensor-mp.spvasm",
        &[(
            "%tenT = OpTypeTensorARM %uint %c1\n",
            "%shT = OpTypeArray %uint %c2\n%sh = OpConstantComposite %shT %c2 %c2\n%tenT = OpTypeTensorARM %uint %c1 %sh\n",
        )],
        "%tenT",
        "%sh",
        "OpTypeTensorARM: \"'Shape' must be a constant instruction of type OpTypeArray whose 'Element Type' is an integer, interpreted as unsigned, and whose 'Length' is equal to 'Rank'\" (1)",
    );
}

/// Sampling and gathers are lowered (tests/frontends/sampling.rs checks
/// what they read); the image instructions vkmm does not model (sparse
/// fetches and reads) are refused at the instruction, naming it and saying
/// why.
#[test]
fn other_image_instructions_are_refused_with_the_reason() {
    for op in [
        "%t = OpImageSampleExplicitLod %v4uint %si %at Lod %i0",
        "%t = OpImageGather %v4uint %si %at %i0",
    ] {
        let t = base("sampled-fetch-mp.spvasm").replace(
            "%t = OpImageFetch %v4uint %j %at Lod|NonPrivateTexel %i0",
            op,
        );
        // Lowered; the fixture's condition reads the cell the sampled
        // value is stored in, which vkmm cannot decide.
        let e = common::parse_spvasm(&t).unwrap_err();
        assert!(
            e.contains("reads `%buf[0][2]`, which may hold the value of a sample"),
            "{op}: {e}"
        );
    }
    let t = base("image-mp.spvasm").replace(
        "%t = OpImageRead %v4uint %j %i1 MakeTexelVisible|NonPrivateTexel %dev",
        "%t = OpImageSparseRead %v4uint %j %i1",
    );
    // A sparse read returns a struct of a Residency Code and the texel.
    let e = common::parse_spvasm(&t).unwrap_err();
    assert!(
        e.contains("OpImageSparseRead: \"Result Type must be an OpTypeStruct with two members. The first member's type must be an integer type scalar\""),
        "{e}"
    );
}

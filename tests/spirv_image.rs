//! SPIR-V storage images (issue 16; docs/format-spirv.md, "Images";
//! src/frontend/spirv/image.rs, src/frontend/spirv/lower/image.rs):
//! `OpImageRead` / `OpImageWrite` are non-atomic texel accesses of the
//! Image storage class with the texel flags, `OpImageTexelPointer` a
//! pointer for atomics. Hand-derived verdicts in tests/litmus-spirv-image
//! (each file quotes its sentences), the IR the instructions become, and
//! located errors.

mod common;

use std::path::{Path, PathBuf};
use vkmm::ir::{AccessKind, OpKind, StorageClass};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/litmus-spirv-image")
}

#[test]
fn spirv_image_tests_give_their_hand_derived_verdicts() {
    common::assert_csv_verdicts(&dir(), 6);
}

/// The appendix: "an image write instruction that includes
/// MakeTexelAvailable, performs an availability operation"; "Memory
/// operations with the NonPrivatePointer/NonPrivateTexel bit set are
/// treated as non-private"; "The ImageMemory storage class semantic
/// applies to accesses to memory in the Image storage class" (sc2, the
/// class ImageMemory semantics name).
#[test]
fn texel_accesses_carry_the_texel_flags_in_the_image_class() {
    let p = vkmm::frontend::load(&dir().join("image-mp.spvasm")).unwrap();
    let texel: Vec<_> = p
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.access_kind == AccessKind::Texel)
        .collect();
    // One write and one read in the code of each of the two invocations
    // (both branches are lowered in each).
    assert_eq!(texel.len(), 4);
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
    let texel: Vec<_> = p
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter(|i| i.access_kind == AccessKind::Texel)
        .collect();
    assert_eq!(texel.len(), 4);
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
    let line = common::line_starting(&t, at);
    assert_eq!(
        common::parse_spvasm(&t).unwrap_err(),
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

#[test]
fn a_coordinate_outside_the_extent_is_an_error_at_the_coordinate() {
    error(
        "image-mp.spvasm",
        "OpImageWrite %i %i1",
        "OpImageWrite %i %c2",
        "OpImageWrite",
        17,
        "OpImageWrite: coordinate 0 is 2, outside the image `%img` (2 texels that way; the extent is the variable's @Input)",
    );
}

#[test]
fn sampled_images_and_other_dims_are_refused_at_the_operand() {
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "Buffer 0 0 0 1 R32ui",
        "%img = OpVariable",
        8,
        "unsupported construct `OpVariable`: `%img` is an image or sampler",
    );
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "3D 0 0 0 2 R32ui",
        "%imgT",
        27,
        "unsupported construct `OpTypeImage`: Dim 3D; vkmm reads storage images of Dim Buffer, 1D or 2D",
    );
    error(
        "image-mp.spvasm",
        "Buffer 0 0 0 2 R32ui",
        "Buffer 0 0 0 2 Rgba32ui",
        "%imgT",
        42,
        "unsupported construct `OpTypeImage`: Image Format Rgba32ui; vkmm reads one-channel integer texels (Unknown, R32i, R32ui, R64i, R64ui)",
    );
}

#[test]
fn other_image_instructions_and_tensors_are_refused_with_the_reason() {
    let t = base("image-mp.spvasm").replace(
        "%t = OpImageRead %v4uint %j %i1 MakeTexelVisible|NonPrivateTexel %dev",
        "%t = OpImageFetch %v4uint %j %i1",
    );
    let e = common::parse_spvasm(&t).unwrap_err();
    assert!(
        e.contains("unsupported construct `OpImageFetch`: vkmm lowers storage images only"),
        "{e}"
    );
    let t = base("image-mp.spvasm").replace(
        "%v2int = OpTypeVector %int 2",
        "%v2int = OpTypeVector %int 2\n%ten = OpTypeTensorARM %uint",
    );
    let e = common::parse_spvasm(&t).unwrap_err();
    assert!(
        e.contains(
            "unsupported construct `OpTypeTensorARM`: vkmm does not lower SPIR-V tensors yet"
        ),
        "{e}"
    );
}

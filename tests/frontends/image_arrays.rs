//! Arrays of image descriptors (`uniform image2D img[N]`) and storage
//! images of float, normalised and integer formats in GLSL shaders
//! (docs/format-spirv.md, "Images"): an element reached by a constant or a
//! runtime index, each element of its own extent (the input's `extent`).
//! Each fixture under tests/fixtures/image-arrays/ derives its results by hand in
//! its header comment and states them as its `@Output` condition; its
//! `.toml` beside it is the dispatch file with the images' extents.

use crate::common;
use common::{glslang, vkmm};

/// `vkmm check --dispatch NAME.toml NAME.comp`: exit code and stdout.
fn check(name: &str) -> (i32, String, String) {
    let dir = "tests/fixtures/image-arrays";
    vkmm(&[
        "check",
        "--dispatch",
        &format!("{dir}/{name}.toml"),
        &format!("{dir}/{name}.comp"),
    ])
}

fn observation(out: &str, name: &str) -> String {
    out.lines()
        .find(|l| l.starts_with(&format!("Observation {name} ")))
        .unwrap_or_else(|| panic!("{name}: no observation in\n{out}"))
        .split_whitespace()
        .nth(2)
        .unwrap()
        .to_string()
}

#[test]
fn a_runtime_index_picks_its_element_of_its_own_extent() {
    if !glslang() {
        return;
    }
    // Invocation 0 writes imgs[1] (0, 0) through `imgs[mip + 1]`; invocation
    // 1 reads it unordered: a race, and 0 is one of its reads.
    let (code, out, err) = check("runtime-index-race");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        observation(&out, "runtime-index-race"),
        "Sometimes",
        "{out}"
    );
    assert!(out.contains("race on imgs[1][0][0]"), "{out}");
    // No access is out of bounds: imgs[2] is 2 x 1, so (1, 0) is in it.
    assert!(!out.contains("out-of-bounds"), "{out}");
}

#[test]
fn reads_by_constant_and_runtime_index() {
    if !glslang() {
        return;
    }
    let (code, out, err) = check("read-each");
    assert_eq!(code, 0, "{err}");
    assert_eq!(observation(&out, "read-each"), "Always", "{out}");
    assert!(out.contains("Data races: none"), "{out}");
}

#[test]
fn float_normalised_and_integer_formats_in_arrays() {
    if !glslang() {
        return;
    }
    let (code, out, err) = check("formats");
    assert_eq!(code, 0, "{err}");
    assert_eq!(observation(&out, "formats"), "Always", "{out}");
}

#[test]
fn image_inputs_are_checked() {
    if !glslang() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("vkmm-image-arrays-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = std::fs::read_to_string("tests/fixtures/image-arrays/read-each.comp")
        .or_else(|_| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/image-arrays/read-each.comp"),
            )
        })
        .unwrap();
    let comp = dir.join("read-each.comp");
    std::fs::write(&comp, &shader).unwrap();
    let run = |toml: &str| {
        let t = dir.join("d.toml");
        std::fs::write(&t, toml).unwrap();
        vkmm(&[
            "check",
            "--dispatch",
            t.to_str().unwrap(),
            comp.to_str().unwrap(),
        ])
    };
    // A 2D image has two coordinates.
    let (code, _, err) = run("[inputs]\n\"imgs[0]\" = { extent = [2, 1, 1] }\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the image has 2 coordinates"), "{err}");
    // A size of 0 is refused where the file is read.
    let (code, _, err) = run("[inputs]\n\"imgs[0]\" = { extent = [0, 1] }\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("extent"), "{err}");
    // A runtime index into images of 2 x 2100 texels: more cells than a
    // runtime access may branch over, a clear error naming the variable.
    // (`pick(i)`'s index is the invocation's constant, folded through the
    // call; one read from the buffer is known only at run time.)
    std::fs::write(&comp, shader.replace("pick(i)", "pick(b.seen[i])")).unwrap();
    let (code, _, err) = run(
        "[inputs]\n\"imgs[0]\" = { extent = [2, 2100] }\n\"imgs[1]\" = { extent = [2, 2100] }\n",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("known only at run time into `%imgs`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sampled_images_are_read_only_inputs_read_by_fetch() {
    if !glslang() {
        return;
    }
    // texelFetch of an array of combined image samplers whose texels the
    // dispatch file gives (sampled-fetch.comp's header).
    let (code, out, err) = check("sampled-fetch");
    assert_eq!(code, 0, "{err}");
    assert_eq!(observation(&out, "sampled-fetch"), "Always", "{out}");
    assert!(out.contains("Data races: none"), "{out}");
}

#[test]
fn filtered_sampling_reads_the_texels_and_hides_its_value() {
    if !glslang() {
        return;
    }
    // textureLod with float coordinates: reads of every texel (which ones
    // a filter reads is the sampler's), a value vkmm does not compute, so
    // the final states leave out the cell that holds it (warning at the
    // sample's line, 6); reads only: race-free (tests/frontends/sampling.rs
    // checks the rest).
    let dir = std::env::temp_dir().join(format!("vkmm-sample-lod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let comp = dir.join("lod.comp");
    std::fs::write(
        &comp,
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(set = 0, binding = 0) uniform sampler2D tex;\nlayout(set = 0, binding = 1) buffer B { uint a; } b;\nvoid main() {\n    b.a = uint(textureLod(tex, vec2(0.5, 0.5), 0.0).x);\n}\n",
    )
    .unwrap();
    let (code, out, err) = vkmm(&["check", comp.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Data races: none"), "{out}");
    assert!(
        err.contains("lod.comp:6:") && err.contains("the final states leave out b.a"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

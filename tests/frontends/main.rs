//! The readers and the shader front ends: SPIR-V, GLSL, WGSL, HLSL lowering, dispatch, shader constructs, the byte-mutation fuzz harnesses.
//!
//! One test binary (`cargo test --release --test frontends`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod fuzz_parsers;
mod fuzz_shaders;
mod glsl;
mod image_arrays;
mod legacy_memory_model;
mod real_shaders_lowering;
mod sampling;
mod shader_assert;
mod shader_constructs;
mod shader_dispatch;
mod shader_limits;
mod source_names;
mod spirv_arith;
mod spirv_binary;
mod spirv_bytes;
mod spirv_coop_matrix;
mod spirv_events;
mod spirv_fixed_index;
mod spirv_float;
mod spirv_image;
mod spirv_out_of_bounds;
mod spirv_read_only;
mod spirv_shader_call;
mod spirv_stages;
mod spirv_undefined;
mod subgroup;
mod unseen_shaders;
mod value_kinds;
mod wgsl;

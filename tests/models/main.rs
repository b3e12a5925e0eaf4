//! The models' rules: spec sentences as litmus tests (appendix, host, interlock, bytes, cooperative matrices, shader calls, OpenCL), and mutation tests that pin each clause.
//!
//! One test binary (`cargo test --release --test models`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod appendix;
mod barriers;
mod bytes;
mod bytes_alloy;
mod bytes_conditions;
mod classes_and_devices;
mod coop_alloy;
mod coop_attributions;
mod coop_matrix;
mod divergence;
mod host;
mod interlock;
mod model_mutations;
mod model_mutations_opencl;
mod opencl_group;
mod opencl_host;
mod opencl_images_pipes;
mod opencl_rest;
mod opencl_vulkan;
mod shader_call;
mod spec_rules;
mod undefined_litmus;

//! The external suites with their authors' verdicts (Khronos Alloy, Dat3M Vulkan and OpenCL, SPIR-V programs) and their ratchets.
//!
//! One test binary (`cargo test --release --test conformance`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod conformance_alloy;
mod conformance_dat3m;
mod conformance_opencl;
mod conformance_spirv;

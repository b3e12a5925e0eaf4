//! Fuzz target: the OpenCL `.litmus` parser never panics (under both
//! readings of `local` memory), and whatever it accepts the engine can
//! explore without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vkmm::frontend::{LocalMemory, Options, opencl_litmus};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for local_memory in [LocalMemory::PerWorkgroup, LocalMemory::Shared] {
        let options = Options {
            local_memory,
            ..Options::default()
        };
        if let Ok(program) = opencl_litmus::parse_with("fuzz.litmus", text, options) {
            let _ = vkmm::testing::engine::Explorer::new(&program, vkmm::Limits::default());
        }
    }
});

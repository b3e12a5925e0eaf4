//! Fuzz target: the Vulkan `.litmus` parser never panics, and whatever it
//! accepts the engine can explore without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(program) = vkmm::frontend::vulkan_litmus::parse("fuzz.litmus", text)
    {
        let _ = vkmm::testing::engine::Explorer::new(&program, vkmm::Limits::default());
    }
});

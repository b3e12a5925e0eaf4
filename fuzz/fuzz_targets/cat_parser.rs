//! Fuzz target: the cat parser never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = vkmm::cat::Model::parse("fuzz.cat", text, &|_| None);
    }
});

//! Fuzz target: the cat parser and the profile declarations never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(model) = vkmm::testing::cat::Model::parse("fuzz.cat", text, &|_| None)
    {
        let _ = vkmm::model::Profile::of(&model, &|_, _| None);
    }
});

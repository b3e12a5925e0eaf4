//! Front ends: one parser per input format, each producing a [`Program`].
//!
//! Every front end reports bad input as a [`FrontendError`] naming the file,
//! line and column and saying what was expected.

pub mod alloy_test;

use crate::program::Program;
use std::path::Path;

/// A parse or validation error in an input file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct FrontendError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Input formats vkmm reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The Khronos Vulkan-MemoryModel Alloy `.test` format.
    AlloyTest,
}

impl Format {
    /// The format of a file, by its extension.
    pub fn of_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "test" => Some(Format::AlloyTest),
            _ => None,
        }
    }
}

/// Reads and parses a litmus file in whatever format its extension names.
pub fn load(path: &Path) -> Result<Program, FrontendError> {
    let display = path.display().to_string();
    let format = Format::of_path(path).ok_or_else(|| FrontendError {
        file: display.clone(),
        line: 0,
        column: 0,
        message: "unknown file type: expected a `.test` file".into(),
    })?;
    let bytes = std::fs::read(path).map_err(|e| FrontendError {
        file: display.clone(),
        line: 0,
        column: 0,
        message: format!("cannot read file: {e}"),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| FrontendError {
        file: display.clone(),
        line: 0,
        column: 0,
        message: format!("file is not UTF-8: {e}"),
    })?;
    match format {
        Format::AlloyTest => alloy_test::parse(&display, &text),
    }
}

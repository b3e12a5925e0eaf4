//! HLSL compute shaders (`.hlsl`): compiled to SPIR-V by the HLSL front
//! end of Khronos' `glslangValidator` (`-D`; Debian package
//! `glslang-tools`, the compiler vkmm already uses for GLSL), then read
//! like a GLSL shader's module ([`super::glsl`]): `//` header comments,
//! errors and events at the shader's lines through `OpLine`.
//! docs/format-wgsl.md, "HLSL".
//!
//! Neither DXC nor Slang's `slangc` can be installed from a package
//! registry here (Debian packages no DXC; the `slangpy` wheel ships Slang
//! as a library without the `slangc` program), so glslang is the compiler.
//! `VKMM_GLSLANG` names another glslang binary, as for GLSL.
//!
//! HLSL names its entry point in the text of no attribute vkmm could pick
//! by itself, so `--entry NAME` is required. `-D` defines, `-I` include
//! folders (after the shader's own folder) and `--set NAME=VALUE` (the
//! shader's own `#define NAME` line replaced) work as for GLSL.

use super::FrontendError;
use crate::frontend::Options;
use crate::ir::Program;

fn error(file: &str, message: String) -> FrontendError {
    FrontendError {
        file: file.to_string(),
        line: 0,
        column: 0,
        message,
    }
}

/// Parses an HLSL compute shader with default options (an error: HLSL
/// needs `--entry`).
pub fn parse(file: &str, source: &str) -> Result<Program, FrontendError> {
    parse_with(file, source, Options::default())
}

/// Parses an HLSL compute shader: compiles the entry point
/// `options.shader.entry` and lowers the module.
pub fn parse_with(file: &str, source: &str, options: Options) -> Result<Program, FrontendError> {
    let Some(entry) = options.shader.entry.clone() else {
        return Err(error(
            file,
            "an HLSL shader needs its entry point named: --entry NAME (the function with [numthreads])".into(),
        ));
    };
    let text = super::glsl::set_defines(file, source, &options.shader.set)?;
    let bytes = super::glsl::compile_as(file, &text, &options.shader, Some(&entry))?;
    let asm = super::binary::disassemble(&bytes).map_err(|(_, _, m)| {
        error(
            file,
            format!(
                "the SPIR-V {} made of this shader: {m}",
                super::glsl::compiler()
            ),
        )
    })?;
    let h = super::glsl::headers(&text);
    // `--set` named preprocessor definitions, not spec constants.
    let mut options = options;
    options.shader.set.clear();
    super::parse_disassembly(
        file,
        &asm,
        Some((file, &h)),
        super::Positions::SourceLines,
        options,
    )
}

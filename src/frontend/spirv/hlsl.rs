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
//! by itself, so `--entry NAME` is required. `-D` defines and `-I` include
//! folders are passed through (after the shader's own folder); `--set
//! NAME=VALUE` replaces the value of the shader's own `#define NAME` line.

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
    let args = arguments(&entry);
    let bytes = super::glsl::run_glslang(file, &text, &args, "HLSL", &options.shader)?;
    let asm = super::disassemble_compiled(file, &bytes, &super::glsl::compiler())?;
    super::parse_compiled(file, source, &asm, options)
}

/// glslangValidator's arguments for an HLSL compute shader read from
/// standard input: HLSL input (`-D`), debug lines (`-g`), the entry point
/// ([`super::glsl::run_glslang`] adds the include folders and defines).
fn arguments(entry: &str) -> Vec<String> {
    // `--stdin` before `-S` (glslang 12 refuses the other order).
    [
        "-D",
        "--target-env",
        "vulkan1.3",
        "-g",
        "-e",
        entry,
        "--stdin",
        "-S",
        "comp",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_replaces_the_define_line_and_keeps_line_numbers() {
        let set = |n: &str| vec![(n.to_string(), "2".to_string())];
        let text = super::super::glsl::set_defines(
            "a.hlsl",
            "#define M 1\n  # define N 64 \\\n  + 1\nint x;\n#define N 3",
            &set("N"),
        );
        assert_eq!(
            text.unwrap(),
            "#define M 1\n#define N 2\n\nint x;\n#define N 2"
        );
        let e = super::super::glsl::set_defines("a.hlsl", "#define N 1\n", &set("NN")).unwrap_err();
        assert!(e.message.contains("no `#define NN` line"), "{e}");
        // A function-like macro is not a constant to set.
        assert!(super::super::glsl::set_defines("a.hlsl", "#define F(x) x\n", &set("F")).is_err());
    }

    #[test]
    fn arguments_carry_the_entry() {
        assert_eq!(
            arguments("cs").join(" "),
            "-D --target-env vulkan1.3 -g -e cs --stdin -S comp"
        );
    }
}

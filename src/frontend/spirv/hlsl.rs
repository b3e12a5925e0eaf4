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
use crate::frontend::{Options, ShaderOptions};
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
    let text = set_defines(file, source, &options.shader)?;
    let args = arguments(file, &entry, &options.shader);
    let bytes = super::glsl::run_glslang(file, &text, &args, "HLSL")?;
    let asm = super::binary::disassemble(&bytes).map_err(|(_, _, m)| {
        error(
            file,
            format!(
                "the SPIR-V {} made of this shader: {m}",
                super::glsl::compiler()
            ),
        )
    })?;
    let h = super::glsl::headers(source);
    super::parse_disassembly(
        file,
        &asm,
        Some((file, &h)),
        super::Positions::SourceLines,
        options,
    )
}

/// glslangValidator's arguments for an HLSL compute shader read from
/// standard input: HLSL input (`-D`), debug lines (`-g`), the entry point,
/// the defines and the include folders (the shader's own first).
fn arguments(file: &str, entry: &str, shader: &ShaderOptions) -> Vec<String> {
    let mut args: Vec<String> = ["-D", "--target-env", "vulkan1.3", "-g", "-e", entry]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for (name, value) in &shader.defines {
        args.push(match value {
            Some(v) => format!("-D{name}={v}"),
            None => format!("-D{name}"),
        });
    }
    let own = std::path::Path::new(file).parent().filter(|p| p.is_dir());
    for dir in own
        .into_iter()
        .chain(shader.include_dirs.iter().map(|d| d.as_path()))
    {
        args.push(format!("-I{}", dir.display()));
    }
    // `--stdin` before `-S` (glslang 12 refuses the other order).
    args.extend(["--stdin", "-S", "comp"].map(String::from));
    args
}

/// Applies `--set NAME=VALUE`: the shader's own `#define NAME ...` line
/// gets VALUE as its replacement text (continuation lines emptied, so every
/// line keeps its number). A name no `#define` line defines is an error.
fn set_defines(file: &str, source: &str, shader: &ShaderOptions) -> Result<String, FrontendError> {
    let mut lines: Vec<String> = source.split('\n').map(String::from).collect();
    for (name, value) in &shader.set {
        if value.contains(['\n', '\\']) {
            return Err(error(
                file,
                format!("--set {name}: the value is one line, without `\\`"),
            ));
        }
        let k = lines
            .iter()
            .position(|l| defined_name(l) == Some(name.as_str()))
            .ok_or_else(|| {
                error(
                    file,
                    format!("--set {name}: the shader has no `#define {name}` line"),
                )
            })?;
        let mut continued = lines[k].trim_end().ends_with('\\');
        lines[k] = format!("#define {name} {value}");
        let mut j = k + 1;
        while continued && j < lines.len() {
            continued = lines[j].trim_end().ends_with('\\');
            lines[j].clear();
            j += 1;
        }
    }
    Ok(lines.join("\n"))
}

/// The name a `#define` line defines (`# define N 1`, `#define F(x) x`).
fn defined_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_replaces_the_define_line_and_keeps_line_numbers() {
        let shader = ShaderOptions {
            set: vec![("N".into(), "2".into())],
            ..ShaderOptions::default()
        };
        let text = set_defines(
            "a.hlsl",
            "#define M 1\n  # define N 64 \\\n  + 1\nint x;",
            &shader,
        );
        assert_eq!(text.unwrap(), "#define M 1\n#define N 2\n\nint x;");
        let shader = ShaderOptions {
            set: vec![("NN".into(), "2".into())],
            ..ShaderOptions::default()
        };
        let e = set_defines("a.hlsl", "#define N 1\n", &shader).unwrap_err();
        assert!(e.message.contains("no `#define NN` line"), "{e}");
    }

    #[test]
    fn arguments_carry_entry_defines_and_includes() {
        let shader = ShaderOptions {
            defines: vec![("A".into(), Some("1".into())), ("B".into(), None)],
            include_dirs: vec!["inc".into()],
            ..ShaderOptions::default()
        };
        let args = arguments("no-such-dir/x.hlsl", "cs", &shader).join(" ");
        assert_eq!(
            args,
            "-D --target-env vulkan1.3 -g -e cs -DA=1 -DB -Iinc --stdin -S comp"
        );
    }
}

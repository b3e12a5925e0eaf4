//! HLSL compute shaders (`.hlsl`): compiled to SPIR-V by the HLSL front
//! end of Khronos' `glslangValidator` (`-D`; Debian package
//! `glslang-tools`, the compiler vkmm already uses for GLSL), then read
//! like a GLSL shader's module ([`super::glsl`]): `//` header comments,
//! errors and events at the shader's lines through `OpLine`.
//! docs/format-hlsl.md.
//!
//! Neither DXC nor Slang's `slangc` can be installed from a package
//! registry here (Debian packages no DXC; the `slangpy` wheel ships Slang
//! as a library without the `slangc` program), so glslang is the compiler.
//! `VKMM_GLSLANG` names another glslang binary, as for GLSL.
//!
//! The entry point is `--entry NAME`, or else the one function of the
//! preprocessed shader that carries the compute attribute `[numthreads(X,
//! Y, Z)]` (a file with several asks for `--entry`, naming them). `-D`
//! defines and `-I` include folders are passed through (after the
//! shader's own folder); `--set NAME=VALUE` replaces the value of the
//! shader's own `#define NAME` line.
//!
//! Registers: Direct3D numbers each register class on its own (`t0` and
//! `u0` are two resources), where a Vulkan binding is one number, so the
//! classes are mapped to separate ranges of bindings as DXC's
//! `-fvk-*-shift` options do: `u` N, `t` 100 + N, `b` 200 + N, `s` 300 + N,
//! the register space the descriptor set; a resource without a register
//! gets a free binding (glslang's `--auto-map-bindings`).

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

/// Whether a shader named as GLSL (`.comp`, `.glsl`) holds HLSL, as
/// Kompute's and other projects' `.comp` files compiled with `glslc -x
/// hlsl` or `glslangValidator -D` do: it carries the compute attribute
/// `[numthreads(` (no GLSL syntax opens with `[` and a name) and no
/// `#version` line, which a GLSL compute shader needs ("shaders that do
/// not include a #version directive will be treated as targeting version
/// 1.10", GLSL 4.60, 3.3; compute shaders came with 4.30).
pub fn is_hlsl_text(source: &str) -> bool {
    let version = source.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"))
    });
    !version && source.to_ascii_lowercase().contains("[numthreads")
}

/// Parses an HLSL compute shader with default options.
pub fn parse(file: &str, source: &str) -> Result<Program, FrontendError> {
    parse_with(file, source, Options::default())
}

/// Parses an HLSL compute shader: compiles the entry point
/// (`options.shader.entry`, else the only `[numthreads]` function) and
/// lowers the module.
pub fn parse_with(file: &str, source: &str, options: Options) -> Result<Program, FrontendError> {
    let (text, specs, headers) =
        super::glsl::set_defines_or_specs(file, source, &options.shader.set, &options.shader)?;
    // The copies of the headers `--set` rewrote, first on the include path.
    let first: Vec<String> = headers
        .as_ref()
        .map(super::glsl::SetHeaders::flag)
        .into_iter()
        .collect();
    let entry = match options.shader.entry.clone() {
        Some(entry) => entry,
        None => {
            let mut args = first.clone();
            args.extend(["-D", "--stdin", "-S", "comp"].map(String::from));
            let expanded = super::glsl::preprocess(file, &text, &args, "HLSL", &options.shader)?;
            let entries = compute_entries(&expanded);
            match entries.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Err(error(
                        file,
                        "no function carries `[numthreads(X, Y, Z)]`, the attribute of a compute entry point: name the entry point with --entry NAME".into(),
                    ));
                }
                several => {
                    return Err(error(
                        file,
                        format!(
                            "the shader has {} compute entry points (functions with `[numthreads]`: {}): choose one with --entry NAME",
                            several.len(),
                            several
                                .iter()
                                .map(|e| format!("`{e}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
        }
    };
    let mut args = first;
    args.extend(arguments(&entry));
    let bytes = match super::glsl::run_glslang(file, &text, &args, "HLSL", &options.shader) {
        Err(e) if e.message.contains(NO_SELECT) => {
            super::glsl::run_glslang(file, &with_select(&text), &args, "HLSL", &options.shader)?
        }
        compiled => compiled?,
    };
    let asm = super::disassemble_compiled(file, &bytes, &super::glsl::compiler())?;
    let mut options = options;
    options.shader.set = specs;
    super::parse_compiled(file, source, &asm, options)
}

/// glslang's error for a call of `select`, which its HLSL front end does
/// not declare.
const NO_SELECT: &str = "'select' : no matching overloaded function found";

/// `source` with HLSL's `select` declared before it, for glslang, whose
/// HLSL front end predates the intrinsic: "select(cond, a, b)" is "a
/// per-component ternary" whose three arguments are all evaluated (HLSL
/// 2021, "Logical operation short-circuiting for scalars"; the vector
/// `?:` it replaces evaluated both sides too). One overload per scalar
/// type (`float`, `int`, `uint`, `bool`, `double`) and width (scalar,
/// 2, 3, 4 components), with a condition of the same width or a scalar
/// one; the arguments are evaluated at the call, so each overload's body
/// `c ? a : b` only chooses. The declarations stand on the first line,
/// and `#line 1` numbers the shader's first line 1 again, so errors and
/// events keep the shader's lines (glslang inlines the overloads, so no
/// event is placed on the declarations' line). Used only when glslang
/// rejects a call of `select`: a shader declaring its own `select` is
/// compiled as it is.
fn with_select(source: &str) -> String {
    let mut out = String::new();
    for t in ["float", "int", "uint", "bool", "double"] {
        out.push_str(&format!(
            "{t} select(bool c, {t} a, {t} b) {{ return c ? a : b; }} "
        ));
        for n in 2..=4 {
            out.push_str(&format!(
                "{t}{n} select(bool{n} c, {t}{n} a, {t}{n} b) {{ return c ? a : b; }} \
                 {t}{n} select(bool c, {t}{n} a, {t}{n} b) {{ return c ? a : b; }} "
            ));
        }
    }
    out.push_str("\n#line 1\n");
    out.push_str(source);
    out
}

/// The functions of a preprocessed HLSL text that carry the compute
/// attribute `[numthreads(...)]` (attribute names are case-insensitive),
/// in order, each once: after the attribute come other attributes
/// (`[WaveSize(...)]`, `[RootSignature(...)]`), the return type and the
/// name, whose `(` opens the parameters. A compute shader's entry point
/// returns `void` (it has no outputs: DirectX's compute stage has no
/// output signature), so an attribute on a function returning a value
/// (Sascha Willems' `[numthreads(16, 1, 1)] bool frustumCheck(...)`, which
/// DXC ignores) names no entry point.
fn compute_entries(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<String> = Vec::new();
    let mut from = 0;
    while let Some(k) = lower[from..].find("numthreads") {
        let at = from + k;
        from = at + "numthreads".len();
        // The attribute opens with `[` (spaces allowed) before the name.
        let before = lower[..at].trim_end();
        if !before.ends_with('[') {
            continue;
        }
        // Skip this and any further bracketed attributes.
        let mut i = before.len() - 1;
        loop {
            let mut depth = 0usize;
            while i < bytes.len() {
                match bytes[i] {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] != b'[' {
                break;
            }
        }
        // The identifier right before the first `(`: the function's name.
        let Some(open) = text[i..].find('(') else {
            continue;
        };
        let head = text[i..i + open].trim_end();
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let returns = head[..head.len() - name.len()]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .rfind(|w| !w.is_empty());
        if !name.is_empty() && returns == Some("void") && !found.contains(&name) {
            found.push(name);
        }
    }
    found
}

/// glslangValidator's arguments for an HLSL compute shader read from
/// standard input: HLSL input (`-D`), debug lines (`-g`), the register
/// classes in separate ranges of bindings and free bindings for resources
/// without a register, the entry point ([`super::glsl::run_glslang`] adds
/// the include folders and defines).
fn arguments(entry: &str) -> Vec<String> {
    // `--stdin` before `-S` (glslang 12 refuses the other order).
    [
        "-D",
        "--target-env",
        "vulkan1.3",
        "-g",
        "--hlsl-iomap",
        "--auto-map-bindings",
        "--shift-texture-binding",
        "100",
        "--shift-UBO-binding",
        "200",
        "--shift-sampler-binding",
        "300",
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
        let args = arguments("cs").join(" ");
        assert!(args.ends_with("-e cs --stdin -S comp"), "{args}");
    }

    #[test]
    fn entries_are_the_functions_with_numthreads() {
        // Other attributes between, a macro-made root signature attribute,
        // a return type on its own line, any case of the attribute name.
        let text = "groupshared uint s[4];\n[numthreads(64, 1, 1)]\n[RootSignature(\"CBV(b0)\")]\nvoid main(uint3 t : SV_DispatchThreadID)\n{ s[t.x] = 0; }\n\
                    uint helper(uint x) { return x; }\n\
                    [WaveSize(4, 128, 16)] [ NumThreads (128,1,1) ] [WaveSize(32)]\nvoid\nScan ( uint g : SV_GroupThreadID ) {}\n";
        assert_eq!(compute_entries(text), vec!["main", "Scan"]);
        // A function returning a value is no entry point, whatever its
        // attributes say.
        let text = "[numthreads(16, 1, 1)]\nbool visible(float4 p) { return true; }\n\
                    [numthreads(16, 1, 1)]\nvoid main(uint3 t : SV_DispatchThreadID) {}\n";
        assert_eq!(compute_entries(text), vec!["main"]);
        // An array index spelled numthreads is no attribute.
        assert!(compute_entries("uint numthreads[2]; void f() { numthreads[0] = 1; }").is_empty());
        assert!(compute_entries("").is_empty());
    }
}

//! WGSL compute shaders (`.wgsl`): parsed, validated and written as SPIR-V
//! by the `naga` crate in process, then read like a GLSL shader's module
//! ([`super::glsl`]): the Dat3M headers are `//` comments of the shader,
//! and errors and events carry the shader's line through the `OpLine`s of
//! naga's debug information. docs/format-wgsl.md.
//!
//! The choices that give the module WGSL's meaning rather than a backend's
//! (each explained in docs/format-wgsl.md, "Semantics"):
//! - workgroup memory is zero-initialised the way naga's polyfill does it:
//!   a plain store by local invocation 0, then a workgroup control barrier,
//!   both part of the program checked;
//! - no loop-bounding counters: a loop that can spin forever still can;
//! - an out-of-bounds index is clamped to the last element (naga's
//!   `Restrict` policy, the one wgpu uses where robust access is absent);
//! - one compute entry point: `--entry`, or the only one there is.
//!
//! naga runs on a thread with a large stack (its parser recurses), and a
//! panic inside it is an error naming naga, never a crash of vkmm.

use super::FrontendError;
use crate::frontend::{LegacyMemoryModel, Options, ShaderOptions};
use crate::ir::Program;
use naga::back::spv;

/// The stack naga's parser and validator run on: WGSL nesting is bounded
/// by naga's own limits, which need more than a default thread's stack.
#[cfg(not(target_arch = "wasm32"))]
const NAGA_STACK: usize = 64 << 20;

fn error(file: &str, line: usize, column: usize, message: String) -> FrontendError {
    FrontendError {
        file: file.to_string(),
        line,
        column,
        message,
    }
}

/// Parses a WGSL compute shader with default options.
pub fn parse(file: &str, source: &str) -> Result<Program, FrontendError> {
    parse_with(file, source, Options::default())
}

/// Parses a WGSL compute shader: compiles the chosen entry point to SPIR-V
/// and lowers it. `options.shader` gives the entry point and the constants
/// set (`--set`); defines are an error (WGSL has no preprocessor).
pub fn parse_with(file: &str, source: &str, options: Options) -> Result<Program, FrontendError> {
    let mut options = options;
    // A WGSL shader's memory model is the WGSL specification's mapping to
    // the Vulkan memory model (14.5), not the GLSL reading of the GLSL450
    // module naga writes; `strict` still reads the module literally.
    if options.legacy_memory_model == LegacyMemoryModel::Coherent {
        options.legacy_memory_model = LegacyMemoryModel::Wgsl;
    }
    if let Some((name, _)) = options.shader.defines.first() {
        return Err(error(
            file,
            0,
            0,
            format!(
                "-D {name}: WGSL has no preprocessor, so a WGSL shader takes no defines; use --set NAME=VALUE for a module-scope `const` or `override`"
            ),
        ));
    }
    directive(file, source)?;
    let (text, overrides) = set_consts(file, source, &options.shader)?;
    let words = compile(file, &text, &options.shader, &overrides)?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let asm = super::disassemble_compiled(file, &bytes, "naga")?;
    let asm = match options.shader.entry.as_deref().or_else(|| only_entry(&asm)) {
        Some(entry) => entry_line(&asm, &text, entry),
        None => asm,
    };
    // The consts and overrides took `--set` in the source.
    options.shader.set.clear();
    super::parse_compiled(file, source, &asm, options)
}

/// A `#` outside comments: the directive of a preprocessor some projects
/// run before the WGSL compiler (vello's shader build and Bevy's naga_oil
/// read `#import`, `#ifdef`, `#define_import_path`). No WGSL token begins
/// with `#` (WGSL, "Parsing": the tokens are literals, keywords, reserved
/// words, syntactic tokens and identifiers; attributes begin with `@`), so
/// such a file is the input of that preprocessor, not yet WGSL: an error
/// at the directive saying so.
fn directive(file: &str, source: &str) -> Result<(), FrontendError> {
    let toks = tokens(source);
    let Some(k) = toks.iter().position(|t| t.1 == "#") else {
        return Ok(());
    };
    let at = toks[k].0;
    let word = toks
        .get(k + 1)
        .filter(|t| t.0 == at + 1)
        .map_or("", |t| t.1);
    let line = source[..at].matches('\n').count() + 1;
    let column = at - source[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    Err(error(
        file,
        line,
        column,
        format!(
            "`#{word}` is a preprocessor directive, and WGSL has no preprocessor (no WGSL token begins with `#`): this file is the input of a project's own shader preprocessor (vello's build and Bevy's naga_oil read `#import`, `#ifdef`, `#define_import_path`); check the WGSL that preprocessor writes"
        ),
    ))
}

/// The name of a module's only entry point (the one naga wrote).
fn only_entry(asm: &str) -> Option<&str> {
    let line = asm
        .lines()
        .find(|l| l.trim_start().starts_with("OpEntryPoint"))?;
    let start = line.find('"')? + 1;
    let end = start + line[start..].find('"')?;
    Some(&line[start..end])
}

/// `asm` with an `OpLine` at the start of the entry function, giving the
/// line of the WGSL `fn NAME` to what naga writes there before the body's
/// first `OpLine`: the loads of the builtins and the zero-initialisation
/// of workgroup memory (a store reported at "line 0" says nothing).
fn entry_line(asm: &str, source: &str, entry: &str) -> String {
    let toks = tokens(source);
    let at = toks
        .windows(2)
        .find(|w| w[0].1 == "fn" && w[1].1 == entry)
        .map(|w| w[0].0);
    let file_id = asm.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some("OpLine")).then(|| w.next()).flatten()
    });
    let quoted = format!("\"{entry}\"");
    let function = asm
        .lines()
        .find(|l| l.trim_start().starts_with("OpEntryPoint") && l.contains(&quoted))
        .and_then(|l| l.split_whitespace().nth(2));
    let (Some(at), Some(file_id), Some(function)) = (at, file_id, function) else {
        return asm.to_string();
    };
    let line = source[..at].matches('\n').count() + 1;
    let column = at - source[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    let mut out = String::with_capacity(asm.len() + 32);
    let mut in_entry = false;
    let mut done = false;
    for l in asm.lines() {
        out.push_str(l);
        out.push('\n');
        let mut w = l.split_whitespace();
        let first = w.next();
        if first == Some(function) && w.next() == Some("=") && w.next() == Some("OpFunction") {
            in_entry = true;
        } else if in_entry && !done && l.contains("= OpLabel") {
            out.push_str(&format!("OpLine {file_id} {line} {column}\n"));
            done = true;
        }
    }
    out
}

/// Compiles `source` (after `--set` of its consts) to SPIR-V words, the
/// overrides in `overrides` set as pipeline constants. Runs naga on a
/// thread of its own with a large stack where threads exist, and turns a
/// panic into an error.
fn compile(
    file: &str,
    source: &str,
    shader: &ShaderOptions,
    overrides: &[(String, f64)],
) -> Result<Vec<u32>, FrontendError> {
    let (f, src, sh, ov) = (
        file.to_string(),
        source.to_string(),
        shader.clone(),
        overrides.to_vec(),
    );
    guarded(file, move || compile_here(&f, &src, &sh, &ov))
}

/// Runs `f` (naga's work) on a thread with a large stack where threads
/// exist; a panic inside it becomes an error naming naga.
///
/// The request's deadline and memory bound bound the wait (`--timeout`
/// bounds the whole command, and naga's WGSL lowering can take time
/// quadratic in a function's statements): this thread checks them
/// ([`crate::frontend::clock::time_is_up`],
/// [`crate::memory::over_input_bound`]) every few milliseconds while naga
/// runs, and when one is reached stops waiting with its error. naga cannot be interrupted, so its thread is left to finish on
/// its own; its result is dropped.
fn guarded<T: Send + 'static>(
    file: &str,
    f: impl FnOnce() -> Result<T, FrontendError> + Send + 'static,
) -> Result<T, FrontendError> {
    let run = || std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    #[cfg(not(target_arch = "wasm32"))]
    let outcome = {
        let (send, receive) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("naga".into())
            .stack_size(NAGA_STACK)
            .spawn(move || {
                let _ = send.send(run());
            });
        if let Err(e) = spawned {
            return Err(error(
                file,
                0,
                0,
                format!("cannot start a thread for naga: {e}"),
            ));
        }
        loop {
            use std::sync::mpsc::RecvTimeoutError;
            match receive.recv_timeout(std::time::Duration::from_millis(5)) {
                Ok(r) => break r,
                Err(RecvTimeoutError::Timeout) => {
                    if crate::frontend::clock::over_input_memory() {
                        return Err(error(
                            file,
                            0,
                            0,
                            format!(
                                "{} while naga compiled the shader",
                                crate::memory::MEMORY_IS_UP
                            ),
                        ));
                    }
                    if crate::frontend::clock::time_is_up() {
                        return Err(error(
                            file,
                            0,
                            0,
                            format!(
                                "{} while naga compiled the shader",
                                crate::frontend::clock::TIME_IS_UP
                            ),
                        ));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(error(
                        file,
                        0,
                        0,
                        "naga's thread ended without a result".into(),
                    ));
                }
            }
        }
    };
    #[cfg(target_arch = "wasm32")]
    let outcome = run();
    outcome.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(error(
            file,
            0,
            0,
            format!(
                "naga {NAGA_VERSION} panicked on this shader ({what}): an error of naga, not necessarily of the shader"
            ),
        ))
    })
}

/// The naga release vkmm is built with (Cargo.toml), for messages.
const NAGA_VERSION: &str = "30";

fn compile_here(
    file: &str,
    source: &str,
    shader: &ShaderOptions,
    overrides: &[(String, f64)],
) -> Result<Vec<u32>, FrontendError> {
    let at = |loc: Option<naga::SourceLocation>, message: String| match loc {
        Some(l) => error(
            file,
            l.line_number as usize,
            l.line_position as usize,
            message,
        ),
        None => error(file, 0, 0, message),
    };
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        at(
            e.location(source),
            placeholder_hint(format!("naga: {}", e.message()), source, e.location(source)),
        )
    })?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    let info = validator
        .validate(&module)
        .map_err(|e| at(e.location(source), format!("naga: {}", chain(e.as_inner()))))?;
    let entry = choose_entry(file, &module, shader.entry.as_deref())?;
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in overrides {
        constants.insert(name.clone(), *value);
    }
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((naga::ShaderStage::Compute, &entry)),
        &constants,
    )
    .map_err(|e| match e {
        naga::back::pipeline_constants::PipelineConstantError::NotFound(name) => error(
            file,
            0,
            0,
            format!(
                "--set {name}: the shader declares no module-scope `const {name}` or `override {name}`"
            ),
        ),
        // WGSL, "Override Declarations": an override without an
        // initializer has no default, and the pipeline creating the
        // entry point that uses it supplies its value; vkmm's pipeline
        // takes it from --set.
        naga::back::pipeline_constants::PipelineConstantError::MissingValue(name) => at(
            module
                .overrides
                .iter()
                .find(|(_, o)| o.name.as_deref() == Some(name.as_str()))
                .map(|(h, _)| module.overrides.get_span(h).location(source)),
            format!(
                "`override {name}` has no initializer, so the pipeline must give its value: give it with --set {name}=VALUE"
            ),
        ),
        naga::back::pipeline_constants::PipelineConstantError::ValidationError(v) => at(
            v.location(source),
            format!("naga, after setting the overrides: {}", chain(v.as_inner())),
        ),
        other => error(
            file,
            0,
            0,
            format!("naga, setting the overrides: {}", chain(&other)),
        ),
    })?;
    let options = spv::Options {
        // SPIR-V 1.3 keeps the module readable by every tool vkmm's docs
        // name; nothing naga writes for compute needs more.
        lang_version: (1, 3),
        flags: spv::WriterFlags::DEBUG,
        // WGSL: "the bounds check ... A reference to an out-of-bounds
        // element ... may ... clamp"; wgpu asks naga for `Restrict`
        // (docs/format-wgsl.md, "Out-of-bounds indices").
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: naga::proc::BoundsCheckPolicy::Restrict,
            buffer: naga::proc::BoundsCheckPolicy::Restrict,
            image_load: naga::proc::BoundsCheckPolicy::Restrict,
            binding_array: naga::proc::BoundsCheckPolicy::Restrict,
        },
        // A store of zero by local invocation 0, then a workgroup barrier.
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Polyfill,
        // No counters that end every loop after 2^64 iterations: they would
        // make a spin loop look terminating.
        force_loop_bounding: false,
        // Integer division by zero gives WGSL's defined result.
        emit_int_div_checks: true,
        debug_info: Some(spv::DebugInfo {
            source_code: source,
            file_name: file,
            language: spv::SourceLanguage::WGSL,
        }),
        ..spv::Options::default()
    };
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry,
    };
    spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| {
        error(
            file,
            0,
            0,
            format!("naga cannot write this shader as SPIR-V: {}", chain(&e)),
        )
    })
}

/// An error and its sources, `: `-joined (naga's validation errors nest).
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut next = e.source();
    while let Some(inner) = next {
        let m = inner.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        next = inner.source();
    }
    s
}

/// The compute entry point to check: `wanted` when given, else the only
/// one. A module with several and no choice is an error listing them.
fn choose_entry(
    file: &str,
    module: &naga::Module,
    wanted: Option<&str>,
) -> Result<String, FrontendError> {
    let compute: Vec<&str> = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .map(|e| e.name.as_str())
        .collect();
    let listed = || {
        compute
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match wanted {
        Some(name) if compute.contains(&name) => Ok(name.to_string()),
        Some(name) => Err(error(
            file,
            0,
            0,
            if compute.is_empty() {
                format!("--entry {name}: the shader has no @compute entry point")
            } else {
                format!(
                    "--entry {name}: the shader has no @compute entry point of that name; it has {}",
                    listed()
                )
            },
        )),
        None => match compute.as_slice() {
            [one] => Ok(one.to_string()),
            [] => Err(error(
                file,
                0,
                0,
                "no @compute entry point: vkmm checks compute shaders".into(),
            )),
            _ => Err(error(
                file,
                0,
                0,
                format!(
                    "the shader has {} @compute entry points ({}): choose one with --entry NAME",
                    compute.len(),
                    listed()
                ),
            )),
        },
    }
}

/// Applies `--set NAME=VALUE` to the source: a module-scope `const NAME`
/// gets VALUE as its initializer in the text (naga folds consts while it
/// lowers, so the value must be in place before parsing; the replacement
/// keeps every line where it was). The names that are no such const are
/// returned with their numeric value, for naga's override processing.
fn set_consts(
    file: &str,
    source: &str,
    shader: &ShaderOptions,
) -> Result<(String, Vec<(String, f64)>), FrontendError> {
    let mut text = source.to_string();
    let mut overrides = Vec::new();
    for (name, value) in &shader.set {
        if !value.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+' | '(' | ')' | ',' | ' ')
        }) || value.trim().is_empty()
        {
            return Err(error(
                file,
                0,
                0,
                format!(
                    "--set {name}={value}: expected a WGSL expression of literals and names (such as `8u`, `2.5`, `true`)"
                ),
            ));
        }
        // A braced placeholder the host replaces in the text
        // (webgpu-samples' `texture_storage_2d<{OUTPUT_FORMAT}, write>`)
        // takes the value as text, wherever it stands.
        let braced = format!("{{{name}}}");
        if text.contains(&braced) {
            text = text.replace(&braced, value.trim());
            continue;
        }
        match const_initializer(&text, name) {
            None if undeclared_but_used(&text, name) => {
                // A placeholder the host replaces in the text before
                // compiling (`@workgroup_size(WG_SIZE)`): declared as a
                // module-scope const on a line after the last, so every
                // line keeps its number. WGSL: "module-scope declarations
                // may appear in any order".
                text.push_str(&format!("\nconst {name} = {};\n", value.trim()));
            }
            Some(range) => {
                let newlines = text[range.clone()].matches('\n').count();
                let replacement = format!(" {}{}", value.trim(), "\n".repeat(newlines));
                text.replace_range(range, &replacement);
            }
            None => {
                let number = override_value(value).ok_or_else(|| {
                    error(
                        file,
                        0,
                        0,
                        format!(
                            "--set {name}={value}: the shader has no module-scope `const {name}`, and an `override` takes a number or `true`/`false`"
                        ),
                    )
                })?;
                overrides.push((name.clone(), number));
            }
        }
    }
    Ok((text, overrides))
}

/// naga's error for a name the shader uses and never declares, with what
/// to give: such a name is most often a placeholder that the host
/// program replaces in the text before it compiles the shader.
fn placeholder_hint(message: String, source: &str, at: Option<naga::SourceLocation>) -> String {
    // `{NAME}` on the line at fault: no WGSL, a text the host replaces.
    if let Some(name) = at.and_then(|l| {
        braced_placeholder(source.lines().nth(l.line_number.checked_sub(1)? as usize)?)
    }) {
        return format!(
            "{message}: `{{{name}}}` is a placeholder the host program replaces in the text before compiling; give its text with --set {name}=TEXT"
        );
    }
    let Some(name) = message
        .strip_prefix("naga: no definition in scope for identifier: `")
        .and_then(|r| r.strip_suffix('`'))
    else {
        return message;
    };
    // A type (after the `:` of a declaration or the `->` of a function's
    // result) or a function (before `(`): no `const` stands for it. Hosts that join a shared
    // text of declarations to the shader (webgpu-samples' cornell joins
    // common.wgsl) leave such names undeclared.
    let (before, after) = at
        .and_then(|l| {
            let start = l.offset as usize;
            let end = start + l.length as usize;
            Some((source.get(..start)?, source.get(end..)?))
        })
        .unwrap_or(("", ""));
    let before = before.trim_end();
    let what = if after.trim_start().starts_with('(') {
        Some("a function or a type it constructs")
    } else if before.ends_with(':') || before.ends_with("->") {
        Some("a type")
    } else {
        None
    };
    if let Some(what) = what {
        return format!(
            "{message}: the shader uses `{name}`, {what}, and never declares it; WGSL has no `#include`, so where the host program joins another text of declarations to this one before compiling, check the joined text"
        );
    }
    format!(
        "{message}: the shader never declares `{name}`; when the host program replaces it in the text before compiling (a placeholder), give its value with --set {name}=VALUE (declared as a module-scope `const`)"
    )
}

/// The first `{NAME}` (an identifier in braces, no spaces) of a line of
/// WGSL text: no WGSL construct is spelled so.
fn braced_placeholder(line: &str) -> Option<String> {
    let mut rest = line;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let name = &after[..close];
        if !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some(name.to_string());
        }
        rest = after;
    }
    None
}

/// Whether a WGSL text uses the identifier `name` (outside comments) and
/// declares nothing of that name (`const`, `override`, `var`, `let`,
/// `fn`, `struct`, `alias`, a parameter or member before `:`).
fn undeclared_but_used(text: &str, name: &str) -> bool {
    let tokens = tokens(text);
    let used = tokens.iter().any(|t| t.1 == name);
    let declared = tokens.windows(2).any(|w| {
        (w[1].1 == name
            && matches!(
                w[0].1,
                "const" | "override" | "var" | "let" | "fn" | "struct" | "alias"
            ))
            || (w[0].1 == name && w[1].1 == ":")
    });
    used && !declared
}

/// The value of an override given on the command line: a WGSL literal
/// (`8`, `8u`, `-3i`, `2.5`, `1.0f`, `true`), as naga's pipeline constants
/// take it.
fn override_value(value: &str) -> Option<f64> {
    let v = value.trim();
    match v {
        "true" => return Some(1.0),
        "false" => return Some(0.0),
        _ => {}
    }
    let digits = v
        .strip_suffix(['u', 'i', 'f', 'h'])
        .filter(|d| !d.is_empty())
        .unwrap_or(v);
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return i64::from_str_radix(hex, 16).ok().map(|n| n as f64);
    }
    digits.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// The byte range of the initializer (after `=`, up to the `;`) of the
/// module-scope `const NAME` declaration of a WGSL text, if there is one.
/// Comments (`//` to the end of the line, nested `/* */`) are skipped, and
/// only declarations at brace depth 0 count: a function's own `const` of
/// the same name is not the module's.
fn const_initializer(text: &str, name: &str) -> Option<std::ops::Range<usize>> {
    let tokens = tokens(text);
    let mut depth = 0usize;
    let mut k = 0;
    while k < tokens.len() {
        match tokens[k].1 {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "const" if depth == 0 && tokens.get(k + 1).is_some_and(|t| t.1 == name) => {
                // `const NAME (: TYPE)? = EXPR ;`
                let eq = tokens[k + 2..]
                    .iter()
                    .position(|t| t.1 == "=" || t.1 == ";")
                    .map(|p| k + 2 + p)?;
                if tokens[eq].1 != "=" {
                    return None;
                }
                let semi = tokens[eq + 1..]
                    .iter()
                    .position(|t| t.1 == ";")
                    .map(|p| eq + 1 + p)?;
                return Some(tokens[eq].0 + 1..tokens[semi].0);
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// The tokens of a WGSL text that matter to [`const_initializer`] with
/// their byte offsets: words (identifiers, keywords, numbers) and single
/// punctuation characters, comments left out. `==`, `<=`, `>=`, `!=`
/// are one token, so `=` alone is an assignment.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // Block comments nest in WGSL.
            let mut depth = 0usize;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            out.push((start, &text[start..i]));
        } else {
            let two = matches!((c, b.get(i + 1)), (b'=' | b'<' | b'>' | b'!', Some(b'=')));
            let len = if two { 2 } else { 1 };
            out.push((i, &text[i..i + len]));
            i += len;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_initializer_skips_comments_and_function_consts() {
        let text = "// const N = 1;\n/* const N /* nested */ = 2; */\nfn f() { const N = 3; }\nconst N: u32 =\n  256u; // the size\n";
        let r = const_initializer(text, "N").unwrap();
        assert_eq!(&text[r], "\n  256u");
        assert_eq!(const_initializer(text, "M"), None);
        // `==` is no initializer.
        assert_eq!(const_initializer("const A == 1;", "A"), None);
    }

    #[test]
    fn set_keeps_lines_and_leaves_other_names_to_overrides() {
        let shader = ShaderOptions {
            set: vec![("N".into(), "8u".into()), ("O".into(), "3".into())],
            ..ShaderOptions::default()
        };
        let (text, overrides) = set_consts(
            "f.wgsl",
            "const N: u32 =\n 256u;\noverride O: u32;\n",
            &shader,
        )
        .unwrap();
        assert_eq!(text, "const N: u32 = 8u\n;\noverride O: u32;\n");
        assert_eq!(overrides, vec![("O".to_string(), 3.0)]);
    }

    #[test]
    fn a_braced_placeholder_is_an_identifier_in_braces() {
        assert_eq!(
            braced_placeholder("var o: texture_storage_2d<{OUTPUT_FORMAT}, write>;"),
            Some("OUTPUT_FORMAT".into())
        );
        // Blocks and struct bodies are no placeholders.
        assert_eq!(braced_placeholder("fn f() { return; }"), None);
        assert_eq!(braced_placeholder("struct S {} {2x}"), None);
    }

    #[test]
    fn a_panic_inside_naga_is_an_error_naming_naga() {
        let e = guarded::<()>("p.wgsl", || panic!("index out of bounds")).unwrap_err();
        assert_eq!(e.file, "p.wgsl");
        assert!(
            e.message
                .starts_with("naga 30 panicked on this shader (index out of bounds)"),
            "{e}"
        );
        assert_eq!(guarded("p.wgsl", || Ok(7)).unwrap(), 7);
    }

    #[test]
    fn override_values_are_wgsl_literals() {
        assert_eq!(override_value("8u"), Some(8.0));
        assert_eq!(override_value("-3i"), Some(-3.0));
        assert_eq!(override_value("2.5"), Some(2.5));
        assert_eq!(override_value("0x10u"), Some(16.0));
        assert_eq!(override_value("true"), Some(1.0));
        assert_eq!(override_value("u"), None);
        assert_eq!(override_value("x"), None);
    }
}

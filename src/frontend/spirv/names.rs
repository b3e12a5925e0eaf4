//! Memory named as the shader's source names it. A compiled shader's
//! locations are built under the module's names (`%out[0][0]`: the
//! variable's id, then the index path through its type, naga's wrapper
//! struct included); reports show them as the user wrote the shader:
//!
//! - the variable by its name in the source (a WGSL `var`, a GLSL block's
//!   instance name, an HLSL resource), a GLSL block without an instance
//!   name by its block's type name (`StateBuf.state[1]`), and a variable
//!   whose name is not unique (two bindings named alike, a name another
//!   block's type has) by `SET.BINDING` (`0.2.data[3]`);
//! - then `.member` for a struct member and `[i]` for an element, a
//!   texel's coordinate or a channel, skipping the one-member wrappers a
//!   compiler adds around a buffer's type (naga's struct of one unnamed
//!   member, glslang's `@data` of an HLSL structured buffer);
//! - then the workgroup instance (`count@wg1`) or the bytes of a cut cell
//!   (`data[0][0..2]`) as before.
//!
//! Each such name is one an `--input` target, an `--assert` condition or
//! an inputs file takes for the same cell (`inputs::resolve` and
//! `inputs::cell_of` read it), and the module's own spelling stays a name
//! of the cell too. A cell the rules cannot name so (a member without a
//! name, an element past the end of an array, a variable the inputs do not
//! reach: Private, Output) keeps the module's spelling.

use super::inputs::{member_names, op_names, variable};
use super::module::{Class, Module};
use super::syntax::Inst;
use super::types::Ty;
use crate::frontend::inputs::Step;
use crate::ir::Program;
use std::collections::HashMap;

/// The source name of each variable the inputs can name, by id.
fn variable_names(insts: &[Inst], m: &Module) -> HashMap<String, String> {
    let names = op_names(insts);
    let mut out = HashMap::new();
    for g in &m.globals {
        if !(matches!(g.class, Class::Global | Class::Workgroup | Class::Image)
            || g.class_name == "PushConstant")
            || m.builtin(&g.id).is_some()
        {
            continue;
        }
        // The names a target may give it, the source's first.
        let mut tries: Vec<String> = Vec::new();
        if let Some(n) = names.get(&g.id).filter(|n| !n.is_empty()) {
            tries.push(n.clone());
        }
        if let Some(b) = names.get(&g.pointee).filter(|n| !n.is_empty()) {
            tries.push(b.clone());
        }
        let named = |step: &Step| variable(m, &names, step).is_ok_and(|v| v.id == g.id);
        let mut found = tries
            .into_iter()
            .find(|n| is_name(n) && named(&Step::Name(n.clone())));
        if found.is_none()
            && let (Some(s), Some(b)) = (
                m.int_decoration(&g.id, "DescriptorSet"),
                m.int_decoration(&g.id, "Binding"),
            )
            && let (Ok(s), Ok(b)) = (u32::try_from(s), u32::try_from(b))
            && named(&Step::Binding(s, b))
        {
            found = Some(format!("{s}.{b}"));
        }
        if let Some(n) = found {
            out.insert(g.id.clone(), n);
        }
    }
    out
}

/// Whether `n` reads back as one name step (`steps` splits `a.b`).
fn is_name(n: &str) -> bool {
    matches!(crate::frontend::inputs::steps(n).as_deref(), Ok([Step::Name(s)]) if s == n)
}

/// The source spelling of a location name the module built
/// (`%ID[i][j]...SUFFIX`), `None` where the rules do not give one.
fn spelled(
    m: &Module,
    members: &HashMap<(String, usize), String>,
    vars: &HashMap<String, String>,
    name: &str,
) -> Option<String> {
    let rest = name.strip_prefix('%')?;
    let id_end = rest.find(['[', '@', '+']).unwrap_or(rest.len());
    let id = &rest[..id_end];
    let user = vars.get(id)?;
    let g = m.globals.iter().find(|g| g.id == id)?;
    // The index path, then whatever follows it.
    let mut path = Vec::new();
    let mut tail = &rest[id_end..];
    while let Some(r) = tail.strip_prefix('[') {
        let close = r.find(']')?;
        let Ok(k) = r[..close].parse::<usize>() else {
            break;
        };
        path.push(k);
        tail = &r[close + 1..];
    }
    if tail.starts_with('+') {
        // Bytes past the end of the variable: the module's spelling.
        return None;
    }
    let mut out = user.clone();
    let mut ty = g.pointee.clone();
    // Coordinates and the channel of a texel: plain indices.
    let mut in_image = false;
    for &k in &path {
        if in_image {
            out.push_str(&format!("[{k}]"));
            continue;
        }
        let elem = match m.ty(&ty)? {
            // A wrapper struct of one member: no step of its own.
            Ty::Struct { members: ms } if ms.len() == 1 && is_wrapper(members, &ty) => {
                if k != 0 {
                    return None;
                }
                ty = ms[0].clone();
                continue;
            }
            Ty::Struct { members: ms } => {
                let field = members.get(&(ty.clone(), k)).filter(|n| is_name(n))?;
                // A member name the struct has twice names the first.
                let first = (0..ms.len()).find(|&j| members.get(&(ty.clone(), j)) == Some(field));
                if first != Some(k) {
                    return None;
                }
                out.push('.');
                out.push_str(field);
                ms.get(k)?.clone()
            }
            Ty::Array { elem, len } => {
                if k >= *len {
                    return None;
                }
                out.push_str(&format!("[{k}]"));
                elem.clone()
            }
            Ty::RuntimeArray { elem } => {
                out.push_str(&format!("[{k}]"));
                elem.clone()
            }
            Ty::Vector { elem, .. } | Ty::Strided { elem, .. } => {
                out.push_str(&format!("[{k}]"));
                elem.clone()
            }
            Ty::Matrix { col, .. } => {
                out.push_str(&format!("[{k}]"));
                col.clone()
            }
            Ty::Image { .. } | Ty::SampledImage { .. } | Ty::Tensor { .. } => {
                in_image = true;
                out.push_str(&format!("[{k}]"));
                continue;
            }
            _ => return None,
        };
        ty = elem;
    }
    out.push_str(tail);
    Some(out)
}

/// Whether the struct `ty`'s first member is unnamed or `@data` (with one
/// member: a compiler's wrapper).
fn is_wrapper(members: &HashMap<(String, usize), String>, ty: &str) -> bool {
    members
        .get(&(ty.to_string(), 0))
        .is_none_or(|n| n.is_empty() || n == "@data")
}

/// Renames the program's locations (and the names of memory its symbols
/// and out-of-bounds sites hold) to the source's spelling; the module's
/// spelling stays a name of the same locations. Returns each module name
/// renamed and its source spelling.
pub(super) fn rename(insts: &[Inst], m: &Module, program: &mut Program) -> HashMap<String, String> {
    let vars = variable_names(insts, m);
    if vars.is_empty() {
        return HashMap::new();
    }
    let members = member_names(insts);
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut spell = |name: &str| -> Option<String> {
        if let Some(s) = renamed.get(name) {
            return Some(s.clone());
        }
        let s = spelled(m, &members, &vars, name)?;
        renamed.insert(name.to_string(), s.clone());
        Some(s)
    };
    for l in 0..program.locations.len() {
        if let Some(s) = spell(&program.locations[l]) {
            program.locations[l] = s;
        }
    }
    for r in &mut program.references {
        if let Some(s) = spell(&r.name) {
            r.name = s;
        }
    }
    // Every name of memory gets its source spelling beside it; a sized
    // cell cut into chunks is shown under its entry's name, so that entry
    // is shown in the source spelling too.
    add_spellings(program, true, &mut spell);
    for site in &mut program.out_of_bounds {
        if let Some(v) = site.variable.strip_prefix('%')
            && let Some(user) = vars.get(v)
        {
            site.variable = user.clone();
        }
    }
    renamed
}

/// Gives each name of memory its source spelling beside the module's,
/// leaving the locations' names (what reports show) as the module spells
/// them: a SPIR-V module written or disassembled by hand (`.spvasm`,
/// `.spv`) is reported in its own `%` names, and its header conditions
/// may still name a cell as the source it came from does (`buf.data[3]`,
/// `seen@wg1`, `w.x[0][1..2]`), as `--assert` does.
pub(super) fn alias(insts: &[Inst], m: &Module, program: &mut Program) {
    let vars = variable_names(insts, m);
    if vars.is_empty() {
        return;
    }
    let members = member_names(insts);
    add_spellings(program, false, &mut |n| spelled(m, &members, &vars, n));
}

/// Adds, for each name of memory the symbol table holds, the name `spell`
/// gives it, beside the module's (which stays a name of the same
/// locations), unless the table has that name already. With `shown`, a
/// sized cell's entry (the name its chunks are reported under) is itself
/// renamed to the new spelling.
fn add_spellings(
    program: &mut Program,
    shown: bool,
    spell: &mut dyn FnMut(&str) -> Option<String>,
) {
    let entries: Vec<crate::ir::LocationName> = program.symbols.names.clone();
    for (k, e) in entries.iter().enumerate() {
        let Some(s) = spell(&e.name) else { continue };
        if program.symbols.lookup(&s).is_some() {
            continue;
        }
        if e.bytes.len() > 1 {
            let chunks: Vec<(crate::ir::ByteRange, usize)> = e
                .bytes
                .iter()
                .copied()
                .zip(e.locations.iter().copied())
                .collect();
            if shown {
                program.symbols.names[k].name = s.clone();
            }
            program.symbols.add_sized(&s, &chunks);
        } else {
            program.symbols.add_name(&s, e.locations.clone());
        }
    }
}

/// The condition's text (the module's names an `--assert` was read into)
/// in the source's spelling.
pub(super) fn respell_condition(renamed: &HashMap<String, String>, program: &mut Program) {
    if let Some(c) = &mut program.condition {
        c.text = respelled(&c.text, &mut |n| renamed.get(n).cloned());
    }
}

/// `text` with each `%NAME[i]...` that names a cell in its source spelling.
fn respelled(text: &str, spell: &mut dyn FnMut(&str) -> Option<String>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && name_char(chars[j]) {
            j += 1;
        }
        // Index steps and a workgroup instance.
        loop {
            if j < chars.len() && chars[j] == '[' {
                let mut k = j + 1;
                while k < chars.len() && (chars[k].is_ascii_digit() || chars[k] == '.') {
                    k += 1;
                }
                if k < chars.len() && chars[k] == ']' && k > j + 1 {
                    j = k + 1;
                    continue;
                }
            }
            if j < chars.len() && chars[j] == '@' {
                let mut k = j + 1;
                while k < chars.len() && chars[k].is_ascii_alphanumeric() {
                    k += 1;
                }
                j = k;
            }
            break;
        }
        let word: String = chars[i..j].iter().collect();
        out.push_str(&spell(&word).unwrap_or(word));
        i = j;
    }
    out
}

/// The files a module compiled with debug information was made of: the
/// `OpString`s an `OpSource` gives the text of. The first `OpSource` is
/// the shader's own (glslang names it `stdin`); the others are the
/// headers it includes (`./common.h`), each with its text, so a place in
/// a header is reported in the header rather than at the same line of
/// the shader.
#[derive(Default)]
pub(super) struct Sources {
    /// The `OpString` id of the shader's own file.
    main: Option<String>,
    /// The included files: `OpString` id, name as the compiler spells it,
    /// and text.
    headers: Vec<(String, String, String)>,
}

impl Sources {
    /// Reads the `OpString`, `OpSource` and `OpSourceContinued` lines of a
    /// module's text.
    pub(super) fn read(lines: &[&str]) -> Sources {
        let mut names = HashMap::new();
        let mut out = Sources::default();
        for l in lines {
            let mut w = l.split_whitespace();
            let first = w.next().unwrap_or("");
            if w.next() == Some("=") && w.next() == Some("OpString") {
                let quoted = l.split_once("OpString").map_or("", |(_, q)| q.trim());
                names.insert(first.to_string(), unquote(quoted));
                continue;
            }
            match first {
                // OpSource Language Version [File [Source]]
                "OpSource" => {
                    let mut w = l.split_whitespace().skip(3);
                    let Some(id) = w.next().filter(|id| id.starts_with('%')) else {
                        continue;
                    };
                    let text = l.find('"').map_or(String::new(), |q| unquote(&l[q..]));
                    match &out.main {
                        None => out.main = Some(id.to_string()),
                        Some(m) if m == id => {}
                        Some(_) => {
                            let name = names.get(id).cloned().unwrap_or_default();
                            out.headers.push((id.to_string(), name, text));
                        }
                    }
                }
                // "Continue specifying the Source text from the previous
                // instruction."
                "OpSourceContinued" => {
                    if let (Some(q), Some(h)) = (l.find('"'), out.headers.last_mut()) {
                        h.2.push_str(&unquote(&l[q..]));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The name of the header the `OpString` `id` stands for (`None` for
    /// the shader's own file or an id no `OpSource` gives text to).
    pub(super) fn header(&self, id: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, name, _)| name.as_str())
    }
}

/// A quoted string of a module's text (`"a\"b\n"`, as
/// `binary::disassemble` writes one) as the string it stands for.
fn unquote(quoted: &str) -> String {
    let inner = quoted.strip_prefix('"').unwrap_or(quoted);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(other) => out.push(other),
                None => break,
            },
            _ => out.push(c),
        }
    }
    out
}

/// A place in the shader's source: the header it is in (`None`: the
/// shader's own file), as the compiler names it, the line and the column.
pub(super) type Place = (Option<String>, usize, usize);

/// Where the source declares the global variable that line `k` (from 1)
/// of a compiled module's text defines (`%buf = OpVariable ...`): the
/// first line declaring its name (its `OpName`; a block without an
/// instance name: its block type's), as `declaration` finds it in the
/// shader, else in a header it includes (`sources`), else the name's first
/// occurrence. Compilers give global variables no `OpLine`.
pub(super) fn declared_at(
    lines: &[&str],
    k: usize,
    source: &str,
    sources: &Sources,
) -> Option<Place> {
    let mut words = lines.get(k.checked_sub(1)?)?.split_whitespace();
    let id = words.next()?;
    if words.next() != Some("=") || words.next() != Some("OpVariable") {
        return None;
    }
    let pointer = words.next()?;
    // Module scope: before the first function.
    if lines[..k]
        .iter()
        .any(|l| l.split_whitespace().nth(2) == Some("OpFunction"))
    {
        return None;
    }
    let name_of = |id: &str| {
        lines.iter().find_map(|l| {
            let rest = l.trim_start().strip_prefix("OpName ")?;
            let (target, name) = rest.split_once(' ')?;
            let name = name.trim().strip_prefix('"')?.strip_suffix('"')?;
            (target == id && !name.is_empty()).then(|| name.to_string())
        })
    };
    let pointee = || {
        lines.iter().find_map(|l| {
            let mut w = l.split_whitespace();
            if w.next()? != pointer || w.next()? != "=" || w.next()? != "OpTypePointer" {
                return None;
            }
            w.nth(1).map(str::to_string)
        })
    };
    let name = name_of(id).or_else(|| name_of(&pointee()?))?;
    let (declared, first) = occurrences(source, &name);
    let mut in_headers = sources.headers.iter().map(|(_, header, text)| {
        let (declared, first) = occurrences(text, &name);
        (header, declared, first)
    });
    let at = |header: &String, (line, column)| (Some(header.clone()), line, column);
    declared
        .map(|(line, column)| (None, line, column))
        .or_else(|| in_headers.clone().find_map(|(h, d, _)| d.map(|p| at(h, p))))
        .or_else(|| first.map(|(line, column)| (None, line, column)))
        .or_else(|| in_headers.find_map(|(h, _, f)| f.map(|p| at(h, p))))
}

/// The line and column (from 1) where `source` declares `name`: the first
/// line outside comments where the word `name` follows what starts a
/// declaration of a binding (WGSL's `var` or `var<...>`, GLSL's `buffer`,
/// `uniform`, `shared`, a block's closing `}`, HLSL's resource type
/// `RWStructuredBuffer<uint>`: a `>` or a type name ending in `Buffer`,
/// `Texture...`; a line whose words before the name include `shared` or
/// `groupshared`), else the first line where the word occurs.
#[cfg(test)]
fn declaration(source: &str, name: &str) -> Option<(usize, usize)> {
    let (declared, first) = occurrences(source, name);
    declared.or(first)
}

/// Where `source` declares `name`, as `declaration` finds it, and the
/// first line where the word occurs (the line and column of each, from 1).
#[allow(clippy::type_complexity)]
fn occurrences(source: &str, name: &str) -> (Option<(usize, usize)>, Option<(usize, usize)>) {
    let word_at = |line: &str, from: usize| -> Option<usize> {
        let mut at = from;
        while let Some(i) = line[at..].find(name) {
            let start = at + i;
            let end = start + name.len();
            let before = line[..start].chars().next_back();
            let after = line[end..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ident(before) && !ident(after) && before != Some('.') {
                return Some(start);
            }
            at = end;
        }
        None
    };
    let declares = |before: &str| {
        let b = before.trim_end();
        let last = b
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let qualified = b
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| matches!(w, "shared" | "groupshared"));
        b.ends_with('>')
            || b.ends_with('}')
            || qualified
            || matches!(last, "var" | "buffer" | "uniform" | "shared")
            || (last.ends_with("Buffer") || last.contains("Texture"))
    };
    let mut first = None;
    let mut in_comment = false;
    for (n, raw) in source.lines().enumerate() {
        // Comments become spaces, so columns stay.
        let mut line = String::with_capacity(raw.len());
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            if in_comment {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    in_comment = false;
                    line.push_str("  ");
                } else {
                    line.push(' ');
                }
            } else if c == '/' && chars.peek() == Some(&'/') {
                break;
            } else if c == '/' && chars.peek() == Some(&'*') {
                chars.next();
                in_comment = true;
                line.push_str("  ");
            } else {
                line.push(c);
            }
        }
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut from = 0;
        while let Some(start) = word_at(&line, from) {
            let column = line[..start].chars().count() + 1;
            if declares(&line[..start]) {
                return (Some((n + 1, column)), first.or(Some((n + 1, column))));
            }
            first.get_or_insert((n + 1, column));
            from = start + name.len();
        }
    }
    (None, first)
}

#[cfg(test)]
mod tests {
    use super::declaration;

    #[test]
    fn a_declaration_is_found_past_uses_and_comments() {
        // WGSL lets a function use a binding declared below it: the
        // declaration (`var<...> out`, column 48) is found, not the use.
        let wgsl = "fn f() { out[0] = 1u; }\n@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n";
        assert_eq!(declaration(wgsl, "out"), Some((2, 48)));
        // A comment naming it is skipped; HLSL's resource type precedes it.
        let hlsl = "// out is the buffer\n/* out */ RWStructuredBuffer<uint> out : register(u0);\n";
        assert_eq!(declaration(hlsl, "out"), Some((2, 36)));
        // A GLSL block's instance name after its closing brace.
        let glsl = "buffer Buf {\n  uint data[];\n} buf;\nvoid main() { buf.data[0] = 1; }\n";
        assert_eq!(declaration(glsl, "buf"), Some((3, 3)));
        assert_eq!(declaration(glsl, "Buf"), Some((1, 8)));
        assert_eq!(declaration(glsl, "nothing"), None);
    }

    #[test]
    fn sources_are_the_shader_and_the_headers_an_opsource_gives_text_to() {
        use super::{Sources, declared_at};
        // glslang's debug information: the shader (`stdin`) first, then
        // the header, its text in two parts (OpSourceContinued).
        let asm = [
            "%1 = OpString \"stdin\"",
            "%2 = OpString \"./common.h\"",
            "OpSource GLSL 450 %1 \"#include \\\"common.h\\\"\\nvoid main() { part[0] = 1; }\"",
            "OpSource GLSL 450 %2 \"// header\\n\"",
            "OpSourceContinued \"shared uint part[8];\\n\"",
            "OpName %part \"part\"",
            "%part = OpVariable %ptr Workgroup",
        ];
        let sources = Sources::read(&asm);
        assert_eq!(sources.header("%1"), None);
        assert_eq!(sources.header("%2"), Some("./common.h"));
        // The declaration in the header wins over the use in the shader.
        let main = "#include \"common.h\"\nvoid main() { part[0] = 1; }";
        assert_eq!(
            declared_at(&asm, 7, main, &sources),
            Some((Some("./common.h".to_string()), 2, 13))
        );
        // Without the header's text, the shader's first use.
        assert_eq!(
            declared_at(&asm, 7, main, &Sources::default()),
            Some((None, 2, 15))
        );
    }

    #[test]
    fn a_name_two_variables_answer_to_is_shown_by_set_and_binding() {
        // `%a` and `%b` are both named `data` and share the block type
        // `S`: neither name picks one, so they are shown as 0.1 and 0.2;
        // `%c` is the only `count`. The module's names stay names.
        let asm = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
OpName %a \"data\"\nOpName %b \"data\"\nOpName %c \"count\"\nOpName %S \"S\"\nOpMemberName %S 0 \"v\"\n\
OpDecorate %a DescriptorSet 0\nOpDecorate %a Binding 1\nOpDecorate %b DescriptorSet 0\nOpDecorate %b Binding 2\nOpDecorate %c DescriptorSet 0\nOpDecorate %c Binding 3\n\
OpDecorate %S Block\nOpMemberDecorate %S 0 Offset 0\n\
%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n\
%S = OpTypeStruct %uint\n%pS = OpTypePointer StorageBuffer %S\n%pu = OpTypePointer StorageBuffer %uint\n\
%a = OpVariable %pS StorageBuffer\n%b = OpVariable %pS StorageBuffer\n%c = OpVariable %pS StorageBuffer\n\
%main = OpFunction %void None %fn\n%entry = OpLabel\n\
%pa = OpAccessChain %pu %a %c0\nOpStore %pa %c1\n%pb = OpAccessChain %pu %b %c0\nOpStore %pb %c1\n%pc = OpAccessChain %pu %c %c0\nOpStore %pc %c1\n\
OpReturn\nOpFunctionEnd\n";
        let p = super::super::parse_compiled("t.comp", "", asm, Default::default()).unwrap();
        assert_eq!(p.locations, ["0.1.v", "0.2.v", "count.v"]);
        for (name, loc) in [("%a[0]", 0), ("0.2.v", 1), ("%c[0]", 2), ("count.v", 2)] {
            assert_eq!(p.symbols.lookup(name), Some(&[loc][..]), "{name}");
        }
    }
}

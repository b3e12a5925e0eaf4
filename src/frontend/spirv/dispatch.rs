//! The dispatch a module is checked at: the workgroup size, subgroup size
//! and workgroup count from the command line ([`ShaderOptions`]), else from
//! the `@Config` header, else the size the entry point declares; and spec
//! constants set by name or SpecId (`--set`).
//!
//! docs/checking-your-shader.md, "Dispatch".

use super::headers::MAX_INVOCATIONS;
use super::module::{CVal, Grid, Module};
use super::syntax::{Inst, Located, Tok};
use crate::frontend::ShaderOptions;
use ::spirv::Op;
use std::collections::HashMap;

/// The workgroup size an entry point declares, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Declared {
    pub size: [usize; 3],
    /// `LocalSize` or `LocalSizeId`.
    pub mode: String,
    pub line: usize,
    pub col: usize,
}

/// The `LocalSize` / `LocalSizeId` execution mode of the entry function
/// `entry`, its operands resolved through the module's constants.
pub(super) fn declared_size(insts: &[Inst], m: &Module, entry: &str) -> Option<Declared> {
    let mode = insts.iter().find(|i| {
        matches!(i.op, Op::ExecutionMode | Op::ExecutionModeId)
            && i.id(0).is_ok_and(|f| f == entry)
            && i.word(1)
                .is_ok_and(|w| w == "LocalSize" || w == "LocalSizeId")
    })?;
    let mut size = [1usize; 3];
    for (d, slot) in size.iter_mut().enumerate() {
        let v = match mode.operands.get(2 + d).map(|o| &o.tok) {
            Some(Tok::Int(n)) => i64::try_from(*n).ok()?,
            Some(Tok::Id(id)) => match m.consts.get(id) {
                Some(CVal::Int(v)) => *v,
                _ => return None,
            },
            _ => return None,
        };
        *slot = usize::try_from(v).ok()?;
    }
    Some(Declared {
        size,
        mode: mode.word(1).unwrap_or_default().to_string(),
        line: mode.line,
        col: mode.col,
    })
}

/// The grid to run: each of the workgroup size, subgroup size and
/// workgroup count from the command line when given, else from `@Config`
/// (`config`: per subgroup, subgroups, workgroups), else the declared
/// workgroup size in one subgroup and one workgroup.
///
/// A shader whose declared size is too large to check exhaustively is an
/// error naming `--local-size`, never silently a smaller grid.
pub(super) fn grid(
    shader: &ShaderOptions,
    config: Option<(usize, usize, usize)>,
    declared: Option<&Declared>,
) -> Result<Grid, Located> {
    let err = |m: String| (0, 0, m);
    let cfg = config.map(|(t, s, w)| Grid::flat(t, s, w));
    let local = match (shader.local_size, cfg, declared) {
        (Some(l), _, _) => l.map(|d| d as usize),
        (None, Some(g), _) => g.local,
        (None, None, Some(d)) => d.size,
        (None, None, None) => [1, 1, 1],
    };
    let groups = match (shader.workgroups, cfg) {
        (Some(g), _) => g.map(|d| d as usize),
        (None, Some(g)) => g.groups,
        (None, None) => [1, 1, 1],
    };
    if local.contains(&0) || groups.contains(&0) {
        return Err(err(
            "the dispatch has a dimension of 0 (every --local-size and --workgroups dimension must be at least 1)".into(),
        ));
    }
    let size = local.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let count = groups.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let (Some(size), Some(count)) = (size, count) else {
        return Err(err("the dispatch is too large to count".into()));
    };
    // The subgroup size: the command line's, else @Config's when the
    // workgroup is @Config's, else the whole workgroup in one subgroup
    // (devices have subgroups of 4 to 128 invocations; the small workgroups
    // vkmm checks fit in one).
    let per_subgroup = match (shader.subgroup_size, cfg) {
        (Some(n), _) => n as usize,
        (None, Some(g)) if shader.local_size.is_none() => g.per_subgroup,
        _ => size,
    };
    if per_subgroup == 0 || size % per_subgroup != 0 {
        return Err(err(format!(
            "a workgroup of {size} invocations cannot be split into subgroups of {per_subgroup}: choose a --subgroup-size that divides the workgroup size"
        )));
    }
    let total = size.checked_mul(count).unwrap_or(usize::MAX);
    if total > MAX_INVOCATIONS {
        let origin = if shader.local_size.is_some() || shader.workgroups.is_some() {
            "the command line asks for".to_string()
        } else if let Some(d) = declared.filter(|_| cfg.is_none()) {
            format!(
                "the entry point declares `{} {} {} {}`, so the dispatch has",
                d.mode, d.size[0], d.size[1], d.size[2]
            )
        } else {
            "the dispatch has".to_string()
        };
        return Err(err(format!(
            "{origin} {total} invocations; vkmm checks at most {MAX_INVOCATIONS}, and a few (2 to 8) answer in seconds: choose a small dispatch with --local-size X[,Y,Z] and --workgroups X[,Y,Z] (with --set for constants the shader ties to its size)"
        )));
    }
    Ok(Grid {
        per_subgroup,
        subgroups: size / per_subgroup,
        workgroups: count,
        local,
        groups,
    })
}

/// Applies `--set NAME=VALUE` to the spec constants: `NAME` is a spec
/// constant's name (its `OpName`, or its id) or its `SpecId` number.
/// A name that matches no spec constant is an error listing those there are.
pub(super) fn set_spec_constants(
    insts: &[Inst],
    set: &[(String, String)],
    spec: &mut HashMap<String, i64>,
) -> Result<(), Located> {
    if set.is_empty() {
        return Ok(());
    }
    let specs: Vec<&Inst> = insts
        .iter()
        .filter(|i| {
            matches!(
                i.op,
                Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
            )
        })
        .collect();
    let id_of = |i: &Inst| {
        i.result
            .as_ref()
            .map(|(r, _)| r.clone())
            .unwrap_or_default()
    };
    let name_of = |id: &str| {
        insts
            .iter()
            .find_map(|i| match (i.op, i.operands.get(1).map(|o| &o.tok)) {
                (Op::Name, Some(Tok::Str(s))) if i.id(0).is_ok_and(|x| x == id) => Some(s.clone()),
                _ => None,
            })
    };
    let spec_id_of = |id: &str| {
        insts.iter().find_map(|i| {
            if i.op == Op::Decorate
                && i.id(0).is_ok_and(|x| x == id)
                && i.word(1).is_ok_and(|w| w == "SpecId")
            {
                match i.operands.get(2).map(|o| &o.tok) {
                    Some(Tok::Int(n)) => Some(*n),
                    _ => None,
                }
            } else {
                None
            }
        })
    };
    for (name, value) in set {
        let value = parse_value(value).ok_or_else(|| {
            (
                0,
                0,
                format!("--set {name}={value}: expected an integer, `true` or `false`"),
            )
        })?;
        let matches: Vec<String> = specs
            .iter()
            .map(|i| id_of(i))
            .filter(|id| {
                *id == *name
                    || name_of(id).is_some_and(|n| n == *name)
                    || spec_id_of(id).is_some_and(|s| s.to_string() == *name)
            })
            .collect();
        if matches.is_empty() {
            let known: Vec<String> = specs
                .iter()
                .map(|i| {
                    let id = id_of(i);
                    let shown = name_of(&id).unwrap_or_else(|| format!("%{id}"));
                    match spec_id_of(&id) {
                        Some(s) => format!("{shown} (SpecId {s})"),
                        None => shown,
                    }
                })
                .collect();
            let listed = if known.is_empty() {
                "the module has no spec constants".to_string()
            } else {
                format!("its spec constants: {}", known.join(", "))
            };
            return Err((
                0,
                0,
                format!(
                    "--set {name}: no spec constant of the module is named {name} or has that SpecId ({listed})"
                ),
            ));
        }
        for id in matches {
            spec.insert(id, value);
        }
    }
    Ok(())
}

/// An integer (decimal, `0x` hexadecimal, a `u`/`i` suffix as WGSL and
/// GLSL write them), `true` (1) or `false` (0).
pub(crate) fn parse_value(text: &str) -> Option<i64> {
    let t = text.trim();
    match t {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    let t = t.trim_end_matches(['u', 'U', 'i']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => t.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// The error for `--entry NAME` naming no entry point.
pub(super) fn no_such_entry(name: &str, names: &[String]) -> String {
    if names.is_empty() {
        format!("--entry {name}: the module has no entry point")
    } else {
        format!(
            "--entry {name}: the module has no entry point named {name} (its entry points: {})",
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(local: Option<[u32; 3]>, groups: Option<[u32; 3]>, sg: Option<u32>) -> ShaderOptions {
        ShaderOptions {
            local_size: local,
            workgroups: groups,
            subgroup_size: sg,
            ..ShaderOptions::default()
        }
    }

    fn declared(size: [usize; 3]) -> Declared {
        Declared {
            size,
            mode: "LocalSize".into(),
            line: 3,
            col: 1,
        }
    }

    #[test]
    fn the_declared_size_runs_without_a_dispatch() {
        let g = grid(&opts(None, None, None), None, Some(&declared([2, 2, 1]))).unwrap();
        assert_eq!((g.per_subgroup, g.subgroups, g.workgroups), (4, 1, 1));
        assert_eq!(g.local, [2, 2, 1]);
        assert_eq!(g.groups, [1, 1, 1]);
    }

    #[test]
    fn the_command_line_wins_over_config_and_declaration() {
        let g = grid(
            &opts(Some([4, 1, 1]), Some([2, 1, 1]), Some(2)),
            Some((1, 1, 3)),
            Some(&declared([256, 1, 1])),
        )
        .unwrap();
        assert_eq!((g.per_subgroup, g.subgroups, g.workgroups), (2, 2, 2));
        assert_eq!(g.groups, [2, 1, 1]);
    }

    #[test]
    fn config_keeps_its_subgroups() {
        let g = grid(
            &opts(None, None, None),
            Some((2, 3, 2)),
            Some(&declared([64, 1, 1])),
        )
        .unwrap();
        assert_eq!((g.per_subgroup, g.subgroups, g.workgroups), (2, 3, 2));
        assert_eq!(g.local, [6, 1, 1]);
    }

    #[test]
    fn a_large_declared_size_names_local_size() {
        let e = grid(&opts(None, None, None), None, Some(&declared([512, 1, 1]))).unwrap_err();
        assert!(e.2.contains("LocalSize 512 1 1"), "{}", e.2);
        assert!(e.2.contains("--local-size"), "{}", e.2);
        // 256 in one workgroup is the limit itself; 2 x 256 is over it.
        assert!(
            grid(
                &opts(None, Some([2, 1, 1]), None),
                None,
                Some(&declared([256, 1, 1]))
            )
            .is_err()
        );
    }

    #[test]
    fn subgroups_must_divide_the_workgroup() {
        let e = grid(&opts(Some([6, 1, 1]), None, Some(4)), None, None).unwrap_err();
        assert!(e.2.contains("--subgroup-size"), "{}", e.2);
        assert!(grid(&opts(Some([0, 1, 1]), None, None), None, None).is_err());
    }

    #[test]
    fn values() {
        assert_eq!(parse_value("8u"), Some(8));
        assert_eq!(parse_value("0x10"), Some(16));
        assert_eq!(parse_value("-3"), Some(-3));
        assert_eq!(parse_value("true"), Some(1));
        assert_eq!(parse_value("x"), None);
    }
}

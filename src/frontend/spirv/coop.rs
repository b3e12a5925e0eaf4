//! Cooperative matrices over the whole program (docs/format-spirv.md,
//! "Cooperative matrices"): the rules the Vulkan litmus dialect checks for
//! `cmld` / `cmst` (src/frontend/vulkan_litmus/coop.rs), at the SPIR-V
//! instruction, and the attributions, which a module never states: every
//! instruction leaves them open, as a litmus test without `:` does.

use super::lower::CoopUse;
use super::syntax::Located;
use crate::frontend::vulkan_litmus::coop::{Choice, alternatives};
use crate::ir::{Program, Scope, Stmt};

/// "All dynamic instances of an instruction with an operand or result that
/// is an object of this type must be executed such that all the
/// invocations in the 'Scope' instance are active or none of them are."
const ACTIVE: &str = "\"All dynamic instances of an instruction with an operand or result that is an object of this type must be executed such that all the invocations in the 'Scope' instance are active or none of them are\"";

/// "All the operands to this instruction must be dynamically uniform
/// within every instance of the 'Scope' of the cooperative matrix."
const UNIFORM: &str = "\"All the operands to this instruction must be dynamically uniform within every instance of the 'Scope' of the cooperative matrix\"";

/// Checks the rules and replaces `program` by its first attribution, the
/// others its alternatives (src/ir/attribution.rs). `uses[k]` are the
/// instructions invocation `k` lowered, in order (instance `i` is the
/// `i`th).
pub(super) fn finish(program: &mut Program, uses: &[Vec<CoopUse>]) -> Result<(), Located> {
    if uses.iter().all(Vec::is_empty) {
        return Ok(());
    }
    // Executed once by every invocation: no jump crosses the instruction
    // (a loop around it, a branch skipping it, a return before it).
    for (k, t) in program.threads.iter().enumerate() {
        let label_at = |name: &str| {
            t.code
                .iter()
                .position(|s| matches!(s, Stmt::Label { name: n, .. } if n == name))
        };
        for (i, s) in t.code.iter().enumerate() {
            let Stmt::Op(ins) = s else { continue };
            if ins.coop.is_none() {
                continue;
            }
            for (j, s) in t.code.iter().enumerate() {
                let (Stmt::Goto { label, .. } | Stmt::Branch { label, .. }) = s else {
                    continue;
                };
                let Some(l) = label_at(label) else { continue };
                if (j < i && l > i) || (j > i && l <= i) {
                    let line = ins.source.line;
                    let u = uses[k].iter().find(|u| u.line == line);
                    return Err((
                        line,
                        u.map_or(1, |u| u.col),
                        format!(
                            "P{k} may skip or repeat this cooperative matrix instruction (a branch, a loop or a return around it): {ACTIVE}; vkmm lowers it where every invocation executes it once"
                        ),
                    ));
                }
            }
        }
    }
    // Every invocation of the scope instance executes the same instances
    // with the same operands.
    for (k, mine) in uses.iter().enumerate() {
        for (i, u) in mine.iter().enumerate() {
            let same = |j: usize| {
                let (a, b) = (&program.threads[k], &program.threads[j]);
                match u.scope {
                    Scope::Subgroup => a.subgroup == b.subgroup,
                    _ => a.workgroup == b.workgroup,
                }
            };
            for (j, theirs) in uses.iter().enumerate().filter(|&(j, _)| same(j)) {
                match theirs.get(i) {
                    None => {
                        return Err((
                            u.line,
                            u.col,
                            format!(
                                "P{k} executes this cooperative matrix instruction as its instance {i}, but P{j}, in the same {} instance, executes {} cooperative matrix instruction(s): {ACTIVE}",
                                u.scope,
                                theirs.len()
                            ),
                        ));
                    }
                    Some(v) if v != u => {
                        return Err((
                            v.line,
                            v.col,
                            format!(
                                "P{j} executes this instruction as cooperative matrix instance {i}, where P{k}, in the same {} instance, executes line {}{}: {UNIFORM}",
                                u.scope,
                                u.line,
                                if v.line == u.line {
                                    " with other operands (elements, stored value or scope)"
                                } else {
                                    ""
                                }
                            ),
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    // The attributions: one choice per (instance in a scope instance,
    // element).
    let mut choices: Vec<Choice> = Vec::new();
    for (k, mine) in uses.iter().enumerate() {
        for (i, u) in mine.iter().enumerate() {
            let key = match u.scope {
                Scope::Subgroup => program.threads[k].subgroup,
                _ => program.threads[k].workgroup,
            };
            // Instances of different scope instances are distinct choices:
            // number them apart (instance numbers only meet within one
            // scope instance, as the model's `scm` reads them).
            let instance = (i * program.threads.len() + key) as u32;
            for &e in &u.elements {
                match choices
                    .iter_mut()
                    .find(|c| c.instance == instance && c.element == e)
                {
                    Some(c) => c.threads.push(k),
                    None => choices.push(Choice {
                        instance,
                        element: e,
                        load: u.load,
                        threads: vec![k],
                    }),
                }
            }
        }
    }
    choices.sort_by_key(|c| c.instance);
    // The accesses carry the per-invocation index; give them the choice's.
    let n = program.threads.len();
    for t in &mut program.threads {
        let (sg, wg) = (t.subgroup, t.workgroup);
        for s in &mut t.code {
            if let Stmt::Op(ins) = s
                && let Some(c) = &mut ins.coop
            {
                let key = if c.scope == Scope::Subgroup { sg } else { wg };
                c.instance = (c.instance as usize * n + key) as u32;
            }
        }
    }
    // An element no other access reaches (a store's location nothing else
    // reads or writes; a load's location nothing writes) races with
    // nothing and orders nothing (a non-atomic access is in no
    // synchronizes-with edge), and a load's value, like a store's where
    // nothing else reads it, is the same under every attribution (a loaded
    // matrix's components are not computed, a stored one has one value
    // or is left out of the final states): every attribution of it gives
    // the same answers, so one is run (the lowest invocation).
    for c in &mut choices {
        let other = program.threads.iter().any(|t| {
            t.code.iter().any(|s| {
                matches!(s, Stmt::Op(i) if i.reference == Some(c.element)
                    && i.coop.is_none_or(|e| e.instance != c.instance)
                    && (!c.load || i.is_write()))
            })
        });
        if !other {
            c.threads.truncate(1);
        }
    }
    let (built, total) = alternatives(&choices, program);
    let mut built: Vec<Program> = built
        .into_iter()
        .map(|(name, mut p)| {
            p.attributions.this = Some(name);
            p.attributions.total = total;
            p
        })
        .collect();
    let mut first = built.remove(0);
    first.attributions.others = built;
    *program = first;
    Ok(())
}

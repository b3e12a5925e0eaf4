//! Cooperative matrix loads and stores in the `.test` format (`cmld`,
//! `cmst`; docs/format-alloy-test.md), the spelling of the Vulkan litmus
//! dialect's (src/frontend/vulkan_litmus/coop.rs): the appendix's
//! "Cooperative Matrix Memory Access". Every thread of the matrix's scope
//! instance writes the instruction (instance number, stored value,
//! elements); after a `:` word it lists the element accesses it performs
//! (`x=V` for a load: the access reads V, as `ld.sc0 x = V`), which become
//! its non-atomic loads and stores tagged [`crate::ir::CoopElement`].
//! Without `:` the attribution is left open and every attribution the
//! rendering allows becomes an alternative program. The whole-program
//! rules are the litmus dialect's ([`check_uses`]).

use super::{Parser, Word};
use crate::frontend::FrontendError;
use crate::frontend::attributes::{ALLOY, Attrs};
use crate::frontend::vulkan_litmus::coop::{CoopUse, alternatives, check_uses, open_choices};
use crate::ir::{CoopElement, Instruction, OpKind, Operand, Program, Scope, SourceSpan};

/// Where a `.test` word is: line and column.
pub(super) type At = (usize, usize);

/// Whether `name` is a variable name (as an ordinary access's).
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

impl Parser<'_> {
    /// `cmst.SCOPE.scN I V x y ... [: x ...]` and
    /// `cmld.SCOPE.scN I x y ... [: x=V y ...]`.
    pub(super) fn coop(
        &mut self,
        n: usize,
        code: &str,
        ws: &[Word<'_>],
    ) -> Result<(), FrontendError> {
        let op = ws[0];
        let mut tokens = op.text.split('.');
        let word = tokens.next().unwrap_or_default();
        let load = word == "cmld";
        let mut attrs = Attrs::default();
        let mut col = op.col + word.len() + 1;
        for tok in tokens {
            let known = !tok.is_empty()
                && tok != "atom"
                && attrs
                    .token(tok, col, &ALLOY)
                    .map_err(|(c, msg)| self.err(n, c, msg))?;
            if !known {
                return Err(self.err(
                    n,
                    col,
                    format!(
                        "`{tok}` does not apply to `{word}`: a cooperative matrix element access is a non-atomic access with a scope (scopesg, scopewg: the matrix's), a storage class and optionally nonpriv, av, vis"
                    ),
                ));
            }
            col += tok.chars().count() + 1;
        }
        let Some((scope, mark)) = attrs.scope else {
            return Err(self.err(
                n,
                op.col,
                format!("missing scope: `{word}` names the matrix's scope (scopesg or scopewg)"),
            ));
        };
        if !matches!(scope, Scope::Subgroup | Scope::Workgroup) {
            return Err(self.err(
                n,
                mark.col,
                format!(
                    "the matrix's scope is Subgroup or Workgroup (scopesg, scopewg), not {scope}"
                ),
            ));
        }
        let end = op.col + op.text.chars().count();
        let mut rest = ws[1..].iter().copied();
        let Some(inst) = rest.next() else {
            return Err(self.err(n, end, "expected the instruction's instance number"));
        };
        let instance = self.number(n, inst, "the instruction's instance number")?;
        let instance = u32::try_from(instance).map_err(|_| {
            self.err(
                n,
                inst.col,
                format!("instance `{}` is out of range", inst.text),
            )
        })?;
        let value = if load {
            None
        } else {
            let Some(v) = rest.next() else {
                return Err(self.err(
                    n,
                    end,
                    "expected the stored value after the instance number",
                ));
            };
            Some(self.number(n, v, "the stored value")?)
        };
        let mut elements: Vec<usize> = Vec::new();
        let mut open = true;
        let mut last_end = end;
        for w in rest.by_ref() {
            if w.text == ":" {
                open = false;
                last_end = w.col + 1;
                break;
            }
            if !is_name(w.text) {
                return Err(self.err(
                    n,
                    w.col,
                    format!(
                        "expected an element (a variable name) or `:`, found `{}`",
                        w.text
                    ),
                ));
            }
            let r = self.reference(w.text);
            if elements.contains(&r) {
                return Err(self.err(n, w.col, format!("element `{}` is listed twice", w.text)));
            }
            elements.push(r);
            last_end = w.col + w.text.chars().count();
        }
        if elements.is_empty() {
            return Err(self.err(
                n,
                last_end,
                format!("expected the matrix's elements (variables) after `{word}`'s operands"),
            ));
        }
        let thread = self.program.threads.len() - 1;
        // (element index, where, value read)
        let mut performed: Vec<(usize, At, Option<i64>)> = Vec::new();
        if open {
            performed = (0..elements.len())
                .map(|e| (e, (n, op.col), None))
                .collect();
        } else {
            for w in rest {
                let (name, read) = match w.text.split_once('=') {
                    Some((name, v)) if load => {
                        let v = v.parse::<i64>().map_err(|_| {
                            self.err(
                                n,
                                w.col,
                                format!(
                                    "expected `x=V` (element x reads the integer V), found `{}`",
                                    w.text
                                ),
                            )
                        })?;
                        (name, Some(v))
                    }
                    _ => (w.text, None),
                };
                let Some(e) = elements
                    .iter()
                    .position(|&r| self.program.references[r].name == name)
                else {
                    return Err(self.err(
                        n,
                        w.col,
                        format!(
                            "`{name}` is not an element of this `{word}` (its elements come before `:`)"
                        ),
                    ));
                };
                if performed.iter().any(|p| p.0 == e) {
                    return Err(self.err(
                        n,
                        w.col,
                        format!(
                            "element `{name}` is accessed twice by thread {}",
                            self.program.threads[thread].id
                        ),
                    ));
                }
                performed.push((e, (n, w.col), read));
            }
        }
        let span = SourceSpan {
            file: None,
            line: n,
            text: code.trim().into(),
        };
        for &(e, _, read) in &performed {
            let kind = if load { OpKind::Load } else { OpKind::Store };
            let mut ins = Instruction::new(kind, span.clone());
            attrs.apply(&mut ins);
            attrs
                .validate(&ins, op.col, &ALLOY)
                .map_err(|(c, msg)| self.err(n, c, msg))?;
            // The scope is the matrix's; an access has one only for its
            // per-instruction availability/visibility operation.
            if !(ins.make_pointer_available || ins.make_pointer_visible) {
                ins.scope = None;
            }
            ins.reference = Some(elements[e]);
            ins.write_value = value;
            ins.read_value = read;
            ins.coop = Some(CoopElement { instance, scope });
            self.push(ins);
        }
        self.coops.push(CoopUse {
            thread,
            at: (n, op.col),
            instance,
            load,
            scope,
            elements,
            value: value.map(Operand::Const),
            performed: if open {
                Vec::new()
            } else {
                performed.iter().map(|&(e, at, _)| (e, at)).collect()
            },
            open,
        });
        Ok(())
    }

    /// The whole-program rules of the cooperative matrix instructions
    /// (the litmus dialect's), once locations and sizes are known.
    pub(super) fn check_coops(&self) -> Result<(), FrontendError> {
        let ids: Vec<usize> = self.program.threads.iter().map(|t| t.id).collect();
        check_uses(&self.coops, &self.program, &|(line, _)| line, &|t| {
            format!("thread {}", ids[t])
        })
        .map_err(|((line, col), msg)| self.err(line, col, msg))
    }

    /// When some instance leaves its attribution open: every attribution
    /// built from `full` (the program before byte lowering, whose threads
    /// access every element), lowered; the first becomes the program, the
    /// others its alternatives (src/ir/attribution.rs). `lowered` is the
    /// whole program after lowering, whose names and warnings they share.
    pub(super) fn expand_coop_attributions(
        &self,
        full: &Program,
        lowered: Program,
    ) -> Result<Program, FrontendError> {
        let (alternatives, total) = alternatives(&open_choices(&self.coops), full);
        let mut built: Vec<Program> = Vec::new();
        for (name, mut p) in alternatives {
            crate::ir::bytes::lower(&mut p).map_err(|e| {
                let (line, col) = self.coops.iter().find(|c| c.open).map_or((1, 1), |c| c.at);
                self.err(line, col, e.message)
            })?;
            p.symbols = lowered.symbols.clone();
            p.warnings = lowered.warnings.clone();
            p.attributions.this = Some(name);
            p.attributions.total = total;
            built.push(p);
        }
        if built.is_empty() {
            return Ok(lowered);
        }
        let mut first = built.remove(0);
        first.attributions.others = built;
        Ok(first)
    }
}

/// Whether the first word of a line is a cooperative matrix instruction.
pub(super) fn is_coop(op: &str) -> bool {
    let word = op.split('.').next().unwrap_or_default();
    word == "cmld" || word == "cmst"
}

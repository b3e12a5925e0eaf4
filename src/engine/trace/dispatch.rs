//! Dispatch chains: the front ends lower an access through a runtime index
//! to one access per cell, each behind a test of the index (`if (i == 0)
//! goto L0; if (i == 4) goto L4; ...`), a run of equality branches on one
//! register as long as the array. Walked statement by statement, each
//! access costs a step per cell before the one it names; with the
//! register's value known, the executor jumps to the branch that holds
//! at once ([`Chain::lands`]).
//!
//! Written here because it is a fact about vkmm's own program
//! representation, which no crate knows.

use crate::ir::{Cmp, Operand, Stmt, Thread};
use std::collections::HashMap;

/// A run of consecutive `if (r == c) goto L` statements on one register.
pub(super) struct Chain {
    /// The register tested.
    pub reg: Operand,
    /// Per constant, the first branch of the run testing it.
    first: HashMap<i64, usize>,
    /// The statement after the run.
    pub end: usize,
}

impl Chain {
    /// The branch of the run that holds with the register at `v` (the
    /// first testing `v`), or `None` when none does (the walk goes on at
    /// `end`).
    pub fn lands(&self, v: i64) -> Option<usize> {
        self.first.get(&v).copied()
    }
}

/// Runs shorter than this are walked as they are.
const MIN_CHAIN: usize = 8;

/// The dispatch chains of `t`, by their first statement.
pub(super) fn chains(t: &Thread) -> HashMap<usize, Chain> {
    let test = |k: usize| match &t.code[k] {
        Stmt::Branch {
            cmp: Cmp::Eq,
            a: a @ Operand::Reg(_),
            b: Operand::Const(c),
            ..
        } => Some((a, *c)),
        _ => None,
    };
    let mut out = HashMap::new();
    let mut k = 0;
    while k < t.code.len() {
        let Some((reg, _)) = test(k) else {
            k += 1;
            continue;
        };
        let mut end = k;
        let mut first = HashMap::new();
        while end < t.code.len()
            && let Some((r, c)) = test(end)
            && r == reg
        {
            first.entry(c).or_insert(end);
            end += 1;
        }
        if end - k >= MIN_CHAIN {
            out.insert(
                k,
                Chain {
                    reg: reg.clone(),
                    first,
                    end,
                },
            );
        }
        k = end;
    }
    out
}

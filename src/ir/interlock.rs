//! The static rules of fragment shader interlock that a program must keep
//! (docs/interlock.md, "Lints"). The front ends call [`check`] after
//! parsing and turn its answer into a located error (exit 2); the engine
//! checks the dynamic part (exactly once on every path) per path.
//!
//! The rules come from `SPV_EXT_fragment_shader_interlock` (not in
//! `../shared/spec/`; docs/interlock.md quotes what it relies on):
//! `OpBeginInvocationInterlockEXT` and `OpEndInvocationInterlockEXT` are
//! fragment-shader instructions, each executed exactly once per invocation,
//! Begin before End, and the critical section between them holds no control
//! barrier. The `FragmentInterlock` scope names the fragment interlock
//! instance, "accessible by fragment shader agents that overlap" (the
//! appendix), so it only has a meaning in a fragment invocation.

use super::{OpKind, Program, Scope, Stmt};

/// A broken rule: the thread (index into `Program::threads`), the
/// statement (index into its code) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterlockIssue {
    pub thread: usize,
    pub stmt: usize,
    pub message: String,
}

/// How a front end spells the interlock instructions and the fragment
/// placement, for messages.
pub struct InterlockSpelling {
    pub begin: &'static str,
    pub end: &'static str,
    pub scope: &'static str,
    /// How a thread is made a fragment invocation.
    pub placement: &'static str,
}

/// The first broken rule, in thread then statement order.
pub fn check(program: &Program, sp: &InterlockSpelling) -> Result<(), InterlockIssue> {
    for (t, thread) in program.threads.iter().enumerate() {
        let issue = |stmt: usize, message: String| InterlockIssue {
            thread: t,
            stmt,
            message,
        };
        let mut begin: Option<usize> = None;
        let mut end: Option<usize> = None;
        for (k, s) in thread.code.iter().enumerate() {
            let Stmt::Op(i) = s else { continue };
            let word = match i.kind {
                OpKind::BeginInterlock => Some(sp.begin),
                OpKind::EndInterlock => Some(sp.end),
                _ => None,
            };
            if thread.fragment.is_none() {
                if let Some(word) = word {
                    return Err(issue(
                        k,
                        format!(
                            "`{word}` is a fragment shader instruction, but thread {} is not a fragment invocation (give it {})",
                            thread.id, sp.placement
                        ),
                    ));
                }
                if i.scope == Some(Scope::FragmentInterlock) {
                    return Err(issue(
                        k,
                        format!(
                            "scope `{}` (FragmentInterlock) is \"accessible by fragment shader agents that overlap\", but thread {} is not a fragment invocation (give it {})",
                            sp.scope, thread.id, sp.placement
                        ),
                    ));
                }
                continue;
            }
            match i.kind {
                OpKind::BeginInterlock => {
                    if let Some(b) = begin {
                        return Err(issue(
                            k,
                            format!(
                                "second `{}` in thread {} (the first is at line {}): an invocation executes OpBeginInvocationInterlockEXT exactly once",
                                sp.begin,
                                thread.id,
                                thread.code[b].source().line
                            ),
                        ));
                    }
                    if let Some(e) = end {
                        return Err(issue(
                            k,
                            format!(
                                "`{}` after `{}` (line {}) in thread {}: the critical section begins before it ends",
                                sp.begin,
                                sp.end,
                                thread.code[e].source().line,
                                thread.id
                            ),
                        ));
                    }
                    begin = Some(k);
                }
                OpKind::EndInterlock => {
                    if let Some(e) = end {
                        return Err(issue(
                            k,
                            format!(
                                "second `{}` in thread {} (the first is at line {}): an invocation executes OpEndInvocationInterlockEXT exactly once",
                                sp.end,
                                thread.id,
                                thread.code[e].source().line
                            ),
                        ));
                    }
                    if begin.is_none() {
                        return Err(issue(
                            k,
                            format!(
                                "`{}` without an earlier `{}` in thread {}: the critical section must begin before it ends",
                                sp.end, sp.begin, thread.id
                            ),
                        ));
                    }
                    end = Some(k);
                }
                OpKind::ControlBarrier { .. } if begin.is_some() && end.is_none() => {
                    return Err(issue(
                        k,
                        format!(
                            "a control barrier inside the critical section of thread {} (`{}` at line {}): the invocations it waits for may be waiting to enter the critical section",
                            thread.id,
                            sp.begin,
                            thread.code[begin.unwrap_or(k)].source().line
                        ),
                    ));
                }
                _ => {}
            }
        }
        if let (Some(b), None) = (begin, end) {
            return Err(issue(
                b,
                format!(
                    "`{}` without a later `{}` in thread {}: an invocation executes OpEndInvocationInterlockEXT exactly once after the Begin",
                    sp.begin, sp.end, thread.id
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Fragment, Instruction, SourceSpan, Thread};

    const SP: InterlockSpelling = InterlockSpelling {
        begin: "beginil",
        end: "endil",
        scope: "fi",
        placement: "`prim N, pixel N`",
    };

    fn op(kind: OpKind, line: usize) -> Stmt {
        let source = SourceSpan {
            file: None,
            line,
            text: Default::default(),
        };
        Stmt::Op(match kind {
            OpKind::BeginInterlock => Instruction::interlock(true, source),
            OpKind::EndInterlock => Instruction::interlock(false, source),
            k => Instruction::new(k, source),
        })
    }

    fn program(fragment: bool, code: Vec<Stmt>) -> Program {
        Program {
            threads: vec![Thread {
                id: 0,
                subgroup: 0,
                workgroup: 0,
                queue_family: 0,
                device: 0,
                code,
                registers: Vec::new(),
                fragment: fragment.then_some(Fragment::at(0, 0, 1, 0)),
            }],
            ..Program::default()
        }
    }

    fn stmt_of(p: &Program) -> Option<(usize, String)> {
        check(p, &SP).err().map(|i| (i.stmt, i.message))
    }

    #[test]
    fn a_well_formed_critical_section_passes() {
        let p = program(
            true,
            vec![
                op(OpKind::BeginInterlock, 1),
                op(OpKind::Load, 2),
                op(OpKind::EndInterlock, 3),
                op(OpKind::control_barrier(0, Scope::Workgroup), 4),
            ],
        );
        assert_eq!(stmt_of(&p), None);
    }

    #[test]
    fn each_rule_names_its_statement() {
        let (b, e) = (OpKind::BeginInterlock, OpKind::EndInterlock);
        let cases: Vec<(bool, Vec<Stmt>, usize, &str)> = vec![
            (
                false,
                vec![op(b.clone(), 1)],
                0,
                "not a fragment invocation",
            ),
            (
                true,
                vec![op(b.clone(), 1), op(b.clone(), 2), op(e.clone(), 3)],
                1,
                "exactly once",
            ),
            (
                true,
                vec![op(e.clone(), 1), op(b.clone(), 2)],
                0,
                "without an earlier",
            ),
            (true, vec![op(b.clone(), 1)], 0, "without a later"),
            (
                true,
                vec![op(b.clone(), 1), op(e.clone(), 2), op(e.clone(), 3)],
                2,
                "exactly once",
            ),
            (
                true,
                vec![
                    op(b.clone(), 1),
                    op(OpKind::control_barrier(0, Scope::Workgroup), 2),
                    op(e.clone(), 3),
                ],
                1,
                "control barrier inside the critical section",
            ),
        ];
        for (fragment, code, stmt, text) in cases {
            let got = stmt_of(&program(fragment, code));
            let (s, m) = got.expect("an issue");
            assert_eq!(s, stmt, "{m}");
            assert!(m.contains(text), "{m}");
        }
    }

    #[test]
    fn the_fragment_interlock_scope_needs_a_fragment_invocation() {
        let mut load = Instruction::new(
            OpKind::Load,
            SourceSpan {
                file: None,
                line: 1,
                text: Default::default(),
            },
        );
        load.scope = Some(Scope::FragmentInterlock);
        let p = program(false, vec![Stmt::Op(load.clone())]);
        assert!(stmt_of(&p).is_some_and(|(_, m)| m.contains("FragmentInterlock")));
        assert_eq!(stmt_of(&program(true, vec![Stmt::Op(load)])), None);
    }
}

//! The rules a program's shader calls must follow before the engine can
//! relate its invocations ("Shader Call Related", "Shader Call Order" and
//! the ShaderCallKHR scope of the Vulkan appendix, docs/coverage.md). Both
//! Vulkan front ends run [`check`] and report its issue at the statement.

use super::{CallKind, OpKind, Program, Scope, ShaderStage, Stmt};

/// The first broken rule: the statement it is about and what is wrong.
#[derive(Debug)]
pub struct CallIssue {
    pub thread: usize,
    pub stmt: usize,
    pub message: String,
}

/// The stages that may execute each shader call instruction
/// (SPV_KHR_ray_tracing: `OpTraceRayKHR` and `OpExecuteCallableKHR` in
/// ray generation, closest hit and miss shaders, `OpExecuteCallableKHR`
/// also in callable shaders, `OpReportIntersectionKHR` in intersection
/// shaders).
fn caller_stages(call: CallKind) -> &'static [ShaderStage] {
    match call {
        CallKind::TraceRay => &[
            ShaderStage::RayGeneration,
            ShaderStage::ClosestHit,
            ShaderStage::Miss,
        ],
        CallKind::ExecuteCallable => &[
            ShaderStage::RayGeneration,
            ShaderStage::ClosestHit,
            ShaderStage::Miss,
            ShaderStage::Callable,
        ],
        CallKind::ReportIntersection => &[ShaderStage::Intersection],
    }
}

fn stage_list(stages: &[ShaderStage]) -> String {
    let t: Vec<&str> = stages.iter().map(|s| s.token()).collect();
    t.join(", ")
}

/// Checks the shader calls of `program` (callees are thread indices) and
/// the ShaderCallKHR scopes; `name` spells a thread for messages (`P1`,
/// `thread 1`).
pub fn check(program: &Program, name: &dyn Fn(usize) -> String) -> Result<(), CallIssue> {
    let n = program.threads.len();
    let stage = |t: usize| {
        program
            .stage(t)
            .map_or("no stage (a compute invocation)".to_string(), |s| {
                format!("stage {}", s.token())
            })
    };
    // Who creates each invocation, with where.
    let mut creator: Vec<Option<(usize, usize)>> = vec![None; n];
    for (t, thread) in program.threads.iter().enumerate() {
        for (k, s) in thread.code.iter().enumerate() {
            let Stmt::Op(i) = s else { continue };
            let issue = |message: String| CallIssue {
                thread: t,
                stmt: k,
                message,
            };
            if i.scope == Some(Scope::ShaderCall) && !program.is_ray_tracing(t) {
                return Err(issue(format!(
                    "ShaderCallKHR scope in {}, which has {}: the shader call instance domain is \"accessible by shader agents that are shader-call-related\" (place the thread in a ray tracing stage: rgen, rint, rahit, rchit, rmiss, rcall)",
                    name(t),
                    stage(t)
                )));
            }
            let OpKind::ShaderCall { callees, call } = &i.kind else {
                continue;
            };
            let call = *call;
            let word = call.token();
            if call == CallKind::ReportIntersection && callees.len() > 1 {
                return Err(issue(format!(
                    "`{word}` ({}) creates one any-hit invocation",
                    call.spirv()
                )));
            }
            for &callee in callees {
                if callee >= n {
                    return Err(issue(format!(
                        "`{word}` names {}, which is not declared",
                        name(callee)
                    )));
                }
                if callee == t {
                    return Err(issue(format!(
                        "`{word}` names {} itself: a shader call creates another invocation",
                        name(t)
                    )));
                }
                let callers = caller_stages(call);
                if !program.stage(t).is_some_and(|s| callers.contains(&s)) {
                    return Err(issue(format!(
                        "`{word}` ({}) is executed by {} shaders, but {} has {}",
                        call.spirv(),
                        stage_list(callers),
                        name(t),
                        stage(t)
                    )));
                }
                let callees = call.callee_stages();
                if !program.stage(callee).is_some_and(|s| callees.contains(&s)) {
                    return Err(issue(format!(
                        "`{word}` ({}) creates {} invocations, but {} has {}",
                        call.spirv(),
                        stage_list(callees),
                        name(callee),
                        stage(callee)
                    )));
                }
                if let Some((c, _)) = creator[callee] {
                    return Err(issue(format!(
                        "{} is created by a shader call of {} already: \"A is shader-call-related to B if A is created by an shader call instruction executed by B\" (one creating instruction per invocation)",
                        name(callee),
                        name(c)
                    )));
                }
                creator[callee] = Some((t, k));
                if !thread.is_straight_line() {
                    return Err(issue(format!(
                        "`{word}` in {}, which branches: vkmm creates {} once, so the shader call must run exactly once on every path (move the branches into the called invocation)",
                        name(t),
                        name(callee)
                    )));
                }
                let (a, b) = (&program.threads[t], &program.threads[callee]);
                if a.queue_family != b.queue_family || a.device != b.device {
                    return Err(issue(format!(
                        "{} is in another queue family than its caller {}: \"The shader call instance domain is not broader than the queue family instance domain.\"",
                        name(callee),
                        name(t)
                    )));
                }
            }
        }
    }
    // A cycle of calls: following creators from a thread comes back to it.
    for start in 0..n {
        let mut t = start;
        for _ in 0..n {
            match creator[t] {
                Some((c, _)) => t = c,
                None => break,
            }
            if t == start {
                let (c, k) = creator[start].expect("a cycle has creators");
                return Err(CallIssue {
                    thread: c,
                    stmt: k,
                    message: format!(
                        "the shader calls form a cycle through {}: an invocation cannot be created by one it creates",
                        name(start)
                    ),
                });
            }
        }
    }
    Ok(())
}

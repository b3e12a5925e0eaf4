//! Which threads share an instance of a scope: the scope tree of the
//! program (subgroup, workgroup, queue family, device), the fragment
//! invocations that overlap (one fragment interlock instance) and
//! rasterization order, and the shader-call-related invocations. Facts of
//! the program alone, read by the per-thread walk and by the base
//! relations.

use crate::ir::{Program, Scope};

/// Whether threads `x` and `y` are fragment invocations whose coverage
/// overlaps under the program's interlock granularity, in one subpass of
/// one queue family on one device. Reflexive on fragment invocations.
pub(crate) fn overlap(program: &Program, x: usize, y: usize) -> bool {
    let (tx, ty) = (&program.threads[x], &program.threads[y]);
    let (Some(fx), Some(fy)) = (&tx.fragment, &ty.fragment) else {
        return false;
    };
    tx.device == ty.device
        && tx.queue_family == ty.queue_family
        && fx.overlaps(fy, program.interlock.granularity)
}

/// Whether fragment invocation `x` comes before `y` in rasterization order:
/// they overlap and `x`'s primitive is earlier in primitive order.
pub(crate) fn rasterized_before(program: &Program, x: usize, y: usize) -> bool {
    overlap(program, x, y)
        && match (&program.threads[x].fragment, &program.threads[y].fragment) {
            (Some(fx), Some(fy)) => fx.primitive < fy.primitive,
            _ => false,
        }
}

/// Whether thread `x` is in the instance of scope `s` that contains thread `owner`.
pub(crate) fn thread_in_instance(program: &Program, x: usize, s: Scope, owner: usize) -> bool {
    same_instance(program, x, s, owner)
}

/// Whether threads `x` and `y` are in one instance of scope `s`. Every
/// instance below CrossDevice lies within one device ("shader - accessible
/// by shader agents for a particular device"; a queue family, workgroup or
/// subgroup instance is part of one device's shader domain), so two
/// invocations on different devices share only a CrossDevice instance.
pub(crate) fn same_instance(program: &Program, x: usize, s: Scope, y: usize) -> bool {
    let tx = &program.threads[x];
    let ty = &program.threads[y];
    // A host thread or a queue submission is in no subgroup, workgroup,
    // queue family or device scope instance: only its own Invocation
    // instance and the CrossDevice one ("Each host atomic operation
    // implicitly uses the CrossDevice scope"; docs/host.md).
    if program.host.agent(x) != crate::ir::host::Agent::Invocation
        || program.host.agent(y) != crate::ir::host::Agent::Invocation
    {
        return match s {
            Scope::Invocation => x == y,
            Scope::CrossDevice => true,
            _ => false,
        };
    }
    let device = tx.device == ty.device;
    match s {
        Scope::Invocation => x == y,
        Scope::Subgroup => device && tx.subgroup == ty.subgroup,
        Scope::Workgroup => device && tx.workgroup == ty.workgroup,
        Scope::QueueFamily => device && tx.queue_family == ty.queue_family,
        // "fragment interlock instance - accessible by fragment shader
        // agents that overlap": not a partition (overlap is not
        // transitive), so membership is decided per pair.
        Scope::FragmentInterlock => overlap(program, x, y),
        // "shader call instance - accessible by shader agents that are
        // shader-call-related": the instance is the invocation's class of
        // shader-call-related ray tracing invocations.
        Scope::ShaderCall => {
            let instances = program.shader_call_instances();
            instances[x].is_some() && instances[x] == instances[y]
        }
        Scope::Device => device,
        Scope::CrossDevice => true,
    }
}

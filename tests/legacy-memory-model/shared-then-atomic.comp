#version 450
// The false race of the literal reading: invocation 0 clears a shared
// counter, both invocations meet at barrier(), then both add to it.
// (Invocation 0 alone clears it: two plain clears by both invocations
// would race with each other under any reading.)
//
// glslang (GLSL450 memory model) compiles the clear to a plain OpStore to
// a Workgroup variable, barrier() to OpControlBarrier Workgroup Workgroup
// AcquireRelease|WorkgroupMemory, atomicAdd to a relaxed OpAtomicIAdd at
// Device scope.
//
// Coherent reading (default), race-free, the adds see {0, 1}: the store
// carries MakePointerAvailable at Workgroup scope (GLSL: "Shared variables
// are implicitly coherent"); it is program-ordered before invocation 0's
// release half of the barrier, which synchronizes-with invocation 1's
// acquire half (both WorkgroupMemory, Workgroup scope), so the store
// happens-before invocation 1's add; the add is atomic, so it has a
// visibility operation at its own scope (the appendix: "Atomic operations
// implicitly have availability/visibility operations"), and the store is
// location-ordered before it. Invocation 0's own add follows its store in
// program order. Each add reads the clear or the other add: one sees 0,
// the other 1.
//
// Strict reading: the store is private (no NonPrivatePointer), so the
// barrier's semantics do not order it for invocation 1 and the store
// races with invocation 1's add.
//
// @Config: 2, 1, 1
// @Output: forall ((%seen[0][0] == 0 and %seen[0][1] == 1) or (%seen[0][0] == 1 and %seen[0][1] == 0))
layout(local_size_x = 2) in;
layout(binding = 0) buffer Seen { uint v[2]; } seen;
shared uint counter;
void main() {
  if (gl_LocalInvocationID.x == 0) {
    counter = 0;
  }
  barrier();
  seen.v[gl_LocalInvocationID.x] = atomicAdd(counter, 1);
}

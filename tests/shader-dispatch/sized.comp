#version 450
// The size lives in a #define that index arithmetic also uses.
#define LG_N 8
#define N (1 << LG_N)
layout(local_size_x = N) in;
layout(std430, binding = 0) buffer Out { uint out_buf[]; };
void main() {
    // Each invocation writes its own cell, then invocation N - 1 reads
    // the first: a race on out_buf[0] with invocation 0 whenever N > 1.
    out_buf[gl_LocalInvocationID.x] = 1;
    if (gl_LocalInvocationID.x == N - 1) {
        out_buf[N] = out_buf[0];
    }
}

#version 450
// Control flow: switch with fallthrough and default, do-while, nested
// break/continue, ternary. One invocation; the final values are derived
// by hand in tests/shader_constructs.rs.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint r[4]; } o;

uint sw(uint k) {
    uint acc = 0u;
    switch (k) {
    case 0u:
        acc += 1u;      // falls through
    case 1u:
        acc += 10u;
        break;
    case 2u:
        acc += 100u;
        break;
    default:
        acc += 1000u;
    }
    return acc;
}

void main() {
    // 0 -> 11, 1 -> 10, 2 -> 100, 7 -> 1000: 1121.
    o.r[0] = sw(0u) + sw(1u) + sw(2u) + sw(7u);
    // do-while runs its body before the test: 5 + 4 + 3 + 2 + 1 = 15.
    uint n = 5u;
    uint s = 0u;
    do {
        s += n;
        n--;
    } while (n > 0u);
    o.r[1] = s;
    // Nested loops: skip j == 1, stop the inner loop at j == 3, stop the
    // outer loop at i == 2: (i, j) in {(0,0),(0,2),(1,0),(1,2)}: 4 pairs,
    // sum of i*10+j = 0+2+10+12 = 24.
    uint t = 0u;
    for (uint i = 0u; i < 4u; i++) {
        if (i == 2u) break;
        for (uint j = 0u; j < 4u; j++) {
            if (j == 1u) continue;
            if (j == 3u) break;
            t += i * 10u + j;
        }
    }
    o.r[2] = t;
    // Ternary: 24 > 20, so 7.
    o.r[3] = t > 20u ? 7u : 9u;
}

#version 450
// Integer bit operations and division: one invocation, values by hand in
// tests/shader_constructs.rs.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint u[8]; int i[6]; } o;
layout(set = 0, binding = 1) buffer In { uint x; int y; } inb;

void main() {
    uint x = inb.x;         // 0xF0 (given)
    int y = inb.y;          // -7 (given)
    o.u[0] = bitfieldExtract(x, 4, 4);          // 0xF
    o.u[1] = bitfieldInsert(x, 5u, 0, 3);       // 0xF5
    o.u[2] = uint(findLSB(x));                  // 4
    o.u[3] = uint(findMSB(x));                  // 7
    o.u[4] = uint(bitCount(x));                 // 4
    o.u[5] = (x << 2) | (x >> 6) ^ 1u;          // 0x3C0 | (3 ^ 1) = 0x3C2
    o.u[6] = x / 7u;                            // 34
    o.u[7] = x % 7u;                            // 2
    o.i[0] = y / 2;                             // -3 (truncates)
    o.i[1] = (-y) % 4;                          // 3 (GLSL leaves % of negatives undefined)
    o.i[2] = y >> 1;                            // -4 (arithmetic)
    o.i[3] = ~y;                                // 6
    o.i[4] = findMSB(y);                        // 2 (negative: highest 0 bit)
    o.i[5] = abs(y) * sign(y);                  // -7
}

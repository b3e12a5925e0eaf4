#version 450
layout(local_size_x = 512) in;
layout(std430, binding = 0) buffer B { uint x; } b;
void main() { b.x = 1; }

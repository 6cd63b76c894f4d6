#version 310 es
layout(local_size_x = 4) in;
layout(binding = 0) uniform atomic_uint a0;
layout(std430, binding = 1) buffer B { uint v[]; };
void main() {
    uint i = atomicCounterIncrement(a0);
    for (uint k = 0u; k < 4u; ++k)
        v[gl_LocalInvocationID.x * 4u + k] = i + k;
}

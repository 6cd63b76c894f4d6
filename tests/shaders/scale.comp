#version 430
layout(local_size_x = 8, local_size_y = 4) in;
layout(std430, binding = 0) buffer Data { float values[]; };
uniform float u_scale;
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 64u;
    float v = values[i] * u_scale;
    values[i] = v;
}

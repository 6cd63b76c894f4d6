#version 120
#extension GL_EXT_gpu_shader4 : require
flat varying unsigned int x;
varying out vec4 result;
void main() {
    unsigned int y = x ^ 0xffffffffu;
    result = vec4(float(y & 1u), 0.0, 0.0, 1.0);
}

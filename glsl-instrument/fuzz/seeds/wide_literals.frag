#version 150
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_ARB_gpu_shader_fp64 : require
out vec4 c;
uniform uvec2 bits;
void main() {
    int a = 0xe40fe410;
    int64_t b = 20l + int64_t(a);
    u64vec2 d = u64vec2(0ul, 3000000000ul);
    dvec3 e = dvec3(1.0lf);
    uint f = 0xffffffffu & bits.x;
    c = vec4(float(b), float(d.y), float(e.x), float(f));
}

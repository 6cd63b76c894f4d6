// wave.frag: the fragment shader of egl_files (gldbg's source-breakpoint
// and DAP tests). The app prepends "#version 330 core" and a #define, so
// line N of this file is line N + 2 of the shader the driver compiles.
// Every value is exact in float32 (binary fractions), so CPU references
// compare exactly.
uniform int u_mode;
uniform float u_gain;
out vec4 color;

float ripple(vec2 p, float k) {
    float d = dot(p, p) * k;
    float r = d - floor(d);
    return r;
}

void main() {
    vec2 p = gl_FragCoord.xy / 64.0 - vec2(0.5);
    float acc = 0.0;
    for (int i = 0; i < 3; ++i) {
        float k = float(i + 1) * u_gain;
        acc += ripple(p, k);
    }
    if (u_mode == MODE_HALF) {
        acc = acc * 0.5;
    }
    color = vec4(acc, p, 1.0);
}

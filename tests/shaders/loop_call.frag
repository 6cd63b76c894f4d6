#version 330 core
uniform float u_gain;
in vec2 v_uv;
out vec4 frag;

float shade(vec2 p) {
    float acc = 0.0;
    for (int i = 0; i < 4; ++i) {
        if (p.x > float(i)) {
            acc += p.y * u_gain;
        }
    }
    return acc;
}

void main() {
    vec2 p = v_uv * 4.0;
    float s = shade(p);
    frag = vec4(s, p, 1.0);
}

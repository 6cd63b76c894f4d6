#version 330 core
uniform float scale;
in vec2 uv;
out vec4 color;

float shade(float x, int n) {
    float acc = 0.0;
    for (int i = 0; i < n; i++) {
        if (x > 0.5) {
            acc += x * float(i);
        } else {
            acc -= 1.0;
        }
    }
    return acc;
}

void main() {
    float d = length(uv);
    float s = shade(d, 4) * scale;
    color = vec4(s, d, 0.0, 1.0);
}

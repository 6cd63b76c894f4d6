#version 300 es
precision mediump float;
uniform int mode;
in vec2 p;
layout(location = 0) out vec4 o;
struct S { float a; int b[2]; };
int f(inout S s) { s.a += 1.0; return s.b[0]; }
void main() {
    S s = S(0.0, int[2](1, 2));
    int n = 0;
    switch (mode) {
    case 0: n = f(s); break;
    case 1:
    default: n = 2;
    }
    while (n < 5) { n++; if (n == 4) break; }
    do { s.a *= 0.5; } while (s.a > 0.1);
    bool b = s.a > 0.0 ? true : false;
    o = b ? vec4(s.a, float(n), p) : vec4(0.0);
}

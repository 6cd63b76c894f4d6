#version 130
#define SQUARE(x) ((x) * (x))
#define STEP(v) v = SQUARE(v) + 1.0;
#ifdef GL_ES
#error not ES
#endif
#line 100
uniform float u;
void main() {
    float v = u;
    STEP(v)
    STEP(v)
    gl_FragColor = vec4(v, __LINE__, 0.0, 1.0);
}

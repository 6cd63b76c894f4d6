#version 100
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v;
uniform sampler2D t;
void main() {
    vec4 c = texture2D(t, v);
    if (c.a < 0.5) discard;
    gl_FragData[0] = c;
}

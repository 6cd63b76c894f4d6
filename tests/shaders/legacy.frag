#version 110
uniform float u_k;
varying vec2 v_uv;

void main() {
    float w = v_uv.x * u_k;
    if (w > 0.5)
        discard;
    gl_FragColor = vec4(w, v_uv, 1.0);
}

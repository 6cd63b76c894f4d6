// wave.vert: the vertex shader of egl_files. The app prepends
// "#version 330 core" and "#line 1", so the driver's line numbers are
// this file's.
in vec2 a_pos;
uniform float u_scale;

void main() {
    vec2 q = a_pos * u_scale;
    gl_Position = vec4(q, 0.0, 1.0);
}

#version 330 core
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in vec2 v_uv[];
out vec2 g_uv;
void main() {
    for (int k = 0; k < 3; ++k) {
        g_uv = v_uv[k] * 2.0;
        gl_Position = gl_in[k].gl_Position;
        EmitVertex();
    }
    EndPrimitive();
}

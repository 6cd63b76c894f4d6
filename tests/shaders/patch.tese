#version 400
layout(triangles, equal_spacing, ccw) in;
out float t_w;
void main() {
    vec3 b = gl_TessCoord;
    t_w = b.x * 0.5 + b.y;
    gl_Position = gl_in[0].gl_Position * b.x + gl_in[1].gl_Position * b.y + gl_in[2].gl_Position * b.z;
}

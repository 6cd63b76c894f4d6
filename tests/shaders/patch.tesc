#version 400
layout(vertices = 3) out;
uniform float u_level;
void main() {
    float level = u_level * 2.0;
    gl_TessLevelInner[0] = level;
    gl_TessLevelOuter[0] = level;
    gl_TessLevelOuter[1] = level;
    gl_TessLevelOuter[2] = level;
    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
}

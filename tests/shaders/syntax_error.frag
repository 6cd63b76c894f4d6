#version 330 core
out vec4 frag;
void main() {
    float x = 1.0 +;
    frag = vec4(x);
}

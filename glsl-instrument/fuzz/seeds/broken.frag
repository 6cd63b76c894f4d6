#version 400
subroutine vec4 S(vec4 c);
subroutine(S) vec4 f(vec4 c) { return c; }
void main() { int x = ; }

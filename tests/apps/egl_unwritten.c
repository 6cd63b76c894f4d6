/* egl_unwritten: outputs before their first write, early returns and
 * discards, for gldbg's values at a step and at the end of main.
 *
 * EGL surfaceless, an OpenGL 3.3 compatibility context, GL from libOpenGL.
 * A 64x64 RGBA32F framebuffer of its own, cleared to 0; two draws of a
 * full-screen quad (glDrawArrays, GL_TRIANGLE_STRIP, 4 vertices):
 *
 *   draw 1: UNWRITTEN_FS (GLSL 1.20, gl_FragColor), u_scale = 0.25. With
 *           p = gl_FragCoord.xy and k = p.x * u_scale:
 *           p.x < 16: gl_FragColor = (k, 1, 0, 1), then `return`;
 *           p.x >= 48: discard;
 *           else (k, p.y, 0.5, 1) where p.y < 32, and only .ba = (0.5, 1)
 *           written elsewhere (.rg stay undefined); the local `late`
 *           (line 15, no initializer) is assigned k where p.y < 8 only.
 *   draw 2: INOUT_FS, piglit's fs-inout-index-two-level: an indexed array
 *           element as an `inout` argument, `func(i, w, v[w[i]])`; green
 *           (0, 1, 0, 1) where GLSL's rules hold (the lvalue evaluated once,
 *           at the call), else red with a code.
 *   draw 3: CALLS_FS (GLSL 1.30), u_scale = 0.25, k = p.x * u_scale: writes
 *           a written probe must follow: a nested `b = a = 2k`, a matrix by
 *           column (m = ((k, 1), (2, 2k))), the output's .rg as `out`
 *           arguments of `split` (.r = floor(k) always, .g = fract(k) only
 *           where k > 8, i.e. p.x >= 32: elsewhere `out` leaves it
 *           undefined), `modf`'s `out` (ip = floor(k)), .b written inside
 *           `paint` (ip + fract(k) = k), lo2 = k / 2 written through an
 *           `out` argument of a call in a declaration (line 22), and an
 *           element of v2 through one whose index is not a constant, which
 *           gldbg cannot follow. Line 23 writes .a = 2k + 2k + 2k.
 *
 * Prints `egl_unwritten: left (R, G, B, A) inout (R, G, B, A)`: pixel
 * (5, 5) after draw 1 and pixel (5, 5) after draw 2.
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_unwritten"
#include "egl_app.h"

#define W 64
#define H 64

static const char *QUAD_VS =
    "#version 120\n"
    "attribute vec2 a_pos;\n"
    "void main() {\n"
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"
    "}\n";

static const char *UNWRITTEN_FS =
    "#version 120\n"
    "uniform float u_scale;\n"
    "void main() {\n"
    "    vec2 p = gl_FragCoord.xy;\n"
    "    float k = p.x * u_scale;\n"
    "    if (p.x < 16.0) {\n"
    "        gl_FragColor = vec4(k, 1.0, 0.0, 1.0);\n"
    "        return;\n"
    "    }\n"
    "    if (p.x >= 48.0)\n"
    "        discard;\n"
    "    if (p.y < 32.0)\n"
    "        gl_FragColor.rg = vec2(k, p.y);\n"
    "    gl_FragColor.b = 0.5;\n"
    "    float late;\n"
    "    if (p.y < 8.0) late = k;\n"
    "    gl_FragColor.a = 1.0;\n"
    "}\n";

static const char *INOUT_FS =
    "#version 120\n"
    "uniform int u = 1;\n"
    "\n"
    "void func(inout int i, inout int w[4], inout int x)\n"
    "{\n"
    "  i = 0;\n"
    "  for (int j = 0; j < 4; ++j)\n"
    "    w[j] += j;\n"
    "  x = 1;\n"
    "}\n"
    "\n"
    "void main()\n"
    "{\n"
    "  int v[4] = int[](0, 0, 0, 0);\n"
    "  int w[4] = int[](0, 1, 0, 0);\n"
    "  int v_expected[4] = int[](0, 1, 0, 0);\n"
    "  int w_expected[4] = int[](0, 2, 2, 3);\n"
    "  int i = u;\n"
    "\n"
    "  func(i, w, v[w[i]]);\n"
    "\n"
    "  if (i != 0) {\n"
    "    gl_FragColor = vec4(1.0, 0.0, i * 0.1, 0.0);\n"
    "    return;\n"
    "  }\n"
    "\n"
    "  for (i = 0; i < 4; ++i) {\n"
    "    if (v[i] != v_expected[i]) {\n"
    "      gl_FragColor = vec4(1.0, 0.1 * (1 + i), v[i] * 0.1, 0.0);\n"
    "      return;\n"
    "    }\n"
    "    if (w[i] != w_expected[i]) {\n"
    "      gl_FragColor = vec4(1.0, 0.1 * (5 + i), w[i] * 0.1, 0.0);\n"
    "      return;\n"
    "    }\n"
    "  }\n"
    "\n"
    "  gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0);\n"
    "}\n";

static const char *CALLS_FS =
    "#version 130\n"
    "uniform float u_scale;\n"
    "void split(float v, out float hi, out float lo) {\n"
    "    hi = floor(v);\n"
    "    if (v > 8.0) lo = fract(v);\n"
    "}\n"
    "void paint(float v) { gl_FragColor.b = v; }\n"
    "float half_of(float v, out float r) { r = v * 0.5; return v; }\n"
    "void main() {\n"
    "    float k = gl_FragCoord.x * u_scale;\n"
    "    float a;\n"
    "    float b;\n"
    "    b = a = k * 2.0;\n"
    "    mat2 m;\n"
    "    m[0] = vec2(k, 1.0);\n"
    "    m[1] = vec2(2.0, b);\n"
    "    split(k, gl_FragColor.r, gl_FragColor.g);\n"
    "    float ip;\n"
    "    float fr = modf(k, ip);\n"
    "    paint(ip + fr);\n"
    "    float lo2, v2[2];\n"
    "    float hi2 = half_of(k, lo2) + half_of(k, v2[int(k) & 1]);\n"
    "    gl_FragColor.a = m[1].y + a + hi2;\n"
    "}\n";

static GLuint program(const char *fs) {
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, QUAD_VS));
    glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
    glBindAttribLocation(p, 0, "a_pos");
    link_program(p);
    return p;
}

int main(void) {
    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);
    egl_app_float_target(W, H);
    static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);

    float left[4], inout[4];
    GLuint unwritten = program(UNWRITTEN_FS);
    glUseProgram(unwritten);
    glUniform1f(glGetUniformLocation(unwritten, "u_scale"), 0.25f);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glReadPixels(5, 5, 1, 1, GL_RGBA, GL_FLOAT, left);

    GLuint two_level = program(INOUT_FS);
    glUseProgram(two_level);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glReadPixels(5, 5, 1, 1, GL_RGBA, GL_FLOAT, inout);

    GLuint calls = program(CALLS_FS);
    glUseProgram(calls);
    glUniform1f(glGetUniformLocation(calls, "u_scale"), 0.25f);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glFinish();
    if (glGetError() != GL_NO_ERROR) die("GL error");
    printf(APP_NAME ": left (%g, %g, %g, %g) inout (%g, %g, %g, %g)\n", left[0], left[1],
           left[2], left[3], inout[0], inout[1], inout[2], inout[3]);
    egl_app_end(app);
    return 0;
}

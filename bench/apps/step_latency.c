/* step_latency: the draws gldbg-bench's (d) debugs.
 *
 * EGL surfaceless, a GL 3.3 core context (GL from libOpenGL), an RGBA8
 * framebuffer object of WxH (default 1920x1080). Draw 1: a full-screen quad
 * (6 vertices: the fragment stage dominates). Draw 2: a grid of small
 * triangles covering the screen, at least N vertices (default 1,000,000:
 * the vertex stage dominates). Draws 3 and 4 repeat them, timed. Both use SL_VS / SL_FS, whose loops the bench steps
 * into. Prints `step_latency: WxH, N vertices, draw ms D1 D2` (each draw's
 * GPU time, from GL_TIMESTAMP counters around it) and exits 0.
 *
 *   step_latency [--size WxH] [--vertices N]
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

/* Line numbers matter: the bench breaks on line 8 of each. */
static const char *SL_VS =
    "#version 330 core\n"                                       /* 1 */
    "layout(location = 0) in vec2 a_pos;\n"                     /* 2 */
    "out vec2 v_uv;\n"                                          /* 3 */
    "void main() {\n"                                           /* 4 */
    "    vec2 p = a_pos;\n"                                     /* 5 */
    "    float wobble = 0.0;\n"                                 /* 6 */
    "    for (int i = 0; i < 4; ++i) {\n"                       /* 7 */
    "        wobble += sin(p.x * float(i + 1)) * 0.001;\n"      /* 8 */
    "    }\n"                                                   /* 9 */
    "    v_uv = p * 0.5 + 0.5 + wobble;\n"                      /* 10 */
    "    gl_Position = vec4(p, 0.0, 1.0);\n"                    /* 11 */
    "}\n";

static const char *SL_FS =
    "#version 330 core\n"                                       /* 1 */
    "in vec2 v_uv;\n"                                           /* 2 */
    "out vec4 color;\n"                                         /* 3 */
    "void main() {\n"                                           /* 4 */
    "    float acc = 0.0;\n"                                    /* 5 */
    "    vec2 uv = v_uv;\n"                                     /* 6 */
    "    for (int i = 0; i < 8; ++i) {\n"                       /* 7 */
    "        acc += uv.x * float(i) - uv.y;\n"                  /* 8 */
    "    }\n"                                                   /* 9 */
    "    color = vec4(fract(acc), uv, 1.0);\n"                  /* 10 */
    "}\n";

static void die(const char *what) {
    fprintf(stderr, "step_latency: %s\n", what);
    exit(1);
}

static GLuint shader(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) die("a shader did not compile");
    return s;
}

int main(int argc, char **argv) {
    int w = 1920, h = 1080;
    long n = 1000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2) i++;
        else if (!strcmp(argv[i], "--vertices") && i + 1 < argc) n = atol(argv[++i]);
        else die("usage: step_latency [--size WxH] [--vertices N]");
    }
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) die("no EGL display");
    eglBindAPI(EGL_OPENGL_API);
    EGLint attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attr);
    if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("no context");

    GLuint prog = glCreateProgram();
    glAttachShader(prog, shader(GL_VERTEX_SHADER, SL_VS));
    glAttachShader(prog, shader(GL_FRAGMENT_SHADER, SL_FS));
    glLinkProgram(prog);
    glUseProgram(prog);

    GLuint rb, fbo;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    glViewport(0, 0, w, h);

    /* Vertex data: the quad, then the grid (cells of two triangles). */
    long side = 1;
    while (side * side * 6 < n) side++;
    long grid = side * side * 6;
    float *v = malloc(sizeof(float) * 2 * (6 + grid));
    const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    memcpy(v, quad, sizeof quad);
    float *g = v + 12;
    for (long y = 0; y < side; y++)
        for (long x = 0; x < side; x++) {
            float x0 = -1 + 2.0f * x / side, x1 = -1 + 2.0f * (x + 1) / side;
            float y0 = -1 + 2.0f * y / side, y1 = -1 + 2.0f * (y + 1) / side;
            float c[12] = {x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1};
            memcpy(g, c, sizeof c);
            g += 12;
        }
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 2 * (6 + grid), v, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);

    glDrawArrays(GL_TRIANGLES, 0, 6);
    glDrawArrays(GL_TRIANGLES, 6, (GLsizei)grid);
    /* The same draws again, timed (timestamps around each; the first ones
     * included the driver's shader compile): the bench's cold-step budget
     * counts two draw times. */
    GLuint stamps[3];
    glGenQueries(3, stamps);
    glFinish();
    glQueryCounter(stamps[0], GL_TIMESTAMP);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glQueryCounter(stamps[1], GL_TIMESTAMP);
    glDrawArrays(GL_TRIANGLES, 6, (GLsizei)grid);
    glQueryCounter(stamps[2], GL_TIMESTAMP);
    glFinish();
    GLuint64 t[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) glGetQueryObjectui64v(stamps[i], GL_QUERY_RESULT, &t[i]);
    GLuint64 ns[2] = {t[1] - t[0], t[2] - t[1]};
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    printf("step_latency: %dx%d, %ld vertices, draw ms %.3f %.3f\n", w, h, grid, ns[0] / 1e6,
           ns[1] / 1e6);
    return 0;
}

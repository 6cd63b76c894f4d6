/* egl_big: a large framebuffer and a shader whose cost a debugger's probe
 * chooses, for gldbg's lifecycle tests (tests/tests/lifecycle.rs: memory
 * at 1080p, an app dying during a slow probe, cancelled requests).
 *
 * EGL surfaceless, an OpenGL 3.3 core context, GL from libOpenGL. Draws
 * FRAMES frames of a full-screen quad (glDrawArrays, GL_TRIANGLE_STRIP,
 * 4 vertices) into a W x H RGBA32F framebuffer of its own with BIG_FS:
 * frag = (p.x / W, p.y / H, work(u_work), 1) with p = gl_FragCoord.xy and
 * u_work = 1 (one loop iteration). A probe of `work(N)` runs N iterations
 * per fragment: a test picks how long it takes.
 *
 *   egl_big [--size WxH] [--frames N]     (default 1920x1080, 2 frames)
 *
 * Prints `egl_big: WxH frames N (R, G, B, A)`: pixel (1, 1) of the last frame.
 * Exits 3 if, at the end, its framebuffer or renderbuffer binding changed,
 * a GL error is pending or that pixel is not (1.5/W, 1.5/H, 0.0015, 1).
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_big"
#include "egl_app.h"

#include <string.h>

static const char *BIG_VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() {\n"
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"
    "}\n";

static const char *BIG_FS =
    "#version 330 core\n"                                      /* 1 */
    "uniform float u_work;\n"                                  /* 2 */
    "uniform vec2 u_size;\n"                                   /* 3 */
    "out vec4 frag;\n"                                         /* 4 */
    "float work(float n) {\n"                                  /* 5 */
    "    float acc = 0.0;\n"                                   /* 6 */
    "    for (float i = 0.0; i < n; i += 1.0)\n"               /* 7 */
    "        acc = fract(acc * 1.37 + gl_FragCoord.x * 0.001);\n" /* 8 */
    "    return acc;\n"                                        /* 9 */
    "}\n"                                                      /* 10 */
    "void main() {\n"                                          /* 11 */
    "    vec2 p = gl_FragCoord.xy;\n"                          /* 12 */
    "    float w = work(u_work);\n"                            /* 13 */
    "    frag = vec4(p.x / u_size.x, p.y / u_size.y, w, 1.0);\n" /* 14 */
    "}\n";                                                     /* 15 */

int main(int argc, char **argv) {
    int w = 1920, h = 1080, frames = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || w < 1 || h < 1) die("bad --size");
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else {
            die("usage: egl_big [--size WxH] [--frames N]");
        }
    }
    (void)fnv;
    struct egl_app a = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    egl_app_float_target(w, h);
    GLint fbo = 0, rb = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo);
    glGetIntegerv(GL_RENDERBUFFER_BINDING, &rb);

    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, BIG_VS));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, BIG_FS));
    link_program(prog);

    static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);

    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_work"), 1.0f);
    glUniform2f(glGetUniformLocation(prog, "u_size"), (float)w, (float)h);
    for (int f = 0; f < frames; f++) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        glFinish();
    }
    float px[4];
    glReadPixels(1, 1, 1, 1, GL_RGBA, GL_FLOAT, px);
    printf(APP_NAME ": %dx%d frames %d (%g, %g, %g, %g)\n", w, h, frames, px[0], px[1], px[2],
           px[3]);
    /* A debugger must leave no trace: our bindings, no GL error, our pixel
     * (work(1) = fract(1.5 * 0.001), as the GPU computes it in float). */
    GLint fbo_now = -1, rb_now = -1;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo_now);
    glGetIntegerv(GL_RENDERBUFFER_BINDING, &rb_now);
    GLenum err = glGetError();
    float want[4] = {1.5f / (float)w, 1.5f / (float)h, 1.5f * 0.001f, 1.0f};
    int pixel_ok = 1;
    for (int i = 0; i < 4; i++)
        if (px[i] - want[i] > 1e-6f || want[i] - px[i] > 1e-6f) pixel_ok = 0;
    if (fbo_now != fbo || rb_now != rb || err != GL_NO_ERROR || !pixel_ok) {
        fprintf(stderr, APP_NAME ": changed: framebuffer %d (was %d), renderbuffer %d (was %d), "
                "error 0x%x, pixel ok %d\n", fbo_now, fbo, rb_now, rb, err, pixel_ok);
        return 3;
    }
    egl_app_end(a);
    return 0;
}

/* egl_files: an app that loads its shaders from files, as most apps do
 * (gldbg's source breakpoints `break FILE:LINE` and the DAP tests).
 *
 *   egl_files [--frames N] [--crash] DIR
 *
 * Reads DIR/wave.vert and DIR/wave.frag and passes each to glShaderSource
 * after a prefix of its own: "#version 330 core\n#line 1\n" for the vertex
 * shader (the driver's lines are the file's), "#version 330 core\n#define
 * MODE_HALF 1\n" for the fragment shader (file line N is shader line N + 2).
 *
 * EGL with a 64x64 pbuffer surface, an OpenGL 3.3 core context, GL from
 * libOpenGL; it draws into a 64x64 RGBA32F framebuffer of its own. Each
 * of N frames (default 2): a clear, draw 1 (u_mode = 0) and draw 2
 * (u_mode = 1) of a full-screen quad (triangle strip, 4 vertices, u_scale
 * = 1, u_gain = 0.625), then eglSwapBuffers. Draw 2 runs over draw 1
 * (no blending): the frame holds draw 2's values. At the end it prints
 *
 *   egl_files: frames N, hash H
 *
 * with H the FNV-1a hash of the framebuffer's floats (bit-exact: a
 * debugger that changes what the app computes changes H).
 *
 * --crash: after the first frame's draws, glBufferSubData from an invalid
 * pointer: the app dies of SIGSEGV inside that GL call.
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_files"
#include "egl_app.h"

#include <string.h>

#define SIZE 64

/* The whole file at `dir`/`name`, NUL-terminated, after `prefix`. */
static char *read_shader(const char *dir, const char *name, const char *prefix) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return egl_app_read_file(path, prefix);
}

int main(int argc, char **argv) {
    int frames = 2, crash = 0;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--crash")) {
            crash = 1;
        } else {
            dir = argv[i];
        }
    }
    if (!dir || frames < 1) die("usage: egl_files [--frames N] [--crash] DIR");

    struct egl_app a = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig cfg;
    EGLint nc = 0;
    if (!eglChooseConfig(a.dpy, cfg_attrs, &cfg, 1, &nc) || nc < 1) die("no EGL config");
    const EGLint pb_attrs[] = {EGL_WIDTH, SIZE, EGL_HEIGHT, SIZE, EGL_NONE};
    EGLSurface surface = eglCreatePbufferSurface(a.dpy, cfg, pb_attrs);
    if (surface == EGL_NO_SURFACE) die("no pbuffer surface");
    if (!eglMakeCurrent(a.dpy, surface, surface, a.ctx)) die("eglMakeCurrent failed");

    char *vs_src = read_shader(dir, "wave.vert", "#version 330 core\n#line 1\n");
    char *fs_src = read_shader(dir, "wave.frag", "#version 330 core\n#define MODE_HALF 1\n");
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, vs_src));
    glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs_src));
    glBindAttribLocation(p, 0, "a_pos");
    link_program(p);
    free(vs_src);
    free(fs_src);

    static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
    glEnableVertexAttribArray(0);

    egl_app_float_target(SIZE, SIZE);
    glUseProgram(p);
    glUniform1f(glGetUniformLocation(p, "u_scale"), 1.0f);
    glUniform1f(glGetUniformLocation(p, "u_gain"), 0.625f);
    GLint mode = glGetUniformLocation(p, "u_mode");

    for (int f = 0; f < frames; f++) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        for (int m = 0; m < 2; m++) {
            glUniform1i(mode, m);
            glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        }
        if (crash) {
            /* An invalid client pointer: the driver's copy faults. */
            glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof quad, (const void *)(uintptr_t)16);
        }
        eglSwapBuffers(a.dpy, surface);
    }

    static float pixels[SIZE * SIZE * 4];
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, pixels);
    if (glGetError() != GL_NO_ERROR) die("GL error");
    printf(APP_NAME ": frames %d, hash %016llx\n", frames,
           (unsigned long long)fnv(FNV_OFFSET, pixels, sizeof pixels));
    eglMakeCurrent(a.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroySurface(a.dpy, surface);
    egl_app_end(a);
    return 0;
}

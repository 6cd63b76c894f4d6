/* egl_app.h: what the headless EGL test apps share (egl_mrt, egl_draws,
 * egl_uniforms): an EGL surfaceless desktop GL context of a given version
 * and profile, fatal errors, shader compilation, an FNV-1a hash, an RGBA32F
 * framebuffer to draw into.
 *
 * Define APP_NAME (a string) before including it: messages start with it.
 */
#ifndef EGL_APP_H
#define EGL_APP_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

#define FNV_OFFSET 0xcbf29ce484222325ull

static void die(const char *what) {
    fprintf(stderr, APP_NAME ": %s\n", what);
    exit(1);
}

/* FNV-1a 64 of `n` bytes, continuing from `h` (start with FNV_OFFSET). */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* A compiled shader; the driver's log and exit 1 if it does not compile. */
static GLuint compile(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, APP_NAME ": shader: %s\n", log);
        exit(1);
    }
    return s;
}

/* Links `p` (its shaders attached); the driver's log and exit 1 if it
 * does not link. */
static void link_program(GLuint p) {
    glLinkProgram(p);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        fprintf(stderr, APP_NAME ": link: %s\n", log);
        exit(1);
    }
}

/* `prefix` then the whole file at `path`, NUL-terminated (malloc'd): a
 * shader an app reads from a file; exit 1 if it cannot be read. */
static inline char *egl_app_read_file(const char *path, const char *prefix) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, APP_NAME ": cannot open %s\n", path);
        exit(1);
    }
    size_t used = 0, cap = 4096;
    while (prefix[used]) used++;
    cap += used;
    char *text = malloc(cap);
    if (!text) die("out of memory");
    for (size_t i = 0; i < used; i++) text[i] = prefix[i];
    size_t n;
    while ((n = fread(text + used, 1, cap - used - 1, f)) > 0) {
        used += n;
        if (cap - used < 2) {
            cap *= 2;
            text = realloc(text, cap);
            if (!text) die("out of memory");
        }
    }
    fclose(f);
    text[used] = 0;
    return text;
}

struct egl_app {
    EGLDisplay dpy;
    EGLContext ctx;
};

/* A current desktop GL `major`.`minor` context of `profile`
 * (EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT or ..._COMPATIBILITY_PROFILE_BIT),
 * surfaceless: the apps render into framebuffer objects of their own. */
static struct egl_app egl_app_start(EGLint major, EGLint minor, EGLint profile) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    struct egl_app a;
    a.dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(a.dpy, NULL, NULL)) die("eglInitialize failed");
    eglBindAPI(EGL_OPENGL_API);
    const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglChooseConfig(a.dpy, cfg_attrs, &cfg, 1, &n) || n < 1) die("no EGL config");
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION,
                                minor, EGL_CONTEXT_OPENGL_PROFILE_MASK, profile, EGL_NONE};
    a.ctx = eglCreateContext(a.dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
    if (a.ctx == EGL_NO_CONTEXT) die("no GL context of the version and profile asked for");
    if (!eglMakeCurrent(a.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, a.ctx))
        die("eglMakeCurrent failed");
    return a;
}

/* Draw into a w x h RGBA32F renderbuffer of a framebuffer of our own
 * (bound, viewport set): exact float results to read back. */
static void egl_app_float_target(GLsizei w, GLsizei h) {
    GLuint fbo, rb;
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA32F, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        die("framebuffer incomplete");
    glViewport(0, 0, w, h);
}

static void egl_app_end(struct egl_app a) {
    eglMakeCurrent(a.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(a.dpy, a.ctx);
    eglTerminate(a.dpy);
}

#endif

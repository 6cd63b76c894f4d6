/* survivor: a long-running headless GL app for survival.rs.
 *
 * EGL surfaceless (EGL_PLATFORM_SURFACELESS_MESA, EGL_NO_CONFIG_KHR), GL 3.3
 * core, every GL function through eglGetProcAddress (quad_common.h). Draws
 * N frames of the quad into a 64x48 FBO, u_k = 0.01 + 0.0001 * frame,
 * prints `tick F` (flushed) after every K-th frame so a test can see it run,
 * and at the end `checksum H` (FNV-1a of the last frame's pixels); exit 0.
 *
 *   survivor [--frames N] [--tick K]
 */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <string.h>

#include "quad_common.h"

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);

static void *get_proc(const char *name) { return (void *)eglGetProcAddress(name); }

int main(int argc, char **argv) {
    int frames = 100, tick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tick") && i + 1 < argc) tick = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: survivor [--frames N] [--tick K]\n");
            return 1;
        }
    }
    PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay = (PFNEGLGETPLATFORMDISPLAYEXTPROC)get_proc("eglGetPlatformDisplayEXT");
    PFNEGLINITIALIZEPROC initialize = (PFNEGLINITIALIZEPROC)get_proc("eglInitialize");
    PFNEGLBINDAPIPROC bindApi = (PFNEGLBINDAPIPROC)get_proc("eglBindAPI");
    PFNEGLCREATECONTEXTPROC createContext = (PFNEGLCREATECONTEXTPROC)get_proc("eglCreateContext");
    PFNEGLMAKECURRENTPROC makeCurrent = (PFNEGLMAKECURRENTPROC)get_proc("eglMakeCurrent");
    EGLDisplay dpy = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!initialize(dpy, NULL, NULL)) return 2;
    bindApi(EGL_OPENGL_API);
    EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
    EGLContext ctx = createContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attr);
    if (!ctx || !makeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) return 2;

    struct quad_gl gl;
    quad_load(&gl, get_proc);
    quad_fbo(&gl, 64, 48);
    GLint loc = quad_setup(&gl, QUAD_FS);
    for (int f = 0; f < frames; f++) {
        quad_frame(&gl, loc, 0.01f + 0.0001f * (float)f, 64, 48);
        if (tick > 0 && (f + 1) % tick == 0) {
            gl.Finish();
            printf("tick %d\n", f + 1);
            fflush(stdout);
        }
    }
    printf("checksum %016lx\n", quad_checksum(&gl, 64, 48));
    return 0;
}

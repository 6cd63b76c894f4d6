/* threads2: two threads, each driving its own GL context (real_apps.rs).
 *
 * One EGL surfaceless display; each thread binds the GL API, creates its
 * own GL 3.3 core context, loads the GL functions through eglGetProcAddress
 * (quad_common.h), draws `--frames N` frames of the quad into its own 64x48
 * FBO with its own fragment shader (thread 0: QUAD_FS with u_k = 0.01,
 * thread 1: THREAD1_FS, which tests tell apart by `thread1_gain`, with
 * u_k = 0.02) and reports a checksum of its last frame. Output, in thread
 * order: `thread0 H0` and `thread1 H1`; exit 0.
 */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <pthread.h>
#include <string.h>

#include "quad_common.h"

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);

static void *get_proc(const char *name) { return (void *)eglGetProcAddress(name); }

static const char *const THREAD1_FS =
    "#version 330 core\n"
    "uniform float u_k;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    float thread1_gain = 2.0 * u_k;\n"
    "    frag = vec4(fract(gl_FragCoord.x * thread1_gain), 0.5, 0.25, 1.0);\n"
    "}\n";

static EGLDisplay dpy;
static int frames = 1;

struct job {
    const char *fs;
    float k;
    unsigned long checksum;
};

static void *run(void *arg) {
    struct job *job = arg;
    PFNEGLBINDAPIPROC bindApi = (PFNEGLBINDAPIPROC)get_proc("eglBindAPI");
    PFNEGLCREATECONTEXTPROC createContext = (PFNEGLCREATECONTEXTPROC)get_proc("eglCreateContext");
    PFNEGLMAKECURRENTPROC makeCurrent = (PFNEGLMAKECURRENTPROC)get_proc("eglMakeCurrent");
    bindApi(EGL_OPENGL_API); /* the bound API is per thread */
    EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
    EGLContext ctx = createContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attr);
    if (!ctx || !makeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "threads2: no context\n");
        exit(2);
    }
    struct quad_gl gl;
    quad_load(&gl, get_proc);
    quad_fbo(&gl, 64, 48);
    GLint loc = quad_setup(&gl, job->fs);
    for (int f = 0; f < frames; f++) quad_frame(&gl, loc, job->k, 64, 48);
    job->checksum = quad_checksum(&gl, 64, 48);
    makeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: threads2 [--frames N]\n");
            return 1;
        }
    }
    PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay = (PFNEGLGETPLATFORMDISPLAYEXTPROC)get_proc("eglGetPlatformDisplayEXT");
    PFNEGLINITIALIZEPROC initialize = (PFNEGLINITIALIZEPROC)get_proc("eglInitialize");
    dpy = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!initialize(dpy, NULL, NULL)) return 2;
    struct job jobs[2] = { { QUAD_FS, 0.01f, 0 }, { THREAD1_FS, 0.02f, 0 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, run, &jobs[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("thread0 %016lx\nthread1 %016lx\n", jobs[0].checksum, jobs[1].checksum);
    return 0;
}

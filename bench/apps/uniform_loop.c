/* uniform_loop: the cost of one cheap GL call, timed inside the app.
 *
 * EGL surfaceless (EGL_PLATFORM_SURFACELESS_MESA, EGL_NO_CONFIG_KHR), a GL
 * 3.3 core context, glUniform1f loaded through eglGetProcAddress (as
 * glad/GLEW apps do: the preload's wrapper is what the app calls). After a
 * warm-up of N/10 calls, clock_gettime(CLOCK_MONOTONIC) around a tight loop
 * of N glUniform1f calls; prints `renderer NAME` and `calls N ns_per_call X`
 * and exits 0.
 *
 *   uniform_loop [N]   (default 2000000)
 */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);
#define LOAD(type, name) type name = (type)eglGetProcAddress(#name)

static const char *const VS = "#version 330 core\nvoid main() { gl_Position = vec4(0.0); }\n";
static const char *const FS = "#version 330 core\nuniform float u;\nout vec4 o;\nvoid main() { o = vec4(u); }\n";

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    LOAD(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT);
    LOAD(PFNEGLINITIALIZEPROC, eglInitialize);
    LOAD(PFNEGLBINDAPIPROC, eglBindAPI);
    LOAD(PFNEGLCREATECONTEXTPROC, eglCreateContext);
    LOAD(PFNEGLMAKECURRENTPROC, eglMakeCurrent);
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) { fprintf(stderr, "uniform_loop: no EGL display\n"); return 2; }
    eglBindAPI(EGL_OPENGL_API);
    EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
    EGLContext ctx = eglCreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attr);
    if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "uniform_loop: no context\n"); return 2; }

    LOAD(PFNGLCREATESHADERPROC, glCreateShader); LOAD(PFNGLSHADERSOURCEPROC, glShaderSource);
    LOAD(PFNGLCOMPILESHADERPROC, glCompileShader); LOAD(PFNGLCREATEPROGRAMPROC, glCreateProgram);
    LOAD(PFNGLATTACHSHADERPROC, glAttachShader); LOAD(PFNGLLINKPROGRAMPROC, glLinkProgram);
    LOAD(PFNGLUSEPROGRAMPROC, glUseProgram); LOAD(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation);
    LOAD(PFNGLUNIFORM1FPROC, glUniform1f); LOAD(PFNGLGETERRORPROC, glGetError);
    LOAD(PFNGLGETSTRINGPROC, glGetString);
    GLuint p = glCreateProgram();
    GLuint v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
    glShaderSource(v, 1, &VS, NULL); glCompileShader(v);
    glShaderSource(f, 1, &FS, NULL); glCompileShader(f);
    glAttachShader(p, v); glAttachShader(p, f); glLinkProgram(p); glUseProgram(p);
    GLint loc = glGetUniformLocation(p, "u");
    if (loc < 0) { fprintf(stderr, "uniform_loop: no uniform u\n"); return 3; }

    for (long i = 0; i < n / 10; i++) glUniform1f(loc, (float)i);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++) glUniform1f(loc, (float)i);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    if (glGetError() != GL_NO_ERROR) { fprintf(stderr, "uniform_loop: GL error\n"); return 4; }
    printf("renderer %s\n", (const char *)glGetString(GL_RENDERER));
    printf("calls %ld ns_per_call %.3f\n", n, ns / (double)n);
    return 0;
}

/* compute_latency: the dispatch gldbg-bench's (d) print rows debug.
 *
 * EGL surfaceless, a GL 4.3 core context (GL from libOpenGL). One dispatch
 * of CL_CS over N invocations (default 1,048,576: 4096 work groups of
 * 256), each writing its loop's result to a storage buffer; the bench
 * steps into the loop (line 8). Prints `compute_latency: N invocations`
 * and exits 0.
 *
 *   compute_latency [--invocations N]   (N a multiple of 256)
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

/* Line numbers matter: the bench breaks on line 8. */
static const char *CL_CS =
    "#version 430\n"                                                  /* 1 */
    "layout(local_size_x = 256) in;\n"                                /* 2 */
    "layout(std430, binding = 0) buffer Out { float o[]; };\n"        /* 3 */
    "void main() {\n"                                                 /* 4 */
    "    uint i = gl_GlobalInvocationID.x;\n"                         /* 5 */
    "    float acc = 0.0;\n"                                          /* 6 */
    "    for (int k = 0; k < 4; ++k) {\n"                             /* 7 */
    "        acc += sin(float(i) * 0.001 * float(k + 1));\n"          /* 8 */
    "    }\n"                                                         /* 9 */
    "    o[i] = acc;\n"                                               /* 10 */
    "}\n";

static void die(const char *what) {
    fprintf(stderr, "compute_latency: %s\n", what);
    exit(1);
}

int main(int argc, char **argv) {
    long n = 1 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--invocations") && i + 1 < argc) n = atol(argv[++i]);
        else die("usage: compute_latency [--invocations N]");
    }
    if (n < 256 || n % 256) die("N must be a positive multiple of 256");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) die("no EGL display");
    eglBindAPI(EGL_OPENGL_API);
    EGLint attr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attr);
    if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("no context");

    GLuint s = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(s, 1, &CL_CS, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) die("the compute shader did not compile");
    GLuint prog = glCreateProgram();
    glAttachShader(prog, s);
    glLinkProgram(prog);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) die("the compute program did not link");
    glUseProgram(prog);

    GLuint buf;
    glGenBuffers(1, &buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(sizeof(float) * n), NULL, GL_DYNAMIC_COPY);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
    glDispatchCompute((GLuint)(n / 256), 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glFinish();
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    printf("compute_latency: %ld invocations\n", n);
    return 0;
}

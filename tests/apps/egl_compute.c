/* egl_compute: headless compute test app for gldbg.
 *
 * EGL surfaceless platform, an OpenGL 4.3 core context, GL functions linked
 * from libOpenGL (GLVND's GL library without GLX, as EGL apps link it).
 * Each frame dispatches COMPUTE_CS over 4x2x2 work groups of 8x4x1
 * (512 invocations): every invocation writes shade(idx) to result[idx]
 * (after a loop of idx % 5 iterations that changes nothing), adds 1 to
 * visits[idx] and increments an atomic counter. After the last
 * frame the app reads its buffers back and prints
 *
 *   egl_compute: N frames, checksum C, visits V, hits H, <renderer>
 *
 * where C is the sum of result[], V the sum of visits[] and H the atomic
 * counter: a debugger that replays a dispatch without restoring what it
 * writes changes V and H.
 *
 *   egl_compute [--frames N] [--indirect]
 *
 * --indirect: glDispatchComputeIndirect with the group counts in a
 *             GL_DISPATCH_INDIRECT_BUFFER (offset 4).
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

#define INVOCATIONS 512
#define SCALE 0.75f

/* Line numbers matter: the tests break on them (tests/src/lib.rs, compute). */
static const char *COMPUTE_CS =
    "#version 430\n"                                                      /*  1 */
    "layout(local_size_x = 8, local_size_y = 4) in;\n"                    /*  2 */
    "layout(std430, binding = 0) buffer Results { float result[]; };\n"   /*  3 */
    "layout(std430, binding = 1) buffer Visits { uint visits[]; };\n"     /*  4 */
    "layout(binding = 0, offset = 0) uniform atomic_uint u_hits;\n"       /*  5 */
    "uniform float u_scale;\n"                                            /*  6 */
    "\n"                                                                  /*  7 */
    "float shade(uint i) {\n"                                             /*  8 */
    "    float acc = 0.0;\n"                                              /*  9 */
    "    for (int k = 0; k < 4; ++k) {\n"                                 /* 10 */
    "        if (float(i % 7u) > float(k)) {\n"                           /* 11 */
    "            acc += u_scale * float(k + 1);\n"                        /* 12 */
    "        } else {\n"                                                  /* 13 */
    "            acc -= 0.5;\n"                                           /* 14 */
    "        }\n"                                                         /* 15 */
    "    }\n"                                                             /* 16 */
    "    return acc;\n"                                                   /* 17 */
    "}\n"                                                                 /* 18 */
    "\n"                                                                  /* 19 */
    "void main() {\n"                                                     /* 20 */
    "    uvec3 g = gl_GlobalInvocationID;\n"                              /* 21 */
    "    uint idx = g.x + g.y * 32u + g.z * 256u;\n"                      /* 22 */
    "    float v = shade(idx);\n"                                         /* 23 */
    "    uint n = 0u;\n"                                                  /* 24 */
    "    while (n < idx % 5u) {\n"                                        /* 25 */
    "        n++;\n"                                                      /* 26 */
    "    }\n"                                                             /* 27 */
    "    result[idx] = v + float(n - idx % 5u);\n"                        /* 28 */
    "    visits[idx] += 1u;\n"                                            /* 29 */
    "    atomicCounterIncrement(u_hits);\n"                               /* 30 */
    "}\n";                                                                /* 31 */

static void die(const char *what) {
    fprintf(stderr, "egl_compute: %s\n", what);
    exit(1);
}

static void context(void) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) die("no EGL display");
    if (!eglBindAPI(EGL_OPENGL_API)) die("eglBindAPI failed");
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK,
                            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attrs);
    if (ctx == EGL_NO_CONTEXT) die("no GL 4.3 core context");
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("eglMakeCurrent failed");
}

static GLuint program(void) {
    GLuint cs = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(cs, 1, &COMPUTE_CS, NULL);
    glCompileShader(cs);
    GLint ok = 0;
    glGetShaderiv(cs, GL_COMPILE_STATUS, &ok);
    char log[2048];
    if (!ok) {
        glGetShaderInfoLog(cs, sizeof log, NULL, log);
        fprintf(stderr, "%s\n", log);
        die("compute shader did not compile");
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, cs);
    glLinkProgram(prog);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) die("program did not link");
    return prog;
}

static GLuint buffer(GLenum target, GLsizeiptr size, const void *data) {
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, size, data, GL_DYNAMIC_COPY);
    return b;
}

int main(int argc, char **argv) {
    int frames = 2, indirect = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--indirect")) indirect = 1;
        else die("usage: egl_compute [--frames N] [--indirect]");
    }
    context();
    GLuint prog = program();
    static float zeros[INVOCATIONS];
    GLuint results = buffer(GL_SHADER_STORAGE_BUFFER, sizeof zeros, zeros);
    GLuint visits = buffer(GL_SHADER_STORAGE_BUFFER, sizeof zeros, zeros);
    GLuint hits = buffer(GL_ATOMIC_COUNTER_BUFFER, 4, zeros);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, results);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, visits);
    glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 0, hits);
    if (indirect) {
        const GLuint groups[4] = {99, 4, 2, 2};
        buffer(GL_DISPATCH_INDIRECT_BUFFER, sizeof groups, groups);
    }
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_scale"), SCALE);
    for (int f = 0; f < frames; f++) {
        if (indirect) glDispatchComputeIndirect(4);
        else glDispatchCompute(4, 2, 2);
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    }

    float out[INVOCATIONS];
    GLuint seen[INVOCATIONS], hit = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, results);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof out, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, visits);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof seen, seen);
    glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, hits);
    glGetBufferSubData(GL_ATOMIC_COUNTER_BUFFER, 0, 4, &hit);
    double checksum = 0;
    unsigned long visited = 0;
    for (int i = 0; i < INVOCATIONS; i++) {
        checksum += out[i];
        visited += seen[i];
    }
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    printf("egl_compute: %d frames, checksum %.6f, visits %lu, hits %u, %s\n", frames, checksum,
           visited, hit, (const char *)glGetString(GL_RENDERER));
    return 0;
}

/* egl_compute: headless compute test app for gldbg.
 *
 * EGL surfaceless platform, an OpenGL 4.3 core context, GL functions linked
 * from libOpenGL (GLVND's GL library without GLX, as EGL apps link it).
 * Each frame dispatches COMPUTE_CS over 4x2x2 work groups of 8x4x1
 * (512 invocations): every invocation writes shade(idx) to result[idx]
 * (after a loop of idx % 5 iterations that changes nothing), adds 1 to
 * visits[idx], increments an atomic counter and adds 1 to its texel of a
 * 32x16 R32UI image. After the last frame the app reads its buffers and
 * the image back and prints
 *
 *   egl_compute: N frames, checksum C, visits V, hits H, texels T, <renderer>
 *
 * where C is the sum of result[], V the sum of visits[], H the atomic
 * counter and T the sum of the image: a debugger that replays a dispatch
 * without restoring what it writes changes V, H and T.
 *
 *   egl_compute [--frames N] [--indirect] [--draw [--query]] [--dump-state PATH]
 *               [--busy-state]
 *
 * --indirect: glDispatchComputeIndirect with the group counts in a
 *             GL_DISPATCH_INDIRECT_BUFFER (offset 4).
 * --draw:     also, each frame, draw a triangle over a 16x16 FBO whose
 *             fragment shader (DRAW_FS) counts its fragments with an atomic
 *             counter and in a storage buffer; then print
 *             `egl_compute draw: fragments F, visits V`.
 * --query:    draw inside a GL_SAMPLES_PASSED query; the draw line adds
 *             `, samples S` (the sum over frames).
 * --dump-state: append state_dump.h's dump of the whole GL state to PATH
 *             right before and right after the first frame's draw ("before
 *             draw 1", "after draw 1", with --draw) and dispatch ("before
 *             dispatch 1", "after dispatch 1"), and after the last frame
 *             ("final": the buffers', image's and frame's hashes among it).
 * --busy-state: before the frames, set state the draw and dispatch do not
 *             depend on to values other than the defaults (state_set_busy()).
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state_dump.h"

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
    "layout(r32ui, binding = 0) uniform uimage2D u_counts;\n"           /* 19 */
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
    "    imageAtomicAdd(u_counts, ivec2(g.xy) + ivec2(0, 8 * int(g.z)), 1u);\n" /* 31 */
    "}\n";                                                                /* 32 */

static const char *DRAW_VS =
    "#version 430\n"
    "void main() {\n"
    "    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1));\n"
    "    gl_Position = vec4(p, 0.0, 1.0);\n"
    "}\n";

static const char *DRAW_FS =
    "#version 430\n"                                                      /*  1 */
    "layout(binding = 1, offset = 0) uniform atomic_uint u_fragments;\n"  /*  2 */
    "layout(std430, binding = 2) buffer Seen { uint seen[]; };\n"         /*  3 */
    "out vec4 color;\n"                                                   /*  4 */
    "void main() {\n"                                                     /*  5 */
    "    ivec2 p = ivec2(gl_FragCoord.xy);\n"                             /*  6 */
    "    atomicCounterIncrement(u_fragments);\n"                          /*  7 */
    "    seen[p.y * 16 + p.x] += 1u;\n"                                   /*  8 */
    "    color = vec4(gl_FragCoord.xy / 16.0, 0.0, 1.0);\n"               /*  9 */
    "}\n";                                                                /* 10 */

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

static GLuint shader(GLenum type, const char *src) {
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        fprintf(stderr, "%s\n", log);
        die("a shader did not compile");
    }
    return sh;
}

static GLuint link(GLuint a, GLuint b) {
    GLuint prog = glCreateProgram();
    glAttachShader(prog, a);
    if (b) glAttachShader(prog, b);
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) die("a program did not link");
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
    int frames = 2, indirect = 0, draw = 0, query = 0;
    const char *dump = NULL;
    int busy = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--indirect")) indirect = 1;
        else if (!strcmp(argv[i], "--draw")) draw = 1;
        else if (!strcmp(argv[i], "--query")) query = 1;
        else if (!strcmp(argv[i], "--dump-state") && i + 1 < argc) dump = argv[++i];
        else if (!strcmp(argv[i], "--busy-state")) busy = 1;
        else die("usage: egl_compute [--frames N] [--indirect] [--draw [--query]] "
                 "[--dump-state PATH] [--busy-state]");
    }
    context();
    GLuint prog = link(shader(GL_COMPUTE_SHADER, COMPUTE_CS), 0);
    GLuint draw_prog = 0, fragments = 0, seen_buffer = 0, fbo = 0, samples_query = 0;
    unsigned long samples = 0;
    if (query) glGenQueries(1, &samples_query);
    if (draw) {
        draw_prog = link(shader(GL_VERTEX_SHADER, DRAW_VS), shader(GL_FRAGMENT_SHADER, DRAW_FS));
        static GLuint zero[256];
        fragments = buffer(GL_ATOMIC_COUNTER_BUFFER, 4, zero);
        seen_buffer = buffer(GL_SHADER_STORAGE_BUFFER, sizeof zero, zero);
        glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 1, fragments);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, seen_buffer);
        GLuint rb, vao;
        glGenRenderbuffers(1, &rb);
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
        glGenFramebuffers(1, &fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
        glViewport(0, 0, 16, 16);
        glGenVertexArrays(1, &vao);
        glBindVertexArray(vao);
    }
    static float zeros[INVOCATIONS];
    GLuint results = buffer(GL_SHADER_STORAGE_BUFFER, sizeof zeros, zeros);
    GLuint visits = buffer(GL_SHADER_STORAGE_BUFFER, sizeof zeros, zeros);
    GLuint hits = buffer(GL_ATOMIC_COUNTER_BUFFER, 4, zeros);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, results);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, visits);
    glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 0, hits);
    GLuint counts;
    glGenTextures(1, &counts);
    glBindTexture(GL_TEXTURE_2D, counts);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32UI, 32, 16);
    static GLuint texels[32 * 16];
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 32, 16, GL_RED_INTEGER, GL_UNSIGNED_INT, texels);
    glBindImageTexture(0, counts, 0, GL_FALSE, 0, GL_READ_WRITE, GL_R32UI);
    if (indirect) {
        const GLuint groups[4] = {99, 4, 2, 2};
        buffer(GL_DISPATCH_INDIRECT_BUFFER, sizeof groups, groups);
    }
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_scale"), SCALE);
    if (busy) state_set_busy();
    for (int f = 0; f < frames; f++) {
        if (draw) {
            glUseProgram(draw_prog);
            if (query) glBeginQuery(GL_SAMPLES_PASSED, samples_query);
            if (dump && f == 0) state_dump(dump, "before draw 1");
            glDrawArrays(GL_TRIANGLES, 0, 3);
            if (dump && f == 0) state_dump(dump, "after draw 1");
            if (query) {
                glEndQuery(GL_SAMPLES_PASSED);
                GLuint n = 0;
                glGetQueryObjectuiv(samples_query, GL_QUERY_RESULT, &n);
                samples += n;
            }
            glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
            glUseProgram(prog);
        }
        if (dump && f == 0) state_dump(dump, "before dispatch 1");
        if (indirect) glDispatchComputeIndirect(4);
        else glDispatchCompute(4, 2, 2);
        if (dump && f == 0) state_dump(dump, "after dispatch 1");
        glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
    }
    if (dump) state_dump(dump, "final");

    float out[INVOCATIONS];
    GLuint seen[INVOCATIONS], hit = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, results);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof out, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, visits);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof seen, seen);
    glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, hits);
    glGetBufferSubData(GL_ATOMIC_COUNTER_BUFFER, 0, 4, &hit);
    if (busy) glActiveTexture(GL_TEXTURE0); /* state_set_busy() left unit 5 active */
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, texels);
    double checksum = 0;
    unsigned long visited = 0, texel_sum = 0;
    for (int i = 0; i < INVOCATIONS; i++) {
        checksum += out[i];
        visited += seen[i];
        texel_sum += texels[i];
    }
    if (draw) {
        GLuint frag_count = 0, seen_at[256];
        unsigned long seen_sum = 0;
        glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, fragments);
        glGetBufferSubData(GL_ATOMIC_COUNTER_BUFFER, 0, 4, &frag_count);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, seen_buffer);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof seen_at, seen_at);
        for (int i = 0; i < 256; i++) seen_sum += seen_at[i];
        printf("egl_compute draw: fragments %u, visits %lu", frag_count, seen_sum);
        if (query) printf(", samples %lu", samples);
        printf("\n");
    }
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    printf("egl_compute: %d frames, checksum %.6f, visits %lu, hits %u, texels %lu, %s\n", frames,
           checksum, visited, hit, texel_sum, (const char *)glGetString(GL_RENDERER));
    return 0;
}

/* egl_memcheck_link: headless compute app for tests/tests/memcheck_link.rs,
 * which runs its dispatches with a hand-written memcheck program
 * (CMD_MEMCHECK) in place and not in place.
 *
 * EGL surfaceless, OpenGL 4.3 core. Each of FRAMES frames dispatches CS
 * over 2 work groups of 64: out[i] += data[i] + u_add, with u_add = frame
 * + 1 and data[i] = 7 i + 1. Its blocks: Data bound whole at storage
 * binding 2 (1024 bytes), Out declared at binding 5 but moved by the app to
 * 6 (glShaderStorageBlockBinding), bound there as a range of 512 bytes at
 * offset 256 of its buffer. Bound besides, for nothing of the program:
 * a buffer at storage bindings 0 (whole) and 1 (a range), atomic counter
 * buffers at bindings 1 (a range of 12 bytes) and 3 (whole, 32 bytes).
 * After the frames it prints
 *
 *   egl_memcheck_link: out O, frames F
 *
 * with O the sum of out[] (a dispatch run twice or not at all changes it).
 *
 *   egl_memcheck_link [--draw] [--indirect] [--query] [--dump-state PATH]
 *
 * --query:      the frames inside a GL_PRIMITIVES_GENERATED and a
 *               GL_TIME_ELAPSED query of the app's; prints
 *               `egl_memcheck_link queries: primitives P`.
 * --indirect:   glDispatchComputeIndirect with the group counts (2, 1, 1)
 *               at offset 4 of a GL_DISPATCH_INDIRECT_BUFFER.
 * --draw:       also, each frame after the dispatch, draw a triangle over a
 *               16x16 RGBA8 framebuffer with additive blending (FS: u_color
 *               = (0.125 f, 0.25, 0.0625, 0.5) to `color`, bound by the app
 *               to location 1, draw buffer 1 writing attachment 0; and
 *               atomicAdd(hits[0], 1) on storage binding 3), and print
 *               `egl_memcheck_link draw: hits H, pixel R G B A`.
 * --dump-state: state_dump.h's dump of the whole GL state right after
 *               each dispatch ("after dispatch N") and draw ("after draw
 *               N") and at the end ("final").
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_memcheck_link"
/* egl_app.h's framebuffer helper and hash are unused here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "egl_app.h"
#include "state_dump.h"

#include <string.h>

#define FRAMES 3
#define N 128

static const char *CS =
    "#version 430\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 2) buffer Data { uint data[]; };\n"
    "layout(std430, binding = 5) buffer Out { uint outv[]; };\n"
    "uniform uint u_add;\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    outv[i] += data[i] + u_add;\n"
    "}\n";

static const char *VS =
    "#version 430\n"
    "void main() {\n"
    "    vec2 p = vec2(float(gl_VertexID & 1) * 4.0 - 1.0, float(gl_VertexID >> 1) * 4.0 - 1.0);\n"
    "    gl_Position = vec4(p, 0.0, 1.0);\n"
    "}\n";

static const char *FS =
    "#version 430\n"
    "layout(std430, binding = 3) buffer Hits { uint hits[]; };\n"
    "out vec4 color;\n"
    "uniform vec4 u_color;\n"
    "void main() {\n"
    "    atomicAdd(hits[0], 1u);\n"
    "    color = u_color;\n"
    "}\n";

static GLuint buffer(GLenum target, GLsizeiptr size, const void *data) {
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, size, data, GL_DYNAMIC_COPY);
    return b;
}

int main(int argc, char **argv) {
    const char *dump = NULL;
    int draw = 0, indirect = 0, query = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump-state") && i + 1 < argc) dump = argv[++i];
        else if (!strcmp(argv[i], "--draw")) draw = 1;
        else if (!strcmp(argv[i], "--indirect")) indirect = 1;
        else if (!strcmp(argv[i], "--query")) query = 1;
        else die("usage: egl_memcheck_link [--draw] [--indirect] [--query] [--dump-state PATH]");
    }
    struct egl_app a = egl_app_start(4, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_COMPUTE_SHADER, CS));
    link_program(p);
    GLuint out_block = glGetProgramResourceIndex(p, GL_SHADER_STORAGE_BLOCK, "Out");
    glShaderStorageBlockBinding(p, out_block, 6);

    uint32_t data[256], zeros[256] = {0};
    for (int i = 0; i < 256; i++) data[i] = 7u * (uint32_t)i + 1u;
    GLuint data_buf = buffer(GL_SHADER_STORAGE_BUFFER, sizeof data, data);
    GLuint out_buf = buffer(GL_SHADER_STORAGE_BUFFER, 256 + 4 * N + 256, NULL);
    glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT,
                      NULL);
    GLuint side = buffer(GL_SHADER_STORAGE_BUFFER, 256, zeros);
    GLuint counters = buffer(GL_ATOMIC_COUNTER_BUFFER, 32, zeros);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, data_buf);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 6, out_buf, 256, 4 * N);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, side);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, side, 16, 64);
    glBindBufferRange(GL_ATOMIC_COUNTER_BUFFER, 1, counters, 8, 12);
    glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 3, counters);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, side);
    GLuint q = 0, hits = 0, vao = 0;
    if (draw) {
        q = glCreateProgram();
        glAttachShader(q, compile(GL_VERTEX_SHADER, VS));
        glAttachShader(q, compile(GL_FRAGMENT_SHADER, FS));
        glBindFragDataLocation(q, 1, "color");
        link_program(q);
        hits = buffer(GL_SHADER_STORAGE_BUFFER, 16, zeros);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, hits);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, side);
        glGenVertexArrays(1, &vao);
        glBindVertexArray(vao);
        GLuint fbo, rb;
        glGenFramebuffers(1, &fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glGenRenderbuffers(1, &rb);
        glBindRenderbuffer(GL_RENDERBUFFER, rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
        const GLenum bufs[2] = {GL_NONE, GL_COLOR_ATTACHMENT0};
        glDrawBuffers(2, bufs);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            die("framebuffer incomplete");
        glViewport(0, 0, 16, 16);
        glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE);
    }
    if (indirect) {
        const GLuint groups[4] = {0, N / 64, 1, 1};
        buffer(GL_DISPATCH_INDIRECT_BUFFER, sizeof groups, groups);
    }
    GLint add = glGetUniformLocation(p, "u_add");
    GLint color = draw ? glGetUniformLocation(q, "u_color") : -1;
    GLuint queries[2] = {0, 0};
    if (query) {
        glGenQueries(2, queries);
        glBeginQuery(GL_PRIMITIVES_GENERATED, queries[0]);
        glBeginQuery(GL_TIME_ELAPSED, queries[1]);
    }
    for (int f = 0; f < FRAMES; f++) {
        char label[32];
        glUseProgram(p);
        glUniform1ui(add, (GLuint)f + 1u);
        if (indirect) glDispatchComputeIndirect(4);
        else glDispatchCompute(N / 64, 1, 1);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        if (dump) {
            snprintf(label, sizeof label, "after dispatch %d", f + 1);
            state_dump(dump, label);
        }
        if (!draw) continue;
        glUseProgram(q);
        glUniform4f(color, 0.125f * (float)(f + 1), 0.25f, 0.0625f, 0.5f);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        if (dump) {
            snprintf(label, sizeof label, "after draw %d", f + 1);
            state_dump(dump, label);
        }
    }
    if (query) {
        glEndQuery(GL_PRIMITIVES_GENERATED);
        glEndQuery(GL_TIME_ELAPSED);
        GLuint primitives = 0;
        glGetQueryObjectuiv(queries[0], GL_QUERY_RESULT, &primitives);
        printf(APP_NAME " queries: primitives %u\n", primitives);
    }
    uint32_t out[N];
    glBindBuffer(GL_COPY_READ_BUFFER, out_buf);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 256, sizeof out, out);
    uint64_t sum = 0;
    for (int i = 0; i < N; i++) sum += out[i];
    if (dump) state_dump(dump, "final");
    printf(APP_NAME ": out %llu, frames %d\n", (unsigned long long)sum, FRAMES);
    if (draw) {
        uint32_t h = 0;
        unsigned char px[4];
        glBindBuffer(GL_COPY_READ_BUFFER, hits);
        glGetBufferSubData(GL_COPY_READ_BUFFER, 0, 4, &h);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        glReadPixels(3, 5, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
        printf(APP_NAME " draw: hits %u, pixel %u %u %u %u\n", h, px[0], px[1], px[2], px[3]);
    }
    egl_app_end(a);
    return 0;
}

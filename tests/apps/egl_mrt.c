/* egl_mrt: fragment tests and outputs for gldbg's `debug fragment` options.
 *
 * EGL surfaceless, an OpenGL 3.3 compatibility context (for the alpha
 * test), GL linked from libOpenGL. A 64x64 framebuffer of its own with two
 * colour outputs (RGBA8 and RGBA32UI: MRT with an integer output) and
 * DEPTH24_STENCIL8. Each frame draws:
 *
 *   1. an occluder over x < 32 at depth 0.25 (no colour, no stencil);
 *   2. a stencil marker over y >= 32 (stencil 1; no colour, no depth);
 *   3. the quad under test at depth 0.5 with the depth test LESS, the
 *      stencil test EQUAL 0 and the alpha test GREATER 0.5, shaded by
 *      MRT_FS: it discards y < 8, writes alpha 0 for y >= 48 and
 *      gl_FragDepth 0.1 for x < 16 (so it passes the occluder there).
 *
 * So the quad's fragments that survive every test are those with
 * (x < 16 or x >= 32) and 8 <= y < 32 (window pixels). The app prints
 *
 *   egl_mrt: N frames, color C, ids I, depth D, stencil S, <renderer>
 *
 * with an FNV-1a hash of the RGBA8 attachment and sums of the integer
 * attachment, the depth and the stencil of the last frame.
 *
 * --query: draw 3 and a small quad after it run inside a GL_SAMPLES_PASSED,
 * a GL_PRIMITIVES_GENERATED and a GL_TIME_ELAPSED query; the app
 * checks GL_CURRENT_QUERY after draw 3, reads the results (32 and 64 bit,
 * after polling availability) and draws a last quad conditionally on the
 * samples query; it prints
 *
 *   egl_mrt queries: samples S, primitives P, time elapsed, current ok
 *
 * --pipeline: the quad under test is drawn with a separable program
 * pipeline (glCreateShaderProgramv: a vertex and a fragment program, the
 * uniforms set with glProgramUniform) instead of a monolithic program.
 *
 * --immediate: every quad is drawn in immediate mode, glBegin(GL_TRIANGLE_STRIP)
 * with four glVertex2f (generic attribute 0 in a compatibility context) and
 * glEnd (a draw), instead of glDrawArrays.
 *
 *   egl_mrt [--frames N] [--query] [--pipeline] [--immediate]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_mrt"
#include "egl_app.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define SIZE 64

static const char *VS =
    "#version 330\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "uniform float u_depth;\n"
    "uniform vec4 u_rect;\n" /* x0, y0, x1, y1 in NDC */
    "void main() {\n"
    "    gl_Position = vec4(mix(u_rect.xy, u_rect.zw, a_pos), u_depth, 1.0);\n"
    "}\n";

/* Line numbers matter: tests/tests/fragment_options.rs breaks on them. */
static const char *MRT_FS =
    "#version 330\n"                                                       /*  1 */
    "layout(location = 0) out vec4 color;\n"                               /*  2 */
    "layout(location = 1) out uvec4 id;\n"                                 /*  3 */
    "void main() {\n"                                                      /*  4 */
    "    vec2 p = floor(gl_FragCoord.xy);\n"                               /*  5 */
    "    if (p.y < 8.0) discard;\n"                                        /*  6 */
    "    uint cell = uint(p.x) + 64u * uint(p.y);\n"                       /*  7 */
    "    color = vec4(p.x / 64.0, p.y / 64.0, 0.5, p.y >= 48.0 ? 0.0 : 1.0);\n" /*  8 */
    "    id = uvec4(cell, cell * 3u, 7u, 1u);\n"                           /*  9 */
    "    gl_FragDepth = p.x < 16.0 ? 0.1 : gl_FragCoord.z;\n"             /* 10 */
    "}\n";                                                                 /* 11 */

static const char *PLAIN_FS =
    "#version 330\n"
    "layout(location = 0) out vec4 color;\n"
    "void main() { color = vec4(1.0); }\n";

static GLuint link(const char *fs) {
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, VS));
    glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
    link_program(p);
    return p;
}

/* Draw the NDC rectangle of window pixels [x0, x1) x [y0, y1); `prog` is
 * the program its vertex uniforms go to (its own, or a pipeline's vertex
 * program), set through glProgramUniform. */
static int immediate;

static void rect(GLuint prog, float depth, int x0, int y0, int x1, int y1) {
    float n = 2.0f / SIZE;
    glProgramUniform1f(prog, glGetUniformLocation(prog, "u_depth"), depth * 2.0f - 1.0f);
    glProgramUniform4f(prog, glGetUniformLocation(prog, "u_rect"), x0 * n - 1.0f,
                       y0 * n - 1.0f, x1 * n - 1.0f, y1 * n - 1.0f);
    if (!immediate) {
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        return;
    }
    static const GLfloat corners[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    glBegin(GL_TRIANGLE_STRIP);
    for (int i = 0; i < 4; i++) {
        if (i % 2) glVertex2fv(corners[i]); /* both forms: by value and by pointer */
        else glVertex2f(corners[i][0], corners[i][1]);
    }
    glEnd();
}

static GLuint separable(GLenum type, const char *src) {
    GLuint p = glCreateShaderProgramv(type, 1, &src);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        fprintf(stderr, "egl_mrt: separable program: %s\n", log);
        exit(1);
    }
    return p;
}

int main(int argc, char **argv) {
    int frames = 2, query = 0, pipeline = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--query")) query = 1;
        else if (!strcmp(argv[i], "--pipeline")) pipeline = 1;
        else if (!strcmp(argv[i], "--immediate")) immediate = 1;
        else die("usage: egl_mrt [--frames N] [--query] [--pipeline] [--immediate]");
    }

    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);

    GLuint fbo, rbs[3];
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glGenRenderbuffers(3, rbs);
    const GLenum formats[3] = {GL_RGBA8, GL_RGBA32UI, GL_DEPTH24_STENCIL8};
    const GLenum attachments[3] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1,
                                   GL_DEPTH_STENCIL_ATTACHMENT};
    for (int i = 0; i < 3; i++) {
        glBindRenderbuffer(GL_RENDERBUFFER, rbs[i]);
        glRenderbufferStorage(GL_RENDERBUFFER, formats[i], SIZE, SIZE);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, attachments[i], GL_RENDERBUFFER, rbs[i]);
    }
    const GLenum bufs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, bufs);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        die("framebuffer incomplete");
    glViewport(0, 0, SIZE, SIZE);

    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    const float quad[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);

    GLuint plain = link(PLAIN_FS), mrt = link(MRT_FS);
    GLuint stages = 0, mrt_vs = 0;
    if (pipeline) {
        mrt_vs = separable(GL_VERTEX_SHADER, VS);
        GLuint fs = separable(GL_FRAGMENT_SHADER, MRT_FS);
        glGenProgramPipelines(1, &stages);
        glUseProgramStages(stages, GL_VERTEX_SHADER_BIT, mrt_vs);
        glUseProgramStages(stages, GL_FRAGMENT_SHADER_BIT, fs);
    }
    /* One occlusion query can be active at a time (of any of its targets). */
    GLuint queries[3];
    const GLenum query_targets[3] = {GL_SAMPLES_PASSED, GL_PRIMITIVES_GENERATED,
                                     GL_TIME_ELAPSED};
    glGenQueries(3, queries);
    int current_ok = 1;
    const float black[4] = {0, 0, 0, 0};
    const GLuint zero[4] = {0, 0, 0, 0};
    uint64_t color_sum = 0, id_sum = 0, depth_sum = 0, stencil_sum = 0;
    for (int f = 0; f < frames; f++) {
        glClearBufferfv(GL_COLOR, 0, black);
        glClearBufferuiv(GL_COLOR, 1, zero);
        glClearBufferfi(GL_DEPTH_STENCIL, 0, 1.0f, 0);

        glUseProgram(plain);
        /* 1. occluder: depth only */
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        rect(plain, 0.25f, 0, 0, 32, SIZE);
        /* 2. stencil marker: stencil only */
        glDepthMask(GL_FALSE);
        glDisable(GL_DEPTH_TEST);
        glEnable(GL_STENCIL_TEST);
        glStencilFunc(GL_ALWAYS, 1, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
        rect(plain, 0.5f, 0, 32, SIZE, SIZE);
        /* 3. the quad under test */
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glDepthMask(GL_TRUE);
        glEnable(GL_DEPTH_TEST);
        glStencilFunc(GL_EQUAL, 0, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
        glEnable(GL_ALPHA_TEST);
        glAlphaFunc(GL_GREATER, 0.5f);
        if (pipeline) {
            glUseProgram(0);
            glBindProgramPipeline(stages);
        } else {
            glUseProgram(mrt);
        }
        GLuint quad = pipeline ? mrt_vs : mrt;
        if (query)
            for (int q = 0; q < 3; q++) glBeginQuery(query_targets[q], queries[q]);
        rect(quad, 0.5f, 0, 0, SIZE, SIZE);
        glDisable(GL_ALPHA_TEST);
        glDisable(GL_STENCIL_TEST);
        glDisable(GL_DEPTH_TEST);
        if (query) {
            for (int q = 0; q < 3; q++) {
                GLint cur = 0;
                glGetQueryiv(query_targets[q], GL_CURRENT_QUERY, &cur);
                current_ok &= (GLuint)cur == queries[q];
            }
            /* One more quad inside the queries: 4x4 pixels, 2 triangles. */
            rect(quad, 0.5f, 56, 8, 60, 12);
            for (int q = 0; q < 3; q++) glEndQuery(query_targets[q]);
            /* Drawn only if draw 3 and the small quad passed samples: in
             * the alpha-tested band, so it changes the frame. */
            glBeginConditionalRender(queries[0], GL_QUERY_WAIT);
            rect(quad, 0.5f, 60, 52, 64, 56);
            glEndConditionalRender();
        }

        static unsigned char rgba[SIZE * SIZE * 4];
        static GLuint ids[SIZE * SIZE * 4];
        static GLuint ds[SIZE * SIZE];
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        glReadBuffer(GL_COLOR_ATTACHMENT1);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA_INTEGER, GL_UNSIGNED_INT, ids);
        glReadPixels(0, 0, SIZE, SIZE, GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8, ds);
        color_sum = 0, id_sum = 0, depth_sum = 0, stencil_sum = 0;
        for (int i = 0; i < SIZE * SIZE; i++) {
            id_sum += ids[4 * i] + ids[4 * i + 1] + ids[4 * i + 2] + ids[4 * i + 3];
            depth_sum += ds[i] >> 8;
            stencil_sum += ds[i] & 0xff;
        }
        color_sum = fnv(FNV_OFFSET, rgba, sizeof rgba);
    }
    if (query) {
        GLint available = 0;
        for (int q = 0; q < 3; q++) {
            available = 0;
            while (!available) glGetQueryObjectiv(queries[q], GL_QUERY_RESULT_AVAILABLE, &available);
        }
        GLuint64 elapsed = 0;
        glGetQueryObjectui64v(queries[2], GL_QUERY_RESULT, &elapsed);
        GLuint samples = 0;
        GLuint64 primitives = 0;
        glGetQueryObjectuiv(queries[0], GL_QUERY_RESULT, &samples);
        glGetQueryObjectui64v(queries[1], GL_QUERY_RESULT, &primitives);
        printf("egl_mrt queries: samples %u, primitives %llu, time %s, current %s\n", samples,
               (unsigned long long)primitives, elapsed > 0 ? "elapsed" : "NONE",
               current_ok ? "ok" : "WRONG");
    }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_mrt: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_mrt: %d frames, color %llu, ids %llu, depth %llu, stencil %llu, %s\n", frames,
           (unsigned long long)color_sum, (unsigned long long)id_sum,
           (unsigned long long)depth_sum, (unsigned long long)stencil_sum,
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return 0;
}

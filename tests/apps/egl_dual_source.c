/* egl_dual_source: dual-source blending for gldbg's fragment steps.
 *
 * EGL surfaceless, an OpenGL 3.3 core context, a 64x64 RGBA32F framebuffer
 * of its own cleared to (0.25, 0.25, 0.25, 0.25). Blending is on with
 * glBlendFunc(GL_ONE, GL_SRC1_COLOR): each pixel becomes c0 + c1 * 0.25,
 * where c0 is the fragment shader's first source and c1 its second
 * (index 1) output. Two draws:
 *
 *   1. x < 32: a program whose outputs have layout qualifiers
 *      (location = 0, index = 0 / index = 1);
 *   2. x >= 32: a program whose outputs are placed with
 *      glBindFragDataLocationIndexed before linking.
 *
 * The app checks every pixel against the same formula on the CPU and
 * prints
 *
 *   egl_dual_source: N frames, frame H, blend ok, <renderer>
 *
 * with an FNV-1a hash H of the last frame; "blend WRONG" and exit 1 when a
 * pixel differs.
 *
 *   egl_dual_source [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_dual_source"
#include "egl_app.h"
#include <math.h>
#include <string.h>

#define SIZE 64

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "uniform vec4 u_rect;\n" /* x0, y0, x1, y1 in NDC */
    "void main() {\n"
    "    gl_Position = vec4(mix(u_rect.xy, u_rect.zw, a_pos), 0.0, 1.0);\n"
    "}\n";

/* Line numbers matter: tests/tests/dual_source.rs breaks on line 8. */
static const char *FS_LAYOUT =
    "#version 330 core\n"                                  /* 1 */
    "layout(location = 0, index = 0) out vec4 c0;\n"       /* 2 */
    "layout(location = 0, index = 1) out vec4 c1;\n"       /* 3 */
    "void main() {\n"                                      /* 4 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"        /* 5 */
    "    c0 = vec4(p.x, p.y, 0.5, 1.0) * 0.5;\n"           /* 6 */
    "    c1 = vec4(1.0 - p.x, 0.5, p.y, 0.25);\n"          /* 7 */
    "    if (p.x > 2.0) discard;\n"                        /* 8 */
    "}\n";                                                 /* 9 */

static const char *FS_BOUND =
    "#version 330 core\n"                                  /* 1 */
    "out vec4 c0;\n"                                       /* 2 */
    "out vec4 c1;\n"                                       /* 3 */
    "void main() {\n"                                      /* 4 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"        /* 5 */
    "    c0 = vec4(p.x, p.y, 0.5, 1.0) * 0.5;\n"           /* 6 */
    "    c1 = vec4(1.0 - p.x, 0.5, p.y, 0.25);\n"          /* 7 */
    "    if (p.x > 2.0) discard;\n"                        /* 8 */
    "}\n";                                                 /* 9 */

static GLuint link(const char *fs, int bind) {
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, VS));
    glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
    if (bind) {
        glBindFragDataLocationIndexed(p, 0, 0, "c0");
        glBindFragDataLocationIndexed(p, 0, 1, "c1");
    }
    link_program(p);
    return p;
}

static void rect(GLuint prog, int x0, int x1) {
    float n = 2.0f / SIZE;
    glUseProgram(prog);
    glUniform4f(glGetUniformLocation(prog, "u_rect"), x0 * n - 1.0f, -1.0f, x1 * n - 1.0f, 1.0f);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

int main(int argc, char **argv) {
    int frames = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else die("usage: egl_dual_source [--frames N]");
    }
    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    egl_app_float_target(SIZE, SIZE);

    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    const float quad[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);

    GLuint with_layout = link(FS_LAYOUT, 0), bound = link(FS_BOUND, 1);
    static float px[SIZE * SIZE * 4];
    int ok = 1;
    for (int f = 0; f < frames; f++) {
        glDisable(GL_BLEND);
        glClearColor(0.25f, 0.25f, 0.25f, 0.25f);
        glClear(GL_COLOR_BUFFER_BIT);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_SRC1_COLOR);
        rect(with_layout, 0, SIZE / 2);
        rect(bound, SIZE / 2, SIZE);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, px);
    }
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            float fx = x / 64.0f, fy = y / 64.0f;
            float c0[4] = {fx * 0.5f, fy * 0.5f, 0.25f, 0.5f};
            float c1[4] = {1.0f - fx, 0.5f, fy, 0.25f};
            for (int k = 0; k < 4; k++)
                if (fabsf(px[4 * (y * SIZE + x) + k] - (c0[k] + c1[k] * 0.25f)) > 1e-6f) ok = 0;
        }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_dual_source: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_dual_source: %d frames, frame %llu, blend %s, %s\n", frames,
           (unsigned long long)fnv(FNV_OFFSET, px, sizeof px), ok ? "ok" : "WRONG",
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return ok ? 0 : 1;
}

/* egl_multi_fs: fragment programs of several shader objects writing
 * gl_FragColor, for gldbg's fragment steps.
 *
 * EGL surfaceless, an OpenGL 3.3 compatibility context, a 64x64 RGBA32F
 * framebuffer of its own. Two draws, p = floor(gl_FragCoord.xy) / 64:
 *
 *   1. x < 32, GLSL 1.30: main writes gl_FragColor = (p.x, p.y, 0, 1), calls
 *      blue() and alpha() of two other shader objects that write its blue
 *      ((p.x + p.y) / 2) and alpha (its red / 4), then adds 1/8 to red;
 *   2. x >= 32, GLSL 1.20: main only calls paint() of another shader
 *      object, which writes gl_FragColor = (p.y, p.x, 0.5, 1).
 *
 * The app checks every pixel against the formulas on the CPU and prints
 *
 *   egl_multi_fs: N frames, frame H, colors ok, <renderer>
 *
 * with an FNV-1a hash H of the last frame; "colors WRONG" and exit 1 when a
 * pixel differs.
 *
 *   egl_multi_fs [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_multi_fs"
#include "egl_app.h"
#include <math.h>
#include <string.h>

#define SIZE 64

static const char *VS_130 =
    "#version 130\n"
    "in vec2 a_pos;\n"
    "uniform vec4 u_rect;\n"
    "void main() {\n"
    "    gl_Position = vec4(mix(u_rect.xy, u_rect.zw, a_pos), 0.0, 1.0);\n"
    "}\n";

static const char *VS_120 =
    "#version 120\n"
    "attribute vec2 a_pos;\n"
    "uniform vec4 u_rect;\n"
    "void main() {\n"
    "    gl_Position = vec4(mix(u_rect.xy, u_rect.zw, a_pos), 0.0, 1.0);\n"
    "}\n";

/* Line numbers matter: tests/tests/app_forms.rs breaks on line 9 and 6. */
static const char *FS_MAIN =
    "#version 130\n"                                       /* 1 */
    "void blue(float b);\n"                                /* 2 */
    "void alpha();\n"                                      /* 3 */
    "void main() {\n"                                      /* 4 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"        /* 5 */
    "    gl_FragColor = vec4(p.x, p.y, 0.0, 1.0);\n"       /* 6 */
    "    blue(p.x + p.y);\n"                               /* 7 */
    "    alpha();\n"                                       /* 8 */
    "    gl_FragColor.r += 0.125;\n"                       /* 9 */
    "}\n";                                                 /* 10 */

static const char *FS_BLUE =
    "#version 130\n"
    "void blue(float b) {\n"
    "    gl_FragColor.b = b * 0.5;\n"
    "}\n";

static const char *FS_ALPHA =
    "#version 130\n"
    "void alpha() {\n"
    "    gl_FragColor.a = gl_FragColor.r * 0.25;\n"
    "}\n";

static const char *FS_MAIN_120 =
    "#version 120\n"                                       /* 1 */
    "void paint(vec2 p);\n"                                /* 2 */
    "void main() {\n"                                      /* 3 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"        /* 4 */
    "    paint(p);\n"                                      /* 5 */
    "    p.x = 0.0;\n"                                     /* 6 */
    "}\n";                                                 /* 7 */

static const char *FS_PAINT =
    "#version 120\n"
    "void paint(vec2 p) {\n"
    "    gl_FragColor = vec4(p.y, p.x, 0.5, 1.0);\n"
    "}\n";

static GLuint link(const char *vs, const char *const *fs, int n) {
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, vs));
    for (int i = 0; i < n; i++) glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs[i]));
    glBindAttribLocation(p, 0, "a_pos");
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
        else die("usage: egl_multi_fs [--frames N]");
    }
    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);
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

    const char *three[3] = {FS_MAIN, FS_BLUE, FS_ALPHA};
    const char *two[2] = {FS_PAINT, FS_MAIN_120};
    GLuint first = link(VS_130, three, 3), second = link(VS_120, two, 2);
    static float px[SIZE * SIZE * 4];
    int ok = 1;
    for (int f = 0; f < frames; f++) {
        glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        rect(first, 0, SIZE / 2);
        rect(second, SIZE / 2, SIZE);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, px);
    }
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            float fx = x / 64.0f, fy = y / 64.0f;
            float a[4] = {fx + 0.125f, fy, (fx + fy) * 0.5f, fx * 0.25f};
            float b[4] = {fy, fx, 0.5f, 1.0f};
            const float *want = x < SIZE / 2 ? a : b;
            for (int k = 0; k < 4; k++)
                if (fabsf(px[4 * (y * SIZE + x) + k] - want[k]) > 1e-6f) ok = 0;
        }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_multi_fs: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_multi_fs: %d frames, frame %llu, colors %s, %s\n", frames,
           (unsigned long long)fnv(FNV_OFFSET, px, sizeof px), ok ? "ok" : "WRONG",
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return ok ? 0 : 1;
}

/* egl_rlimit: an app that limits its own address space, as piglit's
 * `rlimit` test does, then draws.
 *
 * Sets RLIMIT_AS to 256 MiB (or --limit MIB) first, then makes an EGL
 * surfaceless OpenGL 3.3 core context, a 64x64 (or --size N: NxN) RGBA32F
 * framebuffer of its own and draws one quad per frame whose fragment
 * shader writes a formula of the pixel; checks every pixel and prints
 *
 *   egl_rlimit: limit L MiB, N frames, frame H, pixels ok, <renderer>
 *   egl_rlimit: mappings gldbg G, libGL L, libX11 X
 *
 * (the last line counts the lines of /proc/self/maps naming gldbg's shared
 * memory, libGL.so and libX11.so at exit: an EGL app loads neither library).
 *
 * Exit 1 on a GL error or a wrong pixel.
 *
 * (llvmpipe's rasterizer threads reserve much address space: run it with
 * LP_NUM_THREADS=0 there.)
 *
 *   egl_rlimit [--limit MIB] [--size N] [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_rlimit"
#include "egl_app.h"
#include <string.h>
#include <sys/resource.h>

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() { gl_Position = vec4(a_pos * 2.0 - 1.0, 0.0, 1.0); }\n";

/* Line numbers matter: tests/tests/app_forms.rs breaks on line 5. */
static const char *FS =
    "#version 330 core\n"                                   /* 1 */
    "out vec4 color;\n"                                     /* 2 */
    "void main() {\n"                                       /* 3 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"         /* 4 */
    "    color = vec4(p.y, p.x, 0.5, 1.0);\n"               /* 5 */
    "}\n";                                                  /* 6 */

/* Print how many lines of /proc/self/maps name each object of interest. */
static void count_mappings(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) die("cannot read /proc/self/maps");
    char line[4096];
    int gldbg = 0, gl = 0, x11 = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "memfd:gldbg")) gldbg++;
        if (strstr(line, "/libGL.so")) gl++;
        if (strstr(line, "/libX11.so")) x11++;
    }
    fclose(f);
    printf("egl_rlimit: mappings gldbg %d, libGL %d, libX11 %d\n", gldbg, gl, x11);
}

int main(int argc, char **argv) {
    int frames = 2, size = 64;
    long limit = 256;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--limit") && i + 1 < argc) limit = atol(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) size = atoi(argv[++i]);
        else die("usage: egl_rlimit [--limit MIB] [--size N] [--frames N]");
    }
    struct rlimit rl = {(rlim_t)limit << 20, (rlim_t)limit << 20};
    if (setrlimit(RLIMIT_AS, &rl) != 0) die("setrlimit failed");

    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    egl_app_float_target(size, size);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, VS));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, FS));
    link_program(prog);
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    const float quad[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);

    float *px = malloc(sizeof(float) * 4 * size * size);
    if (!px) die("out of memory");
    for (int f = 0; f < frames; f++) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(prog);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        glReadPixels(0, 0, size, size, GL_RGBA, GL_FLOAT, px);
    }
    int right = 1;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            float want[4] = {y / 64.0f, x / 64.0f, 0.5f, 1.0f};
            for (int k = 0; k < 4; k++)
                if (px[4 * (y * size + x) + k] != want[k]) right = 0;
        }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_rlimit: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_rlimit: limit %ld MiB, %dx%d, %d frames, frame %llu, pixels %s, %s\n", limit,
           size, size, frames,
           (unsigned long long)fnv(FNV_OFFSET, px, sizeof(float) * 4 * size * size),
           right ? "ok" : "WRONG",
           (const char *)glGetString(GL_RENDERER));
    count_mappings();
    egl_app_end(app);
    return right ? 0 : 1;
}

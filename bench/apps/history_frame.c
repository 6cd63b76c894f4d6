/* history_frame: the frame gldbg-bench's (f) takes a pixel history of.
 *
 * EGL surfaceless with a WxH pbuffer (default 1920x1080; RGBA8, depth 24:
 * the window, framebuffer 0), a GL 3.3 core context (GL from libOpenGL),
 * shaders in GLSL 3.30. Each of N frames (default 3) is
 *
 *   glClear(colour | depth), 1,000 glDrawArrays (one 32x32-pixel quad each,
 *   two triangles, depth test GL_LESS on), glFinish, eglSwapBuffers.
 *
 * K of the draws (--touching K, default 0, spread evenly over the 1,000)
 * cover the pixel P = (W/2, H/2): quads around P, the even ones of them
 * each nearer than the last (they pass the depth test), the odd ones
 * behind everything (rejected by depth). The other draws are quads on a
 * grid of 40x25 cells, each quad 8 pixels in from its cell's left edge,
 * so none covers a pixel whose x is a multiple of W/40 (P's is).
 *
 * Per frame it prints
 *
 *   history_frame: frame F ms T
 *
 * T: CPU + GPU time of the frame, from before the clear to after the
 * glFinish (CLOCK_MONOTONIC), the swap not included. At start it prints
 * `history_frame: WxH, 1000 draws, K touching pixel X,Y`. Exits 0; 1 on a
 * GL error.
 *
 *   history_frame [--size WxH] [--touching K] [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

#define DRAWS 1000
#define COLUMNS 40
#define ROWS 25
#define QUAD 32

static const char *HF_VS =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec3 a_color;\n"
    "flat out vec3 v_color;\n"
    "void main() {\n"
    "    v_color = a_color;\n"
    "    gl_Position = vec4(a_pos, 1.0);\n"
    "}\n";

static const char *HF_FS =
    "#version 330 core\n"
    "flat in vec3 v_color;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "    color = vec4(v_color, 1.0);\n"
    "}\n";

static void die(const char *what) {
    fprintf(stderr, "history_frame: %s\n", what);
    exit(1);
}

static GLuint shader(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) die("a shader did not compile");
    return s;
}

/* A current 3.3 core context on a WxH RGBA8 / D24 pbuffer. */
static EGLSurface start(int w, int h, EGLDisplay *dpy_out) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) die("no EGL display");
    eglBindAPI(EGL_OPENGL_API);
    const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_DEPTH_SIZE, 24,
                                EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglChooseConfig(dpy, cfg_attrs, &cfg, 1, &n) || n < 1) die("no EGL config");
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
    if (ctx == EGL_NO_CONTEXT) die("no OpenGL 3.3 core context");
    const EGLint pb_attrs[] = {EGL_WIDTH, w, EGL_HEIGHT, h, EGL_NONE};
    EGLSurface surface = eglCreatePbufferSurface(dpy, cfg, pb_attrs);
    if (surface == EGL_NO_SURFACE) die("no pbuffer surface");
    if (!eglMakeCurrent(dpy, surface, surface, ctx)) die("eglMakeCurrent failed");
    *dpy_out = dpy;
    return surface;
}

/* Draw i's quad: 6 vertices of (x, y, z, r, g, b), pixel corners given. */
static void quad(float *v, int w, int h, int x0, int y0, float z, const float rgb[3]) {
    float nx0 = 2.0f * x0 / w - 1, nx1 = 2.0f * (x0 + QUAD) / w - 1;
    float ny0 = 2.0f * y0 / h - 1, ny1 = 2.0f * (y0 + QUAD) / h - 1;
    const float c[6][2] = {{nx0, ny0}, {nx1, ny0}, {nx1, ny1},
                           {nx0, ny0}, {nx1, ny1}, {nx0, ny1}};
    for (int k = 0; k < 6; k++) {
        float *p = v + k * 6;
        p[0] = c[k][0];
        p[1] = c[k][1];
        p[2] = z;
        memcpy(p + 3, rgb, sizeof(float) * 3);
    }
}

/* The 1,000 quads: K around (px, py), spread evenly, the others on the grid. */
static float *scene(int w, int h, int touching, int px, int py) {
    float *v = malloc(sizeof(float) * 6 * 6 * DRAWS);
    if (!v) die("out of memory");
    int cw = w / COLUMNS, ch = h / ROWS, j = 0;
    for (int i = 0; i < DRAWS; i++) {
        /* Draw i touches when the running count of K/1000 steps up. */
        int touches = (i + 1) * touching / DRAWS > i * touching / DRAWS;
        float rgb[3] = {(i % 7) / 6.0f, (i % 11) / 10.0f, (i % 13) / 12.0f};
        if (touches) {
            float z = j % 2 == 0 ? 0.5f - 0.004f * j : 0.99f;
            quad(v + i * 36, w, h, px - QUAD / 2 + j % 8, py - QUAD / 2 + j % 5, z, rgb);
            j++;
        } else {
            int c = i % COLUMNS, r = (i / COLUMNS) % ROWS;
            float z = 0.9f - 0.0015f * (i % 500);
            quad(v + i * 36, w, h, c * cw + 8, r * ch + 4, z, rgb);
        }
    }
    return v;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    int w = 1920, h = 1080, touching = 0, frames = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc &&
            sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            i++;
        else if (!strcmp(argv[i], "--touching") && i + 1 < argc)
            touching = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else
            die("usage: history_frame [--size WxH] [--touching K] [--frames N]");
    }
    if (w < COLUMNS * (QUAD + 8) || h < ROWS * (QUAD + 4)) die("--size: at least 1600x900");
    if (touching < 0 || touching > DRAWS) die("--touching: 0 to 1000");
    if (frames < 1) die("--frames: at least 1");
    int px = w / COLUMNS * (COLUMNS / 2), py = h / 2;
    EGLDisplay dpy;
    EGLSurface surface = start(w, h, &dpy);

    GLuint prog = glCreateProgram();
    glAttachShader(prog, shader(GL_VERTEX_SHADER, HF_VS));
    glAttachShader(prog, shader(GL_FRAGMENT_SHADER, HF_FS));
    glLinkProgram(prog);
    glUseProgram(prog);

    float *v = scene(w, h, touching, px, py);
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(float) * 36 * DRAWS, v, GL_STATIC_DRAW);
    free(v);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), 0);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                          (const void *)(3 * sizeof(float)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glViewport(0, 0, w, h);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
    glClearDepth(1.0);
    printf("history_frame: %dx%d, %d draws, %d touching pixel %d,%d\n", w, h, DRAWS, touching,
           px, py);
    fflush(stdout);

    for (int f = 1; f <= frames; f++) {
        double t0 = now_ms();
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        for (int i = 0; i < DRAWS; i++) glDrawArrays(GL_TRIANGLES, i * 6, 6);
        glFinish();
        double t1 = now_ms();
        if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
        printf("history_frame: frame %d ms %.3f\n", f, t1 - t0);
        fflush(stdout);
        eglSwapBuffers(dpy, surface);
    }
    return 0;
}

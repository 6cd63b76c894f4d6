/* egl_history: one frame with every kind of pixel event, for gldbg's pixel
 * history (issue 16): clears, a render-to-texture pass composited into the
 * window, depth and stencil rejects, a scissored draw, a draw that
 * discards, three blend modes, one draw covering a pixel twice, a blit, a
 * scissored glClearBufferfv into the texture and a scissored glClear.
 *
 *   egl_history [--frames N] [--probe X,Y]... [--probe-tex X,Y]...
 *
 * EGL with a 64x64 pbuffer surface (RGBA8, depth 24, stencil 8: the
 * "window", framebuffer 0), an OpenGL 4.3 core context, shaders in GLSL
 * 3.30, GL from libOpenGL. The render-to-texture target is a framebuffer
 * object of the app: a 32x32 GL_RGBA8 texture (NEAREST) and a
 * DEPTH_COMPONENT24 renderbuffer, no stencil. At start the app prints
 *
 *   egl_history: rtt texture T framebuffer F
 *
 * Each of N frames (default 2) runs the ops of SCENE below in order, the
 * same every frame (frame 2 equals frame 1), then reads the window's
 * colour (RGBA8) and depth-stencil (UNSIGNED_INT_24_8) and prints
 *
 *   egl_history: frame K hash H
 *
 * (FNV-1a of both: bit-exact), then eglSwapBuffers. In the last frame,
 * after the hash and before the swap, each --probe prints the window
 * pixel (glReadPixels) and each --probe-tex the texel of the texture
 * (glGetTexImage):
 *
 *   probe X Y R G B A DEPTH24 STENCIL
 *   probe-tex X Y R G B A
 *
 * Geometry: every draw is axis-aligned rectangles with corners on pixel
 * boundaries, two counter-clockwise triangles each, (x0,y0) (x1,y0)
 * (x1,y1) then (x0,y0) (x1,y1) (x0,y1): rectangle i of a draw is
 * primitives 2i (below its diagonal) and 2i+1 (above). Every vertex of a
 * rectangle has the same NDC z and the same colour (a flat attribute,
 * bytes / 255 as floats: stored exactly by RGBA8). The window depth of z is
 * z * 0.5 + 0.5. Clear colours are floats; RGBA8 stores round(v * 255).
 *
 * The fragment shader (FS) outputs the colour (mode PLAIN), discards
 * fragments of even gl_FragCoord.x (mode DISCARD) or samples the texture
 * NEAREST at (gl_FragCoord.xy - u_origin) / 32 (mode COMPOSITE: texel
 * exact, one texel per pixel).
 *
 * tests/tests/history/scene.rs mirrors SCENE for the CPU model of the frame;
 * tests/tests/history.rs checks the two agree at every pixel (--probe).
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_history"
/* egl_app.h's context helpers are unused: this app needs a pbuffer config. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "egl_app.h"

#include <string.h>

#define SIZE 64
#define RTT_SIZE 32

enum target { WINDOW, RTT };
enum kind { CLEAR, CLEAR_BUFFER, DRAW, BLIT };
enum mode { PLAIN, DISCARD, COMPOSITE };
enum stencil { ST_OFF, ST_WRITE_1, ST_EQUAL_1 };
enum blend { BL_OFF, BL_ALPHA, BL_ADD, BL_MIN };

struct rect {
    int x0, y0, x1, y1; /* pixels, [x0, x1) x [y0, y1) */
    float z;            /* NDC */
    unsigned char rgba[4];
};

struct op {
    enum kind kind;
    enum target target;
    /* CLEAR / CLEAR_BUFFER: colour (floats), and for CLEAR whether depth
     * (to 1.0) and stencil (to 0) are cleared too. CLEAR_BUFFER is
     * glClearBufferfv(GL_COLOR, 0): only used on RTT (Mesa's llvmpipe
     * ignores it on a pbuffer's framebuffer 0). */
    float clear[4];
    int clear_depth_stencil;
    /* DRAW */
    int nrects;
    struct rect rects[2];
    enum mode mode;
    int depth_less; /* GL_DEPTH_TEST with GL_LESS (depth writes on) */
    enum stencil stencil;
    enum blend blend;
    /* Scissor box x, y, w, h (all 0: scissor test off). */
    int scissor[4];
    /* BLIT: RTT source rectangle x0, y0 and window destination x0, y0 of a
     * BLIT_SIZE square, NEAREST, colour only. */
    int src[2], dst[2];
};

#define BLIT_SIZE 16
/* The composite's lower-left window pixel. */
#define COMPOSITE_X 0
#define COMPOSITE_Y 32

/* The frame. Draw numbers (from 1 at the frame's start) in comments. */
static const struct op SCENE[] = {
    /* The window: colour (0.2, 0.4, 0.6, 1.0) = (51, 102, 153, 255), depth 1, stencil 0. */
    {.kind = CLEAR, .target = WINDOW, .clear = {0.2f, 0.4f, 0.6f, 1.0f}, .clear_depth_stencil = 1},
    /* The texture: colour (0, 0, 0.2, 1) = (0, 0, 51, 255), depth 1. */
    {.kind = CLEAR, .target = RTT, .clear = {0.0f, 0.0f, 0.2f, 1.0f}, .clear_depth_stencil = 1},
    /* Cyan into texels [0,8)^2 (glClearBufferfv, scissored). */
    {.kind = CLEAR_BUFFER, .target = RTT, .clear = {0.0f, 1.0f, 1.0f, 1.0f},
     .scissor = {0, 0, 8, 8}},
    /* draw 1: R1 at depth 0.5. */
    {.kind = DRAW, .target = RTT, .nrects = 1, .depth_less = 1,
     .rects = {{4, 4, 20, 20, 0.0f, {200, 40, 0, 255}}}},
    /* draw 2: R2 at depth 0.75, behind R1: rejected by depth over [12,20)^2. */
    {.kind = DRAW, .target = RTT, .nrects = 1, .depth_less = 1,
     .rects = {{12, 12, 28, 28, 0.5f, {0, 180, 60, 255}}}},
    /* draw 3: the texture composited into the window's top-left quarter. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .mode = COMPOSITE,
     .rects = {{COMPOSITE_X, COMPOSITE_Y, COMPOSITE_X + RTT_SIZE, COMPOSITE_Y + RTT_SIZE, 0.0f,
                {0, 0, 0, 0}}}},
    /* draw 4: D1 at depth 0.25. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .depth_less = 1,
     .rects = {{34, 34, 50, 50, -0.5f, {250, 10, 10, 255}}}},
    /* draw 5: D2 at depth 0.5, behind D1: rejected by depth over [42,50)^2. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .depth_less = 1,
     .rects = {{42, 42, 58, 58, 0.0f, {10, 250, 10, 255}}}},
    /* draw 6: two rectangles in one call: A (primitives 0, 1) at depth 0.2,
     * then B (primitives 2, 3) at depth 0.7, rejected by depth where A is. */
    {.kind = DRAW, .target = WINDOW, .nrects = 2, .depth_less = 1,
     .rects = {{18, 18, 30, 30, -0.6f, {240, 240, 20, 255}},
               {24, 20, 32, 28, 0.4f, {20, 240, 240, 255}}}},
    /* draw 7: S1 writes stencil 1 (ALWAYS, REPLACE) and its colour. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .stencil = ST_WRITE_1,
     .rects = {{2, 2, 10, 10, 0.0f, {128, 0, 128, 255}}}},
    /* draw 8: S2 with stencil EQUAL 1: rejected by stencil outside S1. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .stencil = ST_EQUAL_1,
     .rects = {{6, 6, 16, 16, 0.0f, {255, 128, 0, 255}}}},
    /* draw 9: scissor box [20,26) x [4,10) inside the rectangle. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .scissor = {20, 4, 6, 6},
     .rects = {{18, 2, 30, 14, 0.0f, {60, 60, 220, 255}}}},
    /* draw 10: discards fragments of even x. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .mode = DISCARD,
     .rects = {{2, 18, 16, 30, 0.0f, {230, 230, 230, 255}}}},
    /* draw 11: blend ADD, SRC_ALPHA, ONE_MINUS_SRC_ALPHA (alpha 102/255 = 0.4). */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .blend = BL_ALPHA,
     .rects = {{34, 2, 42, 14, 0.0f, {255, 0, 0, 102}}}},
    /* draw 12: blend ADD, ONE, ONE (green saturates). */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .blend = BL_ADD,
     .rects = {{44, 2, 52, 14, 0.0f, {100, 200, 20, 0}}}},
    /* draw 13: blend MIN. */
    {.kind = DRAW, .target = WINDOW, .nrects = 1, .blend = BL_MIN,
     .rects = {{54, 2, 62, 14, 0.0f, {20, 200, 100, 128}}}},
    /* Texels [0,16)^2 of the texture to window [44,60) x [16,32). */
    {.kind = BLIT, .target = WINDOW, .src = {0, 0}, .dst = {44, 16}},
    /* Yellow into window [56,64)^2 (over D2's corner): glClear, colour only,
     * scissored. */
    {.kind = CLEAR, .target = WINDOW, .clear = {1.0f, 1.0f, 0.0f, 1.0f},
     .scissor = {56, 56, 8, 8}},
};
#define NOPS ((int)(sizeof SCENE / sizeof SCENE[0]))

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec4 a_color;\n"
    "flat out vec4 v_color;\n"
    "void main() {\n"
    "    v_color = a_color;\n"
    "    gl_Position = vec4(a_pos, 1.0);\n"
    "}\n";

/* Line numbers matter: tests/tests/history.rs breaks at lines 12 and 14. */
static const char *FS =
    "#version 330 core\n"                                              /*  1 */
    "uniform int u_mode;\n"                                            /*  2 */
    "uniform sampler2D u_tex;\n"                                       /*  3 */
    "uniform vec2 u_origin;\n"                                         /*  4 */
    "flat in vec4 v_color;\n"                                          /*  5 */
    "out vec4 frag;\n"                                                 /*  6 */
    "void main() {\n"                                                  /*  7 */
    "    vec4 c = v_color;\n"                                          /*  8 */
    "    if (u_mode == 1 && int(gl_FragCoord.x) % 2 == 0) discard;\n"  /*  9 */
    "    if (u_mode == 2) {\n"                                         /* 10 */
    "        vec2 uv = (gl_FragCoord.xy - u_origin) / 32.0;\n"         /* 11 */
    "        c = texture(u_tex, uv);\n"                                /* 12 */
    "    }\n"                                                          /* 13 */
    "    frag = c;\n"                                                  /* 14 */
    "}\n";                                                             /* 15 */

/* 7 floats a vertex: NDC x, y, z, colour r, g, b, a. */
#define VERTEX_FLOATS 7
static float vertices[NOPS * 12 * VERTEX_FLOATS];
static int first_vertex[NOPS];

static float ndc(int pixel, int size) { return (float)pixel / (float)size * 2.0f - 1.0f; }

/* Builds `vertices` from SCENE; first_vertex[i] for draw op i. */
static int build_vertices(void) {
    int n = 0;
    for (int i = 0; i < NOPS; i++) {
        const struct op *o = &SCENE[i];
        if (o->kind != DRAW) continue;
        first_vertex[i] = n;
        int size = o->target == RTT ? RTT_SIZE : SIZE;
        for (int r = 0; r < o->nrects; r++) {
            const struct rect *q = &o->rects[r];
            const int corners[6][2] = {{q->x0, q->y0}, {q->x1, q->y0}, {q->x1, q->y1},
                                       {q->x0, q->y0}, {q->x1, q->y1}, {q->x0, q->y1}};
            for (int v = 0; v < 6; v++) {
                float *out = &vertices[n * VERTEX_FLOATS];
                out[0] = ndc(corners[v][0], size);
                out[1] = ndc(corners[v][1], size);
                out[2] = q->z;
                for (int c = 0; c < 4; c++) out[3 + c] = (float)q->rgba[c] / 255.0f;
                n++;
            }
        }
    }
    return n;
}

struct gl_objects {
    GLuint program, vao, vbo, texture, fbo, depth_rb;
    GLint mode, tex, origin;
};

static void bind_target(const struct gl_objects *g, enum target t) {
    glBindFramebuffer(GL_FRAMEBUFFER, t == RTT ? g->fbo : 0);
    int size = t == RTT ? RTT_SIZE : SIZE;
    glViewport(0, 0, size, size);
}

static void set_scissor(const int box[4]) {
    if (box[2] > 0) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(box[0], box[1], box[2], box[3]);
    } else {
        glDisable(GL_SCISSOR_TEST);
    }
}

static void draw_state(const struct op *o) {
    if (o->depth_less) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
    } else {
        glDisable(GL_DEPTH_TEST);
    }
    if (o->stencil == ST_OFF) {
        glDisable(GL_STENCIL_TEST);
    } else {
        glEnable(GL_STENCIL_TEST);
        glStencilFunc(o->stencil == ST_WRITE_1 ? GL_ALWAYS : GL_EQUAL, 1, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, o->stencil == ST_WRITE_1 ? GL_REPLACE : GL_KEEP);
    }
    if (o->blend == BL_OFF) {
        glDisable(GL_BLEND);
    } else {
        glEnable(GL_BLEND);
        glBlendEquation(o->blend == BL_MIN ? GL_MIN : GL_FUNC_ADD);
        if (o->blend == BL_ALPHA)
            glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        else
            glBlendFunc(GL_ONE, GL_ONE);
    }
    set_scissor(o->scissor);
}

static void run_op(const struct gl_objects *g, int i) {
    const struct op *o = &SCENE[i];
    switch (o->kind) {
    case CLEAR:
        bind_target(g, o->target);
        set_scissor(o->scissor);
        glClearColor(o->clear[0], o->clear[1], o->clear[2], o->clear[3]);
        glClearDepth(1.0);
        glClearStencil(0);
        glClear(GL_COLOR_BUFFER_BIT |
                (o->clear_depth_stencil ? GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT : 0));
        glDisable(GL_SCISSOR_TEST);
        break;
    case CLEAR_BUFFER:
        bind_target(g, o->target);
        set_scissor(o->scissor);
        glClearBufferfv(GL_COLOR, 0, o->clear);
        glDisable(GL_SCISSOR_TEST);
        break;
    case DRAW:
        bind_target(g, o->target);
        draw_state(o);
        glUniform1i(g->mode, (GLint)o->mode);
        glDrawArrays(GL_TRIANGLES, first_vertex[i], 6 * o->nrects);
        break;
    case BLIT:
        glDisable(GL_SCISSOR_TEST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        glBlitFramebuffer(o->src[0], o->src[1], o->src[0] + BLIT_SIZE, o->src[1] + BLIT_SIZE,
                          o->dst[0], o->dst[1], o->dst[0] + BLIT_SIZE, o->dst[1] + BLIT_SIZE,
                          GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        break;
    }
}

/* Back to the state the frame starts in: framebuffer 0, every test off. */
static void end_state(void) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, SIZE, SIZE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glBlendEquation(GL_FUNC_ADD);
}

static struct gl_objects make_objects(void) {
    struct gl_objects g;
    g.program = glCreateProgram();
    glAttachShader(g.program, compile(GL_VERTEX_SHADER, VS));
    glAttachShader(g.program, compile(GL_FRAGMENT_SHADER, FS));
    link_program(g.program);
    glUseProgram(g.program);
    g.mode = glGetUniformLocation(g.program, "u_mode");
    g.tex = glGetUniformLocation(g.program, "u_tex");
    g.origin = glGetUniformLocation(g.program, "u_origin");
    glUniform1i(g.tex, 0);
    glUniform2f(g.origin, (float)COMPOSITE_X, (float)COMPOSITE_Y);

    int n = build_vertices();
    glGenVertexArrays(1, &g.vao);
    glBindVertexArray(g.vao);
    glGenBuffers(1, &g.vbo);
    glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * VERTEX_FLOATS * sizeof(float)), vertices,
                 GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, VERTEX_FLOATS * sizeof(float), (void *)0);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, VERTEX_FLOATS * sizeof(float),
                          (void *)(3 * sizeof(float)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);

    glGenTextures(1, &g.texture);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g.texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, RTT_SIZE, RTT_SIZE, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenRenderbuffers(1, &g.depth_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, g.depth_rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, RTT_SIZE, RTT_SIZE);
    glGenFramebuffers(1, &g.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, g.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g.texture, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, g.depth_rb);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        die("render-to-texture framebuffer incomplete");
    end_state();
    return g;
}

/* A current 4.3 core context on a 64x64 RGBA8 / D24 / S8 pbuffer. */
static EGLSurface start(EGLDisplay *dpy_out) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) die("eglInitialize failed");
    eglBindAPI(EGL_OPENGL_API);
    const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                EGL_OPENGL_BIT,   EGL_RED_SIZE,    8,
                                EGL_GREEN_SIZE,   8,               EGL_BLUE_SIZE,
                                8,                EGL_ALPHA_SIZE,  8,
                                EGL_DEPTH_SIZE,   24,              EGL_STENCIL_SIZE,
                                8,                EGL_NONE};
    EGLConfig cfgs[64];
    EGLint n = 0;
    if (!eglChooseConfig(dpy, cfg_attrs, cfgs, 64, &n) || n < 1) die("no EGL config");
    /* Exactly RGBA8 D24 S8 (eglChooseConfig also lists larger ones). */
    EGLConfig cfg = NULL;
    for (EGLint i = 0; i < n && !cfg; i++) {
        EGLint r, gr, b, a, d, s;
        eglGetConfigAttrib(dpy, cfgs[i], EGL_RED_SIZE, &r);
        eglGetConfigAttrib(dpy, cfgs[i], EGL_GREEN_SIZE, &gr);
        eglGetConfigAttrib(dpy, cfgs[i], EGL_BLUE_SIZE, &b);
        eglGetConfigAttrib(dpy, cfgs[i], EGL_ALPHA_SIZE, &a);
        eglGetConfigAttrib(dpy, cfgs[i], EGL_DEPTH_SIZE, &d);
        eglGetConfigAttrib(dpy, cfgs[i], EGL_STENCIL_SIZE, &s);
        if (r == 8 && gr == 8 && b == 8 && a == 8 && d == 24 && s == 8) cfg = cfgs[i];
    }
    if (!cfg) die("no RGBA8 D24 S8 EGL config");
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
    if (ctx == EGL_NO_CONTEXT) die("no OpenGL 4.3 core context");
    const EGLint pb_attrs[] = {EGL_WIDTH, SIZE, EGL_HEIGHT, SIZE, EGL_NONE};
    EGLSurface surface = eglCreatePbufferSurface(dpy, cfg, pb_attrs);
    if (surface == EGL_NO_SURFACE) die("no pbuffer surface");
    if (!eglMakeCurrent(dpy, surface, surface, ctx)) die("eglMakeCurrent failed");
    *dpy_out = dpy;
    return surface;
}

struct point {
    int x, y;
};

static struct point parse_point(const char *s) {
    struct point p;
    if (sscanf(s, "%d,%d", &p.x, &p.y) != 2) die("a point is X,Y");
    return p;
}

/* The window's colour and depth-stencil, then the probes of the last frame. */
static void read_back(const struct gl_objects *g, int frame, int last, const struct point *probes,
                      int nprobes, const struct point *texels, int ntexels) {
    static unsigned char color[SIZE * SIZE * 4];
    static GLuint depth_stencil[SIZE * SIZE];
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_UNSIGNED_BYTE, color);
    glReadPixels(0, 0, SIZE, SIZE, GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8, depth_stencil);
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    uint64_t h = fnv(fnv(FNV_OFFSET, color, sizeof color), depth_stencil, sizeof depth_stencil);
    printf(APP_NAME ": frame %d hash %016llx\n", frame, (unsigned long long)h);
    if (!last) return;
    for (int i = 0; i < nprobes; i++) {
        struct point p = probes[i];
        if (p.x < 0 || p.y < 0 || p.x >= SIZE || p.y >= SIZE) die("--probe outside the window");
        const unsigned char *c = &color[(p.y * SIZE + p.x) * 4];
        GLuint ds = depth_stencil[p.y * SIZE + p.x];
        printf("probe %d %d %u %u %u %u %u %u\n", p.x, p.y, c[0], c[1], c[2], c[3], ds >> 8,
               ds & 0xff);
    }
    if (ntexels > 0) {
        static unsigned char texels_rgba[RTT_SIZE * RTT_SIZE * 4];
        glBindTexture(GL_TEXTURE_2D, g->texture);
        glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels_rgba);
        for (int i = 0; i < ntexels; i++) {
            struct point p = texels[i];
            if (p.x < 0 || p.y < 0 || p.x >= RTT_SIZE || p.y >= RTT_SIZE)
                die("--probe-tex outside the texture");
            const unsigned char *c = &texels_rgba[(p.y * RTT_SIZE + p.x) * 4];
            printf("probe-tex %d %d %u %u %u %u\n", p.x, p.y, c[0], c[1], c[2], c[3]);
        }
    }
    fflush(stdout);
}

int main(int argc, char **argv) {
    int frames = 2;
    struct point *probes = calloc((size_t)argc, sizeof *probes);
    struct point *texels = calloc((size_t)argc, sizeof *texels);
    int nprobes = 0, ntexels = 0;
    if (!probes || !texels) die("out of memory");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--probe") && i + 1 < argc) {
            probes[nprobes++] = parse_point(argv[++i]);
        } else if (!strcmp(argv[i], "--probe-tex") && i + 1 < argc) {
            texels[ntexels++] = parse_point(argv[++i]);
        } else {
            die("usage: egl_history [--frames N] [--probe X,Y]... [--probe-tex X,Y]...");
        }
    }
    if (frames < 1) die("--frames: at least 1");

    EGLDisplay dpy;
    EGLSurface surface = start(&dpy);
    struct gl_objects g = make_objects();
    printf(APP_NAME ": rtt texture %u framebuffer %u\n", g.texture, g.fbo);
    fflush(stdout);

    for (int f = 1; f <= frames; f++) {
        for (int i = 0; i < NOPS; i++) run_op(&g, i);
        end_state();
        read_back(&g, f, f == frames, probes, nprobes, texels, ntexels);
        eglSwapBuffers(dpy, surface);
    }
    printf(APP_NAME ": frames %d\n", frames);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroySurface(dpy, surface);
    eglTerminate(dpy);
    free(probes);
    free(texels);
    return 0;
}

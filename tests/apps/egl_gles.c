/* egl_gles: headless OpenGL ES test app for gldbg. An EGL surfaceless
 * OpenGL ES context (EGL_OPENGL_ES_API; GL ES functions linked from
 * libGLESv2, as ES apps do), rendering into a framebuffer object of its own.
 *
 *   egl_gles --es 2    an ES 2.0 context asked for; GLSL ES 1.00 shaders
 *                      without #version (attribute/varying, gl_FragColor),
 *                      as es2gears and glmark2-es2 write them
 *   egl_gles --es 3    an ES 3.0 context; GLSL ES 3.00 (in/out, uint, ivec2)
 *   egl_gles --es 31   an ES 3.1 context; a GLSL ES 3.10 compute shader
 *                      writing a storage buffer (dispatch 4x3 groups of 4x2;
 *                      --dispatches N times, default 1, each result read
 *                      through glMapBufferRange and checked);
 *                      with --image, one writing an R32F image instead
 *   egl_gles --es 32   an ES 3.2 context; every stage (GLSL ES 3.20 vertex,
 *                      tess-control, tess-eval, geometry, fragment)
 *
 * The draw: SHADE_QUAD of shade_common.h into a 64x48 RGBA8 texture, frame
 * after frame (--frames N, default 2; u_gain = shade_gain(frame)); the
 * fragment shaders' shade() is SHADE_FS's (lines 4-16 the same). Prints
 * `context <GL_VERSION>`, then `checksum H` (FNV-1a 64 of the last frame's
 * RGBA8 pixels, or of the storage buffer read through glMapBufferRange).
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shade_common.h"

#define APP_NAME "egl_gles"

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

/* GLSL ES 1.00: no #version (the language of an ES context's shader without one). */
static const char *const GLES2_VS =
    "attribute vec2 a_pos;\n"                                      /*  1 */
    "varying vec2 v_uv;\n"                                         /*  2 */
    "void main() {\n"                                              /*  3 */
    "    v_uv = a_pos * 0.5 + 0.5;\n"                              /*  4 */
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"                   /*  5 */
    "}\n";                                                         /*  6 */

static const char *const GLES2_FS =
    "precision highp float;\n"                                     /*  1 */
    "uniform float u_gain;\n"                                      /*  2 */
    "varying vec2 v_uv;\n"                                         /*  3 */
    "float shade(vec2 p) {\n"                                      /*  4 */
    "    float acc = 0.0;\n"                                       /*  5 */
    "    for (int i = 0; i < 4; ++i) {\n"                          /*  6 */
    "        float t = float(i) * 16.0;\n"                         /*  7 */
    "        if (p.x > t) {\n"                                     /*  8 */
    "            acc += 0.25 * float(i) + p.y * u_gain;\n"         /*  9 */
    "        } else {\n"                                           /* 10 */
    "            acc -= 0.1;\n"                                    /* 11 */
    "        }\n"                                                  /* 12 */
    "    }\n"                                                      /* 13 */
    "    float v = acc * 0.5;\n"                                   /* 14 */
    "    return v;\n"                                              /* 15 */
    "}\n"                                                          /* 16 */
    "void main() {\n"                                              /* 17 */
    "    vec2 p = gl_FragCoord.xy;\n"                              /* 18 */
    "    bool left = p.x < 32.0;\n"                                /* 19 */
    "    float s = shade(p);\n"                                    /* 20 */
    "    gl_FragColor = vec4(fract(s), v_uv, left ? 1.0 : 0.5);\n" /* 21 */
    "}\n";                                                         /* 22 */

static const char *const GLES3_VS =
    "#version 300 es\n"                                            /*  1 */
    "layout(location = 0) in vec2 a_pos;\n"                        /*  2 */
    "out vec2 v_uv;\n"                                             /*  3 */
    "void main() {\n"                                              /*  4 */
    "    v_uv = a_pos * 0.5 + 0.5;\n"                              /*  5 */
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"                   /*  6 */
    "}\n";                                                         /*  7 */

static const char *const GLES3_FS =
    "#version 300 es\n"                                            /*  1 */
    "precision highp float; uniform float u_gain;\n"               /*  2 */
    "in vec2 v_uv; out vec4 frag;\n"                               /*  3 */
    "float shade(vec2 p) {\n"                                      /*  4 */
    "    float acc = 0.0;\n"                                       /*  5 */
    "    for (int i = 0; i < 4; ++i) {\n"                          /*  6 */
    "        float t = float(i) * 16.0;\n"                         /*  7 */
    "        if (p.x > t) {\n"                                     /*  8 */
    "            acc += 0.25 * float(i) + p.y * u_gain;\n"         /*  9 */
    "        } else {\n"                                           /* 10 */
    "            acc -= 0.1;\n"                                    /* 11 */
    "        }\n"                                                  /* 12 */
    "    }\n"                                                      /* 13 */
    "    float v = acc * 0.5;\n"                                   /* 14 */
    "    return v;\n"                                              /* 15 */
    "}\n"                                                          /* 16 */
    "void main() {\n"                                              /* 17 */
    "    vec2 p = gl_FragCoord.xy;\n"                              /* 18 */
    "    uint code = uint(p.x) * 16u + uint(p.y);\n"               /* 19 */
    "    float s = shade(p);\n"                                    /* 20 */
    "    ivec2 cell = ivec2(p) / 8;\n"                             /* 21 */
    "    frag = vec4(fract(s), v_uv.x, float(code % 256u) * 0.00390625, float(cell.x + cell.y) * 0.0625);\n" /* 22 */
    "}\n";                                                         /* 23 */

/* values[y * 16 + x] = (x * u_scale)^2 + y over a 16 x 6 grid. */
static const char *const GLES31_CS =
    "#version 310 es\n"                                                    /*  1 */
    "layout(local_size_x = 4, local_size_y = 2) in;\n"                     /*  2 */
    "layout(std430, binding = 0) buffer Out { highp float values[]; };\n"  /*  3 */
    "uniform float u_scale;\n"                                             /*  4 */
    "void main() {\n"                                                      /*  5 */
    "    uint i = gl_GlobalInvocationID.y * 16u + gl_GlobalInvocationID.x;\n" /*  6 */
    "    float x = float(gl_GlobalInvocationID.x) * u_scale;\n"            /*  7 */
    "    float y = x * x + float(gl_GlobalInvocationID.y);\n"              /*  8 */
    "    values[i] = y;\n"                                                 /*  9 */
    "}\n";                                                                 /* 10 */

/* --image: a compute shader writing an image (GL ES cannot copy it aside). */
static const char *const GLES31_CS_IMAGE =
    "#version 310 es\n"
    "layout(local_size_x = 4, local_size_y = 2) in;\n"
    "layout(r32f, binding = 0) uniform highp writeonly image2D u_img;\n"
    "void main() {\n"
    "    ivec2 g = ivec2(gl_GlobalInvocationID.xy);\n"
    "    imageStore(u_img, g, vec4(float(g.x + g.y)));\n"
    "}\n";

/* --es 32: the ES 3.2 pipeline of every stage over SHADE_QUAD's two
 * triangles as patches of 3. */
static const char *const GLES32_VS =
    "#version 320 es\n"                                               /*  1 */
    "layout(location = 0) in vec2 a_pos;\n"                           /*  2 */
    "void main() {\n"                                                 /*  3 */
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"                      /*  4 */
    "}\n";                                                            /*  5 */

static const char *const GLES32_TCS =
    "#version 320 es\n"                                               /*  1 */
    "layout(vertices = 3) out;\n"                                     /*  2 */
    "out highp float c_weight[];\n"                                   /*  3 */
    "void main() {\n"                                                 /*  4 */
    "    float k = float(gl_InvocationID + 1) + float(gl_PrimitiveID) * 10.0;\n" /*  5 */
    "    c_weight[gl_InvocationID] = k;\n"                            /*  6 */
    "    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n" /*  7 */
    "    gl_TessLevelInner[0] = 2.0;\n"                               /*  8 */
    "    gl_TessLevelOuter[0] = 2.0;\n"                               /*  9 */
    "    gl_TessLevelOuter[1] = 2.0;\n"                               /* 10 */
    "    gl_TessLevelOuter[2] = 2.0;\n"                               /* 11 */
    "}\n";                                                            /* 12 */

static const char *const GLES32_TES =
    "#version 320 es\n"                                               /*  1 */
    "layout(triangles, equal_spacing, ccw) in;\n"                     /*  2 */
    "in highp float c_weight[];\n"                                    /*  3 */
    "out highp float te_value;\n"                                     /*  4 */
    "void main() {\n"                                                 /*  5 */
    "    vec3 c = gl_TessCoord;\n"                                    /*  6 */
    "    float w = c.x * c_weight[0] + c.y * c_weight[1] + c.z * c_weight[2];\n" /*  7 */
    "    te_value = w;\n"                                             /*  8 */
    "    gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position + c.z * gl_in[2].gl_Position;\n" /*  9 */
    "}\n";                                                            /* 10 */

static const char *const GLES32_GS =
    "#version 320 es\n"                                               /*  1 */
    "layout(triangles) in;\n"                                         /*  2 */
    "layout(triangle_strip, max_vertices = 3) out;\n"                 /*  3 */
    "in highp float te_value[];\n"                                    /*  4 */
    "out highp float g_value;\n"                                      /*  5 */
    "void main() {\n"                                                 /*  6 */
    "    for (int i = 0; i < 3; ++i) {\n"                             /*  7 */
    "        float s = te_value[i] * 2.0 + float(gl_PrimitiveIDIn);\n" /*  8 */
    "        g_value = s;\n"                                          /*  9 */
    "        gl_Position = gl_in[i].gl_Position;\n"                   /* 10 */
    "        EmitVertex();\n"                                         /* 11 */
    "    }\n"                                                         /* 12 */
    "    EndPrimitive();\n"                                           /* 13 */
    "}\n";                                                            /* 14 */

static const char *const GLES32_FS =
    "#version 320 es\n"                                               /*  1 */
    "precision highp float;\n"                                        /*  2 */
    "in float g_value;\n"                                             /*  3 */
    "out vec4 frag;\n"                                                /*  4 */
    "void main() {\n"                                                 /*  5 */
    "    float f = g_value * 0.03125;\n"                              /*  6 */
    "    frag = vec4(f, 0.0, 0.0, 1.0);\n"                            /*  7 */
    "}\n";                                                            /*  8 */

#define CS_VALUES (16 * 6)
#define CS_SCALE 0.375f

static void die(const char *what) {
    fprintf(stderr, APP_NAME ": %s\n", what);
    exit(1);
}

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static GLuint compile(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, APP_NAME ": shader: %s\n", log);
        exit(1);
    }
    return s;
}

static GLuint link(GLuint a, GLuint b) {
    GLuint p = glCreateProgram();
    glAttachShader(p, a);
    if (b) glAttachShader(p, b);
    glBindAttribLocation(p, 0, "a_pos");
    glLinkProgram(p);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        fprintf(stderr, APP_NAME ": link: %s\n", log);
        exit(1);
    }
    return p;
}

/* A current surfaceless GL ES `major`.`minor` context. */
static void start(EGLint major, EGLint minor) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) die("eglInitialize failed");
    if (!eglBindAPI(EGL_OPENGL_ES_API)) die("no OpenGL ES API");
    const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                major >= 3 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_ES2_BIT,
                                EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglChooseConfig(dpy, cfg_attrs, &cfg, 1, &n) || n < 1) die("no EGL config");
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION,
                                minor, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
    if (ctx == EGL_NO_CONTEXT) die("no GL ES context of the version asked for");
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("eglMakeCurrent failed");
    printf("context %s\n", (const char *)glGetString(GL_VERSION));
}

/* Frames of the quad with vertex and fragment shader sources `vs`, `fs`. */
static uint64_t draw_frames(const char *vs, const char *fs, int frames) {
    GLuint prog = link(compile(GL_VERTEX_SHADER, vs), compile(GL_FRAGMENT_SHADER, fs));
    GLuint tex, fbo, vbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, SHADE_W, SHADE_H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        die("framebuffer incomplete");
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof SHADE_QUAD, SHADE_QUAD, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    glViewport(0, 0, SHADE_W, SHADE_H);
    glUseProgram(prog);
    GLint gain = glGetUniformLocation(prog, "u_gain");
    static unsigned char pixels[SHADE_W * SHADE_H * 4];
    for (int f = 0; f < frames; f++) {
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glUniform1f(gain, shade_gain(f));
        glDrawArrays(GL_TRIANGLES, 0, 6);
        glReadPixels(0, 0, SHADE_W, SHADE_H, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    }
    if (glGetError() != GL_NO_ERROR) die("GL error");
    return fnv(0xcbf29ce484222325ull, pixels, sizeof pixels);
}

static uint64_t dispatch_once(void) {
    glDispatchCompute(4, 3, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    const float *v = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, CS_VALUES * 4, GL_MAP_READ_BIT);
    if (!v) die("glMapBufferRange failed");
    for (int y = 0; y < 6; y++) {
        for (int x = 0; x < 16; x++) {
            float s = (float)x * CS_SCALE;
            float want = s * s + (float)y;
            if (v[y * 16 + x] != want) die("wrong compute result");
        }
    }
    uint64_t h = fnv(0xcbf29ce484222325ull, v, CS_VALUES * 4);
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    if (glGetError() != GL_NO_ERROR) die("GL error");
    return h;
}

static uint64_t dispatch(int dispatches) {
    GLuint cs = compile(GL_COMPUTE_SHADER, GLES31_CS);
    GLuint prog = link(cs, 0);
    GLuint buf;
    glGenBuffers(1, &buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, CS_VALUES * 4, NULL, GL_DYNAMIC_READ);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_scale"), CS_SCALE);
    uint64_t h = 0;
    for (int i = 0; i < dispatches; i++) h = dispatch_once();
    return h;
}

/* Every stage of ES 3.2: two patches of 3 through tessellation and a
 * geometry shader into the RGBA8 texture. */
static uint64_t draw_stages(int frames) {
    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, GLES32_VS));
    glAttachShader(prog, compile(GL_TESS_CONTROL_SHADER, GLES32_TCS));
    glAttachShader(prog, compile(GL_TESS_EVALUATION_SHADER, GLES32_TES));
    glAttachShader(prog, compile(GL_GEOMETRY_SHADER, GLES32_GS));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, GLES32_FS));
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) die("link failed");
    GLuint tex, fbo, vbo, vao;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, SHADE_W, SHADE_H);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof SHADE_QUAD, SHADE_QUAD, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    glViewport(0, 0, SHADE_W, SHADE_H);
    glUseProgram(prog);
    glPatchParameteri(GL_PATCH_VERTICES, 3);
    static unsigned char pixels[SHADE_W * SHADE_H * 4];
    for (int f = 0; f < frames; f++) {
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glDrawArrays(GL_PATCHES, 0, 6);
        glReadPixels(0, 0, SHADE_W, SHADE_H, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    }
    if (glGetError() != GL_NO_ERROR) die("GL error");
    return fnv(0xcbf29ce484222325ull, pixels, sizeof pixels);
}

/* The image shader over a 16 x 6 R32F texture; 0 (nothing to hash). */
static uint64_t dispatch_image(void) {
    GLuint prog = link(compile(GL_COMPUTE_SHADER, GLES31_CS_IMAGE), 0);
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32F, 16, 6);
    glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    glUseProgram(prog);
    glDispatchCompute(4, 3, 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    if (glGetError() != GL_NO_ERROR) die("GL error");
    return 0;
}

int main(int argc, char **argv) {
    int es = 2, frames = 2, image = 0, dispatches = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--es") && i + 1 < argc) es = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--image")) image = 1;
        else if (!strcmp(argv[i], "--dispatches") && i + 1 < argc) dispatches = atoi(argv[++i]);
        else die("usage: egl_gles [--es 2|3|31|32] [--frames N] [--dispatches N] [--image]");
    }
    uint64_t h;
    switch (es) {
    case 2:
        start(2, 0);
        h = draw_frames(GLES2_VS, GLES2_FS, frames);
        break;
    case 3:
        start(3, 0);
        h = draw_frames(GLES3_VS, GLES3_FS, frames);
        break;
    case 31:
        start(3, 1);
        h = image ? dispatch_image() : dispatch(dispatches);
        break;
    case 32:
        start(3, 2);
        h = draw_stages(frames);
        break;
    default:
        die("--es takes 2, 3, 31 or 32");
    }
    printf("checksum %016llx\n", (unsigned long long)h);
    return 0;
}

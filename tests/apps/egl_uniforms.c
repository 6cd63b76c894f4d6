/* egl_uniforms: every kind of uniform, block binding, atomic counter and
 * transform-feedback capture, for gldbg's debug steps (issue 5).
 *
 * EGL surfaceless, an OpenGL 4.5 core context (llvmpipe offers no 4.6),
 * GL linked from libOpenGL. A 32x32 RGBA32F framebuffer of its own. One
 * program (UNI_VS + UNI_FS) reads a uniform of every kind; each frame
 * draws two triangles over the whole framebuffer (glDrawArrays(GL_TRIANGLES,
 * 0, 6), one draw per frame) inside glBeginTransformFeedback(GL_TRIANGLES).
 *
 * The values the app sets (every one of them chosen to print exactly;
 * matrices column-major as GLSL indexes them, `m[c]` = column c):
 *
 *   float  u_f    = 0.375
 *   vec3   u_v3   = (1.5, -2.25, 4.125)
 *   int    u_i    = -123456789             (beyond float's 24-bit mantissa)
 *   ivec2  u_iv   = (7, -42)
 *   uint   u_u    = 3000000000u            (above INT_MAX)
 *   uvec4  u_uv   = (1, 4294967295, 65536, 16777217)
 *   bool   u_b    = true
 *   bvec2  u_bv   = (false, true)
 *   float  u_arr[4]  = {1.25, -2.5, 3.75, 8.0}
 *   vec2   u_varr[3] = {(0.5, 1.0), (-1.5, 2.5), (3.0, -4.0)}   (VS and FS)
 *   struct S { vec3 a; float b[2]; int c; }
 *   S      u_s     = {a (0.25, 0.5, 0.75), b {10.5, -11.5}, c 13}
 *   S      u_ss[2] = {{a (1, 2, 3), b {4.5, 5.5}, c -6},
 *                     {a (7.25, 8.25, 9.25), b {10.0, 11.0}, c 12}}
 *   mat2   u_m2   = columns (1, 2), (3, 4)            (transpose GL_FALSE)
 *   mat3   u_m3   = columns (1, 2, 3), (4, 5, 6), (7, 8, 9)  (GL_FALSE)
 *   mat4   u_m4   = set with transpose GL_TRUE from the rows
 *                   (2, 0, 0, -1), (0, 2, 0, -1), (0, 0, 0.5, 0.25), (0, 0, 0, 1):
 *                   columns (2, 0, 0, 0), (0, 2, 0, 0), (0, 0, 0.5, 0),
 *                   (-1, -1, 0.25, 1)  (VS: maps a_pos in [0,1]^2 onto
 *                   the viewport at z 0.25; FS reads it too)
 *   mat2x3 u_m23  = columns (0.5, 1.5, 2.5), (-3.5, -4.5, -5.5)  (GL_FALSE)
 *   double u_d    = -6.5
 *   dvec2  u_dv   = (0.125, 1 + 2^-30)      (y is not a float: y - 1.0 = 2^-30)
 *   dmat2  u_dm   = columns (1.5, -2.5), (3.5, -4.5)
 *   sampler2D  u_tex  = unit 3: RGBA32F 4x4, texel (x, y) =
 *                       (x, y, 10x + y + 0.5, 1 - 0.125x); (1, 2) = (1, 2, 12.5, 0.875)
 *   isampler2D u_itex = unit 4: R32I 4x4, texel (x, y) = -(1000x + y + 7);
 *                       (1, 0) = ivec4(-1007, 0, 0, 1)
 *   image2D    u_img  = image unit 2 (set with glUniform1i), R32F 4x4, read
 *                       only, texel (x, y) = 100 + 10y + x + 0.25; (2, 1) = 112.25
 *   subroutine uniform PickFn u_pick = pickB (x * 2 + 0.25): u_pick(1.5) = 3.25
 *                       (pickA would give 2.5)
 *   uniform block Params (std140) at binding 5 (glUniformBlockBinding):
 *                       ubo_v = (0.5, -0.75, 2.0, 16.0), ubo_f = {-1.5, 6.125}
 *   storage block Store (std430) at binding 6 (glShaderStorageBlockBinding):
 *                       sb_in = {10, 20, 30, 40.5}, sb_out[1024] from 0; each
 *                       fragment adds sb_in[3] + idx to sb_out[idx], idx = 32y + x
 *   atomic_uint u_count: binding 1, offset 4 of a buffer {0xdeadbeef, 100};
 *                       each fragment increments it (100 + 1024 per frame)
 *   float  u_vf   = 2.5 (VS only)
 *   TF varyings tf_a (float), tf_b (vec2), interleaved, into a buffer of 6
 *   vertices: tf_a = u_vf * (a_pos.x + 2 a_pos.y), tf_b = pos.xy + u_varr[2]
 *
 * Other units and bindings hold decoys (texture unit 0: a 4x4 RGBA32F of
 * -9; uniform and storage binding 0: buffers of -9; atomic counter binding
 * 0: a buffer of 7), so a binding the debugger failed to copy reads wrong.
 *
 * After the last frame the app prints
 *
 *   egl_uniforms: N frames, values ok, frame F, counter C, ssbo S, tf T, <renderer>
 *
 * `values ok`: every pixel is (acc, (x + 0.5) acc, y + 1.5, 1) with acc the
 * shader's sum computed here from the values above (ACC, -121), sb_out[idx]
 * is N (40.5 + idx), the captured vertices and the counter are as computed
 * here (else `values WRONG`): the shaders saw exactly these values.
 * F: FNV-1a of the RGBA32F framebuffer; C: the atomic counter and its
 * buffer's first word, which must stay 0xdeadbeef (`counter 2148/deadbeef`
 * after 2 frames); S: FNV-1a of the whole storage buffer; T: FNV-1a of the
 * captured TF buffer and its float sum.
 *
 * The shaders read u_arr[2] at most, so the driver keeps u_arr[0..3) only
 * (active size 3): GL drops the 8.0 of u_arr[3].
 *
 *   egl_uniforms [--frames N] [--tfo | --no-tf]
 *
 * By default the capture uses the default transform feedback object (0),
 * as most apps do. --tfo: into a transform feedback object of the app's
 * own (glGenTransformFeedbacks) instead. --no-tf: no capture at all (the
 * program still has its varyings; `tf` then hashes the zeroed buffer).
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_uniforms"
#include "egl_app.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define SIZE 32

/* Line numbers matter: tests/tests/uniform_types.rs breaks and prints on them. */
static const char *UNI_VS =
    "#version 450\n"                                                      /*  1 */
    "layout(location = 0) in vec2 a_pos;\n"                               /*  2 */
    "uniform mat4 u_m4;\n"                                                /*  3 */
    "uniform float u_vf;\n"                                               /*  4 */
    "uniform vec2 u_varr[3];\n"                                           /*  5 */
    "out float tf_a;\n"                                                   /*  6 */
    "out vec2 tf_b;\n"                                                    /*  7 */
    "void main() {\n"                                                     /*  8 */
    "    vec4 v_pos = u_m4 * vec4(a_pos, 0.0, 1.0);\n"                    /*  9 */
    "    float v_f = u_vf;\n"                                             /* 10 */
    "    vec2 v_arr = u_varr[2];\n"                                       /* 11 */
    "    tf_a = v_f * (a_pos.x + 2.0 * a_pos.y);\n"                       /* 12 */
    "    tf_b = v_pos.xy + v_arr;\n"                                      /* 13 */
    "    gl_Position = v_pos;\n"                                          /* 14 */
    "}\n";                                                                /* 15 */

static const char *UNI_FS =
    "#version 450\n"                                                      /*  1 */
    "struct S { vec3 a; float b[2]; int c; };\n"                          /*  2 */
    "uniform float u_f;\n"                                                /*  3 */
    "uniform vec3 u_v3;\n"                                                /*  4 */
    "uniform int u_i;\n"                                                  /*  5 */
    "uniform ivec2 u_iv;\n"                                               /*  6 */
    "uniform uint u_u;\n"                                                 /*  7 */
    "uniform uvec4 u_uv;\n"                                               /*  8 */
    "uniform bool u_b;\n"                                                 /*  9 */
    "uniform bvec2 u_bv;\n"                                               /* 10 */
    "uniform float u_arr[4];\n"                                           /* 11 */
    "uniform vec2 u_varr[3];\n"                                           /* 12 */
    "uniform S u_s;\n"                                                    /* 13 */
    "uniform S u_ss[2];\n"                                                /* 14 */
    "uniform mat2 u_m2;\n"                                                /* 15 */
    "uniform mat3 u_m3;\n"                                                /* 16 */
    "uniform mat4 u_m4;\n"                                                /* 17 */
    "uniform mat2x3 u_m23;\n"                                             /* 18 */
    "uniform double u_d;\n"                                               /* 19 */
    "uniform dvec2 u_dv;\n"                                               /* 20 */
    "uniform dmat2 u_dm;\n"                                               /* 21 */
    "uniform sampler2D u_tex;\n"                                          /* 22 */
    "uniform isampler2D u_itex;\n"                                        /* 23 */
    "layout(r32f) readonly uniform image2D u_img;\n"                      /* 24 */
    "subroutine float PickFn(float x);\n"                                 /* 25 */
    "subroutine(PickFn) float pickA(float x) { return x + 1.0; }\n"       /* 26 */
    "subroutine(PickFn) float pickB(float x) { return x * 2.0 + 0.25; }\n" /* 27 */
    "subroutine uniform PickFn u_pick;\n"                                 /* 28 */
    "layout(std140) uniform Params { vec4 ubo_v; float ubo_f[2]; };\n"    /* 29 */
    "layout(std430) buffer Store { float sb_in[4]; float sb_out[]; };\n"  /* 30 */
    "layout(binding = 1, offset = 4) uniform atomic_uint u_count;\n"      /* 31 */
    "layout(location = 0) out vec4 color;\n"                              /* 32 */
    "void main() {\n"                                                     /* 33 */
    "    float f_f = u_f;\n"                                              /* 34 */
    "    vec3 f_v3 = u_v3;\n"                                             /* 35 */
    "    int f_i = u_i;\n"                                                /* 36 */
    "    ivec2 f_iv = u_iv;\n"                                            /* 37 */
    "    uint f_u = u_u;\n"                                               /* 38 */
    "    uvec4 f_uv = u_uv;\n"                                            /* 39 */
    "    bool f_b = u_b;\n"                                               /* 40 */
    "    bvec2 f_bv = u_bv;\n"                                            /* 41 */
    "    float f_arr = u_arr[2];\n"                                       /* 42 */
    "    vec2 f_varr = u_varr[1];\n"                                      /* 43 */
    "    vec3 f_sa = u_s.a;\n"                                            /* 44 */
    "    float f_sb = u_s.b[1];\n"                                        /* 45 */
    "    int f_sc = u_s.c;\n"                                             /* 46 */
    "    vec3 f_ssa = u_ss[1].a;\n"                                       /* 47 */
    "    float f_ssb = u_ss[0].b[1];\n"                                   /* 48 */
    "    int f_ssc = u_ss[0].c;\n"                                        /* 49 */
    "    vec2 f_m2 = u_m2[1];\n"                                          /* 50 */
    "    float f_mat = u_m3[1][2];\n"                                     /* 51 */
    "    vec4 f_m4 = u_m4[3];\n"                                          /* 52 */
    "    vec3 f_m23 = u_m23[1];\n"                                        /* 53 */
    "    double f_d = u_d;\n"                                             /* 54 */
    "    dvec2 f_dv = u_dv;\n"                                            /* 55 */
    "    double f_dm = u_dm[1][0];\n"                                     /* 56 */
    "    vec4 f_tex = texelFetch(u_tex, ivec2(1, 2), 0);\n"               /* 57 */
    "    ivec4 f_itex = texelFetch(u_itex, ivec2(1, 0), 0);\n"            /* 58 */
    "    float f_img = imageLoad(u_img, ivec2(2, 1)).r;\n"                /* 59 */
    "    float f_sub = u_pick(1.5);\n"                                    /* 60 */
    "    vec4 f_ubo = ubo_v;\n"                                           /* 61 */
    "    float f_ubof = ubo_f[1];\n"                                      /* 62 */
    "    float f_sbin = sb_in[3];\n"                                      /* 63 */
    "    uint f_cnt = atomicCounterIncrement(u_count);\n"                 /* 64 */
    "    int idx = int(gl_FragCoord.y) * 32 + int(gl_FragCoord.x);\n"     /* 65 */
    "    sb_out[idx] += f_sbin + float(idx);\n"                           /* 66 */
    "    float acc = f_f + f_v3.y + float(f_i + 123456000) + float(f_iv.y);\n" /* 67 */
    "    acc += float(f_u - 2999999000u) + float(f_uv.y - 4294967000u) + float(f_uv.w % 1000u);\n" /* 68 */
    "    acc += (f_b ? 1.0 : 0.0) + (f_bv.y ? 2.0 : 0.0) + (f_bv.x ? 64.0 : 0.0);\n" /* 69 */
    "    acc += f_arr + f_varr.x + f_sa.z + f_sb + float(f_sc);\n"        /* 70 */
    "    acc += f_ssa.x + f_ssb + float(f_ssc) + f_m2.y + f_mat;\n"       /* 71 */
    "    acc += f_m4.x + f_m4.z + f_m23.z;\n"                             /* 72 */
    "    acc += float(f_d + f_dv.x + f_dm) + float((f_dv.y - 1.0lf) * 1073741824.0lf);\n" /* 73 */
    "    acc += f_tex.z + f_tex.w + float(f_itex.x) + f_img + f_sub;\n"   /* 74 */
    "    acc += f_ubo.w + f_ubo.y + f_ubof + f_sbin;\n"                   /* 75 */
    "    color = vec4(acc, gl_FragCoord.x * acc, gl_FragCoord.y + f_tex.x, f_cnt >= 100u ? 1.0 : 0.5);\n" /* 76 */
    "}\n";                                                                /* 77 */

/* `acc` as UNI_FS computes it from the values above, line by line (67-75):
 * every term is exact in float, so the frame's red channel equals it. */
static const double ACC = (0.375 - 2.25 - 789 - 42) + (1000 + 295 + 217) + (1 + 2 + 0) +
                          (3.75 - 1.5 + 0.75 - 11.5 + 13) + (7.25 + 5.5 - 6 + 4 + 6) +
                          (-1 + 0.25 - 5.5) + (-6.5 + 0.125 + 3.5 + 1) +
                          (12.5 + 0.875 - 1007 + 112.25 + 3.25) + (16 - 0.75 + 6.125 + 40.5);

static GLint loc(GLuint prog, const char *name) {
    GLint l = glGetUniformLocation(prog, name);
    if (l < 0) {
        fprintf(stderr, "egl_uniforms: no uniform %s\n", name);
        exit(1);
    }
    return l;
}

static GLuint texture(GLenum internal, GLenum format, GLenum type, const void *texels) {
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, internal, 4, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 4, 4, format, type, texels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
}

static GLuint buffer(GLenum target, GLsizeiptr size, const void *data) {
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, size, data, GL_DYNAMIC_COPY);
    return b;
}

int main(int argc, char **argv) {
    int frames = 2, tfo = 0, no_tf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tfo")) tfo = 1;
        else if (!strcmp(argv[i], "--no-tf")) no_tf = 1;
        else die("usage: egl_uniforms [--frames N] [--tfo | --no-tf]");
    }

    struct egl_app app = egl_app_start(4, 5, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);

    egl_app_float_target(SIZE, SIZE);

    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    const float quad[12] = {0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1};
    vbo = buffer(GL_ARRAY_BUFFER, sizeof quad, quad);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    (void)vbo;

    /* The program, with its transform-feedback varyings set before linking. */
    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, UNI_VS));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, UNI_FS));
    const char *varyings[2] = {"tf_a", "tf_b"};
    glTransformFeedbackVaryings(prog, 2, varyings, GL_INTERLEAVED_ATTRIBS);
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        fprintf(stderr, "egl_uniforms: link: %s\n", log);
        return 1;
    }

    /* Default-block uniforms (glProgramUniform: no program need be current). */
    glProgramUniform1f(prog, loc(prog, "u_f"), 0.375f);
    glProgramUniform3f(prog, loc(prog, "u_v3"), 1.5f, -2.25f, 4.125f);
    glProgramUniform1i(prog, loc(prog, "u_i"), -123456789);
    glProgramUniform2i(prog, loc(prog, "u_iv"), 7, -42);
    glProgramUniform1ui(prog, loc(prog, "u_u"), 3000000000u);
    glProgramUniform4ui(prog, loc(prog, "u_uv"), 1u, 4294967295u, 65536u, 16777217u);
    glProgramUniform1i(prog, loc(prog, "u_b"), 1);
    glProgramUniform2i(prog, loc(prog, "u_bv"), 0, 1);
    const float arr[4] = {1.25f, -2.5f, 3.75f, 8.0f};
    glProgramUniform1fv(prog, loc(prog, "u_arr"), 4, arr);
    const float varr[6] = {0.5f, 1.0f, -1.5f, 2.5f, 3.0f, -4.0f};
    glProgramUniform2fv(prog, loc(prog, "u_varr"), 3, varr);
    glProgramUniform3f(prog, loc(prog, "u_s.a"), 0.25f, 0.5f, 0.75f);
    const float sb[2] = {10.5f, -11.5f};
    glProgramUniform1fv(prog, loc(prog, "u_s.b"), 2, sb);
    glProgramUniform1i(prog, loc(prog, "u_s.c"), 13);
    glProgramUniform3f(prog, loc(prog, "u_ss[0].a"), 1.0f, 2.0f, 3.0f);
    const float ss0b[2] = {4.5f, 5.5f}, ss1b[2] = {10.0f, 11.0f};
    glProgramUniform1fv(prog, loc(prog, "u_ss[0].b"), 2, ss0b);
    glProgramUniform1i(prog, loc(prog, "u_ss[0].c"), -6);
    glProgramUniform3f(prog, loc(prog, "u_ss[1].a"), 7.25f, 8.25f, 9.25f);
    glProgramUniform1fv(prog, loc(prog, "u_ss[1].b"), 2, ss1b);
    glProgramUniform1i(prog, loc(prog, "u_ss[1].c"), 12);
    const float m2[4] = {1, 2, 3, 4};
    glProgramUniformMatrix2fv(prog, loc(prog, "u_m2"), 1, GL_FALSE, m2);
    const float m3[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    glProgramUniformMatrix3fv(prog, loc(prog, "u_m3"), 1, GL_FALSE, m3);
    const float m4_rows[16] = {2, 0, 0, -1, 0, 2, 0, -1, 0, 0, 0.5f, 0.25f, 0, 0, 0, 1};
    glProgramUniformMatrix4fv(prog, loc(prog, "u_m4"), 1, GL_TRUE, m4_rows);
    const float m23[6] = {0.5f, 1.5f, 2.5f, -3.5f, -4.5f, -5.5f};
    glProgramUniformMatrix2x3fv(prog, loc(prog, "u_m23"), 1, GL_FALSE, m23);
    glProgramUniform1d(prog, loc(prog, "u_d"), -6.5);
    glProgramUniform2d(prog, loc(prog, "u_dv"), 0.125, 1.0 + 1.0 / 1073741824.0);
    const double dm[4] = {1.5, -2.5, 3.5, -4.5};
    glProgramUniformMatrix2dv(prog, loc(prog, "u_dm"), 1, GL_FALSE, dm);
    glProgramUniform1i(prog, loc(prog, "u_tex"), 3);
    glProgramUniform1i(prog, loc(prog, "u_itex"), 4);
    glProgramUniform1i(prog, loc(prog, "u_img"), 2);
    glProgramUniform1f(prog, loc(prog, "u_vf"), 2.5f);

    /* Block bindings, set by the app (not in the shader's layout). */
    GLuint ubo_index = glGetUniformBlockIndex(prog, "Params");
    GLuint ssbo_index = glGetProgramResourceIndex(prog, GL_SHADER_STORAGE_BLOCK, "Store");
    if (ubo_index == GL_INVALID_INDEX || ssbo_index == GL_INVALID_INDEX) die("no block");
    glUniformBlockBinding(prog, ubo_index, 5);
    glShaderStorageBlockBinding(prog, ssbo_index, 6);

    /* Subroutine: pickB. */
    GLuint pick_b = glGetSubroutineIndex(prog, GL_FRAGMENT_SHADER, "pickB");
    GLint pick_loc = glGetSubroutineUniformLocation(prog, GL_FRAGMENT_SHADER, "u_pick");
    if (pick_b == GL_INVALID_INDEX || pick_loc != 0) die("no subroutine");

    /* Textures and images. */
    float texels[4 * 4 * 4], decoy[4 * 4 * 4], img[4 * 4];
    GLint itexels[4 * 4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            float *t = &texels[4 * (4 * y + x)];
            t[0] = (float)x;
            t[1] = (float)y;
            t[2] = 10.0f * x + y + 0.5f;
            t[3] = 1.0f - 0.125f * x;
            itexels[4 * y + x] = -(1000 * x + y + 7);
            img[4 * y + x] = 100.0f + 10.0f * y + x + 0.25f;
        }
    for (int i = 0; i < 4 * 4 * 4; i++) decoy[i] = -9.0f;
    glActiveTexture(GL_TEXTURE0);
    texture(GL_RGBA32F, GL_RGBA, GL_FLOAT, decoy);
    glActiveTexture(GL_TEXTURE3);
    texture(GL_RGBA32F, GL_RGBA, GL_FLOAT, texels);
    glActiveTexture(GL_TEXTURE4);
    texture(GL_R32I, GL_RED_INTEGER, GL_INT, itexels);
    glActiveTexture(GL_TEXTURE5);
    GLuint image = texture(GL_R32F, GL_RED, GL_FLOAT, img);
    glBindImageTexture(2, image, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32F);
    glActiveTexture(GL_TEXTURE0);

    /* Buffers: decoys at binding 0, the real ones at 5, 6 and 1. */
    float decoys[1040];
    for (int i = 0; i < 1040; i++) decoys[i] = -9.0f;
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, buffer(GL_UNIFORM_BUFFER, 48, decoys));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0,
                     buffer(GL_SHADER_STORAGE_BUFFER, sizeof decoys, decoys));
    const GLuint counter_decoy[2] = {7, 7};
    glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 0,
                     buffer(GL_ATOMIC_COUNTER_BUFFER, sizeof counter_decoy, counter_decoy));
    /* std140: vec4 at 0, float[2] at 16 and 32 (array stride 16). */
    const float ubo[12] = {0.5f, -0.75f, 2.0f, 16.0f, -1.5f, 0, 0, 0, 6.125f, 0, 0, 0};
    glBindBufferBase(GL_UNIFORM_BUFFER, 5, buffer(GL_UNIFORM_BUFFER, sizeof ubo, ubo));
    static float store[4 + SIZE * SIZE];
    store[0] = 10.0f, store[1] = 20.0f, store[2] = 30.0f, store[3] = 40.5f;
    GLuint ssbo = buffer(GL_SHADER_STORAGE_BUFFER, sizeof store, store);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 6, ssbo);
    const GLuint counter_init[2] = {0xdeadbeefu, 100};
    GLuint counter = buffer(GL_ATOMIC_COUNTER_BUFFER, sizeof counter_init, counter_init);
    glBindBufferBase(GL_ATOMIC_COUNTER_BUFFER, 1, counter);
    static float captured_init[6 * 3];
    GLuint tf = buffer(GL_TRANSFORM_FEEDBACK_BUFFER, sizeof captured_init, captured_init);
    if (tfo) {
        GLuint object;
        glGenTransformFeedbacks(1, &object);
        glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, object);
    }
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, tf);

    const float black[4] = {0, 0, 0, 0};
    static float rgba[SIZE * SIZE * 4];
    uint64_t frame_hash = 0;
    for (int f = 0; f < frames; f++) {
        glClearBufferfv(GL_COLOR, 0, black);
        glUseProgram(prog);
        /* glUseProgram resets subroutine selections: set them after it. */
        glUniformSubroutinesuiv(GL_FRAGMENT_SHADER, 1, &pick_b);
        if (!no_tf) glBeginTransformFeedback(GL_TRIANGLES);
        glDrawArrays(GL_TRIANGLES, 0, 6);
        if (!no_tf) glEndTransformFeedback();
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, rgba);
        frame_hash = fnv(FNV_OFFSET, rgba, sizeof rgba);
    }

    static float store_out[4 + SIZE * SIZE];
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, ssbo);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof store_out, store_out);
    GLuint counter_out[2];
    glBindBuffer(GL_ATOMIC_COUNTER_BUFFER, counter);
    glGetBufferSubData(GL_ATOMIC_COUNTER_BUFFER, 0, sizeof counter_out, counter_out);
    float captured[6 * 3];
    glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, tf);
    glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0, sizeof captured, captured);
    double tf_sum = 0;
    for (int i = 0; i < 6 * 3; i++) tf_sum += captured[i];

    /* The values the shaders saw, checked against those documented above. */
    int wrong = 0;
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            const float *px = &rgba[4 * (SIZE * y + x)];
            int i = SIZE * y + x;
            wrong += px[0] != (float)ACC || px[1] != (float)((x + 0.5) * ACC) ||
                     px[2] != (float)(y + 0.5 + 1.0) || px[3] != 1.0f ||
                     store_out[4 + i] != (float)(frames * (40.5 + i));
        }
    for (int v = 0; v < 6 && !no_tf; v++) {
        float x = quad[2 * v], y = quad[2 * v + 1];
        wrong += captured[3 * v] != 2.5f * (x + 2.0f * y) ||
                 captured[3 * v + 1] != 2.0f * x - 1.0f + 3.0f ||
                 captured[3 * v + 2] != 2.0f * y - 1.0f - 4.0f;
    }
    wrong += counter_out[0] != 0xdeadbeefu || counter_out[1] != 100u + SIZE * SIZE * frames;

    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_uniforms: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_uniforms: %d frames, values %s, frame %016llx, counter %u/%x, ssbo %016llx, "
           "tf %016llx/%g, %s\n",
           frames, wrong ? "WRONG" : "ok", (unsigned long long)frame_hash, counter_out[1], counter_out[0],
           (unsigned long long)fnv(FNV_OFFSET, store_out, sizeof store_out),
           (unsigned long long)fnv(FNV_OFFSET, captured, sizeof captured), tf_sum,
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return 0;
}

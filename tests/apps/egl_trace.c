/* egl_trace: one shader per stage with the same shape, for gldbg's traces
 * (issue 14: step a focused invocation forward to its end and back).
 *
 * EGL surfaceless, an OpenGL 4.3 core context, GL from libOpenGL. One
 * frame: a draw of one patch (TRACE_VS, TRACE_TCS, TRACE_TES, TRACE_GS,
 * TRACE_FS) into a 32x32 RGBA32F framebuffer, then a dispatch of
 * TRACE_CS over 2x2x2 groups of 4x2x1 (64 invocations) writing a storage
 * buffer. Then the app prints
 *
 *   egl_trace: checksum C, results R, hash H, <renderer>
 *
 * with C the sum of the framebuffer's four channels, R the sum of the
 * storage buffer's components and H the FNV-1a hash of both (bit-exact:
 * a debugger that changes what the app computes changes H).
 *
 *   egl_trace [--print STAGE]
 *
 * --print STAGE: print the shader of STAGE (vertex, tess-control,
 *               tess-eval, geometry, fragment, compute) and exit, with
 *               no GL: what the tests' CPU references read line numbers
 *               from (tests/src/trace_ref.rs).
 *
 * Every shader is HEAD (a version line and 6 lines of the stage's
 * declarations), TRACE_FUNCS (a struct and a user function `blend` with
 * `in`, `inout` and `out` parameters), `void main() {`, a seed line (the
 * only place the invocation's identity enters), TRACE_BODY (locals of
 * several kinds, a loop calling `blend`, a second call) and the stage's
 * outputs. The lines of TRACE_FUNCS and TRACE_BODY are the same in every
 * stage. Seeds, by invocation, with u_gain = 0.625 (exact binary
 * fractions, so most values are exact in f32):
 *
 *   vertex        (0.375 id + 0.25, id + 0.5)            id = gl_VertexID
 *   tess-control  (0.5 id + 0.25, primitive + 0.75)      id = gl_InvocationID
 *   tess-eval     (1.5 c.x + 0.375, 2.25 c.y + 0.5 c.z + 0.125)  c = gl_TessCoord
 *   geometry      (0.25 p + 0.875, 2.75 - 0.5 p)         p = gl_PrimitiveIDIn
 *   fragment      gl_FragCoord.xy * 0.125
 *   compute       0.25 gl_GlobalInvocationID.xy + (0.5, gl_GlobalInvocationID.z)
 *
 * The patch is the triangle (-1,-1), (3,-1), (-1,3) (made from
 * gl_VertexID: no vertex buffer), which covers the whole framebuffer;
 * every tess level is u_level = 2: 6 triangles, each drawn again by the
 * geometry shader.
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_trace"
#include "egl_app.h"

#include <string.h>

#define SIZE 32
#define GAIN 0.625f
#define LEVEL 2.0f
#define INVOCATIONS 64

/* Line numbers matter: the tests name them (tests/src/trace_ref.rs). Each
 * HEAD is 7 lines, so TRACE_FUNCS starts at line 8 in every stage. */
#define TRACE_FUNCS                                                             \
    "struct Pair { float a; int b; };\n"                              /*  8 */ \
    "void blend(in float x, inout vec2 acc, out int n) {\n"           /*  9 */ \
    "    float h;\n"                                                  /* 10 */ \
    "    if (x > 1.0) {\n"                                            /* 11 */ \
    "        h = x * 0.5;\n"                                          /* 12 */ \
    "    } else {\n"                                                  /* 13 */ \
    "        h = x + 1.0;\n"                                          /* 14 */ \
    "    }\n"                                                         /* 15 */ \
    "    acc += vec2(h, x);\n"                                        /* 16 */ \
    "    n = int(h) + 1;\n"                                           /* 17 */ \
    "}\n"                                                             /* 18 */ \
    "void main() {\n"                                                 /* 19 */

/* Line 20 is the stage's seed: `vec2 seed = ...;`. */
#define TRACE_BODY                                                              \
    "    vec2 acc = vec2(0.0, 1.0);\n"                                /* 21 */ \
    "    int total = 0;\n"                                            /* 22 */ \
    "    float last;\n"                                               /* 23 */ \
    "    float w[3] = float[3](1.0, 2.0, 3.0);\n"                     /* 24 */ \
    "    for (int i = 0; i < 3; ++i) {\n"                             /* 25 */ \
    "        float x = seed.x * w[i] * u_gain;\n"                     /* 26 */ \
    "        int n;\n"                                                /* 27 */ \
    "        blend(x, acc, n);\n"                                     /* 28 */ \
    "        total += n;\n"                                           /* 29 */ \
    "        w[i] = x;\n"                                             /* 30 */ \
    "    }\n"                                                         /* 31 */ \
    "    last = acc.x - acc.y;\n"                                     /* 32 */ \
    "    Pair q = Pair(last, total);\n"                               /* 33 */ \
    "    int m;\n"                                                    /* 34 */ \
    "    blend(seed.y, acc, m);\n"                                    /* 35 */

/* From line 36: the stage's outputs, then `}`. */

static const char *TRACE_VS =
    "#version 430 core\n"                                             /*  1 */
    "uniform float u_gain;\n"                                         /*  2 */
    "out vec4 v_value;\n"                                             /*  3 */
    "\n\n\n\n"                                                        /*  4-7 */
    TRACE_FUNCS
    "    vec2 seed = vec2(float(gl_VertexID) * 0.375 + 0.25, float(gl_VertexID) + 0.5);\n" /* 20 */
    TRACE_BODY
    "    gl_Position = vec4(float(gl_VertexID % 2) * 4.0 - 1.0, float(gl_VertexID / 2) * 4.0 - 1.0, 0.0, 1.0);\n" /* 36 */
    "    v_value = vec4(acc, q.a, float(q.b + m));\n"                 /* 37 */
    "}\n";                                                            /* 38 */

static const char *TRACE_TCS =
    "#version 430 core\n"                                             /*  1 */
    "layout(vertices = 3) out;\n"                                     /*  2 */
    "uniform float u_gain;\n"                                         /*  3 */
    "uniform float u_level;\n"                                        /*  4 */
    "in vec4 v_value[];\n"                                            /*  5 */
    "out vec4 tc_value[];\n"                                          /*  6 */
    "\n"                                                              /*  7 */
    TRACE_FUNCS
    "    vec2 seed = vec2(float(gl_InvocationID) * 0.5 + 0.25, float(gl_PrimitiveID) + 0.75);\n" /* 20 */
    TRACE_BODY
    "    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n" /* 36 */
    "    tc_value[gl_InvocationID] = vec4(acc, q.a, float(q.b + m)) + v_value[gl_InvocationID];\n" /* 37 */
    "    gl_TessLevelOuter[0] = u_level;\n"                           /* 38 */
    "    gl_TessLevelOuter[1] = u_level;\n"                           /* 39 */
    "    gl_TessLevelOuter[2] = u_level;\n"                           /* 40 */
    "    gl_TessLevelInner[0] = u_level;\n"                           /* 41 */
    "}\n";                                                            /* 42 */

static const char *TRACE_TES =
    "#version 430 core\n"                                             /*  1 */
    "layout(triangles, equal_spacing, ccw) in;\n"                     /*  2 */
    "uniform float u_gain;\n"                                         /*  3 */
    "in vec4 tc_value[];\n"                                           /*  4 */
    "out float te_value;\n"                                           /*  5 */
    "\n\n"                                                            /*  6-7 */
    TRACE_FUNCS
    "    vec2 seed = vec2(gl_TessCoord.x * 1.5 + 0.375, gl_TessCoord.y * 2.25 + gl_TessCoord.z * 0.5 + 0.125);\n" /* 20 */
    TRACE_BODY
    "    gl_Position = gl_TessCoord.x * gl_in[0].gl_Position + gl_TessCoord.y * gl_in[1].gl_Position + gl_TessCoord.z * gl_in[2].gl_Position;\n" /* 36 */
    "    te_value = acc.x + q.a + float(m) + tc_value[0].w;\n"       /* 37 */
    "}\n";                                                            /* 38 */

static const char *TRACE_GS =
    "#version 430 core\n"                                             /*  1 */
    "layout(triangles) in;\n"                                         /*  2 */
    "layout(triangle_strip, max_vertices = 3) out;\n"                 /*  3 */
    "uniform float u_gain;\n"                                         /*  4 */
    "in float te_value[];\n"                                          /*  5 */
    "out float g_value;\n"                                            /*  6 */
    "\n"                                                              /*  7 */
    TRACE_FUNCS
    "    vec2 seed = vec2(float(gl_PrimitiveIDIn) * 0.25 + 0.875, 2.75 - float(gl_PrimitiveIDIn) * 0.5);\n" /* 20 */
    TRACE_BODY
    "    g_value = acc.x + q.a + float(m) + te_value[0];\n"           /* 36 */
    "    gl_Position = gl_in[0].gl_Position;\n"                       /* 37 */
    "    EmitVertex();\n"                                             /* 38 */
    "    gl_Position = gl_in[1].gl_Position;\n"                       /* 39 */
    "    EmitVertex();\n"                                             /* 40 */
    "    gl_Position = gl_in[2].gl_Position;\n"                       /* 41 */
    "    EmitVertex();\n"                                             /* 42 */
    "    EndPrimitive();\n"                                           /* 43 */
    "}\n";                                                            /* 44 */

static const char *TRACE_FS =
    "#version 430 core\n"                                             /*  1 */
    "uniform float u_gain;\n"                                         /*  2 */
    "in float g_value;\n"                                             /*  3 */
    "out vec4 color;\n"                                               /*  4 */
    "\n\n\n"                                                          /*  5-7 */
    TRACE_FUNCS
    "    vec2 seed = gl_FragCoord.xy * 0.125;\n"                      /* 20 */
    TRACE_BODY
    "    color = vec4(acc, q.a + g_value, float(q.b + m));\n"         /* 36 */
    "}\n";                                                            /* 37 */

static const char *TRACE_CS =
    "#version 430 core\n"                                             /*  1 */
    "layout(local_size_x = 4, local_size_y = 2) in;\n"                /*  2 */
    "layout(std430, binding = 0) buffer Results { vec4 result[]; };\n" /*  3 */
    "uniform float u_gain;\n"                                         /*  4 */
    "\n\n\n"                                                          /*  5-7 */
    TRACE_FUNCS
    "    vec2 seed = vec2(gl_GlobalInvocationID.xy) * 0.25 + vec2(0.5, float(gl_GlobalInvocationID.z));\n" /* 20 */
    TRACE_BODY
    "    uint idx = gl_GlobalInvocationID.x + 8u * gl_GlobalInvocationID.y + 32u * gl_GlobalInvocationID.z;\n" /* 36 */
    "    result[idx] = vec4(acc, q.a, float(q.b + m));\n"             /* 37 */
    "}\n";                                                            /* 38 */

static const struct {
    const char *stage;
    const char *const *source;
} STAGES[] = {
    {"vertex", &TRACE_VS},     {"tess-control", &TRACE_TCS}, {"tess-eval", &TRACE_TES},
    {"geometry", &TRACE_GS},   {"fragment", &TRACE_FS},      {"compute", &TRACE_CS},
};

static void set_gain(GLuint prog) {
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_gain"), GAIN);
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--print")) {
        for (size_t i = 0; i < sizeof STAGES / sizeof STAGES[0]; i++) {
            if (!strcmp(argv[2], STAGES[i].stage)) {
                fputs(*STAGES[i].source, stdout);
                return 0;
            }
        }
        die("--print: unknown stage");
    }
    if (argc != 1) die("usage: egl_trace [--print STAGE]");

    struct egl_app app = egl_app_start(4, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    GLuint draw = glCreateProgram();
    glAttachShader(draw, compile(GL_VERTEX_SHADER, TRACE_VS));
    glAttachShader(draw, compile(GL_TESS_CONTROL_SHADER, TRACE_TCS));
    glAttachShader(draw, compile(GL_TESS_EVALUATION_SHADER, TRACE_TES));
    glAttachShader(draw, compile(GL_GEOMETRY_SHADER, TRACE_GS));
    glAttachShader(draw, compile(GL_FRAGMENT_SHADER, TRACE_FS));
    link_program(draw);
    GLuint dispatch = glCreateProgram();
    glAttachShader(dispatch, compile(GL_COMPUTE_SHADER, TRACE_CS));
    link_program(dispatch);

    egl_app_float_target(SIZE, SIZE);
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    static float zeros[INVOCATIONS * 4];
    GLuint results;
    glGenBuffers(1, &results);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, results);
    glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof zeros, zeros, GL_DYNAMIC_COPY);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, results);

    set_gain(dispatch);
    set_gain(draw);
    glUniform1f(glGetUniformLocation(draw, "u_level"), LEVEL);
    glPatchParameteri(GL_PATCH_VERTICES, 3);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_PATCHES, 0, 3);
    glUseProgram(dispatch);
    glDispatchCompute(2, 2, 2);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);

    static float pixels[SIZE * SIZE * 4], out[INVOCATIONS * 4];
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, pixels);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof out, out);
    double checksum = 0, sum = 0;
    for (int i = 0; i < SIZE * SIZE * 4; i++) checksum += pixels[i];
    for (int i = 0; i < INVOCATIONS * 4; i++) sum += out[i];
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    uint64_t hash = fnv(fnv(FNV_OFFSET, pixels, sizeof pixels), out, sizeof out);
    printf("egl_trace: checksum %.4f, results %.4f, hash %016llx, %s\n", checksum, sum,
           (unsigned long long)hash, (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return 0;
}

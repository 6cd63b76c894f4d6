/* egl_nan: a compute shader that makes NaN and Inf in some invocations, on
 * one line, for gldbg's `catch nan` / `catch inf` (tests/tests/trace_conditions.rs).
 *
 * EGL surfaceless, an OpenGL 4.3 core context, GL from libOpenGL. One
 * dispatch of NAN_CS over 2x2x1 groups of 8x2x1 (a 16x4 extent, 64
 * invocations, idx = x + 16 y). In iteration k of its loop, line 11 divides
 * num = idx % 4 - k by den = 3 - idx / 8 - k (u_one = 1.0 keeps them
 * uniform-dependent): den is 0 in iteration 3 - idx / 8 of the invocations
 * with idx < 32; there r is NaN where num is 0 too (idx 3, 7, 10, 14, 17,
 * 21, 24, 28), else +-Inf. `acc` adds only the finite quotients. The app
 * prints
 *
 *   egl_nan: results R, hash H, <renderer>
 *
 * with R the sum of the results and H their FNV-1a hash.
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_nan"
#include "egl_app.h"

#define INVOCATIONS 64

/* Line numbers matter: the tests name them (trace_conditions.rs, `nan`). */
static const char *NAN_CS =
    "#version 430 core\n"                                                 /*  1 */
    "layout(local_size_x = 8, local_size_y = 2) in;\n"                    /*  2 */
    "layout(std430, binding = 0) buffer Results { float result[]; };\n"   /*  3 */
    "uniform float u_one;\n"                                              /*  4 */
    "void main() {\n"                                                     /*  5 */
    "    uint idx = gl_GlobalInvocationID.x + 16u * gl_GlobalInvocationID.y;\n" /*  6 */
    "    float acc = 0.0;\n"                                              /*  7 */
    "    for (int k = 0; k < 4; ++k) {\n"                                 /*  8 */
    "        float num = float(int(idx % 4u) - k) * u_one;\n"             /*  9 */
    "        float den = float(3 - int(idx / 8u) - k) * u_one;\n"         /* 10 */
    "        float r = num / den;\n"                                      /* 11 */
    "        if (den != 0.0) {\n"                                         /* 12 */
    "            acc += r;\n"                                             /* 13 */
    "        }\n"                                                         /* 14 */
    "    }\n"                                                             /* 15 */
    "    result[idx] = acc;\n"                                            /* 16 */
    "}\n";                                                                /* 17 */

int main(int argc, char **argv) {
    (void)argv;
    (void)egl_app_float_target; /* egl_app.h's, not needed here */
    if (argc != 1) die("usage: egl_nan");
    struct egl_app app = egl_app_start(4, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_COMPUTE_SHADER, NAN_CS));
    link_program(prog);
    static float zeros[INVOCATIONS], out[INVOCATIONS];
    GLuint results;
    glGenBuffers(1, &results);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, results);
    glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof zeros, zeros, GL_DYNAMIC_COPY);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, results);
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_one"), 1.0f);
    glDispatchCompute(2, 2, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof out, out);
    double sum = 0;
    for (int i = 0; i < INVOCATIONS; i++) sum += out[i];
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    printf("egl_nan: results %.4f, hash %016llx, %s\n", sum,
           (unsigned long long)fnv(FNV_OFFSET, out, sizeof out),
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return 0;
}

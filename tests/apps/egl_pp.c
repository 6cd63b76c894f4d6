/* egl_pp: shaders that lean on the GLSL preprocessor, for gldbg's tests.
 *
 * An OpenGL 3.3 core context (EGL surfaceless), one draw of a quad over the
 * whole 64x48 RGBA32F framebuffer, then exit 0.
 *
 *   egl_pp --macro-out    the output is named through a macro chosen by
 *                         `#if __VERSION__ >= 330 ... #else` (the inactive
 *                         branch names a global nobody writes): PP_FS_MACRO
 *   egl_pp --include      an engine header, `#line 1`, and an `#include` of
 *                         the named string /pp/shade.glsl (glNamedStringARB,
 *                         glCompileShaderIncludeARB with search path /pp):
 *                         PP_FS_INCLUDE; the vertex shader includes
 *                         <pos.glsl> (PP_VS_INCLUDE)
 *
 * The fragment at pixel (x, y) (centre x + 0.5, y + 0.5) writes
 * (px / 64, py / 48, 0.25 + 0.5, 1) in both modes (px, py the centre).
 */
#define APP_NAME "egl_pp"
#define GL_GLEXT_PROTOTYPES 1
#include "egl_app.h"
#include <string.h>

static const char *const PP_VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n";

/* --include: the vertex shader takes its input and function from the
 * named string /pp/pos.glsl (a relative path in angle brackets: found
 * through the compile's search path only). */
static const char *const PP_VS_INCLUDE =
    "#version 330 core\n"
    "#extension GL_ARB_shading_language_include : require\n"
    "#include <pos.glsl>\n"
    "void main() { gl_Position = position(); }\n";

static const char *const PP_POS =
    "layout(location = 0) in vec2 a_pos;\n"
    "vec4 position() { return vec4(a_pos, 0.0, 1.0); }\n";

static const char *const PP_FS_MACRO =
    "#version 330 core\n"                                          /*  1 */
    "#if __VERSION__ >= 330\n"                                     /*  2 */
    "#define COLOR frag\n"                                         /*  3 */
    "#else\n"                                                      /*  4 */
    "#define COLOR scratch\n"                                      /*  5 */
    "#endif\n"                                                     /*  6 */
    "layout(location = 0) out vec4 frag;\n"                        /*  7 */
    "vec4 scratch;\n"                                              /*  8 */
    "void main() {\n"                                              /*  9 */
    "    vec2 p = gl_FragCoord.xy;\n"                              /* 10 */
    "    COLOR = vec4(p.x / 64.0, p.y / 48.0, 0.25, 1.0);\n"       /* 11 */
    "    COLOR.z += 0.5;\n"                                        /* 12 */
    "}\n";                                                         /* 13 */

/* The included named string: lines 3-7 for the driver (Mesa numbers them
 * on from the `#include` on line 2, and the including string one line
 * after them: `void main` is 9). */
static const char *const PP_INCLUDED =
    "#define COLOR frag\n"
    "vec4 shade(vec2 p) {\n"
    "    vec4 c = vec4(p.x / 64.0, p.y / 48.0, 0.25, 1.0);\n"
    "    return c;\n"
    "}\n";

/* An engine's header (2 lines), then the user's file from line 1. */
static const char *const PP_FS_INCLUDE =
    "#version 330 core\n"
    "#extension GL_ARB_shading_language_include : require\n"
    "#line 1\n"
    "layout(location = 0) out vec4 frag;\n"                        /* 1 */
    "#include \"shade.glsl\"\n"                                     /* 2 */
    "void main() {\n"                                              /* 9 */
    "    COLOR = shade(gl_FragCoord.xy);\n"                        /* 10 */
    "    COLOR.z += 0.5;\n"                                        /* 11 */
    "}\n";                                                         /* 12 */

/* Extension functions come from eglGetProcAddress (libOpenGL exports core GL only). */
static PFNGLNAMEDSTRINGARBPROC named_string;
static PFNGLCOMPILESHADERINCLUDEARBPROC compile_shader_include;

static GLuint compile_include(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    const char *path = "/pp";
    compile_shader_include(s, 1, &path, NULL);
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

int main(int argc, char **argv) {
    int include = argc > 1 && !strcmp(argv[1], "--include");
    if (argc != 2 || (!include && strcmp(argv[1], "--macro-out")))
        die("usage: egl_pp --macro-out | --include");
    (void)fnv;
    struct egl_app a = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    egl_app_float_target(64, 48);
    GLuint fs, vs;
    if (include) {
        GLint n = 0, has = 0;
        glGetIntegerv(GL_NUM_EXTENSIONS, &n);
        for (GLint i = 0; i < n; i++)
            has |= !strcmp((const char *)glGetStringi(GL_EXTENSIONS, i),
                           "GL_ARB_shading_language_include");
        if (!has) die("the driver lacks GL_ARB_shading_language_include");
        named_string = (PFNGLNAMEDSTRINGARBPROC)eglGetProcAddress("glNamedStringARB");
        compile_shader_include =
            (PFNGLCOMPILESHADERINCLUDEARBPROC)eglGetProcAddress("glCompileShaderIncludeARB");
        if (!named_string || !compile_shader_include) die("no ARB_shading_language_include entry points");
        named_string(GL_SHADER_INCLUDE_ARB, -1, "/pp/shade.glsl", -1, PP_INCLUDED);
        named_string(GL_SHADER_INCLUDE_ARB, -1, "/pp/pos.glsl", -1, PP_POS);
        fs = compile_include(GL_FRAGMENT_SHADER, PP_FS_INCLUDE);
        vs = compile_include(GL_VERTEX_SHADER, PP_VS_INCLUDE);
    } else {
        fs = compile(GL_FRAGMENT_SHADER, PP_FS_MACRO);
        vs = compile(GL_VERTEX_SHADER, PP_VS);
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    link_program(prog);
    glUseProgram(prog);
    static const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    float px[4];
    glReadPixels(20, 10, 1, 1, GL_RGBA, GL_FLOAT, px);
    printf(APP_NAME ": pixel (20,10) = %g %g %g %g\n", px[0], px[1], px[2], px[3]);
    egl_app_end(a);
    return 0;
}

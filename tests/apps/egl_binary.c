/* egl_binary: a program loaded from a binary when it can (a shader cache),
 * for gldbg, which makes apps take their source path.
 *
 * EGL surfaceless, an OpenGL 3.3 core context, a 64x64 RGBA32F framebuffer
 * of its own. The app first asks how many program binary formats there
 * are, through every glGet*v. Its program then comes
 *
 *   --cache FILE, FILE exists: from the binary saved there (format and
 *     bytes) with glProgramBinary, as a shader cache of an earlier run;
 *   no --cache: from a binary of a program it linked from source in this
 *     run (glGetProgramBinary, glProgramBinary into a new program), when
 *     there is a binary format;
 *
 * and, when that fails (LINK_STATUS false) or there is no binary format,
 * from source (attach, link). With --cache and a binary format, the
 * program's binary is saved to FILE after a source link.
 *
 * --no-fallback (with --cache): a program that fails to load from the
 * cache is used as it is (an app without a source path; it then draws
 * nothing and exits 1 with the GL error).
 *
 * --spirv: the program's shaders are SPIR-V instead (glShaderBinary with
 * GL_SHADER_BINARY_FORMAT_SPIR_V, glSpecializeShader; spirv_quad.h, the
 * same formulas): there is no GLSL source at all. Each frame draws
 * one full-window quad; the app checks every pixel against the shader's
 * formula and prints
 *
 *   egl_binary: program from binary|source|spirv, formats I L F B D, frame H, pixels ok, <renderer>
 *
 * with the binary format count as glGetIntegerv, glGetInteger64v,
 * glGetFloatv, glGetBooleanv and glGetDoublev answer it, and an FNV-1a
 * hash H of the last frame. Exit 1 on a GL error or a wrong pixel.
 *
 *   egl_binary [--cache FILE [--no-fallback]] [--spirv] [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_binary"
#include "egl_app.h"
#include "spirv_quad.h"
#include <math.h>
#include <string.h>

#define SIZE 64

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() { gl_Position = vec4(a_pos * 2.0 - 1.0, 0.0, 1.0); }\n";

/* Line numbers matter: tests/tests/app_forms.rs breaks on line 6. */
static const char *FS =
    "#version 330 core\n"                                   /* 1 */
    "out vec4 color;\n"                                     /* 2 */
    "void main() {\n"                                       /* 3 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"         /* 4 */
    "    vec4 v = vec4(p.x, p.y, p.x * p.y, 0.75);\n"       /* 5 */
    "    color = v;\n"                                      /* 6 */
    "}\n";                                                  /* 7 */

static int linked(GLuint p) {
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    return ok;
}

static void link_source(GLuint p) {
    GLuint vs = compile(GL_VERTEX_SHADER, VS), fs = compile(GL_FRAGMENT_SHADER, FS);
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    glLinkProgram(p);
    if (!linked(p)) die("link failed");
    glDetachShader(p, vs);
    glDetachShader(p, fs);
    glDeleteShader(vs);
    glDeleteShader(fs);
}

/* Link `p` from the SPIR-V shaders of spirv_quad.h. */
static void link_spirv(GLuint p) {
    PFNGLSPECIALIZESHADERARBPROC specialize =
        (PFNGLSPECIALIZESHADERARBPROC)eglGetProcAddress("glSpecializeShaderARB");
    if (!specialize) die("no glSpecializeShaderARB");
    const uint32_t *code[2] = {SPIRV_VS, SPIRV_FS};
    const GLsizei size[2] = {sizeof SPIRV_VS, sizeof SPIRV_FS};
    const GLenum type[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
    for (int i = 0; i < 2; i++) {
        GLuint s = glCreateShader(type[i]);
        glShaderBinary(1, &s, GL_SHADER_BINARY_FORMAT_SPIR_V_ARB, code[i], size[i]);
        specialize(s, "main", 0, NULL, NULL);
        GLint ok = 0;
        glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
        if (!ok) die("SPIR-V shader not specialized");
        glAttachShader(p, s);
    }
    glLinkProgram(p);
    if (!linked(p)) die("SPIR-V link failed");
}

/* The binary of `p`: its format in *format, malloc'ed bytes, length in *len. */
static void *get_binary(GLuint p, GLenum *format, GLsizei *len) {
    GLint size = 0;
    glGetProgramiv(p, GL_PROGRAM_BINARY_LENGTH, &size);
    void *bytes = malloc(size > 0 ? size : 1);
    glGetProgramBinary(p, size, len, format, bytes);
    return bytes;
}

/* Load the binary of FILE into `p`; 0 when there is no file. */
static int load_cache(const char *file, GLuint p) {
    FILE *f = fopen(file, "rb");
    if (!f) return 0;
    GLenum format = 0;
    static char bytes[1 << 20];
    size_t n = fread(&format, sizeof format, 1, f);
    size_t len = n == 1 ? fread(bytes, 1, sizeof bytes, f) : 0;
    fclose(f);
    glProgramBinary(p, format, bytes, (GLsizei)len);
    return 1;
}

static void save_cache(const char *file, GLuint p) {
    GLenum format = 0;
    GLsizei len = 0;
    void *bytes = get_binary(p, &format, &len);
    FILE *f = fopen(file, "wb");
    if (!f) die("cannot write the cache file");
    fwrite(&format, sizeof format, 1, f);
    fwrite(bytes, 1, len, f);
    fclose(f);
    free(bytes);
}

int main(int argc, char **argv) {
    int frames = 2, spirv = 0, fallback = 1;
    const char *cache = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cache") && i + 1 < argc) cache = argv[++i];
        else if (!strcmp(argv[i], "--spirv")) spirv = 1;
        else if (!strcmp(argv[i], "--no-fallback")) fallback = 0;
        else die("usage: egl_binary [--cache FILE [--no-fallback]] [--spirv] [--frames N]");
    }
    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    egl_app_float_target(SIZE, SIZE);

    GLint formats = -1;
    GLint64 formats64 = -1;
    GLfloat formatsf = -1;
    GLboolean formatsb = 2;
    GLdouble formatsd = -1;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    glGetInteger64v(GL_NUM_PROGRAM_BINARY_FORMATS, &formats64);
    glGetFloatv(GL_NUM_PROGRAM_BINARY_FORMATS, &formatsf);
    glGetBooleanv(GL_NUM_PROGRAM_BINARY_FORMATS, &formatsb);
    glGetDoublev(GL_NUM_PROGRAM_BINARY_FORMATS, &formatsd);
    /* The list has as many entries as the count says: a sentinel after them. */
    GLint list[9];
    for (int i = 0; i < 9; i++) list[i] = -7;
    if (formats >= 0 && formats < 8) glGetIntegerv(GL_PROGRAM_BINARY_FORMATS, list);
    if (formats < 0 || formats >= 8 || list[formats] != -7) die("the format list overflows its count");

    GLuint prog = glCreateProgram();
    int tried = 0;
    if (spirv) {
        link_spirv(prog);
    } else if (cache) {
        tried = load_cache(cache, prog);
    } else if (formats > 0) {
        GLuint first = glCreateProgram();
        link_source(first);
        GLenum format = 0;
        GLsizei len = 0;
        void *bytes = get_binary(first, &format, &len);
        glProgramBinary(prog, format, bytes, len);
        free(bytes);
        glDeleteProgram(first);
        tried = 1;
    }
    int from_binary = tried && linked(prog);
    if (!from_binary && !spirv && (fallback || !tried)) {
        link_source(prog);
        if (cache && formats > 0) save_cache(cache, prog);
    }

    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    const float quad[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);

    static float px[SIZE * SIZE * 4];
    for (int f = 0; f < frames; f++) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(prog);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, px);
    }
    int ok = 1;
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            float fx = x / 64.0f, fy = y / 64.0f, want[4] = {fx, fy, fx * fy, 0.75f};
            for (int k = 0; k < 4; k++)
                if (px[4 * (y * SIZE + x) + k] != want[k]) ok = 0;
        }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_binary: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_binary: program from %s, formats %d %lld %g %d %g, frame %llu, pixels %s, %s\n",
           spirv ? "spirv" : from_binary ? "binary" : "source", formats, (long long)formats64, formatsf,
           formatsb, formatsd, (unsigned long long)fnv(FNV_OFFSET, px, sizeof px),
           ok ? "ok" : "WRONG", (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return ok ? 0 : 1;
}

/* egl_bindless: sampler uniforms holding bindless texture handles
 * (ARB_bindless_texture), for gldbg's fragment steps.
 *
 * EGL surfaceless, an OpenGL 4.5 core context, a 64x64 RGBA32F framebuffer
 * of its own. Without GL_ARB_bindless_texture (Mesa llvmpipe) it prints
 *
 *   egl_bindless: skipped: no GL_ARB_bindless_texture, <renderer>
 *
 * and exits 0. Otherwise it makes two 1x1 RGBA8 textures, red and green,
 * takes their handles (glGetTextureHandleARB), makes them resident and
 * sets the shader's two bindless samplers: u_red with
 * glUniformHandleui64ARB, u_green with glProgramUniformHandleui64ARB.
 * Each frame draws a full-window quad whose colour is red + 0.5 * green,
 * checks every pixel against (1, 0.5, 0, 1.5) and prints
 *
 *   egl_bindless: N frames, frame H, pixels ok, <renderer>
 *
 *   egl_bindless [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_bindless"
#include "egl_app.h"
#include <string.h>

#define SIZE 64

static const char *VS =
    "#version 450 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() { gl_Position = vec4(a_pos * 2.0 - 1.0, 0.0, 1.0); }\n";

/* Line numbers matter: tests/tests/app_forms.rs breaks on line 9. */
static const char *FS =
    "#version 450 core\n"                                      /*  1 */
    "#extension GL_ARB_bindless_texture : require\n"           /*  2 */
    "layout(bindless_sampler) uniform sampler2D u_red;\n"      /*  3 */
    "layout(bindless_sampler) uniform sampler2D u_green;\n"    /*  4 */
    "out vec4 color;\n"                                        /*  5 */
    "void main() {\n"                                          /*  6 */
    "    vec4 r = texture(u_red, vec2(0.5));\n"                /*  7 */
    "    vec4 g = texture(u_green, vec2(0.5));\n"              /*  8 */
    "    color = r + 0.5 * g;\n"                               /*  9 */
    "}\n";                                                     /* 10 */

static int has_extension(const char *name) {
    GLint n = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++)
        if (!strcmp((const char *)glGetStringi(GL_EXTENSIONS, i), name)) return 1;
    return 0;
}

static GLuint texture(const unsigned char rgba[4]) {
    GLuint t;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, GL_RGBA8, 1, 1);
    glTextureSubImage2D(t, 0, 0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
}

int main(int argc, char **argv) {
    int frames = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else die("usage: egl_bindless [--frames N]");
    }
    struct egl_app app = egl_app_start(4, 5, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    if (!has_extension("GL_ARB_bindless_texture")) {
        printf("egl_bindless: skipped: no GL_ARB_bindless_texture, %s\n",
               (const char *)glGetString(GL_RENDERER));
        egl_app_end(app);
        return 0;
    }
    PFNGLGETTEXTUREHANDLEARBPROC get_handle =
        (PFNGLGETTEXTUREHANDLEARBPROC)eglGetProcAddress("glGetTextureHandleARB");
    PFNGLMAKETEXTUREHANDLERESIDENTARBPROC make_resident =
        (PFNGLMAKETEXTUREHANDLERESIDENTARBPROC)eglGetProcAddress("glMakeTextureHandleResidentARB");
    PFNGLUNIFORMHANDLEUI64ARBPROC uniform_handle =
        (PFNGLUNIFORMHANDLEUI64ARBPROC)eglGetProcAddress("glUniformHandleui64ARB");
    PFNGLPROGRAMUNIFORMHANDLEUI64ARBPROC program_uniform_handle =
        (PFNGLPROGRAMUNIFORMHANDLEUI64ARBPROC)eglGetProcAddress(
            "glProgramUniformHandleui64ARB");
    if (!get_handle || !make_resident || !uniform_handle || !program_uniform_handle)
        die("GL_ARB_bindless_texture without its functions");
    egl_app_float_target(SIZE, SIZE);

    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, VS));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, FS));
    link_program(prog);
    const unsigned char red[4] = {255, 0, 0, 255}, green[4] = {0, 255, 0, 255};
    GLuint64 red_handle = get_handle(texture(red)), green_handle = get_handle(texture(green));
    make_resident(red_handle);
    make_resident(green_handle);
    glUseProgram(prog);
    uniform_handle(glGetUniformLocation(prog, "u_red"), red_handle);
    program_uniform_handle(prog, glGetUniformLocation(prog, "u_green"), green_handle);

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
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, px);
    }
    int right = 1;
    const float want[4] = {1.0f, 0.5f, 0.0f, 1.5f};
    for (int i = 0; i < SIZE * SIZE * 4; i++)
        if (px[i] != want[i % 4]) right = 0;
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_bindless: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_bindless: %d frames, frame %llu, pixels %s, %s\n", frames,
           (unsigned long long)fnv(FNV_OFFSET, px, sizeof px), right ? "ok" : "WRONG",
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return right ? 0 : 1;
}

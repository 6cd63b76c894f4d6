/* egl_srcbp: draws for the edge cases of gldbg's source breakpoints.
 *
 *   egl_srcbp DIR
 *
 * Reads DIR/main.frag and passes it to glShaderSource after a prefix of
 * its own: "#version 330 compatibility", a library function `lib` (source
 * lines 2..9), then "#line 1": the file's line N is the driver's line N,
 * and so is line N of the library (the driver's numbers collide).
 *
 * EGL, an OpenGL 3.3 compatibility context, a 64x64 RGBA32F framebuffer of
 * its own; one frame of a full-screen quad (triangle strip, 4 vertices):
 *
 *   draw 1: no program (fixed function), colour (0.25, 0.5, 0.75, 1);
 *   draw 2: the program with u_mode = 0;
 *   draw 3: the program with u_mode = 1;
 *   draw 4: program 2, u_mode = 1: the same file after another prefix
 *           (PREFIX2: a uniform `g_only2` = 1.0 and `lib(x)` = x + g_only2
 *           on one line, then "#line 1").
 *
 * It prints "egl_srcbp: hash H", H the FNV-1a hash of the framebuffer's
 * floats.
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_srcbp"
#include "egl_app.h"

#include <string.h>

#define SIZE 64

static const char *PREFIX =
    "#version 330 compatibility\n"
    "// a library the app puts before the user's file\n"
    "float lib(float x) {\n"
    "    float y = x + 1.0;\n"
    "    y = y * 3.0;\n"
    "    y = y - 0.5;\n"
    "    y = y * 0.5;\n"
    "    return y;\n"
    "}\n"
    "#line 1\n";

static const char *PREFIX2 =
    "#version 330 compatibility\n"
    "uniform float g_only2;\n"
    "float lib(float x) { return x + g_only2; }\n"
    "#line 1\n";

static const char *VS =
    "#version 330 compatibility\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() {\n"
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"
    "}\n";

int main(int argc, char **argv) {
    if (argc != 2) die("usage: egl_srcbp DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/main.frag", argv[1]);

    struct egl_app a = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);
    GLuint progs[2];
    const char *prefixes[2] = {PREFIX, PREFIX2};
    for (int i = 0; i < 2; i++) {
        char *fs_src = egl_app_read_file(path, prefixes[i]);
        progs[i] = glCreateProgram();
        glAttachShader(progs[i], compile(GL_VERTEX_SHADER, VS));
        glAttachShader(progs[i], compile(GL_FRAGMENT_SHADER, fs_src));
        link_program(progs[i]);
        free(fs_src);
    }
    GLuint p = progs[0], p2 = progs[1];

    static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    /* Attribute 0 is the conventional vertex position too (compatibility). */
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
    glEnableVertexAttribArray(0);

    egl_app_float_target(SIZE, SIZE);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(0);
    glColor4f(0.25f, 0.5f, 0.75f, 1.0f);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glUseProgram(p);
    GLint mode = glGetUniformLocation(p, "u_mode");
    for (int m = 0; m < 2; m++) {
        glUniform1i(mode, m);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    glUseProgram(p2);
    glUniform1f(glGetUniformLocation(p2, "g_only2"), 1.0f);
    glUniform1i(glGetUniformLocation(p2, "u_mode"), 1);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

    static float pixels[SIZE * SIZE * 4];
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, pixels);
    if (glGetError() != GL_NO_ERROR) die("GL error");
    printf(APP_NAME ": hash %016llx\n", (unsigned long long)fnv(FNV_OFFSET, pixels, sizeof pixels));
    egl_app_end(a);
    return 0;
}

/* egl_shared.c: a program built in one EGL context and drawn with in
 * another that shares objects with it, as GTK 4's GL renderer does: the
 * shaders are detached and deleted once the program links, so only the
 * sources recorded in the share group can tell the program's stages. Its
 * fragment shader redeclares gl_FragCoord after a function, as GTK's do.
 *
 * Prints "egl_shared: pixel (8,8) = r g b a" (the float target, read back).
 */
#define APP_NAME "egl_shared"
#include "egl_app.h"

static const char *VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 pos;\n"
    "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

/* As GTK 4's shaders: gl_FragCoord redeclared after a function. */
static const char *FS =
    "#version 330 core\n"
    "out vec4 color;\n"
    "vec2 scaled(vec2 p) {\n"
    "    return p / 32.0;\n"
    "}\n"
    "layout(origin_upper_left) in vec4 gl_FragCoord;\n"
    "void main() {\n"
    "    vec2 p = scaled(gl_FragCoord.xy);\n"
    "    color = vec4(p, p.x * p.y, 0.5);\n"
    "}\n";

int main(void) {
    struct egl_app a = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    /* The program: built in the first context, its shaders thrown away. */
    GLuint vs = compile(GL_VERTEX_SHADER, VS), fs = compile(GL_FRAGMENT_SHADER, FS);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    link_program(prog);
    glDetachShader(prog, vs);
    glDetachShader(prog, fs);
    glDeleteShader(vs);
    glDeleteShader(fs);
    glFinish();

    /* A second context sharing with the first draws with it. */
    EGLConfig cfg;
    EGLint n = 0;
    const EGLint cfg_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                EGL_OPENGL_BIT, EGL_NONE};
    if (!eglChooseConfig(a.dpy, cfg_attrs, &cfg, 1, &n) || n < 1) die("no EGL config");
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext draw_ctx = eglCreateContext(a.dpy, cfg, a.ctx, ctx_attrs);
    if (draw_ctx == EGL_NO_CONTEXT) die("no shared context");
    if (!eglMakeCurrent(a.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, draw_ctx))
        die("eglMakeCurrent failed");
    egl_app_float_target(32, 32);
    static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    glUseProgram(prog);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    float px[4];
    glReadPixels(8, 8, 1, 1, GL_RGBA, GL_FLOAT, px);
    printf("egl_shared: pixel (8,8) = %g %g %g %g\n", px[0], px[1], px[2], px[3]);
    eglMakeCurrent(a.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(a.dpy, draw_ctx);
    egl_app_end(a);
    return 0;
}

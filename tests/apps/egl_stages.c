/* egl_stages: headless tessellation + geometry test app for gldbg.
 *
 * EGL surfaceless, an OpenGL 4.3 core context, GL linked from libOpenGL.
 * One patch of three vertices (made from gl_VertexID: no vertex buffer)
 * goes through STAGES_TCS (levels u_level), STAGES_TES (a loop over the
 * tess coordinate: te_value = c.x + 2 c.y + 3 c.z) and STAGES_GS (a loop
 * emitting each triangle again with g_value = te_value * 2 + primitive id)
 * into a 32x32 RGBA32F FBO; the app prints
 *
 *   egl_stages: N frames, checksum C, <renderer>
 *
 * where C sums the red channel of the last frame (the fragment shader
 * writes g_value there).
 *
 *   egl_stages [--frames N] [--dump-state PATH] [--busy-state]
 *
 * --dump-state: append state_dump.h's dump of the whole GL state to PATH
 *               right before and right after the first frame's draw
 *               ("before draw 1", "after draw 1") and after the last
 *               frame ("final": the frame's hash among it).
 * --busy-state: before the frames, set state the draw does not depend on
 *               to values other than the defaults (state_set_busy()).
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state_dump.h"

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

#define SIZE 32

static const char *STAGES_VS =
    "#version 400 core\n"
    "void main() {\n"
    "    gl_Position = vec4(float(gl_VertexID % 2) * 1.8 - 0.9, float(gl_VertexID / 2) * 1.8 - 0.9, 0.0, 1.0);\n"
    "}\n";

static const char *STAGES_TCS =
    "#version 400 core\n"
    "layout(vertices = 3) out;\n"
    "uniform float u_level;\n"
    "void main() {\n"
    "    gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n"
    "    gl_TessLevelInner[0] = u_level;\n"
    "    gl_TessLevelOuter[0] = u_level;\n"
    "    gl_TessLevelOuter[1] = u_level;\n"
    "    gl_TessLevelOuter[2] = u_level;\n"
    "}\n";

/* Line numbers matter: the tests break on them (tests/src/lib.rs, stages). */
static const char *STAGES_TES =
    "#version 400 core\n"                                                /*  1 */
    "layout(triangles, equal_spacing, ccw) in;\n"                        /*  2 */
    "out float te_value;\n"                                              /*  3 */
    "void main() {\n"                                                    /*  4 */
    "    vec3 c = gl_TessCoord;\n"                                       /*  5 */
    "    float w = 0.0;\n"                                               /*  6 */
    "    for (int k = 0; k < 3; ++k) {\n"                                /*  7 */
    "        w += c[k] * float(k + 1);\n"                                /*  8 */
    "    }\n"                                                            /*  9 */
    "    te_value = w;\n"                                                /* 10 */
    "    gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position\n" /* 11 */
    "        + c.z * gl_in[2].gl_Position;\n"                            /* 12 */
    "}\n";                                                               /* 13 */

static const char *STAGES_GS =
    "#version 400 core\n"                                                /*  1 */
    "layout(triangles) in;\n"                                            /*  2 */
    "layout(triangle_strip, max_vertices = 3) out;\n"                    /*  3 */
    "in float te_value[];\n"                                             /*  4 */
    "out float g_value;\n"                                               /*  5 */
    "void main() {\n"                                                    /*  6 */
    "    for (int i = 0; i < 3; ++i) {\n"                                /*  7 */
    "        float s = te_value[i] * 2.0 + float(gl_PrimitiveIDIn);\n"   /*  8 */
    "        g_value = s;\n"                                             /*  9 */
    "        gl_Position = gl_in[i].gl_Position;\n"                      /* 10 */
    "        EmitVertex();\n"                                            /* 11 */
    "    }\n"                                                            /* 12 */
    "    EndPrimitive();\n"                                              /* 13 */
    "}\n";                                                               /* 14 */

static const char *STAGES_FS =
    "#version 400 core\n"
    "in float g_value;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "    color = vec4(g_value, 0.0, 0.0, 1.0);\n"
    "}\n";

static void die(const char *what) {
    fprintf(stderr, "egl_stages: %s\n", what);
    exit(1);
}

static void context(void) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) die("no EGL display");
    if (!eglBindAPI(EGL_OPENGL_API)) die("eglBindAPI failed");
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK,
                            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attrs);
    if (ctx == EGL_NO_CONTEXT) die("no GL 4.3 core context");
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("eglMakeCurrent failed");
}

static void attach(GLuint prog, GLenum type, const char *src) {
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        fprintf(stderr, "%s\n", log);
        die("a shader did not compile");
    }
    glAttachShader(prog, sh);
}

int main(int argc, char **argv) {
    int frames = 2;
    const char *dump = NULL;
    int busy = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dump-state") && i + 1 < argc) dump = argv[++i];
        else if (!strcmp(argv[i], "--busy-state")) busy = 1;
        else die("usage: egl_stages [--frames N] [--dump-state PATH] [--busy-state]");
    }
    context();
    GLuint prog = glCreateProgram();
    attach(prog, GL_VERTEX_SHADER, STAGES_VS);
    attach(prog, GL_TESS_CONTROL_SHADER, STAGES_TCS);
    attach(prog, GL_TESS_EVALUATION_SHADER, STAGES_TES);
    attach(prog, GL_GEOMETRY_SHADER, STAGES_GS);
    attach(prog, GL_FRAGMENT_SHADER, STAGES_FS);
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) die("the program did not link");

    GLuint rb, fbo, vao;
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA32F, SIZE, SIZE);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    glViewport(0, 0, SIZE, SIZE);
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glUseProgram(prog);
    glUniform1f(glGetUniformLocation(prog, "u_level"), 3.0f);
    glPatchParameteri(GL_PATCH_VERTICES, 3);
    static float pixels[SIZE * SIZE * 4];
    if (busy) state_set_busy();
    for (int f = 0; f < frames; f++) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        if (dump && f == 0) state_dump(dump, "before draw 1");
        glDrawArrays(GL_PATCHES, 0, 3);
        if (dump && f == 0) state_dump(dump, "after draw 1");
    }
    if (dump) state_dump(dump, "final");
    glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, pixels);
    double checksum = 0;
    for (int i = 0; i < SIZE * SIZE; i++) checksum += pixels[i * 4];
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    printf("egl_stages: %d frames, checksum %.4f, %s\n", frames, checksum,
           (const char *)glGetString(GL_RENDERER));
    return 0;
}

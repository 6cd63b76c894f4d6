/* egl_shade: headless GL test app for gldbg.
 *
 * EGL surfaceless platform (EGL_PLATFORM_SURFACELESS_MESA), EGL_NO_CONFIG_KHR,
 * an OpenGL 3.3 core context, and every GL function loaded ONLY through
 * eglGetProcAddress (the program links libEGL alone: glad/GLEW style).
 * Renders N frames of a quad into a 64x48 RGBA8 + depth FBO with the shaders
 * of shade_common.h and writes the last frame (glReadPixels, RGBA8, rows
 * bottom-up as GL returns them, no header) to --out FILE.
 *
 *   egl_shade [--frames N] [--out FILE] [--crash] [--subroutine] [--nested-concat]
 *
 * --crash: after the first draw, glBufferData with a bogus data pointer
 *          ((void *)16, 1 MiB): the driver faults inside the call (SIGSEGV).
 * --subroutine: use SHADE_FS_SUBROUTINE (#version 400, subroutine(T)).
 * --nested-concat: use SHADE_FS_NESTED_CONCAT (a nested ## concatenation).
 * --gl-error: raise GL_INVALID_ENUM (glEnable(0x1234)) before the first draw
 *          and check after it that glGetError still reports it (exit 4 if not):
 *          a debugger must leave the app's error state alone.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shade_common.h"

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif
#ifndef EGL_NO_CONFIG_KHR
#define EGL_NO_CONFIG_KHR ((EGLConfig)0)
#endif

/* Our own GL types and constants: no GL header, no GL prototypes. */
typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLint;
typedef int GLsizei;
typedef float GLfloat;
typedef unsigned char GLboolean;
typedef unsigned int GLbitfield;
typedef char GLchar;
typedef ptrdiff_t GLsizeiptr;
typedef ptrdiff_t GLintptr;

#define GL_NO_ERROR 0
#define GL_INVALID_ENUM 0x0500
#define GL_TRIANGLES 0x0004
#define GL_LESS 0x0201
#define GL_DEPTH_TEST 0x0B71
#define GL_UNSIGNED_BYTE 0x1401
#define GL_FLOAT 0x1406
#define GL_RGBA 0x1908
#define GL_RGBA8 0x8058
#define GL_DEPTH_COMPONENT24 0x81A6
#define GL_ARRAY_BUFFER 0x8892
#define GL_STATIC_DRAW 0x88E4
#define GL_FRAGMENT_SHADER 0x8B30
#define GL_VERTEX_SHADER 0x8B31
#define GL_COMPILE_STATUS 0x8B81
#define GL_LINK_STATUS 0x8B82
#define GL_FRAMEBUFFER 0x8D40
#define GL_RENDERBUFFER 0x8D41
#define GL_COLOR_ATTACHMENT0 0x8CE0
#define GL_DEPTH_ATTACHMENT 0x8D00
#define GL_FRAMEBUFFER_COMPLETE 0x8CD5
#define GL_COLOR_BUFFER_BIT 0x00004000
#define GL_DEPTH_BUFFER_BIT 0x00000100
#define GL_PACK_ALIGNMENT 0x0D05
#define GL_VERSION 0x1F02
#define GL_RENDERER 0x1F01

typedef GLuint (*PFN_CreateShader)(GLenum);
typedef void (*PFN_ShaderSource)(GLuint, GLsizei, const GLchar *const *, const GLint *);
typedef void (*PFN_CompileShader)(GLuint);
typedef void (*PFN_GetShaderiv)(GLuint, GLenum, GLint *);
typedef void (*PFN_GetShaderInfoLog)(GLuint, GLsizei, GLsizei *, GLchar *);
typedef GLuint (*PFN_CreateProgram)(void);
typedef void (*PFN_AttachShader)(GLuint, GLuint);
typedef void (*PFN_LinkProgram)(GLuint);
typedef void (*PFN_GetProgramiv)(GLuint, GLenum, GLint *);
typedef void (*PFN_GetProgramInfoLog)(GLuint, GLsizei, GLsizei *, GLchar *);
typedef void (*PFN_UseProgram)(GLuint);
typedef GLint (*PFN_GetUniformLocation)(GLuint, const GLchar *);
typedef void (*PFN_Uniform1f)(GLint, GLfloat);
typedef void (*PFN_GenVertexArrays)(GLsizei, GLuint *);
typedef void (*PFN_BindVertexArray)(GLuint);
typedef void (*PFN_GenBuffers)(GLsizei, GLuint *);
typedef void (*PFN_BindBuffer)(GLenum, GLuint);
typedef void (*PFN_BufferData)(GLenum, GLsizeiptr, const void *, GLenum);
typedef void (*PFN_VertexAttribPointer)(GLuint, GLint, GLenum, GLboolean, GLsizei, const void *);
typedef void (*PFN_EnableVertexAttribArray)(GLuint);
typedef void (*PFN_GenFramebuffers)(GLsizei, GLuint *);
typedef void (*PFN_BindFramebuffer)(GLenum, GLuint);
typedef void (*PFN_GenRenderbuffers)(GLsizei, GLuint *);
typedef void (*PFN_BindRenderbuffer)(GLenum, GLuint);
typedef void (*PFN_RenderbufferStorage)(GLenum, GLenum, GLsizei, GLsizei);
typedef void (*PFN_FramebufferRenderbuffer)(GLenum, GLenum, GLenum, GLuint);
typedef GLenum (*PFN_CheckFramebufferStatus)(GLenum);
typedef void (*PFN_Viewport)(GLint, GLint, GLsizei, GLsizei);
typedef void (*PFN_ClearColor)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*PFN_Clear)(GLbitfield);
typedef void (*PFN_Enable)(GLenum);
typedef void (*PFN_DepthFunc)(GLenum);
typedef void (*PFN_DrawArrays)(GLenum, GLint, GLsizei);
typedef void (*PFN_ReadPixels)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *);
typedef void (*PFN_PixelStorei)(GLenum, GLint);
typedef void (*PFN_Finish)(void);
typedef GLenum (*PFN_GetError)(void);
typedef const unsigned char *(*PFN_GetString)(GLenum);
typedef GLuint (*PFN_GetSubroutineIndex)(GLuint, GLenum, const GLchar *);
typedef void (*PFN_UniformSubroutinesuiv)(GLenum, GLsizei, const GLuint *);

static struct {
    PFN_CreateShader CreateShader;
    PFN_ShaderSource ShaderSource;
    PFN_CompileShader CompileShader;
    PFN_GetShaderiv GetShaderiv;
    PFN_GetShaderInfoLog GetShaderInfoLog;
    PFN_CreateProgram CreateProgram;
    PFN_AttachShader AttachShader;
    PFN_LinkProgram LinkProgram;
    PFN_GetProgramiv GetProgramiv;
    PFN_GetProgramInfoLog GetProgramInfoLog;
    PFN_UseProgram UseProgram;
    PFN_GetUniformLocation GetUniformLocation;
    PFN_Uniform1f Uniform1f;
    PFN_GenVertexArrays GenVertexArrays;
    PFN_BindVertexArray BindVertexArray;
    PFN_GenBuffers GenBuffers;
    PFN_BindBuffer BindBuffer;
    PFN_BufferData BufferData;
    PFN_VertexAttribPointer VertexAttribPointer;
    PFN_EnableVertexAttribArray EnableVertexAttribArray;
    PFN_GenFramebuffers GenFramebuffers;
    PFN_BindFramebuffer BindFramebuffer;
    PFN_GenRenderbuffers GenRenderbuffers;
    PFN_BindRenderbuffer BindRenderbuffer;
    PFN_RenderbufferStorage RenderbufferStorage;
    PFN_FramebufferRenderbuffer FramebufferRenderbuffer;
    PFN_CheckFramebufferStatus CheckFramebufferStatus;
    PFN_Viewport Viewport;
    PFN_ClearColor ClearColor;
    PFN_Clear Clear;
    PFN_Enable Enable;
    PFN_DepthFunc DepthFunc;
    PFN_DrawArrays DrawArrays;
    PFN_ReadPixels ReadPixels;
    PFN_PixelStorei PixelStorei;
    PFN_Finish Finish;
    PFN_GetError GetError;
    PFN_GetString GetString;
    PFN_GetSubroutineIndex GetSubroutineIndex;
    PFN_UniformSubroutinesuiv UniformSubroutinesuiv;
} gl;

static void die(const char *what) {
    fprintf(stderr, "egl_shade: %s\n", what);
    exit(2);
}

static void *load(const char *name) {
    void *p = (void *)eglGetProcAddress(name);
    if (!p) {
        fprintf(stderr, "egl_shade: eglGetProcAddress(%s) failed\n", name);
        exit(2);
    }
    return p;
}

#define LOAD(f) gl.f = (PFN_##f)load("gl" #f)

static void load_gl(void) {
    LOAD(CreateShader); LOAD(ShaderSource); LOAD(CompileShader); LOAD(GetShaderiv);
    LOAD(GetShaderInfoLog); LOAD(CreateProgram); LOAD(AttachShader); LOAD(LinkProgram);
    LOAD(GetProgramiv); LOAD(GetProgramInfoLog); LOAD(UseProgram); LOAD(GetUniformLocation);
    LOAD(Uniform1f); LOAD(GenVertexArrays); LOAD(BindVertexArray); LOAD(GenBuffers);
    LOAD(BindBuffer); LOAD(BufferData); LOAD(VertexAttribPointer); LOAD(EnableVertexAttribArray);
    LOAD(GenFramebuffers); LOAD(BindFramebuffer); LOAD(GenRenderbuffers); LOAD(BindRenderbuffer);
    LOAD(RenderbufferStorage); LOAD(FramebufferRenderbuffer); LOAD(CheckFramebufferStatus);
    LOAD(Viewport); LOAD(ClearColor); LOAD(Clear); LOAD(Enable); LOAD(DepthFunc);
    LOAD(DrawArrays); LOAD(ReadPixels); LOAD(PixelStorei); LOAD(Finish); LOAD(GetError);
    LOAD(GetString); LOAD(GetSubroutineIndex); LOAD(UniformSubroutinesuiv);
}

static GLuint compile(GLenum type, const char *src) {
    GLuint s = gl.CreateShader(type);
    gl.ShaderSource(s, 1, &src, NULL);
    gl.CompileShader(s);
    GLint ok = 0;
    gl.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        gl.GetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "egl_shade: shader compile failed:\n%s\n", log);
        exit(2);
    }
    return s;
}

int main(int argc, char **argv) {
    int frames = 3, crash = 0, subroutine = 0, nested_concat = 0, gl_error = 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--crash")) crash = 1;
        else if (!strcmp(argv[i], "--subroutine")) subroutine = 1;
        else if (!strcmp(argv[i], "--nested-concat")) nested_concat = 1;
        else if (!strcmp(argv[i], "--gl-error")) gl_error = 1;
        else {
            fprintf(stderr, "usage: egl_shade [--frames N] [--out FILE] [--crash] [--subroutine] [--nested-concat] [--gl-error]\n");
            return 2;
        }
    }
    if (frames < 1) frames = 1;

    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (get_platform_display)
        dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dpy == EGL_NO_DISPLAY) die("no surfaceless EGL display");
    EGLint major, minor;
    if (!eglInitialize(dpy, &major, &minor)) die("eglInitialize failed");
    if (!eglBindAPI(EGL_OPENGL_API)) die("eglBindAPI(EGL_OPENGL_API) failed");
    const EGLint ctx_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, subroutine ? 4 : 3,
        EGL_CONTEXT_MINOR_VERSION, subroutine ? 0 : 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
        EGL_NONE,
    };
    EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attribs);
    if (ctx == EGL_NO_CONTEXT) die("eglCreateContext failed");
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("eglMakeCurrent failed");

    load_gl();

    GLuint fbo, rb_color, rb_depth;
    gl.GenFramebuffers(1, &fbo);
    gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
    gl.GenRenderbuffers(1, &rb_color);
    gl.BindRenderbuffer(GL_RENDERBUFFER, rb_color);
    gl.RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, SHADE_W, SHADE_H);
    gl.FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb_color);
    gl.GenRenderbuffers(1, &rb_depth);
    gl.BindRenderbuffer(GL_RENDERBUFFER, rb_depth);
    gl.RenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, SHADE_W, SHADE_H);
    gl.FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb_depth);
    if (gl.CheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        die("framebuffer incomplete");

    GLuint vs = compile(GL_VERTEX_SHADER, SHADE_VS);
    GLuint fs = compile(GL_FRAGMENT_SHADER,
                        subroutine ? SHADE_FS_SUBROUTINE : nested_concat ? SHADE_FS_NESTED_CONCAT : SHADE_FS);
    GLuint prog = gl.CreateProgram();
    gl.AttachShader(prog, vs);
    gl.AttachShader(prog, fs);
    gl.LinkProgram(prog);
    GLint linked = 0;
    gl.GetProgramiv(prog, GL_LINK_STATUS, &linked);
    if (!linked) {
        char log[4096];
        gl.GetProgramInfoLog(prog, sizeof log, NULL, log);
        fprintf(stderr, "egl_shade: link failed:\n%s\n", log);
        return 2;
    }
    GLint u_gain = gl.GetUniformLocation(prog, "u_gain");

    GLuint vao, vbo;
    gl.GenVertexArrays(1, &vao);
    gl.BindVertexArray(vao);
    gl.GenBuffers(1, &vbo);
    gl.BindBuffer(GL_ARRAY_BUFFER, vbo);
    gl.BufferData(GL_ARRAY_BUFFER, sizeof SHADE_QUAD, SHADE_QUAD, GL_STATIC_DRAW);
    gl.VertexAttribPointer(0, 2, GL_FLOAT, 0, 0, (const void *)0);
    gl.EnableVertexAttribArray(0);

    gl.Viewport(0, 0, SHADE_W, SHADE_H);
    gl.Enable(GL_DEPTH_TEST);
    gl.DepthFunc(GL_LESS);

    static unsigned char pixels[SHADE_W * SHADE_H * 4];
    for (int frame = 0; frame < frames; frame++) {
        gl.ClearColor(0.1f, 0.2f, 0.3f, 1.0f);
        gl.Clear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        gl.UseProgram(prog);
        gl.Uniform1f(u_gain, shade_gain(frame));
        if (subroutine) {
            GLuint index = gl.GetSubroutineIndex(prog, GL_FRAGMENT_SHADER, "shadeA");
            gl.UniformSubroutinesuiv(GL_FRAGMENT_SHADER, 1, &index);
        }
        if (gl_error && frame == 0) gl.Enable(0x1234); /* GL_INVALID_ENUM */
        gl.DrawArrays(GL_TRIANGLES, 0, 6);
        if (gl_error && frame == 0) {
            GLenum e = gl.GetError();
            if (e != GL_INVALID_ENUM) {
                fprintf(stderr, "egl_shade: expected GL_INVALID_ENUM after the first draw, got 0x%04x\n", e);
                return 4;
            }
            printf("egl_shade: GL_INVALID_ENUM kept\n");
        }
        if (crash) {
            fprintf(stderr, "egl_shade: calling glBufferData with a bogus pointer\n");
            fflush(stderr);
            gl.BufferData(GL_ARRAY_BUFFER, 1 << 20, (const void *)16, GL_STATIC_DRAW);
            gl.Finish();
        }
        if (frame == frames - 1) {
            gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
            gl.ReadPixels(0, 0, SHADE_W, SHADE_H, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        }
    }
    GLenum err = gl.GetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_shade: GL error 0x%04x\n", err);
        return 3;
    }
    if (out) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(pixels, 1, sizeof pixels, f) != sizeof pixels || fclose(f) != 0) {
            perror(out);
            return 2;
        }
    }
    printf("egl_shade: %d frames, %s\n", frames, (const char *)gl.GetString(GL_RENDERER));
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return 0;
}

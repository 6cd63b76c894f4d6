/* quad_common.h: the GL side shared by the apps of real_apps.rs and
 * survival.rs (survivor.c, threads2.c, sdl_core.c).
 *
 * Glad/GLEW style: no GL prototypes are linked; every GL function is loaded
 * into a function pointer through a GetProcAddress the app passes in
 * (eglGetProcAddress, SDL_GL_GetProcAddress, glfwGetProcAddress).
 *
 * The program draws a viewport-filling quad (two triangles) with QUAD_FS;
 * tests compute the same formula on the CPU:
 *   w = p.x * 0.015625 + p.y * u_k   (p = gl_FragCoord.xy, pixel centres)
 *   frag = vec4(fract(w), p.x / 64.0, p.y / 48.0, 1.0)
 */
#ifndef QUAD_COMMON_H
#define QUAD_COMMON_H

#include <GL/glcorearb.h>
#include <stdio.h>
#include <stdlib.h>

/* Lines of QUAD_FS that tests name: 5 `vec2 p`, 6 `float w`, 7 `frag = ...`. */
static const char *const QUAD_VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
static const char *const QUAD_FS =
    "#version 330 core\n"
    "uniform float u_k;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "    vec2 p = gl_FragCoord.xy;\n"
    "    float w = p.x * 0.015625 + p.y * u_k;\n"
    "    frag = vec4(fract(w), p.x / 64.0, p.y / 48.0, 1.0);\n"
    "}\n";

typedef void *(*quad_get_proc)(const char *name);

/* Function pointers, named like the GL functions they hold. */
struct quad_gl {
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLGETSHADERIVPROC GetShaderiv;
    PFNGLGETSHADERINFOLOGPROC GetShaderInfoLog;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLGETPROGRAMIVPROC GetProgramiv;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation;
    PFNGLUNIFORM1FPROC Uniform1f;
    PFNGLGENVERTEXARRAYSPROC GenVertexArrays;
    PFNGLBINDVERTEXARRAYPROC BindVertexArray;
    PFNGLGENBUFFERSPROC GenBuffers;
    PFNGLBINDBUFFERPROC BindBuffer;
    PFNGLBUFFERDATAPROC BufferData;
    PFNGLVERTEXATTRIBPOINTERPROC VertexAttribPointer;
    PFNGLENABLEVERTEXATTRIBARRAYPROC EnableVertexAttribArray;
    PFNGLGENFRAMEBUFFERSPROC GenFramebuffers;
    PFNGLBINDFRAMEBUFFERPROC BindFramebuffer;
    PFNGLGENRENDERBUFFERSPROC GenRenderbuffers;
    PFNGLBINDRENDERBUFFERPROC BindRenderbuffer;
    PFNGLRENDERBUFFERSTORAGEPROC RenderbufferStorage;
    PFNGLFRAMEBUFFERRENDERBUFFERPROC FramebufferRenderbuffer;
    PFNGLVIEWPORTPROC Viewport;
    PFNGLCLEARCOLORPROC ClearColor;
    PFNGLCLEARPROC Clear;
    PFNGLDRAWARRAYSPROC DrawArrays;
    PFNGLPIXELSTOREIPROC PixelStorei;
    PFNGLREADPIXELSPROC ReadPixels;
    PFNGLFINISHPROC Finish;
    PFNGLGETSTRINGPROC GetString;
};

#define QUAD_LOAD(gl, get, name)                                        \
    do {                                                                \
        *(void **)&(gl)->name = get("gl" #name);                        \
        if (!(gl)->name) {                                              \
            fprintf(stderr, "GetProcAddress(gl%s) failed\n", #name);    \
            exit(2);                                                    \
        }                                                               \
    } while (0)

static void quad_load(struct quad_gl *gl, quad_get_proc get) {
    QUAD_LOAD(gl, get, CreateShader); QUAD_LOAD(gl, get, ShaderSource);
    QUAD_LOAD(gl, get, CompileShader); QUAD_LOAD(gl, get, GetShaderiv);
    QUAD_LOAD(gl, get, GetShaderInfoLog); QUAD_LOAD(gl, get, CreateProgram);
    QUAD_LOAD(gl, get, AttachShader); QUAD_LOAD(gl, get, LinkProgram);
    QUAD_LOAD(gl, get, GetProgramiv); QUAD_LOAD(gl, get, UseProgram);
    QUAD_LOAD(gl, get, GetUniformLocation); QUAD_LOAD(gl, get, Uniform1f);
    QUAD_LOAD(gl, get, GenVertexArrays); QUAD_LOAD(gl, get, BindVertexArray);
    QUAD_LOAD(gl, get, GenBuffers); QUAD_LOAD(gl, get, BindBuffer);
    QUAD_LOAD(gl, get, BufferData); QUAD_LOAD(gl, get, VertexAttribPointer);
    QUAD_LOAD(gl, get, EnableVertexAttribArray); QUAD_LOAD(gl, get, GenFramebuffers);
    QUAD_LOAD(gl, get, BindFramebuffer); QUAD_LOAD(gl, get, GenRenderbuffers);
    QUAD_LOAD(gl, get, BindRenderbuffer); QUAD_LOAD(gl, get, RenderbufferStorage);
    QUAD_LOAD(gl, get, FramebufferRenderbuffer); QUAD_LOAD(gl, get, Viewport);
    QUAD_LOAD(gl, get, ClearColor); QUAD_LOAD(gl, get, Clear);
    QUAD_LOAD(gl, get, DrawArrays); QUAD_LOAD(gl, get, PixelStorei);
    QUAD_LOAD(gl, get, ReadPixels); QUAD_LOAD(gl, get, Finish);
    QUAD_LOAD(gl, get, GetString);
}

static GLuint quad_shader(struct quad_gl *gl, GLenum type, const char *src) {
    GLuint s = gl->CreateShader(type);
    gl->ShaderSource(s, 1, &src, NULL);
    gl->CompileShader(s);
    GLint ok = 0;
    gl->GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        gl->GetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "shader: %s\n", log);
        exit(3);
    }
    return s;
}

/* Builds the program and the quad's vertex array; returns u_k's location. */
static GLint quad_setup(struct quad_gl *gl, const char *fs) {
    GLuint p = gl->CreateProgram();
    gl->AttachShader(p, quad_shader(gl, GL_VERTEX_SHADER, QUAD_VS));
    gl->AttachShader(p, quad_shader(gl, GL_FRAGMENT_SHADER, fs));
    gl->LinkProgram(p);
    GLint ok = 0;
    gl->GetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        fprintf(stderr, "link failed\n");
        exit(3);
    }
    gl->UseProgram(p);
    static const float quad[] = { -1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1 };
    GLuint vao, vbo;
    gl->GenVertexArrays(1, &vao);
    gl->BindVertexArray(vao);
    gl->GenBuffers(1, &vbo);
    gl->BindBuffer(GL_ARRAY_BUFFER, vbo);
    gl->BufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    gl->VertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    gl->EnableVertexAttribArray(0);
    return gl->GetUniformLocation(p, "u_k");
}

/* An RGBA8 framebuffer object of w x h, bound (headless apps draw into it). */
static inline void quad_fbo(struct quad_gl *gl, int w, int h) {
    GLuint fb, rb;
    gl->GenFramebuffers(1, &fb);
    gl->BindFramebuffer(GL_FRAMEBUFFER, fb);
    gl->GenRenderbuffers(1, &rb);
    gl->BindRenderbuffer(GL_RENDERBUFFER, rb);
    gl->RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    gl->FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
}

/* One frame: clear, set u_k, draw the quad. */
static void quad_frame(struct quad_gl *gl, GLint loc, float k, int w, int h) {
    gl->Viewport(0, 0, w, h);
    gl->ClearColor(0.1f, 0.2f, 0.3f, 1.0f);
    gl->Clear(GL_COLOR_BUFFER_BIT);
    gl->Uniform1f(loc, k);
    gl->DrawArrays(GL_TRIANGLES, 0, 6);
}

/* FNV-1a hash of the current read framebuffer's w x h RGBA8 pixels. */
static unsigned long quad_checksum(struct quad_gl *gl, int w, int h) {
    unsigned char *px = malloc((size_t)w * h * 4);
    gl->PixelStorei(GL_PACK_ALIGNMENT, 1);
    gl->ReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    unsigned long hash = 1469598103934665603UL;
    for (long i = 0; i < (long)w * h * 4; i++) hash = (hash ^ px[i]) * 1099511628211UL;
    free(px);
    return hash;
}

#endif

/* Subroutine state for the preload: EGL surfaceless GL 4.0 core. Selects the
 * non-default subroutine once, then draws two triangles without selecting
 * again (the selection lasts until the next glUseProgram). A debugger that
 * switches programs during a stop must put the selection back. Prints a hash
 * of the 32x32 image. */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <stdio.h>
#include <stdlib.h>

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);
#define G(type, name) type name = (type)eglGetProcAddress(#name)

static const char *vs = "#version 400 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs =
  "#version 400 core\n"
  "subroutine vec4 colorFn();\n"
  "subroutine(colorFn) vec4 red() { return vec4(1.0, 0.0, 0.0, 1.0); }\n"
  "subroutine(colorFn) vec4 blue() { return vec4(0.0, 0.0, 1.0, 1.0); }\n"
  "subroutine uniform colorFn pick;\n"
  "out vec4 frag;\n"
  "void main() { frag = pick(); }\n";

int main(void) {
  G(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT); G(PFNEGLINITIALIZEPROC, eglInitialize);
  G(PFNEGLBINDAPIPROC, eglBindAPI); G(PFNEGLCREATECONTEXTPROC, eglCreateContext); G(PFNEGLMAKECURRENTPROC, eglMakeCurrent);
  EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (!eglInitialize(dpy, NULL, NULL)) return 2;
  eglBindAPI(EGL_OPENGL_API);
  EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 0,
                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
  if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "no context\n"); return 2; }
  G(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers); G(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer);
  G(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers); G(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer);
  G(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage); G(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer);
  G(PFNGLCREATESHADERPROC, glCreateShader); G(PFNGLSHADERSOURCEPROC, glShaderSource); G(PFNGLCOMPILESHADERPROC, glCompileShader);
  G(PFNGLCREATEPROGRAMPROC, glCreateProgram); G(PFNGLATTACHSHADERPROC, glAttachShader); G(PFNGLLINKPROGRAMPROC, glLinkProgram);
  G(PFNGLUSEPROGRAMPROC, glUseProgram); G(PFNGLGETSUBROUTINEINDEXPROC, glGetSubroutineIndex);
  G(PFNGLUNIFORMSUBROUTINESUIVPROC, glUniformSubroutinesuiv);
  G(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays); G(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray);
  G(PFNGLGENBUFFERSPROC, glGenBuffers); G(PFNGLBINDBUFFERPROC, glBindBuffer); G(PFNGLBUFFERDATAPROC, glBufferData);
  G(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer); G(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray);
  G(PFNGLVIEWPORTPROC, glViewport); G(PFNGLCLEARPROC, glClear); G(PFNGLDRAWARRAYSPROC, glDrawArrays);
  G(PFNGLREADPIXELSPROC, glReadPixels);
  GLuint fb, rb;
  glGenFramebuffers(1, &fb); glBindFramebuffer(GL_FRAMEBUFFER, fb);
  glGenRenderbuffers(1, &rb); glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 32, 32);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  GLuint p = glCreateProgram(), v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
  glShaderSource(v, 1, &vs, NULL); glCompileShader(v);
  glShaderSource(f, 1, &fs, NULL); glCompileShader(f);
  glAttachShader(p, v); glAttachShader(p, f); glLinkProgram(p); glUseProgram(p);
  GLuint blue = glGetSubroutineIndex(p, GL_FRAGMENT_SHADER, "blue");
  glUniformSubroutinesuiv(GL_FRAGMENT_SHADER, 1, &blue);
  float tris[] = { -1, -1, 0, -1, -0.5f, 1, 0, -1, 1, -1, 0.5f, 1 };
  GLuint vao, vbo;
  glGenVertexArrays(1, &vao); glBindVertexArray(vao);
  glGenBuffers(1, &vbo); glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof tris, tris, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0); glEnableVertexAttribArray(0);
  glViewport(0, 0, 32, 32);
  glClear(GL_COLOR_BUFFER_BIT);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDrawArrays(GL_TRIANGLES, 3, 3);
  unsigned char px[32 * 32 * 4];
  glReadPixels(0, 0, 32, 32, GL_RGBA, GL_UNSIGNED_BYTE, px);
  unsigned long h = 1469598103934665603UL;
  for (int i = 0; i < (int)sizeof px; i++) h = (h ^ px[i]) * 1099511628211UL;
  int i = (8 * 32 + 24) * 4;
  printf("hash %016lx right %d,%d,%d\n", h, px[i], px[i + 1], px[i + 2]);
  return 0;
}

/* Minimal test app for the preload: EGL surfaceless, GL 3.3 core, every
 * function (EGL included) through eglGetProcAddress. Draws one triangle with
 * depth test into a 64x48 FBO, leaves a pending GL error before the draw,
 * prints the error it sees after the draw, and a hash of the image. */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef USE_DLOPEN
/* SDL/waffle style: libEGL is not linked; dlopen + dlsym it. */
#include <dlfcn.h>
static __eglMustCastToProperFunctionPointerType (*eglGetProcAddress)(const char *);
#else
extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);
#endif

#define P(type, name) static type name;
#define L(type, name) name = (type)eglGetProcAddress(#name); if (!name) { fprintf(stderr, "no %s\n", #name); exit(2); }
#define FUNCS(X) \
  X(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT) X(PFNEGLINITIALIZEPROC, eglInitialize) \
  X(PFNEGLBINDAPIPROC, eglBindAPI) X(PFNEGLCREATECONTEXTPROC, eglCreateContext) \
  X(PFNEGLMAKECURRENTPROC, eglMakeCurrent) X(PFNEGLTERMINATEPROC, eglTerminate) \
  X(PFNGLCREATESHADERPROC, glCreateShader) X(PFNGLSHADERSOURCEPROC, glShaderSource) \
  X(PFNGLCOMPILESHADERPROC, glCompileShader) X(PFNGLCREATEPROGRAMPROC, glCreateProgram) \
  X(PFNGLATTACHSHADERPROC, glAttachShader) X(PFNGLLINKPROGRAMPROC, glLinkProgram) \
  X(PFNGLUSEPROGRAMPROC, glUseProgram) X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation) \
  X(PFNGLUNIFORM4FPROC, glUniform4f) X(PFNGLUNIFORM1FVPROC, glUniform1fv) X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays) \
  X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray) X(PFNGLGENBUFFERSPROC, glGenBuffers) \
  X(PFNGLBINDBUFFERPROC, glBindBuffer) X(PFNGLBUFFERDATAPROC, glBufferData) \
  X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer) X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray) \
  X(PFNGLBINDATTRIBLOCATIONPROC, glBindAttribLocation) \
  X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer) \
  X(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers) X(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer) \
  X(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage) X(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer) \
  X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus) \
  X(PFNGLVIEWPORTPROC, glViewport) X(PFNGLCLEARCOLORPROC, glClearColor) X(PFNGLCLEARPROC, glClear) \
  X(PFNGLENABLEPROC, glEnable) X(PFNGLDRAWARRAYSPROC, glDrawArrays) X(PFNGLREADPIXELSPROC, glReadPixels) \
  X(PFNGLGETERRORPROC, glGetError) X(PFNGLFINISHPROC, glFinish) X(PFNGLGETINTEGERVPROC, glGetIntegerv)
FUNCS(P)

static const char *vs =
  "#version 330 core\n"
  "in vec2 pos;\n"
  "in float depth;\n"
  "void main() { gl_Position = vec4(pos, depth, 1.0); }\n";
static const char *fs =
  "#version 330 core\n"
  "uniform vec4 u_color;\n"
  "uniform float u_scale[2];\n"
  "out vec4 frag;\n"
  "void main() { frag = u_color * u_scale[1]; }\n";

int main(void) {
#ifdef USE_DLOPEN
  void *egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!egl) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  *(void **)&eglGetProcAddress = dlsym(egl, "eglGetProcAddress");
  if (!eglGetProcAddress) { fprintf(stderr, "no eglGetProcAddress\n"); return 2; }
#endif
  FUNCS(L)
  EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (!eglInitialize(dpy, NULL, NULL)) { fprintf(stderr, "eglInitialize failed\n"); return 2; }
  eglBindAPI(EGL_OPENGL_API);
  EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
  if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "no context\n"); return 2; }

  GLuint fb, rb[2];
  glGenFramebuffers(1, &fb);
  glBindFramebuffer(GL_FRAMEBUFFER, fb);
  glGenRenderbuffers(2, rb);
  glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 64, 48);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
  glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, 64, 48);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) { fprintf(stderr, "fbo incomplete\n"); return 2; }
  glBindRenderbuffer(GL_RENDERBUFFER, 0);

  GLuint p = glCreateProgram();
  GLuint v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
  glShaderSource(v, 1, &vs, NULL); glCompileShader(v);
  glShaderSource(f, 1, &fs, NULL); glCompileShader(f);
  glAttachShader(p, v); glAttachShader(p, f);
  glBindAttribLocation(p, 3, "pos");
  glBindAttribLocation(p, 5, "depth");
  glLinkProgram(p);
  glUseProgram(p);
  glUniform4f(glGetUniformLocation(p, "u_color"), 0.25f, 0.5f, 0.75f, 1.0f);
  float scale[2] = { 3.0f, 1.0f };
  glUniform1fv(glGetUniformLocation(p, "u_scale"), 2, scale);

  /* A full-screen quad at depth 0 (drawn first), then the triangle at depth
   * -0.5 in front on its left half and 0.5 behind on its right half. */
  float quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
  float tri[] = { -0.8f, -0.8f, 0.8f, -0.8f, 0.0f, 0.8f };
  float tri_depth[] = { -0.5f, 0.5f, 0.0f };
  GLuint vao, vbo[3];
  glGenVertexArrays(1, &vao); glBindVertexArray(vao);
  glGenBuffers(3, vbo);

  glViewport(0, 0, 64, 48);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);

  glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  glVertexAttribPointer(3, 2, GL_FLOAT, GL_FALSE, 0, 0);
  glEnableVertexAttribArray(3);
  static const float zero[4] = { 0, 0, 0, 0 };
  glBindBuffer(GL_ARRAY_BUFFER, vbo[2]);
  glBufferData(GL_ARRAY_BUFFER, sizeof zero, zero, GL_STATIC_DRAW);
  glVertexAttribPointer(5, 1, GL_FLOAT, GL_FALSE, 0, 0);
  glEnableVertexAttribArray(5);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

  glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
  glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, vbo[1]);
  glBufferData(GL_ARRAY_BUFFER, sizeof tri_depth, tri_depth, GL_STATIC_DRAW);
  glVertexAttribPointer(5, 1, GL_FLOAT, GL_FALSE, 0, 0);
  glUniform4f(glGetUniformLocation(p, "u_color"), 0.5f, 0.25f, 0.125f, 1.0f);

  glEnable(0x7fff); /* leaves GL_INVALID_ENUM pending for the app */
  glDrawArrays(GL_TRIANGLES, 0, 3);
  GLenum e1 = glGetError(), e2 = glGetError();
  printf("error 0x%x then 0x%x\n", e1, e2);

  unsigned char px[64 * 48 * 4];
  glReadPixels(0, 0, 64, 48, GL_RGBA, GL_UNSIGNED_BYTE, px);
  unsigned long h = 1469598103934665603UL;
  for (int i = 0; i < (int)sizeof px; i++) h = (h ^ px[i]) * 1099511628211UL;
  GLint prog = 0, bound_fb = 0;
  glGetIntegerv(GL_CURRENT_PROGRAM, &prog);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound_fb);
  printf("hash %016lx center %d,%d,%d,%d program %d fb %d\n", h, px[(24 * 64 + 32) * 4], px[(24 * 64 + 32) * 4 + 1],
         px[(24 * 64 + 32) * 4 + 2], px[(24 * 64 + 32) * 4 + 3], prog == (GLint)p, bound_fb == (GLint)fb);
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(dpy);
  return 0;
}

/* Two GL threads for the preload: each makes its own EGL surfaceless GL 3.3
 * core context, draws one triangle into its own 32x32 FBO with its own
 * colour, and prints a hash of its image (thread order fixed by joins). */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);
#define G(type, name) type name = (type)eglGetProcAddress(#name)

static EGLDisplay dpy;
static const char *vs = "#version 330 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs = "#version 330 core\nuniform vec4 u_color;\nout vec4 frag;\nvoid main() { frag = u_color; }\n";

struct job { float color[4]; unsigned long hash; };

static void *run(void *arg) {
  struct job *j = arg;
  G(PFNEGLCREATECONTEXTPROC, eglCreateContext); G(PFNEGLMAKECURRENTPROC, eglMakeCurrent);
  G(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers); G(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer);
  G(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers); G(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer);
  G(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage); G(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer);
  G(PFNGLCREATESHADERPROC, glCreateShader); G(PFNGLSHADERSOURCEPROC, glShaderSource); G(PFNGLCOMPILESHADERPROC, glCompileShader);
  G(PFNGLCREATEPROGRAMPROC, glCreateProgram); G(PFNGLATTACHSHADERPROC, glAttachShader); G(PFNGLLINKPROGRAMPROC, glLinkProgram);
  G(PFNGLUSEPROGRAMPROC, glUseProgram); G(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation); G(PFNGLUNIFORM4FVPROC, glUniform4fv);
  G(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays); G(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray);
  G(PFNGLGENBUFFERSPROC, glGenBuffers); G(PFNGLBINDBUFFERPROC, glBindBuffer); G(PFNGLBUFFERDATAPROC, glBufferData);
  G(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer); G(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray);
  G(PFNGLVIEWPORTPROC, glViewport); G(PFNGLCLEARPROC, glClear); G(PFNGLDRAWARRAYSPROC, glDrawArrays);
  G(PFNGLREADPIXELSPROC, glReadPixels);
  EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  G(PFNEGLBINDAPIPROC, eglBindAPI);
  eglBindAPI(EGL_OPENGL_API); /* per thread */
  EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
  if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "no context\n"); exit(2); }
  GLuint fb, rb;
  glGenFramebuffers(1, &fb); glBindFramebuffer(GL_FRAMEBUFFER, fb);
  glGenRenderbuffers(1, &rb); glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 32, 32);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  GLuint p = glCreateProgram(), v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
  glShaderSource(v, 1, &vs, NULL); glCompileShader(v);
  glShaderSource(f, 1, &fs, NULL); glCompileShader(f);
  glAttachShader(p, v); glAttachShader(p, f); glLinkProgram(p); glUseProgram(p);
  glUniform4fv(glGetUniformLocation(p, "u_color"), 1, j->color);
  float tri[] = { -1, -1, 1, -1, 0, 1 };
  GLuint vao, vbo;
  glGenVertexArrays(1, &vao); glBindVertexArray(vao);
  glGenBuffers(1, &vbo); glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0); glEnableVertexAttribArray(0);
  glViewport(0, 0, 32, 32);
  glClear(GL_COLOR_BUFFER_BIT);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  unsigned char px[32 * 32 * 4];
  glReadPixels(0, 0, 32, 32, GL_RGBA, GL_UNSIGNED_BYTE, px);
  unsigned long h = 1469598103934665603UL;
  for (int i = 0; i < (int)sizeof px; i++) h = (h ^ px[i]) * 1099511628211UL;
  j->hash = h;
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  return NULL;
}

int main(void) {
  G(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT); G(PFNEGLINITIALIZEPROC, eglInitialize);
  G(PFNEGLBINDAPIPROC, eglBindAPI);
  dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (!eglInitialize(dpy, NULL, NULL)) return 2;
  eglBindAPI(EGL_OPENGL_API);
  struct job jobs[2] = { { { 1.0f, 0.0f, 0.0f, 1.0f }, 0 }, { { 0.0f, 0.5f, 1.0f, 1.0f }, 0 } };
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, run, &jobs[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("thread0 %016lx thread1 %016lx\n", jobs[0].hash, jobs[1].hash);
  return 0;
}

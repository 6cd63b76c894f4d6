/* Test app for GL-level control (debugd/tests/control.rs). EGL surfaceless,
 * GL 3.3 core, functions only through eglGetProcAddress.
 *   control errors OUT   -- a GL error, uniforms, buffer data, three draws;
 *                           writes what the app itself saw to OUT
 *   control spin-until FILE -- one GL call, creates FILE.spinning, then spins
 *                           on the CPU without GL until FILE exists (the
 *                           test decides when it ends; exits 5 if that
 *                           has not happened after 300 s)
 *   control crash        -- a few GL calls, then SIGSEGV
 *   control forkchild    -- runs `control crash` as a child process (fork +
 *                           exec, the child calls GL too), waits, then glClear */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);
#define G(type, name) type name = (type)eglGetProcAddress(#name)

static const char *vs = "#version 330 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs = "#version 330 core\nuniform vec4 u_color;\nout vec4 frag;\nvoid main() { frag = u_color; }\n";

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "errors";
  G(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT); G(PFNEGLINITIALIZEPROC, eglInitialize);
  G(PFNEGLBINDAPIPROC, eglBindAPI); G(PFNEGLCREATECONTEXTPROC, eglCreateContext); G(PFNEGLMAKECURRENTPROC, eglMakeCurrent);
  EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (!eglInitialize(dpy, NULL, NULL)) return 2;
  eglBindAPI(EGL_OPENGL_API);
  EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
  if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "no context\n"); return 2; }
  G(PFNGLCLEARPROC, glClear); G(PFNGLFINISHPROC, glFinish); G(PFNGLGETERRORPROC, glGetError);

  if (!strcmp(mode, "spin-until") && argc > 2) {
    char started[4096];
    snprintf(started, sizeof started, "%s.spinning", argv[2]);
    glClear(GL_COLOR_BUFFER_BIT);
    FILE *f = fopen(started, "w");
    if (!f) return 3;
    fclose(f);
    /* A guard against a test that failed before opening the gate (its
     * app would spin on forever), not a timing the tests rely on. */
    time_t give_up = time(NULL) + 300;
    volatile unsigned long n = 0;
    while (access(argv[2], F_OK) != 0) {
      if (++n % 4096 == 0 && time(NULL) > give_up) return 5;
    }
    glFinish();
    return 0;
  }
  if (!strcmp(mode, "forkchild")) {
    pid_t child = fork();
    if (child == 0) {
      execl("/proc/self/exe", argv[0], "crash", (char *)NULL);
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glFinish();
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? 0 : 4;
  }
  if (!strcmp(mode, "crash")) {
    glClear(GL_COLOR_BUFFER_BIT);
    glFinish();
    volatile int *p = NULL;
    *p = 1;
    return 0;
  }

  FILE *out = fopen(argc > 2 ? argv[2] : "/dev/stdout", "w");
  if (!out) return 3;
  G(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers); G(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer);
  G(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers); G(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer);
  G(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage); G(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer);
  G(PFNGLCREATESHADERPROC, glCreateShader); G(PFNGLSHADERSOURCEPROC, glShaderSource); G(PFNGLCOMPILESHADERPROC, glCompileShader);
  G(PFNGLCREATEPROGRAMPROC, glCreateProgram); G(PFNGLATTACHSHADERPROC, glAttachShader); G(PFNGLLINKPROGRAMPROC, glLinkProgram);
  G(PFNGLUSEPROGRAMPROC, glUseProgram); G(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation); G(PFNGLUNIFORM4FVPROC, glUniform4fv);
  G(PFNGLGETUNIFORMFVPROC, glGetUniformfv);
  G(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays); G(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray);
  G(PFNGLGENBUFFERSPROC, glGenBuffers); G(PFNGLBINDBUFFERPROC, glBindBuffer); G(PFNGLBUFFERDATAPROC, glBufferData);
  G(PFNGLGETBUFFERSUBDATAPROC, glGetBufferSubData);
  G(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer); G(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray);
  G(PFNGLVIEWPORTPROC, glViewport); G(PFNGLDRAWARRAYSPROC, glDrawArrays); G(PFNGLENABLEPROC, glEnable);

  GLuint fb, rb;
  glGenFramebuffers(1, &fb); glBindFramebuffer(GL_FRAMEBUFFER, fb);
  glGenRenderbuffers(1, &rb); glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 64, 48);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  glViewport(0, 0, 64, 48);
  glEnable(0x1234); /* not a capability: GL_INVALID_ENUM */
  fprintf(out, "app error %#x\n", glGetError());
  fprintf(out, "then %#x\n", glGetError());

  GLuint p = glCreateProgram(), v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
  glShaderSource(v, 1, &vs, NULL); glCompileShader(v);
  glShaderSource(f, 1, &fs, NULL); glCompileShader(f);
  glAttachShader(p, v); glAttachShader(p, f); glLinkProgram(p); glUseProgram(p);
  GLint loc = glGetUniformLocation(p, "u_color");
  float color[4] = { 0.25f, 0.5f, 0.75f, 1.0f };
  glUniform4fv(loc, 1, color);
  float seen[4] = { 0 };
  glGetUniformfv(p, loc, seen);
  fprintf(out, "uniform %g %g %g %g\n", seen[0], seen[1], seen[2], seen[3]);

  unsigned char bytes[24];
  for (int i = 0; i < 24; i++) bytes[i] = (unsigned char)i;
  float tri[] = { -1, -1, 1, -1, 0, 1 };
  GLuint vao, vbo, extra;
  glGenVertexArrays(1, &vao); glBindVertexArray(vao);
  glGenBuffers(1, &extra); glBindBuffer(GL_COPY_WRITE_BUFFER, extra);
  glBufferData(GL_COPY_WRITE_BUFFER, sizeof bytes, bytes, GL_STATIC_DRAW);
  glGenBuffers(1, &vbo); glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0); glEnableVertexAttribArray(0);
  for (int i = 0; i < 3; i++) glDrawArrays(GL_TRIANGLES, 0, 3);
  glFinish();
  fprintf(out, "final error %#x\n", glGetError());
  fprintf(out, "done\n");
  fclose(out);
  return 0;
}

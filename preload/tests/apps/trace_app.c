/* Test app for trace steps (tests/trace.rs): EGL surfaceless, GL 4.3 core,
 * every function through eglGetProcAddress. Its programs read and write a
 * storage block at binding 0; it also binds a buffer of its own at storage
 * binding 1 (a range) that no program uses, and another at the generic
 * storage binding. It draws a quad into a 32x32 framebuffer, dispatches a
 * compute shader that adds 1 to each of 8 words, and prints, after each,
 * its bindings, the buffers' words and the pixels' hash: a trace step that
 * left a binding or a word changed shows in the output. */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <stdio.h>
#include <stdlib.h>

extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);

#define P(type, name) static type name;
#define L(type, name) name = (type)eglGetProcAddress(#name); if (!name) { fprintf(stderr, "no %s\n", #name); exit(2); }
#define FUNCS(X) \
  X(PFNEGLGETPLATFORMDISPLAYEXTPROC, eglGetPlatformDisplayEXT) X(PFNEGLINITIALIZEPROC, eglInitialize) \
  X(PFNEGLBINDAPIPROC, eglBindAPI) X(PFNEGLCREATECONTEXTPROC, eglCreateContext) \
  X(PFNEGLMAKECURRENTPROC, eglMakeCurrent) \
  X(PFNGLCREATESHADERPROC, glCreateShader) X(PFNGLSHADERSOURCEPROC, glShaderSource) \
  X(PFNGLCOMPILESHADERPROC, glCompileShader) X(PFNGLCREATEPROGRAMPROC, glCreateProgram) \
  X(PFNGLATTACHSHADERPROC, glAttachShader) X(PFNGLLINKPROGRAMPROC, glLinkProgram) \
  X(PFNGLGETPROGRAMIVPROC, glGetProgramiv) X(PFNGLGETPROGRAMINFOLOGPROC, glGetProgramInfoLog) \
  X(PFNGLUSEPROGRAMPROC, glUseProgram) X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays) \
  X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray) X(PFNGLGENBUFFERSPROC, glGenBuffers) \
  X(PFNGLBINDBUFFERPROC, glBindBuffer) X(PFNGLBUFFERDATAPROC, glBufferData) \
  X(PFNGLBINDBUFFERBASEPROC, glBindBufferBase) X(PFNGLBINDBUFFERRANGEPROC, glBindBufferRange) \
  X(PFNGLGETBUFFERSUBDATAPROC, glGetBufferSubData) X(PFNGLGETINTEGERI_VPROC, glGetIntegeri_v) \
  X(PFNGLGETINTEGER64I_VPROC, glGetInteger64i_v) X(PFNGLMEMORYBARRIERPROC, glMemoryBarrier) \
  X(PFNGLDISPATCHCOMPUTEPROC, glDispatchCompute) \
  X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer) X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray) \
  X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer) \
  X(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers) X(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer) \
  X(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage) X(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer) \
  X(PFNGLVIEWPORTPROC, glViewport) X(PFNGLCLEARCOLORPROC, glClearColor) X(PFNGLCLEARPROC, glClear) \
  X(PFNGLDRAWARRAYSPROC, glDrawArrays) X(PFNGLREADPIXELSPROC, glReadPixels) \
  X(PFNGLGETERRORPROC, glGetError) X(PFNGLGETINTEGERVPROC, glGetIntegerv)
FUNCS(P)

static const char *vs =
  "#version 430 core\n"
  "layout(location = 0) in vec2 pos;\n"
  "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs =
  "#version 430 core\n"
  "layout(std430, binding = 0) buffer AppData { uint v[]; };\n"
  "out vec4 frag;\n"
  "void main() { frag = vec4(float(v[0]) / 255.0, gl_FragCoord.xy / 32.0, 1.0); }\n";
static const char *cs =
  "#version 430 core\n"
  "layout(local_size_x = 4) in;\n"
  "layout(std430, binding = 0) buffer AppData { uint v[]; };\n"
  "void main() { v[gl_GlobalInvocationID.x] += 1u; }\n";

static GLuint program(GLenum t1, const char *s1, GLenum t2, const char *s2) {
  GLuint p = glCreateProgram();
  GLenum types[2] = { t1, t2 };
  const char *srcs[2] = { s1, s2 };
  for (int i = 0; i < 2 && srcs[i]; i++) {
    GLuint s = glCreateShader(types[i]);
    glShaderSource(s, 1, &srcs[i], NULL);
    glCompileShader(s);
    glAttachShader(p, s);
  }
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    fprintf(stderr, "link: %s\n", log);
    exit(2);
  }
  return p;
}

static void print_state(const char *when, GLuint *bufs) {
  GLint b1 = 0, generic = 0;
  GLint64 start = 0, size = 0;
  glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 1, &b1);
  glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 1, &start);
  glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 1, &size);
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &generic);
  printf("%s: binding 1 is buffer %s range %lld+%lld, generic is buffer %s\n", when,
         b1 == (GLint)bufs[1] ? "spare" : "OTHER", (long long)start, (long long)size,
         generic == (GLint)bufs[2] ? "generic" : "OTHER");
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  for (int i = 0; i < 2; i++) {
    GLuint w[8];
    glBindBuffer(GL_COPY_READ_BUFFER, bufs[i]);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, sizeof w, w);
    printf("%s: buffer %d:", when, i);
    for (int k = 0; k < 8; k++) printf(" %u", w[k]);
    printf("\n");
  }
  glBindBuffer(GL_COPY_READ_BUFFER, 0);
  unsigned char px[32 * 32 * 4];
  glReadPixels(0, 0, 32, 32, GL_RGBA, GL_UNSIGNED_BYTE, px);
  unsigned long h = 1469598103934665603UL;
  for (int i = 0; i < (int)sizeof px; i++) h = (h ^ px[i]) * 1099511628211UL;
  printf("%s: image %lx error 0x%x\n", when, h, glGetError());
}

int main(void) {
  FUNCS(L)
  EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  if (!eglInitialize(dpy, NULL, NULL)) { fprintf(stderr, "eglInitialize failed\n"); return 2; }
  eglBindAPI(EGL_OPENGL_API);
  EGLint attr[] = { EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attr);
  if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) { fprintf(stderr, "no context\n"); return 2; }

  GLuint fb, rb;
  glGenFramebuffers(1, &fb);
  glBindFramebuffer(GL_FRAMEBUFFER, fb);
  glGenRenderbuffers(1, &rb);
  glBindRenderbuffer(GL_RENDERBUFFER, rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 32, 32);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
  glViewport(0, 0, 32, 32);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);

  /* 0: the programs' block; 1: spare, bound at storage binding 1 as a
   * range, used by no program; 2: at the generic binding. */
  GLuint bufs[3];
  glGenBuffers(3, bufs);
  GLuint data[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
  GLuint spare[8] = { 7, 7, 7, 7, 7, 7, 7, 7 };
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[0]);
  glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof data, data, GL_DYNAMIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[1]);
  glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof spare, spare, GL_DYNAMIC_DRAW);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, bufs[0]);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 1, bufs[1], 0, 16);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[2]);
  glBufferData(GL_SHADER_STORAGE_BUFFER, 4, data, GL_DYNAMIC_DRAW);

  GLuint draw = program(GL_VERTEX_SHADER, vs, GL_FRAGMENT_SHADER, fs);
  GLuint compute = program(GL_COMPUTE_SHADER, cs, 0, NULL);
  float quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
  GLuint vao, vbo;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glGenBuffers(1, &vbo);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
  glEnableVertexAttribArray(0);

  glUseProgram(draw);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  print_state("draw", bufs);
  glUseProgram(compute);
  glDispatchCompute(2, 1, 1);
  glMemoryBarrier(GL_ALL_BARRIER_BITS);
  print_state("dispatch", bufs);
  return 0;
}

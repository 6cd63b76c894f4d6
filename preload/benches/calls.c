/* Fast-path benchmark app: 10M calls each of glUniform1f and glIsEnabled
 * through pointers from eglGetProcAddress (our wrappers under the preload).
 * Prints nanoseconds per call. */
#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <stdio.h>
#include <time.h>
extern __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname);
int main(void) {
  PFNEGLGETPLATFORMDISPLAYEXTPROC gpd = (void*)eglGetProcAddress("eglGetPlatformDisplayEXT");
  PFNEGLINITIALIZEPROC init = (void*)eglGetProcAddress("eglInitialize");
  PFNEGLBINDAPIPROC bind = (void*)eglGetProcAddress("eglBindAPI");
  PFNEGLCREATECONTEXTPROC cc = (void*)eglGetProcAddress("eglCreateContext");
  PFNEGLMAKECURRENTPROC mc = (void*)eglGetProcAddress("eglMakeCurrent");
  EGLDisplay d = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  init(d, 0, 0); bind(EGL_OPENGL_API);
  EGLint a[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
  EGLContext c = cc(d, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, a);
  mc(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c);
  PFNGLUNIFORM1FPROC u = (void*)eglGetProcAddress("glUniform1f");
  PFNGLISENABLEDPROC ie = (void*)eglGetProcAddress("glIsEnabled");
  struct timespec t0, t1;
  int n = 10000000;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; i++) u(0, 1.0f);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile int s = 0;
  for (int i = 0; i < n; i++) s += ie(0x0B71);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns2 = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
  printf("glUniform1f %.1f ns/call, glIsEnabled %.1f ns/call\n", ns, ns2);
  return 0;
}

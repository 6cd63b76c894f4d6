/* Minimal GLX test app for the preload: links libGL directly, draws one
 * triangle with a GLSL 3.30 program into a 96x72 window's default
 * framebuffer (with depth), prints a hash of the image. */
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <stdio.h>

static const char *vs =
  "#version 330 core\n"
  "layout(location = 0) in vec2 pos;\n"
  "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char *fs =
  "#version 330 core\n"
  "uniform vec3 u_tint;\n"
  "out vec4 frag;\n"
  "void main() { frag = vec4(u_tint, 1.0); }\n";

int main(void) {
  Display *d = XOpenDisplay(NULL);
  if (!d) { fprintf(stderr, "no display\n"); return 2; }
  int attr[] = { GLX_RGBA, GLX_DOUBLEBUFFER, GLX_DEPTH_SIZE, 24, GLX_STENCIL_SIZE, 8, None };
  XVisualInfo *vi = glXChooseVisual(d, DefaultScreen(d), attr);
  if (!vi) { fprintf(stderr, "no visual\n"); return 2; }
  XSetWindowAttributes swa = { 0 };
  swa.colormap = XCreateColormap(d, RootWindow(d, vi->screen), vi->visual, AllocNone);
  Window w = XCreateWindow(d, RootWindow(d, vi->screen), 0, 0, 96, 72, 0, vi->depth, InputOutput, vi->visual, CWColormap, &swa);
  XMapWindow(d, w);
  XSync(d, False);
  GLXContext ctx = glXCreateContext(d, vi, NULL, True);
  glXMakeCurrent(d, w, ctx);

  GLuint p = glCreateProgram();
  GLuint v = glCreateShader(GL_VERTEX_SHADER), f = glCreateShader(GL_FRAGMENT_SHADER);
  glShaderSource(v, 1, &vs, NULL); glCompileShader(v);
  glShaderSource(f, 1, &fs, NULL); glCompileShader(f);
  glAttachShader(p, v); glAttachShader(p, f);
  glLinkProgram(p);
  glUseProgram(p);
  glUniform3f(glGetUniformLocation(p, "u_tint"), 0.5f, 0.75f, 1.0f);
  float tri[] = { -0.9f, -0.9f, 0.9f, -0.9f, 0.0f, 0.9f };
  GLuint vao, vbo;
  glGenVertexArrays(1, &vao); glBindVertexArray(vao);
  glGenBuffers(1, &vbo); glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
  glEnableVertexAttribArray(0);
  glViewport(0, 0, 96, 72);
  glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glFinish();
  unsigned char px[96 * 72 * 4];
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, 96, 72, GL_RGBA, GL_UNSIGNED_BYTE, px);
  unsigned long h = 1469598103934665603UL;
  for (int i = 0; i < (int)sizeof px; i++) h = (h ^ px[i]) * 1099511628211UL;
  printf("hash %016lx error 0x%x\n", h, glGetError());
  glXSwapBuffers(d, w);
  glXMakeCurrent(d, None, NULL);
  glXDestroyContext(d, ctx);
  XCloseDisplay(d);
  return 0;
}

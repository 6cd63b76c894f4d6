/* glx_shade: X11 + GLX test app for gldbg.
 *
 * Links libGL and libX11 and calls GL functions directly (prototypes from
 * GL/glext.h). Opens a 64x48 window on $DISPLAY, creates a GL 3.3 core
 * context with glXCreateContextAttribsARB, renders N frames of the quad of
 * shade_common.h into the default framebuffer (glXSwapBuffers per frame) and
 * reads the last frame back (before its swap) to --out FILE (RGBA8, rows
 * bottom-up as GL returns them, no header).
 *
 *   glx_shade [--frames N] [--out FILE]
 */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shade_common.h"

#ifndef GLX_CONTEXT_MAJOR_VERSION_ARB
#define GLX_CONTEXT_MAJOR_VERSION_ARB 0x2091
#define GLX_CONTEXT_MINOR_VERSION_ARB 0x2092
#define GLX_CONTEXT_PROFILE_MASK_ARB 0x9126
#define GLX_CONTEXT_CORE_PROFILE_BIT_ARB 0x00000001
#endif

typedef GLXContext (*CreateContextAttribs)(Display *, GLXFBConfig, GLXContext, Bool, const int *);

static void die(const char *what) {
    fprintf(stderr, "glx_shade: %s\n", what);
    exit(2);
}

static GLuint compile(GLenum type, const char *src) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "glx_shade: shader compile failed:\n%s\n", log);
        exit(2);
    }
    return s;
}

int main(int argc, char **argv) {
    int frames = 3;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else {
            fprintf(stderr, "usage: glx_shade [--frames N] [--out FILE]\n");
            return 2;
        }
    }
    if (frames < 1) frames = 1;

    Display *dpy = XOpenDisplay(NULL);
    if (!dpy) die("cannot open display (is DISPLAY set?)");
    static const int fb_attribs[] = {
        GLX_X_RENDERABLE, True, GLX_DRAWABLE_TYPE, GLX_WINDOW_BIT, GLX_RENDER_TYPE, GLX_RGBA_BIT,
        GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8, GLX_BLUE_SIZE, 8, GLX_ALPHA_SIZE, 8,
        GLX_DEPTH_SIZE, 24, GLX_DOUBLEBUFFER, True, None,
    };
    int count = 0;
    GLXFBConfig *configs = glXChooseFBConfig(dpy, DefaultScreen(dpy), fb_attribs, &count);
    if (!configs || count == 0) die("no GLX framebuffer config");
    GLXFBConfig config = configs[0];
    XFree(configs);
    XVisualInfo *vi = glXGetVisualFromFBConfig(dpy, config);
    if (!vi) die("no visual");
    Window root = RootWindow(dpy, vi->screen);
    XSetWindowAttributes swa;
    memset(&swa, 0, sizeof swa);
    swa.colormap = XCreateColormap(dpy, root, vi->visual, AllocNone);
    swa.event_mask = StructureNotifyMask;
    Window win = XCreateWindow(dpy, root, 0, 0, SHADE_W, SHADE_H, 0, vi->depth, InputOutput,
                               vi->visual, CWColormap | CWEventMask, &swa);
    XStoreName(dpy, win, "glx_shade");
    XMapWindow(dpy, win);
    for (;;) {
        XEvent e;
        XNextEvent(dpy, &e);
        if (e.type == MapNotify) break;
    }

    CreateContextAttribs create = (CreateContextAttribs)glXGetProcAddressARB(
        (const GLubyte *)"glXCreateContextAttribsARB");
    if (!create) die("no glXCreateContextAttribsARB");
    static const int ctx_attribs[] = {
        GLX_CONTEXT_MAJOR_VERSION_ARB, 3, GLX_CONTEXT_MINOR_VERSION_ARB, 3,
        GLX_CONTEXT_PROFILE_MASK_ARB, GLX_CONTEXT_CORE_PROFILE_BIT_ARB, None,
    };
    GLXContext ctx = create(dpy, config, NULL, True, ctx_attribs);
    if (!ctx) die("glXCreateContextAttribsARB failed");
    if (!glXMakeCurrent(dpy, win, ctx)) die("glXMakeCurrent failed");

    GLuint vs = compile(GL_VERTEX_SHADER, SHADE_VS);
    GLuint fs = compile(GL_FRAGMENT_SHADER, SHADE_FS);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    GLint linked = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &linked);
    if (!linked) die("link failed");
    GLint u_gain = glGetUniformLocation(prog, "u_gain");

    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof SHADE_QUAD, SHADE_QUAD, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(0);

    glViewport(0, 0, SHADE_W, SHADE_H);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);

    static unsigned char pixels[SHADE_W * SHADE_H * 4];
    for (int frame = 0; frame < frames; frame++) {
        glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glUseProgram(prog);
        glUniform1f(u_gain, shade_gain(frame));
        glDrawArrays(GL_TRIANGLES, 0, 6);
        if (frame == frames - 1) {
            glReadBuffer(GL_BACK);
            glPixelStorei(GL_PACK_ALIGNMENT, 1);
            glReadPixels(0, 0, SHADE_W, SHADE_H, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        }
        glXSwapBuffers(dpy, win);
    }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "glx_shade: GL error 0x%04x\n", err);
        return 3;
    }
    if (out) {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(pixels, 1, sizeof pixels, f) != sizeof pixels || fclose(f) != 0) {
            perror(out);
            return 2;
        }
    }
    printf("glx_shade: %d frames, %s\n", frames, (const char *)glGetString(GL_RENDERER));
    glXMakeCurrent(dpy, None, NULL);
    glXDestroyContext(dpy, ctx);
    XDestroyWindow(dpy, win);
    XCloseDisplay(dpy);
    return 0;
}

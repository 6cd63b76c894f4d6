/*
 * swap_shim.c: a test-only LD_PRELOAD library that photographs an app's
 * first frame. It wraps glXSwapBuffers: on the first call it reads the back
 * buffer (glReadPixels, GL_BACK, RGBA8) and writes it to the file named by
 * SWAP_SHIM_OUT as a PAM image (P7, RGB_ALPHA, rows top-down), then calls
 * the real glXSwapBuffers (dlsym RTLD_NEXT). With SWAP_SHIM_EXIT_AFTER=N the
 * app exits with status 0 right after its N-th swap; without it, it goes on.
 *
 * Its GL calls are plain calls through the global symbol scope, so under
 * gldbg they go through gldbg's preload like the app's own calls. Build:
 * cc -shared -fPIC swap_shim.c -o libswap_shim.so -lGL -lX11 -ldl
 */
#define _GNU_SOURCE
#include <GL/gl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*swap_fn)(Display *, GLXDrawable);

static unsigned long swaps;

static void fail(const char *what)
{
    fprintf(stderr, "swap_shim: %s\n", what);
    exit(3);
}

/* The back buffer of `drawable` as RGBA8, written to `path`. The read
 * buffer and pack alignment are restored, so the app sees no change. */
static void save_back_buffer(Display *dpy, GLXDrawable drawable, const char *path)
{
    Window root;
    int x, y;
    unsigned int w, h, border, depth;
    if (!XGetGeometry(dpy, drawable, &root, &x, &y, &w, &h, &border, &depth))
        fail("XGetGeometry failed");
    unsigned char *pixels = malloc((size_t)w * h * 4);
    if (!pixels)
        fail("out of memory");

    GLint read_buffer = GL_BACK, alignment = 4;
    glGetIntegerv(GL_READ_BUFFER, &read_buffer);
    glGetIntegerv(GL_PACK_ALIGNMENT, &alignment);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)w, (GLsizei)h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    GLenum err = glGetError();
    glPixelStorei(GL_PACK_ALIGNMENT, alignment);
    glReadBuffer((GLenum)read_buffer);
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "swap_shim: glReadPixels raised 0x%x\n", err);
        exit(3);
    }

    FILE *f = fopen(path, "wb");
    if (!f)
        fail("cannot create SWAP_SHIM_OUT");
    fprintf(f, "P7\nWIDTH %u\nHEIGHT %u\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", w, h);
    /* glReadPixels rows are bottom-up; PAM rows are top-down. */
    for (unsigned int row = h; row-- > 0;)
        if (fwrite(pixels + (size_t)row * w * 4, 1, (size_t)w * 4, f) != (size_t)w * 4)
            fail("write failed");
    if (fclose(f) != 0)
        fail("write failed");
    free(pixels);
}

void glXSwapBuffers(Display *dpy, GLXDrawable drawable)
{
    static swap_fn real;
    if (!real) {
        real = (swap_fn)dlsym(RTLD_NEXT, "glXSwapBuffers");
        if (!real)
            fail("no glXSwapBuffers after the shim");
    }
    swaps++;
    const char *out = getenv("SWAP_SHIM_OUT");
    if (swaps == 1 && out && *out)
        save_back_buffer(dpy, drawable, out);
    real(dpy, drawable);
    const char *exit_after = getenv("SWAP_SHIM_EXIT_AFTER");
    if (exit_after && *exit_after && swaps >= strtoul(exit_after, NULL, 10)) {
        fprintf(stderr, "swap_shim: exiting after swap %lu\n", swaps);
        exit(0);
    }
}

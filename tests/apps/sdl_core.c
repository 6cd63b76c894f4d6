/* sdl_core: a windowed GL 3.3 core-profile app through SDL2 (or GLFW when
 * built with -DUSE_GLFW) for real_apps.rs.
 *
 * The toolkit creates an X11 window (SDL_VIDEODRIVER=x11 / GLFW's X11
 * platform, under Xvfb in tests) and a core-profile context; GL functions
 * come only from SDL_GL_GetProcAddress / glfwGetProcAddress into function
 * pointers (glad style, quad_common.h; the toolkits dlopen libGL). Draws
 * `--frames N` frames of the quad (u_k = 0.02) into the 64x48 window's
 * back buffer, reads the last one back before the swap, prints
 * `checksum H` and exits 0.
 */
#include <string.h>

#include "quad_common.h"

#ifdef USE_GLFW
#include <GLFW/glfw3.h>
static void *get_proc(const char *name) { return (void *)glfwGetProcAddress(name); }
#else
#include <SDL2/SDL.h>
static void *get_proc(const char *name) { return SDL_GL_GetProcAddress(name); }
#endif

int main(int argc, char **argv) {
    int frames = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: sdl_core [--frames N]\n");
            return 1;
        }
    }
#ifdef USE_GLFW
    if (!glfwInit()) { fprintf(stderr, "glfwInit failed\n"); return 2; }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    GLFWwindow *win = glfwCreateWindow(64, 48, "glfw_core", NULL, NULL);
    if (!win) { fprintf(stderr, "glfwCreateWindow failed\n"); return 2; }
    glfwMakeContextCurrent(win);
#else
    if (SDL_Init(SDL_INIT_VIDEO) != 0) { fprintf(stderr, "SDL_Init: %s\n", SDL_GetError()); return 2; }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_Window *win = SDL_CreateWindow("sdl_core", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                       64, 48, SDL_WINDOW_OPENGL);
    if (!win) { fprintf(stderr, "SDL_CreateWindow: %s\n", SDL_GetError()); return 2; }
    SDL_GLContext ctx = SDL_GL_CreateContext(win);
    if (!ctx) { fprintf(stderr, "SDL_GL_CreateContext: %s\n", SDL_GetError()); return 2; }
#endif
    struct quad_gl gl;
    quad_load(&gl, get_proc);
    printf("GL_VERSION %s\n", (const char *)gl.GetString(GL_VERSION));
    GLint loc = quad_setup(&gl, QUAD_FS);
    unsigned long checksum = 0;
    for (int f = 0; f < frames; f++) {
        quad_frame(&gl, loc, 0.02f, 64, 48);
        if (f == frames - 1) checksum = quad_checksum(&gl, 64, 48);
#ifdef USE_GLFW
        glfwSwapBuffers(win);
        glfwPollEvents();
#else
        SDL_GL_SwapWindow(win);
        SDL_Event e;
        while (SDL_PollEvent(&e)) {}
#endif
    }
    printf("checksum %016lx\n", checksum);
#ifdef USE_GLFW
    glfwDestroyWindow(win);
    glfwTerminate();
#else
    SDL_GL_DeleteContext(ctx);
    SDL_DestroyWindow(win);
    SDL_Quit();
#endif
    return 0;
}

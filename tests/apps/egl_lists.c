/* egl_lists: display lists for gldbg's draw breakpoints and steps.
 *
 * EGL surfaceless, an OpenGL 3.3 compatibility context, a 64x64 RGBA32F
 * framebuffer of its own, a GLSL program (gl_ModelViewProjectionMatrix *
 * gl_Vertex). At start, lists compiled with GL_COMPILE (nothing drawn):
 *
 *   A: glTranslatef(0.5, 0, 0), then a glBegin/glEnd quad over NDC
 *      x in [-1, -0.5] (window x in [16, 32) once translated);
 *   B: glColor4f only (draws nothing);
 *   D: glCallList(A) (draws when called).
 *
 * Each frame, after glLoadIdentity:
 *
 *   glCallList(B), glCallLists(1, {B})      no draws
 *   glCallList(D)                           a draw (window x in [16, 32))
 *   frame 1: glNewList(C, GL_COMPILE_AND_EXECUTE) with a glBegin/glEnd
 *            quad over NDC x in [-0.25, 0.25], glEndList: glEnd draws
 *            (window x in [40, 56): A's translation is still current);
 *   later frames: glCallList(C), a draw.
 *
 * So the draws are glCallList, glEnd, then glCallList, glCallList per
 * frame. The app prints
 *
 *   egl_lists: N frames, frame H, <renderer>
 *
 * with an FNV-1a hash H of the last frame, and exits 1 on a GL error.
 *
 *   egl_lists [--frames N]
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_lists"
#include "egl_app.h"
#include <string.h>

#define SIZE 64

static const char *VS =
    "#version 330 compatibility\n"
    "void main() { gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex; }\n";

/* Line numbers matter: tests/tests/app_forms.rs breaks on line 5. */
static const char *FS =
    "#version 330 compatibility\n"                          /* 1 */
    "out vec4 color;\n"                                     /* 2 */
    "void main() {\n"                                       /* 3 */
    "    vec2 p = floor(gl_FragCoord.xy) / 64.0;\n"         /* 4 */
    "    color = vec4(p.x, p.y, 0.25, 1.0);\n"              /* 5 */
    "}\n";                                                  /* 6 */

static void quad(float x0, float x1) {
    glBegin(GL_TRIANGLE_STRIP);
    glVertex2f(x0, -1);
    glVertex2f(x1, -1);
    glVertex2f(x0, 1);
    glVertex2f(x1, 1);
    glEnd();
}

int main(int argc, char **argv) {
    int frames = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else die("usage: egl_lists [--frames N]");
    }
    struct egl_app app = egl_app_start(3, 3, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT);
    egl_app_float_target(SIZE, SIZE);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, VS));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, FS));
    link_program(prog);

    GLuint a = glGenLists(4), b = a + 1, c = a + 2, d = a + 3;
    glNewList(a, GL_COMPILE);
    glTranslatef(0.5f, 0, 0);
    quad(-1, -0.5f);
    glEndList();
    glNewList(b, GL_COMPILE);
    glColor4f(0.5f, 0.5f, 0.5f, 1);
    glEndList();
    glNewList(d, GL_COMPILE);
    glCallList(a);
    glEndList();

    static float px[SIZE * SIZE * 4];
    for (int f = 0; f < frames; f++) {
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glMatrixMode(GL_MODELVIEW);
        glLoadIdentity();
        glUseProgram(prog);
        glCallList(b);
        const GLuint only_b[1] = {b};
        glCallLists(1, GL_UNSIGNED_INT, only_b);
        glCallList(d);
        if (f == 0) {
            glNewList(c, GL_COMPILE_AND_EXECUTE);
            quad(-0.25f, 0.25f);
            glEndList();
        } else {
            glCallList(c);
        }
        glReadPixels(0, 0, SIZE, SIZE, GL_RGBA, GL_FLOAT, px);
    }
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_lists: GL error 0x%x\n", err);
        return 1;
    }
    /* Covered: x in [16, 32) and [40, 56), each pixel the shader's colour. */
    int right = 1;
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            int in = (x >= 16 && x < 32) || (x >= 40 && x < 56);
            float want[4] = {in ? x / 64.0f : 0, in ? y / 64.0f : 0, in ? 0.25f : 0, in ? 1 : 0};
            for (int k = 0; k < 4; k++)
                if (px[4 * (y * SIZE + x) + k] != want[k]) right = 0;
        }
    printf("egl_lists: %d frames, frame %llu, pixels %s, %s\n", frames,
           (unsigned long long)fnv(FNV_OFFSET, px, sizeof px), right ? "ok" : "WRONG",
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return right ? 0 : 1;
}

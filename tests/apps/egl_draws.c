/* egl_draws: one draw per GL draw form, for gldbg's debug steps.
 *
 * EGL surfaceless, an OpenGL 4.5 core context, GL linked from libOpenGL.
 * A 128x64 RGBA32F framebuffer of its own, cleared to 0, one frame. The
 * framebuffer is 8 x 2 cells of 16x32 pixels; form d (0..15) draws in cell
 * d: x in [16 * (d % 8), 16 * (d % 8) + 16), y in [32 * (d / 8), +32).
 *
 * Draw numbers (gldbg's `break draw N`, counting from 1):
 *
 *   draw 1: the capture pass (glDrawArrays, GL_POINTS, 4 vertices, program
 *           CAPTURE_VS, rasterizer discard) filling transform feedback
 *           object `tfo` with a 16x16 quad at the origin (4 vec2, strip
 *           order), for forms 14 and 15.
 *   draw d + 2: form d below, program DRAW_VS + DRAW_FS, u_draw = d.
 *
 * Vertex data: attribute 0 `a_pos` (vec2, pixels) from the vertex buffer,
 * quad n at vertices 4n .. 4n+3 in strip order (x0,y0) (x1,y0) (x0,y1)
 * (x1,y1); attribute 1 `a_inst` (vec3: pixel offset, tag) per instance
 * (divisor 1) from entry `e` of INSTANCES (tag = e). Element draws use
 * GL_TRIANGLES over 6 GL_UNSIGNED_INT indices (0,1,2, 2,1,3 of a quad).
 * "B"/"T" are the bottom/top 16x16 halves of the cell, "full" the whole
 * 16x32 cell. With 2 instances, instance 0 reads entry 0 (offset 0,0) and
 * instance 1 entry 1 (offset 0,16): B then T; with base instance 2,
 * instance 0 reads entry 2 (offset 0,16) and instance 1 entry 3 (offset
 * 0,0): T then B.
 *
 *  d draw form                                       vertices (gl_VertexID)        covers
 *  0  2  glDrawArrays(STRIP, 4, 4)                   4..7 (quad 1)                 full, inst 0, tag 0
 *  1  3  glDrawElements(TRI, 6, idx 8,9,10,10,9,11)  quad 2                        full, inst 0, tag 0
 *  2  4  glDrawRangeElements(TRI, 12, 15, 6, ...)    quad 3                        full, inst 0, tag 0
 *  3  5  glDrawArraysInstanced(STRIP, 16, 4, 2)      quad 4 (B) x 2 instances      B: inst 0 tag 0, T: inst 1 tag 1
 *  4  6  glDrawElementsInstanced(TRI, 6, .., 2)      quad 5 (B) x 2                B: 0/0, T: 1/1
 *  5  7  glDrawElementsBaseVertex(TRI, 6, 0..3, 24)  quad 6 (relative indices)     full, 0/0
 *  6  8  glDrawArraysInstancedBaseInstance(STRIP, 28, 4, 2, 2)
 *                                                    quad 7 (B) x 2                T: 0/2, B: 1/3
 *  7  9  glDrawElementsInstancedBaseVertexBaseInstance(TRI, 6, 0..3, 2, 32, 2)
 *                                                    quad 8 (B) x 2                T: 0/2, B: 1/3
 *  8 10  glMultiDrawArrays(STRIP, {36, 40}, {4, 4}, 2)
 *                                                    quads 9 (B), 10 (T)           B, T: 0/0
 *  9 11  glMultiDrawElements(TRI, {6, 6}, 44.., 48.., 2)
 *                                                    quads 11 (B), 12 (T)          B, T: 0/0
 * 10 12  glDrawArraysIndirect(STRIP, {4, 1, 52, 0})  quad 13                       full, 0/0
 * 11 13  glDrawElementsIndirect(TRI, {6, 2, 36, 56, 2})
 *                                                    quad 14 (B) x 2, base inst 2  T: 0/2, B: 1/3
 * 12 14  glMultiDrawArraysIndirect(STRIP, {4,1,60,0} {4,1,64,0})
 *                                                    quads 15 (B), 16 (T)          B, T: 0/0
 * 13 15  glMultiDrawElementsIndirect(TRI, {6,1,0,68,0} {6,1,0,72,0})
 *                                                    quads 17 (B), 18 (T)          B, T: 0/0
 * 14 16  glDrawTransformFeedback(STRIP, tfo)         0..3 (captured quad), a_inst from entry 4
 *                                                    (offset 96,32)                B of cell 14: 0/4
 * 15 17  glDrawTransformFeedbackInstanced(STRIP, tfo, 2)
 *                                                    0..3 x 2, a_inst from entries 5, 6
 *                                                    (offsets 112,32 and 112,48)   B: 0/5, T: 1/6
 *
 * (firstIndex 36 of form 11 is a copy of the relative indices 0,1,2,2,1,3.)
 *
 * In the vertex shader v_id = gl_VertexID + 100 * gl_InstanceID + 1000 *
 * u_draw (gl_VertexID includes the base vertex; gl_InstanceID does not
 * include the base instance), p = a_pos + a_inst.xy. The fragment shader
 * writes value = (u_draw, instance, tag, x + 128 y) at window pixel (x, y)
 * (x, y from the interpolated pixel position). The app checks every pixel
 * against that table and prints
 *
 *   egl_draws: checksum H, wrong W, <renderer>
 *
 * with H the FNV-1a hash of the RGBA32F image and W the number of pixels
 * that differ from the table (0).
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_draws"
#include "egl_app.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define W 128
#define H 64
#define FORMS 16

/* Line numbers matter: tests/tests/draw_forms.rs breaks on them. */
static const char *DRAW_VS =
    "#version 450 core\n"                                                       /*  1 */
    "layout(location = 0) in vec2 a_pos;\n"                                     /*  2 */
    "layout(location = 1) in vec3 a_inst;\n"                                    /*  3 */
    "uniform float u_draw;\n"                                                   /*  4 */
    "out vec2 v_pix;\n"                                                         /*  5 */
    "flat out int v_instance;\n"                                                /*  6 */
    "flat out float v_tag;\n"                                                   /*  7 */
    "void main() {\n"                                                           /*  8 */
    "    float v_id = float(gl_VertexID) + 100.0 * float(gl_InstanceID)\n"      /*  9 */
    "               + 1000.0 * u_draw;\n"                                       /* 10 */
    "    vec2 p = a_pos + a_inst.xy;\n"                                         /* 11 */
    "    v_pix = p;\n"                                                          /* 12 */
    "    v_instance = gl_InstanceID;\n"                                         /* 13 */
    "    v_tag = a_inst.z;\n"                                                   /* 14 */
    "    gl_Position = vec4(p / vec2(64.0, 32.0) - 1.0, 0.0, 1.0);\n"           /* 15 */
    "}\n";                                                                      /* 16 */

static const char *DRAW_FS =
    "#version 450 core\n"                                                       /*  1 */
    "in vec2 v_pix;\n"                                                          /*  2 */
    "flat in int v_instance;\n"                                                 /*  3 */
    "flat in float v_tag;\n"                                                    /*  4 */
    "uniform float u_draw;\n"                                                   /*  5 */
    "layout(location = 0) out vec4 out_color;\n"                                /*  6 */
    "void main() {\n"                                                           /*  7 */
    "    vec2 q = floor(v_pix);\n"                                              /*  8 */
    "    float cell = q.x + 128.0 * q.y;\n"                                     /*  9 */
    "    vec4 value = vec4(u_draw, float(v_instance), v_tag, cell);\n"          /* 10 */
    "    out_color = value;\n"                                                  /* 11 */
    "}\n";                                                                      /* 12 */

static const char *CAPTURE_VS =
    "#version 450 core\n"
    "out vec2 c_pos;\n"
    "void main() {\n"
    "    c_pos = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * 16.0;\n"
    "    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);\n"
    "}\n";

static const char *CAPTURE_FS =
    "#version 450 core\n"
    "layout(location = 0) out vec4 color;\n"
    "void main() { color = vec4(1.0); }\n";

/* Instance entries: offset x, y (pixels), tag. */
static const float INSTANCES[7][3] = {
    {0, 0, 0}, {0, 16, 1}, {0, 16, 2}, {0, 0, 3}, {96, 32, 4}, {112, 32, 5}, {112, 48, 6},
};

/* Quad n of the vertex buffer: which form's cell, bottom half (1), top
 * half (2) or the full cell (0). Quad 0 is never drawn. */
static const int QUADS[19][2] = {
    {-1, 0}, {0, 0},  {1, 0},  {2, 0},  {3, 1},  {4, 1},  {5, 0},
    {6, 1},  {7, 1},  {8, 1},  {8, 2},  {9, 1},  {9, 2},  {10, 0},
    {11, 1}, {12, 1}, {12, 2}, {13, 1}, {13, 2},
};

static GLuint link(const char *vs, const char *fs, const char *captured) {
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, vs));
    glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
    if (captured) glTransformFeedbackVaryings(p, 1, &captured, GL_INTERLEAVED_ATTRIBS);
    link_program(p);
    return p;
}

/* The value the table of the header comment gives pixel (x, y). */
static void expected(int x, int y, float out[4]) {
    int d = (x / 16) + 8 * (y / 32);
    int top = (y % 32) >= 16;
    int inst = 0, tag = 0;
    out[0] = out[1] = out[2] = out[3] = 0;
    switch (d) {
    case 3: case 4: inst = tag = top; break;
    case 6: case 7: case 11: inst = !top; tag = top ? 2 : 3; break;
    case 14: if (top) return; tag = 4; break;
    case 15: inst = top; tag = 5 + top; break;
    default: break;
    }
    out[0] = (float)d;
    out[1] = (float)inst;
    out[2] = (float)tag;
    out[3] = (float)(x + W * y);
}

#define OFF(n) ((const void *)(uintptr_t)(n))

int main(void) {
    struct egl_app app = egl_app_start(4, 5, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);

    egl_app_float_target(W, H);

    /* Vertex buffer: the quads of QUADS, 4 vertices each. */
    static float verts[19 * 4][2];
    for (int q = 0; q < 19; q++) {
        int d = QUADS[q][0], half = QUADS[q][1];
        float x0 = d < 0 ? -64 : 16 * (d % 8), y0 = d < 0 ? -64 : 32 * (d / 8);
        float y1 = y0 + 32;
        if (half == 1) y1 = y0 + 16;
        if (half == 2) y0 += 16, y1 = y0 + 16;
        const float corners[4][2] = {{x0, y0}, {x0 + 16, y0}, {x0, y1}, {x0 + 16, y1}};
        memcpy(verts[4 * q], corners, sizeof corners);
    }
    /* Index buffer, 6 indices per block; `at(b)` is block b's byte offset. */
    static const GLuint indices[] = {
        0,  1,  2,  2,  1,  3,  /* 0: relative (base vertex forms) */
        8,  9,  10, 10, 9,  11, /* 1: quad 2, form 1 */
        12, 13, 14, 14, 13, 15, /* 2: quad 3, form 2 */
        20, 21, 22, 22, 21, 23, /* 3: quad 5, form 4 */
        44, 45, 46, 46, 45, 47, /* 4: quad 11, form 9 */
        48, 49, 50, 50, 49, 51, /* 5: quad 12, form 9 */
        0,  1,  2,  2,  1,  3,  /* 6: relative again (firstIndex 36 of form 11) */
    };
#define at(b) OFF((b) * 6 * sizeof(GLuint))
    /* Indirect commands. */
    static const GLuint indirect[] = {
        4, 1, 52, 0,              /* @0: form 10 (arrays) */
        6, 2, 36, 56, 2,          /* @16: form 11 (elements) */
        4, 1, 60, 0, 4, 1, 64, 0, /* @36: form 12 (2 x arrays) */
        6, 1, 0, 68, 0,           /* @68: form 13 (2 x elements) */
        6, 1, 0, 72, 0,
    };

    GLuint vao, tf_vao, bufs[5];
    glGenBuffers(5, bufs);
    GLuint vbo = bufs[0], inst = bufs[1], ibo = bufs[2], dibo = bufs[3], tf_buf = bufs[4];
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof verts, verts, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, inst);
    glBufferData(GL_ARRAY_BUFFER, sizeof INSTANCES, INSTANCES, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, tf_buf);
    glBufferData(GL_ARRAY_BUFFER, 4 * 2 * sizeof(float), NULL, GL_STATIC_DRAW);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, dibo);
    glBufferData(GL_DRAW_INDIRECT_BUFFER, sizeof indirect, indirect, GL_STATIC_DRAW);

    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, OFF(0));
    glEnableVertexAttribArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, inst);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, OFF(0));
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(1);

    /* The feedback forms' vertex array: positions from the captured buffer. */
    glGenVertexArrays(1, &tf_vao);
    glBindVertexArray(tf_vao);
    glBindBuffer(GL_ARRAY_BUFFER, tf_buf);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, OFF(0));
    glEnableVertexAttribArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, inst);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, OFF(4 * sizeof INSTANCES[0]));
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(1);

    GLuint capture = link(CAPTURE_VS, CAPTURE_FS, "c_pos");
    GLuint prog = link(DRAW_VS, DRAW_FS, NULL);
    GLint u_draw = glGetUniformLocation(prog, "u_draw");

    GLuint tfo;
    glGenTransformFeedbacks(1, &tfo);

    const float zero[4] = {0, 0, 0, 0};
    glClearBufferfv(GL_COLOR, 0, zero);

    /* Draw 1: the capture pass. */
    glBindVertexArray(vao);
    glUseProgram(capture);
    glEnable(GL_RASTERIZER_DISCARD);
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, tfo);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, tf_buf);
    glBeginTransformFeedback(GL_POINTS);
    glDrawArrays(GL_POINTS, 0, 4);
    glEndTransformFeedback();
    glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, 0);
    glDisable(GL_RASTERIZER_DISCARD);

    /* Draws 2 .. 17: forms 0 .. 15. */
    glUseProgram(prog);
#define FORM(d) glUniform1f(u_draw, (float)(d))
    FORM(0);
    glDrawArrays(GL_TRIANGLE_STRIP, 4, 4);
    FORM(1);
    glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_INT, at(1));
    FORM(2);
    glDrawRangeElements(GL_TRIANGLES, 12, 15, 6, GL_UNSIGNED_INT, at(2));
    FORM(3);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 16, 4, 2);
    FORM(4);
    glDrawElementsInstanced(GL_TRIANGLES, 6, GL_UNSIGNED_INT, at(3), 2);
    FORM(5);
    glDrawElementsBaseVertex(GL_TRIANGLES, 6, GL_UNSIGNED_INT, at(0), 24);
    FORM(6);
    glDrawArraysInstancedBaseInstance(GL_TRIANGLE_STRIP, 28, 4, 2, 2);
    FORM(7);
    glDrawElementsInstancedBaseVertexBaseInstance(GL_TRIANGLES, 6, GL_UNSIGNED_INT, at(0), 2,
                                                  32, 2);
    FORM(8);
    {
        const GLint first[2] = {36, 40};
        const GLsizei count[2] = {4, 4};
        glMultiDrawArrays(GL_TRIANGLE_STRIP, first, count, 2);
    }
    FORM(9);
    {
        const GLsizei count[2] = {6, 6};
        const void *const offsets[2] = {at(4), at(5)};
        glMultiDrawElements(GL_TRIANGLES, count, GL_UNSIGNED_INT, offsets, 2);
    }
    FORM(10);
    glDrawArraysIndirect(GL_TRIANGLE_STRIP, OFF(0));
    FORM(11);
    glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, OFF(16));
    FORM(12);
    glMultiDrawArraysIndirect(GL_TRIANGLE_STRIP, OFF(36), 2, 0);
    FORM(13);
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, OFF(68), 2, 0);
    glBindVertexArray(tf_vao);
    FORM(14);
    glDrawTransformFeedback(GL_TRIANGLE_STRIP, tfo);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, OFF(5 * sizeof INSTANCES[0]));
    FORM(15);
    glDrawTransformFeedbackInstanced(GL_TRIANGLE_STRIP, tfo, 2);

    static float image[H][W][4];
    glReadPixels(0, 0, W, H, GL_RGBA, GL_FLOAT, image);
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float want[4];
            expected(x, y, want);
            if (memcmp(want, image[y][x], sizeof want)) {
                if (wrong < 8)
                    fprintf(stderr, "egl_draws: pixel %d,%d: %g %g %g %g, want %g %g %g %g\n", x,
                            y, image[y][x][0], image[y][x][1], image[y][x][2], image[y][x][3],
                            want[0], want[1], want[2], want[3]);
                wrong++;
            }
        }
    uint64_t checksum = fnv(FNV_OFFSET, image, sizeof image);

    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "egl_draws: GL error 0x%x\n", err);
        return 1;
    }
    printf("egl_draws: checksum %llu, wrong %d, %s\n", (unsigned long long)checksum, wrong,
           (const char *)glGetString(GL_RENDERER));
    egl_app_end(app);
    return wrong != 0;
}

/* Shaders and geometry shared by the gldbg test apps (egl_shade.c, glx_shade.c).
 *
 * Line numbers matter: the integration tests name source lines of
 * SHADE_FS (tests/src/lib.rs: `mod lines`, checked against this file by a unit
 * test). Each line of a shader is one C string literal below, so the C line of
 * a literal minus the line of `#version` plus 1 is its GLSL line.
 *
 * The framebuffer is SHADE_W x SHADE_H pixels. The quad covers window pixels
 * x in [16, 56), y in [12, 36) (pixel centres x = 16.5 .. 55.5), i.e.
 * 40 x 24 = 960 fragments; the rest keeps the clear colour.
 *
 * u_gain is 0.01 + 0.005 * frame (frame counted from 0).
 */
#ifndef SHADE_COMMON_H
#define SHADE_COMMON_H

#define SHADE_W 64
#define SHADE_H 48

static const char *const SHADE_VS =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "void main() {\n"
    "    gl_Position = vec4(a_pos, 0.0, 1.0);\n"
    "}\n";

static const char *const SHADE_FS =
    "#version 330 core\n"                                          /*  1 */
    "uniform float u_gain;\n"                                      /*  2 */
    "out vec4 frag;\n"                                             /*  3 */
    "float shade(vec2 p) {\n"                                      /*  4 */
    "    float acc = 0.0;\n"                                       /*  5 */
    "    for (int i = 0; i < 4; ++i) {\n"                          /*  6 */
    "        float t = float(i) * 16.0;\n"                         /*  7 */
    "        if (p.x > t) {\n"                                     /*  8 */
    "            acc += 0.25 * float(i) + p.y * u_gain;\n"         /*  9 */
    "        } else {\n"                                           /* 10 */
    "            acc -= 0.1;\n"                                    /* 11 */
    "        }\n"                                                  /* 12 */
    "    }\n"                                                      /* 13 */
    "    float v = acc * 0.5;\n"                                   /* 14 */
    "    return v;\n"                                              /* 15 */
    "}\n"                                                          /* 16 */
    "void main() {\n"                                              /* 17 */
    "    vec2 p = gl_FragCoord.xy;\n"                              /* 18 */
    "    float s = shade(p);\n"                                    /* 19 */
    "    frag = vec4(fract(s), p.x / 64.0, p.y / 48.0, 1.0);\n"    /* 20 */
    "}\n";                                                         /* 21 */

/* A fragment shader Mesa compiles and glsl-lang alone cannot parse: subroutine(T). */
static const char *const SHADE_FS_SUBROUTINE =
    "#version 400\n"                                               /*  1 */
    "subroutine float ShadeFn(vec2 p);\n"                          /*  2 */
    "subroutine(ShadeFn) float shadeA(vec2 p) {\n"                 /*  3 */
    "    return p.x / 64.0;\n"                                     /*  4 */
    "}\n"                                                          /*  5 */
    "subroutine uniform ShadeFn u_shade;\n"                        /*  6 */
    "uniform float u_gain;\n"                                      /*  7 */
    "out vec4 frag;\n"                                             /*  8 */
    "void main() {\n"                                              /*  9 */
    "    float s = u_shade(gl_FragCoord.xy) + u_gain;\n"           /* 10 */
    "    frag = vec4(s, 0.0, 0.0, 1.0);\n"                         /* 11 */
    "}\n";                                                         /* 12 */

/* A fragment shader Mesa compiles and glsl-lang's preprocessor alone cannot
 * read: a nested ## concatenation whose function-like macro gets its () after
 * the expansion (after piglit's glsl-1.30/preprocessor/concat/nested_concat). */
static const char *const SHADE_FS_NESTED_CONCAT =
    "#version 330 core\n"                                          /*  1 */
    "uniform float u_gain;\n"                                      /*  2 */
    "out vec4 frag;\n"                                             /*  3 */
    "#define STEP_ONE() frag = vec4(u_gain, 0.0, 0.0, 1.0)\n"      /*  4 */
    "#define GLUE(x, y) x ## _ ## y\n"                             /*  5 */
    "#define EVALUATE(x, y) GLUE(x, y)\n"                          /*  6 */
    "#define STEP(name) EVALUATE(STEP, name)()\n"                  /*  7 */
    "void main() {\n"                                              /*  8 */
    "    STEP(ONE);\n"                                             /*  9 */
    "}\n";                                                         /* 10 */

/* Two triangles: NDC x in [-0.5, 0.75], y in [-0.5, 0.5]. */
static const float SHADE_QUAD[12] = {
    -0.5f, -0.5f,   0.75f, -0.5f,   0.75f, 0.5f,
    -0.5f, -0.5f,   0.75f,  0.5f,  -0.5f,  0.5f,
};

static float shade_gain(int frame) { return 0.01f + 0.005f * (float)frame; }

#endif

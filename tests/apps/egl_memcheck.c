/* egl_memcheck: compute (and one fragment) shaders with planted memory
 * bugs, for gldbg's memcheck (issue 17), and their corrected twins.
 *
 *   egl_memcheck CASE...      CASE: a name below, NAME-fixed, `bugs` (every
 *                             planted case), `fixed` (every twin), `all`
 *                             (each case, then its twin)
 *   egl_memcheck --source CASE   print CASE's checked shader (the compute
 *                                shader; `fragment`: the fragment shader) and exit
 *   egl_memcheck --list          print the case names and exit
 *
 * EGL surfaceless, an OpenGL 4.3 core context (GL from libOpenGL; Mesa's
 * llvmpipe in the tests). Each case builds its program, fills its inputs
 * (fixed values, no randomness), makes ONE dispatch (or, for `fragment`,
 * one draw), reads every buffer and image the shader writes back and prints
 * one line:
 *
 *   egl_memcheck: CASE checksum 0x%016llx (deterministic|undefined|racy)
 *
 * the checksum being FNV-1a 64 of what the shader wrote (buffers, images,
 * for `fragment` also the 16x16 RGBA32F framebuffer). The word in
 * parentheses says whether the output can be compared between a native run
 * and a run under `gldbg run --memcheck`:
 *   deterministic: fixed by the GL spec: must be identical;
 *   undefined:     the bug makes the GL result undefined (a read outside
 *                  the array, of an uninitialised value); Mesa llvmpipe
 *                  gives the same value on every run (checked over 10 runs),
 *                  but another compile of the same shader may not;
 *   racy:          the result depends on the order invocations run in (a
 *                  race on a multi-threaded driver).
 * Every -fixed twin is deterministic, and its output (as image-oob's) is
 * checked against a CPU model of its kernel: the app says so on stderr
 * and exits 1 if it differs.
 *
 * Shader sources and line numbers. Each shader is one C string literal
 * `static const char NAME[] =` followed by one C line per GLSL line, each a
 * single literal ending in `\n"` and the comment `/` `* N *` `/` with its
 * GLSL line number N (line 1: `#version 430`, no other text is prepended).
 * So GLSL line N of a shader is the C line (declaration line + N), and
 * its text is the literal on that C line. The planted bug's line carries a
 * GLSL comment `// BUG: <kind>` (kind as in gldbg's finding:
 * out-of-bounds, uninitialized, race; a race whose two sides are on two
 * lines has `// BUG: race (write side)` and `// BUG: race (read side)`):
 * a test finds the expected line by scanning the shader for `// BUG:`
 * (`--source` prints the exact text the app compiles). The twins
 * (NAME_FIXED) have the same number of lines and no `BUG` comment.
 *
 * Expected findings: exactly these, nothing else; the twins: none. One
 * dispatch (draw) per case; "wg" is gl_WorkGroupID, "local"
 * gl_LocalInvocationID (all x unless given as a pair), elements index the
 * array as the shader declares it (an image's: the texel (x, y)).
 * Findings are deduplicated per (kind, line): `count` is the number of
 * accesses (or, for races, of conflicting pairs) listed.
 *
 *  (a) storage-oob, CS_STORAGE_OOB: out-of-bounds, line 11
 *      `data[row * cols + i]`, block Matrix (binding 0, bound range of 256
 *      floats at byte 1024 of a 520-float buffer), element [256];
 *      wg (0,0,0) local (63,0,0) only (row 63 reads data[63 * 4 + 4]; the
 *      other rows read into the next row, inside the range); count 1.
 *  (b) shared-oob, CS_SHARED_OOB: out-of-bounds, line 12 `tile[lid + 1u]`,
 *      shared tile[64], element [64]; wg 0 local 63 and wg 1 local 63;
 *      count 2.
 *  (c) local-oob, CS_LOCAL_OOB: out-of-bounds, line 11 `hist[bucket]`,
 *      local hist[8], element [8]; wg 0 local 13 only (its sample
 *      samples[54] is 1.0); one `+=` (read and write) of that element.
 *  (d) image-oob, CS_IMAGE_OOB: out-of-bounds, line 10 `imageStore(dst,
 *      ...)`, image dst (unit 1, 16x16 r32f), texel (16, y) for y = 0..15,
 *      by the invocation with global id (15, y): wg (1, y / 8) local
 *      (7, y % 8); count 16.
 *  (e) counter-oob, CS_COUNTER_OOB: out-of-bounds, line 10
 *      `atomicCounterIncrement(above)`, atomic counter binding 0 at offset 4
 *      while the app binds 4 bytes (glBindBufferRange(..., 0, 4)): element
 *      [1] (the word at byte 4); wg 0 local 5, 17 and 40 (the values above
 *      the threshold); count 3.
 *  (f) shared-uninit, CS_SHARED_UNINIT: uninitialized, line 13
 *      `tile[lid + stride]`, shared tile[128], element [64 + i] read by
 *      local i (i = 0..63) at stride 64, in wg 0 and wg 1 (tile[64..127]
 *      is never written); count 128.
 *  (g) local-uninit, CS_LOCAL_UNINIT: uninitialized, line 13 `scale`
 *      (local float, no element); wg 0 local 7 (value -3) and local 50
 *      (value 0), the invocations that skip the `if`; count 2.
 *  (h) shared-race, CS_SHARED_RACE: race, line 12 on both sides, shared
 *      tile[64], elements [1..31] in each of wg 0 and wg 1: element e, with
 *      s the power of two such that s <= e < 2s, is written (`tile[lid]
 *      +=`) by local e at the strides above s and read (`tile[lid +
 *      stride]`) by local e - s at stride s, with no barrier between (e.g.
 *      [16]: writer local 16, reader local 0); 31 pairs per workgroup.
 *  (i) storage-race-groups, CS_GROUP_RACE: race, line 15 on both sides,
 *      block Result (binding 1) `result.v[0]`, element [0]: local 0 of
 *      each of wg 0..3 reads and writes it without atomics; every pair of
 *      different workgroups conflicts (6 pairs).
 *  (j) storage-race-local, CS_LOCAL_RACE: race, write side line 9
 *      `f[i] = x * x` by local e, read side line 12 `f[i + 1u]` by local
 *      e - 1, block Samples (binding 0), elements [1..63], one workgroup,
 *      no barrier between; 63 pairs (`f[i]` on line 12, read by its own
 *      writer, is no race).
 *  (k) fragment, FS_FRAGMENT (a draw over a 16x16 target, VS_FRAGMENT):
 *      out-of-bounds, line 9 `imageStore(mirror, ...)`, image mirror
 *      (unit 0, 16x16 r32f), texel (16, y) by fragment (15, y), y = 0..15;
 *      count 16. And race, line 10 on both sides, block Last (binding 0)
 *      `last.v[0]`, element [0]: every fragment (x, y) of the draw writes
 *      it (write/write between any two fragments).
 *
 * Determinism of the planted cases' output (the word printed):
 * image-oob deterministic (the GL spec discards stores outside an image);
 * storage-oob, shared-oob, local-oob, counter-oob, shared-uninit,
 * local-uninit undefined; shared-race, storage-race-groups,
 * storage-race-local, fragment racy (llvmpipe happens to be stable on
 * them: it runs a workgroup's SIMD blocks one after another between
 * barriers and a 16x16 draw on one thread).
 */
#define GL_GLEXT_PROTOTYPES 1
#define APP_NAME "egl_memcheck"
#include <string.h>

#include "egl_app.h"

/* The shaders. Line numbers matter: see the header. */
static const char CS_STORAGE_OOB[] =
    "#version 430\n"                                                           /* 1 */
    "// Row sums of a ROWS x cols matrix, one invocation per row.\n"           /* 2 */
    "layout(local_size_x = 64) in;\n"                                          /* 3 */
    "layout(std430, binding = 0) readonly buffer Matrix { float data[]; };\n"  /* 4 */
    "layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };\n"   /* 5 */
    "uniform uint cols;\n"                                                     /* 6 */
    "void main() {\n"                                                          /* 7 */
    "    uint row = gl_GlobalInvocationID.x;\n"                                /* 8 */
    "    float acc = 0.0;\n"                                                   /* 9 */
    "    for (uint i = 0u; i <= cols; ++i) {\n"                                /* 10 */
    "        acc += data[row * cols + i];  // BUG: out-of-bounds\n"            /* 11 */
    "    }\n"                                                                  /* 12 */
    "    sums[row] = acc;\n"                                                   /* 13 */
    "}\n";                                                                     /* 14 */

static const char CS_STORAGE_OOB_FIXED[] =
    "#version 430\n"                                                           /* 1 */
    "// Row sums of a ROWS x cols matrix, one invocation per row.\n"           /* 2 */
    "layout(local_size_x = 64) in;\n"                                          /* 3 */
    "layout(std430, binding = 0) readonly buffer Matrix { float data[]; };\n"  /* 4 */
    "layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };\n"   /* 5 */
    "uniform uint cols;\n"                                                     /* 6 */
    "void main() {\n"                                                          /* 7 */
    "    uint row = gl_GlobalInvocationID.x;\n"                                /* 8 */
    "    float acc = 0.0;\n"                                                   /* 9 */
    "    for (uint i = 0u; i < cols; ++i) {\n"                                 /* 10 */
    "        acc += data[row * cols + i];\n"                                   /* 11 */
    "    }\n"                                                                  /* 12 */
    "    sums[row] = acc;\n"                                                   /* 13 */
    "}\n";                                                                     /* 14 */

static const char CS_SHARED_OOB[] =
    "#version 430\n"                                                                  /* 1 */
    "// Two-tap smoothing of a signal through a shared tile per workgroup.\n"         /* 2 */
    "layout(local_size_x = 64) in;\n"                                                 /* 3 */
    "layout(std430, binding = 0) readonly buffer Signal { float signal[]; };\n"       /* 4 */
    "layout(std430, binding = 1) writeonly buffer Smoothed { float smoothed[]; };\n"  /* 5 */
    "shared float tile[64];\n"                                                        /* 6 */
    "void main() {\n"                                                                 /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                        /* 8 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                       /* 9 */
    "    tile[lid] = signal[gid];\n"                                                  /* 10 */
    "    barrier();\n"                                                                /* 11 */
    "    float next = tile[lid + 1u];  // BUG: out-of-bounds\n"                       /* 12 */
    "    smoothed[gid] = 0.5 * (tile[lid] + next);\n"                                 /* 13 */
    "}\n";                                                                            /* 14 */

static const char CS_SHARED_OOB_FIXED[] =
    "#version 430\n"                                                                  /* 1 */
    "// Two-tap smoothing of a signal through a shared tile per workgroup.\n"         /* 2 */
    "layout(local_size_x = 64) in;\n"                                                 /* 3 */
    "layout(std430, binding = 0) readonly buffer Signal { float signal[]; };\n"       /* 4 */
    "layout(std430, binding = 1) writeonly buffer Smoothed { float smoothed[]; };\n"  /* 5 */
    "shared float tile[64];\n"                                                        /* 6 */
    "void main() {\n"                                                                 /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                        /* 8 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                       /* 9 */
    "    tile[lid] = signal[gid];\n"                                                  /* 10 */
    "    barrier();\n"                                                                /* 11 */
    "    float next = tile[min(lid + 1u, 63u)];\n"                                    /* 12 */
    "    smoothed[gid] = 0.5 * (tile[lid] + next);\n"                                 /* 13 */
    "}\n";                                                                            /* 14 */

static const char CS_LOCAL_OOB[] =
    "#version 430\n"                                                                         /* 1 */
    "// Per-invocation 8-bucket histogram of four samples in [0, 1]: the fullest bucket.\n"  /* 2 */
    "layout(local_size_x = 32) in;\n"                                                        /* 3 */
    "layout(std430, binding = 0) readonly buffer Samples { float samples[]; };\n"            /* 4 */
    "layout(std430, binding = 1) writeonly buffer Peaks { uint peaks[]; };\n"                /* 5 */
    "void main() {\n"                                                                        /* 6 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                              /* 7 */
    "    uint hist[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);\n"                          /* 8 */
    "    for (uint k = 0u; k < 4u; ++k) {\n"                                                 /* 9 */
    "        uint bucket = uint(samples[gid * 4u + k] * 8.0);\n"                             /* 10 */
    "        hist[bucket] += 1u;  // BUG: out-of-bounds\n"                                   /* 11 */
    "    }\n"                                                                                /* 12 */
    "    uint best = 0u;\n"                                                                  /* 13 */
    "    for (uint b = 1u; b < 8u; ++b) {\n"                                                 /* 14 */
    "        if (hist[b] > hist[best]) best = b;\n"                                          /* 15 */
    "    }\n"                                                                                /* 16 */
    "    peaks[gid] = best * 16u + hist[best];\n"                                            /* 17 */
    "}\n";                                                                                   /* 18 */

static const char CS_LOCAL_OOB_FIXED[] =
    "#version 430\n"                                                                         /* 1 */
    "// Per-invocation 8-bucket histogram of four samples in [0, 1]: the fullest bucket.\n"  /* 2 */
    "layout(local_size_x = 32) in;\n"                                                        /* 3 */
    "layout(std430, binding = 0) readonly buffer Samples { float samples[]; };\n"            /* 4 */
    "layout(std430, binding = 1) writeonly buffer Peaks { uint peaks[]; };\n"                /* 5 */
    "void main() {\n"                                                                        /* 6 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                              /* 7 */
    "    uint hist[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);\n"                          /* 8 */
    "    for (uint k = 0u; k < 4u; ++k) {\n"                                                 /* 9 */
    "        uint bucket = min(uint(samples[gid * 4u + k] * 8.0), 7u);\n"                    /* 10 */
    "        hist[bucket] += 1u;\n"                                                          /* 11 */
    "    }\n"                                                                                /* 12 */
    "    uint best = 0u;\n"                                                                  /* 13 */
    "    for (uint b = 1u; b < 8u; ++b) {\n"                                                 /* 14 */
    "        if (hist[b] > hist[best]) best = b;\n"                                          /* 15 */
    "    }\n"                                                                                /* 16 */
    "    peaks[gid] = best * 16u + hist[best];\n"                                            /* 17 */
    "}\n";                                                                                   /* 18 */

static const char CS_IMAGE_OOB[] =
    "#version 430\n"                                                           /* 1 */
    "// Shift an image one texel right; the left column is cleared.\n"         /* 2 */
    "layout(local_size_x = 8, local_size_y = 8) in;\n"                         /* 3 */
    "layout(r32f, binding = 0) readonly uniform image2D src;\n"                /* 4 */
    "layout(r32f, binding = 1) writeonly uniform image2D dst;\n"               /* 5 */
    "void main() {\n"                                                          /* 6 */
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"                         /* 7 */
    "    float v = imageLoad(src, p).r;\n"                                     /* 8 */
    "    if (p.x == 0) imageStore(dst, p, vec4(0.0));\n"                       /* 9 */
    "    imageStore(dst, p + ivec2(1, 0), vec4(v));  // BUG: out-of-bounds\n"  /* 10 */
    "}\n";                                                                     /* 11 */

static const char CS_IMAGE_OOB_FIXED[] =
    "#version 430\n"                                                                    /* 1 */
    "// Shift an image one texel right; the left column is cleared.\n"                  /* 2 */
    "layout(local_size_x = 8, local_size_y = 8) in;\n"                                  /* 3 */
    "layout(r32f, binding = 0) readonly uniform image2D src;\n"                         /* 4 */
    "layout(r32f, binding = 1) writeonly uniform image2D dst;\n"                        /* 5 */
    "void main() {\n"                                                                   /* 6 */
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"                                  /* 7 */
    "    float v = imageLoad(src, p).r;\n"                                              /* 8 */
    "    if (p.x == 0) imageStore(dst, p, vec4(0.0));\n"                                /* 9 */
    "    if (p.x + 1 < imageSize(dst).x) imageStore(dst, p + ivec2(1, 0), vec4(v));\n"  /* 10 */
    "}\n";                                                                              /* 11 */

static const char CS_COUNTER_OOB[] =
    "#version 430\n"                                                             /* 1 */
    "// Count the values above a threshold with an atomic counter.\n"            /* 2 */
    "layout(local_size_x = 64) in;\n"                                            /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"  /* 4 */
    "layout(binding = 0, offset = 4) uniform atomic_uint above;\n"               /* 5 */
    "uniform float threshold;\n"                                                 /* 6 */
    "void main() {\n"                                                            /* 7 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                  /* 8 */
    "    if (values[gid] > threshold) {\n"                                       /* 9 */
    "        atomicCounterIncrement(above);  // BUG: out-of-bounds\n"            /* 10 */
    "    }\n"                                                                    /* 11 */
    "}\n";                                                                       /* 12 */

static const char CS_COUNTER_OOB_FIXED[] =
    "#version 430\n"                                                             /* 1 */
    "// Count the values above a threshold with an atomic counter.\n"            /* 2 */
    "layout(local_size_x = 64) in;\n"                                            /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"  /* 4 */
    "layout(binding = 0, offset = 0) uniform atomic_uint above;\n"               /* 5 */
    "uniform float threshold;\n"                                                 /* 6 */
    "void main() {\n"                                                            /* 7 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                  /* 8 */
    "    if (values[gid] > threshold) {\n"                                       /* 9 */
    "        atomicCounterIncrement(above);\n"                                   /* 10 */
    "    }\n"                                                                    /* 11 */
    "}\n";                                                                       /* 12 */

static const char CS_SHARED_UNINIT[] =
    "#version 430\n"                                                                       /* 1 */
    "// Sum of 128 values per workgroup of 64 invocations (two values each).\n"            /* 2 */
    "layout(local_size_x = 64) in;\n"                                                      /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"            /* 4 */
    "layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };\n"               /* 5 */
    "shared float tile[128];\n"                                                            /* 6 */
    "void main() {\n"                                                                      /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                             /* 8 */
    "    uint base = gl_WorkGroupID.x * 128u;\n"                                           /* 9 */
    "    tile[lid] = values[base + lid];\n"                                                /* 10 */
    "    barrier();\n"                                                                     /* 11 */
    "    for (uint stride = 64u; stride > 0u; stride >>= 1u) {\n"                          /* 12 */
    "        if (lid < stride) tile[lid] += tile[lid + stride];  // BUG: uninitialized\n"  /* 13 */
    "        barrier();\n"                                                                 /* 14 */
    "    }\n"                                                                              /* 15 */
    "    if (lid == 0u) sums[gl_WorkGroupID.x] = tile[0];\n"                               /* 16 */
    "}\n";                                                                                 /* 17 */

static const char CS_SHARED_UNINIT_FIXED[] =
    "#version 430\n"                                                                     /* 1 */
    "// Sum of 128 values per workgroup of 64 invocations (two values each).\n"          /* 2 */
    "layout(local_size_x = 64) in;\n"                                                    /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"          /* 4 */
    "layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };\n"             /* 5 */
    "shared float tile[128];\n"                                                          /* 6 */
    "void main() {\n"                                                                    /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                           /* 8 */
    "    uint base = gl_WorkGroupID.x * 128u;\n"                                         /* 9 */
    "    tile[lid] = values[base + lid]; tile[lid + 64u] = values[base + lid + 64u];\n"  /* 10 */
    "    barrier();\n"                                                                   /* 11 */
    "    for (uint stride = 64u; stride > 0u; stride >>= 1u) {\n"                        /* 12 */
    "        if (lid < stride) tile[lid] += tile[lid + stride];\n"                       /* 13 */
    "        barrier();\n"                                                               /* 14 */
    "    }\n"                                                                            /* 15 */
    "    if (lid == 0u) sums[gl_WorkGroupID.x] = tile[0];\n"                             /* 16 */
    "}\n";                                                                               /* 17 */

static const char CS_LOCAL_UNINIT[] =
    "#version 430\n"                                                                    /* 1 */
    "// Scale the positive values by a gain; the others were meant to pass through.\n"  /* 2 */
    "layout(local_size_x = 64) in;\n"                                                   /* 3 */
    "layout(std430, binding = 0) buffer Values { float values[]; };\n"                  /* 4 */
    "uniform float gain;\n"                                                             /* 5 */
    "void main() {\n"                                                                   /* 6 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                         /* 7 */
    "    float v = values[gid];\n"                                                      /* 8 */
    "    float scale;\n"                                                                /* 9 */
    "    if (v > 0.0) {\n"                                                              /* 10 */
    "        scale = gain;\n"                                                           /* 11 */
    "    }\n"                                                                           /* 12 */
    "    values[gid] = v * scale;  // BUG: uninitialized\n"                             /* 13 */
    "}\n";                                                                              /* 14 */

static const char CS_LOCAL_UNINIT_FIXED[] =
    "#version 430\n"                                                                    /* 1 */
    "// Scale the positive values by a gain; the others were meant to pass through.\n"  /* 2 */
    "layout(local_size_x = 64) in;\n"                                                   /* 3 */
    "layout(std430, binding = 0) buffer Values { float values[]; };\n"                  /* 4 */
    "uniform float gain;\n"                                                             /* 5 */
    "void main() {\n"                                                                   /* 6 */
    "    uint gid = gl_GlobalInvocationID.x;\n"                                         /* 7 */
    "    float v = values[gid];\n"                                                      /* 8 */
    "    float scale = 1.0;\n"                                                          /* 9 */
    "    if (v > 0.0) {\n"                                                              /* 10 */
    "        scale = gain;\n"                                                           /* 11 */
    "    }\n"                                                                           /* 12 */
    "    values[gid] = v * scale;\n"                                                    /* 13 */
    "}\n";                                                                              /* 14 */

static const char CS_SHARED_RACE[] =
    "#version 430\n"                                                              /* 1 */
    "// Sum of 64 values per workgroup by a tree reduction in shared memory.\n"   /* 2 */
    "layout(local_size_x = 64) in;\n"                                             /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"   /* 4 */
    "layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };\n"      /* 5 */
    "shared float tile[64];\n"                                                    /* 6 */
    "void main() {\n"                                                             /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                    /* 8 */
    "    tile[lid] = values[gl_GlobalInvocationID.x];\n"                          /* 9 */
    "    barrier();\n"                                                            /* 10 */
    "    for (uint stride = 32u; stride > 0u; stride >>= 1u) {\n"                 /* 11 */
    "        if (lid < stride) tile[lid] += tile[lid + stride];  // BUG: race\n"  /* 12 */
    "    }\n"                                                                     /* 13 */
    "    barrier();\n"                                                            /* 14 */
    "    if (lid == 0u) sums[gl_WorkGroupID.x] = tile[0];\n"                      /* 15 */
    "}\n";                                                                        /* 16 */

static const char CS_SHARED_RACE_FIXED[] =
    "#version 430\n"                                                             /* 1 */
    "// Sum of 64 values per workgroup by a tree reduction in shared memory.\n"  /* 2 */
    "layout(local_size_x = 64) in;\n"                                            /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"  /* 4 */
    "layout(std430, binding = 1) writeonly buffer Sums { float sums[]; };\n"     /* 5 */
    "shared float tile[64];\n"                                                   /* 6 */
    "void main() {\n"                                                            /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                   /* 8 */
    "    tile[lid] = values[gl_GlobalInvocationID.x];\n"                         /* 9 */
    "    barrier();\n"                                                           /* 10 */
    "    for (uint stride = 32u; stride > 0u; stride >>= 1u) {\n"                /* 11 */
    "        if (lid < stride) tile[lid] += tile[lid + stride];\n"               /* 12 */
    "        barrier();\n"                                                       /* 13 */
    "    }\n"                                                                    /* 14 */
    "    if (lid == 0u) sums[gl_WorkGroupID.x] = tile[0];\n"                     /* 15 */
    "}\n";                                                                       /* 16 */

static const char CS_GROUP_RACE[] =
    "#version 430\n"                                                                                   /* 1 */
    "// The maximum of all values: a shared-memory maximum per workgroup, then one global maximum.\n"  /* 2 */
    "layout(local_size_x = 64) in;\n"                                                                  /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { uint values[]; };\n"                         /* 4 */
    "layout(std430, binding = 1) buffer Result { uint v[]; } result;\n"                                /* 5 */
    "shared uint tile[64];\n"                                                                          /* 6 */
    "void main() {\n"                                                                                  /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                                         /* 8 */
    "    tile[lid] = values[gl_GlobalInvocationID.x];\n"                                               /* 9 */
    "    barrier();\n"                                                                                 /* 10 */
    "    for (uint stride = 32u; stride > 0u; stride >>= 1u) {\n"                                      /* 11 */
    "        if (lid < stride) tile[lid] = max(tile[lid], tile[lid + stride]);\n"                      /* 12 */
    "        barrier();\n"                                                                             /* 13 */
    "    }\n"                                                                                          /* 14 */
    "    if (lid == 0u) result.v[0] = max(result.v[0], tile[0]);  // BUG: race\n"                      /* 15 */
    "}\n";                                                                                             /* 16 */

static const char CS_GROUP_RACE_FIXED[] =
    "#version 430\n"                                                                                   /* 1 */
    "// The maximum of all values: a shared-memory maximum per workgroup, then one global maximum.\n"  /* 2 */
    "layout(local_size_x = 64) in;\n"                                                                  /* 3 */
    "layout(std430, binding = 0) readonly buffer Values { uint values[]; };\n"                         /* 4 */
    "layout(std430, binding = 1) buffer Result { uint v[]; } result;\n"                                /* 5 */
    "shared uint tile[64];\n"                                                                          /* 6 */
    "void main() {\n"                                                                                  /* 7 */
    "    uint lid = gl_LocalInvocationID.x;\n"                                                         /* 8 */
    "    tile[lid] = values[gl_GlobalInvocationID.x];\n"                                               /* 9 */
    "    barrier();\n"                                                                                 /* 10 */
    "    for (uint stride = 32u; stride > 0u; stride >>= 1u) {\n"                                      /* 11 */
    "        if (lid < stride) tile[lid] = max(tile[lid], tile[lid + stride]);\n"                      /* 12 */
    "        barrier();\n"                                                                             /* 13 */
    "    }\n"                                                                                          /* 14 */
    "    if (lid == 0u) atomicMax(result.v[0], tile[0]);\n"                                            /* 15 */
    "}\n";                                                                                             /* 16 */

static const char CS_LOCAL_RACE[] =
    "#version 430\n"                                                          /* 1 */
    "// Forward differences of a function sampled into a storage buffer.\n"   /* 2 */
    "layout(local_size_x = 64) in;\n"                                         /* 3 */
    "layout(std430, binding = 0) buffer Samples { float f[]; };\n"            /* 4 */
    "layout(std430, binding = 1) writeonly buffer Diffs { float d[]; };\n"    /* 5 */
    "void main() {\n"                                                         /* 6 */
    "    uint i = gl_LocalInvocationID.x;\n"                                  /* 7 */
    "    float x = float(i) * 0.25;\n"                                        /* 8 */
    "    f[i] = x * x;  // BUG: race (write side)\n"                          /* 9 */
    "    // every invocation's sample is read by its left neighbour below\n"  /* 10 */
    "    if (i + 1u < gl_WorkGroupSize.x) {\n"                                /* 11 */
    "        d[i] = f[i + 1u] - f[i];  // BUG: race (read side)\n"            /* 12 */
    "    }\n"                                                                 /* 13 */
    "}\n";                                                                    /* 14 */

static const char CS_LOCAL_RACE_FIXED[] =
    "#version 430\n"                                                         /* 1 */
    "// Forward differences of a function sampled into a storage buffer.\n"  /* 2 */
    "layout(local_size_x = 64) in;\n"                                        /* 3 */
    "layout(std430, binding = 0) buffer Samples { float f[]; };\n"           /* 4 */
    "layout(std430, binding = 1) writeonly buffer Diffs { float d[]; };\n"   /* 5 */
    "void main() {\n"                                                        /* 6 */
    "    uint i = gl_LocalInvocationID.x;\n"                                 /* 7 */
    "    float x = float(i) * 0.25;\n"                                       /* 8 */
    "    f[i] = x * x;\n"                                                    /* 9 */
    "    memoryBarrierBuffer(); barrier();\n"                                /* 10 */
    "    if (i + 1u < gl_WorkGroupSize.x) {\n"                               /* 11 */
    "        d[i] = f[i + 1u] - f[i];\n"                                     /* 12 */
    "    }\n"                                                                /* 13 */
    "}\n";                                                                   /* 14 */

static const char VS_FRAGMENT[] =
    "#version 430\n"                                                                            /* 1 */
    "// A triangle covering the whole viewport.\n"                                              /* 2 */
    "void main() {\n"                                                                           /* 3 */
    "    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1));\n"  /* 4 */
    "    gl_Position = vec4(p, 0.0, 1.0);\n"                                                    /* 5 */
    "}\n";                                                                                      /* 6 */

static const char FS_FRAGMENT[] =
    "#version 430\n"                                                                                       /* 1 */
    "// Shade a gradient, mirror each pixel one texel right into an image, note the last pixel shaded.\n"  /* 2 */
    "layout(r32f, binding = 0) writeonly uniform image2D mirror;\n"                                        /* 3 */
    "layout(std430, binding = 0) buffer Last { uint v[]; } last;\n"                                        /* 4 */
    "layout(location = 0) out vec4 color;\n"                                                               /* 5 */
    "void main() {\n"                                                                                      /* 6 */
    "    ivec2 p = ivec2(gl_FragCoord.xy);\n"                                                              /* 7 */
    "    float g = float(p.x + p.y * 16) / 256.0;\n"                                                       /* 8 */
    "    imageStore(mirror, p + ivec2(1, 0), vec4(g));  // BUG: out-of-bounds\n"                           /* 9 */
    "    last.v[0] = uint(p.x + p.y * 16);  // BUG: race\n"                                                /* 10 */
    "    color = vec4(g, 1.0 - g, 0.5, 1.0);\n"                                                            /* 11 */
    "}\n";                                                                                                 /* 12 */

static const char FS_FRAGMENT_FIXED[] =
    "#version 430\n"                                                                                       /* 1 */
    "// Shade a gradient, mirror each pixel one texel right into an image, note the last pixel shaded.\n"  /* 2 */
    "layout(r32f, binding = 0) writeonly uniform image2D mirror;\n"                                        /* 3 */
    "layout(std430, binding = 0) buffer Last { uint v[]; } last;\n"                                        /* 4 */
    "layout(location = 0) out vec4 color;\n"                                                               /* 5 */
    "void main() {\n"                                                                                      /* 6 */
    "    ivec2 p = ivec2(gl_FragCoord.xy);\n"                                                              /* 7 */
    "    float g = float(p.x + p.y * 16) / 256.0;\n"                                                       /* 8 */
    "    if (p.x + 1 < imageSize(mirror).x) imageStore(mirror, p + ivec2(1, 0), vec4(g));\n"               /* 9 */
    "    atomicMax(last.v[0], uint(p.x + p.y * 16));\n"                                                    /* 10 */
    "    color = vec4(g, 1.0 - g, 0.5, 1.0);\n"                                                            /* 11 */
    "}\n";                                                                                                 /* 12 */

/* ---------------------------------------------------------------------- */
/* GL helpers */

static GLuint buffer_with(GLsizeiptr size, const void *data) {
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, size, data, GL_DYNAMIC_COPY);
    return b;
}

/* A storage buffer of `size` bytes from `data` bound whole at `binding`. */
static GLuint storage(GLuint binding, GLsizeiptr size, const void *data) {
    GLuint b = buffer_with(size, data);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, b);
    return b;
}

static uint64_t hash_buffer(uint64_t h, GLuint b, GLsizeiptr size) {
    void *bytes = malloc(size);
    if (!bytes) die("out of memory");
    glBindBuffer(GL_COPY_READ_BUFFER, b);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, size, bytes);
    h = fnv(h, bytes, size);
    free(bytes);
    return h;
}

/* A 16x16 R32F texture of `texels` (16 * 16 floats). */
static GLuint image16(const float *texels) {
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_R32F, 16, 16);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 16, 16, GL_RED, GL_FLOAT, texels);
    return t;
}

static uint64_t hash_image16(uint64_t h, GLuint t) {
    float texels[256];
    glBindTexture(GL_TEXTURE_2D, t);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_FLOAT, texels);
    return fnv(h, texels, sizeof texels);
}

static GLuint program_of(const char *vs, const char *fs, const char *cs) {
    GLuint p = glCreateProgram();
    if (cs) glAttachShader(p, compile(GL_COMPUTE_SHADER, cs));
    if (vs) glAttachShader(p, compile(GL_VERTEX_SHADER, vs));
    if (fs) glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
    link_program(p);
    glUseProgram(p);
    return p;
}

static void dispatch(GLuint x, GLuint y) {
    glDispatchCompute(x, y, 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glFinish();
}

/* ---------------------------------------------------------------------- */
/* The cases: inputs, the dispatch, the checksum of the outputs */

/* (a) 64 rows x 4 columns: the Matrix range is floats 256..511 of a buffer
 * of 520 (float k = k % 7 + 1, 1000 from 512 on). */
static uint64_t run_storage_oob(GLuint p) {
    float m[520];
    for (int k = 0; k < 520; k++) m[k] = k < 512 ? (float)(k % 7 + 1) : 1000.0f;
    GLuint matrix = buffer_with(sizeof m, m);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, matrix, 1024, 1024);
    float zero[64] = {0};
    GLuint sums = storage(1, sizeof zero, zero);
    glUniform1ui(glGetUniformLocation(p, "cols"), 4);
    dispatch(1, 1);
    return hash_buffer(FNV_OFFSET, sums, sizeof zero);
}

/* (b) 2 workgroups of 64 samples (k * 3) % 11. */
static uint64_t run_shared_oob(GLuint p) {
    (void)p;
    float signal[128], zero[128] = {0};
    for (int k = 0; k < 128; k++) signal[k] = (float)((k * 3) % 11);
    storage(0, sizeof signal, signal);
    GLuint out = storage(1, sizeof zero, zero);
    dispatch(2, 1);
    return hash_buffer(FNV_OFFSET, out, sizeof zero);
}

/* (c) 32 invocations x 4 samples in [0, 1): ((k * 5) % 8) / 8 + 1/16,
 * but samples[54] (invocation 13) is 1.0: bucket 8. */
static uint64_t run_local_oob(GLuint p) {
    (void)p;
    float samples[128];
    GLuint zero[32] = {0};
    for (int k = 0; k < 128; k++) samples[k] = (float)((k * 5) % 8) / 8.0f + 0.0625f;
    samples[54] = 1.0f;
    storage(0, sizeof samples, samples);
    GLuint peaks = storage(1, sizeof zero, zero);
    dispatch(1, 1);
    return hash_buffer(FNV_OFFSET, peaks, sizeof zero);
}

/* (d) 16x16 images: src texel (x, y) = x + 16 y, dst starts at -1. */
static uint64_t run_image_oob(GLuint p) {
    (void)p;
    float src[256], dst[256];
    for (int k = 0; k < 256; k++) src[k] = (float)k, dst[k] = -1.0f;
    GLuint s = image16(src), d = image16(dst);
    glBindImageTexture(0, s, 0, GL_FALSE, 0, GL_READ_ONLY, GL_R32F);
    glBindImageTexture(1, d, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    dispatch(2, 2);
    return hash_image16(FNV_OFFSET, d);
}

/* (e) 64 values (k % 10) / 10, but 2.0 at 5, 17 and 40; threshold 1.5.
 * The counter buffer holds two words {0, 100}; the app binds its first
 * 4 bytes (the shader's counter was meant to be at offset 0). */
static uint64_t run_counter_oob(GLuint p) {
    float values[64];
    for (int k = 0; k < 64; k++) values[k] = (float)(k % 10) / 10.0f;
    values[5] = values[17] = values[40] = 2.0f;
    storage(0, sizeof values, values);
    GLuint words[2] = {0, 100};
    GLuint counter = buffer_with(sizeof words, words);
    glBindBufferRange(GL_ATOMIC_COUNTER_BUFFER, 0, counter, 0, 4);
    glUniform1f(glGetUniformLocation(p, "threshold"), 1.5f);
    dispatch(1, 1);
    return hash_buffer(FNV_OFFSET, counter, sizeof words);
}

/* (f) 2 workgroups x 128 values k % 5 + 1. */
static uint64_t run_shared_uninit(GLuint p) {
    (void)p;
    float values[256], zero[2] = {0};
    for (int k = 0; k < 256; k++) values[k] = (float)(k % 5 + 1);
    storage(0, sizeof values, values);
    GLuint sums = storage(1, sizeof zero, zero);
    dispatch(2, 1);
    return hash_buffer(FNV_OFFSET, sums, sizeof zero);
}

/* (g) 64 values k % 9 + 1, but -3 at 7 and 0 at 50; gain 2. */
static uint64_t run_local_uninit(GLuint p) {
    float values[64];
    for (int k = 0; k < 64; k++) values[k] = (float)(k % 9 + 1);
    values[7] = -3.0f;
    values[50] = 0.0f;
    GLuint b = storage(0, sizeof values, values);
    glUniform1f(glGetUniformLocation(p, "gain"), 2.0f);
    dispatch(1, 1);
    return hash_buffer(FNV_OFFSET, b, sizeof values);
}

/* (h) 2 workgroups x 64 values k % 5 + 1. */
static uint64_t run_shared_race(GLuint p) {
    (void)p;
    float values[128], zero[2] = {0};
    for (int k = 0; k < 128; k++) values[k] = (float)(k % 5 + 1);
    storage(0, sizeof values, values);
    GLuint sums = storage(1, sizeof zero, zero);
    dispatch(2, 1);
    return hash_buffer(FNV_OFFSET, sums, sizeof zero);
}

/* (i) 4 workgroups x 64 values (k * 37) % 1000; result starts at 0. */
static uint64_t run_group_race(GLuint p) {
    (void)p;
    GLuint values[256], zero[1] = {0};
    for (int k = 0; k < 256; k++) values[k] = (GLuint)((k * 37) % 1000);
    storage(0, sizeof values, values);
    GLuint result = storage(1, sizeof zero, zero);
    dispatch(4, 1);
    return hash_buffer(FNV_OFFSET, result, sizeof zero);
}

/* (j) one workgroup of 64; f starts at -1, d at 0. */
static uint64_t run_local_race(GLuint p) {
    (void)p;
    float f[64], d[64] = {0};
    for (int k = 0; k < 64; k++) f[k] = -1.0f;
    GLuint fb = storage(0, sizeof f, f);
    GLuint db = storage(1, sizeof d, d);
    dispatch(1, 1);
    return hash_buffer(hash_buffer(FNV_OFFSET, fb, sizeof f), db, sizeof d);
}

/* (k) one full-viewport triangle over a 16x16 RGBA32F target; the mirror
 * image starts at -1, Last.v[0] at 0. */
static uint64_t run_fragment(GLuint p) {
    (void)p;
    static int target;
    if (!target) egl_app_float_target(16, 16), target = 1;
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    float texels[256];
    for (int k = 0; k < 256; k++) texels[k] = -1.0f;
    GLuint mirror = image16(texels);
    glBindImageTexture(0, mirror, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    GLuint zero[1] = {0};
    GLuint last = storage(0, sizeof zero, zero);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glFinish();
    float pixels[16 * 16 * 4];
    glReadPixels(0, 0, 16, 16, GL_RGBA, GL_FLOAT, pixels);
    uint64_t h = fnv(FNV_OFFSET, pixels, sizeof pixels);
    h = hash_image16(h, mirror);
    return hash_buffer(h, last, sizeof zero);
}

/* ---------------------------------------------------------------------- */
/* CPU models of the twins' outputs (exact: small integers, halves and
 * quarters), as the checksums of the bytes the GPU run hashes. */

static uint64_t cpu_storage_oob(void) {
    float sums[64];
    for (int r = 0; r < 64; r++) {
        sums[r] = 0;
        for (int i = 0; i < 4; i++) sums[r] += (float)((256 + r * 4 + i) % 7 + 1);
    }
    return fnv(FNV_OFFSET, sums, sizeof sums);
}

static uint64_t cpu_shared_oob(void) {
    float out[128];
    for (int g = 0; g < 128; g++) {
        int base = g / 64 * 64, next = base + (g % 64 + 1 < 63 ? g % 64 + 1 : 63);
        out[g] = 0.5f * ((float)((g * 3) % 11) + (float)((next * 3) % 11));
    }
    return fnv(FNV_OFFSET, out, sizeof out);
}

static uint64_t cpu_local_oob(void) {
    GLuint peaks[32];
    for (int g = 0; g < 32; g++) {
        unsigned hist[8] = {0};
        for (int k = 0; k < 4; k++) {
            int s = g * 4 + k;
            hist[s == 54 ? 7 : (s * 5) % 8] += 1; /* 1.0 * 8 = bucket 8, clamped */
        }
        unsigned best = 0;
        for (unsigned b = 1; b < 8; b++)
            if (hist[b] > hist[best]) best = b;
        peaks[g] = best * 16 + hist[best];
    }
    return fnv(FNV_OFFSET, peaks, sizeof peaks);
}

static uint64_t cpu_image_oob(void) {
    float dst[256];
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) dst[y * 16 + x] = x == 0 ? 0.0f : (float)(x - 1 + 16 * y);
    return fnv(FNV_OFFSET, dst, sizeof dst);
}

static uint64_t cpu_counter_oob(void) {
    GLuint words[2] = {3, 100};
    return fnv(FNV_OFFSET, words, sizeof words);
}

static uint64_t cpu_shared_uninit(void) {
    float sums[2] = {0, 0};
    for (int k = 0; k < 256; k++) sums[k / 128] += (float)(k % 5 + 1);
    return fnv(FNV_OFFSET, sums, sizeof sums);
}

static uint64_t cpu_local_uninit(void) {
    float values[64];
    for (int k = 0; k < 64; k++) {
        float v = k == 7 ? -3.0f : k == 50 ? 0.0f : (float)(k % 9 + 1);
        values[k] = v > 0 ? v * 2.0f : v;
    }
    return fnv(FNV_OFFSET, values, sizeof values);
}

static uint64_t cpu_shared_race(void) {
    float sums[2] = {0, 0};
    for (int k = 0; k < 128; k++) sums[k / 64] += (float)(k % 5 + 1);
    return fnv(FNV_OFFSET, sums, sizeof sums);
}

static uint64_t cpu_group_race(void) {
    GLuint max[1] = {0};
    for (int k = 0; k < 256; k++)
        if ((GLuint)((k * 37) % 1000) > max[0]) max[0] = (GLuint)((k * 37) % 1000);
    return fnv(FNV_OFFSET, max, sizeof max);
}

static uint64_t cpu_local_race(void) {
    float f[64], d[64];
    for (int i = 0; i < 64; i++) f[i] = (float)i * 0.25f * ((float)i * 0.25f);
    for (int i = 0; i < 64; i++) d[i] = i < 63 ? f[i + 1] - f[i] : 0.0f;
    return fnv(fnv(FNV_OFFSET, f, sizeof f), d, sizeof d);
}

static uint64_t cpu_fragment(void) {
    float pixels[256 * 4], mirror[256];
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            float g = (float)(x + y * 16) / 256.0f;
            float *p = &pixels[(y * 16 + x) * 4];
            p[0] = g, p[1] = 1.0f - g, p[2] = 0.5f, p[3] = 1.0f;
            mirror[y * 16 + x] = x == 0 ? -1.0f : (float)(x - 1 + y * 16) / 256.0f;
        }
    GLuint last[1] = {255};
    uint64_t h = fnv(FNV_OFFSET, pixels, sizeof pixels);
    h = fnv(h, mirror, sizeof mirror);
    return fnv(h, last, sizeof last);
}

/* ---------------------------------------------------------------------- */

struct mc_case {
    const char *name;
    const char *vs, *fs, *cs;             /* the planted bug's shaders */
    const char *fixed_vs, *fixed_fs, *fixed_cs; /* the twin's */
    const char *determinism;              /* of the planted case's output */
    uint64_t (*run)(GLuint program);
    uint64_t (*cpu)(void);                /* the twin's output, on the CPU */
};

static const struct mc_case CASES[] = {
    {"storage-oob", 0, 0, CS_STORAGE_OOB, 0, 0, CS_STORAGE_OOB_FIXED, "undefined", run_storage_oob, cpu_storage_oob},
    {"shared-oob", 0, 0, CS_SHARED_OOB, 0, 0, CS_SHARED_OOB_FIXED, "undefined", run_shared_oob, cpu_shared_oob},
    {"local-oob", 0, 0, CS_LOCAL_OOB, 0, 0, CS_LOCAL_OOB_FIXED, "undefined", run_local_oob, cpu_local_oob},
    {"image-oob", 0, 0, CS_IMAGE_OOB, 0, 0, CS_IMAGE_OOB_FIXED, "deterministic", run_image_oob, cpu_image_oob},
    {"counter-oob", 0, 0, CS_COUNTER_OOB, 0, 0, CS_COUNTER_OOB_FIXED, "undefined", run_counter_oob, cpu_counter_oob},
    {"shared-uninit", 0, 0, CS_SHARED_UNINIT, 0, 0, CS_SHARED_UNINIT_FIXED, "undefined", run_shared_uninit, cpu_shared_uninit},
    {"local-uninit", 0, 0, CS_LOCAL_UNINIT, 0, 0, CS_LOCAL_UNINIT_FIXED, "undefined", run_local_uninit, cpu_local_uninit},
    {"shared-race", 0, 0, CS_SHARED_RACE, 0, 0, CS_SHARED_RACE_FIXED, "racy", run_shared_race, cpu_shared_race},
    {"storage-race-groups", 0, 0, CS_GROUP_RACE, 0, 0, CS_GROUP_RACE_FIXED, "racy", run_group_race, cpu_group_race},
    {"storage-race-local", 0, 0, CS_LOCAL_RACE, 0, 0, CS_LOCAL_RACE_FIXED, "racy", run_local_race, cpu_local_race},
    {"fragment", VS_FRAGMENT, FS_FRAGMENT, 0, VS_FRAGMENT, FS_FRAGMENT_FIXED, 0, "racy", run_fragment, cpu_fragment},
};
#define NCASES (int)(sizeof CASES / sizeof CASES[0])

/* The case named `arg` (NAME or NAME-fixed): its index, *fixed set. */
static int find_case(const char *arg, int *fixed) {
    size_t n = strlen(arg);
    *fixed = n > 6 && !strcmp(arg + n - 6, "-fixed");
    if (*fixed) n -= 6;
    for (int i = 0; i < NCASES; i++)
        if (strlen(CASES[i].name) == n && !strncmp(CASES[i].name, arg, n)) return i;
    fprintf(stderr, APP_NAME ": unknown case %s (see --list)\n", arg);
    exit(2);
}

/* How many times each case runs its program (`--repeat N`): memcheck
 * checks a program's first dispatch at a stop and its later ones without.
 * `--relink`: then the same program object is relinked with the twin's
 * shaders and run as many times again (a checked program of the old
 * shaders must not run in its place). */
static int repeat = 1, relink = 0;

/* Relink `p` with the twin's shaders of case `c`. */
static void relink_fixed(GLuint p, const struct mc_case *c) {
    GLuint attached[4];
    GLsizei n = 0;
    glGetAttachedShaders(p, 4, &n, attached);
    for (GLsizei i = 0; i < n; i++) glDetachShader(p, attached[i]);
    if (c->fixed_cs) glAttachShader(p, compile(GL_COMPUTE_SHADER, c->fixed_cs));
    if (c->fixed_vs) glAttachShader(p, compile(GL_VERTEX_SHADER, c->fixed_vs));
    if (c->fixed_fs) glAttachShader(p, compile(GL_FRAGMENT_SHADER, c->fixed_fs));
    link_program(p);
    glUseProgram(p);
}

static void run_case(int i, int fixed) {
    const struct mc_case *c = &CASES[i];
    GLuint p = fixed ? program_of(c->fixed_vs, c->fixed_fs, c->fixed_cs)
                     : program_of(c->vs, c->fs, c->cs);
    /* Each run sets up its buffers anew: the last run's output is told. */
    uint64_t h = 0;
    for (int r = 0; r < repeat; r++) h = c->run(p);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, APP_NAME ": %s%s: GL error 0x%x\n", c->name, fixed ? "-fixed" : "", err);
        exit(1);
    }
    /* A twin, and a planted case whose output the GL spec defines (the
     * discarded stores of image-oob), must give the CPU model's output. */
    int defined = fixed || !strcmp(c->determinism, "deterministic");
    if (defined && h != c->cpu()) {
        fprintf(stderr, APP_NAME ": %s%s: checksum 0x%016llx differs from the CPU model's 0x%016llx\n",
                c->name, fixed ? "-fixed" : "", (unsigned long long)h,
                (unsigned long long)c->cpu());
        exit(1);
    }
    printf(APP_NAME ": %s%s checksum 0x%016llx (%s)\n", c->name, fixed ? "-fixed" : "",
           (unsigned long long)h, fixed ? "deterministic" : c->determinism);
    fflush(stdout);
    if (relink && !fixed) {
        relink_fixed(p, c);
        for (int r = 0; r < repeat; r++) h = c->run(p);
        if (glGetError() != GL_NO_ERROR || h != c->cpu()) {
            fprintf(stderr, APP_NAME ": %s relinked: checksum 0x%016llx differs from the CPU "
                    "model's 0x%016llx\n", c->name, (unsigned long long)h,
                    (unsigned long long)c->cpu());
            exit(1);
        }
        printf(APP_NAME ": %s relinked checksum 0x%016llx (deterministic)\n", c->name,
               (unsigned long long)h);
        fflush(stdout);
    }
    glUseProgram(0);
    glDeleteProgram(p);
}

/* The checked stage's source of `arg` exactly as compiled: the compute
 * shader, or for `fragment` the fragment shader. */
/* The checked stage's source of `arg` exactly as compiled: the compute
 * shader, or for `fragment` the fragment shader. */
static void print_source(const char *arg) {
    int fixed, i = find_case(arg, &fixed);
    const struct mc_case *c = &CASES[i];
    const char *cs = fixed ? c->fixed_cs : c->cs, *fs = fixed ? c->fixed_fs : c->fs;
    fputs(cs ? cs : fs, stdout);
}

static void usage(void) {
    fprintf(stderr, "usage: egl_memcheck [--repeat N] [--relink] CASE... | all | bugs | fixed | --source CASE | --list\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "--repeat")) {
        repeat = atoi(argv[2]);
        if (repeat < 1) usage();
        argv += 2;
        argc -= 2;
    }
    if (argc >= 2 && !strcmp(argv[1], "--relink")) {
        relink = 1;
        argv += 1;
        argc -= 1;
    }
    if (argc < 2) usage();
    if (!strcmp(argv[1], "--list")) {
        for (int i = 0; i < NCASES; i++) printf("%s\n%s-fixed\n", CASES[i].name, CASES[i].name);
        return 0;
    }
    if (!strcmp(argv[1], "--source")) {
        if (argc != 3) usage();
        print_source(argv[2]);
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        int fixed;
        if (!strcmp(argv[a], "all") || !strcmp(argv[a], "bugs") || !strcmp(argv[a], "fixed"))
            continue;
        find_case(argv[a], &fixed); /* exits on an unknown name before any GL */
    }
    struct egl_app app = egl_app_start(4, 3, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT);
    for (int a = 1; a < argc; a++) {
        int all = !strcmp(argv[a], "all"), bugs = !strcmp(argv[a], "bugs"),
            fixed = !strcmp(argv[a], "fixed");
        if (all || bugs || fixed) {
            for (int i = 0; i < NCASES; i++) {
                if (all || bugs) run_case(i, 0);
                if (all || fixed) run_case(i, 1);
            }
        } else {
            int i = find_case(argv[a], &fixed);
            run_case(i, fixed);
        }
    }
    egl_app_end(app);
    return 0;
}

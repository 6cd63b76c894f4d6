/* memcheck_compute: the compute-heavy app of gldbg-bench's (g) memcheck
 * section: two kernels, each timed per iteration, natively or under
 * `gldbg run --memcheck`.
 *
 *   memcheck_compute [--iterations N] [--warmup N] [--small] [--no-query]
 *
 * EGL surfaceless, a GL 4.3 core context (GL from libOpenGL).
 * * reduce: a shared-memory tree reduction of 16M floats (2^24; --small:
 *   2^20): REDUCE_CS over 4096 workgroups of 256 (--small: 256) writes one
 *   partial sum per workgroup, each invocation first adding 16 elements
 *   strided by the grid; then FINAL_CS, one workgroup of 256, sums the
 *   partials. Barriers between every step. The values are k % 3 (0, 1, 2):
 *   every partial sum is an integer below 2^24, so the float sum is exact
 *   and checked against the CPU's exactly.
 * * matmul: C = A B of 1024x1024 floats (--small: 256x256), 16x16 tiles of
 *   A and B in shared memory, one invocation per element of C. A(i, j) =
 *   (i + 2j) % 5 - 2, B(i, j) = (3i + j) % 7 - 3: integer products and
 *   sums below 2^24, exact; 64 elements spread over C are checked against
 *   the CPU's.
 * After --warmup iterations (default 2) not timed, each of --iterations
 * (default 10) times each kernel: glFinish, then CPU wall time and a
 * GL_TIME_ELAPSED query (left out with --no-query: GPU time 0) around its
 * dispatches and a glFinish. Per kernel one line,
 *
 *   memcheck_compute: kernel NAME size S cpu_ms MEDIAN_CPU gpu_ms MEDIAN_GPU min_cpu_ms MIN iterations N
 *
 * then `memcheck_compute: ok` when both results match the CPU (else a
 * line saying what differs, exit 1).
 */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

/* Per invocation of REDUCE_CS: elements added before the tree. */
#define PER_INVOCATION 16

static const char *REDUCE_CS =
    "#version 430\n"
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 0) readonly buffer Values { float values[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };\n"
    "shared float tile[256];\n"
    "void main() {\n"
    "    uint lid = gl_LocalInvocationID.x;\n"
    "    uint stride = gl_NumWorkGroups.x * 256u;\n"
    "    float acc = 0.0;\n"
    "    for (uint k = 0u; k < 16u; ++k) {\n"
    "        acc += values[gl_GlobalInvocationID.x + k * stride];\n"
    "    }\n"
    "    tile[lid] = acc;\n"
    "    barrier();\n"
    "    for (uint s = 128u; s > 0u; s >>= 1u) {\n"
    "        if (lid < s) tile[lid] += tile[lid + s];\n"
    "        barrier();\n"
    "    }\n"
    "    if (lid == 0u) partials[gl_WorkGroupID.x] = tile[0];\n"
    "}\n";

/* One workgroup: `count` partials (a multiple of 256) to one sum. */
static const char *FINAL_CS =
    "#version 430\n"
    "layout(local_size_x = 256) in;\n"
    "layout(std430, binding = 1) readonly buffer Partials { float partials[]; };\n"
    "layout(std430, binding = 2) writeonly buffer Total { float total; };\n"
    "uniform uint count;\n"
    "shared float tile[256];\n"
    "void main() {\n"
    "    uint lid = gl_LocalInvocationID.x;\n"
    "    float acc = 0.0;\n"
    "    for (uint k = lid; k < count; k += 256u) {\n"
    "        acc += partials[k];\n"
    "    }\n"
    "    tile[lid] = acc;\n"
    "    barrier();\n"
    "    for (uint s = 128u; s > 0u; s >>= 1u) {\n"
    "        if (lid < s) tile[lid] += tile[lid + s];\n"
    "        barrier();\n"
    "    }\n"
    "    if (lid == 0u) total = tile[0];\n"
    "}\n";

static const char *MATMUL_CS =
    "#version 430\n"
    "layout(local_size_x = 16, local_size_y = 16) in;\n"
    "layout(std430, binding = 3) readonly buffer A { float a[]; };\n"
    "layout(std430, binding = 4) readonly buffer B { float b[]; };\n"
    "layout(std430, binding = 5) writeonly buffer C { float c[]; };\n"
    "uniform uint n;\n"
    "shared float ta[16][16];\n"
    "shared float tb[16][16];\n"
    "void main() {\n"
    "    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;\n"
    "    uint row = gl_GlobalInvocationID.y, col = gl_GlobalInvocationID.x;\n"
    "    float acc = 0.0;\n"
    "    for (uint t = 0u; t < n; t += 16u) {\n"
    "        ta[ty][tx] = a[row * n + t + tx];\n"
    "        tb[ty][tx] = b[(t + ty) * n + col];\n"
    "        barrier();\n"
    "        for (uint k = 0u; k < 16u; ++k) {\n"
    "            acc += ta[ty][k] * tb[k][tx];\n"
    "        }\n"
    "        barrier();\n"
    "    }\n"
    "    c[row * n + col] = acc;\n"
    "}\n";

static void die(const char *what) {
    fprintf(stderr, "memcheck_compute: %s\n", what);
    exit(1);
}

static GLuint program(const char *src) {
    GLuint s = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "memcheck_compute: shader: %s\n", log);
        exit(1);
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, s);
    glLinkProgram(p);
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) die("a compute program did not link");
    return p;
}

static GLuint storage(GLuint binding, GLsizeiptr size, const void *data) {
    GLuint b;
    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, size, data, GL_DYNAMIC_COPY);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, b);
    return b;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct kernel {
    const char *name;
    long size;
    double *cpu, *gpu;
};

typedef void (*run_fn)(void *ctx);

/* Times `run` (its dispatches) once: CPU ms, GPU ms (0 without query). */
static void time_once(run_fn run, void *ctx, GLuint query, double *cpu, double *gpu) {
    glFinish();
    double t0 = now_ms();
    if (query) glBeginQuery(GL_TIME_ELAPSED, query);
    run(ctx);
    if (query) glEndQuery(GL_TIME_ELAPSED);
    glFinish();
    *cpu = now_ms() - t0;
    *gpu = 0;
    if (query) {
        GLuint64 ns = 0;
        glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);
        *gpu = ns / 1e6;
    }
}

struct reduce {
    GLuint partial, final;
    GLuint groups;
};

static void run_reduce(void *ctx) {
    struct reduce *r = ctx;
    glUseProgram(r->partial);
    glDispatchCompute(r->groups, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(r->final);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
}

struct matmul {
    GLuint program;
    GLuint n;
};

static void run_matmul(void *ctx) {
    struct matmul *m = ctx;
    glUseProgram(m->program);
    glDispatchCompute(m->n / 16, m->n / 16, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
}

static float mat_a(long i, long j) { return (float)((i + 2 * j) % 5 - 2); }
static float mat_b(long i, long j) { return (float)((3 * i + j) % 7 - 3); }

static void print_kernel(const struct kernel *k, int iterations) {
    double min = k->cpu[0];
    for (int i = 1; i < iterations; i++)
        if (k->cpu[i] < min) min = k->cpu[i];
    double cpu = median(k->cpu, iterations), gpu = median(k->gpu, iterations);
    printf("memcheck_compute: kernel %s size %ld cpu_ms %.4f gpu_ms %.4f min_cpu_ms %.4f "
           "iterations %d\n",
           k->name, k->size, cpu, gpu, min, iterations);
}

int main(int argc, char **argv) {
    int iterations = 10, warmup = 2, small = 0, use_query = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--small")) small = 1;
        else if (!strcmp(argv[i], "--no-query")) use_query = 0;
        else
            die("usage: memcheck_compute [--iterations N] [--warmup N] [--small] [--no-query]");
    }
    if (iterations < 1 || warmup < 0) die("--iterations must be at least 1, --warmup at least 0");

    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_display) die("no eglGetPlatformDisplayEXT");
    EGLDisplay dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (!eglInitialize(dpy, NULL, NULL)) die("no EGL display");
    eglBindAPI(EGL_OPENGL_API);
    EGLint attr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                     EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, (EGLConfig)0, EGL_NO_CONTEXT, attr);
    if (!ctx || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) die("no context");

    /* The reduction's data and programs. */
    struct reduce r = {program(REDUCE_CS), program(FINAL_CS), small ? 256 : 4096};
    long count = (long)r.groups * 256 * PER_INVOCATION;
    float *values = malloc(sizeof(float) * count);
    if (!values) die("out of memory");
    double expect_sum = 0;
    for (long k = 0; k < count; k++) values[k] = (float)(k % 3), expect_sum += k % 3;
    storage(0, sizeof(float) * count, values);
    free(values);
    storage(1, sizeof(float) * r.groups, NULL);
    GLuint total = storage(2, sizeof(float), NULL);
    glUseProgram(r.final);
    glUniform1ui(glGetUniformLocation(r.final, "count"), r.groups);

    /* The product's. */
    struct matmul m = {program(MATMUL_CS), small ? 256 : 1024};
    long n = m.n;
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n);
    if (!a || !b) die("out of memory");
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) a[i * n + j] = mat_a(i, j), b[i * n + j] = mat_b(i, j);
    storage(3, sizeof(float) * n * n, a);
    storage(4, sizeof(float) * n * n, b);
    free(a);
    free(b);
    GLuint c = storage(5, sizeof(float) * n * n, NULL);
    glUseProgram(m.program);
    glUniform1ui(glGetUniformLocation(m.program, "n"), m.n);

    GLuint query = 0;
    if (use_query) glGenQueries(1, &query);
    struct kernel kernels[2] = {
        {"reduce", count, calloc(iterations, sizeof(double)), calloc(iterations, sizeof(double))},
        {"matmul", n, calloc(iterations, sizeof(double)), calloc(iterations, sizeof(double))},
    };
    run_fn runs[2] = {run_reduce, run_matmul};
    void *ctxs[2] = {&r, &m};
    for (int it = -warmup; it < iterations; it++) {
        for (int k = 0; k < 2; k++) {
            double cpu, gpu;
            time_once(runs[k], ctxs[k], query, &cpu, &gpu);
            if (it >= 0) kernels[k].cpu[it] = cpu, kernels[k].gpu[it] = gpu;
        }
    }
    if (glGetError() != GL_NO_ERROR) die("a GL error was raised");
    for (int k = 0; k < 2; k++) print_kernel(&kernels[k], iterations);

    /* Check against the CPU. */
    int ok = 1;
    float sum;
    glBindBuffer(GL_COPY_READ_BUFFER, total);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, sizeof sum, &sum);
    if ((double)sum != expect_sum) {
        printf("memcheck_compute: reduce: sum %.1f, expected %.1f\n", sum, expect_sum);
        ok = 0;
    }
    glBindBuffer(GL_COPY_READ_BUFFER, c);
    for (int s = 0; s < 64; s++) {
        long i = (s * 97 + 13) % n, j = (s * 389 + 7) % n;
        float got;
        glGetBufferSubData(GL_COPY_READ_BUFFER, sizeof(float) * (i * n + j), sizeof got, &got);
        double expect = 0;
        for (long k = 0; k < n; k++) expect += (double)mat_a(i, k) * mat_b(k, j);
        if ((double)got != expect) {
            printf("memcheck_compute: matmul: C(%ld, %ld) = %.1f, expected %.1f\n", i, j, got,
                   expect);
            ok = 0;
        }
    }
    if (!ok) return 1;
    printf("memcheck_compute: ok\n");
    return 0;
}

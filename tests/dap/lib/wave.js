'use strict';
/**
 * The CPU reference of tests/apps/shaders/wave.frag (egl_files' fragment
 * shader), in float32 like the GPU: every value of the shader at a pixel.
 * The app's framebuffer is 64x64 and u_gain is 0.625; every value is a
 * binary fraction, so float32 results are exact and compare with ===.
 */

const f32 = Math.fround;

/** The framebuffer's size (egl_files: 64x64). */
const SIZE = 64;
/** egl_files' u_gain. */
const GAIN = 0.625;
/** The loop's trip count. */
const ITERATIONS = 3;

/** wave.frag's ripple(p, k): fract(dot(p, p) * k), as the shader computes it. */
function ripple(p, k) {
  const d = f32(f32(f32(p[0] * p[0]) + f32(p[1] * p[1])) * k);
  const r = f32(d - Math.floor(d));
  return { d, r };
}

/**
 * Every value of main() at pixel (x, y) in a draw with u_mode `mode`:
 * p, each iteration's k / d / r and acc after it, acc at line 24 (before
 * the halving) and at the end, and the output color.
 */
function fragment(x, y, mode) {
  const p = [f32(f32((x + 0.5) / 64) - 0.5), f32(f32((y + 0.5) / 64) - 0.5)];
  const iterations = [];
  let acc = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    const k = f32((i + 1) * GAIN);
    const { d, r } = ripple(p, k);
    const before = acc;
    acc = f32(acc + r);
    iterations.push({ i, k, d, r, accBefore: before, accAfter: acc });
  }
  const accLoop = acc;
  const accEnd = mode === 1 ? f32(acc * 0.5) : acc;
  return { x, y, p, iterations, accLoop, accEnd, color: [accEnd, p[0], p[1], 1] };
}

/**
 * The first invocation of draw 2 (u_mode 1) whose values meet `cond` at
 * line 24: the smallest index y * 64 + x (every invocation reaches line 24
 * at the same record, so the earliest hit is the first in invocation
 * order), with the number of invocations that meet it.
 */
function firstHit(cond) {
  let first = null;
  let count = 0;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const f = fragment(x, y, 1);
      if (cond(f)) {
        count++;
        if (!first) first = f;
      }
    }
  }
  return { first, count };
}

module.exports = { SIZE, GAIN, ITERATIONS, f32, ripple, fragment, firstHit };

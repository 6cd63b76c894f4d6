'use strict';
/**
 * Pixel history in the editor (issue 16): the custom requests
 * `pixelHistory` and `debugHistory` on the test app egl_history
 * (tests/apps/egl_history.c). At the first call of frame 2, the history of
 * window pixel 46,45 is the frame's glClear, draw 4 (D1) passing the depth
 * test and draw 5 (D2, behind it) rejected by it, with the values of a CPU
 * model of those three ops (the same SCENE as tests/tests/history/scene.rs);
 * the app stops at the frame's swap (a `stopped` event; the old stop's
 * references are gone). `debugHistory` of the draw lands in the fragment
 * shader of draw 4 of the next frame, focused on the pixel, with D1's
 * colour. Bad arguments, a pixel outside the framebuffer, an entry that is
 * no draw and a running app get error responses; the session goes on. A
 * history taken at the last swap ends with the app (`end` "exit"), then
 * `exited` and `terminated`.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');
const { Dap, testApp, stack, scopeVars, sleep } = require('./lib/session');

const f = Math.fround;

/* The CPU model of pixel 46,45 of egl_history's window (scene.rs). */
const rgba8 = (v) => Math.round(v * 255) / 255; // a float colour stored by RGBA8
const CLEAR = [0.2, 0.4, 0.6, 1.0].map(rgba8);
const D1 = [250, 10, 10, 255].map((b) => b / 255); // flat colour, bytes / 255
const windowDepth = (z) => z * 0.5 + 0.5;
const D1_DEPTH = windowDepth(-0.5);
const D2_DEPTH = windowDepth(0.0);
const [X, Y] = [46, 45];

/** Numbers equal within `eps` (RGBA8 and D24 round to their steps). */
function near(got, want, eps, what) {
  assert.ok(Array.isArray(got) && got.length === want.length, `${what}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
  got.forEach((g, i) => assert.ok(typeof g === 'number' && Math.abs(g - want[i]) <= eps,
    `${what}[${i}]: ${JSON.stringify(got)}, CPU model ${JSON.stringify(want)}`));
}
const nearOne = (got, want, eps, what) => near([got], [want], eps, what);

/** initialize + launch egl_history (`frames` frames) + `initialized`. */
async function launchHistoryApp(dap, frames) {
  await dap.initialize();
  const launched = dap.ok('launch', { program: testApp('egl_history'), args: ['--frames', String(frames)], cwd: __dirname });
  await dap.next('initialized');
  await launched;
}

/** From the launch to the first call of frame 2 (as tests/tests/history.rs's TO_FRAME_2); its thread. */
async function toFrame2(dap) {
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'frame' }] });
  await dap.ok('configurationDone');
  const stop = await dap.stopped('function breakpoint');
  await dap.ok('setFunctionBreakpoints', { breakpoints: [] });
  await dap.ok('next', { threadId: stop.threadId });
  await dap.stopped('step');
  return stop.threadId;
}

/** The history of 46,45 equals the CPU model's. */
function checkHistory(h) {
  assert.deepEqual(h.pixel, { x: X, y: Y }, JSON.stringify(h));
  assert.equal(h.kind, 'float');
  assert.equal(h.end, 'swap', 'the history runs to the frame\'s swap');
  assert.ok(!('cmd' in h) && !('ok' in h), 'the body is the history, not a CLI line');
  const e = h.history;
  assert.deepEqual(e.map((x) => [x.entry, x.function, x.draw]),
    [[1, 'glClear', 0], [2, 'glDrawArrays', 4], [3, 'glDrawArrays', 5]], JSON.stringify(e));
  assert.ok(e[0].call < e[1].call && e[1].call < e[2].call, 'entries in call order');
  for (const x of e) assert.equal(x.framebuffer, 0, 'the window');
  assert.equal(e[0].fragments, undefined, 'a clear has no fragments');
  near(e[0].after, CLEAR, 1e-6, 'after the clear');
  assert.deepEqual(e[1].before, e[0].after, 'each entry starts from the last one\'s value');

  // D1: one fragment (primitive 0: below its rectangle's diagonal), passing.
  assert.equal(e[1].frame, 2);
  assert.equal(e[1].fragments.length, 1, JSON.stringify(e[1]));
  const d1 = e[1].fragments[0];
  assert.equal(d1.primitive, 0);
  near(d1.output, D1, 1e-6, 'D1 output');
  nearOne(d1.depth, D1_DEPTH, 1e-6, 'D1 depth');
  assert.equal(d1.passed, true, JSON.stringify(d1));
  assert.equal(d1.rejected_by, null);
  near(d1.color_before, CLEAR, 1e-6, 'D1 colour before');
  near(d1.color_after, D1, 1e-6, 'D1 colour after');
  nearOne(d1.depth_before, 1, 1e-6, 'D1 depth before (the clear)');
  nearOne(d1.depth_after, D1_DEPTH, 1e-6, 'D1 depth after');
  near(e[1].after, D1, 1e-6, 'after D1');

  // D2: behind D1: rejected by the depth test, the pixel keeps D1.
  assert.equal(e[2].fragments.length, 1, JSON.stringify(e[2]));
  const d2 = e[2].fragments[0];
  assert.equal(d2.primitive, 0);
  nearOne(d2.depth, D2_DEPTH, 1e-6, 'D2 depth');
  assert.equal(d2.passed, false, JSON.stringify(d2));
  assert.equal(d2.rejected_by, 'depth');
  near(e[2].after, D1, 1e-6, 'after D2 (rejected)');
}

test('pixelHistory at 46,45, the stop at the swap, debugHistory of the draw, errors', { timeout: 240000 }, async (t) => {
  const dap = await new Dap(t).start();
  await launchHistoryApp(dap, 300000);
  let tid = await toFrame2(dap);
  const [glFrame] = await stack(dap, tid);
  const callScope = (await scopeVars(dap, glFrame.id, 'Call')).scope;

  // Bad arguments: errors, the app stays where it is.
  for (const [args, why] of [
    [{ y: 1 }, 'no x'],
    [{ x: -1, y: 1 }, 'a negative x'],
    [{ x: 1.5, y: 1 }, 'a fractional x'],
    [{ x: '1', y: 1 }, 'a string x'],
    [{ x: 1, y: 1, level: 1 }, 'a level without a texture'],
    [{ x: 1, y: 1, untilDraw: 0 }, 'untilDraw 0'],
  ]) {
    await dap.fails('pixelHistory', args, why);
  }
  const outside = await dap.fails('pixelHistory', { x: 64, y: 10 }, 'a pixel outside the 64x64 window');
  assert.match(outside.message, /64/, `the error names the pixel or the size: ${outside.message}`);
  await dap.fails('debugHistory', { entry: 0 }, 'entry 0');
  await dap.fails('debugHistory', {}, 'no entry');
  dap.none('stopped', 'refused requests move nothing');
  assert.equal((await stack(dap, tid))[0].name, glFrame.name, 'still at the first call of frame 2');

  // The history: the CPU model's; then a stop at the frame's swap.
  const h = await dap.ok('pixelHistory', { x: X, y: Y });
  checkHistory(h);
  const stop = await dap.stopped('step');
  tid = stop.threadId;
  const [swap] = await stack(dap, tid);
  assert.match(swap.name, /^eglSwapBuffers\(.*frame 2$/, `stopped at the frame's swap: ${swap.name}`);
  await dap.fails('variables', { variablesReference: callScope.variablesReference }, 'a reference from before the history');

  // An entry that is no draw, one that does not exist: errors.
  await dap.fails('debugHistory', { entry: 99 }, 'an entry the history lacks');
  const clear = await dap.fails('debugHistory', { entry: 1 }, 'the clear: no fragment to debug');
  assert.match(clear.message, /not a draw/);
  dap.none('stopped', 'refused debugHistory moves nothing');

  // Debug the fragment of D1 (entry 2): draw 4 of frame 3, focused on 46,45.
  const dbg = await dap.ok('debugHistory', { entry: 2 });
  assert.deepEqual(dbg.focus && [dbg.focus.x, dbg.focus.y], [X, Y], JSON.stringify(dbg));
  assert.ok(Number.isInteger(dbg.line), `a shader stop: ${JSON.stringify(dbg)}`);
  assert.deepEqual(dbg.differences, [], 'the same draw as the history\'s');
  await dap.stopped('step');
  const frames = await stack(dap, tid);
  assert.ok(frames.length >= 2, `a shader frame above the draw's: ${JSON.stringify(frames)}`);
  assert.deepEqual(dbg.stopped && [dbg.stopped.function, dbg.stopped.frame], ['glDrawArrays', 3], JSON.stringify(dbg.stopped));
  assert.match(frames.at(-1).name, /^glDrawArrays\(.*frame 3$/, JSON.stringify(frames.map((x) => x.name)));
  const coord = (await dap.ok('evaluate', { expression: 'gl_FragCoord.xy', context: 'hover' })).result;
  assert.deepEqual(coord.match(/-?\d+(\.\d+)?/g).slice(-2).map(Number), [X + 0.5, Y + 0.5], coord);
  const color = (await dap.ok('evaluate', { expression: 'v_color', context: 'hover' })).result;
  assert.deepEqual(color.match(/-?\d+(\.\d+)?(e-?\d+)?/g).slice(-4).map((v) => f(Number(v))), D1.map(f), color);

  // The console's words move too: `history` ends in a stop at the swap.
  await dap.ok('evaluate', { expression: `history ${X},${Y}`, context: 'repl' });
  const consoleStop = await dap.stopped('step');
  assert.equal(consoleStop.threadId, tid);

  // While the app runs: an error, the session goes on.
  await dap.ok('continue', { threadId: tid });
  await sleep(300);
  const running = await dap.fails('pixelHistory', { x: X, y: Y }, 'the app runs');
  assert.match(running.message, /running/);
  await dap.fails('debugHistory', { entry: 2 }, 'the app runs');
  await dap.ok('pause', { threadId: tid });
  await dap.stopped('pause');
  await dap.ok('terminate', {});
  await dap.next('terminated');
  await dap.request('disconnect', {}, 10000).catch(() => {});
});

test('pixelHistory from the last swap: the app ends before another frame; a history up to the exit, then exited', { timeout: 120000 }, async (t) => {
  const dap = await new Dap(t).start();
  await launchHistoryApp(dap, 2);
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'frame' }] });
  await dap.ok('configurationDone');
  const first = await dap.stopped('function breakpoint');
  await dap.ok('continue', { threadId: first.threadId });
  const last = await dap.stopped('function breakpoint');
  const [swap] = await stack(dap, last.threadId);
  assert.match(swap.name, /^eglSwapBuffers\(.*frame 2$/, swap.name);
  await dap.ok('setFunctionBreakpoints', { breakpoints: [] });
  const h = await dap.ok('pixelHistory', { x: X, y: Y });
  assert.equal(h.end, 'exit', `the app ended first: ${JSON.stringify(h)}`);
  assert.deepEqual(h.history, [], 'no call wrote the pixel after the last swap');
  near(h.start, D1, 1e-6, 'the pixel as frame 2 left it');
  const exited = await dap.next('exited');
  assert.equal(exited.body.exitCode, 0, JSON.stringify(exited.body));
  await dap.next('terminated');
  await dap.fails('pixelHistory', { x: X, y: Y }, 'after the app ended');
  await dap.request('disconnect', {}, 10000).catch(() => {});
});

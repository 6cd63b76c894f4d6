'use strict';
/**
 * GL-level breakpoints as DAP function breakpoints (`draw 2`,
 * `glDrawArrays`, `frame`), the GL step outside a shader and the run to the
 * end with the native hash; a hit-conditional source breakpoint counted
 * over draws; a crash as an exception.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { Dap, shaderCopy, fragLine, nativeRun, stack, scopeVars, waitGone } = require('./lib/session');
const { fragment } = require('./lib/wave');
const { assertValue, assertVar } = require('./lib/values');

const glFrame = (draw, frame) => `glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) draw ${draw}, frame ${frame}`;

/** The stack outside a shader: the GL call's frame only; returns it. */
async function glStop(dap, threadId, want, what) {
  const frames = await stack(dap, threadId);
  assert.equal(frames.length, 1, `${what}: the GL call's frame only: ${JSON.stringify(frames)}`);
  if (want instanceof RegExp) assert.match(frames[0].name, want, what);
  else assert.equal(frames[0].name, want, what);
  return frames[0];
}

test('function breakpoints draw N / glDrawArrays / frame, the GL step, the end with the native hash', async (t) => {
  const dir = shaderCopy(t);
  const native = nativeRun(dir);
  const dap = await new Dap(t).start();
  await dap.launch(dir);
  const fn = await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'draw 2' }] });
  assert.equal(fn.breakpoints.length, 1, JSON.stringify(fn));
  assert.equal(fn.breakpoints[0].verified, true, `a GL breakpoint is verified at once: ${JSON.stringify(fn)}`);
  await dap.ok('configurationDone');

  // draw 2: a GL stop before the draw runs, with the call's arguments.
  let stop = await dap.stopped('function breakpoint');
  assert.deepEqual(stop.hitBreakpointIds, [fn.breakpoints[0].id], JSON.stringify(stop));
  const tid = stop.threadId;
  const frame = await glStop(dap, tid, glFrame(2, 1), 'break draw 2');
  const { scopes } = await dap.ok('scopes', { frameId: frame.id });
  assert.deepEqual(scopes.map((s) => s.name), ['Call'], `a GL frame has the call's scope: ${JSON.stringify(scopes)}`);
  const call = (await scopeVars(dap, frame.id, 'Call')).vars;
  assert.equal(call.get('mode') && call.get('mode').value, 'GL_TRIANGLE_STRIP', JSON.stringify([...call.values()]));
  await assertVar(dap, call, 'first', null, [0], 'the call');
  await assertVar(dap, call, 'count', null, [4], 'the call');

  // loadedSources: both shaders the app compiled, served as recorded (the
  // app's prefix, then the file).
  const { sources } = await dap.ok('loadedSources', {});
  assert.equal(sources.length, 2, `the vertex and the fragment shader: ${JSON.stringify(sources)}`);
  for (const [stage, file, prefix] of [
    ['vertex', 'wave.vert', '#version 330 core\n#line 1\n'],
    ['fragment', 'wave.frag', '#version 330 core\n#define MODE_HALF 1\n'],
  ]) {
    const src = sources.find((x) => x.name && x.name.includes(stage));
    assert.ok(src, `a ${stage} shader in loadedSources: ${JSON.stringify(sources)}`);
    assert.ok(src.sourceReference > 0, `an unmapped shader is served by reference: ${JSON.stringify(src)}`);
    const { content } = await dap.ok('source', { source: src, sourceReference: src.sourceReference });
    assert.equal(content, prefix + fs.readFileSync(path.join(dir, file), 'utf8'), `the recorded ${stage} shader`);
  }

  // glDrawArrays: the next one is draw 3, the first of frame 2.
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'glDrawArrays' }] });
  await dap.ok('continue', { threadId: tid });
  stop = await dap.stopped('function breakpoint');
  await glStop(dap, tid, glFrame(3, 2), 'break glDrawArrays');

  // frame: the end of frame 2.
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'frame' }] });
  await dap.ok('continue', { threadId: tid });
  stop = await dap.stopped('function breakpoint');
  await glStop(dap, tid, /^eglSwapBuffers\(.*frame 2$/, 'break frame');

  // Outside a shader, next is the GL step: the call after the last swap.
  await dap.ok('next', { threadId: tid });
  stop = await dap.stopped('step');
  await glStop(dap, tid, /^glReadPixels\(/, 'GL step after the last swap');

  await dap.ok('setFunctionBreakpoints', { breakpoints: [] });
  await dap.ok('continue', { threadId: tid });
  const exited = await dap.next('exited');
  assert.equal(exited.body.exitCode, 0, JSON.stringify(exited.body));
  await dap.next('terminated');
  dap.none('stopped', 'no breakpoint left');
  assert.deepEqual(await dap.appHash(), native, 'the frame after the session is identical to a native run');
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
  await waitGone(dir, 10000, 'after the end');
});

test('a hit count on a conditional line breakpoint counts over draws', async (t) => {
  const dir = shaderCopy(t);
  const file = path.join(dir, 'wave.frag');
  const half = fragLine(dir, 'acc = acc * 0.5;');
  // One invocation meets the condition: its second execution of the line
  // (draw 2 of frame 2, draw 4 overall) is the stop, whatever the count's
  // scope (per invocation or over all of them).
  const pixel = fragment(48, 7, 1);
  const cond = `p.x == ${pixel.p[0]} && p.y == ${pixel.p[1]}`;

  const dap = await new Dap(t).start();
  await dap.launch(dir);
  const src = await dap.ok('setBreakpoints', {
    source: { path: file }, breakpoints: [{ line: half, condition: cond, hitCondition: '2' }], lines: [half],
  });
  const bp = src.breakpoints[0];
  assert.equal(typeof bp.id, 'number', `a breakpoint id: ${JSON.stringify(bp)}`);
  // draw 2 stops at the GL level first: its hit of the line (the first of
  // two) counts when the draw runs on from there.
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'draw 2' }] });
  await dap.ok('configurationDone');
  let stop = await dap.stopped('function breakpoint');
  const tid = stop.threadId;
  await glStop(dap, tid, glFrame(2, 1), 'break draw 2');
  await dap.ok('setFunctionBreakpoints', { breakpoints: [] });
  await dap.ok('continue', { threadId: tid });

  stop = await dap.stopped('breakpoint');
  assert.deepEqual(stop.hitBreakpointIds, [bp.id], JSON.stringify(stop));
  const frames = await stack(dap, tid);
  assert.equal(frames.length, 2, `main, then the GL frame: ${JSON.stringify(frames)}`);
  assert.equal(frames[0].source && frames[0].source.path, file, JSON.stringify(frames[0]));
  assert.equal(frames[0].line, half, JSON.stringify(frames[0]));
  assert.equal(frames[1].name, glFrame(4, 2), 'the hit count carries over draws: the second hit is in draw 4');
  const locals = (await scopeVars(dap, frames[0].id, 'Locals')).vars;
  await assertVar(dap, locals, 'p', 'vec2', pixel.p, 'the one invocation meeting the condition');
  await assertVar(dap, locals, 'acc', 'float', [pixel.accLoop], 'the one invocation meeting the condition');

  await dap.ok('setBreakpoints', { source: { path: file }, breakpoints: [], lines: [] });
  await dap.ok('continue', { threadId: tid });
  await dap.next('exited');
  await dap.next('terminated');
  dap.none('stopped', 'no breakpoint left');
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
});

test('a crash is an exception stop naming the signal and the GL call in flight', async (t) => {
  const dir = shaderCopy(t);
  const dap = await new Dap(t).start();
  await dap.launch(dir, { args: ['--crash'] });
  await dap.ok('configurationDone');
  const stop = await dap.stopped('exception');
  const info = await dap.ok('exceptionInfo', { threadId: stop.threadId });
  const text = JSON.stringify(info);
  assert.match(text, /SIGSEGV/, `exceptionInfo names the signal: ${text}`);
  assert.match(text, /glBufferSubData/, `exceptionInfo names the GL call in flight: ${text}`);
  assert.equal(typeof info.exceptionId, 'string', text);
  assert.ok(['never', 'always', 'unhandled', 'userUnhandled'].includes(info.breakMode), `breakMode: ${text}`);
  const frames = await stack(dap, stop.threadId);
  assert.match(frames[frames.length - 1].name, /^glBufferSubData\(.*frame 1$/, `the crashing call's frame: ${JSON.stringify(frames)}`);
  assert.ok(!/egl_files: frames/.test(dap.output()), 'the app never got to its end');
  await dap.ok('terminate', {});
  await dap.next('terminated');
  await waitGone(dir, 10000, 'terminate after the crash');
  await dap.request('disconnect', {}, 10000).catch(() => {});
  await dap.ended(30000, 'after disconnect');
});

test('gldbg dap --listen serves one client on TCP: a GL stop, the end with the native hash', async (t) => {
  const dir = shaderCopy(t);
  const native = nativeRun(dir);
  const dap = await new Dap(t, { listen: true }).start();
  await dap.launch(dir);
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'draw 2' }] });
  await dap.ok('configurationDone');
  const stop = await dap.stopped('function breakpoint');
  await glStop(dap, stop.threadId, glFrame(2, 1), 'break draw 2 over TCP');
  await dap.ok('setFunctionBreakpoints', { breakpoints: [] });
  await dap.ok('continue', { threadId: stop.threadId });
  await dap.next('exited');
  await dap.next('terminated');
  assert.deepEqual(await dap.appHash(), native, 'the frame after the session is identical to a native run');
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'the TCP server after its one client');
  await waitGone(dir, 10000, 'after the end');
});

test('sourceMap maps a file to a shader whatever its text, line for line', async (t) => {
  const dir = shaderCopy(t);
  // The fragment shader as the driver has it (the app's prefix included),
  // its comments changed: no content match, only the map names it.
  const mapped = path.join(dir, 'mapped.frag');
  const text = '#version 330 core\n#define MODE_HALF 1\n' + fs.readFileSync(path.join(dir, 'wave.frag'), 'utf8');
  fs.writeFileSync(mapped, text.replace(/^\/\/.*$/gm, '// (edited)'));
  const line = text.split('\n').findIndex((l) => l.trim() === 'acc = acc * 0.5;') + 1;
  const pixel = fragment(20, 30, 1);

  const dap = await new Dap(t).start();
  // egl_files creates program 1, then shader 2 (vertex) and 3 (fragment).
  await dap.launch(dir, { extra: { sourceMap: { 'shader 3': mapped } } });
  const set = await dap.ok('setBreakpoints', {
    source: { path: mapped },
    breakpoints: [{ line, condition: `p.x == ${pixel.p[0]} && p.y == ${pixel.p[1]}` }],
    lines: [line],
  });
  await dap.ok('configurationDone');
  const stop = await dap.stopped('breakpoint');
  assert.deepEqual(stop.hitBreakpointIds, [set.breakpoints[0].id], JSON.stringify(stop));
  const frames = await stack(dap, stop.threadId);
  assert.equal(frames[0].source && frames[0].source.path, mapped, `the mapped file: ${JSON.stringify(frames[0])}`);
  assert.equal(frames[0].line, line, `line for line: ${JSON.stringify(frames[0])}`);
  assert.equal(frames[frames.length - 1].name, glFrame(2, 1), JSON.stringify(frames));
  const locals = (await scopeVars(dap, frames[0].id, 'Locals')).vars;
  await assertVar(dap, locals, 'p', 'vec2', pixel.p, 'through the map');
  await assertVar(dap, locals, 'acc', 'float', [pixel.accLoop], 'through the map');
  await dap.ok('terminate', {});
  await dap.next('terminated');
  await waitGone(dir, 10000, 'terminate');
  await dap.request('disconnect', {}, 10000).catch(() => {});
  await dap.ended(30000, 'after disconnect');
});

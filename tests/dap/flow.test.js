'use strict';
/**
 * The editor's flow end to end (issue 15's "Must show"): a conditional line
 * breakpoint in wave.frag, launch, the stop at the right draw and
 * invocation, the stack, scopes and variables, stepping both ways,
 * evaluate, the value image, a log point, the run to the end with the
 * native hash. Every value against the CPU reference of wave.frag
 * (lib/wave.js).
 */

const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const { Dap, shaderCopy, fragLine, nativeRun, stack, scopeVars, waitGone } = require('./lib/session');
const { fragment, firstHit } = require('./lib/wave');
const { assertValue, assertVar, assertUnwritten, assertPrinted } = require('./lib/values');

/** The value of a sorted array nearest to `v`. */
function nearest(sorted, v) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v) lo = mid;
    else hi = mid;
  }
  return Math.abs(sorted[lo] - v) <= Math.abs(sorted[hi] - v) ? sorted[lo] : sorted[hi];
}

/** The breakpoint's condition and its CPU model (acc: the value at line 24). */
const COND = 'p.y > 0.375 && acc < 1.0';
const condModel = (f) => f.p[1] > 0.375 && f.accLoop < 1.0;

/** The GL call frame of draw `draw` (egl_files' quad), as the contract names it. */
const glFrame = (draw, frame) => `glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) draw ${draw}, frame ${frame}`;

/** The source lines of wave.frag this test uses (file lines, not the driver's). */
function lines(dir) {
  return {
    p: fragLine(dir, 'vec2 p = gl_FragCoord.xy / 64.0 - vec2(0.5);'),
    acc0: fragLine(dir, 'float acc = 0.0;'),
    loop: fragLine(dir, 'for (int i = 0; i < 3; ++i) {'),
    call: fragLine(dir, 'acc += ripple(p, k);'),
    branch: fragLine(dir, 'if (u_mode == MODE_HALF) {'),
    half: fragLine(dir, 'acc = acc * 0.5;'),
    d: fragLine(dir, 'float d = dot(p, p) * k;'),
    r: fragLine(dir, 'float r = d - floor(d);'),
  };
}

/**
 * The stack at a shader stop: `names` are the shader frames (innermost
 * first) with their file lines, then the GL call frame. Returns the frames.
 */
async function assertStack(dap, threadId, file, shaderFrames, gl, what) {
  const frames = await stack(dap, threadId);
  assert.equal(frames.length, shaderFrames.length + 1, `${what}: shader frames then the GL frame: ${JSON.stringify(frames)}`);
  shaderFrames.forEach(([fn, line], i) => {
    const f = frames[i];
    assert.ok(f.name.includes(fn), `${what}: frame ${i} is ${fn}: ${JSON.stringify(f)}`);
    assert.ok(f.source, `${what}: frame ${i} has a source: ${JSON.stringify(f)}`);
    assert.equal(f.source.path, file, `${what}: frame ${i} is in the user's file: ${JSON.stringify(f)}`);
    assert.equal(f.line, line, `${what}: frame ${i} file line (not the driver's): ${JSON.stringify(f)}`);
  });
  const last = frames[frames.length - 1];
  assert.equal(last.name, gl, `${what}: the GL call frame: ${JSON.stringify(last)}`);
  assert.ok(!last.source || (!last.source.path && !last.source.sourceReference), `${what}: the GL frame has no source: ${JSON.stringify(last)}`);
  return frames;
}

/** main's locals at a step: p, acc (and i, k in the loop) against the CPU. */
async function assertMainLocals(dap, frameId, want, what) {
  const { vars } = await scopeVars(dap, frameId, 'Locals');
  await assertVar(dap, vars, 'p', 'vec2', want.p, what);
  await assertVar(dap, vars, 'acc', 'float', [want.acc], what);
  if (want.i !== undefined) await assertVar(dap, vars, 'i', 'int', [want.i], what);
  else assert.ok(!vars.has('i') || vars.get('i').value === '<not yet written>', `${what}: i is out of scope: ${JSON.stringify([...vars.values()])}`);
  if (want.k !== undefined) await assertVar(dap, vars, 'k', 'float', [want.k], what);
  else assert.ok(!vars.has('k') || vars.get('k').value === '<not yet written>', `${what}: k is out of scope: ${JSON.stringify([...vars.values()])}`);
  return vars;
}

/** A step request and its `stopped` (reason "step"). */
async function step(dap, command, threadId) {
  await dap.ok(command, { threadId });
  await dap.stopped('step');
}

test('conditional line breakpoint in wave.frag: draw, invocation, stack, variables, steps both ways, evaluate, log point, end', async (t) => {
  const dir = shaderCopy(t);
  const file = path.join(dir, 'wave.frag');
  const L = lines(dir);
  const native = nativeRun(dir);
  const { first: hit, count } = firstHit(condModel);
  assert.ok(hit && count > 1 && hit.x > 0 && hit.y > 0, 'the condition picks an inner pixel of several');
  const [, it1, it2] = hit.iterations;

  const dap = await new Dap(t).start();
  await dap.launch(dir);
  const set = await dap.ok('setBreakpoints', {
    source: { path: file, name: 'wave.frag' },
    breakpoints: [{ line: L.half, condition: COND }],
    lines: [L.half],
  });
  assert.equal(set.breakpoints.length, 1, JSON.stringify(set));
  const bp = set.breakpoints[0];
  assert.equal(typeof bp.id, 'number', `a breakpoint id: ${JSON.stringify(bp)}`);
  assert.equal(bp.line, L.half, `the breakpoint stays on its file line: ${JSON.stringify(bp)}`);
  await dap.ok('configurationDone');

  // The stop: draw 2 of frame 1 (line 24 is reached in draw 2 only), the
  // first invocation meeting the condition, at the line, before it runs.
  const stop = await dap.stopped('breakpoint');
  const tid = stop.threadId;
  assert.deepEqual(stop.hitBreakpointIds, [bp.id], `hitBreakpointIds: ${JSON.stringify(stop)}`);
  assert.equal(stop.allThreadsStopped, true, JSON.stringify(stop));
  const { threads } = await dap.ok('threads');
  const thread = threads.find((th) => th.id === tid);
  assert.ok(thread, `the stopped thread is listed: ${JSON.stringify(threads)}`);
  assert.equal(thread.name, `GL thread ${tid}`, JSON.stringify(thread));

  let frames = await assertStack(dap, tid, file, [['main', L.half]], glFrame(2, 1), 'at the breakpoint');
  const atStop = { p: hit.p, acc: hit.accLoop };
  const stopVars = await assertMainLocals(dap, frames[0].id, atStop, `focus ${hit.x},${hit.y} at line ${L.half}`);
  const staleRef = (await dap.ok('scopes', { frameId: frames[0].id })).scopes.find((s) => s.name === 'Locals').variablesReference;
  const args = await scopeVars(dap, frames[0].id, 'Arguments');
  assert.equal(args.vars.size, 0, `main has no arguments: ${JSON.stringify([...args.vars.values()])}`);
  const uniforms = (await scopeVars(dap, frames[0].id, 'Uniforms')).vars;
  await assertVar(dap, uniforms, 'u_mode', 'int', [1], 'uniforms of draw 2');
  await assertVar(dap, uniforms, 'u_gain', 'float', [0.625], 'uniforms of draw 2');
  const call = (await scopeVars(dap, frames[1].id, 'Call')).vars;
  assert.equal(call.get('mode') && call.get('mode').value, 'GL_TRIANGLE_STRIP', `the call's mode: ${JSON.stringify([...call.values()])}`);
  assertValue(call.get('first') && call.get('first').value, [0], "the call's first");
  assertValue(call.get('count') && call.get('count').value, [4], "the call's count");

  // Hovers and watches: `print EXPR` at the focused invocation.
  const hover = await dap.ok('evaluate', { expression: 'acc', context: 'hover', frameId: frames[0].id });
  assertValue(hover.result, [hit.accLoop], 'hover acc');
  const watch = await dap.ok('evaluate', { expression: 'gl_FragCoord.xy', context: 'watch', frameId: frames[0].id });
  assertValue(watch.result, [hit.x + 0.5, hit.y + 0.5], 'watch gl_FragCoord.xy (the focus)');

  // The value image of acc over the draw: every pixel's value at this line.
  const image = await dap.ok('valueImage', { expression: 'acc' });
  assert.deepEqual([image.width, image.height, image.components, image.reached], [64, 64, 1, 4096], `valueImage: ${JSON.stringify({ ...image, values: undefined, covered: undefined })}`);
  const values = Buffer.from(image.values, 'base64');
  const covered = Buffer.from(image.covered, 'base64');
  assert.equal(values.length, 64 * 64 * 4 * 8, 'f64 x 4 per pixel');
  assert.equal(covered.length, 64 * 64, 'a byte per pixel');
  let lo = Infinity;
  let hi = -Infinity;
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 64; x++) {
      const i = y * 64 + x;
      const want = fragment(x, y, 1).accLoop;
      assert.equal(covered[i], 1, `valueImage: pixel ${x},${y} is reached`);
      assert.equal(values.readDoubleLE(i * 32), want, `valueImage: acc at ${x},${y} (rows bottom-up)`);
      lo = Math.min(lo, want);
      hi = Math.max(hi, want);
    }
  }
  assert.deepEqual([image.min, image.max], [[lo], [hi]], 'valueImage: min and max over the draw');

  // Verified in its response, or by a `breakpoint` event once the shader
  // with the file was seen (it may come after the stop).
  if (!bp.verified) {
    const changed = await dap.next('breakpoint', 10000).catch((e) => assert.fail(`${JSON.stringify(bp)} is never verified: ${e.message}`));
    assert.equal(changed.body.reason, 'changed', JSON.stringify(changed.body));
    assert.equal(changed.body.breakpoint.id, bp.id, JSON.stringify(changed.body));
    assert.equal(changed.body.breakpoint.verified, true, JSON.stringify(changed.body));
    assert.equal(changed.body.breakpoint.line, L.half, JSON.stringify(changed.body));
  }

  // Step back over the branch and into the loop's last iteration.
  await step(dap, 'stepBack', tid);
  frames = await assertStack(dap, tid, file, [['main', L.branch]], glFrame(2, 1), 'stepBack to the branch');
  await assertMainLocals(dap, frames[0].id, atStop, 'stepBack to the branch');
  await dap.fails('variables', { variablesReference: staleRef }, 'a variables reference from before the step');
  assert.ok(stopVars.get('acc'), 'the old reference had acc');
  const flow = await dap.ok('evaluate', { expression: 'info flow', context: 'repl', frameId: frames[0].id });
  assert.match(flow.result, /true\s+4096/, `info flow at the branch: every invocation takes it: ${flow.result}`);
  assert.match(flow.result, /false\s+0/, `info flow at the branch: ${flow.result}`);

  await step(dap, 'stepBack', tid);
  frames = await assertStack(dap, tid, file, [['main', L.loop]], glFrame(2, 1), 'stepBack to the loop condition');
  await assertMainLocals(dap, frames[0].id, { ...atStop, i: 3 }, 'stepBack to the loop condition (i = 3)');
  await step(dap, 'stepBack', tid);
  frames = await assertStack(dap, tid, file, [['main', L.loop]], glFrame(2, 1), 'stepBack to ++i');
  await assertMainLocals(dap, frames[0].id, { ...atStop, i: 2 }, 'stepBack to ++i (i = 2)');
  await step(dap, 'stepBack', tid);
  frames = await assertStack(dap, tid, file, [['main', L.call]], glFrame(2, 1), 'stepBack to the call');
  await assertMainLocals(dap, frames[0].id, { p: hit.p, acc: it1.accAfter, i: 2, k: it2.k }, 'stepBack to the call (iteration 2)');

  // Into ripple(p, k), a step in it, out of it.
  await step(dap, 'stepIn', tid);
  frames = await assertStack(dap, tid, file, [['ripple', L.d], ['main', L.call]], glFrame(2, 1), 'stepIn to ripple');
  const rargs = (await scopeVars(dap, frames[0].id, 'Arguments')).vars;
  await assertVar(dap, rargs, 'p', 'vec2', hit.p, 'ripple args');
  await assertVar(dap, rargs, 'k', 'float', [it2.k], 'ripple args');
  assertUnwritten((await scopeVars(dap, frames[0].id, 'Locals')).vars, 'd', 'ripple at its first line');
  await step(dap, 'next', tid);
  frames = await assertStack(dap, tid, file, [['ripple', L.r], ['main', L.call]], glFrame(2, 1), 'next in ripple');
  const rlocals = (await scopeVars(dap, frames[0].id, 'Locals')).vars;
  await assertVar(dap, rlocals, 'd', 'float', [it2.d], 'ripple after d');
  assertUnwritten(rlocals, 'r', 'ripple before r');
  await step(dap, 'stepOut', tid);
  frames = await assertStack(dap, tid, file, [['main', L.loop]], glFrame(2, 1), 'stepOut of ripple');
  await assertMainLocals(dap, frames[0].id, { p: hit.p, acc: it2.accAfter, i: 2 }, 'stepOut of ripple (acc has the call)');

  // Reverse continue: no breakpoint behind, back to the trace's start.
  await dap.ok('reverseContinue', { threadId: tid });
  await dap.next('stopped');
  frames = await assertStack(dap, tid, file, [['main', L.p]], glFrame(2, 1), 'reverseContinue to the start');
  const start = (await scopeVars(dap, frames[0].id, 'Locals')).vars;
  assertUnwritten(start, 'p', 'at the start of main');
  assertUnwritten(start, 'acc', 'at the start of main');
  await step(dap, 'next', tid);
  frames = await assertStack(dap, tid, file, [['main', L.acc0]], glFrame(2, 1), 'next after p');
  const afterP = (await scopeVars(dap, frames[0].id, 'Locals')).vars;
  await assertVar(dap, afterP, 'p', 'vec2', hit.p, 'next after p');
  assertUnwritten(afterP, 'acc', 'before acc = 0.0');

  // Continue in the shader: to the breakpoint again, the same values.
  await dap.ok('continue', { threadId: tid });
  const again = await dap.stopped('breakpoint');
  assert.deepEqual(again.hitBreakpointIds, [bp.id], JSON.stringify(again));
  frames = await assertStack(dap, tid, file, [['main', L.half]], glFrame(2, 1), 'continue to the breakpoint');
  await assertMainLocals(dap, frames[0].id, atStop, 'continue to the breakpoint');

  // The debug console: `focus X,Y` moves to another invocation.
  const other = fragment(40, 12, 1);
  const focus = await dap.ok('evaluate', { expression: 'focus 40,12', context: 'repl', frameId: frames[0].id });
  assert.equal(typeof focus.result, 'string', JSON.stringify(focus));
  const refocus = await dap.stopped('step');
  assert.equal(refocus.description, 'focus', `a focus refreshes the editor: ${JSON.stringify(refocus)}`);
  frames = await assertStack(dap, tid, file, [['main', L.half]], glFrame(2, 1), 'after focus 40,12');
  await assertMainLocals(dap, frames[0].id, { p: other.p, acc: other.accLoop }, 'after focus 40,12');
  const coord = await dap.ok('evaluate', { expression: 'gl_FragCoord.xy', context: 'hover', frameId: frames[0].id });
  assertValue(coord.result, [40.5, 12.5], 'hover gl_FragCoord.xy after focus');

  // A log point replaces the breakpoint: messages, no stop, the run ends.
  const logged = await dap.ok('setBreakpoints', {
    source: { path: file, name: 'wave.frag' },
    breakpoints: [{ line: L.half, logMessage: 'acc={acc}' }],
    lines: [L.half],
  });
  assert.equal(logged.breakpoints.length, 1, JSON.stringify(logged));
  await dap.ok('continue', { threadId: tid });
  const exited = await dap.next('exited');
  assert.equal(exited.body.exitCode, 0, `the app exits normally: ${JSON.stringify(exited.body)}`);
  await dap.next('terminated');
  dap.none('stopped', 'a log point never stops');

  // Draw 4 (frame 2's draw 2) logs from every invocation: each value one
  // of draw 2's acc at line 24, those over the message limit counted.
  const messages = dap.output().split('\n').filter((l) => /acc=/.test(l));
  assert.ok(messages.length > 0, `log point messages in the output events: ${JSON.stringify(dap.output().slice(0, 2000))}`);
  const byPixel = new Map();
  for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) byPixel.set(`${x},${y}`, fragment(x, y, 1).accLoop);
  const sorted = [...byPixel.values()].sort((a, b) => a - b);
  let placed = 0;
  for (const m of messages) {
    const v = /acc=([-+0-9.eE]+)/.exec(m);
    assert.ok(v, `a log message with a number: ${m}`);
    const at = /(\d+)\s*,\s*(\d+)/.exec(m.slice(0, m.indexOf('acc=')));
    if (at) {
      placed++;
      assertPrinted(v[1], byPixel.get(`${at[1]},${at[2]}`), `log point at ${at[1]},${at[2]}`);
    } else {
      assertPrinted(v[1], nearest(sorted, Number(v[1])), `log message ${m.trim()}: the nearest acc of draw 2`);
    }
  }
  assert.ok(placed === 0 || placed === messages.length, 'every log message names its invocation, or none does');
  if (messages.length < 4096) {
    const dropped = 4096 - messages.length;
    assert.ok(dap.output().includes(String(dropped)),
      `4096 invocations reach line ${L.half} in draw 4 but ${messages.length} messages came: the other ${dropped} must be counted, not dropped silently`);
  }
  assert.deepEqual(await dap.appHash(), native, 'the frame after the session is identical to a native run');
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
  await waitGone(dir, 10000, 'after the end');
});

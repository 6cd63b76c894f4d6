'use strict';
/**
 * memcheck in the editor (issue 17), with a real DAP client on the test app
 * egl_memcheck (tests/apps/egl_memcheck.c). With the launch argument
 * `memcheck: "stop"`, the planted out-of-bounds read of `storage-oob` (line
 * 11, element 256, workgroup 0 local 63) is a `stopped` event with reason
 * `exception`; `exceptionInfo` describes the finding (its CLI JSON in
 * `details.finding`); the stack's top frame is the compute
 * line's shader (at the entry of `main`, focused on the finding's
 * invocation: its `gl_GlobalInvocationID` is 63); `continue` runs the app
 * to its end. With `memcheck: "on"` the
 * finding is console output and the app never stops; the corrected twin
 * prints none. A bad value of the argument fails the launch.
 */

const assert = require('node:assert/strict');
const { test } = require('node:test');
const { Dap, testApp, stack } = require('./lib/session');

async function launch(dap, args, memcheck) {
  await dap.initialize();
  const launched = dap.ok('launch', { program: testApp('egl_memcheck'), args, cwd: __dirname, memcheck });
  await dap.next('initialized');
  await launched;
  await dap.ok('configurationDone');
}

async function toEnd(dap) {
  const exited = await dap.next('exited');
  assert.equal(exited.body.exitCode, 0, JSON.stringify(exited.body));
  await dap.next('terminated');
}

test('memcheck "stop": the finding is an exception stop in the shader', { timeout: 180000 }, async (t) => {
  const dap = await new Dap(t).start();
  await launch(dap, ['storage-oob'], 'stop');
  const stop = await dap.stopped('exception');
  const info = await dap.ok('exceptionInfo', { threadId: stop.threadId });
  assert.equal(info.exceptionId, 'memcheck.out-of-bounds', JSON.stringify(info));
  assert.equal(info.breakMode, 'always');
  const f = info.details.finding;
  assert.equal(f.kind, 'out-of-bounds');
  assert.equal(f.line, 11);
  assert.deepEqual(f.element, [256]);
  assert.deepEqual(f.invocations[0].workgroup, [0, 0, 0]);
  assert.deepEqual(f.invocations[0].local, [63, 0, 0]);
  assert.match(info.description, /data\[row \* cols \+ i\]/);
  const [top] = await stack(dap, stop.threadId);
  assert.match(top.source.name, /compute/, `the stack's top is the compute shader: ${JSON.stringify(top)}`);
  const id = await dap.ok('evaluate', { expression: 'gl_GlobalInvocationID.x', frameId: top.id, context: 'watch' });
  assert.equal(id.result, '63', `focused on the finding's invocation: ${JSON.stringify(id)}`);
  await dap.ok('continue', { threadId: stop.threadId });
  await toEnd(dap);
});

test('memcheck "on": findings are console output, the app runs through', { timeout: 180000 }, async (t) => {
  const dap = await new Dap(t).start();
  await launch(dap, ['storage-oob', 'storage-oob-fixed'], 'on');
  await toEnd(dap);
  dap.none('stopped', 'memcheck on never stops');
  const console = dap.output('important');
  const found = console.split('\n').filter((l) => l.includes('out-of-bounds'));
  assert.equal(found.length, 1, `one finding, of storage-oob alone:\n${console}`);
  assert.match(found[0], /line 11/);
});

test('a bad memcheck launch argument fails the launch', { timeout: 60000 }, async (t) => {
  const dap = await new Dap(t).start();
  await dap.initialize();
  const e = await dap.fails('launch', { program: testApp('egl_memcheck'), args: ['storage-oob'], memcheck: 'always' }, 'an unknown mode');
  assert.match(e.message, /memcheck/);
});

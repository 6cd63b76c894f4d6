'use strict';
/**
 * Malformed and out-of-order DAP input (issue 15's "Must show"): unknown
 * commands, missing or ill-typed arguments, stale references, a step back
 * without a trace, requests that need a stopped app while it runs, broken
 * JSON and framing on the adapter's stdin; each answered with an error
 * (success false, a message, body.error) and the session goes on. And the
 * ways a client leaves: disconnect ending or detaching the app as the
 * launch configuration says, stdin closed without a disconnect.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const {
  Dap, eglFiles, shaderCopy, nativeRun, parseHash, processesWith, waitGone, sleep, stack,
} = require('./lib/session');

/** A framed DAP message with the header its body needs. */
const frame = (body) => `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;

/** The session still serves: a valid request gets its answer. */
async function serves(dap, why) {
  const r = await dap.request('threads', undefined, 20000).catch((e) => assert.fail(`${why}: ${e.message}`));
  assert.equal(r.command, 'threads', `${why}: the next valid request is answered: ${JSON.stringify(r)}`);
  assert.ok(dap.alive(), `${why}: gldbg dap is still running${dap.context()}`);
}

test('bad requests get error responses and the session goes on; disconnect with terminateDebuggee ends the app', async (t) => {
  const dir = shaderCopy(t);
  const dap = await new Dap(t).start();
  await dap.initialize();

  await dap.fails('fooBar', { x: 1 }, 'an unknown command');
  await dap.fails('setBreakpoints', {}, 'setBreakpoints without a source');
  await dap.fails('setBreakpoints', { source: { path: path.join(dir, 'wave.frag') }, breakpoints: [{ line: 'ten' }] }, 'a line that is not a number');
  await dap.fails('setFunctionBreakpoints', {}, 'setFunctionBreakpoints without breakpoints');
  await dap.fails('evaluate', {}, 'evaluate without an expression');
  await dap.fails('variables', {}, 'variables without a reference');
  await dap.fails('variables', { variablesReference: 'abc' }, 'an ill-typed reference');
  await dap.fails('variables', { variablesReference: 987654 }, 'a reference never handed out');
  await dap.fails('scopes', {}, 'scopes without a frame');
  await dap.fails('stackTrace', { threadId: 1 }, 'stackTrace with no app');
  await dap.fails('stepBack', { threadId: 1 }, 'stepBack with no app');
  await dap.fails('launch', {}, 'launch without a program');
  await dap.fails('launch', { program: 42 }, 'an ill-typed program');
  await dap.fails('launch', { program: path.join(dir, 'no-such-app') }, 'a program that does not exist');
  await serves(dap, 'after the bad requests');

  // Broken input on stdin, each followed by a valid request.
  dap.raw(frame('{"seq": 1, "type": "request", "command": '));
  await serves(dap, 'after a body that is not JSON');
  dap.raw(frame('[1, 2, 3]'));
  await serves(dap, 'after JSON that is not a message');
  dap.raw(frame('{"seq": 77, "type": "request"}'));
  await serves(dap, 'after a request without a command');
  const noCommand = dap.unmatched.find((m) => m.request_seq === 77);
  if (noCommand) assert.equal(noCommand.success, false, `a request without a command fails: ${JSON.stringify(noCommand)}`);
  dap.raw(frame('{"seq": 78, "type": "request", "command": "evaluate", "arguments": "not an object"}'));
  await serves(dap, 'after arguments that are not an object');
  dap.raw('Content-Length: abc\r\n\r\n');
  await serves(dap, 'after a Content-Length that is not a number');
  dap.raw('X-Nothing: 1\r\n\r\n');
  await serves(dap, 'after a header without Content-Length');
  const garbage = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0xc3]);
  dap.raw(Buffer.concat([Buffer.from(`Content-Length: ${garbage.length}\r\n\r\n`), garbage]));
  await serves(dap, 'after a body of garbage');

  // The session goes on: a launch, stopped on entry.
  await dap.launch(dir, { init: false, args: ['--frames', '3'], extra: { stopOnEntry: true } });
  await dap.ok('configurationDone');
  const entry = await dap.stopped('entry');
  assert.equal(processesWith(dir).length, 1, `the app runs: ${processesWith(dir)}`);
  await dap.fails('stepBack', { threadId: entry.threadId }, 'stepBack at the entry (no trace)');
  await dap.fails('reverseContinue', { threadId: entry.threadId }, 'reverseContinue at the entry (no trace)');
  await dap.fails('evaluate', { expression: 'no-such-command 1 2', context: 'repl' }, 'a repl line gldbg does not know');
  await dap.fails('evaluate', { expression: 'acc', context: 'hover' }, 'a hover outside a shader');
  await dap.fails('source', { sourceReference: 424242 }, 'a source reference never handed out');
  await stack(dap, entry.threadId);

  await dap.ok('disconnect', { terminateDebuggee: true });
  await waitGone(dir, 10000, 'disconnect with terminateDebuggee');
  await dap.ended(30000, 'after disconnect');
  assert.ok(!/egl_files: frames/.test(dap.output()), 'the app was ended, not run to its end');
});

test('requests that need a stopped app while it runs; pause; stale references after a step; terminate', async (t) => {
  const dir = shaderCopy(t);
  const dap = await new Dap(t).start();
  await dap.launch(dir, { args: ['--frames', '300000'] });
  await dap.ok('configurationDone');
  await sleep(200);
  assert.equal(processesWith(dir).length, 1, 'the app runs');
  const { threads } = await dap.ok('threads');
  assert.ok(threads.length >= 1, `threads while running: ${JSON.stringify(threads)}`);
  const tid = threads[0].id;
  await dap.fails('stackTrace', { threadId: tid }, 'stackTrace while the app runs');
  await dap.fails('next', { threadId: tid }, 'next while the app runs');
  await dap.fails('stepBack', { threadId: tid }, 'stepBack while the app runs');
  await dap.fails('evaluate', { expression: 'acc', context: 'hover' }, 'a hover while the app runs');
  await dap.fails('exceptionInfo', { threadId: tid }, 'exceptionInfo with no exception');
  dap.none('stopped', 'the app runs');

  await dap.ok('pause', { threadId: tid });
  const paused = await dap.stopped('pause');
  // Wherever the pause landed (maybe outside GL), there is no trace.
  await stack(dap, paused.threadId);
  await dap.fails('stepBack', { threadId: paused.threadId }, 'stepBack after a pause (no trace)');
  await dap.fails('reverseContinue', { threadId: paused.threadId }, 'reverseContinue after a pause (no trace)');
  // The GL step: at a GL call, with its arguments.
  await dap.ok('next', { threadId: paused.threadId });
  await dap.stopped('step');
  const frames = await stack(dap, paused.threadId);
  assert.match(frames[0].name, /^\w+\(.*\) .*frame \d+$/, `a GL call after the GL step: ${JSON.stringify(frames)}`);
  const { scopes } = await dap.ok('scopes', { frameId: frames[0].id });
  const callScope = scopes.find((s) => s.name === 'Call');
  assert.ok(callScope, `the GL frame's scope: ${JSON.stringify(scopes)}`);
  await dap.ok('variables', { variablesReference: callScope.variablesReference });
  await dap.fails('stepBack', { threadId: paused.threadId }, 'stepBack at a GL call (no trace)');
  await dap.ok('next', { threadId: paused.threadId });
  await dap.stopped('step');
  await dap.fails('variables', { variablesReference: callScope.variablesReference }, 'a reference from before the step');
  await dap.fails('scopes', { frameId: frames[0].id + 1000 }, 'a frame that does not exist');
  await stack(dap, paused.threadId);

  await dap.ok('terminate', {});
  await dap.next('terminated');
  await waitGone(dir, 10000, 'terminate');
  await dap.request('disconnect', {}, 10000).catch(() => {});
  await dap.ended(30000, 'after disconnect');
});

test('disconnect with onDisconnect "detach": the app runs to its end with the native hash', async (t) => {
  const dir = shaderCopy(t);
  const native = nativeRun(dir);
  const out = path.join(dir, 'app.out');
  const dap = await new Dap(t).start();
  await dap.initialize();
  // The app's stdout goes to a file: the adapter is gone when the app ends.
  const launched = dap.ok('launch', {
    program: '/bin/sh',
    args: ['-c', 'exec "$0" "$1" > "$2"', eglFiles(), dir, out],
    cwd: dir,
    onDisconnect: 'detach',
  });
  await dap.next('initialized');
  await launched;
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'draw 2' }] });
  await dap.ok('configurationDone');
  const stop = await dap.stopped('function breakpoint');
  await stack(dap, stop.threadId);
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
  await waitGone(dir, 30000, 'the detached app runs to its end');
  const h = parseHash(fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '');
  assert.deepEqual(h, native, `the detached app's output ${out}: the native hash`);
});

test('stdin closed without a disconnect (after broken framing) ends the adapter and the app', async (t) => {
  const dir = shaderCopy(t);
  const dap = await new Dap(t).start();
  await dap.launch(dir, { extra: { stopOnEntry: true } });
  await dap.ok('configurationDone');
  await dap.stopped('entry');
  assert.equal(processesWith(dir).length, 1, 'the app runs');
  // A length no client sends: refused or waited for, never allocated.
  dap.raw('Content-Length: 99999999999999999999\r\n\r\n{}');
  await sleep(300);
  assert.ok(dap.alive(), `gldbg dap survives an absurd Content-Length${dap.context()}`);
  dap.raw('Content-Length: 500\r\n\r\n{"seq": 9, "type": "request", "command": "threads"}');
  dap.proc.stdin.end();
  const end = await dap.ended(30000, 'stdin closed');
  assert.ok(end.signal === null || end.signal === 'SIGTERM', `gldbg dap ends by itself, not by a crash: ${JSON.stringify(end)}${dap.context()}`);
  await waitGone(dir, 10000, 'stdin closed: the launched app ends');
});

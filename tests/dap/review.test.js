'use strict';
/**
 * The DAP server's review fixes (commit e0015c9), each against the real
 * `gldbg dap` and the CPU reference of wave.frag (lib/wave.js): the app
 * never reads the adapter's stdin; every request names its frame (the
 * console's `frame N` does not decide whose locals a request shows); an
 * attached running app's pause and breakpoints are reported; console GL
 * moves run as moves (answered at once, `pause` meanwhile); a hit
 * condition `==N` is refused; the entry stop follows configurationDone's
 * response; a draw's log messages come before the stop that follows it.
 */

const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const {
  Dap, eglFiles, shaderCopy, fragLine, nativeRun, parseHash, processesWith, waitGone, sleep, stack, scopeVars,
} = require('./lib/session');
const { fragment } = require('./lib/wave');
const { assertValue, assertVar, assertUnwritten, assertPrinted } = require('./lib/values');

const glFrame = (draw, frame) => `glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) draw ${draw}, frame ${frame}`;

/** The position of the first message matching `pred` in the adapter's output order. */
function indexOf(dap, pred, what) {
  const i = dap.incoming.findIndex(pred);
  assert.ok(i >= 0, `${what}: not among the messages ${JSON.stringify(dap.incoming.map((m) => m.command || m.event))}`);
  return i;
}

/** Ends a session whose app still runs or is stopped: terminate, disconnect. */
async function finish(dap, dir) {
  await dap.ok('terminate', {});
  await dap.next('terminated');
  await waitGone(dir, 10000, 'terminate');
  await dap.request('disconnect', {}, 10000).catch(() => {});
  await dap.ended(30000, 'after disconnect');
}

test('the app never reads the adapter\'s stdin: requests keep being answered, the native hash', async (t) => {
  const dir = shaderCopy(t);
  const native = nativeRun(dir);
  const dap = await new Dap(t).start();
  await dap.initialize();
  // A shell that reads a line of its stdin (the DAP stream, if it had it),
  // then becomes the app.
  const launched = dap.ok('launch', {
    program: '/bin/sh',
    args: ['-c', 'if read -r l; then echo "stole: $l"; fi; exec "$0" "$@"', eglFiles(), dir],
    cwd: dir,
  });
  // Requests while the shell starts: each one is the adapter's.
  const early = [dap.request('threads'), dap.request('threads'), dap.request('threads')];
  await dap.next('initialized');
  await launched;
  for (const r of await Promise.all(early)) assert.equal(r.command, 'threads', JSON.stringify(r));
  const { threads } = await dap.ok('threads');
  assert.ok(threads.length >= 1, JSON.stringify(threads));
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'draw 2' }] });
  await dap.ok('configurationDone');
  const stop = await dap.stopped('function breakpoint');
  assert.equal((await stack(dap, stop.threadId))[0].name, glFrame(2, 1));
  await dap.ok('setFunctionBreakpoints', { breakpoints: [] });
  await dap.ok('continue', { threadId: stop.threadId });
  const exited = await dap.next('exited');
  assert.equal(exited.body.exitCode, 0, JSON.stringify(exited.body));
  await dap.next('terminated');
  assert.deepEqual(await dap.appHash(), native, 'the frame after the session is identical to a native run');
  assert.ok(!/stole:/.test(dap.output()), `the app read the adapter's stdin: ${JSON.stringify(dap.output())}`);
  assert.equal(dap.unmatched.length, 0, `responses without their request: ${JSON.stringify(dap.unmatched)}`);
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
});

test('every request names its frame: after the console\'s `frame 1`, the top frame still shows ripple\'s locals', async (t) => {
  const dir = shaderCopy(t);
  const file = path.join(dir, 'wave.frag');
  const call = fragLine(dir, 'acc += ripple(p, k);');
  const rLine = fragLine(dir, 'float r = d - floor(d);');
  const px = fragment(21, 45, 1);
  const [it0, it1] = px.iterations;
  const dap = await new Dap(t).start();
  await dap.launch(dir);
  await dap.ok('setBreakpoints', {
    source: { path: file },
    breakpoints: [{ line: call, condition: `p.x == ${px.p[0]} && p.y == ${px.p[1]} && i == 1` }],
    lines: [call],
  });
  await dap.ok('configurationDone');
  const { threadId: tid } = await dap.stopped('breakpoint');
  await dap.ok('stepIn', { threadId: tid });
  await dap.stopped('step');
  await dap.ok('next', { threadId: tid });
  await dap.stopped('step');
  let frames = await stack(dap, tid);
  assert.equal(frames.length, 3, `ripple, main, the GL call: ${JSON.stringify(frames)}`);
  assert.ok(frames[0].name.includes('ripple') && frames[0].line === rLine, JSON.stringify(frames[0]));
  assert.ok(frames[1].name.includes('main') && frames[1].line === call, JSON.stringify(frames[1]));

  // The console selects main's frame (the editor refreshes).
  const sel = await dap.ok('evaluate', { expression: 'frame 1', context: 'repl', frameId: frames[0].id });
  assert.equal(typeof sel.result, 'string', JSON.stringify(sel));
  await dap.stopped('step');
  frames = await stack(dap, tid);
  assert.ok(frames[0].name.includes('ripple'), `the stack is the same: ${JSON.stringify(frames)}`);

  // The top frame's requests: ripple's own values.
  const top = frames[0].id;
  const rl = (await scopeVars(dap, top, 'Locals')).vars;
  await assertVar(dap, rl, 'd', 'float', [it1.d], 'ripple\'s local d after `frame 1`');
  assertUnwritten(rl, 'r', 'ripple\'s local r after `frame 1`');
  for (const name of ['acc', 'i']) {
    assert.ok(!rl.has(name), `main's ${name} among ripple's locals after \`frame 1\`: ${JSON.stringify([...rl.values()])}`);
  }
  const ra = (await scopeVars(dap, top, 'Arguments')).vars;
  await assertVar(dap, ra, 'p', 'vec2', px.p, 'ripple\'s argument p after `frame 1`');
  await assertVar(dap, ra, 'k', 'float', [it1.k], 'ripple\'s argument k after `frame 1`');
  const hover = await dap.ok('evaluate', { expression: 'd', context: 'hover', frameId: top });
  assertValue(hover.result, [it1.d], 'hover d in ripple\'s frame after `frame 1`');
  const hk = await dap.ok('evaluate', { expression: 'k * 2.0', context: 'watch', frameId: top });
  assertValue(hk.result, [it1.k * 2], 'watch k * 2.0 in ripple\'s frame');

  // The caller's frame: main's values (acc after iteration 0, in iteration 1).
  const ml = (await scopeVars(dap, frames[1].id, 'Locals')).vars;
  await assertVar(dap, ml, 'p', 'vec2', px.p, 'main\'s p');
  await assertVar(dap, ml, 'acc', 'float', [it0.accAfter], 'main\'s acc');
  await assertVar(dap, ml, 'i', 'int', [1], 'main\'s i');
  await assertVar(dap, ml, 'k', 'float', [it1.k], 'main\'s k');
  assert.ok(!ml.has('d'), `ripple's d among main's locals: ${JSON.stringify([...ml.values()])}`);
  const hacc = await dap.ok('evaluate', { expression: 'acc', context: 'hover', frameId: frames[1].id });
  assertValue(hacc.result, [it0.accAfter], 'hover acc in main\'s frame');
  // And the top frame again, after a request named the caller's.
  const again = (await scopeVars(dap, top, 'Locals')).vars;
  await assertVar(dap, again, 'd', 'float', [it1.d], 'ripple\'s d after main\'s frame was asked');
  await finish(dap, dir);
});

test('stopOnEntry: the entry stop comes after configurationDone\'s response', async (t) => {
  const dir = shaderCopy(t);
  const dap = await new Dap(t).start();
  await dap.launch(dir, { extra: { stopOnEntry: true } });
  await dap.ok('configurationDone');
  const entry = await dap.stopped('entry');
  const done = indexOf(dap, (m) => m.type === 'response' && m.command === 'configurationDone', 'configurationDone\'s response');
  const stoppedAt = indexOf(dap, (m) => m.event === 'stopped', 'the entry stop');
  assert.ok(done < stoppedAt, `the entry stop (message ${stoppedAt}) comes after configurationDone's response (message ${done})`);
  assert.match((await stack(dap, entry.threadId))[0].name, /^\w+\(/, 'stopped at the first GL call');
  await finish(dap, dir);
});

test('console GL moves run as moves: `step` answered at once then a stop; `pause` during `step N`', async (t) => {
  const dir = shaderCopy(t);
  const dap = await new Dap(t).start();
  await dap.launch(dir, { args: ['--frames', '300000'], extra: { stopOnEntry: true } });
  await dap.ok('configurationDone');
  const entry = await dap.stopped('entry');
  const tid = entry.threadId;
  const first = (await stack(dap, tid))[0].name;

  // `step` in the console: the response, then a `stopped` at the next call.
  const before = dap.incoming.length;
  const s = await dap.ok('evaluate', { expression: 'step', context: 'repl' }, 10000);
  assert.equal(typeof s.result, 'string', JSON.stringify(s));
  const st = await dap.stopped('step');
  assert.equal(st.threadId, tid, JSON.stringify(st));
  const resp = indexOf(dap, (m, i) => i >= before && m.type === 'response' && m.command === 'evaluate', 'the step\'s response');
  const ev = indexOf(dap, (m, i) => i >= before && m.event === 'stopped', 'the step\'s stop');
  assert.ok(resp < ev, 'the console step is answered before its stop');
  const second = (await stack(dap, tid))[0].name;
  assert.notEqual(second, first, `the GL step moved the app: ${first} -> ${second}`);

  // A long move: answered while the app runs; `pause` stops it.
  const long = await dap.ok('evaluate', { expression: 'step 100000000', context: 'repl' }, 5000);
  assert.equal(typeof long.result, 'string', JSON.stringify(long));
  await sleep(300);
  dap.none('stopped', 'step 100000000 still runs');
  await dap.fails('stackTrace', { threadId: tid }, 'stackTrace while the console move runs');
  await dap.ok('pause', { threadId: tid });
  const paused = await dap.stopped('pause', 20000);
  assert.equal(paused.threadId, tid, JSON.stringify(paused));
  // Wherever the pause landed (maybe outside GL): a stopped app again.
  await stack(dap, tid);
  dap.none('stopped', 'one stop for the move and the pause');
  await finish(dap, dir);
});

test('hit condition `==2` is refused (unverified, with a message); `>= 2` stops at the 2nd execution and the later ones', async (t) => {
  const dir = shaderCopy(t);
  const file = path.join(dir, 'wave.frag');
  const half = fragLine(dir, 'acc = acc * 0.5;');
  const acc0 = fragLine(dir, 'float acc = 0.0;');
  const px = fragment(9, 50, 1);
  const cond = `p.x == ${px.p[0]} && p.y == ${px.p[1]}`;
  const dap = await new Dap(t).start();
  await dap.launch(dir, { args: ['--frames', '3'] });
  const set = await dap.ok('setBreakpoints', {
    source: { path: file },
    breakpoints: [
      { line: acc0, condition: cond, hitCondition: '==2' },
      { line: half, condition: cond, hitCondition: '>= 2' },
    ],
    lines: [acc0, half],
  });
  assert.equal(set.breakpoints.length, 2, JSON.stringify(set));
  const [eq, ge] = set.breakpoints;
  assert.equal(eq.verified, false, `==2 is refused: ${JSON.stringify(eq)}`);
  assert.equal(typeof eq.message, 'string', `==2: a message says why: ${JSON.stringify(eq)}`);
  assert.match(eq.message, /==2|hit condition/, JSON.stringify(eq));
  assert.equal(typeof ge.id, 'number', JSON.stringify(ge));
  assert.notEqual(ge.verified === false && ge.message && /hit condition/.test(ge.message), true, `>= 2 is accepted: ${JSON.stringify(ge)}`);
  await dap.ok('configurationDone');

  // Line 24 runs in draws 2, 4, 6 (u_mode 1): the 2nd execution is draw 4.
  for (const [draw, frame] of [[4, 2], [6, 3]]) {
    const stop = await dap.stopped('breakpoint');
    assert.deepEqual(stop.hitBreakpointIds, [ge.id], JSON.stringify(stop));
    const frames = await stack(dap, stop.threadId);
    assert.equal(frames[frames.length - 1].name, glFrame(draw, frame), `>= 2: draw ${draw}: ${JSON.stringify(frames)}`);
    assert.equal(frames[0].line, half, JSON.stringify(frames[0]));
    const locals = (await scopeVars(dap, frames[0].id, 'Locals')).vars;
    await assertVar(dap, locals, 'p', 'vec2', px.p, `the invocation meeting the condition in draw ${draw}`);
    await assertVar(dap, locals, 'acc', 'float', [px.accLoop], `acc in draw ${draw}`);
    await dap.ok('continue', { threadId: stop.threadId });
  }
  const exited = await dap.next('exited');
  assert.equal(exited.body.exitCode, 0, JSON.stringify(exited.body));
  await dap.next('terminated');
  dap.none('stopped', 'no stop of the refused ==2 breakpoint, none after draw 6');
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
});

test('a draw\'s log messages all come before the stop that follows the draw', async (t) => {
  const dir = shaderCopy(t);
  const file = path.join(dir, 'wave.frag');
  const half = fragLine(dir, 'acc = acc * 0.5;');
  const FRAMES = 8;
  const accs = new Set();
  for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) accs.add(fragment(x, y, 1).accLoop);
  const sorted = [...accs].sort((a, b) => a - b);
  const nearest = (v) => sorted.reduce((b, a) => (Math.abs(a - v) < Math.abs(b - v) ? a : b));
  const text = (ms) => ms.filter((m) => m.event === 'output').map((m) => m.body.output).join('');
  const logged = (ms) => text(ms).split('\n').filter((l) => /acc=/.test(l));

  const dap = await new Dap(t).start();
  await dap.launch(dir, { args: ['--frames', String(FRAMES)] });
  await dap.ok('setBreakpoints', {
    source: { path: file }, breakpoints: [{ line: half, logMessage: 'acc={acc}' }], lines: [half],
  });
  // The swap right after each frame's draw 2 (the log point's draw): the
  // stop follows the messages closely.
  await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'frame' }] });
  await dap.ok('configurationDone');
  let from = 0;
  for (let frame = 1; frame <= FRAMES; frame++) {
    const stop = await dap.stopped('function breakpoint');
    const at = indexOf(dap, (m, i) => i >= from && m.event === 'stopped', `the stop at frame ${frame}'s swap`);
    const before = logged(dap.incoming.slice(from, at));
    const said = text(dap.incoming.slice(from, at));
    assert.ok(before.length > 0, `frame ${frame}: draw ${2 * frame}'s log messages before the stop: ${JSON.stringify(said.slice(-500))}`);
    if (before.length < 4096) {
      assert.ok(said.includes(`${4096 - before.length} more messages`),
        `frame ${frame}: ${before.length} of 4096 messages before the stop; the other ${4096 - before.length} are counted before it too: ${JSON.stringify(said.slice(-300))}`);
    }
    for (const m of before) {
      const v = /acc=([-+0-9.eE]+)/.exec(m);
      assert.ok(v, `a log message with a number: ${m}`);
      assertPrinted(v[1], nearest(Number(v[1])), `log message ${m.trim()}: one of draw ${2 * frame}'s acc`);
    }
    assert.match((await stack(dap, stop.threadId))[0].name, new RegExp(`^eglSwapBuffers\\(.*frame ${frame}$`));
    from = at + 1;
    if (frame === FRAMES) await sleep(300);
    // Nothing of this draw after its stop (the next draw's come after the continue).
    assert.deepEqual(logged(dap.incoming.slice(from)), [], `frame ${frame}: log messages after the stop`);
    await dap.ok('continue', { threadId: stop.threadId });
  }
  await dap.next('exited');
  await dap.next('terminated');
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
});

/** The daemon beside the test's binaries. */
function debugd() {
  const bin = path.join(path.dirname(require('./lib/session').gldbgBin()), 'gldbg-debugd');
  assert.ok(fs.existsSync(bin), `gldbg-debugd is missing: ${bin} (run \`cargo build --workspace\`)`);
  return bin;
}

/** The live egl_files processes on `dir` (not the daemon, whose arguments name it too). */
function appsOn(dir) {
  return processesWith(dir).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === eglFiles();
    } catch {
      return false;
    }
  });
}

/**
 * A `gldbg-debugd --listen unix:SOCK -- egl_files --frames N DIR` whose app
 * runs (a CLI client continued it, then vanished mid-continue: the daemon
 * keeps the app running and no client waits for its stop). The daemon's
 * stdout (the app's) goes to `out`; `env` carries the token.
 */
async function runningDaemon(t, dir, frames, env, out) {
  const sock = path.join(dir, 'debugd.sock');
  const outFd = fs.openSync(out, 'w');
  const daemon = cp.spawn(debugd(), ['--listen', `unix:${sock}`, '--', eglFiles(), '--frames', String(frames), dir], {
    env: { ...process.env, ...env }, stdio: ['ignore', outFd, 'pipe'],
  });
  fs.closeSync(outFd);
  const log = { said: '' };
  daemon.stderr.on('data', (d) => { log.said += d.toString(); });
  t.after(() => daemon.kill('SIGKILL'));
  for (let i = 0; !fs.existsSync(sock); i++) {
    assert.ok(i < 600 && daemon.exitCode === null, `gldbg-debugd made no socket: ${log.said}`);
    await sleep(50);
  }
  const script = path.join(dir, 'go.gdb');
  fs.writeFileSync(script, 'continue\n');
  const cli = cp.spawn(require('./lib/session').gldbgBin(), ['connect', `unix:${sock}`, '--batch', '-x', script], {
    env: { ...process.env, ...env }, stdio: 'ignore',
  });
  await sleep(700);
  assert.equal(cli.exitCode, null, 'the CLI client still waits in its continue: the app runs');
  cli.kill('SIGKILL');
  await new Promise((r) => (cli.exitCode !== null || cli.signalCode !== null ? r() : cli.on('close', r)));
  assert.equal(appsOn(dir).length, 1, `the app runs under the daemon: ${log.said}`);
  return { address: `unix:${sock}`, log };
}

/** DAP attach to `address` (more arguments in `extra`), configurationDone; the app runs on. */
async function attachRunning(t, address, extra) {
  const dap = await new Dap(t).start();
  await dap.initialize();
  const attached = dap.ok('attach', { address, ...extra });
  await dap.next('initialized');
  await attached;
  await dap.ok('configurationDone');
  await sleep(300);
  dap.none('stopped', 'the attached app runs');
  return dap;
}

test('attach to a running gldbg-debugd app: pause, a function breakpoint, detach to the native hash', async (t) => {
  const dir = shaderCopy(t);
  const native = nativeRun(dir);
  const token = 'dap-attach-token';
  // The detached app writes its hash to `out` after the adapter is gone.
  const out = path.join(dir, 'app.out');
  // 40000 frames: a few seconds, still running while the session lasts.
  const { address, log } = await runningDaemon(t, dir, 40000, { GLDBG_TOKEN: token }, out);
  const dap = await attachRunning(t, address, { token });
  const { threads } = await dap.ok('threads');
  assert.ok(threads.length >= 1, JSON.stringify(threads));

  // pause: the running app stops, and the client hears of it.
  await dap.ok('pause', { threadId: threads[0].id });
  const paused = await dap.stopped('pause', 20000);
  await stack(dap, paused.threadId);
  // A frame breakpoint and continue: the next swap.
  const fb = await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'frame' }] });
  await dap.ok('continue', { threadId: paused.threadId });
  const stop = await dap.stopped('function breakpoint', 20000);
  assert.deepEqual(stop.hitBreakpointIds, [fb.breakpoints[0].id], JSON.stringify(stop));
  const frames = await stack(dap, stop.threadId);
  assert.match(frames[0].name, /^eglSwapBuffers\(.*frame (\d+)$/, JSON.stringify(frames));
  const frameNo = Number(/frame (\d+)$/.exec(frames[0].name)[1]);
  assert.ok(frameNo > 1 && frameNo < 40000, `the app ran a while before the attach: frame ${frameNo}`);
  assert.ok(!parseHash(fs.readFileSync(out, 'utf8')), 'the app has not ended yet');

  // disconnect (attach: detach by default): the app runs to its end.
  await dap.ok('disconnect', {});
  await dap.ended(30000, 'after disconnect');
  const end = Date.now() + 60000;
  while (appsOn(dir).length > 0) {
    assert.ok(Date.now() < end, `the detached app still runs after 60 s: ${fs.readFileSync(out, 'utf8')}`);
    await sleep(50);
  }
  assert.deepEqual(parseHash(fs.readFileSync(out, 'utf8')), { frames: 40000, hash: native.hash },
    `the detached app's output: the native hash: ${fs.readFileSync(out, 'utf8')} ${log.said}`);
});

test('attach (tokenFile) to a running app: a breakpoint set while it runs is reported as a stop; terminate ends it', async (t) => {
  const dir = shaderCopy(t);
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, 'dap-token-file\n', { mode: 0o600 });
  const { address } = await runningDaemon(t, dir, 300000, { GLDBG_TOKEN: 'dap-token-file' }, path.join(dir, 'app.out'));
  const dap = await attachRunning(t, address, { tokenFile });
  // No move waits for this stop: the daemon's stop event reports it.
  const fb = await dap.ok('setFunctionBreakpoints', { breakpoints: [{ name: 'frame' }] });
  const stop = await dap.stopped('function breakpoint', 20000);
  assert.deepEqual(stop.hitBreakpointIds, [fb.breakpoints[0].id], JSON.stringify(stop));
  const frames = await stack(dap, stop.threadId);
  assert.match(frames[0].name, /^eglSwapBuffers\(.*frame \d+$/, JSON.stringify(frames));
  // And the next one, as a move.
  await dap.ok('continue', { threadId: stop.threadId });
  const next = await dap.stopped('function breakpoint', 20000);
  const again = await stack(dap, next.threadId);
  const n = (f) => Number(/frame (\d+)$/.exec(f[0].name)[1]);
  assert.equal(n(again), n(frames) + 1, `the next swap: ${JSON.stringify([frames[0], again[0]])}`);
  await dap.ok('terminate', {});
  await dap.next('terminated');
  const end = Date.now() + 10000;
  while (appsOn(dir).length > 0) {
    assert.ok(Date.now() < end, 'terminate: the attached app still runs');
    await sleep(50);
  }
  await dap.request('disconnect', {}, 10000).catch(() => {});
  await dap.ended(30000, 'after disconnect');
});

module.exports = { finish, indexOf };

'use strict';
/**
 * The harness of the DAP tests: where the binaries are, a fresh copy of
 * egl_files' shader directory per test (its path makes the app's command
 * line unique, so a test can find the app's process), a native run of the
 * app, and `Dap`: a real `gldbg dap` on stdio driven by the ecosystem's
 * client (@vscode/debugadapter-testsupport's DebugClient), with every event
 * queued (none lost between two awaits), raw responses (failures keep their
 * body), raw bytes to the adapter's stdin and its stderr kept for messages.
 */

const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

/** The repository's root (tests/dap/lib/../../..). */
const REPO = path.resolve(__dirname, '..', '..', '..');

/** A file that must exist: a test never skips, it fails naming what is missing. */
function required(file, what, hint) {
  if (!fs.existsSync(file)) {
    assert.fail(`${what} is missing: ${file} (${hint})`);
  }
  return file;
}

/** The `gldbg` binary: $GLDBG_BIN, else <repo>/target/debug/gldbg. */
function gldbgBin() {
  const bin = process.env.GLDBG_BIN || path.join(REPO, 'target', 'debug', 'gldbg');
  return required(bin, 'the gldbg binary', 'run `cargo build --workspace` or set GLDBG_BIN');
}

/** The egl_files test app: $GLDBG_APP_DIR/egl_files, else <repo>/target/debug/apps/. */
function eglFiles() {
  const dir = process.env.GLDBG_APP_DIR || path.join(REPO, 'target', 'debug', 'apps');
  return required(
    path.join(dir, 'egl_files'),
    'the test app egl_files',
    'run `cargo build -p gldbg-tests --tests` or set GLDBG_APP_DIR'
  );
}

/** A test app built by tests/build.rs: $GLDBG_APP_DIR/NAME, else <repo>/target/debug/apps/NAME. */
function testApp(name) {
  const dir = process.env.GLDBG_APP_DIR || path.join(REPO, 'target', 'debug', 'apps');
  return required(path.join(dir, name), `the test app ${name}`, 'run `cargo build -p gldbg-tests --tests` or set GLDBG_APP_DIR');
}

/** The shader sources of egl_files in the repository. */
const SHADERS = path.join(REPO, 'tests', 'apps', 'shaders');

/**
 * A fresh directory holding copies of wave.vert and wave.frag; its path is
 * unique, so it names this test's app process. Removed when the test ends.
 */
function shaderCopy(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gldbg-dap-'));
  for (const name of ['wave.vert', 'wave.frag']) {
    fs.copyFileSync(required(path.join(SHADERS, name), name, 'the repository checkout'), path.join(dir, name));
  }
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** wave.frag's file line whose text is `text` (1-based), checked to exist once. */
function fragLine(dir, text) {
  const lines = fs.readFileSync(path.join(dir, 'wave.frag'), 'utf8').split('\n');
  const found = lines.flatMap((l, i) => (l.trim() === text ? [i + 1] : []));
  assert.equal(found.length, 1, `wave.frag has the line \`${text}\` once: ${found}`);
  return found[0];
}

/** The line `egl_files: frames N, hash H` of some output, as {frames, hash}. */
function parseHash(text) {
  const m = /egl_files: frames (\d+), hash ([0-9a-f]{16})/.exec(text);
  return m ? { frames: Number(m[1]), hash: m[2] } : null;
}

/** Runs egl_files natively (no debugger) on `dir`; its {frames, hash}. */
function nativeRun(dir, args = []) {
  const r = cp.spawnSync(eglFiles(), [...args, dir], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, `native egl_files failed: ${r.stderr} ${r.error || ''}`);
  const h = parseHash(r.stdout);
  assert.ok(h, `native egl_files printed no hash: ${r.stdout}`);
  return h;
}

/**
 * The live processes whose command line contains `marker` (a test's shader
 * copy), as pids; zombies (already dead, not yet reaped) are not alive.
 */
function processesWith(marker) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmd.includes(marker)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until no live process names `marker`; fails after `ms` naming them. */
async function waitGone(marker, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const left = processesWith(marker);
    if (left.length === 0) return;
    if (Date.now() > end) assert.fail(`${what}: the app is still running after ${ms} ms (pids ${left})`);
    await sleep(50);
  }
}

/** Events a session queues (every event DAP defines that gldbg may send). */
const EVENTS = [
  'initialized', 'stopped', 'continued', 'exited', 'terminated', 'thread', 'output',
  'breakpoint', 'module', 'loadedSource', 'process', 'capabilities', 'invalidated', 'memory',
];

/** Events that may still come after `terminated`. */
const AFTER_END = ['terminated', 'exited', 'output'];

/** How long one request or one awaited event may take: a guard against hangs. */
const LIMIT = 60000;

/** A `gldbg dap` on stdio and a DebugClient talking to it. */
class Dap {
  /** `listen`: serve on a TCP port (`gldbg dap --listen 127.0.0.1:0`) instead of stdio. */
  constructor(t, { listen = false } = {}) {
    this.listen = listen;
    this.client = new DebugClient(gldbgBin(), 'dap', 'gldbg', { cwd: REPO, env: process.env });
    this.queues = new Map(EVENTS.map((e) => [e, []]));
    this.waiters = [];
    this.all = [];
    this.stderr = '';
    this.unmatched = [];
    /** Every message from the adapter in arrival order: {type, command | event, body}. */
    this.incoming = [];
    this.pending = new Set();
    this.exitInfo = null;
    for (const e of EVENTS) this.client.on(e, (ev) => this.push(ev));
    // Responses the client has no request for (answers to raw bytes).
    const dispatch = this.client.dispatch.bind(this.client);
    this.client.dispatch = (body) => {
      let msg;
      try {
        msg = JSON.parse(body);
      } catch (e) {
        this.unmatched.push({ invalidJson: body });
        return;
      }
      this.incoming.push({ type: msg.type, command: msg.command, event: msg.event, body: msg.body });
      if (msg.type === 'response' && !this.client.pendingRequests.has(msg.request_seq)) {
        this.unmatched.push(msg);
      }
      dispatch(body);
    };
    if (t) t.after(() => this.close());
  }

  /** Starts the adapter process. */
  async start() {
    if (this.listen) {
      await this.startListening();
    } else {
      await this.client.start();
      this.proc = this.client._adapterProcess;
    }
    // 'close': after the adapter's last output was read.
    this.exit = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exitInfo = { code, signal };
        for (const fail of [...this.pending]) fail();
        for (const w of [...this.waiters]) w();
        resolve(this.exitInfo);
      });
    });
    this.proc.stderr.on('data', (d) => {
      this.stderr += d.toString();
    });
    if (this.proc.stdin) this.proc.stdin.on('error', () => {});
    return this;
  }

  /** The TCP form: the server says its port on stderr, the client connects. */
  async startListening() {
    this.proc = cp.spawn(gldbgBin(), ['dap', '--listen', '127.0.0.1:0'], {
      cwd: REPO, env: process.env, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`gldbg dap --listen said no port in ${LIMIT} ms: ${said}`)), LIMIT);
      this.proc.stderr.on('data', (d) => {
        said += d.toString();
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(said);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      this.proc.on('close', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`gldbg dap --listen exited (${code}, ${signal}): ${said}`));
      });
    });
    this.stderr = said;
    await this.client.start(port);
  }

  push(ev) {
    if (ev.event === 'terminated') this.terminated = true;
    this.all.push(ev);
    this.queues.get(ev.event).push(ev);
    for (const w of [...this.waiters]) w();
  }

  /** The adapter's stderr, for failure messages. */
  context() {
    const tail = this.stderr.slice(-3000);
    return tail ? `\n--- gldbg dap stderr ---\n${tail}` : '';
  }

  /** Why no answer can come: the adapter's exit status. */
  gone() {
    return `gldbg dap exited (${JSON.stringify(this.exitInfo)})${this.context()}`;
  }

  /** Sends a request; its response, successful or not (never throws on a failure). */
  request(command, args, ms = LIMIT) {
    return new Promise((resolve, reject) => {
      if (this.exitInfo) {
        reject(new Error(`'${command}' not sent: ${this.gone()}`));
        return;
      }
      const fail = () => {
        clearTimeout(timer);
        this.pending.delete(fail);
        reject(new Error(`no response to '${command}': ${this.gone()}`));
      };
      const timer = setTimeout(() => {
        this.pending.delete(fail);
        reject(new Error(`no response to '${command}' in ${ms} ms${this.context()}`));
      }, ms);
      this.pending.add(fail);
      this.client.doSend(command, args, (response) => {
        clearTimeout(timer);
        this.pending.delete(fail);
        resolve(response);
      });
    });
  }

  /** A request that must succeed; its body. */
  async ok(command, args, ms) {
    const r = await this.request(command, args, ms);
    assert.equal(
      r.success,
      true,
      `'${command}' ${JSON.stringify(args)} failed: ${r.message} ${JSON.stringify(r.body)}${this.context()}`
    );
    assert.equal(r.command, command, 'the response names its request');
    return r.body || {};
  }

  /**
   * A request that must fail as the contract says: success false, a
   * message, body.error {id, format}. Returns the response.
   */
  async fails(command, args, why) {
    const r = await this.request(command, args);
    assert.equal(r.success, false, `${why}: '${command}' must fail, got ${JSON.stringify(r)}`);
    assert.equal(r.command, command, `${why}: the response names its request`);
    assert.equal(typeof r.message, 'string', `${why}: a message: ${JSON.stringify(r)}`);
    assert.ok(r.message.length > 0, `${why}: a message: ${JSON.stringify(r)}`);
    const err = r.body && r.body.error;
    assert.ok(err && typeof err.id === 'number' && typeof err.format === 'string' && err.format.length > 0,
      `${why}: body.error {id, format}: ${JSON.stringify(r)}`);
    return r;
  }

  /** The last events, for failure messages. */
  seen() {
    return this.all
      .slice(-20)
      .map((e) => e.event + (e.body && e.body.reason ? `(${e.body.reason})` : ''))
      .join(', ');
  }

  /**
   * The next queued event of type `type` (waits for it; fails at once
   * once the session has ended, for events that cannot come after it).
   */
  next(type, ms = LIMIT) {
    const q = this.queues.get(type);
    if (q.length) return Promise.resolve(q.shift());
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (q.length) {
          done();
          resolve(q.shift());
        } else if (this.exitInfo) {
          done();
          reject(new Error(`no '${type}' event: ${this.gone()}`));
        } else if (this.terminated && !AFTER_END.includes(type)) {
          done();
          reject(new Error(`no '${type}' event: the session ended (terminated); events: ${this.seen()}${this.context()}`));
        }
      };
      if (this.exitInfo) {
        reject(new Error(`no '${type}' event: ${this.gone()}`));
        return;
      }
      if (this.terminated && !AFTER_END.includes(type)) {
        reject(new Error(`no '${type}' event: the session ended (terminated); events: ${this.seen()}${this.context()}`));
        return;
      }
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no '${type}' event in ${ms} ms; last events: ${this.seen()}${this.context()}`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      this.waiters.push(waiter);
    });
  }

  /** The next `stopped` event; asserts its reason. */
  async stopped(reason, ms) {
    const ev = await this.next('stopped', ms);
    assert.equal(ev.body.reason, reason, `stopped reason: ${JSON.stringify(ev.body)}`);
    assert.equal(typeof ev.body.threadId, 'number', `stopped has a threadId: ${JSON.stringify(ev.body)}`);
    return ev.body;
  }

  /** No event of `type` queued so far (e.g. no `stopped` at a log point). */
  none(type, why) {
    const q = this.queues.get(type);
    assert.equal(q.length, 0, `${why}: unexpected '${type}' events ${JSON.stringify(q.map((e) => e.body))}`);
  }

  /** Everything the app and gldbg wrote as `output` events so far, by category. */
  output(category) {
    return this.all
      .filter((e) => e.event === 'output' && (!category || e.body.category === category))
      .map((e) => e.body.output)
      .join('');
  }

  /** Waits for the app's hash line in `output` events. */
  async appHash(ms = LIMIT) {
    const end = Date.now() + ms;
    for (;;) {
      const h = parseHash(this.output());
      if (h) return h;
      if (Date.now() > end) assert.fail(`no 'egl_files: frames N, hash H' in the output events: ${JSON.stringify(this.output())}${this.context()}`);
      await this.next('output', end - Date.now()).catch(() => {});
    }
  }

  /** initialize: asserts the capabilities of the contract; returns them. */
  async initialize() {
    const caps = await this.ok('initialize', {
      clientID: 'gldbg-tests', adapterID: 'gldbg', linesStartAt1: true, columnsStartAt1: true,
      pathFormat: 'path', supportsVariableType: true,
    });
    for (const c of [
      'supportsConfigurationDoneRequest', 'supportsFunctionBreakpoints', 'supportsConditionalBreakpoints',
      'supportsHitConditionalBreakpoints', 'supportsLogPoints', 'supportsStepBack',
      'supportsEvaluateForHovers', 'supportsExceptionInfoRequest', 'supportsLoadedSourcesRequest',
      'supportsTerminateRequest',
    ]) {
      assert.equal(caps[c], true, `capability ${c}: ${JSON.stringify(caps)}`);
    }
    return caps;
  }

  /**
   * initialize (unless `init` is false) + launch egl_files on `dir` (args
   * before it), then the `initialized` event. `extra`: more launch arguments.
   */
  async launch(dir, { args = [], extra = {}, init = true } = {}) {
    if (init) await this.initialize();
    const launched = this.ok('launch', { program: eglFiles(), args: [...args, dir], cwd: dir, ...extra });
    await this.next('initialized');
    await launched;
  }

  /** Writes raw bytes to the adapter's stdin. */
  raw(bytes) {
    (this.listen ? this.client._socket : this.proc.stdin).write(bytes);
  }

  /** Whether the adapter process is still running. */
  alive() {
    return this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Waits for the adapter process to end; its {code, signal}. */
  async ended(ms, why) {
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    const r = await Promise.race([this.exit, late]);
    clearTimeout(timer);
    assert.ok(r, `${why}: gldbg dap still runs after ${ms} ms${this.context()}`);
    return r;
  }

  /** Ends the adapter if a test left it running. */
  async close() {
    if (this.alive()) {
      this.proc.kill('SIGKILL');
      await this.exit;
    }
  }
}

/** The `stackTrace` of the stopped thread. */
async function stack(dap, threadId) {
  const body = await dap.ok('stackTrace', { threadId, startFrame: 0, levels: 20 });
  assert.ok(Array.isArray(body.stackFrames) && body.stackFrames.length > 0, `stack frames: ${JSON.stringify(body)}`);
  return body.stackFrames;
}

/** The variables of a scope named `name` of frame `frameId`, as a Map name -> variable. */
async function scopeVars(dap, frameId, name) {
  const { scopes } = await dap.ok('scopes', { frameId });
  const scope = scopes.find((s) => s.name === name);
  assert.ok(scope, `scope '${name}' of frame ${frameId}: ${JSON.stringify(scopes)}`);
  return { scope, vars: await varsOf(dap, scope.variablesReference) };
}

/** The variables of a reference, as a Map name -> variable. */
async function varsOf(dap, ref) {
  const { variables } = await dap.ok('variables', { variablesReference: ref });
  return new Map(variables.map((v) => [v.name, v]));
}

module.exports = {
  REPO, SHADERS, LIMIT, Dap, gldbgBin, eglFiles, testApp, shaderCopy, fragLine, parseHash, nativeRun,
  processesWith, waitGone, sleep, stack, scopeVars, varsOf,
};

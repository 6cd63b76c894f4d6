/* dap.js: a small Debug Adapter Protocol client for the tests: it runs
 * `gldbg dap` (stdio, Content-Length framing), sends requests, and waits
 * for responses and events. */
'use strict';

const { spawn } = require('child_process');
const path = require('path');

const REPO = path.resolve(__dirname, '..', '..', '..');

/** The gldbg binary: $GLDBG_BIN, else the repository's own debug build. */
function gldbgBin() {
    return process.env.GLDBG_BIN || path.join(REPO, 'target', 'debug', 'gldbg');
}

/** A test app built by tests/build.rs: $GLDBG_APPS_DIR, else apps/ beside the gldbg binary. */
function testApp(name) {
    return path.join(process.env.GLDBG_APPS_DIR || path.join(path.dirname(gldbgBin()), 'apps'), name);
}

class DapClient {
    constructor(proc) {
        this.proc = proc;
        this.seq = 1;
        this.buffer = Buffer.alloc(0);
        this.pending = new Map();
        this.events = [];
        this.waiters = [];
        this.stderr = '';
        this.exited = false;
        proc.stdout.on('data', (chunk) => this.onData(chunk));
        proc.stderr.on('data', (chunk) => { this.stderr += chunk; });
        proc.on('error', (e) => {
            // Spawning failed (no binary): as an exit, with what to do.
            this.stderr += `cannot run ${gldbgBin()} (${e.message}): build the workspace or set $GLDBG_BIN\n`;
            proc.emit('exit', null, null);
        });
        proc.on('exit', (code, signal) => {
            this.exited = true;
            const why = new Error(`gldbg dap exited (${signal || code}); stderr: ${this.stderr.slice(-2000)}`);
            for (const { reject } of this.pending.values()) reject(why);
            this.pending.clear();
            for (const w of this.waiters) w.reject(why);
            this.waiters = [];
        });
    }

    /** Starts `gldbg dap` with the test's environment. */
    static start() {
        const proc = spawn(gldbgBin(), ['dap'], { stdio: ['pipe', 'pipe', 'pipe'] });
        return new DapClient(proc);
    }

    onData(chunk) {
        this.buffer = Buffer.concat([this.buffer, chunk]);
        for (;;) {
            const end = this.buffer.indexOf('\r\n\r\n');
            if (end < 0) return;
            const header = this.buffer.subarray(0, end).toString('ascii');
            const m = /Content-Length: *(\d+)/i.exec(header);
            if (!m) throw new Error(`DAP: no Content-Length in header ${JSON.stringify(header)}`);
            const len = Number(m[1]);
            if (this.buffer.length < end + 4 + len) return;
            const msg = JSON.parse(this.buffer.subarray(end + 4, end + 4 + len).toString('utf8'));
            this.buffer = this.buffer.subarray(end + 4 + len);
            this.dispatch(msg);
        }
    }

    dispatch(msg) {
        if (msg.type === 'response') {
            const p = this.pending.get(msg.request_seq);
            if (p) {
                this.pending.delete(msg.request_seq);
                p.resolve(msg);
            }
        } else if (msg.type === 'event') {
            this.events.push(msg);
            this.waiters = this.waiters.filter((w) => {
                if (w.event !== msg.event || !w.test(msg)) return true;
                w.resolve(msg);
                return false;
            });
        }
    }

    /** The response to a request (success or not). */
    raw(command, args) {
        const seq = this.seq++;
        const body = Buffer.from(JSON.stringify({ seq, type: 'request', command, arguments: args }), 'utf8');
        this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
        this.proc.stdin.write(body);
        return new Promise((resolve, reject) => {
            if (this.exited) reject(new Error('gldbg dap has exited'));
            else this.pending.set(seq, { resolve, reject });
        });
    }

    /** The body of a successful response; a failed one throws with the adapter's message. */
    async request(command, args) {
        const r = await this.raw(command, args);
        if (!r.success) throw new Error(`DAP ${command} failed: ${r.message} ${JSON.stringify(r.body || {})}`);
        return r.body || {};
    }

    /**
     * The next event named `event` (and passing `test`) that arrives after
     * index `from` of this.events (default: any not yet taken by index).
     */
    waitEvent(event, { from = 0, test = () => true, timeoutMs = 20000 } = {}) {
        const seen = this.events.slice(from).find((e) => e.event === event && test(e));
        if (seen) return Promise.resolve(seen);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`DAP: no ${event} event in ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`)), timeoutMs);
            this.waiters.push({
                event,
                test,
                resolve: (e) => { clearTimeout(timer); resolve(e); },
                reject: (e) => { clearTimeout(timer); reject(e); },
            });
        });
    }

    /** Ends the session: disconnect (the app is terminated), then the process. */
    async close() {
        if (!this.exited) {
            try {
                await Promise.race([
                    this.raw('disconnect', { terminateDebuggee: true }),
                    new Promise((r) => setTimeout(r, 3000)),
                ]);
            } catch (_) { /* exited meanwhile */ }
        }
        if (!this.exited) {
            this.proc.stdin.end();
            await new Promise((resolve) => {
                const t = setTimeout(() => { this.proc.kill('SIGKILL'); resolve(); }, 3000);
                this.proc.on('exit', () => { clearTimeout(t); resolve(); });
            });
        }
    }
}

module.exports = { DapClient, gldbgBin, testApp, REPO };

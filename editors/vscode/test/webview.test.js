/* webview.test.js: the value image panel end to end, in headless Chromium.
 *
 * `gldbg dap` (the real server: $GLDBG_BIN, else the repository's
 * target/debug/gldbg) debugs the fragment shader of draw 2 of the test app
 * egl_files (tests/apps/shaders/wave.frag); the extension's own panel code
 * (out/valueImagePanel.js, with a recording stand-in for the `vscode`
 * module) asks it for `valueImage` and hands the body to the page of
 * media/valueImage.js in Chromium (/usr/bin/chromium, or $CHROMIUM), whose
 * acquireVsCodeApi is a stub that records posted messages and passes them
 * back to the panel. Real mouse events (CDP, through puppeteer-core) hover
 * and click pixels; the hover text must show the value of the CPU reference
 * of wave.frag exactly (float32), a pixel no fragment reached (egl_shade's
 * quad leaves most of its framebuffer empty) must say "not reached", and a
 * click must focus that pixel's invocation in the server.
 */
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');
const { DapClient, testApp, REPO } = require('./dap.js');
const { install } = require('./vscodeStub.js');
const vi = require('../media/valueImage.js');

const ROOT = path.join(__dirname, '..');
const SHADERS = path.join(REPO, 'tests', 'apps', 'shaders');
const f = Math.fround;

/* CPU references of wave.frag (float32 at every operation, as the GPU). */
function waveP(x, y) {
    return [f(f((x + 0.5) / 64) - 0.5), f(f((y + 0.5) / 64) - 0.5)];
}
function waveAcc(x, y, mode) {
    const [px, py] = waveP(x, y);
    let acc = 0;
    for (let i = 0; i < 3; i++) {
        const k = f((i + 1) * f(0.625));
        const d = f(f(f(px * px) + f(py * py)) * k);
        acc = f(acc + f(d - Math.floor(d)));
    }
    return mode === 1 ? f(acc * 0.5) : acc;
}

/** A DAP session of `app args`, stopped at function breakpoint `where`, debugging its fragment shader. */
async function fragmentSession(app, args, where) {
    assert.ok(fs.existsSync(testApp(app)), `no test app ${testApp(app)}: build the workspace or set $GLDBG_APPS_DIR`);
    const dap = DapClient.start();
    try {
        await dap.request('initialize', {
            clientID: 'gldbg-vscode-test', adapterID: 'gldbg', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path',
        });
        await dap.request('launch', { program: testApp(app), args, cwd: REPO });
        await dap.waitEvent('initialized');
        await dap.request('setFunctionBreakpoints', { breakpoints: [{ name: where }] });
        const from = dap.events.length;
        await dap.request('configurationDone', {});
        const stop = await dap.waitEvent('stopped', { from });
        assert.equal(stop.body.reason, 'function breakpoint');
        await dap.request('evaluate', { expression: 'debug fragment', context: 'repl' });
        return dap;
    } catch (e) {
        await dap.close();
        throw e;
    }
}

/** A stand-in for vscode.DebugSession whose custom requests go to the real server (recorded). */
function sessionOf(dap) {
    const requests = [];
    return {
        requests,
        session: {
            id: `s${Math.random()}`,
            type: 'gldbg',
            // As VS Code's: the body, or an Error with the adapter's message.
            customRequest: async (command, args) => {
                requests.push({ command, args });
                const r = await dap.raw(command, args);
                if (!r.success) throw new Error(r.message);
                return r.body;
            },
        },
    };
}

/** The extension's value image panel for `expression`, shown in a fresh page. */
async function openPanel(browser, dap, expression) {
    const vscode = install();
    const { ValueImagePanel } = require('../out/valueImagePanel.js');
    const panel = new ValueImagePanel(vscode.Uri.file(ROOT));
    const { session, requests } = sessionOf(dap);
    await panel.show(session, expression);
    const stub = vscode.rec.panels[0];
    assert.ok(stub, 'the panel opened a webview');
    const page = await browser.newPage();
    await page.setViewport({ width: 900, height: 900 });
    const problems = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    await page.exposeFunction('__gldbgToExtension', (m) => stub.receive(m));
    // As VS Code's webview does: a global `const` (not a property of window), which records what the page posts.
    await page.evaluateOnNewDocument(`
        window.__posted = [];
        const acquireVsCodeApi = () => ({
            postMessage: (m) => { window.__posted.push(m); window.__gldbgToExtension(m); },
            getState: () => undefined,
            setState: () => {},
        });`);
    stub.deliver = (m) => page.evaluate((msg) => window.postMessage(msg, '*'), m).catch(() => {});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gldbg-webview-'));
    tempDirs.push(dir);
    const file = path.join(dir, 'panel.html');
    fs.writeFileSync(file, stub.webview.html);
    await page.goto(`file://${file}`);
    await shown(page, expression);
    return { page, panel, session, stub, requests, problems };
}

/** Waits until the page shows the image of `expression`; fails with the page's message if it shows one instead. */
async function shown(page, expression) {
    await page.waitForFunction((e) => document.getElementById('title').textContent.startsWith(`${e} (`)
        || !document.getElementById('message').hidden, { timeout: 10000 }, expression);
    const message = await page.$eval('#message', (m) => (m.hidden ? '' : m.textContent));
    assert.equal(message, '', `the page shows an error instead of the image of ${expression}`);
}

/** Moves the mouse (real CDP events) to the centre of GL pixel (x, y) of the image; returns that point. */
async function pointAt(page, x, y) {
    const box = await page.$eval('#image', (c) => {
        const r = c.getBoundingClientRect();
        return { left: r.left + c.clientLeft, top: r.top + c.clientTop, w: c.clientWidth, h: c.clientHeight, iw: c.width, ih: c.height };
    });
    assert.ok(box.w > box.iw, `the image is shown scaled up (${box.w} CSS px for ${box.iw} pixels)`);
    const cx = box.left + ((x + 0.5) * box.w) / box.iw;
    const cy = box.top + ((box.ih - 1 - y + 0.5) * box.h) / box.ih; // GL rows go up
    await page.mouse.move(cx, cy);
    return { cx, cy };
}

async function hoverAt(page, x, y) {
    await pointAt(page, x, y);
    return page.$eval('#hover', (e) => e.textContent);
}

/** The numbers of a hover text "x X, y Y: EXPR = V" or "... = (V, V)". */
function hoverValues(text, x, y, expression) {
    const prefix = `x ${x}, y ${y}: ${expression} = `;
    assert.ok(text.startsWith(prefix), `hover text ${JSON.stringify(text)} starts with ${JSON.stringify(prefix)}`);
    return text.slice(prefix.length).replace(/[()]/g, '').split(', ').map(Number);
}

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const tempDirs = [];
let browser;

test.before(async () => {
    assert.ok(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (set $CHROMIUM)`);
    browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--allow-file-access-from-files', '--disable-gpu'],
    });
});
test.after(async () => {
    await browser?.close();
    for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

test('egl_files draw 2: hover shows p and acc exactly, the selector shows a component, a click focuses', { timeout: 60000 }, async () => {
    const dap = await fragmentSession('egl_files', [SHADERS], 'draw 2');
    try {
        await dap.request('evaluate', { expression: 'next', context: 'repl' }); // p is assigned
        const { page, panel, session, stub, requests, problems } = await openPanel(browser, dap, 'p');
        assert.deepEqual(requests[0], { command: 'valueImage', args: { expression: 'p' } });
        const body = stub.posted.find((m) => m.command === 'image').body;
        assert.deepEqual([body.width, body.height, body.components, body.type], [64, 64, 2, 'vec2']);

        for (const [x, y] of [[3, 5], [60, 2], [17, 50], [0, 63], [63, 0], [32, 31]]) {
            const got = hoverValues(await hoverAt(page, x, y), x, y, 'p');
            const ref = waveP(x, y);
            assert.equal(got.length, 2);
            got.forEach((v, k) => assert.equal(f(v), ref[k], `p[${k}] at ${x},${y}: shown ${v}, CPU ${ref[k]}`));
        }

        // The selector: .x and .y; the canvas shows the chosen one on the legend's colours.
        const options = await page.$$eval('#component option', (os) => os.map((o) => o.textContent));
        assert.deepEqual(options, ['.x', '.y']);
        await page.select('#component', '1');
        const [x, y] = [9, 44];
        const rgb = await page.$eval('#image', (c, x, y) => Array.from(c.getContext('2d').getImageData(x, c.height - 1 - y, 1, 1).data.slice(0, 3)), x, y);
        assert.deepEqual(rgb, vi.colourOf(waveP(x, y)[1], body.min[1], body.max[1]));
        assert.deepEqual([body.min[1], body.max[1]], [waveP(0, 0)[1], waveP(0, 63)[1]], 'legend range of p.y');
        assert.equal(await page.$eval('#legend-max', (e) => e.textContent), String(waveP(0, 63)[1]));

        // The app moves: the image is dimmed and tells no value until the next image.
        panel.onRunning(session);
        await page.waitForFunction(() => document.getElementById('frame').classList.contains('stale'), { timeout: 5000 });
        assert.equal(await hoverAt(page, 3, 5), '', 'no value from a stale image');
        await panel.show(session, 'p');
        await page.waitForFunction(() => !document.getElementById('frame').classList.contains('stale'), { timeout: 10000 });
        assert.ok((await hoverAt(page, 3, 5)).startsWith('x 3, y 5: p = '));

        // Click = focus: the page posts {command: "focus", x, y}, the panel evaluates `focus X,Y`.
        const [fx, fy] = [40, 9];
        const { cx, cy } = await pointAt(page, fx, fy);
        const from = dap.events.length;
        await page.mouse.click(cx, cy);
        await page.waitForFunction(() => window.__posted.some((m) => m.command === 'focus'), { timeout: 5000 });
        const posted = await page.evaluate(() => window.__posted.filter((m) => m.command === 'focus'));
        assert.deepEqual(posted, [{ command: 'focus', x: fx, y: fy }]);
        await dap.waitEvent('stopped', { from });
        assert.deepEqual(requests.at(-1), { command: 'evaluate', args: { expression: `focus ${fx},${fy}`, context: 'repl' } });
        const focused = await dap.request('evaluate', { expression: 'gl_FragCoord.xy', context: 'hover' });
        // The focused invocation's value (the text ends with it, after any type name).
        const numbers = focused.result.match(/-?\d+(\.\d+)?/g).map(Number);
        assert.deepEqual(numbers.slice(-2), [fx + 0.5, fy + 0.5], focused.result);
        const fp = (await dap.request('evaluate', { expression: 'p', context: 'hover' })).result;
        assert.deepEqual(fp.match(/-?\d+(\.\d+)?/g).slice(-2).map((v) => f(Number(v))), waveP(fx, fy), fp);

        // At the end of main (file line 26, shader line 28): acc of draw 2 (halved).
        await dap.request('evaluate', { expression: 'break 28', context: 'repl' });
        const before = dap.events.length;
        await dap.request('evaluate', { expression: 'continue', context: 'repl' }); // answers at once
        await dap.waitEvent('stopped', { from: before });
        await panel.show(session, 'acc');
        await shown(page, 'acc');
        assert.equal(await page.$eval('#component-label', (s) => s.hidden), true, 'no selector for a float');
        for (const [x, y] of [[3, 5], [60, 2], [17, 50], [0, 63], [40, 9], [31, 32]]) {
            const [v] = hoverValues(await hoverAt(page, x, y), x, y, 'acc');
            assert.equal(f(v), waveAcc(x, y, 1), `acc at ${x},${y}: shown ${v}, CPU ${waveAcc(x, y, 1)}`);
        }
        assert.deepEqual(problems, [], 'no script errors in the page');
        await page.close();
    } finally {
        await dap.close();
    }
});

test('egl_shade: a pixel outside the drawn quad says "not reached", one inside its value', { timeout: 60000 }, async () => {
    const dap = await fragmentSession('egl_shade', ['--frames', '1'], 'draw 1');
    try {
        await dap.request('evaluate', { expression: 'next', context: 'repl' }); // p = gl_FragCoord.xy
        const { page, panel, session, problems } = await openPanel(browser, dap, 'p');
        // The quad covers x in [16, 56), y in [12, 36) of 64 x 48 pixels.
        for (const [x, y] of [[5, 5], [60, 40], [16, 36], [15, 12], [56, 20]]) {
            const text = await hoverAt(page, x, y);
            assert.equal(text, `x ${x}, y ${y}: p not reached`);
        }
        for (const [x, y] of [[16, 12], [55, 35], [20, 30]]) {
            assert.deepEqual(hoverValues(await hoverAt(page, x, y), x, y, 'p'), [x + 0.5, y + 0.5]);
        }
        // An expression the server refuses: its message, and no image of the old one left on screen.
        await panel.show(session, 'no_such_name');
        await page.waitForFunction(() => !document.getElementById('message').hidden, { timeout: 10000 });
        assert.match(await page.$eval('#message', (e) => e.textContent), /^valueImage no_such_name: .*no_such_name/);
        assert.equal(await page.$eval('#frame', (e) => e.hidden), true);
        assert.equal(await page.$eval('#image', (e) => e.getBoundingClientRect().width), 0, 'the image is not shown');
        assert.deepEqual(problems, []);
        await page.close();
    } finally {
        await dap.close();
    }
});

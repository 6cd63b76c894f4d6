/* history.test.js: the pixel history panel, its page in headless Chromium.
 *
 * test/fixtures/egl_history.json holds `pixelHistory` bodies recorded from
 * the real server on the test app egl_history (tests/apps/egl_history.c),
 * frames 2 to 5: `gldbg run --json` of "break frame, continue, delete,
 * step, history 46,45, step, history 26,24, step, history 38,8, step,
 * history 12,13", each line without `cmd` and `ok` (the body `gldbg dap`
 * answers; tests/dap/history.test.js checks that body against the CPU
 * model). The extension's own panel code (out/historyPanel.js, with a
 * recording stand-in for `vscode`) hands a body to the page of
 * media/history.js in Chromium (/usr/bin/chromium, or $CHROMIUM): the rows,
 * the texts and the swatches' colours must be those of the scene's
 * colours (bytes / 255, as the app draws them), and a real click on "Debug
 * this fragment" must become `debugHistory` {entry}.
 */
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');
const { install } = require('./vscodeStub.js');
const hj = require('../media/history.js');

const ROOT = path.join(__dirname, '..');
const RECORDED = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'egl_history.json'), 'utf8'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/* egl_history's scene (tests/tests/history/scene.rs): colours as bytes. */
const CLEAR = [51, 102, 153]; // glClear(0.2, 0.4, 0.6, 1) in RGBA8
const D1 = [250, 10, 10];
const D2 = [10, 250, 10];
const A = [240, 240, 20];

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

/** A stand-in session answering `pixelHistory` from the recording (recorded requests). */
function recordedSession() {
    const requests = [];
    return {
        requests,
        session: {
            id: `s${Math.random()}`,
            type: 'gldbg',
            customRequest: async (command, args) => {
                requests.push({ command, args });
                if (command === 'pixelHistory') {
                    const body = RECORDED[`${args.x},${args.y}`];
                    if (!body) throw new Error(`pixel ${args.x},${args.y} is outside the framebuffer`);
                    return structuredClone(body);
                }
                if (command === 'debugHistory') return { differences: [], line: 14, focus: { x: 46, y: 45 } };
                throw new Error(`unexpected request ${command}`);
            },
        },
    };
}

/** The extension's history panel, its page loaded in Chromium, showing pixel (x, y). */
async function openPanel(x, y, body) {
    const vscode = install();
    const { HistoryPanel } = require('../out/historyPanel.js');
    const panel = new HistoryPanel(vscode.Uri.file(ROOT));
    const { session, requests } = recordedSession();
    if (body) session.customRequest = async (command, args) => {
        requests.push({ command, args });
        return command === 'pixelHistory' ? body : {};
    };
    await panel.show(session, { x, y });
    const stub = vscode.rec.panels[0];
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    await page.exposeFunction('__gldbgToExtension', (m) => stub.receive(m));
    await page.evaluateOnNewDocument(`
        window.__posted = [];
        const acquireVsCodeApi = () => ({
            postMessage: (m) => { window.__posted.push(m); window.__gldbgToExtension(m); },
            getState: () => undefined,
            setState: () => {},
        });`);
    stub.deliver = (m) => page.evaluate((msg) => window.postMessage(msg, '*'), m).catch(() => {});
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gldbg-history-'));
    tempDirs.push(dir);
    const file = path.join(dir, 'panel.html');
    fs.writeFileSync(file, stub.webview.html);
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => !document.getElementById('table').hidden || !document.getElementById('message').hidden,
        { timeout: 10000 });
    return { page, panel, session, stub, requests, problems };
}

/** The table as the page shows it (entries, their fragments, notes in order): per row its class, cell texts and swatch colours. */
function tableOf(page) {
    return page.$$eval('#rows tr.entry, #rows tr.fragment, #rows tr.note', (rows) => rows.map((r) => ({
        cls: r.className,
        cells: [...r.cells].map((c) => c.textContent),
        swatches: [...r.querySelectorAll('.swatch .fill')].map((s) => getComputedStyle(s).backgroundColor),
        button: r.querySelector('button.debug')?.textContent ?? null,
    })));
}

const rgb = (c) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;

test('swatch colours: clamped, alpha kept, none for int / uint or unknown values', () => {
    assert.deepEqual(hj.swatchColor([1.5, -0.2, 0.5, 0.25], 'float'), { rgb: [255, 0, 128], alpha: 0.25 });
    assert.deepEqual(hj.swatchColor([0.5], 'float'), { rgb: [128, 0, 0], alpha: 1 }, 'a red-only image');
    assert.equal(hj.swatchColor([1, 2, 3, 4], 'uint'), null);
    assert.equal(hj.swatchColor([1, 2, 3, 4], 'int'), null);
    assert.equal(hj.swatchColor(null, 'float'), null);
    assert.equal(hj.swatchColor(['NaN', 0, 0, 1], 'float'), null);
    assert.equal(hj.colorText(null), 'unknown');
    assert.equal(hj.colorText([0.5, 'Inf', -0, 1]), '(0.5, Inf, -0, 1)');
    assert.equal(hj.formatComponent(0.19999998807907104), '0.19999999', 'a float32 depth as its shortest decimal');
    assert.equal(hj.formatComponent(4294967295), '4294967295');
    assert.equal(hj.verdictText({ passed: false, rejected_by: 'stencil' }), 'rejected by stencil');
    assert.equal(hj.verdictText({ passed: null }), 'tests not known');
    assert.throws(() => hj.checkBody({ pixel: { x: 1 }, history: [] }), /pixel/);
});

test('46,45: the clear, D1 passing, D2 rejected by depth; swatches; the debug button sends debugHistory', { timeout: 60000 }, async () => {
    const { page, panel, session, requests, stub, problems } = await openPanel(46, 45);
    assert.deepEqual(requests, [{ command: 'pixelHistory', args: { x: 46, y: 45 } }]);
    assert.equal(stub.title, 'gldbg: history 46,45');
    assert.equal(await page.$eval('#title', (e) => e.textContent),
        "History of pixel 46,45 of the window (GL_SRGB8_ALPHA8), to the frame's end (the app is stopped at the swap)");
    const rows = await tableOf(page);
    assert.deepEqual(rows.map((r) => r.cls), ['entry', 'entry', 'fragment', 'entry', 'fragment']);
    assert.deepEqual(rows.map((r) => r.cells.slice(0, 4)).filter((_, i) => rows[i].cls === 'entry'),
        RECORDED['46,45'].history.map((e, i) => [`#${i + 1}`, String(e.call), ['glClear', 'glDrawArrays', 'glDrawArrays'][i], ['', '4', '5'][i]]));
    const [clear, d1, d1f, d2, d2f] = rows;
    // Entries: before and after swatches.
    assert.deepEqual(clear.swatches, [rgb(D1), rgb(CLEAR)], 'the clear: the last frame\'s D1, then the clear colour');
    assert.equal(clear.button, null, 'a clear has no fragment to debug');
    assert.deepEqual(d1.swatches, [rgb(CLEAR), rgb(D1)]);
    assert.equal(d1.button, 'Debug this fragment');
    assert.deepEqual(d2.swatches, [rgb(D1), rgb(D1)], 'D2 rejected: the pixel keeps D1');
    // Fragments: output, depth, verdict, colour before -> after, depth and stencil.
    assert.deepEqual(d1f.swatches, [rgb(D1), rgb(CLEAR), rgb(D1)]);
    assert.equal(d1f.cells[0], 'primitive 0');
    assert.equal(d1f.cells[2], '0.25');
    assert.equal(d1f.cells[3], 'passed');
    assert.match(d1f.cells[4], /^\(0\.2\d*, 0\.4\d*, 0\.6, 1\) → \(0\.98039\d*, 0\.0392\d*, 0\.0392\d*, 1\)$/);
    assert.deepEqual(d1f.cells.slice(5), ['1 → 0.25000003', '0 → 0'], 'depth (D24: 0.25 stored as 0.25000003) and stencil');
    assert.deepEqual(d2f.swatches.slice(0, 1), [rgb(D2)], 'D2\'s output');
    assert.equal(d2f.cells[2], '0.5');
    assert.equal(d2f.cells[3], 'rejected by depth');
    assert.equal(await page.$eval('#empty', (e) => e.hidden), true);

    // A real click on entry 2's button: {command: "debug", entry: 2} -> debugHistory {entry: 2}.
    await page.click('tr[data-entry="2"] button.debug');
    await page.waitForFunction(() => window.__posted.some((m) => m.command === 'debug'), { timeout: 5000 });
    assert.deepEqual(await page.evaluate(() => window.__posted.filter((m) => m.command === 'debug')), [{ command: 'debug', entry: 2 }]);
    await page.waitForFunction(() => document.getElementById('info').textContent.startsWith('debug history 2: stopped'), { timeout: 5000 });
    assert.deepEqual(requests.at(-1), { command: 'debugHistory', args: { entry: 2 } });

    // Another history taken in the console: the buttons no longer debug this one's entries.
    panel.onOtherHistory(session);
    await page.waitForFunction(() => [...document.querySelectorAll('button.debug')].every((b) => b.disabled), { timeout: 5000 });
    assert.match(await page.$eval('#info', (e) => e.textContent), /Another history was taken/);
    await page.click('tr[data-entry="2"] button.debug');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(requests.filter((r) => r.command === 'debugHistory').length, 1, 'a disabled button sends nothing');
    assert.deepEqual(problems, [], 'no script errors in the page');
    await page.close();
});

test('26,24 two primitives of one draw; 38,8 a blend with alpha; 12,13 a stencil reject; a refused pixel clears the table', { timeout: 60000 }, async () => {
    const { page, panel, session, requests, problems } = await openPanel(26, 24);
    let rows = await tableOf(page);
    assert.deepEqual(rows.map((r) => r.cls), ['entry', 'entry', 'fragment', 'fragment']);
    assert.deepEqual(rows.slice(2).map((r) => [r.cells[0], r.cells[3], r.swatches[0]]),
        [['primitive 0', 'passed', rgb(A)], ['primitive 3', 'rejected by depth', rgb([20, 240, 240])]]);
    assert.deepEqual(rows[1].swatches, [rgb(CLEAR), rgb(A)]);

    // The blend: the output's alpha 0.4 and the result's alpha show over the checkerboard.
    await panel.show(session, { x: 38, y: 8 });
    await page.waitForFunction(() => document.getElementById('title').textContent.includes('38,8'), { timeout: 5000 });
    rows = await tableOf(page);
    const blended = RECORDED['38,8'].history[1].after;
    assert.equal(rows[2].swatches[0], 'rgba(255, 0, 0, 0.4)', 'the fragment output (1, 0, 0, 0.4)');
    const want = `rgba(${blended.slice(0, 3).map((v) => Math.round(v * 255)).join(', ')}, ${blended[3]})`;
    assert.equal(rows[1].swatches[1].replace(/(\.\d{2})\d+\)/, '$1)'), want.replace(/(\.\d{2})\d+\)/, '$1)'));

    await panel.show(session, { x: 12, y: 13 });
    await page.waitForFunction(() => document.getElementById('title').textContent.includes('12,13'), { timeout: 5000 });
    rows = await tableOf(page);
    assert.equal(rows[2].cells[3], 'rejected by stencil');
    assert.deepEqual(rows[1].swatches, [rgb(CLEAR), rgb(CLEAR)], 'the pixel keeps the clear');

    // A pixel the server refuses: its message, and no table of another pixel left.
    await panel.show(session, { x: 70, y: 1 });
    await page.waitForFunction(() => !document.getElementById('message').hidden, { timeout: 5000 });
    assert.match(await page.$eval('#message', (e) => e.textContent), /^pixelHistory 70,1: pixel 70,1 is outside/);
    assert.equal(await page.$eval('#table', (e) => e.hidden), true);
    assert.deepEqual(requests.map((r) => r.args.x), [26, 38, 12, 70]);
    assert.deepEqual(problems, []);
    await page.close();
});

test('an int / uint image: numbers only, no swatches', { timeout: 60000 }, async () => {
    const body = structuredClone(RECORDED['46,45']);
    body.kind = 'uint';
    body.format = 'GL_RGBA8UI';
    for (const e of body.history) {
        e.before = [1, 2, 3, 4];
        e.after = [250, 10, 10, 255];
        for (const fr of e.fragments || []) Object.assign(fr, { output: [250, 10, 10, 255], color_before: [1, 2, 3, 4], color_after: [250, 10, 10, 255] });
    }
    const { page, problems } = await openPanel(46, 45, body);
    const rows = await tableOf(page);
    assert.equal(rows.length, 5);
    for (const r of rows) assert.deepEqual(r.swatches, [], `no swatch: ${JSON.stringify(r)}`);
    assert.equal(await page.$$eval('.swatch', (s) => s.length), 0, 'not even the start');
    assert.equal(rows[1].cells[6], '(250, 10, 10, 255)');
    assert.deepEqual(problems, []);
    await page.close();
});

/* extension.test.js: the extension's page and message handling
 * (out/webview.js, compiled from src/webview.ts) and its manifest. */
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { focusRequest, valueImageHtml, historyHtml, parsePixel, debugHistoryRequest, historyPixel } = require('../out/webview.js');
const { install } = require('./vscodeStub.js');

const ROOT = path.join(__dirname, '..');

test('a focus message becomes `evaluate focus X,Y` in the repl; anything else is dropped', () => {
    assert.deepEqual(focusRequest({ command: 'focus', x: 12, y: 40 }), { expression: 'focus 12,40', context: 'repl' });
    assert.deepEqual(focusRequest({ command: 'focus', x: 0, y: 0 }), { expression: 'focus 0,0', context: 'repl' });
    for (const bad of [
        null, 'focus 1,2', { command: 'focus', x: -1, y: 2 }, { command: 'focus', x: 1.5, y: 2 },
        { command: 'focus', x: '1', y: 2 }, { command: 'focus', x: 1 }, { command: 'ready' },
    ]) {
        assert.equal(focusRequest(bad), null, JSON.stringify(bad));
    }
});

test('the page has every element the script uses, and runs only its own script', () => {
    const html = valueImageHtml({ cspSource: 'vscode-resource:', scriptUri: 's.js', styleUri: 's.css', nonce: 'N0nce+/=' });
    const script = fs.readFileSync(path.join(ROOT, 'media', 'valueImage.js'), 'utf8');
    const ids = [...script.matchAll(/el\('([\w-]+)'\)/g)].map((m) => m[1]);
    assert.ok(ids.length >= 8, `ids used by the script: ${ids}`);
    for (const id of ids) assert.match(html, new RegExp(`id="${id}"`), `element #${id}`);
    assert.match(html, /script-src 'nonce-N0nce\+\/='/);
    assert.match(html, /<script nonce="N0nce\+\/=" src="s\.js"><\/script>/);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
});

test('the manifest: the gldbg debug type, its attributes, shader languages, the command', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const dbg = pkg.contributes.debuggers.find((d) => d.type === 'gldbg');
    assert.ok(dbg, 'debugger gldbg');
    assert.deepEqual(Object.keys(dbg.configurationAttributes.launch.properties).sort(),
        ['args', 'cwd', 'env', 'memcheck', 'onDisconnect', 'program', 'sourceMap', 'stopOnEntry']);
    assert.deepEqual(Object.keys(dbg.configurationAttributes.attach.properties).sort(),
        ['address', 'onDisconnect', 'sourceMap', 'token', 'tokenFile']);
    assert.equal(dbg.initialConfigurations[0].request, 'launch');
    assert.deepEqual(dbg.configurationSnippets.map((s) => s.body.request), ['launch', 'launch', 'attach']);
    const glsl = pkg.contributes.languages.find((l) => l.id === 'glsl');
    assert.deepEqual(glsl.extensions.sort(), ['.comp', '.frag', '.fs', '.geom', '.glsl', '.tesc', '.tese', '.vert', '.vs']);
    assert.ok(pkg.contributes.breakpoints.some((b) => b.language === 'glsl'));
    assert.ok(pkg.contributes.configuration.properties['gldbg.path']);
    const vscode = install();
    require('../out/extension.js').activate({ extensionUri: vscode.Uri.file(ROOT), subscriptions: [] });
    assert.deepEqual(Object.keys(vscode.rec.commands).sort(), pkg.contributes.commands.map((c) => c.command).sort());
});

test('the adapter is `gldbg dap`, with the gldbg.path setting', () => {
    const vscode = install();
    require('../out/extension.js').activate({ extensionUri: vscode.Uri.file(ROOT), subscriptions: [] });
    const factory = vscode.rec.factories.gldbg;
    const folder = { uri: vscode.Uri.file('/ws') };
    let exe = factory.createDebugAdapterDescriptor({ workspaceFolder: folder });
    assert.deepEqual([exe.command, exe.args], ['gldbg', ['dap']]);
    vscode.rec.settings['gldbg.path'] = 'target/debug/gldbg';
    exe = factory.createDebugAdapterDescriptor({ workspaceFolder: folder });
    assert.deepEqual([exe.command, exe.args], ['/ws/target/debug/gldbg', ['dap']]);
    vscode.rec.settings['gldbg.path'] = '/opt/gldbg/bin/gldbg';
    exe = factory.createDebugAdapterDescriptor({ workspaceFolder: folder });
    assert.equal(exe.command, '/opt/gldbg/bin/gldbg');
});

test('configurations: launch needs program, attach needs address, F5 alone asks for the program', async () => {
    const vscode = install();
    require('../out/extension.js').activate({ extensionUri: vscode.Uri.file(ROOT), subscriptions: [] });
    const p = vscode.rec.providers.gldbg;
    const launch = { type: 'gldbg', request: 'launch', name: 'l', program: '/bin/app', args: ['x'] };
    assert.deepEqual(await p.resolveDebugConfiguration(undefined, launch), launch);
    assert.equal(await p.resolveDebugConfiguration(undefined, { type: 'gldbg', request: 'launch', name: 'l' }), null);
    assert.match(vscode.rec.errors.pop(), /set "program"/);
    assert.equal(await p.resolveDebugConfiguration(undefined, { type: 'gldbg', request: 'attach', name: 'a' }), null);
    assert.match(vscode.rec.errors.pop(), /set "address"/);
    const attach = { type: 'gldbg', request: 'attach', name: 'a', address: '127.0.0.1:7000', tokenFile: '/t' };
    assert.deepEqual(await p.resolveDebugConfiguration(undefined, attach), attach);
    vscode.rec.inputBoxAnswer = '/bin/app';
    assert.deepEqual(await p.resolveDebugConfiguration(undefined, {}),
        { type: 'gldbg', request: 'launch', name: 'gldbg: launch', program: '/bin/app' });
    vscode.rec.inputBoxAnswer = undefined;
    assert.equal(await p.resolveDebugConfiguration(undefined, {}), undefined, 'cancelled');
});

test('the value image panel: sends when the page is ready, refreshes at its session\'s stops, focuses on a click', async () => {
    const vscode = install();
    const ext = require('../out/extension.js');
    ext.activate({ extensionUri: vscode.Uri.file(ROOT), subscriptions: [] });
    const calls = [];
    const session = {
        id: 'a',
        type: 'gldbg',
        customRequest: async (command, args) => {
            calls.push([command, args]);
            if (command === 'valueImage' && args.expression === 'bad') throw new Error('expression `bad`: unknown');
            return command === 'valueImage' ? { n: calls.length } : { result: 'ok' };
        },
    };
    const other = { ...session, id: 'b' };
    vscode.debug.activeDebugSession = session;
    await vscode.rec.commands['gldbg.showValueImage']('acc');
    const [panel] = vscode.rec.panels;
    assert.match(panel.webview.html, /valueImage\.js/);
    assert.deepEqual(calls, [['valueImage', { expression: 'acc' }]]);
    assert.deepEqual(panel.posted, [], 'nothing before the page is ready');
    panel.receive({ command: 'ready' });
    assert.deepEqual(panel.posted, [{ command: 'image', body: { n: 1 } }]);

    const tracker = vscode.rec.trackers.gldbg.createDebugAdapterTracker(session);
    const otherTracker = vscode.rec.trackers.gldbg.createDebugAdapterTracker(other);
    otherTracker.onDidSendMessage({ type: 'event', event: 'stopped', body: {} });
    tracker.onDidSendMessage({ type: 'event', event: 'output', body: {} });
    tracker.onDidSendMessage({ type: 'response', command: 'next' });
    await new Promise((r) => setImmediate(r));
    assert.equal(calls.length, 1, 'no refresh for other sessions or other messages');
    tracker.onWillReceiveMessage({ type: 'request', command: 'variables', arguments: {} });
    assert.equal(panel.posted.length, 1, 'a request that moves nothing leaves the image');
    tracker.onWillReceiveMessage({ type: 'request', command: 'next', arguments: {} });
    assert.equal(panel.posted.at(-1).command, 'stale', 'a step makes the image stale');
    tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'step' } });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls.at(-1), ['valueImage', { expression: 'acc' }]);
    assert.deepEqual(panel.posted.at(-1), { command: 'image', body: { n: 2 } });

    panel.receive({ command: 'focus', x: 7, y: 3 });
    panel.receive({ command: 'focus', x: -7, y: 3 });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls.at(-1), ['evaluate', { expression: 'focus 7,3', context: 'repl' }]);
    assert.equal(calls.length, 3, 'a malformed focus is not sent');

    await vscode.rec.commands['gldbg.showValueImage']('bad');
    assert.equal(vscode.rec.panels.length, 1, 'one panel, reused');
    assert.deepEqual(panel.posted.at(-1), { command: 'error', message: 'valueImage bad: expression `bad`: unknown' });
    vscode.debug.onDidTerminateDebugSession.fire(session);
    assert.deepEqual(panel.posted.at(-1), { command: 'error', message: 'The debug session ended.' });

    vscode.debug.activeDebugSession = undefined;
    await vscode.rec.commands['gldbg.showValueImage']('acc');
    assert.match(vscode.rec.errors.pop(), /no gldbg debug session/);
});

test('pixel history: what the user types, the page\'s messages, the page\'s elements', () => {
    assert.deepEqual(parsePixel('46,45'), { x: 46, y: 45 });
    assert.deepEqual(parsePixel(' 46 , 45 until draw 7'), { x: 46, y: 45, untilDraw: 7 });
    assert.deepEqual(parsePixel('texture 3 4,2 level 1 layer 2'), { texture: 3, x: 4, y: 2, level: 1, layer: 2 });
    for (const bad of ['', '46', '46,x', '-1,2', '1,2 level 1', '1,2 until draw 0', 'texture 4,2', '1,2,3']) {
        assert.equal(parsePixel(bad), null, JSON.stringify(bad));
    }
    assert.deepEqual(debugHistoryRequest({ command: 'debug', entry: 2 }), { entry: 2 });
    for (const bad of [null, { command: 'debug', entry: 0 }, { command: 'debug', entry: '2' }, { command: 'focus', entry: 2 }]) {
        assert.equal(debugHistoryRequest(bad), null, JSON.stringify(bad));
    }
    assert.deepEqual(historyPixel({ command: 'history', x: 3, y: 4 }), { x: 3, y: 4 });
    assert.equal(historyPixel({ command: 'history', x: -3, y: 4 }), null);
    assert.equal(historyPixel({ command: 'focus', x: 3, y: 4 }), null);
    const html = historyHtml({ cspSource: 'vscode-resource:', scriptUri: 'h.js', styleUri: 'h.css', nonce: 'N' });
    const script = fs.readFileSync(path.join(ROOT, 'media', 'history.js'), 'utf8');
    const ids = [...script.matchAll(/el\('([\w-]+)'\)/g)].map((m) => m[1]);
    assert.ok(ids.length >= 6, `ids used by the script: ${ids}`);
    for (const id of ids) assert.match(html, new RegExp(`id="${id}"`), `element #${id}`);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
});

test('the Pixel History command and a shift-click on a value image pixel take a history; a debug click debugs', async () => {
    const vscode = install();
    require('../out/extension.js').activate({ extensionUri: vscode.Uri.file(ROOT), subscriptions: [] });
    const calls = [];
    const session = {
        id: 'h',
        type: 'gldbg',
        customRequest: async (command, args) => {
            calls.push([command, args]);
            if (command === 'pixelHistory' && args.x > 63) throw new Error('pixel 64,0 is outside the framebuffer');
            return command === 'pixelHistory' ? { pixel: { x: args.x, y: args.y }, history: [] } : { differences: [] };
        },
    };
    vscode.debug.activeDebugSession = session;
    vscode.rec.inputBoxAnswer = '46,45';
    await vscode.rec.commands['gldbg.pixelHistory']();
    assert.deepEqual(calls, [['pixelHistory', { x: 46, y: 45 }]]);
    const history = vscode.rec.panels.find((p) => p.viewType === 'gldbg.pixelHistory');
    assert.ok(history, 'the history panel opened');
    history.receive({ command: 'ready' });
    assert.deepEqual(history.posted.filter((m) => m.command === 'history'), [{ command: 'history', body: { pixel: { x: 46, y: 45 }, history: [] } }]);
    history.receive({ command: 'debug', entry: 2 });
    history.receive({ command: 'debug', entry: -2 });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls.at(-1), ['debugHistory', { entry: 2 }]);
    assert.equal(calls.length, 2, 'a malformed debug message is not sent');

    vscode.rec.inputBoxAnswer = 'nonsense';
    await vscode.rec.commands['gldbg.pixelHistory']();
    assert.match(vscode.rec.errors.pop(), /not a pixel: nonsense/);
    assert.equal(calls.length, 2);
    await vscode.rec.commands['gldbg.pixelHistory']({ x: 64, y: 0 });
    assert.deepEqual(history.posted.at(-1), { command: 'error', message: 'pixelHistory 64,0: pixel 64,0 is outside the framebuffer', clear: true });

    // The value image: a shift-click posts {command: "history", x, y}.
    await vscode.rec.commands['gldbg.showValueImage']('acc');
    const image = vscode.rec.panels.find((p) => p.viewType === 'gldbg.valueImage');
    image.receive({ command: 'ready' });
    image.receive({ command: 'history', x: 7, y: 3 });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls.at(-1), ['pixelHistory', { x: 7, y: 3 }]);
    const script = fs.readFileSync(path.join(ROOT, 'media', 'valueImage.js'), 'utf8');
    assert.match(script, /command: ev\.shiftKey \? 'history' : 'focus'/, 'the page posts history on a shift-click');

    // The value image goes stale while a history runs the app.
    const tracker = vscode.rec.trackers.gldbg.createDebugAdapterTracker(session);
    tracker.onWillReceiveMessage({ type: 'request', command: 'pixelHistory', arguments: {} });
    assert.equal(image.posted.at(-1).command, 'stale');
    // A history taken in the console supersedes the panel's (debug history K debugs the last one).
    tracker.onWillReceiveMessage({ type: 'request', command: 'evaluate', arguments: { expression: 'print history', context: 'repl' } });
    assert.notEqual(history.posted.at(-1).command, 'superseded');
    tracker.onWillReceiveMessage({ type: 'request', command: 'evaluate', arguments: { expression: ' history 1,2', context: 'repl' } });
    assert.equal(history.posted.at(-1).command, 'superseded');
    vscode.debug.activeDebugSession = undefined;
    await vscode.rec.commands['gldbg.pixelHistory']('1,1');
    assert.match(vscode.rec.errors.pop(), /no gldbg debug session/);
});

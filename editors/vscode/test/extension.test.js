/* extension.test.js: the extension's page and message handling
 * (out/webview.js, compiled from src/webview.ts) and its manifest. */
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { focusRequest, valueImageHtml } = require('../out/webview.js');
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
        ['args', 'cwd', 'env', 'onDisconnect', 'program', 'sourceMap', 'stopOnEntry']);
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

/* vscodeStub.js: the few parts of the `vscode` module that the extension
 * uses, recording what the extension registers and creates, so node tests
 * run the extension's own code (activation, the adapter command, the value
 * image panel) outside VS Code. `install()` makes require('vscode') return it. */
'use strict';

const Module = require('module');
const path = require('path');
const { pathToFileURL } = require('url');

function emitter() {
    const handlers = [];
    const event = (h) => { handlers.push(h); return { dispose() {} }; };
    event.fire = (v) => handlers.forEach((h) => h(v));
    return event;
}

function makeStub() {
    const rec = { factories: {}, providers: {}, trackers: {}, commands: {}, panels: [], errors: [], settings: {} };
    class Uri {
        constructor(fsPath) { this.fsPath = fsPath; }
        static file(p) { return new Uri(p); }
        static joinPath(u, ...parts) { return new Uri(path.join(u.fsPath, ...parts)); }
        toString() { return pathToFileURL(this.fsPath).href; }
    }
    class DebugAdapterExecutable {
        constructor(command, args, options) { Object.assign(this, { command, args, options }); }
    }
    const terminated = emitter();
    const vscode = {
        rec,
        Uri,
        DebugAdapterExecutable,
        ViewColumn: { Beside: -2 },
        workspace: {
            getConfiguration: (section) => ({ get: (key) => rec.settings[`${section}.${key}`] }),
        },
        window: {
            activeTextEditor: undefined,
            showErrorMessage: (m) => { rec.errors.push(m); return Promise.resolve(); },
            showInputBox: () => Promise.resolve(rec.inputBoxAnswer),
            createWebviewPanel: (viewType, title) => {
                const received = emitter();
                const disposed = emitter();
                const panel = {
                    viewType,
                    title,
                    revealed: 0,
                    posted: [],
                    webview: {
                        html: '',
                        cspSource: 'file:',
                        asWebviewUri: (u) => u.toString(),
                        onDidReceiveMessage: received,
                        postMessage: (m) => { panel.posted.push(m); panel.deliver?.(m); return Promise.resolve(true); },
                    },
                    receive: (m) => received.fire(m),
                    reveal: () => { panel.revealed++; },
                    onDidDispose: disposed,
                    dispose: () => disposed.fire(),
                };
                rec.panels.push(panel);
                return panel;
            },
        },
        debug: {
            activeDebugSession: undefined,
            registerDebugAdapterDescriptorFactory: (t, f) => { rec.factories[t] = f; return { dispose() {} }; },
            registerDebugConfigurationProvider: (t, p) => { rec.providers[t] = p; return { dispose() {} }; },
            registerDebugAdapterTrackerFactory: (t, f) => { rec.trackers[t] = f; return { dispose() {} }; },
            onDidTerminateDebugSession: terminated,
        },
        commands: {
            registerCommand: (id, f) => { rec.commands[id] = f; return { dispose() {} }; },
        },
    };
    return vscode;
}

/** A fresh stub, returned by require('vscode') from now on (out/ modules are loaded anew). */
function install() {
    const stub = makeStub();
    if (!Module.__gldbgStub) {
        const load = Module._load;
        Module._load = function (request, ...rest) {
            if (request === 'vscode') return Module.__gldbgStub;
            return load.call(this, request, ...rest);
        };
    }
    Module.__gldbgStub = stub;
    for (const k of Object.keys(require.cache)) if (k.includes(`${path.sep}out${path.sep}`)) delete require.cache[k];
    return stub;
}

module.exports = { install };

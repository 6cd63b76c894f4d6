/**
 * extension.ts: the gldbg debug type in VS Code. `gldbg dap` is the debug
 * adapter (stdio); launch/attach configurations are checked before a session
 * starts; "gldbg: Show Value Image" opens the value image panel, "gldbg: Pixel
 * History" the pixel history panel (also a shift-click on a value image's pixel).
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { HistoryPanel } from './historyPanel';
import { ValueImagePanel } from './valueImagePanel';
import { PixelHistoryArgs, parsePixel } from './webview';

export const DEBUG_TYPE = 'gldbg';

/** Requests after which the app (or the shader) is somewhere else: a value image is out of date. */
const MOVES = new Set([
    'continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'goto', 'restartFrame',
    'pixelHistory', 'debugHistory',
]);

/** The gldbg executable of the `gldbg.path` setting (relative paths: to the workspace folder). */
function gldbgExecutable(folder: vscode.WorkspaceFolder | undefined): string {
    const configured = vscode.workspace.getConfiguration('gldbg', folder?.uri).get<string>('path') || 'gldbg';
    if (configured.includes('/') && !path.isAbsolute(configured) && folder) {
        return path.join(folder.uri.fsPath, configured);
    }
    return configured;
}

class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
    createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
        return new vscode.DebugAdapterExecutable(gldbgExecutable(session.workspaceFolder), ['dap']);
    }
}

class ConfigurationProvider implements vscode.DebugConfigurationProvider {
    async resolveDebugConfiguration(
        _folder: vscode.WorkspaceFolder | undefined,
        config: vscode.DebugConfiguration,
    ): Promise<vscode.DebugConfiguration | null | undefined> {
        if (!config.type && !config.request && !config.name) {
            // F5 without a launch.json: ask for the program.
            const program = await vscode.window.showInputBox({
                prompt: 'The OpenGL program to run under gldbg',
                placeHolder: '/path/to/app',
            });
            if (!program) return undefined;
            return { type: DEBUG_TYPE, request: 'launch', name: 'gldbg: launch', program };
        }
        if (config.request === 'attach' && !config.address) {
            void vscode.window.showErrorMessage('gldbg attach: set "address" (unix:PATH or HOST:PORT of a gldbg-debugd).');
            return null; // opens launch.json
        }
        if (config.request !== 'attach' && !config.program) {
            void vscode.window.showErrorMessage('gldbg launch: set "program" (the OpenGL app to run).');
            return null;
        }
        return config;
    }
}

/** The expression to show: the selection, else the word at the cursor, else the last one. */
function defaultExpression(last: string): string {
    const editor = vscode.window.activeTextEditor;
    if (editor) {
        const sel = editor.selection;
        if (!sel.isEmpty) return editor.document.getText(sel);
        const word = editor.document.getWordRangeAtPosition(sel.active, /[A-Za-z_][\w.\[\]]*/);
        if (word) return editor.document.getText(word);
    }
    return last;
}

export function activate(context: vscode.ExtensionContext): void {
    const history = new HistoryPanel(context.extensionUri);
    const panel = new ValueImagePanel(context.extensionUri, (session, args) => history.show(session, args));
    let lastExpression = '';
    context.subscriptions.push(
        vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new AdapterFactory()),
        vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new ConfigurationProvider()),
        vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
            createDebugAdapterTracker: (session) => ({
                onWillReceiveMessage: (m: { type?: string; command?: string; arguments?: { expression?: unknown } }) => {
                    if (m.type === 'request' && MOVES.has(m.command ?? '')) panel.onRunning(session);
                    // A history taken in the console replaces the daemon's last one:
                    // the panel's entries no longer name what `debug history K` debugs.
                    const expr = m.arguments?.expression;
                    if (m.type === 'request' && m.command === 'evaluate' && typeof expr === 'string' && /^\s*history\b/.test(expr)) {
                        history.onOtherHistory(session);
                    }
                },
                onDidSendMessage: (m: { type?: string; event?: string }) => {
                    if (m.type === 'event' && m.event === 'stopped') panel.onStopped(session);
                    if (m.type === 'event' && m.event === 'continued') panel.onRunning(session);
                },
            }),
        }),
        vscode.debug.onDidTerminateDebugSession((s) => {
            panel.onTerminated(s);
            history.onTerminated(s);
        }),
        vscode.commands.registerCommand('gldbg.showValueImage', async (given?: string) => {
            const session = vscode.debug.activeDebugSession;
            if (!session || session.type !== DEBUG_TYPE) {
                void vscode.window.showErrorMessage('gldbg: no gldbg debug session is active.');
                return;
            }
            const expression = typeof given === 'string' && given.trim() ? given.trim() : await vscode.window.showInputBox({
                prompt: 'Expression to show over all fragments of the draw (a value image)',
                value: defaultExpression(lastExpression),
            });
            if (!expression) return;
            lastExpression = expression;
            await panel.show(session, expression);
        }),
        vscode.commands.registerCommand('gldbg.pixelHistory', async (given?: PixelHistoryArgs | string) => {
            const session = vscode.debug.activeDebugSession;
            if (!session || session.type !== DEBUG_TYPE) {
                void vscode.window.showErrorMessage('gldbg: no gldbg debug session is active.');
                return;
            }
            let args: PixelHistoryArgs | null = given && typeof given === 'object' ? given : null;
            if (!args) {
                const text = typeof given === 'string' && given.trim() ? given : await vscode.window.showInputBox({
                    prompt: 'Pixel history: X,Y of the draw framebuffer (origin bottom-left), or texture T X,Y [level L] [layer K]; optionally until draw N',
                    placeHolder: '46,45',
                });
                if (!text) return;
                args = parsePixel(text);
                if (!args) {
                    void vscode.window.showErrorMessage(`gldbg: not a pixel: ${text} (X,Y, or texture T X,Y [level L] [layer K] [until draw N])`);
                    return;
                }
            }
            await history.show(session, args);
        }),
        panel,
        history,
    );
}

export function deactivate(): void {}

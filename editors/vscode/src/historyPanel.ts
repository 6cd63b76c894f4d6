/**
 * historyPanel.ts: the pixel history webview panel. It asks the debug
 * adapter for `pixelHistory` {x, y, ...} (the app runs to the frame's end
 * and stops there), hands the body to media/history.js, and turns a
 * "Debug this fragment" click into `debugHistory` {entry} (the adapter
 * stops at that draw of the next frame, in its fragment shader, focused on
 * the pixel, and sends `stopped`). A history is a record of the frame it
 * was taken in: it is not taken again at later stops.
 */
import * as vscode from 'vscode';
import { openPanel } from './panel';
import { PixelHistoryArgs, debugHistoryRequest, historyHtml } from './webview';

export class HistoryPanel implements vscode.Disposable {
    private panel: vscode.WebviewPanel | undefined;
    private session: vscode.DebugSession | undefined;
    private ready = false;
    /** The messages for the page since the last history, sent again when the page (re)loads. */
    private pending: unknown[] = [];

    constructor(private readonly extensionUri: vscode.Uri) {}

    /** Takes the history of a pixel in `session` and shows it. */
    async show(session: vscode.DebugSession, args: PixelHistoryArgs): Promise<void> {
        this.session = session;
        const panel = this.open();
        panel.reveal(vscode.ViewColumn.Beside, true);
        const where = args.texture !== undefined ? `texture ${args.texture} ${args.x},${args.y}` : `${args.x},${args.y}`;
        panel.title = `gldbg: history ${where}`;
        this.pending = [];
        this.post({ command: 'info', message: `Taking the history of ${where} (the app runs to the frame's end)…` });
        try {
            const body = await session.customRequest('pixelHistory', args);
            this.pending = [];
            this.post({ command: 'history', body });
            this.post({ command: 'info', message: '' });
        } catch (e) {
            this.post({ command: 'error', message: `pixelHistory ${where}: ${errorText(e)}`, clear: true });
        }
    }

    /** Another history was taken in the session (the console): this one's entries can no longer be debugged. */
    onOtherHistory(session: vscode.DebugSession): void {
        if (this.panel && this.session?.id === session.id) {
            this.post({
                command: 'superseded',
                message: 'Another history was taken since (in the console): "Debug this fragment" would debug its entries; take this one again to debug it.',
            });
        }
    }

    onTerminated(session: vscode.DebugSession): void {
        if (this.session?.id === session.id) {
            this.session = undefined;
            this.post({ command: 'superseded', message: 'The debug session ended: fragments can no longer be debugged.' });
        }
    }

    dispose(): void {
        this.panel?.dispose();
    }

    private open(): vscode.WebviewPanel {
        if (this.panel) return this.panel;
        this.ready = false;
        const panel = openPanel(this.extensionUri, 'gldbg.pixelHistory', 'gldbg pixel history', ['history.js', 'history.css'], historyHtml);
        const webview = panel.webview;
        webview.onDidReceiveMessage((m) => this.onMessage(m));
        panel.onDidDispose(() => {
            this.panel = undefined;
        });
        this.panel = panel;
        return panel;
    }

    private async onMessage(m: unknown): Promise<void> {
        if (m && typeof m === 'object' && (m as { command?: unknown }).command === 'ready') {
            this.ready = true;
            for (const p of this.pending) void this.panel?.webview.postMessage(p);
            return;
        }
        const debug = debugHistoryRequest(m);
        if (!debug) return;
        if (!this.session) {
            this.post({ command: 'error', message: 'The debug session ended.' });
            return;
        }
        this.post({ command: 'info', message: `debug history ${debug.entry}: running to that draw of the next frame…` });
        try {
            // The adapter answers with the stop and sends `stopped`, which
            // shows the shader line in the editor.
            const body = await this.session.customRequest('debugHistory', debug);
            const differences: string[] = Array.isArray(body?.differences) ? body.differences : [];
            const said = differences.length ? ` (not the history's draw: ${differences.join('; ')})` : '';
            this.post({ command: 'info', message: `debug history ${debug.entry}: stopped in the fragment shader${said}.` });
        } catch (e) {
            this.post({ command: 'error', message: `debug history ${debug.entry}: ${errorText(e)}` });
        }
    }

    private post(message: unknown): void {
        this.pending.push(message);
        if (this.panel && this.ready) void this.panel.webview.postMessage(message);
    }
}

function errorText(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}

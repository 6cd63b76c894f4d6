/**
 * valueImagePanel.ts: the value image webview panel. It asks the debug
 * adapter for `valueImage` {expression}, hands the body to
 * media/valueImage.js, refreshes at every stop of its session, and turns a
 * click on a pixel into `evaluate` {expression: "focus X,Y", context: "repl"},
 * a shift-click into the pixel's history (`onHistory`).
 */
import * as vscode from 'vscode';
import { openPanel } from './panel';
import { PixelHistoryArgs, focusRequest, historyPixel, valueImageHtml } from './webview';

export class ValueImagePanel implements vscode.Disposable {
    private panel: vscode.WebviewPanel | undefined;
    private session: vscode.DebugSession | undefined;
    private expression = '';
    private ready = false;
    /** The last message for the page, sent again when the page (re)loads. */
    private pending: unknown;

    constructor(
        private readonly extensionUri: vscode.Uri,
        /** Shows the history of a pixel (a shift-click). */
        private readonly onHistory?: (session: vscode.DebugSession, args: PixelHistoryArgs) => Promise<void>,
    ) {}

    async show(session: vscode.DebugSession, expression: string): Promise<void> {
        this.session = session;
        this.expression = expression;
        this.open().reveal(vscode.ViewColumn.Beside, true);
        await this.refresh();
    }

    /** A stop of the panel's session: the values changed (step, focus, next draw). */
    onStopped(session: vscode.DebugSession): void {
        if (this.panel && this.session?.id === session.id && this.expression) void this.refresh();
    }

    /** The session's app moves (a step, continue): the image's values are no longer current. */
    onRunning(session: vscode.DebugSession): void {
        if (this.panel && this.session?.id === session.id && this.expression) {
            this.post({ command: 'stale', message: 'The app is moving: the image comes back at the next stop.' });
        }
    }

    onTerminated(session: vscode.DebugSession): void {
        if (this.session?.id === session.id) {
            this.session = undefined;
            this.post({ command: 'error', message: 'The debug session ended.' });
        }
    }

    dispose(): void {
        this.panel?.dispose();
    }

    private open(): vscode.WebviewPanel {
        if (this.panel) return this.panel;
        this.ready = false;
        const panel = openPanel(this.extensionUri, 'gldbg.valueImage', 'gldbg value image', ['valueImage.js', 'valueImage.css'], valueImageHtml);
        const webview = panel.webview;
        webview.onDidReceiveMessage((m) => this.onMessage(m));
        panel.onDidDispose(() => {
            this.panel = undefined;
        });
        this.panel = panel;
        return panel;
    }

    private async refresh(): Promise<void> {
        const session = this.session;
        if (!session) return;
        panelTitle(this.panel, this.expression);
        try {
            const body = await session.customRequest('valueImage', { expression: this.expression });
            this.post({ command: 'image', body });
        } catch (e) {
            this.post({ command: 'error', message: `valueImage ${this.expression}: ${errorText(e)}` });
        }
    }

    private async onMessage(m: unknown): Promise<void> {
        if (m && typeof m === 'object' && (m as { command?: unknown }).command === 'ready') {
            this.ready = true;
            if (this.pending !== undefined) void this.panel?.webview.postMessage(this.pending);
            return;
        }
        const pixel = historyPixel(m);
        if (pixel && this.session && this.onHistory) {
            await this.onHistory(this.session, pixel);
            return;
        }
        const focus = focusRequest(m);
        if (!focus || !this.session) return;
        try {
            // The adapter answers with the CLI's text and a `stopped` event
            // (description "focus"), which refreshes the editor and this panel.
            await this.session.customRequest('evaluate', focus);
        } catch (e) {
            this.post({ command: 'error', message: `${focus.expression}: ${errorText(e)}` });
        }
    }

    private post(message: unknown): void {
        this.pending = message;
        if (this.panel && this.ready) void this.panel.webview.postMessage(message);
    }
}

function panelTitle(panel: vscode.WebviewPanel | undefined, expression: string): void {
    if (panel) panel.title = `gldbg: ${expression}`;
}

function errorText(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}

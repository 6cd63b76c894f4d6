/**
 * panel.ts: a webview panel of the extension, opened beside the editor:
 * its page built from the extension's `media/` script and stylesheet
 * (one nonce per page), scripts on, kept while hidden.
 */
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { PageResources } from './webview';

/** Open panel `viewType` titled `title` whose page `html` builds from media/`script` and media/`style`. */
export function openPanel(
    extensionUri: vscode.Uri,
    viewType: string,
    title: string,
    [script, style]: [string, string],
    html: (r: PageResources) => string,
): vscode.WebviewPanel {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(viewType, title, {
        viewColumn: vscode.ViewColumn.Beside,
        preserveFocus: true,
    }, { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: true });
    const webview = panel.webview;
    webview.html = html({
        cspSource: webview.cspSource,
        scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, script)).toString(),
        styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, style)).toString(),
        nonce: crypto.randomBytes(16).toString('base64'),
    });
    return panel;
}

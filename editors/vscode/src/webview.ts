/**
 * webview.ts: the value image panel's page and its messages, without the
 * VS Code API (so node tests load the same page and the same message
 * handling that the extension uses).
 */

/** Where the page's resources are, as the webview sees them. */
export interface PageResources {
    /** The webview's CSP source (`webview.cspSource`). */
    cspSource: string;
    scriptUri: string;
    styleUri: string;
    /** A fresh random nonce: only the page's own script runs. */
    nonce: string;
}

function escapeAttr(s: string): string {
    return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The HTML of the value image panel; media/valueImage.js builds the rest. */
export function valueImageHtml(r: PageResources): string {
    const csp = [
        "default-src 'none'",
        `img-src ${r.cspSource}`,
        `style-src ${r.cspSource}`,
        `script-src 'nonce-${r.nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(r.styleUri)}">
<title>gldbg value image</title>
</head>
<body>
<div id="title">No value image yet: run "gldbg: Show Value Image" while stopped in a shader.</div>
<div id="message" role="alert" hidden></div>
<label id="component-label" hidden>component <select id="component"></select></label>
<div id="frame" hidden>
<canvas id="image" width="1" height="1"></canvas>
<div id="legend">
<span id="legend-min"></span><canvas id="legend-bar" width="256" height="12"></canvas><span id="legend-max"></span>
<span class="swatch unreached"></span> not reached
<span class="swatch nan"></span> NaN (Inf: white / black)
</div>
<div id="hover" aria-live="polite"></div>
<div>Click a pixel to focus its invocation (x, y: window coordinates, origin bottom-left).</div>
</div>
<script nonce="${escapeAttr(r.nonce)}" src="${escapeAttr(r.scriptUri)}"></script>
</body>
</html>
`;
}

/** Arguments of the DAP `evaluate` request that focuses the invocation of pixel (x, y). */
export interface FocusEvaluate {
    expression: string;
    context: 'repl';
}

/**
 * The `evaluate` arguments for a message the webview posted, when it is a
 * valid focus request ({command: "focus", x, y}, non-negative integers);
 * null for any other message.
 */
export function focusRequest(message: unknown): FocusEvaluate | null {
    if (!message || typeof message !== 'object') return null;
    const m = message as { command?: unknown; x?: unknown; y?: unknown };
    if (m.command !== 'focus') return null;
    const ok = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
    if (!ok(m.x) || !ok(m.y)) return null;
    return { expression: `focus ${m.x},${m.y}`, context: 'repl' };
}

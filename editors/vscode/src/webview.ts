/**
 * webview.ts: the pages of the value image and pixel history panels and
 * their messages, without the VS Code API (so node tests load the same
 * pages and the same message handling that the extension uses).
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

/** A panel page's head: its CSP (our script by nonce, our style, images
 * of the webview's source), the stylesheet and the title; the body follows. */
function pageHead(r: PageResources, title: string): string {
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
<title>${escapeAttr(title)}</title>
</head>
`;
}

/** The HTML of the value image panel; media/valueImage.js builds the rest. */
export function valueImageHtml(r: PageResources): string {
    return `${pageHead(r, 'gldbg value image')}<body>
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
<div>Click a pixel to focus its invocation, shift-click for its pixel history (x, y: window coordinates, origin bottom-left).</div>
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

/** The HTML of the pixel history panel; media/history.js builds the table. */
export function historyHtml(r: PageResources): string {
    return `${pageHead(r, 'gldbg pixel history')}<body>
<div id="title">No pixel history yet: run "gldbg: Pixel History" while the app is stopped.</div>
<div id="message" role="alert" hidden></div>
<div id="info" aria-live="polite"></div>
<div id="table" hidden>
<div id="start"></div>
<table>
<thead><tr><th>entry</th><th>call</th><th>function</th><th>draw</th><th>where</th><th>before</th><th>after</th><th></th></tr></thead>
<tbody id="rows"></tbody>
</table>
<div id="empty" hidden>No call wrote the pixel.</div>
<ul id="notes"></ul>
</div>
<script nonce="${escapeAttr(r.nonce)}" src="${escapeAttr(r.scriptUri)}"></script>
</body>
</html>
`;
}

/** Arguments of the DAP `pixelHistory` request. */
export interface PixelHistoryArgs {
    x: number;
    y: number;
    texture?: number;
    level?: number;
    layer?: number;
    untilDraw?: number;
}

const isIndex = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/**
 * The `pixelHistory` arguments of what the user typed: "X,Y" (or "X Y"),
 * optionally "texture T X,Y [level L] [layer K]" and "until draw N", as
 * the CLI's `history`; null when it is not that.
 */
export function parsePixel(text: string): PixelHistoryArgs | null {
    const words = text.trim().replace(/\s*,\s*/g, ' ').split(/\s+/).filter((w) => w);
    const num = (w: string | undefined): number | null => (w !== undefined && /^\d+$/.test(w) ? Number(w) : null);
    const args: Partial<PixelHistoryArgs> = {};
    let i = 0;
    if (words[0] === 'texture') {
        const t = num(words[1]);
        if (t === null) return null;
        args.texture = t;
        i = 2;
    }
    const x = num(words[i]);
    const y = num(words[i + 1]);
    if (x === null || y === null) return null;
    args.x = x;
    args.y = y;
    i += 2;
    while (i < words.length) {
        const w = words[i];
        if ((w === 'level' || w === 'layer') && args.texture !== undefined && num(words[i + 1]) !== null) {
            args[w] = num(words[i + 1]) as number;
            i += 2;
        } else if (w === 'until' && words[i + 1] === 'draw' && (num(words[i + 2]) ?? 0) > 0) {
            args.untilDraw = num(words[i + 2]) as number;
            i += 3;
        } else {
            return null;
        }
    }
    return args as PixelHistoryArgs;
}

/**
 * The `debugHistory` arguments for a message the history page posted
 * ({command: "debug", entry}, a positive integer); null otherwise.
 */
export function debugHistoryRequest(message: unknown): { entry: number } | null {
    if (!message || typeof message !== 'object') return null;
    const m = message as { command?: unknown; entry?: unknown };
    if (m.command !== 'debug' || !isIndex(m.entry) || m.entry === 0) return null;
    return { entry: m.entry };
}

/**
 * The pixel of a value image's "history" message ({command: "history",
 * x, y}: a shift-click on a pixel); null otherwise.
 */
export function historyPixel(message: unknown): PixelHistoryArgs | null {
    if (!message || typeof message !== 'object') return null;
    const m = message as { command?: unknown; x?: unknown; y?: unknown };
    if (m.command !== 'history' || !isIndex(m.x) || !isIndex(m.y)) return null;
    return { x: m.x, y: m.y };
}

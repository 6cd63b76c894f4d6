/* history.js: the script of gldbg's pixel history webview (plain JS, no
 * framework). It shows the body of the DAP `pixelHistory` response (the
 * keys of the CLI's `history` JSON: `pixel`, `image`, `format`, `kind`,
 * `end`, `start`, `history`, `notes`) as a table: one row per call that
 * wrote the pixel (entry, call, function, draw, the value before and
 * after), one sub-row per fragment of a draw (primitive, shader output,
 * depth, the test that rejected it, colour / depth / stencil before and
 * after), and the notes. A float image's colours get swatches (clamped to
 * [0, 1], alpha over a checkerboard); an int or uint image's values are
 * numbers only. A value gldbg does not know (null) says "unknown", never
 * a number. Each draw's "Debug this fragment" button posts
 * {command: "debug", entry}; the buttons are disabled once another history
 * was taken (`debug history K` debugs the last one) or the session ended.
 *
 * The pure functions are exported for node (`module.exports`) and, in a
 * page, as `window.gldbgHistory`; the UI starts only in a page that has
 * `acquireVsCodeApi`.
 */
(function (root) {
    'use strict';

    /** The shortest decimal that reads back as the same float32 (as gldbg's CLI prints). */
    function formatFloat32(v) {
        for (let p = 1; p <= 9; p++) {
            const s = v.toPrecision(p);
            if (Math.fround(Number(s)) === v) return String(Number(s));
        }
        return String(v);
    }

    /**
     * One component or depth as text: a float32 value (colours, depths) as
     * its shortest decimal, any other number as is; NaN / Inf come as strings.
     */
    function formatComponent(v) {
        if (typeof v === 'number') {
            if (Object.is(v, -0)) return '-0';
            return Number.isFinite(v) && !Number.isInteger(v) && Math.fround(v) === v ? formatFloat32(v) : String(v);
        }
        if (typeof v === 'string') return v;
        return '?';
    }

    /** A colour (array of components, or null) as text. */
    function colorText(c) {
        if (!Array.isArray(c) || c.length === 0) return 'unknown';
        return `(${c.map(formatComponent).join(', ')})`;
    }

    /**
     * The swatch colour of a float colour: [r, g, b] bytes (each component
     * clamped to [0, 1], times 255, rounded) and alpha in [0, 1]; missing
     * components read as GL reads a smaller format (g = b = 0, a = 1).
     * Null for int / uint images, unknown colours and non-finite components.
     */
    function swatchColor(c, kind) {
        if (kind !== 'float' || !Array.isArray(c) || c.length === 0) return null;
        if (c.some((v) => typeof v !== 'number' || !Number.isFinite(v))) return null;
        const clamp = (v) => Math.min(1, Math.max(0, v));
        const at = (i, dflt) => (i < c.length ? clamp(c[i]) : dflt);
        return {
            rgb: [at(0, 0), at(1, 0), at(2, 0)].map((v) => Math.round(v * 255)),
            alpha: at(3, 1),
        };
    }

    /** CSS of a swatch colour. */
    function swatchCss(s) {
        return `rgba(${s.rgb[0]}, ${s.rgb[1]}, ${s.rgb[2]}, ${s.alpha})`;
    }

    /** A depth or stencil value (null: unknown). */
    function plainText(v) {
        return v === null || v === undefined ? 'unknown' : formatComponent(v);
    }

    /** What became of a fragment: "passed", "rejected by TEST", or that gldbg cannot tell. */
    function verdictText(f) {
        if (f.passed === true) return 'passed';
        if (f.passed === false) return `rejected by ${f.rejected_by || 'a test gldbg cannot name'}`;
        return 'tests not known';
    }

    /** How the history ends, in words. */
    function endText(end) {
        if (end === 'swap') return "to the frame's end (the app is stopped at the swap)";
        if (end === 'exit') return 'until the app ended';
        return `to ${end} of the frame (the app is stopped there)`;
    }

    /** Whether an entry is a draw (it has fragments): it can be debugged. */
    function isDraw(e) {
        return Array.isArray(e.fragments);
    }

    /** Checks the body's shape; throws naming what is wrong. */
    function checkBody(body) {
        if (!body || typeof body !== 'object') throw new Error('pixel history: no body');
        if (!body.pixel || !Number.isInteger(body.pixel.x) || !Number.isInteger(body.pixel.y)) {
            throw new Error('pixel history: `pixel` {x, y} expected');
        }
        if (!Array.isArray(body.history)) throw new Error('pixel history: `history` must be a list');
        for (const e of body.history) {
            if (!e || !Number.isInteger(e.entry) || typeof e.function !== 'string') {
                throw new Error(`pixel history: malformed entry ${JSON.stringify(e)}`);
            }
        }
        return body;
    }

    const api = {
        formatFloat32, formatComponent, colorText, swatchColor, swatchCss, plainText, verdictText, endText, isDraw, checkBody,
    };

    /* ---- the page (runs only in a webview) ---- */

    function startUI(vscode, doc, win) {
        const el = (id) => doc.getElementById(id);
        const message = el('message');
        const table = el('table');
        let kind = 'float';

        function node(tag, cls, text) {
            const n = doc.createElement(tag);
            if (cls) n.className = cls;
            if (text !== undefined) n.textContent = text;
            return n;
        }

        /** A value: its swatch (float images) and its text. */
        function value(c) {
            const span = node('span', 'value');
            const s = swatchColor(c, kind);
            if (s) {
                const box = node('span', 'swatch');
                const fill = node('span', 'fill');
                // CSSOM (not a style attribute): allowed by the page's CSP.
                fill.style.backgroundColor = swatchCss(s);
                box.appendChild(fill);
                box.title = colorText(c);
                span.appendChild(box);
            }
            span.appendChild(node('span', 'text', colorText(c)));
            return span;
        }

        function beforeAfter(a, b) {
            const span = node('span', 'change');
            span.append(value(a), node('span', 'arrow', ' → '), value(b));
            return span;
        }

        function cell(row, content, cls) {
            const td = node('td', cls);
            if (typeof content === 'string') td.textContent = content;
            else if (content) td.appendChild(content);
            row.appendChild(td);
            return td;
        }

        function entryRow(e) {
            const tr = node('tr', 'entry');
            tr.dataset.entry = String(e.entry);
            cell(tr, `#${e.entry}`);
            cell(tr, String(e.call));
            cell(tr, e.function, 'function');
            cell(tr, isDraw(e) ? String(e.draw) : '');
            cell(tr, isDraw(e) ? `frame ${e.frame}, program ${e.program}, framebuffer ${e.framebuffer}`
                : `framebuffer ${e.framebuffer}`);
            cell(tr, value(e.before), 'before');
            cell(tr, value(e.after), 'after');
            const action = cell(tr, null, 'action');
            if (isDraw(e)) {
                const button = node('button', 'debug', 'Debug this fragment');
                button.title = `debug history ${e.entry}: stop at draw ${e.draw} of the next frame, on this pixel`;
                button.addEventListener('click', () => vscode.postMessage({ command: 'debug', entry: e.entry }));
                action.appendChild(button);
            }
            return tr;
        }

        function fragmentRow(f) {
            const tr = node('tr', 'fragment');
            cell(tr, `primitive ${f.primitive}`, 'primitive');
            cell(tr, f.output === null ? 'no output' : value(f.output), 'output');
            cell(tr, plainText(f.depth), 'depth');
            cell(tr, verdictText(f), f.passed === true ? 'verdict passed' : 'verdict rejected');
            cell(tr, beforeAfter(f.color_before, f.color_after), 'color');
            cell(tr, `${plainText(f.depth_before)} → ${plainText(f.depth_after)}`, 'ds');
            cell(tr, `${plainText(f.stencil_before)} → ${plainText(f.stencil_after)}`, 'ds');
            return tr;
        }

        /** A draw's fragments at the pixel: a table of their own under the draw's row. */
        function fragmentsRow(fragments) {
            const tr = node('tr', 'fragments');
            cell(tr, '');
            const td = cell(tr, null);
            td.colSpan = 7;
            const t = node('table', 'frags');
            const head = node('tr');
            for (const h of ['fragment', 'output', 'depth', 'tests', 'colour before → after', 'depth before → after',
                'stencil before → after']) head.appendChild(node('th', '', h));
            const thead = node('thead');
            thead.appendChild(head);
            const tbody = node('tbody');
            tbody.append(...fragments.map(fragmentRow));
            t.append(thead, tbody);
            td.appendChild(t);
            return tr;
        }

        function noteRow(text) {
            const tr = node('tr', 'note');
            cell(tr, '');
            const td = cell(tr, `note: ${text}`);
            td.colSpan = 7;
            return tr;
        }

        function show(body) {
            try {
                checkBody(body);
            } catch (e) {
                showError(String(e.message || e));
                return;
            }
            kind = body.kind || 'float';
            message.hidden = true;
            const format = body.format ? ` (${body.format})` : '';
            el('title').textContent = `History of pixel ${body.pixel.x},${body.pixel.y} of the ${body.image}${format}, ${endText(body.end)}`;
            const start = el('start');
            start.replaceChildren(node('span', 'label', 'start '), value(body.start));
            const rows = [];
            for (const e of body.history) {
                rows.push(entryRow(e));
                if (e.fragments && e.fragments.length) rows.push(fragmentsRow(e.fragments));
                if (e.note) rows.push(noteRow(e.note));
            }
            el('rows').replaceChildren(...rows);
            el('empty').hidden = body.history.length > 0;
            el('notes').replaceChildren(...(body.notes || []).map((n) => node('li', '', n)));
            table.hidden = false;
        }

        function showError(text) {
            message.textContent = text;
            message.hidden = false;
        }

        function showInfo(text) {
            el('info').textContent = text;
        }

        win.addEventListener('message', (ev) => {
            const m = ev.data;
            if (!m || typeof m !== 'object') return;
            if (m.command === 'history') show(m.body);
            else if (m.command === 'error') {
                // A history that failed: the table of another pixel must not stay.
                if (m.clear) {
                    table.hidden = true;
                    el('title').textContent = 'No pixel history.';
                }
                showError(String(m.message));
            }
            else if (m.command === 'info') showInfo(String(m.message));
            else if (m.command === 'superseded') {
                // The daemon's last history is another one (or none): no button may debug a wrong entry.
                for (const b of doc.querySelectorAll('button.debug')) b.disabled = true;
                showInfo(String(m.message));
            }
        });
        vscode.postMessage({ command: 'ready' });
    }

    if (typeof module === 'object' && module.exports) {
        module.exports = api;
    } else {
        root.gldbgHistory = api;
        if (typeof acquireVsCodeApi === 'function') {
            startUI(acquireVsCodeApi(), root.document, root); // eslint-disable-line no-undef
        }
    }
})(typeof window !== 'undefined' ? window : globalThis);

//! glsl-lang-pp fails on an `#extension` its registry
//! (`glsl_lang_pp::exts::DEFAULT_REGISTRY`) does not list, even with
//! `enable` or `warn`, where a compiler only warns. Those lines are
//! blanked before the first parse and written back after `#version`.

use std::collections::{HashMap, HashSet};

use crate::parse::placeholder::fresh_placeholder;
use crate::parse::tokens::replace_word;

/// Blank out `#extension` lines naming extensions missing from glsl-lang's
/// registry (it fails on them even with `enable`), keeping every byte
/// offset. Returns the edited source and the removed lines.
///
/// A driver defines the macro of each extension it supports, and the
/// shader compiled there, so `#ifdef GL_X` must hold for the extensions it
/// enables. glsl-lang's preprocessor refuses `#define GL_...`, so the name
/// is renamed: the blanked line becomes `#define _pqr 1` with `_pqr` a
/// placeholder of the same length, used for every other occurrence of
/// the name; `renames` (placeholder → name) restores it in the tree.
pub(crate) fn hide(
    src: &str,
    used: &HashSet<String>,
    renames: &mut HashMap<String, String>,
) -> (String, Vec<String>, Vec<String>) {
    use glsl_lang_pp::exts::{DEFAULT_REGISTRY, names::ExtNameAtom};
    let mut out = String::with_capacity(src.len());
    let mut lines = Vec::new();
    let mut names = Vec::new();
    let mut by_text = HashMap::new();
    let mut next_per_len = HashMap::new();
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        let name = t
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("extension"))
            .and_then(|r| {
                let r = r.trim_start();
                let end = r
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(r.len());
                (end > 0).then(|| &r[..end])
            });
        match name {
            Some(n) if n != "all" && DEFAULT_REGISTRY.get(&ExtNameAtom::from(n)).is_none() => {
                lines.push(line.trim_end().to_string());
                let enabled = !line.contains(": disable") && !line.contains(":disable");
                let mut define = String::new();
                if enabled
                    && !names.iter().any(|x| x == n)
                    && let Some(p) = fresh_placeholder(n, &mut by_text, &mut next_per_len, used)
                {
                    define = format!("#define {p} 1");
                    renames.insert(p, n.to_string());
                }
                if enabled {
                    names.push(n.to_string());
                }
                // Same byte length, so every offset still matches `src`.
                let body = line.trim_end_matches(['\n', '\r']);
                let fill = if define.len() <= body.len() {
                    define.as_str()
                } else {
                    ""
                };
                out.push_str(fill);
                out.extend(std::iter::repeat_n(' ', body.len() - fill.len()));
                out.push_str(&line[body.len()..]);
            }
            _ => out.push_str(line),
        }
    }
    for (p, n) in renames.iter() {
        out = replace_word(&out, n, p);
    }
    (out, lines, names)
}

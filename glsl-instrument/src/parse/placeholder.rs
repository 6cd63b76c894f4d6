//! Placeholder identifiers: a same-length, unused identifier standing for
//! a piece of text glsl-lang cannot read (a literal, an extension name, a
//! keyword used as a name), renamed back in the tree after parsing.

use std::collections::{HashMap, HashSet};

/// The placeholder identifier for `text` (same byte length, unused in the source).
pub(crate) fn fresh_placeholder(
    text: &str,
    by_text: &mut HashMap<String, String>,
    next_per_len: &mut HashMap<usize, usize>,
    used: &HashSet<String>,
) -> Option<String> {
    if let Some(name) = by_text.get(text) {
        return Some(name.clone());
    }
    let n = next_per_len.entry(text.len()).or_insert(0);
    loop {
        if candidate_exhausted(text.len(), *n) {
            return None;
        }
        let candidate = placeholder(text.len(), *n);
        *n += 1;
        if let Some(c) = candidate
            && !used.contains(&c)
        {
            by_text.insert(text.to_string(), c.clone());
            return Some(c);
        }
    }
}

/// The letters of [`PLACEHOLDER_CHARS`] (its first characters).
const LETTERS: usize = 52;

/// The characters after a placeholder's leading `_` (base 62).
const PLACEHOLDER_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The `n`-th identifier of byte length `len`: `_` then base-62 digits.
fn placeholder(len: usize, n: usize) -> Option<String> {
    // One character: a letter the source does not use.
    if len == 1 {
        return PLACEHOLDER_CHARS[..LETTERS]
            .get(n)
            .map(|c| (*c as char).to_string());
    }
    if len < 2 {
        return None;
    }
    let mut s = vec![b'_'; len];
    let mut k = n;
    for slot in s.iter_mut().skip(1).rev() {
        *slot = PLACEHOLDER_CHARS[k % PLACEHOLDER_CHARS.len()];
        k /= PLACEHOLDER_CHARS.len();
    }
    if k > 0 {
        return None;
    }
    // `__` is reserved; a leading `_` plus a digit is fine.
    Some(String::from_utf8(s).unwrap())
}

fn candidate_exhausted(len: usize, n: usize) -> bool {
    (len == 1 && n >= LETTERS)
        || len == 0
        || (len > 1 && len - 1 < 6 && n >= PLACEHOLDER_CHARS.len().pow((len - 1) as u32))
        || n > MAX_CANDIDATES
}

/// Placeholder candidates tried per length before giving up.
const MAX_CANDIDATES: usize = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_keep_the_length_and_skip_used_names() {
        let used: HashSet<String> = ["_a".to_string(), "a".to_string()].into();
        let (mut by_text, mut next) = (HashMap::new(), HashMap::new());
        assert_eq!(
            fresh_placeholder("xy", &mut by_text, &mut next, &used).as_deref(),
            Some("_b")
        );
        assert_eq!(
            fresh_placeholder("xy", &mut by_text, &mut next, &used).as_deref(),
            Some("_b")
        );
        assert_eq!(
            fresh_placeholder("S", &mut by_text, &mut next, &used).as_deref(),
            Some("b")
        );
        assert_eq!(placeholder(4, 0).as_deref(), Some("_aaa"));
        assert!(placeholder(2, 62).is_none());
        assert!(candidate_exhausted(2, 62) && !candidate_exhausted(2, 61));
    }
}

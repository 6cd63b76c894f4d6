//! Identifiers of a text and the generator of names unused in a shader.

use std::collections::HashSet;

/// Every identifier-like word of `text`.
pub(crate) fn words(text: &str, into: &mut HashSet<String>) {
    let mut cur = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            cur.push(c);
        } else if !cur.is_empty() {
            if !cur.as_bytes()[0].is_ascii_digit() {
                into.insert(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
        }
    }
}

/// Generator of names not used anywhere in the shader.
pub(crate) struct Names {
    used: HashSet<String>,
}

impl Names {
    pub fn new(used: &HashSet<String>) -> Names {
        Names { used: used.clone() }
    }

    /// `base` if free, else `base_1`, `base_2`, ...; reserves the result.
    pub fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_fresh() {
        let mut used = HashSet::new();
        words("float gldbg_v; int x2 = 3;", &mut used);
        let mut n = Names::new(&used);
        assert_eq!(n.fresh("gldbg_v"), "gldbg_v_1");
        assert_eq!(n.fresh("gldbg_v"), "gldbg_v_2");
        assert_eq!(n.fresh("gldbg_c"), "gldbg_c");
    }
}

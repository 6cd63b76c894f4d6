//! The layout of what a step reads back into the shared memory: values
//! as `vec4`s of 32-bit words, coverage as one word per invocation (0.0:
//! not reached, else the probe's type code) on the GPU and one byte in the
//! shared memory.

/// One value: four 32-bit words.
pub(crate) const VALUE_BYTES: usize = 16;
/// One coverage word on the GPU (a `float`: 0.0 or the type code).
pub(crate) const COVERAGE_WORD: usize = 4;

/// Coverage words (0.0: not reached, else the type code, one for the
/// whole probe) as one byte per invocation in `out`, in a loop the
/// compiler vectorises (nonzero bits but the sign: reached); returns the
/// code.
pub(crate) fn coverage_bytes(words: &[u8], out: &mut [u8]) -> u32 {
    let (words, _) = words.as_chunks::<COVERAGE_WORD>();
    for (reached, word) in out.iter_mut().zip(words) {
        *reached = u8::from(u32::from_ne_bytes(*word) << 1 != 0);
    }
    out.iter()
        .position(|&r| r != 0)
        .map_or(0, |i| f32::from_ne_bytes(words[i]) as u32)
}

#[cfg(test)]
mod tests {
    use super::coverage_bytes;

    #[test]
    fn coverage_words_become_bytes_and_the_code() {
        let words: Vec<u8> = [0.0f32, 3.0, -0.0, 3.0]
            .iter()
            .flat_map(|w| w.to_ne_bytes())
            .collect();
        let mut out = [9u8; 4];
        assert_eq!(coverage_bytes(&words, &mut out), 3);
        assert_eq!(out, [0, 1, 0, 1]);
    }
}

//! The recorded run of the focused invocation (issue 14): the events of
//! its trace, in order, each with its dynamic position and the values of
//! the variables in scope before its step; where the recording ended; and
//! how a debugger moves through it, forwards and backwards, without a
//! replay. Recording (the shader, the replay) is `traced.rs`'s; decoding
//! the records is `decode.rs`'s; reading a value out of an event is
//! `values.rs`'s.

mod decode;
mod values;

use glsl_instrument::{ShaderModel, Trace as TraceShader, TraceLayout};

pub use decode::{Decoder, Defined, Event};

use super::TraceData;
use crate::error::{Error, Result};

/// How much one recording may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Records per recording.
    pub records: u32,
    /// Bytes of record data per recording.
    pub bytes: u64,
}

/// The least `GL_MAX_SHADER_STORAGE_BLOCK_SIZE` GL 4.3 allows: a default
/// budget within it works on every driver (the block adds its 16-byte
/// header to the record bytes).
const MIN_BLOCK_BYTES: u64 = 1 << 24;

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            records: 1 << 20,
            bytes: MIN_BLOCK_BYTES - 16,
        }
    }
}

impl Budget {
    /// Words of record data the trace buffer holds.
    pub fn capacity_words(&self) -> u32 {
        u32::try_from(self.bytes / 4).unwrap_or(u32::MAX)
    }
}

/// A recorded run.
pub struct Trace {
    /// The trace shader's layout (the same for every part).
    pub layout: TraceLayout,
    /// Its storage block name.
    pub block: String,
    /// The GLSL predicate that picks the focused invocation.
    pub predicate: String,
    /// The step events, in the order the invocation ran them.
    pub events: Vec<Event>,
    /// The end of `main` (values after its last statement or a `return`),
    /// once recorded; `None` before, or for an invocation that never got
    /// there (a discarded fragment).
    pub end: Option<Event>,
    /// The entry record's values (inputs, uniforms, built-ins).
    pub entry: Option<std::ops::Range<usize>>,
    /// Every event's value words.
    pub words: Vec<u32>,
    /// Records the invocation ran, as the last recording counted them.
    pub records: u32,
    /// Invocations the predicate held for (a pixel covered twice: 2).
    pub hits: u32,
    decoder: Decoder,
}

impl Trace {
    /// A trace of one recording's `data` made by `shader`.
    pub fn new(
        model: &ShaderModel,
        shader: TraceShader,
        predicate: String,
        data: TraceData,
    ) -> Result<Trace> {
        let mut t = Trace {
            layout: shader.layout,
            block: shader.block,
            predicate,
            events: Vec::new(),
            end: None,
            entry: None,
            words: Vec::new(),
            records: 0,
            hits: 0,
            decoder: Decoder::default(),
        };
        t.append(model, data)?;
        Ok(t)
    }

    /// Add the next recording's records (recorded from [`Trace::recorded`] on).
    pub fn append(&mut self, model: &ShaderModel, data: TraceData) -> Result<()> {
        let part = self
            .decoder
            .decode(model, &self.layout, &data.words, &mut self.words)
            .map_err(|e| Error::Internal(format!("the trace cannot be read: {e}")))?;
        self.events.extend(part.events);
        if part.end.is_some() {
            self.end = part.end;
        }
        if part.entry.is_some() {
            self.entry = part.entry;
        }
        self.records = data.records;
        self.hits = data.hits;
        Ok(())
    }

    /// Records read so far: where the next recording starts.
    pub fn recorded(&self) -> u32 {
        self.decoder.next_index
    }

    /// Whether the run goes on past the last recorded record.
    pub fn truncated(&self) -> bool {
        self.recorded() < self.records
    }

    /// The call depth of event `i` (main: 0).
    pub fn depth(&self, i: usize) -> usize {
        self.events[i].pos.calls.len()
    }

    /// The event of the activation `level` frames above event `i`'s (0:
    /// event `i` itself): the call site's event in the caller, the last
    /// event before `i` in that activation.
    pub fn frame_event(&self, i: usize, level: usize) -> Option<usize> {
        let depth = self.events.get(i)?.pos.calls.len();
        let want = depth.checked_sub(level)?;
        if level == 0 {
            return Some(i);
        }
        let calls = &self.events[i].pos.calls[..want];
        (0..i)
            .rev()
            .find(|&j| self.events[j].pos.calls.as_slice() == calls)
    }
}

#[cfg(test)]
mod tests;

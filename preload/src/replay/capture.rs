//! The buffer vertex, tess and geometry steps capture into with transform
//! feedback, kept per context and reused from step to step: allocating
//! megabytes of GPU memory at every step and freeing them after costs more
//! than reading them.
//!
//! In a compatibility context an app may bind names it never generated
//! (old code binds buffer 1, 2, 3 as it likes), and a name of ours kept
//! between steps would then be shared with it: there the buffer lives for
//! one step only, as before.
//!
//! Measured on an H100 at 1M vertices (bench d, a step's 4 MB): mapping
//! this buffer after the replay took 5.4-6.2 ms, the 5.0 ms replay
//! included; copying it into a persistently mapped client-storage buffer
//! first and reading that after a fence, 5.3-5.5 ms. Too little for a path
//! only GL 4.5 has: the map, which every context has (GL ES included), is
//! the one taken.

use std::sync::Mutex;

use super::error::Error;
use crate::gl;

/// One context's capture buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Capture {
    context: u64,
    buffer: u32,
    size: usize,
    /// Kept for the next step (not in a compatibility context).
    kept: bool,
}

static CAPTURES: Mutex<Vec<Capture>> = Mutex::new(Vec::new());
/// Contexts whose buffers are kept: the oldest go.
const CAPTURES_MAX: usize = 4;
/// Sizes grow in steps of this, so a draw slightly larger than the last
/// one does not reallocate.
const GRANULE: usize = 1 << 20;

impl Capture {
    /// This context's capture buffer of at least `size` bytes, bound at
    /// `GL_TRANSFORM_FEEDBACK_BUFFER` and at its index 0 (the caller's
    /// `Saved` restores both), its first `size` bytes set to `fill` where
    /// given (a sentinel that ends a capture of unknown length).
    pub(crate) fn bind(context: u64, size: usize, fill: Option<u8>) -> Result<Capture, Error> {
        let Ok(mut all) = CAPTURES.lock() else {
            return Err(Error::Poisoned("capture"));
        };
        let mine = all.iter().position(|c| c.context == context);
        let reuse = mine.map(|i| all.remove(i)).filter(|c| {
            let ours = c.still_ours();
            if ours && c.size < size {
                gl::delete_buffer(c.buffer);
            }
            ours && c.size >= size
        });
        let capture = match reuse {
            Some(c) => c, // bound by `still_ours`
            None => {
                let c = Capture {
                    context,
                    buffer: gl::gen_buffer(),
                    size: size.div_ceil(GRANULE) * GRANULE,
                    kept: !super::context::compatibility_context(),
                };
                gl::bind_buffer(gl::TRANSFORM_FEEDBACK_BUFFER, c.buffer);
                gl::buffer_data_uninit(
                    gl::TRANSFORM_FEEDBACK_BUFFER,
                    c.size as i64,
                    gl::STREAM_READ,
                );
                c
            }
        };
        if all.len() >= CAPTURES_MAX {
            // Another context's: its names mean nothing here, let them go with it.
            all.remove(0);
        }
        all.push(capture);
        if let Some(byte) = fill {
            gl::buffer_sub_data(gl::TRANSFORM_FEEDBACK_BUFFER, 0, &vec![byte; size]);
        }
        gl::bind_buffer_base(gl::TRANSFORM_FEEDBACK_BUFFER, 0, capture.buffer);
        Ok(capture)
    }

    /// Whether the buffer is still the one we made, bound at
    /// `GL_TRANSFORM_FEEDBACK_BUFFER` to look: the app may have deleted
    /// the name and made its own, or the context may be a new one at the
    /// old one's address.
    fn still_ours(&self) -> bool {
        gl::is_buffer(self.buffer) && {
            gl::bind_buffer(gl::TRANSFORM_FEEDBACK_BUFFER, self.buffer);
            gl::buffer_size(gl::TRANSFORM_FEEDBACK_BUFFER) == self.size as i64
                && gl::buffer_usage(gl::TRANSFORM_FEEDBACK_BUFFER) == gl::STREAM_READ
        }
    }

    /// End this context's step: a buffer not kept is deleted.
    pub(crate) fn end_step(context: u64) {
        let Ok(mut all) = CAPTURES.lock() else { return };
        if let Some(i) = all.iter().position(|c| c.context == context && !c.kept) {
            gl::delete_buffer(all.remove(i).buffer);
        }
    }

    /// The buffer's name (a point or summary readback reads it in place).
    pub(crate) fn buffer(&self) -> u32 {
        self.buffer
    }

    /// Run `f` over the first `len` bytes captured (the buffer must still
    /// be bound at `GL_TRANSFORM_FEEDBACK_BUFFER`); `None` when they cannot
    /// be mapped.
    pub(crate) fn read<T>(&self, len: usize, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
        gl::with_mapped(gl::TRANSFORM_FEEDBACK_BUFFER, len.min(self.size), f)
    }
}

//! memcheck's armed runs' findings blocks (`memcheck_armed.rs`): small
//! buffers of ours, one per run until the run is read, then kept free for
//! the next runs of their context (a pool per thread).
//!
//! Where the context can (GL 4.4, `GL_ARB_buffer_storage`,
//! `GL_EXT_buffer_storage`), a block has immutable storage mapped
//! persistently and coherently: after its run's fence passed it is read,
//! and zeroed for the next run, through the mapping, with no GL call that
//! flushes or waits. (`glGetBufferSubData` of each block cost about 30 µs
//! a run on NVIDIA's driver, and flushed the app's commands: the GPU then
//! stood idle while the next dispatch was prepared.) Elsewhere a block is
//! read with `glGetBufferSubData` (GL ES: mapped for the read) and the run
//! zeroes it first (`Trace::bind`).
//!
//! Only the header is read when it says nothing was found: the checked
//! shader counts the records it claims in header word
//! [`CLAIMED_WORD`] (glsl-instrument's `memcheck::CLAIMED_WORD`).
//!
//! The app may delete names it never made: before a block is used or read,
//! GL is asked that the name is still our buffer of its size (and, mapped,
//! still mapped as we mapped it); a block that is not is dropped.

use core::cell::RefCell;

use crate::gl;

use super::context::{gl_at_least, is_es};

/// A findings block of ours in `context`: `buffer`, `bytes` long; mapped
/// persistently or not.
#[derive(Clone, Copy)]
pub(super) struct Block {
    pub(super) context: u64,
    pub(super) buffer: u32,
    pub(super) bytes: usize,
    pub(super) mapped: bool,
}

impl Block {
    /// Whether the block is all zeros as handed out ([`take`]): a mapped
    /// one is zeroed through its mapping; another is zeroed by its run.
    pub(super) fn zeroed(&self) -> bool {
        self.mapped
    }
}

/// The findings block's header words (glsl-instrument's
/// `memcheck::HEADER_WORDS`: the dispatch's sizes, the records claimed);
/// the records follow.
const HEADER_WORDS: usize = 8;
/// The header word counting the records the shader claimed.
const CLAIMED_WORD: usize = 6;
/// A mapped block's storage flags, and its mapping's access: read, write,
/// persistent, coherent.
const FLAGS: u32 =
    gl::MAP_READ_BIT | gl::MAP_WRITE_BIT | gl::MAP_PERSISTENT_BIT | gl::MAP_COHERENT_BIT;
/// Blocks kept free per thread.
const FREE_MAX: usize = 32;

thread_local! {
    /// Blocks read and free for the next runs (zeroed where mapped).
    static FREE: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// A block of `bytes` for a run in `context`: a free one of the context's
/// that is still ours, or a new one (bound at `GL_COPY_WRITE_BUFFER` to
/// make it; that binding put back). The caller holds the app's errors;
/// None when GL failed.
pub(super) fn take(context: u64, bytes: usize) -> Option<Block> {
    let reuse = FREE
        .try_with(|f| {
            let mut f = f.borrow_mut();
            let i = f
                .iter()
                .position(|b| b.context == context && b.bytes == bytes)?;
            Some(f.remove(i))
        })
        .ok()
        .flatten();
    let block = match reuse {
        Some(b) if still_ours(&b) => b,
        _ => {
            let write = gl::get_i(gl::COPY_WRITE_BUFFER) as u32;
            let b = make(context, bytes);
            gl::bind_buffer(gl::COPY_WRITE_BUFFER, write);
            b
        }
    };
    (crate::intercept::errors::drain_own_errors() == 0).then_some(block)
}

/// A new block, bound at `GL_COPY_WRITE_BUFFER`: mapped and zeroed where
/// the context has buffer storage.
fn make(context: u64, bytes: usize) -> Block {
    let mut buffer = gl::gen_buffer();
    gl::bind_buffer(gl::COPY_WRITE_BUFFER, buffer);
    let es = is_es();
    let mapped = persistent_maps(es)
        && gl::buffer_storage(gl::COPY_WRITE_BUFFER, bytes as i64, FLAGS, es)
        && gl::map_persistent(gl::COPY_WRITE_BUFFER, bytes, FLAGS)
        && gl::with_persistent_map(gl::COPY_WRITE_BUFFER, bytes, FLAGS, |m| m.fill(0)).is_some();
    if !mapped {
        // Storage may have been made immutable: start again.
        gl::delete_buffer(buffer);
        crate::intercept::errors::drain_own_errors();
        buffer = gl::gen_buffer();
        gl::bind_buffer(gl::COPY_WRITE_BUFFER, buffer);
        gl::buffer_data_uninit(gl::COPY_WRITE_BUFFER, bytes as i64, gl::DYNAMIC_READ);
    }
    Block {
        context,
        buffer,
        bytes,
        mapped,
    }
}

/// Whether the context can map a buffer persistently (never with
/// `GLDBG_MEMCHECK_NO_PERSISTENT_MAPS` set: the tests' way to the other
/// path).
fn persistent_maps(es: bool) -> bool {
    if std::env::var_os("GLDBG_MEMCHECK_NO_PERSISTENT_MAPS").is_some() {
        return false;
    }
    match es {
        true => gl::has_extension("GL_EXT_buffer_storage"),
        false => gl_at_least(4, 4) || gl::has_extension("GL_ARB_buffer_storage"),
    }
}

/// Run `f` with block `b`'s buffer bound at `GL_COPY_READ_BUFFER` (that
/// binding put back); None when its name is no longer a buffer.
fn bound<T>(b: &Block, f: impl FnOnce() -> Option<T>) -> Option<T> {
    let read = gl::get_i(gl::COPY_READ_BUFFER) as u32;
    let r = gl::is_buffer(b.buffer)
        .then(|| {
            gl::bind_buffer(gl::COPY_READ_BUFFER, b.buffer);
            f()
        })
        .flatten();
    gl::bind_buffer(gl::COPY_READ_BUFFER, read);
    r
}

/// Run `f` over a mapped block's bytes, where it is still our buffer
/// mapped as we mapped it.
fn through_map<T>(b: &Block, f: impl FnOnce(&mut [u8]) -> T) -> Option<T> {
    bound(b, || {
        gl::with_persistent_map(gl::COPY_READ_BUFFER, b.bytes, FLAGS, f)
    })
}

/// Whether `b`'s name is still our buffer of its size (mapped as we
/// mapped it, where it is mapped).
fn still_ours(b: &Block) -> bool {
    match b.mapped {
        true => through_map(b, |_| ()).is_some(),
        false => bound(b, || {
            (gl::buffer_size(gl::COPY_READ_BUFFER) == b.bytes as i64).then_some(())
        })
        .is_some(),
    }
}

/// What a run's block holds, its run done (its fence passed): the whole
/// block where the header says something was found, else the header
/// alone; a mapped block is zeroed as far as it was read, for its next
/// run. None when the block is no longer ours (nothing is known). The
/// caller holds the app's errors.
pub(super) fn read(b: &Block) -> Option<Vec<u8>> {
    let header = (HEADER_WORDS * 4).min(b.bytes);
    if b.mapped {
        return through_map(b, |m| {
            let n = match found(&m[..header]) {
                true => m.len(),
                false => header,
            };
            let words = m[..n].to_vec();
            m[..n].fill(0);
            words
        });
    }
    bound(b, || {
        if gl::buffer_size(gl::COPY_READ_BUFFER) != b.bytes as i64 {
            return None;
        }
        let es = is_es();
        let mut words = vec![0u8; header];
        gl::get_buffer_bytes(gl::COPY_READ_BUFFER, &mut words, es);
        if found(&words) {
            words.resize(b.bytes, 0);
            let rest = &mut words[header..];
            gl::get_buffer_bytes_at(gl::COPY_READ_BUFFER, header as i64, rest, es);
        }
        Some(words)
    })
}

/// Whether a block's `header` says the shader claimed a record.
fn found(header: &[u8]) -> bool {
    let at = CLAIMED_WORD * 4;
    header.get(at..at + 4).is_some_and(|w| w != [0; 4])
}

/// Whether a block read (`read`'s bytes) holds a finding: a record's count
/// set past the header.
pub(super) fn holds_findings(words: &[u8]) -> bool {
    let header = HEADER_WORDS * 4;
    words.len() > header && words[header..].iter().any(|&b| b != 0)
}

/// A block read (zeroed by `read` where mapped) kept for the context's
/// next runs. (Armed runs are never made in a compatibility context,
/// where the app may bind a name of ours.)
pub(super) fn give_back(b: Block) {
    let _ = FREE.try_with(|f| {
        let mut f = f.borrow_mut();
        if f.len() >= FREE_MAX {
            gl::delete_buffer(f.remove(0).buffer);
        }
        f.push(b);
    });
}

//! The trace buffer of a debug step (ABI 12, issue 14): a trace shader
//! writes the run of one invocation into one std430 storage block `buffer
//! NAME { uint hits; uint records; uint words; uint full; uint data[]; }`
//! declared without a binding (glsl-instrument's `trace.rs`).
//!
//! For a request that names the block, [`Trace::plan`] finds it in the
//! linked debug program and places it at a storage binding no other block
//! of the program uses (`debug_blocks::place_one`); where the context
//! cannot (no program interface query, no storage blocks in the stage, no
//! block of that name) the reply says `TRACE_UNSUPPORTED` and the step
//! runs as usual. [`Trace::bind`] (after `ShaderWrites` copied the app's
//! buffers aside: ours is not one of them) binds a buffer of ours, kept
//! per context and grown when asked for more, its header zeroed, its range
//! exactly the header and the capacity asked for; the app's indexed and
//! generic storage bindings are put back when the [`Bound`] guard drops.
//! [`Trace::read`] reads the header and at most the capacity's words into
//! the bulk data area after the step's other data.

use std::sync::Mutex;

use gldbg_proto::shm::{self, BulkRef, TRACE_HEADER_WORDS, TraceReply, TraceRequest};

use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

use super::bulk::{Bulk, align8};
use super::context::{compatibility_context, is_es, program_interface_query};
use super::debug_blocks;
use super::error::Error;

/// A step's trace: what was asked and, once placed and bound, its buffer.
#[derive(Default)]
pub(crate) struct Trace {
    ask: TraceRequest,
    /// The debugged stage's GL shader type.
    stage: u32,
    /// The block's index in the debug program and its binding (planned).
    planned: Option<(u32, u32)>,
    bound: Option<Bound>,
    /// A buffer of the caller's to bind instead of the context's kept one
    /// (at least `bytes()` long; memcheck's armed runs, read later), and
    /// whether it is zeroed already (then `bind` leaves it as it is).
    into: Option<(u32, bool)>,
}

impl Trace {
    /// What the request `ask` of a step of `stage` asks for.
    pub(crate) fn new(ask: TraceRequest, stage: u32) -> Trace {
        Trace {
            ask,
            stage,
            ..Trace::default()
        }
    }

    /// As `new`, bound to the caller's `buffer` (it stays the caller's;
    /// `zeroed`: its bytes are all 0 already).
    pub(crate) fn into_buffer(
        ask: TraceRequest,
        stage: u32,
        (buffer, zeroed): (u32, bool),
    ) -> Trace {
        Trace {
            into: Some((buffer, zeroed)),
            ..Trace::new(ask, stage)
        }
    }

    /// The bytes the trace buffer must hold: its header, then the records.
    pub(crate) fn bytes_for(ask: &TraceRequest) -> usize {
        (TRACE_HEADER_WORDS + ask.capacity_words as usize) * 4
    }

    /// The block's name (empty: no trace asked for).
    pub(crate) fn block(&self, bulk: &Bulk) -> String {
        bulk.str(self.ask.block)
    }

    /// The block's index in the debug program `prog`, if planned.
    pub(crate) fn block_index(&self) -> Option<u32> {
        self.planned.map(|(index, _)| index)
    }

    /// Find the block in `prog` (current, the app's bindings and the debug
    /// pair placed) and place it; `reply.status` says `TRACE_UNSUPPORTED`
    /// where the context cannot.
    pub(crate) fn plan(
        &mut self,
        bulk: &Bulk,
        prog: u32,
        reply: &mut TraceReply,
    ) -> Result<(), Error> {
        let name = self.block(bulk);
        if name.is_empty() {
            return Ok(());
        }
        let index = match stage_blocks(self.stage) > 0 && program_interface_query() {
            true => gl::program_resource_index(prog, gl::SHADER_STORAGE_BLOCK, &name),
            false => u32::MAX,
        };
        check_gl("looking up the trace block")?;
        if index == u32::MAX {
            reply.status = shm::TRACE_UNSUPPORTED;
            return Ok(());
        }
        let bytes = self.bytes();
        let limit = gl::get_i(gl::MAX_SHADER_STORAGE_BLOCK_SIZE).max(0) as usize;
        if bytes > limit || bytes > shm::BULK_SIZE - shm::BULK_DATA {
            return Err(Error::TooMany(format!(
                "a trace of {} words (this context's storage blocks hold {limit} bytes)",
                self.ask.capacity_words
            )));
        }
        let binding = debug_blocks::place_one(prog, index)?;
        self.planned = Some((index, binding));
        Ok(())
    }

    /// Put the app's bindings back now (before the rest of its state).
    pub(crate) fn unbind(&mut self) {
        self.bound = None;
    }

    /// Bytes of the bound range: the header and the capacity.
    fn bytes(&self) -> usize {
        Trace::bytes_for(&self.ask)
    }

    /// Bind our buffer at the planned binding, its header zeroed (after
    /// the app's buffers were copied aside).
    pub(crate) fn bind(&mut self) -> Result<(), Error> {
        let Some((_, binding)) = self.planned else {
            return Ok(());
        };
        let saved = SavedBinding::capture(binding);
        let (buffer, zeroed) = match self.into {
            Some((b, zeroed)) => {
                gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, b);
                (b, zeroed)
            }
            None => (kept_buffer(self.bytes())?, false),
        };
        // Dropped (the app's bindings back) whatever happens next.
        self.bound = Some(Bound { saved, buffer });
        match (zeroed, self.ask.zero_data) {
            (true, _) => {}
            (false, 0) => {
                gl::buffer_sub_data(gl::SHADER_STORAGE_BUFFER, 0, &[0u8; TRACE_HEADER_WORDS * 4])
            }
            (false, _) => {
                gl::buffer_sub_data(gl::SHADER_STORAGE_BUFFER, 0, &vec![0u8; self.bytes()])
            }
        }
        let bytes = self.bytes() as i64;
        gl::bind_buffer_range(gl::SHADER_STORAGE_BUFFER, binding, buffer, 0, bytes);
        check_gl("binding the trace buffer")
    }

    /// After the replay: the header and the records into `reply`, the
    /// records at the first 8-byte boundary at or past `data_end` in the
    /// bulk region. A trace that does not fit fails the step.
    pub(crate) fn read(
        &mut self,
        bulk: &mut Bulk,
        data_end: usize,
        reply: &mut TraceReply,
    ) -> Result<(), Error> {
        let (Some(bound), Some((_, binding))) = (&self.bound, self.planned) else {
            return Ok(());
        };
        let es = is_es();
        gl::memory_barrier(gl::BUFFER_UPDATE_BARRIER_BIT);
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, bound.buffer);
        let mut header = [0u8; TRACE_HEADER_WORDS * 4];
        gl::get_buffer_bytes(gl::SHADER_STORAGE_BUFFER, &mut header, es);
        let (words, _) = header.as_chunks::<4>();
        let [hits, records, written, full] = [0, 1, 2, 3].map(|i| u32::from_ne_bytes(words[i]));
        // A zeroed block of atomics (`zero_data`) comes back whole; records,
        // as far as they were written.
        let n = match self.ask.zero_data {
            0 => written.min(self.ask.capacity_words),
            _ => self.ask.capacity_words,
        } as usize
            * 4;
        let at = align8(data_end.max(shm::BULK_DATA));
        let data = bulk.slice_mut(at, n).ok_or(Error::NoRoom(
            "the trace does not fit in the shared memory after the step's values",
        ))?;
        let offset = (TRACE_HEADER_WORDS * 4) as i64;
        gl::get_buffer_bytes_at(gl::SHADER_STORAGE_BUFFER, offset, data, es);
        check_gl("reading the trace buffer")?;
        *reply = TraceReply {
            status: shm::TRACE_OK,
            hits,
            records,
            words: written,
            full,
            binding,
            data: BulkRef::at(at, n),
        };
        Ok(())
    }
}

/// Fail with [`Error::Gl`] (`doing`) if our GL work raised an error (as
/// `pipeline.rs`'s `check_gl`, which uses this module).
fn check_gl(doing: &'static str) -> Result<(), Error> {
    match drain_own_errors() {
        0 => Ok(()),
        code => Err(Error::Gl { doing, code }),
    }
}

/// The storage blocks the context allows in shaders of `stage`.
fn stage_blocks(stage: u32) -> i32 {
    let pname = match stage {
        gl::VERTEX_SHADER => gl::MAX_VERTEX_SHADER_STORAGE_BLOCKS,
        gl::TESS_CONTROL_SHADER => gl::MAX_TESS_CONTROL_SHADER_STORAGE_BLOCKS,
        gl::TESS_EVALUATION_SHADER => gl::MAX_TESS_EVALUATION_SHADER_STORAGE_BLOCKS,
        gl::GEOMETRY_SHADER => gl::MAX_GEOMETRY_SHADER_STORAGE_BLOCKS,
        gl::FRAGMENT_SHADER => gl::MAX_FRAGMENT_SHADER_STORAGE_BLOCKS,
        gl::COMPUTE_SHADER => gl::MAX_COMPUTE_SHADER_STORAGE_BLOCKS,
        _ => return 0,
    };
    if !super::es::has_shader_writes() {
        return 0;
    }
    gl::get_i(pname)
}

/// Our trace buffer bound for one replay; the app's bindings it moved are
/// put back when dropped (the buffer stays, kept for the context).
struct Bound {
    saved: SavedBinding,
    buffer: u32,
}

impl Drop for Bound {
    fn drop(&mut self) {
        self.saved.restore();
        forget_unkept(self.buffer);
    }
}

/// The app's storage binding at one index (buffer, start, size) and its
/// generic storage buffer binding (a memcheck shadow's too).
pub(crate) struct SavedBinding {
    index: u32,
    indexed: (u32, i64, i64),
    generic: u32,
}

impl SavedBinding {
    pub(crate) fn capture(index: u32) -> SavedBinding {
        SavedBinding {
            index,
            indexed: (
                gl::get_i_indexed(gl::SHADER_STORAGE_BUFFER_BINDING, index) as u32,
                gl::get_i64_indexed(gl::SHADER_STORAGE_BUFFER_START, index),
                gl::get_i64_indexed(gl::SHADER_STORAGE_BUFFER_SIZE, index),
            ),
            generic: gl::get_i(gl::SHADER_STORAGE_BUFFER_BINDING) as u32,
        }
    }

    pub(crate) fn restore(&self) {
        let (buffer, start, size) = self.indexed;
        if buffer != 0 && size > 0 {
            gl::bind_buffer_range(gl::SHADER_STORAGE_BUFFER, self.index, buffer, start, size);
        } else {
            gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, self.index, buffer);
        }
        // Last: binding an indexed target also sets the generic binding.
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, self.generic);
    }
}

/// One context's trace buffer.
#[derive(Clone, Copy)]
struct Kept {
    context: u64,
    buffer: u32,
    size: usize,
    /// Kept for the next step (not in a compatibility context, where the
    /// app may bind names it never generated).
    kept: bool,
}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());
/// Contexts whose buffers are kept: the oldest go.
const KEPT_MAX: usize = 4;

/// This context's trace buffer of at least `size` bytes, bound at
/// `GL_SHADER_STORAGE_BUFFER` (the caller's guard restores that binding).
fn kept_buffer(size: usize) -> Result<u32, Error> {
    let context = crate::intercept::context::current_context();
    let Ok(mut all) = KEPT.lock() else {
        return Err(Error::Poisoned("trace buffer"));
    };
    let mine = all.iter().position(|k| k.context == context);
    let reuse = mine.map(|i| all.remove(i)).filter(|k| {
        let ours = still_ours(k);
        if ours && k.size < size {
            gl::delete_buffer(k.buffer);
        }
        ours && k.size >= size
    });
    let kept = match reuse {
        Some(k) => k, // bound by `still_ours`
        None => {
            let k = Kept {
                context,
                buffer: gl::gen_buffer(),
                size,
                kept: !compatibility_context(),
            };
            gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, k.buffer);
            gl::buffer_data_uninit(gl::SHADER_STORAGE_BUFFER, size as i64, gl::DYNAMIC_READ);
            k
        }
    };
    if all.len() >= KEPT_MAX {
        all.remove(0);
    }
    all.push(kept);
    Ok(kept.buffer)
}

/// Whether `k`'s buffer is still the one we made (bound at
/// `GL_SHADER_STORAGE_BUFFER` to look).
fn still_ours(k: &Kept) -> bool {
    gl::is_buffer(k.buffer) && {
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, k.buffer);
        gl::buffer_size(gl::SHADER_STORAGE_BUFFER) == k.size as i64
            && gl::buffer_usage(gl::SHADER_STORAGE_BUFFER) == gl::DYNAMIC_READ
    }
}

/// End of a step: a buffer not kept (compatibility context) is deleted.
fn forget_unkept(buffer: u32) {
    let Ok(mut all) = KEPT.lock() else { return };
    if let Some(i) = all.iter().position(|k| k.buffer == buffer && !k.kept) {
        gl::delete_buffer(all.remove(i).buffer);
    }
}

/// `CMD_RELEASE`: delete context `context`'s trace buffer (current); the
/// app's generic binding and GL errors stay as they were.
pub(crate) fn release(context: u64) {
    let mine = {
        let Ok(mut all) = KEPT.lock() else { return };
        let Some(i) = all.iter().position(|k| k.context == context) else {
            return;
        };
        all.remove(i)
    };
    hold_app_errors();
    let generic = gl::get_i(gl::SHADER_STORAGE_BUFFER_BINDING) as u32;
    if still_ours(&mine) {
        gl::delete_buffer(mine.buffer);
    }
    gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, generic);
    drain_own_errors();
}

//! One command's view of the bulk region of the shared mapping: the
//! request read, the reply and the data written. Its areas are mapped as
//! accesses need them (`crate::bulk`) and stay mapped while a [`Bulk`]
//! lives (it holds a lease).
//!
//! Soundness: one `Bulk` exists at a time in the process (the daemon runs
//! one command at a time; [`Bulk::get`] refuses a second), shared views
//! (`bytes`) borrow it, mutable views borrow it mutably, and several
//! mutable views at once come from [`Bulk::disjoint_mut`], which checks
//! that they do not overlap.

use core::sync::atomic::{AtomicBool, Ordering};

use gldbg_proto::shm::{self, BulkRef};

use super::error::Error;

/// Set while a [`Bulk`] lives.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The bulk region, for one command.
pub(crate) struct Bulk {
    lease: crate::bulk::Lease,
}

impl Drop for Bulk {
    fn drop(&mut self) {
        TAKEN.store(false, Ordering::Release);
    }
}

/// Round `x` up to 8 bytes (where a record after another starts).
pub(crate) fn align8(x: usize) -> usize {
    x.next_multiple_of(8)
}

/// Whether the ranges `(offset, len)` overlap pairwise nowhere (an empty
/// range overlaps nothing).
fn disjoint(ranges: &[(usize, usize)]) -> bool {
    ranges.iter().enumerate().all(|(i, &(a, alen))| {
        ranges[i + 1..].iter().all(|&(b, blen)| {
            alen == 0 || blen == 0 || a.saturating_add(alen) <= b || b.saturating_add(blen) <= a
        })
    })
}

/// Where each range `(offset, len)` starts, from `at`; an empty range gets
/// a dangling pointer without asking (`at` refuses an offset at an area's
/// end, and an empty view reads and writes nothing). None where `at` is.
fn starts<const N: usize>(
    ranges: &[(usize, usize); N],
    mut at: impl FnMut(usize, usize) -> Option<*mut u8>,
) -> Option<[*mut u8; N]> {
    let mut ptrs = [core::ptr::NonNull::<u8>::dangling().as_ptr(); N];
    for (p, &(off, len)) in ptrs.iter_mut().zip(ranges) {
        if len > 0 {
            *p = at(off, len)?;
        }
    }
    Some(ptrs)
}

impl Bulk {
    /// None without a session, while another command holds the region, or
    /// when the request and reply areas cannot be mapped (stderr says why).
    pub(crate) fn get() -> Option<Bulk> {
        crate::session::session()?;
        if TAKEN.swap(true, Ordering::Acquire) {
            return None;
        }
        let bulk = Bulk {
            lease: crate::bulk::lease(),
        };
        bulk.at(shm::BULK_REQUEST, 1)?;
        bulk.at(shm::BULK_REPLY, 1)?;
        Some(bulk)
    }

    /// A pointer to `len` bytes at `off`, if they are inside one area of
    /// the region and it can be mapped.
    fn at(&self, off: usize, len: usize) -> Option<*mut u8> {
        crate::session::bulk_window(&self.lease, off, len)
    }

    pub(crate) fn read<T: Copy + Default>(&self, off: usize) -> T {
        let Some(p) = self.at(off, size_of::<T>()) else {
            return T::default();
        };
        // SAFETY: mapped for size_of::<T>() bytes while the lease lives;
        // `T` is a plain #[repr(C)] Copy struct; unaligned read.
        unsafe { p.cast::<T>().read_unaligned() }
    }

    pub(crate) fn write<T: Copy>(&mut self, off: usize, v: &T) {
        if let Some(p) = self.at(off, size_of::<T>()) {
            // SAFETY: mapped (as above); no view of ours is alive (`&mut
            // self`); the daemon does not touch the reply while a command runs.
            unsafe { p.cast::<T>().write_unaligned(*v) }
        }
    }

    pub(crate) fn bytes(&self, r: BulkRef) -> &[u8] {
        let (off, len) = (r.offset as usize, r.len as usize);
        let Some(p) = self.at(off, len) else {
            return &[];
        };
        // SAFETY: mapped for `len` bytes while the lease (in self) lives; a
        // window stays mapped once grown out of; the daemon wrote the
        // request before the command; no mutable view is alive (`&self`).
        unsafe { core::slice::from_raw_parts(p, len) }
    }

    pub(crate) fn str(&self, r: BulkRef) -> String {
        String::from_utf8_lossy(self.bytes(r)).into_owned()
    }

    /// Mutable view of `len` bytes at `off` (None if out of bounds).
    pub(crate) fn slice_mut(&mut self, off: usize, len: usize) -> Option<&mut [u8]> {
        let [s] = self.disjoint_mut([(off, len)])?;
        Some(s)
    }

    /// Mutable views of several `(offset, len)` ranges at once; None if
    /// two overlap or one is out of bounds.
    pub(crate) fn disjoint_mut<const N: usize>(
        &mut self,
        ranges: [(usize, usize); N],
    ) -> Option<[&mut [u8]; N]> {
        if !disjoint(&ranges) {
            return None;
        }
        let ptrs = starts(&ranges, |off, len| {
            let p = self.at(off, len)?;
            crate::bulk::populate(&self.lease, off, len);
            Some(p)
        })?;
        Some(core::array::from_fn(|i| {
            // SAFETY: mapped for `ranges[i].1` bytes (or dangling, non-null
            // and aligned for an empty range) while the lease (in
            // self) lives; the ranges do not overlap (checked above) and
            // `&mut self` keeps every other view of ours away while these
            // live; only this thread writes the reply and data areas during
            // a command.
            unsafe { core::slice::from_raw_parts_mut(ptrs[i], ranges[i].1) }
        }))
    }

    /// Copy `data` to `off`, returning its `BulkRef` (empty if it does not fit).
    pub(crate) fn put(&mut self, off: usize, data: &[u8]) -> BulkRef {
        match self.slice_mut(off, data.len()) {
            Some(dst) => {
                dst.copy_from_slice(data);
                BulkRef::at(off, data.len())
            }
            None => BulkRef::default(),
        }
    }
}

/// The reply of a debug step command, written at `BULK_REPLY` with the
/// driver's log or the error text after it, and the step's timings.
pub(crate) trait StepReply: Copy + Default {
    fn log_mut(&mut self) -> &mut BulkRef;
    /// Whether the debug program came from the cache, and the nanoseconds
    /// spent building (or finding) it, replaying, and reading back.
    fn set_timing(&mut self, cached: bool, build_ns: u64, replay_ns: u64, readback_ns: u64);
    /// (ABI 12) What the trace buffer held.
    fn trace_mut(&mut self) -> &mut shm::TraceReply;
    /// The end of the data the reply refers to in the bulk region.
    fn data_end(&self) -> usize;
}

macro_rules! step_reply {
    ($($t:ty => [$($data:ident),*]),*) => {$(
        impl StepReply for $t {
            fn trace_mut(&mut self) -> &mut shm::TraceReply {
                &mut self.trace
            }
            fn data_end(&self) -> usize {
                [$(self.$data),*]
                    .iter()
                    .map(|r| r.offset as usize + r.len as usize)
                    .max()
                    .unwrap_or(0)
            }
            fn log_mut(&mut self) -> &mut BulkRef {
                &mut self.log
            }
            fn set_timing(&mut self, cached: bool, build_ns: u64, replay_ns: u64, readback_ns: u64) {
                self.cached = u32::from(cached);
                self.build_ns = build_ns;
                self.replay_ns = replay_ns;
                self.readback_ns = readback_ns;
            }
        }
    )*};
}
step_reply!(
    shm::FragmentStepReply => [values, coverage],
    shm::VertexStepReply => [values, coverage, emission],
    shm::ComputeStepReply => [values, coverage],
    shm::PixelHistoryReply => [passes],
    shm::MemcheckReply => [words, caps, needed, bindings]
);

/// Write a step's reply (with the failure's log, if it failed); returns the
/// command's status.
pub(crate) fn write_reply<R: StepReply>(
    bulk: &mut Bulk,
    mut reply: R,
    outcome: Result<(), Error>,
) -> u32 {
    let log_off = align8(shm::BULK_REPLY + size_of::<R>());
    let status = match outcome {
        Ok(()) => {
            *reply.log_mut() = BulkRef::default();
            shm::STATUS_OK
        }
        Err(e) => {
            *reply.log_mut() = bulk.put(log_off, e.to_string().as_bytes());
            e.status()
        }
    };
    bulk.write(shm::BULK_REPLY, &reply);
    status
}

#[cfg(test)]
mod tests {
    use super::{disjoint, starts};

    #[test]
    fn empty_views_do_not_ask_for_their_offset() {
        // An area of 16 bytes at 0, refusing (as `at` does) an offset at its end.
        let mut area = [0u8; 16];
        let base = area.as_mut_ptr();
        let asked = core::cell::RefCell::new(Vec::new());
        let at = |off: usize, len: usize| {
            asked.borrow_mut().push((off, len));
            (off < 16 && off + len <= 16).then(|| base.wrapping_add(off))
        };
        let got = starts(&[(0, 16), (16, 0)], at).expect("an empty view at the end");
        assert_eq!(got[0], base);
        assert!(!got[1].is_null());
        assert_eq!(*asked.borrow(), [(0, 16)]);
        // A range past the end is still refused.
        assert!(starts(&[(8, 16)], at).is_none());
    }

    #[test]
    fn overlapping_views_are_refused() {
        assert!(disjoint(&[(0, 16), (16, 4), (20, 100)]));
        assert!(!disjoint(&[(0, 16), (15, 4)]));
        assert!(!disjoint(&[(8, 4), (0, 100)]));
        assert!(!disjoint(&[(0, 4), (100, 4), (2, 1)]));
        // Empty ranges (a value not asked for) overlap nothing.
        assert!(disjoint(&[(0, 0), (0, 16)]));
        assert!(disjoint(&[(usize::MAX - 1, 4), (0, 4)]));
    }
}

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
//!
//! A [`Bulk::private`] one has the same layout in memory of this process
//! alone, of fixed sizes (it is not the one shared `Bulk`): memcheck's
//! armed runs (`memcheck_armed.rs`) run the command's step without a stop,
//! on a copy of the request the daemon once wrote, and keep the reply until
//! the daemon takes it.

use core::sync::atomic::{AtomicBool, Ordering};

use gldbg_proto::shm::{self, BulkRef};

use super::error::Error;

/// Set while a [`Bulk`] lives.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The bulk region, for one command.
pub(crate) struct Bulk {
    backing: Backing,
}

enum Backing {
    /// The shared region (the only one: `TAKEN`).
    Shared(crate::bulk::Lease),
    /// Memory of ours: per area of the region (request, reply, data) its
    /// first bytes, allocated once and never grown (views stay valid).
    Private([Area; 3]),
}

/// One private area: `len` bytes at `ptr` (from `Box::<[u8]>::into_raw`).
struct Area {
    ptr: *mut u8,
    len: usize,
}

impl Area {
    fn new(len: usize, from: &[u8]) -> Area {
        let mut bytes = vec![0u8; len.max(from.len())].into_boxed_slice();
        bytes[..from.len()].copy_from_slice(from);
        let len = bytes.len();
        Area {
            ptr: Box::into_raw(bytes).cast::<u8>(),
            len,
        }
    }
}

impl Drop for Area {
    fn drop(&mut self) {
        let bytes = core::ptr::slice_from_raw_parts_mut(self.ptr, self.len);
        // SAFETY: `ptr` and `len` are those of the boxed slice `new` leaked;
        // no view outlives the `Bulk` that owns this area.
        drop(unsafe { Box::from_raw(bytes) });
    }
}

// SAFETY: an `Area` alone owns its bytes (a boxed slice held by pointer).
unsafe impl Send for Area {}

impl Drop for Bulk {
    fn drop(&mut self) {
        if let Backing::Shared(_) = self.backing {
            TAKEN.store(false, Ordering::Release);
        }
    }
}

/// Where each of the region's areas starts and ends (`crate::bulk`'s).
const AREAS: [(usize, usize); 3] = [
    (shm::BULK_REQUEST, shm::BULK_REPLY),
    (shm::BULK_REPLY, shm::BULK_DATA),
    (shm::BULK_DATA, shm::BULK_SIZE),
];

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
            backing: Backing::Shared(crate::bulk::lease()),
        };
        bulk.at(shm::BULK_REQUEST, 1)?;
        bulk.at(shm::BULK_REPLY, 1)?;
        Some(bulk)
    }

    /// A bulk region of this process's own: the request area starts with
    /// `request`, the reply and data areas hold `reply` and `data` bytes
    /// (an access past them fails as an unmappable one does).
    pub(crate) fn private(request: &[u8], reply: usize, data: usize) -> Bulk {
        Bulk {
            backing: Backing::Private([
                Area::new(0, request),
                Area::new(reply, &[]),
                Area::new(data, &[]),
            ]),
        }
    }

    /// The request area's first `len` bytes (None: not all there).
    pub(crate) fn request_bytes(&self, len: usize) -> Option<&[u8]> {
        let p = self.at(shm::BULK_REQUEST, len)?;
        // SAFETY: `at` checked that the `len` bytes lie in one mapped or
        // allocated area; no mutable view is alive (`&self`).
        Some(unsafe { core::slice::from_raw_parts(p, len) })
    }

    /// A pointer to `len` bytes at `off`, if they are inside one area of
    /// the region and it can be mapped (a private one: was allocated).
    fn at(&self, off: usize, len: usize) -> Option<*mut u8> {
        match &self.backing {
            Backing::Shared(lease) => crate::session::bulk_window(lease, off, len),
            Backing::Private(areas) => {
                let i = AREAS
                    .iter()
                    .position(|&(start, end)| off >= start && off < end)?;
                let inside = off - AREAS[i].0;
                let fits = inside
                    .checked_add(len)
                    .is_some_and(|end| end <= areas[i].len);
                // SAFETY: `inside + len` bytes lie within the area's allocation.
                fits.then(|| unsafe { areas[i].ptr.add(inside) })
            }
        }
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
            if let Backing::Shared(lease) = &self.backing {
                crate::bulk::populate(lease, off, len);
            }
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

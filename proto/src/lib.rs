//! Every wire format of gldbg, written once and compiled by both sides.
//!
//! * [`api`]: the table of every wrapped GL/GLX/EGL function (generated from
//!   the Khronos registry by `build.rs`), the function ids used on the wire,
//!   GL enum names, and the hand-written classification (draw, frame end, ...).
//! * [`shm`]: the `#[repr(C)]` shared-memory ABI between the preload (inside
//!   the app) and the daemon: header, per-thread call slots, bulk region.
//! * [`pb`] (feature `grpc`): the gRPC `Debugger` service (tonic/prost),
//!   with [`codec`]: prost's codec, a malformed message INVALID_ARGUMENT.
//!
//! **Architecture invariant:** this crate holds data layouts and tables only;
//! no IO, no GL, no policy. Without the `grpc` feature it has no dependencies,
//! so the preload can use it.

pub mod api;
#[cfg(feature = "grpc")]
pub mod codec;
pub mod shm;

#[cfg(feature = "grpc")]
pub mod pb {
    //! Generated protobuf/tonic code for `proto/gldbg.proto`.
    #![allow(clippy::all, missing_docs)]
    tonic::include_proto!("gldbg.v1");

    /// Encoded file descriptor set, for gRPC reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/gldbg_descriptor.bin"));
}

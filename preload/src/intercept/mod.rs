//! The app's view: everything that stands between the app and its GL/GLX/EGL
//! libraries while it runs. The generated wrappers (`crate::generated`)
//! reach real functions through [`resolve`] (and [`loader`], the `dlopen`
//! interception) and hooked functions through [`hooks`], which hands them
//! to the bookkeeping of one concern each: [`queries`] (counting queries a
//! step splits), [`immediate`] (deferred `glBegin` ... `glEnd`), [`lists`]
//! (which draw calls draw), [`binary`] (program binaries), [`bindless`]
//! (texture handles in uniforms). [`errors`] holds the app's GL errors
//! back across our GL work; [`context`] names the current context.
//!
//! Nothing here does GL work of ours beyond that bookkeeping, and nothing
//! here uses `replay`: the replay reads this bookkeeping, never the reverse.

pub mod binary;
pub mod bindless;
pub mod context;
pub mod errors;
pub mod hooks;
pub mod immediate;
pub mod lists;
pub mod loader;
pub mod queries;
pub mod resolve;

//! The app's counting queries across a debug step.
//!
//! A replayed draw would add to an active occlusion, primitive, pipeline
//! statistics or timer query of the app, and GL cannot pause a query. So a step
//! *splits* it: it ends the app's query before the replay and begins a
//! query of its own after it, which counts the app's later work. Each
//! split is remembered ([`Split`]); the hooks of the query calls answer for
//! the app's query object as if it had never been split: results summed
//! (or OR-ed for boolean targets), availability only when every part is
//! available, `GL_CURRENT_QUERY` naming the app's object, and conditional
//! rendering on a part whose result decides like the whole.
//!
//! Until the first split no hook does anything but forward the call.
//! `GL_TIMESTAMP` is a point in time, not a count: nothing to split.

use super::errors::{drain_own_errors, hold_app_errors};
use crate::generated::invoke;
use crate::gl;
use gldbg_proto::api::FUNCTIONS;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Targets a replay counts into: (target, boolean result). A timer query
/// is split too: the app's elapsed time is its own work's, not the replays'.
const COUNTING: [(u32, bool); 18] = [
    (0x88BF, false), // GL_TIME_ELAPSED
    (0x8914, false), // GL_SAMPLES_PASSED
    (0x8C2F, true),  // GL_ANY_SAMPLES_PASSED
    (0x8D6A, true),  // GL_ANY_SAMPLES_PASSED_CONSERVATIVE
    (0x8C87, false), // GL_PRIMITIVES_GENERATED
    (0x8C88, false), // GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN
    (0x82EC, true),  // GL_TRANSFORM_FEEDBACK_OVERFLOW
    (0x82ED, true),  // GL_TRANSFORM_FEEDBACK_STREAM_OVERFLOW
    (0x82EE, false), // GL_VERTICES_SUBMITTED
    (0x82EF, false), // GL_PRIMITIVES_SUBMITTED
    (0x82F0, false), // GL_VERTEX_SHADER_INVOCATIONS
    (0x82F1, false), // GL_TESS_CONTROL_SHADER_PATCHES
    (0x82F2, false), // GL_TESS_EVALUATION_SHADER_INVOCATIONS
    (0x82F3, false), // GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED
    (0x82F4, false), // GL_FRAGMENT_SHADER_INVOCATIONS
    (0x82F5, false), // GL_COMPUTE_SHADER_INVOCATIONS
    (0x82F6, false), // GL_CLIPPING_INPUT_PRIMITIVES
    (0x82F7, false), // GL_CLIPPING_OUTPUT_PRIMITIVES
];

/// Targets with one query per vertex stream (GL 4.0).
fn streams(target: u32) -> u32 {
    match target {
        0x8C87 | 0x8C88 | 0x82ED => 4,
        _ => 1,
    }
}

fn boolean(target: u32) -> bool {
    COUNTING.iter().any(|&(t, b)| t == target && b)
}

/// One app query a step split: the app's object holds the count up to the
/// first step, `parts` (ours, in order) the counts after each.
#[derive(Debug)]
struct Split {
    context: u64,
    app: u32,
    target: u32,
    index: u32,
    parts: Vec<u32>,
    /// The last part is still counting (the app has not ended its query).
    active: bool,
}

impl Split {
    fn objects(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(self.app).chain(self.parts.iter().copied())
    }
}

static SPLITS: Mutex<Vec<Split>> = Mutex::new(Vec::new());
/// Set at the first split: until then the hooks only forward.
static ANY_SPLIT: AtomicBool = AtomicBool::new(false);

/// The app's queries a step ended; [`Suspended::resume`] continues them.
#[must_use]
pub(crate) struct Suspended {
    context: u64,
    /// (target, stream, the app's query object)
    ended: Vec<(u32, u32, u32)>,
}

/// End every counting query active in the current context (call with the
/// app's errors held: a target the context lacks raises an error of ours).
pub(crate) fn suspend() -> Suspended {
    let context = crate::intercept::context::current_context();
    let mut ended = Vec::new();
    let splits = SPLITS.lock().unwrap_or_else(|e| e.into_inner());
    for &(target, _) in &COUNTING {
        for index in 0..streams(target) {
            let q = gl::current_query_indexed(target, index);
            if q == 0 {
                continue;
            }
            gl::end_query(target, index);
            // Already split by an earlier step: the part counting now stands for the app's query.
            let app = splits
                .iter()
                .find(|s| s.context == context && s.active && s.parts.last() == Some(&q))
                .map_or(q, |s| s.app);
            ended.push((target, index, app));
        }
    }
    drain_own_errors();
    Suspended { context, ended }
}

impl Suspended {
    /// Begin a query of ours for each ended one (after the replay: GL runs
    /// commands in order, so the replay is counted by neither).
    pub(crate) fn resume(&self) {
        if self.ended.is_empty() {
            return;
        }
        let mut splits = SPLITS.lock().unwrap_or_else(|e| e.into_inner());
        for &(target, index, app) in &self.ended {
            let part = gl::gen_query();
            gl::begin_query(target, index, part);
            match splits
                .iter_mut()
                .find(|s| s.context == self.context && s.app == app)
            {
                Some(s) => {
                    s.parts.push(part);
                    s.active = true;
                }
                None => splits.push(Split {
                    context: self.context,
                    app,
                    target,
                    index,
                    parts: vec![part],
                    active: true,
                }),
            }
        }
        ANY_SPLIT.store(true, Relaxed);
    }
}

/// The type a `glGetQuery[Buffer]Object*v` writes its result in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResultType {
    I32,
    U32,
    I64,
    U64,
}

/// What a query hook does for a function: the facts of its name, found
/// once per function id ([`kind_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QueryCall {
    /// `glBeginQuery[Indexed]`: the app's object is argument `object`.
    Begin {
        object: usize,
    },
    /// `glEndQuery[Indexed]`.
    End {
        indexed: bool,
    },
    Delete,
    /// `glGetQuery[Indexed]iv`: `pname` and the out-pointer at `at`, `at + 1`.
    GetQuery {
        at: usize,
    },
    GetObject(ResultType),
    GetBufferObject(ResultType),
    ConditionalRender,
    Forward,
}

/// The hook's view of a function name (ARB/EXT suffixes aside).
fn kind_of(name: &str) -> QueryCall {
    let name = name
        .strip_suffix("ARB")
        .or(name.strip_suffix("EXT"))
        .unwrap_or(name);
    let result = |name: &str| match name {
        n if n.ends_with("ui64v") => ResultType::U64,
        n if n.ends_with("i64v") => ResultType::I64,
        n if n.ends_with("uiv") => ResultType::U32,
        _ => ResultType::I32,
    };
    match name {
        "glBeginQuery" => QueryCall::Begin { object: 1 },
        "glBeginQueryIndexed" => QueryCall::Begin { object: 2 },
        "glEndQuery" => QueryCall::End { indexed: false },
        "glEndQueryIndexed" => QueryCall::End { indexed: true },
        "glDeleteQueries" => QueryCall::Delete,
        "glGetQueryiv" => QueryCall::GetQuery { at: 1 },
        "glGetQueryIndexediv" => QueryCall::GetQuery { at: 2 },
        "glGetQueryObjectiv"
        | "glGetQueryObjectuiv"
        | "glGetQueryObjecti64v"
        | "glGetQueryObjectui64v" => QueryCall::GetObject(result(name)),
        "glGetQueryBufferObjectiv"
        | "glGetQueryBufferObjectuiv"
        | "glGetQueryBufferObjecti64v"
        | "glGetQueryBufferObjectui64v" => QueryCall::GetBufferObject(result(name)),
        "glBeginConditionalRender" | "glBeginConditionalRenderNV" => QueryCall::ConditionalRender,
        _ => QueryCall::Forward,
    }
}

/// [`kind_of`] every function, by id (made at the first split).
static KINDS: std::sync::OnceLock<Box<[QueryCall]>> = std::sync::OnceLock::new();

/// The hook of every `class::QUERY` function.
pub fn call(id: u32, args: &[u64]) -> u64 {
    // SAFETY (every `invoke` in this module): the app's own call and
    // arguments, forwarded (with a query object of ours where one stands
    // for the app's).
    if !ANY_SPLIT.load(Relaxed) {
        return unsafe { invoke(id, args) };
    }
    let kinds = KINDS.get_or_init(|| FUNCTIONS.iter().map(|f| kind_of(f.name)).collect());
    let a = |i: usize| args.get(i).copied().unwrap_or(0);
    let context = crate::intercept::context::current_context();
    let mut splits = SPLITS.lock().unwrap_or_else(|e| e.into_inner());
    let find = |splits: &[Split], app: u32| {
        splits
            .iter()
            .position(|s| s.context == context && s.app == app)
    };
    match kinds[id as usize] {
        QueryCall::Begin { object } => {
            // The app reuses its object: the old split's counts are gone.
            if let Some(i) = find(&splits, a(object) as u32)
                && !splits[i].active
            {
                forget(splits.remove(i));
            }
            unsafe { invoke(id, args) }
        }
        QueryCall::End { indexed } => {
            let (target, index) = (a(0) as u32, if indexed { a(1) as u32 } else { 0 });
            for s in splits.iter_mut().filter(|s| {
                s.context == context && s.active && s.target == target && s.index == index
            }) {
                s.active = false;
            }
            unsafe { invoke(id, args) }
        }
        QueryCall::Delete => {
            delete(&mut splits, context, args);
            unsafe { invoke(id, args) }
        }
        QueryCall::GetQuery { at } => {
            let r = unsafe { invoke(id, args) };
            current_query(&splits, context, a(at) as u32, a(at + 1));
            r
        }
        QueryCall::GetObject(ty) => match find(&splits, a(0) as u32) {
            Some(i) => get_object(&splits[i], id, args, ty),
            None => unsafe { invoke(id, args) },
        },
        QueryCall::GetBufferObject(ty) => {
            let Some(i) = find(&splits, a(0) as u32) else {
                return unsafe { invoke(id, args) };
            };
            let (buffer, pname, offset) = (a(1) as u32, a(2) as u32, a(3));
            if let Some(Some(value)) = answer(&splits[i], pname, args, id) {
                hold_app_errors();
                gl::named_buffer_sub_data(buffer, offset as usize, &encode(ty, value));
                drain_own_errors();
            }
            0
        }
        QueryCall::ConditionalRender => {
            let (app, mode) = (a(0) as u32, u64::from(a(1) as u32));
            let Some(i) = find(&splits, app).filter(|&i| !splits[i].active) else {
                return unsafe { invoke(id, args) };
            };
            // Render iff the whole count is nonzero: a part with a nonzero
            // count decides so, and if none has one the app's own (zero) does.
            hold_app_errors();
            let decider = splits[i]
                .objects()
                .find(|&q| with_no_query_buffer(|| gl::query_object_u64(q, gl::QUERY_RESULT)) != 0)
                .unwrap_or(app);
            drain_own_errors();
            unsafe { invoke(id, &[decider as u64, mode]) }
        }
        QueryCall::Forward => unsafe { invoke(id, args) },
    }
}

/// `glDeleteQueries`: the splits of the deleted objects are forgotten (an
/// active one ended: ours stands in for it).
fn delete(splits: &mut Vec<Split>, context: u64, args: &[u64]) {
    let n = args.first().copied().unwrap_or(0) as i32;
    let ptr = args.get(1).copied().unwrap_or(0) as usize as *const u32;
    if n <= 0 || ptr.is_null() {
        return;
    }
    // SAFETY: the app passes `n` query names at `ptr`.
    let names = unsafe { std::slice::from_raw_parts(ptr, n as usize) };
    for &app in names {
        if let Some(i) = splits
            .iter()
            .position(|s| s.context == context && s.app == app)
        {
            let s = splits.remove(i);
            if s.active {
                // Deleting an active query ends it: ours stands in for it.
                hold_app_errors();
                gl::end_query(s.target, s.index);
                drain_own_errors();
            }
            forget(s);
        }
    }
}

/// After `glGetQuery[Indexed]iv` wrote `GL_CURRENT_QUERY` at `out`: the
/// app's object where our part stands for it.
fn current_query(splits: &[Split], context: u64, pname: u32, out: u64) {
    let out = out as usize as *mut i32;
    if pname != gl::CURRENT_QUERY || out.is_null() {
        return;
    }
    // SAFETY: GL just wrote one int there for the app.
    let cur = unsafe { out.read_unaligned() } as u32;
    if let Some(s) = splits
        .iter()
        .find(|s| s.context == context && s.active && s.parts.last() == Some(&cur))
    {
        // SAFETY: as above.
        unsafe { out.write_unaligned(s.app as i32) };
    }
}

/// `glGetQueryObject*v` of a split query: the combined answer, written
/// where the app asked (its pointer, or an offset into the bound query
/// buffer).
fn get_object(s: &Split, id: u32, args: &[u64], ty: ResultType) -> u64 {
    let (pname, out) = (
        args.get(1).copied().unwrap_or(0) as u32,
        args.get(2).copied().unwrap_or(0),
    );
    let Some(Some(value)) = answer(s, pname, args, id) else {
        return 0;
    };
    let bytes = encode(ty, value);
    hold_app_errors();
    let query_buffer = gl::get_i(gl::QUERY_BUFFER_BINDING) as u32;
    drain_own_errors();
    if query_buffer != 0 {
        // `out` is an offset into the bound query buffer.
        gl::buffer_sub_data(gl::QUERY_BUFFER, out as usize, &bytes);
    } else if out != 0 {
        // SAFETY: the app's out-pointer for this query's type.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), out as usize as *mut u8, bytes.len())
        };
    }
    0
}

/// The value of `pname` for a split query (outer `None`: the call was
/// forwarded to GL as it is, e.g. for an active query or another pname;
/// inner `None`: nothing to write, e.g. a result not yet available).
fn answer(s: &Split, pname: u32, args: &[u64], id: u32) -> Option<Option<u64>> {
    if s.active {
        // GL refuses results of an active query: ask about the part that
        // is active, so the app gets the error it would have got.
        let mut forwarded = args.to_vec();
        forwarded[0] = *s.parts.last()? as u64;
        // SAFETY: the app's call with our active part for its object.
        unsafe { invoke(id, &forwarded) };
        return None;
    }
    let all = |pname: u32| -> Vec<u64> {
        s.objects()
            .map(|q| with_no_query_buffer(|| gl::query_object_u64(q, pname)))
            .collect()
    };
    hold_app_errors();
    let value = match pname {
        gl::QUERY_RESULT => Some(Some(combine(s.target, &all(gl::QUERY_RESULT)))),
        gl::QUERY_RESULT_AVAILABLE => Some(Some(
            all(gl::QUERY_RESULT_AVAILABLE).iter().all(|&v| v != 0) as u64,
        )),
        gl::QUERY_RESULT_NO_WAIT => {
            let ready = all(gl::QUERY_RESULT_AVAILABLE).iter().all(|&v| v != 0);
            Some(ready.then(|| combine(s.target, &all(gl::QUERY_RESULT))))
        }
        _ => None,
    };
    drain_own_errors();
    if value.is_none() {
        // SAFETY: the app's own call (GL_QUERY_TARGET, ...), unchanged.
        unsafe { invoke(id, args) };
    }
    value
}

fn combine(target: u32, results: &[u64]) -> u64 {
    if boolean(target) {
        results.iter().any(|&v| v != 0) as u64
    } else {
        results.iter().fold(0u64, |a, &v| a.saturating_add(v))
    }
}

/// `value` in the result type `ty` (saturated where it does not fit, as
/// GL clamps).
fn encode(ty: ResultType, value: u64) -> Vec<u8> {
    match ty {
        ResultType::U64 => value.to_ne_bytes().to_vec(),
        ResultType::I64 => (value.min(i64::MAX as u64) as i64).to_ne_bytes().to_vec(),
        ResultType::U32 => (value.min(u32::MAX as u64) as u32).to_ne_bytes().to_vec(),
        ResultType::I32 => (value.min(i32::MAX as u64) as i32).to_ne_bytes().to_vec(),
    }
}

/// Run `f` with no `GL_QUERY_BUFFER` bound (else a query object read
/// writes into the app's buffer instead of our memory).
fn with_no_query_buffer<T>(f: impl FnOnce() -> T) -> T {
    let bound = gl::get_i(gl::QUERY_BUFFER_BINDING) as u32;
    if bound != 0 {
        gl::bind_buffer(gl::QUERY_BUFFER, 0);
    }
    let r = f();
    if bound != 0 {
        gl::bind_buffer(gl::QUERY_BUFFER, bound);
    }
    r
}

/// Delete a split's parts (its app object stays the app's).
fn forget(s: Split) {
    hold_app_errors();
    for q in s.parts {
        gl::delete_query(q);
    }
    drain_own_errors();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_and_booleans_or() {
        assert_eq!(combine(0x8914, &[512, 0, 30]), 542);
        assert_eq!(combine(0x8C2F, &[0, 0, 1]), 1);
        assert_eq!(combine(0x8C2F, &[0, 0]), 0);
        assert_eq!(combine(0x8C87, &[u64::MAX, 2]), u64::MAX);
    }

    #[test]
    fn results_take_the_callers_type_saturated() {
        let ty = |name: &str| match kind_of(name) {
            QueryCall::GetObject(ty) | QueryCall::GetBufferObject(ty) => ty,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(encode(ty("glGetQueryObjectuiv"), 7), 7u32.to_ne_bytes());
        assert_eq!(
            encode(ty("glGetQueryObjectiv"), 1 << 40),
            i32::MAX.to_ne_bytes()
        );
        assert_eq!(
            encode(ty("glGetQueryObjecti64vEXT"), u64::MAX),
            i64::MAX.to_ne_bytes()
        );
        assert_eq!(
            encode(ty("glGetQueryBufferObjectui64v"), 1 << 40),
            (1u64 << 40).to_ne_bytes()
        );
    }

    #[test]
    fn hooks_know_their_functions_by_id() {
        assert_eq!(kind_of("glBeginQueryARB"), QueryCall::Begin { object: 1 });
        assert_eq!(
            kind_of("glBeginQueryIndexed"),
            QueryCall::Begin { object: 2 }
        );
        assert_eq!(
            kind_of("glEndQueryIndexed"),
            QueryCall::End { indexed: true }
        );
        assert_eq!(
            kind_of("glGetQueryIndexediv"),
            QueryCall::GetQuery { at: 2 }
        );
        assert_eq!(
            kind_of("glBeginConditionalRenderNV"),
            QueryCall::ConditionalRender
        );
        assert_eq!(kind_of("glGenQueries"), QueryCall::Forward);
    }
}

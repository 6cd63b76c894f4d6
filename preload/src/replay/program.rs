//! Debug programs: compiled from the daemon's finished sources and linked
//! ([`link`]), and kept in one cache for every kind of step
//! ([`cached_or_build`]), keyed by (context, kind, app program, the
//! daemon's cache key); the oldest goes when it is full. A cached program
//! is used only while it is still ours: the app may delete a name, and a
//! new context may reuse a dead one's handle.

use std::sync::Mutex;

use gldbg_proto::shm::ShaderRef;

use crate::gl;

use super::bulk::Bulk;
use super::context::program_interface_query;
use super::debug_blocks::OUR_PREFIX;
use super::error::Error;

/// What a debug program is for (the cache keeps kinds apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The fragment step: two fragment outputs.
    Fragment,
    /// The vertex, tess-eval and geometry steps: captured varyings or
    /// storage blocks.
    Vertex,
    /// The compute and tess-control steps: storage blocks.
    Compute,
    /// A pixel history's draws (`history.rs`): the app's outputs and a
    /// record block.
    History,
    /// A memcheck call (`memcheck.rs`): the app's shader with its memory
    /// accesses checked, its findings block.
    Memcheck,
}

/// A linked debug program and, for a fragment step, where its two debug
/// outputs went (0 for other kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DebugProgram {
    pub(crate) program: u32,
    pub(crate) value_loc: u32,
    pub(crate) coverage_loc: u32,
}

impl DebugProgram {
    /// A program without fragment output locations.
    pub(crate) fn plain(program: u32) -> DebugProgram {
        DebugProgram {
            program,
            value_loc: 0,
            coverage_loc: 0,
        }
    }
}

/// What only a debug program of ours has, found by name: looked for before
/// a cached program is trusted and before one is deleted (a new context
/// may reuse a dead one's handle; the app's program may hold it now).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// The fragment step's value output, by name.
    Output(String),
    /// The vertex step's captured coverage varying, by name.
    Varying(String),
    /// A storage block with the instrumenter's prefix (steps writing blocks).
    Blocks,
    /// The storage block of this name (a memcheck program's findings block).
    Block(String),
    /// Nothing to look for by name (a `gl_FragData` output): linked.
    Linked,
}

impl Mark {
    /// Whether program `p` is linked and has the mark (where the context
    /// can tell: without program interface queries varyings are counted
    /// and blocks cannot be listed).
    pub(crate) fn found_in(&self, p: u32) -> bool {
        if !linked(p) {
            return false;
        }
        let query = program_interface_query();
        match self {
            Mark::Output(name) => gl::frag_data_location(p, name) >= 0,
            Mark::Varying(name) if query => {
                gl::program_resource_index(p, gl::TRANSFORM_FEEDBACK_VARYING, name) != u32::MAX
            }
            Mark::Varying(_) => gl::get_program_i(p, gl::TRANSFORM_FEEDBACK_VARYINGS) > 0,
            Mark::Blocks if query => {
                let n = gl::program_interface_i(p, gl::SHADER_STORAGE_BLOCK, gl::ACTIVE_RESOURCES)
                    .clamp(0, 4096) as u32;
                (0..n).any(|b| {
                    gl::program_resource_name(p, gl::SHADER_STORAGE_BLOCK, b)
                        .starts_with(OUR_PREFIX)
                })
            }
            Mark::Block(name) if query => {
                gl::program_resource_index(p, gl::SHADER_STORAGE_BLOCK, name) != u32::MAX
            }
            Mark::Blocks | Mark::Block(_) | Mark::Linked => true,
        }
    }
}

struct Entry {
    context: u64,
    kind: Kind,
    app: u32,
    key: u64,
    mark: Mark,
    program: DebugProgram,
}

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
/// Programs kept, all kinds and contexts together.
const CACHE_MAX: usize = 64;

/// The debug program of `kind` for the app's program `app` and the
/// daemon's cache `key` (0: never cached) in `context`: the cached one if
/// it has `mark` and `still_ours` says it is, else the one `build` makes
/// (then cached). Returns it and whether it came from the cache.
pub(crate) fn cached_or_build(
    context: u64,
    (kind, app, key): (Kind, u32, u64),
    (mark, still_ours): (&Mark, impl Fn(&DebugProgram) -> bool),
    build: impl FnOnce() -> Result<DebugProgram, Error>,
) -> Result<(DebugProgram, bool), Error> {
    let same = |e: &Entry| e.context == context && e.kind == kind && e.app == app && e.key == key;
    let ours = |p: &DebugProgram| mark.found_in(p.program) && still_ours(p);
    let found = CACHE
        .lock()
        .ok()
        .and_then(|c| c.iter().find(|e| same(e)).map(|e| e.program));
    if let Some(p) = found
        && key != 0
        && ours(&p)
    {
        return Ok((p, true));
    }
    let program = build()?;
    let Ok(mut c) = CACHE.lock() else {
        return Ok((program, false));
    };
    // Entries whose name the driver gave again to the new program were
    // deleted behind our back: they go, the name is not deleted.
    c.retain(|e| !(e.context == context && e.program.program == program.program));
    if let Some(i) = c.iter().position(same) {
        let old = c.remove(i);
        if ours(&old.program) {
            gl::delete_program(old.program.program);
        }
    }
    if c.len() >= CACHE_MAX {
        let old = c.remove(0);
        // Another context's names mean nothing here: let them go with it.
        // A name is deleted only while it still has its own kind's mark.
        if old.context == context && old.mark.found_in(old.program.program) {
            gl::delete_program(old.program.program);
        }
    }
    c.push(Entry {
        context,
        kind,
        app,
        key,
        mark: mark.clone(),
        program,
    });
    Ok((program, false))
}

/// Whether `p` names a linked program (the shaders of ours are detached
/// after linking: a live, linked program of that name is still ours,
/// since our names are never the app's).
pub(crate) fn linked(p: u32) -> bool {
    gl::is_program(p) && gl::get_program_i(p, gl::LINK_STATUS) != 0
}

/// Compile `sources` into a new program, let `before_link` bind what must
/// be bound before linking (attribute and output locations, captured
/// varyings), and link it. The shaders are detached and deleted either
/// way; on a failure the program too. Err: the driver's compile or link
/// log, or `before_link`'s error.
pub(crate) fn link(
    bulk: &Bulk,
    sources: &[ShaderRef],
    before_link: impl FnOnce(u32) -> Result<(), Error>,
) -> Result<u32, Error> {
    let prog = gl::create_program();
    let shaders = compile_attach(bulk, prog, sources)?;
    if let Err(e) = before_link(prog) {
        cleanup(prog, &shaders, true);
        return Err(e);
    }
    gl::link_program(prog);
    if gl::get_program_i(prog, gl::LINK_STATUS) == 0 {
        let log = gl::program_info_log(prog);
        cleanup(prog, &shaders, true);
        return Err(Error::Link(log));
    }
    cleanup(prog, &shaders, false);
    Ok(prog)
}

/// Detach and delete the shaders of a debug program; delete the program too
/// when `delete_program` (its build failed).
fn cleanup(prog: u32, shaders: &[u32], delete_program: bool) {
    for &s in shaders {
        gl::detach_shader(prog, s);
        gl::delete_shader(s);
    }
    if delete_program {
        gl::delete_program(prog);
    }
}

/// Compile the request's shaders and attach them to `prog`; on a compile
/// error, everything is deleted and the driver's log returned.
fn compile_attach(bulk: &Bulk, prog: u32, sources: &[ShaderRef]) -> Result<Vec<u32>, Error> {
    let mut shaders = Vec::new();
    for sr in sources {
        let s = gl::create_shader(sr.gl_type);
        gl::shader_source(s, bulk.bytes(sr.source));
        gl::compile_shader(s);
        shaders.push(s);
        gl::attach_shader(prog, s);
        if gl::get_shader_i(s, gl::COMPILE_STATUS) == 0 {
            let log = gl::shader_info_log(s);
            cleanup(prog, &shaders, true);
            return Err(Error::Compile {
                stage: stage_name(sr.gl_type),
                log,
            });
        }
    }
    Ok(shaders)
}

fn stage_name(ty: u32) -> &'static str {
    match ty {
        gl::VERTEX_SHADER => "vertex",
        gl::FRAGMENT_SHADER => "fragment",
        gl::GEOMETRY_SHADER => "geometry",
        gl::TESS_CONTROL_SHADER => "tessellation control",
        gl::TESS_EVALUATION_SHADER => "tessellation evaluation",
        gl::COMPUTE_SHADER => "compute",
        _ => "unknown",
    }
}

/// A compute program of ours from `source` (compiled, linked, the shader
/// deleted); 0 where it does not link. Our GL errors are drained.
pub(crate) fn compute_program(source: &str) -> u32 {
    let shader = gl::create_shader(gl::COMPUTE_SHADER);
    gl::shader_source(shader, source.as_bytes());
    gl::compile_shader(shader);
    let prog = gl::create_program();
    gl::attach_shader(prog, shader);
    gl::link_program(prog);
    gl::detach_shader(prog, shader);
    gl::delete_shader(shader);
    let linked = gl::get_program_i(prog, gl::LINK_STATUS) != 0;
    if crate::intercept::errors::drain_own_errors() != 0 || !linked {
        gl::delete_program(prog);
        return 0;
    }
    prog
}

/// A helper program of ours built once per context (the reduction's,
/// `reduce.rs`; the zero fill's, `zero_fill.rs`): per context its name, 0
/// where it cannot be built. Contexts remembered: the last few.
pub(crate) struct PerContext {
    all: std::sync::Mutex<Vec<(u64, u32)>>,
    /// A uniform of the program: a name that still has it is still ours.
    uniform: &'static str,
}

impl PerContext {
    pub(crate) const fn new(uniform: &'static str) -> PerContext {
        PerContext {
            all: std::sync::Mutex::new(Vec::new()),
            uniform,
        }
    }

    /// The current context's program, made by `build` (0: it cannot be)
    /// on first use; `None` where it cannot be built.
    pub(crate) fn get(&self, build: impl FnOnce() -> u32) -> Option<u32> {
        const CONTEXTS: usize = 8;
        let context = crate::intercept::context::current_context();
        let mut all = self.all.lock().ok()?;
        if let Some(i) = all.iter().position(|&(c, _)| c == context) {
            let p = all[i].1;
            // A context at a destroyed one's address, or a name the app reused.
            if p == 0 || (gl::is_program(p) && gl::uniform_location(p, self.uniform) >= 0) {
                return (p != 0).then_some(p);
            }
            all.remove(i);
        }
        let p = build();
        if all.len() >= CONTEXTS {
            all.remove(0);
        }
        all.push((context, p));
        (p != 0).then_some(p)
    }
}

//! The daemon's questions about the stopped thread's GL state: the
//! current program (`CMD_QUERY_PROGRAM`: its shaders, attributes,
//! uniforms with their values, outputs and sources) and state values
//! (`CMD_QUERY_STATE`). The app's pending errors are held for it; ours
//! are drained.

use gldbg_proto::shm::{self, ProgramReply};

use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

use super::bulk::{Bulk, align8};
use super::context::{has_context, is_es, program_interface_query};
use super::state::app_programs;

/// `CMD_QUERY_PROGRAM`: write a `ProgramReply` at `BULK_REPLY`.
pub fn query_program() -> u32 {
    let Some(mut bulk) = Bulk::get() else {
        return shm::STATUS_BULK_UNAVAILABLE;
    };
    let reply_off = shm::BULK_REPLY;
    let text_off = align8(reply_off + size_of::<ProgramReply>());
    if !has_context() {
        bulk.write(reply_off, &ProgramReply::default());
        return shm::STATUS_NO_CONTEXT;
    }
    hold_app_errors();
    let (current, pipeline, programs) = app_programs();
    let prog = programs.first().copied().unwrap_or(0);
    let mut text = Vec::new();
    let status = if prog == 0 {
        shm::STATUS_NO_PROGRAM
    } else {
        use std::io::Write as _;
        match super::context::es_version() {
            // A shader without `#version` is GLSL ES 1.00 here; ES 2 has
            // no float render target (packed fragment outputs, es2.rs).
            Some((2, _)) => _ = writeln!(text, "api\tes2"),
            Some(_) => _ = writeln!(text, "api\tes"),
            None => {}
        }
        if current == 0 {
            let _ = writeln!(text, "pipeline\t{pipeline}");
        }
        for p in programs {
            describe_program(p, &mut text);
        }
        shm::STATUS_OK
    };
    drain_own_errors();
    let r = bulk.put(text_off, &text);
    bulk.write(
        reply_off,
        &ProgramReply {
            program: prog,
            _pad: 0,
            text: r,
        },
    );
    status
}

/// Most array elements `info program` shows of a uniform array.
const UNIFORM_ELEMENTS_SHOWN: i32 = 16;

/// A uniform's current value; an array's elements as `[a, b, ...]` (the
/// first [`UNIFORM_ELEMENTS_SHOWN`]); empty when it has no location (a
/// block member) or a type this context cannot read.
fn uniform_values(prog: u32, name: &str, size: i32, ty: u32, loc: i32) -> String {
    if loc < 0 {
        return String::new();
    }
    let Some(base) = name.strip_suffix("[0]").filter(|_| size > 1) else {
        return gl::uniform_value(prog, loc, ty).unwrap_or_default();
    };
    let mut parts = Vec::new();
    for i in 0..size.min(UNIFORM_ELEMENTS_SHOWN) {
        let l = gl::uniform_location(prog, &format!("{base}[{i}]"));
        parts.push(
            match (l >= 0).then(|| gl::uniform_value(prog, l, ty)).flatten() {
                Some(v) => v,
                None => "?".into(),
            },
        );
    }
    if size > UNIFORM_ELEMENTS_SHOWN {
        parts.push(format!("... ({size} elements)"));
    }
    format!("[{}]", parts.join(", "))
}

fn describe_program(prog: u32, text: &mut Vec<u8>) {
    use std::io::Write as _;
    let _ = writeln!(text, "program\t{prog}");
    let shaders = gl::attached_shaders(prog);
    for &s in &shaders {
        let _ = writeln!(
            text,
            "shader\t{s}\t{}",
            gl::get_shader_i(s, gl::SHADER_TYPE)
        );
    }
    let n = gl::get_program_i(prog, gl::ACTIVE_ATTRIBUTES).max(0) as u32;
    let max = gl::get_program_i(prog, gl::ACTIVE_ATTRIBUTE_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, size, ty) = gl::active_variable(prog, i, true, max);
        let loc = gl::attrib_location(prog, &name);
        let _ = writeln!(text, "attribute\t{name}\t{ty}\t{size}\t{loc}");
    }
    let n = gl::get_program_i(prog, gl::ACTIVE_UNIFORMS).max(0) as u32;
    let max = gl::get_program_i(prog, gl::ACTIVE_UNIFORM_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, size, ty) = gl::active_variable(prog, i, false, max);
        let loc = gl::uniform_location(prog, &name);
        let value = uniform_values(prog, &name, size, ty, loc);
        let block = if loc < 0 {
            uniform_block_of(prog, i)
        } else {
            String::new()
        };
        let _ = writeln!(
            text,
            "uniform\t{name}\t{ty}\t{size}\t{loc}\t{value}\t{block}"
        );
    }
    if program_interface_query() {
        let n = gl::program_interface_i(prog, gl::PROGRAM_OUTPUT, gl::ACTIVE_RESOURCES).clamp(0, 64)
            as u32;
        for i in 0..n {
            let name = gl::program_resource_name(prog, gl::PROGRAM_OUTPUT, i);
            let loc = gl::program_resource_location(prog, gl::PROGRAM_OUTPUT, &name);
            let index = output_index(prog, &name);
            let _ = writeln!(text, "output\t{name}\t{loc}\t{index}");
        }
    }
    for &s in &shaders {
        let src = gl::shader_source_of(s);
        let _ = writeln!(text, "source\t{s}\t{}", src.len());
        text.extend_from_slice(&src);
        text.push(b'\n');
    }
}

/// "NAME, binding N" of the uniform block holding active uniform `index`,
/// empty where it is in the default block (ES 2 has no blocks, nor
/// glGetActiveUniformsiv to ask).
fn uniform_block_of(prog: u32, index: u32) -> String {
    if super::context::es_version().is_some_and(|v| v.0 < 3) {
        return String::new();
    }
    let b = gl::active_uniform_param(prog, index, gl::UNIFORM_BLOCK_INDEX);
    if b < 0 {
        return String::new();
    }
    let b = b as u32;
    let binding = gl::uniform_block_param(prog, b, gl::UNIFORM_BLOCK_BINDING);
    format!("{}, binding {binding}", gl::uniform_block_name(prog, b))
}

/// A fragment output's index (dual-source blending), -1 for other stages
/// outputs and where GL cannot say (GL ES).
pub(crate) fn output_index(prog: u32, name: &str) -> i32 {
    if is_es() {
        return -1;
    }
    gl::frag_data_index(prog, name)
}

/// `CMD_QUERY_STATE`: read each requested GL state value with the real
/// `glGetIntegerv` / `glGetFloatv` / `glIsEnabled` into a buffer of
/// `MAX_STATE_VALUES`; one `StateValue` per query at `BULK_REPLY`. The
/// app's pending errors are held for it first; an error a query raises is
/// reported in its `StateValue` and drained (never left for the app).
pub fn query_state() -> u32 {
    use gldbg_proto::shm::{
        MAX_STATE_VALUES, QUERY_ENABLED, QUERY_FLOAT, StateQuery, StateRequest, StateValue,
    };
    let Some(mut bulk) = Bulk::get() else {
        return shm::STATUS_BULK_UNAVAILABLE;
    };
    if !has_context() {
        return shm::STATUS_NO_CONTEXT;
    }
    let req: StateRequest = bulk.read(shm::BULK_REQUEST);
    let first = align8(shm::BULK_REQUEST + size_of::<StateRequest>());
    let max = (shm::BULK_REPLY - first) / size_of::<StateQuery>();
    hold_app_errors();
    for i in 0..(req.count as usize).min(max) {
        let q: StateQuery = bulk.read(first + i * size_of::<StateQuery>());
        let mut v = StateValue {
            count: q.count.min(MAX_STATE_VALUES as u32),
            ..Default::default()
        };
        match q.kind {
            QUERY_ENABLED => {
                // SAFETY: a real GL entry point on the stopped app thread with its context current.
                v.values[0] = f64::from(unsafe { crate::generated::real::glIsEnabled(q.name) });
                v.count = 1;
            }
            shm::QUERY_UNIT_INT => {
                let active = gl::get_i(gl::ACTIVE_TEXTURE) as u32;
                gl::active_texture(gl::TEXTURE0 + q.arg);
                v.values[0] = f64::from(gl::get_i(q.name));
                gl::active_texture(active);
                v.count = 1;
            }
            shm::QUERY_TEXTURE_LEVEL_INT => {
                if crate::intercept::resolve::available(
                    gldbg_proto::api::ids::glGetTextureLevelParameteriv,
                ) {
                    v.values[0] = f64::from(gl::texture_level_param(q.arg, 0, q.name));
                    v.count = 1;
                } else {
                    v.count = 0;
                }
            }
            QUERY_FLOAT => {
                let mut buf = [0f32; MAX_STATE_VALUES];
                // SAFETY: as above; the buffer holds MAX_STATE_VALUES floats, more than any state value.
                unsafe { crate::generated::real::glGetFloatv(q.name, buf.as_mut_ptr().cast()) };
                for (d, s) in v.values.iter_mut().zip(buf) {
                    *d = f64::from(s);
                }
            }
            _ => {
                let mut buf = [0i32; MAX_STATE_VALUES];
                // SAFETY: as above; the buffer holds MAX_STATE_VALUES ints.
                unsafe { crate::generated::real::glGetIntegerv(q.name, buf.as_mut_ptr().cast()) };
                for (d, s) in v.values.iter_mut().zip(buf) {
                    *d = f64::from(s);
                }
            }
        }
        v.error = drain_own_errors();
        bulk.write(shm::BULK_REPLY + i * size_of::<StateValue>(), &v);
    }
    shm::STATUS_OK
}

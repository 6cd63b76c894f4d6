//! Bindless texture handles (`ARB_bindless_texture`, `NV_bindless_texture`)
//! in sampler and image uniforms, carried into debug programs.
//!
//! A sampler or image uniform the app sets with `glUniformHandleui64ARB`
//! (or `glProgramUniformHandleui64ARB`, the `v` forms, the NV names) holds
//! a 64-bit texture handle instead of a texture unit; copied as a unit,
//! the debug program would sample unit 0 (wrong values). The hooks forward
//! the call and remember (context, program, location, handle). At a step,
//! [`copy`] gives the debug program's uniform of the same name the handle
//! the app's uniform holds now (read back with `glGetUniformui64vARB`, or
//! `...NV`, where the context has one; a uniform whose value no longer is
//! the handle set, after a relink or a `glUniform1i`, is left as a unit).
//! Residency is the app's: handles are neither made resident nor
//! non-resident here.

use crate::generated::invoke;
use crate::gl;
use gldbg_proto::api::ids;
use std::sync::Mutex;

/// One uniform location set to a handle.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Set {
    context: u64,
    program: u32,
    location: i32,
    handle: u64,
}

/// Most uniform locations remembered (the oldest go).
const MAX: usize = 4096;

static SETS: Mutex<Vec<Set>> = Mutex::new(Vec::new());

/// The hook of the `HANDLE_UNIFORM` functions.
pub fn call(id: u32, args: &[u64]) -> u64 {
    // SAFETY: the app's own call, forwarded unchanged.
    let r = unsafe { invoke(id, args) };
    if crate::session::session().is_none() {
        return r;
    }
    let name = gldbg_proto::api::FUNCTIONS[id as usize].name;
    let Some((program, location, handles)) = parse(name, args) else {
        return r;
    };
    let program = program.unwrap_or_else(current_program);
    if program == 0 {
        return r;
    }
    let context = crate::intercept::context::current_context();
    if let Ok(mut sets) = SETS.lock() {
        for (i, &handle) in handles.iter().enumerate() {
            let set = Set {
                context,
                program,
                location: location + i as i32,
                handle,
            };
            sets.retain(|s| (s.context, s.program, s.location) != (context, program, set.location));
            if sets.len() >= MAX {
                sets.remove(0);
            }
            sets.push(set);
        }
    }
    r
}

/// A handle call's (program for the `glProgram*` forms, first location,
/// handles); `None` for no handles or no location.
fn parse(name: &str, args: &[u64]) -> Option<(Option<u32>, i32, Vec<u64>)> {
    let (program, rest) = match name.starts_with("glProgram") {
        true => (Some(*args.first()? as u32), args.get(1..)?),
        false => (None, args),
    };
    let location = *rest.first()? as i32;
    let handles: Vec<u64> = if name.contains("ui64v") {
        let count = *rest.get(1)? as i32;
        let ptr = *rest.get(2)? as usize;
        if count <= 0 || ptr == 0 {
            return None;
        }
        // SAFETY: the app passes `count` handles at `ptr` (GL's contract),
        // valid while its call runs.
        unsafe { core::slice::from_raw_parts(ptr as *const u64, count.min(1024) as usize) }.to_vec()
    } else {
        vec![*rest.get(1)?]
    };
    (location >= 0).then_some((program, location, handles))
}

/// The program `glUniform*` calls go to: the current one, else the bound
/// pipeline's active program.
fn current_program() -> u32 {
    let current = gl::get_i(gl::CURRENT_PROGRAM) as u32;
    if current != 0 {
        return current;
    }
    let pipeline = gl::get_i(gl::PROGRAM_PIPELINE_BINDING) as u32;
    if pipeline == 0 {
        return 0;
    }
    let mut active = 0i32;
    // SAFETY: one int written into a local; the pipeline exists (bound).
    unsafe {
        invoke(
            ids::glGetProgramPipelineiv,
            &[
                pipeline as u64,
                gl::ACTIVE_PROGRAM as u64,
                &mut active as *mut i32 as usize as u64,
            ],
        )
    };
    active as u32
}

/// The 64-bit value of `program`'s uniform at `location`, where the
/// context can read one.
fn read_back(program: u32, location: i32) -> Option<u64> {
    let getter = [ids::glGetUniformui64vARB, ids::glGetUniformui64vNV]
        .into_iter()
        .find(|&id| crate::intercept::resolve::available(id))?;
    let mut v = [0u64; 4];
    // SAFETY: a 64-bit uniform read into a local array of four.
    unsafe {
        invoke(
            getter,
            &[
                program as u64,
                location as u64,
                v.as_mut_ptr() as usize as u64,
            ],
        )
    };
    Some(v[0])
}

/// Give the current debug program `dbg` the handles `app`'s uniforms hold
/// (after the uniform copy, which set them as units).
pub fn copy(app: u32, dbg: u32) {
    let context = crate::intercept::context::current_context();
    let sets: Vec<Set> = match SETS.lock() {
        Ok(s) => s
            .iter()
            .filter(|s| s.context == context && s.program == app)
            .copied()
            .collect(),
        Err(_) => return,
    };
    let Some(setter) = [ids::glUniformHandleui64ARB, ids::glUniformHandleui64NV]
        .into_iter()
        .find(|&id| crate::intercept::resolve::available(id))
    else {
        return;
    };
    if sets.is_empty() {
        return;
    }
    let n = gl::get_program_i(app, gl::ACTIVE_UNIFORMS).max(0) as u32;
    let max = gl::get_program_i(app, gl::ACTIVE_UNIFORM_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, size, _) = gl::active_variable(app, i, false, max);
        let base = name.strip_suffix("[0]").unwrap_or(&name);
        for e in 0..size.max(1) {
            let elem = if size > 1 || name.ends_with("[0]") {
                format!("{base}[{e}]")
            } else {
                name.clone()
            };
            let loc = gl::uniform_location(app, &elem);
            let Some(set) = sets.iter().find(|s| s.location == loc && loc >= 0) else {
                continue;
            };
            // Still the handle the app set (not reset by a relink or a unit)?
            let handle = match read_back(app, loc) {
                Some(v) if v != set.handle => continue,
                _ => set.handle,
            };
            let dst = gl::uniform_location(dbg, &elem);
            if dst >= 0 {
                // SAFETY: a location of the current (debug) program and a
                // handle the app made for this context.
                unsafe { invoke(setter, &[dst as u64, handle]) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn handle_calls_name_their_program_location_and_handles() {
        assert_eq!(
            parse("glUniformHandleui64ARB", &[3, 0x1_0000_0042]),
            Some((None, 3, vec![0x1_0000_0042]))
        );
        let handles = [7u64, 9];
        let ptr = handles.as_ptr() as usize as u64;
        assert_eq!(
            parse("glProgramUniformHandleui64vARB", &[5, 2, 2, ptr]),
            Some((Some(5), 2, vec![7, 9]))
        );
        assert_eq!(
            parse("glUniformHandleui64vNV", &[1, 1, ptr]),
            Some((None, 1, vec![7]))
        );
        // A location of -1 is ignored by GL, and so here.
        assert_eq!(
            parse("glProgramUniformHandleui64NV", &[5, u32::MAX as u64, 1]),
            None
        );
        assert_eq!(parse("glUniformHandleui64vARB", &[0, 0, ptr]), None);
    }
}

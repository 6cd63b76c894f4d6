//! Where the debug storage blocks of a vertex or compute step go: at
//! bindings that no storage block of the app uses in the debug program.
//!
//! The instrumenter declares the value and coverage blocks after the
//! highest binding written in the debugged shader's source. The app's
//! blocks can still land there: a block declared in another shader object
//! of the program, or moved at run time with `glShaderStorageBlockBinding`
//! (its bindings are copied into the debug program by name at every step).
//! Two blocks on one binding would read and write each other's buffer: the
//! app's data would feed the debug values and the debug values would
//! overwrite the app's data. So, at every step, after the app's bindings
//! are copied, ours are moved to the lowest free pair when theirs is taken.
//! A trace block (issue 14, `trace.rs`) is placed the same way, alone.

use crate::gl;

use super::context::program_interface_query;
use super::error::Error;

/// Our blocks are those with the instrumenter's prefix that no program of
/// the app has (an app block the probe reads is in the app's program even
/// if the app's own code never used it, under its own name).
pub(crate) const OUR_PREFIX: &str = "gldbg_";

/// Bind the debug program `prog`'s value and coverage blocks (declared at
/// `declared` and `declared + 1`) to a pair of bindings no other storage
/// block of `prog` uses and return the value block's binding (the coverage
/// block's is one more). `app_programs` are the app's programs whose
/// shaders `prog` was linked from; `trace` names a trace block of ours
/// (empty: none), placed apart by [`place_one`] and kept out of the pair.
pub(crate) fn place(
    prog: u32,
    app_programs: &[u32],
    declared: u32,
    trace: &str,
) -> Result<u32, Error> {
    let max = gl::get_i(gl::MAX_SHADER_STORAGE_BUFFER_BINDINGS).max(0) as u32;
    if !program_interface_query() {
        // No way to list the blocks (GL < 4.3 with ARB_shader_storage_buffer_object):
        // the source's choice stands, and nothing can move the app's blocks
        // there at run time either without 4.3's glShaderStorageBlockBinding.
        return fits(declared, max)
            .then_some(declared)
            .ok_or_else(|| no_room(max));
    }
    // (binding, block index) of ours; the bindings of everyone else's.
    let mut ours: Vec<(u32, u32)> = Vec::new();
    let mut taken: Vec<u32> = Vec::new();
    for b in blocks(prog) {
        let apps = app_programs.iter().any(|&app| {
            gl::program_resource_index(app, gl::SHADER_STORAGE_BLOCK, &b.name) != u32::MAX
        });
        if b.name.starts_with(OUR_PREFIX) && !apps && b.name != trace {
            ours.push((b.binding, b.index));
        } else {
            taken.push(b.binding);
        }
    }
    // Value before coverage: a cached program keeps them one apart.
    ours.sort_unstable();
    let binding = pick(declared, &taken, max).ok_or_else(|| no_room(max))?;
    for (k, &(now, block)) in ours.iter().take(2).enumerate() {
        let want = binding + k as u32;
        if now != want {
            gl::shader_storage_block_binding(prog, block, want);
        }
    }
    Ok(binding)
}

/// Bind storage block `index` of the debug program `prog` (a trace block of
/// ours) to a binding no other storage block of `prog` uses (the one it has
/// where free, else the lowest free one) and return it. Call after
/// [`place`] (which keeps the pair off this block's binding) and after the
/// app's bindings are copied; needs the program interface query.
pub(crate) fn place_one(prog: u32, index: u32) -> Result<u32, Error> {
    let max = gl::get_i(gl::MAX_SHADER_STORAGE_BUFFER_BINDINGS).max(0) as u32;
    let mut now = None;
    let mut taken: Vec<u32> = Vec::new();
    for b in blocks(prog) {
        match b.index == index {
            true => now = Some(b.binding),
            false => taken.push(b.binding),
        }
    }
    let free = |b: u32| b < max && !taken.contains(&b);
    let binding = now
        .filter(|&b| free(b))
        .or_else(|| (0..max).find(|&b| free(b)))
        .ok_or(Error::NoStorageBindings(max))?;
    if now != Some(binding) {
        gl::shader_storage_block_binding(prog, index, binding);
    }
    Ok(binding)
}

/// One active storage block of a program.
struct Block {
    index: u32,
    name: String,
    binding: u32,
}

/// The active storage blocks of `prog` (the program interface query).
fn blocks(prog: u32) -> Vec<Block> {
    let count = gl::program_interface_i(prog, gl::SHADER_STORAGE_BLOCK, gl::ACTIVE_RESOURCES)
        .clamp(0, 4096) as u32;
    (0..count)
        .map(|index| Block {
            index,
            name: gl::program_resource_name(prog, gl::SHADER_STORAGE_BLOCK, index),
            binding: gl::program_resource_i(
                prog,
                gl::SHADER_STORAGE_BLOCK,
                index,
                gl::BUFFER_BINDING,
            )
            .max(0) as u32,
        })
        .collect()
}

/// `declared` if it and the next binding are free, else the lowest such
/// pair below `max`.
fn pick(declared: u32, taken: &[u32], max: u32) -> Option<u32> {
    let free = |b: u32| fits(b, max) && !taken.contains(&b) && !taken.contains(&(b + 1));
    if free(declared) {
        return Some(declared);
    }
    (0..max).find(|&b| free(b))
}

fn fits(binding: u32, max: u32) -> bool {
    binding.checked_add(1).is_some_and(|next| next < max)
}

fn no_room(max: u32) -> Error {
    Error::NoStorageBindings(max)
}

#[cfg(test)]
mod tests {
    use super::pick;

    #[test]
    fn the_declared_pair_stays_when_free() {
        assert_eq!(pick(2, &[0, 1], 8), Some(2));
        assert_eq!(pick(0, &[], 8), Some(0));
    }

    #[test]
    fn a_taken_pair_moves_to_the_lowest_free_one() {
        // The app moved its block onto our coverage binding.
        assert_eq!(pick(4, &[3, 5], 16), Some(0));
        assert_eq!(pick(1, &[0, 1, 2, 4], 16), Some(5));
        // The pair must fit below the context's limit.
        assert_eq!(pick(6, &[0, 2, 4, 6], 8), None);
        assert_eq!(pick(0, &[1, 3, 5, 7], 8), None);
    }
}

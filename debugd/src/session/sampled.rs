//! `info sources` in the session (issue 16): the focused invocation's
//! texture reads (`shader::Sampled`), each with the texture it read: the
//! sampler uniform's unit (the program's uniform values), the texture
//! bound to that unit for the sampler's target (`CMD_QUERY_STATE`'s unit
//! query), the level's size and the texel under the coordinate.

use super::*;
use crate::history::SourceRead;
use crate::shader::Sampled;
use gldbg_proto::shm::{StateQuery, StateRequest, StateValue};

/// A sampler type's texture binding and how many coordinates pick its
/// texel (None: gldbg names no texel of it: cube maps, 3D, buffers).
fn binding_of(sampler_type: u32) -> Option<(u32, Option<usize>)> {
    Some(match sampler_type {
        // GL_SAMPLER_1D, its shadow, int and uint forms.
        0x8B5D | 0x8B61 | 0x8DC9 | 0x8DD1 => (0x8068, Some(1)),
        // GL_SAMPLER_2D, shadow, int, uint.
        0x8B5E | 0x8B62 | 0x8DCA | 0x8DD2 => (0x8069, Some(2)),
        // GL_SAMPLER_2D_RECT, shadow, int, uint (texel coordinates).
        0x8B63 | 0x8B64 | 0x8DCD | 0x8DD5 => (0x84F6, Some(2)),
        // GL_SAMPLER_2D_ARRAY, shadow, int, uint: x, y and the layer.
        0x8DC1 | 0x8DC4 | 0x8DCF | 0x8DD7 => (0x8C1D, Some(3)),
        // GL_SAMPLER_3D, int, uint.
        0x8B5F | 0x8DCB | 0x8DD3 => (0x806A, None),
        // GL_SAMPLER_CUBE, shadow, int, uint.
        0x8B60 | 0x8DC5 | 0x8DCC | 0x8DD4 => (0x8514, None),
        _ => return None,
    })
}

/// The uniform `sampler` (`u`, `u[2]`) among `uniforms`: its GL type and
/// its value (the unit).
fn sampler_unit(uniforms: &[program::ProgramVariable], sampler: &str) -> Option<(u32, u32)> {
    let (base, index) = match sampler.trim().split_once('[') {
        Some((b, rest)) => (
            b.trim(),
            Some(rest.trim_end_matches(']').trim().parse::<usize>().ok()?),
        ),
        None => (sampler.trim(), None),
    };
    let u = uniforms
        .iter()
        .find(|u| u.name == base || u.name == format!("{base}[0]"))?;
    let value = u.value.trim().trim_start_matches('[').trim_end_matches(']');
    let unit = value
        .split(',')
        .nth(index.unwrap_or(0))?
        .trim()
        .parse()
        .ok()?;
    Some((u.gl_type, unit))
}

/// The texel under coordinate `c` of a texture `size` (`texels`: the
/// coordinate is in texels already; `projective`: divided by its last
/// component first); `dims` coordinates pick it, the third an array layer.
fn texel_of(read: &Sampled, dims: usize, size: (u32, u32)) -> Option<Vec<i64>> {
    let mut c = read.coord.clone();
    if read.projective {
        let q = *c.last()?;
        if q == 0.0 {
            return None;
        }
        let n = c.len() - 1;
        c.truncate(n);
        c.iter_mut().for_each(|v| *v /= q);
    }
    if c.len() < dims {
        return None;
    }
    let scale = [f64::from(size.0), f64::from(size.1)];
    let rect = !read.texels && read.function.contains("Rect");
    Some(
        (0..dims)
            .map(|i| match (i < 2 && !read.texels && !rect, i) {
                (true, _) => (c[i] * scale[i]).floor() as i64,
                (false, 2) => c[i].round() as i64,
                _ => c[i].floor() as i64,
            })
            .collect(),
    )
}

impl Session {
    /// `info sources`: the focused invocation's texture reads.
    pub fn info_sources(&self) -> Result<(Vec<SourceRead>, Vec<String>)> {
        let (reads, notes) = self.with_debug(|d, link| d.sampled(link))?;
        let program = self.query_program()?;
        let AtStop { stop, shm } = self.stopped()?;
        let mut out = Vec::with_capacity(reads.len());
        for read in reads {
            let found = sampler_unit(&program.text.uniforms, &read.sampler);
            let mut r = SourceRead {
                unit: found.map(|f| f.1),
                texture: None,
                size: None,
                texel: None,
                read,
            };
            if let Some((ty, unit)) = found
                && let Some((binding, dims)) = binding_of(ty)
            {
                let q = |kind, name, arg| StateQuery {
                    name,
                    kind,
                    count: 1,
                    arg,
                };
                let v = query_states(&shm, stop.slot, &[q(abi::QUERY_UNIT_INT, binding, unit)])?;
                r.texture = v[0].map(|t| t as u32).filter(|&t| t != 0);
                if let Some(tex) = r.texture {
                    const WIDTH: u32 = 0x1000;
                    const HEIGHT: u32 = 0x1001;
                    let kind = abi::QUERY_TEXTURE_LEVEL_INT;
                    let v = query_states(
                        &shm,
                        stop.slot,
                        &[q(kind, WIDTH, tex), q(kind, HEIGHT, tex)],
                    )?;
                    if let (Some(w), Some(h)) = (v[0], v[1]) {
                        r.size = Some((w as u32, h as u32));
                        r.texel = dims.and_then(|d| texel_of(&r.read, d, (w as u32, h as u32)));
                    }
                }
            }
            out.push(r);
        }
        Ok((out, notes))
    }
}

/// Run `queries` (`CMD_QUERY_STATE`) at the stopped thread of `slot`:
/// each one's first value, or None where it raised a GL error or wrote
/// nothing.
fn query_states(
    shm: &SharedMemory,
    slot: usize,
    queries: &[StateQuery],
) -> Result<Vec<Option<f64>>> {
    let first = (abi::BULK_REQUEST + size_of::<StateRequest>()).next_multiple_of(8);
    for (i, q) in queries.iter().enumerate() {
        shm.write_struct(first + i * size_of::<StateQuery>(), q);
    }
    shm.write_struct(
        abi::BULK_REQUEST,
        &StateRequest {
            count: queries.len() as u32,
            _pad: 0,
        },
    );
    let st = shm.command(slot, abi::CMD_QUERY_STATE, CMD_TIMEOUT)?;
    check_status("CMD_QUERY_STATE", st, |status| Error::Preload {
        what: "reading GL state",
        status,
    })?;
    Ok((0..queries.len())
        .map(|i| {
            let v: StateValue = shm.read_struct(abi::BULK_REPLY + i * size_of::<StateValue>());
            (v.error == 0 && v.count > 0).then_some(v.values[0])
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(coord: &[f64], texels: bool, projective: bool) -> Sampled {
        Sampled {
            line: 1,
            column: 1,
            function: "texture".into(),
            sampler: "s".into(),
            coord_text: "uv".into(),
            coord: coord.to_vec(),
            texels,
            projective,
        }
    }

    #[test]
    fn texels_under_coordinates() {
        assert_eq!(
            texel_of(&read(&[0.296875, 0.265625], false, false), 2, (32, 32)),
            Some(vec![9, 8])
        );
        assert_eq!(
            texel_of(&read(&[3.0, 4.0], true, false), 2, (32, 32)),
            Some(vec![3, 4])
        );
        assert_eq!(
            texel_of(&read(&[0.5, 0.25, 2.0], false, true), 2, (8, 8)),
            Some(vec![2, 1])
        );
        assert_eq!(
            texel_of(&read(&[0.5, 0.5, 2.2], false, false), 3, (4, 4)),
            Some(vec![2, 2, 2])
        );
        let u = |name: &str, value: &str| program::ProgramVariable {
            name: name.into(),
            gl_type: 0x8B5E,
            value: value.into(),
            ..Default::default()
        };
        let us = [u("a", "3"), u("b[0]", "[1, 4]")];
        assert_eq!(sampler_unit(&us, "a"), Some((0x8B5E, 3)));
        assert_eq!(sampler_unit(&us, "b[1]"), Some((0x8B5E, 4)));
        assert_eq!(sampler_unit(&us, "c"), None);
    }
}

//! A CPU model of `tests/apps/egl_stages.c`'s one patch, from the numbers in
//! that file: the patch's vertices (STAGES_VS), the points the tessellator
//! makes of it at the app's `u_level` (the triangle domain with
//! `equal_spacing`, as STAGES_TES declares; GL 4.6 § 11.2.2.1), the
//! tess-eval shader's `te_value` and `gl_Position` at each point, and which
//! input primitive and emission each vertex of the geometry shader has.
//!
//! How the ring between the outer edge and the inner triangle is cut into
//! triangles, and in which order they come, is the driver's choice; what the
//! model fixes is the set of points, the number of triangles (a
//! triangulation of those points), their winding and the area they cover.

use crate::c_string_constant;

/// The app's source: the shaders and the uniform the model reads.
pub const EGL_STAGES_C: &str = include_str!("../apps/egl_stages.c");

/// The GLSL source of the string constant `name` of egl_stages.c.
pub fn shader(name: &str) -> String {
    c_string_constant(EGL_STAGES_C, "egl_stages.c", name)
}

/// `u_level` as the app sets it (`glUniform1f(... "u_level"), L)`): every
/// inner and outer level of the patch (STAGES_TCS).
pub fn level() -> f32 {
    let call = "\"u_level\"), ";
    let at = EGL_STAGES_C
        .find(call)
        .expect("glUniform1f of u_level in egl_stages.c")
        + call.len();
    let text = &EGL_STAGES_C[at..];
    let number = &text[..text.find(')').unwrap()];
    number
        .trim_end_matches('f')
        .parse()
        .unwrap_or_else(|_| panic!("u_level {number:?}"))
}

/// The number of segments of each edge: `equal_spacing` rounds the level up
/// to an integer. Panics unless STAGES_TES declares what this model
/// tessellates and STAGES_TCS sets every level to `u_level`.
pub fn segments() -> u32 {
    let tes = shader("STAGES_TES");
    assert!(
        tes.contains("layout(triangles, equal_spacing, ccw) in;"),
        "the model tessellates triangles, equal_spacing, ccw: {tes}"
    );
    let tcs = shader("STAGES_TCS");
    for l in [
        "gl_TessLevelInner[0] = u_level;",
        "gl_TessLevelOuter[0] = u_level;",
        "gl_TessLevelOuter[1] = u_level;",
        "gl_TessLevelOuter[2] = u_level;",
    ] {
        assert!(tcs.contains(l), "the model has one level for all: {tcs}");
    }
    let n = level().ceil();
    assert!(n >= 2.0, "an inner level of 1 is a special case: {n}");
    n as u32
}

/// A tessellation coordinate (u, v, w), u + v + w = 1.
pub type Coord = [f64; 3];

/// The distinct points of the patch with inner and outer levels of `n`
/// segments: concentric triangles (rings) of n, n - 2, ... segments per
/// edge, down to one triangle (n odd) or the centre (n even). Ring k's
/// corner next to corner A lies where the perpendiculars through the k-th
/// points of A's two outer edges meet: A + 2k/n (centre - A).
pub fn coords(n: u32) -> Vec<Coord> {
    let mut points = Vec::new();
    let mut k = 0;
    while 2 * k <= n {
        let m = n - 2 * k;
        let f = 2.0 * k as f64 / n as f64;
        let corner = |a: usize| -> Coord {
            let mut c = [f / 3.0; 3];
            c[a] = 1.0 - 2.0 * f / 3.0;
            c
        };
        if m == 0 {
            points.push(corner(0));
            break;
        }
        // Each edge from corner a to corner a + 1, without its end.
        for a in 0..3 {
            let (p, q) = (corner(a), corner((a + 1) % 3));
            for j in 0..m {
                let t = j as f64 / m as f64;
                points.push([0, 1, 2].map(|i| p[i] + (q[i] - p[i]) * t));
            }
        }
        k += 1;
    }
    points
}

/// The number of triangles of any triangulation of `coords(n)` (Euler:
/// 2 V - B - 2, B the 3 n points on the outer edge).
pub fn triangles(n: u32) -> usize {
    2 * coords(n).len() - 3 * n as usize - 2
}

/// The area of the triangle (a, b, c) in the (u, v) plane, positive when
/// counter-clockwise (the domain's corners u = 1, v = 1, w = 1 are).
pub fn ccw_area(a: Coord, b: Coord, c: Coord) -> f64 {
    ((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])) / 2.0
}

/// The domain's area in the (u, v) plane: what the triangles cover.
pub const DOMAIN_AREA: f64 = 0.5;

/// STAGES_VS: the position of vertex `i` of the patch (f32, as the shader).
pub fn patch_vertex(i: u32) -> [f64; 4] {
    [
        ((i % 2) as f32 * 1.8 - 0.9) as f64,
        ((i / 2) as f32 * 1.8 - 0.9) as f64,
        0.0,
        1.0,
    ]
}

/// STAGES_TES: `te_value` at `c` (c.x + 2 c.y + 3 c.z, the loop's sum).
pub fn te_value(c: Coord) -> f64 {
    (0..3).map(|k| c[k] * (k + 1) as f64).sum()
}

/// STAGES_TES: `w` when iteration `k` of its loop starts.
pub fn te_partial(c: Coord, k: usize) -> f64 {
    (0..k).map(|j| c[j] * (j + 1) as f64).sum()
}

/// STAGES_TES: `gl_Position` at `c`, the patch vertices weighted by `c`.
pub fn te_position(c: Coord) -> [f64; 4] {
    let mut p = [0.0; 4];
    for (k, w) in c.iter().enumerate() {
        for (pi, vi) in p.iter_mut().zip(patch_vertex(k as u32)) {
            *pi += w * vi;
        }
    }
    p
}

/// STAGES_GS (`triangles` in, a `triangle_strip` of `max_vertices = 3`
/// out, one vertex per iteration): its emitted vertex `v` is emission
/// `v % 3` of input primitive `v / 3`, the tessellator's triangle `v / 3`.
pub fn gs_vertex(v: u32) -> (u32, u32) {
    (v / 3, v % 3)
}

/// STAGES_GS: `s` in iteration `i` of input primitive `primitive`, whose
/// vertices have the tessellation coordinates `tri`.
pub fn gs_s(tri: [Coord; 3], primitive: u32, i: usize) -> f64 {
    te_value(tri[i]) * 2.0 + primitive as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apps_level_3_gives_twelve_points_and_thirteen_triangles() {
        assert_eq!(segments(), 3);
        let c = coords(3);
        assert_eq!(c.len(), 12, "{c:?}");
        assert_eq!(triangles(3), 13);
        // The inner triangle of level 3 (GL 4.6 figure 11.2).
        for p in [[5.0, 2.0, 2.0], [2.0, 5.0, 2.0], [2.0, 2.0, 5.0]] {
            let p = p.map(|x| x / 9.0);
            assert!(
                c.iter()
                    .any(|q| (0..3).all(|i| (q[i] - p[i]).abs() < 1e-12))
            );
        }
        // Even levels end in the centre: level 2 is 6 + 1 points, 6 triangles.
        assert_eq!(coords(2).len(), 7);
        assert_eq!(triangles(2), 6);
        assert!(
            c.iter()
                .all(|p| (p.iter().sum::<f64>() - 1.0).abs() < 1e-12)
        );
        assert!(ccw_area([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]) == DOMAIN_AREA);
    }
}

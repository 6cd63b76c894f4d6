//! What `print`, `dump` and `focus` make of probes: a value at one
//! invocation, a summary over all of them (with a table of the first
//! vertices), the vertices a geometry primitive emitted, a field for dump
//! files; and how each stage's invocations are named.

use glsl_instrument::Stage;

use super::reply::{
    Dumped, EmittedVertex, Invocation, Printed, ShaderStop, Summary, TableRow, ValuePart,
};
use super::{Cell, Focus, Link, ProbedValue, ShaderDebug};
use crate::error::{Error, Result};
use crate::image::{DumpEncoding, PngOptions};

impl ShaderDebug {
    /// `print EXPR [@ AT]` at the current step (of the selected frame): a
    /// variable of the focused invocation from its trace, with no replay,
    /// anything else probed.
    pub fn print(
        &mut self,
        expr: &str,
        at: Option<Invocation>,
        link: &mut dyn Link,
    ) -> Result<Printed> {
        if let Some((v, focus)) = self.print_traced(expr, at) {
            return Ok(Printed {
                expr: expr.to_string(),
                ty: v.ty,
                reached: true,
                at: Some(focus),
                timing: Some(self.take_timing().unwrap_or_default()),
                parts: v
                    .parts
                    .into_iter()
                    .map(|(path, ty, components)| ValuePart {
                        path,
                        ty,
                        components,
                    })
                    .collect(),
                undefined: v.undefined,
                written_unknown: match v.written_unknown {
                    true => vec![expr.to_string()],
                    false => Vec::new(),
                },
                value: v.value,
                ..Default::default()
            });
        }
        match self.frame_position() {
            // A caller's frame: probed at its call site.
            Some(pos) => {
                let here = std::mem::replace(&mut self.pos, pos);
                let r = self.print_probed(expr, at, link);
                self.pos = here;
                r
            }
            None => self.print_probed(expr, at, link),
        }
    }

    /// `print` by probes (one replay per part and written probe, cached).
    pub(super) fn print_probed(
        &mut self,
        expr: &str,
        at: Option<Invocation>,
        link: &mut dyn Link,
    ) -> Result<Printed> {
        let stage = self.model.stage();
        if let Some(Invocation::Primitive(n)) = at {
            return self.print_primitive(link, expr, n, at);
        }
        let cell = invocation_cell(stage, at)?;
        let pos = self.pos.clone();
        // One invocation or a GPU summary where it can (readback.rs).
        let mode = self.print_mode(expr, cell, TABLE_ROWS as u32);
        let value = self.probe_value_as(&pos, expr, &mode, link)?;
        match cell {
            Some(cell) => self.print_at(expr, cell, at, value, link),
            None => self.print_summary(expr, value, link),
        }
    }

    /// `print EXPR @ AT`: the value at one invocation.
    fn print_at(
        &mut self,
        expr: &str,
        (x, y, z): Cell,
        at: Option<Invocation>,
        value: ProbedValue,
        link: &mut dyn Link,
    ) -> Result<Printed> {
        let stage = self.model.stage();
        let res = value.first();
        let ty = value.ty.clone();
        let Some(index) = res.index((x, y, z)) else {
            return Err(Error::InvalidArgument(outside(
                stage,
                (x, y, z),
                res.extent(),
            )));
        };
        let v = value.value_at(index);
        // Once finished, a fragment that ran main but did not
        // reach its end was discarded.
        let discarded = v.is_none()
            && stage == Stage::Fragment
            && self
                .end_coverage(link)?
                .is_some_and(|end| !end.reached_at((x, y, z)))
            && {
                let entry = self.model.entry();
                self.probe(&entry, None, link)?.reached_at((x, y, z))
            };
        Ok(Printed {
            expr: expr.to_string(),
            ty,
            value: v.clone().unwrap_or_default(),
            reached: v.is_some(),
            at,
            summary: None,
            timing: self.take_timing(),
            emitted: Vec::new(),
            table: Vec::new(),
            parts: value.reply_parts(),
            discarded,
            undefined: match v {
                Some(_) => value.undefined_at(index),
                None => Vec::new(),
            },
            written_unknown: value.written_unknown(),
        })
    }

    /// `print EXPR`: a summary over every invocation that reached the step.
    fn print_summary(
        &mut self,
        expr: &str,
        value: ProbedValue,
        link: &mut dyn Link,
    ) -> Result<Printed> {
        let stage = self.model.stage();
        let res = value.first();
        let ty = value.ty.clone();
        let (st, undefined) = value.stats();
        // Vertex-like stages also get a table of their first vertices.
        let table = match stage {
            Stage::Fragment | Stage::Compute => Vec::new(),
            _ => (0..res.coverage.len().min(TABLE_ROWS))
                .map(|i| {
                    let v = value.value_at(i);
                    TableRow {
                        vertex: i as u32,
                        reached: v.is_some(),
                        undefined: match v {
                            Some(_) => value.undefined_at(i),
                            None => Vec::new(),
                        },
                        value: v.unwrap_or_default(),
                    }
                })
                .collect(),
        };
        let entry = self.model.entry();
        let ran = self.probe(&entry, None, link)?;
        let total = ran.reached();
        // Once finished: fragments that ran main but did not
        // reach its end (a return or its last statement).
        let discarded = match (stage, self.end_coverage(link)?) {
            (Stage::Fragment, Some(end)) => ran
                .coverage
                .iter()
                .zip(&end.coverage)
                .filter(|(a, b)| **a != 0 && **b == 0)
                .count() as u64,
            _ => 0,
        };
        Ok(Printed {
            expr: expr.to_string(),
            ty,
            value: Vec::new(),
            reached: st.count > 0,
            at: None,
            summary: Some(Summary {
                count: st.count + undefined,
                min: st.min,
                max: st.max,
                nan: st.nan,
                inf: st.inf,
                total,
                discarded,
                undefined,
            }),
            timing: self.take_timing(),
            emitted: Vec::new(),
            table,
            parts: value.reply_parts(),
            written_unknown: value.written_unknown(),
            ..Default::default()
        })
    }

    /// `dump`: the value of `expr` over every invocation as an NPY file or
    /// as a PNG drawn with `png` (the range it mapped comes back).
    pub fn dump(
        &mut self,
        expr: &str,
        encoding: DumpEncoding,
        png: PngOptions,
        link: &mut dyn Link,
    ) -> Result<Dumped> {
        let pos = self.pos.clone();
        let value = self.probe_value(&pos, expr, link)?;
        if value.is_composite() {
            return Err(Error::InvalidArgument(format!(
                "dump draws one scalar or vector per invocation; `{expr}` is a {} in parts \
                 {}: dump one of them, e.g. `({expr}){}`",
                value.ty,
                value.part_paths().join(" "),
                value.part_paths()[0],
            )));
        }
        let (mut field, ty) = value.first().field();
        if png.viridis && field.components != 1 {
            return Err(Error::InvalidArgument(format!(
                "colormap=viridis draws a scalar; `{expr}` is a {ty}: dump one component, \
                 e.g. `({expr}).x`"
            )));
        }
        // A value not written yet is no value: drawn as uncovered.
        let mut undefined = 0;
        for (i, v) in field.values.iter_mut().enumerate() {
            if v.is_some() && !value.undefined_at(i).is_empty() {
                *v = None;
                undefined += 1;
            }
        }
        let mut reply = Dumped {
            width: field.width,
            height: field.height,
            ty,
            reached: field.stats().count,
            undefined,
            written_unknown: value.written_unknown(),
            ..Default::default()
        };
        if encoding == DumpEncoding::Raw {
            reply.data = field.to_raw();
        } else if encoding == DumpEncoding::Npy {
            reply.data = field.to_npy();
        } else {
            let image = field.render_png(&png).map_err(Error::Internal)?;
            reply.data = image.data;
            reply.mapped_min = image.mapped.iter().map(|r| r.0).collect();
            reply.mapped_max = image.mapped.iter().map(|r| r.1).collect();
            reply.legend_width = image.legend_width;
        }
        Ok(reply)
    }

    /// `focus`: steps follow the invocation `at` names.
    pub fn set_focus(&mut self, at: FocusOn, link: &mut dyn Link) -> Result<ShaderStop> {
        // Another invocation: its own run.
        self.drop_trace();
        let at = match at {
            FocusOn::Any => {
                self.focus = None;
                return Ok(self.stop());
            }
            FocusOn::Unnamed => {
                return Err(Error::InvalidArgument("focus needs an invocation".into()));
            }
            FocusOn::At(at) => at,
        };
        let stage = self.model.stage();
        let pos = self.pos.clone();
        if let Invocation::Primitive(n) = at {
            if stage != Stage::Geometry {
                return Err(Error::InvalidArgument(format!(
                    "`focus primitive N` follows an input primitive of a geometry shader, \
                     not of a {} shader",
                    stage.name()
                )));
            }
            if self.probe(&pos, None, link)?.emitted_by(n).is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "input primitive {n} emitted no vertex at this step"
                )));
            }
            self.focus = Some((Focus::Primitive(n), at));
            self.prepare_predicate(link);
            return Ok(self.stop_with_timing());
        }
        let Some(cell) = invocation_cell(stage, Some(at))? else {
            return Err(Error::InvalidArgument("focus needs an invocation".into()));
        };
        let res = self.probe(&pos, None, link)?;
        if res.index(cell).is_none() {
            return Err(Error::InvalidArgument(outside(stage, cell, res.extent())));
        }
        self.focus = Some((Focus::Cell(cell), at));
        self.prepare_predicate(link);
        Ok(self.stop_with_timing())
    }

    /// `print EXPR @ primitive N` of a geometry shader: the vertices input
    /// primitive N emitted, with the value each carried when emitted.
    fn print_primitive(
        &mut self,
        link: &mut dyn Link,
        expr: &str,
        primitive: u32,
        at: Option<Invocation>,
    ) -> Result<Printed> {
        if self.model.stage() != Stage::Geometry {
            return Err(Error::InvalidArgument(format!(
                "`@ primitive N` names an input primitive of a geometry shader; a {} shader is \
                 printed at {}",
                self.model.stage().name(),
                match self.model.stage() {
                    Stage::Fragment => "a pixel (@ X,Y)",
                    Stage::Compute => "an invocation (@ invocation X,Y,Z)",
                    _ => "a vertex (@ vertex N)",
                }
            )));
        }
        let pos = self.pos.clone();
        let value = self.probe_value(&pos, expr, link)?;
        let res = value.first();
        let ty = value.ty.clone();
        let emitted: Vec<EmittedVertex> = res
            .emitted_by(primitive)
            .into_iter()
            .map(|(i, emit, invocation)| {
                let v = value.value_at(i);
                EmittedVertex {
                    emit,
                    invocation,
                    vertex: i as u32,
                    reached: v.is_some(),
                    value: v.unwrap_or_default(),
                }
            })
            .collect();
        if emitted.is_empty() {
            let primitives = res
                .emission
                .iter()
                .map(|e| u64::from(e[1]) + 1)
                .max()
                .unwrap_or(0);
            return Err(Error::InvalidArgument(format!(
                "input primitive {primitive} emitted no vertex (the geometry shader's captured \
                 vertices come from {primitives} input primitives)"
            )));
        }
        Ok(Printed {
            expr: expr.to_string(),
            ty,
            value: Vec::new(),
            reached: emitted.iter().any(|e| e.reached),
            at,
            summary: None,
            timing: self.take_timing(),
            emitted,
            table: Vec::new(),
            parts: value.reply_parts(),
            written_unknown: value.written_unknown(),
            ..Default::default()
        })
    }
}

/// What `focus` is asked to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FocusOn {
    /// Any invocation: no focus.
    Any,
    At(Invocation),
    /// A request that names no invocation (an error).
    Unnamed,
}

/// Rows of the table a summary `print` of a vertex-like stage shows.
const TABLE_ROWS: usize = 32;

/// Why `cell` names no invocation of a probe of `extent` (width, rows, layers).
fn outside(stage: Stage, (x, y, z): (u32, u32, u32), (w, rows, layers): (u32, u32, u32)) -> String {
    match stage {
        Stage::Fragment => format!("pixel ({x},{y}) is outside the {w}x{rows} framebuffer"),
        Stage::Vertex => format!("vertex {x} is not in the draw ({w} vertices)"),
        Stage::TessEval | Stage::Geometry | Stage::TessControl => format!(
            "vertex {x} is not among the {w} vertices the {} stage output",
            stage.name()
        ),
        _ => format!(
            "invocation ({x},{y},{z}) is outside the dispatch ({w}x{rows}x{layers} invocations)"
        ),
    }
}

/// Which invocation of `stage` a `print` names: a fragment at its pixel
/// (x, y, 0), vertex N as (N, 0, 0), a compute invocation by its global id;
/// `None` for a summary over all.
fn invocation_cell(stage: Stage, at: Option<Invocation>) -> Result<Option<Cell>> {
    match (stage, at) {
        (_, None) => Ok(None),
        (Stage::Fragment, Some(Invocation::Pixel { x, y })) => Ok(Some((x, y, 0))),
        (
            Stage::Vertex | Stage::TessControl | Stage::TessEval | Stage::Geometry,
            Some(Invocation::Vertex(n)),
        ) => Ok(Some((n, 0, 0))),
        (Stage::Compute, Some(Invocation::Global { x, y, z })) => Ok(Some((x, y, z))),
        (Stage::Fragment, Some(_)) => Err(Error::InvalidArgument(
            "a fragment shader is printed at a pixel (@ X,Y) or over all fragments".into(),
        )),
        (Stage::Vertex, Some(_)) => Err(Error::InvalidArgument(
            "a vertex shader is printed at a vertex (@ vertex N) or over all vertices".into(),
        )),
        (Stage::TessEval | Stage::Geometry, Some(_)) => Err(Error::InvalidArgument(format!(
            "a {} shader is printed at an output vertex (@ vertex N: the N-th vertex of the \
             primitives it outputs, in order) or over all of them",
            stage.name()
        ))),
        (Stage::TessControl, Some(_)) => Err(Error::InvalidArgument(
            "a tess-control shader is printed at an output vertex (@ vertex N: patch N / size, \
             gl_InvocationID N % size) or over all of them"
                .into(),
        )),
        (Stage::Compute, Some(_)) => Err(Error::InvalidArgument(
            "a compute shader is printed at an invocation (@ invocation X,Y,Z, its \
             gl_GlobalInvocationID) or over all invocations"
                .into(),
        )),
    }
}

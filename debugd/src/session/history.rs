//! Pixel history (issue 16) in the session: `history X,Y` runs the app
//! from the current stop to the end of the frame, stopping (as `step N`
//! does: this thread takes the stops, no per-call events) only at draws,
//! the calls that can write a texel ([`crate::history::calls`]) and frame
//! ends, and asks each writing call what it did to the texel
//! ([`crate::history`]); the app stays stopped at the call that ended it.
//! `debug history K` runs to the same draw of the next frame and debugs
//! its fragment shader focused on the pixel.

use super::*;
use crate::history::calls::{self, Destination, Writer};
use crate::history::fragments::{self, DrawReply, PASSES_RUN};
use crate::history::link::{self, At, HistoryShader};
use crate::history::{Entry, History, HistoryAsk, color};
use crate::shader::reply::{Invocation, ShaderStop};
use crate::shader::{DebugRequest, FocusOn};
use gldbg_proto::shm::TexelRef;

/// What `debug history K` found.
pub struct HistoryDebug {
    pub stop: ShaderStop,
    pub call: pb::CallInfo,
    pub differences: Vec<String>,
}

/// The texel's value as read (empty where the image no longer holds it:
/// redefined, deleted).
fn texel_value(r: &gldbg_proto::shm::PixelReadReply, h: &History) -> crate::history::Color {
    match r.found {
        0 => Vec::new(),
        _ => color(r.value.color, h.kind),
    }
}

/// The texel read after a call.
fn texel_after(at: At<'_>, h: &History) -> Result<crate::history::Color> {
    Ok(texel_value(&link::read_texel(at, &h.texel)?, h))
}

/// The preload link of the thread stopped at `stop`.
fn at_stop<'a>(shm: &'a SharedMemory, stop: &Stop) -> At<'a> {
    At {
        shm,
        slot: stop.slot,
        stop_id: stop.stop_id,
    }
}

/// The note's start for calls of other contexts that may write the image.
const OTHERS: &str = "other contexts draw or write textures too";

/// Whether the call at `stop` may write a texel (a draw or a writer).
fn writes(stop: &Stop) -> bool {
    stop.draw != 0 || calls::writer(stop.function).is_some()
}

/// The history shaders built so far, by app program (an error: why that
/// program's draws cannot be looked into), and the program drawn with last.
#[derive(Default)]
struct Shaders {
    built: HashMap<u32, std::result::Result<HistoryShader, String>>,
    last: Option<u32>,
}

impl Session {
    /// `history X,Y [until draw N]` / `history texture T X,Y`.
    pub fn pixel_history(&self, ask: HistoryAsk) -> Result<History> {
        // Held for the whole run: no other request moves the app meanwhile.
        let mut dbg = self.debug_lock();
        let (id, shm, mut h) = self.begin_history(&ask, &mut dbg)?;
        let mut shaders = Shaders::default();
        let mut first = true;
        let end = loop {
            let Some(AtStop { stop, .. }) = self.control_stop() else {
                break "exit".to_string();
            };
            let ours = stop.context == h.context && stop.error == 0;
            if class_of(stop.function) & class::FRAME_END != 0 && !first && ours {
                break "swap".into();
            }
            first = false;
            if class_of(stop.function) & class::SHADER_RECORD != 0 {
                // A program may be linked anew: build its shaders again.
                shaders = Shaders::default();
            }
            let draw_in_frame = stop.draw.saturating_sub(shm.frame_first_draw());
            // A call already executed (`until draw N` left the app after
            // its draw) wrote what it wrote before the history began.
            let mut executed = stop.ret.is_some();
            if ours && !executed {
                executed = self.history_call(&shm, &stop, &mut h, &mut shaders, draw_in_frame);
            } else if !ours && writes(&stop) && !h.notes.iter().any(|n| n.starts_with(OTHERS)) {
                h.notes.push(format!(
                    "{OTHERS} (thread {}, call {} {}): they are not followed",
                    stop.tid,
                    stop.call_number,
                    function_name(stop.function)
                ));
            }
            if ours && stop.draw != 0 && ask.until_draw == Some(draw_in_frame) {
                let at = at_stop(&shm, &stop);
                if !executed && let Err(e) = self.finish_call(at, &stop) {
                    h.notes
                        .push(format!("draw {draw_in_frame} could not be executed: {e}"));
                }
                break format!("draw {draw_in_frame}");
            }
            if cancel::check().is_err() {
                break "cancelled".into();
            }
            if !self.history_next(id, &shm, &stop) {
                break "exit".into();
            }
        };
        h.end = end;
        // The preload's copy of the pixel goes (it is framebuffer-sized).
        if let Some(AtStop { stop, .. }) = self.control_stop()
            && stop.context == h.context
        {
            lifecycle::release_gl(&shm, stop.slot);
        }
        self.end_history(&shm);
        drop(dbg);
        self.control().history = Some(h.clone());
        Ok(h)
    }

    /// Look into the call at `stop` (of the history's context, not yet
    /// executed): its entry, or a note where that failed; whether the call
    /// was executed meanwhile.
    fn history_call(
        &self,
        shm: &SharedMemory,
        stop: &Stop,
        h: &mut History,
        shaders: &mut Shaders,
        draw_in_frame: u64,
    ) -> bool {
        let at = at_stop(shm, stop);
        let entry = match class_of(stop.function) & class::DRAW != 0 && stop.draw != 0 {
            true => self.history_draw(at, stop, h, shaders),
            false => match calls::writer(stop.function) {
                Some(w) => self.history_writer(at, stop, h, w),
                None => return false,
            },
        };
        match entry {
            Ok(Some(mut e)) => {
                e.entry = h.entries.len() as u32 + 1;
                e.draw = if e.global_draw != 0 { draw_in_frame } else { 0 };
                h.entries.push(e);
            }
            Ok(None) => {}
            Err(e) => h.notes.push(format!(
                "call {} {}: {e}",
                stop.call_number,
                function_name(stop.function)
            )),
        }
        self.control()
            .current
            .as_ref()
            .is_some_and(|c| c.serial == stop.serial && c.ret.is_some())
    }

    /// Resolve the image at the current stop and set the app up to stop
    /// at draws, writers and frame ends, taken by this thread.
    fn begin_history(
        &self,
        ask: &HistoryAsk,
        dbg: &mut Option<ShaderDebug>,
    ) -> Result<(u64, Arc<SharedMemory>, History)> {
        let c = self.control();
        let AtStop { stop, shm } = stopped_in(&c)?;
        cancel::check()?;
        let Some(id) = c.launched.as_ref().map(|l| l.id) else {
            return Err(Error::not_launched());
        };
        let (x, y) = (ask.x as i32, ask.y as i32);
        if x < 0 || y < 0 {
            return Err(Error::InvalidArgument(format!(
                "pixel {},{} is out of range",
                ask.x, ask.y
            )));
        }
        let texel = match ask.texture {
            Some((name, level, layer)) => TexelRef {
                kind: abi::TEXEL_TEXTURE,
                name,
                level,
                layer,
                x,
                y,
            },
            None => TexelRef {
                kind: abi::TEXEL_CURRENT,
                layer: -1,
                x,
                y,
                ..Default::default()
            },
        };
        let at = at_stop(&shm, &stop);
        let read = link::read_texel(at, &texel)?;
        let h = History {
            texel: read.resolved,
            context: stop.context,
            kind: read.kind,
            format: read.format,
            start: color(read.value.color, read.kind),
            ..Default::default()
        };
        if read.found == 0 {
            return Err(Error::InvalidArgument(format!(
                "pixel {x},{y} is outside {} ({}x{})",
                h.image(),
                read.width,
                read.height
            )));
        }
        self.run_stopping_at(c, dbg, (&shm, stop.slot), |id| {
            class_of(id) & (class::DRAW | class::FRAME_END) != 0 || calls::writer(id).is_some()
        });
        Ok((id, shm, h))
    }

    /// Set the app up to run on from the stop at `slot` (its shader
    /// debugging released), stopping at the user's breakpoints and at the
    /// calls `stops_at` names, the stops taken by the request's thread
    /// (as `step N` takes them); the RUNNING event sent.
    fn run_stopping_at(
        &self,
        mut c: MutexGuard<'_, Control>,
        dbg: &mut Option<ShaderDebug>,
        (shm, slot): (&SharedMemory, usize),
        stops_at: impl Fn(u32) -> bool,
    ) {
        if self.release_debug(dbg, Some(shm), None) {
            lifecycle::release_gl(shm, slot);
        }
        c.shader_stop = None;
        c.stepping = true;
        shm.set_step_all(false);
        apply_bits(&c, shm);
        for id in (0..FUNCTIONS.len() as u32).filter(|&id| stops_at(id)) {
            shm.set_breakpoint(id, true);
        }
        shm.set_spin(STEP_SPIN);
        self.fast_stepping.store(true, Ordering::Release);
        drop(c);
        self.emit(pb::event::Kind::Running(pb::Empty {}));
    }

    /// The current stop while the history runs (None: the app is gone).
    fn control_stop(&self) -> Option<AtStop> {
        stopped_in(&self.control()).ok()
    }

    /// Let `stop` go and take the next stop; false when the app is gone.
    fn history_next(&self, id: u64, shm: &SharedMemory, stop: &Stop) -> bool {
        {
            let mut c = self.control();
            c.current = None;
            c.state = RunState::Running;
        }
        if shm
            .command_at(stop.slot, stop.stop_id, abi::CMD_CONTINUE, CMD_TIMEOUT)
            .is_err()
        {
            let mut c = self.control();
            if c.state == RunState::Running && c.current.is_none() {
                Self::promote_quiet(&mut c);
            }
            return c.state == RunState::Stopped;
        }
        self.await_stop(id, shm);
        self.control().state == RunState::Stopped
    }

    /// The history over: the user's breakpoints back, the stop reported.
    fn end_history(&self, shm: &SharedMemory) {
        self.fast_stepping.store(false, Ordering::Release);
        shm.set_spin(Duration::ZERO);
        let info = {
            let mut c = self.control();
            c.stepping = false;
            apply_bits(&c, shm);
            c.current
                .as_ref()
                .filter(|_| c.state == RunState::Stopped && c.paused.is_none())
                .map(|s| call_info(s, None))
        };
        if let Some(info) = info {
            self.emit(pb::event::Kind::Stopped(info));
        }
        self.changed.notify_all();
    }

    /// A draw's entry, where it has fragments at the pixel; the draw is
    /// executed (`CMD_FINISH`) and the texel read after it.
    fn history_draw(
        &self,
        at: At<'_>,
        stop: &Stop,
        h: &History,
        shaders: &mut Shaders,
    ) -> Result<Option<Entry>> {
        // Asked with the shader of the program drawn with last: one command
        // where the program is the same (the preload answers only which
        // program draws where it is not).
        let guess = shaders
            .last
            .and_then(|p| shaders.built.get(&p)?.as_ref().ok());
        let guessed = guess.map(|g| g.program);
        let mut read = match link::draw_fragments(at, self, &h.texel, guess) {
            Ok(r) => r,
            // A fixed-function draw, a GL ES context: judged by the value.
            Err(why) => return self.draw_by_value(at, stop, h, (0, &why.to_string())),
        };
        if read.reply.draw_buffer < 0 {
            // A texture may be written by the shader itself (image stores).
            return match h.texel.kind == abi::TEXEL_TEXTURE {
                true => self.draw_by_value(at, stop, h, (read.reply.program, "")),
                false => Ok(None),
            };
        }
        let program = read.reply.program;
        shaders.last = Some(program);
        if !shaders.built.contains_key(&program) {
            let built = self.query_program().and_then(|p| {
                let because = p.note.as_ref().map_or(String::new(), |n| format!(": {n}"));
                HistoryShader::build(program, &p.stages, p.text.api, &because)
            });
            shaders
                .built
                .insert(program, built.map_err(|e| e.to_string()));
        }
        let shader = match &shaders.built[&program] {
            Ok(s) => s,
            Err(why) => return self.draw_by_value(at, stop, h, (program, why)),
        };
        if guessed != Some(program) {
            read = link::draw_fragments(at, self, &h.texel, Some(shader))?;
        }
        let records = fragments::records(&read.words);
        if records.is_empty() {
            return Ok(None);
        }
        let output = usize::try_from(read.reply.output)
            .ok()
            .and_then(|i| shader.shader.outputs.get(i));
        let reply = DrawReply {
            records,
            passes: read.passes,
            tests: read.reply.tests,
            before: read.reply.before,
            passed: read.reply.passed,
            output,
            kind: h.kind,
            draw_buffer: read.reply.draw_buffer.max(0) as u32,
            early_tests: shader.shader.early_tests,
        };
        let (mut frags, mut note) = fragments::fragments(&reply, (h.texel.x, h.texel.y));
        if read.reply.trace.full != 0 {
            note = "more fragments at the pixel than gldbg records: the first are shown".into();
        }
        self.finish_call(at, stop)?;
        let after = texel_after(at, h)?;
        // A copy's result the app's does not match: its values would be wrong.
        let last = frags.iter().rev().find(|f| !f.color_after.is_empty());
        if read.reply.passed == PASSES_RUN && last.is_some_and(|f| f.color_after != after) {
            for f in &mut frags {
                f.passed = None;
                f.rejected_by = None;
                f.color_before.clear();
                f.color_after.clear();
            }
            note = "gldbg's copy of the pixel blended differently from the app's draw: the \
                    fragments' tests and colours are not shown"
                .into();
        }
        Ok(Some(Entry {
            call: stop.call_number,
            function: function_name(stop.function).into(),
            global_draw: stop.draw,
            frame: stop.frame,
            program,
            framebuffer: read.reply.framebuffer,
            thread: stop.tid,
            before: color(read.reply.before.color, h.kind),
            after,
            fragments: frags,
            note,
            ..Default::default()
        }))
    }

    /// A draw whose fragments are not known (`why`; empty: one that does
    /// not draw to the image): listed where it changed the value.
    fn draw_by_value(
        &self,
        at: At<'_>,
        stop: &Stop,
        h: &History,
        (program, why): (u32, &str),
    ) -> Result<Option<Entry>> {
        let mut e = self.history_writer(at, stop, h, Writer::Other)?;
        if let Some(e) = &mut e {
            if !why.is_empty() {
                e.note = format!("its fragments are not known: {why}");
            }
            e.global_draw = stop.draw;
            e.program = program;
        }
        Ok(e)
    }

    /// A call that is not a draw: listed where its destination holds the
    /// pixel (clears, blits) or the value changed; executed either way.
    fn history_writer(
        &self,
        at: At<'_>,
        stop: &Stop,
        h: &History,
        w: Writer,
    ) -> Result<Option<Entry>> {
        let before = link::read_texel(at, &h.texel)?;
        let d = Destination {
            draw_buffer: u32::try_from(before.draw_buffer).ok(),
            scissor: (before.scissor_on != 0).then_some(before.scissor),
        };
        let writes = calls::writes_pixel(w, &stop.args, &d, (h.texel.x, h.texel.y));
        self.finish_call(at, stop)?;
        let after_read = link::read_texel(at, &h.texel)?;
        let after = texel_value(&after_read, h);
        if !writes && after == texel_value(&before, h) {
            return Ok(None);
        }
        Ok(Some(Entry {
            call: stop.call_number,
            function: function_name(stop.function).into(),
            frame: stop.frame,
            thread: stop.tid,
            framebuffer: before.framebuffer,
            before: texel_value(&before, h),
            after,
            ..Default::default()
        }))
    }

    /// Execute the stopped call and stay stopped after it.
    fn finish_call(&self, at: At<'_>, stop: &Stop) -> Result<()> {
        let st = at
            .shm
            .command_at(at.slot, at.stop_id, abi::CMD_FINISH, CMD_TIMEOUT)?;
        if st != abi::STATUS_OK {
            return Err(Error::Command {
                command: "CMD_FINISH",
                status: st,
            });
        }
        let ret = at.shm.header().slots[at.slot].ret.load(Ordering::Acquire);
        if let Some(cur) = self
            .control()
            .current
            .as_mut()
            .filter(|c| c.serial == stop.serial)
        {
            cur.ret = Some(ret);
        }
        Ok(())
    }

    /// `debug history K`: run to entry K's draw in the next frame, debug
    /// its fragment shader there focused on the pixel.
    pub fn debug_history(&self, k: u32) -> Result<HistoryDebug> {
        let (h, e) = {
            let c = self.control();
            let Some(h) = c.history.clone() else {
                return Err(Error::FailedPrecondition(
                    "no pixel history yet (use `history X,Y`)".into(),
                ));
            };
            let Some(e) = h.entries.iter().find(|e| e.entry == k).cloned() else {
                return Err(Error::InvalidArgument(format!(
                    "the history has no entry {k} (it has {})",
                    h.entries.len()
                )));
            };
            (h, e)
        };
        if e.global_draw == 0 {
            return Err(Error::InvalidArgument(format!(
                "entry {k} is {}, not a draw: it has no fragment to debug",
                e.function
            )));
        }
        let frame = e.frame + 1;
        let now = self.control().current.as_ref().map(|s| s.frame);
        if let Some(now) = now.filter(|&now| now > frame) {
            return Err(Error::FailedPrecondition(format!(
                "the app is in frame {now}: frame {frame}, after the history's, has passed"
            )));
        }
        let mut dbg = self.debug_lock();
        let (id, shm) = self.begin_run_to_draw(&mut dbg)?;
        let found = loop {
            let Some(AtStop { stop, .. }) = self.control_stop() else {
                break Err(Error::FailedPrecondition(format!(
                    "the app ended before draw {} of frame {frame}",
                    e.draw
                )));
            };
            let in_frame = stop.draw.saturating_sub(shm.frame_first_draw());
            if stop.draw != 0 && stop.frame > frame {
                break Err(Error::FailedPrecondition(format!(
                    "frame {frame} ended with {} draws, before draw {}",
                    in_frame.saturating_sub(1),
                    e.draw
                )));
            }
            if stop.draw != 0 && stop.frame == frame && in_frame == e.draw && stop.error == 0 {
                break Ok(stop);
            }
            if cancel::check().is_err() || !self.history_next(id, &shm, &stop) {
                break Err(Error::FailedPrecondition(format!(
                    "the app ended before draw {} of frame {frame}",
                    e.draw
                )));
            }
        };
        self.end_history(&shm);
        let stop = found?;
        let differences = self.history_differences(&shm, &stop, &h, &e);
        drop(dbg);
        let call = call_info(&stop, None);
        // It stops there anyway: a failure says what differs too.
        let with_differences = |err: Error| match differences.is_empty() {
            true => err,
            false => Error::FailedPrecondition(format!(
                "stopped at {} (draw {} of frame {frame}), but {}: {err}",
                call.function,
                e.draw,
                differences.join("; ")
            )),
        };
        self.debug_shader(DebugRequest {
            stage: Stage::Fragment,
            fragment_options: Default::default(),
        })
        .map_err(with_differences)?;
        let invocation = Invocation::Pixel {
            x: h.texel.x as u32,
            y: h.texel.y as u32,
        };
        let stop = self
            .focus(FocusOn::At(invocation))
            .map_err(with_differences)?;
        Ok(HistoryDebug {
            stop,
            call,
            differences,
        })
    }

    /// Stop at every draw, taken by this thread.
    fn begin_run_to_draw(&self, dbg: &mut Option<ShaderDebug>) -> Result<(u64, Arc<SharedMemory>)> {
        let c = self.control();
        let AtStop { stop, shm } = stopped_in(&c)?;
        cancel::check()?;
        let Some(id) = c.launched.as_ref().map(|l| l.id) else {
            return Err(Error::not_launched());
        };
        self.run_stopping_at(c, dbg, (&shm, stop.slot), |id| {
            class_of(id) & class::DRAW != 0
        });
        Ok((id, shm))
    }

    /// How the draw `stop` differs from history entry `e`'s.
    fn history_differences(
        &self,
        shm: &SharedMemory,
        stop: &Stop,
        h: &History,
        e: &Entry,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let name = function_name(stop.function);
        if name != e.function {
            out.push(format!("the call is {name}, not {}", e.function));
        }
        let at = at_stop(shm, stop);
        match link::draw_fragments(at, self, &h.texel, None) {
            Ok(r) if r.reply.draw_buffer < 0 => {
                out.push(format!("this draw does not write {}", h.image()))
            }
            Ok(r) if r.reply.program != e.program => out.push(format!(
                "it uses program {}, not {}",
                r.reply.program, e.program
            )),
            Ok(r) => {
                let covered = self.query_program().and_then(|p| {
                    let shader = HistoryShader::build(r.reply.program, &p.stages, p.text.api, "")?;
                    link::draw_fragments(at, self, &h.texel, Some(&shader))
                });
                match covered {
                    Ok(c) if c.words.is_empty() => out.push(format!(
                        "no fragment of this draw reaches pixel {},{}",
                        h.texel.x, h.texel.y
                    )),
                    Ok(_) => {}
                    Err(err) => {
                        out.push(format!("whether it covers the pixel is not known: {err}"))
                    }
                }
            }
            Err(err) => out.push(format!("gldbg could not compare the draws: {err}")),
        }
        out
    }
}

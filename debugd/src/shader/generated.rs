//! Debug shaders already generated, by what they probe: a later probe of
//! the same step and expression (another pixel, another readback mode, a
//! print after a step) takes the generated source from here instead of
//! instrumenting the shader again (about 0.4 ms a print at a 1080p draw).
//! Only successes are kept: an error is worked out again, as before.

use std::collections::HashMap;
use std::sync::Arc;

use glsl_instrument::{InstrumentError, Instrumented, Position};

/// Which generator made a debug shader (`ShaderModel::instrument*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Generator {
    /// `instrument`: the value at the step.
    Value,
    /// `instrument_end_of_main`.
    EndOfMain,
    /// `instrument_vertex_buffer` (at the step or, `at_end`, the end of main).
    VertexBuffer,
    /// `instrument_written` (`None` kept too: no written probe needed).
    Written,
}

/// (generator, position, expression, at the end of main).
type Key = (Generator, Position, Option<String>, bool);

/// Entries kept at most; all go when it is full (a session rarely has so
/// many distinct probes, and regenerating is cheap next to a replay).
const MAX_ENTRIES: usize = 512;

#[derive(Default)]
pub(super) struct Generated {
    map: HashMap<Key, Option<Arc<Instrumented>>>,
}

impl Generated {
    /// The shader `make` generates for `key`, made once.
    pub(super) fn get_or(
        &mut self,
        key: (Generator, &Position, Option<&str>, bool),
        make: impl FnOnce() -> Result<Option<Instrumented>, InstrumentError>,
    ) -> Result<Option<Arc<Instrumented>>, InstrumentError> {
        let key = (key.0, key.1.clone(), key.2.map(str::to_string), key.3);
        if let Some(found) = self.map.get(&key) {
            return Ok(found.clone());
        }
        let made = make()?.map(Arc::new);
        if self.map.len() >= MAX_ENTRIES {
            self.map.clear();
        }
        self.map.insert(key, made.clone());
        Ok(made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos() -> Position {
        Position {
            step: glsl_instrument::StepId(0),
            calls: Vec::new(),
            iterations: vec![1],
        }
    }

    #[test]
    fn a_shader_is_generated_once_per_key_and_errors_are_not_kept() {
        let mut g = Generated::default();
        let mut made = 0;
        let mut make = |fail: bool| {
            made += 1;
            match fail {
                true => Err(InstrumentError::Unsupported("x".into())),
                false => Ok(None),
            }
        };
        let p = pos();
        assert!(
            g.get_or((Generator::Written, &p, Some("a"), false), || make(true))
                .is_err()
        );
        assert!(
            g.get_or((Generator::Written, &p, Some("a"), false), || make(false))
                .is_ok()
        );
        assert!(
            g.get_or((Generator::Written, &p, Some("a"), false), || make(true))
                .is_ok()
        );
        assert!(
            g.get_or((Generator::Value, &p, Some("a"), false), || make(false))
                .is_ok()
        );
        assert!(
            g.get_or((Generator::Written, &p, Some("a"), true), || make(false))
                .is_ok()
        );
        assert_eq!(made, 4, "the third call is served from the map");
    }
}

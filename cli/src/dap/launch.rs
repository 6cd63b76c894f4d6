//! Starting and ending a session: `launch` (the embedded daemon, as `gldbg
//! run`, and the app stopped before its first GL call), `attach` (a running
//! `gldbg-debugd`), `configurationDone` (the app runs, or reports its entry
//! stop), `terminate` and `disconnect` (end or detach the app, as asked or
//! as the launch configuration says).

use gldbg_proto::pb;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::adapter::{Adapter, NOT_LAUNCHED, Reply};
use super::args::{opt_bool, opt_str, req_str};
use super::model::{Launched, OnDisconnect, Plan};
use crate::client::{self, Target};
use crate::embedded::{self, Embedded, Serve};
use crate::exec::{Outcome, Session};

fn string_list(args: &Value, key: &str) -> Result<Vec<String>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("argument '{key}' must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(format!("argument '{key}' must be a list of strings")),
    }
}

/// `KEY=VALUE` pairs of an object argument.
fn env_list(args: &Value) -> Result<Vec<String>, String> {
    match args.get("env") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok(format!("{k}={s}")),
                _ => Err(format!("env.{k} must be a string")),
            })
            .collect(),
        Some(_) => Err("argument 'env' must be an object of strings".into()),
    }
}

fn on_disconnect(args: &Value, default: OnDisconnect) -> Result<OnDisconnect, String> {
    match opt_str(args, "onDisconnect")? {
        None => Ok(default),
        Some("terminate") => Ok(OnDisconnect::Terminate),
        Some("detach") => Ok(OnDisconnect::Detach),
        Some(other) => Err(format!(
            "onDisconnect must be \"terminate\" or \"detach\", not {}",
            super::wire::clip(other)
        )),
    }
}

/// `sourceMap`: shader name ("shader 5", a glObjectLabel label) → file.
fn source_map(args: &Value) -> Result<Vec<(String, String)>, String> {
    match args.get("sourceMap") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("sourceMap.{k} must be a file path")),
            })
            .collect(),
        Some(_) => Err("argument 'sourceMap' must be an object (shader name → file)".into()),
    }
}

impl Adapter {
    pub async fn launch(&mut self, args: &Value) -> Reply {
        if self.launched.is_some() {
            return Err("already launched or attached".into());
        }
        let program = req_str(args, "program")?;
        let argv = string_list(args, "args")?;
        let env = env_list(args)?;
        let map = source_map(args)?;
        // Read before anything starts: a bad file loses nothing.
        super::breakpoints::mapped_files(&map)?;
        let stop_on_entry = opt_bool(args, "stopOnEntry")?.unwrap_or(false);
        let on_disc = on_disconnect(args, OnDisconnect::Terminate)?;
        let memcheck = super::memcheck::launch_mode(args)?;
        let cwd = match opt_str(args, "cwd")? {
            Some(c) => c.to_string(),
            None => std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
        };
        crate::check_program(program)?;
        let (mut embedded, target) =
            Embedded::start(None, None, &Serve::default()).map_err(|e| format!("{e:#}"))?;
        // An editor stops its adapter with a signal: the directory goes too
        // (and the app with the daemon, as under `gldbg run`).
        crate::signals::end_on_signals(embedded.dir.clone(), true)
            .map_err(|e| format!("cannot install the signal handlers: {e}"))?;
        crate::signals::remove_on_abort(&embedded.dir)
            .map_err(|e| format!("cannot install the abort handler: {e}"))?;
        let client = embedded::connect(&mut embedded, &target)
            .await
            .map_err(|e| format!("{e:#}"))?;
        let mut raw = client.clone();
        if let Some(mode) = memcheck {
            // Before the app runs: its first dispatch is checked.
            raw.memcheck(pb::MemcheckRequest { mode: mode as i32 })
                .await
                .map_err(|s| format!("memcheck: {}", s.message()))?;
        }
        let reply = raw
            .launch(pb::LaunchRequest {
                program: program.to_string(),
                args: argv,
                env,
                cwd,
                // The app never writes into the DAP stream: its output comes as events.
                own_process_group: true,
                capture_output: true,
                // Nor reads it: the client's requests come there.
                stdin_null: true,
            })
            .await
            .map_err(|s| s.message().to_string())?
            .into_inner();
        self.start_session(client, Some(embedded), on_disc, stop_on_entry)
            .await?;
        self.register_files(&map).await?;
        if let Some(call) = &reply.stop {
            self.thread = call.thread;
            self.threads.insert(call.thread);
        }
        Ok(json!({}))
    }

    pub async fn attach(&mut self, args: &Value) -> Reply {
        if self.launched.is_some() {
            return Err("already launched or attached".into());
        }
        let address = req_str(args, "address")?;
        let target = Target::parse(address).map_err(|e| format!("{e:#}"))?;
        let token = match (opt_str(args, "token")?, opt_str(args, "tokenFile")?) {
            (Some(t), _) => Some(t.to_string()),
            (None, Some(f)) => Some(
                std::fs::read_to_string(f)
                    .map_err(|e| format!("cannot read the token file {f}: {e}"))?
                    .trim()
                    .to_string(),
            ),
            (None, None) => None,
        };
        let map = source_map(args)?;
        // Read before anything starts: a bad file loses nothing.
        super::breakpoints::mapped_files(&map)?;
        let on_disc = on_disconnect(args, OnDisconnect::Detach)?;
        let client = client::connect(&target, token.as_deref(), None)
            .await
            .map_err(|e| format!("cannot connect to {address}: {e:#}"))?;
        self.start_session(client, None, on_disc, false).await?;
        self.register_files(&map).await?;
        Ok(json!({}))
    }

    async fn start_session(
        &mut self,
        client: client::Client,
        embedded: Option<Embedded>,
        on_disconnect: OnDisconnect,
        stop_on_entry: bool,
    ) -> Result<(), String> {
        let mut session = Session::new(client.clone());
        let state = session.get_state().await?;
        let mut events_client = client.clone();
        let mut stream = events_client
            .events(pb::Empty {})
            .await
            .map_err(|s| format!("cannot subscribe to events: {}", s.message()))?
            .into_inner();
        let (tx, rx) = mpsc::unbounded_channel();
        let events_task = tokio::spawn(async move {
            while let Ok(Some(event)) = stream.message().await {
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        if let Outcome::State(r) = &state {
            if let Some(call) = &r.stop {
                self.thread = call.thread;
            }
        }
        self.session = Some(session);
        self.client = Some(client);
        self.events = Some(rx);
        self.launched = Some(Launched {
            embedded,
            on_disconnect,
            stop_on_entry,
            events_task,
        });
        Ok(())
    }

    /// The launch configuration's `sourceMap` files, read and sent.
    async fn register_files(&mut self, map: &[(String, String)]) -> Result<(), String> {
        self.breakpoints.mapped = map.to_vec();
        self.send_source_files().await
    }

    pub async fn configuration_done(&mut self) -> Reply {
        if self.launched.is_none() {
            return Err(NOT_LAUNCHED.into());
        }
        if self.configured {
            return Ok(json!({}));
        }
        self.configured = true;
        let stop_on_entry = self.launched.as_ref().is_some_and(|l| l.stop_on_entry);
        let attached = self.launched.as_ref().is_some_and(|l| l.embedded.is_none());
        if attached {
            // Where the attached app stands: stopped (reported after this
            // response), or running (its next stop comes as the daemon's event).
            if let Some(Ok(Outcome::State(r))) = match self.session.as_mut() {
                Some(s) => Some(s.get_state().await),
                None => None,
            } {
                match r.state() {
                    pb::RunState::Stopped => {
                        let body = self.stopped_body("entry", None, &[]);
                        self.pending_events.push(("stopped".into(), body));
                    }
                    pb::RunState::Running => self.running_unwatched = true,
                    _ => {}
                }
            }
        } else if stop_on_entry {
            let body = self.stopped_body("entry", None, &[]);
            self.pending_events.push(("stopped".into(), body));
        } else {
            self.pending_move = Some(("continue".into(), Plan::ShaderThenApp, "breakpoint"));
        }
        Ok(json!({}))
    }

    pub async fn terminate(&mut self) -> Reply {
        if self.launched.is_none() {
            return Err(NOT_LAUNCHED.into());
        }
        let mut client = self.client.clone().ok_or(NOT_LAUNCHED)?;
        if self.ended {
            return Ok(json!({}));
        }
        let state = client
            .get_state(pb::Empty {})
            .await
            .map_err(|s| s.message().to_string())?
            .into_inner();
        let r = match state.state() {
            pb::RunState::Stopped | pb::RunState::Running => client
                .kill(pb::Empty {})
                .await
                .map_err(|s| s.message().to_string())?
                .into_inner(),
            // Already gone (a crash ends the app): say so to the client.
            _ => state,
        };
        self.app_ended(r.exit.as_ref());
        Ok(json!({}))
    }

    /// `disconnect`: the app ends or is detached; the session is over.
    pub async fn disconnect(&mut self, args: &Value) -> Reply {
        let Some(launched) = &self.launched else {
            return Ok(json!({}));
        };
        let terminate = match opt_bool(args, "terminateDebuggee")? {
            Some(t) => t,
            None => launched.on_disconnect == OnDisconnect::Terminate,
        };
        let Some(mut client) = self.client.clone() else {
            return Ok(json!({}));
        };
        if !self.ended {
            let alive = matches!(
                client
                    .get_state(pb::Empty {})
                    .await
                    .map(|r| r.into_inner().state()),
                Ok(pb::RunState::Stopped | pb::RunState::Running)
            );
            if alive {
                let result = if terminate {
                    client.kill(pb::Empty {}).await
                } else {
                    client.detach(pb::Empty {}).await
                };
                result.map_err(|s| s.message().to_string())?;
            }
        }
        Ok(json!({}))
    }

    /// The end of serving: the embedded daemon stops (after the app ended
    /// or was detached).
    pub async fn shutdown(&mut self) {
        self.session = None;
        self.client = None;
        if let Some(mut l) = self.launched.take() {
            if let Some(e) = l.embedded.take() {
                e.stop().await;
            }
        }
    }
}

//! `gldbg`: the command-line debugger.
//!
//! `gldbg run PROGRAM` starts the daemon inside this process (serving gRPC on a
//! Unix socket in a private temp dir), connects to it like any other client
//! and launches the program stopped before its first GL call; `gldbg connect
//! ADDR` talks to a running `gldbg-debugd`. Either way, commands (CLI.md) come
//! from a script (`-x`) and then the REPL, and every result is printed as
//! gdb-like text or as one JSON line (`--json`).
//!
//! `gldbg instrument FILE` is offline: it lists a shader file's steps or
//! prints its debug shader with glsl-instrument directly (no app, no daemon).
//!
//! Code map: `command` parses the command language, `exec` runs commands
//! through the gRPC client (`client`), `render` turns results and events into
//! text or JSON, `instrument` is the offline command. This file wires them:
//! arguments, runtime, the embedded daemon, the script/REPL loop, exit status.
//!
//! **Architecture invariant:** a session always talks gRPC, even to the daemon
//! in its own process; it never calls daemon internals beyond starting it.

mod client;
mod dap;
mod embedded;
mod exec;
mod instrument;
mod line_start;
mod numbers;
mod render;
mod repl;
mod signals;

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use clap::{Args, Parser, Subcommand};
use gldbg_proto::pb;
use tokio::runtime::Runtime;

use crate::client::Target;
use crate::command::Command;
use crate::embedded::Embedded;
use crate::exec::{Failure, Outcome, Session};
// The parser lives in the library target (the fuzz crate reaches it there).
use gldbg_cli::command;

#[derive(Parser, Debug)]
#[command(
    name = "gldbg",
    version,
    about = "GLSL shader debugger for unmodified OpenGL apps"
)]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand, Debug)]
enum Mode {
    /// Launch PROGRAM under the embedded daemon, stopped before its first GL call.
    #[command(override_usage = "gldbg run [OPTIONS] [--] PROGRAM [ARGS]...")]
    Run {
        #[command(flatten)]
        opts: Opts,
        /// Also serve the gRPC API on ADDR (unix:PATH or HOST:PORT; TCP needs a
        /// token: --token-file, GLDBG_TOKEN, or one generated into a printed file).
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
        #[command(flatten)]
        serve: ServeOpts,
        /// Check every dispatch and draw for out-of-bounds accesses,
        /// uninitialised reads and races from the start (`memcheck on`).
        #[arg(long)]
        memcheck: bool,
        /// The program to debug and its arguments (everything after PROGRAM is the program's).
        #[arg(
            required = true,
            value_name = "PROGRAM",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        argv: Vec<String>,
    },
    /// Connect to a running gldbg-debugd at ADDR (unix:PATH or HOST:PORT).
    Connect {
        /// unix:PATH or HOST:PORT
        addr: String,
        #[command(flatten)]
        opts: Opts,
    },
    /// Serve the Debug Adapter Protocol on stdin/stdout (or --listen HOST:PORT),
    /// for editors: VS Code, nvim-dap, dap-mode, Helix.
    Dap(dap::DapArgs),
    /// Offline: list a shader file's steps or print its debug shader for one step (no app, no GL).
    Instrument(instrument::InstrumentArgs),
}

#[derive(Args, Debug, Clone)]
struct Opts {
    /// Run the commands in FILE (one per line, '#' comments).
    #[arg(short = 'x', long = "command", value_name = "FILE")]
    command: Option<PathBuf>,
    /// Exit after the commands of -x (no REPL); status 0 if every command succeeded.
    #[arg(long)]
    batch: bool,
    /// One JSON object per line for every result and event.
    #[arg(long)]
    json: bool,
    /// The daemon's token, read from FILE (yours, mode 0600; sent as
    /// `authorization: Bearer T`). Also: the GLDBG_TOKEN variable.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Refused: a token on the command line is visible to every local user.
    #[arg(long, hide = true, value_name = "T")]
    token: Option<String>,
    /// Connect over TLS, trusting the CA certificate(s) in PEM (connect to HOST:PORT).
    #[arg(long, value_name = "PEM")]
    tls_ca: Option<PathBuf>,
    /// The name the server's certificate must carry (default: HOST of ADDR).
    #[arg(long, value_name = "NAME", requires = "tls_ca")]
    tls_domain: Option<String>,
}

/// How `gldbg run` serves: TLS for a TCP --listen, and the saved debug shaders.
#[derive(Args, Debug, Clone)]
struct ServeOpts {
    /// TLS on the TCP --listen address: the server certificate (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// TLS on the TCP --listen address: the certificate's private key (PEM).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Keep the rejected debug shaders saved for inspection after exiting
    /// (else their private directory is removed). Also GLDBG_KEEP_DEBUG_SHADERS=1.
    #[arg(long)]
    keep_debug_shaders: bool,
}

impl ServeOpts {
    fn to_serve(&self) -> embedded::Serve {
        embedded::Serve {
            tls_cert: self.tls_cert.clone(),
            tls_key: self.tls_key.clone(),
            keep_debug_shaders: self.keep_debug_shaders,
        }
    }
}

/// `println!` that ignores a closed stdout (e.g. `gldbg ... | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, $($arg)*);
        let _ = out.flush();
    }};
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Mode::Instrument(args) = &cli.mode {
        return instrument::run(args);
    }
    if let Mode::Dap(args) = &cli.mode {
        return match dap::run(args) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("gldbg dap: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    match real_main(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gldbg: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Where execvp would find PROGRAM, or why it would not.
pub(crate) fn check_program(program: &str) -> Result<(), Failure> {
    let missing = || Err(format!("no such program: {program}"));
    if program.contains('/') {
        return if Path::new(program).is_file() {
            Ok(())
        } else {
            missing()
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|dir| dir.join(program).is_file()) {
        Ok(())
    } else {
        missing()
    }
}

/// Forward the Events stream into a channel the command loop drains.
async fn subscribe(
    session: &Session,
) -> Result<(mpsc::Receiver<pb::Event>, tokio::task::JoinHandle<()>)> {
    let mut client = session.client();
    let mut stream = client
        .events(pb::Empty {})
        .await
        .map_err(|s| anyhow::anyhow!("cannot subscribe to events: {}", s.message()))?
        .into_inner();
    let (tx, rx) = mpsc::channel();
    let task = tokio::spawn(async move {
        while let Ok(Some(event)) = stream.message().await {
            if tx.send(event).is_err() {
                break;
            }
        }
    });
    Ok((rx, task))
}

/// What the loop does after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Go,
    /// The command failed: a `--batch` script stops here (as gdb's does);
    /// the REPL and a script without `--batch` go on.
    Failed,
    Quit,
}

/// Runs command lines and prints their results and the events in between.
pub struct Driver {
    rt: Runtime,
    session: Session,
    events: mpsc::Receiver<pb::Event>,
    json: bool,
    /// Echo commands (`(gldbg) cmd`) in text mode, for scripts.
    echo: bool,
    all_ok: bool,
    /// Text mode: the last result already said the app exited / crashed,
    /// or already gave this message as its error (a warning event repeats it).
    exit_shown: bool,
    crash_shown: bool,
    error_shown: Option<String>,
    /// The Events stream has told of the app's exit.
    exit_event_seen: bool,
    /// Events received while only the app's output was being shown, in order.
    deferred: std::collections::VecDeque<pb::Event>,
    /// Text mode: how to start gldbg's lines after the app's partial line.
    line_start: line_start::LineStart,
    /// Ctrl-C while the app runs pauses it (a REPL on a terminal); else
    /// SIGINT ends gldbg (`signals`).
    pause_on_interrupt: bool,
}

impl Driver {
    /// Text mode: a gldbg line is about to be written; start it on a line of
    /// its own if the app left its last line open (`line_start`).
    fn fresh_line(&self) {
        if !self.json {
            let mut out = std::io::stdout().lock();
            let _ = out.flush();
            self.line_start.ensure(&mut out);
        }
    }

    /// Show the app's output that arrived while a command ran, before the
    /// command's result (it was written before the result was known); other
    /// events keep their place after the result.
    fn show_output_first(&mut self) {
        while let Ok(event) = self.events.try_recv() {
            if matches!(event.kind, Some(pb::event::Kind::Output(_))) {
                self.show_event(&event);
            } else {
                self.deferred.push_back(event);
            }
        }
    }

    fn print_result(&mut self, cmd: &str, result: &Result<Outcome, Failure>) {
        if let Ok(Outcome::State(r)) = result {
            if r.state() == pb::RunState::Exited {
                self.exit_shown = true;
            }
            if r.crash.is_some() {
                self.crash_shown = true;
            }
        }
        self.error_shown = result.as_ref().err().cloned();
        let mut out = std::io::stdout().lock();
        if self.json {
            let _ = writeln!(out, "{}", render::result_json(cmd, result));
        } else {
            let text = render::result_text(result);
            if !text.is_empty() {
                drop(out);
                self.fresh_line();
                out = std::io::stdout().lock();
                let _ = writeln!(out, "{text}");
            }
        }
        let _ = out.flush();
    }

    /// Print the events that arrived so far.
    pub fn drain_events(&mut self) {
        self.drain_events_until(None);
    }

    /// Print events; with a deadline, wait for an `exited` event until then.
    fn drain_events_until(&mut self, deadline: Option<std::time::Instant>) {
        loop {
            let event = match (self.deferred.pop_front(), deadline) {
                (Some(e), _) => Some(e),
                (None, Some(d)) => self
                    .events
                    .recv_timeout(d.saturating_duration_since(std::time::Instant::now()))
                    .ok(),
                (None, None) => self.events.try_recv().ok(),
            };
            let Some(event) = event else { break };
            let exited = self.show_event(&event);
            if exited && deadline.is_some() {
                // The rest, if any, without waiting.
                return self.drain_events_until(None);
            }
        }
    }

    /// Print one event (JSON line or text); returns whether it is the exit.
    fn show_event(&mut self, event: &pb::Event) -> bool {
        use pb::event::Kind;
        let exited = matches!(event.kind, Some(Kind::Exited(_)));
        self.exit_event_seen |= exited;
        self.session.note_event(event);
        let mut out = std::io::stdout().lock();
        if self.json {
            if let Some(v) = render::event_json(event) {
                let _ = writeln!(out, "{v}");
            }
        } else {
            let repeat = match &event.kind {
                Some(Kind::Exited(_)) => std::mem::take(&mut self.exit_shown),
                Some(Kind::Crashed(_)) => std::mem::take(&mut self.crash_shown),
                Some(Kind::Warning(w)) => self.error_shown.as_ref() == Some(w),
                _ => false,
            };
            if !repeat && let Some(t) = render::event_text(event) {
                drop(out);
                self.fresh_line();
                out = std::io::stdout().lock();
                let _ = writeln!(out, "{t}");
            }
        }
        let _ = out.flush();
        exited
    }

    /// Parse and run one line; print its result.
    pub fn run_line(&mut self, line: &str) -> Flow {
        let cmd_text = line.trim();
        let parsed = command::parse(cmd_text);
        if matches!(parsed, Ok(None)) {
            return Flow::Go;
        }
        self.drain_events();
        if self.echo && !self.json {
            self.fresh_line();
            say!("(gldbg) {cmd_text}");
        }
        let result = match parsed {
            Ok(Some(cmd)) => self.execute(&cmd),
            Ok(None) => unreachable!(),
            Err(e) => Err(e.0),
        };
        if result.is_err() {
            self.all_ok = false;
        }
        self.show_output_first();
        self.print_result(cmd_text, &result);
        if matches!(result, Ok(Outcome::ShaderStop(_))) {
            self.show_displays();
        }
        self.drain_events();
        match result {
            Ok(Outcome::Quit) => Flow::Quit,
            Ok(_) => Flow::Go,
            Err(_) => Flow::Failed,
        }
    }

    /// After a shader stop: each displayed expression's value, as a `display` event.
    fn show_displays(&mut self) {
        let values = self.rt.block_on(self.session.displayed());
        for (display, result) in values {
            if self.json {
                say!("{}", render::display_json(&display, &result));
            } else {
                self.fresh_line();
                say!("{}", render::display_text(&result));
            }
        }
    }

    fn execute(&mut self, cmd: &Command) -> Result<Outcome, Failure> {
        let resumes = matches!(cmd, Command::Continue | Command::Step(_) | Command::Next(_));
        let session = &mut self.session;
        if !(resumes && self.pause_on_interrupt) {
            return self.rt.block_on(session.execute(cmd));
        }
        // Interactive: Ctrl-C while the app runs pauses it (the Pause RPC);
        // the resuming RPC then returns with the app stopped.
        let mut client = session.client();
        self.rt.block_on(async move {
            let run = session.execute(cmd);
            tokio::pin!(run);
            loop {
                tokio::select! {
                    r = &mut run => return r,
                    Ok(()) = tokio::signal::ctrl_c() => {
                        if let Err(e) = client.pause(pb::Empty {}).await {
                            eprintln!("gldbg: pause: {}", e.message());
                        }
                    }
                }
            }
        })
    }

    /// End of the session: kill an app gldbg still controls, show the last events.
    fn finish(&mut self) {
        let result = self.rt.block_on(self.session.kill_if_alive());
        let mut killed = false;
        match result {
            Ok(Some(outcome)) => {
                killed = true;
                if !self.json {
                    // Say it, so a user is not surprised the app is gone.
                    self.fresh_line();
                    say!("Killed the app.");
                }
                if let Outcome::State(r) = &outcome
                    && r.state() == pb::RunState::Exited
                {
                    self.exit_shown = true;
                }
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("gldbg: cannot kill the app: {e}");
                self.all_ok = false;
            }
        }
        // The app's last events (its exit) may come shortly after its end.
        let wait = killed || (self.session.exited() && !self.exit_event_seen);
        let deadline = wait.then(|| std::time::Instant::now() + Duration::from_secs(1));
        self.drain_events_until(deadline);
    }
}

/// The first command of the session, as shown in its result line.
fn first_cmd(mode: &Mode) -> String {
    match mode {
        Mode::Run { argv, .. } => launch_cmd(argv),
        Mode::Connect { addr, .. } => format!("connect {addr}"),
        Mode::Instrument(args) => format!("instrument {}", args.file.display()),
        Mode::Dap(_) => "dap".into(),
    }
}

/// A session ready for commands.
struct Connected {
    /// The daemon in this process (`run`), if any.
    embedded: Option<Embedded>,
    session: Session,
    events: mpsc::Receiver<pb::Event>,
    events_task: tokio::task::JoinHandle<()>,
}

/// Start the embedded daemon (run) or reach the remote one (connect), and subscribe to events.
fn setup(rt: &Runtime, mode: &Mode, token: Option<String>) -> Result<Connected> {
    let _guard = rt.enter();
    let (embedded, client) = match mode {
        Mode::Run {
            opts,
            listen,
            serve,
            ..
        } => {
            signals::sweep_stale_dirs(&std::env::temp_dir());
            let (mut embedded, target) =
                Embedded::start(listen.as_deref(), token, &serve.to_serve())?;
            // Ctrl-C pauses the app at an interactive REPL; elsewhere it ends gldbg.
            let interactive = !opts.batch && std::io::stdin().is_terminal();
            signals::end_on_signals(embedded.dir.clone(), !interactive)
                .context("cannot install the signal handlers")?;
            signals::remove_on_abort(&embedded.dir).context("cannot install the abort handler")?;
            let client = rt.block_on(embedded::connect(&mut embedded, &target))?;
            (Some(embedded), client)
        }
        Mode::Connect { addr, opts } => {
            let target = Target::parse(addr)?;
            let tls = client::tls_options(opts.tls_ca.as_deref(), opts.tls_domain.as_deref())?;
            (
                None,
                rt.block_on(client::connect(&target, token.as_deref(), tls.as_ref()))?,
            )
        }
        Mode::Instrument(_) | Mode::Dap(_) => {
            bail!("`instrument` and `dap` run without this session")
        }
    };
    let session = Session::new(client);
    let (events, events_task) = rt.block_on(subscribe(&session))?;
    Ok(Connected {
        embedded,
        session,
        events,
        events_task,
    })
}

/// What must hold before anything starts: the script (read first: a typo
/// in its name should not cost a launch), the program, the token.
struct Ready {
    script: Option<String>,
    token: Option<String>,
}

/// Read the script, check the program and take the token; the message of
/// the first that fails.
fn preflight(mode: &Mode, opts: &Opts) -> Result<Ready, Failure> {
    let script = match &opts.command {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        ),
        None => None,
    };
    if let Mode::Run { argv, .. } = mode {
        check_program(&argv[0])?;
    }
    if opts.token.is_some() {
        return Err(gldbg_debugd::token::NO_TOKEN_ON_ARGV.to_string());
    }
    // Before the runtime's threads: this also takes GLDBG_TOKEN out of the environment.
    let token =
        gldbg_debugd::token::token_from(opts.token_file.as_deref()).map_err(|e| e.to_string())?;
    Ok(Ready { script, token })
}

/// A failure before the session: its result line (`--json`) and message.
fn fail_early(mode: &Mode, json: bool, msg: &str) {
    if json {
        say!(
            "{}",
            render::result_json(&first_cmd(mode), &Err(msg.to_string()))
        );
    }
    eprintln!("gldbg: {msg}");
}

fn real_main(cli: Cli) -> Result<ExitCode> {
    let opts = match &cli.mode {
        Mode::Run { opts, .. } | Mode::Connect { opts, .. } => opts.clone(),
        Mode::Instrument(_) | Mode::Dap(_) => {
            bail!("`instrument` and `dap` run without this session")
        }
    };
    let fail = |msg: String| {
        fail_early(&cli.mode, opts.json, &msg);
        Ok(ExitCode::FAILURE)
    };
    let Ready { script, token } = match preflight(&cli.mode, &opts) {
        Ok(ready) => ready,
        Err(msg) => return fail(msg),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let Connected {
        embedded,
        session,
        events,
        events_task,
    } = match setup(&rt, &cli.mode, token) {
        Ok(s) => s,
        Err(e) => return fail(format!("{e:#}")),
    };
    let mut driver = Driver {
        rt,
        session,
        events,
        json: opts.json,
        echo: false,
        all_ok: true,
        exit_shown: false,
        crash_shown: false,
        error_shown: None,
        exit_event_seen: false,
        deferred: Default::default(),
        line_start: line_start::LineStart::detect(),
        pause_on_interrupt: !opts.batch && std::io::stdin().is_terminal(),
    };

    let started = start(&mut driver, &cli.mode, &opts);
    if started {
        let mut flow = Flow::Go;
        if let Some(text) = &script {
            driver.echo = true;
            flow = run_script(&mut driver, text, opts.batch);
            driver.echo = false;
        }
        if !opts.batch && flow != Flow::Quit {
            repl::run(&mut driver);
        }
    } else {
        driver.all_ok = false;
    }
    driver.finish();
    let Driver {
        rt,
        session,
        all_ok,
        ..
    } = driver;
    // Close our connections first: a graceful shutdown waits for them.
    events_task.abort();
    drop(session);
    if let Some(e) = embedded {
        rt.block_on(e.stop());
    }
    let code = if !started || (opts.batch && !all_ok) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    // The runtime may hold tasks blocked on the daemon's threads: do not wait for them.
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok(code)
}

/// The first result line: the launch (run) or where the session stands
/// (connect). False if the session cannot go on.
fn start(driver: &mut Driver, mode: &Mode, opts: &Opts) -> bool {
    match mode {
        Mode::Run { argv, memcheck, .. } => {
            let (program, args) = argv.split_first().expect("clap requires PROGRAM");
            if *memcheck {
                // Before the app runs: its first dispatch is checked.
                let on = Some(command::MemcheckSet::On);
                if let Err(msg) = driver.rt.block_on(driver.session.memcheck(on)) {
                    fail_early(mode, opts.json, &format!("memcheck on: {msg}"));
                    return false;
                }
            }
            let cwd = std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default();
            let interactive = !opts.batch && std::io::stdin().is_terminal();
            let result = driver.rt.block_on(driver.session.launch(
                program,
                args,
                &cwd,
                interactive,
                opts.json,
            ));
            match &result {
                Err(msg) => {
                    fail_early(mode, opts.json, msg);
                    false
                }
                Ok(_) => {
                    driver.print_result(&first_cmd(mode), &result);
                    true
                }
            }
        }
        Mode::Connect { .. } => {
            let result = driver.rt.block_on(driver.session.get_state());
            driver.print_result(&first_cmd(mode), &result);
            result.is_ok()
        }
        // `main` runs it without a session; `setup` refuses it before this.
        Mode::Instrument(_) | Mode::Dap(_) => false,
    }
}

/// The commands of `-x`, one per line. In `--batch` the script stops at its
/// first failed command, as gdb's does (the exit status is then 1); without
/// it, every line runs as if typed at the prompt.
fn run_script(driver: &mut Driver, text: &str, batch: bool) -> Flow {
    for (number, line) in text.lines().enumerate() {
        match driver.run_line(line) {
            Flow::Quit => return Flow::Quit,
            Flow::Failed if batch => {
                let skipped = text
                    .lines()
                    .skip(number + 1)
                    .filter(|l| !matches!(command::parse(l), Ok(None)))
                    .count();
                if skipped > 0 {
                    eprintln!(
                        "gldbg: the script stops at its first failed command (line {}); \
                         {skipped} command(s) not run",
                        number + 1
                    );
                }
                return Flow::Failed;
            }
            Flow::Failed | Flow::Go => {}
        }
    }
    Flow::Go
}

/// `run PROGRAM ARGS`, the `cmd` of the launch's result line.
fn launch_cmd(command: &[String]) -> String {
    let mut s = "run".to_string();
    for a in command {
        s.push(' ');
        s.push_str(a);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_lookup_like_execvp() {
        assert_eq!(
            check_program("./no-such-app-here"),
            Err("no such program: ./no-such-app-here".into())
        );
        assert_eq!(
            check_program("no-such-app-on-path-xyz"),
            Err("no such program: no-such-app-on-path-xyz".into())
        );
        assert_eq!(check_program("/bin/sh"), Ok(()));
        assert_eq!(check_program("sh"), Ok(()));
    }

    #[test]
    fn first_result_names_the_command() {
        assert_eq!(
            launch_cmd(&["./app".into(), "--frames".into(), "2".into()]),
            "run ./app --frames 2"
        );
        let cli = Cli::parse_from(["gldbg", "connect", "unix:/tmp/s", "--json"]);
        assert_eq!(first_cmd(&cli.mode), "connect unix:/tmp/s");
    }

    #[test]
    fn arguments() {
        let cli = Cli::parse_from([
            "gldbg", "run", "--batch", "-x", "s.gldbg", "--", "./app", "--json", "-v",
        ]);
        let Mode::Run {
            opts, argv, listen, ..
        } = cli.mode
        else {
            panic!("run")
        };
        assert!(opts.batch && !opts.json);
        assert_eq!(opts.command, Some(PathBuf::from("s.gldbg")));
        assert_eq!(listen, None);
        assert_eq!(argv, ["./app", "--json", "-v"]);
        // Without `--`, everything after the program is the program's.
        let cli = Cli::parse_from(["gldbg", "run", "--json", "./app", "--batch"]);
        let Mode::Run { opts, argv, .. } = cli.mode else {
            panic!("run")
        };
        assert!(opts.json && !opts.batch);
        assert_eq!(argv, ["./app", "--batch"]);
        let cli = Cli::parse_from([
            "gldbg",
            "connect",
            "127.0.0.1:4000",
            "--token-file",
            "t",
            "--batch",
        ]);
        let Mode::Connect { addr, opts } = cli.mode else {
            panic!("connect")
        };
        assert_eq!(addr, "127.0.0.1:4000");
        assert_eq!(opts.token_file, Some(PathBuf::from("t")));
        assert!(opts.batch);
    }

    #[test]
    fn instrument_arguments() {
        let cli = Cli::parse_from([
            "gldbg",
            "instrument",
            "a.frag",
            "--step",
            "3",
            "--expr",
            "x * 2.0",
            "--json",
        ]);
        let Mode::Instrument(args) = &cli.mode else {
            panic!("instrument")
        };
        assert_eq!(args.file, PathBuf::from("a.frag"));
        assert_eq!(
            (args.step, args.expr.as_deref()),
            (Some(3), Some("x * 2.0"))
        );
        assert!(args.json && !args.list_steps && args.stage.is_none());
        assert_eq!(first_cmd(&cli.mode), "instrument a.frag");
        // The step list takes no step or expression.
        let both = [
            "gldbg",
            "instrument",
            "a.frag",
            "--list-steps",
            "--step",
            "1",
        ];
        assert!(Cli::try_parse_from(both).is_err());
    }
}

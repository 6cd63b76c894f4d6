//! `gldbg-debugd`: the gldbg daemon alone, for remote clients.
//!
//! `gldbg-debugd --listen ADDR [--token-file F] [--tls-cert C --tls-key K]
//! [-- PROGRAM ARGS...]` serves the gRPC API on ADDR (`unix:PATH` or
//! `HOST:PORT`), launches PROGRAM if given, and runs until SIGINT/SIGTERM/SIGHUP.
//! TCP needs a token: from `--token-file`, `GLDBG_TOKEN`, or generated into a
//! private 0600 file whose path is printed. Never on the command line.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use gldbg_debugd::{
    Access, Config, Daemon, LaunchOptions, ListenAddr, TlsArgs, find_preload, saved_shaders, token,
};

#[derive(Parser, Debug)]
#[command(
    name = "gldbg-debugd",
    version,
    about = "The gldbg daemon: serves the gldbg gRPC API"
)]
struct Args {
    /// Where to listen: unix:PATH or HOST:PORT (TCP needs a token).
    #[arg(long)]
    listen: ListenAddr,
    /// Require `authorization: Bearer TOKEN`, the token read from FILE (yours,
    /// mode 0600). Also: the GLDBG_TOKEN variable. On TCP without either, a
    /// token is generated and its file printed.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Refused: a token on the command line is visible to every local user.
    #[arg(long, hide = true, value_name = "T")]
    token: Option<String>,
    #[command(flatten)]
    tls: TlsArgs,
    /// Keep the rejected debug shaders saved for inspection after exiting
    /// (else their private directory is removed). Also GLDBG_KEEP_DEBUG_SHADERS=1.
    #[arg(long)]
    keep_debug_shaders: bool,
    /// The preload library (default: found beside this executable).
    #[arg(long)]
    preload: Option<std::path::PathBuf>,
    /// Program (and its arguments) to launch, stopped at its first GL call.
    #[arg(last = true)]
    program: Vec<String>,
}

fn main() {
    if let Err(e) = run(Args::parse()) {
        eprintln!("gldbg-debugd: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    if args.token.is_some() {
        anyhow::bail!(token::NO_TOKEN_ON_ARGV);
    }
    // Before any thread starts: this also takes GLDBG_TOKEN out of the environment.
    let mut token = token::token_from(args.token_file.as_deref())?;
    let _cleanup =
        saved_shaders::Cleanup::new(saved_shaders::keep_requested(args.keep_debug_shaders));
    let mut _token_file = None;
    if matches!(args.listen, ListenAddr::Tcp(_)) && token.is_none() {
        let (t, file) = token::for_tcp("gldbg-debugd", &args.listen, None)?;
        token = Some(t);
        _token_file = Some(file);
    }
    let tls = args.tls.files();
    // Bad TLS files are refused before anything is launched.
    if let Some(tls) = &tls {
        if matches!(args.listen, ListenAddr::Unix(_)) {
            anyhow::bail!("TLS is for TCP listeners (a Unix socket is private to its user)");
        }
        tls.check()?;
    }
    // Refuse a live socket before launching anything.
    if let ListenAddr::Unix(path) = &args.listen {
        gldbg_debugd::check_unix_path(path)?;
    }
    let preload = match args.preload {
        Some(p) => p,
        None => find_preload()?,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async move {
        let daemon = Daemon::new(Config {
            preload,
            app_ends_with_daemon: false,
        });
        if let Some((program, rest)) = args.program.split_first() {
            let opts = LaunchOptions {
                program: program.clone(),
                args: rest.to_vec(),
                ..Default::default()
            };
            let session = daemon.session().clone();
            let state = tokio::task::spawn_blocking(move || session.launch(opts))
                .await
                .context("launch task")?
                .with_context(|| format!("launching {program}"))?;
            eprintln!(
                "gldbg-debugd: launched {program}: {:?}",
                gldbg_proto::pb::RunState::try_from(state.state)
            );
        }
        // The handlers exist before anyone is told we listen: a SIGTERM
        // right after "listening" must still run the guards below (the
        // socket, the token file and the saved shaders removed), not kill
        // the process with the default action.
        use tokio::signal::unix::{SignalKind, signal};
        let signals = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        );
        let (mut int, mut term, mut hup) = match signals {
            (Ok(i), Ok(t), Ok(h)) => (i, t, h),
            (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => {
                return Err(e).context("installing the signal handlers");
            }
        };
        eprintln!("gldbg-debugd: listening on {}", args.listen);
        // SIGHUP (a closed terminal) too: the guards above remove the
        // token file and the saved shaders' directories on the way out.
        let shutdown = async move {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
                _ = hup.recv() => {}
            }
        };
        daemon
            .serve_with(args.listen, Access { token, tls }, shutdown)
            .await
    })
}

//! `gldbg-debugd`: the gldbg daemon alone, for remote clients.
//!
//! `gldbg-debugd --listen ADDR [--token T] [-- PROGRAM ARGS...]` serves the
//! gRPC API on ADDR (`unix:PATH` or `HOST:PORT`; TCP needs a token), launches
//! PROGRAM if given, and runs until SIGINT/SIGTERM.

use anyhow::Context;
use clap::Parser;
use gldbg_debugd::{Config, Daemon, LaunchOptions, ListenAddr, find_preload};

#[derive(Parser, Debug)]
#[command(
    name = "gldbg-debugd",
    version,
    about = "The gldbg daemon: serves the gldbg gRPC API"
)]
struct Args {
    /// Where to listen: unix:PATH or HOST:PORT (TCP needs --token).
    #[arg(long)]
    listen: ListenAddr,
    /// Require `authorization: Bearer TOKEN` on every request.
    #[arg(long)]
    token: Option<String>,
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
    if matches!(args.listen, ListenAddr::Tcp(_)) && args.token.as_deref().is_none_or(str::is_empty)
    {
        anyhow::bail!("listening on TCP ({}) needs a token (--token)", args.listen);
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
        eprintln!("gldbg-debugd: listening on {}", args.listen);
        let shutdown = async {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(_) => {
                        let _ = tokio::signal::ctrl_c().await;
                        return;
                    }
                };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        };
        daemon.serve(args.listen, args.token, shutdown).await
    })
}

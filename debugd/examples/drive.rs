//! Drive the daemon end to end without the CLI: serves an in-process
//! `Daemon` on 127.0.0.1 (with a token), connects a tonic client and runs a
//! small command list given on the command line, printing each reply.
//!
//! `cargo run -p gldbg-debugd --example drive -- PROGRAM [ARGS] ::: CMD ...`
//! Commands: `break-draw`, `break:FUNC`, `continue`, `step:N`, `call`, `program`,
//! `debug`, `sstep`, `snext`, `sbreak:LINE`, `scont`, `list`, `print:EXPR[@X,Y]`,
//! `dump:EXPR:FILE`, `end`, `kill`, `state`, `bdel`.

use gldbg_debugd::{Config, Daemon, ListenAddr, find_preload};
use gldbg_proto::pb;
use gldbg_proto::pb::debugger_client::DebuggerClient;
use tonic::Request;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == ":::").unwrap_or(args.len());
    let (prog, cmds) = (&args[..split], args.get(split + 1..).unwrap_or(&[]));
    let preload = std::env::var("GLDBG_PRELOAD")
        .map(Into::into)
        .or_else(|_| find_preload())?;
    let daemon = Daemon::new(Config {
        preload,
        app_ends_with_daemon: false,
    });
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr: ListenAddr = format!("127.0.0.1:{port}").parse()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let d = daemon.clone();
    let server = tokio::spawn(async move {
        d.serve(addr, Some("secret".into()), async {
            let _ = rx.await;
        })
        .await
    });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))?
        .connect()
        .await?;
    let mut c = DebuggerClient::with_interceptor(channel, |mut r: Request<()>| {
        r.metadata_mut()
            .insert("authorization", "Bearer secret".parse().unwrap());
        Ok(r)
    });
    let mut events = c.events(pb::Empty {}).await?.into_inner();
    tokio::spawn(async move {
        while let Ok(Some(ev)) = events.message().await {
            if !matches!(ev.kind, Some(pb::event::Kind::Running(_))) {
                eprintln!("EVENT {:?}", ev);
            }
        }
    });
    let t = std::time::Instant::now();
    let r = c
        .launch(pb::LaunchRequest {
            program: prog[0].clone(),
            args: prog[1..].to_vec(),
            ..Default::default()
        })
        .await;
    println!(
        "launch ({:?}) -> {:?}",
        t.elapsed(),
        r.map(|r| r.into_inner())
    );
    for cmd in cmds {
        let t = std::time::Instant::now();
        let (name, arg) = cmd.split_once(':').unwrap_or((cmd.as_str(), ""));
        let out = match name {
            "break-draw" => format!(
                "{:?}",
                c.add_breakpoint(pb::BreakpointSpec {
                    kind: Some(pb::breakpoint_spec::Kind::Draw(pb::Empty {}))
                })
                .await
            ),
            "break" => format!(
                "{:?}",
                c.add_breakpoint(pb::BreakpointSpec {
                    kind: Some(pb::breakpoint_spec::Kind::Function(arg.into()))
                })
                .await
            ),
            "bdel" => format!(
                "{:?}",
                c.delete_breakpoint(pb::DeleteBreakpointRequest { id: 0 })
                    .await
            ),
            "continue" => format!("{:?}", c.r#continue(pb::Empty {}).await),
            "step" => format!(
                "{:?}",
                c.step(pb::StepRequest {
                    count: arg.parse().unwrap_or(1)
                })
                .await
            ),
            "state" => format!("{:?}", c.get_state(pb::Empty {}).await),
            "call" => format!("{:?}", c.info_call(pb::Empty {}).await),
            "program" => format!("{:?}", c.info_program(pb::Empty {}).await),
            "debug" => format!(
                "{:?}",
                c.debug_shader(pb::DebugShaderRequest {
                    stage: if arg.is_empty() {
                        "fragment".into()
                    } else {
                        arg.into()
                    },
                    ..Default::default()
                })
                .await
            ),
            "sstep" => format!(
                "{:?}",
                c.shader_step(pb::ShaderStepRequest {
                    mode: 0,
                    count: arg.parse().unwrap_or(1)
                })
                .await
            ),
            "snext" => format!(
                "{:?}",
                c.shader_step(pb::ShaderStepRequest { mode: 1, count: 1 })
                    .await
            ),
            "sfinish" => format!(
                "{:?}",
                c.shader_step(pb::ShaderStepRequest { mode: 2, count: 1 })
                    .await
            ),
            "sbreak" => format!(
                "{:?}",
                c.shader_break(pb::ShaderBreakRequest {
                    line: arg.parse()?,
                    ..Default::default()
                })
                .await
            ),
            "sdel" => format!(
                "{:?}",
                c.shader_delete_break(pb::ShaderBreakRequest {
                    line: arg.parse().unwrap_or(0),
                    ..Default::default()
                })
                .await
            ),
            "scont" => format!("{:?}", c.shader_continue(pb::Empty {}).await),
            "list" => match c
                .shader_list(pb::ShaderListRequest {
                    line: 0,
                    context: 0,
                })
                .await
            {
                Ok(l) => l
                    .into_inner()
                    .lines
                    .iter()
                    .map(|l| {
                        format!(
                            "{}{} {:3} {}",
                            if l.current { '>' } else { ' ' },
                            if l.breakpoint { '*' } else { ' ' },
                            l.line,
                            l.text
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                Err(e) => format!("{e:?}"),
            },
            "print" => {
                let (expr, at) = match arg.split_once('@') {
                    Some((e, xy)) => {
                        let (x, y) = xy.split_once(',').unwrap();
                        (
                            e,
                            Some(pb::Invocation {
                                kind: Some(pb::invocation::Kind::Pixel(pb::Pixel {
                                    x: x.parse()?,
                                    y: y.parse()?,
                                })),
                            }),
                        )
                    }
                    None => (arg, None),
                };
                format!(
                    "{:?}",
                    c.print(pb::PrintRequest {
                        expr: expr.into(),
                        at
                    })
                    .await
                )
            }
            "dump" => {
                let (expr, file) = arg.split_once(':').unwrap();
                match c
                    .dump(pb::DumpRequest {
                        expr: expr.into(),
                        format: if file.ends_with(".npy") { 1 } else { 0 },
                        ..Default::default()
                    })
                    .await
                {
                    Ok(r) => {
                        let r = r.into_inner();
                        std::fs::write(file, &r.data)?;
                        format!(
                            "{}x{} {} reached {} -> {file} ({} bytes)",
                            r.width,
                            r.height,
                            r.r#type,
                            r.reached,
                            r.data.len()
                        )
                    }
                    Err(e) => format!("{e:?}"),
                }
            }
            "end" => format!("{:?}", c.end_debug(pb::Empty {}).await),
            "skip" => format!("{:?}", c.skip(pb::Empty {}).await),
            "setarg" => {
                let (i, v) = arg.split_once(':').unwrap();
                format!(
                    "{:?}",
                    c.set_arg(pb::SetArgRequest {
                        index: i.parse()?,
                        value: v.into(),
                        element: None,
                    })
                    .await
                )
            }
            "kill" => format!("{:?}", c.kill(pb::Empty {}).await),
            "detach" => format!("{:?}", c.detach(pb::Empty {}).await),
            other => format!("unknown command {other}"),
        };
        println!("{cmd} ({:?}) -> {out}", t.elapsed());
    }
    let _ = tx.send(());
    server.await??;
    Ok(())
}

//! A gRPC client of a `gldbg-debugd` on a Unix socket, its token sent as
//! `authorization: Bearer TOKEN` with every request (protocol.rs,
//! source_breakpoints.rs), and the bare channel (lifecycle.rs).

use std::path::PathBuf;

use gldbg_proto::pb::debugger_client::DebuggerClient;
use hyper_util::rt::TokioIo;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Request, Status};

/// Adds the token to each request.
#[derive(Clone)]
pub struct Bearer(MetadataValue<Ascii>);

impl Interceptor for Bearer {
    fn call(&mut self, mut r: Request<()>) -> Result<Request<()>, Status> {
        r.metadata_mut().insert("authorization", self.0.clone());
        Ok(r)
    }
}

pub type Client = DebuggerClient<InterceptedService<Channel, Bearer>>;

/// A channel to the daemon on the Unix socket `socket`.
pub async fn channel(socket: PathBuf) -> Channel {
    Endpoint::try_from("http://[::]:50051")
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = socket.clone();
            async move {
                Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?))
            }
        }))
        .await
        .expect("connect to gldbg-debugd")
}

/// Connect to the daemon at `socket` with `token`.
pub async fn client(socket: PathBuf, token: &str) -> Client {
    let channel = channel(socket).await;
    let bearer = Bearer(format!("Bearer {token}").parse().expect("an ASCII token"));
    DebuggerClient::with_interceptor(channel, bearer)
}
